/* list_sort / list_reverse_sort and list_distinct (exec/k_list_sort.c) with
 * DuckDB's answers written by hand: NaN above +inf, -0.0 equal to 0.0,
 * strings by bytes (a prefix first), integers at the ends of their widths,
 * intervals by months, days and time as stored (DuckDB's list_sort does not
 * carry days into months), the options and their errors. */
#include <string.h>

#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

TEST(sql_list_sort_and_distinct)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT list_sort(['nan'::DOUBLE, 2.5, '-inf'::DOUBLE, NULL, 'inf'::DOUBLE, "
                    "-1e300])::VARCHAR",
                    "[-inf, -1e+300, 2.5, inf, nan, NULL];");
    EXPECT_SQL_ROWS("SELECT list_sort(['ab', 'a', '', 'b', NULL], 'DESC', 'NULLS FIRST')::VARCHAR",
                    "[NULL, b, ab, a, ''];");
    EXPECT_SQL_ROWS("SELECT list_sort([INTERVAL 40 DAY, INTERVAL 1 MONTH, INTERVAL 2 HOUR])"
                    "::VARCHAR",
                    "['02:00:00', 40 days, 1 month];");
    EXPECT_SQL_ROWS("SELECT list_sort([-1.25, 3.5, -10.0, 0.0])::VARCHAR",
                    "[-10.00, -1.25, 0.00, 3.50];");
    EXPECT_SQL_ROWS("SELECT list_sort([-9223372036854775808, 9223372036854775807, 0])::VARCHAR",
                    "[-9223372036854775808, 0, 9223372036854775807];");
    EXPECT_SQL_ROWS("SELECT list_sort([255::UTINYINT, 1::UTINYINT, 128::UTINYINT])::VARCHAR, "
                    "list_sort([true, NULL, false])::VARCHAR",
                    "[1, 128, 255]|[false, true, NULL];");
    EXPECT_SQL_ROWS("SELECT list_reverse_sort([3, NULL, 1])::VARCHAR, "
                    "list_reverse_sort([3, NULL, 1], 'nulls first')::VARCHAR",
                    "[3, 1, NULL]|[NULL, 3, 1];");
    EXPECT_SQL_ROWS("SELECT list_distinct([3, NULL, 1, 3, 1])::VARCHAR, "
                    "list_distinct([0.0::DOUBLE, -0.0::DOUBLE])::VARCHAR, "
                    "len(list_distinct([INTERVAL 30 DAY, INTERVAL 1 MONTH]))",
                    "[1, 3]|[0.0]|2;");
    EXPECT_SQL_ROWS("SELECT list_sort(NULL) IS NULL, list_sort([1], NULL) IS NULL, "
                    "list_sort([])::VARCHAR",
                    "t|t|[];");
    EXPECT_SQL_ERROR("SELECT list_sort([1], 'UP')", BASALT_INVALID_ARG,
                     "list_sort: unrecognized sorting option \"UP\"");
    EXPECT_SQL_ERROR("SELECT list_sort([3, 1], x) FROM (SELECT 'DESC' AS x)", BASALT_INVALID_ARG,
                     "Sorting order must be a constant");
    EXPECT_SQL_ERROR("SELECT list_sort(1)", BASALT_UNSUPPORTED, "no overload of 'list_sort'");
    basalt_sql_session_free(s);
}

/* Two lists compared as DuckDB compares them (its answers by hand): element
 * by element, a NULL element equal to another and after every value, a
 * list before the longer ones it begins, intervals carried (unlike
 * list_sort), -0.0 equal to 0.0, NaN above everything. */
TEST(sql_list_comparisons)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT [1, NULL] = [1, NULL], [1, NULL] < [1, 2], [1, 2] < [1, NULL], "
                    "[1] < [1, 0], [] < [NULL], [2] > [1, 5]",
                    "t|f|t|t|t|t;");
    EXPECT_SQL_ROWS("SELECT [1, 2] = [1, 2.0], [1, 2] <> [2, 1], (NULL::INT[] = [1]) IS NULL, "
                    "([1] = NULL) IS NULL",
                    "t|t|t|t;");
    EXPECT_SQL_ROWS("SELECT ['a'] < ['b'], [INTERVAL 40 DAY] > [INTERVAL 1 MONTH], "
                    "[0.0::DOUBLE] = [-0.0::DOUBLE], ['nan'::DOUBLE] > [1e308]",
                    "t|t|t|t;");
    EXPECT_SQL_ROWS("SELECT [1, 2] IN ([1, 2], [3]), [1, 2] BETWEEN [1] AND [2], "
                    "[1, 2] >= [1, 2], [NULL] <> [1], [NULL] > [1]",
                    "t|t|t|t|t;");
    EXPECT_SQL_ROWS("SELECT count(*) FROM (VALUES ([1, 2]), ([1]), (NULL), ([0, 5])) t(x) "
                    "WHERE x > [1]",
                    "1;");
    EXPECT_SQL_ERROR("SELECT [1] = 1", BASALT_UNSUPPORTED, "no overload of '='");
    basalt_sql_session_free(s);
}
