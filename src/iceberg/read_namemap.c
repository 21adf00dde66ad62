/* Name mapping (`schema.name-mapping.default`): field ids for the columns of
 * files written without them, by name. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "scan_internal.h"

#define FIELD_ID_KEY "PARQUET:field_id"
#define MAX_DEPTH 64

static basalt_status set_id(struct ArrowSchema *s, int32_t id, struct basalt_error *err)
{
    char text[16];
    int n = snprintf(text, sizeof text, "%" PRId32, id);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_arrow_metadata_append(&buf, FIELD_ID_KEY, strlen(FIELD_ID_KEY), text,
                                                    (size_t)n, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(s, (const char *)buf.data, err);
    basalt_buffer_reset(&buf);
    return st;
}

/* ---------------------------------------------------------- from JSON */

static const json_t *json_find(const json_t *fields, const char *name)
{
    size_t i;
    const json_t *f;
    json_array_foreach(fields, i, f) {
        const json_t *names = json_object_get(f, "names");
        size_t k;
        const json_t *nm;
        json_array_foreach(names, k, nm) {
            if (json_is_string(nm) && strcmp(json_string_value(nm), name) == 0)
                return f;
        }
    }
    return NULL;
}

static basalt_status apply_json(const json_t *fields, struct ArrowSchema *s, int depth,
                                struct basalt_error *err);

/* The children of one node whose mapping entry is `entry`. */
static basalt_status apply_json_node(const json_t *entry, struct ArrowSchema *node, int depth,
                                     struct basalt_error *err)
{
    const json_t *sub = json_object_get(entry, "fields");
    if (!json_is_array(sub) || node->n_children == 0)
        return BASALT_OK;
    if (strcmp(node->format, "+s") == 0)
        return apply_json(sub, node, depth + 1, err);
    if (strcmp(node->format, "+l") == 0 || strcmp(node->format, "+L") == 0) {
        const json_t *e = json_find(sub, "element");
        if (e == NULL)
            return BASALT_OK;
        const json_t *id = json_object_get(e, "field-id");
        basalt_status st = json_is_integer(id) ? set_id(node->children[0], (int32_t)json_integer_value(id), err) : BASALT_OK;
        return st == BASALT_OK ? apply_json_node(e, node->children[0], depth + 1, err) : st;
    }
    if (strcmp(node->format, "+m") == 0)
        return apply_json(sub, node->children[0], depth + 1, err);
    return BASALT_OK;
}

static basalt_status apply_json(const json_t *fields, struct ArrowSchema *s, int depth,
                                struct basalt_error *err)
{
    if (depth > MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "name mapping nested too deeply");
    for (int64_t j = 0; j < s->n_children; j++) {
        struct ArrowSchema *c = s->children[j];
        const json_t *e = c->name ? json_find(fields, c->name) : NULL;
        if (e == NULL)
            continue;
        const json_t *id = json_object_get(e, "field-id");
        basalt_status st = BASALT_OK;
        if (json_is_integer(id))
            st = set_id(c, (int32_t)json_integer_value(id), err);
        if (st == BASALT_OK)
            st = apply_json_node(e, c, depth, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------- from a schema */

static basalt_status apply_type(const struct basalt_iceberg_type *t, struct ArrowSchema *s,
                                int depth, struct basalt_error *err);

static basalt_status apply_field(const struct basalt_iceberg_field *f, struct ArrowSchema *c,
                                 int depth, struct basalt_error *err)
{
    basalt_status st = set_id(c, f->id, err);
    if (st != BASALT_OK || c->n_children == 0)
        return st;
    const struct basalt_iceberg_type *t = &f->type;
    if (t->id == BASALT_ICEBERG_TYPE_STRUCT && strcmp(c->format, "+s") == 0)
        return apply_type(t, c, depth + 1, err);
    if (t->id == BASALT_ICEBERG_TYPE_LIST && t->n_fields == 1 && c->format[0] == '+' && c->format[1] == 'l')
        return apply_field(&t->fields[0], c->children[0], depth + 1, err);
    if (t->id == BASALT_ICEBERG_TYPE_MAP && t->n_fields == 2 && strcmp(c->format, "+m") == 0 &&
        c->children[0]->n_children == 2) {
        st = apply_field(&t->fields[0], c->children[0]->children[0], depth + 1, err);
        if (st == BASALT_OK)
            st = apply_field(&t->fields[1], c->children[0]->children[1], depth + 1, err);
    }
    return st;
}

static basalt_status apply_type(const struct basalt_iceberg_type *t, struct ArrowSchema *s,
                                int depth, struct basalt_error *err)
{
    if (depth > MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "schema nested too deeply");
    for (int64_t j = 0; j < s->n_children; j++) {
        struct ArrowSchema *c = s->children[j];
        for (uint32_t i = 0; i < t->n_fields && c->name != NULL; i++) {
            if (strcmp(t->fields[i].name, c->name) != 0)
                continue;
            basalt_status st = apply_field(&t->fields[i], c, depth, err);
            if (st != BASALT_OK)
                return st;
            break;
        }
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------- by position */

bool basalt_iceberg_arrow_has_ids(const struct ArrowSchema *s)
{
    for (int64_t j = 0; j < s->n_children; j++) {
        int32_t id;
        if (basalt_iceberg_scan_arrow_field_id(s->children[j], &id) ||
            basalt_iceberg_arrow_has_ids(s->children[j]))
            return true;
    }
    return false;
}

basalt_status basalt_iceberg_position_ids_apply(struct ArrowSchema *arrow, struct basalt_error *err)
{
    for (int64_t j = 0; j < arrow->n_children; j++) {
        if (j + 1 > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "too many columns");
        basalt_status st = set_id(arrow->children[j], (int32_t)(j + 1), err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_name_mapping_apply(const char *mapping_json,
                                                const struct basalt_iceberg_schema *schema,
                                                struct ArrowSchema *arrow, struct basalt_error *err)
{
    if (mapping_json == NULL)
        return apply_type(&schema->root, arrow, 0, err);
    json_error_t jerr;
    json_t *root = json_loads(mapping_json, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL || !json_is_array(root)) {
        json_decref(root);
        return basalt_error_set(err, BASALT_CORRUPT, "schema.name-mapping.default: not a JSON array");
    }
    basalt_status st = apply_json(root, arrow, 0, err);
    json_decref(root);
    return st;
}
