/* Operator nodes: filter, projection, join, sort, limit, union. Each checks
 * its arguments and computes its output schema when it is built. */
#include <stdio.h>
#include <string.h>

#include "plan/plan_internal.h"

/* The builder an expression was made in must be over the node's input: a
 * column past it is a caller bug caught here rather than in a kernel. */
static bool columns_within(const struct basalt_qexpr *e, int32_t n_columns, int depth)
{
    if (depth > 10000 || (e->kind == QN_COLUMN && (e->column < 0 || e->column >= n_columns)))
        return false;
    for (int i = 0; i < e->n_args; i++)
        if (!columns_within(e->args[i], n_columns, depth + 1))
            return false;
    return true;
}

static basalt_status check_expr(const struct basalt_qexpr *e, int32_t n_columns,
                                const char *what, struct basalt_error *err)
{
    if (e == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: NULL expression", what);
    if (!columns_within(e, n_columns, 0))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%s: expression built over another input", what);
    return BASALT_OK;
}

basalt_status basalt_qplan_key_column_ok(const struct ArrowSchema *field, const char *what,
                                         struct basalt_error *err)
{
    struct basalt_query_type t;
    if (basalt_query_type_from_format(field->format, &t, NULL) == BASALT_OK)
        return BASALT_OK;
    if (field->name == NULL || field->name[0] == '\0') /* an expression's hidden column */
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "%s: a key of Arrow type '%s' (lists, maps and unions can only be "
                                "passed through, not be keys)",
                                what, field->format);
    return basalt_error_set(err, BASALT_UNSUPPORTED,
                            "%s: column \"%s\" (Arrow type '%s') can only be passed through, not "
                            "be a key",
                            what, field->name, field->format);
}

basalt_status basalt_qplan_filter(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                  struct basalt_qexpr *predicate, struct basalt_qplan **out,
                                  struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || child == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "filter: NULL argument");
    basalt_status st = check_expr(predicate, (int32_t)child->schema.n_children, "filter", err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_type t = basalt_qexpr_type(predicate);
    if (t.id != BASALT_QUERY_TYPE_BOOL && t.id != BASALT_QUERY_TYPE_NULL) {
        char name[64];
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "WHERE clause must be a BOOLEAN expression, not %s (at position %d)",
                                basalt_query_type_name(t, name, sizeof name),
                                (int)basalt_qexpr_position(predicate));
    }
    struct basalt_qplan *node;
    st = basalt_qplan_node_new(ctx, QPLAN_FILTER, &node, err);
    if (st != BASALT_OK)
        return st;
    node->child[0] = child;
    node->pred = predicate;
    st = basalt_arrow_schema_copy(&child->schema, &node->schema, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_project(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                   struct basalt_qexpr *const *exprs, const char *const *names,
                                   int n, struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || child == NULL || n < 0 || (n > 0 && exprs == NULL))
        return basalt_error_set(err, BASALT_INVALID_ARG, "project: NULL argument");
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = check_expr(exprs[i], (int32_t)child->schema.n_children, "project", err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qplan *node;
    st = basalt_qplan_node_new(ctx, QPLAN_PROJECT, &node, err);
    if (st != BASALT_OK)
        return st;
    node->child[0] = child;
    node->exprs = basalt_calloc((size_t)n + 1, sizeof *node->exprs);
    if (node->exprs == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(node->exprs, exprs, (size_t)n * sizeof *exprs);
    node->n_exprs = n;
    st = basalt_arrow_schema_init(&node->schema, "+s", NULL, 0, n, err);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "col%d", i);
        const char *name = names != NULL && names[i] != NULL ? names[i] : fallback;
        const struct basalt_qexpr *e = exprs[i];
        if (e->kind == QN_COLUMN)
            /* A column passes through with its Arrow type (dictionary,
             * metadata, nested types the expressions cannot compute with). */
            st = basalt_arrow_schema_copy_renamed(child->schema.children[e->column], name,
                                                  node->schema.children[i], err);
        else
            st = basalt_qplan_type_field(basalt_qexpr_type(e), name, basalt_qexpr_nullable(e),
                                         node->schema.children[i], err);
    }
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_join_builder(struct basalt_qctx *ctx, const struct basalt_qplan *left,
                                        const struct basalt_qplan *right,
                                        struct basalt_qexpr_builder **out,
                                        struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || left == NULL || right == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL argument");
    int nl = (int)left->schema.n_children, nr = (int)right->schema.n_children;
    const struct ArrowSchema **fields = basalt_calloc((size_t)(nl + nr) + 1, sizeof *fields);
    if (fields == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < nl; i++)
        fields[i] = left->schema.children[i];
    for (int i = 0; i < nr; i++)
        fields[nl + i] = right->schema.children[i];
    struct ArrowSchema both;
    basalt_status st = basalt_qplan_struct_schema(fields, NULL, nl + nr, &both, err);
    basalt_free(fields);
    if (st != BASALT_OK)
        return st;
    st = basalt_qctx_builder_over(ctx, &both, out, err);
    basalt_arrow_schema_release(&both);
    return st;
}

/* The output of a join: left's fields then right's, those of an outer side
 * made nullable; of those, the ones join_keep names when it is set. */
basalt_status basalt_qplan_join_schema(struct basalt_qplan *node, struct basalt_error *err)
{
    const struct ArrowSchema *l = &node->child[0]->schema, *r = &node->child[1]->schema;
    enum basalt_qplan_join_type t = node->join_type;
    bool right_cols = t != BASALT_QPLAN_JOIN_SEMI && t != BASALT_QPLAN_JOIN_ANTI;
    int nl = (int)l->n_children, nr = right_cols ? (int)r->n_children : 0;
    int n = node->join_keep != NULL ? node->n_join_keep : nl + nr;
    basalt_status st = basalt_arrow_schema_init(&node->schema, "+s", NULL, 0, n, err);
    for (int k = 0; k < n && st == BASALT_OK; k++) {
        int i = node->join_keep != NULL ? node->join_keep[k] : k;
        if (i < 0 || i >= nl + nr)
            return basalt_error_set(err, BASALT_INTERNAL, "join: kept column %d of %d", i,
                                    nl + nr);
        const struct ArrowSchema *f = i < nl ? l->children[i] : r->children[i - nl];
        st = basalt_arrow_schema_copy(f, node->schema.children[k], err);
        bool outer = i < nl ? (t == BASALT_QPLAN_JOIN_RIGHT || t == BASALT_QPLAN_JOIN_FULL)
                            : (t == BASALT_QPLAN_JOIN_LEFT || t == BASALT_QPLAN_JOIN_FULL);
        if (st == BASALT_OK && outer)
            node->schema.children[k]->flags |= ARROW_FLAG_NULLABLE;
    }
    return st;
}

basalt_status basalt_qplan_join_build_left(struct basalt_qplan *join, struct basalt_error *err)
{
    if (join == NULL || join->kind != QPLAN_JOIN ||
        (join->join_type != BASALT_QPLAN_JOIN_SEMI && join->join_type != BASALT_QPLAN_JOIN_ANTI) ||
        join->n_join_keys == 0 || join->residual != NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "join_build_left: not a SEMI or ANTI join on keys alone");
    join->build_left = true;
    return BASALT_OK;
}

basalt_status basalt_qplan_join(struct basalt_qctx *ctx, enum basalt_qplan_join_type type,
                                struct basalt_qplan *left, struct basalt_qplan *right,
                                const int *left_keys, const int *right_keys, int n_keys,
                                struct basalt_qexpr *residual, struct basalt_qplan **out,
                                struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || left == NULL || right == NULL || n_keys < 0 ||
        (n_keys > 0 && (left_keys == NULL || right_keys == NULL)))
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL argument");
    if ((type == BASALT_QPLAN_JOIN_CROSS) != (n_keys == 0) && type != BASALT_QPLAN_JOIN_CROSS)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: no equality keys");
    int nl = (int)left->schema.n_children, nr = (int)right->schema.n_children;
    for (int i = 0; i < n_keys; i++) {
        if (left_keys[i] < 0 || left_keys[i] >= nl || right_keys[i] < 0 || right_keys[i] >= nr)
            return basalt_error_set(err, BASALT_INVALID_ARG, "join: key column out of range");
        basalt_status kst = basalt_qplan_key_column_ok(left->schema.children[left_keys[i]], "join", err);
        if (kst != BASALT_OK)
            return kst;
        if (strcmp(left->schema.children[left_keys[i]]->format,
                   right->schema.children[right_keys[i]]->format) != 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "join: key '%s' (%s) and '%s' (%s) differ in type",
                                    left->schema.children[left_keys[i]]->name,
                                    left->schema.children[left_keys[i]]->format,
                                    right->schema.children[right_keys[i]]->name,
                                    right->schema.children[right_keys[i]]->format);
    }
    basalt_status st = BASALT_OK;
    if (residual != NULL) {
        st = check_expr(residual, nl + nr, "join", err);
        if (st != BASALT_OK)
            return st;
    }
    struct basalt_qplan *node;
    st = basalt_qplan_node_new(ctx, QPLAN_JOIN, &node, err);
    if (st != BASALT_OK)
        return st;
    node->join_type = type;
    node->child[0] = left;
    node->child[1] = right;
    node->residual = residual;
    node->n_join_keys = n_keys;
    node->left_keys = basalt_calloc((size_t)n_keys + 1, sizeof(int));
    node->right_keys = basalt_calloc((size_t)n_keys + 1, sizeof(int));
    if (node->left_keys == NULL || node->right_keys == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (n_keys > 0) {
        memcpy(node->left_keys, left_keys, (size_t)n_keys * sizeof(int));
        memcpy(node->right_keys, right_keys, (size_t)n_keys * sizeof(int));
    }
    st = basalt_qplan_join_schema(node, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_sort(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                const struct basalt_qplan_sort_key *keys, int n, int64_t limit,
                                int64_t offset, struct basalt_qplan **out,
                                struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || child == NULL || n <= 0 || keys == NULL || offset < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: bad argument");
    for (int i = 0; i < n; i++) {
        if (keys[i].column < 0 || keys[i].column >= child->schema.n_children)
            return basalt_error_set(err, BASALT_INVALID_ARG, "sort: key column out of range");
        basalt_status kst =
            basalt_qplan_key_column_ok(child->schema.children[keys[i].column], "ORDER BY", err);
        if (kst != BASALT_OK)
            return kst;
    }
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_SORT, &node, err);
    if (st != BASALT_OK)
        return st;
    node->child[0] = child;
    node->sort_keys = basalt_calloc((size_t)n, sizeof *keys);
    if (node->sort_keys == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(node->sort_keys, keys, (size_t)n * sizeof *keys);
    node->n_sort_keys = n;
    node->limit = limit < 0 ? -1 : limit;
    node->offset = limit < 0 ? 0 : offset;
    st = basalt_arrow_schema_copy(&child->schema, &node->schema, err);
    /* The sort skips `offset` rows only as a top-k; an OFFSET without a
     * LIMIT is a cut of the whole order. */
    if (st == BASALT_OK && limit < 0 && offset > 0)
        return basalt_qplan_limit(ctx, node, -1, offset, out, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_limit(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                 int64_t limit, int64_t offset, struct basalt_qplan **out,
                                 struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || child == NULL || offset < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "limit: bad argument");
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_LIMIT, &node, err);
    if (st != BASALT_OK)
        return st;
    node->child[0] = child;
    node->limit = limit < 0 ? -1 : limit;
    node->offset = offset;
    st = basalt_arrow_schema_copy(&child->schema, &node->schema, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_union_all(struct basalt_qctx *ctx, struct basalt_qplan *const *children,
                                     int n, struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || children == NULL || n <= 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "union: no input");
    const struct ArrowSchema *first = &children[0]->schema;
    for (int i = 1; i < n; i++) {
        const struct ArrowSchema *s = &children[i]->schema;
        if (s->n_children != first->n_children)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "set operation inputs have %lld and %lld columns",
                                    (long long)first->n_children, (long long)s->n_children);
        for (int64_t c = 0; c < s->n_children; c++)
            if (strcmp(s->children[c]->format, first->children[c]->format) != 0)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "set operation column %lld: types %s and %s differ",
                                        (long long)c + 1, first->children[c]->format,
                                        s->children[c]->format);
    }
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_UNION_ALL, &node, err);
    if (st != BASALT_OK)
        return st;
    node->children = basalt_calloc((size_t)n, sizeof *node->children);
    if (node->children == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(node->children, children, (size_t)n * sizeof *children);
    node->n_children = n;
    st = basalt_arrow_schema_copy(first, &node->schema, err);
    /* A column is nullable when it is in any input. */
    for (int i = 1; i < n && st == BASALT_OK; i++)
        for (int64_t c = 0; c < node->schema.n_children; c++)
            node->schema.children[c]->flags |=
                children[i]->schema.children[c]->flags & ARROW_FLAG_NULLABLE;
    if (st == BASALT_OK)
        *out = node;
    return st;
}
