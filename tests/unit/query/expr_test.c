/* The expression layer with hand-written expected values (DuckDB 1.5's
 * answers for the same expressions): three-valued logic, overflow, decimal
 * scale rules, LIKE edge cases, casts, timestamp arithmetic in UTC; the fused
 * path firing and agreeing with the unfused kernels; several threads running
 * one program. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "query_internal.h"
#include "query_test_util.h"
#include "plan/plan_internal.h"
#include "test.h"

#define N 9
enum { C_P, C_Q, C_I, C_D, C_S, C_TS, C_DT, C_X, C_Y, C_COUNT };

/* p, q: every pair of TRUE/FALSE/NULL; i: int64 with extremes; d: doubles with
 * -0.0 and NaN; s: strings; ts: timestamps (us); dt: dates; x, y: doubles. */
static basalt_status make_batch(struct ArrowSchema *schema, struct ArrowArray *array)
{
    struct basalt_arrow_builder *root, *c[C_COUNT];
    static const char *const fmts[C_COUNT] = {"b", "b", "l", "g", "u", "tsu:", "tdD", "g", "g"};
    static const char *const names[C_COUNT] = {"p", "q", "i", "d", "s", "ts", "dt", "x", "y"};
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    for (int k = 0; k < C_COUNT && st == BASALT_OK; k++)
        st = basalt_arrow_builder_add_child(root, fmts[k], names[k], ARROW_FLAG_NULLABLE, &c[k], NULL);
    static const int pv[N] = {1, 1, 1, 0, 0, 0, 2, 2, 2}; /* 2: NULL */
    static const int qv[N] = {1, 0, 2, 1, 0, 2, 1, 0, 2};
    static const int64_t iv[N] = {1, 0, INT64_MAX, -5, INT64_MIN, 42, 7, 100, -1};
    static const double dv[N] = {1.5, 0, -0.0, 2.25, -7.5, 1e300, 3, 0, 4};
    static const char *const sv[N] = {"abc", NULL, "", "a_c%", "ABC", "aXbXc", "hello", "b", "ab"};
    static const char *const tsv[N] = {"2024-01-31 10:00:00", "2024-02-01 01:00:00", NULL,
                                       "2024-03-01 00:00:00", "1999-12-31 23:59:59.5",
                                       "2024-05-19 03:04:05", "1970-01-01 00:00:00",
                                       "2024-12-30 12:00:00", "2000-02-29 00:00:00"};
    for (int r = 0; r < N && st == BASALT_OK; r++) {
        st = pv[r] == 2 ? basalt_arrow_builder_append_null(c[C_P], NULL)
                        : basalt_arrow_builder_append_bool(c[C_P], pv[r], NULL);
        if (st == BASALT_OK)
            st = qv[r] == 2 ? basalt_arrow_builder_append_null(c[C_Q], NULL)
                            : basalt_arrow_builder_append_bool(c[C_Q], qv[r], NULL);
        if (st == BASALT_OK)
            st = r == 1 ? basalt_arrow_builder_append_null(c[C_I], NULL)
                        : basalt_arrow_builder_append_int(c[C_I], iv[r], NULL);
        if (st == BASALT_OK)
            st = r == 1 ? basalt_arrow_builder_append_null(c[C_D], NULL)
                        : basalt_arrow_builder_append_double(c[C_D], r == 8 ? NAN : dv[r], NULL);
        if (st == BASALT_OK)
            st = sv[r] ? basalt_arrow_builder_append_string(c[C_S], sv[r], NULL)
                       : basalt_arrow_builder_append_null(c[C_S], NULL);
        int64_t t = 0;
        if (tsv[r])
            basalt_qparse_timestamp(tsv[r], strlen(tsv[r]), false, &t);
        if (st == BASALT_OK)
            st = tsv[r] ? basalt_arrow_builder_append_int(c[C_TS], t, NULL)
                        : basalt_arrow_builder_append_null(c[C_TS], NULL);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_int(c[C_DT], basalt_qfloordiv(t, INT64_C(86400000000)), NULL);
        if (st == BASALT_OK)
            st = r == 2 ? basalt_arrow_builder_append_null(c[C_X], NULL)
                        : basalt_arrow_builder_append_double(c[C_X], dv[r], NULL);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_double(c[C_Y], (double)r - 4, NULL);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, NULL);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, array, NULL);
    basalt_arrow_builder_free(root);
    return st;
}

struct fx {
    struct ArrowSchema schema;
    struct ArrowArray batch;
    struct basalt_qexpr_builder *b;
    struct basalt_error err;
    bool failed;
};

static struct fx F;

static bool fx_open(void)
{
    memset(&F, 0, sizeof F);
    basalt_error_init(&F.err);
    return make_batch(&F.schema, &F.batch) == BASALT_OK &&
           basalt_qexpr_builder_new(&F.schema, &F.b, &F.err) == BASALT_OK;
}

static void fx_close(void)
{
    basalt_qexpr_builder_free(F.b);
    basalt_arrow_array_release(&F.batch);
    basalt_arrow_schema_release(&F.schema);
}

/* Expression shorthands: a failure sets F.failed and returns NULL, and every
 * constructor passes NULL through. */
static struct basalt_qexpr *chk(basalt_status st, struct basalt_qexpr *e)
{
    if (st != BASALT_OK) {
        if (!F.failed)
            fprintf(stderr, "  build failed: %s\n", F.err.message);
        F.failed = true;
        return NULL;
    }
    return e;
}
static struct basalt_qexpr *col(int i)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_column(F.b, i, &e, &F.err);
    return chk(st_, e);
}
static struct basalt_qexpr *i64(int64_t v)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_int(F.b, BASALT_QUERY_TYPE_INT64, v, &e, &F.err);
    return chk(st_, e);
}
static struct basalt_qexpr *f64(double v)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_double(F.b, v, &e, &F.err);
    return chk(st_, e);
}
static struct basalt_qexpr *str(const char *s)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_string(F.b, s, strlen(s), &e, &F.err);
    return chk(st_, e);
}
static struct basalt_qexpr *call(const char *name, struct basalt_qexpr *a, struct basalt_qexpr *c,
                                 struct basalt_qexpr *d)
{
    struct basalt_qexpr *args[3] = {a, c, d}, *e = NULL;
    int n = d ? 3 : c ? 2 : 1;
    for (int i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    basalt_status st_ = basalt_qexpr_call(F.b, name, args, n, &e, &F.err);
    return chk(st_, e);
}
static struct basalt_qexpr *cast(struct basalt_qexpr *a, struct basalt_query_type t, bool try_)
{
    struct basalt_qexpr *e = NULL;
    if (!a)
        return NULL;
    basalt_status st_ = basalt_qexpr_cast(F.b, a, t, try_, &e, &F.err);
    return chk(st_, e);
}
static struct basalt_qexpr *dec(const char *text, int p, int s)
{
    return cast(str(text), basalt_query_type_decimal(p, s), false);
}

/* Evaluates e over the batch into cells "v0|v1|...". */
static basalt_status run(struct basalt_qexpr *e, bool fuse, char *out, size_t cap)
{
    struct basalt_query_program *p = NULL;
    struct basalt_query_state *s = NULL;
    struct ArrowArray res;
    struct basalt_query_compile_options o;
    basalt_query_compile_options_init(&o);
    o.fuse = fuse;
    if (!e)
        return BASALT_INVALID_ARG;
    basalt_status st = basalt_query_compile(F.b, &e, 1, &o, &p, &F.err);
    if (st == BASALT_OK)
        st = basalt_query_state_new(p, &s, &F.err);
    if (st == BASALT_OK)
        st = basalt_query_eval(p, s, &F.batch, &res, &F.err);
    if (st == BASALT_OK) {
        size_t k = 0;
        out[0] = 0;
        for (int64_t r = 0; r < res.length; r++) {
            char cell[128];
            qt_cell(&res, e->type, r, cell, sizeof cell);
            k += (size_t)snprintf(out + k, cap - k, "%s%s", r ? "|" : "", cell);
        }
        basalt_arrow_array_release(&res);
    }
    basalt_query_state_free(s);
    basalt_query_program_free(p);
    return st;
}

#define EXPECT(expr, want)                                                                        \
    do {                                                                                          \
        char got_[2048];                                                                          \
        struct basalt_qexpr *e_ = (expr);                                                         \
        CHECK_MSG(!F.failed && e_, "build failed: %s", F.err.message);                            \
        CHECK_OK(run(e_, true, got_, sizeof got_), &F.err);                                       \
        CHECK_MSG(strcmp(got_, want) == 0, "%s:\n  got  %s\n  want %s", #expr, got_, want);     \
    } while (0)

#define EXPECT_ERROR(expr, status, text)                                                          \
    do {                                                                                          \
        char got_[2048];                                                                          \
        struct basalt_qexpr *e_ = (expr);                                                         \
        CHECK_MSG(!F.failed && e_, "build failed: %s", F.err.message);                            \
        CHECK_STATUS(run(e_, true, got_, sizeof got_), status, &F.err);                           \
        CHECK_MSG(strstr(F.err.message, text), "message '%s' lacks '%s'", F.err.message, text);  \
    } while (0)

TEST(query_three_valued_logic)
{
    CHECK(fx_open());
    struct basalt_qexpr *pq[2] = {col(C_P), col(C_Q)}, *e = NULL;
    /* rows: (T,T) (T,F) (T,N) (F,T) (F,F) (F,N) (N,T) (N,F) (N,N) */
    CHECK_OK(basalt_qexpr_and(F.b, pq, 2, &e, &F.err), &F.err);
    EXPECT(e, "true|false|NULL|false|false|false|NULL|false|NULL");
    CHECK_OK(basalt_qexpr_or(F.b, pq, 2, &e, &F.err), &F.err);
    EXPECT(e, "true|true|true|true|false|NULL|true|NULL|NULL");
    CHECK_OK(basalt_qexpr_not(F.b, col(C_Q), &e, &F.err), &F.err);
    EXPECT(e, "false|true|NULL|false|true|NULL|false|true|NULL");
    CHECK_OK(basalt_qexpr_is_null(F.b, col(C_Q), false, &e, &F.err), &F.err);
    EXPECT(e, "false|false|true|false|false|true|false|false|true");
    CHECK_OK(basalt_qexpr_is_distinct(F.b, col(C_P), col(C_Q), false, &e, &F.err), &F.err);
    EXPECT(e, "false|true|true|true|false|true|true|true|false");
    CHECK_OK(basalt_qexpr_is_distinct(F.b, col(C_P), col(C_Q), true, &e, &F.err), &F.err);
    EXPECT(e, "true|false|false|false|true|false|false|false|true");
    EXPECT(call("=", col(C_P), col(C_Q), NULL), "true|false|NULL|false|true|NULL|NULL|NULL|NULL");
    /* IN with a NULL in the list: TRUE, else NULL */
    struct basalt_qexpr *list[2] = {i64(1), NULL};
    CHECK_OK(basalt_qexpr_null(F.b, basalt_query_type_make(BASALT_QUERY_TYPE_NULL), &list[1], &F.err), &F.err);
    CHECK_OK(basalt_qexpr_in(F.b, col(C_I), list, 2, false, &e, &F.err), &F.err);
    EXPECT(e, "true|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL");
    CHECK_OK(basalt_qexpr_in(F.b, col(C_I), list, 1, true, &e, &F.err), &F.err);
    EXPECT(e, "false|NULL|true|true|true|true|true|true|true");
    fx_close();
}

TEST(query_integer_overflow_and_division)
{
    CHECK(fx_open());
    basalt_qexpr_builder_set_position(F.b, 17);
    EXPECT_ERROR(call("+", col(C_I), i64(1), NULL), BASALT_LIMIT,
                 "Overflow in addition of INT64 (9223372036854775807 + 1)! (at position 17)");
    EXPECT_ERROR(call("-", col(C_I), i64(1), NULL), BASALT_LIMIT,
                 "Overflow in subtraction of INT64 (-9223372036854775808 - 1)!");
    EXPECT_ERROR(call("*", col(C_I), i64(2), NULL), BASALT_LIMIT,
                 "Overflow in multiplication of INT64 (9223372036854775807 * 2)!");
    EXPECT_ERROR(call("//", col(C_I), i64(-1), NULL), BASALT_LIMIT,
                 "Overflow in division of -9223372036854775808 / -1");
    basalt_qexpr_builder_set_position(F.b, -1);
    /* integer // and % by zero are NULL; / is DOUBLE division */
    EXPECT(call("//", i64(7), cast(col(C_Y), basalt_query_type_make(BASALT_QUERY_TYPE_INT64), false), NULL),
           "-1|-2|-3|-7|NULL|7|3|2|1");
    EXPECT(call("%", i64(-7), cast(col(C_Y), basalt_query_type_make(BASALT_QUERY_TYPE_INT64), false), NULL),
           "-3|-1|-1|0|NULL|0|-1|-1|-3");
    EXPECT(call("/", i64(1), i64(0), NULL), "inf|inf|inf|inf|inf|inf|inf|inf|inf");
    /* a CASE branch only raises for the rows that reach it */
    struct basalt_qexpr *w = call("<", col(C_I), i64(100), NULL), *t = call("+", col(C_I), i64(1), NULL);
    struct basalt_qexpr *el = i64(0), *e = NULL;
    CHECK(w && t && el);
    CHECK_OK(basalt_qexpr_case(F.b, &w, &t, 1, el, &e, &F.err), &F.err);
    EXPECT(e, "2|0|0|-4|-9223372036854775807|43|8|0|0");
    /* COALESCE runs later arguments only on rows still NULL */
    struct basalt_qexpr *co[2] = {col(C_I), call("+", i64(INT64_MAX), i64(1), NULL)};
    CHECK(co[1]);
    CHECK_OK(basalt_qexpr_coalesce(F.b, co, 2, &e, &F.err), &F.err);
    EXPECT_ERROR(e, BASALT_LIMIT, "Overflow in addition of INT64");
    fx_close();
}

TEST(query_decimal_scale_rules)
{
    CHECK(fx_open());
    char t[48];
    struct basalt_qexpr *a = dec("1.5", 4, 1), *c = dec("1.25", 5, 2);
    struct basalt_qexpr *sum = call("+", a, c, NULL), *prod = call("*", a, c, NULL);
    struct basalt_qexpr *withint = call("+", a, cast(col(C_Y), basalt_query_type_make(BASALT_QUERY_TYPE_INT32), false), NULL);
    struct basalt_qexpr *quot = call("/", a, c, NULL), *mod = call("%", a, dec("1.2", 3, 2), NULL);
    CHECK(sum && prod && withint && quot && mod);
    CHECK_STR(basalt_query_type_name(sum->type, t, sizeof t), "DECIMAL(6,2)");
    CHECK_STR(basalt_query_type_name(prod->type, t, sizeof t), "DECIMAL(9,3)");
    CHECK_STR(basalt_query_type_name(withint->type, t, sizeof t), "DECIMAL(12,1)");
    CHECK_STR(basalt_query_type_name(quot->type, t, sizeof t), "DOUBLE");
    CHECK_STR(basalt_query_type_name(mod->type, t, sizeof t), "DECIMAL(5,2)");
    /* folded at build time */
    CHECK(basalt_qexpr_constant(sum, NULL) && basalt_qexpr_constant(prod, NULL));
    EXPECT(sum, "2.75|2.75|2.75|2.75|2.75|2.75|2.75|2.75|2.75");
    EXPECT(prod, "1.875|1.875|1.875|1.875|1.875|1.875|1.875|1.875|1.875");
    EXPECT(withint, "-2.5|-1.5|-0.5|0.5|1.5|2.5|3.5|4.5|5.5");
    EXPECT(mod, "0.30|0.30|0.30|0.30|0.30|0.30|0.30|0.30|0.30");
    EXPECT(call("round", dec("1.25", 4, 2), i64(1), NULL), "1.3|1.3|1.3|1.3|1.3|1.3|1.3|1.3|1.3");
    EXPECT(cast(dec("-1.25", 4, 2), basalt_query_type_decimal(3, 1), false), "-1.3|-1.3|-1.3|-1.3|-1.3|-1.3|-1.3|-1.3|-1.3");
    EXPECT(cast(dec("1.25", 4, 2), basalt_query_type_make(BASALT_QUERY_TYPE_INT32), false), "1|1|1|1|1|1|1|1|1");
    fx_close();
}

TEST(query_casts)
{
    CHECK(fx_open());
    struct basalt_query_type i8 = basalt_query_type_make(BASALT_QUERY_TYPE_INT8);
    struct basalt_query_type i32 = basalt_query_type_make(BASALT_QUERY_TYPE_INT32);
    EXPECT_ERROR(cast(col(C_I), i8, false), BASALT_INVALID_ARG,
                 "Type INT64 with value 9223372036854775807 can't be cast because the value is out of range for the destination type INT8");
    EXPECT(cast(col(C_I), i8, true), "1|NULL|NULL|-5|NULL|42|7|100|-1");
    EXPECT(cast(col(C_D), i32, true), "2|NULL|0|2|-8|NULL|3|0|NULL");
    EXPECT_ERROR(cast(col(C_S), i32, false), BASALT_INVALID_ARG, "Could not convert string 'abc' to INT32");
    EXPECT(cast(col(C_TS), basalt_query_type_make(BASALT_QUERY_TYPE_STRING), false),
           "2024-01-31 10:00:00|2024-02-01 01:00:00|NULL|2024-03-01 00:00:00|1999-12-31 23:59:59.5|"
           "2024-05-19 03:04:05|1970-01-01 00:00:00|2024-12-30 12:00:00|2000-02-29 00:00:00");
    EXPECT(cast(col(C_DT), basalt_query_type_make(BASALT_QUERY_TYPE_STRING), false),
           "2024-01-31|2024-02-01|1970-01-01|2024-03-01|1999-12-31|2024-05-19|1970-01-01|2024-12-30|2000-02-29");
    fx_close();
}

TEST(query_like_edge_cases)
{
    CHECK(fx_open());
    /* s: abc NULL '' a_c% ABC aXbXc hello b ab */
    EXPECT(call("like", col(C_S), str("a%"), NULL), "true|NULL|false|true|false|true|false|false|true");
    EXPECT(call("like", col(C_S), str("%c"), NULL), "true|NULL|false|false|false|true|false|false|false");
    EXPECT(call("like", col(C_S), str("%b%"), NULL), "true|NULL|false|false|false|true|false|true|true");
    EXPECT(call("like", col(C_S), str("_b_"), NULL), "true|NULL|false|false|false|false|false|false|false");
    EXPECT(call("like", col(C_S), str("a%b%c"), NULL), "true|NULL|false|false|false|true|false|false|false");
    /* Several literal runs (like_segments): in order, the last not
     * overlapping the first ('ab%bc' is not 'abc'). */
    EXPECT(call("like", col(C_S), str("%b%c%"), NULL), "true|NULL|false|false|false|true|false|false|false");
    EXPECT(call("like", col(C_S), str("a%b"), NULL), "false|NULL|false|false|false|false|false|false|true");
    EXPECT(call("like", col(C_S), str("%l%l%"), NULL), "false|NULL|false|false|false|false|true|false|false");
    EXPECT(call("like", col(C_S), str("%l%l%l%"), NULL), "false|NULL|false|false|false|false|false|false|false");
    EXPECT(call("like", col(C_S), str("ab%bc"), NULL), "false|NULL|false|false|false|false|false|false|false");
    EXPECT(call("like", col(C_S), str("a%\\%"), str("\\")), "false|NULL|false|true|false|false|false|false|false");
    EXPECT(call("like", col(C_S), str("%"), NULL), "true|NULL|true|true|true|true|true|true|true");
    EXPECT(call("like", col(C_S), str("_"), NULL), "false|NULL|false|false|false|false|false|true|false");
    EXPECT(call("like", col(C_S), str("a\\_c\\%"), str("\\")), "false|NULL|false|true|false|false|false|false|false");
    EXPECT(call("like", col(C_S), str("a_c%"), NULL), "true|NULL|false|true|false|false|false|false|false");
    EXPECT(call("like", col(C_S), str("%!%"), str("!")), "false|NULL|false|true|false|false|false|false|false");
    EXPECT(call("ilike", col(C_S), str("a%C"), NULL), "true|NULL|false|false|true|true|false|false|false");
    EXPECT(call("not_like", col(C_S), str("%b%"), NULL), "false|NULL|true|true|true|false|true|false|false");
    EXPECT(call("like", col(C_S), str("hello"), NULL), "false|NULL|false|false|false|false|true|false|false");
    /* Each constant pattern gets the kernel of its shape. */
    static const char *const shapes[][2] = {{"%b%c%", "like_segments"}, {"a%b", "like_segments"},
                                            {"%b%", "like_contains"}, {"a_c%", "like_general"},
                                            {"a%", "like_prefix"}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        struct basalt_qexpr *e = call("like", col(C_S), str(shapes[k][0]), NULL);
        struct basalt_query_program *p;
        CHECK_OK(basalt_query_compile(F.b, &e, 1, NULL, &p, &F.err), &F.err);
        char text[1024];
        basalt_query_program_explain(p, text, sizeof text);
        CHECK_MSG(strstr(text, shapes[k][1]) != NULL, "%s: %s", shapes[k][0], text);
        basalt_query_program_free(p);
    }
    fx_close();
}

TEST(query_strings)
{
    CHECK(fx_open());
    EXPECT(call("length", col(C_S), NULL, NULL), "3|NULL|0|4|3|5|5|1|2");
    EXPECT(call("upper", col(C_S), NULL, NULL), "ABC|NULL||A_C%|ABC|AXBXC|HELLO|B|AB");
    EXPECT(call("substring", col(C_S), i64(2), i64(3)), "bc|NULL||_c%|BC|XbX|ell||b");
    EXPECT(call("substring", str("hello"), i64(0), i64(2)), "h|h|h|h|h|h|h|h|h");
    EXPECT(call("substring", str("hello"), i64(-3), i64(2)), "ll|ll|ll|ll|ll|ll|ll|ll|ll");
    /* from the front over multi-byte characters, and past the end */
    EXPECT(call("substring", str("h\xc3\xa9llo"), i64(2), i64(2)),
           "\xc3\xa9l|\xc3\xa9l|\xc3\xa9l|\xc3\xa9l|\xc3\xa9l|\xc3\xa9l|\xc3\xa9l|\xc3\xa9l|\xc3\xa9l");
    EXPECT(call("substring", str("h\xc3\xa9"), i64(2), i64(9)),
           "\xc3\xa9|\xc3\xa9|\xc3\xa9|\xc3\xa9|\xc3\xa9|\xc3\xa9|\xc3\xa9|\xc3\xa9|\xc3\xa9");
    EXPECT(call("substring", str("h\xc3\xa9"), i64(3), i64(1)), "||||||||");
    EXPECT(call("substring", str("h\xc3\xa9llo"), i64(3), i64(0)), "||||||||");
    EXPECT(call("||", col(C_S), str("!"), NULL), "abc!|NULL|!|a_c%!|ABC!|aXbXc!|hello!|b!|ab!");
    EXPECT(call("concat", col(C_S), str("!"), NULL), "abc!|!|!|a_c%!|ABC!|aXbXc!|hello!|b!|ab!");
    /* Equality of longer strings (compared inline in words): equal, then a
     * difference in the last byte, in the middle, and at a word's edge. */
    static const char *const tails[] = {"0123456789abcdefXYZ", "01234"};
    static const char *const probes[][2] = {
        {"abc0123456789abcdefXYZ", "true|NULL|false|false|false|false|false|false|false"},
        {"abc0123456789abcdefXYQ", "false|NULL|false|false|false|false|false|false|false"},
        {"abc0123456789Abcdef" "XYZ", "false|NULL|false|false|false|false|false|false|false"},
        {"hello0123456789abcdefXYZ", "false|NULL|false|false|false|false|true|false|false"},
        {"abc01234", "true|NULL|false|false|false|false|false|false|false"},
        {"abd01234", "false|NULL|false|false|false|false|false|false|false"},
        {"aXbXc01234", "false|NULL|false|false|false|true|false|false|false"},
        {"aXbXc01235", "false|NULL|false|false|false|false|false|false|false"}};
    for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
        const char *tail = k < 4 ? tails[0] : tails[1];
        EXPECT(call("=", call("||", col(C_S), str(tail), NULL), str(probes[k][0]), NULL), probes[k][1]);
    }
    EXPECT(call("<>", col(C_S), str("hello"), NULL), "true|NULL|true|true|true|true|false|true|true");
    EXPECT(call("=", col(C_S), str(""), NULL), "false|NULL|true|false|false|false|false|false|false");
    /* = and <> with a constant string take the length-first kernel */
    struct basalt_qexpr *eq = call("=", col(C_S), str("abc"), NULL);
    struct basalt_query_program *p;
    CHECK_OK(basalt_query_compile(F.b, &eq, 1, NULL, &p, &F.err), &F.err);
    char text[1024];
    basalt_query_program_explain(p, text, sizeof text);
    CHECK_MSG(strstr(text, "compare_const_str_eq") != NULL, "%s", text);
    basalt_query_program_free(p);
    /* x IN (a, b, c) compares the one x with each item: x is computed once,
     * and so are both outputs of a node that two expressions hold. */
    struct basalt_qexpr *prefix = call("substring", col(C_S), i64(1), i64(2));
    struct basalt_qexpr *items[3] = {str("ab"), str("he"), str("aX")}, *in;
    CHECK_OK(basalt_qexpr_in(F.b, prefix, items, 3, false, &in, &F.err), &F.err);
    EXPECT(in, "true|NULL|false|false|false|true|true|false|true");
    struct basalt_qexpr *both[3] = {in, prefix, call("||", prefix, prefix, NULL)};
    CHECK_OK(basalt_query_compile(F.b, both, 3, NULL, &p, &F.err), &F.err);
    basalt_query_program_explain(p, text, sizeof text);
    int substrings = 0;
    for (const char *t = text; (t = strstr(t, "= string VARCHAR")) != NULL; t++)
        substrings++;
    /* once for the IN and the concatenation, once as an output of its own */
    CHECK_MSG(substrings == 2, "%s", text);
    basalt_query_program_free(p);
    /* The optimiser's copy onto a narrower input keeps the sharing. */
    struct basalt_qexpr_builder *nb;
    CHECK_OK(basalt_qexpr_builder_new(&F.schema, &nb, &F.err), &F.err);
    int32_t same[16];
    for (int k = 0; k < 16; k++)
        same[k] = k < F.schema.n_children ? k : -1;
    struct basalt_qexpr *moved;
    CHECK_OK(basalt_qexpr_remap(nb, in, same, &moved, &F.err), &F.err);
    CHECK_OK(basalt_query_compile(nb, &moved, 1, NULL, &p, &F.err), &F.err);
    basalt_query_program_explain(p, text, sizeof text);
    substrings = 0;
    for (const char *t = text; (t = strstr(t, "= string VARCHAR")) != NULL; t++)
        substrings++;
    CHECK_MSG(substrings == 1, "%s", text);
    basalt_query_program_free(p);
    basalt_qexpr_builder_free(nb);
    EXPECT(call("replace", col(C_S), str("X"), str("--")), "abc|NULL||a_c%|ABC|a--b--c|hello|b|ab");
    EXPECT(call("trim", str("  a  "), NULL, NULL), "a|a|a|a|a|a|a|a|a");
    EXPECT(call("contains", col(C_S), str("b"), NULL), "true|NULL|false|false|false|true|false|true|true");
    EXPECT(call("<", col(C_S), str("b"), NULL), "true|NULL|true|true|true|true|false|false|true");
    fx_close();
}

/* Whether e compiles to the hash-set kernel of IN. */
static bool uses_in_set(struct basalt_qexpr *e)
{
    struct basalt_query_program *p;
    if (basalt_query_compile(F.b, &e, 1, NULL, &p, &F.err) != BASALT_OK)
        return false;
    char text[4096];
    basalt_query_program_explain(p, text, sizeof text);
    basalt_query_program_free(p);
    return strstr(text, "in_set") != NULL;
}

static struct basalt_qexpr *in_list(struct basalt_qexpr *x, struct basalt_qexpr **items, int n,
                                    bool negate)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st = basalt_qexpr_in(F.b, x, items, n, negate, &e, &F.err);
    return chk(st, e);
}

/* IN over eight constants or more looks x up in a hash set: the answers of
 * the OR of equalities it replaces, NULLs included, for every type it
 * takes. */
TEST(query_in_set)
{
    CHECK(fx_open());
    /* i: 1 NULL MAX -5 MIN 42 7 100 -1 */
    struct basalt_qexpr *ints[9] = {i64(1), i64(42), i64(-5), i64(9), i64(10), i64(11), i64(12),
                                    i64(INT64_MIN), NULL};
    CHECK_OK(basalt_qexpr_null(F.b, basalt_query_type_make(BASALT_QUERY_TYPE_NULL), &ints[8], &F.err),
             &F.err);
    CHECK(uses_in_set(in_list(col(C_I), ints, 8, false)));
    CHECK(!uses_in_set(in_list(col(C_I), ints, 7, false))); /* few: the OR stays */
    EXPECT(in_list(col(C_I), ints, 8, false), "true|NULL|false|true|true|true|false|false|false");
    EXPECT(in_list(col(C_I), ints, 8, true), "false|NULL|true|false|false|false|true|true|true");
    EXPECT(in_list(col(C_I), ints, 7, false), "true|NULL|false|true|false|true|false|false|false");
    /* a NULL in the list: a miss is NULL, in and out of NOT */
    EXPECT(in_list(col(C_I), ints, 9, false), "true|NULL|NULL|true|true|true|NULL|NULL|NULL");
    EXPECT(in_list(col(C_I), ints, 9, true), "false|NULL|NULL|false|false|false|NULL|NULL|NULL");
    /* d: 1.5 NULL -0 2.25 -7.5 1e300 3 0 NaN; -0 = 0 and NaN = NaN as = has them */
    struct basalt_qexpr *dbls[8] = {f64(0.0), f64(NAN), f64(3), f64(2.25), f64(100), f64(200),
                                    f64(300), f64(400)};
    CHECK(uses_in_set(in_list(col(C_D), dbls, 8, false)));
    EXPECT(in_list(col(C_D), dbls, 8, false), "false|NULL|true|true|false|false|true|true|true");
    /* s: abc NULL '' a_c% ABC aXbXc hello b ab; "abc" listed twice */
    struct basalt_qexpr *strs[9] = {str(""), str("abc"), str("hello"), str("zz"), str("yy"),
                                    str("xx"), str("ww"), str("ab"), str("abc")};
    CHECK(uses_in_set(in_list(col(C_S), strs, 9, false)));
    EXPECT(in_list(col(C_S), strs, 9, false), "true|NULL|true|false|false|false|true|false|true");
    /* decimals: the column cast to DECIMAL, 1 meeting 1.0 */
    struct basalt_qexpr *decs[8] = {dec("1.0", 5, 1), dec("42.0", 5, 1), dec("7.5", 5, 1),
                                    dec("-1.0", 5, 1), dec("2.0", 5, 1), dec("3.0", 5, 1),
                                    dec("4.0", 5, 1), dec("5.0", 5, 1)};
    struct basalt_qexpr *small = call("%", col(C_I), i64(1000), NULL);
    CHECK(uses_in_set(in_list(small, decs, 8, false)));
    EXPECT(in_list(small, decs, 8, false), "true|NULL|false|false|false|true|false|false|true");
    /* The optimiser's copy onto a narrower input carries the set. */
    struct basalt_qexpr_builder *nb;
    CHECK_OK(basalt_qexpr_builder_new(&F.schema, &nb, &F.err), &F.err);
    int32_t same[16];
    for (int k = 0; k < 16; k++)
        same[k] = k < F.schema.n_children ? k : -1;
    struct basalt_qexpr *moved;
    CHECK_OK(basalt_qexpr_remap(nb, in_list(col(C_S), strs, 9, false), same, &moved, &F.err), &F.err);
    basalt_qexpr_builder_free(F.b);
    F.b = nb; /* the original builder and its strings are gone */
    EXPECT(moved, "true|NULL|true|false|false|false|true|false|true");
    fx_close();
}

TEST(query_timestamps)
{
    CHECK(fx_open());
    struct basalt_query_value iv;
    memset(&iv, 0, sizeof iv);
    iv.type = basalt_query_type_make(BASALT_QUERY_TYPE_INTERVAL);
    iv.v.interval.months = 1;
    iv.v.interval.days = 2;
    iv.v.interval.nanos = INT64_C(3) * 3600 * 1000000000;
    struct basalt_qexpr *ie = NULL;
    CHECK_OK(basalt_qexpr_literal(F.b, &iv, &ie, &F.err), &F.err);
    EXPECT(cast(call("+", col(C_TS), ie, NULL), basalt_query_type_make(BASALT_QUERY_TYPE_STRING), false),
           "2024-03-02 13:00:00|2024-03-03 04:00:00|NULL|2024-04-03 03:00:00|2000-02-03 02:59:59.5|"
           "2024-06-21 06:04:05|1970-02-03 03:00:00|2025-02-01 15:00:00|2000-03-31 03:00:00");
    struct basalt_qexpr *first = cast(str("2024-02-01 01:00:00"), basalt_query_type_timestamp(false, false), false);
    EXPECT(cast(call("-", col(C_TS), first, NULL), basalt_query_type_make(BASALT_QUERY_TYPE_STRING), false),
           "-15:00:00|00:00:00|NULL|28 days 23:00:00|-8797 days -01:00:00.5|108 days 02:04:05|"
           "-19754 days -01:00:00|333 days 11:00:00|-8738 days -01:00:00");
    EXPECT(call("-", col(C_DT), cast(str("2024-02-01"), basalt_query_type_make(BASALT_QUERY_TYPE_DATE), false), NULL),
           "-1|0|-19754|29|-8798|108|-19754|333|-8738");
    EXPECT(call("date_part", str("dow"), col(C_TS), NULL), "3|4|NULL|5|5|0|4|1|2");
    EXPECT(call("date_part", str("week"), col(C_TS), NULL), "5|5|NULL|9|52|20|1|1|9");
    EXPECT(call("date_part", str("doy"), col(C_DT), NULL), "31|32|1|61|365|140|1|365|60");
    EXPECT(call("date_part", str("epoch"), col(C_TS), NULL),
           "1706695200|1706749200|NULL|1709251200|946684799.5|1716087845|0|1735560000|951782400");
    EXPECT(cast(call("date_trunc", str("month"), col(C_TS), NULL), basalt_query_type_make(BASALT_QUERY_TYPE_STRING), false),
           "2024-01-01 00:00:00|2024-02-01 00:00:00|NULL|2024-03-01 00:00:00|1999-12-01 00:00:00|"
           "2024-05-01 00:00:00|1970-01-01 00:00:00|2024-12-01 00:00:00|2000-02-01 00:00:00");
    EXPECT(call("strftime", col(C_TS), str("%Y/%m/%d %H:%M:%S %j %a"), NULL),
           "2024/01/31 10:00:00 031 Wed|2024/02/01 01:00:00 032 Thu|NULL|2024/03/01 00:00:00 061 Fri|"
           "1999/12/31 23:59:59 365 Fri|2024/05/19 03:04:05 140 Sun|1970/01/01 00:00:00 001 Thu|"
           "2024/12/30 12:00:00 365 Mon|2000/02/29 00:00:00 060 Tue");
    fx_close();
}

TEST(query_errors_name_function_and_types)
{
    CHECK(fx_open());
    struct basalt_qexpr *args[2] = {col(C_S), col(C_I)}, *e;
    basalt_qexpr_builder_set_position(F.b, 3);
    CHECK_STATUS(basalt_qexpr_call(F.b, "+", args, 2, &e, &F.err), BASALT_UNSUPPORTED, &F.err);
    CHECK_STR(F.err.message, "no overload of '+' for (VARCHAR, BIGINT) (at position 3)");
    CHECK_STATUS(basalt_qexpr_call(F.b, "frobnicate", args, 2, &e, &F.err), BASALT_NOT_FOUND, &F.err);
    CHECK_STR(F.err.message, "unknown function 'frobnicate' (at position 3)");
    CHECK_STATUS(basalt_qexpr_cast(F.b, col(C_TS), basalt_query_type_make(BASALT_QUERY_TYPE_INTERVAL), false, &e, &F.err),
                 BASALT_UNSUPPORTED, &F.err);
    CHECK_STR(F.err.message, "cannot cast TIMESTAMP to INTERVAL (at position 3)");
    fx_close();
}

/* The fused program fires for the seed's shapes and agrees with the
 * unfused kernels, nulls included. */
TEST(query_fused_path)
{
    CHECK(fx_open());
    /* ((x + 3.0) * (y - 2.0)) / 4.0 and x > y */
    struct basalt_qexpr *chain = call("/", call("*", call("+", col(C_X), f64(3), NULL),
                                                call("-", col(C_Y), f64(2), NULL), NULL), f64(4), NULL);
    struct basalt_qexpr *cmp = call(">", col(C_X), col(C_Y), NULL);
    struct basalt_qexpr *mixed = call("<=", call("*", col(C_D), cast(col(C_I), basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE), false), NULL), f64(10), NULL);
    CHECK(chain && cmp && mixed);
    struct basalt_qexpr *all[3] = {chain, cmp, mixed};
    for (int k = 0; k < 3; k++) {
        char a[2048], b[2048];
        CHECK_OK(run(all[k], true, a, sizeof a), &F.err);
        CHECK_OK(run(all[k], false, b, sizeof b), &F.err);
        CHECK_MSG(strcmp(a, b) == 0, "fused %s\nunfused %s", a, b);
    }
    EXPECT(chain, "-6.75|-3.75|NULL|-3.9375|2.25|-2.5000000000000001e+299|0|0.75|3.5");
    EXPECT(cmp, "true|true|NULL|true|false|true|true|false|false");
    struct basalt_query_program *p;
    struct basalt_query_state *s;
    struct ArrowArray out[3];
    CHECK_OK(basalt_query_compile(F.b, all, 3, NULL, &p, &F.err), &F.err);
    char text[4096];
    basalt_query_program_explain(p, text, sizeof text);
    CHECK_MSG(strstr(text, "fused DOUBLE") && strstr(text, "fused BOOLEAN") &&
              strstr(text, "load column 2 (BIGINT)"), "%s", text);
    CHECK_OK(basalt_query_state_new(p, &s, &F.err), &F.err);
    CHECK_OK(basalt_query_eval(p, s, &F.batch, out, &F.err), &F.err);
    struct basalt_query_stats stats;
    basalt_query_state_stats(s, &stats);
    CHECK_EQ(stats.fused_vectors, 3);
    int64_t sel[N], n = 0;
    CHECK_STATUS(basalt_query_select(p, s, &F.batch, sel, &n, &F.err), BASALT_INVALID_ARG, &F.err);
    for (int k = 0; k < 3; k++)
        basalt_arrow_array_release(&out[k]);
    basalt_query_state_free(s);
    basalt_query_program_free(p);
    CHECK_OK(basalt_query_compile(F.b, &cmp, 1, NULL, &p, &F.err), &F.err);
    CHECK_OK(basalt_query_state_new(p, &s, &F.err), &F.err);
    CHECK_OK(basalt_query_select(p, s, &F.batch, sel, &n, &F.err), &F.err);
    CHECK_EQ(n, 5);
    CHECK(sel[0] == 0 && sel[1] == 1 && sel[2] == 3 && sel[3] == 5 && sel[4] == 6);
    basalt_query_state_free(s);
    basalt_query_program_free(p);
    fx_close();
}

/* One program, four threads, a state each, a batch of 100k rows. */
struct worker {
    const struct basalt_query_program *p;
    const struct ArrowArray *batch;
    double sum;
    basalt_status st;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    struct basalt_query_state *s = NULL;
    struct ArrowArray out;
    w->st = basalt_query_state_new(w->p, &s, NULL);
    for (int rep = 0; rep < 5 && w->st == BASALT_OK; rep++) {
        w->st = basalt_query_eval(w->p, s, w->batch, &out, NULL);
        if (w->st != BASALT_OK)
            break;
        w->sum = 0;
        const double *v = out.buffers[1];
        for (int64_t i = 0; i < out.length; i++)
            if (!out.buffers[0] || basalt_bitmap_get(out.buffers[0], i))
                w->sum += v[i];
        basalt_arrow_array_release(&out);
    }
    basalt_query_state_free(s);
    return NULL;
}

TEST(query_threads_share_a_program)
{
    struct basalt_arrow_builder *root, *x, *y;
    struct ArrowSchema schema;
    struct ArrowArray batch;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(root, "g", "x", ARROW_FLAG_NULLABLE, &x, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(root, "l", "y", ARROW_FLAG_NULLABLE, &y, NULL), NULL);
    for (int i = 0; i < 100000; i++) {
        if (i % 10 == 0)
            basalt_arrow_builder_append_null(x, NULL);
        else
            basalt_arrow_builder_append_double(x, i * 0.5, NULL);
        basalt_arrow_builder_append_int(y, i % 1000, NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    CHECK_OK(basalt_arrow_builder_finish(root, &schema, &batch, NULL), NULL);
    basalt_arrow_builder_free(root);
    struct basalt_qexpr_builder *b;
    struct basalt_qexpr *cx, *cy, *e, *args[2];
    CHECK_OK(basalt_qexpr_builder_new(&schema, &b, NULL), NULL);
    CHECK_OK(basalt_qexpr_column(b, 0, &cx, NULL), NULL);
    CHECK_OK(basalt_qexpr_column(b, 1, &cy, NULL), NULL);
    args[0] = cx;
    args[1] = cy;
    CHECK_OK(basalt_qexpr_call(b, "*", args, 2, &e, NULL), NULL);
    struct basalt_query_program *p;
    CHECK_OK(basalt_query_compile(b, &e, 1, NULL, &p, NULL), NULL);
    basalt_qexpr_builder_free(b);
    struct worker w[4];
    pthread_t th[4];
    for (int k = 0; k < 4; k++) {
        w[k] = (struct worker){p, &batch, 0, BASALT_OK};
        pthread_create(&th[k], NULL, work, &w[k]);
    }
    for (int k = 0; k < 4; k++)
        pthread_join(th[k], NULL);
    double want = 0;
    for (int i = 0; i < 100000; i++)
        if (i % 10)
            want += i * 0.5 * (i % 1000);
    for (int k = 0; k < 4; k++) {
        CHECK_OK(w[k].st, NULL);
        CHECK(w[k].sum == w[0].sum);
    }
    CHECK(fabs(w[0].sum - want) <= 1e-9 * want);
    basalt_query_program_free(p);
    basalt_arrow_array_release(&batch);
    basalt_arrow_schema_release(&schema);
}
