/* Column metrics of a finished data file, from the statistics the Parquet
 * writer kept for the footer (nothing is read back or re-scanned), as the
 * Java writer's ParquetMetrics derives them:
 *   - per leaf whose mode is not none: column size (compressed bytes),
 *     value count (every level, nulls included) and null count, also for
 *     leaves inside lists and maps; NaN counts for floats and doubles (the
 *     writer counts them as rows go in: Parquet statistics have none);
 *   - lower and upper bounds for truncate(N) and full leaves reached through
 *     structs only: the smallest Parquet min and largest max over the row
 *     groups (NaN never a bound), strings cut to N code points and binaries
 *     to N bytes, a cut upper bound incremented, and dropped when it cannot
 *     be.
 * Parquet cuts long byte-array bounds itself (is_*_value_exact false): its
 * min is then a prefix of the true one, and its max a prefix with the last
 * byte incremented, so all but that byte is a prefix of the true max. The
 * writer asks Parquet for long enough bounds that truncate(N) never sees
 * such a cut within its N code points; a full-mode value longer than that
 * keeps the cut, still a bound. One departure from Java: incrementing a
 * code point to a surrogate (U+D7FF + 1) gives U+E000, where Java would
 * write a lone surrogate that is no UTF-8. */
#include <stdlib.h>
#include <string.h>

#include "data_write_internal.h"
#include "expr_internal.h"

/* ------------------------------------------------------------ UTF-8 */

/* The code point at s[0, n): its length (1 to 4), 0 when not well-formed
 * UTF-8 or cut short. */
static size_t utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    uint8_t c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2, v = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3, v = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

static size_t utf8_put(uint8_t *buf, uint32_t cp)
{
    if (cp < 0x80) {
        buf[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        buf[0] = (uint8_t)(0xc0 | (cp >> 6));
        buf[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        buf[0] = (uint8_t)(0xe0 | (cp >> 12));
        buf[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        buf[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    buf[0] = (uint8_t)(0xf0 | (cp >> 18));
    buf[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    buf[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    buf[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

size_t basalt_iceberg_dw_utf8_prefix(const uint8_t *s, size_t n, int32_t length, bool *complete)
{
    size_t pos = 0;
    int32_t cps = 0;
    *complete = true;
    while (pos < n && cps < length) {
        uint32_t cp;
        size_t len = utf8_next(s + pos, n - pos, &cp);
        if (len == 0) {
            *complete = false;
            break;
        }
        pos += len;
        cps++;
    }
    return pos;
}

/* s[0, n), whole code points, with its last code point that can be
 * incremented incremented and what follows it dropped, into buf (n + 3
 * bytes at most). */
static bool utf8_increment(const uint8_t *s, size_t n, uint8_t *buf, size_t *out_len)
{
    size_t end = n;
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && (s[start] & 0xc0) == 0x80)
            start--;
        uint32_t cp = 0;
        if (utf8_next(s + start, end - start, &cp) != end - start)
            return false;
        uint32_t next = cp + 1;
        if (next >= 0xd800 && next <= 0xdfff)
            next = 0xe000; /* a surrogate is no character: the next one is */
        if (next <= 0x10ffff) {
            memcpy(buf, s, start);
            *out_len = start + utf8_put(buf + start, next);
            return true;
        }
        end = start;
    }
    return false;
}

bool basalt_iceberg_dw_truncate_string_max(const uint8_t *s, size_t n, int32_t length,
                                           uint8_t *buf, size_t *out_len)
{
    bool complete;
    size_t plen = basalt_iceberg_dw_utf8_prefix(s, n, length, &complete);
    if (!complete)
        return false;
    if (plen == n) {
        memcpy(buf, s, n);
        *out_len = n;
        return true;
    }
    return utf8_increment(s, plen, buf, out_len);
}

/* s[0, n) with its last byte that is not 0xff incremented and what follows
 * it dropped (Java's BinaryUtil.truncateBinaryMax after the cut). */
static bool bytes_increment(const uint8_t *s, size_t n, uint8_t *buf, size_t *out_len)
{
    while (n > 0 && s[n - 1] == 0xff)
        n--;
    if (n == 0)
        return false;
    memcpy(buf, s, n);
    buf[n - 1]++;
    *out_len = n;
    return true;
}

/* ------------------------------------------------------------ bounds */

/* A Parquet statistics value as an Iceberg value of `t`. */
static bool stat_value(const struct basalt_iceberg_type *t, int32_t physical,
                       const struct basalt_parquet_binary *b, struct basalt_iceberg_value *v)
{
    memset(v, 0, sizeof *v);
    v->type = t->id;
    const uint8_t *d = b->data;
    size_t n = b->len;
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        if (n < 1)
            return false;
        v->u.b = d[0] != 0;
        return true;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        if (n != 4)
            return false;
        memcpy(&v->u.i32, d, 4);
        return true;
    case BASALT_ICEBERG_TYPE_FLOAT:
        if (n != 4)
            return false;
        memcpy(&v->u.f32, d, 4);
        return v->u.f32 == v->u.f32;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        if (n != 8)
            return false;
        memcpy(&v->u.f64, d, 8);
        return v->u.f64 == v->u.f64;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        if (n != 8)
            return false;
        memcpy(&v->u.i64, d, 8);
        return true;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        v->scale = t->scale;
        if (physical == BASALT_PARQUET_TYPE_INT32 && n == 4) {
            int32_t x;
            memcpy(&x, d, 4);
            v->u.dec = basalt_iceberg_dec_from_i64(x);
        } else if (physical == BASALT_PARQUET_TYPE_INT64 && n == 8) {
            int64_t x;
            memcpy(&x, d, 8);
            v->u.dec = basalt_iceberg_dec_from_i64(x);
        } else {
            /* big-endian two's complement, sign-extended to 128 bits */
            if (n < 1 || n > 16)
                return false;
            uint8_t be[16];
            memset(be, (d[0] & 0x80) ? 0xff : 0x00, 16);
            memcpy(be + 16 - n, d, n);
            uint64_t hi = 0, lo = 0;
            for (int i = 0; i < 8; i++) {
                hi = hi << 8 | be[i];
                lo = lo << 8 | be[8 + i];
            }
            v->u.dec.hi = (int64_t)hi;
            v->u.dec.lo = lo;
        }
        return true;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_UUID:
        v->u.bytes.data = d;
        v->u.bytes.len = n;
        return true;
    default:
        return false;
    }
}

/* One bound over the row groups, as Parquet gave it. */
struct bound {
    bool has;
    bool exact;
    struct basalt_iceberg_value v;
};

static void fold(struct bound *b, const struct basalt_iceberg_value *v, bool exact, int sign)
{
    if (!b->has || basalt_iceberg_value_compare(v, &b->v) * sign > 0) {
        b->has = true;
        b->v = *v;
        b->exact = exact;
    }
}

/* The bytes of `v` (single-value serialization) into the arena. */
static basalt_status serialize(struct basalt_arena *arena, const struct basalt_iceberg_value *v,
                               int32_t field_id, struct basalt_iceberg_metric_bytes *out,
                               struct basalt_error *err)
{
    bool bytes = v->type == BASALT_ICEBERG_TYPE_STRING || v->type == BASALT_ICEBERG_TYPE_BINARY ||
                 v->type == BASALT_ICEBERG_TYPE_FIXED || v->type == BASALT_ICEBERG_TYPE_UUID;
    size_t cap = bytes && v->u.bytes.len > 16 ? v->u.bytes.len : 16;
    uint8_t *buf = basalt_arena_alloc(arena, cap, 8);
    if (!buf)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t len;
    basalt_status st = basalt_iceberg_value_to_bytes(v, buf, cap, &len, err);
    if (st != BASALT_OK)
        return st;
    out->field_id = field_id;
    out->data = buf;
    out->len = len;
    return BASALT_OK;
}

/* The lower bound Iceberg keeps of Parquet's min `b`: strings to `length`
 * whole code points, binaries to `length` bytes (a cut min is a prefix
 * already: cutting it further keeps it below the true min). */
static void lower_bound(struct bound *b, int32_t length)
{
    struct basalt_iceberg_value *v = &b->v;
    if (v->type == BASALT_ICEBERG_TYPE_STRING) {
        bool complete;
        v->u.bytes.len = basalt_iceberg_dw_utf8_prefix(v->u.bytes.data, v->u.bytes.len, length,
                                                       &complete);
    } else if (v->type == BASALT_ICEBERG_TYPE_BINARY && v->u.bytes.len > (size_t)length) {
        v->u.bytes.len = (size_t)length;
    }
}

/* The upper bound Iceberg keeps of Parquet's max `b` into `buf` (at least
 * the max's length plus 4 bytes); false when there is none. */
static bool upper_bound(struct bound *b, int32_t length, uint8_t *buf)
{
    struct basalt_iceberg_value *v = &b->v;
    if (v->type != BASALT_ICEBERG_TYPE_STRING && v->type != BASALT_ICEBERG_TYPE_BINARY)
        return true;
    const uint8_t *s = v->u.bytes.data;
    size_t n = v->u.bytes.len, len;
    bool ok;
    if (b->exact) {
        if (v->type == BASALT_ICEBERG_TYPE_STRING)
            ok = basalt_iceberg_dw_truncate_string_max(s, n, length, buf, &len);
        else if (n > (size_t)length)
            ok = bytes_increment(s, (size_t)length, buf, &len);
        else
            return true;
    } else {
        /* all but the last byte is a prefix of the true max, which is longer */
        if (n == 0)
            return false;
        n--;
        if (v->type == BASALT_ICEBERG_TYPE_STRING) {
            bool complete;
            size_t plen = basalt_iceberg_dw_utf8_prefix(s, n, length, &complete);
            ok = plen > 0 && utf8_increment(s, plen, buf, &len);
        } else {
            ok = bytes_increment(s, n < (size_t)length ? n : (size_t)length, buf, &len);
        }
    }
    if (ok) {
        v->u.bytes.data = buf;
        v->u.bytes.len = len;
    }
    return ok;
}

/* ------------------------------------------------------------ the file */

static int cmp_long(const void *a, const void *b)
{
    int32_t x = ((const struct basalt_iceberg_metric_long *)a)->field_id;
    int32_t y = ((const struct basalt_iceberg_metric_long *)b)->field_id;
    return (x > y) - (x < y);
}

static int cmp_bytes(const void *a, const void *b)
{
    int32_t x = ((const struct basalt_iceberg_metric_bytes *)a)->field_id;
    int32_t y = ((const struct basalt_iceberg_metric_bytes *)b)->field_id;
    return (x > y) - (x < y);
}

static basalt_status leaf_bounds(struct basalt_iceberg_data_writer *w, uint32_t i,
                                 const struct basalt_parquet_row_group *groups, size_t n_groups,
                                 struct basalt_iceberg_data_file *df, struct basalt_error *err)
{
    const struct basalt_iceberg_dw_leaf *leaf = &w->leaves[i];
    const struct basalt_iceberg_type *t = &leaf->field->type;
    struct bound lo = {0}, hi = {0};
    bool hi_lost = false;
    for (size_t g = 0; g < n_groups; g++) {
        const struct basalt_parquet_column_metadata *m = &groups[g].columns[i].meta_data;
        const struct basalt_parquet_statistics *s = &m->statistics;
        if (!s->has_min_value)
            continue; /* only nulls (or NaN) in this chunk */
        struct basalt_iceberg_value v;
        if (!stat_value(t, m->type, &s->min_value, &v))
            return BASALT_OK;
        fold(&lo, &v, !s->has_is_min_value_exact || s->is_min_value_exact, -1);
        if (!s->has_max_value) {
            hi_lost = true; /* Parquet could not cut it (every byte 0xff) */
            continue;
        }
        if (!stat_value(t, m->type, &s->max_value, &v))
            return BASALT_OK;
        fold(&hi, &v, !s->has_is_max_value_exact || s->is_max_value_exact, 1);
    }
    if (!lo.has)
        return BASALT_OK;
    int32_t length = leaf->mode.kind == BASALT_ICEBERG_DW_TRUNCATE ? leaf->mode.length : INT32_MAX;
    lower_bound(&lo, length);
    basalt_status st = serialize(&w->arena, &lo.v, leaf->field->id,
                                 &df->lower_bounds[df->n_lower_bounds], err);
    if (st != BASALT_OK)
        return st;
    df->n_lower_bounds++;
    if (hi_lost || !hi.has)
        return BASALT_OK;
    bool bytes = hi.v.type == BASALT_ICEBERG_TYPE_STRING || hi.v.type == BASALT_ICEBERG_TYPE_BINARY;
    uint8_t *buf = NULL;
    if (bytes) {
        buf = basalt_malloc(hi.v.u.bytes.len + 8);
        if (!buf)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (upper_bound(&hi, length, buf)) {
        st = serialize(&w->arena, &hi.v, leaf->field->id, &df->upper_bounds[df->n_upper_bounds],
                       err);
        if (st == BASALT_OK)
            df->n_upper_bounds++;
    }
    basalt_free(buf);
    return st;
}

basalt_status basalt_iceberg_dw_metrics(struct basalt_iceberg_data_writer *w,
                                        struct basalt_iceberg_dw_file *f,
                                        const struct basalt_parquet_row_group *groups,
                                        size_t n_groups, struct basalt_error *err)
{
    struct basalt_iceberg_data_file *df = &f->df;
    uint32_t n = w->n_leaves;
    for (size_t g = 0; g < n_groups; g++)
        if (groups[g].num_columns != n)
            return basalt_error_set(err, BASALT_INTERNAL,
                                    "row group %zu has %zu columns, the schema %u leaves", g,
                                    groups[g].num_columns, n);
    size_t cap = n ? n : 1;
    df->column_sizes = basalt_arena_alloc(&w->arena, cap * sizeof *df->column_sizes, 8);
    df->value_counts = basalt_arena_alloc(&w->arena, cap * sizeof *df->value_counts, 8);
    df->null_value_counts = basalt_arena_alloc(&w->arena, cap * sizeof *df->null_value_counts, 8);
    df->nan_value_counts = basalt_arena_alloc(&w->arena, cap * sizeof *df->nan_value_counts, 8);
    df->lower_bounds = basalt_arena_alloc(&w->arena, cap * sizeof *df->lower_bounds, 8);
    df->upper_bounds = basalt_arena_alloc(&w->arena, cap * sizeof *df->upper_bounds, 8);
    df->split_offsets = basalt_arena_alloc(&w->arena, (n_groups ? n_groups : 1) * sizeof(int64_t), 8);
    if (!df->column_sizes || !df->value_counts || !df->null_value_counts ||
        !df->nan_value_counts || !df->lower_bounds || !df->upper_bounds || !df->split_offsets)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (size_t g = 0; g < n_groups; g++) {
        const struct basalt_parquet_row_group *rg = &groups[g];
        const struct basalt_parquet_column_metadata *m0 = &rg->columns[0].meta_data;
        int64_t start = m0->has_dictionary_page_offset && m0->dictionary_page_offset > 0
                            ? m0->dictionary_page_offset
                            : m0->data_page_offset;
        df->split_offsets[g] = rg->has_file_offset ? rg->file_offset : start;
    }
    df->n_split_offsets = (uint32_t)n_groups;
    for (uint32_t i = 0; i < n; i++) {
        const struct basalt_iceberg_dw_leaf *leaf = &w->leaves[i];
        if (leaf->mode.kind == BASALT_ICEBERG_DW_NONE)
            continue;
        int32_t id = leaf->field->id;
        int64_t size = 0, values = 0, nulls = 0;
        bool have_nulls = true;
        for (size_t g = 0; g < n_groups; g++) {
            const struct basalt_parquet_column_metadata *m = &groups[g].columns[i].meta_data;
            size += m->total_compressed_size;
            values += m->num_values;
            if (m->has_statistics && m->statistics.has_null_count)
                nulls += m->statistics.null_count;
            else
                have_nulls = false;
        }
        df->column_sizes[df->n_column_sizes++] = (struct basalt_iceberg_metric_long){id, size};
        df->value_counts[df->n_value_counts++] = (struct basalt_iceberg_metric_long){id, values};
        if (have_nulls)
            df->null_value_counts[df->n_null_value_counts++] =
                (struct basalt_iceberg_metric_long){id, nulls};
        if (leaf->nan)
            df->nan_value_counts[df->n_nan_value_counts++] =
                (struct basalt_iceberg_metric_long){id, f->nan_counts[i]};
        if (have_nulls && leaf->bounds && (leaf->mode.kind == BASALT_ICEBERG_DW_TRUNCATE ||
                                           leaf->mode.kind == BASALT_ICEBERG_DW_FULL)) {
            basalt_status st = leaf_bounds(w, i, groups, n_groups, df, err);
            if (st != BASALT_OK)
                return basalt_error_context(err, st, "column %d", (int)id);
        }
    }
    qsort(df->column_sizes, df->n_column_sizes, sizeof *df->column_sizes, cmp_long);
    qsort(df->value_counts, df->n_value_counts, sizeof *df->value_counts, cmp_long);
    qsort(df->null_value_counts, df->n_null_value_counts, sizeof *df->null_value_counts, cmp_long);
    qsort(df->nan_value_counts, df->n_nan_value_counts, sizeof *df->nan_value_counts, cmp_long);
    qsort(df->lower_bounds, df->n_lower_bounds, sizeof *df->lower_bounds, cmp_bytes);
    qsort(df->upper_bounds, df->n_upper_bounds, sizeof *df->upper_bounds, cmp_bytes);
    return BASALT_OK;
}
