/* Bitwise operators and the regex matching functions with hand-written
 * expected values (DuckDB 1.5's answers for the same rows): & | ~ >> over
 * negatives and shift amounts past the width or negative, << failing on a
 * negative number and on overflow unless a CASE masks the row, and
 * regexp_matches / regexp_full_match with options, over a constant pattern
 * and over a column of patterns. */
#include <string.h>

#include "expr_fixture.h"

#define N 8
enum { C_N, C_S, C_P, C_COUNT };

static basalt_status make_batch(struct ArrowSchema *schema, struct ArrowArray *array)
{
    struct basalt_arrow_builder *root, *c[C_COUNT];
    static const char *const fmts[C_COUNT] = {"i", "u", "u"};
    static const char *const names[C_COUNT] = {"n", "s", "p"};
    static const int32_t nv[N] = {1, -1, 0, 7, 0, 1073741824, 3, -8};
    static const char *const sv[N] = {"abc", "ABC", "a\nb", "", NULL, "x-y_z", "123", "日本"};
    static const char *const pv[N] = {"b", "(?i)abc", "a.b", "", "x", "y_", "\\d+", "本"};
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    for (int k = 0; k < C_COUNT && st == BASALT_OK; k++)
        st = basalt_arrow_builder_add_child(root, fmts[k], names[k], ARROW_FLAG_NULLABLE, &c[k], NULL);
    for (int r = 0; r < N && st == BASALT_OK; r++) {
        st = r == 4 ? basalt_arrow_builder_append_null(c[C_N], NULL)
                    : basalt_arrow_builder_append_int(c[C_N], nv[r], NULL);
        if (st == BASALT_OK)
            st = sv[r] ? basalt_arrow_builder_append_string(c[C_S], sv[r], NULL)
                       : basalt_arrow_builder_append_null(c[C_S], NULL);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_string(c[C_P], pv[r], NULL);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, NULL);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, array, NULL);
    basalt_arrow_builder_free(root);
    return st;
}

static bool fx_open(void)
{
    return fx_open_with(make_batch);
}

TEST(bitwise_fn_values)
{
    CHECK(fx_open());
    EXPECT(CALL("&", col(C_N), i32(6)), "0|6|0|6|NULL|0|2|0");
    EXPECT(CALL("|", col(C_N), i32(8)), "9|-1|8|15|NULL|1073741832|11|-8");
    EXPECT(CALL("~", col(C_N)), "-2|0|-1|-8|NULL|-1073741825|-4|7");
    EXPECT(CALL(">>", col(C_N), i32(1)), "0|-1|0|3|NULL|536870912|1|-4");
    EXPECT(CALL(">>", col(C_N), i32(31)), "0|-1|0|0|NULL|0|0|-1");
    EXPECT(CALL(">>", col(C_N), i32(32)), "0|0|0|0|NULL|0|0|0");
    EXPECT(CALL(">>", col(C_N), i32(-1)), "0|0|0|0|NULL|0|0|0");
    struct basalt_qexpr *x = CALL("&", col(C_N), i64(6));
    CHECK(x && basalt_qexpr_type(x).id == BASALT_QUERY_TYPE_INT64);
    fx_close();
}

TEST(bitwise_fn_shift_errors)
{
    CHECK(fx_open());
    EXPECT_ERROR(CALL("<<", col(C_N), i32(2)), BASALT_LIMIT, "Cannot left-shift negative number -1");
    EXPECT_ERROR(CALL("<<", i32(1), col(C_N)), BASALT_LIMIT, "Cannot left-shift by negative number -1");
    EXPECT_ERROR(CALL("<<", i32(1), i32(31)), BASALT_LIMIT, "Overflow in left shift (1 << 31)");
    EXPECT_ERROR(CALL("<<", i32(1), i32(32)), BASALT_LIMIT, "Left-shift value 32 is out of range");
    EXPECT(CALL("<<", i32(0), i32(40)), "0|0|0|0|0|0|0|0");
    /* a CASE masks the rows it does not take: no error from -1 or 2^30 */
    struct basalt_qexpr *when = NULL, *small = NULL;
    struct basalt_qexpr *conds[2] = {CALL(">=", col(C_N), i32(0)), CALL("<", col(C_N), i32(1000))};
    CHECK(conds[0] && conds[1]);
    CHECK_OK(basalt_qexpr_and(F.b, conds, 2, &when, &F.err), &F.err);
    struct basalt_qexpr *then = CALL("<<", col(C_N), i32(3));
    CHECK_OK(basalt_qexpr_case(F.b, &when, &then, 1, NULL, &small, &F.err), &F.err);
    EXPECT(small, "8|NULL|0|56|NULL|NULL|24|NULL");
    struct basalt_qexpr *nonneg = CALL(">=", col(C_N), i32(0)), *big = NULL;
    then = CALL("<<", col(C_N), i32(2));
    CHECK_OK(basalt_qexpr_case(F.b, &nonneg, &then, 1, NULL, &big, &F.err), &F.err);
    EXPECT_ERROR(big, BASALT_LIMIT, "Overflow in left shift (1073741824 << 2)");
    struct basalt_qexpr *e = NULL, *args[2] = {col(C_N), f64(1.5)};
    CHECK_STATUS(basalt_qexpr_call(F.b, "&", args, 2, &e, &F.err), BASALT_UNSUPPORTED, &F.err);
    CHECK_STATUS(basalt_qexpr_call(F.b, "~", &args[1], 1, &e, &F.err), BASALT_UNSUPPORTED, &F.err);
    fx_close();
}

TEST(regex_fn_match)
{
    CHECK(fx_open());
    EXPECT(CALL("regexp_matches", col(C_S), str("B"), str("i")), "true|true|true|false|NULL|false|false|false");
    EXPECT(CALL("regexp_full_match", col(C_S), str("a.c")), "true|false|false|false|NULL|false|false|false");
    EXPECT(CALL("regexp_matches", col(C_S), str("a.b"), str("s")),
           "false|false|true|false|NULL|false|false|false");
    EXPECT(CALL("regexp_matches", col(C_S), str("a.b")), "false|false|false|false|NULL|false|false|false");
    EXPECT(CALL("regexp_full_match", col(C_S), str(".*"), str("i")), "true|true|false|true|NULL|true|true|true");
    /* a column of patterns, each compiled as its rows come */
    EXPECT(CALL("regexp_full_match", col(C_S), col(C_P)), "false|true|false|true|NULL|false|true|false");
    EXPECT(CALL("regexp_matches", col(C_S), col(C_P)), "true|true|false|true|NULL|true|true|true");
    struct basalt_qexpr *e = NULL, *bad[3] = {col(C_S), str("b"), str("g")};
    CHECK_STATUS(basalt_qexpr_call(F.b, "regexp_matches", bad, 3, &e, &F.err), BASALT_INVALID_ARG, &F.err);
    CHECK(strstr(F.err.message, "Option 'g' (global replace) is only valid for regexp_replace"));
    bad[1] = str("(");
    CHECK_STATUS(basalt_qexpr_call(F.b, "regexp_full_match", bad, 2, &e, &F.err), BASALT_INVALID_ARG,
                 &F.err);
    bool matched = false;
    CHECK_OK(basalt_query_regex_search("^x\\d", 4, "ax1", 3, &matched, &F.err), &F.err);
    CHECK(!matched);
    CHECK_OK(basalt_query_regex_search("x\\d", 3, "ax1", 3, &matched, &F.err), &F.err);
    CHECK(matched);
    CHECK_STATUS(basalt_query_regex_search("[", 1, "a", 1, &matched, &F.err), BASALT_INVALID_ARG, &F.err);
    fx_close();
}
