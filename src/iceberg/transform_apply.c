/* Partition transforms: the bucket hash and applying a transform to a value. */
#include <math.h>
#include <string.h>

#include "basalt/hash.h"
#include "transform_internal.h"

int64_t basalt_iceberg_tx_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* Proleptic Gregorian calendar from a day count, by 400-year eras (each era
 * is 146097 days), with years starting in March so the leap day comes last. */
void basalt_iceberg_tx_civil(int64_t days, int64_t *year, int *month)
{
    int64_t z = days + 719468; /* days since 0000-03-01 */
    int64_t era = basalt_iceberg_tx_floor_div(z, 146097);
    int64_t doe = z - era * 146097;                                      /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                                    /* [0, 11], March = 0 */
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (m <= 2);
    *month = m;
}

static int32_t hash_bytes(const uint8_t *data, size_t len)
{
    return (int32_t)basalt_hash_murmur3_32(data, len, 0);
}

static int32_t hash_long(int64_t v)
{
    return (int32_t)basalt_hash_murmur3_32_i64(v);
}

/* The fewest big-endian two's complement bytes that hold the value: a
 * leading byte is dropped while it only repeats the sign of the next one. */
static size_t decimal_min_bytes(struct basalt_iceberg_decimal d, uint8_t out[16])
{
    uint64_t hi = (uint64_t)d.hi;
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(hi >> (56 - 8 * i));
        out[8 + i] = (uint8_t)(d.lo >> (56 - 8 * i));
    }
    size_t start = 0;
    while (start < 15) {
        uint8_t b = out[start], next_sign = out[start + 1] & 0x80;
        if ((b == 0x00 && !next_sign) || (b == 0xff && next_sign))
            start++;
        else
            break;
    }
    memmove(out, out + start, 16 - start);
    return 16 - start;
}

static int32_t hash_double(double v)
{
    uint64_t bits;
    if (isnan(v)) {
        bits = UINT64_C(0x7ff8000000000000);
    } else {
        if (v == 0.0)
            v = 0.0; /* -0.0 hashes as 0.0 */
        memcpy(&bits, &v, sizeof bits);
    }
    return hash_long((int64_t)bits);
}

int32_t basalt_iceberg_bucket_hash(const struct basalt_iceberg_value *value)
{
    if (!value || value->is_null)
        return 0;
    switch (value->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return hash_long(value->u.b ? 1 : 0);
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return hash_long(value->u.i32);
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
        return hash_long(value->u.i64);
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        /* hashed in microseconds, so promoting a column keeps its buckets */
        return hash_long(basalt_iceberg_tx_floor_div(value->u.i64, 1000));
    case BASALT_ICEBERG_TYPE_FLOAT:
        return hash_double((double)value->u.f32);
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return hash_double(value->u.f64);
    case BASALT_ICEBERG_TYPE_DECIMAL: {
        uint8_t buf[16];
        size_t n = decimal_min_bytes(value->u.dec, buf);
        return hash_bytes(buf, n);
    }
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        return hash_bytes(value->u.bytes.data, value->u.bytes.len);
    default:
        return 0;
    }
}

/* ----------------------------------------------------------------- truncate */

/* v - (v mod w) with a non-negative remainder; wraps at the type's edge as
 * the reference implementation does. */
static int64_t truncate_i64(int64_t v, int32_t w)
{
    int64_t r = v % w;
    if (r < 0)
        r += w;
    return (int64_t)((uint64_t)v - (uint64_t)r);
}

static struct basalt_iceberg_decimal truncate_decimal(struct basalt_iceberg_decimal d, int32_t w)
{
    uint64_t uw = (uint64_t)w;
    /* value = hi * 2^64 + lo, so value mod w from the parts; every product
     * stays below 2^62 because w < 2^31. */
    int64_t hm = d.hi % w;
    if (hm < 0)
        hm += w;
    uint64_t p32 = (UINT64_C(1) << 32) % uw;
    uint64_t p64 = (p32 * p32) % uw;
    uint64_t r = (((uint64_t)hm * p64) % uw + d.lo % uw) % uw;
    struct basalt_iceberg_decimal out = d;
    out.lo = d.lo - r;
    out.hi = (int64_t)((uint64_t)d.hi - (d.lo < r ? 1u : 0u));
    return out;
}

/* Bytes of the first `w` code points (a continuation byte never starts one,
 * so malformed UTF-8 still truncates without reading past len). */
static size_t truncate_utf8(const uint8_t *s, size_t len, int32_t w)
{
    int64_t points = 0;
    for (size_t i = 0; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            if (points == w)
                return i;
            points++;
        }
    }
    return len;
}

/* ------------------------------------------------------------------- time */

#define USEC_PER_HOUR INT64_C(3600000000)
#define USEC_PER_DAY INT64_C(86400000000)

/* The day of a date or timestamp value, and its hour when it has one. */
static int64_t value_days(const struct basalt_iceberg_value *v, int64_t *hours)
{
    int64_t unit_hour = USEC_PER_HOUR, unit_day = USEC_PER_DAY;
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_DATE:
        *hours = (int64_t)v->u.i32 * 24;
        return v->u.i32;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        unit_hour *= 1000;
        unit_day *= 1000;
        /* fall through */
    default:
        *hours = basalt_iceberg_tx_floor_div(v->u.i64, unit_hour);
        return basalt_iceberg_tx_floor_div(v->u.i64, unit_day);
    }
}

basalt_status basalt_iceberg_transform_apply(const struct basalt_iceberg_transform *t,
                                             const struct basalt_iceberg_type *source,
                                             const struct basalt_iceberg_value *in,
                                             struct basalt_iceberg_value *out,
                                             struct basalt_error *err)
{
    struct basalt_iceberg_type rtype;
    basalt_status st = basalt_iceberg_transform_result_type(t, source, &rtype, err);
    if (st != BASALT_OK)
        return st;
    if (!in || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "transform: NULL argument");
    if (!in->is_null && in->type != source->id)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "transform '%s': value type does not match the source type",
                                t->text ? t->text : "?");
    struct basalt_iceberg_value v = *in;
    memset(out, 0, sizeof *out);
    out->type = rtype.id;
    if (in->is_null || t->kind == BASALT_ICEBERG_TRANSFORM_VOID) {
        out->is_null = true;
        if (rtype.id == BASALT_ICEBERG_TYPE_DECIMAL)
            out->scale = rtype.scale;
        return BASALT_OK;
    }
    int64_t hours, days;
    switch (t->kind) {
    case BASALT_ICEBERG_TRANSFORM_IDENTITY:
        *out = v;
        return BASALT_OK;
    case BASALT_ICEBERG_TRANSFORM_BUCKET:
        out->u.i32 = (basalt_iceberg_bucket_hash(&v) & INT32_MAX) % t->param;
        return BASALT_OK;
    case BASALT_ICEBERG_TRANSFORM_TRUNCATE:
        *out = v;
        switch (v.type) {
        case BASALT_ICEBERG_TYPE_INT:
            out->u.i32 = (int32_t)(uint32_t)truncate_i64(v.u.i32, t->param);
            break;
        case BASALT_ICEBERG_TYPE_LONG:
            out->u.i64 = truncate_i64(v.u.i64, t->param);
            break;
        case BASALT_ICEBERG_TYPE_DECIMAL:
            out->u.dec = truncate_decimal(v.u.dec, t->param);
            break;
        case BASALT_ICEBERG_TYPE_STRING:
            out->u.bytes.len = truncate_utf8(v.u.bytes.data, v.u.bytes.len, t->param);
            break;
        default: /* binary */
            if (out->u.bytes.len > (size_t)t->param)
                out->u.bytes.len = (size_t)t->param;
            break;
        }
        return BASALT_OK;
    case BASALT_ICEBERG_TRANSFORM_YEAR:
    case BASALT_ICEBERG_TRANSFORM_MONTH: {
        days = value_days(&v, &hours);
        int64_t year;
        int month;
        basalt_iceberg_tx_civil(days, &year, &month);
        int64_t r = year - 1970;
        if (t->kind == BASALT_ICEBERG_TRANSFORM_MONTH)
            r = r * 12 + (month - 1);
        out->u.i32 = (int32_t)r;
        return BASALT_OK;
    }
    case BASALT_ICEBERG_TRANSFORM_DAY:
        out->u.i32 = (int32_t)value_days(&v, &hours);
        return BASALT_OK;
    case BASALT_ICEBERG_TRANSFORM_HOUR:
        value_days(&v, &hours);
        out->u.i32 = (int32_t)hours;
        return BASALT_OK;
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "transform '%s' is not supported",
                                t->text ? t->text : "?");
    }
}
