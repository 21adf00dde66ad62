/* The codec object, names, levels and the checks every call shares; the
 * codecs themselves live in codec_<name>.c. */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <zstd.h>

#include "codec_internal.h"

struct codec_info {
    const char *name;
    const struct basalt_codec_backend *backend;
    bool has_levels;
    int level_min, level_max, level_default;
};

/* Defaults are the libraries' own except brotli: its default quality 11 runs
 * at a few MB/s, far too slow for data pages; 8 is Arrow's choice too. */
static const struct codec_info codec_infos[BASALT_CODEC_COUNT] = {
    [BASALT_CODEC_UNCOMPRESSED] = {"uncompressed", &basalt_codec_backend_uncompressed, false, 0, 0, 0},
    [BASALT_CODEC_SNAPPY] = {"snappy", &basalt_codec_backend_snappy, false, 0, 0, 0},
    [BASALT_CODEC_GZIP] = {"gzip", &basalt_codec_backend_gzip, true, 0, 12, 6},
    [BASALT_CODEC_ZLIB] = {"zlib", &basalt_codec_backend_zlib, true, 0, 12, 6},
    [BASALT_CODEC_DEFLATE] = {"deflate", &basalt_codec_backend_deflate, true, 0, 12, 6},
    [BASALT_CODEC_ZSTD] = {"zstd", &basalt_codec_backend_zstd, true, 0, 0, ZSTD_CLEVEL_DEFAULT},
    [BASALT_CODEC_LZ4_RAW] = {"lz4_raw", &basalt_codec_backend_lz4_raw, false, 0, 0, 0},
    [BASALT_CODEC_LZ4_HADOOP] = {"lz4_hadoop", &basalt_codec_backend_lz4_hadoop, false, 0, 0, 0},
    [BASALT_CODEC_BROTLI] = {"brotli", &basalt_codec_backend_brotli, true, 0, 11, 8},
    [BASALT_CODEC_BZIP2] = {"bzip2", &basalt_codec_backend_bzip2, true, 1, 9, 9},
    [BASALT_CODEC_XZ] = {"xz", &basalt_codec_backend_xz, true, 0, 9, 6},
    [BASALT_CODEC_LZ4_FRAME] = {"lz4_frame", &basalt_codec_backend_lz4_frame, false, 0, 0, 0},
};

static const struct {
    const char *alias;
    enum basalt_codec_kind kind;
} codec_aliases[] = {
    {"none", BASALT_CODEC_UNCOMPRESSED},
    {"gz", BASALT_CODEC_GZIP},
    {"lz4", BASALT_CODEC_LZ4_HADOOP},
    {"zstandard", BASALT_CODEC_ZSTD},
};

static bool kind_valid(enum basalt_codec_kind kind)
{
    return (int)kind >= 0 && (int)kind < BASALT_CODEC_COUNT;
}

const char *basalt_codec_name(enum basalt_codec_kind kind)
{
    return kind_valid(kind) ? codec_infos[kind].name : "unknown";
}

basalt_status basalt_codec_parse_name(const char *name, enum basalt_codec_kind *out,
                                      struct basalt_error *err)
{
    if (!name || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "codec name: NULL argument");
    for (int k = 0; k < BASALT_CODEC_COUNT; k++) {
        if (strcasecmp(name, codec_infos[k].name) == 0) {
            *out = (enum basalt_codec_kind)k;
            return BASALT_OK;
        }
    }
    for (size_t i = 0; i < sizeof codec_aliases / sizeof codec_aliases[0]; i++) {
        if (strcasecmp(name, codec_aliases[i].alias) == 0) {
            *out = codec_aliases[i].kind;
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "unknown codec '%s'", name);
}

static basalt_status resolve_level(enum basalt_codec_kind kind, int level, int *out,
                                   struct basalt_error *err)
{
    const struct codec_info *info = &codec_infos[kind];
    if (!info->has_levels || level == BASALT_CODEC_LEVEL_DEFAULT) {
        *out = info->level_default;
        return BASALT_OK;
    }
    int lo = info->level_min, hi = info->level_max;
    if (kind == BASALT_CODEC_ZSTD) {
        lo = ZSTD_minCLevel();
        hi = ZSTD_maxCLevel();
    }
    if (level < lo || level > hi)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: level %d is outside %d..%d",
                                info->name, level, lo, hi);
    *out = level;
    return BASALT_OK;
}

basalt_status basalt_codec_new(enum basalt_codec_kind kind, int level, struct basalt_codec **out,
                               struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "codec: NULL output pointer");
    *out = NULL;
    if (!kind_valid(kind))
        return basalt_error_set(err, BASALT_INVALID_ARG, "codec: unknown kind %d", (int)kind);
    int resolved = 0;
    basalt_status st = resolve_level(kind, level, &resolved, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_codec *codec = basalt_calloc(1, sizeof *codec);
    if (!codec)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory creating a codec",
                                codec_infos[kind].name);
    codec->kind = kind;
    codec->level = resolved;
    codec->backend = codec_infos[kind].backend;
    *out = codec;
    return BASALT_OK;
}

void basalt_codec_free(struct basalt_codec *codec)
{
    if (!codec)
        return;
    codec->backend->release(codec);
    basalt_free(codec);
}

enum basalt_codec_kind basalt_codec_kind_of(const struct basalt_codec *codec)
{
    return codec->kind;
}

uint64_t basalt_codec_contexts_created(const struct basalt_codec *codec)
{
    return codec->contexts_created;
}

size_t basalt_codec_max_compressed_size(const struct basalt_codec *codec, size_t src_len)
{
    return codec->backend->max_compressed_size(codec, src_len);
}

/* Backends never see NULL pointers: an empty range points here instead, so
 * libraries that reject NULL even with a zero length are satisfied. */
static uint8_t codec_empty[1];

static basalt_status check_buffers(const struct basalt_codec *codec, const void *src,
                                   size_t src_len, const void *dst, size_t dst_cap,
                                   const size_t *out_len, struct basalt_error *err)
{
    if (!codec || !out_len || (!src && src_len) || (!dst && dst_cap))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: NULL argument",
                                codec ? basalt_codec_name(codec->kind) : "codec");
    return BASALT_OK;
}

basalt_status basalt_codec_compress(struct basalt_codec *codec, const void *src, size_t src_len,
                                    void *dst, size_t dst_cap, size_t *out_len,
                                    struct basalt_error *err)
{
    basalt_status st = check_buffers(codec, src, src_len, dst, dst_cap, out_len, err);
    if (st != BASALT_OK)
        return st;
    *out_len = 0;
    return codec->backend->compress(codec, src ? src : codec_empty, src_len,
                                    dst ? dst : codec_empty, dst_cap, out_len, err);
}

static basalt_status empty_input(const struct basalt_codec *codec, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT, "%s: empty input", basalt_codec_name(codec->kind));
}

basalt_status basalt_codec_decompress(struct basalt_codec *codec, const void *src,
                                      size_t src_len, void *dst, size_t dst_cap,
                                      size_t *out_len, struct basalt_error *err)
{
    basalt_status st = check_buffers(codec, src, src_len, dst, dst_cap, out_len, err);
    if (st != BASALT_OK)
        return st;
    *out_len = 0;
    if (src_len == 0 && codec->kind != BASALT_CODEC_UNCOMPRESSED)
        return empty_input(codec, err);
    return codec->backend->decompress(codec, src ? src : codec_empty, src_len,
                                      dst ? dst : codec_empty, dst_cap, out_len, err);
}

basalt_status basalt_codec_decompress_grow(struct basalt_codec *codec, const void *src,
                                           size_t src_len, struct basalt_buffer *out,
                                           size_t limit, struct basalt_error *err)
{
    if (!codec || !out || (!src && src_len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: NULL argument",
                                codec ? basalt_codec_name(codec->kind) : "codec");
    const char *name = basalt_codec_name(codec->kind);
    if (out->size > limit)
        return basalt_error_set(err, BASALT_LIMIT,
                                "%s: buffer already holds %zu bytes, over the limit of %zu", name,
                                out->size, limit);
    if (src_len == 0 && codec->kind != BASALT_CODEC_UNCOMPRESSED)
        return empty_input(codec, err);
    size_t base = out->size;
    basalt_status st = codec->backend->decompress_grow(codec, src ? src : codec_empty, src_len,
                                                       out, limit, err);
    if (st != BASALT_OK)
        out->size = base;
    return st;
}

basalt_status basalt_codec_output_limit(struct basalt_error *err, const struct basalt_codec *codec,
                                        size_t dst_cap)
{
    return basalt_error_set(err, BASALT_LIMIT, "%s: output exceeds the limit of %zu bytes",
                            basalt_codec_name(codec->kind), dst_cap);
}

basalt_status basalt_codec_grow_room(struct basalt_buffer *out, size_t limit, size_t hint,
                                     const char *codec_name, size_t *room,
                                     struct basalt_error *err)
{
    if (out->size >= limit)
        return basalt_error_set(err, BASALT_LIMIT, "%s: output exceeds the limit of %zu bytes",
                                codec_name, limit);
    if (out->capacity == out->size) {
        size_t add = out->size > hint ? out->size : hint;
        if (add < 4096)
            add = 4096;
        if (add > limit - out->size)
            add = limit - out->size;
        basalt_status st = basalt_buffer_reserve(out, add, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "%s", codec_name);
    }
    size_t avail = out->capacity - out->size;
    *room = avail < limit - out->size ? avail : limit - out->size;
    return BASALT_OK;
}

basalt_status basalt_codec_grow_by_retry(struct basalt_codec *codec, const uint8_t *src,
                                         size_t src_len, struct basalt_buffer *out, size_t limit,
                                         size_t first_guess, struct basalt_error *err)
{
    size_t base = out->size, avail = limit - out->size;
    size_t cap = first_guess < 4096 ? 4096 : first_guess;
    if (cap > avail)
        cap = avail;
    for (;;) {
        basalt_status st = basalt_buffer_reserve(out, cap ? cap : 1, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "%s", basalt_codec_name(codec->kind));
        size_t got = 0;
        st = codec->backend->decompress(codec, src, src_len, out->data + base, cap, &got, err);
        if (st == BASALT_OK) {
            out->size = base + got;
            return BASALT_OK;
        }
        if (st != BASALT_LIMIT || cap == avail)
            return st;
        cap = cap > avail / 2 ? avail : cap * 2;
    }
}

void basalt_codec_sink_fixed(struct basalt_codec_sink *sink, uint8_t *dst, size_t cap)
{
    memset(sink, 0, sizeof *sink);
    sink->dst = dst;
    sink->cap = cap;
}

void basalt_codec_sink_grow(struct basalt_codec_sink *sink, struct basalt_buffer *buf,
                            size_t limit, size_t hint)
{
    memset(sink, 0, sizeof *sink);
    sink->buf = buf;
    sink->base = buf->size;
    sink->limit = limit;
    sink->hint = hint;
}

basalt_status basalt_codec_sink_room(struct basalt_codec_sink *sink,
                                     const struct basalt_codec *codec, uint8_t **ptr,
                                     size_t *room, struct basalt_error *err)
{
    sink->probing = false;
    if (sink->buf && sink->buf->size < sink->limit) {
        basalt_status st = basalt_codec_grow_room(sink->buf, sink->limit, sink->hint,
                                                  basalt_codec_name(codec->kind), room, err);
        if (st != BASALT_OK)
            return st;
        *ptr = sink->buf->data + sink->buf->size;
        return BASALT_OK;
    }
    if (!sink->buf && sink->len < sink->cap) {
        *ptr = sink->dst + sink->len;
        *room = sink->cap - sink->len;
        return BASALT_OK;
    }
    sink->probing = true;
    *ptr = &sink->probe;
    *room = 1;
    return BASALT_OK;
}

basalt_status basalt_codec_sink_commit(struct basalt_codec_sink *sink,
                                       const struct basalt_codec *codec, size_t n,
                                       struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    if (sink->probing)
        return basalt_codec_output_limit(err, codec, sink->buf ? sink->limit : sink->cap);
    if (sink->buf)
        sink->buf->size += n;
    else
        sink->len += n;
    return BASALT_OK;
}

size_t basalt_codec_sink_length(const struct basalt_codec_sink *sink)
{
    return sink->buf ? sink->buf->size - sink->base : sink->len;
}
