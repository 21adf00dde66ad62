/* Human-readable text of values. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

/* Copies text into buf (truncating), returning OK or LIMIT. */
static basalt_status put(char *buf, size_t cap, const char *text, size_t len)
{
    if (cap > 0) {
        size_t k = len < cap - 1 ? len : cap - 1;
        if (k)
            memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return len < cap ? BASALT_OK : BASALT_LIMIT;
}

bool basalt_iceberg_float_text_reads_back(const char *text, float f)
{
    return strtof(text, NULL) == f && (float)strtod(text, NULL) == f;
}

/* The shortest text that reads back as v (as the float (float)v with
 * `single`), laid out as "%.*g" lays it out with as many digits. */
static size_t shortest_float(double v, bool single, char *out, size_t cap)
{
    if (isnan(v))
        return (size_t)snprintf(out, cap, "NaN");
    if (isinf(v))
        return (size_t)snprintf(out, cap, v < 0 ? "-Infinity" : "Infinity");
    char text[BASALT_FLOAT_TEXT_MAX];
    if (single) {
        float f = (float)v;
        basalt_float_format_g(f, 1, text);
        /* Read through a double first, one float in 2^31 (7.038531e-26,
         * bits 0x15ae43fd, checked over every float) has a shortest text
         * whose double lands on the float rounding boundary and rounds to
         * the neighbour: the fewest digits both readers take back. */
        for (int p = 1; !basalt_iceberg_float_text_reads_back(text, f) && p <= 9; p++)
            snprintf(text, sizeof text, "%.*g", p, v);
    } else {
        basalt_double_format_g(v, 1, text);
    }
    return (size_t)snprintf(out, cap, "%s", text);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static size_t format_date(int64_t days, char *out, size_t cap)
{
    int64_t y;
    unsigned m, d;
    basalt_iceberg_civil_from_days(days, &y, &m, &d);
    if (y >= 0 && y <= 9999)
        return (size_t)snprintf(out, cap, "%04" PRId64 "-%02u-%02u", y, m, d);
    return (size_t)snprintf(out, cap, "%+05" PRId64 "-%02u-%02u", y, m, d);
}

/* hh:mm:ss[.fraction] of `units` since midnight, `per_second` units a second. */
static size_t format_time(int64_t units, int64_t per_second, int digits, char *out, size_t cap)
{
    int64_t secs = units / per_second, frac = units % per_second;
    int n = snprintf(out, cap, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
                     (int)(secs % 60));
    if (frac && (size_t)n < cap)
        n += snprintf(out + n, cap - (size_t)n, ".%0*" PRId64, digits, frac);
    return (size_t)n;
}

static size_t format_timestamp(int64_t v, bool nanos, bool utc, char *out, size_t cap)
{
    int64_t per_second = nanos ? 1000000000 : 1000000;
    int64_t per_day = per_second * 86400;
    int64_t days = floor_div(v, per_day);
    int64_t rest = v - days * per_day;
    size_t n = format_date(days, out, cap);
    if (n + 1 < cap) {
        out[n++] = 'T';
        n += format_time(rest, per_second, nanos ? 9 : 6, out + n, cap - n);
    }
    if (utc && n + 1 < cap) {
        out[n++] = 'Z';
        out[n] = '\0';
    }
    return n;
}

static size_t base64(const uint8_t *data, size_t len, char *out, size_t cap)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t need = (len + 2) / 3 * 4;
    if (need >= cap)
        return need;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < len)
            v |= data[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

basalt_status basalt_iceberg_value_to_string(const struct basalt_iceberg_value *value, char *buf,
                                             size_t cap)
{
    if (!value || (!buf && cap))
        return BASALT_INVALID_ARG;
    char text[128];
    size_t n;
    if (value->is_null)
        return put(buf, cap, "null", 4);
    switch (value->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return value->u.b ? put(buf, cap, "true", 4) : put(buf, cap, "false", 5);
    case BASALT_ICEBERG_TYPE_INT:
        n = (size_t)snprintf(text, sizeof(text), "%" PRId32, value->u.i32);
        break;
    case BASALT_ICEBERG_TYPE_LONG:
        n = (size_t)snprintf(text, sizeof(text), "%" PRId64, value->u.i64);
        break;
    case BASALT_ICEBERG_TYPE_FLOAT:
        n = shortest_float(value->u.f32, true, text, sizeof(text));
        break;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        n = shortest_float(value->u.f64, false, text, sizeof(text));
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        n = basalt_iceberg_dec_format(value->u.dec, value->scale, text, sizeof(text));
        break;
    case BASALT_ICEBERG_TYPE_DATE:
        n = format_date(value->u.i32, text, sizeof(text));
        break;
    case BASALT_ICEBERG_TYPE_TIME:
        if (value->u.i64 < 0)
            return BASALT_INVALID_ARG;
        n = format_time(value->u.i64, 1000000, 6, text, sizeof(text));
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS: {
        enum basalt_iceberg_type_id t = value->type;
        n = format_timestamp(value->u.i64,
                             t == BASALT_ICEBERG_TYPE_TIMESTAMP_NS ||
                                 t == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS,
                             t == BASALT_ICEBERG_TYPE_TIMESTAMPTZ ||
                                 t == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS,
                             text, sizeof(text));
        break;
    }
    case BASALT_ICEBERG_TYPE_STRING:
        return put(buf, cap, (const char *)value->u.bytes.data, value->u.bytes.len);
    case BASALT_ICEBERG_TYPE_UUID: {
        if (value->u.bytes.len != 16)
            return BASALT_INVALID_ARG;
        const uint8_t *u = value->u.bytes.data;
        n = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                text[n++] = '-';
            n += (size_t)snprintf(text + n, sizeof(text) - n, "%02x", u[i]);
        }
        break;
    }
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY: {
        n = base64(value->u.bytes.data, value->u.bytes.len, buf, cap);
        if (n < cap)
            return BASALT_OK;
        if (cap > 0)
            buf[0] = '\0';
        return BASALT_LIMIT;
    }
    default:
        return BASALT_INVALID_ARG;
    }
    return put(buf, cap, text, n);
}
