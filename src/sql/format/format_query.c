/* Canonical text of queries, FROM items and statements. Set operation
 * operands are always parenthesised and joins are written left-deep, a
 * right operand that is itself a join in parentheses, so the text reads
 * back to the same tree. */
#include "sql_internal.h"

static void idents(struct sql_out *o, const struct basalt_sql_ident *ids, int32_t n)
{
    basalt_sqlf_put(o, "(");
    for (int32_t i = 0; i < n; i++) {
        if (i)
            basalt_sqlf_put(o, ", ");
        basalt_sqlf_ident(o, &ids[i]);
    }
    basalt_sqlf_put(o, ")");
}

static void exprs(struct sql_out *o, struct basalt_sql_expr *const *items, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        if (i)
            basalt_sqlf_put(o, ", ");
        basalt_sqlf_expr(o, items[i]);
    }
}

/* A GROUP BY element with grouping sets, as the parser reads it back. */
static void grouping(struct sql_out *o, const struct basalt_sql_select *s,
                     const struct basalt_sql_grouping *g)
{
    static const char *const opening[] = {
        [BASALT_SQL_GROUPING_KEY] = "", [BASALT_SQL_GROUPING_LIST] = "(",
        [BASALT_SQL_GROUPING_ROLLUP] = "ROLLUP (", [BASALT_SQL_GROUPING_CUBE] = "CUBE (",
        [BASALT_SQL_GROUPING_SETS] = "GROUPING SETS (",
    };
    if (g->kind == BASALT_SQL_GROUPING_KEY) {
        basalt_sqlf_expr(o, s->group[g->key]);
        return;
    }
    basalt_sqlf_put(o, opening[g->kind]);
    for (int32_t i = 0; i < g->n_items; i++) {
        if (i)
            basalt_sqlf_put(o, ", ");
        grouping(o, s, &g->items[i]);
    }
    basalt_sqlf_put(o, ")");
}

static const char *const join_words[] = {
    [BASALT_SQL_JOIN_CROSS] = " CROSS JOIN ", [BASALT_SQL_JOIN_INNER] = " JOIN ",
    [BASALT_SQL_JOIN_LEFT] = " LEFT JOIN ",   [BASALT_SQL_JOIN_RIGHT] = " RIGHT JOIN ",
    [BASALT_SQL_JOIN_FULL] = " FULL JOIN ",   [BASALT_SQL_JOIN_SEMI] = " SEMI JOIN ",
    [BASALT_SQL_JOIN_ANTI] = " ANTI JOIN ",
};

void basalt_sqlf_from(struct sql_out *o, const struct basalt_sql_from *f)
{
    switch (f->kind) {
    case BASALT_SQL_FROM_TABLE:
        basalt_sqlf_name(o, &f->u.table.name);
        if (f->u.table.travel != BASALT_SQL_TRAVEL_NONE) {
            basalt_sqlf_put(o, f->u.table.travel == BASALT_SQL_TRAVEL_VERSION ? " FOR VERSION AS OF "
                                                                              : " FOR TIMESTAMP AS OF ");
            basalt_sqlf_expr(o, f->u.table.as_of);
        }
        break;
    case BASALT_SQL_FROM_FILE: basalt_sqlf_string(o, f->u.file); break;
    case BASALT_SQL_FROM_FUNCTION: basalt_sqlf_call(o, &f->u.call); break;
    case BASALT_SQL_FROM_SUBQUERY:
        basalt_sqlf_put(o, f->lateral ? "LATERAL (" : "(");
        basalt_sqlf_query(o, f->u.subquery);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_FROM_JOIN: {
        const struct basalt_sql_from *r = f->u.join.right;
        basalt_sqlf_from(o, f->u.join.left);
        basalt_sqlf_put(o, f->u.join.natural ? " NATURAL" : "");
        basalt_sqlf_put(o, join_words[f->u.join.kind]);
        if (r->kind == BASALT_SQL_FROM_JOIN)
            basalt_sqlf_put(o, "(");
        basalt_sqlf_from(o, r);
        if (r->kind == BASALT_SQL_FROM_JOIN)
            basalt_sqlf_put(o, ")");
        if (f->u.join.on) {
            basalt_sqlf_put(o, " ON ");
            basalt_sqlf_expr(o, f->u.join.on);
        } else if (f->u.join.n_using) {
            basalt_sqlf_put(o, " USING ");
            idents(o, f->u.join.using_, f->u.join.n_using);
        }
        return;
    }
    }
    if (f->alias.name) {
        basalt_sqlf_put(o, " AS ");
        basalt_sqlf_ident(o, &f->alias);
        if (f->n_column_aliases)
            idents(o, f->column_aliases, f->n_column_aliases);
    }
}

static void select_body(struct sql_out *o, const struct basalt_sql_select *s)
{
    basalt_sqlf_put(o, s->distinct ? "SELECT DISTINCT " : "SELECT ");
    if (s->n_distinct_on > 0) {
        basalt_sqlf_put(o, "DISTINCT ON (");
        for (int32_t i = 0; i < s->n_distinct_on; i++) {
            if (i)
                basalt_sqlf_put(o, ", ");
            basalt_sqlf_expr(o, s->distinct_on[i]);
        }
        basalt_sqlf_put(o, ") ");
    }
    for (int32_t i = 0; i < s->n_items; i++) {
        if (i)
            basalt_sqlf_put(o, ", ");
        basalt_sqlf_expr(o, s->items[i].expr);
        if (s->items[i].alias.name) {
            basalt_sqlf_put(o, " AS ");
            basalt_sqlf_ident(o, &s->items[i].alias);
        }
    }
    if (s->from) {
        basalt_sqlf_put(o, " FROM ");
        basalt_sqlf_from(o, s->from);
    }
    if (s->where) {
        basalt_sqlf_put(o, " WHERE ");
        basalt_sqlf_expr(o, s->where);
    }
    if (s->group_all) {
        basalt_sqlf_put(o, " GROUP BY ALL");
    } else if (s->n_grouping) {
        basalt_sqlf_put(o, " GROUP BY ");
        for (int32_t i = 0; i < s->n_grouping; i++) {
            if (i)
                basalt_sqlf_put(o, ", ");
            grouping(o, s, &s->grouping[i]);
        }
    } else if (s->n_group) {
        basalt_sqlf_put(o, " GROUP BY ");
        exprs(o, s->group, s->n_group);
    }
    if (s->having) {
        basalt_sqlf_put(o, " HAVING ");
        basalt_sqlf_expr(o, s->having);
    }
    for (int32_t i = 0; i < s->n_windows; i++) {
        basalt_sqlf_put(o, i ? ", " : " WINDOW ");
        basalt_sqlf_ident(o, &s->windows[i].name);
        basalt_sqlf_put(o, " AS ");
        basalt_sqlf_window(o, s->windows[i].window);
    }
    if (s->qualify) {
        basalt_sqlf_put(o, " QUALIFY ");
        basalt_sqlf_expr(o, s->qualify);
    }
}

static const char *const set_words[] = {
    [BASALT_SQL_SET_UNION] = " UNION ",
    [BASALT_SQL_SET_INTERSECT] = " INTERSECT ",
    [BASALT_SQL_SET_EXCEPT] = " EXCEPT ",
};

void basalt_sqlf_query(struct sql_out *o, const struct basalt_sql_query *q)
{
    for (int32_t i = 0; i < q->n_ctes; i++) {
        const struct basalt_sql_cte *c = &q->ctes[i];
        basalt_sqlf_put(o, i ? ", " : c->recursive ? "WITH RECURSIVE " : "WITH ");
        basalt_sqlf_ident(o, &c->name);
        if (c->n_columns)
            idents(o, c->columns, c->n_columns);
        basalt_sqlf_put(o, c->materialize == BASALT_SQL_CTE_MATERIALIZED       ? " AS MATERIALIZED ("
                           : c->materialize == BASALT_SQL_CTE_NOT_MATERIALIZED ? " AS NOT MATERIALIZED ("
                                                                               : " AS (");
        basalt_sqlf_query(o, c->query);
        basalt_sqlf_put(o, ")");
    }
    if (q->n_ctes)
        basalt_sqlf_put(o, " ");
    switch (q->kind) {
    case BASALT_SQL_QUERY_SELECT: select_body(o, &q->u.select); break;
    case BASALT_SQL_QUERY_SET_OP:
        basalt_sqlf_put(o, "(");
        basalt_sqlf_query(o, q->u.set_op.left);
        basalt_sqlf_put(o, ")");
        basalt_sqlf_put(o, set_words[q->u.set_op.op]);
        if (q->u.set_op.all)
            basalt_sqlf_put(o, "ALL ");
        basalt_sqlf_put(o, "(");
        basalt_sqlf_query(o, q->u.set_op.right);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_QUERY_VALUES:
        basalt_sqlf_put(o, "VALUES ");
        for (int32_t r = 0; r < q->u.values.n_rows; r++) {
            basalt_sqlf_put(o, r ? ", (" : "(");
            exprs(o, q->u.values.rows[r], q->u.values.n_columns);
            basalt_sqlf_put(o, ")");
        }
        break;
    }
    if (q->n_order) {
        basalt_sqlf_put(o, " ORDER BY ");
        basalt_sqlf_order(o, q->order, q->n_order, q->order_all);
    }
    if (q->limit) {
        basalt_sqlf_put(o, " LIMIT ");
        basalt_sqlf_expr(o, q->limit);
    }
    if (q->offset) {
        basalt_sqlf_put(o, " OFFSET ");
        basalt_sqlf_expr(o, q->offset);
    }
}

void basalt_sqlf_statement(struct sql_out *o, const struct basalt_sql_statement *s)
{
    switch (s->kind) {
    case BASALT_SQL_STMT_QUERY: basalt_sqlf_query(o, s->query); break;
    case BASALT_SQL_STMT_EXPLAIN:
        basalt_sqlf_put(o, s->analyze ? "EXPLAIN ANALYZE " : "EXPLAIN ");
        basalt_sqlf_query(o, s->query);
        break;
    case BASALT_SQL_STMT_COPY:
        basalt_sqlf_put(o, "COPY ");
        if (s->query) {
            basalt_sqlf_put(o, "(");
            basalt_sqlf_query(o, s->query);
            basalt_sqlf_put(o, ")");
        } else {
            basalt_sqlf_name(o, &s->name);
        }
        basalt_sqlf_put(o, " TO ");
        basalt_sqlf_string(o, s->copy_to);
        for (int32_t i = 0; i < s->n_options; i++) {
            basalt_sqlf_put(o, i ? ", " : " (");
            basalt_sqlf_word(o, s->options[i].name);
            if (s->options[i].value) {
                basalt_sqlf_put(o, " ");
                basalt_sqlf_expr(o, s->options[i].value);
            }
        }
        if (s->n_options)
            basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_STMT_CREATE_TABLE_AS:
    case BASALT_SQL_STMT_CREATE_TABLE:
        basalt_sqlf_put(o, s->or_replace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ");
        if (s->if_not_exists)
            basalt_sqlf_put(o, "IF NOT EXISTS ");
        basalt_sqlf_name(o, &s->name);
        if (s->kind == BASALT_SQL_STMT_CREATE_TABLE_AS) {
            basalt_sqlf_put(o, " AS ");
            basalt_sqlf_query(o, s->query);
            break;
        }
        for (int32_t i = 0; i < s->n_columns; i++) {
            basalt_sqlf_put(o, i ? ", " : " (");
            basalt_sqlf_ident(o, &s->columns[i].name);
            basalt_sqlf_put(o, " ");
            basalt_sqlf_type(o, &s->columns[i].type);
            if (s->columns[i].not_null)
                basalt_sqlf_put(o, " NOT NULL");
        }
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_STMT_INSERT:
        basalt_sqlf_put(o, "INSERT INTO ");
        basalt_sqlf_name(o, &s->name);
        if (s->n_insert_columns) {
            basalt_sqlf_put(o, " ");
            idents(o, s->insert_columns, s->n_insert_columns);
        }
        basalt_sqlf_put(o, " ");
        basalt_sqlf_query(o, s->query);
        break;
    case BASALT_SQL_STMT_DESCRIBE:
        basalt_sqlf_put(o, "DESCRIBE ");
        if (s->query)
            basalt_sqlf_query(o, s->query);
        else
            basalt_sqlf_name(o, &s->name);
        break;
    case BASALT_SQL_STMT_SHOW_TABLES: basalt_sqlf_put(o, "SHOW TABLES"); break;
    case BASALT_SQL_STMT_SET:
        basalt_sqlf_put(o, "SET ");
        basalt_sqlf_ident(o, &s->set_name);
        basalt_sqlf_put(o, " = ");
        basalt_sqlf_expr(o, s->set_value);
        break;
    case BASALT_SQL_STMT_DROP_TABLE:
        basalt_sqlf_put(o, s->if_exists ? "DROP TABLE IF EXISTS " : "DROP TABLE ");
        basalt_sqlf_name(o, &s->name);
        break;
    }
}

size_t basalt_sql_query_format(const struct basalt_sql_query *q, char *buf, size_t cap)
{
    struct sql_out o = {.buf = buf, .cap = cap};
    basalt_sqlf_query(&o, q);
    basalt_sqlf_finish(&o);
    return o.len;
}

size_t basalt_sql_statement_format(const struct basalt_sql_script *s, size_t i, char *buf, size_t cap)
{
    struct sql_out o = {.buf = buf, .cap = cap};
    const struct basalt_sql_statement *st = basalt_sql_script_statement(s, i);
    if (st)
        basalt_sqlf_statement(&o, st);
    basalt_sqlf_finish(&o);
    return o.len;
}
