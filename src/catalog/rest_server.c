/* The REST catalog server's request handling without sockets: the handler
 * and its catalog connections, then for each request the checks every route
 * shares (body size, bearer token) before routing. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rest_server_internal.h"

#define DEFAULT_MAX_BODY (16u << 20)
#define DEFAULT_THREADS 4u

void basalt_catalog_rest_server_options_init(struct basalt_catalog_rest_server_options *o)
{
    memset(o, 0, sizeof *o);
    o->bind_address = "127.0.0.1";
    o->max_body_bytes = DEFAULT_MAX_BODY;
    o->threads = DEFAULT_THREADS;
}

static char *copy_or_null(const char *s, bool *nomem)
{
    if (!s || !*s)
        return NULL;
    char *c = basalt_strdup(s);
    if (!c)
        *nomem = true;
    return c;
}

basalt_status basalt_catalog_rest_handler_new(
    const struct basalt_catalog_rest_server_options *o, struct basalt_catalog_rest_handler **out,
    struct basalt_error *err)
{
    *out = NULL;
    if (!o || !o->catalog_uri || !*o->catalog_uri)
        return basalt_error_set(err, BASALT_INVALID_ARG, "REST server: no catalog URI");
    if (o->prefix && strchr(o->prefix, '/'))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "REST server: prefix '%.100s' is not one path segment", o->prefix);
    struct basalt_catalog_rest_handler *h = basalt_calloc(1, sizeof *h);
    if (!h)
        return basalt_error_set(err, BASALT_NOMEM, "REST server: out of memory");
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->freed, NULL);
    bool nomem = false;
    h->prefix = copy_or_null(o->prefix, &nomem);
    h->token = copy_or_null(o->token, &nomem);
    h->max_body = o->max_body_bytes ? o->max_body_bytes : DEFAULT_MAX_BODY;
    unsigned n = o->threads ? o->threads : DEFAULT_THREADS;
    h->slots = nomem ? NULL : basalt_calloc(n, sizeof *h->slots);
    basalt_status st = h->slots ? BASALT_OK
                                : basalt_error_set(err, BASALT_NOMEM, "REST server: out of memory");
    /* One connection per request handled at once: a catalog is used by one
     * thread at a time, and separate connections let the database (not a
     * lock here) decide which of two commits wins. */
    for (unsigned i = 0; st == BASALT_OK && i < n; i++) {
        st = basalt_catalog_open(o->catalog_uri, o->catalog_name, true, &h->slots[i].catalog,
                                 err);
        if (st == BASALT_OK)
            h->n_slots = i + 1;
        if (st == BASALT_OK && o->warehouse && *o->warehouse)
            st = basalt_catalog_set_warehouse(h->slots[i].catalog, o->warehouse, err);
        if (st == BASALT_OK && o->store)
            basalt_catalog_set_store(h->slots[i].catalog, o->store);
        /* The server's own connection to a SQL catalog's database, opened
         * now so that an unreachable database fails the start. */
        if (st == BASALT_OK && h->slots[i].catalog->kind == BASALT_CATALOG_KIND_SQL)
            st = basalt_catalog_rest_sql_open(o->catalog_uri, h->slots[i].catalog,
                                              &h->slots[i].sql, err);
    }
    if (st == BASALT_OK)
        h->sql = h->slots[0].sql != NULL;
    if (st != BASALT_OK) {
        basalt_catalog_rest_handler_free(h);
        return basalt_error_context(err, st, "REST server");
    }
    *out = h;
    return BASALT_OK;
}

void basalt_catalog_rest_handler_free(struct basalt_catalog_rest_handler *h)
{
    if (!h)
        return;
    for (unsigned i = 0; h->slots && i < h->n_slots; i++) {
        basalt_catalog_rest_sql_close(h->slots[i].sql);
        basalt_catalog_close(h->slots[i].catalog);
    }
    basalt_free(h->slots);
    basalt_free(h->prefix);
    basalt_free(h->token);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->freed);
    basalt_free(h);
}

struct basalt_catalog_rest_slot *basalt_catalog_rest_slot_take(
    struct basalt_catalog_rest_handler *h)
{
    pthread_mutex_lock(&h->lock);
    struct basalt_catalog_rest_slot *slot = NULL;
    while (!slot) {
        for (unsigned i = 0; i < h->n_slots && !slot; i++)
            if (!h->slots[i].busy)
                slot = &h->slots[i];
        if (!slot)
            pthread_cond_wait(&h->freed, &h->lock);
    }
    slot->busy = true;
    pthread_mutex_unlock(&h->lock);
    return slot;
}

void basalt_catalog_rest_slot_give(struct basalt_catalog_rest_handler *h,
                                   struct basalt_catalog_rest_slot *slot)
{
    pthread_mutex_lock(&h->lock);
    slot->busy = false;
    pthread_cond_signal(&h->freed);
    pthread_mutex_unlock(&h->lock);
}

/* Compares all of both strings whatever they hold, so the time taken does
 * not tell how much of a guessed token was right. */
static bool same_secret(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++)
        diff |= (unsigned char)(a[i] ^ b[lb ? i % lb : 0]);
    return diff == 0;
}

static bool authorized(const struct basalt_catalog_rest_handler *h,
                       const struct basalt_catalog_rest_request *req)
{
    if (!h->token)
        return true;
    const char *auth = basalt_catalog_rest_header(req, "Authorization");
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
        return false;
    auth += 7;
    while (*auth == ' ')
        auth++;
    return same_secret(auth, h->token);
}

void basalt_catalog_rest_response_reset(struct basalt_catalog_rest_response *r)
{
    if (!r)
        return;
    basalt_free(r->body);
    memset(r, 0, sizeof *r);
}

void basalt_catalog_rest_handle(struct basalt_catalog_rest_handler *h,
                                const struct basalt_catalog_rest_request *req,
                                struct basalt_catalog_rest_response *out)
{
    memset(out, 0, sizeof *out);
    const char *path = req->path ? req->path : "";
    const char *method = req->method ? req->method : "";
    if (req->body_len > h->max_body) {
        basalt_catalog_rest_error(out, 413, "BadRequestException",
                                  "request body of %zu bytes is over the limit of %zu",
                                  req->body_len, h->max_body);
        return;
    }
    if (!authorized(h, req)) {
        basalt_catalog_rest_error(out, 401, "NotAuthorizedException",
                                  "a valid bearer token is required");
        basalt_catalog_rest_add_header(out, "WWW-Authenticate", "Bearer");
        return;
    }
    if (strncmp(path, "/v1/", 4) != 0) {
        basalt_catalog_rest_error(out, 404, "NotFoundException", "no route for %.16s %.300s",
                                  method, path);
        return;
    }
    basalt_catalog_rest_route(h, req, path + 4, out);
}
