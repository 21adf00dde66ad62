/* Split-block bloom filters: the parquet-testing vectors (built by parquet-mr
 * from "hello", "parquet", "bloom", "filter"), the filters inside corpus
 * files, and pruning with them. Which probes are absent was checked with
 * hyparquet's independent sbbfContains + xxhash64. */
#include "basalt/parquet.h"
#include "parquet_reader.h"
#include "test.h"

static const char *corpus(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/data"), name);
    return path;
}

static bool probe(const struct basalt_parquet_bloom_filter *bf, const char *s)
{
    return basalt_parquet_bloom_filter_check(bf, basalt_parquet_bloom_hash(s, strlen(s)));
}

TEST(bloom_hash_vector)
{
    /* XXH64("hello", seed 0), as hyparquet's xxhash64 computes it. */
    CHECK_UEQ(basalt_parquet_bloom_hash("hello", 5), 0x26c7827d889f6da3ull);
    /* XXH64 of nothing, from the xxHash reference. */
    CHECK_UEQ(basalt_parquet_bloom_hash("", 0), 0xef46db3751d8e999ull);
}

TEST(bloom_xxhash_vector)
{
    size_t len = 0;
    uint8_t *data = bt_read_file(corpus("bloom_filter.xxhash.bin"), &len);
    CHECK(data != NULL);
    CHECK_EQ(len, 1040);
    struct basalt_error err;
    struct basalt_parquet_bloom_filter bf;
    size_t consumed = 0;
    basalt_status st = basalt_parquet_bloom_filter_parse(data, len, &bf, &consumed, &err);
    if (st != BASALT_OK)
        basalt_free(data);
    CHECK_OK(st, &err);
    bool ok = bf.num_bytes == 1024 && consumed == 1040 && bf.owned == NULL;
    const char *present[] = {"hello", "parquet", "bloom", "filter"};
    for (int i = 0; i < 4; i++)
        ok = ok && probe(&bf, present[i]);
    const char *absent[] = {"Hello", "today", "world", "basalt", "iceberg", "Parquet", "", "a"};
    for (int i = 0; i < 8; i++)
        ok = ok && !probe(&bf, absent[i]);
    /* Truncated: the bitset does not fit. */
    st = basalt_parquet_bloom_filter_parse(data, len - 1, &bf, NULL, &err);
    basalt_free(data);
    CHECK(ok);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
}

TEST(bloom_legacy_and_bad_headers)
{
    size_t len = 0;
    uint8_t *data = bt_read_file(corpus("bloom_filter.bin"), &len);
    CHECK(data != NULL);
    struct basalt_error err;
    struct basalt_parquet_bloom_filter bf;
    /* The murmur3 format before the Thrift header: not a filter we read. */
    basalt_status st = basalt_parquet_bloom_filter_parse(data, len, &bf, NULL, &err);
    basalt_free(data);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    /* num_bytes 33: i32 field 1 (zigzag 66), then the three unions. */
    uint8_t h[64] = {0x15, 0x42, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00,
                     0x1c, 0x1c, 0x00, 0x00, 0x00};
    CHECK_STATUS(basalt_parquet_bloom_filter_parse(h, sizeof h, &bf, NULL, &err), BASALT_CORRUPT,
                 &err);
    /* num_bytes 32, but the hash union holds member 2 (not XXHASH). */
    h[1] = 0x40;
    h[7] = 0x2c;
    CHECK_STATUS(basalt_parquet_bloom_filter_parse(h, sizeof h, &bf, NULL, &err),
                 BASALT_UNSUPPORTED, &err);
    h[7] = 0x1c;
    size_t consumed = 0;
    CHECK_OK(basalt_parquet_bloom_filter_parse(h, 15 + 32, &bf, &consumed, &err), &err);
    CHECK_EQ(consumed, 47);
    /* An empty filter rules everything out. */
    CHECK(!probe(&bf, "x"));
}

TEST(bloom_corpus_files)
{
    const char *files[] = {"data_index_bloom_encoding_stats.parquet",
                           "data_index_bloom_encoding_with_length.parquet"};
    for (int f = 0; f < 2; f++) {
        for (int mm = 0; mm < 2; mm++) {
            struct basalt_error err;
            struct basalt_parquet_reader_options o;
            basalt_parquet_reader_options_init(&o);
            o.use_mmap = mm;
            struct basalt_parquet_reader *r = NULL;
            CHECK_OK(basalt_parquet_reader_open_file(corpus(files[f]), &o, &r, &err), &err);
            struct basalt_parquet_bloom_filter bf;
            basalt_status st = basalt_parquet_reader_bloom_filter(r, 0, 0, &bf, &err);
            if (st != BASALT_OK)
                basalt_parquet_reader_close(r);
            CHECK_OK(st, &err);
            bool ok = bf.num_bytes == (f == 0 ? 1024u : 2048u) && (mm ? !bf.owned : !!bf.owned);
            /* The column's values; hyparquet agrees on every probe here. */
            ok = ok && probe(&bf, "Hello") && probe(&bf, "today") && probe(&bf, "a");
            ok = ok && !probe(&bf, "hello") && !probe(&bf, "world") && !probe(&bf, "basalt") &&
                 !probe(&bf, "is");
            basalt_parquet_bloom_filter_reset(&bf);
            st = basalt_parquet_reader_bloom_filter(r, 0, 1, &bf, &err);
            basalt_parquet_reader_close(r);
            CHECK(ok);
            CHECK_STATUS(st, BASALT_NOT_FOUND, &err);
        }
    }
    /* A file without filters. */
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_plain.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_bloom_filter bf;
    basalt_status st = basalt_parquet_reader_bloom_filter(r, 0, 0, &bf, &err);
    basalt_parquet_reader_close(r);
    CHECK_STATUS(st, BASALT_NOT_FOUND, &err);
}

/* Plans row group 0 of the bloom file with String = value. */
static basalt_status plan_eq(const char *value, bool use_bloom, bool *skip,
                             struct basalt_parquet_scan_stats *stats, struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    basalt_status st = basalt_parquet_reader_open_file(
        corpus("data_index_bloom_encoding_stats.parquet"), NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.use_bloom_filters = use_bloom;
    struct basalt_parquet_scan *scan = NULL;
    st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        struct basalt_parquet_literal l;
        memset(&l, 0, sizeof l);
        l.kind = BASALT_PARQUET_LITERAL_BYTES;
        l.bytes = value;
        l.len = strlen(value);
        st = basalt_parquet_scan_filter(scan, "String", BASALT_PARQUET_OP_EQ, &l, err);
    }
    struct ArrowSchema s;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_schema(scan, &s, err);
    if (st == BASALT_OK) {
        basalt_arrow_schema_release(&s);
        struct basalt_parquet_rg_plan plan;
        st = basalt_parquet_scan_plan(scan, 0, &plan, skip, err);
    }
    basalt_parquet_scan_get_stats(scan, stats);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

TEST(bloom_prunes_row_groups)
{
    struct basalt_error err;
    struct basalt_parquet_scan_stats ss;
    bool skip = false;
    /* "basalt" lies between the bounds "Hello" and "today", so statistics
     * keep the row group; the filter says it is absent. */
    CHECK_OK(plan_eq("basalt", true, &skip, &ss, &err), &err);
    CHECK(skip);
    CHECK_EQ(ss.row_groups_pruned_bloom, 1);
    CHECK_EQ(ss.row_groups_pruned_stats, 0);
    CHECK_OK(plan_eq("basalt", false, &skip, &ss, &err), &err);
    CHECK(!skip);
    CHECK_OK(plan_eq("today", true, &skip, &ss, &err), &err);
    CHECK(!skip);
    /* Outside the bounds: statistics come first. */
    CHECK_OK(plan_eq("zebra", true, &skip, &ss, &err), &err);
    CHECK(skip);
    CHECK_EQ(ss.row_groups_pruned_stats, 1);
}
