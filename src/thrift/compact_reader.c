/* Compact protocol reader: slow paths, error reports and the public API. */
#include <stdio.h>

#include "thrift_internal.h"

void basalt_thrift_limits_init(struct basalt_thrift_limits *limits)
{
    limits->max_depth = BASALT_THRIFT_DEFAULT_MAX_DEPTH;
    limits->max_container_size = INT32_MAX;
    limits->max_binary_size = INT32_MAX;
    limits->max_memory = (size_t)1 << 30;
}

void basalt_thrift_reader_init(struct basalt_thrift_reader *r, const void *data, size_t len,
                               const struct basalt_thrift_limits *limits)
{
    struct basalt_thrift_limits defaults;
    if (!limits) {
        basalt_thrift_limits_init(&defaults);
        limits = &defaults;
    }
    r->begin = data;
    r->pos = data;
    r->end = len ? (const uint8_t *)data + len : (const uint8_t *)data;
    r->depth = 0;
    r->max_depth = limits->max_depth < BASALT_THRIFT_MAX_DEPTH_CAP ? limits->max_depth
                                                                   : BASALT_THRIFT_MAX_DEPTH_CAP;
    r->max_container_size = limits->max_container_size;
    r->max_binary_size = limits->max_binary_size;
}

size_t basalt_thrift_reader_offset(const struct basalt_thrift_reader *r)
{
    return (size_t)(r->pos - r->begin);
}

__attribute__((cold, noinline)) basalt_status
basalt_thrift_fail(const struct basalt_thrift_reader *r, struct basalt_error *err,
                   basalt_status status, const char *fmt, ...)
{
    if (!err)
        return status;
    char what[BASALT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return basalt_error_set(err, status, "%s (at byte %zu)", what, basalt_thrift_reader_offset(r));
}

__attribute__((noinline)) basalt_status
basalt_thrift_varint_slow(struct basalt_thrift_reader *r, uint64_t *out, struct basalt_error *err)
{
    const uint8_t *p = r->pos;
    uint64_t v = 0;
    if (r->end - p >= 10) {
        /* All ten bytes are there: no bound checks. */
#define VARINT_BYTE(i)                                                              \
    do {                                                                            \
        uint64_t b_ = p[i];                                                         \
        v |= (b_ & 0x7f) << (7 * (i));                                              \
        if (b_ < 0x80) {                                                            \
            r->pos = p + (i) + 1;                                                   \
            *out = v;                                                               \
            return BASALT_OK;                                                       \
        }                                                                           \
    } while (0)
        VARINT_BYTE(0);
        VARINT_BYTE(1);
        VARINT_BYTE(2);
        VARINT_BYTE(3);
        VARINT_BYTE(4);
        VARINT_BYTE(5);
        VARINT_BYTE(6);
        VARINT_BYTE(7);
        VARINT_BYTE(8);
#undef VARINT_BYTE
        if (p[9] > 1)
            return basalt_thrift_fail(r, err, BASALT_CORRUPT, "varint overflows 64 bits");
        r->pos = p + 10;
        *out = v | (uint64_t)p[9] << 63;
        return BASALT_OK;
    }
    for (int i = 0; i < 10; i++) {
        if (p >= r->end)
            return tr_truncated(r, err, "a varint");
        uint8_t b = *p++;
        if (i == 9 && b > 1)
            return basalt_thrift_fail(r, err, BASALT_CORRUPT, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (b < 0x80) {
            r->pos = p;
            *out = v;
            return BASALT_OK;
        }
    }
    return basalt_thrift_fail(r, err, BASALT_CORRUPT, "varint longer than 10 bytes");
}

static bool valid_type(uint8_t t)
{
    return t >= BASALT_THRIFT_TYPE_BOOL && t <= BASALT_THRIFT_TYPE_UUID;
}

/* Fewest bytes one value of a (valid) type takes on the wire. */
static size_t min_size(uint8_t t)
{
    return t == BASALT_THRIFT_TYPE_UUID ? 16 : t == BASALT_THRIFT_TYPE_DOUBLE ? 8 : 1;
}

__attribute__((noinline)) basalt_status
basalt_thrift_field_header_slow(struct basalt_thrift_reader *r, struct basalt_thrift_field *f,
                                uint8_t byte, struct basalt_error *err)
{
    uint8_t t = byte & 0x0f;
    uint8_t delta = byte >> 4;
    if (t == BASALT_THRIFT_TYPE_STOP) {
        f->type = BASALT_THRIFT_TYPE_STOP;
        f->bool_value = false;
        return BASALT_OK;
    }
    if (!valid_type(t)) {
        r->pos--;
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "unknown field type %u", t);
    }
    if (delta == 0) {
        int16_t id = 0;
        basalt_status st = tr_i16(r, &id, err);
        if (st != BASALT_OK)
            return st;
        f->id = id;
    } else {
        int32_t id = (int32_t)f->id + delta;
        if (id > INT16_MAX) {
            r->pos--;
            return basalt_thrift_fail(r, err, BASALT_CORRUPT, "field id delta overflows i16");
        }
        f->id = (int16_t)id;
    }
    f->bool_value = t == BASALT_THRIFT_TYPE_BOOL;
    f->type = t == BASALT_THRIFT_TYPE_BOOL_FALSE ? BASALT_THRIFT_TYPE_BOOL : t;
    return BASALT_OK;
}

static basalt_status check_size(struct basalt_thrift_reader *r, uint64_t n, size_t per_elem,
                                const char *what, struct basalt_error *err)
{
    if (n > INT32_MAX)
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "%s size %llu is not a valid i32", what,
                                  (unsigned long long)n);
    if (n > tr_left(r) / per_elem)
        return basalt_thrift_fail(r, err, BASALT_CORRUPT,
                                  "%s of %llu elements cannot fit in the %zu bytes left", what,
                                  (unsigned long long)n, tr_left(r));
    if ((int64_t)n > r->max_container_size)
        return basalt_thrift_fail(r, err, BASALT_LIMIT,
                                  "%s of %llu elements exceeds the limit of %lld", what,
                                  (unsigned long long)n, (long long)r->max_container_size);
    return BASALT_OK;
}

__attribute__((noinline)) basalt_status
basalt_thrift_list_header_slow(struct basalt_thrift_reader *r, uint8_t byte, uint8_t *elem_type,
                               uint32_t *size, struct basalt_error *err)
{
    uint8_t t = byte & 0x0f;
    uint64_t n = byte >> 4;
    if (n == 15) {
        basalt_status st = tr_varint(r, &n, err);
        if (st != BASALT_OK)
            return st;
    }
    if (n == 0) {
        *elem_type = t == BASALT_THRIFT_TYPE_BOOL_FALSE ? BASALT_THRIFT_TYPE_BOOL : t;
        *size = 0;
        return BASALT_OK;
    }
    if (!valid_type(t))
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "unknown list element type %u", t);
    basalt_status st = check_size(r, n, min_size(t), "list", err);
    if (st != BASALT_OK)
        return st;
    *elem_type = t == BASALT_THRIFT_TYPE_BOOL_FALSE ? BASALT_THRIFT_TYPE_BOOL : t;
    *size = (uint32_t)n;
    return BASALT_OK;
}

basalt_status basalt_thrift_read_varint(struct basalt_thrift_reader *r, uint64_t *out,
                                        struct basalt_error *err)
{
    return tr_varint(r, out, err);
}

basalt_status basalt_thrift_read_i8(struct basalt_thrift_reader *r, int8_t *out,
                                    struct basalt_error *err)
{
    return tr_i8(r, out, err);
}

basalt_status basalt_thrift_read_i16(struct basalt_thrift_reader *r, int16_t *out,
                                     struct basalt_error *err)
{
    return tr_i16(r, out, err);
}

basalt_status basalt_thrift_read_i32(struct basalt_thrift_reader *r, int32_t *out,
                                     struct basalt_error *err)
{
    return tr_i32(r, out, err);
}

basalt_status basalt_thrift_read_i64(struct basalt_thrift_reader *r, int64_t *out,
                                     struct basalt_error *err)
{
    return tr_i64(r, out, err);
}

basalt_status basalt_thrift_read_double(struct basalt_thrift_reader *r, double *out,
                                        struct basalt_error *err)
{
    return tr_double(r, out, err);
}

basalt_status basalt_thrift_read_bool(struct basalt_thrift_reader *r, bool *out,
                                      struct basalt_error *err)
{
    return tr_bool(r, out, err);
}

basalt_status basalt_thrift_read_binary(struct basalt_thrift_reader *r, const uint8_t **data,
                                        size_t *len, struct basalt_error *err)
{
    return tr_binary(r, data, len, err);
}

basalt_status basalt_thrift_read_uuid(struct basalt_thrift_reader *r, uint8_t out[16],
                                      struct basalt_error *err)
{
    if (tr_left(r) < 16)
        return tr_truncated(r, err, "a uuid");
    memcpy(out, r->pos, 16);
    r->pos += 16;
    return BASALT_OK;
}

basalt_status basalt_thrift_read_struct_begin(struct basalt_thrift_reader *r,
                                              struct basalt_error *err)
{
    return tr_struct_begin(r, err);
}

void basalt_thrift_read_struct_end(struct basalt_thrift_reader *r)
{
    tr_struct_end(r);
}

basalt_status basalt_thrift_read_field_header(struct basalt_thrift_reader *r,
                                              struct basalt_thrift_field *f,
                                              struct basalt_error *err)
{
    return tr_field(r, f, err);
}

basalt_status basalt_thrift_read_list_header(struct basalt_thrift_reader *r, uint8_t *elem_type,
                                             uint32_t *size, struct basalt_error *err)
{
    return tr_list(r, elem_type, size, err);
}

basalt_status basalt_thrift_read_map_header(struct basalt_thrift_reader *r, uint8_t *key_type,
                                            uint8_t *value_type, uint32_t *size,
                                            struct basalt_error *err)
{
    uint64_t n;
    basalt_status st = tr_varint(r, &n, err);
    if (st != BASALT_OK)
        return st;
    if (n == 0) {
        *key_type = *value_type = BASALT_THRIFT_TYPE_STOP;
        *size = 0;
        return BASALT_OK;
    }
    if (r->pos >= r->end)
        return tr_truncated(r, err, "a map header");
    uint8_t kt = *r->pos >> 4, vt = *r->pos & 0x0f;
    if (!valid_type(kt) || !valid_type(vt))
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "unknown map key/value types %u/%u", kt,
                                  vt);
    r->pos++;
    st = check_size(r, n, min_size(kt) + min_size(vt), "map", err);
    if (st != BASALT_OK)
        return st;
    *key_type = kt == BASALT_THRIFT_TYPE_BOOL_FALSE ? BASALT_THRIFT_TYPE_BOOL : kt;
    *value_type = vt == BASALT_THRIFT_TYPE_BOOL_FALSE ? BASALT_THRIFT_TYPE_BOOL : vt;
    *size = (uint32_t)n;
    return BASALT_OK;
}

static basalt_status skip_fixed(struct basalt_thrift_reader *r, size_t n, const char *what,
                                struct basalt_error *err)
{
    if (tr_left(r) < n)
        return tr_truncated(r, err, what);
    r->pos += n;
    return BASALT_OK;
}

basalt_status basalt_thrift_read_skip(struct basalt_thrift_reader *r, uint8_t type,
                                      struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    switch (type) {
    case BASALT_THRIFT_TYPE_BOOL:
    case BASALT_THRIFT_TYPE_BOOL_FALSE: {
        bool b;
        return tr_bool(r, &b, err);
    }
    case BASALT_THRIFT_TYPE_I8:
        return skip_fixed(r, 1, "an i8", err);
    case BASALT_THRIFT_TYPE_I16: {
        int16_t v;
        return tr_i16(r, &v, err);
    }
    case BASALT_THRIFT_TYPE_I32: {
        int32_t v;
        return tr_i32(r, &v, err);
    }
    case BASALT_THRIFT_TYPE_I64: {
        uint64_t v;
        return tr_varint(r, &v, err);
    }
    case BASALT_THRIFT_TYPE_DOUBLE:
        return skip_fixed(r, 8, "a double", err);
    case BASALT_THRIFT_TYPE_UUID:
        return skip_fixed(r, 16, "a uuid", err);
    case BASALT_THRIFT_TYPE_BINARY: {
        const uint8_t *data;
        size_t len;
        return tr_binary(r, &data, &len, err);
    }
    case BASALT_THRIFT_TYPE_STRUCT: {
        st = tr_struct_begin(r, err);
        if (st != BASALT_OK)
            return st;
        struct basalt_thrift_field f = {0};
        for (;;) {
            st = tr_field(r, &f, err);
            if (st != BASALT_OK || f.type == BASALT_THRIFT_TYPE_STOP)
                break;
            if (f.type != BASALT_THRIFT_TYPE_BOOL) {
                st = basalt_thrift_read_skip(r, f.type, err);
                if (st != BASALT_OK)
                    break;
            }
        }
        tr_struct_end(r);
        return st;
    }
    case BASALT_THRIFT_TYPE_LIST:
    case BASALT_THRIFT_TYPE_SET: {
        st = tr_struct_begin(r, err);
        if (st != BASALT_OK)
            return st;
        uint8_t et;
        uint32_t n;
        st = tr_list(r, &et, &n, err);
        if (st == BASALT_OK && n > 0) {
            if (et == BASALT_THRIFT_TYPE_I8 || et == BASALT_THRIFT_TYPE_DOUBLE ||
                et == BASALT_THRIFT_TYPE_UUID) {
                st = skip_fixed(r, (size_t)n * min_size(et), "a list", err);
            } else {
                for (uint32_t i = 0; i < n && st == BASALT_OK; i++)
                    st = basalt_thrift_read_skip(r, et, err);
            }
        }
        tr_struct_end(r);
        return st;
    }
    case BASALT_THRIFT_TYPE_MAP: {
        st = tr_struct_begin(r, err);
        if (st != BASALT_OK)
            return st;
        uint8_t kt, vt;
        uint32_t n;
        st = basalt_thrift_read_map_header(r, &kt, &vt, &n, err);
        for (uint32_t i = 0; i < n && st == BASALT_OK; i++) {
            st = basalt_thrift_read_skip(r, kt, err);
            if (st == BASALT_OK)
                st = basalt_thrift_read_skip(r, vt, err);
        }
        tr_struct_end(r);
        return st;
    }
    default:
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "cannot skip a value of unknown type %u",
                                  type);
    }
}

basalt_status basalt_thrift_read_skip_field(struct basalt_thrift_reader *r,
                                            const struct basalt_thrift_field *f,
                                            struct basalt_error *err)
{
    if (f->type == BASALT_THRIFT_TYPE_BOOL)
        return BASALT_OK;
    return basalt_thrift_read_skip(r, f->type, err);
}
