/* A correlated subquery with GROUP BY or HAVING of its own, correlated by
 * equalities, planned once for all outer rows:
 *
 *   (SELECT sum(x) FROM u WHERE u.k = t.k AND u.y > 0 GROUP BY u.g HAVING c)
 *
 * is, per inner key,
 *
 *   SELECT __g.__k0 AS __k0, any_value(__g.__v) AS __v, count(*) AS __rows
 *   FROM (SELECT u.k, sum(x) FROM u WHERE u.y > 0
 *         GROUP BY u.k, u.g HAVING c) AS __g(__k0, __v)
 *   GROUP BY __g.__k0
 *
 * The keys go in front of the subquery's own GROUP BY (HAVING without GROUP
 * BY groups by the keys alone), so each key has the groups its outer rows
 * would see; the caller LEFT joins that on the outer sides and reads __v
 * through the one-row check of a lookup (more than one group for a key is
 * DuckDB's error where it is read). An EXISTS keeps its select list inside
 * (GROUP BY ordinals still name its items) and is TRUE per key.
 *
 * A key without rows has no group: the subquery is NULL there, also for
 * COUNT (no group, no row), as in DuckDB; HAVING without GROUP BY is the
 * exception, where DuckDB judges the HAVING over the empty group (a
 * difference, see docs/QUERY.md). `ORDER BY o LIMIT 1 OFFSET m` keeps the
 * (m+1)-th group of each key in that order instead (nth = m + 1): the
 * order keys are columns of the inner query (a window cannot read an
 * aggregate), and the outer one keeps the row whose row_number() OVER
 * (PARTITION BY the keys ORDER BY them) is nth; no __rows then, as a key
 * has one row at most. */
#include <stdio.h>
#include <string.h>

#include "bind/bind_internal.h"

static void *node(struct binder *B, size_t size)
{
    void *p = basalt_arena_alloc(&B->arena, size, 8);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

/* GROUP BY n names the n-th select item: behind n keys it is n + keys. */
static struct basalt_sql_expr *shifted(struct binder *B, struct basalt_sql_expr *g, int n_keys)
{
    if (g->kind != BASALT_SQL_EXPR_INTEGER || !g->u.lit.fits || g->u.lit.i64 < 1)
        return g;
    return basalt_sql_ast_integer(B, g->u.lit.i64 + n_keys, g->pos);
}

struct basalt_sql_query *basalt_sql_grouped_per_key(struct binder *B, const struct basalt_sql_query *q,
                                                    const struct basalt_sql_select_item *keys, int n,
                                                    struct basalt_sql_expr *where, bool exists,
                                                    int64_t nth, int *n_items)
{
    const struct basalt_sql_select *sel = &q->u.select;
    int n_values = exists ? sel->n_items : 1;
    int n_order = nth > 0 ? q->n_order : 0;
    struct basalt_sql_order_item *order = n_order > 0 ? basalt_sql_ast_item_order(B, q) : NULL;
    if (n_order > 0 && order == NULL)
        return NULL;
    struct basalt_sql_query *in = node(B, sizeof *in);
    struct basalt_sql_select_item *in_items =
        node(B, sizeof *in_items * (size_t)(n + n_values + n_order));
    struct basalt_sql_expr **in_group = node(B, sizeof *in_group * (size_t)(n + sel->n_group));
    struct basalt_sql_from *from = node(B, sizeof *from);
    struct basalt_sql_ident *names = node(B, sizeof *names * (size_t)(n + 1 + n_order));
    struct basalt_sql_order_item *by = node(B, sizeof *by * (size_t)(n_order + 1));
    struct basalt_sql_query *g = node(B, sizeof *g);
    struct basalt_sql_select_item *items = node(B, sizeof *items * (size_t)(n + 2));
    struct basalt_sql_expr **group = node(B, sizeof *group * (size_t)n);
    if (in == NULL || in_items == NULL || in_group == NULL || from == NULL || names == NULL ||
        g == NULL || items == NULL || group == NULL || by == NULL)
        return NULL;
    /* the subquery, keyed */
    memcpy(in_items, keys, sizeof *in_items * (size_t)n);
    memcpy(in_items + n, sel->items, sizeof *in_items * (size_t)n_values);
    for (int i = 0; i < n_order; i++)
        in_items[n + n_values + i].expr = order[i].expr;
    for (int k = 0; k < n; k++)
        in_group[k] = keys[k].expr;
    for (int i = 0; i < sel->n_group; i++)
        if ((in_group[n + i] = shifted(B, sel->group[i], n)) == NULL)
            return NULL;
    in->kind = BASALT_SQL_QUERY_SELECT;
    in->pos = q->pos;
    in->height = q->height + 2;
    in->u.select = *sel;
    in->u.select.n_items = n + n_values + n_order;
    in->u.select.items = in_items;
    in->u.select.where = where;
    in->u.select.n_group = n + sel->n_group;
    in->u.select.group = in_group;
    /* FROM (it) AS __g(__k0, ..., __v) */
    for (int k = 0; k < n; k++)
        names[k] = keys[k].alias;
    names[n].name = "__v";
    for (int i = 0; i < n_order; i++) {
        char name[32];
        snprintf(name, sizeof name, "__o%d", i);
        if ((names[n + 1 + i].name = basalt_arena_strndup(&B->arena, name, strlen(name))) == NULL)
            return NULL;
        by[i] = order[i];
        if ((by[i].expr = basalt_sql_ast_column(B, "__g", names[n + 1 + i].name, q->pos)) == NULL)
            return NULL;
    }
    from->kind = BASALT_SQL_FROM_SUBQUERY;
    from->pos = q->pos;
    from->height = in->height + 1;
    from->u.subquery = in;
    from->alias.name = "__g";
    from->n_column_aliases = exists ? n : n + 1 + n_order;
    from->column_aliases = names;
    /* SELECT keys, any_value(__v) or TRUE, count(*) GROUP BY keys */
    for (int k = 0; k < n; k++) {
        items[k].alias = keys[k].alias;
        items[k].expr = group[k] = basalt_sql_ast_column(B, "__g", keys[k].alias.name, q->pos);
        if (items[k].expr == NULL)
            return NULL;
    }
    items[n].alias.name = "__v";
    if (exists) {
        items[n].expr = basalt_sql_ast_bool(B, true, q->pos);
    } else {
        struct basalt_sql_expr *v = basalt_sql_ast_column(B, "__g", "__v", q->pos);
        items[n].expr = v == NULL || nth > 0 ? v : basalt_sql_ast_call(B, "any_value", v);
        items[n + 1].alias.name = "__rows";
        items[n + 1].expr = basalt_sql_ast_call(B, "count", NULL);
        if (items[n + 1].expr == NULL)
            return NULL;
    }
    if (items[n].expr == NULL)
        return NULL;
    g->kind = BASALT_SQL_QUERY_SELECT;
    g->pos = q->pos;
    g->height = from->height + 1;
    g->u.select.n_items = *n_items = exists || nth > 0 ? n + 1 : n + 2;
    g->u.select.items = items;
    g->u.select.from = from;
    if (nth == 0) {
        g->u.select.n_group = n;
        g->u.select.group = group;
        return g;
    }
    struct basalt_sql_expr *rn = basalt_sql_ast_row_number(B, group, n, by, n_order, q->pos);
    g->u.select.qualify = rn == NULL ? NULL
                                     : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_EQ, rn,
                                                             basalt_sql_ast_integer(B, nth, q->pos));
    return g->u.select.qualify == NULL ? NULL : g;
}
