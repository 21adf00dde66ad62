/* SNAPPY: raw snappy blocks through libsnappy's C API. Snappy has no context
 * to reuse: the decoder works in place and the encoder's scratch lives inside
 * the library. */
#include <stdint.h>
#include <string.h>

#include <snappy-c.h>

#include "codec_internal.h"

static basalt_status snappy_encode(struct basalt_codec *codec, const uint8_t *src,
                                   size_t src_len, uint8_t *dst, size_t dst_cap, size_t *out_len,
                                   struct basalt_error *err)
{
    /* The length preamble is a 32-bit varint. */
    if (src_len > UINT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "snappy: input of %zu bytes exceeds 4 GiB",
                                src_len);
    size_t bound = snappy_max_compressed_length(src_len);
    if (dst_cap >= bound) {
        size_t len = dst_cap;
        if (snappy_compress((const char *)src, src_len, (char *)dst, &len) != SNAPPY_OK)
            return basalt_error_set(err, BASALT_INTERNAL, "snappy: compression failed");
        *out_len = len;
        return BASALT_OK;
    }
    /* libsnappy insists on a worst-case sized destination even when the
     * output would fit, so a tight one goes through scratch. */
    char *scratch = basalt_malloc(bound);
    if (!scratch)
        return basalt_error_set(err, BASALT_NOMEM, "snappy: out of memory (%zu bytes)", bound);
    size_t len = bound;
    basalt_status st = BASALT_OK;
    if (snappy_compress((const char *)src, src_len, scratch, &len) != SNAPPY_OK)
        st = basalt_error_set(err, BASALT_INTERNAL, "snappy: compression failed");
    else if (len > dst_cap)
        st = basalt_codec_output_limit(err, codec, dst_cap);
    else {
        memcpy(dst, scratch, len);
        *out_len = len;
    }
    basalt_free(scratch);
    return st;
}

static basalt_status snappy_decode(struct basalt_codec *codec, const uint8_t *src,
                                   size_t src_len, uint8_t *dst, size_t dst_cap, size_t *out_len,
                                   struct basalt_error *err)
{
    size_t want;
    if (snappy_uncompressed_length((const char *)src, src_len, &want) != SNAPPY_OK)
        return basalt_error_set(err, BASALT_CORRUPT, "snappy: invalid length preamble");
    if (want > dst_cap)
        return basalt_error_set(err, BASALT_LIMIT,
                                "snappy: output of %zu bytes exceeds the limit of %zu bytes", want,
                                dst_cap);
    (void)codec;
    size_t len = dst_cap;
    if (snappy_uncompress((const char *)src, src_len, (char *)dst, &len) != SNAPPY_OK)
        return basalt_error_set(err, BASALT_CORRUPT, "snappy: invalid compressed data");
    *out_len = len;
    return BASALT_OK;
}

static basalt_status snappy_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                        size_t src_len, struct basalt_buffer *out, size_t limit,
                                        struct basalt_error *err)
{
    size_t want;
    if (snappy_uncompressed_length((const char *)src, src_len, &want) != SNAPPY_OK)
        return basalt_error_set(err, BASALT_CORRUPT, "snappy: invalid length preamble");
    if (want > limit - out->size)
        return basalt_error_set(err, BASALT_LIMIT,
                                "snappy: output of %zu bytes exceeds the limit of %zu bytes", want,
                                limit);
    /* A snappy element yields at most 64 bytes from a 3-byte copy, so an honest
     * preamble never claims more than about 22x the input: refuse a lying one
     * before allocating what it asks for. */
    if (want / 32 > src_len)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "snappy: preamble claims %zu bytes from %zu bytes of input", want,
                                src_len);
    basalt_status st = basalt_buffer_reserve(out, want ? want : 1, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "snappy");
    size_t got = 0;
    st = snappy_decode(codec, src, src_len, out->data + out->size, want, &got, err);
    if (st == BASALT_OK)
        out->size += got;
    return st;
}

static size_t snappy_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    if (src_len > UINT32_MAX)
        return SIZE_MAX;
    return snappy_max_compressed_length(src_len);
}

static void snappy_release(struct basalt_codec *codec)
{
    (void)codec;
}

const struct basalt_codec_backend basalt_codec_backend_snappy = {
    .compress = snappy_encode,
    .decompress = snappy_decode,
    .decompress_grow = snappy_decode_grow,
    .max_compressed_size = snappy_bound,
    .release = snappy_release,
};
