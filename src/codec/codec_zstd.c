/* ZSTD through libzstd: one ZSTD_CCtx and one ZSTD_DCtx per codec object,
 * created on first use with basalt's allocator and reused by every call.
 * Decompression accepts several concatenated frames (and skippable frames),
 * with or without a content size. */
#include <stdint.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, ZSTD_create*_advanced */
#include <zstd.h>
#include <zstd_errors.h>

#include "codec_internal.h"

static void *zstd_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return basalt_malloc(size);
}

static void zstd_free(void *opaque, void *address)
{
    (void)opaque;
    basalt_free(address);
}

static const ZSTD_customMem zstd_mem = {zstd_alloc, zstd_free, NULL};

static basalt_status zstd_fail(const struct basalt_codec *codec, size_t code, size_t dst_cap,
                               bool decoding, struct basalt_error *err)
{
    switch (ZSTD_getErrorCode(code)) {
    case ZSTD_error_dstSize_tooSmall:
        return basalt_codec_output_limit(err, codec, dst_cap);
    case ZSTD_error_memory_allocation:
        return basalt_error_set(err, BASALT_NOMEM, "zstd: out of memory");
    case ZSTD_error_frameParameter_windowTooLarge:
        return basalt_error_set(err, BASALT_LIMIT, "zstd: frame window exceeds the decoder's limit");
    default:
        return basalt_error_set(err, decoding ? BASALT_CORRUPT : BASALT_INTERNAL, "zstd: %s",
                                ZSTD_getErrorName(code));
    }
}

static basalt_status zstd_encode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_cap, size_t *out_len,
                                 struct basalt_error *err)
{
    if (!codec->cctx) {
        codec->cctx = ZSTD_createCCtx_advanced(zstd_mem);
        if (!codec->cctx)
            return basalt_error_set(err, BASALT_NOMEM, "zstd: out of memory creating a context");
        codec->contexts_created++;
    }
    size_t n = ZSTD_compressCCtx(codec->cctx, dst, dst_cap, src, src_len, codec->level);
    if (ZSTD_isError(n))
        return zstd_fail(codec, n, dst_cap, false, err);
    *out_len = n;
    return BASALT_OK;
}

static basalt_status get_dctx(struct basalt_codec *codec, ZSTD_DCtx **out,
                              struct basalt_error *err)
{
    if (!codec->dctx) {
        codec->dctx = ZSTD_createDCtx_advanced(zstd_mem);
        if (!codec->dctx)
            return basalt_error_set(err, BASALT_NOMEM, "zstd: out of memory creating a context");
        codec->contexts_created++;
    }
    *out = codec->dctx;
    return BASALT_OK;
}

static basalt_status zstd_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_cap, size_t *out_len,
                                 struct basalt_error *err)
{
    ZSTD_DCtx *d = NULL;
    basalt_status st = get_dctx(codec, &d, err);
    if (st != BASALT_OK)
        return st;
    size_t n = ZSTD_decompressDCtx(d, dst, dst_cap, src, src_len);
    if (ZSTD_isError(n))
        return zstd_fail(codec, n, dst_cap, true, err);
    *out_len = n;
    return BASALT_OK;
}

static basalt_status zstd_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                      size_t src_len, struct basalt_buffer *out, size_t limit,
                                      struct basalt_error *err)
{
    /* When every frame states its size, one exact single-pass decode. A
     * frame header is cheap to forge, so a size far beyond what the input
     * plausibly holds is not allocated up front: streaming grows the buffer
     * only as output materialises. */
    unsigned long long total = ZSTD_findDecompressedSize(src, src_len);
    if (total == ZSTD_CONTENTSIZE_ERROR)
        return basalt_error_set(err, BASALT_CORRUPT, "zstd: invalid frame header or frame sizes");
    if (total != ZSTD_CONTENTSIZE_UNKNOWN && total > limit - out->size)
        return basalt_error_set(err, BASALT_LIMIT,
                                "zstd: frames hold %llu bytes, over the limit of %zu", total,
                                limit);
    size_t plausible = src_len > SIZE_MAX / 256 ? SIZE_MAX : src_len * 256;
    if (total != ZSTD_CONTENTSIZE_UNKNOWN && (total <= plausible || total <= (16u << 20))) {
        size_t exact = (size_t)total;
        basalt_status st = basalt_buffer_reserve(out, exact ? exact : 1, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "zstd");
        size_t got = 0;
        st = zstd_decode(codec, src, src_len, out->data + out->size, exact, &got, err);
        if (st == BASALT_OK)
            out->size += got;
        return st;
    }

    ZSTD_DCtx *d = NULL;
    basalt_status st = get_dctx(codec, &d, err);
    if (st != BASALT_OK)
        return st;
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    ZSTD_inBuffer in = {src, src_len, 0};
    struct basalt_codec_sink sink;
    basalt_codec_sink_grow(&sink, out, limit, src_len * 4);
    for (;;) {
        uint8_t *ptr;
        size_t room;
        st = basalt_codec_sink_room(&sink, codec, &ptr, &room, err);
        if (st != BASALT_OK)
            return st;
        ZSTD_outBuffer o = {ptr, room, 0};
        size_t in_before = in.pos;
        /* 0 once a frame has ended and all its output is flushed. */
        size_t pending = ZSTD_decompressStream(d, &o, &in);
        if (ZSTD_isError(pending))
            return zstd_fail(codec, pending, limit, true, err);
        st = basalt_codec_sink_commit(&sink, codec, o.pos, err);
        if (st != BASALT_OK)
            return st;
        if (in.pos == in.size) {
            if (pending == 0)
                return BASALT_OK;
            if (o.pos < o.size)
                return basalt_error_set(err, BASALT_CORRUPT, "zstd: truncated frame");
        } else if (o.pos == 0 && in.pos == in_before) {
            return basalt_error_set(err, BASALT_CORRUPT, "zstd: decoder made no progress");
        }
    }
}

static size_t zstd_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    size_t n = ZSTD_compressBound(src_len);
    return ZSTD_isError(n) ? SIZE_MAX : n;
}

static void zstd_release(struct basalt_codec *codec)
{
    ZSTD_freeCCtx(codec->cctx);
    ZSTD_freeDCtx(codec->dctx);
    codec->cctx = codec->dctx = NULL;
}

const struct basalt_codec_backend basalt_codec_backend_zstd = {
    .compress = zstd_encode,
    .decompress = zstd_decode,
    .decompress_grow = zstd_decode_grow,
    .max_compressed_size = zstd_bound,
    .release = zstd_release,
};
