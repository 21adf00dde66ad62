#include "test.h"

TEST(arena_alignment_and_contents)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    struct bt_rng rng;
    bt_rng_seed(&rng, 1);
    uint8_t *ptrs[500];
    size_t sizes[500];
    for (int i = 0; i < 500; i++) {
        size_t align = (size_t)1 << bt_rng_below(&rng, 7);
        sizes[i] = bt_rng_below(&rng, i % 50 == 0 ? 5000 : 100);
        ptrs[i] = basalt_arena_alloc(&arena, sizes[i], align);
        CHECK(ptrs[i] != NULL);
        CHECK_EQ((uintptr_t)ptrs[i] % align, 0);
        memset(ptrs[i], i & 0xff, sizes[i]);
    }
    /* No allocation overlapped another: every byte still holds its owner's mark. */
    for (int i = 0; i < 500; i++)
        for (size_t j = 0; j < sizes[i]; j++)
            CHECK_EQ(ptrs[i][j], i & 0xff);
    char *s = basalt_arena_strndup(&arena, "hello world", 5);
    CHECK_STR(s, "hello");
    basalt_arena_reset(&arena);
    CHECK_EQ(arena.bytes_used, 0);
    CHECK(basalt_arena_alloc(&arena, 8, 3) == NULL); /* not a power of two */
    CHECK(basalt_arena_alloc(&arena, 8, 8192) == NULL);
    basalt_arena_reset(&arena);
}

TEST(arena_large_request_keeps_current_block)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    uint8_t *a = basalt_arena_alloc(&arena, 16, 8);
    uint8_t *big = basalt_arena_alloc(&arena, 100000, 8);
    uint8_t *b = basalt_arena_alloc(&arena, 16, 8);
    CHECK(a && big && b);
    /* b continues in a's block right after it. */
    CHECK(b == a + 16);
    basalt_arena_reset(&arena);
}

static basalt_status arena_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 256);
    for (int i = 0; i < 20; i++) {
        if (!basalt_arena_alloc(&arena, (size_t)(i * 40), 8)) {
            basalt_arena_reset(&arena);
            return BASALT_NOMEM;
        }
    }
    basalt_arena_reset(&arena);
    return BASALT_OK;
}

TEST(arena_allocation_failures)
{
    CHECK_ALLOC_SWEEP(arena_attempt, NULL);
}

TEST(buffer_append_grow_take)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (int i = 0; i < 10000; i++) {
        uint32_t v = (uint32_t)i * 2654435761u;
        CHECK_OK(basalt_buffer_append(&buf, &v, sizeof v, &err), &err);
        CHECK_EQ((uintptr_t)buf.data % 64, 0);
        CHECK_EQ(buf.capacity % 64, 0);
    }
    CHECK_EQ(buf.size, 40000);
    for (int i = 0; i < 10000; i++) {
        uint32_t v;
        memcpy(&v, buf.data + 4 * i, 4);
        CHECK_UEQ(v, (uint32_t)i * 2654435761u);
    }
    CHECK_OK(basalt_buffer_resize(&buf, 10, &err), &err);
    CHECK_EQ(buf.size, 10);
    uint8_t *data = basalt_buffer_take(&buf);
    CHECK(buf.data == NULL && buf.size == 0 && buf.capacity == 0);
    basalt_free(data);
    basalt_buffer_reset(&buf);
}

TEST(buffer_overflowing_reserve_is_limit)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    CHECK_OK(basalt_buffer_append(&buf, "abc", 3, &err), &err);
    CHECK_STATUS(basalt_buffer_reserve(&buf, SIZE_MAX - 10, &err), BASALT_LIMIT, &err);
    CHECK_EQ(buf.size, 3);
    basalt_buffer_reset(&buf);
}

static basalt_status buffer_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < 100 && st == BASALT_OK; i++)
        st = basalt_buffer_append(&buf, "0123456789abcdef", 16, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

TEST(buffer_allocation_failures)
{
    CHECK_ALLOC_SWEEP(buffer_attempt, NULL);
}
