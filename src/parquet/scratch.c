/* The column decoder's reusable state: codecs, scratch buffers, the arena
 * page headers decode into. */
#include <inttypes.h>

#include "parquet_column.h"

/* Page headers carry statistics whose bounds are copied into the arena. It
 * is emptied between chunks only once it holds this much, so that decoding
 * chunk after chunk does not free and allocate its block every time. */
#define SCRATCH_ARENA_KEEP ((size_t)1 << 20)

basalt_status basalt_parquet_scratch_new(struct basalt_parquet_scratch **out,
                                         struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scratch: NULL output");
    struct basalt_parquet_scratch *s = basalt_calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "scratch: out of memory");
    for (int i = 0; i < BASALT_PARQUET_SCRATCH_COUNT; i++)
        basalt_buffer_init(&s->buffers[i]);
    basalt_arena_init(&s->arena, 16 * 1024);
    return BASALT_OK;
}

void basalt_parquet_scratch_free(struct basalt_parquet_scratch *scratch)
{
    if (!scratch)
        return;
    for (int i = 0; i < BASALT_CODEC_COUNT; i++)
        basalt_codec_free(scratch->codecs[i]);
    for (int i = 0; i < BASALT_PARQUET_SCRATCH_COUNT; i++)
        basalt_buffer_reset(&scratch->buffers[i]);
    basalt_arena_reset(&scratch->arena);
    basalt_free(scratch);
}

void basalt_parquet_scratch_get_stats(const struct basalt_parquet_scratch *scratch,
                                      struct basalt_parquet_scratch_stats *out)
{
    if (!out)
        return;
    if (scratch)
        *out = scratch->stats;
    else
        memset(out, 0, sizeof *out);
}

basalt_status basalt_parquet_scratch_reserve(struct basalt_parquet_scratch *scratch, int which,
                                             size_t bytes, uint8_t **out,
                                             struct basalt_error *err)
{
    struct basalt_buffer *b = &scratch->buffers[which];
    b->size = 0;
    if (bytes > b->capacity) {
        /* Nothing is kept: free first so old and new never coexist. */
        basalt_buffer_reset(b);
        basalt_status st = basalt_buffer_reserve(b, bytes, err);
        if (st != BASALT_OK) {
            *out = NULL;
            return st;
        }
        scratch->stats.scratch_grows++;
    }
    *out = b->data;
    return BASALT_OK;
}

void basalt_parquet_scratch_trim(struct basalt_parquet_scratch *scratch)
{
    if (scratch->arena.bytes_used > SCRATCH_ARENA_KEEP) {
        basalt_arena_reset(&scratch->arena);
        basalt_arena_init(&scratch->arena, 16 * 1024);
    }
}

basalt_status basalt_parquet_scratch_codec(struct basalt_parquet_scratch *scratch, int32_t codec,
                                           struct basalt_codec **out, struct basalt_error *err)
{
    enum basalt_codec_kind kind;
    *out = NULL;
    switch (codec) {
    case BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED: return BASALT_OK;
    case BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY: kind = BASALT_CODEC_SNAPPY; break;
    case BASALT_PARQUET_COMPRESSION_CODEC_GZIP: kind = BASALT_CODEC_GZIP; break;
    case BASALT_PARQUET_COMPRESSION_CODEC_BROTLI: kind = BASALT_CODEC_BROTLI; break;
    case BASALT_PARQUET_COMPRESSION_CODEC_LZ4: kind = BASALT_CODEC_LZ4_HADOOP; break;
    case BASALT_PARQUET_COMPRESSION_CODEC_ZSTD: kind = BASALT_CODEC_ZSTD; break;
    case BASALT_PARQUET_COMPRESSION_CODEC_LZ4_RAW: kind = BASALT_CODEC_LZ4_RAW; break;
    case BASALT_PARQUET_COMPRESSION_CODEC_LZO:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "LZO compression is not supported");
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "unknown compression codec %" PRId32,
                                codec);
    }
    if (!scratch->codecs[kind]) {
        basalt_status st =
            basalt_codec_new(kind, BASALT_CODEC_LEVEL_DEFAULT, &scratch->codecs[kind], err);
        if (st != BASALT_OK)
            return st;
    }
    *out = scratch->codecs[kind];
    return BASALT_OK;
}
