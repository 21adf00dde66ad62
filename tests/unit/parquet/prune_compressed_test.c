/* Skipped pages are never decompressed. alltypes_tiny_pages.parquet (the
 * corpus's many-page file with a page index) is uncompressed, so this test
 * first rewrites it with every page SNAPPY-compressed: pages recompressed,
 * page headers, column metadata and offset indexes moved to the new
 * offsets, the column indexes copied. Then the decoder's own counter of
 * decompressed pages must equal the pages the plan selected plus the
 * dictionary pages, and a negative control without the filter must count
 * every page. */
#include <stdlib.h>

#include "basalt/codec.h"
#include "basalt/parquet.h"
#include "parquet_reader.h"
#include "test.h"

void pqr_text_batches(const struct ArrowSchema *s, const struct ArrowArray *batches, int64_t n,
                      struct basalt_buffer *out);

static void *mut(const void *p)
{
    return (void *)(uintptr_t)p;
}

struct rewrite {
    struct basalt_buffer out;
    int64_t data_pages;
    int64_t dict_pages;
};

static basalt_status compress_file(const uint8_t *in, size_t len, struct rewrite *rw,
                                   struct basalt_error *err)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1 << 16);
    struct basalt_parquet_file_metadata md;
    struct basalt_codec *codec = NULL;
    uint8_t *tmp = NULL;
    uint32_t flen = (uint32_t)in[len - 8] | (uint32_t)in[len - 7] << 8 |
                    (uint32_t)in[len - 6] << 16 | (uint32_t)in[len - 5] << 24;
    basalt_status st = basalt_thrift_decode_file_metadata(in + len - 8 - flen, flen, &arena, NULL,
                                                          &md, err);
    if (st == BASALT_OK)
        st = basalt_codec_new(BASALT_CODEC_SNAPPY, BASALT_CODEC_LEVEL_DEFAULT, &codec, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&rw->out, "PAR1", 4, err);
    for (size_t g = 0; g < md.num_row_groups && st == BASALT_OK; g++) {
        struct basalt_parquet_row_group *rg = mut(&md.row_groups[g]);
        for (size_t c = 0; c < rg->num_columns && st == BASALT_OK; c++) {
            struct basalt_parquet_column_chunk *cc = mut(&rg->columns[c]);
            struct basalt_parquet_column_metadata *m = &cc->meta_data;
            int64_t start = m->data_page_offset;
            if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
                m->dictionary_page_offset < start)
                start = m->dictionary_page_offset;
            int64_t end = start + m->total_compressed_size;
            /* The offset index, to move its page locations along. */
            struct basalt_parquet_offset_index oi;
            memset(&oi, 0, sizeof oi);
            if (cc->has_offset_index_offset)
                st = basalt_thrift_decode_offset_index(in + cc->offset_index_offset,
                                                       (size_t)cc->offset_index_length, &arena,
                                                       NULL, &oi, err);
            int64_t new_start = (int64_t)rw->out.size;
            int64_t old_data = m->data_page_offset, old_dict = m->dictionary_page_offset;
            size_t next_loc = 0;
            for (int64_t pos = start; pos < end && st == BASALT_OK;) {
                struct basalt_parquet_page_header ph;
                size_t hlen = 0;
                st = basalt_thrift_decode_page_header(in + pos, (size_t)(end - pos), &arena, NULL,
                                                      &ph, &hlen, err);
                if (st != BASALT_OK)
                    break;
                const uint8_t *body = in + pos + hlen;
                size_t blen = (size_t)ph.compressed_page_size;
                size_t cap = basalt_codec_max_compressed_size(codec, blen);
                basalt_free(tmp);
                tmp = basalt_malloc(cap + 1);
                size_t clen = 0;
                st = basalt_codec_compress(codec, body, blen, tmp, cap, &clen, err);
                if (st != BASALT_OK)
                    break;
                int64_t new_pos = (int64_t)rw->out.size;
                /* parquet-mr points data_page_offset at the dictionary page
                 * when it leaves dictionary_page_offset out. */
                if (pos == old_data)
                    m->data_page_offset = new_pos;
                if (pos == old_dict && m->has_dictionary_page_offset)
                    m->dictionary_page_offset = new_pos;
                if (ph.type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE)
                    rw->dict_pages++;
                else
                    rw->data_pages++;
                ph.compressed_page_size = (int32_t)clen;
                ph.has_crc = false;
                size_t before = rw->out.size;
                st = basalt_thrift_encode_page_header(&ph, &rw->out, err);
                if (st == BASALT_OK)
                    st = basalt_buffer_append(&rw->out, tmp, clen, err);
                if (st == BASALT_OK && next_loc < oi.num_page_locations &&
                    oi.page_locations[next_loc].offset == pos) {
                    struct basalt_parquet_page_location *loc = mut(&oi.page_locations[next_loc]);
                    loc->offset = new_pos;
                    loc->compressed_page_size = (int32_t)(rw->out.size - before);
                    next_loc++;
                }
                pos += (int64_t)hlen + (int64_t)blen;
            }
            if (st != BASALT_OK)
                break;
            if (next_loc != oi.num_page_locations) {
                st = basalt_error_set(err, BASALT_INTERNAL, "offset index out of step");
                break;
            }
            m->codec = BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY;
            m->total_compressed_size = (int64_t)rw->out.size - new_start;
            cc->file_offset = new_start;
            if (cc->has_offset_index_offset) {
                size_t at = rw->out.size;
                st = basalt_thrift_encode_offset_index(&oi, &rw->out, err);
                cc->offset_index_offset = (int64_t)at;
                cc->offset_index_length = (int32_t)(rw->out.size - at);
            }
            if (st == BASALT_OK && cc->has_column_index_offset) {
                size_t at = rw->out.size;
                st = basalt_buffer_append(&rw->out, in + cc->column_index_offset,
                                          (size_t)cc->column_index_length, err);
                cc->column_index_offset = (int64_t)at;
            }
        }
    }
    size_t footer_at = rw->out.size;
    if (st == BASALT_OK)
        st = basalt_thrift_encode_file_metadata(&md, &rw->out, err);
    if (st == BASALT_OK) {
        uint32_t n = (uint32_t)(rw->out.size - footer_at);
        uint8_t tail[8] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24),
                           'P', 'A', 'R', '1'};
        st = basalt_buffer_append(&rw->out, tail, 8, err);
    }
    basalt_free(tmp);
    basalt_codec_free(codec);
    basalt_arena_reset(&arena);
    return st;
}

/* Reads every column of `data`, optionally with id = 7, into text. */
static basalt_status read_mem(const uint8_t *data, size_t len, bool filter,
                              struct basalt_buffer *text, struct basalt_parquet_scan_stats *ss,
                              struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_input_open_memory(data, len, "snappy_tiny_pages.parquet", &in, err);
    if (st == BASALT_OK)
        st = basalt_parquet_reader_open(in, true, NULL, &r, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, NULL, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        if (filter) {
            struct basalt_parquet_literal l;
            memset(&l, 0, sizeof l);
            l.kind = BASALT_PARQUET_LITERAL_INT;
            l.i = 7;
            st = basalt_parquet_scan_filter(scan, "id", BASALT_PARQUET_OP_EQ, &l, err);
        }
    }
    if (st == BASALT_OK)
        st = basalt_parquet_scan_read_all(scan, &b, err);
    if (st == BASALT_OK)
        pqr_text_batches(&b.schema, b.arrays, b.n, text);
    basalt_buffer_append(text, "", 1, NULL);
    basalt_parquet_scan_get_stats(scan, ss);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

TEST(prune_skipped_pages_not_decompressed)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/alltypes_tiny_pages.parquet",
             bt_testdata_path("parquet-testing/data"));
    size_t len = 0;
    uint8_t *data = bt_read_file(path, &len);
    CHECK(data != NULL);
    struct basalt_error err;
    struct rewrite rw;
    memset(&rw, 0, sizeof rw);
    basalt_buffer_init(&rw.out);
    basalt_status st = compress_file(data, len, &rw, &err);
    struct basalt_buffer t_plain, t_snappy, t_all;
    basalt_buffer_init(&t_plain);
    basalt_buffer_init(&t_snappy);
    basalt_buffer_init(&t_all);
    struct basalt_parquet_scan_stats s_plain, s_snappy, s_all;
    if (st == BASALT_OK)
        st = read_mem(data, len, true, &t_plain, &s_plain, &err);
    if (st == BASALT_OK)
        st = read_mem(rw.out.data, rw.out.size, true, &t_snappy, &s_snappy, &err);
    if (st == BASALT_OK)
        st = read_mem(rw.out.data, rw.out.size, false, &t_all, &s_all, &err);
    bool same = st == BASALT_OK && strcmp((char *)t_plain.data, (char *)t_snappy.data) == 0;
    size_t rows = 0;
    for (size_t i = 0; st == BASALT_OK && i < t_snappy.size; i++)
        rows += t_snappy.data[i] == '\n';
    bool smaller = rw.out.size < len;
    basalt_free(data);
    basalt_buffer_reset(&rw.out);
    basalt_buffer_reset(&t_plain);
    basalt_buffer_reset(&t_snappy);
    basalt_buffer_reset(&t_all);
    CHECK_OK(st, &err);
    CHECK(smaller);
    CHECK(same);
    CHECK_EQ(rows, 42);
    /* The uncompressed file decompresses nothing. */
    CHECK_EQ(s_plain.pages_decompressed, 0);
    /* Exactly the selected data pages and the dictionaries. */
    int64_t selected = s_snappy.pages_total - s_snappy.pages_skipped;
    CHECK(s_snappy.pages_total == rw.data_pages);
    CHECK(selected < rw.data_pages / 10);
    CHECK_EQ(s_snappy.pages_decompressed, selected + rw.dict_pages);
    /* Negative control: without the filter every page is decompressed. */
    CHECK_EQ(s_all.pages_decompressed, rw.data_pages + rw.dict_pages);
    CHECK_EQ(s_all.pages_skipped, 0);
}
