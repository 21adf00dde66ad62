/* View routes: list, create (a CreateViewRequest turned into view updates),
 * load, replace (a CommitViewRequest), exists, drop, rename and register,
 * each answered with the spec's LoadViewResult or error model, through the
 * catalog's view operations (catalog.h). */
#include <stdlib.h>
#include <string.h>

#include "rest_server_internal.h"

static const struct basalt_catalog_rest_errors view_errors = {
    "NoSuchViewException", "AlreadyExistsException", false};
static const struct basalt_catalog_rest_errors commit_errors = {
    "NoSuchViewException", "CommitFailedException", true};

static const char *const view_requirements[] = {"assert-view-uuid"};
static const char *const view_updates[] = {
    "assign-uuid", "upgrade-format-version", "add-schema", "set-location",
    "set-properties", "remove-properties", "add-view-version", "set-current-view-version",
};

static bool known(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

static json_t *identifier_item(const char *identifier)
{
    return basalt_catalog_rest_identifier_json(identifier);
}

void basalt_catalog_rest_op_list_views(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char **list = NULL;
    size_t n = 0;
    basalt_status st = basalt_catalog_list_views(call->catalog, call->ns, &list, &n, &err);
    if (st == BASALT_OK)
        basalt_catalog_rest_reply_page(call, list, n, "identifiers", identifier_item);
    else if (st == BASALT_NOT_FOUND)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchNamespaceException",
                                  "Namespace does not exist: %.300s", call->ns);
    else
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
    basalt_string_list_free(list, n);
}

/* Answers 200 with the LoadViewResult of a view as committed. */
static void reply_view(struct basalt_catalog_rest_call *call,
                       const struct basalt_iceberg_view_metadata *v, const char *location,
                       const struct basalt_catalog_rest_errors *kinds)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *text = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_view_metadata_to_json(v, &text, &len, &err);
    json_t *metadata = st == BASALT_OK ? json_loadb(text, len, 0, NULL) : NULL;
    basalt_free(text);
    json_t *result = metadata ? json_pack("{s:s,s:o,s:{}}", "metadata-location", location,
                                          "metadata", metadata, "config")
                              : NULL;
    if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, kinds);
    else if (!result)
        basalt_catalog_rest_error(call->resp, 500, "ServiceFailureException", "out of memory");
    else
        basalt_catalog_rest_reply(call->resp, 200, result);
}

/* A view answered as loaded now, or the failure. */
static void reply_loaded(struct basalt_catalog_rest_call *call, const char *identifier)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_iceberg_view_metadata *v = NULL;
    char *location = NULL;
    basalt_status st = basalt_catalog_load_view(call->catalog, identifier, &v, &location, &err);
    if (st == BASALT_OK)
        reply_view(call, v, location, &view_errors);
    else
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
    basalt_iceberg_view_metadata_free(v);
    basalt_free(location);
}

void basalt_catalog_rest_op_load_view(struct basalt_catalog_rest_call *call)
{
    reply_loaded(call, call->identifier);
}

void basalt_catalog_rest_op_view_exists(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    bool exists = false;
    basalt_status st = basalt_catalog_view_exists(call->catalog, call->identifier, &exists, &err);
    if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
    else if (exists)
        basalt_catalog_rest_no_content(call->resp);
    else
        basalt_catalog_rest_error(call->resp, 404, "NoSuchViewException",
                                  "View does not exist: %.300s", call->identifier);
}

void basalt_catalog_rest_op_drop_view(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_catalog_drop_view(call->catalog, call->identifier, &err);
    if (st == BASALT_NOT_FOUND)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchViewException",
                                  "View does not exist: %.300s", call->identifier);
    else if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
    else
        basalt_catalog_rest_no_content(call->resp);
}

/* 409 when a table or view is called `identifier`; false when answered. */
static bool name_is_free(struct basalt_catalog_rest_call *call, const char *identifier)
{
    bool table = false, view = false;
    if (!basalt_catalog_rest_find_table(call, identifier, &table, NULL))
        return false;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = table ? BASALT_OK
                             : basalt_catalog_view_exists(call->catalog, identifier, &view, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
        return false;
    }
    if (table || view) {
        basalt_catalog_rest_error(call->resp, 409, "AlreadyExistsException",
                                  "%s already exists: %.300s", table ? "Table" : "View",
                                  identifier);
        return false;
    }
    return true;
}

/* The view updates of a CreateViewRequest: the version's schema-id
 * becomes the id given to the request's schema (-1: the one added). */
static basalt_status create_updates(const json_t *body, char **out, struct basalt_error *err)
{
    *out = NULL;
    const json_t *schema = json_object_get(body, "schema");
    const json_t *version = json_object_get(body, "view-version");
    const json_t *props = json_object_get(body, "properties");
    const json_t *location = json_object_get(body, "location");
    if (!json_is_object(schema))
        return basalt_error_set(err, BASALT_INVALID_ARG, "'schema' is not an object");
    if (!json_is_object(version))
        return basalt_error_set(err, BASALT_INVALID_ARG, "'view-version' is not an object");
    if (props && !json_is_object(props))
        return basalt_error_set(err, BASALT_INVALID_ARG, "'properties' is not an object");
    if (location && !json_is_null(location) && !json_is_string(location))
        return basalt_error_set(err, BASALT_INVALID_ARG, "'location' is not a string");
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    json_t *v = json_deep_copy(version);
    if (v)
        json_object_set_new(v, "schema-id", json_integer(-1));
    json_t *updates =
        v ? json_pack("[{s:s,s:s},{s:s,s:i},{s:s,s:O},{s:s,s:o},{s:s,s:o},{s:s,s:i}]",
                      "action", "assign-uuid", "uuid", uuid, "action", "upgrade-format-version",
                      "format-version", 1, "action", "add-schema", "schema", schema, "action",
                      "set-properties", "updates",
                      props ? json_deep_copy(props) : json_object(), "action",
                      "add-view-version", "view-version", v, "action",
                      "set-current-view-version", "view-version-id", -1)
          : NULL;
    if (updates && json_is_string(location) && json_string_length(location) &&
        json_array_append_new(updates, json_pack("{s:s,s:O}", "action", "set-location",
                                                 "location", location)) != 0) {
        json_decref(updates);
        updates = NULL;
    }
    char *text = updates ? json_dumps(updates, JSON_COMPACT) : NULL;
    json_decref(updates);
    *out = text ? basalt_strdup(text) : NULL;
    free(text);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

void basalt_catalog_rest_op_create_view(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    const char *name = json_string_value(json_object_get(call->body, "name"));
    basalt_status st = basalt_catalog_rest_check_name(name, &err);
    char *updates = NULL;
    if (st == BASALT_OK)
        st = create_updates(call->body, &updates, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
        return;
    }
    char *identifier = NULL;
    if (!basalt_catalog_rest_require_namespace(call, call->ns))
        goto done;
    if (!(identifier = basalt_catalog_rest_join(call->ns, name))) {
        basalt_catalog_rest_error(call->resp, 500, "ServiceFailureException", "out of memory");
        goto done;
    }
    if (!name_is_free(call, identifier))
        goto done;
    struct basalt_iceberg_view_metadata *v = NULL;
    char *location = NULL;
    st = basalt_catalog_create_view(call->catalog, identifier, updates, &v, &location, &err);
    if (st == BASALT_OK)
        reply_view(call, v, location, &view_errors);
    else if (st == BASALT_UNSUPPORTED)
        basalt_catalog_rest_error(call->resp, 400, "BadRequestException", "%s", err.message);
    else
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
    basalt_iceberg_view_metadata_free(v);
    basalt_free(location);
done:
    basalt_free(identifier);
    basalt_free(updates);
}

/* A CommitViewRequest's lists as text, checked first so that an unknown
 * requirement or update is 400 whatever else fails. */
static basalt_status check_commit(const json_t *body, char **reqs, char **ups,
                                  struct basalt_error *err)
{
    *reqs = *ups = NULL;
    const json_t *r = json_object_get(body, "requirements");
    const json_t *u = json_object_get(body, "updates");
    if (!json_is_array(u) || (r && !json_is_array(r)))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "a view commit needs an 'updates' array (and 'requirements', "
                                "when given, an array)");
    size_t i;
    const json_t *e;
    json_array_foreach(r, i, e)
    {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (!known(type, view_requirements, sizeof view_requirements / sizeof *view_requirements))
            return basalt_error_set(err, BASALT_INVALID_ARG, "unknown view requirement '%.100s'",
                                    type ? type : "(no type)");
    }
    json_array_foreach(u, i, e)
    {
        const char *action = json_string_value(json_object_get(e, "action"));
        if (!known(action, view_updates, sizeof view_updates / sizeof *view_updates))
            return basalt_error_set(err, BASALT_INVALID_ARG, "unknown view update '%.100s'",
                                    action ? action : "(no action)");
    }
    char *rt = r ? json_dumps(r, JSON_COMPACT) : NULL, *ut = json_dumps(u, JSON_COMPACT);
    *reqs = rt ? basalt_strdup(rt) : NULL;
    *ups = ut ? basalt_strdup(ut) : NULL;
    bool nomem = (r && !*reqs) || !*ups;
    free(rt);
    free(ut);
    if (nomem) {
        basalt_free(*reqs);
        basalt_free(*ups);
        *reqs = *ups = NULL;
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

void basalt_catalog_rest_op_replace_view(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *reqs = NULL, *ups = NULL, *named = NULL, *location = NULL;
    basalt_status st = check_commit(call->body, &reqs, &ups, &err);
    /* An identifier in the body must be the one in the path. */
    const json_t *ident = json_object_get(call->body, "identifier");
    if (st == BASALT_OK && ident) {
        st = basalt_catalog_rest_identifier_from_json(ident, &named, &err);
        if (st == BASALT_OK && strcmp(named, call->identifier) != 0)
            st = basalt_error_set(&err, BASALT_INVALID_ARG,
                                  "the body names view %.200s, the path %.200s", named,
                                  call->identifier);
    }
    struct basalt_iceberg_view_metadata *v = NULL;
    if (st == BASALT_OK)
        st = basalt_catalog_commit_view(call->catalog, call->identifier, reqs, ups, &v,
                                        &location, &err);
    if (st == BASALT_OK) {
        reply_view(call, v, location, &commit_errors);
    } else if (st == BASALT_INVALID_ARG || st == BASALT_CORRUPT || st == BASALT_UNSUPPORTED) {
        /* What the client sent does not apply: the spec has 400 for it. */
        basalt_catalog_rest_error(call->resp, 400, "BadRequestException", "%s", err.message);
    } else {
        basalt_catalog_rest_fail(call->resp, st, &err, &commit_errors);
    }
    basalt_iceberg_view_metadata_free(v);
    basalt_free(location);
    basalt_free(named);
    basalt_free(reqs);
    basalt_free(ups);
}

void basalt_catalog_rest_op_rename_view(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *from = NULL, *to = NULL, *to_ns = NULL, *to_name = NULL;
    basalt_status st = basalt_catalog_rest_identifier_from_json(
        json_object_get(call->body, "source"), &from, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_rest_identifier_from_json(json_object_get(call->body, "destination"),
                                                      &to, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_identifier_split(to, &to_ns, &to_name, &err);
    bool exists = false;
    if (st == BASALT_OK)
        st = basalt_catalog_view_exists(call->catalog, from, &exists, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
    } else if (!exists) {
        basalt_catalog_rest_error(call->resp, 404, "NoSuchViewException",
                                  "View does not exist: %.300s", from);
    } else if (basalt_catalog_rest_require_namespace(call, to_ns) && name_is_free(call, to)) {
        st = basalt_catalog_rename_view(call->catalog, from, to, &err);
        if (st != BASALT_OK)
            basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
        else
            basalt_catalog_rest_no_content(call->resp);
    }
    basalt_free(from);
    basalt_free(to);
    basalt_free(to_ns);
    basalt_free(to_name);
}

void basalt_catalog_rest_op_register_view(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    const char *name = json_string_value(json_object_get(call->body, "name"));
    const char *location = json_string_value(json_object_get(call->body, "metadata-location"));
    basalt_status st = basalt_catalog_rest_check_name(name, &err);
    if (st == BASALT_OK && (!location || !*location))
        st = basalt_error_set(&err, BASALT_INVALID_ARG, "no 'metadata-location'");
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
        return;
    }
    if (!basalt_catalog_rest_require_namespace(call, call->ns))
        return;
    char *identifier = basalt_catalog_rest_join(call->ns, name);
    if (!identifier) {
        basalt_catalog_rest_error(call->resp, 500, "ServiceFailureException", "out of memory");
        return;
    }
    if (name_is_free(call, identifier)) {
        st = basalt_catalog_register_view(call->catalog, identifier, location, &err);
        if (st == BASALT_OK)
            reply_loaded(call, identifier);
        else if (st == BASALT_NOT_FOUND || st == BASALT_UNSUPPORTED)
            /* The view is new: what was not found (or not read) is its metadata. */
            basalt_catalog_rest_error(call->resp, 400, "BadRequestException", "%s", err.message);
        else
            basalt_catalog_rest_fail(call->resp, st, &err, &view_errors);
    }
    basalt_free(identifier);
}
