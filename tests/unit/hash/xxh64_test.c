/* XXH64: xxHash's own sanity table, vectors from the independent Python
 * reference in gen_vectors.py, and random buffers against libxxhash's
 * streaming interface fed in random pieces. */
#include <xxhash.h>

#include "basalt/hash.h"
#include "test.h"

/* xxHash's sanity buffer: bytes from a PRIME64 linear congruential generator. */
static void sanity_buffer(uint8_t *buf, size_t n)
{
    uint64_t gen = 2654435761u;
    for (size_t i = 0; i < n; i++) {
        buf[i] = (uint8_t)(gen >> 56);
        gen *= UINT64_C(11400714785074694797);
    }
}

TEST(xxh64_sanity_table)
{
    static const struct {
        size_t len;
        uint64_t seed;
        uint64_t want;
    } v[] = {
        {0, 0, UINT64_C(0xEF46DB3751D8E999)},
        {1, 0, UINT64_C(0xE934A84ADB052768)},
        {1, 2654435761u, UINT64_C(0x5014607643A9B4C3)},
        {4, 0, UINT64_C(0x9136A0DCA57457EE)},
        {14, 0, UINT64_C(0x8282DCC4994E35C8)},
        {14, 2654435761u, UINT64_C(0xC3BD6BF63DEB6DF0)},
        {222, 0, UINT64_C(0xB641AE8CB691C174)},
        {222, 2654435761u, UINT64_C(0x20CB8AB7AE10C14A)},
    };
    uint8_t buf[222];
    sanity_buffer(buf, sizeof buf);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        CHECK_MSG(basalt_hash_xxh64(buf, v[i].len, v[i].seed) == v[i].want,
                  "len %zu seed %" PRIu64 ": 0x%016" PRIx64, v[i].len, v[i].seed,
                  basalt_hash_xxh64(buf, v[i].len, v[i].seed));
    CHECK_UEQ(basalt_hash_xxh64("", 0, 0), UINT64_C(0xEF46DB3751D8E999));
    CHECK_UEQ(basalt_hash_xxh64(NULL, 0, 0), UINT64_C(0xEF46DB3751D8E999));
}

TEST(xxh64_reference_vectors)
{
    static const struct {
        size_t len;
        uint64_t seed;
        uint64_t want;
    } v[] = {
        {1, UINT64_C(0x0000000000000000), UINT64_C(0xA96C7F0CE858BBB7)},
        {1, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0xEEFF9775E61E8470)},
        {3, UINT64_C(0x0000000000000000), UINT64_C(0x56E6957632A487F9)},
        {3, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0xA75A638E2A43ACDC)},
        {4, UINT64_C(0x0000000000000000), UINT64_C(0xC60D15B1E3FF8F04)},
        {4, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x8B50D63FD403E13B)},
        {7, UINT64_C(0x0000000000000000), UINT64_C(0xAFBEFC3D6C6F9A8E)},
        {7, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0xF4323CB8B1547049)},
        {8, UINT64_C(0x0000000000000000), UINT64_C(0x3DA5C7AA269683E0)},
        {8, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x1582EEADBDCA9B26)},
        {11, UINT64_C(0x0000000000000000), UINT64_C(0x1FC070E44716BD8E)},
        {11, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0xBC926EADFEFA3B82)},
        {12, UINT64_C(0x0000000000000000), UINT64_C(0x8FE8AB1C1FD0666E)},
        {12, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x6FB59C9906CE7D6E)},
        {31, UINT64_C(0x0000000000000000), UINT64_C(0x4A74F3A1A39AD4A1)},
        {31, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0xE8DB7B7D60CFC60C)},
        {32, UINT64_C(0x0000000000000000), UINT64_C(0x8D57D6A4671CC43D)},
        {32, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0xB18F6D1AB751D5A1)},
        {33, UINT64_C(0x0000000000000000), UINT64_C(0x62C9FD21ED857664)},
        {33, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x532D6D7663E7E9D8)},
        {63, UINT64_C(0x0000000000000000), UINT64_C(0x5C320A0D2707057F)},
        {63, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0xE25967F3FCFBA741)},
        {64, UINT64_C(0x0000000000000000), UINT64_C(0x7BBABBC45729D17E)},
        {64, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x9AC8B8E5B8FFE0BC)},
        {65, UINT64_C(0x0000000000000000), UINT64_C(0xF3980C34BAE65DC1)},
        {65, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x683E13851F285254)},
        {100, UINT64_C(0x0000000000000000), UINT64_C(0xEFA0AD2D3E70C151)},
        {100, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x48130CF8D0409169)},
        {1000, UINT64_C(0x0000000000000000), UINT64_C(0x99594F4828043D35)},
        {1000, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x8C155A127F7120FF)},
        {4096, UINT64_C(0x0000000000000000), UINT64_C(0xE21174BE82DC78D9)},
        {4096, UINT64_C(0x27D4EB2F165667C5), UINT64_C(0x1C04E760C7FCAD42)},
    };
    static uint8_t buf[4096 + 8];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        for (size_t off = 0; off < 8; off += 3) {
            for (size_t j = 0; j < v[i].len; j++) /* pattern(n) of gen_vectors.py */
                buf[off + j] = (uint8_t)(j * 31 + 7);
            uint64_t got = basalt_hash_xxh64(buf + off, v[i].len, v[i].seed);
            CHECK_MSG(got == v[i].want, "len %zu seed 0x%" PRIx64 ": 0x%016" PRIx64, v[i].len,
                      v[i].seed, got);
        }
    }
}

TEST(xxh64_random_buffers_match_streaming)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 0x64);
    size_t cap = 1 << 18;
    uint8_t *buf = basalt_malloc(cap);
    CHECK(buf != NULL);
    XXH64_state_t *state = XXH64_createState();
    CHECK(state != NULL);
    int failed = 0;
    for (int iter = 0; iter < 300 && !failed; iter++) {
        size_t len = iter < 80 ? (size_t)iter : (size_t)bt_rng_below(&rng, cap);
        uint64_t seed = iter % 2 ? bt_rng_next(&rng) : 0;
        bt_rng_fill(&rng, buf, len);
        XXH64_reset(state, seed);
        size_t pos = 0;
        while (pos < len) {
            size_t take = (size_t)bt_rng_below(&rng, iter % 3 ? 40 : len - pos + 1);
            if (take > len - pos)
                take = len - pos;
            XXH64_update(state, buf + pos, take);
            pos += take;
        }
        uint64_t want = XXH64_digest(state);
        uint64_t got = basalt_hash_xxh64(buf, len, seed);
        if (got != want) {
            bt_fail(__FILE__, __LINE__, "len %zu: 0x%016" PRIx64 " != streamed 0x%016" PRIx64,
                    len, got, want);
            failed = 1;
        }
    }
    XXH64_freeState(state);
    basalt_free(buf);
}
