/* DELTA_BINARY_PACKED.
 *
 * The decoder works a miniblock at a time, 32 values per step: one batch
 * unpack of the deltas, then a running sum. Full batches go straight to the
 * caller's array; a batch the caller wants only part of is decoded into the
 * decoder's 32-value buffer and handed out from there. All arithmetic is
 * unsigned, so it wraps as the format requires. */
#include <inttypes.h>

#include "parquet_encoding.h"

#define DELTA_MAX_BLOCK (UINT64_C(1) << 24)

basalt_status basalt_parquet_delta_decoder_init(struct basalt_parquet_delta_decoder *dec,
                                                const uint8_t *data, size_t len,
                                                unsigned type_bits, uint64_t num_values,
                                                struct basalt_error *err)
{
    memset(dec, 0, sizeof *dec);
    if (type_bits != 32 && type_bits != 64)
        return basalt_error_set(err, BASALT_INVALID_ARG, "delta values of %u bits", type_bits);
    data = basalt_parquet_nonnull(data);
    const uint8_t *p = data, *end = data + len;
    uint64_t block_size, miniblocks, total, first;
    if (!basalt_parquet_read_uleb(&p, end, &block_size) ||
        !basalt_parquet_read_uleb(&p, end, &miniblocks) ||
        !basalt_parquet_read_uleb(&p, end, &total) || !basalt_parquet_read_uleb(&p, end, &first))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "DELTA_BINARY_PACKED header is cut short or malformed");
    if (block_size == 0 || block_size % 128 != 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "DELTA_BINARY_PACKED block size %" PRIu64
                                " is not a positive multiple of 128",
                                block_size);
    if (block_size > DELTA_MAX_BLOCK)
        return basalt_error_set(err, BASALT_LIMIT,
                                "DELTA_BINARY_PACKED block size %" PRIu64 " exceeds %" PRIu64,
                                block_size, DELTA_MAX_BLOCK);
    if (miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "DELTA_BINARY_PACKED: %" PRIu64
                                " miniblocks do not split a block of %" PRIu64
                                " into multiples of 32",
                                miniblocks, block_size);
    if (num_values != UINT64_MAX && total != num_values)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "DELTA_BINARY_PACKED header holds %" PRIu64
                                " values, the page %" PRIu64,
                                total, num_values);
    dec->start = data;
    dec->pos = p;
    dec->end = end;
    dec->kernels = basalt_parquet_bitpack_best();
    dec->total = total;
    dec->values_left = total;
    dec->last = (uint64_t)basalt_parquet_zigzag_decode(first);
    dec->block_size = (uint32_t)block_size;
    dec->miniblocks = (uint32_t)miniblocks;
    dec->mb_values = (uint32_t)(block_size / miniblocks);
    dec->mb_index = dec->miniblocks; /* the first delta starts a block */
    dec->type_bits = (uint8_t)type_bits;
    dec->first_pending = total > 0;
    return BASALT_OK;
}

/* Makes the next miniblock current, reading a block header first when the
 * block is used up. `to_load` is how many values the stream still has beyond
 * those already unpacked; the miniblock keeps at most that many. */
static basalt_status delta_load_miniblock(struct basalt_parquet_delta_decoder *dec,
                                          uint64_t to_load, struct basalt_error *err)
{
    if (dec->mb_index == dec->miniblocks) {
        uint64_t zz;
        if (!basalt_parquet_read_uleb(&dec->pos, dec->end, &zz))
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "DELTA_BINARY_PACKED block header is cut short or "
                                    "malformed");
        if ((size_t)(dec->end - dec->pos) < dec->miniblocks)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "DELTA_BINARY_PACKED miniblock widths are cut short");
        dec->min_delta = (uint64_t)basalt_parquet_zigzag_decode(zz);
        dec->widths = dec->pos;
        dec->pos += dec->miniblocks;
        dec->mb_index = 0;
    }
    unsigned w = dec->widths[dec->mb_index++];
    if (w > dec->type_bits)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "DELTA_BINARY_PACKED miniblock bit width %u exceeds %u", w,
                                dec->type_bits);
    size_t bytes = (size_t)dec->mb_values / 8 * w;
    if ((size_t)(dec->end - dec->pos) < bytes)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "DELTA_BINARY_PACKED miniblock of %zu bytes runs past the %zu "
                                "bytes left",
                                bytes, (size_t)(dec->end - dec->pos));
    dec->mb_data = dec->pos;
    dec->mb_width = (uint8_t)w;
    dec->pos += bytes;
    dec->mb_left = (uint32_t)(to_load < dec->mb_values ? to_load : dec->mb_values);
    return BASALT_OK;
}

/* One batch of the current miniblock: `n` (<= 32) values into out, the
 * miniblock advanced by a whole batch. */
static void delta_batch_u64(struct basalt_parquet_delta_decoder *dec, uint64_t *out, unsigned n)
{
    uint64_t d[32];
    dec->kernels->unpack32_u64[dec->mb_width](dec->mb_data, d);
    uint64_t acc = dec->last, md = dec->min_delta;
    for (unsigned k = 0; k < n; k++) {
        acc += md + d[k];
        out[k] = acc;
    }
    dec->last = acc;
    dec->mb_data += 4 * (size_t)dec->mb_width;
    dec->mb_left -= n;
}

static void delta_batch_u32(struct basalt_parquet_delta_decoder *dec, uint32_t *out, unsigned n)
{
    uint32_t d[32];
    dec->kernels->unpack32_u32[dec->mb_width](dec->mb_data, d);
    uint32_t acc = (uint32_t)dec->last, md = (uint32_t)dec->min_delta;
    for (unsigned k = 0; k < n; k++) {
        acc += md + d[k];
        out[k] = acc;
    }
    dec->last = acc;
    dec->mb_data += 4 * (size_t)dec->mb_width;
    dec->mb_left -= n;
}

static basalt_status delta_want(const struct basalt_parquet_delta_decoder *dec, uint64_t n,
                                unsigned type_bits, struct basalt_error *err)
{
    if (dec->type_bits != type_bits)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "decoding %u-bit values from a %u-bit delta stream", type_bits,
                                dec->type_bits);
    if (n > dec->values_left)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%" PRIu64 " values wanted from a DELTA_BINARY_PACKED stream with "
                                "%" PRIu64 " left",
                                n, dec->values_left);
    return BASALT_OK;
}

/* Dense decoding of n values; type-generic through the two batch kernels. */
#define DELTA_DECODE_DENSE(name, T, UT, batch)                                      \
    static basalt_status name(struct basalt_parquet_delta_decoder *dec, uint64_t n, \
                              T *out, struct basalt_error *err)                     \
    {                                                                               \
        uint64_t i = 0;                                                             \
        if (n && dec->first_pending) {                                              \
            out[0] = (T)(UT)dec->last;                                              \
            dec->first_pending = false;                                             \
            dec->values_left--;                                                     \
            i = 1;                                                                  \
        }                                                                           \
        while (i < n) {                                                             \
            if (dec->buf_pos < dec->buf_len) {                                      \
                uint64_t m = dec->buf_len - dec->buf_pos;                           \
                if (m > n - i)                                                      \
                    m = n - i;                                                      \
                for (uint64_t k = 0; k < m; k++)                                    \
                    out[i + k] = (T)(UT)dec->buf[dec->buf_pos + k];                 \
                dec->buf_pos += (uint32_t)m;                                        \
                dec->values_left -= m;                                              \
                i += m;                                                             \
                continue;                                                           \
            }                                                                       \
            if (dec->mb_left == 0) {                                                \
                basalt_status st = delta_load_miniblock(dec, dec->values_left, err); \
                if (st != BASALT_OK)                                                \
                    return st;                                                      \
            }                                                                       \
            if (dec->mb_left >= 32 && n - i >= 32) {                                \
                batch(dec, (UT *)(void *)(out + i), 32);                            \
                dec->values_left -= 32;                                             \
                i += 32;                                                            \
            } else {                                                                \
                UT tmp[32];                                                         \
                unsigned m = dec->mb_left < 32 ? dec->mb_left : 32;                 \
                batch(dec, tmp, m);                                                 \
                for (unsigned k = 0; k < m; k++)                                    \
                    dec->buf[k] = tmp[k];                                           \
                dec->buf_pos = 0;                                                   \
                dec->buf_len = m;                                                   \
            }                                                                       \
        }                                                                           \
        return BASALT_OK;                                                           \
    }

DELTA_DECODE_DENSE(delta_dense_i32, int32_t, uint32_t, delta_batch_u32)
DELTA_DECODE_DENSE(delta_dense_i64, int64_t, uint64_t, delta_batch_u64)

basalt_status basalt_parquet_delta_decode_i32(struct basalt_parquet_delta_decoder *dec,
                                              uint64_t count, const uint8_t *validity,
                                              int64_t validity_offset, int32_t *out,
                                              struct basalt_error *err)
{
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    basalt_status st = delta_want(dec, n, 32, err);
    if (st == BASALT_OK)
        st = delta_dense_i32(dec, n, out, err);
    if (st == BASALT_OK && validity && n != count)
        basalt_parquet_spaced_expand_fixed((uint8_t *)out, sizeof *out, count, validity,
                                           validity_offset);
    return st;
}

basalt_status basalt_parquet_delta_decode_i64(struct basalt_parquet_delta_decoder *dec,
                                              uint64_t count, const uint8_t *validity,
                                              int64_t validity_offset, int64_t *out,
                                              struct basalt_error *err)
{
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    basalt_status st = delta_want(dec, n, 64, err);
    if (st == BASALT_OK)
        st = delta_dense_i64(dec, n, out, err);
    if (st == BASALT_OK && validity && n != count)
        basalt_parquet_spaced_expand_fixed((uint8_t *)out, sizeof *out, count, validity,
                                           validity_offset);
    return st;
}

basalt_status basalt_parquet_delta_decoder_skip(struct basalt_parquet_delta_decoder *dec,
                                                uint64_t count, struct basalt_error *err)
{
    /* Later values depend on every delta before them, so skipping decodes. */
    basalt_status st = delta_want(dec, count, dec->type_bits, err);
    uint64_t tmp[256];
    while (st == BASALT_OK && count) {
        uint64_t m = count < 256 ? count : 256;
        if (dec->type_bits == 32)
            st = delta_dense_i32(dec, m, (int32_t *)(void *)tmp, err);
        else
            st = delta_dense_i64(dec, m, (int64_t *)(void *)tmp, err);
        count -= m;
    }
    return st;
}

basalt_status basalt_parquet_delta_decoder_finish(struct basalt_parquet_delta_decoder *dec,
                                                  size_t *stream_len, struct basalt_error *err)
{
    /* Values never unpacked only need their miniblocks found, not read. */
    uint64_t future = dec->values_left - (dec->first_pending ? 1 : 0) -
                      (dec->buf_len - dec->buf_pos) - dec->mb_left;
    while (future) {
        basalt_status st = delta_load_miniblock(dec, future, err);
        if (st != BASALT_OK)
            return st;
        future -= dec->mb_left;
    }
    dec->values_left = 0;
    dec->first_pending = false;
    dec->buf_pos = dec->buf_len = 0;
    dec->mb_left = 0;
    *stream_len = (size_t)(dec->pos - dec->start);
    return BASALT_OK;
}

/* ---------------------------------------------------------------- encoder */

#define DELTA_ENC_BLOCK 128
#define DELTA_ENC_MINIBLOCKS 4
#define DELTA_ENC_MB_VALUES (DELTA_ENC_BLOCK / DELTA_ENC_MINIBLOCKS)

static inline int64_t delta_get(const int32_t *v32, const int64_t *v64, uint64_t i)
{
    return v32 ? v32[i] : v64[i];
}

/* For INT32 the deltas are taken modulo 2^32 and reinterpreted as int32, so
 * every miniblock fits in 32 bits. */
static basalt_status delta_encode(const int32_t *v32, const int64_t *v64, uint64_t n,
                                  struct basalt_buffer *out, struct basalt_error *err)
{
    const bool is32 = v32 != NULL;
    size_t start = out->size;
    basalt_status st = basalt_parquet_write_uleb(out, DELTA_ENC_BLOCK, err);
    if (st == BASALT_OK)
        st = basalt_parquet_write_uleb(out, DELTA_ENC_MINIBLOCKS, err);
    if (st == BASALT_OK)
        st = basalt_parquet_write_uleb(out, n, err);
    if (st == BASALT_OK)
        st = basalt_parquet_write_uleb(
            out, basalt_parquet_zigzag_encode(n ? delta_get(v32, v64, 0) : 0), err);
    for (uint64_t b = 1; st == BASALT_OK && b < n; b += DELTA_ENC_BLOCK) {
        unsigned m = n - b < DELTA_ENC_BLOCK ? (unsigned)(n - b) : DELTA_ENC_BLOCK;
        int64_t delta[DELTA_ENC_BLOCK] = {0};
        for (unsigned k = 0; k < m; k++) {
            uint64_t d = (uint64_t)delta_get(v32, v64, b + k) -
                         (uint64_t)delta_get(v32, v64, b + k - 1);
            delta[k] = is32 ? (int64_t)(int32_t)(uint32_t)d : (int64_t)d;
        }
        int64_t min = delta[0];
        for (unsigned k = 1; k < m; k++)
            min = delta[k] < min ? delta[k] : min;
        uint64_t rel[DELTA_ENC_BLOCK] = {0}; /* padding stays zero */
        for (unsigned k = 0; k < m; k++) {
            uint64_t r = (uint64_t)delta[k] - (uint64_t)min;
            rel[k] = is32 ? (uint32_t)r : r;
        }
        uint8_t widths[DELTA_ENC_MINIBLOCKS] = {0};
        size_t bytes = 0;
        for (unsigned mb = 0; mb < DELTA_ENC_MINIBLOCKS; mb++) {
            if (mb * DELTA_ENC_MB_VALUES >= m)
                break;
            uint64_t any = 0;
            for (unsigned k = 0; k < DELTA_ENC_MB_VALUES; k++)
                any |= rel[mb * DELTA_ENC_MB_VALUES + k];
            widths[mb] = (uint8_t)basalt_parquet_bit_width(any);
            bytes += (size_t)DELTA_ENC_MB_VALUES / 8 * widths[mb];
        }
        st = basalt_parquet_write_uleb(out, basalt_parquet_zigzag_encode(min), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(out, widths, sizeof widths, err);
        if (st == BASALT_OK)
            st = basalt_buffer_reserve(out, bytes, err);
        if (st != BASALT_OK)
            break;
        for (unsigned mb = 0; mb < DELTA_ENC_MINIBLOCKS; mb++) {
            if (mb * DELTA_ENC_MB_VALUES >= m)
                break;
            basalt_parquet_pack_u64(rel + mb * DELTA_ENC_MB_VALUES, DELTA_ENC_MB_VALUES,
                                    widths[mb], out->data + out->size);
            out->size += (size_t)DELTA_ENC_MB_VALUES / 8 * widths[mb];
        }
    }
    if (st != BASALT_OK)
        out->size = start;
    return st;
}

/* Nulls are compacted away into a scratch copy first. */
static basalt_status delta_encode_any(const int32_t *v32, const int64_t *v64, uint64_t count,
                                      const uint8_t *validity, int64_t validity_offset,
                                      struct basalt_buffer *out, struct basalt_error *err)
{
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    if (!validity || n == count)
        return delta_encode(v32, v64, n, out, err);
    size_t width = v32 ? sizeof *v32 : sizeof *v64;
    if (n > SIZE_MAX / width)
        return basalt_error_set(err, BASALT_LIMIT, "%" PRIu64 " values are too many", n);
    uint8_t *dense = basalt_malloc(n ? (size_t)n * width : 1);
    if (!dense)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for %" PRIu64 " delta values",
                                n);
    const uint8_t *src = v32 ? (const uint8_t *)v32 : (const uint8_t *)v64;
    uint64_t k = 0;
    for (uint64_t i = 0; i < count; i++)
        if (basalt_bitmap_get(validity, validity_offset + (int64_t)i))
            memcpy(dense + width * k++, src + width * i, width);
    basalt_status st = delta_encode(v32 ? (const int32_t *)(const void *)dense : NULL,
                                    v32 ? NULL : (const int64_t *)(const void *)dense, n, out,
                                    err);
    basalt_free(dense);
    return st;
}
basalt_status basalt_parquet_delta_encode_i32(const int32_t *values, uint64_t count,
                                              const uint8_t *validity, int64_t validity_offset,
                                              struct basalt_buffer *out, struct basalt_error *err)
{
    return delta_encode_any(values, NULL, count, validity, validity_offset, out, err);
}

basalt_status basalt_parquet_delta_encode_i64(const int64_t *values, uint64_t count,
                                              const uint8_t *validity, int64_t validity_offset,
                                              struct basalt_buffer *out, struct basalt_error *err)
{
    return delta_encode_any(NULL, values, count, validity, validity_offset, out, err);
}
