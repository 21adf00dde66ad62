/* Dictionary string gather by piece shape: pieces whose values are all at
 * most 16 bytes, at most 32, or longer take different copy loops, and values
 * at the very end of the dictionary cannot take a fixed move. Each shape is
 * built on purpose, against an exact-size heap copy of the dictionary (so a
 * read past it is caught by the sanitizers) and checked value by value
 * against the dictionary itself. */
#include "parquet_encoding.h"
#include "test.h"

#define SHAPE_MAX_DICT 4096
#define SHAPE_MAX_COUNT 5000

/* count values with lengths in [lo, hi]; the last entry gets `last_len`. */
static void shape_dict(struct bt_rng *rng, int32_t *offsets, uint8_t *bytes, uint32_t count,
                       uint32_t lo, uint32_t hi, uint32_t last_len)
{
    offsets[0] = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t len = i + 1 == count ? last_len : lo + (uint32_t)bt_rng_below(rng, hi - lo + 1);
        bt_rng_fill(rng, bytes + offsets[i], len);
        offsets[i + 1] = offsets[i] + (int32_t)len;
    }
}

/* Literal indices only (no runs): every piece is a gather. Every 7th index
 * is the dictionary's last entry, whose bytes end the dictionary. */
static void shape_indices(struct bt_rng *rng, uint32_t *idx, size_t n, uint32_t dict_len)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = i % 7 == 3 ? dict_len - 1 : (uint32_t)bt_rng_below(rng, dict_len);
}

static void check_shape(uint32_t dict_len, uint32_t lo, uint32_t hi, uint32_t last_len,
                        bool large, bool spaced, uint64_t seed)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    struct basalt_error err;
    static int32_t offsets[SHAPE_MAX_DICT + 1];
    static uint8_t bytes[SHAPE_MAX_DICT * 64];
    static uint32_t idx[SHAPE_MAX_COUNT];
    shape_dict(&rng, offsets, bytes, dict_len, lo, hi, last_len);
    size_t dbytes = (size_t)offsets[dict_len];
    uint8_t *dcopy = basalt_malloc(dbytes ? dbytes : 1);
    CHECK(dcopy);
    memcpy(dcopy, bytes, dbytes);
    struct basalt_parquet_dict_binary dict = {offsets, dcopy, dict_len};

    size_t count = SHAPE_MAX_COUNT;
    uint8_t validity[(SHAPE_MAX_COUNT + 7) / 8];
    bt_rng_fill(&rng, validity, sizeof validity);
    const uint8_t *vp = spaced ? validity : NULL;
    uint64_t n = basalt_parquet_count_valid(vp, 0, count);
    shape_indices(&rng, idx, (size_t)n, dict_len);
    struct basalt_buffer page;
    basalt_buffer_init(&page);
    CHECK_OK(basalt_parquet_dict_encode_indices(idx, (size_t)n, dict_len, &page, &err), &err);

    struct basalt_buffer data;
    basalt_buffer_init(&data);
    int32_t *o32 = basalt_malloc((count + 1) * sizeof *o32);
    int64_t *o64 = basalt_malloc((count + 1) * sizeof *o64);
    CHECK(o32 && o64);
    struct basalt_parquet_binary_out out = {large ? NULL : o32, large ? o64 : NULL, &data, 0};
    struct basalt_parquet_rle_decoder dec;
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, page.data, page.size, n, &err), &err);
    CHECK_OK(basalt_parquet_dict_gather_binary(&dec, &dict, count, vp, 0, &out, &err), &err);

    size_t k = 0;
    int64_t expect_end = 0;
    CHECK_EQ(large ? o64[0] : o32[0], 0);
    for (size_t i = 0; i < count; i++) {
        int64_t s = large ? o64[i] : o32[i];
        int64_t e = large ? o64[i + 1] : o32[i + 1];
        CHECK_EQ(s, expect_end);
        if (!vp || basalt_bitmap_get(vp, (int64_t)i)) {
            uint32_t d = idx[k++];
            int64_t len = offsets[d + 1] - offsets[d];
            CHECK_EQ(e - s, len);
            CHECK_MEM(data.data + s, bytes + offsets[d], (size_t)len);
        } else {
            CHECK_EQ(e, s);
        }
        expect_end = e;
    }
    CHECK_EQ(k, n);
    CHECK_EQ(data.size, (size_t)expect_end);
    basalt_free(o32);
    basalt_free(o64);
    basalt_free(dcopy);
    basalt_buffer_reset(&data);
    basalt_buffer_reset(&page);
}

TEST(dict_gather_binary_short_values)
{
    /* Every value 0..16 bytes: the 16-byte moves, the last entry (16 bytes
     * ending the dictionary, then 3 bytes) copied exactly. */
    for (int large = 0; large < 2; large++)
        for (int spaced = 0; spaced < 2; spaced++) {
            check_shape(100, 6, 12, 16, large, spaced, 101);
            check_shape(100, 0, 16, 3, large, spaced, 102);
            check_shape(1, 5, 5, 5, large, spaced, 103);
        }
}

TEST(dict_gather_binary_medium_values)
{
    /* Values up to 32 bytes (the flat.parquet s10k shape is 10..22): the
     * 32-byte moves, mixed with values under 16. */
    for (int large = 0; large < 2; large++)
        for (int spaced = 0; spaced < 2; spaced++) {
            check_shape(4000, 10, 22, 22, large, spaced, 201);
            check_shape(300, 0, 32, 32, large, spaced, 202);
            check_shape(2, 17, 17, 1, large, spaced, 203);
        }
}

TEST(dict_gather_binary_long_values)
{
    /* One value over 32 bytes in every piece: exact copies. */
    for (int large = 0; large < 2; large++)
        for (int spaced = 0; spaced < 2; spaced++) {
            check_shape(50, 0, 40, 33, large, spaced, 301);
            check_shape(3, 60, 64, 64, large, spaced, 302);
        }
}

TEST(dict_gather_binary_empty_values)
{
    /* A dictionary of empty strings: nothing to copy, zero-length moves at
     * offset 0 of an empty dictionary. */
    for (int large = 0; large < 2; large++)
        check_shape(5, 0, 0, 0, large, true, 401);
}
