/* Rendering one Arrow value as JSON: the one form the writer, COPY TO and
 * the CLI's --format json share (see basalt_json_render_value in json.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/json.h"

/* ------------------------------------------------------------------ numbers */

/* ECMAScript's Number::toString layout of -/+ 0.d1..dk x 10^n. */
static void layout(bool neg, const char *digits, int k, int n, char *buf)
{
    char *w = buf;
    if (neg)
        *w++ = '-';
    if (k <= n && n <= 21) {
        memcpy(w, digits, (size_t)k);
        w += k;
        for (int i = k; i < n; i++)
            *w++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(w, digits, (size_t)n);
        w += n;
        *w++ = '.';
        memcpy(w, digits + n, (size_t)(k - n));
        w += k - n;
    } else if (-6 < n && n <= 0) {
        *w++ = '0';
        *w++ = '.';
        for (int i = 0; i < -n; i++)
            *w++ = '0';
        memcpy(w, digits, (size_t)k);
        w += k;
    } else {
        *w++ = digits[0];
        if (k > 1) {
            *w++ = '.';
            memcpy(w, digits + 1, (size_t)(k - 1));
            w += k - 1;
        }
        w += sprintf(w, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    *w = '\0';
}

void basalt_json_format_double(double d, bool single, char *buf)
{
    if (isnan(d)) {
        strcpy(buf, "NaN");
        return;
    }
    if (isinf(d)) {
        strcpy(buf, d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (d == 0) {
        strcpy(buf, signbit(d) ? "-0" : "0");
        return;
    }
    char digits[17];
    int x = 0;
    int k = single ? basalt_float_shortest((float)d, digits, &x)
                   : basalt_double_shortest(d, digits, &x);
    layout(d < 0, digits, k, x + 1, buf);
}

void basalt_json_format_half(uint16_t h, char *buf)
{
    char digits[5];
    int x = 0;
    int k = basalt_half_shortest(h, digits, &x);
    bool neg = h >> 15;
    if (k == 0)
        strcpy(buf, (h & 0x3ff) ? "NaN" : neg ? "-Infinity" : "Infinity");
    else if (digits[0] == '0')
        strcpy(buf, neg ? "-0" : "0");
    else
        layout(neg, digits, k, x + 1, buf);
}

/* ------------------------------------------------------------------ text helpers */

static basalt_status put(struct basalt_buffer *out, const void *p, size_t n,
                         struct basalt_error *err)
{
    return basalt_buffer_append(out, p, n, err);
}

static basalt_status puts_(struct basalt_buffer *out, const char *s, struct basalt_error *err)
{
    return put(out, s, strlen(s), err);
}

basalt_status basalt_json_append_string(struct basalt_buffer *out, const uint8_t *p, size_t n,
                                      struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(out, (size_t)n + 2, err);
    if (st != BASALT_OK)
        return st;
    st = put(out, "\"", 1, err);
    size_t run = 0;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        uint8_t c = p[i];
        const char *esc = NULL;
        char u[8];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (c < 0x20) {
                snprintf(u, sizeof u, "\\u%04x", c);
                esc = u;
            }
        }
        if (esc) {
            st = put(out, p + run, (size_t)(i - run), err);
            if (st == BASALT_OK)
                st = puts_(out, esc, err);
            run = i + 1;
        }
    }
    if (st == BASALT_OK)
        st = put(out, p + run, (size_t)(n - run), err);
    if (st == BASALT_OK)
        st = put(out, "\"", 1, err);
    return st;
}

static basalt_status base64(struct basalt_buffer *out, const uint8_t *p, int64_t n,
                            struct basalt_error *err)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    basalt_status st = basalt_buffer_reserve(out, (size_t)(n + 2) / 3 * 4 + 1, err);
    for (int64_t i = 0; i < n && st == BASALT_OK; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {alphabet[v >> 18], alphabet[(v >> 12) & 63],
                     i + 1 < n ? alphabet[(v >> 6) & 63] : '=', i + 2 < n ? alphabet[v & 63] : '='};
        st = put(out, q, 4, err);
    }
    return st;
}

/* Proleptic Gregorian date of a day count (days since 1970-01-01). */
static void civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static int format_date(int64_t days, char *buf)
{
    int64_t y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    if (y >= 0 && y <= 9999)
        return sprintf(buf, "%04lld-%02u-%02u", (long long)y, m, d);
    /* ISO 8601 expanded years, as JavaScript's toISOString writes them. */
    return sprintf(buf, "%c%06lld-%02u-%02u", y < 0 ? '-' : '+', (long long)(y < 0 ? -y : y), m,
                   d);
}

static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        q--;
        r += b;
    }
    *rem = r;
    return q;
}

static const int64_t ticks_per_second[] = {1, 1000, 1000000, 1000000000};
static const int frac_digits[] = {0, 3, 6, 9};

static int format_clock(int64_t secs_of_day, int64_t frac, int unit, char *buf)
{
    int n = sprintf(buf, "%02lld:%02lld:%02lld", (long long)(secs_of_day / 3600),
                    (long long)(secs_of_day / 60 % 60), (long long)(secs_of_day % 60));
    if (frac_digits[unit])
        n += sprintf(buf + n, ".%0*lld", frac_digits[unit], (long long)frac);
    return n;
}

static int format_timestamp(int64_t v, int unit, bool zoned, char *buf)
{
    int64_t frac, sod;
    int64_t secs = floor_div(v, ticks_per_second[unit], &frac);
    int64_t days = floor_div(secs, 86400, &sod);
    int n = format_date(days, buf);
    buf[n++] = 'T';
    n += format_clock(sod, frac, unit, buf + n);
    if (zoned)
        buf[n++] = 'Z';
    buf[n] = '\0';
    return n;
}

static int format_time(int64_t v, int unit, char *buf)
{
    int64_t frac;
    int64_t secs = floor_div(v, ticks_per_second[unit], &frac);
    if (secs < 0)
        return sprintf(buf, "%lld", (long long)v);
    return format_clock(secs, frac, unit, buf);
}

/* Exact decimal text of a little-endian two's complement integer of
 * `bytes` bytes with `scale` fraction digits. */
static basalt_status put_decimal(struct basalt_buffer *out, const uint8_t *p, int bytes, int scale,
                                 struct basalt_error *err)
{
    if (scale > 90 || scale < -90 || bytes > 32)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "decimal scale %d out of range", scale);
    uint8_t mag[32];
    memcpy(mag, p, (size_t)bytes);
    bool neg = (mag[bytes - 1] & 0x80) != 0;
    if (neg) {
        int carry = 1;
        for (int k = 0; k < bytes; k++) {
            int v = (uint8_t)~mag[k] + carry;
            mag[k] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    char digits[100];
    int nd = 0;
    for (;;) {
        bool zero = true;
        int rem = 0;
        for (int k = bytes - 1; k >= 0; k--) {
            int cur = rem * 256 + mag[k];
            mag[k] = (uint8_t)(cur / 10);
            rem = cur % 10;
            if (mag[k])
                zero = false;
        }
        digits[nd++] = (char)('0' + rem);
        if (zero)
            break;
    }
    char text[200];
    int w = 0;
    if (neg)
        text[w++] = '-';
    if (scale <= 0) {
        bool zero = nd == 1 && digits[0] == '0';
        while (nd > 0)
            text[w++] = digits[--nd];
        for (int i = 0; !zero && i < -scale && w < (int)sizeof text - 1; i++)
            text[w++] = '0';
    } else {
        int int_digits = nd > scale ? nd - scale : 0;
        if (int_digits == 0)
            text[w++] = '0';
        for (int i = 0; i < int_digits; i++)
            text[w++] = digits[--nd];
        text[w++] = '.';
        for (int i = nd; i < scale; i++)
            text[w++] = '0';
        while (nd > 0)
            text[w++] = digits[--nd];
    }
    return put(out, text, (size_t)w, err);
}

/* ------------------------------------------------------------------ values */

static bool is_valid(const struct ArrowArray *a, int64_t j)
{
    if (a->n_buffers == 0)
        return false; /* the null type has no validity and no values */
    const uint8_t *v = a->buffers[0];
    return !v || basalt_bitmap_get(v, j);
}

static int64_t dict_index(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t j)
{
    const void *ix = a->buffers[1];
    switch (s->format[0]) {
    case 'c': return ((const int8_t *)ix)[j];
    case 'C': return ((const uint8_t *)ix)[j];
    case 's': return ((const int16_t *)ix)[j];
    case 'S': return ((const uint16_t *)ix)[j];
    case 'I': return ((const uint32_t *)ix)[j];
    case 'l': return ((const int64_t *)ix)[j];
    case 'L': return (int64_t)((const uint64_t *)ix)[j];
    default: return ((const int32_t *)ix)[j];
    }
}

/* A column of the arrow.uuid extension type (fixed_size_binary(16) whose
 * field metadata names it). */
static bool is_uuid(const struct ArrowSchema *s)
{
    static const char name[] = "arrow.uuid";
    const char *value;
    size_t len;
    return s->metadata &&
           basalt_arrow_metadata_get(s->metadata, "ARROW:extension:name", &value, &len, NULL) ==
               BASALT_OK &&
           len == sizeof name - 1 && memcmp(value, name, sizeof name - 1) == 0;
}

/* The canonical 8-4-4-4-12 lowercase form (RFC 9562), 37 bytes with the NUL. */
static void format_uuid(const uint8_t *p, char *buf)
{
    static const char hex[] = "0123456789abcdef";
    char *w = buf;
    for (int k = 0; k < 16; k++) {
        if (k == 4 || k == 6 || k == 8 || k == 10)
            *w++ = '-';
        *w++ = hex[p[k] >> 4];
        *w++ = hex[p[k] & 15];
    }
    *w = '\0';
}

static basalt_status render(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                            struct basalt_buffer *out, struct basalt_error *err);

/* Structs, lists and maps. */
static basalt_status render_nested(const struct ArrowSchema *s, const struct ArrowArray *a,
                                   const struct basalt_arrow_type *t, int64_t j,
                                   struct basalt_buffer *out, struct basalt_error *err)
{
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    basalt_status st = BASALT_OK;
    switch (t->id) {
    case BASALT_ARROW_TYPE_STRUCT:
        st = puts_(out, "{", err);
        for (int64_t c = 0; c < s->n_children && st == BASALT_OK; c++) {
            if (c)
                st = puts_(out, ",", err);
            const char *name = s->children[c]->name ? s->children[c]->name : "";
            if (st == BASALT_OK)
                st = basalt_json_append_string(out, (const uint8_t *)name, strlen(name), err);
            if (st == BASALT_OK)
                st = puts_(out, ":", err);
            if (st == BASALT_OK)
                st = render(s->children[c], a->children[c], j, out, err);
        }
        return st == BASALT_OK ? puts_(out, "}", err) : st;
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP:
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST: {
        int64_t b, e;
        if (t->id == BASALT_ARROW_TYPE_FIXED_SIZE_LIST) {
            b = j * t->fixed_size;
            e = b + t->fixed_size;
        } else if (t->id == BASALT_ARROW_TYPE_LARGE_LIST) {
            b = ((const int64_t *)v)[j];
            e = ((const int64_t *)v)[j + 1];
        } else {
            b = ((const int32_t *)v)[j];
            e = ((const int32_t *)v)[j + 1];
        }
        if (e < b || b < 0 || (a->n_children > 0 && e > a->children[0]->length))
            return basalt_error_set(err, BASALT_CORRUPT, "list offsets out of range");
        st = puts_(out, "[", err);
        for (int64_t k = b; k < e && st == BASALT_OK; k++) {
            if (k > b)
                st = puts_(out, ",", err);
            if (st != BASALT_OK)
                break;
            if (t->id == BASALT_ARROW_TYPE_MAP) {
                const struct ArrowSchema *es = s->children[0];
                const struct ArrowArray *ea = a->children[0];
                if (es->n_children < 2)
                    return basalt_error_set(err, BASALT_CORRUPT, "map entries without key/value");
                st = puts_(out, "{\"key\":", err);
                if (st == BASALT_OK)
                    st = render(es->children[0], ea->children[0], ea->offset + k, out,
                                err);
                if (st == BASALT_OK)
                    st = puts_(out, ",\"value\":", err);
                if (st == BASALT_OK)
                    st = render(es->children[1], ea->children[1], ea->offset + k, out,
                                err);
                if (st == BASALT_OK)
                    st = puts_(out, "}", err);
            } else {
                st = render(s->children[0], a->children[0], k, out, err);
            }
        }
        return st == BASALT_OK ? puts_(out, "]", err) : st;
    }
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "no rendering for Arrow type '%s'",
                                s->format);
    }
}

/* Element i of a (logical, before a->offset). */
static basalt_status render(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                            struct basalt_buffer *out, struct basalt_error *err)
{
    int64_t j = a->offset + i;
    if (!is_valid(a, j))
        return puts_(out, "null", err);
    if (s->dictionary) {
        if (!a->dictionary)
            return basalt_error_set(err, BASALT_CORRUPT, "dictionary array without a dictionary");
        int64_t k = dict_index(s, a, j);
        if (k < 0 || k >= a->dictionary->length)
            return basalt_error_set(err, BASALT_CORRUPT, "dictionary index %lld out of range",
                                    (long long)k);
        return render(s->dictionary, a->dictionary, k, out, err);
    }
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    char buf[96];
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL:
        return puts_(out, "null", err);
    case BASALT_ARROW_TYPE_BOOL:
        return puts_(out, basalt_bitmap_get(v, j) ? "true" : "false", err);
    case BASALT_ARROW_TYPE_INT8: snprintf(buf, sizeof buf, "%d", ((const int8_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_UINT8: snprintf(buf, sizeof buf, "%u", ((const uint8_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_INT16: snprintf(buf, sizeof buf, "%d", ((const int16_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_UINT16:
        snprintf(buf, sizeof buf, "%u", ((const uint16_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_INT32: snprintf(buf, sizeof buf, "%d", ((const int32_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_UINT32:
        snprintf(buf, sizeof buf, "%u", ((const uint32_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_INT64:
    case BASALT_ARROW_TYPE_DURATION:
        snprintf(buf, sizeof buf, "%lld", (long long)((const int64_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_UINT64:
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)((const uint64_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_HALF_FLOAT:
    case BASALT_ARROW_TYPE_FLOAT:
    case BASALT_ARROW_TYPE_DOUBLE: {
        if (t.id == BASALT_ARROW_TYPE_HALF_FLOAT)
            basalt_json_format_half(((const uint16_t *)v)[j], buf);
        else
            basalt_json_format_double(t.id == BASALT_ARROW_TYPE_FLOAT ? ((const float *)v)[j]
                                                              : ((const double *)v)[j],
                              t.id == BASALT_ARROW_TYPE_FLOAT, buf);
        bool special = buf[0] == 'N' || buf[0] == 'I' || (buf[0] == '-' && buf[1] == 'I');
        if (special)
            return basalt_json_append_string(out, (const uint8_t *)buf, strlen(buf), err);
        break;
    }
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_BINARY: {
        int64_t b, e;
        if (t.id == BASALT_ARROW_TYPE_LARGE_STRING || t.id == BASALT_ARROW_TYPE_LARGE_BINARY) {
            b = ((const int64_t *)v)[j];
            e = ((const int64_t *)v)[j + 1];
        } else {
            b = ((const int32_t *)v)[j];
            e = ((const int32_t *)v)[j + 1];
        }
        if (e < b || b < 0)
            return basalt_error_set(err, BASALT_CORRUPT, "string offsets out of order");
        const uint8_t *p = (const uint8_t *)a->buffers[2] + b;
        bool text = t.id == BASALT_ARROW_TYPE_STRING || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
        if (!text) {
            st = puts_(out, "\"", err);
            if (st == BASALT_OK)
                st = base64(out, p, e - b, err);
            return st == BASALT_OK ? puts_(out, "\"", err) : st;
        }
        return basalt_json_append_string(out, p, (size_t)(e - b), err);
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY: {
        int64_t w = t.fixed_size;
        if (w == 16 && is_uuid(s)) {
            format_uuid((const uint8_t *)v + j * 16, buf);
            goto quoted;
        }
        st = puts_(out, "\"", err);
        if (st == BASALT_OK)
            st = base64(out, (const uint8_t *)v + j * w, w, err);
        return st == BASALT_OK ? puts_(out, "\"", err) : st;
    }
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256: {
        int w = (int)(t.bit_width / 8);
        st = puts_(out, "\"", err);
        if (st == BASALT_OK)
            st = put_decimal(out, (const uint8_t *)v + j * w, w, t.scale, err);
        return st == BASALT_OK ? puts_(out, "\"", err) : st;
    }
    case BASALT_ARROW_TYPE_DATE32:
        format_date(((const int32_t *)v)[j], buf);
        goto quoted;
    case BASALT_ARROW_TYPE_DATE64: {
        int64_t rem;
        format_date(floor_div(((const int64_t *)v)[j], 86400000, &rem), buf);
        goto quoted;
    }
    case BASALT_ARROW_TYPE_TIME32:
        format_time(((const int32_t *)v)[j], (int)t.unit, buf);
        goto quoted;
    case BASALT_ARROW_TYPE_TIME64:
        format_time(((const int64_t *)v)[j], (int)t.unit, buf);
        goto quoted;
    case BASALT_ARROW_TYPE_TIMESTAMP:
        format_timestamp(((const int64_t *)v)[j], (int)t.unit, t.timezone && t.timezone[0], buf);
        goto quoted;
    case BASALT_ARROW_TYPE_INTERVAL_MONTHS:
        snprintf(buf, sizeof buf, "%d", ((const int32_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME: {
        const int32_t *p = (const int32_t *)v + 2 * j;
        snprintf(buf, sizeof buf, "{\"days\":%d,\"milliseconds\":%d}", p[0], p[1]);
        break;
    }
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO: {
        const uint8_t *p = (const uint8_t *)v + 16 * j;
        int32_t mo, dd;
        int64_t ns;
        memcpy(&mo, p, 4);
        memcpy(&dd, p + 4, 4);
        memcpy(&ns, p + 8, 8);
        snprintf(buf, sizeof buf, "{\"months\":%d,\"days\":%d,\"nanoseconds\":%lld}", mo, dd,
                 (long long)ns);
        break;
    }
    default:
        return render_nested(s, a, &t, j, out, err);
    }
    return puts_(out, buf, err);
quoted:
    return basalt_json_append_string(out, (const uint8_t *)buf, strlen(buf), err);
}


basalt_status basalt_json_render_value(const struct ArrowSchema *schema,
                                       const struct ArrowArray *array, int64_t i,
                                       struct basalt_buffer *out, struct basalt_error *err)
{
    if (!schema || !array || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "json render: NULL argument");
    return render(schema, array, i, out, err);
}
