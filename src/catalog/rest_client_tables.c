/* REST catalog tables and views: listing, loading (with vended credentials
 * for the table's own io), register and drop. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rest_client_internal.h"

struct identifier_list {
    struct basalt_string_list *out;
};

static basalt_status add_identifier(void *ctx, const json_t *item, struct basalt_error *err)
{
    struct identifier_list *l = ctx;
    const char *name = json_string_value(json_object_get(item, "name"));
    if (!name || !*name)
        return basalt_error_set(err, BASALT_CORRUPT, "a listed identifier has no name");
    char *ns = NULL;
    basalt_status st = basalt_rest_client_namespace_string(json_object_get(item, "namespace"),
                                                            "a listed identifier", &ns, err);
    if (st != BASALT_OK)
        return st;
    size_t nl = strlen(ns), tl = strlen(name);
    char *full = basalt_malloc(nl + tl + 2);
    if (!full) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    } else {
        memcpy(full, ns, nl);
        full[nl] = '.';
        memcpy(full + nl + 1, name, tl + 1);
        st = basalt_string_list_add(l->out, full, nl + tl + 1, err);
    }
    basalt_free(full);
    basalt_free(ns);
    return st;
}

basalt_status basalt_rest_client_list_tables(struct basalt_rest_client *r, const char *ns,
                                              bool views, struct basalt_string_list *out,
                                              struct basalt_error *err)
{
    char *path = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r,
                                         views ? "GET /v1/{prefix}/namespaces/{namespace}/views"
                                               : "GET /v1/{prefix}/namespaces/{namespace}/tables",
                                         err);
    if (st == BASALT_OK)
        st = basalt_rest_client_namespace_path(r, ns, views ? "views" : "tables", &path, err);
    struct identifier_list l = {.out = out};
    if (st == BASALT_OK)
        st = basalt_rest_client_list_pages(r, path, NULL, "identifiers", add_identifier, &l, err);
    basalt_free(path);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "list %s in %.200s", views ? "views" : "tables",
                                    ns ? ns : "");
    return BASALT_OK;
}

void basalt_rest_client_remember(struct basalt_rest_client *r, const char *identifier,
                                  const json_t *result)
{
    json_t *config = json_object_get(result, "config");
    json_t *creds = json_object_get(result, "storage-credentials");
    if (!json_is_object(config) && !json_is_array(creds)) {
        json_object_del(r->tables, identifier);
        return;
    }
    json_t *entry = json_object();
    if (!entry)
        return; /* only credentials are lost: the table reads with the catalog's */
    if (json_is_object(config))
        json_object_set(entry, "config", config);
    if (json_is_array(creds))
        json_object_set(entry, "storage-credentials", creds);
    json_object_set_new(r->tables, identifier, entry);
}

/* The config of the storage credential whose prefix is the longest that
 * `location` starts with. */
static json_t *best_credential(const json_t *creds, const char *location)
{
    json_t *best = NULL;
    size_t best_len = 0, i;
    const json_t *c;
    json_array_foreach(creds, i, c)
    {
        const char *prefix = json_string_value(json_object_get(c, "prefix"));
        json_t *config = json_object_get(c, "config");
        if (!prefix || !json_is_object(config) || !location)
            continue;
        size_t n = strlen(prefix);
        if (strncmp(location, prefix, n) == 0 && (!best || n > best_len)) {
            best = config;
            best_len = n;
        }
    }
    return best;
}

static const char *get(const json_t *a, const json_t *b, const char *key)
{
    const char *v = json_string_value(json_object_get(a, key));
    if (!v)
        v = json_string_value(json_object_get(b, key));
    return v && *v ? v : NULL;
}

bool basalt_rest_client_vended_options(const json_t *result, const char *location,
                                        struct basalt_io_options *o)
{
    json_t *config = json_object_get(result, "config");
    json_t *cred = best_credential(json_object_get(result, "storage-credentials"), location);
    /* Credentials of the storage credential first, then the table config;
     * settings that are not secrets (region, endpoint) may be in either. */
    json_t *keys = cred ? cred : config;
    basalt_io_options_init(o);
    o->access_key_id = get(keys, NULL, "s3.access-key-id");
    o->secret_access_key = get(keys, NULL, "s3.secret-access-key");
    o->session_token = get(keys, NULL, "s3.session-token");
    o->bearer_token = get(keys, NULL, "gcs.oauth2.token");
    o->region = get(keys, config, "client.region");
    if (!o->region)
        o->region = get(keys, config, "s3.region");
    o->endpoint = get(keys, config, "s3.endpoint");
    const char *path_style = get(keys, config, "s3.path-style-access");
    if (path_style && strcasecmp(path_style, "true") == 0)
        o->addressing = BASALT_IO_ADDRESSING_PATH;
    /* ADLS: "adls.sas-token.<account>.dfs.core.windows.net". */
    const char *key;
    json_t *v;
    json_object_foreach(keys, key, v)
    {
        if (strncmp(key, "adls.sas-token.", 15) == 0 && json_string_value(v)) {
            o->azure_sas_token = json_string_value(v);
            o->azure_account = key + 15;
        }
    }
    return (o->access_key_id && o->secret_access_key) || o->bearer_token || o->azure_sas_token;
}

/* "devstoreaccount1.dfs.core.windows.net" -> "devstoreaccount1". */
static char *account_of(const char *host)
{
    return basalt_strndup(host, strcspn(host, "."));
}

basalt_status basalt_rest_client_make_table(struct basalt_rest_client *r,
                                             const struct basalt_iceberg_io *base_io,
                                             const char *identifier, const json_t *result,
                                             struct basalt_iceberg_table **out,
                                             struct basalt_error *err)
{
    *out = NULL;
    const json_t *metadata = json_object_get(result, "metadata");
    if (!json_is_object(metadata))
        return basalt_error_set(err, BASALT_CORRUPT, "%.200s: the answer has no metadata object",
                                identifier);
    const json_t *loc = json_object_get(result, "metadata-location");
    if (loc && !json_is_null(loc) && !json_is_string(loc))
        return basalt_error_set(err, BASALT_CORRUPT, "%.200s: metadata-location is not a string",
                                identifier);
    char *text = json_dumps(metadata, JSON_COMPACT);
    if (!text)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_iceberg_table *t = basalt_calloc(1, sizeof *t);
    basalt_status st = t ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_iceberg_metadata_parse(text, strlen(text), identifier, &t->metadata, err);
    free(text);
    if (st == BASALT_OK) {
        t->name = basalt_strdup(identifier);
        t->metadata_location = basalt_strdup(json_is_string(loc) ? json_string_value(loc) : "");
        if (!t->name || !t->metadata_location)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_io_new(&t->io, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map_all(t->io, base_io, err);
    /* Credentials come with a load; a commit's answer has none, so those
     * remembered from the last load of the table are used. */
    const json_t *creds = json_object_get(result, "config") ||
                                  json_object_get(result, "storage-credentials")
                              ? result
                              : json_object_get(r->tables, identifier);
    struct basalt_io_options o;
    const char *location = t ? (t->metadata ? t->metadata->location : NULL) : NULL;
    if (st == BASALT_OK && creds && basalt_rest_client_vended_options(creds, location, &o)) {
        char *account = o.azure_account ? account_of(o.azure_account) : NULL;
        o.azure_account = account;
        struct basalt_io_store *store = NULL;
        st = basalt_io_store_new(&o, &store, err);
        basalt_free(account);
        if (st == BASALT_OK)
            basalt_iceberg_io_adopt_store(t->io, store);
        else
            st = basalt_error_context(err, st, "%.200s: vended credentials", identifier);
    } else if (st == BASALT_OK && !r->store && location && basalt_io_uri_is_remote(location)) {
        /* No store was given to the catalog: one of the table's own, with
         * the usual credentials, rather than one the table cannot keep. */
        struct basalt_io_store *store = NULL;
        st = basalt_io_store_new(NULL, &store, err);
        if (st == BASALT_OK)
            basalt_iceberg_io_adopt_store(t->io, store);
    }
    if (st != BASALT_OK) {
        basalt_iceberg_table_free(t);
        return st;
    }
    *out = t;
    return BASALT_OK;
}

basalt_status basalt_rest_client_load_result(struct basalt_rest_client *r,
                                              const char *identifier, json_t **result,
                                              struct basalt_error *err)
{
    char *path = NULL, *url = NULL;
    *result = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r, "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                                         err);
    if (st == BASALT_OK)
        st = basalt_rest_client_object_path(r, identifier, "tables", &path, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_url(r, path, &url, err);
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = "GET", .url = url, .delegation = true,
                                        .table = identifier, .op = BASALT_REST_CLIENT_OP_READ};
        st = basalt_rest_client_call(r, &call, result, NULL, err);
    }
    if (st == BASALT_OK && !json_is_object(*result))
        st = basalt_error_set(err, BASALT_CORRUPT, "the answer is not a LoadTableResult");
    if (st == BASALT_OK)
        basalt_rest_client_remember(r, identifier, *result);
    basalt_free(path);
    basalt_free(url);
    if (st != BASALT_OK) {
        json_decref(*result);
        *result = NULL;
        return basalt_error_context(err, st, "load %.200s", identifier);
    }
    return BASALT_OK;
}

basalt_status basalt_rest_client_register(struct basalt_rest_client *r,
                                           const char *identifier, const char *location,
                                           struct basalt_error *err)
{
    char *path = NULL, *url = NULL, *body = NULL;
    const char *dot = strrchr(identifier, '.');
    char *ns = dot ? basalt_strndup(identifier, (size_t)(dot - identifier)) : NULL;
    basalt_status st = ns ? basalt_rest_client_session(r, err)
                          : basalt_error_set(err, dot ? BASALT_NOMEM : BASALT_INVALID_ARG,
                                             "identifier '%.200s' is not <namespace>.<table>",
                                             identifier);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r, "POST /v1/{prefix}/namespaces/{namespace}/register",
                                         err);
    if (st == BASALT_OK)
        st = basalt_rest_client_namespace_path(r, ns, "register", &path, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_url(r, path, &url, err);
    if (st == BASALT_OK) {
        json_t *req = json_pack("{s:s,s:s}", "name", dot + 1, "metadata-location", location);
        body = req ? json_dumps(req, JSON_COMPACT) : NULL;
        json_decref(req);
        if (!body)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = "POST", .url = url, .body = body,
                                        .body_len = strlen(body), .op = BASALT_REST_CLIENT_OP_WRITE};
        st = basalt_rest_client_call(r, &call, NULL, NULL, err);
    }
    basalt_free(ns);
    basalt_free(path);
    basalt_free(url);
    free(body);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "register %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_drop(struct basalt_rest_client *r, const char *identifier,
                                       struct basalt_error *err)
{
    char *path = NULL, *url = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(
            r, "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}", err);
    if (st == BASALT_OK)
        st = basalt_rest_client_object_path(r, identifier, "tables", &path, err);
    if (st == BASALT_OK) {
        /* The files are kept, as every catalog kind here keeps them. */
        size_t n = strlen(path) + 32;
        char *with_query = basalt_malloc(n);
        if (!with_query) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        } else {
            memcpy(with_query, path, strlen(path));
            memcpy(with_query + strlen(path), "?purgeRequested=false", 22);
            st = basalt_rest_client_url(r, with_query, &url, err);
            basalt_free(with_query);
        }
    }
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = "DELETE", .url = url, .table = identifier,
                                        .op = BASALT_REST_CLIENT_OP_WRITE};
        st = basalt_rest_client_call(r, &call, NULL, NULL, err);
    }
    if (st == BASALT_OK)
        json_object_del(r->tables, identifier);
    basalt_free(path);
    basalt_free(url);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "drop %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_rest_client_load_view(struct basalt_rest_client *r,
                                            const char *identifier,
                                            struct basalt_iceberg_view_metadata **out,
                                            char **location, struct basalt_error *err)
{
    char *path = NULL, *url = NULL, *text = NULL;
    json_t *result = NULL;
    *out = NULL;
    if (location)
        *location = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r, "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
                                         err);
    if (st == BASALT_OK)
        st = basalt_rest_client_object_path(r, identifier, "views", &path, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_url(r, path, &url, err);
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = "GET", .url = url, .op = BASALT_REST_CLIENT_OP_READ};
        st = basalt_rest_client_call(r, &call, &result, NULL, err);
    }
    const json_t *metadata = json_object_get(result, "metadata");
    if (st == BASALT_OK && !json_is_object(metadata))
        st = basalt_error_set(err, BASALT_CORRUPT, "the answer is not a LoadViewResult");
    if (st == BASALT_OK && !(text = json_dumps(metadata, JSON_COMPACT)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_iceberg_view_metadata_parse(text, strlen(text), identifier, out, err);
    const char *loc = json_string_value(json_object_get(result, "metadata-location"));
    if (st == BASALT_OK && location && loc && !(*location = basalt_strdup(loc)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK) {
        basalt_iceberg_view_metadata_free(*out);
        *out = NULL;
    }
    free(text);
    json_decref(result);
    basalt_free(path);
    basalt_free(url);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "load view %.200s", identifier);
    return BASALT_OK;
}
