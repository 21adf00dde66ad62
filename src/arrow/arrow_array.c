/* ArrowArray structs owning basalt-allocated buffers: one block holds the
 * private data, the owned and public buffer pointer arrays, which buffers
 * came from the array's allocator, and the children's structs; the
 * dictionary struct is allocated when set. */
#include <string.h>

#include "arrow_internal.h"

struct array_private {
    int64_t n_buffers;
    int64_t n_children;
    struct basalt_arrow_allocator allocator; /* allocate NULL: the heap only */
    void **owned;
    bool *from_allocator; /* owned[i] goes back to `allocator`, not basalt_free */
    const void **buffers;
    struct ArrowArray **child_ptrs;
    struct ArrowArray *children;
    struct ArrowArray *dictionary;
};

static void free_owned(struct array_private *p, int64_t i)
{
    if (p->from_allocator[i])
        p->allocator.release(p->allocator.ctx, p->owned[i]);
    else
        basalt_free(p->owned[i]);
    p->owned[i] = NULL;
    p->from_allocator[i] = false;
}

void basalt_arrow_array_release_owned(struct ArrowArray *array)
{
    struct array_private *p = array->private_data;
    for (int64_t i = 0; i < p->n_children; i++)
        basalt_arrow_array_release(&p->children[i]);
    if (p->dictionary) {
        basalt_arrow_array_release(p->dictionary);
        basalt_free(p->dictionary);
    }
    for (int64_t i = 0; i < p->n_buffers; i++)
        free_owned(p, i);
    basalt_free(p);
    array->release = NULL;
    array->private_data = NULL;
}

void basalt_arrow_array_release(struct ArrowArray *array)
{
    if (array && array->release)
        array->release(array);
}

void basalt_arrow_array_move(struct ArrowArray *src, struct ArrowArray *dst)
{
    memcpy(dst, src, sizeof *dst);
    src->release = NULL;
}

basalt_status basalt_arrow_array_init(struct ArrowArray *array, int64_t n_buffers,
                                      int64_t n_children, struct basalt_error *err)
{
    return basalt_arrow_array_init_with(array, n_buffers, n_children, NULL, err);
}

basalt_status basalt_arrow_array_init_with(struct ArrowArray *array, int64_t n_buffers,
                                           int64_t n_children,
                                           const struct basalt_arrow_allocator *allocator,
                                           struct basalt_error *err)
{
    if (!array)
        return basalt_error_set(err, BASALT_INVALID_ARG, "array_init: NULL array");
    array->release = NULL;
    if (n_buffers < 0 || n_children < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "array_init: negative count");
    if (n_buffers > INT32_MAX || n_children > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "array_init: too many buffers or children");
    size_t nb = (size_t)n_buffers, nc = (size_t)n_children;
    if (allocator && (!allocator->allocate || !allocator->release))
        return basalt_error_set(err, BASALT_INVALID_ARG, "array_init: allocator without both "
                                                         "functions");
    size_t size = sizeof(struct array_private) + 2 * nb * sizeof(void *) +
                  nc * (sizeof(struct ArrowArray *) + sizeof(struct ArrowArray)) + nb;
    struct array_private *p = basalt_malloc(size);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an array");
    char *cursor = (char *)(p + 1);
    p->n_buffers = n_buffers;
    p->n_children = n_children;
    p->owned = (void **)(void *)cursor;
    cursor += nb * sizeof(void *);
    p->buffers = (const void **)(void *)cursor;
    cursor += nb * sizeof(void *);
    p->child_ptrs = (struct ArrowArray **)(void *)cursor;
    cursor += nc * sizeof(struct ArrowArray *);
    p->children = (struct ArrowArray *)(void *)cursor;
    cursor += nc * sizeof(struct ArrowArray);
    p->from_allocator = (bool *)(void *)cursor;
    p->dictionary = NULL;
    if (allocator)
        p->allocator = *allocator;
    else
        memset(&p->allocator, 0, sizeof p->allocator);
    for (size_t i = 0; i < nb; i++) {
        p->owned[i] = NULL;
        p->buffers[i] = NULL;
        p->from_allocator[i] = false;
    }
    for (size_t i = 0; i < nc; i++) {
        memset(&p->children[i], 0, sizeof p->children[i]);
        p->child_ptrs[i] = &p->children[i];
    }
    array->length = 0;
    array->null_count = 0;
    array->offset = 0;
    array->n_buffers = n_buffers;
    array->n_children = n_children;
    array->buffers = nb ? p->buffers : NULL;
    array->children = nc ? p->child_ptrs : NULL;
    array->dictionary = NULL;
    array->private_data = p;
    array->release = basalt_arrow_array_release_owned;
    return BASALT_OK;
}

static basalt_status check_slot(const struct ArrowArray *array, int64_t i,
                                struct basalt_error *err)
{
    if (!array || array->release != basalt_arrow_array_release_owned)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "array released or not made by basalt_arrow_array_init");
    const struct array_private *p = array->private_data;
    if (i < 0 || i >= p->n_buffers)
        return basalt_error_set(err, BASALT_INVALID_ARG, "buffer %lld out of range [0, %lld)",
                                (long long)i, (long long)p->n_buffers);
    return BASALT_OK;
}

basalt_status basalt_arrow_array_set_buffer(struct ArrowArray *array, int64_t i, void *buffer,
                                            struct basalt_error *err)
{
    basalt_status st = check_slot(array, i, err);
    if (st != BASALT_OK) {
        basalt_free(buffer);
        return st;
    }
    struct array_private *p = array->private_data;
    if (p->owned[i] != buffer)
        free_owned(p, i);
    p->owned[i] = buffer;
    p->buffers[i] = buffer;
    return BASALT_OK;
}

basalt_status basalt_arrow_array_allocate_buffer(struct ArrowArray *array, int64_t i, size_t size,
                                                 void **out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "array_allocate_buffer: NULL out");
    *out = NULL;
    basalt_status st = check_slot(array, i, err);
    if (st != BASALT_OK)
        return st;
    if (size > ((size_t)1 << 62))
        return basalt_error_set(err, BASALT_LIMIT, "buffer of %zu bytes", size);
    size_t rounded = (size + 63) & ~(size_t)63;
    if (rounded == 0)
        rounded = 64;
    struct array_private *p = array->private_data;
    /* The allocator's memory when it has some, else the heap's. */
    uint8_t *buffer = p->allocator.allocate ? p->allocator.allocate(p->allocator.ctx, rounded)
                                            : NULL;
    bool from_allocator = buffer != NULL;
    if (!buffer)
        buffer = basalt_aligned_alloc(64, rounded);
    if (!buffer)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a %zu-byte buffer", size);
    memset(buffer + size, 0, rounded - size);
    basalt_arrow_array_set_buffer(array, i, buffer, NULL);
    p->from_allocator[i] = from_allocator;
    *out = buffer;
    return BASALT_OK;
}

basalt_status basalt_arrow_array_set_dictionary(struct ArrowArray *array,
                                                struct ArrowArray *dictionary,
                                                struct basalt_error *err)
{
    if (!dictionary || !dictionary->release)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "array_set_dictionary: dictionary missing or released");
    if (!array || array->release != basalt_arrow_array_release_owned) {
        basalt_arrow_array_release(dictionary);
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "array released or not made by basalt_arrow_array_init");
    }
    struct ArrowArray *slot = basalt_malloc(sizeof *slot);
    if (!slot) {
        basalt_arrow_array_release(dictionary);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a dictionary array");
    }
    basalt_arrow_array_move(dictionary, slot);
    struct array_private *p = array->private_data;
    if (p->dictionary) {
        basalt_arrow_array_release(p->dictionary);
        basalt_free(p->dictionary);
    }
    p->dictionary = slot;
    array->dictionary = slot;
    return BASALT_OK;
}
