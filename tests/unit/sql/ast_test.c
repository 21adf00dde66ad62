/* The syntax tree as the binder reads it (values, flags, positions), the
 * limits (nesting, text size), scripts, the formatter's buffer contract,
 * allocation failures, and the benchmark queries of tests/sql/queries. */
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "test.h"

static const struct basalt_sql_statement *parse1(const char *sql, struct basalt_sql_script **s)
{
    struct basalt_error err;
    if (basalt_sql_parse(sql, strlen(sql), s, &err) != BASALT_OK) {
        fprintf(stderr, "  %s: %s\n", sql, err.message);
        return NULL;
    }
    return basalt_sql_script_statement(*s, 0);
}

static const struct basalt_sql_expr *item(const struct basalt_sql_statement *st, int i)
{
    return st->query->u.select.items[i].expr;
}

TEST(sql_ast_literals)
{
    struct basalt_sql_script *s;
    const struct basalt_sql_statement *st =
        parse1("SELECT 9223372036854775807, 9223372036854775808, 007, 1.50, 'a''b', TRUE, NULL", &s);
    CHECK(st);
    CHECK_EQ(st->kind, BASALT_SQL_STMT_QUERY);
    CHECK_EQ(st->query->kind, BASALT_SQL_QUERY_SELECT);
    const struct basalt_sql_expr *e = item(st, 0);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_INTEGER);
    CHECK(e->u.lit.fits);
    CHECK_EQ(e->u.lit.i64, INT64_MAX);
    e = item(st, 1);
    CHECK(!e->u.lit.fits);
    CHECK_STR(e->u.lit.text, "9223372036854775808");
    e = item(st, 2);
    CHECK(e->u.lit.fits);
    CHECK_EQ(e->u.lit.i64, 7);
    CHECK_STR(e->u.lit.text, "007");
    e = item(st, 3);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_NUMBER);
    CHECK_STR(e->u.lit.text, "1.50");
    e = item(st, 4);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_STRING);
    CHECK_STR(e->u.lit.text, "a'b");
    CHECK_EQ(item(st, 5)->kind, BASALT_SQL_EXPR_BOOL);
    CHECK(item(st, 5)->u.lit.b);
    CHECK_EQ(item(st, 6)->kind, BASALT_SQL_EXPR_NULL);
    basalt_sql_script_free(s);
}

TEST(sql_ast_names_and_positions)
{
    struct basalt_sql_script *s;
    /* offsets: Db 7, "T" 10, + 18, 1 20, "My Table" 27 */
    const struct basalt_sql_statement *st = parse1("SELECT Db.\"T\".Col + 1 FROM \"My Table\"", &s);
    CHECK(st);
    const struct basalt_sql_expr *e = item(st, 0);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_BINARY);
    CHECK_EQ(e->u.binary.op, BASALT_SQL_BINARY_ADD);
    CHECK_EQ(e->pos, 18); /* an operator node sits at its operator */
    const struct basalt_sql_expr *c = e->u.binary.left;
    CHECK_EQ(c->kind, BASALT_SQL_EXPR_COLUMN);
    CHECK_EQ(c->pos, 7);
    CHECK_EQ(c->u.column.n_parts, 3);
    CHECK_STR(c->u.column.parts[0].name, "db");
    CHECK(!c->u.column.parts[0].quoted);
    CHECK_STR(c->u.column.parts[1].name, "T");
    CHECK(c->u.column.parts[1].quoted);
    CHECK_EQ(c->u.column.parts[1].pos, 10);
    CHECK_STR(c->u.column.parts[2].name, "col");
    CHECK_EQ(e->u.binary.right->pos, 20);
    CHECK_EQ(e->height, 2);
    const struct basalt_sql_from *f = st->query->u.select.from;
    CHECK_EQ(f->kind, BASALT_SQL_FROM_TABLE);
    CHECK_EQ(f->pos, 27);
    CHECK_STR(f->u.table.name.parts[0].name, "My Table");
    basalt_sql_script_free(s);
}

TEST(sql_ast_types_calls_windows)
{
    struct basalt_sql_script *s;
    const struct basalt_sql_statement *st = parse1(
        "SELECT CAST(x AS NUMERIC(12, 2)), x::TIMESTAMP WITH TIME ZONE, TRY_CAST(x AS geometry), "
        "f(1, name => 'v'), count(DISTINCT y) FILTER (WHERE y > 0), "
        "sum(z) OVER (PARTITION BY a ORDER BY b ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING), "
        "INTERVAL '3' MONTH, EXTRACT(Year FROM d), DATE '2024-02-29'",
        &s);
    CHECK(st);
    const struct basalt_sql_expr *e = item(st, 0);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_CAST);
    CHECK(!e->u.cast.try_cast);
    CHECK_EQ(e->u.cast.type.id, BASALT_SQL_TYPE_DECIMAL);
    CHECK_EQ(e->u.cast.type.n_params, 2);
    CHECK_EQ(e->u.cast.type.params[0], 12);
    CHECK_EQ(e->u.cast.type.params[1], 2);
    CHECK_EQ(item(st, 1)->u.cast.type.id, BASALT_SQL_TYPE_TIMESTAMPTZ);
    e = item(st, 2);
    CHECK(e->u.cast.try_cast);
    CHECK_EQ(e->u.cast.type.id, BASALT_SQL_TYPE_OTHER);
    CHECK_STR(e->u.cast.type.name, "geometry");
    e = item(st, 3);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_FUNCTION);
    CHECK_STR(e->u.call.name.name, "f");
    CHECK_EQ(e->u.call.n_args, 2);
    CHECK(e->u.call.arg_names && !e->u.call.arg_names[0]);
    CHECK_STR(e->u.call.arg_names[1], "name");
    e = item(st, 4);
    CHECK(e->u.call.distinct && e->u.call.filter && !e->u.call.over);
    CHECK(item(st, 3)->u.call.arg_names != NULL && item(st, 4)->u.call.arg_names == NULL);
    const struct basalt_sql_window *w = item(st, 5)->u.call.over;
    CHECK(w && w->parenthesised && !w->ref.name);
    CHECK_EQ(w->n_partition, 1);
    CHECK_EQ(w->n_order, 1);
    CHECK_EQ(w->order[0].dir, BASALT_SQL_ORDER_DEFAULT);
    CHECK_EQ(w->frame, BASALT_SQL_FRAME_ROWS);
    CHECK_EQ(w->start.kind, BASALT_SQL_BOUND_PRECEDING);
    CHECK_EQ(w->start.offset->u.lit.i64, 2);
    CHECK_EQ(w->end.kind, BASALT_SQL_BOUND_FOLLOWING);
    e = item(st, 6);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_INTERVAL);
    CHECK_EQ(e->u.interval.unit, BASALT_SQL_UNIT_MONTH);
    CHECK_STR(e->u.interval.value->u.lit.text, "3");
    CHECK_STR(item(st, 7)->u.extract.part, "year");
    e = item(st, 8);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_TYPED_LITERAL);
    CHECK_EQ(e->u.typed.type.id, BASALT_SQL_TYPE_DATE);
    CHECK_STR(e->u.typed.text, "2024-02-29");
    basalt_sql_script_free(s);
}

TEST(sql_ast_statements)
{
    struct basalt_sql_script *s;
    struct basalt_error err;
    const char *sql = "EXPLAIN ANALYZE SELECT 1; ; COPY (SELECT 1) TO 'x.parquet' (FORMAT parquet, HEADER);"
                      "CREATE TABLE t (a INT NOT NULL, b TEXT); INSERT INTO t (a) VALUES (1);"
                      "SET threads = 2; DROP TABLE IF EXISTS t; SELECT * FROM t FOR VERSION AS OF 7;";
    CHECK_OK(basalt_sql_parse(sql, strlen(sql), &s, &err), &err);
    CHECK_EQ(basalt_sql_script_count(s), 7);
    const struct basalt_sql_statement *st = basalt_sql_script_statement(s, 0);
    CHECK(st->kind == BASALT_SQL_STMT_EXPLAIN && st->analyze);
    st = basalt_sql_script_statement(s, 1);
    CHECK_EQ(st->kind, BASALT_SQL_STMT_COPY);
    CHECK_STR(st->copy_to, "x.parquet");
    CHECK_EQ(st->n_options, 2);
    CHECK_STR(st->options[0].name, "format");
    CHECK_STR(st->options[0].value->u.lit.text, "parquet");
    CHECK(st->options[1].value == NULL);
    st = basalt_sql_script_statement(s, 2);
    CHECK_EQ(st->kind, BASALT_SQL_STMT_CREATE_TABLE);
    CHECK_EQ(st->n_columns, 2);
    CHECK(st->columns[0].not_null && !st->columns[1].not_null);
    CHECK_EQ(st->columns[1].type.id, BASALT_SQL_TYPE_VARCHAR);
    st = basalt_sql_script_statement(s, 3);
    CHECK_EQ(st->kind, BASALT_SQL_STMT_INSERT);
    CHECK_EQ(st->n_insert_columns, 1);
    CHECK_EQ(st->query->kind, BASALT_SQL_QUERY_VALUES);
    st = basalt_sql_script_statement(s, 4);
    CHECK_EQ(st->kind, BASALT_SQL_STMT_SET);
    CHECK_STR(st->set_name.name, "threads");
    CHECK_EQ(st->set_value->u.lit.i64, 2);
    st = basalt_sql_script_statement(s, 5);
    CHECK(st->kind == BASALT_SQL_STMT_DROP_TABLE && st->if_exists);
    st = basalt_sql_script_statement(s, 6);
    const struct basalt_sql_from *f = st->query->u.select.from;
    CHECK_EQ(f->u.table.travel, BASALT_SQL_TRAVEL_VERSION);
    CHECK_EQ(f->u.table.as_of->u.lit.i64, 7);
    CHECK(basalt_sql_script_statement(s, 7) == NULL);

    /* The formatter's buffer contract: the full length back, the text cut
     * to fit with its NUL. */
    char small[8];
    size_t need = basalt_sql_statement_format(s, 0, small, sizeof(small));
    CHECK_EQ(need, strlen("EXPLAIN ANALYZE SELECT 1"));
    CHECK_STR(small, "EXPLAIN");
    CHECK_EQ(basalt_sql_statement_format(s, 0, NULL, 0), need);
    CHECK_EQ(basalt_sql_statement_format(s, 99, small, sizeof(small)), 0);
    CHECK_STR(small, "");
    basalt_sql_script_free(s);

    /* Empty scripts, comments only, text not NUL-terminated. */
    CHECK_OK(basalt_sql_parse("", 0, &s, &err), &err);
    CHECK_EQ(basalt_sql_script_count(s), 0);
    basalt_sql_script_free(s);
    CHECK_OK(basalt_sql_parse(" -- nothing\n ; /* */ ;", 22, &s, &err), &err);
    CHECK_EQ(basalt_sql_script_count(s), 0);
    basalt_sql_script_free(s);
    CHECK_OK(basalt_sql_parse("SELECT 1garbage", 8, &s, &err), &err);
    CHECK_EQ(basalt_sql_script_count(s), 1);
    basalt_sql_script_free(s);
    basalt_sql_script_free(NULL);
}

/* `n` copies of `unit` between `head` and `tail`. */
static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * n + tl + 1), *at = s;
    memcpy(at, head, hl);
    at += hl;
    for (size_t i = 0; i < n; i++, at += ul)
        memcpy(at, unit, ul);
    memcpy(at, tail, tl + 1);
    return s;
}

static basalt_status parse_status(const char *sql, char *msg, size_t cap)
{
    struct basalt_sql_script *s = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_sql_parse(sql, strlen(sql), &s, &err);
    snprintf(msg, cap, "%s", err.message);
    basalt_sql_script_free(s);
    return st;
}

/* GROUP BY with grouping sets: every key in `group` as written, the
 * elements pointing at them. */
TEST(sql_ast_grouping_sets)
{
    struct basalt_sql_script *s;
    const struct basalt_sql_statement *st =
        parse1("SELECT 1 FROM t GROUP BY a, ROLLUP (b, (c, a + 1)), GROUPING SETS (CUBE (d), ())", &s);
    CHECK(st);
    const struct basalt_sql_select *q = &st->query->u.select;
    CHECK_EQ(q->n_group, 5);
    CHECK_EQ(q->group[3]->kind, BASALT_SQL_EXPR_BINARY);
    CHECK_EQ(q->n_grouping, 3);
    CHECK_EQ(q->grouping[0].kind, BASALT_SQL_GROUPING_KEY);
    CHECK_EQ(q->grouping[0].key, 0);
    const struct basalt_sql_grouping *r = &q->grouping[1];
    CHECK_EQ(r->kind, BASALT_SQL_GROUPING_ROLLUP);
    CHECK_EQ(r->pos, 28);
    CHECK_EQ(r->n_items, 2);
    CHECK_EQ(r->items[0].key, 1);
    CHECK_EQ(r->items[1].kind, BASALT_SQL_GROUPING_LIST);
    CHECK_EQ(r->items[1].n_items, 2);
    CHECK_EQ(r->items[1].items[1].key, 3);
    CHECK_EQ(r->items[1].items[1].pos, 45); /* a key's: its expression's, the + */
    const struct basalt_sql_grouping *g = &q->grouping[2];
    CHECK_EQ(g->kind, BASALT_SQL_GROUPING_SETS);
    CHECK_EQ(g->n_items, 2);
    CHECK_EQ(g->items[0].kind, BASALT_SQL_GROUPING_CUBE);
    CHECK_EQ(g->items[0].items[0].key, 4);
    CHECK_EQ(g->items[1].kind, BASALT_SQL_GROUPING_LIST);
    CHECK_EQ(g->items[1].n_items, 0);
    basalt_sql_script_free(s);
    /* plain keys, parenthesised or not: no elements */
    st = parse1("SELECT 1 FROM t GROUP BY a, (b), (c + 1) * 2", &s);
    CHECK(st);
    CHECK_EQ(st->query->u.select.n_group, 3);
    CHECK_EQ(st->query->u.select.n_grouping, 0);
    CHECK(st->query->u.select.grouping == NULL);
    basalt_sql_script_free(s);
}

TEST(sql_nesting_limits)
{
    char msg[BASALT_ERROR_MESSAGE_MAX];
    struct {
        const char *head, *unit, *tail;
        size_t ok, bad; /* a count that parses, one that hits LIMIT */
    } shapes[] = {
        {"SELECT ", "(", "1", 200, 100000}, /* unbalanced on purpose: the limit comes first */
        {"SELECT ", "- ", "1", 500, 100000},
        {"SELECT ", "NOT ", "x", 500, 100000},
        {"SELECT 1", " + 1", "", 900, 100000},
        {"SELECT 1", " AND x", "", 900, 5000},
        {"SELECT x", "::int", "", 900, 5000},
        {"SELECT 1", " UNION SELECT 1", "", 900, 5000},
        {"SELECT * FROM t", " JOIN t USING (k)", "", 900, 5000},
        {"SELECT * FROM t", ", t", "", 900, 5000},
        {"SELECT ", "(SELECT ", "1", 200, 5000},
        {"SELECT ", "f(", "1", 200, 100000},
        {"SELECT * FROM ", "(", "t", 200, 100000},
        {"SELECT ", "CASE WHEN x THEN ", "1", 200, 100000},
        {"SELECT ", "[", "1", 200, 100000},
        {"SELECT 1 FROM t GROUP BY ", "GROUPING SETS (", "a", 200, 100000},
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        char *bad = repeat(shapes[i].head, shapes[i].unit, shapes[i].bad, shapes[i].tail);
        basalt_status st = parse_status(bad, msg, sizeof(msg));
        free(bad);
        CHECK_MSG(st == BASALT_LIMIT, "shape %zu: %s %s", i, basalt_status_name(st), msg);
        CHECK_MSG(strstr(msg, "nested deeper than 1000 levels"), "shape %zu: %s", i, msg);
    }
    /* The same shapes, balanced and within the limit, parse. */
    const char *closers[] = {")", "", "", "", "", "", "", "", "", ")", ")", ")", " END", "]", ")"};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        char *tail = repeat(shapes[i].tail, closers[i], shapes[i].ok, "");
        char *good = repeat(shapes[i].head, shapes[i].unit, shapes[i].ok, tail);
        basalt_status st = parse_status(good, msg, sizeof(msg));
        free(tail);
        free(good);
        CHECK_MSG(st == BASALT_OK, "shape %zu: %s %s", i, basalt_status_name(st), msg);
    }
}

TEST(sql_nul_bytes)
{
    /* A NUL in a quoted name or string (the fuzzer's first find: the name
     * was cut at the NUL and its canonical text no longer parsed). */
    static const char q[] = "SELECT 1 AS \"a\0b\", 'x\0y'";
    struct basalt_sql_script *s = NULL;
    struct basalt_error err;
    CHECK_STATUS(basalt_sql_parse(q, sizeof(q) - 1, &s, &err), BASALT_INVALID_ARG, &err);
    CHECK_STR(err.message, "NUL byte in a quoted string or identifier (at position 14)");
    static const char bare[] = "SELECT 1\0";
    CHECK_STATUS(basalt_sql_parse(bare, sizeof(bare) - 1, &s, &err), BASALT_INVALID_ARG, &err);
    CHECK_STR(err.message, "syntax error at or near byte 0x00 (at position 8)");
}

TEST(sql_text_limit)
{
    size_t n = BASALT_SQL_MAX_TEXT + 1;
    char *big = malloc(n);
    memset(big, ' ', n);
    memcpy(big, "SELECT 1", 8);
    struct basalt_sql_script *s = NULL;
    struct basalt_error err;
    CHECK_STATUS(basalt_sql_parse(big, n, &s, &err), BASALT_LIMIT, &err);
    /* Exactly the limit is fine. */
    CHECK_OK(basalt_sql_parse(big, n - 1, &s, &err), &err);
    basalt_sql_script_free(s);
    free(big);
}

static basalt_status parse_and_format(void *ctx)
{
    const char *sql = ctx;
    struct basalt_sql_script *s = NULL;
    basalt_status st = basalt_sql_parse(sql, strlen(sql), &s, NULL);
    if (st == BASALT_OK) {
        char buf[64];
        basalt_sql_statement_format(s, 0, buf, sizeof(buf));
        basalt_sql_script_free(s);
    }
    return st;
}

/* A statement that fails late: every attempt must end in NOMEM or the
 * syntax error, with nothing leaked. */
static basalt_status parse_bad(void *ctx)
{
    const char *sql = ctx;
    struct basalt_sql_script *s = NULL;
    basalt_status st = basalt_sql_parse(sql, strlen(sql), &s, NULL);
    if (s)
        return BASALT_INTERNAL;
    return st == BASALT_INVALID_ARG ? BASALT_OK : st;
}

TEST(sql_alloc_failures)
{
    CHECK_ALLOC_SWEEP(parse_bad, (void *)"SELECT a, b + 1, f(x ORDER BY y) FROM t JOIN u USING (k) WHERE x IN (1, 2) AND");
    CHECK_ALLOC_SWEEP(parse_and_format,
                      (void *)"WITH a AS (SELECT x, count(*) FILTER (WHERE y) OVER (PARTITION BY z) AS c "
                              "FROM read_parquet(['a', 'b'], hive => true) t(x, y, z) JOIN u USING (x) "
                              "WHERE x IN (SELECT 1 UNION SELECT 2) GROUP BY ALL ORDER BY 1 LIMIT 3) "
                              "SELECT CASE WHEN c > 1 THEN CAST(c AS DECIMAL(9,2)) END FROM a; SET threads = 2");
}

/* ------------------------------------------------------------------ benchmark queries */

static char *read_query(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/sql/queries/%s", BASALT_TEST_SOURCE_DIR, rel);
    return (char *)bt_read_file(path, len);
}

/* Parses one query file: one statement, a query, whose canonical text
 * parses back to itself. Returns the canonical text (malloc'd) or NULL. */
static char *check_query_file(const char *rel)
{
    size_t len;
    char *sql = read_query(rel, &len);
    if (!sql) {
        bt_fail(__FILE__, __LINE__, "cannot read %s", rel);
        return NULL;
    }
    struct basalt_sql_script *s = NULL, *s2 = NULL;
    struct basalt_error err;
    basalt_status st = basalt_sql_parse(sql, len, &s, &err);
    basalt_free(sql);
    if (st != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "%s: %s", rel, err.message);
        return NULL;
    }
    char *text = NULL;
    if (basalt_sql_script_count(s) != 1 || basalt_sql_script_statement(s, 0)->kind != BASALT_SQL_STMT_QUERY) {
        bt_fail(__FILE__, __LINE__, "%s: not one query", rel);
    } else {
        size_t n = basalt_sql_statement_format(s, 0, NULL, 0);
        text = malloc(n + 1);
        basalt_sql_statement_format(s, 0, text, n + 1);
        char *again = NULL;
        if (basalt_sql_parse(text, n, &s2, &err) == BASALT_OK) {
            size_t n2 = basalt_sql_statement_format(s2, 0, NULL, 0);
            again = malloc(n2 + 1);
            basalt_sql_statement_format(s2, 0, again, n2 + 1);
        }
        if (!again || strcmp(again, text) != 0)
            bt_fail(__FILE__, __LINE__, "%s: round trip differs:\n  %s\n  %s", rel, text, again ? again : err.message);
        free(again);
    }
    basalt_sql_script_free(s);
    basalt_sql_script_free(s2);
    return text;
}

TEST(sql_tpch_queries)
{
    for (int q = 1; q <= 22; q++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "tpch/q%02d.sql", q);
        char *text = check_query_file(rel);
        if (q == 14 && text)
            CHECK_STR(text,
                      "SELECT ((100.00 * sum(CASE WHEN (p_type LIKE 'PROMO%') THEN (l_extendedprice * "
                      "(1 - l_discount)) ELSE 0 END)) / sum((l_extendedprice * (1 - l_discount)))) AS "
                      "promo_revenue FROM lineitem CROSS JOIN part WHERE (((l_partkey = p_partkey) AND "
                      "(l_shipdate >= DATE '1995-09-01')) AND (l_shipdate < (DATE '1995-09-01' + "
                      "INTERVAL '1' MONTH)))");
        if (q == 22 && text)
            CHECK_MSG(strstr(text, "substring(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')") &&
                          strstr(text, "(NOT EXISTS (SELECT * FROM orders WHERE (o_custkey = c_custkey)))"),
                      "%s", text);
        free(text);
    }
}

TEST(sql_h2o_queries)
{
    for (int q = 1; q <= 15; q++) {
        char rel[64];
        if (q <= 10)
            snprintf(rel, sizeof(rel), "h2o/groupby_q%d.sql", q);
        else
            snprintf(rel, sizeof(rel), "h2o/join_q%d.sql", q - 10);
        char *text = check_query_file(rel);
        if (q == 8 && text)
            CHECK_STR(text, "SELECT id6, v3 AS largest2_v3 FROM (SELECT id6, v3, row_number() OVER "
                            "(PARTITION BY id6 ORDER BY v3 DESC) AS order_v3 FROM x WHERE (v3 IS NOT NULL)) "
                            "AS sub_query WHERE (order_v3 <= 2)");
        if (q == 11 && text)
            CHECK_STR(text, "SELECT x.*, small.id4 AS small_id4, v2 FROM x JOIN small USING (id1)");
        free(text);
    }
}

/* DuckDB's operators and select-list forms in the tree: operator nodes at
 * their operator, SIMILAR TO as a LIKE node with `similar`, prefix ~, the
 * star's REPLACE items with their heights, FROM-first as its SELECT. */
TEST(sql_ast_duckdb_forms)
{
    struct basalt_sql_script *s;
    /* offsets: ** 9, ~ 15, SIMILAR 22, ~~ 40 */
    const struct basalt_sql_statement *st =
        parse1("SELECT a ** b, ~ c, d SIMILAR TO 'x', e ~~ f, * EXCLUDE (g) REPLACE ((h + 1) * 2 AS h)", &s);
    CHECK(st);
    const struct basalt_sql_expr *e = item(st, 0);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_BINARY);
    CHECK_EQ(e->u.binary.op, BASALT_SQL_BINARY_POW);
    CHECK_EQ(e->pos, 9);
    CHECK_STR(basalt_sql_operator_text(e->u.binary.op), "**");
    e = item(st, 1);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_UNARY);
    CHECK_EQ(e->u.unary.op, BASALT_SQL_UNARY_BIT_NOT);
    CHECK_EQ(e->pos, 15);
    e = item(st, 2);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_LIKE);
    CHECK(e->u.like.similar && !e->u.like.ilike && !e->u.like.negated);
    CHECK_EQ(e->pos, 22);
    e = item(st, 3);
    CHECK_EQ(e->u.binary.op, BASALT_SQL_BINARY_LIKE);
    CHECK_EQ(e->pos, 40);
    e = item(st, 4);
    CHECK_EQ(e->kind, BASALT_SQL_EXPR_STAR);
    CHECK_EQ(e->u.star.n_exclude, 1);
    CHECK_EQ(e->u.star.n_replace, 1);
    CHECK_STR(e->u.star.replace[0].alias.name, "h");
    CHECK_EQ(e->u.star.replace[0].expr->height, 3);
    CHECK_EQ(e->height, 4);
    CHECK(basalt_sql_operator_text(BASALT_SQL_BINARY_ADD) == NULL);
    basalt_sql_script_free(s);

    st = parse1("FROM t WHERE x", &s);
    CHECK(st);
    CHECK_EQ(st->query->kind, BASALT_SQL_QUERY_SELECT);
    CHECK_EQ(st->query->u.select.n_items, 1);
    CHECK_EQ(item(st, 0)->kind, BASALT_SQL_EXPR_STAR);
    CHECK(st->query->u.select.from && st->query->u.select.where);
    basalt_sql_script_free(s);
}
