/* Schema parsing, Parsing Canonical Form, fingerprints and validation, against
 * the Apache Avro test files in the shared corpus. */
#include <dirent.h>
#include <stdlib.h>

#include "avro_internal.h"
#include "test.h"

static basalt_status parse(const char *json, struct basalt_avro_schema **out,
                           struct basalt_error *err)
{
    return basalt_avro_schema_parse(json, strlen(json), NULL, out, err);
}

/* share/test/data/schema-tests.txt: "<<INPUT text" or a block ending in a
 * line "INPUT", then "<<canonical text" and optionally "<<fingerprint N". */
struct schema_case {
    char input[4096];
    char canonical[4096];
    char fingerprint[32];
};

static char *read_block(char *line, const char *tag, char *dst, size_t cap, char **cursor)
{
    size_t taglen = strlen(tag);
    char *rest = line + taglen;
    if (*rest == ' ') {
        snprintf(dst, cap, "%s", rest + 1);
        return dst;
    }
    /* multi-line: until a line equal to the tag name without "<<" */
    dst[0] = '\0';
    char *next;
    while ((next = strsep(cursor, "\n")) != NULL) {
        if (strcmp(next, tag + 2) == 0)
            break;
        strncat(dst, next, cap - strlen(dst) - 2);
        strcat(dst, "\n");
    }
    return dst;
}

TEST(schema_canonical_form_and_fingerprints)
{
    size_t len;
    char *text = (char *)bt_read_file(
        bt_testdata_path("avro/apache-avro/share/test/data/schema-tests.txt"), &len);
    CHECK_MSG(text != NULL, "schema-tests.txt not found");
    char *buf = basalt_malloc(len + 1);
    memcpy(buf, text, len);
    buf[len] = '\0';
    basalt_free(text);
    struct schema_case *c = basalt_calloc(1, sizeof *c);
    int cases = 0, fingerprints = 0;
    char *cursor = buf, *line;
    bool have = false;
    bool ok = true;
    for (;;) {
        line = strsep(&cursor, "\n");
        bool flush = !line || strncmp(line, "// ", 3) == 0;
        if (flush && have) {
            struct basalt_avro_schema *s = NULL;
            struct basalt_error err;
            basalt_status st = parse(c->input, &s, &err);
            if (st != BASALT_OK) {
                bt_fail(__FILE__, __LINE__, "case %d: parse failed: %s", cases, err.message);
                ok = false;
            } else {
                const char *canon = basalt_avro_schema_canonical(s, NULL);
                if (strcmp(canon, c->canonical) != 0) {
                    bt_fail(__FILE__, __LINE__, "case %d: canonical %s, expected %s", cases, canon,
                            c->canonical);
                    ok = false;
                }
                if (c->fingerprint[0]) {
                    int64_t want = strtoll(c->fingerprint, NULL, 10);
                    if ((int64_t)basalt_avro_schema_fingerprint(s) != want) {
                        bt_fail(__FILE__, __LINE__, "case %d: fingerprint %" PRId64 " != %s",
                                cases, (int64_t)basalt_avro_schema_fingerprint(s), c->fingerprint);
                        ok = false;
                    }
                    fingerprints++;
                }
                /* The canonical form is itself a schema with the same form. */
                struct basalt_avro_schema *again = NULL;
                if (parse(canon, &again, &err) != BASALT_OK ||
                    strcmp(basalt_avro_schema_canonical(again, NULL), canon) != 0) {
                    bt_fail(__FILE__, __LINE__, "case %d: canonical form does not reparse", cases);
                    ok = false;
                }
                basalt_avro_schema_free(again);
            }
            basalt_avro_schema_free(s);
            cases++;
            have = false;
            memset(c, 0, sizeof *c);
        }
        if (!line)
            break;
        if (strncmp(line, "<<INPUT", 7) == 0) {
            read_block(line, "<<INPUT", c->input, sizeof c->input, &cursor);
            have = true;
        } else if (strncmp(line, "<<canonical", 11) == 0) {
            read_block(line, "<<canonical", c->canonical, sizeof c->canonical, &cursor);
        } else if (strncmp(line, "<<fingerprint", 13) == 0) {
            read_block(line, "<<fingerprint", c->fingerprint, sizeof c->fingerprint, &cursor);
        }
    }
    basalt_free(c);
    basalt_free(buf);
    CHECK(ok);
    CHECK_EQ(cases, 34);
    CHECK(fingerprints >= 20);
}

static int run_dir(const char *rel, bool expect_ok, int *count)
{
    const char *dir_path = bt_testdata_path(rel);
    DIR *dir = opendir(dir_path);
    if (!dir)
        return -1;
    char dpath[1024];
    snprintf(dpath, sizeof dpath, "%s", dir_path);
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dpath, e->d_name);
        size_t len;
        uint8_t *text = bt_read_file(path, &len);
        if (!text)
            continue;
        struct basalt_avro_schema *s = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_avro_schema_parse((const char *)text, len, NULL, &s, &err);
        (*count)++;
        if (expect_ok && st != BASALT_OK) {
            bt_fail(__FILE__, __LINE__, "%s: expected to parse: %s", e->d_name, err.message);
            bad++;
        } else if (!expect_ok && st != BASALT_CORRUPT) {
            bt_fail(__FILE__, __LINE__, "%s: expected CORRUPT, got %s", e->d_name,
                    basalt_status_name(st));
            bad++;
        } else if (!expect_ok && err.message[0] == '\0') {
            bt_fail(__FILE__, __LINE__, "%s: rejected without a message", e->d_name);
            bad++;
        }
        basalt_avro_schema_free(s);
        basalt_free(text);
    }
    closedir(dir);
    return bad;
}

TEST(schema_pass_cases_parse)
{
    int count = 0;
    CHECK_EQ(run_dir("avro/apache-avro/lang/c/tests/schema_tests/pass", true, &count), 0);
    CHECK_EQ(count, 28);
}

TEST(schema_fail_cases_rejected)
{
    int count = 0;
    CHECK_EQ(run_dir("avro/apache-avro/lang/c/tests/schema_tests/fail", false, &count), 0);
    CHECK_EQ(count, 12);
}

/* Each invalid schema is rejected with a message naming the problem. */
TEST(schema_error_messages)
{
    static const struct {
        const char *json;
        const char *message_part;
    } cases[] = {
        {"{\"type\":\"record\",\"name\":\"Address\",\"fields\":[{\"name\":\"City\"}]}",
         "field 'City' of record 'Address': missing type"},
        {"{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"type\":\"int\"}]}", "missing name"},
        {"{\"type\":\"panther\"}", "unknown type 'panther'"},
        {"{\"type\":\"enum\",\"name\":\"2d2\",\"symbols\":[\"c3po\"]}", "invalid name '2d2'"},
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"A\"]}", "symbol 'A' appears twice"},
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"default\":\"B\"}",
         "default is not one of its symbols"},
        {"{\"type\":\"fixed\",\"name\":\"F\"}", "size must be an integer"},
        {"{\"type\":\"fixed\",\"name\":\"F\",\"size\":-1}", "invalid size -1"},
        {"[\"int\",\"int\"]", "union contains int twice"},
        {"[\"int\",[\"long\"]]", "a union may not contain a union"},
        {"{\"type\":\"array\"}", "array without items"},
        {"{\"type\":\"map\",\"items\":\"int\"}", "map without values"},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
         "{\"name\":\"a\",\"type\":\"int\"}]}",
         "field 'a' appears twice"},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"R\"},"
         "{\"name\":\"b\",\"type\":{\"type\":\"record\",\"name\":\"R\",\"fields\":[]}}]}",
         "type 'R' is defined twice"},
        {"{\"type\":\"record\",\"name\":\"int\",\"fields\":[]}", "primitive type"},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\","
         "\"order\":\"up\"}]}",
         "invalid order"},
        {"{\"type\":\"record\",\"name\":\"R\"}", "fields must be an array"},
        {"42", "a schema must be a type name"},
        {"{\"type\":\"int\"", "not valid JSON"},
        {"", "not valid JSON"},
        {"{\"type\":\"int\",\"type\":\"long\"}", "not valid JSON"}, /* duplicate key */
        {"{\"type\":\"record\",\"name\":\"a..b\",\"fields\":[]}", "invalid namespace"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_avro_schema *s = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = parse(cases[i].json, &s, &err);
        CHECK_MSG(st == BASALT_CORRUPT, "case %zu (%s): got %s", i, cases[i].json,
                  basalt_status_name(st));
        CHECK_MSG(strstr(err.message, cases[i].message_part) != NULL,
                  "case %zu: message '%s' lacks '%s'", i, err.message, cases[i].message_part);
        CHECK(s == NULL);
    }
}

TEST(schema_depth_limit)
{
    /* 100 nested arrays: over the default limit of 64. */
    char json[4096] = "";
    for (int i = 0; i < 100; i++)
        strcat(json, "{\"type\":\"array\",\"items\":");
    strcat(json, "\"int\"");
    for (int i = 0; i < 100; i++)
        strcat(json, "}");
    struct basalt_avro_schema *s = NULL;
    struct basalt_error err;
    CHECK_STATUS(parse(json, &s, &err), BASALT_LIMIT, &err);
    struct basalt_avro_schema_options opt;
    basalt_avro_schema_options_init(&opt);
    opt.max_depth = 200;
    CHECK_OK(basalt_avro_schema_parse(json, strlen(json), &opt, &s, &err), &err);
    CHECK_EQ(basalt_avro_schema_node_count(s), 101);
    basalt_avro_schema_free(s);
}

TEST(schema_names_and_namespaces)
{
    size_t len;
    uint8_t *text = bt_read_file(
        bt_testdata_path("avro/apache-avro/lang/c/tests/schema_tests/pass/namespace_recursive"),
        &len);
    CHECK(text != NULL);
    struct basalt_avro_schema *s = NULL;
    struct basalt_error err;
    basalt_status st = basalt_avro_schema_parse((const char *)text, len, NULL, &s, &err);
    basalt_free(text);
    CHECK_OK(st, &err);
    const struct basalt_avro_node *outer = basalt_avro_schema_find(s, "namespace1.MutuallyRecursive");
    const struct basalt_avro_node *inner = basalt_avro_schema_find(s, "namespace2.MutuallyRecursive");
    CHECK(outer && inner && outer != inner);
    CHECK_STR(outer->short_name, "MutuallyRecursive");
    CHECK_STR(inner->space, "namespace2");
    /* namespace2's "children" refers back to namespace1's type by full name,
     * "morechildren" to its own by short name. */
    CHECK(inner->fields[1].type->items == outer);
    CHECK(inner->fields[2].type->items == inner);
    CHECK(outer->fields[2].type == inner);
    basalt_avro_schema_free(s);

    /* Explicit empty namespace: "Z" is in the null namespace. */
    const char *nul = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"s\",\"type\":"
                      "{\"type\":\"record\",\"namespace\":\"x\",\"name\":\"Y\",\"fields\":[{\"name\":"
                      "\"e\",\"type\":{\"type\":\"enum\",\"namespace\":\"\",\"name\":\"Z\","
                      "\"symbols\":[\"A\"]}}]}},{\"name\":\"t\",\"type\":\"Z\"}]}";
    CHECK_OK(parse(nul, &s, &err), &err);
    CHECK(basalt_avro_schema_find(s, "Z") != NULL);
    CHECK(basalt_avro_schema_find(s, "x.Y") != NULL);
    CHECK(basalt_avro_schema_find(s, "x.Z") == NULL);
    CHECK_STR(basalt_avro_schema_canonical(s, NULL),
              "{\"name\":\"R\",\"type\":\"record\",\"fields\":[{\"name\":\"s\",\"type\":{\"name\":"
              "\"x.Y\",\"type\":\"record\",\"fields\":[{\"name\":\"e\",\"type\":{\"name\":\"Z\","
              "\"type\":\"enum\",\"symbols\":[\"A\"]}}]}},{\"name\":\"t\",\"type\":\"Z\"}]}");
    basalt_avro_schema_free(s);

    /* Java reflection names are accepted only when lenient. */
    const char *reflect = "{\"type\":\"record\",\"name\":\"Job$Text\",\"fields\":[]}";
    CHECK_STATUS(parse(reflect, &s, &err), BASALT_CORRUPT, &err);
    struct basalt_avro_schema_options opt;
    basalt_avro_schema_options_init(&opt);
    opt.lenient_names = true;
    CHECK_OK(basalt_avro_schema_parse(reflect, strlen(reflect), &opt, &s, &err), &err);
    CHECK_STR(basalt_avro_schema_root(s)->name, "Job$Text");
    basalt_avro_schema_free(s);
}

TEST(schema_aliases_defaults_props)
{
    const char *json =
        "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"ns\",\"aliases\":[\"Old\",\"o.Older\"],"
        "\"doc\":\"a record\",\"field-owner\":\"me\",\"fields\":["
        "{\"name\":\"a\",\"type\":\"int\",\"default\":7,\"aliases\":[\"x\"],\"field-id\":3,"
        "\"order\":\"descending\",\"doc\":\"the a\"},"
        "{\"name\":\"b\",\"type\":[\"null\",\"string\"],\"default\":null},"
        "{\"name\":\"c\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"P\",\"Q\"],"
        "\"default\":\"Q\"}}]}";
    struct basalt_avro_schema *s = NULL;
    struct basalt_error err;
    CHECK_OK(parse(json, &s, &err), &err);
    const struct basalt_avro_node *r = basalt_avro_schema_root(s);
    CHECK_STR(r->name, "ns.R");
    CHECK_EQ(r->alias_count, 2);
    CHECK_STR(r->aliases[0], "ns.Old");
    CHECK_STR(r->aliases[1], "o.Older");
    CHECK_STR(r->doc, "a record");
    CHECK_STR(basalt_avro_node_prop(r, "field-owner"), "\"me\"");
    CHECK_STR(r->fields[0].default_json, "7");
    CHECK_STR(basalt_avro_field_prop(&r->fields[0], "field-id"), "3");
    CHECK_EQ(r->fields[0].order, BASALT_AVRO_ORDER_DESCENDING);
    CHECK_STR(r->fields[0].aliases[0], "x");
    CHECK_STR(r->fields[1].default_json, "null");
    CHECK(r->fields[2].default_json == NULL);
    CHECK_STR(r->fields[2].type->name, "ns.E");
    CHECK_EQ(r->fields[2].type->enum_default, 1);
    CHECK_EQ(basalt_avro_node_field_index(r, "c"), 2);
    CHECK_EQ(basalt_avro_node_field_index(r, "zz"), -1);
    basalt_avro_schema_free(s);
}

TEST(schema_logical_types)
{
    static const struct {
        const char *json;
        enum basalt_avro_logical logical;
    } cases[] = {
        {"{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}",
         BASALT_AVRO_LOGICAL_DECIMAL},
        {"{\"type\":\"fixed\",\"name\":\"d\",\"size\":8,\"logicalType\":\"decimal\","
         "\"precision\":18}",
         BASALT_AVRO_LOGICAL_DECIMAL},
        /* 8 bytes hold at most 18 digits */
        {"{\"type\":\"fixed\",\"name\":\"d\",\"size\":8,\"logicalType\":\"decimal\","
         "\"precision\":19}",
         BASALT_AVRO_LOGICAL_NONE},
        {"{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":2,\"scale\":3}",
         BASALT_AVRO_LOGICAL_NONE},
        {"{\"type\":\"bytes\",\"logicalType\":\"decimal\"}", BASALT_AVRO_LOGICAL_NONE},
        {"{\"type\":\"string\",\"logicalType\":\"uuid\"}", BASALT_AVRO_LOGICAL_UUID},
        {"{\"type\":\"fixed\",\"name\":\"u\",\"size\":16,\"logicalType\":\"uuid\"}",
         BASALT_AVRO_LOGICAL_UUID},
        {"{\"type\":\"long\",\"logicalType\":\"uuid\"}", BASALT_AVRO_LOGICAL_NONE},
        {"{\"type\":\"int\",\"logicalType\":\"date\"}", BASALT_AVRO_LOGICAL_DATE},
        {"{\"type\":\"long\",\"logicalType\":\"date\"}", BASALT_AVRO_LOGICAL_NONE},
        {"{\"type\":\"int\",\"logicalType\":\"time-millis\"}", BASALT_AVRO_LOGICAL_TIME_MILLIS},
        {"{\"type\":\"long\",\"logicalType\":\"time-micros\"}", BASALT_AVRO_LOGICAL_TIME_MICROS},
        {"{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}",
         BASALT_AVRO_LOGICAL_TIMESTAMP_MILLIS},
        {"{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}",
         BASALT_AVRO_LOGICAL_TIMESTAMP_MICROS},
        {"{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}",
         BASALT_AVRO_LOGICAL_TIMESTAMP_NANOS},
        {"{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}",
         BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS},
        {"{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}",
         BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS},
        {"{\"type\":\"long\",\"logicalType\":\"local-timestamp-nanos\"}",
         BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS},
        {"{\"type\":\"fixed\",\"name\":\"dur\",\"size\":12,\"logicalType\":\"duration\"}",
         BASALT_AVRO_LOGICAL_DURATION},
        {"{\"type\":\"fixed\",\"name\":\"dur\",\"size\":11,\"logicalType\":\"duration\"}",
         BASALT_AVRO_LOGICAL_NONE},
        {"{\"type\":\"long\",\"logicalType\":\"no-such-type\"}", BASALT_AVRO_LOGICAL_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_avro_schema *s = NULL;
        struct basalt_error err;
        CHECK_OK(parse(cases[i].json, &s, &err), &err);
        const struct basalt_avro_node *n = basalt_avro_schema_root(s);
        CHECK_MSG(n->logical == cases[i].logical, "case %zu: logical %d, expected %d", i,
                  (int)n->logical, (int)cases[i].logical);
        /* Logical types do not change the canonical form. */
        const char *canon = basalt_avro_schema_canonical(s, NULL);
        CHECK(strstr(canon, "logicalType") == NULL);
        CHECK(basalt_avro_node_prop(n, "logicalType") != NULL);
        basalt_avro_schema_free(s);
    }
    struct basalt_avro_schema *s = NULL;
    struct basalt_error err;
    CHECK_OK(parse(cases[0].json, &s, &err), &err);
    CHECK_EQ(basalt_avro_schema_root(s)->precision, 9);
    CHECK_EQ(basalt_avro_schema_root(s)->scale, 2);
    CHECK_STR(basalt_avro_logical_name(BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS),
              "local-timestamp-nanos");
    basalt_avro_schema_free(s);
}

/* The full JSON form reparses to the same schema, keeping every attribute. */
TEST(schema_full_json_round_trip)
{
    size_t len;
    uint8_t *text = bt_read_file(
        bt_testdata_path("avro/apache-avro/share/test/schemas/interop.avsc"), &len);
    CHECK(text != NULL);
    struct basalt_avro_schema *s = NULL, *again = NULL;
    struct basalt_error err;
    basalt_status st = basalt_avro_schema_parse((const char *)text, len, NULL, &s, &err);
    basalt_free(text);
    CHECK_OK(st, &err);
    for (int pretty = 0; pretty < 2; pretty++) {
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        CHECK_OK(basalt_avro_schema_to_json(s, pretty, &out, &err), &err);
        st = basalt_avro_schema_parse((const char *)out.data, out.size, NULL, &again, &err);
        basalt_buffer_reset(&out);
        CHECK_OK(st, &err);
        CHECK_STR(basalt_avro_schema_canonical(again, NULL), basalt_avro_schema_canonical(s, NULL));
        CHECK_EQ(basalt_avro_schema_node_count(again), basalt_avro_schema_node_count(s));
        basalt_avro_schema_free(again);
    }
    basalt_avro_schema_free(s);

    const char *json =
        "{\"type\":\"error\",\"name\":\"E\",\"namespace\":\"a.b\",\"doc\":\"d\",\"aliases\":[\"X\"],"
        "\"fields\":[{\"name\":\"f\",\"type\":{\"type\":\"long\",\"logicalType\":"
        "\"timestamp-micros\"},\"default\":1,\"order\":\"ignore\",\"aliases\":[\"g\"],"
        "\"field-id\":1},{\"name\":\"h\",\"type\":\"E\"}]}";
    CHECK_OK(parse(json, &s, &err), &err);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    CHECK_OK(basalt_avro_schema_to_json(s, false, &out, &err), &err);
    CHECK_OK(basalt_buffer_append(&out, "", 1, &err), &err);
    CHECK_STR((const char *)out.data,
              "{\"type\":\"error\",\"name\":\"E\",\"namespace\":\"a.b\",\"doc\":\"d\",\"aliases\":"
              "[\"a.b.X\"],\"fields\":[{\"name\":\"f\",\"type\":{\"type\":\"long\",\"logicalType\":"
              "\"timestamp-micros\"},\"default\":1,\"order\":\"ignore\",\"aliases\":[\"g\"],"
              "\"field-id\":1},{\"name\":\"h\",\"type\":\"E\"}]}");
    basalt_buffer_reset(&out);
    basalt_avro_schema_free(s);
}

TEST(fingerprint_known_answers)
{
    /* CRC-64-AVRO of "null" and of the empty string (the initial value). */
    CHECK_EQ((int64_t)basalt_avro_fingerprint64("\"null\"", 6), 7195948357588979594LL);
    CHECK_UEQ(basalt_avro_fingerprint64("", 0), 0xc15d213aa4d7a795ull);
}

static basalt_status parse_attempt(void *ctx)
{
    const char *json = ctx;
    struct basalt_avro_schema *s = NULL;
    basalt_status st = basalt_avro_schema_parse(json, strlen(json), NULL, &s, NULL);
    if (st == BASALT_OK) {
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        st = basalt_avro_schema_to_json(s, true, &out, NULL);
        basalt_buffer_reset(&out);
    }
    basalt_avro_schema_free(s);
    return st;
}

TEST(schema_parse_allocation_failures)
{
    size_t len;
    uint8_t *text = bt_read_file(
        bt_testdata_path("avro/apache-avro/share/test/schemas/interop.avsc"), &len);
    CHECK(text != NULL);
    char *json = basalt_malloc(len + 1);
    memcpy(json, text, len);
    json[len] = '\0';
    basalt_free(text);
    CHECK_ALLOC_SWEEP(parse_attempt, json);
    basalt_free(json);
}
