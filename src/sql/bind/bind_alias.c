/* SELECT-list aliases in WHERE, HAVING and QUALIFY, and in the select list
 * itself after them, as DuckDB reads them: `SELECT a % 3 AS k FROM t WHERE
 * k = 1`, `SELECT price * qty AS total, total * 0.2 AS tax`. A one-part name
 * that is an alias of the select list stands for that item's expression,
 * which is bound in its place: an alias of an aggregate works in HAVING
 * and in a later item, one of a window function in QUALIFY, and one of an
 * aggregate in WHERE gets WHERE's error.
 *   - In the select list only the items before it count.
 *   - In WHERE and QUALIFY a column of the FROM (or of an outer query) of
 *     that name wins over the alias.
 *   - In HAVING only a column written as a GROUP BY key wins: HAVING x > 1,
 *     with x both an ungrouped column and the alias of count(*), is the
 *     count, as in DuckDB.
 *   - The arguments of aggregates read the FROM: HAVING max(x) is the
 *     column's maximum.
 *   - A window function's arguments, PARTITION BY and ORDER BY (also
 *     those of the named window it builds on) read the aliases as the
 *     expression around the call does, a column of that name winning:
 *     `SELECT x % 3 AS g, row_number() OVER (PARTITION BY g ORDER BY id)`;
 *     a call whose window changes is written with that window inline.
 *     In ORDER BY only the window calls read aliases here (an ORDER BY
 *     key that is an alias names its output column, bind_query.c).
 * Subqueries keep their own names. The rewritten tree is new nodes over
 * the script's, in the binder's arena. */
#include <strings.h>
#include <string.h>

#include "bind/bind_internal.h"

struct aliasing {
    struct binder *B;
    const struct bscope *scope;
    const struct basalt_sql_select *s;
    bool having;
    int items; /* the items whose aliases count */
    basalt_status st; /* a failure in a nested replacement */
    struct basalt_error *err;
    bool windows_only; /* replace only inside window calls (ORDER BY) */
    int in_window;     /* the depth of window calls around the node */
};

/* Whether `name` is written as a GROUP BY key of its own. */
static bool group_key(const struct basalt_sql_select *s, const char *name)
{
    for (int i = 0; i < s->n_group; i++) {
        const struct basalt_sql_expr *g = s->group[i];
        if (g->kind == BASALT_SQL_EXPR_COLUMN &&
            strcasecmp(g->u.column.parts[g->u.column.n_parts - 1].name, name) == 0)
            return true;
    }
    return false;
}

/* The item whose alias e is, or -1. */
static int alias_of(struct aliasing *A, const struct basalt_sql_expr *e)
{
    if (e->kind != BASALT_SQL_EXPR_COLUMN || e->u.column.n_parts != 1)
        return -1;
    const char *name = e->u.column.parts[0].name;
    int item = -1;
    for (int i = 0; i < A->items && item < 0; i++)
        if (A->s->items[i].alias.name != NULL && strcasecmp(A->s->items[i].alias.name, name) == 0)
            item = i;
    if (item < 0 || A->s->items[item].expr->kind == BASALT_SQL_EXPR_STAR)
        return -1;
    if (A->having)
        return group_key(A->s, name) ? -1 : item;
    const struct bcol *c;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    basalt_status st = basalt_sql_resolve(A->B, A->scope, &e->u.column, e->pos, &c, &ignore);
    return st == BASALT_NOT_FOUND ? item : -1;
}

static basalt_status replace_aliases(struct aliasing *A, const struct basalt_sql_expr *e,
                                     const struct basalt_sql_expr **out);

/* Rewrites *e in place (a field of a copy); whether it changed. */
static bool replaced(struct aliasing *A, struct basalt_sql_expr **e)
{
    const struct basalt_sql_expr *r = *e;
    if (*e != NULL && A->st == BASALT_OK)
        A->st = replace_aliases(A, *e, &r);
    if (r == *e || A->st != BASALT_OK)
        return false;
    *e = basalt_sql_ast_shared(r);
    return true;
}

/* A window call with the aliases in its arguments and window replaced:
 * KEEP when none is, else a new call over copies (its window resolved). */
static enum basalt_sql_replace window_call(struct aliasing *A, const struct basalt_sql_expr *e,
                                           struct basalt_sql_expr **out)
{
    struct basalt_sql_window w;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    /* a window the WINDOW clause lacks is reported where windows bind */
    if (basalt_sql_resolve_window(A->B, A->s, e->u.call.over, &w, &ignore) != BASALT_OK)
        return BASALT_SQL_KEEP;
    struct basalt_sql_expr *call = basalt_arena_alloc(&A->B->arena, sizeof *call, 8);
    struct basalt_sql_expr **args =
        basalt_arena_alloc(&A->B->arena, sizeof *args * ((size_t)e->u.call.n_args + 1), 8);
    struct basalt_sql_expr **part =
        basalt_arena_alloc(&A->B->arena, sizeof *part * ((size_t)w.n_partition + 1), 8);
    struct basalt_sql_order_item *order =
        basalt_arena_alloc(&A->B->arena, sizeof *order * ((size_t)w.n_order + 1), 8);
    struct basalt_sql_window *over = basalt_arena_alloc(&A->B->arena, sizeof *over, 8);
    if (call == NULL || args == NULL || part == NULL || order == NULL || over == NULL) {
        if (A->st == BASALT_OK)
            A->st = basalt_error_set(A->err, BASALT_NOMEM, "out of memory");
        return BASALT_SQL_KEEP;
    }
    bool changed = false;
    A->in_window++;
    for (int32_t i = 0; i < e->u.call.n_args; i++) {
        args[i] = e->u.call.args[i];
        changed |= replaced(A, &args[i]);
    }
    for (int32_t i = 0; i < w.n_partition; i++) {
        part[i] = w.partition[i];
        changed |= replaced(A, &part[i]);
    }
    for (int32_t i = 0; i < w.n_order; i++) {
        order[i] = w.order[i];
        changed |= replaced(A, &order[i].expr);
    }
    A->in_window--;
    if (!changed || A->st != BASALT_OK)
        return BASALT_SQL_KEEP;
    *over = w;
    over->parenthesised = true;
    over->partition = w.n_partition > 0 ? part : NULL;
    over->order = w.n_order > 0 ? order : NULL;
    *call = *e;
    call->u.call.args = e->u.call.n_args > 0 ? args : NULL;
    call->u.call.over = over;
    for (int32_t i = 0; i < call->u.call.n_args; i++)
        if (args[i]->height + 1 > call->height)
            call->height = args[i]->height + 1;
    for (int32_t i = 0; i < w.n_partition; i++)
        if (part[i]->height + 1 > call->height)
            call->height = part[i]->height + 1;
    for (int32_t i = 0; i < w.n_order; i++)
        if (order[i].expr->height + 1 > call->height)
            call->height = order[i].expr->height + 1;
    *out = call;
    return BASALT_SQL_REPLACE;
}

/* The replacement of e, if it is an alias: the item's expression with the
 * aliases before it bound in turn (`a + 1 AS b, b + 1 AS c`); aggregates
 * are left whole, window calls rewritten inside. */
static enum basalt_sql_replace aliased(void *ctx, const struct basalt_sql_expr *e,
                                       struct basalt_sql_expr **out)
{
    struct aliasing *A = ctx;
    if (e->kind == BASALT_SQL_EXPR_FUNCTION && e->u.call.over != NULL)
        return window_call(A, e, out);
    if (e->kind == BASALT_SQL_EXPR_FUNCTION && basalt_sql_is_aggregate(e->u.call.name.name))
        return BASALT_SQL_KEEP;
    if (A->windows_only && A->in_window == 0)
        return BASALT_SQL_DESCEND;
    int item = alias_of(A, e);
    if (item < 0)
        return BASALT_SQL_DESCEND;
    const struct basalt_sql_expr *x = A->s->items[item].expr;
    if (A->in_window > 0 && basalt_sql_has_window(A->B, x)) {
        if (A->st == BASALT_OK)
            A->st = basalt_sql_err(A->B, BASALT_INVALID_ARG, e->pos, A->err,
                                   "window function calls cannot be nested");
        return BASALT_SQL_KEEP;
    }
    if (item > 0 && A->st == BASALT_OK)
        A->st = basalt_sql_with_lateral_aliases(A->B, A->scope, A->s, item, &x, A->err);
    *out = basalt_sql_ast_shared(x);
    return BASALT_SQL_REPLACE;
}

static basalt_status replace_aliases(struct aliasing *A, const struct basalt_sql_expr *e,
                                     const struct basalt_sql_expr **out)
{
    if (A->windows_only && A->in_window == 0 && !basalt_sql_has_window(A->B, e)) {
        *out = e;
        return BASALT_OK;
    }
    basalt_status st = basalt_sql_ast_replace(A->B, e, aliased, A, out, A->err);
    return st != BASALT_OK ? st : A->st;
}

basalt_status basalt_sql_with_aliases(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select *s, bool having,
                                      const struct basalt_sql_expr *e,
                                      const struct basalt_sql_expr **out, struct basalt_error *err)
{
    struct aliasing A = {B, scope, s, having, s->n_items, BASALT_OK, err, false, 0};
    return replace_aliases(&A, e, out);
}

basalt_status basalt_sql_with_window_aliases(struct binder *B, const struct bscope *scope,
                                             const struct basalt_sql_select *s,
                                             const struct basalt_sql_expr *e,
                                             const struct basalt_sql_expr **out,
                                             struct basalt_error *err)
{
    struct aliasing A = {B, scope, s, false, s->n_items, BASALT_OK, err, true, 0};
    return replace_aliases(&A, e, out);
}

basalt_status basalt_sql_with_lateral_aliases(struct binder *B, const struct bscope *scope,
                                              const struct basalt_sql_select *s, int item,
                                              const struct basalt_sql_expr **out,
                                              struct basalt_error *err)
{
    struct aliasing A = {B, scope, s, false, item, BASALT_OK, err, false, 0};
    return replace_aliases(&A, s->items[item].expr, out);
}
