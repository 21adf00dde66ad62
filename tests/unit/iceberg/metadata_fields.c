/* Field-by-field checks of parsed table metadata against values read in the
 * JSON fixtures, and of types, defaults and schema lookups from inline JSON. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "test.h"

static struct basalt_iceberg_metadata *load(const char *rel)
{
    char path[512];
    snprintf(path, sizeof(path), "iceberg/metadata-json/%s", rel);
    struct basalt_iceberg_metadata *m = NULL;
    struct basalt_error err;
    if (basalt_iceberg_metadata_read_file(bt_testdata_path(path), &m, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "%s: %s", rel, err.message);
        return NULL;
    }
    return m;
}

static bool field_is(const struct basalt_iceberg_field *f, int32_t id, const char *name,
                     bool required, enum basalt_iceberg_type_id type)
{
    return f && f->id == id && strcmp(f->name, name) == 0 && f->required == required &&
           f->type.id == type;
}

static void check_v2_valid(const struct basalt_iceberg_metadata *m)
{
    CHECK_EQ(m->format_version, 2);
    CHECK_STR(m->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
    CHECK_STR(m->location, "s3://bucket/test/location");
    CHECK_EQ(m->last_sequence_number, 34);
    CHECK_EQ(m->last_updated_ms, 1602638573590LL);
    CHECK_EQ(m->last_column_id, 3);
    CHECK_EQ(m->n_schemas, 2);
    CHECK_EQ(m->current_schema_id, 1);
    const struct basalt_iceberg_schema *s0 = &m->schemas[0], *s1 = &m->schemas[1];
    CHECK_EQ(s0->schema_id, 0);
    CHECK_EQ(s0->root.id, BASALT_ICEBERG_TYPE_STRUCT);
    CHECK_EQ(s0->root.n_fields, 1);
    CHECK(field_is(&s0->root.fields[0], 1, "x", true, BASALT_ICEBERG_TYPE_LONG));
    CHECK_EQ(s0->n_identifier_field_ids, 0);
    CHECK_EQ(s1->schema_id, 1);
    CHECK_EQ(s1->n_identifier_field_ids, 2);
    CHECK_EQ(s1->identifier_field_ids[0], 1);
    CHECK_EQ(s1->identifier_field_ids[1], 2);
    CHECK_EQ(s1->root.n_fields, 3);
    CHECK(field_is(&s1->root.fields[0], 1, "x", true, BASALT_ICEBERG_TYPE_LONG));
    CHECK(field_is(&s1->root.fields[1], 2, "y", true, BASALT_ICEBERG_TYPE_LONG));
    CHECK_STR(s1->root.fields[1].doc, "comment");
    CHECK(s1->root.fields[0].doc == NULL);
    CHECK(field_is(&s1->root.fields[2], 3, "z", true, BASALT_ICEBERG_TYPE_LONG));
    CHECK(s1->root.fields[2].initial_default_json == NULL);
    CHECK(s1->root.fields[2].initial_default.is_null);
    CHECK(basalt_iceberg_metadata_current_schema(m) == s1);

    CHECK_EQ(m->n_specs, 1);
    CHECK_EQ(m->default_spec_id, 0);
    CHECK_EQ(m->specs[0].spec_id, 0);
    CHECK_EQ(m->specs[0].n_fields, 1);
    CHECK_STR(m->specs[0].fields[0].name, "x");
    CHECK_EQ(m->specs[0].fields[0].transform.kind, BASALT_ICEBERG_TRANSFORM_IDENTITY);
    CHECK_STR(m->specs[0].fields[0].transform.text, "identity");
    CHECK_EQ(m->specs[0].fields[0].source_id, 1);
    CHECK_EQ(m->specs[0].fields[0].field_id, 1000);
    CHECK_EQ(m->last_partition_id, 1000);

    CHECK_EQ(m->default_sort_order_id, 3);
    CHECK_EQ(m->n_sort_orders, 1);
    const struct basalt_iceberg_sort_order *so = &m->sort_orders[0];
    CHECK_EQ(so->order_id, 3);
    CHECK_EQ(so->n_fields, 2);
    CHECK_EQ(so->fields[0].transform.kind, BASALT_ICEBERG_TRANSFORM_IDENTITY);
    CHECK_EQ(so->fields[0].source_id, 2);
    CHECK_EQ(so->fields[0].direction, BASALT_ICEBERG_SORT_ASC);
    CHECK_EQ(so->fields[0].null_order, BASALT_ICEBERG_NULLS_FIRST);
    CHECK_EQ(so->fields[1].transform.kind, BASALT_ICEBERG_TRANSFORM_BUCKET);
    CHECK_EQ(so->fields[1].transform.param, 4);
    CHECK_STR(so->fields[1].transform.text, "bucket[4]");
    CHECK_EQ(so->fields[1].source_id, 3);
    CHECK_EQ(so->fields[1].direction, BASALT_ICEBERG_SORT_DESC);
    CHECK_EQ(so->fields[1].null_order, BASALT_ICEBERG_NULLS_LAST);

    CHECK_EQ(m->n_properties, 0);
    CHECK(m->has_current_snapshot_id);
    CHECK_EQ(m->current_snapshot_id, 3055729675574597004LL);
    CHECK_EQ(m->n_snapshots, 2);
    const struct basalt_iceberg_snapshot *a = &m->snapshots[0], *b = &m->snapshots[1];
    CHECK_EQ(a->snapshot_id, 3051729675574597004LL);
    CHECK(!a->has_parent_snapshot_id);
    CHECK_EQ(a->timestamp_ms, 1515100955770LL);
    CHECK_EQ(a->sequence_number, 0);
    CHECK_STR(a->operation, "append");
    CHECK_EQ(a->n_summary, 0);
    CHECK_STR(a->manifest_list, "s3://a/b/1.avro");
    CHECK(!a->has_schema_id);
    CHECK_EQ(b->snapshot_id, 3055729675574597004LL);
    CHECK(b->has_parent_snapshot_id);
    CHECK_EQ(b->parent_snapshot_id, 3051729675574597004LL);
    CHECK_EQ(b->timestamp_ms, 1555100955770LL);
    CHECK_EQ(b->sequence_number, 1);
    CHECK_STR(b->manifest_list, "s3://a/b/2.avro");
    CHECK(b->has_schema_id);
    CHECK_EQ(b->schema_id, 1);
    CHECK(!b->has_first_row_id && !b->has_added_rows && b->key_id == NULL);
    CHECK(basalt_iceberg_metadata_current_snapshot(m) == b);

    CHECK_EQ(m->n_snapshot_log, 2);
    CHECK_EQ(m->snapshot_log[0].snapshot_id, 3051729675574597004LL);
    CHECK_EQ(m->snapshot_log[0].timestamp_ms, 1515100955770LL);
    CHECK_EQ(m->snapshot_log[1].snapshot_id, 3055729675574597004LL);
    CHECK_EQ(m->snapshot_log[1].timestamp_ms, 1555100955770LL);
    CHECK_EQ(m->n_metadata_log, 0);
    /* No refs in the file: main is made from current-snapshot-id. */
    CHECK_EQ(m->n_refs, 1);
    CHECK_STR(m->refs[0].name, "main");
    CHECK(!m->refs[0].is_tag);
    CHECK_EQ(m->refs[0].snapshot_id, 3055729675574597004LL);
    CHECK_EQ(m->n_statistics, 0);
    CHECK_EQ(m->n_partition_statistics, 0);
    CHECK(!m->has_next_row_id);
    CHECK_EQ(m->n_encryption_keys, 0);
    CHECK_STR(m->unknown_keys_json, "{}");
}

TEST(metadata_v2_valid_fields)
{
    struct basalt_iceberg_metadata *m = load("apache-iceberg/TableMetadataV2Valid.json");
    CHECK(m != NULL);
    check_v2_valid(m);
    basalt_iceberg_metadata_free(m);
}

TEST(metadata_v1_valid_fields)
{
    struct basalt_iceberg_metadata *m = load("apache-iceberg/TableMetadataV1Valid.json");
    CHECK(m != NULL);
    bool ok = false;
    do {
        if (m->format_version != 1 || strcmp(m->table_uuid, "d20125c8-7284-442c-9aea-15fee620737c"))
            break;
        if (strcmp(m->location, "s3://bucket/test/location") || m->last_updated_ms != 1602638573874LL)
            break;
        if (m->last_column_id != 3 || m->last_sequence_number != 0)
            break;
        /* singular schema -> one schema with id 0, the current one */
        if (m->n_schemas != 1 || m->schemas[0].schema_id != 0 || m->current_schema_id != 0)
            break;
        const struct basalt_iceberg_type *root = &m->schemas[0].root;
        if (root->n_fields != 3 || !field_is(&root->fields[1], 2, "y", true, BASALT_ICEBERG_TYPE_LONG) ||
            strcmp(root->fields[1].doc, "comment"))
            break;
        /* bare partition-spec -> spec 0 */
        if (m->n_specs != 1 || m->specs[0].spec_id != 0 || m->default_spec_id != 0 ||
            m->specs[0].n_fields != 1 || m->specs[0].fields[0].field_id != 1000 ||
            m->specs[0].fields[0].source_id != 1 || strcmp(m->specs[0].fields[0].name, "x"))
            break;
        if (m->last_partition_id != 1000) /* derived: the highest field id */
            break;
        if (m->n_sort_orders != 1 || m->sort_orders[0].order_id != 0 ||
            m->sort_orders[0].n_fields != 0 || m->default_sort_order_id != 0)
            break;
        if (m->has_current_snapshot_id || m->n_snapshots != 0 || m->n_refs != 0)
            break;
        if (basalt_iceberg_metadata_current_snapshot(m) != NULL)
            break;
        ok = true;
    } while (0);
    basalt_iceberg_metadata_free(m);
    CHECK(ok);
}

TEST(metadata_v1_defaults_filled_in)
{
    struct basalt_iceberg_metadata *m =
        load("iceberg-rust/table_metadata/TableMetadataV1PartitionSpecsWithoutDefaultId.json");
    CHECK(m != NULL);
    int32_t spec = m->default_spec_id, n = (int32_t)m->n_specs, last = m->last_partition_id;
    int32_t f2 = m->specs[1].fields[0].field_id;
    basalt_iceberg_metadata_free(m);
    CHECK_EQ(n, 2);
    CHECK_EQ(spec, 2); /* the newest spec */
    CHECK_EQ(last, 1001);
    CHECK_EQ(f2, 1001);

    m = load("iceberg-rust/table_metadata/TableMetadataV1SchemasWithoutCurrentId.json");
    CHECK(m != NULL);
    int32_t cur = m->current_schema_id;
    bool found = basalt_iceberg_metadata_current_schema(m) != NULL;
    basalt_iceberg_metadata_free(m);
    CHECK_EQ(cur, 0);
    CHECK(found);

    /* Field ids assigned from 1000 when v1 partition fields lack them. */
    static const char json[] =
        "{\"format-version\":1,\"location\":\"l\",\"last-updated-ms\":1,\"last-column-id\":2,"
        "\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
        "\"type\":\"int\"},{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"date\"}]},"
        "\"partition-spec\":[{\"name\":\"a_b\",\"transform\":\"bucket[16]\",\"source-id\":1},"
        "{\"name\":\"b_day\",\"transform\":\"day\",\"source-id\":2}],"
        "\"snapshots\":[{\"snapshot-id\":5,\"timestamp-ms\":10,\"manifests\":[\"m1.avro\",\"m2.avro\"]}],"
        "\"current-snapshot-id\":5}";
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_metadata_parse(json, strlen(json), "v1", &m, &err), &err);
    bool ok = m->specs[0].fields[0].field_id == 1000 && m->specs[0].fields[1].field_id == 1001 &&
              m->specs[0].fields[0].transform.kind == BASALT_ICEBERG_TRANSFORM_BUCKET &&
              m->specs[0].fields[0].transform.param == 16 &&
              m->specs[0].fields[1].transform.kind == BASALT_ICEBERG_TRANSFORM_DAY &&
              m->last_partition_id == 1001 && m->table_uuid == NULL &&
              m->snapshots[0].manifest_list == NULL && m->snapshots[0].n_manifests == 2 &&
              strcmp(m->snapshots[0].manifests[1], "m2.avro") == 0 &&
              strcmp(m->snapshots[0].operation, "append") == 0 && m->n_refs == 1 &&
              m->refs[0].snapshot_id == 5;
    basalt_iceberg_metadata_free(m);
    CHECK(ok);
}

TEST(metadata_v3_fields)
{
    struct basalt_iceberg_metadata *m = load("iceberg-go/TableMetadataV3WithPartitionStatistics.json");
    CHECK(m != NULL);
    bool ok = false;
    do {
        if (m->format_version != 3 || !m->has_next_row_id || m->next_row_id != 3000)
            break;
        if (m->snapshots[0].first_row_id != 1000 || !m->snapshots[0].has_first_row_id ||
            m->snapshots[1].first_row_id != 2000 || m->snapshots[1].has_added_rows)
            break;
        if (m->n_metadata_log != 1 || m->metadata_log[0].timestamp_ms != 1515100 ||
            strcmp(m->metadata_log[0].metadata_file, "s3://bucket/.../v1.json"))
            break;
        if (m->n_refs != 2 || strcmp(m->refs[0].name, "main") || m->refs[0].is_tag ||
            strcmp(m->refs[1].name, "test") || !m->refs[1].is_tag ||
            m->refs[1].snapshot_id != 3051729675574597004LL || !m->refs[1].has_max_ref_age_ms ||
            m->refs[1].max_ref_age_ms != 10000000 || m->refs[1].has_max_snapshot_age_ms)
            break;
        if (m->n_partition_statistics != 2 ||
            m->partition_statistics[0].snapshot_id != 3051729675574597004LL ||
            m->partition_statistics[0].file_size_in_bytes != 42330 ||
            m->partition_statistics[1].file_size_in_bytes != 65871 ||
            strcmp(m->partition_statistics[1].statistics_path,
                   "s3://bucket/test/location/metadata/partition-stats/snap-3055729675574597004.parquet"))
            break;
        const char *p = basalt_iceberg_metadata_property(m, "read.split.target.size");
        if (!p || strcmp(p, "134217728") || basalt_iceberg_metadata_property(m, "nope"))
            break;
        ok = true;
    } while (0);
    basalt_iceberg_metadata_free(m);
    CHECK(ok);

    m = load("apache-iceberg/TableMetadataV3ValidMinimal.json");
    CHECK(m != NULL);
    const struct basalt_iceberg_field *x = &m->schemas[0].root.fields[0];
    ok = x->initial_default_json && strcmp(x->initial_default_json, "1") == 0 &&
         !x->initial_default.is_null && x->initial_default.type == BASALT_ICEBERG_TYPE_LONG &&
         x->initial_default.u.i64 == 1 && !x->write_default.is_null &&
         x->write_default.u.i64 == 1 && m->schemas[0].root.fields[1].initial_default.is_null &&
         m->next_row_id == 0 && m->has_next_row_id && m->n_snapshots == 0;
    basalt_iceberg_metadata_free(m);
    CHECK(ok);

    m = load("iceberg-rust/table_metadata/TableMetadataV3ValidEncryption.json");
    CHECK(m != NULL);
    ok = m->n_encryption_keys == 2 &&
         strcmp(m->encryption_keys[0].key_id, "5b29941b-b3b4-4d57-8758-a9d1bf340b39") == 0 &&
         strcmp(m->encryption_keys[0].encrypted_by_id, "master-1") == 0 &&
         m->encryption_keys[0].n_properties == 1 &&
         strcmp(m->encryption_keys[0].properties[0].key, "KEY_TIMESTAMP") == 0 &&
         strcmp(m->encryption_keys[0].properties[0].value, "1781172301703") == 0 &&
         m->encryption_keys[1].n_properties == 0 &&
         strncmp(m->encryption_keys[1].encrypted_key_metadata, "scAmTJzgxf7vDQBe", 16) == 0 &&
         m->snapshots[0].key_id &&
         strcmp(m->snapshots[0].key_id, "1fb95f04-7f98-4b1f-a08f-e810cfb907ff") == 0;
    basalt_iceberg_metadata_free(m);
    CHECK(ok);
}

TEST(metadata_statistics_and_unknown_keys)
{
    struct basalt_iceberg_metadata *m = load("apache-iceberg/TableMetadataStatisticsFiles.json");
    CHECK(m != NULL);
    bool ok = m->n_statistics == 1 && m->statistics[0].snapshot_id == 3055729675574597004LL &&
              strcmp(m->statistics[0].statistics_path, "s3://a/b/stats.puffin") == 0 &&
              m->statistics[0].file_size_in_bytes == 413 &&
              m->statistics[0].file_footer_size_in_bytes == 42 &&
              m->statistics[0].key_metadata == NULL && m->statistics[0].n_blobs == 1 &&
              strcmp(m->statistics[0].blobs[0].type, "ndv") == 0 &&
              m->statistics[0].blobs[0].sequence_number == 1 &&
              m->statistics[0].blobs[0].n_fields == 1 && m->statistics[0].blobs[0].fields[0] == 1;
    basalt_iceberg_metadata_free(m);
    CHECK(ok);

    /* Glue-written keys the spec does not define are kept. */
    m = load("iceberg-rust/table_metadata/TableMetadataV1Compat.json");
    CHECK(m != NULL);
    ok = strstr(m->unknown_keys_json, "\"partition-statistics-files\":[]") != NULL &&
         strstr(m->unknown_keys_json, "\"statistics-files\":[]") != NULL &&
         m->last_partition_id == 999 && m->n_properties == 9 &&
         strcmp(m->properties[0].key, "history.expire.max-ref-age-ms") == 0; /* sorted */
    basalt_iceberg_metadata_free(m);
    CHECK(ok);
}

/* ------------------------------------------------------------ types */

static const char type_schema[] =
    "{\"type\":\"struct\",\"schema-id\":7,\"identifier-field-ids\":[1],\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"price\",\"required\":false,\"type\":\"decimal(10, 2)\","
    "\"initial-default\":\"14.20\",\"write-default\":\"-0.05\"},"
    "{\"id\":3,\"name\":\"digest\",\"required\":false,\"type\":\"fixed[4]\",\"initial-default\":\"0aFF1020\"},"
    "{\"id\":4,\"name\":\"ts_ns\",\"required\":false,\"type\":\"timestamp_ns\","
    "\"initial-default\":\"2017-11-16T22:31:08.123456789\"},"
    "{\"id\":5,\"name\":\"tstz_ns\",\"required\":false,\"type\":\"timestamptz_ns\"},"
    "{\"id\":6,\"name\":\"u\",\"required\":false,\"type\":\"unknown\"},"
    "{\"id\":7,\"name\":\"v\",\"required\":false,\"type\":\"variant\"},"
    "{\"id\":8,\"name\":\"geom\",\"required\":false,\"type\":\"geometry(srid:3857)\"},"
    "{\"id\":9,\"name\":\"geog\",\"required\":false,\"type\":\"geography(OGC:CRS84, karney)\"},"
    "{\"id\":10,\"name\":\"Addr\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":11,\"name\":\"City\",\"required\":true,\"type\":\"string\",\"initial-default\":\"Oslo\"},"
    "{\"id\":12,\"name\":\"day\",\"required\":false,\"type\":\"date\",\"initial-default\":\"2017-11-16\"}]},"
    "\"initial-default\":{\"11\":\"x\"}},"
    "{\"id\":13,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":14,"
    "\"element\":\"string\",\"element-required\":false}},"
    "{\"id\":15,\"name\":\"props\",\"required\":true,\"type\":{\"type\":\"map\",\"key-id\":16,"
    "\"key\":\"string\",\"value-id\":17,\"value\":{\"type\":\"list\",\"element-id\":18,"
    "\"element\":\"time\",\"element-required\":true},\"value-required\":true}},"
    "{\"id\":19,\"name\":\"t\",\"required\":false,\"type\":\"time\",\"initial-default\":\"22:31:08.123456\"},"
    "{\"id\":20,\"name\":\"tz\",\"required\":false,\"type\":\"timestamptz\","
    "\"initial-default\":\"2017-11-16T22:31:08.123456+02:00\"},"
    "{\"id\":21,\"name\":\"uid\",\"required\":false,\"type\":\"uuid\","
    "\"initial-default\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"},"
    "{\"id\":22,\"name\":\"bin\",\"required\":false,\"type\":\"binary\",\"initial-default\":\"\"},"
    "{\"id\":23,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\",\"write-default\":true},"
    "{\"id\":24,\"name\":\"d\",\"required\":false,\"type\":\"double\",\"initial-default\":1.5},"
    "{\"id\":25,\"name\":\"big\",\"required\":false,\"type\":\"decimal(38,0)\","
    "\"initial-default\":\"-99999999999999999999999999999999999999\"}"
    "]}";

TEST(metadata_types_and_defaults)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_schema s;
    struct basalt_error err;
    basalt_status st = basalt_iceberg_schema_parse_json(type_schema, strlen(type_schema), &arena, &s, &err);
    if (st != BASALT_OK)
        basalt_arena_reset(&arena);
    CHECK_OK(st, &err);
    const struct basalt_iceberg_field *f;
    char buf[512];
    int failures = 0;
#define EXPECT(cond)                                                                           \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            bt_fail(__FILE__, __LINE__, "%s", #cond);                                          \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)
    EXPECT(s.schema_id == 7 && s.n_identifier_field_ids == 1 && s.root.n_fields == 19);
    f = basalt_iceberg_schema_field(&s, 2);
    EXPECT(f && f->type.id == BASALT_ICEBERG_TYPE_DECIMAL && f->type.precision == 10 && f->type.scale == 2);
    EXPECT(f && !f->initial_default.is_null && f->initial_default.u.dec.lo == 1420 &&
           f->initial_default.u.dec.hi == 0 && f->initial_default.scale == 2);
    EXPECT(f && f->write_default.u.dec.hi == -1 && (int64_t)f->write_default.u.dec.lo == -5);
    f = basalt_iceberg_schema_field(&s, 3);
    EXPECT(f && f->type.id == BASALT_ICEBERG_TYPE_FIXED && f->type.length == 4 &&
           f->initial_default.u.bytes.len == 4 &&
           memcmp(f->initial_default.u.bytes.data, "\x0a\xff\x10\x20", 4) == 0);
    f = basalt_iceberg_schema_field(&s, 4);
    EXPECT(f && f->type.id == BASALT_ICEBERG_TYPE_TIMESTAMP_NS &&
           f->initial_default.u.i64 == 1510871468123456789LL);
    EXPECT(basalt_iceberg_schema_field(&s, 5)->type.id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS);
    EXPECT(basalt_iceberg_schema_field(&s, 6)->type.id == BASALT_ICEBERG_TYPE_UNKNOWN);
    EXPECT(basalt_iceberg_schema_field(&s, 7)->type.id == BASALT_ICEBERG_TYPE_VARIANT);
    f = basalt_iceberg_schema_field(&s, 8);
    EXPECT(f && f->type.id == BASALT_ICEBERG_TYPE_GEOMETRY && strcmp(f->type.crs, "srid:3857") == 0 &&
           f->type.algorithm == NULL);
    f = basalt_iceberg_schema_field(&s, 9);
    EXPECT(f && f->type.id == BASALT_ICEBERG_TYPE_GEOGRAPHY && strcmp(f->type.crs, "OGC:CRS84") == 0 &&
           strcmp(f->type.algorithm, "karney") == 0);
    f = basalt_iceberg_schema_field(&s, 10);
    EXPECT(f && f->type.id == BASALT_ICEBERG_TYPE_STRUCT && f->initial_default.is_null &&
           strcmp(f->initial_default_json, "{\"11\":\"x\"}") == 0);
    f = basalt_iceberg_schema_field(&s, 11);
    EXPECT(f && f->required && f->initial_default.u.bytes.len == 4 &&
           memcmp(f->initial_default.u.bytes.data, "Oslo", 4) == 0);
    EXPECT(basalt_iceberg_schema_field(&s, 12)->initial_default.u.i32 == 17486);
    f = basalt_iceberg_schema_field(&s, 14);
    EXPECT(f && strcmp(f->name, "element") == 0 && !f->required && f->type.id == BASALT_ICEBERG_TYPE_STRING);
    f = basalt_iceberg_schema_field(&s, 16);
    EXPECT(f && strcmp(f->name, "key") == 0 && f->required);
    f = basalt_iceberg_schema_field(&s, 17);
    EXPECT(f && strcmp(f->name, "value") == 0 && f->required && f->type.id == BASALT_ICEBERG_TYPE_LIST);
    f = basalt_iceberg_schema_field(&s, 18);
    EXPECT(f && f->required && f->type.id == BASALT_ICEBERG_TYPE_TIME);
    EXPECT(basalt_iceberg_schema_field(&s, 19)->initial_default.u.i64 == 81068123456LL);
    EXPECT(basalt_iceberg_schema_field(&s, 20)->initial_default.u.i64 == 1510864268123456LL);
    f = basalt_iceberg_schema_field(&s, 21);
    EXPECT(f && f->initial_default.u.bytes.len == 16 &&
           memcmp(f->initial_default.u.bytes.data,
                  "\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16) == 0);
    f = basalt_iceberg_schema_field(&s, 22);
    EXPECT(f && !f->initial_default.is_null && f->initial_default.u.bytes.len == 0);
    f = basalt_iceberg_schema_field(&s, 23);
    EXPECT(f && f->initial_default.is_null && !f->write_default.is_null && f->write_default.u.b);
    EXPECT(basalt_iceberg_schema_field(&s, 24)->initial_default.u.f64 == 1.5);
    f = basalt_iceberg_schema_field(&s, 25);
    /* -(10^38 - 1) as two's complement 128-bit */
    EXPECT(f && f->initial_default.u.dec.hi == -5421010862427522171LL &&
           f->initial_default.u.dec.lo == 0xf675ddc000000001ULL);
    EXPECT(basalt_iceberg_schema_field(&s, 99) == NULL);

    /* names */
    EXPECT(basalt_iceberg_schema_field_by_name(&s, "Addr.City", true) == basalt_iceberg_schema_field(&s, 11));
    EXPECT(basalt_iceberg_schema_field_by_name(&s, "addr.city", true) == NULL);
    EXPECT(basalt_iceberg_schema_field_by_name(&s, "ADDR.CITY", false) == basalt_iceberg_schema_field(&s, 11));
    EXPECT(basalt_iceberg_schema_field_by_name(&s, "tags.element", true) == basalt_iceberg_schema_field(&s, 14));
    EXPECT(basalt_iceberg_schema_field_by_name(&s, "props.value.element", true) ==
           basalt_iceberg_schema_field(&s, 18));
    EXPECT(basalt_iceberg_schema_field_by_name(&s, "props.key", true) == basalt_iceberg_schema_field(&s, 16));
    EXPECT(basalt_iceberg_schema_field_by_name(&s, "Addr.Town", false) == NULL);
    EXPECT(basalt_iceberg_schema_field_name(&s, 18, buf, sizeof(buf)) == BASALT_OK &&
           strcmp(buf, "props.value.element") == 0);
    EXPECT(basalt_iceberg_schema_field_name(&s, 18, buf, 5) == BASALT_LIMIT);
    EXPECT(basalt_iceberg_schema_field_name(&s, 98, buf, sizeof(buf)) == BASALT_NOT_FOUND);

    /* type text */
    EXPECT(basalt_iceberg_type_to_string(&basalt_iceberg_schema_field(&s, 2)->type, buf, sizeof(buf)) ==
               BASALT_OK && strcmp(buf, "decimal(10,2)") == 0);
    EXPECT(basalt_iceberg_type_to_string(&basalt_iceberg_schema_field(&s, 3)->type, buf, sizeof(buf)) ==
               BASALT_OK && strcmp(buf, "fixed[4]") == 0);
    EXPECT(basalt_iceberg_type_to_string(&basalt_iceberg_schema_field(&s, 15)->type, buf, sizeof(buf)) ==
               BASALT_OK && strcmp(buf, "map<string, list<time>>") == 0);
    EXPECT(basalt_iceberg_type_to_string(&basalt_iceberg_schema_field(&s, 10)->type, buf, sizeof(buf)) ==
               BASALT_OK && strcmp(buf, "struct<11 City: string not null, 12 day: date>") == 0);
    EXPECT(basalt_iceberg_type_to_string(&basalt_iceberg_schema_field(&s, 9)->type, buf, sizeof(buf)) ==
               BASALT_OK && strcmp(buf, "geography(OGC:CRS84, karney)") == 0);
    EXPECT(basalt_iceberg_type_to_string(&basalt_iceberg_schema_field(&s, 5)->type, buf, sizeof(buf)) ==
               BASALT_OK && strcmp(buf, "timestamptz_ns") == 0);
    EXPECT(basalt_iceberg_type_to_string(&s.root, buf, 10) == BASALT_LIMIT && strlen(buf) == 9);
    basalt_arena_reset(&arena);
#undef EXPECT
    CHECK_EQ(failures, 0);
}

/* Malformed types and defaults: CORRUPT, naming the JSON path. */
TEST(metadata_type_errors)
{
    static const struct {
        const char *fields;
        const char *message;
    } cases[] = {
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"foo\"}", "fields[0]: field 1 'a': unknown type 'foo'"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"decimal(39,0)\"}", "invalid decimal"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"decimal(10,2\"}", "malformed type"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"fixed[0]\"}", "invalid fixed"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true}", "missing 'type'"},
        {"{\"id\":1,\"name\":\"a\",\"type\":\"int\"}", "missing 'required'"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\",\"initial-default\":\"x\"}", "invalid int default"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"date\",\"initial-default\":\"2017-02-29\"}", "invalid date"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"decimal(4,2)\",\"initial-default\":\"123.45\"}", "invalid decimal default"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"decimal(9,2)\",\"initial-default\":\"1.234\"}", "invalid decimal default"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"fixed[2]\",\"initial-default\":\"abcdef\"}", "invalid fixed"},
        {"{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"unknown\",\"initial-default\":1}", "must default to null"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":{\"type\":\"list\",\"element-id\":2,\"element\":\"int\"}}", "missing 'element-required'"},
        {"{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"},{\"id\":1,\"name\":\"b\",\"required\":true,\"type\":\"int\"}", "field id 1 is used twice"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[1024];
        snprintf(json, sizeof(json), "{\"type\":\"struct\",\"fields\":[%s]}", cases[i].fields);
        struct basalt_arena arena;
        basalt_arena_init(&arena, 1024);
        struct basalt_iceberg_schema s;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_iceberg_schema_parse_json(json, strlen(json), &arena, &s, &err);
        basalt_arena_reset(&arena);
        CHECK_MSG(st == BASALT_CORRUPT, "case %zu: %s: %s", i, basalt_status_name(st), err.message);
        CHECK_MSG(strstr(err.message, cases[i].message) != NULL, "case %zu: '%s' lacks '%s'", i,
                  err.message, cases[i].message);
    }
    /* nesting beyond the limit is LIMIT, not a stack overflow */
    size_t depth = 400, cap = depth * 80 + 200, n = 0;
    char *deep = basalt_malloc(cap);
    CHECK(deep != NULL);
    n += (size_t)snprintf(deep + n, cap - n, "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":");
    for (size_t i = 0; i < depth; i++)
        n += (size_t)snprintf(deep + n, cap - n, "{\"type\":\"list\",\"element-id\":%zu,\"element-required\":true,\"element\":", i + 2);
    n += (size_t)snprintf(deep + n, cap - n, "\"int\"");
    for (size_t i = 0; i < depth; i++)
        deep[n++] = '}';
    n += (size_t)snprintf(deep + n, cap - n, "}]}");
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    struct basalt_iceberg_schema s;
    basalt_status st = basalt_iceberg_schema_parse_json(deep, n, &arena, &s, NULL);
    basalt_arena_reset(&arena);
    basalt_free(deep);
    CHECK_EQ(st, BASALT_LIMIT);
}

/* v3 multi-argument transforms: "source-ids" is kept whole and written back
 * in that form (the first id is also source_id). */
TEST(metadata_v3_source_ids_round_trip)
{
    static const char json[] =
        "{\"format-version\":3,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
        "\"location\":\"l\",\"last-sequence-number\":0,\"last-updated-ms\":1,\"last-column-id\":2,"
        "\"next-row-id\":0,\"current-schema-id\":0,"
        "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\","
        "\"required\":true,\"type\":\"int\"},{\"id\":2,\"name\":\"b\",\"required\":true,\"type\":\"long\"}]}],"
        "\"default-spec-id\":0,\"last-partition-id\":1000,"
        "\"partition-specs\":[{\"spec-id\":0,\"fields\":[{\"name\":\"ab\",\"transform\":\"bucket[8]\","
        "\"source-ids\":[1,2],\"field-id\":1000}]}],"
        "\"default-sort-order-id\":1,\"sort-orders\":[{\"order-id\":1,\"fields\":[{\"transform\":"
        "\"bucket[8]\",\"source-ids\":[2,1],\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}]}";
    struct basalt_iceberg_metadata *m = NULL, *back = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_metadata_parse(json, strlen(json), "v3", &m, &err), &err);
    char *text = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_metadata_to_json(m, &text, &len, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_metadata_parse(text, len, "back", &back, &err);
    bool ok = false;
    if (st == BASALT_OK) {
        const struct basalt_iceberg_partition_field *p = &back->specs[0].fields[0];
        const struct basalt_iceberg_sort_field *s = &back->sort_orders[0].fields[0];
        ok = p->source_id == 1 && p->n_source_ids == 2 && p->source_ids[0] == 1 &&
             p->source_ids[1] == 2 && s->source_id == 2 && s->n_source_ids == 2 &&
             s->source_ids[1] == 1 && strstr(text, "\"source-ids\"") != NULL &&
             m->specs[0].fields[0].n_source_ids == 2;
    }
    basalt_free(text);
    basalt_iceberg_metadata_free(back);
    basalt_iceberg_metadata_free(m);
    CHECK_OK(st, &err);
    CHECK(ok);
}
