/* BROTLI through libbrotlienc / libbrotlidec.
 *
 * libbrotli 1.0 has no way to reset an encoder or decoder state once a stream
 * has finished, so each call creates its state and destroys it: there is no
 * context to reuse. contexts_created counts them.
 *
 * The decoder allocates through basalt and reports failures. The encoder of
 * libbrotli 1.0 calls exit() when an allocation fails, so it is left on
 * malloc: handing it basalt's allocator would let the fault-injection hook
 * end the process. */
#include <stdint.h>

#include <brotli/decode.h>
#include <brotli/encode.h>

#include "codec_internal.h"

static void *brotli_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return basalt_malloc(size);
}

static void brotli_free(void *opaque, void *address)
{
    (void)opaque;
    basalt_free(address);
}

static basalt_status brotli_encode(struct basalt_codec *codec, const uint8_t *src,
                                   size_t src_len, uint8_t *dst, size_t dst_cap, size_t *out_len,
                                   struct basalt_error *err)
{
    BrotliEncoderState *s = BrotliEncoderCreateInstance(NULL, NULL, NULL);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "brotli: out of memory creating an encoder");
    codec->contexts_created++;
    BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)codec->level);
    if (src_len <= UINT32_MAX)
        BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, (uint32_t)src_len);
    size_t avail_in = src_len, avail_out = dst_cap;
    const uint8_t *next_in = src;
    uint8_t *next_out = dst;
    basalt_status st = BASALT_OK;
    while (!BrotliEncoderIsFinished(s)) {
        size_t out_before = avail_out, in_before = avail_in;
        /* With a valid operation the encoder only fails on allocation. */
        if (!BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &avail_in, &next_in,
                                         &avail_out, &next_out, NULL)) {
            st = basalt_error_set(err, BASALT_NOMEM, "brotli: out of memory compressing");
            break;
        }
        if (avail_out == 0 && out_before == 0 && avail_in == in_before &&
            !BrotliEncoderIsFinished(s)) {
            st = BASALT_LIMIT;
            break;
        }
    }
    BrotliEncoderDestroyInstance(s);
    if (st == BASALT_LIMIT) {
        /* The streaming encoder may overshoot the advertised bound on
         * incompressible input where the one-shot encoder falls back to
         * stored meta-blocks, so give a bound-sized destination that chance.
         * It allocates with malloc, inside libbrotli. */
        size_t n = dst_cap;
        if (dst_cap >= BrotliEncoderMaxCompressedSize(src_len) &&
            BrotliEncoderCompress(codec->level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                                  src_len, src, &n, dst)) {
            *out_len = n;
            return BASALT_OK;
        }
        return basalt_codec_output_limit(err, codec, dst_cap);
    }
    if (st == BASALT_OK)
        *out_len = dst_cap - avail_out;
    return st;
}

static basalt_status decoder_error(BrotliDecoderState *s, struct basalt_error *err)
{
    BrotliDecoderErrorCode code = BrotliDecoderGetErrorCode(s);
    /* The allocation failures are the codes from _ERROR_ALLOC_CONTEXT_MODES
     * (-21) down to _ERROR_ALLOC_BLOCK_TYPE_TREES (-30). */
    if (code <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
        code >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES)
        return basalt_error_set(err, BASALT_NOMEM, "brotli: out of memory decoding");
    return basalt_error_set(err, BASALT_CORRUPT, "brotli: %s",
                            BrotliDecoderErrorString(code));
}

/* Called once the decoder reports success: input left over is corrupt. */
static basalt_status decoder_finished(size_t avail_in, struct basalt_error *err)
{
    if (avail_in != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "brotli: %zu bytes after the end of the stream",
                                avail_in);
    return BASALT_OK;
}

static basalt_status brotli_decode_into(struct basalt_codec *codec, const uint8_t *src,
                                        size_t src_len, struct basalt_codec_sink *sink,
                                        struct basalt_error *err)
{
    BrotliDecoderState *s = BrotliDecoderCreateInstance(brotli_alloc, brotli_free, NULL);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "brotli: out of memory creating a decoder");
    codec->contexts_created++;
    size_t avail_in = src_len;
    const uint8_t *next_in = src;
    basalt_status st;
    for (;;) {
        uint8_t *ptr;
        size_t room;
        st = basalt_codec_sink_room(sink, codec, &ptr, &room, err);
        if (st != BASALT_OK)
            break;
        size_t avail_out = room;
        BrotliDecoderResult r =
            BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &ptr, NULL);
        st = basalt_codec_sink_commit(sink, codec, room - avail_out, err);
        if (st != BASALT_OK)
            break;
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT && avail_out < room)
            continue;
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT)
            st = basalt_error_set(err, BASALT_CORRUPT, "brotli: decoder made no progress");
        else if (r == BROTLI_DECODER_RESULT_SUCCESS)
            st = decoder_finished(avail_in, err);
        else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
            st = basalt_error_set(err, BASALT_CORRUPT, "brotli: truncated stream");
        else
            st = decoder_error(s, err);
        break;
    }
    BrotliDecoderDestroyInstance(s);
    return st;
}

static basalt_status brotli_decode(struct basalt_codec *codec, const uint8_t *src,
                                   size_t src_len, uint8_t *dst, size_t dst_cap, size_t *out_len,
                                   struct basalt_error *err)
{
    struct basalt_codec_sink sink;
    basalt_codec_sink_fixed(&sink, dst, dst_cap);
    basalt_status st = brotli_decode_into(codec, src, src_len, &sink, err);
    if (st == BASALT_OK)
        *out_len = basalt_codec_sink_length(&sink);
    return st;
}

static basalt_status brotli_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                        size_t src_len, struct basalt_buffer *out, size_t limit,
                                        struct basalt_error *err)
{
    struct basalt_codec_sink sink;
    basalt_codec_sink_grow(&sink, out, limit, src_len * 4);
    return brotli_decode_into(codec, src, src_len, &sink, err);
}

static size_t brotli_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    size_t n = BrotliEncoderMaxCompressedSize(src_len);
    return n == 0 ? SIZE_MAX : n;
}

static void brotli_release(struct basalt_codec *codec)
{
    (void)codec;
}

const struct basalt_codec_backend basalt_codec_backend_brotli = {
    .compress = brotli_encode,
    .decompress = brotli_decode,
    .decompress_grow = brotli_decode_grow,
    .max_compressed_size = brotli_bound,
    .release = brotli_release,
};
