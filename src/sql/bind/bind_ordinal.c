/* Numbers in GROUP BY and ORDER BY, read as DuckDB reads them before
 * binding: its parser folds a minus over a number into the number, so
 * `GROUP BY -1`, `ORDER BY - 1` and `ORDER BY -(1)` are the ordinal -1 (out
 * of range) and `ORDER BY - - 1` is the ordinal 1, while `+1` and `1::INT`
 * stay constant expressions. ORDER BY a literal that is not an integer
 * (`1.5`, `-1.5`, `'a'`, NULL) is DuckDB's error, since ordering by a
 * constant does nothing (an aggregate's ORDER BY too, bind_query.c). The query comes back with the folded terms in new
 * nodes; everything else is shared with the script. */
#include <string.h>

#include "bind/bind_internal.h"

/* e without its minus signs: the literal under them and whether an odd
 * number of them negate it (the parser drops parentheses). */
static const struct basalt_sql_expr *unsigned_literal(const struct basalt_sql_expr *e, bool *negated)
{
    *negated = false;
    while (e->kind == BASALT_SQL_EXPR_UNARY && e->u.unary.op == BASALT_SQL_UNARY_MINUS) {
        *negated = !*negated;
        e = e->u.unary.arg;
    }
    return e;
}

bool basalt_sql_non_integer_literal(const struct basalt_sql_expr *e)
{
    bool negated;
    const struct basalt_sql_expr *lit = unsigned_literal(e, &negated);
    return lit->kind == BASALT_SQL_EXPR_NUMBER ||
           (lit == e && (lit->kind == BASALT_SQL_EXPR_STRING || lit->kind == BASALT_SQL_EXPR_NULL));
}

/* The ordinal e folds to, or e itself when it is no minus over an integer.
 * An integer past BIGINT folds to 0, out of range like DuckDB's (whose
 * message there is a failed cast). */
static const struct basalt_sql_expr *folded(struct binder *B, const struct basalt_sql_expr *e,
                                            bool *nomem)
{
    bool negated;
    const struct basalt_sql_expr *lit = unsigned_literal(e, &negated);
    if (lit == e || lit->kind != BASALT_SQL_EXPR_INTEGER)
        return e;
    int64_t v = 0;
    if (lit->u.lit.fits)
        v = negated ? -lit->u.lit.i64 : lit->u.lit.i64;
    const struct basalt_sql_expr *r = basalt_sql_ast_integer(B, v, e->pos);
    if (r == NULL) {
        *nomem = true;
        return e;
    }
    return r;
}

basalt_status basalt_sql_fold_ordinals(struct binder *B, const struct basalt_sql_query *q,
                                       const struct basalt_sql_query **out, struct basalt_error *err)
{
    *out = q;
    bool nomem = false, changed = false;
    for (int32_t i = 0; i < q->n_order; i++) {
        const struct basalt_sql_expr *e = q->order[i].expr;
        if (e == NULL)
            continue;
        if (basalt_sql_non_integer_literal(e))
            return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                                  "ORDER BY non-integer literal has no effect");
        changed |= folded(B, e, &nomem) != e || (e->kind == BASALT_SQL_EXPR_INTEGER && !e->u.lit.fits);
    }
    const struct basalt_sql_select *s = q->kind == BASALT_SQL_QUERY_SELECT ? &q->u.select : NULL;
    for (int32_t i = 0; s != NULL && i < s->n_group; i++)
        changed |= folded(B, s->group[i], &nomem) != s->group[i];
    if (!changed)
        return BASALT_OK;
    struct basalt_sql_query *r = basalt_arena_alloc(&B->arena, sizeof *r, 8);
    struct basalt_sql_order_item *order =
        basalt_arena_alloc(&B->arena, sizeof *order * ((size_t)q->n_order + 1), 8);
    struct basalt_sql_expr **group =
        basalt_arena_alloc(&B->arena, sizeof *group * ((size_t)(s ? s->n_group : 0) + 1), 8);
    if (r == NULL || order == NULL || group == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *r = *q;
    for (int32_t i = 0; i < q->n_order; i++) {
        order[i] = q->order[i];
        const struct basalt_sql_expr *e = q->order[i].expr;
        if (e != NULL && e->kind == BASALT_SQL_EXPR_INTEGER && !e->u.lit.fits)
            e = basalt_sql_ast_integer(B, 0, e->pos);
        else if (e != NULL)
            e = folded(B, e, &nomem);
        order[i].expr = basalt_sql_ast_shared(e);
        nomem |= q->order[i].expr != NULL && e == NULL;
    }
    r->order = q->n_order > 0 ? order : NULL;
    for (int32_t i = 0; s != NULL && i < s->n_group; i++)
        group[i] = basalt_sql_ast_shared(folded(B, s->group[i], &nomem));
    if (s != NULL && s->n_group > 0)
        r->u.select.group = group;
    if (nomem)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *out = r;
    return BASALT_OK;
}
