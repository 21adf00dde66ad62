/* REST catalog namespaces: listing (every page), creating, existence; and
 * the paging loop the table and view listings share. */
#include <stdlib.h>
#include <string.h>

#include "rest_client_internal.h"

/* Pages at most; a server that never ends its listing is refused. */
#define MAX_PAGES 100000

basalt_status basalt_rest_client_list_pages(
    struct basalt_rest_client *r, const char *path, const char *query, const char *member,
    basalt_status (*each)(void *ctx, const json_t *item, struct basalt_error *err), void *ctx,
    struct basalt_error *err)
{
    char *base = NULL, *token = NULL;
    basalt_status st = basalt_rest_client_url(r, path, &base, err);
    for (int page = 0; st == BASALT_OK; page++) {
        if (page == MAX_PAGES) {
            st = basalt_error_set(err, BASALT_LIMIT, "%s: more than %d pages", path, MAX_PAGES);
            break;
        }
        /* An empty pageToken on the first request asks a server that pages
         * to page (without one it must answer everything at once). */
        struct basalt_buffer url;
        basalt_buffer_init(&url);
        st = basalt_buffer_append(&url, base, strlen(base), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&url, "?", 1, err);
        if (st == BASALT_OK && query) {
            st = basalt_buffer_append(&url, query, strlen(query), err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(&url, "&", 1, err);
        }
        if (st == BASALT_OK)
            st = basalt_buffer_append(&url, "pageToken=", 10, err);
        if (st == BASALT_OK && token)
            st = basalt_rest_client_append_encoded(&url, token, strlen(token), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&url, "", 1, err);
        json_t *answer = NULL;
        if (st == BASALT_OK) {
            struct basalt_rest_client_call call = {.method = "GET", .url = (const char *)url.data,
                                            .op = BASALT_REST_CLIENT_OP_READ};
            st = basalt_rest_client_call(r, &call, &answer, NULL, err);
        }
        basalt_buffer_reset(&url);
        const json_t *items = json_object_get(answer, member);
        if (st == BASALT_OK && items && !json_is_array(items))
            st = basalt_error_set(err, BASALT_CORRUPT, "%s: '%s' is not an array", path, member);
        size_t i;
        const json_t *item;
        json_array_foreach(items, i, item)
        {
            if (st != BASALT_OK)
                break;
            st = each(ctx, item, err);
        }
        const json_t *next = json_object_get(answer, "next-page-token");
        const char *next_token = json_string_value(next);
        if (st == BASALT_OK && next && !json_is_null(next) && !next_token)
            st = basalt_error_set(err, BASALT_CORRUPT, "%s: next-page-token is not a string", path);
        bool more = st == BASALT_OK && next_token && *next_token;
        if (more && token && strcmp(token, next_token) == 0)
            st = basalt_error_set(err, BASALT_CORRUPT,
                                  "%s: the server answered the same next-page-token twice", path);
        if (st == BASALT_OK && more) {
            char *copy = basalt_strdup(next_token);
            if (!copy)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            basalt_free(token);
            token = copy;
        }
        json_decref(answer);
        if (!more)
            break;
    }
    basalt_free(base);
    basalt_free(token);
    return st;
}

struct namespace_list {
    struct basalt_string_list *out;
    const char *parent;
};

static basalt_status add_namespace(void *ctx, const json_t *item, struct basalt_error *err)
{
    struct namespace_list *l = ctx;
    char *ns = NULL;
    basalt_status st = basalt_rest_client_namespace_string(item, "listNamespaces", &ns, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_string_list_add(l->out, ns, strlen(ns), err);
    basalt_free(ns);
    return st;
}

basalt_status basalt_rest_client_list_namespaces(struct basalt_rest_client *r,
                                                  const char *parent,
                                                  struct basalt_string_list *out,
                                                  struct basalt_error *err)
{
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r, "GET /v1/{prefix}/namespaces", err);
    struct basalt_buffer query;
    basalt_buffer_init(&query);
    if (st == BASALT_OK && parent) {
        st = basalt_buffer_append(&query, "parent=", 7, err);
        if (st == BASALT_OK)
            st = basalt_rest_client_append_namespace(r, &query, parent, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&query, "", 1, err);
    }
    struct namespace_list l = {.out = out, .parent = parent};
    if (st == BASALT_OK)
        st = basalt_rest_client_list_pages(r, "namespaces", parent ? (const char *)query.data : NULL,
                                            "namespaces", add_namespace, &l, err);
    basalt_buffer_reset(&query);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "list namespaces%s%.200s", parent ? " in " : "",
                                    parent ? parent : "");
    return BASALT_OK;
}

basalt_status basalt_rest_client_create_namespace(struct basalt_rest_client *r,
                                                   const char *ns, struct basalt_error *err)
{
    char *url = NULL, *body = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_require(r, "POST /v1/{prefix}/namespaces", err);
    if (st == BASALT_OK)
        st = basalt_rest_client_url(r, "namespaces", &url, err);
    if (st == BASALT_OK) {
        json_t *req = json_pack("{s:o,s:{}}", "namespace", basalt_rest_client_namespace_json(ns),
                                "properties");
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
    basalt_free(url);
    free(body);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "create namespace %.200s", ns);
    return BASALT_OK;
}

basalt_status basalt_rest_client_namespace_exists(struct basalt_rest_client *r,
                                                   const char *ns, bool *exists,
                                                   struct basalt_error *err)
{
    *exists = false;
    char *path = NULL, *url = NULL;
    basalt_status st = basalt_rest_client_session(r, err);
    /* HEAD when offered (it is not in the default set), else GET. */
    bool head = st == BASALT_OK &&
                basalt_rest_client_offers(r, "HEAD /v1/{prefix}/namespaces/{namespace}");
    if (st == BASALT_OK && !head)
        st = basalt_rest_client_require(r, "GET /v1/{prefix}/namespaces/{namespace}", err);
    if (st == BASALT_OK)
        st = basalt_rest_client_namespace_path(r, ns, NULL, &path, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_url(r, path, &url, err);
    if (st == BASALT_OK) {
        struct basalt_rest_client_call call = {.method = head ? "HEAD" : "GET", .url = url,
                                        .op = BASALT_REST_CLIENT_OP_READ};
        long status = 0;
        struct basalt_error probe;
        basalt_error_init(&probe);
        st = basalt_rest_client_call(r, &call, NULL, &status, &probe);
        if (st == BASALT_OK) {
            *exists = true;
        } else if (st == BASALT_NOT_FOUND && status == 404) {
            st = BASALT_OK;
        } else if (err) {
            *err = probe;
        }
    }
    basalt_free(path);
    basalt_free(url);
    return st;
}
