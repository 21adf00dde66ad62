/* The output order of a partition's groups: by 64-bit hash, ties (a 64-bit
 * collision) by key row. A least-significant-digit radix sort of (hash,
 * group) pairs, skipping the bytes every hash shares (the partition bits at
 * least), then the rare runs of equal hashes sorted by key row. */
#include <stdlib.h>
#include <string.h>

#include "agg/agg_internal.h"

/* Below this many groups a comparison sort beats the histograms. */
#define ORDER_RADIX_MIN 64

struct hg {
    uint64_t h;
    uint64_t g;
};

static int cmp_groups(const void *x, const void *y, void *ctx)
{
    const struct basalt_qagg_local *t = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    uint64_t ha = t->hashes[a], hb = t->hashes[b];
    if (ha != hb)
        return ha < hb ? -1 : 1;
    size_t w = (size_t)t->agg->row_width;
    return basalt_qagg_row_cmp(t->agg, t->rows + a * w, t->rows + b * w);
}

basalt_status basalt_qagg_order(const struct basalt_qagg_local *t, uint32_t *ord, int64_t n,
                                struct basalt_error *err)
{
    if (n < ORDER_RADIX_MIN) {
        if (n > 1)
            qsort_r(ord, (size_t)n, sizeof *ord, cmp_groups, (void *)(uintptr_t)t);
        return BASALT_OK;
    }
    struct hg *a = basalt_malloc(sizeof *a * (size_t)n), *b = basalt_malloc(sizeof *b * (size_t)n);
    if (!a || !b) {
        basalt_free(a);
        basalt_free(b);
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    }
    static const int digits = 8;
    int64_t (*cnt)[256] = basalt_calloc(digits, sizeof *cnt);
    if (!cnt) {
        basalt_free(a);
        basalt_free(b);
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    }
    uint64_t all_and = ~0ull, all_or = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = t->hashes[ord[i]];
        a[i].h = h;
        a[i].g = ord[i];
        all_and &= h;
        all_or |= h;
        for (int d = 0; d < digits; d++)
            cnt[d][h >> (8 * d) & 0xff]++;
    }
    uint64_t vary = all_and ^ all_or;
    for (int d = 0; d < digits; d++) {
        if (!(vary >> (8 * d) & 0xff))
            continue;
        int64_t pos[256], sum = 0;
        for (int k = 0; k < 256; k++) {
            pos[k] = sum;
            sum += cnt[d][k];
        }
        for (int64_t i = 0; i < n; i++)
            b[pos[a[i].h >> (8 * d) & 0xff]++] = a[i];
        struct hg *x = a;
        a = b;
        b = x;
    }
    for (int64_t i = 0; i < n; i++)
        ord[i] = (uint32_t)a[i].g;
    for (int64_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && a[j].h == a[i].h; j++)
            ;
        if (j - i > 1)
            qsort_r(ord + i, (size_t)(j - i), sizeof *ord, cmp_groups, (void *)(uintptr_t)t);
    }
    basalt_free(cnt);
    basalt_free(a);
    basalt_free(b);
    return BASALT_OK;
}
