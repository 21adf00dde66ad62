/* Text to values: the converters of the parser and the sniffer. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "csv_internal.h"

static inline bool is_digit(uint8_t c) { return (unsigned)(c - '0') < 10; }

static inline uint8_t lower(uint8_t c) { return c >= 'A' && c <= 'Z' ? (uint8_t)(c | 0x20) : c; }

static bool equals_nocase(const uint8_t *s, size_t n, const char *word)
{
    size_t i = 0;
    for (; i < n && word[i]; i++)
        if (lower(s[i]) != (uint8_t)word[i])
            return false;
    return i == n && !word[i];
}

bool basalt_csv_parse_bool(const uint8_t *s, size_t n, bool *out)
{
    if (n == 4 && memcmp(s, "true", 4) == 0) {
        *out = true;
        return true;
    }
    if (n == 5 && memcmp(s, "false", 5) == 0) {
        *out = false;
        return true;
    }
    if (equals_nocase(s, n, "true")) {
        *out = true;
        return true;
    }
    if (equals_nocase(s, n, "false")) {
        *out = false;
        return true;
    }
    return false;
}

bool basalt_csv_parse_int64(const uint8_t *s, size_t n, bool strict, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || (!strict && s[0] == '+'))) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n)
        return false;
    if (strict && s[i] == '0' && i + 1 < n)
        return false;
    uint64_t v = 0;
    size_t digits = n - i;
    if (digits <= 18) {
        for (; i < n; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (d > 9)
                return false;
            v = v * 10 + d;
        }
    } else {
        for (; i < n; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (d > 9)
                return false;
            if (v > (UINT64_MAX - d) / 10)
                return false;
            v = v * 10 + d;
        }
        if (v > (uint64_t)INT64_MAX + neg)
            return false;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* strtod on a NUL-terminated copy (the text was checked to be a plain
 * decimal number, so the locale's decimal point is the only concern: basalt
 * does not change the C locale). */
static bool slow_double(const uint8_t *s, size_t n, double *out)
{
    char stack[128];
    char *buf = n < sizeof stack ? stack : basalt_malloc(n + 1);
    if (!buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    char *endp;
    double v = strtod(buf, &endp);
    bool ok = endp == buf + n && !(errno == ERANGE && isinf(v));
    if (buf != stack)
        basalt_free(buf);
    if (ok)
        *out = v;
    return ok;
}

bool basalt_csv_parse_double(const uint8_t *s, size_t n, bool strict, double *out)
{
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || (!strict && s[0] == '+'))) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n)
        return false;
    if (!strict && n - i <= 18) {
        /* The common shape, digits[.digits] with at most 17 of them: one
         * exact integer over an exact power of ten. */
        const uint8_t *q = s + i, *e = s + n;
        uint64_t m = 0;
        while (q < e && is_digit(*q))
            m = m * 10 + (uint64_t)(*q++ - '0');
        size_t int_len = (size_t)(q - (s + i)), frac = 0;
        if (q < e && *q == '.') {
            const uint8_t *f = ++q;
            while (q < e && is_digit(*q))
                m = m * 10 + (uint64_t)(*q++ - '0');
            frac = (size_t)(q - f);
        }
        if (q == e && int_len + frac > 0 && m <= (1ull << 53)) {
            double v = (double)m / pow10_exact[frac];
            *out = neg ? -v : v;
            return true;
        }
    }
    if (!is_digit(s[i]) && s[i] != '.') {
        if (strict)
            return false;
        const uint8_t *w = s + i;
        size_t wn = n - i;
        double v;
        if (equals_nocase(w, wn, "inf") || equals_nocase(w, wn, "infinity"))
            v = INFINITY;
        else if (equals_nocase(w, wn, "nan"))
            v = NAN;
        else
            return false;
        *out = neg ? -v : v;
        return true;
    }
    if (strict && s[i] == '0' && i + 1 < n && is_digit(s[i + 1]))
        return false;
    uint64_t mant = 0;
    int sig = 0;         /* significant digits taken into mant */
    int64_t exp10 = 0;   /* adjustment from dropped or fraction digits */
    size_t int_digits = 0, frac_digits = 0;
    for (; i < n && is_digit(s[i]); i++, int_digits++) {
        if (sig < 19) {
            if (mant || s[i] != '0') {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                sig++;
            }
        } else {
            exp10++;
        }
    }
    if (i < n && s[i] == '.') {
        i++;
        for (; i < n && is_digit(s[i]); i++, frac_digits++) {
            if (sig < 19) {
                if (mant || s[i] != '0') {
                    mant = mant * 10 + (uint64_t)(s[i] - '0');
                    sig++;
                }
                exp10--;
            }
        }
    }
    if (int_digits + frac_digits == 0)
        return false;
    bool exact_digits = true;
    if (sig >= 19)
        exact_digits = false; /* digits may have been dropped: let strtod round */
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            eneg = s[i] == '-';
            i++;
        }
        if (i == n || !is_digit(s[i]))
            return false;
        int64_t e = 0;
        for (; i < n && is_digit(s[i]); i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    if (i != n)
        return false;
    if (exact_digits && mant <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)mant;
        v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
        *out = neg ? -v : v;
        return true;
    }
    if (mant == 0) {
        *out = neg ? -0.0 : 0.0;
        return true;
    }
    return slow_double(s, n, out);
}

int64_t basalt_csv_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void basalt_csv_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
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

static bool digits(const uint8_t *s, size_t n, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return true;
}

static bool parse_ymd(const uint8_t *s, int64_t *days)
{
    unsigned y, m, d;
    if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &m) || s[7] != '-' ||
        !digits(s + 8, 2, &d))
        return false;
    static const unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return false;
    if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return false;
    *days = basalt_csv_days_from_civil(y, m, d);
    return true;
}

bool basalt_csv_parse_date(const uint8_t *s, size_t n, int32_t *days)
{
    int64_t v;
    if (n != 10 || !parse_ymd(s, &v))
        return false;
    *days = (int32_t)v;
    return true;
}

bool basalt_csv_parse_time(const uint8_t *s, size_t n, int64_t *micros)
{
    unsigned hh, mm, ss = 0;
    if (n < 5 || !digits(s, 2, &hh) || s[2] != ':' || !digits(s + 3, 2, &mm))
        return false;
    if (n > 5 && (n < 8 || s[5] != ':' || !digits(s + 6, 2, &ss)))
        return false;
    size_t i = n > 5 ? 8 : 5;
    int64_t frac = 0;
    if (i < n && s[i] == '.') {
        i++;
        size_t k = 0;
        for (; i < n && is_digit(s[i]); i++, k++)
            if (k < 6)
                frac = frac * 10 + (s[i] - '0');
        if (k == 0)
            return false;
        for (; k < 6; k++)
            frac *= 10;
    }
    int64_t v = ((int64_t)hh * 3600 + mm * 60 + ss) * 1000000 + frac;
    if (i != n || hh > 24 || mm > 59 || ss > 59 || v > INT64_C(86400000000))
        return false;
    *micros = v;
    return true;
}

bool basalt_csv_parse_timestamp(const uint8_t *s, size_t n, int64_t *micros, bool *has_zone)
{
    int64_t days;
    unsigned hh, mm, ss = 0;
    if (n < 16 || !parse_ymd(s, &days) || (s[10] != ' ' && s[10] != 'T') ||
        !digits(s + 11, 2, &hh) || s[13] != ':' || !digits(s + 14, 2, &mm))
        return false;
    size_t i = 16;
    int64_t frac = 0;
    if (i < n && s[i] == ':') {
        if (n < i + 3 || !digits(s + i + 1, 2, &ss))
            return false;
        i += 3;
        if (i < n && s[i] == '.') {
            i++;
            size_t k = 0;
            for (; i < n && is_digit(s[i]); i++, k++)
                if (k < 6)
                    frac = frac * 10 + (s[i] - '0');
            if (k == 0)
                return false;
            for (; k < 6; k++)
                frac *= 10;
        }
    }
    if (hh > 23 || mm > 59 || ss > 59)
        return false;
    int64_t offset_s = 0;
    bool zone = false;
    if (i < n) {
        zone = true;
        if (s[i] == 'Z' || s[i] == 'z') {
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            bool neg = s[i] == '-';
            unsigned oh, om = 0;
            if (n < i + 3 || !digits(s + i + 1, 2, &oh))
                return false;
            i += 3;
            if (i < n && s[i] == ':')
                i++;
            if (i < n) {
                if (n < i + 2 || !digits(s + i, 2, &om))
                    return false;
                i += 2;
            }
            if (oh > 23 || om > 59)
                return false;
            offset_s = (int64_t)(oh * 3600 + om * 60);
            if (neg)
                offset_s = -offset_s;
        } else {
            return false;
        }
        if (i != n)
            return false;
    }
    int64_t secs = days * 86400 + hh * 3600 + mm * 60 + ss - offset_s;
    *micros = secs * 1000000 + frac;
    *has_zone = zone;
    return true;
}

bool basalt_csv_parse_decimal(const uint8_t *s, size_t n, int32_t precision, int32_t scale,
                       __int128 *out)
{
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    __int128 v = 0;
    int32_t int_digits = 0, frac = 0;
    bool any = false, round_up = false;
    for (; i < n && is_digit(s[i]); i++) {
        any = true;
        if (v == 0 && s[i] == '0')
            continue;
        if (++int_digits > precision - scale)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    if (i < n && s[i] == '.') {
        i++;
        for (; i < n && is_digit(s[i]); i++) {
            any = true;
            if (frac < scale) {
                v = v * 10 + (s[i] - '0');
                frac++;
            } else if (frac == scale) {
                round_up = s[i] >= '5';
                frac++;
            }
        }
    }
    if (!any || i != n)
        return false;
    for (int32_t k = frac < scale ? frac : scale; k < scale; k++)
        v *= 10;
    if (round_up) {
        v += 1;
        __int128 limit = 1;
        for (int32_t k = 0; k < precision; k++)
            limit *= 10;
        if (v >= limit)
            return false;
    }
    *out = neg ? -v : v;
    return true;
}

bool basalt_csv_utf8_valid_slow(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ull)) {
                i += 8;
                continue;
            }
        }
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
        if (i + len > n)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        i += len;
    }
    return true;
}
