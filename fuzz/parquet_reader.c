/* Seeds (fuzz/corpus/parquet_reader/): small files of apache/parquet-testing
 * and apache/arrow-testing (Apache-2.0), including their bad_data files. */
/* Fuzz target: a whole Parquet file in memory through the public reader:
 * open, metadata accessors and statistics of every chunk, then every column
 * of every row group read twice (small batches; then one batch per row
 * group with dictionaries kept), each batch fully validated against the
 * scan's schema. Any input may only give OK, CORRUPT, UNSUPPORTED, LIMIT or
 * NOMEM, and nothing allocated may outlive the reader. Small limits keep a
 * small input from asking for much. */
#include <stdlib.h>
#include <string.h>

#include "basalt/arrow.h"
#include "basalt/io.h"
#include "basalt/parquet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
        st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

static void metadata(const struct basalt_parquet_reader *r)
{
    struct ArrowSchema schema;
    basalt_status st = basalt_parquet_reader_schema(r, &schema, NULL);
    check(st);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&schema);
    int32_t groups = basalt_parquet_reader_num_row_groups(r);
    int32_t columns = basalt_parquet_reader_num_columns(r);
    for (int32_t g = 0; g < groups; g++)
        for (int32_t c = 0; c < columns; c++) {
            struct basalt_parquet_column_stats cs;
            check(basalt_parquet_reader_column_stats(r, g, c, &cs, NULL));
        }
}

/* Reads every selected column of `row_group` (-1: every row group). */
static void scan(const struct basalt_parquet_reader *r, int32_t row_group, bool keep_dictionary)
{
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = keep_dictionary ? 0 : 100;
    o.keep_dictionary = keep_dictionary;
    struct basalt_parquet_scan *s = NULL;
    basalt_status st = basalt_parquet_scan_new(r, &o, &s, NULL);
    check(st);
    if (st != BASALT_OK)
        return;
    basalt_parquet_scan_select_all(s);
    if (row_group >= 0 && basalt_parquet_scan_select_row_groups(s, &row_group, 1, NULL) !=
                              BASALT_OK)
        abort();
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    st = basalt_parquet_scan_schema(s, &schema, NULL);
    check(st);
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_parquet_scan_next(s, &a, NULL);
        check(st);
        if (st != BASALT_OK || !a.release)
            break;
        if (basalt_arrow_array_validate(&schema, &a, BASALT_ARROW_VALIDATE_FULL, NULL) !=
            BASALT_OK)
            abort();
        a.release(&a);
    }
    if (schema.release)
        schema.release(&schema);
    basalt_parquet_scan_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t live = basalt_alloc_live();
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_memory(data, size, "fuzz.parquet", &in, NULL);
    check(st);
    if (st != BASALT_OK)
        return 0;
    struct basalt_parquet_reader_options ro;
    basalt_parquet_reader_options_init(&ro);
    ro.max_footer_size = 1 << 20;
    ro.max_metadata_memory = 16 << 20;
    ro.max_schema_depth = 16;
    ro.max_page_size = 4 << 20;
    struct basalt_parquet_reader *r = NULL;
    st = basalt_parquet_reader_open(in, true, &ro, &r, NULL);
    check(st);
    if (st == BASALT_OK) {
        metadata(r);
        /* Row groups one at a time, then the whole file at once. */
        int32_t groups = basalt_parquet_reader_num_row_groups(r);
        for (int32_t g = 0; g < groups && g < 8; g++)
            scan(r, g, false);
        scan(r, -1, true);
        basalt_parquet_reader_close(r);
    }
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
