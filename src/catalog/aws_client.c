/* Signed JSON calls to AWS services for the Glue and S3 Tables catalogs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws_internal.h"

basalt_status basalt_aws_client_init(struct basalt_aws_client *a, const char *service,
                                     const char *env_name, const char *region,
                                     struct basalt_error *err)
{
    memset(a, 0, sizeof *a);
    a->service = basalt_strdup(service);
    a->env_name = basalt_strdup(env_name);
    a->region = region && *region ? basalt_strdup(region) : NULL;
    if (!a->service || !a->env_name || (region && *region && !a->region)) {
        basalt_aws_client_reset(a);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

void basalt_aws_client_reset(struct basalt_aws_client *a)
{
    basalt_free(a->service);
    basalt_free(a->env_name);
    basalt_free(a->region);
    basalt_free(a->endpoint);
    basalt_io_store_free(a->own_store);
    memset(a, 0, sizeof *a);
}

void basalt_aws_client_set_store(struct basalt_aws_client *a, struct basalt_io_store *store)
{
    a->store = store;
}

static basalt_status store_of(struct basalt_aws_client *a, struct basalt_io_store **out,
                              struct basalt_error *err)
{
    if (!a->store && !a->own_store) {
        basalt_status st = basalt_io_store_new(NULL, &a->own_store, err);
        if (st != BASALT_OK)
            return st;
    }
    *out = a->store ? a->store : a->own_store;
    return BASALT_OK;
}

basalt_status basalt_aws_client_region(struct basalt_aws_client *a, const char **out,
                                       struct basalt_error *err)
{
    if (a->region) {
        *out = a->region;
        return BASALT_OK;
    }
    struct basalt_io_store *store;
    basalt_status st = store_of(a, &store, err);
    if (st == BASALT_OK)
        *out = basalt_io_store_aws_region(store);
    return st;
}

/* AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL, else the service's
 * public endpoint in the region. */
static basalt_status resolve_endpoint(struct basalt_aws_client *a, struct basalt_error *err)
{
    if (a->endpoint)
        return BASALT_OK;
    const char *env = getenv(a->env_name);
    if (!env || !*env)
        env = getenv("AWS_ENDPOINT_URL");
    char buf[512];
    if (env && *env) {
        snprintf(buf, sizeof buf, "%s", env);
    } else {
        const char *region;
        basalt_status st = basalt_aws_client_region(a, &region, err);
        if (st != BASALT_OK)
            return st;
        int w = snprintf(buf, sizeof buf, "https://%s.%s.amazonaws.com", a->service, region);
        if (w < 0 || (size_t)w >= sizeof buf)
            return basalt_error_set(err, BASALT_LIMIT, "region name too long");
    }
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '/')
        buf[--n] = '\0';
    if (!(a->endpoint = basalt_strdup(buf)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

basalt_status basalt_aws_append_encoded(struct basalt_buffer *b, const char *s, size_t len,
                                        struct basalt_error *err)
{
    static const char hex[] = "0123456789ABCDEF";
    basalt_status st = basalt_buffer_reserve(b, len * 3, err);
    for (size_t i = 0; st == BASALT_OK && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~';
        if (plain) {
            b->data[b->size++] = c;
        } else {
            b->data[b->size++] = '%';
            b->data[b->size++] = (uint8_t)hex[c >> 4];
            b->data[b->size++] = (uint8_t)hex[c & 15];
        }
    }
    return st;
}

static basalt_status map_error(long status, const char *type)
{
    if (strstr(type, "NotFound"))
        return BASALT_NOT_FOUND;
    if (strcmp(type, "AlreadyExistsException") == 0 ||
        strcmp(type, "ConcurrentModificationException") == 0 ||
        strcmp(type, "ConflictException") == 0)
        return BASALT_CONFLICT;
    if (strcmp(type, "AccessDeniedException") == 0 ||
        strcmp(type, "UnrecognizedClientException") == 0 ||
        strcmp(type, "InvalidSignatureException") == 0 ||
        strcmp(type, "ExpiredTokenException") == 0)
        return BASALT_AUTH;
    switch (status) {
    case 404: return BASALT_NOT_FOUND;
    case 409: return BASALT_CONFLICT;
    case 401:
    case 403: return BASALT_AUTH;
    default: break;
    }
    if (strcmp(type, "InvalidInputException") == 0 || strcmp(type, "ValidationException") == 0 ||
        strcmp(type, "BadRequestException") == 0)
        return BASALT_INVALID_ARG;
    return BASALT_IO;
}

/* The error type of an answer: "__type" (JSON 1.1, "ns#Name" or "Name"),
 * else "code"; the message: "message" or "Message". */
static void error_fields(const json_t *doc, char *type, size_t cap, const char **message)
{
    const char *t = json_string_value(json_object_get(doc, "__type"));
    if (!t)
        t = json_string_value(json_object_get(doc, "code"));
    if (t) {
        const char *hash = strrchr(t, '#');
        snprintf(type, cap, "%s", hash ? hash + 1 : t);
        /* "Name:http://internal.amazon.com/..." */
        type[strcspn(type, ":")] = '\0';
    }
    *message = json_string_value(json_object_get(doc, "message"));
    if (!*message)
        *message = json_string_value(json_object_get(doc, "Message"));
}

basalt_status basalt_aws_call(struct basalt_aws_client *a, const struct basalt_aws_call *call,
                              json_t **out, struct basalt_aws_answer *answer,
                              struct basalt_error *err)
{
    struct basalt_aws_answer local;
    if (!answer)
        answer = &local;
    memset(answer, 0, sizeof *answer);
    if (out)
        *out = NULL;
    struct basalt_io_store *store;
    const char *region;
    basalt_status st = store_of(a, &store, err);
    if (st == BASALT_OK)
        st = resolve_endpoint(a, err);
    if (st == BASALT_OK)
        st = basalt_aws_client_region(a, &region, err);
    if (st != BASALT_OK)
        return st;
    char *body = call->body ? json_dumps(call->body, JSON_COMPACT) : NULL;
    size_t url_len = strlen(a->endpoint) + strlen(call->path) + 2;
    char *url = basalt_malloc(url_len);
    if ((call->body && !body) || !url) {
        free(body);
        basalt_free(url);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    snprintf(url, url_len, "%s%s", a->endpoint, call->path);
    struct basalt_io_http_header headers[3];
    size_t n = 0;
    if (call->target)
        headers[n++] = (struct basalt_io_http_header){"X-Amz-Target", call->target};
    if (call->content_type)
        headers[n++] = (struct basalt_io_http_header){"Content-Type", call->content_type};
    headers[n++] = (struct basalt_io_http_header){"Accept", "application/json"};
    struct basalt_io_http_request req = {
        .method = call->method,
        .url = url,
        .headers = headers,
        .n_headers = n,
        .body = body,
        .body_len = body ? strlen(body) : 0,
        .retry = call->op == BASALT_AWS_OP_READ ? BASALT_IO_HTTP_RETRY_ANY
                                                : BASALT_IO_HTTP_RETRY_UNSENT,
        .aws_service = a->service,
        .aws_region = region,
    };
    struct basalt_io_http_response resp;
    st = basalt_io_http_request(store, &req, &resp, err);
    free(body);
    basalt_free(url);
    if (st != BASALT_OK) {
        basalt_io_http_response_reset(&resp);
        if (call->op == BASALT_AWS_OP_COMMIT && st == BASALT_IO) {
            return basalt_error_context(err, BASALT_UNKNOWN_OUTCOME,
                                        "%s: commit state unknown (no answer came)",
                                        call->what);
        }
        return basalt_error_context(err, st, "%s", call->what);
    }
    answer->status = resp.status;
    json_t *doc = resp.body_len ? json_loadb((const char *)resp.body, resp.body_len, 0, NULL)
                                : NULL;
    if (resp.status >= 200 && resp.status < 300) {
        if (resp.body_len && !doc && out)
            st = basalt_error_set(err, BASALT_CORRUPT, "%s: the answer is not JSON", call->what);
        else if (out)
            *out = doc, doc = NULL;
    } else {
        const char *message = NULL;
        error_fields(doc, answer->type, sizeof answer->type, &message);
        st = map_error(resp.status, answer->type);
        bool server = resp.status >= 500 && resp.status <= 599;
        if (call->op == BASALT_AWS_OP_COMMIT && server && st == BASALT_IO) {
            st = basalt_error_set(err, BASALT_UNKNOWN_OUTCOME,
                                  "%s: commit state unknown (HTTP %ld %s: %.200s)", call->what,
                                  resp.status, answer->type, message ? message : "");
        } else {
            st = basalt_error_set(err, st, "%s: HTTP %ld %s: %.300s", call->what, resp.status,
                                  answer->type[0] ? answer->type : "error",
                                  message ? message : "");
        }
    }
    json_decref(doc);
    basalt_io_http_response_reset(&resp);
    return st;
}
