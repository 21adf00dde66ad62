/* Names, levels, argument checks and size bounds of the codec API. */
#include "codec_internal.h"
#include "codec_test_util.h"

TEST(codec_names_are_fixed)
{
    static const char *const expect[BASALT_CODEC_COUNT] = {
        "uncompressed", "snappy",     "gzip",   "zlib",  "deflate", "zstd",
        "lz4_raw",      "lz4_hadoop", "brotli", "bzip2", "xz",      "lz4_frame",
    };
    for (int k = 0; k < BASALT_CODEC_COUNT; k++)
        CHECK_STR(basalt_codec_name(ct_kind(k)), expect[k]);
    CHECK_STR(basalt_codec_name(ct_kind(BASALT_CODEC_COUNT)), "unknown");
    CHECK_STR(basalt_codec_name(ct_kind(-1)), "unknown");
}

TEST(codec_parse_name_accepts_names_and_aliases)
{
    struct basalt_error err;
    enum basalt_codec_kind kind;
    for (int k = 0; k < BASALT_CODEC_COUNT; k++) {
        CHECK_OK(basalt_codec_parse_name(basalt_codec_name(ct_kind(k)), &kind, &err), &err);
        CHECK_EQ(kind, k);
    }
    static const struct {
        const char *name;
        enum basalt_codec_kind kind;
    } cases[] = {
        {"NONE", BASALT_CODEC_UNCOMPRESSED}, {"Uncompressed", BASALT_CODEC_UNCOMPRESSED},
        {"gz", BASALT_CODEC_GZIP},           {"GZIP", BASALT_CODEC_GZIP},
        {"lz4", BASALT_CODEC_LZ4_HADOOP},    {"LZ4_RAW", BASALT_CODEC_LZ4_RAW},
        {"zstandard", BASALT_CODEC_ZSTD},    {"ZSTD", BASALT_CODEC_ZSTD},
        {"Snappy", BASALT_CODEC_SNAPPY},     {"XZ", BASALT_CODEC_XZ},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_OK(basalt_codec_parse_name(cases[i].name, &kind, &err), &err);
        CHECK_EQ(kind, cases[i].kind);
    }
    CHECK_STATUS(basalt_codec_parse_name("lzo", &kind, &err), BASALT_NOT_FOUND, &err);
    CHECK(strstr(err.message, "lzo") != NULL);
    CHECK_STATUS(basalt_codec_parse_name("", &kind, &err), BASALT_NOT_FOUND, &err);
    CHECK_STATUS(basalt_codec_parse_name("gzipx", &kind, &err), BASALT_NOT_FOUND, &err);
    CHECK_STATUS(basalt_codec_parse_name(NULL, &kind, NULL), BASALT_INVALID_ARG, NULL);
}

TEST(codec_new_checks_kind_and_level)
{
    struct basalt_error err;
    struct basalt_codec *c = (struct basalt_codec *)&err; /* must be reset to NULL */
    CHECK_STATUS(basalt_codec_new(ct_kind(BASALT_CODEC_COUNT), 0, &c, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK(c == NULL);
    CHECK_STATUS(basalt_codec_new(ct_kind(-3), 0, &c, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_codec_new(BASALT_CODEC_ZSTD, 0, NULL, &err), BASALT_INVALID_ARG, &err);

    static const struct {
        enum basalt_codec_kind kind;
        int lo, hi;
    } ranges[] = {
        {BASALT_CODEC_GZIP, 0, 12},   {BASALT_CODEC_ZLIB, 0, 12}, {BASALT_CODEC_DEFLATE, 0, 12},
        {BASALT_CODEC_BROTLI, 0, 11}, {BASALT_CODEC_BZIP2, 1, 9}, {BASALT_CODEC_XZ, 0, 9},
        {BASALT_CODEC_ZSTD, -131072, 22},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        const char *name = basalt_codec_name(ranges[i].kind);
        CHECK_STATUS(basalt_codec_new(ranges[i].kind, ranges[i].lo - 1, &c, &err),
                     BASALT_INVALID_ARG, &err);
        CHECK_MSG(strstr(err.message, name) != NULL, "message '%s' names no codec", err.message);
        CHECK_STATUS(basalt_codec_new(ranges[i].kind, ranges[i].hi + 1, &c, &err),
                     BASALT_INVALID_ARG, &err);
        CHECK(c == NULL);
        for (int level = ranges[i].lo; level <= ranges[i].hi;
             level += ranges[i].hi - ranges[i].lo) {
            CHECK_OK(basalt_codec_new(ranges[i].kind, level, &c, &err), &err);
            CHECK_EQ(c->level, level);
            basalt_codec_free(c);
        }
        CHECK_OK(basalt_codec_new(ranges[i].kind, BASALT_CODEC_LEVEL_DEFAULT, &c, &err), &err);
        CHECK(c->level != BASALT_CODEC_LEVEL_DEFAULT);
        basalt_codec_free(c);
    }
    /* Codecs without levels ignore the argument. */
    CHECK_OK(basalt_codec_new(BASALT_CODEC_SNAPPY, 12345, &c, &err), &err);
    CHECK_EQ(basalt_codec_kind_of(c), BASALT_CODEC_SNAPPY);
    basalt_codec_free(c);
    basalt_codec_free(NULL);
}

TEST(codec_default_levels)
{
    static const struct {
        enum basalt_codec_kind kind;
        int level;
    } defaults[] = {
        {BASALT_CODEC_GZIP, 6}, {BASALT_CODEC_ZSTD, 3}, {BASALT_CODEC_BROTLI, 8},
        {BASALT_CODEC_BZIP2, 9}, {BASALT_CODEC_XZ, 6},
    };
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        struct basalt_codec *c;
        CHECK_OK(basalt_codec_new(defaults[i].kind, BASALT_CODEC_LEVEL_DEFAULT, &c, NULL), NULL);
        CHECK_EQ(c->level, defaults[i].level);
        basalt_codec_free(c);
    }
}

TEST(codec_null_arguments_are_invalid)
{
    struct basalt_codec *c;
    struct basalt_error err;
    CHECK_OK(basalt_codec_new(BASALT_CODEC_ZSTD, BASALT_CODEC_LEVEL_DEFAULT, &c, &err), &err);
    uint8_t buf[64];
    size_t n;
    CHECK_STATUS(basalt_codec_compress(c, NULL, 4, buf, sizeof buf, &n, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK_STATUS(basalt_codec_compress(c, buf, 4, NULL, 4, &n, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_codec_compress(c, buf, 4, buf, sizeof buf, NULL, &err),
                 BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_codec_compress(NULL, buf, 4, buf, sizeof buf, &n, &err),
                 BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_codec_decompress(c, NULL, 4, buf, sizeof buf, &n, &err),
                 BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_codec_decompress_grow(c, buf, 4, NULL, 100, &err), BASALT_INVALID_ARG,
                 &err);
    /* Empty ranges may be NULL. */
    CHECK_OK(basalt_codec_compress(c, NULL, 0, buf, sizeof buf, &n, &err), &err);
    basalt_codec_free(c);
}

TEST(codec_empty_input_is_corrupt_except_uncompressed)
{
    for (int k = 0; k < BASALT_CODEC_COUNT; k++) {
        struct basalt_codec *c;
        struct basalt_error err;
        CHECK_OK(basalt_codec_new(ct_kind(k), BASALT_CODEC_LEVEL_DEFAULT, &c, &err), &err);
        uint8_t dst[8];
        size_t n = 99;
        basalt_status want = k == BASALT_CODEC_UNCOMPRESSED ? BASALT_OK : BASALT_CORRUPT;
        basalt_status st = basalt_codec_decompress(c, NULL, 0, dst, sizeof dst, &n, &err);
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        basalt_status st2 = basalt_codec_decompress_grow(c, NULL, 0, &out, 100, &err);
        basalt_buffer_reset(&out);
        basalt_codec_free(c);
        CHECK_MSG(st == want && st2 == want, "%s: empty input gave %s/%s",
                  basalt_codec_name(ct_kind(k)), basalt_status_name(st), basalt_status_name(st2));
        if (want == BASALT_OK)
            CHECK_EQ(n, 0);
    }
}

/* Bounds are checked against the libraries' documented formulas. */
TEST(codec_max_compressed_size_formulas)
{
    struct basalt_codec *c[BASALT_CODEC_COUNT];
    for (int k = 0; k < BASALT_CODEC_COUNT; k++)
        CHECK_OK(basalt_codec_new(ct_kind(k), BASALT_CODEC_LEVEL_DEFAULT, &c[k], NULL), NULL);
    const size_t sizes[] = {0, 1, 100, 65536, 261100, 261101, 1000000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        CHECK_UEQ(basalt_codec_max_compressed_size(c[BASALT_CODEC_UNCOMPRESSED], n), n);
        /* snappy: 32 + n + n / 6 (snappy.cc MaxCompressedLength) */
        CHECK_UEQ(basalt_codec_max_compressed_size(c[BASALT_CODEC_SNAPPY], n), 32 + n + n / 6);
        /* LZ4_COMPRESSBOUND: n + n / 255 + 16 */
        CHECK_UEQ(basalt_codec_max_compressed_size(c[BASALT_CODEC_LZ4_RAW], n), n + n / 255 + 16);
        /* Hadoop: 8 header bytes per block of at most 261100 bytes. */
        size_t blocks = n == 0 ? 1 : (n + 261099) / 261100, expect = 0, left = n;
        for (size_t b = 0; b < blocks; b++) {
            size_t chunk = left > 261100 ? 261100 : left;
            expect += 8 + chunk + chunk / 255 + 16;
            left -= chunk;
        }
        CHECK_UEQ(basalt_codec_max_compressed_size(c[BASALT_CODEC_LZ4_HADOOP], n), expect);
        /* bzip2 manual: 1% + 600 */
        CHECK_UEQ(basalt_codec_max_compressed_size(c[BASALT_CODEC_BZIP2], n), n + n / 100 + 600);
        /* ZSTD_COMPRESSBOUND */
        size_t zb = n + (n >> 8) + (n < (128 << 10) ? ((128 << 10) - n) >> 11 : 0);
        CHECK_UEQ(basalt_codec_max_compressed_size(c[BASALT_CODEC_ZSTD], n), zb);
        for (int k = 0; k < BASALT_CODEC_COUNT; k++)
            CHECK(basalt_codec_max_compressed_size(c[k], n) >= n);
    }
    for (int k = 0; k < BASALT_CODEC_COUNT; k++)
        basalt_codec_free(c[k]);
}
