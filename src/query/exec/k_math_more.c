/* More math kernels, as DuckDB computes them: log2, cbrt, degrees, radians,
 * the trigonometric functions with DuckDB's domain errors, log(b, x), even,
 * isnan/isinf/isfinite, gcd, lcm, bit_count, xor; and greatest/least over
 * any comparable type. */
#include <math.h>
#include <string.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

#define PI 3.141592653589793

/* DuckDB's log operators refuse zero and negatives (NaN passes). */
static const char *log_domain(double v)
{
    if (v < 0)
        return "cannot take logarithm of a negative number";
    return v == 0 ? "cannot take logarithm of zero" : NULL;
}

/* even(x): x rounded away from zero to the next even integer (DuckDB's
 * EvenOperator, step by step). */
static double even(double v)
{
    double r = v >= 0 ? ceil(v) : -ceil(-v);
    if (floor(r / 2) * 2 != r)
        r += v >= 0 ? 1 : -1;
    return r;
}

static double unary(enum qop op, double v)
{
    switch (op) {
    case QOP_LOG2: return log2(v);
    case QOP_CBRT: return cbrt(v);
    case QOP_DEGREES: return v * (180 / PI);
    case QOP_RADIANS: return v * (PI / 180);
    case QOP_SIN: return sin(v);
    case QOP_COS: return cos(v);
    case QOP_TAN: return tan(v);
    case QOP_ASIN: return asin(v);
    case QOP_ACOS: return acos(v);
    case QOP_ATAN: return atan(v);
    default: return even(v);
    }
}

/* DuckDB's domain errors: log2 of zero and negatives; sin, cos, tan, asin
 * and acos of an infinity; asin and acos outside [-1, 1]. NaN passes. */
static basalt_status unary_domain(const struct qstep *st, struct qexec *x, double v)
{
    switch (st->op) {
    case QOP_LOG2:
        if (log_domain(v))
            return basalt_qexec_error(x, st, BASALT_LIMIT, "%s", log_domain(v));
        return BASALT_OK;
    case QOP_SIN: case QOP_COS: case QOP_TAN: case QOP_ASIN: case QOP_ACOS:
        if (isinf(v))
            return basalt_qexec_error(x, st, BASALT_LIMIT,
                                      "input value %f is out of range for numeric function", v);
        if ((st->op == QOP_ASIN || st->op == QOP_ACOS) && (v < -1 || v > 1))
            return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "%s is undefined outside [-1,1]",
                                      st->op == QOP_ASIN ? "ASIN" : "ACOS");
        return BASALT_OK;
    default: return BASALT_OK;
    }
}

static basalt_status k_unary(const struct qstep *st, struct qexec *x)
{
    const double *a = A(0).data;
    double *o = OUT.dbuf;
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        o[i] = unary(st->op, a[i]);
        if (qrow_valid(OUT.valid, i) && qcounts(x, st, i)) {
            basalt_status rs = unary_domain(st, x, a[i]);
            if (rs != BASALT_OK)
                return rs;
        }
    }
    return BASALT_OK;
}

/* atan2(y, x); log(b, x) = log10(x) / log10(b), b checked first. */
static basalt_status k_binary(const struct qstep *st, struct qexec *x)
{
    const double *a = A(0).data, *b = A(1).data;
    double *o = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        if (st->op == QOP_ATAN2) {
            o[i] = atan2(a[i], b[i]);
            continue;
        }
        const char *bad = log_domain(a[i]);
        double base = log10(a[i]);
        if (!bad && base == 0)
            bad = "division by zero in based logarithm";
        if (!bad)
            bad = log_domain(b[i]);
        if (bad && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_LIMIT, "%s", bad);
        o[i] = log10(b[i]) / base;
    }
    return BASALT_OK;
}

static basalt_status k_classify(const struct qstep *st, struct qexec *x)
{
    const double *a = A(0).data;
    uint64_t *o = OUT.dbuf;
    memset(o, 0, QWORDS * 8);
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        bool r = st->op == QOP_ISNAN   ? isnan(a[i])
                 : st->op == QOP_ISINF ? isinf(a[i])
                                       : isfinite(a[i]);
        qbit_set(o, i, r);
    }
    return BASALT_OK;
}

/* DuckDB's GreatestCommonDivisor before its absolute value: Euclid on the
 * signed values. */
static int64_t gcd_signed(int64_t a, int64_t b)
{
    if ((a == INT64_MIN && b == -1) || (a == -1 && b == INT64_MIN))
        return 1; /* INT64_MIN % -1 overflows */
    for (;;) {
        if (a == 0)
            return b;
        b %= a;
        if (b == 0)
            return a;
        a %= b;
    }
}

/* gcd(a, b), or lcm(a, b) with `lcm`, into *r as DuckDB computes them:
 * NULL, or the error (an absolute value of INT64_MIN, an lcm overflow). */
static const char *gcd_lcm(int64_t a, int64_t b, bool lcm, int64_t *r)
{
    static const char abs_min[] = "Overflow on abs(-9223372036854775808)";
    if (lcm && (a == 0 || b == 0)) {
        *r = 0;
        return NULL;
    }
    int64_t g = gcd_signed(a, b);
    if (g == INT64_MIN)
        return abs_min;
    g = g < 0 ? -g : g;
    if (lcm) {
        if (__builtin_mul_overflow(a, b / g, &g))
            return "lcm value is out of range";
        if (g == INT64_MIN)
            return abs_min;
        g = g < 0 ? -g : g;
    }
    *r = g;
    return NULL;
}

static basalt_status k_gcd_lcm(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data, *b = A(1).data;
    int64_t *o = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        const char *bad = gcd_lcm(a[i], b[i], st->op == QOP_LCM, &o[i]);
        if (bad && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_LIMIT, "%s", bad);
    }
    return BASALT_OK;
}

/* An integer of the step's input width, zero-extended. */
static uint64_t bits_at(const void *data, int width, int i)
{
    switch (width) {
    case 1: return ((const uint8_t *)data)[i];
    case 2: return ((const uint16_t *)data)[i];
    case 4: return ((const uint32_t *)data)[i];
    default: return ((const uint64_t *)data)[i];
    }
}

/* bit_count of the value's two's complement in its own width. */
static basalt_status k_bit_count(const struct qstep *st, struct qexec *x)
{
    int w = basalt_qtype_width(st->in_type);
    int8_t *o = OUT.dbuf;
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < x->n; i++)
        o[i] = (int8_t)__builtin_popcountll(bits_at(A(0).data, w, i));
    return BASALT_OK;
}

static basalt_status k_xor(const struct qstep *st, struct qexec *x)
{
    int w = basalt_qtype_width(st->type);
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = OUT.dbuf;
    for (int i = 0; i < x->n; i++) {
        uint64_t v = bits_at(A(0).data, w, i) ^ bits_at(A(1).data, w, i);
        switch (w) {
        case 1: ((uint8_t *)OUT.dbuf)[i] = (uint8_t)v; break;
        case 2: ((uint16_t *)OUT.dbuf)[i] = (uint16_t)v; break;
        case 4: ((uint32_t *)OUT.dbuf)[i] = (uint32_t)v; break;
        default: ((uint64_t *)OUT.dbuf)[i] = v; break;
        }
    }
    return BASALT_OK;
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))
#define CMP_AT(T) CMP(((const T *)a->data)[i], ((const T *)b->data)[i])

/* DuckDB's order of floats: NaN above everything, -0.0 equal to 0.0. */
static int cmp_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return (isnan(a) != 0) - (isnan(b) != 0);
    return CMP(a, b);
}

static int cmp_str(struct qstr a, struct qstr b)
{
    size_t k = (size_t)(a.len < b.len ? a.len : b.len);
    int c = k ? memcmp(a.ptr, b.ptr, k) : 0;
    return c ? CMP(c, 0) : CMP(a.len, b.len);
}

/* Row i of a against row i of b, both of type t. */
static int cmp_row(struct basalt_query_type t, const struct qvec *a, const struct qvec *b, int i)
{
    switch (t.id) {
    case BASALT_QUERY_TYPE_BOOL: return CMP(qbit(a->data, i), qbit(b->data, i));
    case BASALT_QUERY_TYPE_INT8: return CMP_AT(int8_t);
    case BASALT_QUERY_TYPE_INT16: return CMP_AT(int16_t);
    case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_DATE: return CMP_AT(int32_t);
    case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: return CMP_AT(int64_t);
    case BASALT_QUERY_TYPE_UINT8: return CMP_AT(uint8_t);
    case BASALT_QUERY_TYPE_UINT16: return CMP_AT(uint16_t);
    case BASALT_QUERY_TYPE_UINT32: return CMP_AT(uint32_t);
    case BASALT_QUERY_TYPE_UINT64: return CMP_AT(uint64_t);
    case BASALT_QUERY_TYPE_DECIMAL: return CMP_AT(qi128);
    case BASALT_QUERY_TYPE_FLOAT:
        return cmp_double(((const float *)a->data)[i], ((const float *)b->data)[i]);
    case BASALT_QUERY_TYPE_DOUBLE:
        return cmp_double(((const double *)a->data)[i], ((const double *)b->data)[i]);
    default: /* STRING, BINARY: bytes */
        return cmp_str(((const struct qstr *)a->data)[i], ((const struct qstr *)b->data)[i]);
    }
}

/* greatest / least: the first of the largest (smallest) valid arguments;
 * NULL only when all are. */
static basalt_status k_extreme(const struct qstep *st, struct qexec *x)
{
    int w = basalt_qtype_width(st->type), sign = st->op == QOP_GREATEST ? 1 : -1;
    bool is_bool = st->type.id == BASALT_QUERY_TYPE_BOOL;
    if (is_bool)
        memset(OUT.dbuf, 0, QWORDS * 8);
    for (int i = 0; i < x->n; i++) {
        const struct qvec *best = NULL;
        for (int k = 0; k < st->n_args; k++) {
            const struct qvec *v = &A(k);
            if (qrow_valid(v->valid, i) && (!best || sign * cmp_row(st->type, v, best, i) > 0))
                best = v;
        }
        qbit_set(OUT.vbuf, i, best != NULL);
        if (!best)
            continue;
        if (is_bool)
            qbit_set(OUT.dbuf, i, qbit(best->data, i));
        else
            memcpy((char *)OUT.dbuf + (size_t)i * w, (const char *)best->data + (size_t)i * w,
                   (size_t)w);
    }
    OUT.data = OUT.dbuf;
    OUT.valid = OUT.vbuf;
    return BASALT_OK;
}

bool basalt_qk_math_more_select(struct qstep *st)
{
    switch (st->op) {
    case QOP_LOG2: case QOP_CBRT: case QOP_DEGREES: case QOP_RADIANS: case QOP_SIN: case QOP_COS:
    case QOP_TAN: case QOP_ASIN: case QOP_ACOS: case QOP_ATAN: case QOP_EVEN:
        st->fn = k_unary;
        return true;
    case QOP_ATAN2: case QOP_LOG_BASE: st->fn = k_binary; return true;
    case QOP_ISNAN: case QOP_ISINF: case QOP_ISFINITE: st->fn = k_classify; return true;
    case QOP_GCD: case QOP_LCM: st->fn = k_gcd_lcm; return true;
    case QOP_BIT_COUNT: st->fn = k_bit_count; return true;
    case QOP_XOR: st->fn = k_xor; return true;
    case QOP_GREATEST: case QOP_LEAST:
        st->fn = k_extreme;
        st->kname = st->op == QOP_GREATEST ? "greatest" : "least";
        return true;
    default: return false;
    }
}
