/* RANGE frames with offsets, GROUPS frames and EXCLUDE through SQL: DATE
 * keys moved by INTERVALs of days, hours and months (a DATE meets the
 * TIMESTAMP its bound becomes), TIMESTAMP keys, DOUBLE keys with NaN under
 * DESC, named windows, answers worked out by hand (DuckDB 1.5.6 gives the
 * same with the same SQL); and the binder's errors, each naming its place
 * in the query. The window node's own tests are
 * tests/unit/query/window_frames_test.c; the comparison with DuckDB over
 * every key type is tests/cli/sql_window_frames_duckdb.sh. */
#include <string.h>

#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

#define DATES                                                                              \
    "(VALUES (DATE '2024-01-30'), (DATE '2024-01-31'), (DATE '2024-02-01'), "           \
    "(DATE '2024-03-01'), (NULL), (DATE '2024-02-29')) t(d)"
#define STAMPS                                                                             \
    "(VALUES (TIMESTAMP '2024-01-01 10:00:00', 1.5), (TIMESTAMP '2024-01-01 10:30:00', 2.25), " \
    "(TIMESTAMP '2024-01-01 11:00:00', NULL), (TIMESTAMP '2024-01-01 11:00:00', 4.0), "     \
    "(TIMESTAMP '2024-01-01 12:30:00', 8.0)) t(t, x)"
#define ONE "FROM (VALUES (1, 'a', 2)) t(x, s, y)"

TEST(sql_window_frames)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);

    /* 2 DAY PRECEDING .. CURRENT ROW; under DESC, 36 hours PRECEDING (later
     * dates, a TIMESTAMP bound) .. 1 MONTH FOLLOWING (03-01 reaches 02-01,
     * 02-29 reaches 01-29); the NULL date is its own frame. */
    EXPECT_SQL_ROWS("SELECT CAST(d AS VARCHAR), count(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL 2 "
                    "DAY PRECEDING AND CURRENT ROW) AS a, count(*) OVER (ORDER BY d DESC RANGE "
                    "BETWEEN INTERVAL '36 hours' PRECEDING AND INTERVAL 1 MONTH FOLLOWING) AS b "
                    "FROM " DATES " ORDER BY d NULLS FIRST",
                    "N|1|1;2024-01-30|1|2;2024-01-31|2|3;2024-02-01|3|3;2024-02-29|1|5;"
                    "2024-03-01|2|3;");
    /* a DATE moved by whole days: the key's own type */
    EXPECT_SQL_ROWS("SELECT count(*) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND 30 FOLLOWING) "
                    "FROM " DATES " ORDER BY d",
                    "4;5;4;2;2;1;");
    /* TIMESTAMP keys, a DECIMAL sum, EXCLUDE CURRENT ROW (the tied 11:00
     * rows each keep the other) */
    EXPECT_SQL_ROWS("SELECT CAST(t AS VARCHAR), CAST(sum(x) OVER (ORDER BY t RANGE BETWEEN INTERVAL "
                    "1 HOUR PRECEDING AND INTERVAL '30 minutes' FOLLOWING EXCLUDE CURRENT ROW) AS "
                    "DOUBLE) AS s FROM " STAMPS " ORDER BY 1, 2",
                    "2024-01-01 10:00:00|2.25;2024-01-01 10:30:00|5.5;2024-01-01 11:00:00|3.75;"
                    "2024-01-01 11:00:00|7.75;2024-01-01 12:30:00|N;");
    /* GROUPS through a named window, DESC: NaN first, NULL last, each its
     * own peer group; EXCLUDE GROUP */
    EXPECT_SQL_ROWS("SELECT x, count(*) OVER w AS c, sum(x) OVER w AS s FROM (VALUES "
                    "(1.0::DOUBLE), (2.0), (2.0), (3.5), ('nan'::DOUBLE), (NULL)) t(x) WINDOW w AS "
                    "(ORDER BY x DESC GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) "
                    "ORDER BY x NULLS FIRST, c",
                    "N|1|1;1|3|4;2|2|4.5;2|2|4.5;3.5|3|nan;nan|1|3.5;");
    /* calls that differ only in EXCLUDE are two calls; a string offset is
     * read as the key's type; EXCLUDE NO OTHERS is no exclusion */
    EXPECT_SQL_ROWS("SELECT x, count(*) OVER (ORDER BY x RANGE BETWEEN '1' PRECEDING AND "
                    "CURRENT ROW EXCLUDE TIES) AS a, count(*) OVER (ORDER BY x RANGE BETWEEN 1 "
                    "PRECEDING AND CURRENT ROW EXCLUDE NO OTHERS) AS b FROM (VALUES (1), (1), (2), "
                    "(4)) t(x) ORDER BY x",
                    "1|1|2;1|1|2;2|3|3;4|1|1;");

    /* errors: where in the query */
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x RANGE BETWEEN -1 PRECEDING AND CURRENT "
                     "ROW) " ONE,
                     BASALT_INVALID_ARG, "a RANGE offset cannot be negative (at position 47)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x RANGE BETWEEN CURRENT ROW AND NULL "
                     "FOLLOWING) " ONE,
                     BASALT_INVALID_ARG, "a RANGE offset cannot be NULL (at position 63)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x RANGE BETWEEN CURRENT ROW AND 'inf'::DOUBLE "
                     "- 'inf'::DOUBLE FOLLOWING) " ONE,
                     BASALT_INVALID_ARG, "a RANGE offset cannot be negative or NaN (at position 77)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x, y RANGE 1 PRECEDING) " ONE, BASALT_INVALID_ARG,
                     "RANGE frames with an offset need exactly one ORDER BY key (the window has "
                     "2) (at position 21)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (PARTITION BY x RANGE 1 PRECEDING) " ONE,
                     BASALT_INVALID_ARG, "(the window has 0) (at position 21)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY s RANGE 1 PRECEDING) " ONE, BASALT_UNSUPPORTED,
                     "RANGE frames with an offset need a numeric, DATE or TIMESTAMP ORDER BY key, "
                     "not VARCHAR (at position 31)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x RANGE INTERVAL 1 DAY PRECEDING) " ONE,
                     BASALT_UNSUPPORTED,
                     "a RANGE offset of type INTERVAL cannot move an ORDER BY key of type INTEGER "
                     "(at position 39)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY d RANGE INTERVAL '-1 hour' PRECEDING) FROM " DATES,
                     BASALT_INVALID_ARG, "a RANGE offset cannot be negative (in any part) (at position 39)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x RANGE y PRECEDING) " ONE, BASALT_INVALID_ARG,
                     "a RANGE offset must be a constant (at position 39)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x RANGE 'a' PRECEDING) " ONE, BASALT_INVALID_ARG,
                     "a RANGE offset: the string does not convert to INTEGER (at position 39)");
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x GROUPS BETWEEN CURRENT ROW AND -1 FOLLOWING) "
                     ONE,
                     BASALT_INVALID_ARG,
                     "a window offset must be a non-negative integer constant (at position 64)");
    /* a bound that leaves the key's type fails as key + offset does */
    EXPECT_SQL_ERROR("SELECT count(*) OVER (ORDER BY x RANGE BETWEEN CURRENT ROW AND 2147483647 "
                     "FOLLOWING) " ONE,
                     BASALT_LIMIT, "Overflow in addition of INT32 (1 + 2147483647)!");
    basalt_sql_session_free(s);
}
