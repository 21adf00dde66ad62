/* Dictionary indices: fused decode, bounds check and gather, dense and
 * spaced, fixed width and byte arrays, against a naive gather written here. */
#include "parquet_encoding.h"
#include "test.h"

static void make_indices(struct bt_rng *rng, uint32_t *idx, size_t n, uint32_t dict_len)
{
    size_t i = 0;
    while (i < n) {
        uint32_t v = (uint32_t)bt_rng_below(rng, dict_len);
        size_t run = bt_rng_below(rng, 4) == 0 ? (size_t)bt_rng_below(rng, 30) + 1 : 1;
        for (size_t k = 0; k < run && i < n; k++)
            idx[i++] = v;
    }
}

static void random_validity(struct bt_rng *rng, uint8_t *bits, size_t nbytes, int mode)
{
    bt_rng_fill(rng, bits, nbytes);
    if (mode == 1)
        memset(bits, 0xff, nbytes);
    else if (mode == 2)
        memset(bits, 0, nbytes);
    else if (mode == 3) /* mostly valid with long runs */
        for (size_t i = 0; i < nbytes; i++)
            bits[i] = (i / 9) % 3 ? 0xff : bits[i];
}

/* Indices of the valid slots only, as a page stores them. */
static size_t encode_page(struct basalt_buffer *buf, const uint32_t *idx, size_t n,
                          uint32_t dict_len)
{
    buf->size = 0;
    return basalt_parquet_dict_encode_indices(idx, n, dict_len, buf, NULL) == BASALT_OK;
}

TEST(dict_gather_fixed_widths_dense_and_spaced)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 31);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    static const size_t widths[] = {1, 2, 3, 4, 8, 12, 16, 7, 33};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        for (int round = 0; round < 24; round++) {
            size_t width = widths[wi];
            uint32_t dict_len = (uint32_t)bt_rng_below(&rng, round < 4 ? 2 : 3000) + 1;
            size_t count = (size_t)bt_rng_below(&rng, 3000);
            int mode = round % 5; /* 0 random, 1 all valid, 2 all null, 3 runs, 4 dense */
            int64_t voff = (int64_t)bt_rng_below(&rng, 30);
            size_t vbytes = (size_t)(voff + (int64_t)count + 7) / 8 + 1;
            uint8_t *dict = basalt_malloc(dict_len * width);
            uint8_t *validity = basalt_malloc(vbytes);
            uint32_t *idx = basalt_malloc((count + 1) * sizeof *idx);
            uint8_t *out = basalt_malloc(count * width + 1);
            CHECK(dict && validity && idx && out);
            bt_rng_fill(&rng, dict, dict_len * width);
            random_validity(&rng, validity, vbytes, mode == 4 ? 1 : mode);
            const uint8_t *vp = mode == 4 ? NULL : validity;
            uint64_t n = basalt_parquet_count_valid(vp, voff, count);
            make_indices(&rng, idx, (size_t)n, dict_len);
            CHECK(encode_page(&buf, idx, (size_t)n, dict_len));
            struct basalt_parquet_rle_decoder dec;
            CHECK_OK(basalt_parquet_dict_indices_init(&dec, buf.data, buf.size, n, &err), &err);
            memset(out, 0xcc, count * width + 1);
            CHECK_OK(basalt_parquet_dict_gather_fixed(&dec, dict, dict_len, width, count, vp,
                                                      voff, out, &err),
                     &err);
            size_t k = 0;
            for (size_t i = 0; i < count; i++) {
                const uint8_t *slot = out + i * width;
                if (!vp || basalt_bitmap_get(vp, voff + (int64_t)i)) {
                    CHECK_MSG(memcmp(slot, dict + idx[k] * width, width) == 0,
                              "width %zu round %d slot %zu", width, round, i);
                    k++;
                } else {
                    for (size_t b = 0; b < width; b++)
                        CHECK_EQ(slot[b], 0);
                }
            }
            CHECK_EQ(k, n);
            CHECK_EQ(out[count * width], 0xcc); /* nothing past the slots */
            basalt_free(dict);
            basalt_free(validity);
            basalt_free(idx);
            basalt_free(out);
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(dict_indices_out_of_range_are_corrupt)
{
    struct basalt_error err;
    struct basalt_parquet_rle_decoder dec;
    int64_t dict[3] = {10, 20, 30}, out[16];
    /* Width 2, a repeated run of 4 copies of index 3. */
    static const uint8_t repeat[] = {2, 0x08, 0x03};
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, repeat, sizeof repeat, 4, &err), &err);
    CHECK_STATUS(basalt_parquet_dict_gather_fixed(&dec, dict, 3, 8, 4, NULL, 0, out, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STR(err.message, "dictionary index 3 out of range (dictionary has 3 entries)");
    /* Width 2, one bit-packed group 0,1,2,3,0,0,0,0: the offender is the 4th. */
    static const uint8_t literal[] = {2, 0x03, 0xe4, 0x00};
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, literal, sizeof literal, 8, &err), &err);
    CHECK_STATUS(basalt_parquet_dict_gather_fixed(&dec, dict, 3, 8, 8, NULL, 0, out, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "index 3 out of range") != NULL);
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, literal, sizeof literal, 8, &err), &err);
    int32_t ind[8];
    CHECK_STATUS(basalt_parquet_dict_decode_indices(&dec, 3, 8, NULL, 0, ind, &err),
                 BASALT_CORRUPT, &err);
    /* With four entries the same page is fine. */
    int64_t dict4[4] = {10, 20, 30, 40};
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, literal, sizeof literal, 8, &err), &err);
    CHECK_OK(basalt_parquet_dict_gather_fixed(&dec, dict4, 4, 8, 8, NULL, 0, out, &err), &err);
    CHECK_EQ(out[0], 10);
    CHECK_EQ(out[3], 40);
    CHECK_EQ(out[7], 10);
    /* An empty dictionary admits no index. */
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, literal, sizeof literal, 8, &err), &err);
    CHECK_STATUS(basalt_parquet_dict_gather_fixed(&dec, dict4, 0, 8, 1, NULL, 0, out, &err),
                 BASALT_CORRUPT, &err);
    /* More indices wanted than the page holds. */
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, literal, sizeof literal, 8, &err), &err);
    CHECK_STATUS(basalt_parquet_dict_gather_fixed(&dec, dict4, 4, 8, 9, NULL, 0, out, &err),
                 BASALT_CORRUPT, &err);
}

TEST(dict_one_bad_index_anywhere_is_caught)
{
    /* A single out-of-range index at every position of a page (first, last,
     * inside repeated runs and literal groups) must be found. */
    struct bt_rng rng;
    bt_rng_seed(&rng, 35);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    enum { N = 150, DICT = 100 };
    uint32_t idx[N];
    int64_t dict[DICT + 1] = {0}, out[N];
    for (int pos = 0; pos < N; pos++) {
        make_indices(&rng, idx, N, DICT);
        idx[pos] = DICT;
        if (pos % 3 == 0) /* inside a repeated run of the bad index */
            for (int k = pos; k < N && k < pos + 9; k++)
                idx[k] = DICT;
        CHECK(encode_page(&buf, idx, N, DICT + 1));
        struct basalt_parquet_rle_decoder dec;
        CHECK_OK(basalt_parquet_dict_indices_init(&dec, buf.data, buf.size, N, &err), &err);
        CHECK_STATUS(basalt_parquet_dict_gather_fixed(&dec, dict, DICT, 8, N, NULL, 0, out, &err),
                     BASALT_CORRUPT, &err);
        CHECK(strstr(err.message, "dictionary index 100 out of range") != NULL);
        CHECK_OK(basalt_parquet_dict_indices_init(&dec, buf.data, buf.size, N, &err), &err);
        int32_t ind[N];
        CHECK_STATUS(basalt_parquet_dict_decode_indices(&dec, DICT, N, NULL, 0, ind, &err),
                     BASALT_CORRUPT, &err);
    }
    basalt_buffer_reset(&buf);
}

TEST(dict_bit_width_zero_means_all_index_zero)
{
    /* Width byte 0 then a repeated run of 5 (no value bytes). */
    static const uint8_t page[] = {0, 0x0a};
    struct basalt_error err;
    struct basalt_parquet_rle_decoder dec;
    int32_t dict[1] = {42}, out[5];
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, page, sizeof page, 5, &err), &err);
    CHECK_OK(basalt_parquet_dict_gather_fixed(&dec, dict, 1, 4, 5, NULL, 0, out, &err), &err);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(out[i], 42);
}

TEST(dict_decode_indices_spaced)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 32);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (int round = 0; round < 100; round++) {
        size_t count = (size_t)bt_rng_below(&rng, 2000);
        uint32_t dict_len = (uint32_t)bt_rng_below(&rng, 100000) + 1;
        uint8_t validity[260];
        random_validity(&rng, validity, sizeof validity, round % 4);
        uint64_t n = basalt_parquet_count_valid(validity, 3, count);
        uint32_t idx[2000];
        int32_t out[2000];
        make_indices(&rng, idx, (size_t)n, dict_len);
        CHECK(encode_page(&buf, idx, (size_t)n, dict_len));
        struct basalt_parquet_rle_decoder dec;
        CHECK_OK(basalt_parquet_dict_indices_init(&dec, buf.data, buf.size, n, &err), &err);
        CHECK_OK(basalt_parquet_dict_decode_indices(&dec, dict_len, count, validity, 3, out, &err),
                 &err);
        size_t k = 0;
        for (size_t i = 0; i < count; i++)
            CHECK_EQ(out[i], basalt_bitmap_get(validity, 3 + (int64_t)i) ? (int32_t)idx[k++] : 0);
    }
    basalt_buffer_reset(&buf);
}

/* A dictionary of random strings in the layout the PLAIN decoder produces. */
struct str_dict {
    int32_t offsets[513];
    uint8_t data[513 * 40];
    uint32_t count;
};

static void make_str_dict(struct bt_rng *rng, struct str_dict *d, uint32_t count)
{
    d->count = count;
    d->offsets[0] = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t len = (uint32_t)bt_rng_below(rng, i % 5 == 0 ? 40 : 12);
        bt_rng_fill(rng, d->data + d->offsets[i], len);
        d->offsets[i + 1] = d->offsets[i] + (int32_t)len;
    }
}

TEST(dict_gather_binary_dense_and_spaced)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 33);
    struct basalt_buffer buf, data;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&data);
    struct basalt_error err;
    static struct str_dict sd;
    for (int round = 0; round < 120; round++) {
        make_str_dict(&rng, &sd, (uint32_t)bt_rng_below(&rng, 512) + 1);
        /* An exact-size copy of the dictionary bytes: the 16-byte copies must
         * not read past it. */
        size_t dbytes = (size_t)sd.offsets[sd.count];
        uint8_t *dcopy = basalt_malloc(dbytes ? dbytes : 1);
        CHECK(dcopy);
        memcpy(dcopy, sd.data, dbytes);
        struct basalt_parquet_dict_binary dict = {sd.offsets, dcopy, sd.count};
        size_t count = (size_t)bt_rng_below(&rng, 3000);
        uint8_t validity[400];
        random_validity(&rng, validity, sizeof validity, round % 5 == 4 ? 1 : round % 4);
        const uint8_t *vp = round % 5 == 4 ? NULL : validity;
        int64_t voff = (int64_t)bt_rng_below(&rng, 9);
        uint64_t n = basalt_parquet_count_valid(vp, voff, count);
        uint32_t idx[3000];
        make_indices(&rng, idx, (size_t)n, sd.count);
        CHECK(encode_page(&buf, idx, (size_t)n, sd.count));
        bool large = round & 1;
        int32_t *o32 = basalt_malloc((count + 1) * sizeof *o32);
        int64_t *o64 = basalt_malloc((count + 1) * sizeof *o64);
        CHECK(o32 && o64);
        /* Continue an array already holding some bytes. */
        data.size = 0;
        CHECK_OK(basalt_buffer_append(&data, "prefix", 6, &err), &err);
        struct basalt_parquet_binary_out out = {large ? NULL : o32, large ? o64 : NULL, &data, 0};
        struct basalt_parquet_rle_decoder dec;
        CHECK_OK(basalt_parquet_dict_indices_init(&dec, buf.data, buf.size, n, &err), &err);
        CHECK_OK(basalt_parquet_dict_gather_binary(&dec, &dict, count, vp, voff, &out, &err),
                 &err);
        size_t k = 0;
        for (size_t i = 0; i <= count; i++) {
            int64_t a = large ? o64[i] : o32[i];
            if (i == 0) {
                CHECK_EQ(a, 6);
                continue;
            }
            int64_t s = large ? o64[i - 1] : o32[i - 1];
            if (!vp || basalt_bitmap_get(vp, voff + (int64_t)i - 1)) {
                uint32_t d = idx[k++];
                int64_t len = sd.offsets[d + 1] - sd.offsets[d];
                CHECK_EQ(a - s, len);
                CHECK_MEM(data.data + s, sd.data + sd.offsets[d], (size_t)len);
            } else {
                CHECK_EQ(a, s); /* null: empty */
            }
        }
        CHECK_EQ(k, n);
        CHECK_EQ(data.size, (size_t)(large ? o64[count] : o32[count]));
        basalt_free(o32);
        basalt_free(o64);
        basalt_free(dcopy);
    }
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&data);
}

TEST(dict_gather_binary_limits)
{
    struct basalt_error err;
    static const uint8_t strs[] = "0123456789";
    int32_t doff[2] = {0, 10};
    struct basalt_parquet_dict_binary dict = {doff, strs, 1};
    /* Width 1, a repeated run of 1000 copies of index 0: 10000 bytes. */
    static const uint8_t page[] = {1, 0xd0, 0x0f, 0x00};
    struct basalt_buffer data;
    basalt_buffer_init(&data);
    int32_t o32[1001];
    struct basalt_parquet_binary_out out = {o32, NULL, &data, 9999};
    struct basalt_parquet_rle_decoder dec;
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, page, sizeof page, 1000, &err), &err);
    CHECK_STATUS(basalt_parquet_dict_gather_binary(&dec, &dict, 1000, NULL, 0, &out, &err),
                 BASALT_LIMIT, &err);
    out.max_data = 10000;
    CHECK_OK(basalt_parquet_dict_indices_init(&dec, page, sizeof page, 1000, &err), &err);
    CHECK_OK(basalt_parquet_dict_gather_binary(&dec, &dict, 1000, NULL, 0, &out, &err), &err);
    CHECK_EQ(data.size, 10000);
    CHECK_EQ(o32[1000], 10000);
    CHECK_MEM(data.data + 9990, strs, 10);
    /* Both or neither offsets array: a caller error. */
    int64_t o64[2];
    struct basalt_parquet_binary_out both = {o32, o64, &data, 0};
    CHECK_STATUS(basalt_parquet_dict_gather_binary(&dec, &dict, 0, NULL, 0, &both, &err),
                 BASALT_INVALID_ARG, &err);
    basalt_buffer_reset(&data);
}

struct gather_ctx {
    const uint8_t *page;
    size_t page_len;
    uint64_t n;
    const struct basalt_parquet_dict_binary *dict;
};

static basalt_status gather_attempt(void *p)
{
    struct gather_ctx *c = p;
    struct basalt_buffer data;
    basalt_buffer_init(&data);
    int64_t *offsets = basalt_malloc((size_t)(c->n + 1) * sizeof *offsets);
    if (!offsets)
        return BASALT_NOMEM;
    struct basalt_parquet_binary_out out = {NULL, offsets, &data, 0};
    struct basalt_parquet_rle_decoder dec;
    basalt_status st = basalt_parquet_dict_indices_init(&dec, c->page, c->page_len, c->n, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_dict_gather_binary(&dec, c->dict, c->n, NULL, 0, &out, NULL);
    basalt_buffer_reset(&data);
    basalt_free(offsets);
    return st;
}

TEST(dict_gather_binary_alloc_sweep)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 34);
    static struct str_dict sd;
    make_str_dict(&rng, &sd, 300);
    struct basalt_parquet_dict_binary dict = {sd.offsets, sd.data, sd.count};
    static uint32_t idx[5000];
    make_indices(&rng, idx, 5000, 300);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    CHECK(encode_page(&buf, idx, 5000, 300));
    struct gather_ctx c = {buf.data, buf.size, 5000, &dict};
    CHECK_ALLOC_SWEEP(gather_attempt, &c);
    basalt_buffer_reset(&buf);
}

TEST(dict_encode_indices_width)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    uint32_t idx[3] = {0, 0, 0};
    /* One entry still gets width 1: some readers refuse width 0. */
    CHECK_OK(basalt_parquet_dict_encode_indices(idx, 3, 1, &buf, &err), &err);
    CHECK_EQ(buf.data[0], 1);
    buf.size = 0;
    CHECK_OK(basalt_parquet_dict_encode_indices(idx, 3, 256, &buf, &err), &err);
    CHECK_EQ(buf.data[0], 8);
    buf.size = 0;
    CHECK_OK(basalt_parquet_dict_encode_indices(idx, 3, 257, &buf, &err), &err);
    CHECK_EQ(buf.data[0], 9);
    buf.size = 0;
    idx[1] = 257;
    CHECK_STATUS(basalt_parquet_dict_encode_indices(idx, 3, 257, &buf, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK_EQ(buf.size, 0);
    basalt_buffer_reset(&buf);
}
