/* The window node: window functions over partitions of its input (the
 * operator is window/window.h; run_window.c runs it). */
#include <stdio.h>
#include <string.h>

#include "plan/plan_internal.h"
#include "window/window.h"

basalt_status basalt_qplan_window(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                  const int *partition_cols, int n_partition,
                                  const struct basalt_qplan_sort_key *order_keys, int n_order,
                                  const struct basalt_qplan_window_call *calls, int n_calls,
                                  struct basalt_qplan **out, struct basalt_error *err)
{
    if (out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: NULL argument");
    *out = NULL;
    if (ctx == NULL || child == NULL || n_partition < 0 || n_order < 0 || n_calls < 0 ||
        (n_partition > 0 && partition_cols == NULL) || (n_order > 0 && order_keys == NULL) ||
        (n_calls > 0 && calls == NULL))
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: NULL argument");
    if (n_partition + n_order > 64)
        return basalt_error_set(err, BASALT_LIMIT, "window: more than 64 partition and order keys");
    const struct ArrowSchema *in = &child->schema;
    int nin = (int)in->n_children;
    for (int i = 0; i < n_partition + n_order; i++) {
        int c = i < n_partition ? partition_cols[i] : order_keys[i - n_partition].column;
        if (c < 0 || c >= nin)
            return basalt_error_set(err, BASALT_INVALID_ARG, "window: %s column %d out of range",
                                    i < n_partition ? "partition" : "order", c);
        basalt_status kst = basalt_qplan_key_column_ok(
            in->children[c], i < n_partition ? "PARTITION BY" : "window ORDER BY", err);
        if (kst != BASALT_OK)
            return kst;
        basalt_status st = basalt_qwin_check_key(in->children[c], err);
        if (st != BASALT_OK)
            return st;
    }
    struct ArrowSchema schema;
    basalt_status st = basalt_arrow_schema_init(&schema, "+s", NULL, 0, nin + n_calls, err);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; i < nin && st == BASALT_OK; i++)
        st = basalt_arrow_schema_copy(in->children[i], schema.children[i], err);
    char **names = basalt_calloc((size_t)n_calls + 1, sizeof *names);
    if (st == BASALT_OK && names == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n_calls && st == BASALT_OK; i++) {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "w%d", i);
        const char *name = calls[i].name != NULL ? calls[i].name : fallback;
        names[i] = basalt_arena_strndup(&ctx->arena, name, strlen(name));
        if (names[i] == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (st == BASALT_OK)
            st = basalt_qwin_check_call(in, order_keys, n_order, &calls[i], name,
                                        schema.children[nin + i], err);
        if (st != BASALT_OK)
            basalt_error_context(err, st, "window function '%s'", name);
    }
    struct basalt_qplan *node = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_node_new(ctx, QPLAN_WINDOW, &node, err);
    if (st == BASALT_OK) {
        node->child[0] = child;
        basalt_arrow_schema_move(&schema, &node->schema);
        node->part_cols = basalt_calloc((size_t)n_partition + 1, sizeof *node->part_cols);
        node->sort_keys = basalt_calloc((size_t)n_order + 1, sizeof *node->sort_keys);
        node->wcalls = basalt_calloc((size_t)n_calls + 1, sizeof *node->wcalls);
        if (node->part_cols == NULL || node->sort_keys == NULL || node->wcalls == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK) {
        if (n_partition > 0)
            memcpy(node->part_cols, partition_cols, (size_t)n_partition * sizeof *partition_cols);
        if (n_order > 0)
            memcpy(node->sort_keys, order_keys, (size_t)n_order * sizeof *order_keys);
        for (int i = 0; i < n_calls; i++) {
            node->wcalls[i] = calls[i];
            node->wcalls[i].name = names[i];
            if (calls[i].fn != BASALT_QPLAN_WIN_LAG && calls[i].fn != BASALT_QPLAN_WIN_LEAD)
                node->wcalls[i].default_arg = -1;
            if (calls[i].fn < BASALT_QPLAN_WIN_LAG || calls[i].fn == BASALT_QPLAN_WIN_COUNT_STAR)
                node->wcalls[i].arg = -1;
        }
        node->n_part = n_partition;
        node->n_sort_keys = n_order;
        node->n_wcalls = n_calls;
        *out = node;
    }
    basalt_arrow_schema_release(&schema);
    basalt_free(names);
    return st;
}
