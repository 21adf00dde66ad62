/* BZIP2 through libbz2 (Avro's "bzip2").
 *
 * libbz2 cannot reset a bz_stream: every BZ2_bz*Init allocates the block
 * buffers afresh (through basalt's allocator here), so each call creates and
 * ends its own stream and there is no context to reuse. contexts_created
 * counts them. Decompression accepts concatenated streams, as bzip2 -d does
 * (pbzip2 writes them). */
#include <limits.h>
#include <stdint.h>

#include <bzlib.h>

#include "codec_internal.h"

static void *bz_alloc(void *opaque, int items, int size)
{
    (void)opaque;
    if (items < 0 || size < 0)
        return NULL;
    return basalt_malloc((size_t)items * (size_t)size);
}

static void bz_free(void *opaque, void *address)
{
    (void)opaque;
    basalt_free(address);
}

static void bz_stream_init(bz_stream *s)
{
    *s = (bz_stream){0};
    s->bzalloc = bz_alloc;
    s->bzfree = bz_free;
}

static unsigned int clamp_uint(size_t n)
{
    return n > UINT_MAX ? UINT_MAX : (unsigned int)n;
}

static basalt_status bzip2_encode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_cap, size_t *out_len,
                                  struct basalt_error *err)
{
    bz_stream s;
    bz_stream_init(&s);
    int r = BZ2_bzCompressInit(&s, codec->level, 0, 0);
    if (r != BZ_OK)
        return basalt_error_set(err, r == BZ_MEM_ERROR ? BASALT_NOMEM : BASALT_INTERNAL,
                                "bzip2: cannot start the encoder (%d)", r);
    codec->contexts_created++;
    size_t in = 0, out = 0;
    basalt_status st = BASALT_OK;
    for (;;) {
        if (s.avail_in == 0 && in < src_len) {
            s.next_in = (char *)(uintptr_t)(src + in);
            s.avail_in = clamp_uint(src_len - in);
            in += s.avail_in;
        }
        s.next_out = (char *)(dst + out);
        s.avail_out = clamp_uint(dst_cap - out);
        unsigned int in_before = s.avail_in, out_before = s.avail_out;
        /* BZ_FINISH only once the last of the input has been handed over. */
        r = BZ2_bzCompress(&s, in == src_len ? BZ_FINISH : BZ_RUN);
        out += out_before - s.avail_out;
        if (r == BZ_STREAM_END)
            break;
        /* Unfinished with the output full: the rest of a finishing stream
         * needs room, and a running one that cannot move needs it too. */
        bool stuck = s.avail_in == in_before && s.avail_out == out_before;
        if (out == dst_cap && r != BZ_MEM_ERROR && (r == BZ_FINISH_OK || stuck)) {
            st = basalt_codec_output_limit(err, codec, dst_cap);
            break;
        }
        if (r != BZ_RUN_OK && r != BZ_FINISH_OK) {
            st = basalt_error_set(err, r == BZ_MEM_ERROR ? BASALT_NOMEM : BASALT_INTERNAL,
                                  "bzip2: compression failed (%d)", r);
            break;
        }
    }
    BZ2_bzCompressEnd(&s);
    if (st == BASALT_OK)
        *out_len = out;
    return st;
}

static basalt_status bz_error(int r, struct basalt_error *err)
{
    switch (r) {
    case BZ_MEM_ERROR:
        return basalt_error_set(err, BASALT_NOMEM, "bzip2: out of memory");
    case BZ_DATA_ERROR_MAGIC:
        return basalt_error_set(err, BASALT_CORRUPT, "bzip2: not a bzip2 stream (bad magic)");
    case BZ_DATA_ERROR:
        return basalt_error_set(err, BASALT_CORRUPT, "bzip2: corrupt data or checksum mismatch");
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "bzip2: decoder error %d", r);
    }
}

static basalt_status bz_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                               struct basalt_codec_sink *sink, struct basalt_error *err)
{
    bz_stream s;
    bz_stream_init(&s);
    int r = BZ2_bzDecompressInit(&s, 0, 0);
    if (r != BZ_OK)
        return bz_error(r, err);
    codec->contexts_created++;
    size_t in = 0; /* input handed to the stream so far */
    basalt_status st = BASALT_OK;
    for (;;) {
        if (s.avail_in == 0 && in < src_len) {
            s.next_in = (char *)(uintptr_t)(src + in);
            s.avail_in = clamp_uint(src_len - in);
            in += s.avail_in;
        }
        uint8_t *ptr;
        size_t room;
        st = basalt_codec_sink_room(sink, codec, &ptr, &room, err);
        if (st != BASALT_OK)
            break;
        s.next_out = (char *)ptr;
        s.avail_out = clamp_uint(room);
        unsigned int in_before = s.avail_in, out_before = s.avail_out;
        r = BZ2_bzDecompress(&s);
        st = basalt_codec_sink_commit(sink, codec, out_before - s.avail_out, err);
        if (st != BASALT_OK)
            break;
        if (r == BZ_STREAM_END) {
            if (s.avail_in == 0 && in == src_len)
                break;
            /* Another stream follows: a fresh decoder over the rest. */
            char *next = s.next_in;
            unsigned int avail = s.avail_in;
            BZ2_bzDecompressEnd(&s);
            bz_stream_init(&s);
            r = BZ2_bzDecompressInit(&s, 0, 0);
            if (r != BZ_OK)
                return bz_error(r, err);
            codec->contexts_created++;
            s.next_in = next;
            s.avail_in = avail;
            continue;
        }
        if (r != BZ_OK) {
            st = bz_error(r, err);
            break;
        }
        if (s.avail_in == in_before && s.avail_out == out_before) {
            st = basalt_error_set(err, BASALT_CORRUPT,
                                  s.avail_in == 0 && in == src_len
                                      ? "bzip2: truncated stream"
                                      : "bzip2: decoder made no progress");
            break;
        }
    }
    BZ2_bzDecompressEnd(&s);
    return st;
}

static basalt_status bzip2_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_cap, size_t *out_len,
                                  struct basalt_error *err)
{
    struct basalt_codec_sink sink;
    basalt_codec_sink_fixed(&sink, dst, dst_cap);
    basalt_status st = bz_decode(codec, src, src_len, &sink, err);
    if (st == BASALT_OK)
        *out_len = basalt_codec_sink_length(&sink);
    return st;
}

static basalt_status bzip2_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                       size_t src_len, struct basalt_buffer *out, size_t limit,
                                       struct basalt_error *err)
{
    struct basalt_codec_sink sink;
    basalt_codec_sink_grow(&sink, out, limit, src_len * 4);
    return bz_decode(codec, src, src_len, &sink, err);
}

/* libbz2's documented guarantee: 1% more than the input plus 600 bytes. */
static size_t bzip2_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    if (src_len > SIZE_MAX - src_len / 100 - 600)
        return SIZE_MAX;
    return src_len + src_len / 100 + 600;
}

static void bzip2_release(struct basalt_codec *codec)
{
    (void)codec;
}

const struct basalt_codec_backend basalt_codec_backend_bzip2 = {
    .compress = bzip2_encode,
    .decompress = bzip2_decode,
    .decompress_grow = bzip2_decode_grow,
    .max_compressed_size = bzip2_bound,
    .release = bzip2_release,
};
