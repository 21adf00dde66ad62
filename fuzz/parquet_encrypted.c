/* Seeds (fuzz/corpus/parquet_encrypted/): the encrypted files of
 * apache/parquet-testing (Apache-2.0) and small files basalt and DuckDB
 * encrypted with the same keys. */
/* Fuzz target: a whole encrypted Parquet file in memory, opened with
 * parquet-testing's keys (key ids kf, kc1, kc2: the ASCII digits
 * "0123456789012345", "1234567890123450", "1234567890123451") and read:
 * every column of every row group, each batch validated, then the page
 * index and bloom filter of every chunk. Any input may only give OK,
 * CORRUPT, UNSUPPORTED, LIMIT, AUTH (a module that does not authenticate,
 * a missing key) or NOMEM, and nothing allocated may outlive the reader. */
#include <stdlib.h>
#include <string.h>

#include "basalt/arrow.h"
#include "basalt/io.h"
#include "basalt/parquet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
        st != BASALT_LIMIT && st != BASALT_NOMEM && st != BASALT_AUTH)
        abort();
}

static basalt_status retrieve(void *ctx, const uint8_t *md, size_t len, uint8_t *key,
                              size_t *key_len, struct basalt_error *err)
{
    (void)ctx;
    static const char *const ids[] = {"kf", "kc1", "kc2"};
    static const char *const keys[] = {"0123456789012345", "1234567890123450",
                                       "1234567890123451"};
    for (int i = 0; i < 3; i++) {
        if (strlen(ids[i]) == len && memcmp(ids[i], md, len) == 0) {
            memcpy(key, keys[i], 16);
            *key_len = 16;
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "no key");
}

static void read_all(const struct basalt_parquet_reader *r)
{
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = 100;
    struct basalt_parquet_scan *s = NULL;
    basalt_status st = basalt_parquet_scan_new(r, &o, &s, NULL);
    check(st);
    if (st != BASALT_OK)
        return;
    basalt_parquet_scan_select_all(s);
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

static void chunks(const struct basalt_parquet_reader *r)
{
    int32_t groups = basalt_parquet_reader_num_row_groups(r);
    int32_t columns = basalt_parquet_reader_num_columns(r);
    for (int32_t g = 0; g < groups && g < 8; g++) {
        for (int32_t c = 0; c < columns && c < 64; c++) {
            struct basalt_parquet_column_stats cs;
            check(basalt_parquet_reader_column_stats(r, g, c, &cs, NULL));
            struct basalt_parquet_bloom_filter bf;
            basalt_status st = basalt_parquet_reader_bloom_filter(r, g, c, &bf, NULL);
            if (st != BASALT_NOT_FOUND)
                check(st);
            basalt_parquet_bloom_filter_reset(&bf);
        }
    }
    /* A predicate reads the page index and bloom filters on the way. */
    struct basalt_parquet_scan *s = NULL;
    if (columns < 1 || basalt_parquet_scan_new(r, NULL, &s, NULL) != BASALT_OK)
        return;
    struct basalt_parquet_column_info ci;
    struct basalt_parquet_literal lit;
    memset(&lit, 0, sizeof lit);
    basalt_parquet_scan_select_all(s);
    if (basalt_parquet_reader_column(r, 0, &ci, NULL) == BASALT_OK &&
        (ci.physical_type == BASALT_PARQUET_TYPE_INT32 ||
         ci.physical_type == BASALT_PARQUET_TYPE_INT64 ||
         ci.physical_type == BASALT_PARQUET_TYPE_DOUBLE) &&
        ci.max_repetition_level == 0) {
        lit.kind = BASALT_PARQUET_LITERAL_INT;
        lit.i = 7;
        if (basalt_parquet_scan_filter(s, ci.path, BASALT_PARQUET_OP_EQ, &lit, NULL) ==
            BASALT_OK) {
            struct basalt_arrow_batches b;
            basalt_arrow_batches_init(&b);
            check(basalt_parquet_scan_read_all(s, &b, NULL));
            basalt_arrow_batches_reset(&b);
        }
    }
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
    struct basalt_parquet_decryption d;
    memset(&d, 0, sizeof d);
    d.retrieve_key = retrieve;
    struct basalt_parquet_reader_options ro;
    basalt_parquet_reader_options_init(&ro);
    ro.max_footer_size = 1 << 20;
    ro.max_metadata_memory = 16 << 20;
    ro.max_schema_depth = 16;
    ro.max_page_size = 4 << 20;
    ro.decryption = &d;
    struct basalt_parquet_reader *r = NULL;
    st = basalt_parquet_reader_open(in, true, &ro, &r, NULL);
    check(st);
    if (st == BASALT_OK) {
        read_all(r);
        chunks(r);
        basalt_parquet_reader_close(r);
    }
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
