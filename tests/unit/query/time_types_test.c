/* TIME and TIMESTAMP_S / TIMESTAMP_MS with hand-written expected values
 * (DuckDB 1.5's answers): type names and Arrow formats both ways, the text
 * DuckDB reads and writes, rounding into seconds and milliseconds, the casts
 * DuckDB refuses, TIME arithmetic around midnight, make_time's range. */
#include <stdio.h>
#include <string.h>

#include "expr_fixture.h"
#include "query_internal.h"

#define N 5
enum { C_T, C_MS, C_S, C_COUNT };

/* t: time64[us] (midnight, 24:00:00, a NULL); ms and s: timestamps in their
 * units around the epoch. */
static basalt_status make_batch(struct ArrowSchema *schema, struct ArrowArray *array)
{
    struct basalt_arrow_builder *root, *c[C_COUNT];
    static const char *const fmts[C_COUNT] = {"ttu", "tsm:", "tss:"};
    static const char *const names[C_COUNT] = {"t", "ms", "s"};
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    for (int k = 0; k < C_COUNT && st == BASALT_OK; k++)
        st = basalt_arrow_builder_add_child(root, fmts[k], names[k], ARROW_FLAG_NULLABLE, &c[k], NULL);
    static const int64_t tv[N] = {0, 45296789000, 86400000000, -1, 1};
    static const int64_t msv[N] = {0, -1, 1577881496789, -1, 86399999};
    static const int64_t sv[N] = {0, -1, 1577881497, 86399, -1};
    for (int r = 0; r < N && st == BASALT_OK; r++) {
        st = tv[r] >= 0 ? basalt_arrow_builder_append_int(c[C_T], tv[r], NULL)
                        : basalt_arrow_builder_append_null(c[C_T], NULL);
        if (st == BASALT_OK)
            st = r == 3 ? basalt_arrow_builder_append_null(c[C_MS], NULL)
                        : basalt_arrow_builder_append_int(c[C_MS], msv[r], NULL);
        if (st == BASALT_OK)
            st = r == 4 ? basalt_arrow_builder_append_null(c[C_S], NULL)
                        : basalt_arrow_builder_append_int(c[C_S], sv[r], NULL);
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

static struct basalt_qexpr *cast_to(struct basalt_qexpr *a, struct basalt_query_type t, bool try_)
{
    struct basalt_qexpr *e = NULL;
    if (!a)
        return NULL;
    basalt_status st_ = basalt_qexpr_cast(F.b, a, t, try_, &e, &F.err);
    return chk(st_, e);
}

static struct basalt_qexpr *text(struct basalt_qexpr *a)
{
    return cast_to(a, basalt_query_type_make(BASALT_QUERY_TYPE_STRING), false);
}

static struct basalt_qexpr *interval(int32_t months, int32_t days, int64_t nanos)
{
    struct basalt_query_value v;
    memset(&v, 0, sizeof v);
    v.type = basalt_query_type_make(BASALT_QUERY_TYPE_INTERVAL);
    v.v.interval.months = months;
    v.v.interval.days = days;
    v.v.interval.nanos = nanos;
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_literal(F.b, &v, &e, &F.err);
    return chk(st_, e);
}

/* The builder has no overload for name(args). */
#define EXPECT_REFUSED_CALL(name, ...)                                                            \
    do {                                                                                          \
        struct basalt_qexpr *args_[] = {__VA_ARGS__}, *e_;                                        \
        CHECK_STATUS(basalt_qexpr_call(F.b, name, args_, (int)(sizeof args_ / sizeof args_[0]),  \
                                       &e_, &F.err),                                              \
                     BASALT_UNSUPPORTED, &F.err);                                                 \
    } while (0)

static struct basalt_query_type time_type(void)
{
    return basalt_query_type_make(BASALT_QUERY_TYPE_TIME);
}

static struct basalt_query_type ts(void)
{
    return basalt_query_type_timestamp(false, false);
}

static struct basalt_query_type ts_s(void)
{
    return basalt_query_type_timestamp_coarse(BASALT_QUERY_TS_SECONDS);
}

static struct basalt_query_type ts_ms(void)
{
    return basalt_query_type_timestamp_coarse(BASALT_QUERY_TS_MILLIS);
}

TEST(time_types_names_and_formats)
{
    char buf[64];
    struct basalt_error err;
    basalt_error_init(&err);
    static const struct {
        const char *format, *name;
    } cases[] = {{"ttu", "TIME"},
                 {"tss:", "TIMESTAMP_S"},
                 {"tsm:", "TIMESTAMP_MS"},
                 {"tsu:", "TIMESTAMP"},
                 {"tsn:", "TIMESTAMP_NS"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_query_type t;
        CHECK_OK(basalt_query_type_from_format(cases[i].format, &t, &err), &err);
        basalt_query_type_name(t, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, cases[i].name) == 0, "%s named %s", cases[i].format, buf);
        CHECK_OK(basalt_query_type_format(t, buf, sizeof buf, &err), &err);
        CHECK_MSG(strcmp(buf, cases[i].format) == 0, "%s formats as %s", cases[i].format, buf);
    }
    CHECK(!basalt_query_type_equal(ts_s(), ts_ms()));
    CHECK(!basalt_query_type_equal(ts_ms(), ts()));
    /* time32 and time64[ns] are converted by the scans, never computed on */
    struct basalt_query_type t;
    CHECK_STATUS(basalt_query_type_from_format("ttm", &t, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STATUS(basalt_query_type_from_format("ttn", &t, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STATUS(basalt_query_type_from_format("tsm:UTC", &t, &err), BASALT_UNSUPPORTED, &err);
}

TEST(time_types_text)
{
    static const struct {
        const char *in;
        int64_t us; /* -1: refused */
    } cases[] = {{"12:34:56.789", 45296789000},
                 {"1:2:3", 3723000000},
                 {"12:34", 45240000000},
                 {"24:00:00", 86400000000},
                 {"  12:00:00 ", 43200000000},
                 {"12:34:56.1234567", 45296123456},
                 {"2020-01-01 12:00:00.5", 43200500000},
                 {"2020-01-01", 0},
                 {"12:00:00-05:30", 43200000000},
                 {"12:00:", 43200000000},
                 {"24:00:00.1", -1},
                 {"25:00:00", -1},
                 {"12:60:00", -1},
                 {"12:00:60", -1},
                 {"12:00x", -1},
                 {"123:00:00", -1},
                 {"12", -1},
                 {"", -1},
                 {"T12:00", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = -1;
        bool ok = basalt_qparse_time(cases[i].in, strlen(cases[i].in), &v);
        CHECK_MSG(ok == (cases[i].us >= 0) && (!ok || v == cases[i].us), "'%s': %d %lld",
                  cases[i].in, ok, (long long)v);
    }
    char buf[64];
    basalt_qformat_time(45296789000, buf, sizeof buf);
    CHECK(strcmp(buf, "12:34:56.789") == 0);
    basalt_qformat_time(86400000000, buf, sizeof buf);
    CHECK(strcmp(buf, "24:00:00") == 0);
    basalt_qformat_time(1, buf, sizeof buf);
    CHECK(strcmp(buf, "00:00:00.000001") == 0);
    basalt_qformat_timestamp(-1, 1000, false, buf, sizeof buf);
    CHECK(strcmp(buf, "1969-12-31 23:59:59.999") == 0);
    basalt_qformat_timestamp(1577881497, 1, false, buf, sizeof buf);
    CHECK(strcmp(buf, "2020-01-01 12:24:57") == 0);
}

TEST(time_types_columns_and_casts)
{
    CHECK(fx_open());
    EXPECT(text(col(C_T)), "00:00:00|12:34:56.789|24:00:00|NULL|00:00:00.000001");
    EXPECT(text(col(C_MS)),
           "1970-01-01 00:00:00|1969-12-31 23:59:59.999|2020-01-01 12:24:56.789|NULL|1970-01-01 23:59:59.999");
    EXPECT(text(col(C_S)), "1970-01-01 00:00:00|1969-12-31 23:59:59|2020-01-01 12:24:57|1970-01-01 23:59:59|NULL");
    /* to TIME: the time of day, before 1970 too */
    EXPECT(text(cast_to(col(C_MS), time_type(), false)),
           "00:00:00|23:59:59.999|12:24:56.789|NULL|23:59:59.999");
    /* finer units multiply; TIMESTAMP to seconds rounds half away from zero */
    EXPECT(cast_to(col(C_S), ts_ms(), false), "1970-01-01 00:00:00|1969-12-31 23:59:59|2020-01-01 12:24:57|1970-01-01 23:59:59|NULL");
    EXPECT(text(cast_to(cast_to(str("1969-12-31 23:59:59.5"), ts(), false), ts_s(), false)),
           "1969-12-31 23:59:59|1969-12-31 23:59:59|1969-12-31 23:59:59|1969-12-31 23:59:59|1969-12-31 23:59:59");
    EXPECT(text(cast_to(str("1969-12-31 23:59:59.6"), ts_s(), false)),
           "1970-01-01 00:00:00|1970-01-01 00:00:00|1970-01-01 00:00:00|1970-01-01 00:00:00|1970-01-01 00:00:00");
    EXPECT(text(cast_to(str("2020-01-01 00:00:00.7895"), ts_ms(), false)),
           "2020-01-01 00:00:00.79|2020-01-01 00:00:00.79|2020-01-01 00:00:00.79|2020-01-01 00:00:00.79|2020-01-01 00:00:00.79");
    EXPECT(cast_to(str("x"), time_type(), true), "NULL|NULL|NULL|NULL|NULL");
    EXPECT_ERROR(cast_to(str("25:00"), time_type(), false), BASALT_INVALID_ARG,
                 "time field value out of range: \"25:00\"");
    /* casts DuckDB refuses */
    struct basalt_qexpr *e;
    CHECK_STATUS(basalt_qexpr_cast(F.b, col(C_MS), ts_s(), false, &e, &F.err), BASALT_UNSUPPORTED, &F.err);
    CHECK_STATUS(basalt_qexpr_cast(F.b, col(C_T), ts(), false, &e, &F.err), BASALT_UNSUPPORTED, &F.err);
    CHECK_STATUS(basalt_qexpr_cast(F.b, col(C_S), basalt_query_type_make(BASALT_QUERY_TYPE_INT64), false,
                                   &e, &F.err),
                 BASALT_UNSUPPORTED, &F.err);
    CHECK_STATUS(basalt_qexpr_cast(F.b, cast_to(col(C_MS), basalt_query_type_timestamp(true, false), false),
                                   ts_ms(), false, &e, &F.err),
                 BASALT_UNSUPPORTED, &F.err);
    fx_close();
}

TEST(time_types_functions)
{
    CHECK(fx_open());
    struct basalt_qexpr *hour = interval(0, 0, INT64_C(13) * 3600000000000);
    struct basalt_qexpr *day = interval(1, 1, -1000);
    /* TIME +/- INTERVAL wraps around midnight, ignoring months and days */
    EXPECT(text(CALL("+", col(C_T), hour)), "13:00:00|01:34:56.789|13:00:00|NULL|13:00:00.000001");
    EXPECT(text(CALL("-", col(C_T), hour)), "11:00:00|23:34:56.789|11:00:00|NULL|11:00:00.000001");
    EXPECT(text(CALL("+", day, col(C_T))), "23:59:59.999999|12:34:56.788999|23:59:59.999999|NULL|00:00:00");
    struct basalt_qexpr *e = CALL("+", col(C_T), hour);
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_TIME);
    /* DATE + TIME is a TIMESTAMP */
    e = CALL("+", cast_to(col(C_S), basalt_query_type_make(BASALT_QUERY_TYPE_DATE), false), col(C_T));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_TIMESTAMP && !e->type.coarse);
    EXPECT(text(e), "1970-01-01 00:00:00|1969-12-31 12:34:56.789|2020-01-02 00:00:00|NULL|NULL");
    EXPECT(CALL("hour", col(C_T)), "0|12|24|NULL|0");
    EXPECT(CALL("date_part", str("microsecond"), col(C_T)), "0|56789000|0|NULL|1");
    EXPECT_REFUSED_CALL("-", col(C_T), col(C_T));
    EXPECT_REFUSED_CALL("date_part", str("day"), col(C_T));
    EXPECT_REFUSED_CALL("strftime", col(C_T), str("%H"));
    /* functions take seconds and milliseconds as TIMESTAMP */
    e = CALL("date_trunc", str("hour"), col(C_MS));
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_TIMESTAMP && !e->type.coarse);
    e = CALL("+", col(C_S), hour);
    CHECK(e && e->type.id == BASALT_QUERY_TYPE_TIMESTAMP && !e->type.coarse);
    EXPECT(CALL("epoch_ms", col(C_MS)), "0|-1|1577881496789|NULL|86399999");
    e = CALL("=", col(C_S), col(C_MS));
    EXPECT(e, "true|false|false|NULL|NULL");
    /* make_time */
    EXPECT(text(CALL("make_time", i64(23), i64(59), f64(60))), "24:00:00|24:00:00|24:00:00|24:00:00|24:00:00");
    EXPECT(text(CALL("make_time", i64(1), i64(2), f64(59.9999999))), "01:03:00|01:03:00|01:03:00|01:03:00|01:03:00");
    EXPECT_ERROR(CALL("make_time", i64(24), i64(0), f64(1)), BASALT_INVALID_ARG, "Time out of range: 24:0:1.0");
    EXPECT_ERROR(CALL("make_time", i64(1), i64(2), f64(-3)), BASALT_INVALID_ARG, "Time out of range");
    fx_close();
}
