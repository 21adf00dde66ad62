/* Value helpers shared by the table generators, and the row counts of a
 * scale factor. */
#include <math.h>

#include "tpchgen.h"

basalt_status basalt_tpchgen_scale_init(struct basalt_tpchgen_scale *s, double sf,
                                        struct basalt_error *err)
{
    /* Below 0.001 there are fewer than 10 suppliers and the partsupp formula
     * repeats suppliers for a part; above 1000 the row counts leave the
     * ranges the chunking is sized for. */
    if (!(sf >= 0.001 && sf <= 1000))
        return basalt_error_set(err, BASALT_INVALID_ARG, "scale factor %g is outside [0.001, 1000]",
                                sf);
    memset(s, 0, sizeof *s);
    s->sf = sf;
    s->suppliers = (int64_t)floor(10000 * sf + 1e-9);
    s->customers = (int64_t)floor(150000 * sf + 1e-9);
    s->parts = (int64_t)floor(200000 * sf + 1e-9);
    s->orders = (int64_t)floor(1500000 * sf + 1e-9);
    s->clerks = (int64_t)floor(1000 * sf + 1e-9);
    if (s->clerks < 1)
        s->clerks = 1;
    /* SF * 5 of each kind (clause 4.2.3), at least one so that Q16's filter
     * has something to remove at small scales. */
    s->complaints = (int64_t)llround(5 * sf);
    if (s->complaints < 1)
        s->complaints = 1;
    return BASALT_OK;
}

void basalt_tpchgen_text(const struct basalt_tpchgen_scale *s, struct basalt_tpchgen_rng *r,
                         int lo, int hi, struct basalt_tpchgen_column *c)
{
    int64_t len = tpchgen_uniform(r, lo, hi);
    int64_t off = tpchgen_uniform(r, 0, s->pool_len - len);
    tpchgen_str(c, s->pool + off, (size_t)len);
}

void basalt_tpchgen_vstring(struct basalt_tpchgen_rng *r, int lo, int hi,
                            struct basalt_tpchgen_column *c)
{
    static const char alnum[64] =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";
    int len = (int)tpchgen_uniform(r, lo, hi);
    char *p = tpchgen_str_begin(c);
    uint64_t bits = 0;
    for (int i = 0; i < len; i++) {
        /* Ten 6-bit characters per draw. */
        if (i % 10 == 0)
            bits = tpchgen_next(r);
        p[i] = alnum[bits & 63];
        bits >>= 6;
    }
    tpchgen_str_end(c, (size_t)len);
}

void basalt_tpchgen_keyed_name(const char *prefix, int64_t key, int digits,
                               struct basalt_tpchgen_column *c)
{
    char *p = tpchgen_str_begin(c);
    size_t n = strlen(prefix);
    memcpy(p, prefix, n);
    for (int i = digits - 1; i >= 0; i--) {
        p[n + (size_t)i] = (char)('0' + key % 10);
        key /= 10;
    }
    tpchgen_str_end(c, n + (size_t)digits);
}

static char *put_digits(char *p, int64_t v, int digits)
{
    for (int i = digits - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + digits;
}

void basalt_tpchgen_phone(struct basalt_tpchgen_rng *r, int32_t nationkey,
                          struct basalt_tpchgen_column *c)
{
    char *p = tpchgen_str_begin(c), *q = p;
    q = put_digits(q, nationkey + 10, 2);
    *q++ = '-';
    q = put_digits(q, tpchgen_uniform(r, 100, 999), 3);
    *q++ = '-';
    q = put_digits(q, tpchgen_uniform(r, 100, 999), 3);
    *q++ = '-';
    q = put_digits(q, tpchgen_uniform(r, 1000, 9999), 4);
    tpchgen_str_end(c, (size_t)(q - p));
}

int32_t basalt_tpchgen_days(int y, int m, int d)
{
    /* Days from civil (proleptic Gregorian), years shifted to start in March. */
    y -= m <= 2;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}
