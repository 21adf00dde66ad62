/* Probing: rows are looked up a chunk at a time into candidate pairs
 * (probe row, build row) in probe row order and, per row, build order; the
 * residual (if any) filters the candidates on a batch of the columns it
 * reads, gathered for them; the join
 * type then decides what each probe row emits, and the pairs are gathered
 * column by column into output batches, only the columns the spec's
 * output_columns name when it narrowed the output. */
#include <string.h>

#include "join/join_impl.h"

#define ROWS 4096          /* probe rows looked up per chunk */
#define FLUSH 65536        /* output pairs gathered per batch (at a chunk's end) */

struct pairs {
    int64_t *p, *b;
    int64_t n, cap;
};

struct basalt_qjoin_probe_local {
    struct basalt_qjoin *j;
    struct pairs cand, out;
    uint64_t h[ROWS];
    uint64_t bk[ROWS];
    uint8_t null[ROWS];
    uint8_t hit[ROWS];
    struct qj_col *kc; /* probe key columns of the current batch */
    struct qj_col *bc; /* build key columns */
    struct basalt_query_state *rs;
    int64_t *sel;
    int64_t sel_cap;
};

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static basalt_status reserve(struct pairs *p, int64_t more, struct basalt_error *err)
{
    if (p->n + more <= p->cap)
        return BASALT_OK;
    int64_t cap = p->cap ? p->cap : 4096;
    while (cap < p->n + more)
        cap *= 2;
    int64_t *a = basalt_realloc(p->p, (size_t)cap * sizeof *a);
    if (!a)
        return nomem(err);
    p->p = a;
    int64_t *b = basalt_realloc(p->b, (size_t)cap * sizeof *b);
    if (!b)
        return nomem(err);
    p->b = b;
    p->cap = cap;
    return BASALT_OK;
}

static inline void push(struct pairs *p, int64_t row, int64_t g)
{
    p->p[p->n] = row;
    p->b[p->n] = g;
    p->n++;
}

basalt_status basalt_qjoin_probe_local_new(struct basalt_qjoin *j,
                                           struct basalt_qjoin_probe_local **out,
                                           struct basalt_error *err)
{
    if (!j || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL argument");
    *out = NULL;
    if (!j->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: probe before build_finish");
    struct basalt_qjoin_probe_local *l = basalt_calloc(1, sizeof *l);
    if (!l)
        return nomem(err);
    l->j = j;
    int nk = j->n_keys ? j->n_keys : 1;
    l->kc = basalt_calloc((size_t)nk, sizeof *l->kc);
    l->bc = basalt_calloc((size_t)nk, sizeof *l->bc);
    if (!l->kc || !l->bc) {
        basalt_qjoin_probe_local_free(l);
        return nomem(err);
    }
    if (j->n_build > 0)
        for (int k = 0; k < j->n_keys; k++)
            basalt_qj_col_init(&l->bc[k], &j->build, j->build_keys[k], j->kt[k],
                               j->build_schema.children[j->build_keys[k]]->format);
    if (j->residual) {
        basalt_status st = basalt_query_state_new(j->residual, &l->rs, err);
        if (st != BASALT_OK) {
            basalt_qjoin_probe_local_free(l);
            return st;
        }
    }
    *out = l;
    return BASALT_OK;
}

void basalt_qjoin_probe_local_free(struct basalt_qjoin_probe_local *l)
{
    if (!l)
        return;
    basalt_free(l->cand.p);
    basalt_free(l->cand.b);
    basalt_free(l->out.p);
    basalt_free(l->out.b);
    basalt_free(l->kc);
    basalt_free(l->bc);
    basalt_free(l->sel);
    basalt_query_state_free(l->rs);
    basalt_free(l);
}

/* Candidate pairs of rows [lo, hi) whose keys are equal (all build rows for CROSS). */
static basalt_status lookup(struct basalt_qjoin_probe_local *l, int64_t lo, int64_t hi,
                            struct basalt_error *err)
{
    struct basalt_qjoin *j = l->j;
    struct pairs *c = &l->cand;
    c->n = 0;
    const uint32_t *offs = j->offs, *erow = j->erow;
    const uint64_t *ekey = j->ekey;
    basalt_status st;
    switch (j->table) {
    case BASALT_QJOIN_TABLE_NONE:
        for (int64_t i = lo; i < hi; i++) {
            if ((st = reserve(c, j->n_build, err)) != BASALT_OK)
                return st;
            for (int64_t g = 0; g < j->n_build; g++)
                push(c, i, g);
        }
        return BASALT_OK;
    case BASALT_QJOIN_TABLE_DIRECT: {
        /* Keys to slots first, prefetching each, then the reads: the misses
         * of a chunk overlap instead of queueing one behind the other. */
        const struct qj_col *k = &l->kc[0];
        uint64_t nb = j->n_buckets, dmin = (uint64_t)j->dmin;
        int64_t n = hi - lo;
        uint64_t *slot = l->h;
        basalt_qj_ints(k, lo, hi, (int64_t *)slot);
        const uint32_t *drow = j->drow;
        for (int64_t r = 0; r < n; r++) {
            uint64_t d = slot[r] - dmin;
            if (d >= nb || !basalt_qj_valid(k, lo + r))
                d = UINT64_MAX;
            else
                __builtin_prefetch(drow ? (const void *)&drow[d] : (const void *)&offs[d]);
            slot[r] = d;
        }
        if (drow) {
            if ((st = reserve(c, n, err)) != BASALT_OK)
                return st;
            for (int64_t r = 0; r < n; r++) {
                uint64_t d = slot[r];
                if (d == UINT64_MAX || drow[d] == UINT32_MAX)
                    continue;
                push(c, lo + r, drow[d]);
            }
        } else {
            for (int64_t r = 0; r < n; r++) {
                uint64_t d = slot[r];
                if (d == UINT64_MAX)
                    continue;
                uint32_t e = offs[d], ee = offs[d + 1];
                if (c->n + (ee - e) > c->cap && (st = reserve(c, ee - e, err)) != BASALT_OK)
                    return st;
                for (; e < ee; e++)
                    push(c, lo + r, erow[e]);
            }
        }
        atomic_fetch_add_explicit(&j->direct_lookups, n, memory_order_relaxed);
        return BASALT_OK;
    }
    case BASALT_QJOIN_TABLE_INTEGER: {
        const struct qj_col *k = &l->kc[0];
        int shift = j->shift;
        int64_t n = hi - lo;
        int64_t *v = (int64_t *)l->h;
        uint64_t *bk = l->bk;
        basalt_qj_ints(k, lo, hi, v);
        for (int64_t r = 0; r < n; r++) {
            bk[r] = ((uint64_t)v[r] * 0x9e3779b97f4a7c15ull) >> shift;
            __builtin_prefetch(&offs[bk[r]]);
        }
        for (int64_t r = 0; r < n; r++) {
            if (!basalt_qj_valid(k, lo + r))
                continue;
            uint32_t e = offs[bk[r]], ee = offs[bk[r] + 1];
            if (c->n + (ee - e) > c->cap && (st = reserve(c, ee - e, err)) != BASALT_OK)
                return st;
            for (; e < ee; e++)
                if (ekey[e] == (uint64_t)v[r])
                    push(c, lo + r, erow[e]);
        }
        atomic_fetch_add_explicit(&j->integer_lookups, n, memory_order_relaxed);
        return BASALT_OK;
    }
    default: {
        int64_t n = hi - lo, hits = 0;
        memset(l->h, 0, (size_t)n * sizeof l->h[0]);
        memset(l->null, 0, (size_t)n);
        for (int k = 0; k < j->n_keys; k++)
            basalt_qj_hash_col(&l->kc[k], lo, hi, l->h, l->null);
        int shift = j->shift;
        for (int64_t i = lo; i < hi; i++) {
            if (l->null[i - lo])
                continue;
            uint64_t h = l->h[i - lo];
            uint64_t bk = h >> shift;
            uint32_t e = offs[bk], ee = offs[bk + 1];
            if (c->n + (ee - e) > c->cap && (st = reserve(c, ee - e, err)) != BASALT_OK)
                return st;
            for (; e < ee; e++) {
                if (ekey[e] != h)
                    continue;
                hits++;
                bool eq = true;
                for (int k = 0; k < j->n_keys && eq; k++)
                    eq = basalt_qj_equal(&l->kc[k], i, &l->bc[k], erow[e]);
                if (eq)
                    push(c, i, erow[e]);
            }
        }
        atomic_fetch_add_explicit(&j->hashed_lookups, n, memory_order_relaxed);
        atomic_fetch_add_explicit(&j->hash_hits, hits, memory_order_relaxed);
        return BASALT_OK;
    }
    }
}

/* A struct batch of the columns cols[0, n_cols) of the INNER layout (probe
 * then build columns; cols NULL: every one of them) gathered from the
 * pairs: probe row pi[k] (batch, NULL when no probe column is asked for or
 * every pi is -1) and build row bi[k]; an index -1 gives NULLs. */
static basalt_status gather_columns(struct basalt_qjoin *j, const struct ArrowArray *batch,
                                    const int64_t *pi, const int64_t *bi, int64_t n,
                                    const int *cols, int n_cols, struct ArrowArray *out,
                                    struct basalt_error *err)
{
    int64_t np = j->probe_schema.n_children;
    if (!cols)
        n_cols = (int)(np + j->build_schema.n_children);
    basalt_status st = basalt_arrow_array_init(out, 1, n_cols, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    bool have = j->build.release != NULL;
    for (int i = 0; i < n_cols && st == BASALT_OK; i++) {
        int64_t c = cols ? cols[i] : i;
        if (c < np)
            st = basalt_qj_gather(j->probe_schema.children[c], batch ? batch->children[c] : NULL,
                                  batch ? batch->offset : 0, pi, n, out->children[i], err);
        else
            st = basalt_qj_gather(j->build_schema.children[c - np],
                                  have ? j->build.children[c - np] : NULL,
                                  have ? j->build.offset : 0, bi, n, out->children[i], err);
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

/* Keeps the candidates the residual finds TRUE. */
static basalt_status filter_residual(struct basalt_qjoin_probe_local *l,
                                     const struct ArrowArray *batch, struct basalt_error *err)
{
    struct basalt_qjoin *j = l->j;
    struct pairs *c = &l->cand;
    if (c->n == 0)
        return BASALT_OK;
    if (c->n > l->sel_cap) {
        int64_t *s = basalt_realloc(l->sel, (size_t)c->n * sizeof *s);
        if (!s)
            return nomem(err);
        l->sel = s;
        l->sel_cap = c->n;
    }
    /* the residual's input: the columns it reads (the whole INNER row when
     * the spec named none) */
    struct ArrowArray cb;
    basalt_status st =
        gather_columns(j, batch, c->p, c->b, c->n, j->res_cols, j->n_res_cols, &cb, err);
    if (st != BASALT_OK)
        return st;
    int64_t k = 0;
    st = basalt_query_select(j->residual, l->rs, &cb, l->sel, &k, err);
    basalt_arrow_array_release(&cb);
    /* the condition's own message, with its position in the query, as a
     * filter gives it: where it runs is no concern of the reader's */
    if (st != BASALT_OK)
        return st;
    atomic_fetch_add_explicit(&j->residual_pairs, c->n, memory_order_relaxed);
    for (int64_t i = 0; i < k; i++) {
        c->p[i] = c->p[l->sel[i]];
        c->b[i] = c->b[l->sel[i]];
    }
    c->n = k;
    return BASALT_OK;
}

static inline void mark(struct basalt_qjoin *j, int64_t g)
{
    if (!atomic_load_explicit(&j->matched[g], memory_order_relaxed))
        atomic_store_explicit(&j->matched[g], 1, memory_order_relaxed);
}

/* What rows [lo, hi) emit given their (filtered) candidates. */
static basalt_status emit(struct basalt_qjoin_probe_local *l, int64_t lo, int64_t hi,
                          struct basalt_error *err)
{
    struct basalt_qjoin *j = l->j;
    struct pairs *c = &l->cand, *o = &l->out;
    basalt_status st;
    if (j->matched)
        for (int64_t k = 0; k < c->n; k++)
            mark(j, c->b[k]);
    switch (j->type) {
    case BASALT_QJOIN_INNER:
    case BASALT_QJOIN_RIGHT:
    case BASALT_QJOIN_CROSS:
        if (c->n == 0)
            return BASALT_OK;
        if ((st = reserve(o, c->n, err)) != BASALT_OK)
            return st;
        memcpy(o->p + o->n, c->p, (size_t)c->n * sizeof *c->p);
        memcpy(o->b + o->n, c->b, (size_t)c->n * sizeof *c->b);
        o->n += c->n;
        return BASALT_OK;
    case BASALT_QJOIN_RIGHT_SEMI:
    case BASALT_QJOIN_RIGHT_ANTI:
        return BASALT_OK; /* the marks are all */
    case BASALT_QJOIN_LEFT:
    case BASALT_QJOIN_FULL: {
        if ((st = reserve(o, c->n + (hi - lo), err)) != BASALT_OK)
            return st;
        int64_t k = 0;
        for (int64_t i = lo; i < hi; i++) {
            if (k < c->n && c->p[k] == i) {
                while (k < c->n && c->p[k] == i) {
                    push(o, i, c->b[k]);
                    k++;
                }
            } else {
                push(o, i, -1);
            }
        }
        return BASALT_OK;
    }
    default: { /* SEMI, ANTI */
        if ((st = reserve(o, hi - lo, err)) != BASALT_OK)
            return st;
        memset(l->hit, 0, (size_t)(hi - lo));
        for (int64_t k = 0; k < c->n; k++)
            l->hit[c->p[k] - lo] = 1;
        bool want = j->type == BASALT_QJOIN_SEMI;
        for (int64_t i = lo; i < hi; i++)
            if ((l->hit[i - lo] != 0) == want)
                push(o, i, -1);
        return BASALT_OK;
    }
    }
}

static basalt_status flush(struct basalt_qjoin_probe_local *l, const struct ArrowArray *batch,
                           struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct basalt_qjoin *j = l->j;
    struct pairs *o = &l->out;
    basalt_status st;
    if (!out->schema.release && (st = basalt_qjoin_output_schema(j, &out->schema, err)) != BASALT_OK)
        return st;
    struct ArrowArray a;
    st = gather_columns(j, batch, o->p, o->b, o->n, j->out_cols, j->n_out_cols, &a, err);
    o->n = 0;
    if (st != BASALT_OK)
        return st;
    return basalt_arrow_batches_append(out, &a, err);
}

basalt_status basalt_qjoin_probe(struct basalt_qjoin_probe_local *l,
                                 const struct ArrowArray *batch, struct basalt_arrow_batches *out,
                                 struct basalt_error *err)
{
    if (!l || !batch || !batch->release || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL or released probe batch");
    struct basalt_qjoin *j = l->j;
    if (batch->n_children != j->probe_schema.n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "join: probe batch with %lld columns (schema %lld)",
                                (long long)batch->n_children,
                                (long long)j->probe_schema.n_children);
    for (int k = 0; k < j->n_keys; k++)
        basalt_qj_col_init(&l->kc[k], batch, j->probe_keys[k], j->kt[k],
                           j->probe_schema.children[j->probe_keys[k]]->format);
    l->out.n = 0;
    basalt_status st = BASALT_OK;
    bool empty_build = j->n_build == 0;
    int64_t step = ROWS;
    if (j->table == BASALT_QJOIN_TABLE_NONE && j->n_build > 0) {
        step = FLUSH / j->n_build;
        if (step < 1)
            step = 1;
        if (step > ROWS)
            step = ROWS;
    }
    for (int64_t lo = 0; lo < batch->length && st == BASALT_OK; lo += step) {
        int64_t hi = lo + step < batch->length ? lo + step : batch->length;
        l->cand.n = 0;
        if (!empty_build)
            st = lookup(l, lo, hi, err);
        if (st == BASALT_OK && j->residual)
            st = filter_residual(l, batch, err);
        if (st == BASALT_OK)
            st = emit(l, lo, hi, err);
        if (st == BASALT_OK && l->out.n >= FLUSH)
            st = flush(l, batch, out, err);
    }
    if (st == BASALT_OK && l->out.n > 0)
        st = flush(l, batch, out, err);
    l->out.n = 0;
    return st;
}

basalt_status basalt_qjoin_unmatched(struct basalt_qjoin *j, struct basalt_arrow_batches *out,
                                     struct basalt_error *err)
{
    if (!j || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL argument");
    if (!j->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: unmatched before build_finish");
    if (!j->matched)
        return BASALT_OK;
    int64_t *pi = basalt_malloc(FLUSH * sizeof *pi), *bi = basalt_malloc(FLUSH * sizeof *bi);
    basalt_status st = pi && bi ? BASALT_OK : nomem(err);
    for (int64_t i = 0; i < FLUSH && st == BASALT_OK; i++)
        pi[i] = -1;
    /* RIGHT_SEMI keeps the matched rows, the others the rest; the two
     * RIGHT_ kinds have no probe columns, RIGHT and FULL's are NULL. */
    bool want = j->type == BASALT_QJOIN_RIGHT_SEMI;
    int64_t n = 0;
    for (int64_t g = 0; g <= j->n_build && st == BASALT_OK; g++) {
        if (g < j->n_build &&
            (atomic_load_explicit(&j->matched[g], memory_order_relaxed) != 0) == want)
            bi[n++] = g;
        if (n == FLUSH || (g == j->n_build && n > 0)) {
            if (!out->schema.release)
                st = basalt_qjoin_output_schema(j, &out->schema, err);
            struct ArrowArray a;
            if (st == BASALT_OK)
                st = gather_columns(j, NULL, pi, bi, n, j->out_cols, j->n_out_cols, &a, err);
            if (st == BASALT_OK)
                st = basalt_arrow_batches_append(out, &a, err);
            n = 0;
        }
    }
    basalt_free(pi);
    basalt_free(bi);
    return st;
}
