/* JSON text of Variant primitives (the forms are listed at
 * basalt_parquet_variant_to_json). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variant_internal.h"

static basalt_status puts_(struct basalt_buffer *out, const char *s, struct basalt_error *err)
{
    return basalt_buffer_append(out, s, strlen(s), err);
}

basalt_status basalt_parquet_variant_json_string(struct basalt_buffer *out, const uint8_t *s,
                                                 size_t n, struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(out, n + 2, err);
    if (st == BASALT_OK)
        st = puts_(out, "\"", err);
    size_t run = 0;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        char esc[8];
        switch (c) {
        case '"': strcpy(esc, "\\\""); break;
        case '\\': strcpy(esc, "\\\\"); break;
        case '\b': strcpy(esc, "\\b"); break;
        case '\f': strcpy(esc, "\\f"); break;
        case '\n': strcpy(esc, "\\n"); break;
        case '\r': strcpy(esc, "\\r"); break;
        case '\t': strcpy(esc, "\\t"); break;
        default: snprintf(esc, sizeof esc, "\\u%04x", c); break;
        }
        st = basalt_buffer_append(out, s + run, i - run, err);
        if (st == BASALT_OK)
            st = puts_(out, esc, err);
        run = i + 1;
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(out, s + run, n - run, err);
    if (st == BASALT_OK)
        st = puts_(out, "\"", err);
    return st;
}

/* The shortest text that reads back to `d` (to the float `(float)d` with
 * `single`), laid out as ECMAScript's Number::toString lays it out ("0.001",
 * "1234568000", "1e+21", "1.5e-7"). */
static void shortest(double d, bool single, char *buf, size_t cap)
{
    if (isnan(d) || isinf(d)) {
        snprintf(buf, cap, "\"%s\"", isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (d == 0) {
        snprintf(buf, cap, "%s", signbit(d) ? "-0" : "0");
        return;
    }
    /* value 0.d1..dk x 10^n */
    char digits[17];
    int x = 0;
    int k = single ? basalt_float_shortest((float)d, digits, &x)
                   : basalt_double_shortest(d, digits, &x);
    int n = x + 1;
    char *w = buf;
    if (d < 0)
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

static basalt_status base64(struct basalt_buffer *out, const uint8_t *p, size_t n,
                            struct basalt_error *err)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    basalt_status st = basalt_buffer_reserve(out, (n + 2) / 3 * 4 + 2, err);
    if (st == BASALT_OK)
        st = puts_(out, "\"", err);
    for (size_t i = 0; i < n && st == BASALT_OK; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {alphabet[v >> 18], alphabet[(v >> 12) & 63],
                     i + 1 < n ? alphabet[(v >> 6) & 63] : '=', i + 2 < n ? alphabet[v & 63] : '='};
        st = basalt_buffer_append(out, q, 4, err);
    }
    if (st == BASALT_OK)
        st = puts_(out, "\"", err);
    return st;
}

/* Proleptic Gregorian date of a day count since 1970-01-01. */
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

static int date_text(int64_t days, char *buf)
{
    int64_t y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    if (y >= 0 && y <= 9999)
        return sprintf(buf, "%04d-%02u-%02u", (int)y, m, d);
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

/* "HH:MM:SS.fff..." of `ticks` (digits 6 or 9) since midnight. */
static int clock_text(int64_t secs, int64_t frac, int digits, char *buf)
{
    return sprintf(buf, "%02d:%02d:%02d.%0*lld", (int)(secs / 3600), (int)(secs / 60 % 60),
                   (int)(secs % 60), digits, (long long)frac);
}

static int timestamp_text(int64_t v, int digits, bool utc, char *buf)
{
    int64_t per_second = digits == 9 ? 1000000000 : 1000000;
    int64_t frac, sod;
    int64_t secs = floor_div(v, per_second, &frac);
    int64_t days = floor_div(secs, 86400, &sod);
    int n = date_text(days, buf);
    buf[n++] = 'T';
    n += clock_text(sod, frac, digits, buf + n);
    if (utc)
        buf[n++] = 'Z';
    buf[n] = '\0';
    return n;
}

/* Exact decimal text of the little-endian two's complement integer of
 * `bytes` (at most 16) bytes with `scale` fraction digits. */
static int decimal_text(const uint8_t *p, int bytes, int scale, char *buf)
{
    unsigned __int128 u = 0;
    for (int i = bytes - 1; i >= 0; i--)
        u = (u << 8) | p[i];
    bool neg = bytes && (p[bytes - 1] & 0x80);
    if (neg) {
        if (bytes < 16)
            u |= ~(unsigned __int128)0 << (8 * bytes);
        u = ~u + 1;
    }
    char digits[48];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int w = 0;
    if (neg)
        buf[w++] = '-';
    if (nd <= scale) {
        buf[w++] = '0';
        buf[w++] = '.';
        for (int i = nd; i < scale; i++)
            buf[w++] = '0';
        while (nd > 0)
            buf[w++] = digits[--nd];
    } else {
        while (nd > scale)
            buf[w++] = digits[--nd];
        if (scale > 0) {
            buf[w++] = '.';
            while (nd > 0)
                buf[w++] = digits[--nd];
        }
    }
    buf[w] = '\0';
    return w;
}

basalt_status basalt_parquet_variant_json_primitive(struct basalt_buffer *out, int type,
                                                    const uint8_t *d, size_t n,
                                                    struct basalt_error *err)
{
    char buf[128];
    bool quote = false;
    switch (type) {
    case BASALT_PARQUET_VARIANT_NULL: return puts_(out, "null", err);
    case BASALT_PARQUET_VARIANT_TRUE: return puts_(out, "true", err);
    case BASALT_PARQUET_VARIANT_FALSE: return puts_(out, "false", err);
    case BASALT_PARQUET_VARIANT_INT8:
        snprintf(buf, sizeof buf, "%d", (int)(int8_t)d[0]);
        break;
    case BASALT_PARQUET_VARIANT_INT16:
        snprintf(buf, sizeof buf, "%d", (int)(int16_t)basalt_parquet_variant_le(d, 2));
        break;
    case BASALT_PARQUET_VARIANT_INT32:
        snprintf(buf, sizeof buf, "%d", (int)(int32_t)basalt_parquet_variant_le(d, 4));
        break;
    case BASALT_PARQUET_VARIANT_INT64:
        snprintf(buf, sizeof buf, "%lld", (long long)(int64_t)basalt_parquet_variant_le(d, 8));
        break;
    case BASALT_PARQUET_VARIANT_DOUBLE: {
        uint64_t bits = basalt_parquet_variant_le(d, 8);
        double v;
        memcpy(&v, &bits, 8);
        shortest(v, false, buf, sizeof buf);
        break;
    }
    case BASALT_PARQUET_VARIANT_FLOAT: {
        uint32_t bits = (uint32_t)basalt_parquet_variant_le(d, 4);
        float v;
        memcpy(&v, &bits, 4);
        shortest(v, true, buf, sizeof buf);
        break;
    }
    case BASALT_PARQUET_VARIANT_DECIMAL4:
    case BASALT_PARQUET_VARIANT_DECIMAL8:
    case BASALT_PARQUET_VARIANT_DECIMAL16:
        decimal_text(d + 1, (int)n - 1, d[0], buf);
        break;
    case BASALT_PARQUET_VARIANT_DATE:
        date_text((int32_t)basalt_parquet_variant_le(d, 4), buf);
        quote = true;
        break;
    case BASALT_PARQUET_VARIANT_TIMESTAMP_MICROS:
    case BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_MICROS:
    case BASALT_PARQUET_VARIANT_TIMESTAMP_NANOS:
    case BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_NANOS: {
        bool nanos = type == BASALT_PARQUET_VARIANT_TIMESTAMP_NANOS ||
                     type == BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_NANOS;
        bool utc = type == BASALT_PARQUET_VARIANT_TIMESTAMP_MICROS ||
                   type == BASALT_PARQUET_VARIANT_TIMESTAMP_NANOS;
        timestamp_text((int64_t)basalt_parquet_variant_le(d, 8), nanos ? 9 : 6, utc, buf);
        quote = true;
        break;
    }
    case BASALT_PARQUET_VARIANT_TIME_NTZ_MICROS: {
        int64_t v = (int64_t)basalt_parquet_variant_le(d, 8), frac;
        int64_t secs = floor_div(v, 1000000, &frac);
        if (secs < 0 || secs >= 86400)
            snprintf(buf, sizeof buf, "%lld", (long long)v); /* not a time of day */
        else
            clock_text(secs, frac, 6, buf);
        quote = secs >= 0 && secs < 86400;
        break;
    }
    case BASALT_PARQUET_VARIANT_BINARY:
        return base64(out, d + 4, n - 4, err);
    case BASALT_PARQUET_VARIANT_STRING:
        return basalt_parquet_variant_json_string(out, d + 4, n - 4, err);
    case BASALT_PARQUET_VARIANT_UUID: {
        static const char hex[] = "0123456789abcdef";
        int w = 0;
        buf[w++] = '"';
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                buf[w++] = '-';
            buf[w++] = hex[d[i] >> 4];
            buf[w++] = hex[d[i] & 15];
        }
        buf[w++] = '"';
        buf[w] = '\0';
        break;
    }
    default:
        return basalt_error_set(err, BASALT_CORRUPT, "unknown primitive type %d", type);
    }
    basalt_status st = BASALT_OK;
    if (quote)
        st = puts_(out, "\"", err);
    if (st == BASALT_OK)
        st = puts_(out, buf, err);
    if (st == BASALT_OK && quote)
        st = puts_(out, "\"", err);
    return st;
}
