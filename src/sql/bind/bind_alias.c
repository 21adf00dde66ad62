/* SELECT-list aliases in WHERE, HAVING and QUALIFY, as DuckDB reads them:
 * `SELECT a % 3 AS k FROM t WHERE k = 1`. A one-part name that is an alias
 * of the select list stands for that item's expression, which is bound in
 * its place: an alias of an aggregate works in HAVING, one of a window
 * function in QUALIFY, and one of an aggregate in WHERE gets WHERE's error.
 *   - In WHERE and QUALIFY a column of the FROM (or of an outer query) of
 *     that name wins over the alias.
 *   - In HAVING only a column written as a GROUP BY key wins: HAVING x > 1,
 *     with x both an ungrouped column and the alias of count(*), is the
 *     count, as in DuckDB.
 *   - The arguments of aggregates and window functions read the FROM:
 *     HAVING max(x) is the column's maximum.
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
    bool nomem;
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

static const struct basalt_sql_expr *alias_of(struct aliasing *A, const struct basalt_sql_expr *e)
{
    if (e->kind != BASALT_SQL_EXPR_COLUMN || e->u.column.n_parts != 1)
        return NULL;
    const char *name = e->u.column.parts[0].name;
    const struct basalt_sql_expr *item = NULL;
    for (int i = 0; i < A->s->n_items && item == NULL; i++)
        if (A->s->items[i].alias.name != NULL && strcasecmp(A->s->items[i].alias.name, name) == 0)
            item = A->s->items[i].expr;
    if (item == NULL || item->kind == BASALT_SQL_EXPR_STAR)
        return NULL;
    if (A->having)
        return group_key(A->s, name) ? NULL : item;
    const struct bcol *c;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    basalt_status st = basalt_sql_resolve(A->B, A->scope, &e->u.column, e->pos, &c, &ignore);
    return st == BASALT_NOT_FOUND ? item : NULL;
}

static struct basalt_sql_expr *rewrite(struct aliasing *A, struct basalt_sql_expr *e);

/* Rewrites the child in *slot (a field of a local copy of its parent);
 * whether it changed. */
static bool swap(struct aliasing *A, struct basalt_sql_expr **slot)
{
    struct basalt_sql_expr *r = rewrite(A, *slot);
    if (r == *slot)
        return false;
    *slot = r;
    return true;
}

/* Rewrites a list into a new array when any item changes. */
static bool swap_list(struct aliasing *A, struct basalt_sql_expr ***items, int n)
{
    struct basalt_sql_expr **out = NULL;
    for (int i = 0; i < n && !A->nomem; i++) {
        struct basalt_sql_expr *r = rewrite(A, (*items)[i]);
        if (r == (*items)[i])
            continue;
        if (out == NULL) {
            out = basalt_arena_alloc(&A->B->arena, sizeof *out * (size_t)n, 8);
            if (out == NULL) {
                A->nomem = true;
                return false;
            }
            memcpy(out, *items, sizeof *out * (size_t)n);
        }
        out[i] = r;
    }
    if (out == NULL)
        return false;
    *items = out;
    return true;
}

static struct basalt_sql_expr *rewrite(struct aliasing *A, struct basalt_sql_expr *e)
{
    if (e == NULL || A->nomem)
        return e;
    const struct basalt_sql_expr *item = alias_of(A, e);
    if (item != NULL)
        return basalt_sql_ast_shared(item);
    /* The children are rewritten in a local copy, kept only when one
     * changed. */
    struct basalt_sql_expr copy = *e;
    bool changed = false;
    switch (e->kind) {
    case BASALT_SQL_EXPR_UNARY: changed = swap(A, &copy.u.unary.arg); break;
    case BASALT_SQL_EXPR_BINARY:
        changed = swap(A, &copy.u.binary.left);
        changed |= swap(A, &copy.u.binary.right);
        break;
    case BASALT_SQL_EXPR_IS: changed = swap(A, &copy.u.is.arg); break;
    case BASALT_SQL_EXPR_BETWEEN:
        changed = swap(A, &copy.u.between.arg);
        changed |= swap(A, &copy.u.between.low);
        changed |= swap(A, &copy.u.between.high);
        break;
    case BASALT_SQL_EXPR_IN_LIST:
        changed = swap(A, &copy.u.in_list.arg);
        changed |= swap_list(A, &copy.u.in_list.items, e->u.in_list.n_items);
        break;
    case BASALT_SQL_EXPR_IN_QUERY: changed = swap(A, &copy.u.in_query.arg); break;
    case BASALT_SQL_EXPR_LIKE:
        changed = swap(A, &copy.u.like.arg);
        changed |= swap(A, &copy.u.like.pattern);
        break;
    case BASALT_SQL_EXPR_CASE:
        changed = swap(A, &copy.u.case_.operand);
        changed |= swap(A, &copy.u.case_.otherwise);
        changed |= swap_list(A, &copy.u.case_.when, e->u.case_.n_when);
        changed |= swap_list(A, &copy.u.case_.then, e->u.case_.n_when);
        break;
    case BASALT_SQL_EXPR_CAST: changed = swap(A, &copy.u.cast.arg); break;
    case BASALT_SQL_EXPR_EXTRACT: changed = swap(A, &copy.u.extract.arg); break;
    case BASALT_SQL_EXPR_FUNCTION:
        /* An aggregate's or a window function's arguments read the FROM
         * (HAVING max(x) is the column x's); a plain function's may name
         * aliases. */
        if (e->u.call.over == NULL && !basalt_sql_is_aggregate(e->u.call.name.name))
            changed = swap_list(A, &copy.u.call.args, e->u.call.n_args);
        break;
    default: break;
    }
    if (!changed || A->nomem)
        return e;
    struct basalt_sql_expr *c = basalt_arena_alloc(&A->B->arena, sizeof *c, 8);
    if (c == NULL) {
        A->nomem = true;
        return e;
    }
    *c = copy;
    return c;
}

basalt_status basalt_sql_with_aliases(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select *s, bool having,
                                      const struct basalt_sql_expr *e,
                                      const struct basalt_sql_expr **out, struct basalt_error *err)
{
    struct aliasing A = {B, scope, s, having, false};
    *out = rewrite(&A, basalt_sql_ast_shared(e));
    if (A.nomem)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}
