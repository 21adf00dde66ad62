/* The public HTTP request (io.h): one request on a store's client, for
 * protocols above io that speak HTTP themselves. */
#include <string.h>
#include <strings.h>

#include "store/store.h"

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
    struct basalt_http_request r = {
        .method = req->method,
        .url = req->url,
        .headers = &h,
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
