/* GZIP, ZLIB and raw DEFLATE through libdeflate. One compressor (for the
 * codec's level) and one decompressor per codec object, created on first use.
 *
 * libdeflate 1.14 only offers a process-wide allocator hook, which would be
 * hidden global state, so its contexts come from malloc. libdeflate decodes
 * whole buffers: decompress_grow retries with more room, and gzip reads the
 * size hint in the last member's trailer. */
#include <stdint.h>

#include <libdeflate.h>

#include "codec_internal.h"

enum deflate_format { FORMAT_GZIP, FORMAT_ZLIB, FORMAT_DEFLATE };

static enum deflate_format format_of(const struct basalt_codec *codec)
{
    switch (codec->kind) {
    case BASALT_CODEC_GZIP:
        return FORMAT_GZIP;
    case BASALT_CODEC_ZLIB:
        return FORMAT_ZLIB;
    default:
        return FORMAT_DEFLATE;
    }
}

static basalt_status deflate_encode(struct basalt_codec *codec, const uint8_t *src,
                                    size_t src_len, uint8_t *dst, size_t dst_cap, size_t *out_len,
                                    struct basalt_error *err)
{
    const char *name = basalt_codec_name(codec->kind);
    if (!codec->cctx) {
        codec->cctx = libdeflate_alloc_compressor(codec->level);
        if (!codec->cctx)
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory creating a compressor",
                                    name);
        codec->contexts_created++;
    }
    struct libdeflate_compressor *c = codec->cctx;
    size_t n;
    switch (format_of(codec)) {
    case FORMAT_GZIP:
        n = libdeflate_gzip_compress(c, src, src_len, dst, dst_cap);
        break;
    case FORMAT_ZLIB:
        n = libdeflate_zlib_compress(c, src, src_len, dst, dst_cap);
        break;
    default:
        n = libdeflate_deflate_compress(c, src, src_len, dst, dst_cap);
        break;
    }
    if (n == 0)
        return basalt_codec_output_limit(err, codec, dst_cap);
    *out_len = n;
    return BASALT_OK;
}

static basalt_status get_decompressor(struct basalt_codec *codec,
                                      struct libdeflate_decompressor **out,
                                      struct basalt_error *err)
{
    if (!codec->dctx) {
        codec->dctx = libdeflate_alloc_decompressor();
        if (!codec->dctx)
            return basalt_error_set(err, BASALT_NOMEM,
                                    "%s: out of memory creating a decompressor",
                                    basalt_codec_name(codec->kind));
        codec->contexts_created++;
    }
    *out = codec->dctx;
    return BASALT_OK;
}

static basalt_status map_result(const struct basalt_codec *codec, enum libdeflate_result r,
                                size_t dst_cap, int member, struct basalt_error *err)
{
    const char *name = basalt_codec_name(codec->kind);
    switch (r) {
    case LIBDEFLATE_SUCCESS:
        return BASALT_OK;
    case LIBDEFLATE_INSUFFICIENT_SPACE:
        return basalt_codec_output_limit(err, codec, dst_cap);
    default:
        if (member > 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "%s: member %d: invalid or truncated data", name, member);
        return basalt_error_set(err, BASALT_CORRUPT, "%s: invalid or truncated data", name);
    }
}

/* Concatenated gzip members decode to the concatenation of their contents
 * (RFC 1952 section 2.2), as gzip -d does; anything after them is corrupt. */
static basalt_status gzip_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_cap, size_t *out_len,
                                 struct basalt_error *err)
{
    struct libdeflate_decompressor *d = NULL;
    basalt_status st = get_decompressor(codec, &d, err);
    if (st != BASALT_OK)
        return st;
    size_t in = 0, out = 0;
    for (int member = 1; in < src_len; member++) {
        size_t used = 0, produced = 0;
        enum libdeflate_result r = libdeflate_gzip_decompress_ex(
            d, src + in, src_len - in, dst + out, dst_cap - out, &used, &produced);
        if (r != LIBDEFLATE_SUCCESS)
            return map_result(codec, r, dst_cap, member, err);
        in += used;
        out += produced;
    }
    *out_len = out;
    return BASALT_OK;
}

static basalt_status zlib_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_cap, size_t *out_len,
                                 struct basalt_error *err)
{
    struct libdeflate_decompressor *d = NULL;
    basalt_status st = get_decompressor(codec, &d, err);
    if (st != BASALT_OK)
        return st;
    size_t used = 0, produced = 0;
    enum libdeflate_result r =
        libdeflate_zlib_decompress_ex(d, src, src_len, dst, dst_cap, &used, &produced);
    if (r != LIBDEFLATE_SUCCESS)
        return map_result(codec, r, dst_cap, 0, err);
    if (used != src_len)
        return basalt_error_set(err, BASALT_CORRUPT, "zlib: %zu bytes after the end of the stream",
                                src_len - used);
    *out_len = produced;
    return BASALT_OK;
}

/* Bytes after the final block are ignored, as Java's Inflater does: Python's
 * Avro writer leaves three bytes of the zlib trailer behind its raw deflate. */
static basalt_status raw_deflate_decode(struct basalt_codec *codec, const uint8_t *src,
                                        size_t src_len, uint8_t *dst, size_t dst_cap,
                                        size_t *out_len, struct basalt_error *err)
{
    struct libdeflate_decompressor *d = NULL;
    basalt_status st = get_decompressor(codec, &d, err);
    if (st != BASALT_OK)
        return st;
    size_t used = 0, produced = 0;
    enum libdeflate_result r =
        libdeflate_deflate_decompress_ex(d, src, src_len, dst, dst_cap, &used, &produced);
    if (r != LIBDEFLATE_SUCCESS)
        return map_result(codec, r, dst_cap, 0, err);
    *out_len = produced;
    return BASALT_OK;
}

/* Deflate cannot expand past 1032:1 (a 258-byte match costs at least two
 * bits), so room beyond that is never needed: running out of it means the
 * input is corrupt, whatever the caller's limit. */
static basalt_status deflate_family_grow(struct basalt_codec *codec, const uint8_t *src,
                                         size_t src_len, struct basalt_buffer *out, size_t limit,
                                         size_t guess, struct basalt_error *err)
{
    size_t most = src_len > (SIZE_MAX - 1024) / 1032 ? SIZE_MAX : src_len * 1032 + 1024;
    bool clamped = most < limit - out->size;
    if (clamped)
        limit = out->size + most;
    basalt_status st = basalt_codec_grow_by_retry(codec, src, src_len, out, limit, guess, err);
    if (st == BASALT_LIMIT && clamped)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%s: output would pass deflate's largest possible expansion",
                                basalt_codec_name(codec->kind));
    return st;
}

static size_t guess_from_ratio(size_t src_len)
{
    return src_len > SIZE_MAX / 4 ? SIZE_MAX : src_len * 4;
}

static basalt_status gzip_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                      size_t src_len, struct basalt_buffer *out, size_t limit,
                                      struct basalt_error *err)
{
    /* ISIZE, the last member's length mod 2^32, is exact for the usual single
     * member under 4 GiB; the retry loop covers the rest. */
    size_t guess = guess_from_ratio(src_len);
    if (src_len >= 18) {
        const uint8_t *t = src + src_len - 4;
        size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
        if (isize > 0)
            guess = isize;
    }
    return deflate_family_grow(codec, src, src_len, out, limit, guess, err);
}

static basalt_status ratio_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                       size_t src_len, struct basalt_buffer *out, size_t limit,
                                       struct basalt_error *err)
{
    return deflate_family_grow(codec, src, src_len, out, limit, guess_from_ratio(src_len), err);
}

/* With a NULL compressor libdeflate bounds the output for every level. */
static size_t gzip_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    return libdeflate_gzip_compress_bound(NULL, src_len);
}

static size_t zlib_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    return libdeflate_zlib_compress_bound(NULL, src_len);
}

static size_t deflate_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    return libdeflate_deflate_compress_bound(NULL, src_len);
}

static void deflate_release(struct basalt_codec *codec)
{
    libdeflate_free_compressor(codec->cctx);
    libdeflate_free_decompressor(codec->dctx);
    codec->cctx = codec->dctx = NULL;
}

const struct basalt_codec_backend basalt_codec_backend_gzip = {
    .compress = deflate_encode,
    .decompress = gzip_decode,
    .decompress_grow = gzip_decode_grow,
    .max_compressed_size = gzip_bound,
    .release = deflate_release,
};

const struct basalt_codec_backend basalt_codec_backend_zlib = {
    .compress = deflate_encode,
    .decompress = zlib_decode,
    .decompress_grow = ratio_decode_grow,
    .max_compressed_size = zlib_bound,
    .release = deflate_release,
};

const struct basalt_codec_backend basalt_codec_backend_deflate = {
    .compress = deflate_encode,
    .decompress = raw_deflate_decode,
    .decompress_grow = ratio_decode_grow,
    .max_compressed_size = deflate_bound,
    .release = deflate_release,
};
