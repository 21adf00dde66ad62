/* The scripted transport of the REST client tests (rest_client_fake.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rest_client_fake.h"

const char fake_config[] =
    "{\"defaults\": {\"clients\": \"1\"}, \"overrides\": {\"prefix\": \"p\"}, \"endpoints\": ["
    "\"GET /v1/{prefix}/namespaces\", \"POST /v1/{prefix}/namespaces\","
    "\"GET /v1/{prefix}/namespaces/{namespace}\","
    "\"GET /v1/{prefix}/namespaces/{namespace}/tables\","
    "\"POST /v1/{prefix}/namespaces/{namespace}/tables\","
    "\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}\","
    "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}\","
    "\"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}\","
    "\"POST /v1/{prefix}/namespaces/{namespace}/register\","
    "\"GET /v1/{prefix}/namespaces/{namespace}/views\","
    "\"GET /v1/{prefix}/namespaces/{namespace}/views/{view}\"]}";

static const char *header(const struct basalt_io_http_request *req, const char *name)
{
    for (size_t i = 0; i < req->n_headers; i++)
        if (strcasecmp(req->headers[i].name, name) == 0)
            return req->headers[i].value;
    return "";
}

basalt_status fake_transport(void *ctx, const struct basalt_io_http_request *req,
                             struct basalt_io_http_response *resp, struct basalt_error *err)
{
    struct fake *f = ctx;
    memset(resp, 0, sizeof *resp);
    if (f->n_log < FAKE_MAX_LOG) {
        struct fake_request *l = &f->log[f->n_log++];
        snprintf(l->method, sizeof l->method, "%s", req->method);
        snprintf(l->url, sizeof l->url, "%s", req->url);
        snprintf(l->authorization, sizeof l->authorization, "%s", header(req, "Authorization"));
        snprintf(l->delegation, sizeof l->delegation, "%s",
                 header(req, "X-Iceberg-Access-Delegation"));
        snprintf(l->content_type, sizeof l->content_type, "%s", header(req, "Content-Type"));
        snprintf(l->body, sizeof l->body, "%.*s", (int)(req->body_len < 4095 ? req->body_len : 4095),
                 req->body ? (const char *)req->body : "");
        l->retry = (int)req->retry;
    }
    for (size_t i = 0; i < f->n_replies && i < 64; i++) {
        const struct fake_reply *r = &f->replies[i];
        if (f->used[i] || strcmp(r->method, req->method) != 0 || !strstr(req->url, r->url_part))
            continue;
        f->used[i] = true;
        if (r->status == 0)
            return basalt_error_set(err, BASALT_IO, "%s %s: connection reset (fake)", req->method,
                                    req->url);
        const char *body = r->body ? r->body : "";
        resp->status = r->status;
        resp->body_len = strlen(body);
        resp->body = basalt_malloc(resp->body_len + 1);
        if (!resp->body)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        memcpy(resp->body, body, resp->body_len + 1);
        resp->attempts = 1;
        return BASALT_OK;
    }
    static const char missing[] =
        "{\"error\": {\"message\": \"no scripted reply\", \"type\": \"FakeException\", "
        "\"code\": 500}}";
    resp->status = 500;
    resp->body_len = sizeof missing - 1;
    resp->body = basalt_malloc(sizeof missing);
    if (!resp->body)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(resp->body, missing, sizeof missing);
    return BASALT_OK;
}

basalt_status fake_catalog(const char *uri, struct fake *f, const struct fake_reply *replies,
                           size_t n, struct basalt_catalog **out, struct basalt_error *err)
{
    memset(f, 0, sizeof *f);
    f->replies = replies;
    f->n_replies = n;
    basalt_status st = basalt_catalog_open(uri, NULL, false, out, err);
    if (st == BASALT_OK)
        basalt_rest_client_set_transport((*out)->rest, fake_transport, f);
    return st;
}

size_t fake_count(const struct fake *f, const char *method, const char *part)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n_log; i++)
        if (strcmp(f->log[i].method, method) == 0 && strstr(f->log[i].url, part))
            n++;
    return n;
}
