/* Field defaults in the JSON single-value serialization (spec, Appendix
 * "JSON single-value serialization"): the value of a primitive type from its
 * JSON form. Dates, times, timestamps, decimals and UUIDs are strings; binary
 * and fixed are hex strings. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "iceberg_internal.h"

static basalt_status bad(struct basalt_iceberg_parse_ctx *ctx, const char *what)
{
    return basalt_error_set(ctx->err, BASALT_CORRUPT, "invalid %s default", what);
}

/* n decimal digits at *p (exactly n), advancing *p. */
static bool digits(const char **p, int n, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

/* Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool parse_date(const char **p, int64_t *days)
{
    int sign = 1;
    if (**p == '-' || **p == '+') {
        sign = **p == '-' ? -1 : 1;
        (*p)++;
    }
    int64_t y = 0, m, d;
    int n = 0;
    while ((*p)[n] >= '0' && (*p)[n] <= '9')
        n++;
    if (n < 4 || n > 6 || !digits(p, n, &y) || **p != '-')
        return false;
    (*p)++;
    if (!digits(p, 2, &m) || **p != '-')
        return false;
    (*p)++;
    if (!digits(p, 2, &d) || m < 1 || m > 12 || d < 1)
        return false;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    y *= sign;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[m - 1] + (m == 2 && leap))
        return false;
    *days = days_from_civil(y, m, d);
    return true;
}

/* HH:MM[:SS[.fraction]] as units of 10^-digits_max seconds. */
static bool parse_time(const char **p, int digits_max, int64_t *out)
{
    int64_t h, mi, s = 0, frac = 0;
    if (!digits(p, 2, &h) || **p != ':')
        return false;
    (*p)++;
    if (!digits(p, 2, &mi))
        return false;
    int nfrac = 0;
    if (**p == ':') {
        (*p)++;
        if (!digits(p, 2, &s))
            return false;
        if (**p == '.') {
            (*p)++;
            while (**p >= '0' && **p <= '9') {
                if (++nfrac > digits_max)
                    return false;
                frac = frac * 10 + (**p - '0');
                (*p)++;
            }
            if (nfrac == 0)
                return false;
        }
    }
    if (h > 23 || mi > 59 || s > 59)
        return false;
    for (int i = nfrac; i < digits_max; i++)
        frac *= 10;
    int64_t unit = 1;
    for (int i = 0; i < digits_max; i++)
        unit *= 10;
    *out = ((h * 60 + mi) * 60 + s) * unit + frac;
    return true;
}

static bool parse_timestamp(const char *text, bool tz, int digits_max, int64_t *out)
{
    const char *p = text;
    int64_t days, t;
    if (!parse_date(&p, &days) || (*p != 'T' && *p != ' '))
        return false;
    p++;
    if (!parse_time(&p, digits_max, &t))
        return false;
    int64_t unit = 1;
    for (int i = 0; i < digits_max; i++)
        unit *= 10;
    int64_t offset_min = 0;
    if (tz) {
        if (*p == 'Z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int sign = *p == '-' ? -1 : 1;
            int64_t oh, om;
            p++;
            if (!digits(&p, 2, &oh) || *p != ':')
                return false;
            p++;
            if (!digits(&p, 2, &om) || oh > 23 || om > 59)
                return false;
            offset_min = sign * (oh * 60 + om);
        } else {
            return false;
        }
    }
    if (*p)
        return false;
    int64_t v;
    if (__builtin_mul_overflow(days, 86400 * unit, &v) || __builtin_add_overflow(v, t, &v) ||
        __builtin_sub_overflow(v, offset_min * 60 * unit, &v))
        return false;
    *out = v;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static basalt_status parse_hex(struct basalt_iceberg_parse_ctx *ctx, const char *s, size_t n,
                               struct basalt_iceberg_value *out)
{
    if (n % 2)
        return bad(ctx, "binary");
    uint8_t *bytes = basalt_iceberg_arena_array(ctx, n / 2, 1);
    if (!bytes)
        return BASALT_NOMEM;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return bad(ctx, "binary");
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    out->u.bytes.data = bytes;
    out->u.bytes.len = n / 2;
    return BASALT_OK;
}

static basalt_status parse_uuid(struct basalt_iceberg_parse_ctx *ctx, const char *s,
                                struct basalt_iceberg_value *out)
{
    if (strlen(s) != 36)
        return bad(ctx, "uuid");
    uint8_t *bytes = basalt_iceberg_arena_array(ctx, 16, 1);
    if (!bytes)
        return BASALT_NOMEM;
    size_t j = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return bad(ctx, "uuid");
            i++;
            continue;
        }
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0)
            return bad(ctx, "uuid");
        bytes[j++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    out->u.bytes.data = bytes;
    out->u.bytes.len = 16;
    return BASALT_OK;
}

/* "123.45", "-0.5", "1E+3" (scientific notation for negative scales). */
static basalt_status parse_decimal(struct basalt_iceberg_parse_ctx *ctx, const char *s,
                                   const struct basalt_iceberg_type *type,
                                   struct basalt_iceberg_value *out)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    unsigned __int128 v = 0;
    int ndigits = 0, nfrac = 0;
    bool dot = false;
    const unsigned __int128 max38 = (unsigned __int128)10000000000000000000ull *
                                        (unsigned __int128)10000000000000000000ull -
                                    1; /* 10^38 - 1 */
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
        if (*p == '.') {
            dot = true;
            continue;
        }
        v = v * 10 + (unsigned)(*p - '0');
        if (v > max38)
            return bad(ctx, "decimal");
        ndigits++;
        if (dot)
            nfrac++;
    }
    if (ndigits == 0)
        return bad(ctx, "decimal");
    int64_t scale = nfrac;
    if (*p == 'e' || *p == 'E') {
        p++;
        bool eneg = false;
        if (*p == '-' || *p == '+')
            eneg = *p++ == '-';
        int64_t e = 0;
        int en = 0;
        while (*p >= '0' && *p <= '9') {
            e = e * 10 + (*p++ - '0');
            if (++en > 4)
                return bad(ctx, "decimal");
        }
        if (en == 0)
            return bad(ctx, "decimal");
        scale -= eneg ? -e : e;
    }
    if (*p || scale > type->scale)
        return bad(ctx, "decimal");
    for (int64_t i = scale; i < type->scale; i++) {
        v *= 10;
        if (v > max38)
            return bad(ctx, "decimal");
    }
    unsigned __int128 limit = 1;
    for (int i = 0; i < type->precision; i++)
        limit *= 10;
    if (v >= limit)
        return bad(ctx, "decimal");
    __int128 sv = neg ? -(__int128)v : (__int128)v;
    out->u.dec.lo = (uint64_t)sv;
    out->u.dec.hi = (int64_t)(sv >> 64);
    out->scale = type->scale;
    return BASALT_OK;
}

static bool special_float(const char *s, double *out)
{
    if (strcmp(s, "NaN") == 0)
        *out = NAN;
    else if (strcmp(s, "Infinity") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-Infinity") == 0)
        *out = -INFINITY;
    else
        return false;
    return true;
}

basalt_status basalt_iceberg_default_decode(struct basalt_iceberg_parse_ctx *ctx,
                                            const struct basalt_iceberg_type *type,
                                            const json_t *json, struct basalt_iceberg_value *out)
{
    memset(out, 0, sizeof(*out));
    out->type = type->id;
    out->is_null = true;
    if (json_is_null(json))
        return BASALT_OK;
    const char *s = json_string_value(json);
    size_t slen = json_string_length(json);
    if (s && strlen(s) != slen && type->id != BASALT_ICEBERG_TYPE_STRING)
        return bad(ctx, "text");
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        if (!json_is_boolean(json))
            return bad(ctx, "boolean");
        out->u.b = json_is_true(json);
        break;
    case BASALT_ICEBERG_TYPE_INT:
        if (!json_is_integer(json) || json_integer_value(json) < INT32_MIN ||
            json_integer_value(json) > INT32_MAX)
            return bad(ctx, "int");
        out->u.i32 = (int32_t)json_integer_value(json);
        break;
    case BASALT_ICEBERG_TYPE_LONG:
        if (!json_is_integer(json))
            return bad(ctx, "long");
        out->u.i64 = (int64_t)json_integer_value(json);
        break;
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        double d;
        if (json_is_number(json))
            d = json_number_value(json);
        else if (!s || !special_float(s, &d))
            return bad(ctx, type->id == BASALT_ICEBERG_TYPE_FLOAT ? "float" : "double");
        if (type->id == BASALT_ICEBERG_TYPE_FLOAT) {
            if (isfinite(d) && fabs(d) > FLT_MAX)
                return bad(ctx, "float");
            out->u.f32 = (float)d;
        }
        else
            out->u.f64 = d;
        break;
    }
    case BASALT_ICEBERG_TYPE_DECIMAL: {
        if (!s)
            return bad(ctx, "decimal");
        basalt_status st = parse_decimal(ctx, s, type, out);
        if (st != BASALT_OK)
            return st;
        break;
    }
    case BASALT_ICEBERG_TYPE_DATE: {
        const char *p = s;
        int64_t days;
        if (!s || !parse_date(&p, &days) || *p)
            return bad(ctx, "date");
        out->u.i32 = (int32_t)days;
        break;
    }
    case BASALT_ICEBERG_TYPE_TIME: {
        const char *p = s;
        int64_t t;
        if (!s || !parse_time(&p, 6, &t) || *p)
            return bad(ctx, "time");
        out->u.i64 = t;
        break;
    }
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS: {
        bool tz = type->id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ ||
                  type->id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS;
        bool ns = type->id == BASALT_ICEBERG_TYPE_TIMESTAMP_NS ||
                  type->id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS;
        if (!s || !parse_timestamp(s, tz, ns ? 9 : 6, &out->u.i64))
            return bad(ctx, "timestamp");
        break;
    }
    case BASALT_ICEBERG_TYPE_STRING: {
        if (!s)
            return bad(ctx, "string");
        char *copy = basalt_arena_strndup(ctx->arena, s, slen);
        if (!copy)
            return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
        out->u.bytes.data = (const uint8_t *)copy;
        out->u.bytes.len = slen;
        break;
    }
    case BASALT_ICEBERG_TYPE_UUID: {
        if (!s)
            return bad(ctx, "uuid");
        basalt_status st = parse_uuid(ctx, s, out);
        if (st != BASALT_OK)
            return st;
        break;
    }
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY: {
        if (!s)
            return bad(ctx, "binary");
        basalt_status st = parse_hex(ctx, s, slen, out);
        if (st != BASALT_OK)
            return st;
        if (type->id == BASALT_ICEBERG_TYPE_FIXED && out->u.bytes.len != (size_t)type->length)
            return bad(ctx, "fixed");
        break;
    }
    case BASALT_ICEBERG_TYPE_UNKNOWN:
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "a field of type unknown must default to null");
    default:
        /* Nested, variant and geospatial defaults stay as JSON text only. */
        return BASALT_OK;
    }
    out->is_null = false;
    return BASALT_OK;
}
