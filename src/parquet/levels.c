/* Repetition and definition levels: to int16 arrays, to validity bitmaps,
 * the deprecated BIT_PACKED layout, and the encoder. */
#include <inttypes.h>

#include "parquet_encoding.h"

#define LEVEL_CHUNK 1024

basalt_status basalt_parquet_levels_init(struct basalt_parquet_rle_decoder *dec,
                                         const uint8_t *data, size_t len, int16_t max_level,
                                         uint64_t num_values, bool prefixed, size_t *consumed,
                                         struct basalt_error *err)
{
    if (max_level < 0) {
        memset(dec, 0, sizeof *dec);
        return basalt_error_set(err, BASALT_INVALID_ARG, "negative maximum level %d", max_level);
    }
    unsigned width = basalt_parquet_level_bit_width(max_level);
    if (prefixed)
        return basalt_parquet_rle_decoder_init_prefixed(dec, data, len, width, num_values,
                                                        consumed, err);
    if (consumed)
        *consumed = len;
    return basalt_parquet_rle_decoder_init(dec, data, len, width, num_values, err);
}

static basalt_status level_error(uint32_t level, int16_t max_level, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT, "level %" PRIu32 " exceeds the maximum %d",
                            level, max_level);
}

basalt_status basalt_parquet_levels_decode(struct basalt_parquet_rle_decoder *dec, uint64_t count,
                                           int16_t max_level, int16_t *out,
                                           struct basalt_error *err)
{
    if (count > basalt_parquet_rle_decoder_remaining(dec))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%" PRIu64 " levels wanted, %" PRIu64 " left", count,
                                basalt_parquet_rle_decoder_remaining(dec));
    const uint32_t max = max_level > 0 ? (uint32_t)max_level : 0;
    /* When every value the width can hold is a valid level (max 1, 3, 7...)
     * literals need no check at all. */
    const bool check = dec->bit_width < 32 && max < (UINT32_C(1) << dec->bit_width) - 1;
    uint32_t tmp[LEVEL_CHUNK];
    while (count) {
        struct basalt_parquet_rle_run run;
        basalt_status st = basalt_parquet_rle_decoder_next(dec, count < LEVEL_CHUNK ? count
                                                                                     : LEVEL_CHUNK,
                                                           &run, err);
        if (st != BASALT_OK)
            return st;
        size_t n = (size_t)run.count;
        if (run.kind == BASALT_PARQUET_RUN_REPEAT) {
            if (run.value > max)
                return level_error(run.value, max_level, err);
            int16_t v = (int16_t)run.value;
            for (size_t i = 0; i < n; i++)
                out[i] = v;
        } else {
            basalt_parquet_rle_run_unpack(dec, &run, tmp);
            if (check) {
                /* Levels are below 2^15: a signed compare, which vectorises. */
                int bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad |= (int32_t)tmp[i] > (int32_t)max;
                if (bad)
                    for (size_t i = 0; i < n; i++)
                        if (tmp[i] > max)
                            return level_error(tmp[i], max_level, err);
            }
            for (size_t i = 0; i < n; i++)
                out[i] = (int16_t)tmp[i];
        }
        out += n;
        count -= n;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_levels_decode_validity(struct basalt_parquet_rle_decoder *dec,
                                                    uint64_t count, uint8_t *validity,
                                                    int64_t offset, uint64_t *null_count,
                                                    struct basalt_error *err)
{
    uint64_t ones = 0;
    basalt_status st = basalt_parquet_rle_decode_bitmap(dec, count, validity, offset, &ones, err);
    if (null_count)
        *null_count = st == BASALT_OK ? count - ones : 0;
    return st;
}

basalt_status basalt_parquet_levels_decode_bit_packed(const uint8_t *data, size_t len,
                                                      uint64_t count, int16_t max_level,
                                                      int16_t *out, size_t *consumed,
                                                      struct basalt_error *err)
{
    if (max_level < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "negative maximum level %d", max_level);
    unsigned w = basalt_parquet_level_bit_width(max_level);
    if (w && count > (uint64_t)len * 8 / w)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "BIT_PACKED levels: %" PRIu64 " levels of %u bits need more than "
                                "the %zu bytes left",
                                count, w, len);
    uint64_t bit = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t v = 0;
        /* Most significant bit first, across byte boundaries. */
        for (unsigned b = 0; b < w; b++, bit++)
            v = v << 1 | ((data[bit >> 3] >> (7 - (bit & 7))) & 1u);
        if (v > (uint32_t)max_level)
            return level_error(v, max_level, err);
        out[i] = (int16_t)v;
    }
    if (consumed)
        *consumed = (size_t)((count * w + 7) / 8);
    return BASALT_OK;
}

basalt_status basalt_parquet_levels_encode(const int16_t *levels, size_t count, int16_t max_level,
                                           bool prefixed, struct basalt_buffer *out,
                                           struct basalt_error *err)
{
    if (max_level < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "negative maximum level %d", max_level);
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
    size_t i = 0;
    while (st == BASALT_OK && i < count) {
        int16_t v = levels[i];
        if (v < 0 || v > max_level) {
            st = basalt_error_set(err, BASALT_INVALID_ARG, "level %d outside [0, %d]", v,
                                  max_level);
            break;
        }
        size_t j = i + 1;
        while (j < count && levels[j] == v)
            j++;
        st = basalt_parquet_rle_encoder_put_run(&enc, (uint32_t)v, j - i, err);
        i = j;
    }
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
