/* Schema evolution: changes applied to the current schema's JSON, handed
 * out as one add-schema update with the requirements that keep two
 * concurrent changes from losing one another. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "iceberg_internal.h"

/* The JSON "type" member that holds the fields of a step's children. */
struct place {
    json_t *fields; /* the parent struct's "fields" array */
    size_t index;   /* the field's position in it (fields size when absent) */
    json_t *field;  /* the field, or NULL */
};

/* The struct "fields" array reached by crossing a field's type: a struct
 * directly, a list's element or a map's key/value by name. */
static json_t *child_fields(json_t *type, const char *step, size_t len, json_t **crossed)
{
    *crossed = NULL;
    if (!json_is_object(type))
        return NULL;
    const char *kind = json_string_value(json_object_get(type, "type"));
    if (kind && strcmp(kind, "struct") == 0)
        return json_object_get(type, "fields");
    static const char *const names[] = {"element", "key", "value"};
    for (int k = 0; k < 3; k++)
        if (strlen(names[k]) == len && strncmp(step, names[k], len) == 0) {
            *crossed = json_object_get(type, names[k]);
            return NULL;
        }
    return NULL;
}

/* Finds `path` ("a.b.c") from the schema's top-level fields. For an add,
 * the last level may be missing: place->field is then NULL. */
static basalt_status find(json_t *schema, const char *path, struct place *out,
                          struct basalt_error *err)
{
    json_t *fields = json_object_get(schema, "fields");
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column '%.200s': empty name", path);
        out->fields = fields;
        out->field = NULL;
        out->index = json_array_size(fields);
        size_t i;
        json_t *f;
        json_array_foreach(fields, i, f)
        {
            const char *name = json_string_value(json_object_get(f, "name"));
            if (name && strlen(name) == len && strncmp(name, p, len) == 0) {
                out->field = f;
                out->index = i;
                break;
            }
        }
        if (!dot)
            return BASALT_OK;
        if (!out->field)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column '%.200s': no '%.*s'", path,
                                    (int)len, p);
        /* Into the field's type, crossing list elements and map values. */
        json_t *type = json_object_get(out->field, "type");
        p = dot + 1;
        for (;;) {
            const char *next = strchr(p, '.');
            size_t nlen = next ? (size_t)(next - p) : strlen(p);
            json_t *crossed = NULL;
            json_t *inner = child_fields(type, p, nlen, &crossed);
            if (inner) {
                fields = inner;
                break;
            }
            if (!crossed || !next)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "column '%.200s': '%.*s' has no fields", path, (int)len, path);
            type = crossed;
            p = next + 1;
        }
    }
}

static const char *last_level(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

/* Whether `from` may become `to` (the spec's type promotions). */
static bool promotion(const char *from, const char *to)
{
    if (strcmp(from, to) == 0)
        return true;
    if (!strcmp(from, "int") && !strcmp(to, "long"))
        return true;
    if (!strcmp(from, "float") && !strcmp(to, "double"))
        return true;
    int p1, s1, p2, s2;
    if (sscanf(from, "decimal(%d, %d)", &p1, &s1) == 2 && sscanf(to, "decimal(%d, %d)", &p2, &s2) == 2)
        return s1 == s2 && p2 >= p1;
    return false;
}

/* A field id used by the default spec or sort order, or an identifier. */
static const char *in_use(const struct basalt_iceberg_metadata *m, int64_t id)
{
    const struct basalt_iceberg_schema *cur = basalt_iceberg_metadata_current_schema(m);
    for (uint32_t i = 0; cur && i < cur->n_identifier_field_ids; i++)
        if (cur->identifier_field_ids[i] == id)
            return "an identifier field";
    const struct basalt_iceberg_partition_spec *spec =
        basalt_iceberg_metadata_spec(m, m->default_spec_id);
    for (uint32_t i = 0; spec && i < spec->n_fields; i++)
        if (spec->fields[i].source_id == id)
            return "a source of the partition spec";
    const struct basalt_iceberg_sort_order *order =
        basalt_iceberg_metadata_sort_order(m, m->default_sort_order_id);
    for (uint32_t i = 0; order && i < order->n_fields; i++)
        if (order->fields[i].source_id == id)
            return "a source of the sort order";
    return NULL;
}

/* A type written as schema text ("list<string>", "decimal(12, 2)") as JSON,
 * ids to be numbered by the caller; *out a new reference. */
static basalt_status type_from_text(const char *text, json_t **out, struct basalt_error *err)
{
    size_t len = strlen(text) + 8;
    char *field = basalt_malloc(len), *parsed = NULL;
    if (!field)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    snprintf(field, len, "x %s", text);
    basalt_status st = basalt_iceberg_schema_from_text(field, &parsed, err);
    basalt_free(field);
    if (st != BASALT_OK)
        return st;
    json_t *schema = json_loads(parsed, 0, NULL);
    basalt_free(parsed);
    *out = json_incref(json_object_get(json_array_get(json_object_get(schema, "fields"), 0), "type"));
    json_decref(schema);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static basalt_status apply_change(const struct basalt_iceberg_metadata *m, json_t *schema,
                                  const struct basalt_iceberg_column_change *c, int32_t *next_id,
                                  struct basalt_error *err)
{
    struct place at;
    if (!c->column || !*c->column)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a change without a column");
    basalt_status st = find(schema, c->column, &at, err);
    if (st != BASALT_OK)
        return st;
    if (c->kind != BASALT_ICEBERG_ADD_COLUMN && !at.field)
        return basalt_error_set(err, BASALT_INVALID_ARG, "no column '%.200s'", c->column);
    bool needs_value = c->kind == BASALT_ICEBERG_ADD_COLUMN ||
                       c->kind == BASALT_ICEBERG_RENAME_COLUMN ||
                       c->kind == BASALT_ICEBERG_UPDATE_COLUMN || c->kind == BASALT_ICEBERG_MOVE_AFTER ||
                       c->kind == BASALT_ICEBERG_MOVE_BEFORE || c->kind == BASALT_ICEBERG_SET_DOC;
    if (needs_value && (!c->value || (!*c->value && c->kind != BASALT_ICEBERG_SET_DOC)))
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%.200s': the change needs a value",
                                c->column);
    switch (c->kind) {
    case BASALT_ICEBERG_ADD_COLUMN: {
        if (at.field)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column '%.200s' already exists",
                                    c->column);
        /* The type through the schema-text parser, then numbered on. */
        json_t *type = NULL;
        st = type_from_text(c->value, &type, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "add column '%.200s'", c->column);
        int32_t id = (*next_id)++;
        basalt_iceberg_assign_ids_from(type, next_id);
        json_t *field = type ? json_pack("{s:i,s:s,s:b,s:o}", "id", id, "name",
                                         last_level(c->column), "required", 0, "type", type)
                             : NULL;
        if (!field || json_array_append_new(at.fields, field) != 0)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        return BASALT_OK;
    }
    case BASALT_ICEBERG_DROP_COLUMN: {
        const char *why = in_use(m, json_integer_value(json_object_get(at.field, "id")));
        if (why)
            return basalt_error_set(err, BASALT_INVALID_ARG, "cannot drop '%.200s': it is %s",
                                    c->column, why);
        json_array_remove(at.fields, at.index);
        return BASALT_OK;
    }
    case BASALT_ICEBERG_RENAME_COLUMN: {
        size_t i;
        json_t *f;
        json_array_foreach(at.fields, i, f)
        {
            const char *name = json_string_value(json_object_get(f, "name"));
            if (i != at.index && name && strcmp(name, c->value) == 0)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "cannot rename '%.200s' to '%.200s': the name is taken",
                                        c->column, c->value);
        }
        return json_object_set_new(at.field, "name", json_string(c->value)) == 0
                   ? BASALT_OK
                   : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    case BASALT_ICEBERG_UPDATE_COLUMN: {
        const char *from = json_string_value(json_object_get(at.field, "type"));
        json_t *one = NULL;
        st = type_from_text(c->value, &one, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "update column '%.200s'", c->column);
        const char *to = json_string_value(one);
        st = from && to && promotion(from, to)
                 ? (json_object_set_new(at.field, "type", json_string(to)) == 0
                        ? BASALT_OK
                        : basalt_error_set(err, BASALT_NOMEM, "out of memory"))
                 : basalt_error_set(err, BASALT_INVALID_ARG,
                                    "cannot change '%.200s' from %s to %s: not a type promotion",
                                    c->column, from ? from : "a nested type", to ? to : "a nested type");
        json_decref(one);
        return st;
    }
    case BASALT_ICEBERG_MAKE_OPTIONAL:
        return json_object_set_new(at.field, "required", json_false()) == 0
                   ? BASALT_OK
                   : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    case BASALT_ICEBERG_SET_DOC:
        return json_object_set_new(at.field, "doc", json_string(c->value)) == 0
                   ? BASALT_OK
                   : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    case BASALT_ICEBERG_MOVE_FIRST:
    case BASALT_ICEBERG_MOVE_AFTER:
    case BASALT_ICEBERG_MOVE_BEFORE: {
        json_t *field = json_incref(at.field);
        json_array_remove(at.fields, at.index);
        size_t to = 0;
        if (c->kind != BASALT_ICEBERG_MOVE_FIRST) {
            struct place other;
            /* The other column is named within the same parent. */
            st = find(schema, c->value, &other, err);
            if (st == BASALT_OK && (!other.field || other.fields != at.fields))
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "cannot move '%.200s' next to '%.200s': not a column beside it",
                                      c->column, c->value);
            if (st != BASALT_OK) {
                json_array_insert_new(at.fields, at.index, field);
                return st;
            }
            to = other.index + (c->kind == BASALT_ICEBERG_MOVE_AFTER);
        }
        return json_array_insert_new(at.fields, to, field) == 0
                   ? BASALT_OK
                   : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    }
    return basalt_error_set(err, BASALT_INVALID_ARG, "unknown schema change %d", (int)c->kind);
}

/* Dumps a JSON value into a basalt_malloc'd string. */
static basalt_status dump(json_t *v, char **out, struct basalt_error *err)
{
    char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
    *out = text ? basalt_strdup(text) : NULL;
    free(text);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status basalt_iceberg_schema_changes(const struct basalt_iceberg_metadata *m,
                                            const struct basalt_iceberg_column_change *changes,
                                            uint32_t n_changes, char **requirements,
                                            char **updates, struct basalt_error *err)
{
    *requirements = *updates = NULL;
    const struct basalt_iceberg_schema *cur = basalt_iceberg_metadata_current_schema(m);
    json_t *schema = cur ? basalt_iceberg_schema_to_json(cur) : NULL;
    if (!schema)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_object_del(schema, "schema-id");
    int32_t next_id = m->last_column_id + 1;
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; st == BASALT_OK && i < n_changes; i++)
        st = apply_change(m, schema, &changes[i], &next_id, err);
    json_t *reqs = NULL, *ups = NULL;
    if (st == BASALT_OK) {
        reqs = json_pack("[{s:s,s:i},{s:s,s:i}]", "type", "assert-current-schema-id",
                         "current-schema-id", (int)m->current_schema_id, "type",
                         "assert-last-assigned-field-id", "last-assigned-field-id",
                         (int)m->last_column_id);
        ups = json_pack("[{s:s,s:O,s:i},{s:s,s:i}]", "action", "add-schema", "schema", schema,
                        "last-column-id", (int)(next_id - 1), "action", "set-current-schema",
                        "schema-id", -1);
        st = dump(reqs, requirements, err);
        if (st == BASALT_OK)
            st = dump(ups, updates, err);
    }
    json_decref(reqs);
    json_decref(ups);
    json_decref(schema);
    if (st != BASALT_OK) {
        basalt_free(*requirements);
        basalt_free(*updates);
        *requirements = *updates = NULL;
    }
    return st;
}
