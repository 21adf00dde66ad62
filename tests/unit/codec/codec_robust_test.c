/* Hostile and unlucky inputs: truncation, bit flips, garbage, forged sizes,
 * output limits, allocation failures, and context reuse. */
#include <stdlib.h>

#include <lz4frame.h>
#include <zstd.h>

#include "codec_internal.h"
#include "codec_test_util.h"

/* Codecs whose streams carry a checksum over the data: a decode that
 * succeeds after damage must still give the original bytes. */
static bool checksummed(enum basalt_codec_kind k)
{
    return k == BASALT_CODEC_GZIP || k == BASALT_CODEC_ZLIB || k == BASALT_CODEC_BZIP2 ||
           k == BASALT_CODEC_XZ;
}

/* Bare LZ4 blocks have no end marker: a prefix that stops after a
 * sequence's literals is itself a valid block. */
static bool prefix_may_be_valid(enum basalt_codec_kind k)
{
    return k == BASALT_CODEC_LZ4_RAW || k == BASALT_CODEC_LZ4_HADOOP;
}

static bool names_codec(const struct basalt_error *err, enum basalt_codec_kind k)
{
    const char *name = basalt_codec_name(k);
    return strncmp(err->message, name, strlen(name)) == 0;
}

static struct basalt_codec *make(enum basalt_codec_kind k)
{
    struct basalt_codec *c = NULL;
    if (basalt_codec_new(k, BASALT_CODEC_LEVEL_DEFAULT, &c, NULL) != BASALT_OK)
        return NULL;
    return c;
}

/* Compresses `n` bytes of words with codec `c` into a malloc'd buffer. */
static uint8_t *compress_sample(struct basalt_codec *c, const uint8_t *src, size_t n, size_t *len)
{
    size_t bound = basalt_codec_max_compressed_size(c, n);
    uint8_t *p = malloc(bound);
    if (basalt_codec_compress(c, src, n, p, bound, len, NULL) != BASALT_OK) {
        free(p);
        return NULL;
    }
    return p;
}

TEST(codec_truncated_input_is_rejected)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 5);
    uint8_t src[3000], out[3000];
    ct_fill(&rng, 0, src, sizeof src);
    for (int k = 1; k < BASALT_CODEC_COUNT; k++) {
        struct basalt_codec *c = make(ct_kind(k));
        CHECK(c != NULL);
        size_t clen;
        uint8_t *comp = compress_sample(c, src, sizeof src, &clen);
        CHECK(comp != NULL);
        for (size_t cut = 1; cut < clen; cut++) {
            struct basalt_error err;
            size_t n = 0;
            basalt_status st = basalt_codec_decompress(c, comp, cut, out, sizeof out, &n, &err);
            if (st == BASALT_OK) {
                CHECK_MSG(prefix_may_be_valid(ct_kind(k)), "%s: %zu of %zu bytes decoded",
                          basalt_codec_name(ct_kind(k)), cut, clen);
                CHECK(n <= sizeof out);
                continue;
            }
            CHECK_MSG(st == BASALT_CORRUPT || st == BASALT_LIMIT, "%s cut %zu: %s",
                      basalt_codec_name(ct_kind(k)), cut, basalt_status_name(st));
            CHECK_MSG(names_codec(&err, ct_kind(k)), "message '%s'", err.message);
            struct basalt_buffer buf;
            basalt_buffer_init(&buf);
            st = basalt_codec_decompress_grow(c, comp, cut, &buf, 1 << 20, &err);
            basalt_buffer_reset(&buf);
            CHECK_MSG(st == BASALT_CORRUPT || st == BASALT_LIMIT || prefix_may_be_valid(ct_kind(k)),
                      "%s cut %zu (grow): %s", basalt_codec_name(ct_kind(k)), cut,
                      basalt_status_name(st));
        }
        free(comp);
        basalt_codec_free(c);
    }
}

TEST(codec_bit_flips_never_crash_or_lie)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 6);
    uint8_t src[2000], out[2100];
    ct_fill(&rng, 0, src, sizeof src);
    for (int k = 1; k < BASALT_CODEC_COUNT; k++) {
        struct basalt_codec *c = make(ct_kind(k));
        size_t clen;
        uint8_t *comp = compress_sample(c, src, sizeof src, &clen);
        CHECK(comp != NULL);
        for (int t = 0; t < 300; t++) {
            size_t bit = bt_rng_below(&rng, clen * 8);
            comp[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            struct basalt_error err;
            size_t n = 0;
            basalt_status st = basalt_codec_decompress(c, comp, clen, out, sizeof out, &n, &err);
            struct basalt_buffer buf;
            basalt_buffer_init(&buf);
            basalt_status st2 = basalt_codec_decompress_grow(c, comp, clen, &buf, 1 << 20, &err);
            bool grow_same = st2 != BASALT_OK || st != BASALT_OK ||
                             (buf.size == n && memcmp(buf.data, out, n) == 0);
            basalt_buffer_reset(&buf);
            comp[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT ||
                          st == BASALT_UNSUPPORTED,
                      "%s bit %zu: %s", basalt_codec_name(ct_kind(k)), bit,
                      basalt_status_name(st));
            CHECK_MSG(grow_same, "%s bit %zu: grow and decompress disagree",
                      basalt_codec_name(ct_kind(k)), bit);
            if (st == BASALT_OK && checksummed(ct_kind(k)))
                CHECK_MSG(n == sizeof src && memcmp(out, src, n) == 0,
                          "%s bit %zu: damaged stream decoded to other data",
                          basalt_codec_name(ct_kind(k)), bit);
        }
        free(comp);
        basalt_codec_free(c);
    }
}

/* Flipping any bit of a gzip or zlib trailer must be caught. */
TEST(codec_checksum_trailers_are_verified)
{
    uint8_t src[500], out[600];
    struct bt_rng rng;
    bt_rng_seed(&rng, 8);
    ct_fill(&rng, 0, src, sizeof src);
    const enum basalt_codec_kind kinds[] = {BASALT_CODEC_GZIP, BASALT_CODEC_ZLIB};
    const size_t trailer[] = {8, 4};
    for (int i = 0; i < 2; i++) {
        struct basalt_codec *c = make(kinds[i]);
        size_t clen;
        uint8_t *comp = compress_sample(c, src, sizeof src, &clen);
        CHECK(comp != NULL);
        for (size_t bit = 0; bit < trailer[i] * 8; bit++) {
            size_t at = clen - trailer[i] + bit / 8;
            comp[at] ^= (uint8_t)(1u << (bit % 8));
            size_t n;
            struct basalt_error err;
            basalt_status st = basalt_codec_decompress(c, comp, clen, out, sizeof out, &n, &err);
            comp[at] ^= (uint8_t)(1u << (bit % 8));
            /* A larger ISIZE cannot be met by the data: CORRUPT or LIMIT. */
            CHECK_MSG(st == BASALT_CORRUPT || st == BASALT_LIMIT, "%s trailer bit %zu: %s",
                      basalt_codec_name(kinds[i]), bit, basalt_status_name(st));
        }
        free(comp);
        basalt_codec_free(c);
    }
}

TEST(codec_garbage_is_corrupt)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    uint8_t in[2048], out[8192];
    /* Magic numbers, so garbage also reaches past the first check. */
    static const uint8_t magics[][4] = {
        {0x1f, 0x8b, 0x08, 0x00}, {0x78, 0x9c, 0, 0},       {0x28, 0xb5, 0x2f, 0xfd},
        {0xfd, '7', 'z', 'X'},     {'B', 'Z', 'h', '9'},     {0x04, 0x22, 0x4d, 0x18},
    };
    for (int k = 1; k < BASALT_CODEC_COUNT; k++) {
        struct basalt_codec *c = make(ct_kind(k));
        int ok = 0;
        for (int t = 0; t < 300; t++) {
            size_t len = 1 + bt_rng_below(&rng, sizeof in);
            bt_rng_fill(&rng, in, len);
            if (t % 2 && len >= 4)
                memcpy(in, magics[t / 2 % 6], 4);
            struct basalt_error err;
            size_t n = 0;
            basalt_status st = basalt_codec_decompress(c, in, len, out, sizeof out, &n, &err);
            struct basalt_buffer buf;
            basalt_buffer_init(&buf);
            basalt_status st2 = basalt_codec_decompress_grow(c, in, len, &buf, 1 << 16, &err);
            basalt_buffer_reset(&buf);
            CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT ||
                          st == BASALT_UNSUPPORTED,
                      "%s: %s", basalt_codec_name(ct_kind(k)), basalt_status_name(st));
            CHECK_MSG(st2 == BASALT_OK || st2 == BASALT_CORRUPT || st2 == BASALT_LIMIT ||
                          st2 == BASALT_UNSUPPORTED,
                      "%s (grow): %s", basalt_codec_name(ct_kind(k)), basalt_status_name(st2));
            if (st == BASALT_OK)
                ok++;
            else
                CHECK_MSG(names_codec(&err, ct_kind(k)), "message '%s'", err.message);
        }
        /* Random bytes are almost never a valid stream. */
        CHECK_MSG(ok <= 3, "%s decoded %d of 300 garbage inputs", basalt_codec_name(ct_kind(k)),
                  ok);
        basalt_codec_free(c);
    }
}

/* Sizes an input states cheaply are not allocated on its word. */
TEST(codec_forged_sizes_do_not_allocate)
{
    struct basalt_error err;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    /* zstd frame header claiming 100 MiB, single segment, then one tiny
     * raw block: the data cannot back the claim. */
    uint8_t zstd_frame[] = {0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0x40, 0x06,
                            0x19, 0,    0,    'a',  'b',  'c'};
    struct basalt_codec *c = make(BASALT_CODEC_ZSTD);
    basalt_status st =
        basalt_codec_decompress_grow(c, zstd_frame, sizeof zstd_frame, &buf, 1u << 30, &err);
    CHECK_MSG(st == BASALT_CORRUPT, "zstd forged size gave %s", basalt_status_name(st));
    CHECK(buf.capacity < (16u << 20));
    basalt_codec_free(c);
    basalt_buffer_reset(&buf);

    /* snappy preamble claiming 100 MiB from a few bytes */
    const uint8_t snappy_lie[] = {0x80, 0x80, 0x80, 0x32, 0x10, 'h', 'e', 'l', 'l', 'o'};
    c = make(BASALT_CODEC_SNAPPY);
    st = basalt_codec_decompress_grow(c, snappy_lie, sizeof snappy_lie, &buf, 1u << 30, &err);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(buf.capacity < (1u << 20));
    basalt_codec_free(c);
    basalt_buffer_reset(&buf);

    /* gzip with ISIZE forged to 4 GiB - 1 */
    c = make(BASALT_CODEC_GZIP);
    uint8_t gz[64];
    size_t gzlen;
    CHECK_OK(basalt_codec_compress(c, "hello", 5, gz, sizeof gz, &gzlen, &err), &err);
    memset(gz + gzlen - 4, 0xff, 4);
    st = basalt_codec_decompress_grow(c, gz, gzlen, &buf, 1u << 30, &err);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(buf.capacity < (1u << 20));
    basalt_codec_free(c);
    basalt_buffer_reset(&buf);
}

/* A tiny bomb for each codec: 4 MiB of zeros against a 1000-byte limit. */
TEST(codec_grow_limit_stops_bombs)
{
    size_t n = 4u << 20;
    uint8_t *zeros = calloc(1, n);
    for (int k = 0; k < BASALT_CODEC_COUNT; k++) {
        struct basalt_codec *c = make(ct_kind(k));
        if (k == BASALT_CODEC_BROTLI || k == BASALT_CODEC_XZ) {
            basalt_codec_free(c);
            CHECK_OK(basalt_codec_new(ct_kind(k), 1, &c, NULL), NULL);
        }
        size_t clen;
        uint8_t *comp = compress_sample(c, zeros, n, &clen);
        CHECK(comp != NULL);
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        struct basalt_error err;
        basalt_status st = basalt_codec_decompress_grow(c, comp, clen, &buf, 1000, &err);
        CHECK_MSG(st == BASALT_LIMIT, "%s: %s", basalt_codec_name(ct_kind(k)),
                  basalt_status_name(st));
        CHECK_EQ(buf.size, 0);
        CHECK_MSG(buf.capacity <= 8192, "%s: grew to %zu bytes", basalt_codec_name(ct_kind(k)),
                  buf.capacity);
        /* The limit counts what the buffer already holds. */
        CHECK_OK(basalt_buffer_resize(&buf, 2000, &err), &err);
        st = basalt_codec_decompress_grow(c, comp, clen, &buf, 1000, &err);
        CHECK_STATUS(st, BASALT_LIMIT, &err);
        CHECK_EQ(buf.size, 2000);
        st = basalt_codec_decompress_grow(c, comp, clen, &buf, 2000 + n, &err);
        CHECK_OK(st, &err);
        CHECK_EQ(buf.size, 2000 + n);
        CHECK(memcmp(buf.data + 2000, zeros, n) == 0);
        basalt_buffer_reset(&buf);
        free(comp);
        basalt_codec_free(c);
    }
    free(zeros);
}

/* ------------------------------------------------------- allocation faults */

struct sweep_ctx {
    enum basalt_codec_kind kind;
    const uint8_t *src;
    size_t n;
    const uint8_t *foreign; /* optional input made elsewhere, decoded too */
    size_t foreign_len;
};

static basalt_status sweep_attempt(void *p)
{
    const struct sweep_ctx *x = p;
    struct basalt_codec *c = NULL;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    size_t bound = 0, clen = 0, dlen = 0;
    uint8_t *comp = NULL, *back = NULL;
    basalt_status st = basalt_codec_new(x->kind, BASALT_CODEC_LEVEL_DEFAULT, &c, NULL);
    if (st == BASALT_OK) {
        bound = basalt_codec_max_compressed_size(c, x->n);
        comp = basalt_malloc(bound);
        back = basalt_malloc(x->n);
        if (!comp || !back)
            st = BASALT_NOMEM;
    }
    if (st == BASALT_OK)
        st = basalt_codec_compress(c, x->src, x->n, comp, bound, &clen, NULL);
    if (st == BASALT_OK)
        st = basalt_codec_decompress(c, comp, clen, back, x->n, &dlen, NULL);
    if (st == BASALT_OK && (dlen != x->n || memcmp(back, x->src, x->n) != 0))
        st = BASALT_INTERNAL;
    if (st == BASALT_OK)
        st = basalt_codec_decompress_grow(c, comp, clen, &buf, x->n, NULL);
    if (st == BASALT_OK && x->foreign)
        st = basalt_codec_decompress(c, x->foreign, x->foreign_len, back, x->n, &dlen, NULL);
    if (st == BASALT_OK && x->foreign) {
        buf.size = 0;
        st = basalt_codec_decompress_grow(c, x->foreign, x->foreign_len, &buf, x->n, NULL);
    }
    basalt_buffer_reset(&buf);
    basalt_free(comp);
    basalt_free(back);
    basalt_codec_free(c);
    return st;
}

TEST(codec_allocation_failures_are_clean)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 9);
    size_t n = 200000;
    uint8_t *src = malloc(n);
    ct_fill(&rng, 0, src, n);
    for (int k = 0; k < BASALT_CODEC_COUNT; k++) {
        struct sweep_ctx x = {ct_kind(k), src, n, NULL, 0};
        CHECK_ALLOC_SWEEP(sweep_attempt, &x);
    }
    /* The LZ4 frame fallback and zstd's streaming path allocate too. */
    size_t fbound = LZ4F_compressFrameBound(n, NULL);
    uint8_t *frame = malloc(fbound);
    size_t flen = LZ4F_compressFrame(frame, fbound, src, n, NULL);
    CHECK(!LZ4F_isError(flen));
    struct sweep_ctx lz = {BASALT_CODEC_LZ4_HADOOP, src, n, frame, flen};
    CHECK_ALLOC_SWEEP(sweep_attempt, &lz);
    ZSTD_CCtx *z = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 0);
    size_t zbound = ZSTD_compressBound(n);
    uint8_t *zs = malloc(zbound);
    size_t zlen = ZSTD_compress2(z, zs, zbound, src, n);
    CHECK(!ZSTD_isError(zlen));
    ZSTD_freeCCtx(z);
    struct sweep_ctx zx = {BASALT_CODEC_ZSTD, src, n, zs, zlen};
    CHECK_ALLOC_SWEEP(sweep_attempt, &zx);
    free(zs);
    free(frame);
    free(src);
}

/* ---------------------------------------------------------- context reuse */

TEST(codec_contexts_are_created_once)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 10);
    uint8_t src[20000], comp[30000], back[20000];
    ct_fill(&rng, 0, src, sizeof src);
    /* Contexts per object once warm; brotli and bzip2 have none to keep and
     * create 3 per round (compress, decompress, decompress_grow). */
    static const int persistent[BASALT_CODEC_COUNT] = {
        [BASALT_CODEC_UNCOMPRESSED] = 0, [BASALT_CODEC_SNAPPY] = 0,  [BASALT_CODEC_GZIP] = 2,
        [BASALT_CODEC_ZLIB] = 2,         [BASALT_CODEC_DEFLATE] = 2, [BASALT_CODEC_ZSTD] = 2,
        [BASALT_CODEC_LZ4_RAW] = 1,      [BASALT_CODEC_LZ4_HADOOP] = 1,
        [BASALT_CODEC_BROTLI] = -1,      [BASALT_CODEC_BZIP2] = -1,  [BASALT_CODEC_XZ] = 2,
        [BASALT_CODEC_LZ4_FRAME] = 2,
    };
    for (int k = 0; k < BASALT_CODEC_COUNT; k++) {
        struct basalt_codec *c;
        CHECK_OK(basalt_codec_new(ct_kind(k), 1, &c, NULL), NULL);
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        CHECK_OK(basalt_buffer_reserve(&buf, sizeof src, NULL), NULL);
        int64_t allocs_after_first = 0;
        for (int round = 0; round < 100; round++) {
            size_t clen, dlen;
            struct basalt_error err;
            CHECK_OK(basalt_codec_compress(c, src, sizeof src, comp, sizeof comp, &clen, &err),
                     &err);
            CHECK_OK(basalt_codec_decompress(c, comp, clen, back, sizeof back, &dlen, &err), &err);
            buf.size = 0;
            CHECK_OK(basalt_codec_decompress_grow(c, comp, clen, &buf, sizeof src, &err), &err);
            CHECK_EQ(buf.size, sizeof src);
            if (round == 0)
                allocs_after_first = basalt_alloc_total();
        }
        uint64_t made = basalt_codec_contexts_created(c);
        if (persistent[k] >= 0) {
            CHECK_MSG(made == (uint64_t)persistent[k], "%s: %llu contexts after 100 rounds",
                      basalt_codec_name(ct_kind(k)), (unsigned long long)made);
        } else {
            CHECK_MSG(made == 300, "%s: %llu states for 300 calls", basalt_codec_name(ct_kind(k)),
                      (unsigned long long)made);
        }
        /* Where the library allocates through basalt and keeps its context,
         * warm calls allocate nothing at all. */
        if (k != BASALT_CODEC_BROTLI && k != BASALT_CODEC_BZIP2 && k != BASALT_CODEC_XZ)
            CHECK_MSG(basalt_alloc_total() == allocs_after_first,
                      "%s: %lld allocations in 99 warm rounds", basalt_codec_name(ct_kind(k)),
                      (long long)(basalt_alloc_total() - allocs_after_first));
        basalt_buffer_reset(&buf);
        basalt_codec_free(c);
    }
}

/* zstd's streaming decoder (frames without a content size) and the LZ4 frame
 * decoder keep their contexts too. */
TEST(codec_streaming_contexts_are_reused)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    uint8_t src[50000];
    ct_fill(&rng, 0, src, sizeof src);
    ZSTD_CCtx *z = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 0);
    uint8_t zs[60000], lz[60000];
    size_t zlen = ZSTD_compress2(z, zs, sizeof zs, src, sizeof src);
    ZSTD_freeCCtx(z);
    size_t llen = LZ4F_compressFrame(lz, sizeof lz, src, sizeof src, NULL);
    CHECK(!ZSTD_isError(zlen) && !LZ4F_isError(llen));
    const enum basalt_codec_kind kinds[] = {BASALT_CODEC_ZSTD, BASALT_CODEC_LZ4_HADOOP};
    const uint8_t *inputs[] = {zs, lz};
    const size_t lens[] = {zlen, llen};
    for (int i = 0; i < 2; i++) {
        struct basalt_codec *c = make(kinds[i]);
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        CHECK_OK(basalt_buffer_reserve(&buf, sizeof src, NULL), NULL);
        int64_t after_first = 0;
        for (int round = 0; round < 100; round++) {
            buf.size = 0;
            CHECK_OK(basalt_codec_decompress_grow(c, inputs[i], lens[i], &buf, sizeof src, NULL),
                     NULL);
            CHECK_EQ(buf.size, sizeof src);
            CHECK_MEM(buf.data, src, sizeof src);
            if (round == 0)
                after_first = basalt_alloc_total();
        }
        CHECK_EQ(basalt_codec_contexts_created(c), 1);
        CHECK_EQ(basalt_alloc_total(), after_first);
        basalt_buffer_reset(&buf);
        basalt_codec_free(c);
    }
}

/* Found by fuzzing: a block whose last sequence ends in a match must be
 * rejected without reading past its end. */
TEST(codec_lz4_block_ending_in_a_match_is_corrupt)
{
    const uint8_t block[] = {0x10, 'a', 0x01, 0x00}; /* "a", then a match, then nothing */
    const enum basalt_codec_kind kinds[] = {BASALT_CODEC_LZ4_RAW, BASALT_CODEC_LZ4_HADOOP};
    for (int i = 0; i < 2; i++) {
        struct basalt_codec *c = make(kinds[i]);
        uint8_t *in = malloc(sizeof block); /* exact size, so ASan sees overreads */
        memcpy(in, block, sizeof block);
        uint8_t out[2];
        size_t n;
        struct basalt_error err;
        basalt_status st = basalt_codec_decompress(c, in, sizeof block, out, sizeof out, &n, &err);
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        basalt_status st2 = basalt_codec_decompress_grow(c, in, sizeof block, &buf, 100, &err);
        basalt_buffer_reset(&buf);
        free(in);
        basalt_codec_free(c);
        CHECK_EQ(st, BASALT_CORRUPT);
        CHECK_EQ(st2, BASALT_CORRUPT);
    }
}
