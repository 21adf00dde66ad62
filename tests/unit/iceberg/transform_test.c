/* Partition transforms: parsing, types, the bucket hash against the spec's
 * Appendix B and the sungwy/iceberg-testing vectors, truncate and the time
 * transforms against answers computed with Python's datetime and integers. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_transform.h"
#include "test.h"

static struct basalt_iceberg_type ty(enum basalt_iceberg_type_id id)
{
    struct basalt_iceberg_type t;
    memset(&t, 0, sizeof t);
    t.id = id;
    return t;
}

static struct basalt_iceberg_value v_i32(enum basalt_iceberg_type_id type, int32_t x)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    v.u.i32 = x;
    return v;
}

static struct basalt_iceberg_value v_i64(enum basalt_iceberg_type_id type, int64_t x)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    v.u.i64 = x;
    return v;
}

static struct basalt_iceberg_value v_bytes(enum basalt_iceberg_type_id type, const void *data,
                                           size_t len)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    v.u.bytes.data = data;
    v.u.bytes.len = len;
    return v;
}

static struct basalt_iceberg_value v_dec(int64_t hi, uint64_t lo, int32_t scale)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = BASALT_ICEBERG_TYPE_DECIMAL;
    v.scale = scale;
    v.u.dec.hi = hi;
    v.u.dec.lo = lo;
    return v;
}

static struct basalt_iceberg_value v_small_dec(int64_t unscaled, int32_t scale)
{
    return v_dec(unscaled < 0 ? -1 : 0, (uint64_t)unscaled, scale);
}

static struct basalt_iceberg_transform tf(const char *text)
{
    struct basalt_iceberg_transform t;
    memset(&t, 0, sizeof t);
    basalt_iceberg_transform_parse(text, &t, NULL);
    return t;
}

/* ------------------------------------------------------------------ parse */

TEST(iceberg_transform_parse_names)
{
    static const struct {
        const char *text;
        enum basalt_iceberg_transform_kind kind;
        int32_t param;
    } ok[] = {
        {"identity", BASALT_ICEBERG_TRANSFORM_IDENTITY, 0},
        {"bucket[16]", BASALT_ICEBERG_TRANSFORM_BUCKET, 16},
        {"bucket[1]", BASALT_ICEBERG_TRANSFORM_BUCKET, 1},
        {"bucket[2147483647]", BASALT_ICEBERG_TRANSFORM_BUCKET, 2147483647},
        {"truncate[10]", BASALT_ICEBERG_TRANSFORM_TRUNCATE, 10},
        {"year", BASALT_ICEBERG_TRANSFORM_YEAR, 0},
        {"month", BASALT_ICEBERG_TRANSFORM_MONTH, 0},
        {"day", BASALT_ICEBERG_TRANSFORM_DAY, 0},
        {"hour", BASALT_ICEBERG_TRANSFORM_HOUR, 0},
        {"void", BASALT_ICEBERG_TRANSFORM_VOID, 0},
        {"Identity", BASALT_ICEBERG_TRANSFORM_IDENTITY, 0},
        {"zorder", BASALT_ICEBERG_TRANSFORM_UNKNOWN, 0},
        {"bucketize", BASALT_ICEBERG_TRANSFORM_UNKNOWN, 0},
        {"", BASALT_ICEBERG_TRANSFORM_UNKNOWN, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct basalt_iceberg_transform t;
        struct basalt_error err;
        CHECK_OK(basalt_iceberg_transform_parse(ok[i].text, &t, &err), &err);
        CHECK_MSG(t.kind == ok[i].kind, "%s: kind %d", ok[i].text, (int)t.kind);
        CHECK_EQ(t.param, ok[i].param);
        CHECK(t.text == ok[i].text);
    }
    static const char *bad[] = {"bucket[0]",   "truncate[x]",        "bucket[16",
                                "bucket[]",    "bucket[-1]",         "truncate[0]",
                                "bucket[16]x", "bucket[2147483648]", "truncate[ 3]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct basalt_iceberg_transform t;
        struct basalt_error err;
        basalt_error_init(&err);
        CHECK_MSG(basalt_iceberg_transform_parse(bad[i], &t, &err) == BASALT_CORRUPT, "%s", bad[i]);
        CHECK(strstr(err.message, bad[i]) != NULL);
    }
    CHECK_STATUS(basalt_iceberg_transform_parse(NULL, NULL, NULL), BASALT_INVALID_ARG, NULL);
}

TEST(iceberg_transform_can_apply_and_result_types)
{
    static const struct {
        const char *transform;
        enum basalt_iceberg_type_id source;
        bool applies;
        enum basalt_iceberg_type_id result;
    } cases[] = {
        {"identity", BASALT_ICEBERG_TYPE_DOUBLE, true, BASALT_ICEBERG_TYPE_DOUBLE},
        {"identity", BASALT_ICEBERG_TYPE_STRUCT, false, 0},
        {"bucket[4]", BASALT_ICEBERG_TYPE_INT, true, BASALT_ICEBERG_TYPE_INT},
        {"bucket[4]", BASALT_ICEBERG_TYPE_STRING, true, BASALT_ICEBERG_TYPE_INT},
        {"bucket[4]", BASALT_ICEBERG_TYPE_UUID, true, BASALT_ICEBERG_TYPE_INT},
        {"bucket[4]", BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS, true, BASALT_ICEBERG_TYPE_INT},
        {"bucket[4]", BASALT_ICEBERG_TYPE_FLOAT, false, 0},
        {"bucket[4]", BASALT_ICEBERG_TYPE_BOOLEAN, false, 0},
        {"truncate[4]", BASALT_ICEBERG_TYPE_LONG, true, BASALT_ICEBERG_TYPE_LONG},
        {"truncate[4]", BASALT_ICEBERG_TYPE_STRING, true, BASALT_ICEBERG_TYPE_STRING},
        {"truncate[4]", BASALT_ICEBERG_TYPE_BINARY, true, BASALT_ICEBERG_TYPE_BINARY},
        {"truncate[4]", BASALT_ICEBERG_TYPE_DATE, false, 0},
        {"truncate[4]", BASALT_ICEBERG_TYPE_DOUBLE, false, 0},
        {"year", BASALT_ICEBERG_TYPE_DATE, true, BASALT_ICEBERG_TYPE_INT},
        {"month", BASALT_ICEBERG_TYPE_TIMESTAMP, true, BASALT_ICEBERG_TYPE_INT},
        {"day", BASALT_ICEBERG_TYPE_TIMESTAMPTZ, true, BASALT_ICEBERG_TYPE_DATE},
        {"day", BASALT_ICEBERG_TYPE_DATE, true, BASALT_ICEBERG_TYPE_DATE},
        {"hour", BASALT_ICEBERG_TYPE_TIMESTAMP_NS, true, BASALT_ICEBERG_TYPE_INT},
        {"hour", BASALT_ICEBERG_TYPE_DATE, false, 0},
        {"year", BASALT_ICEBERG_TYPE_TIME, false, 0},
        {"void", BASALT_ICEBERG_TYPE_STRING, true, BASALT_ICEBERG_TYPE_STRING},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_iceberg_transform t = tf(cases[i].transform);
        struct basalt_iceberg_type src = ty(cases[i].source), out;
        CHECK_MSG(basalt_iceberg_transform_can_apply(&t, &src) == cases[i].applies, "case %zu", i);
        basalt_status st = basalt_iceberg_transform_result_type(&t, &src, &out, NULL);
        if (cases[i].applies) {
            CHECK_MSG(st == BASALT_OK && out.id == cases[i].result, "case %zu", i);
        } else {
            CHECK_MSG(st == BASALT_INVALID_ARG, "case %zu", i);
        }
    }
    struct basalt_iceberg_type dec = ty(BASALT_ICEBERG_TYPE_DECIMAL), out;
    dec.precision = 9;
    dec.scale = 2;
    struct basalt_iceberg_transform t = tf("truncate[50]");
    CHECK_OK(basalt_iceberg_transform_result_type(&t, &dec, &out, NULL), NULL);
    CHECK(out.id == BASALT_ICEBERG_TYPE_DECIMAL && out.precision == 9 && out.scale == 2);
    t = tf("some_future_transform");
    CHECK(basalt_iceberg_transform_can_apply(&t, &dec));
    CHECK_STATUS(basalt_iceberg_transform_result_type(&t, &dec, &out, NULL), BASALT_UNSUPPORTED,
                 NULL);
    struct basalt_iceberg_value in = v_small_dec(1, 2), res;
    CHECK_STATUS(basalt_iceberg_transform_apply(&t, &dec, &in, &res, NULL), BASALT_UNSUPPORTED,
                 NULL);
    /* a value of another type than the source is refused */
    t = tf("identity");
    struct basalt_iceberg_type it = ty(BASALT_ICEBERG_TYPE_INT);
    in = v_i64(BASALT_ICEBERG_TYPE_LONG, 1);
    CHECK_STATUS(basalt_iceberg_transform_apply(&t, &it, &in, &res, NULL), BASALT_INVALID_ARG,
                 NULL);
}

/* ------------------------------------------------------------------ bucket */

/* Iceberg table spec, "Appendix B: 32-bit Hash Requirements" (format/spec.md),
 * the test values of its two tables, typed in. The timestamp_ns row applies the
 * spec's rule for nanosecond timestamps (hashed as microseconds) to the
 * microsecond vector 2017-11-16T22:31:08.000001 -> -1207196810. */
TEST(iceberg_bucket_hash_appendix_b)
{
    struct basalt_iceberg_value v;
    v = v_i32(BASALT_ICEBERG_TYPE_INT, 34);
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 2017239379);
    v = v_i64(BASALT_ICEBERG_TYPE_LONG, 34);
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 2017239379);
    v = v_small_dec(1420, 2); /* 14.20 */
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -500754589);
    v = v_i32(BASALT_ICEBERG_TYPE_DATE, 17486); /* 2017-11-16 */
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -653330422);
    v = v_i64(BASALT_ICEBERG_TYPE_TIME, INT64_C(81068000000)); /* 22:31:08 */
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -662762989);
    v = v_i64(BASALT_ICEBERG_TYPE_TIMESTAMP, INT64_C(1510871468000000)); /* 2017-11-16T22:31:08 */
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -2047944441);
    /* 2017-11-16T14:31:08-08:00 is the same instant */
    v = v_i64(BASALT_ICEBERG_TYPE_TIMESTAMPTZ, INT64_C(1510871468000000));
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -2047944441);
    v = v_i64(BASALT_ICEBERG_TYPE_TIMESTAMP, INT64_C(1510871468000001));
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -1207196810);
    v = v_i64(BASALT_ICEBERG_TYPE_TIMESTAMP_NS, INT64_C(1510871468000001001));
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -1207196810);
    v = v_bytes(BASALT_ICEBERG_TYPE_STRING, "iceberg", 7);
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 1210000089);
    static const uint8_t uuid[16] = {0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD,
                                     0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7};
    v = v_bytes(BASALT_ICEBERG_TYPE_UUID, uuid, 16);
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 1488055340);
    static const uint8_t b4[4] = {0, 1, 2, 3};
    v = v_bytes(BASALT_ICEBERG_TYPE_FIXED, b4, 4);
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -188683207);
    v = v_bytes(BASALT_ICEBERG_TYPE_BINARY, b4, 4);
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -188683207);
    /* second table: types not valid for bucketing, hashed all the same */
    v.type = BASALT_ICEBERG_TYPE_BOOLEAN;
    v.u.b = true;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 1392991556);
    v.type = BASALT_ICEBERG_TYPE_FLOAT;
    v.u.f32 = 1.0f;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -142385009);
    v.u.f32 = 0.0f;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 1669671676);
    v.u.f32 = -0.0f;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 1669671676);
    v.type = BASALT_ICEBERG_TYPE_DOUBLE;
    v.u.f64 = 1.0;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), -142385009);
    v.u.f64 = 0.0;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 1669671676);
    v.u.f64 = -0.0;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 1669671676);
    /* every NaN hashes as the canonical 0x7ff8000000000000 */
    uint64_t canon = UINT64_C(0x7ff8000000000000), other = UINT64_C(0xfff0000000000123);
    double nan1, nan2;
    memcpy(&nan1, &canon, 8);
    memcpy(&nan2, &other, 8);
    v.u.f64 = nan1;
    int32_t h1 = basalt_iceberg_bucket_hash(&v);
    v.u.f64 = nan2;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), h1);
    v.type = BASALT_ICEBERG_TYPE_FLOAT;
    v.u.f32 = (float)nan2;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), h1);
    v.is_null = true;
    CHECK_EQ(basalt_iceberg_bucket_hash(&v), 0);
}

/* ---- a tiny reader for the JSON lines of the conformance vectors */

static bool json_field(const char *line, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p)
        return false;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    size_t n = 0;
    if (*p == '"') {
        p++;
        while (*p && *p != '"' && n + 1 < cap)
            out[n++] = *p++;
    } else {
        while (*p && *p != ',' && *p != '}' && n + 1 < cap)
            out[n++] = *p++;
    }
    out[n] = 0;
    return true;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01, by counting (independent of the library's calendar). */
static int64_t count_days(int64_t y, int m, int d)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t days = 0;
    for (int64_t yy = 1970; yy < y; yy++)
        days += is_leap(yy) ? 366 : 365;
    for (int64_t yy = y; yy < 1970; yy++)
        days -= is_leap(yy) ? 366 : 365;
    for (int mm = 1; mm < m; mm++)
        days += mdays[mm - 1] + (mm == 2 && is_leap(y));
    return days + d - 1;
}

static int64_t parse_time_us(const char *s)
{
    int h = 0, mi = 0, sec = 0;
    sscanf(s, "%d:%d:%d", &h, &mi, &sec);
    int64_t us = ((int64_t)h * 3600 + mi * 60 + sec) * 1000000;
    const char *dot = strchr(s, '.');
    if (dot) {
        int64_t frac = 0;
        int digits = 0;
        for (const char *p = dot + 1; *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
            frac = frac * 10 + (*p - '0');
        while (digits++ < 6)
            frac *= 10;
        us += frac;
    }
    return us;
}

static size_t parse_hex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (; *s && n < cap; s++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F')
            d = *s - 'A' + 10;
        else
            continue;
        if (hi < 0) {
            hi = d;
        } else {
            out[n++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    return n;
}

/* github.com/sungwy/iceberg-testing table-spec/transforms/bucket/cases.jsonl
 * (copied into the shared corpus): every row, hash and bucket. */
TEST(iceberg_bucket_hash_conformance_vectors)
{
    size_t len;
    uint8_t *data = bt_read_file(
        bt_testdata_path(
            "iceberg/spec-vectors/sungwy-iceberg-testing/transforms/bucket/cases.jsonl"),
        &len);
    CHECK_MSG(data != NULL, "cannot read the bucket vectors");
    char *text = malloc(len + 1);
    memcpy(text, data, len);
    text[len] = 0;
    basalt_free(data);
    int cases = 0, failures = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char id[128], type[64], value[128], hash[32];
        if (!json_field(line, "id", id, sizeof id) ||
            !json_field(line, "type", type, sizeof type) ||
            !json_field(line, "value", value, sizeof value) ||
            !json_field(line, "hash", hash, sizeof hash))
            continue;
        int64_t expected = strtoll(hash, NULL, 10);
        struct basalt_iceberg_value v;
        struct basalt_iceberg_type src = ty(BASALT_ICEBERG_TYPE_NONE);
        uint8_t buf[64];
        if (strcmp(type, "int") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_INT);
            v = v_i32(src.id, (int32_t)strtol(value, NULL, 10));
        } else if (strcmp(type, "long") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_LONG);
            v = v_i64(src.id, strtoll(value, NULL, 10));
        } else if (strncmp(type, "decimal(", 8) == 0) {
            src = ty(BASALT_ICEBERG_TYPE_DECIMAL);
            src.precision = atoi(type + 8);
            src.scale = atoi(strchr(type, ',') + 1);
            int64_t unscaled = 0;
            bool neg = value[0] == '-';
            for (const char *p = value; *p; p++)
                if (*p >= '0' && *p <= '9')
                    unscaled = unscaled * 10 + (*p - '0');
            v = v_small_dec(neg ? -unscaled : unscaled, src.scale);
        } else if (strcmp(type, "date") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_DATE);
            int y, m, d;
            sscanf(value, "%d-%d-%d", &y, &m, &d);
            v = v_i32(src.id, (int32_t)count_days(y, m, d));
        } else if (strcmp(type, "time") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_TIME);
            v = v_i64(src.id, parse_time_us(value));
        } else if (strcmp(type, "timestamp") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_TIMESTAMP);
            int y, m, d;
            sscanf(value, "%d-%d-%d", &y, &m, &d);
            v = v_i64(src.id, count_days(y, m, d) * INT64_C(86400000000) +
                                  parse_time_us(strchr(value, 'T') + 1));
        } else if (strcmp(type, "string") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_STRING);
            memcpy(buf, value, strlen(value));
            v = v_bytes(src.id, buf, strlen(value));
        } else if (strcmp(type, "uuid") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_UUID);
            v = v_bytes(src.id, buf, parse_hex(value, buf, sizeof buf));
        } else if (strncmp(type, "fixed[", 6) == 0) {
            src = ty(BASALT_ICEBERG_TYPE_FIXED);
            src.length = atoi(type + 6);
            v = v_bytes(src.id, buf, parse_hex(value, buf, sizeof buf));
        } else if (strcmp(type, "binary") == 0) {
            src = ty(BASALT_ICEBERG_TYPE_BINARY);
            v = v_bytes(src.id, buf, parse_hex(value, buf, sizeof buf));
        } else {
            bt_fail(__FILE__, __LINE__, "%s: unexpected type %s", id, type);
            failures++;
            continue;
        }
        cases++;
        int32_t h = basalt_iceberg_bucket_hash(&v);
        if (h != expected) {
            bt_fail(__FILE__, __LINE__, "%s: hash %d, expected %lld", id, (int)h,
                    (long long)expected);
            failures++;
            continue;
        }
        static const int32_t ns[] = {1, 7, 16, 1000, 2147483647};
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            char name[32];
            snprintf(name, sizeof name, "bucket[%d]", (int)ns[k]);
            struct basalt_iceberg_transform t = tf(name);
            struct basalt_iceberg_value out;
            if (basalt_iceberg_transform_apply(&t, &src, &v, &out, NULL) != BASALT_OK ||
                out.type != BASALT_ICEBERG_TYPE_INT ||
                out.u.i32 != (int32_t)((expected & INT32_MAX) % ns[k])) {
                bt_fail(__FILE__, __LINE__, "%s: %s", id, name);
                failures++;
            }
        }
    }
    free(text);
    CHECK_EQ(failures, 0);
    CHECK_EQ(cases, 15);
}

/* Buckets of values of the projection tests, by an independent Murmur3 (a
 * Python transcription of the reference algorithm, checked on 34 ->
 * 2017239379). */
TEST(iceberg_bucket_apply_known_answers)
{
    struct basalt_iceberg_transform t = tf("bucket[16]");
    struct basalt_iceberg_type it = ty(BASALT_ICEBERG_TYPE_INT),
                               st = ty(BASALT_ICEBERG_TYPE_STRING);
    static const struct {
        int32_t v, bucket;
    } ints[] = {{99, 9}, {100, 0}, {101, 4}, {-1, 8}, {0, 12}, {34, 3}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        struct basalt_iceberg_value in = v_i32(BASALT_ICEBERG_TYPE_INT, ints[i].v), out;
        CHECK_OK(basalt_iceberg_transform_apply(&t, &it, &in, &out, NULL), NULL);
        CHECK_EQ(out.u.i32, ints[i].bucket);
    }
    struct basalt_iceberg_value in = v_bytes(BASALT_ICEBERG_TYPE_STRING, "abc", 3), out;
    CHECK_OK(basalt_iceberg_transform_apply(&t, &st, &in, &out, NULL), NULL);
    CHECK_EQ(out.u.i32, 10);
    CHECK_EQ(basalt_iceberg_bucket_hash(&in), -1277324294);
    in = v_bytes(BASALT_ICEBERG_TYPE_STRING, "abcde", 5);
    CHECK_EQ(basalt_iceberg_bucket_hash(&in), -392455434);
    /* int and long agree (schema evolution keeps buckets) */
    struct basalt_iceberg_type lt = ty(BASALT_ICEBERG_TYPE_LONG);
    in = v_i64(BASALT_ICEBERG_TYPE_LONG, 101);
    CHECK_OK(basalt_iceberg_transform_apply(&t, &lt, &in, &out, NULL), NULL);
    CHECK_EQ(out.u.i32, 4);
    /* null in, null out */
    in = v_i32(BASALT_ICEBERG_TYPE_INT, 5);
    in.is_null = true;
    CHECK_OK(basalt_iceberg_transform_apply(&t, &it, &in, &out, NULL), NULL);
    CHECK(out.is_null && out.type == BASALT_ICEBERG_TYPE_INT);
}

/* ---------------------------------------------------------------- truncate */

TEST(iceberg_truncate_integers)
{
    /* spec "Truncate Transform Details": W=10: 1 -> 0, -1 -> -10 */
    static const struct {
        int64_t v;
        int32_t w;
        int64_t want;
    } cases[] = {
        {1, 10, 0},
        {-1, 10, -10},
        {0, 10, 0},
        {10, 10, 10},
        {-10, 10, -10},
        {-11, 10, -20},
        {5, 1, 5},
        {-5, 1, -5},
        {99, 100, 0},
        {-99, 100, -100},
        {12345, 7, 12341},
        {-12345, 7, -12348},
        {2147483647, 10, 2147483640},
    };
    struct basalt_iceberg_type it = ty(BASALT_ICEBERG_TYPE_INT), lt = ty(BASALT_ICEBERG_TYPE_LONG);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "truncate[%d]", (int)cases[i].w);
        struct basalt_iceberg_transform t = tf(name);
        struct basalt_iceberg_value in = v_i32(BASALT_ICEBERG_TYPE_INT, (int32_t)cases[i].v), out;
        CHECK_OK(basalt_iceberg_transform_apply(&t, &it, &in, &out, NULL), NULL);
        CHECK_MSG(out.type == BASALT_ICEBERG_TYPE_INT && out.u.i32 == cases[i].want,
                  "int case %zu: %d", i, (int)out.u.i32);
        in = v_i64(BASALT_ICEBERG_TYPE_LONG, cases[i].v);
        CHECK_OK(basalt_iceberg_transform_apply(&t, &lt, &in, &out, NULL), NULL);
        CHECK_MSG(out.type == BASALT_ICEBERG_TYPE_LONG && out.u.i64 == cases[i].want,
                  "long case %zu", i);
    }
    struct basalt_iceberg_transform t = tf("truncate[1000000]");
    struct basalt_iceberg_value in = v_i64(BASALT_ICEBERG_TYPE_LONG, INT64_C(-9000000000000000001)),
                                out;
    CHECK_OK(basalt_iceberg_transform_apply(&t, &lt, &in, &out, NULL), NULL);
    CHECK_EQ(out.u.i64, INT64_C(-9000000000001000000));
}

TEST(iceberg_truncate_decimals)
{
    struct basalt_iceberg_type dt = ty(BASALT_ICEBERG_TYPE_DECIMAL);
    dt.precision = 38;
    dt.scale = 2;
    /* spec: W=50, s=2: 10.65 -> 10.50; the reference implementation's tests,
     * W=10: 12.34 -> 12.30, 12.29 -> 12.20, 0.05 -> 0.00, -0.05 -> -0.10 */
    static const struct {
        int32_t w;
        int64_t v, want;
    } cases[] = {{50, 1065, 1050}, {10, 1234, 1230}, {10, 1230, 1230}, {10, 1229, 1220},
                 {10, 5, 0},       {10, -5, -10},    {7, -1, -7},      {1, -123, -123}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "truncate[%d]", (int)cases[i].w);
        struct basalt_iceberg_transform t = tf(name);
        struct basalt_iceberg_value in = v_small_dec(cases[i].v, 2), out;
        CHECK_OK(basalt_iceberg_transform_apply(&t, &dt, &in, &out, NULL), NULL);
        struct basalt_iceberg_value want = v_small_dec(cases[i].want, 2);
        CHECK_MSG(out.u.dec.hi == want.u.dec.hi && out.u.dec.lo == want.u.dec.lo && out.scale == 2,
                  "decimal case %zu", i);
    }
    /* 128-bit values (Python: v - v % W):
     * -(2**100 + 7), W=1000 -> 0xffffffeffffffffffffffffffffffd90
     * 2**90 + 123456789, W=77 -> 1237940039285380275022580941 */
    struct basalt_iceberg_transform t = tf("truncate[1000]");
    struct basalt_iceberg_value in = v_dec((int64_t)UINT64_C(0xffffffefffffffff),
                                           UINT64_C(0xfffffffffffffff9), 0),
                                out;
    CHECK_OK(basalt_iceberg_transform_apply(&t, &dt, &in, &out, NULL), NULL);
    CHECK_UEQ((uint64_t)out.u.dec.hi, UINT64_C(0xffffffefffffffff));
    CHECK_UEQ(out.u.dec.lo, UINT64_C(0xfffffffffffffd90));
    t = tf("truncate[77]");
    /* 2**90 + 123456789 = hi 2**26, lo 123456789 */
    in = v_dec(INT64_C(1) << 26, 123456789, 0);
    CHECK_OK(basalt_iceberg_transform_apply(&t, &dt, &in, &out, NULL), NULL);
    /* 1237940039285380275022580941 = 2**90 + 123456717 */
    CHECK_EQ(out.u.dec.hi, INT64_C(1) << 26);
    CHECK_UEQ(out.u.dec.lo, 123456717);
}

TEST(iceberg_truncate_strings_and_binary)
{
    struct basalt_iceberg_type st = ty(BASALT_ICEBERG_TYPE_STRING),
                               bt = ty(BASALT_ICEBERG_TYPE_BINARY);
    struct basalt_iceberg_transform t = tf("truncate[3]");
    struct basalt_iceberg_value in = v_bytes(BASALT_ICEBERG_TYPE_STRING, "iceberg", 7), out;
    CHECK_OK(basalt_iceberg_transform_apply(&t, &st, &in, &out, NULL), NULL);
    CHECK(out.type == BASALT_ICEBERG_TYPE_STRING && out.u.bytes.len == 3);
    CHECK(out.u.bytes.data == in.u.bytes.data); /* a view */
    /* "ab\U0001F600cd\u00e9f": Python s[:w].encode() for w = 1..7 */
    static const char s[] = "ab\xf0\x9f\x98\x80"
                            "cd\xc3\xa9"
                            "f";
    static const size_t want[] = {1, 2, 6, 7, 8, 10, 11, 11};
    for (int w = 1; w <= 8; w++) {
        char name[32];
        snprintf(name, sizeof name, "truncate[%d]", w);
        t = tf(name);
        in = v_bytes(BASALT_ICEBERG_TYPE_STRING, s, strlen(s));
        CHECK_OK(basalt_iceberg_transform_apply(&t, &st, &in, &out, NULL), NULL);
        CHECK_MSG(out.u.bytes.len == want[w - 1], "w=%d: %zu", w, out.u.bytes.len);
    }
    static const uint8_t b4[4] = {0, 1, 2, 3};
    t = tf("truncate[2]");
    in = v_bytes(BASALT_ICEBERG_TYPE_BINARY, b4, 4);
    CHECK_OK(basalt_iceberg_transform_apply(&t, &bt, &in, &out, NULL), NULL);
    CHECK(out.type == BASALT_ICEBERG_TYPE_BINARY && out.u.bytes.len == 2 && out.u.bytes.data == b4);
    t = tf("truncate[10]");
    CHECK_OK(basalt_iceberg_transform_apply(&t, &bt, &in, &out, NULL), NULL);
    CHECK_EQ(out.u.bytes.len, 4);
    in = v_bytes(BASALT_ICEBERG_TYPE_STRING, "", 0);
    CHECK_OK(basalt_iceberg_transform_apply(&t, &st, &in, &out, NULL), NULL);
    CHECK_EQ(out.u.bytes.len, 0);
}

/* ------------------------------------------------------------------- time */

/* Expected answers from Python's datetime (years since 1970, months since
 * 1970-01, days, hours: floor semantics before 1970). */
TEST(iceberg_time_transforms_dates)
{
    static const struct {
        int32_t days;
        int32_t year, month;
    } cases[] = {
        {17486, 47, 574},         /* 2017-11-16 */
        {-1, -1, -1},             /* 1969-12-31 */
        {0, 0, 0},                /* 1970-01-01 */
        {-25508, -70, -838},      /* 1900-03-01 */
        {11016, 30, 361},         /* 2000-02-29 */
        {-719162, -1969, -23628}, /* 0001-01-01 */
        {-365, -1, -12},          /* 1969-01-01 */
        {-672, -2, -23},          /* 1968-02-29 */
        {47541, 130, 1562},       /* 2100-03-01 */
    };
    struct basalt_iceberg_type dt = ty(BASALT_ICEBERG_TYPE_DATE);
    struct basalt_iceberg_transform year = tf("year"), month = tf("month"), day = tf("day");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_iceberg_value in = v_i32(BASALT_ICEBERG_TYPE_DATE, cases[i].days), out;
        CHECK_OK(basalt_iceberg_transform_apply(&year, &dt, &in, &out, NULL), NULL);
        CHECK_MSG(out.type == BASALT_ICEBERG_TYPE_INT && out.u.i32 == cases[i].year, "year %zu: %d",
                  i, (int)out.u.i32);
        CHECK_OK(basalt_iceberg_transform_apply(&month, &dt, &in, &out, NULL), NULL);
        CHECK_MSG(out.u.i32 == cases[i].month, "month %zu: %d", i, (int)out.u.i32);
        CHECK_OK(basalt_iceberg_transform_apply(&day, &dt, &in, &out, NULL), NULL);
        CHECK_MSG(out.type == BASALT_ICEBERG_TYPE_DATE && out.u.i32 == cases[i].days, "day %zu", i);
    }
}

TEST(iceberg_time_transforms_timestamps)
{
    static const struct {
        int64_t us;
        int32_t year, month, day, hour;
    } cases[] = {
        {INT64_C(1510871468000000), 47, 574, 17486, 419686}, /* 2017-11-16T22:31:08 */
        {-1, -1, -1, -1, -1},                                /* 1969-12-31T23:59:59.999999 */
        {0, 0, 0, 0, 0},
        {INT64_C(-2203887477000000), -70, -838, -25508, -612191},      /* 1900-03-01T01:02:03 */
        {INT64_C(951865200000000), 30, 361, 11016, 264407},            /* 2000-02-29T23:00:00 */
        {INT64_C(-12212553600000000), -387, -4644, -141349, -3392376}, /* 1583-01-01 */
        {INT64_C(253402300799999999), 8029, 96359, 2932896,
         70389527},                                       /* 9999-12-31T23:59:59.999999 */
        {INT64_C(-31536000000000), -1, -12, -365, -8760}, /* 1969-01-01T00:00:00 */
        {INT64_C(-31536001000000), -2, -13, -366, -8761}, /* 1968-12-31T23:59:59 */
    };
    static const enum basalt_iceberg_type_id types[] = {
        BASALT_ICEBERG_TYPE_TIMESTAMP, BASALT_ICEBERG_TYPE_TIMESTAMPTZ,
        BASALT_ICEBERG_TYPE_TIMESTAMP_NS, BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS};
    struct basalt_iceberg_transform tr[4] = {tf("year"), tf("month"), tf("day"), tf("hour")};
    for (size_t k = 0; k < 4; k++) {
        struct basalt_iceberg_type src = ty(types[k]);
        bool ns = k >= 2;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            if (ns && (cases[i].us > INT64_MAX / 1000 || cases[i].us < INT64_MIN / 1000))
                continue;
            int64_t raw = ns ? cases[i].us * 1000 : cases[i].us;
            int32_t want[4] = {cases[i].year, cases[i].month, cases[i].day, cases[i].hour};
            for (int j = 0; j < 4; j++) {
                struct basalt_iceberg_value in = v_i64(types[k], raw), out;
                CHECK_OK(basalt_iceberg_transform_apply(&tr[j], &src, &in, &out, NULL), NULL);
                CHECK_MSG(out.u.i32 == want[j], "type %zu case %zu transform %d: %d != %d", k, i, j,
                          (int)out.u.i32, (int)want[j]);
            }
        }
    }
    /* one nanosecond before the epoch is still hour/day/month/year -1 */
    struct basalt_iceberg_type src = ty(BASALT_ICEBERG_TYPE_TIMESTAMP_NS);
    for (int j = 0; j < 4; j++) {
        struct basalt_iceberg_value in = v_i64(src.id, -1), out;
        CHECK_OK(basalt_iceberg_transform_apply(&tr[j], &src, &in, &out, NULL), NULL);
        CHECK_EQ(out.u.i32, -1);
    }
}

TEST(iceberg_void_and_identity)
{
    struct basalt_iceberg_type st = ty(BASALT_ICEBERG_TYPE_STRING);
    struct basalt_iceberg_transform t = tf("void");
    struct basalt_iceberg_value in = v_bytes(BASALT_ICEBERG_TYPE_STRING, "x", 1), out;
    CHECK_OK(basalt_iceberg_transform_apply(&t, &st, &in, &out, NULL), NULL);
    CHECK(out.is_null && out.type == BASALT_ICEBERG_TYPE_STRING);
    t = tf("identity");
    CHECK_OK(basalt_iceberg_transform_apply(&t, &st, &in, &out, NULL), NULL);
    CHECK(!out.is_null && out.u.bytes.len == 1 && out.u.bytes.data == in.u.bytes.data);
    struct basalt_iceberg_type it = ty(BASALT_ICEBERG_TYPE_INT);
    t = tf("year");
    in = v_i32(BASALT_ICEBERG_TYPE_INT, 1);
    CHECK_STATUS(basalt_iceberg_transform_apply(&t, &it, &in, &out, NULL), BASALT_INVALID_ARG,
                 NULL);
}
