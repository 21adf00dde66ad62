/* CTEs computed once (bind_cte.c): answers written by hand over a VALUES
 * table, the rows of a computed CTE returned straight to the caller after
 * the statement's binder is gone (ASan checks that they are still there),
 * scopes, and errors inside a computed CTE. The plans (computed once or
 * planned again) and the comparison with DuckDB are in
 * tests/sql/sql_differential.mjs. */
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

#define T "(VALUES (1, 10), (1, 20), (1, 30), (2, 40), (2, 50), (3, 60)) t(k, v)"

TEST(sql_cte_computed_once_answers)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* Q15's shape: the CTE in FROM and again in a scalar subquery. */
    EXPECT_SQL_ROWS("WITH r AS (SELECT k, count(*) AS n FROM " T " GROUP BY k) "
                "SELECT k, n FROM r WHERE n = (SELECT max(n) FROM r)",
                "1|3;");
    /* Only a computed CTE's views leave the statement: they must outlive
     * its binder. */
    EXPECT_SQL_ROWS("WITH r AS MATERIALIZED (SELECT max(k) AS m, count(*) AS n FROM " T ") "
                "SELECT n, m FROM r",
                "6|3;");
    /* A later CTE reads an earlier computed one, which the body reads too. */
    EXPECT_SQL_ROWS("WITH a AS (SELECT k, count(*) AS n FROM " T " GROUP BY k), "
                "b AS (SELECT max(n) AS m FROM a) "
                "SELECT count(*) FROM a, b WHERE a.n * 2 > b.m",
                "2;");
    /* First read inside a subquery with a WITH of its own: the CTE still
     * sees only what is before it, and the subquery keeps its z. */
    EXPECT_SQL_ROWS("WITH a AS (SELECT k, count(*) AS n FROM " T " GROUP BY k) "
                "SELECT (WITH z AS (SELECT 5 AS q) SELECT max(n) + max(q) FROM a, z) "
                "+ (SELECT min(n) FROM a)",
                "9;");
    /* A name that hides the computed CTE inside a subquery. */
    EXPECT_SQL_ROWS("WITH r AS (SELECT k, count(*) AS n FROM " T " GROUP BY k) "
                "SELECT count(*) FROM r WHERE n >= (WITH r AS (SELECT 2 AS n) SELECT n FROM r) "
                "AND k IN (SELECT k FROM r)",
                "2;");
    /* Errors inside a computed CTE reach the caller, and the session goes on. */
    EXPECT_SQL_ERROR("WITH r AS MATERIALIZED (SELECT nosuch FROM " T ") SELECT * FROM r",
                 BASALT_NOT_FOUND, "nosuch");
    EXPECT_SQL_ERROR("WITH r AS (SELECT k, CAST('x' || max(v) AS INTEGER) AS n FROM " T " GROUP BY k) "
                 "SELECT * FROM r a, r b",
                 BASALT_INVALID_ARG, "Could not convert string 'x");
    EXPECT_SQL_ROWS("WITH r AS NOT MATERIALIZED (SELECT k, sum(v) AS sv FROM " T " GROUP BY k) "
                "SELECT count(*) FROM r a JOIN r b ON a.k = b.k",
                "3;");
    basalt_sql_session_free(s);
}

/* WITH RECURSIVE (bind_recursive.c): answers written by hand; the
 * comparison with DuckDB over tables is in tests/sql/sql_differential.mjs. */
TEST(sql_cte_recursive_answers)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* UNION ALL: every step's rows, until a step gives none */
    EXPECT_SQL_ROWS("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4) "
                    "SELECT n FROM r ORDER BY n",
                    "1;2;3;4;");
    /* UNION: rows already held end a walk around a cycle (3 -> 1) */
    EXPECT_SQL_ROWS("WITH RECURSIVE e(a, b) AS (VALUES (1, 2), (2, 3), (3, 1), (3, 4), (5, 6)), "
                    "reach(x) AS (SELECT 1 UNION SELECT b FROM reach JOIN e ON a = x) "
                    "SELECT x FROM reach ORDER BY x",
                    "1;2;3;4;");
    /* the anchor deduplicated under UNION */
    EXPECT_SQL_ROWS("WITH RECURSIVE r(n) AS (SELECT k FROM " T " UNION SELECT n + 10 FROM r WHERE n < 3) "
                    "SELECT n FROM r ORDER BY n",
                    "1;2;3;11;12;");
    /* the step's columns take the anchor's types; strings grow */
    EXPECT_SQL_ROWS("WITH RECURSIVE r(s, d) AS (SELECT 'a', 0 UNION ALL "
                    "SELECT s || 'b', d + 1 FROM r WHERE d < 2) SELECT s, d FROM r ORDER BY d",
                    "a|0;ab|1;abb|2;");
    /* a step that never runs dry stops with LIMIT, not forever */
    EXPECT_SQL_ERROR("WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r) "
                     "SELECT count(*) FROM r",
                     BASALT_LIMIT, "still gives rows after 10000 steps");
    EXPECT_SQL_ERROR("WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT r.n FROM r, r q) "
                     "SELECT * FROM r",
                     BASALT_LIMIT, "still gives rows");
    EXPECT_SQL_ERROR("WITH RECURSIVE r AS (SELECT * FROM r) SELECT * FROM r", BASALT_UNSUPPORTED,
                     "anchor UNION [ALL] step");
    EXPECT_SQL_ERROR("WITH RECURSIVE r AS (SELECT n FROM r UNION ALL SELECT 1) SELECT * FROM r",
                     BASALT_UNSUPPORTED, "must not read it");
    /* without a self-reference, WITH RECURSIVE is a plain WITH */
    EXPECT_SQL_ROWS("WITH RECURSIVE a AS (SELECT 2 AS x) SELECT x FROM a", "2;");
    basalt_sql_session_free(s);
}
