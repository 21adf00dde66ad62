/* Values: Appendix D serialization (the spec's table and the bucket vectors
 * of the spec-vectors corpus), the order, text, and literal conversion with
 * answers computed independently (python3 datetime / `date -u`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/hash.h"
#include "basalt/iceberg_expr.h"
#include "expr_internal.h"
#include "test.h"

static struct basalt_iceberg_type prim(enum basalt_iceberg_type_id id)
{
    struct basalt_iceberg_type t;
    memset(&t, 0, sizeof(t));
    t.id = id;
    return t;
}

static struct basalt_iceberg_type decimal_type(int p, int s)
{
    struct basalt_iceberg_type t = prim(BASALT_ICEBERG_TYPE_DECIMAL);
    t.precision = p;
    t.scale = s;
    return t;
}

static struct basalt_iceberg_value str(const char *s)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof(v));
    v.type = BASALT_ICEBERG_TYPE_STRING;
    v.u.bytes.data = (const uint8_t *)s;
    v.u.bytes.len = strlen(s);
    return v;
}

static struct basalt_iceberg_value dec(int64_t unscaled, int scale)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof(v));
    v.type = BASALT_ICEBERG_TYPE_DECIMAL;
    v.scale = scale;
    v.u.dec.lo = (uint64_t)unscaled;
    v.u.dec.hi = unscaled < 0 ? -1 : 0;
    return v;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

static size_t unhex(const char *h, uint8_t *out)
{
    size_t n = strlen(h) / 2;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(hexval(h[2 * i]) * 16 + hexval(h[2 * i + 1]));
    return n;
}

/* Encodes, compares with the expected hex, decodes back and compares values. */
static int check_bytes(const struct basalt_iceberg_value *v, const struct basalt_iceberg_type *t,
                       const char *hex)
{
    uint8_t want[64], got[64];
    size_t wn = unhex(hex, want), gn = 0;
    if (basalt_iceberg_value_to_bytes(v, got, sizeof(got), &gn, NULL) != BASALT_OK)
        return 1;
    if (gn != wn || memcmp(got, want, wn) != 0)
        return 2;
    struct basalt_iceberg_value back;
    if (basalt_iceberg_value_from_bytes(t, got, gn, &back, NULL) != BASALT_OK)
        return 3;
    if (basalt_iceberg_value_compare(&back, v) != 0 || back.type != t->id)
        return 4;
    return 0;
}

TEST(value_bytes_spec_table)
{
    struct basalt_iceberg_type t;
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof(v));

    t = prim(BASALT_ICEBERG_TYPE_BOOLEAN);
    v.type = t.id;
    v.u.b = true;
    CHECK_EQ(check_bytes(&v, &t, "01"), 0);
    v.u.b = false;
    CHECK_EQ(check_bytes(&v, &t, "00"), 0);

    t = prim(BASALT_ICEBERG_TYPE_INT);
    v.type = t.id;
    v.u.i32 = 34;
    CHECK_EQ(check_bytes(&v, &t, "22000000"), 0);
    v.u.i32 = -2;
    CHECK_EQ(check_bytes(&v, &t, "feffffff"), 0);
    t = prim(BASALT_ICEBERG_TYPE_DATE);
    v.type = t.id;
    v.u.i32 = 19417; /* 2023-03-01 */
    CHECK_EQ(check_bytes(&v, &t, "d94b0000"), 0);

    static const enum basalt_iceberg_type_id longs[] = {
        BASALT_ICEBERG_TYPE_LONG, BASALT_ICEBERG_TYPE_TIME, BASALT_ICEBERG_TYPE_TIMESTAMP,
        BASALT_ICEBERG_TYPE_TIMESTAMPTZ, BASALT_ICEBERG_TYPE_TIMESTAMP_NS,
        BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS};
    for (size_t i = 0; i < 6; i++) {
        t = prim(longs[i]);
        v.type = t.id;
        v.u.i64 = 1677698700000000; /* python: struct.pack('<q', 1677698700000000).hex() */
        CHECK_EQ(check_bytes(&v, &t, "00bb0dabdbf50500"), 0);
        v.u.i64 = -1;
        CHECK_EQ(check_bytes(&v, &t, "ffffffffffffffff"), 0);
    }

    t = prim(BASALT_ICEBERG_TYPE_FLOAT);
    v.type = t.id;
    v.u.f32 = 1.0f;
    CHECK_EQ(check_bytes(&v, &t, "0000803f"), 0);
    v.u.f32 = -0.0f;
    CHECK_EQ(check_bytes(&v, &t, "00000080"), 0);
    t = prim(BASALT_ICEBERG_TYPE_DOUBLE);
    v.type = t.id;
    v.u.f64 = 1.0;
    CHECK_EQ(check_bytes(&v, &t, "000000000000f03f"), 0);

    /* Decimals: unscaled, big-endian two's complement, fewest bytes
     * (python: the minimal n with -2^(8n-1) <= v < 2^(8n-1), to_bytes(n, 'big', signed=True)). */
    static const struct {
        int64_t unscaled;
        const char *hex;
    } decs[] = {{1420, "058c"}, {-128, "80"},    {-32768, "8000"}, {-8388608, "800000"},
                {0, "00"},      {128, "0080"},   {-129, "ff7f"},   {127, "7f"},
                {-1, "ff"},     {INT64_MIN, "8000000000000000"}, {INT64_MAX, "7fffffffffffffff"}};
    t = decimal_type(38, 2);
    for (size_t i = 0; i < sizeof(decs) / sizeof(decs[0]); i++) {
        v = dec(decs[i].unscaled, 2);
        CHECK_MSG(check_bytes(&v, &t, decs[i].hex) == 0, "decimal %lld", (long long)decs[i].unscaled);
    }
    /* 10^38 - 1 and its negation: 16 bytes */
    v = dec(0, 0);
    v.u.dec.hi = 0x4b3b4ca85a86c47aLL;
    v.u.dec.lo = 0x098a223fffffffffULL;
    t = decimal_type(38, 0);
    CHECK_EQ(check_bytes(&v, &t, "4b3b4ca85a86c47a098a223fffffffff"), 0);
    v.u.dec = basalt_iceberg_dec_neg(v.u.dec);
    CHECK_EQ(check_bytes(&v, &t, "b4c4b357a5793b85f675ddc000000001"), 0);

    t = prim(BASALT_ICEBERG_TYPE_STRING);
    v = str("iceberg");
    CHECK_EQ(check_bytes(&v, &t, "69636562657267"), 0);
    v = str("\xf0\x9f\x92\xb0");
    CHECK_EQ(check_bytes(&v, &t, "f09f92b0"), 0);

    uint8_t u[16];
    unhex("f79c3e09677c4bbda4793f349cb785e7", u);
    t = prim(BASALT_ICEBERG_TYPE_UUID);
    memset(&v, 0, sizeof(v));
    v.type = t.id;
    v.u.bytes.data = u;
    v.u.bytes.len = 16;
    CHECK_EQ(check_bytes(&v, &t, "f79c3e09677c4bbda4793f349cb785e7"), 0);
    t = prim(BASALT_ICEBERG_TYPE_FIXED);
    t.length = 4;
    v.type = t.id;
    v.u.bytes.len = 4;
    CHECK_EQ(check_bytes(&v, &t, "f79c3e09"), 0);
    t = prim(BASALT_ICEBERG_TYPE_BINARY);
    v.type = t.id;
    v.u.bytes.len = 0;
    CHECK_EQ(check_bytes(&v, &t, ""), 0);
}

TEST(value_bytes_decode_rules)
{
    struct basalt_iceberg_type t;
    struct basalt_iceberg_value v;
    uint8_t b[32];
    struct basalt_error err;
    /* Promotions: a long from 4 bytes, a double from a 4-byte float. */
    t = prim(BASALT_ICEBERG_TYPE_LONG);
    CHECK_OK(basalt_iceberg_value_from_bytes(&t, b, unhex("feffffff", b), &v, &err), &err);
    CHECK(v.type == BASALT_ICEBERG_TYPE_LONG && v.u.i64 == -2);
    t = prim(BASALT_ICEBERG_TYPE_DOUBLE);
    CHECK_OK(basalt_iceberg_value_from_bytes(&t, b, unhex("0000c03f", b), &v, &err), &err);
    CHECK(v.u.f64 == 1.5);
    /* Decimals: sign extension beyond 16 bytes is accepted, other bytes not. */
    t = decimal_type(38, 3);
    CHECK_OK(basalt_iceberg_value_from_bytes(
                 &t, b, unhex("ffffffffffffffffffffffffffffffffff80", b), &v, &err), &err);
    CHECK(v.scale == 3 && v.u.dec.hi == -1 && (int64_t)v.u.dec.lo == -128);
    CHECK_STATUS(basalt_iceberg_value_from_bytes(
                     &t, b, unhex("0080000000000000000000000000000000", b), &v, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_iceberg_value_from_bytes(
                     &t, b, unhex("01000000000000000000000000000000ff", b), &v, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_iceberg_value_from_bytes(&t, b, 0, &v, &err), BASALT_CORRUPT, &err);
    /* Wrong lengths. */
    static const struct {
        enum basalt_iceberg_type_id id;
        size_t len;
    } bad[] = {{BASALT_ICEBERG_TYPE_INT, 3},   {BASALT_ICEBERG_TYPE_INT, 8},
               {BASALT_ICEBERG_TYPE_DATE, 2},  {BASALT_ICEBERG_TYPE_LONG, 5},
               {BASALT_ICEBERG_TYPE_TIMESTAMP, 4}, {BASALT_ICEBERG_TYPE_FLOAT, 8},
               {BASALT_ICEBERG_TYPE_DOUBLE, 2}, {BASALT_ICEBERG_TYPE_UUID, 15},
               {BASALT_ICEBERG_TYPE_BOOLEAN, 2}, {BASALT_ICEBERG_TYPE_BOOLEAN, 0}};
    memset(b, 0, sizeof(b));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        t = prim(bad[i].id);
        CHECK_STATUS(basalt_iceberg_value_from_bytes(&t, b, bad[i].len, &v, &err), BASALT_CORRUPT,
                     &err);
    }
    t = prim(BASALT_ICEBERG_TYPE_STRUCT);
    CHECK_STATUS(basalt_iceberg_value_from_bytes(&t, b, 1, &v, &err), BASALT_UNSUPPORTED, &err);
    t = prim(BASALT_ICEBERG_TYPE_VARIANT);
    CHECK_STATUS(basalt_iceberg_value_from_bytes(&t, b, 1, &v, &err), BASALT_UNSUPPORTED, &err);

    /* Encoding: LIMIT reports the size needed; null values have no bytes. */
    struct basalt_iceberg_value d = dec(-32768, 0);
    size_t n = 0;
    CHECK_STATUS(basalt_iceberg_value_to_bytes(&d, b, 1, &n, &err), BASALT_LIMIT, &err);
    CHECK_EQ(n, 2);
    d.is_null = true;
    CHECK_STATUS(basalt_iceberg_value_to_bytes(&d, b, sizeof(b), &n, &err), BASALT_INVALID_ARG, &err);
}

TEST(value_bytes_random_round_trip)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    static const enum basalt_iceberg_type_id ids[] = {
        BASALT_ICEBERG_TYPE_BOOLEAN, BASALT_ICEBERG_TYPE_INT, BASALT_ICEBERG_TYPE_LONG,
        BASALT_ICEBERG_TYPE_FLOAT, BASALT_ICEBERG_TYPE_DOUBLE, BASALT_ICEBERG_TYPE_DECIMAL,
        BASALT_ICEBERG_TYPE_DATE, BASALT_ICEBERG_TYPE_TIME, BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS,
        BASALT_ICEBERG_TYPE_STRING, BASALT_ICEBERG_TYPE_UUID, BASALT_ICEBERG_TYPE_BINARY};
    uint8_t payload[32], buf[40];
    for (int iter = 0; iter < 20000; iter++) {
        struct basalt_iceberg_type t = prim(ids[bt_rng_below(&rng, sizeof(ids) / sizeof(ids[0]))]);
        struct basalt_iceberg_value v;
        memset(&v, 0, sizeof(v));
        v.type = t.id;
        uint64_t r = bt_rng_next(&rng);
        int shift = (int)bt_rng_below(&rng, 64);
        switch (t.id) {
        case BASALT_ICEBERG_TYPE_BOOLEAN: v.u.b = r & 1; break;
        case BASALT_ICEBERG_TYPE_INT:
        case BASALT_ICEBERG_TYPE_DATE: v.u.i32 = (int32_t)(r >> 32); break;
        case BASALT_ICEBERG_TYPE_FLOAT: memcpy(&v.u.f32, &r, 4); if (isnan(v.u.f32)) v.u.f32 = 1; break;
        case BASALT_ICEBERG_TYPE_DOUBLE: memcpy(&v.u.f64, &r, 8); if (isnan(v.u.f64)) v.u.f64 = 1; break;
        case BASALT_ICEBERG_TYPE_DECIMAL:
            t = decimal_type(38, 4);
            v.scale = 4;
            v.u.dec.lo = r;
            v.u.dec.hi = (int64_t)bt_rng_next(&rng) >> shift; /* every byte length */
            break;
        case BASALT_ICEBERG_TYPE_STRING:
        case BASALT_ICEBERG_TYPE_BINARY:
        case BASALT_ICEBERG_TYPE_UUID:
            bt_rng_fill(&rng, payload, sizeof(payload));
            v.u.bytes.data = payload;
            v.u.bytes.len = t.id == BASALT_ICEBERG_TYPE_UUID ? 16 : (size_t)bt_rng_below(&rng, 33);
            break;
        default: v.u.i64 = (int64_t)r >> shift; break;
        }
        size_t n;
        CHECK_OK(basalt_iceberg_value_to_bytes(&v, buf, sizeof(buf), &n, NULL), NULL);
        struct basalt_iceberg_value back;
        CHECK_OK(basalt_iceberg_value_from_bytes(&t, buf, n, &back, NULL), NULL);
        CHECK_MSG(basalt_iceberg_value_identical(&v, &back), "type %d iteration %d", (int)t.id, iter);
        if (t.id == BASALT_ICEBERG_TYPE_DECIMAL && n > 1) {
            /* minimal: the first two bytes never both just carry the sign */
            CHECK(!((buf[0] == 0x00 && !(buf[1] & 0x80)) || (buf[0] == 0xff && (buf[1] & 0x80))));
        }
    }
}

/* --------------------------------------------------------- the bucket vectors */

static const char *json_field(const char *line, const char *key, char *out, size_t cap)
{
    char pat[32];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t n = 0;
    if (*p == '"') {
        p++;
        while (*p && *p != '"' && n + 1 < cap)
            out[n++] = *p++;
    } else {
        while (*p && *p != ',' && *p != '}' && n + 1 < cap)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return out;
}

TEST(value_bucket_spec_vectors)
{
    const char *path = bt_testdata_path(
        "iceberg/spec-vectors/sungwy-iceberg-testing/transforms/bucket/cases.jsonl");
    size_t len;
    uint8_t *data = bt_read_file(path, &len);
    CHECK_MSG(data, "cannot read %s", path);
    char *text = malloc(len + 1);
    memcpy(text, data, len);
    text[len] = '\0';
    basalt_free(data);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    int checked = 0, failed = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char type[64], value[128], hash[32], id[96];
        if (!json_field(line, "type", type, sizeof(type)) ||
            !json_field(line, "value", value, sizeof(value)) ||
            !json_field(line, "hash", hash, sizeof(hash)) || !json_field(line, "id", id, sizeof(id)))
            continue;
        struct basalt_iceberg_type t;
        bool as_long = false, hex = false;
        if (strcmp(type, "int") == 0 || strcmp(type, "long") == 0) {
            t = prim(type[0] == 'i' ? BASALT_ICEBERG_TYPE_INT : BASALT_ICEBERG_TYPE_LONG);
            as_long = true;
        } else if (strcmp(type, "date") == 0) {
            t = prim(BASALT_ICEBERG_TYPE_DATE);
            as_long = true;
        } else if (strcmp(type, "time") == 0) {
            t = prim(BASALT_ICEBERG_TYPE_TIME);
            as_long = true;
        } else if (strcmp(type, "timestamp") == 0) {
            t = prim(BASALT_ICEBERG_TYPE_TIMESTAMP);
            as_long = true;
        } else if (strcmp(type, "string") == 0) {
            t = prim(BASALT_ICEBERG_TYPE_STRING);
        } else if (strcmp(type, "uuid") == 0) {
            t = prim(BASALT_ICEBERG_TYPE_UUID);
        } else if (strncmp(type, "decimal(", 8) == 0) {
            int p, s;
            if (sscanf(type, "decimal(%d, %d)", &p, &s) != 2)
                continue;
            t = decimal_type(p, s);
        } else if (strncmp(type, "fixed[", 6) == 0) {
            t = prim(BASALT_ICEBERG_TYPE_FIXED);
            t.length = atoi(type + 6);
            hex = true;
        } else if (strcmp(type, "binary") == 0) {
            t = prim(BASALT_ICEBERG_TYPE_BINARY);
            hex = true;
        } else {
            continue;
        }
        struct basalt_iceberg_value in, v;
        uint8_t raw[64];
        if (hex) {
            memset(&in, 0, sizeof(in));
            in.type = BASALT_ICEBERG_TYPE_BINARY;
            in.u.bytes.data = raw;
            in.u.bytes.len = unhex(value, raw);
        } else if (as_long && (t.id == BASALT_ICEBERG_TYPE_INT || t.id == BASALT_ICEBERG_TYPE_LONG)) {
            memset(&in, 0, sizeof(in));
            in.type = BASALT_ICEBERG_TYPE_LONG;
            in.u.i64 = strtoll(value, NULL, 10);
        } else {
            in = str(value);
        }
        struct basalt_error err;
        basalt_status st = basalt_iceberg_value_convert(&in, &t, &arena, &v, &err);
        CHECK_MSG(st == BASALT_OK, "%s: convert '%s': %s", id, value, err.message);
        uint32_t h;
        if (as_long) {
            int64_t x = (t.id == BASALT_ICEBERG_TYPE_INT || t.id == BASALT_ICEBERG_TYPE_DATE)
                            ? v.u.i32 : v.u.i64;
            h = basalt_hash_murmur3_32_i64(x);
        } else {
            uint8_t bytes[64];
            size_t n;
            CHECK_OK(basalt_iceberg_value_to_bytes(&v, bytes, sizeof(bytes), &n, &err), &err);
            h = basalt_hash_murmur3_32(bytes, n, 0);
        }
        int32_t want = (int32_t)strtol(hash, NULL, 10);
        if ((int32_t)h != want) {
            fprintf(stderr, "  %s: hash %d, want %d\n", id, (int32_t)h, want);
            failed++;
        }
        checked++;
    }
    free(text);
    basalt_arena_reset(&arena);
    CHECK_EQ(failed, 0);
    CHECK_MSG(checked >= 15, "only %d vectors checked", checked);
}

/* --------------------------------------------------------- order */

TEST(value_compare_order)
{
    /* The spec's float order, written out: -NaN < -inf < -1 < -0 < 0 < 1 < inf < NaN. */
    double d[8] = {-NAN, -INFINITY, -1.0, -0.0, 0.0, 1.0, INFINITY, NAN};
    d[0] = -fabs(NAN);
    d[7] = fabs(NAN);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            struct basalt_iceberg_value a = {.type = BASALT_ICEBERG_TYPE_DOUBLE, .u.f64 = d[i]};
            struct basalt_iceberg_value b = {.type = BASALT_ICEBERG_TYPE_DOUBLE, .u.f64 = d[j]};
            int c = basalt_iceberg_value_compare(&a, &b);
            CHECK_MSG((c < 0) == (i < j) && (c == 0) == (i == j), "double %d vs %d: %d", i, j, c);
            struct basalt_iceberg_value fa = {.type = BASALT_ICEBERG_TYPE_FLOAT, .u.f32 = (float)d[i]};
            struct basalt_iceberg_value fb = {.type = BASALT_ICEBERG_TYPE_FLOAT, .u.f32 = (float)d[j]};
            c = basalt_iceberg_value_compare(&fa, &fb);
            CHECK_MSG((c < 0) == (i < j) && (c == 0) == (i == j), "float %d vs %d: %d", i, j, c);
        }
    /* NaNs with other payloads equal their sign's NaN. */
    uint64_t bits = 0x7ff8000000000123ULL;
    struct basalt_iceberg_value n1 = {.type = BASALT_ICEBERG_TYPE_DOUBLE}, n2 = n1;
    memcpy(&n1.u.f64, &bits, 8);
    n2.u.f64 = fabs(NAN);
    CHECK_EQ(basalt_iceberg_value_compare(&n1, &n2), 0);

    /* Bytes compare unsigned, then by length. */
    const char *s[] = {"", "A", "a", "ab", "abc", "b", "\x7f", "\x80", "\xff"};
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            struct basalt_iceberg_value a = str(s[i]), b = str(s[j]);
            a.type = b.type = (i + j) % 2 ? BASALT_ICEBERG_TYPE_STRING : BASALT_ICEBERG_TYPE_BINARY;
            int c = basalt_iceberg_value_compare(&a, &b);
            CHECK_MSG((c < 0) == (i < j) && (c == 0) == (i == j), "bytes %d vs %d", i, j);
        }
    /* Decimals numerically, across scales. */
    struct basalt_iceberg_value x = dec(15, 1), y = dec(150, 2), z = dec(149, 2), w = dec(-151, 2);
    CHECK_EQ(basalt_iceberg_value_compare(&x, &y), 0);
    CHECK(basalt_iceberg_value_compare(&x, &z) > 0);
    CHECK(basalt_iceberg_value_compare(&z, &x) < 0);
    CHECK(basalt_iceberg_value_compare(&w, &x) < 0);
    struct basalt_iceberg_value big = dec(INT64_MAX, 0), tiny = dec(1, 30);
    CHECK(basalt_iceberg_value_compare(&big, &tiny) > 0);
    CHECK(basalt_iceberg_value_compare(&tiny, &big) < 0);
    /* Signed integers, booleans. */
    struct basalt_iceberg_value i1 = {.type = BASALT_ICEBERG_TYPE_INT, .u.i32 = -1};
    struct basalt_iceberg_value i2 = {.type = BASALT_ICEBERG_TYPE_INT, .u.i32 = 1};
    CHECK(basalt_iceberg_value_compare(&i1, &i2) < 0);
    struct basalt_iceberg_value l1 = {.type = BASALT_ICEBERG_TYPE_TIMESTAMP, .u.i64 = INT64_MIN};
    struct basalt_iceberg_value l2 = {.type = BASALT_ICEBERG_TYPE_TIMESTAMP, .u.i64 = INT64_MAX};
    CHECK(basalt_iceberg_value_compare(&l1, &l2) < 0);
    struct basalt_iceberg_value bf = {.type = BASALT_ICEBERG_TYPE_BOOLEAN, .u.b = false};
    struct basalt_iceberg_value bt = {.type = BASALT_ICEBERG_TYPE_BOOLEAN, .u.b = true};
    CHECK(basalt_iceberg_value_compare(&bf, &bt) < 0);
}

/* --------------------------------------------------------- text */

static int text_is(const struct basalt_iceberg_value *v, const char *want)
{
    char buf[128];
    if (basalt_iceberg_value_to_string(v, buf, sizeof(buf)) != BASALT_OK)
        return 0;
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "  got '%s', want '%s'\n", buf, want);
        return 0;
    }
    return 1;
}

TEST(value_to_string_known)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof(v));
    v.type = BASALT_ICEBERG_TYPE_DATE;
    v.u.i32 = 19417;
    CHECK(text_is(&v, "2023-03-01"));
    v.u.i32 = -1;
    CHECK(text_is(&v, "1969-12-31"));
    v.u.i32 = -719162; /* python: (date(1,1,1) - date(1970,1,1)).days */
    CHECK(text_is(&v, "0001-01-01"));
    v.type = BASALT_ICEBERG_TYPE_TIME;
    v.u.i64 = 69900000001; /* 19:25:00.000001 */
    CHECK(text_is(&v, "19:25:00.000001"));
    v.u.i64 = 69900000000;
    CHECK(text_is(&v, "19:25:00"));
    v.type = BASALT_ICEBERG_TYPE_TIMESTAMP;
    v.u.i64 = 1677698700123456; /* date -u -d '2023-03-01T19:25:00Z' +%s = 1677698700 */
    CHECK(text_is(&v, "2023-03-01T19:25:00.123456"));
    v.u.i64 = -1;
    CHECK(text_is(&v, "1969-12-31T23:59:59.999999"));
    v.type = BASALT_ICEBERG_TYPE_TIMESTAMPTZ;
    v.u.i64 = 1677698700000000;
    CHECK(text_is(&v, "2023-03-01T19:25:00Z"));
    v.type = BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS;
    v.u.i64 = 1677698700123456789;
    CHECK(text_is(&v, "2023-03-01T19:25:00.123456789Z"));
    v.type = BASALT_ICEBERG_TYPE_TIMESTAMP_NS;
    v.u.i64 = -1;
    CHECK(text_is(&v, "1969-12-31T23:59:59.999999999"));
    v = dec(-5, 2);
    CHECK(text_is(&v, "-0.05"));
    v = dec(1250, 2);
    CHECK(text_is(&v, "12.50"));
    v = dec(7, 0);
    CHECK(text_is(&v, "7"));
    v = dec(INT64_MIN, 3);
    CHECK(text_is(&v, "-9223372036854775.808"));
    memset(&v, 0, sizeof(v));
    v.type = BASALT_ICEBERG_TYPE_FLOAT;
    v.u.f32 = 0.1f;
    CHECK(text_is(&v, "0.1"));
    /* Float text reads back both through strtof and through a double and a
     * cast (as the expression parser reads it). 7.038531e-26 is the shortest
     * text of the float with bits 0x15ae43fd for strtof, but through a
     * double it lands on the rounding boundary and becomes 0x15ae43fe; and
     * it reads back as 0x15ae43fe only through a double. */
    uint32_t odd = 0x15ae43fd, even = 0x15ae43fe;
    memcpy(&v.u.f32, &odd, 4);
    CHECK(text_is(&v, "7.0385307e-26"));
    memcpy(&v.u.f32, &even, 4);
    CHECK(text_is(&v, "7.0385313e-26"));
    v.u.f32 = 16777216.0f;
    CHECK(text_is(&v, "16777216"));
    v.u.f32 = 1e10f;
    CHECK(text_is(&v, "1e+10"));
    v.type = BASALT_ICEBERG_TYPE_DOUBLE;
    v.u.f64 = 1e30;
    CHECK(text_is(&v, "1e+30"));
    v.u.f64 = -INFINITY;
    CHECK(text_is(&v, "-Infinity"));
    v.u.f64 = NAN;
    CHECK(text_is(&v, "NaN"));
    v.type = BASALT_ICEBERG_TYPE_LONG;
    v.u.i64 = INT64_MIN;
    CHECK(text_is(&v, "-9223372036854775808"));
    v.type = BASALT_ICEBERG_TYPE_BOOLEAN;
    v.u.b = true;
    CHECK(text_is(&v, "true"));
    uint8_t u[16];
    unhex("f79c3e09677c4bbda4793f349cb785e7", u);
    v.type = BASALT_ICEBERG_TYPE_UUID;
    v.u.bytes.data = u;
    v.u.bytes.len = 16;
    CHECK(text_is(&v, "f79c3e09-677c-4bbd-a479-3f349cb785e7"));
    v.type = BASALT_ICEBERG_TYPE_BINARY;
    v.u.bytes.len = 4;
    u[0] = 0, u[1] = 1, u[2] = 2, u[3] = 3;
    CHECK(text_is(&v, "AAECAw==")); /* python: base64.b64encode(bytes([0,1,2,3])) */
    v = str("plain");
    CHECK(text_is(&v, "plain"));
    v.is_null = true;
    CHECK(text_is(&v, "null"));
    char small[4];
    v = str("abcdef");
    CHECK_STATUS(basalt_iceberg_value_to_string(&v, small, sizeof(small)), BASALT_LIMIT, NULL);
    CHECK_STR(small, "abc");
}

/* --------------------------------------------------------- conversion */

static basalt_status conv(struct basalt_arena *arena, struct basalt_iceberg_value in,
                          struct basalt_iceberg_type t, struct basalt_iceberg_value *out)
{
    return basalt_iceberg_value_convert(&in, &t, arena, out, NULL);
}

TEST(value_convert_strings)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_value v;
    struct basalt_iceberg_type date = prim(BASALT_ICEBERG_TYPE_DATE);
    static const struct {
        const char *text;
        int32_t days; /* python: (date(...) - date(1970, 1, 1)).days */
    } dates[] = {{"2023-03-01", 19417}, {"1970-01-01", 0},     {"1969-12-31", -1},
                 {"2000-02-29", 11016}, {"2024-02-29", 19782}, {"2017-11-16", 17486},
                 {"0001-01-01", -719162}, {"9999-12-31", 2932896}};
    for (size_t i = 0; i < sizeof(dates) / sizeof(dates[0]); i++) {
        CHECK_OK(conv(&arena, str(dates[i].text), date, &v), NULL);
        CHECK_MSG(v.type == BASALT_ICEBERG_TYPE_DATE && v.u.i32 == dates[i].days, "%s -> %d",
                  dates[i].text, v.u.i32);
    }
    const char *bad_dates[] = {"2023-02-29", "1900-02-29", "2023-13-01", "2023-00-10", "2023-3-01",
                               "2023-03-32", "2023-03-01T00:00", "", "20230301", "2023-03-01 "};
    for (size_t i = 0; i < sizeof(bad_dates) / sizeof(bad_dates[0]); i++)
        CHECK_MSG(conv(&arena, str(bad_dates[i]), date, &v) == BASALT_INVALID_ARG, "'%s'",
                  bad_dates[i]);

    struct basalt_iceberg_type time = prim(BASALT_ICEBERG_TYPE_TIME);
    CHECK_OK(conv(&arena, str("19:25:00.000001"), time, &v), NULL);
    CHECK_EQ(v.u.i64, 69900000001LL);
    CHECK_OK(conv(&arena, str("19:25"), time, &v), NULL);
    CHECK_EQ(v.u.i64, 69900000000LL);
    CHECK_OK(conv(&arena, str("23:59:59.5"), time, &v), NULL);
    CHECK_EQ(v.u.i64, 86399500000LL);
    CHECK_STATUS(conv(&arena, str("24:00:00"), time, &v), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, str("12:60"), time, &v), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, str("12:00:00.1234567"), time, &v), BASALT_INVALID_ARG, NULL);

    /* Timestamps: date -u -d '2023-03-01T19:25:00Z' +%s = 1677698700;
     * date -u -d '2023-03-01 19:25:00+05:30' +%s = 1677678900. */
    struct basalt_iceberg_type ts = prim(BASALT_ICEBERG_TYPE_TIMESTAMP);
    struct basalt_iceberg_type tstz = prim(BASALT_ICEBERG_TYPE_TIMESTAMPTZ);
    struct basalt_iceberg_type tsn = prim(BASALT_ICEBERG_TYPE_TIMESTAMP_NS);
    struct basalt_iceberg_type tstzn = prim(BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS);
    static const struct {
        const char *text;
        int which; /* 0 ts, 1 tstz, 2 ts_ns, 3 tstz_ns */
        int64_t want;
    } stamps[] = {
        {"2023-03-01T19:25:00", 0, 1677698700000000},
        {"2023-03-01 19:25", 0, 1677698700000000},
        {"2023-03-01t19:25:00.123456", 0, 1677698700123456},
        {"2023-03-01", 0, 1677628800000000},
        {"1969-12-31T23:59:59.999999", 0, -1},
        {"2017-11-16T22:31:08", 0, 1510871468000000},
        {"2023-03-01T19:25:00Z", 1, 1677698700000000},
        {"2023-03-01T19:25:00", 1, 1677698700000000},
        {"2023-03-01T19:25:00+05:30", 1, 1677678900000000},
        {"2023-03-01 19:25:00-08:00", 1, 1677727500000000},
        {"2023-03-01T19:25:00+0530", 1, 1677678900000000},
        {"2023-03-01T19:25:00.123456789", 2, 1677698700123456789},
        {"2023-03-01T19:25:00.5", 2, 1677698700500000000},
        {"2023-03-01T19:25:00.123456789+00:00", 3, 1677698700123456789},
    };
    struct basalt_iceberg_type types[4] = {ts, tstz, tsn, tstzn};
    for (size_t i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++) {
        basalt_status st = conv(&arena, str(stamps[i].text), types[stamps[i].which], &v);
        CHECK_MSG(st == BASALT_OK && v.u.i64 == stamps[i].want && v.type == types[stamps[i].which].id,
                  "'%s' -> %lld", stamps[i].text, (long long)v.u.i64);
    }
    const char *bad_ts[] = {"2023-03-01T19:25:00Z", "2023-03-01T19:25:00+01:00",
                            "2023-03-01T19:25:00.1234567", "2023-03-01T", "2023-03-01X19:25",
                            "2023-03-01T25:00"};
    for (size_t i = 0; i < sizeof(bad_ts) / sizeof(bad_ts[0]); i++)
        CHECK_MSG(conv(&arena, str(bad_ts[i]), ts, &v) == BASALT_INVALID_ARG, "'%s'", bad_ts[i]);
    CHECK_STATUS(conv(&arena, str("2023-03-01T19:25:00+25:00"), tstz, &v), BASALT_INVALID_ARG, NULL);
    /* Past the range of nanoseconds (years 1677..2262). */
    CHECK_STATUS(conv(&arena, str("2300-01-01T00:00:00"), tsn, &v), BASALT_INVALID_ARG, NULL);

    struct basalt_iceberg_type uuid = prim(BASALT_ICEBERG_TYPE_UUID);
    CHECK_OK(conv(&arena, str("F79C3E09-677c-4bbd-a479-3f349cb785e7"), uuid, &v), NULL);
    uint8_t want[16];
    unhex("f79c3e09677c4bbda4793f349cb785e7", want);
    CHECK(v.u.bytes.len == 16);
    CHECK_MEM(v.u.bytes.data, want, 16);
    CHECK_STATUS(conv(&arena, str("f79c3e09677c4bbda4793f349cb785e7"), uuid, &v), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, str("g79c3e09-677c-4bbd-a479-3f349cb785e7"), uuid, &v), BASALT_INVALID_ARG, NULL);

    struct basalt_iceberg_type d92 = decimal_type(9, 2);
    CHECK_OK(conv(&arena, str("12.5"), d92, &v), NULL);
    CHECK(v.scale == 2 && v.u.dec.lo == 1250 && v.u.dec.hi == 0);
    CHECK_OK(conv(&arena, str("-0.05"), d92, &v), NULL);
    CHECK(v.u.dec.hi == -1 && (int64_t)v.u.dec.lo == -5);
    CHECK_STATUS(conv(&arena, str("12.345"), d92, &v), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, str("12,5"), d92, &v), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, str("12345678.9"), d92, &v), BASALT_INVALID_ARG, NULL); /* 10 digits */

    struct basalt_iceberg_type fixed = prim(BASALT_ICEBERG_TYPE_FIXED);
    fixed.length = 3;
    CHECK_OK(conv(&arena, str("abc"), fixed, &v), NULL);
    CHECK(v.type == BASALT_ICEBERG_TYPE_FIXED && v.u.bytes.len == 3);
    CHECK_STATUS(conv(&arena, str("abcd"), fixed, &v), BASALT_INVALID_ARG, NULL);
    CHECK_OK(conv(&arena, str("xyz"), prim(BASALT_ICEBERG_TYPE_BINARY), &v), NULL);
    CHECK(v.type == BASALT_ICEBERG_TYPE_BINARY && v.u.bytes.len == 3);
    CHECK_STATUS(conv(&arena, str("1"), prim(BASALT_ICEBERG_TYPE_INT), &v), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, str("true"), prim(BASALT_ICEBERG_TYPE_BOOLEAN), &v), BASALT_INVALID_ARG, NULL);
    basalt_arena_reset(&arena);
}

TEST(value_convert_numbers)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_value v, r;
    memset(&v, 0, sizeof(v));
    v.type = BASALT_ICEBERG_TYPE_LONG;
    v.u.i64 = 2147483647;
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_INT), &r), NULL);
    CHECK(r.type == BASALT_ICEBERG_TYPE_INT && r.u.i32 == INT32_MAX);
    v.u.i64 = 2147483648;
    CHECK_STATUS(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_INT), &r), BASALT_INVALID_ARG, NULL);
    int range = 0;
    struct basalt_iceberg_type it = prim(BASALT_ICEBERG_TYPE_INT);
    CHECK_OK(basalt_iceberg_value_convert_range(&v, &it, &arena, &r, &range, NULL), NULL);
    CHECK_EQ(range, 1);
    v.u.i64 = -2147483649;
    CHECK_OK(basalt_iceberg_value_convert_range(&v, &it, &arena, &r, &range, NULL), NULL);
    CHECK_EQ(range, -1);
    v.u.i64 = 12;
    CHECK_OK(conv(&arena, v, decimal_type(9, 2), &r), NULL);
    CHECK(r.type == BASALT_ICEBERG_TYPE_DECIMAL && r.scale == 2 && r.u.dec.lo == 1200);
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_DOUBLE), &r), NULL);
    CHECK(r.u.f64 == 12.0);
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_FLOAT), &r), NULL);
    CHECK(r.u.f32 == 12.0f);
    CHECK_STATUS(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_DATE), &r), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_STRING), &r), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_BOOLEAN), &r), BASALT_INVALID_ARG, NULL);
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_TIMESTAMP), &r), NULL);
    CHECK(r.u.i64 == 12);

    /* Decimal literals: exact rescale only; to floats; to integers when whole. */
    v = dec(1250, 2); /* 12.50 */
    CHECK_OK(conv(&arena, v, decimal_type(9, 3), &r), NULL);
    CHECK(r.scale == 3 && r.u.dec.lo == 12500);
    CHECK_OK(conv(&arena, v, decimal_type(9, 1), &r), NULL);
    CHECK(r.scale == 1 && r.u.dec.lo == 125);
    CHECK_STATUS(conv(&arena, v, decimal_type(9, 0), &r), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, v, decimal_type(3, 2), &r), BASALT_INVALID_ARG, NULL); /* 4 digits */
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_DOUBLE), &r), NULL);
    CHECK(r.u.f64 == 12.5);
    CHECK_STATUS(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_LONG), &r), BASALT_INVALID_ARG, NULL);
    v = dec(1200, 2);
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_LONG), &r), NULL);
    CHECK(r.u.i64 == 12);
    v = dec(1, 1); /* 0.1 -> the nearest double, as strtod("0.1") */
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_DOUBLE), &r), NULL);
    CHECK(r.u.f64 == 0.1);
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_FLOAT), &r), NULL);
    CHECK(r.u.f32 == 0.1f);

    /* Doubles: float range, integral to integers. */
    memset(&v, 0, sizeof(v));
    v.type = BASALT_ICEBERG_TYPE_DOUBLE;
    v.u.f64 = 1e39;
    struct basalt_iceberg_type ft = prim(BASALT_ICEBERG_TYPE_FLOAT);
    CHECK_OK(basalt_iceberg_value_convert_range(&v, &ft, &arena, &r, &range, NULL), NULL);
    CHECK_EQ(range, 1);
    v.u.f64 = -3.5e38;
    CHECK_OK(basalt_iceberg_value_convert_range(&v, &ft, &arena, &r, &range, NULL), NULL);
    CHECK_EQ(range, -1);
    v.u.f64 = 3.4028234663852886e+38; /* FLT_MAX exactly */
    CHECK_OK(basalt_iceberg_value_convert_range(&v, &ft, &arena, &r, &range, NULL), NULL);
    CHECK_EQ(range, 0);
    v.u.f64 = 1e12;
    CHECK_OK(basalt_iceberg_value_convert_range(&v, &it, &arena, &r, &range, NULL), NULL);
    CHECK_EQ(range, 1);
    v.u.f64 = 1e3;
    CHECK_OK(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_INT), &r), NULL);
    CHECK(r.u.i32 == 1000);
    v.u.f64 = 2.5;
    CHECK_STATUS(conv(&arena, v, prim(BASALT_ICEBERG_TYPE_INT), &r), BASALT_INVALID_ARG, NULL);
    CHECK_STATUS(conv(&arena, v, decimal_type(9, 2), &r), BASALT_INVALID_ARG, NULL);

    /* Nulls convert to nulls of the type. */
    struct basalt_iceberg_value null = {.type = BASALT_ICEBERG_TYPE_NONE, .is_null = true};
    CHECK_OK(conv(&arena, null, prim(BASALT_ICEBERG_TYPE_DATE), &r), NULL);
    CHECK(r.is_null && r.type == BASALT_ICEBERG_TYPE_DATE);
    basalt_arena_reset(&arena);
}
