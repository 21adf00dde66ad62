/* The query context and what every node shares: allocation, schemas,
 * builders. */
#include <string.h>

#include "basalt/ipc.h"
#include "basalt/io.h"
#include "plan/plan_internal.h"

void basalt_qctx_options_init(struct basalt_qctx_options *o)
{
    memset(o, 0, sizeof *o);
}

basalt_status basalt_qctx_new(const struct basalt_qctx_options *o, struct basalt_qctx **out,
                              struct basalt_error *err)
{
    *out = NULL;
    struct basalt_qctx *ctx = basalt_calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (o != NULL)
        ctx->o = *o;
    basalt_arena_init(&ctx->arena, 16384);
    *out = ctx;
    return BASALT_OK;
}

static void node_free(struct basalt_qplan *n)
{
    basalt_arrow_schema_release(&n->schema);
    struct qscan *s = &n->scan;
    for (size_t i = 0; i < s->n_paths; i++) {
        basalt_free(s->paths[i]);
        if (s->readers != NULL)
            basalt_parquet_reader_close(s->readers[i]);
    }
    basalt_free(s->paths);
    basalt_free(s->readers);
    basalt_free(s->path);
    basalt_csv_reader_close(s->csv_reader);
    basalt_json_reader_close(s->json_reader);
    basalt_ipc_reader_close(s->ipc_reader);
    basalt_free(s->ref);
    basalt_arrow_schema_release(&s->full);
    basalt_free(s->nested);
    basalt_arrow_schema_release(&s->with_structs);
    basalt_free(s->keep);
    basalt_free(s->pushed);
    basalt_arrow_batches_reset(&s->values);
    basalt_free(s->label);
    basalt_free(n->children);
    basalt_free(n->exprs);
    basalt_free(n->calls);
    basalt_free(n->agg_order);
    basalt_free(n->left_keys);
    basalt_free(n->right_keys);
    basalt_free(n->sort_keys);
    basalt_free(n->part_cols);
    basalt_free(n->unnest_cols);
    basalt_free(n->wcalls);
    basalt_free(n);
}

void basalt_qctx_free(struct basalt_qctx *ctx)
{
    if (ctx == NULL)
        return;
    for (int i = 0; i < ctx->n_nodes; i++)
        node_free(ctx->nodes[i]);
    for (int i = 0; i < ctx->n_builders; i++)
        basalt_qexpr_builder_free(ctx->builders[i]);
    basalt_free(ctx->nodes);
    basalt_free(ctx->builders);
    basalt_arena_reset(&ctx->arena);
    basalt_io_store_free(ctx->own_store);
    basalt_free(ctx);
}

basalt_status basalt_qctx_store(struct basalt_qctx *ctx, struct basalt_io_store **out,
                                struct basalt_error *err)
{
    *out = ctx->o.store != NULL ? ctx->o.store : ctx->own_store;
    if (*out != NULL)
        return BASALT_OK;
    basalt_status st = basalt_io_store_new(NULL, &ctx->own_store, err);
    *out = ctx->own_store;
    return st;
}

static bool grow(void **items, int *cap, int n, size_t size)
{
    if (n < *cap)
        return true;
    int c = *cap ? *cap * 2 : 16;
    void *p = basalt_realloc(*items, (size_t)c * size);
    if (p == NULL)
        return false;
    *items = p;
    *cap = c;
    return true;
}

basalt_status basalt_qplan_node_new(struct basalt_qctx *ctx, enum qplan_kind kind,
                                    struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (!grow((void **)&ctx->nodes, &ctx->cap_nodes, ctx->n_nodes, sizeof *ctx->nodes))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_qplan *n = basalt_calloc(1, sizeof *n);
    if (n == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    n->kind = kind;
    n->limit = -1;
    basalt_arrow_batches_init(&n->scan.values);
    ctx->nodes[ctx->n_nodes++] = n;
    *out = n;
    return BASALT_OK;
}

basalt_status basalt_qctx_builder_over(struct basalt_qctx *ctx, const struct ArrowSchema *schema,
                                       struct basalt_qexpr_builder **out, struct basalt_error *err)
{
    *out = NULL;
    if (!grow((void **)&ctx->builders, &ctx->cap_builders, ctx->n_builders,
              sizeof *ctx->builders))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = basalt_qexpr_builder_new(schema, out, err);
    if (st != BASALT_OK)
        return st;
    ctx->builders[ctx->n_builders++] = *out;
    return BASALT_OK;
}

const struct ArrowSchema *basalt_qplan_schema(const struct basalt_qplan *node)
{
    return &node->schema;
}

basalt_status basalt_qplan_builder(struct basalt_qctx *ctx, const struct basalt_qplan *node,
                                   struct basalt_qexpr_builder **out, struct basalt_error *err)
{
    if (ctx == NULL || node == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    return basalt_qctx_builder_over(ctx, &node->schema, out, err);
}

basalt_status basalt_qplan_struct_schema(const struct ArrowSchema *const *fields,
                                         const char *const *names, int n, struct ArrowSchema *out,
                                         struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(out, "+s", NULL, 0, n, err);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_arrow_schema_copy_renamed(
            fields[i], names != NULL && names[i] != NULL ? names[i] : fields[i]->name,
            out->children[i], err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

basalt_status basalt_qplan_type_field(struct basalt_query_type type, const char *name,
                                      bool nullable, struct ArrowSchema *out,
                                      struct basalt_error *err)
{
    char fmt[64];
    basalt_status st = basalt_query_type_format(type, fmt, sizeof fmt, err);
    if (st != BASALT_OK)
        return st;
    bool list = type.id == BASALT_QUERY_TYPE_LIST;
    st = basalt_arrow_schema_init(out, fmt, name, nullable ? ARROW_FLAG_NULLABLE : 0, list, err);
    if (st == BASALT_OK && list)
        st = basalt_qplan_type_field(basalt_query_type_element(type), "item", true,
                                     out->children[0], err);
    return st;
}

int64_t basalt_qplan_largest_input(const struct basalt_qplan *node)
{
    if (node == NULL)
        return 0;
    int64_t n = 0;
    int kids = 0;
    for (int i = 0; i < 2; i++)
        if (node->child[i] != NULL) {
            int64_t c = basalt_qplan_largest_input(node->child[i]);
            n = c > n ? c : n;
            kids++;
        }
    for (int i = 0; i < node->n_children; i++) {
        int64_t c = basalt_qplan_largest_input(node->children[i]);
        n = c > n ? c : n;
        kids++;
    }
    return kids > 0 ? n : basalt_qplan_estimated_rows(node);
}

int64_t basalt_qplan_estimated_rows(const struct basalt_qplan *node)
{
    int64_t n = 0;
    switch (node->kind) {
    case QPLAN_SCAN_PARQUET:
        for (size_t i = 0; i < node->scan.n_paths; i++)
            n += basalt_parquet_reader_num_rows(node->scan.readers[i]);
        return n;
    case QPLAN_VALUES:
        for (int64_t i = 0; i < node->scan.values.n; i++)
            n += node->scan.values.arrays[i].length;
        return n;
    case QPLAN_SERIES:
        return basalt_qseries_rows(node);
    case QPLAN_WINDOW: /* one row out per row in */
        return basalt_qplan_estimated_rows(node->child[0]);
    default:
        return 1000000;
    }
}

/* Distinct values of an integer column of a Parquet scan are at most its
 * range (max - min + 1, from the row groups' statistics) and its rows. */
static int64_t parquet_ndv(const struct basalt_qplan *node, int column)
{
    const struct qscan *s = &node->scan;
    const char *name = s->full.children[column]->name;
    int64_t lo = INT64_MAX, hi = INT64_MIN, rows = 0;
    for (size_t f = 0; f < s->n_paths; f++) {
        const struct basalt_parquet_reader *r = s->readers[f];
        int32_t leaf;
        struct basalt_parquet_column_info info;
        if (basalt_parquet_reader_find_column(r, name, &leaf, NULL) != BASALT_OK ||
            basalt_parquet_reader_column(r, leaf, &info, NULL) != BASALT_OK ||
            (info.physical_type != BASALT_PARQUET_TYPE_INT32 &&
             info.physical_type != BASALT_PARQUET_TYPE_INT64) ||
            info.max_repetition_level > 0)
            return -1;
        rows += basalt_parquet_reader_num_rows(r);
        for (int32_t g = 0; g < basalt_parquet_reader_num_row_groups(r); g++) {
            struct basalt_parquet_column_stats st;
            if (basalt_parquet_reader_column_stats(r, g, leaf, &st, NULL) != BASALT_OK ||
                !st.has_min_max || st.min.len != st.max.len || (st.min.len != 4 && st.min.len != 8))
                return -1;
            int64_t mn, mx;
            if (st.min.len == 4) {
                int32_t a, b;
                memcpy(&a, st.min.data, 4);
                memcpy(&b, st.max.data, 4);
                mn = a;
                mx = b;
            } else {
                memcpy(&mn, st.min.data, 8);
                memcpy(&mx, st.max.data, 8);
            }
            if (mn < lo)
                lo = mn;
            if (mx > hi)
                hi = mx;
        }
    }
    if (lo > hi)
        return rows > 0 ? rows : -1;
    /* (hi - lo) may overflow for extreme bounds: then the rows bound it */
    if (hi - lo < 0 || hi - lo >= rows)
        return rows;
    return hi - lo + 1;
}

int64_t basalt_qplan_column_ndv(const struct basalt_qplan *node, int column)
{
    if (node == NULL || column < 0 || column >= node->schema.n_children)
        return -1;
    if (node->kind == QPLAN_SCAN_PARQUET)
        return parquet_ndv(node, column);
    return -1;
}
