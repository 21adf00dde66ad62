/* A correlated scalar subquery's input narrowed to the keys its outer query
 * can ask for. The subquery becomes its aggregate grouped by the inner side
 * of each correlated equality (bind_subquery.c), over all of its input;
 * when the outer side of an equality is a column of one table of the outer
 * FROM that the WHERE filters on its own, the groups the outer rows can
 * reach are those of the values that table keeps, so
 *
 *   inner IN (SELECT outer FROM that table WHERE its own conditions)
 *
 * is added to the subquery's WHERE, where it becomes a SEMI join before the
 * aggregate. This is what DuckDB's delim join gets from the outer rows
 * themselves; here the table is read again instead, so it is done only when
 * that table is at most a quarter of the subquery's largest input. TPC-H
 * Q17 groups the 6,000 lineitems of its 204 parts instead of all 6M. */
#include <string.h>

#include "bind/bind_internal.h"

/* The outer FROM relation that column o belongs to, or -1 (not a plain
 * column of this very scope). */
static int outer_rel(struct binder *B, const struct bscope *outer, const struct basalt_sql_expr *o)
{
    if (o->kind != BASALT_SQL_EXPR_COLUMN)
        return -1;
    const struct bcol *c;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_resolve(B, outer, &o->u.column, o->pos, &c, &ignore) != BASALT_OK ||
        c < outer->cols || c >= outer->cols + outer->n)
        return -1;
    return c->rel;
}

/* SELECT o FROM (relation r's FROM item) WHERE (the outer WHERE's
 * conjuncts over r alone); NULL when r is not one table or nothing
 * filters it. */
static struct basalt_sql_query *key_query(struct binder *B, const struct bscope *outer,
                                          const struct bouter *from, int r,
                                          const struct basalt_sql_expr *o)
{
    if (r < 0 || r >= from->n || r >= 63 || from->leaves[r] == NULL)
        return NULL;
    struct basalt_sql_expr *where = NULL;
    for (int i = 0; i < from->nc; i++) {
        const struct basalt_sql_expr *c = from->conj[i];
        if (basalt_sql_refs(B, outer, c) != (uint64_t)1 << r)
            continue;
        /* a correlated subquery's own condition is not the table's */
        bool in_query = c->kind == BASALT_SQL_EXPR_IN_QUERY && !c->u.in_query.negated;
        if (basalt_sql_has_subquery(c) && !in_query)
            continue;
        where = where == NULL ? basalt_sql_ast_shared(c)
                              : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, where,
                                                      basalt_sql_ast_shared(c));
        if (where == NULL)
            return NULL;
    }
    if (where == NULL)
        return NULL;
    struct basalt_sql_query *q = basalt_arena_alloc(&B->arena, sizeof *q, 8);
    struct basalt_sql_select_item *item = basalt_arena_alloc(&B->arena, sizeof *item, 8);
    if (q == NULL || item == NULL)
        return NULL;
    memset(q, 0, sizeof *q);
    memset(item, 0, sizeof *item);
    item->expr = basalt_sql_ast_shared(o);
    q->kind = BASALT_SQL_QUERY_SELECT;
    q->pos = o->pos;
    q->height = where->height + 2;
    q->u.select.n_items = 1;
    q->u.select.items = item;
    q->u.select.from = (struct basalt_sql_from *)(uintptr_t)from->leaves[r];
    q->u.select.where = where;
    return q;
}

struct basalt_sql_expr *basalt_sql_narrowing(struct binder *B, const struct bscope *outer,
                                             const struct bouter *from,
                                             const struct basalt_sql_expr *const *outer_side,
                                             struct basalt_sql_expr *const *inner_side, int n,
                                             const struct brel *grouped)
{
    if (from == NULL)
        return NULL;
    int64_t inputs = basalt_qplan_largest_input(grouped->node);
    for (int k = 0; k < n; k++) {
        struct basalt_sql_query *q = key_query(B, outer, from, outer_rel(B, outer, outer_side[k]),
                                               outer_side[k]);
        if (q == NULL)
            continue;
        struct brel keys;
        const char **names;
        struct basalt_error ignore;
        basalt_error_init(&ignore);
        if (basalt_sql_bind_query(B, q, &keys, &names, &ignore) != BASALT_OK ||
            4 * basalt_qplan_largest_input(keys.node) > inputs)
            continue;
        struct basalt_sql_expr *e = basalt_arena_alloc(&B->arena, sizeof *e, 8);
        if (e == NULL)
            return NULL;
        memset(e, 0, sizeof *e);
        e->kind = BASALT_SQL_EXPR_IN_QUERY;
        e->pos = inner_side[k]->pos;
        e->height = inner_side[k]->height + q->height + 1;
        e->u.in_query.arg = inner_side[k];
        e->u.in_query.query = q;
        return e;
    }
    return NULL;
}
