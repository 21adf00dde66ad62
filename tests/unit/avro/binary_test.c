/* The binary encoding: known answers from the specification, round trips,
 * malformed input, limits and the JSON text of values. */
#include <math.h>

#include "avro_internal.h"
#include "test.h"

struct decoded {
    struct basalt_avro_schema *schema;
    struct basalt_arena arena;
    struct basalt_avro_value value;
};

static basalt_status decode_hex(const char *schema_json, const uint8_t *bytes, size_t len,
                                struct decoded *d, struct basalt_error *err)
{
    basalt_arena_init(&d->arena, 4096);
    basalt_status st = basalt_avro_schema_parse(schema_json, strlen(schema_json), NULL, &d->schema,
                                                err);
    if (st != BASALT_OK)
        return st;
    size_t used = 0;
    st = basalt_avro_value_decode(basalt_avro_schema_root(d->schema), bytes, len, NULL, &d->arena,
                                  &d->value, &used, err);
    if (st == BASALT_OK && used != len)
        st = basalt_error_set(err, BASALT_INTERNAL, "used %zu of %zu bytes", used, len);
    return st;
}

static void decoded_free(struct decoded *d)
{
    basalt_arena_reset(&d->arena);
    basalt_avro_schema_free(d->schema);
}

/* JSON text of a value, NUL-terminated, in a static buffer. */
static const char *json_of(const struct basalt_avro_value *v, unsigned flags)
{
    static char text[4096];
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    if (basalt_avro_value_to_json(v, flags, &b, NULL) != BASALT_OK || b.size >= sizeof text) {
        basalt_buffer_reset(&b);
        return "<error>";
    }
    memcpy(text, b.data, b.size);
    text[b.size] = '\0';
    basalt_buffer_reset(&b);
    return text;
}

/* Examples of the specification ("Binary Encoding") and simple derivations:
 * each decodes to the JSON shown and re-encodes to the same bytes. */
TEST(binary_known_answers)
{
    static const struct {
        const char *schema;
        const char *hex;
        const char *json;
    } cases[] = {
        {"\"null\"", "", "null"},
        {"\"boolean\"", "01", "true"},
        {"\"boolean\"", "00", "false"},
        {"\"long\"", "00", "0"},
        {"\"long\"", "01", "-1"},
        {"\"long\"", "02", "1"},
        {"\"long\"", "03", "-2"},
        {"\"long\"", "04", "2"},
        {"\"long\"", "7f", "-64"},
        {"\"long\"", "8001", "64"},
        {"\"long\"", "feffffffffffffffff01", "9223372036854775807"},
        {"\"long\"", "ffffffffffffffffff01", "-9223372036854775808"},
        {"\"int\"", "feffffff0f", "2147483647"},
        {"\"int\"", "ffffffff0f", "-2147483648"},
        {"\"float\"", "0000803f", "1.0"},
        {"\"float\"", "cdcccc3d", "0.10000000149011612"},
        {"\"double\"", "000000000000f03f", "1.0"},
        {"\"double\"", "9a9999999999b93f", "0.1"},
        {"\"double\"", "000000000000f07f", "Infinity"},
        {"\"double\"", "000000000000f0ff", "-Infinity"},
        {"\"double\"", "000000000000f87f", "NaN"},
        {"\"double\"", "0000000000003043", "4503599627370496.0"},
        {"\"string\"", "06666f6f", "\"foo\""},
        {"\"string\"", "04c3a9", "\"\xc3\xa9\""},
        {"\"string\"", "02ff", "\"\\u00ff\""}, /* not UTF-8: escaped byte */
        {"\"bytes\"", "0600ff22", "\"\\u0000\\u00ff\\\"\""},
        {"{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}", "615c", "\"a\\\\\""},
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}", "04", "\"C\""},
        /* spec: array of longs [3, 27] */
        {"{\"type\":\"array\",\"items\":\"long\"}", "04063600", "[3,27]"},
        {"{\"type\":\"array\",\"items\":\"long\"}", "00", "[]"},
        {"{\"type\":\"map\",\"values\":\"long\"}", "0402613602620000", "{\"a\":27,\"b\":0}"},
        /* spec: union ["null","string"]: null, then "a" */
        {"[\"null\",\"string\"]", "00", "null"},
        {"[\"null\",\"string\"]", "020261", "\"a\""},
        /* spec: record {a: long, b: string} = {a: 27, b: "foo"} */
        {"{\"type\":\"record\",\"name\":\"test\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"},"
         "{\"name\":\"b\",\"type\":\"string\"}]}",
         "3606666f6f", "{\"a\":27,\"b\":\"foo\"}"},
        {"{\"type\":\"record\",\"name\":\"E\",\"fields\":[]}", "", "{}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t bytes[64];
        size_t len = strlen(cases[i].hex) / 2;
        for (size_t k = 0; k < len; k++)
            sscanf(cases[i].hex + 2 * k, "%2hhx", &bytes[k]);
        struct decoded d;
        struct basalt_error err;
        basalt_status st = decode_hex(cases[i].schema, bytes, len, &d, &err);
        if (st != BASALT_OK) {
            decoded_free(&d);
            CHECK_MSG(false, "case %zu (%s): %s", i, cases[i].schema, err.message);
        }
        const char *json = json_of(&d.value, 0);
        bool same_json = strcmp(json, cases[i].json) == 0;
        struct basalt_buffer enc;
        basalt_buffer_init(&enc);
        st = basalt_avro_value_encode(&d.value, &enc, &err);
        bool same_bytes = st == BASALT_OK && enc.size == len && (len == 0 || memcmp(enc.data, bytes, len) == 0);
        basalt_buffer_reset(&enc);
        decoded_free(&d);
        CHECK_MSG(same_json, "case %zu: json %s, expected %s", i, json, cases[i].json);
        CHECK_MSG(same_bytes, "case %zu: re-encoding differs", i);
    }
}

TEST(binary_union_wrap_json)
{
    const char *schema = "[\"null\",{\"type\":\"record\",\"name\":\"ns.R\",\"fields\":[{\"name\":\"x\","
                         "\"type\":[\"int\",\"string\"]}]}]";
    const uint8_t bytes[] = {0x02, 0x02, 0x02, 0x61};
    struct decoded d;
    struct basalt_error err;
    CHECK_OK(decode_hex(schema, bytes, sizeof bytes, &d, &err), &err);
    CHECK_STR(json_of(&d.value, BASALT_AVRO_JSON_UNION_WRAP), "{\"ns.R\":{\"x\":{\"string\":\"a\"}}}");
    CHECK_STR(json_of(&d.value, 0), "{\"x\":\"a\"}");
    CHECK_EQ(d.value.index, 1);
    CHECK_EQ(d.value.branch->items[0].index, 1);
    decoded_free(&d);
}

/* Negative-count blocks carry their byte size; both forms decode alike. */
TEST(binary_blocks_with_sizes)
{
    const char *schema = "{\"type\":\"array\",\"items\":\"string\"}";
    /* block of -2 items, 5 bytes: "ab", "c"; then block of 1 item "d"; end */
    const uint8_t bytes[] = {0x03, 0x0a, 0x04, 'a', 'b', 0x02, 'c', 0x02, 0x02, 'd', 0x00};
    struct decoded d;
    struct basalt_error err;
    CHECK_OK(decode_hex(schema, bytes, sizeof bytes, &d, &err), &err);
    CHECK_STR(json_of(&d.value, 0), "[\"ab\",\"c\",\"d\"]");
    decoded_free(&d);
    size_t used = 0;
    struct basalt_avro_schema *s;
    CHECK_OK(basalt_avro_schema_parse(schema, strlen(schema), NULL, &s, &err), &err);
    CHECK_OK(basalt_avro_value_skip(basalt_avro_schema_root(s), bytes, sizeof bytes, NULL, &used, &err),
             &err);
    CHECK_EQ(used, sizeof bytes);
    basalt_avro_schema_free(s);
}

/* Every strict prefix of a valid encoding is CORRUPT, never a crash. */
TEST(binary_truncation_is_corrupt)
{
    const char *schema =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
        "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"s\",\"type\":\"string\"},"
        "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"u\",\"type\":[\"null\",\"float\"]},"
        "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"boolean\"}},"
        "{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":3}},"
        "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"X\",\"Y\"]}}]}";
    const uint8_t bytes[] = {0x80, 0x01, 0x04, 'h', 'i', 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,
                             0x02, 0, 0, 0x80, 0x3f, 0x02, 0x02, 'k', 0x01, 0x00,
                             'x', 'y', 'z', 0x02};
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(schema, strlen(schema), NULL, &s, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    struct basalt_avro_value v;
    size_t used;
    CHECK_OK(basalt_avro_value_decode(basalt_avro_schema_root(s), bytes, sizeof bytes, NULL, &arena,
                                      &v, &used, &err),
             &err);
    CHECK_EQ(used, sizeof bytes);
    CHECK_STR(json_of(&v, 0), "{\"a\":64,\"s\":\"hi\",\"d\":1.0,\"u\":1.0,\"m\":{\"k\":true},"
                              "\"f\":\"xyz\",\"e\":\"Y\"}");
    for (size_t n = 0; n < sizeof bytes; n++) {
        basalt_status st = basalt_avro_value_decode(basalt_avro_schema_root(s), bytes, n, NULL,
                                                    &arena, &v, &used, &err);
        CHECK_MSG(st == BASALT_CORRUPT, "prefix %zu: %s", n, basalt_status_name(st));
        st = basalt_avro_value_skip(basalt_avro_schema_root(s), bytes, n, NULL, &used, &err);
        CHECK_MSG(st == BASALT_CORRUPT, "skip prefix %zu: %s", n, basalt_status_name(st));
    }
    basalt_arena_reset(&arena);
    basalt_avro_schema_free(s);
}

static basalt_status decode_bytes(const char *schema, const uint8_t *bytes, size_t len,
                                  const struct basalt_avro_limits *limits, struct basalt_error *err)
{
    struct basalt_avro_schema *s;
    basalt_status st = basalt_avro_schema_parse(schema, strlen(schema), NULL, &s, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    struct basalt_avro_value v;
    st = basalt_avro_value_decode(basalt_avro_schema_root(s), bytes, len, limits, &arena, &v, NULL,
                                  err);
    basalt_status st2 = basalt_avro_value_skip(basalt_avro_schema_root(s), bytes, len, limits, NULL,
                                               NULL);
    basalt_arena_reset(&arena);
    basalt_avro_schema_free(s);
    /* skip and decode agree on malformed input (skip builds nothing, so it
     * cannot hit the item limit) */
    if (st != st2 && st != BASALT_LIMIT)
        return basalt_error_set(err, BASALT_INTERNAL, "decode %s but skip %s",
                                basalt_status_name(st), basalt_status_name(st2));
    return st;
}

TEST(binary_malformed_lengths_and_counts)
{
    struct basalt_error err;
    /* negative string length */
    const uint8_t neg[] = {0x01};
    CHECK_STATUS(decode_bytes("\"string\"", neg, 1, NULL, &err), BASALT_CORRUPT, &err);
    /* huge string length */
    const uint8_t huge[] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    CHECK_STATUS(decode_bytes("\"bytes\"", huge, sizeof huge, NULL, &err), BASALT_CORRUPT, &err);
    /* varint longer than 10 bytes */
    const uint8_t long11[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    CHECK_STATUS(decode_bytes("\"long\"", long11, sizeof long11, NULL, &err), BASALT_CORRUPT, &err);
    /* an int outside 32 bits */
    const uint8_t big_int[] = {0x80, 0x80, 0x80, 0x80, 0x10};
    CHECK_STATUS(decode_bytes("\"int\"", big_int, sizeof big_int, NULL, &err), BASALT_CORRUPT, &err);
    /* array claiming 2^62 longs */
    const uint8_t many[] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00};
    CHECK_STATUS(decode_bytes("{\"type\":\"array\",\"items\":\"long\"}", many, sizeof many, NULL, &err),
                 BASALT_CORRUPT, &err);
    /* INT64_MIN block count */
    const uint8_t minimum[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00};
    CHECK_STATUS(decode_bytes("{\"type\":\"array\",\"items\":\"long\"}", minimum, sizeof minimum, NULL,
                              &err),
                 BASALT_CORRUPT, &err);
    /* 2^62 nulls take no bytes: the item limit stops them */
    CHECK_STATUS(decode_bytes("{\"type\":\"array\",\"items\":\"null\"}", many, sizeof many, NULL, &err),
                 BASALT_LIMIT, &err);
    /* union branch and enum index out of range, negative */
    const uint8_t two[] = {0x04};
    CHECK_STATUS(decode_bytes("[\"null\",\"int\"]", two, 1, NULL, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "union branch 2 out of range") != NULL);
    const uint8_t minus[] = {0x01};
    CHECK_STATUS(decode_bytes("[\"null\",\"int\"]", minus, 1, NULL, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(decode_bytes("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]}", two, 1, NULL,
                              &err),
                 BASALT_CORRUPT, &err);
    /* negative block size */
    const uint8_t negsize[] = {0x01, 0x01, 0x02, 0x00};
    CHECK_STATUS(decode_bytes("{\"type\":\"array\",\"items\":\"long\"}", negsize, sizeof negsize, NULL,
                              &err),
                 BASALT_CORRUPT, &err);
}

TEST(binary_depth_limit)
{
    const char *schema = "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"next\","
                         "\"type\":[\"null\",\"L\"]}]}";
    /* 300 links then null: 2 per level, deeper than the default 128 */
    uint8_t bytes[301];
    memset(bytes, 0x02, 300);
    bytes[300] = 0x00;
    struct basalt_error err;
    CHECK_STATUS(decode_bytes(schema, bytes, sizeof bytes, NULL, &err), BASALT_LIMIT, &err);
    struct basalt_avro_limits lim = {.max_depth = 1000};
    CHECK_OK(decode_bytes(schema, bytes, sizeof bytes, &lim, &err), &err);
    CHECK_OK(decode_bytes(schema, bytes + 290, 11, NULL, &err), &err);
}

TEST(value_from_json_defaults_form)
{
    const char *schema =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
        "{\"name\":\"a\",\"type\":\"int\",\"default\":5},"
        "{\"name\":\"b\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"c\",\"type\":\"bytes\"},"
        "{\"name\":\"d\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}},"
        "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"P\",\"Q\"]}},"
        "{\"name\":\"f\",\"type\":{\"type\":\"map\",\"values\":\"double\"}},"
        "{\"name\":\"g\",\"type\":{\"type\":\"array\",\"items\":\"float\"}},"
        "{\"name\":\"h\",\"type\":[\"string\",\"long\"]}]}";
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(schema, strlen(schema), NULL, &s, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    struct basalt_avro_value v;
    const char *json = "{\"c\":\"\\u0000\\u00ff\",\"d\":\"ab\",\"e\":\"Q\",\"f\":{\"x\":1.5},"
                       "\"g\":[1,2.5],\"h\":7}";
    CHECK_OK(basalt_avro_value_from_json(basalt_avro_schema_root(s), json, strlen(json), &arena, &v,
                                         &err),
             &err);
    CHECK_STR(json_of(&v, 0), "{\"a\":5,\"b\":null,\"c\":\"\\u0000\\u00ff\",\"d\":\"ab\",\"e\":\"Q\","
                              "\"f\":{\"x\":1.5},\"g\":[1.0,2.5],\"h\":7}");
    /* the union took its second branch: the JSON did not fit the first */
    CHECK_EQ(v.items[7].index, 1);
    struct basalt_buffer enc;
    basalt_buffer_init(&enc);
    CHECK_OK(basalt_avro_value_encode(&v, &enc, &err), &err);
    static const uint8_t want[] = {0x0a, 0x00, 0x04, 0x00, 0xff, 'a', 'b', 0x02, 0x02, 0x02, 'x',
                                   0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x00, 0x04, 0, 0, 0x80, 0x3f,
                                   0, 0, 0x20, 0x40, 0x00, 0x02, 0x0e};
    CHECK_EQ(enc.size, sizeof want);
    CHECK_MEM(enc.data, want, sizeof want);
    basalt_buffer_reset(&enc);
    static const char *const bad[] = {
        "{\"c\":\"\\u0100\",\"d\":\"ab\",\"e\":\"Q\",\"f\":{},\"g\":[],\"h\":1}",
        "{\"c\":\"\",\"d\":\"abc\",\"e\":\"Q\",\"f\":{},\"g\":[],\"h\":1}",
        "{\"c\":\"\",\"d\":\"ab\",\"e\":\"Z\",\"f\":{},\"g\":[],\"h\":1}",
        "{\"c\":\"\",\"d\":\"ab\",\"e\":\"Q\",\"f\":{},\"g\":[],\"h\":true}",
        "{\"d\":\"ab\",\"e\":\"Q\",\"f\":{},\"g\":[],\"h\":1}",
        "{\"a\":3000000000,\"c\":\"\",\"d\":\"ab\",\"e\":\"Q\",\"f\":{},\"g\":[],\"h\":1}",
        "[1,2",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_STATUS(basalt_avro_value_from_json(basalt_avro_schema_root(s), bad[i], strlen(bad[i]),
                                                 &arena, &v, &err),
                     BASALT_CORRUPT, &err);
    basalt_arena_reset(&arena);
    basalt_avro_schema_free(s);
}

TEST(value_encode_rejects_misfits)
{
    const char *schema = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"i\",\"type\":"
                         "\"int\"},{\"name\":\"u\",\"type\":[\"null\",\"int\"]}]}";
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(schema, strlen(schema), NULL, &s, &err), &err);
    const struct basalt_avro_node *r = basalt_avro_schema_root(s);
    struct basalt_avro_value items[2], branch;
    memset(items, 0, sizeof items);
    memset(&branch, 0, sizeof branch);
    items[0].node = r->fields[0].type;
    items[0].i = (int64_t)1 << 40;
    items[1].node = r->fields[1].type;
    items[1].index = 1;
    branch.node = r->fields[1].type->branches[1];
    items[1].branch = &branch;
    struct basalt_avro_value rec = {.node = r, .count = 2, .items = items};
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    CHECK_STATUS(basalt_avro_value_encode(&rec, &out, &err), BASALT_INVALID_ARG, &err);
    CHECK_EQ(out.size, 0);
    items[0].i = 7;
    items[1].index = 5;
    CHECK_STATUS(basalt_avro_value_encode(&rec, &out, &err), BASALT_INVALID_ARG, &err);
    items[1].index = 0; /* branch value is an int, not null */
    CHECK_STATUS(basalt_avro_value_encode(&rec, &out, &err), BASALT_INVALID_ARG, &err);
    items[1].index = 1;
    CHECK_OK(basalt_avro_value_encode(&rec, &out, &err), &err);
    CHECK_EQ(out.size, 3);
    basalt_buffer_reset(&out);
    basalt_avro_schema_free(s);
}

struct sweep_ctx {
    struct basalt_avro_schema *schema;
    const uint8_t *bytes;
    size_t len;
};

static basalt_status decode_attempt(void *p)
{
    struct sweep_ctx *c = p;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 64);
    struct basalt_avro_value v;
    basalt_status st = basalt_avro_value_decode(basalt_avro_schema_root(c->schema), c->bytes, c->len,
                                                NULL, &arena, &v, NULL, NULL);
    if (st == BASALT_OK) {
        struct basalt_buffer b;
        basalt_buffer_init(&b);
        st = basalt_avro_value_to_json(&v, BASALT_AVRO_JSON_UNION_WRAP, &b, NULL);
        if (st == BASALT_OK)
            st = basalt_avro_value_encode(&v, &b, NULL);
        basalt_buffer_reset(&b);
    }
    basalt_arena_reset(&arena);
    return st;
}

TEST(value_decode_allocation_failures)
{
    const char *schema = "{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":[\"null\","
                         "\"string\"]}}";
    struct sweep_ctx c;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(schema, strlen(schema), NULL, &c.schema, &err), &err);
    static const uint8_t bytes[] = {0x04, 0x02, 'a', 0x04, 0x00, 0x02, 0x02, 'x', 0x00,
                                    0x02, 'b', 0x00, 0x00};
    c.bytes = bytes;
    c.len = sizeof bytes;
    CHECK_OK(decode_attempt(&c), NULL);
    CHECK_ALLOC_SWEEP(decode_attempt, &c);
    basalt_avro_schema_free(c.schema);
}
