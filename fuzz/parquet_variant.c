/* Seeds (fuzz/corpus/parquet_variant/): the variant/ examples and the
 * shredded_variant/ .variant.bin files of apache/parquet-testing
 * (Apache-2.0), each a metadata immediately followed by a value. */
/* Fuzz target for the Variant binary encoding: the input is a metadata
 * followed by a value (split where the metadata ends). Validation and JSON
 * output must agree (both OK or both failing with the same status), give
 * only OK, CORRUPT, LIMIT or NOMEM, and a valid value's size must lie within
 * the bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "basalt/parquet_variant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct basalt_parquet_variant_metadata md;
    size_t used = 0;
    basalt_status st = basalt_parquet_variant_metadata_parse(data, size, &md, &used, NULL);
    check(st);
    if (st != BASALT_OK)
        return 0;
    if (used > size || md.len != used)
        abort();
    for (uint32_t i = 0; i < md.dictionary_size && i < 64; i++) {
        const uint8_t *name;
        size_t n;
        if (!basalt_parquet_variant_metadata_name(&md, i, &name, &n) ||
            name + n > data + size ||
            basalt_parquet_variant_metadata_find(&md, name, n) < 0)
            abort();
    }
    size_t vsize = 0;
    basalt_status valid = basalt_parquet_variant_validate(&md, data + used, size - used, &vsize,
                                                          NULL);
    check(valid);
    if (valid == BASALT_OK && (vsize == 0 || vsize > size - used))
        abort();
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    basalt_status json = basalt_parquet_variant_to_json(data, used, data + used, size - used,
                                                        &out, NULL);
    check(json);
    if (json != BASALT_NOMEM && valid != BASALT_NOMEM && json != valid)
        abort();
    basalt_buffer_reset(&out);
    return 0;
}
