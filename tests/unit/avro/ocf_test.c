/* Object Container Files: reading the corpus, truncation, sync markers,
 * limits, the parallel reader and the writer's round trip. */
#include "avro_ocf.h"
#include "test.h"

static uint8_t *corpus_file(const char *rel, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "avro/%s", rel);
    return bt_read_file(bt_testdata_path(path), len);
}

/* All records of a file as JSON lines (0 on success, the status otherwise). */
static basalt_status dump_file(const uint8_t *data, size_t len, struct basalt_buffer *out,
                               int64_t *records, struct basalt_error *err)
{
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(data, len, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    *records = 0;
    for (;;) {
        struct basalt_avro_value v;
        bool has;
        st = basalt_avro_reader_next_value(r, NULL, &arena, &v, &has, err);
        if (st != BASALT_OK || !has)
            break;
        (*records)++;
        if ((st = basalt_avro_value_to_json(&v, 0, out, err)) != BASALT_OK ||
            (st = basalt_buffer_append(out, "\n", 1, err)) != BASALT_OK)
            break;
        basalt_arena_reset(&arena);
    }
    basalt_arena_reset(&arena);
    basalt_avro_reader_free(r);
    return st;
}

TEST(ocf_weather_every_codec)
{
    size_t jlen;
    uint8_t *json = corpus_file("apache-avro/share/test/data/weather.json", &jlen);
    CHECK(json != NULL);
    static const char *const files[] = {"weather.avro", "weather-deflate.avro",
                                        "weather-snappy.avro", "weather-zstd.avro"};
    static const enum basalt_avro_codec codecs[] = {
        BASALT_AVRO_CODEC_NULL, BASALT_AVRO_CODEC_DEFLATE, BASALT_AVRO_CODEC_SNAPPY,
        BASALT_AVRO_CODEC_ZSTANDARD};
    for (int i = 0; i < 4; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "apache-avro/share/test/data/%s", files[i]);
        size_t len;
        uint8_t *data = corpus_file(rel, &len);
        CHECK_MSG(data != NULL, "%s missing", rel);
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        struct basalt_error err;
        int64_t records;
        basalt_status st = dump_file(data, len, &out, &records, &err);
        bool same = out.size == jlen && memcmp(out.data, json, jlen) == 0;
        struct basalt_avro_reader *r = NULL;
        if (st == BASALT_OK)
            st = basalt_avro_reader_new(data, len, NULL, &r, &err);
        enum basalt_avro_codec codec = r ? basalt_avro_reader_codec(r) : BASALT_AVRO_CODEC_COUNT;
        size_t n = 0;
        const uint8_t *schema = r ? basalt_avro_reader_meta(r, "avro.schema", &n) : NULL;
        bool has_schema = schema && n > 10 && schema[0] == '{';
        basalt_avro_reader_free(r);
        basalt_buffer_reset(&out);
        basalt_free(data);
        CHECK_MSG(st == BASALT_OK, "%s: %s", files[i], err.message);
        CHECK_MSG(same, "%s: records differ from weather.json", files[i]);
        CHECK_EQ(records, 5);
        CHECK_EQ(codec, codecs[i]);
        CHECK(has_schema);
    }
    basalt_free(json);
}

/* The sync marker also appears inside the header metadata; blocks must be
 * found by framing, never by searching for the marker. */
TEST(ocf_sync_marker_in_metadata)
{
    size_t len;
    uint8_t *data = corpus_file("apache-avro/share/test/data/syncInMeta.avro", &len);
    CHECK(data != NULL);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_error err;
    int64_t records;
    basalt_status st = dump_file(data, len, &out, &records, &err);
    basalt_buffer_reset(&out);
    struct basalt_avro_reader *r;
    CHECK_OK(basalt_avro_reader_new(data, len, NULL, &r, &err), &err);
    int64_t count;
    CHECK_OK(basalt_avro_reader_count(r, true, &count, &err), &err);
    basalt_avro_reader_free(r);
    basalt_free(data);
    CHECK_OK(st, &err);
    CHECK_EQ(records, 6001);
    CHECK_EQ(count, 6001);
}

/* Cut anywhere, a file either reads as the blocks before the cut (a cut on a
 * block boundary) or fails with CORRUPT naming a block and an offset. */
TEST(ocf_every_truncation)
{
    static const char *const files[] = {"apache-avro/share/test/data/weather.avro",
                                        "apache-avro/share/test/data/weather-deflate.avro",
                                        "apache-avro/share/test/data/weather-snappy.avro",
                                        "apache-avro/share/test/data/weather-zstd.avro",
                                        "fastavro/test-deflate-1.avro"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        uint8_t *data = corpus_file(files[f], &len);
        CHECK(data != NULL);
        int ok_cuts = 0;
        for (size_t n = 0; n < len; n++) {
            uint8_t *copy = basalt_malloc(n ? n : 1);
            memcpy(copy, data, n);
            struct basalt_buffer out;
            basalt_buffer_init(&out);
            struct basalt_error err;
            basalt_error_init(&err);
            int64_t records = 0;
            basalt_status st = dump_file(copy, n, &out, &records, &err);
            basalt_buffer_reset(&out);
            basalt_free(copy);
            if (st == BASALT_OK) {
                ok_cuts++;
                continue;
            }
            CHECK_MSG(st == BASALT_CORRUPT, "%s cut at %zu: %s", files[f], n,
                      basalt_status_name(st));
            bool in_body = strstr(err.message, "block ") && strstr(err.message, "offset");
            bool in_header = strstr(err.message, "header") || strstr(err.message, "magic");
            CHECK_MSG(in_body || in_header, "%s cut at %zu: message '%s'", files[f], n, err.message);
        }
        basalt_free(data);
        /* only the cut right after the header (no blocks) reads cleanly */
        CHECK_MSG(ok_cuts >= 1, "%s: no clean cut", files[f]);
    }
}

TEST(ocf_bad_sync_marker)
{
    size_t len;
    uint8_t *data = corpus_file("apache-avro/share/test/data/weather.avro", &len);
    CHECK(data != NULL);
    data[len - 3] ^= 0x40;
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_error err;
    int64_t records;
    basalt_status st = dump_file(data, len, &out, &records, &err);
    basalt_buffer_reset(&out);
    struct basalt_avro_reader *r;
    CHECK_OK(basalt_avro_reader_new(data, len, NULL, &r, &err), &err);
    int64_t count;
    basalt_status count_st = basalt_avro_reader_count(r, false, &count, NULL);
    size_t block_offset = r->pos;
    basalt_avro_reader_free(r);
    basalt_free(data);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    char want[128];
    snprintf(want, sizeof want, "block 0 at offset %zu: bad sync marker at offset %zu",
             block_offset, len - 16);
    CHECK_MSG(strstr(err.message, want) != NULL, "message '%s' lacks '%s'", err.message, want);
    CHECK_EQ(count_st, BASALT_CORRUPT);
}

TEST(ocf_header_errors)
{
    struct basalt_avro_reader *r;
    struct basalt_error err;
    CHECK_STATUS(basalt_avro_reader_new((const uint8_t *)"Obj", 3, NULL, &r, &err), BASALT_CORRUPT,
                 &err);
    CHECK_STATUS(basalt_avro_reader_new((const uint8_t *)"PAR1xxxxxxxx", 12, NULL, &r, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "bad magic") != NULL);
    /* a header without avro.schema */
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_buffer_append(&b, "Obj\x01", 4, NULL);
    basalt_avro_put_long(&b, 1, NULL);
    basalt_avro_put_bytes(&b, "k", 1, NULL);
    basalt_avro_put_bytes(&b, "v", 1, NULL);
    basalt_avro_put_long(&b, 0, NULL);
    basalt_buffer_append(&b, "0123456789abcdef", 16, NULL);
    CHECK_STATUS(basalt_avro_reader_new(b.data, b.size, NULL, &r, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "no avro.schema") != NULL);
    /* an unknown codec */
    b.size = 4;
    basalt_avro_put_long(&b, 2, NULL);
    basalt_avro_put_bytes(&b, "avro.schema", 11, NULL);
    basalt_avro_put_bytes(&b, "\"int\"", 5, NULL);
    basalt_avro_put_bytes(&b, "avro.codec", 10, NULL);
    basalt_avro_put_bytes(&b, "lz5", 3, NULL);
    basalt_avro_put_long(&b, 0, NULL);
    basalt_buffer_append(&b, "0123456789abcdef", 16, NULL);
    CHECK_STATUS(basalt_avro_reader_new(b.data, b.size, NULL, &r, &err), BASALT_UNSUPPORTED, &err);
    CHECK(strstr(err.message, "lz5") != NULL);
    /* a metadata count larger than the file */
    b.size = 4;
    basalt_avro_put_long(&b, 1000000, NULL);
    CHECK_STATUS(basalt_avro_reader_new(b.data, b.size, NULL, &r, &err), BASALT_CORRUPT, &err);
    /* a header larger than the limit */
    b.size = 4;
    basalt_avro_put_long(&b, 1, NULL);
    basalt_avro_put_bytes(&b, "avro.schema", 11, NULL);
    basalt_avro_put_bytes(&b, "\"int\"", 5, NULL);
    basalt_avro_put_long(&b, 0, NULL);
    basalt_buffer_append(&b, "0123456789abcdef", 16, NULL);
    struct basalt_avro_reader_options opt;
    basalt_avro_reader_options_init(&opt);
    opt.limits.max_header_bytes = 12;
    CHECK_STATUS(basalt_avro_reader_new(b.data, b.size, &opt, &r, &err), BASALT_LIMIT, &err);
    opt.limits.max_header_bytes = 0;
    CHECK_OK(basalt_avro_reader_new(b.data, b.size, &opt, &r, &err), &err);
    basalt_avro_reader_free(r);
    basalt_buffer_reset(&b);
}

/* ------------------------------------------------------------------ writing */

static const char *manifest_schema =
    "{\"type\":\"record\",\"name\":\"ManifestRow\",\"namespace\":\"basalt.bench\",\"fields\":["
    "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"b\",\"type\":\"long\"},"
    "{\"name\":\"path\",\"type\":\"string\"},{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"opt\",\"type\":[\"null\",\"long\"]}]}";

/* Writes n manifest-shaped rows (row i: a=i, b=i*1000003, path, d=i/4, opt=i
 * when i%3 != 0) with `codec` into `out`. */
static basalt_status write_rows(const struct basalt_avro_schema *s, enum basalt_avro_codec codec,
                                int64_t n, size_t block_bytes, struct basalt_buffer *out,
                                struct basalt_error *err)
{
    struct basalt_avro_writer_options o;
    basalt_avro_writer_options_init(&o);
    o.codec = codec;
    o.block_bytes = block_bytes;
    static const uint8_t sync[16] = "basalt-avro-sync";
    o.sync = sync;
    struct basalt_avro_meta_item meta = {"basalt.test", (const uint8_t *)"yes", 3};
    o.meta = &meta;
    o.meta_count = 1;
    struct basalt_avro_writer *w;
    basalt_status st = basalt_avro_writer_new(s, &o, basalt_avro_write_to_buffer, out, &w, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_avro_node *root = basalt_avro_schema_root(s);
    for (int64_t i = 0; i < n && st == BASALT_OK; i++) {
        char path[64];
        int plen = snprintf(path, sizeof path, "s3://bucket/data/part-%05lld.parquet", (long long)i);
        struct basalt_avro_value f[5], opt;
        memset(f, 0, sizeof f);
        memset(&opt, 0, sizeof opt);
        for (int k = 0; k < 5; k++)
            f[k].node = root->fields[k].type;
        f[0].i = i;
        f[1].i = i * 1000003;
        f[2].bytes.data = (const uint8_t *)path;
        f[2].bytes.size = (size_t)plen;
        f[3].d = (double)i / 4;
        f[4].index = i % 3 != 0;
        opt.node = root->fields[4].type->branches[f[4].index];
        opt.i = i;
        f[4].branch = &opt;
        struct basalt_avro_value rec = {.node = root, .count = 5, .items = f};
        st = basalt_avro_writer_append(w, &rec, err);
    }
    if (st != BASALT_OK) {
        basalt_avro_writer_free(w);
        return st;
    }
    return basalt_avro_writer_close(w, err);
}

struct rows {
    int64_t *a, *b, *opt;
    double *d;
    struct basalt_avro_bytes *path;
    uint8_t *opt_present;
};

static void rows_alloc(struct rows *r, int64_t n)
{
    r->a = basalt_calloc((size_t)n, 8);
    r->b = basalt_calloc((size_t)n, 8);
    r->opt = basalt_calloc((size_t)n, 8);
    r->d = basalt_calloc((size_t)n, 8);
    r->path = basalt_calloc((size_t)n, sizeof *r->path);
    r->opt_present = basalt_calloc((size_t)n, 1);
}

static void rows_free(struct rows *r)
{
    basalt_free(r->a);
    basalt_free(r->b);
    basalt_free(r->opt);
    basalt_free(r->d);
    basalt_free(r->path);
    basalt_free(r->opt_present);
}

static void rows_dests(struct rows *r, struct basalt_avro_dest d[5])
{
    memset(d, 0, sizeof *d * 5);
    d[0].values = r->a;
    d[1].values = r->b;
    d[2].values = r->path;
    d[3].values = r->d;
    d[4].values = r->opt;
    d[4].present = r->opt_present;
}

/* Checks rows [from, n) against what write_rows wrote; returns the first bad
 * row or -1. */
static int64_t rows_check_from(const struct rows *r, int64_t from, int64_t n)
{
    for (int64_t i = from; i < n; i++) {
        char path[64];
        int plen = snprintf(path, sizeof path, "s3://bucket/data/part-%05lld.parquet", (long long)i);
        if (r->a[i] != i || r->b[i] != i * 1000003 || r->d[i] != (double)i / 4 ||
            r->path[i].size != (size_t)plen || memcmp(r->path[i].data, path, (size_t)plen) != 0 ||
            r->opt_present[i] != (i % 3 != 0) || r->opt[i] != (i % 3 != 0 ? i : 0))
            return i;
    }
    return -1;
}

static int64_t rows_check(const struct rows *r, int64_t n) { return rows_check_from(r, 0, n); }

static const struct basalt_avro_column all_columns[5] = {
    {"a", BASALT_AVRO_SLOT_AUTO}, {"b", BASALT_AVRO_SLOT_AUTO}, {"path", BASALT_AVRO_SLOT_AUTO},
    {"d", BASALT_AVRO_SLOT_AUTO}, {"opt", BASALT_AVRO_SLOT_AUTO}};

TEST(ocf_write_read_every_codec)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest_schema, strlen(manifest_schema), NULL, &s, &err),
             &err);
    const int64_t n = 3000;
    for (int codec = 0; codec < BASALT_AVRO_CODEC_COUNT; codec++) {
        struct basalt_buffer file;
        basalt_buffer_init(&file);
        basalt_status st = write_rows(s, (enum basalt_avro_codec)codec, n, 4000, &file, &err);
        CHECK_MSG(st == BASALT_OK, "%s: %s", basalt_avro_codec_name(codec), err.message);
        struct basalt_avro_reader *r;
        CHECK_OK(basalt_avro_reader_new(file.data, file.size, NULL, &r, &err), &err);
        CHECK_EQ(basalt_avro_reader_codec(r), codec);
        size_t mlen;
        const uint8_t *m = basalt_avro_reader_meta(r, "basalt.test", &mlen);
        CHECK(m && mlen == 3 && memcmp(m, "yes", 3) == 0);
        CHECK_MEM(basalt_avro_reader_sync(r), "basalt-avro-sync", 16);
        CHECK_STR(basalt_avro_schema_canonical(basalt_avro_reader_schema(r), NULL),
                  basalt_avro_schema_canonical(s, NULL));
        struct basalt_avro_plan *plan;
        CHECK_OK(basalt_avro_plan_new(basalt_avro_reader_schema(r), NULL, all_columns, 5, &plan, &err),
                 &err);
        struct rows rows;
        rows_alloc(&rows, n);
        int64_t total = 0, blocks = 0, bad = -1;
        while (st == BASALT_OK) {
            struct basalt_avro_dest d[5];
            struct rows at = {rows.a + total, rows.b + total, rows.opt + total, rows.d + total,
                              rows.path + total, rows.opt_present + total};
            rows_dests(&at, d);
            int64_t got;
            st = basalt_avro_reader_read(r, plan, d, n - total, &got, &err);
            if (got == 0)
                break;
            /* Views into a decompressed block last until the next read. */
            if (bad < 0)
                bad = rows_check_from(&rows, total, total + got);
            total += got;
            blocks++;
        }
        rows_free(&rows);
        basalt_avro_plan_free(plan);
        basalt_avro_reader_free(r);
        basalt_buffer_reset(&file);
        CHECK_OK(st, &err);
        CHECK_EQ(total, n);
        CHECK(blocks > 10); /* 4000-byte blocks: reads never cross a block */
        CHECK_MSG(bad < 0, "%s: row %lld differs", basalt_avro_codec_name(codec), (long long)bad);
    }
    basalt_avro_schema_free(s);
}

TEST(ocf_read_all_on_a_pool)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest_schema, strlen(manifest_schema), NULL, &s, &err),
             &err);
    const int64_t n = 20000;
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    for (int codec = 0; codec < 2; codec++) {
        struct basalt_buffer file;
        basalt_buffer_init(&file);
        CHECK_OK(write_rows(s, codec ? BASALT_AVRO_CODEC_DEFLATE : BASALT_AVRO_CODEC_NULL, n, 8000,
                            &file, &err),
                 &err);
        for (int use_pool = 0; use_pool < 2; use_pool++) {
            struct basalt_avro_reader *r;
            CHECK_OK(basalt_avro_reader_new(file.data, file.size, NULL, &r, &err), &err);
            struct basalt_avro_plan *plan;
            CHECK_OK(basalt_avro_plan_new(basalt_avro_reader_schema(r), NULL, all_columns, 5, &plan,
                                          &err),
                     &err);
            struct rows rows;
            rows_alloc(&rows, n);
            struct basalt_avro_dest d[5];
            rows_dests(&rows, d);
            /* Read a few records first, then the rest at once. */
            int64_t first = 0, rest = 0;
            basalt_status st = basalt_avro_reader_read(r, plan, d, 7, &first, &err);
            if (st == BASALT_OK) {
                struct rows at = {rows.a + first, rows.b + first, rows.opt + first,
                                  rows.d + first, rows.path + first, rows.opt_present + first};
                rows_dests(&at, d);
                st = basalt_avro_reader_read_all(r, plan, d, n - first, use_pool ? pool : NULL, &rest,
                                                 &err);
            }
            int64_t bad = rows_check(&rows, n);
            rows_free(&rows);
            basalt_avro_plan_free(plan);
            basalt_avro_reader_free(r);
            CHECK_OK(st, &err);
            CHECK_EQ(first, 7);
            CHECK_EQ(first + rest, n);
            CHECK_MSG(bad < 0, "row %lld differs", (long long)bad);
        }
        /* Too little room: LIMIT. A damaged block: the first one is reported. */
        struct basalt_avro_reader *r;
        CHECK_OK(basalt_avro_reader_new(file.data, file.size, NULL, &r, &err), &err);
        struct basalt_avro_plan *plan;
        CHECK_OK(basalt_avro_plan_new(basalt_avro_reader_schema(r), NULL, all_columns, 5, &plan, &err),
                 &err);
        struct rows rows;
        rows_alloc(&rows, n);
        struct basalt_avro_dest d[5];
        rows_dests(&rows, d);
        int64_t got;
        CHECK_STATUS(basalt_avro_reader_read_all(r, plan, d, n - 1, pool, &got, &err), BASALT_LIMIT,
                     &err);
        basalt_avro_reader_free(r);
        /* Damage the data of two blocks in the middle (a long's varint bytes
         * all set to continue, so decoding fails). */
        struct basalt_avro_reader *scan;
        CHECK_OK(basalt_avro_reader_new(file.data, file.size, NULL, &scan, &err), &err);
        struct avro_frame f5 = {0}, f9 = {0};
        size_t pos = scan->pos;
        for (int b = 0; b <= 9; b++) {
            struct avro_frame f;
            CHECK_OK(basalt_avro_ocf_frame(scan, pos, b, &f, &err), &err);
            if (b == 5)
                f5 = f;
            if (b == 9)
                f9 = f;
            if (b == 5)
                f5.next = pos; /* remember the block's own offset */
            pos = f.next;
        }
        basalt_avro_reader_free(scan);
        if (codec == 0) {
            memset(file.data + f5.data_offset + f5.size / 2, 0xff, 12);
            memset(file.data + f9.data_offset + 3, 0xff, 12);
        } else {
            memset(file.data + f5.data_offset + 2, 0x55, 40);
            memset(file.data + f9.data_offset + 2, 0x55, 40);
        }
        CHECK_OK(basalt_avro_reader_new(file.data, file.size, NULL, &r, &err), &err);
        basalt_status st = basalt_avro_reader_read_all(r, plan, d, n, pool, &got, &err);
        basalt_avro_reader_free(r);
        rows_free(&rows);
        basalt_avro_plan_free(plan);
        basalt_buffer_reset(&file);
        CHECK_STATUS(st, BASALT_CORRUPT, &err);
        char want[64];
        snprintf(want, sizeof want, "block 5 at offset %zu", f5.next);
        CHECK_MSG(strstr(err.message, want) != NULL, "message '%s' lacks '%s'", err.message, want);
    }
    basalt_pool_free(pool);
    basalt_avro_schema_free(s);
}

TEST(ocf_limits)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest_schema, strlen(manifest_schema), NULL, &s, &err),
             &err);
    struct basalt_buffer file;
    basalt_buffer_init(&file);
    CHECK_OK(write_rows(s, BASALT_AVRO_CODEC_DEFLATE, 2000, 1 << 20, &file, &err), &err);
    struct basalt_avro_reader_options opt;
    basalt_avro_reader_options_init(&opt);
    struct {
        struct basalt_avro_limits lim;
        const char *what;
    } cases[] = {{{.max_block_records = 1000}, "records"},
                 {{.max_block_bytes = 50000}, "bytes"}};
    for (int i = 0; i < 2; i++) {
        opt.limits = cases[i].lim;
        struct basalt_avro_reader *r;
        CHECK_OK(basalt_avro_reader_new(file.data, file.size, &opt, &r, &err), &err);
        struct basalt_avro_block b;
        bool has;
        basalt_status st = basalt_avro_reader_next_block(r, &b, &has, &err);
        basalt_avro_reader_free(r);
        CHECK_STATUS(st, BASALT_LIMIT, &err);
        CHECK(strstr(err.message, "block 0") != NULL);
    }
    basalt_buffer_reset(&file);
    basalt_avro_schema_free(s);
}

TEST(ocf_writer_rejects_bad_options)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse("\"int\"", 5, NULL, &s, &err), &err);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_avro_writer_options o;
    basalt_avro_writer_options_init(&o);
    struct basalt_avro_meta_item meta = {"avro.codec", (const uint8_t *)"x", 1};
    o.meta = &meta;
    o.meta_count = 1;
    struct basalt_avro_writer *w;
    CHECK_STATUS(basalt_avro_writer_new(s, &o, basalt_avro_write_to_buffer, &out, &w, &err),
                 BASALT_INVALID_ARG, &err);
    o.meta_count = 0;
    o.codec = BASALT_AVRO_CODEC_COUNT;
    CHECK_STATUS(basalt_avro_writer_new(s, &o, basalt_avro_write_to_buffer, &out, &w, &err),
                 BASALT_INVALID_ARG, &err);
    o.codec = BASALT_AVRO_CODEC_NULL;
    CHECK_OK(basalt_avro_writer_new(s, &o, basalt_avro_write_to_buffer, &out, &w, &err), &err);
    /* Two random sync markers differ. */
    struct basalt_buffer out2;
    basalt_buffer_init(&out2);
    struct basalt_avro_writer *w2;
    CHECK_OK(basalt_avro_writer_new(s, NULL, basalt_avro_write_to_buffer, &out2, &w2, &err), &err);
    CHECK(memcmp(out.data + out.size - 16, out2.data + out2.size - 16, 16) != 0);
    uint8_t datum = 0x54; /* int 42 */
    CHECK_OK(basalt_avro_writer_append_encoded(w, &datum, 1, &err), &err);
    CHECK_OK(basalt_avro_writer_close(w, &err), &err);
    basalt_avro_writer_free(w2);
    struct basalt_avro_reader *r;
    CHECK_OK(basalt_avro_reader_new(out.data, out.size, NULL, &r, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 256);
    struct basalt_avro_value v;
    bool has;
    CHECK_OK(basalt_avro_reader_next_value(r, NULL, &arena, &v, &has, &err), &err);
    CHECK(has);
    CHECK_EQ(v.i, 42);
    CHECK_OK(basalt_avro_reader_next_value(r, NULL, &arena, &v, &has, &err), &err);
    CHECK(!has);
    basalt_arena_reset(&arena);
    basalt_avro_reader_free(r);
    basalt_buffer_reset(&out);
    basalt_buffer_reset(&out2);
    basalt_avro_schema_free(s);
}

struct write_sweep {
    struct basalt_avro_schema *schema;
};

static basalt_status write_read_attempt(void *p)
{
    struct write_sweep *c = p;
    struct basalt_buffer file;
    basalt_buffer_init(&file);
    basalt_status st = write_rows(c->schema, BASALT_AVRO_CODEC_DEFLATE, 50, 500, &file, NULL);
    struct basalt_avro_reader *r = NULL;
    if (st == BASALT_OK)
        st = basalt_avro_reader_new(file.data, file.size, NULL, &r, NULL);
    struct basalt_avro_plan *plan = NULL;
    if (st == BASALT_OK)
        st = basalt_avro_plan_new(basalt_avro_reader_schema(r), NULL, all_columns, 5, &plan, NULL);
    if (st == BASALT_OK) {
        struct rows rows;
        rows_alloc(&rows, 50);
        if (!rows.a || !rows.b || !rows.opt || !rows.d || !rows.path || !rows.opt_present) {
            st = BASALT_NOMEM;
        } else {
            struct basalt_avro_dest d[5];
            rows_dests(&rows, d);
            int64_t got;
            st = basalt_avro_reader_read_all(r, plan, d, 50, NULL, &got, NULL);
        }
        rows_free(&rows);
    }
    basalt_avro_plan_free(plan);
    basalt_avro_reader_free(r);
    basalt_buffer_reset(&file);
    return st;
}

TEST(ocf_allocation_failures)
{
    struct write_sweep c;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest_schema, strlen(manifest_schema), NULL, &c.schema,
                                      &err),
             &err);
    CHECK_OK(write_read_attempt(&c), NULL);
    CHECK_ALLOC_SWEEP(write_read_attempt, &c);
    basalt_avro_schema_free(c.schema);
}

/* A block far larger than its compressed size: the reader's room for it
 * grows until the block fits, for every codec. */
TEST(ocf_large_blocks_every_codec)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest_schema, strlen(manifest_schema), NULL, &s, &err),
             &err);
    const int64_t n = 30000;
    for (int codec = 0; codec < BASALT_AVRO_CODEC_COUNT; codec++) {
        struct basalt_buffer file;
        basalt_buffer_init(&file);
        CHECK_OK(write_rows(s, (enum basalt_avro_codec)codec, n, 64 << 20, &file, &err), &err);
        struct basalt_avro_reader *r;
        CHECK_OK(basalt_avro_reader_new(file.data, file.size, NULL, &r, &err), &err);
        struct basalt_avro_plan *plan;
        CHECK_OK(basalt_avro_plan_new(basalt_avro_reader_schema(r), NULL, all_columns, 5, &plan, &err),
                 &err);
        struct rows rows;
        rows_alloc(&rows, n);
        struct basalt_avro_dest d[5];
        rows_dests(&rows, d);
        int64_t got = 0;
        basalt_status st = basalt_avro_reader_read(r, plan, d, n, &got, &err);
        int64_t bad = rows_check(&rows, n);
        size_t compressed = file.size;
        rows_free(&rows);
        basalt_avro_plan_free(plan);
        basalt_avro_reader_free(r);
        basalt_buffer_reset(&file);
        CHECK_OK(st, &err);
        CHECK_EQ(got, n); /* one block */
        CHECK_MSG(bad < 0, "%s: row %lld", basalt_avro_codec_name(codec), (long long)bad);
        if (codec != BASALT_AVRO_CODEC_NULL)
            CHECK(compressed < 600000);
    }
    basalt_avro_schema_free(s);
}

/* A container file read as another schema: fields dropped, added with a
 * default, promoted. */
TEST(ocf_read_with_a_reader_schema)
{
    size_t len;
    uint8_t *data = corpus_file("apache-avro/share/test/data/weather-deflate.avro", &len);
    CHECK(data != NULL);
    const char *reader_json =
        "{\"type\":\"record\",\"name\":\"Weather\",\"namespace\":\"test\",\"fields\":["
        "{\"name\":\"temp\",\"type\":\"double\"},{\"name\":\"time\",\"type\":\"long\"},"
        "{\"name\":\"source\",\"type\":\"string\",\"default\":\"noaa\"}]}";
    struct basalt_avro_schema *reader;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(reader_json, strlen(reader_json), NULL, &reader, &err), &err);
    struct basalt_avro_reader *r;
    CHECK_OK(basalt_avro_reader_new(data, len, NULL, &r, &err), &err);
    struct basalt_avro_resolution *res;
    CHECK_OK(basalt_avro_resolution_new(basalt_avro_reader_schema(r), reader, &res, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    for (;;) {
        struct basalt_avro_value v;
        bool has;
        CHECK_OK(basalt_avro_reader_next_value(r, res, &arena, &v, &has, &err), &err);
        if (!has)
            break;
        CHECK_OK(basalt_avro_value_to_json(&v, 0, &out, &err), &err);
        basalt_buffer_append(&out, "\n", 1, NULL);
    }
    basalt_buffer_append(&out, "", 1, NULL);
    CHECK_STR((const char *)out.data,
              "{\"temp\":0.0,\"time\":-619524000000,\"source\":\"noaa\"}\n"
              "{\"temp\":22.0,\"time\":-619506000000,\"source\":\"noaa\"}\n"
              "{\"temp\":-11.0,\"time\":-619484400000,\"source\":\"noaa\"}\n"
              "{\"temp\":111.0,\"time\":-655531200000,\"source\":\"noaa\"}\n"
              "{\"temp\":78.0,\"time\":-655509600000,\"source\":\"noaa\"}\n");
    basalt_buffer_reset(&out);
    basalt_arena_reset(&arena);
    basalt_avro_resolution_free(res);
    basalt_avro_reader_free(r);
    basalt_avro_schema_free(reader);
    basalt_free(data);
}
