/* Canonical URI, query and headers of SigV4 (the rules of the AWS "Create a
 * canonical request" page). Every piece must be byte-exact: one stray space
 * makes AWS answer SignatureDoesNotMatch with nothing else to go on. */
#include <stdlib.h>
#include <string.h>

#include "auth/sigv4_internal.h"

basalt_status basalt_sigv4_append(struct basalt_buffer *out, const char *s,
                                  struct basalt_error *err)
{
    return basalt_buffer_append(out, s, strlen(s), err);
}

void basalt_sigv4_wipe(void *p, size_t len)
{
    volatile unsigned char *v = p;
    while (len--)
        *v++ = 0;
}

static char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

bool basalt_sigv4_name_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (ascii_lower(*a) != ascii_lower(*b))
            return false;
    return *a == *b;
}

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

basalt_status basalt_sigv4_uri_encode(struct basalt_buffer *out, const char *s, size_t len,
                                      bool keep_slash, struct basalt_error *err)
{
    static const char hex[] = "0123456789ABCDEF";
    if (len > SIZE_MAX / 3)
        return basalt_error_set(err, BASALT_LIMIT, "sigv4: string too long to encode");
    if (len == 0)
        return BASALT_OK; /* an empty buffer has no data pointer to offset */
    basalt_status st = basalt_buffer_reserve(out, len * 3, err);
    if (st != BASALT_OK)
        return st;
    char *dst = (char *)out->data + out->size;
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            dst[w++] = (char)c;
        } else {
            dst[w++] = '%';
            dst[w++] = hex[c >> 4];
            dst[w++] = hex[c & 15];
        }
    }
    out->size += w;
    return BASALT_OK;
}

/* ------------------------------------------------------------------- path */

basalt_status basalt_sigv4_canonical_path(struct basalt_buffer *out, const char *path,
                                          unsigned flags, struct basalt_error *err)
{
    if (!path || !*path)
        path = "/";
    size_t len = strlen(path);
    if (!(flags & BASALT_SIGV4_NORMALIZE_PATH)) {
        if (flags & BASALT_SIGV4_ENCODE_PATH)
            return basalt_sigv4_uri_encode(out, path, len, true, err);
        return basalt_buffer_append(out, path, len, err);
    }
    /* Segments kept so far, as (start, length) into `path`; ".." drops the
     * last one, "." and empty segments (runs of '/') drop themselves. */
    size_t max_segments = len / 2 + 1;
    size_t *seg = basalt_malloc(max_segments * 2 * sizeof *seg);
    if (!seg)
        return basalt_error_set(err, BASALT_NOMEM, "sigv4: out of memory normalising a path");
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && path[j] != '/')
            j++;
        size_t sl = j - i;
        if (sl == 2 && path[i] == '.' && path[i + 1] == '.') {
            if (n > 0)
                n--;
        } else if (sl > 0 && !(sl == 1 && path[i] == '.')) {
            seg[2 * n] = i;
            seg[2 * n + 1] = sl;
            n++;
        }
        i = j + 1;
    }
    struct basalt_buffer norm;
    basalt_buffer_init(&norm);
    basalt_status st = BASALT_OK;
    for (size_t k = 0; k < n && st == BASALT_OK; k++) {
        st = basalt_buffer_append(&norm, "/", 1, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&norm, path + seg[2 * k], seg[2 * k + 1], err);
    }
    /* A trailing '/' names a different resource than none, so it survives. */
    if (st == BASALT_OK && (n == 0 || path[len - 1] == '/'))
        st = basalt_buffer_append(&norm, "/", 1, err);
    if (st == BASALT_OK) {
        if (flags & BASALT_SIGV4_ENCODE_PATH)
            st = basalt_sigv4_uri_encode(out, (const char *)norm.data, norm.size, true, err);
        else
            st = basalt_buffer_append(out, norm.data, norm.size, err);
    }
    basalt_buffer_reset(&norm);
    basalt_free(seg);
    return st;
}

/* ------------------------------------------------------------------ query */

struct query_pair {
    const char *name;  /* encoded, NUL-terminated, in the arena */
    const char *value;
};

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

/* Decodes %XX in s[0..len) into `dst` (len bytes of room); a '%' not
 * followed by two hex digits stays literal, as servers read it. */
static size_t percent_decode(const char *s, size_t len, char *dst)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        int hi, lo;
        if (s[i] == '%' && i + 2 < len && (hi = hex_value(s[i + 1])) >= 0 &&
            (lo = hex_value(s[i + 2])) >= 0) {
            dst[w++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            dst[w++] = s[i];
        }
    }
    return w;
}

/* Encodes raw bytes into an arena string. */
static basalt_status encode_to_arena(struct basalt_arena *arena, struct basalt_buffer *scratch,
                                     const char *s, size_t len, const char **out,
                                     struct basalt_error *err)
{
    scratch->size = 0;
    basalt_status st = basalt_sigv4_uri_encode(scratch, s, len, false, err);
    if (st != BASALT_OK)
        return st;
    *out = basalt_arena_strndup(arena, (const char *)scratch->data, scratch->size);
    return *out ? BASALT_OK
                : basalt_error_set(err, BASALT_NOMEM, "sigv4: out of memory encoding the query");
}

static int compare_pairs(const void *a, const void *b)
{
    const struct query_pair *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->value, y->value);
}

static basalt_status collect_query(struct basalt_arena *arena, struct basalt_buffer *scratch,
                                   const char *query, const struct basalt_sigv4_header *extra,
                                   size_t extra_count, struct query_pair *pairs, size_t *count,
                                   struct basalt_error *err)
{
    size_t n = 0;
    size_t qlen = query ? strlen(query) : 0;
    char *raw = basalt_arena_alloc(arena, qlen + 1, 1);
    if (!raw)
        return basalt_error_set(err, BASALT_NOMEM, "sigv4: out of memory parsing the query");
    for (size_t i = 0; i < qlen;) {
        size_t j = i;
        while (j < qlen && query[j] != '&')
            j++;
        if (j > i) {
            size_t eq = i;
            while (eq < j && query[eq] != '=')
                eq++;
            size_t name_len = percent_decode(query + i, eq - i, raw);
            raw[name_len] = '\0';
            for (size_t e = 0; e < extra_count; e++)
                if (basalt_sigv4_name_equal(raw, extra[e].name))
                    return basalt_error_set(err, BASALT_INVALID_ARG,
                                            "sigv4: query parameter %s is added by the signer",
                                            extra[e].name);
            if (extra_count && basalt_sigv4_name_equal(raw, "X-Amz-Signature"))
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "sigv4: the query is already signed (X-Amz-Signature)");
            basalt_status st = encode_to_arena(arena, scratch, raw, name_len, &pairs[n].name, err);
            size_t value_len = eq < j ? percent_decode(query + eq + 1, j - eq - 1, raw) : 0;
            if (st == BASALT_OK)
                st = encode_to_arena(arena, scratch, raw, value_len, &pairs[n].value, err);
            if (st != BASALT_OK)
                return st;
            n++;
        }
        i = j + 1;
    }
    for (size_t e = 0; e < extra_count; e++, n++) {
        basalt_status st = encode_to_arena(arena, scratch, extra[e].name, strlen(extra[e].name),
                                           &pairs[n].name, err);
        if (st == BASALT_OK)
            st = encode_to_arena(arena, scratch, extra[e].value, strlen(extra[e].value),
                                 &pairs[n].value, err);
        if (st != BASALT_OK)
            return st;
    }
    *count = n;
    return BASALT_OK;
}

basalt_status basalt_sigv4_canonical_query(struct basalt_buffer *out, const char *query,
                                           const struct basalt_sigv4_header *extra,
                                           size_t extra_count, struct basalt_error *err)
{
    size_t max_pairs = extra_count + 1;
    for (const char *q = query; q && *q; q++)
        max_pairs += *q == '&';
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_buffer scratch;
    basalt_buffer_init(&scratch);
    struct query_pair *pairs = basalt_arena_alloc(&arena, max_pairs * sizeof *pairs,
                                                  _Alignof(struct query_pair));
    size_t n = 0;
    basalt_status st = pairs ? collect_query(&arena, &scratch, query, extra, extra_count, pairs,
                                             &n, err)
                             : basalt_error_set(err, BASALT_NOMEM,
                                                "sigv4: out of memory parsing the query");
    if (st == BASALT_OK)
        qsort(pairs, n, sizeof *pairs, compare_pairs);
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        if (i > 0)
            st = basalt_buffer_append(out, "&", 1, err);
        if (st == BASALT_OK)
            st = basalt_sigv4_append(out, pairs[i].name, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(out, "=", 1, err);
        if (st == BASALT_OK)
            st = basalt_sigv4_append(out, pairs[i].value, err);
    }
    basalt_buffer_reset(&scratch);
    basalt_arena_reset(&arena);
    return st;
}

/* ---------------------------------------------------------------- headers */

struct header_entry {
    char *name;         /* lower-cased copy */
    const char *value;  /* borrowed */
    size_t index;       /* request order, so equal names keep it under qsort */
};

static int compare_headers(const void *a, const void *b)
{
    const struct header_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Appends `v` trimmed, with every run of whitespace (folded lines included)
 * collapsed to one space. */
static basalt_status append_trimmed(struct basalt_buffer *out, const char *v,
                                    struct basalt_error *err)
{
    while (is_space(*v))
        v++;
    size_t len = strlen(v);
    while (len > 0 && is_space(v[len - 1]))
        len--;
    if (len == 0)
        return BASALT_OK;
    basalt_status st = basalt_buffer_reserve(out, len, err);
    if (st != BASALT_OK)
        return st;
    char *dst = (char *)out->data + out->size;
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        if (is_space(v[i])) {
            if (!is_space(v[i - 1]))
                dst[w++] = ' ';
        } else {
            dst[w++] = v[i];
        }
    }
    out->size += w;
    return BASALT_OK;
}

static bool valid_name_char(unsigned char c) { return c > 0x20 && c < 0x7f && c != ':'; }

basalt_status basalt_sigv4_canonical_headers(struct basalt_buffer *block,
                                             struct basalt_buffer *signed_names,
                                             const struct basalt_sigv4_header *headers,
                                             size_t count, struct basalt_error *err)
{
    if (count == 0)
        return BASALT_OK;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct header_entry *e = basalt_arena_alloc(&arena, count * sizeof *e,
                                                _Alignof(struct header_entry));
    basalt_status st = e ? BASALT_OK
                         : basalt_error_set(err, BASALT_NOMEM,
                                            "sigv4: out of memory sorting headers");
    for (size_t i = 0; i < count && st == BASALT_OK; i++) {
        const char *name = headers[i].name;
        size_t len = name ? strlen(name) : 0;
        for (size_t k = 0; k < len && st == BASALT_OK; k++)
            if (!valid_name_char((unsigned char)name[k]))
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "sigv4: header %zu has an invalid name", i);
        if (st == BASALT_OK && (len == 0 || !headers[i].value))
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "sigv4: header %zu has no name or no value", i);
        if (st != BASALT_OK)
            break;
        e[i].name = basalt_arena_strndup(&arena, name, len);
        if (!e[i].name) {
            st = basalt_error_set(err, BASALT_NOMEM, "sigv4: out of memory sorting headers");
            break;
        }
        for (size_t k = 0; k < len; k++)
            e[i].name[k] = ascii_lower(e[i].name[k]);
        e[i].value = headers[i].value;
        e[i].index = i;
    }
    if (st == BASALT_OK)
        qsort(e, count, sizeof *e, compare_headers);
    for (size_t i = 0; i < count && st == BASALT_OK; i++) {
        bool first = i == 0 || strcmp(e[i].name, e[i - 1].name) != 0;
        bool last = i + 1 == count || strcmp(e[i].name, e[i + 1].name) != 0;
        if (first) {
            if (i > 0)
                st = basalt_buffer_append(signed_names, ";", 1, err);
            if (st == BASALT_OK)
                st = basalt_sigv4_append(signed_names, e[i].name, err);
            if (st == BASALT_OK)
                st = basalt_sigv4_append(block, e[i].name, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(block, ":", 1, err);
        } else {
            st = basalt_buffer_append(block, ",", 1, err);
        }
        if (st == BASALT_OK)
            st = append_trimmed(block, e[i].value, err);
        if (st == BASALT_OK && last)
            st = basalt_buffer_append(block, "\n", 1, err);
    }
    basalt_arena_reset(&arena);
    return st;
}
