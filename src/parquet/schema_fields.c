/* The Arrow fields of a Parquet schema: structs, the LIST and MAP
 * conventions with their backward-compatibility rules, unannotated repeated
 * fields, and the levels of every field (see parquet_schema.h). */
#include <stdio.h>
#include <string.h>

#include "parquet_schema.h"

struct fctx {
    struct basalt_parquet_schema *s;
    int32_t cap;
    struct basalt_error *err;
};

static basalt_status shape_error(struct fctx *c, int32_t node, const char *why)
{
    return basalt_error_set(c->err, BASALT_CORRUPT, "column '%s': %s", c->s->nodes[node].path,
                            why);
}

/* Appends a field made from `node`, with room for `n_children` children, and
 * links it into its parent. */
static basalt_status add_field(struct fctx *c, enum basalt_parquet_field_kind kind, int32_t node,
                               int32_t parent, bool nullable, int def, int rep, int anc,
                               int32_t n_children, int32_t *out)
{
    struct basalt_parquet_schema *s = c->s;
    if (s->n_fields >= c->cap)
        return basalt_error_set(c->err, BASALT_INTERNAL, "schema: field table overflow");
    int32_t i = s->n_fields++;
    struct basalt_parquet_schema_field *f = &s->fields[i];
    const struct basalt_parquet_schema_node *n = &s->nodes[node];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->name = n->name;
    f->nullable = nullable;
    f->parent = parent;
    f->node = node;
    f->leaf = -1;
    f->leaf_begin = n->leaf_begin;
    f->leaf_end = n->leaf_end;
    f->def_level = (int16_t)def;
    f->rep_level = (int16_t)rep;
    f->repeated_ancestor_def_level = (int16_t)anc;
    f->format = kind == BASALT_PARQUET_FIELD_STRUCT ? "+s"
                : kind == BASALT_PARQUET_FIELD_MAP  ? "+m"
                                                    : "+l";
    if (n_children) {
        int32_t *kids = basalt_arena_alloc(&s->arena, (size_t)n_children * sizeof *kids, 4);
        if (!kids)
            return basalt_error_set(c->err, BASALT_NOMEM, "out of memory for the schema");
        f->children = kids;
    }
    if (parent >= 0) {
        struct basalt_parquet_schema_field *p = &s->fields[parent];
        p->children[p->n_children++] = i;
        f->depth = p->depth + 1;
    } else {
        s->roots[s->n_roots++] = i;
    }
    *out = i;
    return BASALT_OK;
}

static basalt_status from_node(struct fctx *c, int32_t node, int32_t parent, int anc,
                               int32_t *out);

/* The leaf field of a primitive node. */
static basalt_status primitive(struct fctx *c, int32_t node, int32_t parent, bool nullable,
                               int def, int rep, int anc, int32_t *out)
{
    basalt_status st = add_field(c, BASALT_PARQUET_FIELD_PRIMITIVE, node, parent, nullable, def,
                                 rep, anc, 0, out);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_schema_field *f = &c->s->fields[*out];
    struct basalt_parquet_schema_leaf *leaf = &c->s->leaves[c->s->nodes[node].leaf];
    f->leaf = leaf->index;
    f->format = leaf->format;
    leaf->field = *out;
    return BASALT_OK;
}

/* A struct of the children of group `node`. */
static basalt_status group_struct(struct fctx *c, int32_t node, int32_t parent, bool nullable,
                                  int def, int rep, int anc, int32_t *out)
{
    const struct basalt_parquet_schema_node *n = &c->s->nodes[node];
    basalt_status st = add_field(c, BASALT_PARQUET_FIELD_STRUCT, node, parent, nullable, def, rep,
                                 anc, n->n_children, out);
    if (st == BASALT_OK && n->annotation.kind == BASALT_PARQUET_SCHEMA_LOGICAL_VARIANT) {
        /* A VARIANT annotation below another is part of that one's
         * shredding, not a variant of its own. */
        bool inside = false;
        for (int32_t a = parent; a >= 0 && !inside; a = c->s->fields[a].parent)
            inside = c->s->fields[a].variant;
        c->s->fields[*out].variant = !inside;
    }
    int32_t self = *out, child;
    for (int32_t i = 0; i < n->n_children && st == BASALT_OK; i++)
        st = from_node(c, n->children[i], self, anc, &child);
    return st;
}

/* The repeated node `node` as the (non-null) element of a list: a primitive
 * or a struct of its children. */
static basalt_status repeated_as_element(struct fctx *c, int32_t node, int32_t list,
                                         int32_t *out)
{
    const struct basalt_parquet_schema_node *n = &c->s->nodes[node];
    if (n->is_leaf)
        return primitive(c, node, list, false, n->max_def, n->max_rep, n->max_def, out);
    return group_struct(c, node, list, false, n->max_def, n->max_rep, n->max_def, out);
}

/* A LIST-annotated group (or a MAP whose key_value holds a single field). */
static basalt_status list_group(struct fctx *c, int32_t node, int32_t parent, int anc,
                                int32_t *out)
{
    struct basalt_parquet_schema *s = c->s;
    const struct basalt_parquet_schema_node *g = &s->nodes[node];
    if (g->n_children != 1)
        return shape_error(c, node, "a LIST group needs exactly one child");
    int32_t r = g->children[0];
    const struct basalt_parquet_schema_node *rn = &s->nodes[r];
    if (rn->repetition != BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED)
        return shape_error(c, node, "the child of a LIST group is not repeated");
    basalt_status st = add_field(c, BASALT_PARQUET_FIELD_LIST, node, parent,
                                 g->repetition == BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL,
                                 g->max_def, g->max_rep, anc, 1, out);
    if (st != BASALT_OK)
        return st;
    int32_t list = *out, element;
    s->nodes[node].field = list;
    int elem_anc = rn->max_def;
    if (rn->is_leaf || rn->n_children > 1) {
        /* Two-level: the repeated node is the element. */
        st = repeated_as_element(c, r, list, &element);
        s->nodes[r].field = element;
        return st;
    }
    int32_t only = rn->children[0];
    const struct basalt_parquet_schema_node *cn = &s->nodes[only];
    size_t glen = strlen(g->name);
    bool tuple_name = strcmp(rn->name, "array") == 0 ||
                      (strncmp(rn->name, g->name, glen) == 0 &&
                       strcmp(rn->name + glen, "_tuple") == 0);
    if (cn->repetition != BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED && tuple_name) {
        st = repeated_as_element(c, r, list, &element);
        s->nodes[r].field = element;
        return st;
    }
    /* Three-level (or the repeated group holding one repeated field, which
     * is then a list of its own): the element is the single child. */
    s->nodes[r].field = list;
    return from_node(c, only, list, elem_anc, &element);
}

/* A MAP-annotated group (or MAP_KEY_VALUE outside a MAP). */
static basalt_status map_group(struct fctx *c, int32_t node, int32_t parent, int anc,
                               int32_t *out)
{
    struct basalt_parquet_schema *s = c->s;
    const struct basalt_parquet_schema_node *g = &s->nodes[node];
    if (g->n_children != 1)
        return shape_error(c, node, "a MAP group needs exactly one child");
    int32_t kv = g->children[0];
    const struct basalt_parquet_schema_node *kn = &s->nodes[kv];
    if (kn->is_leaf || kn->repetition != BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED)
        return shape_error(c, node, "the child of a MAP group is not a repeated group");
    if (kn->n_children == 1)
        return list_group(c, node, parent, anc, out);
    if (kn->n_children != 2)
        return shape_error(c, node, "a MAP key_value group needs a key and a value");
    basalt_status st = add_field(c, BASALT_PARQUET_FIELD_MAP, node, parent,
                                 g->repetition == BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL,
                                 g->max_def, g->max_rep, anc, 1, out);
    if (st != BASALT_OK)
        return st;
    int32_t map = *out, entries, key, value;
    s->nodes[node].field = map;
    st = add_field(c, BASALT_PARQUET_FIELD_STRUCT, kv, map, false, kn->max_def, kn->max_rep,
                   kn->max_def, 2, &entries);
    if (st != BASALT_OK)
        return st;
    s->nodes[kv].field = entries;
    st = from_node(c, kn->children[0], entries, kn->max_def, &key);
    if (st == BASALT_OK) {
        /* Arrow map keys are never null, whatever the file says. */
        s->fields[key].nullable = false;
        st = from_node(c, kn->children[1], entries, kn->max_def, &value);
    }
    return st;
}

static basalt_status from_node(struct fctx *c, int32_t node, int32_t parent, int anc,
                               int32_t *out)
{
    struct basalt_parquet_schema *s = c->s;
    const struct basalt_parquet_schema_node *n = &s->nodes[node];
    enum basalt_parquet_schema_logical kind = n->annotation.kind;
    bool nullable = n->repetition == BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL;
    basalt_status st;
    if (n->repetition == BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED) {
        if (kind == BASALT_PARQUET_SCHEMA_LOGICAL_LIST || kind == BASALT_PARQUET_SCHEMA_LOGICAL_MAP)
            return shape_error(c, node, "a LIST or MAP group is repeated");
        /* Unannotated repeated field: a non-null list of non-null elements. */
        st = add_field(c, BASALT_PARQUET_FIELD_LIST, node, parent, false, n->max_def - 1,
                       n->max_rep - 1, anc, 1, out);
        if (st != BASALT_OK)
            return st;
        s->nodes[node].field = *out;
        int32_t element;
        return repeated_as_element(c, node, *out, &element);
    }
    if (n->is_leaf)
        st = primitive(c, node, parent, nullable, n->max_def, n->max_rep, anc, out);
    else if (kind == BASALT_PARQUET_SCHEMA_LOGICAL_LIST)
        return list_group(c, node, parent, anc, out);
    else if (kind == BASALT_PARQUET_SCHEMA_LOGICAL_MAP ||
             kind == BASALT_PARQUET_SCHEMA_LOGICAL_MAP_KEY_VALUE)
        return map_group(c, node, parent, anc, out);
    else
        st = group_struct(c, node, parent, nullable, n->max_def, n->max_rep, anc, out);
    if (st == BASALT_OK)
        s->nodes[node].field = *out;
    return st;
}

static basalt_status extension(struct fctx *c, struct basalt_buffer *md, const char *name,
                               const char *value)
{
    basalt_status st = basalt_arrow_metadata_append(md, "ARROW:extension:name", 20, name,
                                                    strlen(name), c->err);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(md, "ARROW:extension:metadata", 24, value,
                                          strlen(value), c->err);
    return st;
}

/* Field metadata: PARQUET:field_id, and the extensions: arrow.uuid on UUID
 * leaves, geoarrow.wkb on GEOMETRY and GEOGRAPHY leaves, parquet.variant on
 * VARIANT groups. */
static basalt_status field_metadata(struct fctx *c, struct basalt_buffer *md,
                                    const struct basalt_parquet_key_value *kv, size_t n_kv)
{
    struct basalt_parquet_schema *s = c->s;
    for (int32_t i = 0; i < s->n_fields; i++) {
        struct basalt_parquet_schema_field *f = &s->fields[i];
        const struct basalt_parquet_schema_node *n = &s->nodes[f->node];
        /* The element made from a repeated node's only child is that child's
         * field; the list made from an unannotated repeated node carries the
         * node's id, its element none (as Arrow C++). */
        bool element_of_self = f->parent >= 0 && s->fields[f->parent].node == f->node;
        /* A negative id reads as none, as in Arrow C++ (which cannot tell
         * them apart from an absent one). */
        f->has_field_id = n->has_field_id && n->field_id >= 0 && !element_of_self;
        f->field_id = n->field_id;
        md->size = 0;
        basalt_status st = BASALT_OK;
        if (f->has_field_id) {
            char id[16];
            int len = snprintf(id, sizeof id, "%d", (int)f->field_id);
            st = basalt_arrow_metadata_append(md, "PARQUET:field_id", 16, id, (size_t)len, c->err);
        }
        const struct basalt_parquet_schema_annotation *a =
            f->kind == BASALT_PARQUET_FIELD_PRIMITIVE ? &s->leaves[f->leaf].annotation : NULL;
        if (st == BASALT_OK && a && a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_UUID)
            st = extension(c, md, "arrow.uuid", "");
        if (st == BASALT_OK && a &&
            (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_GEOMETRY ||
             a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_GEOGRAPHY))
            st = basalt_parquet_geoarrow_metadata(a, kv, n_kv, md, c->err);
        if (st == BASALT_OK && f->variant)
            st = extension(c, md, "parquet.variant", "");
        if (st == BASALT_OK)
            st = basalt_parquet_schema_metadata_dup(s, md, &f->metadata, c->err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_schema_build_fields(struct basalt_parquet_schema *schema,
                                                 const struct basalt_parquet_key_value *kv,
                                                 size_t n_kv, struct basalt_error *err)
{
    struct fctx c = {.s = schema, .cap = 2 * schema->n_nodes, .err = err};
    schema->fields = basalt_arena_alloc(&schema->arena, (size_t)c.cap * sizeof *schema->fields, 8);
    const struct basalt_parquet_schema_node *root = &schema->nodes[0];
    schema->roots = basalt_arena_alloc(&schema->arena,
                                       (size_t)(root->n_children ? root->n_children : 1) *
                                           sizeof *schema->roots,
                                       4);
    if (!schema->fields || !schema->roots)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
    schema->n_fields = 0;
    schema->n_roots = 0;
    basalt_status st = BASALT_OK;
    for (int32_t i = 0; i < root->n_children && st == BASALT_OK; i++) {
        int32_t f;
        st = from_node(&c, root->children[i], -1, 0, &f);
    }
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    st = field_metadata(&c, &md, kv, n_kv);
    basalt_buffer_reset(&md);
    return st;
}
