/* Expression nodes: builders, structural equality, operator tables and the
 * NOT push-down. */
#include <string.h>

#include "expr_internal.h"

struct basalt_iceberg_expr *basalt_iceberg_expr_node(struct basalt_arena *arena,
                                                     enum basalt_iceberg_op op)
{
    struct basalt_iceberg_expr *e =
        arena ? basalt_arena_alloc(arena, sizeof(*e), _Alignof(struct basalt_iceberg_expr)) : NULL;
    if (!e)
        return NULL;
    memset(e, 0, sizeof(*e));
    e->op = op;
    return e;
}

bool basalt_iceberg_op_has_literals(enum basalt_iceberg_op op)
{
    return op >= BASALT_ICEBERG_OP_LT && op <= BASALT_ICEBERG_OP_NOT_IN;
}

static bool is_unary(enum basalt_iceberg_op op)
{
    return op >= BASALT_ICEBERG_OP_IS_NULL && op <= BASALT_ICEBERG_OP_NOT_NAN;
}

static bool is_set(enum basalt_iceberg_op op)
{
    return op == BASALT_ICEBERG_OP_IN || op == BASALT_ICEBERG_OP_NOT_IN;
}

struct basalt_iceberg_expr *basalt_iceberg_expr_true(struct basalt_arena *arena)
{
    return basalt_iceberg_expr_node(arena, BASALT_ICEBERG_OP_TRUE);
}

struct basalt_iceberg_expr *basalt_iceberg_expr_false(struct basalt_arena *arena)
{
    return basalt_iceberg_expr_node(arena, BASALT_ICEBERG_OP_FALSE);
}

struct basalt_iceberg_expr *basalt_iceberg_expr_and(struct basalt_arena *arena,
                                                    struct basalt_iceberg_expr *a,
                                                    struct basalt_iceberg_expr *b)
{
    if (!a || !b)
        return NULL;
    if (a->op == BASALT_ICEBERG_OP_FALSE || b->op == BASALT_ICEBERG_OP_TRUE)
        return a;
    if (b->op == BASALT_ICEBERG_OP_FALSE || a->op == BASALT_ICEBERG_OP_TRUE)
        return b;
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_node(arena, BASALT_ICEBERG_OP_AND);
    if (e) {
        e->left = a;
        e->right = b;
    }
    return e;
}

struct basalt_iceberg_expr *basalt_iceberg_expr_or(struct basalt_arena *arena,
                                                   struct basalt_iceberg_expr *a,
                                                   struct basalt_iceberg_expr *b)
{
    if (!a || !b)
        return NULL;
    if (a->op == BASALT_ICEBERG_OP_TRUE || b->op == BASALT_ICEBERG_OP_FALSE)
        return a;
    if (b->op == BASALT_ICEBERG_OP_TRUE || a->op == BASALT_ICEBERG_OP_FALSE)
        return b;
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_node(arena, BASALT_ICEBERG_OP_OR);
    if (e) {
        e->left = a;
        e->right = b;
    }
    return e;
}

struct basalt_iceberg_expr *basalt_iceberg_expr_not(struct basalt_arena *arena,
                                                    struct basalt_iceberg_expr *a)
{
    if (!a)
        return NULL;
    if (a->op == BASALT_ICEBERG_OP_TRUE)
        return basalt_iceberg_expr_false(arena);
    if (a->op == BASALT_ICEBERG_OP_FALSE)
        return basalt_iceberg_expr_true(arena);
    if (a->op == BASALT_ICEBERG_OP_NOT)
        return a->left;
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_node(arena, BASALT_ICEBERG_OP_NOT);
    if (e)
        e->left = a;
    return e;
}

static struct basalt_iceberg_expr *predicate(struct basalt_arena *arena, enum basalt_iceberg_op op,
                                             const char *name,
                                             const struct basalt_iceberg_value *literals,
                                             uint32_t n)
{
    if (!name || (n && !literals))
        return NULL;
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_node(arena, op);
    if (!e)
        return NULL;
    e->name = basalt_arena_strndup(arena, name, strlen(name));
    if (!e->name)
        return NULL;
    if (n) {
        e->literals = basalt_arena_alloc(arena, sizeof(*e->literals) * n,
                                         _Alignof(struct basalt_iceberg_value));
        if (!e->literals)
            return NULL;
        for (uint32_t i = 0; i < n; i++) {
            e->literals[i] = literals[i];
            const struct basalt_iceberg_value *v = &literals[i];
            bool has_bytes = v->type == BASALT_ICEBERG_TYPE_STRING ||
                             v->type == BASALT_ICEBERG_TYPE_BINARY ||
                             v->type == BASALT_ICEBERG_TYPE_FIXED ||
                             v->type == BASALT_ICEBERG_TYPE_UUID;
            if (has_bytes && !v->is_null) {
                uint8_t *copy = basalt_arena_alloc(arena, v->u.bytes.len + 1, 1);
                if (!copy)
                    return NULL;
                if (v->u.bytes.len)
                    memcpy(copy, v->u.bytes.data, v->u.bytes.len);
                copy[v->u.bytes.len] = 0;
                e->literals[i].u.bytes.data = copy;
            }
        }
    }
    e->n_literals = n;
    return e;
}

struct basalt_iceberg_expr *basalt_iceberg_expr_unary(struct basalt_arena *arena,
                                                      enum basalt_iceberg_op op, const char *name)
{
    return is_unary(op) ? predicate(arena, op, name, NULL, 0) : NULL;
}

struct basalt_iceberg_expr *basalt_iceberg_expr_literal(struct basalt_arena *arena,
                                                        enum basalt_iceberg_op op,
                                                        const char *name,
                                                        const struct basalt_iceberg_value *literal)
{
    if (!basalt_iceberg_op_has_literals(op) || is_set(op) || !literal)
        return NULL;
    return predicate(arena, op, name, literal, 1);
}

struct basalt_iceberg_expr *basalt_iceberg_expr_set(struct basalt_arena *arena,
                                                    enum basalt_iceberg_op op, const char *name,
                                                    const struct basalt_iceberg_value *literals,
                                                    uint32_t n)
{
    return is_set(op) ? predicate(arena, op, name, literals, n) : NULL;
}

bool basalt_iceberg_expr_equal(const struct basalt_iceberg_expr *a,
                               const struct basalt_iceberg_expr *b)
{
    while (a && b) {
        if (a->op != b->op)
            return false;
        switch (a->op) {
        case BASALT_ICEBERG_OP_TRUE:
        case BASALT_ICEBERG_OP_FALSE:
            return true;
        case BASALT_ICEBERG_OP_AND:
        case BASALT_ICEBERG_OP_OR:
            if (!basalt_iceberg_expr_equal(a->right, b->right))
                return false;
            a = a->left;
            b = b->left;
            continue;
        case BASALT_ICEBERG_OP_NOT:
            a = a->left;
            b = b->left;
            continue;
        default:
            break;
        }
        if (a->field_id != b->field_id || a->n_literals != b->n_literals)
            return false;
        if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name) != 0))
            return false;
        for (uint32_t i = 0; i < a->n_literals; i++)
            if (!basalt_iceberg_value_identical(&a->literals[i], &b->literals[i]))
                return false;
        return true;
    }
    return a == b;
}

enum basalt_iceberg_op basalt_iceberg_op_negate(enum basalt_iceberg_op op)
{
    switch (op) {
    case BASALT_ICEBERG_OP_TRUE: return BASALT_ICEBERG_OP_FALSE;
    case BASALT_ICEBERG_OP_FALSE: return BASALT_ICEBERG_OP_TRUE;
    case BASALT_ICEBERG_OP_AND: return BASALT_ICEBERG_OP_OR;
    case BASALT_ICEBERG_OP_OR: return BASALT_ICEBERG_OP_AND;
    case BASALT_ICEBERG_OP_NOT: return BASALT_ICEBERG_OP_NOT;
    case BASALT_ICEBERG_OP_IS_NULL: return BASALT_ICEBERG_OP_NOT_NULL;
    case BASALT_ICEBERG_OP_NOT_NULL: return BASALT_ICEBERG_OP_IS_NULL;
    case BASALT_ICEBERG_OP_IS_NAN: return BASALT_ICEBERG_OP_NOT_NAN;
    case BASALT_ICEBERG_OP_NOT_NAN: return BASALT_ICEBERG_OP_IS_NAN;
    case BASALT_ICEBERG_OP_LT: return BASALT_ICEBERG_OP_GT_EQ;
    case BASALT_ICEBERG_OP_LT_EQ: return BASALT_ICEBERG_OP_GT;
    case BASALT_ICEBERG_OP_GT: return BASALT_ICEBERG_OP_LT_EQ;
    case BASALT_ICEBERG_OP_GT_EQ: return BASALT_ICEBERG_OP_LT;
    case BASALT_ICEBERG_OP_EQ: return BASALT_ICEBERG_OP_NOT_EQ;
    case BASALT_ICEBERG_OP_NOT_EQ: return BASALT_ICEBERG_OP_EQ;
    case BASALT_ICEBERG_OP_STARTS_WITH: return BASALT_ICEBERG_OP_NOT_STARTS_WITH;
    case BASALT_ICEBERG_OP_NOT_STARTS_WITH: return BASALT_ICEBERG_OP_STARTS_WITH;
    case BASALT_ICEBERG_OP_IN: return BASALT_ICEBERG_OP_NOT_IN;
    case BASALT_ICEBERG_OP_NOT_IN: return BASALT_ICEBERG_OP_IN;
    }
    return op;
}

enum basalt_iceberg_op basalt_iceberg_op_flip(enum basalt_iceberg_op op)
{
    switch (op) {
    case BASALT_ICEBERG_OP_LT: return BASALT_ICEBERG_OP_GT;
    case BASALT_ICEBERG_OP_LT_EQ: return BASALT_ICEBERG_OP_GT_EQ;
    case BASALT_ICEBERG_OP_GT: return BASALT_ICEBERG_OP_LT;
    case BASALT_ICEBERG_OP_GT_EQ: return BASALT_ICEBERG_OP_LT_EQ;
    default: return op;
    }
}

const char *basalt_iceberg_op_name(enum basalt_iceberg_op op)
{
    static const char *const names[] = {
        "TRUE", "FALSE", "AND", "OR", "NOT", "IS_NULL", "NOT_NULL", "IS_NAN", "NOT_NAN", "LT",
        "LT_EQ", "GT", "GT_EQ", "EQ", "NOT_EQ", "STARTS_WITH", "NOT_STARTS_WITH", "IN", "NOT_IN"};
    return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

static struct basalt_iceberg_expr *rewrite(struct basalt_arena *arena,
                                           const struct basalt_iceberg_expr *e, bool negate)
{
    struct basalt_iceberg_expr *r;
    switch (e->op) {
    case BASALT_ICEBERG_OP_NOT:
        return e->left ? rewrite(arena, e->left, !negate) : NULL;
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR: {
        if (!e->left || !e->right)
            return NULL;
        struct basalt_iceberg_expr *l = rewrite(arena, e->left, negate);
        struct basalt_iceberg_expr *rr = l ? rewrite(arena, e->right, negate) : NULL;
        if (!rr)
            return NULL;
        r = basalt_iceberg_expr_node(arena, negate ? basalt_iceberg_op_negate(e->op) : e->op);
        if (r) {
            r->left = l;
            r->right = rr;
        }
        return r;
    }
    default:
        r = basalt_iceberg_expr_node(arena, e->op);
        if (!r)
            return NULL;
        *r = *e;
        if (negate)
            r->op = basalt_iceberg_op_negate(e->op);
        return r;
    }
}

struct basalt_iceberg_expr *basalt_iceberg_expr_rewrite_not(struct basalt_arena *arena,
                                                            const struct basalt_iceberg_expr *expr)
{
    return expr ? rewrite(arena, expr, false) : NULL;
}
