/* Container file codecs: names, and decompression of one block. */
#include "basalt/hash.h"

#include "avro_ocf.h"

static const char *const codec_names[BASALT_AVRO_CODEC_COUNT] = {
    "null", "deflate", "snappy", "zstandard", "bzip2", "xz"};

const char *basalt_avro_codec_name(enum basalt_avro_codec codec)
{
    return (unsigned)codec < BASALT_AVRO_CODEC_COUNT ? codec_names[codec] : "unknown";
}

basalt_status basalt_avro_codec_parse(const char *name, size_t len, enum basalt_avro_codec *out,
                                      struct basalt_error *err)
{
    for (int i = 0; i < BASALT_AVRO_CODEC_COUNT; i++)
        if (strlen(codec_names[i]) == len && memcmp(codec_names[i], name, len) == 0) {
            *out = (enum basalt_avro_codec)i;
            return BASALT_OK;
        }
    if (len == 4 && memcmp(name, "zstd", 4) == 0) {
        *out = BASALT_AVRO_CODEC_ZSTANDARD;
        return BASALT_OK;
    }
    if (len == 4 && memcmp(name, "none", 4) == 0) {
        *out = BASALT_AVRO_CODEC_NULL;
        return BASALT_OK;
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "unknown codec '%.*s'",
                            (int)(len > 64 ? 64 : len), name);
}

enum basalt_codec_kind basalt_avro_codec_kind(enum basalt_avro_codec codec)
{
    switch (codec) {
    case BASALT_AVRO_CODEC_DEFLATE:
        return BASALT_CODEC_DEFLATE;
    case BASALT_AVRO_CODEC_SNAPPY:
        return BASALT_CODEC_SNAPPY;
    case BASALT_AVRO_CODEC_ZSTANDARD:
        return BASALT_CODEC_ZSTD;
    case BASALT_AVRO_CODEC_BZIP2:
        return BASALT_CODEC_BZIP2;
    case BASALT_AVRO_CODEC_XZ:
        return BASALT_CODEC_XZ;
    default:
        return BASALT_CODEC_UNCOMPRESSED;
    }
}

basalt_status basalt_avro_ocf_decompress(enum basalt_avro_codec kind, struct basalt_codec *codec,
                                         const uint8_t *src, size_t size, uint64_t limit,
                                         struct basalt_buffer *out, const uint8_t **data,
                                         size_t *data_size, struct basalt_error *err)
{
    if (kind == BASALT_AVRO_CODEC_NULL || size == 0) {
        /* An empty block needs no decompression whatever the codec. */
        *data = src;
        *data_size = size;
        return BASALT_OK;
    }
    out->size = 0;
    size_t in = size;
    if (kind == BASALT_AVRO_CODEC_SNAPPY) {
        if (size < 4)
            return basalt_error_set(err, BASALT_CORRUPT, "snappy block shorter than its checksum");
        in = size - 4;
    }
    /* Blocks do not record their size: start from the room the buffer has
     * from earlier blocks (or four times the input), double on LIMIT. */
    size_t most = limit > SIZE_MAX ? SIZE_MAX : (size_t)limit;
    bool clamped = false;
    if (kind == BASALT_AVRO_CODEC_DEFLATE && in < (SIZE_MAX - 1024) / 1032 &&
        in * 1032 + 1024 < most) {
        /* deflate expands at most 1032:1: more room than that is never needed */
        most = in * 1032 + 1024;
        clamped = true;
    }
    size_t cap = out->capacity;
    if (cap < in * 4 && in < SIZE_MAX / 4)
        cap = in * 4;
    if (cap < 65536)
        cap = 65536;
    if (cap > most)
        cap = most;
    basalt_status st;
    for (;;) {
        if ((st = basalt_buffer_reserve(out, cap, err)) != BASALT_OK)
            return st;
        size_t got = 0;
        st = basalt_codec_decompress(codec, src, in, out->data, cap, &got, err);
        if (st == BASALT_OK) {
            out->size = got;
            break;
        }
        if (st != BASALT_LIMIT)
            return st;
        if (cap == most)
            return clamped ? basalt_error_set(err, BASALT_CORRUPT,
                                              "deflate block would expand past 1032:1")
                           : basalt_error_set(err, BASALT_LIMIT,
                                              "block decompresses to more than %zu bytes", most);
        cap = cap > most / 2 ? most : cap * 2;
    }
    if (kind == BASALT_AVRO_CODEC_SNAPPY) {
        const uint8_t *c = src + in;
        uint32_t want = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
        uint32_t got = basalt_hash_crc32(0, out->data, out->size);
        if (got != want)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "snappy block checksum mismatch (CRC-32 %08x, expected %08x)",
                                    got, want);
    }
    *data = out->data ? out->data : src;
    *data_size = out->size;
    return BASALT_OK;
}
