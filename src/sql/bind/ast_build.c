/* Syntax trees the binder writes itself: the `l.col = r.col` of USING, the
 * conditions pulled out of ORs, the grouped query of a correlated subquery,
 * expressions with some nodes replaced (aliases, aggregates over a grouped
 * query). They live in the binder's arena and point at the script's nodes. */
#include <stdint.h>
#include <stdio.h>
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
    e->u.column.n_parts = table != NULL ? 2 : 1;
    e->u.column.parts[0].name = table != NULL ? table : name;
    e->u.column.parts[1].name = table != NULL ? name : NULL;
    return e;
}

struct basalt_sql_expr *basalt_sql_ast_integer(struct binder *B, int64_t value, int32_t pos)
{
    struct basalt_sql_expr *e = basalt_arena_alloc(&B->arena, sizeof *e, 8);
    char digits[24];
    snprintf(digits, sizeof digits, "%lld", (long long)value);
    const char *text = basalt_arena_strndup(&B->arena, digits, strlen(digits));
    if (e == NULL || text == NULL)
        return NULL;
    memset(e, 0, sizeof *e);
    e->kind = BASALT_SQL_EXPR_INTEGER;
    e->pos = pos;
    e->height = 1;
    e->u.lit.text = text;
    e->u.lit.fits = true;
    e->u.lit.i64 = value;
    return e;
}

struct basalt_sql_expr *basalt_sql_ast_bool(struct binder *B, bool value, int32_t pos)
{
    struct basalt_sql_expr *e = basalt_arena_alloc(&B->arena, sizeof *e, 8);
    if (e == NULL)
        return NULL;
    memset(e, 0, sizeof *e);
    e->kind = BASALT_SQL_EXPR_BOOL;
    e->pos = pos;
    e->height = 1;
    e->u.lit.b = value;
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

/* ------------------------------------------------------------ replacing */

struct replacing {
    struct binder *B;
    basalt_sql_replace_fn fn;
    void *ctx;
    bool nomem;
};

static struct basalt_sql_expr *rewrite(struct replacing *A, struct basalt_sql_expr *e);

/* Rewrites the child in *slot (a field of a local copy of its parent);
 * whether it changed. */
static bool swap(struct replacing *A, struct basalt_sql_expr **slot)
{
    struct basalt_sql_expr *r = rewrite(A, *slot);
    if (r == *slot)
        return false;
    *slot = r;
    return true;
}

/* Rewrites a list into a new array when any item changes. */
static bool swap_list(struct replacing *A, struct basalt_sql_expr ***items, int n)
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

static struct basalt_sql_expr *rewrite(struct replacing *A, struct basalt_sql_expr *e)
{
    if (e == NULL || A->nomem)
        return e;
    struct basalt_sql_expr *with = NULL;
    switch (A->fn(A->ctx, e, &with)) {
    case BASALT_SQL_REPLACE: return with;
    case BASALT_SQL_KEEP: return e;
    default: break;
    }
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

basalt_status basalt_sql_ast_replace(struct binder *B, const struct basalt_sql_expr *e,
                                     basalt_sql_replace_fn fn, void *ctx,
                                     const struct basalt_sql_expr **out, struct basalt_error *err)
{
    struct replacing A = {B, fn, ctx, false};
    *out = rewrite(&A, basalt_sql_ast_shared(e));
    if (A.nomem)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

struct basalt_sql_expr *basalt_sql_ast_row_number(struct binder *B, struct basalt_sql_expr **partition,
                                                  int n_partition,
                                                  struct basalt_sql_order_item *order, int n_order,
                                                  int32_t pos)
{
    struct basalt_sql_window *w = basalt_arena_alloc(&B->arena, sizeof *w, 8);
    struct basalt_sql_expr *rn = basalt_arena_alloc(&B->arena, sizeof *rn, 8);
    if (w == NULL || rn == NULL || (n_order > 0 && order == NULL) ||
        (n_partition > 0 && partition == NULL))
        return NULL;
    memset(w, 0, sizeof *w);
    memset(rn, 0, sizeof *rn);
    w->parenthesised = true;
    w->n_partition = n_partition;
    w->partition = partition;
    w->n_order = n_order;
    w->order = order;
    w->pos = pos;
    rn->kind = BASALT_SQL_EXPR_FUNCTION;
    rn->pos = pos;
    rn->height = 2;
    rn->u.call.name.name = "row_number";
    rn->u.call.over = w;
    for (int i = 0; i < n_partition; i++)
        if (partition[i]->height + 1 > rn->height)
            rn->height = partition[i]->height + 1;
    for (int i = 0; i < n_order; i++)
        if (order[i].expr->height + 1 > rn->height)
            rn->height = order[i].expr->height + 1;
    return rn;
}

struct basalt_sql_order_item *basalt_sql_ast_item_order(struct binder *B,
                                                        const struct basalt_sql_query *q)
{
    const struct basalt_sql_select *sel = &q->u.select;
    struct basalt_sql_order_item *order =
        basalt_arena_alloc(&B->arena, sizeof *order * ((size_t)q->n_order + 1), 8);
    if (order == NULL)
        return NULL;
    for (int i = 0; i < q->n_order; i++) {
        order[i] = q->order[i];
        const struct basalt_sql_expr *o = q->order[i].expr;
        if (o->kind == BASALT_SQL_EXPR_INTEGER && o->u.lit.fits && o->u.lit.i64 >= 1 &&
            o->u.lit.i64 <= sel->n_items &&
            sel->items[o->u.lit.i64 - 1].expr->kind != BASALT_SQL_EXPR_STAR) {
            order[i].expr = sel->items[o->u.lit.i64 - 1].expr;
            continue;
        }
        for (int k = 0; o->kind == BASALT_SQL_EXPR_COLUMN && o->u.column.n_parts == 1 &&
                        k < sel->n_items;
             k++)
            if (sel->items[k].alias.name != NULL &&
                strcmp(sel->items[k].alias.name, o->u.column.parts[0].name) == 0) {
                order[i].expr = sel->items[k].expr;
                break;
            }
    }
    return order;
}

/* name(arg), or count(*) when arg is NULL, in the binder's arena. */
struct basalt_sql_expr *basalt_sql_ast_call(struct binder *B, const char *name,
                                            const struct basalt_sql_expr *arg)
{
    struct basalt_sql_expr *e = basalt_arena_alloc(&B->arena, sizeof *e, 8);
    struct basalt_sql_expr **args = basalt_arena_alloc(&B->arena, sizeof *args, 8);
    if (e == NULL || args == NULL)
        return NULL;
    memset(e, 0, sizeof *e);
    e->kind = BASALT_SQL_EXPR_FUNCTION;
    e->pos = arg != NULL ? arg->pos : 0;
    e->height = (arg != NULL ? arg->height : 0) + 1;
    e->u.call.name.name = name;
    if (arg == NULL) {
        e->u.call.star = true;
    } else {
        args[0] = basalt_sql_ast_shared(arg);
        e->u.call.args = args;
        e->u.call.n_args = 1;
    }
    return e;
}
