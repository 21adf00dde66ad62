/* BYTE_STREAM_SPLIT: the spec's example, the vectorised transpose against
 * the scalar one, round trips of every width, spaced output. */
#include "parquet_encoding.h"
#include "test.h"

TEST(bss_spec_example)
{
    /* Encodings.md: three floats AA BB CC DD, 00 11 22 33, A3 B4 C5 D6 become
     * AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6. */
    static const uint8_t values[12] = {0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11,
                                       0x22, 0x33, 0xa3, 0xb4, 0xc5, 0xd6};
    static const uint8_t split[12] = {0xaa, 0x00, 0xa3, 0xbb, 0x11, 0xb4,
                                      0xcc, 0x22, 0xc5, 0xdd, 0x33, 0xd6};
    struct basalt_error err;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    CHECK_OK(basalt_parquet_bss_encode(values, 4, 3, NULL, 0, &buf, &err), &err);
    CHECK_EQ(buf.size, 12);
    CHECK_MEM(buf.data, split, 12);
    struct basalt_parquet_bss_decoder dec;
    uint8_t out[12];
    CHECK_OK(basalt_parquet_bss_decoder_init(&dec, split, 12, 4, &err), &err);
    CHECK_OK(basalt_parquet_bss_decode(&dec, 3, NULL, 0, out, &err), &err);
    CHECK_MEM(out, values, 12);
    CHECK_STATUS(basalt_parquet_bss_decode(&dec, 1, NULL, 0, out, &err), BASALT_CORRUPT, &err);
    /* No padding allowed: 13 bytes is not a whole number of floats. */
    CHECK_STATUS(basalt_parquet_bss_decoder_init(&dec, split, 11, 4, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_parquet_bss_decoder_init(&dec, split, 12, 0, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_buffer_reset(&buf);
}

TEST(bss_fast_transpose_matches_scalar)
{
    /* The SSE2 paths (widths 2, 4, 8) against the scalar oracle, with ragged
     * starts and lengths so the vector loop and its tail both run. */
    struct bt_rng rng;
    bt_rng_seed(&rng, 61);
    static const size_t widths[] = {1, 2, 3, 4, 5, 8, 12, 16};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        for (int round = 0; round < 50; round++) {
            size_t w = widths[wi];
            uint64_t stride = bt_rng_below(&rng, 300) + 1;
            uint64_t first = bt_rng_below(&rng, stride);
            size_t count = (size_t)bt_rng_below(&rng, stride - first + 1);
            uint8_t *streams = basalt_malloc(stride * w);
            uint8_t *a = basalt_malloc(count * w + 1), *b = basalt_malloc(count * w + 1);
            CHECK(streams && a && b);
            bt_rng_fill(&rng, streams, stride * w);
            basalt_parquet_bss_gather_scalar(streams, stride, w, first, count, a);
            size_t fast = basalt_parquet_bss_gather(streams, stride, w, first, count, b);
            CHECK_MEM(a, b, count * w);
#if defined(__SSE2__)
            /* The vector loop takes every whole block of 16 at these widths. */
            if (w == 2 || w == 4 || w == 8)
                CHECK_EQ(fast, count - count % 16);
            else
                CHECK_EQ(fast, 0);
#else
            CHECK_EQ(fast, 0);
#endif
            /* And the scalar one against the definition. */
            for (size_t i = 0; i < count; i++)
                for (size_t k = 0; k < w; k++)
                    CHECK_EQ(a[i * w + k], streams[k * stride + first + i]);
            basalt_free(streams);
            basalt_free(a);
            basalt_free(b);
        }
    }
}

TEST(bss_round_trip_spaced)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 62);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    /* FLOAT16 2, FLOAT/INT32 4, DOUBLE/INT64 8, FLBA 3, 16. */
    static const size_t widths[] = {2, 4, 8, 3, 16};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        for (int round = 0; round < 30; round++) {
            size_t w = widths[wi], count = (size_t)bt_rng_below(&rng, round < 2 ? 2 : 2000);
            uint8_t *v = basalt_malloc(count * w + 1), *o = basalt_malloc(count * w + 1);
            uint8_t validity[260];
            CHECK(v && o);
            bt_rng_fill(&rng, v, count * w);
            bt_rng_fill(&rng, validity, sizeof validity);
            if (round % 4 == 0)
                memset(validity, round % 8 ? 0xff : 0, sizeof validity);
            const uint8_t *vp = round % 3 == 0 ? NULL : validity;
            buf.size = 0;
            CHECK_OK(basalt_parquet_bss_encode(v, w, count, vp, 4, &buf, &err), &err);
            uint64_t n = basalt_parquet_count_valid(vp, 4, count);
            CHECK_EQ(buf.size, n * w);
            uint8_t *exact = basalt_malloc(buf.size + 1);
            CHECK(exact);
            if (buf.size)
                memcpy(exact, buf.data, buf.size);
            struct basalt_parquet_bss_decoder dec;
            CHECK_OK(basalt_parquet_bss_decoder_init(&dec, exact, buf.size, w, &err), &err);
            size_t half = (size_t)bt_rng_below(&rng, count + 1);
            CHECK_OK(basalt_parquet_bss_decode(&dec, half, vp, 4, o, &err), &err);
            CHECK_OK(basalt_parquet_bss_decode(&dec, count - half, vp, 4 + (int64_t)half,
                                               o + half * w, &err),
                     &err);
            for (size_t i = 0; i < count; i++) {
                if (!vp || basalt_bitmap_get(vp, 4 + (int64_t)i)) {
                    CHECK_MEM(o + i * w, v + i * w, w);
                } else {
                    for (size_t b = 0; b < w; b++)
                        CHECK_EQ(o[i * w + b], 0);
                }
            }
            basalt_free(exact);
            basalt_free(v);
            basalt_free(o);
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(spaced_expand_against_naive)
{
    /* The shared spreading step all spaced decoders end with. */
    struct bt_rng rng;
    bt_rng_seed(&rng, 63);
    for (int round = 0; round < 400; round++) {
        size_t w = (size_t)bt_rng_below(&rng, 9) + 1;
        uint64_t count = bt_rng_below(&rng, 700);
        uint8_t validity[100];
        bt_rng_fill(&rng, validity, sizeof validity);
        int mode = round % 4;
        if (mode == 1) /* long valid and null stretches */
            for (size_t i = 0; i < sizeof validity; i++)
                validity[i] = (i / 10) % 2 ? 0xff : 0x00;
        else if (mode == 2)
            memset(validity, 0xff, sizeof validity);
        int64_t off = (int64_t)bt_rng_below(&rng, 64);
        uint64_t n = basalt_parquet_count_valid(validity, off, count);
        uint8_t *dense = basalt_malloc(count * w + 1), *vals = basalt_malloc(count * w + 1);
        CHECK(dense && vals);
        bt_rng_fill(&rng, dense, count * w);
        memcpy(vals, dense, count * w);
        basalt_parquet_spaced_expand_fixed(vals, w, count, validity, off);
        uint64_t k = 0;
        for (uint64_t i = 0; i < count; i++) {
            if (basalt_bitmap_get(validity, off + (int64_t)i)) {
                CHECK_MEM(vals + i * w, dense + k * w, w);
                k++;
            } else {
                for (size_t b = 0; b < w; b++)
                    CHECK_EQ(vals[i * w + b], 0);
            }
        }
        CHECK_EQ(k, n);
        /* Offsets: dense offsets 0, 1, 3, 6, ... spread with nulls empty. */
        int64_t *o = basalt_malloc((count + 1) * sizeof *o);
        int32_t *o32 = basalt_malloc((count + 1) * sizeof *o32);
        CHECK(o && o32);
        for (uint64_t i = 0; i <= n; i++) {
            o[i] = (int64_t)(i * (i + 1) / 2);
            o32[i] = (int32_t)o[i];
        }
        basalt_parquet_spaced_expand_offsets64(o, count, validity, off);
        basalt_parquet_spaced_expand_offsets32(o32, count, validity, off);
        k = 0;
        for (uint64_t i = 0; i <= count; i++) {
            CHECK_EQ(o[i], (int64_t)(k * (k + 1) / 2));
            CHECK_EQ(o32[i], o[i]);
            if (i < count && basalt_bitmap_get(validity, off + (int64_t)i))
                k++;
        }
        basalt_free(o);
        basalt_free(o32);
        basalt_free(dense);
        basalt_free(vals);
    }
}
