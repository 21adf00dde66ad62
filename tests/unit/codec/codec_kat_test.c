/* Known-answer inputs produced outside basalt: the gzip, zstd, xz, bzip2 and
 * lz4 command-line tools (`printf hello | gzip -n | xxd -i` and so on),
 * Python's zlib, brotli streams from other projects' test suites, and snappy,
 * LZ4 and Hadoop blocks written by hand from the format descriptions. */
#include "codec_internal.h"
#include "codec_test_util.h"

#define TEXT "hellohellohellohello hello world, hello hello"

struct kat {
    enum basalt_codec_kind kind;
    const char *what;
    const char *plain;
    size_t plain_len;
    const uint8_t *comp;
    size_t comp_len;
};

/* printf hello | gzip -n */
static const uint8_t gzip_hello[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                     0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x86,
                                     0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00};
/* printf TEXT | gzip -n -9 */
static const uint8_t gzip_text[] = {
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd,
    0xc9, 0xc9, 0xcf, 0x40, 0x25, 0x14, 0x20, 0x64, 0x79, 0x7e, 0x51, 0x4e, 0x8a,
    0x8e, 0x02, 0x92, 0x10, 0x00, 0xdb, 0x92, 0x1d, 0xef, 0x2d, 0x00, 0x00, 0x00};
/* python3: zlib.compress(b"hello") */
static const uint8_t zlib_hello[] = {0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9,
                                     0x07, 0x00, 0x06, 0x2c, 0x02, 0x15};
/* python3: zlib.compressobj(wbits=-15) over b"hello" */
static const uint8_t deflate_hello[] = {0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00};
/* printf hello | zstd: a frame without a content size, with a checksum */
static const uint8_t zstd_hello[] = {0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x29, 0x00, 0x00,
                                     0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xa3, 0x6d, 0x9f, 0x88};
/* printf TEXT | zstd -19 */
static const uint8_t zstd_text[] = {
    0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x68, 0xc5, 0x00, 0x00, 0x68, 0x68, 0x65, 0x6c,
    0x6c, 0x6f, 0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x2c, 0x20, 0x03, 0x00, 0x36,
    0x8d, 0xa5, 0x0c, 0x17, 0x5d, 0xd1, 0x02, 0x28, 0x16, 0x3f, 0x33};
/* printf hello | xz */
static const uint8_t xz_hello[] = {
    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x02, 0x00, 0x21,
    0x01, 0x16, 0x00, 0x00, 0x00, 0x74, 0x2f, 0xe5, 0xa3, 0x01, 0x00, 0x04, 0x68, 0x65, 0x6c,
    0x6c, 0x6f, 0x00, 0x00, 0x00, 0x00, 0xb1, 0x37, 0xb9, 0xdb, 0xe5, 0xda, 0x1e, 0x9b, 0x00,
    0x01, 0x1d, 0x05, 0xb8, 0x2d, 0x80, 0xaf, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x04, 0x59, 0x5a};
/* printf TEXT | xz */
static const uint8_t xz_text[] = {
    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x02, 0x00, 0x21,
    0x01, 0x16, 0x00, 0x00, 0x00, 0x74, 0x2f, 0xe5, 0xa3, 0xe0, 0x00, 0x2c, 0x00, 0x16, 0x5d,
    0x00, 0x34, 0x19, 0x49, 0xee, 0x8e, 0x91, 0xe8, 0x57, 0x48, 0x4c, 0x9e, 0xbd, 0xde, 0x90,
    0xb3, 0xc3, 0xcd, 0xee, 0x77, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x2a, 0x89, 0x96,
    0x44, 0x90, 0xa9, 0xd8, 0x00, 0x01, 0x32, 0x2d, 0x2f, 0xbd, 0x29, 0x88, 0x1f, 0xb6, 0xf3,
    0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a};
/* printf hello | bzip2 */
static const uint8_t bzip2_hello[] = {
    0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x19, 0x31, 0x65, 0x3d,
    0x00, 0x00, 0x00, 0x81, 0x00, 0x02, 0x44, 0xa0, 0x00, 0x21, 0x9a, 0x68, 0x33, 0x4d,
    0x07, 0x33, 0x8b, 0xb9, 0x22, 0x9c, 0x28, 0x48, 0x0c, 0x98, 0xb2, 0x9e, 0x80};
/* printf TEXT | bzip2 */
static const uint8_t bzip2_text[] = {
    0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x32, 0x40, 0xa2, 0x51,
    0x00, 0x00, 0x09, 0x11, 0x80, 0x40, 0x04, 0x06, 0x44, 0x90, 0x80, 0x20, 0x00, 0x22,
    0x3d, 0x22, 0x79, 0x10, 0x83, 0x26, 0x21, 0x43, 0x24, 0x0c, 0x74, 0x85, 0xba, 0x0e,
    0x83, 0x9b, 0xf8, 0xbb, 0x92, 0x29, 0xc2, 0x84, 0x81, 0x92, 0x05, 0x12, 0x88};
/* printf hello | lz4: an LZ4 frame, read by LZ4_HADOOP's last fallback */
static const uint8_t lz4frame_hello[] = {0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0x05,
                                         0x00, 0x00, 0x80, 0x68, 0x65, 0x6c, 0x6c, 0x6f,
                                         0x00, 0x00, 0x00, 0x00, 0xf9, 0x77, 0x00, 0xfb};
/* printf TEXT | lz4: a frame holding one compressed 28-byte block */
static const uint8_t lz4frame_text[] = {
    0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0x1c, 0x00, 0x00, 0x00, 0x5b, 0x68, 0x65, 0x6c,
    0x6c, 0x6f, 0x05, 0x00, 0x11, 0x20, 0x10, 0x00, 0x73, 0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64,
    0x2c, 0x0d, 0x00, 0x50, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00, 0x00, 0x69, 0xe1,
    0x50, 0x4b};
/* That block alone (bytes 11..38 of lz4frame_text): LZ4_RAW. */
static const uint8_t lz4raw_text[] = {0x5b, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x05, 0x00, 0x11, 0x20,
                                      0x10, 0x00, 0x73, 0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x2c,
                                      0x0d, 0x00, 0x50, 0x68, 0x65, 0x6c, 0x6c, 0x6f};
/* ... and in Hadoop framing: [BE 45][BE 28][block]. */
static const uint8_t hadoop_text[] = {
    0x00, 0x00, 0x00, 0x2d, 0x00, 0x00, 0x00, 0x1c, 0x5b, 0x68, 0x65, 0x6c, 0x6c, 0x6f,
    0x05, 0x00, 0x11, 0x20, 0x10, 0x00, 0x73, 0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64, 0x2c,
    0x0d, 0x00, 0x50, 0x68, 0x65, 0x6c, 0x6c, 0x6f};
/* LZ4 block by hand: token 0x50 (5 literals, no match) "hello". */
static const uint8_t lz4raw_hello[] = {0x50, 'h', 'e', 'l', 'l', 'o'};
/* Hadoop framing by hand: [BE 5][BE 6][that block]. */
static const uint8_t hadoop_hello[] = {0, 0, 0, 5, 0, 0, 0, 6, 0x50, 'h', 'e', 'l', 'l', 'o'};
/* LZ4 block by hand: "abc", a 15-byte match at offset 3, then "12345"
 * literals (token 0x3B = 3 literals, match length 4 + 11). */
static const uint8_t lz4raw_abc[] = {0x3b, 'a', 'b', 'c', 0x03, 0x00, 0x50,
                                     '1',  '2', '3', '4', '5'};
/* Snappy by hand: varint 5, literal tag (5-1)<<2, "hello". */
static const uint8_t snappy_hello[] = {0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};
/* Snappy by hand: varint 12, literal "abc" (tag 0x08), copy-1 of length 9 at
 * offset 3 (tag 1 | (9-4)<<2 = 0x15, offset byte 3). */
static const uint8_t snappy_abc[] = {0x0c, 0x08, 'a', 'b', 'c', 0x15, 0x03};
/* Brotli "hello world" from the smlr project's tests (an uncompressed
 * meta-block). */
static const uint8_t brotli_hello_world[] = {11,  5,   128, 104, 101, 108, 108, 111,
                                             32,  119, 111, 114, 108, 100, 3};
/* Brotli from brotli-dec-wasm's tests: 24 bytes of katakana with repeats. */
static const uint8_t brotli_kana[] = {27,  23,  0,   248, 141, 148, 169, 61,  94, 181, 142, 183,
                                      224, 96,  98,  170, 98,  161, 150, 56,  160, 232, 44,  0};
static const char kana[] = "\xe3\x82\xad\xe3\x83\xa9\xe3\x82\xad\xe3\x83\xa9\xe3\x83\x89\xe3\x82"
                           "\xad\xe3\x83\x89\xe3\x82\xad";

static const uint8_t plain_hello[] = {'h', 'e', 'l', 'l', 'o'};

#define KAT(k, plain, arr) {k, #arr, plain, sizeof plain - 1, arr, sizeof arr}

static const struct kat kats[] = {
    KAT(BASALT_CODEC_GZIP, "hello", gzip_hello),
    KAT(BASALT_CODEC_GZIP, TEXT, gzip_text),
    KAT(BASALT_CODEC_ZLIB, "hello", zlib_hello),
    KAT(BASALT_CODEC_DEFLATE, "hello", deflate_hello),
    KAT(BASALT_CODEC_ZSTD, "hello", zstd_hello),
    KAT(BASALT_CODEC_ZSTD, TEXT, zstd_text),
    KAT(BASALT_CODEC_XZ, "hello", xz_hello),
    KAT(BASALT_CODEC_XZ, TEXT, xz_text),
    KAT(BASALT_CODEC_BZIP2, "hello", bzip2_hello),
    KAT(BASALT_CODEC_BZIP2, TEXT, bzip2_text),
    KAT(BASALT_CODEC_LZ4_HADOOP, "hello", lz4frame_hello),
    KAT(BASALT_CODEC_LZ4_HADOOP, TEXT, lz4frame_text),
    KAT(BASALT_CODEC_LZ4_HADOOP, TEXT, hadoop_text),
    KAT(BASALT_CODEC_LZ4_HADOOP, TEXT, lz4raw_text),
    KAT(BASALT_CODEC_LZ4_HADOOP, "hello", hadoop_hello),
    KAT(BASALT_CODEC_LZ4_HADOOP, "hello", lz4raw_hello),
    KAT(BASALT_CODEC_LZ4_RAW, TEXT, lz4raw_text),
    KAT(BASALT_CODEC_LZ4_RAW, "hello", lz4raw_hello),
    KAT(BASALT_CODEC_LZ4_RAW, "abcabcabcabcabcabc12345", lz4raw_abc),
    KAT(BASALT_CODEC_SNAPPY, "hello", snappy_hello),
    KAT(BASALT_CODEC_SNAPPY, "abcabcabcabc", snappy_abc),
    KAT(BASALT_CODEC_BROTLI, "hello world", brotli_hello_world),
    KAT(BASALT_CODEC_BROTLI, kana, brotli_kana),
    KAT(BASALT_CODEC_UNCOMPRESSED, "hello", plain_hello),
};

TEST(codec_known_answers_decode)
{
    for (size_t i = 0; i < sizeof kats / sizeof kats[0]; i++) {
        const struct kat *k = &kats[i];
        struct basalt_codec *c;
        struct basalt_error err;
        CHECK_OK(basalt_codec_new(k->kind, BASALT_CODEC_LEVEL_DEFAULT, &c, &err), &err);
        uint8_t out[128];
        size_t n = 0;
        size_t comp_len = k->comp_len;
        basalt_status st = basalt_codec_decompress(c, k->comp, comp_len, out, k->plain_len, &n,
                                                   &err);
        CHECK_MSG(st == BASALT_OK, "%s: %s", k->what, err.message);
        CHECK_EQ(n, k->plain_len);
        CHECK_MSG(memcmp(out, k->plain, n) == 0, "%s: wrong output", k->what);
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        st = basalt_codec_decompress_grow(c, k->comp, comp_len, &buf, 1 << 20, &err);
        CHECK_MSG(st == BASALT_OK, "%s (grow): %s", k->what, err.message);
        CHECK_EQ(buf.size, k->plain_len);
        CHECK_MSG(memcmp(buf.data, k->plain, n) == 0, "%s (grow): wrong output", k->what);
        basalt_buffer_reset(&buf);
        if (k->plain_len > 0) {
            st = basalt_codec_decompress(c, k->comp, comp_len, out, k->plain_len - 1, &n, &err);
            CHECK_MSG(st == BASALT_LIMIT, "%s: one byte short gave %s", k->what,
                      basalt_status_name(st));
        }
        basalt_codec_free(c);
    }
}

/* Compression is deterministic where the format leaves no freedom. */
TEST(codec_known_answers_encode)
{
    struct basalt_codec *c;
    uint8_t out[64];
    size_t n;
    CHECK_OK(basalt_codec_new(BASALT_CODEC_SNAPPY, 0, &c, NULL), NULL);
    CHECK_OK(basalt_codec_compress(c, "hello", 5, out, sizeof out, &n, NULL), NULL);
    CHECK_EQ(n, sizeof snappy_hello);
    CHECK_MEM(out, snappy_hello, n);
    basalt_codec_free(c);
    CHECK_OK(basalt_codec_new(BASALT_CODEC_LZ4_HADOOP, 0, &c, NULL), NULL);
    CHECK_OK(basalt_codec_compress(c, "hello", 5, out, sizeof out, &n, NULL), NULL);
    CHECK_EQ(n, sizeof hadoop_hello);
    CHECK_MEM(out, hadoop_hello, n);
    basalt_codec_free(c);
    /* gzip: the fixed header fields RFC 1952 prescribes for a stream
     * without a name or time, and ISIZE in the trailer. */
    CHECK_OK(basalt_codec_new(BASALT_CODEC_GZIP, 6, &c, NULL), NULL);
    CHECK_OK(basalt_codec_compress(c, "hello", 5, out, sizeof out, &n, NULL), NULL);
    CHECK(n >= 18);
    CHECK_EQ(out[0], 0x1f);
    CHECK_EQ(out[1], 0x8b);
    CHECK_EQ(out[2], 8);
    CHECK_MEM(out + n - 8, "\x86\xa6\x10\x36\x05\x00\x00\x00", 8); /* CRC-32 of "hello", 5 */
    basalt_codec_free(c);
}
