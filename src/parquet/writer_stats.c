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
    if (!st->has)
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
