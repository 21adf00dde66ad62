/* Repetition and definition levels: int16 decoding with the maximum checked,
 * validity bitmaps, the deprecated BIT_PACKED layout, and the encoder. */
#include "parquet_encoding.h"
#include "test.h"

static void make_levels(struct bt_rng *rng, int16_t *v, size_t n, int16_t max)
{
    size_t i = 0;
    while (i < n) {
        int16_t value = (int16_t)bt_rng_below(rng, (uint64_t)max + 1);
        size_t run = bt_rng_below(rng, 3) == 0 ? (size_t)bt_rng_below(rng, 50) + 1 : 1;
        for (size_t k = 0; k < run && i < n; k++)
            v[i++] = value;
    }
}

TEST(levels_round_trip_v1_and_v2)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 21);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    static const int16_t maxes[] = {0, 1, 2, 3, 4, 7, 8, 100, 255, 256, 1000, 32767};
    for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
        for (int prefixed = 0; prefixed < 2; prefixed++) {
            int16_t max = maxes[m];
            size_t n = (size_t)bt_rng_below(&rng, 4000);
            int16_t *v = basalt_malloc((n + 1) * sizeof *v), *out = basalt_malloc((n + 1) * 2);
            CHECK(v && out);
            make_levels(&rng, v, n, max);
            buf.size = 0;
            CHECK_OK(basalt_parquet_levels_encode(v, n, max, prefixed, &buf, &err), &err);
            if (prefixed) {
                uint32_t body;
                memcpy(&body, buf.data, 4);
                CHECK_EQ(body, buf.size - 4);
            }
            /* Values follow the levels in a page: the decoder must stop at its end. */
            size_t levels_len = buf.size;
            static const uint8_t tail[5] = {0xde, 0xad, 0xbe, 0xef, 0x00};
            CHECK_OK(basalt_buffer_append(&buf, tail, 5, &err), &err);
            struct basalt_parquet_rle_decoder dec;
            size_t used = 0;
            CHECK_OK(basalt_parquet_levels_init(&dec, buf.data,
                                                prefixed ? buf.size : levels_len, max, n,
                                                prefixed, &used, &err),
                     &err);
            CHECK_EQ(used, levels_len);
            size_t half = (size_t)bt_rng_below(&rng, n + 1);
            CHECK_OK(basalt_parquet_levels_decode(&dec, half, max, out, &err), &err);
            CHECK_OK(basalt_parquet_levels_decode(&dec, n - half, max, out + half, &err), &err);
            CHECK_MEM(out, v, n * sizeof *v);
            CHECK_STATUS(basalt_parquet_levels_decode(&dec, 1, max, out, &err), BASALT_CORRUPT,
                         &err);
            basalt_free(v);
            basalt_free(out);
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(levels_above_the_maximum_are_corrupt)
{
    struct basalt_error err;
    struct basalt_parquet_rle_decoder dec;
    int16_t out[16];
    /* Max level 2 has width 2, so 3 is representable but out of range: as a
     * repeated run (header 4 << 1, value 3) ... */
    static const uint8_t repeat3[] = {0x08, 0x03};
    CHECK_OK(basalt_parquet_levels_init(&dec, repeat3, 2, 2, 4, false, NULL, &err), &err);
    CHECK_STATUS(basalt_parquet_levels_decode(&dec, 4, 2, out, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "level 3 exceeds the maximum 2") != NULL);
    /* ... and inside a bit-packed group (0,1,2,3,0,0,0,0 at width 2). */
    static const uint8_t packed[] = {0x03, 0xe4, 0x00};
    CHECK_OK(basalt_parquet_levels_init(&dec, packed, 3, 2, 8, false, NULL, &err), &err);
    CHECK_STATUS(basalt_parquet_levels_decode(&dec, 8, 2, out, &err), BASALT_CORRUPT, &err);
    CHECK_OK(basalt_parquet_levels_init(&dec, packed, 3, 3, 8, false, NULL, &err), &err);
    CHECK_OK(basalt_parquet_levels_decode(&dec, 8, 3, out, &err), &err);
    CHECK_EQ(out[0], 0);
    CHECK_EQ(out[1], 1);
    CHECK_EQ(out[2], 2);
    CHECK_EQ(out[3], 3);
    /* Encoding refuses levels out of range. */
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    int16_t bad[2] = {1, 5};
    CHECK_STATUS(basalt_parquet_levels_encode(bad, 2, 4, true, &buf, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK_EQ(buf.size, 0);
    bad[1] = -1;
    CHECK_STATUS(basalt_parquet_levels_encode(bad, 2, 4, false, &buf, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_buffer_reset(&buf);
}

TEST(levels_validity_bitmap_and_null_count)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 22);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)bt_rng_below(&rng, 3000);
        int16_t *v = basalt_malloc((n + 1) * sizeof *v);
        CHECK(v);
        make_levels(&rng, v, n, 1);
        if (round % 7 == 0) /* all null, all valid */
            for (size_t i = 0; i < n; i++)
                v[i] = (int16_t)(round % 14 == 0);
        buf.size = 0;
        CHECK_OK(basalt_parquet_levels_encode(v, n, 1, true, &buf, &err), &err);
        struct basalt_parquet_rle_decoder dec;
        CHECK_OK(basalt_parquet_levels_init(&dec, buf.data, buf.size, 1, n, true, NULL, &err),
                 &err);
        int64_t offset = (int64_t)bt_rng_below(&rng, 70);
        size_t nbytes = (size_t)(offset + (int64_t)n + 7) / 8 + 2;
        uint8_t *bits = basalt_malloc(nbytes), *before = basalt_malloc(nbytes);
        CHECK(bits && before);
        bt_rng_fill(&rng, bits, nbytes);
        memcpy(before, bits, nbytes);
        uint64_t nulls = 12345, expect_nulls = 0;
        CHECK_OK(basalt_parquet_levels_decode_validity(&dec, n, bits, offset, &nulls, &err),
                 &err);
        for (size_t i = 0; i < n; i++)
            expect_nulls += v[i] == 0;
        CHECK_EQ(nulls, expect_nulls);
        for (int64_t b = 0; b < (int64_t)nbytes * 8; b++) {
            bool want = (b >= offset && b < offset + (int64_t)n) ? v[b - offset] == 1
                                                                 : basalt_bitmap_get(before, b);
            CHECK_MSG(basalt_bitmap_get(bits, b) == want, "round %d bit %d", round, (int)b);
        }
        basalt_free(bits);
        basalt_free(before);
        basalt_free(v);
    }
    basalt_buffer_reset(&buf);
}

TEST(levels_deprecated_bit_packed)
{
    /* Encodings.md, BIT_PACKED: 0..7 with width 3, MSB first, is
     * 00000101 00111001 01110111. */
    static const uint8_t spec[] = {0x05, 0x39, 0x77};
    int16_t out[8];
    size_t used = 0;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_levels_decode_bit_packed(spec, 3, 8, 7, out, &used, &err), &err);
    CHECK_EQ(used, 3);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(out[i], i);
    /* The spec's sizing example: 30 values of 2 bits take 8 bytes. */
    uint8_t thirty[8] = {0};
    int16_t out30[30];
    CHECK_OK(basalt_parquet_levels_decode_bit_packed(thirty, 8, 30, 3, out30, &used, &err), &err);
    CHECK_EQ(used, 8);
    CHECK_STATUS(basalt_parquet_levels_decode_bit_packed(thirty, 7, 30, 3, out30, &used, &err),
                 BASALT_CORRUPT, &err);
    /* Width 3 allows 7 but a max level of 6 does not. */
    CHECK_STATUS(basalt_parquet_levels_decode_bit_packed(spec, 3, 8, 6, out, &used, &err),
                 BASALT_CORRUPT, &err);
    /* Max level 0: nothing stored. */
    CHECK_OK(basalt_parquet_levels_decode_bit_packed(NULL, 0, 5, 0, out, &used, &err), &err);
    CHECK_EQ(used, 0);
    CHECK_EQ(out[4], 0);
}

TEST(levels_max_zero_needs_no_bytes)
{
    /* Max level 0 is width 0: a repeated run with no value bytes. */
    struct basalt_error err;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    int16_t zeros[100] = {0}, out[100];
    CHECK_OK(basalt_parquet_levels_encode(zeros, 100, 0, false, &buf, &err), &err);
    CHECK_EQ(buf.size, 2); /* header 100 << 1 = 200 as a two-byte varint */
    struct basalt_parquet_rle_decoder dec;
    CHECK_OK(basalt_parquet_levels_init(&dec, buf.data, buf.size, 0, 100, false, NULL, &err), &err);
    CHECK_OK(basalt_parquet_levels_decode(&dec, 100, 0, out, &err), &err);
    CHECK_MEM(out, zeros, sizeof zeros);
    basalt_buffer_reset(&buf);
}
