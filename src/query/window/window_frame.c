/* Frames: the rows each output row aggregates over. Every frame this
 * operator supports (ROWS with constant offsets, RANGE by peers, the
 * defaults) has both ends non-decreasing from one row to the next, which is
 * what lets the aggregates slide in one pass. */
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

void basalt_qw_frame(const struct basalt_qplan_window_call *c, bool has_order, int64_t i,
                     int64_t s, int64_t e, int64_t plo, int64_t phi, int64_t *fs, int64_t *fe)
{
    int64_t a, b;
    if (!c->has_frame) {
        a = s;
        b = has_order ? phi : e;
    } else {
        switch (c->start) {
        case BASALT_QPLAN_PRECEDING: a = sub_sat(i, c->start_offset); break;
        case BASALT_QPLAN_CURRENT_ROW: a = c->rows ? i : plo; break;
        case BASALT_QPLAN_FOLLOWING: a = add_sat(i, c->start_offset); break;
        default: a = s; break;
        }
        switch (c->end) {
        case BASALT_QPLAN_PRECEDING: b = add_sat(sub_sat(i, c->end_offset), 1); break;
        case BASALT_QPLAN_CURRENT_ROW: b = c->rows ? i + 1 : phi; break;
        case BASALT_QPLAN_FOLLOWING: b = add_sat(add_sat(i, c->end_offset), 1); break;
        default: b = e; break;
        }
    }
    a = clip(a, s, e);
    b = clip(b, s, e);
    *fs = a;
    *fe = b < a ? a : b;
}

bool basalt_qw_frame_whole(const struct basalt_qplan_window_call *c, bool has_order)
{
    if (!c->has_frame)
        return !has_order;
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
