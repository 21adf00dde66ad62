/* Authenticating Azure requests (Shared Key, re-signed on every attempt) and
 * reading the service's error documents. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "auth/azure_sign.h"
#include "azure/azure.h"

/* RFC 1123 by hand: strftime's day and month names follow the locale. */
static void rfc1123_now(char out[32])
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    /* Formatted with room for any int (the compiler cannot see the ranges
     * gmtime_r keeps); the real text is 29 characters. */
    char text[96];
    snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday % 7],
             tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
             tm.tm_sec);
    snprintf(out, 32, "%.31s", text);
}

static basalt_status sign_shared_key(const struct basalt_http_signer *base, const char *method,
                                     const char *url, struct basalt_http_headers *h,
                                     const char *payload_hash, uint64_t body_len,
                                     struct basalt_error *err)
{
    (void)payload_hash;
    const struct basalt_azure_signer *s = (const struct basalt_azure_signer *)base;
    char date[32];
    rfc1123_now(date);
    basalt_status st = basalt_http_headers_add(h, "x-ms-date", err, "%s", date);
    if (st != BASALT_OK)
        return st;
    /* Path and query as sent: after "scheme://host", up to and after '?'. */
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    const char *q = strchr(host, '?');
    const char *slash = strchr(host, '/');
    if (slash && q && slash > q)
        slash = NULL;
    size_t plen = slash ? (q ? (size_t)(q - slash) : strlen(slash)) : 0;
    char path[BASALT_AZURE_URL_MAX] = "/";
    if (plen >= sizeof path)
        return basalt_error_set(err, BASALT_LIMIT, "azure: URL too long to sign");
    if (plen) {
        memcpy(path, slash, plen);
        path[plen] = '\0';
    }
    /* Content-Length is signed as curl will send it: a body's length, and
     * nothing for requests without one. */
    struct basalt_azure_header signed_headers[BASALT_HTTP_MAX_HEADERS + 1];
    size_t n = 0;
    for (size_t i = 0; i < h->count; i++)
        signed_headers[n++] = (struct basalt_azure_header){h->name[i], h->value[i]};
    char length[24];
    if (body_len > 0) {
        snprintf(length, sizeof length, "%llu", (unsigned long long)body_len);
        signed_headers[n++] = (struct basalt_azure_header){"Content-Length", length};
    }
    struct basalt_azure_request req = {.method = method, .account = s->config->account,
                                       .path = path, .query = q ? q + 1 : "",
                                       .headers = signed_headers, .header_count = n};
    char *authorization = NULL;
    st = basalt_azure_sign_shared_key(&req, s->config->key, &authorization, NULL, err);
    if (st == BASALT_OK)
        st = basalt_http_headers_add(h, "Authorization", err, "%s", authorization);
    basalt_free(authorization);
    return st;
}

void basalt_azure_signer_init(struct basalt_azure_signer *s,
                              const struct basalt_io_azure_config *config)
{
    s->base.sign = sign_shared_key;
    s->config = config;
}

const struct basalt_http_signer *basalt_azure_signer_get(const struct basalt_io_store *store)
{
    const struct basalt_io_azure_config *c = &store->azure;
    if (c->anonymous || (c->sas_token && c->sas_token[0]) || !c->key || !c->account)
        return NULL;
    return &store->azure_signer.base;
}

basalt_status basalt_azure_headers_init(struct basalt_http_headers *h, struct basalt_error *err)
{
    basalt_http_headers_init(h);
    return basalt_http_headers_add(h, "x-ms-version", err, "%s", BASALT_AZURE_VERSION);
}

/* ------------------------------------------------------------------ errors */

static basalt_status status_for(long http, const char *code)
{
    if (http == 404 || strcmp(code, "BlobNotFound") == 0 ||
        strcmp(code, "ContainerNotFound") == 0)
        return BASALT_NOT_FOUND;
    if (http == 401 || http == 403)
        return BASALT_AUTH;
    if (http == 409 || http == 412)
        return BASALT_CONFLICT;
    return BASALT_IO;
}

basalt_status basalt_azure_error(const struct basalt_http_response *resp, const char *method,
                                 const char *name, struct basalt_error *err)
{
    return basalt_remote_error_document(resp, method, name, status_for, " (no such blob)", err);
}
