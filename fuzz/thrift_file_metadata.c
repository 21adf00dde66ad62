/* Seeds (fuzz/corpus/<target>/): structures cut from the files of
 * apache/parquet-testing (Apache-2.0). */
/* Fuzz target: Parquet FileMetaData (the footer). Any input may only give
 * OK, CORRUPT, LIMIT or NOMEM; a footer that decodes must re-encode to bytes
 * that decode to a structure encoding to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "basalt/parquet_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = (size_t)64 << 20;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    basalt_status st = basalt_thrift_decode_file_metadata(data, size, &arena, &limits, &md, NULL);
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
    if (st == BASALT_OK) {
        struct basalt_buffer once, twice;
        basalt_buffer_init(&once);
        basalt_buffer_init(&twice);
        struct basalt_parquet_file_metadata back;
        st = basalt_thrift_encode_file_metadata(&md, &once, NULL);
        if (st == BASALT_OK)
            st = basalt_thrift_decode_file_metadata(once.data, once.size, &arena, NULL, &back,
                                                    NULL);
        if (st == BASALT_OK)
            st = basalt_thrift_encode_file_metadata(&back, &twice, NULL);
        if (st != BASALT_OK && st != BASALT_NOMEM)
            abort();
        if (st == BASALT_OK &&
            (once.size != twice.size || memcmp(once.data, twice.data, once.size) != 0))
            abort();
        basalt_buffer_reset(&once);
        basalt_buffer_reset(&twice);
    }
    basalt_arena_reset(&arena);
    return 0;
}
