/* The corpus against oracles other than DuckDB: the expected-value files of
 * parquet-testing (*_expect.csv, the .md notes), the self-consistency pairs
 * (the same data in other encodings, codecs or page sizes), the checksum
 * files, bad_data/ and the OSS-Fuzz inputs (clean errors only), truncated
 * and bit-flipped chunks, and an allocation-failure sweep over a file. */
#include <dirent.h>
#include <stdlib.h>
#include <time.h>

#include "parquet_column.h"
#include "test.h"

struct pqc_file {
    uint8_t *data;
    size_t len;
    struct basalt_arena arena;
    struct basalt_parquet_file_metadata md;
    struct basalt_parquet_schema *schema;
};
struct pqc_read_options {
    struct basalt_parquet_column_options column;
    bool large_lists;
    bool validate;
    bool general_walk;          /* assembly without walk_branchless */
    int64_t *branchless_walks;  /* counts walk_branchless's successes, or NULL */
};
void pqc_read_options_init(struct pqc_read_options *o);
basalt_status pqc_open_bytes(const uint8_t *data, size_t len, struct pqc_file *f,
                             struct basalt_error *err);
basalt_status pqc_open(const char *path, struct pqc_file *f, struct basalt_error *err);
void pqc_close(struct pqc_file *f);
basalt_status pqc_chunk_source(const struct pqc_file *f, int64_t rg, int32_t leaf,
                               struct basalt_parquet_chunk_source *src, struct basalt_error *err);
basalt_status pqc_dump(struct pqc_file *f, const struct pqc_read_options *o,
                       struct basalt_parquet_scratch *scratch, struct basalt_buffer *out,
                       struct basalt_error *err);
basalt_status pqc_dump_path(const char *path, const struct pqc_read_options *o,
                            struct basalt_buffer *out, struct basalt_error *err);
const char *pqc_corpus(const char *rel);
void pqc_puts(struct basalt_buffer *out, const char *s);

#define DATA "parquet-testing/data/"

static basalt_status dump(const char *rel, const struct pqc_read_options *o,
                          struct basalt_buffer *out, struct basalt_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", pqc_corpus(rel));
    return pqc_dump_path(path, o, out, err);
}

static basalt_status dump_default(const char *rel, struct basalt_buffer *out,
                                  struct basalt_error *err)
{
    struct pqc_read_options o;
    pqc_read_options_init(&o);
    return dump(rel, &o, out, err);
}

static bool same_text(const struct basalt_buffer *a, const struct basalt_buffer *b,
                      const char *what)
{
    if (a->size == b->size && memcmp(a->data, b->data, a->size) == 0)
        return true;
    size_t i = 0, line = 1;
    while (i < a->size && i < b->size && a->data[i] == b->data[i])
        line += a->data[i++] == '\n';
    fprintf(stderr, "%s: differ at line %zu (%zu vs %zu bytes)\n", what, line, a->size, b->size);
    return false;
}

/* ------------------------------------------------------------------ expected values */

/* A CSV file (RFC 4180 quoting) as canonical rows: quoted fields become JSON
 * strings, unquoted numbers decimal strings, empty unquoted fields null. */
static bool csv_rows(const char *path, struct basalt_buffer *out)
{
    size_t len;
    uint8_t *data = bt_read_file(path, &len);
    if (!data)
        return false;
    size_t i = 0;
    while (i < len && data[i] != '\n') /* header */
        i++;
    i++;
    while (i < len) {
        pqc_puts(out, "[");
        bool first = true;
        for (;;) {
            if (!first)
                pqc_puts(out, ",");
            first = false;
            if (i < len && data[i] == '"') {
                pqc_puts(out, "\"");
                i++;
                while (i < len) {
                    if (data[i] == '"' && i + 1 < len && data[i + 1] == '"') {
                        pqc_puts(out, "\\\"");
                        i += 2;
                    } else if (data[i] == '"') {
                        i++;
                        break;
                    } else {
                        char c[2] = {(char)data[i++], 0};
                        pqc_puts(out, c);
                    }
                }
                pqc_puts(out, "\"");
            } else {
                size_t s = i;
                while (i < len && data[i] != ',' && data[i] != '\n' && data[i] != '\r')
                    i++;
                if (i == s) {
                    pqc_puts(out, "null");
                } else {
                    char v[64];
                    snprintf(v, sizeof v, "\"%.*s\"", (int)(i - s), (const char *)data + s);
                    pqc_puts(out, v);
                }
            }
            if (i < len && data[i] == ',') {
                i++;
                continue;
            }
            break;
        }
        while (i < len && (data[i] == '\r' || data[i] == '\n'))
            i++;
        pqc_puts(out, "]\n");
    }
    basalt_free(data);
    return true;
}

TEST(column_corpus_delta_expect_csv)
{
    static const char *const files[] = {"delta_binary_packed", "delta_byte_array",
                                        "delta_encoding_optional_column",
                                        "delta_encoding_required_column"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char rel[256], csv[256];
        snprintf(rel, sizeof rel, DATA "%s.parquet", files[i]);
        snprintf(csv, sizeof csv, DATA "%s_expect.csv", files[i]);
        struct basalt_buffer ours, want;
        basalt_buffer_init(&ours);
        basalt_buffer_init(&want);
        struct basalt_error err;
        basalt_status st = dump_default(rel, &ours, &err);
        bool read = csv_rows(pqc_corpus(csv), &want);
        bool same = st == BASALT_OK && read && same_text(&ours, &want, files[i]);
        basalt_buffer_reset(&ours);
        basalt_buffer_reset(&want);
        CHECK_OK(st, &err);
        CHECK(read);
        CHECK_MSG(same, "%s", files[i]);
    }
}

/* int96_from_spark.md gives microseconds; INT96 reads as int64 nanoseconds,
 * wrapping where they overflow (as other readers do): ns == us * 1000 mod 2^64. */
TEST(column_corpus_int96_from_spark)
{
    static const int64_t micros[] = {1704141296123456, 1704070800000000, 253402225200000000,
                                     1735599600000000, 0, INT64_C(9089380393200000000)};
    struct pqc_file f;
    struct basalt_error err;
    CHECK_OK(pqc_open(pqc_corpus(DATA "int96_from_spark.parquet"), &f, &err), &err);
    struct basalt_parquet_scratch *scratch = NULL;
    struct basalt_parquet_chunk_source src;
    struct basalt_parquet_leaf_values leaf;
    memset(&leaf, 0, sizeof leaf);
    basalt_status st = basalt_parquet_scratch_new(&scratch, &err);
    if (st == BASALT_OK)
        st = pqc_chunk_source(&f, 0, 0, &src, &err);
    if (st == BASALT_OK)
        st = basalt_parquet_column_decode(&src, NULL, scratch, &leaf, &err);
    bool ok = st == BASALT_OK && leaf.values.length == 6 && leaf.values.null_count == 1;
    for (int i = 0; ok && i < 6; i++) {
        const uint8_t *valid = leaf.values.buffers[0];
        const int64_t *ns = leaf.values.buffers[1];
        if (i == 4)
            ok = !basalt_bitmap_get(valid, i);
        else
            ok = basalt_bitmap_get(valid, i) && (uint64_t)ns[i] == (uint64_t)micros[i] * 1000u;
    }
    basalt_parquet_leaf_values_reset(&leaf);
    basalt_parquet_scratch_free(scratch);
    pqc_close(&f);
    CHECK_OK(st, &err);
    CHECK(ok);
}

static bool file_rows_are(const char *rel, const char *want, struct basalt_error *err,
                          basalt_status *st)
{
    struct basalt_buffer ours;
    basalt_buffer_init(&ours);
    *st = dump_default(rel, &ours, err);
    bool ok = *st == BASALT_OK && ours.size == strlen(want) && memcmp(ours.data, want, ours.size) == 0;
    if (*st == BASALT_OK && !ok)
        fprintf(stderr, "%s:\n%.*s\n", rel, (int)(ours.size > 2000 ? 2000 : ours.size), ours.data);
    basalt_buffer_reset(&ours);
    return ok;
}

/* Values documented in the .md files and the writers' code. */
TEST(column_corpus_documented_values)
{
    struct basalt_error err;
    basalt_status st;
    /* old_list_structure.md: one value, [[1, 2], [3, 4]] (two-level lists). */
    CHECK(file_rows_are(DATA "old_list_structure.parquet", "[[[\"1\",\"2\"],[\"3\",\"4\"]]]\n",
                        &err, &st));
    /* map_no_value.md: keys 1..9 in maps of three, no values; the map
     * without a value field reads as a list of its keys. */
    CHECK(file_rows_are(DATA "map_no_value.parquet",
                        "[[[\"1\",null],[\"2\",null],[\"3\",null]],[\"1\",\"2\",\"3\"],"
                        "[\"1\",\"2\",\"3\"]]\n"
                        "[[[\"4\",null],[\"5\",null],[\"6\",null]],[\"4\",\"5\",\"6\"],"
                        "[\"4\",\"5\",\"6\"]]\n"
                        "[[[\"7\",null],[\"8\",null],[\"9\",null]],[\"7\",\"8\",\"9\"],"
                        "[\"7\",\"8\",\"9\"]]\n",
                        &err, &st));
    /* ARROW-17100: DATA_PAGE_V2 values compressed though flagged not; no
     * other reader here takes the file (DuckDB and hyparquet fail on it), so
     * these rows are the ones consistent with the pages that are not in
     * doubt: col1 1..5 and col3 its doubles, col2/col4 short strings. */
    CHECK(file_rows_are("parquet-extra/arrow-testing/ARROW-17100.parquet",
                        "[\"1\",\"a\",\"1e+0\",\"a\"]\n[\"2\",\"b\",\"2e+0\",\"a\"]\n"
                        "[\"3\",\"c\",\"3e+0\",\"a\"]\n[\"4\",\"d\",\"4e+0\",\"b\"]\n"
                        "[\"5\",\"e\",\"5e+0\",\"b\"]\n",
                        &err, &st));
    /* concatenated_gzip_members: 1..513 in order (two gzip members). */
    char want[8192];
    size_t k = 0;
    for (int i = 1; i <= 513; i++)
        k += (size_t)snprintf(want + k, sizeof want - k, "[\"%d\"]\n", i);
    CHECK(file_rows_are(DATA "concatenated_gzip_members.parquet", want, &err, &st));
}

/* The same rows in other encodings, codecs and page layouts. */
TEST(column_corpus_self_consistency)
{
    static const char *const pairs[][2] = {
        {DATA "alltypes_tiny_pages.parquet", DATA "alltypes_tiny_pages_plain.parquet"},
        {DATA "hadoop_lz4_compressed.parquet", DATA "lz4_raw_compressed.parquet"},
        {DATA "non_hadoop_lz4_compressed.parquet", DATA "lz4_raw_compressed.parquet"},
        {DATA "hadoop_lz4_compressed_larger.parquet", DATA "lz4_raw_compressed_larger.parquet"},
        {DATA "datapage_v1-snappy-compressed-checksum.parquet",
         DATA "datapage_v1-uncompressed-checksum.parquet"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        struct basalt_buffer a, b;
        basalt_buffer_init(&a);
        basalt_buffer_init(&b);
        struct basalt_error err;
        basalt_status sa = dump_default(pairs[i][0], &a, &err);
        basalt_status sb = sa == BASALT_OK ? dump_default(pairs[i][1], &b, &err) : sa;
        bool same = sb == BASALT_OK && a.size > 0 && same_text(&a, &b, pairs[i][0]);
        basalt_buffer_reset(&a);
        basalt_buffer_reset(&b);
        CHECK_OK(sb, &err);
        CHECK_MSG(same, "%s vs %s", pairs[i][0], pairs[i][1]);
    }
}

/* byte_stream_split_extended: each column pair holds the same values, PLAIN
 * and BYTE_STREAM_SPLIT. */
TEST(column_corpus_byte_stream_split_pairs)
{
    struct pqc_file f;
    struct basalt_error err;
    CHECK_OK(pqc_open(pqc_corpus(DATA "byte_stream_split_extended.gzip.parquet"), &f, &err),
             &err);
    struct basalt_parquet_scratch *scratch = NULL;
    basalt_status st = basalt_parquet_scratch_new(&scratch, &err);
    bool ok = st == BASALT_OK && f.schema->n_leaves == 14;
    struct basalt_parquet_scratch_stats ss;
    for (int32_t k = 0; ok && k < 14; k += 2) {
        struct basalt_parquet_leaf_values a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        struct basalt_parquet_chunk_source sa, sb;
        st = pqc_chunk_source(&f, 0, k, &sa, &err);
        if (st == BASALT_OK)
            st = pqc_chunk_source(&f, 0, k + 1, &sb, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_column_decode(&sa, NULL, scratch, &a, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_column_decode(&sb, NULL, scratch, &b, &err);
        ok = st == BASALT_OK && a.values.length == b.values.length && a.width == b.width &&
             a.values.null_count == b.values.null_count && a.values.length == 200;
        if (ok) {
            int64_t n = a.values.length;
            const uint8_t *va = a.values.buffers[0], *vb = b.values.buffers[0];
            for (int64_t i = 0; ok && i < n; i++) {
                bool x = !va || basalt_bitmap_get(va, i), y = !vb || basalt_bitmap_get(vb, i);
                ok = x == y && (!x || memcmp((const uint8_t *)a.values.buffers[1] + i * a.width,
                                             (const uint8_t *)b.values.buffers[1] + i * b.width,
                                             (size_t)a.width) == 0);
            }
        }
        basalt_parquet_leaf_values_reset(&a);
        basalt_parquet_leaf_values_reset(&b);
        CHECK_MSG(ok, "columns %d and %d", k, k + 1);
    }
    basalt_parquet_scratch_get_stats(scratch, &ss);
    basalt_parquet_scratch_free(scratch);
    pqc_close(&f);
    CHECK_OK(st, &err);
    CHECK(ok);
    CHECK(ss.values_direct + ss.values_converted >= 14);
}

/* iceberg-encodings: <ENC>/<type>.parquet decodes exactly as PLAIN/<type>. */
TEST(column_corpus_iceberg_encodings)
{
    static const char *const encodings[] = {"PLAIN_DICTIONARY", "RLE_DICTIONARY",
                                            "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
                                            "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"};
    int compared = 0;
    for (size_t e = 0; e < sizeof encodings / sizeof encodings[0]; e++) {
        char dir[256];
        snprintf(dir, sizeof dir, "parquet-extra/iceberg-encodings/%s", encodings[e]);
        char dpath[1024];
        snprintf(dpath, sizeof dpath, "%s", pqc_corpus(dir));
        DIR *d = opendir(dpath);
        CHECK(d != NULL);
        struct dirent *ent;
        while ((ent = readdir(d))) {
            if (ent->d_name[0] == '.')
                continue;
            char rel[512], plain[512];
            snprintf(rel, sizeof rel, "%s/%s", dir, ent->d_name);
            snprintf(plain, sizeof plain, "parquet-extra/iceberg-encodings/PLAIN/%s", ent->d_name);
            struct basalt_buffer a, b;
            basalt_buffer_init(&a);
            basalt_buffer_init(&b);
            struct basalt_error err;
            basalt_status sa = dump_default(rel, &a, &err);
            basalt_status sb = sa == BASALT_OK ? dump_default(plain, &b, &err) : sa;
            bool same = sb == BASALT_OK && a.size > 0 && same_text(&a, &b, rel);
            basalt_buffer_reset(&a);
            basalt_buffer_reset(&b);
            if (sb != BASALT_OK || !same) {
                closedir(d);
                CHECK_OK(sb, &err);
                CHECK_MSG(same, "%s", rel);
            }
            compared++;
        }
        closedir(d);
    }
    CHECK(compared >= 30);
}

/* Pages switch from dictionary to PLAIN mid-chunk: the values agree with a
 * read that materialises them another way (keep_dictionary asked for but
 * impossible, so the same values come back plain). */
TEST(column_corpus_dictionary_fallback)
{
    struct basalt_buffer a, b;
    basalt_buffer_init(&a);
    basalt_buffer_init(&b);
    struct pqc_read_options o;
    pqc_read_options_init(&o);
    struct basalt_error err;
    basalt_status sa = dump("parquet-extra/iceberg-spark/decimal_dict_and_plain_encoding.parquet",
                            &o, &a, &err);
    struct pqc_file f;
    basalt_status sf = pqc_open(pqc_corpus("parquet-extra/iceberg-spark/"
                                           "decimal_dict_and_plain_encoding.parquet"),
                                &f, &err);
    struct basalt_parquet_scratch *scratch = NULL;
    if (sf == BASALT_OK)
        sf = basalt_parquet_scratch_new(&scratch, &err);
    struct basalt_parquet_scratch_stats ss;
    memset(&ss, 0, sizeof ss);
    if (sf == BASALT_OK)
        sf = pqc_dump(&f, &o, scratch, &b, &err);
    basalt_parquet_scratch_get_stats(scratch, &ss);
    basalt_parquet_scratch_free(scratch);
    pqc_close(&f);
    size_t lines = 0;
    for (size_t i = 0; i < a.size; i++)
        lines += a.data[i] == '\n';
    bool same = sa == BASALT_OK && sf == BASALT_OK && same_text(&a, &b, "fallback");
    basalt_buffer_reset(&a);
    basalt_buffer_reset(&b);
    CHECK_OK(sa, &err);
    CHECK(same);
    CHECK_EQ(lines, 400);
    /* both paths ran within the chunk */
    CHECK(ss.dict_gathered > 0);
    CHECK(ss.values_converted > 0);
}

TEST(column_corpus_checksums)
{
    static const char *const good[] = {DATA "datapage_v1-uncompressed-checksum.parquet",
                                       DATA "datapage_v1-snappy-compressed-checksum.parquet",
                                       DATA "plain-dict-uncompressed-checksum.parquet",
                                       DATA "rle-dict-snappy-checksum.parquet"};
    static const char *const bad[] = {DATA "datapage_v1-corrupt-checksum.parquet",
                                      DATA "rle-dict-uncompressed-corrupt-checksum.parquet"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct pqc_file f;
        struct basalt_error err;
        CHECK_OK(pqc_open(pqc_corpus(good[i]), &f, &err), &err);
        struct basalt_parquet_scratch *scratch = NULL;
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        struct pqc_read_options o;
        pqc_read_options_init(&o);
        basalt_status st = basalt_parquet_scratch_new(&scratch, &err);
        if (st == BASALT_OK)
            st = pqc_dump(&f, &o, scratch, &out, &err);
        struct basalt_parquet_scratch_stats ss;
        basalt_parquet_scratch_get_stats(scratch, &ss);
        basalt_parquet_scratch_free(scratch);
        basalt_buffer_reset(&out);
        pqc_close(&f);
        CHECK_OK(st, &err);
        CHECK_MSG(ss.crc_checked > 0, "%s: no CRC checked", good[i]);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        struct pqc_read_options o;
        pqc_read_options_init(&o);
        struct basalt_error err;
        basalt_status st = dump(bad[i], &o, &out, &err);
        bool names_crc = strstr(err.message, "CRC") != NULL;
        o.column.verify_crc = false;
        out.size = 0;
        basalt_status off = dump(bad[i], &o, &out, &err);
        basalt_buffer_reset(&out);
        CHECK_EQ(st, BASALT_CORRUPT);
        CHECK(names_crc);
        CHECK_OK(off, &err);
    }
}

/* The huge-string file: 32-bit offsets cannot hold it and the default page
 * limit stops it before anything big is allocated. */
TEST(column_corpus_large_string_limit)
{
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_error err;
    basalt_status st = dump_default(DATA "large_string_map.brotli.parquet", &out, &err);
    basalt_buffer_reset(&out);
    CHECK_EQ(st, BASALT_LIMIT);
}

/* The same file read with 64-bit offsets and a page limit above its 1 GiB
 * pages: two map keys of 1 GiB each, past what 32-bit offsets hold. Needs
 * about 4 GiB and ten seconds: run when BASALT_SLOW_TESTS is set. */
TEST(column_corpus_large_string_read)
{
    if (!getenv("BASALT_SLOW_TESTS")) {
        printf("SKIP column_corpus_large_string_read: set BASALT_SLOW_TESTS=1 (4 GiB, 10 s)\n");
        return;
    }
    struct pqc_file f;
    struct basalt_error err;
    CHECK_OK(pqc_open(pqc_corpus(DATA "large_string_map.brotli.parquet"), &f, &err), &err);
    struct basalt_parquet_scratch *scratch = NULL;
    struct basalt_parquet_chunk_source src;
    struct basalt_parquet_leaf_values leaf;
    memset(&leaf, 0, sizeof leaf);
    struct basalt_parquet_column_options o;
    basalt_parquet_column_options_init(&o);
    o.large_offsets = true;
    o.max_page_size = INT64_C(1) << 32;
    basalt_status st = basalt_parquet_scratch_new(&scratch, &err);
    if (st == BASALT_OK)
        st = pqc_chunk_source(&f, 0, 0, &src, &err);
    if (st == BASALT_OK)
        st = basalt_parquet_column_decode(&src, &o, scratch, &leaf, &err);
    int64_t rows = leaf.n_rows, bytes = 0;
    if (st == BASALT_OK && leaf.values.length > 0)
        bytes = ((const int64_t *)leaf.values.buffers[1])[leaf.values.length];
    basalt_parquet_leaf_values_reset(&leaf);
    basalt_parquet_scratch_free(scratch);
    pqc_close(&f);
    CHECK_OK(st, &err);
    CHECK_EQ(rows, 2);
    CHECK(bytes > INT32_MAX);
}

/* ------------------------------------------------------------------ bad input */

struct bad_file {
    const char *file;
    basalt_status status;
    const char *says; /* in the message */
};

/* Every file of bad_data/ with the outcome it must have. ARROW-GH-43605's
 * dictionary indices have bit width 0, which writers do emit for one-entry
 * dictionaries: it reads (Arrow C++ since the fix, DuckDB: 21186 zeros). */
static const struct bad_file bad_data[] = {
    {"PARQUET-1481.parquet", BASALT_CORRUPT, "schema"},
    {"ARROW-RS-GH-6229-DICTHEADER.parquet", BASALT_CORRUPT, "page 0: header"},
    {"ARROW-RS-GH-6229-LEVELS.parquet", BASALT_CORRUPT, "repetition levels"},
    {"ARROW-GH-41321.parquet", BASALT_CORRUPT, "page 1"},
    {"ARROW-GH-41317.parquet", BASALT_CORRUPT, "the chunk ends after 0 of its 3 values"},
    {"ARROW-GH-43605.parquet", BASALT_OK, ""},
    {"ARROW-GH-45185.parquet", BASALT_CORRUPT, "continues no open list"},
    {"ARROW-GH-47662.parquet", BASALT_CORRUPT, "PLAIN data holds 91 values"},
};

TEST(column_corpus_bad_data)
{
    DIR *d = opendir(pqc_corpus("parquet-testing/bad_data"));
    CHECK(d != NULL);
    struct dirent *e;
    int seen = 0, unlisted = 0, wrong = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 8, ".parquet") != 0)
            continue;
        const struct bad_file *b = NULL;
        for (size_t i = 0; i < sizeof bad_data / sizeof bad_data[0]; i++)
            if (strcmp(bad_data[i].file, e->d_name) == 0)
                b = &bad_data[i];
        char rel[512];
        snprintf(rel, sizeof rel, "parquet-testing/bad_data/%s", e->d_name);
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = dump_default(rel, &out, &err);
        if (st == BASALT_OK) {
            /* Only ARROW-GH-43605 reads: 21186 rows of 0. */
            size_t lines = 0, zeros = 0;
            for (size_t i = 0; i < out.size; i++) {
                lines += out.data[i] == '\n';
                zeros += i + 6 <= out.size && memcmp(out.data + i, "[\"0\"]\n", 6) == 0;
            }
            if (lines != 21186 || zeros != 21186)
                st = BASALT_INTERNAL;
        }
        basalt_buffer_reset(&out);
        printf("  %-40s %s: %s\n", e->d_name, basalt_status_name(st), err.message);
        seen++;
        if (!b) {
            unlisted++;
            continue;
        }
        if (st != b->status || !strstr(err.message, b->says))
            wrong++;
    }
    closedir(d);
    CHECK_EQ(unlisted, 0);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(seen, (int)(sizeof bad_data / sizeof bad_data[0]));
}

/* Options that keep a garbage file from asking for much. */
static void fuzz_options(struct pqc_read_options *o)
{
    pqc_read_options_init(o);
    o->column.max_values = 1 << 22;
    o->column.max_page_size = 64 << 20;
}

static bool clean_status(basalt_status st)
{
    return st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_UNSUPPORTED ||
           st == BASALT_LIMIT;
}

/* The manifest of parquet-extra/arrow-testing/fuzzing: one line per file,
 * "name<TAB>duckdb<TAB>status<TAB>note", where duckdb is DuckDB 1.5.6's
 * verdict (ok or error, from tests/parquet/duckdb_verdicts.mjs) and status
 * the one basalt must return. */
struct fuzz_entry {
    char name[160];
    char duckdb[8];
    char status[16];
    char note[200];
    bool seen;
};

static int load_fuzz_manifest(struct fuzz_entry *entries, int cap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/unit/parquet/fuzzing_expected.tsv",
             BASALT_TEST_SOURCE_DIR);
    size_t len;
    uint8_t *text = bt_read_file(path, &len);
    if (!text)
        return -1;
    int n = 0;
    char *p = (char *)text, *end = p + len;
    while (p < end && n < cap) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        *nl = '\0';
        struct fuzz_entry *e = &entries[n];
        memset(e, 0, sizeof *e);
        if (*p && *p != '#' &&
            sscanf(p, "%159[^\t]\t%7[^\t]\t%15[^\t]\t%199[^\n]", e->name, e->duckdb, e->status,
                   e->note) >= 3)
            n++;
        p = nl + 1;
    }
    basalt_free(text);
    return n;
}

TEST(column_corpus_oss_fuzz_inputs)
{
    static struct fuzz_entry entries[256];
    int n_entries = load_fuzz_manifest(entries, 256);
    CHECK(n_entries >= 130);
    DIR *d = opendir(pqc_corpus("parquet-extra/arrow-testing/fuzzing"));
    CHECK(d != NULL);
    struct dirent *e;
    int n = 0, bad = 0, ok = 0, unlisted = 0, wrong = 0, disagree = 0;
    clock_t start = clock();
    double slowest = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, "parquet-extra/arrow-testing/fuzzing/%s", e->d_name);
        struct pqc_read_options o;
        fuzz_options(&o);
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        struct basalt_error err;
        basalt_error_init(&err);
        clock_t t0 = clock();
        basalt_status st = dump(rel, &o, &out, &err);
        double dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (dt > slowest)
            slowest = dt;
        basalt_buffer_reset(&out);
        n++;
        ok += st == BASALT_OK;
        if (!clean_status(st)) {
            printf("  %s: %s: %s\n", e->d_name, basalt_status_name(st), err.message);
            bad++;
        }
        struct fuzz_entry *m = NULL;
        for (int i = 0; i < n_entries; i++)
            if (strcmp(entries[i].name, e->d_name) == 0)
                m = &entries[i];
        if (!m) {
            printf("  %s: %s: no entry in fuzzing_expected.tsv\n", e->d_name,
                   basalt_status_name(st));
            unlisted++;
            continue;
        }
        m->seen = true;
        if (strcmp(basalt_status_name(st), m->status) != 0) {
            printf("  %s: %s (%s), the manifest says %s\n", e->d_name, basalt_status_name(st),
                   err.message, m->status);
            wrong++;
        }
        /* Where basalt and DuckDB disagree on whether the file reads, the
         * manifest must say why. */
        bool both = (st == BASALT_OK) == (strcmp(m->duckdb, "ok") == 0);
        if (!both && !m->note[0]) {
            printf("  %s: basalt %s, DuckDB %s, and no note\n", e->d_name,
                   basalt_status_name(st), m->duckdb);
            disagree++;
        }
    }
    closedir(d);
    int stale = 0;
    for (int i = 0; i < n_entries; i++)
        if (!entries[i].seen) {
            printf("  manifest entry %s: no such file\n", entries[i].name);
            stale++;
        }
    printf("  %d inputs, %d read, the rest refused cleanly; slowest %.2fs, all %.2fs\n", n, ok,
           slowest, (double)(clock() - start) / CLOCKS_PER_SEC);
    CHECK(n >= 130);
    CHECK_EQ(bad, 0);
    CHECK_EQ(unlisted, 0);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(disagree, 0);
    CHECK_EQ(stale, 0);
}

/* ------------------------------------------------------------------ damage sweeps */

/* Each column chunk of the file cut at every length and, separately, with
 * bits flipped at every byte: only clean statuses, never a crash (the
 * sanitizer build checks the reads), and every decode leaves nothing behind. */
static int damage_file(const char *rel, int flip_stride)
{
    struct pqc_file f;
    struct basalt_error err;
    if (pqc_open(pqc_corpus(rel), &f, &err) != BASALT_OK)
        return -1;
    struct basalt_parquet_scratch *scratch = NULL;
    if (basalt_parquet_scratch_new(&scratch, &err) != BASALT_OK) {
        pqc_close(&f);
        return -1;
    }
    int bad = 0;
    struct basalt_parquet_column_options o;
    basalt_parquet_column_options_init(&o);
    o.max_values = 1 << 22;
    o.max_page_size = 64 << 20;
    for (size_t rg = 0; rg < f.md.num_row_groups; rg++) {
        for (int32_t k = 0; k < f.schema->n_leaves; k++) {
            struct basalt_parquet_chunk_source src;
            if (pqc_chunk_source(&f, (int64_t)rg, k, &src, &err) != BASALT_OK)
                continue;
            uint8_t *copy = basalt_malloc(src.len + 1);
            if (!copy)
                abort();
            struct basalt_parquet_chunk_source s2 = src;
            s2.data = copy;
            for (size_t cut = 0; cut < src.len; cut++) {
                memcpy(copy, src.data, cut);
                s2.len = cut;
                struct basalt_parquet_leaf_values lv;
                basalt_status st = basalt_parquet_column_decode(&s2, &o, scratch, &lv, &err);
                bad += !clean_status(st);
                basalt_parquet_leaf_values_reset(&lv);
            }
            s2.len = src.len;
            for (size_t at = 0; at < src.len; at += (size_t)flip_stride) {
                for (int bit = 0; bit < 8; bit += 3) {
                    memcpy(copy, src.data, src.len);
                    copy[at] ^= (uint8_t)(1u << bit);
                    struct basalt_parquet_leaf_values lv;
                    basalt_status st = basalt_parquet_column_decode(&s2, &o, scratch, &lv, &err);
                    if (!clean_status(st)) {
                        printf("  %s chunk %d byte %zu bit %d: %s: %s\n", rel, k, at, bit,
                               basalt_status_name(st), err.message);
                        bad++;
                    }
                    basalt_parquet_leaf_values_reset(&lv);
                }
            }
            basalt_free(copy);
        }
    }
    basalt_parquet_scratch_free(scratch);
    pqc_close(&f);
    return bad;
}

TEST(column_corpus_truncation_and_bit_flips)
{
    static const char *const files[] = {
        DATA "alltypes_dictionary.parquet",  DATA "datapage_v2.snappy.parquet",
        DATA "nested_lists.snappy.parquet",  DATA "delta_length_byte_array.parquet",
        DATA "rle_boolean_encoding.parquet", DATA "byte_array_decimal.parquet",
        DATA "int96_from_spark.parquet",     DATA "nullable.impala.parquet",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int bad = damage_file(files[i], 1);
        CHECK_MSG(bad == 0, "%s: %d unclean outcomes", files[i], bad);
    }
}

/* The whole read of a file (no printing) with the n-th allocation failing,
 * for every n. */
struct sweep_input {
    uint8_t *data;
    size_t len;
};

static basalt_status sweep_file(void *ctx)
{
    const struct sweep_input *in = ctx;
    struct pqc_file f;
    struct basalt_error err;
    basalt_status st = pqc_open_bytes(in->data, in->len, &f, &err);
    struct basalt_parquet_scratch *scratch = NULL;
    if (st == BASALT_OK)
        st = basalt_parquet_scratch_new(&scratch, &err);
    struct pqc_read_options o;
    pqc_read_options_init(&o);
    if (st == BASALT_OK)
        st = pqc_dump(&f, &o, scratch, NULL, &err);
    basalt_parquet_scratch_free(scratch);
    pqc_close(&f);
    return st;
}

TEST(column_corpus_allocation_failures)
{
    static const char *const files[] = {DATA "nested_maps.snappy.parquet",
                                        DATA "alltypes_dictionary.parquet",
                                        DATA "delta_byte_array.parquet"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct sweep_input in;
        in.data = bt_read_file(pqc_corpus(files[i]), &in.len);
        CHECK(in.data != NULL);
        int64_t n = bt_alloc_failure_sweep(__FILE__, __LINE__, sweep_file, &in);
        basalt_free(in.data);
        CHECK_MSG(n > 10, "%s", files[i]);
    }
}
