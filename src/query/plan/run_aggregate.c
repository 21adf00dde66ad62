/* The aggregation breaker: each worker aggregates its morsels into its own
 * table (agg/agg.h merges them); under a memory limit the tables freeze and
 * the rest of the input is spilled by key partition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "plan/run_internal.h"
#include "spill/spill.h"

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

/* A call with ORDER BY: its order key (the call's second argument, as
 * consume and the spill files take it) is made from its order columns,
 * which follow the keys and arguments among the sink's inputs. */
struct agg_ordered {
    int call;
    int first;  /* its first order column among the sink's inputs */
    int n;      /* order columns */
    int when;   /* its FILTER's input, or -1 */
    struct basalt_query_type *types;
    bool *desc, *nulls_first;
};

struct agg_sink {
    struct qsink base; /* first: the pipeline sees a qsink */
    struct basalt_qplan *node;
    struct basalt_query_program *prog; /* the keys and arguments that are not plain columns */
    /* per key, per call, per call's second argument, then the ordered
     * calls' order columns and FILTERs: input column, or -1 */
    int *col;
    int *slot;   /* the same: program output, or -1 */
    int n_inputs, n_prog; /* n_inputs: the keys and arguments consume takes */
    int n_all;            /* with the order columns */
    struct agg_ordered *ordered;
    int n_ordered;
    struct basalt_query_state **states;
    struct basalt_qagg_local **locals;
    struct basalt_qagg *agg;
    int64_t limit;       /* > 0: the sink spills */
    atomic_bool frozen;  /* the tables take no more rows: the input goes to the files */
    struct agg_spill sp;
    struct basalt_qspill_file *result; /* a spilled aggregation's result, for a cursor */
    struct basalt_qquant *quant;       /* without keys: quantiles sorted apart */
};

/* Rows consumed or spilled at a time under a memory limit. */
#define AGG_SLICE 8192

static void agg_noop_release(struct ArrowArray *a)
{
    a->release = NULL;
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
        st = basalt_qspill_write_partitioned(&sp->schema, &view, part, n, sp->dir, sp->files,
                                             sp->locks, err);
    }
    if (st == BASALT_OK)
        atomic_fetch_add(&sp->rows, n);
    else
        basalt_error_context(err, st, "GROUP BY: spilling rows");
    basalt_free(part);
    basalt_free(cols);
    return st;
}

/* agg_spill_rows for inputs whose keys may be dictionary arrays (what
 * basalt_qrun_dictionary_keys asks the scan for): those are decoded to their
 * values, the spill files' type. */
static basalt_status spill_plain(struct agg_sink *s, const struct ArrowArray *const *inputs,
                                 int64_t n, struct basalt_error *err)
{
    const struct ArrowArray *plain[256];
    struct ArrowArray decoded[256];
    int nk = s->node->n_exprs, n_decoded = 0;
    basalt_status st = BASALT_OK;
    for (int i = 0; i < s->n_inputs; i++)
        plain[i] = inputs[i];
    for (int i = 0; i < nk && st == BASALT_OK; i++) {
        if (inputs[i] == NULL || inputs[i]->dictionary == NULL)
            continue;
        st = basalt_qagg_key_decode(s->agg, i, inputs[i], &decoded[n_decoded], err);
        if (st == BASALT_OK)
            plain[i] = &decoded[n_decoded++];
    }
    if (st == BASALT_OK)
        st = agg_spill_rows(s, plain, n, err);
    for (int i = 0; i < n_decoded; i++)
        basalt_arrow_array_release(&decoded[i]);
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
    int64_t cap = 0;
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(f, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        if (b.length > cap) {
            basalt_free(part);
            cap = b.length;
            part = basalt_malloc((size_t)cap);
            if (part == NULL)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        agg_inputs(s, &b, inputs);
        if (st == BASALT_OK)
            st = basalt_qagg_partition(s->agg, inputs, b.length, bits, part, err);
        if (st == BASALT_OK)
            st = basalt_qspill_write_partitioned(&sp->schema, &b, part, b.length, sp->dir, sub,
                                                 NULL, err);
        basalt_arrow_array_release(&b);
    }
    basalt_free(part);
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
            types[sp->n_cols] = calls[i - nk].kind == BASALT_QAGG_ARRAY_AGG
                                    ? basalt_query_type_make(BASALT_QUERY_TYPE_BINARY) /* pieces */
                                    : calls[i - nk].input;
        } else {
            used = basalt_qagg_call_two_args(&calls[i - nk - nc]);
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

/* Rows [from, from + n) of the inputs into the worker's table, or to the
 * spill files once the tables are frozen (`whole`: into the table all the
 * same). The ordered calls' order keys, their second arguments, are made
 * for those rows alone: a slice's keys, not a whole batch's, are in
 * memory at a time. */
static basalt_status agg_take(struct agg_sink *s, int worker,
                              const struct ArrowArray *const *inputs, int64_t from, int64_t n,
                              bool whole, struct basalt_error *err)
{
    int nk = s->node->n_exprs, nc = s->node->n_calls;
    struct ArrowArray view[256], okeys[128], pieces[128];
    const struct ArrowArray *in[256];
    for (int i = 0; i < s->n_all; i++) {
        in[i] = NULL;
        if (inputs[i] == NULL)
            continue;
        view[i] = *inputs[i];
        view[i].offset += from;
        view[i].length = n;
        in[i] = &view[i];
    }
    basalt_status st = BASALT_OK;
    int n_okeys = 0, n_pieces = 0;
    /* ARRAY_AGG takes its values as pieces that carry their NULLs (agg.h) */
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        const struct basalt_qplan_agg_call *pc = &s->node->calls[c].call;
        if (pc->kind != BASALT_QPLAN_ARRAY_AGG || in[nk + c] == NULL)
            continue;
        st = basalt_qagg_list_piece(in[nk + c], basalt_qexpr_type(pc->arg), n,
                                    &pieces[n_pieces], err);
        if (st == BASALT_OK)
            in[nk + c] = &pieces[n_pieces++];
    }
    for (int o = 0; o < s->n_ordered && st == BASALT_OK; o++) {
        const struct agg_ordered *oc = &s->ordered[o];
        st = basalt_qagg_order_key(in + oc->first, oc->types, oc->desc, oc->nulls_first, oc->n,
                                   oc->when >= 0 ? in[oc->when] : NULL, n, &okeys[n_okeys],
                                   err);
        if (st == BASALT_OK)
            in[nk + nc + oc->call] = &okeys[n_okeys++];
    }
    if (st == BASALT_OK && !whole && atomic_load(&s->frozen)) {
        st = spill_plain(s, in, n, err);
    } else if (st == BASALT_OK) {
        st = basalt_qagg_consume(s->locals[worker], in, in + nk, in + nk + nc, n, err);
        if (st == BASALT_OK && s->limit > 0 && basalt_alloc_bytes() > s->limit / 3)
            atomic_store(&s->frozen, true);
    }
    for (int i = 0; i < n_okeys; i++)
        basalt_arrow_array_release(&okeys[i]);
    for (int i = 0; i < n_pieces; i++)
        basalt_arrow_array_release(&pieces[i]);
    return st;
}

static basalt_status agg_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                 struct ArrowArray *batch, struct basalt_error *err)
{
    (void)m;
    (void)seq;
    struct agg_sink *s = (struct agg_sink *)sink;
    struct ArrowArray vals[64];
    /* keys + 2 * calls (at most 128 + 128), then ORDER BY keys: 256 in all */
    const struct ArrowArray *inputs[256];
    basalt_status st = BASALT_OK;
    if (s->n_prog > 0)
        st = basalt_query_eval(s->prog, s->states[worker], batch, vals, err);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; i < s->n_all; i++)
        inputs[i] = s->col[i] >= 0 ? batch->children[s->col[i]]
                                   : (s->slot[i] >= 0 ? &vals[s->slot[i]] : NULL);
    int nk = s->node->n_exprs;
    if (s->quant != NULL)
        st = basalt_qquant_consume(s->quant, worker, inputs + nk, batch->length, err);
    /* A batch grouped by its dictionary codes adds few groups (a quarter of
     * its rows at most) and is consumed whole: the map of the codes is made
     * once per consume. Otherwise, under a limit, in slices, so that the
     * tables freeze close to their share (a slice of new groups with many
     * aggregates is megabytes). */
    bool whole = s->limit == 0 || (!atomic_load(&s->frozen) &&
                                   basalt_qagg_dictionary_batch(s->agg, inputs, batch->length));
    if (st == BASALT_OK && whole)
        st = agg_take(s, worker, inputs, 0, batch->length, true, err);
    for (int64_t from = 0; !whole && from < batch->length && st == BASALT_OK; from += AGG_SLICE)
        st = agg_take(s, worker, inputs, from,
                      batch->length - from < AGG_SLICE ? batch->length - from : AGG_SLICE, false,
                      err);
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

/* A spilled aggregation's result batches, written to the result file. */
static basalt_status agg_emit_to_file(void *ctx, struct ArrowArray *batch,
                                      struct basalt_error *err)
{
    struct agg_sink *s = ctx;
    basalt_status st = basalt_qspill_file_write(s->result, batch, err);
    basalt_arrow_array_release(batch);
    return st;
}

basalt_status basalt_qrun_aggregate(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                    struct basalt_arrow_batches *out, struct basalt_error *err)
{
    return basalt_qrun_aggregate_to(ctx, node, out, NULL, err);
}

basalt_status basalt_qrun_aggregate_to(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                       struct basalt_arrow_batches *out,
                                       struct basalt_qspill_file **result,
                                       struct basalt_error *err)
{
    if (result != NULL)
        *result = NULL;
    int nk = node->n_exprs, nc = node->n_calls, workers = basalt_qrun_workers(ctx);
    if (nk + nc > 128)
        return basalt_error_set(err, BASALT_LIMIT, "more than 128 group keys and aggregates");
    struct agg_sink s;
    memset(&s, 0, sizeof s);
    s.node = node;
    s.n_inputs = nk + 2 * nc;
    s.n_all = s.n_inputs + node->n_agg_order;
    for (int i = 0; i < nc; i++) {
        s.n_ordered += node->calls[i].call.n_order > 0;
        s.n_all += node->calls[i].call.filter != NULL;
    }
    if (s.n_all > 256)
        return basalt_error_set(err, BASALT_LIMIT,
                                "more than 256 group keys, aggregate arguments and ORDER BY keys");
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    struct basalt_qagg *agg = NULL;
    struct basalt_query_type *key_types = basalt_calloc((size_t)nk + 1, sizeof *key_types);
    struct basalt_qagg_call *calls = basalt_calloc((size_t)nc + 1, sizeof *calls);
    struct basalt_qexpr **computed = basalt_calloc((size_t)s.n_all + 1, sizeof *computed);
    struct basalt_qexpr **extra = basalt_calloc((size_t)s.n_all + 1, sizeof *extra);
    s.col = basalt_calloc((size_t)s.n_all + 1, sizeof *s.col);
    s.slot = basalt_calloc((size_t)s.n_all + 1, sizeof *s.slot);
    s.ordered = basalt_calloc((size_t)s.n_ordered + 1, sizeof *s.ordered);
    s.states = basalt_calloc((size_t)workers, sizeof *s.states);
    s.locals = basalt_calloc((size_t)workers, sizeof *s.locals);
    basalt_status st = key_types && calls && computed && extra && s.col && s.slot && s.ordered &&
                               s.states && s.locals
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* The order columns and FILTERs after the keys and arguments. */
    for (int i = 0, at = s.n_inputs, o = 0; i < nc && st == BASALT_OK; i++) {
        const struct basalt_qplan_agg_call *c = &node->calls[i].call;
        if (c->n_order == 0)
            continue;
        struct agg_ordered *oc = &s.ordered[o++];
        oc->call = i;
        oc->first = at;
        oc->n = c->n_order;
        oc->types = basalt_calloc((size_t)c->n_order, sizeof *oc->types);
        oc->desc = basalt_calloc((size_t)c->n_order, sizeof *oc->desc);
        oc->nulls_first = basalt_calloc((size_t)c->n_order, sizeof *oc->nulls_first);
        if (!oc->types || !oc->desc || !oc->nulls_first) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            break;
        }
        for (int k = 0; k < c->n_order; k++) {
            extra[at++] = c->order[k].expr;
            oc->types[k] = basalt_qexpr_type(c->order[k].expr);
            oc->desc[k] = c->order[k].desc;
            oc->nulls_first[k] = c->order[k].nulls_first;
        }
        oc->when = c->filter != NULL ? at : -1;
        if (c->filter != NULL)
            extra[at++] = c->filter;
    }
    for (int i = 0; i < s.n_all && st == BASALT_OK; i++) {
        struct basalt_qexpr *e = i < nk            ? node->exprs[i]
                                 : i < nk + nc     ? node->calls[i - nk].call.arg
                                 : i < s.n_inputs  ? node->calls[i - nk - nc].call.arg2
                                                   : extra[i];
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
    if (st == BASALT_OK && nk == 0) {
        st = basalt_qquant_new(calls, nc, workers, ctx->o.spill_dir, ctx->o.memory_limit,
                               &s.quant, err);
        s.base.spills = s.quant != NULL;
    }
    struct basalt_qagg_options ao;
    basalt_qagg_options_init(&ao);
    ao.memory_limit = ctx->o.memory_limit;
    if (st == BASALT_OK)
        st = basalt_qagg_new(key_types, nk, calls, nc, &ao, &agg, err);
    if (st == BASALT_OK)
        st = basalt_qrun_dictionary_keys(ctx, node, s.col, s.n_all, computed, s.n_prog, err);
    pl.defer_breakers = true; /* every aggregate is order-free */
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
    for (int i = 0; i < nc; i++)
        if (node->calls[i].call.kind == BASALT_QPLAN_ARRAY_AGG)
            s.base.what = "array_agg without GROUP BY keys (its list is held in memory)";
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
                                            agg_drop, NULL};
        if (result != NULL) {
            st = basalt_qspill_file_new(ctx->o.spill_dir, &node->schema, &s.result, err);
            ops.emit = agg_emit_to_file;
        }
        int64_t budget = basalt_qspill_test_budget() > 0 ? basalt_qspill_test_budget()
                                                         : s.limit / 4;
        if (st == BASALT_OK)
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
        struct basalt_qagg_stats as;
        basalt_qagg_stats(agg, &as);
        node->dict_batches = as.dict_batches;
        node->dict_map_batches = as.dict_map_batches;
        st = basalt_qagg_finish(agg, s.locals, workers, ctx->o.pool, out, err);
        if (st == BASALT_OK && s.quant != NULL)
            st = basalt_qquant_finish(s.quant, ctx->o.pool, node, out, err);
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
    if (st == BASALT_OK && s.result != NULL) {
        node->spill_bytes += basalt_qspill_file_bytes(s.result);
        st = basalt_qspill_file_seal(s.result, err);
    }
    if (st == BASALT_OK && result != NULL) {
        *result = s.result;
        s.result = NULL;
    }
    basalt_qspill_file_free(s.result);
    basalt_qquant_free(s.quant);
    basalt_query_program_free(s.prog);
    basalt_qagg_free(agg);
    basalt_free(s.states);
    basalt_free(s.locals);
    basalt_free(s.col);
    basalt_free(s.slot);
    for (int o = 0; s.ordered != NULL && o < s.n_ordered; o++) {
        basalt_free(s.ordered[o].types);
        basalt_free(s.ordered[o].desc);
        basalt_free(s.ordered[o].nulls_first);
    }
    basalt_free(s.ordered);
    basalt_free(extra);
    basalt_free(key_types);
    basalt_free(calls);
    basalt_free(computed);
    return st;
}
