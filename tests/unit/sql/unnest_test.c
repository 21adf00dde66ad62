/* unnest(l) in a select list (plan/unnest.c, bind/bind_unnest.c), with
 * DuckDB's answers written by hand: the other items repeated, empty and
 * NULL lists giving no row, several unnests zipped with NULL padding, the
 * input's order kept (a list longer than one output batch included), the
 * UNNEST node in EXPLAIN with the lists' columns pruned below it, and the
 * refusals with their positions. */
#include <stdio.h>
#include <string.h>

#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

TEST(sql_unnest_rows)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
#define L4 "(VALUES (1, [1, 2]), (2, []), (3, NULL), (4, [NULL])) t(x, l)"
    EXPECT_SQL_ROWS("SELECT x, unnest(l) FROM " L4, "1|1;1|2;4|N;");
    EXPECT_SQL_ROWS("SELECT unnest([1, 2, 3]) AS a, unnest(['x']) AS b, 7", "1|x|7;2|N|7;3|N|7;");
    EXPECT_SQL_ROWS("SELECT x, unnest(l) + 1, unnest([x]) FROM " L4, "1|2|1;1|3|N;2|N|2;3|N|3;4|N|4;");
    EXPECT_SQL_ROWS("SELECT unnest(NULL), 1", "");
    EXPECT_SQL_ROWS("SELECT count(*) FROM (SELECT unnest([]))", "0;");
    /* the list itself next to its elements; the same call twice is one */
    EXPECT_SQL_ROWS("SELECT len(l), unnest(l), unnest(l) FROM " L4 " WHERE x = 1", "2|1|1;2|2|2;");
    /* after grouping, over an aggregate's list */
    EXPECT_SQL_ROWS("SELECT g, unnest(array_agg(v ORDER BY v DESC)) FROM (VALUES (1, 5), (1, 7), "
                    "(2, 1)) t(g, v) GROUP BY g ORDER BY g",
                    "1|7;1|5;2|1;");
    /* a list longer than an output batch (65536 rows) keeps its order */
    const char *big = "SELECT unnest(l) FROM (SELECT list(range ORDER BY range) AS l FROM "
                      "range(150000))";
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    CHECK_OK(basalt_sql_session_run(s, big, strlen(big), &b, &err), &err);
    int64_t next = 0;
    bool in_order = true;
    for (int64_t k = 0; k < b.n; k++) {
        const struct ArrowArray *c = b.arrays[k].children[0];
        const int64_t *v = c->buffers[1];
        for (int64_t i = 0; i < c->length; i++)
            in_order &= v[c->offset + i] == next++;
    }
    CHECK_MSG(in_order && next == 150000, "%lld rows, in order: %d", (long long)next, in_order);
    CHECK_MSG(b.n >= 3, "%lld batches", (long long)b.n);
    basalt_arrow_batches_reset(&b);
    char got[2048];
    CHECK_OK(sql_test_rows(s, "EXPLAIN SELECT x, unnest(l) FROM " L4, got, sizeof got, &err), &err);
    CHECK_MSG(strstr(got, "UNNEST lists=1") != NULL, "%s", got);
    EXPECT_SQL_ERROR("SELECT x FROM " L4 " WHERE unnest(l) = 1", BASALT_INVALID_ARG,
                     "UNNEST not supported here (at position 82)");
    EXPECT_SQL_ERROR("SELECT sum(unnest(l)) FROM " L4, BASALT_INVALID_ARG,
                     "UNNEST not supported here");
    EXPECT_SQL_ERROR("SELECT unnest(l) AS u, count(*) FROM " L4 " GROUP BY u", BASALT_INVALID_ARG,
                     "UNNEST not supported here");
    EXPECT_SQL_ERROR("SELECT unnest(x) FROM " L4, BASALT_INVALID_ARG,
                     "UNNEST() can only be applied to lists and NULL, not INTEGER (at position 14)");
    EXPECT_SQL_ERROR("SELECT unnest(unnest(l)) FROM " L4, BASALT_INVALID_ARG,
                     "Nested UNNEST calls are not supported");
    EXPECT_SQL_ERROR("SELECT unnest(l, 2) FROM " L4, BASALT_UNSUPPORTED, "unnest takes one list");
#undef L4
    basalt_sql_session_free(s);
}
