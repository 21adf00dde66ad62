/* View changes: ViewRequirements and ViewUpdates applied to view metadata.
 * The expected documents are written out by hand from the view spec and the
 * REST spec's update definitions (ids, reuse, the version log, retention),
 * not produced by the code under test. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_view.h"
#include "test.h"

#define UUID "fa6506c3-7681-40c8-86dc-e36561f83385"

/* A view made by hand-written updates: one schema, version 1 current. */
static const char create_updates[] =
    "[{\"action\":\"assign-uuid\",\"uuid\":\"" UUID "\"},"
    "{\"action\":\"upgrade-format-version\",\"format-version\":1},"
    "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":7,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}},"
    "{\"action\":\"set-location\",\"location\":\"s3://bucket/wh/ns/v\"},"
    "{\"action\":\"set-properties\",\"updates\":{\"comment\":\"first\"}},"
    "{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":1,\"timestamp-ms\":1000,"
    "\"schema-id\":-1,\"summary\":{\"engine-name\":\"spark\"},\"representations\":["
    "{\"type\":\"sql\",\"sql\":\"SELECT 1 AS id\",\"dialect\":\"spark\"}],"
    "\"default-namespace\":[\"ns\"]}},"
    "{\"action\":\"set-current-view-version\",\"view-version-id\":-1}]";

/* What the view spec says that metadata is: the schema gets id 0 (the
 * first), the log names version 1 at the version's own time. */
static const char created_expected[] =
    "{\"format-version\":1,\"view-uuid\":\"" UUID "\",\"location\":\"s3://bucket/wh/ns/v\","
    "\"properties\":{\"comment\":\"first\"},"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}],"
    "\"current-version-id\":1,"
    "\"versions\":[{\"version-id\":1,\"timestamp-ms\":1000,\"schema-id\":0,"
    "\"summary\":{\"engine-name\":\"spark\"},\"representations\":["
    "{\"type\":\"sql\",\"sql\":\"SELECT 1 AS id\",\"dialect\":\"spark\"}],"
    "\"default-namespace\":[\"ns\"]}],"
    "\"version-log\":[{\"timestamp-ms\":1000,\"version-id\":1}]}";

static json_t *apply(const struct basalt_iceberg_view_metadata *base, const char *updates,
                     int64_t now, basalt_status *st, struct basalt_error *err)
{
    char *text = NULL;
    *st = basalt_iceberg_view_apply_updates(base, updates, now, &text, NULL, err);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    basalt_free(text);
    return j;
}

static struct basalt_iceberg_view_metadata *parse(const char *text)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    if (basalt_iceberg_view_metadata_parse(text, strlen(text), "test", &v, &err) != BASALT_OK)
        printf("  %s\n", err.message);
    return v;
}

/* An empty identifier-field-ids list is the same as none (the writer
 * writes it always). */
static void drop_empty_identifiers(json_t *doc)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(doc, "schemas"), i, s)
    {
        if (json_array_size(json_object_get(s, "identifier-field-ids")) == 0)
            json_object_del(s, "identifier-field-ids");
    }
}

static bool equal_to(json_t *got, const char *expected)
{
    json_t *want = json_loads(expected, 0, NULL);
    drop_empty_identifiers(got);
    bool same = got && want && json_equal(got, want);
    if (!same && got) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        printf("  got: %s\n", g ? g : "?");
        free(g);
    }
    json_decref(want);
    return same;
}

TEST(view_create_by_updates_matches_the_spec)
{
    struct basalt_error err;
    basalt_status st;
    json_t *got = apply(NULL, create_updates, 5000, &st, &err);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    CHECK(equal_to(got, created_expected));
    json_decref(got);
}

TEST(view_replace_adds_a_version_and_logs_it)
{
    struct basalt_error err;
    basalt_status st;
    struct basalt_iceberg_view_metadata *base = parse(created_expected);
    CHECK(base != NULL);
    /* A new schema (a second column) and a version sent with id 1 (taken:
     * it becomes 2), schema -1 (the one just added: id 1). */
    json_t *got = apply(
        base,
        "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"x\",\"required\":false,\"type\":\"string\"}]}},"
        "{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":1,\"timestamp-ms\":2000,"
        "\"schema-id\":-1,\"summary\":{\"engine-name\":\"spark\"},\"representations\":["
        "{\"type\":\"sql\",\"sql\":\"SELECT 1 AS id, 'a' AS x\",\"dialect\":\"spark\"}],"
        "\"default-namespace\":[\"ns\"]}},"
        "{\"action\":\"set-current-view-version\",\"view-version-id\":-1},"
        "{\"action\":\"remove-properties\",\"removals\":[\"comment\",\"absent\"]}]",
        6000, &st, &err);
    basalt_iceberg_view_metadata_free(base);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    CHECK(equal_to(
        got,
        "{\"format-version\":1,\"view-uuid\":\"" UUID "\",\"location\":\"s3://bucket/wh/ns/v\","
        "\"properties\":{},"
        "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]},"
        "{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"x\",\"required\":false,\"type\":\"string\"}]}],"
        "\"current-version-id\":2,"
        "\"versions\":[{\"version-id\":1,\"timestamp-ms\":1000,\"schema-id\":0,"
        "\"summary\":{\"engine-name\":\"spark\"},\"representations\":["
        "{\"type\":\"sql\",\"sql\":\"SELECT 1 AS id\",\"dialect\":\"spark\"}],"
        "\"default-namespace\":[\"ns\"]},"
        "{\"version-id\":2,\"timestamp-ms\":2000,\"schema-id\":1,"
        "\"summary\":{\"engine-name\":\"spark\"},\"representations\":["
        "{\"type\":\"sql\",\"sql\":\"SELECT 1 AS id, 'a' AS x\",\"dialect\":\"spark\"}],"
        "\"default-namespace\":[\"ns\"]}],"
        "\"version-log\":[{\"timestamp-ms\":1000,\"version-id\":1},"
        "{\"timestamp-ms\":2000,\"version-id\":2}]}"));
    json_decref(got);
}

TEST(view_equal_schema_and_version_are_reused)
{
    struct basalt_error err;
    basalt_status st;
    struct basalt_iceberg_view_metadata *base = parse(created_expected);
    CHECK(base != NULL);
    /* The same schema under another id, and version 1's definition under id
     * 9 and another time: both reused; going back to a version that is
     * already current logs nothing. */
    json_t *got = apply(
        base,
        "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":4,"
        "\"identifier-field-ids\":[],\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}},"
        "{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":9,\"timestamp-ms\":3000,"
        "\"schema-id\":-1,\"summary\":{\"engine-name\":\"spark\"},\"representations\":["
        "{\"type\":\"sql\",\"sql\":\"SELECT 1 AS id\",\"dialect\":\"spark\"}],"
        "\"default-namespace\":[\"ns\"]}},"
        "{\"action\":\"set-current-view-version\",\"view-version-id\":-1}]",
        7000, &st, &err);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    CHECK(equal_to(got, created_expected));
    json_decref(got);
    /* Back to an older version: logged at the change's time. */
    char *text = NULL;
    CHECK_EQ(basalt_iceberg_view_apply_updates(
                 base,
                 "[{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":1,"
                 "\"timestamp-ms\":3000,\"schema-id\":0,\"summary\":{},\"representations\":["
                 "{\"type\":\"sql\",\"sql\":\"SELECT 2\",\"dialect\":\"trino\"}],"
                 "\"default-namespace\":[]}},"
                 "{\"action\":\"set-current-view-version\",\"view-version-id\":-1}]",
                 8000, &text, NULL, &err),
             BASALT_OK);
    struct basalt_iceberg_view_metadata *second = parse(text);
    basalt_free(text);
    CHECK(second != NULL);
    got = apply(second, "[{\"action\":\"set-current-view-version\",\"view-version-id\":1}]",
                9000, &st, &err);
    basalt_iceberg_view_metadata_free(second);
    basalt_iceberg_view_metadata_free(base);
    CHECK_EQ(st, BASALT_OK);
    json_t *log = json_object_get(got, "version-log");
    CHECK_EQ(json_array_size(log), 3);
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(log, 1), "version-id")), 2);
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(log, 1), "timestamp-ms")), 3000);
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(log, 2), "version-id")), 1);
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(log, 2), "timestamp-ms")), 9000);
    CHECK_EQ(json_integer_value(json_object_get(got, "current-version-id")), 1);
    json_decref(got);
}

/* A version of `sql` sent with id 1 and schema 0. */
static void add_version_update(char *buf, size_t cap, const char *sql, int64_t ts)
{
    snprintf(buf, cap,
             "{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":1,"
             "\"timestamp-ms\":%lld,\"schema-id\":0,\"summary\":{},\"representations\":["
             "{\"type\":\"sql\",\"sql\":\"%s\",\"dialect\":\"spark\"}],"
             "\"default-namespace\":[]}},"
             "{\"action\":\"set-current-view-version\",\"view-version-id\":-1}",
             (long long)ts, sql);
}

TEST(view_versions_beyond_the_history_size_are_dropped)
{
    struct basalt_error err;
    basalt_status st;
    struct basalt_iceberg_view_metadata *v = parse(created_expected);
    CHECK(v != NULL);
    /* num-entries 2: after versions 2 and 3, version 1 goes, and with it
     * the log entries up to the last one that named it. */
    char updates[2048], one[600], two[600];
    add_version_update(one, sizeof one, "SELECT 2", 2000);
    add_version_update(two, sizeof two, "SELECT 3", 3000);
    snprintf(updates, sizeof updates,
             "[{\"action\":\"set-properties\",\"updates\":{\"version.history.num-entries\":"
             "\"2\"}},%s,%s]",
             one, two);
    json_t *got = apply(v, updates, 9000, &st, &err);
    basalt_iceberg_view_metadata_free(v);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    /* Both added by this change: the two are kept whatever the size. */
    CHECK_EQ(json_array_size(json_object_get(got, "versions")), 2);
    CHECK(equal_to(json_object_get(got, "version-log"),
                   "[{\"timestamp-ms\":3000,\"version-id\":3}]"));
    CHECK_EQ(json_integer_value(json_object_get(got, "current-version-id")), 3);
    char *text = json_dumps(got, 0);
    json_decref(got);
    v = parse(text);
    free(text);
    CHECK(v != NULL);
    /* Back to 2, then a new 4: kept are the current (4) and the highest
     * other id (3); 2 goes, so the log keeps what came after its last entry. */
    add_version_update(one, sizeof one, "SELECT 4", 4000);
    snprintf(updates, sizeof updates,
             "[{\"action\":\"set-current-view-version\",\"view-version-id\":2},%s]", one);
    got = apply(v, updates, 9500, &st, &err);
    basalt_iceberg_view_metadata_free(v);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    json_t *versions = json_object_get(got, "versions");
    CHECK_EQ(json_array_size(versions), 2);
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(versions, 0), "version-id")), 3);
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(versions, 1), "version-id")), 4);
    /* One change sets 2 and then 4: only the final current version is logged. */
    CHECK(equal_to(json_object_get(got, "version-log"),
                   "[{\"timestamp-ms\":3000,\"version-id\":3},"
                   "{\"timestamp-ms\":4000,\"version-id\":4}]"));
    json_decref(got);
}

TEST(view_updates_that_do_not_apply)
{
    struct basalt_error err;
    basalt_status st;
    struct basalt_iceberg_view_metadata *base = parse(created_expected);
    CHECK(base != NULL);
    json_t *got;
    got = apply(base, "[{\"action\":\"set-current-view-version\",\"view-version-id\":-1}]", 1,
                &st, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG);
    got = apply(base, "[{\"action\":\"set-current-view-version\",\"view-version-id\":5}]", 1,
                &st, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG);
    got = apply(base,
                "[{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":1,"
                "\"timestamp-ms\":1,\"schema-id\":0,\"summary\":{},\"representations\":["
                "{\"type\":\"sql\",\"sql\":\"SELECT 1\",\"dialect\":\"spark\"},"
                "{\"type\":\"sql\",\"sql\":\"SELECT 2\",\"dialect\":\"Spark\"}],"
                "\"default-namespace\":[]}}]",
                1, &st, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "dialect") != NULL);
    got = apply(base,
                "[{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":1,"
                "\"timestamp-ms\":1,\"schema-id\":-1,\"summary\":{},\"representations\":[],"
                "\"default-namespace\":[]}}]",
                1, &st, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG); /* no schema added */
    got = apply(base,
                "[{\"action\":\"add-view-version\",\"view-version\":{\"version-id\":1,"
                "\"timestamp-ms\":1,\"schema-id\":3,\"summary\":{},\"representations\":[],"
                "\"default-namespace\":[]}}]",
                1, &st, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG); /* no schema 3 */
    got = apply(base, "[{\"action\":\"upgrade-format-version\",\"format-version\":2}]", 1, &st,
                &err);
    CHECK_EQ(st, BASALT_UNSUPPORTED);
    got = apply(base, "[{\"action\":\"add-snapshot\",\"snapshot\":{}}]", 1, &st, &err);
    CHECK_EQ(st, BASALT_UNSUPPORTED);
    got = apply(base, "[{\"action\":\"set-properties\",\"updates\":{\"version.history.num-entries\":"
                      "\"0\"}}]",
                1, &st, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG);
    got = apply(base, "{}", 1, &st, &err);
    CHECK_EQ(st, BASALT_CORRUPT);
    /* A new view needs a location and a current version. */
    got = apply(NULL,
                "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":[]}}]", 1,
                &st, &err);
    CHECK_EQ(st, BASALT_INVALID_ARG);
    CHECK(got == NULL);
    basalt_iceberg_view_metadata_free(base);
}

TEST(view_requirements)
{
    struct basalt_error err;
    struct basalt_iceberg_view_metadata *base = parse(created_expected);
    CHECK(base != NULL);
    CHECK_EQ(basalt_iceberg_view_check_requirements(base, NULL, &err), BASALT_OK);
    CHECK_EQ(basalt_iceberg_view_check_requirements(
                 base, "[{\"type\":\"assert-view-uuid\",\"uuid\":\"" UUID "\"}]", &err),
             BASALT_OK);
    CHECK_EQ(basalt_iceberg_view_check_requirements(
                 base, "[{\"type\":\"assert-view-uuid\",\"uuid\":\"FA6506C3-7681-40C8-86DC-E36561F83385\"}]", &err),
             BASALT_OK);
    CHECK_EQ(basalt_iceberg_view_check_requirements(
                 base, "[{\"type\":\"assert-view-uuid\",\"uuid\":\"00000000-7681-40c8-86dc-e36561f83385\"}]",
                 &err),
             BASALT_CONFLICT);
    CHECK_EQ(basalt_iceberg_view_check_requirements(
                 NULL, "[{\"type\":\"assert-view-uuid\",\"uuid\":\"" UUID "\"}]", &err),
             BASALT_CONFLICT);
    CHECK_EQ(basalt_iceberg_view_check_requirements(
                 base, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"" UUID "\"}]", &err),
             BASALT_CORRUPT);
    CHECK_EQ(basalt_iceberg_view_check_requirements(base, "[{\"type\":\"assert-view-uuid\"}]",
                                                    &err),
             BASALT_CORRUPT);
    basalt_iceberg_view_metadata_free(base);
}

TEST(view_updates_from_a_definition)
{
    struct basalt_error err;
    struct basalt_iceberg_kv props[] = {{"owner", "ana"}};
    struct basalt_iceberg_view_definition def = {
        .schema_json = "{\"type\":\"struct\",\"schema-id\":3,\"fields\":[{\"id\":1,\"name\":"
                       "\"n\",\"required\":false,\"type\":\"int\"}]}",
        .sql = "SELECT n FROM t",
        .default_namespace = "a.b",
        .properties = props,
        .n_properties = 1,
    };
    char *updates = NULL, *text = NULL, *reqs = NULL;
    CHECK_EQ(basalt_iceberg_view_create_updates(&def, "/wh/a/b/v", 1234, &updates, &err),
             BASALT_OK);
    CHECK_EQ(basalt_iceberg_view_apply_updates(NULL, updates, 99, &text, NULL, &err), BASALT_OK);
    basalt_free(updates);
    struct basalt_iceberg_view_metadata *v = parse(text);
    basalt_free(text);
    CHECK(v != NULL);
    const struct basalt_iceberg_view_version *cur = basalt_iceberg_view_metadata_current_version(v);
    CHECK_EQ(cur->version_id, 1);
    CHECK_EQ(cur->timestamp_ms, 1234);
    CHECK_EQ(cur->schema_id, 0);
    CHECK_STR(cur->representations[0].sql, "SELECT n FROM t");
    CHECK_STR(cur->representations[0].dialect, "spark");
    CHECK_EQ(cur->n_default_namespace, 2);
    CHECK_STR(cur->default_namespace[1], "b");
    CHECK_STR(v->location, "/wh/a/b/v");
    CHECK_EQ(v->n_properties, 1);
    CHECK_EQ(v->n_version_log, 1);
    CHECK_EQ(v->version_log[0].timestamp_ms, 1234);

    /* A replace: the next id, the old one kept, the uuid asserted. */
    def.sql = "SELECT n + 1 AS n FROM t";
    def.dialect = "trino";
    def.n_properties = 0;
    CHECK_EQ(basalt_iceberg_view_replace_updates(v, &def, 5678, &reqs, &updates, &err),
             BASALT_OK);
    CHECK_EQ(basalt_iceberg_view_check_requirements(v, reqs, &err), BASALT_OK);
    CHECK(strstr(reqs, v->view_uuid) != NULL);
    CHECK_EQ(basalt_iceberg_view_apply_updates(v, updates, 99, &text, NULL, &err), BASALT_OK);
    basalt_free(reqs);
    basalt_free(updates);
    basalt_iceberg_view_metadata_free(v);
    v = parse(text);
    basalt_free(text);
    CHECK(v != NULL);
    CHECK_EQ(v->n_versions, 2);
    CHECK_EQ(v->current_version_id, 2);
    CHECK_EQ(v->n_schemas, 1); /* the same schema */
    CHECK_STR(basalt_iceberg_view_metadata_current_version(v)->representations[0].dialect,
              "trino");
    CHECK_EQ(v->n_version_log, 2);
    CHECK_EQ(v->version_log[1].timestamp_ms, 5678);
    basalt_iceberg_view_metadata_free(v);

    def.sql = NULL;
    CHECK_EQ(basalt_iceberg_view_create_updates(&def, "/wh", 1, &updates, &err),
             BASALT_INVALID_ARG);
    def.sql = "SELECT 1";
    def.default_namespace = "a..b";
    CHECK_EQ(basalt_iceberg_view_create_updates(&def, "/wh", 1, &updates, &err),
             BASALT_INVALID_ARG);
    def.default_namespace = NULL;
    def.schema_json = "[]";
    CHECK_EQ(basalt_iceberg_view_create_updates(&def, "/wh", 1, &updates, &err),
             BASALT_INVALID_ARG);
}
