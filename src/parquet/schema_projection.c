/* Column projection: by top-level name, nested path, field id or leaf. */
#include <string.h>

#include "parquet_schema.h"

basalt_status basalt_parquet_projection_init(struct basalt_parquet_projection *projection,
                                             const struct basalt_parquet_schema *schema,
                                             struct basalt_error *err)
{
    if (!projection || !schema)
        return basalt_error_set(err, BASALT_INVALID_ARG, "projection_init: NULL argument");
    memset(projection, 0, sizeof *projection);
    projection->fields = basalt_calloc((size_t)schema->n_fields + 1, 1);
    projection->leaves = basalt_calloc((size_t)schema->n_leaves + 1, 1);
    if (!projection->fields || !projection->leaves) {
        basalt_parquet_projection_reset(projection);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a projection");
    }
    projection->schema = schema;
    return BASALT_OK;
}

void basalt_parquet_projection_reset(struct basalt_parquet_projection *projection)
{
    if (!projection)
        return;
    basalt_free(projection->fields);
    basalt_free(projection->leaves);
    memset(projection, 0, sizeof *projection);
}

static void mark_subtree(struct basalt_parquet_projection *p, int32_t field)
{
    const struct basalt_parquet_schema *s = p->schema;
    /* Pre-order: a subtree is a contiguous run of fields. */
    int32_t end = field + 1;
    while (end < s->n_fields && s->fields[end].depth > s->fields[field].depth)
        end++;
    for (int32_t i = field; i < end; i++) {
        p->fields[i] = 1;
        if (s->fields[i].kind == BASALT_PARQUET_FIELD_PRIMITIVE && !p->leaves[s->fields[i].leaf]) {
            p->leaves[s->fields[i].leaf] = 1;
            p->n_selected_leaves++;
        }
    }
}

static void mark_ancestors(struct basalt_parquet_projection *p, int32_t field)
{
    const struct basalt_parquet_schema *s = p->schema;
    for (int32_t a = s->fields[field].parent; a >= 0; a = s->fields[a].parent)
        p->fields[a] = 1;
}

static void select_field(struct basalt_parquet_projection *p, int32_t field)
{
    const struct basalt_parquet_schema *s = p->schema;
    /* A variant is read whole: its value is rebuilt from every column. */
    for (int32_t a = field; a >= 0; a = s->fields[a].parent)
        if (s->fields[a].variant)
            field = a;
    mark_subtree(p, field);
    mark_ancestors(p, field);
    /* An Arrow map has both a key and a value: selecting into one keeps
     * all of the key and, when none of the value was asked for, the value's
     * first leaf (the least there is to read). Maps below the selection
     * were selected whole. */
    for (int32_t a = field; a >= 0; a = s->fields[a].parent) {
        const struct basalt_parquet_schema_field *f = &s->fields[a];
        if (f->kind != BASALT_PARQUET_FIELD_MAP)
            continue;
        const struct basalt_parquet_schema_field *entries = &s->fields[f->children[0]];
        mark_subtree(p, entries->children[0]);
        int32_t value = entries->children[1];
        if (!p->fields[value]) {
            /* Selected like any field, so maps inside the value get their
             * own key and value. */
            select_field(p, s->leaves[s->fields[value].leaf_begin].field);
        }
    }
}

void basalt_parquet_projection_select_all(struct basalt_parquet_projection *projection)
{
    const struct basalt_parquet_schema *s = projection->schema;
    memset(projection->fields, 1, (size_t)s->n_fields);
    memset(projection->leaves, 1, (size_t)s->n_leaves);
    projection->n_selected_leaves = s->n_leaves;
}

basalt_status basalt_parquet_projection_select_name(struct basalt_parquet_projection *projection,
                                                    const char *name, struct basalt_error *err)
{
    if (!projection || !projection->schema || !name)
        return basalt_error_set(err, BASALT_INVALID_ARG, "projection: NULL argument");
    const struct basalt_parquet_schema *s = projection->schema;
    bool found = false;
    for (int32_t i = 0; i < s->n_roots; i++) {
        if (strcmp(s->fields[s->roots[i]].name, name) == 0) {
            select_field(projection, s->roots[i]);
            found = true;
        }
    }
    if (!found)
        return basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", name);
    return BASALT_OK;
}

/* The node reached by following `parts` from the root, or -1. */
static int32_t find_node(const struct basalt_parquet_schema *s, const char *const *parts,
                         int32_t n)
{
    int32_t at = 0;
    for (int32_t k = 0; k < n; k++) {
        const struct basalt_parquet_schema_node *node = &s->nodes[at];
        int32_t next = -1;
        for (int32_t i = 0; i < node->n_children && next < 0; i++)
            if (strcmp(s->nodes[node->children[i]].name, parts[k]) == 0)
                next = node->children[i];
        if (next < 0)
            return -1;
        at = next;
    }
    return at;
}

/* The field reached by following `parts` through the Arrow fields, or -1. */
static int32_t find_field(const struct basalt_parquet_schema *s, const char *const *parts,
                          int32_t n)
{
    int32_t count = s->n_roots;
    const int32_t *candidates = s->roots;
    int32_t at = -1;
    for (int32_t k = 0; k < n; k++) {
        int32_t next = -1;
        for (int32_t i = 0; i < count && next < 0; i++)
            if (strcmp(s->fields[candidates[i]].name, parts[k]) == 0)
                next = candidates[i];
        if (next < 0)
            return -1;
        at = next;
        count = s->fields[at].n_children;
        candidates = s->fields[at].children;
    }
    return at;
}

/* Writes the path for messages: the parts joined with '.'. */
static void join(char *buf, size_t cap, const char *const *parts, int32_t n)
{
    size_t w = 0;
    buf[0] = '\0';
    for (int32_t k = 0; k < n && w + 1 < cap; k++) {
        size_t len = strlen(parts[k]);
        if (k && w + 1 < cap)
            buf[w++] = '.';
        if (len > cap - 1 - w)
            len = cap - 1 - w;
        memcpy(buf + w, parts[k], len);
        w += len;
        buf[w] = '\0';
    }
}

int32_t basalt_parquet_schema_find_parts(const struct basalt_parquet_schema *schema,
                                         const char *const *parts, int32_t n_parts)
{
    if (n_parts <= 0)
        return -1;
    int32_t node = find_node(schema, parts, n_parts);
    int32_t field = node > 0 ? schema->nodes[node].field : -1;
    return field >= 0 ? field : find_field(schema, parts, n_parts);
}

basalt_status basalt_parquet_projection_select_parts(struct basalt_parquet_projection *projection,
                                                     const char *const *parts, int32_t n_parts,
                                                     struct basalt_error *err)
{
    if (!projection || !projection->schema || (!parts && n_parts) || n_parts < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "projection: NULL argument");
    for (int32_t k = 0; k < n_parts; k++)
        if (!parts[k])
            return basalt_error_set(err, BASALT_INVALID_ARG, "projection: NULL path part");
    const struct basalt_parquet_schema *s = projection->schema;
    int32_t field = basalt_parquet_schema_find_parts(s, parts, n_parts);
    if (field < 0) {
        char path[256];
        join(path, sizeof path, parts, n_parts);
        return basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", path);
    }
    select_field(projection, field);
    return BASALT_OK;
}

/* Splits `dotted` at every '.' into *parts (one allocation holding the
 * pointers and the names: basalt_free(*parts)). NOMEM. */
static basalt_status split_path(const char *dotted, char ***parts, int32_t *n_parts,
                                struct basalt_error *err)
{
    size_t len = strlen(dotted);
    int32_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += dotted[i] == '.';
    char **p = basalt_malloc((size_t)n * sizeof *p + len + 1);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a path");
    char *copy = (char *)(p + n);
    memcpy(copy, dotted, len + 1);
    int32_t k = 0;
    p[k++] = copy;
    for (size_t i = 0; i < len; i++) {
        if (copy[i] == '.') {
            copy[i] = '\0';
            p[k++] = copy + i + 1;
        }
    }
    *parts = p;
    *n_parts = n;
    return BASALT_OK;
}

basalt_status basalt_parquet_schema_find_path(const struct basalt_parquet_schema *schema,
                                              const char *dotted, int32_t *field,
                                              struct basalt_error *err)
{
    char **parts;
    int32_t n;
    *field = -1;
    basalt_status st = split_path(dotted, &parts, &n, err);
    if (st != BASALT_OK)
        return st;
    *field = basalt_parquet_schema_find_parts(schema, (const char *const *)parts, n);
    basalt_free(parts);
    if (*field < 0)
        return basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", dotted);
    return BASALT_OK;
}

basalt_status basalt_parquet_projection_select_path(struct basalt_parquet_projection *projection,
                                                    const char *dotted, struct basalt_error *err)
{
    if (!projection || !projection->schema || !dotted)
        return basalt_error_set(err, BASALT_INVALID_ARG, "projection: NULL argument");
    char **parts;
    int32_t n;
    basalt_status st = split_path(dotted, &parts, &n, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_parquet_projection_select_parts(projection, (const char *const *)parts, n, err);
    if (st == BASALT_NOT_FOUND)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", dotted);
    basalt_free(parts);
    return st;
}

basalt_status basalt_parquet_projection_select_field_id(
    struct basalt_parquet_projection *projection, int32_t field_id, struct basalt_error *err)
{
    if (!projection || !projection->schema)
        return basalt_error_set(err, BASALT_INVALID_ARG, "projection: NULL argument");
    const struct basalt_parquet_schema *s = projection->schema;
    bool found = false;
    for (int32_t i = 0; i < s->n_fields; i++) {
        if (s->fields[i].has_field_id && s->fields[i].field_id == field_id) {
            select_field(projection, i);
            found = true;
        }
    }
    if (!found)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no column with field id %d",
                                (int)field_id);
    return BASALT_OK;
}

basalt_status basalt_parquet_projection_select_leaf(struct basalt_parquet_projection *projection,
                                                    int32_t leaf, struct basalt_error *err)
{
    if (!projection || !projection->schema)
        return basalt_error_set(err, BASALT_INVALID_ARG, "projection: NULL argument");
    const struct basalt_parquet_schema *s = projection->schema;
    if (leaf < 0 || leaf >= s->n_leaves)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no column %d (the file has %d)",
                                (int)leaf, (int)s->n_leaves);
    select_field(projection, s->leaves[leaf].field);
    return BASALT_OK;
}
