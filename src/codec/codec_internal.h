/* Internals of the codec module: the codec object, the per-codec backends and
 * the helpers they share. Visible to src/codec and to its tests only. */
#ifndef BASALT_CODEC_INTERNAL_H
#define BASALT_CODEC_INTERNAL_H

#include <stdint.h>

#include "basalt/codec.h"

struct basalt_codec;

/* One codec's implementation. Pointers reach the backend already checked:
 * src and dst are never NULL (an empty range points at a dummy byte) and src_len
 * is never 0 for decompression except for UNCOMPRESSED. */
struct basalt_codec_backend {
    basalt_status (*compress)(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                              uint8_t *dst, size_t dst_cap, size_t *out_len,
                              struct basalt_error *err);
    basalt_status (*decompress)(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                uint8_t *dst, size_t dst_cap, size_t *out_len,
                                struct basalt_error *err);
    /* Appends to `out` without letting out->size pass `limit`. On failure the
     * caller restores out->size, so a backend may leave partial output. */
    basalt_status (*decompress_grow)(struct basalt_codec *codec, const uint8_t *src,
                                     size_t src_len, struct basalt_buffer *out, size_t limit,
                                     struct basalt_error *err);
    /* SIZE_MAX when src_len is beyond what the codec can compress at all. */
    size_t (*max_compressed_size)(const struct basalt_codec *codec, size_t src_len);
    /* Frees cctx and dctx (either may be NULL). */
    void (*release)(struct basalt_codec *codec);
};

struct basalt_codec {
    enum basalt_codec_kind kind;
    int level; /* resolved: never BASALT_CODEC_LEVEL_DEFAULT */
    const struct basalt_codec_backend *backend;
    void *cctx; /* compression context, created by the first compress */
    void *dctx; /* decompression context, created by the first decompress */
    /* Library states created so far, persistent or per call; a test checks
     * that it stops growing once the contexts exist. */
    uint64_t contexts_created;
};

/* Number of library contexts this codec object has created (test hook). */
uint64_t basalt_codec_contexts_created(const struct basalt_codec *codec);

extern const struct basalt_codec_backend basalt_codec_backend_uncompressed;
extern const struct basalt_codec_backend basalt_codec_backend_snappy;
extern const struct basalt_codec_backend basalt_codec_backend_gzip;
extern const struct basalt_codec_backend basalt_codec_backend_zlib;
extern const struct basalt_codec_backend basalt_codec_backend_deflate;
extern const struct basalt_codec_backend basalt_codec_backend_zstd;
extern const struct basalt_codec_backend basalt_codec_backend_lz4_raw;
extern const struct basalt_codec_backend basalt_codec_backend_lz4_hadoop;
extern const struct basalt_codec_backend basalt_codec_backend_brotli;
extern const struct basalt_codec_backend basalt_codec_backend_bzip2;
extern const struct basalt_codec_backend basalt_codec_backend_xz;
extern const struct basalt_codec_backend basalt_codec_backend_lz4_frame;

/* Hadoop's Lz4Codec splits input at its 256 KiB buffer less the worst-case
 * expansion it reserves (size / 255 + 16); its decompressor expects blocks no
 * larger, so LZ4_HADOOP compression splits the same way. */
#define BASALT_CODEC_LZ4_HADOOP_BLOCK (256u * 1024u - (256u * 1024u / 255u + 16u))

/* Memory the xz decoder may use. A stream from `xz -9` needs 65 MiB; larger
 * dictionaries are refused with LIMIT rather than allocated on an input's say. */
#define BASALT_CODEC_XZ_MEMLIMIT ((uint64_t)512 << 20)

/* Makes room for streaming output at out->data + out->size: on return *room
 * (>= 1) bytes are writable without out->size passing `limit`. Grows the
 * buffer by at least `hint` bytes, roughly doubling. LIMIT naming `codec_name`
 * when out->size == limit; NOMEM. */
basalt_status basalt_codec_grow_room(struct basalt_buffer *out, size_t limit, size_t hint,
                                     const char *codec_name, size_t *room,
                                     struct basalt_error *err);

/* decompress_grow for codecs that can only decode a whole buffer: calls the
 * backend's decompress with `first_guess` bytes of room, doubling on LIMIT
 * until `limit`. */
basalt_status basalt_codec_grow_by_retry(struct basalt_codec *codec, const uint8_t *src,
                                         size_t src_len, struct basalt_buffer *out, size_t limit,
                                         size_t first_guess, struct basalt_error *err);

/* Where a streaming decoder writes: a caller's fixed buffer, or a growing
 * basalt_buffer bounded by a limit. Once the room allowed is used up, the
 * decoder is handed a private probe byte: output landing there means the data
 * does not fit (LIMIT), while a stream that ends without writing it fitted
 * exactly. This tells "too big" from "truncated" without guessing. */
struct basalt_codec_sink {
    uint8_t *dst; /* fixed buffer */
    size_t cap;
    size_t len;
    struct basalt_buffer *buf; /* growing buffer, when not NULL */
    size_t base;               /* buf->size at the start */
    size_t limit;
    size_t hint; /* first growth step */
    uint8_t probe;
    bool probing;
};

void basalt_codec_sink_fixed(struct basalt_codec_sink *sink, uint8_t *dst, size_t cap);
void basalt_codec_sink_grow(struct basalt_codec_sink *sink, struct basalt_buffer *buf,
                            size_t limit, size_t hint);
/* Room for the next decoder call (>= 1 byte, the probe when full). NOMEM. */
basalt_status basalt_codec_sink_room(struct basalt_codec_sink *sink,
                                     const struct basalt_codec *codec, uint8_t **ptr,
                                     size_t *room, struct basalt_error *err);
/* Records `n` bytes written at the pointer from sink_room; LIMIT if they
 * landed in the probe. */
basalt_status basalt_codec_sink_commit(struct basalt_codec_sink *sink,
                                       const struct basalt_codec *codec, size_t n,
                                       struct basalt_error *err);
/* Bytes produced so far. */
size_t basalt_codec_sink_length(const struct basalt_codec_sink *sink);

/* The LIMIT error of an output that does not fit. */
basalt_status basalt_codec_output_limit(struct basalt_error *err, const struct basalt_codec *codec,
                                        size_t dst_cap);

#endif
