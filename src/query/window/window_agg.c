/* COUNT, SUM, AVG, MIN and MAX over frames, one partition at a time.
 *
 * Sums: two accumulators run along the partition, one at the frame's end
 * and one at its start; a frame's value is their difference. Both ends only
 * move forward, so every row costs O(1) whatever the frame, and a frame that
 * starts at the partition needs only the first accumulator. Integer and
 * DECIMAL sums are exact (128 bits; DECIMALs beyond 18 digits keep the low
 * and high 64-bit halves of their values apart, so no intermediate
 * overflows); DOUBLE sums run in double-double with NaN and infinities
 * counted apart, so a difference of prefixes loses nothing an ordinary
 * running sum would keep.
 *
 * MIN/MAX: a running best when the frame starts at the partition, else a
 * monotonic deque of candidate rows (each row pushed and popped at most
 * once). Whole-partition frames are computed once per partition.
 *
 * EXCLUDE leaves a frame's rows before the excluded ones and after them
 * (and, under TIES, the current row): sums add the accumulators of both
 * parts, MIN/MAX keep one deque (or running best) per part; every part's
 * ends move forward too. */
#include <math.h>
#include <string.h>

#include "window/window_impl.h"

bool basalt_qw_sum_wide(const struct ArrowSchema *field, const struct qw_view *arg)
{
    struct basalt_query_type t;
    return arg->kind == QWV_DEC &&
           basalt_query_type_from_format(field->format, &t, NULL) == BASALT_OK &&
           t.precision > 18;
}

void basalt_qw_acc_add(struct qw_acc *a, const struct qw_call *k, int64_t i)
{
    const struct qw_view *v = &k->arg;
    if (v->valid != NULL && !v->valid[i])
        return;
    a->cnt++;
    if (v->data == NULL) /* COUNT: validity only */
        return;
    switch (v->kind) {
    case QWV_I64: a->sum += ((const int64_t *)v->data)[i]; break;
    case QWV_U64: a->sum += (qi128)((const uint64_t *)v->data)[i]; break;
    case QWV_DEC: {
        qi128 x = ((const qi128 *)v->data)[i];
        if (k->wide) {
            a->sum += (qi128)(uint64_t)(unsigned __int128)x;
            a->hi += (qi128)(int64_t)(x >> 64);
        } else {
            a->sum += x;
        }
        break;
    }
    case QWV_F64: {
        double x = ((const double *)v->data)[i];
        if (isnan(x)) {
            a->nan++;
        } else if (isinf(x)) {
            if (x > 0)
                a->pinf++;
            else
                a->ninf++;
        } else {
            double s = a->dh + x, bp = s - a->dh;
            a->dl += (a->dh - (s - bp)) + (x - bp);
            a->dh = s;
        }
        break;
    }
    case QWV_STR: break;
    }
}

/* e - s of two DOUBLE accumulators, rounded. */
static double dd_diff(const struct qw_acc *e, const struct qw_acc *s)
{
    int64_t nan = e->nan - s->nan, pinf = e->pinf - s->pinf, ninf = e->ninf - s->ninf;
    if (nan > 0 || (pinf > 0 && ninf > 0))
        return NAN;
    if (pinf > 0)
        return INFINITY;
    if (ninf > 0)
        return -INFINITY;
    double d = e->dh - s->dh, bp = d - e->dh;
    double err = (e->dh - (d - bp)) + (-s->dh - bp);
    return d + (err + (e->dl - s->dl));
}

/* e - s of two wide DECIMAL accumulators into *out; false when it does not
 * fit 128 bits. */
static bool wide_diff(const struct qw_acc *e, const struct qw_acc *s, qi128 *out, double *approx)
{
    qi128 dl = e->sum - s->sum, dh = e->hi - s->hi; /* dl in [0, 2^127) */
    qi128 h = dh + (dl >> 64);
    uint64_t l = (uint64_t)(unsigned __int128)dl;
    *approx = (double)h * 18446744073709551616.0 + (double)l;
    if (h < INT64_MIN || h > INT64_MAX)
        return false;
    *out = (qi128)(((unsigned __int128)(uint64_t)(int64_t)h << 64) | l);
    return true;
}

/* Writes row i's value of a SUM/AVG/COUNT from the frame's accumulators. */
static void emit(struct qw_call *k, int64_t i, const struct qw_acc *e, const struct qw_acc *s)
{
    int64_t cnt = e->cnt - s->cnt;
    enum basalt_qplan_window_fn fn = k->c->fn;
    if (fn == BASALT_QPLAN_WIN_COUNT) {
        ((int64_t *)k->vals)[i] = cnt;
        return;
    }
    k->valid[i] = cnt > 0;
    if (cnt == 0) {
        /* a NULL's slot is still read (casts above convert it): zero */
        if (k->okind == QWO_DEC)
            ((qi128 *)k->vals)[i] = 0;
        else
            ((double *)k->vals)[i] = 0;
        return;
    }
    if (k->arg.kind == QWV_F64) {
        double d = dd_diff(e, s);
        ((double *)k->vals)[i] = fn == BASALT_QPLAN_WIN_AVG ? d / (double)cnt : d;
        return;
    }
    qi128 sum = e->sum - s->sum;
    if (!k->wide) {
        /* Sums of 64-bit values (integers, DECIMALs up to 18 digits) stay far
         * inside DECIMAL(38) for any row count an array can hold. */
        if (fn == BASALT_QPLAN_WIN_AVG) {
            double d = (double)sum / (double)cnt;
            ((double *)k->vals)[i] = k->arg.kind == QWV_DEC ? d / k->scale : d;
        } else {
            ((qi128 *)k->vals)[i] = sum;
        }
        return;
    }
    double approx;
    bool fits = wide_diff(e, s, &sum, &approx);
    if (fn == BASALT_QPLAN_WIN_AVG) {
        ((double *)k->vals)[i] = approx / (double)cnt / k->scale;
        return;
    }
    if (!fits || sum >= k->limit || sum <= -k->limit) {
        k->valid[i] = 0;
        long long prev = atomic_load(&k->overflow);
        while ((prev < 0 || prev > i) &&
               !atomic_compare_exchange_weak(&k->overflow, &prev, (long long)i)) {
        }
        return;
    }
    ((qi128 *)k->vals)[i] = sum;
}

/* a += b: the accumulator of the rows of both. */
static void acc_plus(struct qw_acc *a, const struct qw_acc *b)
{
    a->sum += b->sum;
    a->hi += b->hi;
    a->cnt += b->cnt;
    a->nan += b->nan;
    a->pinf += b->pinf;
    a->ninf += b->ninf;
    double s = a->dh + b->dh, bp = s - a->dh;
    a->dl += b->dl + ((a->dh - (s - bp)) + (b->dh - bp));
    a->dh = s;
}

/* In a stretch, a frame to the partition's end: the partition's sum (read
 * before its stretches) less the sum of the rows before the frame's start,
 * the carried prefix then the held rows, added in the order a run over the
 * whole partition adds them, so the bits are the same. */
static int sums_to_end(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e)
{
    const struct basalt_qwin_carry *cy = r->carry;
    const struct qw_carry_call *cc = &cy->calls[k - r->calls];
    bool whole = basalt_qw_frame_whole(k->c, r->spec->n_order > 0);
    struct qw_acc before;
    memset(&before, 0, sizeof before);
    if (!whole)
        before = cc->prefix;
    struct qw_fcur fc;
    struct qw_frame f;
    basalt_qw_fcur_init(&fc, r, k, s, e);
    for (int64_t i = s, ps = s; i < e; i++) {
        basalt_qw_fcur_next(&fc, i, &f);
        if (whole)
            f.fs = s;
        if (k->c->fn == BASALT_QPLAN_WIN_COUNT_STAR) {
            ((int64_t *)k->vals)[i] = cc->whole.cnt - (whole ? 0 : cy->first + (f.fs - s));
            continue;
        }
        for (; ps < f.fs; ps++)
            basalt_qw_acc_add(&before, k, ps);
        emit(k, i, &cc->whole, &before);
    }
    basalt_qw_fcur_done(&fc);
    return whole ? 0 : 2;
}

static int sums(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e)
{
    if (basalt_qw_reads_end(r, k))
        return sums_to_end(r, k, s, e);
    const struct basalt_qplan_window_call *c = k->c;
    bool has_order = r->spec->n_order > 0;
    bool running = basalt_qw_frame_running(c, has_order);
    bool excl = c->has_frame && c->exclude != BASALT_QPLAN_EXCLUDE_NO_OTHERS;
    const struct qw_carry_call *carry = r->carry ? &r->carry->calls[k - r->calls] : NULL;
    struct qw_fcur fc;
    struct qw_frame f;
    basalt_qw_fcur_init(&fc, r, k, s, e);
    /* A stretch's COUNT of values needs the values: rows before it may
     * have held NULLs. */
    if (c->fn == BASALT_QPLAN_WIN_COUNT_STAR ||
        (c->fn == BASALT_QPLAN_WIN_COUNT && k->arg.valid == NULL && carry == NULL)) {
        /* Counting rows needs only the frame (and, in a stretch, the rows
         * before it when the frame starts at the partition). */
        int64_t before = carry != NULL && running ? r->carry->first : 0;
        int64_t *out = k->vals;
        for (int64_t i = s; i < e; i++) {
            basalt_qw_fcur_next(&fc, i, &f);
            out[i] = (f.fe - f.fs) - (f.xe - f.xs) + (f.self >= 0) + before;
        }
        basalt_qw_fcur_done(&fc);
        return 2;
    }
    struct qw_acc as, ae;
    memset(&as, 0, sizeof as);
    memset(&ae, 0, sizeof ae);
    if (basalt_qw_frame_whole(c, has_order)) {
        for (int64_t i = s; i < e; i++)
            basalt_qw_acc_add(&ae, k, i);
        for (int64_t i = s; i < e; i++)
            emit(k, i, &ae, &as);
        return 0;
    }
    /* A running frame in a stretch starts with the rows before it. */
    if (carry != NULL && running)
        ae = carry->prefix;
    /* EXCLUDE: two more accumulators at the excluded rows' ends; the
     * frame's rows are [fs, xs) and [xe, fe), plus the current row under
     * TIES. */
    struct qw_acc axs = ae, axe = ae;
    int64_t ps = s, pe = s, pxs = s, pxe = s;
    for (int64_t i = s; i < e; i++) {
        basalt_qw_fcur_next(&fc, i, &f);
        for (; pe < f.fe; pe++)
            basalt_qw_acc_add(&ae, k, pe);
        for (; ps < f.fs; ps++)
            basalt_qw_acc_add(&as, k, ps);
        if (!excl) {
            emit(k, i, &ae, &as);
            continue;
        }
        for (; pxs < f.xs; pxs++)
            basalt_qw_acc_add(&axs, k, pxs);
        for (; pxe < f.xe; pxe++)
            basalt_qw_acc_add(&axe, k, pxe);
        struct qw_acc hi = ae, lo = axe;
        acc_plus(&hi, &axs);
        acc_plus(&lo, &as);
        if (f.self >= 0)
            basalt_qw_acc_add(&hi, k, f.self);
        emit(k, i, &hi, &lo);
    }
    basalt_qw_fcur_done(&fc);
    return running ? 1 : 2;
}

int basalt_qw_cmp_rows(const struct qw_view *va, int64_t a, const struct qw_view *vb, int64_t b)
{
    switch (va->kind) {
    case QWV_I64: {
        int64_t x = ((const int64_t *)va->data)[a], y = ((const int64_t *)vb->data)[b];
        return (x > y) - (x < y);
    }
    case QWV_U64: {
        uint64_t x = ((const uint64_t *)va->data)[a], y = ((const uint64_t *)vb->data)[b];
        return (x > y) - (x < y);
    }
    case QWV_DEC: {
        qi128 x = ((const qi128 *)va->data)[a], y = ((const qi128 *)vb->data)[b];
        return (x > y) - (x < y);
    }
    case QWV_STR: {
        const struct qstr *x = (const struct qstr *)va->data + a,
                          *y = (const struct qstr *)vb->data + b;
        int64_t n = x->len < y->len ? x->len : y->len;
        int c = n > 0 ? memcmp(x->ptr, y->ptr, (size_t)n) : 0;
        if (c != 0)
            return c;
        return (x->len > y->len) - (x->len < y->len);
    }
    case QWV_F64: break;
    }
    return 0;
}

static inline int cmp_rows(const struct qw_view *v, int64_t a, int64_t b)
{
    return basalt_qw_cmp_rows(v, a, v, b);
}

/* A monotonic deque of candidate rows for the best of a sliding window
 * [lo, hi) whose ends only move forward: rows no better than a newcomer
 * can never be a window's best again, so each row is pushed and popped at
 * most once. */
struct mdq {
    int64_t *d;
    int64_t head, tail, next; /* next: the first row not yet pushed */
};

static int64_t mdq_slide(struct mdq *q, const struct qw_view *v, int sign, int64_t lo,
                         int64_t hi, int64_t *pushes)
{
    if (q->next < lo) { /* the window jumped past every row held */
        q->head = q->tail = 0;
        q->next = lo;
    }
    for (; q->next < hi; q->next++) {
        int64_t p = q->next;
        if (v->valid != NULL && !v->valid[p])
            continue;
        while (q->tail > q->head && sign * cmp_rows(v, p, q->d[q->tail - 1]) <= 0)
            q->tail--;
        q->d[q->tail++] = p;
        (*pushes)++;
    }
    while (q->head < q->tail && q->d[q->head] < lo)
        q->head++;
    return q->head < q->tail ? q->d[q->head] : QW_SRC_NULL;
}

/* Whether row u beats t (a row, the carried row, or none). */
static bool better(const struct qw_view *v, int sign, int64_t u, int64_t t,
                   const struct qw_carry_call *carry)
{
    if (t == QW_SRC_NULL)
        return true;
    if (t == QW_SRC_CARRY)
        return sign * basalt_qw_cmp_rows(v, u, &carry->row_view, 0) < 0;
    return sign * cmp_rows(v, u, t) < 0;
}

static int minmax(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e, int worker,
                  int64_t *pushes)
{
    const struct basalt_qplan_window_call *c = k->c;
    const struct qw_view *v = &k->arg;
    int sign = c->fn == BASALT_QPLAN_WIN_MIN ? 1 : -1; /* better: sign * cmp < 0 */
    int64_t *src = k->vals;
    bool has_order = r->spec->n_order > 0;
    bool excl = c->has_frame && c->exclude != BASALT_QPLAN_EXCLUDE_NO_OTHERS;
#define VALID(i) (v->valid == NULL || v->valid[i])
    if (basalt_qw_reads_end(r, k)) {
        /* A stretch of a partition whose best row was found before its
         * stretches (the whole partition is every row's frame). */
        int64_t t = basalt_qw_carried_row(r, (int)(k - r->calls)) != NULL ? QW_SRC_CARRY
                                                                           : QW_SRC_NULL;
        for (int64_t i = s; i < e; i++)
            src[i] = t;
        return 0;
    }
    if (basalt_qw_frame_whole(c, has_order)) {
        int64_t best = QW_SRC_NULL;
        for (int64_t i = s; i < e; i++)
            if (VALID(i) && (best < 0 || sign * cmp_rows(v, i, best) < 0))
                best = i;
        for (int64_t i = s; i < e; i++)
            src[i] = best;
        return 0;
    }
    bool running = basalt_qw_frame_running(c, has_order);
    /* The frame's rows before the excluded ones (all of them without
     * EXCLUDE) and after them. */
    struct mdq left = {NULL, 0, 0, s}, right = {NULL, 0, 0, s};
    if (r->deque != NULL) {
        left.d = r->deque[worker];
        right.d = r->deque[worker] + r->deque_cap;
    }
    int64_t best = QW_SRC_NULL, pe = s;
    /* A running frame in a stretch starts with the best of the rows before. */
    const struct qw_carry_call *carry = r->carry ? &r->carry->calls[k - r->calls] : NULL;
    if (running && carry != NULL && carry->has_row)
        best = QW_SRC_CARRY;
    struct qw_fcur fc;
    struct qw_frame f;
    basalt_qw_fcur_init(&fc, r, k, s, e);
    for (int64_t i = s; i < e; i++) {
        basalt_qw_fcur_next(&fc, i, &f);
        int64_t upto = excl ? f.xs : f.fe, t;
        if (running) {
            /* The frame (before the excluded rows) is [s, upto): the best so far. */
            for (; pe < upto; pe++)
                if (VALID(pe) && better(v, sign, pe, best, carry))
                    best = pe;
            t = best;
        } else {
            t = mdq_slide(&left, v, sign, f.fs, upto, pushes);
        }
        if (excl) {
            int64_t u = mdq_slide(&right, v, sign, f.xe, f.fe, pushes);
            if (u >= 0 && better(v, sign, u, t, carry))
                t = u;
            if (f.self >= 0 && VALID(f.self) && better(v, sign, f.self, t, carry))
                t = f.self;
        }
        src[i] = t;
    }
#undef VALID
    basalt_qw_fcur_done(&fc);
    return running ? 1 : 2;
}

int basalt_qw_agg(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e, int worker,
                  int64_t *pushes)
{
    if (k->c->fn == BASALT_QPLAN_WIN_MIN || k->c->fn == BASALT_QPLAN_WIN_MAX)
        return minmax(r, k, s, e, worker, pushes);
    return sums(r, k, s, e);
}
