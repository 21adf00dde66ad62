/* A correlated subquery whose correlation sits in a subquery of its FROM:
 *
 *   (SELECT max(c) FROM (SELECT count(*) c FROM u WHERE u.k = t.k
 *                        GROUP BY u.g) AS d)
 *
 * The inner subquery is keyed as LATERAL keys it (bind_lateral.c: the
 * inner sides of its equalities in front, in front of its GROUP BY too),
 * and the equality moves up to the subquery's own WHERE on that column:
 *
 *   (SELECT max(c) FROM (SELECT u.k AS __lateral0, count(*) c FROM u
 *                        GROUP BY u.k, u.g) AS d WHERE d.__lateral0 = t.k)
 *
 * which is an ordinary correlated subquery (bind_subquery.c). Each key's
 * rows of d are the rows the outer row's d would have; a key without inner
 * rows has none, right for everything but an aggregate without GROUP BY,
 * which would have one row there: refused (UNSUPPORTED). Only subqueries
 * of inner and cross joins move; the others keep their error. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bind/bind_internal.h"

struct lifting {
    struct binder *B;
    const struct bscope *outer;
    struct basalt_sql_expr *where; /* q's WHERE and the equalities moved up */
    bool changed;
};

static basalt_status lift(struct lifting *L, const struct basalt_sql_from *f,
                          struct basalt_sql_from **out, struct basalt_error *err);

static basalt_status lift_leaf(struct lifting *L, const struct basalt_sql_from *f,
                               struct basalt_sql_from **out, struct basalt_error *err)
{
    struct binder *B = L->B;
    const struct basalt_sql_query *d = f->u.subquery;
    if (d->kind != BASALT_SQL_QUERY_SELECT || d->u.select.from == NULL || d->n_ctes > 0)
        return BASALT_OK;
    /* is it correlated with the outer query at all? (binding it alone
     * fails for the column it cannot find) */
    struct bsplit probe;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    basalt_status st = basalt_sql_split_subquery(B, L->outer, d, &probe, &ignore);
    bool correlated = st == BASALT_OK && probe.n_corr > 0;
    basalt_sql_split_reset(&probe);
    if (!correlated)
        return BASALT_OK;
    if (basalt_sql_aggregates_once(B, d))
        return basalt_sql_err(B, BASALT_UNSUPPORTED, d->pos, err,
                              "a subquery in FROM over an aggregate without GROUP BY that reads "
                              "the outer query is not supported inside a subquery");
    struct basalt_sql_query *g;
    const struct basalt_sql_expr **outer_side;
    int n;
    st = basalt_sql_lateral_keyed(B, d, L->outer, &g, &outer_side, &n, err);
    if (st != BASALT_OK || n == 0)
        return st;
    struct basalt_sql_from *copy = basalt_arena_alloc(&B->arena, sizeof *copy, 8);
    struct basalt_sql_ident *names =
        basalt_arena_alloc(&B->arena, sizeof *names * (size_t)(n + f->n_column_aliases + 1), 8);
    if (copy == NULL || names == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *copy = *f;
    copy->u.subquery = g;
    copy->lateral = false;
    if (copy->alias.name == NULL) {
        char name[32];
        snprintf(name, sizeof name, "__from%d", (int)B->next_gid);
        copy->alias.name = basalt_arena_strndup(&B->arena, name, strlen(name));
        copy->alias.pos = f->pos;
    }
    /* the keys are the first columns; aliases written name those after */
    for (int k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "__lateral%d", k);
        memset(&names[k], 0, sizeof names[k]);
        names[k].name = basalt_arena_strndup(&B->arena, name, strlen(name));
        if (names[k].name == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (f->n_column_aliases > 0) {
        memcpy(names + n, f->column_aliases, sizeof *names * (size_t)f->n_column_aliases);
        copy->column_aliases = names;
        copy->n_column_aliases = n + f->n_column_aliases;
    }
    for (int k = 0; k < n; k++) {
        struct basalt_sql_expr *c = basalt_sql_ast_binary(
            B, BASALT_SQL_BINARY_EQ,
            basalt_sql_ast_column(B, copy->alias.name, names[k].name, outer_side[k]->pos),
            basalt_sql_ast_shared(outer_side[k]));
        L->where = L->where == NULL || c == NULL ? c
                                                 : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND,
                                                                         L->where, c);
        if (L->where == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    L->changed = true;
    *out = copy;
    return BASALT_OK;
}

static basalt_status lift(struct lifting *L, const struct basalt_sql_from *f,
                          struct basalt_sql_from **out, struct basalt_error *err)
{
    *out = (struct basalt_sql_from *)(uintptr_t)f; /* unchanged unless lifted */
    if (f->kind == BASALT_SQL_FROM_SUBQUERY && !f->lateral)
        return lift_leaf(L, f, out, err);
    if (f->kind != BASALT_SQL_FROM_JOIN ||
        (f->u.join.kind != BASALT_SQL_JOIN_CROSS && f->u.join.kind != BASALT_SQL_JOIN_INNER))
        return BASALT_OK;
    struct basalt_sql_from *left, *right;
    basalt_status st = lift(L, f->u.join.left, &left, err);
    if (st == BASALT_OK)
        st = lift(L, f->u.join.right, &right, err);
    if (st != BASALT_OK || (left == f->u.join.left && right == f->u.join.right))
        return st;
    struct basalt_sql_from *copy = basalt_arena_alloc(&L->B->arena, sizeof *copy, 8);
    if (copy == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *copy = *f;
    copy->u.join.left = left;
    copy->u.join.right = right;
    *out = copy;
    return BASALT_OK;
}

basalt_status basalt_sql_lift_from_correlation(struct binder *B, const struct bscope *outer,
                                               const struct basalt_sql_query *q,
                                               const struct basalt_sql_query **out,
                                               struct basalt_error *err)
{
    *out = q;
    if (q->kind != BASALT_SQL_QUERY_SELECT || q->u.select.from == NULL || q->n_ctes > 0)
        return BASALT_OK;
    struct lifting L = {B, outer, q->u.select.where, false};
    struct basalt_sql_from *from;
    basalt_status st = lift(&L, q->u.select.from, &from, err);
    if (st != BASALT_OK || !L.changed)
        return st;
    struct basalt_sql_query *copy = basalt_arena_alloc(&B->arena, sizeof *copy, 8);
    if (copy == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *copy = *q;
    copy->u.select.from = from;
    copy->u.select.where = L.where;
    *out = copy;
    return BASALT_OK;
}
