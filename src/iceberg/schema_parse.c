/* Schemas: the struct type at the root plus schema-id and
 * identifier-field-ids, from JSON and back. */
#include <stdlib.h>
#include <string.h>

#include "iceberg_internal.h"

basalt_status basalt_iceberg_schema_parse(struct basalt_iceberg_parse_ctx *ctx, const json_t *json,
                                          struct basalt_iceberg_schema *out)
{
    basalt_status st;
    memset(out, 0, sizeof(*out));
    if (!json_is_object(json))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "a schema is not an object");
    const char *kind = json_string_value(json_object_get(json, "type"));
    if (!kind)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "cannot parse type: missing 'type'");
    if (strcmp(kind, "struct") != 0)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "a schema is a '%s', not a struct",
                                kind);
    if ((st = basalt_iceberg_json_i32(json, "schema-id", false, NULL, &out->schema_id,
                                      ctx->err)) != BASALT_OK)
        return st;
    if ((st = basalt_iceberg_type_parse(ctx, json, 0, &out->root)) != BASALT_OK)
        return st;
    const json_t *ids;
    if ((st = basalt_iceberg_json_array(json, "identifier-field-ids", false, &ids, ctx->err)) !=
        BASALT_OK)
        return st;
    if (ids) {
        size_t n = json_array_size(ids);
        if (n > UINT32_MAX)
            return basalt_error_set(ctx->err, BASALT_LIMIT, "too many identifier fields");
        out->identifier_field_ids = basalt_iceberg_arena_array(ctx, n, sizeof(int32_t));
        if (!out->identifier_field_ids)
            return BASALT_NOMEM;
        for (size_t i = 0; i < n; i++) {
            const json_t *v = json_array_get(ids, i);
            if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
                json_integer_value(v) > INT32_MAX)
                return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                        "identifier-field-ids[%zu] is not an int", i);
            out->identifier_field_ids[i] = (int32_t)json_integer_value(v);
        }
        out->n_identifier_field_ids = (uint32_t)n;
    }
    if ((st = basalt_iceberg_field_index_build(ctx, out)) != BASALT_OK)
        return st;
    for (uint32_t i = 0; i < out->n_identifier_field_ids; i++)
        if (!basalt_iceberg_schema_field(out, out->identifier_field_ids[i]))
            return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                    "identifier field %d is not in the schema",
                                    out->identifier_field_ids[i]);
    return BASALT_OK;
}

json_t *basalt_iceberg_schema_to_json(const struct basalt_iceberg_schema *schema)
{
    json_t *o = basalt_iceberg_type_to_json(&schema->root);
    if (!o)
        return NULL;
    json_t *ids = json_array();
    if (!ids || json_object_set_new(o, "schema-id", json_integer(schema->schema_id)))
        goto fail;
    for (uint32_t i = 0; i < schema->n_identifier_field_ids; i++)
        if (json_array_append_new(ids, json_integer(schema->identifier_field_ids[i])))
            goto fail;
    if (json_object_set_new(o, "identifier-field-ids", ids)) {
        ids = NULL;
        goto fail;
    }
    return o;
fail:
    json_decref(ids);
    json_decref(o);
    return NULL;
}

basalt_status basalt_iceberg_schema_parse_json(const char *text, size_t len,
                                               struct basalt_arena *arena,
                                               struct basalt_iceberg_schema *out,
                                               struct basalt_error *err)
{
    if (!text || !arena || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_parse_json: NULL argument");
    memset(out, 0, sizeof(*out));
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return basalt_error_set(err, BASALT_CORRUPT, "schema: invalid JSON at line %d column %d: %s",
                                jerr.line, jerr.column, jerr.text);
    struct basalt_iceberg_parse_ctx ctx = {arena, err, 3};
    basalt_status st = basalt_iceberg_schema_parse(&ctx, root, out);
    json_decref(root);
    if (st != BASALT_OK) {
        memset(out, 0, sizeof(*out));
        return basalt_error_context(err, st, "schema");
    }
    return BASALT_OK;
}
