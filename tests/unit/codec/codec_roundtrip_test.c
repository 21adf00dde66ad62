/* Round trips through every codec at several levels, over random sizes up to
 * 1 MiB of text-like, random and run-heavy data, with the exact-size, the
 * growing and the too-small paths. */
#include <stdlib.h>

#include "codec_internal.h"
#include "codec_test_util.h"

struct level_case {
    enum basalt_codec_kind kind;
    int level;
    size_t max_size; /* slow levels get smaller inputs */
};

static const struct level_case level_cases[] = {
    {BASALT_CODEC_UNCOMPRESSED, 0, 1 << 20},
    {BASALT_CODEC_SNAPPY, 0, 1 << 20},
    {BASALT_CODEC_GZIP, 0, 1 << 20},
    {BASALT_CODEC_GZIP, 1, 1 << 20},
    {BASALT_CODEC_GZIP, 6, 1 << 20},
    {BASALT_CODEC_GZIP, 12, 256 << 10},
    {BASALT_CODEC_ZLIB, 1, 1 << 20},
    {BASALT_CODEC_ZLIB, 9, 1 << 20},
    {BASALT_CODEC_DEFLATE, 1, 1 << 20},
    {BASALT_CODEC_DEFLATE, 6, 1 << 20},
    {BASALT_CODEC_DEFLATE, 12, 256 << 10},
    {BASALT_CODEC_ZSTD, -5, 1 << 20},
    {BASALT_CODEC_ZSTD, 1, 1 << 20},
    {BASALT_CODEC_ZSTD, 3, 1 << 20},
    {BASALT_CODEC_ZSTD, 19, 128 << 10},
    {BASALT_CODEC_LZ4_RAW, 0, 1 << 20},
    {BASALT_CODEC_LZ4_HADOOP, 0, 1 << 20},
    {BASALT_CODEC_BROTLI, 0, 1 << 20},
    {BASALT_CODEC_BROTLI, 5, 1 << 20},
    {BASALT_CODEC_BROTLI, 11, 64 << 10},
    {BASALT_CODEC_BZIP2, 1, 1 << 20},
    {BASALT_CODEC_BZIP2, 9, 1 << 20},
    {BASALT_CODEC_XZ, 0, 1 << 20},
    {BASALT_CODEC_XZ, 6, 256 << 10},
};

/* One input through one codec object: compress into the bound and into less
 * than it needs, decompress exactly, one byte short, and growing. */
static void round_trip(struct basalt_codec *c, const uint8_t *src, size_t n, const char *what)
{
    struct basalt_error err;
    const char *name = basalt_codec_name(basalt_codec_kind_of(c));
    size_t bound = basalt_codec_max_compressed_size(c, n);
    uint8_t *comp = malloc(bound + 1);
    uint8_t *back = malloc(n + 1);
    CHECK(comp && back);
    size_t clen = 0, dlen = 0;
    basalt_status st = basalt_codec_compress(c, src, n, comp, bound, &clen, &err);
    CHECK_MSG(st == BASALT_OK, "%s %s n=%zu: compress into the bound: %s", name, what, n,
              err.message);
    CHECK(clen <= bound);
    if (clen > 0) {
        size_t junk;
        st = basalt_codec_compress(c, src, n, comp, clen - 1, &junk, &err);
        CHECK_MSG(st == BASALT_LIMIT, "%s %s n=%zu: compress one byte short gave %s", name, what,
                  n, basalt_status_name(st));
        /* The failed attempt may have scribbled over comp: compress again. */
        CHECK_OK(basalt_codec_compress(c, src, n, comp, bound, &clen, &err), &err);
    }

    st = basalt_codec_decompress(c, comp, clen, back, n, &dlen, &err);
    CHECK_MSG(st == BASALT_OK, "%s %s n=%zu: decompress: %s", name, what, n, err.message);
    CHECK_EQ(dlen, n);
    if (n)
        CHECK_MEM(back, src, n);
    if (n > 0) {
        st = basalt_codec_decompress(c, comp, clen, back, n - 1, &dlen, &err);
        CHECK_MSG(st == BASALT_LIMIT, "%s %s n=%zu: one byte short gave %s (%s)", name, what, n,
                  basalt_status_name(st), err.message);
    }

    struct basalt_buffer out;
    basalt_buffer_init(&out);
    CHECK_OK(basalt_buffer_append(&out, "prefix", 6, &err), &err);
    st = basalt_codec_decompress_grow(c, comp, clen, &out, 6 + n, &err);
    CHECK_MSG(st == BASALT_OK, "%s %s n=%zu: decompress_grow: %s", name, what, n, err.message);
    CHECK_EQ(out.size, 6 + n);
    CHECK_MEM(out.data, "prefix", 6);
    if (n)
        CHECK_MEM(out.data + 6, src, n);
    if (n > 0) {
        out.size = 6;
        st = basalt_codec_decompress_grow(c, comp, clen, &out, 6 + n - 1, &err);
        CHECK_MSG(st == BASALT_LIMIT, "%s %s n=%zu: grow one byte short gave %s", name, what, n,
                  basalt_status_name(st));
        CHECK_EQ(out.size, 6);
    }
    basalt_buffer_reset(&out);
    free(comp);
    free(back);
}

TEST(codec_round_trips_every_codec_and_level)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 0xC0DEC);
    size_t cap = 1 << 20;
    uint8_t *src = malloc(cap);
    CHECK(src != NULL);
    int64_t failed_before = bt_failed();
    for (size_t i = 0; i < sizeof level_cases / sizeof level_cases[0]; i++) {
        const struct level_case *lc = &level_cases[i];
        struct basalt_codec *c;
        CHECK_OK(basalt_codec_new(lc->kind, lc->level, &c, NULL), NULL);
        /* Fixed sizes at the edges, then random ones. */
        size_t fixed[] = {0, 1, 2, 7, 64, 4096, 65536 + 3, lc->max_size};
        for (int j = 0; j < 14 && bt_failed() == failed_before; j++) {
            int data = j % 3;
            size_t n = j < 8 ? fixed[j] : ct_size(&rng, lc->max_size);
            if (data == 1 && n > (256u << 10) && lc->kind == BASALT_CODEC_BROTLI)
                n = 256u << 10;
            ct_fill(&rng, data, src, n);
            char what[64];
            snprintf(what, sizeof what, "level %d data %d", lc->level, data);
            round_trip(c, src, n, what);
        }
        basalt_codec_free(c);
    }
    free(src);
}

/* Hadoop framing for large inputs: blocks of at most 261100 bytes, each with
 * its sizes, checked by hand and decoded block by block with liblz4. */
#include <lz4.h>

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

TEST(codec_lz4_hadoop_writes_blocks_like_hadoop)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 77);
    size_t n = 700000;
    uint8_t *src = malloc(n), *back = malloc(n);
    struct basalt_codec *c;
    CHECK_OK(basalt_codec_new(BASALT_CODEC_LZ4_HADOOP, 0, &c, NULL), NULL);
    size_t bound = basalt_codec_max_compressed_size(c, n), clen;
    uint8_t *comp = malloc(bound);
    ct_fill(&rng, 0, src, n);
    CHECK_OK(basalt_codec_compress(c, src, n, comp, bound, &clen, NULL), NULL);
    basalt_codec_free(c);
    size_t ip = 0, op = 0;
    int blocks = 0;
    while (ip < clen) {
        CHECK(clen - ip >= 8);
        uint32_t usize = be32(comp + ip), csize = be32(comp + ip + 4);
        ip += 8;
        CHECK(usize <= 261100);
        CHECK(csize <= clen - ip);
        int r = LZ4_decompress_safe((const char *)comp + ip, (char *)back + op, (int)csize,
                                    (int)(n - op));
        CHECK_EQ(r, usize);
        ip += csize;
        op += usize;
        blocks++;
    }
    CHECK_EQ(blocks, 3); /* 261100 + 261100 + 177800 */
    CHECK_EQ(op, n);
    CHECK_MEM(back, src, n);
    free(src);
    free(back);
    free(comp);
}

/* Uncompressed is a copy in both directions. */
TEST(codec_uncompressed_copies)
{
    struct basalt_codec *c;
    CHECK_OK(basalt_codec_new(BASALT_CODEC_UNCOMPRESSED, 0, &c, NULL), NULL);
    uint8_t out[8];
    size_t n;
    CHECK_OK(basalt_codec_compress(c, "abcdef", 6, out, sizeof out, &n, NULL), NULL);
    CHECK_EQ(n, 6);
    CHECK_MEM(out, "abcdef", 6);
    CHECK_STATUS(basalt_codec_decompress(c, "abcdef", 6, out, 5, &n, NULL), BASALT_LIMIT, NULL);
    basalt_codec_free(c);
}
