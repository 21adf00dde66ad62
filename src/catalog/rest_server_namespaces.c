/* Namespace routes: list (with parent and pages), create (with properties),
 * load, exists, drop (only when empty), update properties. */
#include <string.h>

#include "rest_server_internal.h"

static const struct basalt_catalog_rest_errors namespace_errors = {
    "NoSuchNamespaceException", "AlreadyExistsException", false};

static json_t *namespace_item(const char *dotted)
{
    return basalt_catalog_rest_namespace_json(dotted, strlen(dotted));
}

bool basalt_catalog_rest_require_namespace(struct basalt_catalog_rest_call *call, const char *ns)
{
    struct basalt_error err;
    basalt_error_init(&err);
    bool exists = false;
    basalt_status st = basalt_catalog_namespace_exists(call->catalog, ns, &exists, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &namespace_errors);
        return false;
    }
    if (!exists) {
        basalt_catalog_rest_error(call->resp, 404, "NoSuchNamespaceException",
                                  "Namespace does not exist: %.300s", ns);
        return false;
    }
    return true;
}

void basalt_catalog_rest_op_list_namespaces(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *raw = NULL, *parent = NULL, **list = NULL;
    size_t n = 0;
    basalt_status st = basalt_catalog_rest_query(call->req, "parent", &raw, &err);
    /* An empty parent is the top level ("treated as absent for now"). */
    if (st == BASALT_OK && raw && *raw)
        st = basalt_catalog_rest_namespace_from_path(raw, &parent, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_list_namespaces(call->catalog, parent, &list, &n, &err);
    if (st == BASALT_OK)
        basalt_catalog_rest_reply_page(call, list, n, "namespaces", namespace_item);
    else if (st == BASALT_NOT_FOUND)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchNamespaceException",
                                  "Namespace does not exist: %.300s", parent ? parent : "");
    else
        basalt_catalog_rest_fail(call->resp, st, &err, &namespace_errors);
    basalt_string_list_free(list, n);
    basalt_free(raw);
    basalt_free(parent);
}

/* An object whose members are all strings (NULL counts as empty). */
static bool string_map(json_t *o)
{
    if (!o || json_is_null(o))
        return true;
    if (!json_is_object(o))
        return false;
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        if (!json_is_string(v))
            return false;
    }
    return true;
}

void basalt_catalog_rest_op_create_namespace(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *ns = NULL;
    json_t *props = json_object_get(call->body, "properties");
    basalt_status st = basalt_catalog_rest_namespace_from_json(
        json_object_get(call->body, "namespace"), &ns, &err);
    if (st == BASALT_OK && !string_map(props))
        st = basalt_error_set(&err, BASALT_INVALID_ARG, "'properties' is not an object of strings");
    bool with_props = st == BASALT_OK && json_object_size(props) > 0;
    if (with_props && !call->h->sql)
        st = basalt_error_set(&err, BASALT_UNSUPPORTED,
                              "a file-system catalog keeps no namespace properties");
    struct basalt_catalog_rest_sql *sql = NULL;
    if (with_props && st == BASALT_OK) {
        /* Existence counts tables and namespaces under it too, which the
         * insert's key alone would not see. */
        bool exists = false;
        st = basalt_catalog_namespace_exists(call->catalog, ns, &exists, &err);
        if (st == BASALT_OK && exists)
            st = basalt_error_set(&err, BASALT_CONFLICT, "Namespace already exists: %.300s", ns);
        if (st == BASALT_OK)
            st = basalt_catalog_rest_slot_sql(call, &sql, &err);
        if (st == BASALT_OK)
            st = basalt_catalog_rest_sql_create_namespace(sql, call->catalog->name, ns, props,
                                                          &err);
    } else if (st == BASALT_OK) {
        st = basalt_catalog_create_namespace(call->catalog, ns, &err);
    }
    if (st == BASALT_CONFLICT)
        basalt_catalog_rest_error(call->resp, 409, "AlreadyExistsException",
                                  "Namespace already exists: %.300s", ns);
    else if (st == BASALT_UNSUPPORTED) /* the operation declares 406 for it */
        basalt_catalog_rest_error(call->resp, 406, "UnsupportedOperationException", "%s",
                                  err.message);
    else if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &namespace_errors);
    else
        basalt_catalog_rest_reply(
            call->resp, 200,
            json_pack("{s:o,s:o}", "namespace", namespace_item(ns), "properties",
                      with_props ? json_deep_copy(props) : json_object()));
    basalt_free(ns);
}

void basalt_catalog_rest_op_load_namespace(struct basalt_catalog_rest_call *call)
{
    if (!basalt_catalog_rest_require_namespace(call, call->ns))
        return;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog_rest_sql *sql = NULL;
    basalt_status st = BASALT_OK;
    /* "If the server does not support namespace properties, it should
     * return null for this field." */
    json_t *props = call->h->sql ? json_object() : json_null();
    if (call->h->sql) {
        st = basalt_catalog_rest_slot_sql(call, &sql, &err);
        if (st == BASALT_OK)
            st = basalt_catalog_rest_sql_properties(sql, call->catalog->name, call->ns, props,
                                                    &err);
    }
    if (st != BASALT_OK) {
        json_decref(props);
        basalt_catalog_rest_fail(call->resp, st, &err, &namespace_errors);
        return;
    }
    basalt_catalog_rest_reply(call->resp, 200,
                              json_pack("{s:o,s:o}", "namespace", namespace_item(call->ns),
                                        "properties", props));
}

void basalt_catalog_rest_op_namespace_exists(struct basalt_catalog_rest_call *call)
{
    if (basalt_catalog_rest_require_namespace(call, call->ns))
        basalt_catalog_rest_no_content(call->resp);
}

void basalt_catalog_rest_op_drop_namespace(struct basalt_catalog_rest_call *call)
{
    if (!basalt_catalog_rest_require_namespace(call, call->ns))
        return;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog_rest_sql *sql = NULL;
    basalt_status st = basalt_catalog_rest_slot_sql(call, &sql, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_rest_sql_drop_namespace(sql, call->catalog->name, call->ns, &err);
    if (st == BASALT_CONFLICT)
        basalt_catalog_rest_error(call->resp, 409, "NamespaceNotEmptyException",
                                  "Namespace %.300s is not empty: %.300s", call->ns, err.message);
    else if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &namespace_errors);
    else
        basalt_catalog_rest_no_content(call->resp);
}

void basalt_catalog_rest_op_update_properties(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    const json_t *removals = json_object_get(call->body, "removals");
    json_t *updates = json_object_get(call->body, "updates");
    size_t i;
    const json_t *k;
    bool ok = string_map(updates) && (!removals || json_is_null(removals) ||
                                      json_is_array(removals));
    json_array_foreach(removals, i, k) ok = ok && json_is_string(k);
    if (!ok) {
        basalt_catalog_rest_error(call->resp, 400, "BadRequestException",
                                  "'removals' must be an array of strings and 'updates' an "
                                  "object of strings");
        return;
    }
    json_array_foreach(removals, i, k)
    {
        if (json_object_get(updates, json_string_value(k))) {
            basalt_catalog_rest_error(call->resp, 422, "UnprocessableEntityException",
                                      "property '%.200s' is both removed and updated",
                                      json_string_value(k));
            return;
        }
    }
    if (!basalt_catalog_rest_require_namespace(call, call->ns))
        return;
    json_t *updated = json_array(), *removed = json_array(), *missing = json_array();
    struct basalt_catalog_rest_sql *sql = NULL;
    basalt_status st = updated && removed && missing
                           ? basalt_catalog_rest_slot_sql(call, &sql, &err)
                           : basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_catalog_rest_sql_update_properties(sql, call->catalog->name, call->ns,
                                                       removals, updates, updated, removed,
                                                       missing, &err);
    if (st != BASALT_OK) {
        json_decref(updated);
        json_decref(removed);
        json_decref(missing);
        basalt_catalog_rest_fail(call->resp, st, &err, &namespace_errors);
        return;
    }
    basalt_catalog_rest_reply(call->resp, 200,
                              json_pack("{s:o,s:o,s:o}", "updated", updated, "removed", removed,
                                        "missing", missing));
}
