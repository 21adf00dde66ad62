/* The REST server's responses (one error model for every non-2xx answer),
 * request decoding (percent-escapes, query parameters, headers) and the JSON
 * forms of namespaces and table identifiers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rest_server_internal.h"

/* JSON text into a basalt_malloc'd buffer (jansson allocates its own). */
static char *dump(const json_t *j, size_t *len)
{
    size_t n = json_dumpb(j, NULL, 0, JSON_COMPACT);
    char *buf = n ? basalt_malloc(n + 1) : NULL;
    if (!buf)
        return NULL;
    json_dumpb(j, buf, n, JSON_COMPACT);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void clear_body(struct basalt_catalog_rest_response *resp)
{
    basalt_free(resp->body);
    resp->body = NULL;
    resp->body_len = 0;
}

void basalt_catalog_rest_reply(struct basalt_catalog_rest_response *resp, int status,
                               json_t *body)
{
    clear_body(resp);
    resp->status = status;
    if (body)
        resp->body = dump(body, &resp->body_len);
    json_decref(body);
    if (!resp->body) {
        /* Nothing left to say it with: a bare 500. */
        resp->status = 500;
        resp->body_len = 0;
    }
}

void basalt_catalog_rest_no_content(struct basalt_catalog_rest_response *resp)
{
    clear_body(resp);
    resp->status = 204;
}

void basalt_catalog_rest_error(struct basalt_catalog_rest_response *resp, int status,
                               const char *type, const char *fmt, ...)
{
    char message[BASALT_ERROR_MESSAGE_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    /* IcebergErrorResponse allows nothing beside "error". */
    json_t *body = json_pack("{s:{s:s,s:s,s:i}}", "error", "message", message, "type", type,
                             "code", status);
    if (!body) {
        clear_body(resp);
        resp->status = 500;
        return;
    }
    basalt_catalog_rest_reply(resp, status, body);
}

void basalt_catalog_rest_fail(struct basalt_catalog_rest_response *resp, basalt_status st,
                              const struct basalt_error *err,
                              const struct basalt_catalog_rest_errors *kinds)
{
    const char *message = err && err->message[0] ? err->message : basalt_status_name(st);
    switch (st) {
    case BASALT_NOT_FOUND:
        basalt_catalog_rest_error(resp, 404, kinds->not_found, "%s", message);
        break;
    case BASALT_CONFLICT:
        basalt_catalog_rest_error(resp, 409, kinds->conflict, "%s", message);
        break;
    case BASALT_INVALID_ARG:
    case BASALT_CORRUPT:
    case BASALT_LIMIT:
        basalt_catalog_rest_error(resp, 400, "BadRequestException", "%s", message);
        break;
    case BASALT_UNSUPPORTED:
        /* 501, not 406: every operation declares 5XX, few declare 406, and
         * the Java client reads 501 as UnsupportedOperationException. */
        basalt_catalog_rest_error(resp, 501, "UnsupportedOperationException", "%s", message);
        break;
    default:
        basalt_catalog_rest_error(resp, 500,
                                  kinds->commit ? "CommitStateUnknownException"
                                                : "ServiceFailureException",
                                  "%s: %s", basalt_status_name(st), message);
    }
}

bool basalt_catalog_rest_add_header(struct basalt_catalog_rest_response *resp, const char *name,
                                    const char *value)
{
    if (resp->n_headers >= BASALT_CATALOG_REST_MAX_HEADERS)
        return false;
    struct basalt_catalog_rest_header *h = &resp->headers[resp->n_headers];
    if (strlen(name) >= sizeof h->name || strlen(value) >= sizeof h->value)
        return false;
    strcpy(h->name, name);
    strcpy(h->value, value);
    resp->n_headers++;
    return true;
}

const char *basalt_catalog_rest_header(const struct basalt_catalog_rest_request *req,
                                       const char *name)
{
    for (uint32_t i = 0; i < req->n_headers; i++)
        if (req->headers[i].key && strcasecmp(req->headers[i].key, name) == 0)
            return req->headers[i].value ? req->headers[i].value : "";
    return NULL;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

basalt_status basalt_catalog_rest_unescape(const char *s, size_t len, bool plus_space,
                                           char **out, struct basalt_error *err)
{
    *out = NULL;
    char *d = basalt_malloc(len + 1);
    if (!d)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '%') {
            int hi = i + 2 < len ? hex_value(s[i + 1]) : -1;
            int lo = i + 2 < len ? hex_value(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                basalt_free(d);
                return basalt_error_set(err, BASALT_INVALID_ARG, "bad percent-escape in '%.*s'",
                                        (int)(len > 200 ? 200 : len), s);
            }
            c = (char)(hi * 16 + lo);
            i += 2;
        } else if (c == '+' && plus_space) {
            c = ' ';
        }
        if (c == '\0') {
            basalt_free(d);
            return basalt_error_set(err, BASALT_INVALID_ARG, "a NUL byte in '%.*s'",
                                    (int)(len > 200 ? 200 : len), s);
        }
        d[k++] = c;
    }
    d[k] = '\0';
    *out = d;
    return BASALT_OK;
}

basalt_status basalt_catalog_rest_query(const struct basalt_catalog_rest_request *req,
                                        const char *name, char **out,
                                        struct basalt_error *err)
{
    *out = NULL;
    size_t nl = strlen(name);
    for (const char *p = req->query; p && *p;) {
        const char *end = strchr(p, '&');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t key_len = eq ? (size_t)(eq - p) : len;
        if (key_len == nl && strncmp(p, name, nl) == 0) {
            const char *v = eq ? eq + 1 : p + len;
            return basalt_catalog_rest_unescape(v, (size_t)(p + len - v), true, out, err);
        }
        p = end ? end + 1 : p + len;
    }
    return BASALT_OK;
}

/* One namespace level: not empty, no '.', which joins levels in the catalogs. */
static basalt_status check_level(const char *level, size_t len, struct basalt_error *err)
{
    if (len == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a namespace level is empty");
    if (memchr(level, '.', len))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "namespace level '%.*s' holds a '.', which this catalog uses to "
                                "join levels",
                                (int)(len > 200 ? 200 : len), level);
    return BASALT_OK;
}

basalt_status basalt_catalog_rest_namespace_from_path(const char *levels, char **out,
                                                      struct basalt_error *err)
{
    *out = NULL;
    size_t len = strlen(levels);
    char *dotted = basalt_malloc(len + 1);
    if (!dotted)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (const char *p = levels;;) {
        const char *sep = strchr(p, '\x1f');
        size_t n = sep ? (size_t)(sep - p) : strlen(p);
        basalt_status st = check_level(p, n, err);
        if (st != BASALT_OK) {
            basalt_free(dotted);
            return st;
        }
        if (!sep)
            break;
        p = sep + 1;
    }
    for (size_t i = 0; i <= len; i++)
        dotted[i] = levels[i] == '\x1f' ? '.' : levels[i];
    *out = dotted;
    return BASALT_OK;
}

basalt_status basalt_catalog_rest_namespace_from_json(const json_t *levels, char **out,
                                                      struct basalt_error *err)
{
    *out = NULL;
    if (!json_is_array(levels) || json_array_size(levels) == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "a namespace is a non-empty array of strings");
    size_t total = 0, i;
    const json_t *level;
    json_array_foreach(levels, i, level)
    {
        if (!json_is_string(level))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "a namespace is a non-empty array of strings");
        basalt_status st =
            check_level(json_string_value(level), json_string_length(level), err);
        if (st != BASALT_OK)
            return st;
        total += json_string_length(level) + 1;
    }
    char *dotted = basalt_malloc(total);
    if (!dotted)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t k = 0;
    json_array_foreach(levels, i, level)
    {
        if (i)
            dotted[k++] = '.';
        memcpy(dotted + k, json_string_value(level), json_string_length(level));
        k += json_string_length(level);
    }
    dotted[k] = '\0';
    *out = dotted;
    return BASALT_OK;
}

basalt_status basalt_catalog_rest_check_name(const char *name, struct basalt_error *err)
{
    if (!name || !*name)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a table name is empty");
    if (strchr(name, '.'))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "table name '%.200s' holds a '.', which this catalog uses to "
                                "separate the namespace",
                                name);
    return BASALT_OK;
}

char *basalt_catalog_rest_join(const char *ns, const char *name)
{
    size_t a = strlen(ns), b = strlen(name);
    char *id = basalt_malloc(a + b + 2);
    if (id) {
        memcpy(id, ns, a);
        id[a] = '.';
        memcpy(id + a + 1, name, b + 1);
    }
    return id;
}

basalt_status basalt_catalog_rest_identifier_from_json(const json_t *ident, char **out,
                                                       struct basalt_error *err)
{
    *out = NULL;
    const char *name = json_string_value(json_object_get(ident, "name"));
    if (!json_is_object(ident) || !name)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "a table identifier is {\"namespace\": [...], \"name\": \"...\"}");
    char *ns = NULL;
    basalt_status st = basalt_catalog_rest_check_name(name, err);
    if (st == BASALT_OK)
        st = basalt_catalog_rest_namespace_from_json(json_object_get(ident, "namespace"), &ns,
                                                     err);
    if (st == BASALT_OK && !(*out = basalt_catalog_rest_join(ns, name)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_free(ns);
    return st;
}

json_t *basalt_catalog_rest_namespace_json(const char *dotted, size_t len)
{
    json_t *levels = json_array();
    for (size_t start = 0; levels && start <= len;) {
        const char *dot = memchr(dotted + start, '.', len - start);
        size_t end = dot ? (size_t)(dot - dotted) : len;
        if (json_array_append_new(levels, json_stringn(dotted + start, end - start)) != 0) {
            json_decref(levels);
            return NULL;
        }
        start = end + 1;
    }
    return levels;
}

json_t *basalt_catalog_rest_identifier_json(const char *identifier)
{
    const char *dot = strrchr(identifier, '.');
    if (!dot)
        return NULL;
    return json_pack("{s:o,s:s}", "namespace",
                     basalt_catalog_rest_namespace_json(identifier, (size_t)(dot - identifier)),
                     "name", dot + 1);
}

void basalt_catalog_rest_reply_page(struct basalt_catalog_rest_call *call, char **items,
                                    size_t n, const char *member,
                                    json_t *(*to_json)(const char *item))
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *token = NULL, *size_text = NULL;
    basalt_status st = basalt_catalog_rest_query(call->req, "pageToken", &token, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_rest_query(call->req, "pageSize", &size_text, &err);
    size_t page = n, first = 0;
    if (st == BASALT_OK && size_text) {
        char *end;
        long long v = strtoll(size_text, &end, 10);
        if (end == size_text || *end || v < 1)
            st = basalt_error_set(&err, BASALT_INVALID_ARG, "pageSize '%.40s' is not a positive "
                                  "integer", size_text);
        else if ((unsigned long long)v < page)
            page = (size_t)v;
    }
    /* Without a pageToken everything comes in one response (the spec's rule
     * for servers that paginate). The token is the last item sent: items
     * are sorted, so the next page starts after it even when items were
     * added or removed in between. */
    if (!token)
        page = n;
    else if (*token)
        while (first < n && strcmp(items[first], token) <= 0)
            first++;
    json_t *list = st == BASALT_OK ? json_array() : NULL;
    size_t last = first + page < n ? first + page : n;
    for (size_t i = first; list && i < last; i++)
        if (json_array_append_new(list, to_json(items[i])) != 0) {
            json_decref(list);
            list = NULL;
        }
    json_t *body = list ? json_pack("{s:o}", member, list) : NULL;
    if (body && token) {
        json_t *next = last < n && last > first ? json_string(items[last - 1]) : json_null();
        if (json_object_set_new(body, "next-page-token", next) != 0) {
            json_decref(body);
            body = NULL;
        }
    }
    if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err,
                                 &(struct basalt_catalog_rest_errors){"NotFoundException",
                                                                      "AlreadyExistsException",
                                                                      false});
    else if (!body)
        basalt_catalog_rest_error(call->resp, 500, "ServiceFailureException", "out of memory");
    else
        basalt_catalog_rest_reply(call->resp, 200, body);
    basalt_free(token);
    basalt_free(size_text);
}
