/* View metadata JSON (view spec, "View Metadata") into struct
 * basalt_iceberg_view_metadata, with the checks of the Java reader. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "basalt/iceberg_view.h"
#include "iceberg_internal.h"

#define CHECK_ST(expr)                                                                      \
    do {                                                                                    \
        basalt_status st_ = (expr);                                                         \
        if (st_ != BASALT_OK)                                                               \
            return st_;                                                                     \
    } while (0)

/* The object behind a struct basalt_iceberg_view_metadata: every pointer in
 * `pub` points into `arena`. */
struct view_impl {
    struct basalt_iceberg_view_metadata pub;
    struct basalt_arena arena;
};

static const char *const known_keys[] = {
    "format-version", "view-uuid", "location", "schemas", "current-version-id",
    "versions",       "version-log", "properties",
};

static bool is_known_key(const char *key)
{
    for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
        if (strcmp(key, known_keys[i]) == 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------- schemas */

static basalt_status parse_schemas(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                   struct basalt_iceberg_view_metadata *v)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(root, "schemas", true, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*v->schemas), (void **)&v->schemas,
                                          &v->n_schemas));
    for (uint32_t i = 0; i < v->n_schemas; i++) {
        basalt_status st = basalt_iceberg_schema_parse(ctx, json_array_get(arr, i), &v->schemas[i]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "schemas[%u]", i);
        for (uint32_t j = 0; j < i; j++)
            if (v->schemas[j].schema_id == v->schemas[i].schema_id)
                return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                        "schemas[%u]: schema id %d is used twice", i,
                                        v->schemas[i].schema_id);
    }
    return BASALT_OK;
}

/* --------------------------------------------------------------- versions */

static basalt_status parse_representation(struct basalt_iceberg_parse_ctx *ctx, const json_t *o,
                                          struct basalt_iceberg_view_representation *r)
{
    CHECK_ST(basalt_iceberg_json_need_object(ctx, o));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "type", true, &r->type));
    /* The spec compares the type case-insensitively ("SQL" is "sql"). */
    if (strcasecmp(r->type, "sql") != 0)
        return basalt_iceberg_json_text(ctx, o, &r->json);
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "sql", true, &r->sql));
    return basalt_iceberg_json_str(ctx, o, "dialect", true, &r->dialect);
}

static basalt_status parse_namespace(struct basalt_iceberg_parse_ctx *ctx, const json_t *o,
                                     struct basalt_iceberg_view_version *ver)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(o, "default-namespace", true, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*ver->default_namespace),
                      (void **)&ver->default_namespace, &ver->n_default_namespace));
    for (uint32_t i = 0; i < ver->n_default_namespace; i++) {
        basalt_status st = basalt_iceberg_json_str_value(ctx, json_array_get(arr, i),
                                                         &ver->default_namespace[i]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "default-namespace[%u]", i);
    }
    return BASALT_OK;
}

static basalt_status parse_version(struct basalt_iceberg_parse_ctx *ctx, const json_t *o,
                                   struct basalt_iceberg_view_version *ver)
{
    const json_t *reps;
    CHECK_ST(basalt_iceberg_json_need_object(ctx, o));
    CHECK_ST(basalt_iceberg_json_i32(o, "version-id", true, NULL, &ver->version_id, ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(o, "timestamp-ms", true, NULL, &ver->timestamp_ms, ctx->err));
    CHECK_ST(basalt_iceberg_json_i32(o, "schema-id", true, NULL, &ver->schema_id, ctx->err));
    CHECK_ST(basalt_iceberg_json_kv_field(ctx, o, "summary", true, &ver->summary, &ver->n_summary));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "default-catalog", false, &ver->default_catalog));
    CHECK_ST(parse_namespace(ctx, o, ver));
    CHECK_ST(basalt_iceberg_json_array(o, "representations", true, &reps, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, reps, sizeof(*ver->representations),
                                          (void **)&ver->representations,
                      &ver->n_representations));
    for (uint32_t i = 0; i < ver->n_representations; i++) {
        basalt_status st =
            parse_representation(ctx, json_array_get(reps, i), &ver->representations[i]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "representations[%u]", i);
    }
    return BASALT_OK;
}

static basalt_status parse_versions(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                    struct basalt_iceberg_view_metadata *v)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(root, "versions", true, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*v->versions), (void **)&v->versions,
                                          &v->n_versions));
    for (uint32_t i = 0; i < v->n_versions; i++) {
        basalt_status st = parse_version(ctx, json_array_get(arr, i), &v->versions[i]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "versions[%u]", i);
        for (uint32_t j = 0; j < i; j++)
            if (v->versions[j].version_id == v->versions[i].version_id)
                return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                        "versions[%u]: version id %d is used twice", i,
                                        v->versions[i].version_id);
    }
    CHECK_ST(basalt_iceberg_json_array(root, "version-log", true, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*v->version_log),
                                          (void **)&v->version_log,
                      &v->n_version_log));
    for (uint32_t i = 0; i < v->n_version_log; i++) {
        const json_t *o = json_array_get(arr, i);
        basalt_status st = basalt_iceberg_json_need_object(ctx, o);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(o, "timestamp-ms", true, NULL,
                                         &v->version_log[i].timestamp_ms, ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i32(o, "version-id", true, NULL,
                                         &v->version_log[i].version_id, ctx->err);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "version-log[%u]", i);
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ top level */


static basalt_status parse_root(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                struct basalt_iceberg_view_metadata *v)
{
    if (!json_is_object(root))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "view metadata is not a JSON object");
    int64_t version;
    CHECK_ST(basalt_iceberg_json_i64(root, "format-version", true, NULL, &version, ctx->err));
    if (version != BASALT_ICEBERG_VIEW_MAX_FORMAT_VERSION)
        return basalt_error_set(ctx->err, BASALT_UNSUPPORTED,
                                "view format-version %lld is not supported (only %d)",
                                (long long)version, BASALT_ICEBERG_VIEW_MAX_FORMAT_VERSION);
    if (json_object_get(root, "table-uuid") && !json_object_get(root, "view-uuid"))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "table metadata, not view metadata");
    v->format_version = (int32_t)version;
    ctx->format_version = v->format_version;

    CHECK_ST(basalt_iceberg_json_str(ctx, root, "view-uuid", true, &v->view_uuid));
    CHECK_ST(basalt_iceberg_json_str(ctx, root, "location", true, &v->location));
    CHECK_ST(basalt_iceberg_json_kv_field(ctx, root, "properties", false, &v->properties,
                                          &v->n_properties));
    CHECK_ST(basalt_iceberg_json_i32(root, "current-version-id", true, NULL,
                                     &v->current_version_id, ctx->err));
    CHECK_ST(parse_schemas(ctx, root, v));
    CHECK_ST(parse_versions(ctx, root, v));
    const struct basalt_iceberg_view_version *cur =
        basalt_iceberg_view_metadata_version(v, v->current_version_id);
    if (!cur)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "current-version-id %d: no such version in 'versions'",
                                v->current_version_id);
    if (!basalt_iceberg_view_metadata_schema(v, cur->schema_id))
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "current version %d: schema-id %d: no such schema in 'schemas'",
                                cur->version_id, cur->schema_id);
    return basalt_iceberg_json_unknown_keys(ctx, root, is_known_key, &v->unknown_keys_json);
}

basalt_status basalt_iceberg_view_metadata_parse(const void *data, size_t len, const char *name,
                                                 struct basalt_iceberg_view_metadata **out,
                                                 struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if ((!data && len) || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "view_metadata_parse: NULL argument");
    if (!name)
        name = "view metadata";
    char *inflated = NULL;
    size_t inflated_len = 0;
    basalt_status st = basalt_iceberg_metadata_inflate(data, len, BASALT_ICEBERG_METADATA_MAX_JSON,
                                                       &inflated, &inflated_len, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", name);
    const char *text = inflated ? inflated : data;
    size_t text_len = inflated ? inflated_len : len;

    json_error_t jerr;
    json_t *root = json_loadb(text ? text : "", text_len, 0, &jerr);
    basalt_free(inflated);
    if (!root)
        return basalt_error_set(err, BASALT_CORRUPT, "%s: invalid JSON at line %d column %d: %s",
                                name, jerr.line, jerr.column, jerr.text);
    struct view_impl *impl = basalt_calloc(1, sizeof(*impl));
    if (!impl) {
        json_decref(root);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", name);
    }
    basalt_arena_init(&impl->arena, 8192);
    struct basalt_iceberg_parse_ctx ctx = {&impl->arena, err, 0};
    st = parse_root(&ctx, root, &impl->pub);
    json_decref(root);
    if (st != BASALT_OK) {
        basalt_iceberg_view_metadata_free(&impl->pub);
        return basalt_error_context(err, st, "%s", name);
    }
    *out = &impl->pub;
    return BASALT_OK;
}

basalt_status basalt_iceberg_view_metadata_read_file(const char *path,
                                                     struct basalt_iceberg_view_metadata **out,
                                                     struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "view_metadata_read_file: NULL argument");
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_iceberg_read_local_file(path, &buf, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_view_metadata_parse(buf.data, buf.size, path, out, err);
    basalt_buffer_reset(&buf);
    return st;
}

void basalt_iceberg_view_metadata_free(struct basalt_iceberg_view_metadata *view)
{
    if (!view)
        return;
    struct view_impl *impl = (struct view_impl *)view;
    basalt_arena_reset(&impl->arena);
    basalt_free(impl);
}

/* ---------------------------------------------------------------- lookups */

const struct basalt_iceberg_view_version *basalt_iceberg_view_metadata_version(
    const struct basalt_iceberg_view_metadata *view, int32_t version_id)
{
    for (uint32_t i = 0; view && i < view->n_versions; i++)
        if (view->versions[i].version_id == version_id)
            return &view->versions[i];
    return NULL;
}

const struct basalt_iceberg_view_version *basalt_iceberg_view_metadata_current_version(
    const struct basalt_iceberg_view_metadata *view)
{
    return view ? basalt_iceberg_view_metadata_version(view, view->current_version_id) : NULL;
}

const struct basalt_iceberg_schema *basalt_iceberg_view_metadata_schema(
    const struct basalt_iceberg_view_metadata *view, int32_t schema_id)
{
    for (uint32_t i = 0; view && i < view->n_schemas; i++)
        if (view->schemas[i].schema_id == schema_id)
            return &view->schemas[i];
    return NULL;
}

const struct basalt_iceberg_schema *basalt_iceberg_view_metadata_current_schema(
    const struct basalt_iceberg_view_metadata *view)
{
    const struct basalt_iceberg_view_version *cur =
        basalt_iceberg_view_metadata_current_version(view);
    return cur ? basalt_iceberg_view_metadata_schema(view, cur->schema_id) : NULL;
}
