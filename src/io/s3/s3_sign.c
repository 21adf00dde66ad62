/* Signing S3 and GCS requests: SigV4 headers on each attempt (the Range of a
 * resumed read changes what is signed), presigned URLs, or a GCS bearer
 * token. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "auth/sigv4.h"
#include "s3/s3.h"

/* Host, path and query of an absolute URL, pointing into `buf`. */
struct url_parts {
    char buf[BASALT_S3_URL_MAX + 4096];
    const char *host;
    const char *path;
    const char *query;
};

static basalt_status split_url(const char *url, struct url_parts *p, struct basalt_error *err)
{
    size_t n = strlen(url);
    if (n >= sizeof p->buf)
        return basalt_error_set(err, BASALT_LIMIT, "URL too long to sign");
    memcpy(p->buf, url, n + 1);
    char *host = strstr(p->buf, "://");
    if (!host)
        return basalt_error_set(err, BASALT_INVALID_ARG, "not an absolute URL");
    host += 3;
    char *slash = strchr(host, '/');
    char *q = strchr(host, '?');
    p->query = "";
    if (q) {
        *q = '\0';
        p->query = q + 1;
    }
    if (slash && (!q || slash < q)) {
        /* Move the host out of the way of the path's NUL: copy it to the
         * front of the buffer, which held the scheme. */
        size_t hlen = (size_t)(slash - host);
        memmove(p->buf, host, hlen);
        p->buf[hlen] = '\0';
        p->host = p->buf;
        p->path = slash;
    } else {
        p->host = host;
        p->path = "/";
    }
    return BASALT_OK;
}

static const char *region_of(const struct basalt_s3_signer *s)
{
    return s->config->region ? s->config->region : "us-east-1";
}

static void params_init(const struct basalt_s3_signer *s, struct basalt_sigv4_params *p)
{
    memset(p, 0, sizeof *p);
    p->region = region_of(s);
    p->service = "s3";
    p->time = (int64_t)time(NULL);
    p->credentials.access_key_id = s->config->access_key_id;
    p->credentials.secret_access_key = s->config->secret_access_key;
    p->credentials.session_token = s->config->session_token;
    p->flags = BASALT_SIGV4_FLAGS_S3;
    p->cache = s->cache;
}

static basalt_status sign_s3(const struct basalt_http_signer *base, const char *method,
                             const char *url, struct basalt_http_headers *h,
                             const char *payload_hash, uint64_t body_len,
                             struct basalt_error *err)
{
    (void)body_len;
    const struct basalt_s3_signer *s = (const struct basalt_s3_signer *)base;
    if (s->bearer)
        return basalt_http_headers_add(h, "Authorization", err, "Bearer %s", s->bearer);
    struct url_parts parts;
    basalt_status st = split_url(url, &parts, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_sigv4_header signed_headers[BASALT_HTTP_MAX_HEADERS];
    for (size_t i = 0; i < h->count; i++)
        signed_headers[i] = (struct basalt_sigv4_header){h->name[i], h->value[i]};
    struct basalt_sigv4_request req = {.method = method, .host = parts.host,
                                       .path = parts.path, .query = parts.query,
                                       .headers = signed_headers, .header_count = h->count,
                                       .payload_hash = payload_hash};
    struct basalt_sigv4_params params;
    params_init(s, &params);
    struct basalt_sigv4_result out;
    memset(&out, 0, sizeof out);
    st = basalt_sigv4_sign_headers(&req, &params, &out, err);
    for (size_t i = 0; i < out.header_count && st == BASALT_OK; i++)
        st = basalt_http_headers_add(h, out.headers[i].name, err, "%s", out.headers[i].value);
    basalt_sigv4_result_reset(&out);
    return st;
}

void basalt_s3_signer_init(struct basalt_s3_signer *s, const struct basalt_io_s3_config *config,
                           const char *bearer)
{
    s->base.sign = sign_s3;
    s->config = config;
    s->bearer = bearer;
    s->cache = &s->key_cache;
    basalt_sigv4_key_cache_init(&s->key_cache);
}

void basalt_s3_signer_reset(struct basalt_s3_signer *s)
{
    if (s->base.sign)
        basalt_sigv4_key_cache_reset(&s->key_cache);
    s->base.sign = NULL;
}

const struct basalt_http_signer *basalt_s3_signer_get(const struct basalt_s3_signer *s)
{
    if (s->bearer)
        return &s->base;
    if (s->config->anonymous || !s->config->access_key_id || !s->config->secret_access_key)
        return NULL;
    return &s->base;
}

basalt_status basalt_s3_presign(struct basalt_io_store *store, const char *uri,
                                const char *method, uint32_t expires_s, char *url, size_t cap,
                                struct basalt_error *err)
{
    struct basalt_s3_target t;
    basalt_status st = basalt_s3_target_parse(store, uri, &t, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_s3_signer *s = t.gcs ? &store->gcs_signer : &store->s3_signer;
    if (!s->config->access_key_id || !s->config->secret_access_key || s->config->anonymous)
        return basalt_error_set(err, BASALT_AUTH, "%.300s: presigning needs an access key", uri);
    char plain[BASALT_S3_URL_MAX];
    if ((st = basalt_s3_url(&t, t.key, NULL, plain, sizeof plain, err)) != BASALT_OK)
        return st;
    struct url_parts parts;
    if ((st = split_url(plain, &parts, err)) != BASALT_OK)
        return st;
    struct basalt_sigv4_request req = {.method = method, .host = parts.host, .path = parts.path,
                                       .query = "", .payload_hash =
                                                        BASALT_SIGV4_UNSIGNED_PAYLOAD};
    struct basalt_sigv4_params params;
    params_init(s, &params);
    params.flags = 0;
    params.expires = expires_s;
    struct basalt_sigv4_result out;
    memset(&out, 0, sizeof out);
    st = basalt_sigv4_presign(&req, &params, &out, err);
    if (st == BASALT_OK) {
        int w = snprintf(url, cap, "%s?%s", plain, out.query);
        if (w < 0 || (size_t)w >= cap)
            st = basalt_error_set(err, BASALT_LIMIT, "%.300s: presigned URL longer than %zu",
                                  uri, cap);
    }
    basalt_sigv4_result_reset(&out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%.300s", uri);
    return BASALT_OK;
}
