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
 * partition's end read its last rows: the caller reads the partition to
 * its end first and hands its rows to basalt_qwin_carry_whole_add, which
 * keeps the partition's sums (COUNT, SUM, AVG from any start: the sum less
 * the rows before the frame) and its best, last and n-th rows (MIN/MAX and
 * NTH_VALUE over the whole partition, LAST_VALUE). RANGE and GROUPS frames
 * with offsets read as many rows as the ORDER BY values or the peer groups
 * make them: a window with one is not computed in stretches; nor is one
 * with EXCLUDE in a frame from the partition's start or to its end (the
 * carry cannot take rows out). */
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

/* Whether a call with this frame takes its value over the partition's end
 * from a first read of the partition. */
static bool end_call(const struct basalt_qplan_window_call *c, bool has_order)
{
    switch (c->fn) {
    case BASALT_QPLAN_WIN_COUNT_STAR:
    case BASALT_QPLAN_WIN_COUNT:
    case BASALT_QPLAN_WIN_SUM:
    case BASALT_QPLAN_WIN_AVG:
    case BASALT_QPLAN_WIN_MIN:
    case BASALT_QPLAN_WIN_MAX:
    case BASALT_QPLAN_WIN_LAST_VALUE:
    case BASALT_QPLAN_WIN_NTH_VALUE: return basalt_qw_frame_to_end(c, has_order);
    default: return false;
    }
}

/* Whether a call whose frame ends at the partition's end can be computed in
 * stretches: its value over the partition's end comes from a first read of
 * the partition (`sized`), and the frame's start is a bound the held rows
 * reach. NULL if so, else why not. */
static const char *to_end(const struct basalt_qplan_window_call *c, bool has_order, bool sized,
                          int64_t *lo, int64_t *hi, bool *peers, bool *needs_end)
{
    bool whole = basalt_qw_frame_whole(c, has_order);
    if (c->has_frame && c->exclude != BASALT_QPLAN_EXCLUDE_NO_OTHERS)
        return "has EXCLUDE in a frame to the partition's end";
    if (!whole && (c->fn == BASALT_QPLAN_WIN_MIN || c->fn == BASALT_QPLAN_WIN_MAX ||
                   c->fn == BASALT_QPLAN_WIN_NTH_VALUE))
        return "has a frame to the partition's end that starts after its start";
    /* FIRST_VALUE reads the frame's first row: held, or carried from the
     * partition's start; the others read the partition's end. */
    *needs_end = end_call(c, has_order);
    if (*needs_end && !sized)
        return "has a frame to the partition's end (the partition is not read to its end "
               "first)";
    if (whole)
        return NULL;
    if (!reach(c->start, c->start_offset, c->rows, has_order, lo, hi, peers))
        return "has a frame offset too large";
    return NULL;
}

bool basalt_qwin_stretchable(const struct basalt_qwin_spec *spec, bool sized, int64_t *behind,
                             int64_t *ahead, bool *peers, bool *whole, char *why,
                             size_t why_size)
{
    bool has_order = spec->n_order > 0;
    int64_t lo = 0, hi = 0;
    *peers = false;
    *whole = false;
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
            if (basalt_qw_frame_ranged(c)) {
                no = "has a RANGE frame with an offset (the rows it reads depend on the ORDER BY "
                     "values)";
                break;
            }
            if (c->has_frame && !c->rows && c->groups &&
                (c->start == BASALT_QPLAN_PRECEDING || c->start == BASALT_QPLAN_FOLLOWING ||
                 c->end == BASALT_QPLAN_PRECEDING || c->end == BASALT_QPLAN_FOLLOWING)) {
                no = "has a GROUPS frame with an offset (the rows it reads depend on the peer "
                     "groups' sizes)";
                break;
            }
            if (basalt_qw_frame_to_end(c, has_order)) {
                bool needs_end = false;
                no = to_end(c, has_order, sized, &lo, &hi, peers, &needs_end);
                *whole |= needs_end;
                break;
            }
            if (!c->has_frame) {
                *peers = true; /* RANGE UNBOUNDED PRECEDING .. CURRENT ROW */
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
                no = "has a frame offset too large";
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
    if (cc->has_row) {
        basalt_qw_view_free(&cc->row_view);
        basalt_arrow_array_release(&cc->row);
        cc->has_row = false;
    }
    if (cc->has_end_row) {
        basalt_qw_view_free(&cc->end_view);
        basalt_arrow_array_release(&cc->end_row);
        cc->has_end_row = false;
    }
}

void basalt_qwin_carry_reset(struct basalt_qwin_carry *c)
{
    c->first = 0;
    c->rows = 0;
    c->dense = 0;
    c->whole = false;
    c->whole_seen = 0;
    for (int i = 0; i < c->n_calls; i++) {
        drop_row(&c->calls[i]);
        memset(&c->calls[i].prefix, 0, sizeof c->calls[i].prefix);
        memset(&c->calls[i].whole, 0, sizeof c->calls[i].whole);
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

/* Row `idx` of batch b (of `schema`) into *row, the whole row (a view needs
 * a batch of the input's shape), with a view of column `view_col` (-1:
 * none) for MIN/MAX to compare with. *row and *view are replaced (they are
 * released first when *has). */
static basalt_status take_row(const struct ArrowSchema *schema, const struct ArrowArray *b,
                              int64_t idx, int view_col, struct ArrowArray *row,
                              struct qw_view *view, bool *has, struct basalt_error *err)
{
    struct ArrowArray one;
    basalt_status st = basalt_arrow_take(schema, b, &idx, 1, &one, err);
    if (st != BASALT_OK)
        return st;
    int64_t start[2] = {0, 1};
    struct qw_input in = {schema, &one, 1, start, 1};
    struct qw_view v;
    memset(&v, 0, sizeof v);
    if (view_col >= 0)
        st = basalt_qw_view(&in, view_col, QWP_ORDER, NULL, 1, &v, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&one);
        return st;
    }
    if (*has) {
        basalt_qw_view_free(view);
        basalt_arrow_array_release(row);
    }
    *row = one;
    *view = v;
    *has = true;
    return BASALT_OK;
}

/* Row t of the held input as the call's carried row. */
static basalt_status keep_row(struct qw_run *r, const struct qw_call *k, struct qw_carry_call *cc,
                              int64_t t, bool view, struct basalt_error *err)
{
    const struct qw_input *in = &r->in;
    int64_t b = 0;
    while (in->start[b + 1] <= t)
        b++;
    return take_row(in->schema, &in->batches[b], t - in->start[b], view ? k->c->arg : -1,
                    &cc->row, &cc->row_view, &cc->has_row, err);
}

bool basalt_qw_reads_end(const struct qw_run *r, const struct qw_call *k)
{
    return r->carry != NULL && r->carry->whole && end_call(k->c, r->spec->n_order > 0);
}

const struct ArrowArray *basalt_qw_carried_row(const struct qw_run *r, int call)
{
    const struct qw_carry_call *cc = &r->carry->calls[call];
    if (basalt_qw_reads_end(r, &r->calls[call]))
        return cc->has_end_row ? &cc->end_row : NULL;
    return cc->has_row ? &cc->row : NULL;
}

basalt_status basalt_qwin_carry_whole_add(const struct basalt_qwin_spec *spec,
                                          struct basalt_qwin_carry *cy,
                                          const struct ArrowArray *b, int64_t from, int64_t n,
                                          struct basalt_error *err)
{
    bool has_order = spec->n_order > 0;
    int64_t seen = cy->whole_seen;
    int64_t start[2] = {0, b->length};
    struct ArrowArray shallow = *b; /* the views only read it */
    struct qw_input in = {spec->schema, &shallow, 1, start, b->length};
    cy->whole = true;
    cy->whole_seen += n;
    basalt_status st = BASALT_OK;
    for (int i = 0; i < spec->n_calls && st == BASALT_OK && n > 0; i++) {
        const struct basalt_qplan_window_call *c = &spec->calls[i];
        struct qw_carry_call *cc = &cy->calls[i];
        if (!end_call(c, has_order))
            continue;
        struct qw_call k;
        memset(&k, 0, sizeof k);
        k.c = c;
        switch (c->fn) {
        case BASALT_QPLAN_WIN_COUNT_STAR: cc->whole.cnt += n; break;
        case BASALT_QPLAN_WIN_COUNT:
        case BASALT_QPLAN_WIN_SUM:
        case BASALT_QPLAN_WIN_AVG:
            /* In row order from the partition's first, as the whole
             * partition's sum is made in memory: the same bits. */
            st = basalt_qw_view(&in, c->arg, c->fn == BASALT_QPLAN_WIN_COUNT ? QWP_VALID : QWP_NUM,
                                NULL, 1, &k.arg, err);
            if (st != BASALT_OK)
                break;
            k.wide = basalt_qw_sum_wide(spec->schema->children[c->arg], &k.arg);
            for (int64_t r = from; r < from + n; r++)
                basalt_qw_acc_add(&cc->whole, &k, r);
            basalt_qw_view_free(&k.arg);
            break;
        case BASALT_QPLAN_WIN_MIN:
        case BASALT_QPLAN_WIN_MAX: {
            st = basalt_qw_view(&in, c->arg, QWP_ORDER, NULL, 1, &k.arg, err);
            if (st != BASALT_OK)
                break;
            /* The first best row, as in memory. */
            int sign = c->fn == BASALT_QPLAN_WIN_MIN ? 1 : -1;
            int64_t best = -1;
            for (int64_t r = from; r < from + n; r++) {
                if (k.arg.valid != NULL && !k.arg.valid[r])
                    continue;
                if (best < 0 ? !cc->has_end_row ||
                                   sign * basalt_qw_cmp_rows(&k.arg, r, &cc->end_view, 0) < 0
                             : sign * basalt_qw_cmp_rows(&k.arg, r, &k.arg, best) < 0)
                    best = r;
            }
            basalt_qw_view_free(&k.arg);
            if (best >= 0)
                st = take_row(spec->schema, b, best, c->arg, &cc->end_row, &cc->end_view,
                              &cc->has_end_row, err);
            break;
        }
        case BASALT_QPLAN_WIN_LAST_VALUE:
            st = take_row(spec->schema, b, from + n - 1, -1, &cc->end_row, &cc->end_view,
                          &cc->has_end_row, err);
            break;
        case BASALT_QPLAN_WIN_NTH_VALUE: {
            int64_t g = c->offset - 1; /* the n-th row's place in the partition */
            if (c->offset >= 1 && g >= seen && g < seen + n)
                st = take_row(spec->schema, b, from + (g - seen), -1, &cc->end_row,
                              &cc->end_view, &cc->has_end_row, err);
            break;
        }
        default: break;
        }
    }
    return st;
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
        bool sums = f == BASALT_QPLAN_WIN_COUNT || f == BASALT_QPLAN_WIN_SUM ||
                    f == BASALT_QPLAN_WIN_AVG;
        if (basalt_qw_reads_end(r, k)) {
            /* The value is the partition's end's, less (a frame starting
             * after the partition's) the rows before the frame. */
            if (sums && !basalt_qw_frame_whole(k->c, has_order))
                for (int64_t i = 0; i < advance; i++)
                    basalt_qw_acc_add(&cc->prefix, k, i);
            continue;
        }
        if (!basalt_qw_frame_running(k->c, has_order))
            continue;
        if (sums) {
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
