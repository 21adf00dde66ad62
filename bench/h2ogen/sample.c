/* The draws made once per table: a subset of given size (the NA choices,
 * the places of sample_all's listed keys) and a shuffle (the join keys). */
#include "h2ogen.h"

basalt_status basalt_h2ogen_choose(struct basalt_h2ogen_rng *r, int64_t n, int64_t m,
                                   uint8_t **bits, int64_t *order, struct basalt_error *err)
{
    /* Floyd's algorithm: m draws, whatever n, so a few NA values out of a
     * large domain cost only the bitmap. */
    uint8_t *b = basalt_calloc((size_t)basalt_bitmap_bytes(n) + 1, 1);
    if (b == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for %lld bits", (long long)n);
    int64_t k = 0;
    for (int64_t j = n - m; j < n; j++) {
        int64_t t = h2ogen_next_below(r, j + 1);
        if (b[t >> 3] & (1u << (t & 7)))
            t = j;
        b[t >> 3] |= (uint8_t)(1u << (t & 7));
        if (order != NULL)
            order[k++] = t;
    }
    *bits = b;
    return BASALT_OK;
}

void basalt_h2ogen_shuffle(struct basalt_h2ogen_rng *r, int32_t *a, int64_t n)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = h2ogen_next_below(r, i + 1);
        int32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

int basalt_h2ogen_id(char *out, int64_t v, int width)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (n < width)
        digits[n++] = '0';
    out[0] = 'i';
    out[1] = 'd';
    for (int i = 0; i < n; i++)
        out[2 + i] = digits[n - 1 - i];
    return n + 2;
}
