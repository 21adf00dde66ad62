/* Values of one leaf: every encoding into every output layout, the
 * conversions (narrowing, unsigned, dates, decimals, INT96), byte-array
 * offsets (32 and 64 bits, their limit), dictionary output, and the paths
 * the decoder took (scratch counters). Expected values are written out by
 * hand from the specification's definitions. */
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
void pqc_append(struct basalt_buffer *b, const void *p, size_t n);
void pqc_plain_i32(struct basalt_buffer *b, const int32_t *v, size_t n);
void pqc_plain_i64(struct basalt_buffer *b, const int64_t *v, size_t n);
void pqc_plain_bytes(struct basalt_buffer *b, const char *const *v, size_t n);
void pqc_dict_indices(struct basalt_buffer *b, const uint32_t *idx, size_t n, uint32_t dict_len);
basalt_status pqc_rows(const struct basalt_parquet_schema *s, struct pqc_chunk *chunks,
                       int64_t num_rows, const struct basalt_parquet_column_options *o,
                       struct basalt_parquet_scratch *scratch, struct basalt_buffer *text,
                       struct basalt_error *err);
bool pqc_text_is(struct basalt_buffer *text, const char *want);

#define REQ BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED
#define OPT BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL
#define GROUP (-1)
#define NONE (-1)
#define PLAIN BASALT_PARQUET_ENCODING_PLAIN
#define DICT BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE
#define RLE_DICT BASALT_PARQUET_ENCODING_RLE_DICTIONARY

/* ------------------------------------------------------------------ helpers */

/* One optional leaf (root + `leaf`); the chunk's pages come from the test. */
struct one {
    struct basalt_parquet_schema *schema;
    struct pqc_chunk chunk;
    struct basalt_parquet_scratch *scratch;
    struct basalt_buffer text;
    struct basalt_error err;
};

static bool one_init(struct one *o, struct pqc_el leaf, int32_t codec)
{
    memset(o, 0, sizeof *o);
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0}, leaf};
    if (pqc_schema(els, 2, &o->schema) != BASALT_OK)
        return false;
    pqc_chunk_init(&o->chunk, leaf.type, codec);
    basalt_buffer_init(&o->text);
    return basalt_parquet_scratch_new(&o->scratch, &o->err) == BASALT_OK;
}

static void one_free(struct one *o)
{
    basalt_parquet_scratch_free(o->scratch);
    pqc_chunk_reset(&o->chunk);
    basalt_buffer_reset(&o->text);
    basalt_parquet_schema_free(o->schema);
}

/* A data page of `n` slots (def levels when `def`) with encoded values. */
static void data_page(struct one *o, int32_t encoding, const int16_t *def, int32_t n,
                      const struct basalt_buffer *values, bool v2)
{
    struct pqc_page p = {
        .type = v2 ? BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2 : 0,
        .num_values = n,
        .encoding = encoding,
        .def = def,
        .max_def = o->schema->leaves[0].max_def,
        .values = values->data,
        .values_len = values->size,
    };
    pqc_chunk_add(&o->chunk, &p);
}

static void dict_page(struct one *o, int32_t n, const struct basalt_buffer *values)
{
    struct pqc_page p = {.type = DICT, .num_values = n, .values = values->data,
                         .values_len = values->size};
    pqc_chunk_add(&o->chunk, &p);
}

static basalt_status one_rows(struct one *o, int64_t rows,
                              const struct basalt_parquet_column_options *opt)
{
    return pqc_rows(o->schema, &o->chunk, rows, opt, o->scratch, &o->text, &o->err);
}

static void buf_reset(struct basalt_buffer *b) { basalt_buffer_reset(b); }

/* The indices 0..n-1 of a dictionary of n entries, as a data page payload. */
static void all_indices(struct basalt_buffer *b, uint32_t n, const uint32_t *order)
{
    pqc_dict_indices(b, order, n, n);
}

/* ------------------------------------------------------------------ integers */

struct int_case {
    const char *what;
    int32_t type;
    int32_t converted;
    int64_t values[3];
    const char *want; /* rows for values[0], null, values[1], values[2] */
};

TEST(column_integer_conversions)
{
    static const struct int_case cases[] = {
        {"INT_8", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_INT_8, {-5, 127, -128},
         "[\"-5\"]\n[null]\n[\"127\"]\n[\"-128\"]\n"},
        {"UINT_8", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_UINT_8, {250, 0, 255},
         "[\"250\"]\n[null]\n[\"0\"]\n[\"255\"]\n"},
        {"INT_16", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_INT_16,
         {-300, 32767, -32768},
         "[\"-300\"]\n[null]\n[\"32767\"]\n[\"-32768\"]\n"},
        {"UINT_16", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_UINT_16,
         {65000, 1, 65535},
         "[\"65000\"]\n[null]\n[\"1\"]\n[\"65535\"]\n"},
        {"UINT_32", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_UINT_32,
         {-294967296, 7, -1},
         "[\"4000000000\"]\n[null]\n[\"7\"]\n[\"4294967295\"]\n"},
        {"UINT_64", BASALT_PARQUET_TYPE_INT64, BASALT_PARQUET_CONVERTED_TYPE_UINT_64,
         {-1, 42, INT64_MIN},
         "[\"18446744073709551615\"]\n[null]\n[\"42\"]\n[\"9223372036854775808\"]\n"},
        {"DATE", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_DATE, {19000, -1, 0},
         "[\"19000\"]\n[null]\n[\"-1\"]\n[\"0\"]\n"},
        {"TIME_MILLIS", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_TIME_MILLIS,
         {1500, 0, 86399999},
         "[\"1500000\"]\n[null]\n[\"0\"]\n[\"86399999000\"]\n"},
        {"TIMESTAMP_MILLIS", BASALT_PARQUET_TYPE_INT64,
         BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MILLIS, {1704141296123, -1, 0},
         "[\"1704141296123000\"]\n[null]\n[\"-1000\"]\n[\"0\"]\n"},
        {"DECIMAL(9,2) INT32", BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_CONVERTED_TYPE_DECIMAL,
         {-12345, 7, 999999999},
         "[\"-123.45\"]\n[null]\n[\"0.07\"]\n[\"9999999.99\"]\n"},
        {"DECIMAL(18,2) INT64", BASALT_PARQUET_TYPE_INT64, BASALT_PARQUET_CONVERTED_TYPE_DECIMAL,
         {-1, 123456789012345, INT64_C(-999999999999999999)},
         "[\"-0.01\"]\n[null]\n[\"1234567890123.45\"]\n[\"-9999999999999999.99\"]\n"},
    };
    const int16_t def[] = {1, 0, 1, 1};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct int_case *k = &cases[c];
        bool is64 = k->type == BASALT_PARQUET_TYPE_INT64;
        struct pqc_el leaf = {"v", k->type, OPT, 0, k->converted, 0, 0, 0};
        if (k->converted == BASALT_PARQUET_CONVERTED_TYPE_DECIMAL) {
            leaf.precision = is64 ? 18 : 9;
            leaf.scale = 2;
        }
        for (int mode = 0; mode < 2; mode++) {
            struct one o;
            CHECK(one_init(&o, leaf, BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY));
            struct basalt_buffer vals, idx;
            basalt_buffer_init(&vals);
            basalt_buffer_init(&idx);
            int32_t v32[3];
            for (int i = 0; i < 3; i++)
                v32[i] = (int32_t)k->values[i];
            if (is64)
                pqc_plain_i64(&vals, k->values, 3);
            else
                pqc_plain_i32(&vals, v32, 3);
            if (mode == 0) {
                data_page(&o, PLAIN, def, 4, &vals, false);
            } else {
                /* The dictionary in reverse, so the indices matter. */
                int64_t r64[3] = {k->values[2], k->values[1], k->values[0]};
                int32_t r32[3] = {v32[2], v32[1], v32[0]};
                basalt_buffer_reset(&vals);
                if (is64)
                    pqc_plain_i64(&vals, r64, 3);
                else
                    pqc_plain_i32(&vals, r32, 3);
                dict_page(&o, 3, &vals);
                const uint32_t order[3] = {2, 1, 0};
                all_indices(&idx, 3, order);
                data_page(&o, RLE_DICT, def, 4, &idx, true);
            }
            basalt_status st = one_rows(&o, 4, NULL);
            if (st != BASALT_OK)
                fprintf(stderr, "%s mode %d: %s\n", k->what, mode, o.err.message);
            bool same = st == BASALT_OK && pqc_text_is(&o.text, k->want);
            struct basalt_parquet_scratch_stats ss;
            basalt_parquet_scratch_get_stats(o.scratch, &ss);
            buf_reset(&vals);
            buf_reset(&idx);
            one_free(&o);
            CHECK_MSG(same, "%s (%s)", k->what, mode ? "dictionary" : "PLAIN");
            if (mode == 1)
                CHECK_EQ(ss.dict_gathered, 1);
        }
    }
}

/* INT96: nanoseconds of the day, then the Julian day. */
TEST(column_int96_timestamps)
{
    struct pqc_el leaf = {"t", BASALT_PARQUET_TYPE_INT96, OPT, 0, NONE, 0, 0, 0};
    struct one o;
    CHECK(one_init(&o, leaf, 0));
    struct {
        uint64_t nanos;
        uint32_t day;
    } in[3] = {{0, 2440588}, {1000, 2440589}, {500, 2440587}};
    struct basalt_buffer vals;
    basalt_buffer_init(&vals);
    for (int i = 0; i < 3; i++) {
        pqc_append(&vals, &in[i].nanos, 8);
        pqc_append(&vals, &in[i].day, 4);
    }
    const int16_t def[] = {1, 1, 0, 1};
    data_page(&o, PLAIN, def, 4, &vals, false);
    basalt_status st = one_rows(&o, 4, NULL);
    bool same = st == BASALT_OK &&
                pqc_text_is(&o.text, "[\"0\"]\n[\"86400000001\"]\n[null]\n[\"-86400000000\"]\n");
    struct basalt_parquet_scratch_stats ss;
    basalt_parquet_scratch_get_stats(o.scratch, &ss);
    buf_reset(&vals);
    one_free(&o);
    CHECK_OK(st, &o.err);
    CHECK(same);
    CHECK_EQ(ss.values_converted, 1);
}

static void be_bytes(uint8_t *out, size_t n, const char *hex)
{
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        out[i] = (uint8_t)b;
    }
}

/* FIXED_LEN_BYTE_ARRAY decimals: big-endian two's complement, to 16 bytes
 * (precision <= 38) and to 32 bytes (decimal256). */
TEST(column_flba_decimals)
{
    struct pqc_el leaf5 = {"d", BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY, OPT, 0,
                           BASALT_PARQUET_CONVERTED_TYPE_DECIMAL, 5, 10, 2};
    struct pqc_el leaf20 = {"d", BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY, OPT, 0,
                            BASALT_PARQUET_CONVERTED_TYPE_DECIMAL, 20, 40, 0};
    for (int wide = 0; wide < 2; wide++) {
        for (int dict = 0; dict < 2; dict++) {
            struct one o;
            CHECK(one_init(&o, wide ? leaf20 : leaf5, BASALT_PARQUET_COMPRESSION_CODEC_GZIP));
            size_t w = wide ? 20 : 5;
            uint8_t v[3][20];
            if (wide) {
                be_bytes(v[0], 20, "fffffffffffffffffffffffffffffffffffffffe"); /* -2 */
                be_bytes(v[1], 20, "0000000000000010000000000000000000000000"); /* 2^100 */
                be_bytes(v[2], 20, "8000000000000000000000000000000000000000"); /* -2^159 */
            } else {
                be_bytes(v[0], 5, "ffffffffff");
                be_bytes(v[1], 5, "0000010000");
                be_bytes(v[2], 5, "8000000000");
            }
            struct basalt_buffer vals, idx;
            basalt_buffer_init(&vals);
            basalt_buffer_init(&idx);
            for (int i = 0; i < 3; i++)
                pqc_append(&vals, v[i], w);
            const int16_t def[] = {1, 0, 1, 1};
            if (dict) {
                dict_page(&o, 3, &vals);
                const uint32_t order[3] = {0, 1, 2};
                all_indices(&idx, 3, order);
                data_page(&o, RLE_DICT, def, 4, &idx, false);
            } else {
                data_page(&o, PLAIN, def, 4, &vals, true);
            }
            basalt_status st = one_rows(&o, 4, NULL);
            const char *want =
                wide ? "[\"-2\"]\n[null]\n[\"1267650600228229401496703205376\"]\n"
                       "[\"-730750818665451459101842416358141509827966271488\"]\n"
                     : "[\"-0.01\"]\n[null]\n[\"655.36\"]\n[\"-5497558138.88\"]\n";
            bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
            if (st != BASALT_OK)
                fprintf(stderr, "%s\n", o.err.message);
            buf_reset(&vals);
            buf_reset(&idx);
            one_free(&o);
            CHECK_MSG(same, "wide %d dict %d", wide, dict);
        }
    }
}

/* BYTE_ARRAY decimals of any length: empty is 0, sign bytes beyond 16 are
 * dropped, anything else beyond 16 bytes is CORRUPT. */
TEST(column_byte_array_decimals)
{
    struct pqc_el leaf = {"d", BASALT_PARQUET_TYPE_BYTE_ARRAY, OPT, 0,
                          BASALT_PARQUET_CONVERTED_TYPE_DECIMAL, 0, 38, 0};
    static const char *const hex[] = {"", "80", "00ff",
                                      "007fffffffffffffffffffffffffffffff",
                                      "ffff80000000000000000000000000000000"};
    const char *want = "[\"0\"]\n[\"-128\"]\n[null]\n[\"255\"]\n"
                       "[\"170141183460469231731687303715884105727\"]\n"
                       "[\"-170141183460469231731687303715884105728\"]\n";
    for (int dict = 0; dict < 2; dict++) {
        struct one o;
        CHECK(one_init(&o, leaf, 0));
        struct basalt_buffer vals, idx;
        basalt_buffer_init(&vals);
        basalt_buffer_init(&idx);
        for (int i = 0; i < 5; i++) {
            uint8_t b[32];
            uint32_t n = (uint32_t)strlen(hex[i]) / 2;
            be_bytes(b, n, hex[i]);
            pqc_append(&vals, &n, 4);
            pqc_append(&vals, b, n);
        }
        const int16_t def[] = {1, 1, 0, 1, 1, 1};
        if (dict) {
            dict_page(&o, 5, &vals);
            const uint32_t order[5] = {0, 1, 2, 3, 4};
            all_indices(&idx, 5, order);
            data_page(&o, RLE_DICT, def, 6, &idx, false);
        } else {
            data_page(&o, PLAIN, def, 6, &vals, false);
        }
        basalt_status st = one_rows(&o, 6, NULL);
        bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
        if (st != BASALT_OK)
            fprintf(stderr, "%s\n", o.err.message);
        buf_reset(&vals);
        buf_reset(&idx);
        one_free(&o);
        CHECK(same);
    }
    /* 17 significant bytes do not fit decimal128. */
    struct one o;
    CHECK(one_init(&o, leaf, 0));
    struct basalt_buffer vals;
    basalt_buffer_init(&vals);
    uint32_t n = 17;
    uint8_t b[17];
    memset(b, 0, sizeof b);
    b[0] = 1;
    pqc_append(&vals, &n, 4);
    pqc_append(&vals, b, n);
    const int16_t def[] = {1};
    data_page(&o, PLAIN, def, 1, &vals, false);
    basalt_status st = one_rows(&o, 1, NULL);
    buf_reset(&vals);
    one_free(&o);
    CHECK_EQ(st, BASALT_CORRUPT);
}

/* ------------------------------------------------------------------ booleans */

TEST(column_booleans_plain_and_rle)
{
    struct pqc_el leaf = {"b", BASALT_PARQUET_TYPE_BOOLEAN, OPT, 0, NONE, 0, 0, 0};
    struct one o;
    CHECK(one_init(&o, leaf, 0));
    /* PLAIN: 10 values true,false,true,true,... */
    const int16_t def[] = {1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    uint8_t bits[2] = {0x0d, 0x02}; /* 1,0,1,1,0,0,0,0, 0,1 */
    struct basalt_buffer plain, rle;
    basalt_buffer_init(&plain);
    basalt_buffer_init(&rle);
    pqc_append(&plain, bits, 2);
    data_page(&o, PLAIN, def, 11, &plain, false);
    /* RLE, length-prefixed: 12 values, eight true then 0,1,0,1. */
    struct basalt_buffer body;
    basalt_buffer_init(&body);
    struct basalt_parquet_rle_encoder enc;
    CHECK_OK(basalt_parquet_rle_encoder_init(&enc, 1, &body, NULL), NULL);
    const uint32_t rv[12] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1};
    CHECK_OK(basalt_parquet_rle_encoder_put(&enc, rv, 12, NULL), NULL);
    CHECK_OK(basalt_parquet_rle_encoder_finish(&enc, NULL), NULL);
    uint32_t blen = (uint32_t)body.size;
    pqc_append(&rle, &blen, 4);
    pqc_append(&rle, body.data, body.size);
    int16_t def2[13];
    for (int i = 0; i < 13; i++)
        def2[i] = i != 5;
    data_page(&o, BASALT_PARQUET_ENCODING_RLE, def2, 13, &rle, true);
    basalt_status st = one_rows(&o, 24, NULL);
    const char *want = "[true]\n[false]\n[null]\n[true]\n[true]\n[false]\n[false]\n[false]\n"
                       "[false]\n[false]\n[true]\n"
                       "[true]\n[true]\n[true]\n[true]\n[true]\n[null]\n[true]\n[true]\n[true]\n"
                       "[false]\n[true]\n[false]\n[true]\n";
    bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
    if (st != BASALT_OK)
        fprintf(stderr, "%s\n", o.err.message);
    buf_reset(&plain);
    buf_reset(&rle);
    buf_reset(&body);
    one_free(&o);
    CHECK(same);
}

/* ------------------------------------------------------------------ byte arrays */

static const char *const words[] = {"apple", "", "banana", "cherry pie", "x"};

static void words_plain(struct basalt_buffer *b) { pqc_plain_bytes(b, words, 5); }

static void words_view(int32_t *offsets, struct basalt_buffer *data)
{
    offsets[0] = 0;
    for (int i = 0; i < 5; i++) {
        pqc_append(data, words[i], strlen(words[i]));
        offsets[i + 1] = (int32_t)data->size;
    }
}

/* Five words through PLAIN, dictionary, DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY pages of one chunk, with nulls; 32- and 64-bit offsets. */
TEST(column_strings_every_encoding)
{
    struct pqc_el leaf = {"s", BASALT_PARQUET_TYPE_BYTE_ARRAY, OPT, 0,
                          BASALT_PARQUET_CONVERTED_TYPE_UTF8, 0, 0, 0};
    const int16_t def[] = {1, 0, 1, 1, 1, 1};
    const char *page_rows = "[\"apple\"]\n[null]\n[\"\"]\n[\"banana\"]\n[\"cherry pie\"]\n[\"x\"]\n";
    for (int large = 0; large < 2; large++) {
        struct one o;
        CHECK(one_init(&o, leaf, BASALT_PARQUET_COMPRESSION_CODEC_ZSTD));
        struct basalt_buffer dict, plain, idx, dl, db, data;
        basalt_buffer_init(&dict);
        basalt_buffer_init(&plain);
        basalt_buffer_init(&idx);
        basalt_buffer_init(&dl);
        basalt_buffer_init(&db);
        basalt_buffer_init(&data);
        words_plain(&dict);
        dict_page(&o, 5, &dict);
        const uint32_t order[5] = {0, 1, 2, 3, 4};
        all_indices(&idx, 5, order);
        data_page(&o, RLE_DICT, def, 6, &idx, false);
        words_plain(&plain);
        data_page(&o, PLAIN, def, 6, &plain, true);
        int32_t offsets[6];
        words_view(offsets, &data);
        struct basalt_parquet_binary_view view = {offsets, NULL, data.data};
        CHECK_OK(basalt_parquet_delta_length_encode(&view, 5, NULL, 0, &dl, NULL), NULL);
        data_page(&o, BASALT_PARQUET_ENCODING_DELTA_LENGTH_BYTE_ARRAY, def, 6, &dl, false);
        CHECK_OK(basalt_parquet_delta_bytes_encode(&view, NULL, 0, 5, NULL, 0, &db, NULL), NULL);
        data_page(&o, BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY, def, 6, &db, true);
        struct basalt_parquet_column_options opt;
        basalt_parquet_column_options_init(&opt);
        opt.large_offsets = large;
        basalt_status st = one_rows(&o, 24, &opt);
        char want[1024];
        snprintf(want, sizeof want, "%s%s%s%s", page_rows, page_rows, page_rows, page_rows);
        bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
        if (st != BASALT_OK)
            fprintf(stderr, "%s\n", o.err.message);
        /* A decode of the chunk as it is, for the output layout. */
        struct basalt_parquet_chunk_source src;
        pqc_source(&o.chunk, o.schema, 0, 24, &src);
        struct basalt_parquet_leaf_values lv;
        basalt_status st2 = basalt_parquet_column_decode(&src, &opt, o.scratch, &lv, &o.err);
        int32_t width = lv.width;
        int64_t last = 0;
        if (st2 == BASALT_OK)
            last = large ? ((const int64_t *)lv.values.buffers[1])[24]
                         : ((const int32_t *)lv.values.buffers[1])[24];
        basalt_parquet_leaf_values_reset(&lv);
        struct basalt_parquet_scratch_stats ss;
        basalt_parquet_scratch_get_stats(o.scratch, &ss);
        buf_reset(&dict);
        buf_reset(&plain);
        buf_reset(&idx);
        buf_reset(&dl);
        buf_reset(&db);
        buf_reset(&data);
        one_free(&o);
        CHECK(same);
        CHECK_OK(st2, &o.err);
        CHECK_EQ(width, large ? 8 : 4);
        CHECK_EQ(last, 4 * 22);
        CHECK_EQ(ss.dict_gathered, 2);
        CHECK_EQ(ss.values_direct, 6);
    }
}

/* 32-bit offsets overflowing is LIMIT (here with a lowered cap); 64-bit
 * offsets read the same chunk. */
TEST(column_binary_offset_limit)
{
    struct pqc_el leaf = {"s", BASALT_PARQUET_TYPE_BYTE_ARRAY, OPT, 0, NONE, 0, 0, 0};
    struct one o;
    CHECK(one_init(&o, leaf, 0));
    struct basalt_buffer plain;
    basalt_buffer_init(&plain);
    words_plain(&plain);
    const int16_t def[] = {1, 1, 1, 1, 1};
    data_page(&o, PLAIN, def, 5, &plain, false);
    struct basalt_parquet_column_options opt;
    basalt_parquet_column_options_init(&opt);
    opt.max_binary_bytes = 20;
    struct basalt_parquet_chunk_source src;
    pqc_source(&o.chunk, o.schema, 0, 5, &src);
    struct basalt_parquet_leaf_values lv;
    basalt_status a = basalt_parquet_column_decode(&src, &opt, o.scratch, &lv, &o.err);
    opt.max_binary_bytes = 22;
    basalt_status b = basalt_parquet_column_decode(&src, &opt, o.scratch, &lv, &o.err);
    basalt_parquet_leaf_values_reset(&lv);
    buf_reset(&plain);
    one_free(&o);
    CHECK_EQ(a, BASALT_LIMIT);
    CHECK_EQ(b, BASALT_OK);
}

/* keep_dictionary: every page dictionary-encoded gives indices and the
 * dictionary; a chunk falling back to PLAIN is materialised. */
TEST(column_keep_dictionary)
{
    struct pqc_el leaf = {"s", BASALT_PARQUET_TYPE_BYTE_ARRAY, OPT, 0,
                          BASALT_PARQUET_CONVERTED_TYPE_UTF8, 0, 0, 0};
    const int16_t def[] = {1, 0, 1, 1, 1, 1};
    for (int fallback = 0; fallback < 2; fallback++) {
        struct one o;
        CHECK(one_init(&o, leaf, 0));
        struct basalt_buffer dict, idx, plain;
        basalt_buffer_init(&dict);
        basalt_buffer_init(&idx);
        basalt_buffer_init(&plain);
        words_plain(&dict);
        dict_page(&o, 5, &dict);
        const uint32_t order[5] = {4, 3, 2, 1, 0};
        all_indices(&idx, 5, order);
        data_page(&o, RLE_DICT, def, 6, &idx, false);
        data_page(&o, RLE_DICT, def, 6, &idx, true);
        if (fallback) {
            words_plain(&plain);
            data_page(&o, PLAIN, def, 6, &plain, false);
        }
        struct basalt_parquet_column_options opt;
        basalt_parquet_column_options_init(&opt);
        opt.keep_dictionary = true;
        struct basalt_parquet_chunk_source src;
        int64_t rows = fallback ? 18 : 12;
        pqc_source(&o.chunk, o.schema, 0, rows, &src);
        struct basalt_parquet_leaf_values lv;
        basalt_status st = basalt_parquet_column_decode(&src, &opt, o.scratch, &lv, &o.err);
        bool is_dict = lv.is_dictionary;
        bool ok = st == BASALT_OK;
        if (ok && !fallback) {
            const int32_t *ix = lv.values.buffers[1];
            const uint8_t *valid = lv.values.buffers[0];
            const struct ArrowArray *d = lv.values.dictionary;
            ok = d && d->length == 5 && lv.values.length == 12 && lv.values.null_count == 2;
            for (int i = 0; ok && i < 12; i++) {
                int k = i % 6;
                bool null = k == 1;
                ok = basalt_bitmap_get(valid, i) == !null &&
                     (null || ix[i] == (int32_t)order[k < 1 ? 0 : k - 1]);
            }
            const int32_t *doff = d ? d->buffers[1] : NULL;
            ok = ok && doff[5] == 22 && memcmp((const uint8_t *)d->buffers[2] + doff[3], "cherry pie", 10) == 0;
        }
        struct basalt_parquet_scratch_stats ss;
        basalt_parquet_scratch_get_stats(o.scratch, &ss);
        basalt_parquet_leaf_values_reset(&lv);
        buf_reset(&dict);
        buf_reset(&idx);
        buf_reset(&plain);
        one_free(&o);
        CHECK_OK(st, &o.err);
        CHECK_EQ(is_dict, !fallback);
        CHECK(ok);
        CHECK_EQ(ss.dict_indices, fallback ? 0 : 2);
    }
}

/* ------------------------------------------------------------------ numbers */

/* DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT pages next to PLAIN ones. */
TEST(column_delta_and_byte_stream_split)
{
    const int16_t def[] = {1, 1, 0, 1, 1};
    /* int64 through DELTA_BINARY_PACKED, BSS and PLAIN */
    {
        struct pqc_el leaf = {"l", BASALT_PARQUET_TYPE_INT64, OPT, 0, NONE, 0, 0, 0};
        struct one o;
        CHECK(one_init(&o, leaf, BASALT_PARQUET_COMPRESSION_CODEC_LZ4_RAW));
        const int64_t v[4] = {INT64_MIN, -7, 1000000000000, INT64_MAX};
        struct basalt_buffer d, b, p;
        basalt_buffer_init(&d);
        basalt_buffer_init(&b);
        basalt_buffer_init(&p);
        CHECK_OK(basalt_parquet_delta_encode_i64(v, 4, NULL, 0, &d, NULL), NULL);
        CHECK_OK(basalt_parquet_bss_encode(v, 8, 4, NULL, 0, &b, NULL), NULL);
        pqc_plain_i64(&p, v, 4);
        data_page(&o, BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED, def, 5, &d, false);
        data_page(&o, BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT, def, 5, &b, true);
        data_page(&o, PLAIN, def, 5, &p, false);
        basalt_status st = one_rows(&o, 15, NULL);
        const char *rows = "[\"-9223372036854775808\"]\n[\"-7\"]\n[null]\n[\"1000000000000\"]\n"
                           "[\"9223372036854775807\"]\n";
        char want[1024];
        snprintf(want, sizeof want, "%s%s%s", rows, rows, rows);
        bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
        if (st != BASALT_OK)
            fprintf(stderr, "%s\n", o.err.message);
        buf_reset(&d);
        buf_reset(&b);
        buf_reset(&p);
        one_free(&o);
        CHECK(same);
    }
    /* int8 (converted) through DELTA_BINARY_PACKED and BSS */
    {
        struct pqc_el leaf = {"c", BASALT_PARQUET_TYPE_INT32, OPT, 0,
                              BASALT_PARQUET_CONVERTED_TYPE_INT_8, 0, 0, 0};
        struct one o;
        CHECK(one_init(&o, leaf, 0));
        const int32_t v[4] = {-128, -1, 0, 127};
        struct basalt_buffer d, b;
        basalt_buffer_init(&d);
        basalt_buffer_init(&b);
        CHECK_OK(basalt_parquet_delta_encode_i32(v, 4, NULL, 0, &d, NULL), NULL);
        CHECK_OK(basalt_parquet_bss_encode(v, 4, 4, NULL, 0, &b, NULL), NULL);
        data_page(&o, BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED, def, 5, &d, false);
        data_page(&o, BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT, def, 5, &b, false);
        basalt_status st = one_rows(&o, 10, NULL);
        const char *rows = "[\"-128\"]\n[\"-1\"]\n[null]\n[\"0\"]\n[\"127\"]\n";
        char want[512];
        snprintf(want, sizeof want, "%s%s", rows, rows);
        bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
        struct basalt_parquet_scratch_stats ss;
        basalt_parquet_scratch_get_stats(o.scratch, &ss);
        buf_reset(&d);
        buf_reset(&b);
        one_free(&o);
        CHECK(same);
        CHECK_EQ(ss.values_converted, 2);
    }
    /* FLBA(3) through BSS and DELTA_BYTE_ARRAY */
    {
        struct pqc_el leaf = {"w", BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY, OPT, 0, NONE, 3, 0, 0};
        struct one o;
        CHECK(one_init(&o, leaf, 0));
        const uint8_t v[12] = {1, 2, 3, 1, 2, 4, 0xff, 0, 0xee, 9, 9, 9};
        struct basalt_buffer b, d;
        basalt_buffer_init(&b);
        basalt_buffer_init(&d);
        CHECK_OK(basalt_parquet_bss_encode(v, 3, 4, NULL, 0, &b, NULL), NULL);
        CHECK_OK(basalt_parquet_delta_bytes_encode(NULL, v, 3, 4, NULL, 0, &d, NULL), NULL);
        data_page(&o, BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT, def, 5, &b, false);
        data_page(&o, BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY, def, 5, &d, true);
        basalt_status st = one_rows(&o, 10, NULL);
        const char *rows =
            "[\"hex:010203\"]\n[\"hex:010204\"]\n[null]\n[\"hex:ff00ee\"]\n[\"hex:090909\"]\n";
        char want[512];
        snprintf(want, sizeof want, "%s%s", rows, rows);
        bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
        if (st != BASALT_OK)
            fprintf(stderr, "%s\n", o.err.message);
        buf_reset(&b);
        buf_reset(&d);
        one_free(&o);
        CHECK(same);
    }
}

TEST(column_unsupported_encodings)
{
    struct pqc_el leaf = {"i", BASALT_PARQUET_TYPE_INT32, REQ, 0, NONE, 0, 0, 0};
    static const int32_t bad[] = {BASALT_PARQUET_ENCODING_DELTA_LENGTH_BYTE_ARRAY,
                                  BASALT_PARQUET_ENCODING_BIT_PACKED,
                                  BASALT_PARQUET_ENCODING_ALP, 77};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct one o;
        CHECK(one_init(&o, leaf, 0));
        struct basalt_buffer p;
        basalt_buffer_init(&p);
        const int32_t v[2] = {1, 2};
        pqc_plain_i32(&p, v, 2);
        data_page(&o, bad[i], NULL, 2, &p, false);
        basalt_status st = one_rows(&o, 2, NULL);
        buf_reset(&p);
        one_free(&o);
        CHECK_EQ(st, BASALT_UNSUPPORTED);
    }
}

/* Every allocation failing in turn: a clean NOMEM and nothing leaked. */
struct sweep_ctx {
    struct one *o;
};

static basalt_status sweep_attempt(void *ctx)
{
    struct one *o = ((struct sweep_ctx *)ctx)->o;
    struct basalt_parquet_scratch *scratch = NULL;
    struct basalt_error err;
    basalt_status st = basalt_parquet_scratch_new(&scratch, &err);
    if (st == BASALT_OK)
        st = pqc_rows(o->schema, &o->chunk, 12, NULL, scratch, NULL, &err);
    basalt_parquet_scratch_free(scratch);
    return st;
}

TEST(column_allocation_failures)
{
    struct pqc_el leaf = {"s", BASALT_PARQUET_TYPE_BYTE_ARRAY, OPT, 0,
                          BASALT_PARQUET_CONVERTED_TYPE_UTF8, 0, 0, 0};
    struct one o;
    CHECK(one_init(&o, leaf, BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY));
    struct basalt_buffer dict, idx, db;
    basalt_buffer_init(&dict);
    basalt_buffer_init(&idx);
    basalt_buffer_init(&db);
    words_plain(&dict);
    dict_page(&o, 5, &dict);
    const uint32_t order[5] = {0, 1, 2, 3, 4};
    all_indices(&idx, 5, order);
    const int16_t def[] = {1, 0, 1, 1, 1, 1};
    data_page(&o, RLE_DICT, def, 6, &idx, false);
    int32_t offsets[6];
    struct basalt_buffer data;
    basalt_buffer_init(&data);
    words_view(offsets, &data);
    struct basalt_parquet_binary_view view = {offsets, NULL, data.data};
    CHECK_OK(basalt_parquet_delta_bytes_encode(&view, NULL, 0, 5, NULL, 0, &db, NULL), NULL);
    data_page(&o, BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY, def, 6, &db, true);
    buf_reset(&dict);
    buf_reset(&idx);
    buf_reset(&db);
    buf_reset(&data);
    struct sweep_ctx ctx = {&o};
    int64_t n = bt_alloc_failure_sweep(__FILE__, __LINE__, sweep_attempt, &ctx);
    one_free(&o);
    CHECK(n > 5);
}

/* Streams whose last bit-packed run covers more values than the page holds
 * (as DuckDB writes them: it pads the run to 256 values): definition levels
 * and dictionary indices, each claiming 24 values for a page of 10. */
TEST(column_padded_final_runs)
{
    struct pqc_el leaf = {"v", BASALT_PARQUET_TYPE_INT32, OPT, 0, NONE, 0, 0, 0};
    struct one o;
    CHECK(one_init(&o, leaf, 0));
    struct basalt_buffer dict, body;
    basalt_buffer_init(&dict);
    basalt_buffer_init(&body);
    const int32_t dv[3] = {10, 20, 30};
    pqc_plain_i32(&dict, dv, 3);
    dict_page(&o, 3, &dict);
    /* def 1,0,1,1,0,1,1,1,1,0: one literal run of 3 groups (24 values) */
    const uint8_t levels[] = {4, 0, 0, 0, 0x07, 0xed, 0x01, 0x00};
    pqc_append(&body, levels, sizeof levels);
    /* 7 indices 0,1,2,0,1,2,0 of width 2: a literal run of 3 groups, 6 bytes */
    const uint8_t idx[] = {2, 0x07, 0x24, 0x49, 0x02, 0x00, 0x00, 0x00};
    pqc_append(&body, idx, sizeof idx);
    struct pqc_page p = {.num_values = 10, .encoding = RLE_DICT, .max_def = 1, .values = body.data,
                         .values_len = body.size, .raw_body = true};
    pqc_chunk_add(&o.chunk, &p);
    basalt_status st = one_rows(&o, 10, NULL);
    const char *want = "[\"10\"]\n[null]\n[\"20\"]\n[\"30\"]\n[null]\n[\"10\"]\n[\"20\"]\n"
                       "[\"30\"]\n[\"10\"]\n[null]\n";
    bool same = st == BASALT_OK && pqc_text_is(&o.text, want);
    if (st != BASALT_OK)
        fprintf(stderr, "%s\n", o.err.message);
    buf_reset(&dict);
    buf_reset(&body);
    one_free(&o);
    CHECK(same);
}

/* INT32 DELTA_BINARY_PACKED with deltas computed in 64 bits (a 33-bit
 * miniblock, as DuckDB writes them): the values modulo 2^32. */
TEST(column_int32_delta_wide_miniblocks)
{
    struct pqc_el leaf = {"v", BASALT_PARQUET_TYPE_INT32, OPT, 0, NONE, 0, 0, 0};
    struct one o;
    CHECK(one_init(&o, leaf, 0));
    const int64_t v[4] = {INT32_MIN, INT32_MAX, INT32_MIN, 5};
    struct basalt_buffer d;
    basalt_buffer_init(&d);
    CHECK_OK(basalt_parquet_delta_encode_i64(v, 4, NULL, 0, &d, NULL), NULL);
    const int16_t def[] = {1, 1, 0, 1, 1};
    data_page(&o, BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED, def, 5, &d, false);
    basalt_status st = one_rows(&o, 5, NULL);
    bool same = st == BASALT_OK &&
                pqc_text_is(&o.text, "[\"-2147483648\"]\n[\"2147483647\"]\n[null]\n"
                                     "[\"-2147483648\"]\n[\"5\"]\n");
    if (st != BASALT_OK)
        fprintf(stderr, "%s\n", o.err.message);
    buf_reset(&d);
    one_free(&o);
    CHECK(same);
}

/* Strings must be UTF-8 (RFC 3629): checked page by page, and once for a
 * dictionary; binary leaves are not checked; the option turns it off. */
TEST(column_utf8_checked)
{
    static const char *const good[] = {"plain", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    static const char *const bad[] = {"ok", "\xc3", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                      "\xc0\xaf"};
    const int16_t def[] = {1, 1, 1, 1};
    for (int annotated = 0; annotated < 2; annotated++) {
        struct pqc_el leaf = {"s", BASALT_PARQUET_TYPE_BYTE_ARRAY, OPT, 0,
                              annotated ? BASALT_PARQUET_CONVERTED_TYPE_UTF8 : NONE, 0, 0, 0};
        for (int dict = 0; dict < 2; dict++) {
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                for (int on = 0; on < 2; on++) {
                    struct one o;
                    CHECK(one_init(&o, leaf, 0));
                    struct basalt_buffer vals, idx;
                    basalt_buffer_init(&vals);
                    basalt_buffer_init(&idx);
                    const char *const words4[4] = {good[b % 4], good[(b + 1) % 4], bad[b], good[3]};
                    pqc_plain_bytes(&vals, words4, 4);
                    if (dict) {
                        dict_page(&o, 4, &vals);
                        const uint32_t order[4] = {0, 1, 2, 3};
                        all_indices(&idx, 4, order);
                        data_page(&o, RLE_DICT, def, 4, &idx, false);
                    } else {
                        data_page(&o, PLAIN, def, 4, &vals, true);
                    }
                    struct basalt_parquet_column_options opt;
                    basalt_parquet_column_options_init(&opt);
                    opt.validate_utf8 = on;
                    struct basalt_parquet_chunk_source src;
                    pqc_source(&o.chunk, o.schema, 0, 4, &src);
                    struct basalt_parquet_leaf_values lv;
                    basalt_status st = basalt_parquet_column_decode(&src, &opt, o.scratch, &lv, &o.err);
                    basalt_parquet_leaf_values_reset(&lv);
                    buf_reset(&vals);
                    buf_reset(&idx);
                    bool says = strstr(o.err.message, "not valid UTF-8") != NULL;
                    one_free(&o);
                    bool want_fail = annotated && on && b > 0;
                    CHECK_MSG(st == (want_fail ? BASALT_CORRUPT : BASALT_OK),
                              "annotated %d dict %d bad %zu on %d: %s", annotated, dict, b, on,
                              basalt_status_name(st));
                    if (want_fail)
                        CHECK(says);
                }
            }
        }
    }
}
