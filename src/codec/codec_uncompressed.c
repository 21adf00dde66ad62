/* UNCOMPRESSED: a copy, so that callers need no special case. */
#include <string.h>

#include "codec_internal.h"

static basalt_status copy_bounded(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_cap, size_t *out_len,
                                  struct basalt_error *err)
{
    if (src_len > dst_cap)
        return basalt_codec_output_limit(err, codec, dst_cap);
    if (src_len)
        memcpy(dst, src, src_len);
    *out_len = src_len;
    return BASALT_OK;
}

static basalt_status append_bounded(struct basalt_codec *codec, const uint8_t *src,
                                    size_t src_len, struct basalt_buffer *out, size_t limit,
                                    struct basalt_error *err)
{
    if (src_len > limit - out->size)
        return basalt_codec_output_limit(err, codec, limit);
    basalt_status st = basalt_buffer_append(out, src, src_len, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "uncompressed");
    return BASALT_OK;
}

static size_t identity_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    return src_len;
}

static void release_nothing(struct basalt_codec *codec)
{
    (void)codec;
}

const struct basalt_codec_backend basalt_codec_backend_uncompressed = {
    .compress = copy_bounded,
    .decompress = copy_bounded,
    .decompress_grow = append_bounded,
    .max_compressed_size = identity_bound,
    .release = release_nothing,
};
