/* basalt_io_http_request against a scripted HTTP server on 127.0.0.1: the
 * headers and body sent as given, retries by mode (503 again for reads,
 * never for requests that may have acted), refusals of bad arguments. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basalt/io.h"
#include "test.h"

struct script {
    int fd;
    int port;
    pthread_t thread;
    const char *replies[4];
    int n_replies;
    int served;
    char requests[4][8192];
};

/* Reads one request (headers, then Content-Length bytes of body). */
static void read_request(int c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    while (n + 1 < cap) {
        ssize_t r = read(c, buf + n, cap - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        buf[n] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (!end)
            continue;
        const char *cl = strcasestr(buf, "\r\nContent-Length:");
        size_t body = cl ? strtoul(cl + 17, NULL, 10) : 0;
        if (n >= (size_t)(end + 4 - buf) + body)
            break;
    }
}

static void *serve(void *arg)
{
    struct script *s = arg;
    for (int i = 0; i < s->n_replies; i++) {
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        if (poll(&p, 1, 5000) <= 0)
            break;
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            break;
        read_request(c, s->requests[i], sizeof s->requests[i]);
        ssize_t w = write(c, s->replies[i], strlen(s->replies[i]));
        (void)w;
        close(c);
        s->served++;
    }
    return NULL;
}

static bool start(struct script *s)
{
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->fd, 8) != 0 ||
        getsockname(s->fd, (struct sockaddr *)&a, &len) != 0)
        return false;
    s->port = ntohs(a.sin_port);
    return pthread_create(&s->thread, NULL, serve, s) == 0;
}

static void stop(struct script *s)
{
    shutdown(s->fd, SHUT_RDWR);
    pthread_join(s->thread, NULL);
    close(s->fd);
}

static struct basalt_io_store *quick_store(void)
{
    struct basalt_io_options o;
    basalt_io_options_init(&o);
    o.retry_base_ms = 1;
    o.retry_max_ms = 2;
    o.max_attempts = 3;
    o.ignore_environment = true;
    struct basalt_io_store *s = NULL;
    return basalt_io_store_new(&o, &s, NULL) == BASALT_OK ? s : NULL;
}

#define R503 "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy"
#define R200 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"

TEST(http_request_retries_by_mode)
{
    struct basalt_io_store *store = quick_store();
    CHECK(store);
    char url[64];
    struct basalt_error err;
    basalt_error_init(&err);
    /* ANY: the 503 is tried again. */
    struct script s = {.replies = {R503, R200}, .n_replies = 2};
    CHECK(start(&s));
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/config", s.port);
    struct basalt_io_http_request req = {.method = "GET", .url = url};
    struct basalt_io_http_response resp;
    basalt_status st = basalt_io_http_request(store, &req, &resp, &err);
    stop(&s);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    CHECK_EQ(resp.status, 200);
    CHECK_EQ(resp.attempts, 2);
    CHECK_STR((const char *)resp.body, "ok");
    CHECK_EQ(resp.body_len, 2);
    basalt_io_http_response_reset(&resp);
    CHECK(resp.body == NULL);
    /* UNSENT: a 503 may have acted; it is the caller's answer. */
    struct script u = {.replies = {R503, R200}, .n_replies = 2};
    CHECK(start(&u));
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/commit", u.port);
    req = (struct basalt_io_http_request){.method = "POST", .url = url, .body = "{}",
                                          .body_len = 2, .retry = BASALT_IO_HTTP_RETRY_UNSENT};
    st = basalt_io_http_request(store, &req, &resp, &err);
    stop(&u);
    CHECK_EQ(st, BASALT_OK);
    CHECK_EQ(resp.status, 503);
    CHECK_EQ(resp.attempts, 1);
    CHECK_STR((const char *)resp.body, "busy");
    CHECK_EQ(u.served, 1);
    basalt_io_http_response_reset(&resp);
    basalt_io_store_free(store);
}

TEST(http_request_sends_headers_and_body)
{
    struct basalt_io_store *store = quick_store();
    CHECK(store);
    struct script s = {.replies = {R200}, .n_replies = 1};
    CHECK(start(&s));
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/p/namespaces?pageToken=", s.port);
    const struct basalt_io_http_header headers[] = {
        {"Authorization", "Bearer t0k"},
        {"Accept", "application/json"},
        {"Content-Type", "application/json"},
        {"X-Iceberg-Access-Delegation", "vended-credentials"},
    };
    struct basalt_io_http_request req = {.method = "POST", .url = url, .headers = headers,
                                         .n_headers = 4, .body = "{\"namespace\":[\"a\"]}",
                                         .body_len = 19, .retry = BASALT_IO_HTTP_RETRY_UNSENT};
    struct basalt_io_http_response resp;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_io_http_request(store, &req, &resp, &err);
    stop(&s);
    basalt_io_http_response_reset(&resp);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    const char *r = s.requests[0];
    CHECK(strncmp(r, "POST /v1/p/namespaces?pageToken= HTTP/1.1\r\n", 43) == 0);
    CHECK(strstr(r, "\r\nAuthorization: Bearer t0k\r\n"));
    CHECK(strstr(r, "\r\nAccept: application/json\r\n"));
    CHECK(strstr(r, "\r\nContent-Type: application/json\r\n"));
    CHECK(strstr(r, "\r\nX-Iceberg-Access-Delegation: vended-credentials\r\n"));
    CHECK(strstr(r, "\r\n\r\n{\"namespace\":[\"a\"]}"));
    /* One Accept, the caller's. */
    CHECK(strstr(strstr(r, "\r\nAccept:") + 1, "\r\nAccept:") == NULL);
    basalt_io_store_free(store);
}

TEST(http_request_refusals)
{
    struct basalt_io_store *store = quick_store();
    CHECK(store);
    struct basalt_io_http_response resp;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_io_http_request req = {.method = "GET", .url = "s3://bucket/key"};
    CHECK_EQ(basalt_io_http_request(store, &req, &resp, &err), BASALT_INVALID_ARG);
    const struct basalt_io_http_header bad[] = {{"X-Evil", "a\r\nInjected: yes"}};
    req = (struct basalt_io_http_request){.method = "GET", .url = "http://127.0.0.1:1/",
                                          .headers = bad, .n_headers = 1};
    CHECK_EQ(basalt_io_http_request(store, &req, &resp, &err), BASALT_INVALID_ARG);
    CHECK_EQ(basalt_io_http_request(NULL, &req, &resp, &err), BASALT_INVALID_ARG);
    /* Nothing listens on port 1: IO naming the request, after its retries
     * (a connection that never opened may always be tried again). */
    req = (struct basalt_io_http_request){.method = "POST", .url = "http://127.0.0.1:1/v1/x?secret=1",
                                          .retry = BASALT_IO_HTTP_RETRY_UNSENT};
    CHECK_EQ(basalt_io_http_request(store, &req, &resp, &err), BASALT_IO);
    CHECK(strstr(err.message, "POST http://127.0.0.1:1/v1/x: "));
    CHECK(strstr(err.message, "after 3 attempts"));
    CHECK(!strstr(err.message, "secret"));
    basalt_io_http_response_reset(&resp);
    basalt_io_store_free(store);
}
