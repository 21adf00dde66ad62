/* View metadata back to JSON, every field and unknown key included, so that
 * a rewrite of parsed view metadata loses nothing this library reads. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_view.h"
#include "iceberg_internal.h"

/* Adds key -> value to obj, taking value (NULL means a failed constructor). */
static bool put(json_t *obj, const char *key, json_t *value)
{
    return value && json_object_set_new(obj, key, value) == 0;
}

static bool append(json_t *arr, json_t *value)
{
    return value && json_array_append_new(arr, value) == 0;
}

static json_t *kv_object(const struct basalt_iceberg_kv *kv, uint32_t n)
{
    json_t *o = json_object();
    for (uint32_t i = 0; o && i < n; i++)
        if (!put(o, kv[i].key, json_string(kv[i].value))) {
            json_decref(o);
            return NULL;
        }
    return o;
}

static json_t *representation_json(const struct basalt_iceberg_view_representation *r)
{
    if (r->json)
        return json_loads(r->json, 0, NULL);
    json_t *o = json_object();
    if (!o || !put(o, "type", json_string(r->type)) || !put(o, "sql", json_string(r->sql)) ||
        !put(o, "dialect", json_string(r->dialect))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *version_json(const struct basalt_iceberg_view_version *ver)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    /* put takes the new containers (or frees them when it fails); they stay
     * reachable through o. */
    json_t *ns = json_array(), *reps = NULL;
    if (!put(o, "default-namespace", ns) || !put(o, "representations", reps = json_array()))
        goto fail;
    if (!put(o, "version-id", json_integer(ver->version_id)) ||
        !put(o, "timestamp-ms", json_integer(ver->timestamp_ms)) ||
        !put(o, "schema-id", json_integer(ver->schema_id)) ||
        !put(o, "summary", kv_object(ver->summary, ver->n_summary)))
        goto fail;
    if (ver->default_catalog && !put(o, "default-catalog", json_string(ver->default_catalog)))
        goto fail;
    for (uint32_t i = 0; i < ver->n_default_namespace; i++)
        if (!append(ns, json_string(ver->default_namespace[i])))
            goto fail;
    for (uint32_t i = 0; i < ver->n_representations; i++)
        if (!append(reps, representation_json(&ver->representations[i])))
            goto fail;
    return o;
fail:
    json_decref(o);
    return NULL;
}

static json_t *view_json(const struct basalt_iceberg_view_metadata *v)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_t *schemas = json_array(), *versions = NULL, *vlog = NULL;
    if (!put(o, "schemas", schemas) || !put(o, "versions", versions = json_array()) ||
        !put(o, "version-log", vlog = json_array()))
        goto fail;
    if (!put(o, "format-version", json_integer(v->format_version)) ||
        !put(o, "view-uuid", json_string(v->view_uuid)) ||
        !put(o, "location", json_string(v->location)) ||
        !put(o, "current-version-id", json_integer(v->current_version_id)) ||
        !put(o, "properties", kv_object(v->properties, v->n_properties)))
        goto fail;
    for (uint32_t i = 0; i < v->n_schemas; i++)
        if (!append(schemas, basalt_iceberg_schema_to_json(&v->schemas[i])))
            goto fail;
    for (uint32_t i = 0; i < v->n_versions; i++)
        if (!append(versions, version_json(&v->versions[i])))
            goto fail;
    for (uint32_t i = 0; i < v->n_version_log; i++) {
        json_t *e = json_object();
        if (!append(vlog, e) ||
            !put(e, "timestamp-ms", json_integer(v->version_log[i].timestamp_ms)) ||
            !put(e, "version-id", json_integer(v->version_log[i].version_id)))
            goto fail;
    }
    if (v->unknown_keys_json) {
        json_t *unknown = json_loads(v->unknown_keys_json, 0, NULL);
        bool ok = unknown && json_object_update_missing(o, unknown) == 0;
        json_decref(unknown);
        if (!ok)
            goto fail;
    }
    return o;
fail:
    json_decref(o);
    return NULL;
}

basalt_status basalt_iceberg_view_metadata_to_json(const struct basalt_iceberg_view_metadata *view,
                                                   char **out, size_t *len,
                                                   struct basalt_error *err)
{
    if (!view || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "view_metadata_to_json: NULL argument");
    *out = NULL;
    json_t *root = view_json(view);
    if (!root)
        return basalt_error_set(err, BASALT_NOMEM, "view_metadata_to_json: out of memory");
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(root);
    if (!text)
        return basalt_error_set(err, BASALT_NOMEM, "view_metadata_to_json: out of memory");
    size_t n = strlen(text);
    char *copy = basalt_malloc(n + 1);
    if (!copy) {
        free(text);
        return basalt_error_set(err, BASALT_NOMEM, "view_metadata_to_json: out of memory");
    }
    memcpy(copy, text, n + 1);
    free(text);
    *out = copy;
    if (len)
        *len = n;
    return BASALT_OK;
}
