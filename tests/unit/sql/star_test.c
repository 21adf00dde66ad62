/* DuckDB's select-list forms (bind_star.c) with answers and messages written
 * by hand: * EXCLUDE names checked, * REPLACE in place, * RENAME, COLUMNS by
 * regex, star, name list and lambda, *COLUMNS unpacked into a call's
 * arguments, alone, inside expressions and
 * aggregates, in WHERE and ORDER BY, each copy named by its column;
 * select-list aliases in windows, GROUP BY / ORDER BY numbers; errors with
 * their positions. The comparison with DuckDB is
 * tests/sql/functions/operators.txt and select_list.txt. */
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

#define T "(VALUES (1, 10, 'a'), (2, -3, 'b'), (3, NULL, NULL)) t(id, ix, s)"
#define T2 "(VALUES (1, 5)) u(id, ix)"

/* The result's column names joined with ",". */
static void names(struct basalt_sql_session *s, const char *sql, char *out, size_t cap)
{
    struct basalt_arrow_batches b;
    struct basalt_error err;
    basalt_arrow_batches_init(&b);
    basalt_error_init(&err);
    out[0] = '\0';
    if (basalt_sql_session_run(s, sql, strlen(sql), &b, &err) != BASALT_OK) {
        snprintf(out, cap, "error: %.200s", err.message);
        return;
    }
    size_t n = 0;
    for (int64_t c = 0; c < b.schema.n_children; c++)
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", c ? "," : "", b.schema.children[c]->name);
    basalt_arrow_batches_reset(&b);
}

#define EXPECT_NAMES(sql, want)                                                              \
    do {                                                                                     \
        char got_[512];                                                                      \
        names(s, sql, got_, sizeof got_);                                                    \
        CHECK_MSG(strcmp(got_, want) == 0, "%s\n  got  %s\n  want %s", sql, got_, want);    \
    } while (0)

TEST(sql_star_exclude_replace)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT * EXCLUDE (IX) FROM " T " ORDER BY id", "1|a;2|b;3|N;");
    EXPECT_SQL_ROWS("SELECT * REPLACE (ix * 2 AS ix, upper(s) AS s) FROM " T " ORDER BY id",
                    "1|20|A;2|-6|B;3|N|N;");
    EXPECT_NAMES("SELECT * EXCLUDE (s) REPLACE (ix + 1 AS ix) FROM " T, "id,ix");
    EXPECT_SQL_ROWS("SELECT t.* REPLACE (0 AS id), 9 AS nine FROM " T " WHERE id = 2", "0|-3|b|9;");
    /* FROM-first */
    EXPECT_SQL_ROWS("FROM " T " SELECT s WHERE ix > 0", "a;");
    EXPECT_SQL_ROWS("SELECT count(*) FROM (FROM " T ")", "3;");
    EXPECT_SQL_ERROR("SELECT * EXCLUDE (q) FROM " T, BASALT_INVALID_ARG,
                     "Column \"q\" in EXCLUDE list not found in FROM clause (at position 18)");
    EXPECT_SQL_ERROR("SELECT * REPLACE (1 AS q) FROM " T, BASALT_INVALID_ARG,
                     "Column \"q\" in REPLACE list not found in FROM clause (at position 23)");
    EXPECT_SQL_ERROR("SELECT u.* EXCLUDE (id) FROM " T, BASALT_INVALID_ARG, "not found in FROM clause");
    /* qualified and string names */
    EXPECT_NAMES("SELECT * EXCLUDE (t.ix, 's',) FROM " T, "id");
    EXPECT_NAMES("SELECT * EXCLUDE (u.ix) FROM " T " JOIN " T2 " USING (id)", "id,ix,s");
    EXPECT_SQL_ERROR("SELECT * EXCLUDE (u.ix) FROM " T, BASALT_INVALID_ARG,
                     "Column \"u.ix\" in EXCLUDE list not found in FROM clause (at position 18)");
    EXPECT_SQL_ERROR("SELECT t.* EXCLUDE (u.ix) FROM " T ", " T2, BASALT_INVALID_ARG,
                     "Column \"u.ix\" in EXCLUDE list not found in t (at position 20)");
    EXPECT_SQL_ERROR("SELECT * EXCLUDE (t.ix, IX) FROM " T, BASALT_INVALID_ARG,
                     "Duplicate entry \"ix\" in EXCLUDE list (at position 24)");
    basalt_sql_session_free(s);
}

TEST(sql_star_columns)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT COLUMNS('^i') FROM " T " ORDER BY id", "1|10;2|-3;3|N;");
    EXPECT_NAMES("SELECT COLUMNS('^i') FROM " T, "id,ix");
    EXPECT_NAMES("SELECT max(COLUMNS('^i')) FROM " T, "id,ix");
    EXPECT_NAMES("SELECT COLUMNS('^i') + 1 AS z FROM " T, "z,z");
    EXPECT_SQL_ROWS("SELECT max(COLUMNS('^i')), min(COLUMNS(*)) FROM " T, "3|10|1|-3|a;");
    EXPECT_SQL_ROWS("SELECT COLUMNS(['s', 'id']) FROM " T " WHERE id = 1", "1|a;");
    /* a lambda over the names, a star with EXCLUDE */
    EXPECT_NAMES("SELECT COLUMNS(c -> c LIKE 'i%') FROM " T, "id,ix");
    EXPECT_NAMES("SELECT COLUMNS(lambda c: length(c) = 1) FROM " T, "s");
    EXPECT_NAMES("SELECT max(COLUMNS(* EXCLUDE (ix))) FROM " T, "id,s");
    EXPECT_SQL_ROWS("SELECT COLUMNS(t.*) FROM " T " WHERE id = 2", "2|-3|b;");
    EXPECT_SQL_ERROR("SELECT COLUMNS(c -> c = 'q') FROM " T, BASALT_INVALID_ARG,
                     "Star expression \"columns(c -> (c = 'q'))\" resulted in an empty set of "
                     "columns (at position 7)");
    EXPECT_SQL_ERROR("SELECT COLUMNS(c -> (SELECT true)) FROM " T, BASALT_INVALID_ARG,
                     "Table function cannot contain subqueries (at position 15)");
    EXPECT_SQL_ERROR("SELECT COLUMNS(c -> id > 0) FROM " T, BASALT_NOT_FOUND, "column \"id\" not found");
    EXPECT_SQL_ERROR("SELECT c -> 1 FROM " T, BASALT_INVALID_ARG, "operator -> does not exist");
    /* *COLUMNS: arguments of the call around it */
    EXPECT_SQL_ROWS("SELECT concat(*COLUMNS(['s', 'id']), '.') FROM " T " ORDER BY id", "1a.;2b.;3.;");
    EXPECT_NAMES("SELECT greatest(*COLUMNS('^i')) FROM " T, "greatest(t.id, t.ix)");
    EXPECT_SQL_ERROR("SELECT *COLUMNS('^i') FROM " T, BASALT_INVALID_ARG,
                     "*COLUMNS not allowed at the root level, use COLUMNS instead (at position 8)");
    EXPECT_SQL_ERROR("SELECT *COLUMNS('^i') + 1 FROM " T, BASALT_INVALID_ARG,
                     "*COLUMNS(...) is allowed only as an argument of a function (at position 8)");
    EXPECT_SQL_ERROR("SELECT COLUMNS('^i') + greatest(*COLUMNS('^i')) FROM " T, BASALT_INVALID_ARG,
                     "STAR expression is not supported here");
    /* in WHERE the copies are ANDed, each conjunct of the top AND expanded apart */
    EXPECT_SQL_ROWS("SELECT id FROM " T " WHERE COLUMNS('^i') > 0 ORDER BY id", "1;");
    EXPECT_SQL_ROWS("SELECT id FROM " T " WHERE COLUMNS('^i') > 0 AND COLUMNS('^s') = 'a'", "1;");
    /* inside FILTER, an aggregate's ORDER BY and a window */
    EXPECT_NAMES("SELECT count(*) FILTER (WHERE COLUMNS('^i') > 1) FROM " T, "id,ix");
    EXPECT_SQL_ROWS("SELECT count(*) FILTER (WHERE COLUMNS('^i') > 1) FROM " T, "2|1;");
    EXPECT_SQL_ROWS("SELECT string_agg(s, ',' ORDER BY COLUMNS('^id') DESC) FROM " T, "b,a;");
    EXPECT_SQL_ROWS("SELECT row_number() OVER (ORDER BY COLUMNS('^ix') DESC NULLS LAST) FROM " T
                    " ORDER BY id",
                    "1;2;3;");
    EXPECT_SQL_ERROR("SELECT COLUMNS('zzz') FROM " T, BASALT_INVALID_ARG,
                     "No matching columns found that match regex \"zzz\" (at position 7)");
    EXPECT_SQL_ERROR("SELECT COLUMNS('(') FROM " T, BASALT_INVALID_ARG, "Failed to compile regex \"(\"");
    EXPECT_SQL_ERROR("SELECT COLUMNS(1) FROM " T, BASALT_INVALID_ARG, "COLUMNS expects either a VARCHAR");
    EXPECT_SQL_ERROR("SELECT COLUMNS('id') + COLUMNS('ix') FROM " T, BASALT_UNSUPPORTED,
                     "Multiple different STAR/COLUMNS in the same expression are not supported");
    /* in ORDER BY each copy is a key; GROUP BY, HAVING and QUALIFY refuse it as DuckDB does */
    EXPECT_SQL_ROWS("SELECT id FROM " T " ORDER BY COLUMNS('^[is]') DESC NULLS FIRST", "3;2;1;");
    EXPECT_SQL_ROWS("SELECT DISTINCT ix FROM " T " ORDER BY COLUMNS(['ix'])", "-3;10;N;");
    EXPECT_SQL_ERROR("SELECT id FROM " T " GROUP BY COLUMNS('id')", BASALT_INVALID_ARG,
                     "STAR expression is not supported here (at position 90)");
    EXPECT_SQL_ERROR("SELECT id FROM " T " QUALIFY COLUMNS('id') > 1", BASALT_INVALID_ARG,
                     "STAR expression is not supported here");
    basalt_sql_session_free(s);
}

TEST(sql_star_rename)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_NAMES("SELECT * RENAME (ix AS x) FROM " T, "id,x,s");
    EXPECT_NAMES("SELECT * RENAME ix AS x FROM " T, "id,x,s");
    EXPECT_NAMES("SELECT * RENAME (\"ix\" AS \"X Y\", 's' AS t,) FROM " T, "id,X Y,t");
    EXPECT_NAMES("SELECT * EXCLUDE (s) REPLACE (ix + 1 AS ix) RENAME (id AS k) FROM " T, "k,ix");
    EXPECT_SQL_ROWS("SELECT * REPLACE (ix * 2 AS ix) RENAME (s AS t) FROM " T " ORDER BY id",
                    "1|20|a;2|-6|b;3|N|N;");
    /* a column the star does not cover is ignored, as DuckDB does; names may repeat */
    EXPECT_NAMES("SELECT * RENAME (zz AS x, u.id AS y) FROM " T, "id,ix,s");
    EXPECT_NAMES("SELECT * RENAME (ix AS id) FROM " T, "id,id,s");
    EXPECT_NAMES("SELECT t.* RENAME (t.id AS k) FROM " T, "k,ix,s");
    /* in a join: unqualified renames both sides' columns, qualified one */
    EXPECT_NAMES("SELECT * RENAME (ix AS x) FROM " T " JOIN " T2 " USING (id)", "id,x,s,x");
    EXPECT_NAMES("SELECT * RENAME (u.ix AS x) FROM " T " JOIN " T2 " USING (id)", "id,ix,s,x");
    EXPECT_SQL_ROWS("SELECT x FROM (SELECT * RENAME (ix AS x) FROM " T ") WHERE x > 0", "10;");
    EXPECT_SQL_ROWS("SELECT * RENAME (ix AS x) FROM " T " WHERE x < 0", "2|-3|b;");
    EXPECT_SQL_ERROR("SELECT * REPLACE (1 AS ix) RENAME (ix AS x) FROM " T, BASALT_INVALID_ARG,
                     "Column \"ix\" cannot occur in both REPLACE and RENAME list (at position 35)");
    EXPECT_SQL_ERROR("SELECT * EXCLUDE (ix) RENAME (t.ix AS x) FROM " T, BASALT_INVALID_ARG,
                     "Column \"t.ix\" cannot occur in both EXCLUDE and RENAME list (at position 30)");
    EXPECT_SQL_ERROR("SELECT * RENAME (ix AS x, IX AS y) FROM " T, BASALT_INVALID_ARG,
                     "Duplicate entry \"ix\" in EXCLUDE list (at position 26)");
    EXPECT_SQL_ERROR("SELECT * RENAME (ix AS x) EXCLUDE (s) FROM " T, BASALT_INVALID_ARG,
                     "syntax error");
    EXPECT_SQL_ERROR("SELECT * RENAME (ix AS x)", BASALT_INVALID_ARG, "* matches no columns");
    basalt_sql_session_free(s);
}

TEST(sql_window_reads_aliases)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ROWS("SELECT id % 2 AS g, row_number() OVER (PARTITION BY g ORDER BY id DESC) FROM " T
                    " ORDER BY id",
                    "1|2;0|1;1|1;");
    EXPECT_SQL_ROWS("SELECT -id AS k, lag(k) OVER (ORDER BY k) FROM " T " ORDER BY id", "-1|-2;-2|-3;-3|N;");
    EXPECT_SQL_ROWS("SELECT id % 2 AS g, id FROM " T " WINDOW w AS (PARTITION BY g ORDER BY id) "
                    "QUALIFY row_number() OVER w = 1 ORDER BY id",
                    "1|1;0|2;");
    /* a column of the name wins: ix is the column, not id % 2 */
    EXPECT_SQL_ROWS("SELECT id % 2 AS ix, count(*) OVER (PARTITION BY ix) FROM " T " ORDER BY id",
                    "1|1;0|1;1|1;");
    EXPECT_SQL_ERROR("SELECT row_number() OVER (ORDER BY k), -id AS k FROM " T, BASALT_NOT_FOUND,
                     "column \"k\" not found (at position 35)");
    EXPECT_SQL_ERROR("SELECT row_number() OVER () AS r, sum(id) OVER (ORDER BY r) FROM " T,
                     BASALT_INVALID_ARG, "window function calls cannot be nested (at position 57)");
    basalt_sql_session_free(s);
}

TEST(sql_group_order_numbers)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    EXPECT_SQL_ERROR("SELECT id % 2, count(*) FROM " T " GROUP BY -1", BASALT_INVALID_ARG,
                     "GROUP BY term out of range - should be between 1 and 2 (at position 104)");
    EXPECT_SQL_ROWS("SELECT id % 2, count(*) FROM " T " GROUP BY - - 1 ORDER BY 1", "0|1;1|2;");
    EXPECT_SQL_ERROR("SELECT id FROM " T " ORDER BY -(1)", BASALT_INVALID_ARG,
                     "ORDER term out of range - should be between 1 and 1 (at position 90)");
    EXPECT_SQL_ERROR("SELECT id FROM " T " ORDER BY 'a'", BASALT_INVALID_ARG,
                     "ORDER BY non-integer literal has no effect (at position 90)");
    EXPECT_SQL_ERROR("SELECT 1 UNION SELECT 2 ORDER BY -1.5", BASALT_INVALID_ARG,
                     "ORDER BY non-integer literal has no effect (at position 33)");
    EXPECT_SQL_ROWS("SELECT id FROM " T " ORDER BY +1, -NULL, - - 1 DESC", "3;2;1;");
    basalt_sql_session_free(s);
}
