/* Queries: WITH, SELECT, VALUES, set operations (INTERSECT binds tighter
 * than UNION and EXCEPT), parenthesised queries, ORDER BY, LIMIT, OFFSET. */
#include <string.h>

#include "sql_internal.h"

bool basalt_sqlp_at_query(const struct sql_parser *p)
{
    return sqlp_kw(p, "select") || sqlp_kw(p, "with") || sqlp_kw(p, "values") || sqlp_kw(p, "from");
}

bool basalt_sqlp_at_query_rest(const struct sql_parser *p)
{
    return sqlp_kw(p, "union") || sqlp_kw(p, "intersect") || sqlp_kw(p, "except") ||
           sqlp_kw(p, "order") || sqlp_kw(p, "limit") || sqlp_kw(p, "offset");
}

/* ------------------------------------------------------------------ heights */

static int32_t hmax(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t eh(const struct basalt_sql_expr *e) { return e ? e->height : 0; }
static int32_t fh(const struct basalt_sql_from *f) { return f ? f->height : 0; }

static int32_t exprs_h(struct basalt_sql_expr *const *items, int32_t n)
{
    int32_t h = 0;
    for (int32_t i = 0; i < n; i++)
        h = hmax(h, eh(items[i]));
    return h;
}

static int32_t window_h(const struct basalt_sql_window *w)
{
    int32_t h = hmax(exprs_h(w->partition, w->n_partition), hmax(eh(w->start.offset), eh(w->end.offset)));
    for (int32_t i = 0; i < w->n_order; i++)
        h = hmax(h, eh(w->order[i].expr));
    return h + 1;
}

int32_t basalt_sqlp_query_height(const struct basalt_sql_query *q)
{
    return q ? q->height : 0;
}

/* Sets q->height from its parts and checks the limit. */
static bool query_height(struct sql_parser *p, struct basalt_sql_query *q)
{
    int32_t h = hmax(eh(q->limit), eh(q->offset));
    for (int32_t i = 0; i < q->n_ctes; i++)
        h = hmax(h, q->ctes[i].query->height);
    for (int32_t i = 0; i < q->n_order; i++)
        h = hmax(h, eh(q->order[i].expr));
    switch (q->kind) {
    case BASALT_SQL_QUERY_SELECT: {
        const struct basalt_sql_select *s = &q->u.select;
        for (int32_t i = 0; i < s->n_items; i++)
            h = hmax(h, eh(s->items[i].expr));
        h = hmax(h, hmax(fh(s->from), hmax(eh(s->where), eh(s->having))));
        h = hmax(h, hmax(exprs_h(s->group, s->n_group), eh(s->qualify)));
        for (int32_t i = 0; i < s->n_windows; i++)
            h = hmax(h, window_h(s->windows[i].window));
        break;
    }
    case BASALT_SQL_QUERY_SET_OP:
        h = hmax(h, hmax(q->u.set_op.left->height, q->u.set_op.right->height));
        break;
    case BASALT_SQL_QUERY_VALUES:
        for (int32_t r = 0; r < q->u.values.n_rows; r++)
            h = hmax(h, exprs_h(q->u.values.rows[r], q->u.values.n_columns));
        break;
    }
    q->height = h + 1;
    return basalt_sqlp_check_height(p, q->height, q->pos);
}

static struct basalt_sql_query *new_query(struct sql_parser *p, enum basalt_sql_query_kind kind, int32_t pos)
{
    struct basalt_sql_query *q = basalt_sqlp_alloc(p, sizeof(*q));
    if (q) {
        q->kind = kind;
        q->pos = pos;
        q->height = 1;
    }
    return q;
}

/* ------------------------------------------------------------------ SELECT */

/* After an expression in the select list: [AS] alias. An alias after AS
 * may be any word, reserved or not, as in PostgreSQL. */
static bool select_alias(struct sql_parser *p, struct basalt_sql_ident *alias)
{
    if (basalt_sqlp_accept_kw(p, "as")) {
        const struct sql_token *t = sqlp_cur(p);
        if (t->kind != TK_WORD && t->kind != TK_QIDENT) {
            basalt_sqlp_syntax(p);
            return false;
        }
        alias->name = basalt_sqlp_token_text(p, t);
        alias->quoted = t->kind == TK_QIDENT;
        alias->pos = t->pos;
        sqlp_advance(p);
        return alias->name != NULL;
    }
    if (sqlp_at_ident(p))
        return basalt_sqlp_ident(p, alias);
    return true;
}

static bool select_items(struct sql_parser *p, struct basalt_sql_select *s)
{
    struct sqlp_list l = {0};
    for (;;) {
        struct basalt_sql_select_item *it = basalt_sqlp_alloc(p, sizeof(*it));
        if (!it || !(it->expr = basalt_sqlp_expr(p)) || !select_alias(p, &it->alias) ||
            !basalt_sqlp_list_push(p, &l, it))
            return false;
        if (!basalt_sqlp_accept(p, TK_COMMA))
            break;
    }
    if (!(s->items = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*s->items))))
        return false;
    for (int32_t i = 0; i < l.n; i++)
        s->items[i] = *(struct basalt_sql_select_item *)l.items[i];
    s->n_items = l.n;
    return true;
}

static bool window_clause(struct sql_parser *p, struct basalt_sql_select *s)
{
    struct sqlp_list l = {0};
    do {
        struct basalt_sql_named_window *w = basalt_sqlp_alloc(p, sizeof(*w));
        if (!w || !basalt_sqlp_ident(p, &w->name) || !basalt_sqlp_expect_kw(p, "as") ||
            !(w->window = basalt_sqlp_window_body(p)) || !basalt_sqlp_list_push(p, &l, w))
            return false;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    if (!(s->windows = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*s->windows))))
        return false;
    for (int32_t i = 0; i < l.n; i++)
        s->windows[i] = *(struct basalt_sql_named_window *)l.items[i];
    s->n_windows = l.n;
    return true;
}

/* [DISTINCT [ON (...)] | ALL] items, after SELECT. */
static bool select_head(struct sql_parser *p, struct basalt_sql_select *s)
{
    if (basalt_sqlp_accept_kw(p, "distinct")) {
        if (basalt_sqlp_accept_kw(p, "on")) {
            if (!basalt_sqlp_expect(p, TK_LPAREN) ||
                !basalt_sqlp_expr_list(p, &s->n_distinct_on, &s->distinct_on) ||
                !basalt_sqlp_expect(p, TK_RPAREN))
                return false;
        } else {
            s->distinct = true;
        }
    } else {
        basalt_sqlp_accept_kw(p, "all");
    }
    return select_items(p, s);
}

/* WHERE, GROUP BY, HAVING, WINDOW, QUALIFY. */
static bool select_tail(struct sql_parser *p, struct basalt_sql_select *s)
{
    if (basalt_sqlp_accept_kw(p, "where") && !(s->where = basalt_sqlp_expr(p)))
        return false;
    if (basalt_sqlp_accept_kw(p, "group")) {
        if (!basalt_sqlp_expect_kw(p, "by"))
            return false;
        if (basalt_sqlp_accept_kw(p, "all"))
            s->group_all = true;
        else if (!basalt_sqlp_group_by(p, s))
            return false;
    }
    if (basalt_sqlp_accept_kw(p, "having") && !(s->having = basalt_sqlp_expr(p)))
        return false;
    if (basalt_sqlp_accept_kw(p, "window") && !window_clause(p, s))
        return false;
    if (basalt_sqlp_accept_kw(p, "qualify") && !(s->qualify = basalt_sqlp_expr(p)))
        return false;
    return true;
}

static struct basalt_sql_query *select_core(struct sql_parser *p)
{
    struct basalt_sql_query *q = new_query(p, BASALT_SQL_QUERY_SELECT, sqlp_cur(p)->pos);
    if (!q)
        return NULL;
    struct basalt_sql_select *s = &q->u.select;
    sqlp_advance(p); /* SELECT */
    if (!select_head(p, s))
        return NULL;
    if (basalt_sqlp_accept_kw(p, "from") && !(s->from = basalt_sqlp_from(p)))
        return NULL;
    if (!select_tail(p, s))
        return NULL;
    return query_height(p, q) ? q : NULL;
}

/* DuckDB's FROM-first form: FROM t [SELECT items] [WHERE ...]; without
 * SELECT the items are `*`. The tree is the SELECT it stands for. */
static struct basalt_sql_query *from_first_core(struct sql_parser *p)
{
    struct basalt_sql_query *q = new_query(p, BASALT_SQL_QUERY_SELECT, sqlp_cur(p)->pos);
    if (!q)
        return NULL;
    struct basalt_sql_select *s = &q->u.select;
    sqlp_advance(p); /* FROM */
    if (!(s->from = basalt_sqlp_from(p)))
        return NULL;
    if (basalt_sqlp_accept_kw(p, "select")) {
        if (!select_head(p, s))
            return NULL;
    } else {
        struct basalt_sql_expr *star = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_STAR, q->pos);
        if (!star || !(s->items = basalt_sqlp_alloc(p, sizeof(*s->items))))
            return NULL;
        s->n_items = 1;
        s->items[0].expr = star;
    }
    if (!select_tail(p, s))
        return NULL;
    return query_height(p, q) ? q : NULL;
}

static struct basalt_sql_query *values_core(struct sql_parser *p)
{
    struct basalt_sql_query *q = new_query(p, BASALT_SQL_QUERY_VALUES, sqlp_cur(p)->pos);
    if (!q)
        return NULL;
    sqlp_advance(p); /* VALUES */
    struct sqlp_list rows = {0};
    do {
        int32_t pos = sqlp_cur(p)->pos, n;
        struct basalt_sql_expr **row;
        if (!basalt_sqlp_expect(p, TK_LPAREN) || !basalt_sqlp_expr_list(p, &n, &row) ||
            !basalt_sqlp_expect(p, TK_RPAREN))
            return NULL;
        if (rows.n == 0) {
            q->u.values.n_columns = n;
        } else if (n != q->u.values.n_columns) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, pos, "VALUES lists must all be the same length");
            return NULL;
        }
        if (!basalt_sqlp_list_push(p, &rows, row))
            return NULL;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    q->u.values.n_rows = rows.n;
    q->u.values.rows = (struct basalt_sql_expr ***)rows.items;
    return query_height(p, q) ? q : NULL;
}

/* ------------------------------------------------------------------ set operations */

/* SELECT, VALUES or a parenthesised query. */
static struct basalt_sql_query *query_primary(struct sql_parser *p)
{
    if (sqlp_kw(p, "select"))
        return select_core(p);
    if (sqlp_kw(p, "from"))
        return from_first_core(p);
    if (sqlp_kw(p, "values"))
        return values_core(p);
    if (sqlp_is(p, TK_LPAREN)) {
        if (!basalt_sqlp_enter(p))
            return NULL;
        sqlp_advance(p);
        struct basalt_sql_query *q = basalt_sqlp_query(p);
        sqlp_leave(p);
        return q && basalt_sqlp_expect(p, TK_RPAREN) ? q : NULL;
    }
    basalt_sqlp_syntax(p);
    return NULL;
}

static struct basalt_sql_query *set_node(struct sql_parser *p, enum basalt_sql_set_op op, bool all,
                                         struct basalt_sql_query *l, struct basalt_sql_query *r,
                                         int32_t pos)
{
    if (!l || !r)
        return NULL;
    struct basalt_sql_query *q = new_query(p, BASALT_SQL_QUERY_SET_OP, pos);
    if (!q)
        return NULL;
    q->u.set_op.op = op;
    q->u.set_op.all = all;
    q->u.set_op.left = l;
    q->u.set_op.right = r;
    return query_height(p, q) ? q : NULL;
}

/* ALL | DISTINCT after a set operator; DISTINCT is the default. */
static bool set_quantifier(struct sql_parser *p)
{
    if (basalt_sqlp_accept_kw(p, "all"))
        return true;
    basalt_sqlp_accept_kw(p, "distinct");
    return false;
}

/* INTERSECT chains after `left` (read here when NULL). */
static struct basalt_sql_query *intersect_chain(struct sql_parser *p, struct basalt_sql_query *left)
{
    if (!left)
        left = query_primary(p);
    while (left && sqlp_kw(p, "intersect")) {
        int32_t pos = sqlp_cur(p)->pos;
        sqlp_advance(p);
        bool all = set_quantifier(p);
        left = set_node(p, BASALT_SQL_SET_INTERSECT, all, left, query_primary(p), pos);
    }
    return left;
}

static struct basalt_sql_query *set_chain(struct sql_parser *p, struct basalt_sql_query *first)
{
    struct basalt_sql_query *left = intersect_chain(p, first);
    while (left && (sqlp_kw(p, "union") || sqlp_kw(p, "except"))) {
        int32_t pos = sqlp_cur(p)->pos;
        enum basalt_sql_set_op op = sqlp_kw(p, "union") ? BASALT_SQL_SET_UNION : BASALT_SQL_SET_EXCEPT;
        sqlp_advance(p);
        bool all = set_quantifier(p);
        left = set_node(p, op, all, left, intersect_chain(p, NULL), pos);
    }
    return left;
}

/* ORDER BY, LIMIT, OFFSET of the whole query. A parenthesised operand
 * that has its own cannot take a second set. */
static bool modifiers(struct sql_parser *p, struct basalt_sql_query *q)
{
    if (sqlp_kw(p, "order")) {
        if (q->n_order) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, sqlp_cur(p)->pos, "multiple ORDER BY clauses not allowed");
            return false;
        }
        sqlp_advance(p);
        if (!basalt_sqlp_expect_kw(p, "by") || !basalt_sqlp_order_list(p, &q->n_order, &q->order, &q->order_all))
            return false;
    }
    for (int i = 0; i < 2; i++) {
        bool limit = sqlp_kw(p, "limit"), offset = sqlp_kw(p, "offset");
        if (!limit && !offset)
            break;
        if ((limit && q->limit) || (offset && q->offset)) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, sqlp_cur(p)->pos, "multiple %s clauses not allowed",
                             limit ? "LIMIT" : "OFFSET");
            return false;
        }
        sqlp_advance(p);
        struct basalt_sql_expr *e = basalt_sqlp_expr(p);
        if (!e)
            return false;
        if (limit)
            q->limit = e;
        else
            q->offset = e;
    }
    return true;
}

static bool ctes(struct sql_parser *p, int32_t *n, struct basalt_sql_cte **out)
{
    bool recursive = basalt_sqlp_accept_kw(p, "recursive");
    struct sqlp_list l = {0};
    do {
        struct basalt_sql_cte *c = basalt_sqlp_alloc(p, sizeof(*c));
        if (!c || !basalt_sqlp_ident(p, &c->name))
            return false;
        c->recursive = recursive;
        if (sqlp_is(p, TK_LPAREN) && !basalt_sqlp_ident_list(p, &c->n_columns, &c->columns))
            return false;
        if (!basalt_sqlp_expect_kw(p, "as"))
            return false;
        if (basalt_sqlp_accept_kw(p, "materialized")) {
            c->materialize = BASALT_SQL_CTE_MATERIALIZED;
        } else if (sqlp_kw(p, "not") && sqlp_kw_at(p, 1, "materialized")) {
            basalt_sqlp_accept_kw(p, "not");
            basalt_sqlp_accept_kw(p, "materialized");
            c->materialize = BASALT_SQL_CTE_NOT_MATERIALIZED;
        }
        if (!basalt_sqlp_expect(p, TK_LPAREN) || !(c->query = basalt_sqlp_query(p)) ||
            !basalt_sqlp_expect(p, TK_RPAREN) || !basalt_sqlp_list_push(p, &l, c))
            return false;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    struct basalt_sql_cte *arr = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*arr));
    if (!arr)
        return false;
    for (int32_t i = 0; i < l.n; i++)
        arr[i] = *(struct basalt_sql_cte *)l.items[i];
    *n = l.n;
    *out = arr;
    return true;
}

/* A set chain (with `first` as its first operand when given), then the
 * query's modifiers. A result that already carries a WITH or modifiers of
 * its own (a parenthesised operand standing alone) is wrapped only when
 * needed: modifiers() reports a second ORDER BY or LIMIT. */
static struct basalt_sql_query *query_body(struct sql_parser *p, struct basalt_sql_query *first,
                                           int32_t n_ctes, struct basalt_sql_cte *with)
{
    struct basalt_sql_query *q = set_chain(p, first);
    if (!q)
        return NULL;
    if (n_ctes) {
        if (q->n_ctes) {
            /* WITH a AS (..) (WITH b AS (..) SELECT ..): keep both scopes by
             * making the inner one a derived table is the binder's way; the
             * parser refuses it plainly. */
            basalt_sqlp_fail(p, BASALT_UNSUPPORTED, q->pos, "nested WITH on one query is not supported");
            return NULL;
        }
        q->n_ctes = n_ctes;
        q->ctes = with;
    }
    if (!modifiers(p, q))
        return NULL;
    return query_height(p, q) ? q : NULL;
}

struct basalt_sql_query *basalt_sqlp_query(struct sql_parser *p)
{
    if (!basalt_sqlp_enter(p))
        return NULL;
    int32_t n_ctes = 0;
    struct basalt_sql_cte *with = NULL;
    struct basalt_sql_query *q = NULL;
    int32_t pos = sqlp_cur(p)->pos;
    if (basalt_sqlp_accept_kw(p, "with") && !ctes(p, &n_ctes, &with))
        goto out;
    q = query_body(p, NULL, n_ctes, with);
    if (q && n_ctes)
        q->pos = pos;
out:
    sqlp_leave(p);
    return p->status == BASALT_OK ? q : NULL;
}

struct basalt_sql_query *basalt_sqlp_query_rest(struct sql_parser *p, struct basalt_sql_query *first)
{
    return query_body(p, first, 0, NULL);
}
