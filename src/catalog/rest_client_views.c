/* REST catalog views beyond listing and loading: create (CreateViewRequest),
 * replace (CommitViewRequest), register, drop, rename, exists. */
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "rest_client_internal.h"

/* One request to `path` (below /v1/[prefix]/) after checking that the
 * server offers `endpoint`; *result (may be NULL) the parsed answer. */
static basalt_status view_call(struct basalt_rest_client *r, const char *endpoint, const char *method,
                          const char *path, const json_t *body, enum basalt_rest_client_op op,
                          json_t **result, long *status, struct basalt_error *err)
{
    char *url = NULL, *text = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r, endpoint, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_url(r, path, &url, err);
    if (st == BASALT_OK && body && !(text = json_dumps(body, JSON_COMPACT)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = method, .url = url, .body = text,
                                               .body_len = text ? strlen(text) : 0, .op = op};
        st = basalt_rest_client_call(r, &call, result, status, err);
    }
    free(text);
    basalt_free(url);
    return st;
}

basalt_status basalt_rest_client_view_from_result(const json_t *result, const char *identifier,
                                                  struct basalt_iceberg_view_metadata **out,
                                                  char **location, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (location)
        *location = NULL;
    const json_t *metadata = json_object_get(result, "metadata");
    const char *loc = json_string_value(json_object_get(result, "metadata-location"));
    if (!json_is_object(metadata))
        return basalt_error_set(err, BASALT_CORRUPT, "the answer is not a LoadViewResult");
    basalt_status st = BASALT_OK;
    if (out) {
        char *text = json_dumps(metadata, JSON_COMPACT);
        st = text ? basalt_iceberg_view_metadata_parse(text, strlen(text), identifier, out, err)
                  : basalt_error_set(err, BASALT_NOMEM, "out of memory");
        free(text);
    }
    if (st == BASALT_OK && location && loc && !(*location = basalt_strdup(loc)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK && out) {
        basalt_iceberg_view_metadata_free(*out);
        *out = NULL;
    }
    return st;
}

/* The CreateViewRequest of create updates: the schema, the version, the
 * location (optional) and properties they carry. Updates a create request
 * cannot carry are INVALID_ARG. */
static basalt_status create_request(const char *name, const char *updates_json, json_t **out,
                                    struct basalt_error *err)
{
    *out = NULL;
    json_t *updates = NULL;
    basalt_status st = basalt_rest_client_parse_array(updates_json, "updates", &updates, err);
    if (st != BASALT_OK)
        return st;
    json_t *req = json_pack("{s:s,s:{}}", "name", name, "properties");
    if (!req)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t i;
    json_t *u;
    json_array_foreach(updates, i, u)
    {
        const char *action = json_string_value(json_object_get(u, "action"));
        if (st != BASALT_OK)
            break;
        if (!action) {
            st = basalt_error_set(err, BASALT_INVALID_ARG, "update %zu has no action", i);
        } else if (strcmp(action, "add-schema") == 0) {
            if (json_object_get(req, "schema"))
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "a REST view create carries one schema");
            else
                json_object_set(req, "schema", json_object_get(u, "schema"));
        } else if (strcmp(action, "add-view-version") == 0) {
            if (json_object_get(req, "view-version"))
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "a REST view create carries one version");
            else
                json_object_set(req, "view-version", json_object_get(u, "view-version"));
        } else if (strcmp(action, "set-location") == 0) {
            json_object_set(req, "location", json_object_get(u, "location"));
        } else if (strcmp(action, "set-properties") == 0) {
            json_object_update(json_object_get(req, "properties"), json_object_get(u, "updates"));
        } else if (strcmp(action, "assign-uuid") != 0 &&
                   strcmp(action, "upgrade-format-version") != 0 &&
                   strcmp(action, "set-current-view-version") != 0) {
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "update '%.60s' cannot be sent in a REST view create", action);
        }
    }
    if (st == BASALT_OK &&
        (!json_object_get(req, "schema") || !json_object_get(req, "view-version")))
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "a view create needs add-schema and add-view-version");
    json_decref(updates);
    if (st != BASALT_OK) {
        json_decref(req);
        return st;
    }
    *out = req;
    return BASALT_OK;
}

basalt_status basalt_rest_client_create_view(struct basalt_rest_client *r, const char *identifier,
                                             const char *updates_json, json_t **result,
                                             struct basalt_error *err)
{
    char *ns = NULL, *name = NULL, *path = NULL;
    json_t *req = NULL;
    *result = NULL;
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = create_request(name, updates_json, &req, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_namespace_path(r, ns, "views", &path, err);
    if (st == BASALT_OK)
        st = view_call(r, "POST /v1/{prefix}/namespaces/{namespace}/views", "POST", path, req,
                  BASALT_REST_CLIENT_OP_WRITE, result, NULL, err);
    json_decref(req);
    basalt_free(ns);
    basalt_free(name);
    basalt_free(path);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "create view %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_commit_view(struct basalt_rest_client *r, const char *identifier,
                                             const char *requirements_json,
                                             const char *updates_json, json_t **result,
                                             struct basalt_error *err)
{
    char *path = NULL;
    json_t *reqs = NULL, *ups = NULL, *body = NULL;
    *result = NULL;
    basalt_status st = basalt_rest_client_parse_array(requirements_json, "requirements", &reqs,
                                                      err);
    if (st == BASALT_OK)
        st = basalt_rest_client_parse_array(updates_json, "updates", &ups, err);
    if (st == BASALT_OK) {
        body = json_pack("{s:o,s:O,s:O}", "identifier",
                         basalt_rest_client_identifier_json(identifier), "requirements", reqs,
                         "updates", ups);
        if (!body)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK)
        st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_object_path(r, identifier, "views", &path, err);
    if (st == BASALT_OK)
        st = view_call(r, "POST /v1/{prefix}/namespaces/{namespace}/views/{view}", "POST", path, body,
                  BASALT_REST_CLIENT_OP_COMMIT, result, NULL, err);
    json_decref(reqs);
    json_decref(ups);
    json_decref(body);
    basalt_free(path);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "replace view %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_register_view(struct basalt_rest_client *r,
                                               const char *identifier, const char *location,
                                               json_t **result, struct basalt_error *err)
{
    char *ns = NULL, *name = NULL, *path = NULL;
    *result = NULL;
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    json_t *body = st == BASALT_OK ? json_pack("{s:s,s:s}", "name", name, "metadata-location",
                                               location)
                                   : NULL;
    if (st == BASALT_OK && !body)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_namespace_path(r, ns, "register-view", &path, err);
    if (st == BASALT_OK)
        st = view_call(r, "POST /v1/{prefix}/namespaces/{namespace}/register-view", "POST", path, body,
                  BASALT_REST_CLIENT_OP_WRITE, result, NULL, err);
    json_decref(body);
    basalt_free(ns);
    basalt_free(name);
    basalt_free(path);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "register view %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_drop_view(struct basalt_rest_client *r, const char *identifier,
                                           struct basalt_error *err)
{
    char *path = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_object_path(r, identifier, "views", &path, err);
    if (st == BASALT_OK)
        st = view_call(r, "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}", "DELETE", path,
                  NULL, BASALT_REST_CLIENT_OP_WRITE, NULL, NULL, err);
    basalt_free(path);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "drop view %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_rename_view(struct basalt_rest_client *r, const char *from,
                                             const char *to, struct basalt_error *err)
{
    json_t *body = json_pack("{s:o,s:o}", "source", basalt_rest_client_identifier_json(from),
                             "destination", basalt_rest_client_identifier_json(to));
    basalt_status st = body ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = view_call(r, "POST /v1/{prefix}/views/rename", "POST", "views/rename", body,
                  BASALT_REST_CLIENT_OP_WRITE, NULL, NULL, err);
    json_decref(body);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "rename view %.200s to %.200s", from, to);
    return BASALT_OK;
}

basalt_status basalt_rest_client_view_exists(struct basalt_rest_client *r, const char *identifier,
                                             bool *exists, struct basalt_error *err)
{
    char *path = NULL;
    *exists = false;
    basalt_status st = basalt_rest_client_session(r, err);
    /* HEAD when offered, else a load. */
    bool head = st == BASALT_OK &&
                basalt_rest_client_offers(r, "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}");
    if (st == BASALT_OK)
        st = basalt_rest_client_object_path(r, identifier, "views", &path, err);
    if (st == BASALT_OK) {
        long status = 0;
        struct basalt_error probe;
        basalt_error_init(&probe);
        st = view_call(r,
                  head ? "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}"
                       : "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
                  head ? "HEAD" : "GET", path, NULL, BASALT_REST_CLIENT_OP_READ, NULL, &status,
                  &probe);
        if (st == BASALT_OK)
            *exists = true;
        else if (st == BASALT_NOT_FOUND && status == 404)
            st = BASALT_OK;
        else if (err)
            *err = probe;
    }
    basalt_free(path);
    return st;
}
