/* Cross-checks against the libraries called directly: data they compress is
 * decompressed by basalt, and basalt's output is decompressed by them. The
 * deflate family is checked against zlib, an implementation basalt does not
 * use. */
#include <stdlib.h>

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <bzlib.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <lzma.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "codec_internal.h"
#include "codec_test_util.h"

/* A growable plain-malloc byte string for building test inputs. */
struct blob {
    uint8_t *data;
    size_t len, cap;
};

static void blob_reserve(struct blob *b, size_t more)
{
    if (b->len + more > b->cap) {
        b->cap = (b->len + more) * 2;
        b->data = realloc(b->data, b->cap);
    }
}

static void blob_add(struct blob *b, const void *p, size_t n)
{
    blob_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void blob_be32(struct blob *b, uint32_t v)
{
    uint8_t p[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    blob_add(b, p, 4);
}

/* Checks that `comp` decompresses to `want` through decompress (exact size,
 * and a roomier buffer) and decompress_grow. */
static void expect_decodes(enum basalt_codec_kind kind, const struct blob *comp,
                           const uint8_t *want, size_t want_len, const char *what)
{
    struct basalt_codec *c;
    struct basalt_error err;
    CHECK_OK(basalt_codec_new(kind, BASALT_CODEC_LEVEL_DEFAULT, &c, &err), &err);
    uint8_t *out = malloc(want_len + 100);
    size_t n = 0;
    basalt_status st = basalt_codec_decompress(c, comp->data, comp->len, out, want_len, &n, &err);
    CHECK_MSG(st == BASALT_OK, "%s: %s", what, err.message);
    CHECK_EQ(n, want_len);
    CHECK_MEM(out, want, want_len);
    st = basalt_codec_decompress(c, comp->data, comp->len, out, want_len + 100, &n, &err);
    CHECK_MSG(st == BASALT_OK, "%s (roomy): %s", what, err.message);
    CHECK_EQ(n, want_len);
    CHECK_MEM(out, want, want_len);
    free(out);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    st = basalt_codec_decompress_grow(c, comp->data, comp->len, &buf, 1 << 28, &err);
    CHECK_MSG(st == BASALT_OK, "%s (grow): %s", what, err.message);
    CHECK_EQ(buf.size, want_len);
    CHECK_MEM(buf.data, want, want_len);
    basalt_buffer_reset(&buf);
    basalt_codec_free(c);
}

/* basalt's compression of src, for the libraries to decode. */
static struct blob ours(enum basalt_codec_kind kind, int level, const uint8_t *src, size_t n)
{
    struct blob b = {0};
    struct basalt_codec *c;
    if (basalt_codec_new(kind, level, &c, NULL) != BASALT_OK)
        return b;
    size_t bound = basalt_codec_max_compressed_size(c, n);
    b.data = malloc(bound);
    b.cap = bound;
    if (basalt_codec_compress(c, src, n, b.data, bound, &b.len, NULL) != BASALT_OK)
        b.len = SIZE_MAX;
    basalt_codec_free(c);
    return b;
}

#define INPUT_LEN 300000

static uint8_t *make_input(uint64_t seed, int kind)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    uint8_t *p = malloc(INPUT_LEN);
    ct_fill(&rng, kind, p, INPUT_LEN);
    return p;
}

/* ------------------------------------------------------------------ zstd */

TEST(codec_zstd_interop)
{
    uint8_t *a = make_input(1, 0), *b = make_input(2, 1);
    size_t half = INPUT_LEN / 2;
    struct blob comp = {0};
    /* Frame 1 with its content size, a skippable frame, frame 2 without. */
    size_t bound = ZSTD_compressBound(INPUT_LEN);
    blob_reserve(&comp, bound);
    size_t r = ZSTD_compress(comp.data, bound, a, INPUT_LEN, 5);
    CHECK(!ZSTD_isError(r));
    comp.len = r;
    const uint8_t skippable[] = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'};
    blob_add(&comp, skippable, sizeof skippable);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    blob_reserve(&comp, bound);
    r = ZSTD_compress2(cctx, comp.data + comp.len, bound, b, half);
    CHECK(!ZSTD_isError(r));
    CHECK_UEQ(ZSTD_getFrameContentSize(comp.data + comp.len, r), ZSTD_CONTENTSIZE_UNKNOWN);
    comp.len += r;
    ZSTD_freeCCtx(cctx);

    uint8_t *want = malloc(INPUT_LEN + half);
    memcpy(want, a, INPUT_LEN);
    memcpy(want + INPUT_LEN, b, half);
    expect_decodes(BASALT_CODEC_ZSTD, &comp, want, INPUT_LEN + half, "zstd frames");
    free(comp.data);

    struct blob mine = ours(BASALT_CODEC_ZSTD, 7, a, INPUT_LEN);
    CHECK(mine.len != SIZE_MAX);
    CHECK_UEQ(ZSTD_getFrameContentSize(mine.data, mine.len), INPUT_LEN);
    r = ZSTD_decompress(want, INPUT_LEN, mine.data, mine.len);
    CHECK_EQ(r, INPUT_LEN);
    CHECK_MEM(want, a, INPUT_LEN);
    free(mine.data);
    free(want);
    free(a);
    free(b);
}

/* ---------------------------------------------------------------- snappy */

TEST(codec_snappy_interop)
{
    uint8_t *a = make_input(3, 0);
    struct blob comp = {0};
    size_t len = snappy_max_compressed_length(INPUT_LEN);
    blob_reserve(&comp, len);
    CHECK_EQ(snappy_compress((const char *)a, INPUT_LEN, (char *)comp.data, &len), SNAPPY_OK);
    comp.len = len;
    expect_decodes(BASALT_CODEC_SNAPPY, &comp, a, INPUT_LEN, "snappy");
    free(comp.data);

    struct blob mine = ours(BASALT_CODEC_SNAPPY, 0, a, INPUT_LEN);
    uint8_t *back = malloc(INPUT_LEN);
    len = INPUT_LEN;
    CHECK_EQ(snappy_uncompress((const char *)mine.data, mine.len, (char *)back, &len), SNAPPY_OK);
    CHECK_EQ(len, INPUT_LEN);
    CHECK_MEM(back, a, INPUT_LEN);
    free(back);
    free(mine.data);
    free(a);
}

/* ------------------------------------------------------- zlib, deflate, gzip */

/* zlib's deflate with the given window bits (15 zlib, -15 raw, 31 gzip). */
static void zlib_deflate(struct blob *out, const uint8_t *src, size_t n, int window_bits,
                         gz_header *header)
{
    z_stream z = {0};
    if (deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    if (header)
        deflateSetHeader(&z, header);
    size_t bound = deflateBound(&z, n) + 64;
    blob_reserve(out, bound);
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = out->data + out->len;
    z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    out->len += bound - z.avail_out;
    deflateEnd(&z);
}

static size_t zlib_inflate(const struct blob *in, uint8_t *dst, size_t cap, int window_bits)
{
    z_stream z = {0};
    if (inflateInit2(&z, window_bits) != Z_OK)
        return SIZE_MAX;
    z.next_in = in->data;
    z.avail_in = (uInt)in->len;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    int r = inflate(&z, Z_FINISH);
    size_t n = cap - z.avail_out;
    inflateEnd(&z);
    return r == Z_STREAM_END && z.avail_in == 0 ? n : SIZE_MAX;
}

TEST(codec_gzip_interop_two_members)
{
    uint8_t *a = make_input(4, 0), *b = make_input(5, 2);
    struct blob comp = {0};
    zlib_deflate(&comp, a, INPUT_LEN, 31, NULL);
    /* The second member carries a file name, a comment and an extra field. */
    gz_header h = {0};
    h.name = (Bytef *)"part2.bin";
    h.comment = (Bytef *)"second member";
    uint8_t extra[] = {'B', 'A', 2, 0, 1, 2};
    h.extra = extra;
    h.extra_len = sizeof extra;
    h.hcrc = 1;
    zlib_deflate(&comp, b, INPUT_LEN, 31, &h);
    uint8_t *want = malloc(2 * INPUT_LEN);
    memcpy(want, a, INPUT_LEN);
    memcpy(want + INPUT_LEN, b, INPUT_LEN);
    expect_decodes(BASALT_CODEC_GZIP, &comp, want, 2 * INPUT_LEN, "gzip two members");

    /* Something after the members is not a member. */
    blob_add(&comp, "junk", 4);
    struct basalt_codec *c;
    struct basalt_error err;
    CHECK_OK(basalt_codec_new(BASALT_CODEC_GZIP, BASALT_CODEC_LEVEL_DEFAULT, &c, &err), &err);
    size_t n;
    CHECK_STATUS(basalt_codec_decompress(c, comp.data, comp.len, want, 2 * INPUT_LEN, &n, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "gzip: member 3") != NULL);
    basalt_codec_free(c);
    free(comp.data);

    struct blob mine = ours(BASALT_CODEC_GZIP, 9, a, INPUT_LEN);
    CHECK_EQ(zlib_inflate(&mine, want, 2 * INPUT_LEN, 31), INPUT_LEN);
    CHECK_MEM(want, a, INPUT_LEN);
    free(mine.data);
    free(want);
    free(a);
    free(b);
}

TEST(codec_zlib_interop)
{
    uint8_t *a = make_input(6, 0);
    struct blob comp = {0};
    zlib_deflate(&comp, a, INPUT_LEN, 15, NULL);
    expect_decodes(BASALT_CODEC_ZLIB, &comp, a, INPUT_LEN, "zlib");
    free(comp.data);
    uint8_t *back = malloc(INPUT_LEN);
    struct blob mine = ours(BASALT_CODEC_ZLIB, 3, a, INPUT_LEN);
    CHECK_EQ(zlib_inflate(&mine, back, INPUT_LEN, 15), INPUT_LEN);
    CHECK_MEM(back, a, INPUT_LEN);
    free(mine.data);
    free(back);
    free(a);
}

TEST(codec_deflate_interop_and_avro_trailer)
{
    uint8_t *a = make_input(7, 0);
    struct blob comp = {0};
    zlib_deflate(&comp, a, INPUT_LEN, -15, NULL);
    expect_decodes(BASALT_CODEC_DEFLATE, &comp, a, INPUT_LEN, "raw deflate");
    free(comp.data);

    /* Python's Avro writer stores zlib.compress(data)[2:-1]: raw deflate plus
     * three bytes of the Adler-32 trailer. */
    struct blob z = {0};
    zlib_deflate(&z, a, INPUT_LEN, 15, NULL);
    struct blob trimmed = {0};
    blob_add(&trimmed, z.data + 2, z.len - 3);
    expect_decodes(BASALT_CODEC_DEFLATE, &trimmed, a, INPUT_LEN, "deflate with trailer bytes");
    free(z.data);
    free(trimmed.data);

    uint8_t *back = malloc(INPUT_LEN);
    struct blob mine = ours(BASALT_CODEC_DEFLATE, 12, a, INPUT_LEN);
    CHECK_EQ(zlib_inflate(&mine, back, INPUT_LEN, -15), INPUT_LEN);
    CHECK_MEM(back, a, INPUT_LEN);
    free(mine.data);
    free(back);
    free(a);
}

/* ------------------------------------------------------------------- lz4 */

static void lz4_block(struct blob *out, const uint8_t *src, size_t n)
{
    int bound = LZ4_compressBound((int)n);
    blob_reserve(out, (size_t)bound);
    int r = LZ4_compress_HC((const char *)src, (char *)out->data + out->len, (int)n, bound, 9);
    if (r <= 0)
        abort();
    out->len += (size_t)r;
}

TEST(codec_lz4_raw_interop)
{
    uint8_t *a = make_input(8, 0);
    struct blob comp = {0};
    lz4_block(&comp, a, INPUT_LEN);
    expect_decodes(BASALT_CODEC_LZ4_RAW, &comp, a, INPUT_LEN, "lz4 block (HC)");
    free(comp.data);
    uint8_t *back = malloc(INPUT_LEN);
    struct blob mine = ours(BASALT_CODEC_LZ4_RAW, 0, a, INPUT_LEN);
    CHECK_EQ(LZ4_decompress_safe((const char *)mine.data, (char *)back, (int)mine.len,
                                 INPUT_LEN),
             INPUT_LEN);
    CHECK_MEM(back, a, INPUT_LEN);
    free(mine.data);
    free(back);
    free(a);
}

TEST(codec_lz4_hadoop_reads_every_shape)
{
    uint8_t *a = make_input(9, 0);
    /* Arrow / parquet-mr: [usize][csize][block] repeated. */
    struct blob arrow = {0};
    size_t cuts[] = {0, 100000, 100001, 250000, INPUT_LEN};
    for (int i = 0; i < 4; i++) {
        struct blob blk = {0};
        size_t len = cuts[i + 1] - cuts[i];
        lz4_block(&blk, a + cuts[i], len);
        blob_be32(&arrow, (uint32_t)len);
        blob_be32(&arrow, (uint32_t)blk.len);
        blob_add(&arrow, blk.data, blk.len);
        free(blk.data);
    }
    expect_decodes(BASALT_CODEC_LZ4_HADOOP, &arrow, a, INPUT_LEN, "hadoop, Arrow style");
    free(arrow.data);

    /* Hadoop's BlockCompressorStream for a large write: one total size, then
     * several [csize][block]. */
    struct blob hadoop = {0};
    blob_be32(&hadoop, INPUT_LEN);
    for (int i = 0; i < 4; i++) {
        struct blob blk = {0};
        lz4_block(&blk, a + cuts[i], cuts[i + 1] - cuts[i]);
        blob_be32(&hadoop, (uint32_t)blk.len);
        blob_add(&hadoop, blk.data, blk.len);
        free(blk.data);
    }
    expect_decodes(BASALT_CODEC_LZ4_HADOOP, &hadoop, a, INPUT_LEN, "hadoop, one outer size");
    free(hadoop.data);

    /* Older parquet-cpp: a bare block. */
    struct blob bare = {0};
    lz4_block(&bare, a, INPUT_LEN);
    expect_decodes(BASALT_CODEC_LZ4_HADOOP, &bare, a, INPUT_LEN, "bare block");
    free(bare.data);

    /* Older writers: LZ4 frames, with and without content size, checksums,
     * two of them back to back. */
    struct blob frames = {0};
    for (int i = 0; i < 2; i++) {
        LZ4F_preferences_t prefs;
        memset(&prefs, 0, sizeof prefs);
        prefs.frameInfo.contentSize = i == 0 ? INPUT_LEN / 2 : 0;
        prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
        prefs.frameInfo.blockChecksumFlag = i ? LZ4F_blockChecksumEnabled : LZ4F_noBlockChecksum;
        prefs.frameInfo.blockSizeID = i ? LZ4F_max64KB : LZ4F_max4MB;
        prefs.frameInfo.blockMode = i ? LZ4F_blockIndependent : LZ4F_blockLinked;
        size_t bound = LZ4F_compressFrameBound(INPUT_LEN / 2, &prefs);
        blob_reserve(&frames, bound);
        size_t r = LZ4F_compressFrame(frames.data + frames.len, bound, a + i * (INPUT_LEN / 2),
                                      INPUT_LEN / 2, &prefs);
        CHECK(!LZ4F_isError(r));
        frames.len += r;
    }
    expect_decodes(BASALT_CODEC_LZ4_HADOOP, &frames, a, INPUT_LEN, "two lz4 frames");
    free(frames.data);

    /* Our own output is Hadoop framing a hand-written reader accepts. */
    struct blob mine = ours(BASALT_CODEC_LZ4_HADOOP, 0, a, 1000);
    CHECK_EQ(mine.data[0] << 24 | mine.data[1] << 16 | mine.data[2] << 8 | mine.data[3], 1000);
    uint32_t clen = (uint32_t)(mine.data[4] << 24 | mine.data[5] << 16 | mine.data[6] << 8 |
                               mine.data[7]);
    CHECK_EQ(clen + 8, mine.len);
    uint8_t back[1000];
    CHECK_EQ(LZ4_decompress_safe((const char *)mine.data + 8, (char *)back, (int)clen, 1000),
             1000);
    CHECK_MEM(back, a, 1000);
    free(mine.data);
    free(a);
}

/* ---------------------------------------------------------------- brotli */

TEST(codec_brotli_interop)
{
    uint8_t *a = make_input(10, 0);
    struct blob comp = {0};
    size_t len = BrotliEncoderMaxCompressedSize(INPUT_LEN);
    blob_reserve(&comp, len);
    CHECK(BrotliEncoderCompress(4, 18, BROTLI_MODE_TEXT, INPUT_LEN, a, &len, comp.data));
    comp.len = len;
    expect_decodes(BASALT_CODEC_BROTLI, &comp, a, INPUT_LEN, "brotli");
    free(comp.data);

    struct blob mine = ours(BASALT_CODEC_BROTLI, 6, a, INPUT_LEN);
    uint8_t *back = malloc(INPUT_LEN);
    len = INPUT_LEN;
    CHECK_EQ(BrotliDecoderDecompress(mine.len, mine.data, &len, back),
             BROTLI_DECODER_RESULT_SUCCESS);
    CHECK_EQ(len, INPUT_LEN);
    CHECK_MEM(back, a, INPUT_LEN);
    free(back);
    free(mine.data);
    free(a);
}

/* ----------------------------------------------------------------- bzip2 */

static void bz_compress(struct blob *out, const uint8_t *src, size_t n, int level)
{
    unsigned int len = (unsigned int)(n + n / 100 + 600);
    blob_reserve(out, len);
    if (BZ2_bzBuffToBuffCompress((char *)out->data + out->len, &len, (char *)(uintptr_t)src,
                                 (unsigned int)n, level, 0, 0) != BZ_OK)
        abort();
    out->len += len;
}

TEST(codec_bzip2_interop_concatenated)
{
    uint8_t *a = make_input(11, 0), *b = make_input(12, 1);
    struct blob comp = {0};
    bz_compress(&comp, a, INPUT_LEN, 9);
    bz_compress(&comp, b, 1000, 1);
    uint8_t *want = malloc(INPUT_LEN + 1000);
    memcpy(want, a, INPUT_LEN);
    memcpy(want + INPUT_LEN, b, 1000);
    expect_decodes(BASALT_CODEC_BZIP2, &comp, want, INPUT_LEN + 1000, "bzip2 two streams");
    free(comp.data);

    struct blob mine = ours(BASALT_CODEC_BZIP2, 3, a, INPUT_LEN);
    unsigned int len = INPUT_LEN;
    CHECK_EQ(BZ2_bzBuffToBuffDecompress((char *)want, &len, (char *)mine.data,
                                        (unsigned int)mine.len, 0, 0),
             BZ_OK);
    CHECK_EQ(len, INPUT_LEN);
    CHECK_MEM(want, a, INPUT_LEN);
    free(mine.data);
    free(want);
    free(a);
    free(b);
}

/* -------------------------------------------------------------------- xz */

static void xz_compress(struct blob *out, const uint8_t *src, size_t n, uint32_t preset,
                        lzma_check check)
{
    size_t bound = lzma_stream_buffer_bound(n);
    blob_reserve(out, bound);
    size_t pos = out->len;
    if (lzma_easy_buffer_encode(preset, check, NULL, src, n, out->data, &pos, out->len + bound) !=
        LZMA_OK)
        abort();
    out->len = pos;
}

TEST(codec_xz_interop_concatenated)
{
    uint8_t *a = make_input(13, 0), *b = make_input(14, 2);
    struct blob comp = {0};
    xz_compress(&comp, a, INPUT_LEN, 1, LZMA_CHECK_CRC32);
    blob_add(&comp, "\0\0\0\0", 4); /* stream padding */
    xz_compress(&comp, b, 5000, 6, LZMA_CHECK_SHA256);
    uint8_t *want = malloc(INPUT_LEN + 5000);
    memcpy(want, a, INPUT_LEN);
    memcpy(want + INPUT_LEN, b, 5000);
    expect_decodes(BASALT_CODEC_XZ, &comp, want, INPUT_LEN + 5000, "xz two streams");
    free(comp.data);

    struct blob mine = ours(BASALT_CODEC_XZ, 2, a, INPUT_LEN);
    uint64_t memlimit = UINT64_MAX;
    size_t in_pos = 0, out_pos = 0;
    CHECK_EQ(lzma_stream_buffer_decode(&memlimit, 0, NULL, mine.data, &in_pos, mine.len, want,
                                       &out_pos, INPUT_LEN),
             LZMA_OK);
    CHECK_EQ(out_pos, INPUT_LEN);
    CHECK_MEM(want, a, INPUT_LEN);
    /* Avro's xz is the .xz container with a CRC64 check. */
    lzma_stream_flags flags;
    CHECK_EQ(lzma_stream_header_decode(&flags, mine.data), LZMA_OK);
    CHECK_EQ(flags.check, LZMA_CHECK_CRC64);
    free(mine.data);
    free(want);
    free(a);
    free(b);
}
