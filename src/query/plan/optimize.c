/* The optimiser's rewrites before a run:
 *   - predicates: the `column op constant` conjuncts of a filter directly
 *     above a Parquet or Iceberg scan go into the scan's pruning;
 *   - columns: walking down from the root with the set of columns each
 *     operator's parent needs, every operator keeps only those (and what its
 *     own expressions read), and scans read only the columns left; a join
 *     reads its keys and residual's columns inside and outputs only what
 *     its parent reads (join_keep). The
 *     expressions of an operator whose input narrowed are copied onto the
 *     narrower input (remap.c). */
#include <string.h>

#include "plan/plan_internal.h"

static basalt_status remap_expr(struct basalt_qexpr_builder *nb, struct basalt_qexpr **e,
                                const int32_t *map, struct basalt_error *err)
{
    if (*e == NULL)
        return BASALT_OK;
    return basalt_qexpr_remap(nb, *e, map, e, err);
}

static basalt_status copy_child_schema(struct basalt_qplan *node, struct basalt_error *err)
{
    basalt_arrow_schema_release(&node->schema);
    return basalt_arrow_schema_copy(&node->child[0]->schema, &node->schema, err);
}

static basalt_status prune(struct basalt_qctx *ctx, struct basalt_qplan *node, const bool *need,
                           int32_t *map, struct basalt_error *err);

/* Prunes `child` to what `need` asks; *cmap (owned) maps its old columns. */
static basalt_status prune_child(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                 const bool *need, int32_t **cmap, struct basalt_error *err)
{
    *cmap = basalt_calloc((size_t)child->schema.n_children + 1, sizeof **cmap);
    if (*cmap == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return prune(ctx, child, need, *cmap, err);
}

static bool *need_new(int64_t n)
{
    return basalt_calloc((size_t)n + 1, sizeof(bool));
}

static basalt_status prune_scan(struct basalt_qplan *node, const bool *need, int32_t *map,
                                struct basalt_error *err)
{
    struct qscan *s = &node->scan;
    int32_t n = (int32_t)node->schema.n_children;
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
        k += need[i];
    if (k == n || n == 0) {
        for (int32_t i = 0; i < n; i++)
            map[i] = i;
        return BASALT_OK;
    }
    s->keep = basalt_calloc((size_t)(k ? k : 1), sizeof *s->keep);
    if (s->keep == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    k = 0;
    for (int32_t i = 0; i < n; i++) {
        map[i] = need[i] ? k : -1;
        if (need[i])
            s->keep[k++] = i;
    }
    /* COUNT(*) needs rows, not values: read the first column. */
    if (k == 0)
        s->keep[k++] = 0;
    s->n_keep = k;
    const struct ArrowSchema **fields = basalt_calloc((size_t)k, sizeof *fields);
    if (fields == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t i = 0; i < k; i++)
        fields[i] = s->full.children[s->keep[i]];
    basalt_arrow_schema_release(&node->schema);
    basalt_status st = basalt_qplan_struct_schema(fields, NULL, k, &node->schema, err);
    basalt_free(fields);
    return st;
}

/* The filter's output: the pruned child's columns its parent needs. When
 * the predicate reads others, the filter drops them (filter_keep), so that
 * rows are taken only from the columns passed on (count(*) WHERE x > 0 takes
 * none). */
static basalt_status keep_needed(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                 const bool *need, int64_t n, const int32_t *cmap, int32_t *map,
                                 struct basalt_error *err)
{
    const struct ArrowSchema *in = &node->child[0]->schema;
    int k = 0;
    for (int64_t i = 0; i < n; i++)
        k += need[i];
    node->filter_keep = NULL;
    node->n_filter_keep = 0;
    if (k == in->n_children) {
        for (int64_t i = 0; i < n; i++)
            map[i] = need[i] ? cmap[i] : -1;
        return copy_child_schema(node, err);
    }
    int32_t *keep = basalt_arena_alloc(&ctx->arena, (size_t)(k + 1) * sizeof *keep, sizeof *keep);
    const struct ArrowSchema **fields = basalt_calloc((size_t)k + 1, sizeof *fields);
    if (keep == NULL || fields == NULL) {
        basalt_free(fields);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int j = 0;
    for (int64_t i = 0; i < n; i++) {
        map[i] = need[i] ? j : -1;
        if (need[i]) {
            keep[j] = cmap[i];
            fields[j] = in->children[cmap[i]];
            j++;
        }
    }
    struct ArrowSchema schema;
    basalt_status st = basalt_qplan_struct_schema(fields, NULL, k, &schema, err);
    basalt_free(fields);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_schema_release(&node->schema);
    basalt_arrow_schema_move(&schema, &node->schema);
    node->filter_keep = keep;
    node->n_filter_keep = k;
    if (node->child[0]->kind == QPLAN_SCAN_ICEBERG) {
        node->child[0]->scan.keep_above = keep;
        node->child[0]->scan.n_keep_above = k;
    }
    return BASALT_OK;
}

static basalt_status prune_filter(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                  const bool *need, int32_t *map, struct basalt_error *err)
{
    struct basalt_qplan *child = node->child[0];
    int64_t n = child->schema.n_children;
    /* Pushdown first, while the scan's columns are still its full schema. */
    if ((child->kind == QPLAN_SCAN_PARQUET || child->kind == QPLAN_SCAN_ICEBERG) &&
        child->scan.pushed == NULL) {
        basalt_status st = basalt_qpushed_collect(node->pred, &ctx->arena, &child->scan.pushed,
                                                  &child->scan.n_pushed, &child->scan.pushed_all,
                                                  err);
        if (st != BASALT_OK)
            return st;
    }
    bool *cneed = need_new(n);
    if (cneed == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        cneed[i] = need[i];
    basalt_qexpr_columns(node->pred, cneed);
    int32_t *cmap = NULL;
    basalt_status st = prune_child(ctx, child, cneed, &cmap, err);
    struct basalt_qexpr_builder *nb = NULL;
    if (st == BASALT_OK)
        st = basalt_qctx_builder_over(ctx, &child->schema, &nb, err);
    if (st == BASALT_OK)
        st = remap_expr(nb, &node->pred, cmap, err);
    if (st == BASALT_OK)
        st = keep_needed(ctx, node, need, n, cmap, map, err);
    basalt_free(cneed);
    basalt_free(cmap);
    return st;
}

static basalt_status prune_project(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                   const bool *need, int32_t *map, struct basalt_error *err)
{
    struct basalt_qplan *child = node->child[0];
    bool *cneed = need_new(child->schema.n_children);
    if (cneed == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int k = 0;
    for (int i = 0; i < node->n_exprs; i++) {
        map[i] = need[i] ? k++ : -1;
        if (need[i])
            basalt_qexpr_columns(node->exprs[i], cneed);
    }
    int32_t *cmap = NULL;
    basalt_status st = prune_child(ctx, child, cneed, &cmap, err);
    struct basalt_qexpr_builder *nb = NULL;
    if (st == BASALT_OK)
        st = basalt_qctx_builder_over(ctx, &child->schema, &nb, err);
    struct ArrowSchema schema;
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&schema, "+s", NULL, 0, k, err);
    if (st == BASALT_OK) {
        int j = 0;
        for (int i = 0; i < node->n_exprs && st == BASALT_OK; i++) {
            if (!need[i])
                continue;
            st = remap_expr(nb, &node->exprs[i], cmap, err);
            if (st == BASALT_OK)
                st = basalt_arrow_schema_copy(node->schema.children[i], schema.children[j], err);
            node->exprs[j++] = node->exprs[i];
        }
        node->n_exprs = k;
        basalt_arrow_schema_release(&node->schema);
        basalt_arrow_schema_move(&schema, &node->schema);
    }
    basalt_free(cneed);
    basalt_free(cmap);
    return st;
}

static basalt_status prune_aggregate(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     int32_t *map, struct basalt_error *err)
{
    struct basalt_qplan *child = node->child[0];
    bool *cneed = need_new(child->schema.n_children);
    if (cneed == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < node->n_exprs; i++)
        basalt_qexpr_columns(node->exprs[i], cneed);
    for (int i = 0; i < node->n_calls; i++) {
        if (node->calls[i].call.arg != NULL)
            basalt_qexpr_columns(node->calls[i].call.arg, cneed);
        if (node->calls[i].call.arg2 != NULL)
            basalt_qexpr_columns(node->calls[i].call.arg2, cneed);
        if (node->calls[i].call.filter != NULL)
            basalt_qexpr_columns(node->calls[i].call.filter, cneed);
    }
    for (int k = 0; k < node->n_agg_order; k++)
        basalt_qexpr_columns(node->agg_order[k].expr, cneed);
    int32_t *cmap = NULL;
    basalt_status st = prune_child(ctx, child, cneed, &cmap, err);
    struct basalt_qexpr_builder *nb = NULL;
    if (st == BASALT_OK)
        st = basalt_qctx_builder_over(ctx, &child->schema, &nb, err);
    for (int i = 0; i < node->n_exprs && st == BASALT_OK; i++)
        st = remap_expr(nb, &node->exprs[i], cmap, err);
    for (int i = 0; i < node->n_calls && st == BASALT_OK; i++) {
        st = remap_expr(nb, &node->calls[i].call.arg, cmap, err);
        if (st == BASALT_OK && node->calls[i].call.arg2 != NULL)
            st = remap_expr(nb, &node->calls[i].call.arg2, cmap, err);
        if (st == BASALT_OK && node->calls[i].call.filter != NULL)
            st = remap_expr(nb, &node->calls[i].call.filter, cmap, err);
    }
    for (int k = 0; k < node->n_agg_order && st == BASALT_OK; k++)
        st = remap_expr(nb, &node->agg_order[k].expr, cmap, err);
    for (int64_t i = 0; i < node->schema.n_children; i++)
        map[i] = (int32_t)i;
    basalt_free(cneed);
    basalt_free(cmap);
    return st;
}

/* The join's output: the columns of its row (`width` of them, its
 * children pruned; bmap maps its n old columns to them) that its parent
 * needs, join_keep naming them when they are fewer. Its keys and its
 * residual's columns are read inside the join before any pair is gathered,
 * so they leave it only when read above: a count over a join gathers
 * nothing, where it had gathered both sides' rows whole. */
static basalt_status keep_join_output(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                      const bool *need, int64_t n, const int32_t *bmap,
                                      int64_t width, int32_t *map, struct basalt_error *err)
{
    int32_t *pos = basalt_calloc((size_t)width + 1, sizeof *pos);
    if (pos == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        if (need[i])
            pos[bmap[i]] = 1;
    int32_t k = 0;
    for (int64_t c = 0; c < width; c++)
        pos[c] = pos[c] ? k++ : -1;
    node->join_keep = NULL;
    node->n_join_keep = 0;
    if (k < width) {
        node->join_keep =
            basalt_arena_alloc(&ctx->arena, (size_t)(k + 1) * sizeof(int), sizeof(int));
        if (node->join_keep == NULL) {
            basalt_free(pos);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        for (int64_t c = 0; c < width; c++)
            if (pos[c] >= 0)
                node->join_keep[pos[c]] = (int)c;
        node->n_join_keep = k;
    }
    for (int64_t i = 0; i < n; i++)
        map[i] = need[i] ? (k < width ? pos[bmap[i]] : bmap[i]) : -1;
    basalt_free(pos);
    return BASALT_OK;
}

static basalt_status prune_join(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                const bool *need, int32_t *map, struct basalt_error *err)
{
    struct basalt_qplan *l = node->child[0], *r = node->child[1];
    int64_t nl = l->schema.n_children, nr = r->schema.n_children;
    bool right_out = node->join_type != BASALT_QPLAN_JOIN_SEMI &&
                     node->join_type != BASALT_QPLAN_JOIN_ANTI;
    bool *both = need_new(nl + nr);
    if (both == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0; i < nl + (right_out ? nr : 0); i++)
        both[i] = need[i];
    for (int i = 0; i < node->n_join_keys; i++) {
        both[node->left_keys[i]] = true;
        both[nl + node->right_keys[i]] = true;
    }
    if (node->residual != NULL)
        basalt_qexpr_columns(node->residual, both);
    int32_t *lmap = NULL, *rmap = NULL;
    basalt_status st = prune_child(ctx, l, both, &lmap, err);
    if (st == BASALT_OK)
        st = prune_child(ctx, r, both + nl, &rmap, err);
    int32_t *bmap = NULL;
    if (st == BASALT_OK) {
        bmap = basalt_calloc((size_t)(nl + nr) + 1, sizeof *bmap);
        if (bmap == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK) {
        int64_t nl2 = l->schema.n_children;
        for (int64_t i = 0; i < nl; i++)
            bmap[i] = lmap[i];
        for (int64_t i = 0; i < nr; i++)
            bmap[nl + i] = rmap[i] < 0 ? -1 : (int32_t)(nl2 + rmap[i]);
        for (int i = 0; i < node->n_join_keys; i++) {
            node->left_keys[i] = lmap[node->left_keys[i]];
            node->right_keys[i] = rmap[node->right_keys[i]];
        }
        if (node->residual != NULL) {
            struct basalt_qexpr_builder *nb = NULL;
            st = basalt_qplan_join_builder(ctx, l, r, &nb, err);
            if (st == BASALT_OK)
                st = remap_expr(nb, &node->residual, bmap, err);
        }
        int64_t width = l->schema.n_children + (right_out ? r->schema.n_children : 0);
        if (st == BASALT_OK)
            st = keep_join_output(ctx, node, need, nl + (right_out ? nr : 0), bmap, width, map,
                                  err);
    }
    if (st == BASALT_OK) {
        basalt_arrow_schema_release(&node->schema);
        st = basalt_qplan_join_schema(node, err);
    }
    basalt_free(both);
    basalt_free(lmap);
    basalt_free(rmap);
    basalt_free(bmap);
    return st;
}

static basalt_status prune_sort_limit(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                      const bool *need, int32_t *map, struct basalt_error *err)
{
    struct basalt_qplan *child = node->child[0];
    int64_t n = child->schema.n_children;
    bool *cneed = need_new(n);
    if (cneed == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        cneed[i] = need[i];
    for (int i = 0; i < node->n_sort_keys; i++)
        cneed[node->sort_keys[i].column] = true;
    int32_t *cmap = NULL;
    basalt_status st = prune_child(ctx, child, cneed, &cmap, err);
    if (st == BASALT_OK) {
        for (int i = 0; i < node->n_sort_keys; i++)
            node->sort_keys[i].column = cmap[node->sort_keys[i].column];
        for (int64_t i = 0; i < n; i++)
            map[i] = need[i] ? cmap[i] : -1;
        st = copy_child_schema(node, err);
    }
    basalt_free(cneed);
    basalt_free(cmap);
    return st;
}

/* An UNNEST keeps its lists and the input columns its parent needs, and
 * passes on whatever its input keeps, then its element columns. */
static basalt_status prune_unnest(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                  const bool *need, int32_t *map, struct basalt_error *err)
{
    struct basalt_qplan *child = node->child[0];
    int64_t n = child->schema.n_children;
    int nu = node->n_unnest;
    bool *cneed = need_new(n);
    if (cneed == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0, o = 0; i < n; i++)
        cneed[i] = basalt_qplan_unnested(node, (int)i) || need[o++];
    /* old output position of each input column (-1: a list) */
    int32_t *at = basalt_calloc((size_t)n + 1, sizeof *at);
    int32_t *cmap = NULL;
    struct ArrowSchema old = node->schema;
    memset(&node->schema, 0, sizeof node->schema);
    basalt_status st = at ? prune_child(ctx, child, cneed, &cmap, err)
                          : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t old_kept = 0;
    for (int64_t i = 0; st == BASALT_OK && i < n; i++)
        at[i] = basalt_qplan_unnested(node, (int)i) ? -1 : (int32_t)old_kept++;
    for (int j = 0; st == BASALT_OK && j < nu; j++)
        node->unnest_cols[j] = cmap[node->unnest_cols[j]];
    int64_t m = child->schema.n_children, kept = m - nu;
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&node->schema, "+s", NULL, 0, kept + nu, err);
    for (int64_t i = 0, o = 0; i < m && st == BASALT_OK; i++)
        if (!basalt_qplan_unnested(node, (int)i))
            st = basalt_arrow_schema_copy(child->schema.children[i], node->schema.children[o++],
                                          err);
    for (int j = 0; j < nu && st == BASALT_OK; j++)
        st = basalt_arrow_schema_copy(old.children[old_kept + j], node->schema.children[kept + j],
                                      err);
    if (st == BASALT_OK) {
        /* an input column's new place among the kept ones: its new index
         * less the lists before it */
        for (int64_t i = 0; i < n; i++) {
            if (at[i] < 0 || !need[at[i]] || cmap[i] < 0)
                continue;
            int32_t before = 0;
            for (int j = 0; j < nu; j++)
                before += node->unnest_cols[j] < cmap[i];
            map[at[i]] = cmap[i] - before;
        }
        for (int64_t i = 0; i < old_kept; i++)
            if (!need[i])
                map[i] = -1;
        for (int j = 0; j < nu; j++)
            map[old_kept + j] = (int32_t)(kept + j);
    }
    basalt_free(at);
    basalt_arrow_schema_release(&old);
    basalt_free(cneed);
    basalt_free(cmap);
    return st;
}

/* A window keeps its partition, order, argument and default columns, the
 * input columns its parent needs, and only the calls its parent needs. */
static basalt_status prune_window(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                  const bool *need, int32_t *map, struct basalt_error *err)
{
    struct basalt_qplan *child = node->child[0];
    int64_t n = child->schema.n_children;
    bool *cneed = need_new(n);
    if (cneed == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        cneed[i] = need[i];
    for (int i = 0; i < node->n_part; i++)
        cneed[node->part_cols[i]] = true;
    for (int i = 0; i < node->n_sort_keys; i++)
        cneed[node->sort_keys[i].column] = true;
    int kept = 0;
    for (int i = 0; i < node->n_wcalls; i++) {
        if (!need[n + i])
            continue;
        if (node->wcalls[i].arg >= 0)
            cneed[node->wcalls[i].arg] = true;
        if (node->wcalls[i].default_arg >= 0)
            cneed[node->wcalls[i].default_arg] = true;
        kept++;
    }
    int32_t *cmap = NULL;
    basalt_status st = prune_child(ctx, child, cneed, &cmap, err);
    struct ArrowSchema schema;
    schema.release = NULL;
    int64_t n2 = child->schema.n_children;
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&schema, "+s", NULL, 0, n2 + kept, err);
    for (int64_t i = 0; i < n2 && st == BASALT_OK; i++)
        st = basalt_arrow_schema_copy(child->schema.children[i], schema.children[i], err);
    if (st == BASALT_OK) {
        for (int i = 0; i < node->n_part; i++)
            node->part_cols[i] = cmap[node->part_cols[i]];
        for (int i = 0; i < node->n_sort_keys; i++)
            node->sort_keys[i].column = cmap[node->sort_keys[i].column];
        for (int64_t i = 0; i < n; i++)
            map[i] = need[i] ? cmap[i] : -1;
        int j = 0;
        for (int i = 0; i < node->n_wcalls && st == BASALT_OK; i++) {
            if (!need[n + i]) {
                map[n + i] = -1;
                continue;
            }
            struct basalt_qplan_window_call c = node->wcalls[i];
            if (c.arg >= 0)
                c.arg = cmap[c.arg];
            if (c.default_arg >= 0)
                c.default_arg = cmap[c.default_arg];
            st = basalt_arrow_schema_copy(node->schema.children[n + i], schema.children[n2 + j],
                                          err);
            node->wcalls[j] = c;
            map[n + i] = (int32_t)(n2 + j);
            j++;
        }
        node->n_wcalls = kept;
    }
    if (st == BASALT_OK) {
        basalt_arrow_schema_release(&node->schema);
        basalt_arrow_schema_move(&schema, &node->schema);
    }
    basalt_arrow_schema_release(&schema);
    basalt_free(cneed);
    basalt_free(cmap);
    return st;
}

static basalt_status prune_all(struct basalt_qctx *ctx, struct basalt_qplan *node,
                               struct basalt_error *err)
{
    int64_t n = node->schema.n_children;
    bool *all = need_new(n);
    int32_t *m = basalt_calloc((size_t)n + 1, sizeof *m);
    basalt_status st = all && m ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0; st == BASALT_OK && i < n; i++)
        all[i] = true;
    if (st == BASALT_OK)
        st = prune(ctx, node, all, m, err);
    basalt_free(all);
    basalt_free(m);
    return st;
}

static basalt_status prune(struct basalt_qctx *ctx, struct basalt_qplan *node, const bool *need,
                           int32_t *map, struct basalt_error *err)
{
    int64_t n = node->schema.n_children;
    switch (node->kind) {
    case QPLAN_SCAN_PARQUET:
    case QPLAN_SCAN_ICEBERG:
        return prune_scan(node, need, map, err);
    case QPLAN_FILTER:
        return prune_filter(ctx, node, need, map, err);
    case QPLAN_PROJECT:
        return prune_project(ctx, node, need, map, err);
    case QPLAN_AGGREGATE:
        return prune_aggregate(ctx, node, map, err);
    case QPLAN_JOIN:
        return prune_join(ctx, node, need, map, err);
    case QPLAN_SORT:
    case QPLAN_LIMIT:
        return prune_sort_limit(ctx, node, need, map, err);
    case QPLAN_WINDOW:
        return prune_window(ctx, node, need, map, err);
    case QPLAN_UNNEST:
        return prune_unnest(ctx, node, need, map, err);
    case QPLAN_UNION_ALL:
        for (int i = 0; i < node->n_children; i++) {
            basalt_status st = prune_all(ctx, node->children[i], err);
            if (st != BASALT_OK)
                return st;
        }
        break;
    default: /* CSV and IPC read every column; VALUES is what it is */
        break;
    }
    for (int64_t i = 0; i < n; i++)
        map[i] = (int32_t)i;
    return BASALT_OK;
}

basalt_status basalt_qplan_optimize(struct basalt_qctx *ctx, struct basalt_qplan *root,
                                    struct basalt_error *err)
{
    basalt_status st = prune_all(ctx, root, err);
    if (st == BASALT_OK)
        basalt_qplan_window_limits(root);
    return st;
}
