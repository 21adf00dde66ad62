/* basalt codec: one whole-buffer API over every compression codec that
 * Parquet, Avro and Iceberg use.
 *
 * A `struct basalt_codec` holds the library context(s) for one codec and is
 * reused across calls; no call creates a context, except for BROTLI and BZIP2
 * whose libraries cannot reset a finished stream (each call makes its own).
 * Use one codec object per thread (or per reader/writer object): it is not
 * shareable. Different objects may be used from different threads at once.
 *
 * Decompression never trusts the input: malformed or truncated data returns
 * CORRUPT with a message that starts with the codec's name, output that does
 * not fit returns LIMIT, and sizes stated inside the data are trusted only as
 * far as the input could back them. Empty input is CORRUPT for every codec but
 * UNCOMPRESSED. */
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
    BASALT_CODEC_DEFLATE,     /* RFC 1951 raw deflate (Avro "deflate"); bytes after the
                                 final block are ignored, as Java's Inflater does */
    BASALT_CODEC_ZSTD,        /* zstd frame(s), with or without content size */
    BASALT_CODEC_LZ4_RAW,     /* bare LZ4 block (Parquet LZ4_RAW) */
    BASALT_CODEC_LZ4_HADOOP,  /* Parquet's deprecated LZ4: Hadoop framing, then a bare
                                 block, then LZ4 frames (older writers) on decompression */
    BASALT_CODEC_BROTLI,
    BASALT_CODEC_BZIP2,       /* concatenated streams accepted */
    BASALT_CODEC_XZ,          /* .xz container (Avro "xz"), CRC64; concatenated streams
                                 accepted; streams needing over 512 MiB to decode are LIMIT */
    BASALT_CODEC_LZ4_FRAME,   /* LZ4 frame format (Arrow IPC LZ4_FRAME); concatenated and
                                 skippable frames accepted */
    BASALT_CODEC_COUNT
};

/* Level meaning "the codec's default". */
#define BASALT_CODEC_LEVEL_DEFAULT INT32_MIN

struct basalt_codec;

/* Lower-case name ("snappy", "lz4_raw", "lz4_hadoop", ...); static storage;
 * "unknown" for a value outside the enum. */
BASALT_EXPORT const char *basalt_codec_name(enum basalt_codec_kind kind);
/* Parses a name (case-insensitive; also "none" for UNCOMPRESSED, "gz" for GZIP,
 * "lz4" for LZ4_HADOOP, "zstandard" for ZSTD). NOT_FOUND if unknown. */
BASALT_EXPORT basalt_status basalt_codec_parse_name(const char *name, enum basalt_codec_kind *out,
                                                    struct basalt_error *err);

/* Creates a codec object in *out (set to NULL on failure). `level` is
 * codec-specific (zstd ZSTD_minCLevel()..22, 0 meaning zstd's default;
 * gzip/zlib/deflate 0..12; brotli 0..11; bzip2 1..9; xz 0..9) or
 * BASALT_CODEC_LEVEL_DEFAULT (zstd 3, deflate family 6, brotli 8, bzip2 9,
 * xz 6); codecs without levels ignore it. Contexts are created lazily on first
 * use and then reused. Release with basalt_codec_free.
 * Returns INVALID_ARG for an unknown kind, an out-of-range level or a NULL
 * `out`; NOMEM. */
BASALT_EXPORT basalt_status basalt_codec_new(enum basalt_codec_kind kind, int level,
                                             struct basalt_codec **out, struct basalt_error *err);
/* Frees the object and its contexts. NULL is a no-op. */
BASALT_EXPORT void basalt_codec_free(struct basalt_codec *codec);
BASALT_EXPORT enum basalt_codec_kind basalt_codec_kind_of(const struct basalt_codec *codec);

/* Upper bound of the compressed size of `src_len` bytes: a destination this
 * large never makes basalt_codec_compress return LIMIT for want of room.
 * LZ4_HADOOP counts 8 header bytes per block. SIZE_MAX when src_len is more
 * than the codec can compress at all (LZ4 blocks stop near 2 GiB, snappy at
 * 4 GiB). */
BASALT_EXPORT size_t basalt_codec_max_compressed_size(const struct basalt_codec *codec,
                                                      size_t src_len);

/* Compresses src[0..src_len) into dst[0..dst_cap), storing the compressed
 * length in *out_len. src and dst are borrowed; src may be NULL when src_len
 * is 0, dst when dst_cap is 0. GZIP writes one member, LZ4_HADOOP one Hadoop
 * block per 261100 input bytes (Hadoop's default split), XZ a CRC64 stream.
 * LIMIT if dst_cap is too small (dst contents are then unspecified) or the
 * input exceeds the codec's maximum; INVALID_ARG for NULL pointers; NOMEM;
 * INTERNAL if the library fails. */
BASALT_EXPORT basalt_status basalt_codec_compress(struct basalt_codec *codec, const void *src,
                                                  size_t src_len, void *dst, size_t dst_cap,
                                                  size_t *out_len, struct basalt_error *err);

/* Decompresses src[0..src_len) into dst[0..dst_cap), storing the number of
 * bytes produced in *out_len. dst_cap is the size limit: output that would
 * exceed it returns LIMIT and nothing is written past dst + dst_cap. Malformed
 * or truncated input returns CORRUPT; well-formed input using options the
 * library lacks (an xz filter) UNSUPPORTED; INVALID_ARG for NULL pointers;
 * NOMEM. Callers that know the exact size (Parquet pages) check *out_len
 * against it. On failure dst contents are unspecified. */
BASALT_EXPORT basalt_status basalt_codec_decompress(struct basalt_codec *codec, const void *src,
                                                    size_t src_len, void *dst, size_t dst_cap,
                                                    size_t *out_len, struct basalt_error *err);

/* Decompresses when the output size is not known in advance (Avro blocks):
 * appends the output to `out` (caller storage, grown as needed) and returns
 * LIMIT if out->size would pass `limit`, which counts the bytes `out` already
 * held. On any failure out->size is restored (the capacity may have grown).
 * Room grows with the output (or, for gzip/zlib/deflate, by doubling within
 * deflate's largest possible expansion), so a bomb stops at the limit.
 * Statuses as for decompress. */
BASALT_EXPORT basalt_status basalt_codec_decompress_grow(struct basalt_codec *codec,
                                                         const void *src, size_t src_len,
                                                         struct basalt_buffer *out, size_t limit,
                                                         struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
