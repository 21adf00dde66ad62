/* Shortest round-trip decimal text of binary floating-point values.
 *
 * The method is the one of R. Giulietti's "The Schubfach way to render
 * doubles" (2020), written afresh over unsigned __int128. A value
 * v = c x 2^q reads back from every decimal in its rounding interval
 * R = [(c - 1/2) 2^q, (c + 1/2) 2^q] (a quarter instead of a half below for
 * the first significand of a binade: the spacing halves there), the ends
 * included when c is even (ties go to even). Pick k with
 * 10^k <= width(R) < 10^(k+1). Scaled by 10^-k, R is at least 1 and under 10
 * wide, so
 *   - it holds at most one multiple of ten: if one of the two around
 *     v 10^-k lies in R, it is the shortest answer (and the only one of its
 *     length; its trailing zeros are dropped);
 *   - otherwise the answer has the digits of floor(v 10^-k) = s: of s and
 *     s + 1, the one in R, or the nearer when both are (no multiple of ten
 *     is in R, so no other integer in R is shorter).
 * Every test is a comparison of R's ends and v, scaled by 4 x 10^-k, with an
 * integer. Those scaled values x = cb 2^q 10^-k (cb = 4c - 2, 4c - 1, 4c,
 * 4c + 2) come from one 64 x 128-bit product with g, 10^-k to 128 bits
 * rounded up (float_text_pow10.h, written by scripts/gen_float_text_table.mjs
 * with exact BigInt arithmetic): the product is above x by less than 2^-64,
 * so its integer part is floor(x) and x is not an integer whenever its
 * fraction's top 64 bits are not all zero. When they are, x is within 2^-64
 * of an integer and settle() decides exactly: x is an integer when the
 * powers of two and five in it divide out (the common case: integers and
 * short binary fractions), otherwise a comparison of big integers says on
 * which side it lies. Giulietti's analysis of the method says that last
 * case does not arise for these formats; it is kept so that correctness
 * does not rest on that analysis (the tests run every comparison through it
 * too and get the same answers). */
#include <string.h>

#include "basalt/core.h"
#include "float_text_internal.h"
#include "float_text_pow10.h"

/* floor(log10(2^q)), floor(log10(3/4 2^q)) and floor(log2(10^e)), exact for
 * |q| <= 1100 and |e| <= 400 (scripts/gen_float_text_table.mjs checks them,
 * and so do the tests). Right shifts of negative ints are arithmetic in gcc
 * and clang. */
static int floor_log10_pow2(int q) { return (q * 315653) >> 20; }
static int floor_log10_three_quarters_pow2(int q) { return (q * 315653 - 131008) >> 20; }
static int floor_log2_pow10(int e) { return (e * 1741647) >> 19; }

/* ------------------------------------------------------------ big integers */

/* Enough for cb 5^324 and for n 2^750 (the smallest subnormal's
 * comparisons), the largest numbers settle() builds: about 812 bits. */
#define BIG_LIMBS 40

struct big {
    uint32_t w[BIG_LIMBS];
    int n;
};

static void big_set(struct big *b, uint64_t v)
{
    b->w[0] = (uint32_t)v;
    b->w[1] = (uint32_t)(v >> 32);
    b->n = b->w[1] ? 2 : b->w[0] ? 1 : 0;
}

static void big_mul_small(struct big *b, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < b->n; i++) {
        uint64_t p = (uint64_t)b->w[i] * m + carry;
        b->w[i] = (uint32_t)p;
        carry = p >> 32;
    }
    if (carry)
        b->w[b->n++] = (uint32_t)carry;
}

static void big_mul_pow5(struct big *b, int e)
{
    static const uint32_t pow5[14] = {1,      5,       25,       125,       625,
                                      3125,   15625,   78125,    390625,    1953125,
                                      9765625, 48828125, 244140625, 1220703125};
    for (; e >= 13; e -= 13)
        big_mul_small(b, pow5[13]);
    if (e)
        big_mul_small(b, pow5[e]);
}

static void big_shift_left(struct big *b, int s)
{
    if (b->n == 0)
        return;
    int limbs = s / 32, bits = s % 32;
    if (bits) {
        uint32_t top = b->w[b->n - 1] >> (32 - bits);
        for (int i = b->n - 1; i > 0; i--)
            b->w[i] = b->w[i] << bits | b->w[i - 1] >> (32 - bits);
        b->w[0] <<= bits;
        if (top)
            b->w[b->n++] = top;
    }
    if (limbs) {
        memmove(b->w + limbs, b->w, (size_t)b->n * sizeof b->w[0]);
        memset(b->w, 0, (size_t)limbs * sizeof b->w[0]);
        b->n += limbs;
    }
}

static int big_compare(const struct big *a, const struct big *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

int basalt_float_text_compare(uint64_t m, int a, int b, uint64_t n)
{
    struct big lhs, rhs;
    big_set(&lhs, m);
    big_set(&rhs, n);
    if (a > 0)
        big_shift_left(&lhs, a);
    else if (a < 0)
        big_shift_left(&rhs, -a);
    if (b > 0)
        big_mul_pow5(&lhs, b);
    else if (b < 0)
        big_mul_pow5(&rhs, -b);
    return big_compare(&lhs, &rhs);
}

/* ------------------------------------------------------------ conversion */

/* floor(x) and whether x has a fraction, for one scaled end or midpoint. */
struct scaled {
    uint64_t floor;
    bool frac;
};

/* Whether cb 2^a 5^b is an integer. */
static bool is_integer(uint64_t cb, int a, int b)
{
    if (a < 0 && __builtin_ctzll(cb) < -a)
        return false;
    for (int i = 0; i < -b; i++) {
        if (cb % 5)
            return false;
        cb /= 5;
    }
    return true;
}

/* x = cb 2^q 10^-k, whose approximate floor r->floor is floor(x) or
 * floor(x) + 1 (the product overestimates x by under 2^-64): the exact
 * answer. */
static void settle(uint64_t cb, int q, int k, bool exact, struct scaled *r)
{
    int a = q - k, b = -k; /* x = cb 2^a 5^b */
    if (!exact && is_integer(cb, a, b)) {
        r->frac = false; /* an integer within 2^-64 of r->floor */
        return;
    }
    int cmp = basalt_float_text_compare(cb, a, b, r->floor);
    r->frac = cmp != 0;
    if (cmp < 0)
        r->floor--;
}

static struct scaled scale(uint64_t cb, int h, const uint64_t g[2], int q, int k, bool exact)
{
    uint64_t cp = cb << h;
    unsigned __int128 low = (unsigned __int128)cp * g[1];
    unsigned __int128 mid = (unsigned __int128)cp * g[0] + (uint64_t)(low >> 64);
    struct scaled r = {(uint64_t)(mid >> 64), true};
    if ((uint64_t)mid == 0 || exact)
        settle(cb, q, k, exact, &r);
    return r;
}

/* Whether the lower end, scaled, is at most (closed) or below (open) the
 * integer m. */
static bool lower_end_within(struct scaled lo, uint64_t m, bool open)
{
    return lo.floor + (lo.frac || open) <= m;
}

/* Whether the integer m is at most (closed) or below (open) the upper end. */
static bool upper_end_within(struct scaled hi, uint64_t m, bool open)
{
    return m + (open && !hi.frac) <= hi.floor;
}

/* d > 0 */
static uint64_t drop_zeros(uint64_t d, int *exp10)
{
    while (d % 100000000 == 0) {
        d /= 100000000;
        *exp10 += 8;
    }
    if (d % 10000 == 0) {
        d /= 10000;
        *exp10 += 4;
    }
    if (d % 100 == 0) {
        d /= 100;
        *exp10 += 2;
    }
    if (d % 10 == 0) {
        d /= 10;
        *exp10 += 1;
    }
    return d;
}

uint64_t basalt_float_text_decimal(uint64_t c, int q, bool irregular, bool exact, int *exp10)
{
    int k = irregular ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
    /* g = 10^-k 2^(127 - L), L = floor(log2(10^-k)); x = (cb << h) g / 2^128
     * with h = q + L + 1, between 1 and 4 for every q. */
    int h = q + floor_log2_pow10(-k) + 1;
    const uint64_t *g = basalt_pow10_128[-k - BASALT_POW10_128_MIN];
    uint64_t cb = c << 2;
    bool open = c & 1;
    struct scaled lo = scale(cb - (irregular ? 1 : 2), h, g, q, k, exact);
    struct scaled mid = scale(cb, h, g, q, k, exact);
    struct scaled hi = scale(cb + 2, h, g, q, k, exact);
    uint64_t s = mid.floor >> 2; /* floor(v 10^-k) */

    uint64_t s10 = s / 10 * 10, t10 = s10 + 10;
    bool s10_in = lower_end_within(lo, s10 << 2, open);
    bool t10_in = upper_end_within(hi, t10 << 2, open);
    if (s10_in != t10_in) {
        *exp10 = k + 1;
        return drop_zeros((s10_in ? s10 : t10) / 10, exp10);
    }

    uint64_t t = s + 1;
    bool s_in = lower_end_within(lo, s << 2, open);
    bool t_in = upper_end_within(hi, t << 2, open);
    *exp10 = k;
    if (s_in != t_in)
        return s_in ? s : t;
    /* Both read back: the nearer, comparing v with their midpoint s + 1/2
     * (a tie cannot happen for these formats, but goes to even). */
    uint64_t m = (s << 2) + 2;
    bool below = mid.floor < m || (mid.floor == m && !mid.frac && (s & 1) == 0);
    return below ? s : t;
}

/* ------------------------------------------------------------ digits */

static int write_digits(uint64_t d, char *out)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                                   "25262728293031323334353637383940414243444546474849"
                                   "50515253545556575859606162636465666768697071727374"
                                   "75767778798081828384858687888990919293949596979899";
    int n = 1;
    for (uint64_t p = 10; n < 20 && d >= p; p *= 10)
        n++;
    int i = n;
    while (d >= 100) {
        unsigned r = (unsigned)(d % 100);
        d /= 100;
        i -= 2;
        memcpy(out + i, pairs + 2 * r, 2);
    }
    if (d >= 10) {
        i -= 2;
        memcpy(out + i, pairs + 2 * d, 2);
    } else {
        out[--i] = (char)('0' + d);
    }
    return n;
}

/* c x 2^q from a biased exponent and fraction field of `mbits` bits:
 * digits and exponent, or 0 for NaN and infinities. */
static int shortest(uint64_t frac, unsigned biased, unsigned max_biased, int mbits, int bias,
                    char *digits, int *exp10)
{
    if (biased == max_biased)
        return 0;
    if (biased == 0 && frac == 0) {
        digits[0] = '0';
        *exp10 = 0;
        return 1;
    }
    uint64_t c = biased ? frac | UINT64_C(1) << mbits : frac;
    int q = (biased ? (int)biased : 1) - bias - mbits;
    bool irregular = frac == 0 && biased > 1;
    int e;
    uint64_t d = basalt_float_text_decimal(c, q, irregular, false, &e);
    int n = write_digits(d, digits);
    *exp10 = e + n - 1;
    return n;
}

int basalt_double_shortest(double v, char *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return shortest(bits & ((UINT64_C(1) << 52) - 1), (unsigned)(bits >> 52) & 0x7ff, 0x7ff, 52,
                    1023, digits, exp10);
}

int basalt_float_shortest(float v, char *digits, int *exp10)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return shortest(bits & ((UINT32_C(1) << 23) - 1), (bits >> 23) & 0xff, 0xff, 23, 127, digits,
                    exp10);
}

int basalt_half_shortest(uint16_t bits, char *digits, int *exp10)
{
    return shortest(bits & 0x3ffu, (bits >> 10) & 0x1fu, 0x1f, 10, 15, digits, exp10);
}

/* ------------------------------------------------------------ %g layout */

static size_t layout_g(bool neg, const char *digits, int n, int x, int precision, char *buf)
{
    char *w = buf;
    if (neg)
        *w++ = '-';
    if (n == 0) { /* NaN or infinity: `neg` is the infinity's sign */
        memcpy(w, digits, 3);
        w[3] = '\0';
        return (size_t)(w + 3 - buf);
    }
    int p = precision < 1 ? 1 : precision > 17 ? 17 : precision;
    if (p < n)
        p = n;
    if (x < -4 || x >= p) {
        *w++ = digits[0];
        if (n > 1) {
            *w++ = '.';
            memcpy(w, digits + 1, (size_t)(n - 1));
            w += n - 1;
        }
        *w++ = 'e';
        *w++ = x < 0 ? '-' : '+';
        unsigned e = (unsigned)(x < 0 ? -x : x);
        if (e >= 100)
            *w++ = (char)('0' + e / 100);
        *w++ = (char)('0' + e / 10 % 10);
        *w++ = (char)('0' + e % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++)
            *w++ = i < n ? digits[i] : '0';
        if (n > x + 1) {
            *w++ = '.';
            memcpy(w, digits + x + 1, (size_t)(n - x - 1));
            w += n - x - 1;
        }
    } else {
        *w++ = '0';
        *w++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *w++ = '0';
        memcpy(w, digits, (size_t)n);
        w += n;
    }
    *w = '\0';
    return (size_t)(w - buf);
}

size_t basalt_double_format_g(double v, int precision, char *buf)
{
    char digits[17];
    int x = 0;
    int n = basalt_double_shortest(v, digits, &x);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bool neg = bits >> 63;
    if (n == 0) {
        bool nan = (bits & ((UINT64_C(1) << 52) - 1)) != 0;
        memcpy(digits, nan ? "nan" : "inf", 3);
        neg = neg && !nan;
    }
    return layout_g(neg, digits, n, x, precision, buf);
}

size_t basalt_float_format_g(float v, int precision, char *buf)
{
    char digits[17];
    int x = 0;
    int n = basalt_float_shortest(v, digits, &x);
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    bool neg = bits >> 31;
    if (n == 0) {
        bool nan = (bits & ((UINT32_C(1) << 23) - 1)) != 0;
        memcpy(digits, nan ? "nan" : "inf", 3);
        neg = neg && !nan;
    }
    return layout_g(neg, digits, n, x, precision, buf);
}
