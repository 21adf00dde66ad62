/* POST .../namespaces/{namespace}/tables: a CreateTableRequest turned into
 * the create updates (the client's schema, spec and order as sent), then
 * the table created in the catalog, or with stage-create only the metadata
 * it would have. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rest_server_internal.h"

static const struct basalt_catalog_rest_errors table_errors = {
    "NoSuchTableException", "AlreadyExistsException", false};

/* The format version a create asks for: the "format-version" property,
 * taken out of the properties as the Java builder takes it (default 2). */
static basalt_status take_format_version(json_t *props, int32_t *out, struct basalt_error *err)
{
    *out = 2;
    const char *v = json_string_value(json_object_get(props, "format-version"));
    if (!v)
        return BASALT_OK;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 1 || n > 3)
        return basalt_error_set(err, BASALT_INVALID_ARG, "format-version '%.20s' is not 1, 2 or 3",
                                v);
    *out = (int32_t)n;
    json_object_del(props, "format-version");
    return BASALT_OK;
}

/* JSON text of a member of the body that must be an object when present
 * (NULL when absent). */
static basalt_status member_text(const json_t *body, const char *key, char **out,
                                 struct basalt_error *err)
{
    *out = NULL;
    const json_t *v = json_object_get(body, key);
    if (!v || json_is_null(v))
        return BASALT_OK;
    if (!json_is_object(v))
        return basalt_error_set(err, BASALT_INVALID_ARG, "'%s' is not an object", key);
    char *text = json_dumps(v, JSON_COMPACT);
    *out = text ? basalt_strdup(text) : NULL;
    free(text);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

/* The create updates of a CreateTableRequest for `identifier`. */
static basalt_status create_updates(struct basalt_catalog_rest_call *call, const char *identifier,
                                    char **out, struct basalt_error *err)
{
    const json_t *body = call->body;
    const char *location = json_string_value(json_object_get(body, "location"));
    char *schema = NULL, *spec = NULL, *order = NULL, *props = NULL, *default_loc = NULL;
    json_t *props_obj = json_deep_copy(json_object_get(body, "properties"));
    int32_t version = 2;
    basalt_status st = json_object_get(body, "schema")
                           ? member_text(body, "schema", &schema, err)
                           : basalt_error_set(err, BASALT_INVALID_ARG, "no 'schema'");
    if (st == BASALT_OK)
        st = member_text(body, "partition-spec", &spec, err);
    if (st == BASALT_OK)
        st = member_text(body, "write-order", &order, err);
    if (st == BASALT_OK && props_obj && !json_is_object(props_obj))
        st = basalt_error_set(err, BASALT_INVALID_ARG, "'properties' is not an object");
    if (st == BASALT_OK)
        st = take_format_version(props_obj, &version, err);
    if (st == BASALT_OK && props_obj) {
        char *text = json_dumps(props_obj, JSON_COMPACT);
        props = text ? basalt_strdup(text) : NULL;
        free(text);
        if (!props)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK && (!location || !*location)) {
        st = basalt_catalog_default_location(call->catalog, identifier, &default_loc, err);
        location = default_loc;
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates_json(schema, spec, order, version, location, props,
                                                out, err);
    json_decref(props_obj);
    basalt_free(schema);
    basalt_free(spec);
    basalt_free(order);
    basalt_free(props);
    basalt_free(default_loc);
    return st;
}

/* stage-create: the metadata the create would write, written nowhere. */
static void reply_staged(struct basalt_catalog_rest_call *call, const char *updates)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct basalt_iceberg_update_context ctx = {
        .now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000};
    char *text = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_apply_updates(NULL, updates, &ctx, &text, &len, &err);
    json_t *metadata = st == BASALT_OK ? json_loadb(text, len, 0, NULL) : NULL;
    basalt_free(text);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return;
    }
    /* No metadata-location: nothing is committed until the client sends
     * the create's updates with assert-create to the table's route. */
    basalt_catalog_rest_reply(call->resp, 200,
                              metadata ? json_pack("{s:o,s:{}}", "metadata", metadata, "config")
                                       : NULL);
}

void basalt_catalog_rest_op_create_table(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    const char *name = json_string_value(json_object_get(call->body, "name"));
    const json_t *stage = json_object_get(call->body, "stage-create");
    basalt_status st = basalt_catalog_rest_check_name(name, &err);
    if (st == BASALT_OK && stage && !json_is_boolean(stage))
        st = basalt_error_set(&err, BASALT_INVALID_ARG, "'stage-create' is not a boolean");
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return;
    }
    if (!basalt_catalog_rest_require_namespace(call, call->ns))
        return;
    char *identifier = basalt_catalog_rest_join(call->ns, name), *updates = NULL;
    bool exists = false;
    if (!identifier) {
        basalt_catalog_rest_error(call->resp, 500, "ServiceFailureException", "out of memory");
        return;
    }
    if (!basalt_catalog_rest_find_table(call, identifier, &exists, NULL))
        goto done;
    if (exists) {
        basalt_catalog_rest_error(call->resp, 409, "AlreadyExistsException",
                                  "Table already exists: %.300s", identifier);
        goto done;
    }
    st = create_updates(call, identifier, &updates, &err);
    if (st == BASALT_OK && json_is_true(stage)) {
        reply_staged(call, updates);
    } else if (st == BASALT_OK) {
        struct basalt_iceberg_table *t = NULL;
        st = basalt_catalog_create_table(call->catalog, identifier, updates, &t, &err);
        if (st == BASALT_OK)
            basalt_catalog_rest_reply_table(call, t, false);
        basalt_iceberg_table_free(t);
    }
    if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
done:
    basalt_free(identifier);
    basalt_free(updates);
}

