/* Row ranges: sorted, disjoint [begin, end) intervals of a row group's rows,
 * the currency of page-level pruning. */
#include <string.h>

#include "parquet_reader.h"

void basalt_parquet_ranges_init(struct basalt_parquet_ranges *rr)
{
    memset(rr, 0, sizeof *rr);
}

void basalt_parquet_ranges_reset(struct basalt_parquet_ranges *rr)
{
    basalt_free(rr->r);
    memset(rr, 0, sizeof *rr);
}

basalt_status basalt_parquet_ranges_add(struct basalt_parquet_ranges *rr, int64_t begin,
                                        int64_t end, struct basalt_error *err)
{
    if (begin >= end)
        return BASALT_OK;
    if (rr->n > 0 && begin <= rr->r[2 * rr->n - 1]) {
        if (end > rr->r[2 * rr->n - 1])
            rr->r[2 * rr->n - 1] = end;
        return BASALT_OK;
    }
    if (rr->n == rr->cap) {
        int32_t cap = rr->cap ? rr->cap * 2 : 8;
        if (cap < rr->cap)
            return basalt_error_set(err, BASALT_LIMIT, "too many row ranges");
        int64_t *r = basalt_realloc(rr->r, sizeof(int64_t) * 2 * (size_t)cap);
        if (!r)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for row ranges");
        rr->r = r;
        rr->cap = cap;
    }
    rr->r[2 * rr->n] = begin;
    rr->r[2 * rr->n + 1] = end;
    rr->n++;
    return BASALT_OK;
}

basalt_status basalt_parquet_ranges_intersect(const struct basalt_parquet_ranges *a,
                                              const struct basalt_parquet_ranges *b,
                                              struct basalt_parquet_ranges *out,
                                              struct basalt_error *err)
{
    out->n = 0;
    int32_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t lo = a->r[2 * i] > b->r[2 * j] ? a->r[2 * i] : b->r[2 * j];
        int64_t hi = a->r[2 * i + 1] < b->r[2 * j + 1] ? a->r[2 * i + 1] : b->r[2 * j + 1];
        if (lo < hi) {
            basalt_status st = basalt_parquet_ranges_add(out, lo, hi, err);
            if (st != BASALT_OK)
                return st;
        }
        if (a->r[2 * i + 1] < b->r[2 * j + 1])
            i++;
        else
            j++;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_ranges_union(const struct basalt_parquet_ranges *a,
                                          const struct basalt_parquet_ranges *b,
                                          struct basalt_parquet_ranges *out,
                                          struct basalt_error *err)
{
    out->n = 0;
    int32_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        const int64_t *next;
        if (j >= b->n || (i < a->n && a->r[2 * i] <= b->r[2 * j]))
            next = &a->r[2 * i++];
        else
            next = &b->r[2 * j++];
        basalt_status st = basalt_parquet_ranges_add(out, next[0], next[1], err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

bool basalt_parquet_ranges_equal(const struct basalt_parquet_ranges *a,
                                 const struct basalt_parquet_ranges *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->r, b->r, sizeof(int64_t) * 2 * (size_t)a->n) == 0);
}

bool basalt_parquet_ranges_overlap(const struct basalt_parquet_ranges *rr, int64_t begin,
                                   int64_t end)
{
    /* Binary search for the first range ending after begin. */
    int32_t lo = 0, hi = rr->n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (rr->r[2 * mid + 1] <= begin)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rr->n && rr->r[2 * lo] < end && begin < end;
}

int64_t basalt_parquet_ranges_rows(const struct basalt_parquet_ranges *rr)
{
    int64_t n = 0;
    for (int32_t i = 0; i < rr->n; i++)
        n += rr->r[2 * i + 1] - rr->r[2 * i];
    return n;
}
