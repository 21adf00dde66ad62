/* DuckDB's select-list forms (bind_star.c) with answers and messages written
 * by hand: * EXCLUDE names checked, * REPLACE in place, COLUMNS by regex,
 * star and name list, alone, inside expressions and aggregates and in WHERE,
 * each copy named by its column; errors with their positions. The
 * comparison with DuckDB is tests/sql/functions/operators.txt. */
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

#define T "(VALUES (1, 10, 'a'), (2, -3, 'b'), (3, NULL, NULL)) t(id, ix, s)"

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
    /* in WHERE the copies are ANDed */
    EXPECT_SQL_ROWS("SELECT id FROM " T " WHERE COLUMNS('^i') > 0 ORDER BY id", "1;");
    EXPECT_SQL_ERROR("SELECT COLUMNS('zzz') FROM " T, BASALT_INVALID_ARG,
                     "No matching columns found that match regex \"zzz\" (at position 7)");
    EXPECT_SQL_ERROR("SELECT COLUMNS('(') FROM " T, BASALT_INVALID_ARG, "Failed to compile regex \"(\"");
    EXPECT_SQL_ERROR("SELECT COLUMNS(1) FROM " T, BASALT_INVALID_ARG, "COLUMNS expects either a VARCHAR");
    EXPECT_SQL_ERROR("SELECT COLUMNS('id') + COLUMNS('ix') FROM " T, BASALT_UNSUPPORTED,
                     "Multiple different STAR/COLUMNS in the same expression are not supported");
    EXPECT_SQL_ERROR("SELECT id FROM " T " ORDER BY COLUMNS('id')", BASALT_UNSUPPORTED,
                     "COLUMNS(...) is supported in the select list and WHERE only");
    basalt_sql_session_free(s);
}
