/* Moving a bound expression onto another input: when the optimiser drops
 * columns below an operator, the operator's expressions are copied into a
 * builder over the narrower input with their column indices renumbered.
 * Types do not change (the columns are the same), so the copy needs no
 * re-binding. A node the tree holds twice (x IN (a, b) compares the one x
 * with each item) is copied once, so the compiler still computes it once. */
#include <string.h>

#include "plan/plan_internal.h"

/* An IN set's constants into dst's arena, with their strings. */
static basalt_status copy_set(struct basalt_qexpr_builder *dst, const struct basalt_qexpr *e,
                              struct basalt_qexpr *c, struct basalt_error *err)
{
    struct basalt_query_value *set =
        basalt_arena_alloc(&dst->arena, sizeof *set * ((size_t)e->n_set + 1), 8);
    if (set == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t i = 0; i < e->n_set; i++) {
        set[i] = e->set[i];
        enum basalt_query_type_id id = set[i].type.id;
        if (set[i].is_null || (id != BASALT_QUERY_TYPE_STRING && id != BASALT_QUERY_TYPE_BINARY))
            continue;
        char *p = basalt_arena_alloc(&dst->arena, set[i].v.str.len + 1, 1);
        if (p == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (set[i].v.str.len > 0)
            memcpy(p, set[i].v.str.ptr, set[i].v.str.len);
        p[set[i].v.str.len] = '\0';
        set[i].v.str.ptr = p;
    }
    c->set = set;
    return BASALT_OK;
}

static basalt_status copy_node(struct basalt_qexpr_builder *dst, const struct basalt_qexpr *e,
                               const int32_t *map, struct qnode_map *done, int depth,
                               struct basalt_qexpr **out, struct basalt_error *err)
{
    if (depth > 10000)
        return basalt_error_set(err, BASALT_LIMIT, "expression nested too deeply");
    uintptr_t copy;
    if (e->n_args > 0 && basalt_qnode_map_find(done, e, &copy)) {
        *out = (struct basalt_qexpr *)copy;
        return BASALT_OK;
    }
    struct basalt_qexpr *c = basalt_arena_alloc(&dst->arena, sizeof *c, _Alignof(struct basalt_qexpr));
    if (c == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *c = *e;
    if (e->kind == QN_COLUMN) {
        int32_t to = map[e->column];
        if (to < 0 || to >= dst->n_columns)
            return basalt_error_set(err, BASALT_INTERNAL, "column %d pruned but referenced",
                                    (int)e->column);
        c->column = to;
    }
    if (e->name != NULL) {
        c->name = basalt_arena_strndup(&dst->arena, e->name, strlen(e->name));
        if (c->name == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (e->kind == QN_CONST && !e->value.is_null &&
        (e->value.type.id == BASALT_QUERY_TYPE_STRING ||
         e->value.type.id == BASALT_QUERY_TYPE_BINARY)) {
        char *p = basalt_arena_alloc(&dst->arena, e->value.v.str.len + 1, 1);
        if (p == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (e->value.v.str.len > 0)
            memcpy(p, e->value.v.str.ptr, e->value.v.str.len);
        p[e->value.v.str.len] = '\0';
        c->value.v.str.ptr = p;
    }
    if (e->kind == QN_IN_SET) {
        basalt_status st = copy_set(dst, e, c, err);
        if (st != BASALT_OK)
            return st;
    }
    if (e->n_args > 0) {
        c->args = basalt_arena_alloc(&dst->arena, (size_t)e->n_args * sizeof *c->args,
                                     _Alignof(struct basalt_qexpr *));
        if (c->args == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < e->n_args; i++) {
            basalt_status st = copy_node(dst, e->args[i], map, done, depth + 1, &c->args[i], err);
            if (st != BASALT_OK)
                return st;
        }
        if (!basalt_qnode_map_put(done, e, (uintptr_t)c))
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    *out = c;
    return BASALT_OK;
}

basalt_status basalt_qexpr_remap(struct basalt_qexpr_builder *dst, const struct basalt_qexpr *e,
                                 const int32_t *map, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    *out = NULL;
    struct qnode_map done = {0};
    basalt_status st = copy_node(dst, e, map, &done, 0, out, err);
    basalt_qnode_map_free(&done);
    if (st != BASALT_OK)
        *out = NULL;
    return st;
}

void basalt_qexpr_columns(const struct basalt_qexpr *e, bool *used)
{
    if (e->kind == QN_COLUMN)
        used[e->column] = true;
    for (int i = 0; i < e->n_args; i++)
        basalt_qexpr_columns(e->args[i], used);
}
