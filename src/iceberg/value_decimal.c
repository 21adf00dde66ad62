/* 128-bit decimal arithmetic on the two's complement (lo, hi) pair, the
 * calendar and the float total order: portable C without a 128-bit type. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

struct basalt_iceberg_decimal basalt_iceberg_dec_from_i64(int64_t v)
{
    struct basalt_iceberg_decimal d = {(uint64_t)v, v < 0 ? -1 : 0};
    return d;
}

bool basalt_iceberg_dec_is_neg(struct basalt_iceberg_decimal d) { return d.hi < 0; }

struct basalt_iceberg_decimal basalt_iceberg_dec_neg(struct basalt_iceberg_decimal d)
{
    uint64_t lo = ~d.lo + 1;
    uint64_t hi = ~(uint64_t)d.hi + (lo == 0 ? 1 : 0);
    struct basalt_iceberg_decimal r = {lo, (int64_t)hi};
    return r;
}

int basalt_iceberg_dec_cmp(struct basalt_iceberg_decimal a, struct basalt_iceberg_decimal b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return 0;
}

static void to_limbs(struct basalt_iceberg_decimal d, uint64_t limb[4])
{
    uint64_t hi = (uint64_t)d.hi;
    limb[0] = d.lo & 0xffffffffu;
    limb[1] = d.lo >> 32;
    limb[2] = hi & 0xffffffffu;
    limb[3] = hi >> 32;
}

static struct basalt_iceberg_decimal from_limbs(const uint64_t limb[4])
{
    struct basalt_iceberg_decimal d;
    d.lo = limb[0] | (limb[1] << 32);
    d.hi = (int64_t)(limb[2] | (limb[3] << 32));
    return d;
}

bool basalt_iceberg_dec_mul_add(struct basalt_iceberg_decimal *d, uint32_t mul, uint32_t add)
{
    uint64_t limb[4];
    to_limbs(*d, limb);
    uint64_t carry = add;
    for (int i = 0; i < 4; i++) {
        uint64_t t = limb[i] * mul + carry;
        limb[i] = t & 0xffffffffu;
        carry = t >> 32;
    }
    if (carry != 0 || (limb[3] & 0x80000000u))
        return false;
    *d = from_limbs(limb);
    return true;
}

uint32_t basalt_iceberg_dec_divmod(struct basalt_iceberg_decimal *d, uint32_t div)
{
    uint64_t limb[4];
    to_limbs(*d, limb);
    uint64_t rem = 0;
    for (int i = 3; i >= 0; i--) {
        uint64_t t = (rem << 32) | limb[i];
        limb[i] = t / div;
        rem = t % div;
    }
    *d = from_limbs(limb);
    return (uint32_t)rem;
}

static bool dec_is_zero(struct basalt_iceberg_decimal d) { return d.lo == 0 && d.hi == 0; }

/* |d| as unsigned 128 bits; the most negative value stays itself, which the
 * limb arithmetic reads as 2^127. */
static struct basalt_iceberg_decimal dec_abs(struct basalt_iceberg_decimal d)
{
    return basalt_iceberg_dec_is_neg(d) ? basalt_iceberg_dec_neg(d) : d;
}

int basalt_iceberg_dec_digits(struct basalt_iceberg_decimal d)
{
    struct basalt_iceberg_decimal m = dec_abs(d);
    int n = 0;
    do {
        basalt_iceberg_dec_divmod(&m, 10);
        n++;
    } while (!dec_is_zero(m));
    return n;
}

bool basalt_iceberg_dec_rescale(struct basalt_iceberg_decimal *d, int32_t from, int32_t to)
{
    bool neg = basalt_iceberg_dec_is_neg(*d);
    struct basalt_iceberg_decimal m = dec_abs(*d);
    if (neg && basalt_iceberg_dec_is_neg(m))
        return false; /* -2^127 has no positive twin */
    for (int32_t s = from; s < to; s++)
        if (!basalt_iceberg_dec_mul_add(&m, 10, 0))
            return false;
    for (int32_t s = from; s > to; s--)
        if (basalt_iceberg_dec_divmod(&m, 10) != 0)
            return false;
    *d = neg ? basalt_iceberg_dec_neg(m) : m;
    return true;
}

size_t basalt_iceberg_dec_format(struct basalt_iceberg_decimal d, int32_t scale, char *buf,
                                 size_t cap)
{
    char digits[48];
    int n = 0;
    bool neg = basalt_iceberg_dec_is_neg(d);
    struct basalt_iceberg_decimal m = dec_abs(d);
    do {
        digits[n++] = (char)('0' + basalt_iceberg_dec_divmod(&m, 10));
    } while (!dec_is_zero(m));
    int32_t sc = scale < 0 ? 0 : scale;
    char text[128];
    size_t len = 0;
    if (neg)
        text[len++] = '-';
    int total = n > sc ? n : sc + 1; /* digits including leading zeros */
    if (total > 100)
        total = 100; /* scales are at most 38; keep the buffer safe */
    for (int i = total - 1; i >= 0; i--) {
        text[len++] = i < n ? digits[i] : '0';
        if (i == sc && sc > 0)
            text[len++] = '.';
    }
    /* The loop puts the point after the digit of weight 10^scale. */
    if (cap > 0) {
        size_t k = len < cap - 1 ? len : cap - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return len;
}

double basalt_iceberg_dec_to_double(struct basalt_iceberg_decimal d, int32_t scale)
{
    char text[160];
    size_t len = basalt_iceberg_dec_format(d, 0, text, sizeof(text) - 8);
    int n = snprintf(text + len, sizeof(text) - len, "e%d", (int)-scale);
    (void)n;
    return strtod(text, NULL);
}

int64_t basalt_iceberg_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void basalt_iceberg_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
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

int64_t basalt_iceberg_double_key(double v)
{
    if (isnan(v))
        return signbit(v) ? INT64_MIN : INT64_MAX;
    int64_t s;
    memcpy(&s, &v, sizeof(s));
    return s >= 0 ? s : s ^ INT64_MAX;
}
