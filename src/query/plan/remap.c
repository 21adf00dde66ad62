/* Moving a bound expression onto another input: when the optimiser drops
 * columns below an operator, the operator's expressions are copied into a
 * builder over the narrower input with their column indices renumbered.
 * Types do not change (the columns are the same), so the copy needs no
 * re-binding. A node the tree holds twice (x IN (a, b) compares the one x
 * with each item) is copied once, so the compiler still computes it once. */
#include <stdint.h>
#include <string.h>

#include "plan/plan_internal.h"

/* Nodes with arguments copied so far: original -> copy, open addressing. */
struct copied {
    const struct basalt_qexpr **from;
    struct basalt_qexpr **to;
    size_t cap, n; /* cap a power of two, or 0 */
};

static size_t slot_of(const struct copied *m, const struct basalt_qexpr *e)
{
    size_t h = (size_t)(((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
    while (m->from[h] != NULL && m->from[h] != e)
        h = (h + 1) & (m->cap - 1);
    return h;
}

static struct basalt_qexpr *copied_find(const struct copied *m, const struct basalt_qexpr *e)
{
    return m->cap == 0 ? NULL : m->to[slot_of(m, e)];
}

static bool copied_add(struct copied *m, const struct basalt_qexpr *e, struct basalt_qexpr *c)
{
    if (2 * (m->n + 1) > m->cap) {
        struct copied g = {0};
        g.cap = m->cap ? 2 * m->cap : 64;
        g.from = basalt_calloc(g.cap, sizeof *g.from);
        g.to = basalt_calloc(g.cap, sizeof *g.to);
        if (g.from == NULL || g.to == NULL) {
            basalt_free(g.from);
            basalt_free(g.to);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->from[i] != NULL) {
                size_t h = slot_of(&g, m->from[i]);
                g.from[h] = m->from[i];
                g.to[h] = m->to[i];
            }
        g.n = m->n;
        basalt_free(m->from);
        basalt_free(m->to);
        *m = g;
    }
    size_t h = slot_of(m, e);
    m->from[h] = e;
    m->to[h] = c;
    m->n++;
    return true;
}

static basalt_status copy_node(struct basalt_qexpr_builder *dst, const struct basalt_qexpr *e,
                               const int32_t *map, struct copied *done, int depth,
                               struct basalt_qexpr **out, struct basalt_error *err)
{
    if (depth > 10000)
        return basalt_error_set(err, BASALT_LIMIT, "expression nested too deeply");
    if (e->n_args > 0 && (*out = copied_find(done, e)) != NULL)
        return BASALT_OK;
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
        if (!copied_add(done, e, c))
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
    struct copied done = {0};
    basalt_status st = copy_node(dst, e, map, &done, 0, out, err);
    basalt_free(done.from);
    basalt_free(done.to);
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
