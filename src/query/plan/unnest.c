/* UNNEST (SQL's unnest(l) in a select list): each input row becomes one
 * row per element of its lists, the other columns repeated. Several lists
 * of a row are zipped (element k of each side by side, NULL past a
 * shorter one's end), as DuckDB does. The node streams: it is an operator
 * of its input's pipeline, one input batch at a time, and keeps the input
 * order (a row's elements in their order). */
#include <stdio.h>
#include <string.h>

#include "plan/plan_internal.h"
#include "plan/run_internal.h"

/* Output rows per batch at most (a single row's long list spans several). */
#define UNNEST_BATCH_ROWS 65536

bool basalt_qplan_unnested(const struct basalt_qplan *node, int column)
{
    for (int j = 0; j < node->n_unnest; j++)
        if (node->unnest_cols[j] == column)
            return true;
    return false;
}

basalt_status basalt_qplan_unnest(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                  const int *cols, int n_cols, struct basalt_qplan **out,
                                  struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || child == NULL || cols == NULL || n_cols < 1 || n_cols > 64)
        return basalt_error_set(err, BASALT_INVALID_ARG, "unnest: bad arguments");
    int n_in = (int)child->schema.n_children;
    for (int j = 0; j < n_cols; j++) {
        struct basalt_query_type t;
        if (cols[j] < 0 || cols[j] >= n_in ||
            basalt_query_type_from_schema(child->schema.children[cols[j]], &t, NULL) !=
                BASALT_OK ||
            t.id != BASALT_QUERY_TYPE_LIST)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "unnest: column %d is not a list of the input", cols[j]);
    }
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_UNNEST, &node, err);
    if (st != BASALT_OK)
        return st;
    node->child[0] = child;
    node->unnest_cols = basalt_calloc((size_t)n_cols, sizeof *node->unnest_cols);
    if (node->unnest_cols == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(node->unnest_cols, cols, sizeof *cols * (size_t)n_cols);
    node->n_unnest = n_cols;
    int kept = 0;
    for (int i = 0; i < n_in; i++)
        kept += !basalt_qplan_unnested(node, i);
    st = basalt_arrow_schema_init(&node->schema, "+s", NULL, 0, kept + n_cols, err);
    for (int i = 0, o = 0; i < n_in && st == BASALT_OK; i++)
        if (!basalt_qplan_unnested(node, i))
            st = basalt_arrow_schema_copy(child->schema.children[i], node->schema.children[o++],
                                          err);
    for (int j = 0; j < n_cols && st == BASALT_OK; j++) {
        char name[32];
        snprintf(name, sizeof name, "unnest%d", j);
        st = basalt_arrow_schema_copy_renamed(child->schema.children[cols[j]]->children[0], name,
                                              node->schema.children[kept + j], err);
        /* an element past a shorter list's end is NULL */
        if (st == BASALT_OK)
            node->schema.children[kept + j]->flags |= ARROW_FLAG_NULLABLE;
    }
    if (st == BASALT_OK)
        *out = node;
    return st;
}

/* ------------------------------------------------------------------ running */

struct unnest_run {
    const struct basalt_qplan *node;
    const struct ArrowSchema *in; /* the input batches' schema */
    /* per list: a one-row array of its element type holding NULL, the
     * source of the padding past a list's end */
    struct ArrowArray *nulls;
};

static void unnest_run_free(void *p)
{
    struct unnest_run *u = p;
    if (u == NULL)
        return;
    for (int j = 0; u->nulls != NULL && j < u->node->n_unnest; j++)
        basalt_arrow_array_release(&u->nulls[j]);
    basalt_free(u->nulls);
    basalt_free(u);
}

/* A one-row NULL of element type t (a scalar type of the expressions). */
static basalt_status null_row(struct basalt_query_type t, struct ArrowArray *out,
                              struct basalt_error *err)
{
    if (t.id == BASALT_QUERY_TYPE_NULL) {
        basalt_status st = basalt_arrow_array_init(out, 0, 0, err);
        if (st == BASALT_OK) {
            out->length = 1;
            out->null_count = 1;
        }
        return st;
    }
    bool var = t.id == BASALT_QUERY_TYPE_STRING || t.id == BASALT_QUERY_TYPE_BINARY;
    basalt_status st = basalt_arrow_array_init(out, var ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    out->length = 1;
    out->null_count = 1;
    size_t data = var ? (t.large ? 16 : 8) : t.id == BASALT_QUERY_TYPE_BOOL ? 1 : 16;
    void *p;
    st = basalt_arrow_array_allocate_buffer(out, 0, 8, &p, err);
    if (st == BASALT_OK)
        memset(p, 0, 8);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, data, &p, err);
    if (st == BASALT_OK)
        memset(p, 0, data);
    if (st == BASALT_OK && var)
        st = basalt_arrow_array_allocate_buffer(out, 2, 8, &p, err);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

static basalt_status local_new(void *run, void **out, struct basalt_error *err)
{
    (void)err;
    *out = run; /* nothing of its own: the run is read only */
    return BASALT_OK;
}

static void local_free(void *local)
{
    (void)local;
}

/* List row i of `list` (a "+l" array): its first element's slot in the
 * child and its length; a NULL list has none. */
static int64_t list_row(const struct ArrowArray *list, int64_t i, int64_t *first)
{
    int64_t r = list->offset + i;
    const uint8_t *valid = list->buffers[0];
    if (list->null_count != 0 && valid != NULL && !basalt_bitmap_get(valid, r)) {
        *first = 0;
        return 0;
    }
    const int32_t *off = list->buffers[1];
    *first = off[r];
    return (int64_t)off[r + 1] - off[r];
}

/* Output rows [from, from + n) of the batch: rows[k] is the input row of
 * output row from + k and pos[k] its element's place in its lists. */
static basalt_status emit_rows(const struct unnest_run *u, const struct ArrowArray *batch,
                               const int64_t *rows, const int64_t *pos, int64_t n,
                               struct basalt_arrow_batches *out, struct basalt_error *err)
{
    const struct basalt_qplan *node = u->node;
    int n_in = (int)u->in->n_children, nu = node->n_unnest;
    int kept = (int)node->schema.n_children - nu;
    struct ArrowArray res;
    basalt_status st = basalt_arrow_array_init(&res, 1, kept + nu, err);
    if (st != BASALT_OK)
        return st;
    res.length = n;
    int32_t *src = basalt_malloc(sizeof *src * (size_t)(n + 1));
    int64_t *idx = basalt_malloc(sizeof *idx * (size_t)(n + 1));
    if (src == NULL || idx == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* the other columns repeated (not the lists: a list of n elements
     * would be copied n times) */
    for (int64_t k = 0; k < n && st == BASALT_OK; k++)
        idx[k] = batch->offset + rows[k];
    for (int i = 0, o = 0; i < n_in && st == BASALT_OK; i++)
        if (!basalt_qplan_unnested(node, i))
            st = basalt_arrow_take(u->in->children[i], batch->children[i], idx, n,
                                   res.children[o++], err);
    for (int j = 0; j < nu && st == BASALT_OK; j++) {
        const struct ArrowArray *list = batch->children[node->unnest_cols[j]];
        const struct ArrowSchema *item = u->in->children[node->unnest_cols[j]]->children[0];
        for (int64_t k = 0; k < n; k++) {
            int64_t first, len = list_row(list, batch->offset + rows[k], &first);
            src[k] = pos[k] < len ? 0 : 1;
            idx[k] = pos[k] < len ? first + pos[k] : 0;
        }
        struct ArrowArray arrays[2] = {*list->children[0], u->nulls[j]};
        st = basalt_arrow_take_many(item, arrays, 2, src, idx, n, res.children[kept + j], err);
    }
    basalt_free(src);
    basalt_free(idx);
    if (st == BASALT_OK)
        st = basalt_arrow_batches_append(out, &res, err);
    if (st != BASALT_OK)
        basalt_arrow_array_release(&res);
    return st;
}

static basalt_status unnest_batch(void *local, const struct ArrowArray *batch,
                                  struct basalt_arrow_batches *out, struct basalt_error *err)
{
    const struct unnest_run *u = local;
    const struct basalt_qplan *node = u->node;
    int64_t *rows = basalt_malloc(sizeof *rows * UNNEST_BATCH_ROWS);
    int64_t *pos = basalt_malloc(sizeof *pos * UNNEST_BATCH_ROWS);
    basalt_status st = rows && pos ? BASALT_OK
                                   : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t n = 0;
    for (int64_t i = 0; i < batch->length && st == BASALT_OK; i++) {
        int64_t most = 0, first;
        for (int j = 0; j < node->n_unnest; j++) {
            int64_t len = list_row(batch->children[node->unnest_cols[j]], batch->offset + i,
                                   &first);
            most = len > most ? len : most;
        }
        for (int64_t k = 0; k < most && st == BASALT_OK; k++) {
            rows[n] = i;
            pos[n++] = k;
            if (n == UNNEST_BATCH_ROWS) {
                st = emit_rows(u, batch, rows, pos, n, out, err);
                n = 0;
            }
        }
    }
    if (st == BASALT_OK && n > 0)
        st = emit_rows(u, batch, rows, pos, n, out, err);
    basalt_free(rows);
    basalt_free(pos);
    return st;
}

basalt_status basalt_qrun_unnest_op(struct basalt_qplan *node, struct qpipeline *pl,
                                    struct basalt_error *err)
{
    struct unnest_run *u = basalt_calloc(1, sizeof *u);
    if (u == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    u->node = node;
    u->in = &node->child[0]->schema;
    u->nulls = basalt_calloc((size_t)node->n_unnest, sizeof *u->nulls);
    basalt_status st = u->nulls ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int j = 0; j < node->n_unnest && st == BASALT_OK; j++) {
        struct basalt_query_type t;
        st = basalt_query_type_from_schema(u->in->children[node->unnest_cols[j]], &t, err);
        if (st == BASALT_OK)
            st = null_row(basalt_query_type_element(t), &u->nulls[j], err);
    }
    struct qpipe_op *op;
    if (st == BASALT_OK)
        st = basalt_qpipeline_add(pl, &op, err);
    if (st != BASALT_OK) {
        unnest_run_free(u);
        return st;
    }
    op->kind = QPIPE_PROBE;
    op->node = node;
    op->in_schema = u->in;
    op->join = u;
    op->probe_local_new = local_new;
    op->probe_local_free = local_free;
    op->probe = unnest_batch;
    op->free_join = unnest_run_free;
    op->fanout = 1;
    return BASALT_OK;
}
