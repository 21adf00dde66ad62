/* The k-th smallest of an array of 64-bit keys: what a top-k threshold
 * (sort_keys.c) and a quantile (agg/agg_select.c) need without a sort. */
#include <stdlib.h>

#include "sort/sort.h"

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

uint64_t basalt_qselect_u64(uint64_t *x, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1, rounds = 8;
    for (int64_t m = n; m > 1; m >>= 1)
        rounds += 2;
    while (lo < hi) {
        if (rounds-- == 0) {
            /* an order that keeps defeating the pivot: sort what is left */
            qsort(x + lo, (size_t)(hi - lo + 1), sizeof *x, cmp_u64);
            return x[k];
        }
        uint64_t a = x[lo], b = x[lo + (hi - lo) / 2], c = x[hi];
        uint64_t p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < p)
                i++;
            while (x[j] > p)
                j--;
            if (i <= j) {
                uint64_t t = x[i];
                x[i++] = x[j];
                x[j--] = t;
            }
        }
        /* x[lo, j] <= p <= x[i, hi]; between them, equal to p */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return x[k];
    }
    return x[k];
}
