/* The Variant binary encoding: metadata, and one bounds-checked walk over a
 * value that both validates it and, when given a buffer, writes its JSON
 * text (basalt/parquet_variant.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/parquet_variant.h"
#include "parquet_column.h"
#include "variant_internal.h"

uint64_t basalt_parquet_variant_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool utf8_ok(const uint8_t *s, size_t n)
{
    int64_t offsets[2] = {0, (int64_t)n};
    return basalt_parquet_check_utf8(s, offsets, true, 0, 1, NULL) == BASALT_OK;
}

/* ------------------------------------------------------------------ metadata */

basalt_status basalt_parquet_variant_metadata_parse(const void *data, size_t len,
                                                    struct basalt_parquet_variant_metadata *out,
                                                    size_t *consumed, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "variant metadata: NULL out");
    memset(out, 0, sizeof *out);
    const uint8_t *p = data;
    if (!p || len == 0)
        return basalt_error_set(err, BASALT_CORRUPT, "variant metadata: empty");
    int version = p[0] & 0x0f;
    if (version != 1)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "variant metadata: version %d (only version 1 is known)", version);
    int osz = ((p[0] >> 6) & 3) + 1;
    if (len < 1 + (size_t)osz)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "variant metadata: %zu bytes cannot hold the dictionary size", len);
    uint64_t n = basalt_parquet_variant_le(p + 1, osz);
    uint64_t head = 1 + (uint64_t)osz;
    if ((n + 1) * (uint64_t)osz > len - head)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "variant metadata: %" PRIu64 " names need %" PRIu64
                                " offset bytes, %" PRIu64 " are left",
                                n, (n + 1) * (uint64_t)osz, len - head);
    const uint8_t *offsets = p + head;
    const uint8_t *strings = offsets + (n + 1) * (uint64_t)osz;
    size_t room = len - (size_t)(strings - p);
    uint64_t prev = basalt_parquet_variant_le(offsets, osz);
    if (prev != 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "variant metadata: the first offset is %" PRIu64 ", not 0", prev);
    bool ascii = true;
    for (uint64_t i = 1; i <= n; i++) {
        uint64_t o = basalt_parquet_variant_le(offsets + i * (uint64_t)osz, osz);
        if (o < prev || o > room)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "variant metadata: name %" PRIu64 " ends at %" PRIu64
                                    " (after %" PRIu64 ", %zu bytes of names)",
                                    i - 1, o, prev, room);
        for (uint64_t k = prev; k < o && ascii; k++)
            ascii = strings[k] < 0x80;
        prev = o;
    }
    if (!ascii) {
        uint64_t b = 0;
        for (uint64_t i = 1; i <= n; i++) {
            uint64_t e = basalt_parquet_variant_le(offsets + i * (uint64_t)osz, osz);
            if (!utf8_ok(strings + b, (size_t)(e - b)))
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "variant metadata: name %" PRIu64 " is not UTF-8", i - 1);
            b = e;
        }
    }
    out->data = p;
    out->sorted = (p[0] >> 4) & 1;
    out->offset_size = osz;
    out->dictionary_size = (uint32_t)n;
    out->offsets = offsets;
    out->strings = strings;
    out->strings_len = (size_t)prev;
    out->len = (size_t)(strings - p) + out->strings_len;
    if (consumed)
        *consumed = out->len;
    return BASALT_OK;
}

bool basalt_parquet_variant_metadata_name(const struct basalt_parquet_variant_metadata *md,
                                          uint32_t id, const uint8_t **name, size_t *len)
{
    if (!md || id >= md->dictionary_size)
        return false;
    int osz = md->offset_size;
    uint64_t b = basalt_parquet_variant_le(md->offsets + (size_t)id * osz, osz);
    uint64_t e = basalt_parquet_variant_le(md->offsets + ((size_t)id + 1) * osz, osz);
    *name = md->strings + b;
    *len = (size_t)(e - b);
    return true;
}

static int compare_names(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return (alen > blen) - (alen < blen);
}

int64_t basalt_parquet_variant_metadata_find(const struct basalt_parquet_variant_metadata *md,
                                             const void *name, size_t len)
{
    if (!md || (!name && len))
        return -1;
    const uint8_t *s;
    size_t n;
    if (md->sorted) {
        uint32_t lo = 0, hi = md->dictionary_size;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            basalt_parquet_variant_metadata_name(md, mid, &s, &n);
            int c = compare_names(s, n, name, len);
            if (c == 0)
                return mid;
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* A writer that set the flag without sorting is not trusted
         * further than this: fall back on the scan. */
    }
    for (uint32_t i = 0; i < md->dictionary_size; i++) {
        basalt_parquet_variant_metadata_name(md, i, &s, &n);
        if (n == len && (len == 0 || memcmp(s, name, len) == 0))
            return i;
    }
    return -1;
}

/* ------------------------------------------------------------------ values */

int basalt_parquet_variant_primitive_size(int type)
{
    switch (type) {
    case BASALT_PARQUET_VARIANT_NULL:
    case BASALT_PARQUET_VARIANT_TRUE:
    case BASALT_PARQUET_VARIANT_FALSE: return 0;
    case BASALT_PARQUET_VARIANT_INT8: return 1;
    case BASALT_PARQUET_VARIANT_INT16: return 2;
    case BASALT_PARQUET_VARIANT_INT32:
    case BASALT_PARQUET_VARIANT_DATE:
    case BASALT_PARQUET_VARIANT_FLOAT: return 4;
    case BASALT_PARQUET_VARIANT_INT64:
    case BASALT_PARQUET_VARIANT_DOUBLE:
    case BASALT_PARQUET_VARIANT_TIMESTAMP_MICROS:
    case BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_MICROS:
    case BASALT_PARQUET_VARIANT_TIME_NTZ_MICROS:
    case BASALT_PARQUET_VARIANT_TIMESTAMP_NANOS:
    case BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_NANOS: return 8;
    case BASALT_PARQUET_VARIANT_DECIMAL4: return 5;
    case BASALT_PARQUET_VARIANT_DECIMAL8: return 9;
    case BASALT_PARQUET_VARIANT_DECIMAL16: return 17;
    case BASALT_PARQUET_VARIANT_UUID: return 16;
    case BASALT_PARQUET_VARIANT_BINARY:
    case BASALT_PARQUET_VARIANT_STRING: return -4; /* a 4-byte length, then the bytes */
    default: return -1;
    }
}

struct vwalk {
    const struct basalt_parquet_variant_metadata *md;
    struct basalt_buffer *out; /* NULL: validate only */
    struct basalt_error *err;
};

static basalt_status put(struct vwalk *w, const void *p, size_t n)
{
    return basalt_buffer_append(w->out, p, n, w->err);
}

static basalt_status puts_(struct vwalk *w, const char *s)
{
    return put(w, s, strlen(s));
}

static basalt_status primitive(struct vwalk *w, int type, const uint8_t *d, size_t n)
{
    if (type == BASALT_PARQUET_VARIANT_DECIMAL4 || type == BASALT_PARQUET_VARIANT_DECIMAL8 ||
        type == BASALT_PARQUET_VARIANT_DECIMAL16) {
        if (d[0] > 38)
            return basalt_error_set(w->err, BASALT_CORRUPT, "decimal scale %d outside 0..38",
                                    d[0]);
    }
    if (type == BASALT_PARQUET_VARIANT_STRING && !utf8_ok(d + 4, n - 4))
        return basalt_error_set(w->err, BASALT_CORRUPT, "a string that is not UTF-8");
    if (!w->out)
        return BASALT_OK;
    return basalt_parquet_variant_json_primitive(w->out, type, d, n, w->err);
}

static basalt_status walk(struct vwalk *w, const uint8_t *p, size_t len, int depth,
                          size_t *size);

/* Objects (basic type 2) and arrays (3) share their layout but for the
 * field ids. */
static basalt_status nested(struct vwalk *w, const uint8_t *p, size_t len, int depth,
                            size_t *size)
{
    bool object = (p[0] & 3) == BASALT_PARQUET_VARIANT_BASIC_OBJECT;
    int h = p[0] >> 2;
    int off_size = (h & 3) + 1;
    int id_size = object ? ((h >> 2) & 3) + 1 : 0;
    bool large = object ? (h >> 4) & 1 : (h >> 2) & 1;
    const char *what = object ? "object" : "array";
    if (depth >= BASALT_PARQUET_VARIANT_MAX_DEPTH)
        return basalt_error_set(w->err, BASALT_LIMIT, "nested deeper than %d levels",
                                BASALT_PARQUET_VARIANT_MAX_DEPTH);
    size_t count_size = large ? 4 : 1;
    if (len < 1 + count_size)
        return basalt_error_set(w->err, BASALT_CORRUPT, "%s header past the end of the value",
                                what);
    uint64_t n = basalt_parquet_variant_le(p + 1, (int)count_size);
    uint64_t head = 1 + count_size + n * (uint64_t)id_size + (n + 1) * (uint64_t)off_size;
    if (head > len)
        return basalt_error_set(w->err, BASALT_CORRUPT,
                                "%s of %" PRIu64 " elements needs %" PRIu64
                                " header bytes, the value has %zu",
                                what, n, head, len);
    const uint8_t *ids = p + 1 + count_size;
    const uint8_t *offs = ids + n * (uint64_t)id_size;
    uint64_t fields_len = basalt_parquet_variant_le(offs + n * (uint64_t)off_size, off_size);
    if (fields_len > len - head)
        return basalt_error_set(w->err, BASALT_CORRUPT,
                                "%s values end at byte %" PRIu64 ", past the %zu bytes left",
                                what, fields_len, (size_t)(len - head));
    const uint8_t *fields = p + head;
    basalt_status st = BASALT_OK;
    if (w->out)
        st = puts_(w, object ? "{" : "[");
    for (uint64_t i = 0; i < n && st == BASALT_OK; i++) {
        uint64_t o = basalt_parquet_variant_le(offs + i * (uint64_t)off_size, off_size);
        if (o >= fields_len)
            return basalt_error_set(w->err, BASALT_CORRUPT,
                                    "%s element %" PRIu64 " starts at %" PRIu64
                                    ", outside its %" PRIu64 " bytes of values",
                                    what, i, o, fields_len);
        if (w->out && i)
            st = puts_(w, ",");
        if (object) {
            uint64_t id = basalt_parquet_variant_le(ids + i * (uint64_t)id_size, id_size);
            const uint8_t *name;
            size_t name_len;
            if (!basalt_parquet_variant_metadata_name(w->md, (uint32_t)id, &name, &name_len) ||
                id > UINT32_MAX)
                return basalt_error_set(w->err, BASALT_CORRUPT,
                                        "object field %" PRIu64 ": field id %" PRIu64
                                        " outside the dictionary of %" PRIu32 " names",
                                        i, id, w->md->dictionary_size);
            if (st == BASALT_OK && w->out) {
                st = basalt_parquet_variant_json_string(w->out, name, name_len, w->err);
                if (st == BASALT_OK)
                    st = puts_(w, ":");
            }
            if (st != BASALT_OK)
                return st;
            size_t child;
            st = walk(w, fields + o, (size_t)(fields_len - o), depth + 1, &child);
            if (st != BASALT_OK) {
                char shown[40];
                size_t k = name_len < sizeof shown - 1 ? name_len : sizeof shown - 1;
                memcpy(shown, name, k);
                shown[k] = '\0';
                return basalt_error_context(w->err, st, "object field '%s'", shown);
            }
        } else {
            size_t child;
            if (st == BASALT_OK)
                st = walk(w, fields + o, (size_t)(fields_len - o), depth + 1, &child);
            if (st != BASALT_OK)
                return basalt_error_context(w->err, st, "array element %" PRIu64, i);
        }
    }
    if (st == BASALT_OK && w->out)
        st = puts_(w, object ? "}" : "]");
    *size = (size_t)(head + fields_len);
    return st;
}

static basalt_status walk(struct vwalk *w, const uint8_t *p, size_t len, int depth,
                          size_t *size)
{
    if (len == 0)
        return basalt_error_set(w->err, BASALT_CORRUPT, "empty value");
    int basic = p[0] & 3;
    int h = p[0] >> 2;
    switch (basic) {
    case BASALT_PARQUET_VARIANT_BASIC_PRIMITIVE: {
        int n = basalt_parquet_variant_primitive_size(h);
        if (n == -1)
            return basalt_error_set(w->err, BASALT_CORRUPT, "unknown primitive type %d", h);
        size_t total = (size_t)(n < 0 ? 4 : n);
        if (len - 1 < total)
            return basalt_error_set(w->err, BASALT_CORRUPT,
                                    "primitive type %d needs %zu bytes, %zu are left", h, total,
                                    len - 1);
        if (n < 0) {
            uint64_t k = basalt_parquet_variant_le(p + 1, 4);
            if (k > len - 5)
                return basalt_error_set(w->err, BASALT_CORRUPT,
                                        "a %s of %" PRIu64 " bytes, %zu are left",
                                        h == BASALT_PARQUET_VARIANT_STRING ? "string" : "binary",
                                        k, len - 5);
            total += (size_t)k;
        }
        *size = 1 + total;
        return primitive(w, h, p + 1, total);
    }
    case BASALT_PARQUET_VARIANT_BASIC_SHORT_STRING:
        if ((size_t)h > len - 1)
            return basalt_error_set(w->err, BASALT_CORRUPT,
                                    "a short string of %d bytes, %zu are left", h, len - 1);
        if (!utf8_ok(p + 1, (size_t)h))
            return basalt_error_set(w->err, BASALT_CORRUPT, "a string that is not UTF-8");
        *size = 1 + (size_t)h;
        return w->out ? basalt_parquet_variant_json_string(w->out, p + 1, (size_t)h, w->err)
                      : BASALT_OK;
    default:
        return nested(w, p, len, depth, size);
    }
}

basalt_status basalt_parquet_variant_validate(const struct basalt_parquet_variant_metadata *md,
                                              const void *value, size_t len, size_t *size,
                                              struct basalt_error *err)
{
    if (!md)
        return basalt_error_set(err, BASALT_INVALID_ARG, "variant value: NULL metadata");
    if (!value && len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "variant value: NULL bytes");
    struct vwalk w = {md, NULL, err};
    size_t n = 0;
    basalt_status st = walk(&w, value, len, 0, &n);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "variant value");
    if (size)
        *size = n;
    return BASALT_OK;
}

basalt_status basalt_parquet_variant_to_json(const void *metadata, size_t metadata_len,
                                             const void *value, size_t value_len,
                                             struct basalt_buffer *out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "variant: NULL output buffer");
    struct basalt_parquet_variant_metadata md;
    basalt_status st = basalt_parquet_variant_metadata_parse(metadata, metadata_len, &md, NULL,
                                                             err);
    if (st != BASALT_OK)
        return st;
    if (!value && value_len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "variant value: NULL bytes");
    struct vwalk w = {&md, out, err};
    size_t n;
    st = walk(&w, value, value_len, 0, &n);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "variant value");
    return BASALT_OK;
}
