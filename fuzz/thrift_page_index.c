/* Seeds (fuzz/corpus/<target>/): structures cut from the files of
 * apache/parquet-testing (Apache-2.0). */
/* Fuzz target: the other structures read from Parquet files by offset
 * (ColumnIndex, OffsetIndex, BloomFilterHeader, FileCryptoMetaData) and the
 * compact protocol's generic skip. The first byte picks the decoder. Any
 * input may only give OK, CORRUPT, LIMIT or NOMEM; what decodes re-encodes
 * stably. */
#include <stdlib.h>
#include <string.h>

#include "basalt/parquet_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

static void same(const struct basalt_buffer *a, const struct basalt_buffer *b)
{
    if (a->size != b->size || memcmp(a->data, b->data, a->size) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t which = data[0] % 5;
    data++;
    size--;
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = (size_t)64 << 20;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_buffer once, twice;
    basalt_buffer_init(&once);
    basalt_buffer_init(&twice);
    basalt_status st;
    switch (which) {
    case 0: {
        struct basalt_parquet_column_index a, b;
        st = basalt_thrift_decode_column_index(data, size, &arena, &limits, &a, NULL);
        check(st);
        if (st == BASALT_OK && basalt_thrift_encode_column_index(&a, &once, NULL) == BASALT_OK &&
            basalt_thrift_decode_column_index(once.data, once.size, &arena, NULL, &b, NULL) ==
                BASALT_OK &&
            basalt_thrift_encode_column_index(&b, &twice, NULL) == BASALT_OK)
            same(&once, &twice);
        break;
    }
    case 1: {
        struct basalt_parquet_offset_index a, b;
        st = basalt_thrift_decode_offset_index(data, size, &arena, &limits, &a, NULL);
        check(st);
        if (st == BASALT_OK && basalt_thrift_encode_offset_index(&a, &once, NULL) == BASALT_OK &&
            basalt_thrift_decode_offset_index(once.data, once.size, &arena, NULL, &b, NULL) ==
                BASALT_OK &&
            basalt_thrift_encode_offset_index(&b, &twice, NULL) == BASALT_OK)
            same(&once, &twice);
        break;
    }
    case 2: {
        struct basalt_parquet_bloom_filter_header a, b;
        size_t used = 0;
        st = basalt_thrift_decode_bloom_filter_header(data, size, &arena, &limits, &a, &used, NULL);
        check(st);
        if (st == BASALT_OK && used > size)
            abort();
        if (st == BASALT_OK &&
            basalt_thrift_encode_bloom_filter_header(&a, &once, NULL) == BASALT_OK &&
            basalt_thrift_decode_bloom_filter_header(once.data, once.size, &arena, NULL, &b,
                                                     &used, NULL) == BASALT_OK &&
            basalt_thrift_encode_bloom_filter_header(&b, &twice, NULL) == BASALT_OK)
            same(&once, &twice);
        break;
    }
    case 3: {
        struct basalt_parquet_file_crypto_metadata cm;
        size_t used = 0;
        st = basalt_thrift_decode_file_crypto_metadata(data, size, &arena, &limits, &cm, &used,
                                                       NULL);
        check(st);
        if (st == BASALT_OK && used > size)
            abort();
        break;
    }
    default: {
        struct basalt_thrift_reader r;
        basalt_thrift_reader_init(&r, data, size, &limits);
        st = basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, NULL);
        check(st);
        if (basalt_thrift_reader_offset(&r) > size)
            abort();
        break;
    }
    }
    basalt_buffer_reset(&once);
    basalt_buffer_reset(&twice);
    basalt_arena_reset(&arena);
    return 0;
}
