/* The REST server's listener over real sockets (libcurl as the client): a
 * port picked by the kernel, headers and bodies reaching the handler, the
 * path passed on still encoded, the body limit enforced both from
 * Content-Length and while a chunked body streams in, and a clean stop. */
#include <curl/curl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basalt/catalog.h"
#include "test.h"

struct reply {
    long status;
    char body[4096];
    size_t len;
    char content_type[64];
    char www_authenticate[64];
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    struct reply *r = ctx;
    size_t take = size * n;
    if (take > sizeof r->body - 1 - r->len)
        take = sizeof r->body - 1 - r->len;
    memcpy(r->body + r->len, data, take);
    r->len += take;
    r->body[r->len] = '\0';
    return size * n;
}

static void header_value(const char *line, size_t len, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    if (len <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return;
    const char *v = line + nl + 1;
    while (*v == ' ')
        v++;
    size_t vl = (size_t)(line + len - v);
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
        vl--;
    snprintf(out, cap, "%.*s", (int)vl, v);
}

static size_t on_header(char *line, size_t size, size_t n, void *ctx)
{
    struct reply *r = ctx;
    header_value(line, size * n, "Content-Type", r->content_type, sizeof r->content_type);
    header_value(line, size * n, "WWW-Authenticate", r->www_authenticate,
                 sizeof r->www_authenticate);
    return size * n;
}

/* A body streamed in chunks of 1000 bytes, `left` of them. */
struct stream {
    int left;
};

static size_t on_read(char *buf, size_t size, size_t n, void *ctx)
{
    struct stream *s = ctx;
    if (s->left == 0 || size * n < 1000)
        return 0;
    s->left--;
    memset(buf, ' ', 1000);
    return 1000;
}

/* One request; `body` NULL: none, `chunks` > 0: a chunked body instead. */
static bool request(uint16_t port, const char *method, const char *path, const char *token,
                    const char *body, int chunks, struct reply *r)
{
    memset(r, 0, sizeof *r);
    CURL *curl = curl_easy_init();
    if (!curl)
        return false;
    char url[512], auth[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", (unsigned)port, path);
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        headers = curl_slist_append(headers, auth);
    }
    struct stream s = {chunks};
    if (chunks)
        headers = curl_slist_append(headers, "Transfer-Encoding: chunked");
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
    /* The path is sent exactly as written (no "../" folding). */
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    if (body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    } else if (chunks) {
        curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(curl, CURLOPT_READDATA, &s);
    }
    CURLcode rc = curl_easy_perform(curl);
    if (rc == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
    else if (rc != CURLE_COULDNT_CONNECT)
        fprintf(stderr, "  %s %s: %s\n", method, path, curl_easy_strerror(rc));
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rc == CURLE_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

TEST(rest_listener_serves_over_http)
{
    char dir[64], uri[128];
    snprintf(dir, sizeof dir, "/tmp/basalt-rest-http-XXXXXX");
    CHECK(mkdtemp(dir));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", dir);
    struct basalt_catalog_rest_server_options o;
    basalt_catalog_rest_server_options_init(&o);
    o.catalog_uri = uri;
    o.port = 0;
    o.token = "tok";
    o.max_body_bytes = 2048;
    o.threads = 2;
    struct basalt_catalog_rest_server *s = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_catalog_rest_server_start(&o, &s, &err), &err);
    uint16_t port = basalt_catalog_rest_server_port(s);
    CHECK(port != 0);
    struct reply r;
    CHECK(request(port, "GET", "/v1/config", "tok", NULL, 0, &r));
    CHECK_EQ(r.status, 200);
    CHECK_STR(r.content_type, "application/json");
    CHECK(strstr(r.body, "\"endpoints\""));
    CHECK(request(port, "GET", "/v1/config", NULL, NULL, 0, &r));
    CHECK_EQ(r.status, 401);
    CHECK_STR(r.www_authenticate, "Bearer");
    CHECK(strstr(r.body, "NotAuthorizedException"));
    CHECK(request(port, "POST", "/v1/namespaces", "tok", "{\"namespace\": [\"db\"]}", 0, &r));
    CHECK_EQ(r.status, 200);
    CHECK(request(port, "HEAD", "/v1/namespaces/db", "tok", NULL, 0, &r));
    CHECK_EQ(r.status, 204);
    CHECK_EQ(r.len, 0);
    /* "a%2Fb" is one namespace level, not two path segments. */
    CHECK(request(port, "GET", "/v1/namespaces/a%2Fb", "tok", NULL, 0, &r));
    CHECK_EQ(r.status, 404);
    CHECK_MSG(strstr(r.body, "NoSuchNamespaceException"), "%s", r.body);
    CHECK(request(port, "GET", "/v1/namespaces/db%1Fx/tables", "tok", NULL, 0, &r));
    CHECK_EQ(r.status, 404);
    CHECK(request(port, "GET", "/v1/namespaces", "tok", NULL, 0, &r));
    CHECK_EQ(r.status, 200);
    CHECK(strstr(r.body, "\"db\""));
    /* Over the limit: refused by Content-Length, and while streaming. */
    char big[4000];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[0] = '{';
    big[sizeof big - 2] = '}';
    CHECK(request(port, "POST", "/v1/namespaces", "tok", big, 0, &r));
    CHECK_EQ(r.status, 413);
    CHECK(strstr(r.body, "\"code\":413"));
    CHECK(request(port, "POST", "/v1/namespaces", "tok", NULL, 5, &r));
    CHECK_EQ(r.status, 413);
    CHECK(request(port, "POST", "/v1/namespaces", "tok", NULL, 1, &r));
    CHECK_EQ(r.status, 400); /* within the limit: blanks are not JSON */
    basalt_catalog_rest_server_stop(s);
    CHECK(!request(port, "GET", "/v1/config", "tok", NULL, 0, &r));
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TEST(rest_listener_refuses_what_it_cannot_bind)
{
    struct basalt_catalog_rest_server_options o;
    basalt_catalog_rest_server_options_init(&o);
    char dir[64], uri[128];
    snprintf(dir, sizeof dir, "/tmp/basalt-rest-bind-XXXXXX");
    CHECK(mkdtemp(dir));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", dir);
    o.catalog_uri = uri;
    o.bind_address = "not-an-address";
    struct basalt_catalog_rest_server *s = NULL, *second = NULL;
    struct basalt_error err;
    CHECK_STATUS(basalt_catalog_rest_server_start(&o, &s, &err), BASALT_INVALID_ARG, &err);
    o.bind_address = "127.0.0.1";
    o.port = 0;
    CHECK_OK(basalt_catalog_rest_server_start(&o, &s, &err), &err);
    o.port = basalt_catalog_rest_server_port(s);
    CHECK_STATUS(basalt_catalog_rest_server_start(&o, &second, &err), BASALT_IO, &err);
    CHECK(strstr(err.message, "cannot listen"));
    basalt_catalog_rest_server_stop(s);
    o.catalog_uri = NULL;
    CHECK_STATUS(basalt_catalog_rest_server_start(&o, &s, &err), BASALT_INVALID_ARG, &err);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
