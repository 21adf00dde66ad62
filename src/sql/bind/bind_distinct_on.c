/* SELECT DISTINCT ON (k1, k2) ... ORDER BY o1, o2: the first row of each
 * distinct (k1, k2) in the ORDER BY's order, as DuckDB keeps it. Bound as
 * the same query with DISTINCT ON replaced by
 *   QUALIFY row_number() OVER (PARTITION BY k1, k2 ORDER BY o1, o2) = 1
 * (ANDed with a QUALIFY of its own), so the window operator does the
 * work and the ORDER BY still orders the rows kept. An ordinal in ORDER BY
 * or in the ON list names a select item, as it does in ORDER BY. */
#include <string.h>
#include <strings.h>

#include "bind/bind_internal.h"

static void *node(struct binder *B, size_t size)
{
    void *p = basalt_arena_alloc(&B->arena, size, 8);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

/* e, or the select item that e names: by its alias (as ORDER BY takes
 * them, before the columns), or by its ordinal. */
static basalt_status item_of(struct binder *B, const struct basalt_sql_select *s,
                             struct basalt_sql_expr *e, struct basalt_sql_expr **out,
                             struct basalt_error *err)
{
    *out = e;
    if (e->kind == BASALT_SQL_EXPR_COLUMN && e->u.column.n_parts == 1) {
        for (int i = 0; i < s->n_items; i++)
            if (s->items[i].alias.name != NULL &&
                strcasecmp(s->items[i].alias.name, e->u.column.parts[0].name) == 0)
                *out = s->items[i].expr;
        return BASALT_OK;
    }
    if (e->kind != BASALT_SQL_EXPR_INTEGER)
        return BASALT_OK;
    int64_t k = e->u.lit.fits ? e->u.lit.i64 : 0;
    if (k < 1 || k > s->n_items)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                              "ORDER term out of range - should be between 1 and %d",
                              (int)s->n_items);
    struct basalt_sql_expr *item = s->items[k - 1].expr;
    if (item == NULL || item->kind == BASALT_SQL_EXPR_STAR)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, err,
                              "DISTINCT ON: an ordinal naming * is not supported");
    *out = item;
    return BASALT_OK;
}

basalt_status basalt_sql_distinct_on(struct binder *B, const struct basalt_sql_query *q,
                                     const struct basalt_sql_query **out, struct basalt_error *err)
{
    const struct basalt_sql_select *s = &q->u.select;
    struct basalt_sql_query *r = node(B, sizeof *r);
    struct basalt_sql_expr **part = node(B, sizeof *part * (size_t)s->n_distinct_on);
    /* ORDER BY ALL: the select items in order, each in its direction */
    int n_order = q->order_all ? s->n_items : q->n_order;
    struct basalt_sql_order_item *order = node(B, sizeof *order * ((size_t)n_order + 1));
    if (r == NULL || part == NULL || order == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; q->order_all && i < s->n_items; i++)
        if (s->items[i].expr == NULL || s->items[i].expr->kind == BASALT_SQL_EXPR_STAR)
            return basalt_sql_err(B, BASALT_UNSUPPORTED, q->pos, err,
                                  "DISTINCT ON with ORDER BY ALL over * is not supported");
    basalt_status st = BASALT_OK;
    for (int i = 0; i < s->n_distinct_on && st == BASALT_OK; i++)
        st = item_of(B, s, s->distinct_on[i], &part[i], err);
    for (int i = 0; i < n_order && st == BASALT_OK; i++) {
        if (q->order_all) {
            order[i] = q->order[0];
            order[i].expr = s->items[i].expr;
            continue;
        }
        order[i] = q->order[i];
        st = item_of(B, s, q->order[i].expr, &order[i].expr, err);
    }
    if (st != BASALT_OK)
        return st;
    struct basalt_sql_expr *rn =
        basalt_sql_ast_row_number(B, part, s->n_distinct_on, order, n_order, q->pos);
    if (rn != NULL)
        rn->u.call.over->expand_columns = true;
    struct basalt_sql_expr *first =
        basalt_sql_ast_binary(B, BASALT_SQL_BINARY_EQ, rn, basalt_sql_ast_integer(B, 1, q->pos));
    struct basalt_sql_expr *qualify =
        s->qualify == NULL ? first : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, first, s->qualify);
    if (qualify == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *r = *q;
    r->n_ctes = 0; /* pushed already, by the query being rewritten */
    r->ctes = NULL;
    r->u.select.n_distinct_on = 0;
    r->u.select.distinct_on = NULL;
    r->u.select.qualify = qualify;
    *out = r;
    return BASALT_OK;
}
