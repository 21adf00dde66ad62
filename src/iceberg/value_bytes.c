/* Single-value binary serialization, spec Appendix D. */
#include <string.h>

#include "expr_internal.h"

static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void store_le(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static basalt_status decode_decimal(const uint8_t *data, size_t len, struct basalt_iceberg_value *out,
                                    struct basalt_error *err)
{
    if (len == 0)
        return basalt_error_set(err, BASALT_CORRUPT, "decimal value of 0 bytes");
    uint8_t sign = (data[0] & 0x80) ? 0xff : 0x00;
    while (len > 16) {
        if (data[0] != sign)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "decimal value of %zu bytes exceeds 128 bits", len);
        data++;
        len--;
    }
    if (((data[0] & 0x80) ? 0xff : 0x00) != sign)
        return basalt_error_set(err, BASALT_CORRUPT, "decimal value exceeds 128 bits");
    uint8_t be[16];
    memset(be, sign, 16 - len);
    memcpy(be + 16 - len, data, len);
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; i++) {
        hi = (hi << 8) | be[i];
        lo = (lo << 8) | be[8 + i];
    }
    out->u.dec.lo = lo;
    out->u.dec.hi = (int64_t)hi;
    return BASALT_OK;
}

basalt_status basalt_iceberg_value_from_bytes(const struct basalt_iceberg_type *type,
                                              const uint8_t *data, size_t len,
                                              struct basalt_iceberg_value *out,
                                              struct basalt_error *err)
{
    if (!type || !out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_from_bytes: NULL argument");
    memset(out, 0, sizeof(*out));
    out->type = type->id;
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        if (len != 1)
            break;
        out->u.b = data[0] != 0;
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        if (len != 4)
            break;
        out->u.i32 = (int32_t)(uint32_t)load_le(data, 4);
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_LONG:
        if (len == 4) { /* written while the column was an int */
            out->u.i64 = (int32_t)(uint32_t)load_le(data, 4);
            return BASALT_OK;
        }
        if (len != 8)
            break;
        out->u.i64 = (int64_t)load_le(data, 8);
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        if (len != 8)
            break;
        out->u.i64 = (int64_t)load_le(data, 8);
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_FLOAT:
        if (len != 4)
            break;
        {
            uint32_t bits = (uint32_t)load_le(data, 4);
            memcpy(&out->u.f32, &bits, 4);
        }
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        if (len == 4) { /* written while the column was a float */
            uint32_t bits = (uint32_t)load_le(data, 4);
            float f;
            memcpy(&f, &bits, 4);
            out->u.f64 = f;
            return BASALT_OK;
        }
        if (len != 8)
            break;
        {
            uint64_t bits = load_le(data, 8);
            memcpy(&out->u.f64, &bits, 8);
        }
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        out->scale = type->scale;
        return decode_decimal(data, len, out, err);
    case BASALT_ICEBERG_TYPE_UUID:
        if (len != 16)
            break;
        out->u.bytes.data = data;
        out->u.bytes.len = len;
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        out->u.bytes.data = data;
        out->u.bytes.len = len;
        return BASALT_OK;
    default:
        out->type = BASALT_ICEBERG_TYPE_NONE;
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "type %d has no single-value serialization", (int)type->id);
    }
    out->type = BASALT_ICEBERG_TYPE_NONE;
    return basalt_error_set(err, BASALT_CORRUPT, "serialized value of %zu bytes for type %d", len,
                            (int)type->id);
}

/* Fewest big-endian two's complement bytes of a decimal: drop leading bytes
 * while the next byte's top bit repeats them. */
static size_t encode_decimal(struct basalt_iceberg_decimal d, uint8_t be[16])
{
    for (int i = 0; i < 8; i++) {
        be[i] = (uint8_t)((uint64_t)d.hi >> (56 - 8 * i));
        be[8 + i] = (uint8_t)(d.lo >> (56 - 8 * i));
    }
    size_t skip = 0;
    while (skip < 15) {
        uint8_t b = be[skip], next = be[skip + 1];
        if ((b == 0x00 && !(next & 0x80)) || (b == 0xff && (next & 0x80)))
            skip++;
        else
            break;
    }
    memmove(be, be + skip, 16 - skip);
    return 16 - skip;
}

basalt_status basalt_iceberg_value_to_bytes(const struct basalt_iceberg_value *value, uint8_t *buf,
                                            size_t cap, size_t *len, struct basalt_error *err)
{
    if (!value || !len || (!buf && cap))
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_to_bytes: NULL argument");
    if (value->is_null)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a null value has no serialization");
    uint8_t tmp[16];
    const uint8_t *src = tmp;
    size_t n;
    switch (value->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        tmp[0] = value->u.b ? 1 : 0;
        n = 1;
        break;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        store_le(tmp, (uint32_t)value->u.i32, 4);
        n = 4;
        break;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        store_le(tmp, (uint64_t)value->u.i64, 8);
        n = 8;
        break;
    case BASALT_ICEBERG_TYPE_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &value->u.f32, 4);
        store_le(tmp, bits, 4);
        n = 4;
        break;
    }
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &value->u.f64, 8);
        store_le(tmp, bits, 8);
        n = 8;
        break;
    }
    case BASALT_ICEBERG_TYPE_DECIMAL:
        n = encode_decimal(value->u.dec, tmp);
        break;
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        if (!value->u.bytes.data && value->u.bytes.len)
            return basalt_error_set(err, BASALT_INVALID_ARG, "value without bytes");
        src = value->u.bytes.data;
        n = value->u.bytes.len;
        break;
    default:
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "type %d has no single-value serialization", (int)value->type);
    }
    *len = n;
    if (n > cap)
        return basalt_error_set(err, BASALT_LIMIT, "serialized value needs %zu bytes, have %zu",
                                n, cap);
    if (n)
        memcpy(buf, src, n);
    return BASALT_OK;
}
