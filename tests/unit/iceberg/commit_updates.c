/* Table changes without data: schema text, the create updates, applying
 * updates (snapshots, refs, expiry, v3 row lineage) and checking
 * requirements. Expected values are written out by hand from the spec and
 * the Java library's rules, not produced by the code under test. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "test.h"

/* The JSON member path "a/b/0/c" of a document, or NULL. */
static json_t *at(json_t *doc, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *v = doc;
    for (char *part = strtok(buf, "/"); v && part; part = strtok(NULL, "/")) {
        if (json_is_array(v))
            v = json_array_get(v, (size_t)atoi(part));
        else
            v = json_object_get(v, part);
    }
    return v;
}

static int64_t at_int(json_t *doc, const char *path)
{
    return json_integer_value(at(doc, path));
}

static const char *at_str(json_t *doc, const char *path)
{
    const char *s = json_string_value(at(doc, path));
    return s ? s : "(none)";
}

TEST(schema_text_assigns_java_fresh_ids)
{
    struct basalt_error err;
    char *json = NULL;
    CHECK_EQ(basalt_iceberg_schema_from_text(
                 "id long not null, name string comment 'who', tags list<string>, "
                 "attrs map<string, int not null>, loc struct<lat: double not null, lon: double>, "
                 "amount decimal(10, 2), h fixed[4], Ts TIMESTAMPTZ",
                 &json, &err),
             BASALT_OK);
    json_t *s = json_loads(json, 0, NULL);
    basalt_free(json);
    CHECK(s != NULL);
    /* Top level first: 1..8; then tags' element 9, attrs' key 10 and value
     * 11, loc's fields 12 and 13. */
    CHECK_EQ(at_int(s, "fields/0/id"), 1);
    CHECK(json_is_true(at(s, "fields/0/required")));
    CHECK_STR(at_str(s, "fields/0/type"), "long");
    CHECK_STR(at_str(s, "fields/1/doc"), "who");
    CHECK(json_is_false(at(s, "fields/1/required")));
    CHECK_EQ(at_int(s, "fields/2/id"), 3);
    CHECK_EQ(at_int(s, "fields/2/type/element-id"), 9);
    CHECK(json_is_false(at(s, "fields/2/type/element-required")));
    CHECK_EQ(at_int(s, "fields/3/type/key-id"), 10);
    CHECK_EQ(at_int(s, "fields/3/type/value-id"), 11);
    CHECK(json_is_true(at(s, "fields/3/type/value-required")));
    CHECK_EQ(at_int(s, "fields/4/type/fields/0/id"), 12);
    CHECK_EQ(at_int(s, "fields/4/type/fields/1/id"), 13);
    CHECK(json_is_true(at(s, "fields/4/type/fields/0/required")));
    CHECK_STR(at_str(s, "fields/5/type"), "decimal(10, 2)");
    CHECK_STR(at_str(s, "fields/6/type"), "fixed[4]");
    CHECK_STR(at_str(s, "fields/7/type"), "timestamptz");
    CHECK_STR(at_str(s, "fields/7/name"), "Ts");
    json_decref(s);
}

TEST(schema_text_errors_name_the_place)
{
    struct basalt_error err;
    char *json = NULL;
    CHECK_EQ(basalt_iceberg_schema_from_text("id long, x lng", &json, &err), BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "unknown type 'lng'") && strstr(err.message, "character 12"));
    CHECK_EQ(basalt_iceberg_schema_from_text("d decimal(40, 2)", &json, &err), BASALT_INVALID_ARG);
    CHECK_EQ(basalt_iceberg_schema_from_text("l list<int", &json, &err), BASALT_INVALID_ARG);
    CHECK_EQ(basalt_iceberg_schema_from_text("", &json, &err), BASALT_INVALID_ARG);
    CHECK(json == NULL);
}

/* A new table's metadata from text, parsed into `doc`. */
static basalt_status new_table(const char *schema_text, const char *partition, const char *sort,
                               int version, json_t **doc, struct basalt_error *err)
{
    char *schema = NULL, *updates = NULL, *meta = NULL;
    size_t len = 0;
    struct basalt_iceberg_kv props[] = {{"owner", "tests"}};
    basalt_status st = basalt_iceberg_schema_from_text(schema_text, &schema, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, partition, sort, version, "/tmp/t", props, 1,
                                           &updates, err);
    struct basalt_iceberg_update_context ctx = {.now_ms = 1700000000000};
    if (st == BASALT_OK)
        st = basalt_iceberg_apply_updates(NULL, updates, &ctx, &meta, &len, err);
    *doc = meta ? json_loads(meta, 0, NULL) : NULL;
    basalt_free(schema);
    basalt_free(updates);
    basalt_free(meta);
    return st;
}

TEST(create_updates_build_specs_and_orders_as_java_names_them)
{
    struct basalt_error err;
    json_t *m = NULL;
    CHECK_MSG(new_table("id long not null, ts timestamptz, name string, d date",
                        "month(ts), bucket(16, id), truncate(name, 4), d, void(d)",
                        "ts desc, bucket(8, id) asc nulls last, name", 2, &m,
                        &err) == BASALT_OK,
              "%s", err.message);
    CHECK_EQ(at_int(m, "format-version"), 2);
    CHECK_STR(at_str(m, "location"), "/tmp/t");
    CHECK_STR(at_str(m, "properties/owner"), "tests");
    CHECK_EQ(at_int(m, "last-column-id"), 4);
    CHECK_EQ(at_int(m, "current-schema-id"), 0);
    CHECK_EQ(at_int(m, "default-spec-id"), 0);
    CHECK_EQ(at_int(m, "last-partition-id"), 1004);
    static const char *const names[] = {"ts_month", "id_bucket", "name_trunc", "d", "d_null"};
    static const char *const transforms[] = {"month", "bucket[16]", "truncate[4]", "identity",
                                             "void"};
    static const int sources[] = {2, 1, 3, 4, 4};
    for (int i = 0; i < 5; i++) {
        char path[64];
        snprintf(path, sizeof path, "partition-specs/0/fields/%d/name", i);
        CHECK_STR(at_str(m, path), names[i]);
        snprintf(path, sizeof path, "partition-specs/0/fields/%d/transform", i);
        CHECK_STR(at_str(m, path), transforms[i]);
        snprintf(path, sizeof path, "partition-specs/0/fields/%d/source-id", i);
        CHECK_EQ(at_int(m, path), sources[i]);
        snprintf(path, sizeof path, "partition-specs/0/fields/%d/field-id", i);
        CHECK_EQ(at_int(m, path), 1000 + i);
    }
    CHECK_EQ(at_int(m, "default-sort-order-id"), 1);
    json_t *order = at(m, "sort-orders/0");
    CHECK_EQ(at_int(order, "order-id"), 1);
    CHECK_STR(at_str(order, "fields/0/direction"), "desc");
    CHECK_STR(at_str(order, "fields/0/null-order"), "nulls-last"); /* desc default */
    CHECK_STR(at_str(order, "fields/1/transform"), "bucket[8]");
    CHECK_STR(at_str(order, "fields/1/null-order"), "nulls-last");
    CHECK_STR(at_str(order, "fields/2/null-order"), "nulls-first"); /* asc default */
    CHECK_EQ(at_int(m, "current-snapshot-id"), -1);
    CHECK(strlen(at_str(m, "table-uuid")) == 36);
    json_decref(m);
}

TEST(create_updates_refuse_bad_clauses)
{
    struct basalt_error err;
    json_t *m = NULL;
    CHECK_EQ(new_table("id long", "month(id)", NULL, 2, &m, &err), BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "month cannot apply to 'id'"));
    CHECK_EQ(new_table("id long", "bucket(id)", NULL, 2, &m, &err), BASALT_INVALID_ARG);
    CHECK_EQ(new_table("id long", "nope", NULL, 2, &m, &err), BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "no column 'nope'"));
    CHECK_EQ(new_table("id long", NULL, "id sideways", 2, &m, &err), BASALT_INVALID_ARG);
    CHECK(m == NULL);
}

TEST(unpartitioned_unsorted_table_gets_the_reserved_ids)
{
    struct basalt_error err;
    json_t *m = NULL;
    CHECK_EQ(new_table("a int", NULL, NULL, 1, &m, &err), BASALT_OK);
    CHECK_EQ(at_int(m, "format-version"), 1);
    CHECK_EQ(json_array_size(at(m, "partition-specs/0/fields")), 0);
    CHECK_EQ(at_int(m, "sort-orders/0/order-id"), 0);
    CHECK_EQ(at_int(m, "default-sort-order-id"), 0);
    CHECK_EQ(at_int(m, "last-partition-id"), 999);
    /* v1 keeps the singular forms for old readers. */
    CHECK_EQ(at_int(m, "schema/fields/0/id"), 1);
    CHECK(json_is_array(at(m, "partition-spec")));
    json_decref(m);
}

/* Applies `updates` to metadata text `base` (NULL: new). */
static basalt_status apply(const char *base_text, const char *updates, int64_t now, char **out,
                           struct basalt_error *err)
{
    struct basalt_iceberg_metadata *base = NULL;
    basalt_status st = BASALT_OK;
    if (base_text)
        st = basalt_iceberg_metadata_parse(base_text, strlen(base_text), "base", &base, err);
    struct basalt_iceberg_update_context ctx = {.now_ms = now, .base_location = "/tmp/t/m0.json"};
    if (st == BASALT_OK)
        st = basalt_iceberg_apply_updates(base, updates, &ctx, out, NULL, err);
    basalt_iceberg_metadata_free(base);
    return st;
}

static char *dump(json_t *m)
{
    char *s = json_dumps(m, JSON_COMPACT);
    char *copy = basalt_malloc(strlen(s) + 1);
    strcpy(copy, s);
    free(s);
    return copy;
}

#define SNAP(id, parent, seq, ts)                                                               \
    "{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":" #id                            \
    ",\"parent-snapshot-id\":" #parent ",\"sequence-number\":" #seq ",\"timestamp-ms\":" #ts     \
    ",\"manifest-list\":\"/tmp/t/metadata/snap-" #id ".avro\",\"summary\":{\"operation\":"       \
    "\"append\"},\"added-rows\":10}}"
#define REF(name, id)                                                                           \
    "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"" name "\",\"type\":\"branch\","            \
    "\"snapshot-id\":" #id "}"

TEST(snapshots_refs_and_logs_follow_the_spec)
{
    struct basalt_error err;
    json_t *m0 = NULL;
    CHECK_EQ(new_table("a int", NULL, NULL, 2, &m0, &err), BASALT_OK);
    char *t0 = dump(m0), *t1 = NULL, *t2 = NULL, *t3 = NULL;
    json_decref(m0);
    CHECK_MSG(apply(t0, "[" SNAP(11, null, 1, 1700000001000) "," REF("main", 11) "]",
                    1700000001500, &t1, &err) == BASALT_OK,
              "%s", err.message);
    json_t *m1 = json_loads(t1, 0, NULL);
    CHECK_EQ(at_int(m1, "current-snapshot-id"), 11);
    CHECK_EQ(at_int(m1, "last-sequence-number"), 1);
    CHECK_EQ(at_int(m1, "last-updated-ms"), 1700000001500);
    CHECK_EQ(at_int(m1, "refs/main/snapshot-id"), 11);
    CHECK_EQ(at_int(m1, "snapshot-log/0/snapshot-id"), 11);
    CHECK_EQ(at_int(m1, "snapshot-log/0/timestamp-ms"), 1700000001000);
    CHECK_STR(at_str(m1, "metadata-log/0/metadata-file"), "/tmp/t/m0.json");
    json_t *m0_again = json_loads(t0, 0, NULL);
    int64_t base_updated = at_int(m0_again, "last-updated-ms");
    json_decref(m0_again);
    CHECK_EQ(at_int(m1, "metadata-log/0/timestamp-ms"), base_updated);
    json_decref(m1);
    /* A snapshot that does not move the sequence number forward is refused. */
    CHECK_EQ(apply(t1, "[" SNAP(12, 11, 1, 1700000002000) "]", 1700000002000, &t2, &err),
             BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "sequence number 1") != NULL);
    /* A second snapshot, a tag on the first, then expire the first. */
    CHECK_EQ(apply(t1,
                   "[" SNAP(12, 11, 2, 1700000002000) "," REF("main", 12)
                   ",{\"action\":\"set-snapshot-ref\",\"ref-name\":\"v1\",\"type\":\"tag\","
                   "\"snapshot-id\":11,\"max-ref-age-ms\":5000}]",
                   1700000002500, &t2, &err),
             BASALT_OK);
    json_t *m2 = json_loads(t2, 0, NULL);
    CHECK_EQ(at_int(m2, "refs/v1/snapshot-id"), 11);
    CHECK_STR(at_str(m2, "refs/v1/type"), "tag");
    CHECK_EQ(at_int(m2, "refs/v1/max-ref-age-ms"), 5000);
    CHECK_EQ(json_array_size(at(m2, "snapshot-log")), 2);
    json_decref(m2);
    CHECK_EQ(apply(t2, "[{\"action\":\"remove-snapshots\",\"snapshot-ids\":[11]}]", 1700000003000,
                   &t3, &err),
             BASALT_OK);
    json_t *m3 = json_loads(t3, 0, NULL);
    CHECK_EQ(json_array_size(at(m3, "snapshots")), 1);
    CHECK(at(m3, "refs/v1") == NULL);              /* the tag went with its snapshot */
    CHECK_EQ(json_array_size(at(m3, "snapshot-log")), 1); /* history after the gap only */
    CHECK_EQ(at_int(m3, "snapshot-log/0/snapshot-id"), 12);
    CHECK_EQ(json_array_size(at(m3, "metadata-log")), 3);
    json_decref(m3);
    /* A ref to a snapshot that does not exist. */
    char *bad = NULL;
    CHECK_EQ(apply(t3, "[" REF("dev", 99) "]", 1700000004000, &bad, &err), BASALT_INVALID_ARG);
    CHECK(bad == NULL);
    basalt_free(t0);
    basalt_free(t1);
    basalt_free(t2);
    basalt_free(t3);
}

TEST(v3_snapshots_take_row_ids_from_next_row_id)
{
    struct basalt_error err;
    json_t *m0 = NULL;
    CHECK_EQ(new_table("a int", NULL, NULL, 3, &m0, &err), BASALT_OK);
    CHECK_EQ(at_int(m0, "next-row-id"), 0);
    char *t0 = dump(m0), *t1 = NULL, *t2 = NULL;
    json_decref(m0);
    CHECK_MSG(apply(t0, "[" SNAP(21, null, 1, 1700000001000) "," REF("main", 21) "]",
                    1700000001000, &t1, &err) == BASALT_OK,
              "%s", err.message);
    CHECK_EQ(apply(t1, "[" SNAP(22, 21, 2, 1700000002000) "," REF("main", 22) "]", 1700000002000,
                   &t2, &err),
             BASALT_OK);
    json_t *m2 = json_loads(t2, 0, NULL);
    CHECK_EQ(at_int(m2, "next-row-id"), 20);
    CHECK_EQ(at_int(m2, "snapshots/0/first-row-id"), 0);
    CHECK_EQ(at_int(m2, "snapshots/1/first-row-id"), 10);
    json_decref(m2);
    basalt_free(t0);
    basalt_free(t1);
    basalt_free(t2);
}

TEST(schema_and_spec_evolution_reuse_equal_ones)
{
    struct basalt_error err;
    json_t *m0 = NULL;
    CHECK_EQ(new_table("a int, b string", "a", NULL, 2, &m0, &err), BASALT_OK);
    char *t0 = dump(m0), *t1 = NULL;
    json_decref(m0);
    CHECK_MSG(
        apply(t0,
              "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":["
              "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"},"
              "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"string\"},"
              "{\"id\":3,\"name\":\"c\",\"required\":false,\"type\":\"double\"}]}},"
              "{\"action\":\"set-current-schema\",\"schema-id\":-1},"
              "{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"name\":\"a\",\"transform\":"
              "\"identity\",\"source-id\":1},{\"name\":\"c_bucket\",\"transform\":\"bucket[4]\","
              "\"source-id\":3}]}},{\"action\":\"set-default-spec\",\"spec-id\":-1},"
              "{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"name\":\"a\",\"transform\":"
              "\"identity\",\"source-id\":1}]}}]",
              1700000001000, &t1, &err) == BASALT_OK,
        "%s", err.message);
    json_t *m1 = json_loads(t1, 0, NULL);
    CHECK_EQ(at_int(m1, "current-schema-id"), 1);
    CHECK_EQ(at_int(m1, "last-column-id"), 3);
    CHECK_EQ(at_int(m1, "default-spec-id"), 1);
    /* The identity field keeps its id 1000 across specs; the new one is 1001. */
    CHECK_EQ(at_int(m1, "partition-specs/1/fields/0/field-id"), 1000);
    CHECK_EQ(at_int(m1, "partition-specs/1/fields/1/field-id"), 1001);
    /* Re-adding spec 0's fields added nothing. */
    CHECK_EQ(json_array_size(at(m1, "partition-specs")), 2);
    CHECK_EQ(at_int(m1, "last-partition-id"), 1001);
    json_decref(m1);
    basalt_free(t0);
    basalt_free(t1);
}

TEST(requirements_detect_concurrent_changes)
{
    struct basalt_error err;
    json_t *m0 = NULL;
    CHECK_EQ(new_table("a int", NULL, NULL, 2, &m0, &err), BASALT_OK);
    char *t0 = dump(m0), *t1 = NULL;
    const char *uuid_text = at_str(m0, "table-uuid");
    char uuid[40];
    snprintf(uuid, sizeof uuid, "%s", uuid_text);
    json_decref(m0);
    CHECK_EQ(apply(t0, "[" SNAP(31, null, 1, 1700000001000) "," REF("main", 31) "]", 1700000001000,
                   &t1, &err),
             BASALT_OK);
    struct basalt_iceberg_metadata *m = NULL;
    CHECK_EQ(basalt_iceberg_metadata_parse(t1, strlen(t1), "t1", &m, &err), BASALT_OK);
    char req[256];
    CHECK_EQ(basalt_iceberg_check_requirements(
                 m, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":31}]",
                 &err),
             BASALT_OK);
    CHECK_EQ(basalt_iceberg_check_requirements(
                 m, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":30}]",
                 &err),
             BASALT_CONFLICT);
    CHECK(strstr(err.message, "expected snapshot 30, found 31"));
    CHECK_EQ(basalt_iceberg_check_requirements(
                 m, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":null}]",
                 &err),
             BASALT_CONFLICT);
    CHECK_EQ(basalt_iceberg_check_requirements(m, "[{\"type\":\"assert-create\"}]", &err),
             BASALT_CONFLICT);
    CHECK_EQ(basalt_iceberg_check_requirements(NULL, "[{\"type\":\"assert-create\"}]", &err),
             BASALT_OK);
    snprintf(req, sizeof req, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"%s\"}]", uuid);
    CHECK_EQ(basalt_iceberg_check_requirements(m, req, &err), BASALT_OK);
    CHECK_EQ(basalt_iceberg_check_requirements(
                 m, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"00000000-0000-0000-0000-000000000000\"}]",
                 &err),
             BASALT_CONFLICT);
    CHECK_EQ(basalt_iceberg_check_requirements(
                 m, "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0},"
                    "{\"type\":\"assert-last-assigned-field-id\",\"last-assigned-field-id\":1},"
                    "{\"type\":\"assert-default-spec-id\",\"default-spec-id\":0},"
                    "{\"type\":\"assert-last-assigned-partition-id\",\"last-assigned-partition-id\":999},"
                    "{\"type\":\"assert-default-sort-order-id\",\"default-sort-order-id\":0}]",
                 &err),
             BASALT_OK);
    CHECK_EQ(basalt_iceberg_check_requirements(
                 m, "[{\"type\":\"assert-last-assigned-field-id\",\"last-assigned-field-id\":2}]",
                 &err),
             BASALT_CONFLICT);
    CHECK_EQ(basalt_iceberg_check_requirements(m, "[{\"type\":\"assert-nothing\"}]", &err),
             BASALT_CORRUPT);
    basalt_iceberg_metadata_free(m);
    basalt_free(t0);
    basalt_free(t1);
}
