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
    int items; /* the items whose aliases count */
    basalt_status st; /* a failure in a nested replacement */
    struct basalt_error *err;
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

/* The replacement of e, if it is an alias: the item's expression with the
 * aliases before it bound in turn (`a + 1 AS b, b + 1 AS c`); aggregates
 * and window functions are left whole. */
static enum basalt_sql_replace aliased(void *ctx, const struct basalt_sql_expr *e,
                                       struct basalt_sql_expr **out)
{
    struct aliasing *A = ctx;
    if (e->kind == BASALT_SQL_EXPR_FUNCTION &&
        (e->u.call.over != NULL || basalt_sql_is_aggregate(e->u.call.name.name)))
        return BASALT_SQL_KEEP;
    int item = alias_of(A, e);
    if (item < 0)
        return BASALT_SQL_DESCEND;
    const struct basalt_sql_expr *x = A->s->items[item].expr;
    if (item > 0 && A->st == BASALT_OK)
        A->st = basalt_sql_with_lateral_aliases(A->B, A->scope, A->s, item, &x, A->err);
    *out = basalt_sql_ast_shared(x);
    return BASALT_SQL_REPLACE;
}

static basalt_status replace_aliases(struct aliasing *A, const struct basalt_sql_expr *e,
                                     const struct basalt_sql_expr **out)
{
    basalt_status st = basalt_sql_ast_replace(A->B, e, aliased, A, out, A->err);
    return st != BASALT_OK ? st : A->st;
}

basalt_status basalt_sql_with_aliases(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select *s, bool having,
                                      const struct basalt_sql_expr *e,
                                      const struct basalt_sql_expr **out, struct basalt_error *err)
{
    struct aliasing A = {B, scope, s, having, s->n_items, BASALT_OK, err};
    return replace_aliases(&A, e, out);
}

basalt_status basalt_sql_with_lateral_aliases(struct binder *B, const struct bscope *scope,
                                              const struct basalt_sql_select *s, int item,
                                              const struct basalt_sql_expr **out,
                                              struct basalt_error *err)
{
    struct aliasing A = {B, scope, s, false, item, BASALT_OK, err};
    return replace_aliases(&A, s->items[item].expr, out);
}
