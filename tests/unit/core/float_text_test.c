/* Shortest round-trip decimals (src/core/float_text.c) against oracles that
 * do not share its arithmetic: glibc's printf (exact, correctly rounded to
 * any precision) and strtod / strtof (correctly rounded reads), and V8's
 * Number.prototype.toExponential() (differential.float_text_v8).
 *
 * For each value the answer, n digits, must
 *   1. read back to the value;
 *   2. be shortest: no (n-1)-digit decimal reads back. The ones that could
 *      are the correctly rounded one (printf's %.{n-2}e) and its two
 *      neighbours: any (n-1)-digit decimal in the rounding interval puts one
 *      of those between it and the value;
 *   3. be the nearest of the n-digit ones that read back: printf's
 *      %.{n-1}e when that reads back; when it does not (only possible where
 *      the interval is lopsided, at a power of two), its neighbour on the
 *      value's other side, which the old trial loops missed (they went on
 *      to n+1 digits there).
 * Floats are also checked by a second oracle without printf (see
 * check_float_fast), fast enough for every float.
 * BASALT_FLOAT_TEXT_COUNT sets how many random bit patterns of each width
 * are checked (default 3,000,000 doubles and as many floats);
 * BASALT_FLOAT_TEXT_EXHAUSTIVE=1 makes float_text_floats_all check all 2^31
 * positive floats (about 20 CPU minutes; BASALT_FLOAT_TEXT_FROM / _TO, bit
 * patterns in hex, bound it, so that ranges can run side by side). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "float_text_internal.h"
#include "float_text_pow10.h"
#include "test.h"

enum width { W64, W32, W16 };

/* The exact value of a binary16 bit pattern (exact in a double). */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 31, f = h & 1023;
    double v = e == 0 ? ldexp(f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp(f + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* The binary16 nearest to a positive double (ties to even), by the exact
 * midpoints between neighbouring halves. */
static uint16_t half_nearest(double y)
{
    if (!(y < 65520.0))
        return 0x7c00;
    uint16_t h = 0;
    for (int step = 1 << 14; step; step >>= 1) /* largest h with value <= y */
        if (h + step < 0x7c00 && half_value((uint16_t)(h + step)) <= y)
            h = (uint16_t)(h + step);
    double mid = (half_value(h) + half_value((uint16_t)(h + 1))) / 2;
    if (y > mid || (y == mid && (h & 1)))
        h++;
    return h;
}

struct value {
    enum width w;
    uint64_t bits; /* positive */
    double x;      /* its exact value */
};

/* Whether the decimal m x 10^e reads back as v. */
static bool reads_back(const struct value *v, uint64_t m, int e)
{
    char text[48];
    snprintf(text, sizeof text, "%" PRIu64 "e%d", m, e);
    switch (v->w) {
    case W64: {
        double d = strtod(text, NULL);
        uint64_t b;
        memcpy(&b, &d, 8);
        return b == v->bits;
    }
    case W32: {
        float f = strtof(text, NULL);
        uint32_t b;
        memcpy(&b, &f, 4);
        return b == v->bits;
    }
    case W16:
        return half_nearest(strtod(text, NULL)) == v->bits;
    }
    return false;
}

/* printf's correctly rounded p-digit decimal of v: m x 10^e. */
static void rounded(const struct value *v, int p, uint64_t *m, int *e)
{
    char text[48];
    snprintf(text, sizeof text, "%.*e", p - 1, v->x);
    char *end;
    *m = strtoull(text, &end, 10);
    if (*end == '.') {
        char *frac = end + 1;
        uint64_t f = strtoull(frac, &end, 10);
        for (int i = 0; i < (int)(end - frac); i++)
            *m *= 10;
        *m += f;
    }
    *e = atoi(end + 1) - (p - 1);
}

static int ours(const struct value *v, char *digits, int *exp10)
{
    switch (v->w) {
    case W64: {
        double d;
        memcpy(&d, &v->bits, 8);
        return basalt_double_shortest(d, digits, exp10);
    }
    case W32: {
        uint32_t b = (uint32_t)v->bits;
        float f;
        memcpy(&f, &b, 4);
        return basalt_float_shortest(f, digits, exp10);
    }
    case W16:
        return basalt_half_shortest((uint16_t)v->bits, digits, exp10);
    }
    return 0;
}

/* Whether the value's interval is lopsided (a quarter unit below). */
static bool at_power_of_two(const struct value *v)
{
    int mbits = v->w == W64 ? 52 : v->w == W32 ? 23 : 10;
    return (v->bits & ((UINT64_C(1) << mbits) - 1)) == 0 && (v->bits >> mbits) > 1;
}

struct tally {
    uint64_t checked;
    /* printf's n digits do not read back: ours is shorter than the old loops' */
    uint64_t shorter_than_trial;
};

static void strip(uint64_t *m, int *e)
{
    while (*m && *m % 10 == 0) {
        *m /= 10;
        ++*e;
    }
}

/* The checks above for one positive finite nonzero value; false with a
 * message in why. */
static bool check_value(const struct value *v, struct tally *t, char *why, size_t cap)
{
    static const int max_digits[] = {17, 9, 5};
    char digits[24];
    int x = 0;
    int n = ours(v, digits, &x);
    t->checked++;
    if (n < 1 || n > max_digits[v->w] || digits[0] == '0' || digits[n - 1] == '0') {
        snprintf(why, cap, "%d digits '%.*s'", n, n > 0 && n < 24 ? n : 0, digits);
        return false;
    }
    uint64_t d = 0;
    for (int i = 0; i < n; i++) {
        if (digits[i] < '0' || digits[i] > '9') {
            snprintf(why, cap, "not a digit in '%.*s'", n, digits);
            return false;
        }
        d = d * 10 + (uint64_t)(digits[i] - '0');
    }
    int de = x - (n - 1);
    if (!reads_back(v, d, de)) {
        snprintf(why, cap, "%" PRIu64 "e%d does not read back", d, de);
        return false;
    }
    if (n > 1) {
        uint64_t m;
        int e;
        rounded(v, n - 1, &m, &e);
        if (reads_back(v, m, e) || reads_back(v, m - 1, e) || reads_back(v, m + 1, e)) {
            snprintf(why, cap, "%" PRIu64 "e%d: a %d-digit decimal near %" PRIu64 "e%d reads back",
                     d, de, n - 1, m, e);
            return false;
        }
    }
    uint64_t m;
    int e;
    rounded(v, n, &m, &e);
    if (reads_back(v, m, e)) {
        if (m != d || e != de) {
            snprintf(why, cap, "%" PRIu64 "e%d: not the nearest, %" PRIu64 "e%d is", d, de, m, e);
            return false;
        }
        return true;
    }
    t->shorter_than_trial++;
    if (!at_power_of_two(v)) {
        snprintf(why, cap, "%" PRIu64 "e%d: printf's %" PRIu64 "e%d does not read back away from "
                 "a power of two", d, de, m, e);
        return false;
    }
    char text[48];
    snprintf(text, sizeof text, "%" PRIu64 "e%d", m, e);
    uint64_t want = strtod(text, NULL) < v->x ? m + 1 : m - 1;
    int we = e;
    strip(&want, &we);
    if (want != d || we != de) {
        snprintf(why, cap, "%" PRIu64 "e%d: the nearest that reads back is %" PRIu64 "e%d", d, de,
                 want, we);
        return false;
    }
    return true;
}

/* "me" as text, fast (the exhaustive sweep's reads). */
static void decimal_text(uint64_t m, int e, char *out)
{
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    while (k)
        *out++ = tmp[--k];
    *out++ = 'e';
    if (e < 0) {
        *out++ = '-';
        e = -e;
    }
    do {
        tmp[k++] = (char)('0' + e % 10);
        e /= 10;
    } while (e);
    while (k)
        *out++ = tmp[--k];
    *out = '\0';
}

static bool float_reads_back(float f, uint64_t m, int e)
{
    char text[48];
    decimal_text(m, e, text);
    return strtof(text, NULL) == f;
}

/* The same three checks for a positive float without printf (the
 * exhaustive sweep's oracle), from where the answer D x 10^e lies:
 *   - if some shorter decimal read back, the interval would hold it and D,
 *     and so the (n-1)-digit decimal next to D on its side: checking
 *     floor(D/10) and floor(D/10) + 1 (x 10^(e+1)) covers every one;
 *   - if a nearer n-digit decimal read back, D's neighbour towards it would
 *     read back and be nearer too: for D - 1 and D + 1, if one reads back,
 *     the value must lie on D's side of their midpoint (decided by strtod:
 *     a midpoint that reads as exactly the value is reported as undecided,
 *     for the printf oracle to settle). */
static bool check_float_fast(float f, bool *undecided, char *why, size_t cap)
{
    char digits[16];
    int x = 0;
    int n = basalt_float_shortest(f, digits, &x);
    if (n < 1 || n > 9 || digits[0] == '0' || digits[n - 1] == '0') {
        snprintf(why, cap, "%d digits", n);
        return false;
    }
    uint64_t d = 0;
    for (int i = 0; i < n; i++)
        d = d * 10 + (uint64_t)(digits[i] - '0');
    int e = x - (n - 1);
    if (!float_reads_back(f, d, e)) {
        snprintf(why, cap, "%" PRIu64 "e%d does not read back", d, e);
        return false;
    }
    if (n > 1 && (float_reads_back(f, d / 10, e + 1) || float_reads_back(f, d / 10 + 1, e + 1))) {
        snprintf(why, cap, "%" PRIu64 "e%d: a shorter decimal reads back", d, e);
        return false;
    }
    for (int side = -1; side <= 1; side += 2) {
        if (!float_reads_back(f, side < 0 ? d - 1 : d + 1, e))
            continue;
        char text[48];
        decimal_text(10 * d + (side < 0 ? (uint64_t)-5 : 5), e - 1, text); /* the midpoint */
        double mid = strtod(text, NULL);
        if (mid == (double)f)
            *undecided = true;
        else if (side < 0 ? mid > (double)f : mid < (double)f) {
            snprintf(why, cap, "%" PRIu64 "e%d: its neighbour on side %d is nearer", d, e, side);
            return false;
        }
    }
    return true;
}

static struct value double_value(double d)
{
    struct value v = {W64, 0, fabs(d)};
    memcpy(&v.bits, &v.x, 8);
    return v;
}

static struct value float_value(float f)
{
    f = fabsf(f);
    uint32_t b;
    memcpy(&b, &f, 4);
    struct value v = {W32, b, f};
    return v;
}

static uint64_t count_from_env(void)
{
    const char *s = getenv("BASALT_FLOAT_TEXT_COUNT");
    return s ? strtoull(s, NULL, 10) : 3000000;
}

/* ------------------------------------------------------------ the table */

/* 32-bit-limb naturals, enough for 2^1200, the test's own. */
struct nat {
    uint32_t w[40];
    int n;
};

static void nat_set(struct nat *a, uint32_t v)
{
    memset(a, 0, sizeof *a);
    a->w[0] = v;
    a->n = v ? 1 : 0;
}

static void nat_mul(struct nat *a, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < a->n; i++) {
        uint64_t p = (uint64_t)a->w[i] * m + carry;
        a->w[i] = (uint32_t)p;
        carry = p >> 32;
    }
    if (carry)
        a->w[a->n++] = (uint32_t)carry;
}

/* a /= m, returning the remainder. */
static uint32_t nat_div(struct nat *a, uint32_t m)
{
    uint64_t rem = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        uint64_t cur = rem << 32 | a->w[i];
        a->w[i] = (uint32_t)(cur / m);
        rem = cur % m;
    }
    while (a->n && a->w[a->n - 1] == 0)
        a->n--;
    return (uint32_t)rem;
}

static int nat_bits(const struct nat *a)
{
    if (!a->n)
        return 0;
    int b = 32 * (a->n - 1);
    for (uint32_t top = a->w[a->n - 1]; top; top >>= 1)
        b++;
    return b;
}

/* Bit i of a. */
static unsigned nat_bit(const struct nat *a, int i)
{
    return i < 0 || i / 32 >= a->n ? 0 : (a->w[i / 32] >> (i % 32)) & 1;
}

TEST(float_text_table_is_ten_to_128_bits_rounded_up)
{
    /* Entry e is floor(10^e 2^(127 - floor(log2 10^e))) + 1: the top 128
     * bits of 10^e (for e < 0, of 2^1200 / 10^-e, floored: the same bits
     * while 2^1200 / 10^-e keeps over 128 bits), plus one. */
    for (int e = BASALT_POW10_128_MIN; e <= BASALT_POW10_128_MAX; e++) {
        struct nat p;
        nat_set(&p, 1);
        if (e >= 0) {
            for (int i = 0; i < e; i++)
                nat_mul(&p, 10);
        } else {
            p.n = 38;
            memset(p.w, 0, sizeof p.w);
            p.w[37] = 1u << 16; /* 2^1200 */
            for (int i = 0; i < -e; i++)
                nat_div(&p, 10);
        }
        int top = nat_bits(&p) - 1;
        uint64_t hi = 0, lo = 0;
        for (int i = 0; i < 64; i++) {
            hi = hi << 1 | nat_bit(&p, top - i);
            lo = lo << 1 | nat_bit(&p, top - 64 - i);
        }
        lo++;
        if (lo == 0)
            hi++;
        const uint64_t *g = basalt_pow10_128[e - BASALT_POW10_128_MIN];
        CHECK_MSG(g[0] == hi && g[1] == lo, "10^%d: table %016" PRIx64 "%016" PRIx64
                  ", expected %016" PRIx64 "%016" PRIx64, e, g[0], g[1], hi, lo);
    }
}

/* The big-integer comparison that settles what the 128-bit products leave in
 * doubt (in practice only x an integer, which is_integer settles first), on
 * cases built with the test's own arithmetic: n = floor(m 2^a 5^b) and its
 * neighbours, for exponents as large as the conversions use. */
TEST(float_text_big_compare)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 5);
    int done = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t m = bt_rng_next(&rng) >> bt_rng_below(&rng, 60);
        m &= ~((UINT64_C(1) << bt_rng_below(&rng, 8)) - 1);
        if (!m)
            continue;
        int u = 1 + (int)bt_rng_below(&rng, 63); /* bits of n */
        struct nat x;
        nat_set(&x, (uint32_t)m);
        if (m >> 32) {
            x.w[1] = (uint32_t)(m >> 32);
            x.n = 2;
        }
        int a, b;
        bool frac = false;
        uint64_t n = 0;
        if (i % 2) { /* a <= 0 <= b: n = (m 5^b) >> -a */
            b = (int)bt_rng_below(&rng, 325);
            for (int j = 0; j < b; j++)
                nat_mul(&x, 5);
            a = u - nat_bits(&x);
            if (a > 0)
                a = 0;
            for (int j = 0; j < nat_bits(&x); j++) {
                if (j < -a)
                    frac |= nat_bit(&x, j);
                else
                    n |= (uint64_t)nat_bit(&x, j) << (j + a);
            }
        } else { /* b <= 0 <= a: n = (m 2^a) / 5^-b */
            b = -(int)bt_rng_below(&rng, 341);
            a = (int)(-b * 2.3219280948873623) + u - nat_bits(&x);
            if (a < 0)
                a = 0;
            for (int j = 0; j < a; j++)
                nat_mul(&x, 2);
            for (int j = 0; j < -b; j++)
                frac |= nat_div(&x, 5) != 0;
            if (x.n > 2)
                continue;
            n = x.w[0] | (x.n > 1 ? (uint64_t)x.w[1] << 32 : 0);
        }
        CHECK_MSG(basalt_float_text_compare(m, a, b, n) == (frac ? 1 : 0),
                  "%" PRIu64 " 2^%d 5^%d vs %" PRIu64, m, a, b, n);
        if (n < UINT64_MAX)
            CHECK_MSG(basalt_float_text_compare(m, a, b, n + 1) == -1, "%" PRIu64 " 2^%d 5^%d vs "
                      "%" PRIu64 " + 1", m, a, b, n);
        if (n > 0)
            CHECK_MSG(basalt_float_text_compare(m, a, b, n - 1) == 1, "%" PRIu64 " 2^%d 5^%d vs "
                      "%" PRIu64 " - 1", m, a, b, n);
        done++;
    }
    CHECK(done > 15000);
}

/* ------------------------------------------------------------ known answers */

static void shortest_text(double d, char *out)
{
    char digits[17];
    int x;
    int n = basalt_double_shortest(d, digits, &x);
    snprintf(out, 40, "%.*se%d", n, digits, x);
}

TEST(float_text_known_answers)
{
    char t[40];
    static const struct {
        double d;
        const char *text;
    } cases[] = {
        {0.0, "0e0"},
        {-0.0, "0e0"},
        {5e-324, "5e-324"},
        {2.2250738585072009e-308, "2225073858507201e-323"},
        {2.2250738585072014e-308, "22250738585072014e-324"},
        {DBL_MAX, "17976931348623157e292"},
        {1.0, "1e0"},
        {0.1, "1e-1"},
        {0.2, "2e-1"},
        {0.3, "3e-1"},
        {0.1 + 0.2, "30000000000000004e-17"},
        {1e23, "1e23"},
        {9007199254740993.0, "9007199254740992e0"},
        {123456789012345680.0, "12345678901234568e1"},
        {12.34, "1234e-2"},
        {-1.5, "15e-1"},
        {1e21, "1e21"},
        {4.35, "435e-2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char digits[17];
        int x;
        int n = basalt_double_shortest(cases[i].d, digits, &x);
        /* the cases are written digits-then-exponent-of-the-last-digit */
        snprintf(t, sizeof t, "%.*se%d", n, digits, x - (n - 1));
        CHECK_STR(t, cases[i].text);
    }
    shortest_text(2.0, t);
    CHECK_STR(t, "2e0");
    char digits[17];
    int x = 99;
    CHECK_EQ(basalt_double_shortest(NAN, digits, &x), 0);
    CHECK_EQ(basalt_double_shortest(-INFINITY, digits, &x), 0);
    CHECK_EQ(basalt_float_shortest(INFINITY, digits, &x), 0);
    CHECK_EQ(basalt_half_shortest(0x7c00, digits, &x), 0);
    CHECK_EQ(basalt_half_shortest(0x7e00, digits, &x), 0);
    CHECK_EQ(x, 99);
    CHECK_EQ(basalt_float_shortest(0.1f, digits, &x), 1);
    CHECK(digits[0] == '1' && x == -1);
    CHECK_EQ(basalt_float_shortest(16777216.0f, digits, &x), 8);
    CHECK(memcmp(digits, "16777216", 8) == 0 && x == 7);
    CHECK_EQ(basalt_float_shortest(1.4e-45f, digits, &x), 1);
    CHECK(digits[0] == '1' && x == -45);
    CHECK_EQ(basalt_float_shortest(FLT_MAX, digits, &x), 8);
    CHECK(memcmp(digits, "34028235", 8) == 0 && x == 38);
    CHECK_EQ(basalt_half_shortest(0x0001, digits, &x), 1); /* 2^-24 */
    CHECK(digits[0] == '6' && x == -8);
    CHECK_EQ(basalt_half_shortest(0x7bff, digits, &x), 3); /* 65504: 65500 reads back */
    CHECK(memcmp(digits, "655", 3) == 0 && x == 4);
    CHECK_EQ(basalt_half_shortest(0x3c00, digits, &x), 1); /* 1 */
    CHECK(digits[0] == '1' && x == 0);
    CHECK_EQ(basalt_half_shortest(0x2e66, digits, &x), 1); /* 0.0999755859375 */
    CHECK(digits[0] == '1' && x == -1);
}

TEST(float_text_format_g_layout)
{
    char b[BASALT_FLOAT_TEXT_MAX];
    static const struct {
        double d;
        int precision;
        const char *text;
    } cases[] = {
        {0.1, 17, "0.1"},
        {1e23, 17, "1e+23"},
        {5e-324, 17, "5e-324"},
        {5e-324, 15, "5e-324"},
        {123456.0, 17, "123456"},
        {1e16, 17, "10000000000000000"},
        {1e17, 17, "1e+17"},
        {1e15, 15, "1e+15"},
        {1e14, 15, "100000000000000"},
        {100.0, 1, "1e+02"},
        {100.0, 15, "100"},
        {0.0001, 17, "0.0001"},
        {0.00001234, 17, "1.234e-05"},
        {-0.0, 17, "-0"},
        {0.0, 1, "0"},
        {-12.5, 1, "-12.5"},
        {1234567890123456.7, 15, "1234567890123456.8"},
        {-DBL_MAX, 17, "-1.7976931348623157e+308"},
        {2.2250738585072014e-308, 17, "2.2250738585072014e-308"},
        {NAN, 17, "nan"},
        {-NAN, 17, "nan"},
        {INFINITY, 17, "inf"},
        {-INFINITY, 1, "-inf"},
        {0.1, 0, "0.1"},
        {1e5, 99, "100000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = basalt_double_format_g(cases[i].d, cases[i].precision, b);
        CHECK_STR(b, cases[i].text);
        CHECK_EQ(n, strlen(cases[i].text));
    }
    basalt_float_format_g(0.1f, 1, b);
    CHECK_STR(b, "0.1");
    basalt_float_format_g(16777216.0f, 1, b);
    CHECK_STR(b, "16777216");
    basalt_float_format_g(3.4028235e38f, 17, b);
    CHECK_STR(b, "3.4028235e+38");
    basalt_float_format_g(-1e-45f, 1, b);
    CHECK_STR(b, "-1e-45");
    basalt_float_format_g(-NAN, 1, b);
    CHECK_STR(b, "nan");
}

/* ------------------------------------------------------------ edge cases */

/* Checks v, its neighbours and its negation's magnitude (the same). */
static bool check_double_around(double d, struct tally *t, char *why, size_t cap)
{
    double around[3] = {d, nextafter(d, INFINITY), nextafter(d, 0)};
    for (int i = 0; i < 3; i++) {
        if (!isfinite(around[i]) || around[i] == 0)
            continue;
        struct value v = double_value(around[i]);
        if (!check_value(&v, t, why, cap))
            return false;
    }
    return true;
}

TEST(float_text_double_edges)
{
    struct tally t = {0, 0};
    char why[200];
    static const double fixed[] = {
        5e-324, 1e-323, 2.2250738585072009e-308, 2.2250738585072014e-308, DBL_MAX, 1.0, 0.1, 0.2,
        0.3, 0.1 + 0.2, 1e23, 9007199254740991.0, 9007199254740992.0, 9007199254740993.0,
        9007199254740995.0, 18014398509481985.0, 4.35, 12.34, 1.7976931348623157e308, 0.5, 2.5,
        1e21, 1e22, 5e-310, 8.41e21, 5.0e-324 * 3, 2.98023223876953125e-8};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        CHECK_MSG(check_double_around(fixed[i], &t, why, sizeof why), "%.17g: %s", fixed[i], why);
    /* Every power of two (where the interval is lopsided, but for the
     * lowest normal binade and the subnormals) and its neighbours: every
     * binary exponent in both kinds of interval. */
    for (int e = -1074; e <= 1023; e++) {
        double d = ldexp(1, e);
        CHECK_MSG(check_double_around(d, &t, why, sizeof why), "2^%d: %s", e, why);
        /* the largest significand of each binade, too */
        if (e > -1074) {
            double below = nextafter(d, 0);
            CHECK_MSG(check_double_around(below, &t, why, sizeof why), "2^%d-: %s", e, why);
        }
    }
    /* Powers of ten, as strtod reads them, and their neighbours. */
    for (int e = -323; e <= 308; e++) {
        char text[16];
        snprintf(text, sizeof text, "1e%d", e);
        double d = strtod(text, NULL);
        CHECK_MSG(check_double_around(d, &t, why, sizeof why), "1e%d: %s", e, why);
        if (e >= 0 && e <= 22) {
            char digits[17];
            int x;
            CHECK_EQ(basalt_double_shortest(d, digits, &x), 1);
            CHECK(digits[0] == '1' && x == e);
        }
    }
    /* Integers: all up to 100000, then random ones up to 2^53 and a little past. */
    for (int i = 1; i <= 100000; i++)
        CHECK_MSG(check_double_around(i, &t, why, sizeof why), "%d: %s", i, why);
    struct bt_rng rng;
    bt_rng_seed(&rng, 53);
    for (int i = 0; i < 100000; i++) {
        uint64_t k = bt_rng_next(&rng) >> (bt_rng_below(&rng, 54) + 8);
        if (k)
            CHECK_MSG(check_double_around((double)k, &t, why, sizeof why), "%" PRIu64 ": %s", k,
                      why);
    }
    /* Two-decimal prices. */
    for (int i = 1; i <= 100000; i++) {
        double d = i / 100.0;
        CHECK_MSG(check_double_around(d, &t, why, sizeof why), "%d/100: %s", i, why);
        char digits[17];
        int x;
        int n = basalt_double_shortest(d, digits, &x);
        char text[40], want[40];
        snprintf(text, sizeof text, "%.*se%d", n, digits, x - (n - 1));
        snprintf(want, sizeof want, "%.2f", d);
        CHECK_MSG(strtod(text, NULL) == strtod(want, NULL) && n <= (int)strlen(want) - 1,
                  "%s: %s", want, text);
    }
    printf("  %" PRIu64 " doubles at edges, %" PRIu64 " shorter than printf's trial (at powers "
           "of two)\n", t.checked, t.shorter_than_trial);
    CHECK(t.shorter_than_trial > 0); /* the lopsided case is exercised */
}

TEST(float_text_float_and_half_edges)
{
    struct tally t = {0, 0};
    char why[200];
    for (int e = -149; e <= 127; e++) {
        float f = ldexpf(1, e);
        float around[4] = {f, nextafterf(f, INFINITY), nextafterf(f, 0), nextafterf(f, 0)};
        around[3] = nextafterf(around[2], 0);
        for (int i = 0; i < 4; i++) {
            if (!isfinite(around[i]) || around[i] == 0)
                continue;
            struct value v = float_value(around[i]);
            CHECK_MSG(check_value(&v, &t, why, sizeof why), "%a: %s", (double)around[i], why);
        }
    }
    static const float fixed[] = {FLT_MAX, FLT_MIN, 1.4e-45f, 0.1f, 0.2f, 0.3f, 16777216.0f,
                                  16777217.0f, 3.4e38f, 1e-45f, 7.038531e-26f, 9.2233720e18f};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        struct value v = float_value(fixed[i]);
        CHECK_MSG(check_value(&v, &t, why, sizeof why), "%a: %s", (double)fixed[i], why);
    }
    for (int i = 1; i <= 100000; i++) {
        struct value v = float_value((float)i);
        CHECK_MSG(check_value(&v, &t, why, sizeof why), "%d: %s", i, why);
        v = float_value((float)i / 100.0f);
        CHECK_MSG(check_value(&v, &t, why, sizeof why), "%d/100: %s", i, why);
    }
    /* Every finite positive half. */
    for (unsigned h = 1; h < 0x7c00; h++) {
        struct value v = {W16, h, half_value((uint16_t)h)};
        CHECK_MSG(check_value(&v, &t, why, sizeof why), "half 0x%04x: %s", h, why);
    }
    printf("  %" PRIu64 " floats and halves at edges, %" PRIu64 " shorter than printf's trial\n",
           t.checked, t.shorter_than_trial);
}

/* ------------------------------------------------------------ random */

TEST(float_text_random_doubles)
{
    struct tally t = {0, 0};
    char why[200];
    struct bt_rng rng;
    bt_rng_seed(&rng, 64);
    uint64_t count = count_from_env(), nonfinite = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t bits = bt_rng_next(&rng) & ~(UINT64_C(1) << 63);
        if ((bits >> 52) == 0x7ff || bits == 0) {
            nonfinite++;
            continue;
        }
        struct value v = {W64, bits, 0};
        memcpy(&v.x, &bits, 8);
        CHECK_MSG(check_value(&v, &t, why, sizeof why), "bits %016" PRIx64 ": %s", bits, why);
    }
    printf("  %" PRIu64 " random doubles, %" PRIu64 " skipped (NaN, infinity)\n", t.checked,
           nonfinite);
}

TEST(float_text_random_floats)
{
    struct tally t = {0, 0};
    char why[200];
    struct bt_rng rng;
    bt_rng_seed(&rng, 32);
    uint64_t count = count_from_env(), twice_rounded = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t bits = (uint32_t)bt_rng_next(&rng) & 0x7fffffffu;
        if ((bits >> 23) == 0xff || bits == 0)
            continue;
        float f;
        memcpy(&f, &bits, 4);
        struct value v = {W32, bits, f};
        CHECK_MSG(check_value(&v, &t, why, sizeof why), "bits %08" PRIx32 ": %s", bits, why);
        bool undecided = false;
        CHECK_MSG(check_float_fast(f, &undecided, why, sizeof why), "bits %08" PRIx32 ": %s",
                  bits, why);
        /* Read through a double first (as strtod then a cast does), the
         * answer still reads back: counted, not required. */
        char digits[9], text[32];
        int x;
        int n = basalt_float_shortest(f, digits, &x);
        snprintf(text, sizeof text, "%.*se%d", n, digits, x - (n - 1));
        twice_rounded += (float)strtod(text, NULL) != f;
    }
    printf("  %" PRIu64 " random floats; %" PRIu64 " do not read back through a double\n",
           t.checked, twice_rounded);
}

/* Every float (by hand: BASALT_FLOAT_TEXT_EXHAUSTIVE=1), by the printf-free
 * oracle, the printf one settling what that leaves undecided. */
TEST(float_text_floats_all)
{
    const char *on = getenv("BASALT_FLOAT_TEXT_EXHAUSTIVE");
    if (!on || strcmp(on, "1") != 0) {
        printf("SKIP float_text_floats_all: BASALT_FLOAT_TEXT_EXHAUSTIVE=1 runs it\n");
        return;
    }
    const char *from_s = getenv("BASALT_FLOAT_TEXT_FROM"), *to_s = getenv("BASALT_FLOAT_TEXT_TO");
    uint64_t from = from_s ? strtoull(from_s, NULL, 16) : 1;
    uint64_t to = to_s ? strtoull(to_s, NULL, 16) : 0x7f800000;
    struct tally t = {0, 0};
    uint64_t checked = 0, undecided = 0, twice_rounded = 0, shorter_via_double = 0;
    char why[200];
    for (uint64_t bits = from ? from : 1; bits < to && bits < 0x7f800000; bits++) {
        float f;
        uint32_t b = (uint32_t)bits;
        memcpy(&f, &b, 4);
        bool open = false;
        CHECK_MSG(check_float_fast(f, &open, why, sizeof why), "bits %08" PRIx64 ": %s", bits,
                  why);
        checked++;
        if (open) {
            undecided++;
            struct value v = {W32, bits, f};
            CHECK_MSG(check_value(&v, &t, why, sizeof why), "bits %08" PRIx64 ": %s", bits, why);
        }
        char digits[9], text[32];
        int x;
        int n = basalt_float_shortest(f, digits, &x);
        snprintf(text, sizeof text, "%.*se%d", n, digits, x - (n - 1));
        if ((float)strtod(text, NULL) != f && twice_rounded++ < 20)
            printf("  reads back as another float through a double: %08" PRIx64 " %s\n", bits,
                   text);
        /* A shorter text that a reader through a double (strtod, then a
         * cast) takes back, though strtof does not: one lying within half a
         * double unit outside the float's interval. Counted, for the
         * report: the old trial loops that read through a double printed
         * such texts. */
        uint64_t d = 0;
        for (int i = 0; i < n; i++)
            d = d * 10 + (uint64_t)(digits[i] - '0');
        int e = x - (n - 1);
        for (uint64_t c = d / 10; n > 1 && c <= d / 10 + 1; c++) {
            char shorter[48];
            decimal_text(c, e + 1, shorter);
            if (c && (float)strtod(shorter, NULL) == f && shorter_via_double++ < 20)
                printf("  a shorter text reads back through a double only: %08" PRIx64
                       " %s (shortest %s)\n", bits, shorter, text);
        }
    }
    printf("  %" PRIu64 " floats [%" PRIx64 ", %" PRIx64 "), %" PRIu64 " settled by printf, "
           "%" PRIu64 " do not read back through a double, %" PRIu64 " have a shorter text "
           "that reads back through a double only\n",
           checked, from, to, undecided, twice_rounded, shorter_via_double);
}

/* The exact path (big integers for every comparison) gives the same
 * answers as the 128-bit products. */
TEST(float_text_exact_path_agrees)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 128);
    for (int i = 0; i < 300000; i++) {
        uint64_t bits = bt_rng_next(&rng);
        unsigned be = (unsigned)(bits >> 52) & 0x7ff;
        uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
        if (i % 4 == 0)
            frac &= ~((UINT64_C(1) << bt_rng_below(&rng, 53)) - 1); /* short binary fractions */
        if (i % 64 == 0)
            frac = 0;
        if (be == 0x7ff || (be == 0 && frac == 0))
            continue;
        uint64_t c = be ? frac | UINT64_C(1) << 52 : frac;
        int q = (be ? (int)be : 1) - 1075;
        bool irregular = frac == 0 && be > 1;
        int e1, e2;
        uint64_t d1 = basalt_float_text_decimal(c, q, irregular, false, &e1);
        uint64_t d2 = basalt_float_text_decimal(c, q, irregular, true, &e2);
        CHECK_MSG(d1 == d2 && e1 == e2, "bits %016" PRIx64 ": %" PRIu64 "e%d fast, %" PRIu64
                  "e%d exact", bits, d1, e1, d2, e2);
    }
    for (unsigned h = 1; h < 0x7c00; h++) {
        unsigned be = h >> 10, frac = h & 1023;
        uint64_t c = be ? frac | 1024u : frac;
        int q = (be ? (int)be : 1) - 25;
        int e1, e2;
        uint64_t d1 = basalt_float_text_decimal(c, q, frac == 0 && be > 1, false, &e1);
        uint64_t d2 = basalt_float_text_decimal(c, q, frac == 0 && be > 1, true, &e2);
        CHECK_MSG(d1 == d2 && e1 == e2, "half %04x", h);
    }
}

/* ------------------------------------------------------------ the old loops */

/* What the trial loops this replaced printed: "%.*g" for the first
 * precision from `start` that reads back. */
static void trial_g(double d, int start, char *out)
{
    for (int p = start; p <= 17; p++) {
        snprintf(out, 40, "%.*g", p, d);
        if (strtod(out, NULL) == d)
            return;
    }
}

TEST(float_text_format_g_matches_the_trial_loops)
{
    /* Same text but where the old loops were not shortest: at powers of
     * two (lopsided intervals) and, for the loop from precision 15 (the CSV
     * writer's and the query layer's), where a shortest answer under 15
     * digits is not printf's 15-digit rounding: subnormals only. */
    struct bt_rng rng;
    bt_rng_seed(&rng, 15);
    uint64_t differ1 = 0, differ15 = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = bt_rng_next(&rng);
        if (i % 2)
            bits &= ~((UINT64_C(1) << bt_rng_below(&rng, 53)) - 1);
        double d;
        memcpy(&d, &bits, 8);
        if (!isfinite(d))
            continue;
        char old[40], now[BASALT_FLOAT_TEXT_MAX];
        struct value v = double_value(d);
        trial_g(d, 1, old);
        basalt_double_format_g(d, 1, now);
        if (strcmp(old, now) != 0) {
            differ1++;
            CHECK_MSG(at_power_of_two(&v) && strlen(now) < strlen(old), "%s, was %s", now, old);
        }
        trial_g(d, 15, old);
        basalt_double_format_g(d, 15, now);
        if (strcmp(old, now) != 0) {
            differ15++;
            CHECK_MSG((at_power_of_two(&v) || fabs(d) < DBL_MIN) && strlen(now) < strlen(old),
                      "%s, was %s", now, old);
        }
    }
    printf("  differ from the loop from precision 1: %" PRIu64 ", from precision 15: %" PRIu64
           "\n", differ1, differ15);
    /* Floats as the Iceberg value text did them: "%.*g" of the value from
     * one digit until it reads back through a double as the same float. */
    uint64_t differ_f = 0;
    for (int i = 0; i < 200000; i++) {
        uint32_t bits = (uint32_t)bt_rng_next(&rng);
        if (i % 2)
            bits &= ~((UINT32_C(1) << bt_rng_below(&rng, 24)) - 1);
        float f;
        memcpy(&f, &bits, 4);
        if (!isfinite(f))
            continue;
        char old[40], now[BASALT_FLOAT_TEXT_MAX];
        for (int p = 1; p <= 9; p++) {
            snprintf(old, sizeof old, "%.*g", p, (double)f);
            if ((float)strtod(old, NULL) == f)
                break;
        }
        basalt_float_format_g(f, 1, now);
        if (strcmp(old, now) != 0) {
            differ_f++;
            struct value v = float_value(f);
            CHECK_MSG(at_power_of_two(&v) && strlen(now) < strlen(old), "%s, was %s", now, old);
        }
    }
    printf("  floats: differ from the loop from precision 1: %" PRIu64 "\n", differ_f);
}

/* ------------------------------------------------------------ V8 */

static bool have_node(void) { return system("command -v node >/dev/null 2>&1") == 0; }

TEST(float_text_v8_differential)
{
    const char *on = getenv("BASALT_FLOAT_TEXT_V8");
    if (!on || strcmp(on, "1") != 0) {
        printf("SKIP float_text_v8_differential: run by ctest's differential.float_text_v8\n");
        return;
    }
    if (!have_node()) {
        const char *req = getenv("BASALT_REQUIRE_PEERS");
        CHECK_MSG(!req || strcmp(req, "1") != 0, "node missing");
        printf("SKIP float_text_v8_differential: node missing\n");
        return;
    }
    const char *ne = getenv("BASALT_FLOAT_TEXT_V8_COUNT");
    int count = ne ? atoi(ne) : 200000;
    char in_path[] = "/tmp/basalt-floattext-XXXXXX", out_path[] = "/tmp/basalt-floattext-XXXXXX";
    int fd = mkstemp(in_path);
    CHECK(fd >= 0);
    close(fd);
    fd = mkstemp(out_path);
    CHECK(fd >= 0);
    close(fd);
    FILE *in = fopen(in_path, "w");
    CHECK(in);
    struct bt_rng rng;
    bt_rng_seed(&rng, 8);
    uint64_t *values = malloc((size_t)(count + 4200) * sizeof *values);
    CHECK(values);
    int n = 0;
    for (int i = 0; i < count; i++) {
        uint64_t bits = bt_rng_next(&rng) & ~(UINT64_C(1) << 63);
        if ((bits >> 52) != 0x7ff && bits != 0)
            values[n++] = bits;
    }
    for (int e = -1074; e <= 1023; e++) { /* the lopsided intervals, and beside them */
        double d = ldexp(1, e), below = nextafter(d, 0);
        memcpy(&values[n++], &d, 8);
        memcpy(&values[n++], &below, 8);
    }
    for (int i = 0; i < n; i++)
        fprintf(in, "%016" PRIx64 "\n", values[i]);
    fclose(in);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "node '%s/tests/core/float_text_v8.mjs' '%s' '%s'",
             BASALT_TEST_SOURCE_DIR, in_path, out_path);
    int rc = system(cmd);
    FILE *out = fopen(out_path, "r");
    int mismatches = 0, lines = 0;
    char line[128];
    while (rc == 0 && out && lines < n && fgets(line, sizeof line, out)) {
        char v8_digits[32];
        int v8_exp;
        if (sscanf(line, "%31s %d", v8_digits, &v8_exp) != 2)
            break;
        double d;
        memcpy(&d, &values[lines], 8);
        char digits[17];
        int x;
        int k = basalt_double_shortest(d, digits, &x);
        if ((size_t)k != strlen(v8_digits) || memcmp(digits, v8_digits, (size_t)k) != 0 ||
            x != v8_exp) {
            if (mismatches++ < 10)
                fprintf(stderr, "  %016" PRIx64 ": basalt %.*s e%d, V8 %s e%d\n", values[lines], k,
                        digits, x, v8_digits, v8_exp);
        }
        lines++;
    }
    if (out)
        fclose(out);
    unlink(in_path);
    unlink(out_path);
    free(values);
    CHECK_MSG(rc == 0, "%s failed", cmd);
    CHECK_EQ(lines, n);
    CHECK_EQ(mismatches, 0);
    printf("  %d doubles, digit for digit as V8 prints them\n", lines);
}
