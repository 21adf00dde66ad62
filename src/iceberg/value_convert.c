/* Literal conversion to a column's type (spec, and the Java implementation's
 * Literals rules), with range reporting for folding out-of-range comparisons. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "expr_internal.h"

/* ------------------------------------------------------------ text parsing */

struct text {
    const char *s;
    size_t len, pos;
};

static bool digits(struct text *t, int min, int max, int64_t *out, int *count)
{
    int64_t v = 0;
    int n = 0;
    while (t->pos < t->len && n < max && t->s[t->pos] >= '0' && t->s[t->pos] <= '9') {
        v = v * 10 + (t->s[t->pos] - '0');
        t->pos++;
        n++;
    }
    if (count)
        *count = n;
    *out = v;
    return n >= min;
}

static bool lit(struct text *t, char c)
{
    if (t->pos < t->len && t->s[t->pos] == c) {
        t->pos++;
        return true;
    }
    return false;
}

static bool parse_date(struct text *t, int64_t *days)
{
    bool neg = false;
    if (t->pos < t->len && (t->s[t->pos] == '-' || t->s[t->pos] == '+'))
        neg = t->s[t->pos++] == '-';
    int64_t y, m, d;
    if (!digits(t, 4, 9, &y, NULL) || !lit(t, '-') || !digits(t, 2, 2, &m, NULL) ||
        !lit(t, '-') || !digits(t, 2, 2, &d, NULL))
        return false;
    if (neg)
        y = -y;
    static const uint8_t mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (m == 2 && d == 29 && !leap)
        return false;
    *days = basalt_iceberg_days_from_civil(y, (unsigned)m, (unsigned)d);
    return true;
}

/* hh:mm[:ss[.f]] in units of 10^-frac_max seconds. */
static bool parse_time(struct text *t, int frac_max, int64_t *units)
{
    int64_t h, m, s = 0, f = 0;
    if (!digits(t, 2, 2, &h, NULL) || !lit(t, ':') || !digits(t, 2, 2, &m, NULL))
        return false;
    int nf = 0;
    if (lit(t, ':')) {
        if (!digits(t, 2, 2, &s, NULL))
            return false;
        if (lit(t, '.') && !digits(t, 1, frac_max, &f, &nf))
            return false;
        if (t->pos < t->len && t->s[t->pos] >= '0' && t->s[t->pos] <= '9')
            return false; /* more fraction digits than the type holds */
    }
    if (h > 23 || m > 59 || s > 59)
        return false;
    for (int i = nf; i < frac_max; i++)
        f *= 10;
    int64_t per_second = 1;
    for (int i = 0; i < frac_max; i++)
        per_second *= 10;
    *units = ((h * 60 + m) * 60 + s) * per_second + f;
    return true;
}

/* Z | (+|-)hh[[:]mm] -> seconds east of UTC. */
static bool parse_offset(struct text *t, bool *present, int64_t *seconds)
{
    *present = false;
    *seconds = 0;
    if (t->pos >= t->len)
        return true;
    char c = t->s[t->pos];
    if (c == 'Z' || c == 'z') {
        t->pos++;
        *present = true;
        return true;
    }
    if (c != '+' && c != '-')
        return false;
    t->pos++;
    int64_t h, m = 0;
    if (!digits(t, 2, 2, &h, NULL))
        return false;
    if (lit(t, ':')) {
        if (!digits(t, 2, 2, &m, NULL))
            return false;
    } else if (t->pos < t->len) {
        if (!digits(t, 2, 2, &m, NULL))
            return false;
    }
    if (h > 18 || m > 59)
        return false;
    *present = true;
    *seconds = (c == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return true;
}

static bool parse_timestamp(struct text *t, bool nanos, bool with_zone, int64_t *out, int *range)
{
    int64_t days, units = 0;
    if (!parse_date(t, &days))
        return false;
    int64_t per_second = nanos ? 1000000000 : 1000000;
    if (t->pos < t->len && (t->s[t->pos] == 'T' || t->s[t->pos] == 't' || t->s[t->pos] == ' ')) {
        t->pos++;
        if (!parse_time(t, nanos ? 9 : 6, &units))
            return false;
    }
    bool has_offset;
    int64_t offset;
    if (!parse_offset(t, &has_offset, &offset) || t->pos != t->len)
        return false;
    if (has_offset && !with_zone)
        return false; /* a local timestamp has no zone to convert from */
    int64_t secs = days * 86400 - offset, v;
    if (__builtin_mul_overflow(secs, per_second, &v) || __builtin_add_overflow(v, units, &v)) {
        *range = secs < 0 ? -1 : 1;
        return true;
    }
    *out = v;
    return true;
}

static bool parse_uuid(const char *s, size_t len, uint8_t out[16])
{
    if (len != 36)
        return false;
    int k = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
            i++;
            continue;
        }
        int v = 0;
        for (int j = 0; j < 2; j++, i++) {
            char c = s[i];
            int x = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (x < 0)
                return false;
            v = v * 16 + x;
        }
        out[k++] = (uint8_t)v;
    }
    return true;
}

/* [+-]digits[.digits] -> unscaled value and scale. */
static bool parse_decimal_text(const char *s, size_t len, struct basalt_iceberg_decimal *d,
                               int32_t *scale)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    struct basalt_iceberg_decimal v = {0, 0};
    int n = 0, sc = 0;
    bool point = false;
    for (; i < len; i++) {
        if (s[i] == '.' && !point) {
            point = true;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            return false;
        if (++n > BASALT_ICEBERG_DECIMAL_MAX_DIGITS)
            return false;
        basalt_iceberg_dec_mul_add(&v, 10, (uint32_t)(s[i] - '0'));
        if (point)
            sc++;
    }
    if (n == 0)
        return false;
    *d = neg ? basalt_iceberg_dec_neg(v) : v;
    *scale = sc;
    return true;
}

/* ------------------------------------------------------------ conversion */

static basalt_status fail(struct basalt_error *err, const struct basalt_iceberg_value *in,
                          const struct basalt_iceberg_type *to, const char *why)
{
    char text[72];
    if (basalt_iceberg_value_to_string(in, text, sizeof(text)) == BASALT_LIMIT)
        memcpy(text + sizeof(text) - 4, "...", 4);
    return basalt_error_set(err, BASALT_INVALID_ARG, "cannot convert '%s' to type %d: %s", text,
                            (int)to->id, why);
}

/* The value as an exact integer: 0 OK, +1/-1 out of int64 range, -2 not an
 * integer. */
static int as_integer(const struct basalt_iceberg_value *in, int64_t *out)
{
    switch (in->type) {
    case BASALT_ICEBERG_TYPE_INT:
        *out = in->u.i32;
        return 0;
    case BASALT_ICEBERG_TYPE_LONG:
        *out = in->u.i64;
        return 0;
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        double v = in->type == BASALT_ICEBERG_TYPE_FLOAT ? in->u.f32 : in->u.f64;
        if (isnan(v))
            return -2;
        if (v >= 9223372036854775808.0)
            return 1;
        if (v < -9223372036854775808.0)
            return -1;
        if (v != floor(v))
            return -2;
        *out = (int64_t)v;
        return 0;
    }
    case BASALT_ICEBERG_TYPE_DECIMAL: {
        struct basalt_iceberg_decimal d = in->u.dec;
        bool neg = basalt_iceberg_dec_is_neg(d);
        struct basalt_iceberg_decimal m = neg ? basalt_iceberg_dec_neg(d) : d;
        for (int32_t s = in->scale; s > 0; s--)
            if (basalt_iceberg_dec_divmod(&m, 10) != 0)
                return -2;
        for (int32_t s = in->scale; s < 0; s++)
            if (!basalt_iceberg_dec_mul_add(&m, 10, 0))
                return neg ? -1 : 1;
        if (m.hi != 0 || m.lo > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
            return neg ? -1 : 1;
        *out = neg ? (int64_t)(0 - m.lo) : (int64_t)m.lo;
        return 0;
    }
    default:
        return -2;
    }
}

static bool as_double(const struct basalt_iceberg_value *in, double *out)
{
    switch (in->type) {
    case BASALT_ICEBERG_TYPE_INT:
        *out = in->u.i32;
        return true;
    case BASALT_ICEBERG_TYPE_LONG:
        *out = (double)in->u.i64;
        return true;
    case BASALT_ICEBERG_TYPE_FLOAT:
        *out = in->u.f32;
        return true;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        *out = in->u.f64;
        return true;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        *out = basalt_iceberg_dec_to_double(in->u.dec, in->scale);
        return true;
    default:
        return false;
    }
}

static basalt_status to_decimal(const struct basalt_iceberg_value *in,
                                const struct basalt_iceberg_type *to,
                                struct basalt_iceberg_value *out, int *range,
                                struct basalt_error *err)
{
    struct basalt_iceberg_decimal d;
    int32_t scale;
    switch (in->type) {
    case BASALT_ICEBERG_TYPE_INT:
        d = basalt_iceberg_dec_from_i64(in->u.i32);
        scale = 0;
        break;
    case BASALT_ICEBERG_TYPE_LONG:
        d = basalt_iceberg_dec_from_i64(in->u.i64);
        scale = 0;
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        d = in->u.dec;
        scale = in->scale;
        break;
    case BASALT_ICEBERG_TYPE_STRING:
        if (!parse_decimal_text((const char *)in->u.bytes.data, in->u.bytes.len, &d, &scale))
            return fail(err, in, to, "not a decimal number");
        break;
    default:
        return fail(err, in, to, "no conversion to decimal");
    }
    bool neg = basalt_iceberg_dec_is_neg(d);
    struct basalt_iceberg_decimal r = d;
    if (!basalt_iceberg_dec_rescale(&r, scale, to->scale)) {
        if (scale > to->scale) {
            /* Digits would be lost unless the value is simply too large. */
            struct basalt_iceberg_decimal m = neg ? basalt_iceberg_dec_neg(d) : d;
            for (int32_t s = scale; s > to->scale; s--)
                if (basalt_iceberg_dec_divmod(&m, 10) != 0)
                    return fail(err, in, to, "the scale does not convert exactly");
        }
        *range = neg ? -1 : 1;
        return BASALT_OK;
    }
    if (basalt_iceberg_dec_digits(r) > to->precision) {
        *range = neg ? -1 : 1;
        return BASALT_OK;
    }
    out->u.dec = r;
    out->scale = to->scale;
    return BASALT_OK;
}

basalt_status basalt_iceberg_value_convert_range(const struct basalt_iceberg_value *in,
                                                 const struct basalt_iceberg_type *to,
                                                 struct basalt_arena *arena,
                                                 struct basalt_iceberg_value *out, int *range,
                                                 struct basalt_error *err)
{
    if (!in || !to || !out || !range)
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_convert: NULL argument");
    *range = 0;
    struct basalt_iceberg_value r;
    memset(&r, 0, sizeof(r));
    r.type = to->id;
    if (in->is_null) {
        r.is_null = true;
        *out = r;
        return BASALT_OK;
    }
    enum basalt_iceberg_type_id from = in->type;
    bool is_string = from == BASALT_ICEBERG_TYPE_STRING;
    struct text t = {is_string ? (const char *)in->u.bytes.data : "", is_string ? in->u.bytes.len : 0,
                     0};
    basalt_status st;
    switch (to->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        if (from != BASALT_ICEBERG_TYPE_BOOLEAN)
            return fail(err, in, to, "no conversion to boolean");
        r.u.b = in->u.b;
        break;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_LONG: {
        int64_t v;
        int k = as_integer(in, &v);
        if (k == -2)
            return fail(err, in, to, "not an integer");
        if (k == 0 && to->id == BASALT_ICEBERG_TYPE_INT && (v > INT32_MAX || v < INT32_MIN))
            k = v > 0 ? 1 : -1;
        if (k) {
            *range = k;
            return BASALT_OK;
        }
        if (to->id == BASALT_ICEBERG_TYPE_INT)
            r.u.i32 = (int32_t)v;
        else
            r.u.i64 = v;
        break;
    }
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        double v;
        if (!as_double(in, &v))
            return fail(err, in, to, "not a number");
        if (to->id == BASALT_ICEBERG_TYPE_FLOAT) {
            if (isfinite(v) && fabs(v) > FLT_MAX) {
                *range = v > 0 ? 1 : -1;
                return BASALT_OK;
            }
            r.u.f32 = (float)v;
        } else {
            r.u.f64 = v;
        }
        break;
    }
    case BASALT_ICEBERG_TYPE_DECIMAL:
        st = to_decimal(in, to, &r, range, err);
        if (st != BASALT_OK || *range)
            return st;
        break;
    case BASALT_ICEBERG_TYPE_DATE:
        if (from == BASALT_ICEBERG_TYPE_DATE) {
            r.u.i32 = in->u.i32;
        } else if (is_string) {
            int64_t days;
            if (!parse_date(&t, &days) || t.pos != t.len)
                return fail(err, in, to, "not a date 'YYYY-MM-DD'");
            if (days > INT32_MAX || days < INT32_MIN) {
                *range = days > 0 ? 1 : -1;
                return BASALT_OK;
            }
            r.u.i32 = (int32_t)days;
        } else {
            return fail(err, in, to, "no conversion to date");
        }
        break;
    case BASALT_ICEBERG_TYPE_TIME:
        if (from == BASALT_ICEBERG_TYPE_TIME || from == BASALT_ICEBERG_TYPE_LONG) {
            r.u.i64 = in->u.i64;
            if (r.u.i64 < 0 || r.u.i64 >= INT64_C(86400000000)) {
                *range = r.u.i64 < 0 ? -1 : 1;
                return BASALT_OK;
            }
        } else if (is_string) {
            if (!parse_time(&t, 6, &r.u.i64) || t.pos != t.len)
                return fail(err, in, to, "not a time 'hh:mm[:ss[.ffffff]]'");
        } else {
            return fail(err, in, to, "no conversion to time");
        }
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS: {
        bool nanos = to->id == BASALT_ICEBERG_TYPE_TIMESTAMP_NS ||
                     to->id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS;
        bool zone = to->id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ ||
                    to->id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS;
        bool from_micros =
            from == BASALT_ICEBERG_TYPE_TIMESTAMP || from == BASALT_ICEBERG_TYPE_TIMESTAMPTZ;
        bool from_nanos =
            from == BASALT_ICEBERG_TYPE_TIMESTAMP_NS || from == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS;
        if (from == BASALT_ICEBERG_TYPE_LONG || (from_micros && !nanos) || (from_nanos && nanos)) {
            r.u.i64 = in->u.i64;
        } else if (from_micros && nanos) {
            if (__builtin_mul_overflow(in->u.i64, 1000, &r.u.i64)) {
                *range = in->u.i64 < 0 ? -1 : 1;
                return BASALT_OK;
            }
        } else if (from_nanos && !nanos) {
            if (in->u.i64 % 1000 != 0)
                return fail(err, in, to, "nanoseconds do not convert exactly");
            r.u.i64 = in->u.i64 / 1000;
        } else if (is_string) {
            if (!parse_timestamp(&t, nanos, zone, &r.u.i64, range))
                return fail(err, in, to,
                            zone ? "not a timestamp 'YYYY-MM-DDThh:mm[:ss[.f]][Z|+hh:mm]'"
                                 : "not a timestamp 'YYYY-MM-DDThh:mm[:ss[.f]]'");
            if (*range)
                return BASALT_OK;
        } else {
            return fail(err, in, to, "no conversion to timestamp");
        }
        break;
    }
    case BASALT_ICEBERG_TYPE_STRING:
        if (!is_string)
            return fail(err, in, to, "no conversion to string");
        r.u.bytes = in->u.bytes;
        break;
    case BASALT_ICEBERG_TYPE_UUID:
        if (from == BASALT_ICEBERG_TYPE_UUID) {
            r.u.bytes = in->u.bytes;
        } else if (is_string) {
            uint8_t u[16];
            if (!parse_uuid(t.s, t.len, u))
                return fail(err, in, to, "not a uuid");
            uint8_t *copy = arena ? basalt_arena_alloc(arena, 16, 1) : NULL;
            if (!copy)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory converting a uuid");
            memcpy(copy, u, 16);
            r.u.bytes.data = copy;
            r.u.bytes.len = 16;
        } else {
            return fail(err, in, to, "no conversion to uuid");
        }
        break;
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        if (!is_string && from != BASALT_ICEBERG_TYPE_FIXED && from != BASALT_ICEBERG_TYPE_BINARY)
            return fail(err, in, to, "no conversion to binary");
        if (to->id == BASALT_ICEBERG_TYPE_FIXED && in->u.bytes.len != (size_t)to->length)
            return fail(err, in, to, "length differs from the fixed type's");
        r.u.bytes = in->u.bytes;
        break;
    default:
        return fail(err, in, to, "the type takes no literals");
    }
    *out = r;
    return BASALT_OK;
}

basalt_status basalt_iceberg_value_convert(const struct basalt_iceberg_value *in,
                                           const struct basalt_iceberg_type *to,
                                           struct basalt_arena *arena,
                                           struct basalt_iceberg_value *out,
                                           struct basalt_error *err)
{
    int range = 0;
    basalt_status st = basalt_iceberg_value_convert_range(in, to, arena, out, &range, err);
    if (st == BASALT_OK && range)
        return fail(err, in, to, range > 0 ? "above the type's range" : "below the type's range");
    return st;
}
