/* The order of values (spec: signed integers, unsigned bytes, numeric
 * decimals, the float total order). */
#include <string.h>

#include "expr_internal.h"

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return (alen > blen) - (alen < blen);
}

static int cmp_decimal(const struct basalt_iceberg_value *a, const struct basalt_iceberg_value *b)
{
    struct basalt_iceberg_decimal x = a->u.dec, y = b->u.dec;
    if (a->scale != b->scale) {
        /* Bring both to the larger scale; a value that overflows 128 bits on
         * the way is larger in magnitude than any the other can be. */
        if (a->scale < b->scale) {
            if (!basalt_iceberg_dec_rescale(&x, a->scale, b->scale))
                return basalt_iceberg_dec_is_neg(a->u.dec) ? -1 : 1;
        } else {
            if (!basalt_iceberg_dec_rescale(&y, b->scale, a->scale))
                return basalt_iceberg_dec_is_neg(b->u.dec) ? 1 : -1;
        }
    }
    return basalt_iceberg_dec_cmp(x, y);
}

int basalt_iceberg_value_compare(const struct basalt_iceberg_value *a,
                                 const struct basalt_iceberg_value *b)
{
    if (a->is_null || b->is_null || a->type != b->type) {
        if (a->is_null != b->is_null)
            return a->is_null ? -1 : 1;
        if (a->type != b->type)
            return a->type < b->type ? -1 : 1;
        return 0;
    }
    switch (a->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return (int)a->u.b - (int)b->u.b;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return cmp_i64(a->u.i32, b->u.i32);
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        return cmp_i64(a->u.i64, b->u.i64);
    case BASALT_ICEBERG_TYPE_FLOAT:
        return cmp_i64(basalt_iceberg_double_key(a->u.f32), basalt_iceberg_double_key(b->u.f32));
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return cmp_i64(basalt_iceberg_double_key(a->u.f64), basalt_iceberg_double_key(b->u.f64));
    case BASALT_ICEBERG_TYPE_DECIMAL:
        return cmp_decimal(a, b);
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        return cmp_bytes(a->u.bytes.data, a->u.bytes.len, b->u.bytes.data, b->u.bytes.len);
    default:
        return 0;
    }
}

bool basalt_iceberg_value_identical(const struct basalt_iceberg_value *a,
                                    const struct basalt_iceberg_value *b)
{
    if (a->type != b->type || a->is_null != b->is_null)
        return false;
    if (a->is_null)
        return true;
    switch (a->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return a->u.b == b->u.b;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return a->u.i32 == b->u.i32;
    case BASALT_ICEBERG_TYPE_FLOAT:
        return memcmp(&a->u.f32, &b->u.f32, sizeof(float)) == 0;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return memcmp(&a->u.f64, &b->u.f64, sizeof(double)) == 0;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        return a->scale == b->scale && a->u.dec.lo == b->u.dec.lo && a->u.dec.hi == b->u.dec.hi;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        return a->u.bytes.len == b->u.bytes.len &&
               (a->u.bytes.len == 0 || memcmp(a->u.bytes.data, b->u.bytes.data, a->u.bytes.len) == 0);
    case BASALT_ICEBERG_TYPE_NONE:
        return true;
    default:
        return a->u.i64 == b->u.i64;
    }
}
