/* The repetition and definition levels of a nested column's rows, with the
 * physical index of each value they lead to. */
#include <string.h>

#include "parquet_writer.h"

/* The levels of one nested column being computed. */
struct level_walk {
    const struct basalt_parquet_wcolumn *col;
    struct basalt_parquet_wchunk *c;
    struct basalt_buffer *index;     /* int64 physical index of each value */
    const struct ArrowArray *leaf;   /* the array the values are in */
    int64_t levels;
    basalt_status status;
    struct basalt_error *err;
};

static void emit(struct level_walk *w, int16_t def, int16_t rep, const struct ArrowArray *leaf,
                 int64_t index)
{
    if (w->status != BASALT_OK)
        return;
    struct basalt_buffer *d = &w->c->def, *r = &w->c->rep, *x = w->index;
    if (d->capacity - d->size < 2 || r->capacity - r->size < 2 || x->capacity - x->size < 8) {
        /* room for many levels at once: the common case below is two stores */
        struct basalt_error *err = w->err;
        basalt_status st = basalt_buffer_reserve(d, 8192, err);
        if (st == BASALT_OK)
            st = basalt_buffer_reserve(r, 8192, err);
        if (st == BASALT_OK)
            st = basalt_buffer_reserve(x, 32768, err);
        if (st != BASALT_OK) {
            w->status = st;
            return;
        }
    }
    memcpy(d->data + d->size, &def, 2);
    d->size += 2;
    memcpy(r->data + r->size, &rep, 2);
    r->size += 2;
    if (index >= 0) {
        w->leaf = leaf;
        memcpy(x->data + x->size, &index, 8);
        x->size += 8;
    }
    w->levels++;
}

/* Slot `p` (a physical index) of `arr`, the array of node `d`. */
static void visit(struct level_walk *w, int d, const struct ArrowArray *arr, int64_t p,
                  int16_t def, int16_t rep)
{
    const struct basalt_parquet_wnode *node = &w->col->nodes[d];
    if (w->status != BASALT_OK)
        return;
    if (node->kind == BASALT_PARQUET_WNODE_NULL) {
        /* the null type has no validity bitmap: every slot is null */
        emit(w, def, rep, NULL, -1);
        return;
    }
    bool valid = arr->null_count == 0 || !arr->buffers[0] || basalt_bitmap_get(arr->buffers[0], p);
    if (!valid) {
        if (!node->nullable) {
            w->status = basalt_error_set(w->err, BASALT_INVALID_ARG,
                                         "column '%s': a non-nullable field holds nulls",
                                         w->col->name);
            return;
        }
        emit(w, def, rep, NULL, -1);
        return;
    }
    if (node->nullable)
        def++;
    switch (node->kind) {
    case BASALT_PARQUET_WNODE_LEAF:
        emit(w, def, rep, arr, p);
        return;
    case BASALT_PARQUET_WNODE_STRUCT: {
        const struct ArrowArray *ch = arr->children[node->child];
        visit(w, d + 1, ch, ch->offset + p, def, rep);
        return;
    }
    default: {
        int64_t b, e;
        if (node->kind == BASALT_PARQUET_WNODE_FIXED_LIST) {
            /* the slots of a null list were skipped above: they are not values */
            b = p * node->fixed_size;
            e = b + node->fixed_size;
        } else if (node->kind == BASALT_PARQUET_WNODE_LARGE_LIST) {
            const int64_t *o = arr->buffers[1];
            b = o[p];
            e = o[p + 1];
        } else {
            const int32_t *o = arr->buffers[1];
            b = o[p];
            e = o[p + 1];
        }
        if (b == e) {
            emit(w, def, rep, NULL, -1);
            return;
        }
        const struct ArrowArray *ch = arr->children[0];
        for (int64_t j = b; j < e && w->status == BASALT_OK; j++)
            visit(w, d + 1, ch, ch->offset + j, (int16_t)(def + 1), j == b ? rep : node->rep_level);
        return;
    }
    }
}

/* A list of leaf values, the commonest nesting: the levels visit() gives,
 * without its recursion. */
static void visit_list(struct level_walk *w, const struct ArrowArray *arr, int64_t p0,
                       int64_t count)
{
    const struct basalt_parquet_wnode *ln = &w->col->nodes[0], *en = &w->col->nodes[1];
    const struct ArrowArray *ch = arr->children[0];
    const uint8_t *lvalid = arr->null_count == 0 ? NULL : arr->buffers[0];
    const uint8_t *cvalid = ch->null_count == 0 ? NULL : ch->buffers[0];
    const int32_t *o32 = ln->kind == BASALT_PARQUET_WNODE_LIST ? arr->buffers[1] : NULL;
    const int64_t *o64 = o32 ? NULL : arr->buffers[1];
    int16_t def0 = ln->nullable ? 1 : 0;
    int16_t rl = ln->rep_level;
    for (int64_t r = 0; r < count && w->status == BASALT_OK; r++) {
        int64_t p = p0 + r;
        if (lvalid && !basalt_bitmap_get(lvalid, p)) {
            if (!ln->nullable) {
                w->status = basalt_error_set(w->err, BASALT_INVALID_ARG,
                                             "column '%s': a non-nullable field holds nulls",
                                             w->col->name);
                return;
            }
            emit(w, 0, 0, NULL, -1);
            continue;
        }
        int64_t b = o32 ? o32[p] : o64[p];
        int64_t e = o32 ? o32[p + 1] : o64[p + 1];
        if (b == e) {
            emit(w, def0, 0, NULL, -1);
            continue;
        }
        for (int64_t j = b; j < e; j++) {
            int64_t q = ch->offset + j;
            int16_t rep = j == b ? 0 : rl;
            if (cvalid && !basalt_bitmap_get(cvalid, q)) {
                if (!en->nullable) {
                    w->status = basalt_error_set(w->err, BASALT_INVALID_ARG,
                                                 "column '%s': a non-nullable field holds nulls",
                                                 w->col->name);
                    return;
                }
                emit(w, (int16_t)(def0 + 1), rep, NULL, -1);
            } else {
                emit(w, (int16_t)(def0 + 1 + (en->nullable ? 1 : 0)), rep, ch, q);
            }
        }
    }
}

basalt_status basalt_parquet_wlevels_walk(struct basalt_parquet_wchunk *c,
                                          const struct basalt_parquet_wcolumn *col,
                                          const struct ArrowArray *array, int64_t start,
                                          int64_t count, struct basalt_parquet_wctx *ctx,
                                          const struct ArrowArray **leaf, int64_t *levels,
                                          struct basalt_error *err)
{
    struct level_walk w;
    memset(&w, 0, sizeof w);
    w.col = col;
    w.c = c;
    w.index = &ctx->indices;
    w.err = err;
    ctx->indices.size = 0;
    if (col->depth == 2 && col->nodes[1].kind == BASALT_PARQUET_WNODE_LEAF &&
        (col->nodes[0].kind == BASALT_PARQUET_WNODE_LIST ||
         col->nodes[0].kind == BASALT_PARQUET_WNODE_LARGE_LIST) &&
        !ctx->options->simple_paths) {
        visit_list(&w, array, array->offset + start, count);
        ctx->counters.list_walks++;
    } else {
        for (int64_t r = 0; r < count && w.status == BASALT_OK; r++)
            visit(&w, 0, array, array->offset + start + r, 0, 0);
    }
    *leaf = w.leaf;
    *levels = w.levels;
    return w.status;
}
