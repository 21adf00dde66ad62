/* Metadata written by other writers, read leniently: v3 tables without
 * `next-row-id`, snapshot ids written as unsigned 64-bit numbers (taken as
 * their two's-complement pattern everywhere a snapshot id appears), and the
 * same ids in a manifest list's Avro header. */
#include <stdlib.h>
#include <string.h>

#include "basalt/avro.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "test.h"

/* A v3 table with two snapshots; SNAP and PARENT are spliced in as written. */
static char *v3_json(const char *snap, const char *parent, const char *current, bool next_row_id)
{
    static const char fmt[] =
        "{\"format-version\":3,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
        "\"location\":\"s3://b/t\",\"last-sequence-number\":2,\"last-updated-ms\":1700000000000,"
        "\"last-column-id\":1,%s\"current-schema-id\":0,"
        "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"x\","
        "\"required\":false,\"type\":\"long\"}]}],"
        "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
        "\"last-partition-id\":999,\"default-sort-order-id\":0,"
        "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
        "\"current-snapshot-id\":%s,"
        "\"snapshots\":["
        "{\"snapshot-id\":%s,\"sequence-number\":1,\"timestamp-ms\":1700000000000,"
        "\"manifest-list\":\"s3://b/t/metadata/a.avro\",\"summary\":{\"operation\":\"append\"}},"
        "{\"snapshot-id\" : %s ,\"parent-snapshot-id\": %s,\"sequence-number\":2,"
        "\"timestamp-ms\":1700000001000,\"manifest-list\":\"s3://b/t/metadata/b.avro\","
        "\"summary\":{\"operation\":\"append\",\"note\":\"snapshot-id: 18446744073709551615\"}}],"
        "\"refs\":{\"main\":{\"snapshot-id\":%s,\"type\":\"branch\"},"
        "\"old\":{\"snapshot-id\":%s,\"type\":\"tag\"}},"
        "\"snapshot-log\":[{\"timestamp-ms\":1700000000000,\"snapshot-id\":%s},"
        "{\"timestamp-ms\":1700000001000,\"snapshot-id\":%s}],"
        "\"statistics\":[{\"snapshot-id\":%s,\"statistics-path\":\"s3://b/t/s.puffin\","
        "\"file-size-in-bytes\":10,\"file-footer-size-in-bytes\":5,\"blob-metadata\":[]}],"
        "\"metadata-log\":[]}";
    size_t cap = sizeof fmt + 512;
    char *out = malloc(cap);
    if (out)
        snprintf(out, cap, fmt, next_row_id ? "\"next-row-id\":7," : "", current, parent, snap,
                 parent, current, parent, parent, snap, snap);
    return out;
}

static basalt_status parse(const char *json, struct basalt_iceberg_metadata **m,
                           struct basalt_error *err)
{
    return basalt_iceberg_metadata_parse(json, strlen(json), "t.metadata.json", m, err);
}

/* Java 1.8 wrote v3 metadata without next-row-id unless row lineage was on,
 * and read it back as 0. */
TEST(metadata_v3_without_next_row_id)
{
    char *json = v3_json("2", "1", "2", false);
    CHECK(json);
    struct basalt_iceberg_metadata *m = NULL;
    struct basalt_error err;
    basalt_status st = parse(json, &m, &err);
    free(json);
    CHECK_OK(st, &err);
    bool ok = m->format_version == 3 && !m->has_next_row_id && m->next_row_id == 0 &&
              m->n_snapshots == 2 && m->current_snapshot_id == 2;
    /* written back without the key, and read again the same */
    char *text = NULL;
    size_t len = 0;
    struct basalt_iceberg_metadata *back = NULL;
    st = basalt_iceberg_metadata_to_json(m, &text, &len, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_metadata_parse(text, len, "back", &back, &err);
    ok = ok && st == BASALT_OK && !back->has_next_row_id && back->next_row_id == 0;
    basalt_free(text);
    basalt_iceberg_metadata_free(back);
    basalt_iceberg_metadata_free(m);
    CHECK_OK(st, &err);
    CHECK(ok);
    /* present: read as written */
    json = v3_json("2", "1", "2", true);
    CHECK(json);
    st = parse(json, &m, &err);
    free(json);
    CHECK_OK(st, &err);
    ok = m->has_next_row_id && m->next_row_id == 7;
    basalt_iceberg_metadata_free(m);
    CHECK(ok);
}

static bool same_ids(const struct basalt_iceberg_metadata *m, int64_t snap, int64_t parent)
{
    const struct basalt_iceberg_ref *main_ref = basalt_iceberg_metadata_ref(m, "main");
    const struct basalt_iceberg_ref *old = basalt_iceberg_metadata_ref(m, "old");
    return m->n_snapshots == 2 && m->snapshots[0].snapshot_id == parent &&
           m->snapshots[1].snapshot_id == snap && m->snapshots[1].has_parent_snapshot_id &&
           m->snapshots[1].parent_snapshot_id == parent && m->has_current_snapshot_id &&
           m->current_snapshot_id == snap && main_ref && main_ref->snapshot_id == snap && old &&
           old->snapshot_id == parent && m->n_snapshot_log == 2 &&
           m->snapshot_log[0].snapshot_id == parent && m->snapshot_log[1].snapshot_id == snap &&
           m->n_statistics == 1 && m->statistics[0].snapshot_id == snap &&
           basalt_iceberg_metadata_current_snapshot(m) == &m->snapshots[1];
}

/* Snapshot ids beyond INT64_MAX (writers that keep them unsigned) are the
 * same 64-bit pattern, wherever they appear; the signed spelling reads the
 * same. */
TEST(metadata_unsigned_snapshot_ids)
{
    struct {
        const char *snap, *parent;
        int64_t want_snap, want_parent;
    } cases[] = {
        {"18446744073709551615", "18446744073709551614", -1, -2},
        {"-1", "-2", -1, -2},
        {"9223372036854775808", "9223372036854775807", INT64_MIN, INT64_MAX},
        {"18446744073709551000", "12", -616, 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = v3_json(cases[i].snap, cases[i].parent, cases[i].snap, true);
        CHECK(json);
        struct basalt_iceberg_metadata *m = NULL;
        struct basalt_error err;
        basalt_status st = parse(json, &m, &err);
        free(json);
        CHECK_OK(st, &err);
        bool ok = same_ids(m, cases[i].want_snap, cases[i].want_parent);
        /* the string of a summary is left as it is */
        ok = ok && m->snapshots[1].n_summary == 1 &&
             strcmp(m->snapshots[1].summary[0].value, "snapshot-id: 18446744073709551615") == 0;
        /* written back signed, read back the same */
        char *text = NULL;
        size_t len = 0;
        struct basalt_iceberg_metadata *back = NULL;
        st = basalt_iceberg_metadata_to_json(m, &text, &len, &err);
        if (st == BASALT_OK)
            st = basalt_iceberg_metadata_parse(text, len, "back", &back, &err);
        ok = ok && st == BASALT_OK && same_ids(back, cases[i].want_snap, cases[i].want_parent);
        basalt_free(text);
        basalt_iceberg_metadata_free(back);
        basalt_iceberg_metadata_free(m);
        CHECK_OK(st, &err);
        CHECK_MSG(ok, "case %zu (%s, %s)", i, cases[i].snap, cases[i].parent);
    }
    /* past 64 bits, or a fraction: still an error */
    const char *bad[] = {"18446744073709551616", "99999999999999999999999", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *json = v3_json(bad[i], "1", bad[i], true);
        CHECK(json);
        struct basalt_iceberg_metadata *m = NULL;
        struct basalt_error err;
        basalt_status st = parse(json, &m, &err);
        free(json);
        basalt_iceberg_metadata_free(m);
        CHECK_MSG(st == BASALT_CORRUPT, "%s: %s", bad[i], basalt_status_name(st));
    }
}

/* -1 is also "no current snapshot"; an unsigned spelling of it names the
 * snapshot whose id has that pattern. */
TEST(metadata_unsigned_current_snapshot_minus_one)
{
    char *json = v3_json("18446744073709551615", "5", "-1", true);
    CHECK(json);
    /* refs.main names 2^64-1 too: the current snapshot is that one */
    struct basalt_iceberg_metadata *m = NULL;
    struct basalt_error err;
    basalt_status st = parse(json, &m, &err);
    free(json);
    CHECK_OK(st, &err);
    bool ok = m->has_current_snapshot_id && m->current_snapshot_id == -1 &&
              basalt_iceberg_metadata_current_snapshot(m) == &m->snapshots[1];
    basalt_iceberg_metadata_free(m);
    CHECK(ok);
}

static basalt_status list_with_meta(const char *snap, const char *parent, struct basalt_buffer *out,
                                    struct basalt_error *err)
{
    static const char schema_json[] =
        "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
        "{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
        "{\"name\":\"manifest_length\",\"type\":\"long\",\"field-id\":501},"
        "{\"name\":\"partition_spec_id\",\"type\":\"int\",\"field-id\":502},"
        "{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"field-id\":503}]}";
    struct basalt_avro_schema *schema = NULL;
    basalt_status st = basalt_avro_schema_parse(schema_json, strlen(schema_json), NULL, &schema, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_avro_meta_item meta[3] = {
        {"format-version", (const uint8_t *)"2", 1},
        {"snapshot-id", (const uint8_t *)snap, strlen(snap)},
        {"parent-snapshot-id", (const uint8_t *)parent, parent ? strlen(parent) : 0}};
    struct basalt_avro_writer_options o;
    basalt_avro_writer_options_init(&o);
    o.meta = meta;
    o.meta_count = parent ? 3 : 2;
    struct basalt_avro_writer *w = NULL;
    st = basalt_avro_writer_new(schema, &o, basalt_avro_write_to_buffer, out, &w, err);
    /* one manifest added by the snapshot: -1, as a long */
    static const uint8_t row[] = {2, 'm', 20, 0, 1};
    if (st == BASALT_OK)
        st = basalt_avro_writer_append_encoded(w, row, sizeof row, err);
    if (st == BASALT_OK)
        st = basalt_avro_writer_close(w, err);
    else
        basalt_avro_writer_free(w);
    basalt_avro_schema_free(schema);
    return st;
}

TEST(manifest_list_unsigned_snapshot_ids)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    CHECK_OK(list_with_meta("18446744073709551615", "18446744073709551614", &buf, &err), &err);
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_manifest_list_parse(buf.data, buf.size, "snap.avro", 2, &list, &err);
    basalt_buffer_reset(&buf);
    CHECK_OK(st, &err);
    bool ok = list->n_files == 1 && list->files[0].added_snapshot_id == -1 &&
              list->has_snapshot_id && list->snapshot_id == -1 && list->has_parent_snapshot_id &&
              list->parent_snapshot_id == -2;
    basalt_iceberg_manifest_list_free(list);
    CHECK(ok);
    /* signed spelling, no parent */
    basalt_buffer_init(&buf);
    CHECK_OK(list_with_meta("-1", NULL, &buf, &err), &err);
    st = basalt_iceberg_manifest_list_parse(buf.data, buf.size, "snap.avro", 2, &list, &err);
    basalt_buffer_reset(&buf);
    CHECK_OK(st, &err);
    ok = list->has_snapshot_id && list->snapshot_id == -1 && !list->has_parent_snapshot_id;
    basalt_iceberg_manifest_list_free(list);
    CHECK(ok);
}
