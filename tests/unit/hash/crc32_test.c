/* CRC-32: check values from the CRC catalogue and gzip, and random buffers
 * and continuation splits against zlib's crc32() as an independent oracle.
 */
#include <zlib.h>

#include "basalt/hash.h"
#include "test.h"

static unsigned long zlib_crc32(unsigned long crc, const unsigned char *buf, unsigned int len)
{
    return crc32(crc, buf, len);
}

TEST(crc32_check_values)
{
    /* The CRC-32/ISO-HDLC check value (CRC RevEng catalogue). */
    CHECK_UEQ(basalt_hash_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_UEQ(basalt_hash_crc32(0, "", 0), 0);
    CHECK_UEQ(basalt_hash_crc32(0, NULL, 0), 0);
    CHECK_UEQ(basalt_hash_crc32(0x12345678u, NULL, 0), 0x12345678u);
    CHECK_UEQ(basalt_hash_crc32(0, "a", 1), 0xE8B7BE43u);
    CHECK_UEQ(basalt_hash_crc32(0, "The quick brown fox jumps over the lazy dog", 43),
              0x414FA339u);
    /* 32 zero bytes and 32 0xff bytes, values from Python's zlib.crc32. */
    uint8_t zeros[32] = {0}, ones[32];
    memset(ones, 0xff, sizeof ones);
    CHECK_UEQ(basalt_hash_crc32(0, zeros, 32), 0x190A55ADu);
    CHECK_UEQ(basalt_hash_crc32(0, ones, 32), 0xFF6CAB0Bu);
}

TEST(crc32_continuation_is_concatenation)
{
    CHECK_UEQ(basalt_hash_crc32(basalt_hash_crc32(0, "12345", 5), "6789", 4), 0xCBF43926u);
    CHECK_UEQ(basalt_hash_crc32(basalt_hash_crc32(0, "123456789", 9), "", 0), 0xCBF43926u);
}

TEST(crc32_random_buffers_match_zlib)
{
    unsigned long (*zcrc)(unsigned long, const unsigned char *, unsigned int) = zlib_crc32;
    struct bt_rng rng;
    bt_rng_seed(&rng, 0xc3c32);
    size_t cap = 1 << 20;
    uint8_t *buf = basalt_malloc(cap + 16);
    CHECK(buf != NULL);
    int failed = 0;
    for (int iter = 0; iter < 300 && !failed; iter++) {
        /* Short lengths and odd alignments stress the SIMD head and tail paths. */
        size_t len = iter < 100 ? (size_t)iter
                                : (size_t)bt_rng_below(&rng, iter % 10 == 0 ? cap : 4096);
        size_t off = (size_t)bt_rng_below(&rng, 16);
        bt_rng_fill(&rng, buf + off, len);
        uint32_t want = (uint32_t)zcrc(0, buf + off, (unsigned)len);
        uint32_t got = basalt_hash_crc32(0, buf + off, len);
        if (got != want) {
            bt_fail(__FILE__, __LINE__, "len %zu off %zu: 0x%08x != zlib 0x%08x", len, off, got,
                    want);
            failed = 1;
            break;
        }
        /* Random splits into up to 8 pieces, continued piece by piece. */
        uint32_t crc = (uint32_t)bt_rng_next(&rng);
        uint32_t want_seeded = (uint32_t)zcrc(crc, buf + off, (unsigned)len);
        size_t pos = 0;
        for (int piece = 0; piece < 8 && pos < len; piece++) {
            size_t take = piece == 7 ? len - pos : (size_t)bt_rng_below(&rng, len - pos + 1);
            crc = basalt_hash_crc32(crc, buf + off + pos, take);
            pos += take;
        }
        crc = basalt_hash_crc32(crc, buf + off + pos, len - pos);
        if (crc != want_seeded) {
            bt_fail(__FILE__, __LINE__, "split len %zu: 0x%08x != zlib 0x%08x", len, crc,
                    want_seeded);
            failed = 1;
        }
    }
    basalt_free(buf);
}
