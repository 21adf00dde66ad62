/* Correlated subqueries where they are values, with answers written by
 * hand over VALUES tables (and equal to DuckDB's): inside CASE, function
 * calls, IN lists and FILTER; EXISTS in the SELECT list and under OR; in a
 * grouped query over its group keys, inside its aggregates, in HAVING and
 * as a group key. The WHERE forms (semi and anti joins, scalar
 * comparisons) are in tests/sql/sql_differential.mjs. */
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

#define T "(VALUES (1), (2), (3), (NULL)) t(a)"
#define U "(VALUES (1, 1), (2, 5), (2, 7), (NULL, 9)) u(a2, b)"
/* max(b), min(b) and count(*) of the u rows whose a2 is t.a */
#define MAX_B "(SELECT max(b) FROM " U " WHERE u.a2 = t.a)"
#define MIN_B "(SELECT min(b) FROM " U " WHERE u.a2 = t.a)"
#define COUNT_B "(SELECT count(*) FROM " U " WHERE u.a2 = t.a)"
#define HAS_B "EXISTS (SELECT 1 FROM " U " WHERE u.a2 = t.a)"

TEST(sql_correlated_subqueries_inside_expressions)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* Under CASE (computed for every row, read where the branch is taken). */
    EXPECT_SQL_ROWS("SELECT a, CASE WHEN a > 1 THEN " MAX_B " ELSE 0 END FROM " T
                    " ORDER BY a NULLS LAST",
                    "1|0;2|7;3|N;N|0;");
    /* As a function's argument, and in arithmetic inside one. */
    EXPECT_SQL_ROWS("SELECT a, coalesce(" MAX_B ", -1), abs(" MIN_B " - 10) FROM " T
                    " ORDER BY a NULLS LAST",
                    "1|1|9;2|7|5;3|-1|N;N|-1|N;");
    /* COUNT over no rows is 0, also inside IN. */
    EXPECT_SQL_ROWS("SELECT a, " COUNT_B " IN (0, 2) FROM " T " ORDER BY a NULLS LAST",
                    "1|f;2|t;3|t;N|t;");
    /* An expression over aggregates is its value over no rows there, not
     * the join's NULL. */
    EXPECT_SQL_ROWS("SELECT a, (SELECT count(*) + 1 FROM " U " WHERE u.a2 = t.a), (SELECT coalesce(sum(b), 0)::BIGINT "
                    "FROM " U " WHERE u.a2 = t.a) FROM " T " ORDER BY a NULLS LAST",
                    "1|2|1;2|3|12;3|1|0;N|1|0;");
    /* In a WHERE that is not the subquery alone. */
    EXPECT_SQL_ROWS("SELECT a FROM " T " WHERE CASE WHEN a > 1 THEN " COUNT_B
                    " > 1 ELSE true END ORDER BY a NULLS LAST",
                    "1;2;N;");
    basalt_sql_session_free(s);
}

TEST(sql_correlated_exists_as_a_value)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* In the SELECT list it keeps every row (it once filtered them, as a
     * WHERE condition would): FALSE where no u row matches, NOT over it. */
    EXPECT_SQL_ROWS("SELECT a, " HAS_B ", NOT EXISTS (SELECT 1 FROM " U
                    " WHERE u.a2 = t.a AND b > 6) FROM " T " ORDER BY a NULLS LAST",
                    "1|t|t;2|t|f;3|f|t;N|f|t;");
    /* Under OR, and in CASE. */
    EXPECT_SQL_ROWS("SELECT a FROM " T " WHERE a = 3 OR EXISTS (SELECT 1 FROM " U
                    " WHERE u.a2 = t.a AND b > 2) ORDER BY a",
                    "2;3;");
    EXPECT_SQL_ROWS("SELECT a, CASE WHEN " HAS_B " THEN 'y' ELSE 'n' END FROM " T
                    " ORDER BY a NULLS LAST",
                    "1|y;2|y;3|n;N|n;");
    /* Over an aggregate without GROUP BY: one row always, so TRUE. */
    EXPECT_SQL_ROWS("SELECT a, EXISTS (SELECT count(*) FROM " U " WHERE u.a2 = t.a) FROM " T
                    " WHERE EXISTS (SELECT max(b) FROM " U " WHERE u.a2 = t.a) ORDER BY a NULLS LAST",
                    "1|t;2|t;3|t;N|t;");
    /* Over an aggregate with HAVING it can be false: max(b) is 1, 7, and
     * over no rows NULL. */
    EXPECT_SQL_ROWS("SELECT a, EXISTS (SELECT max(b) FROM " U " WHERE u.a2 = t.a HAVING max(b) > 3) FROM " T
                    " ORDER BY a NULLS LAST",
                    "1|f;2|t;3|f;N|f;");
    /* Correlated by other than equalities as well (over the distinct outer
     * values, subquery_nonequal_test.c). */
    EXPECT_SQL_ROWS("SELECT a, EXISTS (SELECT 1 FROM " U " WHERE u.a2 = t.a AND u.b > t.a) FROM " T
                    " ORDER BY a NULLS LAST",
                    "1|f;2|t;3|f;N|f;");
    basalt_sql_session_free(s);
}

TEST(sql_correlated_subqueries_in_grouped_queries)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* Over the group key (it was once bound alone and failed). */
    EXPECT_SQL_ROWS("SELECT a, " MAX_B ", count(*) FROM " T " GROUP BY a ORDER BY a NULLS LAST",
                    "1|1|1;2|7|1;3|N|1;N|N|1;");
    /* Inside an aggregate (for every row before grouping) and outside it
     * (over the groups), in one item. */
    EXPECT_SQL_ROWS("SELECT a % 2, sum(" MAX_B ")::BIGINT FROM " T " GROUP BY 1 ORDER BY 1 NULLS LAST",
                    "0|7;1|1;N|N;");
    EXPECT_SQL_ROWS("SELECT a, max(" MAX_B ") + " MIN_B " FROM " T " GROUP BY a ORDER BY a NULLS LAST",
                    "1|2;2|12;3|N;N|N;");
    /* In FILTER, in HAVING, and as a group key. */
    EXPECT_SQL_ROWS("SELECT a % 2, count(*) FILTER (WHERE " HAS_B ") FROM " T
                    " GROUP BY 1 ORDER BY 1 NULLS LAST",
                    "0|1;1|1;N|0;");
    EXPECT_SQL_ROWS("SELECT a, sum(a)::BIGINT FROM " T " GROUP BY a HAVING coalesce(sum(a), 0) < coalesce(" MAX_B
                    ", 0) ORDER BY a",
                    "2|2;");
    EXPECT_SQL_ROWS("SELECT " MAX_B " AS m, count(*) FROM " T " GROUP BY m ORDER BY m NULLS LAST",
                    "1|1;7|1;N|2;");
    /* Over a column that is not a group key: the error DuckDB gives too. */
    EXPECT_SQL_ERROR("SELECT a % 2, " MAX_B " FROM " T " GROUP BY 1", BASALT_INVALID_ARG,
                     "must appear in the GROUP BY clause");
    basalt_sql_session_free(s);
}

/* x op ANY / SOME / ALL (query), answers by hand over the tables above. */
TEST(sql_quantified_comparisons)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* Over {1, 2, 2, NULL}: 1 > ANY is NULL (no value below 1, one NULL);
     * a < ALL is FALSE once some value is at most a; NULL stays NULL. */
    EXPECT_SQL_ROWS("SELECT a, a > ANY (SELECT a2 FROM " U "), a < ALL (SELECT a2 FROM " U ") FROM " T
                    " ORDER BY a NULLS LAST",
                    "1|N|f;2|t|f;3|t|f;N|N|N;");
    /* Correlated: {1}, {5, 7}, nothing, nothing. Over no rows ANY is FALSE
     * and ALL TRUE. */
    EXPECT_SQL_ROWS("SELECT a, a < SOME (SELECT b FROM " U " WHERE u.a2 = t.a), a >= ALL (SELECT b FROM " U
                    " WHERE u.a2 = t.a) FROM " T " ORDER BY a NULLS LAST",
                    "1|f|t;2|t|f;3|f|t;N|f|t;");
    /* <> ANY over {1, 5} (some value differs); = ALL over {2, 2}. */
    EXPECT_SQL_ROWS("SELECT a, a <> ANY (SELECT b FROM " U " WHERE b < 6), a = ALL (SELECT a2 FROM " U
                    " WHERE a2 = 2) FROM " T " ORDER BY a NULLS LAST",
                    "1|t|f;2|t|t;3|t|f;N|N|N;");
    /* In WHERE, over a set operation (read through FROM). */
    EXPECT_SQL_ROWS("SELECT a FROM " T " WHERE a >= ALL (SELECT 2 UNION ALL SELECT a2 FROM " U
                    " WHERE a2 > 1) ORDER BY a",
                    "2;3;");
    EXPECT_SQL_ERROR("SELECT 1 > ANY (SELECT a2, b FROM " U ")", BASALT_INVALID_ARG,
                     "the subquery returns 2 columns, expected 1");
    EXPECT_SQL_ERROR("SELECT 1 > ANY (1, 2)", BASALT_UNSUPPORTED, "ANY takes a subquery here");
    basalt_sql_session_free(s);
}

/* A correlated subquery that picks one row: ORDER BY ... LIMIT 1 [OFFSET m]
 * per key ({1} and {5, 7} here). */
TEST(sql_correlated_subquery_picks_the_nth_row)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT a, (SELECT b FROM " U " WHERE u.a2 = t.a ORDER BY b DESC LIMIT 1), (SELECT b FROM " U
                    " WHERE u.a2 = t.a ORDER BY b LIMIT 1 OFFSET 1) FROM " T " ORDER BY a NULLS LAST",
                    "1|1|N;2|7|7;3|N|N;N|N|N;");
    /* In WHERE, ordered by the value's alias. */
    EXPECT_SQL_ROWS("SELECT a FROM " T " WHERE a * 2 < (SELECT b + 1 AS c FROM " U
                    " WHERE u.a2 = t.a ORDER BY c LIMIT 1) ORDER BY a",
                    "2;");
    /* Two rows could come back: DuckDB fails when they do; refused here. */
    EXPECT_SQL_ERROR("SELECT a, (SELECT b FROM " U " WHERE u.a2 = t.a LIMIT 2) FROM " T, BASALT_UNSUPPORTED,
                     "takes LIMIT 1");
    /* One value a row without LIMIT: fine for the keys with one row (1 and
     * 3 here, as 2 is filtered out first, or its branch not taken); where
     * a row reads a key with two, DuckDB's error. */
    EXPECT_SQL_ROWS("SELECT a, (SELECT b FROM " U " WHERE u.a2 = t.a) FROM " T " WHERE a <> 2 ORDER BY a",
                    "1|1;3|N;");
    EXPECT_SQL_ROWS("SELECT a, CASE WHEN a = 2 THEN 0 ELSE (SELECT b FROM " U " WHERE u.a2 = t.a) END FROM " T
                    " ORDER BY a NULLS LAST",
                    "1|1;2|0;3|N;N|N;");
    EXPECT_SQL_ERROR("SELECT a, (SELECT b FROM " U " WHERE u.a2 = t.a) FROM " T, BASALT_INVALID_ARG,
                     "More than one row returned by a subquery");
    basalt_sql_session_free(s);
}

/* LATERAL, answers by hand over the tables above. */
TEST(sql_lateral_joins)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* Inner: the outer rows with inner rows, each with all of them. */
    EXPECT_SQL_ROWS("SELECT * FROM " T ", LATERAL (SELECT b FROM " U " WHERE u.a2 = t.a) l ORDER BY a, b",
                    "1|1;2|5;2|7;");
    /* LEFT JOIN LATERAL: the largest b per a, every outer row kept. */
    EXPECT_SQL_ROWS("SELECT a, l.* FROM " T " LEFT JOIN LATERAL (SELECT b, b * 10 AS c FROM " U
                    " WHERE u.a2 = t.a ORDER BY b DESC LIMIT 1) l ON true ORDER BY a NULLS LAST",
                    "1|1|10;2|7|70;3|N|N;N|N|N;");
    /* The ON condition filters the lateral rows, not the outer ones. */
    EXPECT_SQL_ROWS("SELECT * FROM " T " LEFT JOIN LATERAL (SELECT b FROM " U
                    " WHERE u.a2 = t.a) l ON l.b > 5 ORDER BY a NULLS LAST",
                    "1|N;2|7;3|N;N|N;");
    /* Without the word, as DuckDB reads a subquery naming t. */
    EXPECT_SQL_ROWS("SELECT * FROM " T ", (SELECT b FROM " U " WHERE u.a2 = t.a AND b > 1) l ORDER BY a, b",
                    "2|5;2|7;");
    /* Grouped per outer row. */
    /* A LATERAL that is the left side of a LEFT JOIN (`,` binds looser than
     * JOIN): its equalities join the items before the outer join. */
    EXPECT_SQL_ROWS("SELECT a, b, x FROM " T ", LATERAL (SELECT b FROM " U " WHERE u.a2 = t.a) l LEFT JOIN "
                    "(VALUES (5, 'five')) v(n, x) ON l.b = v.n ORDER BY a, b",
                    "1|1|N;2|5|five;2|7|N;");
    EXPECT_SQL_ROWS("SELECT a, n, s FROM " T " CROSS JOIN LATERAL (SELECT count(*) AS n, sum(b)::BIGINT AS s FROM " U
                    " WHERE u.a2 = t.a GROUP BY u.a2) ORDER BY a",
                    "1|1|1;2|2|12;");
    /* An aggregate without GROUP BY has a row for every outer row, count
     * 0 where no inner row has the key (3) or the key is NULL; a condition
     * on it filters after the join. */
    EXPECT_SQL_ROWS("SELECT * FROM " T ", LATERAL (SELECT count(*) FROM " U " WHERE u.a2 = t.a) ORDER BY a NULLS LAST",
                    "1|1;2|2;3|0;N|0;");
    EXPECT_SQL_ROWS("SELECT a, l.* FROM " T ", LATERAL (SELECT count(*) + 1 AS c, coalesce(max(b), -1) AS m FROM " U
                    " WHERE u.a2 = t.a) l ORDER BY a NULLS LAST",
                    "1|2|1;2|3|7;3|1|-1;N|1|-1;");
    EXPECT_SQL_ROWS("SELECT a, l.n, l.s FROM " T " LEFT JOIN LATERAL (SELECT count(b) n, sum(b)::BIGINT s FROM " U
                    " WHERE u.a2 = t.a) l ON true WHERE l.n < 2 ORDER BY a NULLS LAST",
                    "1|1|1;3|0|N;N|0|N;");
    EXPECT_SQL_ERROR("SELECT * FROM " T ", LATERAL (SELECT b FROM " U " WHERE u.a2 < t.a)",
                     BASALT_UNSUPPORTED, "correlated by equalities");
    EXPECT_SQL_ERROR("SELECT * FROM " T ", LATERAL (SELECT b + t.a FROM " U " WHERE u.a2 = t.a)",
                     BASALT_UNSUPPORTED, "its select list reads a column");
    EXPECT_SQL_ERROR("SELECT * FROM " T " RIGHT JOIN LATERAL (SELECT b FROM " U " WHERE u.a2 = t.a) l ON true",
                     BASALT_UNSUPPORTED, "inner, cross and LEFT joins only");
    basalt_sql_session_free(s);
}

/* Correlated subqueries with GROUP BY or HAVING of their own, one inside a
 * FROM subquery, one in the ORDER BY of a grouped query; answers by hand
 * (and DuckDB's): the u groups of a = 2 are b = 5 and b = 7. */
TEST(sql_correlated_subqueries_with_groups)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    /* HAVING drops a = 1's one-row group: NULL, as for a key without rows. */
    EXPECT_SQL_ROWS("SELECT a, (SELECT sum(b)::BIGINT FROM " U " WHERE u.a2 = t.a GROUP BY u.a2 HAVING count(*) > 1) "
                    "FROM " T " ORDER BY a NULLS LAST",
                    "1|N;2|12;3|N;N|N;");
    /* Two groups for a = 2: DuckDB's error where it is read, not elsewhere. */
    EXPECT_SQL_ERROR("SELECT a, (SELECT count(*) FROM " U " WHERE u.a2 = t.a GROUP BY u.b) FROM " T,
                     BASALT_INVALID_ARG, "More than one row returned by a subquery");
    EXPECT_SQL_ROWS("SELECT a, (SELECT count(*) FROM " U " WHERE u.a2 = t.a GROUP BY u.b) FROM " T
                    " WHERE a <> 2 ORDER BY a",
                    "1|1;3|N;");
    /* ORDER BY ... LIMIT 1 picks one group per key. */
    EXPECT_SQL_ROWS("SELECT a, (SELECT u.b FROM " U " WHERE u.a2 = t.a GROUP BY u.b ORDER BY u.b DESC LIMIT 1) "
                    "FROM " T " ORDER BY a NULLS LAST",
                    "1|1;2|7;3|N;N|N;");
    /* The correlation inside the subquery's FROM subquery. */
    EXPECT_SQL_ROWS("SELECT a, (SELECT max(c) FROM (SELECT count(*) c FROM " U
                    " WHERE u.a2 = t.a GROUP BY u.b) d) FROM " T " ORDER BY a NULLS LAST",
                    "1|1;2|1;3|N;N|N;");
    /* EXISTS with HAVING as a WHERE condition: a group, not a row. */
    EXPECT_SQL_ROWS("SELECT a FROM " T " WHERE EXISTS (SELECT 1 FROM " U
                    " WHERE u.a2 = t.a GROUP BY u.a2 HAVING count(*) > 1)",
                    "2;");
    /* In ORDER BY after grouping, over the group key. */
    EXPECT_SQL_ROWS("SELECT a FROM " T " GROUP BY a ORDER BY " COUNT_B " DESC, a NULLS LAST", "2;1;3;N;");
    basalt_sql_session_free(s);
}

/* x IN (a subquery reading the outer query), bound as a correlated scalar
 * subquery (bind_in_correlated.c): IN's three values by hand for every
 * case of the rewrite's CASE (no rows: false; a row equal: true; no equal
 * row but a NULL: NULL; else false), NOT IN, a WHERE condition, the column
 * named as written, and the refused shapes with their position. The
 * differential over DuckDB is tests/sql/functions/in_correlated.txt. */
TEST(sql_correlated_in_as_a_value)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
#define V "(VALUES (1, 1), (2, 7), (3, 4), (3, NULL), (5, NULL)) v(k, b)"
    /* t.a 1: the row (1, 1) equals; 2: one row, not equal; 3: no equal row
     * but a NULL b; 5: only a NULL; 4 and NULL: no rows */
    EXPECT_SQL_ROWS("SELECT a, a IN (SELECT b FROM " V " WHERE v.k = t.a) FROM "
                    "(VALUES (1), (2), (3), (4), (5), (NULL)) t(a) ORDER BY a NULLS LAST",
                    "1|t;2|f;3|N;4|f;5|N;N|f;");
    EXPECT_SQL_ROWS("SELECT a, a NOT IN (SELECT b FROM " V " WHERE v.k = t.a) FROM "
                    "(VALUES (1), (2), (3), (4), (5), (NULL)) t(a) ORDER BY a NULLS LAST",
                    "1|f;2|t;3|N;4|t;5|N;N|t;");
    /* a NULL x over rows: NULL; the subquery's b named like the outer a */
    EXPECT_SQL_ROWS("SELECT k, x IN (SELECT a FROM (VALUES (1, 1), (1, 2)) u(k2, a) WHERE u.k2 = t.k) "
                    "FROM (VALUES (1, NULL), (1, 2), (2, 2)) t(k, x) ORDER BY k, x NULLS FIRST",
                    "1|N;1|t;2|f;");
    EXPECT_SQL_ROWS("SELECT a FROM (VALUES (1), (2), (3)) t(a) WHERE a IN (SELECT b FROM " V
                    " WHERE v.k = t.a) OR a = 2 ORDER BY a",
                    "1;2;");
    /* a WHERE conjunct: a SEMI join keyed on the correlation and c = x */
    {
        const char *plan = "EXPLAIN SELECT a FROM (VALUES (1), (2), (3)) t(a) WHERE a IN "
                           "(SELECT b FROM " V " WHERE v.k = t.a) AND a > 0";
        char got[4096];
        struct basalt_error e;
        basalt_error_init(&e);
        CHECK_OK(sql_test_rows(s, plan, got, sizeof got, &e), &e);
        CHECK_MSG(strstr(got, "HASH_JOIN SEMI keys=2") != NULL, "plan: %s", got);
    }
    EXPECT_SQL_ROWS("SELECT a FROM (VALUES (1), (2), (3), (5), (NULL)) t(a) WHERE a IN (SELECT b FROM "
                    V " WHERE v.k = t.a) AND a > 0 ORDER BY a",
                    "1;");
    /* named as written, not by the rewritten form */
    const char *named = "SELECT a IN (SELECT b FROM " V " WHERE v.k = t.a) FROM (VALUES (1)) t(a)";
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    CHECK_OK(basalt_sql_session_run(s, named, strlen(named), &b, &err), &err);
    const char *name = b.schema.n_children == 1 ? b.schema.children[0]->name : NULL;
    CHECK_MSG(name != NULL && strncmp(name, "(a IN (SELECT b FROM", 20) == 0, "named %s",
              name ? name : "(none)");
    basalt_arrow_batches_reset(&b);
    EXPECT_SQL_ERROR("SELECT a IN (SELECT b FROM " V " WHERE v.k = t.a GROUP BY b) FROM "
                     "(VALUES (1)) t(a)",
                     BASALT_UNSUPPORTED, "(at position 9)"); /* the IN */
    EXPECT_SQL_ERROR("SELECT a IN (SELECT b FROM " V " WHERE v.k = t.a LIMIT 1) FROM "
                     "(VALUES (1)) t(a)",
                     BASALT_UNSUPPORTED, "a correlated IN subquery");
    EXPECT_SQL_ERROR("SELECT a IN (SELECT row_number() OVER () FROM " V " WHERE v.k = t.a) FROM "
                     "(VALUES (1)) t(a)",
                     BASALT_UNSUPPORTED, "a correlated IN subquery");
#undef V
    basalt_sql_session_free(s);
}
