/* REST catalog changes: creating tables (createTable, or a staged create
 * and a commit with assert-create), committing requirements and updates
 * (updateTable), multi-table transactions, and where new tables go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "rest_client_internal.h"

/* POST `body` to `path` (relative to /v1/[prefix]/). */
static basalt_status post(struct basalt_rest_client *r, const char *path, json_t *body,
                          enum basalt_rest_client_op op, bool delegation, const char *table,
                          json_t **answer, long *status, struct basalt_error *err)
{
    char *url = NULL;
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    basalt_status st = text ? basalt_rest_client_url(r, path, &url, err)
                            : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = "POST", .url = url, .body = text,
                                        .body_len = strlen(text), .delegation = delegation,
                                        .table = table, .op = op};
        st = basalt_rest_client_call(r, &call, answer, status, err);
    }
    free(text);
    basalt_free(url);
    return st;
}

/* POST createTable (stage-create when asked) for ns.name. */
static basalt_status post_create(struct basalt_rest_client *r, const char *identifier,
                                 const char *ns, json_t *request, json_t **answer, long *status,
                                 struct basalt_error *err)
{
    char *path = NULL;
    basalt_status st = basalt_rest_client_require(
        r, "POST /v1/{prefix}/namespaces/{namespace}/tables", err);
    if (st == BASALT_OK)
        st = basalt_rest_client_namespace_path(r, ns, "tables", &path, err);
    if (st == BASALT_OK)
        st = post(r, path, request, BASALT_REST_CLIENT_OP_WRITE, true, identifier, answer, status, err);
    basalt_free(path);
    if (st == BASALT_OK && !json_is_object(json_object_get(*answer, "metadata"))) {
        json_decref(*answer);
        *answer = NULL;
        st = basalt_error_set(err, BASALT_CORRUPT, "createTable: the answer has no metadata");
    }
    return st;
}

basalt_status basalt_rest_client_default_location(struct basalt_rest_client *r,
                                                   const char *identifier, char **out,
                                                   struct basalt_error *err)
{
    char *ns = NULL;
    char *name = NULL;
    json_t *answer = NULL;
    *out = NULL;
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK) {
        /* A staged create creates nothing and answers the metadata the
         * server would make, its location included. */
        json_t *req = json_pack("{s:s,s:{s:s,s:i,s:[]},s:b}", "name", name, "schema", "type",
                                "struct", "schema-id", 0, "fields", "stage-create", 1);
        long status = 0;
        st = req ? post_create(r, identifier, ns, req, &answer, &status, err)
                 : basalt_error_set(err, BASALT_NOMEM, "out of memory");
        json_decref(req);
        if (st == BASALT_NOT_FOUND && status == 404)
            st = basalt_error_set(err, BASALT_NOT_FOUND,
                                  "namespace '%.200s' does not exist, and a REST catalog chooses "
                                  "table locations in existing namespaces: create it first or give "
                                  "a location",
                                  ns);
    }
    const char *loc =
        json_string_value(json_object_get(json_object_get(answer, "metadata"), "location"));
    if (st == BASALT_OK && !loc)
        st = basalt_error_set(err, BASALT_CORRUPT, "the staged metadata has no location");
    if (st == BASALT_OK && !(*out = basalt_strdup(loc)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(answer);
    basalt_free(ns);
    basalt_free(name);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "default location of %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_create_request(const char *name, const json_t *updates,
                                                 json_t **out, struct basalt_error *err)
{
    *out = NULL;
    json_t *req = json_pack("{s:s}", "name", name);
    json_t *props = json_object();
    if (!req || !props) {
        json_decref(req);
        json_decref(props);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    bool representable = true;
    int schemas = 0, specs = 0, orders = 0;
    size_t i;
    json_t *u;
    json_array_foreach(updates, i, u)
    {
        const char *action = json_string_value(json_object_get(u, "action"));
        json_t *v;
        if (!action) {
            json_decref(req);
            json_decref(props);
            return basalt_error_set(err, BASALT_CORRUPT, "create: update %zu has no action", i);
        }
        if (strcmp(action, "assign-uuid") == 0) {
            /* The server assigns the table's uuid. */
        } else if (strcmp(action, "upgrade-format-version") == 0 &&
                   json_is_integer(v = json_object_get(u, "format-version"))) {
            char text[24];
            snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
            json_object_set_new(props, "format-version", json_string(text));
        } else if (strcmp(action, "add-schema") == 0 && schemas++ == 0 &&
                   json_is_object(v = json_object_get(u, "schema"))) {
            json_object_set(req, "schema", v);
        } else if (strcmp(action, "set-current-schema") == 0 && schemas == 1 &&
                   json_integer_value(json_object_get(u, "schema-id")) == -1) {
        } else if (strcmp(action, "add-spec") == 0 && specs++ == 0 &&
                   json_is_object(v = json_object_get(u, "spec"))) {
            json_object_set(req, "partition-spec", v);
        } else if (strcmp(action, "set-default-spec") == 0 && specs == 1 &&
                   json_integer_value(json_object_get(u, "spec-id")) == -1) {
        } else if (strcmp(action, "add-sort-order") == 0 && orders++ == 0 &&
                   json_is_object(v = json_object_get(u, "sort-order"))) {
            json_object_set(req, "write-order", v);
        } else if (strcmp(action, "set-default-sort-order") == 0 && orders == 1 &&
                   json_integer_value(json_object_get(u, "sort-order-id")) == -1) {
        } else if (strcmp(action, "set-location") == 0 &&
                   json_is_string(v = json_object_get(u, "location"))) {
            json_object_set(req, "location", v);
        } else if (strcmp(action, "set-properties") == 0 &&
                   json_is_object(v = json_object_get(u, "updates"))) {
            json_object_update(props, v);
        } else {
            representable = false;
        }
    }
    if (!json_object_get(req, "schema"))
        representable = false;
    if (!representable) {
        json_decref(req);
        json_decref(props);
        return BASALT_OK;
    }
    json_object_set_new(req, "properties", props);
    *out = req;
    return BASALT_OK;
}

/* The first schema of create updates, for a staged create's request. */
static const json_t *first_schema(const json_t *updates)
{
    size_t i;
    const json_t *u;
    json_array_foreach(updates, i, u)
    {
        const char *action = json_string_value(json_object_get(u, "action"));
        if (action && strcmp(action, "add-schema") == 0)
            return json_object_get(u, "schema");
    }
    return NULL;
}

/* The first location of create updates, or NULL. */
static json_t *first_location(const json_t *updates)
{
    size_t i;
    const json_t *u;
    json_array_foreach(updates, i, u)
    {
        const char *action = json_string_value(json_object_get(u, "action"));
        if (action && strcmp(action, "set-location") == 0)
            return json_object_get(u, "location");
    }
    return NULL;
}

/* POST updateTable for `identifier` with the two arrays. */
static basalt_status post_commit(struct basalt_rest_client *r, const char *identifier,
                                 json_t *requirements, json_t *updates, json_t **answer,
                                 struct basalt_error *err)
{
    char *path = NULL;
    basalt_status st = basalt_rest_client_require(
        r, "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}", err);
    if (st == BASALT_OK)
        st = basalt_rest_client_object_path(r, identifier, "tables", &path, err);
    json_t *body = NULL;
    if (st == BASALT_OK) {
        body = json_pack("{s:o,s:O,s:O}", "identifier",
                         basalt_rest_client_identifier_json(identifier), "requirements",
                         requirements, "updates", updates);
        if (!body)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK)
        st = post(r, path, body, BASALT_REST_CLIENT_OP_COMMIT, false, identifier, answer, NULL, err);
    json_decref(body);
    basalt_free(path);
    return st;
}

/* Creates through a staged create and a commit of every update. */
static basalt_status staged_create(struct basalt_rest_client *r, const char *identifier,
                                   const char *ns, const char *name, json_t *updates,
                                   json_t **answer, long *status, struct basalt_error *err)
{
    const json_t *schema = first_schema(updates);
    if (!json_is_object(schema))
        return basalt_error_set(err, BASALT_INVALID_ARG, "create: the updates add no schema");
    json_t *req = json_pack("{s:s,s:O,s:b}", "name", name, "schema", schema, "stage-create", 1);
    json_t *location = first_location(updates);
    if (req && json_is_string(location))
        json_object_set(req, "location", location);
    json_t *staged = NULL;
    basalt_status st = req ? post_create(r, identifier, ns, req, &staged, status, err)
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(req);
    if (st != BASALT_OK)
        return st;
    /* The staged answer carries the credentials for the new table. */
    basalt_rest_client_remember(r, identifier, staged);
    json_decref(staged);
    json_t *requirements = json_pack("[{s:s}]", "type", "assert-create");
    st = requirements ? post_commit(r, identifier, requirements, updates, answer, err)
                      : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(requirements);
    return st;
}

basalt_status basalt_rest_client_create_table(struct basalt_rest_client *r,
                                               const struct basalt_iceberg_io *base_io,
                                               const char *identifier, const char *updates_json,
                                               struct basalt_iceberg_table **out,
                                               struct basalt_error *err)
{
    char *ns = NULL;
    char *name = NULL;
    json_t *updates = NULL, *request = NULL, *answer = NULL;
    if (out)
        *out = NULL;
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_parse_array(updates_json, "create updates", &updates, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK && !r->stage_create)
        st = basalt_rest_client_create_request(name, updates, &request, err);
    /* A missing namespace is created, as the other catalog kinds create it. */
    for (int attempt = 0; st == BASALT_OK && attempt < 2; attempt++) {
        long status = 0;
        struct basalt_error first;
        basalt_error_init(&first);
        st = request ? post_create(r, identifier, ns, request, &answer, &status, &first)
                     : staged_create(r, identifier, ns, name, updates, &answer, &status, &first);
        if (st == BASALT_NOT_FOUND && status == 404 && attempt == 0) {
            bool exists = true;
            st = basalt_rest_client_namespace_exists(r, ns, &exists, err);
            if (st == BASALT_OK && exists) {
                st = BASALT_NOT_FOUND; /* the 404 was about something else */
                if (err)
                    *err = first;
                break;
            }
            if (st == BASALT_OK)
                st = basalt_rest_client_create_namespace(r, ns, err);
            if (st == BASALT_CONFLICT)
                st = BASALT_OK; /* another writer made it meanwhile */
            continue;
        }
        if (st != BASALT_OK && err)
            *err = first;
        break;
    }
    if (st == BASALT_OK && request)
        basalt_rest_client_remember(r, identifier, answer);
    if (st == BASALT_OK && out)
        st = basalt_rest_client_make_table(r, base_io, identifier, answer, out, err);
    json_decref(updates);
    json_decref(request);
    json_decref(answer);
    basalt_free(ns);
    basalt_free(name);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "create %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_commit_table(struct basalt_rest_client *r,
                                               const struct basalt_iceberg_io *base_io,
                                               const char *identifier,
                                               const char *requirements_json,
                                               const char *updates_json,
                                               struct basalt_iceberg_table **out,
                                               struct basalt_error *err)
{
    char *ns = NULL;
    char *name = NULL;
    json_t *requirements = NULL, *updates = NULL, *answer = NULL;
    if (out)
        *out = NULL;
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_parse_array(requirements_json, "requirements", &requirements,
                                             err);
    if (st == BASALT_OK)
        st = basalt_rest_client_parse_array(updates_json, "updates", &updates, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = post_commit(r, identifier, requirements, updates, &answer, err);
    if (st == BASALT_OK && out)
        st = basalt_rest_client_make_table(r, base_io, identifier, answer, out, err);
    json_decref(requirements);
    json_decref(updates);
    json_decref(answer);
    basalt_free(ns);
    basalt_free(name);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "commit %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_commit_transaction(struct basalt_rest_client *r, size_t n,
                                                     const char *const *identifiers,
                                                     const char *const *requirements,
                                                     const char *const *updates,
                                                     struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    if (!identifiers || !updates)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a transaction needs identifiers and "
                                                         "updates");
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r, "POST /v1/{prefix}/transactions/commit", err);
    json_t *changes = json_array();
    if (st == BASALT_OK && !changes)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (size_t i = 0; st == BASALT_OK && i < n; i++) {
        char *ns = NULL;
        char *name = NULL;
        json_t *req = NULL, *upd = NULL;
        st = basalt_catalog_identifier_split(identifiers[i], &ns, &name, err);
        basalt_free(ns);
        basalt_free(name);
        if (st == BASALT_OK)
            st = basalt_rest_client_parse_array(requirements ? requirements[i] : NULL,
                                                 "requirements", &req, err);
        if (st == BASALT_OK)
            st = basalt_rest_client_parse_array(updates[i], "updates", &upd, err);
        if (st == BASALT_OK) {
            json_t *change = json_pack("{s:o,s:o,s:o}", "identifier",
                                       basalt_rest_client_identifier_json(identifiers[i]),
                                       "requirements", req, "updates", upd);
            req = upd = NULL;
            if (!change || json_array_append_new(changes, change) != 0)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        json_decref(req);
        json_decref(upd);
    }
    json_t *body = st == BASALT_OK ? json_pack("{s:O}", "table-changes", changes) : NULL;
    if (st == BASALT_OK && !body)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = post(r, "transactions/commit", body, BASALT_REST_CLIENT_OP_COMMIT, false, NULL, NULL, NULL,
                  err);
    json_decref(body);
    json_decref(changes);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "commit a transaction of %zu tables", n);
    return BASALT_OK;
}
