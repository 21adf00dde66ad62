/* Column chunks being written: pending pages in dense form, page encoding,
 * the dictionary decision, and the chunk's bytes and metadata. */
#include <string.h>

#include "basalt/hash.h"
#include "parquet_crypto.h"
#include "parquet_encoding.h"
#include "parquet_writer.h"

/* The dictionary is abandoned after the first page when more than this
 * share of its values were distinct: such a column gains little from it. */
#define DICT_ABANDON_NUM 1
#define DICT_ABANDON_DEN 2

void basalt_parquet_wctx_init(struct basalt_parquet_wctx *ctx,
                              const struct basalt_parquet_writer_options *options,
                              struct basalt_codec *codec)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->options = options;
    ctx->codec = codec;
    ctx->codec_id = basalt_parquet_writer_codec_id(basalt_codec_kind_of(codec));
    basalt_buffer_init(&ctx->levels);
    basalt_buffer_init(&ctx->values);
    basalt_buffer_init(&ctx->compressed);
    basalt_buffer_init(&ctx->header);
    basalt_buffer_init(&ctx->scratch);
    basalt_buffer_init(&ctx->scratch_offsets);
    basalt_buffer_init(&ctx->indices);
    basalt_buffer_init(&ctx->seen);
    basalt_buffer_init(&ctx->page_bounds);
    basalt_buffer_init(&ctx->crypt);
}

void basalt_parquet_wctx_reset(struct basalt_parquet_wctx *ctx)
{
    basalt_buffer_reset(&ctx->levels);
    basalt_buffer_reset(&ctx->values);
    basalt_buffer_reset(&ctx->compressed);
    basalt_buffer_reset(&ctx->header);
    basalt_buffer_reset(&ctx->scratch);
    basalt_buffer_reset(&ctx->scratch_offsets);
    basalt_buffer_reset(&ctx->indices);
    basalt_buffer_reset(&ctx->seen);
    basalt_buffer_reset(&ctx->page_bounds);
    basalt_buffer_reset(&ctx->crypt);
}

void basalt_parquet_wchunk_init(struct basalt_parquet_wchunk *c,
                                const struct basalt_parquet_wcolumn *col)
{
    memset(c, 0, sizeof *c);
    basalt_buffer_init(&c->def);
    basalt_buffer_init(&c->rep);
    basalt_buffer_init(&c->vals);
    basalt_buffer_init(&c->offs);
    basalt_buffer_init(&c->pages);
    basalt_buffer_init(&c->bounds);
    basalt_buffer_init(&c->hashes);
    basalt_buffer_init(&c->rep_hist);
    basalt_buffer_init(&c->def_hist);
    basalt_parquet_wstats_init(&c->page_stats);
    basalt_parquet_wdict_init(&c->dict, col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY ? 0
                                                                                        : col->width);
    basalt_parquet_wstats_init(&c->stats);
    basalt_parquet_geo_bounds_init(&c->geo);
}

void basalt_parquet_wchunk_reset(struct basalt_parquet_wchunk *c)
{
    basalt_buffer_reset(&c->def);
    basalt_buffer_reset(&c->rep);
    basalt_buffer_reset(&c->vals);
    basalt_buffer_reset(&c->offs);
    basalt_buffer_reset(&c->pages);
    basalt_buffer_reset(&c->bounds);
    basalt_buffer_reset(&c->hashes);
    basalt_buffer_reset(&c->rep_hist);
    basalt_buffer_reset(&c->def_hist);
    basalt_parquet_wstats_reset(&c->page_stats);
    basalt_free(c->page_list);
    c->page_list = NULL;
    basalt_parquet_wdict_reset(&c->dict);
    basalt_parquet_wstats_reset(&c->stats);
}

int64_t basalt_parquet_wchunk_bytes(const struct basalt_parquet_wchunk *c)
{
    return (int64_t)c->pages.size + c->pend_bytes + (int64_t)c->dict.values.size;
}

static basalt_status append_values(struct basalt_parquet_wchunk *c,
                                   const struct basalt_parquet_wcolumn *col,
                                   const struct basalt_parquet_wvalues *v,
                                   struct basalt_error *err)
{
    basalt_status st;
    if (col->physical == BASALT_PARQUET_TYPE_BOOLEAN) {
        st = basalt_buffer_resize(
            &c->vals, (size_t)basalt_bitmap_bytes(c->pend_values + (int64_t)v->non_null), err);
        if (st != BASALT_OK)
            return st;
        int64_t k = c->pend_values;
        for (uint64_t i = 0; i < v->count; i++) {
            if (v->validity && !basalt_bitmap_get(v->validity, v->validity_offset + (int64_t)i))
                continue;
            basalt_bitmap_set(c->vals.data, k++,
                              basalt_bitmap_get(v->bits, v->bits_offset + (int64_t)i));
        }
        c->pend_bytes = (int64_t)c->vals.size;
        return BASALT_OK;
    }
    if (col->physical != BASALT_PARQUET_TYPE_BYTE_ARRAY) {
        size_t w = col->width;
        if (!v->validity)
            return basalt_buffer_append(&c->vals, v->fixed, (size_t)v->count * w, err);
        st = basalt_buffer_reserve(&c->vals, (size_t)v->non_null * w, err);
        if (st != BASALT_OK)
            return st;
        uint8_t *dst = c->vals.data + c->vals.size;
        const uint8_t *src = v->fixed;
        uint64_t i = 0;
        while (i < v->count) {
            /* eight slots at a time where their validity byte is whole */
            int64_t at = v->validity_offset + (int64_t)i;
            if ((at & 7) == 0 && v->count - i >= 8 && v->validity[at >> 3] == 0xff) {
                memcpy(dst, src + i * w, 8 * w);
                dst += 8 * w;
                i += 8;
                continue;
            }
            if (basalt_bitmap_get(v->validity, at)) {
                memcpy(dst, src + i * w, w);
                dst += w;
            }
            i++;
        }
        c->vals.size = (size_t)(dst - c->vals.data);
        return BASALT_OK;
    }
    if (c->offs.size == 0) {
        int64_t zero = 0;
        st = basalt_buffer_append(&c->offs, &zero, 8, err);
        if (st != BASALT_OK)
            return st;
    }
    st = basalt_buffer_reserve(&c->offs, (size_t)v->non_null * 8, err);
    if (st != BASALT_OK)
        return st;
    if (!v->validity && v->count > 0) {
        /* all valid: the data in one copy, the offsets rebased */
        int64_t b0, e0;
        if (v->binary.offsets32) {
            b0 = v->binary.offsets32[0];
            e0 = v->binary.offsets32[v->count];
        } else {
            b0 = v->binary.offsets64[0];
            e0 = v->binary.offsets64[v->count];
        }
        if (e0 - b0 <= (int64_t)UINT32_MAX) {
            int64_t base = (int64_t)c->vals.size - b0;
            st = basalt_buffer_append(&c->vals, basalt_parquet_nonnull(v->binary.data) + b0,
                                      (size_t)(e0 - b0), err);
            if (st != BASALT_OK)
                return st;
            int64_t *o = (int64_t *)(void *)(c->offs.data + c->offs.size);
            if (v->binary.offsets32) {
                const int32_t *src = v->binary.offsets32 + 1;
                for (uint64_t i = 0; i < v->count; i++)
                    o[i] = base + src[i];
            } else {
                const int64_t *src = v->binary.offsets64 + 1;
                for (uint64_t i = 0; i < v->count; i++)
                    o[i] = base + src[i];
            }
            c->offs.size += (size_t)v->count * 8;
            return BASALT_OK;
        }
    }
    for (uint64_t i = 0; i < v->count; i++) {
        if (v->validity && !basalt_bitmap_get(v->validity, v->validity_offset + (int64_t)i))
            continue;
        int64_t b, e;
        if (v->binary.offsets32) {
            b = v->binary.offsets32[i];
            e = v->binary.offsets32[i + 1];
        } else {
            b = v->binary.offsets64[i];
            e = v->binary.offsets64[i + 1];
        }
        if (e - b > (int64_t)UINT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "column '%s': value longer than 4 GiB",
                                    col->name);
        st = basalt_buffer_append(&c->vals, basalt_parquet_nonnull(v->binary.data) + b,
                                  (size_t)(e - b), err);
        if (st != BASALT_OK)
            return st;
        int64_t end = (int64_t)c->vals.size;
        memcpy(c->offs.data + c->offs.size, &end, 8);
        c->offs.size += 8;
    }
    return BASALT_OK;
}

static basalt_status append_part(struct basalt_parquet_wchunk *c,
                                 const struct basalt_parquet_wcolumn *col,
                                 const struct ArrowArray *array, int64_t start, int64_t count,
                                 struct basalt_parquet_wctx *ctx, struct basalt_error *err);
static basalt_status append_nested(struct basalt_parquet_wchunk *c,
                                   const struct basalt_parquet_wcolumn *col,
                                   const struct ArrowArray *array, int64_t start, int64_t count,
                                   struct basalt_parquet_wctx *ctx, struct basalt_error *err);

basalt_status basalt_parquet_wchunk_append(struct basalt_parquet_wchunk *c,
                                           const struct basalt_parquet_wcolumn *col,
                                           const struct ArrowArray *array, int64_t start,
                                           int64_t count, struct basalt_parquet_wctx *ctx,
                                           struct basalt_error *err)
{
    /* Pages end exactly at page_rows rows; the byte target is met as closely
     * as the parts allow. */
    while (count > 0) {
        int64_t n = ctx->options->page_rows - c->pend_rows;
        if (n > count)
            n = count;
        basalt_status st = col->nested ? append_nested(c, col, array, start, n, ctx, err)
                                       : append_part(c, col, array, start, n, ctx, err);
        if (st == BASALT_OK)
            st = basalt_parquet_wchunk_flush_page(c, col, ctx, false, err);
        if (st != BASALT_OK)
            return st;
        start += n;
        count -= n;
    }
    return BASALT_OK;
}

static basalt_status append_part(struct basalt_parquet_wchunk *c,
                                 const struct basalt_parquet_wcolumn *col,
                                 const struct ArrowArray *array, int64_t start, int64_t count,
                                 struct basalt_parquet_wctx *ctx, struct basalt_error *err)
{
    struct basalt_parquet_wvalues v;
    basalt_status st = basalt_parquet_wvalues_view(col, array, start, count, &ctx->scratch,
                                                   &ctx->scratch_offsets, &v, err);
    if (st != BASALT_OK)
        return st;
    if (!col->nullable && v.non_null != v.count)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "column '%s' is not nullable but holds nulls", col->name);
    if (col->nullable) {
        /* Levels of a page without nulls so far are only counted: such a
         * page's levels are one run. */
        if (v.non_null == v.count && c->def.size == 0 && !ctx->options->simple_paths) {
            c->def_ones += count;
        } else {
            size_t ones = (size_t)c->def_ones;
            st = basalt_buffer_reserve(&c->def, (ones + (size_t)count) * 2, err);
            if (st != BASALT_OK)
                return st;
            int16_t *lv = (int16_t *)(void *)(c->def.data + c->def.size);
            for (size_t i = 0; i < ones; i++)
                lv[i] = 1;
            lv += ones;
            c->def_ones = 0;
            if (!v.validity || v.non_null == v.count) {
                for (int64_t i = 0; i < count; i++)
                    lv[i] = 1;
            } else {
                for (int64_t i = 0; i < count; i++)
                    lv[i] = (int16_t)basalt_bitmap_get(v.validity, v.validity_offset + i);
            }
            c->def.size += (ones + (size_t)count) * 2;
        }
    }
    st = append_values(c, col, &v, err);
    if (st != BASALT_OK)
        return st;
    if (col->physical != BASALT_PARQUET_TYPE_BOOLEAN)
        c->pend_bytes = (int64_t)(c->vals.size + c->offs.size / 2);
    c->pend_rows += count;
    c->pend_levels += count;
    c->pend_values += (int64_t)v.non_null;
    c->rows += count;
    c->num_values += count;
    return BASALT_OK;
}

static basalt_status append_nested(struct basalt_parquet_wchunk *c,
                                   const struct basalt_parquet_wcolumn *col,
                                   const struct ArrowArray *array, int64_t start, int64_t count,
                                   struct basalt_parquet_wctx *ctx, struct basalt_error *err)
{
    size_t def_before = c->def.size, rep_before = c->rep.size;
    const struct ArrowArray *leaf = NULL;
    int64_t levels = 0;
    basalt_status st = basalt_parquet_wlevels_walk(c, col, array, start, count, ctx, &leaf,
                                                   &levels, err);
    uint64_t n = ctx->indices.size / 8;
    const int64_t *index = (const int64_t *)(const void *)ctx->indices.data;
    struct basalt_parquet_wvalues v;
    bool run = false;
    if (st == BASALT_OK && n > 0 && leaf && !ctx->options->simple_paths) {
        /* The values are every valid slot of one range of the leaf array
         * (the indices ascend and each is valid): viewed, not gathered. */
        int64_t span = index[n - 1] - index[0] + 1;
        const uint8_t *lv = leaf->null_count != 0 ? leaf->buffers[0] : NULL;
        run = span == (int64_t)n ||
              (lv && basalt_bitmap_count(lv, index[0], span) == (int64_t)n);
    }
    if (run) {
        st = basalt_parquet_wvalues_view(col, leaf, index[0] - leaf->offset,
                                         index[n - 1] - index[0] + 1, &ctx->scratch,
                                         &ctx->scratch_offsets, &v, err);
        if (st == BASALT_OK && v.non_null == v.count)
            v.validity = NULL;
        ctx->counters.leaf_views++;
    } else if (st == BASALT_OK) {
        st = basalt_parquet_wvalues_gather(col, leaf ? leaf : array, index, n, &ctx->scratch,
                                           &ctx->scratch_offsets, &v, err);
    }
    if (st == BASALT_OK)
        st = append_values(c, col, &v, err);
    if (st != BASALT_OK) {
        c->def.size = def_before;
        c->rep.size = rep_before;
        return st;
    }
    if (col->physical != BASALT_PARQUET_TYPE_BOOLEAN)
        c->pend_bytes = (int64_t)(c->vals.size + c->offs.size / 2);
    c->pend_bytes += (int64_t)(c->def.size + c->rep.size) / 8;
    c->pend_rows += count;
    c->pend_levels += levels;
    c->pend_values += (int64_t)n;
    c->rows += count;
    c->num_values += levels;
    return BASALT_OK;
}

/* After a chunk's first page: room for as many pages as the row group
 * will hold if they are like it, so the page buffer is not grown (copied,
 * faulted in again) page after page. Memory not written is not touched. */
static basalt_status reserve_chunk(struct basalt_parquet_wchunk *c,
                                   const struct basalt_parquet_wctx *ctx, struct basalt_error *err)
{
    const struct basalt_parquet_writer_options *o = ctx->options;
    int64_t rows = c->rows;
    if (rows <= 0 || o->row_group_rows <= 0)
        return BASALT_OK;
    double pages = (double)o->row_group_rows / (double)rows + 1.0;
    double want = (double)c->pages.size * pages;
    /* at most twice the column's share of a row group's bytes, so that all
     * the chunks together reserve a bounded amount */
    double share = (o->row_group_bytes > 0 ? (double)o->row_group_bytes : (double)(1 << 30)) * 2.0 /
                   (double)(ctx->num_columns > 0 ? ctx->num_columns : 1);
    if (want > share)
        want = share;
    if (want <= (double)c->pages.capacity)
        return BASALT_OK;
    return basalt_buffer_reserve(&c->pages, (size_t)want - c->pages.size, err);
}

/* `count` levels all equal to `value`, as levels_encode writes them: one
 * run (after a 4-byte length when `prefixed`). */
static basalt_status levels_run(int16_t value, size_t count, int16_t max_level, bool prefixed,
                                struct basalt_buffer *out, struct basalt_error *err)
{
    size_t start = out->size;
    basalt_status st = BASALT_OK;
    if (prefixed) {
        static const uint8_t zero[4];
        st = basalt_buffer_append(out, zero, 4, err);
        if (st != BASALT_OK)
            return st;
    }
    struct basalt_parquet_rle_encoder enc;
    st = basalt_parquet_rle_encoder_init(&enc, basalt_parquet_level_bit_width(max_level), out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_rle_encoder_put_run(&enc, (uint32_t)value, count, err);
    if (st == BASALT_OK)
        st = basalt_parquet_rle_encoder_finish(&enc, err);
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

/* Compresses src[0, len) into ctx->compressed, or views it unchanged. */
static basalt_status compress(struct basalt_parquet_wctx *ctx, const uint8_t *src, size_t len,
                              const uint8_t **out, size_t *out_len, struct basalt_error *err)
{
    if (ctx->codec_id == BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED) {
        *out = src;
        *out_len = len;
        return BASALT_OK;
    }
    size_t cap = basalt_codec_max_compressed_size(ctx->codec, len);
    if (cap == SIZE_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "page too large to compress");
    ctx->compressed.size = 0;
    basalt_status st = basalt_buffer_reserve(&ctx->compressed, cap, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_codec_compress(ctx->codec, src, len, ctx->compressed.data, cap, out_len, err);
    if (st != BASALT_OK)
        return st;
    *out = ctx->compressed.data;
    return BASALT_OK;
}

static basalt_status encode_values(const struct basalt_parquet_wcolumn *col, int32_t enc,
                                   const struct basalt_parquet_wvalues *v,
                                   struct basalt_buffer *out, struct basalt_error *err)
{
    uint64_t n = v->count;
    bool bytes = col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY;
    switch (enc) {
    case BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED:
        if (col->physical == BASALT_PARQUET_TYPE_INT32)
            return basalt_parquet_delta_encode_i32(v->fixed, n, NULL, 0, out, err);
        return basalt_parquet_delta_encode_i64(v->fixed, n, NULL, 0, out, err);
    case BASALT_PARQUET_ENCODING_DELTA_LENGTH_BYTE_ARRAY:
        return basalt_parquet_delta_length_encode(&v->binary, n, NULL, 0, out, err);
    case BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY:
        return basalt_parquet_delta_bytes_encode(bytes ? &v->binary : NULL, v->fixed, col->width,
                                                 n, NULL, 0, out, err);
    case BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT:
        return basalt_parquet_bss_encode(v->fixed, col->width, n, NULL, 0, out, err);
    default:
        if (col->physical == BASALT_PARQUET_TYPE_BOOLEAN)
            return basalt_parquet_plain_encode_bool(v->bits, 0, n, NULL, 0, out, err);
        if (bytes)
            return basalt_parquet_plain_encode_binary(&v->binary, n, NULL, 0, out, err);
        return basalt_parquet_plain_encode_fixed(v->fixed, col->width, n, NULL, 0, out, err);
    }
}

static int32_t chosen_encoding(const struct basalt_parquet_wcolumn *col,
                               const struct basalt_parquet_wctx *ctx)
{
    if (col->encoding >= 0)
        return col->encoding;
    if (ctx->options->dictionary && col->physical != BASALT_PARQUET_TYPE_BOOLEAN)
        return BASALT_PARQUET_ENCODING_RLE_DICTIONARY;
    return BASALT_PARQUET_ENCODING_PLAIN;
}

/* Records the page just encoded: where it is and, for the ColumnIndex, its
 * null count and bounds (`bounds`: the page's finished statistics, NULL when
 * it has none). */
static basalt_status add_page(struct basalt_parquet_wchunk *c,
                              const struct basalt_parquet_wcolumn *col,
                              struct basalt_parquet_wctx *ctx, int64_t offset, int32_t size,
                              const struct basalt_parquet_statistics *bounds,
                              struct basalt_error *err)
{
    if (c->num_pages == c->cap_pages) {
        size_t cap = c->cap_pages ? c->cap_pages * 2 : 16;
        struct basalt_parquet_wpage *p = basalt_realloc(c->page_list, cap * sizeof *p);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        c->page_list = p;
        c->cap_pages = cap;
    }
    struct basalt_parquet_wpage pg;
    memset(&pg, 0, sizeof pg);
    pg.offset = offset;
    pg.compressed_size = size;
    pg.first_row = c->rows - c->pend_rows;
    pg.null_count = c->pend_levels - c->pend_values;
    pg.null_page = c->pend_values == 0;
    if (col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY)
        pg.unencoded_bytes = (int64_t)c->vals.size;
    if (ctx->options->page_index && bounds) {
        pg.has_bounds = true;
        pg.min_off = c->bounds.size;
        pg.min_len = bounds->min_value.len;
        basalt_status st =
            basalt_buffer_append(&c->bounds, bounds->min_value.data, bounds->min_value.len, err);
        pg.max_off = c->bounds.size;
        pg.max_len = bounds->max_value.len;
        if (st == BASALT_OK)
            st = basalt_buffer_append(&c->bounds, bounds->max_value.data, bounds->max_value.len,
                                      err);
        if (st != BASALT_OK)
            return st;
    }
    c->page_list[c->num_pages++] = pg;
    return BASALT_OK;
}

/* The bounds of the pending page (dense values `v`) into c->page_stats and
 * the chunk's statistics. A dictionary-encoded page (`idx`, `n_idx`
 * indices; NULL otherwise) is bounded by the distinct entries it uses. */
static basalt_status page_bounds(struct basalt_parquet_wchunk *c,
                                 const struct basalt_parquet_wcolumn *col,
                                 struct basalt_parquet_wctx *ctx,
                                 const struct basalt_parquet_wvalues *v, const uint32_t *idx,
                                 uint64_t n_idx, struct basalt_error *err)
{
    struct basalt_parquet_wstats *ps = &c->page_stats;
    ps->has = false;
    ps->null_count = 0;
    c->stats.null_count += c->pend_levels - c->pend_values;
    if (v->count == 0)
        return BASALT_OK;
    basalt_status st;
    if (ctx->options->simple_paths) {
        /* the reference: every value folded into the chunk and the page */
        st = basalt_parquet_wstats_update(&c->stats, col, v, err);
        if (st == BASALT_OK &&
            (ctx->options->page_index || !ctx->options->skip_page_statistics))
            st = basalt_parquet_wstats_update(ps, col, v, err);
        ctx->counters.simple_pages++;
        return st;
    }
    if (idx) {
        size_t words = ((size_t)c->dict.count + 63) / 64;
        ctx->seen.size = 0;
        st = basalt_buffer_resize(&ctx->seen, words * 8 + 8, err);
        if (st != BASALT_OK)
            return st;
        uint64_t *seen = (uint64_t *)(void *)ctx->seen.data;
        memset(seen, 0, words * 8);
        for (uint64_t i = 0; i < n_idx; i++)
            seen[idx[i] >> 6] |= UINT64_C(1) << (idx[i] & 63);
        st = basalt_parquet_wstats_fold_entries(ps, col, &c->dict, seen, err);
        ctx->counters.dict_pages++;
    } else {
        st = basalt_parquet_wstats_fold_dense(ps, col, v, err);
        ctx->counters.dense_pages++;
    }
    if (st == BASALT_OK)
        st = basalt_parquet_wstats_merge(&c->stats, col->order, ps, err);
    return st;
}

/* A zeroed histogram of levels 0..max appended to `b`, at *out. NOMEM. */
static basalt_status hist_slot(struct basalt_buffer *b, int16_t max, int64_t **out,
                               struct basalt_error *err)
{
    size_t bytes = ((size_t)max + 1) * sizeof(int64_t);
    basalt_status st = basalt_buffer_reserve(b, bytes, err);
    if (st != BASALT_OK)
        return st;
    *out = (int64_t *)(void *)(b->data + b->size);
    memset(*out, 0, bytes);
    b->size += bytes;
    return BASALT_OK;
}

/* The reference count, level by level; the levels were encoded first, so
 * each is within the histogram. */
static void hist_count(const int16_t *levels, size_t n, int64_t *hist)
{
    for (size_t i = 0; i < n; i++)
        hist[levels[i]]++;
}

/* Encodes the pending page's levels (repetition, then definition) into
 * ctx->levels, their counts into the page's histograms `rh` and `dh`, and
 * the repetition levels' size into *rep_len. Levels of 1 need no counting:
 * every row begins with one repetition level 0, and a definition level is
 * the maximum exactly where a value is. */
static basalt_status encode_levels(struct basalt_parquet_wchunk *c,
                                   const struct basalt_parquet_wcolumn *col,
                                   struct basalt_parquet_wctx *ctx, bool v2, int64_t *rh,
                                   int64_t *dh, size_t *rep_len, struct basalt_error *err)
{
    const struct basalt_parquet_writer_options *o = ctx->options;
    const int16_t *rep = (const int16_t *)(const void *)c->rep.data;
    const int16_t *def = (const int16_t *)(const void *)c->def.data;
    size_t n = (size_t)c->pend_levels;
    basalt_status st = BASALT_OK;
    if (col->max_rep > 0) {
        if (o->simple_paths) {
            st = basalt_parquet_levels_encode(rep, n, col->max_rep, !v2, &ctx->levels, err);
            if (st == BASALT_OK)
                hist_count(rep, n, rh);
        } else if (col->max_rep == 1) {
            st = basalt_parquet_wrle_levels(rep, n, 1, !v2, &ctx->levels, err);
            rh[0] = c->pend_rows;
            rh[1] = c->pend_levels - c->pend_rows;
        } else {
            st = basalt_parquet_wrle_levels_hist(rep, n, col->max_rep, !v2, rh, &ctx->levels,
                                                 err);
            ctx->counters.level_hists++;
        }
        if (st != BASALT_OK)
            return st;
        *rep_len = ctx->levels.size;
    }
    if (col->max_def == 0)
        return BASALT_OK;
    if (o->simple_paths) {
        st = basalt_parquet_levels_encode(def, n, col->max_def, !v2, &ctx->levels, err);
        if (st == BASALT_OK)
            hist_count(def, n, dh);
        return st;
    }
    if (col->max_def == 1 && c->def_ones > 0 && c->def_ones == c->pend_levels) {
        st = levels_run(1, n, col->max_def, !v2, &ctx->levels, err);
        ctx->counters.level_runs++;
    } else if (col->max_def == 1) {
        st = basalt_parquet_wrle_levels(def, n, 1, !v2, &ctx->levels, err);
    } else {
        st = basalt_parquet_wrle_levels_hist(def, n, col->max_def, !v2, dh, &ctx->levels, err);
        ctx->counters.level_hists++;
    }
    if (col->max_def == 1) {
        dh[0] = c->pend_levels - c->pend_values;
        dh[1] = c->pend_values;
    }
    return st;
}

/* The statistics of a page header: its null count and, when the page has
 * them, the bounds of its ColumnIndex entry. */
static void header_statistics(const struct basalt_parquet_wchunk *c,
                              const struct basalt_parquet_statistics *bounds,
                              struct basalt_parquet_statistics *out)
{
    memset(out, 0, sizeof *out);
    out->has_null_count = true;
    out->null_count = c->pend_levels - c->pend_values;
    if (!bounds)
        return;
    out->has_min_value = out->has_max_value = true;
    out->min_value = bounds->min_value;
    out->max_value = bounds->max_value;
    out->has_is_min_value_exact = out->has_is_max_value_exact = true;
    out->is_min_value_exact = bounds->is_min_value_exact;
    out->is_max_value_exact = bounds->is_max_value_exact;
}

/* An encrypted column's page: the body (prefix then body) as a page module,
 * then the header, which gives the module's size, as a header module before
 * it; a DATA_PAGE_V2 page in parquet-java's layout keeps its levels (the
 * prefix) in plaintext before the module of its values. The CRC covers the
 * page's bytes as stored. */
static basalt_status emit_encrypted_page(struct basalt_parquet_wctx *ctx,
                                         const struct basalt_parquet_wcolumn *col,
                                         int32_t page_ordinal,
                                         struct basalt_parquet_page_header *ph,
                                         const uint8_t *prefix, size_t prefix_len,
                                         const uint8_t *body, size_t body_len,
                                         struct basalt_buffer *dst, size_t *total,
                                         struct basalt_error *err)
{
    bool dict = ph->type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE;
    struct basalt_parquet_module_id id = {dict ? BASALT_PARQUET_MODULE_DICTIONARY_PAGE
                                               : BASALT_PARQUET_MODULE_DATA_PAGE,
                                          ctx->row_group, col->ordinal, page_ordinal};
    ctx->crypt.size = 0;
    size_t clear = ph->type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2 && col->v2_clear_levels
                       ? prefix_len
                       : 0;
    basalt_status st = BASALT_OK;
    if (clear)
        st = basalt_buffer_append(&ctx->crypt, prefix, clear, err);
    if (st == BASALT_OK)
        st = basalt_parquet_crypto_encrypt(col->cipher, &id, clear ? prefix + clear : prefix,
                                           prefix_len - clear, body, body_len, &ctx->crypt, err);
    if (st != BASALT_OK)
        return st;
    if (ctx->crypt.size > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "page over 2 GiB");
    ph->compressed_page_size = (int32_t)ctx->crypt.size;
    if (ctx->options->page_crc) {
        ph->has_crc = true;
        ph->crc = (int32_t)basalt_hash_crc32(0, ctx->crypt.data, ctx->crypt.size);
    }
    ctx->header.size = 0;
    st = basalt_thrift_encode_page_header(ph, &ctx->header, err);
    if (st != BASALT_OK)
        return st;
    size_t before = dst->size;
    id.type = dict ? BASALT_PARQUET_MODULE_DICTIONARY_PAGE_HEADER
                   : BASALT_PARQUET_MODULE_DATA_PAGE_HEADER;
    st = basalt_parquet_crypto_encrypt(col->cipher, &id, ctx->header.data, ctx->header.size,
                                       NULL, 0, dst, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(dst, ctx->crypt.data, ctx->crypt.size, err);
    if (st != BASALT_OK)
        return st;
    *total = dst->size - before;
    return BASALT_OK;
}

/* Header + body appended to `dst`; returns the bytes appended in *total.
 * `page_ordinal` numbers the chunk's data pages (for encryption). */
static basalt_status emit_page(struct basalt_parquet_wctx *ctx,
                               const struct basalt_parquet_wcolumn *col, int32_t page_ordinal,
                               struct basalt_parquet_page_header *ph, const uint8_t *prefix,
                               size_t prefix_len, const uint8_t *body, size_t body_len,
                               struct basalt_buffer *dst, size_t *total, struct basalt_error *err)
{
    if (prefix_len + body_len > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "page over 2 GiB");
    if (col->cipher)
        return emit_encrypted_page(ctx, col, page_ordinal, ph, prefix, prefix_len, body,
                                   body_len, dst, total, err);
    ph->compressed_page_size = (int32_t)(prefix_len + body_len);
    if (ctx->options->page_crc) {
        uint32_t crc = basalt_hash_crc32(0, prefix, prefix_len);
        crc = basalt_hash_crc32(crc, body, body_len);
        ph->has_crc = true;
        ph->crc = (int32_t)crc;
    }
    ctx->header.size = 0;
    basalt_status st = basalt_thrift_encode_page_header(ph, &ctx->header, err);
    if (st == BASALT_OK)
        st = basalt_buffer_reserve(dst, ctx->header.size + prefix_len + body_len, err);
    if (st != BASALT_OK)
        return st;
    memcpy(dst->data + dst->size, ctx->header.data, ctx->header.size);
    dst->size += ctx->header.size;
    if (prefix_len)
        memcpy(dst->data + dst->size, prefix, prefix_len);
    dst->size += prefix_len;
    if (body_len)
        memcpy(dst->data + dst->size, body, body_len);
    dst->size += body_len;
    *total = ctx->header.size + prefix_len + body_len;
    return BASALT_OK;
}

basalt_status basalt_parquet_wchunk_flush_page(struct basalt_parquet_wchunk *c,
                                               const struct basalt_parquet_wcolumn *col,
                                               struct basalt_parquet_wctx *ctx, bool force,
                                               struct basalt_error *err)
{
    const struct basalt_parquet_writer_options *o = ctx->options;
    if (c->pend_rows == 0)
        return BASALT_OK;
    if (!force && c->pend_bytes < o->page_bytes && c->pend_rows < o->page_rows)
        return BASALT_OK;
    if (c->pend_levels > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "column '%s': page over 2^31 values",
                                col->name);
    struct basalt_parquet_wvalues v;
    memset(&v, 0, sizeof v);
    v.count = v.non_null = (uint64_t)c->pend_values;
    v.fixed = c->vals.data;
    v.bits = c->vals.data;
    v.binary.offsets64 = (const int64_t *)(const void *)c->offs.data;
    v.binary.data = c->vals.data;

    basalt_status st;
    if (col->geo && !c->geo.invalid) {
        /* A value that is not WKB leaves the chunk without statistics
         * rather than with a box that may not cover it (as Arrow C++). */
        for (uint64_t i = 0; i < v.count && !c->geo.invalid; i++) {
            int64_t b = v.binary.offsets64[i], e = v.binary.offsets64[i + 1];
            if (basalt_parquet_geo_bounds_add(&c->geo, basalt_parquet_nonnull(v.binary.data) + b,
                                              (size_t)(e - b), NULL) != BASALT_OK)
                c->geo.invalid = true;
        }
    }
    if (col->bloom) {
        st = basalt_parquet_wbloom_hash_values(&c->hashes, col, &v, err);
        if (st != BASALT_OK)
            return st;
    }
    int32_t enc = chosen_encoding(col, ctx);
    const uint32_t *dict_idx = NULL;
    uint64_t n_idx = 0;
    if (enc == BASALT_PARQUET_ENCODING_RLE_DICTIONARY && (!c->dict_decided || c->dict_on)) {
        st = basalt_buffer_resize(&ctx->indices, (size_t)v.count * 4 + 4, err);
        if (st != BASALT_OK)
            return st;
        uint32_t *idx = (uint32_t *)(void *)ctx->indices.data;
        uint64_t done = 0;
        /* The first page's lookups can stop as soon as enough distinct
         * values were seen to give the dictionary up. */
        bool may_abandon = !c->dict_decided && col->encoding < 0 && v.count >= 64;
        uint64_t abandon_at = v.count * DICT_ABANDON_NUM / DICT_ABANDON_DEN + 1;
        uint32_t max_count = may_abandon && abandon_at < UINT32_MAX ? (uint32_t)abandon_at
                                                                    : UINT32_MAX;
        st = basalt_parquet_wdict_put(&c->dict, &v, 0, o->dictionary_max_bytes, max_count,
                                      o->simple_paths, idx, &done, &n_idx, err);
        if (st != BASALT_OK)
            return st;
        bool abandon = may_abandon &&
                       (uint64_t)c->dict.count * DICT_ABANDON_DEN > v.count * DICT_ABANDON_NUM;
        bool full = done < v.count && !abandon;
        if (!c->dict_decided) {
            c->dict_decided = true;
            c->dict_on = !full;
            /* Decided before any dictionary byte is written, so giving up
             * here leaves the chunk exactly as a PLAIN one. */
            if (abandon)
                c->dict_on = false;
            if (!c->dict_on)
                basalt_parquet_wdict_clear(&c->dict);
        } else if (full) {
            c->dict_on = false; /* this page and the rest of the chunk: PLAIN */
        }
        if (c->dict_on)
            dict_idx = idx;
    }
    if (enc == BASALT_PARQUET_ENCODING_RLE_DICTIONARY && !c->dict_on)
        enc = BASALT_PARQUET_ENCODING_PLAIN;
    st = page_bounds(c, col, ctx, &v, dict_idx, n_idx, err);
    if (st != BASALT_OK)
        return st;
    /* The bounds shared by the page's ColumnIndex entry and its header. */
    struct basalt_parquet_statistics bounds;
    const struct basalt_parquet_statistics *page_min_max = NULL;
    if (c->pend_values > 0 && (o->page_index || !o->skip_page_statistics)) {
        st = basalt_parquet_wstats_finish(&c->page_stats, col, o->max_statistics_size,
                                          &ctx->page_bounds, &bounds, err);
        if (st != BASALT_OK)
            return st;
        if (bounds.has_min_value && bounds.has_max_value)
            page_min_max = &bounds;
    }
    int64_t *rh = NULL, *dh = NULL;
    if (col->max_rep > 0)
        st = hist_slot(&c->rep_hist, col->max_rep, &rh, err);
    if (st == BASALT_OK && col->max_def > 0)
        st = hist_slot(&c->def_hist, col->max_def, &dh, err);
    if (st != BASALT_OK)
        return st;

    bool v2 = o->page_version == 2;
    ctx->levels.size = 0;
    ctx->values.size = 0;
    size_t rep_len = 0;
    /* the reference encoders, or the page-at-a-time ones */
    basalt_status (*indices_encode)(const uint32_t *, size_t, uint32_t, struct basalt_buffer *,
                                    struct basalt_error *) =
        o->simple_paths ? basalt_parquet_dict_encode_indices : basalt_parquet_wrle_indices;
    if (!o->simple_paths)
        ctx->counters.rle_pages++;
    st = encode_levels(c, col, ctx, v2, rh, dh, &rep_len, err);
    if (st != BASALT_OK)
        return st;
    /* A v1 page compresses levels and values together: the values go right
     * after the levels. PLAIN fixed-width values are their pending bytes,
     * used in place where nothing needs them contiguous with the levels. */
    struct basalt_buffer *vb = v2 ? &ctx->values : &ctx->levels;
    const uint8_t *vals = NULL;
    size_t vals_len = 0;
    bool in_place = !dict_idx && enc == BASALT_PARQUET_ENCODING_PLAIN && !o->simple_paths &&
                    col->physical != BASALT_PARQUET_TYPE_BOOLEAN &&
                    col->physical != BASALT_PARQUET_TYPE_BYTE_ARRAY &&
                    (v2 || ctx->codec_id == BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED);
    if (dict_idx) {
        st = indices_encode(dict_idx, (size_t)n_idx, c->dict.count > 0 ? c->dict.count : 1, vb,
                            err);
        if (st != BASALT_OK)
            return st;
        c->used_dict = true;
        c->pages_dict++;
    } else if (in_place) {
        vals = c->vals.data;
        vals_len = (size_t)v.count * col->width;
        c->used_plain = true;
        c->pages_plain++;
        ctx->counters.in_place_pages++;
    } else {
        st = encode_values(col, enc, &v, vb, err);
        if (st != BASALT_OK)
            return st;
        if (enc == BASALT_PARQUET_ENCODING_PLAIN) {
            c->used_plain = true;
            c->pages_plain++;
        } else {
            c->used_other = true;
            c->other_encoding = enc;
            c->pages_other++;
        }
    }
    if (!vals) {
        vals = v2 ? ctx->values.data : NULL;
        vals_len = v2 ? ctx->values.size : 0;
    }
    struct basalt_parquet_page_header ph;
    memset(&ph, 0, sizeof ph);
    const uint8_t *body = NULL;
    size_t body_len = 0, total = 0;
    size_t page_start = c->pages.size;
    if (!v2) {
        size_t size = ctx->levels.size + vals_len;
        if (size > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "page over 2 GiB");
        if (vals_len) {
            /* uncompressed: levels, then the values in place */
            body = vals;
            body_len = vals_len;
        } else {
            st = compress(ctx, ctx->levels.data, ctx->levels.size, &body, &body_len, err);
            if (st != BASALT_OK)
                return st;
        }
        ph.type = BASALT_PARQUET_PAGE_TYPE_DATA_PAGE;
        ph.uncompressed_page_size = (int32_t)size;
        ph.has_data_page_header = true;
        ph.data_page_header.num_values = (int32_t)c->pend_levels;
        ph.data_page_header.encoding = enc;
        ph.data_page_header.definition_level_encoding = BASALT_PARQUET_ENCODING_RLE;
        ph.data_page_header.repetition_level_encoding = BASALT_PARQUET_ENCODING_RLE;
        ph.data_page_header.has_statistics = !o->skip_page_statistics;
        header_statistics(c, page_min_max, &ph.data_page_header.statistics);
        int32_t ordinal = (int32_t)(c->num_pages < INT32_MAX ? c->num_pages : INT32_MAX);
        if (vals_len)
            st = emit_page(ctx, col, ordinal, &ph, ctx->levels.data, ctx->levels.size, body,
                           body_len, &c->pages, &total, err);
        else
            st = emit_page(ctx, col, ordinal, &ph, NULL, 0, body, body_len, &c->pages, &total,
                           err);
    } else {
        if (ctx->levels.size + vals_len > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "page over 2 GiB");
        st = compress(ctx, vals, vals_len, &body, &body_len, err);
        if (st != BASALT_OK)
            return st;
        ph.type = BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2;
        ph.uncompressed_page_size = (int32_t)(ctx->levels.size + vals_len);
        ph.has_data_page_header_v2 = true;
        struct basalt_parquet_data_page_header_v2 *h = &ph.data_page_header_v2;
        h->num_values = (int32_t)c->pend_levels;
        h->num_nulls = (int32_t)(c->pend_levels - c->pend_values);
        h->num_rows = (int32_t)c->pend_rows;
        h->encoding = enc;
        h->definition_levels_byte_length = (int32_t)(ctx->levels.size - rep_len);
        h->repetition_levels_byte_length = (int32_t)rep_len;
        h->has_is_compressed = true;
        h->is_compressed = ctx->codec_id != BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED;
        h->has_statistics = !o->skip_page_statistics;
        header_statistics(c, page_min_max, &h->statistics);
        int32_t ordinal = (int32_t)(c->num_pages < INT32_MAX ? c->num_pages : INT32_MAX);
        st = emit_page(ctx, col, ordinal, &ph, ctx->levels.data, ctx->levels.size, body,
                       body_len, &c->pages, &total, err);
    }
    if (st != BASALT_OK)
        return st;
    st = add_page(c, col, ctx, (int64_t)page_start, (int32_t)total, page_min_max, err);
    if (st == BASALT_OK && c->num_pages == 1 && !o->simple_paths)
        st = reserve_chunk(c, ctx, err);
    if (st != BASALT_OK)
        return st;
    c->uncompressed += (int64_t)(total - (size_t)ph.compressed_page_size) +
                       ph.uncompressed_page_size;
    c->def.size = 0;
    c->def_ones = 0;
    c->rep.size = 0;
    c->pend_levels = 0;
    c->vals.size = 0;
    c->offs.size = 0;
    c->pend_rows = c->pend_values = c->pend_bytes = 0;
    return BASALT_OK;
}

static basalt_status write_bytes(struct basalt_output *out, int64_t *offset, const void *data,
                                 size_t len, struct basalt_error *err)
{
    basalt_status st = basalt_output_write(out, data, len, err);
    if (st == BASALT_OK)
        *offset += (int64_t)len;
    return st;
}

/* Whether the pages' bounds ascend (1), descend (2) or neither (0). */
static int32_t boundary_order(const struct basalt_parquet_wchunk *c,
                              const struct basalt_parquet_wcolumn *col)
{
    bool asc = true, desc = true;
    const struct basalt_parquet_wpage *prev = NULL;
    for (size_t i = 0; i < c->num_pages; i++) {
        const struct basalt_parquet_wpage *p = &c->page_list[i];
        if (p->null_page)
            continue;
        if (prev) {
            const uint8_t *b = c->bounds.data;
            int cmin = basalt_parquet_wcompare(col->order, b + prev->min_off, prev->min_len,
                                               b + p->min_off, p->min_len);
            int cmax = basalt_parquet_wcompare(col->order, b + prev->max_off, prev->max_len,
                                               b + p->max_off, p->max_len);
            if (cmin > 0 || cmax > 0)
                asc = false;
            if (cmin < 0 || cmax < 0)
                desc = false;
        }
        prev = p;
    }
    if (asc)
        return BASALT_PARQUET_BOUNDARY_ORDER_ASCENDING;
    if (desc)
        return BASALT_PARQUET_BOUNDARY_ORDER_DESCENDING;
    return BASALT_PARQUET_BOUNDARY_ORDER_UNORDERED;
}

/* Serializes one index with `encode` onto `dst`, through an encrypted
 * module for an encrypted column. */
static basalt_status put_index(const struct basalt_parquet_wcolumn *col,
                               struct basalt_parquet_wctx *ctx, int type, const void *index,
                               basalt_status (*encode)(const void *, struct basalt_buffer *,
                                                       struct basalt_error *),
                               struct basalt_buffer *dst, struct basalt_error *err)
{
    if (!col->cipher)
        return encode(index, dst, err);
    ctx->crypt.size = 0;
    basalt_status st = encode(index, &ctx->crypt, err);
    if (st == BASALT_OK)
        st = basalt_parquet_wcrypto_put(col, ctx, type, ctx->crypt.data, ctx->crypt.size, dst,
                                        err);
    return st;
}

static basalt_status encode_ci(const void *x, struct basalt_buffer *out, struct basalt_error *err)
{
    return basalt_thrift_encode_column_index(x, out, err);
}

static basalt_status encode_oi(const void *x, struct basalt_buffer *out, struct basalt_error *err)
{
    return basalt_thrift_encode_offset_index(x, out, err);
}

static basalt_status page_index(const struct basalt_parquet_wchunk *c,
                                const struct basalt_parquet_wcolumn *col,
                                struct basalt_parquet_wctx *ctx, int64_t data_offset,
                                struct basalt_buffer *ci, struct basalt_buffer *oi,
                                struct basalt_parquet_column_chunk *md, struct basalt_error *err)
{
    size_t n = c->num_pages;
    bool bounds = true;
    for (size_t i = 0; i < n; i++)
        if (!c->page_list[i].null_page && !c->page_list[i].has_bounds)
            bounds = false;
    struct basalt_parquet_page_location *loc = basalt_malloc((n + 1) * sizeof *loc);
    bool *nulls = basalt_malloc(n + 1);
    struct basalt_parquet_binary *mins = basalt_malloc((n + 1) * sizeof *mins);
    struct basalt_parquet_binary *maxs = basalt_malloc((n + 1) * sizeof *maxs);
    int64_t *null_counts = basalt_malloc((n + 1) * sizeof *null_counts);
    bool bytes = col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY;
    int64_t *unencoded = bytes ? basalt_malloc((n + 1) * sizeof *unencoded) : NULL;
    basalt_status st = BASALT_OK;
    if (!loc || !nulls || !mins || !maxs || !null_counts || (bytes && !unencoded))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (size_t i = 0; st == BASALT_OK && i < n; i++) {
        const struct basalt_parquet_wpage *p = &c->page_list[i];
        loc[i].offset = data_offset + p->offset;
        loc[i].compressed_page_size = p->compressed_size;
        loc[i].first_row_index = p->first_row;
        nulls[i] = p->null_page;
        null_counts[i] = p->null_count;
        mins[i].data = p->null_page ? NULL : c->bounds.data + p->min_off;
        mins[i].len = p->null_page ? 0 : p->min_len;
        maxs[i].data = p->null_page ? NULL : c->bounds.data + p->max_off;
        maxs[i].len = p->null_page ? 0 : p->max_len;
        if (unencoded)
            unencoded[i] = p->unencoded_bytes;
    }
    if (st == BASALT_OK && bounds) {
        struct basalt_parquet_column_index x;
        memset(&x, 0, sizeof x);
        x.null_pages = nulls;
        x.num_null_pages = n;
        x.min_values = mins;
        x.num_min_values = n;
        x.max_values = maxs;
        x.num_max_values = n;
        x.boundary_order = boundary_order(c, col);
        x.has_null_counts = true;
        x.null_counts = null_counts;
        x.num_null_counts = n;
        if (col->max_rep > 0) {
            x.has_repetition_level_histograms = true;
            x.repetition_level_histograms = (const int64_t *)(const void *)c->rep_hist.data;
            x.num_repetition_level_histograms = c->rep_hist.size / sizeof(int64_t);
        }
        if (col->max_def > 0) {
            x.has_definition_level_histograms = true;
            x.definition_level_histograms = (const int64_t *)(const void *)c->def_hist.data;
            x.num_definition_level_histograms = c->def_hist.size / sizeof(int64_t);
        }
        size_t before = ci->size;
        st = put_index(col, ctx, BASALT_PARQUET_MODULE_COLUMN_INDEX, &x, encode_ci, ci, err);
        if (st == BASALT_OK && ci->size - before > INT32_MAX)
            st = basalt_error_set(err, BASALT_LIMIT, "column index over 2 GiB");
        if (st == BASALT_OK) {
            md->has_column_index_offset = md->has_column_index_length = true;
            md->column_index_offset = (int64_t)before;
            md->column_index_length = (int32_t)(ci->size - before);
        }
    }
    if (st == BASALT_OK) {
        struct basalt_parquet_offset_index x;
        memset(&x, 0, sizeof x);
        x.page_locations = loc;
        x.num_page_locations = n;
        if (unencoded) {
            x.has_unencoded_byte_array_data_bytes = true;
            x.unencoded_byte_array_data_bytes = unencoded;
            x.num_unencoded_byte_array_data_bytes = n;
        }
        size_t before = oi->size;
        st = put_index(col, ctx, BASALT_PARQUET_MODULE_OFFSET_INDEX, &x, encode_oi, oi, err);
        if (st == BASALT_OK && oi->size - before > INT32_MAX)
            st = basalt_error_set(err, BASALT_LIMIT, "offset index over 2 GiB");
        if (st == BASALT_OK) {
            md->has_offset_index_offset = md->has_offset_index_length = true;
            md->offset_index_offset = (int64_t)before;
            md->offset_index_length = (int32_t)(oi->size - before);
        }
    }
    basalt_free(loc);
    basalt_free(nulls);
    basalt_free(mins);
    basalt_free(maxs);
    basalt_free(null_counts);
    basalt_free(unencoded);
    return st;
}

/* The histogram of levels 0..max over all pages (`hist`: one of max + 1
 * per page, concatenated) in `arena`; NULL when out of memory. */
static int64_t *hist_total(const struct basalt_buffer *hist, int16_t max,
                           struct basalt_arena *arena)
{
    size_t k = (size_t)max + 1;
    int64_t *sum = basalt_arena_alloc(arena, k * sizeof *sum, 8);
    if (!sum)
        return NULL;
    memset(sum, 0, k * sizeof *sum);
    const int64_t *h = (const int64_t *)(const void *)hist->data;
    size_t n = hist->size / sizeof(int64_t);
    for (size_t i = 0; i < n; i++)
        sum[i % k] += h[i];
    return sum;
}

/* ColumnMetaData.geospatial_statistics of a GEOMETRY or GEOGRAPHY chunk:
 * the bounding box and WKB types of its values (none when one was not
 * WKB). GEOGRAPHY gets its types only: its edges are curves on the sphere,
 * which leave the box of their vertices (a line across a pole reaches
 * latitude 90), and a box from the vertices would prune wrongly. */
static basalt_status geospatial_statistics(struct basalt_parquet_wchunk *c,
                                           const struct basalt_parquet_wcolumn *col,
                                           struct basalt_arena *arena,
                                           struct basalt_parquet_column_metadata *m,
                                           struct basalt_error *err)
{
    struct basalt_parquet_geospatial_statistics *g = basalt_arena_alloc(arena, sizeof *g, 8);
    int32_t *types = basalt_arena_alloc(arena, 32 * sizeof *types, 4);
    if (!g || !types)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (basalt_parquet_geo_bounds_statistics(&c->geo, g, types)) {
        if (col->element.logical_type.kind == BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY)
            g->has_bbox = false;
        m->has_geospatial_statistics = true;
        m->geospatial_statistics = g;
    }
    basalt_parquet_geo_bounds_init(&c->geo);
    return BASALT_OK;
}

/* ColumnMetaData.size_statistics: the values' bytes of a BYTE_ARRAY column
 * and the histograms of the levels that can vary. */
static basalt_status size_statistics(const struct basalt_parquet_wchunk *c,
                                      const struct basalt_parquet_wcolumn *col,
                                      struct basalt_arena *arena,
                                      struct basalt_parquet_column_metadata *m,
                                      struct basalt_error *err)
{
    struct basalt_parquet_size_statistics *z = &m->size_statistics;
    memset(z, 0, sizeof *z);
    if (col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY) {
        z->has_unencoded_byte_array_data_bytes = true;
        for (size_t i = 0; i < c->num_pages; i++)
            z->unencoded_byte_array_data_bytes += c->page_list[i].unencoded_bytes;
    }
    if (col->max_rep > 0) {
        z->repetition_level_histogram = hist_total(&c->rep_hist, col->max_rep, arena);
        if (!z->repetition_level_histogram)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        z->has_repetition_level_histogram = true;
        z->num_repetition_level_histogram = (size_t)col->max_rep + 1;
    }
    if (col->max_def > 0) {
        z->definition_level_histogram = hist_total(&c->def_hist, col->max_def, arena);
        if (!z->definition_level_histogram)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        z->has_definition_level_histogram = true;
        z->num_definition_level_histogram = (size_t)col->max_def + 1;
    }
    m->has_size_statistics = z->has_unencoded_byte_array_data_bytes ||
                             z->has_repetition_level_histogram ||
                             z->has_definition_level_histogram;
    return BASALT_OK;
}

/* An encrypted column's bloom filter: the header and the bitset as two
 * modules. */
static basalt_status encrypted_bloom(struct basalt_parquet_wchunk *c,
                                     const struct basalt_parquet_wcolumn *col,
                                     struct basalt_parquet_wctx *ctx, struct basalt_buffer *bloom,
                                     struct basalt_error *err)
{
    ctx->crypt.size = 0;
    basalt_status st =
        basalt_parquet_wbloom_build(&c->hashes, ctx->options->bloom_fpp, &ctx->crypt, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 256);
    struct basalt_parquet_bloom_filter_header h;
    size_t header_len = 0;
    st = basalt_thrift_decode_bloom_filter_header(ctx->crypt.data, ctx->crypt.size, &arena, NULL,
                                                  &h, &header_len, err);
    basalt_arena_reset(&arena);
    if (st == BASALT_OK)
        st = basalt_parquet_wcrypto_put(col, ctx, BASALT_PARQUET_MODULE_BLOOM_HEADER,
                                        ctx->crypt.data, header_len, bloom, err);
    if (st == BASALT_OK)
        st = basalt_parquet_wcrypto_put(col, ctx, BASALT_PARQUET_MODULE_BLOOM_BITSET,
                                        ctx->crypt.data + header_len,
                                        ctx->crypt.size - header_len, bloom, err);
    return st;
}

basalt_status basalt_parquet_wchunk_write(struct basalt_parquet_wchunk *c,
                                          const struct basalt_parquet_wcolumn *col,
                                          struct basalt_parquet_wctx *ctx,
                                          struct basalt_output *out, int64_t *offset,
                                          struct basalt_arena *arena,
                                          struct basalt_buffer *ci, struct basalt_buffer *oi,
                                          struct basalt_buffer *bloom,
                                          struct basalt_parquet_column_chunk *md,
                                          struct basalt_error *err)
{
    basalt_status st = basalt_parquet_wchunk_flush_page(c, col, ctx, true, err);
    if (st != BASALT_OK)
        return st;
    memset(md, 0, sizeof *md);
    struct basalt_parquet_column_metadata *m = &md->meta_data;
    int64_t start = *offset;
    int64_t uncompressed = c->uncompressed;
    if (c->used_dict) {
        const uint8_t *body = NULL;
        size_t body_len = 0, total = 0;
        st = compress(ctx, c->dict.values.data, c->dict.values.size, &body, &body_len, err);
        if (st != BASALT_OK)
            return st;
        if (c->dict.values.size > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "dictionary page over 2 GiB");
        struct basalt_parquet_page_header ph;
        memset(&ph, 0, sizeof ph);
        ph.type = BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE;
        ph.uncompressed_page_size = (int32_t)c->dict.values.size;
        ph.has_dictionary_page_header = true;
        ph.dictionary_page_header.num_values = (int32_t)c->dict.count;
        ph.dictionary_page_header.encoding = BASALT_PARQUET_ENCODING_PLAIN;
        struct basalt_buffer page;
        basalt_buffer_init(&page);
        st = emit_page(ctx, col, -1, &ph, NULL, 0, body, body_len, &page, &total, err);
        if (st == BASALT_OK)
            st = write_bytes(out, offset, page.data, page.size, err);
        basalt_buffer_reset(&page);
        if (st != BASALT_OK)
            return st;
        uncompressed += (int64_t)(total - body_len) + ph.uncompressed_page_size;
        m->has_dictionary_page_offset = true;
        m->dictionary_page_offset = start;
    }
    m->data_page_offset = *offset;
    st = write_bytes(out, offset, c->pages.data, c->pages.size, err);
    if (st != BASALT_OK)
        return st;
    m->type = col->physical;
    int32_t *encs = basalt_arena_alloc(arena, 4 * sizeof *encs, 4);
    if (!encs)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t ne = 0;
    if (c->used_dict || c->used_plain)
        encs[ne++] = BASALT_PARQUET_ENCODING_PLAIN;
    if (col->max_def > 0 || col->max_rep > 0 || c->used_dict)
        encs[ne++] = BASALT_PARQUET_ENCODING_RLE;
    if (c->used_dict)
        encs[ne++] = BASALT_PARQUET_ENCODING_RLE_DICTIONARY;
    if (c->used_other)
        encs[ne++] = c->other_encoding;
    if (ne == 0)
        encs[ne++] = BASALT_PARQUET_ENCODING_PLAIN;
    m->encodings = encs;
    m->num_encodings = ne;
    /* encoding_stats: the dictionary page, then the data pages by encoding */
    struct basalt_parquet_page_encoding_stats *es =
        basalt_arena_alloc(arena, 4 * sizeof *es, 8);
    if (!es)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t nes = 0;
    int32_t data_type = ctx->options->page_version == 2 ? BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2
                                                        : BASALT_PARQUET_PAGE_TYPE_DATA_PAGE;
    if (c->used_dict)
        es[nes++] = (struct basalt_parquet_page_encoding_stats){
            BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE, BASALT_PARQUET_ENCODING_PLAIN, 1};
    if (c->pages_dict)
        es[nes++] = (struct basalt_parquet_page_encoding_stats){
            data_type, BASALT_PARQUET_ENCODING_RLE_DICTIONARY, c->pages_dict};
    if (c->pages_plain)
        es[nes++] = (struct basalt_parquet_page_encoding_stats){
            data_type, BASALT_PARQUET_ENCODING_PLAIN, c->pages_plain};
    if (c->pages_other)
        es[nes++] = (struct basalt_parquet_page_encoding_stats){data_type, c->other_encoding,
                                                               c->pages_other};
    if (nes) {
        m->has_encoding_stats = true;
        m->encoding_stats = es;
        m->num_encoding_stats = nes;
    }
    m->path_in_schema = col->path;
    m->num_path_in_schema = col->path_len;
    m->codec = ctx->codec_id;
    m->num_values = c->num_values;
    m->total_uncompressed_size = uncompressed;
    m->total_compressed_size = *offset - start;
    struct basalt_buffer scratch;
    basalt_buffer_init(&scratch);
    st = basalt_parquet_wstats_finish(&c->stats, col, ctx->options->max_statistics_size,
                                      &scratch, &m->statistics, err);
    if (st == BASALT_OK) {
        struct basalt_parquet_statistics *s = &m->statistics;
        m->has_statistics = true;
        if (s->has_min_value) {
            uint8_t *p = basalt_arena_alloc(arena, s->min_value.len + 1, 1);
            if (p)
                memcpy(p, s->min_value.data, s->min_value.len);
            s->min_value.data = p;
        }
        if (s->has_max_value) {
            uint8_t *p = basalt_arena_alloc(arena, s->max_value.len + 1, 1);
            if (p)
                memcpy(p, s->max_value.data, s->max_value.len);
            s->max_value.data = p;
        }
        if ((s->has_min_value && !s->min_value.data) || (s->has_max_value && !s->max_value.data))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    basalt_buffer_reset(&scratch);
    if (st == BASALT_OK && col->geo)
        st = geospatial_statistics(c, col, arena, m, err);
    if (st != BASALT_OK)
        return st;
    st = size_statistics(c, col, arena, m, err);
    if (st != BASALT_OK)
        return st;
    md->file_offset = start;
    md->has_meta_data = true;
    if (ci && oi) {
        st = page_index(c, col, ctx, m->data_page_offset, ci, oi, md, err);
        if (st != BASALT_OK)
            return st;
    }
    if (col->bloom && bloom) {
        size_t before = bloom->size;
        if (col->cipher)
            st = encrypted_bloom(c, col, ctx, bloom, err);
        else
            st = basalt_parquet_wbloom_build(&c->hashes, ctx->options->bloom_fpp, bloom, err);
        if (st != BASALT_OK)
            return st;
        m->has_bloom_filter_offset = m->has_bloom_filter_length = true;
        m->bloom_filter_offset = (int64_t)before;
        m->bloom_filter_length = (int32_t)(bloom->size - before);
    }

    /* Ready for the next row group. */
    c->pages.size = 0;
    c->bounds.size = 0;
    c->hashes.size = 0;
    c->rep_hist.size = 0;
    c->def_hist.size = 0;
    c->num_pages = 0;
    basalt_parquet_wdict_clear(&c->dict);
    c->stats.has = false;
    c->stats.null_count = 0;
    c->dict_on = c->dict_decided = false;
    c->used_plain = c->used_dict = c->used_other = false;
    c->pages_plain = c->pages_dict = c->pages_other = 0;
    c->rows = c->num_values = c->uncompressed = 0;
    return BASALT_OK;
}
