/* Bit packing: the spec's example, then every width against a bit-at-a-time
 * oracle written here, for the reference, the unrolled kernels and the
 * selected kernels. Inputs live in exact-size heap blocks so a read past
 * the end trips ASan. */
#include "parquet_encoding.h"
#include "test.h"

/* Oracle: value i is bits [i*w, (i+1)*w) of the stream, LSB first. */
static uint64_t oracle_get(const uint8_t *in, uint64_t i, unsigned w)
{
    uint64_t v = 0;
    for (unsigned b = 0; b < w; b++) {
        uint64_t bit = i * w + b;
        v |= (uint64_t)((in[bit >> 3] >> (bit & 7)) & 1) << b;
    }
    return v;
}

static void oracle_pack(const uint64_t *v, size_t n, unsigned w, uint8_t *out)
{
    memset(out, 0, (n * w + 7) / 8);
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < w; b++)
            if ((v[i] >> b) & 1) {
                uint64_t bit = i * w + b;
                out[bit >> 3] |= (uint8_t)(1u << (bit & 7));
            }
}

static uint64_t width_mask(unsigned w) { return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1; }

TEST(bitpack_spec_example_width3)
{
    /* Encodings.md, RLE section: 0..7 with bit width 3 is 10001000 11000110 11111010. */
    static const uint8_t expected[3] = {0x88, 0xc6, 0xfa};
    uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint8_t packed[3];
    basalt_parquet_pack_u32(v, 8, 3, packed);
    CHECK_MEM(packed, expected, 3);
    uint64_t v64[8];
    for (int i = 0; i < 8; i++)
        v64[i] = v[i];
    basalt_parquet_pack_u64(v64, 8, 3, packed);
    CHECK_MEM(packed, expected, 3);
    uint32_t back[8];
    basalt_parquet_unpack_u32(NULL, expected, 3, 0, 8, 3, back);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(back[i], i);
    uint64_t ref[8];
    basalt_parquet_unpack_ref(expected, 0, 8, 3, ref);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(ref[i], i);
}

TEST(bitpack_batch_kernels_match_oracle_every_width)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 101);
    const struct basalt_parquet_bitpack_kernels *tables[2] = {basalt_parquet_bitpack_scalar(),
                                                              basalt_parquet_bitpack_best()};
    for (unsigned w = 0; w <= 64; w++) {
        for (int round = 0; round < 20; round++) {
            size_t bytes = 4 * (size_t)w;
            uint8_t *in = basalt_malloc(bytes ? bytes : 1);
            CHECK(in);
            bt_rng_fill(&rng, in, bytes);
            for (int t = 0; t < 2; t++) {
                uint64_t out64[32];
                tables[t]->unpack32_u64[w](in, out64);
                for (uint64_t i = 0; i < 32; i++)
                    CHECK_MSG(out64[i] == oracle_get(in, i, w), "%s u64 w=%u i=%u",
                              tables[t]->name, w, (unsigned)i);
                if (w <= 32) {
                    uint32_t out32[32];
                    tables[t]->unpack32_u32[w](in, out32);
                    for (uint64_t i = 0; i < 32; i++)
                        CHECK_MSG(out32[i] == oracle_get(in, i, w), "%s u32 w=%u i=%u",
                                  tables[t]->name, w, (unsigned)i);
                    /* Eight values from the last w bytes of the block: an
                     * over-read would leave the allocation. */
                    const uint8_t *group = in + bytes - w;
                    tables[t]->unpack8_u32[w](group, out32);
                    for (uint64_t i = 0; i < 8; i++)
                        CHECK_MSG(out32[i] == oracle_get(group, i, w), "%s u8 w=%u i=%u",
                                  tables[t]->name, w, (unsigned)i);
                }
            }
            basalt_free(in);
        }
    }
}

TEST(bitpack_unpack_any_range_matches_oracle)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 202);
    for (unsigned w = 0; w <= 64; w++) {
        for (int round = 0; round < 40; round++) {
            size_t total = (size_t)bt_rng_below(&rng, 300);
            uint64_t first = total ? bt_rng_below(&rng, total + 1) : 0;
            size_t count = (size_t)(total - first);
            size_t bytes = (total * w + 7) / 8; /* exactly what the values need */
            uint8_t *in = basalt_malloc(bytes ? bytes : 1);
            uint64_t *o64 = basalt_malloc((count + 1) * sizeof *o64);
            uint32_t *o32 = basalt_malloc((count + 1) * sizeof *o32);
            CHECK(in && o64 && o32);
            bt_rng_fill(&rng, in, bytes);
            const struct basalt_parquet_bitpack_kernels *k =
                round & 1 ? basalt_parquet_bitpack_scalar() : NULL;
            basalt_parquet_unpack_u64(k, in, bytes, first, count, w, o64);
            for (size_t i = 0; i < count; i++)
                CHECK_MSG(o64[i] == oracle_get(in, first + i, w), "u64 w=%u first=%u i=%u", w,
                          (unsigned)first, (unsigned)i);
            basalt_parquet_unpack_ref(in, first, count, w, o64);
            for (size_t i = 0; i < count; i++)
                CHECK_MSG(o64[i] == oracle_get(in, first + i, w), "ref w=%u", w);
            if (w <= 32) {
                basalt_parquet_unpack_u32(k, in, bytes, first, count, w, o32);
                for (size_t i = 0; i < count; i++)
                    CHECK_MSG(o32[i] == oracle_get(in, first + i, w), "u32 w=%u first=%u i=%u",
                              w, (unsigned)first, (unsigned)i);
            }
            basalt_free(in);
            basalt_free(o64);
            basalt_free(o32);
        }
    }
}

TEST(bitpack_pack_matches_oracle_and_ignores_high_bits)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 303);
    for (unsigned w = 0; w <= 64; w++) {
        size_t n = (size_t)bt_rng_below(&rng, 200) + 1;
        uint64_t *v = basalt_malloc(n * sizeof *v);
        uint64_t *masked = basalt_malloc(n * sizeof *masked);
        uint32_t *v32 = basalt_malloc(n * sizeof *v32);
        size_t bytes = (n * w + 7) / 8;
        uint8_t *expect = basalt_malloc(bytes + 1), *got = basalt_malloc(bytes + 1);
        CHECK(v && masked && v32 && expect && got);
        for (size_t i = 0; i < n; i++) {
            v[i] = bt_rng_next(&rng); /* high bits set on purpose */
            masked[i] = v[i] & width_mask(w);
            v32[i] = (uint32_t)v[i];
        }
        oracle_pack(masked, n, w, expect);
        got[bytes] = 0x5a; /* sentinel: nothing written past the packed bytes */
        basalt_parquet_pack_u64(v, n, w, got);
        CHECK_MEM(got, expect, bytes);
        CHECK_EQ(got[bytes], 0x5a);
        if (w <= 32) {
            basalt_parquet_pack_u32(v32, n, w, got);
            CHECK_MEM(got, expect, bytes);
            CHECK_EQ(got[bytes], 0x5a);
        }
        basalt_free(v);
        basalt_free(masked);
        basalt_free(v32);
        basalt_free(expect);
        basalt_free(got);
    }
}

TEST(bitpack_decoders_take_the_selected_kernels)
{
    /* The selection seam: decoders run what basalt_parquet_bitpack_best
     * returns, a complete table. */
    const struct basalt_parquet_bitpack_kernels *best = basalt_parquet_bitpack_best();
    CHECK(best != NULL);
    for (int w = 0; w <= 64; w++) {
        CHECK(best->unpack32_u64[w] != NULL);
        if (w <= 32)
            CHECK(best->unpack32_u32[w] != NULL && best->unpack8_u32[w] != NULL);
    }
    struct basalt_parquet_rle_decoder dec;
    uint8_t dummy = 0;
    CHECK_OK(basalt_parquet_rle_decoder_init(&dec, &dummy, 0, 3, 0, NULL), NULL);
    CHECK(dec.kernels == best);
    struct basalt_parquet_delta_decoder ddec;
    static const uint8_t header[] = {0x80, 0x01, 0x04, 0x00, 0x00};
    CHECK_OK(basalt_parquet_delta_decoder_init(&ddec, header, sizeof header, 64, 0, NULL), NULL);
    CHECK(ddec.kernels == best);
}

TEST(bitpack_helpers)
{
    CHECK_EQ(basalt_parquet_bit_width(0), 0);
    CHECK_EQ(basalt_parquet_bit_width(1), 1);
    CHECK_EQ(basalt_parquet_bit_width(7), 3);
    CHECK_EQ(basalt_parquet_bit_width(8), 4);
    CHECK_EQ(basalt_parquet_bit_width(UINT64_MAX), 64);
    /* Zigzag per the protobuf definition the spec cites. */
    CHECK_UEQ(basalt_parquet_zigzag_encode(0), 0);
    CHECK_UEQ(basalt_parquet_zigzag_encode(-1), 1);
    CHECK_UEQ(basalt_parquet_zigzag_encode(1), 2);
    CHECK_UEQ(basalt_parquet_zigzag_encode(-2), 3);
    CHECK_UEQ(basalt_parquet_zigzag_encode(INT64_MAX), UINT64_MAX - 1);
    CHECK_UEQ(basalt_parquet_zigzag_encode(INT64_MIN), UINT64_MAX);
    CHECK_EQ(basalt_parquet_zigzag_decode(UINT64_MAX), INT64_MIN);
    CHECK_EQ(basalt_parquet_zigzag_decode(3), -2);
    /* ULEB128: 624485 is e5 8e 26 (the LEB128 article's example). */
    static const uint8_t leb[3] = {0xe5, 0x8e, 0x26};
    const uint8_t *p = leb;
    uint64_t v;
    CHECK(basalt_parquet_read_uleb(&p, leb + 3, &v));
    CHECK_EQ(v, 624485);
    CHECK(p == leb + 3);
    p = leb;
    CHECK(!basalt_parquet_read_uleb(&p, leb + 2, &v)); /* cut short */
    static const uint8_t big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    p = big;
    CHECK(basalt_parquet_read_uleb(&p, big + 10, &v));
    CHECK_UEQ(v, UINT64_MAX);
    static const uint8_t over[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    p = over;
    CHECK(!basalt_parquet_read_uleb(&p, over + 10, &v)); /* 65th bit */
    static const uint8_t eleven[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                       0x80, 0x80, 0x80, 0x80, 0x00};
    p = eleven;
    CHECK(!basalt_parquet_read_uleb(&p, eleven + 11, &v));
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    CHECK_OK(basalt_parquet_write_uleb(&buf, 624485, NULL), NULL);
    CHECK_EQ(buf.size, 3);
    CHECK_MEM(buf.data, leb, 3);
    basalt_buffer_reset(&buf);
}
