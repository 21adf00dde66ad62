/* Seeds (fuzz/corpus/<target>/): structures cut from the files of
 * apache/parquet-testing (Apache-2.0). */
/* Fuzz target: Parquet PageHeader, as read at the start of every page. Any
 * input may only give OK, CORRUPT, LIMIT or NOMEM; a header that decodes
 * lies inside the input and re-encodes to bytes that decode to it again. */
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
    struct basalt_parquet_page_header ph;
    size_t used = 0;
    basalt_status st = basalt_thrift_decode_page_header(data, size, &arena, &limits, &ph, &used,
                                                        NULL);
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
    if (st == BASALT_OK) {
        if (used == 0 || used > size)
            abort();
        struct basalt_buffer once, twice;
        basalt_buffer_init(&once);
        basalt_buffer_init(&twice);
        struct basalt_parquet_page_header back;
        size_t used2 = 0;
        st = basalt_thrift_encode_page_header(&ph, &once, NULL);
        if (st == BASALT_OK)
            st = basalt_thrift_decode_page_header(once.data, once.size, &arena, NULL, &back,
                                                  &used2, NULL);
        if (st == BASALT_OK)
            st = basalt_thrift_encode_page_header(&back, &twice, NULL);
        if (st != BASALT_OK && st != BASALT_NOMEM)
            abort();
        if (st == BASALT_OK && (used2 != once.size || once.size != twice.size ||
                                memcmp(once.data, twice.data, once.size) != 0))
            abort();
        basalt_buffer_reset(&once);
        basalt_buffer_reset(&twice);
    }
    basalt_arena_reset(&arena);
    return 0;
}
