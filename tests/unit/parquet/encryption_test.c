/* Parquet modular encryption: every encrypted file of parquet-testing read
 * with the keys its README documents and its values checked against the
 * generators that wrote them (Arrow C++'s test-encryption-util: row i of the
 * 8-column files; parquet-java's key-tools file: i and "<letter>i"; the
 * bloom-filter file: i + 0.5, i + 0.25, i, "name_i"); files written encrypted
 * by basalt in every mode and read back; and the negative controls: wrong
 * keys, missing keys, wrong AAD prefixes, bytes flipped anywhere in a file.
 *
 * The README lists the keys as {0,1,2,...}: they are the ASCII digits
 * ("0123456789012345"), as Arrow C++'s tests define them. */
#include <stdlib.h>

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "parquet_crypto.h"
#include "parquet_reader.h"
#include "test.h"
#include "writer_test_util.h"

void pqr_text_batches(const struct ArrowSchema *s, const struct ArrowArray *batches, int64_t n,
                      struct basalt_buffer *out);

static const char *enc_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/data"), name);
    return path;
}

/* ------------------------------------------------------------------ keys */

/* Key ids (the key metadata the files store) and their keys. */
struct key_map {
    const char *ids[12];
    const char *keys[12];
    int calls;
};

static basalt_status map_retrieve(void *ctx, const uint8_t *md, size_t len, uint8_t *key,
                                  size_t *key_len, struct basalt_error *err)
{
    struct key_map *m = ctx;
    m->calls++;
    for (int i = 0; i < 12 && m->ids[i]; i++) {
        if (strlen(m->ids[i]) == len && memcmp(m->ids[i], md, len) == 0) {
            *key_len = strlen(m->keys[i]);
            memcpy(key, m->keys[i], *key_len);
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "no such key id");
}

#define KF16 "0123456789012345"
#define KC1_16 "1234567890123450"
#define KC2_16 "1234567890123451"
#define KF32 "01234567890123456789012345678901"
#define KC32(d) "1234567890123456789012345678901" d

/* parquet-testing's 128-bit keys (data/README.md). */
static void keys16(struct key_map *m)
{
    memset(m, 0, sizeof *m);
    m->ids[0] = "kf", m->keys[0] = KF16;
    m->ids[1] = "kc1", m->keys[1] = KC1_16;
    m->ids[2] = "kc2", m->keys[2] = KC2_16;
}

/* ... and the 256-bit ones of data/aes256 (kc1..kc8 end in 2..9). */
static void keys32(struct key_map *m)
{
    memset(m, 0, sizeof *m);
    static const char *const ids[] = {"kf", "kc1", "kc2", "kc3", "kc4", "kc5", "kc6", "kc7", "kc8"};
    static const char *const keys[] = {KF32,      KC32("2"), KC32("3"), KC32("4"), KC32("5"),
                                       KC32("6"), KC32("7"), KC32("8"), KC32("9")};
    for (int i = 0; i < 9; i++) {
        m->ids[i] = ids[i];
        m->keys[i] = keys[i];
    }
}

static void dec_init(struct basalt_parquet_decryption *d, struct key_map *m, const char *prefix)
{
    memset(d, 0, sizeof *d);
    d->retrieve_key = m ? map_retrieve : NULL;
    d->retrieve_ctx = m;
    if (prefix) {
        d->aad_prefix = (const uint8_t *)prefix;
        d->aad_prefix_len = strlen(prefix);
    }
}

/* Opens `path` (a file, or `data` in memory when not NULL) with `d`. */
static basalt_status open_with(const char *path, const uint8_t *data, size_t len,
                               const struct basalt_parquet_decryption *d,
                               struct basalt_parquet_reader **r, struct basalt_error *err)
{
    struct basalt_parquet_reader_options o;
    basalt_parquet_reader_options_init(&o);
    o.decryption = d;
    if (!data)
        return basalt_parquet_reader_open_file(path, &o, r, err);
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_memory(data, len, path, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_parquet_reader_open(in, true, &o, r, err);
}

/* Reads `columns` (NULL-terminated paths; NULL: all) of an open reader. */
static basalt_status read_columns(const struct basalt_parquet_reader *r,
                                  const char *const *columns, struct basalt_arrow_batches *b,
                                  struct basalt_error *err)
{
    struct basalt_parquet_scan *scan = NULL;
    basalt_status st = basalt_parquet_scan_new(r, NULL, &scan, err);
    if (st == BASALT_OK && !columns)
        basalt_parquet_scan_select_all(scan);
    for (int i = 0; st == BASALT_OK && columns && columns[i]; i++)
        st = basalt_parquet_scan_select_path(scan, columns[i], err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_read_all(scan, b, err);
    for (int64_t i = 0; st == BASALT_OK && i < b->n; i++)
        st = basalt_arrow_array_validate(&b->schema, &b->arrays[i], BASALT_ARROW_VALIDATE_FULL,
                                         err);
    basalt_parquet_scan_free(scan);
    return st;
}

/* Opens and reads every column; the reader is closed. */
static basalt_status read_file(const char *path, const uint8_t *data, size_t len,
                               const struct basalt_parquet_decryption *d,
                               struct basalt_arrow_batches *b, struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    basalt_status st = open_with(path, data, len, d, &r, err);
    if (st == BASALT_OK)
        st = read_columns(r, NULL, b, err);
    basalt_parquet_reader_close(r);
    return st;
}

/* ------------------------------------------------------------------ expected values */

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    return !a->buffers[0] || basalt_bitmap_get(a->buffers[0], a->offset + i);
}

/* Checks the 8 columns of Arrow C++'s encryption test table (and the
 * parquet-mr twin of data/aes256): row i holds
 *   boolean_field i % 2 == 0, int32_field (TIME_MILLIS) i,
 *   int64_field [2i * 10^12, (2i + 1) * 10^12], int96_field words
 *   (i, i + 1, i + 2) (nanoseconds of the day, then the Julian day; read as
 *   timestamp[ns], wrapping like every INT96 reader that uses 64 bits),
 *   float_field i * 1.1f, double_field i * 1.1111111,
 *   ba_field "parquet" + i in 3 digits for even i, null for odd,
 *   flba_field 10 bytes of i.
 * Only the columns present are checked; an unknown column fails. Reports
 * through bt_fail and returns false. */
static bool check_generated(const struct basalt_arrow_batches *b, int64_t rows)
{
    const struct ArrowSchema *s = &b->schema;
    int64_t total = 0;
    for (int64_t k = 0; k < b->n; k++) {
        const struct ArrowArray *batch = &b->arrays[k];
        for (int64_t r = 0; r < batch->length; r++) {
            int64_t i = total + r;
            for (int64_t c = 0; c < s->n_children; c++) {
                const char *name = s->children[c]->name;
                const char *fmt = s->children[c]->format;
                const struct ArrowArray *a = batch->children[c];
                int64_t j = a->offset + r;
                bool ok = true;
                if (strcmp(name, "boolean_field") == 0) {
                    ok = strcmp(fmt, "b") == 0 && valid_at(a, r) &&
                         basalt_bitmap_get(a->buffers[1], j) == (i % 2 == 0);
                } else if (strcmp(name, "int32_field") == 0) {
                    ok = strcmp(fmt, "ttm") == 0 && ((const int32_t *)a->buffers[1])[j] == i;
                } else if (strcmp(name, "int64_field") == 0) {
                    const int32_t *off = a->buffers[1];
                    const struct ArrowArray *e = a->children[0];
                    const int64_t *v = e->buffers[1];
                    ok = strcmp(fmt, "+l") == 0 && strcmp(s->children[c]->children[0]->format,
                                                         "l") == 0 &&
                         valid_at(a, r) && off[j + 1] - off[j] == 2 &&
                         v[e->offset + off[j]] == 2 * i * 1000000000000LL &&
                         v[e->offset + off[j] + 1] == (2 * i + 1) * 1000000000000LL;
                } else if (strcmp(name, "int96_field") == 0) {
                    uint64_t nanos = (uint64_t)(i + 1) << 32 | (uint64_t)i;
                    uint64_t want = (uint64_t)(i + 2 - 2440588) * 86400000000000ULL + nanos;
                    ok = strncmp(fmt, "tsn:", 4) == 0 &&
                         (uint64_t)((const int64_t *)a->buffers[1])[j] == want;
                } else if (strcmp(name, "float_field") == 0) {
                    float want = (float)i * 1.1f;
                    ok = strcmp(fmt, "f") == 0 &&
                         memcmp(&((const float *)a->buffers[1])[j], &want, 4) == 0;
                } else if (strcmp(name, "double_field") == 0) {
                    double want = (double)i * 1.1111111;
                    ok = strcmp(fmt, "g") == 0 &&
                         memcmp(&((const double *)a->buffers[1])[j], &want, 8) == 0;
                } else if (strcmp(name, "ba_field") == 0) {
                    char want[16];
                    snprintf(want, sizeof want, "parquet%03d", (int)(i % 1000));
                    const int32_t *off = a->buffers[1];
                    const char *data = a->buffers[2];
                    ok = strcmp(fmt, "z") == 0 && valid_at(a, r) == (i % 2 == 0) &&
                         (i % 2 != 0 || (off[j + 1] - off[j] == 10 &&
                                         memcmp(data + off[j], want, 10) == 0));
                } else if (strcmp(name, "flba_field") == 0) {
                    const uint8_t *v = (const uint8_t *)a->buffers[1] + j * 10;
                    ok = strcmp(fmt, "w:10") == 0;
                    for (int x = 0; ok && x < 10; x++)
                        ok = v[x] == (uint8_t)i;
                } else {
                    ok = false;
                }
                if (!ok) {
                    bt_fail(__FILE__, __LINE__, "row %lld: column %s (%s) is not as generated",
                            (long long)i, name, fmt);
                    return false;
                }
            }
        }
        total += batch->length;
    }
    if (total != rows) {
        bt_fail(__FILE__, __LINE__, "%lld rows, expected %lld", (long long)total,
                (long long)rows);
        return false;
    }
    return true;
}

/* One corpus file read with `m` (and `prefix`), every column checked. */
static bool read_generated(const char *name, struct key_map *m, const char *prefix)
{
    struct basalt_parquet_decryption d;
    dec_init(&d, m, prefix);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_error err;
    basalt_status st = read_file(enc_path(name), NULL, 0, &d, &b, &err);
    bool ok = st == BASALT_OK;
    if (!ok)
        bt_fail(__FILE__, __LINE__, "%s: %s %s", name, basalt_status_name(st), err.message);
    else
        ok = b.schema.n_children == 8 && check_generated(&b, 50);
    if (st == BASALT_OK && b.schema.n_children != 8)
        bt_fail(__FILE__, __LINE__, "%s: %lld columns", name, (long long)b.schema.n_children);
    basalt_arrow_batches_reset(&b);
    return ok;
}

/* ------------------------------------------------------------------ the corpus */

TEST(encryption_corpus_uniform)
{
    struct key_map m;
    keys16(&m);
    CHECK(read_generated("uniform_encryption.parquet.encrypted", &m, NULL));
    /* The footer key given explicitly, no retriever. */
    struct basalt_parquet_decryption d;
    dec_init(&d, NULL, NULL);
    d.footer_key = (const uint8_t *)KF16;
    d.footer_key_len = 16;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_error err;
    CHECK_OK(read_file(enc_path("uniform_encryption.parquet.encrypted"), NULL, 0, &d, &b, &err),
             &err);
    bool ok = check_generated(&b, 50);
    basalt_arrow_batches_reset(&b);
    CHECK(ok);
}

TEST(encryption_corpus_columns_and_footer)
{
    struct key_map m;
    keys16(&m);
    CHECK(read_generated("encrypt_columns_and_footer.parquet.encrypted", &m, NULL));
    /* kf, kc1 and kc2, each asked once. */
    CHECK_EQ(m.calls, 3);
}

TEST(encryption_corpus_ctr)
{
    struct key_map m;
    keys16(&m);
    CHECK(read_generated("encrypt_columns_and_footer_ctr.parquet.encrypted", &m, NULL));
}

TEST(encryption_corpus_aad_prefix)
{
    struct key_map m;
    keys16(&m);
    /* Stored in the file; giving the same one is fine too. */
    CHECK(read_generated("encrypt_columns_and_footer_aad.parquet.encrypted", &m, NULL));
    CHECK(read_generated("encrypt_columns_and_footer_aad.parquet.encrypted", &m, "tester"));
    /* A different one is refused before anything is decrypted. */
    struct basalt_parquet_decryption d;
    dec_init(&d, &m, "tester2");
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    CHECK_STATUS(open_with(enc_path("encrypt_columns_and_footer_aad.parquet.encrypted"), NULL, 0,
                           &d, &r, &err),
                 BASALT_AUTH, &err);
    CHECK(strstr(err.message, "AAD prefix given differs") != NULL);
}

TEST(encryption_corpus_aad_prefix_not_stored)
{
    const char *name = "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted";
    struct key_map m;
    keys16(&m);
    CHECK(read_generated(name, &m, "tester"));
    struct basalt_parquet_decryption d;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    /* Not given: the file says it must be. */
    dec_init(&d, &m, NULL);
    CHECK_STATUS(open_with(enc_path(name), NULL, 0, &d, &r, &err), BASALT_AUTH, &err);
    CHECK(strstr(err.message, "must be given it") != NULL);
    /* A wrong one: the footer does not authenticate. */
    dec_init(&d, &m, "tester!");
    CHECK_STATUS(open_with(enc_path(name), NULL, 0, &d, &r, &err), BASALT_AUTH, &err);
    CHECK(strstr(err.message, "disable_aad_storage.parquet.encrypted: footer: AES-GCM "
                              "authentication failed") != NULL);
}

TEST(encryption_corpus_plaintext_footer)
{
    const char *name = "encrypt_columns_plaintext_footer.parquet.encrypted";
    struct key_map m;
    keys16(&m);
    CHECK(read_generated(name, &m, NULL));
    struct basalt_parquet_decryption d;
    dec_init(&d, &m, NULL);
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    CHECK_OK(open_with(enc_path(name), NULL, 0, &d, &r, &err), &err);
    bool verified = r->crypto && r->crypto->footer_verified;
    /* The encrypted column's statistics came out of its encrypted
     * metadata: the plaintext footer has none. */
    int32_t col = -1;
    basalt_parquet_reader_find_column(r, "double_field", &col, NULL);
    struct basalt_parquet_column_stats cs;
    basalt_status st = basalt_parquet_reader_column_stats(r, 0, col, &cs, &err);
    basalt_parquet_reader_close(r);
    CHECK(verified);
    CHECK_OK(st, &err);
    CHECK(cs.has_min_max && cs.has_null_count);
}

/* The plaintext-footer file without the column keys: it opens, its footer
 * is verified, the plaintext columns read, the encrypted ones are refused
 * with AUTH naming the column and its key id; without any keys they are
 * UNSUPPORTED as before. */
TEST(encryption_corpus_plaintext_footer_missing_keys)
{
    const char *name = "encrypt_columns_plaintext_footer.parquet.encrypted";
    struct key_map m;
    keys16(&m);
    m.ids[1] = m.ids[2] = NULL; /* only kf */
    struct basalt_parquet_decryption d;
    dec_init(&d, &m, NULL);
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    CHECK_OK(open_with(enc_path(name), NULL, 0, &d, &r, &err), &err);
    bool verified = r->crypto->footer_verified;
    static const char *const plain[] = {"boolean_field", "int32_field", "int64_field",
                                        "int96_field",   "ba_field",    "flba_field", NULL};
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = read_columns(r, plain, &b, &err);
    bool ok = st == BASALT_OK && b.schema.n_children == 6 && check_generated(&b, 50);
    basalt_arrow_batches_reset(&b);
    static const char *const secret[] = {"double_field", NULL};
    basalt_arrow_batches_init(&b);
    basalt_status st2 = read_columns(r, secret, &b, &err);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_reader_close(r);
    CHECK(verified);
    CHECK_OK(st, &err);
    CHECK(ok);
    CHECK_STATUS(st2, BASALT_AUTH, &err);
    CHECK(strstr(err.message, "row group 0: column 'double_field': encrypted column chunk: no "
                              "key for it (key metadata \"kc1\")") != NULL);
    /* No decryption options at all. */
    CHECK_OK(open_with(enc_path(name), NULL, 0, NULL, &r, &err), &err);
    basalt_arrow_batches_init(&b);
    st = read_columns(r, secret, &b, &err);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_reader_close(r);
    CHECK_STATUS(st, BASALT_UNSUPPORTED, &err);
}

TEST(encryption_corpus_aes256)
{
    static const char *const files[] = {
        "aes256/uniform_encryption.parquet.encrypted",
        "aes256/encrypt_columns_and_footer.parquet.encrypted",
        "aes256/encrypt_columns_and_footer_ctr.parquet.encrypted",
        "aes256/encrypt_columns_plaintext_footer.parquet.encrypted",
        "aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        struct key_map m;
        keys32(&m);
        bool aad = strstr(files[i], "aad") != NULL;
        CHECK_MSG(read_generated(files[i], &m, aad ? "tester" : NULL), "%s", files[i]);
    }
    /* Eight column keys: every column of the non-uniform files has its
     * own, the nested int64_field.list.element included. */
    struct key_map m;
    keys32(&m);
    struct basalt_parquet_decryption d;
    dec_init(&d, &m, NULL);
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    CHECK_OK(open_with(enc_path("aes256/encrypt_columns_and_footer.parquet.encrypted"), NULL, 0,
                       &d, &r, &err),
             &err);
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    int own = 0;
    for (size_t c = 0; c < md->row_groups[0].num_columns; c++) {
        const struct basalt_parquet_column_chunk *cc = &md->row_groups[0].columns[c];
        own += cc->has_crypto_metadata &&
               cc->crypto_metadata->kind == BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY;
    }
    basalt_parquet_reader_close(r);
    CHECK_EQ(own, 8);
}

/* parquet-java's key tools: the key metadata names key material in the
 * _KEY_MATERIAL_FOR_... file, whose data keys are double-wrapped (a KEK
 * wrapped by the master key, the DEK by the KEK) by InMemoryKMS with the
 * master keys kf, kc1, kc2 of the README. parquet-mr's TestEncryptionOptions
 * / Arrow C++'s ReadParquetMRExternalKeyMaterialFile: 100 rows of
 * (i, "<a..j>i"). */
TEST(encryption_corpus_external_key_material)
{
    const char *path = enc_path("external_key_material_java.parquet.encrypted");
    char file[4096];
    snprintf(file, sizeof file, "%s", path);
    char material[4200];
    struct basalt_error err;
    CHECK_OK(basalt_parquet_key_tools_material_path(file, material, sizeof material, &err), &err);
    CHECK(strstr(material, "/_KEY_MATERIAL_FOR_external_key_material_java.parquet.encrypted"
                           ".json") != NULL);
    struct basalt_parquet_master_key masters[] = {
        {"kf", (const uint8_t *)KF16, 16},
        {"kc1", (const uint8_t *)KC1_16, 16},
        {"kc2", (const uint8_t *)KC2_16, 16}};
    struct basalt_parquet_key_tools kt = {masters, 3, material};
    struct basalt_parquet_decryption d;
    memset(&d, 0, sizeof d);
    d.retrieve_key = basalt_parquet_key_tools_retrieve;
    d.retrieve_ctx = &kt;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = read_file(file, NULL, 0, &d, &b, &err);
    bool ok = st == BASALT_OK && b.schema.n_children == 2 && b.n == 1 &&
              b.arrays[0].length == 100 && strcmp(b.schema.children[0]->format, "i") == 0 &&
              strcmp(b.schema.children[1]->format, "u") == 0;
    for (int64_t i = 0; ok && i < 100; i++) {
        const struct ArrowArray *ints = b.arrays[0].children[0];
        const struct ArrowArray *strs = b.arrays[0].children[1];
        char want[16];
        snprintf(want, sizeof want, "%c%d", (char)('a' + i % 10), (int)i);
        const int32_t *off = strs->buffers[1];
        int64_t j = strs->offset + i;
        ok = ((const int32_t *)ints->buffers[1])[ints->offset + i] == i &&
             (size_t)(off[j + 1] - off[j]) == strlen(want) &&
             memcmp((const char *)strs->buffers[2] + off[j], want, strlen(want)) == 0;
    }
    basalt_arrow_batches_reset(&b);
    CHECK_OK(st, &err);
    CHECK(ok);
    /* A wrong master key: the KEK does not unwrap, so there is no footer
     * key (the retriever's AUTH means "not available"). */
    masters[0].key = (const uint8_t *)KC1_16;
    basalt_arrow_batches_init(&b);
    st = read_file(file, NULL, 0, &d, &b, &err);
    basalt_arrow_batches_reset(&b);
    CHECK_STATUS(st, BASALT_AUTH, &err);
    CHECK(strstr(err.message, "footer: no footer key") != NULL);
    /* The retriever itself says why. */
    uint8_t key[32];
    size_t key_len = 0;
    static const char md[] = "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":false,"
                             "\"keyReference\":\"footerKey\"}";
    CHECK_STATUS(basalt_parquet_key_tools_retrieve(&kt, (const uint8_t *)md, strlen(md), key,
                                                   &key_len, &err),
                 BASALT_AUTH, &err);
    CHECK(strstr(err.message, "unwrapping the key-encryption key") != NULL);
    masters[0].key = (const uint8_t *)KF16;
    CHECK_OK(basalt_parquet_key_tools_retrieve(&kt, (const uint8_t *)md, strlen(md), key,
                                               &key_len, &err),
             &err);
    CHECK_EQ(key_len, 16);
    /* Not key-tools metadata, an unknown master key, no material file. */
    CHECK_STATUS(basalt_parquet_key_tools_retrieve(&kt, (const uint8_t *)"kf", 2, key, &key_len,
                                                   &err),
                 BASALT_NOT_FOUND, &err);
    kt.num_master_keys = 2;
    masters[1].id = "kf?";
    kt.master_keys = masters + 1;
    CHECK_STATUS(basalt_parquet_key_tools_retrieve(&kt, (const uint8_t *)md, strlen(md), key,
                                                   &key_len, &err),
                 BASALT_NOT_FOUND, &err);
    CHECK(strstr(err.message, "no master key 'kf'") != NULL);
    kt.master_keys = masters;
    kt.num_master_keys = 3;
    kt.key_material_path = NULL;
    CHECK_STATUS(basalt_parquet_key_tools_retrieve(&kt, (const uint8_t *)md, strlen(md), key,
                                                   &key_len, &err),
                 BASALT_NOT_FOUND, &err);
}

/* Bloom filters of encrypted columns: the header and the bitset are two
 * modules; the page index is encrypted too. Rows: (i + 0.5, i + 0.25, i,
 * "name_i"), double_field and float_field under column keys. */
TEST(encryption_corpus_bloom_filter)
{
    const char *name = "encrypt_columns_and_footer_bloom_filter.parquet.encrypted";
    struct key_map m;
    keys16(&m);
    struct basalt_parquet_decryption d;
    dec_init(&d, &m, NULL);
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    CHECK_OK(open_with(enc_path(name), NULL, 0, &d, &r, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = read_columns(r, NULL, &b, &err);
    bool ok = st == BASALT_OK && b.n == 1 && b.arrays[0].length == 2000;
    for (int64_t i = 0; ok && i < 2000; i++) {
        const struct ArrowArray *const *ch = (const struct ArrowArray *const *)b.arrays[0].children;
        const int32_t *off = ch[3]->buffers[1];
        char want[32];
        int n = snprintf(want, sizeof want, "name_%d", (int)i);
        ok = ((const double *)ch[0]->buffers[1])[i] == (double)i + 0.5 &&
             ((const float *)ch[1]->buffers[1])[i] == (float)i + 0.25f &&
             ((const int32_t *)ch[2]->buffers[1])[i] == i && off[i + 1] - off[i] == n &&
             memcmp((const char *)ch[3]->buffers[2] + off[i], want, (size_t)n) == 0;
    }
    basalt_arrow_batches_reset(&b);
    /* The encrypted filters, read and probed. */
    struct basalt_parquet_bloom_filter bf;
    basalt_status bst = basalt_parquet_reader_bloom_filter(r, 0, 0, &bf, &err);
    bool probes = bst == BASALT_OK;
    int absent = 0;
    for (int i = 0; probes && i < 2000; i++) {
        double v = (double)i + 0.5;
        probes = basalt_parquet_bloom_filter_check(&bf, basalt_parquet_bloom_hash(&v, 8));
        double w = (double)i + 0.75;
        absent += !basalt_parquet_bloom_filter_check(&bf, basalt_parquet_bloom_hash(&w, 8));
    }
    basalt_parquet_bloom_filter_reset(&bf);
    /* The offset and column index of an encrypted column. */
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_parquet_page_index pi;
    basalt_status pst = basalt_parquet_page_index_read(r, 0, 1, true, &arena, &pi, &err);
    bool index = pst == BASALT_OK && pi.has_offset_index && pi.has_column_index &&
                 pi.n_pages >= 1;
    basalt_arena_reset(&arena);
    /* A predicate on the encrypted column skips the row group by its
     * filter (the value lies between the min and max). */
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.use_statistics = false;
    o.use_page_index = false;
    struct basalt_parquet_scan *scan = NULL;
    basalt_status sst = basalt_parquet_scan_new(r, &o, &scan, &err);
    struct basalt_parquet_literal lit = {0};
    lit.kind = BASALT_PARQUET_LITERAL_DOUBLE;
    lit.d = 1000.75;
    if (sst == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        sst = basalt_parquet_scan_filter(scan, "double_field", BASALT_PARQUET_OP_EQ, &lit, &err);
    }
    basalt_arrow_batches_init(&b);
    if (sst == BASALT_OK)
        sst = basalt_parquet_scan_read_all(scan, &b, &err);
    struct basalt_parquet_scan_stats ss;
    basalt_parquet_scan_get_stats(scan, &ss);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK_OK(st, &err);
    CHECK(ok);
    CHECK_OK(bst, &err);
    CHECK(probes);
    CHECK(absent > 1900);
    CHECK_OK(pst, &err);
    CHECK(index);
    CHECK_OK(sst, &err);
    CHECK_EQ(ss.row_groups_pruned_bloom, 1);
}

/* ------------------------------------------------------------------ negative controls */

TEST(encryption_wrong_footer_key)
{
    struct key_map m;
    keys16(&m);
    m.keys[0] = KC1_16;
    struct basalt_parquet_decryption d;
    dec_init(&d, &m, NULL);
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    CHECK_STATUS(open_with(enc_path("uniform_encryption.parquet.encrypted"), NULL, 0, &d, &r,
                           &err),
                 BASALT_AUTH, &err);
    CHECK(strstr(err.message, "uniform_encryption.parquet.encrypted: footer: AES-GCM "
                              "authentication failed: a wrong key or AAD prefix") != NULL);
    CHECK(r == NULL);
    /* The plaintext footer's signature. */
    CHECK_STATUS(open_with(enc_path("encrypt_columns_plaintext_footer.parquet.encrypted"), NULL,
                           0, &d, &r, &err),
                 BASALT_AUTH, &err);
    CHECK(strstr(err.message, "footer: footer signature does not verify") != NULL);
    /* No footer key at all for an encrypted footer; no keys at all. */
    m.ids[0] = NULL;
    CHECK_STATUS(open_with(enc_path("encrypt_columns_and_footer.parquet.encrypted"), NULL, 0, &d,
                           &r, &err),
                 BASALT_AUTH, &err);
    CHECK(strstr(err.message, "footer: no footer key (key metadata \"kf\")") != NULL);
    CHECK_STATUS(open_with(enc_path("encrypt_columns_and_footer.parquet.encrypted"), NULL, 0,
                           NULL, &r, &err),
                 BASALT_UNSUPPORTED, &err);
    /* An explicit key of a bad length. */
    dec_init(&d, NULL, NULL);
    d.footer_key = (const uint8_t *)KF16;
    d.footer_key_len = 15;
    CHECK_STATUS(open_with(enc_path("uniform_encryption.parquet.encrypted"), NULL, 0, &d, &r,
                           &err),
                 BASALT_INVALID_ARG, &err);
}

/* A wrong column key: the file opens (the footer key is right), the other
 * columns read, and the column is AUTH when read, naming it; with CTR pages
 * the GCM column metadata catches it just the same. */
TEST(encryption_wrong_column_key)
{
    static const char *const files[] = {"encrypt_columns_and_footer.parquet.encrypted",
                                        "encrypt_columns_and_footer_ctr.parquet.encrypted"};
    for (int f = 0; f < 2; f++) {
        struct key_map m;
        keys16(&m);
        m.keys[1] = KC2_16; /* kc1 (double_field) wrong */
        struct basalt_parquet_decryption d;
        dec_init(&d, &m, NULL);
        struct basalt_parquet_reader *r = NULL;
        struct basalt_error err;
        CHECK_OK(open_with(enc_path(files[f]), NULL, 0, &d, &r, &err), &err);
        static const char *const other[] = {"float_field", "ba_field", NULL};
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        basalt_status st = read_columns(r, other, &b, &err);
        bool ok = st == BASALT_OK && check_generated(&b, 50);
        basalt_arrow_batches_reset(&b);
        static const char *const bad[] = {"double_field", NULL};
        basalt_arrow_batches_init(&b);
        basalt_status st2 = read_columns(r, bad, &b, &err);
        basalt_arrow_batches_reset(&b);
        basalt_parquet_reader_close(r);
        CHECK(ok);
        CHECK_STATUS(st2, BASALT_AUTH, &err);
        CHECK(strstr(err.message, "row group 0: column 'double_field': encrypted column chunk: "
                                  "column metadata: AES-GCM authentication failed") != NULL);
    }
}

/* Every byte of small encrypted files flipped in turn: opening, reading all
 * columns and their page indexes gives OK or a clean error. With AES_GCM_V1
 * and every column encrypted no flip passes as other values: a flip inside a
 * module is AUTH, one in the plaintext framing CORRUPT or AUTH. */
static int64_t flip_every_byte(const char *name, struct key_map *m, const char *prefix,
                               bool check_values, int64_t *auth, int64_t *ok_count)
{
    size_t len = 0;
    uint8_t *data = bt_read_file(enc_path(name), &len);
    if (!data)
        return -1;
    struct basalt_parquet_decryption d;
    dec_init(&d, m, prefix);
    int64_t bad = 0;
    for (size_t i = 0; i < len; i++) {
        data[i] ^= 0x20;
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        struct basalt_error err;
        struct basalt_parquet_reader *r = NULL;
        basalt_status st = open_with(name, data, len, &d, &r, &err);
        if (st == BASALT_OK)
            st = read_columns(r, NULL, &b, &err);
        /* and the page index, which a plain read does not touch */
        for (int32_t c = 0; st == BASALT_OK && c < basalt_parquet_reader_num_columns(r); c++) {
            struct basalt_arena arena;
            basalt_arena_init(&arena, 1024);
            struct basalt_parquet_page_index pi;
            st = basalt_parquet_page_index_read(r, 0, c, true, &arena, &pi, &err);
            basalt_arena_reset(&arena);
        }
        basalt_parquet_reader_close(r);
        if (st == BASALT_OK && check_values && !check_generated(&b, 50))
            bad++;
        basalt_arrow_batches_reset(&b);
        if (st != BASALT_OK && st != BASALT_AUTH && st != BASALT_CORRUPT &&
            st != BASALT_UNSUPPORTED && st != BASALT_LIMIT)
            bad++;
        *auth += st == BASALT_AUTH;
        *ok_count += st == BASALT_OK;
        data[i] ^= 0x20;
    }
    basalt_free(data);
    return bad;
}

TEST(encryption_flipped_bytes_never_pass)
{
    struct key_map m;
    keys16(&m);
    int64_t auth = 0, ok = 0;
    int64_t bad =
        flip_every_byte("uniform_encryption.parquet.encrypted", &m, NULL, true, &auth, &ok);
    CHECK_EQ(bad, 0);
    /* Nearly every byte is inside a GCM module; what reads OK are a few
     * flips in the FileCryptoMetaData that leave its meaning alone (a stop
     * byte's unused high nibble, a known field id turned unknown). */
    CHECK(auth > 5000);
    CHECK(ok <= 8);
    /* The plaintext-footer file: its plaintext columns are not protected
     * (their flips may read as other values), the rest is, the signed
     * footer included. */
    auth = ok = 0;
    bad = flip_every_byte("encrypt_columns_plaintext_footer.parquet.encrypted", &m, NULL, false,
                          &auth, &ok);
    CHECK_EQ(bad, 0);
    CHECK(auth > 1000);
}

/* A flipped byte in one page names the module: a data page's tag, a data
 * page header, the footer's tag. */
TEST(encryption_flipped_module_is_named)
{
    size_t len = 0;
    uint8_t *data = bt_read_file(enc_path("uniform_encryption.parquet.encrypted"), &len);
    CHECK(data != NULL);
    struct key_map m;
    keys16(&m);
    struct basalt_parquet_decryption d;
    dec_init(&d, &m, NULL);
    struct basalt_parquet_reader *r = NULL;
    struct basalt_error err;
    basalt_status st = open_with("u.parquet", data, len, &d, &r, &err);
    int64_t page = 0;
    if (st == BASALT_OK) {
        const struct basalt_parquet_column_metadata *cm =
            &basalt_parquet_reader_metadata(r)->row_groups[0].columns[5].meta_data;
        page = cm->data_page_offset;
    }
    basalt_parquet_reader_close(r);
    if (st != BASALT_OK)
        basalt_free(data);
    CHECK_OK(st, &err);
    /* The first data page of double_field: its header module, then the
     * page module, whose last byte is its tag's. */
    uint32_t hlen;
    memcpy(&hlen, data + page, 4);
    uint32_t plen;
    memcpy(&plen, data + page + 4 + hlen, 4);
    size_t tag = (size_t)page + 4 + hlen + 4 + plen - 1;
    data[tag] ^= 1;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    st = read_file("u.parquet", data, len, &d, &b, &err);
    basalt_arrow_batches_reset(&b);
    data[tag] ^= 1;
    bool page_named = st == BASALT_AUTH &&
                      strstr(err.message, "u.parquet: row group 0: column 'double_field': page 1: "
                                          "data page: AES-GCM authentication failed") != NULL;
    basalt_status page_st = st;
    char page_msg[sizeof err.message];
    snprintf(page_msg, sizeof page_msg, "%s", err.message);
    data[page + 20] ^= 1;
    basalt_arrow_batches_init(&b);
    st = read_file("u.parquet", data, len, &d, &b, &err);
    basalt_arrow_batches_reset(&b);
    data[page + 20] ^= 1;
    bool header_named = st == BASALT_AUTH &&
                        strstr(err.message, "column 'double_field': page 1: header: data page "
                                            "header: AES-GCM authentication failed") != NULL;
    data[len - 9] ^= 1; /* the footer module's last tag byte */
    basalt_arrow_batches_init(&b);
    basalt_status fst = read_file("u.parquet", data, len, &d, &b, &err);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    CHECK_MSG(page_named, "%s: %s", basalt_status_name(page_st), page_msg);
    CHECK_MSG(header_named, "%s", err.message);
    CHECK_STATUS(fst, BASALT_AUTH, &err);
    CHECK(strstr(err.message, "u.parquet: footer: AES-GCM authentication failed") != NULL);
}

/* The module AADs, against a hand computation: swapping the column
 * ordinal of a module is caught (the breakage test of the ordinals). */
TEST(encryption_module_aad_binds_place)
{
    struct basalt_parquet_cipher c;
    memset(&c, 0, sizeof c);
    c.algorithm = BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1;
    memcpy(c.key, KF16, 16);
    c.key_len = 16;
    static const uint8_t aad[] = {'p', 'f', 'x', 1, 2, 3};
    c.aad = aad;
    c.aad_len = sizeof aad;
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_error err;
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_DATA_PAGE, 3, 7, 300};
    CHECK_OK(basalt_parquet_crypto_encrypt(&c, &id, (const uint8_t *)"hello", 5,
                                           (const uint8_t *)" world", 6, &out, &err),
             &err);
    CHECK_EQ(out.size, 11 + BASALT_PARQUET_CRYPTO_GCM_OVERHEAD);
    uint8_t plain[32];
    size_t n = 0, mlen = 0;
    basalt_status ok = basalt_parquet_crypto_decrypt(&c, &id, out.data, out.size, plain, &n,
                                                     &mlen, &err);
    struct basalt_parquet_module_id moved[] = {{BASALT_PARQUET_MODULE_DATA_PAGE, 3, 8, 300},
                                               {BASALT_PARQUET_MODULE_DATA_PAGE, 4, 7, 300},
                                               {BASALT_PARQUET_MODULE_DATA_PAGE, 3, 7, 301},
                                               {BASALT_PARQUET_MODULE_DICTIONARY_PAGE, 3, 7, 300}};
    int refused = 0;
    uint8_t scratch[32];
    size_t m = 0;
    for (int i = 0; i < 4; i++)
        refused += basalt_parquet_crypto_decrypt(&c, &moved[i], out.data, out.size, scratch, &m,
                                                 NULL, NULL) == BASALT_AUTH;
    /* The same module decrypted by hand with the AAD spelled out:
     * prefix, type 2, row group 3, column 7, page 300 (little-endian). */
    static const uint8_t want_aad[] = {'p', 'f', 'x', 1, 2, 3, 2, 3, 0, 7, 0, 0x2c, 0x01};
    uint8_t plain2[32];
    size_t n2 = 0;
    basalt_status by_hand = basalt_parquet_crypto_gcm_open(
        c.key, 16, want_aad, sizeof want_aad, out.data + 4, out.size - 4, plain2, &n2, &err);
    basalt_buffer_reset(&out);
    CHECK_OK(ok, &err);
    CHECK_EQ(n, 11);
    CHECK_EQ(mlen, 11 + BASALT_PARQUET_CRYPTO_GCM_OVERHEAD);
    CHECK_MEM(plain, "hello world", 11);
    CHECK_EQ(refused, 4);
    CHECK_OK(by_hand, &err);
    CHECK_MEM(plain2, "hello world", 11);
    /* Page ordinals are 16-bit. */
    id.page = 40000;
    basalt_buffer_init(&out);
    CHECK_STATUS(basalt_parquet_crypto_encrypt(&c, &id, (const uint8_t *)"x", 1, NULL, 0, &out,
                                               &err),
                 BASALT_LIMIT, &err);
    basalt_buffer_reset(&out);
}

/* CTR modules (pages of AES_GCM_CTR_V1 files): no tag, so a changed byte
 * decrypts to a changed byte and nothing notices; the corpus CTR files,
 * written by Arrow C++ and parquet-mr, read right, which pins the counter
 * block (nonce, then a 32-bit big-endian counter from 1). */
TEST(encryption_ctr_modules_round_trip)
{
    struct basalt_parquet_cipher c;
    memset(&c, 0, sizeof c);
    c.algorithm = BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1;
    memcpy(c.key, KF32, 32);
    c.key_len = 32;
    uint8_t zeros[100] = {0};
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_error err;
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_DICTIONARY_PAGE, 0, 0, 0};
    CHECK_OK(basalt_parquet_crypto_encrypt(&c, &id, zeros, 60, zeros, 40, &out, &err), &err);
    CHECK_EQ(out.size, 100 + BASALT_PARQUET_CRYPTO_CTR_OVERHEAD);
    uint8_t back[100];
    size_t n = 0;
    basalt_status st = basalt_parquet_crypto_decrypt(&c, &id, out.data, out.size, back, &n, NULL,
                                                     &err);
    /* No tag: a changed byte decrypts to a changed byte, nothing more. */
    out.data[30] ^= 1;
    uint8_t changed[100];
    basalt_status st2 = basalt_parquet_crypto_decrypt(&c, &id, out.data, out.size, changed, &n,
                                                      NULL, &err);
    basalt_buffer_reset(&out);
    CHECK_OK(st, &err);
    CHECK_EQ(n, 100);
    CHECK_MEM(back, zeros, 100);
    CHECK_OK(st2, &err);
    CHECK(changed[30 - 16] == 1);
    /* Headers are GCM in CTR files. */
    CHECK(!basalt_parquet_crypto_is_ctr(&c, BASALT_PARQUET_MODULE_DATA_PAGE_HEADER));
    CHECK(basalt_parquet_crypto_is_ctr(&c, BASALT_PARQUET_MODULE_DATA_PAGE));
}

TEST(encryption_key_parse)
{
    uint8_t key[32];
    size_t n = 0;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_key_parse("30313233343536373839303132333435", key, &n, &err), &err);
    CHECK_EQ(n, 16);
    CHECK_MEM(key, KF16, 16);
    CHECK_OK(basalt_parquet_key_parse("MDEyMzQ1Njc4OTAxMjM0NQ==", key, &n, &err), &err);
    CHECK_EQ(n, 16);
    CHECK_MEM(key, KF16, 16);
    CHECK_OK(basalt_parquet_key_parse("base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE", key,
                                      &n, &err),
             &err);
    CHECK_EQ(n, 32);
    CHECK_MEM(key, KF32, 32);
    CHECK_STATUS(basalt_parquet_key_parse("hex:3031", key, &n, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_parquet_key_parse("not a key", key, &n, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_parquet_key_parse("MDEy", key, &n, &err), BASALT_INVALID_ARG, &err);
}

/* Opening and reading an encrypted file with the n-th allocation failing:
 * NOMEM and nothing leaked, or success. */
static basalt_status open_read_attempt(void *ctx)
{
    struct key_map *m = ctx;
    struct basalt_parquet_decryption d;
    dec_init(&d, m, NULL);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = read_file(enc_path("encrypt_columns_plaintext_footer.parquet.encrypted"),
                                 NULL, 0, &d, &b, NULL);
    basalt_arrow_batches_reset(&b);
    return st;
}

TEST(encryption_allocation_failures)
{
    struct key_map m;
    keys16(&m);
    CHECK_ALLOC_SWEEP(open_read_attempt, &m);
}

/* ------------------------------------------------------------------ writing */

/* A corpus file read into memory (plaintext). */
static basalt_status load(const char *name, struct basalt_arrow_batches *b,
                          struct basalt_error *err)
{
    return read_file(enc_path(name), NULL, 0, NULL, b, err);
}

/* The text of every row of `b`. */
static void text_of(const struct basalt_arrow_batches *b, struct basalt_buffer *out)
{
    pqr_text_batches(&b->schema, b->arrays, b->n, out);
    basalt_buffer_append(out, "", 1, NULL);
}

/* Writes `b` with `o` into memory. */
static basalt_status write_batches(const struct basalt_arrow_batches *b,
                                   const struct basalt_parquet_writer_options *o, uint8_t **data,
                                   size_t *len, struct basalt_error *err)
{
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    *data = NULL;
    basalt_status st = basalt_output_open_memory("enc.parquet", &out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_open(out, false, &b->schema, o, &w, err);
    for (int64_t i = 0; st == BASALT_OK && i < b->n; i++)
        st = basalt_parquet_writer_write(w, &b->arrays[i], err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    if (st == BASALT_OK)
        *data = basalt_output_memory_take(out, len);
    basalt_parquet_writer_close(w);
    basalt_output_close(out);
    return st;
}

static bool contains(const uint8_t *data, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(data + i, needle, n) == 0)
            return true;
    return false;
}

/* The shapes written: flat types with nulls and dictionaries, many row
 * groups and pages with a page index and bloom filters, nested lists and
 * maps, v2 pages. */
struct shape {
    const char *file;
    int64_t row_group_rows, page_rows;
    int page_version;
    const char *bloom;        /* a leaf with a bloom filter, or NULL */
    const char *own_key_leaf; /* a leaf encrypted with its own key */
};

static const struct shape shapes[] = {
    {"alltypes_plain.parquet", 0, 0, 1, "string_col", "id"},
    {"alltypes_tiny_pages_plain.parquet", 1500, 97, 1, "string_col", "date_string_col"},
    {"nested_lists.snappy.parquet", 0, 0, 2, NULL, "a.list.element.list.element.list.element"},
    {"nested_maps.snappy.parquet", 0, 0, 2, NULL, "a.key_value.key"},
    {"alltypes_tiny_pages_plain.parquet", 2000, 333, 2, "bigint_col", "string_col"},
};

/* The modes: algorithm, footer, column keys, AAD prefix. */
struct mode {
    const char *name;
    int32_t algorithm;
    bool plaintext_footer;
    bool own_keys;       /* the shape's own_key_leaf with its own key, the rest plaintext */
    const char *prefix;
    bool store_prefix;
    size_t key_len;
    bool v2_clear_levels; /* parquet-java's DATA_PAGE_V2 layout */
};

static const struct mode modes[] = {
    {"uniform gcm", BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1, false, false, NULL, true, 16, false},
    {"uniform ctr", BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1, false, false, NULL, true,
     32, false},
    {"plaintext footer", 0, true, false, NULL, true, 24, false},
    {"column keys", 0, false, true, "table.part0", true, 16, false},
    {"column keys, plaintext footer, ctr", BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1,
     true, true, NULL, true, 16, false},
    {"prefix not stored", 0, false, false, "table.part1", false, 32, false},
    {"parquet-java v2 pages", 0, false, true, NULL, true, 16, true},
    {"parquet-java v2 pages, ctr", BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1, true, false,
     NULL, true, 16, true},
};

static basalt_status read_back(const uint8_t *data, size_t len, const struct mode *md,
                               struct key_map *m, struct basalt_buffer *text,
                               struct basalt_error *err)
{
    struct basalt_parquet_decryption d;
    dec_init(&d, m, md->prefix && !md->store_prefix ? md->prefix : NULL);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = read_file("enc.parquet", data, len, &d, &b, err);
    if (st == BASALT_OK)
        text_of(&b, text);
    basalt_arrow_batches_reset(&b);
    return st;
}

TEST(encryption_write_read_back)
{
    static const char footer_key[] = "footer-key-32-bytes-long-0000000";
    static const char column_key[] = "column-key-16-by";
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const struct shape *sh = &shapes[s];
        struct basalt_arrow_batches in;
        basalt_arrow_batches_init(&in);
        struct basalt_error err;
        basalt_status st = load(sh->file, &in, &err);
        struct basalt_buffer want;
        basalt_buffer_init(&want);
        if (st == BASALT_OK)
            text_of(&in, &want);
        for (size_t k = 0; st == BASALT_OK && k < sizeof modes / sizeof *modes; k++) {
            const struct mode *md = &modes[k];
            struct basalt_parquet_writer_options o;
            basalt_parquet_writer_options_init(&o);
            o.codec = BASALT_CODEC_SNAPPY;
            if (sh->row_group_rows)
                o.row_group_rows = sh->row_group_rows;
            if (sh->page_rows)
                o.page_rows = sh->page_rows;
            o.page_version = sh->page_version;
            o.page_crc = true;
            o.bloom_columns = sh->bloom ? &sh->bloom : NULL;
            o.num_bloom_columns = sh->bloom ? 1 : 0;
            struct basalt_parquet_encryption e;
            memset(&e, 0, sizeof e);
            e.algorithm = md->algorithm;
            e.footer_key = (const uint8_t *)footer_key;
            e.footer_key_len = md->key_len;
            e.footer_key_metadata = (const uint8_t *)"kf";
            e.footer_key_metadata_len = 2;
            e.plaintext_footer = md->plaintext_footer;
            e.v2_levels_in_plaintext = md->v2_clear_levels;
            if (md->prefix) {
                e.aad_prefix = (const uint8_t *)md->prefix;
                e.aad_prefix_len = strlen(md->prefix);
                e.skip_aad_prefix_storage = !md->store_prefix;
            }
            struct basalt_parquet_column_encryption ce = {
                sh->own_key_leaf, (const uint8_t *)column_key, 16, (const uint8_t *)"kc1", 3};
            if (md->own_keys) {
                e.columns = &ce;
                e.num_columns = 1;
            }
            o.encryption = &e;
            uint8_t *data = NULL;
            size_t len = 0;
            st = write_batches(&in, &o, &data, &len, &err);
            if (st != BASALT_OK) {
                basalt_error_context(&err, st, "%s, %s: write", sh->file, md->name);
                break;
            }
            char fk[33];
            memcpy(fk, footer_key, md->key_len);
            fk[md->key_len] = 0;
            struct key_map m;
            memset(&m, 0, sizeof m);
            m.ids[0] = "kf", m.keys[0] = fk;
            m.ids[1] = "kc1", m.keys[1] = column_key;
            struct basalt_buffer got;
            basalt_buffer_init(&got);
            st = read_back(data, len, md, &m, &got, &err);
            bool same = st == BASALT_OK && got.size == want.size &&
                        memcmp(got.data, want.data, want.size) == 0;
            basalt_buffer_reset(&got);
            /* What a reader without keys gets: PARE refused, a plaintext
             * footer open with its encrypted columns refused. */
            struct basalt_parquet_reader *r = NULL;
            struct basalt_error e2;
            basalt_status nokeys = open_with("enc.parquet", data, len, NULL, &r, &e2);
            basalt_parquet_reader_close(r);
            bool magic_ok = md->plaintext_footer ? memcmp(data, "PAR1", 4) == 0 &&
                                                       memcmp(data + len - 4, "PAR1", 4) == 0
                                                 : memcmp(data, "PARE", 4) == 0 &&
                                                       memcmp(data + len - 4, "PARE", 4) == 0;
            /* A wrong footer key. */
            m.keys[0] = md->key_len == 16 ? "0000000000000000"
                                          : md->key_len == 24 ? "000000000000000000000000"
                                                              : "00000000000000000000000000000000";
            struct basalt_buffer wrong;
            basalt_buffer_init(&wrong);
            basalt_status wst = read_back(data, len, md, &m, &wrong, &e2);
            basalt_buffer_reset(&wrong);
            basalt_free(data);
            if (st != BASALT_OK) {
                basalt_error_context(&err, st, "%s, %s: read back", sh->file, md->name);
                break;
            }
            if (!same || !magic_ok ||
                nokeys != (md->plaintext_footer ? BASALT_OK : BASALT_UNSUPPORTED) ||
                wst != BASALT_AUTH) {
                st = basalt_error_set(&err, BASALT_INTERNAL,
                                      "%s, %s: same %d, magic %d, without keys %s, wrong key %s",
                                      sh->file, md->name, same, magic_ok,
                                      basalt_status_name(nokeys), basalt_status_name(wst));
                break;
            }
        }
        basalt_buffer_reset(&want);
        basalt_arrow_batches_reset(&in);
        CHECK_OK(st, &err);
    }
}

/* What an encrypted file shows: nothing of the encrypted column's values or
 * statistics, and (encrypted footer) not even the column names; two writes
 * of the same rows differ (random nonces, a random aad_file_unique). */
TEST(encryption_write_hides_values)
{
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    struct basalt_error err;
    CHECK_OK(load("alltypes_plain.parquet", &in, &err), &err);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.codec = BASALT_CODEC_UNCOMPRESSED;
    o.dictionary = false;
    uint8_t *plain = NULL, *a = NULL, *b = NULL, *pf = NULL;
    size_t plain_len = 0, a_len = 0, b_len = 0, pf_len = 0;
    basalt_status st = write_batches(&in, &o, &plain, &plain_len, &err);
    struct basalt_parquet_encryption e;
    memset(&e, 0, sizeof e);
    e.footer_key = (const uint8_t *)KF16;
    e.footer_key_len = 16;
    o.encryption = &e;
    if (st == BASALT_OK)
        st = write_batches(&in, &o, &a, &a_len, &err);
    if (st == BASALT_OK)
        st = write_batches(&in, &o, &b, &b_len, &err);
    /* Plaintext footer, only date_string_col encrypted (own key). */
    struct basalt_parquet_column_encryption ce = {"date_string_col", (const uint8_t *)KC1_16, 16,
                                                  NULL, 0};
    e.plaintext_footer = true;
    e.columns = &ce;
    e.num_columns = 1;
    if (st == BASALT_OK)
        st = write_batches(&in, &o, &pf, &pf_len, &err);
    basalt_arrow_batches_reset(&in);
    bool plain_shows = st == BASALT_OK && contains(plain, plain_len, "03/01/09") &&
                       contains(plain, plain_len, "date_string_col");
    bool a_hides = st == BASALT_OK && !contains(a, a_len, "03/01/09") &&
                   !contains(a, a_len, "date_string_col") && !contains(a, a_len, "ARROW:schema");
    bool differ = st == BASALT_OK && (a_len != b_len || memcmp(a, b, a_len) != 0);
    /* The plaintext footer names the columns, shows the other columns'
     * values, but not the encrypted one's values or bounds. */
    bool pf_ok = st == BASALT_OK && contains(pf, pf_len, "date_string_col") &&
                 !contains(pf, pf_len, "03/01/09") && !contains(pf, pf_len, "04/01/09");
    basalt_free(plain);
    basalt_free(a);
    basalt_free(b);
    basalt_free(pf);
    CHECK_OK(st, &err);
    CHECK(plain_shows);
    CHECK(a_hides);
    CHECK(differ);
    CHECK(pf_ok);
}

TEST(encryption_write_bad_options)
{
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    struct basalt_error err;
    CHECK_OK(load("alltypes_plain.parquet", &in, &err), &err);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    struct basalt_parquet_encryption e;
    memset(&e, 0, sizeof e);
    o.encryption = &e;
    uint8_t *data = NULL;
    size_t len = 0;
    basalt_status no_key = write_batches(&in, &o, &data, &len, &err);
    e.footer_key = (const uint8_t *)KF16;
    e.footer_key_len = 17;
    basalt_status bad_len = write_batches(&in, &o, &data, &len, &err);
    e.footer_key_len = 16;
    e.algorithm = 9;
    basalt_status bad_alg = write_batches(&in, &o, &data, &len, &err);
    e.algorithm = 0;
    struct basalt_parquet_column_encryption ce[2] = {{"nope", NULL, 0, NULL, 0},
                                                      {"id", NULL, 0, NULL, 0}};
    e.columns = ce;
    e.num_columns = 1;
    basalt_status missing = write_batches(&in, &o, &data, &len, &err);
    char missing_msg[sizeof err.message];
    snprintf(missing_msg, sizeof missing_msg, "%s", err.message);
    ce[0] = ce[1];
    e.num_columns = 2;
    basalt_status twice = write_batches(&in, &o, &data, &len, &err);
    basalt_arrow_batches_reset(&in);
    CHECK_EQ(no_key, BASALT_INVALID_ARG);
    CHECK_EQ(bad_len, BASALT_INVALID_ARG);
    CHECK_EQ(bad_alg, BASALT_INVALID_ARG);
    CHECK_EQ(missing, BASALT_NOT_FOUND);
    CHECK(strstr(missing_msg, "column 'nope' not found") != NULL);
    CHECK_EQ(twice, BASALT_INVALID_ARG);
}

/* Writing encrypted with the n-th allocation failing. */
static basalt_status write_attempt(void *ctx)
{
    const struct basalt_arrow_batches *in = ctx;
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    struct basalt_parquet_encryption e;
    memset(&e, 0, sizeof e);
    e.footer_key = (const uint8_t *)KF16;
    e.footer_key_len = 16;
    e.plaintext_footer = true;
    struct basalt_parquet_column_encryption ce = {"id", (const uint8_t *)KC1_16, 16,
                                                  (const uint8_t *)"kc1", 3};
    e.columns = &ce;
    e.num_columns = 1;
    o.encryption = &e;
    o.bloom_columns = &ce.column;
    o.num_bloom_columns = 1;
    uint8_t *data = NULL;
    size_t len = 0;
    basalt_status st = write_batches(in, &o, &data, &len, NULL);
    basalt_free(data);
    return st;
}

TEST(encryption_write_allocation_failures)
{
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    struct basalt_error err;
    CHECK_OK(load("alltypes_plain.parquet", &in, &err), &err);
    int64_t n = bt_alloc_failure_sweep(__FILE__, __LINE__, write_attempt, &in);
    basalt_arrow_batches_reset(&in);
    CHECK(n > 10);
}
