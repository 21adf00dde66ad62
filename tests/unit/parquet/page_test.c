/* Pages of a column chunk: v1 and v2 layouts, CRCs, every codec, the
 * scratch reused across pages and chunks, the page-order rules, selections,
 * and the limits. Chunks are built with column_build_test.c. */
#include <stdlib.h>

#include "parquet_column.h"
#include "test.h"

struct pqc_el {
    const char *name;
    int32_t type;
    int32_t repetition;
    int32_t children;
    int32_t converted;
    int32_t type_length;
    int32_t precision, scale;
};
struct pqc_page {
    int32_t type;
    int32_t num_values;
    int32_t encoding;
    const int16_t *rep, *def;
    int16_t max_rep, max_def;
    const uint8_t *values;
    size_t values_len;
    int32_t codec;
    bool crc;
    bool bad_crc;
    bool v2_not_compressed;
    bool v2_flag_lies;
    int32_t size_delta;
    bool def_bit_packed;
    bool raw_body;       /* v1: `values` is the whole page body, levels included */
};
struct pqc_chunk {
    struct basalt_buffer bytes;
    struct basalt_parquet_column_metadata meta;
    int64_t page_offsets[64];
    int32_t n_data_pages;
};
void pqc_chunk_init(struct pqc_chunk *c, int32_t physical, int32_t codec);
void pqc_chunk_reset(struct pqc_chunk *c);
void pqc_chunk_add(struct pqc_chunk *c, const struct pqc_page *p);
basalt_status pqc_schema(const struct pqc_el *els, size_t n, struct basalt_parquet_schema **out);
void pqc_source(const struct pqc_chunk *c, const struct basalt_parquet_schema *s, int32_t leaf,
                int64_t num_rows, struct basalt_parquet_chunk_source *src);
void pqc_plain_i32(struct basalt_buffer *b, const int32_t *v, size_t n);
void pqc_plain_bytes(struct basalt_buffer *b, const char *const *v, size_t n);
void pqc_dict_indices(struct basalt_buffer *b, const uint32_t *idx, size_t n, uint32_t dict_len);
basalt_status pqc_rows(const struct basalt_parquet_schema *s, struct pqc_chunk *chunks,
                       int64_t num_rows, const struct basalt_parquet_column_options *o,
                       struct basalt_parquet_scratch *scratch, struct basalt_buffer *text,
                       struct basalt_error *err);
bool pqc_text_is(struct basalt_buffer *text, const char *want);

#define REQ BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED
#define OPT BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL
#define I32 BASALT_PARQUET_TYPE_INT32
#define V2 BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2
#define DICT BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE
#define PLAIN BASALT_PARQUET_ENCODING_PLAIN
#define RLE_DICT BASALT_PARQUET_ENCODING_RLE_DICTIONARY

/* Whether the column int_page writes to is optional (definition levels). */
static bool page_optional = true;

/* A one-column schema: `rep` int32 "a". */
static struct basalt_parquet_schema *int_schema(int32_t rep)
{
    page_optional = rep == OPT;
    const struct pqc_el els[] = {{"schema", -1, REQ, 1, -1, 0, 0, 0}, {"a", I32, rep, 0, -1, 0, 0, 0}};
    struct basalt_parquet_schema *s = NULL;
    if (pqc_schema(els, 2, &s) != BASALT_OK)
        abort();
    return s;
}

/* Pages of ints [first, first + n) with every third one null when `nulls`. */
static void int_page(struct pqc_chunk *c, int32_t type, int first, int n, bool nulls,
                     const struct pqc_page *extra)
{
    int16_t def[256];
    int32_t v[256];
    int m = 0;
    for (int i = 0; i < n; i++) {
        def[i] = (int16_t)!(nulls && (first + i) % 3 == 0);
        if (def[i])
            v[m++] = first + i;
    }
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    pqc_plain_i32(&b, v, (size_t)m);
    struct pqc_page p;
    if (extra)
        p = *extra;
    else
        memset(&p, 0, sizeof p);
    p.type = type;
    p.num_values = n;
    p.encoding = PLAIN;
    p.def = def;
    p.max_def = page_optional ? 1 : 0;
    p.values = b.data;
    p.values_len = b.size;
    pqc_chunk_add(c, &p);
    basalt_buffer_reset(&b);
}

/* The canonical rows of ints [first, first + n). */
static void int_rows(char *out, size_t cap, int first, int n, bool nulls)
{
    size_t k = 0;
    out[0] = '\0';
    for (int i = first; i < first + n && k < cap; i++) {
        if (nulls && i % 3 == 0)
            k += (size_t)snprintf(out + k, cap - k, "[null]\n");
        else
            k += (size_t)snprintf(out + k, cap - k, "[\"%d\"]\n", i);
    }
}

static basalt_status decode_rows(const struct basalt_parquet_schema *s, struct pqc_chunk *c,
                                 int64_t rows, const struct basalt_parquet_column_options *o,
                                 struct basalt_parquet_scratch *scratch, struct basalt_buffer *text,
                                 struct basalt_error *err)
{
    return pqc_rows(s, c, rows, o, scratch, text, err);
}

TEST(page_v1_plain_in_place)
{
    struct basalt_parquet_schema *s = int_schema(OPT);
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED);
    int_page(&c, 0, 0, 10, true, NULL);
    int_page(&c, 0, 10, 12, false, NULL); /* its levels: one run of 12 ones */
    struct basalt_parquet_scratch *scratch;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    basalt_status st = decode_rows(s, &c, 22, NULL, scratch, &text, &err);
    char want[2048];
    int_rows(want, sizeof want, 0, 10, true);
    int_rows(want + strlen(want), sizeof want - strlen(want), 10, 12, false);
    bool same = pqc_text_is(&text, want);
    struct basalt_parquet_scratch_stats ss;
    basalt_parquet_scratch_get_stats(scratch, &ss);
    basalt_parquet_scratch_free(scratch);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
    CHECK_OK(st, &err);
    CHECK(same);
    CHECK_EQ(ss.pages_in_place, 2);
    CHECK_EQ(ss.pages_decompressed, 0);
    CHECK_EQ(ss.levels_to_validity, 1); /* the page with nulls */
    CHECK_EQ(ss.pages_all_valid, 1);    /* the page without */
    CHECK_EQ(ss.values_direct, 2);
}

/* Every codec, v1 and v2 pages, and the scratch reused: a second decode of
 * the same chunk grows nothing. */
TEST(page_every_codec)
{
    static const int32_t codecs[] = {
        BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY, BASALT_PARQUET_COMPRESSION_CODEC_GZIP,
        BASALT_PARQUET_COMPRESSION_CODEC_BROTLI, BASALT_PARQUET_COMPRESSION_CODEC_LZ4,
        BASALT_PARQUET_COMPRESSION_CODEC_ZSTD,   BASALT_PARQUET_COMPRESSION_CODEC_LZ4_RAW};
    struct basalt_parquet_schema *s = int_schema(OPT);
    struct basalt_parquet_scratch *scratch;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    char want[8192];
    int_rows(want, sizeof want, 0, 100, true);
    int_rows(want + strlen(want), sizeof want - strlen(want), 100, 50, true);
    int_rows(want + strlen(want), sizeof want - strlen(want), 150, 30, false);
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof codecs / sizeof codecs[0]; i++) {
        struct pqc_chunk c;
        pqc_chunk_init(&c, I32, codecs[i]);
        int_page(&c, 0, 0, 100, true, NULL);
        int_page(&c, V2, 100, 50, true, NULL);
        int_page(&c, V2, 150, 30, false, NULL);
        struct basalt_buffer text;
        basalt_buffer_init(&text);
        struct basalt_parquet_scratch_stats before, after;
        basalt_parquet_scratch_get_stats(scratch, &before);
        for (int round = 0; ok && round < 2; round++) {
            basalt_status st = decode_rows(s, &c, 180, NULL, scratch, &text, &err);
            if (st != BASALT_OK) {
                fprintf(stderr, "codec %d: %s\n", (int)codecs[i], err.message);
                ok = false;
            }
            ok = ok && pqc_text_is(&text, want);
            if (round == 0)
                basalt_parquet_scratch_get_stats(scratch, &before);
        }
        basalt_parquet_scratch_get_stats(scratch, &after);
        if (after.scratch_grows != before.scratch_grows || after.pages_decompressed !=
                                                               before.pages_decompressed + 3) {
            fprintf(stderr, "codec %d: grows %lld -> %lld, decompressed %lld -> %lld\n",
                    (int)codecs[i], (long long)before.scratch_grows,
                    (long long)after.scratch_grows, (long long)before.pages_decompressed,
                    (long long)after.pages_decompressed);
            ok = false;
        }
        basalt_buffer_reset(&text);
        pqc_chunk_reset(&c);
    }
    basalt_parquet_scratch_free(scratch);
    basalt_parquet_schema_free(s);
    CHECK(ok);
}

static basalt_status decode_one(struct pqc_chunk *c, const struct basalt_parquet_schema *s,
                                int64_t rows, const struct basalt_parquet_column_options *o,
                                struct basalt_error *err)
{
    struct basalt_parquet_scratch *scratch;
    basalt_status st = basalt_parquet_scratch_new(&scratch, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_chunk_source src;
    pqc_source(c, s, 0, rows, &src);
    struct basalt_parquet_leaf_values leaf;
    st = basalt_parquet_column_decode(&src, o, scratch, &leaf, err);
    basalt_parquet_leaf_values_reset(&leaf);
    basalt_parquet_scratch_free(scratch);
    return st;
}

TEST(page_crc_verified_and_skippable)
{
    struct basalt_parquet_schema *s = int_schema(REQ);
    struct pqc_chunk good, bad;
    pqc_chunk_init(&good, I32, BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY);
    pqc_chunk_init(&bad, I32, BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY);
    struct pqc_page crc = {.crc = true}, wrong = {.crc = true, .bad_crc = true};
    int_page(&good, 0, 0, 20, false, &crc);
    int_page(&bad, 0, 0, 20, false, &crc);
    int_page(&bad, V2, 20, 20, false, &wrong);
    struct basalt_parquet_column_options o;
    basalt_parquet_column_options_init(&o);
    struct basalt_error err;
    basalt_status a = decode_one(&good, s, 20, &o, &err);
    basalt_status b = decode_one(&bad, s, 40, &o, &err);
    bool names_page = strstr(err.message, "page 1") && strstr(err.message, "CRC");
    o.verify_crc = false;
    basalt_status c = decode_one(&bad, s, 40, &o, &err);
    pqc_chunk_reset(&good);
    pqc_chunk_reset(&bad);
    basalt_parquet_schema_free(s);
    CHECK_EQ(a, BASALT_OK);
    CHECK_EQ(b, BASALT_CORRUPT);
    CHECK(names_page);
    CHECK_EQ(c, BASALT_OK);
}

TEST(page_decompressed_size_must_match)
{
    struct basalt_parquet_schema *s = int_schema(REQ);
    struct basalt_error err;
    for (int delta = -1; delta <= 1; delta += 2) {
        struct pqc_chunk c;
        pqc_chunk_init(&c, I32, BASALT_PARQUET_COMPRESSION_CODEC_ZSTD);
        struct pqc_page p = {.size_delta = delta};
        int_page(&c, 0, 0, 20, false, &p);
        basalt_status st = decode_one(&c, s, 20, NULL, &err);
        pqc_chunk_reset(&c);
        CHECK_EQ(st, BASALT_CORRUPT);
    }
    basalt_parquet_schema_free(s);
}

/* DATA_PAGE_V2: is_compressed = false honoured, and a section flagged
 * uncompressed that is compressed (ARROW-17100) still read. */
TEST(page_v2_is_compressed_flag)
{
    struct basalt_parquet_schema *s = int_schema(OPT);
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY);
    struct pqc_page plain = {.v2_not_compressed = true}, lies = {.v2_flag_lies = true};
    int_page(&c, V2, 0, 40, true, &plain);
    int_page(&c, V2, 40, 40, true, &lies);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    struct basalt_parquet_scratch *scratch;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    basalt_status st = decode_rows(s, &c, 80, NULL, scratch, &text, &err);
    char want[4096];
    int_rows(want, sizeof want, 0, 80, true);
    bool same = pqc_text_is(&text, want);
    struct basalt_parquet_scratch_stats ss;
    basalt_parquet_scratch_get_stats(scratch, &ss);
    basalt_parquet_scratch_free(scratch);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
    CHECK_OK(st, &err);
    CHECK(same);
    CHECK_EQ(ss.pages_in_place, 1);
    CHECK_EQ(ss.pages_decompressed, 1);
}

TEST(page_empty_pages)
{
    struct basalt_parquet_schema *s = int_schema(OPT);
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY);
    int_page(&c, 0, 0, 5, true, NULL);
    int_page(&c, V2, 5, 0, true, NULL);
    int_page(&c, 0, 5, 0, true, NULL);
    int_page(&c, V2, 5, 5, true, NULL);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    struct basalt_error err;
    struct basalt_parquet_scratch *scratch;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    basalt_status st = decode_rows(s, &c, 10, NULL, scratch, &text, &err);
    char want[1024];
    int_rows(want, sizeof want, 0, 10, true);
    bool same = pqc_text_is(&text, want);
    basalt_parquet_scratch_free(scratch);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
    CHECK_OK(st, &err);
    CHECK(same);
}

static void dict_page(struct pqc_chunk *c, int32_t n)
{
    int32_t v[16];
    for (int32_t i = 0; i < n; i++)
        v[i] = 100 + i;
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    pqc_plain_i32(&b, v, (size_t)n);
    struct pqc_page p = {.type = DICT, .num_values = n, .values = b.data, .values_len = b.size};
    pqc_chunk_add(c, &p);
    basalt_buffer_reset(&b);
}

static void index_page(struct pqc_chunk *c, int32_t n, uint32_t dict_len)
{
    uint32_t idx[64];
    for (int32_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i % dict_len;
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    pqc_dict_indices(&b, idx, (size_t)n, dict_len);
    struct pqc_page p = {.num_values = n, .encoding = RLE_DICT, .values = b.data,
                         .values_len = b.size};
    pqc_chunk_add(c, &p);
    basalt_buffer_reset(&b);
}

TEST(page_dictionary_order_rules)
{
    struct basalt_parquet_schema *s = int_schema(REQ);
    struct basalt_error err;
    struct pqc_chunk c;
    /* Fine: dictionary, indices, plain fallback. */
    pqc_chunk_init(&c, I32, 0);
    dict_page(&c, 3);
    index_page(&c, 10, 3);
    int_page(&c, 0, 0, 4, false, NULL);
    CHECK_OK(decode_one(&c, s, 14, NULL, &err), &err);
    pqc_chunk_reset(&c);
    /* A dictionary page after a data page. */
    pqc_chunk_init(&c, I32, 0);
    int_page(&c, 0, 0, 4, false, NULL);
    dict_page(&c, 3);
    index_page(&c, 10, 3);
    CHECK_STATUS(decode_one(&c, s, 14, NULL, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "page 1: dictionary page after data pages") != NULL);
    pqc_chunk_reset(&c);
    /* Two dictionary pages. */
    pqc_chunk_init(&c, I32, 0);
    dict_page(&c, 3);
    dict_page(&c, 3);
    index_page(&c, 10, 3);
    CHECK_STATUS(decode_one(&c, s, 10, NULL, &err), BASALT_CORRUPT, &err);
    pqc_chunk_reset(&c);
    /* Indices without a dictionary. */
    pqc_chunk_init(&c, I32, 0);
    index_page(&c, 10, 3);
    CHECK_STATUS(decode_one(&c, s, 10, NULL, &err), BASALT_CORRUPT, &err);
    pqc_chunk_reset(&c);
    /* An index past the dictionary: the page claims 3 entries, has 2. */
    pqc_chunk_init(&c, I32, 0);
    dict_page(&c, 2);
    index_page(&c, 10, 3);
    CHECK_STATUS(decode_one(&c, s, 10, NULL, &err), BASALT_CORRUPT, &err);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
}

TEST(page_sizes_and_limits)
{
    struct basalt_parquet_schema *s = int_schema(REQ);
    struct basalt_error err;
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, 0);
    int_page(&c, 0, 0, 40, false, NULL);
    int_page(&c, 0, 40, 40, false, NULL);
    struct basalt_parquet_column_options o;
    basalt_parquet_column_options_init(&o);
    CHECK_OK(decode_one(&c, s, 80, &o, &err), &err);
    /* Rows other than the row group's. */
    CHECK_STATUS(decode_one(&c, s, 81, &o, &err), BASALT_CORRUPT, &err);
    /* Values and page size limits. */
    o.max_values = 79;
    CHECK_STATUS(decode_one(&c, s, 80, &o, &err), BASALT_LIMIT, &err);
    o.max_values = INT32_MAX;
    o.max_page_size = 100;
    CHECK_STATUS(decode_one(&c, s, 80, &o, &err), BASALT_LIMIT, &err);
    /* The chunk cut inside the second page, and before it. */
    size_t full = c.bytes.size;
    c.bytes.size = full - 10;
    CHECK_STATUS(decode_one(&c, s, 80, NULL, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "page 1") != NULL);
    c.bytes.size = (size_t)c.page_offsets[1];
    CHECK_STATUS(decode_one(&c, s, 80, NULL, &err), BASALT_CORRUPT, &err);
    /* Metadata claiming fewer values: the reader stops there. */
    c.bytes.size = full;
    c.meta.num_values = 40;
    CHECK_OK(decode_one(&c, s, 40, NULL, &err), &err);
    c.meta.num_values = -1;
    CHECK_STATUS(decode_one(&c, s, 40, NULL, &err), BASALT_CORRUPT, &err);
    c.meta.num_values = 80;
    /* Not the leaf's physical type. */
    c.meta.type = BASALT_PARQUET_TYPE_INT64;
    CHECK_STATUS(decode_one(&c, s, 80, NULL, &err), BASALT_CORRUPT, &err);
    c.meta.type = I32;
    /* Unsupported codecs. */
    c.meta.codec = BASALT_PARQUET_COMPRESSION_CODEC_LZO;
    CHECK_STATUS(decode_one(&c, s, 80, NULL, &err), BASALT_UNSUPPORTED, &err);
    c.meta.codec = 99;
    CHECK_STATUS(decode_one(&c, s, 80, NULL, &err), BASALT_UNSUPPORTED, &err);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
}

TEST(page_unknown_page_types_skipped)
{
    struct basalt_parquet_schema *s = int_schema(REQ);
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, 0);
    int_page(&c, 0, 0, 4, false, NULL);
    uint8_t junk[7] = {1, 2, 3, 4, 5, 6, 7};
    struct pqc_page idx = {.type = BASALT_PARQUET_PAGE_TYPE_INDEX_PAGE, .values = junk,
                           .values_len = sizeof junk};
    pqc_chunk_add(&c, &idx);
    struct pqc_page future = {.type = 9, .values = junk, .values_len = sizeof junk};
    pqc_chunk_add(&c, &future);
    int_page(&c, 0, 4, 4, false, NULL);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    struct basalt_error err;
    struct basalt_parquet_scratch *scratch;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    basalt_status st = decode_rows(s, &c, 8, NULL, scratch, &text, &err);
    char want[512];
    int_rows(want, sizeof want, 0, 8, false);
    bool same = pqc_text_is(&text, want);
    basalt_parquet_scratch_free(scratch);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
    CHECK_OK(st, &err);
    CHECK(same);
}

/* A selection leaves out the middle page, whose bytes are zeroed as a reader
 * that never fetched them would leave them. */
TEST(page_selection_skips_pages)
{
    struct basalt_parquet_schema *s = int_schema(OPT);
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, BASALT_PARQUET_COMPRESSION_CODEC_GZIP);
    int_page(&c, 0, 0, 10, true, NULL);
    int_page(&c, 0, 10, 10, true, NULL);
    int_page(&c, 0, 20, 10, true, NULL);
    memset(c.bytes.data + c.page_offsets[1], 0, (size_t)(c.page_offsets[2] - c.page_offsets[1]));
    uint8_t selected[3] = {1, 0, 1};
    int64_t first_row[3] = {0, 10, 20};
    struct basalt_parquet_page_selection sel = {3, selected, c.page_offsets, first_row};
    struct basalt_parquet_scratch *scratch;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    struct basalt_parquet_chunk_source src;
    pqc_source(&c, s, 0, 30, &src);
    src.pages = &sel;
    struct basalt_parquet_leaf_values leaf;
    basalt_status st = basalt_parquet_column_decode(&src, NULL, scratch, &leaf, &err);
    int64_t n = leaf.n_rows;
    bool values_ok = st == BASALT_OK && leaf.values.length == 20;
    if (values_ok) {
        const int32_t *v = leaf.values.buffers[1];
        const uint8_t *valid = leaf.values.buffers[0];
        for (int i = 0; i < 20; i++) {
            int want = i < 10 ? i : i + 10;
            bool null = want % 3 == 0;
            values_ok &= basalt_bitmap_get(valid, i) == !null && (null || v[i] == want);
        }
    }
    basalt_parquet_leaf_values_reset(&leaf);
    struct basalt_parquet_scratch_stats ss;
    basalt_parquet_scratch_get_stats(scratch, &ss);
    /* An offset index that does not match the pages. */
    c.page_offsets[2] += 1;
    basalt_status bad = basalt_parquet_column_decode(&src, NULL, scratch, &leaf, &err);
    basalt_parquet_scratch_free(scratch);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
    CHECK_OK(st, &err);
    CHECK_EQ(n, 20);
    CHECK(values_ok);
    CHECK_EQ(ss.pages_skipped, 1);
    CHECK_EQ(ss.data_pages, 2);
    CHECK_EQ(bad, BASALT_CORRUPT);
}

/* Legacy BIT_PACKED definition levels. */
TEST(page_bit_packed_levels)
{
    struct basalt_parquet_schema *s = int_schema(OPT);
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, 0);
    struct pqc_page bp = {.def_bit_packed = true};
    int_page(&c, 0, 0, 13, true, &bp);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    struct basalt_error err;
    struct basalt_parquet_scratch *scratch;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    basalt_status st = decode_rows(s, &c, 13, NULL, scratch, &text, &err);
    char want[512];
    int_rows(want, sizeof want, 0, 13, true);
    bool same = pqc_text_is(&text, want);
    basalt_parquet_scratch_free(scratch);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
    CHECK_OK(st, &err);
    CHECK(same);
}

/* Many pages, one scratch: after the first chunk, decoding the same chunk
 * again allocates only the output (the array, its buffers), however many
 * pages there are. */
TEST(page_no_allocation_per_page)
{
    struct basalt_parquet_schema *s = int_schema(OPT);
    struct pqc_chunk c;
    pqc_chunk_init(&c, I32, BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY);
    for (int p = 0; p < 40; p++)
        int_page(&c, p % 2 ? V2 : 0, p * 10, 10, true, NULL);
    struct basalt_parquet_scratch *scratch;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_scratch_new(&scratch, &err), &err);
    struct basalt_parquet_chunk_source src;
    pqc_source(&c, s, 0, 400, &src);
    struct basalt_parquet_leaf_values leaf;
    basalt_status st = basalt_parquet_column_decode(&src, NULL, scratch, &leaf, &err);
    basalt_parquet_leaf_values_reset(&leaf);
    int64_t before = basalt_alloc_total();
    basalt_status st2 = basalt_parquet_column_decode(&src, NULL, scratch, &leaf, &err);
    int64_t allocs = basalt_alloc_total() - before;
    basalt_parquet_leaf_values_reset(&leaf);
    basalt_parquet_scratch_free(scratch);
    pqc_chunk_reset(&c);
    basalt_parquet_schema_free(s);
    CHECK_OK(st, &err);
    CHECK_OK(st2, &err);
    /* array struct + buffer table + values + validity */
    CHECK_MSG(allocs <= 5, "%lld allocations for 40 pages", (long long)allocs);
}
