/* The operators that end a pipeline: aggregation (each worker aggregates its
 * morsels into its own table; agg/agg.h merges them), sort and the build
 * side of joins (their input is collected in morsel order and handed over
 * with its position, so ties and matches keep input order whatever the
 * worker count), and the probe of a join added to the pipeline above. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "join/join.h"
#include "plan/run_internal.h"
#include "sort/sort.h"
#include "spill/spill.h"

/* ------------------------------------------------------------------ aggregation */

/* GROUP BY under a memory limit: once memory in use passes a third of the limit
 * the workers' tables are frozen and the rest of the input goes to
 * BASALT_QAGG_SPILL_PARTS spill files by the partition of its key (agg.h,
 * spilling); each file holds the keys and the arguments, as consume takes
 * them. */
struct agg_spill {
    struct ArrowSchema schema; /* of the spilled rows */
    int *input;                /* per spilled column: its index among the sink's inputs */
    int *pos;                  /* per input: its spilled column, or -1 */
    int n_cols;
    const char *dir;
    struct basalt_qspill_file *files[BASALT_QAGG_SPILL_PARTS];
    pthread_mutex_t locks[BASALT_QAGG_SPILL_PARTS];
    bool locks_made;
    atomic_llong rows;
};

struct agg_sink {
    struct qsink base; /* first: the pipeline sees a qsink */
    struct basalt_qplan *node;
    struct basalt_query_program *prog; /* the keys and arguments that are not plain columns */
    int *col;    /* per key, per call, then per call's second argument: input column, or -1 */
    int *slot;   /* the same: program output, or -1 */
    int n_inputs, n_prog;
    struct basalt_query_state **states;
    struct basalt_qagg_local **locals;
    struct basalt_qagg *agg;
    int64_t limit;       /* > 0: the sink spills */
    atomic_bool frozen;  /* the tables take no more rows: the input goes to the files */
    struct agg_spill sp;
};

/* Rows consumed or spilled at a time under a memory limit. */
#define AGG_SLICE 8192

static void agg_noop_release(struct ArrowArray *a)
{
    a->release = NULL;
}

/* Writes rows [0, n) of `src` (borrowed, a struct of `schema`), row i to
 * partition part[i], each partition's rows as one slice appended to its
 * file (made on first use, under its lock: workers write at once). What
 * GROUP BY and the hash join both spill with. */
static basalt_status write_partitioned(const struct ArrowSchema *schema,
                                       const struct ArrowArray *src, const uint8_t *part,
                                       int64_t n, const char *dir,
                                       struct basalt_qspill_file **files, pthread_mutex_t *locks,
                                       struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    int64_t *idx = basalt_malloc((size_t)n * sizeof *idx);
    if (idx == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t start[BASALT_QAGG_SPILL_PARTS + 1] = {0}, at[BASALT_QAGG_SPILL_PARTS];
    for (int64_t i = 0; i < n; i++)
        start[part[i] + 1]++;
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS; p++) {
        start[p + 1] += start[p];
        at[p] = start[p];
    }
    for (int64_t i = 0; i < n; i++)
        idx[at[part[i]]++] = i;
    struct ArrowArray sorted;
    memset(&sorted, 0, sizeof sorted);
    basalt_status st = basalt_arrow_take(schema, src, idx, n, &sorted, err);
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS && st == BASALT_OK; p++) {
        if (start[p + 1] == start[p])
            continue;
        struct ArrowArray slice = sorted;
        slice.offset = sorted.offset + start[p];
        slice.length = start[p + 1] - start[p];
        pthread_mutex_lock(&locks[p]);
        if (files[p] == NULL)
            st = basalt_qspill_file_new(dir, schema, &files[p], err);
        if (st == BASALT_OK)
            st = basalt_qspill_file_write(files[p], &slice, err);
        pthread_mutex_unlock(&locks[p]);
    }
    if (sorted.release != NULL)
        basalt_arrow_array_release(&sorted);
    basalt_free(idx);
    return st;
}

/* Writes n rows of the inputs to the partitions' files. */
static basalt_status agg_spill_rows(struct agg_sink *s, const struct ArrowArray *const *inputs,
                                    int64_t n, struct basalt_error *err)
{
    struct agg_spill *sp = &s->sp;
    uint8_t *part = basalt_malloc((size_t)n + 1);
    struct ArrowArray **cols = basalt_calloc((size_t)sp->n_cols + 1, sizeof *cols);
    basalt_status st = part && cols ? BASALT_OK
                                    : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_qagg_partition(s->agg, inputs, n, 0, part, err);
    if (st == BASALT_OK) {
        /* The inputs, borrowed, as one struct batch. */
        const void *bufs[1] = {NULL};
        struct ArrowArray view;
        memset(&view, 0, sizeof view);
        for (int c = 0; c < sp->n_cols; c++)
            memcpy(&cols[c], &inputs[sp->input[c]], sizeof cols[c]); /* read only */
        view.length = n;
        view.n_buffers = 1;
        view.buffers = bufs;
        view.n_children = sp->n_cols;
        view.children = cols;
        view.release = agg_noop_release;
        st = write_partitioned(&sp->schema, &view, part, n, sp->dir, sp->files, sp->locks, err);
    }
    if (st == BASALT_OK)
        atomic_fetch_add(&sp->rows, n);
    else
        basalt_error_context(err, st, "GROUP BY: spilling rows");
    basalt_free(part);
    basalt_free(cols);
    return st;
}

/* The spill ops (agg.h): handles are spill files. */
static void *agg_part(void *ctx, int p)
{
    struct agg_sink *s = ctx;
    struct basalt_qspill_file *f = s->sp.files[p];
    s->sp.files[p] = NULL;
    return f;
}

static int64_t agg_bytes(void *ctx, void *h)
{
    (void)ctx;
    return basalt_qspill_file_bytes(h);
}

static void agg_drop(void *ctx, void *h)
{
    (void)ctx;
    basalt_qspill_file_free(h);
}

/* The sink's inputs of spilled batch b. */
static void agg_inputs(const struct agg_sink *s, const struct ArrowArray *b,
                       const struct ArrowArray **inputs)
{
    for (int i = 0; i < s->n_inputs; i++)
        inputs[i] = s->sp.pos[i] >= 0 ? b->children[s->sp.pos[i]] : NULL;
}

static basalt_status agg_split(void *ctx, void *h, int bits, void **out, struct basalt_error *err)
{
    struct agg_sink *s = ctx;
    struct agg_spill *sp = &s->sp;
    struct basalt_qspill_file *f = h, *sub[BASALT_QAGG_SPILL_PARTS] = {0};
    const struct ArrowArray *inputs[256];
    basalt_status st = BASALT_OK;
    uint8_t *part = NULL;
    int64_t *idx = NULL, cap = 0;
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(f, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        if (b.length > cap) {
            basalt_free(part);
            basalt_free(idx);
            cap = b.length;
            part = basalt_malloc((size_t)cap);
            idx = basalt_malloc((size_t)cap * sizeof *idx);
            if (part == NULL || idx == NULL)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        agg_inputs(s, &b, inputs);
        if (st == BASALT_OK)
            st = basalt_qagg_partition(s->agg, inputs, b.length, bits, part, err);
        int64_t start[BASALT_QAGG_SPILL_PARTS + 1] = {0}, at[BASALT_QAGG_SPILL_PARTS];
        for (int64_t r = 0; st == BASALT_OK && r < b.length; r++)
            start[part[r] + 1]++;
        for (int q = 0; q < BASALT_QAGG_SPILL_PARTS; q++) {
            start[q + 1] += start[q];
            at[q] = start[q];
        }
        for (int64_t r = 0; st == BASALT_OK && r < b.length; r++)
            idx[at[part[r]]++] = r;
        struct ArrowArray sorted;
        memset(&sorted, 0, sizeof sorted);
        if (st == BASALT_OK)
            st = basalt_arrow_take(&sp->schema, &b, idx, b.length, &sorted, err);
        basalt_arrow_array_release(&b);
        for (int q = 0; q < BASALT_QAGG_SPILL_PARTS && st == BASALT_OK; q++) {
            if (start[q + 1] == start[q])
                continue;
            struct ArrowArray slice = sorted;
            slice.offset = sorted.offset + start[q];
            slice.length = start[q + 1] - start[q];
            if (sub[q] == NULL)
                st = basalt_qspill_file_new(sp->dir, &sp->schema, &sub[q], err);
            if (st == BASALT_OK)
                st = basalt_qspill_file_write(sub[q], &slice, err);
        }
        if (sorted.release != NULL)
            basalt_arrow_array_release(&sorted);
    }
    basalt_free(part);
    basalt_free(idx);
    basalt_qspill_file_free(f);
    for (int q = 0; q < BASALT_QAGG_SPILL_PARTS; q++) {
        if (st == BASALT_OK && sub[q] != NULL) {
            s->node->spill_partitions++;
            s->node->spill_bytes += basalt_qspill_file_bytes(sub[q]);
            st = basalt_qspill_file_seal(sub[q], err);
        }
        out[q] = sub[q];
    }
    if (st != BASALT_OK) {
        for (int q = 0; q < BASALT_QAGG_SPILL_PARTS; q++) {
            basalt_qspill_file_free(sub[q]);
            out[q] = NULL;
        }
        basalt_error_context(err, st, "GROUP BY: splitting a spilled partition");
    }
    return st;
}

static basalt_status agg_load(void *ctx, void *h, struct basalt_qagg_local *into,
                              struct basalt_error *err)
{
    struct agg_sink *s = ctx;
    struct basalt_qspill_file *f = h;
    const struct ArrowArray *inputs[256];
    int nk = s->node->n_exprs, nc = s->node->n_calls;
    basalt_status st = BASALT_OK;
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(f, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        agg_inputs(s, &b, inputs);
        st = basalt_qagg_consume(into, inputs, inputs + nk, inputs + nk + nc, b.length, err);
        basalt_arrow_array_release(&b);
    }
    /* Its disk space goes back now. */
    basalt_qspill_file_free(f);
    return st;
}

/* The spilled rows' schema: the keys, then the arguments the calls take. */
static basalt_status agg_spill_init(struct agg_sink *s, const struct basalt_query_type *key_types,
                                    const struct basalt_qagg_call *calls, const char *dir,
                                    struct basalt_error *err)
{
    struct agg_spill *sp = &s->sp;
    int nk = s->node->n_exprs, nc = s->node->n_calls;
    sp->dir = dir;
    atomic_init(&sp->rows, 0);
    sp->input = basalt_calloc((size_t)s->n_inputs + 1, sizeof *sp->input);
    sp->pos = basalt_calloc((size_t)s->n_inputs + 1, sizeof *sp->pos);
    if (sp->input == NULL || sp->pos == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_query_type types[256];
    for (int i = 0; i < s->n_inputs; i++) {
        sp->pos[i] = -1;
        bool used;
        if (i < nk) {
            used = true;
            types[sp->n_cols] = key_types[i];
        } else if (i < nk + nc) {
            used = calls[i - nk].kind != BASALT_QAGG_COUNT_STAR;
            types[sp->n_cols] = calls[i - nk].input;
        } else {
            used = basalt_qagg_kind_binary(calls[i - nk - nc].kind);
            types[sp->n_cols] = calls[i - nk - nc].input2;
        }
        if (used) {
            sp->pos[i] = sp->n_cols;
            sp->input[sp->n_cols++] = i;
        }
    }
    basalt_status st = basalt_arrow_schema_init(&sp->schema, "+s", "", 0, sp->n_cols, err);
    for (int c = 0; c < sp->n_cols && st == BASALT_OK; c++) {
        char fmt[48], name[16];
        snprintf(name, sizeof name, "c%d", c);
        st = basalt_query_type_format(types[c], fmt, sizeof fmt, err);
        if (st == BASALT_OK)
            st = basalt_arrow_schema_init(sp->schema.children[c], fmt, name, ARROW_FLAG_NULLABLE, 0,
                                          err);
    }
    if (st != BASALT_OK)
        return st;
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS; p++)
        pthread_mutex_init(&sp->locks[p], NULL);
    sp->locks_made = true;
    return BASALT_OK;
}

static void agg_spill_reset(struct agg_spill *sp)
{
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS; p++) {
        basalt_qspill_file_free(sp->files[p]);
        if (sp->locks_made)
            pthread_mutex_destroy(&sp->locks[p]);
    }
    if (sp->schema.release != NULL)
        basalt_arrow_schema_release(&sp->schema);
    basalt_free(sp->input);
    basalt_free(sp->pos);
}

static basalt_status agg_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                 struct ArrowArray *batch, struct basalt_error *err)
{
    (void)m;
    (void)seq;
    struct agg_sink *s = (struct agg_sink *)sink;
    struct ArrowArray vals[64];
    const struct ArrowArray *inputs[256]; /* keys + 2 * calls, at most 128 + 128 */
    basalt_status st = BASALT_OK;
    if (s->n_prog > 0)
        st = basalt_query_eval(s->prog, s->states[worker], batch, vals, err);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; i < s->n_inputs; i++)
        inputs[i] = s->col[i] >= 0 ? batch->children[s->col[i]]
                                   : (s->slot[i] >= 0 ? &vals[s->slot[i]] : NULL);
    int nk = s->node->n_exprs, nc = s->node->n_calls;
    if (s->limit == 0) {
        st = basalt_qagg_consume(s->locals[worker], inputs, inputs + nk, inputs + nk + nc,
                                 batch->length, err);
    } else {
        /* In slices, so that the tables freeze close to their share (a
         * slice of new groups with many aggregates is megabytes). */
        struct ArrowArray view[256];
        const struct ArrowArray *in[256];
        for (int64_t from = 0; from < batch->length && st == BASALT_OK; from += AGG_SLICE) {
            int64_t n = batch->length - from < AGG_SLICE ? batch->length - from : AGG_SLICE;
            for (int i = 0; i < s->n_inputs; i++) {
                in[i] = NULL;
                if (inputs[i] == NULL)
                    continue;
                view[i] = *inputs[i];
                view[i].offset += from;
                view[i].length = n;
                in[i] = &view[i];
            }
            if (atomic_load(&s->frozen)) {
                st = agg_spill_rows(s, in, n, err);
            } else {
                st = basalt_qagg_consume(s->locals[worker], in, in + nk, in + nk + nc, n, err);
                if (st == BASALT_OK && basalt_alloc_bytes() > s->limit / 3)
                    atomic_store(&s->frozen, true);
            }
        }
    }
    for (int i = 0; i < s->n_prog; i++)
        basalt_arrow_array_release(&vals[i]);
    basalt_arrow_array_release(batch);
    int64_t used = basalt_alloc_bytes();
    if (st == BASALT_OK && s->limit > 0 && used > s->limit)
        st = basalt_error_set(err, BASALT_LIMIT,
                              "GROUP BY: memory limit of %.1f MiB exceeded (%.1f MiB in use) with "
                              "its input spilled; raise --memory-limit",
                              (double)s->limit / 1048576.0, (double)used / 1048576.0);
    return st;
}

basalt_status basalt_qrun_aggregate(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                    struct basalt_arrow_batches *out, struct basalt_error *err)
{
    int nk = node->n_exprs, nc = node->n_calls, workers = basalt_qrun_workers(ctx);
    if (nk + nc > 128)
        return basalt_error_set(err, BASALT_LIMIT, "more than 128 group keys and aggregates");
    struct agg_sink s;
    memset(&s, 0, sizeof s);
    s.node = node;
    s.n_inputs = nk + 2 * nc;
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    struct basalt_qagg *agg = NULL;
    struct basalt_query_type *key_types = basalt_calloc((size_t)nk + 1, sizeof *key_types);
    struct basalt_qagg_call *calls = basalt_calloc((size_t)nc + 1, sizeof *calls);
    struct basalt_qexpr **computed = basalt_calloc((size_t)s.n_inputs + 1, sizeof *computed);
    s.col = basalt_calloc((size_t)s.n_inputs + 1, sizeof *s.col);
    s.slot = basalt_calloc((size_t)s.n_inputs + 1, sizeof *s.slot);
    s.states = basalt_calloc((size_t)workers, sizeof *s.states);
    s.locals = basalt_calloc((size_t)workers, sizeof *s.locals);
    basalt_status st = key_types && calls && computed && s.col && s.slot && s.states && s.locals
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < s.n_inputs && st == BASALT_OK; i++) {
        struct basalt_qexpr *e = i < nk        ? node->exprs[i]
                                 : i < nk + nc ? node->calls[i - nk].call.arg
                                               : node->calls[i - nk - nc].call.arg2;
        s.col[i] = -1;
        s.slot[i] = -1;
        if (e == NULL)
            continue;
        int32_t c = basalt_qexpr_column_index(e);
        if (c >= 0) {
            s.col[i] = c;
        } else {
            s.slot[i] = s.n_prog;
            computed[s.n_prog++] = e;
        }
    }
    for (int i = 0; i < nk && st == BASALT_OK; i++)
        key_types[i] = basalt_qexpr_type(node->exprs[i]);
    for (int i = 0; i < nc && st == BASALT_OK; i++)
        st = basalt_qplan_agg_call_of(&node->calls[i], &calls[i]);
    if (st == BASALT_OK && s.n_prog > 64)
        st = basalt_error_set(err, BASALT_LIMIT, "more than 64 computed group keys and arguments");
    struct basalt_qagg_options ao;
    basalt_qagg_options_init(&ao);
    ao.memory_limit = ctx->o.memory_limit;
    if (st == BASALT_OK)
        st = basalt_qagg_new(key_types, nk, calls, nc, &ao, &agg, err);
    if (st == BASALT_OK)
        st = basalt_qrun_open(ctx, node->child[0], &pl, err);
    if (st == BASALT_OK && s.n_prog > 0) {
        struct basalt_qexpr_builder *b;
        st = basalt_qctx_builder_over(ctx, pl.schema, &b, err);
        struct basalt_query_compile_options co;
        basalt_query_compile_options_init(&co);
        if (st == BASALT_OK)
            st = basalt_query_compile(b, computed, s.n_prog, &co, &s.prog, err);
    }
    for (int w = 0; w < workers && st == BASALT_OK; w++) {
        if (s.prog != NULL)
            st = basalt_query_state_new(s.prog, &s.states[w], err);
        if (st == BASALT_OK)
            st = basalt_qagg_local_new(agg, &s.locals[w], err);
    }
    s.base.consume = agg_consume;
    s.base.what = "aggregate without GROUP BY keys";
    s.agg = agg;
    atomic_init(&s.frozen, false);
    /* A global aggregate has one group: nothing to partition. */
    if (st == BASALT_OK && ctx->o.memory_limit > 0 && nk > 0) {
        s.limit = ctx->o.memory_limit;
        s.base.spills = true;
        st = agg_spill_init(&s, key_types, calls, ctx->o.spill_dir, err);
    }
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &s.base, err);
    bool spilled = false;
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS && st == BASALT_OK; p++) {
        if (s.sp.files[p] == NULL)
            continue;
        spilled = true;
        node->spill_partitions++;
        node->spill_bytes += basalt_qspill_file_bytes(s.sp.files[p]);
        /* The writers' buffers go back before the partitions are read. */
        st = basalt_qspill_file_seal(s.sp.files[p], err);
    }
    node->spill_rows += atomic_load(&s.sp.rows);
    if (st == BASALT_OK && spilled) {
        struct basalt_qagg_spill_ops ops = {&s, agg_part, agg_bytes, agg_split, agg_load,
                                            agg_drop};
        int64_t budget = basalt_qspill_test_budget() > 0 ? basalt_qspill_test_budget()
                                                         : s.limit / 4;
        st = basalt_qagg_finish_spilled(agg, s.locals, workers, ctx->o.pool, &ops, budget,
                                        s.limit, out, err);
        struct basalt_qagg_stats as;
        basalt_qagg_stats(agg, &as);
        node->spill_splits += as.splits;
        if (st == BASALT_OK) {
            basalt_arrow_schema_release(&out->schema);
            st = basalt_arrow_schema_copy(&node->schema, &out->schema, err);
        }
    } else if (st == BASALT_OK) {
        st = basalt_qagg_finish(agg, s.locals, workers, ctx->o.pool, out, err);
        /* The node's names and nullability. */
        if (st == BASALT_OK) {
            basalt_arrow_schema_release(&out->schema);
            st = basalt_arrow_schema_copy(&node->schema, &out->schema, err);
        }
    }
    for (int w = 0; w < workers && s.states != NULL; w++) {
        basalt_query_state_free(s.states[w]);
        if (s.locals != NULL)
            basalt_qagg_local_free(s.locals[w]);
    }
    basalt_qpipeline_reset(&pl);
    agg_spill_reset(&s.sp);
    basalt_query_program_free(s.prog);
    basalt_qagg_free(agg);
    basalt_free(s.states);
    basalt_free(s.locals);
    basalt_free(s.col);
    basalt_free(s.slot);
    basalt_free(key_types);
    basalt_free(calls);
    basalt_free(computed);
    return st;
}

/* ------------------------------------------------------------------ collecting in order */

basalt_status basalt_qrun_collect_in_order(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                           const char *what, struct basalt_arrow_batches *out,
                                           struct basalt_error *err)
{
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    struct qsink sink;
    memset(&sink, 0, sizeof sink);
    basalt_status st = basalt_qrun_open(ctx, node, &pl, err);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_init(&sink, pl.src.n_morsels, -1, err);
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
                                "ORDER BY: memory limit of %.1f MiB exceeded (%.1f MiB in use) "
                                "with its input spilled; raise --memory-limit",
                                (double)s->limit / 1048576.0, (double)used / 1048576.0);
    return BASALT_OK;
}

static basalt_status sort_spilling(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                   const struct basalt_qsort_key *keys,
                                   struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    struct sort_sink s;
    memset(&s, 0, sizeof s);
    s.base.consume = sort_consume;
    s.base.spills = true;
    s.limit = ctx->o.memory_limit;
    s.workers = basalt_qrun_workers(ctx);
    atomic_init(&s.spilling, 0);
    basalt_status st = basalt_qrun_open(ctx, node->child[0], &pl, err);
    if (st == BASALT_OK)
        st = basalt_qsort_ext_new(pl.schema, keys, node->n_sort_keys, basalt_qrun_workers(ctx),
                                  ctx->o.spill_dir, &s.x, err);
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &s.base, err);
    basalt_qpipeline_reset(&pl);
    if (st == BASALT_OK)
        st = basalt_qsort_ext_finish(s.x, ctx->o.pool, ctx->o.memory_limit, out, err);
    if (s.x != NULL) {
        struct basalt_qsort_ext_stats xs;
        basalt_qsort_ext_stats(s.x, &xs);
        node->spill_runs += xs.runs;
        node->spill_rows += xs.rows_spilled;
        node->spill_bytes += xs.bytes_spilled;
    }
    basalt_qsort_ext_free(s.x);
    return st;
}

basalt_status basalt_qrun_sort(struct basalt_qctx *ctx, struct basalt_qplan *node,
                               struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (ctx->o.memory_limit > 0 && node->limit < 0) {
        struct basalt_qsort_key *keys = basalt_calloc((size_t)node->n_sort_keys + 1, sizeof *keys);
        if (keys == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < node->n_sort_keys; i++) {
            keys[i].column = node->sort_keys[i].column;
            keys[i].descending = node->sort_keys[i].descending;
            keys[i].nulls_first = node->sort_keys[i].nulls_first;
        }
        basalt_status st = sort_spilling(ctx, node, keys, out, err);
        basalt_free(keys);
        return st;
    }
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    basalt_status st = basalt_qrun_collect_in_order(
        ctx, node->child[0], node->limit >= 0 ? "ORDER BY ... LIMIT (top-k)" : "ORDER BY", &in, err);
    struct basalt_qsort_key *keys = basalt_calloc((size_t)node->n_sort_keys, sizeof *keys);
    if (st == BASALT_OK && keys == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; st == BASALT_OK && i < node->n_sort_keys; i++) {
        keys[i].column = node->sort_keys[i].column;
        keys[i].descending = node->sort_keys[i].descending;
        keys[i].nulls_first = node->sort_keys[i].nulls_first;
    }
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

/* ------------------------------------------------------------------ joins */

/* ------------------------------------------------------------------ spilled joins
 *
 * A grace hash join under a memory limit: while the build side is collected
 * each worker holds its batches; once memory in use passes a third of the
 * limit, every batch held and every batch after goes to 64 spill files by
 * the partition of its keys (basalt_qjoin_partition). The probe side's
 * pipeline is then run into 64 files the same way, and the join becomes a
 * source whose morsel p joins build partition p with probe partition p (a
 * table per partition; RIGHT and FULL add the partition's unmatched build
 * rows). Output comes partition by partition, so its order differs from the
 * in-memory join's (which follows the probe rows); the rows are the same.
 * CROSS joins (no keys) do not spill. */

/* 64 spill files that many workers write at once. */
struct part_files {
    struct ArrowSchema schema;
    const char *dir;
    struct basalt_qspill_file *files[BASALT_QAGG_SPILL_PARTS];
    pthread_mutex_t locks[BASALT_QAGG_SPILL_PARTS];
    bool locks_made;
    atomic_llong rows;
};

static basalt_status pf_init(struct part_files *pf, const struct ArrowSchema *schema,
                             const char *dir, struct basalt_error *err)
{
    memset(pf, 0, sizeof *pf);
    pf->dir = dir;
    atomic_init(&pf->rows, 0);
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS; p++)
        pthread_mutex_init(&pf->locks[p], NULL);
    pf->locks_made = true;
    return basalt_arrow_schema_copy(schema, &pf->schema, err);
}

static void pf_reset(struct part_files *pf)
{
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS; p++) {
        basalt_qspill_file_free(pf->files[p]);
        pf->files[p] = NULL;
        if (pf->locks_made)
            pthread_mutex_destroy(&pf->locks[p]);
    }
    pf->locks_made = false;
    if (pf->schema.release != NULL)
        basalt_arrow_schema_release(&pf->schema);
}

/* Writes batch's rows (borrowed) to the files of their partitions by keys. */
static basalt_status pf_write(struct part_files *pf, const struct ArrowArray *batch,
                              const int *keys, int n_keys, struct basalt_error *err)
{
    int64_t n = batch->length;
    uint8_t *part = basalt_malloc((size_t)n + 1);
    basalt_status st = part ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_qjoin_partition(&pf->schema, batch, keys, n_keys, part, err);
    if (st == BASALT_OK)
        st = write_partitioned(&pf->schema, batch, part, n, pf->dir, pf->files, pf->locks, err);
    if (st == BASALT_OK)
        atomic_fetch_add(&pf->rows, n);
    basalt_free(part);
    return st;
}

/* Ends the writing (the writers' buffers go back) and counts the files. */
static basalt_status pf_seal(struct part_files *pf, struct basalt_qplan *node,
                             struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int p = 0; p < BASALT_QAGG_SPILL_PARTS && st == BASALT_OK; p++) {
        if (pf->files[p] == NULL)
            continue;
        node->spill_partitions++;
        node->spill_bytes += basalt_qspill_file_bytes(pf->files[p]);
        st = basalt_qspill_file_seal(pf->files[p], err);
    }
    node->spill_rows += atomic_load(&pf->rows);
    return st;
}

struct held {
    struct ArrowArray *arr;
    int64_t *seq;
    int64_t n, cap;
};

/* The build side's sink. */
struct jbuild_sink {
    struct qsink base;
    int64_t limit;
    const int *keys;
    int n_keys;
    struct held *held; /* per worker */
    int workers;
    atomic_bool spilling;
    struct part_files pf;
};

static basalt_status flush_held(struct jbuild_sink *s, struct held *h, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < h->n; i++) {
        if (st == BASALT_OK)
            st = pf_write(&s->pf, &h->arr[i], s->keys, s->n_keys, err);
        basalt_arrow_array_release(&h->arr[i]);
    }
    h->n = 0;
    return st;
}

static basalt_status jbuild_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                    struct ArrowArray *batch, struct basalt_error *err)
{
    (void)m;
    struct jbuild_sink *s = (struct jbuild_sink *)sink;
    struct held *h = &s->held[worker];
    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 16;
        struct ArrowArray *arr = basalt_realloc(h->arr, (size_t)cap * sizeof *arr);
        if (arr != NULL)
            h->arr = arr;
        int64_t *sq = arr ? basalt_realloc(h->seq, (size_t)cap * sizeof *sq) : NULL;
        if (sq == NULL) {
            basalt_arrow_array_release(batch);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        h->seq = sq;
        h->cap = cap;
    }
    h->seq[h->n] = seq;
    basalt_arrow_array_move(batch, &h->arr[h->n++]);
    if (!atomic_load(&s->spilling) && basalt_alloc_bytes() > s->limit / 3)
        atomic_store(&s->spilling, true);
    return atomic_load(&s->spilling) ? flush_held(s, h, err) : BASALT_OK;
}

static void held_free(struct held *h, int workers)
{
    for (int w = 0; h != NULL && w < workers; w++) {
        for (int64_t i = 0; i < h[w].n; i++)
            basalt_arrow_array_release(&h[w].arr[i]);
        basalt_free(h[w].arr);
        basalt_free(h[w].seq);
    }
    basalt_free(h);
}

static int by_first(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The build side: in memory, in input order, into `in`; or, past a third of
 * the limit, in 64 files (*spilled set, pf filled). */
static basalt_status collect_build(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                   struct basalt_arrow_batches *in, struct part_files *pf,
                                   bool *spilled, struct basalt_error *err)
{
    *spilled = false;
    struct jbuild_sink s;
    memset(&s, 0, sizeof s);
    s.base.consume = jbuild_consume;
    s.base.what = "HASH JOIN (build side)";
    s.limit = ctx->o.memory_limit;
    s.keys = node->right_keys;
    s.n_keys = node->n_join_keys;
    s.workers = basalt_qrun_workers(ctx);
    atomic_init(&s.spilling, false);
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    s.held = basalt_calloc((size_t)s.workers, sizeof *s.held);
    basalt_status st = s.held ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = pf_init(&s.pf, &node->child[1]->schema, ctx->o.spill_dir, err);
    if (st == BASALT_OK)
        st = basalt_qrun_open(ctx, node->child[1], &pl, err);
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &s.base, err);
    basalt_qpipeline_reset(&pl);
    if (st == BASALT_OK && atomic_load(&s.spilling)) {
        for (int w = 0; w < s.workers && st == BASALT_OK; w++)
            st = flush_held(&s, &s.held[w], err);
        if (st == BASALT_OK)
            st = pf_seal(&s.pf, node, err);
        if (st == BASALT_OK) {
            *pf = s.pf; /* the files and locks move */
            memset(&s.pf, 0, sizeof s.pf);
            *spilled = true;
        }
    } else if (st == BASALT_OK) {
        /* In input order, as basalt_qrun_collect_in_order gives it. */
        int64_t nb = 0;
        for (int w = 0; w < s.workers; w++)
            nb += s.held[w].n;
        int64_t *ord = basalt_malloc((size_t)(nb + 1) * 3 * sizeof *ord);
        if (ord == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        int64_t k = 0;
        for (int w = 0; w < s.workers && st == BASALT_OK; w++)
            for (int64_t i = 0; i < s.held[w].n; i++, k++) {
                ord[3 * k] = s.held[w].seq[i];
                ord[3 * k + 1] = w;
                ord[3 * k + 2] = i;
            }
        if (st == BASALT_OK)
            qsort(ord, (size_t)nb, 3 * sizeof *ord, by_first);
        if (st == BASALT_OK && in->schema.release == NULL)
            st = basalt_arrow_schema_copy(&node->child[1]->schema, &in->schema, err);
        for (k = 0; k < nb && st == BASALT_OK; k++)
            st = basalt_arrow_batches_append(in, &s.held[ord[3 * k + 1]].arr[ord[3 * k + 2]],
                                             err);
        basalt_free(ord);
    }
    held_free(s.held, s.workers);
    pf_reset(&s.pf);
    return st;
}

/* What the partitions' joins need. */
struct grace {
    struct basalt_qjoin_spec spec;
    struct basalt_query_program *residual;
    struct part_files build, probe;
    int64_t limit;
    struct basalt_qplan *node; /* counts the rows out */
};

static void grace_free(void *p)
{
    struct grace *g = p;
    if (g == NULL)
        return;
    pf_reset(&g->build);
    pf_reset(&g->probe);
    basalt_query_program_free(g->residual);
    basalt_free(g);
}

static basalt_status emit_all(struct basalt_qplan *node, struct basalt_arrow_batches *out,
                              int64_t m, int worker, qemit_fn emit, void *emit_ctx,
                              struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < out->n && st == BASALT_OK; i++) {
        atomic_fetch_add(&node->rows_out, out->arrays[i].length);
        st = emit(emit_ctx, worker, m, &out->arrays[i], err);
    }
    basalt_arrow_batches_reset(out);
    basalt_arrow_batches_init(out);
    return st;
}

/* QSRC_FN: morsel p joins build partition p with probe partition p. */
static basalt_status grace_morsel(void *ctx, int64_t p, int worker, qemit_fn emit,
                                  void *emit_ctx, struct basalt_error *err)
{
    struct grace *g = ctx;
    struct basalt_qspill_file *bf = g->build.files[p], *pf = g->probe.files[p];
    g->build.files[p] = NULL;
    g->probe.files[p] = NULL;
    enum basalt_qjoin_type t = g->spec.type;
    bool outer_build = t == BASALT_QJOIN_RIGHT || t == BASALT_QJOIN_FULL;
    bool outer_probe = t == BASALT_QJOIN_LEFT || t == BASALT_QJOIN_ANTI || t == BASALT_QJOIN_FULL;
    basalt_status st = BASALT_OK;
    struct basalt_qjoin *j = NULL;
    struct basalt_qjoin_build_local *bl = NULL;
    struct basalt_qjoin_probe_local *pl = NULL;
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    /* Nothing can come out of an empty side unless its other side is kept. */
    if ((bf == NULL && !(pf != NULL && outer_probe)) || (pf == NULL && !(bf != NULL && outer_build)))
        goto done;
    st = basalt_qjoin_new(&g->spec, &j, err);
    if (st == BASALT_OK)
        st = basalt_qjoin_build_local_new(j, &bl, err);
    for (int64_t seq = 0; st == BASALT_OK && bf != NULL; seq++) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(bf, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = basalt_qjoin_build_consume(bl, &b, seq, err);
    }
    basalt_qspill_file_free(bf);
    bf = NULL;
    if (st == BASALT_OK)
        st = basalt_qjoin_build_finish(j, &bl, 1, NULL, err);
    if (st == BASALT_OK && g->limit > 0 && basalt_alloc_bytes() > g->limit)
        st = basalt_error_set(err, BASALT_LIMIT,
                              "HASH JOIN: memory limit of %.1f MiB exceeded (%.1f MiB in use) by "
                              "the table of spilled partition %lld of %d; raise --memory-limit",
                              (double)g->limit / 1048576.0,
                              (double)basalt_alloc_bytes() / 1048576.0, (long long)p,
                              BASALT_QAGG_SPILL_PARTS);
    if (st == BASALT_OK)
        st = basalt_qjoin_probe_local_new(j, &pl, err);
    while (st == BASALT_OK && pf != NULL) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(pf, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = basalt_qjoin_probe(pl, &b, &out, err);
        basalt_arrow_array_release(&b);
        if (st == BASALT_OK)
            st = emit_all(g->node, &out, p, worker, emit, emit_ctx, err);
    }
    if (st == BASALT_OK && outer_build) {
        st = basalt_qjoin_unmatched(j, &out, err);
        if (st == BASALT_OK)
            st = emit_all(g->node, &out, p, worker, emit, emit_ctx, err);
    }
done:
    basalt_arrow_batches_reset(&out);
    basalt_qjoin_probe_local_free(pl);
    basalt_qjoin_build_local_free(bl);
    basalt_qjoin_free(j);
    basalt_qspill_file_free(bf);
    basalt_qspill_file_free(pf);
    return st;
}

struct jprobe_sink {
    struct qsink base;
    struct grace *g;
};

static basalt_status jprobe_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                    struct ArrowArray *batch, struct basalt_error *err)
{
    (void)worker;
    (void)m;
    (void)seq;
    struct jprobe_sink *s = (struct jprobe_sink *)sink;
    basalt_status st = pf_write(&s->g->probe, batch, s->g->spec.probe_keys, s->g->spec.n_keys, err);
    basalt_arrow_array_release(batch);
    return st;
}

/* Runs the probe side (pl, open) into g's probe files and makes pl the
 * source of the partitions' joins (g moves into it). */
static basalt_status grace_take_over(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct qpipeline *pl, struct grace *g,
                                     struct basalt_error *err)
{
    struct jprobe_sink s;
    memset(&s, 0, sizeof s);
    s.base.consume = jprobe_consume;
    s.base.what = "HASH JOIN (probe side, spilling)";
    s.g = g;
    basalt_status st = pf_init(&g->probe, &node->child[0]->schema, ctx->o.spill_dir, err);
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, pl, &s.base, err);
    if (st == BASALT_OK)
        st = pf_seal(&g->probe, node, err);
    basalt_qpipeline_reset(pl);
    if (st != BASALT_OK) {
        grace_free(g);
        return st;
    }
    pl->src.kind = QSRC_FN;
    pl->src.fn = grace_morsel;
    pl->src.fn_ctx = g;
    pl->src.fn_free = grace_free;
    pl->src.n_morsels = BASALT_QAGG_SPILL_PARTS;
    return BASALT_OK;
}

/* A join and the residual program it borrows, freed together. */
struct join_run {
    struct basalt_qjoin *join;
    struct basalt_query_program *residual;
    int64_t build_rows;
};

static void join_run_free(void *p)
{
    struct join_run *r = p;
    if (r == NULL)
        return;
    basalt_qjoin_free(r->join);
    basalt_query_program_free(r->residual);
    basalt_free(r);
}

static basalt_status probe_local_new(void *p, void **out, struct basalt_error *err)
{
    struct join_run *r = p;
    return basalt_qjoin_probe_local_new(r->join, (struct basalt_qjoin_probe_local **)out, err);
}

static void probe_local_free(void *l)
{
    basalt_qjoin_probe_local_free(l);
}

static basalt_status probe(void *l, const struct ArrowArray *batch, struct basalt_arrow_batches *out,
                           struct basalt_error *err)
{
    return basalt_qjoin_probe(l, batch, out, err);
}

/* Runs the right side and builds the hash table on it. */
static basalt_status build(struct basalt_qctx *ctx, struct basalt_qplan *node,
                           const struct ArrowSchema *probe_schema, struct join_run **out,
                           struct grace **spilled_out, struct basalt_error *err)
{
    *out = NULL;
    *spilled_out = NULL;
    struct join_run *r = basalt_calloc(1, sizeof *r);
    if (r == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    if (node->residual != NULL) {
        struct basalt_qexpr_builder *b;
        st = basalt_qplan_join_builder(ctx, node->child[0], node->child[1], &b, err);
        struct basalt_query_compile_options co;
        basalt_query_compile_options_init(&co);
        if (st == BASALT_OK)
            st = basalt_query_compile(b, &node->residual, 1, &co, &r->residual, err);
    }
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    bool spilled = false;
    if (st == BASALT_OK && ctx->o.memory_limit > 0 && node->n_join_keys > 0 &&
        node->join_type != BASALT_QPLAN_JOIN_CROSS) {
        struct grace *g = basalt_calloc(1, sizeof *g);
        if (g == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (st == BASALT_OK)
            st = collect_build(ctx, node, &in, &g->build, &spilled, err);
        if (st == BASALT_OK && spilled) {
            struct basalt_qjoin_spec gs = {(enum basalt_qjoin_type)node->join_type, probe_schema,
                                           &node->child[1]->schema, node->left_keys,
                                           node->right_keys, node->n_join_keys, r->residual};
            g->spec = gs;
            g->residual = r->residual; /* moves to g */
            r->residual = NULL;
            g->limit = ctx->o.memory_limit;
            g->node = node;
            join_run_free(r);
            *spilled_out = g;
            return BASALT_OK;
        }
        grace_free(g);
    } else if (st == BASALT_OK) {
        st = basalt_qrun_collect_in_order(ctx, node->child[1], "HASH JOIN (build side)", &in, err);
    }
    struct basalt_qjoin_spec spec = {(enum basalt_qjoin_type)node->join_type, probe_schema,
                                     &node->child[1]->schema, node->left_keys, node->right_keys,
                                     node->n_join_keys, r->residual};
    if (st == BASALT_OK)
        st = basalt_qjoin_new(&spec, &r->join, err);
    struct basalt_qjoin_build_local *local = NULL;
    if (st == BASALT_OK)
        st = basalt_qjoin_build_local_new(r->join, &local, err);
    for (int64_t i = 0; i < in.n && st == BASALT_OK; i++) {
        r->build_rows += in.arrays[i].length;
        st = basalt_qjoin_build_consume(local, &in.arrays[i], i, err);
    }
    if (st == BASALT_OK)
        st = basalt_qjoin_build_finish(r->join, &local, 1, ctx->o.pool, err);
    basalt_qjoin_build_local_free(local);
    basalt_arrow_batches_reset(&in);
    if (st != BASALT_OK) {
        join_run_free(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

static basalt_status add_probe(struct basalt_qplan *node, struct qpipeline *pl, struct join_run *r,
                               struct basalt_error *err)
{
    struct qpipe_op *op;
    basalt_status st = basalt_qpipeline_add(pl, &op, err);
    if (st != BASALT_OK) {
        join_run_free(r);
        return st;
    }
    op->kind = QPIPE_PROBE;
    op->node = node;
    op->in_schema = &node->child[0]->schema;
    op->join = r;
    op->probe_local_new = probe_local_new;
    op->probe_local_free = probe_local_free;
    op->probe = probe;
    op->free_join = join_run_free;
    op->fanout = node->n_join_keys == 0 ? (double)r->build_rows : 1;
    return BASALT_OK;
}

basalt_status basalt_qrun_join_probe(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct qpipeline *pl, struct basalt_error *err)
{
    struct join_run *r;
    struct grace *g;
    basalt_status st = build(ctx, node, &node->child[0]->schema, &r, &g, err);
    if (st == BASALT_OK && g != NULL)
        return grace_take_over(ctx, node, pl, g, err);
    return st == BASALT_OK ? add_probe(node, pl, r, err) : st;
}

basalt_status basalt_qrun_join_outer(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct join_run *r;
    struct grace *g;
    basalt_status st = build(ctx, node, &node->child[0]->schema, &r, &g, err);
    if (st != BASALT_OK)
        return st;
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    struct qsink sink;
    memset(&sink, 0, sizeof sink);
    if (g != NULL) {
        /* Spilled: the partitions' joins, unmatched build rows included. */
        st = basalt_qrun_open(ctx, node->child[0], &pl, err);
        if (st == BASALT_OK)
            st = grace_take_over(ctx, node, &pl, g, err);
        else
            grace_free(g);
        if (st == BASALT_OK)
            st = basalt_qsink_collect_init(&sink, pl.src.n_morsels, -1, err);
        sink.what = "HASH JOIN (RIGHT/FULL: its result is kept in memory)";
        if (st == BASALT_OK)
            st = basalt_qpipeline_run(ctx, &pl, &sink, err);
        if (st == BASALT_OK)
            st = basalt_qsink_collect_finish(&sink, &node->schema, out, err);
        basalt_qsink_collect_reset(&sink);
        basalt_qpipeline_reset(&pl);
        /* run_breaker counts the rows of the result */
        atomic_store(&node->rows_out, 0);
        return st;
    }
    struct basalt_qjoin *join = r->join;
    st = basalt_qrun_open(ctx, node->child[0], &pl, err);
    if (st == BASALT_OK)
        st = add_probe(node, &pl, r, err); /* the pipeline owns r from here */
    else
        join_run_free(r);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_init(&sink, pl.src.n_morsels, -1, err);
    sink.what = "HASH JOIN (RIGHT/FULL)";
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &sink, err);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_finish(&sink, &node->schema, out, err);
    if (st == BASALT_OK)
        st = basalt_qjoin_unmatched(join, out, err);
    basalt_qsink_collect_reset(&sink);
    basalt_qpipeline_reset(&pl);
    return st;
}
