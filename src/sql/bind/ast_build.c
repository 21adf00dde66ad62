/* Syntax trees the binder writes itself: the `l.col = r.col` of USING, the
 * conditions pulled out of ORs, the grouped query of a correlated subquery.
 * They live in the binder's arena and point at the script's nodes. */
#include <stdint.h>
#include <string.h>

#include "bind/bind_internal.h"

struct basalt_sql_expr *basalt_sql_ast_shared(const struct basalt_sql_expr *e)
{
    /* The syntax tree stores non-const pointers; the trees built here only
     * point at the script's nodes and never write through them. */
    return (struct basalt_sql_expr *)(uintptr_t)e;
}

struct basalt_sql_expr *basalt_sql_ast_column(struct binder *B, const char *table,
                                              const char *name, int32_t pos)
{
    struct basalt_sql_expr *e = basalt_arena_alloc(&B->arena, sizeof *e, 8);
    if (e == NULL)
        return NULL;
    memset(e, 0, sizeof *e);
    e->kind = BASALT_SQL_EXPR_COLUMN;
    e->pos = pos;
    e->height = 1;
    e->u.column.n_parts = 2;
    e->u.column.parts[0].name = table;
    e->u.column.parts[1].name = name;
    return e;
}

struct basalt_sql_expr *basalt_sql_ast_binary(struct binder *B, enum basalt_sql_binary_op op,
                                              struct basalt_sql_expr *l, struct basalt_sql_expr *r)
{
    if (l == NULL || r == NULL)
        return NULL;
    struct basalt_sql_expr *e = basalt_arena_alloc(&B->arena, sizeof *e, 8);
    if (e == NULL)
        return NULL;
    memset(e, 0, sizeof *e);
    e->kind = BASALT_SQL_EXPR_BINARY;
    e->pos = l->pos;
    e->height = (l->height > r->height ? l->height : r->height) + 1;
    e->u.binary.op = op;
    e->u.binary.left = l;
    e->u.binary.right = r;
    return e;
}
