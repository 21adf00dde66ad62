/* REST catalog requests: URLs (prefix, namespaces joined by the separator,
 * percent-encoding), headers (bearer token, JSON, access delegation) and
 * the one retry that a 401 earns when a new token can be fetched. */
#include <stdio.h>
#include <string.h>

#include "rest_client_internal.h"

basalt_status basalt_rest_client_append_encoded(struct basalt_buffer *b, const char *s,
                                                 size_t len, struct basalt_error *err)
{
    static const char hex[] = "0123456789ABCDEF";
    basalt_status st = basalt_buffer_reserve(b, len * 3, err);
    for (size_t i = 0; st == BASALT_OK && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~';
        if (plain) {
            b->data[b->size++] = c;
        } else {
            b->data[b->size++] = '%';
            b->data[b->size++] = (uint8_t)hex[c >> 4];
            b->data[b->size++] = (uint8_t)hex[c & 15];
        }
    }
    return st;
}

basalt_status basalt_rest_client_append_namespace(const struct basalt_rest_client *r,
                                                   struct basalt_buffer *b, const char *ns,
                                                   struct basalt_error *err)
{
    const char *sep = r->separator ? r->separator : "%1F";
    size_t len = ns ? strlen(ns) : 0;
    if (!len || ns[0] == '.' || ns[len - 1] == '.' || strstr(ns, ".."))
        return basalt_error_set(err, BASALT_INVALID_ARG, "invalid namespace '%.200s'",
                                ns ? ns : "");
    basalt_status st = BASALT_OK;
    const char *p = ns;
    while (st == BASALT_OK) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        st = basalt_rest_client_append_encoded(b, p, n, err);
        if (!dot)
            break;
        if (st == BASALT_OK)
            st = basalt_buffer_append(b, sep, strlen(sep), err);
        p = dot + 1;
    }
    return st;
}

static basalt_status finish(struct basalt_buffer *b, char **out, struct basalt_error *err)
{
    basalt_status st = basalt_buffer_append(b, "", 1, err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(b);
        return st;
    }
    *out = (char *)basalt_buffer_take(b);
    return BASALT_OK;
}

basalt_status basalt_rest_client_namespace_path(const struct basalt_rest_client *r,
                                                 const char *ns, const char *suffix,
                                                 char **out, struct basalt_error *err)
{
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    *out = NULL;
    basalt_status st = basalt_buffer_append(&b, "namespaces/", 11, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_append_namespace(r, &b, ns, err);
    if (st == BASALT_OK && suffix && *suffix) {
        st = basalt_buffer_append(&b, "/", 1, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, suffix, strlen(suffix), err);
    }
    if (st != BASALT_OK) {
        basalt_buffer_reset(&b);
        return st;
    }
    return finish(&b, out, err);
}

basalt_status basalt_rest_client_object_path(const struct basalt_rest_client *r,
                                              const char *identifier, const char *kind,
                                              char **out, struct basalt_error *err)
{
    *out = NULL;
    const char *dot = identifier ? strrchr(identifier, '.') : NULL;
    if (!dot || dot == identifier || !dot[1])
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "identifier '%.200s' is not <namespace>.<name>",
                                identifier ? identifier : "");
    char *ns = basalt_strndup(identifier, (size_t)(dot - identifier));
    if (!ns)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = basalt_buffer_append(&b, "namespaces/", 11, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_append_namespace(r, &b, ns, err);
    basalt_free(ns);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "/", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, kind, strlen(kind), err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "/", 1, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_append_encoded(&b, dot + 1, strlen(dot + 1), err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&b);
        return st;
    }
    return finish(&b, out, err);
}

basalt_status basalt_rest_client_url(const struct basalt_rest_client *r, const char *path,
                                      char **out, struct basalt_error *err)
{
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    *out = NULL;
    basalt_status st = basalt_buffer_append(&b, r->base, strlen(r->base), err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "/v1/", 4, err);
    if (st == BASALT_OK && r->prefix) {
        st = basalt_buffer_append(&b, r->prefix, strlen(r->prefix), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, "/", 1, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, path, strlen(path), err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&b);
        return st;
    }
    return finish(&b, out, err);
}

/* The token a table's LoadTableResult config gave, if any. */
static const char *table_token(const struct basalt_rest_client *r, const char *table)
{
    if (!table)
        return NULL;
    const json_t *entry = json_object_get(r->tables, table);
    const char *t = json_string_value(json_object_get(json_object_get(entry, "config"), "token"));
    return t && *t ? t : NULL;
}

/* "GET http://host/v1/x" without the query, for messages. */
static void describe(const struct basalt_rest_client_call *call, char *out, size_t cap)
{
    size_t n = strcspn(call->url, "?");
    snprintf(out, cap, "%s %.*s", call->method, (int)(n > 300 ? 300 : n), call->url);
}

static bool whitespace_only(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\n' && s[i] != '\r' && s[i] != '\t')
            return false;
    return true;
}

basalt_status basalt_rest_client_call(struct basalt_rest_client *r,
                                       const struct basalt_rest_client_call *call, json_t **json,
                                       long *http_status, struct basalt_error *err)
{
    if (json)
        *json = NULL;
    if (http_status)
        *http_status = 0;
    char what[400];
    describe(call, what, sizeof what);
    struct basalt_io_http_response resp = {0};
    basalt_status st = BASALT_OK;
    bool table_auth = table_token(r, call->table) != NULL;
    for (int attempt = 0;; attempt++) {
        const char *bearer = NULL;
        if (!call->no_auth) {
            /* A table's own token first; after a 401 the session's, renewed. */
            bearer = attempt == 0 ? table_token(r, call->table) : NULL;
            if (!bearer) {
                st = basalt_rest_client_bearer(r, attempt > 0 && basalt_rest_client_can_refresh(r),
                                                &bearer, err);
                if (st != BASALT_OK)
                    return st;
            }
        }
        char auth[16384];
        struct basalt_io_http_header headers[4];
        size_t n = 0;
        if (bearer) {
            int w = snprintf(auth, sizeof auth, "Bearer %s", bearer);
            if (w < 0 || (size_t)w >= sizeof auth)
                return basalt_error_set(err, BASALT_LIMIT, "bearer token too long");
            headers[n++] = (struct basalt_io_http_header){"Authorization", auth};
        }
        headers[n++] = (struct basalt_io_http_header){"Accept", "application/json"};
        if (call->body)
            headers[n++] = (struct basalt_io_http_header){
                "Content-Type",
                call->form ? "application/x-www-form-urlencoded" : "application/json"};
        if (call->delegation && r->vended)
            headers[n++] =
                (struct basalt_io_http_header){"X-Iceberg-Access-Delegation", "vended-credentials"};
        struct basalt_io_http_request req = {
            .method = call->method,
            .url = call->url,
            .headers = headers,
            .n_headers = n,
            .body = call->body,
            .body_len = call->body ? call->body_len : 0,
            .retry = call->op == BASALT_REST_CLIENT_OP_READ ? BASALT_IO_HTTP_RETRY_ANY
                                                     : BASALT_IO_HTTP_RETRY_UNSENT,
        };
        basalt_io_http_response_reset(&resp);
        st = r->transport(r->transport_ctx, &req, &resp, err);
        if (st != BASALT_OK) {
            /* The io layer's message names the method and the URL. */
            basalt_io_http_response_reset(&resp);
            if (call->op == BASALT_REST_CLIENT_OP_COMMIT && st == BASALT_IO)
                return basalt_error_context(err, BASALT_UNKNOWN_OUTCOME,
                                            "commit state unknown (no answer came)");
            return st;
        }
        /* A 401 says the token is not (or no longer) good: one more try
         * with a new one, when one can be had. The server did not act on
         * the request, so even a commit may go again. */
        bool renewable = !call->no_auth && (basalt_rest_client_can_refresh(r) || table_auth);
        if (resp.status == 401 && attempt == 0 && renewable)
            continue;
        break;
    }
    if (http_status)
        *http_status = resp.status;
    if (resp.status >= 200 && resp.status < 300) {
        if (json && resp.body_len && !whitespace_only(resp.body, resp.body_len)) {
            json_error_t jerr;
            *json = json_loadb((const char *)resp.body, resp.body_len, 0, &jerr);
            if (!*json)
                st = basalt_error_set(err, BASALT_CORRUPT, "%s: the answer is not JSON: %.120s",
                                      what, jerr.text);
        }
    } else {
        st = basalt_rest_client_error(resp.status, (const char *)resp.body, resp.body_len,
                                       call->op, what, err);
    }
    basalt_io_http_response_reset(&resp);
    return st;
}
