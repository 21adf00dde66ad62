/* The REST catalog client: the URI, the options, and the session every
 * operation starts from (GET /v1/config: prefix, separator, endpoints). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog_internal.h"
#include "rest_client_internal.h"

/* The spec's endpoints when a server sends none (getConfig). */
static const char *const default_endpoints[] = {
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
};

bool basalt_rest_client_uri(const char *uri)
{
    return uri && (strncasecmp(uri, "rest+http://", 12) == 0 ||
                   strncasecmp(uri, "rest+https://", 13) == 0);
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes s[0, len) ('+' is a space, as in forms). */
static char *decode(const char *s, size_t len)
{
    char *out = basalt_malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%' && i + 2 < len && hex_value(s[i + 1]) >= 0 &&
            hex_value(s[i + 2]) >= 0) {
            out[o++] = (char)(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
            i += 2;
        } else {
            out[o++] = s[i] == '+' ? ' ' : s[i];
        }
    }
    out[o] = '\0';
    return out;
}

/* The query of the URI: warehouse=W, nothing else. */
static basalt_status parse_query(struct basalt_rest_client *r, const char *uri, const char *q,
                                 struct basalt_error *err)
{
    while (*q) {
        size_t n = strcspn(q, "&");
        const char *eq = memchr(q, '=', n);
        size_t key = eq ? (size_t)(eq - q) : n;
        if (key == 9 && strncmp(q, "warehouse", 9) == 0 && eq) {
            basalt_free(r->warehouse);
            r->warehouse = decode(eq + 1, n - key - 1);
            if (!r->warehouse)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        } else if (n) {
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "catalog URI %.200s: unknown query parameter '%.*s' (only "
                                    "warehouse=)",
                                    uri, (int)(key > 60 ? 60 : key), q);
        }
        q += n;
        if (*q == '&')
            q++;
    }
    return BASALT_OK;
}

static basalt_status default_transport(void *ctx, const struct basalt_io_http_request *req,
                                       struct basalt_io_http_response *resp,
                                       struct basalt_error *err)
{
    struct basalt_rest_client *r = ctx;
    if (!r->store && !r->own_store) {
        basalt_status st = basalt_io_store_new(NULL, &r->own_store, err);
        if (st != BASALT_OK)
            return st;
    }
    return basalt_io_http_request(r->store ? r->store : r->own_store, req, resp, err);
}

basalt_status basalt_rest_client_open(const char *uri, struct basalt_rest_client **out,
                                       struct basalt_error *err)
{
    *out = NULL;
    if (!basalt_rest_client_uri(uri))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.200s is not a rest+http(s):// URI",
                                uri ? uri : "");
    const char *rest = uri + 5; /* "http..." */
    const char *host = strstr(rest, "://") + 3;
    size_t authority = strcspn(host, "/?#");
    if (authority == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "catalog URI %.200s names no host", uri);
    if (memchr(host, '@', authority))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "catalog URI: credentials do not go in the URI (use a token or "
                                "client credentials: basalt_catalog_set_rest_options)");
    if (strchr(host, '#'))
        return basalt_error_set(err, BASALT_INVALID_ARG, "catalog URI %.200s has a fragment", uri);
    struct basalt_rest_client *r = basalt_calloc(1, sizeof *r);
    if (!r)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory opening a REST catalog");
    r->transport = default_transport;
    r->transport_ctx = r;
    const char *q = strchr(host, '?');
    size_t base_len = q ? (size_t)(q - rest) : strlen(rest);
    while (base_len > 0 && rest[base_len - 1] == '/')
        base_len--;
    r->base = basalt_strndup(rest, base_len);
    r->tables = json_object();
    basalt_status st = r->base && r->tables
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK && q)
        st = parse_query(r, uri, q + 1, err);
    if (st != BASALT_OK) {
        basalt_rest_client_close(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

/* Forgets the session: the next operation makes a new one. */
static void reset_session(struct basalt_rest_client *r)
{
    r->configured = false;
    basalt_free(r->prefix);
    basalt_free(r->separator);
    basalt_free(r->config_warehouse);
    basalt_free(r->token_endpoint);
    basalt_free(r->access_token);
    r->prefix = r->separator = r->config_warehouse = r->token_endpoint = r->access_token = NULL;
    r->token_expires_ms = 0;
    basalt_string_list_reset(&r->endpoints);
    r->have_endpoints = false;
    json_object_clear(r->tables);
}

void basalt_rest_client_close(struct basalt_rest_client *r)
{
    if (!r)
        return;
    reset_session(r);
    json_decref(r->tables);
    basalt_free(r->base);
    basalt_free(r->warehouse);
    basalt_free(r->token);
    basalt_free(r->client_id);
    basalt_free(r->client_secret);
    basalt_free(r->oauth2_uri);
    basalt_free(r->scope);
    basalt_io_store_free(r->own_store);
    basalt_free(r);
}

void basalt_rest_client_set_store(struct basalt_rest_client *r, struct basalt_io_store *store)
{
    r->store = store;
}

void basalt_rest_client_set_transport(struct basalt_rest_client *r,
                                       basalt_rest_client_transport fn, void *ctx)
{
    r->transport = fn ? fn : default_transport;
    r->transport_ctx = fn ? ctx : r;
}

basalt_status basalt_rest_client_set_warehouse(struct basalt_rest_client *r,
                                                const char *warehouse, struct basalt_error *err)
{
    char *copy = warehouse && *warehouse ? basalt_strdup(warehouse) : NULL;
    if (warehouse && *warehouse && !copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_free(r->warehouse);
    r->warehouse = copy;
    reset_session(r);
    return BASALT_OK;
}

void basalt_catalog_rest_options_init(struct basalt_catalog_rest_options *o)
{
    memset(o, 0, sizeof *o);
}

/* Copies of the options' strings into r (NULL stays NULL). */
static basalt_status set_options(struct basalt_rest_client *r,
                                 const struct basalt_catalog_rest_options *o,
                                 struct basalt_error *err)
{
    char *token = o->token && *o->token ? basalt_strdup(o->token) : NULL;
    char *id = NULL, *secret = NULL;
    if (o->credential && *o->credential) {
        const char *colon = strchr(o->credential, ':');
        if (colon) {
            id = basalt_strndup(o->credential, (size_t)(colon - o->credential));
            secret = basalt_strdup(colon + 1);
        } else {
            secret = basalt_strdup(o->credential);
        }
    }
    char *uri = o->oauth2_server_uri && *o->oauth2_server_uri ? basalt_strdup(o->oauth2_server_uri)
                                                              : NULL;
    char *scope = basalt_strdup(o->scope && *o->scope ? o->scope : "catalog");
    bool has_credential = o->credential && *o->credential;
    bool nomem = (o->token && *o->token && !token) || (has_credential && !secret) ||
                 (has_credential && strchr(o->credential, ':') && !id) ||
                 (o->oauth2_server_uri && *o->oauth2_server_uri && !uri) || !scope;
    if (nomem) {
        basalt_free(token);
        basalt_free(id);
        basalt_free(secret);
        basalt_free(uri);
        basalt_free(scope);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    basalt_free(r->token);
    basalt_free(r->client_id);
    basalt_free(r->client_secret);
    basalt_free(r->oauth2_uri);
    basalt_free(r->scope);
    r->token = token;
    r->client_id = id;
    r->client_secret = secret;
    r->oauth2_uri = uri;
    r->scope = scope;
    r->vended = o->vended_credentials;
    r->stage_create = o->stage_create;
    reset_session(r);
    return BASALT_OK;
}

basalt_status basalt_catalog_set_rest_options(struct basalt_catalog *c,
                                              const struct basalt_catalog_rest_options *options,
                                              struct basalt_error *err)
{
    if (!c || c->kind != BASALT_CATALOG_KIND_REST)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "REST options given to a catalog that is not a REST catalog");
    struct basalt_catalog_rest_options none;
    if (!options) {
        basalt_catalog_rest_options_init(&none);
        options = &none;
    }
    return set_options(c->rest, options, err);
}

/* A member of the merged config: overrides win over defaults. */
static const char *config_value(const json_t *config, const char *key)
{
    const char *v = json_string_value(json_object_get(json_object_get(config, "overrides"), key));
    if (!v)
        v = json_string_value(json_object_get(json_object_get(config, "defaults"), key));
    return v;
}

static basalt_status take_config(struct basalt_rest_client *r, const json_t *config,
                                 struct basalt_error *err)
{
    if (!json_is_object(config) ||
        (json_object_get(config, "overrides") && !json_is_object(json_object_get(config, "overrides"))) ||
        (json_object_get(config, "defaults") && !json_is_object(json_object_get(config, "defaults"))))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "GET /v1/config: the answer is not a CatalogConfig");
    const char *prefix = config_value(config, "prefix");
    const char *sep = config_value(config, "namespace-separator");
    const char *wh = config_value(config, "warehouse");
    const char *oauth = config_value(config, "oauth2-server-uri");
    while (prefix && *prefix == '/')
        prefix++;
    if (prefix && *prefix && !(r->prefix = basalt_strdup(prefix)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (r->prefix) {
        size_t n = strlen(r->prefix);
        while (n > 0 && r->prefix[n - 1] == '/')
            r->prefix[--n] = '\0';
    }
    if (!(r->separator = basalt_strdup(sep && *sep ? sep : "%1F")))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (wh && !(r->config_warehouse = basalt_strdup(wh)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (!r->oauth2_uri && oauth) {
        char *copy = basalt_strdup(oauth);
        if (!copy)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_free(r->token_endpoint);
        r->token_endpoint = copy;
    }
    const json_t *endpoints = json_object_get(config, "endpoints");
    if (json_is_array(endpoints)) {
        r->have_endpoints = true;
        size_t i;
        const json_t *e;
        json_array_foreach(endpoints, i, e)
        {
            const char *s = json_string_value(e);
            if (!s)
                continue;
            basalt_status st = basalt_string_list_add(&r->endpoints, s, strlen(s), err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}

basalt_status basalt_rest_client_session(struct basalt_rest_client *r,
                                          struct basalt_error *err)
{
    if (r->configured)
        return BASALT_OK;
    reset_session(r);
    struct basalt_buffer url;
    basalt_buffer_init(&url);
    basalt_status st = basalt_buffer_append(&url, r->base, strlen(r->base), err);
    if (st == BASALT_OK) {
        /* Where client credentials go until the config names another place. */
        size_t n = strlen(r->base) + 32;
        r->token_endpoint = r->oauth2_uri ? basalt_strdup(r->oauth2_uri) : basalt_malloc(n);
        if (!r->token_endpoint)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        else if (!r->oauth2_uri)
            snprintf(r->token_endpoint, n, "%s/v1/oauth/tokens", r->base);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&url, "/v1/config", 10, err);
    if (st == BASALT_OK && r->warehouse) {
        st = basalt_buffer_append(&url, "?warehouse=", 11, err);
        if (st == BASALT_OK)
            st = basalt_rest_client_append_encoded(&url, r->warehouse, strlen(r->warehouse), err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&url, "", 1, err);
    json_t *config = NULL;
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = "GET", .url = (const char *)url.data,
                                        .op = BASALT_REST_CLIENT_OP_READ};
        st = basalt_rest_client_call(r, &call, &config, NULL, err);
    }
    if (st == BASALT_OK)
        st = take_config(r, config, err);
    json_decref(config);
    basalt_buffer_reset(&url);
    if (st != BASALT_OK) {
        reset_session(r);
        return basalt_error_context(err, st, "REST catalog %.200s", r->base);
    }
    r->configured = true;
    return BASALT_OK;
}

bool basalt_rest_client_offers(const struct basalt_rest_client *r, const char *endpoint)
{
    if (!r->have_endpoints) {
        for (size_t i = 0; i < sizeof default_endpoints / sizeof default_endpoints[0]; i++)
            if (strcmp(default_endpoints[i], endpoint) == 0)
                return true;
        return false;
    }
    for (size_t i = 0; i < r->endpoints.n; i++)
        if (strcmp(r->endpoints.items[i], endpoint) == 0)
            return true;
    return false;
}

basalt_status basalt_rest_client_require(const struct basalt_rest_client *r,
                                          const char *endpoint, struct basalt_error *err)
{
    if (basalt_rest_client_offers(r, endpoint))
        return BASALT_OK;
    return basalt_error_set(err, BASALT_UNSUPPORTED,
                            "REST catalog %.200s does not offer %s (not among the endpoints of "
                            "its config)",
                            r->base, endpoint);
}
