/* XZ through liblzma (Avro's "xz": the .xz container, CRC64 check).
 *
 * One lzma_stream for encoding and one for decoding per codec object, created
 * on first use with basalt's allocator. Re-initialising a stream that already
 * holds a coder of the same kind lets liblzma keep its big buffers (the
 * encoder's match finder, the decoder's dictionary), so only small per-stream
 * bookkeeping is allocated again. Decompression accepts concatenated .xz
 * streams and stream padding, as xz -d does. */
#include <limits.h>
#include <stdint.h>

#include <lzma.h>

#include "codec_internal.h"

static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
    (void)opaque;
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    return basalt_malloc(nmemb * size);
}

static void xz_free(void *opaque, void *ptr)
{
    (void)opaque;
    basalt_free(ptr);
}

static const lzma_allocator xz_allocator = {xz_alloc, xz_free, NULL};

static basalt_status get_stream(struct basalt_codec *codec, void **slot, lzma_stream **out,
                                struct basalt_error *err)
{
    if (!*slot) {
        lzma_stream *s = basalt_malloc(sizeof *s);
        if (!s)
            return basalt_error_set(err, BASALT_NOMEM, "xz: out of memory creating a stream");
        *s = (lzma_stream)LZMA_STREAM_INIT;
        s->allocator = &xz_allocator;
        *slot = s;
        codec->contexts_created++;
    }
    *out = *slot;
    return BASALT_OK;
}

static basalt_status xz_fail(lzma_ret r, bool decoding, struct basalt_error *err)
{
    switch (r) {
    case LZMA_MEM_ERROR:
        return basalt_error_set(err, BASALT_NOMEM, "xz: out of memory");
    case LZMA_MEMLIMIT_ERROR:
        return basalt_error_set(err, BASALT_LIMIT,
                                "xz: stream needs more than %llu MiB of decoder memory",
                                (unsigned long long)(BASALT_CODEC_XZ_MEMLIMIT >> 20));
    case LZMA_FORMAT_ERROR:
        return basalt_error_set(err, BASALT_CORRUPT, "xz: not an .xz stream");
    case LZMA_OPTIONS_ERROR:
        return basalt_error_set(err, decoding ? BASALT_UNSUPPORTED : BASALT_INTERNAL,
                                "xz: unsupported options");
    case LZMA_DATA_ERROR:
        return basalt_error_set(err, BASALT_CORRUPT, "xz: corrupt data or checksum mismatch");
    case LZMA_BUF_ERROR:
        return basalt_error_set(err, BASALT_CORRUPT, "xz: truncated stream");
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "xz: liblzma error %d", (int)r);
    }
}

static basalt_status xz_encode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                               uint8_t *dst, size_t dst_cap, size_t *out_len,
                               struct basalt_error *err)
{
    lzma_stream *s = NULL;
    basalt_status st = get_stream(codec, &codec->cctx, &s, err);
    if (st != BASALT_OK)
        return st;
    lzma_ret r = lzma_easy_encoder(s, (uint32_t)codec->level, LZMA_CHECK_CRC64);
    if (r != LZMA_OK)
        return xz_fail(r, false, err);
    s->next_in = src;
    s->avail_in = src_len;
    s->next_out = dst;
    s->avail_out = dst_cap;
    do
        r = lzma_code(s, LZMA_FINISH);
    while (r == LZMA_OK);
    if (r == LZMA_STREAM_END) {
        *out_len = dst_cap - s->avail_out;
        return BASALT_OK;
    }
    if (r != LZMA_BUF_ERROR)
        return xz_fail(r, false, err);
    /* Out of room. The streaming encoder stays within the single-call bound
     * in practice, but only the single-call encoder promises to (it falls back
     * to stored chunks), so a bound-sized destination gets that chance. */
    if (dst_cap < lzma_stream_buffer_bound(src_len))
        return basalt_codec_output_limit(err, codec, dst_cap);
    size_t pos = 0;
    r = lzma_easy_buffer_encode((uint32_t)codec->level, LZMA_CHECK_CRC64, &xz_allocator, src,
                                src_len, dst, &pos, dst_cap);
    if (r != LZMA_OK)
        return r == LZMA_BUF_ERROR ? basalt_codec_output_limit(err, codec, dst_cap)
                                   : xz_fail(r, false, err);
    *out_len = pos;
    return BASALT_OK;
}

static basalt_status xz_decode_into(struct basalt_codec *codec, const uint8_t *src,
                                    size_t src_len, struct basalt_codec_sink *sink,
                                    struct basalt_error *err)
{
    lzma_stream *s = NULL;
    basalt_status st = get_stream(codec, &codec->dctx, &s, err);
    if (st != BASALT_OK)
        return st;
    lzma_ret r = lzma_stream_decoder(s, BASALT_CODEC_XZ_MEMLIMIT, LZMA_CONCATENATED);
    if (r != LZMA_OK)
        return xz_fail(r, true, err);
    s->next_in = src;
    s->avail_in = src_len;
    for (;;) {
        uint8_t *ptr;
        size_t room;
        st = basalt_codec_sink_room(sink, codec, &ptr, &room, err);
        if (st != BASALT_OK)
            return st;
        s->next_out = ptr;
        s->avail_out = room;
        /* LZMA_FINISH: all input is here, so running dry is truncation, and
         * liblzma answers LZMA_BUF_ERROR when it can make no progress. */
        r = lzma_code(s, LZMA_FINISH);
        st = basalt_codec_sink_commit(sink, codec, room - s->avail_out, err);
        if (st != BASALT_OK)
            return st;
        if (r == LZMA_STREAM_END)
            return BASALT_OK;
        if (r != LZMA_OK)
            return xz_fail(r, true, err);
    }
}

static basalt_status xz_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                               uint8_t *dst, size_t dst_cap, size_t *out_len,
                               struct basalt_error *err)
{
    struct basalt_codec_sink sink;
    basalt_codec_sink_fixed(&sink, dst, dst_cap);
    basalt_status st = xz_decode_into(codec, src, src_len, &sink, err);
    if (st == BASALT_OK)
        *out_len = basalt_codec_sink_length(&sink);
    return st;
}

static basalt_status xz_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                    size_t src_len, struct basalt_buffer *out, size_t limit,
                                    struct basalt_error *err)
{
    struct basalt_codec_sink sink;
    basalt_codec_sink_grow(&sink, out, limit, src_len * 4);
    return xz_decode_into(codec, src, src_len, &sink, err);
}

static size_t xz_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    size_t n = lzma_stream_buffer_bound(src_len);
    return n == 0 ? SIZE_MAX : n;
}

static void xz_release(struct basalt_codec *codec)
{
    void *slots[2] = {codec->cctx, codec->dctx};
    for (int i = 0; i < 2; i++) {
        if (slots[i]) {
            lzma_end(slots[i]);
            basalt_free(slots[i]);
        }
    }
    codec->cctx = codec->dctx = NULL;
}

const struct basalt_codec_backend basalt_codec_backend_xz = {
    .compress = xz_encode,
    .decompress = xz_decode,
    .decompress_grow = xz_decode_grow,
    .max_compressed_size = xz_bound,
    .release = xz_release,
};
