/* Spreading dense values over their slots (encoding_spaced.c) against a
 * one-slot-at-a-time reference, over random validity of every density
 * (all valid, all null, 1% null, half, 99% null), bit offsets that are not
 * byte-aligned, counts that end inside a 64-slot window, and every width the
 * decoders use. Bytes and bits outside the spread range must not change. */
#include <stdlib.h>

#include "parquet_encoding.h"
#include "test.h"

static bool bit_at(const uint8_t *b, int64_t i)
{
    return (b[i >> 3] >> (i & 7)) & 1;
}

static void random_validity(struct bt_rng *rng, uint8_t *v, size_t bytes, unsigned null_per_1000)
{
    memset(v, 0, bytes);
    for (size_t i = 0; i < bytes * 8; i++)
        if (bt_rng_below(rng, 1000) >= null_per_1000)
            v[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static const unsigned densities[] = {0, 10, 500, 990, 1000};

TEST(spaced_expand_fixed_matches_reference)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    static const size_t widths[] = {1, 2, 4, 8, 12, 16};
    for (int round = 0; round < 300; round++) {
        const size_t width = widths[round % 6];
        const unsigned nulls = densities[(round / 6) % 5];
        const uint64_t count = bt_rng_below(&rng, 700);
        const int64_t offset = (int64_t)bt_rng_below(&rng, 70);
        uint8_t validity[128];
        random_validity(&rng, validity, sizeof validity, nulls);
        uint64_t valid = 0;
        for (uint64_t i = 0; i < count; i++)
            valid += bit_at(validity, offset + (int64_t)i);
        uint8_t *vals = basalt_malloc((count + 1) * width);
        uint8_t *want = basalt_malloc((count + 1) * width);
        CHECK(vals && want);
        bt_rng_fill(&rng, vals, (count + 1) * width);
        /* Reference: dense value j goes to the j-th valid slot, null slots are zero. */
        uint64_t j = 0;
        for (uint64_t i = 0; i < count; i++) {
            if (bit_at(validity, offset + (int64_t)i))
                memcpy(want + i * width, vals + j++ * width, width);
            else
                memset(want + i * width, 0, width);
        }
        memcpy(want + count * width, vals + count * width, width); /* untouched */
        CHECK_EQ(j, valid);
        basalt_parquet_spaced_expand_fixed(vals, width, count, validity, offset);
        bool same = memcmp(vals, want, (count + 1) * width) == 0;
        basalt_free(vals);
        basalt_free(want);
        if (!same)
            fprintf(stderr, "round %d: width %zu count %" PRIu64 " offset %" PRId64 "\n", round,
                    width, count, offset);
        CHECK(same);
    }
}

TEST(spaced_expand_bits_matches_reference)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    for (int round = 0; round < 500; round++) {
        const unsigned nulls = densities[round % 5];
        const uint64_t count = bt_rng_below(&rng, 900);
        const int64_t offset = (int64_t)bt_rng_below(&rng, 70);
        const int64_t bits_offset = (int64_t)bt_rng_below(&rng, 70);
        uint8_t validity[128], bits[128], want[128];
        random_validity(&rng, validity, sizeof validity, nulls);
        bt_rng_fill(&rng, bits, sizeof bits);
        memcpy(want, bits, sizeof bits);
        uint64_t j = 0;
        for (uint64_t i = 0; i < count; i++) {
            bool v = false;
            if (bit_at(validity, offset + (int64_t)i))
                v = bit_at(bits, bits_offset + (int64_t)j++);
            int64_t at = bits_offset + (int64_t)i;
            want[at >> 3] = (uint8_t)(v ? want[at >> 3] | (1u << (at & 7))
                                        : want[at >> 3] & ~(1u << (at & 7)));
        }
        basalt_parquet_spaced_expand_bits(bits, bits_offset, count, validity, offset);
        bool same = memcmp(bits, want, sizeof bits) == 0;
        if (!same)
            fprintf(stderr, "round %d: count %" PRIu64 " offset %" PRId64 " bits_offset %" PRId64
                    "\n", round, count, offset, bits_offset);
        CHECK(same);
    }
}

/* No validity: every slot is valid and nothing moves. */
TEST(spaced_expand_bits_without_validity_is_identity)
{
    uint8_t bits[16], want[16];
    for (int i = 0; i < 16; i++)
        bits[i] = want[i] = (uint8_t)(i * 37 + 5);
    basalt_parquet_spaced_expand_bits(bits, 3, 100, NULL, 0);
    CHECK(memcmp(bits, want, sizeof bits) == 0);
}
