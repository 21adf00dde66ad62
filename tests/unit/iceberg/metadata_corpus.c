/* Every table metadata file of corpus/iceberg/metadata-json behaves as the
 * corpus README says, and every valid one survives a round trip through
 * basalt_iceberg_metadata_to_json. Compressed variants: a gzip copy made
 * here with zlib, and the zstd file of the corpus checked against its
 * content inflated with libzstd. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "basalt/iceberg_metadata.h"
#include "test.h"

/* VIEW: a view metadata file. The table reader must refuse it ("view
 * metadata"); whether the file itself is valid (the README's outcome) is
 * checked by the view reader's test, view_corpus.c. */
enum expect_kind { PARSES, FAILS, VIEW };

struct expectation {
    const char *path;            /* under metadata-json/ */
    enum expect_kind kind;
    basalt_status status;        /* for FAILS */
    const char *message;         /* for FAILS: a substring of the error */
    bool is_template;            /* {{ name }} placeholders to substitute */
};

/* Derived from the corpus README: the name says the outcome. */
static const struct expectation expected[] = {
    {"apache-iceberg/TableMetadataPartitionStatisticsFiles.json", PARSES, BASALT_OK, NULL, false},
    {"apache-iceberg/TableMetadataStatisticsFiles.json", PARSES, BASALT_OK, NULL, false},
    {"apache-iceberg/TableMetadataV1Valid.json", PARSES, BASALT_OK, NULL, false},
    {"apache-iceberg/TableMetadataV2Valid.json", PARSES, BASALT_OK, NULL, false},
    {"apache-iceberg/TableMetadataV2ValidMinimal.json", PARSES, BASALT_OK, NULL, false},
    {"apache-iceberg/TableMetadataV3ValidMinimal.json", PARSES, BASALT_OK, NULL, false},
    {"apache-iceberg/TableMetadataUnsupportedVersion.json", FAILS, BASALT_UNSUPPORTED,
     "format-version 42 is newer than the supported 3", false},
    {"apache-iceberg/TableMetadataV1MissingSchemaType.json", FAILS, BASALT_CORRUPT,
     "schema: cannot parse type", false},
    {"apache-iceberg/TableMetadataV2CurrentSchemaNotFound.json", FAILS, BASALT_CORRUPT,
     "current-schema-id", false},
    {"apache-iceberg/TableMetadataV2MissingLastPartitionId.json", FAILS, BASALT_CORRUPT,
     "missing 'last-partition-id'", false},
    {"apache-iceberg/TableMetadataV2MissingPartitionSpecs.json", FAILS, BASALT_CORRUPT,
     "missing 'partition-specs'", false},
    {"apache-iceberg/TableMetadataV2MissingSchemas.json", FAILS, BASALT_CORRUPT,
     "missing 'schemas'", false},
    {"apache-iceberg/TableMetadataV2MissingSortOrder.json", FAILS, BASALT_CORRUPT,
     "missing 'sort-orders'", false},
    {"apache-iceberg/view/ValidViewMetadata.json", VIEW, BASALT_CORRUPT, "view metadata", false},
    {"apache-iceberg/view/ViewMetadataInvalidCurrentSchema.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"apache-iceberg/view/ViewMetadataInvalidCurrentVersion.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"apache-iceberg/view/ViewMetadataMissingCurrentVersion.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"apache-iceberg/view/ViewMetadataMissingLocation.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"apache-iceberg/view/ViewMetadataMultipleSQLsForDialect.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"iceberg-go/TableMetadataV2Valid.zstd.metadata.json", PARSES, BASALT_OK, NULL, false},
    {"iceberg-go/TableMetadataV2ValidMinimal.json", PARSES, BASALT_OK, NULL, false},
    {"iceberg-go/TableMetadataV3WithPartitionStatistics.json", PARSES, BASALT_OK, NULL, false},
    {"iceberg-rust/example_empty_table_metadata_v2.json", PARSES, BASALT_OK, NULL, true},
    {"iceberg-rust/example_table_metadata_v2.json", PARSES, BASALT_OK, NULL, true},
    {"iceberg-rust/example_table_metadata_v2_deep_history.json", PARSES, BASALT_OK, NULL, true},
    {"iceberg-rust/example_table_metadata_v2_partition_evolution.json", PARSES, BASALT_OK, NULL,
     true},
    /* Format version 3 was "too high" for the reader these fixtures came
     * with; here v3 is supported, and the file still fails: a v3 document
     * must have `schemas`. */
    {"iceberg-rust/table_metadata/TableMetadataUnsupportedVersion.json", FAILS, BASALT_CORRUPT,
     "missing 'schemas'", false},
    {"iceberg-rust/table_metadata/TableMetadataV1Compat.json", PARSES, BASALT_OK, NULL, false},
    {"iceberg-rust/table_metadata/TableMetadataV1NoValidSchema.json", FAILS, BASALT_CORRUPT,
     "missing 'current-schema-id'", false},
    {"iceberg-rust/table_metadata/TableMetadataV1PartitionSpecsWithoutDefaultId.json", PARSES,
     BASALT_OK, NULL, false},
    {"iceberg-rust/table_metadata/TableMetadataV1SchemasWithoutCurrentId.json", PARSES, BASALT_OK,
     NULL, false},
    {"iceberg-rust/table_metadata/TableMetadataV1Valid.json", PARSES, BASALT_OK, NULL, false},
    {"iceberg-rust/table_metadata/TableMetadataV2CurrentSchemaNotFound.json", FAILS,
     BASALT_CORRUPT, "current-schema-id", false},
    {"iceberg-rust/table_metadata/TableMetadataV2MissingLastPartitionId.json", FAILS,
     BASALT_CORRUPT, "missing 'last-partition-id'", false},
    {"iceberg-rust/table_metadata/TableMetadataV2MissingPartitionSpecs.json", FAILS,
     BASALT_CORRUPT, "missing 'partition-specs'", false},
    {"iceberg-rust/table_metadata/TableMetadataV2MissingSchemas.json", FAILS, BASALT_CORRUPT,
     "missing 'schemas'", false},
    {"iceberg-rust/table_metadata/TableMetadataV2MissingSortOrder.json", FAILS, BASALT_CORRUPT,
     "missing 'sort-orders'", false},
    {"iceberg-rust/table_metadata/TableMetadataV2Valid.json", PARSES, BASALT_OK, NULL, false},
    {"iceberg-rust/table_metadata/TableMetadataV2ValidMinimal.json", PARSES, BASALT_OK, NULL,
     false},
    {"iceberg-rust/table_metadata/TableMetadataV3ValidEncryption.json", PARSES, BASALT_OK, NULL,
     false},
    {"iceberg-rust/table_metadata/TableMetadataV3ValidMinimal.json", PARSES, BASALT_OK, NULL,
     false},
    {"iceberg-rust/view_metadata/ViewMetadataUnsupportedVersion.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"iceberg-rust/view_metadata/ViewMetadataV1CurrentVersionNotFound.json", VIEW,
     BASALT_CORRUPT, "view metadata", false},
    {"iceberg-rust/view_metadata/ViewMetadataV1MissingCurrentVersion.json", VIEW,
     BASALT_CORRUPT, "view metadata", false},
    {"iceberg-rust/view_metadata/ViewMetadataV1MissingSchema.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"iceberg-rust/view_metadata/ViewMetadataV1SchemaNotFound.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
    {"iceberg-rust/view_metadata/ViewMetadataV1Valid.json", VIEW, BASALT_CORRUPT,
     "view metadata", false},
};

#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

/* ------------------------------------------------------ deep comparison */

#define SAME(cond)                                                                          \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            snprintf(why, 256, "%s:%d: %s", __func__, __LINE__, #cond);                     \
            return false;                                                                   \
        }                                                                                   \
    } while (0)

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_value(const struct basalt_iceberg_value *a, const struct basalt_iceberg_value *b)
{
    if (a->type != b->type || a->is_null != b->is_null)
        return false;
    if (a->is_null)
        return true;
    switch (a->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return a->u.b == b->u.b;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return a->u.i32 == b->u.i32;
    case BASALT_ICEBERG_TYPE_FLOAT:
        return memcmp(&a->u.f32, &b->u.f32, sizeof(float)) == 0;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return memcmp(&a->u.f64, &b->u.f64, sizeof(double)) == 0;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        return a->scale == b->scale && a->u.dec.lo == b->u.dec.lo && a->u.dec.hi == b->u.dec.hi;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        return a->u.bytes.len == b->u.bytes.len &&
               memcmp(a->u.bytes.data, b->u.bytes.data, a->u.bytes.len) == 0;
    default:
        return a->u.i64 == b->u.i64;
    }
}

static bool same_type(const struct basalt_iceberg_type *a, const struct basalt_iceberg_type *b,
                      char *why);

static bool same_field(const struct basalt_iceberg_field *a, const struct basalt_iceberg_field *b,
                       char *why)
{
    SAME(a->id == b->id && same_str(a->name, b->name) && a->required == b->required);
    SAME(same_str(a->doc, b->doc));
    SAME(same_str(a->initial_default_json, b->initial_default_json));
    SAME(same_str(a->write_default_json, b->write_default_json));
    SAME(same_value(&a->initial_default, &b->initial_default));
    SAME(same_value(&a->write_default, &b->write_default));
    return same_type(&a->type, &b->type, why);
}

static bool same_type(const struct basalt_iceberg_type *a, const struct basalt_iceberg_type *b,
                      char *why)
{
    SAME(a->id == b->id && a->precision == b->precision && a->scale == b->scale &&
         a->length == b->length && same_str(a->crs, b->crs) &&
         same_str(a->algorithm, b->algorithm) && a->n_fields == b->n_fields);
    for (uint32_t i = 0; i < a->n_fields; i++)
        if (!same_field(&a->fields[i], &b->fields[i], why))
            return false;
    return true;
}

static bool same_kv(const struct basalt_iceberg_kv *a, uint32_t na,
                    const struct basalt_iceberg_kv *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!same_str(a[i].key, b[i].key) || !same_str(a[i].value, b[i].value))
            return false;
    return true;
}

static bool same_transform(const struct basalt_iceberg_transform *a,
                           const struct basalt_iceberg_transform *b)
{
    return a->kind == b->kind && a->param == b->param && same_str(a->text, b->text);
}

static bool same_metadata(const struct basalt_iceberg_metadata *a,
                          const struct basalt_iceberg_metadata *b, char *why)
{
    SAME(a->format_version == b->format_version && same_str(a->table_uuid, b->table_uuid));
    SAME(same_str(a->location, b->location));
    SAME(a->last_sequence_number == b->last_sequence_number);
    SAME(a->last_updated_ms == b->last_updated_ms && a->last_column_id == b->last_column_id);
    SAME(a->n_schemas == b->n_schemas && a->current_schema_id == b->current_schema_id);
    for (uint32_t i = 0; i < a->n_schemas; i++) {
        const struct basalt_iceberg_schema *x = &a->schemas[i], *y = &b->schemas[i];
        SAME(x->schema_id == y->schema_id);
        SAME(x->n_identifier_field_ids == y->n_identifier_field_ids);
        for (uint32_t j = 0; j < x->n_identifier_field_ids; j++)
            SAME(x->identifier_field_ids[j] == y->identifier_field_ids[j]);
        if (!same_type(&x->root, &y->root, why))
            return false;
    }
    SAME(a->n_specs == b->n_specs && a->default_spec_id == b->default_spec_id);
    SAME(a->last_partition_id == b->last_partition_id);
    for (uint32_t i = 0; i < a->n_specs; i++) {
        SAME(a->specs[i].spec_id == b->specs[i].spec_id);
        SAME(a->specs[i].n_fields == b->specs[i].n_fields);
        for (uint32_t j = 0; j < a->specs[i].n_fields; j++) {
            const struct basalt_iceberg_partition_field *x = &a->specs[i].fields[j];
            const struct basalt_iceberg_partition_field *y = &b->specs[i].fields[j];
            SAME(x->source_id == y->source_id && x->field_id == y->field_id);
            SAME(same_str(x->name, y->name) && same_transform(&x->transform, &y->transform));
            SAME(x->n_source_ids == y->n_source_ids);
            for (uint32_t k = 0; k < x->n_source_ids && k < y->n_source_ids; k++)
                SAME(x->source_ids[k] == y->source_ids[k]);
        }
    }
    SAME(same_kv(a->properties, a->n_properties, b->properties, b->n_properties));
    SAME(a->has_current_snapshot_id == b->has_current_snapshot_id);
    SAME(a->current_snapshot_id == b->current_snapshot_id);
    SAME(a->n_snapshots == b->n_snapshots);
    for (uint32_t i = 0; i < a->n_snapshots; i++) {
        const struct basalt_iceberg_snapshot *x = &a->snapshots[i], *y = &b->snapshots[i];
        SAME(x->snapshot_id == y->snapshot_id);
        SAME(x->has_parent_snapshot_id == y->has_parent_snapshot_id);
        SAME(!x->has_parent_snapshot_id || x->parent_snapshot_id == y->parent_snapshot_id);
        SAME(x->sequence_number == y->sequence_number && x->timestamp_ms == y->timestamp_ms);
        SAME(same_str(x->manifest_list, y->manifest_list) && x->n_manifests == y->n_manifests);
        for (uint32_t j = 0; j < x->n_manifests; j++)
            SAME(same_str(x->manifests[j], y->manifests[j]));
        SAME(same_str(x->operation, y->operation));
        SAME(same_kv(x->summary, x->n_summary, y->summary, y->n_summary));
        SAME(x->has_schema_id == y->has_schema_id && x->schema_id == y->schema_id);
        SAME(x->has_first_row_id == y->has_first_row_id && x->first_row_id == y->first_row_id);
        SAME(x->has_added_rows == y->has_added_rows && x->added_rows == y->added_rows);
        SAME(same_str(x->key_id, y->key_id));
    }
    SAME(a->n_snapshot_log == b->n_snapshot_log);
    for (uint32_t i = 0; i < a->n_snapshot_log; i++)
        SAME(a->snapshot_log[i].timestamp_ms == b->snapshot_log[i].timestamp_ms &&
             a->snapshot_log[i].snapshot_id == b->snapshot_log[i].snapshot_id);
    SAME(a->n_metadata_log == b->n_metadata_log);
    for (uint32_t i = 0; i < a->n_metadata_log; i++)
        SAME(a->metadata_log[i].timestamp_ms == b->metadata_log[i].timestamp_ms &&
             same_str(a->metadata_log[i].metadata_file, b->metadata_log[i].metadata_file));
    SAME(a->n_sort_orders == b->n_sort_orders);
    SAME(a->default_sort_order_id == b->default_sort_order_id);
    for (uint32_t i = 0; i < a->n_sort_orders; i++) {
        SAME(a->sort_orders[i].order_id == b->sort_orders[i].order_id);
        SAME(a->sort_orders[i].n_fields == b->sort_orders[i].n_fields);
        for (uint32_t j = 0; j < a->sort_orders[i].n_fields; j++) {
            const struct basalt_iceberg_sort_field *x = &a->sort_orders[i].fields[j];
            const struct basalt_iceberg_sort_field *y = &b->sort_orders[i].fields[j];
            SAME(same_transform(&x->transform, &y->transform) && x->source_id == y->source_id);
            SAME(x->direction == y->direction && x->null_order == y->null_order);
            SAME(x->n_source_ids == y->n_source_ids);
            for (uint32_t k = 0; k < x->n_source_ids && k < y->n_source_ids; k++)
                SAME(x->source_ids[k] == y->source_ids[k]);
        }
    }
    SAME(a->n_refs == b->n_refs);
    for (uint32_t i = 0; i < a->n_refs; i++) {
        const struct basalt_iceberg_ref *x = &a->refs[i], *y = &b->refs[i];
        SAME(same_str(x->name, y->name) && x->snapshot_id == y->snapshot_id);
        SAME(x->is_tag == y->is_tag);
        SAME(x->has_min_snapshots_to_keep == y->has_min_snapshots_to_keep &&
             x->min_snapshots_to_keep == y->min_snapshots_to_keep);
        SAME(x->has_max_snapshot_age_ms == y->has_max_snapshot_age_ms &&
             x->max_snapshot_age_ms == y->max_snapshot_age_ms);
        SAME(x->has_max_ref_age_ms == y->has_max_ref_age_ms &&
             x->max_ref_age_ms == y->max_ref_age_ms);
    }
    SAME(a->n_statistics == b->n_statistics);
    for (uint32_t i = 0; i < a->n_statistics; i++) {
        const struct basalt_iceberg_statistics_file *x = &a->statistics[i], *y = &b->statistics[i];
        SAME(x->snapshot_id == y->snapshot_id && same_str(x->statistics_path, y->statistics_path));
        SAME(x->file_size_in_bytes == y->file_size_in_bytes);
        SAME(x->file_footer_size_in_bytes == y->file_footer_size_in_bytes);
        SAME(same_str(x->key_metadata, y->key_metadata) && x->n_blobs == y->n_blobs);
        for (uint32_t j = 0; j < x->n_blobs; j++) {
            const struct basalt_iceberg_blob_metadata *p = &x->blobs[j], *q = &y->blobs[j];
            SAME(same_str(p->type, q->type) && p->snapshot_id == q->snapshot_id);
            SAME(p->sequence_number == q->sequence_number && p->n_fields == q->n_fields);
            SAME(memcmp(p->fields, q->fields, p->n_fields * sizeof(int32_t)) == 0);
            SAME(same_kv(p->properties, p->n_properties, q->properties, q->n_properties));
        }
    }
    SAME(a->n_partition_statistics == b->n_partition_statistics);
    for (uint32_t i = 0; i < a->n_partition_statistics; i++) {
        const struct basalt_iceberg_partition_statistics_file *x = &a->partition_statistics[i];
        const struct basalt_iceberg_partition_statistics_file *y = &b->partition_statistics[i];
        SAME(x->snapshot_id == y->snapshot_id && same_str(x->statistics_path, y->statistics_path));
        SAME(x->file_size_in_bytes == y->file_size_in_bytes);
    }
    SAME(a->has_next_row_id == b->has_next_row_id && a->next_row_id == b->next_row_id);
    SAME(a->n_encryption_keys == b->n_encryption_keys);
    for (uint32_t i = 0; i < a->n_encryption_keys; i++) {
        const struct basalt_iceberg_encryption_key *x = &a->encryption_keys[i];
        const struct basalt_iceberg_encryption_key *y = &b->encryption_keys[i];
        SAME(same_str(x->key_id, y->key_id));
        SAME(same_str(x->encrypted_key_metadata, y->encrypted_key_metadata));
        SAME(same_str(x->encrypted_by_id, y->encrypted_by_id));
        SAME(same_kv(x->properties, x->n_properties, y->properties, y->n_properties));
    }
    SAME(same_str(a->unknown_keys_json, b->unknown_keys_json));
    return true;
}

/* --------------------------------------------------------------- files */

static const struct expectation *find_expectation(const char *rel)
{
    for (size_t i = 0; i < N_EXPECTED; i++)
        if (strcmp(expected[i].path, rel) == 0)
            return &expected[i];
    return NULL;
}

/* Replaces each "{{ name }}" with "s3://bucket/name". */
static char *substitute(const uint8_t *data, size_t len, size_t *out_len)
{
    char *out = basalt_malloc(len * 2 + 64);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (i + 1 < len && data[i] == '{' && data[i + 1] == '{') {
            size_t j = i + 2;
            while (j + 1 < len && !(data[j] == '}' && data[j + 1] == '}'))
                j++;
            memcpy(out + o, "s3://bucket/", 12);
            o += 12;
            for (size_t k = i + 2; k < j; k++)
                if (data[k] != ' ')
                    out[o++] = (char)data[k];
            i = j + 2;
        } else {
            out[o++] = (char)data[i++];
        }
    }
    *out_len = o;
    return out;
}

/* Lists regular *.json files under dir (relative names), recursively; also
 * used by view_corpus.c. */
int iceberg_test_list_json(const char *root, const char *rel, char names[][256], int cap, int n);
int iceberg_test_list_json(const char *root, const char *rel, char names[][256], int cap, int n)
{
    char path[1024];
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
        return n;
    DIR *d = opendir(path);
    if (!d)
        return n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char sub[256];
        if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
            sizeof(sub))
            continue;
        char full[1400];
        if ((size_t)snprintf(full, sizeof(full), "%s/%s", root, sub) >= sizeof(full))
            continue;
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            n = iceberg_test_list_json(root, sub, names, cap, n);
        else if (strlen(sub) > 5 && strcmp(sub + strlen(sub) - 5, ".json") == 0 && n < cap)
            memcpy(names[n++], sub, sizeof(sub));
    }
    closedir(d);
    return n;
}

/* Parses, serialises, parses again, and compares field by field. */
static bool round_trip(const struct basalt_iceberg_metadata *m, const char *name)
{
    char *json = NULL;
    size_t len = 0;
    struct basalt_error err;
    if (basalt_iceberg_metadata_to_json(m, &json, &len, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "%s: to_json: %s", name, err.message);
        return false;
    }
    struct basalt_iceberg_metadata *again = NULL;
    basalt_status st = basalt_iceberg_metadata_parse(json, len, "round-trip", &again, &err);
    bool ok = st == BASALT_OK;
    char why[256] = "";
    if (!ok)
        bt_fail(__FILE__, __LINE__, "%s: reparse: %s", name, err.message);
    else if (!same_metadata(m, again, why)) {
        bt_fail(__FILE__, __LINE__, "%s: round trip differs: %s", name, why);
        ok = false;
    }
    basalt_iceberg_metadata_free(again);
    basalt_free(json);
    return ok;
}

TEST(metadata_corpus_every_file)
{
    const char *root = bt_testdata_path("iceberg/metadata-json");
    char rootbuf[1024];
    snprintf(rootbuf, sizeof(rootbuf), "%s", root);
    static char names[256][256];
    int n = iceberg_test_list_json(rootbuf, "", names, 256, 0);
    CHECK_MSG(n >= (int)N_EXPECTED, "found %d json files under %s, expected %zu", n, rootbuf,
              N_EXPECTED);
    int parsed = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        const struct expectation *e = find_expectation(names[i]);
        CHECK_MSG(e != NULL, "%s has no expected outcome in the table", names[i]);
        char full[1400];
        CHECK((size_t)snprintf(full, sizeof(full), "%s/%s", rootbuf, names[i]) < sizeof(full));
        size_t len = 0;
        uint8_t *data = bt_read_file(full, &len);
        CHECK_MSG(data != NULL, "cannot read %s", full);
        char *text = (char *)data;
        if (e->is_template) {
            size_t tlen;
            text = substitute(data, len, &tlen);
            basalt_free(data);
            data = NULL;
            CHECK(text != NULL);
            len = tlen;
        }
        const char *base = strrchr(names[i], '/') ? strrchr(names[i], '/') + 1 : names[i];
        struct basalt_iceberg_metadata *m = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_iceberg_metadata_parse(text, len, base, &m, &err);
        basalt_free(text);
        if (e->kind == PARSES) {
            CHECK_MSG(st == BASALT_OK, "%s: expected to parse, got %s: %s", names[i],
                      basalt_status_name(st), err.message);
            bool ok = round_trip(m, names[i]);
            basalt_iceberg_metadata_free(m);
            if (!ok)
                return;
            parsed++;
        } else {
            basalt_iceberg_metadata_free(m);
            CHECK_MSG(st == e->status, "%s: expected %s, got %s: %s", names[i],
                      basalt_status_name(e->status), basalt_status_name(st), err.message);
            CHECK_MSG(m == NULL, "%s: *out set on failure", names[i]);
            CHECK_MSG(strncmp(err.message, base, strlen(base)) == 0,
                      "%s: message does not start with the file name: %s", names[i], err.message);
            CHECK_MSG(strstr(err.message, e->message) != NULL, "%s: message '%s' lacks '%s'",
                      names[i], err.message, e->message);
            failed++;
        }
    }
    CHECK_EQ(parsed + failed, (int)N_EXPECTED);
}

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

TEST(metadata_gzip_variant)
{
    size_t len = 0, glen = 0;
    uint8_t *plain =
        bt_read_file(bt_testdata_path("iceberg/metadata-json/apache-iceberg/TableMetadataV2Valid.json"), &len);
    CHECK(plain != NULL);
    uint8_t *gz = gzip_copy(plain, len, &glen);
    CHECK(gz != NULL && gz[0] == 0x1f && gz[1] == 0x8b);
    struct basalt_iceberg_metadata *a = NULL, *b = NULL, *c = NULL;
    struct basalt_error err;
    basalt_status st1 = basalt_iceberg_metadata_parse(plain, len, "plain", &a, &err);
    basalt_status st2 = basalt_iceberg_metadata_parse(gz, glen, "v2.gz.metadata.json", &b, &err);
    /* A truncated gzip stream is corrupt; the name is in the message. */
    basalt_error_init(&err);
    basalt_status st3 = basalt_iceberg_metadata_parse(gz, glen / 2, "cut.gz", &c, &err);
    /* A tight inflate limit gives LIMIT. */
    struct basalt_iceberg_metadata *d = NULL;
    struct basalt_error err4;
    basalt_status st4 = basalt_iceberg_metadata_parse_limit(gz, glen, "small.gz", 100, &d, &err4);
    char why[256] = "";
    bool same = st1 == BASALT_OK && st2 == BASALT_OK && same_metadata(a, b, why);
    basalt_iceberg_metadata_free(a);
    basalt_iceberg_metadata_free(b);
    basalt_iceberg_metadata_free(c);
    basalt_iceberg_metadata_free(d);
    basalt_free(plain);
    basalt_free(gz);
    CHECK_EQ(st1, BASALT_OK);
    CHECK_EQ(st2, BASALT_OK);
    CHECK_MSG(same, "gzip copy differs: %s", why);
    CHECK_EQ(st3, BASALT_CORRUPT);
    CHECK(strstr(err.message, "cut.gz") == err.message);
    CHECK_EQ(st4, BASALT_LIMIT);
    CHECK(d == NULL);
}

TEST(metadata_zstd_variant)
{
    size_t len = 0;
    uint8_t *z = bt_read_file(
        bt_testdata_path("iceberg/metadata-json/iceberg-go/TableMetadataV2Valid.zstd.metadata.json"),
        &len);
    CHECK(z != NULL);
    CHECK(len >= 4 && z[0] == 0x28 && z[1] == 0xb5 && z[2] == 0x2f && z[3] == 0xfd);
    /* The oracle: libzstd's own streaming decoder. */
    size_t cap = 1 << 20, plain_len = 0;
    uint8_t *plain = basalt_malloc(cap);
    CHECK(plain != NULL);
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    ZSTD_inBuffer in = {z, len, 0};
    ZSTD_outBuffer outb = {plain, cap, 0};
    size_t rc;
    do {
        rc = ZSTD_decompressStream(ds, &outb, &in);
    } while (!ZSTD_isError(rc) && rc != 0 && in.pos < in.size);
    ZSTD_freeDStream(ds);
    plain_len = outb.pos;
    struct basalt_iceberg_metadata *a = NULL, *b = NULL;
    struct basalt_error err;
    basalt_status st1 = basalt_iceberg_metadata_parse(plain, plain_len, "plain", &a, &err);
    basalt_status st2 = basalt_iceberg_metadata_parse(z, len, "zstd", &b, &err);
    char why[256] = "";
    bool same = st1 == BASALT_OK && st2 == BASALT_OK && same_metadata(a, b, why);
    bool values = st2 == BASALT_OK && b->format_version == 2 && !b->has_current_snapshot_id &&
                  b->n_snapshots == 0 && b->last_sequence_number == 0 &&
                  b->last_updated_ms == 1602638573590LL && b->last_partition_id == 999 &&
                  b->n_schemas == 1 && b->schemas[0].root.n_fields == 3 &&
                  strcmp(b->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1") == 0 &&
                  b->n_refs == 0;
    basalt_iceberg_metadata_free(a);
    basalt_iceberg_metadata_free(b);
    basalt_free(plain);
    basalt_free(z);
    CHECK(!ZSTD_isError(rc));
    CHECK_EQ(st1, BASALT_OK);
    CHECK_EQ(st2, BASALT_OK);
    CHECK_MSG(same, "zstd file differs from its inflated text: %s", why);
    CHECK(values);
}
