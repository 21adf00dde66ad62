/* The breakers that need their input in order: collecting a pipeline's rows
 * in morsel order, and sort (its input handed over with its position, so
 * ties keep input order whatever the worker count; under a memory limit
 * sorted runs spill to disk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/run_internal.h"
#include "sort/sort.h"

/* ------------------------------------------------------------------ collecting in order */

basalt_status basalt_qrun_collect_in_order(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                           const char *what, int64_t need,
                                           struct basalt_arrow_batches *out,
                                           struct basalt_error *err)
{
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    struct qsink sink;
    memset(&sink, 0, sizeof sink);
    basalt_status st = basalt_qrun_open(ctx, node, &pl, err);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_init(&sink, pl.src.n_morsels, need, err);
    sink.what = what;
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &sink, err);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_finish(&sink, pl.schema, out, err);
    basalt_qsink_collect_reset(&sink);
    basalt_qpipeline_reset(&pl);
    return st;
}

/* ------------------------------------------------------------------ sort */

/* A full sort under a memory limit: each worker holds its batches and
 * sorts them into a run on disk when memory runs short (sort.h, spilling). */
struct sort_sink {
    struct qsink base; /* first: the pipeline sees a qsink */
    struct basalt_qsort_ext *x;
    int64_t limit;
    int workers;
    atomic_int spilling; /* workers writing a run now */
    const char *what;    /* the operator sorting, for the limit's message */
};

/* A worker writes what it holds as a run once sorting it would pass its
 * share of half the limit (basalt_qsort_ext_held_cost: the batches, their
 * sorted copy and the sort's records), or anything it holds when the memory
 * in use passes the limit. */
static basalt_status sort_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                  struct ArrowArray *batch, struct basalt_error *err)
{
    (void)m;
    struct sort_sink *s = (struct sort_sink *)sink;
    basalt_status st = basalt_qsort_ext_consume(s->x, worker, seq, batch, err);
    if (st != BASALT_OK)
        return st;
    int64_t used = basalt_alloc_bytes();
    if (basalt_qsort_ext_held_cost(s->x, worker) > s->limit / (2 * s->workers) ||
        (used > s->limit && basalt_qsort_ext_held(s->x, worker) > 0)) {
        atomic_fetch_add(&s->spilling, 1);
        st = basalt_qsort_ext_spill(s->x, worker, err);
        atomic_fetch_sub(&s->spilling, 1);
        if (st != BASALT_OK)
            return st;
        used = basalt_alloc_bytes();
    }
    if (used > s->limit && atomic_load(&s->spilling) == 0)
        return basalt_error_set(err, BASALT_LIMIT,
                                "%s: memory limit of %.1f MiB exceeded (%.1f MiB in use) "
                                "with its input spilled; raise --memory-limit",
                                s->what, (double)s->limit / 1048576.0, (double)used / 1048576.0);
    return BASALT_OK;
}

/* The node's keys for the sort module (freed by the caller), or NULL. */
static struct basalt_qsort_key *sort_keys(const struct basalt_qplan *node)
{
    struct basalt_qsort_key *keys = basalt_calloc((size_t)node->n_sort_keys + 1, sizeof *keys);
    for (int i = 0; keys != NULL && i < node->n_sort_keys; i++) {
        keys[i].column = node->sort_keys[i].column;
        keys[i].descending = node->sort_keys[i].descending;
        keys[i].nulls_first = node->sort_keys[i].nulls_first;
    }
    return keys;
}

basalt_status basalt_qrun_sort_spilling(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                        struct basalt_qsort_ext **out, struct basalt_error *err)
{
    *out = NULL;
    struct basalt_qsort_key *keys = sort_keys(node);
    if (keys == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = basalt_qrun_sort_input(ctx, node, keys, node->n_sort_keys, out, err);
    basalt_free(keys);
    return st;
}

basalt_status basalt_qrun_sort_input(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     const struct basalt_qsort_key *keys, int n_keys,
                                     struct basalt_qsort_ext **out, struct basalt_error *err)
{
    *out = NULL;
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    struct sort_sink s;
    memset(&s, 0, sizeof s);
    s.base.consume = sort_consume;
    s.base.spills = true;
    s.limit = ctx->o.memory_limit;
    s.workers = basalt_qrun_workers(ctx);
    s.what = node->kind == QPLAN_WINDOW ? "WINDOW" : "ORDER BY";
    atomic_init(&s.spilling, 0);
    double t0 = basalt_qrun_now_ms();
    pl.defer_breakers = true; /* the sort keeps order by morsel number */
    basalt_status st = basalt_qrun_open(ctx, node->child[0], &pl, err);
    if (st == BASALT_OK)
        st = basalt_qsort_ext_new(pl.schema, keys, n_keys, s.workers, ctx->o.spill_dir, &s.x,
                                  err);
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &s.base, err);
    basalt_qpipeline_reset(&pl);
    if (st == BASALT_OK)
        st = basalt_qsort_ext_start(s.x, ctx->o.pool, ctx->o.memory_limit, err);
    if (s.x != NULL) {
        struct basalt_qsort_ext_stats xs;
        basalt_qsort_ext_stats(s.x, &xs);
        node->spill_runs += xs.runs;
        node->spill_merge_passes += xs.merge_passes;
        node->spill_rows += xs.rows_spilled;
        node->spill_bytes += xs.bytes_spilled;
    }
    node->ms += basalt_qrun_now_ms() - t0;
    *out = s.x;
    return st;
}

/* ORDER BY ... LIMIT over a pipeline with a known number of morsels: each
 * worker hands the batches it makes to a top-k local of its own, so the
 * pruning runs where the batch was just decoded, on every worker. The
 * pipeline numbers a batch (morsel << 24) | index; the sort takes 31 bits,
 * so the morsel goes in the top bits the morsel count needs and the index in
 * the rest, which keeps input order for ties. */
struct topk_sink {
    struct qsink base; /* first: the pipeline sees a qsink */
    struct basalt_qsort_local **locals;
    int index_bits;
    int64_t memory_limit; /* 0: none */
};

static basalt_status topk_sink_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                       struct ArrowArray *batch, struct basalt_error *err)
{
    struct topk_sink *t = (struct topk_sink *)sink;
    int64_t index = seq & ((INT64_C(1) << 24) - 1);
    if (index >> t->index_bits) {
        basalt_arrow_array_release(batch);
        return basalt_error_set(err, BASALT_LIMIT,
                                "ORDER BY ... LIMIT: more than %lld batches from one morsel",
                                (long long)(INT64_C(1) << t->index_bits));
    }
    basalt_status st =
        basalt_qsort_consume(t->locals[worker], batch, (m << t->index_bits) | index, err);
    /* Each local holds the batches its candidates are in until it prunes;
     * under a limit, with every worker holding some, it prunes once a
     * quarter of the limit is in use. */
    if (st == BASALT_OK && t->memory_limit > 0 && basalt_alloc_bytes() > t->memory_limit / 4)
        st = basalt_qsort_local_prune(t->locals[worker], err);
    return st;
}

/* Bits that number n morsels (at least 1). */
static int morsel_bits(int64_t n)
{
    int bits = 1;
    while (bits < 62 && (INT64_C(1) << bits) < n)
        bits++;
    return bits;
}

/* The node the pipeline under `node` starts from: through the operators a
 * pipeline runs (basalt_qrun_open). */
static const struct basalt_qplan *pipeline_bottom(const struct basalt_qplan *node)
{
    for (;;) {
        if (node->kind == QPLAN_FILTER || node->kind == QPLAN_PROJECT)
            node = node->child[0];
        else if (node->kind == QPLAN_JOIN && node->join_type != BASALT_QPLAN_JOIN_RIGHT &&
                 node->join_type != BASALT_QPLAN_JOIN_FULL && !node->build_left)
            node = node->child[0];
        else
            return node;
    }
}

static basalt_status top_k_parallel(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                    struct basalt_qsort *sort, struct basalt_arrow_batches *out,
                                    struct basalt_error *err)
{
    int workers = basalt_qrun_workers(ctx);
    struct topk_sink t;
    memset(&t, 0, sizeof t);
    t.base.consume = topk_sink_consume;
    t.base.what = "ORDER BY ... LIMIT";
    t.memory_limit = ctx->o.memory_limit;
    t.locals = basalt_calloc((size_t)workers, sizeof *t.locals);
    basalt_status st = t.locals != NULL ? BASALT_OK
                                        : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int w = 0; st == BASALT_OK && w < workers; w++)
        st = basalt_qsort_local_new(sort, &t.locals[w], err);
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    if (st == BASALT_OK)
        st = basalt_qrun_open(ctx, node->child[0], &pl, err);
    if (st == BASALT_OK) {
        int bits = morsel_bits(pl.src.n_morsels);
        t.index_bits = bits < 31 ? 31 - bits : 0;
        if (t.index_bits == 0)
            st = basalt_error_set(err, BASALT_LIMIT, "ORDER BY ... LIMIT: %lld morsels",
                                  (long long)pl.src.n_morsels);
    }
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &t.base, err);
    basalt_qpipeline_reset(&pl);
    if (st == BASALT_OK)
        st = basalt_qsort_finish(sort, t.locals, workers, ctx->o.pool, out, err);
    node->topk_workers = workers;
    for (int w = 0; t.locals != NULL && w < workers; w++)
        basalt_qsort_local_free(t.locals[w]);
    basalt_free(t.locals);
    return st;
}

/* The top-k fed on this thread by a cursor over the input, a window of
 * batches at a time, each numbered in input order. */
static basalt_status top_k_cursor(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                  struct basalt_qsort *sort, struct basalt_arrow_batches *out,
                                  struct basalt_error *err)
{
    struct basalt_qcursor *in = NULL;
    struct basalt_qsort_local *local = NULL;
    basalt_status st = basalt_qcursor_new_at(ctx, node->child[0], &in, err);
    if (st == BASALT_OK)
        st = basalt_qsort_local_new(sort, &local, err);
    for (int64_t seq = 0; st == BASALT_OK; seq++) {
        struct ArrowArray b;
        st = basalt_qcursor_next(in, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        if (seq >= (INT64_C(1) << 31) - 1)
            st = basalt_error_set(err, BASALT_LIMIT, "ORDER BY ... LIMIT: more than 2^31 batches");
        if (st == BASALT_OK)
            st = basalt_qsort_consume(local, &b, seq, err);
        else
            basalt_arrow_array_release(&b);
    }
    basalt_qcursor_free(in);
    node->topk_workers = 1;
    if (st == BASALT_OK)
        st = basalt_qsort_finish(sort, &local, 1, ctx->o.pool, out, err);
    basalt_qsort_local_free(local);
    return st;
}

/* ORDER BY ... LIMIT: each batch handed to the top-k as it comes (numbered
 * in input order, so ties keep input order), which keeps only the rows that
 * can still be among the first offset + limit: the input is never held
 * whole. Over a pipeline of known morsels the workers do it in parallel;
 * over a breaker a cursor streams (a spilling sort or aggregation, a LIMIT,
 * a text scan) the input is read through that cursor, a window of batches
 * at a time in input order, on this thread. */
static basalt_status top_k(struct basalt_qctx *ctx, struct basalt_qplan *node,
                           struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct basalt_qsort_key *keys = sort_keys(node);
    if (keys == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_qsort *sort = NULL;
    basalt_status st = basalt_qsort_new(&node->child[0]->schema, keys, node->n_sort_keys,
                                        node->limit, node->offset, &sort, err);
    if (st == BASALT_OK)
        st = basalt_qcursor_streams(ctx, pipeline_bottom(node->child[0]))
                 ? top_k_cursor(ctx, node, sort, out, err)
                 : top_k_parallel(ctx, node, sort, out, err);
    basalt_qsort_free(sort);
    basalt_free(keys);
    return st;
}

basalt_status basalt_qrun_sort(struct basalt_qctx *ctx, struct basalt_qplan *node,
                               struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (ctx->o.memory_limit > 0 && node->limit < 0) {
        struct basalt_qsort_ext *x = NULL;
        basalt_status st = basalt_qrun_sort_spilling(ctx, node, &x, err);
        bool spilled = node->spill_runs > 0;
        if (st == BASALT_OK)
            st = basalt_arrow_schema_copy(basalt_qsort_ext_schema(x), &out->schema, err);
        while (st == BASALT_OK) {
            struct ArrowArray b;
            st = basalt_qsort_ext_next(x, &b, err);
            if (st != BASALT_OK || b.release == NULL)
                break;
            st = basalt_arrow_batches_append(out, &b, err);
            if (st == BASALT_OK && spilled && basalt_alloc_bytes() > ctx->o.memory_limit)
                st = basalt_error_set(err, BASALT_LIMIT,
                                      "ORDER BY: memory limit of %.1f MiB exceeded by the sorted "
                                      "result (%.1f MiB in use); the runs were spilled, but an "
                                      "operator above the sort holds its result",
                                      (double)ctx->o.memory_limit / 1048576.0,
                                      (double)basalt_alloc_bytes() / 1048576.0);
        }
        basalt_qsort_ext_free(x);
        return st;
    }
    if (node->limit >= 0)
        return top_k(ctx, node, out, err);
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    basalt_status st = basalt_qrun_collect_in_order(ctx, node->child[0], "ORDER BY", -1, &in, err);
    struct basalt_qsort_key *keys = sort_keys(node);
    if (st == BASALT_OK && keys == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_qsort *sort = NULL;
    struct basalt_qsort_local *local = NULL;
    if (st == BASALT_OK)
        st = basalt_qsort_new(&in.schema, keys, node->n_sort_keys, node->limit, node->offset,
                              &sort, err);
    if (st == BASALT_OK)
        st = basalt_qsort_local_new(sort, &local, err);
    for (int64_t i = 0; i < in.n && st == BASALT_OK; i++)
        st = basalt_qsort_consume(local, &in.arrays[i], i, err);
    if (st == BASALT_OK)
        st = basalt_qsort_finish(sort, &local, 1, ctx->o.pool, out, err);
    basalt_qsort_local_free(local);
    basalt_qsort_free(sort);
    basalt_free(keys);
    basalt_arrow_batches_reset(&in);
    return st;
}
