/* What a select item of an aggregate without GROUP BY is over no rows, for
 * the outer rows a decorrelated subquery's LEFT join finds no group for:
 * `(SELECT count(*) + 1 FROM u WHERE u.k = t.k)` is 1 there, not the join's
 * NULL. The item's aggregate calls are replaced by what they give over no
 * rows (COUNT 0, every other aggregate NULL), and what is left is folded
 * to a constant (bind_constant.c). Read where the join's key column is NULL
 * (no group matched: a NULL key never matches), CASE WHEN key IS NULL THEN
 * that constant ELSE the column END. */
#include <string.h>

#include "bind/bind_internal.h"

static bool zero_over_no_rows(const char *name)
{
    return strcmp(name, "count") == 0 || strcmp(name, "count_star") == 0;
}

static enum basalt_sql_replace over_no_rows(void *ctx, const struct basalt_sql_expr *e,
                                            struct basalt_sql_expr **out)
{
    struct binder *B = ctx;
    if (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS ||
        e->kind == BASALT_SQL_EXPR_IN_QUERY)
        return BASALT_SQL_KEEP;
    if (e->kind != BASALT_SQL_EXPR_FUNCTION || e->u.call.over != NULL ||
        !basalt_sql_is_aggregate(e->u.call.name.name))
        return BASALT_SQL_DESCEND;
    if (zero_over_no_rows(e->u.call.name.name)) {
        *out = basalt_sql_ast_integer(B, 0, e->pos);
    } else {
        *out = basalt_arena_alloc(&B->arena, sizeof **out, 8);
        if (*out != NULL) {
            memset(*out, 0, sizeof **out);
            (*out)->kind = BASALT_SQL_EXPR_NULL;
            (*out)->pos = e->pos;
            (*out)->height = 1;
        }
    }
    return *out != NULL ? BASALT_SQL_REPLACE : BASALT_SQL_KEEP;
}

bool basalt_sql_empty_value(struct binder *B, const struct basalt_sql_expr *e,
                            struct basalt_query_type type, struct basalt_query_value *out)
{
    memset(out, 0, sizeof *out);
    if (e == NULL || !basalt_sql_has_aggregate(B, e))
        return false;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    const struct basalt_sql_expr *folded;
    if (basalt_sql_ast_replace(B, e, over_no_rows, B, &folded, &ignore) != BASALT_OK ||
        basalt_sql_constant(B, folded, &type, "an aggregate over no rows", out, &ignore) != BASALT_OK)
        return false;
    return !out->is_null && out->type.id != BASALT_QUERY_TYPE_NULL;
}

const struct basalt_sql_expr *basalt_sql_empty_expr(struct binder *B, const struct basalt_sql_expr *e)
{
    if (e == NULL || !basalt_sql_has_aggregate(B, e))
        return NULL;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    const struct basalt_sql_expr *out;
    return basalt_sql_ast_replace(B, e, over_no_rows, B, &out, &ignore) == BASALT_OK ? out : NULL;
}

basalt_status basalt_sql_empty_or(struct basalt_qexpr_builder *b, struct basalt_qexpr *key,
                                  const struct basalt_query_value *empty,
                                  struct basalt_qexpr *value, struct basalt_qexpr **out,
                                  struct basalt_error *err)
{
    struct basalt_qexpr *unmatched, *constant;
    basalt_status st = basalt_qexpr_is_null(b, key, false, &unmatched, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_literal(b, empty, &constant, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_case(b, &unmatched, &constant, 1, value, out, err);
    return st;
}
