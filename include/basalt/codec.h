/* basalt codec: one whole-buffer API over every compression codec that
 * Parquet, Avro and Iceberg use.
 *
 * A `struct basalt_codec` holds the library context(s) for one codec and is
 * reused across calls; no call creates a context. Use one codec object per
 * thread (or per reader/writer object): it is not shareable. */
#ifndef BASALT_CODEC_H
#define BASALT_CODEC_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

enum basalt_codec_kind {
    BASALT_CODEC_UNCOMPRESSED = 0,
    BASALT_CODEC_SNAPPY,      /* raw snappy block (Parquet SNAPPY) */
    BASALT_CODEC_GZIP,        /* RFC 1952; decompression accepts several members */
    BASALT_CODEC_ZLIB,        /* RFC 1950 */
    BASALT_CODEC_DEFLATE,     /* RFC 1951 raw deflate (Avro "deflate") */
    BASALT_CODEC_ZSTD,        /* zstd frame(s) */
    BASALT_CODEC_LZ4_RAW,     /* bare LZ4 block (Parquet LZ4_RAW) */
    BASALT_CODEC_LZ4_HADOOP,  /* Parquet's deprecated LZ4: Hadoop framing, bare block fallback */
    BASALT_CODEC_BROTLI,
    BASALT_CODEC_BZIP2,
    BASALT_CODEC_XZ,          /* .xz container (Avro "xz") */
    BASALT_CODEC_COUNT
};

/* Level meaning "the codec's default". */
#define BASALT_CODEC_LEVEL_DEFAULT INT32_MIN

struct basalt_codec;

/* Lower-case name ("snappy", "lz4_raw", ...); static storage. */
BASALT_EXPORT const char *basalt_codec_name(enum basalt_codec_kind kind);
/* Parses a name (case-insensitive; also "none" for UNCOMPRESSED, "gz" for GZIP,
 * "lz4" for LZ4_HADOOP, "zstandard" for ZSTD). NOT_FOUND if unknown. */
BASALT_EXPORT basalt_status basalt_codec_parse_name(const char *name, enum basalt_codec_kind *out,
                                                    struct basalt_error *err);

/* Creates a codec object. `level` is codec-specific (zstd 1..22 and negative,
 * gzip/zlib/deflate 0..12, brotli 0..11, bzip2 1..9, xz 0..9) or
 * BASALT_CODEC_LEVEL_DEFAULT; codecs without levels ignore it. Contexts are
 * created lazily on first use and then reused.
 * Returns INVALID_ARG for an unknown kind or an out-of-range level, NOMEM. */
BASALT_EXPORT basalt_status basalt_codec_new(enum basalt_codec_kind kind, int level,
                                             struct basalt_codec **out, struct basalt_error *err);
BASALT_EXPORT void basalt_codec_free(struct basalt_codec *codec);
BASALT_EXPORT enum basalt_codec_kind basalt_codec_kind_of(const struct basalt_codec *codec);

/* Upper bound of the compressed size of `src_len` bytes: a destination this
 * large never makes basalt_codec_compress return LIMIT. */
BASALT_EXPORT size_t basalt_codec_max_compressed_size(const struct basalt_codec *codec,
                                                      size_t src_len);

/* Compresses src[0..src_len) into dst[0..dst_cap), storing the compressed
 * length in *out_len. LIMIT if dst_cap is too small; NOMEM; INTERNAL if the
 * library fails. */
BASALT_EXPORT basalt_status basalt_codec_compress(struct basalt_codec *codec, const void *src,
                                                  size_t src_len, void *dst, size_t dst_cap,
                                                  size_t *out_len, struct basalt_error *err);

/* Decompresses src[0..src_len) into dst[0..dst_cap), storing the number of
 * bytes produced in *out_len. dst_cap is the size limit: output that would
 * exceed it returns LIMIT and nothing is written past dst + dst_cap. Malformed
 * or truncated input returns CORRUPT. Callers that know the exact size (Parquet
 * pages) check *out_len against it. */
BASALT_EXPORT basalt_status basalt_codec_decompress(struct basalt_codec *codec, const void *src,
                                                    size_t src_len, void *dst, size_t dst_cap,
                                                    size_t *out_len, struct basalt_error *err);

/* Decompresses when the output size is not known in advance (Avro blocks):
 * appends the output to `out`, growing it, and returns LIMIT if it would pass
 * `limit` bytes in total. CORRUPT on malformed input. */
BASALT_EXPORT basalt_status basalt_codec_decompress_grow(struct basalt_codec *codec,
                                                         const void *src, size_t src_len,
                                                         struct basalt_buffer *out, size_t limit,
                                                         struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
