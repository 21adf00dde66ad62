/* Date/time and math scalar functions with hand-written expected values
 * (DuckDB 1.5's answers for the same rows): date parts as functions, month
 * ends and leap days, dates before 1970, date_diff against date_sub,
 * make_date/make_timestamp ranges, strptime and try_strptime, the math
 * functions' domain errors and NULLs, greatest/least skipping NULLs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "expr_fixture.h"
#include "query_internal.h"

#define N 8
enum { C_DT, C_TS, C_X, C_I, C_S, C_COUNT };

/* dt: leap days, month ends, 1969 and 1900, a NULL; ts: fractions around
 * the epoch and month ends; x: NaN, the infinities, -0.0; i: INT64_MIN;
 * s: strings for strptime. */
static basalt_status make_batch(struct ArrowSchema *schema, struct ArrowArray *array)
{
    struct basalt_arrow_builder *root, *c[C_COUNT];
    static const char *const fmts[C_COUNT] = {"tdD", "tsu:", "g", "l", "u"};
    static const char *const names[C_COUNT] = {"dt", "ts", "x", "i", "s"};
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    for (int k = 0; k < C_COUNT && st == BASALT_OK; k++)
        st = basalt_arrow_builder_add_child(root, fmts[k], names[k], ARROW_FLAG_NULLABLE, &c[k], NULL);
    static const char *const dtv[N] = {"2024-02-29", "2023-01-31", "1969-12-31", "1900-02-28",
                                       "2000-02-29", NULL, "1960-03-01", "2020-12-31"};
    static const char *const tsv[N] = {"2024-02-29 23:59:59.999999", "2023-03-31 00:00:00",
                                       "1969-12-31 23:59:59.5", NULL, "2000-03-01 12:30:00",
                                       "1970-01-01 00:00:00", "1960-02-29 06:00:00.25",
                                       "2021-01-01 00:00:00"};
    const double xv[N] = {1.5, -0.0, NAN, INFINITY, -INFINITY, 0, 8, -27};
    static const int64_t iv[N] = {12, -18, 0, 0, INT64_MIN, 7, 255, -1};
    static const char *const sv[N] = {"2024-02-29 10:11:12", "2023/01/31", "bad", NULL, "",
                                      "12:00 AM", "1999-12-31 23:59:59.999999", "2020-02-30"};
    for (int r = 0; r < N && st == BASALT_OK; r++) {
        int32_t day = 0;
        int64_t t = 0;
        if (dtv[r])
            basalt_qparse_date(dtv[r], strlen(dtv[r]), &day);
        if (tsv[r])
            basalt_qparse_timestamp(tsv[r], strlen(tsv[r]), false, &t);
        st = dtv[r] ? basalt_arrow_builder_append_int(c[C_DT], day, NULL)
                    : basalt_arrow_builder_append_null(c[C_DT], NULL);
        if (st == BASALT_OK)
            st = tsv[r] ? basalt_arrow_builder_append_int(c[C_TS], t, NULL)
                        : basalt_arrow_builder_append_null(c[C_TS], NULL);
        if (st == BASALT_OK)
            st = r == 5 ? basalt_arrow_builder_append_null(c[C_X], NULL)
                        : basalt_arrow_builder_append_double(c[C_X], xv[r], NULL);
        if (st == BASALT_OK)
            st = r == 3 ? basalt_arrow_builder_append_null(c[C_I], NULL)
                        : basalt_arrow_builder_append_int(c[C_I], iv[r], NULL);
        if (st == BASALT_OK)
            st = sv[r] ? basalt_arrow_builder_append_string(c[C_S], sv[r], NULL)
                       : basalt_arrow_builder_append_null(c[C_S], NULL);
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

static struct basalt_qexpr *text(struct basalt_qexpr *a)
{
    struct basalt_qexpr *e = NULL;
    if (!a)
        return NULL;
    struct basalt_query_type t = basalt_query_type_make(BASALT_QUERY_TYPE_STRING);
    basalt_status st_ = basalt_qexpr_cast(F.b, a, t, false, &e, &F.err);
    return chk(st_, e);
}

/* The builder refuses name(args) with status and a message holding text_. */
#define EXPECT_REFUSED(name, status, text_, ...)                                                  \
    do {                                                                                          \
        struct basalt_qexpr *args_[] = {__VA_ARGS__}, *e_;                                        \
        CHECK_STATUS(basalt_qexpr_call(F.b, name, args_, (int)(sizeof args_ / sizeof args_[0]),  \
                                       &e_, &F.err),                                              \
                     status, &F.err);                                                             \
        CHECK_MSG(strstr(F.err.message, text_), "message '%s' lacks '%s'", F.err.message, text_); \
    } while (0)

TEST(time_fn_date_parts)
{
    CHECK(fx_open());
    EXPECT(CALL("year", col(C_DT)), "2024|2023|1969|1900|2000|NULL|1960|2020");
    EXPECT(CALL("quarter", col(C_DT)), "1|1|4|1|1|NULL|1|4");
    EXPECT(CALL("dayofweek", col(C_DT)), "4|2|3|3|2|NULL|2|4");
    EXPECT(CALL("isodow", col(C_DT)), "4|2|3|3|2|NULL|2|4");
    EXPECT(CALL("dayofyear", col(C_DT)), "60|31|365|59|60|NULL|61|366");
    EXPECT(CALL("week", col(C_DT)), "9|5|1|9|9|NULL|9|53");
    EXPECT(CALL("weekofyear", col(C_DT)), "9|5|1|9|9|NULL|9|53");
    EXPECT(CALL("epoch", col(C_DT)),
           "1709164800|1675123200|-86400|-2203977600|951782400|NULL|-310435200|1609372800");
    EXPECT(CALL("epoch_ms", col(C_TS)),
           "1709251199999|1680220800000|-500|NULL|951913800000|0|-310499999750|1609459200000");
    EXPECT(CALL("hour", col(C_TS)), "23|0|23|NULL|12|0|6|0");
    EXPECT(CALL("minute", col(C_TS)), "59|0|59|NULL|30|0|0|0");
    EXPECT(CALL("second", col(C_TS)), "59|0|59|NULL|0|0|0|0");
    EXPECT(CALL("month", col(C_TS)), "2|3|12|NULL|3|1|2|1");
    EXPECT(CALL("day", col(C_TS)), "29|31|31|NULL|1|1|29|1");
    EXPECT(CALL("dayname", col(C_DT)),
           "Thursday|Tuesday|Wednesday|Wednesday|Tuesday|NULL|Tuesday|Thursday");
    EXPECT(CALL("monthname", col(C_TS)),
           "February|March|December|NULL|March|January|February|January");
    /* epoch_ms truncates toward zero where the epoch is a fraction */
    struct basalt_qexpr *t = NULL;
    CHECK_OK(basalt_qexpr_cast(F.b, str("1969-12-31 23:59:59.9995"),
                               basalt_query_type_timestamp(false, false), false, &t, &F.err), &F.err);
    EXPECT(CALL("epoch_ms", t), "0|0|0|0|0|0|0|0");
    EXPECT_REFUSED("year", BASALT_UNSUPPORTED, "no overload of 'year' for (VARCHAR)", str("2020-01-01"));
    EXPECT_REFUSED("year", BASALT_UNSUPPORTED, "no overload of 'year' for (NULL)", null());
    fx_close();
}

TEST(time_fn_date_diff_and_date_sub)
{
    CHECK(fx_open());
    /* boundaries crossed against whole parts elapsed, month ends included:
     * 2023-01-31 to 2023-03-31 is two whole months, 2000-02-29 to 03-01
     * 12:30 a month boundary but no whole month */
    EXPECT(CALL("date_diff", str("month"), col(C_DT), col(C_TS)), "0|2|0|NULL|1|NULL|-1|1");
    EXPECT(CALL("date_sub", str("month"), col(C_DT), col(C_TS)), "0|2|0|NULL|0|NULL|0|0");
    EXPECT(CALL("datediff", str("year"), col(C_TS), col(C_DT)), "0|0|0|NULL|0|NULL|0|-1");
    EXPECT(CALL("datesub", str("year"), col(C_TS), col(C_DT)), "0|0|0|NULL|0|NULL|0|0");
    EXPECT(CALL("date_diff", str("day"), col(C_DT), col(C_TS)), "0|59|0|NULL|1|NULL|-1|1");
    EXPECT(CALL("date_sub", str("day"), col(C_DT), col(C_TS)), "0|59|0|NULL|1|NULL|0|1");
    EXPECT(CALL("date_diff", str("week"), col(C_DT), col(C_TS)), "0|8|0|NULL|0|NULL|0|0");
    EXPECT(CALL("date_diff", str("quarter"), col(C_DT), col(C_TS)), "0|0|0|NULL|0|NULL|0|1");
    EXPECT(CALL("date_sub", str("quarter"), col(C_DT), col(C_TS)), "0|0|0|NULL|0|NULL|0|0");
    EXPECT(CALL("date_diff", str("hour"), col(C_TS), col(C_DT)), "-23|-1416|-23|NULL|-36|NULL|18|-24");
    EXPECT(CALL("date_sub", str("hour"), col(C_TS), col(C_DT)), "-23|-1416|-23|NULL|-36|NULL|17|-24");
    /* time parts floor both ends (date_diff) or truncate the difference
     * (date_sub): 1969-12-31 23:59:59.5 to the epoch */
    struct basalt_qexpr *epoch = NULL;
    CHECK_OK(basalt_qexpr_cast(F.b, str("1970-01-01"), basalt_query_type_timestamp(false, false),
                               false, &epoch, &F.err), &F.err);
    EXPECT(CALL("date_diff", str("second"), col(C_TS), epoch),
           "-1709251199|-1680220800|1|NULL|-951913800|0|310500000|-1609459200");
    EXPECT(CALL("date_sub", str("second"), col(C_TS), epoch),
           "-1709251199|-1680220800|0|NULL|-951913800|0|310499999|-1609459200");
    EXPECT(CALL("date_diff", str("minute"), col(C_TS), epoch),
           "-28487519|-28003680|1|NULL|-15865230|0|5175000|-26824320");
    EXPECT(CALL("date_sub", str("minute"), col(C_TS), epoch),
           "-28487519|-28003680|0|NULL|-15865230|0|5174999|-26824320");
    /* a NULL part is NULL; an unknown one is refused */
    EXPECT(CALL("date_diff", null(), col(C_DT), col(C_TS)), "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL");
    EXPECT_REFUSED("date_diff", BASALT_INVALID_ARG, "unknown date part 'bogus'", str("bogus"),
                   col(C_DT), col(C_TS));
    EXPECT_REFUSED("date_sub", BASALT_UNSUPPORTED, "no overload", str("day"), col(C_DT), col(C_I));
    fx_close();
}

TEST(time_fn_constructors)
{
    CHECK(fx_open());
    EXPECT(text(CALL("make_date", CALL("year", col(C_DT)), CALL("month", col(C_DT)), i64(1))),
           "2024-02-01|2023-01-01|1969-12-01|1900-02-01|2000-02-01|NULL|1960-03-01|2020-12-01");
    EXPECT(text(CALL("last_day", col(C_DT))),
           "2024-02-29|2023-01-31|1969-12-31|1900-02-28|2000-02-29|NULL|1960-03-31|2020-12-31");
    EXPECT(text(CALL("last_day", col(C_TS))),
           "2024-02-29|2023-03-31|1969-12-31|NULL|2000-03-31|1970-01-31|1960-02-29|2021-01-31");
    EXPECT(text(CALL("make_timestamp", CALL("year", col(C_DT)), CALL("month", col(C_DT)),
                     CALL("day", col(C_DT)), i64(23), i64(59), f64(59.5))),
           "2024-02-29 23:59:59.5|2023-01-31 23:59:59.5|1969-12-31 23:59:59.5|"
           "1900-02-28 23:59:59.5|2000-02-29 23:59:59.5|NULL|1960-03-01 23:59:59.5|"
           "2020-12-31 23:59:59.5");
    /* 24:00:00 and a 60th second roll over; 59.9999999 rounds up */
    EXPECT(text(CALL("make_timestamp", i64(2020), i64(1), i64(1), i64(24), i64(0), f64(0))),
           "2020-01-02 00:00:00|2020-01-02 00:00:00|2020-01-02 00:00:00|2020-01-02 00:00:00|"
           "2020-01-02 00:00:00|2020-01-02 00:00:00|2020-01-02 00:00:00|2020-01-02 00:00:00");
    EXPECT(text(CALL("make_timestamp", i64(2020), i64(1), i64(1), i64(23), i64(59), f64(60.5))),
           "2020-01-02 00:00:00.5|2020-01-02 00:00:00.5|2020-01-02 00:00:00.5|2020-01-02 00:00:00.5|"
           "2020-01-02 00:00:00.5|2020-01-02 00:00:00.5|2020-01-02 00:00:00.5|2020-01-02 00:00:00.5");
    EXPECT_ERROR(CALL("make_date", i64(2023), i64(2), i64(29)), BASALT_INVALID_ARG,
                 "Date out of range: 2023-2-29");
    EXPECT_ERROR(CALL("make_date", i64(3000000000), i64(1), i64(1)), BASALT_INVALID_ARG,
                 "value 3000000000 can't be cast");
    EXPECT_ERROR(CALL("make_date", i64(5881580), i64(7), i64(11)), BASALT_INVALID_ARG,
                 "Date out of range: 5881580-7-11");
    EXPECT_ERROR(CALL("make_timestamp", i64(2020), i64(1), i64(1), i64(24), i64(0), f64(1)),
                 BASALT_INVALID_ARG, "Time out of range: 24:0:1.0");
    EXPECT_ERROR(CALL("make_timestamp", i64(2020), i64(1), i64(1), i64(0), i64(0), f64(-0.0000006)),
                 BASALT_INVALID_ARG, "Time out of range: 0:0:0.-1");
    /* the epoch, both ways: epoch_ms(n) and make_timestamp(n) are TIMESTAMPs;
     * to_timestamp WITH TIME ZONE, rounding half to even */
    EXPECT(text(CALL("epoch_ms", CALL("%", col(C_I), i64(1000000)))),
           "1970-01-01 00:00:00.012|1969-12-31 23:59:59.982|1970-01-01 00:00:00|NULL|"
           "1969-12-31 23:47:04.192|1970-01-01 00:00:00.007|1970-01-01 00:00:00.255|"
           "1969-12-31 23:59:59.999");
    EXPECT_ERROR(CALL("epoch_ms", col(C_I)), BASALT_INVALID_ARG,
                 "Could not convert Timestamp(MS) to Timestamp(US)");
    EXPECT(text(CALL("make_timestamp", i64(-1))),
           "1969-12-31 23:59:59.999999|1969-12-31 23:59:59.999999|1969-12-31 23:59:59.999999|"
           "1969-12-31 23:59:59.999999|1969-12-31 23:59:59.999999|1969-12-31 23:59:59.999999|"
           "1969-12-31 23:59:59.999999|1969-12-31 23:59:59.999999");
    struct basalt_qexpr *ts = CALL("to_timestamp", f64(-0.0078125));
    CHECK(ts && ts->type.tz && !ts->type.nanos);
    EXPECT(text(ts), "1969-12-31 23:59:59.992188+00|1969-12-31 23:59:59.992188+00|"
                     "1969-12-31 23:59:59.992188+00|1969-12-31 23:59:59.992188+00|"
                     "1969-12-31 23:59:59.992188+00|1969-12-31 23:59:59.992188+00|"
                     "1969-12-31 23:59:59.992188+00|1969-12-31 23:59:59.992188+00");
    EXPECT_ERROR(CALL("to_timestamp", col(C_X)), BASALT_INVALID_ARG,
                 "Epoch seconds out of range for TIMESTAMP WITH TIME ZONE");
    fx_close();
}

TEST(time_fn_strptime)
{
    CHECK(fx_open());
    EXPECT(text(CALL("try_strptime", col(C_S), str("%Y-%m-%d %H:%M:%S"))),
           "2024-02-29 10:11:12|NULL|NULL|NULL|NULL|NULL|NULL|NULL");
    EXPECT(text(CALL("try_strptime", col(C_S), str("%Y/%m/%d"))),
           "NULL|2023-01-31 00:00:00|NULL|NULL|NULL|NULL|NULL|NULL");
    EXPECT(text(CALL("try_strptime", col(C_S), str("%I:%M %p"))),
           "NULL|NULL|NULL|NULL|NULL|1900-01-01 00:00:00|NULL|NULL");
    EXPECT(text(CALL("try_strptime", col(C_S), str("%Y-%m-%d %H:%M:%S.%f"))),
           "NULL|NULL|NULL|NULL|NULL|NULL|1999-12-31 23:59:59.999999|NULL");
    /* 2020-02-30 parses but is no date: NULL for try_, an error otherwise */
    EXPECT(text(CALL("try_strptime", col(C_S), str("%Y-%m-%d"))),
           "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL");
    EXPECT_ERROR(CALL("strptime", col(C_S), str("%Y-%m-%d %H:%M:%S")), BASALT_INVALID_ARG,
                 "Could not parse string \"2023/01/31\" according to format specifier");
    EXPECT_ERROR(CALL("strptime", str("2020-02-30"), str("%Y-%m-%d")), BASALT_INVALID_ARG,
                 "Date out of range: 2020-2-30");
    /* whitespace runs, names, fractions, %z to UTC, %n in nanoseconds */
    EXPECT(text(CALL("strptime", str("  Sunday,  jan 5 20 "), str("%A, %b %-d %y"))),
           "2020-01-05 00:00:00|2020-01-05 00:00:00|2020-01-05 00:00:00|2020-01-05 00:00:00|"
           "2020-01-05 00:00:00|2020-01-05 00:00:00|2020-01-05 00:00:00|2020-01-05 00:00:00");
    struct basalt_qexpr *z =
        CALL("strptime", str("2020-01-05 10:00:00.5 -05:30"), str("%Y-%m-%d %H:%M:%S.%g %z"));
    CHECK(z && z->type.tz);
    EXPECT(text(z), "2020-01-05 15:30:00.5+00|2020-01-05 15:30:00.5+00|2020-01-05 15:30:00.5+00|"
                    "2020-01-05 15:30:00.5+00|2020-01-05 15:30:00.5+00|2020-01-05 15:30:00.5+00|"
                    "2020-01-05 15:30:00.5+00|2020-01-05 15:30:00.5+00");
    struct basalt_qexpr *ns =
        CALL("strptime", str("1969-12-31 23:59:59.123456789"), str("%Y-%m-%d %H:%M:%S.%n"));
    CHECK(ns && ns->type.nanos);
    EXPECT(CALL("epoch_ms", ns), "-876|-876|-876|-876|-876|-876|-876|-876");
    EXPECT_REFUSED("strptime", BASALT_INVALID_ARG, "unsupported format specifier '%Q'", col(C_S),
                   str("%Y-%Q"));
    EXPECT_REFUSED("strptime", BASALT_INVALID_ARG, "empty format", col(C_S), str(""));
    EXPECT_REFUSED("strptime", BASALT_UNSUPPORTED, "needs a constant format", col(C_S), col(C_S));
    fx_close();
}

TEST(math_fn_values_and_domains)
{
    CHECK(fx_open());
    EXPECT(CALL("log2", f64(8)), "3|3|3|3|3|3|3|3");
    EXPECT(CALL("log", f64(1000)), "3|3|3|3|3|3|3|3");
    EXPECT(CALL("log", i64(2), i64(1024)), "10|10|10|10|10|10|10|10");
    EXPECT(callv("pi", 0, NULL), "3.1415926535897931|3.1415926535897931|3.1415926535897931|3.1415926535897931|"
                       "3.1415926535897931|3.1415926535897931|3.1415926535897931|3.1415926535897931");
    EXPECT(CALL("cbrt", col(C_X)),
           "1.1447142425533317|-0|nan|inf|-inf|NULL|2|-3.0000000000000004");
    EXPECT(CALL("even", col(C_X)), "2|-0|nan|inf|-inf|NULL|8|-28");
    EXPECT(CALL("degrees", CALL("radians", col(C_X))), "1.5000000000000002|-0|nan|inf|-inf|NULL|8|-27");
    EXPECT(CALL("atan", col(C_X)),
           "0.98279372324732905|-0|nan|1.5707963267948966|-1.5707963267948966|NULL|"
           "1.4464413322481351|-1.5337762109209665");
    EXPECT(CALL("isnan", col(C_X)), "false|false|true|false|false|NULL|false|false");
    EXPECT(CALL("isinf", col(C_X)), "false|false|false|true|true|NULL|false|false");
    EXPECT(CALL("isfinite", col(C_X)), "true|true|false|false|false|NULL|true|true");
    EXPECT(CALL("isfinite", col(C_I)), "true|true|true|NULL|true|true|true|true");
    /* the domain errors, only on rows that reach the call */
    EXPECT_ERROR(CALL("log2", col(C_X)), BASALT_LIMIT, "cannot take logarithm of zero");
    EXPECT_ERROR(CALL("log", col(C_X), f64(2)), BASALT_LIMIT, "cannot take logarithm of zero");
    EXPECT_ERROR(CALL("log", f64(1), col(C_X)), BASALT_LIMIT, "division by zero in based logarithm");
    EXPECT_ERROR(CALL("sin", col(C_X)), BASALT_LIMIT, "input value inf is out of range");
    EXPECT_ERROR(CALL("acos", CALL("/", col(C_I), f64(100))), BASALT_INVALID_ARG,
                 "ACOS is undefined outside [-1,1]");
    EXPECT_ERROR(CALL("sqrt", col(C_X)), BASALT_LIMIT, "cannot take square root of a negative number");
    struct basalt_qexpr *pos = CALL(">", col(C_X), f64(0)), *e = NULL;
    struct basalt_qexpr *lg = CALL("log2", col(C_X));
    CHECK_OK(basalt_qexpr_case(F.b, &pos, &lg, 1, NULL, &e, &F.err), &F.err);
    EXPECT(e, "0.58496250072115619|NULL|nan|inf|NULL|NULL|3|NULL");
    struct basalt_qexpr *fin = CALL("isfinite", col(C_X)), *sn = CALL("sin", col(C_X));
    CHECK_OK(basalt_qexpr_case(F.b, &fin, &sn, 1, f64(-2), &e, &F.err), &F.err);
    EXPECT(CALL("round", e, i64(6)), "0.99749500000000002|-0|-2|-2|-2|-2|0.98935799999999996|-0.956376");
    EXPECT(CALL("asin", f64(NAN)), "nan|nan|nan|nan|nan|nan|nan|nan");
    EXPECT(CALL("atan2", col(C_X), f64(-1)),
           "2.158798930342464|-3.1415926535897931|nan|1.5707963267948966|-1.5707963267948966|NULL|"
           "1.695151321341658|-1.6078164426688266");
    EXPECT_REFUSED("atan2", BASALT_UNSUPPORTED, "no overload", col(C_X), col(C_S));
    fx_close();
}

TEST(math_fn_integers)
{
    CHECK(fx_open());
    struct basalt_qexpr *no_min = NULL, *is_min = CALL("=", col(C_I), CALL("-", i64(-INT64_MAX), i64(1)));
    struct basalt_qexpr *zero = i64(0);
    CHECK_OK(basalt_qexpr_case(F.b, &is_min, &zero, 1, col(C_I), &no_min, &F.err), &F.err);
    EXPECT(CALL("gcd", no_min, i64(18)), "6|18|18|NULL|18|1|3|1");
    EXPECT(CALL("lcm", no_min, i64(4)), "12|36|0|NULL|0|28|1020|4");
    EXPECT(CALL("gcd", col(C_I), i64(2)), "2|2|2|NULL|2|1|1|1");
    EXPECT(CALL("gcd", col(C_I), i64(-1)), "1|1|1|NULL|1|1|1|1");
    EXPECT_ERROR(CALL("gcd", col(C_I), i64(0)), BASALT_LIMIT, "Overflow on abs(-9223372036854775808)");
    EXPECT_ERROR(CALL("lcm", col(C_I), i64(1)), BASALT_LIMIT, "Overflow on abs(-9223372036854775808)");
    EXPECT_ERROR(CALL("lcm", col(C_I), i64(INT64_MAX)), BASALT_LIMIT, "lcm value is out of range");
    EXPECT(CALL("bit_count", col(C_I)), "2|62|0|NULL|1|3|8|64");
    struct basalt_qexpr *i32 = NULL;
    CHECK_OK(basalt_qexpr_cast(F.b, no_min, basalt_query_type_make(BASALT_QUERY_TYPE_INT32), false,
                               &i32, &F.err), &F.err);
    EXPECT(CALL("bit_count", i32), "2|30|0|NULL|0|3|8|32");
    EXPECT(CALL("xor", col(C_I), i64(255)),
           "243|-239|255|NULL|-9223372036854775553|248|0|-256");
    struct basalt_qexpr *x = CALL("xor", i32, i32);
    CHECK(x && x->type.id == BASALT_QUERY_TYPE_INT32);
    EXPECT(x, "0|0|0|NULL|0|0|0|0");
    EXPECT_REFUSED("gcd", BASALT_UNSUPPORTED, "no overload", col(C_X), i64(1));
    EXPECT_REFUSED("xor", BASALT_UNSUPPORTED, "no overload", col(C_X), i64(1));
    fx_close();
}

TEST(math_fn_greatest_least)
{
    CHECK(fx_open());
    /* NULLs skipped, NaN above everything, the common type */
    struct basalt_qexpr *g = CALL("greatest", col(C_X), col(C_I));
    CHECK(g && g->type.id == BASALT_QUERY_TYPE_DOUBLE);
    EXPECT(g, "12|-0|nan|inf|-9.2233720368547758e+18|7|255|-1");
    EXPECT(CALL("least", col(C_X), col(C_I)), "1.5|-18|0|inf|-inf|7|8|-27");
    EXPECT(CALL("greatest", null(), col(C_X), f64(-1)), "1.5|-0|nan|inf|-1|-1|8|-1");
    EXPECT(CALL("greatest", col(C_S), str("b")), "b|b|bad|b|b|b|b|b");
    EXPECT(text(CALL("least", col(C_DT), col(C_TS))),
           "2024-02-29 00:00:00|2023-01-31 00:00:00|1969-12-31 00:00:00|1900-02-28 00:00:00|"
           "2000-02-29 00:00:00|1970-01-01 00:00:00|1960-02-29 06:00:00.25|2020-12-31 00:00:00");
    EXPECT(CALL("least", col(C_I)), "12|-18|0|NULL|-9223372036854775808|7|255|-1");
    /* all NULL: NULL of the common type, folded */
    struct basalt_qexpr *none = CALL("least", null(), null());
    CHECK(none && none->kind == QN_CONST && none->value.is_null &&
          none->type.id == BASALT_QUERY_TYPE_INT32);
    EXPECT_REFUSED("greatest", BASALT_UNSUPPORTED, "no common type", col(C_I), col(C_S));
    fx_close();
}

TEST(time_math_fn_types_and_folding)
{
    CHECK(fx_open());
    struct basalt_qexpr *e = callv("pi", 0, NULL);
    CHECK(e && e->kind == QN_CONST);
    e = CALL("year", col(C_DT));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_INT64);
    e = CALL("epoch", col(C_TS));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_DOUBLE);
    e = CALL("bit_count", col(C_I));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_INT8);
    e = CALL("last_day", col(C_TS));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_DATE);
    e = CALL("epoch_ms", col(C_I));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_TIMESTAMP && !e->type.tz);
    e = CALL("date_add", col(C_DT), i64(1));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_DATE);
    /* constants fold, errors included only when run */
    e = CALL("date_diff", str("month"), CALL("make_date", i64(2020), i64(1), i64(31)),
             CALL("make_date", i64(2020), i64(2), i64(1)));
    CHECK(e && e->kind == QN_CONST && e->value.v.i == 1);
    e = CALL("date_sub", str("month"), CALL("make_date", i64(2020), i64(1), i64(31)),
             CALL("make_date", i64(2020), i64(2), i64(29)));
    CHECK(e && e->kind == QN_CONST && e->value.v.i == 1);
    e = CALL("gcd", i64(12), null());
    CHECK(e && e->kind == QN_CONST && e->value.is_null);
    e = CALL("log2", f64(-1));
    CHECK(e && e->kind == QN_CALL);
    fx_close();
}
