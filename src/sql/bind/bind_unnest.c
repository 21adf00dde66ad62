/* unnest(l) in a select list: after grouping, windows and QUALIFY, the
 * lists the items unnest are computed as columns of the relation, an
 * UNNEST node turns each row into one row per element (several lists
 * zipped, the shorter padded with NULL, as DuckDB), and each call's text
 * is mapped to its element column for the select list's lowering. An
 * unnest anywhere else (WHERE, GROUP BY, an aggregate's argument, inside
 * another unnest) is refused where it is lowered. */
#include <string.h>

#include "bind/bind_internal.h"

struct ucalls {
    const struct basalt_sql_expr **call;
    const char **text;
    int n, cap;
};

static bool is_unnest(const struct basalt_sql_expr *e)
{
    return e->kind == BASALT_SQL_EXPR_FUNCTION && e->u.call.over == NULL &&
           strcmp(e->u.call.name.name, "unnest") == 0;
}

static basalt_status collect(struct binder *B, const struct basalt_sql_expr *e, struct ucalls *U,
                             struct basalt_error *err);

static basalt_status collect_all(struct binder *B, struct basalt_sql_expr *const *es, int n,
                                 struct ucalls *U, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = collect(B, es[i], U, err);
    return st;
}

static basalt_status collect(struct binder *B, const struct basalt_sql_expr *e, struct ucalls *U,
                             struct basalt_error *err)
{
    if (e == NULL)
        return BASALT_OK;
    switch (e->kind) {
    case BASALT_SQL_EXPR_FUNCTION: {
        /* aggregates and windows were bound before: their arguments are
         * not this select's rows */
        if (e->u.call.over != NULL || basalt_sql_is_aggregate(e->u.call.name.name))
            return BASALT_OK;
        if (!is_unnest(e))
            return collect_all(B, e->u.call.args, e->u.call.n_args, U, err);
        const char *text = basalt_sql_text(B, e);
        if (text == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < U->n; i++)
            if (strcmp(U->text[i], text) == 0)
                return BASALT_OK;
        if (U->n == U->cap) {
            int cap = U->cap ? U->cap * 2 : 4;
            const struct basalt_sql_expr **c = basalt_realloc(U->call, sizeof *c * (size_t)cap);
            if (c == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            U->call = c;
            const char **t = basalt_realloc(U->text, sizeof *t * (size_t)cap);
            if (t == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            U->text = t;
            U->cap = cap;
        }
        U->call[U->n] = e;
        U->text[U->n++] = text;
        return BASALT_OK;
    }
    case BASALT_SQL_EXPR_UNARY: return collect(B, e->u.unary.arg, U, err);
    case BASALT_SQL_EXPR_BINARY: {
        basalt_status st = collect(B, e->u.binary.left, U, err);
        return st == BASALT_OK ? collect(B, e->u.binary.right, U, err) : st;
    }
    case BASALT_SQL_EXPR_IS: return collect(B, e->u.is.arg, U, err);
    case BASALT_SQL_EXPR_BETWEEN: {
        basalt_status st = collect(B, e->u.between.arg, U, err);
        if (st == BASALT_OK)
            st = collect(B, e->u.between.low, U, err);
        return st == BASALT_OK ? collect(B, e->u.between.high, U, err) : st;
    }
    case BASALT_SQL_EXPR_CASE: {
        basalt_status st = collect(B, e->u.case_.operand, U, err);
        if (st == BASALT_OK)
            st = collect_all(B, e->u.case_.when, e->u.case_.n_when, U, err);
        if (st == BASALT_OK)
            st = collect_all(B, e->u.case_.then, e->u.case_.n_when, U, err);
        return st == BASALT_OK ? collect(B, e->u.case_.otherwise, U, err) : st;
    }
    case BASALT_SQL_EXPR_CAST: return collect(B, e->u.cast.arg, U, err);
    case BASALT_SQL_EXPR_EXTRACT: return collect(B, e->u.extract.arg, U, err);
    case BASALT_SQL_EXPR_IN_LIST: {
        basalt_status st = collect(B, e->u.in_list.arg, U, err);
        return st == BASALT_OK ? collect_all(B, e->u.in_list.items, e->u.in_list.n_items, U, err)
                               : st;
    }
    case BASALT_SQL_EXPR_LIKE: {
        basalt_status st = collect(B, e->u.like.arg, U, err);
        if (st == BASALT_OK)
            st = collect(B, e->u.like.pattern, U, err);
        return st == BASALT_OK ? collect(B, e->u.like.escape, U, err) : st;
    }
    case BASALT_SQL_EXPR_LIST: return collect_all(B, e->u.list.items, e->u.list.n_items, U, err);
    default: return BASALT_OK; /* subqueries are queries of their own */
    }
}

/* Call e's list, lowered over rel: a LIST, or an untyped NULL as an empty
 * one (DuckDB's unnest(NULL) has no rows). */
static basalt_status lower_list(struct blower *L, const struct basalt_sql_expr *e,
                                struct basalt_qexpr **out, struct basalt_error *err)
{
    const struct basalt_sql_call *c = &e->u.call;
    if (c->n_args != 1 || c->arg_names != NULL)
        return basalt_sql_err(L->B, BASALT_UNSUPPORTED, e->pos, err,
                              "unnest takes one list (its named options are not supported)");
    basalt_status st = basalt_sql_lower(L, c->args[0], out, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_type t = basalt_qexpr_type(*out);
    if (t.id == BASALT_QUERY_TYPE_LIST)
        return BASALT_OK;
    if (t.id == BASALT_QUERY_TYPE_NULL)
        return basalt_qexpr_cast(L->b, *out, basalt_query_type_list(t), false, out, err);
    char tn[64];
    return basalt_sql_err(L->B, BASALT_INVALID_ARG, c->args[0]->pos, err,
                          "UNNEST() can only be applied to lists and NULL, not %s",
                          basalt_query_type_name(t, tn, sizeof tn));
}

basalt_status basalt_sql_bind_unnests(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_expr *const *exprs, int n,
                                      struct brel *rel, struct brepl **repl, int *n_repl,
                                      struct basalt_error *err)
{
    struct ucalls U;
    memset(&U, 0, sizeof U);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = collect(B, exprs[i], &U, err);
    if (st == BASALT_OK && U.n > 64)
        st = basalt_sql_err(B, BASALT_UNSUPPORTED, U.call[64]->pos, err,
                            "more than 64 unnest calls in one select list");
    if (st != BASALT_OK || U.n == 0) {
        basalt_free(U.call);
        basalt_free(U.text);
        return st;
    }
    /* room for the element columns in the replacement list first: the
     * lowering below reads it */
    struct brepl *r = basalt_realloc(*repl, sizeof *r * (size_t)(*n_repl + U.n + 1));
    if (r != NULL)
        *repl = r;
    struct basalt_qexpr_builder *b = NULL;
    st = basalt_qplan_builder(B->ctx, rel->node, &b, err);
    struct blower L = {B, scope, rel, b, *repl, *n_repl, "unnest"};
    int base = rel->n;
    struct basalt_qexpr **exprs_out = basalt_calloc((size_t)(base + U.n) + 1, sizeof *exprs_out);
    int *cols = basalt_calloc((size_t)U.n + 1, sizeof *cols);
    int32_t *gids = basalt_arena_alloc(&B->arena, sizeof *gids * (size_t)(base + U.n + 1), 8);
    if (st == BASALT_OK && (exprs_out == NULL || cols == NULL || gids == NULL || r == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < base && st == BASALT_OK; i++) {
        st = basalt_qexpr_column(b, i, &exprs_out[i], err);
        gids[i] = rel->gids[i];
    }
    for (int k = 0; k < U.n && st == BASALT_OK; k++) {
        for (int a = 0; a < U.call[k]->u.call.n_args && st == BASALT_OK; a++) {
            struct ucalls inner;
            memset(&inner, 0, sizeof inner);
            st = collect(B, U.call[k]->u.call.args[a], &inner, err);
            if (st == BASALT_OK && inner.n > 0)
                st = basalt_sql_err(B, BASALT_INVALID_ARG, inner.call[0]->pos, err,
                                    "Nested UNNEST calls are not supported");
            basalt_free(inner.call);
            basalt_free(inner.text);
        }
        if (st == BASALT_OK)
            st = lower_list(&L, U.call[k], &exprs_out[base + k], err);
        cols[k] = base + k;
    }
    struct basalt_qplan *p = NULL, *u = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, rel->node, exprs_out, NULL, base + U.n, &p, err);
    if (st == BASALT_OK)
        st = basalt_qplan_unnest(B->ctx, p, cols, U.n, &u, err);
    if (st == BASALT_OK) {
        /* the node passes on rel's columns, then the elements */
        for (int k = 0; k < U.n; k++) {
            gids[base + k] = basalt_sql_gid(B);
            (*repl)[(*n_repl)++] = (struct brepl){U.text[k], gids[base + k], false, NULL, 0, NULL};
        }
        rel->node = u;
        rel->gids = gids;
        rel->n = base + U.n;
        rel->table_rows = false;
    }
    basalt_free(exprs_out);
    basalt_free(cols);
    basalt_free(U.call);
    basalt_free(U.text);
    return st;
}
