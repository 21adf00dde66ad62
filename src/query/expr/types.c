/* Logical types: names, widths, Arrow formats; and the text forms of values
 * as DuckDB's CAST(... AS VARCHAR) writes them and reads them back. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_internal.h"

struct basalt_query_type basalt_query_type_make(enum basalt_query_type_id id)
{
    struct basalt_query_type t;
    memset(&t, 0, sizeof t);
    t.id = id;
    if (id == BASALT_QUERY_TYPE_DECIMAL) {
        t.precision = 18;
        t.scale = 3;
    }
    return t;
}

struct basalt_query_type basalt_query_type_decimal(int precision, int scale)
{
    struct basalt_query_type t = basalt_query_type_make(BASALT_QUERY_TYPE_DECIMAL);
    t.precision = (int8_t)precision;
    t.scale = (int8_t)scale;
    return t;
}

struct basalt_query_type basalt_query_type_timestamp(bool nanos, bool tz)
{
    struct basalt_query_type t = basalt_query_type_make(BASALT_QUERY_TYPE_TIMESTAMP);
    t.nanos = nanos;
    t.tz = tz;
    return t;
}

struct basalt_query_type basalt_query_type_list(struct basalt_query_type elem)
{
    struct basalt_query_type t = elem;
    t.elem = elem.id;
    t.id = BASALT_QUERY_TYPE_LIST;
    return t;
}

struct basalt_query_type basalt_query_type_element(struct basalt_query_type list)
{
    struct basalt_query_type t = list;
    t.id = list.elem;
    t.elem = BASALT_QUERY_TYPE_NULL;
    return t;
}

struct basalt_query_type basalt_query_type_timestamp_coarse(int coarse)
{
    struct basalt_query_type t = basalt_query_type_make(BASALT_QUERY_TYPE_TIMESTAMP);
    t.coarse = (uint8_t)coarse;
    return t;
}

int64_t basalt_qts_per_second(struct basalt_query_type t)
{
    if (t.coarse == BASALT_QUERY_TS_SECONDS)
        return 1;
    if (t.coarse == BASALT_QUERY_TS_MILLIS)
        return 1000;
    return t.nanos ? 1000000000 : 1000000;
}

bool basalt_query_type_equal(struct basalt_query_type a, struct basalt_query_type b)
{
    if (a.id != b.id)
        return false;
    if (a.id == BASALT_QUERY_TYPE_LIST)
        return basalt_query_type_equal(basalt_query_type_element(a), basalt_query_type_element(b));
    switch (a.id) {
    case BASALT_QUERY_TYPE_DECIMAL:
        return a.precision == b.precision && a.scale == b.scale;
    case BASALT_QUERY_TYPE_TIMESTAMP:
        return a.nanos == b.nanos && a.tz == b.tz && a.coarse == b.coarse;
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY:
        return a.large == b.large;
    default:
        return true;
    }
}

const char *basalt_query_type_name(struct basalt_query_type t, char *buf, size_t cap)
{
    static const char *const names[BASALT_QUERY_TYPE_COUNT] = {
        "NULL", "BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT",
        "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "DECIMAL", "DATE", "TIMESTAMP", "INTERVAL",
        "VARCHAR", "BLOB", "LIST", "TIME"};
    if (!buf || cap == 0)
        return buf;
    if (t.id == BASALT_QUERY_TYPE_LIST) {
        /* DuckDB's INTEGER[]; an untyped NULL element is "NULL"[] */
        char elem[64];
        basalt_query_type_name(basalt_query_type_element(t), elem, sizeof elem);
        snprintf(buf, cap, t.elem == BASALT_QUERY_TYPE_NULL ? "\"%s\"[]" : "%s[]", elem);
    } else if (t.id >= BASALT_QUERY_TYPE_COUNT)
        snprintf(buf, cap, "unknown");
    else if (t.id == BASALT_QUERY_TYPE_DECIMAL)
        snprintf(buf, cap, "DECIMAL(%d,%d)", t.precision, t.scale);
    else if (t.id == BASALT_QUERY_TYPE_TIMESTAMP && t.coarse)
        snprintf(buf, cap, "%s", t.coarse == BASALT_QUERY_TS_SECONDS ? "TIMESTAMP_S" : "TIMESTAMP_MS");
    else if (t.id == BASALT_QUERY_TYPE_TIMESTAMP)
        snprintf(buf, cap, "%s", t.tz ? (t.nanos ? "TIMESTAMP_NS WITH TIME ZONE"
                                                 : "TIMESTAMP WITH TIME ZONE")
                                      : (t.nanos ? "TIMESTAMP_NS" : "TIMESTAMP"));
    else
        snprintf(buf, cap, "%s", names[t.id]);
    return buf;
}

const char *basalt_qtype_phys_name(enum basalt_query_type_id id)
{
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: return "INT8";
    case BASALT_QUERY_TYPE_INT16: return "INT16";
    case BASALT_QUERY_TYPE_INT32: return "INT32";
    case BASALT_QUERY_TYPE_INT64: return "INT64";
    case BASALT_QUERY_TYPE_UINT8: return "UINT8";
    case BASALT_QUERY_TYPE_UINT16: return "UINT16";
    case BASALT_QUERY_TYPE_UINT32: return "UINT32";
    case BASALT_QUERY_TYPE_UINT64: return "UINT64";
    case BASALT_QUERY_TYPE_FLOAT: return "FLOAT";
    case BASALT_QUERY_TYPE_DOUBLE: return "DOUBLE";
    case BASALT_QUERY_TYPE_DECIMAL: return "DECIMAL";
    default: return "?";
    }
}

int basalt_qtype_width(struct basalt_query_type t)
{
    switch (t.id) {
    case BASALT_QUERY_TYPE_INT8: case BASALT_QUERY_TYPE_UINT8: return 1;
    case BASALT_QUERY_TYPE_INT16: case BASALT_QUERY_TYPE_UINT16: return 2;
    case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_UINT32: case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DATE: return 4;
    case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_UINT64: case BASALT_QUERY_TYPE_DOUBLE:
    case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: return 8;
    case BASALT_QUERY_TYPE_DECIMAL: case BASALT_QUERY_TYPE_INTERVAL:
    case BASALT_QUERY_TYPE_STRING: case BASALT_QUERY_TYPE_BINARY:
    case BASALT_QUERY_TYPE_LIST: return 16;
    default: return 0;
    }
}

bool basalt_qtype_is_signed_int(enum basalt_query_type_id id)
{
    return id >= BASALT_QUERY_TYPE_INT8 && id <= BASALT_QUERY_TYPE_INT64;
}
bool basalt_qtype_is_unsigned(enum basalt_query_type_id id)
{
    return id >= BASALT_QUERY_TYPE_UINT8 && id <= BASALT_QUERY_TYPE_UINT64;
}
bool basalt_qtype_is_int(enum basalt_query_type_id id)
{
    return basalt_qtype_is_signed_int(id) || basalt_qtype_is_unsigned(id);
}
bool basalt_qtype_is_numeric(enum basalt_query_type_id id)
{
    return basalt_qtype_is_int(id) || id == BASALT_QUERY_TYPE_FLOAT || id == BASALT_QUERY_TYPE_DOUBLE ||
           id == BASALT_QUERY_TYPE_DECIMAL;
}

basalt_status basalt_query_type_from_format(const char *format, struct basalt_query_type *out,
                                            struct basalt_error *err)
{
    struct basalt_arrow_type at;
    if (!format || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL format");
    basalt_status st = basalt_arrow_type_parse(format, &at, err);
    if (st != BASALT_OK)
        return st;
    enum basalt_query_type_id id;
    *out = basalt_query_type_make(BASALT_QUERY_TYPE_NULL);
    switch (at.id) {
    case BASALT_ARROW_TYPE_NULL: id = BASALT_QUERY_TYPE_NULL; break;
    case BASALT_ARROW_TYPE_BOOL: id = BASALT_QUERY_TYPE_BOOL; break;
    case BASALT_ARROW_TYPE_INT8: id = BASALT_QUERY_TYPE_INT8; break;
    case BASALT_ARROW_TYPE_INT16: id = BASALT_QUERY_TYPE_INT16; break;
    case BASALT_ARROW_TYPE_INT32: id = BASALT_QUERY_TYPE_INT32; break;
    case BASALT_ARROW_TYPE_INT64: id = BASALT_QUERY_TYPE_INT64; break;
    case BASALT_ARROW_TYPE_UINT8: id = BASALT_QUERY_TYPE_UINT8; break;
    case BASALT_ARROW_TYPE_UINT16: id = BASALT_QUERY_TYPE_UINT16; break;
    case BASALT_ARROW_TYPE_UINT32: id = BASALT_QUERY_TYPE_UINT32; break;
    case BASALT_ARROW_TYPE_UINT64: id = BASALT_QUERY_TYPE_UINT64; break;
    case BASALT_ARROW_TYPE_FLOAT: id = BASALT_QUERY_TYPE_FLOAT; break;
    case BASALT_ARROW_TYPE_DOUBLE: id = BASALT_QUERY_TYPE_DOUBLE; break;
    case BASALT_ARROW_TYPE_DECIMAL128:
        *out = basalt_query_type_decimal(at.precision, at.scale);
        if (at.precision > 38 || at.scale < 0 || at.scale > at.precision)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "decimal '%s' out of range", format);
        return BASALT_OK;
    case BASALT_ARROW_TYPE_DATE32: id = BASALT_QUERY_TYPE_DATE; break;
    case BASALT_ARROW_TYPE_TIMESTAMP:
        if (at.unit == BASALT_ARROW_TIME_UNIT_SECOND || at.unit == BASALT_ARROW_TIME_UNIT_MILLI) {
            if (at.timezone && at.timezone[0])
                return basalt_error_set(err, BASALT_UNSUPPORTED,
                                        "timestamp unit of '%s' with a zone (only us and ns)",
                                        format);
            *out = basalt_query_type_timestamp_coarse(at.unit == BASALT_ARROW_TIME_UNIT_SECOND
                                                          ? BASALT_QUERY_TS_SECONDS
                                                          : BASALT_QUERY_TS_MILLIS);
            return BASALT_OK;
        }
        *out = basalt_query_type_timestamp(at.unit == BASALT_ARROW_TIME_UNIT_NANO,
                                           at.timezone && at.timezone[0]);
        return BASALT_OK;
    case BASALT_ARROW_TYPE_TIME64:
        if (at.unit != BASALT_ARROW_TIME_UNIT_MICRO)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "time unit of '%s' (only us)", format);
        id = BASALT_QUERY_TYPE_TIME;
        break;
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO: id = BASALT_QUERY_TYPE_INTERVAL; break;
    case BASALT_ARROW_TYPE_STRING: id = BASALT_QUERY_TYPE_STRING; break;
    case BASALT_ARROW_TYPE_LARGE_STRING:
        id = BASALT_QUERY_TYPE_STRING;
        out->large = true;
        break;
    case BASALT_ARROW_TYPE_BINARY: id = BASALT_QUERY_TYPE_BINARY; break;
    case BASALT_ARROW_TYPE_LARGE_BINARY:
        id = BASALT_QUERY_TYPE_BINARY;
        out->large = true;
        break;
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "Arrow type '%s' is not supported in expressions", format);
    }
    out->id = id;
    return BASALT_OK;
}

basalt_status basalt_query_type_from_schema(const struct ArrowSchema *field,
                                            struct basalt_query_type *out,
                                            struct basalt_error *err)
{
    if (!field || !field->format || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL field");
    /* (large lists, "+L", stay pass-through only: no reader makes them) */
    bool list = strcmp(field->format, "+l") == 0;
    if (!list)
        return basalt_query_type_from_format(field->format, out, err);
    const struct ArrowSchema *child = field->n_children == 1 ? field->children[0] : NULL;
    /* lists of lists, structs and dictionaries stay pass-through only */
    if (!child || !child->format || child->dictionary || child->format[0] == '+')
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "a list of '%s' is not supported in expressions",
                                child && child->format ? child->format : "?");
    struct basalt_query_type elem;
    basalt_status st = basalt_query_type_from_format(child->format, &elem, err);
    if (st != BASALT_OK)
        return st;
    *out = basalt_query_type_list(elem);
    return BASALT_OK;
}

basalt_status basalt_query_type_format(struct basalt_query_type t, char *buf, size_t cap,
                                       struct basalt_error *err)
{
    static const char *const fmts[BASALT_QUERY_TYPE_COUNT] = {
        "n", "b", "c", "s", "i", "l", "C", "S", "I", "L", "f", "g", "", "tdD", "", "tin", "u", "z",
        "+l", "ttu"};
    int n;
    if (t.id >= BASALT_QUERY_TYPE_COUNT)
        return basalt_error_set(err, BASALT_INVALID_ARG, "unknown type");
    if (t.id == BASALT_QUERY_TYPE_DECIMAL)
        n = snprintf(buf, cap, "d:%d,%d", t.precision, t.scale);
    else if (t.id == BASALT_QUERY_TYPE_TIMESTAMP)
        n = snprintf(buf, cap, "ts%c:%s",
                     t.coarse ? (t.coarse == BASALT_QUERY_TS_SECONDS ? 's' : 'm')
                              : (t.nanos ? 'n' : 'u'),
                     t.tz ? "UTC" : "");
    else if (t.large && t.id != BASALT_QUERY_TYPE_LIST)
        n = snprintf(buf, cap, "%s", t.id == BASALT_QUERY_TYPE_STRING ? "U" : "Z");
    else
        n = snprintf(buf, cap, "%s", fmts[t.id]);
    if (n < 0 || (size_t)n >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "format buffer too small");
    return BASALT_OK;
}

/* ------------------------------------------------------------------ numbers */

qi128 basalt_qpow10(int n)
{
    qi128 v = 1;
    for (int i = 0; i < n; i++)
        v *= 10;
    return v;
}

size_t basalt_qformat_int128(qi128 v, char *buf, size_t cap)
{
    char tmp[48];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    size_t len = (size_t)n + neg;
    if (cap) {
        size_t k = 0;
        if (neg && k + 1 < cap)
            buf[k++] = '-';
        while (n > 0 && k + 1 < cap)
            buf[k++] = tmp[--n];
        buf[k] = 0;
    }
    return len;
}

size_t basalt_qformat_decimal(qi128 v, int scale, char *buf, size_t cap)
{
    char digits[48];
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        digits[n++] = '0';
    char out[64];
    int k = 0;
    if (neg)
        out[k++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        out[k++] = digits[i];
        if (i == scale && scale > 0)
            out[k++] = '.';
    }
    out[k] = 0;
    if (cap)
        snprintf(buf, cap, "%s", out);
    return (size_t)k;
}

/* Lays out the shortest digits d1..dn x 10^exp10 as DuckDB writes a float
 * as text, which is Python's repr: positional when the exponent is in
 * -4..15, with ".0" after a whole number, else d.ddde+XX with two exponent
 * digits at least. */
static size_t layout_repr(bool negative, const char *digits, int n, int exp10, char *out)
{
    size_t k = 0;
    if (negative)
        out[k++] = '-';
    if (exp10 < -4 || exp10 >= 16) {
        out[k++] = digits[0];
        if (n > 1) {
            out[k++] = '.';
            for (int i = 1; i < n; i++)
                out[k++] = digits[i];
        }
        k += (size_t)sprintf(out + k, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
        return k;
    }
    if (exp10 < 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = -1; i > exp10; i--)
            out[k++] = '0';
        for (int i = 0; i < n; i++)
            out[k++] = digits[i];
        out[k] = 0;
        return k;
    }
    for (int i = 0; i <= exp10; i++)
        out[k++] = i < n ? digits[i] : '0';
    out[k++] = '.';
    if (n > exp10 + 1)
        for (int i = exp10 + 1; i < n; i++)
            out[k++] = digits[i];
    else
        out[k++] = '0';
    out[k] = 0;
    return k;
}

/* NaN keeps its sign, as in DuckDB ("-nan" for -'nan'). */
static size_t repr_special(double v, char *out)
{
    const char *t = isnan(v) ? (signbit(v) ? "-nan" : "nan") : v > 0 ? "inf" : "-inf";
    return (size_t)sprintf(out, "%s", t);
}

/* v (a float widened exactly when `single`) by the shortest digits of
 * its own width. */
static size_t format_repr(double v, bool single, char *buf, size_t cap)
{
    char tmp[BASALT_FLOAT_TEXT_MAX + 8], digits[20];
    size_t n;
    if (isnan(v) || isinf(v)) {
        n = repr_special(v, tmp);
    } else {
        int exp10 = 0;
        int nd = single ? basalt_float_shortest((float)v, digits, &exp10)
                        : basalt_double_shortest(v, digits, &exp10);
        n = layout_repr(signbit(v) != 0, digits, nd, exp10, tmp);
    }
    if (cap)
        snprintf(buf, cap, "%s", tmp);
    return n;
}

size_t basalt_qformat_double(double v, char *buf, size_t cap)
{
    return format_repr(v, false, buf, cap);
}

size_t basalt_qformat_float(float v, char *buf, size_t cap)
{
    return format_repr(v, true, buf, cap);
}

/* DuckDB compares intervals after carrying whole days out of the time part
 * and whole months (30 days) out of the days, so '1 month' = '30 days'. */
void basalt_qinterval_normalize(struct qinterval *iv)
{
    const int64_t day = 86400000000000LL;
    int64_t days = (int64_t)iv->days + iv->nanos / day;
    int64_t nanos = iv->nanos % day;
    int64_t months = (int64_t)iv->months + days / 30;
    days %= 30;
    iv->months = (int32_t)months;
    iv->days = (int32_t)days;
    iv->nanos = nanos;
}

int basalt_qinterval_cmp_fields(const struct qinterval *x, const struct qinterval *y)
{
    if (x->months != y->months)
        return x->months < y->months ? -1 : 1;
    if (x->days != y->days)
        return x->days < y->days ? -1 : 1;
    return (x->nanos > y->nanos) - (x->nanos < y->nanos);
}

int64_t basalt_qround_div(int64_t a, int64_t b)
{
    int64_t q = a / b, r = a % b;
    if (r * 2 >= b)
        q++;
    else if (r * 2 <= -b)
        q--;
    return q;
}

int64_t basalt_qfloordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* Howard Hinnant's civil calendar algorithms. */
int64_t basalt_qdays_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void basalt_qcivil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yy + (*m <= 2);
}

static size_t put_year(int64_t y, char *buf, size_t cap, int m, int d)
{
    int n;
    if (y <= 0)
        n = snprintf(buf, cap, "%04lld-%02d-%02d (BC)", (long long)(1 - y), m, d);
    else
        n = snprintf(buf, cap, "%04lld-%02d-%02d", (long long)y, m, d);
    return n < 0 ? 0 : (size_t)n;
}

size_t basalt_qformat_date(int32_t days, char *buf, size_t cap)
{
    int64_t y;
    int m, d;
    basalt_qcivil_from_days(days, &y, &m, &d);
    char tmp[40];
    size_t n = put_year(y, tmp, sizeof tmp, m, d);
    if (cap)
        snprintf(buf, cap, "%s", tmp);
    return n;
}

/* "HH:MM:SS[.fraction]" of a time of day in `frac_digits` units, trailing
 * zeros of the fraction dropped. */
static int put_time(char *p, int64_t h, int64_t mi, int64_t s, int64_t frac, int frac_digits)
{
    int n = sprintf(p, "%02lld:%02lld:%02lld", (long long)h, (long long)mi, (long long)s);
    if (frac) {
        char f[24];
        snprintf(f, sizeof f, "%0*lld", frac_digits, (long long)frac);
        int len = frac_digits;
        while (len > 0 && f[len - 1] == '0')
            len--;
        f[len] = 0;
        n += sprintf(p + n, ".%s", f);
    }
    return n;
}

static int frac_digits_of(int64_t per_sec)
{
    return per_sec >= 1000000000 ? 9 : per_sec >= 1000000 ? 6 : per_sec >= 1000 ? 3 : 0;
}

size_t basalt_qformat_time(int64_t micros, char *buf, size_t cap)
{
    char tmp[40];
    int64_t secs = micros / 1000000;
    int n = put_time(tmp, secs / 3600, secs / 60 % 60, secs % 60, micros % 1000000, 6);
    if (cap)
        snprintf(buf, cap, "%s", tmp);
    return (size_t)n;
}

size_t basalt_qformat_value(struct basalt_query_type t, const void *value, char *buf, size_t cap)
{
    const uint8_t *v = value;
    int64_t i64;
    switch (t.id) {
    case BASALT_QUERY_TYPE_INT8: return (size_t)snprintf(buf, cap, "%d", *(const int8_t *)v);
    case BASALT_QUERY_TYPE_UINT8: return (size_t)snprintf(buf, cap, "%u", *v);
    case BASALT_QUERY_TYPE_INT16: {
        int16_t a;
        memcpy(&a, v, 2);
        return (size_t)snprintf(buf, cap, "%d", a);
    }
    case BASALT_QUERY_TYPE_UINT16: {
        uint16_t a;
        memcpy(&a, v, 2);
        return (size_t)snprintf(buf, cap, "%u", a);
    }
    case BASALT_QUERY_TYPE_INT32: {
        int32_t a;
        memcpy(&a, v, 4);
        return (size_t)snprintf(buf, cap, "%d", a);
    }
    case BASALT_QUERY_TYPE_UINT32: {
        uint32_t a;
        memcpy(&a, v, 4);
        return (size_t)snprintf(buf, cap, "%u", a);
    }
    case BASALT_QUERY_TYPE_INT64:
        memcpy(&i64, v, 8);
        return (size_t)snprintf(buf, cap, "%lld", (long long)i64);
    case BASALT_QUERY_TYPE_UINT64: {
        uint64_t a;
        memcpy(&a, v, 8);
        return (size_t)snprintf(buf, cap, "%llu", (unsigned long long)a);
    }
    case BASALT_QUERY_TYPE_FLOAT: {
        float f;
        memcpy(&f, v, 4);
        return basalt_qformat_float(f, buf, cap);
    }
    case BASALT_QUERY_TYPE_DOUBLE: {
        double d;
        memcpy(&d, v, 8);
        return basalt_qformat_double(d, buf, cap);
    }
    case BASALT_QUERY_TYPE_DECIMAL: {
        qi128 d;
        memcpy(&d, v, 16);
        return basalt_qformat_decimal(d, t.scale, buf, cap);
    }
    case BASALT_QUERY_TYPE_DATE: {
        int32_t d;
        memcpy(&d, v, 4);
        return basalt_qformat_date(d, buf, cap);
    }
    case BASALT_QUERY_TYPE_TIMESTAMP:
        memcpy(&i64, v, 8);
        return basalt_qformat_timestamp(i64, basalt_qts_per_second(t), t.tz, buf, cap);
    case BASALT_QUERY_TYPE_TIME:
        memcpy(&i64, v, 8);
        return basalt_qformat_time(i64, buf, cap);
    case BASALT_QUERY_TYPE_INTERVAL: {
        struct qinterval iv;
        memcpy(&iv, v, 16);
        return basalt_qformat_interval(iv, buf, cap);
    }
    default: return 0;
    }
}

size_t basalt_qformat_timestamp(int64_t v, int64_t per_sec, bool tz, char *buf, size_t cap)
{
    int64_t per_day = 86400 * per_sec;
    int64_t days = basalt_qfloordiv(v, per_day);
    int64_t rem = v - days * per_day;
    int64_t secs = rem / per_sec, frac = rem % per_sec;
    int64_t y;
    int m, d;
    basalt_qcivil_from_days(days, &y, &m, &d);
    char tmp[80];
    int64_t yy = y;
    int n;
    if (yy <= 0)
        n = sprintf(tmp, "%04lld-%02d-%02d ", (long long)(1 - yy), m, d);
    else
        n = sprintf(tmp, "%04lld-%02d-%02d ", (long long)yy, m, d);
    n += put_time(tmp + n, secs / 3600, secs / 60 % 60, secs % 60, frac, frac_digits_of(per_sec));
    if (tz)
        n += sprintf(tmp + n, "+00");
    if (yy <= 0)
        n += sprintf(tmp + n, " (BC)");
    if (cap)
        snprintf(buf, cap, "%s", tmp);
    return (size_t)n;
}

size_t basalt_qformat_interval(struct qinterval iv, char *buf, size_t cap)
{
    char tmp[128];
    int n = 0;
    int32_t years = iv.months / 12, months = iv.months % 12;
    if (years)
        n += sprintf(tmp + n, "%d year%s", years, (years == 1 || years == -1) ? "" : "s");
    if (months)
        n += sprintf(tmp + n, "%s%d month%s", n ? " " : "", months,
                     (months == 1 || months == -1) ? "" : "s");
    if (iv.days)
        n += sprintf(tmp + n, "%s%d day%s", n ? " " : "", iv.days,
                     (iv.days == 1 || iv.days == -1) ? "" : "s");
    int64_t micros = iv.nanos / 1000;
    if (micros || n == 0) {
        if (n)
            tmp[n++] = ' ';
        uint64_t u = micros < 0 ? (uint64_t)0 - (uint64_t)micros : (uint64_t)micros;
        if (micros < 0)
            tmp[n++] = '-';
        uint64_t secs = u / 1000000;
        n += put_time(tmp + n, (int64_t)(secs / 3600), (int64_t)(secs / 60 % 60),
                      (int64_t)(secs % 60), (int64_t)(u % 1000000), 6);
    }
    tmp[n] = 0;
    if (cap)
        snprintf(buf, cap, "%s", tmp);
    return (size_t)n;
}

size_t basalt_query_value_format(const struct basalt_query_value *v, char *buf, size_t cap)
{
    char tmp[96];
    size_t n;
    if (v->is_null || v->type.id == BASALT_QUERY_TYPE_NULL) {
        n = (size_t)snprintf(tmp, sizeof tmp, "NULL");
    } else {
        switch (v->type.id) {
        case BASALT_QUERY_TYPE_BOOL: n = (size_t)snprintf(tmp, sizeof tmp, v->v.b ? "true" : "false"); break;
        case BASALT_QUERY_TYPE_UINT8: case BASALT_QUERY_TYPE_UINT16: case BASALT_QUERY_TYPE_UINT32:
        case BASALT_QUERY_TYPE_UINT64:
            n = (size_t)snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->v.u);
            break;
        case BASALT_QUERY_TYPE_FLOAT: n = basalt_qformat_float((float)v->v.f, tmp, sizeof tmp); break;
        case BASALT_QUERY_TYPE_DOUBLE: n = basalt_qformat_double(v->v.f, tmp, sizeof tmp); break;
        case BASALT_QUERY_TYPE_DECIMAL: {
            qi128 d = (qi128)(((unsigned __int128)(uint64_t)v->v.dec.hi << 64) | v->v.dec.lo);
            n = basalt_qformat_decimal(d, v->type.scale, tmp, sizeof tmp);
            break;
        }
        case BASALT_QUERY_TYPE_DATE: n = basalt_qformat_date((int32_t)v->v.i, tmp, sizeof tmp); break;
        case BASALT_QUERY_TYPE_TIMESTAMP:
            n = basalt_qformat_timestamp(v->v.i, basalt_qts_per_second(v->type), v->type.tz, tmp,
                                         sizeof tmp);
            break;
        case BASALT_QUERY_TYPE_TIME: n = basalt_qformat_time(v->v.i, tmp, sizeof tmp); break;
        case BASALT_QUERY_TYPE_INTERVAL: {
            struct qinterval iv = {v->v.interval.months, v->v.interval.days, v->v.interval.nanos};
            n = basalt_qformat_interval(iv, tmp, sizeof tmp);
            break;
        }
        case BASALT_QUERY_TYPE_STRING: case BASALT_QUERY_TYPE_BINARY:
            if (cap) {
                size_t k = v->v.str.len < cap - 1 ? v->v.str.len : cap - 1;
                memcpy(buf, v->v.str.ptr, k);
                buf[k] = 0;
            }
            return v->v.str.len;
        default:
            n = (size_t)snprintf(tmp, sizeof tmp, "%lld", (long long)v->v.i);
        }
    }
    if (cap)
        snprintf(buf, cap, "%s", tmp);
    return n;
}

/* ------------------------------------------------------------------ parsing */

static void trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

bool basalt_qparse_int(const char *s, size_t n, int64_t *out)
{
    trim(&s, &n);
    bool neg = false;
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return false;
    unsigned __int128 v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
        if (v > (unsigned __int128)INT64_MAX + 1)
            return false;
    }
    if (!neg && v > (unsigned __int128)INT64_MAX)
        return false;
    *out = neg ? (int64_t)((uint64_t)0 - (uint64_t)v) : (int64_t)v;
    return true;
}

bool basalt_qparse_double(const char *s, size_t n, double *out)
{
    trim(&s, &n);
    char tmp[128];
    if (n == 0 || n >= sizeof tmp)
        return false;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    *out = strtod(tmp, &end);
    return *end == 0;
}

bool basalt_qparse_decimal(const char *s, size_t n, int precision, int scale, qi128 *out)
{
    trim(&s, &n);
    bool neg = false, dot = false, any = false, extra = false, round_up = false;
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    qi128 v = 0, limit = basalt_qpow10(38);
    int fdig = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && !dot) {
            dot = true;
            continue;
        }
        if (c < '0' || c > '9')
            return false;
        any = true;
        if (dot && fdig == scale) {
            if (!extra)
                round_up = c >= '5';
            extra = true;
            continue;
        }
        if (dot)
            fdig++;
        v = v * 10 + (c - '0');
        if (v >= limit)
            return false;
    }
    if (!any)
        return false;
    v = v * basalt_qpow10(scale - fdig) + (round_up ? 1 : 0);
    if (v >= basalt_qpow10(precision))
        return false;
    *out = neg ? -v : v;
    return true;
}

static bool digits_at(const char *s, size_t n, size_t *i, int min, int max, int64_t *out)
{
    int64_t v = 0;
    int k = 0;
    while (*i < n && k < max && s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        k++;
    }
    *out = v;
    return k >= min;
}

static bool parse_date_at(const char *s, size_t n, size_t *i, int64_t *days)
{
    int64_t y, m, d;
    if (!digits_at(s, n, i, 1, 9, &y) || *i >= n || s[*i] != '-')
        return false;
    (*i)++;
    if (!digits_at(s, n, i, 1, 2, &m) || *i >= n || s[*i] != '-')
        return false;
    (*i)++;
    if (!digits_at(s, n, i, 1, 2, &d))
        return false;
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (m == 2 && d == 29 && !leap)
        return false;
    *days = basalt_qdays_from_civil(y, (int)m, (int)d);
    return true;
}

bool basalt_qparse_date(const char *s, size_t n, int32_t *out)
{
    trim(&s, &n);
    size_t i = 0;
    int64_t days;
    if (!parse_date_at(s, n, &i, &days) || i != n || days < INT32_MIN || days > INT32_MAX)
        return false;
    *out = (int32_t)days;
    return true;
}

bool basalt_qparse_timestamp(const char *s, size_t n, bool nanos, int64_t *out)
{
    trim(&s, &n);
    size_t i = 0;
    int64_t days, h = 0, mi = 0, sec = 0, frac = 0;
    if (!parse_date_at(s, n, &i, &days))
        return false;
    if (i < n && (s[i] == ' ' || s[i] == 'T')) {
        i++;
        if (!digits_at(s, n, &i, 1, 2, &h) || i >= n || s[i] != ':')
            return false;
        i++;
        if (!digits_at(s, n, &i, 1, 2, &mi))
            return false;
        if (i < n && s[i] == ':') {
            i++;
            if (!digits_at(s, n, &i, 1, 2, &sec))
                return false;
        }
        if (i < n && s[i] == '.') {
            i++;
            int k = 0, want = nanos ? 9 : 6;
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                if (k < want) {
                    frac = frac * 10 + (s[i] - '0');
                    k++;
                }
                i++;
            }
            for (; k < want; k++)
                frac *= 10;
        }
        if (i < n && (s[i] == 'Z' || (s[i] == '+' && n - i == 3 && s[i + 1] == '0' &&
                                      s[i + 2] == '0')))
            i = n;
    }
    if (i != n || h > 23 || mi > 59 || sec > 59)
        return false;
    int64_t per_sec = nanos ? 1000000000 : 1000000;
    qi128 v = ((qi128)days * 86400 + h * 3600 + mi * 60 + sec) * per_sec + frac;
    if (v < INT64_MIN || v > INT64_MAX)
        return false;
    *out = (int64_t)v;
    return true;
}

/* DuckDB's time text: [date ]H[H]:M[M][:[S[S]][.fraction]] (digits past
 * microseconds dropped), up to 24:00:00, or a date alone (midnight); like
 * DuckDB, whatever follows the seconds (a UTC offset, say) is ignored. */
bool basalt_qparse_time(const char *s, size_t n, int64_t *out)
{
    trim(&s, &n);
    size_t i = 0;
    int64_t days, h, mi, sec = 0, frac = 0;
    if (parse_date_at(s, n, &i, &days)) {
        if (i == n) {
            *out = 0;
            return true;
        }
        if (s[i] != ' ' && s[i] != 'T')
            return false;
        i++;
    } else
        i = 0;
    if (!digits_at(s, n, &i, 1, 2, &h) || i >= n || s[i] != ':')
        return false;
    i++;
    if (!digits_at(s, n, &i, 1, 2, &mi))
        return false;
    if (i < n && s[i] == ':') {
        i++;
        digits_at(s, n, &i, 0, 2, &sec);
        if (i < n && s[i] == '.') {
            i++;
            int k = 0;
            for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
                if (k < 6) {
                    frac = frac * 10 + (s[i] - '0');
                    k++;
                }
            for (; k < 6; k++)
                frac *= 10;
        }
    } else if (i != n)
        return false;
    if (mi > 59 || sec > 59 || h > 24)
        return false;
    int64_t v = ((h * 60 + mi) * 60 + sec) * 1000000 + frac;
    if (v > BASALT_QTIME_DAY)
        return false;
    *out = v;
    return true;
}
