/* Running a window node: its input collected in morsel order, sorted
 * (stable) by the partition columns (ascending, NULLs last) then the order
 * keys, and handed to the window operator. Without keys the input order is
 * kept: one partition. Under a memory limit a window with PARTITION BY,
 * or one without whose calls can be computed a stretch at a time, spills
 * (run_window_spill.c). */
#include <stdio.h>
#include <string.h>

#include "plan/run_internal.h"
#include "sort/sort.h"
#include "window/window.h"

/* A window that spills, its rows collected. */
static basalt_status window_spilling(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct basalt_qwin_stream *w = NULL;
    basalt_status st = basalt_qwin_stream_open(ctx, node, &w, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(&node->schema, &out->schema, err);
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qwin_stream_next(w, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = basalt_arrow_batches_append(out, &b, err);
        if (st == BASALT_OK && basalt_alloc_bytes() > ctx->o.memory_limit)
            st = basalt_error_set(err, BASALT_LIMIT,
                                  "WINDOW: memory limit of %.1f MiB exceeded by its result "
                                  "(%.1f MiB in use); its input was spilled, but an operator "
                                  "above the window holds its result",
                                  (double)ctx->o.memory_limit / 1048576.0,
                                  (double)basalt_alloc_bytes() / 1048576.0);
    }
    basalt_qwin_stream_free(w);
    return st;
}

/* The operator's name in the limit's messages: a window held whole under
 * a limit (one that spills is not: basalt_qrun_window_spills) says why. */
static void window_what(const struct basalt_qctx *ctx, const struct basalt_qwin_spec *spec,
                        char *what, size_t size)
{
    snprintf(what, size, "WINDOW");
    if (ctx->o.memory_limit <= 0 || spec->n_part > 0)
        return;
    char why[160] = "";
    int64_t behind, ahead;
    bool peers, whole;
    basalt_qwin_stretchable(spec, true, &behind, &ahead, &peers, &whole, why, sizeof why);
    snprintf(what, size,
             "WINDOW (without PARTITION BY, one partition, held whole since it cannot be "
             "computed a stretch at a time: %s)",
             why);
}

basalt_status basalt_qrun_window(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                 struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (basalt_qrun_window_spills(ctx, node))
        return window_spilling(ctx, node, out, err);
    struct basalt_arrow_batches in, sorted;
    basalt_arrow_batches_init(&in);
    basalt_arrow_batches_init(&sorted);
    int np = node->n_part, no = node->n_sort_keys;
    struct basalt_qsort_key *keys = basalt_calloc((size_t)(np + no) + 1, sizeof *keys);
    int *order_cols = basalt_calloc((size_t)no + 1, sizeof *order_cols);
    basalt_status st = keys != NULL && order_cols != NULL
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; st == BASALT_OK && i < np + no; i++) {
        if (i < np) {
            keys[i].column = node->part_cols[i];
        } else {
            const struct basalt_qplan_sort_key *k = &node->sort_keys[i - np];
            keys[i].column = k->column;
            keys[i].descending = k->descending;
            keys[i].nulls_first = k->nulls_first;
            order_cols[i - np] = k->column;
        }
    }
    struct basalt_qwin_spec spec = {&node->child[0]->schema, node->part_cols, np, order_cols, no,
                                    node->wcalls, node->n_wcalls, &node->schema,
                                    node->sort_keys};
    if (st == BASALT_OK && node->has_row_limit) {
        st = basalt_qrun_window_limited(ctx, node, &spec, out, err);
        basalt_free(keys);
        basalt_free(order_cols);
        return st;
    }
    char what[320];
    window_what(ctx, &spec, what, sizeof what);
    if (st == BASALT_OK)
        st = basalt_qrun_collect_in_order(ctx, node->child[0], what, -1, &in, err);
    if (st == BASALT_OK && np + no == 0) {
        sorted = in;
        basalt_arrow_batches_init(&in);
    } else if (st == BASALT_OK) {
        struct basalt_qsort *sort = NULL;
        struct basalt_qsort_local *local = NULL;
        st = basalt_qsort_new(&in.schema, keys, np + no, -1, 0, &sort, err);
        if (st == BASALT_OK)
            st = basalt_qsort_local_new(sort, &local, err);
        for (int64_t i = 0; i < in.n && st == BASALT_OK; i++)
            st = basalt_qsort_consume(local, &in.arrays[i], i, err);
        if (st == BASALT_OK)
            st = basalt_qsort_finish(sort, &local, 1, ctx->o.pool, &sorted, err);
        basalt_qsort_local_free(local);
        basalt_qsort_free(sort);
    }
    if (st == BASALT_OK && sorted.schema.release == NULL)
        st = basalt_arrow_schema_copy(&node->child[0]->schema, &sorted.schema, err);
    if (st == BASALT_OK)
        st = basalt_qwin_compute(&spec, &sorted, ctx->o.pool, basalt_qrun_workers(ctx), out, NULL,
                                 err);
    if (st == BASALT_OK && ctx->o.memory_limit > 0 && basalt_alloc_bytes() > ctx->o.memory_limit)
        st = basalt_error_set(err, BASALT_LIMIT, "%s: memory limit of %.1f MiB exceeded (%.1f MiB "
                              "in use); raise --memory-limit",
                              what, (double)ctx->o.memory_limit / 1048576.0,
                              (double)basalt_alloc_bytes() / 1048576.0);
    basalt_arrow_batches_reset(&in);
    basalt_arrow_batches_reset(&sorted);
    basalt_free(keys);
    basalt_free(order_cols);
    return st;
}
