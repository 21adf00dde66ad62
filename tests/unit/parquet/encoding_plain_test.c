/* PLAIN: byte layouts from the spec, round trips of every physical type,
 * spaced output, truncation at every length. */
#include "parquet_encoding.h"
#include "test.h"

TEST(plain_known_layouts)
{
    struct basalt_error err;
    struct basalt_parquet_plain_decoder dec;
    /* INT32 and INT64 little-endian; DOUBLE IEEE 1.0 = 3ff0000000000000. */
    static const uint8_t ints[] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff};
    int32_t i32[2];
    basalt_parquet_plain_decoder_init(&dec, ints, sizeof ints);
    CHECK_OK(basalt_parquet_plain_decode_fixed(&dec, 4, 2, NULL, 0, i32, &err), &err);
    CHECK_EQ(i32[0], 1);
    CHECK_EQ(i32[1], -1);
    static const uint8_t one[] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    double d;
    basalt_parquet_plain_decoder_init(&dec, one, sizeof one);
    CHECK_OK(basalt_parquet_plain_decode_fixed(&dec, 8, 1, NULL, 0, &d, &err), &err);
    CHECK(d == 1.0);
    /* BOOLEAN: bit-packed LSB first; 1,0,1,1,0,0,0,0,1 = 0x0d 0x01. */
    static const uint8_t bools[] = {0x0d, 0x01};
    uint8_t bits[2] = {0, 0};
    basalt_parquet_plain_decoder_init(&dec, bools, sizeof bools);
    CHECK_OK(basalt_parquet_plain_decode_bool(&dec, 9, NULL, 0, bits, 0, &err), &err);
    CHECK_EQ(bits[0], 0x0d);
    CHECK_EQ(bits[1], 0x01);
    /* BYTE_ARRAY: 4-byte length then bytes. */
    static const uint8_t strs[] = {5, 0, 0, 0, 'H', 'e', 'l', 'l', 'o', 0, 0, 0, 0,
                                   3, 0, 0, 0, 'a', 'b', 'c'};
    struct basalt_buffer data;
    basalt_buffer_init(&data);
    int32_t off[4];
    struct basalt_parquet_binary_out out = {off, NULL, &data, 0};
    basalt_parquet_plain_decoder_init(&dec, strs, sizeof strs);
    CHECK_OK(basalt_parquet_plain_decode_binary(&dec, 3, NULL, 0, &out, &err), &err);
    CHECK_EQ(off[0], 0);
    CHECK_EQ(off[1], 5);
    CHECK_EQ(off[2], 5);
    CHECK_EQ(off[3], 8);
    CHECK_MEM(data.data, "Helloabc", 8);
    /* Encoders give the same bytes back. */
    struct basalt_buffer enc;
    basalt_buffer_init(&enc);
    struct basalt_parquet_binary_view view = {off, NULL, data.data};
    CHECK_OK(basalt_parquet_plain_encode_binary(&view, 3, NULL, 0, &enc, &err), &err);
    CHECK_EQ(enc.size, sizeof strs);
    CHECK_MEM(enc.data, strs, sizeof strs);
    enc.size = 0;
    CHECK_OK(basalt_parquet_plain_encode_bool(bits, 0, 9, NULL, 0, &enc, &err), &err);
    CHECK_EQ(enc.size, 2);
    CHECK_MEM(enc.data, bools, 2);
    basalt_buffer_reset(&enc);
    basalt_buffer_reset(&data);
}

TEST(plain_fixed_round_trip_every_type)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 41);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    /* INT32/FLOAT 4, INT64/DOUBLE 8, INT96 12, FLBA 1, 2, 16, 17. */
    static const size_t widths[] = {4, 8, 12, 1, 2, 16, 17};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        for (int round = 0; round < 30; round++) {
            size_t w = widths[wi];
            size_t count = (size_t)bt_rng_below(&rng, round < 3 ? 2 : 1500);
            uint8_t *vals = basalt_malloc(count * w + 1), *out = basalt_malloc(count * w + 1);
            uint8_t validity[200];
            CHECK(vals && out);
            bt_rng_fill(&rng, vals, count * w);
            bt_rng_fill(&rng, validity, sizeof validity);
            if (round % 3 == 0)
                memset(validity, round % 2 ? 0 : 0xff, sizeof validity);
            const uint8_t *vp = round % 4 == 1 ? NULL : validity;
            int64_t voff = (int64_t)bt_rng_below(&rng, 8);
            buf.size = 0;
            CHECK_OK(basalt_parquet_plain_encode_fixed(vals, w, count, vp, voff, &buf, &err), &err);
            uint64_t n = basalt_parquet_count_valid(vp, voff, count);
            CHECK_EQ(buf.size, n * w);
            uint8_t *exact = basalt_malloc(buf.size + 1);
            CHECK(exact);
            if (buf.size)
                memcpy(exact, buf.data, buf.size);
            struct basalt_parquet_plain_decoder dec;
            basalt_parquet_plain_decoder_init(&dec, exact, buf.size);
            memset(out, 0xcc, count * w + 1);
            CHECK_OK(basalt_parquet_plain_decode_fixed(&dec, w, count, vp, voff, out, &err), &err);
            for (size_t i = 0; i < count; i++) {
                if (!vp || basalt_bitmap_get(vp, voff + (int64_t)i)) {
                    CHECK_MEM(out + i * w, vals + i * w, w);
                } else {
                    for (size_t b = 0; b < w; b++)
                        CHECK_EQ(out[i * w + b], 0);
                }
            }
            CHECK_EQ(out[count * w], 0xcc);
            /* The data is used up. */
            if (n)
                CHECK_STATUS(basalt_parquet_plain_decode_fixed(&dec, w, 1, NULL, 0, out, &err),
                             BASALT_CORRUPT, &err);
            basalt_free(exact);
            basalt_free(vals);
            basalt_free(out);
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(plain_bool_round_trip_spaced)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (int round = 0; round < 200; round++) {
        uint8_t bits[300], validity[300], out[310], before[310];
        bt_rng_fill(&rng, bits, sizeof bits);
        bt_rng_fill(&rng, validity, sizeof validity);
        const uint8_t *vp = round % 3 == 0 ? NULL : validity;
        int64_t boff = (int64_t)bt_rng_below(&rng, 20), voff = (int64_t)bt_rng_below(&rng, 20);
        int64_t ooff = (int64_t)bt_rng_below(&rng, 20);
        uint64_t count = bt_rng_below(&rng, 2000);
        buf.size = 0;
        CHECK_OK(basalt_parquet_plain_encode_bool(bits, boff, count, vp, voff, &buf, &err), &err);
        uint64_t n = basalt_parquet_count_valid(vp, voff, count);
        CHECK_EQ(buf.size, (n + 7) / 8);
        bt_rng_fill(&rng, out, sizeof out);
        memcpy(before, out, sizeof out);
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, buf.data, buf.size);
        /* Two calls, the second starting mid-byte of the input. */
        uint64_t half = bt_rng_below(&rng, count + 1);
        CHECK_OK(basalt_parquet_plain_decode_bool(&dec, half, vp, voff, out, ooff, &err), &err);
        CHECK_OK(basalt_parquet_plain_decode_bool(&dec, count - half, vp, voff + (int64_t)half,
                                                  out, ooff + (int64_t)half, &err),
                 &err);
        for (int64_t b = 0; b < (int64_t)sizeof out * 8; b++) {
            int64_t i = b - ooff;
            bool want;
            if (i < 0 || i >= (int64_t)count)
                want = basalt_bitmap_get(before, b);
            else if (vp && !basalt_bitmap_get(vp, voff + i))
                want = false;
            else
                want = basalt_bitmap_get(bits, boff + i);
            CHECK_MSG(basalt_bitmap_get(out, b) == want, "round %d bit %d", round, (int)b);
        }
        CHECK_STATUS(basalt_parquet_plain_decode_bool(&dec, 9, NULL, 0, out, 0, &err),
                     BASALT_CORRUPT, &err);
    }
    basalt_buffer_reset(&buf);
}

static void make_strings(struct bt_rng *rng, int64_t *off, uint8_t *data, size_t count)
{
    off[0] = 0;
    for (size_t i = 0; i < count; i++) {
        size_t len = (size_t)bt_rng_below(rng, i % 7 == 0 ? 70 : 10);
        bt_rng_fill(rng, data + off[i], len);
        off[i + 1] = off[i] + (int64_t)len;
    }
}

TEST(plain_binary_round_trip_spaced)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 43);
    struct basalt_buffer buf, data;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&data);
    struct basalt_error err;
    static int64_t in_off[2001];
    static uint8_t in_data[2000 * 70];
    static int32_t o32[2001];
    static int64_t o64[2001];
    for (int round = 0; round < 100; round++) {
        size_t count = (size_t)bt_rng_below(&rng, 2000);
        make_strings(&rng, in_off, in_data, count);
        uint8_t validity[260];
        bt_rng_fill(&rng, validity, sizeof validity);
        if (round % 5 == 0)
            memset(validity, 0, sizeof validity);
        const uint8_t *vp = round % 3 == 0 ? NULL : validity;
        struct basalt_parquet_binary_view view = {NULL, in_off, in_data};
        buf.size = 0;
        CHECK_OK(basalt_parquet_plain_encode_binary(&view, count, vp, 1, &buf, &err), &err);
        uint8_t *exact = basalt_malloc(buf.size + 1);
        CHECK(exact);
        if (buf.size)
            memcpy(exact, buf.data, buf.size);
        bool large = round & 1;
        data.size = 0;
        struct basalt_parquet_binary_out out = {large ? NULL : o32, large ? o64 : NULL, &data, 0};
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, exact, buf.size);
        CHECK_OK(basalt_parquet_plain_decode_binary(&dec, count, vp, 1, &out, &err), &err);
        for (size_t i = 0; i < count; i++) {
            int64_t a = large ? o64[i] : o32[i], b = large ? o64[i + 1] : o32[i + 1];
            if (!vp || basalt_bitmap_get(vp, 1 + (int64_t)i)) {
                CHECK_EQ(b - a, in_off[i + 1] - in_off[i]);
                CHECK_MEM(data.data + a, in_data + in_off[i], (size_t)(b - a));
            } else {
                CHECK_EQ(b, a);
            }
        }
        CHECK_EQ(dec.pos, buf.size);
        basalt_free(exact);
    }
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&data);
}

TEST(plain_truncated_at_every_length)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 44);
    static int64_t in_off[201];
    static uint8_t in_data[200 * 70];
    make_strings(&rng, in_off, in_data, 200);
    struct basalt_parquet_binary_view view = {NULL, in_off, in_data};
    struct basalt_buffer buf, data;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&data);
    struct basalt_error err;
    CHECK_OK(basalt_parquet_plain_encode_binary(&view, 200, NULL, 0, &buf, &err), &err);
    static int32_t o32[201];
    for (size_t len = 0; len < buf.size; len++) {
        uint8_t *cut = basalt_malloc(len ? len : 1);
        CHECK(cut);
        memcpy(cut, buf.data, len);
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, cut, len);
        data.size = 0;
        struct basalt_parquet_binary_out out = {o32, NULL, &data, 0};
        basalt_status st = basalt_parquet_plain_decode_binary(&dec, 200, NULL, 0, &out, &err);
        basalt_free(cut);
        CHECK_MSG(st == BASALT_CORRUPT, "len %zu: %s", len, basalt_status_name(st));
    }
    /* A length running past the input names the value. */
    static const uint8_t bad[] = {2, 0, 0, 0, 'o', 'k', 0xff, 0xff, 0xff, 0x7f, 'x'};
    struct basalt_parquet_plain_decoder dec;
    basalt_parquet_plain_decoder_init(&dec, bad, sizeof bad);
    struct basalt_parquet_binary_out out = {o32, NULL, &data, 0};
    CHECK_STATUS(basalt_parquet_plain_decode_binary(&dec, 2, NULL, 0, &out, &err), BASALT_CORRUPT,
                 &err);
    CHECK(strstr(err.message, "byte array 1") != NULL);
    /* The data cap. */
    static const uint8_t two[] = {2, 0, 0, 0, 'o', 'k', 2, 0, 0, 0, 'o', 'k'};
    basalt_parquet_plain_decoder_init(&dec, two, sizeof two);
    data.size = 0;
    out.max_data = 3;
    CHECK_STATUS(basalt_parquet_plain_decode_binary(&dec, 2, NULL, 0, &out, &err), BASALT_LIMIT,
                 &err);
    /* Fixed widths too. */
    int64_t v[3];
    basalt_parquet_plain_decoder_init(&dec, two, 12);
    CHECK_STATUS(basalt_parquet_plain_decode_fixed(&dec, 8, 2, NULL, 0, v, &err), BASALT_CORRUPT,
                 &err);
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&data);
}

struct plain_ctx {
    const uint8_t *page;
    size_t len;
    size_t count;
};

static basalt_status plain_attempt(void *p)
{
    struct plain_ctx *c = p;
    struct basalt_buffer data;
    basalt_buffer_init(&data);
    int32_t *off = basalt_malloc((c->count + 1) * sizeof *off);
    if (!off)
        return BASALT_NOMEM;
    struct basalt_parquet_binary_out out = {off, NULL, &data, 0};
    struct basalt_parquet_plain_decoder dec;
    basalt_parquet_plain_decoder_init(&dec, c->page, c->len);
    basalt_status st = basalt_parquet_plain_decode_binary(&dec, c->count, NULL, 0, &out, NULL);
    basalt_buffer_reset(&data);
    basalt_free(off);
    return st;
}

TEST(plain_binary_alloc_sweep)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 45);
    static int64_t in_off[2001];
    static uint8_t in_data[2000 * 70];
    make_strings(&rng, in_off, in_data, 2000);
    struct basalt_parquet_binary_view view = {NULL, in_off, in_data};
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    CHECK_OK(basalt_parquet_plain_encode_binary(&view, 2000, NULL, 0, &buf, NULL), NULL);
    struct plain_ctx c = {buf.data, buf.size, 2000};
    CHECK_ALLOC_SWEEP(plain_attempt, &c);
    basalt_buffer_reset(&buf);
}

static basalt_status encoders_attempt(void *p)
{
    (void)p;
    static int64_t vals[3000];
    static int64_t off[3001];
    static uint8_t chars[3000];
    static int16_t levels[3000];
    static uint32_t idx[3000];
    static uint8_t validity[377];
    for (int i = 0; i < 3000; i++) {
        vals[i] = i * 7919;
        off[i + 1] = i + 1;
        chars[i] = (uint8_t)i;
        levels[i] = (int16_t)(i % 5 == 0 ? 0 : 2);
        idx[i] = (uint32_t)(i * 31 % 500);
    }
    memset(validity, 0x5b, sizeof validity);
    struct basalt_parquet_binary_view view = {NULL, off, chars};
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_parquet_plain_encode_fixed(vals, 8, 3000, validity, 1, &buf, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_plain_encode_bool(chars, 0, 3000, validity, 0, &buf, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_plain_encode_binary(&view, 3000, NULL, 0, &buf, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_bss_encode(vals, 8, 3000, validity, 2, &buf, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_levels_encode(levels, 3000, 2, true, &buf, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_dict_encode_indices(idx, 3000, 500, &buf, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

TEST(encoders_alloc_sweep)
{
    CHECK_ALLOC_SWEEP(encoders_attempt, NULL);
}
