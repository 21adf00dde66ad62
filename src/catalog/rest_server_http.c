/* The REST server's listener: libmicrohttpd parses HTTP, this file only
 * collects each request (its target as received, headers, a body up to the
 * limit) and hands it to basalt_catalog_rest_handle. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#include "rest_server_internal.h"

/* Headers a request may bring; more are ignored (the handler looks at
 * Authorization and If-None-Match only). */
#define MAX_HEADERS 64
/* Seconds an idle connection is kept. */
#define IDLE_TIMEOUT_S 120u

struct basalt_catalog_rest_server {
    struct basalt_catalog_rest_handler *handler;
    struct MHD_Daemon *daemon;
    uint16_t port;
};

/* One request being received. */
struct pending {
    char *target;  /* path and query as received: not yet percent-decoded */
    char *body;
    size_t len, cap;
    bool started;
    bool too_large;
};

/* libmicrohttpd hands the access handler a decoded path, which cannot tell
 * "a%2Fb" (one table name) from "a/b" (two segments); this callback sees
 * the target as received, and its result becomes the request's context. */
static void *on_target(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    struct pending *p = basalt_calloc(1, sizeof *p);
    if (p && !(p->target = basalt_strdup(uri))) {
        basalt_free(p);
        p = NULL;
    }
    return p;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **ctx,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls;
    (void)conn;
    (void)code;
    struct pending *p = *ctx;
    if (p) {
        basalt_free(p->target);
        basalt_free(p->body);
        basalt_free(p);
    }
    *ctx = NULL;
}

static enum MHD_Result send_response(struct MHD_Connection *conn,
                                     const struct basalt_catalog_rest_response *r)
{
    struct MHD_Response *m = MHD_create_response_from_buffer(
        r->body_len, r->body ? r->body : (void *)"", MHD_RESPMEM_MUST_COPY);
    if (!m)
        return MHD_NO;
    if (r->body)
        MHD_add_response_header(m, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    for (uint32_t i = 0; i < r->n_headers; i++)
        MHD_add_response_header(m, r->headers[i].name, r->headers[i].value);
    enum MHD_Result ok = MHD_queue_response(conn, (unsigned)r->status, m);
    MHD_destroy_response(m);
    return ok;
}

static enum MHD_Result too_large(struct MHD_Connection *conn, size_t limit)
{
    struct basalt_catalog_rest_response r = {0};
    basalt_catalog_rest_error(&r, 413, "BadRequestException",
                              "request body is over the limit of %zu bytes", limit);
    enum MHD_Result ok = send_response(conn, &r);
    basalt_catalog_rest_response_reset(&r);
    return ok;
}

struct header_list {
    struct basalt_iceberg_kv items[MAX_HEADERS];
    uint32_t n;
};

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void)kind;
    struct header_list *h = cls;
    if (h->n < MAX_HEADERS)
        h->items[h->n++] = (struct basalt_iceberg_kv){key, value ? value : ""};
    return MHD_YES;
}

/* Appends upload data, or notes that the body went over the limit (its
 * rest is read and dropped, so the connection stays usable). */
static void take_data(struct pending *p, const char *data, size_t n, size_t limit)
{
    if (p->too_large || n > limit - p->len) {
        p->too_large = true;
        return;
    }
    if (p->len + n > p->cap) {
        size_t cap = p->cap ? p->cap : 4096;
        while (cap < p->len + n)
            cap *= 2;
        char *grown = basalt_realloc(p->body, cap);
        if (!grown) {
            p->too_large = true; /* answered as 413: nothing better to say */
            return;
        }
        p->body = grown;
        p->cap = cap;
    }
    memcpy(p->body + p->len, data, n);
    p->len += n;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size, void **ctx)
{
    (void)url;
    (void)version;
    struct basalt_catalog_rest_server *s = cls;
    struct pending *p = *ctx;
    size_t limit = s->handler->max_body;
    if (!p)
        return MHD_NO; /* out of memory when the request began */
    if (!p->started) {
        p->started = true;
        /* Refused before the body is read. */
        const char *declared =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (declared && strtoull(declared, NULL, 10) > limit)
            return too_large(conn, limit);
        return MHD_YES;
    }
    if (*upload_data_size) {
        take_data(p, upload_data, *upload_data_size, limit);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (p->too_large)
        return too_large(conn, limit);
    struct header_list headers;
    headers.n = 0;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header, &headers);
    char *query = strchr(p->target, '?');
    if (query)
        *query++ = '\0';
    struct basalt_catalog_rest_request req = {
        .method = method,
        .path = p->target,
        .query = query,
        .headers = headers.items,
        .n_headers = headers.n,
        .body = p->body,
        .body_len = p->len,
    };
    struct basalt_catalog_rest_response resp;
    basalt_catalog_rest_handle(s->handler, &req, &resp);
    enum MHD_Result ok = send_response(conn, &resp);
    basalt_catalog_rest_response_reset(&resp);
    return ok;
}

/* The listening address: IPv4 or IPv6 literal. */
static basalt_status parse_address(const char *text, uint16_t port,
                                   struct sockaddr_storage *addr, bool *v6,
                                   struct basalt_error *err)
{
    memset(addr, 0, sizeof *addr);
    struct sockaddr_in *a4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;
    if (inet_pton(AF_INET, text, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(port);
        *v6 = false;
        return BASALT_OK;
    }
    if (inet_pton(AF_INET6, text, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(port);
        *v6 = true;
        return BASALT_OK;
    }
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "REST server: bind address '%.100s' is not an IPv4 or IPv6 address",
                            text);
}

basalt_status basalt_catalog_rest_server_start(
    const struct basalt_catalog_rest_server_options *options,
    struct basalt_catalog_rest_server **out, struct basalt_error *err)
{
    *out = NULL;
    const char *bind = options && options->bind_address && *options->bind_address
                           ? options->bind_address
                           : "127.0.0.1";
    struct sockaddr_storage addr;
    bool v6 = false;
    basalt_status st = parse_address(bind, options ? options->port : 0, &addr, &v6, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_catalog_rest_server *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "REST server: out of memory");
    st = basalt_catalog_rest_handler_new(options, &s->handler, err);
    if (st != BASALT_OK) {
        basalt_free(s);
        return st;
    }
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0);
    errno = 0;
    /* As many listener threads as catalog connections: a request holds
     * both for its duration. */
    s->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_URI_LOG_CALLBACK, on_target, NULL, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
        NULL, MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, MHD_OPTION_THREAD_POOL_SIZE,
        s->handler->n_slots, MHD_OPTION_END);
    if (!s->daemon) {
        int e = errno;
        basalt_catalog_rest_handler_free(s->handler);
        basalt_free(s);
        return basalt_error_set(err, BASALT_IO, "REST server: cannot listen on %s port %u%s%s",
                                bind, (unsigned)(options ? options->port : 0), e ? ": " : "",
                                e ? strerror(e) : "");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : (options ? options->port : 0);
    *out = s;
    return BASALT_OK;
}

uint16_t basalt_catalog_rest_server_port(const struct basalt_catalog_rest_server *s)
{
    return s->port;
}

void basalt_catalog_rest_server_stop(struct basalt_catalog_rest_server *s)
{
    if (!s)
        return;
    /* Waits for the threads, so no request is still using the handler. */
    MHD_stop_daemon(s->daemon);
    basalt_catalog_rest_handler_free(s->handler);
    basalt_free(s);
}
