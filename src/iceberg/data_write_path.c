/* Partition paths as the Java writer names directories
 * (PartitionSpec.partitionToPath): "name=value" per spec field, joined by
 * '/', every value in the human form of its transform (toHumanString) and
 * both URL-encoded as java.net.URLEncoder does. Readers never parse these
 * paths, but people and other tools look at them, so they match byte for
 * byte: dates "2024-03-05", months "2024-03", hours "2024-03-05-10",
 * timestamps as java.time prints them ("2024-03-05T10:15:30.5Z"), binary in
 * base64, null as "null". */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "data_write_internal.h"
#include "expr_internal.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

static basalt_status put(struct basalt_buffer *out, const char *s, size_t n,
                         struct basalt_error *err)
{
    return basalt_buffer_append(out, s, n, err);
}

static basalt_status putf(struct basalt_buffer *out, struct basalt_error *err, const char *fmt,
                          ...) BASALT_PRINTF(3, 4);
static basalt_status putf(struct basalt_buffer *out, struct basalt_error *err, const char *fmt,
                          ...)
{
    char text[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof text)
        return basalt_error_set(err, BASALT_INTERNAL, "partition value text too long");
    return put(out, text, (size_t)n, err);
}

/* TransformUtil.humanDay and humanHour: String.format("%04d-%02d-%02d"). */
static basalt_status put_day(struct basalt_buffer *out, int64_t days, struct basalt_error *err)
{
    int64_t y;
    unsigned m, d;
    basalt_iceberg_civil_from_days(days, &y, &m, &d);
    return putf(out, err, "%04" PRId64 "-%02u-%02u", y, m, d);
}

/* java.time's LocalDate.toString: four digits at least, a sign for years
 * past 9999 or before year 0. */
static basalt_status put_date(struct basalt_buffer *out, int64_t days, struct basalt_error *err)
{
    int64_t y;
    unsigned m, d;
    basalt_iceberg_civil_from_days(days, &y, &m, &d);
    if (y > 9999)
        return putf(out, err, "+%" PRId64 "-%02u-%02u", y, m, d);
    if (y < 0)
        return putf(out, err, "-%04" PRId64 "-%02u-%02u", -y, m, d);
    return putf(out, err, "%04" PRId64 "-%02u-%02u", y, m, d);
}

/* java.time's LocalTime.toString: HH:mm, then :ss when seconds or a
 * fraction are non-zero, the fraction in 3, 6 or 9 digits. */
static basalt_status put_time(struct basalt_buffer *out, int64_t nanos_of_day,
                              struct basalt_error *err)
{
    int64_t s = nanos_of_day / 1000000000, ns = nanos_of_day % 1000000000;
    basalt_status st = putf(out, err, "%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60));
    if (st != BASALT_OK || (s % 60 == 0 && ns == 0))
        return st;
    st = putf(out, err, ":%02d", (int)(s % 60));
    if (st != BASALT_OK || ns == 0)
        return st;
    if (ns % 1000000 == 0)
        return putf(out, err, ".%03d", (int)(ns / 1000000));
    if (ns % 1000 == 0)
        return putf(out, err, ".%06d", (int)(ns / 1000));
    return putf(out, err, ".%09d", (int)ns);
}

/* LocalDateTime.toString ("2024-03-05T10:15"), with "Z" for an
 * OffsetDateTime in UTC. `unit` is nanoseconds per tick. */
static basalt_status put_timestamp(struct basalt_buffer *out, int64_t ticks, int64_t unit,
                                   bool zone, struct basalt_error *err)
{
    int64_t per_day = INT64_C(86400000000000) / unit;
    int64_t days = floor_div(ticks, per_day);
    int64_t rest = floor_mod(ticks, per_day) * unit;
    basalt_status st = put_date(out, days, err);
    if (st == BASALT_OK)
        st = put(out, "T", 1, err);
    if (st == BASALT_OK)
        st = put_time(out, rest, err);
    if (st == BASALT_OK && zone)
        st = put(out, "Z", 1, err);
    return st;
}

/* Java's Double.toString / Float.toString: the shortest digits that read
 * back as the value; plain between 10^-3 and 10^7, else d.dddE<exp>; always
 * a digit after the point. */
static basalt_status put_floating(struct basalt_buffer *out, double v, bool is_float,
                                  struct basalt_error *err)
{
    if (isnan(v))
        return put(out, "NaN", 3, err);
    if (isinf(v))
        return v > 0 ? put(out, "Infinity", 8, err) : put(out, "-Infinity", 9, err);
    if (v == 0)
        return signbit(v) ? put(out, "-0.0", 4, err) : put(out, "0.0", 3, err);
    /* v = d1.d2..dnd x 10^exp */
    char digits[17];
    int exp = 0;
    int nd = is_float ? basalt_float_shortest((float)v, digits, &exp)
                      : basalt_double_shortest(v, digits, &exp);
    bool neg = v < 0;
    char res[64];
    int n = 0;
    if (neg)
        res[n++] = '-';
    double mag = fabs(v);
    if (mag >= 1e-3 && mag < 1e7) {
        if (exp < 0) {
            res[n++] = '0';
            res[n++] = '.';
            for (int i = 0; i < -exp - 1; i++)
                res[n++] = '0';
            for (int i = 0; i < nd; i++)
                res[n++] = digits[i];
        } else {
            for (int i = 0; i <= exp; i++)
                res[n++] = i < nd ? digits[i] : '0';
            res[n++] = '.';
            if (nd > exp + 1)
                for (int i = exp + 1; i < nd; i++)
                    res[n++] = digits[i];
            else
                res[n++] = '0';
        }
    } else {
        res[n++] = digits[0];
        res[n++] = '.';
        if (nd > 1)
            for (int i = 1; i < nd; i++)
                res[n++] = digits[i];
        else
            res[n++] = '0';
        n += snprintf(res + n, sizeof res - (size_t)n, "E%d", exp);
    }
    return put(out, res, (size_t)n, err);
}

/* BigDecimal.toString: plain unless the adjusted exponent is below -6. */
static basalt_status put_decimal(struct basalt_buffer *out, struct basalt_iceberg_decimal d,
                                 int32_t scale, struct basalt_error *err)
{
    char plain[128];
    bool neg = basalt_iceberg_dec_is_neg(d);
    struct basalt_iceberg_decimal mag = neg ? basalt_iceberg_dec_neg(d) : d;
    int nd = basalt_iceberg_dec_digits(mag);
    int64_t adjusted = (int64_t)nd - 1 - scale;
    if (scale < 0 || adjusted >= -6) {
        size_t n = basalt_iceberg_dec_format(d, scale < 0 ? 0 : scale, plain, sizeof plain);
        basalt_status st = put(out, plain, n < sizeof plain ? n : sizeof plain - 1, err);
        for (int32_t i = 0; st == BASALT_OK && scale < 0 && i < -scale; i++)
            st = put(out, "0", 1, err);
        return st;
    }
    size_t n = basalt_iceberg_dec_format(mag, 0, plain, sizeof plain);
    basalt_status st = neg ? put(out, "-", 1, err) : BASALT_OK;
    if (st == BASALT_OK)
        st = put(out, plain, 1, err);
    if (st == BASALT_OK && n > 1) {
        st = put(out, ".", 1, err);
        if (st == BASALT_OK)
            st = put(out, plain + 1, n - 1, err);
    }
    return st == BASALT_OK ? putf(out, err, "E%" PRId64, adjusted) : st;
}

static basalt_status put_base64(struct basalt_buffer *out, const uint8_t *s, size_t n,
                                struct basalt_error *err)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < n)
            v |= s[i + 2];
        char q[4] = {alphabet[v >> 18], alphabet[(v >> 12) & 63],
                     i + 1 < n ? alphabet[(v >> 6) & 63] : '=', i + 2 < n ? alphabet[v & 63] : '='};
        basalt_status st = put(out, q, 4, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status put_uuid(struct basalt_buffer *out, const uint8_t *u,
                              struct basalt_error *err)
{
    char text[37];
    int n = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            text[n++] = '-';
        n += snprintf(text + n, sizeof text - (size_t)n, "%02x", u[i]);
    }
    return put(out, text, (size_t)n, err);
}

/* Identity and truncate values: Java's value.toString() by type, dates and
 * times through java.time, binary in base64. */
static basalt_status put_value(struct basalt_buffer *out, const struct basalt_iceberg_type *type,
                               const struct basalt_iceberg_value *v, struct basalt_error *err)
{
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return v->u.b ? put(out, "true", 4, err) : put(out, "false", 5, err);
    case BASALT_ICEBERG_TYPE_INT:
        return putf(out, err, "%" PRId32, v->u.i32);
    case BASALT_ICEBERG_TYPE_LONG:
        return putf(out, err, "%" PRId64, v->u.i64);
    case BASALT_ICEBERG_TYPE_FLOAT:
        return put_floating(out, v->u.f32, true, err);
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return put_floating(out, v->u.f64, false, err);
    case BASALT_ICEBERG_TYPE_DECIMAL:
        return put_decimal(out, v->u.dec, type->scale, err);
    case BASALT_ICEBERG_TYPE_DATE:
        return put_day(out, v->u.i32, err);
    case BASALT_ICEBERG_TYPE_TIME:
        return put_time(out, v->u.i64 * 1000, err);
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
        return put_timestamp(out, v->u.i64, 1000, false, err);
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
        return put_timestamp(out, v->u.i64, 1000, true, err);
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
        return put_timestamp(out, v->u.i64, 1, false, err);
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        return put_timestamp(out, v->u.i64, 1, true, err);
    case BASALT_ICEBERG_TYPE_STRING:
        return put(out, (const char *)v->u.bytes.data, v->u.bytes.len, err);
    case BASALT_ICEBERG_TYPE_UUID:
        if (v->u.bytes.len != 16)
            return basalt_error_set(err, BASALT_INVALID_ARG, "uuid of %zu bytes", v->u.bytes.len);
        return put_uuid(out, v->u.bytes.data, err);
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        return put_base64(out, v->u.bytes.data, v->u.bytes.len, err);
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "no partition value text for this type");
    }
}

basalt_status basalt_iceberg_dw_human_value(const struct basalt_iceberg_transform *transform,
                                            const struct basalt_iceberg_type *result,
                                            const struct basalt_iceberg_value *value,
                                            struct basalt_buffer *out, struct basalt_error *err)
{
    out->size = 0;
    basalt_status st;
    if (value->is_null || transform->kind == BASALT_ICEBERG_TRANSFORM_VOID) {
        st = put(out, "null", 4, err);
    } else {
        switch (transform->kind) {
        case BASALT_ICEBERG_TRANSFORM_YEAR:
            st = putf(out, err, "%04" PRId64, 1970 + (int64_t)value->u.i32);
            break;
        case BASALT_ICEBERG_TRANSFORM_MONTH: {
            int64_t m = value->u.i32;
            st = putf(out, err, "%04" PRId64 "-%02d", 1970 + floor_div(m, 12),
                      (int)(1 + floor_mod(m, 12)));
            break;
        }
        case BASALT_ICEBERG_TRANSFORM_DAY:
            st = put_day(out, value->u.i32, err);
            break;
        case BASALT_ICEBERG_TRANSFORM_HOUR: {
            int64_t h = value->u.i32;
            st = put_day(out, floor_div(h, 24), err);
            if (st == BASALT_OK)
                st = putf(out, err, "-%02d", (int)floor_mod(h, 24));
            break;
        }
        case BASALT_ICEBERG_TRANSFORM_BUCKET:
            st = putf(out, err, "%" PRId32, value->u.i32);
            break;
        default:
            st = put_value(out, result, value, err);
        }
    }
    if (st == BASALT_OK)
        st = put(out, "", 1, err);
    return st;
}

/* URLEncoder.encode(s, "UTF-8"): letters, digits and ".-*_" as they are,
 * ' ' as '+', every other byte %XX. */
static basalt_status put_encoded(struct basalt_buffer *out, const char *s, size_t n,
                                 struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(out, 3 * n, err);
    if (st != BASALT_OK)
        return st;
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char *dst = (char *)out->data + out->size;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '.' || c == '-' || c == '*' || c == '_') {
            dst[0] = (char)c;
            out->size++;
        } else if (c == ' ') {
            dst[0] = '+';
            out->size++;
        } else {
            dst[0] = '%';
            dst[1] = hex[c >> 4];
            dst[2] = hex[c & 15];
            out->size += 3;
        }
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_dw_partition_path(const struct basalt_iceberg_partition_spec *spec,
                                               const struct basalt_iceberg_dw_pfield *pfields,
                                               const struct basalt_iceberg_value *tuple,
                                               struct basalt_buffer *out,
                                               struct basalt_error *err)
{
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; st == BASALT_OK && i < spec->n_fields; i++) {
        const struct basalt_iceberg_partition_field *pf = &spec->fields[i];
        if (i > 0)
            st = put(out, "/", 1, err);
        const char *name = pf->name ? pf->name : "";
        if (st == BASALT_OK)
            st = put_encoded(out, name, strlen(name), err);
        if (st == BASALT_OK)
            st = put(out, "=", 1, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_dw_human_value(&pf->transform, &pfields[i].result, &tuple[i],
                                               &text, err);
        if (st == BASALT_OK)
            st = put_encoded(out, (const char *)text.data, text.size - 1, err);
    }
    basalt_buffer_reset(&text);
    return st;
}
