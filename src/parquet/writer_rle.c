/* The RLE / bit-packing hybrid of a whole page of dictionary indices or
 * levels at once: the same runs, groups and bytes as basalt_parquet_rle_encoder
 * (greedy: a run of 8 or more equal values that remains after topping the
 * literals up to a whole group is a repeated run, the rest bit-packed groups
 * of at most 504 values), without calls per run and per value. */
#include <string.h>

#include "parquet_encoding.h"
#include "parquet_writer.h"

struct wrle {
    struct basalt_buffer *out;
    unsigned width;
    uint32_t lit_count;
    uint32_t lit[BASALT_PARQUET_RLE_LITERAL_MAX];
};

static basalt_status flush_literal(struct wrle *e, struct basalt_error *err)
{
    if (e->lit_count == 0)
        return BASALT_OK;
    uint32_t groups = (e->lit_count + 7) / 8;
    while (e->lit_count < groups * 8)
        e->lit[e->lit_count++] = 0;
    size_t bytes = (size_t)groups * e->width;
    basalt_status st = basalt_buffer_reserve(e->out, 1 + bytes, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *p = e->out->data + e->out->size;
    p[0] = (uint8_t)(groups << 1 | 1);
    basalt_parquet_pack_u32(e->lit, e->lit_count, e->width, p + 1);
    e->out->size += 1 + bytes;
    e->lit_count = 0;
    return BASALT_OK;
}

static basalt_status write_repeat(struct wrle *e, uint32_t value, uint64_t count,
                                  struct basalt_error *err)
{
    const uint64_t cap = (UINT64_C(1) << 31) - 1;
    size_t nbytes = ((size_t)e->width + 7) / 8;
    while (count) {
        uint64_t n = count < cap ? count : cap;
        basalt_status st = basalt_buffer_reserve(e->out, 10 + nbytes, err);
        if (st != BASALT_OK)
            return st;
        uint8_t *p = e->out->data + e->out->size;
        uint64_t h = n << 1;
        while (h >= 0x80) {
            *p++ = (uint8_t)(h | 0x80);
            h >>= 7;
        }
        *p++ = (uint8_t)h;
        for (size_t i = 0; i < nbytes; i++)
            *p++ = (uint8_t)(value >> (8 * i));
        e->out->size = (size_t)(p - e->out->data);
        count -= n;
    }
    return BASALT_OK;
}

/* A maximal run of `count` values equal to `value`. */
static inline basalt_status place(struct wrle *e, uint32_t value, uint64_t count,
                                  struct basalt_error *err)
{
    uint32_t fill = (8 - e->lit_count % 8) % 8;
    if (count >= 8 + (uint64_t)fill) {
        /* lit_count is not a multiple of 8 when fill > 0, so below the cap */
        for (uint32_t k = 0; k < fill; k++)
            e->lit[e->lit_count++] = value;
        basalt_status st = flush_literal(e, err);
        if (st == BASALT_OK)
            st = write_repeat(e, value, count - fill, err);
        return st;
    }
    for (; count; count--) {
        if (e->lit_count == BASALT_PARQUET_RLE_LITERAL_MAX) {
            basalt_status st = flush_literal(e, err);
            if (st != BASALT_OK)
                return st;
        }
        e->lit[e->lit_count++] = value;
    }
    return BASALT_OK;
}

/* Runs of a[0, n) (uint32 or int16 by `wide`), every value at most `max`
 * (else INVALID_ARG with `what`); with `hist`, each run's length is added to
 * hist[value]. */
static inline basalt_status encode(struct wrle *e, const void *a, bool wide, size_t n,
                                   uint32_t max, int64_t *hist, struct basalt_error *err)
{
    const uint32_t *a32 = a;
    const int16_t *a16 = a;
    size_t i = 0;
    while (i < n) {
        uint32_t v = wide ? a32[i] : (uint32_t)(int32_t)a16[i];
        size_t j = i + 1;
        if (wide)
            while (j < n && a32[j] == v)
                j++;
        else
            while (j < n && (uint32_t)(int32_t)a16[j] == v)
                j++;
        if (v > max) {
            if (wide)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "index %u is not below the dictionary's %u entries",
                                        (unsigned)v, (unsigned)max + 1);
            return basalt_error_set(err, BASALT_INVALID_ARG, "level %d outside [0, %u]",
                                    (int)(int32_t)v, (unsigned)max);
        }
        size_t c = j - i;
        if (hist)
            hist[v] += (int64_t)c;
        if (c < 8 && e->lit_count + c <= BASALT_PARQUET_RLE_LITERAL_MAX) {
            /* too short to repeat, and room for it: literals */
            for (size_t k = 0; k < c; k++)
                e->lit[e->lit_count + k] = v;
            e->lit_count += (uint32_t)c;
        } else {
            basalt_status st = place(e, v, c, err);
            if (st != BASALT_OK)
                return st;
        }
        i = j;
    }
    return flush_literal(e, err);
}

basalt_status basalt_parquet_wrle_indices(const uint32_t *indices, size_t count,
                                          uint32_t dict_len, struct basalt_buffer *out,
                                          struct basalt_error *err)
{
    if (dict_len == 0)
        return basalt_parquet_dict_encode_indices(indices, count, dict_len, out, err);
    unsigned width = dict_len > 1 ? basalt_parquet_bit_width(dict_len - 1) : 1;
    size_t start = out->size;
    uint8_t wb = (uint8_t)width;
    basalt_status st = basalt_buffer_append(out, &wb, 1, err);
    if (st != BASALT_OK)
        return st;
    struct wrle e;
    e.out = out;
    e.width = width;
    e.lit_count = 0;
    st = encode(&e, indices, true, count, dict_len - 1, NULL, err);
    if (st != BASALT_OK)
        out->size = start;
    return st;
}

basalt_status basalt_parquet_wrle_levels(const int16_t *levels, size_t count, int16_t max_level,
                                         bool prefixed, struct basalt_buffer *out,
                                         struct basalt_error *err)
{
    return basalt_parquet_wrle_levels_hist(levels, count, max_level, prefixed, NULL, out, err);
}

basalt_status basalt_parquet_wrle_levels_hist(const int16_t *levels, size_t count,
                                              int16_t max_level, bool prefixed, int64_t *hist,
                                              struct basalt_buffer *out, struct basalt_error *err)
{
    if (max_level < 0)
        return basalt_parquet_levels_encode(levels, count, max_level, prefixed, out, err);
    size_t start = out->size;
    basalt_status st = BASALT_OK;
    if (prefixed) {
        static const uint8_t zero[4];
        st = basalt_buffer_append(out, zero, 4, err);
        if (st != BASALT_OK)
            return st;
    }
    struct wrle e;
    e.out = out;
    e.width = basalt_parquet_level_bit_width(max_level);
    e.lit_count = 0;
    st = encode(&e, levels, false, count, (uint32_t)max_level, hist, err);
    if (st != BASALT_OK) {
        out->size = start;
        return st;
    }
    if (prefixed) {
        size_t body = out->size - start - 4;
        if (body > UINT32_MAX) {
            out->size = start;
            return basalt_error_set(err, BASALT_LIMIT, "levels of %zu bytes overflow the prefix",
                                    body);
        }
        uint32_t b32 = (uint32_t)body;
        memcpy(out->data + start, &b32, 4);
    }
    return BASALT_OK;
}
