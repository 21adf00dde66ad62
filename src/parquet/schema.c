/* The Parquet schema tree: the flat depth-first SchemaElement list turned
 * into nodes with levels and paths, the leaf column descriptors, and the
 * entry points that go on to build the Arrow fields. */
#include <string.h>

#include "parquet_schema.h"

/* Recursion over the tree goes as deep as the nesting; this bounds it
 * whatever the caller's option says. */
#define SCHEMA_HARD_MAX_DEPTH 1000
/* Node, leaf and field indices are int32; fields may be twice the nodes. */
#define SCHEMA_MAX_ELEMENTS ((size_t)1 << 30)

void basalt_parquet_schema_options_init(struct basalt_parquet_schema_options *options)
{
    options->max_depth = BASALT_PARQUET_SCHEMA_DEFAULT_MAX_DEPTH;
    options->ignore_arrow_schema = false;
}

char *basalt_parquet_schema_strdup(struct basalt_parquet_schema *schema, const char *s,
                                   size_t len, struct basalt_error *err)
{
    char *p = basalt_arena_strndup(&schema->arena, s ? s : "", s ? len : 0);
    if (!p)
        basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
    return p;
}

basalt_status basalt_parquet_schema_metadata_dup(struct basalt_parquet_schema *schema,
                                                 const struct basalt_buffer *md,
                                                 const char **out, struct basalt_error *err)
{
    *out = NULL;
    if (!md || md->size == 0)
        return BASALT_OK;
    char *p = basalt_arena_alloc(&schema->arena, md->size, 8);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
    memcpy(p, md->data, md->size);
    *out = p;
    return BASALT_OK;
}

static void *arena_array(struct basalt_parquet_schema *schema, size_t n, size_t size,
                         struct basalt_error *err)
{
    void *p = basalt_arena_alloc(&schema->arena, n ? n * size : 1, 8);
    if (!p)
        basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
    else
        memset(p, 0, n * size);
    return p;
}

static basalt_status corrupt_at(struct basalt_error *err, const struct basalt_parquet_schema_node *n,
                                size_t element, const char *why)
{
    if (n && n->path && n->path[0])
        return basalt_error_set(err, BASALT_CORRUPT, "column '%s': %s", n->path, why);
    return basalt_error_set(err, BASALT_CORRUPT, "schema[%zu]: %s", element, why);
}

/* Fills node i from element i: kind, repetition, type, name, path, levels. */
static basalt_status make_node(struct basalt_parquet_schema *schema,
                               const struct basalt_parquet_schema_element *e, int32_t i,
                               int32_t parent, struct basalt_error *err)
{
    struct basalt_parquet_schema_node *n = &schema->nodes[i];
    n->parent = parent;
    n->leaf = -1;
    n->field = -1;
    if (!e->name.data)
        return corrupt_at(err, NULL, (size_t)i, "element without a name");
    const char *name = e->name.data;
    size_t name_len = e->name.len;
    if (memchr(name, 0, name_len))
        return corrupt_at(err, NULL, (size_t)i, "name holds a NUL byte");
    n->name = basalt_parquet_schema_strdup(schema, name, name_len, err);
    if (!n->name)
        return BASALT_NOMEM;
    if (parent <= 0) {
        n->path = parent < 0 ? "" : n->name;
    } else {
        const char *pp = schema->nodes[parent].path;
        size_t pl = strlen(pp);
        char *path = basalt_arena_alloc(&schema->arena, pl + 1 + name_len + 1, 1);
        if (!path)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
        memcpy(path, pp, pl);
        path[pl] = '.';
        memcpy(path + pl + 1, name, name_len);
        path[pl + 1 + name_len] = '\0';
        n->path = path;
    }
    bool group = e->has_num_children && e->num_children > 0;
    if (e->has_num_children && e->num_children < 0)
        return corrupt_at(err, n, (size_t)i, "negative num_children");
    if (parent < 0) {
        if (e->has_type && !group)
            return corrupt_at(err, n, (size_t)i, "the root is a primitive, not a group");
        if (e->has_repetition_type &&
            e->repetition_type == BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED)
            return basalt_error_set(err, BASALT_CORRUPT, "schema[0]: the root is repeated");
        n->repetition = BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED;
        n->is_leaf = false;
        return BASALT_OK;
    }
    if (!group && !e->has_type)
        return corrupt_at(err, n, (size_t)i,
                          e->has_num_children ? "group without children"
                                              : "neither a type nor children");
    n->repetition = e->has_repetition_type ? e->repetition_type
                                           : BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED;
    if (n->repetition < 0 || n->repetition > BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED)
        return corrupt_at(err, n, (size_t)i, "unknown repetition type");
    const struct basalt_parquet_schema_node *p = &schema->nodes[parent];
    int def = p->max_def + (n->repetition != BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED);
    int rep = p->max_rep + (n->repetition == BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED);
    n->max_def = (int16_t)def;
    n->max_rep = (int16_t)rep;
    n->depth = p->depth + 1;
    n->has_field_id = e->has_field_id;
    n->field_id = e->field_id;
    n->has_converted_type = e->has_converted_type;
    n->converted_type = e->converted_type;
    n->is_leaf = !group;
    if (n->is_leaf) {
        if (e->type < BASALT_PARQUET_TYPE_BOOLEAN ||
            e->type > BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY)
            return corrupt_at(err, n, (size_t)i, "unknown physical type");
        n->physical_type = e->type;
        if (e->type == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY) {
            if (!e->has_type_length || e->type_length <= 0)
                return corrupt_at(err, n, (size_t)i,
                                  "FIXED_LEN_BYTE_ARRAY without a positive type_length");
            n->type_length = e->type_length;
        }
    }
    return BASALT_OK;
}

struct frame {
    int32_t node;
    int32_t remaining;
};

/* Turns the flat element list into nodes. Iterative: the nesting is only
 * bounded by max_depth here. */
static basalt_status unflatten(struct basalt_parquet_schema *schema,
                               const struct basalt_parquet_schema_element *elements, size_t n,
                               int32_t max_depth, struct basalt_error *err)
{
    struct frame *stack = arena_array(schema, (size_t)max_depth + 2, sizeof *stack, err);
    if (!stack)
        return BASALT_NOMEM;
    basalt_status st = make_node(schema, &elements[0], 0, -1, err);
    if (st != BASALT_OK)
        return st;
    int32_t *fill = arena_array(schema, n, sizeof *fill, err); /* children filled per node */
    if (!fill)
        return BASALT_NOMEM;
    int32_t leaves = 0;
    int32_t top = 0;
    int32_t root_children = elements[0].has_num_children ? elements[0].num_children : 0;
    if ((size_t)root_children > n - 1)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "schema[0]: the root declares %d children but %zu elements follow",
                                (int)root_children, n - 1);
    int32_t *kids = arena_array(schema, (size_t)root_children, sizeof *kids, err);
    if (!kids)
        return BASALT_NOMEM;
    schema->nodes[0].children = kids;
    schema->nodes[0].n_children = root_children;
    stack[0] = (struct frame){0, root_children};
    size_t i = 1;
    while (top >= 0) {
        struct frame *f = &stack[top];
        struct basalt_parquet_schema_node *parent = &schema->nodes[f->node];
        if (f->remaining == 0) {
            parent->leaf_end = leaves;
            top--;
            continue;
        }
        if (i >= n)
            return corrupt_at(err, f->node ? parent : NULL, (size_t)f->node,
                              "declares more children than there are elements");
        f->remaining--;
        int32_t id = (int32_t)i++;
        parent->children[fill[f->node]++] = id;
        st = make_node(schema, &elements[id], id, f->node, err);
        if (st != BASALT_OK)
            return st;
        struct basalt_parquet_schema_node *node = &schema->nodes[id];
        node->leaf_begin = leaves;
        if (node->is_leaf) {
            node->leaf = leaves++;
            node->leaf_end = leaves;
            continue;
        }
        if (node->depth > max_depth)
            return basalt_error_set(err, BASALT_LIMIT,
                                    "column '%s': groups nested deeper than %d levels",
                                    node->path, (int)max_depth);
        int32_t count = elements[id].num_children;
        if ((size_t)count > n - i)
            return corrupt_at(err, node, (size_t)id,
                              "declares more children than there are elements");
        kids = arena_array(schema, (size_t)count, sizeof *kids, err);
        if (!kids)
            return BASALT_NOMEM;
        node->children = kids;
        node->n_children = count;
        stack[++top] = (struct frame){id, count};
    }
    if (i != n)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "schema: %zu elements after the root's last child", n - i);
    schema->n_leaves = leaves;
    return BASALT_OK;
}

/* The leaf descriptors, in column order. */
static basalt_status make_leaves(struct basalt_parquet_schema *schema, struct basalt_error *err)
{
    schema->leaves = arena_array(schema, (size_t)schema->n_leaves, sizeof *schema->leaves, err);
    if (!schema->leaves)
        return BASALT_NOMEM;
    for (int32_t i = 0; i < schema->n_nodes; i++) {
        const struct basalt_parquet_schema_node *n = &schema->nodes[i];
        if (!n->is_leaf)
            continue;
        struct basalt_parquet_schema_leaf *leaf = &schema->leaves[n->leaf];
        leaf->index = n->leaf;
        leaf->node = i;
        leaf->field = -1;
        leaf->path = n->path;
        leaf->max_def = n->max_def;
        leaf->max_rep = n->max_rep;
        leaf->physical_type = n->physical_type;
        leaf->type_length = n->type_length;
        leaf->annotation = n->annotation;
        const char **parts = arena_array(schema, (size_t)n->depth, sizeof *parts, err);
        if (!parts)
            return BASALT_NOMEM;
        for (int32_t at = i, d = n->depth; d > 0; at = schema->nodes[at].parent)
            parts[--d] = schema->nodes[at].name;
        leaf->path_parts = parts;
        leaf->n_path_parts = n->depth;
        basalt_status st = basalt_parquet_schema_leaf_type(schema, leaf, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* The schema-level metadata: every key-value pair but ARROW:schema. */
static basalt_status file_metadata(struct basalt_parquet_schema *schema,
                                   const struct basalt_parquet_key_value *kv, size_t n_kv,
                                   struct basalt_error *err)
{
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n_kv && st == BASALT_OK; i++) {
        if (!kv[i].key.data || strcmp(kv[i].key.data, "ARROW:schema") == 0)
            continue;
        st = basalt_arrow_metadata_append(&md, kv[i].key.data, kv[i].key.len,
                                          kv[i].has_value ? kv[i].value.data : "",
                                          kv[i].has_value ? kv[i].value.len : 0, err);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_schema_metadata_dup(schema, &md, &schema->metadata, err);
    basalt_buffer_reset(&md);
    return st;
}

/* Decodes ARROW:schema when present and applies it. A malformed one is
 * ignored (NOMEM is not: it says nothing about the bytes). */
static basalt_status stored_arrow_schema(struct basalt_parquet_schema *schema,
                                         const struct basalt_parquet_key_value *kv, size_t n_kv,
                                         struct basalt_error *err)
{
    const struct basalt_parquet_key_value *found = NULL;
    for (size_t i = 0; i < n_kv && !found; i++)
        if (kv[i].key.data && strcmp(kv[i].key.data, "ARROW:schema") == 0 && kv[i].has_value)
            found = &kv[i];
    if (!found)
        return BASALT_OK;
    struct ArrowSchema stored;
    struct basalt_error ignored;
    basalt_status st = basalt_arrow_ipc_schema_decode_base64(found->value.data, found->value.len,
                                                             &stored, NULL, &ignored);
    if (st == BASALT_NOMEM)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory decoding ARROW:schema");
    if (st != BASALT_OK) {
        schema->arrow_schema_state = BASALT_PARQUET_ARROW_SCHEMA_MALFORMED;
        return BASALT_OK;
    }
    if (stored.n_children != schema->n_roots) {
        schema->arrow_schema_state = BASALT_PARQUET_ARROW_SCHEMA_MISMATCH;
        basalt_arrow_schema_release(&stored);
        return BASALT_OK;
    }
    st = basalt_parquet_schema_apply_arrow(schema, &stored, err);
    if (st == BASALT_OK) {
        schema->arrow_schema_state = BASALT_PARQUET_ARROW_SCHEMA_APPLIED;
        /* The stored schema's own metadata replaces the file's, as in Arrow C++. */
        size_t size = 0;
        st = basalt_arrow_metadata_size(stored.metadata, &size, err);
        if (st == BASALT_OK) {
            struct basalt_buffer md = {(uint8_t *)(uintptr_t)stored.metadata, size, size};
            st = basalt_parquet_schema_metadata_dup(schema, &md, &schema->metadata, err);
        }
    }
    basalt_arrow_schema_release(&stored);
    return st;
}

static basalt_status build(struct basalt_parquet_schema *schema,
                           const struct basalt_parquet_schema_element *elements, size_t n,
                           const struct basalt_parquet_key_value *kv, size_t n_kv,
                           const struct basalt_parquet_schema_options *options,
                           struct basalt_error *err)
{
    if (n == 0)
        return basalt_error_set(err, BASALT_CORRUPT, "no schema elements, not even a root");
    if (n > SCHEMA_MAX_ELEMENTS)
        return basalt_error_set(err, BASALT_LIMIT, "%zu schema elements", n);
    int32_t max_depth = options->max_depth;
    if (max_depth < 1 || max_depth > SCHEMA_HARD_MAX_DEPTH)
        max_depth = max_depth < 1 ? 1 : SCHEMA_HARD_MAX_DEPTH;
    schema->n_nodes = (int32_t)n;
    schema->nodes = arena_array(schema, n, sizeof *schema->nodes, err);
    if (!schema->nodes)
        return BASALT_NOMEM;
    basalt_status st = unflatten(schema, elements, n, max_depth, err);
    for (int32_t i = 1; i < schema->n_nodes && st == BASALT_OK; i++)
        st = basalt_parquet_schema_annotate(schema, i, &elements[i], err);
    if (st == BASALT_OK)
        st = make_leaves(schema, err);
    if (st == BASALT_OK)
        st = basalt_parquet_schema_build_fields(schema, kv, n_kv, err);
    if (st == BASALT_OK)
        st = file_metadata(schema, kv, n_kv, err);
    if (st == BASALT_OK && !options->ignore_arrow_schema)
        st = stored_arrow_schema(schema, kv, n_kv, err);
    return st;
}

basalt_status basalt_parquet_schema_from_elements(
    const struct basalt_parquet_schema_element *elements, size_t n_elements,
    const struct basalt_parquet_key_value *key_value, size_t n_key_value,
    const struct basalt_parquet_schema_options *options, struct basalt_parquet_schema **out,
    struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_new: NULL out");
    *out = NULL;
    if ((!elements && n_elements) || (!key_value && n_key_value))
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_new: NULL elements");
    struct basalt_parquet_schema_options defaults;
    if (!options) {
        basalt_parquet_schema_options_init(&defaults);
        options = &defaults;
    }
    struct basalt_parquet_schema *schema = basalt_calloc(1, sizeof *schema);
    if (!schema)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
    basalt_arena_init(&schema->arena, 16 * 1024);
    basalt_status st = build(schema, elements, n_elements, key_value, n_key_value, options, err);
    if (st != BASALT_OK) {
        basalt_parquet_schema_free(schema);
        return basalt_error_context(err, st, "schema");
    }
    *out = schema;
    return BASALT_OK;
}

basalt_status basalt_parquet_schema_new(const struct basalt_parquet_file_metadata *md,
                                        const struct basalt_parquet_schema_options *options,
                                        struct basalt_parquet_schema **out,
                                        struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_new: NULL out");
    *out = NULL;
    if (!md)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_new: NULL metadata");
    return basalt_parquet_schema_from_elements(md->schema, md->num_schema,
                                               md->has_key_value_metadata ? md->key_value_metadata
                                                                          : NULL,
                                               md->has_key_value_metadata
                                                   ? md->num_key_value_metadata
                                                   : 0,
                                               options, out, err);
}

void basalt_parquet_schema_free(struct basalt_parquet_schema *schema)
{
    if (!schema)
        return;
    basalt_arena_reset(&schema->arena);
    basalt_free(schema);
}
