/* DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY.
 *
 * Known answers: the spec's examples (the stream bytes worked out from the
 * spec's description and cross-checked with a separate Python encoder), and
 * pages written by parquet-mr in parquet-testing, checked against the CSV
 * files shipped beside them. Then round trips, truncation and corruption. */
#include <stdlib.h>

#include "parquet_encoding.h"
#include "test.h"

/* ------------------------------------------------------------ helpers */

static basalt_status decode_i64_all(const uint8_t *data, size_t len, uint64_t n, int64_t *out,
                                    struct basalt_error *err)
{
    struct basalt_parquet_delta_decoder dec;
    basalt_status st = basalt_parquet_delta_decoder_init(&dec, data, len, 64, n, err);
    if (st == BASALT_OK)
        st = basalt_parquet_delta_decode_i64(&dec, n, NULL, 0, out, err);
    return st;
}

static uint8_t *exact_copy(const struct basalt_buffer *buf, size_t len)
{
    uint8_t *p = basalt_malloc(len ? len : 1);
    if (p && len)
        memcpy(p, buf->data, len);
    return p;
}

/* ------------------------------------------------------ spec examples */

TEST(delta_spec_examples)
{
    struct basalt_error err;
    int64_t out[8];
    /* As printed (block size 8), the examples are not valid streams: the spec
     * says so, and the decoder must refuse them. */
    static const uint8_t ex1_spec[] = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
    CHECK_STATUS(decode_i64_all(ex1_spec, sizeof ex1_spec, 5, out, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "multiple of 128") != NULL);
    static const uint8_t ex2_spec[] = {0x08, 0x01, 0x08, 0x0e, 0x03, 0x02, 0xc0, 0x3f};
    CHECK_STATUS(decode_i64_all(ex2_spec, sizeof ex2_spec, 8, out, &err), BASALT_CORRUPT, &err);

    /* The same values with a valid block of 128 in 4 miniblocks.
     * Example 1: 1..5; deltas all 1, min delta 1 (zigzag 2), width 0. */
    static const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    CHECK_OK(decode_i64_all(ex1, sizeof ex1, 5, out, &err), &err);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(out[i], i + 1);
    /* Example 2: 7,5,3,1,2,3,4,5; min delta -2 (zigzag 3), relative deltas
     * 0,0,0,3,3,3,3 at width 2 in a 32-value miniblock (8 bytes). */
    static const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00,
                                  0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    static const int64_t ex2_values[] = {7, 5, 3, 1, 2, 3, 4, 5};
    CHECK_OK(decode_i64_all(ex2, sizeof ex2, 8, out, &err), &err);
    CHECK_MEM(out, ex2_values, sizeof ex2_values);
    int32_t o32[8];
    struct basalt_parquet_delta_decoder dec;
    CHECK_OK(basalt_parquet_delta_decoder_init(&dec, ex2, sizeof ex2, 32, 8, &err), &err);
    CHECK_OK(basalt_parquet_delta_decode_i32(&dec, 8, NULL, 0, o32, &err), &err);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(o32[i], ex2_values[i]);
    size_t stream_len = 0;
    CHECK_OK(basalt_parquet_delta_decoder_finish(&dec, &stream_len, &err), &err);
    CHECK_EQ(stream_len, sizeof ex2);

    /* Our encoder writes exactly these bytes. */
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    static const int64_t ex1_values[] = {1, 2, 3, 4, 5};
    CHECK_OK(basalt_parquet_delta_encode_i64(ex1_values, 5, NULL, 0, &buf, &err), &err);
    CHECK_EQ(buf.size, sizeof ex1);
    CHECK_MEM(buf.data, ex1, sizeof ex1);
    buf.size = 0;
    CHECK_OK(basalt_parquet_delta_encode_i64(ex2_values, 8, NULL, 0, &buf, &err), &err);
    CHECK_EQ(buf.size, sizeof ex2);
    CHECK_MEM(buf.data, ex2, sizeof ex2);
    basalt_buffer_reset(&buf);
}

TEST(delta_length_and_bytes_spec_examples)
{
    struct basalt_error err;
    struct basalt_buffer buf, data;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&data);
    /* "Hello", "World", "Foobar", "ABCDEF": DeltaEncoding(5, 5, 6, 6) then
     * the bytes. First value 5 (zigzag 10), deltas 0,1,0 at width 1. */
    static const uint8_t dlba[] = {0x80, 0x01, 0x04, 0x04, 0x0a, 0x00, 0x01, 0x00, 0x00, 0x00,
                                   0x02, 0x00, 0x00, 0x00, 'H',  'e',  'l',  'l',  'o',  'W',
                                   'o',  'r',  'l',  'd',  'F',  'o',  'o',  'b',  'a',  'r',
                                   'A',  'B',  'C',  'D',  'E',  'F'};
    int32_t off[5];
    struct basalt_parquet_binary_out out = {off, NULL, &data, 0};
    struct basalt_parquet_delta_length_decoder ldec;
    CHECK_OK(basalt_parquet_delta_length_decoder_init(&ldec, dlba, sizeof dlba, 4, &err), &err);
    CHECK_OK(basalt_parquet_delta_length_decode(&ldec, 4, NULL, 0, &out, &err), &err);
    static const int32_t dlba_off[5] = {0, 5, 10, 16, 22};
    CHECK_MEM(off, dlba_off, sizeof dlba_off);
    CHECK_MEM(data.data, "HelloWorldFoobarABCDEF", 22);
    struct basalt_parquet_binary_view view = {off, NULL, data.data};
    CHECK_OK(basalt_parquet_delta_length_encode(&view, 4, NULL, 0, &buf, &err), &err);
    CHECK_EQ(buf.size, sizeof dlba);
    CHECK_MEM(buf.data, dlba, sizeof dlba);

    /* "axis", "axle", "babble", "babyhood": prefixes (0, 2, 0, 3), suffixes
     * (4, 2, 6, 5), then "axislebabbleyhood". */
    static const uint8_t dba[] = {
        0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x44, 0x01, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x04, 0x04, 0x08, 0x03,
        0x03, 0x00, 0x00, 0x00, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 'a',  'x',  'i',  's',  'l',  'e',  'b',  'a',  'b',  'b',  'l',  'e',
        'y',  'h',  'o',  'o',  'd'};
    struct basalt_parquet_delta_bytes_decoder bdec;
    CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&bdec, dba, sizeof dba, 4, &err), &err);
    data.size = 0;
    CHECK_OK(basalt_parquet_delta_bytes_decode(&bdec, 4, NULL, 0, &out, &err), &err);
    basalt_parquet_delta_bytes_decoder_reset(&bdec);
    static const int32_t dba_off[5] = {0, 4, 8, 14, 22};
    CHECK_MEM(off, dba_off, sizeof dba_off);
    CHECK_MEM(data.data, "axisaxlebabblebabyhood", 22);
    buf.size = 0;
    view.data = data.data;
    CHECK_OK(basalt_parquet_delta_bytes_encode(&view, NULL, 0, 4, NULL, 0, &buf, &err), &err);
    CHECK_EQ(buf.size, sizeof dba);
    CHECK_MEM(buf.data, dba, sizeof dba);
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&data);
}

/* ---------------------------------------------- parquet-testing pages */

/* Reads `path` and splits its lines into comma-separated fields, in place;
 * quoted fields keep their quotes. */
struct csv {
    uint8_t *text;
    char **fields;
    size_t rows, cols;
};

static int csv_load(struct csv *c, const char *path, size_t cols)
{
    size_t len;
    memset(c, 0, sizeof *c);
    c->text = bt_read_file(path, &len);
    if (!c->text)
        return 0;
    c->cols = cols;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += c->text[i] == '\n';
    c->fields = basalt_calloc(lines * cols + 1, sizeof *c->fields);
    if (!c->fields)
        return 0;
    char *p = (char *)c->text, *end = p + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        *nl = '\0';
        for (size_t f = 0; f < cols; f++) {
            /* A quoted field may hold commas: its end is the closing quote. */
            char *q = p;
            if (*q == '"') {
                q = strchr(q + 1, '"');
                if (!q)
                    return 0;
            }
            char *comma = f + 1 < cols ? strchr(q, ',') : NULL;
            if (f + 1 < cols && !comma)
                return 0;
            if (comma)
                *comma = '\0';
            c->fields[c->rows * cols + f] = p;
            p = comma ? comma + 1 : p + strlen(p);
        }
        c->rows++;
        p = nl + 1;
    }
    return 1;
}

static void csv_free(struct csv *c)
{
    basalt_free(c->text);
    basalt_free(c->fields);
}

/* delta_binary_packed.parquet (parquet-mr 1.10.0): one v2 data page per
 * column, bitwidth0..bitwidth64 (INT64) and int_value (INT32), 200 values
 * each, a 3-byte definition-level run before the values. Page body offsets
 * and sizes read from the file's footer and page headers. */
static const uint32_t dbp_pages[66][2] = {
    {71, 28},      {166, 47},     {282, 75},     {426, 103},    {598, 131},    {798, 159},
    {1026, 187},   {1282, 215},   {1566, 245},   {1880, 273},   {2222, 301},   {2592, 329},
    {2990, 357},   {3416, 385},   {3870, 413},   {4352, 443},   {4864, 471},   {5404, 499},
    {5972, 527},   {6568, 555},   {7192, 583},   {7844, 611},   {8524, 641},   {9234, 669},
    {9972, 697},   {10738, 725},  {11532, 753},  {12354, 781},  {13204, 809},  {14082, 839},
    {14990, 867},  {15926, 895},  {16890, 923},  {17882, 951},  {18902, 979},  {19950, 1007},
    {21026, 1037}, {22132, 1065}, {23266, 1093}, {24428, 1121}, {25618, 1149}, {26836, 1177},
    {28082, 1205}, {29356, 1235}, {30660, 1263}, {31992, 1291}, {33352, 1319}, {34740, 1347},
    {36156, 1375}, {37600, 1403}, {39072, 1433}, {40574, 1461}, {42104, 1489}, {43662, 1517},
    {45248, 1545}, {46862, 1573}, {48504, 1601}, {50174, 1631}, {51874, 1659}, {53602, 1687},
    {55358, 1715}, {57142, 1743}, {58954, 1771}, {60794, 1799}, {62662, 1829}, {64544, 927},
};

TEST(delta_parquet_mr_pages_every_bit_width)
{
    size_t flen;
    uint8_t *file =
        bt_read_file(bt_testdata_path("parquet-testing/data/delta_binary_packed.parquet"),
                     &flen);
    CHECK_MSG(file, "delta_binary_packed.parquet is missing from the shared corpus");
    struct csv csv;
    int ok = csv_load(&csv, bt_testdata_path(
                                "parquet-testing/data/delta_binary_packed_expect.csv"),
                      66);
    if (!ok || csv.rows != 201) {
        basalt_free(file);
        csv_free(&csv);
        CHECK_MSG(0, "cannot read delta_binary_packed_expect.csv");
    }
    struct basalt_error err;
    int failed = 0;
    for (int col = 0; col < 66 && !failed; col++) {
        const uint8_t *body = file + dbp_pages[col][0];
        size_t size = dbp_pages[col][1];
        CHECK(dbp_pages[col][0] + size <= flen);
        /* Definition levels (max 1): all 200 present. */
        struct basalt_parquet_rle_decoder levels;
        uint8_t validity[25];
        uint64_t nulls = 99;
        CHECK_OK(basalt_parquet_levels_init(&levels, body, 3, 1, 200, false, NULL, &err), &err);
        CHECK_OK(basalt_parquet_levels_decode_validity(&levels, 200, validity, 0, &nulls, &err),
                 &err);
        CHECK_EQ(nulls, 0);
        struct basalt_parquet_delta_decoder dec;
        int64_t v64[200];
        int32_t v32[200];
        bool is32 = col == 65;
        CHECK_OK(basalt_parquet_delta_decoder_init(&dec, body + 3, size - 3, is32 ? 32 : 64, 200,
                                                   &err),
                 &err);
        /* In uneven calls, to cross batches and miniblocks mid-way. */
        uint64_t done = 0, step = 1;
        while (done < 200) {
            uint64_t n = 200 - done < step ? 200 - done : step;
            if (is32)
                CHECK_OK(basalt_parquet_delta_decode_i32(&dec, n, NULL, 0, v32 + done, &err),
                         &err);
            else
                CHECK_OK(basalt_parquet_delta_decode_i64(&dec, n, NULL, 0, v64 + done, &err),
                         &err);
            done += n;
            step = step * 3 + 1;
        }
        size_t stream_len = 0;
        CHECK_OK(basalt_parquet_delta_decoder_finish(&dec, &stream_len, &err), &err);
        CHECK_EQ(stream_len, size - 3); /* the stream fills the page exactly */
        for (int row = 0; row < 200; row++) {
            const char *want = csv.fields[(row + 1) * 66 + col];
            long long expect = strtoll(want, NULL, 10);
            long long got = is32 ? v32[row] : v64[row];
            if (got != expect) {
                bt_fail(__FILE__, __LINE__, "column %d row %d: %lld != %s", col, row, got, want);
                failed = 1;
                break;
            }
        }
    }
    basalt_free(file);
    csv_free(&csv);
}

/* delta_byte_array.parquet (parquet-mr 1.10.0): nine optional string columns
 * of 1000 rows, one v2 data page each: definition levels (def_len bytes,
 * no prefix) then DELTA_BYTE_ARRAY values. {body offset, def_len, size}. */
static const uint32_t dba_pages[9][3] = {
    {69, 3, 8183},     {8292, 80, 3322},  {11660, 88, 6549},
    {18254, 76, 6910}, {25200, 84, 1184}, {26439, 94, 9544},
    {36012, 3, 13},    {36121, 87, 27667}, {63836, 75, 3463},
};

TEST(delta_bytes_parquet_mr_pages_with_nulls)
{
    size_t flen;
    uint8_t *file = bt_read_file(
        bt_testdata_path("parquet-testing/data/delta_byte_array.parquet"), &flen);
    CHECK_MSG(file, "delta_byte_array.parquet is missing from the shared corpus");
    struct csv csv;
    int ok = csv_load(&csv, bt_testdata_path("parquet-testing/data/delta_byte_array_expect.csv"),
                      9);
    if (!ok || csv.rows != 1001) {
        basalt_free(file);
        csv_free(&csv);
        CHECK_MSG(0, "cannot read delta_byte_array_expect.csv");
    }
    struct basalt_error err;
    struct basalt_buffer data;
    basalt_buffer_init(&data);
    static int64_t off[1001];
    int failed = 0;
    for (int col = 0; col < 9 && !failed; col++) {
        const uint8_t *body = file + dba_pages[col][0];
        size_t def_len = dba_pages[col][1], size = dba_pages[col][2];
        uint8_t validity[126];
        uint64_t nulls;
        struct basalt_parquet_rle_decoder levels;
        CHECK_OK(basalt_parquet_levels_init(&levels, body, def_len, 1, 1000, false, NULL, &err),
                 &err);
        CHECK_OK(basalt_parquet_levels_decode_validity(&levels, 1000, validity, 0, &nulls, &err),
                 &err);
        struct basalt_parquet_delta_bytes_decoder dec;
        CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&dec, body + def_len, size - def_len,
                                                         1000 - nulls, &err),
                 &err);
        data.size = 0;
        struct basalt_parquet_binary_out out = {NULL, off, &data, 0};
        /* Two calls: the second continues from the value kept between them. */
        basalt_status st = basalt_parquet_delta_bytes_decode(&dec, 333, validity, 0, &out, &err);
        if (st == BASALT_OK) {
            struct basalt_parquet_binary_out rest = {NULL, off + 333, &data, 0};
            st = basalt_parquet_delta_bytes_decode(&dec, 667, validity, 333, &rest, &err);
        }
        basalt_parquet_delta_bytes_decoder_reset(&dec);
        CHECK_OK(st, &err);
        for (int row = 0; row < 1000; row++) {
            const char *want = csv.fields[(row + 1) * 9 + col];
            bool valid = basalt_bitmap_get(validity, row);
            size_t len = (size_t)(off[row + 1] - off[row]);
            /* The CSV quotes strings and leaves nulls empty. */
            bool match;
            if (want[0] != '"')
                match = !valid && want[0] == '\0';
            else
                match = valid && strlen(want) == len + 2 &&
                        memcmp(want + 1, data.data + off[row], len) == 0;
            if (!match) {
                bt_fail(__FILE__, __LINE__, "column %d row %d: got %s \"%.*s\", want %s", col,
                        row, valid ? "value" : "null", (int)len, data.data + off[row], want);
                failed = 1;
                break;
            }
        }
    }
    basalt_buffer_reset(&data);
    basalt_free(file);
    csv_free(&csv);
}

/* --------------------------------------------------------- round trips */

static int64_t sample(struct bt_rng *rng, int kind, int64_t prev, uint64_t i)
{
    switch (kind) {
    case 0: return (int64_t)bt_rng_next(rng);                            /* full range */
    case 1: return prev + (int64_t)bt_rng_below(rng, 100) - 50;          /* small deltas */
    case 2: return (int64_t)i * 1000;                                    /* constant delta */
    case 3: return i & 1 ? INT64_MIN : INT64_MAX;                        /* max deltas */
    case 4: return 42;                                                   /* constant */
    case 5: return (int64_t)(bt_rng_next(rng) >> bt_rng_below(rng, 64)); /* mixed widths */
    default: return i % 300 < 150 ? (int64_t)i : INT64_MIN + (int64_t)i; /* jumps */
    }
}

TEST(delta_round_trip_int64_and_int32)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 51);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    static const uint64_t sizes[] = {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 256, 257, 1000, 4097};
    for (int kind = 0; kind < 7; kind++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (int is32 = 0; is32 < 2; is32++) {
                uint64_t n = sizes[si];
                int64_t *v = basalt_malloc((size_t)(n + 1) * 8), *o = basalt_malloc((size_t)(n + 1) * 8);
                int32_t *v32 = basalt_malloc((size_t)(n + 1) * 4), *o32 = basalt_malloc((size_t)(n + 1) * 4);
                CHECK(v && o && v32 && o32);
                int64_t prev = 0;
                for (uint64_t i = 0; i < n; i++) {
                    prev = sample(&rng, kind, prev, i);
                    v[i] = prev;
                    v32[i] = (int32_t)(uint32_t)(uint64_t)prev;
                }
                buf.size = 0;
                if (is32)
                    CHECK_OK(basalt_parquet_delta_encode_i32(v32, n, NULL, 0, &buf, &err), &err);
                else
                    CHECK_OK(basalt_parquet_delta_encode_i64(v, n, NULL, 0, &buf, &err), &err);
                size_t len = buf.size;
                /* Trailing bytes after the stream must not be taken for it. */
                CHECK_OK(basalt_buffer_append(&buf, "\x01\x02\x03", 3, &err), &err);
                uint8_t *exact = exact_copy(&buf, buf.size);
                CHECK(exact);
                struct basalt_parquet_delta_decoder dec;
                CHECK_OK(basalt_parquet_delta_decoder_init(&dec, exact, buf.size, is32 ? 32 : 64,
                                                           n, &err),
                         &err);
                uint64_t done = 0;
                while (done < n) {
                    uint64_t m = bt_rng_below(&rng, 100) + 1;
                    m = m < n - done ? m : n - done;
                    if (is32)
                        CHECK_OK(basalt_parquet_delta_decode_i32(&dec, m, NULL, 0, o32 + done, &err),
                                 &err);
                    else
                        CHECK_OK(basalt_parquet_delta_decode_i64(&dec, m, NULL, 0, o + done, &err),
                                 &err);
                    done += m;
                }
                if (is32)
                    CHECK_MEM(o32, v32, (size_t)n * 4);
                else
                    CHECK_MEM(o, v, (size_t)n * 8);
                size_t stream_len = 0;
                CHECK_OK(basalt_parquet_delta_decoder_finish(&dec, &stream_len, &err), &err);
                CHECK_EQ(stream_len, len);
                /* finish from a fresh decoder walks the same bytes. */
                CHECK_OK(basalt_parquet_delta_decoder_init(&dec, exact, buf.size, is32 ? 32 : 64,
                                                           UINT64_MAX, &err),
                         &err);
                CHECK_EQ(basalt_parquet_delta_decoder_total(&dec), n);
                CHECK_OK(basalt_parquet_delta_decoder_finish(&dec, &stream_len, &err), &err);
                CHECK_EQ(stream_len, len);
                basalt_free(exact);
                basalt_free(v);
                basalt_free(o);
                basalt_free(v32);
                basalt_free(o32);
            }
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(delta_spaced_and_skip)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 52);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (int round = 0; round < 60; round++) {
        uint64_t count = bt_rng_below(&rng, 2000);
        int64_t v[2000], o[2000];
        uint8_t validity[260];
        bt_rng_fill(&rng, validity, sizeof validity);
        if (round % 4 == 0)
            memset(validity, round % 8 ? 0xff : 0, sizeof validity);
        for (uint64_t i = 0; i < count; i++)
            v[i] = (int64_t)bt_rng_below(&rng, 1000) - 500;
        buf.size = 0;
        CHECK_OK(basalt_parquet_delta_encode_i64(v, count, validity, 5, &buf, &err), &err);
        uint64_t n = basalt_parquet_count_valid(validity, 5, count);
        struct basalt_parquet_delta_decoder dec;
        CHECK_OK(basalt_parquet_delta_decoder_init(&dec, buf.data, buf.size, 64, n, &err), &err);
        CHECK_OK(basalt_parquet_delta_decode_i64(&dec, count, validity, 5, o, &err), &err);
        for (uint64_t i = 0; i < count; i++)
            CHECK_EQ(o[i], basalt_bitmap_get(validity, 5 + (int64_t)i) ? v[i] : 0);
        /* Skipping k values then decoding lands on the (k+1)-th valid value. */
        if (n > 1) {
            uint64_t k = bt_rng_below(&rng, n);
            CHECK_OK(basalt_parquet_delta_decoder_init(&dec, buf.data, buf.size, 64, n, &err),
                     &err);
            CHECK_OK(basalt_parquet_delta_decoder_skip(&dec, k, &err), &err);
            int64_t one;
            CHECK_OK(basalt_parquet_delta_decode_i64(&dec, 1, NULL, 0, &one, &err), &err);
            uint64_t seen = 0;
            for (uint64_t i = 0; i < count; i++)
                if (basalt_bitmap_get(validity, 5 + (int64_t)i) && seen++ == k)
                    CHECK_EQ(one, v[i]);
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(delta_truncated_at_every_length)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 53);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    int64_t v[700], o[700];
    for (int kind = 0; kind < 7; kind++) {
        int64_t prev = 0;
        uint64_t n = 300 + bt_rng_below(&rng, 400);
        for (uint64_t i = 0; i < n; i++)
            v[i] = prev = sample(&rng, kind, prev, i);
        buf.size = 0;
        CHECK_OK(basalt_parquet_delta_encode_i64(v, n, NULL, 0, &buf, &err), &err);
        for (size_t len = 0; len < buf.size; len++) {
            uint8_t *cut = exact_copy(&buf, len);
            CHECK(cut);
            basalt_status st = decode_i64_all(cut, len, n, o, &err);
            struct basalt_parquet_delta_decoder dec;
            size_t sl;
            basalt_status st2 = basalt_parquet_delta_decoder_init(&dec, cut, len, 64, n, &err);
            if (st2 == BASALT_OK)
                st2 = basalt_parquet_delta_decoder_finish(&dec, &sl, &err);
            basalt_free(cut);
            CHECK_MSG(st == BASALT_CORRUPT && st2 == BASALT_CORRUPT, "kind %d len %zu: %s/%s",
                      kind, len, basalt_status_name(st), basalt_status_name(st2));
        }
    }
    basalt_buffer_reset(&buf);
}

TEST(delta_rejects_bad_headers_and_widths)
{
    struct basalt_error err;
    int64_t o[64];
    struct basalt_parquet_delta_decoder dec;
    /* Block 128 in 3 miniblocks does not divide; in 8 gives 16-value ones. */
    static const uint8_t three[] = {0x80, 0x01, 0x03, 0x01, 0x00};
    CHECK_STATUS(decode_i64_all(three, sizeof three, 1, o, &err), BASALT_CORRUPT, &err);
    static const uint8_t eight[] = {0x80, 0x01, 0x08, 0x01, 0x00};
    CHECK_STATUS(decode_i64_all(eight, sizeof eight, 1, o, &err), BASALT_CORRUPT, &err);
    static const uint8_t zero_mb[] = {0x80, 0x01, 0x00, 0x01, 0x00};
    CHECK_STATUS(decode_i64_all(zero_mb, sizeof zero_mb, 1, o, &err), BASALT_CORRUPT, &err);
    /* A block of 2^25 values is beyond the limit. */
    static const uint8_t huge[] = {0x80, 0x80, 0x80, 0x10, 0x01, 0x01, 0x00};
    CHECK_STATUS(decode_i64_all(huge, sizeof huge, 1, o, &err), BASALT_LIMIT, &err);
    /* The header's count must match the page's. */
    static const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    CHECK_STATUS(decode_i64_all(ex1, sizeof ex1, 6, o, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "holds 5 values, the page 6") != NULL);
    /* Asking for more than the stream holds. */
    CHECK_OK(basalt_parquet_delta_decoder_init(&dec, ex1, sizeof ex1, 64, 5, &err), &err);
    CHECK_STATUS(basalt_parquet_delta_decode_i64(&dec, 6, NULL, 0, o, &err), BASALT_CORRUPT, &err);
    /* Type mismatch is the caller's error. */
    int32_t o32[8];
    CHECK_STATUS(basalt_parquet_delta_decode_i32(&dec, 1, NULL, 0, o32, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK_STATUS(basalt_parquet_delta_decoder_init(&dec, ex1, sizeof ex1, 16, 5, &err),
                 BASALT_INVALID_ARG, &err);
    /* Miniblock width 33 is too wide for INT32, fine for INT64; 65 never. */
    uint8_t w33[6 + 4 + 132] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 33, 0, 0, 0};
    CHECK_OK(basalt_parquet_delta_decoder_init(&dec, w33, sizeof w33, 32, 2, &err), &err);
    CHECK_STATUS(basalt_parquet_delta_decode_i32(&dec, 2, NULL, 0, o32, &err), BASALT_CORRUPT,
                 &err);
    CHECK(strstr(err.message, "width 33 exceeds 32") != NULL);
    CHECK_OK(decode_i64_all(w33, sizeof w33, 2, o, &err), &err);
    w33[6] = 65;
    CHECK_STATUS(decode_i64_all(w33, sizeof w33, 2, o, &err), BASALT_CORRUPT, &err);
    /* Widths of unused miniblocks in the last block are ignored, whatever
     * they say (the spec's rule). */
    static const uint8_t junk_widths[] = {0x80, 0x01, 0x04, 0x03, 0x02, 0x02,
                                          0x00, 0xff, 0xee, 0xdd};
    CHECK_OK(decode_i64_all(junk_widths, sizeof junk_widths, 3, o, &err), &err);
    CHECK_EQ(o[0], 1);
    CHECK_EQ(o[2], 3);
    /* Zero values: only the header, first value included. */
    static const uint8_t empty[] = {0x80, 0x01, 0x04, 0x00, 0x00};
    CHECK_OK(decode_i64_all(empty, sizeof empty, 0, o, &err), &err);
    CHECK_STATUS(decode_i64_all(empty, 4, 0, o, &err), BASALT_CORRUPT, &err);
}

TEST(delta_int32_wraps_around)
{
    /* INT32 deltas taken modulo 2^32: INT32_MIN after INT32_MAX is delta +1. */
    struct basalt_error err;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    int32_t v[6] = {INT32_MAX, INT32_MIN, INT32_MAX, 0, -1, INT32_MIN}, o[6];
    CHECK_OK(basalt_parquet_delta_encode_i32(v, 6, NULL, 0, &buf, &err), &err);
    struct basalt_parquet_delta_decoder dec;
    CHECK_OK(basalt_parquet_delta_decoder_init(&dec, buf.data, buf.size, 32, 6, &err), &err);
    CHECK_OK(basalt_parquet_delta_decode_i32(&dec, 6, NULL, 0, o, &err), &err);
    CHECK_MEM(o, v, sizeof v);
    basalt_buffer_reset(&buf);
}

static void make_strings(struct bt_rng *rng, int32_t *off, uint8_t *data, size_t count,
                         bool shared)
{
    off[0] = 0;
    for (size_t i = 0; i < count; i++) {
        size_t len = (size_t)bt_rng_below(rng, 40);
        uint8_t *p = data + off[i];
        if (shared && i > 0) { /* share a prefix with the previous value */
            size_t prev = (size_t)(off[i] - off[i - 1]);
            size_t keep = (size_t)bt_rng_below(rng, (prev < len ? prev : len) + 1);
            memcpy(p, data + off[i - 1], keep);
            bt_rng_fill(rng, p + keep, len - keep);
            for (size_t k = keep; k < len; k++)
                p[k] = (uint8_t)('a' + p[k] % 3); /* small alphabet: more sharing */
        } else {
            bt_rng_fill(rng, p, len);
        }
        off[i + 1] = off[i] + (int32_t)len;
    }
}

TEST(delta_bytes_round_trip_spaced_chunked)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 54);
    struct basalt_buffer buf, data;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&data);
    struct basalt_error err;
    static int32_t in_off[1501];
    static uint8_t in_data[1500 * 40];
    static int64_t o64[1501];
    static int32_t o32[1501];
    for (int round = 0; round < 80; round++) {
        size_t count = (size_t)bt_rng_below(&rng, 1500);
        make_strings(&rng, in_off, in_data, count, round & 1);
        uint8_t validity[200];
        bt_rng_fill(&rng, validity, sizeof validity);
        if (round % 6 == 0)
            memset(validity, round % 12 ? 0xff : 0, sizeof validity);
        const uint8_t *vp = round % 5 == 0 ? NULL : validity;
        bool dba = round % 3 != 0, large = round % 4 < 2;
        struct basalt_parquet_binary_view view = {in_off, NULL, in_data};
        buf.size = 0;
        if (dba)
            CHECK_OK(basalt_parquet_delta_bytes_encode(&view, NULL, 0, count, vp, 2, &buf, &err),
                     &err);
        else
            CHECK_OK(basalt_parquet_delta_length_encode(&view, count, vp, 2, &buf, &err), &err);
        uint64_t n = basalt_parquet_count_valid(vp, 2, count);
        uint8_t *exact = exact_copy(&buf, buf.size);
        CHECK(exact);
        struct basalt_parquet_delta_bytes_decoder bdec;
        struct basalt_parquet_delta_length_decoder ldec;
        if (dba)
            CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&bdec, exact, buf.size, n, &err),
                     &err);
        else
            CHECK_OK(basalt_parquet_delta_length_decoder_init(&ldec, exact, buf.size, n, &err),
                     &err);
        data.size = 0;
        size_t done = 0;
        while (done < count) {
            size_t m = (size_t)bt_rng_below(&rng, 300) + 1;
            m = m < count - done ? m : count - done;
            struct basalt_parquet_binary_out out = {large ? NULL : o32 + done,
                                                    large ? o64 + done : NULL, &data, 0};
            basalt_status st =
                dba ? basalt_parquet_delta_bytes_decode(&bdec, m, vp, 2 + (int64_t)done, &out, &err)
                    : basalt_parquet_delta_length_decode(&ldec, m, vp, 2 + (int64_t)done, &out,
                                                         &err);
            CHECK_OK(st, &err);
            done += m;
        }
        if (dba)
            basalt_parquet_delta_bytes_decoder_reset(&bdec);
        for (size_t i = 0; i < count; i++) {
            int64_t a = large ? o64[i] : o32[i], b = large ? o64[i + 1] : o32[i + 1];
            if (!vp || basalt_bitmap_get(vp, 2 + (int64_t)i)) {
                CHECK_EQ(b - a, in_off[i + 1] - in_off[i]);
                CHECK_MEM(data.data + a, in_data + in_off[i], (size_t)(b - a));
            } else {
                CHECK_EQ(b, a);
            }
        }
        basalt_free(exact);
    }
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&data);
}

TEST(delta_bytes_fixed_width)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 55);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    for (int round = 0; round < 40; round++) {
        size_t w = (size_t)bt_rng_below(&rng, 20) + 1, count = (size_t)bt_rng_below(&rng, 800);
        uint8_t *v = basalt_malloc(count * w + 1), *o = basalt_malloc(count * w + 1);
        CHECK(v && o);
        for (size_t i = 0; i < count * w; i++)
            v[i] = (uint8_t)bt_rng_below(&rng, 2); /* shared prefixes galore */
        uint8_t validity[100];
        bt_rng_fill(&rng, validity, sizeof validity);
        const uint8_t *vp = round & 1 ? validity : NULL;
        buf.size = 0;
        CHECK_OK(basalt_parquet_delta_bytes_encode(NULL, v, w, count, vp, 0, &buf, &err), &err);
        uint64_t n = basalt_parquet_count_valid(vp, 0, count);
        struct basalt_parquet_delta_bytes_decoder dec;
        CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&dec, buf.data, buf.size, n, &err), &err);
        size_t half = (size_t)bt_rng_below(&rng, count + 1);
        basalt_status st =
            basalt_parquet_delta_bytes_decode_fixed(&dec, w, half, vp, 0, o, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_delta_bytes_decode_fixed(&dec, w, count - half, vp,
                                                         (int64_t)half, o + half * w, &err);
        basalt_parquet_delta_bytes_decoder_reset(&dec);
        CHECK_OK(st, &err);
        for (size_t i = 0; i < count; i++) {
            if (!vp || basalt_bitmap_get(vp, (int64_t)i)) {
                CHECK_MEM(o + i * w, v + i * w, w);
            } else {
                for (size_t b = 0; b < w; b++)
                    CHECK_EQ(o[i * w + b], 0);
            }
        }
        /* A width that disagrees with the values is corrupt. */
        if (n) {
            CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&dec, buf.data, buf.size, n, &err),
                     &err);
            st = basalt_parquet_delta_bytes_decode_fixed(&dec, w + 1, 1, NULL, 0, o, &err);
            basalt_parquet_delta_bytes_decoder_reset(&dec);
            CHECK_STATUS(st, BASALT_CORRUPT, &err);
        }
        basalt_free(v);
        basalt_free(o);
    }
    basalt_buffer_reset(&buf);
}

TEST(delta_bytes_corrupt_streams)
{
    struct basalt_error err;
    struct basalt_buffer buf, data;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&data);
    int32_t off[8];
    struct basalt_parquet_binary_out out = {off, NULL, &data, 0};
    /* Prefix 1 on the first value: there is nothing before it. */
    int32_t prefix[2] = {1, 0}, suffix[2] = {2, 2};
    CHECK_OK(basalt_parquet_delta_encode_i32(prefix, 2, NULL, 0, &buf, &err), &err);
    CHECK_OK(basalt_parquet_delta_encode_i32(suffix, 2, NULL, 0, &buf, &err), &err);
    CHECK_OK(basalt_buffer_append(&buf, "abcd", 4, &err), &err);
    struct basalt_parquet_delta_bytes_decoder dec;
    CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&dec, buf.data, buf.size, 2, &err), &err);
    CHECK_STATUS(basalt_parquet_delta_bytes_decode(&dec, 2, NULL, 0, &out, &err), BASALT_CORRUPT,
                 &err);
    CHECK(strstr(err.message, "longer than the previous value") != NULL);
    basalt_parquet_delta_bytes_decoder_reset(&dec);
    /* A negative suffix length. */
    buf.size = 0;
    prefix[0] = 0;
    suffix[1] = -1;
    CHECK_OK(basalt_parquet_delta_encode_i32(prefix, 2, NULL, 0, &buf, &err), &err);
    CHECK_OK(basalt_parquet_delta_encode_i32(suffix, 2, NULL, 0, &buf, &err), &err);
    CHECK_OK(basalt_buffer_append(&buf, "abcd", 4, &err), &err);
    CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&dec, buf.data, buf.size, 2, &err), &err);
    CHECK_STATUS(basalt_parquet_delta_bytes_decode(&dec, 2, NULL, 0, &out, &err), BASALT_CORRUPT,
                 &err);
    basalt_parquet_delta_bytes_decoder_reset(&dec);
    /* Prefix and suffix streams disagree on the count. */
    buf.size = 0;
    CHECK_OK(basalt_parquet_delta_encode_i32(prefix, 2, NULL, 0, &buf, &err), &err);
    CHECK_OK(basalt_parquet_delta_encode_i32(prefix, 1, NULL, 0, &buf, &err), &err);
    CHECK_STATUS(basalt_parquet_delta_bytes_decoder_init(&dec, buf.data, buf.size, UINT64_MAX,
                                                         &err),
                 BASALT_CORRUPT, &err);
    basalt_parquet_delta_bytes_decoder_reset(&dec);
    /* Amplification: a long value repeated by prefix is capped. */
    int32_t pre[100], suf[100];
    for (int i = 0; i < 100; i++) {
        pre[i] = i ? 1000 : 0;
        suf[i] = i ? 0 : 1000;
    }
    buf.size = 0;
    CHECK_OK(basalt_parquet_delta_encode_i32(pre, 100, NULL, 0, &buf, &err), &err);
    CHECK_OK(basalt_parquet_delta_encode_i32(suf, 100, NULL, 0, &buf, &err), &err);
    CHECK_OK(basalt_buffer_reserve(&buf, 1000, &err), &err);
    memset(buf.data + buf.size, 'z', 1000);
    buf.size += 1000;
    static int32_t off100[101];
    struct basalt_parquet_binary_out capped = {off100, NULL, &data, 50000};
    data.size = 0;
    CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&dec, buf.data, buf.size, 100, &err), &err);
    CHECK_STATUS(basalt_parquet_delta_bytes_decode(&dec, 100, NULL, 0, &capped, &err),
                 BASALT_LIMIT, &err);
    basalt_parquet_delta_bytes_decoder_reset(&dec);
    capped.max_data = 100000;
    data.size = 0;
    CHECK_OK(basalt_parquet_delta_bytes_decoder_init(&dec, buf.data, buf.size, 100, &err), &err);
    CHECK_OK(basalt_parquet_delta_bytes_decode(&dec, 100, NULL, 0, &capped, &err), &err);
    basalt_parquet_delta_bytes_decoder_reset(&dec);
    CHECK_EQ(data.size, 100000);
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&data);
}

TEST(delta_bytes_truncated_at_every_length)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 56);
    static int32_t in_off[301];
    static uint8_t in_data[300 * 40];
    make_strings(&rng, in_off, in_data, 300, true);
    in_off[300] = in_off[299] + 1; /* the last value is not empty: every byte counts */
    in_data[in_off[299]] = 'q';
    struct basalt_parquet_binary_view view = {in_off, NULL, in_data};
    struct basalt_buffer buf, data;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&data);
    static int32_t off[301];
    for (int dba = 0; dba < 2; dba++) {
        buf.size = 0;
        if (dba)
            CHECK_OK(basalt_parquet_delta_bytes_encode(&view, NULL, 0, 300, NULL, 0, &buf, NULL),
                     NULL);
        else
            CHECK_OK(basalt_parquet_delta_length_encode(&view, 300, NULL, 0, &buf, NULL), NULL);
        for (size_t len = 0; len < buf.size; len++) {
            uint8_t *cut = exact_copy(&buf, len);
            CHECK(cut);
            data.size = 0;
            struct basalt_parquet_binary_out out = {off, NULL, &data, 0};
            basalt_status st;
            if (dba) {
                struct basalt_parquet_delta_bytes_decoder dec;
                st = basalt_parquet_delta_bytes_decoder_init(&dec, cut, len, 300, NULL);
                if (st == BASALT_OK)
                    st = basalt_parquet_delta_bytes_decode(&dec, 300, NULL, 0, &out, NULL);
                basalt_parquet_delta_bytes_decoder_reset(&dec);
            } else {
                struct basalt_parquet_delta_length_decoder dec;
                st = basalt_parquet_delta_length_decoder_init(&dec, cut, len, 300, NULL);
                if (st == BASALT_OK)
                    st = basalt_parquet_delta_length_decode(&dec, 300, NULL, 0, &out, NULL);
            }
            basalt_free(cut);
            CHECK_MSG(st == BASALT_CORRUPT, "%s len %zu: %s", dba ? "DBA" : "DLBA", len,
                      basalt_status_name(st));
        }
    }
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&data);
}

struct bytes_ctx {
    const uint8_t *page;
    size_t len;
    const struct basalt_parquet_binary_view *view;
    const uint8_t *validity;
};

static basalt_status bytes_decode_attempt(void *p)
{
    struct bytes_ctx *c = p;
    struct basalt_buffer data;
    basalt_buffer_init(&data);
    int64_t *off = basalt_malloc(1001 * sizeof *off);
    if (!off)
        return BASALT_NOMEM;
    struct basalt_parquet_delta_bytes_decoder dec;
    basalt_status st = basalt_parquet_delta_bytes_decoder_init(&dec, c->page, c->len, 1000, NULL);
    struct basalt_parquet_binary_out out = {NULL, off, &data, 0};
    for (int i = 0; st == BASALT_OK && i < 4; i++)
        st = basalt_parquet_delta_bytes_decode(&dec, 250, NULL, 0, &out, NULL);
    basalt_parquet_delta_bytes_decoder_reset(&dec);
    basalt_buffer_reset(&data);
    basalt_free(off);
    return st;
}

static basalt_status bytes_encode_attempt(void *p)
{
    struct bytes_ctx *c = p;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st =
        basalt_parquet_delta_bytes_encode(c->view, NULL, 0, 1000, c->validity, 0, &buf, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_delta_length_encode(c->view, 1000, c->validity, 0, &buf, NULL);
    if (st == BASALT_OK) {
        static int64_t v[1000];
        st = basalt_parquet_delta_encode_i64(v, 1000, c->validity, 0, &buf, NULL);
    }
    basalt_buffer_reset(&buf);
    return st;
}

TEST(delta_alloc_sweeps)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 57);
    static int32_t in_off[1001];
    static uint8_t in_data[1000 * 40];
    make_strings(&rng, in_off, in_data, 1000, true);
    struct basalt_parquet_binary_view view = {in_off, NULL, in_data};
    uint8_t validity[125];
    bt_rng_fill(&rng, validity, sizeof validity);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    CHECK_OK(basalt_parquet_delta_bytes_encode(&view, NULL, 0, 1000, NULL, 0, &buf, NULL), NULL);
    struct bytes_ctx c = {buf.data, buf.size, &view, validity};
    CHECK_ALLOC_SWEEP(bytes_decode_attempt, &c);
    CHECK_ALLOC_SWEEP(bytes_encode_attempt, &c);
    basalt_buffer_reset(&buf);
}
