/* Stand-alone manifest and manifest-list fixtures: icebird's files against
 * the records in their JSON dumps (written by an independent Avro reader),
 * the iceberg-rust and iceberg-go manifest lists against their README. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "basalt/iceberg_manifest.h"
#include "test.h"

#define ICEBIRD_LIST "iceberg/icebird/snap-8656952484400131532-1-a85973e4-4009-4cba-875e-5278a2c6027d"
#define ICEBIRD_MANIFEST "iceberg/icebird/a85973e4-4009-4cba-875e-5278a2c6027d-m0"

static uint8_t *read_corpus(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", bt_testdata_path(""));
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/%s", rel);
    return bt_read_file(path, len);
}

static json_t *read_json(const char *rel)
{
    size_t len;
    uint8_t *data = read_corpus(rel, &len);
    if (!data)
        return NULL;
    json_t *j = json_loadb((const char *)data, len, 0, NULL);
    basalt_free(data);
    return j;
}

/* 64-bit ids in these dumps went through JavaScript doubles. */
static bool same_long(int64_t ours, json_t *j)
{
    if (json_is_integer(j))
        return (double)ours == (double)json_integer_value(j);
    if (json_is_real(j))
        return (double)ours == json_real_value(j);
    return false;
}

static bool json_long_is(json_t *obj, const char *key, int64_t ours)
{
    json_t *j = json_object_get(obj, key);
    return j && same_long(ours, j);
}

TEST(manifest_icebird_list_matches_json)
{
    size_t len;
    uint8_t *data = read_corpus(ICEBIRD_LIST ".avro", &len);
    CHECK(data);
    json_t *expect = read_json(ICEBIRD_LIST ".json");
    CHECK(expect && json_is_array(expect));
    struct basalt_error err;
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_manifest_list_parse(data, len, "snap.avro", 2, &list, &err);
    basalt_free(data);
    bool ok = st == BASALT_OK && list->n_files == json_array_size(expect);
    for (uint32_t i = 0; ok && i < list->n_files; i++) {
        const struct basalt_iceberg_manifest_file *f = &list->files[i];
        json_t *e = json_array_get(expect, i);
        ok = strcmp(f->manifest_path, json_string_value(json_object_get(e, "manifest_path"))) == 0 &&
             json_long_is(e, "manifest_length", f->manifest_length) &&
             json_long_is(e, "partition_spec_id", f->partition_spec_id) &&
             json_long_is(e, "content", f->content) &&
             json_long_is(e, "sequence_number", f->sequence_number) &&
             json_long_is(e, "min_sequence_number", f->min_sequence_number) &&
             json_long_is(e, "added_snapshot_id", f->added_snapshot_id) &&
             json_long_is(e, "added_data_files_count", f->added_files_count) &&
             json_long_is(e, "existing_data_files_count", f->existing_files_count) &&
             json_long_is(e, "deleted_data_files_count", f->deleted_files_count) &&
             json_long_is(e, "added_rows_count", f->added_rows_count) &&
             json_long_is(e, "existing_rows_count", f->existing_rows_count) &&
             json_long_is(e, "deleted_rows_count", f->deleted_rows_count) &&
             json_array_size(json_object_get(e, "partitions")) == f->n_partitions &&
             !f->key_metadata && !f->has_first_row_id;
    }
    /* The id is exact in the file name, beyond what the JSON double kept. */
    if (ok)
        ok = list->files[0].added_snapshot_id == INT64_C(8656952484400131532);
    basalt_iceberg_manifest_list_free(list);
    json_decref(expect);
    CHECK_OK(st, &err);
    CHECK(ok);
}

static bool metric_longs_match(json_t *arr, const struct basalt_iceberg_metric_long *m, uint32_t n)
{
    if (!arr)
        return n == 0;
    if (json_array_size(arr) != n)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        json_t *kv = json_array_get(arr, i);
        if (!json_long_is(kv, "key", m[i].field_id) || !json_long_is(kv, "value", m[i].value))
            return false;
    }
    return true;
}

static bool metric_bytes_match(json_t *arr, const struct basalt_iceberg_metric_bytes *m, uint32_t n)
{
    if (!arr)
        return n == 0;
    if (json_array_size(arr) != n)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        json_t *kv = json_array_get(arr, i);
        json_t *v = json_object_get(kv, "value");
        if (!json_long_is(kv, "key", m[i].field_id) || json_array_size(v) != m[i].len)
            return false;
        for (size_t b = 0; b < m[i].len; b++)
            if (json_integer_value(json_array_get(v, b)) != m[i].data[b])
                return false;
    }
    return true;
}

/* Compares one entry to its JSON record; returns a description of the first
 * difference or NULL. */
static const char *entry_differs(const struct basalt_iceberg_manifest_entry *e, json_t *j)
{
    const struct basalt_iceberg_data_file *df = &e->data_file;
    json_t *d = json_object_get(j, "data_file");
    if (!json_long_is(j, "status", e->status))
        return "status";
    if (!json_long_is(j, "snapshot_id", e->snapshot_id))
        return "snapshot_id";
    if (json_object_get(j, "sequence_number") || json_object_get(j, "file_sequence_number"))
        return "sequence numbers expected null in this file";
    if (!json_long_is(d, "content", df->content))
        return "content";
    if (strcmp(df->file_path, json_string_value(json_object_get(d, "file_path"))) != 0)
        return "file_path";
    if (strcmp(json_string_value(json_object_get(d, "file_format")), "PARQUET") != 0 ||
        df->file_format != BASALT_ICEBERG_FORMAT_PARQUET)
        return "file_format";
    if (json_object_size(json_object_get(d, "partition")) != df->n_partition)
        return "partition";
    if (!json_long_is(d, "record_count", df->record_count))
        return "record_count";
    if (!json_long_is(d, "file_size_in_bytes", df->file_size_in_bytes))
        return "file_size_in_bytes";
    if (!metric_longs_match(json_object_get(d, "column_sizes"), df->column_sizes, df->n_column_sizes))
        return "column_sizes";
    if (!metric_longs_match(json_object_get(d, "value_counts"), df->value_counts, df->n_value_counts))
        return "value_counts";
    if (!metric_longs_match(json_object_get(d, "null_value_counts"), df->null_value_counts,
                            df->n_null_value_counts))
        return "null_value_counts";
    if (!metric_longs_match(json_object_get(d, "nan_value_counts"), df->nan_value_counts,
                            df->n_nan_value_counts))
        return "nan_value_counts";
    if (!metric_bytes_match(json_object_get(d, "lower_bounds"), df->lower_bounds, df->n_lower_bounds))
        return "lower_bounds";
    if (!metric_bytes_match(json_object_get(d, "upper_bounds"), df->upper_bounds, df->n_upper_bounds))
        return "upper_bounds";
    json_t *splits = json_object_get(d, "split_offsets");
    if (json_array_size(splits) != df->n_split_offsets)
        return "split_offsets count";
    for (uint32_t i = 0; i < df->n_split_offsets; i++)
        if (!same_long(df->split_offsets[i], json_array_get(splits, i)))
            return "split_offsets";
    json_t *sort = json_object_get(d, "sort_order_id");
    if (!sort != !df->has_sort_order_id || (sort && !same_long(df->sort_order_id, sort)))
        return "sort_order_id";
    if (!json_object_get(d, "key_metadata") != !df->key_metadata)
        return "key_metadata";
    if (json_array_size(json_object_get(d, "equality_ids")) != df->n_equality_ids)
        return "equality_ids";
    if (df->has_first_row_id || df->referenced_data_file || df->has_content_offset)
        return "v3 fields present";
    return NULL;
}

TEST(manifest_icebird_manifest_matches_json)
{
    size_t len, list_len;
    uint8_t *data = read_corpus(ICEBIRD_MANIFEST ".avro", &len);
    uint8_t *list_data = read_corpus(ICEBIRD_LIST ".avro", &list_len);
    json_t *expect = read_json(ICEBIRD_MANIFEST ".json");
    bool have = data && list_data && expect && json_is_array(expect);
    struct basalt_error err;
    struct basalt_iceberg_manifest_list *list = NULL;
    struct basalt_iceberg_manifest *m = NULL, *inherited = NULL, *lean = NULL;
    basalt_status st = BASALT_INTERNAL;
    const char *diff = "not parsed";
    if (have &&
        (st = basalt_iceberg_manifest_list_parse(list_data, list_len, NULL, 2, &list, &err)) ==
            BASALT_OK &&
        (st = basalt_iceberg_manifest_parse(data, len, "m0.avro", NULL, NULL, NULL, NULL, &m,
                                            &err)) == BASALT_OK &&
        (st = basalt_iceberg_manifest_parse(data, len, "m0.avro", &list->files[0], NULL, NULL, NULL,
                                            &inherited, &err)) == BASALT_OK) {
        struct basalt_iceberg_manifest_read_options o;
        basalt_iceberg_manifest_read_options_init(&o);
        o.with_metrics = false;
        st = basalt_iceberg_manifest_parse(data, len, "m0.avro", &list->files[0], NULL, NULL, &o,
                                           &lean, &err);
        diff = m->n_entries == json_array_size(expect) ? NULL : "entry count";
        for (uint32_t i = 0; !diff && i < m->n_entries; i++)
            diff = entry_differs(&m->entries[i], json_array_get(expect, i));
        /* Header keys. */
        if (!diff && (m->format_version != 2 || m->spec_id != 0 ||
                      m->content != BASALT_ICEBERG_MANIFEST_DATA))
            diff = "manifest header keys";
        /* Null sequence numbers: 0 alone, the list's (1) when inherited by
         * the ADDED entry. */
        if (!diff && (m->entries[0].sequence_number != 0 || m->entries[0].file_sequence_number != 0))
            diff = "sequence numbers without a list";
        if (!diff && (inherited->entries[0].sequence_number != 1 ||
                      inherited->entries[0].file_sequence_number != 1 ||
                      inherited->entries[0].snapshot_id != INT64_C(8656952484400131532)))
            diff = "inherited sequence numbers";
        if (!diff && st == BASALT_OK &&
            (lean->n_entries != 1 || lean->entries[0].data_file.n_lower_bounds != 0 ||
             lean->entries[0].data_file.n_column_sizes != 0 ||
             lean->entries[0].data_file.record_count != 21 ||
             lean->entries[0].data_file.n_split_offsets != 1))
            diff = "with_metrics=false";
    }
    basalt_iceberg_manifest_free(m);
    basalt_iceberg_manifest_free(inherited);
    basalt_iceberg_manifest_free(lean);
    basalt_iceberg_manifest_list_free(list);
    basalt_free(data);
    basalt_free(list_data);
    json_decref(expect);
    CHECK(have);
    CHECK_OK(st, &err);
    CHECK_MSG(!diff, "differs: %s", diff ? diff : "");
}

/* Field ids, not names: the two v2 lists name the count fields differently. */
TEST(manifest_lists_resolve_by_field_id)
{
    static const char *files[] = {
        "iceberg/manifests/iceberg-rust/manifests_lists/manifest-list-v2-1.avro",
        "iceberg/manifests/iceberg-rust/manifests_lists/manifest-list-v2-2.avro"};
    for (int f = 0; f < 2; f++) {
        size_t len;
        uint8_t *data = read_corpus(files[f], &len);
        CHECK(data);
        struct basalt_error err;
        struct basalt_iceberg_manifest_list *list = NULL;
        basalt_status st = basalt_iceberg_manifest_list_parse(data, len, files[f], 2, &list, &err);
        basalt_free(data);
        CHECK_OK(st, &err);
        bool ok = list->n_files >= 1;
        for (uint32_t i = 0; ok && i < list->n_files; i++) {
            const struct basalt_iceberg_manifest_file *mf = &list->files[i];
            /* Every count field was found (absent ones read -1). */
            ok = mf->added_files_count >= 0 && mf->existing_files_count >= 0 &&
                 mf->deleted_files_count >= 0 && mf->added_rows_count >= 0 &&
                 mf->sequence_number >= 0 && mf->manifest_length > 0;
        }
        basalt_iceberg_manifest_list_free(list);
        CHECK_MSG(ok, "%s: a count field was not resolved", files[f]);
    }
}

TEST(manifest_list_v2_values)
{
    /* Values from a decode of the files by a small Python Avro reader
     * written for the purpose (an independent oracle). */
    static const struct {
        const char *file;
        int64_t length, snapshot;
    } cases[] = {
        {"iceberg/manifests/iceberg-rust/manifests_lists/manifest-list-v2-1.avro", 6658,
         INT64_C(6653143792592159268)},
        {"iceberg/manifests/iceberg-rust/manifests_lists/manifest-list-v2-2.avro", 6660,
         INT64_C(3083072880052097243)},
    };
    for (int c = 0; c < 2; c++) {
        size_t len;
        uint8_t *data = read_corpus(cases[c].file, &len);
        CHECK(data);
        struct basalt_error err;
        struct basalt_iceberg_manifest_list *list = NULL;
        basalt_status st = basalt_iceberg_manifest_list_parse(data, len, NULL, 2, &list, &err);
        basalt_free(data);
        CHECK_OK(st, &err);
        const struct basalt_iceberg_manifest_file *f = list->files;
        bool ok = list->n_files == 1 && f->added_snapshot_id == cases[c].snapshot &&
                  f->manifest_length == cases[c].length && f->partition_spec_id == 0 &&
                  f->sequence_number == 1 && f->min_sequence_number == 1 &&
                  f->added_files_count == 1 && f->existing_files_count == 0 &&
                  f->deleted_files_count == 0 && f->added_rows_count == 1 &&
                  f->existing_rows_count == 0 && f->deleted_rows_count == 0 &&
                  f->n_partitions == 0 && f->content == BASALT_ICEBERG_MANIFEST_DATA &&
                  strstr(f->manifest_path, "/people/metadata/") != NULL;
        basalt_iceberg_manifest_list_free(list);
        CHECK_MSG(ok, "%s", cases[c].file);
    }
}

TEST(manifest_list_duckdb_v3)
{
    size_t len;
    uint8_t *data = read_corpus("iceberg/manifests/iceberg-go/duckdb_v3_manifest_list.avro", &len);
    CHECK(data);
    struct basalt_error err;
    for (int32_t fv = 0; fv <= 3; fv += 3) {
        struct basalt_iceberg_manifest_list *list = NULL;
        basalt_status st = basalt_iceberg_manifest_list_parse(data, len, "duckdb", fv, &list, &err);
        if (st != BASALT_OK)
            basalt_free(data);
        CHECK_OK(st, &err);
        const struct basalt_iceberg_manifest_file *f = list->files;
        bool ok = list->n_files == 2 && f[0].content == BASALT_ICEBERG_MANIFEST_DATA &&
                  f[0].sequence_number == 1 && f[0].min_sequence_number == 1 &&
                  f[0].has_first_row_id && f[0].first_row_id == 0 &&
                  f[1].content == BASALT_ICEBERG_MANIFEST_DELETES && f[1].sequence_number == 2 &&
                  f[1].min_sequence_number == 2 && f[1].has_first_row_id &&
                  f[1].first_row_id == 100 && f[0].added_rows_count == 100 &&
                  f[0].added_snapshot_id == INT64_C(5275221492656851850) && f[0].n_partitions == 0;
        /* Without the table's version the file has no key either: v1 reading
         * keeps content (present in the file) but zeroes sequence numbers. */
        if (fv == 0)
            ok = list->n_files == 2 && list->format_version == 1 && f[1].content == 1 &&
                 f[1].sequence_number == 0;
        else
            ok = ok && list->format_version == 3;
        basalt_iceberg_manifest_list_free(list);
        if (!ok)
            basalt_free(data);
        CHECK_MSG(ok, "format version %d", (int)fv);
    }
    basalt_free(data);
}

TEST(manifest_list_encrypted_unsupported)
{
    size_t len;
    uint8_t *data = read_corpus(
        "iceberg/manifests/iceberg-rust/manifests_lists/manifest-list-v3-encrypted.avro", &len);
    CHECK(data);
    struct basalt_error err;
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_manifest_list_parse(data, len, "enc", 3, &list, &err);
    basalt_free(data);
    CHECK_STATUS(st, BASALT_UNSUPPORTED, &err);
    CHECK(list == NULL);
    CHECK(strstr(err.message, "encrypted"));
}

TEST(manifest_rejects_garbage)
{
    static const uint8_t junk[] = "Obj\x01garbage that is not a header";
    struct basalt_error err;
    struct basalt_iceberg_manifest_list *list = NULL;
    struct basalt_iceberg_manifest *m = NULL;
    CHECK_STATUS(basalt_iceberg_manifest_list_parse(junk, sizeof junk, "x", 2, &list, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_iceberg_manifest_parse(junk, 3, "x", NULL, NULL, NULL, NULL, &m, &err),
                 BASALT_CORRUPT, &err);
    CHECK(!list && !m);
    CHECK(strncmp(err.message, "x: ", 3) == 0);
}
