/* Opening Parquet files: footer edge cases, metadata accessors, statistics
 * rules, truncation and allocation-failure sweeps. Expected values come from
 * the corpus notes and hyparquet's reading of the same files. */
#include <dirent.h>
#include <stdlib.h>

#include "basalt/parquet.h"
#include "parquet_reader.h"
#include "test.h"

static const char *corpus(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s", bt_testdata_path("parquet-testing/data"));
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/%s", name);
    return path;
}

static basalt_status open_memory(const void *data, size_t len, const char *name,
                                 const struct basalt_parquet_reader_options *opts,
                                 struct basalt_parquet_reader **out, struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_memory(data, len, name, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_parquet_reader_open(in, true, opts, out, err);
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

TEST(reader_footer_too_small)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_STATUS(open_memory("PAR1P", 5, "tiny.parquet", NULL, &r, &err), BASALT_CORRUPT, &err);
    CHECK(r == NULL);
    CHECK(starts_with(err.message, "tiny.parquet: "));
    CHECK(strstr(err.message, "too small") != NULL);
    CHECK_STATUS(open_memory("", 0, "empty.parquet", NULL, &r, &err), BASALT_CORRUPT, &err);
    CHECK(starts_with(err.message, "empty.parquet: "));
}

TEST(reader_footer_bad_magic)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    static const uint8_t tail_bad[16] = {'P', 'A', 'R', '1', 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0};
    uint8_t f[20];
    memcpy(f, tail_bad, 16);
    memcpy(f + 16, "PAR2", 4);
    CHECK_STATUS(open_memory(f, sizeof f, "bad.parquet", NULL, &r, &err), BASALT_CORRUPT, &err);
    CHECK(starts_with(err.message, "bad.parquet: "));
    CHECK(strstr(err.message, "magic") != NULL);

    /* A real file whose first byte is wrong. */
    size_t len = 0;
    uint8_t *data = bt_read_file(corpus("alltypes_plain.parquet"), &len);
    CHECK(data != NULL);
    data[0] = 'X';
    basalt_status st = open_memory(data, len, "head.parquet", NULL, &r, &err);
    basalt_free(data);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(starts_with(err.message, "head.parquet: "));
    CHECK(strstr(err.message, "PAR1") != NULL);
}

TEST(reader_footer_length_past_file)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    uint8_t f[16] = {'P', 'A', 'R', '1', 1, 2, 3, 4, 0xe8, 0x03, 0, 0, 'P', 'A', 'R', '1'};
    CHECK_STATUS(open_memory(f, sizeof f, "long.parquet", NULL, &r, &err), BASALT_CORRUPT, &err);
    CHECK(starts_with(err.message, "long.parquet: "));
    CHECK(strstr(err.message, "footer length 1000") != NULL);
    /* Length 4 fits, but 4 bytes are no FileMetaData. */
    f[8] = 4;
    f[9] = 0;
    CHECK_STATUS(open_memory(f, sizeof f, "short.parquet", NULL, &r, &err), BASALT_CORRUPT, &err);
    CHECK(starts_with(err.message, "short.parquet: footer: "));
}

TEST(reader_footer_encrypted)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    uint8_t f[16] = {'P', 'A', 'R', 'E', 1, 2, 3, 4, 4, 0, 0, 0, 'P', 'A', 'R', 'E'};
    CHECK_STATUS(open_memory(f, sizeof f, "enc.parquet", NULL, &r, &err), BASALT_UNSUPPORTED,
                 &err);
    CHECK(starts_with(err.message, "enc.parquet: "));
    CHECK(strstr(err.message, "encrypt") != NULL);
    /* The corpus's encrypted-footer file, and one with a plaintext footer
     * that opens (its columns are encrypted). */
    CHECK_STATUS(basalt_parquet_reader_open_file(corpus("uniform_encryption.parquet.encrypted"),
                                                 NULL, &r, &err),
                 BASALT_UNSUPPORTED, &err);
    CHECK(strstr(err.message, "uniform_encryption.parquet.encrypted: ") != NULL);
    CHECK_OK(basalt_parquet_reader_open_file(
                 corpus("encrypt_columns_plaintext_footer.parquet.encrypted"), NULL, &r, &err),
             &err);
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    CHECK(md->has_encrypted_columns);
    struct basalt_parquet_column_stats cs;
    basalt_status st = BASALT_OK;
    bool any_encrypted = false;
    for (int32_t c = 0; c < basalt_parquet_reader_num_columns(r); c++) {
        st = basalt_parquet_reader_column_stats(r, 0, c, &cs, &err);
        if (st == BASALT_UNSUPPORTED)
            any_encrypted = true;
    }
    basalt_parquet_reader_close(r);
    CHECK(any_encrypted);
}

TEST(reader_footer_size_limit)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_reader_options o;
    basalt_parquet_reader_options_init(&o);
    o.max_footer_size = 64;
    CHECK_STATUS(basalt_parquet_reader_open_file(corpus("alltypes_plain.parquet"), &o, &r, &err),
                 BASALT_LIMIT, &err);
    CHECK(strstr(err.message, "alltypes_plain.parquet: ") != NULL);
    o.max_footer_size = 1 << 20;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_plain.parquet"), &o, &r, &err), &err);
    basalt_parquet_reader_close(r);
}

TEST(reader_open_missing)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_STATUS(basalt_parquet_reader_open_file(corpus("no-such-file.parquet"), NULL, &r, &err),
                 BASALT_NOT_FOUND, &err);
    CHECK_STATUS(basalt_parquet_reader_open_file(NULL, NULL, &r, &err), BASALT_INVALID_ARG, &err);
}

TEST(reader_open_alltypes_plain)
{
    struct basalt_error err;
    for (int mmap_it = 0; mmap_it < 2; mmap_it++) {
        struct basalt_parquet_reader_options o;
        basalt_parquet_reader_options_init(&o);
        o.use_mmap = mmap_it;
        struct basalt_parquet_reader *r = NULL;
        CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_plain.parquet"), &o, &r, &err),
                 &err);
        CHECK_EQ(basalt_parquet_reader_num_rows(r), 8);
        CHECK_EQ(basalt_parquet_reader_num_row_groups(r), 1);
        CHECK_EQ(basalt_parquet_reader_num_columns(r), 11);
        int32_t c = -1;
        CHECK_OK(basalt_parquet_reader_find_column(r, "bigint_col", &c, &err), &err);
        CHECK_EQ(c, 5);
        struct basalt_parquet_column_info info;
        CHECK_OK(basalt_parquet_reader_column(r, c, &info, &err), &err);
        CHECK_STR(info.path, "bigint_col");
        CHECK_EQ(info.physical_type, BASALT_PARQUET_TYPE_INT64);
        CHECK_STR(info.arrow_format, "l");
        CHECK_EQ(info.max_definition_level, 1);
        CHECK_STR(info.element->name.data, "bigint_col");
        CHECK_STATUS(basalt_parquet_reader_find_column(r, "nope", &c, &err), BASALT_NOT_FOUND,
                     &err);
        CHECK_STATUS(basalt_parquet_reader_column(r, 11, &info, &err), BASALT_NOT_FOUND, &err);
        struct ArrowSchema s;
        CHECK_OK(basalt_parquet_reader_schema(r, &s, &err), &err);
        CHECK_STR(s.format, "+s");
        CHECK_EQ(s.n_children, 11);
        CHECK_STR(s.children[9]->name, "string_col");
        CHECK_STR(s.children[9]->format, "z");
        CHECK_STR(s.children[10]->format, "tsn:");
        basalt_arrow_schema_release(&s);
        /* impala 1.3.0 wrote no statistics. */
        struct basalt_parquet_column_stats cs;
        CHECK_OK(basalt_parquet_reader_column_stats(r, 0, 0, &cs, &err), &err);
        CHECK(!cs.has_min_max);
        CHECK(!cs.has_null_count);
        CHECK_STATUS(basalt_parquet_reader_column_stats(r, 1, 0, &cs, &err), BASALT_NOT_FOUND,
                     &err);
        basalt_parquet_reader_close(r);
    }
}

/* Bounds as little-endian integers. */
static int64_t le_int(const struct basalt_parquet_binary *b)
{
    uint64_t v = 0;
    for (size_t i = 0; i < b->len && i < 8; i++)
        v |= (uint64_t)b->data[i] << (8 * i);
    if (b->len == 4)
        return (int32_t)(uint32_t)v;
    return (int64_t)v;
}

TEST(reader_column_stats_corpus)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_column_stats cs;
    /* hyparquet: id min_value 0, max_value 7299, null_count 0. */
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_tiny_pages.parquet"), NULL, &r, &err),
             &err);
    CHECK_OK(basalt_parquet_reader_column_stats(r, 0, 0, &cs, &err), &err);
    CHECK(cs.has_min_max);
    CHECK(!cs.from_legacy);
    CHECK_EQ(le_int(&cs.min), 0);
    CHECK_EQ(le_int(&cs.max), 7299);
    CHECK(cs.has_null_count);
    CHECK_EQ(cs.null_count, 0);
    CHECK_EQ(cs.num_values, 7300);
    CHECK_EQ(cs.sort_order, BASALT_PARQUET_SORT_ORDER_SIGNED);
    basalt_parquet_reader_close(r);
    /* hyparquet: null_count 275, min -2136906554, max 2145722375. */
    CHECK_OK(basalt_parquet_reader_open_file(corpus("int32_with_null_pages.parquet"), NULL, &r,
                                             &err),
             &err);
    CHECK_OK(basalt_parquet_reader_column_stats(r, 0, 0, &cs, &err), &err);
    CHECK(cs.has_min_max);
    CHECK_EQ(le_int(&cs.min), -2136906554);
    CHECK_EQ(le_int(&cs.max), 2145722375);
    CHECK_EQ(cs.null_count, 275);
    basalt_parquet_reader_close(r);
    /* parquet-rs marked its string bounds exact; parquet-mr did not say. */
    CHECK_OK(basalt_parquet_reader_open_file(corpus("data_index_bloom_encoding_with_length.parquet"),
                                             NULL, &r, &err),
             &err);
    CHECK_OK(basalt_parquet_reader_column_stats(r, 0, 0, &cs, &err), &err);
    CHECK(cs.has_min_max && cs.min_exact && cs.max_exact);
    CHECK_EQ(cs.min.len, 5);
    CHECK_MEM(cs.min.data, "Hello", 5);
    CHECK_MEM(cs.max.data, "today", 5);
    CHECK_EQ(cs.sort_order, BASALT_PARQUET_SORT_ORDER_UNSIGNED);
    basalt_parquet_reader_close(r);
    CHECK_OK(basalt_parquet_reader_open_file(corpus("data_index_bloom_encoding_stats.parquet"),
                                             NULL, &r, &err),
             &err);
    CHECK_OK(basalt_parquet_reader_column_stats(r, 0, 0, &cs, &err), &err);
    CHECK(cs.has_min_max && !cs.min_exact && !cs.max_exact);
    basalt_parquet_reader_close(r);
}

/* ------------------------------------------------------------------ statistics rules */

/* A reader over a synthetic footer: one INT32 column (annotated as asked)
 * and one BYTE_ARRAY column, with the given statistics. */
struct synth {
    struct basalt_parquet_reader r;
    struct basalt_parquet_schema_element el[3];
    int32_t orders[2];
};

static basalt_status synth_init(struct synth *s, bool int_unsigned, const char *created_by,
                                int32_t order, struct basalt_error *err)
{
    memset(s, 0, sizeof *s);
    s->el[0].name.data = "schema";
    s->el[0].name.len = 6;
    s->el[0].has_num_children = true;
    s->el[0].num_children = 2;
    s->el[1].name.data = "i";
    s->el[1].name.len = 1;
    s->el[1].has_type = s->el[1].has_repetition_type = true;
    s->el[1].type = BASALT_PARQUET_TYPE_INT32;
    s->el[1].repetition_type = BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL;
    if (int_unsigned) {
        s->el[1].has_converted_type = true;
        s->el[1].converted_type = BASALT_PARQUET_CONVERTED_TYPE_UINT_32;
    }
    s->el[2].name.data = "b";
    s->el[2].name.len = 1;
    s->el[2].has_type = s->el[2].has_repetition_type = true;
    s->el[2].type = BASALT_PARQUET_TYPE_BYTE_ARRAY;
    s->el[2].repetition_type = BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL;
    basalt_status st =
        basalt_parquet_schema_from_elements(s->el, 3, NULL, 0, NULL, &s->r.schema, err);
    if (st != BASALT_OK)
        return st;
    s->orders[0] = s->orders[1] = order;
    s->r.column_orders = s->orders;
    s->r.name = "synth";
    basalt_parquet_writer_version_parse(created_by, &s->r.writer);
    return BASALT_OK;
}

static const uint8_t lo4[4] = {5, 0, 0, 0}, hi4[4] = {9, 0, 0, 0};

static void synth_stats(struct basalt_parquet_column_metadata *m, bool legacy, bool modern)
{
    memset(m, 0, sizeof *m);
    m->has_statistics = true;
    m->num_values = 10;
    if (legacy) {
        m->statistics.has_min = m->statistics.has_max = true;
        m->statistics.min = (struct basalt_parquet_binary){lo4, 4};
        m->statistics.max = (struct basalt_parquet_binary){hi4, 4};
    }
    if (modern) {
        m->statistics.has_min_value = m->statistics.has_max_value = true;
        m->statistics.min_value = (struct basalt_parquet_binary){lo4, 4};
        m->statistics.max_value = (struct basalt_parquet_binary){hi4, 4};
    }
}

TEST(reader_stats_rules)
{
    struct basalt_error err;
    struct synth s;
    struct basalt_parquet_column_metadata m;
    struct basalt_parquet_column_stats cs;

    /* Modern bounds under TYPE_ORDER and with no column order. */
    CHECK_OK(synth_init(&s, false, "parquet-cpp-arrow version 15.0.0",
                        BASALT_PARQUET_COLUMN_ORDER_TYPE_ORDER, &err),
             &err);
    synth_stats(&m, false, true);
    basalt_parquet_stats_of(&s.r, 0, &m, &cs);
    CHECK(cs.has_min_max && !cs.from_legacy && cs.min_exact);
    /* Byte arrays without the exactness flags are not exact. */
    basalt_parquet_stats_of(&s.r, 1, &m, &cs);
    CHECK(cs.has_min_max && !cs.min_exact && !cs.max_exact);
    basalt_parquet_schema_free(s.r.schema);

    /* An order this library does not know: modern bounds unusable, the
     * legacy ones of a signed column still fine. */
    CHECK_OK(synth_init(&s, false, "parquet-cpp-arrow version 15.0.0", 7, &err), &err);
    synth_stats(&m, false, true);
    basalt_parquet_stats_of(&s.r, 0, &m, &cs);
    CHECK(!cs.has_min_max);
    synth_stats(&m, true, true);
    basalt_parquet_stats_of(&s.r, 0, &m, &cs);
    CHECK(cs.has_min_max && cs.from_legacy);
    /* Legacy byte-array bounds are never trusted. */
    basalt_parquet_stats_of(&s.r, 1, &m, &cs);
    CHECK(!cs.has_min_max);
    basalt_parquet_schema_free(s.r.schema);

    /* Unsigned: legacy bounds were compared signed, so no. */
    CHECK_OK(synth_init(&s, true, "parquet-cpp-arrow version 15.0.0",
                        BASALT_PARQUET_COLUMN_ORDER_NONE, &err),
             &err);
    synth_stats(&m, true, false);
    basalt_parquet_stats_of(&s.r, 0, &m, &cs);
    CHECK(!cs.has_min_max);
    CHECK_EQ(cs.sort_order, BASALT_PARQUET_SORT_ORDER_UNSIGNED);
    synth_stats(&m, true, true);
    basalt_parquet_stats_of(&s.r, 0, &m, &cs);
    CHECK(cs.has_min_max && !cs.from_legacy);
    basalt_parquet_schema_free(s.r.schema);

    /* PARQUET-251: parquet-mr before 1.8.0. */
    CHECK_OK(synth_init(&s, false, "parquet-mr version 1.7.9 (build x)",
                        BASALT_PARQUET_COLUMN_ORDER_NONE, &err),
             &err);
    synth_stats(&m, true, false);
    basalt_parquet_stats_of(&s.r, 0, &m, &cs);
    CHECK(!cs.has_min_max);
    basalt_parquet_schema_free(s.r.schema);
    CHECK_OK(synth_init(&s, false, "parquet-mr version 1.8.0 (build x)",
                        BASALT_PARQUET_COLUMN_ORDER_NONE, &err),
             &err);
    basalt_parquet_stats_of(&s.r, 0, &m, &cs);
    CHECK(cs.has_min_max && cs.from_legacy);
    CHECK_EQ(le_int(&cs.min), 5);
    CHECK_EQ(le_int(&cs.max), 9);
    basalt_parquet_schema_free(s.r.schema);
}

TEST(reader_writer_version)
{
    struct basalt_parquet_writer_version v;
    basalt_parquet_writer_version_parse("parquet-mr version 1.12.0-SNAPSHOT (build 69)", &v);
    CHECK(v.known && v.parquet_mr);
    CHECK_EQ(v.major, 1);
    CHECK_EQ(v.minor, 12);
    CHECK_EQ(v.patch, 0);
    CHECK(basalt_parquet_writer_version_lt(&v, 1, 12, 1));
    CHECK(!basalt_parquet_writer_version_lt(&v, 1, 8, 0));
    basalt_parquet_writer_version_parse("DuckDB version v1.5.6 (build abc)", &v);
    CHECK(v.known && !v.parquet_mr);
    CHECK_EQ(v.minor, 5);
    basalt_parquet_writer_version_parse("parquet-mr", &v);
    CHECK(!v.known && v.parquet_mr);
    CHECK_EQ(v.major, 0);
    basalt_parquet_writer_version_parse(NULL, &v);
    CHECK(!v.known && !v.parquet_mr && !v.parquet_cpp);
}

/* The writer rules as Arrow C++ applies them (ApplicationVersion::VersionLt
 * against PARQUET_816_FIXED_VERSION, parquet-mr 1.2.9, and
 * PARQUET_CPP_10353_FIXED_VERSION, parquet-cpp 2.0.0): the application must
 * match, and a created_by without a version is version 0.0.0. */
TEST(reader_writer_workaround_rules)
{
    static const struct {
        const char *created_by;
        bool short_chunks, v2_compressed;
    } cases[] = {
        {"parquet-mr", true, false},
        {"parquet-mr version 1.2.8", true, false},
        {"parquet-mr version 1.2.8 (build 1234)", true, false},
        {"parquet-mr version 1.2.9", false, false},
        {"parquet-mr version 1.12.3 (build f8dced1)", false, false},
        {"parquet-mr version garbage", true, false},
        {"parquet-mr-fork version 1.0.0", false, false},
        {"parquet-cpp version 1.5.1-SNAPSHOT", false, true},
        {"parquet-cpp version 1.99.99", false, true},
        {"parquet-cpp version 2.0.0", false, false},
        {"parquet-cpp", false, true},
        {"parquet-cpp-arrow version 2.0.0", false, false},
        {"parquet-cpp-arrow version 15.0.0", false, false},
        {"DuckDB version v1.1.3 (build 19864453f7)", false, false},
        {"impala version 1.0.0", false, false},
        {"", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_parquet_writer_version v;
        basalt_parquet_writer_version_parse(cases[i].created_by, &v);
        CHECK_MSG(basalt_parquet_writer_short_chunks(&v) == cases[i].short_chunks, "%s",
                  cases[i].created_by);
        CHECK_MSG(basalt_parquet_writer_v2_always_compressed(&v) == cases[i].v2_compressed, "%s",
                  cases[i].created_by);
    }
}

/* ------------------------------------------------------------------ robustness */

static bool clean(basalt_status st)
{
    return st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT ||
           st == BASALT_UNSUPPORTED;
}

TEST(reader_open_truncated)
{
    size_t len = 0;
    uint8_t *data = bt_read_file(corpus("alltypes_tiny_pages.parquet"), &len);
    CHECK(data != NULL);
    struct basalt_error err;
    /* Every prefix: the trailer is gone or wrong, so nothing opens. */
    for (size_t n = 0; n < len; n += (n < 64 ? 1 : 97)) {
        uint8_t *copy = basalt_malloc(n ? n : 1);
        memcpy(copy, data, n);
        struct basalt_parquet_reader *r = NULL;
        basalt_status st = open_memory(copy, n, "cut.parquet", NULL, &r, &err);
        basalt_free(copy);
        if (st == BASALT_OK)
            basalt_parquet_reader_close(r);
        CHECK_MSG(st == BASALT_CORRUPT, "prefix %zu: %s %s", n, basalt_status_name(st),
                  err.message);
    }
    /* Bytes flipped in the footer: a clean status whatever happens. */
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    uint32_t footer = (uint32_t)data[len - 8] | (uint32_t)data[len - 7] << 8 |
                      (uint32_t)data[len - 6] << 16 | (uint32_t)data[len - 5] << 24;
    for (int i = 0; i < 400; i++) {
        size_t pos = len - 8 - footer + bt_rng_below(&rng, footer);
        uint8_t old = data[pos];
        data[pos] ^= (uint8_t)(1u << bt_rng_below(&rng, 8));
        struct basalt_parquet_reader *r = NULL;
        basalt_status st = open_memory(data, len, "flip.parquet", NULL, &r, &err);
        if (st == BASALT_OK)
            basalt_parquet_reader_close(r);
        data[pos] = old;
        if (!clean(st)) {
            basalt_free(data);
            CHECK_MSG(false, "flip at %zu: %s", pos, basalt_status_name(st));
        }
    }
    basalt_free(data);
}

struct open_ctx {
    const uint8_t *data;
    size_t len;
};

static basalt_status open_attempt(void *ctx)
{
    struct open_ctx *c = ctx;
    struct basalt_parquet_reader *r = NULL;
    basalt_status st = open_memory(c->data, c->len, "sweep.parquet", NULL, &r, NULL);
    if (st == BASALT_OK) {
        struct ArrowSchema s;
        st = basalt_parquet_reader_schema(r, &s, NULL);
        if (st == BASALT_OK)
            basalt_arrow_schema_release(&s);
    }
    basalt_parquet_reader_close(r);
    return st;
}

TEST(reader_open_alloc_sweep)
{
    struct open_ctx c;
    c.data = bt_read_file(corpus("nested_maps.snappy.parquet"), &c.len);
    CHECK(c.data != NULL);
    int64_t n = bt_alloc_failure_sweep(__FILE__, __LINE__, open_attempt, &c);
    basalt_free((void *)(uintptr_t)c.data);
    CHECK(n > 3);
}

/* Every file of the corpus opens, except the ones whose footer is
 * encrypted; nothing crashes on the bad ones. */
TEST(reader_open_corpus)
{
    const char *dirs[] = {"parquet-testing/data", "parquet-testing/bad_data"};
    int opened = 0;
    for (int d = 0; d < 2; d++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", bt_testdata_path(dirs[d]));
        DIR *dh = opendir(dir);
        CHECK(dh != NULL);
        struct dirent *e;
        while ((e = readdir(dh)) != NULL) {
            size_t nlen = strlen(e->d_name);
            bool plain = nlen > 8 && strcmp(e->d_name + nlen - 8, ".parquet") == 0;
            bool enc = nlen > 18 && strcmp(e->d_name + nlen - 18, ".parquet.encrypted") == 0;
            if (!plain && !enc)
                continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct basalt_error err;
            struct basalt_parquet_reader *r = NULL;
            basalt_status st = basalt_parquet_reader_open_file(path, NULL, &r, &err);
            basalt_parquet_reader_close(r);
            bool encrypted_footer = strstr(e->d_name, ".encrypted") &&
                                    !strstr(e->d_name, "plaintext_footer");
            if (d == 0 && !encrypted_footer && st != BASALT_OK) {
                closedir(dh);
                CHECK_MSG(false, "%s: %s %s", e->d_name, basalt_status_name(st), err.message);
            }
            if (encrypted_footer && st != BASALT_UNSUPPORTED) {
                closedir(dh);
                CHECK_MSG(false, "%s: %s, expected UNSUPPORTED", e->d_name,
                          basalt_status_name(st));
            }
            if (!clean(st)) {
                closedir(dh);
                CHECK_MSG(false, "%s: %s", e->d_name, basalt_status_name(st));
            }
            opened += st == BASALT_OK;
        }
        closedir(dh);
    }
    CHECK(opened > 60);
}
