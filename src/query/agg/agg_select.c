/* Quantiles by selection: MEDIAN and QUANTILE_CONT/DISC read, per group,
 * the values at one or two ranks of the sorted order, so a group's values
 * need not be sorted, only partitioned around those ranks (quickselect,
 * basalt_qselect_u64: expected O(n) against the sort's O(n log n)
 * comparisons through the generic cell comparator). Numeric values are selected as 64-bit keys
 * whose unsigned order is basalt_qagg_cell_cmp's: NaN above everything,
 * -0.0 before 0.0. */
#include <math.h>
#include <string.h>

#include "agg/agg_internal.h"
#include "sort/sort.h"

bool basalt_qagg_quantile_disc(const struct qagg_callinfo *ci)
{
    enum qagg_phys p = ci->in_phys;
    return ci->call.kind == BASALT_QAGG_QUANTILE_DISC ||
           (ci->call.kind == BASALT_QAGG_MEDIAN && (p == QP_BOOL || p == QP_IV || p == QP_STR));
}

void basalt_qagg_quantile_ranks(const struct qagg_callinfo *ci, int64_t n, int64_t *lo,
                                int64_t *hi, double *frac)
{
    double q = ci->call.kind == BASALT_QAGG_MEDIAN ? 0.5 : ci->call.quantile;
    if (basalt_qagg_quantile_disc(ci)) {
        /* DuckDB's index: max(1, n - floor(n - n * q)) - 1 */
        int64_t fl = (int64_t)floor((double)n - (double)n * q);
        *lo = *hi = (n - fl > 1 ? n - fl : 1) - 1;
        *frac = 0;
        return;
    }
    double rn = (double)(n - 1) * q;
    *lo = (int64_t)floor(rn);
    *hi = (int64_t)ceil(rn);
    *frac = rn - (double)*lo;
}

void basalt_qagg_call_quantile_ranks(const struct basalt_qagg_call *call, int64_t n, int64_t *lo,
                                     int64_t *hi, double *frac, bool *discrete)
{
    struct qagg_callinfo ci;
    memset(&ci, 0, sizeof ci);
    ci.call = *call;
    ci.in_phys = basalt_qagg_phys(call->input);
    *discrete = basalt_qagg_quantile_disc(&ci);
    basalt_qagg_quantile_ranks(&ci, n, lo, hi, frac);
}

bool basalt_qagg_selects(const struct qagg_callinfo *ci)
{
    enum basalt_qagg_kind k = ci->call.kind;
    return (k == BASALT_QAGG_MEDIAN || k == BASALT_QAGG_QUANTILE_CONT ||
            k == BASALT_QAGG_QUANTILE_DISC) &&
           !ci->call.distinct && ci->in_phys != QP_DEC && ci->in_phys != QP_IV &&
           ci->in_phys != QP_STR;
}

#define SIGN_BIT 0x8000000000000000ull

static uint64_t key_of(enum qagg_phys p, const union qagg_cell *v)
{
    switch (p) {
    case QP_U8: case QP_U16: case QP_U32: case QP_U64: return v->u;
    case QP_F32: case QP_F64: {
        if (isnan(v->f))
            return UINT64_MAX; /* every NaN equal, above +inf */
        uint64_t b;
        memcpy(&b, &v->f, 8);
        return b & SIGN_BIT ? ~b : b | SIGN_BIT;
    }
    default: return (uint64_t)v->i ^ SIGN_BIT;
    }
}

static void cell_of(enum qagg_phys p, uint64_t k, union qagg_cell *v)
{
    memset(v, 0, sizeof *v);
    switch (p) {
    case QP_U8: case QP_U16: case QP_U32: case QP_U64: v->u = k; break;
    case QP_F32: case QP_F64: {
        uint64_t b = k == UINT64_MAX ? 0x7ff8000000000000ull : k & SIGN_BIT ? k & ~SIGN_BIT : ~k;
        memcpy(&v->f, &b, 8);
        break;
    }
    default: v->i = (int64_t)(k ^ SIGN_BIT); break;
    }
}

void basalt_qagg_select_ranks(const struct qagg_callinfo *ci, union qagg_cell *v, int64_t n,
                              uint64_t *scratch)
{
    if (n < 2)
        return;
    int64_t lo, hi;
    double frac;
    basalt_qagg_quantile_ranks(ci, n, &lo, &hi, &frac);
    enum qagg_phys p = ci->in_phys;
    for (int64_t i = 0; i < n; i++)
        scratch[i] = key_of(p, &v[i]);
    basalt_qselect_u64(scratch, n, lo);
    uint64_t at_hi = scratch[lo];
    if (hi > lo) /* the next rank: the smallest of what lies above */
        for (int64_t i = lo + 1; i < n; i++)
            if (i == lo + 1 || scratch[i] < at_hi)
                at_hi = scratch[i];
    cell_of(p, scratch[lo], &v[lo]);
    cell_of(p, at_hi, &v[hi]);
}
