/* Stretches: a partition too large to hold is computed a stretch of its rows
 * at a time (plan/run_window_spill.c cuts them). A stretch's rows are held
 * with the rows around them that its output rows read (LAG's offset, a
 * frame's row offsets); what the partition's earlier rows leave to the
 * calls is the carry: their count (ROW_NUMBER, RANK, COUNT(*)), the
 * DENSE_RANK reached, the sums of running COUNT/SUM/AVG frames, the best
 * value of running MIN/MAX frames and the first (n-th) row of running
 * FIRST_VALUE (NTH_VALUE) frames, kept as one row of the input; and the
 * partition's size when the caller knows it (NTILE, PERCENT_RANK and
 * CUME_DIST need it: a window without PARTITION BY). Frames to the
 * partition's end need its last rows, and RANGE and GROUPS frames with
 * offsets read as many rows as the ORDER BY values or the peer groups
 * make them: a window with one is not computed in stretches; nor is one
 * with EXCLUDE in a frame from the partition's start (the carry cannot
 * take rows out). */
#include <stdio.h>
#include <string.h>

#include "window/window_impl.h"

/* Offsets past this are not held as context: the stretch would be the
 * partition. */
#define REACH_MAX ((int64_t)1 << 40)

/* Widens [*lo, *hi] (rows relative to the output row) by a frame bound's
 * reach. False for a bound a stretch cannot hold. */
static bool reach(enum basalt_qplan_frame_bound b, int64_t off, bool rows, bool has_order,
                  int64_t *lo, int64_t *hi, bool *peers)
{
    int64_t d = 0;
    switch (b) {
    case BASALT_QPLAN_UNBOUNDED_PRECEDING: return true; /* the carry */
    case BASALT_QPLAN_UNBOUNDED_FOLLOWING: return false;
    case BASALT_QPLAN_CURRENT_ROW:
        if (!rows) {
            if (!has_order)
                return false; /* RANGE without ORDER BY: the whole partition */
            *peers = true;
        }
        break;
    case BASALT_QPLAN_PRECEDING:
    case BASALT_QPLAN_FOLLOWING:
        if (off > REACH_MAX || off < -REACH_MAX)
            return false;
        d = b == BASALT_QPLAN_PRECEDING ? -off : off;
        break;
    }
    if (d < *lo)
        *lo = d;
    if (d > *hi)
        *hi = d;
    return true;
}

static const char *fn_name(enum basalt_qplan_window_fn f)
{
    static const char *const names[] = {
        "ROW_NUMBER", "RANK",        "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE",
        "LAG",        "LEAD",        "FIRST_VALUE", "LAST_VALUE",  "NTH_VALUE", "COUNT",
        "COUNT",      "SUM",         "AVG",         "MIN",         "MAX"};
    return (size_t)f < sizeof names / sizeof *names ? names[f] : "?";
}

bool basalt_qwin_stretchable(const struct basalt_qwin_spec *spec, bool sized, int64_t *behind,
                             int64_t *ahead, bool *peers, char *why, size_t why_size)
{
    bool has_order = spec->n_order > 0;
    int64_t lo = 0, hi = 0;
    *peers = false;
    for (int i = 0; i < spec->n_calls; i++) {
        const struct basalt_qplan_window_call *c = &spec->calls[i];
        const char *no = NULL;
        switch (c->fn) {
        case BASALT_QPLAN_WIN_ROW_NUMBER: break;
        case BASALT_QPLAN_WIN_RANK:
        case BASALT_QPLAN_WIN_DENSE_RANK:
            if (!has_order)
                no = "without ORDER BY";
            *peers = true;
            break;
        case BASALT_QPLAN_WIN_PERCENT_RANK:
        case BASALT_QPLAN_WIN_CUME_DIST:
        case BASALT_QPLAN_WIN_NTILE:
            if (!sized)
                no = "needs the partition's row count";
            *peers |= c->fn != BASALT_QPLAN_WIN_NTILE && has_order;
            break;
        case BASALT_QPLAN_WIN_LAG:
        case BASALT_QPLAN_WIN_LEAD:
            if (!reach(c->fn == BASALT_QPLAN_WIN_LAG ? BASALT_QPLAN_PRECEDING
                                                     : BASALT_QPLAN_FOLLOWING,
                       c->offset, true, has_order, &lo, &hi, peers))
                no = "has an offset too large";
            break;
        default:
            if (basalt_qw_frame_whole(c, has_order)) {
                no = "has a frame of the whole partition";
                break;
            }
            if (!c->has_frame) {
                *peers = true; /* RANGE UNBOUNDED PRECEDING .. CURRENT ROW */
                break;
            }
            if (basalt_qw_frame_ranged(c)) {
                no = "has a RANGE frame with an offset (the rows it reads depend on the ORDER BY "
                     "values)";
                break;
            }
            if (!c->rows && c->groups &&
                (c->start == BASALT_QPLAN_PRECEDING || c->start == BASALT_QPLAN_FOLLOWING ||
                 c->end == BASALT_QPLAN_PRECEDING || c->end == BASALT_QPLAN_FOLLOWING)) {
                no = "has a GROUPS frame with an offset (the rows it reads depend on the peer "
                     "groups' sizes)";
                break;
            }
            if (c->exclude != BASALT_QPLAN_EXCLUDE_NO_OTHERS) {
                /* The rows a frame from the partition's start keeps are
                 * the carry's, less rows it no longer holds. */
                if (basalt_qw_frame_running(c, has_order)) {
                    no = "has EXCLUDE in a frame from the partition's start";
                    break;
                }
                if (c->exclude != BASALT_QPLAN_EXCLUDE_CURRENT_ROW) {
                    if (!has_order) {
                        no = "has EXCLUDE GROUP or TIES without ORDER BY (the partition is one "
                             "peer group)";
                        break;
                    }
                    *peers = true;
                }
            }
            if (!reach(c->start, c->start_offset, c->rows, has_order, &lo, &hi, peers) ||
                !reach(c->end, c->end_offset, c->rows, has_order, &lo, &hi, peers))
                no = "has a frame to the partition's end";
            break;
        }
        if (no != NULL) {
            snprintf(why, why_size, "%s%s%s%s %s", fn_name(c->fn), c->name ? " ('" : "",
                     c->name ? c->name : "", c->name ? "')" : "", no);
            return false;
        }
    }
    *behind = -lo;
    *ahead = hi;
    return true;
}

basalt_status basalt_qwin_carry_new(const struct basalt_qwin_spec *spec,
                                    struct basalt_qwin_carry **out, struct basalt_error *err)
{
    struct basalt_qwin_carry *c = basalt_calloc(1, sizeof *c);
    if (c != NULL)
        c->calls = basalt_calloc((size_t)spec->n_calls + 1, sizeof *c->calls);
    if (c == NULL || c->calls == NULL) {
        basalt_free(c);
        *out = NULL;
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    c->n_calls = spec->n_calls;
    *out = c;
    return BASALT_OK;
}

static void drop_row(struct qw_carry_call *cc)
{
    if (!cc->has_row)
        return;
    basalt_qw_view_free(&cc->row_view);
    basalt_arrow_array_release(&cc->row);
    cc->has_row = false;
}

void basalt_qwin_carry_reset(struct basalt_qwin_carry *c)
{
    c->first = 0;
    c->rows = 0;
    c->dense = 0;
    for (int i = 0; i < c->n_calls; i++) {
        drop_row(&c->calls[i]);
        memset(&c->calls[i].prefix, 0, sizeof c->calls[i].prefix);
    }
}

void basalt_qwin_carry_set_rows(struct basalt_qwin_carry *c, int64_t rows)
{
    c->rows = rows;
}

void basalt_qwin_carry_free(struct basalt_qwin_carry *c)
{
    if (c == NULL)
        return;
    basalt_qwin_carry_reset(c);
    basalt_free(c->calls);
    basalt_free(c);
}

/* Row t of the held input as the call's carried row: the whole row (a
 * view needs a batch of the input's shape), with a view of its argument
 * for MIN/MAX to compare with. */
static basalt_status keep_row(struct qw_run *r, const struct qw_call *k, struct qw_carry_call *cc,
                              int64_t t, bool view, struct basalt_error *err)
{
    const struct qw_input *in = &r->in;
    int64_t b = 0;
    while (in->start[b + 1] <= t)
        b++;
    int64_t idx = t - in->start[b];
    struct ArrowArray row;
    basalt_status st = basalt_arrow_take(in->schema, &in->batches[b], &idx, 1, &row, err);
    if (st != BASALT_OK)
        return st;
    int64_t start[2] = {0, 1};
    struct qw_input one = {in->schema, &row, 1, start, 1};
    struct qw_view v;
    memset(&v, 0, sizeof v);
    if (view)
        st = basalt_qw_view(&one, k->c->arg, QWP_ORDER, NULL, 1, &v, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&row);
        return st;
    }
    drop_row(cc);
    cc->row = row;
    cc->row_view = v;
    cc->has_row = true;
    return BASALT_OK;
}

basalt_status basalt_qw_carry_advance(struct qw_run *r, int64_t advance, struct basalt_error *err)
{
    struct basalt_qwin_carry *cy = r->carry;
    bool has_order = r->spec->n_order > 0;
    int64_t n = r->in.n;
    if (advance > n)
        advance = n;
    if (advance <= 0)
        return BASALT_OK;
    for (int c = 0; c < r->spec->n_calls; c++) {
        struct qw_call *k = &r->calls[c];
        struct qw_carry_call *cc = &cy->calls[c];
        enum basalt_qplan_window_fn f = k->c->fn;
        if (f == BASALT_QPLAN_WIN_DENSE_RANK) {
            /* The next stretch's first row counts as a peer group of its own. */
            const int64_t *dv = k->vals;
            cy->dense = advance < n ? dv[advance] - 1 : dv[n - 1];
            continue;
        }
        if (!basalt_qw_frame_running(k->c, has_order))
            continue;
        if (f == BASALT_QPLAN_WIN_COUNT || f == BASALT_QPLAN_WIN_SUM ||
            f == BASALT_QPLAN_WIN_AVG) {
            for (int64_t i = 0; i < advance; i++)
                basalt_qw_acc_add(&cc->prefix, k, i);
        } else if (f == BASALT_QPLAN_WIN_MIN || f == BASALT_QPLAN_WIN_MAX) {
            const struct qw_view *v = &k->arg;
            int sign = f == BASALT_QPLAN_WIN_MIN ? 1 : -1;
            int64_t best = -1;
            for (int64_t i = 0; i < advance; i++) {
                if (v->valid != NULL && !v->valid[i])
                    continue;
                if (best < 0 ? !cc->has_row ||
                                   sign * basalt_qw_cmp_rows(v, i, &cc->row_view, 0) < 0
                             : sign * basalt_qw_cmp_rows(v, i, v, best) < 0)
                    best = i;
            }
            if (best >= 0) {
                basalt_status st = keep_row(r, k, cc, best, true, err);
                if (st != BASALT_OK)
                    return st;
            }
        } else if (f == BASALT_QPLAN_WIN_FIRST_VALUE || f == BASALT_QPLAN_WIN_NTH_VALUE) {
            /* The partition's first (n-th) row, once the stretches move past it. */
            int64_t g = f == BASALT_QPLAN_WIN_FIRST_VALUE ? 0 : k->c->offset - 1;
            if (!cc->has_row && g >= cy->first && g < cy->first + advance) {
                basalt_status st = keep_row(r, k, cc, g - cy->first, false, err);
                if (st != BASALT_OK)
                    return st;
            }
        }
    }
    cy->first += advance;
    return BASALT_OK;
}
