/* MEDIAN, QUANTILE_CONT, QUANTILE_DISC and STRING_AGG without GROUP BY
 * keys under a memory limit. Such an aggregation has one group, so
 * partitioning by key (how GROUP BY spills) cannot split the values these
 * collect: in memory, they pass any limit their input passes. Under a limit
 * each such call's non-NULL argument values go to an external sort of their
 * own (sort/sort.h: sorted runs spilled as memory runs short, then merged),
 * while the aggregation counts them (the call becomes COUNT of its
 * argument). At the end a quantile reads the merged stream up to the one or
 * two ranks it needs (basalt_qagg_call_quantile_ranks), and those values go
 * through the aggregation's own quantile: QUANTILE_CONT of the two at the
 * upper one's weight, or QUANTILE_DISC of the one. STRING_AGG joins the
 * whole stream, in the byte order the in-memory aggregate joins its values
 * in, into a result sized up front from the values' bytes counted on the
 * way in: memory holds the result and a merge's batches, not the values
 * twice. The result's type and arithmetic are those of the aggregate
 * computed in memory.
 *
 * The sort orders -0.0 and 0.0 as equal where the in-memory aggregate puts
 * -0.0 first: a quantile that lands between the two may come out as the
 * other zero. */
#include <stdatomic.h>
#include <string.h>

#include "agg/agg.h"
#include "plan/run_internal.h"
#include "sort/sort.h"

struct qquant_call {
    int call;                          /* among the aggregate's calls */
    struct basalt_qagg_call original;  /* before it became COUNT */
    struct ArrowSchema schema;         /* "+s" of the argument alone */
    struct basalt_qsort_ext *x;
    atomic_llong n;                    /* non-NULL values sorted */
    atomic_llong bytes;                /* STRING_AGG: their bytes */
};

struct basalt_qquant {
    struct qquant_call *calls;
    int n;
    int workers;
    int64_t limit;
    atomic_llong next_pos; /* each batch's position in its sort: distinct */
    atomic_int spilling;   /* workers writing a run now */
};

static bool sorted_apart(const struct basalt_qagg_call *c)
{
    /* (an ordered STRING_AGG's pieces go in their order key's order: it
     * collects in memory) */
    return !c->distinct && !c->ordered &&
           (c->kind == BASALT_QAGG_MEDIAN || c->kind == BASALT_QAGG_QUANTILE_CONT ||
            c->kind == BASALT_QAGG_QUANTILE_DISC || c->kind == BASALT_QAGG_STRING_AGG);
}

void basalt_qquant_free(struct basalt_qquant *q)
{
    if (q == NULL)
        return;
    for (int i = 0; i < q->n; i++) {
        basalt_qsort_ext_free(q->calls[i].x);
        if (q->calls[i].schema.release != NULL)
            basalt_arrow_schema_release(&q->calls[i].schema);
    }
    basalt_free(q->calls);
    basalt_free(q);
}

/* Sets up the sort of call `c`'s values; *sortable false (and OK) when the
 * sort cannot order its type (INTERVAL): that call stays in memory. */
static basalt_status call_init(struct qquant_call *qc, const struct basalt_qagg_call *c, int call,
                               int workers, const char *spill_dir, bool *sortable,
                               struct basalt_error *err)
{
    *sortable = false;
    qc->call = call;
    qc->original = *c;
    atomic_init(&qc->n, 0);
    atomic_init(&qc->bytes, 0);
    char fmt[64];
    basalt_status st = basalt_query_type_format(c->input, fmt, sizeof fmt, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&qc->schema, "+s", NULL, 0, 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(qc->schema.children[0], fmt, "v", ARROW_FLAG_NULLABLE, 0,
                                      err);
    const struct basalt_qsort_key key = {.column = 0};
    struct basalt_error why;
    basalt_error_init(&why);
    if (st == BASALT_OK)
        st = basalt_qsort_ext_new(&qc->schema, &key, 1, workers, spill_dir, &qc->x, &why);
    if (st == BASALT_UNSUPPORTED)
        return BASALT_OK;
    if (st != BASALT_OK && err != NULL && why.status != BASALT_OK)
        *err = why;
    *sortable = st == BASALT_OK;
    return st;
}

basalt_status basalt_qquant_new(struct basalt_qagg_call *calls, int n_calls, int workers,
                                const char *spill_dir, int64_t limit, struct basalt_qquant **out,
                                struct basalt_error *err)
{
    *out = NULL;
    int picked = 0;
    for (int i = 0; i < n_calls; i++)
        picked += sorted_apart(&calls[i]);
    if (picked == 0 || limit <= 0)
        return BASALT_OK;
    struct basalt_qquant *q = basalt_calloc(1, sizeof *q);
    if (q != NULL)
        q->calls = basalt_calloc((size_t)picked, sizeof *q->calls);
    if (q == NULL || q->calls == NULL) {
        basalt_qquant_free(q);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    q->workers = workers;
    q->limit = limit;
    atomic_init(&q->next_pos, 0);
    atomic_init(&q->spilling, 0);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n_calls && st == BASALT_OK; i++) {
        if (!sorted_apart(&calls[i]))
            continue;
        bool sortable = false;
        st = call_init(&q->calls[q->n], &calls[i], i, workers, spill_dir, &sortable, err);
        if (st != BASALT_OK || !sortable) {
            if (q->calls[q->n].schema.release != NULL)
                basalt_arrow_schema_release(&q->calls[q->n].schema);
            continue;
        }
        calls[i].kind = BASALT_QAGG_COUNT; /* the aggregation only counts them now */
        q->n++;
    }
    if (st != BASALT_OK || q->n == 0) {
        basalt_qquant_free(q);
        return st;
    }
    *out = q;
    return BASALT_OK;
}

static void noop_release(struct ArrowArray *a)
{
    a->release = NULL;
}

/* The rows of `a` (n of them) that are not NULL, into idx; their count. */
static int64_t valid_rows(const struct ArrowArray *a, int64_t n, int64_t *idx)
{
    const uint8_t *bits = a->null_count != 0 && a->n_buffers > 0 ? a->buffers[0] : NULL;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (bits == NULL || basalt_bitmap_get(bits, a->offset + i))
            idx[m++] = i;
    return m;
}

/* Offset i of a VARCHAR array ("u": 32-bit offsets, "U": 64-bit). */
static int64_t string_offset(const char *format, const struct ArrowArray *a, int64_t i)
{
    if (format[0] == 'U')
        return ((const int64_t *)a->buffers[1])[a->offset + i];
    return ((const int32_t *)a->buffers[1])[a->offset + i];
}

/* Hands call qc's values among n rows of `arg` (borrowed) to its sort. */
static basalt_status consume_call(struct basalt_qquant *q, struct qquant_call *qc, int worker,
                                  const struct ArrowArray *arg, int64_t n, int64_t *idx,
                                  struct basalt_error *err)
{
    int64_t m = valid_rows(arg, n, idx);
    if (m == 0)
        return BASALT_OK;
    struct ArrowArray *kids[1];
    memcpy(&kids[0], &arg, sizeof kids[0]); /* read only */
    const void *bufs[1] = {NULL};
    struct ArrowArray view;
    memset(&view, 0, sizeof view);
    view.length = n;
    view.n_buffers = 1;
    view.buffers = bufs;
    view.n_children = 1;
    view.children = kids;
    view.release = noop_release;
    struct ArrowArray taken;
    basalt_status st = basalt_arrow_take(&qc->schema, &view, idx, m, &taken, err);
    if (st == BASALT_OK && qc->original.kind == BASALT_QAGG_STRING_AGG)
        atomic_fetch_add(&qc->bytes,
                         string_offset(qc->schema.children[0]->format, taken.children[0], m) -
                             string_offset(qc->schema.children[0]->format, taken.children[0], 0));
    if (st == BASALT_OK)
        st = basalt_qsort_ext_consume(qc->x, worker, atomic_fetch_add(&q->next_pos, 1), &taken,
                                      err);
    if (st != BASALT_OK)
        return st;
    atomic_fetch_add(&qc->n, m);
    /* Each call's slot of each worker gets an equal share of half the
     * limit before it is sorted into a run (which briefly takes about as
     * much again). */
    int64_t share = q->limit / (2 * (int64_t)q->workers * q->n);
    if (basalt_qsort_ext_held_cost(qc->x, worker) > share ||
        (basalt_alloc_bytes() > q->limit && basalt_qsort_ext_held(qc->x, worker) > 0)) {
        atomic_fetch_add(&q->spilling, 1);
        st = basalt_qsort_ext_spill(qc->x, worker, err);
        atomic_fetch_sub(&q->spilling, 1);
    }
    return st;
}

basalt_status basalt_qquant_consume(struct basalt_qquant *q, int worker,
                                    const struct ArrowArray *const *args, int64_t n,
                                    struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    int64_t *idx = basalt_malloc((size_t)n * sizeof *idx);
    basalt_status st = idx ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < q->n && st == BASALT_OK; i++)
        st = consume_call(q, &q->calls[i], worker, args[q->calls[i].call], n, idx, err);
    basalt_free(idx);
    int64_t used = basalt_alloc_bytes();
    if (st == BASALT_OK && used > q->limit && atomic_load(&q->spilling) == 0)
        st = basalt_error_set(err, BASALT_LIMIT,
                              "aggregate without GROUP BY keys: memory limit of %.1f MiB exceeded "
                              "(%.1f MiB in use) with the values of its quantiles and STRING_AGG "
                              "spilled; raise --memory-limit",
                              (double)q->limit / 1048576.0, (double)used / 1048576.0);
    return st;
}

/* Rows lo and hi of the sorted values (one-row struct batches; *b_hi left
 * released when hi == lo). */
static basalt_status read_ranks(struct qquant_call *qc, int64_t lo, int64_t hi,
                                struct ArrowArray *a_lo, struct ArrowArray *b_hi,
                                struct basalt_error *err)
{
    a_lo->release = NULL;
    b_hi->release = NULL;
    int64_t seen = 0;
    basalt_status st = BASALT_OK;
    while (st == BASALT_OK && (a_lo->release == NULL || (hi > lo && b_hi->release == NULL))) {
        struct ArrowArray b;
        st = basalt_qsort_ext_next(qc->x, &b, err);
        if (st != BASALT_OK)
            break;
        if (b.release == NULL)
            return basalt_error_set(err, BASALT_INTERNAL,
                                    "quantile: the sort gave %lld values, fewer than the %lld "
                                    "counted",
                                    (long long)seen, (long long)atomic_load(&qc->n));
        if (lo >= seen && lo < seen + b.length) {
            int64_t r = lo - seen;
            st = basalt_arrow_take(&qc->schema, &b, &r, 1, a_lo, err);
        }
        if (st == BASALT_OK && hi > lo && hi >= seen && hi < seen + b.length) {
            int64_t r = hi - seen;
            st = basalt_arrow_take(&qc->schema, &b, &r, 1, b_hi, err);
        }
        seen += b.length;
        basalt_arrow_array_release(&b);
    }
    return st;
}

/* STRING_AGG's result (a one-row VARCHAR array): the sorted values joined
 * by the separator, NULL when there are none. */
static basalt_status joined_result(struct qquant_call *qc, struct basalt_pool *pool,
                                   int64_t limit, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    int64_t n = atomic_load(&qc->n);
    const char *sep = qc->original.separator ? qc->original.separator : ",";
    int64_t sep_len = (int64_t)strlen(sep);
    int64_t total = n > 0 ? atomic_load(&qc->bytes) + (n - 1) * sep_len : 0;
    if (total > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT,
                                "STRING_AGG: a result of %lld bytes passes VARCHAR's 2 GiB",
                                (long long)total);
    basalt_status st = basalt_qsort_ext_start(qc->x, pool, limit, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(out, 3, 0, err);
    if (st != BASALT_OK)
        return st;
    out->length = 1;
    void *mem = NULL;
    int32_t *offsets = NULL;
    char *data = NULL;
    st = basalt_arrow_array_allocate_buffer(out, 1, 2 * sizeof(int32_t), &mem, err);
    offsets = mem;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)total + 1, &mem, err);
    data = mem;
    if (st == BASALT_OK && n == 0) {
        st = basalt_arrow_array_allocate_buffer(out, 0, 1, &mem, err);
        if (st == BASALT_OK)
            memset(mem, 0, 1);
        out->null_count = 1;
    }
    const char *format = qc->schema.children[0]->format;
    int64_t at = 0, seen = 0;
    while (st == BASALT_OK && n > 0) {
        struct ArrowArray b;
        st = basalt_qsort_ext_next(qc->x, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        const struct ArrowArray *col = b.children[0];
        for (int64_t r = 0; r < b.length && st == BASALT_OK; r++, seen++) {
            int64_t start = string_offset(format, col, r);
            int64_t len = string_offset(format, col, r + 1) - start;
            int64_t need = len + (seen > 0 ? sep_len : 0);
            if (at + need > total) {
                st = basalt_error_set(err, BASALT_INTERNAL,
                                      "STRING_AGG: the sorted values pass the %lld bytes counted",
                                      (long long)total);
                break;
            }
            if (seen > 0) {
                memcpy(data + at, sep, (size_t)sep_len);
                at += sep_len;
            }
            memcpy(data + at, (const char *)col->buffers[2] + start, (size_t)len);
            at += len;
        }
        basalt_arrow_array_release(&b);
    }
    if (st == BASALT_OK && (seen != n || at != total))
        st = basalt_error_set(err, BASALT_INTERNAL,
                              "STRING_AGG: the sort gave %lld values (%lld bytes) of the %lld "
                              "(%lld bytes) counted",
                              (long long)seen, (long long)at, (long long)n, (long long)total);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    offsets[0] = 0;
    offsets[1] = (int32_t)total;
    return BASALT_OK;
}

/* Call qc's result (a one-row array) from its sorted values. */
static basalt_status call_result(struct qquant_call *qc, struct basalt_pool *pool,
                                 int64_t limit, struct ArrowArray *out, struct basalt_error *err)
{
    int64_t n = atomic_load(&qc->n);
    int64_t lo = 0, hi = 0;
    double frac = 0;
    bool discrete = false;
    struct ArrowArray a, b;
    a.release = NULL;
    b.release = NULL;
    basalt_status st = basalt_qsort_ext_start(qc->x, pool, limit, err);
    /* No values: nothing consumed, the aggregate's NULL. */
    basalt_qagg_call_quantile_ranks(&qc->original, n > 0 ? n : 1, &lo, &hi, &frac, &discrete);
    if (st == BASALT_OK && n > 0)
        st = read_ranks(qc, lo, discrete ? lo : hi, &a, &b, err);
    struct basalt_qagg_call mini = qc->original;
    mini.kind = discrete ? BASALT_QAGG_QUANTILE_DISC : BASALT_QAGG_QUANTILE_CONT;
    mini.quantile = b.release != NULL ? frac : 0.5;
    struct basalt_qagg *agg = NULL;
    struct basalt_qagg_local *local = NULL;
    struct basalt_qagg_options o;
    basalt_qagg_options_init(&o);
    if (st == BASALT_OK)
        st = basalt_qagg_new(NULL, 0, &mini, 1, &o, &agg, err);
    if (st == BASALT_OK)
        st = basalt_qagg_local_new(agg, &local, err);
    struct ArrowArray *one[2] = {&a, &b};
    const struct ArrowArray *none[1] = {NULL};
    for (int k = 0; k < 2 && st == BASALT_OK; k++)
        if (one[k]->release != NULL) {
            const struct ArrowArray *arg = one[k]->children[0];
            st = basalt_qagg_consume(local, none, &arg, none, 1, err);
        }
    struct basalt_arrow_batches res;
    basalt_arrow_batches_init(&res);
    if (st == BASALT_OK)
        st = basalt_qagg_finish(agg, &local, 1, NULL, &res, err);
    if (st == BASALT_OK && (res.n != 1 || res.arrays[0].length != 1))
        st = basalt_error_set(err, BASALT_INTERNAL, "quantile: %lld result batches",
                              (long long)res.n);
    if (st == BASALT_OK)
        basalt_arrow_array_move(res.arrays[0].children[0], out);
    basalt_arrow_batches_reset(&res);
    basalt_qagg_local_free(local);
    basalt_qagg_free(agg);
    if (a.release != NULL)
        basalt_arrow_array_release(&a);
    if (b.release != NULL)
        basalt_arrow_array_release(&b);
    return st;
}

basalt_status basalt_qquant_finish(struct basalt_qquant *q, struct basalt_pool *pool,
                                   struct basalt_qplan *node, struct basalt_arrow_batches *out,
                                   struct basalt_error *err)
{
    if (out->n != 1 || out->arrays[0].length != 1)
        return basalt_error_set(err, BASALT_INTERNAL,
                                "aggregate without GROUP BY keys: %lld result batches",
                                (long long)out->n);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < q->n && st == BASALT_OK; i++) {
        struct qquant_call *qc = &q->calls[i];
        struct ArrowArray value;
        st = qc->original.kind == BASALT_QAGG_STRING_AGG
                 ? joined_result(qc, pool, q->limit, &value, err)
                 : call_result(qc, pool, q->limit, &value, err);
        struct basalt_qsort_ext_stats xs;
        basalt_qsort_ext_stats(qc->x, &xs);
        node->spill_runs += xs.runs;
        node->spill_rows += xs.rows_spilled;
        node->spill_bytes += xs.bytes_spilled;
        if (st != BASALT_OK)
            break;
        struct ArrowArray *slot = out->arrays[0].children[qc->call];
        basalt_arrow_array_release(slot);
        basalt_arrow_array_move(&value, slot);
    }
    return st;
}
