/* RLE / bit-packed hybrid: hand-derived streams from the spec's grammar,
 * encoder outputs worked out by hand, round trips at every width, piecewise
 * decoding, bitmaps, and malformed or truncated input. */
#include "parquet_encoding.h"
#include "test.h"

static basalt_status decode_all(const uint8_t *data, size_t len, unsigned w, uint64_t n,
                                uint32_t *out, struct basalt_error *err)
{
    struct basalt_parquet_rle_decoder dec;
    basalt_status st = basalt_parquet_rle_decoder_init(&dec, data, len, w, n, err);
    if (st == BASALT_OK)
        st = basalt_parquet_rle_decode_u32(&dec, n, out, err);
    return st;
}

/* Values with runs of random lengths, some long enough for repeated runs. */
static void make_runs(struct bt_rng *rng, uint32_t *v, size_t n, unsigned w)
{
    uint64_t mask = w >= 32 ? UINT32_MAX : (UINT64_C(1) << w) - 1;
    size_t i = 0;
    while (i < n) {
        uint32_t value = (uint32_t)(bt_rng_next(rng) & mask);
        size_t run = bt_rng_below(rng, 4) == 0 ? (size_t)bt_rng_below(rng, 40) + 1 : 1;
        for (size_t k = 0; k < run && i < n; k++)
            v[i++] = value;
    }
}

TEST(rle_decodes_spec_grammar_stream)
{
    /* A bit-packed run of one group (header 1 << 1 | 1 = 0x03) holding the
     * spec's 0..7 at width 3, then a repeated run of ten 5s (header 10 << 1 =
     * 0x14, value in one byte). */
    static const uint8_t stream[] = {0x03, 0x88, 0xc6, 0xfa, 0x14, 0x05};
    uint32_t out[18];
    struct basalt_error err;
    CHECK_OK(decode_all(stream, sizeof stream, 3, 18, out, &err), &err);
    for (uint32_t i = 0; i < 8; i++)
        CHECK_EQ(out[i], i);
    for (int i = 8; i < 18; i++)
        CHECK_EQ(out[i], 5);

    /* The same stream handed out piece by piece. */
    struct basalt_parquet_rle_decoder dec;
    CHECK_OK(basalt_parquet_rle_decoder_init(&dec, stream, sizeof stream, 3, 18, &err), &err);
    struct basalt_parquet_rle_run run;
    CHECK_OK(basalt_parquet_rle_decoder_next(&dec, 5, &run, &err), &err);
    CHECK_EQ(run.kind, BASALT_PARQUET_RUN_LITERAL);
    CHECK_EQ(run.count, 5);
    CHECK_EQ(run.first, 0);
    CHECK_OK(basalt_parquet_rle_decoder_next(&dec, 100, &run, &err), &err);
    CHECK_EQ(run.kind, BASALT_PARQUET_RUN_LITERAL);
    CHECK_EQ(run.count, 3);
    CHECK_EQ(run.first, 5);
    uint32_t lit[3];
    basalt_parquet_rle_run_unpack(&dec, &run, lit);
    CHECK_EQ(lit[0], 5);
    CHECK_EQ(lit[2], 7);
    CHECK_OK(basalt_parquet_rle_decoder_next(&dec, 100, &run, &err), &err);
    CHECK_EQ(run.kind, BASALT_PARQUET_RUN_REPEAT);
    CHECK_EQ(run.count, 10);
    CHECK_EQ(run.value, 5);
    CHECK_EQ(basalt_parquet_rle_decoder_remaining(&dec), 0);
    CHECK_OK(basalt_parquet_rle_decoder_next(&dec, 100, &run, &err), &err);
    CHECK_EQ(run.count, 0);
}

static int encode_u32(const uint32_t *v, size_t n, unsigned w, struct basalt_buffer *out)
{
    struct basalt_parquet_rle_encoder enc;
    if (basalt_parquet_rle_encoder_init(&enc, w, out, NULL) != BASALT_OK)
        return 0;
    if (basalt_parquet_rle_encoder_put(&enc, v, n, NULL) != BASALT_OK)
        return 0;
    return basalt_parquet_rle_encoder_finish(&enc, NULL) == BASALT_OK;
}

TEST(rle_encoder_known_outputs)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    uint32_t v[200];

    /* 50 zeros then 50 ones at width 1: two repeated runs, header 50 << 1. */
    for (int i = 0; i < 100; i++)
        v[i] = i >= 50;
    CHECK(encode_u32(v, 100, 1, &buf));
    static const uint8_t two_runs[] = {0x64, 0x00, 0x64, 0x01};
    CHECK_EQ(buf.size, sizeof two_runs);
    CHECK_MEM(buf.data, two_runs, sizeof two_runs);

    /* 0,1 alternating 100 times: 13 groups (header 13 << 1 | 1 = 0x1b) of
     * 0b10101010, the last group half padding. */
    buf.size = 0;
    for (int i = 0; i < 100; i++)
        v[i] = (uint32_t)(i & 1);
    CHECK(encode_u32(v, 100, 1, &buf));
    CHECK_EQ(buf.size, 14);
    CHECK_EQ(buf.data[0], 0x1b);
    for (int i = 1; i <= 12; i++)
        CHECK_EQ(buf.data[i], 0xaa);
    CHECK_EQ(buf.data[13], 0x0a);

    /* 0..7 then ten 5s at width 3: the spec's group, then a repeated run. */
    buf.size = 0;
    for (int i = 0; i < 18; i++)
        v[i] = i < 8 ? (uint32_t)i : 5;
    CHECK(encode_u32(v, 18, 3, &buf));
    static const uint8_t mixed[] = {0x03, 0x88, 0xc6, 0xfa, 0x14, 0x05};
    CHECK_EQ(buf.size, sizeof mixed);
    CHECK_MEM(buf.data, mixed, sizeof mixed);

    /* Width 17 repeated values take three bytes, little-endian. */
    buf.size = 0;
    for (int i = 0; i < 9; i++)
        v[i] = 0x1abcd;
    CHECK(encode_u32(v, 9, 17, &buf));
    static const uint8_t wide[] = {0x12, 0xcd, 0xab, 0x01};
    CHECK_EQ(buf.size, sizeof wide);
    CHECK_MEM(buf.data, wide, sizeof wide);

    /* Nothing at all: an empty stream. */
    buf.size = 0;
    CHECK(encode_u32(v, 0, 5, &buf));
    CHECK_EQ(buf.size, 0);
    basalt_buffer_reset(&buf);
}

TEST(rle_round_trip_every_width)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (unsigned w = 0; w <= 32; w++) {
        for (int round = 0; round < 12; round++) {
            size_t n = (size_t)bt_rng_below(&rng, round < 2 ? 3 : 3000);
            uint32_t *v = basalt_malloc((n + 1) * sizeof *v);
            uint32_t *out = basalt_malloc((n + 1) * sizeof *out);
            CHECK(v && out);
            make_runs(&rng, v, n, w);
            buf.size = 0;
            CHECK(encode_u32(v, n, w, &buf));
            /* Exact-size copy so reads past the stream trip ASan. */
            uint8_t *exact = basalt_malloc(buf.size ? buf.size : 1);
            CHECK(exact);
            if (buf.size)
                memcpy(exact, buf.data, buf.size);
            CHECK_OK(decode_all(exact, buf.size, w, n, out, &err), &err);
            CHECK_MEM(out, v, n * sizeof *v);

            /* Piecewise with random limits, skips mixed in. */
            struct basalt_parquet_rle_decoder dec;
            CHECK_OK(basalt_parquet_rle_decoder_init(&dec, exact, buf.size, w, n, &err), &err);
            size_t i = 0;
            while (i < n) {
                uint64_t max = bt_rng_below(&rng, 70) + 1;
                if (bt_rng_below(&rng, 5) == 0) {
                    uint64_t skip = max < n - i ? max : n - i;
                    CHECK_OK(basalt_parquet_rle_decoder_skip(&dec, skip, &err), &err);
                    i += (size_t)skip;
                    continue;
                }
                struct basalt_parquet_rle_run run;
                CHECK_OK(basalt_parquet_rle_decoder_next(&dec, max, &run, &err), &err);
                CHECK(run.count >= 1 && run.count <= max);
                if (run.kind == BASALT_PARQUET_RUN_REPEAT) {
                    for (uint64_t k = 0; k < run.count; k++)
                        CHECK_EQ(run.value, v[i + k]);
                } else {
                    basalt_parquet_rle_run_unpack(&dec, &run, out);
                    CHECK_MEM(out, v + i, (size_t)run.count * sizeof *v);
                }
                i += (size_t)run.count;
            }
            CHECK_EQ(basalt_parquet_rle_decoder_remaining(&dec), 0);
            CHECK_STATUS(basalt_parquet_rle_decode_u32(&dec, 1, out, &err), BASALT_CORRUPT, &err);
            basalt_free(exact);
            basalt_free(v);
            basalt_free(out);
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(rle_decode_bitmap_at_offsets)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 12);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (int round = 0; round < 300; round++) {
        size_t n = (size_t)bt_rng_below(&rng, 2000);
        uint32_t *v = basalt_malloc((n + 1) * sizeof *v);
        CHECK(v);
        make_runs(&rng, v, n, 1);
        buf.size = 0;
        CHECK(encode_u32(v, n, 1, &buf));
        int64_t offset = (int64_t)bt_rng_below(&rng, 100);
        size_t nbytes = (size_t)(offset + (int64_t)n + 7) / 8 + 1;
        uint8_t *bits = basalt_malloc(nbytes), *before = basalt_malloc(nbytes);
        CHECK(bits && before);
        bt_rng_fill(&rng, bits, nbytes);
        memcpy(before, bits, nbytes);
        struct basalt_parquet_rle_decoder dec;
        CHECK_OK(basalt_parquet_rle_decoder_init(&dec, buf.data, buf.size, 1, n, &err), &err);
        uint64_t ones = 0, expect_ones = 0;
        /* In two calls, so a piece can start mid-run. */
        uint64_t half = n ? bt_rng_below(&rng, n + 1) : 0, ones2 = 0;
        CHECK_OK(basalt_parquet_rle_decode_bitmap(&dec, half, bits, offset, &ones, &err), &err);
        CHECK_OK(basalt_parquet_rle_decode_bitmap(&dec, n - half, bits, offset + (int64_t)half,
                                                  &ones2, &err),
                 &err);
        for (int64_t b = 0; b < (int64_t)nbytes * 8; b++) {
            bool want = (b >= offset && b < offset + (int64_t)n) ? v[b - offset] != 0
                                                                 : basalt_bitmap_get(before, b);
            CHECK_MSG(basalt_bitmap_get(bits, b) == want, "round %d bit %d", round, (int)b);
        }
        for (size_t i = 0; i < n; i++)
            expect_ones += v[i];
        CHECK_EQ(ones + ones2, expect_ones);
        basalt_free(bits);
        basalt_free(before);
        basalt_free(v);
    }
    /* Wider streams are refused. */
    struct basalt_parquet_rle_decoder dec;
    uint8_t b = 0;
    CHECK_OK(basalt_parquet_rle_decoder_init(&dec, &b, 1, 2, 1, &err), &err);
    CHECK_STATUS(basalt_parquet_rle_decode_bitmap(&dec, 1, &b, 0, NULL, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_buffer_reset(&buf);
}

TEST(rle_rejects_malformed_runs)
{
    struct basalt_error err;
    uint32_t out[64];
    static const uint8_t long_run[] = {0x14, 0x01};
    /* A repeated value wider than the bit width. */
    static const uint8_t wide_value[] = {0x04, 0x09};
    CHECK_STATUS(decode_all(wide_value, 2, 3, 2, out, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "does not fit") != NULL);
    /* Stream ends before the values do. */
    static const uint8_t short_stream[] = {0x04, 0x01};
    CHECK_STATUS(decode_all(short_stream, 2, 1, 3, out, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "ends") != NULL);
    /* A header whose varint never ends. */
    static const uint8_t bad_header[] = {0x80, 0x80};
    CHECK_STATUS(decode_all(bad_header, 2, 1, 3, out, &err), BASALT_CORRUPT, &err);
    /* A repeated value cut short (width 9 needs two bytes). */
    static const uint8_t cut_value[] = {0x04, 0x01};
    CHECK_STATUS(decode_all(cut_value, 2, 9, 2, out, &err), BASALT_CORRUPT, &err);
    /* Bit-packed values cut short: 8 values of width 8 need 8 bytes. */
    static const uint8_t cut_group[] = {0x03, 1, 2, 3};
    CHECK_STATUS(decode_all(cut_group, 4, 8, 8, out, &err), BASALT_CORRUPT, &err);
    /* Empty runs are skipped, not looped on. */
    static const uint8_t empties[] = {0x00, 0x00, 0x01, 0x04, 0x01};
    CHECK_OK(decode_all(empties, sizeof empties, 1, 2, out, &err), &err);
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], 1);
    /* Width limits. */
    struct basalt_parquet_rle_decoder dec;
    CHECK_STATUS(basalt_parquet_rle_decoder_init(&dec, long_run, 2, 33, 1, &err),
                 BASALT_INVALID_ARG, &err);
    static const uint8_t idx_wide[] = {33, 0x02, 0, 0, 0, 0, 0};
    CHECK_STATUS(basalt_parquet_dict_indices_init(&dec, idx_wide, sizeof idx_wide, 1, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_parquet_dict_indices_init(&dec, idx_wide, 0, 1, &err), BASALT_CORRUPT,
                 &err);
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, idx_wide, 0, 0, &err), &err);
}

TEST(rle_runs_past_the_values_left_are_cut)
{
    struct basalt_error err;
    uint32_t out[300];
    /* A repeated run of 10 (header 10 << 1) where 5 values are left. */
    static const uint8_t long_run[] = {0x14, 0x01};
    CHECK_OK(decode_all(long_run, 2, 1, 5, out, &err), &err);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(out[i], 1);
    /* Two bit-packed groups (header (2 << 1) | 1) where 8 and 9 are left. */
    static const uint8_t two_groups[] = {0x05, 0xff, 0xff};
    CHECK_OK(decode_all(two_groups, 3, 1, 8, out, &err), &err);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(out[i], 1);
    CHECK_OK(decode_all(two_groups, 3, 1, 9, out, &err), &err);
    for (int i = 0; i < 9; i++)
        CHECK_EQ(out[i], 1);
    /* DuckDB's shape: 3 indices of width 2 (1, 2, 3 = 0b111001, one byte)
     * in a run of 32 groups, i.e. header (32 << 1) | 1 = 65, padded to 256
     * values (64 bytes), all present or only the first. */
    uint8_t duck[1 + 64] = {65, 0x39};
    for (size_t len = 2; len <= sizeof duck; len += sizeof duck - 2) {
        memset(out, 0xee, sizeof out);
        CHECK_OK(decode_all(duck, len, 2, 3, out, &err), &err);
        CHECK_EQ(out[0], 1);
        CHECK_EQ(out[1], 2);
        CHECK_EQ(out[2], 3);
        CHECK_EQ(out[3], 0xeeeeeeeeu);
    }
    /* A run count near 2^63 groups is cut, not overflowed:
     * header 0xff..ff 0x7f = 2^63 - 1 -> bit-packed, 2^62 - 1 groups. */
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x05};
    CHECK_OK(decode_all(huge, sizeof huge, 1, 2, out, &err), &err);
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], 0);
    /* The values themselves must still be present. */
    CHECK_STATUS(decode_all(duck, 1, 2, 3, out, &err), BASALT_CORRUPT, &err);
    static const uint8_t cut_value[] = {0x14};
    CHECK_STATUS(decode_all(cut_value, 1, 1, 3, out, &err), BASALT_CORRUPT, &err);
    /* Skipping takes the same cut. */
    struct basalt_parquet_rle_decoder dec;
    CHECK_OK(basalt_parquet_rle_decoder_init(&dec, duck, sizeof duck, 2, 3, &err), &err);
    CHECK_OK(basalt_parquet_rle_decoder_skip(&dec, 3, &err), &err);
    CHECK_EQ(basalt_parquet_rle_decoder_remaining(&dec), 0);
}

TEST(rle_final_group_padding_bytes_may_be_missing)
{
    /* One group of width 8 announced, 3 values wanted, only their 3 bytes
     * present: the values are there, the padding is not needed. */
    static const uint8_t stream[] = {0x03, 7, 8, 9};
    uint32_t out[3];
    struct basalt_error err;
    CHECK_OK(decode_all(stream, sizeof stream, 8, 3, out, &err), &err);
    CHECK_EQ(out[0], 7);
    CHECK_EQ(out[1], 8);
    CHECK_EQ(out[2], 9);
    CHECK_STATUS(decode_all(stream, 3, 8, 3, out, &err), BASALT_CORRUPT, &err);
}

TEST(rle_truncated_streams_fail_at_every_length)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 13);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (unsigned w = 1; w <= 32; w += 3) {
        uint32_t v[300], out[300];
        size_t n = 200 + (size_t)bt_rng_below(&rng, 100);
        make_runs(&rng, v, n, w);
        for (size_t i = n - 20; i < n; i++) /* end on a repeated run: no padding */
            v[i] = v[n - 21] ^ 1;
        buf.size = 0;
        CHECK(encode_u32(v, n, w, &buf));
        CHECK_OK(decode_all(buf.data, buf.size, w, n, out, &err), &err);
        for (size_t len = 0; len < buf.size; len++) {
            uint8_t *cut = basalt_malloc(len ? len : 1);
            CHECK(cut);
            memcpy(cut, buf.data, len);
            basalt_status st = decode_all(cut, len, w, n, out, &err);
            basalt_free(cut);
            CHECK_MSG(st == BASALT_CORRUPT, "w=%u len=%zu of %zu: %s", w, len, buf.size,
                      basalt_status_name(st));
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(rle_garbage_never_misbehaves)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 14);
    uint32_t out[512];
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)bt_rng_below(&rng, 40);
        uint8_t *data = basalt_malloc(len ? len : 1);
        CHECK(data);
        bt_rng_fill(&rng, data, len);
        unsigned w = (unsigned)bt_rng_below(&rng, 33);
        uint64_t n = bt_rng_below(&rng, 512);
        basalt_status st = decode_all(data, len, w, n, out, NULL);
        basalt_free(data);
        CHECK(st == BASALT_OK || st == BASALT_CORRUPT);
    }
}

TEST(rle_prefixed_streams)
{
    static const uint8_t page[] = {0x04, 0x00, 0x00, 0x00, 0x03, 0x88, 0xc6, 0xfa, 0xee};
    struct basalt_parquet_rle_decoder dec;
    struct basalt_error err;
    size_t used = 0;
    CHECK_OK(basalt_parquet_rle_decoder_init_prefixed(&dec, page, sizeof page, 3, 8, &used, &err),
             &err);
    CHECK_EQ(used, 8);
    uint32_t out[8];
    CHECK_OK(basalt_parquet_rle_decode_u32(&dec, 8, out, &err), &err);
    CHECK_EQ(out[7], 7);
    /* The prefix promises more than the page holds. */
    CHECK_STATUS(basalt_parquet_rle_decoder_init_prefixed(&dec, page, 7, 3, 8, &used, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_parquet_rle_decoder_init_prefixed(&dec, page, 3, 3, 8, &used, &err),
                 BASALT_CORRUPT, &err);
}

TEST(rle_encoder_long_runs_and_bitmaps)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    struct basalt_parquet_rle_encoder enc;
    /* 3e9 copies: more than one run may hold (2^31 - 1), never expanded. */
    CHECK_OK(basalt_parquet_rle_encoder_init(&enc, 4, &buf, &err), &err);
    CHECK_OK(basalt_parquet_rle_encoder_put_run(&enc, 9, 3000000000u, &err), &err);
    CHECK_OK(basalt_parquet_rle_encoder_put_run(&enc, 2, 3, &err), &err);
    CHECK_OK(basalt_parquet_rle_encoder_finish(&enc, &err), &err);
    CHECK(buf.size < 32);
    struct basalt_parquet_rle_decoder dec;
    CHECK_OK(basalt_parquet_rle_decoder_init(&dec, buf.data, buf.size, 4, 3000000003u, &err),
             &err);
    uint64_t nines = 0;
    struct basalt_parquet_rle_run run;
    for (;;) {
        CHECK_OK(basalt_parquet_rle_decoder_next(&dec, UINT64_MAX, &run, &err), &err);
        if (run.kind != BASALT_PARQUET_RUN_REPEAT || run.value != 9)
            break;
        CHECK(run.count <= INT32_MAX);
        nines += run.count;
    }
    CHECK_EQ(nines, 3000000000u);
    CHECK_EQ(run.count, 3);
    uint32_t tail[3];
    basalt_parquet_rle_run_unpack(&dec, &run, tail);
    CHECK_EQ(tail[0], 2);
    CHECK_EQ(tail[2], 2);
    /* Values wider than the width are refused. */
    CHECK_OK(basalt_parquet_rle_encoder_init(&enc, 4, &buf, &err), &err);
    CHECK_STATUS(basalt_parquet_rle_encoder_put_run(&enc, 16, 1, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_parquet_rle_encoder_init(&enc, 33, &buf, &err), BASALT_INVALID_ARG, &err);

    /* Bitmaps: every bit at a random offset round-trips. */
    struct bt_rng rng;
    bt_rng_seed(&rng, 15);
    for (int round = 0; round < 200; round++) {
        uint8_t bits[300];
        bt_rng_fill(&rng, bits, sizeof bits);
        if (round & 1) /* long runs too */
            memset(bits + 20, round & 2 ? 0xff : 0, 100);
        int64_t off = (int64_t)bt_rng_below(&rng, 64);
        uint64_t n = bt_rng_below(&rng, 2000);
        buf.size = 0;
        CHECK_OK(basalt_parquet_rle_encoder_init(&enc, 1, &buf, &err), &err);
        CHECK_OK(basalt_parquet_rle_encoder_put_bitmap(&enc, bits, off, n, &err), &err);
        CHECK_OK(basalt_parquet_rle_encoder_finish(&enc, &err), &err);
        uint32_t out[2000];
        CHECK_OK(decode_all(buf.data, buf.size, 1, n, out, &err), &err);
        for (uint64_t i = 0; i < n; i++)
            CHECK_EQ(out[i], basalt_bitmap_get(bits, off + (int64_t)i));
    }
    CHECK_OK(basalt_parquet_rle_encoder_init(&enc, 2, &buf, &err), &err);
    uint8_t one = 1;
    CHECK_STATUS(basalt_parquet_rle_encoder_put_bitmap(&enc, &one, 0, 1, &err),
                 BASALT_INVALID_ARG, &err);
    basalt_buffer_reset(&buf);
}

struct sweep_ctx {
    const uint32_t *v;
    size_t n;
};

static basalt_status encode_attempt(void *p)
{
    struct sweep_ctx *c = p;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_parquet_rle_encoder enc;
    basalt_status st = basalt_parquet_rle_encoder_init(&enc, 7, &buf, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_rle_encoder_put(&enc, c->v, c->n, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_rle_encoder_finish(&enc, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

TEST(rle_encoder_alloc_sweep)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 16);
    static uint32_t v[5000];
    make_runs(&rng, v, 5000, 7);
    struct sweep_ctx c = {v, 5000};
    CHECK_ALLOC_SWEEP(encode_attempt, &c);
}
