/* The updates that create a table from JSON objects: the schema, partition
 * spec and sort order of a REST CreateTableRequest (or those the text forms
 * of spec_text.c produce). */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_transform.h"
#include "commit_internal.h"

/* A JSON object parsed from `text` (NULL or "": `dflt` when given). */
static basalt_status object_from(const char *text, const char *what, const char *dflt,
                                 json_t **out, struct basalt_error *err)
{
    *out = NULL;
    if (!text || !*text)
        text = dflt;
    if (!text)
        return BASALT_OK;
    json_error_t jerr;
    *out = json_loads(text, 0, &jerr);
    if (!json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return basalt_error_set(err, BASALT_INVALID_ARG, "create: %s is not a JSON object (%s)",
                                what, jerr.text);
    }
    return BASALT_OK;
}

/* Checks that each field of a spec or order names source fields of the
 * schema that its transform applies to: metadata naming a missing column
 * would parse, and fail only when the table is written. */
static basalt_status check_sources(const struct basalt_iceberg_schema *schema, const json_t *obj,
                                   const char *what, struct basalt_error *err)
{
    const json_t *fields = json_object_get(obj, "fields");
    if (!json_is_array(fields))
        return basalt_error_set(err, BASALT_INVALID_ARG, "create: %s has no 'fields' array", what);
    size_t i;
    const json_t *f;
    json_array_foreach(fields, i, f)
    {
        const char *text = json_string_value(json_object_get(f, "transform"));
        const json_t *one = json_object_get(f, "source-id");
        const json_t *ids = json_object_get(f, "source-ids");
        struct basalt_iceberg_transform t;
        if (!text || basalt_iceberg_transform_parse(text, &t, NULL) != BASALT_OK)
            return basalt_error_set(err, BASALT_INVALID_ARG, "create: %s field %zu: bad transform",
                                    what, i);
        size_t n = json_is_integer(one) ? 1 : json_array_size(ids);
        if (n == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "create: %s field %zu: no source-id",
                                    what, i);
        for (size_t k = 0; k < n; k++) {
            const json_t *id = json_is_integer(one) ? one : json_array_get(ids, k);
            const struct basalt_iceberg_field *src =
                json_is_integer(id)
                    ? basalt_iceberg_schema_field(schema, (int32_t)json_integer_value(id))
                    : NULL;
            if (!src)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "create: %s field %zu: no source field %lld in the schema",
                                        what, i, (long long)json_integer_value(id));
            if (!basalt_iceberg_transform_can_apply(&t, &src->type))
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "create: %s field %zu: %s cannot apply to field %d", what,
                                        i, text, (int)src->id);
        }
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_create_updates_json(const char *schema_json, const char *spec_json,
                                                 const char *order_json, int32_t format_version,
                                                 const char *location,
                                                 const char *properties_json, char **out,
                                                 struct basalt_error *err)
{
    *out = NULL;
    if (!location || !*location)
        return basalt_error_set(err, BASALT_INVALID_ARG, "create: no location");
    if (format_version < 1 || format_version > 3)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "create: format version %d",
                                (int)format_version);
    json_t *schema = NULL, *spec = NULL, *order = NULL, *props = NULL, *updates = NULL;
    basalt_status st = object_from(schema_json, "the schema", NULL, &schema, err);
    if (st == BASALT_OK && !schema)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "create: no schema");
    if (st == BASALT_OK && !json_is_array(json_object_get(schema, "fields")))
        st = basalt_error_set(err, BASALT_INVALID_ARG, "create: the schema has no 'fields' array");
    /* No spec or order: unpartitioned and unsorted, as the Java builder. */
    if (st == BASALT_OK)
        st = object_from(spec_json, "the partition spec", "{\"spec-id\":0,\"fields\":[]}", &spec,
                         err);
    if (st == BASALT_OK)
        st = object_from(order_json, "the sort order", "{\"order-id\":0,\"fields\":[]}", &order,
                         err);
    if (st == BASALT_OK)
        st = object_from(properties_json, "the properties", "{}", &props, err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_schema parsed;
    if (st == BASALT_OK) {
        st = basalt_iceberg_schema_parse_json(schema_json, strlen(schema_json), &arena, &parsed,
                                              err);
        if (st == BASALT_CORRUPT || st == BASALT_LIMIT)
            st = basalt_error_context(err, BASALT_INVALID_ARG, "create: the schema");
    }
    if (st == BASALT_OK)
        st = check_sources(&parsed, spec, "the partition spec", err);
    if (st == BASALT_OK)
        st = check_sources(&parsed, order, "the sort order", err);
    basalt_arena_reset(&arena);
    const char *key;
    json_t *v;
    json_object_foreach(props, key, v)
    {
        if (st == BASALT_OK && !json_is_string(v))
            st = basalt_error_set(err, BASALT_INVALID_ARG, "create: property '%s' is not a string",
                                  key);
    }
    if (st == BASALT_OK) {
        char uuid[37];
        basalt_iceberg_uuid4(uuid);
        /* The order of the Java builder's changes (and of what a REST
         * client sends to commit a staged create). */
        updates = json_pack(
            "[{s:s,s:s},{s:s,s:i},{s:s,s:O},{s:s,s:i},{s:s,s:O},{s:s,s:i},{s:s,s:O},{s:s,s:i},"
            "{s:s,s:s},{s:s,s:O}]",
            "action", "assign-uuid", "uuid", uuid, "action", "upgrade-format-version",
            "format-version", (int)format_version, "action", "add-schema", "schema", schema,
            "action", "set-current-schema", "schema-id", -1, "action", "add-spec", "spec", spec,
            "action", "set-default-spec", "spec-id", -1, "action", "add-sort-order",
            "sort-order", order, "action", "set-default-sort-order", "sort-order-id", -1,
            "action", "set-location", "location", location, "action", "set-properties",
            "updates", props);
        char *text = updates ? json_dumps(updates, JSON_COMPACT) : NULL;
        *out = text ? basalt_strdup(text) : NULL;
        free(text);
        if (!*out)
            st = basalt_error_set(err, BASALT_NOMEM, "create: out of memory");
    }
    json_decref(updates);
    json_decref(schema);
    json_decref(spec);
    json_decref(order);
    json_decref(props);
    return st;
}
