/* The executor: turns a plan into pipelines. Filter, projection and the
 * probe of INNER, LEFT, SEMI, ANTI and CROSS joins stream; every other
 * operator is run to completion where it stands and its result becomes a
 * source of batches for the pipeline above it. */
#include <string.h>
#include <time.h>

#include "plan/run_internal.h"

double basalt_qrun_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

basalt_status basalt_qrun_take_rows(const struct ArrowSchema *schema, const struct ArrowArray *b,
                                   int64_t from, int64_t n, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    int64_t *idx = basalt_malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
    if (idx == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t k = 0; k < n; k++)
        idx[k] = from + k;
    basalt_status st = basalt_arrow_take(schema, b, idx, n, out, err);
    basalt_free(idx);
    return st;
}

/* Keeps rows [offset, offset + limit) of `in` (limit < 0: to the end) in out. */
static basalt_status cut(struct basalt_arrow_batches *in, int64_t limit, int64_t offset,
                         struct basalt_arrow_batches *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_copy(&in->schema, &out->schema, err);
    int64_t skip = offset, left = limit < 0 ? INT64_MAX : limit;
    for (int64_t i = 0; i < in->n && st == BASALT_OK && left > 0; i++) {
        struct ArrowArray *b = &in->arrays[i];
        if (skip >= b->length) {
            skip -= b->length;
            continue;
        }
        int64_t from = skip, n = b->length - skip;
        skip = 0;
        if (n > left)
            n = left;
        left -= n;
        if (from == 0 && n == b->length) {
            st = basalt_arrow_batches_append(out, b, err);
            continue;
        }
        struct ArrowArray part;
        st = basalt_qrun_take_rows(&in->schema, b, from, n, &part, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(out, &part, err);
    }
    return st;
}

/* The result of a pipeline breaker, as batches. */
static basalt_status run_breaker(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                 struct basalt_arrow_batches *out, struct basalt_error *err)
{
    double t0 = basalt_qrun_now_ms();
    basalt_status st;
    switch (node->kind) {
    case QPLAN_SCAN_CSV:
    case QPLAN_SCAN_JSON:
    case QPLAN_SCAN_IPC:
        st = basalt_qrun_file_scan_all(node, out, err);
        break;
    case QPLAN_VALUES:
        *out = node->scan.values;
        basalt_arrow_batches_init(&node->scan.values);
        st = BASALT_OK;
        break;
    case QPLAN_AGGREGATE:
        st = basalt_qrun_aggregate(ctx, node, out, err);
        break;
    case QPLAN_SORT:
        st = basalt_qrun_sort(ctx, node, out, err);
        break;
    case QPLAN_WINDOW:
        st = basalt_qrun_window(ctx, node, out, err);
        break;
    case QPLAN_JOIN:
        st = basalt_qrun_join_outer(ctx, node, out, err);
        break;
    case QPLAN_LIMIT: {
        struct basalt_arrow_batches all;
        basalt_arrow_batches_init(&all);
        int64_t need = node->limit < 0 ? -1 : node->offset + node->limit;
        st = basalt_qrun_collect_in_order(ctx, node->child[0], NULL, need, &all, err);
        if (st == BASALT_OK)
            st = cut(&all, node->limit, node->offset, out, err);
        basalt_arrow_batches_reset(&all);
        break;
    }
    case QPLAN_UNION_ALL:
        st = basalt_arrow_schema_copy(&node->schema, &out->schema, err);
        for (int i = 0; i < node->n_children && st == BASALT_OK; i++) {
            struct basalt_arrow_batches part;
            basalt_arrow_batches_init(&part);
            st = basalt_qrun_collect_in_order(ctx, node->children[i], NULL, -1, &part, err);
            for (int64_t k = 0; k < part.n && st == BASALT_OK; k++)
                st = basalt_arrow_batches_append(out, &part.arrays[k], err);
            basalt_arrow_batches_reset(&part);
        }
        break;
    default:
        st = basalt_error_set(err, BASALT_INTERNAL, "not a pipeline breaker");
    }
    node->ms += basalt_qrun_now_ms() - t0;
    if (st == BASALT_OK && out->schema.release == NULL)
        st = basalt_arrow_schema_copy(&node->schema, &out->schema, err);
    for (int64_t i = 0; st == BASALT_OK && i < out->n; i++)
        atomic_fetch_add(&node->rows_out, out->arrays[i].length);
    return st;
}

basalt_status basalt_qrun_open(struct basalt_qctx *ctx, struct basalt_qplan *node,
                               struct qpipeline *pl, struct basalt_error *err)
{
    basalt_status st;
    struct qpipe_op *op;
    switch (node->kind) {
    case QPLAN_SCAN_PARQUET:
    case QPLAN_SCAN_ICEBERG:
        st = basalt_qsource_open(ctx, node, &pl->src, err);
        pl->schema = &node->schema;
        return st;
    case QPLAN_SERIES:
        st = basalt_qseries_open(node, &pl->src, err);
        pl->schema = &node->schema;
        return st;
    case QPLAN_FILTER:
    case QPLAN_PROJECT:
        st = basalt_qrun_open(ctx, node->child[0], pl, err);
        if (st == BASALT_OK)
            st = basalt_qpipeline_add(pl, &op, err);
        if (st != BASALT_OK)
            return st;
        op->kind = node->kind == QPLAN_FILTER ? QPIPE_FILTER : QPIPE_PROJECT;
        op->node = node;
        op->in_schema = &node->child[0]->schema;
        pl->schema = &node->schema;
        return BASALT_OK;
    case QPLAN_UNNEST:
        st = basalt_qrun_open(ctx, node->child[0], pl, err);
        if (st == BASALT_OK)
            st = basalt_qrun_unnest_op(node, pl, err);
        pl->schema = &node->schema;
        return st;
    case QPLAN_JOIN:
        if (node->join_type != BASALT_QPLAN_JOIN_RIGHT && node->join_type != BASALT_QPLAN_JOIN_FULL &&
            !node->build_left) {
            st = basalt_qrun_open(ctx, node->child[0], pl, err);
            if (st == BASALT_OK)
                st = basalt_qrun_join_probe(ctx, node, pl, err);
            pl->schema = &node->schema;
            return st;
        }
        break;
    default:
        break;
    }
    /* A breaker: its result is the source, or, for a cursor, what it will
     * stream into the source. */
    pl->src.kind = QSRC_BATCHES;
    if (pl->defer_breakers && basalt_qcursor_streams(ctx, node)) {
        pl->deferred = node;
        pl->schema = &node->schema;
        return BASALT_OK;
    }
    st = run_breaker(ctx, node, &pl->src.batches, err);
    pl->src.n_morsels = pl->src.batches.n;
    pl->schema = &node->schema;
    return st;
}

basalt_status basalt_qplan_execute(struct basalt_qctx *ctx, struct basalt_qplan *root,
                                   struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (ctx == NULL || root == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "execute: NULL argument");
    if (root->executed)
        return basalt_error_set(err, BASALT_INVALID_ARG, "execute: the plan has run already");
    root->executed = true;
    basalt_status st = basalt_qplan_optimize_plan(ctx, root, err);
    if (st != BASALT_OK)
        return st;
    double t0 = basalt_qrun_now_ms();
    st = basalt_qrun_collect_in_order(ctx, root, NULL, -1, out, err);
    if (root->ms == 0)
        root->ms = basalt_qrun_now_ms() - t0;
    return st;
}

basalt_status basalt_qplan_optimize_plan(struct basalt_qctx *ctx, struct basalt_qplan *root,
                                         struct basalt_error *err)
{
    if (ctx == NULL || root == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "optimize: NULL argument");
    if (root->optimized)
        return BASALT_OK;
    root->optimized = true;
    return basalt_qplan_optimize(ctx, root, err);
}
