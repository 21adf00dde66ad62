/* LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE over one partition: each
 * output row names the row its value comes from (window.c gathers them).
 * LAG/LEAD ignore the frame, as DuckDB's do; NULL values are not skipped
 * (RESPECT NULLS). */
#include "window/window_impl.h"

void basalt_qw_value(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e)
{
    const struct basalt_qplan_window_call *c = k->c;
    int64_t *src = k->vals;
    bool has_order = r->spec->n_order > 0;
    if (c->fn == BASALT_QPLAN_WIN_LAG || c->fn == BASALT_QPLAN_WIN_LEAD) {
        for (int64_t i = s; i < e; i++) {
            int64_t t;
            bool in = c->fn == BASALT_QPLAN_WIN_LAG ? !__builtin_sub_overflow(i, c->offset, &t)
                                                    : !__builtin_add_overflow(i, c->offset, &t);
            if (in && t >= s && t < e)
                src[i] = t;
            else
                src[i] = c->default_arg >= 0 ? QW_SRC_DEFAULT(i) : QW_SRC_NULL;
        }
        return;
    }
    if (basalt_qw_reads_end(r, k)) {
        /* In a stretch, LAST_VALUE over a frame to the partition's end, or
         * NTH_VALUE over the whole partition: its row was found before the
         * stretches; an empty frame (starting past the end) has none. */
        int64_t t = basalt_qw_carried_row(r, (int)(k - r->calls)) != NULL ? QW_SRC_CARRY
                                                                           : QW_SRC_NULL;
        struct qw_fcur fc;
        struct qw_frame f;
        basalt_qw_fcur_init(&fc, r, k, s, e);
        for (int64_t i = s; i < e; i++) {
            basalt_qw_fcur_next(&fc, i, &f);
            src[i] = f.fe > f.fs ? t : QW_SRC_NULL;
        }
        basalt_qw_fcur_done(&fc);
        return;
    }
    /* In a stretch whose partition began before it, a frame from the
     * partition's start has its first rows before the held ones: the carry
     * holds the first (n-th) row once the stretches have moved past it. */
    bool running = basalt_qw_frame_running(c, has_order);
    int64_t before = r->carry != NULL && running ? r->carry->first : 0;
    bool carried = before > 0 && r->carry->calls[k - r->calls].has_row;
    struct qw_fcur fc;
    struct qw_frame f;
    basalt_qw_fcur_init(&fc, r, k, s, e);
    for (int64_t i = s; i < e; i++) {
        basalt_qw_fcur_next(&fc, i, &f);
        int64_t t = QW_SRC_NULL;
        /* The frame's rows in order: [fs, xs), self, [xe, fe); the rows
         * before a stretch come first. */
        int64_t nl = f.xs - f.fs, nr = f.fe - f.xe, ns = f.self >= 0;
        if (nl + ns + nr > 0) {
            int64_t nth = c->offset - 1; /* the n-th row's place in the frame */
            if (c->fn == BASALT_QPLAN_WIN_FIRST_VALUE)
                nth = 0;
            else if (c->fn == BASALT_QPLAN_WIN_LAST_VALUE)
                nth = before + nl + ns + nr - 1;
            if (c->fn == BASALT_QPLAN_WIN_NTH_VALUE && c->offset < 1)
                t = QW_SRC_NULL;
            else if (nth < before)
                t = QW_SRC_CARRY;
            else if ((nth -= before) < nl)
                t = f.fs + nth;
            else if (nth - nl < ns)
                t = f.self;
            else if (nth - nl - ns < nr)
                t = f.xe + (nth - nl - ns);
        }
        if (t == QW_SRC_CARRY && !carried)
            t = QW_SRC_NULL; /* not reached: the carry has the row once before > 0 */
        src[i] = t;
    }
    basalt_qw_fcur_done(&fc);
}
