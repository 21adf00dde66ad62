/* The two-argument aggregates: CORR, COVAR_POP/SAMP and REGR_* over the pairs
 * (y, x) where neither is NULL, with DuckDB's results (its NULLs, NaNs and
 * "out of range" errors).
 *
 * A group keeps co-moments in one pass: the count and the sums of the values
 * shifted by the group's first pair (kx, ky), sum (x - kx), sum (x - kx)^2,
 * sum (x - kx)(y - ky) and the same for y, each a double-double. The shift
 * is what keeps a large mean (values near 1e9 with a spread of 1) from
 * cancelling the co-moment away: the sums only see the spread, as Welford's
 * running means do in DuckDB. Being one of the group's own values, the shift
 * is never far out: n (x - mean)^2 <= n sum (x - mean)^2 for x = kx, so
 * n sxx - sx^2 cancels at most a factor of n, even when the first value is
 * an outlier. Two states merge by moving one's sums to the
 * other's shift (Chan et al.: sum (x - k')^2 = sum (x - k)^2
 * + 2 e sum (x - k) + n e^2 with e = k - k'), then adding them.
 *
 * Why not Welford's running means, which DuckDB uses: the output must be the
 * same for any worker count and split of the input (docs/QUERY.md), and a
 * running mean rounds at every row (S/3 has no finite binary form), so two
 * orders leave different last bits; when the answer is exactly halfway
 * between two doubles (the mean of four values with few bits often is)
 * those bits decide the rounding, even in double-double. The shifted sums
 * have no division: for values with a fixed grain (decimals, integers, a
 * column near one magnitude) every shifted value, square and sum is a whole
 * number of grains below 2^104 of them, so each double-double operation here
 * is exact, every order gives the same sums and the results round alike.
 * Data without such a grain round at about 2^-104 of the sums, and land on a
 * tie only by chance. Constant data shift to exact zeros: a zero variance is
 * exactly zero, as DuckDB's.
 *
 * The row loop is compiled twice, the second for CPUs with FMA (fma() is
 * otherwise a libm call); both compute the same correctly rounded products. */
#include <math.h>
#include <string.h>

#include "agg/agg_internal.h"

/* ------------------------------------------------------------ double-double */

/* Inlined everywhere, so that the FMA copy of the row loop gets them too. */
#define DD static inline __attribute__((always_inline))

/* s + e = a + b exactly. */
DD void two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bp = x - a;
    *e = (a - (x - bp)) + (b - bp);
    *s = x;
}

/* m += t: exact when the operands and the sum are whole numbers of one grain
 * below about 2^104 of them (the low words, their sum and the error of the
 * high words' sum are then whole numbers of grains below 2^53 of them). The
 * last step is a full two_sum: after cancellation e may outweigh s. */
DD void dd_add(double m[2], const double t[2])
{
    double s, e;
    two_sum(m[0], t[0], &s, &e);
    two_sum(s, e + (m[1] + t[1]), &m[0], &m[1]);
}

/* m += a * b for doubles, the product exact (fma). */
DD void dd_add_prod(double m[2], double a, double b)
{
    double p = a * b, t[2] = {p, fma(a, b, -p)};
    dd_add(m, t);
}

/* m += a * b for double-doubles; the low words are nearly always 0 (x - kx
 * needs two doubles only when x and kx are far apart in magnitude). */
DD void dd_add_mul(double m[2], const double a[2], const double b[2])
{
    dd_add_prod(m, a[0], b[0]);
    if (a[1] != 0 || b[1] != 0) {
        dd_add_prod(m, a[0], b[1]);
        dd_add_prod(m, a[1], b[0]);
        dd_add_prod(m, a[1], b[1]);
    }
}

/* ------------------------------------------------------------ updates */

double basalt_qagg_cell_double(enum qagg_phys p, const union qagg_cell *v, int scale)
{
    switch (p) {
    case QP_U8: case QP_U16: case QP_U32: case QP_U64: return (double)v->u;
    case QP_F32: case QP_F64: return v->f;
    case QP_DEC: return (double)v->d / (double)basalt_qpow10(scale);
    default: return (double)v->i;
    }
}

/* Value i of a numeric column as a double (DuckDB casts the arguments to
 * DOUBLE the same way). */
DD double load(const struct qagg_col *c, enum qagg_phys p, int scale, int64_t i)
{
    int64_t k = c->off + i;
    switch (p) {
    case QP_F64: return ((const double *)c->data)[k];
    case QP_I32: return ((const int32_t *)c->data)[k];
    case QP_I64: return (double)((const int64_t *)c->data)[k];
    case QP_F32: return ((const float *)c->data)[k];
    case QP_I16: return ((const int16_t *)c->data)[k];
    case QP_I8: return ((const int8_t *)c->data)[k];
    default: {
        union qagg_cell v;
        basalt_qagg_cell_get(c, p, i, &v);
        return basalt_qagg_cell_double(p, &v, scale);
    }
    }
}

/* One pair into state s. */
DD void put(struct qagg_comom *s, double y, double x)
{
    if (s->n++ == 0) {
        s->kx = x;
        s->ky = y;
    }
    double dx[2], dy[2];
    two_sum(x, -s->kx, &dx[0], &dx[1]);
    two_sum(y, -s->ky, &dy[0], &dy[1]);
    dd_add(s->sx, dx);
    dd_add(s->sy, dy);
    dd_add_mul(s->sxx, dx, dx);
    dd_add_mul(s->syy, dy, dy);
    dd_add_mul(s->sxy, dx, dy);
}

#define COMOM_LOOP                                                                       \
    do {                                                                                 \
        enum qagg_phys py = ci->in_phys, px = ci->in2_phys;                              \
        int sy = ci->call.input.scale, sx = ci->call.input2.scale;                       \
        if (!y->valid && !x->valid) {                                                    \
            for (int64_t i = 0; i < n; i++)                                              \
                put(&s[gids[i]], load(y, py, sy, i), load(x, px, sx, i));                \
        } else {                                                                         \
            for (int64_t i = 0; i < n; i++)                                              \
                if (basalt_qagg_valid(y, i) && basalt_qagg_valid(x, i))                  \
                    put(&s[gids[i]], load(y, py, sy, i), load(x, px, sx, i));            \
        }                                                                                \
    } while (0)

static void update_generic(const struct qagg_callinfo *ci, struct qagg_comom *s,
                           const struct qagg_col *y, const struct qagg_col *x,
                           const uint32_t *gids, int64_t n)
{
    COMOM_LOOP;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) static void update_fma(const struct qagg_callinfo *ci,
                                                      struct qagg_comom *s,
                                                      const struct qagg_col *y,
                                                      const struct qagg_col *x,
                                                      const uint32_t *gids, int64_t n)
{
    COMOM_LOOP;
}
#endif

/* ------------------------------------------------------------ integer pairs
 *
 * Both arguments integers of at most 32 bits (H2O's corr(v1, v2)): with the
 * same shift, every shifted value is below 2^33, every square and product
 * below 2^66, so the five sums are exact in 128-bit integers, in any order,
 * with two adds a sum instead of a double-double's dozen dependent flops.
 * They are exactly the double-double sums of the generic path whenever those
 * are exact (below 2^104), so the results are the same bits. The arithmetic
 * is unsigned (wrapping): a merge's intermediate terms may pass 2^127 while
 * the true sums, bounded by n 2^66, do not below 2^60 pairs. */

static bool small_int(enum qagg_phys p)
{
    return p == QP_I8 || p == QP_I16 || p == QP_I32 || p == QP_U8 || p == QP_U16 || p == QP_U32;
}

bool basalt_qagg_comom_int(const struct qagg_callinfo *ci)
{
    return small_int(ci->in_phys) && small_int(ci->in2_phys);
}

static inline int64_t load_int(const struct qagg_col *c, enum qagg_phys p, int64_t i)
{
    int64_t k = c->off + i;
    switch (p) {
    case QP_I32: return ((const int32_t *)c->data)[k];
    case QP_I16: return ((const int16_t *)c->data)[k];
    case QP_I8: return ((const int8_t *)c->data)[k];
    case QP_U32: return ((const uint32_t *)c->data)[k];
    case QP_U16: return ((const uint16_t *)c->data)[k];
    default: return ((const uint8_t *)c->data)[k];
    }
}

static inline __attribute__((always_inline)) void put_int(struct qagg_comom_i *s, int64_t y,
                                                           int64_t x)
{
    if (s->n++ == 0) {
        s->kx = x;
        s->ky = y;
    }
    int64_t dx = x - s->kx, dy = y - s->ky;
    s->sx += (qu128)(__int128)dx;
    s->sy += (qu128)(__int128)dy;
    s->sxx += (qu128)((__int128)dx * dx);
    s->syy += (qu128)((__int128)dy * dy);
    s->sxy += (qu128)((__int128)dx * dy);
}

static void update_int(const struct qagg_callinfo *ci, struct qagg_comom_i *s,
                       const struct qagg_col *y, const struct qagg_col *x, const uint32_t *gids,
                       int64_t n)
{
    enum qagg_phys py = ci->in_phys, px = ci->in2_phys;
    if (py == QP_I32 && px == QP_I32 && !y->valid && !x->valid) {
        const int32_t *yv = (const int32_t *)y->data + y->off;
        const int32_t *xv = (const int32_t *)x->data + x->off;
        for (int64_t i = 0; i < n; i++)
            put_int(&s[gids[i]], yv[i], xv[i]);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        if (basalt_qagg_valid(y, i) && basalt_qagg_valid(x, i))
            put_int(&s[gids[i]], load_int(y, py, i), load_int(x, px, i));
}

/* s's sums moved to d's shifts and added (the formulas of the double-double
 * merge below, in integers). */
static void combine_int(struct qagg_comom_i *d, const struct qagg_comom_i *s)
{
    if (s->n == 0)
        return;
    if (d->n == 0) {
        *d = *s;
        return;
    }
    qu128 n = (qu128)s->n, ex = (qu128)(__int128)(s->kx - d->kx),
          ey = (qu128)(__int128)(s->ky - d->ky);
    d->sx += s->sx + n * ex;
    d->sy += s->sy + n * ey;
    d->sxx += s->sxx + 2 * ex * s->sx + n * ex * ex;
    d->syy += s->syy + 2 * ey * s->sy + n * ey * ey;
    d->sxy += s->sxy + ex * s->sy + ey * s->sx + n * ex * ey;
    d->n += s->n;
}

/* v as a double-double in the generic path's normal form (hi the rounded
 * value, lo the exact rest) while the rest fits a double, as it does below
 * 2^106. */
static void to_dd(qu128 u, double out[2])
{
    __int128 v = (__int128)u;
    double hi = (double)v;
    out[0] = hi;
    out[1] = fabs(hi) < 0x1p125 ? (double)(v - (__int128)hi) : 0;
}

static void comom_of_int(const struct qagg_comom_i *s, struct qagg_comom *d)
{
    d->n = s->n;
    d->kx = (double)s->kx;
    d->ky = (double)s->ky;
    to_dd(s->sx, d->sx);
    to_dd(s->sy, d->sy);
    to_dd(s->sxx, d->sxx);
    to_dd(s->syy, d->syy);
    to_dd(s->sxy, d->sxy);
}

/* ------------------------------------------------------------ dispatch */

void basalt_qagg_comom_update(const struct qagg_callinfo *ci, void *states,
                              const struct qagg_col *y, const struct qagg_col *x,
                              const uint32_t *gids, int64_t n)
{
    if (ci->comom_int) {
        update_int(ci, states, y, x, gids, n);
        return;
    }
    struct qagg_comom *s = states;
#if defined(__x86_64__) && defined(__GNUC__)
    if (basalt_cpu_features()->fma) {
        update_fma(ci, s, y, x, gids, n);
        return;
    }
#endif
    update_generic(ci, s, y, x, gids, n);
}

/* ------------------------------------------------------------ merging */

static void combine_dd(struct qagg_comom *d, const struct qagg_comom *s)
{
    if (s->n == 0)
        return;
    if (d->n == 0) {
        *d = *s;
        return;
    }
    /* s's sums moved to d's shifts, e = k_s - k_d:
     *   sum (x - kd)           = sx + n ex
     *   sum (x - kd)^2         = sxx + 2 ex sx + n ex^2
     *   sum (x - kd)(y - ld)   = sxy + ex sy + ey sx + n ex ey */
    double n[2] = {(double)s->n, 0}, ex[2], ey[2], ex2[2], t[2], e2[2];
    two_sum(s->kx, -d->kx, &ex[0], &ex[1]);
    two_sum(s->ky, -d->ky, &ey[0], &ey[1]);
    ex2[0] = 2 * ex[0];
    ex2[1] = 2 * ex[1];
    memcpy(t, s->sx, sizeof t);
    dd_add_mul(t, n, ex);
    dd_add(d->sx, t);
    memcpy(t, s->sy, sizeof t);
    dd_add_mul(t, n, ey);
    dd_add(d->sy, t);
    memcpy(t, s->sxx, sizeof t);
    dd_add_mul(t, ex2, s->sx);
    memset(e2, 0, sizeof e2);
    dd_add_mul(e2, ex, ex);
    dd_add_mul(t, n, e2);
    dd_add(d->sxx, t);
    double ey2[2] = {2 * ey[0], 2 * ey[1]};
    memcpy(t, s->syy, sizeof t);
    dd_add_mul(t, ey2, s->sy);
    memset(e2, 0, sizeof e2);
    dd_add_mul(e2, ey, ey);
    dd_add_mul(t, n, e2);
    dd_add(d->syy, t);
    memcpy(t, s->sxy, sizeof t);
    dd_add_mul(t, ex, s->sy);
    dd_add_mul(t, ey, s->sx);
    memset(e2, 0, sizeof e2);
    dd_add_mul(e2, ex, ey);
    dd_add_mul(t, n, e2);
    dd_add(d->sxy, t);
    d->n += s->n;
}

void basalt_qagg_comom_combine(const struct qagg_callinfo *ci, void *d, const void *s)
{
    if (ci->comom_int)
        combine_int(d, s);
    else
        combine_dd(d, s);
}

/* ------------------------------------------------------------ results */

/* n sum (a - ma)(b - mb) = n sab - sa sb for sums of values shifted by
 * any constants: the same number whatever the shifts, exact for values with
 * a grain (see the top), so rounding it once gives every order of the rows
 * the same double. A negative square (rounding) is 0. */
static double comoment_n(const double sab[2], const double sa[2], const double sb[2], double n,
                         bool square)
{
    double r[2] = {0, 0}, nn[2] = {n, 0}, na[2] = {-sa[0], -sa[1]};
    dd_add_mul(r, nn, sab);
    dd_add_mul(r, na, sb);
    double c = r[0] + r[1];
    return square && c < 0 ? 0 : c;
}

/* The sum of the values, n k + s, rounded once (exact likewise). */
static double sum_of(double k, const double s[2], double n)
{
    double r[2] = {s[0], s[1]};
    dd_add_prod(r, n, k);
    return r[0] + r[1];
}

static basalt_status out_of_range(const char *what, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_LIMIT, "%s is out of range!", what);
}

/* DuckDB's CORR from the population covariance and standard deviations. */
static basalt_status corr_of(double cov, double vx, double vy, double *out,
                             struct basalt_error *err)
{
    double sx = sqrt(vx), sy = sqrt(vy);
    if (!isfinite(sx))
        return out_of_range("STDDEV_POP for X", err);
    if (!isfinite(sy))
        return out_of_range("STDDEV_POP for Y", err);
    *out = sx * sy != 0 ? cov / (sx * sy) : NAN;
    return BASALT_OK;
}

basalt_status basalt_qagg_comom_final(const struct qagg_callinfo *ci, const void *state,
                                      double *out, bool *valid, struct basalt_error *err)
{
    struct qagg_comom conv;
    const struct qagg_comom *s = state;
    if (ci->comom_int) {
        comom_of_int(state, &conv);
        s = &conv;
    }
    enum basalt_qagg_kind k = ci->call.kind;
    int64_t n = s->n;
    *valid = false;
    if (k == BASALT_QAGG_REGR_COUNT) {
        *out = (double)n;
        *valid = true;
        return BASALT_OK;
    }
    if (n == 0)
        return BASALT_OK;
    /* Each from numbers that do not depend on the order of the rows (the
     * sums above), with DuckDB's formulas. */
    double nn = (double)n;
    double sxx = comoment_n(s->sxx, s->sx, s->sx, nn, true) / nn;
    double syy = comoment_n(s->syy, s->sy, s->sy, nn, true) / nn;
    double sxy = comoment_n(s->sxy, s->sx, s->sy, nn, false) / nn;
    double mx = sum_of(s->kx, s->sx, nn) / nn, my = sum_of(s->ky, s->sy, nn) / nn;
    double cov = sxy / nn;
    /* DuckDB: a population variance of one value is 0, whatever the value. */
    double vx = n > 1 ? sxx / nn : 0, vy = n > 1 ? syy / nn : 0;
    double r = 0, slope;
    basalt_status st = BASALT_OK;
    switch (k) {
    case BASALT_QAGG_COVAR_POP: r = cov; break;
    case BASALT_QAGG_COVAR_SAMP:
        if (n < 2)
            return BASALT_OK;
        r = sxy / (nn - 1);
        break;
    case BASALT_QAGG_CORR: st = corr_of(cov, vx, vy, &r, err); break;
    case BASALT_QAGG_REGR_SLOPE:
    case BASALT_QAGG_REGR_INTERCEPT:
        if (!isfinite(vx))
            return out_of_range("VARPOP", err);
        slope = vx != 0 ? cov / vx : NAN;
        if (k == BASALT_QAGG_REGR_SLOPE)
            r = slope;
        else if (isnan(slope))
            return BASALT_OK; /* DuckDB: a NaN slope makes the intercept NULL */
        else
            r = my - slope * mx;
        break;
    case BASALT_QAGG_REGR_R2:
        if (!isfinite(vx))
            return out_of_range("VARPOP(X)", err);
        if (vx == 0)
            return BASALT_OK;
        if (!isfinite(vy))
            return out_of_range("VARPOP(Y)", err);
        if (vy == 0) {
            r = 1;
            break;
        }
        st = corr_of(cov, vx, vy, &r, err);
        r = pow(r, 2);
        break;
    case BASALT_QAGG_REGR_AVGX: r = mx; break;
    case BASALT_QAGG_REGR_AVGY: r = my; break;
    case BASALT_QAGG_REGR_SXX:
    case BASALT_QAGG_REGR_SYY: {
        double v = k == BASALT_QAGG_REGR_SXX ? vx : vy;
        if (!isfinite(v))
            return out_of_range("VARPOP", err);
        r = nn * v;
        break;
    }
    case BASALT_QAGG_REGR_SXY: r = nn * cov; break;
    default: return basalt_error_set(err, BASALT_INTERNAL, "aggregate: not a two-argument kind");
    }
    if (st != BASALT_OK)
        return st;
    /* One NaN: which of several NaNs (or -K's, sign flipped) an operation
     * passes on depends on the order of the rows and the compiler's operand
     * order, and the sign would show in the output. */
    *out = isnan(r) ? NAN : r;
    *valid = true;
    return BASALT_OK;
}
