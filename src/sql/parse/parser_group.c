/* GROUP BY's list: plain keys, or elements with grouping sets (ROLLUP,
 * CUBE, GROUPING SETS, `()`, a parenthesised key list), as DuckDB takes
 * them. Every key expression goes to the select's `group` in the order
 * written; the elements point at them by index, so that code rewriting the
 * keys (the binder's shared FROM) keeps the elements valid. */
#include <string.h>

#include "sql_internal.h"

/* Where an element stands: what it may be. */
enum where {
    AT_TOP,    /* GROUP BY's list or GROUPING SETS: any element */
    IN_ROLLUP, /* ROLLUP or CUBE: a key or a parenthesised list */
};

struct keys {
    struct sqlp_list exprs;
};

static bool add_key(struct sql_parser *p, struct keys *K, struct basalt_sql_expr *e,
                    struct basalt_sql_grouping *out)
{
    if (!e)
        return false;
    out->kind = BASALT_SQL_GROUPING_KEY;
    out->pos = e->pos;
    out->key = K->exprs.n;
    return basalt_sqlp_list_push(p, &K->exprs, e);
}

static bool element(struct sql_parser *p, struct keys *K, enum where where,
                    struct basalt_sql_grouping *out);

/* `( element, ... )` after the current token, into out's items. */
static bool items(struct sql_parser *p, struct keys *K, enum where where,
                  struct basalt_sql_grouping *out)
{
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return false;
    struct sqlp_list l = {0};
    do {
        struct basalt_sql_grouping *g = basalt_sqlp_alloc(p, sizeof(*g));
        if (!g || !element(p, K, where, g) || !basalt_sqlp_list_push(p, &l, g))
            return false;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    if (!(out->items = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*out->items))))
        return false;
    for (int32_t i = 0; i < l.n; i++)
        out->items[i] = *(struct basalt_sql_grouping *)l.items[i];
    out->n_items = l.n;
    return true;
}

/* `(a, b)`, `()`, or a key that starts with a parenthesis: `(a)`,
 * `(a + 1) * 2`, `(SELECT ...)`. */
static bool parenthesised(struct sql_parser *p, struct keys *K, struct basalt_sql_grouping *out)
{
    const struct sql_token *next = sqlp_peek(p, 1);
    if (basalt_sqlp_word_is(p, next, "select") || basalt_sqlp_word_is(p, next, "with") ||
        basalt_sqlp_word_is(p, next, "values"))
        return add_key(p, K, basalt_sqlp_expr(p), out);
    sqlp_advance(p); /* ( */
    out->kind = BASALT_SQL_GROUPING_LIST;
    if (basalt_sqlp_accept(p, TK_RPAREN))
        return true; /* (): the empty set */
    int32_t n;
    struct basalt_sql_expr **exprs;
    if (!basalt_sqlp_expr_list(p, &n, &exprs) || !basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    if (n == 1) /* a parenthesised key, perhaps the start of a longer one */
        return add_key(p, K, basalt_sqlp_expr_rest(p, exprs[0]), out);
    if (!(out->items = basalt_sqlp_alloc(p, (size_t)n * sizeof(*out->items))))
        return false;
    out->n_items = n;
    for (int32_t i = 0; i < n; i++)
        if (!add_key(p, K, exprs[i], &out->items[i]))
            return false;
    return true;
}

static bool element(struct sql_parser *p, struct keys *K, enum where where,
                    struct basalt_sql_grouping *out)
{
    if (!basalt_sqlp_enter(p))
        return false;
    out->pos = sqlp_cur(p)->pos;
    bool ok;
    if (where == AT_TOP && (sqlp_kw(p, "rollup") || sqlp_kw(p, "cube")) &&
        sqlp_peek(p, 1)->kind == TK_LPAREN) {
        out->kind = sqlp_kw(p, "rollup") ? BASALT_SQL_GROUPING_ROLLUP : BASALT_SQL_GROUPING_CUBE;
        sqlp_advance(p);
        ok = items(p, K, IN_ROLLUP, out);
    } else if (where == AT_TOP && sqlp_kw(p, "grouping") && sqlp_kw_at(p, 1, "sets")) {
        out->kind = BASALT_SQL_GROUPING_SETS;
        sqlp_advance(p);
        sqlp_advance(p);
        ok = items(p, K, AT_TOP, out);
    } else if (sqlp_is(p, TK_LPAREN)) {
        ok = parenthesised(p, K, out);
    } else {
        ok = add_key(p, K, basalt_sqlp_expr(p), out);
    }
    sqlp_leave(p);
    return ok && p->status == BASALT_OK;
}

bool basalt_sqlp_group_by(struct sql_parser *p, struct basalt_sql_select *s)
{
    struct keys K = {{0}};
    struct sqlp_list l = {0};
    bool plain = true;
    do {
        struct basalt_sql_grouping *g = basalt_sqlp_alloc(p, sizeof(*g));
        if (!g || !element(p, &K, AT_TOP, g) || !basalt_sqlp_list_push(p, &l, g))
            return false;
        plain &= g->kind == BASALT_SQL_GROUPING_KEY;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    s->n_group = K.exprs.n;
    s->group = (struct basalt_sql_expr **)K.exprs.items;
    if (plain)
        return true;
    if (!(s->grouping = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*s->grouping))))
        return false;
    for (int32_t i = 0; i < l.n; i++)
        s->grouping[i] = *(struct basalt_sql_grouping *)l.items[i];
    s->n_grouping = l.n;
    return true;
}
