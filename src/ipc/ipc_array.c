/* Owners and array nodes of the IPC reader. */
#include <stdlib.h>

#include "ipc_internal.h"

void basalt_ipc_owner_ref(struct ipc_owner *owner)
{
    if (owner)
        __atomic_fetch_add(&owner->refs, 1, __ATOMIC_RELAXED);
}

void basalt_ipc_owner_unref(struct ipc_owner *owner)
{
    if (owner && __atomic_sub_fetch(&owner->refs, 1, __ATOMIC_ACQ_REL) == 0)
        owner->destroy(owner);
}

/* ------------------------------------------------------------ owners */

struct blob_owner {
    struct ipc_owner base;
    uint8_t *data;
};

static void blob_destroy(struct ipc_owner *owner)
{
    struct blob_owner *b = (struct blob_owner *)owner;
    basalt_free(b->data);
    basalt_free(b);
}

struct ipc_owner *basalt_ipc_blob_new(size_t size, uint8_t **data)
{
    struct blob_owner *b = basalt_malloc(sizeof *b);
    if (!b)
        return NULL;
    /* Rounded up to 64 with zeroed padding, as every basalt buffer. */
    size_t cap = (size + 63) & ~(size_t)63;
    b->data = basalt_aligned_alloc(64, cap ? cap : 64);
    if (!b->data) {
        basalt_free(b);
        return NULL;
    }
    if (cap > size)
        memset(b->data + size, 0, cap - size);
    b->base.refs = 1;
    b->base.destroy = blob_destroy;
    *data = b->data;
    return &b->base;
}

struct input_owner {
    struct ipc_owner base;
    struct basalt_input *in;
};

static void input_destroy(struct ipc_owner *owner)
{
    struct input_owner *o = (struct input_owner *)owner;
    basalt_input_close(o->in);
    basalt_free(o);
}

struct ipc_owner *basalt_ipc_input_owner_new(struct basalt_input *in)
{
    struct input_owner *o = basalt_malloc(sizeof *o);
    if (!o) {
        basalt_input_close(in);
        return NULL;
    }
    o->base.refs = 1;
    o->base.destroy = input_destroy;
    o->in = in;
    return &o->base;
}

struct dict_owner {
    struct ipc_owner base;
    struct ArrowArray array;
};

static void dict_destroy(struct ipc_owner *owner)
{
    struct dict_owner *d = (struct dict_owner *)owner;
    basalt_arrow_array_release(&d->array);
    basalt_free(d);
}

struct ipc_owner *basalt_ipc_dict_owner_new(struct ArrowArray *array)
{
    struct dict_owner *d = basalt_malloc(sizeof *d);
    if (!d) {
        basalt_arrow_array_release(array);
        return NULL;
    }
    d->base.refs = 1;
    d->base.destroy = dict_destroy;
    basalt_arrow_array_move(array, &d->array);
    return &d->base;
}

const struct ArrowArray *basalt_ipc_dict_owner_array(const struct ipc_owner *owner)
{
    return &((const struct dict_owner *)owner)->array;
}

/* ------------------------------------------------------------ nodes */

/* One allocation per node: this header, then the buffer pointers, the
 * ownership flags, the child pointers and the child structs. */
struct ipc_node {
    struct ipc_owner *owner;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    uint8_t *owned;
    struct ArrowArray **children;
};

static void node_release(struct ArrowArray *array)
{
    struct ipc_node *n = array->private_data;
    for (int64_t i = 0; i < n->n_children; i++)
        basalt_arrow_array_release(n->children[i]);
    if (array->dictionary) {
        basalt_arrow_array_release(array->dictionary);
        basalt_free(array->dictionary);
    }
    for (int64_t i = 0; i < n->n_buffers; i++)
        if (n->owned[i])
            basalt_free((void *)(uintptr_t)n->buffers[i]);
    basalt_ipc_owner_unref(n->owner);
    basalt_free(n);
    array->release = NULL;
}

basalt_status basalt_ipc_node_init(struct ArrowArray *array, int64_t n_buffers,
                                   int64_t n_children, struct ipc_owner *owner,
                                   struct basalt_error *err)
{
    array->release = NULL;
    if (n_buffers < 0 || n_children < 0 || n_buffers > (1 << 24) || n_children > (1 << 24))
        return basalt_error_set(err, BASALT_LIMIT, "array node with %lld buffers, %lld children",
                                (long long)n_buffers, (long long)n_children);
    size_t size = sizeof(struct ipc_node) + (size_t)n_buffers * (sizeof(void *) + 1) + 8 +
                  (size_t)n_children * (sizeof(struct ArrowArray *) + sizeof(struct ArrowArray));
    struct ipc_node *n = basalt_calloc(1, size);
    if (!n)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an array node");
    uint8_t *p = (uint8_t *)(n + 1);
    n->buffers = (const void **)p;
    p += (size_t)n_buffers * sizeof(void *);
    n->children = (struct ArrowArray **)p;
    p += (size_t)n_children * sizeof(struct ArrowArray *);
    struct ArrowArray *kids = (struct ArrowArray *)p;
    p += (size_t)n_children * sizeof(struct ArrowArray);
    n->owned = p;
    for (int64_t i = 0; i < n_children; i++) {
        n->children[i] = &kids[i];
        kids[i].release = NULL;
    }
    n->n_buffers = n_buffers;
    n->n_children = n_children;
    n->owner = owner;
    basalt_ipc_owner_ref(owner);
    memset(array, 0, sizeof *array);
    array->n_buffers = n_buffers;
    array->n_children = n_children;
    array->buffers = n->buffers;
    array->children = n->children;
    array->release = node_release;
    array->private_data = n;
    return BASALT_OK;
}

void basalt_ipc_node_set_buffer(struct ArrowArray *array, int64_t i, const void *data, bool owned)
{
    struct ipc_node *n = array->private_data;
    if (n->owned[i])
        basalt_free((void *)(uintptr_t)n->buffers[i]);
    n->buffers[i] = data;
    n->owned[i] = owned;
}

basalt_status basalt_ipc_node_new_dictionary(struct ArrowArray *array, struct basalt_error *err)
{
    struct ArrowArray *d = basalt_malloc(sizeof *d);
    if (!d)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a dictionary");
    d->release = NULL;
    array->dictionary = d;
    return BASALT_OK;
}

basalt_status basalt_ipc_array_share(const struct ArrowArray *src, struct ipc_owner *owner,
                                     struct ArrowArray *dst, struct basalt_error *err)
{
    basalt_status st = basalt_ipc_node_init(dst, src->n_buffers, src->n_children, owner, err);
    if (st != BASALT_OK)
        return st;
    dst->length = src->length;
    dst->null_count = src->null_count;
    dst->offset = src->offset;
    for (int64_t i = 0; i < src->n_buffers; i++)
        basalt_ipc_node_set_buffer(dst, i, src->buffers[i], false);
    for (int64_t i = 0; i < src->n_children && st == BASALT_OK; i++)
        st = basalt_ipc_array_share(src->children[i], owner, dst->children[i], err);
    if (st == BASALT_OK && src->dictionary) {
        st = basalt_ipc_node_new_dictionary(dst, err);
        if (st == BASALT_OK)
            st = basalt_ipc_array_share(src->dictionary, owner, dst->dictionary, err);
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(dst);
    return st;
}

/* ------------------------------------------------------------ concat */

static void *alloc_zeroed(size_t size)
{
    size_t cap = (size + 63) & ~(size_t)63;
    void *p = basalt_aligned_alloc(64, cap ? cap : 64);
    if (p)
        memset(p, 0, cap ? cap : 64);
    return p;
}

/* The merged validity bitmap of a and b; none when neither has nulls. */
static basalt_status concat_validity(const struct ArrowArray *a, const struct ArrowArray *b,
                                     struct ArrowArray *out, struct basalt_error *err)
{
    int64_t n = a->length + b->length;
    const struct ArrowArray *parts[2] = {a, b};
    int64_t valid = 0;
    for (int i = 0; i < 2; i++)
        valid += parts[i]->buffers[0] ? basalt_bitmap_count(parts[i]->buffers[0],
                                                            parts[i]->offset, parts[i]->length)
                                      : parts[i]->length;
    out->null_count = n - valid;
    if (out->null_count == 0)
        return BASALT_OK;
    uint8_t *bits = alloc_zeroed((size_t)basalt_bitmap_bytes(n));
    if (!bits)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory concatenating a dictionary");
    int64_t at = 0;
    for (int i = 0; i < 2; i++) {
        if (parts[i]->buffers[0])
            basalt_bitmap_copy(bits, at, parts[i]->buffers[0], parts[i]->offset,
                               parts[i]->length);
        else
            basalt_bitmap_fill(bits, at, parts[i]->length, true);
        at += parts[i]->length;
    }
    basalt_ipc_node_set_buffer(out, 0, bits, true);
    return BASALT_OK;
}

basalt_status basalt_ipc_array_concat(const struct ArrowSchema *schema, const struct ArrowArray *a,
                                      const struct ArrowArray *b, struct ArrowArray *out,
                                      struct basalt_error *err)
{
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(schema->format, &t, err);
    if (st != BASALT_OK)
        return st;
    if (schema->dictionary)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "dictionary delta of a dictionary-encoded type");
    int64_t n = a->length + b->length;
    bool binary = t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_STRING;
    bool large = t.id == BASALT_ARROW_TYPE_LARGE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
    if (t.id == BASALT_ARROW_TYPE_NULL) {
        st = basalt_ipc_node_init(out, 0, 0, NULL, err);
        if (st == BASALT_OK)
            out->length = out->null_count = n;
        return st;
    }
    if (t.bit_width == 0 && !binary && !large)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "dictionary delta of type %s",
                                basalt_arrow_type_name(t.id));
    st = basalt_ipc_node_init(out, binary || large ? 3 : 2, 0, NULL, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    st = concat_validity(a, b, out, err);
    if (st != BASALT_OK)
        goto fail;
    const struct ArrowArray *parts[2] = {a, b};
    if (t.bit_width == 1) {
        uint8_t *bits = alloc_zeroed((size_t)basalt_bitmap_bytes(n));
        if (!bits)
            goto nomem;
        basalt_bitmap_copy(bits, 0, a->buffers[1], a->offset, a->length);
        basalt_bitmap_copy(bits, a->length, b->buffers[1], b->offset, b->length);
        basalt_ipc_node_set_buffer(out, 1, bits, true);
    } else if (t.bit_width) {
        size_t w = (size_t)(t.bit_width / 8);
        uint8_t *data = alloc_zeroed((size_t)n * w);
        if (!data)
            goto nomem;
        if (a->length)
            memcpy(data, (const uint8_t *)a->buffers[1] + (size_t)a->offset * w,
                   (size_t)a->length * w);
        if (b->length)
            memcpy(data + (size_t)a->length * w,
                   (const uint8_t *)b->buffers[1] + (size_t)b->offset * w,
                   (size_t)b->length * w);
        basalt_ipc_node_set_buffer(out, 1, data, true);
    } else {
        size_t ow = large ? 8 : 4;
        int64_t bytes = 0;
        int64_t first[2], last[2];
        for (int i = 0; i < 2; i++) {
            const uint8_t *o = parts[i]->buffers[1];
            int64_t s = parts[i]->offset, e = s + parts[i]->length;
            first[i] = large ? ((const int64_t *)o)[s] : ((const int32_t *)o)[s];
            last[i] = large ? ((const int64_t *)o)[e] : ((const int32_t *)o)[e];
            bytes += last[i] - first[i];
        }
        if (!large && bytes > INT32_MAX) {
            st = basalt_error_set(err, BASALT_LIMIT, "dictionary delta over 2 GiB of strings");
            goto fail;
        }
        uint8_t *offs = alloc_zeroed((size_t)(n + 1) * ow);
        uint8_t *data = alloc_zeroed((size_t)bytes);
        if (!offs || !data) {
            basalt_free(offs);
            basalt_free(data);
            goto nomem;
        }
        basalt_ipc_node_set_buffer(out, 1, offs, true);
        basalt_ipc_node_set_buffer(out, 2, data, true);
        int64_t at = 0, pos = 0;
        for (int i = 0; i < 2; i++) {
            const uint8_t *o = parts[i]->buffers[1];
            for (int64_t k = 0; k < parts[i]->length; k++) {
                int64_t s = parts[i]->offset + k;
                int64_t v = large ? ((const int64_t *)o)[s] : ((const int32_t *)o)[s];
                if (large)
                    ((int64_t *)offs)[at] = pos + v - first[i];
                else
                    ((int32_t *)offs)[at] = (int32_t)(pos + v - first[i]);
                at++;
            }
            if (last[i] > first[i])
                memcpy(data + pos, (const uint8_t *)parts[i]->buffers[2] + first[i],
                       (size_t)(last[i] - first[i]));
            pos += last[i] - first[i];
        }
        if (large)
            ((int64_t *)offs)[n] = pos;
        else
            ((int32_t *)offs)[n] = (int32_t)pos;
    }
    return BASALT_OK;
nomem:
    st = basalt_error_set(err, BASALT_NOMEM, "out of memory concatenating a dictionary");
fail:
    basalt_arrow_array_release(out);
    return st;
}
