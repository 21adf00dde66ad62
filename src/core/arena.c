#include <string.h>

#include "basalt/core.h"

struct basalt_arena_block {
    struct basalt_arena_block *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    /* data follows, aligned to max_align_t */
};

#define ARENA_HEADER ((sizeof(struct basalt_arena_block) + 63) & ~(size_t)63)

void basalt_arena_init(struct basalt_arena *arena, size_t block_size)
{
    arena->head = NULL;
    arena->block_size = block_size ? block_size : 64 * 1024;
    arena->bytes_used = 0;
}

static uint8_t *arena_block_data(struct basalt_arena_block *b) { return (uint8_t *)b + ARENA_HEADER; }

void *basalt_arena_alloc(struct basalt_arena *arena, size_t size, size_t align)
{
    if (align == 0)
        align = 1;
    if ((align & (align - 1)) != 0 || align > 4096)
        return NULL;
    struct basalt_arena_block *b = arena->head;
    if (b) {
        uintptr_t base = (uintptr_t)arena_block_data(b);
        size_t at = (size_t)(((base + b->used + align - 1) & ~(uintptr_t)(align - 1)) - base);
        if (at <= b->size && size <= b->size - at) {
            b->used = at + size;
            arena->bytes_used += size;
            return arena_block_data(b) + at;
        }
    }
    /* A request larger than a quarter block gets a block of its own, placed
     * behind the current one so the current block's free space is not lost. */
    size_t need = size + align;
    if (need < size)
        return NULL;
    bool dedicated = need > arena->block_size / 4;
    size_t block = dedicated ? need : arena->block_size;
    if (block > SIZE_MAX - ARENA_HEADER)
        return NULL;
    struct basalt_arena_block *nb = basalt_aligned_alloc(64, ARENA_HEADER + block);
    if (!nb)
        return NULL;
    nb->size = block;
    uintptr_t base = (uintptr_t)arena_block_data(nb);
    size_t at = (size_t)(((base + align - 1) & ~(uintptr_t)(align - 1)) - base);
    nb->used = at + size;
    if (dedicated && arena->head) {
        nb->next = arena->head->next;
        arena->head->next = nb;
    } else {
        nb->next = arena->head;
        arena->head = nb;
    }
    arena->bytes_used += size;
    return arena_block_data(nb) + at;
}

char *basalt_arena_strndup(struct basalt_arena *arena, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = basalt_arena_alloc(arena, len + 1, 1);
    if (p) {
        if (len)
            memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

void basalt_arena_reset(struct basalt_arena *arena)
{
    struct basalt_arena_block *b = arena->head;
    while (b) {
        struct basalt_arena_block *next = b->next;
        basalt_free(b);
        b = next;
    }
    arena->head = NULL;
    arena->bytes_used = 0;
}
