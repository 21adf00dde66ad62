/* Set operations with answers written by hand over VALUES tables: INTERSECT
 * and EXCEPT keep distinct rows, INTERSECT ALL and EXCEPT ALL keep
 * min(cl, cr) and max(cl - cr, 0) copies of a row the left has cl times and
 * the right cr times; rows compare as IS NOT DISTINCT FROM (NULL meets
 * NULL). The comparison with DuckDB is tests/sql/sql_differential.mjs. */
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

#define L "(VALUES (1), (1), (1), (2), (NULL), (NULL), (3)) l(a)"
#define R "(VALUES (1), (1), (NULL), (4), (4)) r(a)"
#define L2 "(VALUES (1, 'a'), (1, 'a'), (1, NULL), (1, NULL), (NULL, NULL)) l(a, b)"
#define R2 "(VALUES (1, 'a'), (1, NULL), (1, NULL), (1, NULL), (NULL, NULL), (NULL, NULL)) r(a, b)"

TEST(sql_set_operations_count_duplicates)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT a FROM " L " INTERSECT ALL SELECT a FROM " R " ORDER BY 1",
                    "1;1;N;");
    EXPECT_SQL_ROWS("SELECT a FROM " L " EXCEPT ALL SELECT a FROM " R " ORDER BY 1", "1;2;3;N;");
    EXPECT_SQL_ROWS("SELECT a FROM " R " EXCEPT ALL SELECT a FROM " L " ORDER BY 1", "4;4;");
    EXPECT_SQL_ROWS("SELECT a FROM " L " INTERSECT SELECT a FROM " R " ORDER BY 1", "1;N;");
    EXPECT_SQL_ROWS("SELECT a FROM " L " EXCEPT SELECT a FROM " R " ORDER BY 1", "2;3;");
    /* Two columns, NULLs in either. */
    EXPECT_SQL_ROWS("SELECT a, b FROM " L2 " INTERSECT ALL SELECT a, b FROM " R2
                    " ORDER BY a, b NULLS FIRST",
                    "1|N;1|N;1|a;N|N;");
    EXPECT_SQL_ROWS("SELECT a, b FROM " L2 " EXCEPT ALL SELECT a, b FROM " R2 " ORDER BY 1",
                    "1|a;");
    EXPECT_SQL_ROWS("SELECT a, b FROM " R2 " EXCEPT ALL SELECT a, b FROM " L2
                    " ORDER BY a, b NULLS FIRST",
                    "1|N;N|N;");
    /* Left to right: (L INTERSECT ALL R) EXCEPT ALL (1). */
    EXPECT_SQL_ROWS("SELECT a FROM " L " INTERSECT ALL SELECT a FROM " R
                    " EXCEPT ALL SELECT 1 ORDER BY 1",
                    "1;N;");
    /* Duplicates of the result are counted, not the inputs' rows alone:
     * UNION ALL doubles the left. */
    EXPECT_SQL_ROWS("SELECT count(*) FROM ((SELECT a FROM " L " UNION ALL SELECT a FROM " L
                    ") EXCEPT ALL SELECT a FROM " R ")",
                    "11;");
    basalt_sql_session_free(s);
}

/* DECIMALs of different scales meet in the DECIMAL holding both (the larger
 * integer digits and scale), as DuckDB's: DECIMAL(13,0) and DECIMAL(13,4)
 * are DECIMAL(17,4). Past 38 digits they do not mix. */
TEST(sql_set_operations_widen_decimals)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT x::VARCHAR FROM (SELECT CAST(123456789012 AS DECIMAL(13,0)) AS x UNION "
                    "SELECT CAST(2.5 AS DECIMAL(13,4))) ORDER BY x",
                    "2.5000;123456789012.0000;");
    EXPECT_SQL_ROWS("SELECT count(*) FROM (SELECT CAST(2.5 AS DECIMAL(5,1)) INTERSECT "
                    "SELECT CAST(2.5 AS DECIMAL(9,4)))",
                    "1;");
    EXPECT_SQL_ERROR("SELECT CAST(1 AS DECIMAL(30,0)) INTERSECT SELECT CAST(1 AS DECIMAL(30,10))",
                     BASALT_INVALID_ARG, "do not mix");
    basalt_sql_session_free(s);
}
