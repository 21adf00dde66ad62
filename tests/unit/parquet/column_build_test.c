/* Builders for synthetic column chunks and schemas (shared by the page,
 * column and assemble tests): pages are written with the thrift page header
 * encoder, the level and value encoders of parquet_encoding.h and the
 * codecs, so every byte layout comes from the specification's encoders and
 * not from the decoder under test. */
#include <stdlib.h>

#include "basalt/hash.h"
#include "parquet_column.h"
#include "test.h"

/* One schema element: type -1 is a group. */
struct pqc_el {
    const char *name;
    int32_t type;
    int32_t repetition;
    int32_t children;
    int32_t converted;   /* -1: none */
    int32_t type_length;
    int32_t precision, scale;
};

struct pqc_page {
    int32_t type;        /* DATA_PAGE (default), DATA_PAGE_V2, DICTIONARY_PAGE, or another */
    int32_t num_values;  /* data pages: levels; dictionary: entries */
    int32_t encoding;
    const int16_t *rep, *def;
    int16_t max_rep, max_def;
    const uint8_t *values;
    size_t values_len;
    int32_t codec;       /* compress the body with this Parquet codec */
    bool crc;
    bool bad_crc;        /* store a wrong CRC */
    bool v2_not_compressed; /* is_compressed = false */
    bool v2_flag_lies;   /* is_compressed = false, values compressed all the same */
    int32_t size_delta;  /* added to the uncompressed size in the header */
    bool def_bit_packed; /* v1: BIT_PACKED definition levels */
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
void pqc_put_value(struct basalt_buffer *out, const struct ArrowSchema *s,
                   const struct ArrowArray *a, int64_t i);
void pqc_puts(struct basalt_buffer *out, const char *s);
bool pqc_text_is(struct basalt_buffer *text, const char *want);

void pqc_append(struct basalt_buffer *b, const void *p, size_t n)
{
    if (basalt_buffer_append(b, p, n, NULL) != BASALT_OK)
        abort();
}

void pqc_plain_i32(struct basalt_buffer *b, const int32_t *v, size_t n)
{
    if (basalt_parquet_plain_encode_fixed(v, 4, n, NULL, 0, b, NULL) != BASALT_OK)
        abort();
}

void pqc_plain_i64(struct basalt_buffer *b, const int64_t *v, size_t n)
{
    if (basalt_parquet_plain_encode_fixed(v, 8, n, NULL, 0, b, NULL) != BASALT_OK)
        abort();
}

void pqc_plain_bytes(struct basalt_buffer *b, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t len = (uint32_t)strlen(v[i]);
        pqc_append(b, &len, 4);
        pqc_append(b, v[i], len);
    }
}

void pqc_dict_indices(struct basalt_buffer *b, const uint32_t *idx, size_t n, uint32_t dict_len)
{
    if (basalt_parquet_dict_encode_indices(idx, n, dict_len, b, NULL) != BASALT_OK)
        abort();
}

void pqc_chunk_init(struct pqc_chunk *c, int32_t physical, int32_t codec)
{
    memset(c, 0, sizeof *c);
    basalt_buffer_init(&c->bytes);
    c->meta.type = physical;
    c->meta.codec = codec;
}

void pqc_chunk_reset(struct pqc_chunk *c)
{
    basalt_buffer_reset(&c->bytes);
}

static enum basalt_codec_kind codec_kind(int32_t codec)
{
    switch (codec) {
    case BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY: return BASALT_CODEC_SNAPPY;
    case BASALT_PARQUET_COMPRESSION_CODEC_GZIP: return BASALT_CODEC_GZIP;
    case BASALT_PARQUET_COMPRESSION_CODEC_BROTLI: return BASALT_CODEC_BROTLI;
    case BASALT_PARQUET_COMPRESSION_CODEC_LZ4: return BASALT_CODEC_LZ4_HADOOP;
    case BASALT_PARQUET_COMPRESSION_CODEC_ZSTD: return BASALT_CODEC_ZSTD;
    case BASALT_PARQUET_COMPRESSION_CODEC_LZ4_RAW: return BASALT_CODEC_LZ4_RAW;
    default: return BASALT_CODEC_UNCOMPRESSED;
    }
}

static void compress(int32_t codec, const struct basalt_buffer *in, struct basalt_buffer *out)
{
    enum basalt_codec_kind k = codec_kind(codec);
    if (k == BASALT_CODEC_UNCOMPRESSED) {
        pqc_append(out, in->data, in->size);
        return;
    }
    struct basalt_codec *cd;
    if (basalt_codec_new(k, BASALT_CODEC_LEVEL_DEFAULT, &cd, NULL) != BASALT_OK)
        abort();
    size_t cap = basalt_codec_max_compressed_size(cd, in->size);
    if (basalt_buffer_reserve(out, cap, NULL) != BASALT_OK)
        abort();
    size_t got;
    if (basalt_codec_compress(cd, in->data, in->size, out->data + out->size, cap, &got, NULL) !=
        BASALT_OK)
        abort();
    out->size += got;
    basalt_codec_free(cd);
}

static void levels(struct basalt_buffer *b, const int16_t *lv, size_t n, int16_t max,
                   bool prefixed)
{
    if (basalt_parquet_levels_encode(lv, n, max, prefixed, b, NULL) != BASALT_OK)
        abort();
}

/* BIT_PACKED: most significant bit first. */
static void levels_bit_packed(struct basalt_buffer *b, const int16_t *lv, size_t n, int16_t max)
{
    unsigned w = basalt_parquet_level_bit_width(max);
    size_t bytes = (n * w + 7) / 8;
    uint8_t *p = calloc(bytes + 1, 1);
    size_t bit = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = w; k-- > 0; bit++)
            if ((lv[i] >> k) & 1)
                p[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
    pqc_append(b, p, bytes);
    free(p);
}

void pqc_chunk_add(struct pqc_chunk *c, const struct pqc_page *p)
{
    struct basalt_buffer raw, body;
    basalt_buffer_init(&raw);
    basalt_buffer_init(&body);
    struct basalt_parquet_page_header h;
    memset(&h, 0, sizeof h);
    int32_t type = p->type;
    h.type = type;
    int32_t codec = p->codec ? p->codec : c->meta.codec;
    int32_t uncompressed;
    if (type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2) {
        struct basalt_buffer rep, def, vals;
        basalt_buffer_init(&rep);
        basalt_buffer_init(&def);
        basalt_buffer_init(&vals);
        if (p->max_rep)
            levels(&rep, p->rep, (size_t)p->num_values, p->max_rep, false);
        if (p->max_def)
            levels(&def, p->def, (size_t)p->num_values, p->max_def, false);
        struct basalt_buffer v = {(uint8_t *)(uintptr_t)p->values, p->values_len, p->values_len};
        if (p->v2_not_compressed && !p->v2_flag_lies)
            pqc_append(&vals, v.data, v.size);
        else
            compress(codec, &v, &vals);
        pqc_append(&body, rep.data, rep.size);
        pqc_append(&body, def.data, def.size);
        pqc_append(&body, vals.data, vals.size);
        uncompressed = (int32_t)(rep.size + def.size + p->values_len);
        h.has_data_page_header_v2 = true;
        h.data_page_header_v2.num_values = p->num_values;
        h.data_page_header_v2.num_rows = p->num_values;
        h.data_page_header_v2.encoding = p->encoding;
        h.data_page_header_v2.definition_levels_byte_length = (int32_t)def.size;
        h.data_page_header_v2.repetition_levels_byte_length = (int32_t)rep.size;
        h.data_page_header_v2.has_is_compressed = true;
        h.data_page_header_v2.is_compressed = !p->v2_not_compressed && !p->v2_flag_lies;
        basalt_buffer_reset(&rep);
        basalt_buffer_reset(&def);
        basalt_buffer_reset(&vals);
    } else {
        if (type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE) {
            if (p->max_rep && !p->raw_body)
                levels(&raw, p->rep, (size_t)p->num_values, p->max_rep, true);
            if (p->max_def && !p->raw_body) {
                if (p->def_bit_packed)
                    levels_bit_packed(&raw, p->def, (size_t)p->num_values, p->max_def);
                else
                    levels(&raw, p->def, (size_t)p->num_values, p->max_def, true);
            }
            h.has_data_page_header = true;
            h.data_page_header.num_values = p->num_values;
            h.data_page_header.encoding = p->encoding;
            h.data_page_header.definition_level_encoding =
                p->def_bit_packed ? BASALT_PARQUET_ENCODING_BIT_PACKED : BASALT_PARQUET_ENCODING_RLE;
            h.data_page_header.repetition_level_encoding = BASALT_PARQUET_ENCODING_RLE;
        } else if (type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE) {
            h.has_dictionary_page_header = true;
            h.dictionary_page_header.num_values = p->num_values;
            h.dictionary_page_header.encoding =
                p->encoding ? p->encoding : BASALT_PARQUET_ENCODING_PLAIN;
        } else if (type == BASALT_PARQUET_PAGE_TYPE_INDEX_PAGE) {
            h.has_index_page_header = true;
        }
        if (p->values_len)
            pqc_append(&raw, p->values, p->values_len);
        uncompressed = (int32_t)raw.size;
        compress(codec, &raw, &body);
    }
    h.uncompressed_page_size = uncompressed + p->size_delta;
    h.compressed_page_size = (int32_t)body.size;
    if (p->crc) {
        h.has_crc = true;
        h.crc = (int32_t)basalt_hash_crc32(0, body.data, body.size);
        if (p->bad_crc)
            h.crc ^= 1;
    }
    if (type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE || type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2) {
        c->meta.num_values += p->num_values;
        if (c->n_data_pages < 64)
            c->page_offsets[c->n_data_pages] = (int64_t)c->bytes.size;
        c->n_data_pages++;
    }
    if (basalt_thrift_encode_page_header(&h, &c->bytes, NULL) != BASALT_OK)
        abort();
    pqc_append(&c->bytes, body.data, body.size);
    c->meta.total_compressed_size = (int64_t)c->bytes.size;
    basalt_buffer_reset(&raw);
    basalt_buffer_reset(&body);
}

basalt_status pqc_schema(const struct pqc_el *els, size_t n, struct basalt_parquet_schema **out)
{
    struct basalt_parquet_schema_element *e = calloc(n, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        e[i].name.data = els[i].name;
        e[i].name.len = strlen(els[i].name);
        if (i > 0) {
            e[i].has_repetition_type = true;
            e[i].repetition_type = els[i].repetition;
        }
        if (els[i].type >= 0) {
            e[i].has_type = true;
            e[i].type = els[i].type;
        } else {
            e[i].has_num_children = true;
            e[i].num_children = els[i].children;
        }
        if (els[i].converted >= 0) {
            e[i].has_converted_type = true;
            e[i].converted_type = els[i].converted;
        }
        if (els[i].type_length) {
            e[i].has_type_length = true;
            e[i].type_length = els[i].type_length;
        }
        if (els[i].precision) {
            e[i].has_precision = e[i].has_scale = true;
            e[i].precision = els[i].precision;
            e[i].scale = els[i].scale;
        }
    }
    struct basalt_error err;
    basalt_status st = basalt_parquet_schema_from_elements(e, n, NULL, 0, NULL, out, &err);
    if (st != BASALT_OK)
        fprintf(stderr, "schema: %s\n", err.message);
    free(e);
    return st;
}

void pqc_source(const struct pqc_chunk *c, const struct basalt_parquet_schema *s, int32_t leaf,
                int64_t num_rows, struct basalt_parquet_chunk_source *src)
{
    memset(src, 0, sizeof *src);
    src->data = c->bytes.data;
    src->len = c->bytes.size;
    src->file_offset = 0;
    src->meta = &c->meta;
    src->leaf = &s->leaves[leaf];
    src->num_rows = num_rows;
}

/* Decodes chunks[k] as leaf k, assembles every top-level field and prints
 * the rows as column_read_test.c does (text NULL: no printing). */
basalt_status pqc_rows(const struct basalt_parquet_schema *s, struct pqc_chunk *chunks,
                       int64_t num_rows, const struct basalt_parquet_column_options *o,
                       struct basalt_parquet_scratch *scratch, struct basalt_buffer *text,
                       struct basalt_error *err)
{
    struct basalt_parquet_leaf_values leaves[16];
    struct ArrowArray arrays[16];
    memset(leaves, 0, sizeof leaves);
    memset(arrays, 0, sizeof arrays);
    struct ArrowSchema as;
    uint8_t large[16] = {0};
    for (int32_t k = 0; k < s->n_leaves && k < 16; k++)
        large[k] = o && o->large_offsets;
    struct basalt_parquet_arrow_options ao = {large, NULL, false};
    basalt_status st = basalt_parquet_schema_to_arrow(s, NULL, &ao, &as, err);
    if (st != BASALT_OK)
        return st;
    for (int32_t k = 0; st == BASALT_OK && k < s->n_leaves; k++) {
        struct basalt_parquet_chunk_source src;
        pqc_source(&chunks[k], s, k, num_rows, &src);
        st = basalt_parquet_column_decode(&src, o, scratch, &leaves[k], err);
    }
    for (int32_t r = 0; st == BASALT_OK && r < s->n_roots; r++) {
        st = basalt_parquet_assemble_field(s, s->roots[r], leaves, &arrays[r], err);
        if (st == BASALT_OK && !(o && o->keep_dictionary))
            st = basalt_arrow_array_validate(as.children[r], &arrays[r],
                                             BASALT_ARROW_VALIDATE_FULL, err);
    }
    int64_t rows = st == BASALT_OK && s->n_roots && text ? arrays[0].length : 0;
    for (int64_t i = 0; i < rows; i++) {
        pqc_puts(text, "[");
        for (int32_t r = 0; r < s->n_roots; r++) {
            if (r)
                pqc_puts(text, ",");
            pqc_put_value(text, as.children[r], &arrays[r], i);
        }
        pqc_puts(text, "]\n");
    }
    for (int32_t r = 0; r < 16; r++)
        basalt_arrow_array_release(&arrays[r]);
    for (int32_t k = 0; k < 16; k++)
        basalt_parquet_leaf_values_reset(&leaves[k]);
    basalt_arrow_schema_release(&as);
    return st;
}

/* Compares and prints the difference; empties `text`. */
bool pqc_text_is(struct basalt_buffer *text, const char *want)
{
    bool ok = text->size == strlen(want) && memcmp(text->data, want, text->size) == 0;
    if (!ok)
        fprintf(stderr, "got:\n%.*s\nwant:\n%s\n", (int)text->size, text->data, want);
    basalt_buffer_reset(text);
    return ok;
}
