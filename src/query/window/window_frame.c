/* Frames: the rows each output row aggregates over, row after row along a
 * partition. ROWS frames are the row plus constant offsets; RANGE frames
 * without offsets run to the peer group's ends; GROUPS frames count peer
 * groups, each offset bound a cursor that steps a group whenever the
 * current row enters a new one; RANGE frames with offsets search the ORDER
 * BY key for the first row past the current row's bound value (key -/+
 * offset, window_range.c), starting from where the previous row's search
 * ended. EXCLUDE cuts the excluded rows out of the middle. For every frame
 * both ends, and both ends of the excluded rows, are non-decreasing from
 * one row to the next (offsets are constants and the key is sorted), which
 * is what lets the aggregates slide in one pass: each search moves forward
 * by as many rows as the bound passes, so a partition costs O(n). */
#include "window/window_impl.h"

/* i + d, saturating: offsets come from the query and may be anything. */
static int64_t add_sat(int64_t i, int64_t d)
{
    int64_t r;
    if (__builtin_add_overflow(i, d, &r))
        return d > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sub_sat(int64_t i, int64_t d)
{
    int64_t r;
    if (__builtin_sub_overflow(i, d, &r))
        return d < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t clip(int64_t x, int64_t s, int64_t e)
{
    return x < s ? s : x > e ? e : x;
}

bool basalt_qw_frame_ranged(const struct basalt_qplan_window_call *c)
{
    return c->has_frame && !c->rows && !c->groups &&
           (c->start == BASALT_QPLAN_PRECEDING || c->start == BASALT_QPLAN_FOLLOWING ||
            c->end == BASALT_QPLAN_PRECEDING || c->end == BASALT_QPLAN_FOLLOWING);
}

static bool grouped(const struct basalt_qplan_window_call *c)
{
    return c->has_frame && !c->rows && c->groups;
}

/* ------------------------------------------------------------------ GROUPS */

/* A cursor at the first row of the group d groups from the partition's
 * first (d < 0: the partition's first row until the current row has moved
 * -d groups). */
static void gcur_init(struct qw_gcur *g, int64_t d, const uint8_t *bnd, int64_t s, int64_t e)
{
    g->pos = s;
    g->wait = d < 0 ? (d == INT64_MIN ? INT64_MAX : -d) : 0;
    for (int64_t t = 0; t < d && g->pos < e; t++)
        g->pos = basalt_qw_peer_end(bnd, g->pos, e);
}

/* The current row entered the next group. */
static void gcur_step(struct qw_gcur *g, const uint8_t *bnd, int64_t e)
{
    if (g->wait > 0)
        g->wait--;
    else if (g->pos < e)
        g->pos = basalt_qw_peer_end(bnd, g->pos, e);
}

/* The group offset of a bound: its first row's group is the current
 * row's plus this (an end's first row is the one after the frame). */
static int64_t group_delta(enum basalt_qplan_frame_bound b, int64_t off, bool end)
{
    int64_t d = b == BASALT_QPLAN_PRECEDING ? (off == INT64_MIN ? INT64_MAX : -off) : off;
    return end ? add_sat(d, 1) : d;
}

/* ------------------------------------------------------------------ RANGE offsets */

/* Whether row j's key lies before the bound of row i (so the frame starts,
 * or ends, after j): ascending, key < bound for a start and key <= bound
 * for an end; descending the other way. */
static inline bool before(const struct qw_call *k, const struct qw_view *bound, int64_t j,
                          int64_t i, bool end, int64_t *compares)
{
    (*compares)++;
    int c = basalt_qw_cmp_rows(&k->rkey, j, bound, i);
    if (k->desc)
        c = -c;
    return end ? c <= 0 : c < 0;
}

/* The first row of [lo, hi) not before row i's bound, found from hint p
 * (the previous row's answer): gallops forward or back from it, so a
 * bound that moves d rows costs O(log d). */
static int64_t search(const struct qw_call *k, const struct qw_view *bound, int64_t i, bool end,
                      int64_t lo, int64_t hi, int64_t p, int64_t *n)
{
    p = clip(p, lo, hi);
    int64_t a, b; /* the answer lies in (a, b]: before(a) (or a < lo), !before(b) (or b == hi) */
    if (p < hi && before(k, bound, p, i, end, n)) {
        a = p;
        int64_t step = 1;
        for (;;) {
            int64_t q = a + step;
            if (q >= hi) {
                b = hi;
                break;
            }
            if (!before(k, bound, q, i, end, n)) {
                b = q;
                break;
            }
            a = q;
            step *= 2;
        }
    } else {
        b = p;
        int64_t step = 1;
        for (;;) {
            int64_t q = b - step;
            if (q < lo) {
                a = lo - 1;
                break;
            }
            if (before(k, bound, q, i, end, n)) {
                a = q;
                break;
            }
            b = q;
            step *= 2;
        }
    }
    while (b - a > 1) {
        int64_t m = a + (b - a) / 2;
        if (before(k, bound, m, i, end, n))
            a = m;
        else
            b = m;
    }
    return b;
}

/* ------------------------------------------------------------------ frames */

void basalt_qw_fcur_init(struct qw_fcur *f, struct qw_run *r, const struct qw_call *k,
                         int64_t s, int64_t e)
{
    const struct basalt_qplan_window_call *c = k->c;
    f->c = c;
    f->k = k;
    f->bnd = r->bnd;
    f->has_order = r->spec->n_order > 0;
    f->s = s;
    f->e = e;
    f->plo = f->phi = s;
    f->vs = s;
    f->ve = e;
    f->ra = f->rb = s;
    f->compares = 0;
    f->total = &r->range_compares;
    if (k->ranged) {
        /* NULL keys sort together at one end of the partition. */
        const uint8_t *ok = k->rkey.valid;
        if (ok != NULL) {
            while (f->vs < e && !ok[f->vs])
                f->vs++;
            while (f->ve > f->vs && !ok[f->ve - 1])
                f->ve--;
        }
        f->ra = f->rb = f->vs;
    }
    /* GROUPS bounds without an offset leave their cursor still at s. */
    gcur_init(&f->ga, 0, r->bnd, s, e);
    gcur_init(&f->gb, 0, r->bnd, s, e);
    f->ga.wait = f->gb.wait = INT64_MAX;
    if (grouped(c)) {
        if (c->start == BASALT_QPLAN_PRECEDING || c->start == BASALT_QPLAN_FOLLOWING)
            gcur_init(&f->ga, group_delta(c->start, c->start_offset, false), r->bnd, s, e);
        if (c->end == BASALT_QPLAN_PRECEDING || c->end == BASALT_QPLAN_FOLLOWING)
            gcur_init(&f->gb, group_delta(c->end, c->end_offset, true), r->bnd, s, e);
    }
}

/* A ROWS or RANGE / GROUPS bound without an offset. */
static int64_t plain_bound(const struct basalt_qplan_window_call *c, enum basalt_qplan_frame_bound b,
                           int64_t off, bool end, const struct qw_fcur *f, int64_t i)
{
    switch (b) {
    case BASALT_QPLAN_UNBOUNDED_PRECEDING: return f->s;
    case BASALT_QPLAN_UNBOUNDED_FOLLOWING: return f->e;
    case BASALT_QPLAN_CURRENT_ROW: return c->rows ? (end ? i + 1 : i) : (end ? f->phi : f->plo);
    case BASALT_QPLAN_PRECEDING: {
        int64_t x = sub_sat(i, off);
        return end ? add_sat(x, 1) : x;
    }
    case BASALT_QPLAN_FOLLOWING: {
        int64_t x = add_sat(i, off);
        return end ? add_sat(x, 1) : x;
    }
    }
    return f->s;
}

void basalt_qw_fcur_next(struct qw_fcur *f, int64_t i, struct qw_frame *out)
{
    const struct basalt_qplan_window_call *c = f->c;
    const struct qw_call *k = f->k;
    if (i >= f->phi) {
        if (i > f->s && grouped(c)) {
            gcur_step(&f->ga, f->bnd, f->e);
            gcur_step(&f->gb, f->bnd, f->e);
        }
        f->plo = i;
        f->phi = basalt_qw_peer_end(f->bnd, i, f->e);
    }
    int64_t a, b;
    if (!c->has_frame) {
        a = f->s;
        b = f->has_order ? f->phi : f->e;
    } else if (k->ranged) {
        bool null = k->rkey.valid != NULL && !k->rkey.valid[i];
        bool so = c->start == BASALT_QPLAN_PRECEDING || c->start == BASALT_QPLAN_FOLLOWING;
        bool eo = c->end == BASALT_QPLAN_PRECEDING || c->end == BASALT_QPLAN_FOLLOWING;
        /* A NULL key has no value to move by: its bound is its peers'. */
        if (!so)
            a = plain_bound(c, c->start, 0, false, f, i);
        else if (null)
            a = f->plo;
        else
            a = f->ra = search(k, &k->rlo, i, false, f->vs, f->ve, f->ra, &f->compares);
        if (!eo)
            b = plain_bound(c, c->end, 0, true, f, i);
        else if (null)
            b = f->phi;
        else
            b = f->rb = search(k, &k->rhi, i, true, f->vs, f->ve, f->rb, &f->compares);
    } else if (grouped(c)) {
        bool so = c->start == BASALT_QPLAN_PRECEDING || c->start == BASALT_QPLAN_FOLLOWING;
        bool eo = c->end == BASALT_QPLAN_PRECEDING || c->end == BASALT_QPLAN_FOLLOWING;
        a = so ? f->ga.pos : plain_bound(c, c->start, 0, false, f, i);
        b = eo ? f->gb.pos : plain_bound(c, c->end, 0, true, f, i);
    } else {
        a = plain_bound(c, c->start, c->start_offset, false, f, i);
        b = plain_bound(c, c->end, c->end_offset, true, f, i);
    }
    a = clip(a, f->s, f->e);
    b = clip(b, f->s, f->e);
    if (b < a)
        b = a;
    out->fs = a;
    out->fe = b;
    out->self = -1;
    int64_t xlo = a, xhi = a;
    switch (c->has_frame ? c->exclude : BASALT_QPLAN_EXCLUDE_NO_OTHERS) {
    case BASALT_QPLAN_EXCLUDE_CURRENT_ROW:
        xlo = i;
        xhi = i + 1;
        break;
    case BASALT_QPLAN_EXCLUDE_GROUP:
        xlo = f->plo;
        xhi = f->phi;
        break;
    case BASALT_QPLAN_EXCLUDE_TIES:
        xlo = f->plo;
        xhi = f->phi;
        if (i >= a && i < b)
            out->self = i;
        break;
    default: break;
    }
    out->xs = clip(xlo, a, b);
    out->xe = clip(xhi, out->xs, b);
}

void basalt_qw_fcur_done(struct qw_fcur *f)
{
    if (f->compares > 0)
        atomic_fetch_add(f->total, f->compares);
}

bool basalt_qw_frame_whole(const struct basalt_qplan_window_call *c, bool has_order)
{
    if (!c->has_frame)
        return !has_order;
    if (c->exclude != BASALT_QPLAN_EXCLUDE_NO_OTHERS)
        return false;
    bool start = c->start == BASALT_QPLAN_UNBOUNDED_PRECEDING ||
                 (!c->rows && !has_order && c->start == BASALT_QPLAN_CURRENT_ROW);
    bool end = c->end == BASALT_QPLAN_UNBOUNDED_FOLLOWING ||
               (!c->rows && !has_order && c->end == BASALT_QPLAN_CURRENT_ROW);
    return start && end;
}

bool basalt_qw_frame_running(const struct basalt_qplan_window_call *c, bool has_order)
{
    if (!c->has_frame)
        return true;
    return c->start == BASALT_QPLAN_UNBOUNDED_PRECEDING ||
           (!c->rows && !has_order && c->start == BASALT_QPLAN_CURRENT_ROW);
}

bool basalt_qw_frame_to_end(const struct basalt_qplan_window_call *c, bool has_order)
{
    if (!c->has_frame)
        return !has_order;
    return c->end == BASALT_QPLAN_UNBOUNDED_FOLLOWING ||
           (!c->rows && !has_order && c->end == BASALT_QPLAN_CURRENT_ROW);
}
