/* Arithmetic, comparison and math kernels, specialised per physical type by
 * macros; and the fused register programs over double registers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
/* v < 0 without a warning for unsigned types */
#define QNEG(v) ((v) <= 0 && (v) != 0)
#define OUT (x->vec[st->out])

static const char *op_word(enum qop op)
{
    switch (op) {
    case QOP_ADD: return "addition";
    case QOP_SUB: return "subtraction";
    case QOP_MUL: return "multiplication";
    default: return "division";
    }
}
static char op_sym(enum qop op)
{
    return op == QOP_ADD ? '+' : op == QOP_SUB ? '-' : op == QOP_MUL ? '*' : '/';
}

/* First row whose error counts among rows flagged in bad[]. */
static int first_bad(const struct qstep *st, struct qexec *x, const uint8_t *bad,
                     const uint64_t *valid)
{
    for (int i = 0; i < x->n; i++)
        if (bad[i] && qrow_valid(valid, i) && qcounts(x, st, i))
            return i;
    return -1;
}

/* ---------------------------------------------------------------- checked integer ops */

#define INT_ARITH(NAME, T, BUILTIN, FMT, CAST)                                                    \
    static basalt_status NAME(const struct qstep *st, struct qexec *x)                            \
    {                                                                                             \
        const T *a = A(0).data, *b = A(1).data;                                                   \
        T *o = OUT.dbuf;                                                                          \
        uint8_t bad[QVEC];                                                                        \
        int any = 0, n = x->n;                                                                    \
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));                                                        \
        for (int i = 0; i < n; i++) {                                                             \
            bad[i] = (uint8_t)BUILTIN(a[i], b[i], &o[i]);                                         \
            any |= bad[i];                                                                        \
        }                                                                                         \
        OUT.data = o;                                                                             \
        if (any) {                                                                                \
            int r = first_bad(st, x, bad, OUT.valid);                                             \
            if (r >= 0)                                                                           \
                return basalt_qexec_error(x, st, BASALT_LIMIT, "Overflow in %s of %s (" FMT " %c " FMT ")!", \
                                   op_word(st->op), basalt_qtype_phys_name(st->type.id), CAST a[r],       \
                                   op_sym(st->op), CAST b[r]);                                    \
        }                                                                                         \
        return BASALT_OK;                                                                         \
    }

#define INT_FAMILY(S, T, FMT, CAST, SGN)                                                               \
    INT_ARITH(add_##S, T, __builtin_add_overflow, FMT, CAST)                                      \
    INT_ARITH(sub_##S, T, __builtin_sub_overflow, FMT, CAST)                                      \
    INT_ARITH(mul_##S, T, __builtin_mul_overflow, FMT, CAST)                                      \
    static basalt_status idiv_##S(const struct qstep *st, struct qexec *x)                        \
    {                                                                                             \
        const T *a = A(0).data, *b = A(1).data;                                                   \
        T *o = OUT.dbuf;                                                                          \
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));                                                        \
        if (!OUT.valid) {                                                                         \
            memset(OUT.vbuf, 0xff, QWORDS * 8);                                                   \
        } else if (OUT.valid != OUT.vbuf) {                                                       \
            memcpy(OUT.vbuf, OUT.valid, QWORDS * 8);                                              \
        }                                                                                         \
        OUT.valid = OUT.vbuf;                                                                     \
        for (int i = 0; i < x->n; i++) {                                                          \
            if (b[i] == 0) {                                                                      \
                qbit_set(OUT.vbuf, i, false);                                                     \
                o[i] = 0;                                                                         \
            } else if (SGN && b[i] == (T)-1) {                                              \
                T r;                                                                              \
                if (__builtin_sub_overflow((T)0, a[i], &r)) {                                     \
                    if (qbit(OUT.vbuf, i) && qcounts(x, st, i)) {                                 \
                        return basalt_qexec_error(x, st, BASALT_LIMIT,                                   \
                                           "Overflow in division of " FMT " / -1", CAST a[i]);   \
                    }                                                                             \
                    o[i] = 0;                                                                     \
                } else                                                                            \
                    o[i] = st->op == QOP_MOD ? 0 : r;                                             \
            } else                                                                                \
                o[i] = st->op == QOP_MOD ? (T)(a[i] % b[i]) : (T)(a[i] / b[i]);                   \
        }                                                                                         \
        OUT.data = o;                                                                             \
        return BASALT_OK;                                                                         \
    }                                                                                             \
    static basalt_status neg_##S(const struct qstep *st, struct qexec *x)                         \
    {                                                                                             \
        const T *a = A(0).data;                                                                   \
        T *o = OUT.dbuf;                                                                          \
        OUT.valid = A(0).valid;                                                                   \
        for (int i = 0; i < x->n; i++)                                                            \
            if (__builtin_sub_overflow((T)0, a[i], &o[i]) && qrow_valid(OUT.valid, i) &&          \
                qcounts(x, st, i))                                                                \
                return basalt_qexec_error(x, st, BASALT_LIMIT, "Overflow in negation of %s (" FMT ")!",  \
                                   basalt_qtype_phys_name(st->type.id), CAST a[i]);                      \
        OUT.data = o;                                                                             \
        return BASALT_OK;                                                                         \
    }

INT_FAMILY(i8, int8_t, "%d", (int), 1)
INT_FAMILY(i16, int16_t, "%d", (int), 1)
INT_FAMILY(i32, int32_t, "%d", (int), 1)
INT_FAMILY(i64, int64_t, "%lld", (long long), 1)
INT_FAMILY(u8, uint8_t, "%u", (unsigned), 0)
INT_FAMILY(u16, uint16_t, "%u", (unsigned), 0)
INT_FAMILY(u32, uint32_t, "%u", (unsigned), 0)
INT_FAMILY(u64, uint64_t, "%llu", (unsigned long long), 0)

/* ---------------------------------------------------------------- floats */

#define FLOAT_FAMILY(S, T, FMOD)                                                                  \
    static basalt_status fadd_##S(const struct qstep *st, struct qexec *x)                        \
    {                                                                                             \
        const T *a = A(0).data, *b = A(1).data;                                                   \
        T *o = OUT.dbuf;                                                                          \
        int n = x->n;                                                                             \
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));                                                        \
        switch (st->op) {                                                                         \
        case QOP_ADD: for (int i = 0; i < n; i++) o[i] = a[i] + b[i]; break;                      \
        case QOP_SUB: for (int i = 0; i < n; i++) o[i] = a[i] - b[i]; break;                      \
        case QOP_MUL: for (int i = 0; i < n; i++) o[i] = a[i] * b[i]; break;                      \
        case QOP_DIV: for (int i = 0; i < n; i++) o[i] = a[i] / b[i]; break;                      \
        case QOP_MOD: for (int i = 0; i < n; i++) o[i] = FMOD(a[i], b[i]); break;                 \
        default: /* IDIV: a / b, NULL when b is 0 */                                              \
            if (!OUT.valid)                                                                       \
                memset(OUT.vbuf, 0xff, QWORDS * 8);                                               \
            else if (OUT.valid != OUT.vbuf)                                                       \
                memcpy(OUT.vbuf, OUT.valid, QWORDS * 8);                                          \
            OUT.valid = OUT.vbuf;                                                                 \
            for (int i = 0; i < n; i++) {                                                         \
                o[i] = a[i] / b[i];                                                               \
                if (b[i] == 0)                                                                    \
                    qbit_set(OUT.vbuf, i, false);                                                 \
            }                                                                                     \
        }                                                                                         \
        OUT.data = o;                                                                             \
        return BASALT_OK;                                                                         \
    }                                                                                             \
    static basalt_status fneg_##S(const struct qstep *st, struct qexec *x)                        \
    {                                                                                             \
        const T *a = A(0).data;                                                                   \
        T *o = OUT.dbuf;                                                                          \
        for (int i = 0; i < x->n; i++)                                                            \
            o[i] = -a[i];                                                                         \
        OUT.valid = A(0).valid;                                                                   \
        OUT.data = o;                                                                             \
        return BASALT_OK;                                                                         \
    }

FLOAT_FAMILY(f32, float, fmodf)
FLOAT_FAMILY(f64, double, fmod)

/* ---------------------------------------------------------------- decimals */

/* The first row whose result overflowed (when its error counts). */
static basalt_status dec_overflow(const struct qstep *st, struct qexec *x, const bool *bad)
{
    for (int i = 0; i < x->n; i++)
        if (bad[i] && qrow_valid(OUT.valid, i) && qcounts(x, st, i)) {
            char t[48];
            return basalt_qexec_error(x, st, BASALT_LIMIT, "Overflow in %s of %s!",
                                      op_word(st->op),
                                      basalt_query_type_name(st->type, t, sizeof t));
        }
    return BASALT_OK;
}

/* + - * of decimals, one loop per operation. A product of two decimals
 * whose precisions add up to 38 digits or less cannot leave 128 bits, and
 * of two that fit 64 bits is one 64x64->128 multiply: no overflow
 * builtins there. Results past the type's precision are errors for the
 * rows that count. */
static basalt_status dec_arith(const struct qstep *st, struct qexec *x)
{
    const qi128 *a = A(0).data, *b = A(1).data;
    qi128 *o = OUT.dbuf, limit = basalt_qpow10(st->type.precision);
    int n = x->n;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    bool bad[QVEC];
    bool any = false;
    int pa = st->in_type.precision, pb = st->in_type2.precision;
    switch (st->op) {
    case QOP_ADD:
    case QOP_SUB:
        if (pa < 38 && pb < 38) { /* |a|, |b| < 10^37: the sum fits 128 bits */
            bool sub = st->op == QOP_SUB;
            for (int i = 0; i < n; i++) {
                o[i] = sub ? a[i] - b[i] : a[i] + b[i];
                bad[i] = o[i] >= limit || o[i] <= -limit;
                any |= bad[i];
            }
        } else {
            for (int i = 0; i < n; i++) {
                bool ovf = st->op == QOP_SUB ? __builtin_sub_overflow(a[i], b[i], &o[i])
                                             : __builtin_add_overflow(a[i], b[i], &o[i]);
                bad[i] = ovf || o[i] >= limit || o[i] <= -limit;
                any |= bad[i];
            }
        }
        break;
    case QOP_MUL:
        if (pa <= 18 && pb <= 18) {
            for (int i = 0; i < n; i++) {
                o[i] = (qi128)(int64_t)a[i] * (int64_t)b[i];
                bad[i] = o[i] >= limit || o[i] <= -limit;
                any |= bad[i];
            }
        } else if (pa + pb <= 38) {
            for (int i = 0; i < n; i++) {
                o[i] = a[i] * b[i];
                bad[i] = o[i] >= limit || o[i] <= -limit;
                any |= bad[i];
            }
        } else {
            for (int i = 0; i < n; i++) {
                bool ovf = __builtin_mul_overflow(a[i], b[i], &o[i]);
                bad[i] = ovf || o[i] >= limit || o[i] <= -limit;
                any |= bad[i];
            }
        }
        break;
    default: /* MOD: by zero is NULL */
        if (!OUT.valid)
            memset(OUT.vbuf, 0xff, QWORDS * 8);
        else if (OUT.valid != OUT.vbuf)
            memcpy(OUT.vbuf, OUT.valid, QWORDS * 8);
        OUT.valid = OUT.vbuf;
        for (int i = 0; i < n; i++) {
            if (b[i] == 0) {
                o[i] = 0;
                qbit_set(OUT.vbuf, i, false);
            } else {
                o[i] = a[i] % b[i];
            }
            bad[i] = false;
        }
        break;
    }
    if (any) {
        basalt_status e = dec_overflow(st, x, bad);
        if (e != BASALT_OK)
            return e;
    }
    OUT.data = o;
    return BASALT_OK;
}

static basalt_status dec_neg(const struct qstep *st, struct qexec *x)
{
    const qi128 *a = A(0).data;
    qi128 *o = OUT.dbuf;
    for (int i = 0; i < x->n; i++)
        o[i] = -a[i];
    OUT.valid = A(0).valid;
    OUT.data = o;
    return BASALT_OK;
}

bool basalt_qk_arith_select(struct qstep *st)
{
    enum basalt_query_type_id id = st->type.id;
    st->kname = "arith";
    if (id == BASALT_QUERY_TYPE_DECIMAL) {
        st->fn = st->op == QOP_NEG ? dec_neg : dec_arith;
        st->kname = "decimal_arith";
        return true;
    }
#define PICK(S)                                                                                   \
    switch (st->op) {                                                                             \
    case QOP_ADD: st->fn = add_##S; st->kname = "add_" #S; return true;                          \
    case QOP_SUB: st->fn = sub_##S; st->kname = "sub_" #S; return true;                          \
    case QOP_MUL: st->fn = mul_##S; st->kname = "mul_" #S; return true;                          \
    case QOP_IDIV: case QOP_MOD: st->fn = idiv_##S; st->kname = "idiv_" #S; return true;         \
    case QOP_NEG: st->fn = neg_##S; st->kname = "neg_" #S; return true;                          \
    default: return false;                                                                        \
    }
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: PICK(i8)
    case BASALT_QUERY_TYPE_INT16: PICK(i16)
    case BASALT_QUERY_TYPE_INT32: PICK(i32)
    case BASALT_QUERY_TYPE_INT64: PICK(i64)
    case BASALT_QUERY_TYPE_UINT8: PICK(u8)
    case BASALT_QUERY_TYPE_UINT16: PICK(u16)
    case BASALT_QUERY_TYPE_UINT32: PICK(u32)
    case BASALT_QUERY_TYPE_UINT64: PICK(u64)
    case BASALT_QUERY_TYPE_FLOAT:
        st->fn = st->op == QOP_NEG ? fneg_f32 : fadd_f32;
        st->kname = "float_arith";
        return true;
    case BASALT_QUERY_TYPE_DOUBLE:
        st->fn = st->op == QOP_NEG ? fneg_f64 : fadd_f64;
        st->kname = "double_arith";
        return true;
    default:
        return false;
    }
#undef PICK
}

/* ---------------------------------------------------------------- comparisons */

/* DuckDB orders NaN above every number and equal to itself. Written with
 * & and | (no branches), so that the loops below vectorise. */
#define F_EQ(a, b) (((a) == (b)) | (((a) != (a)) & ((b) != (b))))
#define F_LT(a, b) (((a) == (a)) & (((b) != (b)) | ((a) < (b))))
#define F_LE(a, b) (((b) != (b)) | (((a) == (a)) & ((a) <= (b))))
#define P_EQ(a, b) ((a) == (b))
#define P_LT(a, b) ((a) < (b))
#define P_LE(a, b) ((a) <= (b))

/* 64 flags (each 0 or 1) as the bits of a word, flag j at bit j: the
 * multiply gathers the low bit of each of 8 bytes into the top byte. */
static inline uint64_t pack_flags(const uint8_t f[64])
{
    uint64_t word = 0;
    for (int g = 0; g < 8; g++) {
        uint64_t x;
        memcpy(&x, f + 8 * g, 8);
        word |= ((x * 0x0102040810204080ull) >> 56) << (8 * g);
    }
    return word;
}

/* A comparison a word of rows at a time: one flag byte per row (a loop
 * the compiler vectorises), then the flags packed into the bitmap. */
#define CMP_LOOP(EXPR)                                                                            \
    for (int w = 0; w < nw; w++) {                                                                \
        uint8_t f[64];                                                                            \
        int base = w * 64;                                                                        \
        if (n - base >= 64) {                                                                     \
            for (int j = 0; j < 64; j++) {                                                        \
                int i = base + j;                                                                 \
                f[j] = (uint8_t)(EXPR);                                                           \
            }                                                                                     \
        } else {                                                                                  \
            memset(f, 0, sizeof f);                                                               \
            for (int j = 0; j < n - base; j++) {                                                  \
                int i = base + j;                                                                 \
                f[j] = (uint8_t)(EXPR);                                                           \
            }                                                                                     \
        }                                                                                         \
        d[w] = pack_flags(f);                                                                     \
    }

#define CMP_FAMILY(S, T, EQ, LT, LE)                                                              \
    BASALT_QK_CLONES static basalt_status cmp_##S(const struct qstep *st, struct qexec *x)        \
    {                                                                                             \
        const T *a = A(0).data, *b = A(1).data;                                                   \
        uint64_t *d = OUT.dbuf;                                                                   \
        int n = x->n, nw = (n + 63) / 64;                                                         \
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));                                                        \
        switch (st->op) {                                                                         \
        case QOP_EQ: CMP_LOOP(EQ(a[i], b[i])) break;                                              \
        case QOP_NE: CMP_LOOP(!EQ(a[i], b[i])) break;                                             \
        case QOP_LT: CMP_LOOP(LT(a[i], b[i])) break;                                              \
        case QOP_LE: CMP_LOOP(LE(a[i], b[i])) break;                                              \
        case QOP_GT: CMP_LOOP(LT(b[i], a[i])) break;                                              \
        default: CMP_LOOP(LE(b[i], a[i])) break;                                                  \
        }                                                                                         \
        OUT.data = d;                                                                             \
        return BASALT_OK;                                                                         \
    }                                                                                             \
    BASALT_QK_CLONES static basalt_status cmpk_##S(const struct qstep *st, struct qexec *x)       \
    {                                                                                             \
        const T *a = A(0).data, k = ((const T *)A(1).data)[0];                                    \
        uint64_t *d = OUT.dbuf;                                                                   \
        int n = x->n, nw = (n + 63) / 64;                                                         \
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));                                                        \
        switch (st->op) {                                                                         \
        case QOP_EQ: CMP_LOOP(EQ(a[i], k)) break;                                                 \
        case QOP_NE: CMP_LOOP(!EQ(a[i], k)) break;                                                \
        case QOP_LT: CMP_LOOP(LT(a[i], k)) break;                                                 \
        case QOP_LE: CMP_LOOP(LE(a[i], k)) break;                                                 \
        case QOP_GT: CMP_LOOP(LT(k, a[i])) break;                                                 \
        default: CMP_LOOP(LE(k, a[i])) break;                                                     \
        }                                                                                         \
        OUT.data = d;                                                                             \
        return BASALT_OK;                                                                         \
    }

CMP_FAMILY(i8, int8_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(i16, int16_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(i32, int32_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(i64, int64_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(u8, uint8_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(u16, uint16_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(u32, uint32_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(u64, uint64_t, P_EQ, P_LT, P_LE)
CMP_FAMILY(f32, float, F_EQ, F_LT, F_LE)
CMP_FAMILY(f64, double, F_EQ, F_LT, F_LE)
CMP_FAMILY(i128, qi128, P_EQ, P_LT, P_LE)

static int str_cmp(const struct qstr *a, const struct qstr *b)
{
    int64_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->ptr, b->ptr, (size_t)n) : 0;
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}
/* Equal bytes of equal lengths, inline up to 64 (flags, ship modes and
 * instructions are short; a libc memcmp call per row was a third of TPC-H
 * Q19): words, the last one overlapping its predecessor; longer ones by
 * memcmp. */
static inline bool bytes_eq(const char *p, const char *q, int64_t n)
{
    uint64_t a, b, c, d;
    if (n >= 8 && n <= 64) {
        uint64_t diff = 0;
        for (int64_t i = 0; i + 8 < n; i += 8) {
            memcpy(&a, p + i, 8);
            memcpy(&b, q + i, 8);
            diff |= a ^ b;
        }
        memcpy(&c, p + n - 8, 8);
        memcpy(&d, q + n - 8, 8);
        return (diff | (c ^ d)) == 0;
    }
    if (n >= 4 && n < 8) {
        uint32_t w, x, y, z;
        memcpy(&w, p, 4);
        memcpy(&x, q, 4);
        memcpy(&y, p + n - 4, 4);
        memcpy(&z, q + n - 4, 4);
        return ((w ^ x) | (y ^ z)) == 0;
    }
    if (n < 4) {
        for (int64_t i = 0; i < n; i++)
            if (p[i] != q[i])
                return false;
        return true;
    }
    return memcmp(p, q, (size_t)n) == 0;
}
#define S_EQ(a, b) ((a).len == (b).len && bytes_eq((a).ptr, (b).ptr, (a).len))
#define S_LT(a, b) (str_cmp(&(a), &(b)) < 0)
#define S_LE(a, b) (str_cmp(&(a), &(b)) <= 0)
CMP_FAMILY(str, struct qstr, S_EQ, S_LT, S_LE)

/* A string = or <> a constant, a word of rows at a time: first whose
 * lengths match (a loop without branches), then the bytes of those rows
 * only. Lengths that differ from row to row (TPC-H's ship instructions and
 * modes) made the per-row length test a mispredicted branch. */
static basalt_status cmpk_str_eq(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, k = ((const struct qstr *)A(1).data)[0];
    uint64_t *d = OUT.dbuf;
    int n = x->n, nw = (n + 63) / 64;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    for (int w = 0; w < nw; w++) {
        uint8_t f[64];
        int base = w * 64, m = n - base < 64 ? n - base : 64;
        memset(f, 0, sizeof f);
        for (int j = 0; j < m; j++)
            f[j] = a[base + j].len == k.len;
        uint64_t same = pack_flags(f);
        for (uint64_t todo = same; todo; todo &= todo - 1) {
            int j = __builtin_ctzll(todo);
            if (!bytes_eq(a[base + j].ptr, k.ptr, k.len))
                same &= ~(1ull << j);
        }
        uint64_t live = m == 64 ? ~0ull : (1ull << m) - 1;
        d[w] = (st->op == QOP_EQ ? same : ~same) & live;
    }
    OUT.data = d;
    return BASALT_OK;
}

static basalt_status cmp_bool(const struct qstep *st, struct qexec *x)
{
    const uint64_t *a = A(0).data, *b = A(1).data;
    uint64_t *d = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    for (int w = 0; w < (x->n + 63) / 64; w++) {
        switch (st->op) {
        case QOP_EQ: d[w] = ~(a[w] ^ b[w]); break;
        case QOP_NE: d[w] = a[w] ^ b[w]; break;
        case QOP_LT: d[w] = ~a[w] & b[w]; break;
        case QOP_LE: d[w] = ~a[w] | b[w]; break;
        case QOP_GT: d[w] = a[w] & ~b[w]; break;
        default: d[w] = a[w] | ~b[w]; break;
        }
    }
    OUT.data = d;
    return BASALT_OK;
}

static basalt_status cmp_interval(const struct qstep *st, struct qexec *x)
{
    (void)st;
    return basalt_qexec_error(x, st, BASALT_UNSUPPORTED, "comparison of INTERVAL values");
}

bool basalt_qk_compare_select(struct qstep *st)
{
    bool k = st->b_const;
    st->kname = k ? "compare_const" : "compare";
    switch (st->in_type.id) {
    case BASALT_QUERY_TYPE_INT8: st->fn = k ? cmpk_i8 : cmp_i8; return true;
    case BASALT_QUERY_TYPE_INT16: st->fn = k ? cmpk_i16 : cmp_i16; return true;
    case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_DATE:
        st->fn = k ? cmpk_i32 : cmp_i32;
        return true;
    case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME:
        st->fn = k ? cmpk_i64 : cmp_i64;
        return true;
    case BASALT_QUERY_TYPE_UINT8: st->fn = k ? cmpk_u8 : cmp_u8; return true;
    case BASALT_QUERY_TYPE_UINT16: st->fn = k ? cmpk_u16 : cmp_u16; return true;
    case BASALT_QUERY_TYPE_UINT32: st->fn = k ? cmpk_u32 : cmp_u32; return true;
    case BASALT_QUERY_TYPE_UINT64: st->fn = k ? cmpk_u64 : cmp_u64; return true;
    case BASALT_QUERY_TYPE_FLOAT: st->fn = k ? cmpk_f32 : cmp_f32; return true;
    case BASALT_QUERY_TYPE_DOUBLE: st->fn = k ? cmpk_f64 : cmp_f64; return true;
    case BASALT_QUERY_TYPE_DECIMAL: st->fn = k ? cmpk_i128 : cmp_i128; return true;
    case BASALT_QUERY_TYPE_STRING: case BASALT_QUERY_TYPE_BINARY:
        st->fn = k ? cmpk_str : cmp_str;
        if (k && (st->op == QOP_EQ || st->op == QOP_NE)) {
            st->fn = cmpk_str_eq;
            st->kname = "compare_const_str_eq";
        }
        return true;
    case BASALT_QUERY_TYPE_BOOL: st->fn = cmp_bool; return true;
    case BASALT_QUERY_TYPE_INTERVAL: st->fn = cmp_interval; return true;
    case BASALT_QUERY_TYPE_NULL: st->fn = cmp_bool; return true;
    default: return false;
    }
}

basalt_status basalt_qk_distinct(const struct qstep *st, struct qexec *x)
{
    basalt_status r = st->inner(st, x);
    if (r != BASALT_OK)
        return r;
    const uint64_t *va = A(0).valid, *vb = A(1).valid;
    uint64_t *d = OUT.dbuf;
    for (int w = 0; w < QWORDS; w++) {
        uint64_t a = va ? va[w] : ~(uint64_t)0, b = vb ? vb[w] : ~(uint64_t)0;
        uint64_t dist = (a & b & d[w]) | (a ^ b);
        d[w] = st->flag ? ~dist : dist;
    }
    OUT.data = d;
    OUT.valid = NULL;
    return BASALT_OK;
}

/* ---------------------------------------------------------------- fused */

#define CHUNK 256
#define FREGS 32

BASALT_QK_CLONES basalt_status basalt_qk_fused(const struct qstep *st, struct qexec *x)
{
    int n = x->n, nw = (n + 63) / 64;
    struct qvec *o = &OUT;
    /* validity: AND of the loaded columns' bitmaps, a word at a time */
    bool any = false;
    for (int l = 0; l < st->n_loads; l++) {
        const struct qcolumn *c = &x->cols[st->loads[l]];
        if (!c->validity || c->array->null_count == 0)
            continue;
        uint64_t tmp[QWORDS];
        basalt_bitmap_copy((uint8_t *)(any ? tmp : o->vbuf), 0, c->validity, c->offset + x->start, n);
        if (any)
            for (int w = 0; w < nw; w++)
                o->vbuf[w] &= tmp[w];
        any = true;
    }
    o->valid = any ? o->vbuf : NULL;
    /* Registers are pointers: a DOUBLE column register points into the
     * batch, computed registers into scratch, and the last arithmetic step
     * writes straight into the output vector. */
    static _Thread_local double store[FREGS][CHUNK];
    double (*regs)[CHUNK] = store;
    const double *rp[FREGS];
    const struct qfinstr *last = &st->instr[st->n_instr - 1];
    bool pred = last->op >= QF_EQ;
    for (int c0 = 0; c0 < n; c0 += CHUNK) {
        int m = n - c0 < CHUNK ? n - c0 : CHUNK;
        for (int k = 0; k < st->n_instr; k++) {
            const struct qfinstr *in = &st->instr[k];
            double *d = in == last && !pred ? (double *)o->dbuf + c0 : regs[in->dst];
            const double *a = rp[in->a], *b = rp[in->b];
            switch (in->op) {
            case QF_LOAD: {
                const struct qcolumn *c = &x->cols[in->column];
                int64_t at = c->offset + x->start + c0;
                switch (in->src) {
                case BASALT_QUERY_TYPE_DOUBLE:
                    rp[in->dst] = (const double *)c->values + at;
                    continue;
                case BASALT_QUERY_TYPE_FLOAT: {
                    const float *s = (const float *)c->values + at;
                    for (int i = 0; i < m; i++) d[i] = s[i];
                    break;
                }
                case BASALT_QUERY_TYPE_INT32: {
                    const int32_t *s = (const int32_t *)c->values + at;
                    for (int i = 0; i < m; i++) d[i] = s[i];
                    break;
                }
                default: {
                    const int64_t *s = (const int64_t *)c->values + at;
                    for (int i = 0; i < m; i++) d[i] = (double)s[i];
                }
                }
                rp[in->dst] = d;
                continue;
            }
            case QF_CONST: for (int i = 0; i < m; i++) d[i] = in->k; break;
            case QF_ADD: for (int i = 0; i < m; i++) d[i] = a[i] + b[i]; break;
            case QF_SUB: for (int i = 0; i < m; i++) d[i] = a[i] - b[i]; break;
            case QF_MUL: for (int i = 0; i < m; i++) d[i] = a[i] * b[i]; break;
            case QF_DIV: for (int i = 0; i < m; i++) d[i] = a[i] / b[i]; break;
            default: {
                uint64_t *bits = (uint64_t *)o->dbuf + c0 / 64;
                uint8_t f[CHUNK];
                int full = m & ~63; /* flags past m are 0 */
                if (full < m)
                    memset(f + full, 0, 64);
                switch (in->op) {
                case QF_EQ: for (int i = 0; i < m; i++) f[i] = (uint8_t)F_EQ(a[i], b[i]); break;
                case QF_NE: for (int i = 0; i < m; i++) f[i] = (uint8_t)!F_EQ(a[i], b[i]); break;
                case QF_LT: for (int i = 0; i < m; i++) f[i] = (uint8_t)F_LT(a[i], b[i]); break;
                case QF_LE: for (int i = 0; i < m; i++) f[i] = (uint8_t)F_LE(a[i], b[i]); break;
                case QF_GT: for (int i = 0; i < m; i++) f[i] = (uint8_t)F_LT(b[i], a[i]); break;
                default: for (int i = 0; i < m; i++) f[i] = (uint8_t)F_LE(b[i], a[i]); break;
                }
                for (int w = 0; w < (m + 63) / 64; w++)
                    bits[w] = pack_flags(f + 64 * w);
                continue;
            }
            }
            rp[in->dst] = d;
        }
    }
    o->data = o->dbuf;
    return BASALT_OK;
}

/* ---------------------------------------------------------------- math */

static basalt_status math_double(const struct qstep *st, struct qexec *x)
{
    const double *a = A(0).data;
    double *o = OUT.dbuf;
    int n = x->n;
    if (st->n_args == 2)
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    else
        OUT.valid = A(0).valid;
    OUT.data = o;
    switch (st->op) {
    case QOP_ABS: for (int i = 0; i < n; i++) o[i] = fabs(a[i]); break;
    case QOP_FLOOR: for (int i = 0; i < n; i++) o[i] = floor(a[i]); break;
    case QOP_CEIL: for (int i = 0; i < n; i++) o[i] = ceil(a[i]); break;
    case QOP_TRUNC: for (int i = 0; i < n; i++) o[i] = trunc(a[i]); break;
    case QOP_EXP: for (int i = 0; i < n; i++) o[i] = exp(a[i]); break;
    case QOP_POW: {
        const double *b = A(1).data;
        for (int i = 0; i < n; i++) o[i] = pow(a[i], b[i]);
        break;
    }
    case QOP_ROUND: {
        const int32_t *d = st->n_args == 2 ? A(1).data : NULL;
        for (int i = 0; i < n; i++) {
            int32_t k = d ? d[i] : 0;
            if (k == 0) {
                o[i] = round(a[i]);
                continue;
            }
            double mod = pow(10.0, (double)(k < 0 ? -k : k));
            double r = k > 0 ? round(a[i] * mod) / mod : round(a[i] / mod) * mod;
            o[i] = isinf(r) || isnan(r) ? a[i] : r;
        }
        break;
    }
    case QOP_SQRT:
        for (int i = 0; i < n; i++) {
            if (a[i] < 0 && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT, "cannot take square root of a negative number");
            o[i] = sqrt(a[i]);
        }
        break;
    default: /* LN, LOG10 */
        for (int i = 0; i < n; i++) {
            if (a[i] <= 0 && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT, a[i] == 0 ? "cannot take logarithm of zero"
                                                                  : "cannot take logarithm of a negative number");
            o[i] = st->op == QOP_LN ? log(a[i]) : log10(a[i]);
        }
    }
    return BASALT_OK;
}

static basalt_status math_float(const struct qstep *st, struct qexec *x)
{
    const float *a = A(0).data;
    float *o = OUT.dbuf;
    int n = x->n;
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < n; i++) {
        switch (st->op) {
        case QOP_ABS: o[i] = fabsf(a[i]); break;
        case QOP_FLOOR: o[i] = floorf(a[i]); break;
        case QOP_CEIL: o[i] = ceilf(a[i]); break;
        case QOP_TRUNC: o[i] = truncf(a[i]); break;
        default: o[i] = roundf(a[i]); break;
        }
    }
    if (st->op == QOP_ROUND && st->n_args == 2) {
        const int32_t *d = A(1).data;
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));
        for (int i = 0; i < n; i++) {
            double mod = pow(10.0, (double)(d[i] < 0 ? -d[i] : d[i]));
            double r = d[i] >= 0 ? round(a[i] * mod) / mod : round(a[i] / mod) * mod;
            o[i] = (float)(isinf(r) || isnan(r) ? a[i] : r);
        }
    }
    return BASALT_OK;
}

static basalt_status sign_kernel(const struct qstep *st, struct qexec *x)
{
    int8_t *o = OUT.dbuf;
    int n = x->n;
    OUT.valid = A(0).valid;
    OUT.data = o;
    const void *a = A(0).data;
    for (int i = 0; i < n; i++) {
        int s;
        switch (st->in_type.id) {
        case BASALT_QUERY_TYPE_DOUBLE: { double v = ((const double *)a)[i]; s = v > 0 ? 1 : v < 0 ? -1 : 0; break; }
        case BASALT_QUERY_TYPE_FLOAT: { float v = ((const float *)a)[i]; s = v > 0 ? 1 : v < 0 ? -1 : 0; break; }
        case BASALT_QUERY_TYPE_INT8: s = (((const int8_t *)a)[i] > 0) - (((const int8_t *)a)[i] < 0); break;
        case BASALT_QUERY_TYPE_INT16: s = (((const int16_t *)a)[i] > 0) - (((const int16_t *)a)[i] < 0); break;
        case BASALT_QUERY_TYPE_INT32: s = (((const int32_t *)a)[i] > 0) - (((const int32_t *)a)[i] < 0); break;
        case BASALT_QUERY_TYPE_INT64: s = (((const int64_t *)a)[i] > 0) - (((const int64_t *)a)[i] < 0); break;
        case BASALT_QUERY_TYPE_DECIMAL: s = (((const qi128 *)a)[i] > 0) - (((const qi128 *)a)[i] < 0); break;
        default: s = 0; /* unsigned: 0 or 1 below */
            {
                uint64_t u = st->in_type.id == BASALT_QUERY_TYPE_UINT8 ? ((const uint8_t *)a)[i]
                           : st->in_type.id == BASALT_QUERY_TYPE_UINT16 ? ((const uint16_t *)a)[i]
                           : st->in_type.id == BASALT_QUERY_TYPE_UINT32 ? ((const uint32_t *)a)[i]
                                                                         : ((const uint64_t *)a)[i];
                s = u != 0;
            }
        }
        o[i] = (int8_t)s;
    }
    return BASALT_OK;
}

#define INT_ABS(S, T, FMT, CAST)                                                                  \
    static basalt_status abs_##S(const struct qstep *st, struct qexec *x)                         \
    {                                                                                             \
        const T *a = A(0).data;                                                                   \
        T *o = OUT.dbuf;                                                                          \
        OUT.valid = A(0).valid;                                                                   \
        OUT.data = o;                                                                             \
        if (st->op != QOP_ABS) {                                                                  \
            memcpy(o, a, sizeof(T) * (size_t)x->n);                                               \
            return BASALT_OK;                                                                     \
        }                                                                                         \
        for (int i = 0; i < x->n; i++) {                                                          \
            if (QNEG(a[i]) && __builtin_sub_overflow((T)0, a[i], &o[i])) {                          \
                if (qrow_valid(OUT.valid, i) && qcounts(x, st, i))                                \
                    return basalt_qexec_error(x, st, BASALT_LIMIT, "Overflow on abs(" FMT ")", CAST a[i]); \
            } else                                                                                \
                o[i] = QNEG(a[i]) ? (T)-a[i] : a[i];                                                \
        }                                                                                         \
        return BASALT_OK;                                                                         \
    }
INT_ABS(i8, int8_t, "%d", (int))
INT_ABS(i16, int16_t, "%d", (int))
INT_ABS(i32, int32_t, "%d", (int))
INT_ABS(i64, int64_t, "%lld", (long long))
INT_ABS(u8, uint8_t, "%u", (unsigned))
INT_ABS(u16, uint16_t, "%u", (unsigned))
INT_ABS(u32, uint32_t, "%u", (unsigned))
INT_ABS(u64, uint64_t, "%llu", (unsigned long long))

/* DECIMAL abs, floor, ceil, trunc (to scale 0), round (to the result scale,
 * half away from zero). */
static basalt_status math_decimal(const struct qstep *st, struct qexec *x)
{
    const qi128 *a = A(0).data;
    qi128 *o = OUT.dbuf;
    int n = x->n, drop = st->in_type.scale - st->type.scale;
    qi128 f = basalt_qpow10(drop);
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < n; i++) {
        qi128 v = a[i];
        if (st->op == QOP_ABS) {
            o[i] = v < 0 ? -v : v;
            continue;
        }
        qi128 q = v / f, r = v % f;
        switch (st->op) {
        case QOP_FLOOR: o[i] = q - (r < 0); break;
        case QOP_CEIL: o[i] = q + (r > 0); break;
        case QOP_TRUNC: o[i] = q; break;
        default: /* ROUND */
            if (drop == 0)
                o[i] = v;
            else
                o[i] = q + (r * 2 >= f) - (r * 2 <= -f);
        }
    }
    return BASALT_OK;
}

bool basalt_qk_math_select(struct qstep *st)
{
    enum basalt_query_type_id id = st->in_type.id;
    st->kname = "math";
    if (basalt_qk_math_more_select(st))
        return true;
    if (st->op == QOP_SIGN) {
        st->fn = sign_kernel;
        return true;
    }
    if (id == BASALT_QUERY_TYPE_DOUBLE) {
        st->fn = math_double;
        return true;
    }
    if (id == BASALT_QUERY_TYPE_FLOAT) {
        st->fn = math_float;
        return true;
    }
    if (id == BASALT_QUERY_TYPE_DECIMAL) {
        st->fn = math_decimal;
        return true;
    }
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: st->fn = abs_i8; return true;
    case BASALT_QUERY_TYPE_INT16: st->fn = abs_i16; return true;
    case BASALT_QUERY_TYPE_INT32: st->fn = abs_i32; return true;
    case BASALT_QUERY_TYPE_INT64: st->fn = abs_i64; return true;
    case BASALT_QUERY_TYPE_UINT8: st->fn = abs_u8; return true;
    case BASALT_QUERY_TYPE_UINT16: st->fn = abs_u16; return true;
    case BASALT_QUERY_TYPE_UINT32: st->fn = abs_u32; return true;
    case BASALT_QUERY_TYPE_UINT64: st->fn = abs_u64; return true;
    default: return false;
    }
}
