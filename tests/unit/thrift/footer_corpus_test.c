/* The footers (and first pages, page indexes, bloom filters) of the
 * parquet-testing corpus: every structure decodes, re-encodes to the same
 * structure, and agrees with the footer that points at it. Field values are
 * compared with DuckDB by the differential test (tests/tools); the known
 * answers below were read with DuckDB's parquet_metadata(). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "pf_compare.h"
#include "test.h"

#include "basalt/parquet_format.h"

struct corpus_file {
    char path[1024];
    char name[256];
    uint8_t *data;
    size_t len;
};

struct corpus {
    struct corpus_file *files;
    size_t count;
};

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct corpus_file *)a)->path, ((const struct corpus_file *)b)->path);
}

static bool wanted(const char *name)
{
    size_t n = strlen(name);
    return (n > 8 && strcmp(name + n - 8, ".parquet") == 0) ||
           (n > 18 && strcmp(name + n - 18, ".parquet.encrypted") == 0);
}

static void add_dir(struct corpus *c, const char *dir, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) {
            add_dir(c, path, cap);
            continue;
        }
        if (!wanted(e->d_name))
            continue;
        if (c->count == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            c->files = realloc(c->files, *cap * sizeof *c->files);
        }
        struct corpus_file *f = &c->files[c->count++];
        snprintf(f->path, sizeof f->path, "%s", path);
        snprintf(f->name, sizeof f->name, "%s", e->d_name);
        f->data = NULL;
        f->len = 0;
    }
    closedir(d);
}

/* Every corpus file under `sub` of parquet-testing, read into memory. */
static struct corpus load(const char *sub)
{
    struct corpus c = {NULL, 0};
    size_t cap = 0;
    char rel[256];
    snprintf(rel, sizeof rel, "parquet-testing/%s", sub);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", bt_testdata_path(rel));
    add_dir(&c, dir, &cap);
    if (c.count)
        qsort(c.files, c.count, sizeof *c.files, by_path);
    for (size_t i = 0; i < c.count; i++)
        c.files[i].data = bt_read_file(c.files[i].path, &c.files[i].len);
    return c;
}

static void unload(struct corpus *c)
{
    for (size_t i = 0; i < c->count; i++)
        basalt_free(c->files[i].data);
    free(c->files);
}

static const struct corpus_file *find(const struct corpus *c, const char *name)
{
    for (size_t i = 0; i < c->count; i++)
        if (strcmp(c->files[i].name, name) == 0)
            return &c->files[i];
    return NULL;
}

/* The footer of a PAR1 file, or the trailer's status. */
static basalt_status footer_of(const struct corpus_file *f, const uint8_t **footer, uint32_t *len,
                               struct basalt_error *err)
{
    *footer = NULL;
    *len = 0;
    if (f->len < 8)
        return basalt_error_set(err, BASALT_CORRUPT, "short file");
    basalt_status st = basalt_thrift_decode_trailer(f->data + f->len - 8, f->len, len, err);
    *footer = f->data + f->len - 8 - *len;
    return st;
}

/* ------------------------------------------------------------------ footers */

TEST(corpus_footers_decode_and_round_trip)
{
    struct corpus c = load("data");
    CHECK(c.count >= 80);
    size_t decoded = 0, refused = 0, identical = 0;
    for (size_t i = 0; i < c.count; i++) {
        const struct corpus_file *f = &c.files[i];
        CHECK_MSG(f->data != NULL, "%s: unreadable", f->path);
        struct basalt_error err;
        basalt_error_init(&err);
        const uint8_t *footer;
        uint32_t footer_len;
        basalt_status st = footer_of(f, &footer, &footer_len, &err);
        bool pare = memcmp(f->data + f->len - 4, "PARE", 4) == 0;
        if (pare) {
            CHECK_MSG(st == BASALT_UNSUPPORTED, "%s: trailer gave %s", f->name,
                      basalt_status_name(st));
            refused++;
            continue;
        }
        CHECK_MSG(st == BASALT_OK, "%s: %s", f->name, err.message);

        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_parquet_file_metadata md, md2;
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        st = basalt_thrift_decode_file_metadata(footer, footer_len, &arena, NULL, &md, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_encode_file_metadata(&md, &buf, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, NULL, &md2, &err);
        char why[512] = "";
        bool same = st == BASALT_OK && pfc_file_metadata(&md, &md2, why, sizeof why);
        /* Writers that put fields in id order and nothing else re-encode
         * byte for byte; the plaintext-footer encrypted files carry a
         * signature after the struct. */
        if (st == BASALT_OK && buf.size <= footer_len && memcmp(buf.data, footer, buf.size) == 0)
            identical++;
        bool encrypted_columns = st == BASALT_OK && md.has_encrypted_columns;
        bool has_algorithm = st == BASALT_OK && md.has_encryption_algorithm;
        basalt_buffer_reset(&buf);
        basalt_arena_reset(&arena);
        CHECK_MSG(st == BASALT_OK, "%s: %s: %s", f->name, basalt_status_name(st), err.message);
        CHECK_MSG(same, "%s: round trip differs at %s", f->name, why);
        /* Only the plaintext-footer encrypted files carry encrypted columns. */
        bool plaintext_encrypted = strstr(f->name, ".encrypted") != NULL;
        CHECK_MSG(encrypted_columns == plaintext_encrypted, "%s: has_encrypted_columns %d",
                  f->name, encrypted_columns);
        CHECK_MSG(has_algorithm == plaintext_encrypted, "%s: has_encryption_algorithm %d",
                  f->name, has_algorithm);
        decoded++;
    }
    printf("     %zu footers decoded and round-tripped (%zu re-encoded byte for byte), "
           "%zu encrypted footers refused\n",
           decoded, identical, refused);
    CHECK(decoded >= 70);
    CHECK(refused >= 10);
    unload(&c);
}

TEST(corpus_known_answers)
{
    struct corpus c = load("data");
    const struct corpus_file *f = find(&c, "alltypes_plain.parquet");
    CHECK(f != NULL);
    struct basalt_error err;
    const uint8_t *footer;
    uint32_t footer_len;
    CHECK_OK(footer_of(f, &footer, &footer_len, &err), &err);
    CHECK_EQ(footer_len, 730);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    basalt_status st = basalt_thrift_decode_file_metadata(footer, footer_len, &arena, NULL, &md, &err);
    if (st != BASALT_OK)
        basalt_arena_reset(&arena);
    CHECK_OK(st, &err);
    /* DuckDB 1.5: parquet_file_metadata / parquet_metadata / parquet_schema. */
    bool ok = md.num_rows == 8 && md.num_row_groups == 1 && md.version == 1 &&
              md.has_created_by &&
              strcmp(md.created_by.data, "impala version 1.3.0-INTERNAL (build "
                                         "8a48ddb1eff84592b3fc06bc6f51ec120e1fffc9)") == 0 &&
              md.num_schema == 12 && strcmp(md.schema[0].name.data, "schema") == 0 &&
              md.schema[0].num_children == 11 && strcmp(md.schema[1].name.data, "id") == 0 &&
              md.schema[1].type == BASALT_PARQUET_TYPE_INT32 &&
              md.schema[1].repetition_type == BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL;
    const struct basalt_parquet_row_group *rg = &md.row_groups[0];
    ok = ok && rg->num_rows == 8 && rg->num_columns == 11 && rg->total_byte_size == 671;
    const struct basalt_parquet_column_metadata *id = &rg->columns[0].meta_data;
    ok = ok && id->type == BASALT_PARQUET_TYPE_INT32 && id->num_values == 8 &&
         id->codec == BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED &&
         id->has_dictionary_page_offset && id->dictionary_page_offset == 4 &&
         id->data_page_offset == 49 && id->total_compressed_size == 73 &&
         id->total_uncompressed_size == 73 && id->num_encodings == 3 &&
         id->encodings[0] == BASALT_PARQUET_ENCODING_RLE &&
         id->encodings[1] == BASALT_PARQUET_ENCODING_PLAIN_DICTIONARY &&
         id->encodings[2] == BASALT_PARQUET_ENCODING_PLAIN && id->num_path_in_schema == 1 &&
         strcmp(id->path_in_schema[0].data, "id") == 0 && !id->has_statistics;
    const struct basalt_parquet_column_metadata *b = &rg->columns[1].meta_data;
    ok = ok && b->type == BASALT_PARQUET_TYPE_BOOLEAN && !b->has_dictionary_page_offset &&
         b->data_page_offset == 109 && b->total_compressed_size == 24;
    basalt_arena_reset(&arena);
    unload(&c);
    CHECK(ok);
}

TEST(corpus_plaintext_footer_encryption_is_flagged)
{
    struct corpus c = load("data");
    const struct corpus_file *f = find(&c, "encrypt_columns_plaintext_footer.parquet.encrypted");
    CHECK(f != NULL);
    struct basalt_error err;
    const uint8_t *footer;
    uint32_t footer_len;
    CHECK_OK(footer_of(f, &footer, &footer_len, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    basalt_status st = basalt_thrift_decode_file_metadata(footer, footer_len, &arena, NULL, &md, &err);
    bool ok = st == BASALT_OK && md.has_encryption_algorithm &&
              md.encryption_algorithm.kind == BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 &&
              md.has_footer_signing_key_metadata && md.has_encrypted_columns;
    /* Column-key columns carry their path; footer-key ones nothing. */
    size_t column_key = 0, footer_key = 0;
    for (size_t i = 0; ok && i < md.row_groups[0].num_columns; i++) {
        const struct basalt_parquet_column_chunk *cc = &md.row_groups[0].columns[i];
        if (!cc->has_crypto_metadata)
            continue;
        if (cc->crypto_metadata->kind == BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY) {
            ok = ok && cc->crypto_metadata->num_path_in_schema >= 1 &&
                 cc->has_encrypted_column_metadata;
            column_key++;
        } else if (cc->crypto_metadata->kind ==
                   BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_FOOTER_KEY) {
            footer_key++;
        }
    }
    basalt_arena_reset(&arena);
    unload(&c);
    CHECK_OK(st, &err);
    CHECK(ok);
    CHECK(column_key >= 1);
    (void)footer_key;
}

TEST(corpus_encrypted_footers_expose_crypto_metadata)
{
    struct corpus c = load("data");
    size_t seen = 0;
    for (size_t i = 0; i < c.count; i++) {
        const struct corpus_file *f = &c.files[i];
        if (memcmp(f->data + f->len - 4, "PARE", 4) != 0)
            continue;
        struct basalt_error err;
        const uint8_t *footer;
        uint32_t footer_len;
        CHECK_STATUS(footer_of(f, &footer, &footer_len, &err), BASALT_UNSUPPORTED, &err);
        CHECK(strstr(err.message, "encrypted") != NULL);
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_parquet_file_crypto_metadata cm;
        size_t used = 0;
        basalt_status st = basalt_thrift_decode_file_crypto_metadata(footer, footer_len, &arena,
                                                                     NULL, &cm, &used, &err);
        int32_t kind = cm.encryption_algorithm.kind;
        basalt_arena_reset(&arena);
        CHECK_MSG(st == BASALT_OK, "%s: %s", f->name, err.message);
        CHECK(used > 0 && used < footer_len);
        /* The file names say which algorithm wrote them. */
        int32_t want = strstr(f->name, "_ctr") ? BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1
                                               : BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1;
        CHECK_MSG(kind == want, "%s: algorithm %d", f->name, kind);
        seen++;
    }
    unload(&c);
    CHECK(seen >= 10);
}

/* ------------------------------------------------------------------ pages and indexes */

/* Where a column chunk's first page starts: the dictionary page when there
 * is one (some writers store 0 for "none"). */
static int64_t chunk_start(const struct basalt_parquet_column_metadata *m)
{
    /* An empty chunk may hold only a dictionary page, data_page_offset 0. */
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
        (m->dictionary_page_offset < m->data_page_offset || m->num_values == 0))
        return m->dictionary_page_offset;
    return m->data_page_offset;
}

struct page_counts {
    size_t pages, dictionary_pages, column_indexes, offset_indexes, bloom_filters;
};

static bool check_chunk(const struct corpus_file *f, const uint8_t *footer,
                        const struct basalt_parquet_column_chunk *cc, struct page_counts *n,
                        char *why, size_t why_size)
{
    const struct basalt_parquet_column_metadata *m = &cc->meta_data;
    size_t body_end = (size_t)(footer - f->data);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    bool ok = true;
    int64_t start = chunk_start(m);
    if (start < 4 || (uint64_t)start >= body_end) {
        snprintf(why, why_size, "chunk start %lld outside the file", (long long)start);
        ok = false;
        goto done;
    }
    struct basalt_parquet_page_header ph, ph2;
    size_t header_len;
    basalt_status st = basalt_thrift_decode_page_header(f->data + start, body_end - (size_t)start,
                                                        &arena, NULL, &ph, &header_len, &err);
    if (st == BASALT_OK)
        st = basalt_thrift_encode_page_header(&ph, &buf, &err);
    size_t len2 = 0;
    if (st == BASALT_OK)
        st = basalt_thrift_decode_page_header(buf.data, buf.size, &arena, NULL, &ph2, &len2, &err);
    if (st != BASALT_OK) {
        snprintf(why, why_size, "page header at %lld: %.400s", (long long)start, err.message);
        ok = false;
        goto done;
    }
    if (!pfc_page_header(&ph, &ph2, why, why_size) || len2 != buf.size) {
        ok = false;
        goto done;
    }
    /* The footer and the page header agree on what the first page is. Some
     * writers leave dictionary_page_offset out and put the dictionary page
     * at data_page_offset; the encodings then still name a dictionary
     * (unless the writer listed none, as early parquet-mr did). */
    bool dictionary = ph.type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE;
    bool dictionary_encoded = false;
    for (size_t i = 0; i < m->num_encodings; i++)
        dictionary_encoded |= m->encodings[i] == BASALT_PARQUET_ENCODING_PLAIN_DICTIONARY ||
                              m->encodings[i] == BASALT_PARQUET_ENCODING_RLE_DICTIONARY;
    bool consistent = dictionary ? ph.has_dictionary_page_header &&
                                       (dictionary_encoded || m->num_values == 0 ||
                                        m->num_encodings == 0)
                                 : start == m->data_page_offset &&
                                       (ph.has_data_page_header || ph.has_data_page_header_v2);
    if (!consistent) {
        snprintf(why, why_size, "first page type %d at %lld (data_page_offset %lld)", ph.type,
                 (long long)start, (long long)m->data_page_offset);
        ok = false;
        goto done;
    }
    /* Where the first data page starts, by the page header. */
    int64_t first_data = dictionary ? start + (int64_t)header_len + ph.compressed_page_size
                                    : start;
    n->pages++;
    n->dictionary_pages += dictionary;

    struct basalt_parquet_offset_index oi, oi2;
    bool have_oi = false;
    if (cc->has_offset_index_offset && cc->has_offset_index_length) {
        int64_t at = cc->offset_index_offset;
        int32_t len = cc->offset_index_length;
        if (at < 0 || len < 0 || (uint64_t)at + (uint64_t)len > body_end) {
            snprintf(why, why_size, "offset index outside the file");
            ok = false;
            goto done;
        }
        basalt_buffer_reset(&buf);
        st = basalt_thrift_decode_offset_index(f->data + at, (size_t)len, &arena, NULL, &oi, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_encode_offset_index(&oi, &buf, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_decode_offset_index(buf.data, buf.size, &arena, NULL, &oi2, &err);
        if (st != BASALT_OK) {
            snprintf(why, why_size, "offset index: %.400s", err.message);
            ok = false;
            goto done;
        }
        if (!pfc_offset_index(&oi, &oi2, why, why_size) || buf.size != (size_t)len) {
            ok = false;
            goto done;
        }
        /* The first indexed page is the first data page. */
        if (oi.num_page_locations == 0 || oi.page_locations[0].offset != first_data ||
            oi.page_locations[0].first_row_index != 0) {
            snprintf(why, why_size, "offset index does not start at data_page_offset");
            ok = false;
            goto done;
        }
        have_oi = true;
        n->offset_indexes++;
    }
    if (cc->has_column_index_offset && cc->has_column_index_length) {
        int64_t at = cc->column_index_offset;
        int32_t len = cc->column_index_length;
        if (at < 0 || len < 0 || (uint64_t)at + (uint64_t)len > body_end) {
            snprintf(why, why_size, "column index outside the file");
            ok = false;
            goto done;
        }
        struct basalt_parquet_column_index ci, ci2;
        basalt_buffer_reset(&buf);
        st = basalt_thrift_decode_column_index(f->data + at, (size_t)len, &arena, NULL, &ci, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_encode_column_index(&ci, &buf, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_decode_column_index(buf.data, buf.size, &arena, NULL, &ci2, &err);
        if (st != BASALT_OK) {
            snprintf(why, why_size, "column index: %.400s", err.message);
            ok = false;
            goto done;
        }
        if (!pfc_column_index(&ci, &ci2, why, why_size)) {
            ok = false;
            goto done;
        }
        /* One entry per page, in both indexes. */
        if (ci.num_null_pages != ci.num_min_values || ci.num_null_pages != ci.num_max_values ||
            (have_oi && ci.num_null_pages != oi.num_page_locations)) {
            snprintf(why, why_size, "column index has %zu pages, offset index %zu",
                     ci.num_null_pages, have_oi ? oi.num_page_locations : 0);
            ok = false;
            goto done;
        }
        n->column_indexes++;
    }
    if (m->has_bloom_filter_offset) {
        int64_t at = m->bloom_filter_offset;
        if (at < 0 || (uint64_t)at >= body_end) {
            snprintf(why, why_size, "bloom filter outside the file");
            ok = false;
            goto done;
        }
        struct basalt_parquet_bloom_filter_header bf, bf2;
        size_t bf_len, bf_len2;
        basalt_buffer_reset(&buf);
        st = basalt_thrift_decode_bloom_filter_header(f->data + at, body_end - (size_t)at, &arena,
                                                      NULL, &bf, &bf_len, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_encode_bloom_filter_header(&bf, &buf, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_decode_bloom_filter_header(buf.data, buf.size, &arena, NULL, &bf2,
                                                          &bf_len2, &err);
        if (st != BASALT_OK) {
            snprintf(why, why_size, "bloom filter header: %.400s", err.message);
            ok = false;
            goto done;
        }
        if (!pfc_bloom_filter_header(&bf, &bf2, why, why_size)) {
            ok = false;
            goto done;
        }
        if (bf.algorithm != BASALT_PARQUET_BLOOM_FILTER_ALGORITHM_BLOCK ||
            bf.hash != BASALT_PARQUET_BLOOM_FILTER_HASH_XXHASH ||
            bf.compression != BASALT_PARQUET_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED ||
            (m->has_bloom_filter_length &&
             (int64_t)bf_len + bf.num_bytes != m->bloom_filter_length)) {
            snprintf(why, why_size, "bloom filter header disagrees with the footer");
            ok = false;
            goto done;
        }
        n->bloom_filters++;
    }
done:
    basalt_buffer_reset(&buf);
    basalt_arena_reset(&arena);
    return ok;
}

TEST(corpus_first_pages_and_indexes)
{
    struct corpus c = load("data");
    struct page_counts n = {0};
    for (size_t i = 0; i < c.count; i++) {
        const struct corpus_file *f = &c.files[i];
        if (strstr(f->name, ".encrypted"))
            continue; /* page headers are encrypted too */
        struct basalt_error err;
        const uint8_t *footer;
        uint32_t footer_len;
        CHECK_OK(footer_of(f, &footer, &footer_len, &err), &err);
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_parquet_file_metadata md;
        basalt_status st = basalt_thrift_decode_file_metadata(footer, footer_len, &arena, NULL,
                                                              &md, &err);
        bool ok = st == BASALT_OK;
        char why[512] = "";
        size_t g = 0, k = 0;
        for (g = 0; ok && g < md.num_row_groups; g++)
            for (k = 0; ok && k < md.row_groups[g].num_columns; k++)
                ok = check_chunk(f, footer, &md.row_groups[g].columns[k], &n, why, sizeof why);
        basalt_arena_reset(&arena);
        CHECK_OK(st, &err);
        CHECK_MSG(ok, "%s: row group %zu column %zu: %s", f->name, g - 1, k - 1, why);
    }
    printf("     %zu first pages (%zu dictionary pages), %zu column indexes, %zu offset "
           "indexes, %zu bloom filters\n",
           n.pages, n.dictionary_pages, n.column_indexes, n.offset_indexes, n.bloom_filters);
    CHECK(n.pages > 500);
    CHECK(n.dictionary_pages > 50);
    CHECK(n.column_indexes > 10);
    CHECK(n.offset_indexes > 10);
    CHECK(n.bloom_filters >= 2);
    unload(&c);
}

TEST(standalone_bloom_filters)
{
    struct corpus c = {NULL, 0};
    /* bloom_filter.xxhash.bin is a current header + bitset; bloom_filter.bin
     * is the pre-release layout (raw little-endian sizes, no Thrift). */
    const char *names[] = {"bloom_filter.xxhash.bin", "bloom_filter.bin"};
    for (int i = 0; i < 2; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "parquet-testing/data/%s", names[i]);
        size_t len;
        uint8_t *data = bt_read_file(bt_testdata_path(rel), &len);
        CHECK(data != NULL);
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_parquet_bloom_filter_header bf;
        size_t header_len = 0;
        struct basalt_error err;
        basalt_status st = basalt_thrift_decode_bloom_filter_header(data, len, &arena, NULL, &bf,
                                                                    &header_len, &err);
        basalt_arena_reset(&arena);
        basalt_free(data);
        if (i == 0) {
            CHECK_OK(st, &err);
            CHECK_EQ(bf.num_bytes, 1024);
            CHECK_EQ(header_len + 1024, len);
            CHECK_EQ(bf.algorithm, BASALT_PARQUET_BLOOM_FILTER_ALGORITHM_BLOCK);
            CHECK_EQ(bf.hash, BASALT_PARQUET_BLOOM_FILTER_HASH_XXHASH);
            CHECK_EQ(bf.compression, BASALT_PARQUET_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED);
        } else {
            CHECK_STATUS(st, BASALT_CORRUPT, &err);
        }
    }
    (void)c;
}

/* ------------------------------------------------------------------ bad input */

TEST(corpus_bad_data_footers)
{
    struct corpus c = load("bad_data");
    CHECK(c.count >= 8);
    size_t corrupt = 0;
    for (size_t i = 0; i < c.count; i++) {
        const struct corpus_file *f = &c.files[i];
        struct basalt_error err;
        basalt_error_init(&err);
        const uint8_t *footer;
        uint32_t footer_len;
        basalt_status st = footer_of(f, &footer, &footer_len, &err);
        if (st == BASALT_OK) {
            struct basalt_arena arena;
            basalt_arena_init(&arena, 0);
            struct basalt_parquet_file_metadata md;
            st = basalt_thrift_decode_file_metadata(footer, footer_len, &arena, NULL, &md, &err);
            basalt_arena_reset(&arena);
        }
        CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT, "%s: %s",
                  f->name, basalt_status_name(st));
        corrupt += st != BASALT_OK;
        /* PARQUET-1481: a schema element's physical type is -7. */
        if (strcmp(f->name, "PARQUET-1481.parquet") == 0) {
            CHECK_STATUS(st, BASALT_CORRUPT, &err);
            CHECK(strstr(err.message, "schema[1]") != NULL);
        }
    }
    CHECK(corrupt >= 1);
    unload(&c);
}

/* Decodes every prefix of a footer from the end of an exact-size heap
 * block, so any read past the prefix is a sanitizer error. */
static bool truncations_fail(const uint8_t *footer, size_t len, char *why, size_t why_size)
{
    uint8_t *block = basalt_malloc(len);
    if (!block)
        return false;
    bool ok = true;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t n = 0; n < len && ok; n++) {
        uint8_t *at = block + (len - n);
        memcpy(at, footer, n);
        struct basalt_parquet_file_metadata md;
        basalt_status st = basalt_thrift_decode_file_metadata(n ? at : NULL, n, &arena, NULL, &md,
                                                              NULL);
        basalt_arena_reset(&arena);
        if (st != BASALT_CORRUPT) {
            snprintf(why, why_size, "prefix of %zu bytes gave %s", n, basalt_status_name(st));
            ok = false;
        }
    }
    basalt_free(block);
    return ok;
}

TEST(corpus_footers_truncated_at_every_byte)
{
    struct corpus c = load("data");
    size_t footers = 0, bytes = 0;
    for (size_t i = 0; i < c.count; i++) {
        const struct corpus_file *f = &c.files[i];
        const uint8_t *footer;
        uint32_t footer_len;
        struct basalt_error err;
        if (footer_of(f, &footer, &footer_len, &err) != BASALT_OK)
            continue;
        if (strstr(f->name, ".encrypted"))
            footer_len -= 28; /* the signature after the struct (nonce + tag) */
        if (footer_len > 20000)
            continue;
        char why[256];
        CHECK_MSG(truncations_fail(footer, footer_len, why, sizeof why), "%s: %s", f->name, why);
        footers++;
        bytes += footer_len;
    }
    printf("     %zu footers, %zu prefixes\n", footers, bytes);
    CHECK(footers >= 70);
    unload(&c);
}
