/* Header lists and percent-encoding for the HTTP backends. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http/http.h"

void basalt_http_headers_init(struct basalt_http_headers *h)
{
    h->count = 0;
    h->used = 0;
}

basalt_status basalt_http_headers_add(struct basalt_http_headers *h, const char *name,
                                      struct basalt_error *err, const char *fmt, ...)
{
    if (h->count == BASALT_HTTP_MAX_HEADERS)
        return basalt_error_set(err, BASALT_LIMIT, "too many request headers (adding %s)", name);
    size_t nlen = strlen(name) + 1;
    size_t room = sizeof h->storage - h->used;
    if (nlen >= room)
        return basalt_error_set(err, BASALT_LIMIT, "request headers too long (adding %s)", name);
    char *n = h->storage + h->used;
    memcpy(n, name, nlen);
    char *v = n + nlen;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(v, room - nlen, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= room - nlen)
        return basalt_error_set(err, BASALT_LIMIT, "request headers too long (adding %s)", name);
    h->used += nlen + (size_t)w + 1;
    h->name[h->count] = n;
    h->value[h->count] = v;
    h->count++;
    return BASALT_OK;
}

const char *basalt_http_headers_get(const struct basalt_http_headers *h, const char *name)
{
    for (size_t i = 0; i < h->count; i++)
        if (strcasecmp(h->name[i], name) == 0)
            return h->value[i];
    return NULL;
}

basalt_status basalt_http_uri_encode(const char *in, size_t len, bool keep_slash, char *out,
                                     size_t cap, struct basalt_error *err)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
        if (o + (plain ? 1 : 3) >= cap)
            return basalt_error_set(err, BASALT_LIMIT, "URL too long");
        if (plain) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return BASALT_OK;
}

bool basalt_http_status_is_retryable(long status)
{
    return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
           status == 504;
}

basalt_status basalt_http_query_append(char *query, size_t cap, const char *name,
                                       const char *value, struct basalt_error *err)
{
    char enc[3200];
    basalt_status st = basalt_http_uri_encode(value, strlen(value), false, enc, sizeof enc, err);
    if (st != BASALT_OK)
        return st;
    size_t used = strlen(query);
    int w = snprintf(query + used, cap - used, "&%s=%s", name, enc);
    if (w < 0 || (size_t)w >= cap - used)
        return basalt_error_set(err, BASALT_LIMIT, "listing query too long");
    return BASALT_OK;
}
