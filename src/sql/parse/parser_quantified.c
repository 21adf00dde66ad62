/* Quantified comparisons, `x op ANY (query)`, `x op SOME (query)` and
 * `x op ALL (query)`, written as the expressions they mean over the
 * query's count, non-NULL count, MIN and MAX, so that the binder has
 * nothing new to plan: each becomes scalar subqueries, run once or
 * decorrelated like any other.
 *
 * Over the query's values S, with SQL's three-valued logic:
 *
 *   x > ANY S  is TRUE when some non-NULL s has x > s, that is x > MIN(S);
 *              otherwise NULL when x is NULL or S holds a NULL (and S is
 *              not empty); otherwise FALSE. Empty S gives FALSE.
 *   x < ANY S  the same with MAX; >= and <= likewise.
 *   x <> ANY S TRUE when some s differs from x: x <> MIN(S) OR x <> MAX(S).
 *   x = ANY S  is x IN (S).
 *   x op ALL S is NOT (x op' ANY S), op' the negated comparison (an empty
 *              S gives TRUE); so x <> ALL S is x NOT IN (S).
 *
 * As CASE:
 *   CASE WHEN count = 0 THEN FALSE
 *        WHEN <the comparison with MIN or MAX> THEN TRUE
 *        WHEN x IS NULL OR nonnull < count THEN NULL
 *        ELSE FALSE END
 *
 * The aggregates read the query's own FROM and WHERE when it is a plain
 * SELECT of one expression (so a correlated query stays correlated at its
 * own level, where the binder decorrelates it); any other query is read as
 * `FROM (query) AS any_all(value)`, whose alias must then name its only
 * column. x is evaluated more than once: it is shared, not copied. The
 * expression keeps what was written (basalt_sql_quantified), which the
 * formatter prints. */
#include <string.h>

#include "sql_internal.h"

/* The parts every generated node needs. */
struct quantified {
    struct sql_parser *p;
    int32_t pos;
    struct basalt_sql_query *query;
    bool plain; /* a one-expression SELECT whose FROM and WHERE are reused */
};

static struct basalt_sql_expr *node(struct quantified *Q, enum basalt_sql_expr_kind kind)
{
    return basalt_sqlp_new_expr(Q->p, kind, Q->pos);
}

static struct basalt_sql_expr *finish(struct quantified *Q, struct basalt_sql_expr *e)
{
    return e != NULL && basalt_sqlp_expr_height(Q->p, e) ? e : NULL;
}

static struct basalt_sql_expr *binary(struct quantified *Q, enum basalt_sql_binary_op op,
                                      struct basalt_sql_expr *l, struct basalt_sql_expr *r)
{
    if (l == NULL || r == NULL)
        return NULL;
    struct basalt_sql_expr *e = node(Q, BASALT_SQL_EXPR_BINARY);
    if (e == NULL)
        return NULL;
    e->u.binary.op = op;
    e->u.binary.left = l;
    e->u.binary.right = r;
    return finish(Q, e);
}

static struct basalt_sql_expr *literal(struct quantified *Q, enum basalt_sql_expr_kind kind,
                                       const char *text, bool b)
{
    struct basalt_sql_expr *e = node(Q, kind);
    if (e == NULL)
        return NULL;
    e->u.lit.text = text;
    e->u.lit.b = b;
    if (kind == BASALT_SQL_EXPR_INTEGER) {
        e->u.lit.fits = true;
        e->u.lit.i64 = 0;
    }
    return finish(Q, e);
}

static bool is_aggregate_or_window(const struct basalt_sql_expr *e);

/* Whether the one select item may be aggregated in place: no aggregate,
 * window or subquery of its own (a subquery there is planned per row). */
static bool plain_item(const struct basalt_sql_expr *e)
{
    return e->kind != BASALT_SQL_EXPR_STAR && !is_aggregate_or_window(e);
}

static bool list_has(struct basalt_sql_expr *const *items, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (is_aggregate_or_window(items[i]))
            return true;
    return false;
}

static bool is_aggregate_or_window(const struct basalt_sql_expr *e)
{
    if (e == NULL)
        return false;
    switch (e->kind) {
    case BASALT_SQL_EXPR_FUNCTION:
        return e->u.call.over != NULL || e->u.call.star ||
               basalt_sql_is_aggregate(e->u.call.name.name) ||
               list_has(e->u.call.args, e->u.call.n_args);
    case BASALT_SQL_EXPR_SUBQUERY:
    case BASALT_SQL_EXPR_EXISTS:
    case BASALT_SQL_EXPR_IN_QUERY: return true;
    case BASALT_SQL_EXPR_UNARY: return is_aggregate_or_window(e->u.unary.arg);
    case BASALT_SQL_EXPR_BINARY:
        return is_aggregate_or_window(e->u.binary.left) || is_aggregate_or_window(e->u.binary.right);
    case BASALT_SQL_EXPR_IS: return is_aggregate_or_window(e->u.is.arg);
    case BASALT_SQL_EXPR_BETWEEN:
        return is_aggregate_or_window(e->u.between.arg) ||
               is_aggregate_or_window(e->u.between.low) || is_aggregate_or_window(e->u.between.high);
    case BASALT_SQL_EXPR_IN_LIST:
        return is_aggregate_or_window(e->u.in_list.arg) ||
               list_has(e->u.in_list.items, e->u.in_list.n_items);
    case BASALT_SQL_EXPR_LIKE:
        return is_aggregate_or_window(e->u.like.arg) || is_aggregate_or_window(e->u.like.pattern) ||
               is_aggregate_or_window(e->u.like.escape);
    case BASALT_SQL_EXPR_CASE:
        return is_aggregate_or_window(e->u.case_.operand) ||
               list_has(e->u.case_.when, e->u.case_.n_when) ||
               list_has(e->u.case_.then, e->u.case_.n_when) ||
               is_aggregate_or_window(e->u.case_.otherwise);
    case BASALT_SQL_EXPR_CAST: return is_aggregate_or_window(e->u.cast.arg);
    case BASALT_SQL_EXPR_EXTRACT: return is_aggregate_or_window(e->u.extract.arg);
    default: return false;
    }
}

/* A SELECT whose FROM and WHERE can carry the aggregates directly. */
static bool plain_query(const struct basalt_sql_query *q)
{
    if (q->kind != BASALT_SQL_QUERY_SELECT || q->n_ctes > 0 || q->n_order > 0 || q->order_all ||
        q->limit != NULL || q->offset != NULL)
        return false;
    const struct basalt_sql_select *s = &q->u.select;
    return !s->distinct && s->n_distinct_on == 0 && s->n_items == 1 && !s->group_all &&
           s->n_group == 0 && s->n_grouping == 0 && s->having == NULL && s->n_windows == 0 && s->qualify == NULL &&
           plain_item(s->items[0].expr);
}

/* The column the aggregates read: the plain query's item, or the alias's
 * one column. */
static struct basalt_sql_expr *value(struct quantified *Q)
{
    if (Q->plain)
        return Q->query->u.select.items[0].expr;
    struct basalt_sql_expr *c = node(Q, BASALT_SQL_EXPR_COLUMN);
    if (c == NULL)
        return NULL;
    c->u.column.n_parts = 1;
    c->u.column.parts[0].name = "value";
    c->u.column.parts[0].pos = Q->pos;
    return finish(Q, c);
}

/* (SELECT agg(value) FROM ... [WHERE ...]); agg NULL for count(*). */
static struct basalt_sql_expr *aggregate(struct quantified *Q, const char *agg)
{
    struct sql_parser *p = Q->p;
    struct basalt_sql_expr *call = node(Q, BASALT_SQL_EXPR_FUNCTION);
    struct basalt_sql_query *q = basalt_sqlp_alloc(p, sizeof *q);
    struct basalt_sql_select_item *item = basalt_sqlp_alloc(p, sizeof *item);
    if (call == NULL || q == NULL || item == NULL)
        return NULL;
    call->u.call.name.name = agg != NULL ? agg : "count";
    call->u.call.name.pos = Q->pos;
    if (agg == NULL) {
        call->u.call.star = true;
    } else {
        struct basalt_sql_expr **args = basalt_sqlp_alloc(p, sizeof *args);
        if (args == NULL || (args[0] = value(Q)) == NULL)
            return NULL;
        call->u.call.args = args;
        call->u.call.n_args = 1;
    }
    if (finish(Q, call) == NULL)
        return NULL;
    item->expr = call;
    q->kind = BASALT_SQL_QUERY_SELECT;
    q->pos = Q->query->pos;
    q->u.select.n_items = 1;
    q->u.select.items = item;
    if (Q->plain) {
        q->u.select.from = Q->query->u.select.from;
        q->u.select.where = Q->query->u.select.where;
    } else {
        struct basalt_sql_from *f = basalt_sqlp_alloc(p, sizeof *f);
        struct basalt_sql_ident *alias = basalt_sqlp_alloc(p, sizeof *alias);
        if (f == NULL || alias == NULL)
            return NULL;
        f->kind = BASALT_SQL_FROM_SUBQUERY;
        f->pos = Q->query->pos;
        f->height = Q->query->height + 1;
        f->u.subquery = Q->query;
        f->alias.name = "any_all";
        f->alias.pos = Q->pos;
        alias->name = "value";
        alias->pos = Q->pos;
        f->n_column_aliases = 1;
        f->column_aliases = alias;
        f->exact_column_aliases = true;
        q->u.select.from = f;
    }
    /* The generated levels sit on the query's own height: a SELECT over it
     * (plain or wrapped), the aggregate call and its argument. */
    q->height = Q->query->height + 3;
    if (!basalt_sqlp_check_height(p, q->height, q->pos))
        return NULL;
    struct basalt_sql_expr *sub = node(Q, BASALT_SQL_EXPR_SUBQUERY);
    if (sub == NULL)
        return NULL;
    sub->u.subquery = q;
    return finish(Q, sub);
}

static enum basalt_sql_binary_op negate(enum basalt_sql_binary_op op)
{
    switch (op) {
    case BASALT_SQL_BINARY_EQ: return BASALT_SQL_BINARY_NE;
    case BASALT_SQL_BINARY_NE: return BASALT_SQL_BINARY_EQ;
    case BASALT_SQL_BINARY_LT: return BASALT_SQL_BINARY_GE;
    case BASALT_SQL_BINARY_LE: return BASALT_SQL_BINARY_GT;
    case BASALT_SQL_BINARY_GT: return BASALT_SQL_BINARY_LE;
    default: return BASALT_SQL_BINARY_LT; /* GE */
    }
}

static struct basalt_sql_expr *not(struct quantified *Q, struct basalt_sql_expr *e)
{
    if (e == NULL)
        return NULL;
    struct basalt_sql_expr *n = node(Q, BASALT_SQL_EXPR_UNARY);
    if (n == NULL)
        return NULL;
    n->u.unary.op = BASALT_SQL_UNARY_NOT;
    n->u.unary.arg = e;
    return finish(Q, n);
}

/* x IN (query) or x NOT IN (query). */
static struct basalt_sql_expr *in_query(struct quantified *Q, struct basalt_sql_expr *x, bool negated)
{
    struct basalt_sql_expr *e = node(Q, BASALT_SQL_EXPR_IN_QUERY);
    if (e == NULL)
        return NULL;
    e->u.in_query.arg = x;
    e->u.in_query.query = Q->query;
    e->u.in_query.negated = negated;
    return finish(Q, e);
}

/* x op ANY S as the CASE above. */
static struct basalt_sql_expr *any(struct quantified *Q, enum basalt_sql_binary_op op,
                                   struct basalt_sql_expr *x)
{
    struct basalt_sql_expr *hit;
    if (op == BASALT_SQL_BINARY_NE) {
        hit = binary(Q, BASALT_SQL_BINARY_OR, binary(Q, op, x, aggregate(Q, "min")),
                     binary(Q, op, x, aggregate(Q, "max")));
    } else {
        bool above = op == BASALT_SQL_BINARY_GT || op == BASALT_SQL_BINARY_GE;
        hit = binary(Q, op, x, aggregate(Q, above ? "min" : "max"));
    }
    struct basalt_sql_expr *x_null = node(Q, BASALT_SQL_EXPR_IS);
    if (x_null == NULL)
        return NULL;
    x_null->u.is.arg = x;
    x_null->u.is.what = BASALT_SQL_IS_NULL;
    struct basalt_sql_expr *unknown =
        binary(Q, BASALT_SQL_BINARY_OR, finish(Q, x_null),
               binary(Q, BASALT_SQL_BINARY_LT, aggregate(Q, "count"), aggregate(Q, NULL)));
    struct basalt_sql_expr *empty =
        binary(Q, BASALT_SQL_BINARY_EQ, aggregate(Q, NULL), literal(Q, BASALT_SQL_EXPR_INTEGER, "0", false));
    struct basalt_sql_expr **when = basalt_sqlp_alloc(Q->p, 3 * sizeof *when);
    struct basalt_sql_expr **then = basalt_sqlp_alloc(Q->p, 3 * sizeof *then);
    struct basalt_sql_expr *e = node(Q, BASALT_SQL_EXPR_CASE);
    if (hit == NULL || unknown == NULL || empty == NULL || when == NULL || then == NULL || e == NULL)
        return NULL;
    when[0] = empty;
    then[0] = literal(Q, BASALT_SQL_EXPR_BOOL, NULL, false);
    when[1] = hit;
    then[1] = literal(Q, BASALT_SQL_EXPR_BOOL, NULL, true);
    when[2] = unknown;
    then[2] = literal(Q, BASALT_SQL_EXPR_NULL, NULL, false);
    e->u.case_.n_when = 3;
    e->u.case_.when = when;
    e->u.case_.then = then;
    e->u.case_.otherwise = literal(Q, BASALT_SQL_EXPR_BOOL, NULL, false);
    if (then[0] == NULL || then[1] == NULL || then[2] == NULL || e->u.case_.otherwise == NULL)
        return NULL;
    return finish(Q, e);
}

struct basalt_sql_expr *basalt_sqlp_quantified(struct sql_parser *p, enum basalt_sql_binary_op op,
                                               struct basalt_sql_expr *x, int32_t pos)
{
    /* At ANY, SOME or ALL; the caller has seen the '(' after it. */
    bool all = sqlp_kw(p, "all");
    sqlp_advance(p);
    if (x == NULL || !basalt_sqlp_expect(p, TK_LPAREN))
        return NULL;
    if (!basalt_sqlp_at_query(p)) {
        basalt_sqlp_fail(p, BASALT_UNSUPPORTED, sqlp_cur(p)->pos,
                         "%s takes a subquery here (a list is not supported)", all ? "ALL" : "ANY");
        return NULL;
    }
    struct quantified Q = {.p = p, .pos = pos};
    if (!(Q.query = basalt_sqlp_query(p)) || !basalt_sqlp_expect(p, TK_RPAREN))
        return NULL;
    Q.plain = plain_query(Q.query);
    if (all)
        op = negate(op);
    struct basalt_sql_quantified *written = basalt_sqlp_alloc(p, sizeof *written);
    struct basalt_sql_expr *e = op == BASALT_SQL_BINARY_EQ ? in_query(&Q, x, false) : any(&Q, op, x);
    if (written == NULL || e == NULL)
        return NULL;
    written->op = op;
    written->arg = x;
    written->query = Q.query;
    e->written = written;
    return all ? not(&Q, e) : e;
}
