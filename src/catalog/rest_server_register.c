/* Tables that enter the catalog or move in it: register (also overwriting
 * an existing table's pointer) and rename. */
#include <string.h>

#include "rest_server_internal.h"

static const struct basalt_catalog_rest_errors table_errors = {
    "NoSuchTableException", "AlreadyExistsException", false};

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
    if (!basalt_catalog_rest_require_namespace(call, call->ns))
        return;
    char *identifier = basalt_catalog_rest_join(call->ns, name), *old = NULL;
    bool exists = false;
    if (!identifier || !basalt_catalog_rest_find_table(call, identifier, &exists, &old)) {
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
        basalt_catalog_rest_reply_table(call, t, false);
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
    } else if (!basalt_catalog_rest_find_table(call, from, &exists, NULL)) {
        /* answered */
    } else if (!exists) {
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", from);
    } else if (basalt_catalog_rest_require_namespace(call, to_ns)) {
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

