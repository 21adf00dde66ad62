/* s3:// and gs:// URIs to request URLs: bucket addressing and key encoding. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "s3/s3.h"

basalt_status basalt_s3_target_parse(struct basalt_io_store *store, const char *uri,
                                     struct basalt_s3_target *out, struct basalt_error *err)
{
    const char *rest;
    memset(out, 0, sizeof *out);
    if (!store)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: a remote URI needs an object store (none was given)",
                                uri);
    if (strncmp(uri, "s3://", 5) == 0)
        rest = uri + 5;
    else if (strncmp(uri, "s3a://", 6) == 0)
        rest = uri + 6;
    else if (strncmp(uri, "gs://", 5) == 0) {
        rest = uri + 5;
        out->gcs = true;
    } else
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: not an s3:// or gs:// URI", uri);
    size_t blen = strcspn(rest, "/");
    if (blen == 0 || blen >= sizeof out->bucket)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: no bucket name (or one too long)",
                                uri);
    memcpy(out->bucket, rest, blen);
    out->bucket[blen] = '\0';
    out->key = rest[blen] == '/' ? rest + blen + 1 : rest + blen;
    out->config = out->gcs ? &store->gcs : &store->s3;
    return BASALT_OK;
}

/* Path style for IP addresses and localhost: there is no DNS name per bucket
 * there. */
static bool host_wants_path_style(const char *host, size_t len)
{
    if (len >= 9 && strncasecmp(host, "localhost", 9) == 0)
        return true;
    if (len > 0 && host[0] == '[')
        return true; /* IPv6 literal */
    for (size_t i = 0; i < len; i++)
        if (!((host[i] >= '0' && host[i] <= '9') || host[i] == '.'))
            return false;
    return true;
}

basalt_status basalt_s3_url(const struct basalt_s3_target *t, const char *key, const char *query,
                            char *url, size_t cap, struct basalt_error *err)
{
    const struct basalt_io_s3_config *c = t->config;
    char path[BASALT_S3_URL_MAX];
    path[0] = '\0';
    if (key) {
        basalt_status st = basalt_http_uri_encode(key, strlen(key), true, path, sizeof path, err);
        if (st != BASALT_OK)
            return st;
    }
    const char *q = query && query[0] ? "?" : "";
    const char *qs = query ? query : "";
    int w;
    if (c->endpoint) {
        const char *sep = strstr(c->endpoint, "://");
        const char *host = sep ? sep + 3 : c->endpoint;
        size_t scheme_len = sep ? (size_t)(host - c->endpoint) : 0;
        size_t host_len = strcspn(host, "/");
        size_t hostname_len = strcspn(host, ":/");
        bool path_style = c->addressing == BASALT_IO_ADDRESSING_PATH ||
                          (c->addressing == BASALT_IO_ADDRESSING_AUTO &&
                           host_wants_path_style(host, hostname_len));
        if (path_style)
            w = snprintf(url, cap, "%.*s%.*s/%s/%s%s%s", (int)scheme_len, c->endpoint,
                         (int)host_len, host, t->bucket, path, q, qs);
        else
            w = snprintf(url, cap, "%.*s%s.%.*s/%s%s%s", (int)scheme_len, c->endpoint, t->bucket,
                         (int)host_len, host, path, q, qs);
    } else if (t->gcs) {
        w = snprintf(url, cap, "https://storage.googleapis.com/%s/%s%s%s", t->bucket, path, q, qs);
    } else {
        const char *region = c->region ? c->region : "us-east-1";
        /* Dotted bucket names break the wildcard certificate of
         * virtual-host addressing: they go path style. */
        bool path_style = c->addressing == BASALT_IO_ADDRESSING_PATH ||
                          (c->addressing == BASALT_IO_ADDRESSING_AUTO && strchr(t->bucket, '.'));
        if (path_style)
            w = snprintf(url, cap, "https://s3.%s.amazonaws.com/%s/%s%s%s", region, t->bucket,
                         path, q, qs);
        else
            w = snprintf(url, cap, "https://%s.s3.%s.amazonaws.com/%s%s%s", t->bucket, region,
                         path, q, qs);
    }
    if (w < 0 || (size_t)w >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "s3://%s/%s: URL too long", t->bucket,
                                key ? key : "");
    return BASALT_OK;
}
