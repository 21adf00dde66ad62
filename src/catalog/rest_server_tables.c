/* Table routes other than commits: list, create (also staged), load (with
 * ETags), exists, drop, register, rename, and the metrics reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/hash.h"
#include "rest_server_internal.h"

static const struct basalt_catalog_rest_errors table_errors = {
    "NoSuchTableException", "AlreadyExistsException", false};

static json_t *identifier_item(const char *identifier)
{
    return basalt_catalog_rest_identifier_json(identifier);
}

/* 404 NoSuchNamespaceException unless `ns` exists; false when answered. */
static bool require_namespace(struct basalt_catalog_rest_call *call, const char *ns)
{
    struct basalt_error err;
    basalt_error_init(&err);
    bool exists = false;
    basalt_status st = basalt_catalog_namespace_exists(call->catalog, ns, &exists, &err);
    if (st == BASALT_OK && !exists)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchNamespaceException",
                                  "Namespace does not exist: %.300s", ns);
    else if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    return st == BASALT_OK && exists;
}

/* Whether table `identifier` exists (*location, may be NULL, receives its
 * metadata location); answers the call on failure. */
static bool find_table(struct basalt_catalog_rest_call *call, const char *identifier,
                       bool *exists, char **location)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *loc = NULL;
    basalt_status st = basalt_catalog_table_location(call->catalog, identifier, &loc, &err);
    *exists = st == BASALT_OK;
    if (location)
        *location = loc;
    else
        basalt_free(loc);
    if (st != BASALT_OK && st != BASALT_NOT_FOUND) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return false;
    }
    return true;
}

void basalt_catalog_rest_op_list_tables(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char **list = NULL;
    size_t n = 0;
    basalt_status st = basalt_catalog_list_tables(call->catalog, call->ns, &list, &n, &err);
    if (st == BASALT_OK)
        basalt_catalog_rest_reply_page(call, list, n, "identifiers", identifier_item);
    else if (st == BASALT_NOT_FOUND)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchNamespaceException",
                                  "Namespace does not exist: %.300s", call->ns);
    else
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    basalt_string_list_free(list, n);
}

void basalt_catalog_rest_etag(const char *metadata_location, bool refs_only, char out[72])
{
    out[0] = '\0';
    size_t n = strlen(metadata_location);
    char *text = basalt_malloc(n + 6);
    if (!text)
        return;
    memcpy(text, metadata_location, n);
    strcpy(text + n, refs_only ? "|refs" : "|all");
    uint8_t digest[BASALT_HASH_SHA256_SIZE];
    if (basalt_hash_sha256(text, strlen(text), digest) == BASALT_OK) {
        char hex[2 * BASALT_HASH_SHA256_SIZE + 1];
        basalt_hash_hex(digest, 16, hex);
        snprintf(out, 72, "\"%s\"", hex);
    }
    basalt_free(text);
}

/* Keeps only the snapshots that a ref names ("snapshots=refs"). */
static void keep_ref_snapshots(json_t *metadata)
{
    json_t *refs = json_object_get(metadata, "refs");
    json_t *snapshots = json_object_get(metadata, "snapshots");
    for (size_t i = json_array_size(snapshots); i-- > 0;) {
        json_t *id = json_object_get(json_array_get(snapshots, i), "snapshot-id");
        bool named = false;
        const char *key;
        json_t *ref;
        json_object_foreach(refs, key, ref)
        {
            if (json_equal(json_object_get(ref, "snapshot-id"), id))
                named = true;
        }
        if (!named)
            json_array_remove(snapshots, i);
    }
}

basalt_status basalt_catalog_rest_table_result(const struct basalt_iceberg_table *t,
                                               bool refs_only, json_t **out,
                                               struct basalt_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_metadata_to_json(t->metadata, &text, &len, err);
    if (st != BASALT_OK)
        return st;
    json_t *metadata = json_loadb(text, len, 0, NULL);
    basalt_free(text);
    if (!metadata)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (refs_only)
        keep_ref_snapshots(metadata);
    *out = json_pack("{s:s,s:o,s:{}}", "metadata-location", t->metadata_location, "metadata",
                     metadata, "config");
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

/* Answers 200 with the LoadTableResult of `t`, and its ETag. */
static void reply_table(struct basalt_catalog_rest_call *call, const struct basalt_iceberg_table *t,
                        bool refs_only)
{
    struct basalt_error err;
    basalt_error_init(&err);
    json_t *result = NULL;
    basalt_status st = basalt_catalog_rest_table_result(t, refs_only, &result, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return;
    }
    char etag[72];
    basalt_catalog_rest_etag(t->metadata_location, refs_only, etag);
    basalt_catalog_rest_reply(call->resp, 200, result);
    if (etag[0] && call->resp->status == 200)
        basalt_catalog_rest_add_header(call->resp, "ETag", etag);
}

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
    if (!require_namespace(call, call->ns))
        return;
    char *identifier = basalt_catalog_rest_join(call->ns, name), *updates = NULL;
    bool exists = false;
    if (!identifier) {
        basalt_catalog_rest_error(call->resp, 500, "ServiceFailureException", "out of memory");
        return;
    }
    if (!find_table(call, identifier, &exists, NULL))
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
            reply_table(call, t, false);
        basalt_iceberg_table_free(t);
    }
    if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
done:
    basalt_free(identifier);
    basalt_free(updates);
}

void basalt_catalog_rest_op_load_table(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *mode = NULL, *location = NULL;
    basalt_status st = basalt_catalog_rest_query(call->req, "snapshots", &mode, &err);
    bool refs_only = mode && strcmp(mode, "refs") == 0;
    if (st == BASALT_OK && mode && !refs_only && strcmp(mode, "all") != 0)
        st = basalt_error_set(&err, BASALT_INVALID_ARG, "snapshots='%.40s' is not all or refs",
                              mode);
    basalt_free(mode);
    if (st == BASALT_OK)
        st = basalt_catalog_table_location(call->catalog, call->identifier, &location, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return;
    }
    /* The ETag names the metadata file, so a client's copy is current
     * exactly when the stored location still is: no need to read it. */
    char etag[72];
    basalt_catalog_rest_etag(location, refs_only, etag);
    const char *match = basalt_catalog_rest_header(call->req, "If-None-Match");
    struct basalt_iceberg_table *t = NULL;
    if (etag[0] && match && (strstr(match, etag) || strcmp(match, "*") == 0)) {
        call->resp->status = 304;
        basalt_catalog_rest_add_header(call->resp, "ETag", etag);
    } else if ((st = basalt_catalog_load_location(call->catalog, call->identifier, location, &t,
                                                  &err)) == BASALT_OK) {
        reply_table(call, t, refs_only);
    } else {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    }
    basalt_iceberg_table_free(t);
    basalt_free(location);
}

void basalt_catalog_rest_op_table_exists(struct basalt_catalog_rest_call *call)
{
    bool exists = false;
    if (!find_table(call, call->identifier, &exists, NULL))
        return;
    if (exists)
        basalt_catalog_rest_no_content(call->resp);
    else
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", call->identifier);
}

void basalt_catalog_rest_op_drop_table(struct basalt_catalog_rest_call *call)
{
    /* purgeRequested is not honoured: the catalog drops the row and keeps
     * the files, which the spec allows ("whether the user requested"). */
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_catalog_drop_table(call->catalog, call->identifier, &err);
    if (st == BASALT_NOT_FOUND)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", call->identifier);
    else if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    else
        basalt_catalog_rest_no_content(call->resp);
}

/* register with overwrite over an existing table: the new location must
 * load, then the pointer moves from the one just read (CONFLICT if a commit
 * moved it meanwhile). */
static basalt_status overwrite(struct basalt_catalog_rest_call *call, const char *identifier,
                               const char *name, const char *old, const char *location,
                               struct basalt_error *err)
{
    struct basalt_iceberg_table *t = NULL;
    basalt_status st = basalt_catalog_load_location(call->catalog, identifier, location, &t, err);
    basalt_iceberg_table_free(t);
    if (st == BASALT_OK)
        st = basalt_catalog_sql_swap(call->catalog->sql, call->catalog->name, call->ns, name, old,
                                     location, err);
    return st;
}

void basalt_catalog_rest_op_register_table(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    const char *name = json_string_value(json_object_get(call->body, "name"));
    const char *location = json_string_value(json_object_get(call->body, "metadata-location"));
    const json_t *replace = json_object_get(call->body, "overwrite");
    basalt_status st = basalt_catalog_rest_check_name(name, &err);
    if (st == BASALT_OK && (!location || !*location))
        st = basalt_error_set(&err, BASALT_INVALID_ARG, "no 'metadata-location'");
    if (st == BASALT_OK && replace && !json_is_boolean(replace))
        st = basalt_error_set(&err, BASALT_INVALID_ARG, "'overwrite' is not a boolean");
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return;
    }
    if (!require_namespace(call, call->ns))
        return;
    char *identifier = basalt_catalog_rest_join(call->ns, name), *old = NULL;
    bool exists = false;
    if (!identifier || !find_table(call, identifier, &exists, &old)) {
        if (!identifier)
            basalt_catalog_rest_error(call->resp, 500, "ServiceFailureException", "out of memory");
        basalt_free(identifier);
        return;
    }
    if (exists && !json_is_true(replace))
        st = basalt_error_set(&err, BASALT_CONFLICT, "Table already exists: %.300s", identifier);
    else if (exists)
        st = overwrite(call, identifier, name, old, location, &err);
    else
        st = basalt_catalog_register_table(call->catalog, identifier, location, &err);
    struct basalt_iceberg_table *t = NULL;
    if (st == BASALT_OK)
        st = basalt_catalog_load_table(call->catalog, identifier, &t, &err);
    if (st == BASALT_OK)
        reply_table(call, t, false);
    else if (st == BASALT_NOT_FOUND)
        /* The table is new: what was not found is its metadata. */
        basalt_catalog_rest_error(call->resp, 400, "BadRequestException", "%s", err.message);
    else
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    basalt_iceberg_table_free(t);
    basalt_free(identifier);
    basalt_free(old);
}

void basalt_catalog_rest_op_rename_table(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *from = NULL, *to = NULL, *from_ns = NULL, *from_name = NULL, *to_ns = NULL,
         *to_name = NULL;
    basalt_status st = basalt_catalog_rest_identifier_from_json(
        json_object_get(call->body, "source"), &from, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_rest_identifier_from_json(json_object_get(call->body, "destination"),
                                                      &to, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_identifier_split(from, &from_ns, &from_name, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_identifier_split(to, &to_ns, &to_name, &err);
    bool exists = false;
    struct basalt_catalog_rest_sql *sql = NULL;
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    } else if (!find_table(call, from, &exists, NULL)) {
        /* answered */
    } else if (!exists) {
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", from);
    } else if (require_namespace(call, to_ns)) {
        st = basalt_catalog_rest_slot_sql(call, &sql, &err);
        if (st == BASALT_OK)
            st = basalt_catalog_rest_sql_rename(sql, call->catalog->name, from_ns, from_name,
                                                to_ns, to_name, &err);
        if (st == BASALT_CONFLICT)
            basalt_catalog_rest_error(call->resp, 409, "AlreadyExistsException",
                                      "Table already exists: %.300s", to);
        else if (st != BASALT_OK)
            basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        else
            basalt_catalog_rest_no_content(call->resp);
    }
    basalt_free(from);
    basalt_free(to);
    basalt_free(from_ns);
    basalt_free(from_name);
    basalt_free(to_ns);
    basalt_free(to_name);
}

void basalt_catalog_rest_op_report_metrics(struct basalt_catalog_rest_call *call)
{
    /* Reports are accepted and dropped: nothing here keeps metrics. */
    if (!json_is_string(json_object_get(call->body, "report-type"))) {
        basalt_catalog_rest_error(call->resp, 400, "BadRequestException",
                                  "a metrics report needs a 'report-type'");
        return;
    }
    bool exists = false;
    if (!find_table(call, call->identifier, &exists, NULL))
        return;
    if (!exists)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", call->identifier);
    else
        basalt_catalog_rest_no_content(call->resp);
}
