/* Correlated subqueries whose correlation is not only equalities
 * (bind_subquery_nonequal.c), computed once per distinct outer value and
 * joined back with IS NOT DISTINCT FROM; answers written by hand over
 * VALUES tables (and equal to DuckDB's). tests/sql/functions/
 * subqueries_nonequal.txt compares many more with DuckDB. */
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

/* t.a repeats (2 twice) and is NULL once; u.b is NULL once */
#define T "(VALUES (1, 'a%'), (2, 'b%'), (2, 'x'), (4, NULL), (NULL, '%')) t(a, p)"
#define U "(VALUES (1, 'ab'), (2, 'ba'), (3, 'bb'), (NULL, 'a')) u(b, s)"

TEST(sql_nonequal_scalar_aggregates)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* u.b < t.a: COUNT 0 over no rows (a = 1, and a NULL a meets nothing),
     * the other aggregates NULL there; a repeated a gets the same value */
    EXPECT_SQL_ROWS("SELECT a, (SELECT count(*) FROM " U " WHERE u.b < t.a), (SELECT sum(b)::BIGINT FROM " U
                    " WHERE u.b < t.a) FROM " T " ORDER BY a NULLS LAST, p",
                    "1|0|N;2|1|1;2|1|1;4|3|6;N|0|N;");
    /* a condition that holds where the outer value is NULL: D keeps the
     * NULL as a value of its own, and it is joined back to its row */
    EXPECT_SQL_ROWS("SELECT a, (SELECT count(*) FROM " U " WHERE u.b < t.a OR t.a IS NULL) FROM " T
                    " ORDER BY a NULLS LAST, p",
                    "1|0;2|1;2|1;4|3;N|4;");
    EXPECT_SQL_ROWS("SELECT a, (SELECT count(*) FROM " U " WHERE u.b IS NOT DISTINCT FROM t.a) FROM " T
                    " ORDER BY a NULLS LAST, p",
                    "1|1;2|1;2|1;4|0;N|1;");
    /* LIKE with the pattern outside */
    EXPECT_SQL_ROWS("SELECT p, (SELECT count(*) FROM " U " WHERE u.s LIKE t.p) FROM " T " ORDER BY p NULLS LAST",
                    "%|4;a%|2;b%|2;x|0;N|0;");
    /* an item reading the outer query: its value over no rows is computed
     * from the row (count(*) + a is a where nothing matches) */
    EXPECT_SQL_ROWS("SELECT a, (SELECT count(*) + t.a FROM " U " WHERE u.b < t.a), (SELECT coalesce(max(b), -t.a) FROM " U
                    " WHERE u.b < t.a) FROM " T " ORDER BY a NULLS LAST, p",
                    "1|1|-1;2|3|1;2|3|1;4|7|3;N|N|N;");
    basalt_sql_session_free(s);
}

TEST(sql_nonequal_exists_lookups_and_errors)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* EXISTS as a value and as a WHERE condition without any equality */
    EXPECT_SQL_ROWS("SELECT a, EXISTS (SELECT 1 FROM " U " WHERE u.b > t.a) FROM " T " ORDER BY a NULLS LAST, p",
                    "1|t;2|t;2|t;4|f;N|f;");
    EXPECT_SQL_ROWS("SELECT a FROM " T " WHERE NOT EXISTS (SELECT 1 FROM " U " WHERE u.b > t.a) ORDER BY a NULLS LAST",
                    "4;N;");
    /* one value a row: NULL without a row, the row where there is one */
    EXPECT_SQL_ROWS("SELECT a, (SELECT s FROM " U " WHERE u.b > t.a AND u.b < t.a + 2) FROM " T
                    " ORDER BY a NULLS LAST, p",
                    "1|ba;2|bb;2|bb;4|N;N|N;");
    /* the nearest larger b, ORDER BY ... LIMIT 1 */
    EXPECT_SQL_ROWS("SELECT a, (SELECT b FROM " U " WHERE u.b >= t.a ORDER BY b LIMIT 1) FROM " T
                    " ORDER BY a NULLS LAST, p",
                    "1|1;2|2;2|2;4|N;N|N;");
    /* several rows for a row that reads it: DuckDB's error */
    EXPECT_SQL_ERROR("SELECT a, (SELECT s FROM " U " WHERE u.b > t.a) FROM " T, BASALT_INVALID_ARG,
                     "More than one row returned by a subquery used as an expression");
    EXPECT_SQL_ERROR("SELECT a, (SELECT count(*) FROM " U " WHERE u.b > t.nope) FROM " T, BASALT_NOT_FOUND,
                     "column \"t.nope\" not found");
    basalt_sql_session_free(s);
}
