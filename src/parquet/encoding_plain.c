/* PLAIN: fixed-width values, bit-packed booleans, length-prefixed byte arrays. */
#include <inttypes.h>

#include "parquet_encoding.h"

#define PLAIN_CHUNK 512

void basalt_parquet_plain_decoder_init(struct basalt_parquet_plain_decoder *dec,
                                       const uint8_t *data, size_t len)
{
    dec->data = basalt_parquet_nonnull(data);
    dec->len = len;
    dec->pos = 0;
    dec->bit_pos = 0;
}

basalt_status basalt_parquet_plain_decode_fixed(struct basalt_parquet_plain_decoder *dec,
                                                size_t width, uint64_t count,
                                                const uint8_t *validity, int64_t validity_offset,
                                                void *out, struct basalt_error *err)
{
    if (width == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "PLAIN value width 0");
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    size_t left = dec->len - dec->pos;
    if (n > left / width)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "PLAIN data holds %zu values of %zu bytes, %" PRIu64 " wanted",
                                left / width, width, n);
    if (n)
        memcpy(out, dec->data + dec->pos, (size_t)n * width);
    dec->pos += (size_t)n * width;
    if (validity && n != count)
        basalt_parquet_spaced_expand_fixed(out, width, count, validity, validity_offset);
    return BASALT_OK;
}

basalt_status basalt_parquet_plain_decode_bool(struct basalt_parquet_plain_decoder *dec,
                                               uint64_t count, const uint8_t *validity,
                                               int64_t validity_offset, uint8_t *bits,
                                               int64_t offset, struct basalt_error *err)
{
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    /* Booleans and the byte-oriented types do not share a PLAIN stream, so
     * the bit position alone says where they are. */
    uint64_t left = (uint64_t)dec->len * 8 - dec->bit_pos;
    if (n > left)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "PLAIN data holds %" PRIu64 " booleans, %" PRIu64 " wanted", left,
                                n);
    basalt_bitmap_copy(bits, offset, dec->data, (int64_t)dec->bit_pos, (int64_t)n);
    dec->bit_pos += n;
    dec->pos = (size_t)((dec->bit_pos + 7) / 8);
    if (validity && n != count)
        basalt_parquet_spaced_expand_bits(bits, offset, count, validity, validity_offset);
    return BASALT_OK;
}

/* Pass 2 of a chunk: value i's bytes follow its 4-byte prefix; each is
 * copied and its end recorded.
 * Typed offsets pointer, so the copies cannot force reloads. */
#define PLAIN_COPY(T, o)                                                            \
    for (size_t i = 0; i < m; i++) {                                                \
        size_t len = lens[i];                                                       \
        src += 4;                                                                   \
        basalt_parquet_copy_value(dst + pos, src, len, (size_t)(in_end - src));     \
        src += len;                                                                 \
        pos += len;                                                                 \
        (o)[i] = (T)pos;                                                            \
    }

basalt_status basalt_parquet_plain_decode_binary(struct basalt_parquet_plain_decoder *dec,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 const struct basalt_parquet_binary_out *out,
                                                 struct basalt_error *err)
{
    uint64_t cap;
    basalt_status st = basalt_parquet_binary_out_limit(out, &cap, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer *data = out->data;
    if (data->size > cap)
        return basalt_error_set(err, BASALT_LIMIT,
                                "byte-array data would grow past %" PRIu64 " bytes", cap);
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    const uint8_t *in = dec->data;
    const uint8_t *in_end = dec->data + dec->len;
    if (out->offsets32)
        out->offsets32[0] = (int32_t)data->size;
    else
        out->offsets64[0] = (int64_t)data->size;
    uint32_t lens[PLAIN_CHUNK];
    uint64_t slot = 0;
    while (slot < n) {
        size_t m = n - slot < PLAIN_CHUNK ? (size_t)(n - slot) : PLAIN_CHUNK;
        /* Pass 1: walk the length prefixes, checking each against the input
         * and the running total against the cap. */
        size_t start = dec->pos, pos = start;
        uint64_t total = 0;
        uint64_t room = cap - data->size;
        for (size_t i = 0; i < m; i++) {
            if (dec->len - pos < 4)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "PLAIN byte array %" PRIu64 ": length cut short",
                                        slot + i);
            uint32_t len = basalt_parquet_load32(in + pos);
            pos += 4;
            if (len > dec->len - pos)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "PLAIN byte array %" PRIu64 " of %" PRIu32
                                        " bytes runs past the %zu bytes left",
                                        slot + i, len, dec->len - pos);
            pos += len;
            total += len;
            lens[i] = len;
        }
        if (total > room)
            return basalt_error_set(err, BASALT_LIMIT,
                                    "byte-array data would grow past %" PRIu64 " bytes", cap);
        st = basalt_buffer_reserve(data, (size_t)total + 32, err);
        if (st != BASALT_OK)
            return st;
        dec->pos = pos;
        uint8_t *dst = data->data;
        const uint8_t *src = in + start;
        pos = data->size;
        if (out->offsets32) {
            int32_t *o = out->offsets32 + slot + 1;
            PLAIN_COPY(int32_t, o);
        } else {
            int64_t *o = out->offsets64 + slot + 1;
            PLAIN_COPY(int64_t, o);
        }
        data->size = pos;
        slot += m;
    }
    if (validity && n != count) {
        if (out->offsets32)
            basalt_parquet_spaced_expand_offsets32(out->offsets32, count, validity,
                                                   validity_offset);
        else
            basalt_parquet_spaced_expand_offsets64(out->offsets64, count, validity,
                                                   validity_offset);
    }
    return BASALT_OK;
}

/* -------------------------------------------------------------- encoders */

basalt_status basalt_parquet_plain_encode_fixed(const void *values, size_t width, uint64_t count,
                                                const uint8_t *validity, int64_t validity_offset,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err)
{
    if (width == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "PLAIN value width 0");
    const uint8_t *v = values;
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    if (n > (SIZE_MAX - 64) / width)
        return basalt_error_set(err, BASALT_LIMIT, "%" PRIu64 " values are too many", n);
    if (n == 0)
        return BASALT_OK;
    basalt_status st = basalt_buffer_reserve(out, (size_t)n * width, err);
    if (st != BASALT_OK)
        return st;
    if (!validity || n == count) {
        memcpy(out->data + out->size, v, (size_t)n * width);
        out->size += (size_t)n * width;
        return BASALT_OK;
    }
    uint8_t *dst = out->data + out->size;
    for (uint64_t i = 0; i < count; i++) {
        if (basalt_bitmap_get(validity, validity_offset + (int64_t)i)) {
            memcpy(dst, v + i * width, width);
            dst += width;
        }
    }
    out->size += (size_t)n * width;
    return BASALT_OK;
}

basalt_status basalt_parquet_plain_encode_bool(const uint8_t *bits, int64_t offset, uint64_t count,
                                               const uint8_t *validity, int64_t validity_offset,
                                               struct basalt_buffer *out,
                                               struct basalt_error *err)
{
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    size_t nbytes = (size_t)((n + 7) / 8);
    if (nbytes == 0)
        return BASALT_OK;
    basalt_status st = basalt_buffer_reserve(out, nbytes, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *dst = out->data + out->size;
    memset(dst, 0, nbytes);
    if (!validity || n == count) {
        basalt_bitmap_copy(dst, 0, bits, offset, (int64_t)n);
    } else {
        int64_t k = 0;
        for (uint64_t i = 0; i < count; i++)
            if (basalt_bitmap_get(validity, validity_offset + (int64_t)i))
                basalt_bitmap_set(dst, k++, basalt_bitmap_get(bits, offset + (int64_t)i));
    }
    out->size += nbytes;
    return BASALT_OK;
}

static inline uint64_t view_offset(const struct basalt_parquet_binary_view *v, uint64_t i)
{
    return v->offsets32 ? (uint64_t)(int64_t)v->offsets32[i] : (uint64_t)v->offsets64[i];
}

basalt_status basalt_parquet_plain_encode_binary(const struct basalt_parquet_binary_view *values,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 struct basalt_buffer *out,
                                                 struct basalt_error *err)
{
    if ((!values->offsets32) == (!values->offsets64))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "byte-array input needs exactly one offsets array");
    size_t start = out->size;
    for (uint64_t i = 0; i < count; i++) {
        if (validity && !basalt_bitmap_get(validity, validity_offset + (int64_t)i))
            continue;
        uint64_t a = view_offset(values, i), b = view_offset(values, i + 1);
        uint64_t len = b - a;
        if (len > UINT32_MAX) {
            out->size = start;
            return basalt_error_set(err, BASALT_LIMIT,
                                    "byte array of %" PRIu64 " bytes is too long for PLAIN", len);
        }
        basalt_status st = basalt_buffer_reserve(out, 4 + (size_t)len, err);
        if (st != BASALT_OK) {
            out->size = start;
            return st;
        }
        uint32_t l32 = (uint32_t)len;
        memcpy(out->data + out->size, &l32, 4);
        if (len)
            memcpy(out->data + out->size + 4, values->data + a, (size_t)len);
        out->size += 4 + (size_t)len;
    }
    return BASALT_OK;
}
