/* RANGE frames with offsets, GROUPS frames and EXCLUDE on the window node:
 * a small table with answers worked out by hand (DuckDB gives the same with
 * the same SQL), then random tables of every key kind (BIGINT, INTEGER,
 * DOUBLE with NaN, infinities and -0.0, DECIMAL, DATE, TIMESTAMP; ties and
 * NULL keys, several partitions, several batches) and random frames checked
 * against a naive reference written here: each row's frame found by a
 * linear scan over its partition from the definitions, its aggregates by a
 * loop over it. Then the errors, the search's cost (keys compared per row,
 * bounded: the ends only move forward), which windows can run in stretches,
 * and the same answers under a memory limit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg_util.h"
#include "basalt/query_plan.h"
#include "query_test_util.h"
#include "test.h"
#include "window/window.h"

static struct basalt_qplan_window_call call(enum basalt_qplan_window_fn fn, int arg)
{
    struct basalt_qplan_window_call c;
    memset(&c, 0, sizeof c);
    c.fn = fn;
    c.arg = arg;
    c.offset = 1;
    c.default_arg = -1;
    return c;
}

/* A frame: mode 'r' ROWS, 'g' GROUPS, 'v' RANGE (by value). */
static struct basalt_qplan_window_call frame(struct basalt_qplan_window_call c, char mode,
                                             enum basalt_qplan_frame_bound s, int64_t so,
                                             enum basalt_qplan_frame_bound e, int64_t eo,
                                             enum basalt_qplan_frame_exclude x)
{
    c.has_frame = true;
    c.rows = mode == 'r';
    c.groups = mode == 'g';
    c.start = s;
    c.start_offset = so;
    c.end = e;
    c.end_offset = eo;
    c.exclude = x;
    return c;
}

/* Batches of columns given as text cells ("N" NULL), `per` rows a batch. */
static basalt_status table(const char *const *fmts, const char *const *names, int ncols,
                           const char *const *const *cells, int64_t n, int64_t per,
                           struct basalt_arrow_batches *b, struct basalt_error *err)
{
    basalt_arrow_batches_init(b);
    basalt_status st = basalt_arrow_schema_init(&b->schema, "+s", NULL, 0, ncols, err);
    for (int c = 0; c < ncols && st == BASALT_OK; c++)
        st = basalt_arrow_schema_init(b->schema.children[c], fmts[c], names[c],
                                      ARROW_FLAG_NULLABLE, 0, err);
    for (int64_t lo = 0; lo < n && st == BASALT_OK; lo += per) {
        int64_t len = n - lo < per ? n - lo : per;
        struct ArrowArray batch;
        st = basalt_arrow_array_init(&batch, 1, ncols, err);
        for (int c = 0; c < ncols && st == BASALT_OK; c++)
            st = at_array(fmts[c], cells[c] + lo, len, batch.children[c]);
        batch.length = len;
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(b, &batch, err);
        if (batch.release != NULL)
            basalt_arrow_array_release(&batch);
    }
    return st;
}

/* Runs the window over `in` (taken) and renders columns show[0..n) of every
 * output row: cells joined by '|', rows by ' '. */
static basalt_status run(struct basalt_arrow_batches *in, const int *part, int np,
                         const struct basalt_qplan_sort_key *ord, int no,
                         const struct basalt_qplan_window_call *calls, int nc, int64_t limit,
                         struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct basalt_qctx_options o;
    basalt_qctx_options_init(&o);
    o.memory_limit = limit;
    struct basalt_qctx *ctx;
    basalt_status st = basalt_qctx_new(&o, &ctx, err);
    if (st != BASALT_OK) {
        basalt_arrow_batches_reset(in);
        return st;
    }
    struct basalt_qplan *t, *node;
    st = basalt_qplan_values(ctx, in, &t, err);
    basalt_arrow_batches_reset(in);
    if (st == BASALT_OK)
        st = basalt_qplan_window(ctx, t, part, np, ord, no, calls, nc, &node, err);
    basalt_arrow_batches_init(out);
    if (st == BASALT_OK)
        st = basalt_qplan_execute(ctx, node, out, err);
    basalt_qctx_free(ctx);
    return st;
}

static void render(const struct basalt_arrow_batches *out, const int *show, int n, char *buf,
                   size_t cap)
{
    buf[0] = '\0';
    size_t len = 0;
    for (int64_t b = 0; b < out->n; b++)
        for (int64_t i = 0; i < out->arrays[b].length; i++)
            for (int k = 0; k < n; k++) {
                struct basalt_query_type t;
                char c[128] = "?";
                const struct ArrowArray *a = out->arrays[b].children[show[k]];
                if (basalt_query_type_from_format(out->schema.children[show[k]]->format, &t,
                                                  NULL) == BASALT_OK) {
                    struct basalt_query_value v;
                    qt_value(a, t, i, &v);
                    if (v.is_null)
                        snprintf(c, sizeof c, "N");
                    else
                        qt_cell(a, t, i, c, sizeof c);
                }
                len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s",
                                        k ? "|" : (len ? " " : ""), c);
            }
}

/* ------------------------------------------------------------------ by hand */

/* k = 1 2 2 4 N N 7, v = 10 20 N 40 50 60 70: one partition; sorted by k
 * ascending, NULLs last, the rows are 1 2(20) 2(N) 4 7 N(50) N(60). */
static const char *const h_k[] = {"1", "2", "2", "4", "N", "N", "7"};
static const char *const h_v[] = {"10", "20", "N", "40", "50", "60", "70"};

static basalt_status hand(const struct basalt_qplan_sort_key *ord,
                          const struct basalt_qplan_window_call *calls, int nc, char *buf,
                          size_t cap, struct basalt_error *err)
{
    const char *fmts[] = {"l", "l"}, *names[] = {"k", "v"};
    const char *const *cells[] = {h_k, h_v};
    struct basalt_arrow_batches in, out;
    basalt_status st = table(fmts, names, 2, cells, 7, 3, &in, err);
    if (st == BASALT_OK)
        st = run(&in, NULL, 0, ord, 1, calls, nc, 0, &out, err);
    else
        basalt_arrow_batches_reset(&in);
    int show[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    if (st == BASALT_OK)
        render(&out, show, 2 + nc, buf, cap);
    basalt_arrow_batches_reset(&out);
    return st;
}

TEST(window_frames_by_hand)
{
    char buf[2048];
    struct basalt_error err;
    basalt_error_init(&err);
    const struct basalt_qplan_sort_key asc[] = {{0, false, false}};
    const struct basalt_qplan_sort_key desc_first[] = {{0, true, true}};
    struct basalt_qplan_window_call c[3];

    /* RANGE 1 PRECEDING AND 1 FOLLOWING: keys within 1; NULL keys their peers. */
    c[0] = frame(call(BASALT_QPLAN_WIN_SUM, 1), 'v', BASALT_QPLAN_PRECEDING, 1,
                 BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    /* ... EXCLUDE GROUP, MAX over 0 PRECEDING .. 3 FOLLOWING */
    c[1] = frame(call(BASALT_QPLAN_WIN_MAX, 1), 'v', BASALT_QPLAN_PRECEDING, 0,
                 BASALT_QPLAN_FOLLOWING, 3, BASALT_QPLAN_EXCLUDE_GROUP);
    /* UNBOUNDED PRECEDING .. 1 FOLLOWING: a NULL key's end is its peers'
     * (the partition's end here), a value's never reaches the NULLs. */
    c[2] = frame(call(BASALT_QPLAN_WIN_COUNT_STAR, -1), 'v', BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
                 BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    CHECK_OK(hand(asc, c, 3, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "1|10|30|40|3 2|20|30|40|3 2|N|30|40|3 4|40|40|70|4 7|70|70|N|5 "
                   "N|50|110|N|7 N|60|110|N|7");

    /* DESC NULLS FIRST: PRECEDING means larger keys; 2 PRECEDING .. 1
     * PRECEDING is the keys k+1 .. k+2. */
    c[0] = frame(call(BASALT_QPLAN_WIN_COUNT_STAR, -1), 'v', BASALT_QPLAN_PRECEDING, 2,
                 BASALT_QPLAN_PRECEDING, 1, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    c[1] = frame(call(BASALT_QPLAN_WIN_SUM, 1), 'v', BASALT_QPLAN_CURRENT_ROW, 0,
                 BASALT_QPLAN_FOLLOWING, 2, BASALT_QPLAN_EXCLUDE_CURRENT_ROW);
    /* 5 FOLLOWING .. 10 FOLLOWING: empty from key 4 on */
    c[2] = frame(call(BASALT_QPLAN_WIN_MIN, 1), 'v', BASALT_QPLAN_FOLLOWING, 5,
                 BASALT_QPLAN_FOLLOWING, 10, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    CHECK_OK(hand(desc_first, c, 3, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "N|50|2|60|50 N|60|2|50|50 7|70|0|N|10 4|40|0|20|N 2|20|1|10|N 2|N|1|30|N "
                   "1|10|2|N|N");

    /* GROUPS: 1 PRECEDING .. CURRENT ROW, CURRENT ROW .. 1 FOLLOWING (the
     * 2nd row: a NULL value), 2 FOLLOWING .. 3 FOLLOWING. */
    c[0] = frame(call(BASALT_QPLAN_WIN_SUM, 1), 'g', BASALT_QPLAN_PRECEDING, 1,
                 BASALT_QPLAN_CURRENT_ROW, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    c[1] = frame(call(BASALT_QPLAN_WIN_NTH_VALUE, 1), 'g', BASALT_QPLAN_CURRENT_ROW, 0,
                 BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    c[1].offset = 2;
    c[2] = frame(call(BASALT_QPLAN_WIN_COUNT_STAR, -1), 'g', BASALT_QPLAN_FOLLOWING, 2,
                 BASALT_QPLAN_FOLLOWING, 3, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    CHECK_OK(hand(asc, c, 3, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "1|10|10|20|2 2|20|30|N|3 2|N|30|N|3 4|40|60|70|2 7|70|110|50|0 "
                   "N|50|180|60|0 N|60|180|60|0");

    /* EXCLUDE over ROWS 1 PRECEDING .. 1 FOLLOWING: TIES keeps the row but
     * not its peers; CURRENT ROW; LAST_VALUE with GROUP. */
    c[0] = frame(call(BASALT_QPLAN_WIN_SUM, 1), 'r', BASALT_QPLAN_PRECEDING, 1,
                 BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_TIES);
    c[1] = frame(call(BASALT_QPLAN_WIN_COUNT, 1), 'r', BASALT_QPLAN_PRECEDING, 1,
                 BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_CURRENT_ROW);
    c[2] = frame(call(BASALT_QPLAN_WIN_LAST_VALUE, 1), 'r', BASALT_QPLAN_PRECEDING, 1,
                 BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_GROUP);
    CHECK_OK(hand(asc, c, 3, buf, sizeof buf, &err), &err);
    CHECK_STR(buf, "1|10|30|1|20 2|20|30|1|10 2|N|40|2|40 4|40|110|1|70 7|70|160|2|50 "
                   "N|50|120|2|70 N|60|60|1|N");
}

/* ------------------------------------------------------------------ reference */

enum kkind { K_I64, K_I32, K_F64, K_DEC, K_DATE, K_TS, N_KINDS };
static const char *const kfmt[] = {"l", "i", "g", "d:9,2", "tdD", "tsu:"};
static const char *const kname[] = {"BIGINT", "INTEGER", "DOUBLE", "DECIMAL(9,2)", "DATE",
                                    "TIMESTAMP"};

/* A key: integers, DECIMAL (cents), DATE (days) and TIMESTAMP (us) as i,
 * DOUBLE as f. */
struct key {
    bool null;
    int64_t i;
    double f;
};

/* Sort order: NaN above every number and equal to itself, -0.0 = 0.0. */
static int kcmp(enum kkind kk, const struct key *a, const struct key *b)
{
    if (kk != K_F64)
        return (a->i > b->i) - (a->i < b->i);
    bool na = isnan(a->f), nb = isnan(b->f);
    if (na || nb)
        return na - nb;
    return (a->f > b->f) - (a->f < b->f);
}

/* A key moved by an offset (in the key's units; DOUBLE: offset_f). */
static struct key kmove(enum kkind kk, struct key k, int64_t off, double off_f, int sign)
{
    if (kk == K_F64)
        k.f = sign > 0 ? k.f + off_f : k.f - off_f;
    else
        k.i += sign * off;
    return k;
}

struct rtable {
    enum kkind kk;
    int64_t n;
    char **cells[3]; /* p, k, v as text */
};

static void rtable_free(struct rtable *t)
{
    for (int c = 0; c < 3; c++) {
        for (int64_t i = 0; t->cells[c] && i < t->n; i++)
            free(t->cells[c][i]);
        free(t->cells[c]);
    }
}

static void rtable_make(struct bt_rng *rng, enum kkind kk, int64_t n, struct rtable *t)
{
    memset(t, 0, sizeof *t);
    t->kk = kk;
    t->n = n;
    for (int c = 0; c < 3; c++)
        t->cells[c] = calloc((size_t)n, sizeof(char *));
    static const char *const dbl[] = {"nan", "-0.0", "0.0", "inf", "-inf", "1e300", "-1e300"};
    for (int64_t i = 0; i < n; i++) {
        char b[64];
        if (bt_rng_below(rng, 30) == 0)
            snprintf(b, sizeof b, "N");
        else
            snprintf(b, sizeof b, "%d", (int)bt_rng_below(rng, 4));
        t->cells[0][i] = strdup(b);
        int64_t r = (int64_t)bt_rng_below(rng, 60);
        if (bt_rng_below(rng, 12) == 0)
            snprintf(b, sizeof b, "N");
        else if (kk == K_I64)
            snprintf(b, sizeof b, "%lld", (long long)(r * 3 - 90));
        else if (kk == K_I32)
            snprintf(b, sizeof b, "%lld", (long long)(r - 30));
        else if (kk == K_F64 && bt_rng_below(rng, 10) == 0)
            snprintf(b, sizeof b, "%s", dbl[bt_rng_below(rng, 7)]);
        else if (kk == K_F64)
            snprintf(b, sizeof b, "%g", (double)r / 4 - 5);
        else if (kk == K_DEC)
            snprintf(b, sizeof b, "%lld", (long long)(r * 25 - 700)); /* cents */
        else if (kk == K_DATE)
            snprintf(b, sizeof b, "%lld", (long long)(19700 + r / 2));
        else
            snprintf(b, sizeof b, "%lld", (long long)(1700000000000000LL + r * 900000000LL));
        t->cells[1][i] = strdup(b);
        if (bt_rng_below(rng, 7) == 0)
            snprintf(b, sizeof b, "N");
        else
            snprintf(b, sizeof b, "%lld", (long long)bt_rng_below(rng, 2001) - 1000);
        t->cells[2][i] = strdup(b);
    }
}

/* An offset in the key's units, and the plan's value for it. */
static void offset_of(struct bt_rng *rng, enum kkind kk, int64_t *units, double *units_f,
                      struct basalt_query_value *v, int64_t *plain)
{
    memset(v, 0, sizeof *v);
    *plain = 0;
    int64_t r = (int64_t)bt_rng_below(rng, 7);
    *units = r;
    *units_f = 0;
    switch (kk) {
    case K_I64:
    case K_I32:
    case K_DATE: *plain = r * (kk == K_I64 ? 3 : 1); *units = *plain; break; /* BIGINT */
    case K_F64:
        *units_f = (double)r * 0.75;
        v->type.id = BASALT_QUERY_TYPE_DOUBLE;
        v->v.f = *units_f;
        break;
    case K_DEC:
        *units = r * 40; /* 0.40 per step: between the keys' 0.25 steps */
        v->type = basalt_query_type_decimal(5, 2);
        v->v.dec.lo = (uint64_t)*units;
        v->v.dec.hi = 0;
        break;
    case K_TS:
        /* days and microseconds of an INTERVAL: 0, 1 h, 2 h 30 min ... */
        *units = r * 5400000000LL;
        v->type.id = BASALT_QUERY_TYPE_INTERVAL;
        v->v.interval.days = (int32_t)(*units / 86400000000LL);
        v->v.interval.nanos = (*units % 86400000000LL) * 1000;
        break;
    default: break;
    }
}

struct rspec {
    char mode;
    enum basalt_qplan_frame_bound s, e;
    int64_t so, eo;          /* ROWS / GROUPS offsets, RANGE offsets in key units */
    double so_f, eo_f;       /* RANGE offsets over DOUBLE keys */
    enum basalt_qplan_frame_exclude x;
    bool desc, nulls_first, part;
};

static void rspec_make(struct bt_rng *rng, enum kkind kk, struct rspec *sp,
                       struct basalt_qplan_window_call *proto)
{
    memset(sp, 0, sizeof *sp);
    sp->mode = "rgv"[bt_rng_below(rng, 3)];
    for (;;) {
        sp->s = (enum basalt_qplan_frame_bound)bt_rng_below(rng, 4);
        sp->e = (enum basalt_qplan_frame_bound)(1 + bt_rng_below(rng, 4));
        if (!(sp->s == BASALT_QPLAN_CURRENT_ROW && sp->e == BASALT_QPLAN_PRECEDING) &&
            !(sp->s == BASALT_QPLAN_FOLLOWING &&
              (sp->e == BASALT_QPLAN_PRECEDING || sp->e == BASALT_QPLAN_CURRENT_ROW)))
            break;
    }
    sp->x = (enum basalt_qplan_frame_exclude)bt_rng_below(rng, 4);
    sp->desc = bt_rng_below(rng, 2);
    sp->nulls_first = bt_rng_below(rng, 2);
    sp->part = bt_rng_below(rng, 3) != 0;
    *proto = frame(call(BASALT_QPLAN_WIN_COUNT_STAR, -1), sp->mode, sp->s, 0, sp->e, 0, sp->x);
    if (sp->mode == 'v') {
        int64_t plain;
        offset_of(rng, kk, &sp->so, &sp->so_f, &proto->start_value, &plain);
        proto->start_offset = plain;
        offset_of(rng, kk, &sp->eo, &sp->eo_f, &proto->end_value, &plain);
        proto->end_offset = plain;
    } else {
        sp->so = (int64_t)bt_rng_below(rng, 4);
        sp->eo = (int64_t)bt_rng_below(rng, 4);
        proto->start_offset = sp->so;
        proto->end_offset = sp->eo;
    }
}

/* The first row of [lo, hi) for which `ok` holds (rows past it hold too), or hi. */
#define FIRST(lo, hi, ok)                       \
    ({                                          \
        int64_t r_ = (hi);                      \
        for (int64_t j = (lo); j < (hi); j++)   \
            if (ok) {                           \
                r_ = j;                         \
                break;                          \
            }                                   \
        r_;                                     \
    })

/* The frame of row i, [*a, *b), by the definitions. */
static void ref_frame(const struct rspec *sp, enum kkind kk, const struct key *k, const int64_t *g,
                      int64_t i, int64_t s, int64_t e, int64_t plo, int64_t phi, int64_t *a,
                      int64_t *b)
{
    int64_t vs = FIRST(s, e, !k[j].null), ve = vs;
    for (int64_t j = vs; j < e && !k[j].null; j++)
        ve = j + 1;
    int dir = sp->desc ? -1 : 1;
    for (int end = 0; end < 2; end++) {
        enum basalt_qplan_frame_bound bd = end ? sp->e : sp->s;
        int64_t off = end ? sp->eo : sp->so, r = s;
        double off_f = end ? sp->eo_f : sp->so_f;
        if (bd == BASALT_QPLAN_UNBOUNDED_PRECEDING) {
            r = s;
        } else if (bd == BASALT_QPLAN_UNBOUNDED_FOLLOWING) {
            r = e;
        } else if (sp->mode == 'r') {
            int64_t d = bd == BASALT_QPLAN_PRECEDING ? -off : bd == BASALT_QPLAN_FOLLOWING ? off : 0;
            r = i + d + end;
        } else if (bd == BASALT_QPLAN_CURRENT_ROW || (sp->mode == 'v' && k[i].null)) {
            r = end ? phi : plo;
        } else if (sp->mode == 'g') {
            int64_t d = bd == BASALT_QPLAN_PRECEDING ? -off : off, t = g[i] + d;
            r = end ? FIRST(s, e, g[j] > t) : FIRST(s, e, g[j] >= t);
        } else {
            /* PRECEDING: key - off ascending, key + off descending */
            int sign = (bd == BASALT_QPLAN_PRECEDING ? -1 : 1) * dir;
            struct key bound = kmove(kk, k[i], off, off_f, sign);
            /* ascending: the first key >= bound (start) or > bound (end) */
            r = end ? FIRST(vs, ve, dir * kcmp(kk, &k[j], &bound) > 0)
                    : FIRST(vs, ve, dir * kcmp(kk, &k[j], &bound) >= 0);
        }
        r = r < s ? s : r > e ? e : r;
        if (end)
            *b = r;
        else
            *a = r;
    }
    if (*b < *a)
        *b = *a;
}

static bool excluded(const struct rspec *sp, int64_t i, int64_t j, int64_t plo, int64_t phi)
{
    switch (sp->x) {
    case BASALT_QPLAN_EXCLUDE_CURRENT_ROW: return j == i;
    case BASALT_QPLAN_EXCLUDE_GROUP: return j >= plo && j < phi;
    case BASALT_QPLAN_EXCLUDE_TIES: return j >= plo && j < phi && j != i;
    default: return false;
    }
}

/* An output cell as an integer; *null when NULL. */
static int64_t out_int(const struct basalt_arrow_batches *out, int col, int64_t row, bool *null)
{
    int64_t b = 0;
    while (row >= out->arrays[b].length) {
        row -= out->arrays[b].length;
        b++;
    }
    struct basalt_query_type t;
    basalt_query_type_from_format(out->schema.children[col]->format, &t, NULL);
    struct basalt_query_value v;
    qt_value(out->arrays[b].children[col], t, row, &v);
    *null = v.is_null;
    if (t.id == BASALT_QUERY_TYPE_DECIMAL)
        return (int64_t)v.v.dec.lo;
    if (t.id == BASALT_QUERY_TYPE_DOUBLE)
        return (int64_t)v.v.f;
    return v.v.i;
}

static struct key out_key(const struct basalt_arrow_batches *out, enum kkind kk, int64_t row)
{
    int64_t b = 0;
    while (row >= out->arrays[b].length) {
        row -= out->arrays[b].length;
        b++;
    }
    struct basalt_query_type t;
    basalt_query_type_from_format(out->schema.children[1]->format, &t, NULL);
    struct basalt_query_value v;
    qt_value(out->arrays[b].children[1], t, row, &v);
    struct key k = {v.is_null, 0, 0};
    if (kk == K_F64)
        k.f = v.v.f;
    else if (kk == K_DEC)
        k.i = (int64_t)v.v.dec.lo;
    else
        k.i = v.v.i;
    return k;
}

enum { NFN = 8 };
static const enum basalt_qplan_window_fn rfns[NFN] = {
    BASALT_QPLAN_WIN_COUNT_STAR, BASALT_QPLAN_WIN_COUNT,       BASALT_QPLAN_WIN_SUM,
    BASALT_QPLAN_WIN_MIN,        BASALT_QPLAN_WIN_MAX,         BASALT_QPLAN_WIN_FIRST_VALUE,
    BASALT_QPLAN_WIN_LAST_VALUE, BASALT_QPLAN_WIN_NTH_VALUE};

/* Checks one spec's output against the reference; the first difference
 * into why. */
static bool check_spec(const struct rspec *sp, enum kkind kk, const struct basalt_arrow_batches *out,
                       char *why, size_t cap)
{
    int64_t n = 0;
    for (int64_t b = 0; b < out->n; b++)
        n += out->arrays[b].length;
    struct key *k = calloc((size_t)n + 1, sizeof *k);
    int64_t *p = calloc((size_t)n + 1, 8), *v = calloc((size_t)n + 1, 8), *g = calloc((size_t)n + 1, 8);
    bool *pn = calloc((size_t)n + 1, 1), *vn = calloc((size_t)n + 1, 1);
    for (int64_t i = 0; i < n; i++) {
        p[i] = out_int(out, 0, i, &pn[i]);
        k[i] = out_key(out, kk, i);
        v[i] = out_int(out, 2, i, &vn[i]);
    }
    bool ok = true;
    int64_t s = 0;
    while (s < n && ok) {
        int64_t e = s + 1;
        while (e < n && sp->part && pn[e] == pn[s] && (pn[s] || p[e] == p[s]))
            e++;
        if (!sp->part)
            e = n;
        /* peers: equal keys; they must be sorted as asked */
        for (int64_t j = s, grp = 0; j < e; j++) {
            bool same = j > s && k[j].null == k[j - 1].null &&
                        (k[j].null || kcmp(kk, &k[j], &k[j - 1]) == 0);
            grp += j > s && !same;
            g[j] = grp;
            if (j > s && !k[j].null && !k[j - 1].null &&
                (sp->desc ? -1 : 1) * kcmp(kk, &k[j], &k[j - 1]) < 0) {
                snprintf(why, cap, "row %lld not sorted", (long long)j);
                ok = false;
            }
        }
        for (int64_t i = s; i < e && ok; i++) {
            int64_t plo = i, phi = i + 1;
            while (plo > s && g[plo - 1] == g[i])
                plo--;
            while (phi < e && g[phi] == g[i])
                phi++;
            int64_t a = s, b = s;
            ref_frame(sp, kk, k, g, i, s, e, plo, phi, &a, &b);
            int64_t cnt = 0, cv = 0, sum = 0, mn = 0, mx = 0, first = -1, last = -1, second = -1;
            for (int64_t j = a; j < b; j++) {
                if (excluded(sp, i, j, plo, phi))
                    continue;
                if (first < 0)
                    first = j;
                else if (second < 0)
                    second = j;
                last = j;
                cnt++;
                if (vn[j])
                    continue;
                mn = cv == 0 || v[j] < mn ? v[j] : mn;
                mx = cv == 0 || v[j] > mx ? v[j] : mx;
                sum += v[j];
                cv++;
            }
            int64_t want[NFN] = {cnt, cv, sum, mn, mx, first >= 0 ? v[first] : 0,
                                 last >= 0 ? v[last] : 0, second >= 0 ? v[second] : 0};
            bool wnull[NFN] = {false, false, cv == 0, cv == 0, cv == 0,
                               first < 0 || vn[first], last < 0 || vn[last],
                               second < 0 || vn[second]};
            for (int f = 0; f < NFN && ok; f++) {
                bool null;
                int64_t got = out_int(out, 3 + f, i, &null);
                if (null != wnull[f] || (!null && got != want[f])) {
                    snprintf(why, cap,
                             "row %lld (partition rows %lld..%lld, frame %lld..%lld) call %d: "
                             "got %s%lld, want %s%lld",
                             (long long)i, (long long)s, (long long)e, (long long)a, (long long)b,
                             f, null ? "NULL " : "", (long long)got, wnull[f] ? "NULL " : "",
                             (long long)want[f]);
                    ok = false;
                }
            }
        }
        s = e;
    }
    free(k);
    free(p);
    free(v);
    free(g);
    free(pn);
    free(vn);
    return ok;
}

TEST(window_frames_reference)
{
    struct bt_rng rng;
    const char *se = getenv("BASALT_RANDOM_SEED");
    bt_rng_seed(&rng, se ? strtoull(se, NULL, 10) : 7);
    struct basalt_error err;
    basalt_error_init(&err);
    int specs = 0, failed = 0;
    for (int kk = 0; kk < N_KINDS; kk++) {
        struct rtable t;
        rtable_make(&rng, (enum kkind)kk, 1100, &t);
        for (int rep = 0; rep < 40; rep++) {
            struct rspec sp;
            struct basalt_qplan_window_call proto, calls[NFN];
            rspec_make(&rng, (enum kkind)kk, &sp, &proto);
            for (int f = 0; f < NFN; f++) {
                calls[f] = proto;
                calls[f].fn = rfns[f];
                calls[f].arg = rfns[f] == BASALT_QPLAN_WIN_COUNT_STAR ? -1 : 2;
                calls[f].offset = rfns[f] == BASALT_QPLAN_WIN_NTH_VALUE ? 2 : 1;
            }
            const char *fmts[] = {"l", kfmt[kk], "l"}, *names[] = {"p", "k", "v"};
            const char *const *cells[] = {(const char *const *)t.cells[0],
                                          (const char *const *)t.cells[1],
                                          (const char *const *)t.cells[2]};
            struct basalt_arrow_batches in, out;
            CHECK_OK(table(fmts, names, 3, cells, t.n, 150, &in, &err), &err);
            const int part[] = {0};
            const struct basalt_qplan_sort_key ord[] = {{1, sp.desc, sp.nulls_first}};
            basalt_status st = run(&in, sp.part ? part : NULL, sp.part, ord, 1, calls, NFN, 0, &out,
                                   &err);
            CHECK_MSG(st == BASALT_OK, "%s: %s", kname[kk], err.message);
            char why[512];
            specs++;
            if (st == BASALT_OK && !check_spec(&sp, (enum kkind)kk, &out, why, sizeof why)) {
                failed++;
                if (failed <= 5)
                    fprintf(stderr,
                            "  %s key, %s frame %d(%lld/%g) .. %d(%lld/%g) exclude %d, %s nulls "
                            "%s, %s: %s\n",
                            kname[kk], sp.mode == 'r' ? "ROWS" : sp.mode == 'g' ? "GROUPS" : "RANGE",
                            (int)sp.s, (long long)sp.so, sp.so_f, (int)sp.e, (long long)sp.eo,
                            sp.eo_f, (int)sp.x, sp.desc ? "DESC" : "ASC",
                            sp.nulls_first ? "FIRST" : "LAST",
                            sp.part ? "partitioned" : "one partition", why);
            }
            basalt_arrow_batches_reset(&out);
        }
        rtable_free(&t);
    }
    printf("  %d frames over 6 key kinds checked against the reference, %d differ\n", specs,
           failed);
    CHECK_EQ(failed, 0);
}

/* ------------------------------------------------------------------ errors */

TEST(window_frames_errors)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_qctx *ctx;
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    const char *fmts[] = {"l", "l", "u", "tdD"}, *names[] = {"k", "v", "s", "d"};
    static const char *const s_cells[] = {"a", "b", "c", "d", "e", "f", "g"};
    static const char *const d_cells[] = {"1", "2", "3", "4", "5", "6", "7"};
    const char *const *cells[] = {h_k, h_v, s_cells, d_cells};
    struct basalt_arrow_batches in;
    CHECK_OK(table(fmts, names, 4, cells, 7, 7, &in, &err), &err);
    struct basalt_qplan *t, *node;
    CHECK_OK(basalt_qplan_values(ctx, &in, &t, &err), &err);
    basalt_arrow_batches_reset(&in);
    const struct basalt_qplan_sort_key by_k[] = {{0, false, false}, {1, false, false}};
    const struct basalt_qplan_sort_key by_s[] = {{2, false, false}};
    const struct basalt_qplan_sort_key by_d[] = {{3, false, false}};
    struct {
        struct basalt_qplan_window_call c;
        const struct basalt_qplan_sort_key *ord;
        int no;
        basalt_status st;
        const char *msg;
    } cases[12];
    int n = 0;
    struct basalt_qplan_window_call c = frame(call(BASALT_QPLAN_WIN_SUM, 1), 'v',
                                              BASALT_QPLAN_PRECEDING, -1, BASALT_QPLAN_CURRENT_ROW,
                                              0, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    cases[n++] = (__typeof__(cases[0])){c, by_k, 1, BASALT_INVALID_ARG,
                                        "RANGE start offset must not be negative"};
    c.start_offset = 1;
    c.end = BASALT_QPLAN_FOLLOWING;
    c.end_value.is_null = true;
    c.end_value.type.id = BASALT_QUERY_TYPE_INT64;
    cases[n++] = (__typeof__(cases[0])){c, by_k, 1, BASALT_INVALID_ARG,
                                        "RANGE end offset cannot be NULL"};
    c.end_value.is_null = false;
    c.end_value.type.id = BASALT_QUERY_TYPE_DOUBLE;
    c.end_value.v.f = NAN;
    cases[n++] = (__typeof__(cases[0])){c, by_k, 1, BASALT_INVALID_ARG,
                                        "RANGE end offset must not be negative or NaN"};
    memset(&c.end_value, 0, sizeof c.end_value);
    cases[n++] = (__typeof__(cases[0])){c, by_k, 2, BASALT_INVALID_ARG,
                                        "RANGE frames with an offset need exactly one ORDER BY "
                                        "key (the window has 2)"};
    cases[n++] = (__typeof__(cases[0])){c, by_k, 0, BASALT_INVALID_ARG,
                                        "(the window has 0)"};
    cases[n++] = (__typeof__(cases[0])){c, by_s, 1, BASALT_UNSUPPORTED,
                                        "RANGE frames with an offset need a numeric, DATE or "
                                        "TIMESTAMP ORDER BY key, not VARCHAR"};
    c.start_value.type.id = BASALT_QUERY_TYPE_INTERVAL;
    c.start_value.v.interval.days = 1;
    cases[n++] = (__typeof__(cases[0])){c, by_k, 1, BASALT_UNSUPPORTED,
                                        "a RANGE offset of type INTERVAL cannot move an ORDER BY "
                                        "key of type BIGINT"};
    c.start_value.v.interval.days = 1;
    c.start_value.v.interval.nanos = -1;
    cases[n++] = (__typeof__(cases[0])){c, by_d, 1, BASALT_INVALID_ARG,
                                        "RANGE start offset must not be negative (in any part)"};
    c.start_value.type.id = BASALT_QUERY_TYPE_STRING;
    cases[n++] = (__typeof__(cases[0])){c, by_d, 1, BASALT_UNSUPPORTED,
                                        "RANGE start offset must be a number or an INTERVAL"};
    c = frame(call(BASALT_QPLAN_WIN_SUM, 1), 'g', BASALT_QPLAN_PRECEDING, 1,
              BASALT_QPLAN_FOLLOWING, -2, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    cases[n++] = (__typeof__(cases[0])){c, by_k, 1, BASALT_INVALID_ARG,
                                        "GROUPS end offset must not be negative"};
    c.end_offset = 2;
    c.exclude = (enum basalt_qplan_frame_exclude)9;
    cases[n++] = (__typeof__(cases[0])){c, by_k, 1, BASALT_INVALID_ARG, "window: bad EXCLUDE"};
    for (int i = 0; i < n; i++) {
        basalt_error_init(&err);
        basalt_status st = basalt_qplan_window(ctx, t, NULL, 0, cases[i].ord, cases[i].no,
                                               &cases[i].c, 1, &node, &err);
        CHECK_MSG(st == cases[i].st, "case %d: status %d, want %d (%s)", i, (int)st,
                  (int)cases[i].st, err.message);
        CHECK_MSG(strstr(err.message, cases[i].msg) != NULL, "case %d: '%s' lacks '%s'", i,
                  err.message, cases[i].msg);
    }
    /* An offset that leaves the key's type fails when run, as key + offset does. */
    c = frame(call(BASALT_QPLAN_WIN_COUNT_STAR, -1), 'v', BASALT_QPLAN_CURRENT_ROW, 0,
              BASALT_QPLAN_FOLLOWING, INT64_MAX, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    CHECK_OK(basalt_qplan_window(ctx, t, NULL, 0, by_k, 1, &c, 1, &node, &err), &err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_STATUS(basalt_qplan_execute(ctx, node, &out, &err), BASALT_LIMIT, &err);
    CHECK(strstr(err.message, "Overflow in addition") != NULL);
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
}

/* ------------------------------------------------------------------ cost */

/* 300000 rows of one partition sorted by a key with ties: a RANGE frame's
 * two searches compare a bounded number of keys per row (both ends move
 * forward, a few steps each), whatever the frame's width; 1 and 4 workers
 * agree. */
TEST(window_frames_search_cost)
{
    const int64_t n = 300000;
    struct basalt_error err;
    basalt_error_init(&err);
    /* sorted input: k = i / 3 (ties), v = i % 1000 */
    struct basalt_arrow_batches sorted;
    basalt_arrow_batches_init(&sorted);
    CHECK_OK(basalt_arrow_schema_init(&sorted.schema, "+s", NULL, 0, 2, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(sorted.schema.children[0], "l", "k", 0, 0, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(sorted.schema.children[1], "l", "v", 0, 0, &err), &err);
    for (int64_t lo = 0; lo < n; lo += 65536) {
        int64_t len = n - lo < 65536 ? n - lo : 65536;
        struct ArrowArray a;
        CHECK_OK(basalt_arrow_array_init(&a, 1, 2, &err), &err);
        a.length = len;
        for (int c = 0; c < 2; c++) {
            CHECK_OK(basalt_arrow_array_init(a.children[c], 2, 0, &err), &err);
            a.children[c]->length = len;
            void *mem;
            CHECK_OK(basalt_arrow_array_allocate_buffer(a.children[c], 1, (size_t)len * 8, &mem,
                                                        &err), &err);
            for (int64_t i = 0; i < len; i++)
                ((int64_t *)mem)[i] = c == 0 ? (lo + i) / 3 : (lo + i) % 1000;
        }
        CHECK_OK(basalt_arrow_batches_append(&sorted, &a, &err), &err);
    }
    struct basalt_qplan_window_call calls[2];
    calls[0] = frame(call(BASALT_QPLAN_WIN_SUM, 1), 'v', BASALT_QPLAN_PRECEDING, 5000,
                     BASALT_QPLAN_FOLLOWING, 5000, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    calls[1] = frame(call(BASALT_QPLAN_WIN_MAX, 1), 'v', BASALT_QPLAN_PRECEDING, 2,
                     BASALT_QPLAN_FOLLOWING, 7, BASALT_QPLAN_EXCLUDE_TIES);
    struct ArrowSchema out_schema;
    CHECK_OK(basalt_arrow_schema_init(&out_schema, "+s", NULL, 0, 4, &err), &err);
    for (int c = 0; c < 2; c++)
        CHECK_OK(basalt_arrow_schema_copy(sorted.schema.children[c], out_schema.children[c], &err),
                 &err);
    const struct basalt_qplan_sort_key ord[] = {{0, false, false}};
    for (int c = 0; c < 2; c++)
        CHECK_OK(basalt_qwin_check_call(&sorted.schema, ord, 1, &calls[c], "c",
                                        out_schema.children[2 + c], &err),
                 &err);
    const int order_cols[] = {0};
    struct basalt_qwin_spec spec = {&sorted.schema, NULL, 0, order_cols, 1, calls, 2,
                                    &out_schema, ord};
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    struct basalt_arrow_batches outs[2];
    for (int m = 0; m < 2; m++) {
        struct basalt_arrow_batches in;
        basalt_arrow_batches_init(&in);
        CHECK_OK(basalt_arrow_schema_copy(&sorted.schema, &in.schema, &err), &err);
        for (int64_t b = 0; b < sorted.n; b++) {
            struct ArrowArray copy;
            int64_t idx_n = sorted.arrays[b].length;
            int64_t *idx = malloc((size_t)idx_n * 8);
            for (int64_t i = 0; i < idx_n; i++)
                idx[i] = i;
            CHECK_OK(basalt_arrow_take(&sorted.schema, &sorted.arrays[b], idx, idx_n, &copy, &err),
                     &err);
            free(idx);
            CHECK_OK(basalt_arrow_batches_append(&in, &copy, &err), &err);
        }
        basalt_arrow_batches_init(&outs[m]);
        struct basalt_qwin_stats stats;
        CHECK_OK(basalt_qwin_compute(&spec, &in, m ? pool : NULL, m ? 4 : 1, &outs[m], &stats,
                                     &err),
                 &err);
        basalt_arrow_batches_reset(&in);
        /* four searches a row (two calls, two ends): a few compares each */
        printf("  %lld rows: %lld keys compared (%.2f a row)\n", (long long)n,
               (long long)stats.range_compares, (double)stats.range_compares / (double)n);
        CHECK(stats.range_compares >= 4 * n);
        CHECK(stats.range_compares <= 16 * n); /* a binary search a row: ~75 */
    }
    /* spot checks: row 30000 (k = 10000) sums k in 5000..15000, rows 15000..45002 */
    bool null;
    int64_t want = 0;
    for (int64_t i = 15000; i < 45003; i++)
        want += i % 1000;
    CHECK_EQ(out_int(&outs[0], 2, 30000, &null), want);
    int64_t where = 0;
    for (int64_t r = 0; r < n; r++) {
        bool n0, n1;
        int64_t a = out_int(&outs[0], 3, r, &n0), b = out_int(&outs[1], 3, r, &n1);
        int64_t s0 = out_int(&outs[0], 2, r, &n0), s1 = out_int(&outs[1], 2, r, &n1);
        if (a != b || s0 != s1) {
            where = r + 1;
            break;
        }
    }
    CHECK_MSG(where == 0, "1 and 4 workers differ at row %lld", (long long)where - 1);
    basalt_arrow_batches_reset(&outs[0]);
    basalt_arrow_batches_reset(&outs[1]);
    basalt_arrow_batches_reset(&sorted);
    basalt_arrow_schema_release(&out_schema);
    basalt_pool_free(pool);
}

/* ------------------------------------------------------------------ stretches */

TEST(window_frames_stretchable)
{
    const int order_cols[] = {0};
    const struct basalt_qplan_sort_key ord[] = {{0, false, false}};
    struct {
        struct basalt_qplan_window_call c;
        bool ok;
        int64_t behind, ahead;
        bool peers;
        const char *why;
    } cases[] = {
        {frame(call(BASALT_QPLAN_WIN_SUM, 1), 'v', BASALT_QPLAN_PRECEDING, 3,
               BASALT_QPLAN_CURRENT_ROW, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         false, 0, 0, false, "SUM ('c') has a RANGE frame with an offset"},
        {frame(call(BASALT_QPLAN_WIN_MIN, 1), 'g', BASALT_QPLAN_PRECEDING, 1,
               BASALT_QPLAN_CURRENT_ROW, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         false, 0, 0, false, "MIN ('c') has a GROUPS frame with an offset"},
        {frame(call(BASALT_QPLAN_WIN_COUNT, 1), 'r', BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
               BASALT_QPLAN_CURRENT_ROW, 0, BASALT_QPLAN_EXCLUDE_CURRENT_ROW),
         false, 0, 0, false, "COUNT ('c') has EXCLUDE in a frame from the partition's start"},
        /* GROUPS by peers only: as RANGE */
        {frame(call(BASALT_QPLAN_WIN_MAX, 1), 'g', BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
               BASALT_QPLAN_CURRENT_ROW, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         true, 0, 0, true, ""},
        /* EXCLUDE over row offsets: the rows around, and the peer group whole */
        {frame(call(BASALT_QPLAN_WIN_SUM, 1), 'r', BASALT_QPLAN_PRECEDING, 2,
               BASALT_QPLAN_FOLLOWING, 3, BASALT_QPLAN_EXCLUDE_TIES),
         true, 2, 3, true, ""},
        {frame(call(BASALT_QPLAN_WIN_FIRST_VALUE, 1), 'r', BASALT_QPLAN_PRECEDING, 1,
               BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_CURRENT_ROW),
         true, 1, 1, false, ""},
    };
    struct ArrowSchema schema;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_arrow_schema_init(&schema, "+s", NULL, 0, 2, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(schema.children[0], "l", "k", 0, 0, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(schema.children[1], "l", "v", 0, 0, &err), &err);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cases[i].c.name = "c";
        struct basalt_qwin_spec spec = {&schema, NULL, 0, order_cols, 1, &cases[i].c, 1, NULL,
                                        ord};
        int64_t behind = -1, ahead = -1;
        bool peers = false, whole = true;
        char why[200] = "";
        bool ok = basalt_qwin_stretchable(&spec, true, &behind, &ahead, &peers, &whole, why,
                                          sizeof why);
        CHECK_MSG(ok == cases[i].ok, "case %zu: %d (%s)", i, ok, why);
        CHECK_MSG(!ok || !whole, "case %zu reads the partition's end", i);
        if (ok)
            CHECK_MSG(behind == cases[i].behind && ahead == cases[i].ahead &&
                          peers == cases[i].peers,
                      "case %zu: behind %lld ahead %lld peers %d", i, (long long)behind,
                      (long long)ahead, peers);
        else
            CHECK_MSG(strstr(why, cases[i].why) != NULL, "case %zu: '%s' lacks '%s'", i, why,
                      cases[i].why);
    }
    /* Frames to the partition's end: the partition read to its end first
     * (`sized`) gives COUNT/SUM/AVG and LAST_VALUE from any start, MIN, MAX
     * and NTH_VALUE over the whole partition; FIRST_VALUE needs no first
     * read. */
    struct {
        struct basalt_qplan_window_call c;
        bool ok_sized, ok_unsized, whole;
        int64_t behind, ahead;
        const char *why;
    } ends[] = {
        {frame(call(BASALT_QPLAN_WIN_SUM, 1), 'r', BASALT_QPLAN_PRECEDING, 4,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         true, false, true, 4, 0, "SUM ('c') has a frame to the partition's end"},
        {frame(call(BASALT_QPLAN_WIN_COUNT_STAR, -1), 'r', BASALT_QPLAN_FOLLOWING, 2,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         true, false, true, 0, 2, "has a frame to the partition's end"},
        {frame(call(BASALT_QPLAN_WIN_MAX, 1), 'r', BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         true, false, true, 0, 0, "has a frame to the partition's end"},
        {frame(call(BASALT_QPLAN_WIN_MIN, 1), 'r', BASALT_QPLAN_CURRENT_ROW, 0,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         false, false, false, 0, 0, "MIN ('c') has a frame to the partition's end that starts"},
        {frame(call(BASALT_QPLAN_WIN_LAST_VALUE, 1), 'v', BASALT_QPLAN_CURRENT_ROW, 0,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         true, false, true, 0, 0, "has a frame to the partition's end"},
        {frame(call(BASALT_QPLAN_WIN_NTH_VALUE, 1), 'r', BASALT_QPLAN_PRECEDING, 1,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         false, false, false, 0, 0, "that starts after its start"},
        {frame(call(BASALT_QPLAN_WIN_FIRST_VALUE, 1), 'r', BASALT_QPLAN_PRECEDING, 3,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_NO_OTHERS),
         true, true, false, 3, 0, ""},
        {frame(call(BASALT_QPLAN_WIN_AVG, 1), 'r', BASALT_QPLAN_UNBOUNDED_PRECEDING, 0,
               BASALT_QPLAN_UNBOUNDED_FOLLOWING, 0, BASALT_QPLAN_EXCLUDE_CURRENT_ROW),
         false, false, false, 0, 0, "AVG ('c') has EXCLUDE in a frame to the partition's end"},
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        ends[i].c.name = "c";
        struct basalt_qwin_spec spec = {&schema, NULL, 0, order_cols, 1, &ends[i].c, 1, NULL, ord};
        for (int sized = 0; sized < 2; sized++) {
            int64_t behind = -1, ahead = -1;
            bool peers = false, whole = false;
            char why[200] = "";
            bool ok = basalt_qwin_stretchable(&spec, sized, &behind, &ahead, &peers, &whole, why,
                                              sizeof why);
            bool want = sized ? ends[i].ok_sized : ends[i].ok_unsized;
            CHECK_MSG(ok == want, "end case %zu sized %d: %d (%s)", i, sized, ok, why);
            if (ok)
                CHECK_MSG(behind == ends[i].behind && ahead == ends[i].ahead &&
                              whole == ends[i].whole,
                          "end case %zu: behind %lld ahead %lld whole %d", i, (long long)behind,
                          (long long)ahead, whole);
            else
                CHECK_MSG(strstr(why, ends[i].why) != NULL, "end case %zu: '%s' lacks '%s'", i,
                          why, ends[i].why);
        }
    }
    basalt_arrow_schema_release(&schema);
}

/* A window over 300000 rows under a memory limit: RANGE and GROUPS frames
 * with PARTITION BY go through the spilled sort a chunk of whole partitions
 * at a time; EXCLUDE over row offsets without PARTITION BY runs in
 * stretches (EXPLAIN ANALYZE counts them); without PARTITION BY a RANGE
 * frame with offsets is held whole. Each gives the rows of the window
 * without a limit, in the same order: the rows are read a batch at a time
 * and folded into a hash (holding them would pass the limit). */
static void fold(const struct ArrowSchema *schema, const struct ArrowArray *b, uint64_t *h)
{
    for (int64_t i = 0; i < b->length; i++)
        for (int64_t c = 0; c < b->n_children; c++) {
            struct basalt_query_type t;
            basalt_query_type_from_format(schema->children[c]->format, &t, NULL);
            struct basalt_query_value v;
            qt_value(b->children[c], t, i, &v);
            uint64_t x = v.is_null ? 0x9e3779b97f4a7c15ULL
                         : t.id == BASALT_QUERY_TYPE_DECIMAL
                             ? v.v.dec.lo ^ ((uint64_t)v.v.dec.hi * 0xff51afd7ed558ccdULL)
                             : (uint64_t)v.v.i;
            *h = (*h ^ x) * 0x100000001b3ULL;
            *h ^= *h >> 29;
        }
}

static basalt_status limited(int64_t limit, int variant, uint64_t *hash, int64_t *rows,
                             char *plan, size_t cap, struct basalt_error *err)
{
    const int64_t n = 300000, per = 50000;
    struct basalt_qctx_options o;
    basalt_qctx_options_init(&o);
    o.memory_limit = limit;
    struct basalt_qctx *ctx;
    basalt_status st = basalt_qctx_new(&o, &ctx, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    st = basalt_arrow_schema_init(&in.schema, "+s", NULL, 0, 3, err);
    const char *nm[] = {"p", "k", "v"};
    for (int c = 0; c < 3 && st == BASALT_OK; c++)
        st = basalt_arrow_schema_init(in.schema.children[c], "l", nm[c], 0, 0, err);
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    for (int64_t lo = 0; lo < n && st == BASALT_OK; lo += per) {
        struct ArrowArray a;
        st = basalt_arrow_array_init(&a, 1, 3, err);
        a.length = per;
        for (int c = 0; c < 3 && st == BASALT_OK; c++) {
            st = basalt_arrow_array_init(a.children[c], 2, 0, err);
            a.children[c]->length = per;
            void *mem;
            if (st == BASALT_OK)
                st = basalt_arrow_array_allocate_buffer(a.children[c], 1, (size_t)per * 8, &mem,
                                                        err);
            for (int64_t i = 0; i < per && st == BASALT_OK; i++)
                ((int64_t *)mem)[i] = c == 0   ? (int64_t)bt_rng_below(&rng, 5)
                                      : c == 1 ? (int64_t)bt_rng_below(&rng, 100000)
                                               : (int64_t)bt_rng_below(&rng, 1000);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(&in, &a, err);
        else if (a.release)
            basalt_arrow_array_release(&a);
    }
    struct basalt_qplan *t, *node = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_values(ctx, &in, &t, err);
    basalt_arrow_batches_reset(&in);
    struct basalt_qplan_window_call calls[3];
    calls[0] = frame(call(BASALT_QPLAN_WIN_SUM, 2), 'v', BASALT_QPLAN_PRECEDING, 50,
                     BASALT_QPLAN_FOLLOWING, 20, BASALT_QPLAN_EXCLUDE_NO_OTHERS);
    calls[1] = frame(call(BASALT_QPLAN_WIN_MAX, 2), 'g', BASALT_QPLAN_PRECEDING, 2,
                     BASALT_QPLAN_FOLLOWING, 1, BASALT_QPLAN_EXCLUDE_GROUP);
    calls[2] = frame(call(BASALT_QPLAN_WIN_MIN, 2), 'r', BASALT_QPLAN_PRECEDING, 3,
                     BASALT_QPLAN_FOLLOWING, 2, BASALT_QPLAN_EXCLUDE_TIES);
    const int part[] = {0};
    const struct basalt_qplan_sort_key ord[] = {{1, true, false}};
    /* 0: the three with PARTITION BY; 1: EXCLUDE alone without; 2: RANGE without */
    const struct basalt_qplan_window_call *cs = variant == 1 ? calls + 2 : calls;
    int nc = variant == 0 ? 3 : 1;
    if (st == BASALT_OK)
        st = basalt_qplan_window(ctx, t, part, variant == 0, ord, 1, cs, nc, &node, err);
    struct basalt_qcursor *cur = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_open(ctx, node, &cur, err);
    *hash = 14695981039346656037ULL;
    *rows = 0;
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qcursor_next(cur, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        fold(basalt_qcursor_schema(cur), &b, hash);
        *rows += b.length;
        basalt_arrow_array_release(&b);
    }
    basalt_qcursor_free(cur);
    if (st == BASALT_OK)
        basalt_qplan_explain(node, true, plan, cap);
    basalt_qctx_free(ctx);
    return st;
}

TEST(window_frames_memory_limit)
{
    struct basalt_error err;
    basalt_error_init(&err);
    for (int variant = 0; variant < 3; variant++) {
        uint64_t h1, h2;
        int64_t n1, n2;
        char plan[4096], plan2[4096];
        CHECK_OK(limited(0, variant, &h1, &n1, plan, sizeof plan, &err), &err);
        /* (held whole, variant 2 needs room for its input and its sort) */
        int64_t limit = variant == 2 ? (int64_t)256 << 20 : (int64_t)16 << 20;
        CHECK_OK(limited(limit, variant, &h2, &n2, plan2, sizeof plan2, &err), &err);
        CHECK_EQ(n1, 300000);
        CHECK_EQ(n2, 300000);
        CHECK_MSG(h1 == h2, "variant %d: the rows differ under the limit", variant);
        bool stretched = strstr(plan2, "stretches=") != NULL;
        CHECK_MSG(stretched == (variant == 1), "variant %d: %s", variant, plan2);
    }
}
