/* Running a window node: its input collected in morsel order, sorted
 * (stable) by the partition columns (ascending, NULLs last) then the order
 * keys, and handed to the window operator. Without keys the input order is
 * kept: one partition. */
#include <string.h>

#include "plan/run_internal.h"
#include "sort/sort.h"
#include "window/window.h"

basalt_status basalt_qrun_window(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                 struct basalt_arrow_batches *out, struct basalt_error *err)
{
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
                                    node->wcalls, node->n_wcalls, &node->schema};
    if (st == BASALT_OK && node->has_row_limit) {
        st = basalt_qrun_window_limited(ctx, node, &spec, out, err);
        basalt_free(keys);
        basalt_free(order_cols);
        return st;
    }
    if (st == BASALT_OK)
        st = basalt_qrun_collect_in_order(ctx, node->child[0], "WINDOW", -1, &in, err);
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
    basalt_arrow_batches_reset(&in);
    basalt_arrow_batches_reset(&sorted);
    basalt_free(keys);
    basalt_free(order_cols);
    return st;
}
