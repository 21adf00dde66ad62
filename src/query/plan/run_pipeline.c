/* Running one pipeline: workers take morsels in ascending order from the
 * pool and push each batch through filter, projection and join probes into
 * the sink. Every operator keeps per-worker scratch (expression states,
 * selection vectors, probe tables) made before the run. */
#include <stdatomic.h>
#include <string.h>

#include "plan/run_internal.h"

int basalt_qrun_workers(const struct basalt_qctx *ctx)
{
    int w = basalt_pool_workers(ctx->o.pool);
    if (ctx->o.num_workers > 0 && ctx->o.num_workers < w)
        w = ctx->o.num_workers;
    return w;
}

void basalt_qpipeline_init(struct qpipeline *pl)
{
    memset(pl, 0, sizeof *pl);
    basalt_arrow_batches_init(&pl->src.batches);
}

static void op_free_locals(struct qpipe_op *op, int workers)
{
    for (int w = 0; op->locals != NULL && w < workers; w++) {
        if (op->kind == QPIPE_PROBE)
            op->probe_local_free(op->locals[w]);
        else
            basalt_query_state_free(op->locals[w]);
    }
    for (int w = 0; op->sel != NULL && w < workers; w++)
        basalt_free(op->sel[w]);
    basalt_free(op->locals);
    basalt_free(op->sel);
    basalt_free(op->sel_cap);
    op->locals = NULL;
    op->sel = NULL;
    op->sel_cap = NULL;
}

void basalt_qpipeline_reset(struct qpipeline *pl)
{
    for (int i = 0; i < pl->n_ops; i++) {
        struct qpipe_op *op = &pl->ops[i];
        op_free_locals(op, op->n_locals);
        if (op->join != NULL)
            op->free_join(op->join);
        basalt_query_program_free(op->prog);
        basalt_free(op->pass);
        basalt_free(op->slot);
    }
    basalt_free(pl->ops);
    basalt_qsource_reset(&pl->src);
    memset(pl, 0, sizeof *pl);
    basalt_arrow_batches_init(&pl->src.batches);
}

basalt_status basalt_qpipeline_add(struct qpipeline *pl, struct qpipe_op **out,
                                   struct basalt_error *err)
{
    if (pl->n_ops == pl->cap_ops) {
        int cap = pl->cap_ops ? pl->cap_ops * 2 : 4;
        struct qpipe_op *ops = basalt_realloc(pl->ops, (size_t)cap * sizeof *ops);
        if (ops == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        pl->ops = ops;
        pl->cap_ops = cap;
    }
    *out = &pl->ops[pl->n_ops++];
    memset(*out, 0, sizeof **out);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ preparing */

static basalt_status compile(struct basalt_qctx *ctx, const struct ArrowSchema *input,
                             struct basalt_qexpr *const *exprs, int n,
                             struct basalt_query_program **out, struct basalt_error *err)
{
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qctx_builder_over(ctx, input, &b, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_compile_options o;
    basalt_query_compile_options_init(&o);
    return basalt_query_compile(b, exprs, n, &o, out, err);
}

static basalt_status prepare_op(struct basalt_qctx *ctx, struct qpipe_op *op, int workers,
                                struct basalt_error *err)
{
    struct basalt_qplan *node = op->node;
    basalt_status st = BASALT_OK;
    if (op->kind == QPIPE_FILTER) {
        st = compile(ctx, op->in_schema, &node->pred, 1, &op->prog, err);
    } else if (op->kind == QPIPE_PROJECT) {
        int n = node->n_exprs;
        op->pass = basalt_calloc((size_t)n + 1, sizeof *op->pass);
        op->slot = basalt_calloc((size_t)n + 1, sizeof *op->slot);
        struct basalt_qexpr **computed = basalt_calloc((size_t)n + 1, sizeof *computed);
        bool *taken = basalt_calloc((size_t)op->in_schema->n_children + 1, sizeof *taken);
        if (op->pass == NULL || op->slot == NULL || computed == NULL || taken == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        int k = 0;
        for (int i = 0; st == BASALT_OK && i < n; i++) {
            const struct basalt_qexpr *e = node->exprs[i];
            /* A column used once moves from the input batch to the output:
             * no copy. */
            if (e->kind == QN_COLUMN && !taken[e->column]) {
                taken[e->column] = true;
                op->pass[i] = e->column;
                op->slot[i] = -1;
            } else {
                op->pass[i] = -1;
                op->slot[i] = k;
                computed[k++] = node->exprs[i];
            }
        }
        if (st == BASALT_OK && k > 0)
            st = compile(ctx, op->in_schema, computed, k, &op->prog, err);
        basalt_free(computed);
        basalt_free(taken);
    }
    if (st != BASALT_OK)
        return st;
    op->locals = basalt_calloc((size_t)workers, sizeof *op->locals);
    op->sel = basalt_calloc((size_t)workers, sizeof *op->sel);
    op->sel_cap = basalt_calloc((size_t)workers, sizeof *op->sel_cap);
    if (op->locals == NULL || op->sel == NULL || op->sel_cap == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    op->n_locals = workers;
    for (int w = 0; w < workers && st == BASALT_OK; w++) {
        if (op->kind == QPIPE_PROBE)
            st = op->probe_local_new(op->join, &op->locals[w], err);
        else if (op->prog != NULL)
            st = basalt_query_state_new(op->prog, (struct basalt_query_state **)&op->locals[w], err);
    }
    return st;
}

/* ------------------------------------------------------------------ running */

struct run {
    int64_t memory_limit; /* bytes; 0: none */
    int64_t base;         /* the first morsel of the range run */
    struct qpipeline *pl;
    struct qsink *sink;
    int64_t *seq; /* per worker: batches sunk in its current morsel */
    atomic_bool failed;
    pthread_mutex_t lock;
    int64_t fail_morsel;
    basalt_status status;
    struct basalt_error err;
};

static basalt_status push(struct run *r, int k, int worker, int64_t m, struct ArrowArray *batch,
                          struct basalt_error *err);

/* The batch with only the columns the filter passes on (moved). */
static basalt_status keep_columns(const struct basalt_qplan *node, struct ArrowArray *batch,
                                  struct ArrowArray *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(out, 1, node->n_filter_keep, err);
    if (st != BASALT_OK)
        return st;
    out->length = batch->length;
    for (int i = 0; i < node->n_filter_keep; i++)
        basalt_arrow_array_move(batch->children[node->filter_keep[i]], out->children[i]);
    basalt_arrow_array_release(batch);
    return BASALT_OK;
}

/* Pushes the selected rows (sel[0..selected) of n) of the columns the
 * filter passes on. */
static basalt_status push_selected(struct run *r, struct qpipe_op *op, int k, int worker,
                                   int64_t m, struct ArrowArray *batch, const int64_t *sel,
                                   int64_t selected, struct basalt_error *err)
{
    const struct basalt_qplan *node = op->node;
    const struct ArrowSchema *schema = op->in_schema;
    struct ArrowArray kept, out;
    basalt_status st = BASALT_OK;
    if (node->filter_keep != NULL) {
        st = keep_columns(node, batch, &kept, err);
        if (st != BASALT_OK)
            return st;
        batch = &kept;
        schema = &node->schema;
    }
    if (selected == batch->length)
        return push(r, k + 1, worker, m, batch, err);
    if (node->filter_keep != NULL && node->n_filter_keep == 0) {
        batch->length = selected; /* no column: the count is all there is */
        return push(r, k + 1, worker, m, batch, err);
    }
    st = basalt_arrow_take(schema, batch, sel, selected, &out, err);
    basalt_arrow_array_release(batch);
    if (st != BASALT_OK)
        return st;
    return push(r, k + 1, worker, m, &out, err);
}

static basalt_status run_filter(struct run *r, struct qpipe_op *op, int k, int worker, int64_t m,
                                struct ArrowArray *batch, struct basalt_error *err)
{
    int64_t n = batch->length;
    const struct qsource *src = &r->pl->src;
    if (k == 0 && src->matches_all != NULL && src->matches_all[m] &&
        op->node->child[0] == src->node) {
        atomic_fetch_add(&op->node->rows_out, n);
        atomic_fetch_add(&op->node->batches_unfiltered, 1);
        return push_selected(r, op, k, worker, m, batch, NULL, n, err);
    }
    if (op->sel_cap[worker] < n) {
        basalt_free(op->sel[worker]);
        op->sel[worker] = basalt_malloc((size_t)n * sizeof(int64_t));
        op->sel_cap[worker] = op->sel[worker] ? n : 0;
        if (op->sel[worker] == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int64_t selected = 0;
    basalt_status st = basalt_query_select(op->prog, op->locals[worker], batch, op->sel[worker],
                                           &selected, err);
    if (st != BASALT_OK)
        return st;
    atomic_fetch_add(&op->node->rows_out, selected);
    if (selected == 0)
        return BASALT_OK;
    return push_selected(r, op, k, worker, m, batch, op->sel[worker], selected, err);
}

static basalt_status run_project(struct run *r, struct qpipe_op *op, int k, int worker, int64_t m,
                                 struct ArrowArray *batch, struct basalt_error *err)
{
    int n = op->node->n_exprs;
    int n_prog = op->prog ? basalt_query_program_outputs(op->prog) : 0;
    struct ArrowArray computed[64], *vals = computed;
    if (n_prog > 64) {
        vals = basalt_calloc((size_t)n_prog, sizeof *vals);
        if (vals == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    basalt_status st = BASALT_OK;
    if (n_prog > 0)
        st = basalt_query_eval(op->prog, op->locals[worker], batch, vals, err);
    struct ArrowArray out;
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(&out, 1, n, err);
    if (st == BASALT_OK) {
        out.length = batch->length;
        for (int i = 0; i < n; i++) {
            if (op->pass[i] >= 0)
                basalt_arrow_array_move(batch->children[op->pass[i]], out.children[i]);
            else
                basalt_arrow_array_move(&vals[op->slot[i]], out.children[i]);
        }
    } else if (n_prog > 0 && st != BASALT_OK) {
        /* eval leaves nothing in vals on failure */
    }
    if (vals != computed)
        basalt_free(vals);
    if (st != BASALT_OK)
        return st;
    atomic_fetch_add(&op->node->rows_out, batch->length);
    basalt_arrow_array_release(batch);
    return push(r, k + 1, worker, m, &out, err);
}

static basalt_status probe_part(struct run *r, struct qpipe_op *op, int k, int worker, int64_t m,
                                const struct ArrowArray *batch, struct basalt_error *err)
{
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    basalt_status st = op->probe(op->locals[worker], batch, &out, err);
    for (int64_t i = 0; i < out.n && st == BASALT_OK; i++) {
        atomic_fetch_add(&op->node->rows_out, out.arrays[i].length);
        st = push(r, k + 1, worker, m, &out.arrays[i], err);
    }
    basalt_arrow_batches_reset(&out);
    return st;
}

basalt_status basalt_qrun_probe_slices(const struct ArrowSchema *schema,
                                       const struct ArrowArray *batch, double fanout,
                                       basalt_status (*fn)(void *ctx,
                                                           const struct ArrowArray *part,
                                                           struct basalt_error *err),
                                       void *ctx, struct basalt_error *err)
{
    int64_t step = batch->length;
    if (fanout > 1) {
        step = (int64_t)(65536 / fanout);
        if (step < 1)
            step = 1;
    }
    if (step >= batch->length)
        return fn(ctx, batch, err);
    int64_t *idx = basalt_malloc((size_t)step * sizeof *idx);
    basalt_status st = idx ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t from = 0; st == BASALT_OK && from < batch->length; from += step) {
        int64_t n = batch->length - from < step ? batch->length - from : step;
        for (int64_t i = 0; i < n; i++)
            idx[i] = from + i;
        struct ArrowArray part;
        st = basalt_arrow_take(schema, batch, idx, n, &part, err);
        if (st == BASALT_OK) {
            st = fn(ctx, &part, err);
            basalt_arrow_array_release(&part);
        }
    }
    basalt_free(idx);
    return st;
}

struct probe_at {
    struct run *r;
    struct qpipe_op *op;
    int k, worker;
    int64_t m;
};

static basalt_status probe_slice(void *ctx, const struct ArrowArray *part,
                                 struct basalt_error *err)
{
    struct probe_at *a = ctx;
    return probe_part(a->r, a->op, a->k, a->worker, a->m, part, err);
}

/* Probes with `batch` (released), in slices where a probe row meets many
 * build rows: the limit is checked between them. */
static basalt_status run_probe(struct run *r, struct qpipe_op *op, int k, int worker, int64_t m,
                               struct ArrowArray *batch, struct basalt_error *err)
{
    struct probe_at a = {r, op, k, worker, m};
    basalt_status st =
        basalt_qrun_probe_slices(op->in_schema, batch, op->fanout, probe_slice, &a, err);
    basalt_arrow_array_release(batch);
    return st;
}

static basalt_status push(struct run *r, int k, int worker, int64_t m, struct ArrowArray *batch,
                          struct basalt_error *err)
{
    basalt_status st;
    if (r->memory_limit > 0 && !r->sink->spills && basalt_alloc_bytes() > r->memory_limit) {
        basalt_arrow_array_release(batch);
        bool probes = false;
        for (int i = 0; i < r->pl->n_ops; i++) /* (an UNNEST is a probe without a table) */
            probes |= r->pl->ops[i].kind == QPIPE_PROBE && r->pl->ops[i].node->kind == QPLAN_JOIN;
        if (probes) /* the hash tables are held while their probes run */
            return basalt_error_set(err, BASALT_LIMIT,
                                    "HASH JOIN: memory limit of %.1f MiB exceeded (%.1f MiB in "
                                    "use) while it probes its build side held in memory (a "
                                    "join spills a build side that passes a third of the limit "
                                    "as it is read); raise --memory-limit",
                                    (double)r->memory_limit / 1048576.0,
                                    (double)basalt_alloc_bytes() / 1048576.0);
        if (r->sink->what != NULL)
            return basalt_error_set(err, BASALT_LIMIT,
                                    "%s: memory limit of %.1f MiB exceeded (%.1f MiB in use) by "
                                    "its input, which it does not spill; raise --memory-limit",
                                    r->sink->what, (double)r->memory_limit / 1048576.0,
                                    (double)basalt_alloc_bytes() / 1048576.0);
        return basalt_error_set(err, BASALT_LIMIT,
                                "memory limit of %.1f MiB exceeded (%.1f MiB in use); raise "
                                "--memory-limit",
                                (double)r->memory_limit / 1048576.0,
                                (double)basalt_alloc_bytes() / 1048576.0);
    }
    if (k == r->pl->n_ops) {
        int64_t seq = (m << 24) | r->seq[worker]++;
        return r->sink->consume(r->sink, worker, m, seq, batch, err);
    }
    if (batch->length == 0) {
        basalt_arrow_array_release(batch);
        return BASALT_OK;
    }
    struct qpipe_op *op = &r->pl->ops[k];
    switch (op->kind) {
    case QPIPE_FILTER:
        st = run_filter(r, op, k, worker, m, batch, err);
        break;
    case QPIPE_PROJECT:
        st = run_project(r, op, k, worker, m, batch, err);
        break;
    default:
        st = run_probe(r, op, k, worker, m, batch, err);
        break;
    }
    if (batch->release != NULL)
        basalt_arrow_array_release(batch);
    return st;
}

static basalt_status emit(void *ctx, int worker, int64_t m, struct ArrowArray *batch,
                          struct basalt_error *err)
{
    struct run *r = ctx;
    if (atomic_load(&r->failed)) {
        basalt_arrow_array_release(batch);
        return BASALT_OK;
    }
    return push(r, 0, worker, m, batch, err);
}

/* A batch of the columns the first op (a filter) passes on, from a file
 * that matches it everywhere: counted as passed and given to the op after. */
static basalt_status emit_past_filter(void *ctx, int worker, int64_t m, struct ArrowArray *batch,
                                      struct basalt_error *err)
{
    struct run *r = ctx;
    if (atomic_load(&r->failed)) {
        basalt_arrow_array_release(batch);
        return BASALT_OK;
    }
    struct basalt_qplan *filter = r->pl->ops[0].node;
    atomic_fetch_add(&filter->rows_out, batch->length);
    atomic_fetch_add(&filter->batches_unfiltered, 1);
    return push(r, 1, worker, m, batch, err);
}

/* Whether the source's direct morsels may skip the first op: it is the
 * filter right above the scan, dropping the columns the source leaves out. */
static bool skips_filter(const struct qpipeline *pl)
{
    return pl->src.direct && pl->n_ops > 0 && pl->ops[0].kind == QPIPE_FILTER &&
           pl->ops[0].node->child[0] == pl->src.node && pl->ops[0].node->filter_keep != NULL;
}

/* Whether the rows already collected by the finished prefix of morsels are
 * all a LIMIT needs: later morsels are skipped. */
static bool collect_enough(struct qsink *s)
{
    if (s->per_morsel == NULL || s->need < 0)
        return false;
    pthread_mutex_lock(&s->lock);
    while (s->frontier < s->n_morsels && s->morsel_done[s->frontier])
        s->frontier_rows += s->morsel_rows[s->frontier++];
    bool enough = s->frontier_rows >= s->need;
    pthread_mutex_unlock(&s->lock);
    return enough;
}

static void collect_morsel_done(struct qsink *s, int64_t m)
{
    if (s->per_morsel == NULL || s->need < 0)
        return;
    pthread_mutex_lock(&s->lock);
    s->morsel_done[m - s->first] = true;
    pthread_mutex_unlock(&s->lock);
}

static void run_morsels(void *vctx, int64_t begin, int64_t end, int worker)
{
    struct run *r = vctx;
    for (int64_t m = r->base + begin; m < r->base + end; m++) {
        if (atomic_load(&r->failed))
            return;
        if (collect_enough(r->sink)) {
            collect_morsel_done(r->sink, m);
            continue;
        }
        r->seq[worker] = 0;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_qsource_morsel(&r->pl->src, m, worker, emit,
                                                 skips_filter(r->pl) ? emit_past_filter : NULL, r,
                                                 &err);
        collect_morsel_done(r->sink, m);
        if (st != BASALT_OK) {
            /* Report the failure of the lowest morsel, whatever the timing. */
            pthread_mutex_lock(&r->lock);
            if (r->status == BASALT_OK || m < r->fail_morsel) {
                r->status = st;
                r->err = err;
                r->fail_morsel = m;
            }
            pthread_mutex_unlock(&r->lock);
            atomic_store(&r->failed, true);
        }
    }
}

basalt_status basalt_qpipeline_run_range(struct basalt_qctx *ctx, struct qpipeline *pl,
                                         struct qsink *sink, int64_t first, int64_t end,
                                         struct basalt_error *err)
{
    int workers = basalt_qrun_workers(ctx);
    basalt_status st = BASALT_OK;
    for (int i = 0; !pl->prepared && i < pl->n_ops && st == BASALT_OK; i++)
        st = prepare_op(ctx, &pl->ops[i], workers, err);
    if (st != BASALT_OK)
        return st;
    pl->prepared = true;
    struct run r;
    memset(&r, 0, sizeof r);
    r.pl = pl;
    r.sink = sink;
    r.base = first;
    r.memory_limit = ctx->o.memory_limit;
    r.seq = basalt_calloc((size_t)workers, sizeof *r.seq);
    if (r.seq == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    atomic_init(&r.failed, false);
    pthread_mutex_init(&r.lock, NULL);
    basalt_error_init(&r.err);
    basalt_pool_parallel_for(ctx->o.pool, ctx->o.num_workers, end - first, 1, run_morsels, &r);
    pthread_mutex_destroy(&r.lock);
    basalt_free(r.seq);
    if (r.status != BASALT_OK) {
        if (err != NULL)
            *err = r.err;
        return r.status;
    }
    return BASALT_OK;
}

basalt_status basalt_qpipeline_run(struct basalt_qctx *ctx, struct qpipeline *pl,
                                   struct qsink *sink, struct basalt_error *err)
{
    if (pl->deferred == NULL)
        return basalt_qpipeline_run_range(ctx, pl, sink, 0, pl->src.n_morsels, err);
    /* A streamed breaker at the bottom: its batches a window at a time,
     * numbered on from window to window. */
    struct basalt_qcursor *feed = NULL;
    basalt_status st = basalt_qcursor_new_at(ctx, pl->deferred, &feed, err);
    int64_t first = 0, window = 2 * (int64_t)basalt_qrun_workers(ctx);
    while (st == BASALT_OK) {
        st = basalt_qcursor_fill(feed, &pl->src, window, err);
        int64_t n = pl->src.n_morsels;
        if (st != BASALT_OK || n == 0)
            break;
        pl->src.first = first;
        st = basalt_qpipeline_run_range(ctx, pl, sink, first, first + n, err);
        first += n;
    }
    basalt_qcursor_free(feed);
    return st;
}

/* ------------------------------------------------------------------ collect */

static basalt_status collect_consume(struct qsink *s, int worker, int64_t m, int64_t seq,
                                     struct ArrowArray *batch, struct basalt_error *err)
{
    (void)worker;
    (void)seq;
    s->morsel_rows[m - s->first] += batch->length;
    return basalt_arrow_batches_append(&s->per_morsel[m - s->first], batch, err);
}

basalt_status basalt_qsink_collect_init(struct qsink *sink, int64_t n_morsels, int64_t need,
                                        struct basalt_error *err)
{
    memset(sink, 0, sizeof *sink);
    sink->consume = collect_consume;
    sink->n_morsels = n_morsels;
    sink->need = need;
    sink->per_morsel = basalt_calloc((size_t)n_morsels + 1, sizeof *sink->per_morsel);
    sink->morsel_rows = basalt_calloc((size_t)n_morsels + 1, sizeof *sink->morsel_rows);
    sink->morsel_done = basalt_calloc((size_t)n_morsels + 1, sizeof *sink->morsel_done);
    if (sink->per_morsel == NULL || sink->morsel_rows == NULL || sink->morsel_done == NULL) {
        basalt_qsink_collect_reset(sink);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < n_morsels; i++)
        basalt_arrow_batches_init(&sink->per_morsel[i]);
    pthread_mutex_init(&sink->lock, NULL);
    sink->impl = sink; /* marks the mutex initialised */
    return BASALT_OK;
}

void basalt_qsink_collect_reset(struct qsink *sink)
{
    for (int64_t i = 0; sink->per_morsel != NULL && i < sink->n_morsels; i++)
        basalt_arrow_batches_reset(&sink->per_morsel[i]);
    basalt_free(sink->per_morsel);
    basalt_free(sink->morsel_rows);
    basalt_free(sink->morsel_done);
    if (sink->impl == sink)
        pthread_mutex_destroy(&sink->lock);
    memset(sink, 0, sizeof *sink);
}

basalt_status basalt_qsink_collect_finish(struct qsink *sink, const struct ArrowSchema *schema,
                                          struct basalt_arrow_batches *out,
                                          struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (out->schema.release == NULL)
        st = basalt_arrow_schema_copy(schema, &out->schema, err);
    for (int64_t m = 0; m < sink->n_morsels && st == BASALT_OK; m++) {
        struct basalt_arrow_batches *b = &sink->per_morsel[m];
        for (int64_t i = 0; i < b->n && st == BASALT_OK; i++)
            st = basalt_arrow_batches_append(out, &b->arrays[i], err);
        basalt_arrow_batches_reset(b);
    }
    return st;
}
