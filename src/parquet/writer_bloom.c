/* Split-block bloom filters of written column chunks (parquet-format
 * BloomFilter.md): 32-byte blocks of eight 32-bit words; a value sets one bit
 * in each word of the block its hash selects. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/hash.h"
#include "parquet_writer.h"

#define BLOOM_MIN_BYTES 32
#define BLOOM_MAX_BYTES (128u << 20)

static const uint32_t bloom_salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                       0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

basalt_status basalt_parquet_wbloom_hash_values(struct basalt_buffer *hashes,
                                                const struct basalt_parquet_wcolumn *col,
                                                const struct basalt_parquet_wvalues *v,
                                                struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(hashes, (size_t)v->count * 8, err);
    if (st != BASALT_OK)
        return st;
    uint64_t *out = (uint64_t *)(void *)(hashes->data + hashes->size);
    for (uint64_t i = 0; i < v->count; i++) {
        if (col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY) {
            int64_t b = v->binary.offsets64[i], e = v->binary.offsets64[i + 1];
            out[i] = basalt_hash_xxh64(basalt_parquet_nonnull(v->binary.data) + b, (size_t)(e - b),
                                       0);
        } else {
            out[i] = basalt_hash_xxh64((const uint8_t *)v->fixed + i * col->width, col->width, 0);
        }
    }
    hashes->size += (size_t)v->count * 8;
    return BASALT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Bytes for `ndv` distinct values at false-positive rate `fpp`: the
 * format's sizing, m = -8 ndv / ln(1 - fpp^(1/8)) bits, as a power of two. */
static size_t bloom_bytes(uint64_t ndv, double fpp)
{
    if (!(fpp > 0.0 && fpp < 1.0))
        fpp = 0.01;
    double bits = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8.0));
    size_t bytes = BLOOM_MIN_BYTES;
    while ((double)bytes * 8.0 < bits && bytes < BLOOM_MAX_BYTES)
        bytes *= 2;
    return bytes;
}

basalt_status basalt_parquet_wbloom_build(struct basalt_buffer *hashes, double fpp,
                                          struct basalt_buffer *out, struct basalt_error *err)
{
    uint64_t *h = (uint64_t *)(void *)hashes->data;
    size_t n = hashes->size / 8;
    if (n > 1)
        qsort(h, n, sizeof *h, cmp_u64);
    size_t ndv = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || h[i] != h[i - 1])
            h[ndv++] = h[i];
    size_t bytes = bloom_bytes(ndv, fpp);
    struct basalt_parquet_bloom_filter_header bh = {(int32_t)bytes,
                                                    BASALT_PARQUET_BLOOM_FILTER_ALGORITHM_BLOCK,
                                                    BASALT_PARQUET_BLOOM_FILTER_HASH_XXHASH,
                                                    BASALT_PARQUET_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED};
    basalt_status st = basalt_thrift_encode_bloom_filter_header(&bh, out, err);
    if (st == BASALT_OK)
        st = basalt_buffer_reserve(out, bytes, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *bits = out->data + out->size;
    memset(bits, 0, bytes);
    uint64_t blocks = bytes / 32;
    for (size_t i = 0; i < ndv; i++) {
        uint64_t block = ((h[i] >> 32) * blocks) >> 32;
        uint32_t key = (uint32_t)h[i];
        uint8_t *b = bits + block * 32;
        for (int k = 0; k < 8; k++) {
            uint32_t word;
            memcpy(&word, b + 4 * k, 4);
            word |= 1u << ((key * bloom_salt[k]) >> 27);
            memcpy(b + 4 * k, &word, 4);
        }
    }
    out->size += bytes;
    hashes->size = 0;
    return BASALT_OK;
}
