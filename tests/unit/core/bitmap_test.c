#include "test.h"

/* The oracle: one bit at a time, written without the library. */
static int naive_get(const uint8_t *bits, int64_t i) { return (bits[i / 8] >> (i % 8)) & 1; }

TEST(bitmap_get_set_lsb_order)
{
    uint8_t bits[2] = {0, 0};
    basalt_bitmap_set(bits, 0, true);
    basalt_bitmap_set(bits, 3, true);
    basalt_bitmap_set(bits, 9, true);
    CHECK_EQ(bits[0], 0x09);
    CHECK_EQ(bits[1], 0x02);
    basalt_bitmap_set(bits, 3, false);
    CHECK_EQ(bits[0], 0x01);
    CHECK(basalt_bitmap_get(bits, 9));
    CHECK(!basalt_bitmap_get(bits, 8));
    CHECK_EQ(basalt_bitmap_bytes(17), 3);
}

TEST(bitmap_count_matches_naive)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    uint8_t bits[300];
    for (int round = 0; round < 2000; round++) {
        bt_rng_fill(&rng, bits, sizeof bits);
        int64_t offset = (int64_t)bt_rng_below(&rng, 1200);
        int64_t length = (int64_t)bt_rng_below(&rng, 300 * 8 - (uint64_t)offset + 1);
        int64_t expected = 0;
        for (int64_t i = 0; i < length; i++)
            expected += naive_get(bits, offset + i);
        CHECK_EQ(basalt_bitmap_count(bits, offset, length), expected);
    }
}

TEST(bitmap_copy_matches_naive_and_preserves_outside)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    uint8_t src[256], dst[260], before[260];
    for (int round = 0; round < 5000; round++) {
        bt_rng_fill(&rng, src, sizeof src);
        bt_rng_fill(&rng, dst, sizeof dst);
        memcpy(before, dst, sizeof dst);
        int64_t so = (int64_t)bt_rng_below(&rng, 700);
        int64_t dof = (int64_t)bt_rng_below(&rng, 700);
        int64_t maxlen = 256 * 8 - so < 260 * 8 - dof ? 256 * 8 - so : 260 * 8 - dof;
        int64_t length = (int64_t)bt_rng_below(&rng, (uint64_t)maxlen + 1);
        if (round % 4 == 0) { /* exercise the aligned path often */
            so &= ~7;
            dof &= ~7;
        }
        basalt_bitmap_copy(dst, dof, src, so, length);
        for (int64_t i = 0; i < 260 * 8; i++) {
            int expected = (i >= dof && i < dof + length) ? naive_get(src, so + i - dof)
                                                          : naive_get(before, i);
            CHECK_MSG(naive_get(dst, i) == expected,
                      "round %d: bit %" PRId64 " (so=%" PRId64 " do=%" PRId64 " len=%" PRId64 ")",
                      round, i, so, dof, length);
        }
    }
}

TEST(bitmap_fill_range)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 3);
    uint8_t bits[64], before[64];
    for (int round = 0; round < 1000; round++) {
        bt_rng_fill(&rng, bits, sizeof bits);
        memcpy(before, bits, sizeof bits);
        int64_t off = (int64_t)bt_rng_below(&rng, 512);
        int64_t len = (int64_t)bt_rng_below(&rng, (uint64_t)(512 - off + 1));
        bool v = round & 1;
        basalt_bitmap_fill(bits, off, len, v);
        for (int64_t i = 0; i < 512; i++) {
            int expected = (i >= off && i < off + len) ? v : naive_get(before, i);
            CHECK_EQ(naive_get(bits, i), expected);
        }
    }
}
