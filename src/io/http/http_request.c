/* The public HTTP request (io.h): one request on a store's client, for
 * protocols above io that speak HTTP themselves. */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/sigv4.h"
#include "store/store.h"

/* SigV4 for an AWS service other than S3, with the store's S3 credentials:
 * signed again on each attempt, so a retry carries a fresh X-Amz-Date. */
struct aws_signer {
    struct basalt_http_signer base;
    const struct basalt_io_s3_config *config;
    const char *service;
    const char *region;
    struct basalt_sigv4_key_cache *cache;
};

static basalt_status sign_aws(const struct basalt_http_signer *base, const char *method,
                              const char *url, struct basalt_http_headers *h,
                              const char *payload_hash, uint64_t body_len,
                              struct basalt_error *err)
{
    (void)body_len;
    const struct aws_signer *s = (const struct aws_signer *)base;
    /* "scheme://host[:port]/path?query" */
    const char *host = strstr(url, "://");
    if (!host)
        return basalt_error_set(err, BASALT_INVALID_ARG, "not an absolute URL");
    host += 3;
    size_t host_len = strcspn(host, "/?");
    const char *rest = host + host_len;
    const char *q = strchr(rest, '?');
    size_t path_len = q ? (size_t)(q - rest) : strlen(rest);
    char *host_copy = basalt_strndup(host, host_len);
    char *path_copy = basalt_strndup(rest, path_len);
    if (!host_copy || !path_copy) {
        basalt_free(host_copy);
        basalt_free(path_copy);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory signing a request");
    }
    struct basalt_sigv4_header signed_headers[BASALT_HTTP_MAX_HEADERS];
    for (size_t i = 0; i < h->count; i++)
        signed_headers[i] = (struct basalt_sigv4_header){h->name[i], h->value[i]};
    struct basalt_sigv4_request req = {.method = method, .host = host_copy,
                                       .path = path_copy, .query = q ? q + 1 : "",
                                       .headers = signed_headers, .header_count = h->count,
                                       .payload_hash = payload_hash};
    struct basalt_sigv4_params params;
    memset(&params, 0, sizeof params);
    params.region = s->region;
    params.service = s->service;
    params.time = (int64_t)time(NULL);
    params.credentials.access_key_id = s->config->access_key_id;
    params.credentials.secret_access_key = s->config->secret_access_key;
    params.credentials.session_token = s->config->session_token;
    params.flags = BASALT_SIGV4_FLAGS_DEFAULT;
    params.cache = s->cache;
    struct basalt_sigv4_result out;
    memset(&out, 0, sizeof out);
    basalt_status st = basalt_sigv4_sign_headers(&req, &params, &out, err);
    for (size_t i = 0; i < out.header_count && st == BASALT_OK; i++)
        st = basalt_http_headers_add(h, out.headers[i].name, err, "%s", out.headers[i].value);
    basalt_sigv4_result_reset(&out);
    basalt_free(host_copy);
    basalt_free(path_copy);
    return st;
}

const char *basalt_io_store_aws_region(const struct basalt_io_store *store)
{
    return store && store->s3.region && *store->s3.region ? store->s3.region : "us-east-1";
}

void basalt_io_http_response_reset(struct basalt_io_http_response *resp)
{
    if (!resp)
        return;
    basalt_free(resp->body);
    memset(resp, 0, sizeof *resp);
}

basalt_status basalt_io_http_request(struct basalt_io_store *store,
                                     const struct basalt_io_http_request *req,
                                     struct basalt_io_http_response *resp,
                                     struct basalt_error *err)
{
    memset(resp, 0, sizeof *resp);
    if (!req || !req->method || !req->url)
        return basalt_error_set(err, BASALT_INVALID_ARG, "an HTTP request needs a method and a URL");
    if (strncasecmp(req->url, "http://", 7) != 0 && strncasecmp(req->url, "https://", 8) != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: not an http(s) URL", req->url);
    if (req->n_headers > 16)
        return basalt_error_set(err, BASALT_LIMIT, "%zu request headers (at most 16)",
                                req->n_headers);
    struct basalt_http_client *client = NULL;
    basalt_status st = basalt_io_store_http(store, req->url, &client, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_http_headers h;
    basalt_http_headers_init(&h);
    for (size_t i = 0; st == BASALT_OK && i < req->n_headers; i++) {
        const struct basalt_io_http_header *hd = &req->headers[i];
        if (!hd->name || !*hd->name || strpbrk(hd->name, ":\r\n") ||
            (hd->value && strpbrk(hd->value, "\r\n")))
            return basalt_error_set(err, BASALT_INVALID_ARG, "malformed request header '%.60s'",
                                    hd->name ? hd->name : "");
        st = basalt_http_headers_add(&h, hd->name, err, "%s", hd->value ? hd->value : "");
    }
    if (st != BASALT_OK)
        return st;
    enum basalt_http_retry retry = req->retry == BASALT_IO_HTTP_RETRY_UNSENT
                                       ? BASALT_HTTP_RETRY_UNSENT
                                       : BASALT_HTTP_RETRY_IDEMPOTENT;
    struct aws_signer signer = {
        .base.sign = sign_aws,
        .config = &store->s3,
        .service = req->aws_service,
        .region = req->aws_region && *req->aws_region ? req->aws_region
                                                      : basalt_io_store_aws_region(store),
        .cache = store->s3_signer.cache,
    };
    bool sign = req->aws_service && *req->aws_service && store->s3.access_key_id &&
                store->s3.secret_access_key && !store->s3.anonymous;
    struct basalt_http_request r = {
        .method = req->method,
        .url = req->url,
        .headers = &h,
        .signer = sign ? &signer.base : NULL,
        .body = req->body,
        .body_len = req->body_len,
        .retry = retry,
        .max_body = req->max_body,
    };
    struct basalt_http_response out;
    basalt_http_response_init(&out);
    st = basalt_http_execute(client, &r, &out, err);
    if (st != BASALT_OK) {
        basalt_http_response_free(&out);
        return st;
    }
    resp->status = out.status;
    resp->body = out.body; /* NUL-terminated by the client */
    resp->body_len = out.body_len;
    resp->attempts = out.attempts;
    return BASALT_OK;
}
