/* Slices of a decoded batch: arrays that share the batch's buffers and keep
 * it alive through a reference count, each releasable on its own (and each
 * child of each, as the C data interface allows consumers to move children
 * out). Only the top-level fields are offset; below them the buffers and
 * offsets are the batch's own. */
#include <stdatomic.h>
#include <string.h>

#include "parquet_reader.h"

struct basalt_parquet_holder {
    atomic_long refs;
    struct ArrowArray batch;
};

struct view {
    struct basalt_parquet_holder *holder;
    struct ArrowArray **child_ptrs;
    struct ArrowArray *children;
    struct ArrowArray dictionary;
};

static void holder_unref(struct basalt_parquet_holder *h)
{
    if (atomic_fetch_sub(&h->refs, 1) == 1) {
        basalt_arrow_array_release(&h->batch);
        basalt_free(h);
    }
}

basalt_status basalt_parquet_holder_new(struct ArrowArray *batch,
                                        struct basalt_parquet_holder **out,
                                        struct basalt_error *err)
{
    *out = NULL;
    struct basalt_parquet_holder *h = basalt_malloc(sizeof *h);
    if (!h) {
        basalt_arrow_array_release(batch);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a batch holder");
    }
    atomic_init(&h->refs, 1);
    basalt_arrow_array_move(batch, &h->batch);
    *out = h;
    return BASALT_OK;
}

int64_t basalt_parquet_holder_length(const struct basalt_parquet_holder *holder)
{
    return holder->batch.length;
}

void basalt_parquet_holder_release(struct basalt_parquet_holder *holder)
{
    if (holder)
        holder_unref(holder);
}

static void view_release(struct ArrowArray *a)
{
    struct view *v = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++)
        basalt_arrow_array_release(&v->children[i]);
    basalt_arrow_array_release(&v->dictionary);
    struct basalt_parquet_holder *h = v->holder;
    basalt_free(v);
    a->release = NULL;
    holder_unref(h);
}

static int64_t nulls_in(const struct ArrowArray *src, int64_t offset, int64_t length)
{
    if (src->n_buffers == 0) /* the null type */
        return length;
    if (!src->buffers[0])
        return 0;
    return length - basalt_bitmap_count(src->buffers[0], offset, length);
}

/* A view of `src`: rows [offset, offset + length) of it when `slice`, all of
 * it otherwise. */
static basalt_status make_view(struct basalt_parquet_holder *h, const struct ArrowArray *src,
                               bool slice, int64_t offset, int64_t length, struct ArrowArray *out,
                               struct basalt_error *err)
{
    out->release = NULL;
    size_t n = (size_t)src->n_children;
    struct view *v = basalt_calloc(1, sizeof *v + n * (sizeof(struct ArrowArray *) +
                                                          sizeof(struct ArrowArray)));
    if (!v)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a batch slice");
    v->children = (struct ArrowArray *)(void *)(v + 1);
    v->child_ptrs = (struct ArrowArray **)(void *)(v->children + n);
    v->holder = h;
    atomic_fetch_add(&h->refs, 1);
    out->length = slice ? length : src->length;
    out->offset = slice ? src->offset + offset : src->offset;
    out->null_count = slice ? nulls_in(src, src->offset + offset, length) : src->null_count;
    out->n_buffers = src->n_buffers;
    out->buffers = src->buffers;
    out->n_children = src->n_children;
    out->children = n ? v->child_ptrs : NULL;
    out->dictionary = NULL;
    out->private_data = v;
    out->release = view_release;
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        v->child_ptrs[i] = &v->children[i];
        st = make_view(h, src->children[i], false, 0, 0, &v->children[i], err);
    }
    if (st == BASALT_OK && src->dictionary) {
        st = make_view(h, src->dictionary, false, 0, 0, &v->dictionary, err);
        out->dictionary = &v->dictionary;
    }
    if (st != BASALT_OK)
        view_release(out);
    return st;
}

basalt_status basalt_parquet_holder_slice(struct basalt_parquet_holder *holder, int64_t offset,
                                          int64_t length, struct ArrowArray *out,
                                          struct basalt_error *err)
{
    const struct ArrowArray *b = &holder->batch;
    out->release = NULL;
    size_t n = (size_t)b->n_children;
    struct view *v = basalt_calloc(1, sizeof *v + n * (sizeof(struct ArrowArray *) +
                                                          sizeof(struct ArrowArray)));
    if (!v)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a batch slice");
    v->children = (struct ArrowArray *)(void *)(v + 1);
    v->child_ptrs = (struct ArrowArray **)(void *)(v->children + n);
    v->holder = holder;
    atomic_fetch_add(&holder->refs, 1);
    /* The batch is a struct without nulls; its fields carry the offset, so
     * consumers that ignore a struct's offset still read the right rows. */
    out->length = length;
    out->offset = 0;
    out->null_count = 0;
    out->n_buffers = b->n_buffers;
    out->buffers = b->buffers;
    out->n_children = b->n_children;
    out->children = n ? v->child_ptrs : NULL;
    out->dictionary = NULL;
    out->private_data = v;
    out->release = view_release;
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        v->child_ptrs[i] = &v->children[i];
        st = make_view(holder, b->children[i], true, b->offset + offset, length, &v->children[i],
                       err);
    }
    if (st != BASALT_OK)
        view_release(out);
    return st;
}
