/* Typed access to members of jansson objects, with the error messages the
 * metadata parser reports, and copies into the metadata's arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg_internal.h"

static const json_t *member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return (v && !json_is_null(v)) ? v : NULL;
}

static basalt_status missing(struct basalt_error *err, const char *key)
{
    return basalt_error_set(err, BASALT_CORRUPT, "missing '%s'", key);
}

basalt_status basalt_iceberg_json_i64(const json_t *obj, const char *key, bool required,
                                      bool *present, int64_t *out, struct basalt_error *err)
{
    const json_t *v = member(obj, key);
    if (present)
        *present = v != NULL;
    if (!v)
        return required ? missing(err, key) : BASALT_OK;
    if (!json_is_integer(v))
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is not an integer", key);
    *out = (int64_t)json_integer_value(v);
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_i32(const json_t *obj, const char *key, bool required,
                                      bool *present, int32_t *out, struct basalt_error *err)
{
    int64_t v = 0;
    bool here = false;
    basalt_status st = basalt_iceberg_json_i64(obj, key, required, &here, &v, err);
    if (present)
        *present = here;
    if (st != BASALT_OK || !here)
        return st;
    if (v < INT32_MIN || v > INT32_MAX)
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is out of range for an int: %lld",
                                key, (long long)v);
    *out = (int32_t)v;
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_bool(const json_t *obj, const char *key, bool required,
                                       bool *present, bool *out, struct basalt_error *err)
{
    const json_t *v = member(obj, key);
    if (present)
        *present = v != NULL;
    if (!v)
        return required ? missing(err, key) : BASALT_OK;
    if (!json_is_boolean(v))
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is not a boolean", key);
    *out = json_is_true(v);
    return BASALT_OK;
}

void *basalt_iceberg_arena_array(struct basalt_iceberg_parse_ctx *ctx, size_t n, size_t size)
{
    if (n == 0)
        n = 1; /* a valid pointer for empty arrays keeps callers simple */
    if (n > SIZE_MAX / size) {
        basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
        return NULL;
    }
    void *p = basalt_arena_alloc(ctx->arena, n * size, 16);
    if (!p) {
        basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
        return NULL;
    }
    memset(p, 0, n * size);
    return p;
}

basalt_status basalt_iceberg_json_str_value(struct basalt_iceberg_parse_ctx *ctx,
                                            const json_t *value, const char **out)
{
    const char *s = json_string_value(value);
    size_t n = json_string_length(value);
    if (!s)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "not a string");
    if (memchr(s, 0, n))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "string holds a NUL character");
    char *copy = basalt_arena_strndup(ctx->arena, s, n);
    if (!copy)
        return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
    *out = copy;
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_str(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                      const char *key, bool required, const char **out)
{
    const json_t *v = member(obj, key);
    if (!v) {
        *out = NULL;
        return required ? missing(ctx->err, key) : BASALT_OK;
    }
    if (!json_is_string(v))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "'%s' is not a string", key);
    basalt_status st = basalt_iceberg_json_str_value(ctx, v, out);
    if (st != BASALT_OK)
        return basalt_error_context(ctx->err, st, "'%s'", key);
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_array(const json_t *obj, const char *key, bool required,
                                        const json_t **out, struct basalt_error *err)
{
    const json_t *v = member(obj, key);
    *out = NULL;
    if (!v)
        return required ? missing(err, key) : BASALT_OK;
    if (!json_is_array(v))
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is not an array", key);
    *out = v;
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_object(const json_t *obj, const char *key, bool required,
                                         const json_t **out, struct basalt_error *err)
{
    const json_t *v = member(obj, key);
    *out = NULL;
    if (!v)
        return required ? missing(err, key) : BASALT_OK;
    if (!json_is_object(v))
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is not an object", key);
    *out = v;
    return BASALT_OK;
}

static int kv_compare(const void *a, const void *b)
{
    const struct basalt_iceberg_kv *x = a, *y = b;
    return strcmp(x->key, y->key);
}

basalt_status basalt_iceberg_json_kv(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                     struct basalt_iceberg_kv **out, uint32_t *n)
{
    size_t count = json_object_size(obj);
    if (count > UINT32_MAX)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "too many entries");
    struct basalt_iceberg_kv *kv = basalt_iceberg_arena_array(ctx, count, sizeof(*kv));
    if (!kv)
        return BASALT_NOMEM;
    size_t i = 0;
    const char *key;
    json_t *value;
    /* json_object_foreach wants a non-const object; it does not modify it. */
    json_t *o = (json_t *)(uintptr_t)obj;
    json_object_foreach(o, key, value)
    {
        if (!json_is_string(value))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "value of '%s' is not a string",
                                    key);
        if (strlen(key) != json_object_iter_key_len(json_object_key_to_iter(key)))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "key holds a NUL character");
        char *k = basalt_arena_strndup(ctx->arena, key, strlen(key));
        if (!k)
            return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
        kv[i].key = k;
        basalt_status st = basalt_iceberg_json_str_value(ctx, value, &kv[i].value);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "'%s'", key);
        i++;
    }
    qsort(kv, i, sizeof(*kv), kv_compare);
    *out = kv;
    *n = (uint32_t)i;
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_text(struct basalt_iceberg_parse_ctx *ctx, const json_t *value,
                                       const char **out)
{
    char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
    if (!text)
        return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
    char *copy = basalt_arena_strndup(ctx->arena, text, strlen(text));
    free(text);
    if (!copy)
        return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
    *out = copy;
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_unknown_keys(struct basalt_iceberg_parse_ctx *ctx,
                                               const json_t *root, bool (*known)(const char *key),
                                               const char **out)
{
    json_t *unknown = json_object();
    if (!unknown)
        return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
    const char *key;
    json_t *value;
    json_t *o = (json_t *)(uintptr_t)root;
    json_object_foreach(o, key, value)
    {
        if (!known(key) && json_object_set(unknown, key, value)) {
            json_decref(unknown);
            return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
        }
    }
    basalt_status st = basalt_iceberg_json_text(ctx, unknown, out);
    json_decref(unknown);
    return st;
}

basalt_status basalt_iceberg_json_array_of(struct basalt_iceberg_parse_ctx *ctx, const json_t *arr,
                                           size_t size, void **out, uint32_t *n)
{
    size_t count = json_array_size(arr);
    if (count > UINT32_MAX)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "array too long");
    *out = basalt_iceberg_arena_array(ctx, count, size);
    if (!*out)
        return BASALT_NOMEM;
    *n = (uint32_t)count;
    return BASALT_OK;
}

basalt_status basalt_iceberg_json_need_object(struct basalt_iceberg_parse_ctx *ctx, const json_t *v)
{
    return json_is_object(v) ? BASALT_OK
                             : basalt_error_set(ctx->err, BASALT_CORRUPT, "not an object");
}

basalt_status basalt_iceberg_json_kv_field(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                           const char *key, bool required,
                                           struct basalt_iceberg_kv **out, uint32_t *n)
{
    const json_t *o;
    basalt_status st = basalt_iceberg_json_object(obj, key, required, &o, ctx->err);
    if (st != BASALT_OK)
        return st;
    if (!o) {
        *out = basalt_iceberg_arena_array(ctx, 0, sizeof(**out));
        *n = 0;
        return *out ? BASALT_OK : BASALT_NOMEM;
    }
    st = basalt_iceberg_json_kv(ctx, o, out, n);
    return st == BASALT_OK ? st : basalt_error_context(ctx->err, st, "%s", key);
}

/* ------------------------------------------------ unsigned snapshot ids */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool snapshot_id_key(const char *k, size_t n)
{
    static const char *const keys[] = {"snapshot-id", "parent-snapshot-id", "current-snapshot-id"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i]) == n && memcmp(keys[i], k, n) == 0)
            return true;
    return false;
}

/* The integer at text[i, *end) when it is one digit run in (INT64_MAX,
 * UINT64_MAX] not followed by a fraction or exponent. */
static bool unsigned_id_at(const char *text, size_t len, size_t i, size_t *end, uint64_t *v)
{
    uint64_t x = 0;
    size_t j = i;
    for (; j < len && text[j] >= '0' && text[j] <= '9'; j++) {
        uint64_t d = (uint64_t)(text[j] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    if (j == i || (j < len && (text[j] == '.' || text[j] == 'e' || text[j] == 'E')))
        return false;
    if (text[i] == '0' && j > i + 1)
        return false; /* not a JSON number */
    *end = j;
    *v = x;
    return x > (uint64_t)INT64_MAX;
}

/* Counts the ids to rewrite; with `out` (room for the result), also writes
 * the rewritten text there. */
static size_t scan_ids(const char *text, size_t len, char *out, size_t *out_len)
{
    size_t found = 0, w = 0, copied = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '"')
            continue;
        size_t start = i + 1, k = start;
        while (k < len && text[k] != '"')
            k += text[k] == '\\' ? 2 : 1;
        if (k >= len)
            break;
        size_t key_end = k;
        i = k;
        size_t j = k + 1;
        while (j < len && is_space(text[j]))
            j++;
        if (j >= len || text[j] != ':' || !snapshot_id_key(text + start, key_end - start))
            continue;
        j++;
        while (j < len && is_space(text[j]))
            j++;
        size_t end;
        uint64_t v;
        if (j >= len || !unsigned_id_at(text, len, j, &end, &v))
            continue;
        found++;
        if (out) {
            memcpy(out + w, text + copied, j - copied);
            w += j - copied;
            w += (size_t)snprintf(out + w, 24, "%lld", (long long)(int64_t)v);
            copied = end;
        }
        i = end - 1;
    }
    if (out) {
        memcpy(out + w, text + copied, len - copied);
        w += len - copied;
        out[w] = '\0';
        *out_len = w;
    }
    return found;
}

basalt_status basalt_iceberg_json_signed_snapshot_ids(const char *text, size_t len, char **out,
                                                      size_t *out_len, struct basalt_error *err)
{
    *out = NULL;
    *out_len = 0;
    size_t n = text ? scan_ids(text, len, NULL, NULL) : 0;
    if (n == 0)
        return BASALT_OK;
    /* "-9223372036854775808" is one character longer than its unsigned form */
    if (len > SIZE_MAX - n - 1)
        return basalt_error_set(err, BASALT_LIMIT, "metadata too large");
    char *copy = basalt_malloc(len + n + 1);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    scan_ids(text, len, copy, out_len);
    *out = copy;
    return BASALT_OK;
}
