/* The window node with hand-written expected values (DuckDB's answers for
 * the same SQL, worked out by hand): every function, ROWS and RANGE frames,
 * peers, NULLs in partitions, order keys and arguments, LAG/LEAD defaults,
 * empty frames, errors, EXPLAIN and column pruning; the operator's paths
 * proven to fire (its counters) and the same output for 1, 2 and 4
 * workers over a table large enough to be split. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg_util.h"
#include "basalt/query_plan.h"
#include "query_test_util.h"
#include "test.h"
#include "window/window.h"

/* The fixture: 10 rows. Sorted by (p, o) ascending, NULLs last, the rows
 * come out in input order 1 2 3 0 4 | 7 5 6 | 8 9; peers (equal o) are
 * {2,3} in p=1, {5,6} in p=2, {8,9} in p=NULL. */
#define NROWS 10
static const char *const c_p[] = {"1", "1", "1", "1", "1", "2", "2", "2", "N", "N"};
static const char *const c_o[] = {"3", "1", "2", "2", "N", "5", "5", "4", "1", "1"};
static const char *const c_v[] = {"10", "20", "N", "40", "50", "60", "70", "N", "90", "100"};
static const char *const c_s[] = {"b", "a", "c", "N", "d", "x", "yy", "z", "m", "N"};
static const char *const c_d[] = {"1.5", "-2", "N", "inf", "0.25", "nan", "3", "N", "1e300", "-1e300"};
static const char *const c_w[] = {"7", "8", "9", "10", "11", "12", "13", "14", "15", "16"};
static const char *const c_m[] = {"125", "-50", "N", "300", "1", "2", "3", "N", "99999", "1"};
enum { P, O, V, S, D, W, M, NCOLS };
static const char *const names[] = {"p", "o", "v", "s", "d", "w", "m"};
static const char *const fmts[] = {"l", "l", "l", "u", "g", "l", "d:12,2"};

static basalt_status fixture_batches(struct basalt_arrow_batches *b, struct basalt_error *err)
{
    const char *const *cells[] = {c_p, c_o, c_v, c_s, c_d, c_w, c_m};
    basalt_arrow_batches_init(b);
    basalt_status st = basalt_arrow_schema_init(&b->schema, "+s", NULL, 0, NCOLS, err);
    struct ArrowArray batch;
    batch.release = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(&batch, 1, NCOLS, err);
    for (int c = 0; c < NCOLS && st == BASALT_OK; c++) {
        st = basalt_arrow_schema_init(b->schema.children[c], fmts[c], names[c], ARROW_FLAG_NULLABLE,
                                      0, err);
        if (st == BASALT_OK)
            st = at_array(fmts[c], cells[c], NROWS, batch.children[c]);
    }
    batch.length = NROWS;
    if (st == BASALT_OK)
        st = basalt_arrow_batches_append(b, &batch, err);
    basalt_arrow_array_release(&batch);
    if (st != BASALT_OK)
        basalt_arrow_batches_reset(b);
    return st;
}

static basalt_status fixture(struct basalt_qctx *ctx, struct basalt_qplan **out,
                             struct basalt_error *err)
{
    struct basalt_arrow_batches b;
    basalt_status st = fixture_batches(&b, err);
    if (st == BASALT_OK)
        st = basalt_qplan_values(ctx, &b, out, err);
    basalt_arrow_batches_reset(&b);
    return st;
}

static struct basalt_qplan_window_call wc(enum basalt_qplan_window_fn fn, int arg)
{
    struct basalt_qplan_window_call c;
    memset(&c, 0, sizeof c);
    c.fn = fn;
    c.arg = arg;
    c.offset = 1;
    c.default_arg = -1;
    c.rows = true;
    return c;
}

static struct basalt_qplan_window_call framed(struct basalt_qplan_window_call c, bool rows,
                                              enum basalt_qplan_frame_bound s, int64_t so,
                                              enum basalt_qplan_frame_bound e, int64_t eo)
{
    c.has_frame = true;
    c.rows = rows;
    c.start = s;
    c.start_offset = so;
    c.end = e;
    c.end_offset = eo;
    return c;
}

static void cell(const struct ArrowSchema *f, const struct ArrowArray *a, int64_t i, char *buf,
                 size_t cap)
{
    struct basalt_query_type t;
    if (basalt_query_type_from_format(f->format, &t, NULL) != BASALT_OK) {
        snprintf(buf, cap, "?");
        return;
    }
    struct basalt_query_value v;
    qt_value(a, t, i, &v);
    if (v.is_null)
        snprintf(buf, cap, "N");
    else if (t.id == BASALT_QUERY_TYPE_DOUBLE)
        snprintf(buf, cap, "%.6g", v.v.f);
    else
        qt_cell(a, t, i, buf, cap);
}

/* Renders columns show[0..n) of every output row: cells joined by '|',
 * rows by ' '. */
static void render(const struct basalt_arrow_batches *out, const int *show, int n, char *buf,
                   size_t cap)
{
    buf[0] = '\0';
    size_t len = 0;
    for (int64_t b = 0; b < out->n; b++)
        for (int64_t i = 0; i < out->arrays[b].length; i++) {
            for (int k = 0; k < n; k++) {
                char c[256];
                cell(out->schema.children[show[k]], out->arrays[b].children[show[k]], i, c,
                     sizeof c);
                len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s",
                                        k ? "|" : (len ? " " : ""), c);
            }
        }
}

struct win {
    const int *part;
    int np;
    const struct basalt_qplan_sort_key *ord;
    int no;
    const struct basalt_qplan_window_call *calls;
    int nc;
};

/* Runs the window over the fixture and renders `show` (output columns;
 * NCOLS + k is call k). */
static basalt_status run(const struct win *w, const int *show, int n, char *buf, size_t cap,
                         struct basalt_error *err)
{
    struct basalt_qctx *ctx;
    basalt_status st = basalt_qctx_new(NULL, &ctx, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qplan *t, *node;
    st = fixture(ctx, &t, err);
    if (st == BASALT_OK)
        st = basalt_qplan_window(ctx, t, w->part, w->np, w->ord, w->no, w->calls, w->nc, &node,
                                 err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    if (st == BASALT_OK)
        st = basalt_qplan_execute(ctx, node, &out, err);
    if (st == BASALT_OK)
        render(&out, show, n, buf, cap);
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
    return st;
}

static const int part_p[] = {P};
static const struct basalt_qplan_sort_key ord_o[] = {{O, false, false}};

TEST(window_ranking)
{
    struct basalt_qplan_window_call calls[] = {
        wc(BASALT_QPLAN_WIN_ROW_NUMBER, -1), wc(BASALT_QPLAN_WIN_RANK, -1),
        wc(BASALT_QPLAN_WIN_DENSE_RANK, -1), wc(BASALT_QPLAN_WIN_PERCENT_RANK, -1),
        wc(BASALT_QPLAN_WIN_CUME_DIST, -1), wc(BASALT_QPLAN_WIN_NTILE, -1)};
    calls[5].offset = 3;
    struct win w = {part_p, 1, ord_o, 1, calls, 6};
    const int show[] = {W, NCOLS, NCOLS + 1, NCOLS + 2, NCOLS + 3, NCOLS + 4, NCOLS + 5};
    char buf[4096];
    struct basalt_error err;
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "8|1|1|1|0|0.2|1 9|2|2|2|0.25|0.6|1 10|3|2|2|0.25|0.6|2 7|4|4|3|0.75|0.8|2 "
                   "11|5|5|4|1|1|3 "
                   "14|1|1|1|0|0.333333|1 12|2|2|2|0.5|1|2 13|3|2|2|0.5|1|3 "
                   "15|1|1|1|0|1|1 16|2|1|1|0|1|2");
    /* Without ORDER BY every row of a partition is a peer. */
    struct win w2 = {part_p, 1, NULL, 0, calls, 5};
    CHECK_OK(run(&w2, show, 6, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "7|1|1|1|0|1 8|2|1|1|0|1 9|3|1|1|0|1 10|4|1|1|0|1 11|5|1|1|0|1 "
                   "12|1|1|1|0|1 13|2|1|1|0|1 14|3|1|1|0|1 15|1|1|1|0|1 16|2|1|1|0|1");
    /* One partition, no keys: input order. */
    struct win w3 = {NULL, 0, NULL, 0, calls, 1};
    CHECK_OK(run(&w3, show, 2, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "7|1 8|2 9|3 10|4 11|5 12|6 13|7 14|8 15|9 16|10");
}

TEST(window_ntile_split)
{
    /* 5 rows in 2 tiles: 3 + 2; 5 rows in 7 tiles: one row each. */
    struct basalt_qplan_window_call calls[] = {wc(BASALT_QPLAN_WIN_NTILE, -1),
                                               wc(BASALT_QPLAN_WIN_NTILE, -1)};
    calls[0].offset = 2;
    calls[1].offset = 7;
    struct win w = {part_p, 1, ord_o, 1, calls, 2};
    const int show[] = {W, NCOLS, NCOLS + 1};
    char buf[4096];
    struct basalt_error err;
    CHECK_OK(run(&w, show, 3, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "8|1|1 9|1|2 10|1|3 7|2|4 11|2|5 14|1|1 12|1|2 13|2|3 15|1|1 16|2|2");
}

TEST(window_lag_lead)
{
    struct basalt_qplan_window_call calls[] = {
        wc(BASALT_QPLAN_WIN_LAG, V), wc(BASALT_QPLAN_WIN_LEAD, V), wc(BASALT_QPLAN_WIN_LAG, V),
        wc(BASALT_QPLAN_WIN_LEAD, S), wc(BASALT_QPLAN_WIN_LAG, V), wc(BASALT_QPLAN_WIN_LAG, S)};
    calls[2].offset = 2;
    calls[2].default_arg = W; /* lag(v, 2, w) */
    calls[3].offset = 1;
    calls[4].offset = -1; /* lag(v, -1) is lead(v) */
    calls[5].offset = 0;
    struct win w = {part_p, 1, ord_o, 1, calls, 6};
    const int show[] = {V, NCOLS, NCOLS + 1, NCOLS + 2, NCOLS + 3, NCOLS + 4, NCOLS + 5};
    char buf[4096];
    struct basalt_error err;
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    /* rows in order: v = 20 N 40 10 50 | N 60 70 | 90 100; s = a c N b d | z x yy | m N */
    CHECK_STR(buf, "20|N|N|8|c|N|a N|20|40|9|N|40|c 40|N|10|20|b|10|N 10|40|50|N|d|50|b "
                   "50|10|N|40|N|N|d "
                   "N|N|60|14|x|60|z 60|N|70|12|yy|70|x 70|60|N|N|N|N|yy "
                   "90|N|100|15|N|100|m 100|90|N|16|N|N|N");
}

TEST(window_values_frames)
{
    /* Default frame with ORDER BY: up to the last peer. */
    struct basalt_qplan_window_call calls[] = {
        wc(BASALT_QPLAN_WIN_FIRST_VALUE, V), wc(BASALT_QPLAN_WIN_LAST_VALUE, V),
        wc(BASALT_QPLAN_WIN_NTH_VALUE, V), wc(BASALT_QPLAN_WIN_NTH_VALUE, V),
        framed(wc(BASALT_QPLAN_WIN_LAST_VALUE, S), true, BASALT_QPLAN_PRECEDING, 1,
               BASALT_QPLAN_FOLLOWING, 1),
        framed(wc(BASALT_QPLAN_WIN_FIRST_VALUE, V), true, BASALT_QPLAN_FOLLOWING, 1,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0)};
    calls[2].offset = 2;
    calls[3].offset = 0; /* NULL everywhere, as DuckDB */
    struct win w = {part_p, 1, ord_o, 1, calls, 6};
    const int show[] = {V, NCOLS, NCOLS + 1, NCOLS + 2, NCOLS + 3, NCOLS + 4, NCOLS + 5};
    char buf[4096];
    struct basalt_error err;
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "20|20|20|N|N|c|N N|20|40|N|N|N|40 40|20|40|N|N|b|10 10|20|10|N|N|d|50 "
                   "50|20|50|N|N|d|N "
                   "N|N|N|N|N|x|60 60|N|70|60|N|yy|70 70|N|70|60|N|yy|N "
                   "90|90|100|100|N|N|100 100|90|100|100|N|N|N");
}

TEST(window_aggregates)
{
    struct basalt_qplan_window_call calls[] = {
        wc(BASALT_QPLAN_WIN_COUNT_STAR, -1), wc(BASALT_QPLAN_WIN_COUNT, V),
        wc(BASALT_QPLAN_WIN_SUM, V), wc(BASALT_QPLAN_WIN_AVG, V), wc(BASALT_QPLAN_WIN_MIN, V),
        wc(BASALT_QPLAN_WIN_MAX, S)};
    struct win w = {part_p, 1, ord_o, 1, calls, 6};
    const int show[] = {V, NCOLS, NCOLS + 1, NCOLS + 2, NCOLS + 3, NCOLS + 4, NCOLS + 5};
    char buf[4096];
    struct basalt_error err;
    /* Running over peers: rows 2 and 3 of p=1 end at the same peer. */
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "20|1|1|20|20|20|a N|3|2|60|30|20|c 40|3|2|60|30|20|c 10|4|3|70|23.3333|10|c "
                   "50|5|4|120|30|10|d "
                   "N|1|0|N|N|N|z 60|3|2|130|65|60|z 70|3|2|130|65|60|z "
                   "90|2|2|190|95|90|m 100|2|2|190|95|90|m");
    /* ROWS 1 PRECEDING .. 1 FOLLOWING, and the whole partition. */
    for (int i = 0; i < 6; i++)
        calls[i] = framed(calls[i], true, BASALT_QPLAN_PRECEDING, 1, BASALT_QPLAN_FOLLOWING, 1);
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "20|2|1|20|20|20|c N|3|2|60|30|20|c 40|3|2|50|25|10|c 10|3|3|100|33.3333|10|d "
                   "50|2|2|60|30|10|d "
                   "N|2|1|60|60|60|z 60|3|2|130|65|60|z 70|2|2|130|65|60|yy "
                   "90|2|2|190|95|90|m 100|2|2|190|95|90|m");
    for (int i = 0; i < 6; i++)
        calls[i] = framed(calls[i], true, BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
                          BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0);
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "20|5|4|120|30|10|d N|5|4|120|30|10|d 40|5|4|120|30|10|d 10|5|4|120|30|10|d "
                   "50|5|4|120|30|10|d "
                   "N|3|2|130|65|60|z 60|3|2|130|65|60|z 70|3|2|130|65|60|z "
                   "90|2|2|190|95|90|m 100|2|2|190|95|90|m");
}

TEST(window_empty_frames)
{
    /* ROWS 2 PRECEDING .. 1 PRECEDING: empty on each partition's first row;
     * ROWS 3 FOLLOWING .. 5 FOLLOWING: empty near the end. */
    struct basalt_qplan_window_call calls[] = {
        framed(wc(BASALT_QPLAN_WIN_COUNT_STAR, -1), true, BASALT_QPLAN_PRECEDING, 2,
               BASALT_QPLAN_PRECEDING, 1),
        framed(wc(BASALT_QPLAN_WIN_SUM, V), true, BASALT_QPLAN_PRECEDING, 2,
               BASALT_QPLAN_PRECEDING, 1),
        framed(wc(BASALT_QPLAN_WIN_MIN, V), true, BASALT_QPLAN_PRECEDING, 2,
               BASALT_QPLAN_PRECEDING, 1),
        framed(wc(BASALT_QPLAN_WIN_COUNT, V), true, BASALT_QPLAN_FOLLOWING, 3,
               BASALT_QPLAN_FOLLOWING, 5),
        framed(wc(BASALT_QPLAN_WIN_MAX, V), true, BASALT_QPLAN_FOLLOWING, 3,
               BASALT_QPLAN_FOLLOWING, 5),
        framed(wc(BASALT_QPLAN_WIN_SUM, V), true, BASALT_QPLAN_PRECEDING, -1,
               BASALT_QPLAN_CURRENT_ROW, 0)};
    struct win w = {part_p, 1, ord_o, 1, calls, 6};
    const int show[] = {V, NCOLS, NCOLS + 1, NCOLS + 2, NCOLS + 3, NCOLS + 4, NCOLS + 5};
    char buf[4096];
    struct basalt_error err;
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "20|0|N|N|2|50|N N|1|20|20|1|50|N 40|2|20|20|0|N|N 10|2|40|40|0|N|N "
                   "50|2|50|10|0|N|N "
                   "N|0|N|N|0|N|N 60|1|N|N|0|N|N 70|2|60|60|0|N|N "
                   "90|0|N|N|0|N|N 100|1|90|90|0|N|N");
}

TEST(window_range_peers)
{
    /* RANGE CURRENT ROW .. UNBOUNDED FOLLOWING starts at the first peer;
     * RANGE CURRENT ROW .. CURRENT ROW is the peer group. */
    struct basalt_qplan_window_call calls[] = {
        framed(wc(BASALT_QPLAN_WIN_SUM, V), false, BASALT_QPLAN_CURRENT_ROW, 0,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0),
        framed(wc(BASALT_QPLAN_WIN_COUNT_STAR, -1), false, BASALT_QPLAN_CURRENT_ROW, 0,
               BASALT_QPLAN_CURRENT_ROW, 0),
        framed(wc(BASALT_QPLAN_WIN_MAX, V), false, BASALT_QPLAN_CURRENT_ROW, 0,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0)};
    struct win w = {part_p, 1, ord_o, 1, calls, 3};
    const int show[] = {V, NCOLS, NCOLS + 1, NCOLS + 2};
    char buf[4096];
    struct basalt_error err;
    CHECK_OK(run(&w, show, 4, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "20|120|1|50 N|100|2|50 40|100|2|50 10|60|1|50 50|50|1|50 "
                   "N|130|1|70 60|130|2|70 70|130|2|70 90|190|2|100 100|190|2|100");
}

TEST(window_types)
{
    /* DOUBLE sums with infinities and NaN, DECIMAL sums and averages,
     * descending order with NULLs first. */
    struct basalt_qplan_window_call calls[] = {
        wc(BASALT_QPLAN_WIN_SUM, D), wc(BASALT_QPLAN_WIN_SUM, M), wc(BASALT_QPLAN_WIN_AVG, M),
        wc(BASALT_QPLAN_WIN_MIN, D), wc(BASALT_QPLAN_WIN_MAX, D)};
    const struct basalt_qplan_sort_key ord[] = {{O, true, true}, {W, false, false}};
    struct win w = {part_p, 1, ord, 2, calls, 5};
    const int show[] = {D, M, NCOLS, NCOLS + 1, NCOLS + 2, NCOLS + 3, NCOLS + 4};
    char buf[4096];
    struct basalt_error err;
    CHECK_OK(run(&w, show, 7, buf, sizeof buf, &err), &err);
    /* p=1 in order o desc nulls first, w: rows 4 0 2 3 1; p=2: 5 6 7; p=N: 8 9 */
    CHECK_STR(buf, "0.25|0.01|0.25|0.01|0.01|0.25|0.25 1.5|1.25|1.75|1.26|0.63|0.25|1.5 "
                   "N|N|1.75|1.26|0.63|0.25|1.5 inf|3.00|inf|4.26|1.42|0.25|inf "
                   "-2|-0.50|inf|3.76|0.94|-2|inf "
                   "nan|0.02|nan|0.02|0.02|nan|nan 3|0.03|nan|0.05|0.025|3|nan "
                   "N|N|nan|0.05|0.025|3|nan "
                   "1e+300|999.99|1e+300|999.99|999.99|1e+300|1e+300 "
                   "-1e+300|0.01|0|1000.00|500|-1e+300|1e+300");
}

TEST(window_empty_input)
{
    /* No rows at all, and no rows left after a filter: no output rows, the
     * output schema still the input's columns and the calls'. */
    struct basalt_qctx *ctx;
    struct basalt_error err;
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    CHECK_OK(basalt_arrow_schema_init(&b.schema, "+s", NULL, 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(b.schema.children[0], "l", "x", ARROW_FLAG_NULLABLE, 0, &err),
             &err);
    struct basalt_qplan *t, *node, *f, *node2;
    CHECK_OK(basalt_qplan_values(ctx, &b, &t, &err), &err);
    basalt_arrow_batches_reset(&b);
    struct basalt_qplan_window_call calls[] = {wc(BASALT_QPLAN_WIN_SUM, 0),
                                               wc(BASALT_QPLAN_WIN_LAG, 0)};
    const int part[] = {0};
    CHECK_OK(basalt_qplan_window(ctx, t, part, 1, NULL, 0, calls, 2, &node, &err), &err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_qplan_execute(ctx, node, &out, &err), &err);
    int64_t rows = 0;
    for (int64_t i = 0; i < out.n; i++)
        rows += out.arrays[i].length;
    CHECK_EQ(rows, 0);
    CHECK_EQ(out.schema.n_children, 3);
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);

    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    CHECK_OK(fixture(ctx, &t, &err), &err);
    struct basalt_qexpr_builder *qb;
    CHECK_OK(basalt_qplan_builder(ctx, t, &qb, &err), &err);
    struct basalt_qexpr *col, *lit, *pred;
    CHECK_OK(basalt_qexpr_column(qb, V, &col, &err), &err);
    CHECK_OK(basalt_qexpr_int(qb, BASALT_QUERY_TYPE_INT64, 1000, &lit, &err), &err);
    struct basalt_qexpr *args[2] = {col, lit};
    CHECK_OK(basalt_qexpr_call(qb, ">", args, 2, &pred, &err), &err);
    CHECK_OK(basalt_qplan_filter(ctx, t, pred, &f, &err), &err);
    CHECK_OK(basalt_qplan_window(ctx, f, part_p, 1, ord_o, 1, calls, 2, &node2, &err), &err);
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_qplan_execute(ctx, node2, &out, &err), &err);
    rows = 0;
    for (int64_t i = 0; i < out.n; i++)
        rows += out.arrays[i].length;
    CHECK_EQ(rows, 0);
    CHECK_EQ(out.schema.n_children, NCOLS + 2);
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
}

TEST(window_errors)
{
    struct basalt_qctx *ctx;
    struct basalt_error err;
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    struct basalt_qplan *t, *node;
    CHECK_OK(fixture(ctx, &t, &err), &err);
    struct basalt_qplan_window_call c = wc(BASALT_QPLAN_WIN_NTILE, -1);
    c.offset = 0;
    basalt_status st = basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, &c, 1, &node, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "Argument for ntile must be greater than zero") != NULL);
    c = framed(wc(BASALT_QPLAN_WIN_SUM, V), true, BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0);
    CHECK_EQ(basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, &c, 1, &node, &err),
             BASALT_INVALID_ARG);
    c = framed(wc(BASALT_QPLAN_WIN_SUM, V), true, BASALT_QPLAN_FOLLOWING, 1,
               BASALT_QPLAN_CURRENT_ROW, 0);
    CHECK_EQ(basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, &c, 1, &node, &err),
             BASALT_INVALID_ARG);
    /* RANGE offsets: non-negative, over one numeric key (window_frames_test.c) */
    c = framed(wc(BASALT_QPLAN_WIN_SUM, V), false, BASALT_QPLAN_PRECEDING, -1,
               BASALT_QPLAN_CURRENT_ROW, 0);
    CHECK_EQ(basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, &c, 1, &node, &err),
             BASALT_INVALID_ARG);
    c = wc(BASALT_QPLAN_WIN_SUM, S);
    CHECK_EQ(basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, &c, 1, &node, &err),
             BASALT_UNSUPPORTED);
    c = wc(BASALT_QPLAN_WIN_SUM, 99);
    CHECK_EQ(basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, &c, 1, &node, &err),
             BASALT_INVALID_ARG);
    c = wc(BASALT_QPLAN_WIN_LAG, V);
    c.default_arg = S;
    CHECK_EQ(basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, &c, 1, &node, &err),
             BASALT_INVALID_ARG);
    const int bad_part[] = {NCOLS};
    c = wc(BASALT_QPLAN_WIN_ROW_NUMBER, -1);
    CHECK_EQ(basalt_qplan_window(ctx, t, bad_part, 1, ord_o, 1, &c, 1, &node, &err),
             BASALT_INVALID_ARG);
    basalt_qctx_free(ctx);
}

TEST(window_sum_overflow)
{
    /* DECIMAL(38,0) values whose sum leaves DECIMAL(38): LIMIT. */
    struct basalt_qctx *ctx;
    struct basalt_error err;
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    CHECK_OK(basalt_arrow_schema_init(&b.schema, "+s", NULL, 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(b.schema.children[0], "d:38,0", "x", ARROW_FLAG_NULLABLE, 0,
                                      &err), &err);
    struct ArrowArray batch;
    CHECK_OK(basalt_arrow_array_init(&batch, 1, 1, &err), &err);
    CHECK_OK(basalt_arrow_array_init(batch.children[0], 2, 0, &err), &err);
    void *mem;
    CHECK_OK(basalt_arrow_array_allocate_buffer(batch.children[0], 1, 3 * 16, &mem, &err), &err);
    __int128 big = 1;
    for (int i = 0; i < 38; i++)
        big *= 10;
    big -= 1; /* 10^38 - 1 */
    __int128 vals[3] = {big, big, -big};
    memcpy(mem, vals, sizeof vals);
    batch.children[0]->length = 3;
    batch.length = 3;
    CHECK_OK(basalt_arrow_batches_append(&b, &batch, &err), &err);
    struct basalt_qplan *t, *node;
    CHECK_OK(basalt_qplan_values(ctx, &b, &t, &err), &err);
    /* The first two rows overflow (2 * (10^38 - 1)); one row alone does not. */
    struct basalt_qplan_window_call c = framed(wc(BASALT_QPLAN_WIN_SUM, 0), true,
                                               BASALT_QPLAN_CURRENT_ROW, 0,
                                               BASALT_QPLAN_CURRENT_ROW, 0);
    CHECK_OK(basalt_qplan_window(ctx, t, NULL, 0, NULL, 0, &c, 1, &node, &err), &err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_qplan_execute(ctx, node, &out, &err), &err);
    char buf[512];
    const int show[] = {1};
    render(&out, show, 1, buf, sizeof buf);
    CHECK_STR(buf, "99999999999999999999999999999999999999 99999999999999999999999999999999999999 "
                   "-99999999999999999999999999999999999999");
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    basalt_arrow_batches_init(&b);
    CHECK_OK(basalt_arrow_schema_init(&b.schema, "+s", NULL, 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(b.schema.children[0], "d:38,0", "x", ARROW_FLAG_NULLABLE, 0,
                                      &err), &err);
    CHECK_OK(basalt_arrow_array_init(&batch, 1, 1, &err), &err);
    CHECK_OK(basalt_arrow_array_init(batch.children[0], 2, 0, &err), &err);
    CHECK_OK(basalt_arrow_array_allocate_buffer(batch.children[0], 1, 3 * 16, &mem, &err), &err);
    memcpy(mem, vals, sizeof vals);
    batch.children[0]->length = 3;
    batch.length = 3;
    CHECK_OK(basalt_arrow_batches_append(&b, &batch, &err), &err);
    CHECK_OK(basalt_qplan_values(ctx, &b, &t, &err), &err);
    /* A running sum: 2 * (10^38 - 1) on the second row. */
    c = framed(wc(BASALT_QPLAN_WIN_SUM, 0), true, BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
               BASALT_QPLAN_CURRENT_ROW, 0);
    c.name = "s";
    CHECK_OK(basalt_qplan_window(ctx, t, NULL, 0, NULL, 0, &c, 1, &node, &err), &err);
    basalt_arrow_batches_init(&out);
    CHECK_EQ(basalt_qplan_execute(ctx, node, &out, &err), BASALT_LIMIT);
    CHECK(strstr(err.message, "Overflow in SUM") != NULL);
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
}

TEST(window_explain_and_pruning)
{
    struct basalt_qctx *ctx;
    struct basalt_error err;
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    struct basalt_qplan *t, *node, *proj;
    CHECK_OK(fixture(ctx, &t, &err), &err);
    struct basalt_qplan_window_call calls[] = {wc(BASALT_QPLAN_WIN_ROW_NUMBER, -1),
                                               wc(BASALT_QPLAN_WIN_SUM, V),
                                               wc(BASALT_QPLAN_WIN_LAG, S)};
    calls[0].name = "rn";
    calls[1].name = "total";
    calls[2].name = "prev_s";
    CHECK_OK(basalt_qplan_window(ctx, t, part_p, 1, ord_o, 1, calls, 3, &node, &err), &err);
    const struct ArrowSchema *s = basalt_qplan_schema(node);
    CHECK_EQ(s->n_children, NCOLS + 3);
    CHECK_STR(s->children[NCOLS]->name, "rn");
    CHECK_STR(s->children[NCOLS]->format, "l");
    CHECK_STR(s->children[NCOLS + 1]->format, "d:38,0");
    CHECK_STR(s->children[NCOLS + 2]->format, "u");
    /* Keep w and total: the window still needs p, o and v; lag and rn go. */
    struct basalt_qexpr_builder *b;
    CHECK_OK(basalt_qplan_builder(ctx, node, &b, &err), &err);
    struct basalt_qexpr *e[2];
    CHECK_OK(basalt_qexpr_column(b, W, &e[0], &err), &err);
    CHECK_OK(basalt_qexpr_column(b, NCOLS + 1, &e[1], &err), &err);
    const char *pn[] = {"w", "total"};
    CHECK_OK(basalt_qplan_project(ctx, node, e, pn, 2, &proj, &err), &err);
    CHECK_OK(basalt_qplan_optimize_plan(ctx, proj, &err), &err);
    char text[1024];
    basalt_qplan_explain(proj, false, text, sizeof text);
    CHECK_STR(text, "PROJECTION [w, total]\n"
                    "  WINDOW partitions=1 order=1 functions=1 [total]\n"
                    "    VALUES\n");
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_qplan_execute(ctx, proj, &out, &err), &err);
    char buf[1024];
    const int show[] = {0, 1};
    render(&out, show, 2, buf, sizeof buf);
    CHECK_STR(buf, "8|20 9|60 10|60 7|70 11|120 14|N 12|130 13|130 15|190 16|190");
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
}

/* ------------------------------------------------------------------ large inputs */

/* n rows: g = partition (row % groups, scrambled), t = order key with
 * ties, x = value with NULLs, in batches of 10000. */
static basalt_status big_table(int64_t n, int64_t groups, struct basalt_arrow_batches *out,
                               struct basalt_error *err)
{
    basalt_arrow_batches_init(out);
    basalt_status st = basalt_arrow_schema_init(&out->schema, "+s", NULL, 0, 3, err);
    const char *f[] = {"l", "l", "l"}, *nm[] = {"g", "t", "x"};
    for (int c = 0; c < 3 && st == BASALT_OK; c++)
        st = basalt_arrow_schema_init(out->schema.children[c], f[c], nm[c], ARROW_FLAG_NULLABLE, 0,
                                      err);
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    for (int64_t lo = 0; lo < n && st == BASALT_OK; lo += 10000) {
        int64_t len = n - lo < 10000 ? n - lo : 10000;
        struct basalt_arrow_builder *root, *g, *t, *x;
        basalt_arrow_builder_new("+s", "", 0, &root, NULL);
        basalt_arrow_builder_add_child(root, "l", "g", ARROW_FLAG_NULLABLE, &g, NULL);
        basalt_arrow_builder_add_child(root, "l", "t", ARROW_FLAG_NULLABLE, &t, NULL);
        basalt_arrow_builder_add_child(root, "l", "x", ARROW_FLAG_NULLABLE, &x, NULL);
        for (int64_t i = 0; i < len; i++) {
            basalt_arrow_builder_append_int(g, (int64_t)bt_rng_below(&rng, (uint64_t)groups), NULL);
            basalt_arrow_builder_append_int(t, (int64_t)bt_rng_below(&rng, 50), NULL);
            if (bt_rng_below(&rng, 10) == 0)
                basalt_arrow_builder_append_null(x, NULL);
            else
                basalt_arrow_builder_append_int(x, (int64_t)bt_rng_below(&rng, 2000) - 1000, NULL);
            basalt_arrow_builder_end_element(root, NULL);
        }
        struct ArrowSchema s;
        struct ArrowArray a;
        st = basalt_arrow_builder_finish(root, &s, &a, err);
        basalt_arrow_builder_free(root);
        if (st == BASALT_OK) {
            basalt_arrow_schema_release(&s);
            st = basalt_arrow_batches_append(out, &a, err);
        }
    }
    return st;
}

static const struct basalt_qplan_window_call *big_calls(int *n)
{
    static struct basalt_qplan_window_call c[8];
    c[0] = wc(BASALT_QPLAN_WIN_ROW_NUMBER, -1);
    c[1] = wc(BASALT_QPLAN_WIN_RANK, -1);
    c[2] = wc(BASALT_QPLAN_WIN_SUM, 2);
    c[3] = framed(wc(BASALT_QPLAN_WIN_MIN, 2), true, BASALT_QPLAN_PRECEDING, 3,
                  BASALT_QPLAN_FOLLOWING, 2);
    c[4] = framed(wc(BASALT_QPLAN_WIN_AVG, 2), true, BASALT_QPLAN_PRECEDING, 5,
                  BASALT_QPLAN_CURRENT_ROW, 0);
    c[5] = wc(BASALT_QPLAN_WIN_LAG, 2);
    c[6] = framed(wc(BASALT_QPLAN_WIN_MAX, 2), true, BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
                  BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0);
    c[7] = wc(BASALT_QPLAN_WIN_COUNT, 2);
    *n = 8;
    return c;
}

/* Row i of column c as bytes into buf (its width), or "N" for NULL: every
 * column of the large test is fixed-width. */
static size_t row_bytes(const struct ArrowSchema *f, const struct ArrowArray *a, int64_t i,
                        unsigned char *buf)
{
    if (a->null_count && a->buffers[0] && !basalt_bitmap_get(a->buffers[0], a->offset + i)) {
        buf[0] = 'N';
        return 1;
    }
    size_t w = f->format[0] == 'd' ? 16 : 8;
    memcpy(buf, (const unsigned char *)a->buffers[1] + (size_t)(a->offset + i) * w, w);
    return w;
}

/* Whether two results hold the same rows in the same order. */
static bool same_rows(const struct basalt_arrow_batches *x, const struct basalt_arrow_batches *y,
                      int64_t *where)
{
    int64_t bx = 0, ix = 0, by = 0, iy = 0, r = 0;
    for (;; r++) {
        while (bx < x->n && ix == x->arrays[bx].length) {
            bx++;
            ix = 0;
        }
        while (by < y->n && iy == y->arrays[by].length) {
            by++;
            iy = 0;
        }
        if (bx == x->n || by == y->n)
            break;
        for (int64_t c = 0; c < x->schema.n_children; c++) {
            unsigned char a[16], b[16];
            size_t na = row_bytes(x->schema.children[c], x->arrays[bx].children[c], ix, a);
            size_t nb = row_bytes(y->schema.children[c], y->arrays[by].children[c], iy, b);
            if (na != nb || memcmp(a, b, na) != 0) {
                *where = r;
                return false;
            }
        }
        ix++;
        iy++;
    }
    *where = r;
    return bx == x->n && by == y->n;
}

TEST(window_workers_identical)
{
    /* 200000 rows in 1000 partitions (split over the workers) and in 3
     * partitions (longer than a sorted batch): 1, 2 and 4 workers give the
     * same rows in the same order. */
    const int64_t n = 200000;
    const int64_t groups[] = {1000, 3};
    struct basalt_pool *pool;
    struct basalt_error err;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    for (int gi = 0; gi < 2; gi++) {
        struct basalt_arrow_batches first;
        basalt_arrow_batches_init(&first);
        for (int wk = 1; wk <= 4; wk *= 2) {
            struct basalt_qctx_options o;
            basalt_qctx_options_init(&o);
            o.pool = pool;
            o.num_workers = wk;
            struct basalt_qctx *ctx;
            CHECK_OK(basalt_qctx_new(&o, &ctx, &err), &err);
            struct basalt_arrow_batches in;
            CHECK_OK(big_table(n, groups[gi], &in, &err), &err);
            struct basalt_qplan *t, *node;
            CHECK_OK(basalt_qplan_values(ctx, &in, &t, &err), &err);
            basalt_arrow_batches_reset(&in);
            int nc;
            const struct basalt_qplan_window_call *calls = big_calls(&nc);
            const int part[] = {0};
            const struct basalt_qplan_sort_key ord[] = {{1, false, false}};
            CHECK_OK(basalt_qplan_window(ctx, t, part, 1, ord, 1, calls, nc, &node, &err), &err);
            struct basalt_arrow_batches out;
            basalt_arrow_batches_init(&out);
            CHECK_OK(basalt_qplan_execute(ctx, node, &out, &err), &err);
            basalt_qctx_free(ctx);
            int64_t rows = 0, where = 0;
            for (int64_t b = 0; b < out.n; b++)
                rows += out.arrays[b].length;
            bool same = wk == 1 || same_rows(&first, &out, &where);
            if (wk == 1)
                first = out;
            else
                basalt_arrow_batches_reset(&out);
            CHECK_EQ(rows, n);
            CHECK_MSG(same, "%lld partitions: %d workers differ from 1 at row %lld",
                      (long long)groups[gi], wk, (long long)where);
        }
        basalt_arrow_batches_reset(&first);
    }
    basalt_pool_free(pool);
}

/* Independent reference for the large test: brute force over each row's
 * frame, on the rows as the operator sorted them (p, t columns). */
TEST(window_brute_force)
{
    struct basalt_qctx *ctx;
    struct basalt_error err;
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    struct basalt_arrow_batches in;
    CHECK_OK(big_table(150000, 7, &in, &err), &err);
    struct basalt_qplan *t, *node;
    CHECK_OK(basalt_qplan_values(ctx, &in, &t, &err), &err);
    basalt_arrow_batches_reset(&in);
    int nc;
    const struct basalt_qplan_window_call *calls = big_calls(&nc);
    const int part[] = {0};
    const struct basalt_qplan_sort_key ord[] = {{1, false, false}};
    CHECK_OK(basalt_qplan_window(ctx, t, part, 1, ord, 1, calls, nc, &node, &err), &err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_qplan_execute(ctx, node, &out, &err), &err);
    int64_t n = 0;
    for (int64_t b = 0; b < out.n; b++)
        n += out.arrays[b].length;
    CHECK_EQ(n, 150000);
    CHECK(out.n >= 3); /* partitions and peer groups cross batches */
    /* Flatten g, t, x and the outputs. */
    int64_t *g = calloc((size_t)n, 8), *tt = calloc((size_t)n, 8), *x = calloc((size_t)n, 8);
    bool *xv = calloc((size_t)n, 1);
    char **res = calloc((size_t)n * 8, sizeof *res);
    int64_t r = 0;
    for (int64_t b = 0; b < out.n; b++)
        for (int64_t i = 0; i < out.arrays[b].length; i++, r++) {
            struct ArrowArray *const *ch = out.arrays[b].children;
            g[r] = ((const int64_t *)ch[0]->buffers[1])[i];
            tt[r] = ((const int64_t *)ch[1]->buffers[1])[i];
            x[r] = ((const int64_t *)ch[2]->buffers[1])[i];
            xv[r] = !ch[2]->buffers[0] || basalt_bitmap_get(ch[2]->buffers[0], ch[2]->offset + i);
            for (int c = 0; c < 8; c++) {
                char v[128];
                cell(out.schema.children[3 + c], ch[3 + c], i, v, sizeof v);
                res[r * 8 + c] = strdup(v);
            }
        }
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; i++) {
        if (i > 0)
            CHECK(g[i] > g[i - 1] || (g[i] == g[i - 1] && tt[i] >= tt[i - 1]));
        int64_t s = i, e = i + 1;
        while (s > 0 && g[s - 1] == g[i])
            s--;
        while (e < n && g[e] == g[i])
            e++;
        int64_t rank_lo = i, peer_hi = i + 1;
        while (rank_lo > s && tt[rank_lo - 1] == tt[i])
            rank_lo--;
        while (peer_hi < e && tt[peer_hi] == tt[i])
            peer_hi++;
        char want[8][64];
        snprintf(want[0], 64, "%lld", (long long)(i - s + 1));
        snprintf(want[1], 64, "%lld", (long long)(rank_lo - s + 1));
        /* sum over [s, peer_hi) */
        int64_t sum = 0, cnt = 0;
        for (int64_t k = s; k < peer_hi; k++)
            if (xv[k]) {
                sum += x[k];
                cnt++;
            }
        if (cnt)
            snprintf(want[2], 64, "%lld", (long long)sum);
        else
            snprintf(want[2], 64, "N");
        int64_t lo = i - 3 < s ? s : i - 3, hi = i + 3 > e ? e : i + 3, best = INT64_MAX;
        for (int64_t k = lo; k < hi; k++)
            if (xv[k] && x[k] < best)
                best = x[k];
        if (best == INT64_MAX)
            snprintf(want[3], 64, "N");
        else
            snprintf(want[3], 64, "%lld", (long long)best);
        lo = i - 5 < s ? s : i - 5;
        sum = cnt = 0;
        for (int64_t k = lo; k <= i; k++)
            if (xv[k]) {
                sum += x[k];
                cnt++;
            }
        if (cnt)
            snprintf(want[4], 64, "%.6g", (double)sum / (double)cnt);
        else
            snprintf(want[4], 64, "N");
        if (i > s && xv[i - 1])
            snprintf(want[5], 64, "%lld", (long long)x[i - 1]);
        else
            snprintf(want[5], 64, "N");
        best = INT64_MIN;
        for (int64_t k = s; k < e; k++)
            if (xv[k] && x[k] > best)
                best = x[k];
        snprintf(want[6], 64, "%lld", (long long)best);
        cnt = 0;
        for (int64_t k = s; k < peer_hi; k++)
            cnt += xv[k];
        snprintf(want[7], 64, "%lld", (long long)cnt);
        for (int c = 0; c < 8; c++)
            if (strcmp(want[c], res[i * 8 + c]) != 0 && bad++ < 5)
                bt_fail(__FILE__, __LINE__, "row %lld call %d: got %s, want %s", (long long)i, c,
                        res[i * 8 + c], want[c]);
        /* Skip ahead inside long partitions: the brute force is quadratic. */
        if (i - s > 200 && e - i > 200)
            i += 97;
    }
    for (int64_t k = 0; k < n * 8; k++)
        free(res[k]);
    free(res);
    free(g);
    free(tt);
    free(x);
    free(xv);
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
    CHECK_EQ(bad, 0);
}

TEST(window_paths_fire)
{
    /* The operator directly over sorted input: whole-partition frames once
     * per partition, running frames, sliding frames with deque pushes, and
     * partitions handed to the pool. */
    struct basalt_arrow_batches in;
    struct basalt_error err;
    CHECK_OK(big_table(200000, 1000, &in, &err), &err);
    /* Sorting is not this test's business: make g ascending by building
     * the partition key from the row number. */
    int64_t row = 0;
    for (int64_t b = 0; b < in.n; b++) {
        int64_t *gv = (int64_t *)(uintptr_t)in.arrays[b].children[0]->buffers[1];
        for (int64_t i = 0; i < in.arrays[b].length; i++, row++)
            gv[i] = row / 200;
        in.arrays[b].children[0]->null_count = 0;
    }
    struct basalt_qplan_window_call calls[3];
    calls[0] = framed(wc(BASALT_QPLAN_WIN_SUM, 2), true, BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
                      BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0);
    calls[1] = framed(wc(BASALT_QPLAN_WIN_SUM, 2), true, BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
                      BASALT_QPLAN_CURRENT_ROW, 0);
    calls[2] = framed(wc(BASALT_QPLAN_WIN_MAX, 2), true, BASALT_QPLAN_PRECEDING, 2,
                      BASALT_QPLAN_FOLLOWING, 2);
    struct ArrowSchema out_schema;
    CHECK_OK(basalt_arrow_schema_init(&out_schema, "+s", NULL, 0, 6, &err), &err);
    for (int c = 0; c < 3; c++)
        CHECK_OK(basalt_arrow_schema_copy(in.schema.children[c], out_schema.children[c], &err), &err);
    for (int c = 0; c < 3; c++)
        CHECK_OK(basalt_qwin_check_call(&in.schema, NULL, 0, &calls[c], "c",
                                        out_schema.children[3 + c], &err),
                 &err);
    const int part[] = {0};
    struct basalt_qwin_spec spec = {&in.schema, part, 1, NULL, 0, calls, 3, &out_schema, NULL};
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    struct basalt_qwin_stats stats;
    struct ArrowSchema in_schema;
    CHECK_OK(basalt_arrow_schema_copy(&in.schema, &in_schema, &err), &err);
    spec.schema = &in_schema;
    CHECK_OK(basalt_qwin_compute(&spec, &in, pool, 4, &out, &stats, &err), &err);
    CHECK_EQ(stats.rows, 200000);
    CHECK_EQ(stats.partitions, 1000);
    CHECK_EQ(stats.whole_partition, 1000);
    CHECK_EQ(stats.running, 1000);
    CHECK_EQ(stats.sliding, 1000);
    CHECK(stats.deque_pushes > 100000 && stats.deque_pushes <= 200000);
    CHECK(stats.parallel_chunks > 1);
    CHECK_EQ(in.n, 0);
    int64_t rows = 0;
    for (int64_t b = 0; b < out.n; b++)
        rows += out.arrays[b].length;
    CHECK_EQ(rows, 200000);
    basalt_arrow_batches_reset(&out);
    basalt_arrow_schema_release(&in_schema);
    basalt_arrow_schema_release(&out_schema);
    basalt_pool_free(pool);
}

/* Every allocation of building and running a window plan failing in turn:
 * a clean NOMEM with nothing leaked, or success. Without keys, so that no
 * sort runs (a NOMEM inside basalt_qsort_finish leaks its input batches,
 * the sort's to fix); the keyed paths are swept on the operator directly
 * below. */
static const struct basalt_qplan_window_call *sweep_calls(int *n)
{
    static struct basalt_qplan_window_call calls[5];
    calls[0] = wc(BASALT_QPLAN_WIN_RANK, -1);
    calls[1] = wc(BASALT_QPLAN_WIN_SUM, M);
    calls[2] = framed(wc(BASALT_QPLAN_WIN_MIN, S), true, BASALT_QPLAN_PRECEDING, 1,
                      BASALT_QPLAN_FOLLOWING, 1);
    calls[3] = wc(BASALT_QPLAN_WIN_LAG, V);
    calls[3].default_arg = W;
    calls[4] = wc(BASALT_QPLAN_WIN_AVG, D);
    *n = 5;
    return calls;
}

static basalt_status plan_attempt(void *arg)
{
    (void)arg;
    int nc;
    const struct basalt_qplan_window_call *calls = sweep_calls(&nc);
    struct win w = {NULL, 0, NULL, 0, calls, nc};
    const int show[] = {NCOLS, NCOLS + 1, NCOLS + 2, NCOLS + 3, NCOLS + 4};
    char buf[4096];
    struct basalt_error err;
    return run(&w, show, 5, buf, sizeof buf, &err);
}

static basalt_status operator_attempt(void *arg)
{
    (void)arg;
    int nc;
    const struct basalt_qplan_window_call *calls = sweep_calls(&nc);
    struct basalt_error err;
    struct basalt_arrow_batches in, out;
    basalt_arrow_batches_init(&out);
    basalt_status st = fixture_batches(&in, &err);
    if (st != BASALT_OK)
        return st;
    struct ArrowSchema in_schema, out_schema;
    in_schema.release = NULL;
    out_schema.release = NULL;
    st = basalt_arrow_schema_copy(&in.schema, &in_schema, &err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&out_schema, "+s", NULL, 0, NCOLS + nc, &err);
    for (int c = 0; c < NCOLS && st == BASALT_OK; c++)
        st = basalt_arrow_schema_copy(in.schema.children[c], out_schema.children[c], &err);
    for (int c = 0; c < nc && st == BASALT_OK; c++)
        st = basalt_qwin_check_call(&in.schema, NULL, 0, &calls[c], "c",
                                    out_schema.children[NCOLS + c], &err);
    const int order_cols[] = {O};
    struct basalt_qwin_spec spec = {&in_schema, part_p, 1, order_cols, 1, calls, nc, &out_schema,
                                    NULL};
    if (st == BASALT_OK)
        st = basalt_qwin_compute(&spec, &in, NULL, 1, &out, NULL, &err);
    basalt_arrow_batches_reset(&in);
    basalt_arrow_batches_reset(&out);
    basalt_arrow_schema_release(&in_schema);
    basalt_arrow_schema_release(&out_schema);
    return st;
}

TEST(window_alloc_failures)
{
    CHECK_ALLOC_SWEEP(plan_attempt, NULL);
    CHECK_ALLOC_SWEEP(operator_attempt, NULL);
}
