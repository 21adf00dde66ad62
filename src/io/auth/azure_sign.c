/* Azure Shared Key: the StringToSign of a Blob service request and its
 * HMAC-SHA256 under the account key. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth/azure_sign.h"
#include "auth/base64.h"
#include "auth/sigv4_internal.h"
#include "basalt/hash.h"

/* The standard headers, in StringToSign order. */
static const char *const standard_headers[] = {
    "content-encoding", "content-language", "content-length", "content-md5",
    "content-type",     "date",             "if-modified-since", "if-match",
    "if-none-match",    "if-unmodified-since", "range"};

struct kv {
    char *name;  /* lower-cased copy */
    const char *value;
};

static int compare_kv(const void *a, const void *b)
{
    const struct kv *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->value, y->value);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Appends `v` trimmed, with each folded line break (a whitespace run that
 * holds CR or LF) unfolded into one space; other spaces stay, as the service
 * keeps them. */
static basalt_status append_unfolded(struct basalt_buffer *b, const char *v,
                                     struct basalt_error *err)
{
    while (is_space(*v))
        v++;
    size_t len = strlen(v);
    while (len && is_space(v[len - 1]))
        len--;
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < len && st == BASALT_OK;) {
        size_t j = i;
        bool breaks = false;
        for (; j < len && is_space(v[j]); j++)
            breaks |= v[j] == '\r' || v[j] == '\n';
        if (j > i) {
            st = breaks ? basalt_buffer_append(b, " ", 1, err)
                        : basalt_buffer_append(b, v + i, j - i, err);
            i = j;
        } else {
            st = basalt_buffer_append(b, v + i, 1, err);
            i++;
        }
    }
    return st;
}

static char *lower_dup(struct basalt_arena *a, const char *s, size_t len)
{
    char *d = basalt_arena_strndup(a, s, len);
    for (size_t i = 0; d && i < len; i++)
        if (d[i] >= 'A' && d[i] <= 'Z')
            d[i] = (char)(d[i] - 'A' + 'a');
    return d;
}

static basalt_status append_standard(struct basalt_buffer *b,
                                     const struct basalt_azure_request *req,
                                     struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (size_t h = 0; h < sizeof standard_headers / sizeof *standard_headers; h++) {
        const char *value = NULL;
        for (size_t i = 0; i < req->header_count && !value; i++)
            if (req->headers[i].name &&
                basalt_sigv4_name_equal(req->headers[i].name, standard_headers[h]))
                value = req->headers[i].value;
        /* Since 2015-02-21 a zero Content-Length signs as empty. */
        if (value && h == 2 && strcmp(value, "0") == 0)
            value = NULL;
        if (value && st == BASALT_OK)
            st = append_unfolded(b, value, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(b, "\n", 1, err);
    }
    return st;
}

static basalt_status append_ms_headers(struct basalt_buffer *b, struct basalt_arena *a,
                                       const struct basalt_azure_request *req,
                                       struct basalt_error *err)
{
    struct kv *h =
        basalt_arena_alloc(a, (req->header_count + 1) * sizeof *h, _Alignof(struct kv));
    if (!h)
        return basalt_error_set(err, BASALT_NOMEM, "azure: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < req->header_count; i++) {
        const char *name = req->headers[i].name;
        if (!name || !*name || !req->headers[i].value || strpbrk(name, ": \t\r\n"))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "azure: header %zu has a malformed name or no value", i);
        if (strncasecmp(name, "x-ms-", 5) != 0)
            continue;
        h[n].name = lower_dup(a, name, strlen(name));
        h[n].value = req->headers[i].value;
        if (!h[n].name)
            return basalt_error_set(err, BASALT_NOMEM, "azure: out of memory");
        n++;
    }
    /* Repeated names (the service defines none) join their values sorted, so
     * the result does not hang on qsort's instability. */
    qsort(h, n, sizeof *h, compare_kv);
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        bool first = i == 0 || strcmp(h[i].name, h[i - 1].name) != 0;
        if (first) {
            if (i > 0)
                st = basalt_buffer_append(b, "\n", 1, err);
            if (st == BASALT_OK)
                st = basalt_sigv4_append(b, h[i].name, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(b, ":", 1, err);
        } else {
            st = basalt_buffer_append(b, ",", 1, err);
        }
        if (st == BASALT_OK)
            st = append_unfolded(b, h[i].value, err);
    }
    if (st == BASALT_OK && n)
        st = basalt_buffer_append(b, "\n", 1, err);
    return st;
}

static int hexv(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static char *decode_dup(struct basalt_arena *a, const char *s, size_t len, bool lower)
{
    char *d = basalt_arena_alloc(a, len + 1, 1);
    if (!d)
        return NULL;
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%' && i + 2 < len && hexv(s[i + 1]) >= 0 && hexv(s[i + 2]) >= 0) {
            d[w++] = (char)(hexv(s[i + 1]) << 4 | hexv(s[i + 2]));
            i += 2;
        } else {
            d[w++] = lower && s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
        }
    }
    d[w] = '\0';
    return d;
}

/* "/account/path" then "\nname:v1,v2" per decoded, lower-cased, sorted name. */
static basalt_status append_resource(struct basalt_buffer *b, struct basalt_arena *a,
                                     const struct basalt_azure_request *req,
                                     struct basalt_error *err)
{
    const char *path = req->path && *req->path ? req->path : "/";
    basalt_status st = basalt_buffer_append(b, "/", 1, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(b, req->account, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(b, path, err);
    const char *q = req->query ? req->query : "";
    size_t max = 1;
    for (const char *p = q; *p; p++)
        max += *p == '&';
    struct kv *kv = basalt_arena_alloc(a, max * sizeof *kv, _Alignof(struct kv));
    if (st == BASALT_OK && !kv)
        st = basalt_error_set(err, BASALT_NOMEM, "azure: out of memory");
    size_t n = 0, qlen = strlen(q);
    for (size_t i = 0; i < qlen && st == BASALT_OK;) {
        size_t j = i, eq;
        while (j < qlen && q[j] != '&')
            j++;
        for (eq = i; eq < j && q[eq] != '='; eq++)
            ;
        if (j > i) {
            kv[n].name = decode_dup(a, q + i, eq - i, true);
            kv[n].value = eq < j ? decode_dup(a, q + eq + 1, j - eq - 1, false)
                                 : decode_dup(a, "", 0, false);
            if (!kv[n].name || !kv[n].value)
                st = basalt_error_set(err, BASALT_NOMEM, "azure: out of memory");
            n++;
        }
        i = j + 1;
    }
    if (st == BASALT_OK)
        qsort(kv, n, sizeof *kv, compare_kv);
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        bool first = i == 0 || strcmp(kv[i].name, kv[i - 1].name) != 0;
        st = basalt_buffer_append(b, first ? "\n" : ",", 1, err);
        if (st == BASALT_OK && first) {
            st = basalt_sigv4_append(b, kv[i].name, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(b, ":", 1, err);
        }
        if (st == BASALT_OK)
            st = basalt_sigv4_append(b, kv[i].value, err);
    }
    return st;
}

basalt_status basalt_azure_string_to_sign(const struct basalt_azure_request *req, char **out,
                                          struct basalt_error *err)
{
    *out = NULL;
    if (!req || !req->method || !*req->method || !req->account || !*req->account)
        return basalt_error_set(err, BASALT_INVALID_ARG, "azure: no method or account");
    if (req->header_count && !req->headers)
        return basalt_error_set(err, BASALT_INVALID_ARG, "azure: header_count without headers");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    struct basalt_arena a;
    basalt_arena_init(&a, 4096);
    basalt_status st = basalt_sigv4_append(&b, req->method, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "\n", 1, err);
    if (st == BASALT_OK)
        st = append_standard(&b, req, err);
    if (st == BASALT_OK)
        st = append_ms_headers(&b, &a, req, err);
    if (st == BASALT_OK)
        st = append_resource(&b, &a, req, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "", 1, err);
    if (st == BASALT_OK)
        *out = (char *)basalt_buffer_take(&b);
    basalt_buffer_reset(&b);
    basalt_arena_reset(&a);
    return st;
}

basalt_status basalt_azure_sign_shared_key(const struct basalt_azure_request *req,
                                           const char *account_key, char **authorization,
                                           char **string_to_sign, struct basalt_error *err)
{
    *authorization = NULL;
    if (string_to_sign)
        *string_to_sign = NULL;
    if (!account_key || !*account_key)
        return basalt_error_set(err, BASALT_INVALID_ARG, "azure: no account key");
    char *sts = NULL;
    basalt_status st = basalt_azure_string_to_sign(req, &sts, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer key, out;
    basalt_buffer_init(&key);
    basalt_buffer_init(&out);
    uint8_t mac[BASALT_HASH_SHA256_SIZE];
    st = basalt_io_base64_decode(account_key, strlen(account_key), &key, err);
    if (st != BASALT_OK)
        basalt_error_context(err, st, "azure: account key");
    if (st == BASALT_OK) {
        st = basalt_hash_hmac_sha256(key.data, key.size, sts, strlen(sts), mac);
        if (st != BASALT_OK)
            basalt_error_set(err, st, "azure: HMAC-SHA256 failed");
    }
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&out, "SharedKey ", err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&out, req->account, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&out, ":", 1, err);
    if (st == BASALT_OK)
        st = basalt_io_base64_encode(mac, sizeof mac, &out, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&out, "", 1, err);
    if (st == BASALT_OK)
        *authorization = (char *)basalt_buffer_take(&out);
    if (key.data)
        basalt_sigv4_wipe(key.data, key.capacity);
    basalt_buffer_reset(&key);
    basalt_buffer_reset(&out);
    if (st == BASALT_OK && string_to_sign)
        *string_to_sign = sts;
    else
        basalt_free(sts);
    return st;
}
