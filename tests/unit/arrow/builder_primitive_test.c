/* Builders of fixed-width and bool arrays. Every expected buffer is written
 * out by hand from the Arrow columnar format (little-endian values, LSB-first
 * validity bits). */
#include "arrow_test_util.h"
#include "test.h"

TEST(arrow_builder_int8_with_nulls)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("c", "x", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, -1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, 127, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, -128, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_append_int(b, 128, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_append_int(b, -129, &err), BASALT_INVALID_ARG, &err);
    CHECK_EQ(basalt_arrow_builder_length(b), 5);
    CHECK_EQ(basalt_arrow_builder_null_count(b), 1);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_STR(s.format, "c");
    CHECK_STR(s.name, "x");
    CHECK_EQ(s.flags, ARROW_FLAG_NULLABLE);
    CHECK_EQ(a.length, 5);
    CHECK_EQ(a.null_count, 1);
    CHECK_EQ(a.offset, 0);
    CHECK_EQ(a.n_buffers, 2);
    static const uint8_t values[] = {0x01, 0xff, 0x00, 0x7f, 0x80};
    CHECK_MEM(at_buf(&a, 1), values, sizeof values);
    CHECK_EQ(at_buf(&a, 0)[0], 0x1b); /* 1 1 0 1 1 */
    CHECK_EQ((uintptr_t)a.buffers[0] % 64, 0);
    CHECK_EQ((uintptr_t)a.buffers[1] % 64, 0);
    /* The builder is empty and reusable. */
    CHECK_EQ(basalt_arrow_builder_length(b), 0);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_integers_all_widths)
{
    static const struct {
        const char *format;
        int64_t value;
        uint8_t bytes[8];
        int width;
    } cases[] = {
        {"C", 255, {0xff}, 1},
        {"s", -2, {0xfe, 0xff}, 2},
        {"S", 258, {0x02, 0x01}, 2},
        {"i", -3, {0xfd, 0xff, 0xff, 0xff}, 4},
        {"I", 4294967295, {0xff, 0xff, 0xff, 0xff}, 4},
        {"l", 0x0102030405060708, {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01}, 8},
        {"L", 1, {0x01, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"l", INT64_MIN, {0, 0, 0, 0, 0, 0, 0, 0x80}, 8},
        {"tdD", 19000, {0x38, 0x4a, 0, 0}, 4},
        {"tdm", 86400000, {0x00, 0x5c, 0x26, 0x05, 0, 0, 0, 0}, 8},
        {"tts", 3600, {0x10, 0x0e, 0, 0}, 4},
        {"ttm", -1, {0xff, 0xff, 0xff, 0xff}, 4},
        {"ttu", 1000000, {0x40, 0x42, 0x0f, 0, 0, 0, 0, 0}, 8},
        {"ttn", 1, {1, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"tss:", 1, {1, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"tsm:UTC", 2, {2, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"tsu:Europe/Paris", -1, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8},
        {"tsn:+01:00", 256, {0, 1, 0, 0, 0, 0, 0, 0}, 8},
        {"tDs", 3, {3, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"tDm", 3, {3, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"tDu", 3, {3, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"tDn", 3, {3, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"tiM", 14, {14, 0, 0, 0}, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_arrow_builder *b;
        struct ArrowSchema s;
        struct ArrowArray a;
        struct basalt_error err;
        CHECK_OK(basalt_arrow_builder_new(cases[i].format, "v", 0, &b, &err), &err);
        CHECK_OK(basalt_arrow_builder_append_int(b, 0, &err), &err);
        CHECK_OK(basalt_arrow_builder_append_int(b, cases[i].value, &err), &err);
        CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
        CHECK_STR(s.format, cases[i].format);
        CHECK_EQ(a.length, 2);
        CHECK_EQ(a.null_count, 0);
        CHECK(a.buffers[0] == NULL); /* no nulls: no bitmap */
        static const uint8_t zero[8];
        CHECK_MSG(memcmp(at_buf(&a, 1), zero, (size_t)cases[i].width) == 0, "%s: first value",
                  cases[i].format);
        CHECK_MSG(memcmp(at_buf(&a, 1) + cases[i].width, cases[i].bytes,
                         (size_t)cases[i].width) == 0,
                  "%s: second value", cases[i].format);
        at_release(&s, &a);
        basalt_arrow_builder_free(b);
    }
}

TEST(arrow_builder_integer_ranges)
{
    static const struct {
        const char *format;
        int64_t bad;
    } cases[] = {
        {"c", 128},      {"c", -129},          {"C", -1},    {"C", 256},
        {"s", 32768},    {"S", 65536},         {"i", 1LL << 31}, {"I", -1},
        {"I", 1LL << 32}, {"L", -1},           {"tdD", 1LL << 31},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_arrow_builder *b;
        struct basalt_error err;
        CHECK_OK(basalt_arrow_builder_new(cases[i].format, NULL, 0, &b, &err), &err);
        CHECK_STATUS(basalt_arrow_builder_append_int(b, cases[i].bad, &err), BASALT_INVALID_ARG,
                     &err);
        CHECK_EQ(basalt_arrow_builder_length(b), 0);
        basalt_arrow_builder_free(b);
    }
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("L", NULL, 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_uint(b, UINT64_MAX, NULL), NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    static const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    CHECK_MEM(at_buf(&a, 1), ones, 8);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
    CHECK_OK(basalt_arrow_builder_new("S", NULL, 0, &b, NULL), NULL);
    CHECK_STATUS(basalt_arrow_builder_append_uint(b, 65536, NULL), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(basalt_arrow_builder_append_uint(b, UINT64_MAX, NULL), BASALT_INVALID_ARG, NULL);
    CHECK_OK(basalt_arrow_builder_append_uint(b, 65535, NULL), NULL);
    CHECK_EQ(basalt_arrow_builder_length(b), 1);
    basalt_arrow_builder_free(b);
    CHECK_OK(basalt_arrow_builder_new("i", NULL, 0, &b, NULL), NULL);
    CHECK_STATUS(basalt_arrow_builder_append_uint(b, 1, NULL), BASALT_INVALID_ARG, NULL);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_floats)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("f", NULL, 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_double(b, 1.5, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_double(b, -0.0, NULL), NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    static const uint8_t f32[] = {0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0x80};
    CHECK_MEM(at_buf(&a, 1), f32, sizeof f32);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    CHECK_OK(basalt_arrow_builder_new("g", NULL, 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_double(b, 1.0, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_double(b, -2.0, NULL), NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    static const uint8_t f64[] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0x00, 0xc0};
    CHECK_MEM(at_buf(&a, 1), f64, sizeof f64);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

/* binary16 bit patterns from Python's struct.pack('<e', x) (IEEE 754 round to
 * nearest even); 65520 and above overflow to infinity per IEEE 754, which
 * Python reports as an OverflowError instead. */
TEST(arrow_builder_half_float)
{
    static const struct {
        double value;
        uint16_t bits;
    } cases[] = {
        {0.0, 0x0000},
        {-0.0, 0x8000},
        {1.0, 0x3c00},
        {-2.5, 0xc100},
        {65504.0, 0x7bff},
        {65519.99, 0x7bff},
        {65520.0, 0x7c00},
        {1e10, 0x7c00},
        {5.960464477539063e-08, 0x0001},    /* smallest subnormal */
        {2.9802322387695312e-08, 0x0000},   /* half of it: tie to even, 0 */
        {2.980232536792755e-08, 0x0001},    /* just above half */
        {6.097555160522461e-05, 0x03ff},    /* largest subnormal */
        {1.0009765625, 0x3c01},
        {1.00048828125, 0x3c00},            /* tie, rounds to even */
        {1.00146484375, 0x3c02},            /* tie, rounds to even (up) */
        {0.1, 0x2e66},
        {-3.14159, 0xc248},
        {1e-9, 0x0000},
    };
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("e", NULL, 0, &b, NULL), NULL);
    size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++)
        CHECK_OK(basalt_arrow_builder_append_double(b, cases[i].value, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_double(b, __builtin_inf(), NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_double(b, -__builtin_inf(), NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_double(b, __builtin_nan(""), NULL), NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    for (size_t i = 0; i < n; i++) {
        uint16_t got;
        memcpy(&got, at_buf(&a, 1) + 2 * i, 2);
        CHECK_MSG(got == cases[i].bits, "%.17g: 0x%04x, expected 0x%04x", cases[i].value, got,
                  cases[i].bits);
    }
    uint16_t inf, ninf, nan;
    memcpy(&inf, at_buf(&a, 1) + 2 * n, 2);
    memcpy(&ninf, at_buf(&a, 1) + 2 * n + 2, 2);
    memcpy(&nan, at_buf(&a, 1) + 2 * n + 4, 2);
    CHECK_UEQ(inf, 0x7c00);
    CHECK_UEQ(ninf, 0xfc00);
    CHECK((nan & 0x7c00) == 0x7c00 && (nan & 0x03ff) != 0);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_bool)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("b", "flag", ARROW_FLAG_NULLABLE, &b, NULL), NULL);
    static const int pattern[] = {1, 0, -1, 1, 1, 0, 1, 1, 1}; /* -1: null */
    for (size_t i = 0; i < 9; i++) {
        if (pattern[i] < 0)
            CHECK_OK(basalt_arrow_builder_append_null(b, NULL), NULL);
        else
            CHECK_OK(basalt_arrow_builder_append_bool(b, pattern[i], NULL), NULL);
    }
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    CHECK_EQ(a.length, 9);
    CHECK_EQ(a.null_count, 1);
    CHECK_EQ(at_buf(&a, 1)[0], 0xd9); /* bits 0,3,4,6,7 */
    CHECK_EQ(at_buf(&a, 1)[1], 0x01);
    CHECK_EQ(at_buf(&a, 0)[0], 0xfb); /* all but bit 2 */
    CHECK_EQ(at_buf(&a, 0)[1], 0x01);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_validity_created_late)
{
    /* Ten valid values, then a null: the bitmap appears with all ten set. */
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("i", NULL, ARROW_FLAG_NULLABLE, &b, NULL), NULL);
    for (int i = 0; i < 10; i++)
        CHECK_OK(basalt_arrow_builder_append_int(b, i, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_null(b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_int(b, 11, NULL), NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    CHECK_EQ(at_buf(&a, 0)[0], 0xff);
    CHECK_EQ(at_buf(&a, 0)[1], 0x0b); /* bits 8, 9 valid, 10 null, 11 valid */
    int32_t v[12];
    memcpy(v, at_buf(&a, 1), sizeof v);
    CHECK_EQ(v[9], 9);
    CHECK_EQ(v[10], 0); /* null slots are zeroed */
    CHECK_EQ(v[11], 11);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_bulk_values)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("i", NULL, ARROW_FLAG_NULLABLE, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_int(b, 7, NULL), NULL);
    static const int32_t run[] = {10, 20, 30, 40, 50};
    static const uint8_t validity[] = {0x6c}; /* 0b01101100: bits 2..6 = 1 1 0 1 1 */
    CHECK_OK(basalt_arrow_builder_append_values(b, run, 5, validity, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_values(b, run, 2, NULL, 0, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_values(b, run, 0, NULL, 0, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_EQ(a.length, 8);
    CHECK_EQ(a.null_count, 1);
    static const int32_t expected[] = {7, 10, 20, 30, 40, 50, 10, 20};
    CHECK_MEM(at_buf(&a, 1), expected, sizeof expected);
    CHECK_EQ(at_buf(&a, 0)[0], 0xf7); /* 1, 1 1 0 1 1, 1 1 */
    at_release(&s, &a);

    /* No validity and no nulls: still no bitmap. */
    CHECK_OK(basalt_arrow_builder_append_values(b, run, 5, NULL, 0, &err), &err);
    static const uint8_t all_valid[] = {0x1f};
    CHECK_OK(basalt_arrow_builder_append_values(b, run, 5, all_valid, 0, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK(a.buffers[0] == NULL);
    CHECK_EQ(a.length, 10);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    /* Bools: values are a bitmap. */
    CHECK_OK(basalt_arrow_builder_new("b", NULL, 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_bool(b, true, NULL), NULL);
    static const uint8_t bits[] = {0x05, 0x01}; /* 1 0 1 0 0 0 0 0 1 */
    CHECK_OK(basalt_arrow_builder_append_values(b, bits, 9, NULL, 0, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_EQ(a.length, 10);
    CHECK_EQ(at_buf(&a, 1)[0], 0x0b); /* 1, then 1 0 1 0 0 0 0 */
    CHECK_EQ(at_buf(&a, 1)[1], 0x02); /* 0 1 */
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    CHECK_OK(basalt_arrow_builder_new("u", NULL, 0, &b, NULL), NULL);
    CHECK_STATUS(basalt_arrow_builder_append_values(b, run, 1, NULL, 0, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_many_nulls_and_reserve)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("l", NULL, ARROW_FLAG_NULLABLE, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_reserve(b, 2000, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_nulls(b, 1000, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_int(b, 5, NULL), NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    CHECK_EQ(a.length, 1001);
    CHECK_EQ(a.null_count, 1000);
    for (int i = 0; i < 125; i++)
        CHECK_EQ(at_buf(&a, 0)[i], 0);
    CHECK_EQ(at_buf(&a, 0)[125], 0x01);
    int64_t last;
    memcpy(&last, at_buf(&a, 1) + 8 * 1000, 8);
    CHECK_EQ(last, 5);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_decimals)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("d:10,2", "price", 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, -1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, 12345, &err), &err); /* 123.45 */
    uint8_t raw[16] = {0x01, 0x02};
    CHECK_OK(basalt_arrow_builder_append_bytes(b, raw, 16, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_append_bytes(b, raw, 15, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const uint8_t d128[48] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x39, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x01, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    CHECK_MEM(at_buf(&a, 1), d128, sizeof d128);
    CHECK_STR(s.format, "d:10,2");
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    CHECK_OK(basalt_arrow_builder_new("d:40,5,256", NULL, 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, -2, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_EQ(at_buf(&a, 1)[0], 0xfe);
    for (int i = 1; i < 32; i++)
        CHECK_EQ(at_buf(&a, 1)[i], 0xff);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    CHECK_OK(basalt_arrow_builder_new("d:9,0,32", NULL, 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, 5, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_append_int(b, 1LL << 40, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const uint8_t d32[4] = {5, 0, 0, 0};
    CHECK_MEM(at_buf(&a, 1), d32, 4);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_intervals_and_fixed_binary)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    /* interval_month_day_nano: int32 months, int32 days, int64 nanoseconds. */
    CHECK_OK(basalt_arrow_builder_new("tin", NULL, 0, &b, &err), &err);
    uint8_t mdn[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
    CHECK_OK(basalt_arrow_builder_append_bytes(b, mdn, 16, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_append_int(b, 1, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_MEM(at_buf(&a, 1), mdn, 16);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    CHECK_OK(basalt_arrow_builder_new("w:3", "id", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_bytes(b, "abc", 3, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "xyz", &err), &err);
    CHECK_STATUS(basalt_arrow_builder_append_string(b, "toolong", &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_MEM(at_buf(&a, 1), "abc\0\0\0xyz", 9);
    CHECK_EQ(at_buf(&a, 0)[0], 0x05);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_null_type)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("n", NULL, ARROW_FLAG_NULLABLE, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_nulls(b, 3, NULL), NULL);
    CHECK_STATUS(basalt_arrow_builder_append_int(b, 1, NULL), BASALT_INVALID_ARG, NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    CHECK_EQ(a.n_buffers, 0);
    CHECK_EQ(a.length, 3);
    CHECK_EQ(a.null_count, 3);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_wrong_appends)
{
    struct basalt_arrow_builder *b;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("i", NULL, 0, &b, NULL), NULL);
    CHECK_STATUS(basalt_arrow_builder_append_bool(b, true, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_append_double(b, 1.0, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_append_string(b, "x", &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_end_element(b, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_reserve_bytes(b, 10, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_append_nulls(b, -1, &err), BASALT_INVALID_ARG, &err);
    struct basalt_arrow_builder *child;
    CHECK_STATUS(basalt_arrow_builder_add_child(b, "i", NULL, 0, &child, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK(child == NULL);
    CHECK_EQ(basalt_arrow_builder_length(b), 0);
    basalt_arrow_builder_free(b);
    basalt_arrow_builder_free(NULL);

    CHECK_STATUS(basalt_arrow_builder_new("+us:0", NULL, 0, &b, &err), BASALT_UNSUPPORTED, &err);
    CHECK(b == NULL);
    CHECK_STATUS(basalt_arrow_builder_new("vu", NULL, 0, &b, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STATUS(basalt_arrow_builder_new("+r", NULL, 0, &b, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STATUS(basalt_arrow_builder_new("Q", NULL, 0, &b, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STATUS(basalt_arrow_builder_new("w:x", NULL, 0, &b, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_arrow_builder_new(NULL, NULL, 0, &b, &err), BASALT_INVALID_ARG, &err);
}

TEST(arrow_builder_metadata_in_schema)
{
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    CHECK_OK(basalt_arrow_metadata_append(&md, "PARQUET:field_id", 16, "12", 2, NULL), NULL);
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("g", "m", 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_set_metadata(b, (const char *)md.data, NULL), NULL);
    basalt_buffer_reset(&md);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    const char *value;
    size_t len;
    CHECK_OK(basalt_arrow_metadata_get(s.metadata, "PARQUET:field_id", &value, &len, NULL), NULL);
    CHECK_EQ(len, 2);
    CHECK_MEM(value, "12", 2);
    CHECK_EQ(a.length, 0);
    CHECK(a.buffers[1] != NULL); /* empty but present */
    at_release(&s, &a);
    /* The schema alone, and a finish without schema. */
    CHECK_OK(basalt_arrow_builder_schema(b, &s, NULL), NULL);
    CHECK_STR(s.format, "g");
    CHECK(s.metadata != NULL);
    s.release(&s);
    CHECK_OK(basalt_arrow_builder_finish(b, NULL, &a, NULL), NULL);
    a.release(&a);
    basalt_arrow_builder_free(b);
}
