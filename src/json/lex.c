/* The JSON lexer: strings (escapes, surrogates, UTF-8), numbers, literals
 * and skipping whole values, over one line of untrusted text. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_internal.h"

/* Numbers longer than this are refused rather than copied for strtod. */
#define JSON_MAX_NUMBER 4096

bool basalt_json_fail(struct json_lex *lx, const uint8_t *at, basalt_status st, const char *fmt,
                      ...)
{
    if (lx->status != BASALT_OK)
        return false; /* the first failure is the one reported */
    lx->status = st;
    lx->pos = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->message, sizeof lx->message, fmt, ap);
    va_end(ap);
    return false;
}

/* ------------------------------------------------------------------ UTF-8 */

static bool utf8_valid_slow(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i < len)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        /* overlong forms, surrogates and code points past U+10FFFF */
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        i += len;
    }
    return true;
}

bool basalt_json_utf8_valid(const uint8_t *s, size_t n)
{
    uint64_t bits = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        bits |= w;
    }
    for (; i < n; i++)
        bits |= s[i];
    return !(bits & 0x8080808080808080ull) || utf8_valid_slow(s, n);
}

/* ------------------------------------------------------------------ strings */

static int hex_digit(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static bool hex4(const uint8_t *p, const uint8_t *end, uint32_t *out)
{
    if (end - p < 4)
        return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        int d = hex_digit(p[k]);
        if (d < 0)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return true;
}

static size_t put_utf8(uint8_t *w, uint32_t cp)
{
    if (cp < 0x80) {
        w[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        w[0] = (uint8_t)(0xc0 | cp >> 6);
        w[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        w[0] = (uint8_t)(0xe0 | cp >> 12);
        w[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        w[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    w[0] = (uint8_t)(0xf0 | cp >> 18);
    w[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    w[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    w[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

/* The escaped part of a string, from `q` (the first backslash) on, decoded
 * into the scratch buffer after the plain bytes [start, q). */
static bool decode_escaped(struct json_lex *lx, const uint8_t *start, const uint8_t *q,
                           const uint8_t **s, size_t *n)
{
    const uint8_t *end = lx->end;
    /* the decoded text is never longer than the escaped one */
    const uint8_t *close = q;
    while (close < end && *close != '"')
        close += *close == '\\' ? 2 : 1;
    if (close >= end)
        return basalt_json_fail(lx, start - 1, BASALT_CORRUPT, "unterminated string");
    struct basalt_error e;
    lx->scratch.size = 0;
    if (basalt_buffer_reserve(&lx->scratch, (size_t)(close - start) + 4, &e) != BASALT_OK)
        return basalt_json_fail(lx, start, BASALT_NOMEM, "out of memory");
    if (!basalt_json_utf8_valid(start, (size_t)(q - start)))
        return basalt_json_fail(lx, start, BASALT_CORRUPT, "invalid UTF-8 in a string");
    uint8_t *w = lx->scratch.data;
    memcpy(w, start, (size_t)(q - start));
    w += q - start;
    const uint8_t *p = q, *run = q;
    while (p < close) {
        uint8_t c = *p;
        if (c != '\\') {
            if (c < 0x20)
                return basalt_json_fail(lx, p, BASALT_CORRUPT,
                                        "control character 0x%02x in a string", c);
            p++;
            continue;
        }
        size_t plain = (size_t)(p - run);
        if (!basalt_json_utf8_valid(run, plain))
            return basalt_json_fail(lx, run, BASALT_CORRUPT, "invalid UTF-8 in a string");
        memcpy(w, run, plain);
        w += plain;
        uint8_t e2 = p[1];
        switch (e2) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (!hex4(p + 2, close, &cp))
                return basalt_json_fail(lx, p, BASALT_CORRUPT, "bad \\u escape");
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return basalt_json_fail(lx, p, BASALT_CORRUPT,
                                        "lone low surrogate \\u%04x", (unsigned)cp);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                uint32_t lo;
                if (close - (p + 6) < 6 || p[6] != '\\' || p[7] != 'u' ||
                    !hex4(p + 8, close, &lo) || lo < 0xdc00 || lo > 0xdfff)
                    return basalt_json_fail(lx, p, BASALT_CORRUPT,
                                            "high surrogate \\u%04x without a low one",
                                            (unsigned)cp);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
            w += put_utf8(w, cp);
            p += 4;
            break;
        }
        default:
            return basalt_json_fail(lx, p, BASALT_CORRUPT, "bad escape in a string");
        }
        p += 2;
        run = p;
    }
    size_t plain = (size_t)(close - run);
    if (!basalt_json_utf8_valid(run, plain))
        return basalt_json_fail(lx, run, BASALT_CORRUPT, "invalid UTF-8 in a string");
    memcpy(w, run, plain);
    w += plain;
    *s = lx->scratch.data;
    *n = (size_t)(w - lx->scratch.data);
    lx->p = close + 1;
    return true;
}

bool basalt_json_lex_string(struct json_lex *lx, const uint8_t **s, size_t *n)
{
    const uint8_t *start = lx->p + 1, *p = start, *end = lx->end;
    uint8_t high = 0;
    while (p < end) {
        uint8_t c = *p;
        if (c == '"')
            break;
        if (c == '\\')
            return decode_escaped(lx, start, p, s, n);
        if (c < 0x20)
            return basalt_json_fail(lx, p, BASALT_CORRUPT, "control character 0x%02x in a string",
                                    c);
        high |= c;
        p++;
    }
    if (p >= end)
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "unterminated string");
    if ((high & 0x80) && !utf8_valid_slow(start, (size_t)(p - start)))
        return basalt_json_fail(lx, start, BASALT_CORRUPT, "invalid UTF-8 in a string");
    *s = start;
    *n = (size_t)(p - start);
    lx->p = p + 1;
    return true;
}

/* ------------------------------------------------------------------ numbers */

/* NaN, Infinity and -Infinity: not JSON, but what DuckDB and JavaScript
 * engines write for those doubles. */
static bool lex_special(struct json_lex *lx, struct json_number *num)
{
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    size_t left = (size_t)(lx->end - lx->p);
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(words[k]);
        if (left >= n && memcmp(lx->p, words[k], n) == 0) {
            num->text = lx->p;
            num->len = n;
            num->integral = num->fits = false;
            num->special = k + 1;
            lx->p += n;
            return true;
        }
    }
    return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "bad number");
}

bool basalt_json_lex_number(struct json_lex *lx, struct json_number *num)
{
    const uint8_t *p = lx->p, *end = lx->end, *start = p;
    num->special = 0;
    if (*p == 'N' || *p == 'I' || (*p == '-' && end - p > 1 && p[1] == 'I'))
        return lex_special(lx, num);
    bool neg = false;
    if (p < end && *p == '-') {
        neg = true;
        p++;
    }
    if (p >= end || *p < '0' || *p > '9')
        return basalt_json_fail(lx, start, BASALT_CORRUPT, "bad number");
    uint64_t mag = 0;
    bool overflow = false;
    if (*p == '0') {
        p++;
        if (p < end && *p >= '0' && *p <= '9')
            return basalt_json_fail(lx, start, BASALT_CORRUPT, "number with a leading zero");
    } else {
        while (p < end && *p >= '0' && *p <= '9') {
            unsigned d = (unsigned)(*p - '0');
            if (mag > (UINT64_MAX - d) / 10)
                overflow = true;
            else
                mag = mag * 10 + d;
            p++;
        }
    }
    bool integral = true;
    if (p < end && *p == '.') {
        integral = false;
        p++;
        if (p >= end || *p < '0' || *p > '9')
            return basalt_json_fail(lx, start, BASALT_CORRUPT, "bad number: no digit after '.'");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        integral = false;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return basalt_json_fail(lx, start, BASALT_CORRUPT, "bad number: empty exponent");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p - start > JSON_MAX_NUMBER)
        return basalt_json_fail(lx, start, BASALT_LIMIT, "number of %lld characters",
                                (long long)(p - start));
    num->text = start;
    num->len = (size_t)(p - start);
    num->integral = integral;
    num->fits = false;
    if (integral && !overflow) {
        if (!neg && mag <= (uint64_t)INT64_MAX) {
            num->fits = true;
            num->value = (int64_t)mag;
        } else if (neg && mag <= (uint64_t)INT64_MAX + 1) {
            num->fits = true;
            num->value = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
        }
    }
    lx->p = p;
    return true;
}

static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

double basalt_json_number_double(const struct json_number *num)
{
    if (num->special)
        return num->special == 1 ? NAN : num->special == 2 ? INFINITY : -INFINITY;
    if (num->fits && num->value > -(INT64_C(1) << 53) && num->value < (INT64_C(1) << 53))
        return (double)num->value;
    /* Clinger's fast path: at most 15 significant digits and a power of ten
     * that is exact in a double make one correctly rounded operation. */
    const uint8_t *p = num->text, *end = num->text + num->len;
    bool neg = *p == '-';
    p += neg;
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    bool frac = false;
    for (; p < end && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        if (digits == 0 && *p == '0') {
            exp10 -= frac;
            continue;
        }
        if (++digits > 15)
            break;
        m = m * 10 + (uint64_t)(*p - '0');
        exp10 -= frac;
    }
    if (digits <= 15) {
        int e = 0;
        if (p < end) {
            p++;
            bool eneg = *p == '-';
            if (*p == '+' || *p == '-')
                p++;
            for (; p < end && e < 10000; p++)
                e = e * 10 + (*p - '0');
            e = eneg ? -e : e;
        }
        e += exp10;
        if (m == 0)
            return neg ? -0.0 : 0.0;
        if (e >= -22 && e <= 22) {
            double d = e >= 0 ? (double)m * exact_pow10[e] : (double)m / exact_pow10[-e];
            return neg ? -d : d;
        }
    }
    char buf[JSON_MAX_NUMBER + 1];
    memcpy(buf, num->text, num->len);
    buf[num->len] = '\0';
    return strtod(buf, NULL);
}

/* ------------------------------------------------------------------ values */

int basalt_json_lex_literal(struct json_lex *lx)
{
    size_t left = (size_t)(lx->end - lx->p);
    if (left >= 4 && memcmp(lx->p, "true", 4) == 0) {
        lx->p += 4;
        return 1;
    }
    if (left >= 5 && memcmp(lx->p, "false", 5) == 0) {
        lx->p += 5;
        return 0;
    }
    if (left >= 4 && memcmp(lx->p, "null", 4) == 0) {
        lx->p += 4;
        return 2;
    }
    return -1;
}

bool basalt_json_skip_value(struct json_lex *lx)
{
    basalt_json_ws(lx);
    if (lx->p >= lx->end)
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected a value, found the line end");
    uint8_t c = *lx->p;
    const uint8_t *s;
    size_t n;
    if (c == '"')
        return basalt_json_lex_string(lx, &s, &n);
    if (c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I') {
        struct json_number num;
        return basalt_json_lex_number(lx, &num);
    }
    if (c == '{' || c == '[') {
        if (++lx->depth > lx->max_depth)
            return basalt_json_fail(lx, lx->p, BASALT_LIMIT, "nesting deeper than %d levels",
                                    (int)lx->max_depth);
        uint8_t close = c == '{' ? '}' : ']';
        lx->p++;
        basalt_json_ws(lx);
        if (lx->p < lx->end && *lx->p == close) {
            lx->p++;
            lx->depth--;
            return true;
        }
        for (;;) {
            if (c == '{') {
                basalt_json_ws(lx);
                if (lx->p >= lx->end || *lx->p != '"')
                    return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected a key");
                if (!basalt_json_lex_string(lx, &s, &n))
                    return false;
                basalt_json_ws(lx);
                if (lx->p >= lx->end || *lx->p != ':')
                    return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ':'");
                lx->p++;
            }
            if (!basalt_json_skip_value(lx))
                return false;
            basalt_json_ws(lx);
            if (lx->p < lx->end && *lx->p == ',') {
                lx->p++;
                continue;
            }
            if (lx->p < lx->end && *lx->p == close) {
                lx->p++;
                lx->depth--;
                return true;
            }
            return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ',' or '%c'", close);
        }
    }
    if (basalt_json_lex_literal(lx) >= 0)
        return true;
    return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "unexpected character '%c'",
                            c >= 0x20 && c < 0x7f ? c : '?');
}

/* ------------------------------------------------------------------ dates */

static bool digits(const uint8_t *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

bool basalt_json_parse_date(const uint8_t *s, size_t n, int32_t *days)
{
    int y, m, d;
    if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &y) || !digits(s + 5, 2, &m) ||
        !digits(s + 8, 2, &d) || m < 1 || m > 12 || d < 1)
        return false;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[m - 1] + (m == 2 && leap))
        return false;
    *days = (int32_t)days_from_civil(y, (unsigned)m, (unsigned)d);
    return true;
}

/* One or two digits at s[*i], as a time's fields may have. */
static bool time_field(const uint8_t *s, size_t n, size_t *i, int *out)
{
    int v = 0, k = 0;
    for (; *i < n && k < 2 && s[*i] >= '0' && s[*i] <= '9'; (*i)++, k++)
        v = v * 10 + (s[*i] - '0');
    *out = v;
    return k > 0;
}

bool basalt_json_parse_time(const uint8_t *s, size_t n, int64_t *micros)
{
    int h, mi, se = 0;
    size_t i = 0;
    if (!time_field(s, n, &i, &h) || i >= n || s[i++] != ':' || !time_field(s, n, &i, &mi))
        return false;
    int64_t frac = 0;
    if (i < n && s[i] == ':') {
        i++;
        if (!time_field(s, n, &i, &se))
            return false;
        if (i < n && s[i] == '.') {
            i++;
            int nd = 0;
            for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, nd++)
                if (nd < 6)
                    frac = frac * 10 + (s[i] - '0');
            if (nd == 0)
                return false;
            for (int k = nd; k < 6; k++)
                frac *= 10;
        }
    }
    int64_t v = ((int64_t)h * 3600 + mi * 60 + se) * 1000000 + frac;
    if (i != n || h > 24 || mi > 59 || se > 59 || v > INT64_C(86400000000))
        return false;
    *micros = v;
    return true;
}

bool basalt_json_parse_timestamp(const uint8_t *s, size_t n, bool zone_ok, int64_t *micros)
{
    int32_t days;
    int h, mi, se;
    if (n < 19 || !basalt_json_parse_date(s, 10, &days) || (s[10] != 'T' && s[10] != ' ') ||
        s[13] != ':' || s[16] != ':' || !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) ||
        !digits(s + 17, 2, &se) || h > 23 || mi > 59 || se > 59)
        return false;
    size_t i = 19;
    int64_t frac = 0;
    if (i < n && s[i] == '.') {
        i++;
        int nd = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && nd < 9) {
            if (nd < 6)
                frac = frac * 10 + (s[i] - '0');
            nd++;
            i++;
        }
        if (nd == 0)
            return false;
        for (int k = nd; k < 6; k++)
            frac *= 10;
    }
    int64_t offset = 0;
    if (i < n && zone_ok) {
        if (s[i] == 'Z' && i + 1 == n) {
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            int oh, om = 0;
            size_t left = n - i - 1;
            if (left == 2 && digits(s + i + 1, 2, &oh))
                ;
            else if (left == 5 && s[i + 3] == ':' && digits(s + i + 1, 2, &oh) &&
                     digits(s + i + 4, 2, &om))
                ;
            else if (left == 4 && digits(s + i + 1, 2, &oh) && digits(s + i + 3, 2, &om))
                ;
            else
                return false;
            if (oh > 23 || om > 59)
                return false;
            offset = (s[i] == '-' ? -1 : 1) * ((int64_t)oh * 3600 + om * 60);
            i = n;
        }
    }
    if (i != n)
        return false;
    *micros = (((int64_t)days * 86400 + h * 3600 + mi * 60 + se) - offset) * 1000000 + frac;
    return true;
}

int basalt_json_timestamp_shape(const uint8_t *s, size_t n)
{
    int shape = s[10] == 'T' ? 1 : 0;
    if (n > 19 && s[19] == '.')
        shape |= 2;
    if (s[n - 1] == 'Z')
        shape |= 4;
    else if (n > 19 && (memchr(s + 19, '+', n - 19) || memchr(s + 19, '-', n - 19)))
        shape |= 8;
    return shape;
}
