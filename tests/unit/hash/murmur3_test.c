/* MurmurHash3 x86_32: widely published values, Iceberg's Appendix B, and
 * vectors from the independent Python reference in gen_vectors.py. */
#include "basalt/hash.h"
#include "test.h"

TEST(murmur3_published_vectors)
{
    static const struct {
        const char *data;
        size_t len;
        uint32_t seed;
        uint32_t want;
    } v[] = {
        {"", 0, 0, 0},
        {"", 0, 1, 0x514E28B7u},
        {"", 0, 0xFFFFFFFFu, 0x81F16F39u},
        {"\0\0\0\0", 4, 0, 0x2362F9DEu},
        {"aaaa", 4, 0x9747B28Cu, 0x5A97808Au},
        {"Hello, world!", 13, 0x9747B28Cu, 0x24884CBAu},
        {"The quick brown fox jumps over the lazy dog", 43, 0x9747B28Cu, 0x2FA826CDu},
        /* Iceberg spec Appendix B */
        {"iceberg", 7, 0, 1210000089u},
        {"\x00\x01\x02\x03", 4, 0, (uint32_t)-188683207},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        CHECK_MSG(basalt_hash_murmur3_32(v[i].data, v[i].len, v[i].seed) == v[i].want,
                  "vector %zu: 0x%08x", i, basalt_hash_murmur3_32(v[i].data, v[i].len, v[i].seed));
    CHECK_UEQ(basalt_hash_murmur3_32(NULL, 0, 0), 0);
}

/* pattern(n): byte i = (i * 31 + 7) & 0xff, as in gen_vectors.py. */
static void pattern(uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(i * 31 + 7);
}

TEST(murmur3_reference_vectors_every_tail_length)
{
    static const struct {
        size_t len;
        uint32_t seed;
        uint32_t want;
    } v[] = {
        {1, 0x00000000U, 0x6882F382U},    {1, 0x9747B28CU, 0xAFA14D0CU},
        {2, 0x00000000U, 0x10665D92U},    {2, 0x9747B28CU, 0x632BEA95U},
        {3, 0x00000000U, 0x5DB0B144U},    {3, 0x9747B28CU, 0x3298A451U},
        {4, 0x00000000U, 0xC09A300EU},    {4, 0x9747B28CU, 0xE10F9125U},
        {5, 0x00000000U, 0x268013ADU},    {5, 0x9747B28CU, 0x64F9DFA8U},
        {7, 0x00000000U, 0x5B1BC169U},    {7, 0x9747B28CU, 0xCBBECE51U},
        {8, 0x00000000U, 0xECAD64A3U},    {8, 0x9747B28CU, 0x244A1AF6U},
        {9, 0x00000000U, 0xC4D63CF9U},    {9, 0x9747B28CU, 0xFD1BA07EU},
        {15, 0x00000000U, 0xC30C03DEU},   {15, 0x9747B28CU, 0xB905907DU},
        {16, 0x00000000U, 0x2A3AC0F6U},   {16, 0x9747B28CU, 0xA61BE608U},
        {17, 0x00000000U, 0x3E8A519EU},   {17, 0x9747B28CU, 0xA2CDD862U},
        {31, 0x00000000U, 0x46D9904DU},   {31, 0x9747B28CU, 0x39837028U},
        {32, 0x00000000U, 0x1E9978F3U},   {32, 0x9747B28CU, 0xA9F25F32U},
        {33, 0x00000000U, 0xD7D09E89U},   {33, 0x9747B28CU, 0xFC12F764U},
        {63, 0x00000000U, 0x2E88A5FDU},   {63, 0x9747B28CU, 0x017CF9A3U},
        {64, 0x00000000U, 0x4B946749U},   {64, 0x9747B28CU, 0xAAA2F2B2U},
        {100, 0x00000000U, 0x34C6BB9CU},  {100, 0x9747B28CU, 0x7BD4D1C7U},
        {255, 0x00000000U, 0xEC7A1D98U},  {255, 0x9747B28CU, 0xCD96E0EEU},
        {1000, 0x00000000U, 0x1785B9D8U}, {1000, 0x9747B28CU, 0xC8C7D595U},
    };
    uint8_t buf[1000 + 4];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        /* Every misalignment must give the same answer. */
        for (size_t off = 0; off < 4; off++) {
            pattern(buf + off, v[i].len);
            uint32_t got = basalt_hash_murmur3_32(buf + off, v[i].len, v[i].seed);
            CHECK_MSG(got == v[i].want, "len %zu seed 0x%08x off %zu: 0x%08x != 0x%08x", v[i].len,
                      v[i].seed, off, got, v[i].want);
        }
    }
}

TEST(murmur3_i64_vectors)
{
    static const struct {
        int64_t value;
        uint32_t want;
    } v[] = {
        {34, 2017239379u}, /* Iceberg spec Appendix B: int and long 34 */
        {0, 0x63852AFCU},
        {1, 0x53075D44U},
        {-1, 0x627564E8U},
        {INT64_C(2147483648), 0x170C521EU},
        {INT64_MIN, 0x516FAF25U},
        {INT64_MAX, 0x827144BFU},
        {INT64_C(1510871468000000), 0x85EED907U},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        CHECK_MSG(basalt_hash_murmur3_32_i64(v[i].value) == v[i].want, "value %" PRId64 ": 0x%08x",
                  v[i].value, basalt_hash_murmur3_32_i64(v[i].value));
}

TEST(murmur3_i64_equals_bytes_path)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 34);
    for (int i = 0; i < 10000; i++) {
        int64_t value = (int64_t)bt_rng_next(&rng);
        if (i % 3 == 0)
            value >>= bt_rng_below(&rng, 63);
        uint64_t u = (uint64_t)value;
        uint8_t le[8];
        for (int b = 0; b < 8; b++)
            le[b] = (uint8_t)(u >> (8 * b));
        CHECK_UEQ(basalt_hash_murmur3_32_i64(value), basalt_hash_murmur3_32(le, 8, 0));
    }
}
