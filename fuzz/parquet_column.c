/* Seeds (fuzz/corpus/parquet_column/): small files of apache/parquet-testing
 * (Apache-2.0). */
/* Fuzz target: a whole Parquet file through the column decoder and the
 * record assembler: footer, schema, every column chunk of every row group,
 * every top-level field. Any input may only give OK, CORRUPT, UNSUPPORTED,
 * LIMIT or NOMEM; every array assembled passes full validation against the
 * schema's Arrow type. Limits keep a small input from asking for much. */
#include <stdlib.h>
#include <string.h>

#include "../src/parquet/parquet_column.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool allowed(basalt_status st)
{
    return st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_UNSUPPORTED ||
           st == BASALT_LIMIT || st == BASALT_NOMEM;
}

static void row_group(const uint8_t *data, size_t size, const struct basalt_parquet_file_metadata *md,
                      const struct basalt_parquet_schema *schema, const struct ArrowSchema *as,
                      size_t rg, struct basalt_parquet_scratch *scratch,
                      struct basalt_parquet_leaf_values *leaves)
{
    const struct basalt_parquet_row_group *g = &md->row_groups[rg];
    struct basalt_parquet_column_options o;
    basalt_parquet_column_options_init(&o);
    o.max_values = 1 << 20;
    o.max_page_size = 16 << 20;
    o.keep_dictionary = rg % 2 == 1;
    bool ok = g->num_columns == (size_t)schema->n_leaves;
    for (int32_t k = 0; ok && k < schema->n_leaves; k++) {
        const struct basalt_parquet_column_chunk *c = &g->columns[k];
        if (!c->has_meta_data) {
            ok = false;
            break;
        }
        const struct basalt_parquet_column_metadata *m = &c->meta_data;
        int64_t start = m->data_page_offset;
        if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
            m->dictionary_page_offset < start)
            start = m->dictionary_page_offset;
        if (start < 0 || (uint64_t)start >= size || m->total_compressed_size < 0) {
            ok = false;
            break;
        }
        uint64_t len = (uint64_t)m->total_compressed_size;
        if (len > size - (uint64_t)start)
            len = size - (uint64_t)start;
        struct basalt_parquet_chunk_source src = {
            .data = data + start,
            .len = (size_t)len,
            .file_offset = start,
            .meta = m,
            .leaf = &schema->leaves[k],
            .num_rows = g->num_rows,
        };
        basalt_status st = basalt_parquet_column_decode(&src, &o, scratch, &leaves[k], NULL);
        if (!allowed(st))
            abort();
        if (st != BASALT_OK)
            ok = false;
        else if (leaves[k].values.release == NULL)
            abort();
    }
    for (int32_t r = 0; ok && r < schema->n_roots; r++) {
        struct ArrowArray out;
        struct basalt_parquet_assemble_options ao = {.large_lists = r % 2 == 1,
                                                     .no_branchless_walk = r % 3 == 2};
        basalt_status st =
            basalt_parquet_assemble_field_with(schema, schema->roots[r], leaves, &ao, &out, NULL);
        if (!allowed(st))
            abort();
        if (st != BASALT_OK)
            break;
        /* Dictionary output and large lists change the type; check the
         * plain reads fully. */
        if (!o.keep_dictionary && !ao.large_lists &&
            basalt_arrow_array_validate(as->children[r], &out, BASALT_ARROW_VALIDATE_FULL, NULL) !=
                BASALT_OK)
            abort();
        basalt_arrow_array_release(&out);
    }
    for (int32_t k = 0; k < schema->n_leaves; k++)
        basalt_parquet_leaf_values_reset(&leaves[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 12)
        return 0;
    uint32_t footer_len;
    if (basalt_thrift_decode_trailer(data + size - 8, size, &footer_len, NULL) != BASALT_OK)
        return 0;
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = (size_t)16 << 20;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    struct basalt_parquet_schema *schema = NULL;
    struct basalt_parquet_scratch *scratch = NULL;
    struct basalt_parquet_leaf_values *leaves = NULL;
    struct ArrowSchema as;
    memset(&as, 0, sizeof as);
    if (basalt_thrift_decode_file_metadata(data + size - 8 - footer_len, footer_len, &arena,
                                           &limits, &md, NULL) != BASALT_OK ||
        basalt_parquet_schema_new(&md, NULL, &schema, NULL) != BASALT_OK ||
        basalt_parquet_schema_to_arrow(schema, NULL, NULL, &as, NULL) != BASALT_OK ||
        basalt_parquet_scratch_new(&scratch, NULL) != BASALT_OK)
        goto done;
    leaves = basalt_calloc((size_t)schema->n_leaves + 1, sizeof *leaves);
    if (!leaves)
        goto done;
    for (size_t rg = 0; rg < md.num_row_groups && rg < 16; rg++)
        row_group(data, size, &md, schema, &as, rg, scratch, leaves);
done:
    basalt_free(leaves);
    basalt_arrow_schema_release(&as);
    basalt_parquet_scratch_free(scratch);
    basalt_parquet_schema_free(schema);
    basalt_arena_reset(&arena);
    return 0;
}
