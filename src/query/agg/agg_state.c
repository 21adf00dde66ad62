/* Aggregate states: what each call keeps per group, the column-at-a-time
 * updates over a chunk's group ids, and the merge of two groups' states. */
#include <math.h>
#include <string.h>

#include "agg/agg_internal.h"

void basalt_qagg_call_setup(struct qagg_callinfo *ci)
{
    const struct basalt_qagg_call *c = &ci->call;
    ci->in_phys = basalt_qagg_phys(c->input);
    bool fl = ci->in_phys == QP_F32 || ci->in_phys == QP_F64;
    switch (c->kind) {
    case BASALT_QAGG_COUNT_STAR: ci->state = QS_COUNT; break;
    case BASALT_QAGG_COUNT: ci->state = c->distinct ? QS_COLLECT : QS_COUNT; break;
    case BASALT_QAGG_SUM:
    case BASALT_QAGG_AVG:
        ci->state = c->distinct ? QS_COLLECT : fl ? QS_SUM_F : QS_SUM_I;
        break;
    case BASALT_QAGG_STDDEV_SAMP:
    case BASALT_QAGG_STDDEV_POP:
    case BASALT_QAGG_VAR_SAMP:
    case BASALT_QAGG_VAR_POP: ci->state = c->distinct ? QS_COLLECT : QS_VAR; break;
    case BASALT_QAGG_MIN:
    case BASALT_QAGG_MAX:
    case BASALT_QAGG_ANY_VALUE: ci->state = QS_MINMAX; break;
    case BASALT_QAGG_BOOL_AND:
    case BASALT_QAGG_BOOL_OR: ci->state = QS_BOOL; break;
    case BASALT_QAGG_ARG_MIN:
    case BASALT_QAGG_ARG_MAX:
    case BASALT_QAGG_ARG_MIN_NULL:
    case BASALT_QAGG_ARG_MAX_NULL: ci->state = QS_ARG; break; /* DISTINCT changes nothing */
    case BASALT_QAGG_PRODUCT: ci->state = c->distinct ? QS_COLLECT : QS_PROD; break;
    case BASALT_QAGG_BIT_AND:
    case BASALT_QAGG_BIT_OR: ci->state = QS_BITS; break; /* nor here */
    case BASALT_QAGG_BIT_XOR: ci->state = c->distinct ? QS_COLLECT : QS_BITS; break;
    default: ci->state = QS_COLLECT; break; /* MEDIAN, QUANTILE_*, STRING_AGG, MODE */
    }
    if (c->kind == BASALT_QAGG_ARRAY_AGG)
        ci->in_phys = QP_STR; /* its pieces (basalt_qagg_list_piece) */
    if (basalt_qagg_call_two_args(c))
        ci->in2_phys = basalt_qagg_phys(c->input2);
    if (basalt_qagg_kind_binary(c->kind)) {
        ci->state = QS_COMOM; /* DISTINCT is refused by basalt_qagg_result_type */
        ci->in2_phys = basalt_qagg_phys(c->input2);
        ci->comom_int = basalt_qagg_comom_int(ci);
    }
    ci->is_max = c->kind == BASALT_QAGG_MAX || c->kind == BASALT_QAGG_ARG_MAX ||
                 c->kind == BASALT_QAGG_ARG_MAX_NULL;
    ci->arg_keeps_null = c->kind == BASALT_QAGG_ARG_MIN_NULL || c->kind == BASALT_QAGG_ARG_MAX_NULL;
    static const size_t sizes[] = {sizeof(int64_t), sizeof(struct qagg_sum_i),
                                   sizeof(struct qagg_sum_f), sizeof(struct qagg_var),
                                   sizeof(struct qagg_minmax), 1, 0,
                                   sizeof(struct qagg_comom), sizeof(struct qagg_arg),
                                   sizeof(struct qagg_prod), sizeof(struct qagg_bits)};
    _Static_assert(sizeof sizes / sizeof sizes[0] == QS_BITS + 1, "a size per state");
    ci->state_size = ci->comom_int ? sizeof(struct qagg_comom_i) : sizes[ci->state];
}

/* ------------------------------------------------------------ values */

void basalt_qagg_dd_add(double *hi, double *lo, double x)
{
    double s = *hi + x;
    double bp = s - *hi;
    *lo += (*hi - (s - bp)) + (x - bp);
    *hi = s;
}

static int cmp_double(double a, double b)
{
    /* DuckDB's order: NaN above everything; -0.0 before 0.0 so that min and
     * max do not depend on the order they arrive in. */
    bool na = isnan(a), nb = isnan(b);
    if (na || nb)
        return na == nb ? 0 : na ? 1 : -1;
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    return signbit(a) == signbit(b) ? 0 : signbit(a) ? -1 : 1;
}

int basalt_qagg_cell_cmp(enum qagg_phys p, const union qagg_cell *a, const union qagg_cell *b)
{
    switch (p) {
    case QP_BOOL: case QP_I8: case QP_I16: case QP_I32: case QP_I64:
        return a->i < b->i ? -1 : a->i > b->i;
    case QP_U8: case QP_U16: case QP_U32: case QP_U64:
        return a->u < b->u ? -1 : a->u > b->u;
    case QP_F32: case QP_F64: return cmp_double(a->f, b->f);
    case QP_DEC: return a->d < b->d ? -1 : a->d > b->d;
    case QP_IV: {
        struct qinterval x = a->iv, y = b->iv;
        basalt_qinterval_normalize(&x);
        basalt_qinterval_normalize(&y);
        return basalt_qinterval_cmp_fields(&x, &y);
    }
    case QP_STR: {
        int64_t n = a->s.n < b->s.n ? a->s.n : b->s.n;
        int c = n ? memcmp(a->s.p, b->s.p, (size_t)n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return a->s.n < b->s.n ? -1 : a->s.n > b->s.n;
    }
    }
    return 0;
}

bool basalt_qagg_cell_eq(enum qagg_phys p, const union qagg_cell *a, const union qagg_cell *b)
{
    if (p == QP_F32 || p == QP_F64)
        return (isnan(a->f) && isnan(b->f)) || a->f == b->f;
    return basalt_qagg_cell_cmp(p, a, b) == 0;
}

union qagg_cell basalt_qagg_minmax_value(const struct qagg_minmax *m)
{
    union qagg_cell v = m->v;
    if (m->has == QAGG_MM_INLINE) {
        v.s.p = (const char *)m;
        v.s.n = m->cap;
    }
    return v;
}

/* Stores string v in state m: inline when it fits and m owns no buffer (a
 * buffer, once made, is reused rather than freed for a shorter value). */
static basalt_status set_str(struct qagg_minmax *m, const union qagg_cell *v,
                             struct basalt_error *err)
{
    if ((uint64_t)v->s.n > UINT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "aggregate: string over 4 GiB");
    if (m->has != QAGG_MM_SET && (size_t)v->s.n <= QAGG_MM_INLINE_BYTES) {
        if (v->s.n)
            memcpy((char *)m, v->s.p, (size_t)v->s.n);
        m->cap = (uint32_t)v->s.n;
        m->has = QAGG_MM_INLINE;
        return BASALT_OK;
    }
    if (m->has != QAGG_MM_SET) {
        m->v.s.p = NULL;
        m->cap = 0;
    }
    if (m->cap < v->s.n || !m->v.s.p) {
        uint32_t cap = v->s.n > 32 ? (uint32_t)v->s.n : 32;
        char *p = basalt_realloc((char *)(uintptr_t)m->v.s.p, cap);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        m->v.s.p = p;
        m->cap = cap;
    }
    memcpy((char *)(uintptr_t)m->v.s.p, v->s.p, (size_t)v->s.n);
    m->v.s.n = v->s.n;
    m->has = QAGG_MM_SET;
    return BASALT_OK;
}

basalt_status basalt_qagg_minmax_set(struct qagg_minmax *m, enum qagg_phys p,
                                     const union qagg_cell *v, struct basalt_error *err)
{
    if (p == QP_STR)
        return set_str(m, v, err);
    m->has = QAGG_MM_SET;
    m->v = *v;
    return BASALT_OK;
}

void basalt_qagg_minmax_clear(struct qagg_minmax *m)
{
    if (m->has == QAGG_MM_SET && m->cap > 0)
        basalt_free((void *)(uintptr_t)m->v.s.p);
    m->has = QAGG_MM_NONE;
    m->cap = 0;
}

/* Folds value v into min/max state m. */
static basalt_status minmax_put(struct qagg_minmax *m, enum qagg_phys p, bool is_max,
                                const union qagg_cell *v, struct basalt_error *err)
{
    if (m->has) {
        union qagg_cell cur = basalt_qagg_minmax_value(m);
        int c = basalt_qagg_cell_cmp(p, v, &cur);
        if (is_max ? c <= 0 : c >= 0)
            return BASALT_OK;
    }
    if (p == QP_STR)
        return set_str(m, v, err);
    m->has = QAGG_MM_SET;
    m->v = *v;
    return BASALT_OK;
}

/* Appends (gid, v) to the call's collection; a string is copied into the
 * local's arena, since the batch it points into goes away. */
static basalt_status coll_push(struct basalt_qagg_local *l, int call, uint32_t gid,
                               const union qagg_cell *v, struct basalt_error *err);

/* An ordered STRING_AGG's value: the order key and the piece in one string
 * of the local's arena (basalt_qagg_keyed_cmp). */
static basalt_status coll_push_keyed(struct basalt_qagg_local *l, int call, uint32_t gid,
                                     const union qagg_cell *key, const union qagg_cell *piece,
                                     struct basalt_error *err)
{
    if ((uint64_t)key->s.n > UINT32_MAX - 4)
        return basalt_error_set(err, BASALT_LIMIT, "aggregate: order key over 4 GiB");
    size_t n = 4 + (size_t)key->s.n + (size_t)piece->s.n;
    char *p = basalt_arena_alloc(&l->arena, n, 1);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    uint32_t klen = (uint32_t)key->s.n;
    memcpy(p, &klen, 4);
    if (key->s.n)
        memcpy(p + 4, key->s.p, (size_t)key->s.n);
    if (piece->s.n)
        memcpy(p + 4 + klen, piece->s.p, (size_t)piece->s.n);
    union qagg_cell v;
    memset(&v, 0, sizeof v);
    v.s.p = p;
    v.s.n = (int64_t)n;
    return coll_push(l, call, gid, &v, err);
}

int basalt_qagg_keyed_cmp(const union qagg_cell *a, const union qagg_cell *b)
{
    uint32_t ka, kb;
    memcpy(&ka, a->s.p, 4);
    memcpy(&kb, b->s.p, 4);
    union qagg_cell x, y;
    x.s.p = a->s.p + 4;
    x.s.n = ka;
    y.s.p = b->s.p + 4;
    y.s.n = kb;
    int c = basalt_qagg_cell_cmp(QP_STR, &x, &y);
    if (c)
        return c;
    basalt_qagg_keyed_piece(a, &x.s.p, &x.s.n);
    basalt_qagg_keyed_piece(b, &y.s.p, &y.s.n);
    return basalt_qagg_cell_cmp(QP_STR, &x, &y);
}

static basalt_status coll_push(struct basalt_qagg_local *l, int call, uint32_t gid,
                               const union qagg_cell *v, struct basalt_error *err)
{
    struct qagg_coll *c = &l->coll[call];
    if (c->n == c->cap) {
        int64_t cap = c->cap ? c->cap * 2 : 1024;
        uint32_t *g = basalt_realloc(c->gid, (size_t)cap * sizeof *g);
        if (!g)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        c->gid = g;
        union qagg_cell *nv = basalt_realloc(c->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        c->v = nv;
        c->cap = cap;
    }
    union qagg_cell x = *v;
    if (l->agg->calls[call].in_phys == QP_STR && x.s.n > 0 && !l->agg->calls[call].call.ordered) {
        char *p = basalt_arena_alloc(&l->arena, (size_t)x.s.n, 1);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        memcpy(p, x.s.p, (size_t)x.s.n);
        x.s.p = p;
    }
    c->gid[c->n] = gid;
    c->v[c->n++] = x;
    return BASALT_OK;
}

/* ------------------------------------------------------------ updates */

/* Multiplies product state s by hi + lo (1 value, or the n of another
 * state when merging): the error of each product kept by an FMA. */
static void prod_mul_n(struct qagg_prod *s, double hi, double lo, int64_t n)
{
    if (n == 0)
        return;
    if (s->n == 0) {
        s->hi = hi;
        s->lo = lo;
        s->n = n;
        return;
    }
    double p = s->hi * hi;
    s->n += n;
    if (!isfinite(p) || p == 0) {
        s->hi = p; /* an infinity, a NaN or a zero is the answer from here */
        s->lo = 0;
        return;
    }
    double e = fma(s->hi, hi, -p) + (s->hi * lo + s->lo * hi);
    double t = p + e;
    s->lo = e - (t - p);
    s->hi = t;
}

static inline void prod_mul(struct qagg_prod *s, double x, double lo)
{
    prod_mul_n(s, x, lo, 1);
}

/* Folds n values' bits v into s (n 0: nothing). */
static inline void bits_fold(struct qagg_bits *s, enum basalt_qagg_kind k, uint64_t v, int64_t n)
{
    if (n == 0)
        return;
    if (s->n == 0)
        s->v = v;
    else if (k == BASALT_QAGG_BIT_AND)
        s->v &= v;
    else if (k == BASALT_QAGG_BIT_OR)
        s->v |= v;
    else
        s->v ^= v;
    s->n += n;
}

#define VALID(i) (!arg->valid || basalt_bitmap_get(arg->valid, arg->off + (i)))

/* States past this size are mostly out of cache: the loops below then
 * prefetch the state of the row UPDATE_AHEAD rows on, so the misses of
 * neighbouring rows overlap instead of queueing behind the loop's stores. */
#define UPDATE_PREFETCH_BYTES (256 * 1024)
#define UPDATE_AHEAD 16
#define PREFETCH_STATE(i)                                                                \
    do {                                                                                 \
        if (pf && (i) + UPDATE_AHEAD < n)                                                \
            __builtin_prefetch(&s[gids[(i) + UPDATE_AHEAD]], 1);                         \
    } while (0)

#define SUM_I_LOOP(T)                                                                    \
    do {                                                                                 \
        const T *d = (const T *)arg->data + arg->off;                                    \
        if (!arg->valid) {                                                               \
            for (int64_t i = 0; i < n; i++) {                                            \
                PREFETCH_STATE(i);                                                       \
                s[gids[i]].sum += d[i];                                                  \
                s[gids[i]].n++;                                                          \
            }                                                                            \
        } else {                                                                         \
            for (int64_t i = 0; i < n; i++) {                                            \
                PREFETCH_STATE(i);                                                       \
                bool ok = VALID(i);                                                      \
                s[gids[i]].sum += ok ? (qi128)d[i] : 0;                                  \
                s[gids[i]].n += ok;                                                      \
            }                                                                            \
        }                                                                                \
    } while (0)

#define SUM_F_LOOP(T)                                                                    \
    do {                                                                                 \
        const T *d = (const T *)arg->data + arg->off;                                    \
        for (int64_t i = 0; i < n; i++) {                                                \
            PREFETCH_STATE(i);                                                           \
            if (!VALID(i))                                                               \
                continue;                                                                \
            struct qagg_sum_f *x = &s[gids[i]];                                          \
            basalt_qagg_dd_add(&x->hi, &x->lo, (double)d[i]);                            \
            x->n++;                                                                      \
        }                                                                                \
    } while (0)

#define MINMAX_LOOP(T, F)                                                                \
    do {                                                                                 \
        const T *d = (const T *)arg->data + arg->off;                                    \
        for (int64_t i = 0; i < n; i++) {                                                \
            PREFETCH_STATE(i);                                                           \
            if (!VALID(i))                                                               \
                continue;                                                                \
            struct qagg_minmax *m = &s[gids[i]];                                         \
            T x_ = d[i];                                                                 \
            if (!m->has || (is_max ? x_ > (T)m->v.F : x_ < (T)m->v.F)) {                 \
                m->v.F = x_;                                                             \
                m->has = QAGG_MM_SET;                                                    \
            }                                                                            \
        }                                                                                \
    } while (0)

/* Global sum of a non-null int64 column: the low and high halves summed
 * apart cannot overflow within 2^31 rows, so the loop vectorises. */
static qi128 sum_i64_fast(const int64_t *d, int64_t n)
{
    qi128 total = 0;
    for (int64_t b = 0; b < n; b += (int64_t)1 << 30) {
        int64_t e = n - b < ((int64_t)1 << 30) ? n - b : (int64_t)1 << 30;
        uint64_t lo = 0;
        int64_t hi = 0;
        for (int64_t i = 0; i < e; i++) {
            lo += (uint32_t)d[b + i];
            hi += d[b + i] >> 32;
        }
        total += (qi128)hi * ((qi128)1 << 32) + (qi128)lo;
    }
    return total;
}

static void sum_f64_fast(const double *d, int64_t n, struct qagg_sum_f *s)
{
    double hi[4] = {0, 0, 0, 0}, lo[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            basalt_qagg_dd_add(&hi[k], &lo[k], d[i + k]);
    for (; i < n; i++)
        basalt_qagg_dd_add(&hi[0], &lo[0], d[i]);
    for (int k = 0; k < 4; k++) {
        basalt_qagg_dd_add(&s->hi, &s->lo, hi[k]);
        s->lo += lo[k];
    }
    s->n += n;
}

/* The fast global loops; false when none applies. */
static bool update_global(struct basalt_qagg_local *l, int call, const struct qagg_col *arg,
                          int64_t n)
{
    const struct qagg_callinfo *ci = &l->agg->calls[call];
    uint8_t *st = l->states[call];
    if (ci->state == QS_COUNT) {
        int64_t add = n;
        if (ci->call.kind == BASALT_QAGG_COUNT && arg->valid)
            add = basalt_bitmap_count(arg->valid, arg->off, n);
        *(int64_t *)st += add;
        return true;
    }
    if (arg && arg->valid)
        return false;
    if (ci->state == QS_SUM_I && ci->in_phys == QP_I64) {
        struct qagg_sum_i *s = (struct qagg_sum_i *)st;
        s->sum += sum_i64_fast((const int64_t *)arg->data + arg->off, n);
        s->n += n;
        return true;
    }
    if (ci->state == QS_SUM_I && ci->in_phys == QP_I32) {
        struct qagg_sum_i *s = (struct qagg_sum_i *)st;
        const int32_t *d = (const int32_t *)arg->data + arg->off;
        for (int64_t b = 0; b < n; b += (int64_t)1 << 30) {
            int64_t e = n - b < ((int64_t)1 << 30) ? n - b : (int64_t)1 << 30, acc = 0;
            for (int64_t i = 0; i < e; i++)
                acc += d[b + i];
            s->sum += acc;
        }
        s->n += n;
        return true;
    }
    if (ci->state == QS_SUM_F && ci->in_phys == QP_F64) {
        sum_f64_fast((const double *)arg->data + arg->off, n, (struct qagg_sum_f *)st);
        return true;
    }
    return false;
}

static basalt_status update_chunk(struct basalt_qagg_local *l, int call,
                                  const struct qagg_col *arg, const struct qagg_col *arg2,
                                  const uint32_t *gids, int64_t n, struct basalt_error *err)
{
    const struct qagg_callinfo *ci = &l->agg->calls[call];
    uint8_t *st = l->states[call];
    enum qagg_phys p = ci->in_phys;
    basalt_status rc;
    union qagg_cell v;
    bool pf = (uint64_t)l->n_groups * ci->state_size > UPDATE_PREFETCH_BYTES;
    switch (ci->state) {
    case QS_COUNT: {
        int64_t *s = (int64_t *)st;
        if (ci->call.kind == BASALT_QAGG_COUNT_STAR || !arg->valid) {
            for (int64_t i = 0; i < n; i++) {
                PREFETCH_STATE(i);
                s[gids[i]]++;
            }
        } else {
            for (int64_t i = 0; i < n; i++) {
                PREFETCH_STATE(i);
                s[gids[i]] += VALID(i);
            }
        }
        return BASALT_OK;
    }
    case QS_SUM_I: {
        struct qagg_sum_i *s = (struct qagg_sum_i *)st;
        switch (p) {
        case QP_I8: SUM_I_LOOP(int8_t); break;
        case QP_I16: SUM_I_LOOP(int16_t); break;
        case QP_I32: SUM_I_LOOP(int32_t); break;
        case QP_I64: SUM_I_LOOP(int64_t); break;
        case QP_U8: SUM_I_LOOP(uint8_t); break;
        case QP_U16: SUM_I_LOOP(uint16_t); break;
        case QP_U32: SUM_I_LOOP(uint32_t); break;
        case QP_U64: SUM_I_LOOP(uint64_t); break;
        case QP_DEC: {
            /* 16-byte cells read in place (TPC-H Q1's four decimal sums). */
            const uint8_t *d = (const uint8_t *)arg->data + 16 * arg->off;
            for (int64_t i = 0; i < n; i++) {
                PREFETCH_STATE(i);
                if (!VALID(i))
                    continue;
                qi128 x;
                memcpy(&x, d + 16 * i, 16);
                s[gids[i]].sum += x;
                s[gids[i]].n++;
            }
            break;
        }
        default: /* BOOL */
            for (int64_t i = 0; i < n; i++) {
                if (!VALID(i))
                    continue;
                basalt_qagg_cell_get(arg, p, i, &v);
                s[gids[i]].sum += (qi128)v.i;
                s[gids[i]].n++;
            }
            break;
        }
        return BASALT_OK;
    }
    case QS_SUM_F: {
        struct qagg_sum_f *s = (struct qagg_sum_f *)st;
        if (p == QP_F64)
            SUM_F_LOOP(double);
        else
            SUM_F_LOOP(float);
        return BASALT_OK;
    }
    case QS_VAR: {
        struct qagg_var *s = (struct qagg_var *)st;
        int scale = ci->call.input.scale;
        for (int64_t i = 0; i < n; i++) {
            if (!VALID(i))
                continue;
            basalt_qagg_cell_get(arg, p, i, &v);
            double x = basalt_qagg_cell_double(p, &v, scale), q = x * x;
            struct qagg_var *g = &s[gids[i]];
            if (g->n == 0)
                g->first = x;
            else if (!(x == g->first))
                g->varied = true;
            basalt_qagg_dd_add(&g->s_hi, &g->s_lo, x);
            basalt_qagg_dd_add(&g->q_hi, &g->q_lo, q);
            g->q_lo += fma(x, x, -q);
            g->n++;
        }
        return BASALT_OK;
    }
    case QS_MINMAX: {
        struct qagg_minmax *s = (struct qagg_minmax *)st;
        bool is_max = ci->is_max;
        if (p == QP_I64) {
            MINMAX_LOOP(int64_t, i);
            return BASALT_OK;
        }
        if (p == QP_I32) {
            MINMAX_LOOP(int32_t, i);
            return BASALT_OK;
        }
        for (int64_t i = 0; i < n; i++) {
            if (!VALID(i))
                continue;
            basalt_qagg_cell_get(arg, p, i, &v);
            if ((rc = minmax_put(&s[gids[i]], p, is_max, &v, err)) != BASALT_OK)
                return rc;
        }
        return BASALT_OK;
    }
    case QS_BOOL: {
        /* bit 0: a value was seen; bit 1: a FALSE (AND) or a TRUE (OR) was. */
        bool want = ci->call.kind == BASALT_QAGG_BOOL_OR;
        for (int64_t i = 0; i < n; i++) {
            if (!VALID(i))
                continue;
            bool b = basalt_bitmap_get(arg->data, arg->off + i);
            st[gids[i]] |= (uint8_t)(1 | (b == want) << 1);
        }
        return BASALT_OK;
    }
    case QS_COLLECT:
        if (ci->call.ordered) {
            /* STRING_AGG(x ORDER BY ...): rows with a piece and a key */
            union qagg_cell k;
            for (int64_t i = 0; i < n; i++) {
                if (!VALID(i) || !basalt_qagg_valid(arg2, i))
                    continue;
                basalt_qagg_cell_get(arg, p, i, &v);
                basalt_qagg_cell_get(arg2, QP_STR, i, &k);
                if ((rc = coll_push_keyed(l, call, gids[i], &k, &v, err)) != BASALT_OK)
                    return rc;
            }
            return BASALT_OK;
        }
        for (int64_t i = 0; i < n; i++) {
            if (ci->call.kind != BASALT_QAGG_COUNT_STAR && !VALID(i))
                continue;
            basalt_qagg_cell_get(arg, p, i, &v);
            if ((rc = coll_push(l, call, gids[i], &v, err)) != BASALT_OK)
                return rc;
        }
        return BASALT_OK;
    case QS_COMOM:
        basalt_qagg_comom_update(ci, st, arg, arg2, gids, n);
        return BASALT_OK;
    case QS_ARG:
        return basalt_qagg_arg_update(ci, (struct qagg_arg *)st, arg, arg2, gids, n, err);
    case QS_PROD: {
        struct qagg_prod *s = (struct qagg_prod *)st;
        int scale = ci->call.input.scale;
        for (int64_t i = 0; i < n; i++) {
            if (!VALID(i))
                continue;
            basalt_qagg_cell_get(arg, p, i, &v);
            prod_mul(&s[gids[i]], basalt_qagg_cell_double(p, &v, scale), 0);
        }
        return BASALT_OK;
    }
    case QS_BITS: {
        struct qagg_bits *s = (struct qagg_bits *)st;
        enum basalt_qagg_kind k = ci->call.kind;
        for (int64_t i = 0; i < n; i++) {
            if (!VALID(i))
                continue;
            basalt_qagg_cell_get(arg, p, i, &v);
            bits_fold(&s[gids[i]], k, v.u, 1);
        }
        return BASALT_OK;
    }
    }
    return BASALT_OK;
}

basalt_status basalt_qagg_update(struct basalt_qagg_local *l, int call,
                                 const struct qagg_col *arg, const struct qagg_col *arg2,
                                 const uint32_t *gids, int64_t n, bool global,
                                 struct basalt_error *err)
{
    if (!global)
        return update_chunk(l, call, arg, arg2, gids, n, err);
    if (update_global(l, call, arg, n))
        return BASALT_OK;
    /* l->gids stays all zero in a global aggregate. */
    for (int64_t b = 0; b < n; b += QAGG_CHUNK) {
        int64_t e = n - b < QAGG_CHUNK ? n - b : QAGG_CHUNK;
        struct qagg_col sub = *arg, sub2;
        sub.off += b;
        if (arg2) {
            sub2 = *arg2;
            sub2.off += b;
        }
        basalt_status st = update_chunk(l, call, &sub, arg2 ? &sub2 : NULL, l->gids, e, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ merging */

/* Folds state s of call ci into state d. */
static inline basalt_status combine_one(const struct qagg_callinfo *ci, uint8_t *d,
                                        const uint8_t *s, struct basalt_error *err)
{
    switch (ci->state) {
    case QS_COUNT: *(int64_t *)d += *(const int64_t *)s; break;
    case QS_SUM_I: {
        struct qagg_sum_i *x = (struct qagg_sum_i *)d;
        const struct qagg_sum_i *y = (const struct qagg_sum_i *)s;
        x->sum += y->sum;
        x->n += y->n;
        break;
    }
    case QS_SUM_F: {
        struct qagg_sum_f *x = (struct qagg_sum_f *)d;
        const struct qagg_sum_f *y = (const struct qagg_sum_f *)s;
        basalt_qagg_dd_add(&x->hi, &x->lo, y->hi);
        x->lo += y->lo;
        x->n += y->n;
        break;
    }
    case QS_VAR: {
        struct qagg_var *x = (struct qagg_var *)d;
        const struct qagg_var *y = (const struct qagg_var *)s;
        if (y->n > 0) {
            x->varied = x->n == 0 ? y->varied : x->varied || y->varied || !(y->first == x->first);
            if (x->n == 0)
                x->first = y->first;
        }
        basalt_qagg_dd_add(&x->s_hi, &x->s_lo, y->s_hi);
        x->s_lo += y->s_lo;
        basalt_qagg_dd_add(&x->q_hi, &x->q_lo, y->q_hi);
        x->q_lo += y->q_lo;
        x->n += y->n;
        break;
    }
    case QS_MINMAX: {
        const struct qagg_minmax *y = (const struct qagg_minmax *)s;
        if (y->has) {
            union qagg_cell v = basalt_qagg_minmax_value(y);
            return minmax_put((struct qagg_minmax *)d, ci->in_phys, ci->is_max, &v, err);
        }
        break;
    }
    case QS_BOOL: *d |= *s; break;
    case QS_COLLECT: break;
    case QS_COMOM:
        basalt_qagg_comom_combine(ci, d, s);
        break;
    case QS_ARG:
        return basalt_qagg_arg_combine(ci, (struct qagg_arg *)d, (const struct qagg_arg *)s, err);
    case QS_PROD: {
        const struct qagg_prod *y = (const struct qagg_prod *)s;
        prod_mul_n((struct qagg_prod *)d, y->hi, y->lo, y->n);
        break;
    }
    case QS_BITS: {
        const struct qagg_bits *y = (const struct qagg_bits *)s;
        bits_fold((struct qagg_bits *)d, ci->call.kind, y->v, y->n);
        break;
    }
    }
    return BASALT_OK;
}

basalt_status basalt_qagg_combine_many(struct basalt_qagg_local *dst, const uint32_t *dgids,
                                       const struct basalt_qagg_local *src, uint32_t sfirst,
                                       int64_t n, struct basalt_error *err)
{
    const struct basalt_qagg *a = dst->agg;
    for (int c = 0; c < a->n_calls; c++) {
        const struct qagg_callinfo *ci = &a->calls[c];
        size_t sz = ci->state_size;
        if (ci->state == QS_COLLECT)
            continue;
        uint8_t *d = dst->states[c];
        const uint8_t *s = src->states[c] + (size_t)sfirst * sz;
        for (int64_t k = 0; k < n; k++) {
            basalt_status st = combine_one(ci, d + (size_t)dgids[k] * sz, s + (size_t)k * sz,
                                           err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}

void basalt_qagg_states_free(struct basalt_qagg_local *l, int64_t from)
{
    const struct basalt_qagg *a = l->agg;
    for (int c = 0; c < a->n_calls; c++) {
        if (a->calls[c].state == QS_ARG && l->states[c]) {
            struct qagg_arg *s = (struct qagg_arg *)l->states[c];
            for (int64_t g = from; g < l->n_groups; g++)
                basalt_qagg_arg_free(&s[g]);
            continue;
        }
        if (a->calls[c].state != QS_MINMAX || a->calls[c].in_phys != QP_STR || !l->states[c])
            continue;
        struct qagg_minmax *s = (struct qagg_minmax *)l->states[c];
        for (int64_t g = from; g < l->n_groups; g++) {
            if (s[g].has == QAGG_MM_SET)
                basalt_free((void *)(uintptr_t)s[g].v.s.p);
            s[g].has = QAGG_MM_NONE;
        }
    }
}
