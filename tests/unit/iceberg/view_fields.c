/* Field-by-field checks of parsed view metadata against values read in the
 * JSON fixtures, inline documents for each validation rule, gzip input, and
 * allocation failures. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "basalt/iceberg_view.h"
#include "test.h"

#define VALID_VIEW "iceberg/metadata-json/apache-iceberg/view/ValidViewMetadata.json"

static bool field_is(const struct basalt_iceberg_field *f, int32_t id, const char *name,
                     bool required, enum basalt_iceberg_type_id type)
{
    return f && f->id == id && strcmp(f->name, name) == 0 && f->required == required &&
           f->type.id == type;
}

static void check_valid_view(const struct basalt_iceberg_view_metadata *v)
{
    CHECK_EQ(v->format_version, 1);
    CHECK_STR(v->view_uuid, "fa6506c3-7681-40c8-86dc-e36561f83385");
    CHECK_STR(v->location, "s3://bucket/test/location");
    /* properties, sorted by key */
    CHECK_EQ(v->n_properties, 2);
    CHECK_STR(v->properties[0].key, "comment");
    CHECK_STR(v->properties[0].value, "some-comment");
    CHECK_STR(v->properties[1].key, "some-key");
    CHECK_STR(v->properties[1].value, "some-value");
    /* "current-schema-id" is not a view metadata field: kept as unknown */
    CHECK_STR(v->unknown_keys_json, "{\"current-schema-id\":0}");

    CHECK_EQ(v->n_schemas, 1);
    const struct basalt_iceberg_schema *s = &v->schemas[0];
    CHECK_EQ(s->schema_id, 0);
    CHECK_EQ(s->root.id, BASALT_ICEBERG_TYPE_STRUCT);
    CHECK_EQ(s->root.n_fields, 3);
    CHECK(field_is(&s->root.fields[0], 1, "x", true, BASALT_ICEBERG_TYPE_LONG));
    CHECK(field_is(&s->root.fields[1], 2, "y", true, BASALT_ICEBERG_TYPE_LONG));
    CHECK(field_is(&s->root.fields[2], 3, "z", true, BASALT_ICEBERG_TYPE_LONG));
    CHECK(s->root.fields[0].doc == NULL);
    CHECK_STR(s->root.fields[1].doc, "comment");
    CHECK(basalt_iceberg_schema_field(s, 2) == &s->root.fields[1]);

    CHECK_EQ(v->current_version_id, 2);
    CHECK_EQ(v->n_versions, 2);
    const struct basalt_iceberg_view_version *v1 = &v->versions[0], *v2 = &v->versions[1];
    CHECK_EQ(v1->version_id, 1);
    CHECK_EQ(v1->timestamp_ms, 4353);
    CHECK_EQ(v1->schema_id, 0);
    CHECK_EQ(v1->n_summary, 1);
    CHECK_STR(v1->summary[0].key, "user");
    CHECK_STR(v1->summary[0].value, "some-user");
    CHECK_STR(v1->default_catalog, "some-catalog");
    CHECK_EQ(v1->n_default_namespace, 0);
    CHECK_EQ(v1->n_representations, 1);
    CHECK_STR(v1->representations[0].type, "sql");
    CHECK_STR(v1->representations[0].sql, "select 'foo' foo");
    CHECK_STR(v1->representations[0].dialect, "spark-sql");
    CHECK(v1->representations[0].json == NULL);
    CHECK_EQ(v2->version_id, 2);
    CHECK_EQ(v2->timestamp_ms, 5555);
    CHECK_EQ(v2->schema_id, 0);
    CHECK_EQ(v2->n_summary, 1);
    CHECK_STR(v2->summary[0].value, "some-user");
    CHECK_STR(v2->default_catalog, "some-catalog");
    CHECK_EQ(v2->n_default_namespace, 0);
    CHECK_EQ(v2->n_representations, 1);
    CHECK_STR(v2->representations[0].sql, "select 1 id, 'abc' data");
    CHECK_STR(v2->representations[0].dialect, "spark-sql");

    CHECK_EQ(v->n_version_log, 2);
    CHECK_EQ(v->version_log[0].timestamp_ms, 4353);
    CHECK_EQ(v->version_log[0].version_id, 1);
    CHECK_EQ(v->version_log[1].timestamp_ms, 5555);
    CHECK_EQ(v->version_log[1].version_id, 2);

    CHECK(basalt_iceberg_view_metadata_current_version(v) == v2);
    CHECK(basalt_iceberg_view_metadata_version(v, 1) == v1);
    CHECK(basalt_iceberg_view_metadata_version(v, 3) == NULL);
    CHECK(basalt_iceberg_view_metadata_current_schema(v) == s);
    CHECK(basalt_iceberg_view_metadata_schema(v, 0) == s);
    CHECK(basalt_iceberg_view_metadata_schema(v, 1) == NULL);
}

TEST(view_valid_fields)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_view_metadata_read_file(bt_testdata_path(VALID_VIEW), &v, &err), &err);
    check_valid_view(v);
    basalt_iceberg_view_metadata_free(v);
}

TEST(view_rust_v1_valid_fields)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_view_metadata_read_file(
                 bt_testdata_path("iceberg/metadata-json/iceberg-rust/view_metadata/"
                                "ViewMetadataV1Valid.json"),
                 &v, &err),
             &err);
    bool ok = v->current_version_id == 1 && v->n_versions == 1 &&
              strcmp(v->location, "s3://bucket/warehouse/default.db/event_agg") == 0 &&
              v->versions[0].timestamp_ms == 1573518431292LL && v->versions[0].schema_id == 1 &&
              strcmp(v->versions[0].default_catalog, "prod") == 0 &&
              v->versions[0].n_default_namespace == 1 &&
              strcmp(v->versions[0].default_namespace[0], "default") == 0 &&
              v->versions[0].n_summary == 2 &&
              strcmp(v->versions[0].summary[0].key, "engine-name") == 0 &&
              strcmp(v->versions[0].summary[0].value, "Spark") == 0 &&
              strcmp(v->versions[0].summary[1].key, "engineVersion") == 0 &&
              strcmp(v->versions[0].summary[1].value, "3.3.2") == 0 &&
              strcmp(v->versions[0].representations[0].sql,
                     "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM events\nGROUP BY 2") == 0 &&
              strcmp(v->versions[0].representations[0].dialect, "spark") == 0 &&
              v->n_schemas == 1 && v->schemas[0].schema_id == 1 &&
              field_is(&v->schemas[0].root.fields[0], 1, "event_count", false,
                       BASALT_ICEBERG_TYPE_INT) &&
              field_is(&v->schemas[0].root.fields[1], 2, "event_date", false,
                       BASALT_ICEBERG_TYPE_DATE) &&
              strcmp(v->unknown_keys_json, "{}") == 0;
    basalt_iceberg_view_metadata_free(v);
    CHECK(ok);
}

TEST(view_multiple_sqls_for_dialect_kept)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_view_metadata_read_file(
                 bt_testdata_path("iceberg/metadata-json/apache-iceberg/view/"
                                "ViewMetadataMultipleSQLsForDialect.json"),
                 &v, &err),
             &err);
    const struct basalt_iceberg_view_version *cur = basalt_iceberg_view_metadata_current_version(v);
    bool ok = cur && cur->n_representations == 2 &&
              strcmp(cur->representations[0].sql, "select 'foo' foo") == 0 &&
              strcmp(cur->representations[1].sql, "select * from foo") == 0 &&
              strcmp(cur->representations[1].dialect, "spark-sql") == 0;
    basalt_iceberg_view_metadata_free(v);
    CHECK(ok);
}

/* ------------------------------------------------------- inline documents */

/* A valid document with `extra` spliced in at the top level and the first
 * version's body given by `version`. */
static basalt_status parse_doc(const char *top, const char *version,
                               struct basalt_iceberg_view_metadata **out, struct basalt_error *err)
{
    char doc[4096];
    snprintf(doc, sizeof doc,
             "{%s\"view-uuid\":\"u\",\"location\":\"s3://b/v\",\"current-version-id\":1,"
             "\"schemas\":[{\"type\":\"struct\",\"schema-id\":5,\"fields\":[{\"id\":1,"
             "\"name\":\"a\",\"required\":false,\"type\":\"string\"}]}],"
             "\"versions\":[{%s}],\"version-log\":[{\"timestamp-ms\":7,\"version-id\":1}]}",
             top, version);
    return basalt_iceberg_view_metadata_parse(doc, strlen(doc), "inline.json", out, err);
}

#define GOOD_VERSION                                                                        \
    "\"version-id\":1,\"timestamp-ms\":7,\"schema-id\":5,\"summary\":{},"                   \
    "\"default-namespace\":[\"a\",\"b\"],\"representations\":[{\"type\":\"sql\","        \
    "\"sql\":\"select 1\",\"dialect\":\"trino\"}]"

static void expect_fail(const char *top, const char *version, basalt_status status,
                        const char *message)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = parse_doc(top, version, &v, &err);
    basalt_iceberg_view_metadata_free(v);
    CHECK_MSG(st == status, "expected %s, got %s: %s", basalt_status_name(status),
              basalt_status_name(st), err.message);
    CHECK(v == NULL);
    CHECK_MSG(strstr(err.message, message) != NULL, "'%s' lacks '%s'", err.message, message);
    CHECK_MSG(strncmp(err.message, "inline.json: ", 13) == 0, "%s", err.message);
}

TEST(view_inline_valid)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    CHECK_OK(parse_doc("\"format-version\":1,", GOOD_VERSION, &v, &err), &err);
    bool ok = v->n_properties == 0 && v->versions[0].default_catalog == NULL &&
              v->versions[0].n_default_namespace == 2 &&
              strcmp(v->versions[0].default_namespace[1], "b") == 0 &&
              strcmp(v->versions[0].representations[0].dialect, "trino") == 0;
    basalt_iceberg_view_metadata_free(v);
    CHECK(ok);
}

TEST(view_inline_refusals)
{
    expect_fail("", GOOD_VERSION, BASALT_CORRUPT, "missing 'format-version'");
    expect_fail("\"format-version\":0,", GOOD_VERSION, BASALT_UNSUPPORTED,
                "view format-version 0");
    expect_fail("\"format-version\":1,",
                "\"version-id\":1,\"timestamp-ms\":7,\"summary\":{},"
                "\"default-namespace\":[],\"representations\":[]",
                BASALT_CORRUPT, "versions[0]: missing 'schema-id'");
    expect_fail("\"format-version\":1,",
                "\"version-id\":1,\"timestamp-ms\":7,\"schema-id\":5,\"summary\":{},"
                "\"representations\":[]",
                BASALT_CORRUPT, "versions[0]: missing 'default-namespace'");
    expect_fail("\"format-version\":1,",
                "\"version-id\":1,\"timestamp-ms\":7,\"schema-id\":5,"
                "\"default-namespace\":[],\"representations\":[]",
                BASALT_CORRUPT, "versions[0]: missing 'summary'");
    expect_fail("\"format-version\":1,",
                "\"version-id\":1,\"timestamp-ms\":7,\"schema-id\":5,\"summary\":{},"
                "\"default-namespace\":[],\"representations\":[{\"type\":\"sql\",\"sql\":\"x\"}]",
                BASALT_CORRUPT, "versions[0]: representations[0]: missing 'dialect'");
    expect_fail("\"format-version\":1,",
                "\"version-id\":1,\"timestamp-ms\":\"7\",\"schema-id\":5,\"summary\":{},"
                "\"default-namespace\":[],\"representations\":[]",
                BASALT_CORRUPT, "versions[0]: 'timestamp-ms' is not an integer");
    expect_fail("\"format-version\":1,",
                "\"version-id\":1,\"timestamp-ms\":7,\"schema-id\":5,\"summary\":{},"
                "\"default-namespace\":[3],\"representations\":[]",
                BASALT_CORRUPT, "versions[0]: default-namespace[0]: not a string");
    expect_fail("\"format-version\":1,", GOOD_VERSION "},{" GOOD_VERSION, BASALT_CORRUPT,
                "versions[1]: version id 1 is used twice");
}

TEST(view_inline_view_uuid_required)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    const char doc[] = "{\"format-version\":1,\"location\":\"l\",\"current-version-id\":1,"
                       "\"schemas\":[],\"versions\":[],\"version-log\":[]}";
    basalt_status st = basalt_iceberg_view_metadata_parse(doc, strlen(doc), "nouuid", &v, &err);
    CHECK_EQ(st, BASALT_CORRUPT);
    CHECK_MSG(strstr(err.message, "nouuid: missing 'view-uuid'") != NULL, "%s", err.message);
    CHECK(v == NULL);
}

TEST(view_unknown_representation_round_trip)
{
    struct basalt_iceberg_view_metadata *v = NULL, *again = NULL;
    struct basalt_error err;
    CHECK_OK(parse_doc("\"format-version\":1,\"x-extra\":[1,2],",
                       "\"version-id\":1,\"timestamp-ms\":7,\"schema-id\":5,\"summary\":{},"
                       "\"default-namespace\":[],\"representations\":[{\"type\":\"substrait\","
                       "\"plan\":\"AAE=\"},{\"type\":\"SQL\",\"sql\":\"s\",\"dialect\":\"d\"}]",
                       &v, &err),
             &err);
    char *json = NULL;
    size_t len = 0;
    basalt_status st1 = basalt_iceberg_view_metadata_to_json(v, &json, &len, &err);
    basalt_status st2 = st1 == BASALT_OK
                            ? basalt_iceberg_view_metadata_parse(json, len, "again", &again, &err)
                            : st1;
    const struct basalt_iceberg_view_representation *r = v->versions[0].representations;
    bool first = strcmp(r[0].type, "substrait") == 0 && r[0].sql == NULL &&
                 strcmp(r[0].json, "{\"plan\":\"AAE=\",\"type\":\"substrait\"}") == 0;
    bool second = strcmp(r[1].type, "SQL") == 0 && strcmp(r[1].sql, "s") == 0 && !r[1].json;
    bool kept = strcmp(v->unknown_keys_json, "{\"x-extra\":[1,2]}") == 0 && again &&
                strcmp(again->unknown_keys_json, v->unknown_keys_json) == 0 &&
                strcmp(again->versions[0].representations[0].json, r[0].json) == 0 &&
                json && strstr(json, "\"x-extra\"") != NULL;
    basalt_iceberg_view_metadata_free(v);
    basalt_iceberg_view_metadata_free(again);
    basalt_free(json);
    CHECK_EQ(st1, BASALT_OK);
    CHECK_EQ(st2, BASALT_OK);
    CHECK(first);
    CHECK(second);
    CHECK(kept);
}

TEST(view_bad_arguments_and_json)
{
    struct basalt_iceberg_view_metadata *v = (void *)1;
    struct basalt_error err;
    CHECK_STATUS(basalt_iceberg_view_metadata_parse(NULL, 3, "x", &v, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK(v == NULL);
    CHECK_STATUS(basalt_iceberg_view_metadata_parse("{}", 2, "x", NULL, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK_STATUS(basalt_iceberg_view_metadata_parse("{\"format", 8, "trunc.json", &v, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strncmp(err.message, "trunc.json: invalid JSON", 24) == 0);
    CHECK_STATUS(basalt_iceberg_view_metadata_parse("[1]", 3, "arr", &v, &err), BASALT_CORRUPT,
                 &err);
    CHECK_STATUS(basalt_iceberg_view_metadata_read_file("/nonexistent/v.json", &v, &err),
                 BASALT_IO, &err);
    char *out = NULL;
    CHECK_STATUS(basalt_iceberg_view_metadata_to_json(NULL, &out, NULL, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_iceberg_view_metadata_free(NULL);
}

/* ------------------------------------------------------------------- gzip */

static uint8_t *gzip_copy(const uint8_t *data, size_t len, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&zs, (uLong)len) + 64;
    uint8_t *out = basalt_malloc(cap);
    if (!out) {
        deflateEnd(&zs);
        return NULL;
    }
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    int rc = deflate(&zs, Z_FINISH);
    *out_len = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        basalt_free(out);
        return NULL;
    }
    return out;
}

TEST(view_gzip_input)
{
    size_t len = 0, glen = 0;
    uint8_t *plain = bt_read_file(bt_testdata_path(VALID_VIEW), &len);
    CHECK(plain != NULL);
    uint8_t *gz = gzip_copy(plain, len, &glen);
    basalt_free(plain);
    CHECK(gz != NULL && gz[0] == 0x1f && gz[1] == 0x8b);
    struct basalt_iceberg_view_metadata *v = NULL, *cut = NULL;
    struct basalt_error err, err2;
    basalt_error_init(&err2);
    basalt_status st = basalt_iceberg_view_metadata_parse(gz, glen, "v.gz.metadata.json", &v, &err);
    basalt_status st2 = basalt_iceberg_view_metadata_parse(gz, glen / 2, "cut.gz", &cut, &err2);
    basalt_free(gz);
    basalt_iceberg_view_metadata_free(cut);
    if (st == BASALT_OK)
        check_valid_view(v);
    basalt_iceberg_view_metadata_free(v);
    CHECK_EQ(st, BASALT_OK);
    CHECK_EQ(st2, BASALT_CORRUPT);
    CHECK(strncmp(err2.message, "cut.gz", 6) == 0);
}

/* ------------------------------------------------------ allocation sweep */

struct sweep_ctx {
    const uint8_t *data;
    size_t len;
};

static basalt_status sweep_attempt(void *arg)
{
    struct sweep_ctx *c = arg;
    struct basalt_iceberg_view_metadata *v = NULL;
    basalt_status st = basalt_iceberg_view_metadata_parse(c->data, c->len, "sweep", &v, NULL);
    char *json = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_view_metadata_to_json(v, &json, NULL, NULL);
    basalt_free(json);
    basalt_iceberg_view_metadata_free(v);
    return st;
}

TEST(view_alloc_failures)
{
    struct sweep_ctx c;
    uint8_t *data = bt_read_file(bt_testdata_path(VALID_VIEW), &c.len);
    CHECK(data != NULL);
    c.data = data;
    int64_t n = bt_alloc_failure_sweep(__FILE__, __LINE__, sweep_attempt, &c);
    basalt_free(data);
    CHECK(n > 1);
}
