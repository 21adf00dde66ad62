/* Cutting a decoded leaf down to the rows a page-pruned scan keeps. Each
 * column reads the pages that overlap the kept rows, and pages of different
 * columns start at different rows, so every leaf holds a different superset;
 * cutting each to exactly the kept rows lets the leaves of a field be
 * assembled together. Everything moves left, in place. */
#include <stdint.h>
#include <string.h>

#include "parquet_column.h"
#include "parquet_reader.h"

/* Index ranges [a, b) into some sequence, kept in order. */
struct spans {
    int64_t *r;
    int32_t n;
};

static void *mut(const void *p)
{
    return (void *)(uintptr_t)p;
}

/* Moves bit ranges of `bits` left to be contiguous (destination never after
 * the source, so a forward copy is safe). */
static void compact_bits(uint8_t *bits, const struct spans *s)
{
    int64_t w = 0;
    for (int32_t i = 0; i < s->n; i++)
        for (int64_t j = s->r[2 * i]; j < s->r[2 * i + 1]; j++, w++)
            basalt_bitmap_set(bits, w, basalt_bitmap_get(bits, j));
}

static void compact_bytes(uint8_t *p, size_t width, const struct spans *s)
{
    size_t w = 0;
    for (int32_t i = 0; i < s->n; i++) {
        size_t a = (size_t)s->r[2 * i], b = (size_t)s->r[2 * i + 1];
        if (w != a)
            memmove(p + w * width, p + a * width, (b - a) * width);
        w += b - a;
    }
}

static int64_t offset_at(const void *offsets, int32_t width, int64_t i)
{
    return width == 8 ? ((const int64_t *)offsets)[i] : ((const int32_t *)offsets)[i];
}

static void offset_set(void *offsets, int32_t width, int64_t i, int64_t v)
{
    if (width == 8)
        ((int64_t *)offsets)[i] = v;
    else
        ((int32_t *)offsets)[i] = (int32_t)v;
}

/* Offsets and data of byte arrays; `count` values before. */
static basalt_status compact_binary(struct ArrowArray *a, int32_t width, int64_t count,
                                    const struct spans *s, struct basalt_error *err)
{
    void *off = mut(a->buffers[1]);
    uint8_t *data = mut(a->buffers[2]);
    size_t n = (size_t)count + 1;
    int64_t *old = basalt_malloc(sizeof *old * n);
    if (!old)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for offsets");
    for (size_t i = 0; i < n; i++)
        old[i] = offset_at(off, width, (int64_t)i);
    int64_t w = 0, pos = 0;
    offset_set(off, width, 0, 0);
    for (int32_t i = 0; i < s->n; i++) {
        int64_t a0 = s->r[2 * i], b0 = s->r[2 * i + 1];
        int64_t start = old[a0], end = old[b0];
        if (end < start || start < 0) {
            basalt_free(old);
            return basalt_error_set(err, BASALT_CORRUPT, "decreasing offsets");
        }
        if (pos != start && data)
            memmove(data + pos, data + start, (size_t)(end - start));
        for (int64_t j = a0; j < b0; j++) {
            w++;
            offset_set(off, width, w, pos + (old[j + 1] - start));
        }
        pos += end - start;
    }
    basalt_free(old);
    return BASALT_OK;
}

static basalt_status compact_values(struct basalt_parquet_leaf_values *leaf, int64_t count,
                                    const struct spans *s, struct basalt_error *err)
{
    struct ArrowArray *a = &leaf->values;
    if (!a->release)
        return BASALT_OK;
    switch (leaf->kind) {
    case BASALT_PARQUET_OUT_NULL:
        return BASALT_OK;
    case BASALT_PARQUET_OUT_BOOL:
        if (a->n_buffers > 1 && a->buffers[1])
            compact_bits(mut(a->buffers[1]), s);
        return BASALT_OK;
    case BASALT_PARQUET_OUT_FIXED:
    case BASALT_PARQUET_OUT_INDICES:
        if (a->n_buffers > 1 && a->buffers[1])
            compact_bytes(mut(a->buffers[1]), (size_t)leaf->width, s);
        return BASALT_OK;
    case BASALT_PARQUET_OUT_BINARY:
        if (a->n_buffers < 3 || !a->buffers[1])
            return BASALT_OK;
        return compact_binary(a, leaf->width, count, s, err);
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "unknown leaf layout %d", (int)leaf->kind);
    }
}

static int64_t total(const struct spans *s)
{
    int64_t n = 0;
    for (int32_t i = 0; i < s->n; i++)
        n += s->r[2 * i + 1] - s->r[2 * i];
    return n;
}

basalt_status basalt_parquet_leaf_keep_rows(struct basalt_parquet_leaf_values *leaf,
                                            int16_t max_def,
                                            const struct basalt_parquet_page_selection *sel,
                                            const int64_t *want, int32_t n_want,
                                            struct basalt_error *err)
{
    /* The rows the leaf holds, in order: its selected pages. */
    int64_t held = 0;
    for (int32_t k = 0; k < sel->n_pages; k++)
        if (sel->selected[k])
            held += sel->first_row_index[k + 1] - sel->first_row_index[k];
    if (held != leaf->n_rows)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "the selected pages hold %lld rows, the offset index says %lld",
                                (long long)leaf->n_rows, (long long)held);
    /* The wanted rows as positions among the held ones. */
    struct spans rows = {basalt_malloc(sizeof(int64_t) * 2 * ((size_t)n_want + (size_t)sel->n_pages + 1)), 0};
    if (!rows.r)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for row spans");
    int64_t base = 0;
    int32_t w = 0;
    for (int32_t k = 0; k < sel->n_pages; k++) {
        if (!sel->selected[k])
            continue;
        int64_t pb = sel->first_row_index[k], pe = sel->first_row_index[k + 1];
        while (w < n_want && want[2 * w + 1] <= pb)
            w++;
        for (int32_t j = w; j < n_want && want[2 * j] < pe; j++) {
            int64_t b = want[2 * j] > pb ? want[2 * j] : pb;
            int64_t e = want[2 * j + 1] < pe ? want[2 * j + 1] : pe;
            if (b < e) {
                int64_t lo = base + (b - pb), hi = base + (e - pb);
                if (rows.n > 0 && rows.r[2 * rows.n - 1] == lo) {
                    rows.r[2 * rows.n - 1] = hi;
                } else {
                    rows.r[2 * rows.n] = lo;
                    rows.r[2 * rows.n + 1] = hi;
                    rows.n++;
                }
            }
        }
        base += pe - pb;
    }
    int64_t kept = total(&rows);
    basalt_status st = BASALT_OK;
    if (!leaf->dense) {
        /* One level, one slot per row. */
        if (leaf->def)
            compact_bytes((uint8_t *)leaf->def, sizeof(int16_t), &rows);
        struct ArrowArray *a = &leaf->values;
        if (a->release && a->n_buffers > 0 && a->buffers[0])
            compact_bits(mut(a->buffers[0]), &rows);
        st = compact_values(leaf, leaf->n_rows, &rows, err);
        if (st == BASALT_OK && a->release) {
            a->length = kept;
            if (leaf->kind == BASALT_PARQUET_OUT_NULL)
                a->null_count = kept;
            else if (a->n_buffers > 0 && a->buffers[0])
                a->null_count = kept - basalt_bitmap_count(a->buffers[0], 0, kept);
            else
                a->null_count = 0;
        }
        leaf->n_levels = kept;
        leaf->n_rows = kept;
        basalt_free(rows.r);
        return st;
    }
    /* Dense: rows are records, which start where rep == 0; values are the
     * present levels (def == max_def). */
    struct spans levels = {basalt_malloc(sizeof(int64_t) * 2 * ((size_t)rows.n + 1)), 0};
    struct spans values = {basalt_malloc(sizeof(int64_t) * 2 * ((size_t)rows.n + 1)), 0};
    if (!levels.r || !values.r) {
        basalt_free(rows.r);
        basalt_free(levels.r);
        basalt_free(values.r);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for level spans");
    }
    int64_t record = -1, present = 0;
    int32_t next = 0; /* next bound of `rows` to place: 2*i begin, 2*i+1 end */
    int64_t lv_bound = 0, val_bound = 0;
    for (int64_t l = 0; l <= leaf->n_levels && next < 2 * rows.n; l++) {
        bool starts = l == leaf->n_levels || !leaf->rep || leaf->rep[l] == 0;
        if (starts) {
            record++;
            while (next < 2 * rows.n && rows.r[next] == record) {
                if (next % 2 == 0) {
                    lv_bound = l;
                    val_bound = present;
                } else {
                    levels.r[2 * levels.n] = lv_bound;
                    levels.r[2 * levels.n + 1] = l;
                    levels.n++;
                    values.r[2 * values.n] = val_bound;
                    values.r[2 * values.n + 1] = present;
                    values.n++;
                }
                next++;
            }
        }
        if (l < leaf->n_levels && (!leaf->def || leaf->def[l] == max_def))
            present++;
    }
    int64_t n_values = leaf->values.release ? leaf->values.length : 0;
    if (next < 2 * rows.n)
        st = basalt_error_set(err, BASALT_CORRUPT, "levels hold fewer records than the pages");
    if (st == BASALT_OK) {
        if (leaf->def)
            compact_bytes((uint8_t *)leaf->def, sizeof(int16_t), &levels);
        if (leaf->rep)
            compact_bytes((uint8_t *)leaf->rep, sizeof(int16_t), &levels);
        st = compact_values(leaf, n_values, &values, err);
    }
    if (st == BASALT_OK) {
        int64_t nv = total(&values);
        struct ArrowArray *a = &leaf->values;
        if (a->release) {
            a->length = nv;
            a->null_count = leaf->kind == BASALT_PARQUET_OUT_NULL ? nv : 0;
        }
        leaf->n_levels = total(&levels);
        leaf->n_rows = kept;
    }
    basalt_free(rows.r);
    basalt_free(levels.r);
    basalt_free(values.r);
    return st;
}
