/* Column chunk statistics: min/max in the column's sort order, null count. */
#include <math.h>
#include <string.h>

#include "parquet_encoding.h"
#include "parquet_writer.h"

void basalt_parquet_wstats_init(struct basalt_parquet_wstats *st)
{
    memset(st, 0, sizeof *st);
    basalt_buffer_init(&st->min);
    basalt_buffer_init(&st->max);
}

void basalt_parquet_wstats_reset(struct basalt_parquet_wstats *st)
{
    basalt_buffer_reset(&st->min);
    basalt_buffer_reset(&st->max);
    st->has = false;
    st->null_count = 0;
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    int f = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp((double)f, -24);
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexp((double)(f | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

int basalt_parquet_wcompare(enum basalt_parquet_worder order, const uint8_t *a, size_t alen,
                            const uint8_t *b, size_t blen)
{
    switch (order) {
    case BASALT_PARQUET_WORDER_BOOL:
        return (a[0] > b[0]) - (a[0] < b[0]);
    case BASALT_PARQUET_WORDER_I32: {
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case BASALT_PARQUET_WORDER_U32: {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case BASALT_PARQUET_WORDER_I64: {
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case BASALT_PARQUET_WORDER_U64: {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case BASALT_PARQUET_WORDER_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case BASALT_PARQUET_WORDER_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case BASALT_PARQUET_WORDER_FLOAT16: {
        uint16_t x, y;
        memcpy(&x, a, 2);
        memcpy(&y, b, 2);
        double dx = half_to_double(x), dy = half_to_double(y);
        return (dx > dy) - (dx < dy);
    }
    case BASALT_PARQUET_WORDER_DECIMAL:
        if (alen && blen && (a[0] ^ b[0]) & 0x80)
            return (a[0] & 0x80) ? -1 : 1;
        return cmp_bytes(a, alen, b, blen);
    case BASALT_PARQUET_WORDER_BYTES:
    default:
        return cmp_bytes(a, alen, b, blen);
    }
}

static bool is_nan(enum basalt_parquet_worder order, const uint8_t *p)
{
    if (order == BASALT_PARQUET_WORDER_FLOAT) {
        float x;
        memcpy(&x, p, 4);
        return isnan(x);
    }
    if (order == BASALT_PARQUET_WORDER_DOUBLE) {
        double x;
        memcpy(&x, p, 8);
        return isnan(x);
    }
    if (order == BASALT_PARQUET_WORDER_FLOAT16) {
        uint16_t x;
        memcpy(&x, p, 2);
        return (x & 0x7c00) == 0x7c00 && (x & 0x3ff) != 0;
    }
    return false;
}

static basalt_status set_bound(struct basalt_buffer *b, const uint8_t *p, size_t len,
                               struct basalt_error *err)
{
    b->size = 0;
    return basalt_buffer_append(b, p, len, err);
}

static basalt_status fold(struct basalt_parquet_wstats *st, enum basalt_parquet_worder order,
                          const uint8_t *p, size_t len, struct basalt_error *err)
{
    if (is_nan(order, p))
        return BASALT_OK;
    basalt_status s;
    if (!st->has) {
        s = set_bound(&st->min, p, len, err);
        if (s == BASALT_OK)
            s = set_bound(&st->max, p, len, err);
        if (s == BASALT_OK)
            st->has = true;
        return s;
    }
    if (basalt_parquet_wcompare(order, p, len, st->min.data, st->min.size) < 0) {
        s = set_bound(&st->min, p, len, err);
        if (s != BASALT_OK)
            return s;
    }
    if (basalt_parquet_wcompare(order, p, len, st->max.data, st->max.size) > 0)
        return set_bound(&st->max, p, len, err);
    return BASALT_OK;
}

basalt_status basalt_parquet_wstats_update(struct basalt_parquet_wstats *st,
                                           const struct basalt_parquet_wcolumn *col,
                                           const struct basalt_parquet_wvalues *v,
                                           struct basalt_error *err)
{
    st->null_count += (int64_t)(v->count - v->non_null);
    if (v->non_null == 0)
        return BASALT_OK;
    basalt_status s = BASALT_OK;
    for (uint64_t i = 0; i < v->count && s == BASALT_OK; i++) {
        if (v->validity && !basalt_bitmap_get(v->validity, v->validity_offset + (int64_t)i))
            continue;
        if (col->order == BASALT_PARQUET_WORDER_BOOL) {
            uint8_t b = basalt_bitmap_get(v->bits, v->bits_offset + (int64_t)i);
            s = fold(st, col->order, &b, 1, err);
        } else if (col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY) {
            int64_t b, e;
            if (v->binary.offsets32) {
                b = v->binary.offsets32[i];
                e = v->binary.offsets32[i + 1];
            } else {
                b = v->binary.offsets64[i];
                e = v->binary.offsets64[i + 1];
            }
            s = fold(st, col->order, basalt_parquet_nonnull(v->binary.data) + b, (size_t)(e - b),
                     err);
        } else {
            s = fold(st, col->order, (const uint8_t *)v->fixed + i * col->width, col->width, err);
        }
    }
    return s;
}

/* The extremes of a page's values are found over the whole page first and
 * folded once: per-value folding compares through a switch and copies every
 * new bound into a buffer. min/max is a function of the set of values (NaN
 * skipped; values that compare equal but differ in bytes are only the zeros
 * of floating point, which finish() rewrites), so the order in which values
 * are seen does not change the bounds. */

#define MINMAX_LOOP(T, p, n, mn, mx)                                                               \
    do {                                                                                           \
        T lo_ = p[0], hi_ = p[0];                                                                  \
        for (size_t i_ = 1; i_ < (n); i_++) {                                                      \
            T x_ = p[i_];                                                                          \
            lo_ = x_ < lo_ ? x_ : lo_;                                                             \
            hi_ = x_ > hi_ ? x_ : hi_;                                                             \
        }                                                                                          \
        *(mn) = lo_;                                                                               \
        *(mx) = hi_;                                                                               \
    } while (0)

static void minmax_i32(const int32_t *p, size_t n, int32_t *mn, int32_t *mx)
{
    MINMAX_LOOP(int32_t, p, n, mn, mx);
}

static void minmax_u32(const uint32_t *p, size_t n, uint32_t *mn, uint32_t *mx)
{
    MINMAX_LOOP(uint32_t, p, n, mn, mx);
}

static void minmax_i64(const int64_t *p, size_t n, int64_t *mn, int64_t *mx)
{
    MINMAX_LOOP(int64_t, p, n, mn, mx);
}

static void minmax_u64(const uint64_t *p, size_t n, uint64_t *mn, uint64_t *mx)
{
    MINMAX_LOOP(uint64_t, p, n, mn, mx);
}

/* NaN never wins a comparison, so it is skipped; no value but NaN leaves
 * lo > hi. */
static bool minmax_f64(const double *p, size_t n, double *mn, double *mx)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double x = p[i];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    *mn = lo;
    *mx = hi;
    return lo <= hi;
}

static bool minmax_f32(const float *p, size_t n, float *mn, float *mx)
{
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        float x = p[i];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    *mn = lo;
    *mx = hi;
    return lo <= hi;
}

/* cmp_bytes, deciding most pairs by their first 8 bytes as one
 * big-endian number. */
static inline int cmp_prefixed(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (alen >= 8 && blen >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            x = __builtin_bswap64(x);
            y = __builtin_bswap64(y);
#endif
            return x < y ? -1 : 1;
        }
    }
    return cmp_bytes(a, alen, b, blen);
}

/* Bounds tracked by pointer, copied once at the end. */
struct wbounds {
    const uint8_t *mn, *mx;
    size_t mn_len, mx_len;
    bool has;
};

static inline void track(struct wbounds *b, enum basalt_parquet_worder order, const uint8_t *p,
                         size_t len)
{
    if (!b->has) {
        b->mn = b->mx = p;
        b->mn_len = b->mx_len = len;
        b->has = true;
        return;
    }
    if (order == BASALT_PARQUET_WORDER_BYTES) {
        if (cmp_prefixed(p, len, b->mn, b->mn_len) < 0) {
            b->mn = p;
            b->mn_len = len;
        } else if (cmp_prefixed(p, len, b->mx, b->mx_len) > 0) {
            b->mx = p;
            b->mx_len = len;
        }
        return;
    }
    if (basalt_parquet_wcompare(order, p, len, b->mn, b->mn_len) < 0) {
        b->mn = p;
        b->mn_len = len;
    } else if (basalt_parquet_wcompare(order, p, len, b->mx, b->mx_len) > 0) {
        b->mx = p;
        b->mx_len = len;
    }
}

static basalt_status fold_bounds(struct basalt_parquet_wstats *st, enum basalt_parquet_worder order,
                                 const void *mn, const void *mx, size_t mn_len, size_t mx_len,
                                 struct basalt_error *err)
{
    basalt_status s = fold(st, order, mn, mn_len, err);
    if (s == BASALT_OK)
        s = fold(st, order, mx, mx_len, err);
    return s;
}

basalt_status basalt_parquet_wstats_fold_dense(struct basalt_parquet_wstats *st,
                                               const struct basalt_parquet_wcolumn *col,
                                               const struct basalt_parquet_wvalues *v,
                                               struct basalt_error *err)
{
    size_t n = (size_t)v->count;
    if (n == 0)
        return BASALT_OK;
    enum basalt_parquet_worder order = col->order;
    const void *f = v->fixed;
    switch (order) {
    case BASALT_PARQUET_WORDER_BOOL: {
        int64_t ones = basalt_bitmap_count(v->bits, v->bits_offset, (int64_t)n);
        uint8_t lo = ones == (int64_t)n, hi = ones > 0;
        return fold_bounds(st, order, &lo, &hi, 1, 1, err);
    }
    case BASALT_PARQUET_WORDER_I32:
    case BASALT_PARQUET_WORDER_U32:
    case BASALT_PARQUET_WORDER_FLOAT:
        if (col->width != 4)
            break;
        if (order == BASALT_PARQUET_WORDER_I32) {
            int32_t lo, hi;
            minmax_i32(f, n, &lo, &hi);
            return fold_bounds(st, order, &lo, &hi, 4, 4, err);
        } else if (order == BASALT_PARQUET_WORDER_U32) {
            uint32_t lo, hi;
            minmax_u32(f, n, &lo, &hi);
            return fold_bounds(st, order, &lo, &hi, 4, 4, err);
        } else {
            float lo, hi;
            if (!minmax_f32(f, n, &lo, &hi))
                return BASALT_OK;
            return fold_bounds(st, order, &lo, &hi, 4, 4, err);
        }
    case BASALT_PARQUET_WORDER_I64:
    case BASALT_PARQUET_WORDER_U64:
    case BASALT_PARQUET_WORDER_DOUBLE:
        if (col->width != 8)
            break;
        if (order == BASALT_PARQUET_WORDER_I64) {
            int64_t lo, hi;
            minmax_i64(f, n, &lo, &hi);
            return fold_bounds(st, order, &lo, &hi, 8, 8, err);
        } else if (order == BASALT_PARQUET_WORDER_U64) {
            uint64_t lo, hi;
            minmax_u64(f, n, &lo, &hi);
            return fold_bounds(st, order, &lo, &hi, 8, 8, err);
        } else {
            double lo, hi;
            if (!minmax_f64(f, n, &lo, &hi))
                return BASALT_OK;
            return fold_bounds(st, order, &lo, &hi, 8, 8, err);
        }
    case BASALT_PARQUET_WORDER_FLOAT16:
        break;
    default: {
        struct wbounds b = {0};
        if (col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY) {
            const uint8_t *data = basalt_parquet_nonnull(v->binary.data);
            if (v->binary.offsets64) {
                const int64_t *o = v->binary.offsets64;
                for (size_t i = 0; i < n; i++)
                    track(&b, order, data + o[i], (size_t)(o[i + 1] - o[i]));
            } else {
                const int32_t *o = v->binary.offsets32;
                for (size_t i = 0; i < n; i++)
                    track(&b, order, data + o[i], (size_t)(o[i + 1] - o[i]));
            }
        } else {
            size_t w = col->width;
            for (size_t i = 0; i < n; i++)
                track(&b, order, (const uint8_t *)f + i * w, w);
        }
        return fold_bounds(st, order, b.mn, b.mx, b.mn_len, b.mx_len, err);
    }
    }
    /* float16 and unexpected widths: value by value */
    struct basalt_parquet_wvalues dense = *v;
    dense.validity = NULL;
    dense.non_null = dense.count;
    int64_t nulls = st->null_count;
    basalt_status s = basalt_parquet_wstats_update(st, col, &dense, err);
    st->null_count = nulls;
    return s;
}

basalt_status basalt_parquet_wstats_fold_entries(struct basalt_parquet_wstats *st,
                                                 const struct basalt_parquet_wcolumn *col,
                                                 const struct basalt_parquet_wdict *d,
                                                 const uint64_t *seen, struct basalt_error *err)
{
    enum basalt_parquet_worder order = col->order;
    if (order == BASALT_PARQUET_WORDER_FLOAT16 || order == BASALT_PARQUET_WORDER_FLOAT ||
        order == BASALT_PARQUET_WORDER_DOUBLE) {
        basalt_status s = BASALT_OK;
        for (uint32_t w = 0; s == BASALT_OK && w < (d->count + 63) / 64; w++)
            for (uint64_t m = seen[w]; m && s == BASALT_OK; m &= m - 1) {
                uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
                s = fold(st, order, d->values.data + (size_t)i * d->width, d->width, err);
            }
        return s;
    }
    struct wbounds b = {0};
    for (uint32_t w = 0; w < (d->count + 63) / 64; w++)
        for (uint64_t m = seen[w]; m; m &= m - 1) {
            uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
            size_t len;
            const uint8_t *p = basalt_parquet_wdict_value(d, i, &len);
            track(&b, order, p, len);
        }
    if (!b.has)
        return BASALT_OK;
    return fold_bounds(st, order, b.mn, b.mx, b.mn_len, b.mx_len, err);
}

basalt_status basalt_parquet_wstats_merge(struct basalt_parquet_wstats *st,
                                          enum basalt_parquet_worder order,
                                          const struct basalt_parquet_wstats *page,
                                          struct basalt_error *err)
{
    if (!page->has)
        return BASALT_OK;
    return fold_bounds(st, order, page->min.data, page->max.data, page->min.size, page->max.size,
                       err);
}

/* The shortest value >= every value with prefix p[0, n): the prefix with its
 * last byte that is not 0xff incremented. False when every byte is 0xff. */
static bool truncate_max(uint8_t *p, size_t *n)
{
    while (*n > 0) {
        if (p[*n - 1] != 0xff) {
            p[*n - 1]++;
            return true;
        }
        (*n)--;
    }
    return false;
}

basalt_status basalt_parquet_wstats_finish(const struct basalt_parquet_wstats *st,
                                           const struct basalt_parquet_wcolumn *col,
                                           size_t max_size, struct basalt_buffer *scratch,
                                           struct basalt_parquet_statistics *out,
                                           struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    out->has_null_count = true;
    out->null_count = st->null_count;
    /* WKB has no sort order (Geospatial.md): GeospatialStatistics instead. */
    if (!st->has || col->geo)
        return BASALT_OK;
    /* scratch: min then max, each possibly adjusted. */
    scratch->size = 0;
    basalt_status s = basalt_buffer_reserve(scratch, st->min.size + st->max.size + 16, err);
    if (s != BASALT_OK)
        return s;
    uint8_t *mn = scratch->data;
    uint8_t *mx = scratch->data + st->min.size + 8;
    size_t mn_len = st->min.size, mx_len = st->max.size;
    if (mn_len)
        memcpy(mn, st->min.data, mn_len);
    if (mx_len)
        memcpy(mx, st->max.data, mx_len);
    bool mn_exact = true, mx_exact = true, has_max = true;
    /* A zero bound is written as -0.0 for min and +0.0 for max, so a reader
     * comparing with either sign of zero cannot prune wrongly. */
    if (col->order == BASALT_PARQUET_WORDER_FLOAT) {
        float f;
        memcpy(&f, mn, 4);
        if (f == 0.0f) {
            f = -0.0f;
            memcpy(mn, &f, 4);
        }
        memcpy(&f, mx, 4);
        if (f == 0.0f) {
            f = 0.0f;
            memcpy(mx, &f, 4);
        }
    } else if (col->order == BASALT_PARQUET_WORDER_DOUBLE) {
        double d;
        memcpy(&d, mn, 8);
        if (d == 0.0) {
            d = -0.0;
            memcpy(mn, &d, 8);
        }
        memcpy(&d, mx, 8);
        if (d == 0.0) {
            d = 0.0;
            memcpy(mx, &d, 8);
        }
    } else if (col->order == BASALT_PARQUET_WORDER_FLOAT16) {
        if ((mn[0] | (mn[1] & 0x7f)) == 0)
            mn[1] = 0x80;
        if ((mx[0] | (mx[1] & 0x7f)) == 0)
            mx[1] = 0x00;
    } else if (col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY && max_size > 0) {
        if (mn_len > max_size) {
            mn_len = max_size;
            mn_exact = false;
        }
        if (mx_len > max_size) {
            mx_len = max_size;
            mx_exact = false;
            has_max = truncate_max(mx, &mx_len);
        }
    }
    out->has_min_value = true;
    out->min_value.data = mn;
    out->min_value.len = mn_len;
    out->has_is_min_value_exact = true;
    out->is_min_value_exact = mn_exact;
    if (has_max) {
        out->has_max_value = true;
        out->max_value.data = mx;
        out->max_value.len = mx_len;
        out->has_is_max_value_exact = true;
        out->is_max_value_exact = mx_exact;
    }
    return BASALT_OK;
}
