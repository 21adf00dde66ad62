/* The Parquet writer: seeded random tables of every flat type written with
 * every codec, page version and encoding, read back by basalt's reader and
 * compared value by value with the input; row group cuts; the dictionary
 * decisions; statistics against hand-computed bounds; failures of the N-th
 * allocation and of the N-th write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "parquet_encoding.h"
#include "test.h"
#include "writer_test_util.h"

/* ------------------------------------------------------------ the table */

struct wt_col {
    const char *format;
    const char *name;
    bool nullable;
    const char *field_id;  /* PARQUET:field_id, or NULL */
    bool uuid;
};

static const struct wt_col wt_cols[] = {
    {"b", "bool", true, "1", false},
    {"c", "i8", true, "2", false},
    {"C", "u8", false, NULL, false},
    {"s", "i16", true, NULL, false},
    {"S", "u16", true, NULL, false},
    {"i", "i32", true, "7", false},
    {"I", "u32", true, NULL, false},
    {"l", "i64", false, NULL, false},
    {"L", "u64", true, NULL, false},
    {"e", "f16", true, NULL, false},
    {"f", "f32", true, NULL, false},
    {"g", "f64", true, NULL, false},
    {"d:9,2,32", "dec32", true, NULL, false},
    {"d:18,3,64", "dec64", true, NULL, false},
    {"d:20,4", "dec128", true, NULL, false},
    {"d:40,5,256", "dec256", true, NULL, false},
    {"tdD", "date32", true, NULL, false},
    {"ttm", "time_ms", true, NULL, false},
    {"ttu", "time_us", true, NULL, false},
    {"ttn", "time_ns", true, NULL, false},
    {"tsm:", "ts_ms", true, NULL, false},
    {"tsu:UTC", "ts_us_utc", true, NULL, false},
    {"tsn:", "ts_ns", true, NULL, false},
    {"u", "str", true, "42", false},
    {"U", "large_str", true, NULL, false},
    {"z", "bin", true, NULL, false},
    {"Z", "large_bin", true, NULL, false},
    {"w:5", "fixed5", true, NULL, false},
    {"w:16", "uuid", true, NULL, true},
};
#define WT_NCOLS ((int)(sizeof wt_cols / sizeof wt_cols[0]))

static const char *const wt_words[] = {"", "a", "basalt", "lakehouse", "parquet", "zz\xc3\xa9",
                                       "0123456789abcdef0123456789", "x"};

/* One value of column `c` (nothing for nulls), `card` distinct values
 * (0: unbounded). */
static basalt_status wt_append(struct basalt_arrow_builder *b, int c, struct bt_rng *rng,
                               uint64_t card, struct basalt_error *err)
{
    const struct wt_col *col = &wt_cols[c];
    if (col->nullable && bt_rng_below(rng, 8) == 0)
        return basalt_arrow_builder_append_null(b, err);
    uint64_t r = card ? bt_rng_below(rng, card) * 0x9e3779b97f4a7c15ull : bt_rng_next(rng);
    const char *f = col->format;
    switch (f[0]) {
    case 'b':
        return basalt_arrow_builder_append_bool(b, r & 1, err);
    case 'c':
        return basalt_arrow_builder_append_int(b, (int8_t)r, err);
    case 'C':
        return basalt_arrow_builder_append_uint(b, (uint8_t)r, err);
    case 's':
        return basalt_arrow_builder_append_int(b, (int16_t)r, err);
    case 'S':
        return basalt_arrow_builder_append_uint(b, (uint16_t)r, err);
    case 'i':
        return basalt_arrow_builder_append_int(b, (int32_t)r, err);
    case 'I':
        return basalt_arrow_builder_append_uint(b, (uint32_t)r, err);
    case 'l':
        return basalt_arrow_builder_append_int(b, (int64_t)r, err);
    case 'L':
        return basalt_arrow_builder_append_uint(b, r, err);
    case 'e': {
        uint16_t h = (uint16_t)r;
        if ((h & 0x7c00) == 0x7c00)
            h &= 0xbfff; /* no NaN or infinity: readers differ on their bits */
        return basalt_arrow_builder_append_bytes(b, &h, 2, err);
    }
    case 'f':
        if (r % 17 == 0)
            return basalt_arrow_builder_append_double(b, 0.0 / 0.0, err);
        return basalt_arrow_builder_append_double(b, (double)(int32_t)r / 64.0, err);
    case 'g':
        if (r % 19 == 0)
            return basalt_arrow_builder_append_double(b, -0.0, err);
        return basalt_arrow_builder_append_double(b, (double)(int64_t)r / 1e6, err);
    case 'd': {
        if (strcmp(f, "d:9,2,32") == 0)
            return basalt_arrow_builder_append_int(b, (int64_t)(r % 1999999999) - 999999999, err);
        if (strcmp(f, "d:18,3,64") == 0)
            return basalt_arrow_builder_append_int(
                b, (int64_t)(r % 1999999999999999999ull) - 999999999999999999ll, err);
        /* 128 / 256: a signed 64-bit unscaled value, sign-extended */
        return basalt_arrow_builder_append_int(b, (int64_t)r / 3, err);
    }
    case 't':
        if (f[1] == 'd')
            return basalt_arrow_builder_append_int(b, (int32_t)(r % 200000) - 100000, err);
        if (f[1] == 't') {
            int64_t day = f[2] == 'm' ? 86400000ll : f[2] == 'u' ? 86400000000ll
                                                                  : 86400000000000ll;
            return basalt_arrow_builder_append_int(b, (int64_t)(r % (uint64_t)day), err);
        }
        return basalt_arrow_builder_append_int(b, (int64_t)(r % 4000000000000000000ull) -
                                                      2000000000000000000ll,
                                               err);
    case 'u':
    case 'U':
    case 'z':
    case 'Z': {
        const char *w = wt_words[r % 8];
        char buf[128];
        int n = snprintf(buf, sizeof buf, "%s%llu", w, (unsigned long long)(r >> 3) % 1000);
        if (f[0] == 'z' && r % 5 == 0)
            n = 0;
        return basalt_arrow_builder_append_bytes(b, buf, n, err);
    }
    case 'w': {
        uint8_t buf[16];
        for (int k = 0; k < 16; k++)
            buf[k] = (uint8_t)(r >> (k % 8 * 8)) ^ (uint8_t)k;
        return basalt_arrow_builder_append_bytes(b, buf, f[2] == '5' ? 5 : 16, err);
    }
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "format %s", f);
    }
}

/* A record batch of `rows` rows of the columns in mask (bit per column;
 * 0: all) into schema/array. */
static basalt_status wt_table(uint64_t seed, int64_t rows, uint64_t card, uint64_t mask,
                              struct ArrowSchema *schema, struct ArrowArray *array,
                              struct basalt_error *err)
{
    struct basalt_arrow_builder *root = NULL;
    struct basalt_arrow_builder *kids[64];
    int cols[64];
    int n = 0;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    for (int c = 0; c < WT_NCOLS && st == BASALT_OK; c++) {
        if (mask && !(mask >> c & 1))
            continue;
        st = basalt_arrow_builder_add_child(root, wt_cols[c].format, wt_cols[c].name,
                                            wt_cols[c].nullable ? ARROW_FLAG_NULLABLE : 0,
                                            &kids[n], err);
        if (st != BASALT_OK)
            break;
        struct basalt_buffer md;
        basalt_buffer_init(&md);
        if (wt_cols[c].field_id)
            st = basalt_arrow_metadata_append(&md, "PARQUET:field_id", 16, wt_cols[c].field_id,
                                              strlen(wt_cols[c].field_id), err);
        if (st == BASALT_OK && wt_cols[c].uuid)
            st = basalt_arrow_metadata_append(&md, "ARROW:extension:name", 20, "arrow.uuid", 10,
                                              err);
        if (st == BASALT_OK && md.size)
            st = basalt_arrow_builder_set_metadata(kids[n], (const char *)md.data, err);
        basalt_buffer_reset(&md);
        cols[n++] = c;
    }
    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    for (int64_t r = 0; r < rows && st == BASALT_OK; r++) {
        for (int k = 0; k < n && st == BASALT_OK; k++)
            st = wt_append(kids[k], cols[k], &rng, card, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, array, err);
    basalt_arrow_builder_free(root);
    return st;
}

/* ------------------------------------------------------------ comparison */

/* Bytes of value i of a flat array (after its offset), dictionary resolved.
 * Returns false for a null. */
static bool wt_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                     const uint8_t **p, size_t *len, uint8_t *bitbuf)
{
    int64_t k = a->offset + i;
    if (a->null_count != 0 && a->buffers[0] && !basalt_bitmap_get(a->buffers[0], k))
        return false;
    if (s->dictionary) {
        struct basalt_arrow_type it;
        basalt_arrow_type_parse(s->format, &it, NULL);
        int64_t idx;
        switch (it.bit_width) {
        case 8: idx = ((const int8_t *)a->buffers[1])[k]; break;
        case 16: idx = ((const int16_t *)a->buffers[1])[k]; break;
        case 32: idx = ((const int32_t *)a->buffers[1])[k]; break;
        default: idx = ((const int64_t *)a->buffers[1])[k]; break;
        }
        return wt_value(s->dictionary, a->dictionary, idx, p, len, bitbuf);
    }
    struct basalt_arrow_type t;
    basalt_arrow_type_parse(s->format, &t, NULL);
    switch (t.id) {
    case BASALT_ARROW_TYPE_BOOL:
        bitbuf[0] = basalt_bitmap_get(a->buffers[1], k);
        *p = bitbuf;
        *len = 1;
        return true;
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_BINARY: {
        const int32_t *o = a->buffers[1];
        *p = (const uint8_t *)a->buffers[2] + o[k];
        *len = (size_t)(o[k + 1] - o[k]);
        return true;
    }
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY: {
        const int64_t *o = a->buffers[1];
        *p = (const uint8_t *)a->buffers[2] + o[k];
        *len = (size_t)(o[k + 1] - o[k]);
        return true;
    }
    default:
        *len = (size_t)t.bit_width / 8;
        *p = (const uint8_t *)a->buffers[1] + (size_t)k * *len;
        return true;
    }
}

/* Compares column c of `in` with the concatenation of the batches. */
static void wt_compare(const struct ArrowSchema *in_s, const struct ArrowArray *in,
                       const struct basalt_arrow_batches *out)
{
    CHECK_EQ(out->schema.n_children, in_s->n_children);
    if (out->schema.n_children != in_s->n_children)
        return;
    int64_t total = 0;
    for (int64_t b = 0; b < out->n; b++)
        total += out->arrays[b].length;
    CHECK_EQ(total, in->length);
    for (int64_t c = 0; c < in_s->n_children; c++) {
        const struct ArrowSchema *is = in_s->children[c];
        const struct ArrowSchema *os = out->schema.children[c];
        const char *iform = is->dictionary ? is->dictionary->format : is->format;
        const char *oform = os->dictionary ? os->dictionary->format : os->format;
        /* every type comes back as written (ARROW:schema restores decimal32/64) */
        bool decimals = strncmp(iform, "d:", 2) == 0 && strncmp(oform, "d:", 2) == 0;
        CHECK_MSG(strcmp(iform, oform) == 0, "column %s: wrote %s, read %s", is->name, iform,
                  oform);
        CHECK_STR(is->name, os->name);
        int64_t row = 0;
        int bad = 0;
        for (int64_t b = 0; b < out->n && bad < 3; b++) {
            const struct ArrowArray *oa = out->arrays[b].children[c];
            for (int64_t i = 0; i < oa->length && bad < 3; i++, row++) {
                const uint8_t *p1 = NULL, *p2 = NULL;
                size_t l1 = 0, l2 = 0;
                uint8_t b1[1], b2[1];
                bool v1 = wt_value(is, in->children[c], row, &p1, &l1, b1);
                bool v2 = wt_value(os, oa, i, &p2, &l2, b2);
                bool same = v1 == v2;
                if (same && v1 && decimals) {
                    /* sign-extended little-endian comparison */
                    size_t m = l1 > l2 ? l1 : l2;
                    for (size_t k = 0; k < m && same; k++) {
                        uint8_t x = k < l1 ? p1[k] : (p1[l1 - 1] & 0x80 ? 0xff : 0);
                        uint8_t y = k < l2 ? p2[k] : (p2[l2 - 1] & 0x80 ? 0xff : 0);
                        same = x == y;
                    }
                } else if (same && v1) {
                    same = l1 == l2 && (l1 == 0 || memcmp(p1, p2, l1) == 0);
                }
                if (!same) {
                    bt_fail(__FILE__, __LINE__, "column %s row %lld differs (%d/%d, %zu/%zu)",
                            is->name, (long long)row, v1, v2, l1, l2);
                    bad++;
                }
            }
        }
    }
}

/* ------------------------------------------------------------ round trips */

static basalt_status wt_write_mem(const struct ArrowSchema *s, const struct ArrowArray *a,
                                  const struct basalt_parquet_writer_options *o, int nbatches,
                                  uint8_t **data, size_t *len, struct basalt_error *err)
{
    return wtu_write(s, a, o, nbatches, data, len, NULL, err);
}

static bool wt_ignore_arrow_schema;

static basalt_status wt_read_mem(const uint8_t *data, size_t len, struct basalt_arrow_batches *b,
                                 struct basalt_parquet_reader **reader, struct basalt_error *err)
{
    return wtu_read(data, len, wt_ignore_arrow_schema, b, reader, err);
}

static void wt_roundtrip(uint64_t seed, int64_t rows, uint64_t card, uint64_t mask,
                         const struct basalt_parquet_writer_options *o, int nbatches)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_table(seed, rows, card, mask, &s, &a, &err), &err);
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, o, nbatches, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    if (data) {
        CHECK_OK(wt_read_mem(data, len, &b, NULL, &err), &err);
        wt_compare(&s, &a, &b);
    }
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_roundtrip_every_type_defaults)
{
    wt_roundtrip(1, 5000, 0, 0, NULL, 1);
    wt_roundtrip(2, 5000, 20, 0, NULL, 7);  /* low cardinality: dictionaries */
    wt_roundtrip(3, 1, 0, 0, NULL, 1);
    wt_roundtrip(4, 0, 0, 0, NULL, 1);
}

TEST(writer_roundtrip_codecs_pages_dictionary)
{
    static const enum basalt_codec_kind codecs[] = {
        BASALT_CODEC_UNCOMPRESSED, BASALT_CODEC_SNAPPY,     BASALT_CODEC_GZIP,
        BASALT_CODEC_BROTLI,       BASALT_CODEC_LZ4_HADOOP, BASALT_CODEC_ZSTD,
        BASALT_CODEC_LZ4_RAW};
    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
        for (int v = 1; v <= 2; v++) {
            for (int d = 0; d <= 1; d++) {
                struct basalt_parquet_writer_options o;
                basalt_parquet_writer_options_init(&o);
                o.codec = codecs[c];
                o.codec_level = codecs[c] == BASALT_CODEC_ZSTD ? 1 : BASALT_CODEC_LEVEL_DEFAULT;
                o.page_version = v;
                o.dictionary = d;
                o.page_rows = 300;
                o.page_crc = (c + (size_t)v) % 2 == 0;
                wt_roundtrip(100 + c * 4 + (uint64_t)v * 2 + (uint64_t)d, 1500, d ? 50 : 0, 0,
                             &o, 3);
            }
        }
    }
}

TEST(writer_roundtrip_encodings)
{
    struct basalt_parquet_writer_column_encoding ce[] = {
        {"i32", BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED},
        {"i64", BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED},
        {"str", BASALT_PARQUET_ENCODING_DELTA_LENGTH_BYTE_ARRAY},
        {"bin", BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY},
        {"fixed5", BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY},
        {"f32", BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT},
        {"f64", BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT},
        {"f16", BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT},
        {"u8", BASALT_PARQUET_ENCODING_PLAIN},
        {"large_str", BASALT_PARQUET_ENCODING_RLE_DICTIONARY},
    };
    for (int v = 1; v <= 2; v++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.column_encodings = ce;
        o.num_column_encodings = sizeof ce / sizeof ce[0];
        o.page_rows = 700;
        o.page_version = v;
        wt_roundtrip(7 + (uint64_t)v, 3000, 0, 0, &o, 2);
    }
}

TEST(writer_rejects_bad_encoding_and_options)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_table(1, 10, 0, 0, &s, &a, &err), &err);
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    struct basalt_parquet_writer_column_encoding ce = {"str",
                                                       BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT};
    o.column_encodings = &ce;
    o.num_column_encodings = 1;
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    CHECK_STATUS(basalt_parquet_writer_open(out, true, &s, &o, &w, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK(w == NULL);
    ce.column = "nope";
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    CHECK_STATUS(basalt_parquet_writer_open(out, true, &s, &o, &w, &err), BASALT_NOT_FOUND, &err);
    basalt_parquet_writer_options_init(&o);
    o.codec = BASALT_CODEC_XZ;
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    CHECK_STATUS(basalt_parquet_writer_open(out, true, &s, &o, &w, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_parquet_writer_options_init(&o);
    o.page_version = 3;
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    CHECK_STATUS(basalt_parquet_writer_open(out, true, &s, &o, &w, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_rejects_nulls_in_required)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL;
    struct ArrowSchema s;
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;

    /* a field declared non-nullable whose array holds nulls */
    struct basalt_arrow_builder *c = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "i", "x", ARROW_FLAG_NULLABLE, &c, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(c, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    s.children[0]->flags = 0;
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    CHECK_OK(basalt_parquet_writer_open(out, true, &s, NULL, &w, &err), &err);
    CHECK_STATUS(basalt_parquet_writer_write(w, &a, &err), BASALT_INVALID_ARG, &err);
    /* a failed writer accepts nothing more */
    CHECK_STATUS(basalt_parquet_writer_finish(w, &err), BASALT_INVALID_ARG, &err);
    basalt_parquet_writer_close(w);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* ------------------------------------------------------------ metadata */

static const struct basalt_parquet_column_metadata *wt_chunk(const struct basalt_parquet_reader *r,
                                                             int rg, int col)
{
    return &basalt_parquet_reader_metadata(r)->row_groups[rg].columns[col].meta_data;
}

static bool wt_has_encoding(const struct basalt_parquet_column_metadata *m, int32_t enc)
{
    for (size_t i = 0; i < m->num_encodings; i++)
        if (m->encodings[i] == enc)
            return true;
    return false;
}

TEST(writer_row_groups_by_rows_and_bytes)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_table(5, 10000, 0, (1u << 5) | (1u << 23), &s, &a, &err), &err);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = 3000;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 4, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(wt_read_mem(data, len, &b, &r, &err), &err);
    if (r) {
        const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
        CHECK_EQ(md->num_row_groups, 4);
        CHECK_EQ(md->num_rows, 10000);
        static const int64_t want[] = {3000, 3000, 3000, 1000};
        for (size_t g = 0; g < md->num_row_groups && g < 4; g++)
            CHECK_EQ(md->row_groups[g].num_rows, want[g]);
        wt_compare(&s, &a, &b);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);

    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    /* by bytes: 40000 rows of about 4 + 12 bytes each (slices of 4096 rows,
     * about 65 KB), cut past 150 KB: 3 or 4 slices a row group */
    CHECK_OK(wt_table(6, 40000, 0, (1u << 5) | (1u << 23), &s, &a, &err), &err);
    o.row_group_rows = 0;
    o.row_group_bytes = 150000;
    o.codec = BASALT_CODEC_UNCOMPRESSED;
    o.dictionary = false;
    o.page_bytes = 8192;
    CHECK_OK(wt_write_mem(&s, &a, &o, 1, &data, &len, &err), &err);
    basalt_arrow_batches_init(&b);
    CHECK_OK(wt_read_mem(data, len, &b, &r, &err), &err);
    if (r) {
        const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
        CHECK_MSG(md->num_row_groups >= 3 && md->num_row_groups <= 5, "%zu row groups",
                  md->num_row_groups);
        for (size_t g = 0; g + 1 < md->num_row_groups; g++) {
            CHECK(md->row_groups[g].total_compressed_size >= 150000);
            CHECK(md->row_groups[g].total_compressed_size < 150000 + 100000);
            CHECK_EQ(md->row_groups[g].num_rows % 4096, 0);
        }
        wt_compare(&s, &a, &b);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* One int64 column: `distinct` values first, then every value new. */
static void wt_int_batch(int64_t rows, int64_t repeat_until, int64_t card,
                         struct ArrowSchema *s, struct ArrowArray *a)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *c = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "l", "v", ARROW_FLAG_NULLABLE, &c, &err), &err);
    for (int64_t i = 0; i < rows; i++) {
        CHECK_OK(basalt_arrow_builder_append_int(c, i < repeat_until ? i % card : i * 7919, &err),
                 &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    CHECK_OK(basalt_arrow_builder_finish(root, s, a, &err), &err);
    basalt_arrow_builder_free(root);
}

static void wt_dict_case(int64_t rows, int64_t repeat_until, int64_t card, int64_t max_bytes,
                         bool want_dict, bool want_plain, bool want_dict_page)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    wt_int_batch(rows, repeat_until, card, &s, &a);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 1000;
    o.dictionary_max_bytes = max_bytes;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 1, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(wt_read_mem(data, len, &b, &r, &err), &err);
    if (r) {
        const struct basalt_parquet_column_metadata *m = wt_chunk(r, 0, 0);
        CHECK_EQ(wt_has_encoding(m, BASALT_PARQUET_ENCODING_RLE_DICTIONARY), want_dict);
        CHECK_EQ(m->has_dictionary_page_offset, want_dict_page);
        /* PLAIN data pages: the encodings name PLAIN without a dictionary
         * page, or a dictionary page and PLAIN pages besides */
        bool plain_pages = wt_has_encoding(m, BASALT_PARQUET_ENCODING_PLAIN) &&
                           (!want_dict_page || want_plain);
        CHECK_EQ(plain_pages, want_plain);
        wt_compare(&s, &a, &b);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_dictionary_decisions)
{
    /* few distinct values: dictionary throughout */
    wt_dict_case(5000, 5000, 10, 1 << 20, true, false, true);
    /* every value distinct from the first page on: abandoned, no dictionary page */
    wt_dict_case(5000, 0, 1, 1 << 20, false, true, false);
    /* dictionary pages first, then the cap (800 bytes = 100 int64) is hit
     * part-way: the rest of the chunk PLAIN */
    wt_dict_case(5000, 2000, 50, 800, true, true, true);
}

TEST(writer_dictionary_fallback_page_layout)
{
    /* The page structure of the fallback case, read from the file bytes:
     * one dictionary page, then RLE_DICTIONARY pages, then PLAIN pages. */
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    wt_int_batch(5000, 2000, 50, &s, &a);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 1000;
    o.dictionary_max_bytes = 800;
    o.codec = BASALT_CODEC_UNCOMPRESSED;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 1, &data, &len, &err), &err);
    size_t pos = 4;
    int types[16], encs[16], n = 0;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    while (data && n < 16) {
        struct basalt_parquet_page_header ph;
        size_t hl;
        if (basalt_thrift_decode_page_header(data + pos, len - pos, &arena, NULL, &ph, &hl,
                                             NULL) != BASALT_OK)
            break;
        types[n] = ph.type;
        encs[n] = ph.has_data_page_header ? ph.data_page_header.encoding : -1;
        n++;
        pos += hl + (size_t)ph.compressed_page_size;
        if (n == 6)
            break;
    }
    basalt_arena_reset(&arena);
    CHECK_EQ(n, 6);
    if (n == 6) {
        CHECK_EQ(types[0], BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE);
        CHECK_EQ(encs[1], BASALT_PARQUET_ENCODING_RLE_DICTIONARY);
        CHECK_EQ(encs[2], BASALT_PARQUET_ENCODING_RLE_DICTIONARY);
        CHECK_EQ(encs[3], BASALT_PARQUET_ENCODING_PLAIN);
        CHECK_EQ(encs[5], BASALT_PARQUET_ENCODING_PLAIN);
    }
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* Statistics of one-column tables with hand-computed bounds. */
struct wt_stats_case {
    const char *format;
    int n;
    const char *values[6]; /* NULL entries are nulls; numbers as text */
    const char *min_hex, *max_hex;
    int64_t nulls;
    bool min_exact, max_exact;
};

static void wt_hex(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * n] = '\0';
}

static void wt_stats(const struct wt_stats_case *k, size_t max_stats)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *c = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, k->format, "x", ARROW_FLAG_NULLABLE, &c, &err),
             &err);
    struct basalt_arrow_type t;
    basalt_arrow_type_parse(k->format, &t, NULL);
    for (int i = 0; i < k->n; i++) {
        const char *v = k->values[i];
        if (!v)
            CHECK_OK(basalt_arrow_builder_append_null(c, &err), &err);
        else if (t.id == BASALT_ARROW_TYPE_FLOAT || t.id == BASALT_ARROW_TYPE_DOUBLE)
            CHECK_OK(basalt_arrow_builder_append_double(c, strtod(v, NULL), &err), &err);
        else if (t.id == BASALT_ARROW_TYPE_UINT32 || t.id == BASALT_ARROW_TYPE_UINT64)
            CHECK_OK(basalt_arrow_builder_append_uint(c, strtoull(v, NULL, 0), &err), &err);
        else if (t.id == BASALT_ARROW_TYPE_STRING)
            CHECK_OK(basalt_arrow_builder_append_string(c, v, &err), &err);
        else
            CHECK_OK(basalt_arrow_builder_append_int(c, strtoll(v, NULL, 0), &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.max_statistics_size = max_stats;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 1, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(wt_read_mem(data, len, &b, &r, &err), &err);
    if (r) {
        const struct basalt_parquet_statistics *st = &wt_chunk(r, 0, 0)->statistics;
        char hex[300];
        CHECK(st->has_null_count);
        CHECK_EQ(st->null_count, k->nulls);
        CHECK_EQ(st->has_min_value, k->min_hex != NULL);
        CHECK_EQ(st->has_max_value, k->max_hex != NULL);
        if (st->has_min_value && k->min_hex) {
            wt_hex(st->min_value.data, st->min_value.len, hex);
            CHECK_MSG(strcmp(hex, k->min_hex) == 0, "%s: min %s, want %s", k->format, hex,
                      k->min_hex);
            CHECK_EQ(st->is_min_value_exact, k->min_exact);
        }
        if (st->has_max_value && k->max_hex) {
            wt_hex(st->max_value.data, st->max_value.len, hex);
            CHECK_MSG(strcmp(hex, k->max_hex) == 0, "%s: max %s, want %s", k->format, hex,
                      k->max_hex);
            CHECK_EQ(st->is_max_value_exact, k->max_exact);
        }
        wt_compare(&s, &a, &b);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_statistics_orders)
{
    static const struct wt_stats_case cases[] = {
        /* signed: -3 < 5 < 7 */
        {"i", 4, {"5", "-3", NULL, "7"}, "fdffffff", "07000000", 1, true, true},
        /* unsigned: 1 < 0xffffffff */
        {"I", 3, {"4294967295", "1", "2"}, "01000000", "ffffffff", 0, true, true},
        {"L", 2, {"18446744073709551615", "3"}, "0300000000000000", "ffffffffffffffff", 0,
         true, true},
        /* int8 widened to int32, signed */
        {"c", 3, {"-128", "127", NULL}, "80ffffff", "7f000000", 1, true, true},
        /* NaN is never a bound; a zero min is -0.0, a zero max +0.0 */
        {"g", 4, {"nan", "2.5", "-1", NULL}, "000000000000f0bf", "0000000000000440", 1, true,
         true},
        {"g", 3, {"0", "-0", "nan"}, "0000000000000080", "0000000000000000", 0, true, true},
        {"f", 2, {"nan", "nan"}, NULL, NULL, 0, true, true},
        /* decimals compare as signed numbers: -1 (ff..ff) < 2 (00..02) */
        {"d:9,2", 3, {"2", "-1", "1"}, "ffffffff", "00000002", 0, true, true},
        /* strings: unsigned bytes */
        {"u", 3, {"b", "\xc3\xa9", "a"}, "61", "c3a9", 0, true, true},
        /* truncated to 4 bytes: min a prefix, max a prefix bumped */
        {"u", 2, {"aaaaaaaa", "abcdefgh"}, "61616161", "61626365", 0, false, false},
        {"u", 1, {NULL}, NULL, NULL, 1, true, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        wt_stats(&cases[i], 4);
}

TEST(writer_footer_metadata)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_table(9, 100, 0, 0, &s, &a, &err), &err);
    struct basalt_buffer kv;
    basalt_buffer_init(&kv);
    CHECK_OK(basalt_arrow_metadata_append(&kv, "owner", 5, "basalt", 6, &err), &err);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.key_value_metadata = (const char *)kv.data;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 1, &data, &len, &err), &err);
    basalt_buffer_reset(&kv);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(wt_read_mem(data, len, &b, &r, &err), &err);
    if (r) {
        const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
        CHECK(md->has_created_by);
        CHECK_STR(md->created_by.data, "basalt version " BASALT_VERSION_STRING);
        bool owner = false, arrow = false;
        for (size_t i = 0; i < md->num_key_value_metadata; i++) {
            const struct basalt_parquet_key_value *p = &md->key_value_metadata[i];
            if (strcmp(p->key.data, "owner") == 0)
                owner = p->has_value && strcmp(p->value.data, "basalt") == 0;
            if (strcmp(p->key.data, "ARROW:schema") == 0)
                arrow = p->has_value && p->value.len > 0;
        }
        CHECK(owner);
        CHECK(arrow);
        /* field ids from PARQUET:field_id; none where the field has none */
        CHECK_EQ(md->num_schema, (size_t)WT_NCOLS + 1);
        for (int c = 0; c < WT_NCOLS && (size_t)c + 1 < md->num_schema; c++) {
            const struct basalt_parquet_schema_element *e = &md->schema[c + 1];
            CHECK_STR(e->name.data, wt_cols[c].name);
            CHECK_EQ(e->has_field_id, wt_cols[c].field_id != NULL);
            if (wt_cols[c].field_id && e->has_field_id)
                CHECK_EQ(e->field_id, atoi(wt_cols[c].field_id));
            CHECK_EQ(e->repetition_type, wt_cols[c].nullable
                                             ? BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL
                                             : BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED);
        }
        /* a few physical / logical mappings */
        CHECK_EQ(md->schema[3].type, BASALT_PARQUET_TYPE_INT32);          /* u8 */
        CHECK_EQ(md->schema[3].logical_type.integer.is_signed, false);
        CHECK_EQ(md->schema[3].logical_type.integer.bit_width, 8);
        CHECK_EQ(md->schema[10].type_length, 2);                          /* f16 */
        CHECK_EQ(md->schema[10].logical_type.kind, BASALT_PARQUET_LOGICAL_TYPE_FLOAT16);
        CHECK_EQ(md->schema[15].type_length, 9);                          /* decimal(20) */
        CHECK_EQ(md->schema[16].type_length, 17);                         /* decimal(40) */
        CHECK_EQ(md->schema[22].logical_type.time.is_adjusted_to_utc, true);  /* ts UTC */
        CHECK_EQ(md->schema[21].logical_type.time.is_adjusted_to_utc, false);
        CHECK_EQ(md->schema[29].logical_type.kind, BASALT_PARQUET_LOGICAL_TYPE_UUID);
        wt_compare(&s, &a, &b);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_dictionary_input_arrays)
{
    /* An Arrow dictionary<int8, utf8> column is written as its values. */
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *c = NULL, *d = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "c", "tag", ARROW_FLAG_NULLABLE, &c, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_dictionary(c, "u", &d, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(d, "red", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(d, "green", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(d, "blue", &err), &err);
    static const int idx[] = {2, 0, -1, 1, 1, 0};
    for (int i = 0; i < 6; i++) {
        if (idx[i] < 0)
            CHECK_OK(basalt_arrow_builder_append_null(c, &err), &err);
        else
            CHECK_OK(basalt_arrow_builder_append_int(c, idx[i], &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, NULL, 2, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_parquet_reader *r = NULL;
    /* Read as plain utf8: the reader's restoring of dictionary<int8> from
     * ARROW:schema is not what is under test here. */
    wt_ignore_arrow_schema = true;
    CHECK_OK(wt_read_mem(data, len, &b, &r, &err), &err);
    wt_ignore_arrow_schema = false;
    if (r && b.n == 1) {
        const struct ArrowArray *col = b.arrays[0].children[0];
        const struct ArrowSchema *cs = b.schema.children[0];
        static const char *const want[] = {"blue", "red", NULL, "green", "green", "red"};
        for (int i = 0; i < 6; i++) {
            const uint8_t *p;
            size_t l;
            uint8_t bit[1];
            bool valid = wt_value(cs, col, i, &p, &l, bit);
            CHECK_EQ(valid, want[i] != NULL);
            if (valid && want[i])
                CHECK_MSG(l == strlen(want[i]) && memcmp(p, want[i], l) == 0,
                          "row %d: '%.*s', want '%s' (%s)", i, (int)l, (const char *)p, want[i],
                          cs->format);
        }
        const struct basalt_parquet_statistics *st = &wt_chunk(r, 0, 0)->statistics;
        CHECK(st->has_min_value && st->min_value.len == 4 && memcmp(st->min_value.data, "blue", 4) == 0);
        CHECK(st->has_max_value && st->max_value.len == 3 && memcmp(st->max_value.data, "red", 3) == 0);
        CHECK_EQ(st->null_count, 1);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* ------------------------------------------------------------ faults */

TEST(writer_allocation_failures)
{
    struct basalt_error err;
    struct wtu_sweep k;
    CHECK_OK(wt_table(11, 300, 30, 0, &k.s, &k.a, &err), &err);
    basalt_parquet_writer_options_init(&k.o);
    k.o.page_rows = 100;
    k.o.row_group_rows = 200;
    CHECK_ALLOC_SWEEP(wtu_sweep_write, &k);
    k.o.page_version = 2;
    k.o.dictionary_max_bytes = 64;
    k.o.codec = BASALT_CODEC_SNAPPY;
    CHECK_ALLOC_SWEEP(wtu_sweep_write, &k);
    basalt_arrow_array_release(&k.a);
    basalt_arrow_schema_release(&k.s);
}

/* An output that forwards to a file output and fails its N-th write. */
struct wt_failing {
    struct basalt_output base;
    struct basalt_output *inner;
    int writes_left;
};

static basalt_status wt_failing_write(struct basalt_output *out, const void *data, size_t len,
                                      struct basalt_error *err)
{
    struct wt_failing *f = (struct wt_failing *)out;
    if (--f->writes_left == 0)
        return basalt_error_set(err, BASALT_IO, "injected write failure");
    basalt_status st = basalt_output_write(f->inner, data, len, err);
    if (st == BASALT_OK)
        out->written += len;
    return st;
}

static basalt_status wt_failing_commit(struct basalt_output *out, struct basalt_error *err)
{
    struct wt_failing *f = (struct wt_failing *)out;
    return basalt_output_commit(f->inner, err);
}

static void wt_failing_close(struct basalt_output *out)
{
    struct wt_failing *f = (struct wt_failing *)out;
    basalt_output_close(f->inner);
    basalt_free(f);
}

static const struct basalt_output_ops wt_failing_ops = {wt_failing_write, wt_failing_commit,
                                                        wt_failing_close};

TEST(writer_write_failures_leave_no_file)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_table(12, 2000, 0, 0, &s, &a, &err), &err);
    char path[256];
    snprintf(path, sizeof path, "/tmp/basalt_writer_fail_%d.parquet", (int)getpid());
    remove(path);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = 500;
    int n;
    for (n = 1; n < 1000; n++) {
        struct wt_failing *f = basalt_calloc(1, sizeof *f);
        CHECK(f != NULL);
        if (!f)
            break;
        f->base.ops = &wt_failing_ops;
        f->base.name = path;
        f->writes_left = n;
        CHECK_OK(basalt_output_open_file(path, &f->inner, &err), &err);
        struct basalt_parquet_writer *w = NULL;
        basalt_status st = basalt_parquet_writer_open(&f->base, true, &s, &o, &w, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_writer_write(w, &a, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_writer_finish(w, &err);
        basalt_parquet_writer_close(w);
        if (st == BASALT_OK)
            break;
        CHECK_EQ(st, BASALT_IO);
        CHECK_MSG(access(path, F_OK) != 0, "attempt %d left %s behind", n, path);
    }
    CHECK(n > 5 && n < 1000); /* magic, 4 row groups of chunks, footer */
    CHECK(access(path, F_OK) == 0);
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(path, NULL, &r, &err), &err);
    if (r)
        CHECK_EQ(basalt_parquet_reader_num_rows(r), 2000);
    basalt_parquet_reader_close(r);
    remove(path);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* ------------------------------------------------------------ page index */

TEST(writer_page_index)
{
    /* v: 0..9999 ascending, pages of 1000 rows; w: null in rows 3000..3999
     * (a null page), descending elsewhere. */
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *v = NULL, *wcol = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "l", "v", 0, &v, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "i", "w", ARROW_FLAG_NULLABLE, &wcol, &err),
             &err);
    for (int64_t i = 0; i < 10000; i++) {
        CHECK_OK(basalt_arrow_builder_append_int(v, i, &err), &err);
        if (i >= 3000 && i < 4000)
            CHECK_OK(basalt_arrow_builder_append_null(wcol, &err), &err);
        else
            CHECK_OK(basalt_arrow_builder_append_int(wcol, 100000 - i, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 1000;
    o.dictionary = false;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 3, &data, &len, &err), &err);
    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_input_open_memory(data, len, "pi.parquet", &in, &err), &err);
    CHECK_OK(basalt_parquet_reader_open(in, true, NULL, &r, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    for (int c = 0; r && c < 2; c++) {
        const struct basalt_parquet_column_chunk *cc =
            &basalt_parquet_reader_metadata(r)->row_groups[0].columns[c];
        CHECK(cc->has_column_index_offset && cc->has_offset_index_offset);
        if (!cc->has_column_index_offset || !cc->has_offset_index_offset)
            continue;
        struct basalt_parquet_column_index ci;
        struct basalt_parquet_offset_index oi;
        CHECK_OK(basalt_thrift_decode_column_index(data + cc->column_index_offset,
                                                   (size_t)cc->column_index_length, &arena, NULL,
                                                   &ci, &err),
                 &err);
        CHECK_OK(basalt_thrift_decode_offset_index(data + cc->offset_index_offset,
                                                   (size_t)cc->offset_index_length, &arena, NULL,
                                                   &oi, &err),
                 &err);
        CHECK_EQ(ci.num_null_pages, 10);
        CHECK_EQ(oi.num_page_locations, 10);
        if (ci.num_null_pages != 10 || oi.num_page_locations != 10)
            continue;
        CHECK_EQ(ci.boundary_order, c == 0 ? BASALT_PARQUET_BOUNDARY_ORDER_ASCENDING
                                           : BASALT_PARQUET_BOUNDARY_ORDER_DESCENDING);
        for (int p = 0; p < 10; p++) {
            CHECK_EQ(oi.page_locations[p].first_row_index, p * 1000);
            /* the location holds a data page header of that size */
            struct basalt_parquet_page_header ph;
            size_t hl = 0;
            const struct basalt_parquet_page_location *pl = &oi.page_locations[p];
            CHECK_OK(basalt_thrift_decode_page_header(data + pl->offset, len - (size_t)pl->offset,
                                                      &arena, NULL, &ph, &hl, &err),
                     &err);
            CHECK_EQ(ph.type, BASALT_PARQUET_PAGE_TYPE_DATA_PAGE);
            CHECK_EQ((int64_t)hl + ph.compressed_page_size, pl->compressed_page_size);
            CHECK_EQ(ph.data_page_header.num_values, 1000);
            bool null_page = c == 1 && p == 3;
            CHECK_EQ(ci.null_pages[p], null_page);
            CHECK_EQ(ci.null_counts[p], null_page ? 1000 : 0);
            if (null_page)
                continue;
            int64_t mn = 0, mx = 0;
            if (c == 0) {
                CHECK_EQ(ci.min_values[p].len, 8);
                memcpy(&mn, ci.min_values[p].data, 8);
                memcpy(&mx, ci.max_values[p].data, 8);
                CHECK_EQ(mn, p * 1000);
                CHECK_EQ(mx, p * 1000 + 999);
            } else {
                int32_t a32, b32;
                CHECK_EQ(ci.min_values[p].len, 4);
                memcpy(&a32, ci.min_values[p].data, 4);
                memcpy(&b32, ci.max_values[p].data, 4);
                CHECK_EQ(a32, 100000 - (p * 1000 + 999));
                CHECK_EQ(b32, 100000 - p * 1000);
            }
        }
    }
    basalt_arena_reset(&arena);
    /* the reader prunes pages with it: v = 5500 reads one page of 10 */
    struct basalt_parquet_scan *scan = NULL;
    if (r)
        CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    if (scan) {
        basalt_parquet_scan_select_all(scan);
        struct basalt_parquet_literal lit = {.kind = BASALT_PARQUET_LITERAL_INT, .i = 5500};
        CHECK_OK(basalt_parquet_scan_filter(scan, "v", BASALT_PARQUET_OP_EQ, &lit, &err), &err);
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        CHECK_OK(basalt_parquet_scan_read_all(scan, &b, &err), &err);
        struct basalt_parquet_scan_stats st;
        basalt_parquet_scan_get_stats(scan, &st);
        CHECK_EQ(st.rows_read, 1000);
        CHECK(st.pages_skipped >= 9);
        bool found = false;
        for (int64_t k = 0; k < b.n; k++) {
            const int64_t *vals = b.arrays[k].children[0]->buffers[1];
            for (int64_t i = 0; i < b.arrays[k].length; i++)
                found |= vals[b.arrays[k].children[0]->offset + i] == 5500;
        }
        CHECK(found);
        basalt_arrow_batches_reset(&b);
    }
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* ------------------------------------------------------------ parallel */

TEST(writer_parallel_bytes_identical)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_table(21, 20000, 100, 0, &s, &a, &err), &err);
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    uint8_t *ref = NULL;
    size_t ref_len = 0;
    static const int workers[] = {0, 1, 2, 4};
    for (int k = 0; k < 4; k++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.row_group_rows = 7000;
        o.page_rows = 900;
        o.page_version = 2;
        o.pool = workers[k] ? pool : NULL;
        o.num_workers = workers[k];
        uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(wt_write_mem(&s, &a, &o, 3, &data, &len, &err), &err);
        if (k == 0) {
            ref = data;
            ref_len = len;
            struct basalt_arrow_batches b;
            basalt_arrow_batches_init(&b);
            CHECK_OK(wt_read_mem(data, len, &b, NULL, &err), &err);
            wt_compare(&s, &a, &b);
            basalt_arrow_batches_reset(&b);
            continue;
        }
        CHECK_MSG(len == ref_len && data && ref && memcmp(data, ref, len) == 0,
                  "%d workers: %zu bytes differ from the single-thread file (%zu)", workers[k],
                  len, ref_len);
        basalt_free(data);
    }
    basalt_free(ref);
    basalt_pool_free(pool);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* ------------------------------------------------------------ bloom filters */

TEST(writer_bloom_filters)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *v = NULL, *t = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "l", "v", ARROW_FLAG_NULLABLE, &v, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "u", "t", ARROW_FLAG_NULLABLE, &t, &err), &err);
    char buf[32];
    for (int64_t i = 0; i < 6000; i++) {
        if (i % 10 == 9)
            CHECK_OK(basalt_arrow_builder_append_null(v, &err), &err);
        else
            CHECK_OK(basalt_arrow_builder_append_int(v, i * 3, &err), &err);
        snprintf(buf, sizeof buf, "key-%lld", (long long)(i * 3));
        CHECK_OK(basalt_arrow_builder_append_string(t, buf, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    static const char *const cols[] = {"v", "t"};
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.bloom_columns = cols;
    o.num_bloom_columns = 2;
    o.row_group_rows = 2000;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 2, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(wt_read_mem(data, len, &b, &r, &err), &err);
    if (r) {
        wt_compare(&s, &a, &b);
        CHECK_EQ(basalt_parquet_reader_num_row_groups(r), 3);
        int64_t false_pos = 0, absent = 0;
        for (int32_t g = 0; g < 3; g++) {
            for (int32_t c = 0; c < 2; c++) {
                struct basalt_parquet_bloom_filter bf;
                memset(&bf, 0, sizeof bf);
                CHECK_OK(basalt_parquet_reader_bloom_filter(r, g, c, &bf, &err), &err);
                /* 1800 or 2000 distinct values at 1%: -8 n / ln(1 - 0.01^(1/8))
                 * bits, 2179 or 2421 bytes, rounded up to 4096 */
                CHECK_EQ(bf.num_bytes, (size_t)4096);
                for (int64_t i = g * 2000; i < (g + 1) * 2000 && bf.bitset; i++) {
                    int64_t x = i * 3;
                    uint64_t h;
                    if (c == 0) {
                        h = basalt_parquet_bloom_hash(&x, 8);
                        if (i % 10 == 9)
                            continue;
                    } else {
                        int n = snprintf(buf, sizeof buf, "key-%lld", (long long)x);
                        h = basalt_parquet_bloom_hash(buf, (size_t)n);
                    }
                    CHECK(basalt_parquet_bloom_filter_check(&bf, h));
                    int64_t y = x + 1; /* never written */
                    absent++;
                    false_pos += basalt_parquet_bloom_filter_check(&bf, basalt_parquet_bloom_hash(&y, 8));
                }
                basalt_parquet_bloom_filter_reset(&bf);
            }
        }
        CHECK_MSG(false_pos * 100 < absent * 3, "%lld false positives of %lld",
                  (long long)false_pos, (long long)absent);
        /* the reader prunes with them: 9001 lies within the bounds of the
         * second row group only (6000..11997), and is not in it */
        struct basalt_parquet_scan *scan = NULL;
        CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
        if (scan) {
            basalt_parquet_scan_select_all(scan);
            struct basalt_parquet_literal lit = {.kind = BASALT_PARQUET_LITERAL_INT, .i = 9001};
            CHECK_OK(basalt_parquet_scan_filter(scan, "v", BASALT_PARQUET_OP_EQ, &lit, &err),
                     &err);
            struct basalt_arrow_batches b2;
            basalt_arrow_batches_init(&b2);
            CHECK_OK(basalt_parquet_scan_read_all(scan, &b2, &err), &err);
            struct basalt_parquet_scan_stats st;
            basalt_parquet_scan_get_stats(scan, &st);
            CHECK_EQ(st.row_groups_pruned_stats, 2);
            CHECK_EQ(st.row_groups_pruned_bloom, 1);
            CHECK_EQ(st.row_groups_read, 0);
            basalt_arrow_batches_reset(&b2);
        }
        basalt_parquet_scan_free(scan);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* ------------------------------------------------------------ nested */

/* Compares slot i of `a` with slot j of `b` (both of schema `s` as written
 * and `t` as read), recursively. Returns false and reports on a difference. */
static bool wt_same(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                    const struct ArrowSchema *t, const struct ArrowArray *b, int64_t j,
                    const char *path)
{
    bool va = a->null_count == 0 || !a->buffers[0] || basalt_bitmap_get(a->buffers[0], a->offset + i);
    bool vb = b->null_count == 0 || !b->buffers[0] || basalt_bitmap_get(b->buffers[0], b->offset + j);
    if (va != vb) {
        bt_fail(__FILE__, __LINE__, "%s: slot %lld validity %d, read %d", path, (long long)i, va,
                vb);
        return false;
    }
    if (!va)
        return true;
    const char *f = s->dictionary ? "" : s->format;
    if (strcmp(f, "+s") == 0) {
        for (int64_t k = 0; k < s->n_children; k++)
            if (!wt_same(s->children[k], a->children[k], a->offset + i, t->children[k],
                         b->children[k], b->offset + j, s->children[k]->name))
                return false;
        return true;
    }
    if (strcmp(f, "+l") == 0 || strcmp(f, "+m") == 0 || strcmp(f, "+L") == 0) {
        int64_t ab, ae, bb, be;
        if (f[1] == 'L') {
            const int64_t *o = a->buffers[1];
            ab = o[a->offset + i];
            ae = o[a->offset + i + 1];
        } else {
            const int32_t *o = a->buffers[1];
            ab = o[a->offset + i];
            ae = o[a->offset + i + 1];
        }
        if (strcmp(t->format, "+L") == 0) {
            const int64_t *o = b->buffers[1];
            bb = o[b->offset + j];
            be = o[b->offset + j + 1];
        } else {
            const int32_t *o = b->buffers[1];
            bb = o[b->offset + j];
            be = o[b->offset + j + 1];
        }
        if (ae - ab != be - bb) {
            bt_fail(__FILE__, __LINE__, "%s: slot %lld length %lld, read %lld", path,
                    (long long)i, (long long)(ae - ab), (long long)(be - bb));
            return false;
        }
        for (int64_t k = 0; k < ae - ab; k++)
            if (!wt_same(s->children[0], a->children[0], ab + k,
                         t->children[0], b->children[0], bb + k, path))
                return false;
        return true;
    }
    const uint8_t *p1, *p2;
    size_t l1, l2;
    uint8_t b1[1], b2[1];
    wt_value(s, a, i, &p1, &l1, b1);
    wt_value(t, b, j, &p2, &l2, b2);
    if (l1 != l2 || (l1 && memcmp(p1, p2, l1) != 0)) {
        bt_fail(__FILE__, __LINE__, "%s: slot %lld value differs", path, (long long)i);
        return false;
    }
    return true;
}

/* A random nested value of builder `b` (its format `f`), depth-limited. */
static basalt_status wt_nested_value(struct basalt_arrow_builder *b, const struct ArrowSchema *s,
                                     struct bt_rng *rng, struct basalt_error *err)
{
    if ((s->flags & ARROW_FLAG_NULLABLE) && bt_rng_below(rng, 6) == 0)
        return basalt_arrow_builder_append_null(b, err);
    const char *f = s->format;
    basalt_status st = BASALT_OK;
    if (strcmp(f, "+s") == 0) {
        for (int64_t k = 0; k < s->n_children && st == BASALT_OK; k++)
            st = wt_nested_value(basalt_arrow_builder_child(b, k), s->children[k], rng, err);
        return st == BASALT_OK ? basalt_arrow_builder_end_element(b, err) : st;
    }
    if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0) {
        uint64_t n = bt_rng_below(rng, 4);
        for (uint64_t k = 0; k < n && st == BASALT_OK; k++)
            st = wt_nested_value(basalt_arrow_builder_child(b, 0), s->children[0], rng, err);
        return st == BASALT_OK ? basalt_arrow_builder_end_element(b, err) : st;
    }
    if (strcmp(f, "+m") == 0) {
        struct basalt_arrow_builder *entries = basalt_arrow_builder_child(b, 0);
        uint64_t n = bt_rng_below(rng, 4);
        for (uint64_t k = 0; k < n && st == BASALT_OK; k++) {
            char key[24];
            snprintf(key, sizeof key, "k%llu", (unsigned long long)k);
            st = basalt_arrow_builder_append_string(basalt_arrow_builder_child(entries, 0), key,
                                                    err);
            if (st == BASALT_OK)
                st = wt_nested_value(basalt_arrow_builder_child(entries, 1),
                                     s->children[0]->children[1], rng, err);
        }
        return st == BASALT_OK ? basalt_arrow_builder_end_element(b, err) : st;
    }
    uint64_t r = bt_rng_next(rng);
    switch (f[0]) {
    case 'i':
        return basalt_arrow_builder_append_int(b, (int32_t)r % 1000, err);
    case 'l':
        return basalt_arrow_builder_append_int(b, (int64_t)r, err);
    case 'b':
        return basalt_arrow_builder_append_bool(b, r & 1, err);
    case 'g':
        return basalt_arrow_builder_append_double(b, (double)(int32_t)r / 7.0, err);
    default: {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "v%llu", (unsigned long long)(r % 50));
        return basalt_arrow_builder_append_bytes(b, buf, n, err);
    }
    }
}

struct wt_field {
    const char *format, *name;
    int64_t flags;
    int nkids;
    const struct wt_field *kids;
};

static basalt_status wt_add(struct basalt_arrow_builder *parent, const struct wt_field *f,
                            struct basalt_error *err)
{
    struct basalt_arrow_builder *c = NULL;
    basalt_status st = basalt_arrow_builder_add_child(parent, f->format, f->name, f->flags, &c, err);
    for (int k = 0; k < f->nkids && st == BASALT_OK; k++)
        st = wt_add(c, &f->kids[k], err);
    return st;
}

#define N ARROW_FLAG_NULLABLE
static const struct wt_field wt_int_item[] = {{"i", "item", N, 0, NULL}};
static const struct wt_field wt_str_item[] = {{"u", "item", N, 0, NULL}};
static const struct wt_field wt_list_str[] = {{"+l", "item", N, 1, wt_str_item}};
static const struct wt_field wt_bool_req[] = {{"b", "item", 0, 0, NULL}};
static const struct wt_field wt_struct_kids[] = {{"l", "a", N, 0, NULL},
                                                 {"+l", "b", N, 1, wt_bool_req}};
static const struct wt_field wt_xy[] = {{"i", "x", 0, 0, NULL}, {"u", "y", N, 0, NULL}};
static const struct wt_field wt_xy_struct[] = {{"+s", "item", N, 2, wt_xy}};
static const struct wt_field wt_map_kv[] = {{"u", "key", 0, 0, NULL}, {"g", "value", N, 0, NULL}};
static const struct wt_field wt_deep3[] = {{"+l", "item", N, 1, wt_int_item}};
static const struct wt_field wt_deep2[] = {{"+s", "item", N, 1,
                                            (const struct wt_field[]){{"+l", "inner", N, 1, wt_deep3}}}};
static const struct wt_field wt_nested_fields[] = {
    {"+l", "li", N, 1, wt_int_item},
    {"+l", "lls", N, 1, wt_list_str},
    {"+s", "st", N, 2, wt_struct_kids},
    {"+m", "m", N, 2, wt_map_kv},
    {"+L", "lst", N, 1, wt_xy_struct},
    {"+l", "deep", N, 1, wt_deep2},
    {"l", "flat", 0, 0, NULL},
    {"+l", "req_list", 0, 1, wt_int_item},
};
#undef N

static basalt_status wt_nested_table(uint64_t seed, int64_t rows, struct ArrowSchema *schema,
                                     struct ArrowArray *array, struct basalt_error *err)
{
    struct basalt_arrow_builder *root = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    size_t nf = sizeof wt_nested_fields / sizeof wt_nested_fields[0];
    for (size_t k = 0; k < nf && st == BASALT_OK; k++)
        st = wt_add(root, &wt_nested_fields[k], err);
    struct ArrowSchema s;
    memset(&s, 0, sizeof s);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_schema(root, &s, err);
    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    for (int64_t r = 0; r < rows && st == BASALT_OK; r++) {
        for (size_t k = 0; k < nf && st == BASALT_OK; k++)
            st = wt_nested_value(basalt_arrow_builder_child(root, (int64_t)k), s.children[k], &rng,
                                 err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    basalt_arrow_schema_release(&s);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, array, err);
    basalt_arrow_builder_free(root);
    return st;
}

static basalt_status wt_nested_table(uint64_t seed, int64_t rows, struct ArrowSchema *schema,
                                     struct ArrowArray *array, struct basalt_error *err);

TEST(writer_allocation_failures_nested_bloom_pool)
{
    struct basalt_error err;
    struct wtu_sweep k;
    CHECK_OK(wt_nested_table(41, 200, &k.s, &k.a, &err), &err);
    static const char *const bloom[] = {"li.list.element", "m.key_value.key"};
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(2, &pool, &err), &err);
    basalt_parquet_writer_options_init(&k.o);
    k.o.page_rows = 60;
    k.o.row_group_rows = 150;
    k.o.bloom_columns = bloom;
    k.o.num_bloom_columns = 2;
    k.o.pool = pool;
    CHECK_ALLOC_SWEEP(wtu_sweep_write, &k);
    basalt_pool_free(pool);
    basalt_arrow_array_release(&k.a);
    basalt_arrow_schema_release(&k.s);
}

static void wt_nested_roundtrip(uint64_t seed, int64_t rows,
                                const struct basalt_parquet_writer_options *o, int nbatches)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_nested_table(seed, rows, &s, &a, &err), &err);
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, o, nbatches, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    if (data) {
        CHECK_OK(wt_read_mem(data, len, &b, NULL, &err), &err);
        int64_t row = 0;
        bool ok = b.schema.release && b.schema.n_children == s.n_children;
        CHECK(ok);
        for (int64_t k = 0; ok && k < b.n; k++) {
            const struct ArrowArray *batch = &b.arrays[k];
            for (int64_t i = 0; ok && i < batch->length; i++, row++)
                for (int64_t c = 0; ok && c < s.n_children; c++)
                    ok = wt_same(s.children[c], a.children[c], row, b.schema.children[c],
                                 batch->children[c], i, s.children[c]->name);
        }
        if (ok)
            CHECK_EQ(row, rows);
    }
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_nested_roundtrip)
{
    wt_nested_roundtrip(31, 3000, NULL, 1);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 250;
    o.row_group_rows = 1100;
    o.page_version = 2;
    o.codec = BASALT_CODEC_SNAPPY;
    wt_nested_roundtrip(32, 3000, &o, 4);
    o.dictionary = false;
    o.page_version = 1;
    wt_nested_roundtrip(33, 500, &o, 3);
}

TEST(writer_nested_levels_known)
{
    /* li: [[1, null], [], null, [4]] -> rep 0 1 0 0 0, def 3 2 1 0 3 */
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *l = NULL, *item = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "+l", "li", ARROW_FLAG_NULLABLE, &l, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(l, "i", "item", ARROW_FLAG_NULLABLE, &item, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(item, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 4, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.codec = BASALT_CODEC_UNCOMPRESSED;
    o.dictionary = false;
    o.page_version = 2;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(wt_write_mem(&s, &a, &o, 1, &data, &len, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_parquet_page_header ph;
    size_t hl = 0;
    if (data)
        CHECK_OK(basalt_thrift_decode_page_header(data + 4, len - 4, &arena, NULL, &ph, &hl, &err),
                 &err);
    if (data && ph.has_data_page_header_v2) {
        const struct basalt_parquet_data_page_header_v2 *h = &ph.data_page_header_v2;
        CHECK_EQ(h->num_values, 5);
        CHECK_EQ(h->num_rows, 4);
        CHECK_EQ(h->num_nulls, 3);
        /* v2 levels, no length prefix: rep width 1, def width 2, each one
         * bit-packed group of 8 (header 0x03) */
        int16_t rep[5], def[5];
        struct basalt_parquet_rle_decoder dec;
        const uint8_t *p = data + 4 + hl;
        CHECK_OK(basalt_parquet_levels_init(&dec, p, (size_t)h->repetition_levels_byte_length, 1,
                                            5, false, NULL, &err),
                 &err);
        CHECK_OK(basalt_parquet_levels_decode(&dec, 5, 1, rep, &err), &err);
        CHECK_OK(basalt_parquet_levels_init(&dec, p + h->repetition_levels_byte_length,
                                            (size_t)h->definition_levels_byte_length, 3, 5, false,
                                            NULL, &err),
                 &err);
        CHECK_OK(basalt_parquet_levels_decode(&dec, 5, 3, def, &err), &err);
        static const int16_t want_rep[5] = {0, 1, 0, 0, 0}, want_def[5] = {3, 2, 1, 0, 3};
        CHECK_MEM(rep, want_rep, sizeof rep);
        CHECK_MEM(def, want_def, sizeof def);
    }
    basalt_arena_reset(&arena);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_write_stream)
{
    /* three batches through an ArrowArrayStream give the rows of the three */
    struct basalt_error err;
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    struct ArrowSchema s[3];
    struct ArrowArray a[3];
    for (int k = 0; k < 3; k++)
        CHECK_OK(wt_table(50 + (uint64_t)k, 700, 0, 0, &s[k], &a[k], &err), &err);
    CHECK_OK(basalt_arrow_schema_copy(&s[0], &in.schema, &err), &err);
    for (int k = 0; k < 3; k++) {
        struct ArrowArray moved;
        basalt_arrow_array_move(&a[k], &moved);
        CHECK_OK(basalt_arrow_batches_append(&in, &moved, &err), &err);
    }
    struct ArrowArrayStream stream;
    CHECK_OK(basalt_arrow_stream_from_batches(&in, &stream, &err), &err);
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    CHECK_OK(basalt_parquet_writer_open(out, false, &s[0], NULL, &w, &err), &err);
    CHECK_OK(basalt_parquet_writer_write_stream(w, &stream, &err), &err);
    CHECK_EQ(basalt_parquet_writer_num_rows(w), 2100);
    CHECK_OK(basalt_parquet_writer_finish(w, &err), &err);
    CHECK_EQ(basalt_parquet_writer_num_row_groups(w), 1);
    basalt_parquet_writer_close(w);
    CHECK_OK(basalt_output_commit(out, &err), &err);
    size_t len = 0;
    uint8_t *data = basalt_output_memory_take(out, &len);
    basalt_output_close(out);
    basalt_arrow_stream_release(&stream);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    CHECK_OK(wt_read_mem(data, len, &b, NULL, &err), &err);
    /* compare against the same tables made again */
    int64_t total = 0;
    for (int64_t k = 0; k < b.n; k++)
        total += b.arrays[k].length;
    CHECK_EQ(total, 2100);
    for (int k = 0; k < 3; k++) {
        struct ArrowSchema s2;
        struct ArrowArray a2;
        CHECK_OK(wt_table(50 + (uint64_t)k, 700, 0, 0, &s2, &a2, &err), &err);
        if (b.n == 1) {
            struct basalt_arrow_batches view;
            view.schema = b.schema;
            struct ArrowArray slice = b.arrays[0];
            slice.length = 700;
            slice.offset = b.arrays[0].offset + 700 * k;
            /* children are addressed through the parent's offset */
            struct ArrowArray *kids[64];
            struct ArrowArray kid_store[64];
            for (int64_t c = 0; c < slice.n_children && c < 64; c++) {
                kid_store[c] = *b.arrays[0].children[c];
                kid_store[c].offset += 700 * k;
                kid_store[c].length = 700;
                kids[c] = &kid_store[c];
            }
            slice.offset = b.arrays[0].offset;
            slice.children = kids;
            view.arrays = &slice;
            view.n = 1;
            wt_compare(&s2, &a2, &view);
        }
        basalt_arrow_array_release(&a2);
        basalt_arrow_schema_release(&s2);
    }
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    for (int k = 0; k < 3; k++)
        basalt_arrow_schema_release(&s[k]);
}

/* ------------------------------------------------------------ fast paths */

#include "parquet_writer.h"

/* Writes the table with `o` and returns the bytes and the writer's
 * fast-path counters. */
static basalt_status wt_write_counted(const struct ArrowSchema *s, const struct ArrowArray *a,
                                      const struct basalt_parquet_writer_options *o, int nbatches,
                                      uint8_t **data, size_t *len,
                                      struct basalt_parquet_wcounters *counters,
                                      struct basalt_error *err)
{
    return wtu_write(s, a, o, nbatches, data, len, counters, err);
}

static void wt_add_counters(struct basalt_parquet_wcounters *sum,
                            const struct basalt_parquet_wcounters *c)
{
    sum->dict_pages += c->dict_pages;
    sum->dense_pages += c->dense_pages;
    sum->simple_pages += c->simple_pages;
    sum->in_place_pages += c->in_place_pages;
    sum->level_runs += c->level_runs;
    sum->rle_pages += c->rle_pages;
    sum->list_walks += c->list_walks;
    sum->leaf_views += c->leaf_views;
    sum->slice_runs += c->slice_runs;
    sum->level_hists += c->level_hists;
}

/* The same table written by the fast paths and by the reference paths
 * (options.simple_paths): the files must be byte for byte the same. */
static void wt_fast_vs_simple(const struct ArrowSchema *s, const struct ArrowArray *a,
                              struct basalt_parquet_writer_options *o, int nbatches,
                              struct basalt_parquet_wcounters *fast,
                              struct basalt_parquet_wcounters *simple)
{
    struct basalt_error err;
    uint8_t *fd = NULL, *sd = NULL;
    size_t fl = 0, sl = 0;
    struct basalt_parquet_wcounters c;
    o->simple_paths = false;
    CHECK_OK(wt_write_counted(s, a, o, nbatches, &fd, &fl, &c, &err), &err);
    wt_add_counters(fast, &c);
    o->simple_paths = true;
    CHECK_OK(wt_write_counted(s, a, o, nbatches, &sd, &sl, &c, &err), &err);
    wt_add_counters(simple, &c);
    CHECK_EQ(fl, sl);
    if (fd && sd && fl == sl)
        CHECK(memcmp(fd, sd, fl) == 0);
    basalt_free(fd);
    basalt_free(sd);
}

TEST(writer_fast_paths_write_the_reference_bytes)
{
    struct basalt_error err;
    struct basalt_parquet_wcounters fast, simple;
    memset(&fast, 0, sizeof fast);
    memset(&simple, 0, sizeof simple);
    static const uint64_t cards[] = {0, 3, 40, 2500};
    for (size_t k = 0; k < sizeof cards / sizeof cards[0]; k++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        CHECK_OK(wt_table(700 + k, 5000, cards[k], 0, &s, &a, &err), &err);
        for (int cfg = 0; cfg < 8; cfg++) {
            struct basalt_parquet_writer_options o;
            basalt_parquet_writer_options_init(&o);
            o.codec = cfg & 1 ? BASALT_CODEC_SNAPPY : BASALT_CODEC_UNCOMPRESSED;
            o.page_version = cfg & 2 ? 2 : 1;
            o.dictionary = (cfg & 4) == 0 || k == 1;
            o.page_rows = cfg == 3 ? 5 : cfg == 5 ? 20000 : 700;
            o.row_group_rows = cfg == 6 ? 1800 : 4000;
            /* a dictionary that fills part-way through a chunk */
            o.dictionary_max_bytes = cfg == 7 ? 3000 : 1 << 20;
            wt_fast_vs_simple(&s, &a, &o, cfg % 3 + 1, &fast, &simple);
        }
        basalt_arrow_array_release(&a);
        basalt_arrow_schema_release(&s);
    }
    /* nested columns */
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(wt_nested_table(77, 1200, &s, &a, &err), &err);
    for (int cfg = 0; cfg < 4; cfg++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.page_version = cfg & 1 ? 2 : 1;
        o.codec = cfg & 2 ? BASALT_CODEC_SNAPPY : BASALT_CODEC_UNCOMPRESSED;
        o.page_rows = cfg == 3 ? 7 : 300;
        o.row_group_rows = 500;
        wt_fast_vs_simple(&s, &a, &o, cfg + 1, &fast, &simple);
    }
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    /* Runs of slices against slice-by-slice encoding where row groups are
     * cut by bytes: the cuts must fall at the same slice ends. Every column,
     * then two (runs of several slices before each cut). */
    CHECK_OK(wt_table(9, 50000, 300, 0, &s, &a, &err), &err);
    static const int64_t cut_bytes[] = {40000, 150000, 700000, 3000000, INT64_C(64) << 20};
    for (size_t k = 0; k < sizeof cut_bytes / sizeof cut_bytes[0]; k++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.row_group_rows = k == 3 ? 30000 : 0;
        o.row_group_bytes = cut_bytes[k];
        o.codec = k & 1 ? BASALT_CODEC_SNAPPY : BASALT_CODEC_UNCOMPRESSED;
        o.page_rows = k == 2 ? 900 : 20000;
        o.page_bytes = k == 0 ? 4096 : 1 << 20;
        wt_fast_vs_simple(&s, &a, &o, (int)k + 1, &fast, &simple);
    }
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    CHECK_OK(wt_table(10, 400000, 5000, (1u << 5) | (1u << 23), &s, &a, &err), &err);
    for (int cfg = 0; cfg < 3; cfg++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.row_group_rows = 0;
        o.row_group_bytes = cfg == 2 ? 900000 : 2000000;
        o.codec = cfg == 1 ? BASALT_CODEC_SNAPPY : BASALT_CODEC_UNCOMPRESSED;
        o.dictionary = cfg != 0;
        wt_fast_vs_simple(&s, &a, &o, cfg + 1, &fast, &simple);
    }
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    CHECK_OK(wt_nested_table(78, 20000, &s, &a, &err), &err);
    for (int cfg = 0; cfg < 2; cfg++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.row_group_rows = 0;
        o.row_group_bytes = cfg ? 1 << 20 : 100000;
        o.page_version = cfg + 1;
        wt_fast_vs_simple(&s, &a, &o, 1, &fast, &simple);
    }
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    /* every fast path fired, and none with simple_paths */
    CHECK(fast.dict_pages > 0);
    CHECK(fast.dense_pages > 0);
    CHECK(fast.in_place_pages > 0);
    CHECK(fast.level_runs > 0);
    CHECK(fast.rle_pages > 0);
    CHECK(fast.list_walks > 0);
    CHECK(fast.leaf_views > 0);
    CHECK(fast.slice_runs > 0);
    CHECK(fast.level_hists > 0);
    CHECK_EQ(fast.simple_pages, 0);
    CHECK(simple.simple_pages > 0);
    CHECK_EQ(simple.dict_pages + simple.dense_pages + simple.in_place_pages + simple.level_runs +
                 simple.rle_pages + simple.list_walks + simple.leaf_views + simple.slice_runs +
                 simple.level_hists,
             0);
}

/* The fast dictionary lookups against the reference ones: the same entries
 * in the same order, the same indices, the same stop at the byte cap. */
static void wt_fast_dict_case(struct bt_rng *rng, size_t width, uint64_t n, uint64_t card,
                         int64_t max_bytes)
{
    struct basalt_error err;
    struct basalt_buffer data, offs;
    basalt_buffer_init(&data);
    basalt_buffer_init(&offs);
    CHECK_OK(basalt_buffer_resize(&offs, (size_t)(n + 1) * 8, &err), &err);
    int64_t *o = (int64_t *)(void *)offs.data;
    o[0] = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = bt_rng_below(rng, card);
        uint8_t buf[80];
        /* lengths 0..70 (fixed: width), bytes depending on the value only */
        size_t len = width ? width : (size_t)(r * 7 % 71);
        for (size_t b = 0; b < len; b++)
            buf[b] = (uint8_t)((r * 0x9e3779b97f4a7c15ull) >> (b % 8 * 8)) ^ (uint8_t)(b / 8);
        CHECK_OK(basalt_buffer_append(&data, buf, len, &err), &err);
        o[i + 1] = (int64_t)data.size;
    }
    struct basalt_parquet_wvalues v;
    memset(&v, 0, sizeof v);
    v.count = v.non_null = n;
    v.fixed = data.data;
    v.binary.offsets64 = o;
    v.binary.data = data.data;
    struct basalt_parquet_wdict d[2];
    uint32_t *idx[2];
    uint64_t done[2], ni[2];
    for (int k = 0; k < 2; k++) {
        basalt_parquet_wdict_init(&d[k], width);
        idx[k] = basalt_calloc((size_t)n + 1, 4);
        CHECK(idx[k] != NULL);
        /* two pages into one dictionary */
        uint64_t half = n / 2, d1 = 0, n1 = 0;
        struct basalt_parquet_wvalues v1 = v;
        v1.count = v1.non_null = half;
        CHECK_OK(basalt_parquet_wdict_put(&d[k], &v1, 0, max_bytes, UINT32_MAX, k == 1, idx[k],
                                          &d1, &n1, &err),
                 &err);
        CHECK_OK(basalt_parquet_wdict_put(&d[k], &v, half, max_bytes, UINT32_MAX, k == 1,
                                          idx[k] + n1, &done[k], &ni[k], &err),
                 &err);
        done[k] += d1;
        ni[k] += n1;
    }
    CHECK_EQ(done[0], done[1]);
    CHECK_EQ(ni[0], ni[1]);
    CHECK_EQ(d[0].count, d[1].count);
    CHECK_EQ(d[0].values.size, d[1].values.size);
    CHECK(d[0].values.size == d[1].values.size &&
          memcmp(d[0].values.data, d[1].values.data, d[0].values.size) == 0);
    CHECK(ni[0] == ni[1] && memcmp(idx[0], idx[1], (size_t)ni[0] * 4) == 0);
    if (max_bytes >= (int64_t)1 << 30)
        CHECK_EQ(done[0], n);
    for (int k = 0; k < 2; k++) {
        basalt_free(idx[k]);
        basalt_parquet_wdict_reset(&d[k]);
    }
    basalt_buffer_reset(&data);
    basalt_buffer_reset(&offs);
}

TEST(writer_dictionary_fast_lookups)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 2024);
    static const size_t widths[] = {0, 2, 4, 5, 8, 16};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        wt_fast_dict_case(&rng, widths[w], 3000, 7, (int64_t)1 << 30);
        wt_fast_dict_case(&rng, widths[w], 5000, 1500, (int64_t)1 << 30);
        wt_fast_dict_case(&rng, widths[w], 9000, 100000, (int64_t)1 << 30);
        wt_fast_dict_case(&rng, widths[w], 4000, 3000, 2500); /* stops at the cap */
    }
    /* the stop at max_count */
    struct basalt_error err;
    int64_t vals[100];
    for (int i = 0; i < 100; i++)
        vals[i] = i * 3;
    struct basalt_parquet_wvalues v;
    memset(&v, 0, sizeof v);
    v.count = v.non_null = 100;
    v.fixed = vals;
    struct basalt_parquet_wdict d;
    basalt_parquet_wdict_init(&d, 8);
    uint32_t idx[100];
    uint64_t done = 0, ni = 0;
    CHECK_OK(basalt_parquet_wdict_put(&d, &v, 0, 1 << 20, 51, false, idx, &done, &ni, &err), &err);
    CHECK_EQ(d.count, 51);
    CHECK_EQ(ni, 51);
    CHECK_EQ(idx[50], 50);
    /* values with nulls are for the reference path only */
    uint8_t validity = 0xff;
    v.validity = &validity;
    v.count = v.non_null = 8;
    basalt_parquet_wdict_clear(&d);
    CHECK_STATUS(basalt_parquet_wdict_put(&d, &v, 0, 1 << 20, UINT32_MAX, false, idx, &done, &ni,
                                          &err),
                 BASALT_INTERNAL, &err);
    basalt_parquet_wdict_reset(&d);
}

/* The page-at-a-time hybrid encoders against the reference encoder: runs of
 * every length around the 8-value threshold and the 504-value literal cap,
 * every bit width. */
TEST(writer_rle_page_encoders)
{
    struct basalt_error err;
    struct bt_rng rng;
    bt_rng_seed(&rng, 99);
    size_t n = 6000;
    uint32_t *idx = basalt_calloc(n, 4);
    int16_t *lv = basalt_calloc(n, 2);
    CHECK(idx && lv);
    struct basalt_buffer a, b;
    basalt_buffer_init(&a);
    basalt_buffer_init(&b);
    for (int round = 0; idx && lv && round < 120; round++) {
        uint32_t dict_len = round % 3 == 0 ? 1 + (uint32_t)bt_rng_below(&rng, 3)
                                           : 1 + (uint32_t)bt_rng_below(&rng, (1u << (round % 31 + 1)));
        int16_t max_level = (int16_t)(1 + bt_rng_below(&rng, round % 2 ? 3 : 300));
        size_t m = (size_t)bt_rng_below(&rng, n + 1);
        /* runs: short and long mixed, long ones near 8 + fill and 504 */
        for (size_t i = 0; i < m;) {
            uint64_t len = bt_rng_below(&rng, 4) == 0 ? bt_rng_below(&rng, 20) + 1
                           : bt_rng_below(&rng, 9) == 0 ? bt_rng_below(&rng, 1100) + 1
                                                         : 1;
            uint32_t x = (uint32_t)bt_rng_below(&rng, dict_len);
            int16_t y = (int16_t)bt_rng_below(&rng, (uint64_t)max_level + 1);
            for (uint64_t k = 0; k < len && i < m; k++, i++) {
                idx[i] = x;
                lv[i] = y;
            }
        }
        a.size = b.size = 0;
        CHECK_OK(basalt_parquet_wrle_indices(idx, m, dict_len, &a, &err), &err);
        CHECK_OK(basalt_parquet_dict_encode_indices(idx, m, dict_len, &b, &err), &err);
        CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
        for (int prefixed = 0; prefixed <= 1; prefixed++) {
            a.size = b.size = 0;
            CHECK_OK(basalt_parquet_wrle_levels(lv, m, max_level, prefixed, &a, &err), &err);
            CHECK_OK(basalt_parquet_levels_encode(lv, m, max_level, prefixed, &b, &err), &err);
            CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
        }
    }
    /* out of range: refused, nothing written */
    if (idx && lv) {
        idx[0] = 5;
        lv[0] = 3;
        a.size = 0;
        CHECK_STATUS(basalt_parquet_wrle_indices(idx, 4, 5, &a, &err), BASALT_INVALID_ARG, &err);
        CHECK_STATUS(basalt_parquet_wrle_levels(lv, 4, 2, true, &a, &err), BASALT_INVALID_ARG,
                     &err);
        lv[0] = -1;
        CHECK_STATUS(basalt_parquet_wrle_levels(lv, 4, 2, false, &a, &err), BASALT_INVALID_ARG,
                     &err);
        CHECK_EQ(a.size, 0);
    }
    basalt_buffer_reset(&a);
    basalt_buffer_reset(&b);
    basalt_free(idx);
    basalt_free(lv);
}

/* encoding_stats in the footer (decoded by the reader) against the page
 * headers in the file: every chunk's pages tallied by type and encoding. */
static void wt_check_encoding_stats(const uint8_t *data, size_t len)
{
    struct basalt_error err;
    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_input_open_memory(data, len, "mem.parquet", &in, &err), &err);
    CHECK_OK(basalt_parquet_reader_open(in, true, NULL, &r, &err), &err);
    if (!r)
        return;
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    int chunks = 0;
    for (size_t g = 0; g < md->num_row_groups; g++) {
        for (size_t c = 0; c < md->row_groups[g].num_columns; c++) {
            const struct basalt_parquet_column_metadata *m = &md->row_groups[g].columns[c].meta_data;
            int32_t count[4][16];
            memset(count, 0, sizeof count);
            size_t pos = (size_t)(m->has_dictionary_page_offset ? m->dictionary_page_offset
                                                                : m->data_page_offset);
            size_t end = pos + (size_t)m->total_compressed_size;
            while (pos < end) {
                struct basalt_parquet_page_header ph;
                size_t hl;
                if (basalt_thrift_decode_page_header(data + pos, len - pos, &arena, NULL, &ph, &hl,
                                                     NULL) != BASALT_OK)
                    break;
                int32_t enc = ph.has_data_page_header      ? ph.data_page_header.encoding
                              : ph.has_data_page_header_v2 ? ph.data_page_header_v2.encoding
                                                           : ph.dictionary_page_header.encoding;
                if (ph.type >= 0 && ph.type < 4 && enc >= 0 && enc < 16)
                    count[ph.type][enc]++;
                pos += hl + (size_t)ph.compressed_page_size;
            }
            CHECK_EQ(pos, end);
            CHECK(m->has_encoding_stats);
            int32_t total = 0;
            for (size_t k = 0; k < m->num_encoding_stats; k++) {
                const struct basalt_parquet_page_encoding_stats *e = &m->encoding_stats[k];
                CHECK(e->page_type >= 0 && e->page_type < 4 && e->encoding >= 0 && e->encoding < 16);
                if (e->page_type >= 0 && e->page_type < 4 && e->encoding >= 0 && e->encoding < 16)
                    CHECK_EQ(e->count, count[e->page_type][e->encoding]);
                total += e->count;
            }
            int32_t pages = 0;
            for (int t = 0; t < 4; t++)
                for (int e = 0; e < 16; e++)
                    pages += count[t][e];
            CHECK_EQ(total, pages);
            chunks++;
        }
    }
    CHECK(chunks > 0);
    basalt_arena_reset(&arena);
    basalt_parquet_reader_close(r);
}

TEST(writer_encoding_stats_match_the_pages)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    /* dictionary pages, then the cap, then PLAIN pages; v1 and v2 */
    wt_int_batch(5000, 2000, 50, &s, &a);
    for (int v = 1; v <= 2; v++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.page_rows = 1000;
        o.dictionary_max_bytes = 800;
        o.page_version = v;
        uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(wt_write_mem(&s, &a, &o, 1, &data, &len, &err), &err);
        if (data) {
            wt_check_encoding_stats(data, len);
            /* the layout writer_dictionary_fallback_page_layout reads: one
             * dictionary page, 2 dictionary-encoded and 3 PLAIN data pages */
            struct basalt_input *in = NULL;
            struct basalt_parquet_reader *r = NULL;
            CHECK_OK(basalt_input_open_memory(data, len, "mem.parquet", &in, &err), &err);
            CHECK_OK(basalt_parquet_reader_open(in, true, NULL, &r, &err), &err);
            const struct basalt_parquet_column_metadata *m = r ? wt_chunk(r, 0, 0) : NULL;
            CHECK(m && m->num_encoding_stats == 3);
            if (m && m->num_encoding_stats == 3) {
                int32_t dt = v == 2 ? BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2
                                    : BASALT_PARQUET_PAGE_TYPE_DATA_PAGE;
                CHECK_EQ(m->encoding_stats[0].page_type, BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE);
                CHECK_EQ(m->encoding_stats[0].count, 1);
                CHECK_EQ(m->encoding_stats[1].page_type, dt);
                CHECK_EQ(m->encoding_stats[1].encoding, BASALT_PARQUET_ENCODING_RLE_DICTIONARY);
                CHECK_EQ(m->encoding_stats[1].count, 2);
                CHECK_EQ(m->encoding_stats[2].encoding, BASALT_PARQUET_ENCODING_PLAIN);
                CHECK_EQ(m->encoding_stats[2].count, 3);
            }
            basalt_parquet_reader_close(r);
        }
        basalt_free(data);
    }
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    /* every type, row groups and small pages, and per-column encodings */
    CHECK_OK(wt_table(31, 3000, 40, 0, &s, &a, &err), &err);
    static const struct basalt_parquet_writer_column_encoding ce[] = {
        {"i32", BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED},
        {"f64", BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT},
        {"str", BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY}};
    for (int k = 0; k < 2; k++) {
        struct basalt_parquet_writer_options o;
        basalt_parquet_writer_options_init(&o);
        o.page_rows = 400;
        o.row_group_rows = 1300;
        o.dictionary = k == 0;
        o.column_encodings = ce;
        o.num_column_encodings = 3;
        uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(wt_write_mem(&s, &a, &o, 2, &data, &len, &err), &err);
        if (data)
            wt_check_encoding_stats(data, len);
        basalt_free(data);
    }
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}
