/* Canonical text of expressions: every operator application in
 * parentheses, keywords upper-case, identifiers as stored. The parser reads
 * it back to the same tree. */
#include <string.h>

#include "sql_internal.h"

static const char *const binary_ops[] = {
    [BASALT_SQL_BINARY_ADD] = "+",
    [BASALT_SQL_BINARY_SUB] = "-",
    [BASALT_SQL_BINARY_MUL] = "*",
    [BASALT_SQL_BINARY_DIV] = "/",
    [BASALT_SQL_BINARY_INTDIV] = "//",
    [BASALT_SQL_BINARY_MOD] = "%",
    [BASALT_SQL_BINARY_CONCAT] = "||",
    [BASALT_SQL_BINARY_EQ] = "=",
    [BASALT_SQL_BINARY_NE] = "<>",
    [BASALT_SQL_BINARY_LT] = "<",
    [BASALT_SQL_BINARY_LE] = "<=",
    [BASALT_SQL_BINARY_GT] = ">",
    [BASALT_SQL_BINARY_GE] = ">=",
    [BASALT_SQL_BINARY_AND] = "AND",
    [BASALT_SQL_BINARY_OR] = "OR",
    [BASALT_SQL_BINARY_IS_DISTINCT] = "IS DISTINCT FROM",
    [BASALT_SQL_BINARY_IS_NOT_DISTINCT] = "IS NOT DISTINCT FROM",
    [BASALT_SQL_BINARY_POW] = "**",
    [BASALT_SQL_BINARY_CARET] = "^",
    [BASALT_SQL_BINARY_BIT_AND] = "&",
    [BASALT_SQL_BINARY_BIT_OR] = "|",
    [BASALT_SQL_BINARY_SHIFT_LEFT] = "<<",
    [BASALT_SQL_BINARY_SHIFT_RIGHT] = ">>",
    [BASALT_SQL_BINARY_STARTS_WITH] = "^@",
    [BASALT_SQL_BINARY_REGEX] = "~",
    [BASALT_SQL_BINARY_NOT_REGEX] = "!~",
    [BASALT_SQL_BINARY_LIKE] = "~~",
    [BASALT_SQL_BINARY_NOT_LIKE] = "!~~",
    [BASALT_SQL_BINARY_ILIKE] = "~~*",
    [BASALT_SQL_BINARY_NOT_ILIKE] = "!~~*",
};

const char *basalt_sql_operator_text(enum basalt_sql_binary_op op)
{
    return op >= BASALT_SQL_BINARY_POW && op <= BASALT_SQL_BINARY_NOT_ILIKE ? binary_ops[op] : NULL;
}

static const char *const units[] = {
    [BASALT_SQL_UNIT_NONE] = "",
    [BASALT_SQL_UNIT_YEAR] = "YEAR",
    [BASALT_SQL_UNIT_QUARTER] = "QUARTER",
    [BASALT_SQL_UNIT_MONTH] = "MONTH",
    [BASALT_SQL_UNIT_WEEK] = "WEEK",
    [BASALT_SQL_UNIT_DAY] = "DAY",
    [BASALT_SQL_UNIT_HOUR] = "HOUR",
    [BASALT_SQL_UNIT_MINUTE] = "MINUTE",
    [BASALT_SQL_UNIT_SECOND] = "SECOND",
    [BASALT_SQL_UNIT_MILLISECOND] = "MILLISECOND",
    [BASALT_SQL_UNIT_MICROSECOND] = "MICROSECOND",
};

static void exprs(struct sql_out *o, struct basalt_sql_expr *const *items, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        if (i)
            basalt_sqlf_put(o, ", ");
        basalt_sqlf_expr(o, items[i]);
    }
}

void basalt_sqlf_order(struct sql_out *o, const struct basalt_sql_order_item *items, int32_t n, bool all)
{
    for (int32_t i = 0; i < n; i++) {
        if (i)
            basalt_sqlf_put(o, ", ");
        if (all)
            basalt_sqlf_put(o, "ALL");
        else
            basalt_sqlf_expr(o, items[i].expr);
        if (items[i].dir == BASALT_SQL_ORDER_ASC)
            basalt_sqlf_put(o, " ASC");
        else if (items[i].dir == BASALT_SQL_ORDER_DESC)
            basalt_sqlf_put(o, " DESC");
        if (items[i].nulls == BASALT_SQL_NULLS_FIRST)
            basalt_sqlf_put(o, " NULLS FIRST");
        else if (items[i].nulls == BASALT_SQL_NULLS_LAST)
            basalt_sqlf_put(o, " NULLS LAST");
    }
}

static void bound(struct sql_out *o, const struct basalt_sql_frame_bound *b)
{
    switch (b->kind) {
    case BASALT_SQL_BOUND_UNBOUNDED_PRECEDING: basalt_sqlf_put(o, "UNBOUNDED PRECEDING"); break;
    case BASALT_SQL_BOUND_CURRENT_ROW: basalt_sqlf_put(o, "CURRENT ROW"); break;
    case BASALT_SQL_BOUND_UNBOUNDED_FOLLOWING: basalt_sqlf_put(o, "UNBOUNDED FOLLOWING"); break;
    case BASALT_SQL_BOUND_PRECEDING:
    case BASALT_SQL_BOUND_FOLLOWING:
        basalt_sqlf_expr(o, b->offset);
        basalt_sqlf_put(o, b->kind == BASALT_SQL_BOUND_PRECEDING ? " PRECEDING" : " FOLLOWING");
        break;
    }
}

void basalt_sqlf_window(struct sql_out *o, const struct basalt_sql_window *w)
{
    if (!w->parenthesised) {
        basalt_sqlf_ident(o, &w->ref);
        return;
    }
    const char *sep = "";
    basalt_sqlf_put(o, "(");
    if (w->ref.name) {
        basalt_sqlf_ident(o, &w->ref);
        sep = " ";
    }
    if (w->n_partition) {
        basalt_sqlf_put(o, sep);
        basalt_sqlf_put(o, "PARTITION BY ");
        exprs(o, w->partition, w->n_partition);
        sep = " ";
    }
    if (w->n_order) {
        basalt_sqlf_put(o, sep);
        basalt_sqlf_put(o, "ORDER BY ");
        basalt_sqlf_order(o, w->order, w->n_order, false);
        sep = " ";
    }
    if (w->frame != BASALT_SQL_FRAME_NONE) {
        basalt_sqlf_put(o, sep);
        basalt_sqlf_put(o, w->frame == BASALT_SQL_FRAME_ROWS    ? "ROWS BETWEEN "
                           : w->frame == BASALT_SQL_FRAME_RANGE ? "RANGE BETWEEN "
                                                                : "GROUPS BETWEEN ");
        bound(o, &w->start);
        basalt_sqlf_put(o, " AND ");
        bound(o, &w->end);
        switch (w->exclude) {
        case BASALT_SQL_EXCLUDE_CURRENT_ROW: basalt_sqlf_put(o, " EXCLUDE CURRENT ROW"); break;
        case BASALT_SQL_EXCLUDE_GROUP: basalt_sqlf_put(o, " EXCLUDE GROUP"); break;
        case BASALT_SQL_EXCLUDE_TIES: basalt_sqlf_put(o, " EXCLUDE TIES"); break;
        case BASALT_SQL_EXCLUDE_NONE: break;
        }
    }
    basalt_sqlf_put(o, ")");
}

void basalt_sqlf_call(struct sql_out *o, const struct basalt_sql_call *c)
{
    /* position(haystack, needle) as DuckDB writes (and alone parses) it */
    if (!c->name.quoted && strcmp(c->name.name, "position") == 0 && c->n_args == 2 &&
        c->arg_names == NULL && c->filter == NULL && c->over == NULL) {
        basalt_sqlf_put(o, "position(");
        basalt_sqlf_expr(o, c->args[1]);
        basalt_sqlf_put(o, " IN ");
        basalt_sqlf_expr(o, c->args[0]);
        basalt_sqlf_put(o, ")");
        return;
    }
    /* grouping(a) and grouping_id(a) are GROUPING(a) to DuckDB, which
     * names their columns so */
    if (c->unpack)
        basalt_sqlf_put(o, "*");
    if (!c->name.quoted &&
        (strcmp(c->name.name, "grouping") == 0 || strcmp(c->name.name, "grouping_id") == 0))
        basalt_sqlf_put(o, "GROUPING");
    else
        basalt_sqlf_ident(o, &c->name);
    basalt_sqlf_put(o, "(");
    if (c->star)
        basalt_sqlf_put(o, "*");
    if (c->distinct)
        basalt_sqlf_put(o, "DISTINCT ");
    for (int32_t i = 0; i < c->n_args; i++) {
        if (i)
            basalt_sqlf_put(o, ", ");
        if (c->arg_names && c->arg_names[i]) {
            basalt_sqlf_word(o, c->arg_names[i]);
            basalt_sqlf_put(o, " => ");
        }
        basalt_sqlf_expr(o, c->args[i]);
    }
    if (c->n_order) {
        basalt_sqlf_put(o, " ORDER BY ");
        basalt_sqlf_order(o, c->order, c->n_order, false);
    }
    basalt_sqlf_put(o, ")");
    if (c->filter) {
        basalt_sqlf_put(o, " FILTER (WHERE ");
        basalt_sqlf_expr(o, c->filter);
        basalt_sqlf_put(o, ")");
    }
    if (c->over) {
        basalt_sqlf_put(o, " OVER ");
        basalt_sqlf_window(o, c->over);
    }
}

static bool is_literal(const struct basalt_sql_expr *e)
{
    return e->kind == BASALT_SQL_EXPR_STRING || e->kind == BASALT_SQL_EXPR_INTEGER ||
           e->kind == BASALT_SQL_EXPR_NUMBER;
}

void basalt_sqlf_expr(struct sql_out *o, const struct basalt_sql_expr *e)
{
    if (e->written != NULL) {
        basalt_sqlf_put(o, "(");
        basalt_sqlf_expr(o, e->written->arg);
        basalt_sqlf_put(o, " ");
        basalt_sqlf_put(o, binary_ops[e->written->op]);
        basalt_sqlf_put(o, " ANY(");
        basalt_sqlf_query(o, e->written->query);
        basalt_sqlf_put(o, "))");
        return;
    }
    switch (e->kind) {
    case BASALT_SQL_EXPR_INTEGER:
    case BASALT_SQL_EXPR_NUMBER: basalt_sqlf_put(o, e->u.lit.text); break;
    case BASALT_SQL_EXPR_STRING: basalt_sqlf_string(o, e->u.lit.text); break;
    case BASALT_SQL_EXPR_BOOL: basalt_sqlf_put(o, e->u.lit.b ? "TRUE" : "FALSE"); break;
    case BASALT_SQL_EXPR_NULL: basalt_sqlf_put(o, "NULL"); break;
    case BASALT_SQL_EXPR_TYPED_LITERAL:
        basalt_sqlf_type(o, &e->u.typed.type);
        basalt_sqlf_put(o, " ");
        basalt_sqlf_string(o, e->u.typed.text);
        break;
    case BASALT_SQL_EXPR_INTERVAL:
        basalt_sqlf_put(o, "INTERVAL ");
        if (is_literal(e->u.interval.value)) {
            basalt_sqlf_expr(o, e->u.interval.value);
        } else {
            basalt_sqlf_put(o, "(");
            basalt_sqlf_expr(o, e->u.interval.value);
            basalt_sqlf_put(o, ")");
        }
        if (e->u.interval.unit != BASALT_SQL_UNIT_NONE) {
            basalt_sqlf_put(o, " ");
            basalt_sqlf_put(o, units[e->u.interval.unit]);
        }
        break;
    case BASALT_SQL_EXPR_COLUMN: basalt_sqlf_name(o, &e->u.column); break;
    case BASALT_SQL_EXPR_STAR:
        if (e->u.star.qualifier.n_parts) {
            basalt_sqlf_name(o, &e->u.star.qualifier);
            basalt_sqlf_put(o, ".");
        }
        basalt_sqlf_put(o, "*");
        if (e->u.star.n_exclude) {
            basalt_sqlf_put(o, " EXCLUDE (");
            for (int32_t i = 0; i < e->u.star.n_exclude; i++) {
                if (i)
                    basalt_sqlf_put(o, ", ");
                basalt_sqlf_name(o, &e->u.star.exclude[i]);
            }
            basalt_sqlf_put(o, ")");
        }
        if (e->u.star.n_replace) {
            basalt_sqlf_put(o, " REPLACE (");
            for (int32_t i = 0; i < e->u.star.n_replace; i++) {
                if (i)
                    basalt_sqlf_put(o, ", ");
                basalt_sqlf_expr(o, e->u.star.replace[i].expr);
                basalt_sqlf_put(o, " AS ");
                basalt_sqlf_ident(o, &e->u.star.replace[i].alias);
            }
            basalt_sqlf_put(o, ")");
        }
        if (e->u.star.n_rename) {
            basalt_sqlf_put(o, " RENAME (");
            for (int32_t i = 0; i < e->u.star.n_rename; i++) {
                if (i)
                    basalt_sqlf_put(o, ", ");
                basalt_sqlf_name(o, &e->u.star.rename[i].column);
                basalt_sqlf_put(o, " AS ");
                basalt_sqlf_ident(o, &e->u.star.rename[i].alias);
            }
            basalt_sqlf_put(o, ")");
        }
        break;
    case BASALT_SQL_EXPR_UNARY:
        /* `(~ x)`: a space, since `~-1` would lex as the operator `~-` */
        basalt_sqlf_put(o, e->u.unary.op == BASALT_SQL_UNARY_MINUS     ? "(-"
                           : e->u.unary.op == BASALT_SQL_UNARY_PLUS    ? "(+"
                           : e->u.unary.op == BASALT_SQL_UNARY_BIT_NOT ? "(~ "
                                                                       : "(NOT ");
        /* `(- *columns(x))`: `-*` would lex as one operator */
        if (e->u.unary.arg->kind == BASALT_SQL_EXPR_FUNCTION && e->u.unary.arg->u.call.unpack)
            basalt_sqlf_put(o, " ");
        basalt_sqlf_expr(o, e->u.unary.arg);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_EXPR_BINARY:
        basalt_sqlf_put(o, "(");
        basalt_sqlf_expr(o, e->u.binary.left);
        basalt_sqlf_put(o, " ");
        basalt_sqlf_put(o, binary_ops[e->u.binary.op]);
        basalt_sqlf_put(o, " ");
        basalt_sqlf_expr(o, e->u.binary.right);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_EXPR_IS:
        basalt_sqlf_put(o, "(");
        basalt_sqlf_expr(o, e->u.is.arg);
        basalt_sqlf_put(o, e->u.is.negated ? " IS NOT " : " IS ");
        basalt_sqlf_put(o, e->u.is.what == BASALT_SQL_IS_NULL   ? "NULL)"
                           : e->u.is.what == BASALT_SQL_IS_TRUE ? "TRUE)"
                                                                : "FALSE)");
        break;
    case BASALT_SQL_EXPR_BETWEEN:
        basalt_sqlf_put(o, "(");
        basalt_sqlf_expr(o, e->u.between.arg);
        basalt_sqlf_put(o, e->u.between.negated ? " NOT BETWEEN " : " BETWEEN ");
        basalt_sqlf_expr(o, e->u.between.low);
        basalt_sqlf_put(o, " AND ");
        basalt_sqlf_expr(o, e->u.between.high);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_EXPR_IN_LIST:
        basalt_sqlf_put(o, "(");
        basalt_sqlf_expr(o, e->u.in_list.arg);
        basalt_sqlf_put(o, e->u.in_list.negated ? " NOT IN (" : " IN (");
        exprs(o, e->u.in_list.items, e->u.in_list.n_items);
        basalt_sqlf_put(o, "))");
        break;
    case BASALT_SQL_EXPR_IN_QUERY:
        basalt_sqlf_put(o, "(");
        basalt_sqlf_expr(o, e->u.in_query.arg);
        basalt_sqlf_put(o, e->u.in_query.negated ? " NOT IN (" : " IN (");
        basalt_sqlf_query(o, e->u.in_query.query);
        basalt_sqlf_put(o, "))");
        break;
    case BASALT_SQL_EXPR_LIKE:
        basalt_sqlf_put(o, "(");
        basalt_sqlf_expr(o, e->u.like.arg);
        basalt_sqlf_put(o, e->u.like.negated ? " NOT " : " ");
        basalt_sqlf_put(o, e->u.like.similar ? "SIMILAR TO " : e->u.like.ilike ? "ILIKE " : "LIKE ");
        basalt_sqlf_expr(o, e->u.like.pattern);
        if (e->u.like.escape) {
            basalt_sqlf_put(o, " ESCAPE ");
            basalt_sqlf_expr(o, e->u.like.escape);
        }
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_EXPR_CASE:
        basalt_sqlf_put(o, "CASE ");
        if (e->u.case_.operand) {
            basalt_sqlf_expr(o, e->u.case_.operand);
            basalt_sqlf_put(o, " ");
        }
        for (int32_t i = 0; i < e->u.case_.n_when; i++) {
            basalt_sqlf_put(o, "WHEN ");
            basalt_sqlf_expr(o, e->u.case_.when[i]);
            basalt_sqlf_put(o, " THEN ");
            basalt_sqlf_expr(o, e->u.case_.then[i]);
            basalt_sqlf_put(o, " ");
        }
        if (e->u.case_.otherwise) {
            basalt_sqlf_put(o, "ELSE ");
            basalt_sqlf_expr(o, e->u.case_.otherwise);
            basalt_sqlf_put(o, " ");
        }
        basalt_sqlf_put(o, "END");
        break;
    case BASALT_SQL_EXPR_CAST:
        basalt_sqlf_put(o, e->u.cast.try_cast ? "TRY_CAST(" : "CAST(");
        basalt_sqlf_expr(o, e->u.cast.arg);
        basalt_sqlf_put(o, " AS ");
        basalt_sqlf_type(o, &e->u.cast.type);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_EXPR_EXTRACT:
        basalt_sqlf_put(o, "EXTRACT(");
        basalt_sqlf_word(o, e->u.extract.part);
        basalt_sqlf_put(o, " FROM ");
        basalt_sqlf_expr(o, e->u.extract.arg);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_EXPR_FUNCTION: basalt_sqlf_call(o, &e->u.call); break;
    case BASALT_SQL_EXPR_SUBQUERY:
    case BASALT_SQL_EXPR_EXISTS:
        basalt_sqlf_put(o, e->kind == BASALT_SQL_EXPR_EXISTS ? "EXISTS (" : "(");
        basalt_sqlf_query(o, e->u.subquery);
        basalt_sqlf_put(o, ")");
        break;
    case BASALT_SQL_EXPR_LIST:
        basalt_sqlf_put(o, "[");
        exprs(o, e->u.list.items, e->u.list.n_items);
        basalt_sqlf_put(o, "]");
        break;
    case BASALT_SQL_EXPR_LAMBDA:
        /* unparenthesised: COLUMNS reads `c ->` right after its `(` */
        basalt_sqlf_ident(o, &e->u.lambda.param);
        basalt_sqlf_put(o, " -> ");
        basalt_sqlf_expr(o, e->u.lambda.body);
        break;
    }
}

size_t basalt_sql_expr_format(const struct basalt_sql_expr *e, char *buf, size_t cap)
{
    struct sql_out o = {.buf = buf, .cap = cap};
    basalt_sqlf_expr(&o, e);
    basalt_sqlf_finish(&o);
    return o.len;
}
