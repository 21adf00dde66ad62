/* Compact protocol reader and writer against vectors built by hand from the
 * specification (doc/specs/thrift-compact-protocol.md in apache/thrift). */
#include "test.h"
#include "thrift_internal.h"

static void reader(struct basalt_thrift_reader *r, const void *data, size_t len)
{
    basalt_thrift_reader_init(r, data, len, NULL);
}

/* ------------------------------------------------------------------ varints */

struct varint_vector {
    uint8_t bytes[12];
    size_t len;
    uint64_t value;
    bool canonical;
};

static const struct varint_vector varints[] = {
    {{0x00}, 1, 0, true},
    {{0x01}, 1, 1, true},
    {{0x7f}, 1, 127, true},
    {{0x80, 0x01}, 2, 128, true},
    {{0xdf, 0x89, 0x03}, 3, 50399, true}, /* the specification's example */
    {{0xff, 0xff, 0xff, 0xff, 0x0f}, 5, 0xffffffffu, true},
    {{0x80, 0x80, 0x80, 0x80, 0x10}, 5, 0x100000000ull, true},
    {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10, UINT64_MAX, true},
    {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 10, 1ull << 63, true},
    {{0x80, 0x80, 0x00}, 3, 0, false}, /* padded, still valid */
};

TEST(varint_vectors)
{
    for (size_t i = 0; i < sizeof varints / sizeof varints[0]; i++) {
        const struct varint_vector *v = &varints[i];
        struct basalt_thrift_reader r;
        reader(&r, v->bytes, v->len);
        uint64_t got;
        struct basalt_error err;
        CHECK_OK(basalt_thrift_read_varint(&r, &got, &err), &err);
        CHECK_UEQ(got, v->value);
        CHECK_EQ(basalt_thrift_reader_offset(&r), v->len);
        if (!v->canonical)
            continue;
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        struct basalt_thrift_writer w;
        basalt_thrift_writer_init(&w, &buf, &err);
        basalt_thrift_write_varint(&w, v->value);
        CHECK_OK(basalt_thrift_writer_finish(&w), &err);
        CHECK_EQ(buf.size, v->len);
        CHECK_MEM(buf.data, v->bytes, v->len);
        basalt_buffer_reset(&buf);
    }
}

TEST(varint_errors)
{
    static const uint8_t overflow[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t truncated[] = {0x80, 0x80};
    struct basalt_thrift_reader r;
    struct basalt_error err;
    uint64_t v;
    reader(&r, overflow, sizeof overflow);
    CHECK_STATUS(basalt_thrift_read_varint(&r, &v, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "overflows") != NULL);
    reader(&r, eleven, sizeof eleven);
    CHECK_STATUS(basalt_thrift_read_varint(&r, &v, &err), BASALT_CORRUPT, &err);
    reader(&r, truncated, sizeof truncated);
    CHECK_STATUS(basalt_thrift_read_varint(&r, &v, &err), BASALT_CORRUPT, &err);
    reader(&r, NULL, 0);
    CHECK_STATUS(basalt_thrift_read_varint(&r, &v, &err), BASALT_CORRUPT, &err);
}

/* ------------------------------------------------------------------ zigzag */

struct zigzag_vector {
    int64_t value;
    uint8_t bytes[10];
    size_t len;
};

/* i32 (and i16 where the value fits): zigzag then varint. */
static const struct zigzag_vector zigzag32[] = {
    {0, {0x00}, 1},
    {-1, {0x01}, 1},
    {1, {0x02}, 1},
    {-2, {0x03}, 1},
    {2, {0x04}, 1},
    {63, {0x7e}, 1},
    {-64, {0x7f}, 1},
    {64, {0x80, 0x01}, 2},
    {-300, {0xd7, 0x04}, 2},
    {INT32_MAX, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
    {INT32_MIN, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
};

static const struct zigzag_vector zigzag64[] = {
    {0, {0x00}, 1},
    {-1, {0x01}, 1},
    {1, {0x02}, 1},
    {INT32_MAX + 1ll, {0x80, 0x80, 0x80, 0x80, 0x10}, 5},
    {INT64_MAX, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
    {INT64_MIN, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
};

TEST(zigzag_vectors)
{
    struct basalt_error err;
    for (size_t i = 0; i < sizeof zigzag32 / sizeof zigzag32[0]; i++) {
        const struct zigzag_vector *v = &zigzag32[i];
        struct basalt_thrift_reader r;
        int32_t got;
        reader(&r, v->bytes, v->len);
        CHECK_OK(basalt_thrift_read_i32(&r, &got, &err), &err);
        CHECK_EQ(got, v->value);
        CHECK_EQ(basalt_thrift_reader_offset(&r), v->len);
        if (v->value >= INT16_MIN && v->value <= INT16_MAX) {
            int16_t got16;
            reader(&r, v->bytes, v->len);
            CHECK_OK(basalt_thrift_read_i16(&r, &got16, &err), &err);
            CHECK_EQ(got16, v->value);
        }
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        struct basalt_thrift_writer w;
        basalt_thrift_writer_init(&w, &buf, &err);
        basalt_thrift_write_i32(&w, (int32_t)v->value);
        CHECK_OK(basalt_thrift_writer_finish(&w), &err);
        CHECK_EQ(buf.size, v->len);
        CHECK_MEM(buf.data, v->bytes, v->len);
        basalt_buffer_reset(&buf);
    }
    for (size_t i = 0; i < sizeof zigzag64 / sizeof zigzag64[0]; i++) {
        const struct zigzag_vector *v = &zigzag64[i];
        struct basalt_thrift_reader r;
        int64_t got;
        reader(&r, v->bytes, v->len);
        CHECK_OK(basalt_thrift_read_i64(&r, &got, &err), &err);
        CHECK_EQ(got, v->value);
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        struct basalt_thrift_writer w;
        basalt_thrift_writer_init(&w, &buf, &err);
        basalt_thrift_write_i64(&w, v->value);
        CHECK_OK(basalt_thrift_writer_finish(&w), &err);
        CHECK_EQ(buf.size, v->len);
        CHECK_MEM(buf.data, v->bytes, v->len);
        basalt_buffer_reset(&buf);
    }
}

TEST(integer_range_errors)
{
    static const uint8_t two_pow_32[] = {0x80, 0x80, 0x80, 0x80, 0x10};
    static const uint8_t two_pow_16[] = {0x80, 0x80, 0x04};
    static const uint8_t max16[] = {0xfe, 0xff, 0x03}; /* zigzag 65534 = 32767 */
    struct basalt_thrift_reader r;
    struct basalt_error err;
    int32_t v32;
    int16_t v16;
    reader(&r, two_pow_32, sizeof two_pow_32);
    CHECK_STATUS(basalt_thrift_read_i32(&r, &v32, &err), BASALT_CORRUPT, &err);
    reader(&r, two_pow_16, sizeof two_pow_16);
    CHECK_STATUS(basalt_thrift_read_i16(&r, &v16, &err), BASALT_CORRUPT, &err);
    reader(&r, max16, sizeof max16);
    CHECK_OK(basalt_thrift_read_i16(&r, &v16, &err), &err);
    CHECK_EQ(v16, 32767);
}

/* ------------------------------------------------------------------ doubles, binaries, bools */

TEST(double_little_endian)
{
    static const uint8_t one[] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    static const uint8_t minus_2_5[] = {0, 0, 0, 0, 0, 0, 0x04, 0xc0};
    struct basalt_thrift_reader r;
    struct basalt_error err;
    double d;
    reader(&r, one, sizeof one);
    CHECK_OK(basalt_thrift_read_double(&r, &d, &err), &err);
    CHECK(d == 1.0);
    reader(&r, minus_2_5, sizeof minus_2_5);
    CHECK_OK(basalt_thrift_read_double(&r, &d, &err), &err);
    CHECK(d == -2.5);
    reader(&r, one, 7);
    CHECK_STATUS(basalt_thrift_read_double(&r, &d, &err), BASALT_CORRUPT, &err);

    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, &buf, &err);
    basalt_thrift_write_double(&w, -2.5);
    CHECK_OK(basalt_thrift_writer_finish(&w), &err);
    CHECK_EQ(buf.size, 8);
    CHECK_MEM(buf.data, minus_2_5, 8);
    basalt_buffer_reset(&buf);
}

TEST(binary_bounds)
{
    static const uint8_t abc[] = {0x03, 'a', 'b', 'c'};
    static const uint8_t short_by_one[] = {0x03, 'a', 'b'};
    static const uint8_t huge[] = {0x80, 0x80, 0x80, 0x80, 0x08}; /* 2^31 */
    struct basalt_thrift_reader r;
    struct basalt_error err;
    const uint8_t *data;
    size_t len;
    reader(&r, abc, sizeof abc);
    CHECK_OK(basalt_thrift_read_binary(&r, &data, &len, &err), &err);
    CHECK_EQ(len, 3);
    CHECK(data == abc + 1);
    reader(&r, short_by_one, sizeof short_by_one);
    CHECK_STATUS(basalt_thrift_read_binary(&r, &data, &len, &err), BASALT_CORRUPT, &err);
    reader(&r, huge, sizeof huge);
    CHECK_STATUS(basalt_thrift_read_binary(&r, &data, &len, &err), BASALT_CORRUPT, &err);
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_binary_size = 2;
    basalt_thrift_reader_init(&r, abc, sizeof abc, &limits);
    CHECK_STATUS(basalt_thrift_read_binary(&r, &data, &len, &err), BASALT_LIMIT, &err);
}

TEST(bool_elements)
{
    static const uint8_t bytes[] = {0x00, 0x01, 0x02, 0x03};
    struct basalt_thrift_reader r;
    struct basalt_error err;
    bool b;
    reader(&r, bytes, sizeof bytes);
    CHECK_OK(basalt_thrift_read_bool(&r, &b, &err), &err);
    CHECK(!b);
    CHECK_OK(basalt_thrift_read_bool(&r, &b, &err), &err);
    CHECK(b);
    CHECK_OK(basalt_thrift_read_bool(&r, &b, &err), &err);
    CHECK(!b);
    CHECK_STATUS(basalt_thrift_read_bool(&r, &b, &err), BASALT_CORRUPT, &err);
}

/* ------------------------------------------------------------------ headers */

TEST(field_headers_short_long_and_bool)
{
    static const uint8_t bytes[] = {
        0x15, 0x02,       /* id 1 (delta 1), i32 = 1 */
        0x11,             /* id 2, bool true */
        0x12,             /* id 3, bool false */
        0x05, 0xc8, 0x01, /* long form: i32, id zigzag 200 = 100 */
        0x04,             /* value 2 */
        0x1c,             /* id 101 (delta 1 from 100), struct */
        0x00,             /* stop */
    };
    struct basalt_thrift_reader r;
    struct basalt_error err;
    struct basalt_thrift_field f = {0};
    int32_t v;
    reader(&r, bytes, sizeof bytes);
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.id, 1);
    CHECK_EQ(f.type, BASALT_THRIFT_TYPE_I32);
    CHECK_OK(basalt_thrift_read_i32(&r, &v, &err), &err);
    CHECK_EQ(v, 1);
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.id, 2);
    CHECK_EQ(f.type, BASALT_THRIFT_TYPE_BOOL);
    CHECK(f.bool_value);
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.id, 3);
    CHECK_EQ(f.type, BASALT_THRIFT_TYPE_BOOL);
    CHECK(!f.bool_value);
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.id, 100);
    CHECK_EQ(f.type, BASALT_THRIFT_TYPE_I32);
    CHECK_OK(basalt_thrift_read_i32(&r, &v, &err), &err);
    CHECK_EQ(v, 2);
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.id, 101);
    CHECK_EQ(f.type, BASALT_THRIFT_TYPE_STRUCT);
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.type, BASALT_THRIFT_TYPE_STOP);
    CHECK_EQ(basalt_thrift_reader_offset(&r), sizeof bytes);
}

TEST(field_header_errors)
{
    static const uint8_t unknown_type[] = {0x1e};
    static const uint8_t negative_id[] = {0x05, 0x01}; /* long form, id -1 */
    static const uint8_t stop_with_delta[] = {0x30};
    struct basalt_thrift_reader r;
    struct basalt_error err;
    struct basalt_thrift_field f = {0};
    reader(&r, unknown_type, 1);
    CHECK_STATUS(basalt_thrift_read_field_header(&r, &f, &err), BASALT_CORRUPT, &err);
    reader(&r, negative_id, 2);
    f.id = 0;
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.id, -1);
    /* A delta past INT16_MAX. */
    static const uint8_t delta[] = {0x15};
    reader(&r, delta, 1);
    f.id = INT16_MAX;
    CHECK_STATUS(basalt_thrift_read_field_header(&r, &f, &err), BASALT_CORRUPT, &err);
    /* The type nibble alone decides STOP, as in the reference implementations. */
    reader(&r, stop_with_delta, 1);
    f.id = 0;
    CHECK_OK(basalt_thrift_read_field_header(&r, &f, &err), &err);
    CHECK_EQ(f.type, BASALT_THRIFT_TYPE_STOP);
    reader(&r, NULL, 0);
    CHECK_STATUS(basalt_thrift_read_field_header(&r, &f, &err), BASALT_CORRUPT, &err);
}

TEST(list_headers)
{
    struct basalt_thrift_reader r;
    struct basalt_error err;
    uint8_t t;
    uint32_t n;
    static const uint8_t short_form[] = {0x35, 0x02, 0x04, 0x06};
    reader(&r, short_form, sizeof short_form);
    CHECK_OK(basalt_thrift_read_list_header(&r, &t, &n, &err), &err);
    CHECK_EQ(t, BASALT_THRIFT_TYPE_I32);
    CHECK_EQ(n, 3);

    uint8_t long_form[2 + 20] = {0xf5, 0x14};
    reader(&r, long_form, sizeof long_form);
    CHECK_OK(basalt_thrift_read_list_header(&r, &t, &n, &err), &err);
    CHECK_EQ(n, 20);
    CHECK_EQ(basalt_thrift_reader_offset(&r), 2);

    /* Both boolean codes mean bool as an element type. */
    static const uint8_t bools1[] = {0x21, 0x01, 0x02};
    static const uint8_t bools2[] = {0x22, 0x01, 0x00};
    reader(&r, bools1, sizeof bools1);
    CHECK_OK(basalt_thrift_read_list_header(&r, &t, &n, &err), &err);
    CHECK_EQ(t, BASALT_THRIFT_TYPE_BOOL);
    CHECK_EQ(n, 2);
    reader(&r, bools2, sizeof bools2);
    CHECK_OK(basalt_thrift_read_list_header(&r, &t, &n, &err), &err);
    CHECK_EQ(t, BASALT_THRIFT_TYPE_BOOL);

    /* Sizes the remaining bytes cannot hold. */
    static const uint8_t too_many[] = {0x35, 0x02};
    reader(&r, too_many, sizeof too_many);
    CHECK_STATUS(basalt_thrift_read_list_header(&r, &t, &n, &err), BASALT_CORRUPT, &err);
    static const uint8_t doubles[] = {0x27, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    reader(&r, doubles, sizeof doubles);
    CHECK_STATUS(basalt_thrift_read_list_header(&r, &t, &n, &err), BASALT_CORRUPT, &err);
    static const uint8_t negative[] = {0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f};
    reader(&r, negative, sizeof negative);
    CHECK_STATUS(basalt_thrift_read_list_header(&r, &t, &n, &err), BASALT_CORRUPT, &err);
    static const uint8_t bad_type[] = {0x1e, 0x00};
    reader(&r, bad_type, sizeof bad_type);
    CHECK_STATUS(basalt_thrift_read_list_header(&r, &t, &n, &err), BASALT_CORRUPT, &err);
    /* An empty list may announce anything. */
    static const uint8_t empty[] = {0x00};
    reader(&r, empty, 1);
    CHECK_OK(basalt_thrift_read_list_header(&r, &t, &n, &err), &err);
    CHECK_EQ(n, 0);

    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_container_size = 2;
    basalt_thrift_reader_init(&r, short_form, sizeof short_form, &limits);
    CHECK_STATUS(basalt_thrift_read_list_header(&r, &t, &n, &err), BASALT_LIMIT, &err);
}

TEST(map_headers)
{
    struct basalt_thrift_reader r;
    struct basalt_error err;
    uint8_t kt, vt;
    uint32_t n;
    static const uint8_t empty[] = {0x00};
    reader(&r, empty, 1);
    CHECK_OK(basalt_thrift_read_map_header(&r, &kt, &vt, &n, &err), &err);
    CHECK_EQ(n, 0);
    CHECK_EQ(basalt_thrift_reader_offset(&r), 1);
    static const uint8_t two[] = {0x02, 0x85, 0x01, 'a', 0x02, 0x01, 'b', 0x04};
    reader(&r, two, sizeof two);
    CHECK_OK(basalt_thrift_read_map_header(&r, &kt, &vt, &n, &err), &err);
    CHECK_EQ(n, 2);
    CHECK_EQ(kt, BASALT_THRIFT_TYPE_BINARY);
    CHECK_EQ(vt, BASALT_THRIFT_TYPE_I32);
    static const uint8_t too_many[] = {0x05, 0x85, 0x01, 'a', 0x02};
    reader(&r, too_many, sizeof too_many);
    CHECK_STATUS(basalt_thrift_read_map_header(&r, &kt, &vt, &n, &err), BASALT_CORRUPT, &err);
    static const uint8_t bad_types[] = {0x01, 0xe5, 0x00, 0x00};
    reader(&r, bad_types, sizeof bad_types);
    CHECK_STATUS(basalt_thrift_read_map_header(&r, &kt, &vt, &n, &err), BASALT_CORRUPT, &err);
}

/* ------------------------------------------------------------------ every type */

/* A struct with a field of every type, written out by hand, followed by a
 * sentinel byte 0xab that is not part of it. */
static const uint8_t every_type[] = {
    0x11,                                     /* 1: bool true */
    0x12,                                     /* 2: bool false */
    0x13, 0xfb,                               /* 3: i8 -5 */
    0x14, 0xd7, 0x04,                         /* 4: i16 -300 */
    0x15, 0x80, 0x89, 0x0f,                   /* 5: i32 123456 */
    0x16, 0x01,                               /* 6: i64 -1 */
    0x17, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,       /* 7: double 1.0 */
    0x18, 0x02, 'h', 'i',                     /* 8: binary "hi" */
    0x19, 0x35, 0x02, 0x04, 0x06,             /* 9: list<i32> [1, 2, 3] */
    0x1a, 0x18, 0x01, 'a',                    /* 10: set<binary> {"a"} */
    0x1b, 0x02, 0x51, 0x02, 0x01, 0x04, 0x02, /* 11: map<i32, bool> {1: true, 2: false} */
    0x1c,                                     /* 12: struct { */
    0x15, 0x0e,                               /*   1: i32 7 */
    0x19, 0x2c,                               /*   2: list of 2 structs */
    0x11, 0x00,                               /*     { 1: bool true } */
    0x11, 0x00,                               /*     { 1: bool true } */
    0x00,                                     /* } */
    0x1d, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, /* 13: uuid */
    0x09, 0xd8, 0x04,                         /* 300 (long form): list<list<i64>> */
    0x29,                                     /*   2 lists */
    0x16, 0x02,                               /*   [1] */
    0x06,                                     /*   [] */
    0x19, 0x17, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, /* 301: list<double> [0.5] */
    0x00,                                     /* stop */
    0xab,                                     /* sentinel */
};

TEST(skip_every_type)
{
    struct basalt_thrift_reader r;
    struct basalt_error err;
    reader(&r, every_type, sizeof every_type);
    CHECK_OK(basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, &err), &err);
    CHECK_EQ(basalt_thrift_reader_offset(&r), sizeof every_type - 1);
    CHECK_EQ(r.depth, 0);
}

static basalt_status parse_every_type(struct basalt_thrift_reader *r, struct basalt_error *err,
                                      int *fields_seen)
{
    struct basalt_thrift_field f = {0};
    basalt_status st = basalt_thrift_read_struct_begin(r, err);
    *fields_seen = 0;
    while (st == BASALT_OK) {
        st = basalt_thrift_read_field_header(r, &f, err);
        if (st != BASALT_OK || f.type == BASALT_THRIFT_TYPE_STOP)
            break;
        (*fields_seen)++;
        switch (f.id) {
        case 1:
        case 2:
            if (f.type != BASALT_THRIFT_TYPE_BOOL || f.bool_value != (f.id == 1))
                return BASALT_INTERNAL;
            break;
        case 3: {
            int8_t v;
            st = basalt_thrift_read_i8(r, &v, err);
            if (st == BASALT_OK && v != -5)
                return BASALT_INTERNAL;
            break;
        }
        case 4: {
            int16_t v;
            st = basalt_thrift_read_i16(r, &v, err);
            if (st == BASALT_OK && v != -300)
                return BASALT_INTERNAL;
            break;
        }
        case 5: {
            int32_t v;
            st = basalt_thrift_read_i32(r, &v, err);
            if (st == BASALT_OK && v != 123456)
                return BASALT_INTERNAL;
            break;
        }
        case 6: {
            int64_t v;
            st = basalt_thrift_read_i64(r, &v, err);
            if (st == BASALT_OK && v != -1)
                return BASALT_INTERNAL;
            break;
        }
        case 7: {
            double v;
            st = basalt_thrift_read_double(r, &v, err);
            if (st == BASALT_OK && v != 1.0)
                return BASALT_INTERNAL;
            break;
        }
        case 8: {
            const uint8_t *p;
            size_t n;
            st = basalt_thrift_read_binary(r, &p, &n, err);
            if (st == BASALT_OK && (n != 2 || memcmp(p, "hi", 2) != 0))
                return BASALT_INTERNAL;
            break;
        }
        case 13: {
            uint8_t u[16];
            st = basalt_thrift_read_uuid(r, u, err);
            if (st == BASALT_OK && (u[0] != 0 || u[15] != 15))
                return BASALT_INTERNAL;
            break;
        }
        default:
            if (f.id != 9 && f.id != 10 && f.id != 11 && f.id != 12 && f.id != 300 && f.id != 301)
                return BASALT_INTERNAL;
            st = basalt_thrift_read_skip_field(r, &f, err);
            break;
        }
    }
    if (st == BASALT_OK)
        basalt_thrift_read_struct_end(r);
    return st;
}

TEST(typed_reads_every_type)
{
    struct basalt_thrift_reader r;
    struct basalt_error err;
    int fields;
    reader(&r, every_type, sizeof every_type);
    CHECK_OK(parse_every_type(&r, &err, &fields), &err);
    CHECK_EQ(fields, 15);
    CHECK_EQ(basalt_thrift_reader_offset(&r), sizeof every_type - 1);
}

TEST(truncated_at_every_offset)
{
    /* Every strict prefix of the struct is malformed: CORRUPT, never OK,
     * never a read past the end (the sanitizer build checks that). */
    size_t whole = sizeof every_type - 1;
    for (size_t len = 0; len < whole; len++) {
        uint8_t *copy = basalt_malloc(len ? len : 1);
        CHECK(copy != NULL);
        memcpy(copy, every_type, len);
        struct basalt_thrift_reader r;
        struct basalt_error err;
        reader(&r, copy, len);
        basalt_status st = basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, &err);
        int fields;
        reader(&r, copy, len);
        basalt_status st2 = parse_every_type(&r, &err, &fields);
        basalt_free(copy);
        CHECK_MSG(st == BASALT_CORRUPT, "skip of %zu bytes gave %s", len, basalt_status_name(st));
        CHECK_MSG(st2 == BASALT_CORRUPT, "parse of %zu bytes gave %s", len,
                  basalt_status_name(st2));
    }
}

TEST(writer_reproduces_every_type)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, &buf, &err);
    basalt_thrift_write_struct_begin(&w);
    basalt_thrift_write_field_bool(&w, 1, true);
    basalt_thrift_write_field_bool(&w, 2, false);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I8, 3);
    basalt_thrift_write_i8(&w, -5);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I16, 4);
    basalt_thrift_write_i16(&w, -300);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 5);
    basalt_thrift_write_i32(&w, 123456);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 6);
    basalt_thrift_write_i64(&w, -1);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_DOUBLE, 7);
    basalt_thrift_write_double(&w, 1.0);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_BINARY, 8);
    basalt_thrift_write_binary(&w, "hi", 2);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 9);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_I32, 3);
    for (int i = 1; i <= 3; i++)
        basalt_thrift_write_i32(&w, i);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_SET, 10);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_BINARY, 1);
    basalt_thrift_write_binary(&w, "a", 1);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_MAP, 11);
    basalt_thrift_write_map_header(&w, BASALT_THRIFT_TYPE_I32, BASALT_THRIFT_TYPE_BOOL, 2);
    basalt_thrift_write_i32(&w, 1);
    basalt_thrift_write_bool(&w, true);
    basalt_thrift_write_i32(&w, 2);
    basalt_thrift_write_bool(&w, false);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_STRUCT, 12);
    basalt_thrift_write_struct_begin(&w);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 1);
    basalt_thrift_write_i32(&w, 7);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 2);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_STRUCT, 2);
    for (int i = 0; i < 2; i++) {
        basalt_thrift_write_struct_begin(&w);
        basalt_thrift_write_field_bool(&w, 1, true);
        basalt_thrift_write_struct_end(&w);
    }
    basalt_thrift_write_struct_end(&w);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_UUID, 13);
    uint8_t uuid[16];
    for (int i = 0; i < 16; i++)
        uuid[i] = (uint8_t)i;
    basalt_thrift_write_uuid(&w, uuid);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 300);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_LIST, 2);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_I64, 1);
    basalt_thrift_write_i64(&w, 1);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_I64, 0);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 301);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_DOUBLE, 1);
    basalt_thrift_write_double(&w, 0.5);
    basalt_thrift_write_struct_end(&w);
    CHECK_OK(basalt_thrift_writer_finish(&w), &err);
    CHECK_EQ(buf.size, sizeof every_type - 1);
    CHECK_MEM(buf.data, every_type, buf.size);
    basalt_buffer_reset(&buf);
}

TEST(writer_header_forms)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, &buf, &err);
    basalt_thrift_write_struct_begin(&w);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 15); /* delta 15: short */
    basalt_thrift_write_i32(&w, 0);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 31); /* delta 16: long */
    basalt_thrift_write_i32(&w, 0);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 5); /* backwards: long */
    basalt_thrift_write_i32(&w, 0);
    basalt_thrift_write_field_bool(&w, -2, true); /* negative: long */
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 6);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_BOOL, 14);
    for (int i = 0; i < 14; i++)
        basalt_thrift_write_bool(&w, i & 1);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 7);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_I8, 15);
    for (int i = 0; i < 15; i++)
        basalt_thrift_write_i8(&w, (int8_t)i);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_MAP, 8);
    basalt_thrift_write_map_header(&w, BASALT_THRIFT_TYPE_BINARY, BASALT_THRIFT_TYPE_BINARY, 0);
    basalt_thrift_write_struct_end(&w);
    CHECK_OK(basalt_thrift_writer_finish(&w), &err);
    static const uint8_t head[] = {
        0xf5, 0x00,             /* 15 */
        0x05, 0x3e, 0x00,       /* 31 long: zigzag 62 */
        0x05, 0x0a, 0x00,       /* 5 long: zigzag 10 */
        0x01, 0x03,             /* -2 long, bool true: zigzag 3 */
        0x89, 0xe1,             /* 6 (delta 8 from -2), list, 14 bools (type 1) */
    };
    CHECK(buf.size > sizeof head);
    CHECK_MEM(buf.data, head, sizeof head);
    size_t at = sizeof head;
    for (int i = 0; i < 14; i++)
        CHECK_EQ(buf.data[at + (size_t)i], (i & 1) ? 1 : 2);
    at += 14;
    static const uint8_t tail[] = {0x19, 0xf3, 0x0f};
    CHECK_MEM(buf.data + at, tail, sizeof tail);
    at += sizeof tail + 15;
    static const uint8_t end[] = {0x1b, 0x00, 0x00};
    CHECK_EQ(buf.size, at + sizeof end);
    CHECK_MEM(buf.data + at, end, sizeof end);

    /* And the reader agrees with what was written. */
    struct basalt_thrift_reader r;
    reader(&r, buf.data, buf.size);
    CHECK_OK(basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, &err), &err);
    CHECK_EQ(basalt_thrift_reader_offset(&r), buf.size);
    basalt_buffer_reset(&buf);
}

TEST(writer_misuse_is_sticky)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, &buf, &err);
    CHECK_STATUS(basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 1),
                 BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_thrift_write_i32(&w, 1), BASALT_INVALID_ARG, &err);
    CHECK_EQ(buf.size, 0);
    CHECK_STATUS(basalt_thrift_writer_finish(&w), BASALT_INVALID_ARG, &err);

    basalt_thrift_writer_init(&w, &buf, &err);
    basalt_thrift_write_struct_begin(&w);
    CHECK_STATUS(basalt_thrift_writer_finish(&w), BASALT_INVALID_ARG, &err);

    basalt_thrift_writer_init(&w, &buf, &err);
    CHECK_STATUS(basalt_thrift_write_struct_end(&w), BASALT_INVALID_ARG, &err);

    basalt_thrift_writer_init(&w, &buf, &err);
    for (int i = 0; i < BASALT_THRIFT_WRITER_MAX_DEPTH; i++)
        CHECK_OK(basalt_thrift_write_struct_begin(&w), &err);
    CHECK_STATUS(basalt_thrift_write_struct_begin(&w), BASALT_INVALID_ARG, &err);

    basalt_buffer_reset(&buf);
    basalt_thrift_writer_init(&w, &buf, &err);
    CHECK_STATUS(basalt_thrift_write_binary(&w, NULL, 3), BASALT_INVALID_ARG, &err);
    basalt_buffer_reset(&buf);
}

static basalt_status write_big(void *ctx)
{
    (void)ctx;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, &buf, NULL);
    basalt_thrift_write_struct_begin(&w);
    for (int16_t id = 1; id <= 2000; id++) {
        basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_BINARY, id);
        basalt_thrift_write_binary(&w, "0123456789abcdef", 16);
    }
    basalt_thrift_write_struct_end(&w);
    basalt_status st = basalt_thrift_writer_finish(&w);
    basalt_buffer_reset(&buf);
    return st;
}

TEST(writer_allocation_failures)
{
    CHECK_ALLOC_SWEEP(write_big, NULL);
}

/* ------------------------------------------------------------------ depth */

/* `levels` structs, each the field 1 of the one outside it. */
static uint8_t *nested_structs(int levels, size_t *len)
{
    *len = 2 * (size_t)levels - 1;
    uint8_t *b = basalt_malloc(*len);
    if (!b)
        return NULL;
    for (int i = 0; i < levels - 1; i++)
        b[i] = 0x1c;
    for (size_t i = (size_t)levels - 1; i < *len; i++)
        b[i] = 0x00;
    return b;
}

TEST(depth_limit_structs)
{
    struct basalt_error err;
    size_t len;
    uint8_t *ok = nested_structs(BASALT_THRIFT_DEFAULT_MAX_DEPTH, &len);
    CHECK(ok != NULL);
    struct basalt_thrift_reader r;
    reader(&r, ok, len);
    basalt_status st = basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, &err);
    size_t consumed = basalt_thrift_reader_offset(&r);
    basalt_free(ok);
    CHECK_OK(st, &err);
    CHECK_EQ(consumed, len);

    uint8_t *deep = nested_structs(BASALT_THRIFT_DEFAULT_MAX_DEPTH + 1, &len);
    CHECK(deep != NULL);
    reader(&r, deep, len);
    st = basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, &err);
    basalt_free(deep);
    CHECK_STATUS(st, BASALT_LIMIT, &err);

    uint8_t *very_deep = nested_structs(100000, &len);
    CHECK(very_deep != NULL);
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_depth = 5;
    basalt_thrift_reader_init(&r, very_deep, len, &limits);
    st = basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, &err);
    CHECK_STATUS(st, BASALT_LIMIT, &err);
    /* The recursion stays bounded whatever the caller asks for. */
    limits.max_depth = INT32_MAX;
    basalt_thrift_reader_init(&r, very_deep, len, &limits);
    st = basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, &err);
    basalt_free(very_deep);
    CHECK_STATUS(st, BASALT_LIMIT, &err);
    CHECK(strstr(err.message, "deeper than 1024") != NULL);
}

TEST(depth_limit_lists_and_maps)
{
    struct basalt_error err;
    struct basalt_thrift_reader r;
    /* list<list<...>>, 100 levels: each 0x19 is "one element, a list". */
    uint8_t lists[101];
    memset(lists, 0x19, 100);
    lists[100] = 0x05; /* the innermost: empty list<i32> */
    reader(&r, lists, sizeof lists);
    CHECK_STATUS(basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_LIST, &err), BASALT_LIMIT, &err);
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_depth = 200;
    basalt_thrift_reader_init(&r, lists, sizeof lists, &limits);
    CHECK_OK(basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_LIST, &err), &err);
    CHECK_EQ(basalt_thrift_reader_offset(&r), sizeof lists);

    /* map<i8, map<i8, ...>>: size 1, types i8 -> map, key. */
    uint8_t maps[3 * 80 + 1];
    for (int i = 0; i < 80; i++) {
        maps[3 * i] = 0x01;
        maps[3 * i + 1] = 0x3b;
        maps[3 * i + 2] = 0x07;
    }
    maps[240] = 0x00;
    reader(&r, maps, sizeof maps);
    CHECK_STATUS(basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_MAP, &err), BASALT_LIMIT, &err);
    basalt_thrift_reader_init(&r, maps, sizeof maps, &limits);
    CHECK_OK(basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_MAP, &err), &err);
    CHECK_EQ(basalt_thrift_reader_offset(&r), sizeof maps);
}

TEST(skip_garbage_never_crashes)
{
    /* Random bytes: whatever the outcome, only CORRUPT, LIMIT or OK, and the
     * cursor stays inside the input. */
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    uint8_t buf[64];
    int ok = 0;
    for (int i = 0; i < 20000; i++) {
        size_t len = bt_rng_below(&rng, sizeof buf + 1);
        bt_rng_fill(&rng, buf, len);
        struct basalt_thrift_reader r;
        reader(&r, buf, len);
        basalt_status st = basalt_thrift_read_skip(&r, BASALT_THRIFT_TYPE_STRUCT, NULL);
        CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT, "status %s",
                  basalt_status_name(st));
        CHECK(basalt_thrift_reader_offset(&r) <= len);
        ok += st == BASALT_OK;
    }
    CHECK(ok > 0);
}
