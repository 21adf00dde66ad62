/* Writing a result batch: key columns decoded from the merged tables' key
 * rows, one column per call finalised from its states or its sorted
 * collected values. */
#include <math.h>
#include <string.h>

#include "agg/agg_internal.h"

/* How many groups ahead the writers prefetch key rows and states. */
#define WRITE_AHEAD 16

/* One output column being written. */
struct ocol {
    struct ArrowArray *arr;
    uint8_t *valid;
    uint8_t *data;
    int64_t nulls;
    int width; /* bytes per value; 0 for bool, -1 for strings */
    bool large;
    int64_t *off64;
    int32_t *off32;
    struct basalt_buffer sbuf;
};

static basalt_status ocol_init(struct ocol *o, struct ArrowArray *arr, struct basalt_query_type t,
                               int64_t n, struct basalt_error *err)
{
    memset(o, 0, sizeof *o);
    o->arr = arr;
    enum qagg_phys p = basalt_qagg_phys(t);
    bool str = p == QP_STR;
    o->width = str ? -1 : p == QP_BOOL ? 0 : basalt_qagg_phys_width(p);
    o->large = str && t.large;
    basalt_status st = basalt_arrow_array_init(arr, str ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    arr->length = n;
    void *v, *d;
    size_t dsz = str ? (size_t)(n + 1) * (o->large ? 8 : 4)
                     : o->width ? (size_t)n * (size_t)o->width : (size_t)basalt_bitmap_bytes(n);
    st = basalt_arrow_array_allocate_buffer(arr, 0, (size_t)basalt_bitmap_bytes(n) + 1, &v, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(arr, 1, dsz + 1, &d, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(arr);
        return st;
    }
    o->valid = v;
    o->data = d;
    memset(o->valid, 0xff, (size_t)basalt_bitmap_bytes(n) + 1);
    memset(o->data, 0, dsz + 1);
    if (str) {
        o->off64 = d;
        o->off32 = d;
    }
    basalt_buffer_init(&o->sbuf);
    return BASALT_OK;
}

static void ocol_null(struct ocol *o, int64_t i)
{
    basalt_bitmap_set(o->valid, i, false);
    o->nulls++;
    if (o->width < 0) {
        if (o->large)
            o->off64[i + 1] = o->off64[i];
        else
            o->off32[i + 1] = o->off32[i];
    }
}

static basalt_status ocol_str(struct ocol *o, int64_t i, const char *p, int64_t n,
                              struct basalt_error *err)
{
    if (n > 0) {
        basalt_status st = basalt_buffer_append(&o->sbuf, p, (size_t)n, err);
        if (st != BASALT_OK)
            return st;
    }
    if (o->large) {
        o->off64[i + 1] = (int64_t)o->sbuf.size;
    } else {
        if (o->sbuf.size > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "aggregate: result strings over 2 GiB");
        o->off32[i + 1] = (int32_t)o->sbuf.size;
    }
    return BASALT_OK;
}

static basalt_status ocol_done(struct ocol *o, struct basalt_error *err)
{
    o->arr->null_count = o->nulls;
    basalt_status st = BASALT_OK;
    if (o->width < 0) {
        void *d = o->sbuf.data ? basalt_buffer_take(&o->sbuf) : basalt_aligned_alloc(64, 64);
        if (!d)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        st = basalt_arrow_array_set_buffer(o->arr, 2, d, err);
    }
    if (st == BASALT_OK && o->nulls == 0)
        st = basalt_arrow_array_set_buffer(o->arr, 0, NULL, err);
    return st;
}

/* Writes cell v of physical type p (the column's) at row i. */
static basalt_status ocol_cell(struct ocol *o, enum qagg_phys p, int64_t i,
                               const union qagg_cell *v, struct basalt_error *err)
{
    uint8_t *d = o->data;
    switch (p) {
    case QP_BOOL: basalt_bitmap_set(d, i, v->i != 0); break;
    case QP_I8: case QP_U8: d[i] = (uint8_t)v->u; break;
    case QP_I16: case QP_U16: { uint16_t x = (uint16_t)v->u; memcpy(d + 2 * i, &x, 2); break; }
    case QP_I32: case QP_U32: { uint32_t x = (uint32_t)v->u; memcpy(d + 4 * i, &x, 4); break; }
    case QP_I64: case QP_U64: memcpy(d + 8 * i, &v->u, 8); break;
    case QP_F32: { float x = (float)v->f; memcpy(d + 4 * i, &x, 4); break; }
    case QP_F64: memcpy(d + 8 * i, &v->f, 8); break;
    case QP_DEC: memcpy(d + 16 * i, &v->d, 16); break;
    case QP_IV: memcpy(d + 16 * i, &v->iv, 16); break;
    case QP_STR: return ocol_str(o, i, v->s.p, v->s.n, err);
    }
    return BASALT_OK;
}

static void put_double(struct ocol *o, int64_t i, double x)
{
    memcpy(o->data + 8 * i, &x, 8);
}

/* ------------------------------------------------------------ keys */

static basalt_status write_key(const struct basalt_qagg *a, int k,
                               struct basalt_qagg_local *const *parts, const uint32_t *rp,
                               const uint32_t *rg, int64_t n, struct ocol *o,
                               struct basalt_error *err)
{
    const struct qagg_keyinfo *ki = &a->keys[k];
    size_t w = (size_t)a->row_width;
    for (int64_t i = 0; i < n; i++) {
        /* Groups come in hash order, scattered over their tables. */
        if (i + WRITE_AHEAD < n)
            __builtin_prefetch(parts[rp[i + WRITE_AHEAD]]->rows + rg[i + WRITE_AHEAD] * w);
        const uint8_t *row = parts[rp[i]]->rows + rg[i] * w;
        uint64_t m;
        memcpy(&m, row + (k >> 6) * 8, 8);
        if (m >> (k & 63) & 1) {
            ocol_null(o, i);
            continue;
        }
        const uint8_t *src = row + ki->offset;
        if (ki->phys == QP_STR) {
            struct qagg_str s;
            memcpy(&s, src, sizeof s);
            const char *p = s.len <= QAGG_STR_INLINE ? (const char *)src + 4 : s.u.ptr;
            basalt_status st = ocol_str(o, i, p, s.len, err);
            if (st != BASALT_OK)
                return st;
        } else if (ki->phys == QP_BOOL) {
            basalt_bitmap_set(o->data, i, *src != 0);
        } else {
            memcpy(o->data + (size_t)i * (size_t)ki->width, src, (size_t)ki->width);
        }
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ aggregates */

static const qi128 dec38_limit = (qi128)10000000000000000000ull * (qi128)10000000000000000000ull;

static basalt_status put_sum_i(struct ocol *o, int64_t i, qi128 s, struct basalt_error *err)
{
    if (s >= dec38_limit || s <= -dec38_limit)
        return basalt_error_set(err, BASALT_LIMIT, "Overflow in SUM: result exceeds DECIMAL(38)");
    memcpy(o->data + 16 * i, &s, 16);
    return BASALT_OK;
}

static double var_of(double s_hi, double s_lo, double q_hi, double q_lo, int64_t n)
{
    /* M2 = Q - S*S/n in double-double arithmetic, so that a large mean does
     * not cancel the variance away. */
    double nn = (double)n;
    double p = s_hi * s_hi;
    double pe = fma(s_hi, s_hi, -p) + 2.0 * s_hi * s_lo;
    double q1 = p / nn;
    double r = (fma(-q1, nn, p) + pe) / nn; /* (p + pe) / n = q1 + r */
    double hi = q_hi, lo = q_lo;
    basalt_qagg_dd_add(&hi, &lo, -q1);
    lo -= r;
    double m2 = hi + lo;
    return m2 < 0 ? 0 : m2;
}

/* false: NULL (too few values); LIMIT for a result that is not finite (a
 * NaN or infinite input), DuckDB's "STDDEV_SAMP is out of range!". */
static basalt_status var_final(enum basalt_qagg_kind k, int64_t n, double m2, double *out,
                               bool *valid, struct basalt_error *err)
{
    bool samp = k == BASALT_QAGG_VAR_SAMP || k == BASALT_QAGG_STDDEV_SAMP;
    *valid = false;
    if (n == 0 || (samp && n < 2))
        return BASALT_OK;
    double v = m2 / (samp ? (double)(n - 1) : (double)n);
    *out = k == BASALT_QAGG_STDDEV_SAMP || k == BASALT_QAGG_STDDEV_POP ? sqrt(v) : v;
    if (!isfinite(*out)) {
        static const char *const names[] = {"STDDEV_SAMP", "STDDEV_POP", "VARSAMP", "VARPOP"};
        return basalt_error_set(err, BASALT_LIMIT, "%s is out of range!",
                                names[k - BASALT_QAGG_STDDEV_SAMP]);
    }
    *valid = true;
    return BASALT_OK;
}

static qi128 cell_i128(enum qagg_phys p, const union qagg_cell *v)
{
    switch (p) {
    case QP_U8: case QP_U16: case QP_U32: case QP_U64: return (qi128)v->u;
    case QP_DEC: return v->d;
    default: return v->i;
    }
}

/* The quantile of values v[0, n) (n > 0) sorted, or with at least the
 * ranks the call reads in place (basalt_qagg_select_ranks). */
static basalt_status put_quantile(const struct qagg_callinfo *ci, struct ocol *o, int64_t i,
                                  const union qagg_cell *v, int64_t n, struct basalt_error *err)
{
    enum qagg_phys ip = ci->in_phys, op = basalt_qagg_phys(ci->out);
    int64_t f, c;
    double d;
    basalt_qagg_quantile_ranks(ci, n, &f, &c, &d);
    if (basalt_qagg_quantile_disc(ci))
        return ocol_cell(o, op, i, &v[f], err);
    if (op == QP_F64 || op == QP_F32) {
        double lo = basalt_qagg_cell_double(ip, &v[f], ci->call.input.scale);
        double hi = basalt_qagg_cell_double(ip, &v[c], ci->call.input.scale);
        union qagg_cell r;
        r.f = f == c ? lo : lo + (hi - lo) * d;
        return ocol_cell(o, op, i, &r, err);
    }
    /* DECIMAL and TIMESTAMP: interpolate in the integer domain. */
    qi128 lo = cell_i128(ip, &v[f]), hi = cell_i128(ip, &v[c]);
    if (ci->call.input.id == BASALT_QUERY_TYPE_DATE) {
        lo *= 86400000000LL;
        hi *= 86400000000LL;
    }
    union qagg_cell r;
    memset(&r, 0, sizeof r);
    if (op == QP_DEC) {
        r.d = f == c ? lo : lo + (qi128)((double)(hi - lo) * d); /* toward the lower value */
    } else {
        /* A timestamp is rounded to the nearest microsecond, halves away
         * from zero, as DuckDB rounds lo + (hi - lo) * d. */
        r.i = f == c ? (int64_t)lo : llround((double)lo + (double)(hi - lo) * d);
    }
    return ocol_cell(o, op, i, &r, err);
}

/* hi + lo *= x, the product's error kept by an FMA (agg_state.c's
 * PRODUCT, for the collected values of DISTINCT). */
static void dd_mul(double *hi, double *lo, double x)
{
    double p = *hi * x;
    if (!isfinite(p) || p == 0) {
        *hi = p;
        *lo = 0;
        return;
    }
    double e = fma(*hi, x, -p) + *lo * x;
    double t = p + e;
    *lo = e - (t - p);
    *hi = t;
}

static basalt_status write_collected(const struct qagg_callinfo *ci, struct ocol *o, int64_t i,
                                     const union qagg_cell *v, int64_t n,
                                     struct basalt_error *err)
{
    enum qagg_phys p = ci->in_phys;
    union qagg_cell *u = NULL;
    basalt_status st = BASALT_OK;
    if (ci->call.distinct && n > 1) {
        u = basalt_malloc(sizeof *u * (size_t)n);
        if (!u)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        int64_t m = 0;
        for (int64_t k = 0; k < n; k++)
            if (m == 0 || !basalt_qagg_cell_eq(p, &u[m - 1], &v[k]))
                u[m++] = v[k];
        v = u;
        n = m;
    }
    int scale = ci->call.input.scale;
    switch (ci->call.kind) {
    case BASALT_QAGG_COUNT:
        memcpy(o->data + 8 * i, &n, 8);
        break;
    case BASALT_QAGG_SUM:
    case BASALT_QAGG_AVG:
        if (n == 0) {
            ocol_null(o, i);
        } else if (p == QP_F32 || p == QP_F64) {
            double hi = 0, lo = 0;
            for (int64_t k = 0; k < n; k++)
                basalt_qagg_dd_add(&hi, &lo, v[k].f);
            double s = isfinite(hi) ? hi + lo : hi;
            put_double(o, i, ci->call.kind == BASALT_QAGG_AVG ? s / (double)n : s);
        } else {
            qi128 s = 0;
            for (int64_t k = 0; k < n; k++)
                s += cell_i128(p, &v[k]);
            if (ci->call.kind == BASALT_QAGG_SUM)
                st = put_sum_i(o, i, s, err);
            else
                put_double(o, i, (double)s / (double)n /
                                     (p == QP_DEC ? (double)basalt_qpow10(scale) : 1.0));
        }
        break;
    case BASALT_QAGG_STDDEV_SAMP:
    case BASALT_QAGG_STDDEV_POP:
    case BASALT_QAGG_VAR_SAMP:
    case BASALT_QAGG_VAR_POP: {
        double sh = 0, sl = 0, qh = 0, ql = 0, r = 0;
        bool ok;
        for (int64_t k = 0; k < n; k++) {
            double x = basalt_qagg_cell_double(p, &v[k], scale), q = x * x;
            basalt_qagg_dd_add(&sh, &sl, x);
            basalt_qagg_dd_add(&qh, &ql, q);
            ql += fma(x, x, -q);
        }
        st = var_final(ci->call.kind, n, var_of(sh, sl, qh, ql, n), &r, &ok, err);
        if (ok)
            put_double(o, i, r);
        else
            ocol_null(o, i);
        break;
    }
    case BASALT_QAGG_STRING_AGG:
        if (n == 0) {
            ocol_null(o, i);
            break;
        }
        for (int64_t k = 0; k < n && st == BASALT_OK; k++) {
            union qagg_cell piece = v[k];
            if (ci->call.ordered)
                basalt_qagg_keyed_piece(&v[k], &piece.s.p, &piece.s.n);
            if (k > 0 && ci->sep_len)
                st = basalt_buffer_append(&o->sbuf, ci->separator, ci->sep_len, err);
            if (st == BASALT_OK && piece.s.n)
                st = basalt_buffer_append(&o->sbuf, piece.s.p, (size_t)piece.s.n, err);
        }
        if (st == BASALT_OK)
            st = ocol_str(o, i, NULL, 0, err);
        break;
    case BASALT_QAGG_PRODUCT: {
        /* DISTINCT: the values in their sorted order, in double-double */
        if (n == 0) {
            ocol_null(o, i);
            break;
        }
        double hi = basalt_qagg_cell_double(p, &v[0], scale), lo = 0;
        for (int64_t k = 1; k < n; k++)
            dd_mul(&hi, &lo, basalt_qagg_cell_double(p, &v[k], scale));
        put_double(o, i, isfinite(hi) ? hi + lo : hi);
        break;
    }
    case BASALT_QAGG_BIT_XOR: { /* DISTINCT */
        union qagg_cell r;
        memset(&r, 0, sizeof r);
        for (int64_t k = 0; k < n; k++)
            r.u ^= v[k].u;
        if (n == 0)
            ocol_null(o, i);
        else
            st = ocol_cell(o, p, i, &r, err);
        break;
    }
    case BASALT_QAGG_MODE: {
        /* the longest run of equal values; among runs as long, the first
         * (the smallest value) */
        if (n == 0) {
            ocol_null(o, i);
            break;
        }
        int64_t best = 0, best_len = 0;
        for (int64_t k = 0; k < n;) {
            int64_t e = k + 1;
            while (e < n && basalt_qagg_cell_eq(p, &v[k], &v[e]))
                e++;
            if (e - k > best_len) {
                best = k;
                best_len = e - k;
            }
            k = e;
        }
        st = ocol_cell(o, p, i, &v[best], err);
        break;
    }
    default: /* MEDIAN, QUANTILE_* */
        if (n == 0)
            ocol_null(o, i);
        else
            st = put_quantile(ci, o, i, v, n, err);
        break;
    }
    basalt_free(u);
    return st;
}

static basalt_status write_call(const struct basalt_qagg *a, int c,
                                struct basalt_qagg_local *const *parts, const uint32_t *rp,
                                const uint32_t *rg, const int64_t *const *coll_start, int64_t n,
                                struct ocol *o, struct basalt_error *err)
{
    const struct qagg_callinfo *ci = &a->calls[c];
    enum basalt_qagg_kind k = ci->call.kind;
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < n && st == BASALT_OK; i++) {
        if (i + WRITE_AHEAD < n && ci->state_size)
            __builtin_prefetch(parts[rp[i + WRITE_AHEAD]]->states[c] +
                               (size_t)rg[i + WRITE_AHEAD] * ci->state_size);
        const struct basalt_qagg_local *t = parts[rp[i]];
        uint32_t g = rg[i];
        const uint8_t *s = t->states[c] + (size_t)g * ci->state_size;
        switch (ci->state) {
        case QS_COUNT: memcpy(o->data + 8 * i, s, 8); break;
        case QS_SUM_I: {
            const struct qagg_sum_i *x = (const struct qagg_sum_i *)s;
            if (x->n == 0)
                ocol_null(o, i);
            else if (k == BASALT_QAGG_SUM)
                st = put_sum_i(o, i, x->sum, err);
            else
                put_double(o, i, (double)x->sum / (double)x->n /
                                     (ci->in_phys == QP_DEC
                                          ? (double)basalt_qpow10(ci->call.input.scale)
                                          : 1.0));
            break;
        }
        case QS_SUM_F: {
            const struct qagg_sum_f *x = (const struct qagg_sum_f *)s;
            double sum = isfinite(x->hi) ? x->hi + x->lo : x->hi;
            if (x->n == 0)
                ocol_null(o, i);
            else
                put_double(o, i, k == BASALT_QAGG_SUM ? sum : sum / (double)x->n);
            break;
        }
        case QS_VAR: {
            const struct qagg_var *x = (const struct qagg_var *)s;
            double r = 0;
            bool ok;
            /* (equal infinities are no exception: their variance is out of range) */
            double m2 = x->varied || !isfinite(x->first)
                            ? var_of(x->s_hi, x->s_lo, x->q_hi, x->q_lo, x->n)
                            : 0;
            st = var_final(k, x->n, m2, &r, &ok, err);
            if (ok)
                put_double(o, i, r);
            else
                ocol_null(o, i);
            break;
        }
        case QS_MINMAX: {
            const struct qagg_minmax *x = (const struct qagg_minmax *)s;
            if (!x->has)
                ocol_null(o, i);
            else {
                union qagg_cell v = basalt_qagg_minmax_value(x);
                st = ocol_cell(o, ci->in_phys, i, &v, err);
            }
            break;
        }
        case QS_BOOL:
            if (!(*s & 1))
                ocol_null(o, i);
            else
                basalt_bitmap_set(o->data, i,
                                  k == BASALT_QAGG_BOOL_OR ? (*s & 2) != 0 : (*s & 2) == 0);
            break;
        case QS_COLLECT: {
            const int64_t *start = coll_start[(size_t)rp[i] * (size_t)a->n_calls + (size_t)c];
            st = write_collected(ci, o, i, t->coll[c].v + start[g], start[g + 1] - start[g], err);
            break;
        }
        case QS_ARG: {
            const struct qagg_arg *x = (const struct qagg_arg *)s;
            if (x->key.has == QAGG_MM_NONE || x->x_null) {
                ocol_null(o, i);
            } else {
                union qagg_cell v = basalt_qagg_minmax_value(&x->val);
                st = ocol_cell(o, ci->in_phys, i, &v, err);
            }
            break;
        }
        case QS_PROD: {
            const struct qagg_prod *x = (const struct qagg_prod *)s;
            if (x->n == 0)
                ocol_null(o, i);
            else
                put_double(o, i, isfinite(x->hi) ? x->hi + x->lo : x->hi);
            break;
        }
        case QS_BITS: {
            const struct qagg_bits *x = (const struct qagg_bits *)s;
            union qagg_cell v;
            memset(&v, 0, sizeof v);
            v.u = x->v;
            if (x->n == 0)
                ocol_null(o, i);
            else
                st = ocol_cell(o, ci->in_phys, i, &v, err);
            break;
        }
        case QS_COMOM: {
            int64_t pairs; /* n leads both state layouts */
            memcpy(&pairs, s, sizeof pairs);
            if (k == BASALT_QAGG_REGR_COUNT) {
                uint32_t cnt = (uint32_t)pairs; /* DuckDB's UINTEGER */
                memcpy(o->data + 4 * i, &cnt, 4);
                break;
            }
            double r = 0;
            bool ok;
            st = basalt_qagg_comom_final(ci, s, &r, &ok, err);
            if (ok)
                put_double(o, i, r);
            else
                ocol_null(o, i);
            break;
        }
        }
    }
    return st;
}

basalt_status basalt_qagg_write(const struct basalt_qagg *agg,
                                struct basalt_qagg_local *const *parts,
                                const uint32_t *ref_part, const uint32_t *ref_gid,
                                const int64_t *const *coll_start, int64_t n,
                                struct ArrowArray *out, struct basalt_error *err)
{
    int nc = agg->n_keys + agg->n_calls;
    basalt_status st = basalt_arrow_array_init(out, 1, nc, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    for (int i = 0; i < nc && st == BASALT_OK; i++) {
        if (i >= agg->n_keys && agg->calls[i - agg->n_keys].call.kind == BASALT_QAGG_ARRAY_AGG) {
            st = basalt_qagg_write_list(agg, i - agg->n_keys, parts, ref_part, ref_gid,
                                        coll_start, n, out->children[i], err);
            continue;
        }
        struct ocol o;
        struct basalt_query_type t = i < agg->n_keys ? agg->keys[i].type
                                                     : agg->calls[i - agg->n_keys].out;
        st = ocol_init(&o, out->children[i], t, n, err);
        if (st != BASALT_OK)
            break;
        if (i < agg->n_keys)
            st = write_key(agg, i, parts, ref_part, ref_gid, n, &o, err);
        else
            st = write_call(agg, i - agg->n_keys, parts, ref_part, ref_gid, coll_start, n, &o,
                            err);
        if (st == BASALT_OK)
            st = ocol_done(&o, err);
        basalt_buffer_reset(&o.sbuf);
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}
