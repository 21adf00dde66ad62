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

/* The replacement of e, if it is an alias; aggregates and window
 * functions are left whole. */
static enum basalt_sql_replace aliased(void *ctx, const struct basalt_sql_expr *e,
                                       struct basalt_sql_expr **out)
{
    struct aliasing *A = ctx;
    if (e->kind == BASALT_SQL_EXPR_FUNCTION &&
        (e->u.call.over != NULL || basalt_sql_is_aggregate(e->u.call.name.name)))
        return BASALT_SQL_KEEP;
    const struct basalt_sql_expr *item = alias_of(A, e);
    if (item == NULL)
        return BASALT_SQL_DESCEND;
    *out = basalt_sql_ast_shared(item);
    return BASALT_SQL_REPLACE;
}

basalt_status basalt_sql_with_aliases(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select *s, bool having,
                                      const struct basalt_sql_expr *e,
                                      const struct basalt_sql_expr **out, struct basalt_error *err)
{
    struct aliasing A = {B, scope, s, having};
    return basalt_sql_ast_replace(B, e, aliased, &A, out, err);
}
