/* Split-block bloom filters (parquet-format BloomFilter.md): parsing the
 * serialized form, probing, and reading a column chunk's filter. */
#include <string.h>

#include "basalt/hash.h"
#include "parquet_reader.h"

#define BLOOM_MAX_BYTES ((size_t)128 << 20)

/* The eight odd constants of the specification, one per word of a block. */
static const uint32_t salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

uint64_t basalt_parquet_bloom_hash(const void *data, size_t len)
{
    return basalt_hash_xxh64(data, len, 0);
}

bool basalt_parquet_bloom_filter_check(const struct basalt_parquet_bloom_filter *bf, uint64_t hash)
{
    if (!bf || !bf->bitset || bf->num_bytes < 32)
        return true;
    uint64_t blocks = bf->num_bytes / 32;
    uint64_t block = ((hash >> 32) * blocks) >> 32;
    const uint8_t *b = bf->bitset + block * 32;
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        uint32_t bit = (key * salt[i]) >> 27;
        uint32_t word = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
                        (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
        if (!((word >> bit) & 1))
            return false;
    }
    return true;
}

/* Decodes and checks a header; *bitset_len is the bitset's size. */
static basalt_status parse_header(const uint8_t *data, size_t len, size_t *header_len,
                                  size_t *bitset_len, struct basalt_error *err)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 256);
    struct basalt_parquet_bloom_filter_header h;
    basalt_status st = basalt_thrift_decode_bloom_filter_header(data, len, &arena, NULL, &h,
                                                                header_len, err);
    basalt_arena_reset(&arena);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "bloom filter header");
    if (h.algorithm != BASALT_PARQUET_BLOOM_FILTER_ALGORITHM_BLOCK ||
        h.hash != BASALT_PARQUET_BLOOM_FILTER_HASH_XXHASH ||
        h.compression != BASALT_PARQUET_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "bloom filter: algorithm %d, hash %d, compression %d (only the "
                                "split-block XXH64 uncompressed filter is defined)",
                                (int)h.algorithm, (int)h.hash, (int)h.compression);
    if (h.num_bytes <= 0 || h.num_bytes % 32 != 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "bloom filter: %d bytes is not a positive multiple of 32",
                                (int)h.num_bytes);
    if ((size_t)h.num_bytes > BLOOM_MAX_BYTES)
        return basalt_error_set(err, BASALT_LIMIT, "bloom filter of %d bytes exceeds 128 MiB",
                                (int)h.num_bytes);
    *bitset_len = (size_t)h.num_bytes;
    return BASALT_OK;
}

basalt_status basalt_parquet_bloom_filter_parse(const void *data, size_t len,
                                                struct basalt_parquet_bloom_filter *out,
                                                size_t *consumed, struct basalt_error *err)
{
    if (!out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "bloom_filter_parse: NULL argument");
    memset(out, 0, sizeof *out);
    size_t header_len = 0, bitset_len = 0;
    basalt_status st = parse_header(data, len, &header_len, &bitset_len, err);
    if (st != BASALT_OK)
        return st;
    if (bitset_len > len - header_len)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "bloom filter: a %zu-byte bitset after a %zu-byte header does "
                                "not fit in %zu bytes",
                                bitset_len, header_len, len);
    out->bitset = (const uint8_t *)data + header_len;
    out->num_bytes = bitset_len;
    if (consumed)
        *consumed = header_len + bitset_len;
    return BASALT_OK;
}

void basalt_parquet_bloom_filter_reset(struct basalt_parquet_bloom_filter *bf)
{
    if (!bf)
        return;
    basalt_free(bf->owned);
    memset(bf, 0, sizeof *bf);
}

/* Decrypts the module of chunk (row_group, column) at file offset `off`
 * (`room` bytes there at most) into *plain (basalt_malloc'd). */
static basalt_status read_module(const struct basalt_parquet_reader *reader, int32_t row_group,
                                 int32_t column, int type, uint64_t off, uint64_t room,
                                 uint8_t **plain, size_t *plain_len, size_t *module_len,
                                 struct basalt_error *err)
{
    if (reader->view)
        return basalt_parquet_reader_decrypt_module(reader, row_group, column, type,
                                                    reader->view + off, (size_t)room, plain,
                                                    plain_len, module_len, err);
    uint8_t len[4];
    if (room < 4)
        return basalt_error_set(err, BASALT_CORRUPT, "encrypted %s runs past the data",
                                basalt_parquet_module_name(type));
    basalt_status st = basalt_input_read_at(reader->input, off, 4, len, err);
    if (st != BASALT_OK)
        return st;
    uint64_t n = 4 + ((uint64_t)len[0] | (uint64_t)len[1] << 8 | (uint64_t)len[2] << 16 |
                      (uint64_t)len[3] << 24);
    if (n > room)
        return basalt_error_set(err, BASALT_CORRUPT, "encrypted %s runs past the data",
                                basalt_parquet_module_name(type));
    uint8_t *buf = basalt_malloc((size_t)n);
    if (!buf)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a bloom filter");
    st = basalt_input_read_at(reader->input, off, n, buf, err);
    if (st == BASALT_OK)
        st = basalt_parquet_reader_decrypt_module(reader, row_group, column, type, buf,
                                                  (size_t)n, plain, plain_len, module_len, err);
    basalt_free(buf);
    return st;
}

/* An encrypted chunk's filter: the header and the bitset are two modules. */
static basalt_status encrypted_filter(const struct basalt_parquet_reader *reader,
                                      int32_t row_group, int32_t column, uint64_t off,
                                      uint64_t room, struct basalt_parquet_bloom_filter *out,
                                      struct basalt_error *err)
{
    uint8_t *header = NULL;
    size_t header_len = 0, module_len = 0, used = 0, bitset_len = 0;
    basalt_status st = read_module(reader, row_group, column, BASALT_PARQUET_MODULE_BLOOM_HEADER,
                                   off, room, &header, &header_len, &module_len, err);
    if (st != BASALT_OK)
        return st;
    st = parse_header(header, header_len, &used, &bitset_len, err);
    basalt_free(header);
    if (st != BASALT_OK)
        return st;
    size_t n = 0;
    st = read_module(reader, row_group, column, BASALT_PARQUET_MODULE_BLOOM_BITSET,
                     off + module_len, room - module_len, &out->owned, &n, NULL, err);
    if (st != BASALT_OK)
        return st;
    if (n != bitset_len) {
        basalt_parquet_bloom_filter_reset(out);
        return basalt_error_set(err, BASALT_CORRUPT,
                                "bloom filter: a %zu-byte bitset where the header says %zu", n,
                                bitset_len);
    }
    out->bitset = out->owned;
    out->num_bytes = n;
    return BASALT_OK;
}

/* Headers are a few bytes; this is plenty for one. */
#define BLOOM_HEADER_PROBE 256

basalt_status basalt_parquet_reader_bloom_filter(const struct basalt_parquet_reader *reader,
                                                 int32_t row_group, int32_t column,
                                                 struct basalt_parquet_bloom_filter *out,
                                                 struct basalt_error *err)
{
    if (!reader || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_bloom_filter: NULL argument");
    memset(out, 0, sizeof *out);
    const struct basalt_parquet_column_metadata *m = NULL;
    basalt_status st = basalt_parquet_reader_chunk_meta(reader, row_group, column, &m, err);
    if (st != BASALT_OK)
        return st;
    if (!m->has_bloom_filter_offset)
        return basalt_error_set(err, BASALT_NOT_FOUND, "column chunk has no bloom filter");
    int64_t off = m->bloom_filter_offset;
    if (off < 4 || (uint64_t)off >= reader->data_end)
        return basalt_error_set(err, BASALT_CORRUPT, "bloom filter offset %lld is outside the data",
                                (long long)off);
    uint64_t room = reader->data_end - (uint64_t)off;
    if (m->has_bloom_filter_length) {
        if (m->bloom_filter_length <= 0 || (uint64_t)m->bloom_filter_length > room)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "bloom filter [%lld, +%d) is outside the data",
                                    (long long)off, (int)m->bloom_filter_length);
        room = (uint64_t)m->bloom_filter_length;
    }
    if (basalt_parquet_reader_chunk_cipher(reader, row_group, column))
        return encrypted_filter(reader, row_group, column, (uint64_t)off, room, out, err);
    size_t header_len = 0, bitset_len = 0;
    if (reader->view) {
        const uint8_t *p = reader->view + off;
        st = parse_header(p, (size_t)room, &header_len, &bitset_len, err);
        if (st != BASALT_OK)
            return st;
        if (bitset_len > room - header_len)
            return basalt_error_set(err, BASALT_CORRUPT, "bloom filter runs past the data");
        out->bitset = p + header_len;
        out->num_bytes = bitset_len;
        return BASALT_OK;
    }
    uint8_t probe[BLOOM_HEADER_PROBE];
    size_t n = room < sizeof probe ? (size_t)room : sizeof probe;
    st = basalt_input_read_at(reader->input, (uint64_t)off, n, probe, err);
    if (st != BASALT_OK)
        return st;
    st = parse_header(probe, n, &header_len, &bitset_len, err);
    if (st != BASALT_OK)
        return st;
    if (bitset_len > room - header_len)
        return basalt_error_set(err, BASALT_CORRUPT, "bloom filter runs past the data");
    out->owned = basalt_malloc(bitset_len);
    if (!out->owned)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a bloom filter");
    st = basalt_input_read_at(reader->input, (uint64_t)off + header_len, bitset_len, out->owned,
                              err);
    if (st != BASALT_OK) {
        basalt_parquet_bloom_filter_reset(out);
        return st;
    }
    out->bitset = out->owned;
    out->num_bytes = bitset_len;
    return BASALT_OK;
}

basalt_status basalt_parquet_bloom_excludes(const struct basalt_parquet_reader *reader,
                                            int32_t row_group,
                                            const struct basalt_parquet_predicate *p,
                                            bool *absent, struct basalt_error *err)
{
    *absent = false;
    const struct basalt_parquet_schema_leaf *leaf = &reader->schema->leaves[p->leaf];
    uint8_t buf[16];
    const uint8_t *data = NULL;
    size_t len = 0;
    if (!basalt_parquet_predicate_plain(p, leaf, buf, &data, &len))
        return BASALT_OK;
    const struct basalt_parquet_column_metadata *m = NULL;
    basalt_status st = basalt_parquet_reader_chunk_meta(reader, row_group, p->leaf, &m, err);
    if (st != BASALT_OK)
        return st;
    if (!m->has_bloom_filter_offset)
        return BASALT_OK;
    struct basalt_parquet_bloom_filter bf;
    st = basalt_parquet_reader_bloom_filter(reader, row_group, p->leaf, &bf, err);
    if (st != BASALT_OK)
        return st;
    *absent = !basalt_parquet_bloom_filter_check(&bf, basalt_parquet_bloom_hash(data, len));
    basalt_parquet_bloom_filter_reset(&bf);
    return BASALT_OK;
}
