/* Manifests and manifest lists for an independent reader: writes the
 * fixture's manifests (v1, v2, v3; transforms, every partition type,
 * deletes) and their lists as local files, and expected.json describing
 * what each must hold, derived from the inputs and the spec's rules, not
 * from the writer. tests/iceberg/check_manifest.py runs this test with
 * BASALT_MANIFEST_EXPORT_DIR set and checks the files with python3-avro.
 * Without the variable the files go to a temporary directory that is
 * removed afterwards. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "manifest_write_fixture.h"
#include "test.h"

#define SNAPSHOT 999

static json_t *hex(const void *p, size_t n)
{
    char buf[256];
    const uint8_t *b = p;
    if (2 * n + 1 > sizeof buf)
        return NULL;
    for (size_t i = 0; i < n; i++)
        snprintf(buf + 2 * i, 3, "%02x", b[i]);
    buf[2 * n] = '\0';
    return json_string(buf);
}

/* The unscaled value in decimal digits. */
static json_t *decimal_text(struct basalt_iceberg_decimal d)
{
    unsigned __int128 u = ((unsigned __int128)(uint64_t)d.hi << 64) | d.lo;
    bool neg = d.hi < 0;
    if (neg)
        u = ~u + 1;
    char buf[48], *p = buf + sizeof buf - 1;
    *p = '\0';
    do {
        *--p = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (neg)
        *--p = '-';
    return json_string(p);
}

/* The canonical JSON form check_manifest.py also reduces decoded values to. */
static json_t *value_json(const struct basalt_iceberg_value *v)
{
    if (v->is_null)
        return json_null();
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return json_boolean(v->u.b);
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return json_integer(v->u.i32);
    case BASALT_ICEBERG_TYPE_FLOAT:
        return isnan(v->u.f32) ? json_string("NaN") : json_real(v->u.f32);
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return isnan(v->u.f64) ? json_string("NaN") : json_real(v->u.f64);
    case BASALT_ICEBERG_TYPE_STRING:
        return json_stringn((const char *)v->u.bytes.data, v->u.bytes.len);
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_UUID:
        return hex(v->u.bytes.data, v->u.bytes.len);
    case BASALT_ICEBERG_TYPE_DECIMAL:
        return decimal_text(v->u.dec);
    default:
        return json_integer(v->u.i64);
    }
}

static json_t *long_map(const struct basalt_iceberg_metric_long *m, uint32_t n)
{
    if (!n)
        return json_null();
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("[iI]", (int)m[i].field_id, (json_int_t)m[i].value));
    return a;
}

static json_t *bytes_map(const struct basalt_iceberg_metric_bytes *m, uint32_t n)
{
    if (!n)
        return json_null();
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("[io]", (int)m[i].field_id, hex(m[i].data, m[i].len)));
    return a;
}

static json_t *opt_long(bool present, int64_t v) { return present ? json_integer(v) : json_null(); }

static json_t *opt_string(const char *s) { return s ? json_string(s) : json_null(); }

static const char *const format_names[] = {"PARQUET", "AVRO", "ORC", "PUFFIN"};

/* What the spec's rules say an entry is written as (by field name; the
 * script checks only the fields of the version's schema). */
static json_t *entry_json(const struct basalt_iceberg_manifest_entry *e,
                          const struct basalt_iceberg_partition_spec *spec)
{
    const struct basalt_iceberg_data_file *df = &e->data_file;
    bool added = e->status == BASALT_ICEBERG_ENTRY_ADDED;
    bool data = df->content == BASALT_ICEBERG_CONTENT_DATA;
    json_t *part = json_object();
    for (uint32_t i = 0; i < df->n_partition; i++) {
        char id[16];
        snprintf(id, sizeof id, "%d", (int)spec->fields[i].field_id);
        json_object_set_new(part, id, value_json(&df->partition[i]));
    }
    json_t *ints = json_null(), *longs = json_null();
    if (df->n_equality_ids) {
        ints = json_array();
        for (uint32_t i = 0; i < df->n_equality_ids; i++)
            json_array_append_new(ints, json_integer(df->equality_ids[i]));
    }
    if (df->n_split_offsets) {
        longs = json_array();
        for (uint32_t i = 0; i < df->n_split_offsets; i++)
            json_array_append_new(longs, json_integer(df->split_offsets[i]));
    }
    json_t *f = json_object();
    json_object_set_new(f, "content", json_integer(df->content));
    json_object_set_new(f, "file_path", json_string(df->file_path));
    json_object_set_new(f, "file_format", json_string(format_names[df->file_format]));
    json_object_set_new(f, "partition", part);
    json_object_set_new(f, "record_count", json_integer(df->record_count));
    json_object_set_new(f, "file_size_in_bytes", json_integer(df->file_size_in_bytes));
    json_object_set_new(f, "block_size_in_bytes", json_integer(64 * 1024 * 1024));
    json_object_set_new(f, "column_sizes", long_map(df->column_sizes, df->n_column_sizes));
    json_object_set_new(f, "value_counts", long_map(df->value_counts, df->n_value_counts));
    json_object_set_new(f, "null_value_counts",
                        long_map(df->null_value_counts, df->n_null_value_counts));
    json_object_set_new(f, "nan_value_counts",
                        long_map(df->nan_value_counts, df->n_nan_value_counts));
    json_object_set_new(f, "lower_bounds", bytes_map(df->lower_bounds, df->n_lower_bounds));
    json_object_set_new(f, "upper_bounds", bytes_map(df->upper_bounds, df->n_upper_bounds));
    json_object_set_new(f, "key_metadata",
                        df->key_metadata ? hex(df->key_metadata, df->key_metadata_len)
                                         : json_null());
    json_object_set_new(f, "split_offsets", longs);
    json_object_set_new(f, "equality_ids", ints);
    json_object_set_new(f, "sort_order_id", opt_long(df->has_sort_order_id, df->sort_order_id));
    /* null when inherited (ADDED without one) and always for delete files */
    json_object_set_new(f, "first_row_id",
                        opt_long(data && df->has_first_row_id, df->first_row_id));
    json_object_set_new(f, "referenced_data_file", opt_string(df->referenced_data_file));
    json_object_set_new(f, "content_offset", opt_long(df->has_content_offset, df->content_offset));
    json_object_set_new(f, "content_size_in_bytes",
                        opt_long(df->has_content_offset, df->content_size_in_bytes));
    json_t *o = json_object();
    json_object_set_new(o, "status", json_integer(e->status));
    /* the file an ADDED entry adds belongs to the writing snapshot */
    json_object_set_new(o, "snapshot_id", json_integer(added ? SNAPSHOT : e->snapshot_id));
    json_object_set_new(o, "sequence_number", opt_long(!added, e->sequence_number));
    json_object_set_new(o, "file_sequence_number", opt_long(!added, e->file_sequence_number));
    json_object_set_new(o, "data_file", f);
    return o;
}

struct written {
    char name[64];
    const struct basalt_iceberg_partition_spec *spec;
    enum basalt_iceberg_manifest_content content;
    const struct basalt_iceberg_manifest_entry *entries;
    uint32_t n;
};

static basalt_status write_file_manifest(const char *dir, int32_t version,
                                         const struct mw_fixture *fx, const struct written *w,
                                         struct basalt_arena *arena,
                                         struct basalt_iceberg_manifest_file *summary,
                                         struct basalt_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, w->name);
    struct basalt_output *out = NULL;
    basalt_status st = basalt_output_open_file(path, &out, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_iceberg_manifest_write_options o = {version, fx->schema, w->spec, w->content,
                                                      SNAPSHOT, false};
    st = basalt_iceberg_manifest_write(&o, w->entries, w->n, out, arena, summary, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    return st;
}

static json_t *manifest_json(const struct written *w, int32_t version)
{
    json_t *entries = json_array();
    for (uint32_t i = 0; i < w->n; i++)
        json_array_append_new(entries, entry_json(&w->entries[i], w->spec));
    char spec_id[16], v[16];
    snprintf(spec_id, sizeof spec_id, "%d", (int)w->spec->spec_id);
    snprintf(v, sizeof v, "%d", (int)version);
    json_t *meta =
        json_pack("{ssssss}", "schema-id", "0", "partition-spec-id", spec_id, "format-version", v);
    if (version >= 2)
        json_object_set_new(
            meta, "content",
            json_string(w->content == BASALT_ICEBERG_MANIFEST_DATA ? "data" : "deletes"));
    return json_pack("{sssssisisoso}", "file", w->name, "kind", "manifest", "format_version",
                     (int)version, "spec_id", (int)w->spec->spec_id, "meta", meta, "entries",
                     entries);
}

/* The list entry each manifest must get: counts and partition summaries as
 * the fixture's comments state them; -1 sequence numbers become the list's
 * 7; v3 row ids from 1000 on over data manifests, by added + existing rows. */
static json_t *list_entry_json(const struct written *w, int64_t *next_row_id)
{
    json_t *o = json_pack("{sssisi}", "manifest_path", w->name, "partition_spec_id",
                          (int)w->spec->spec_id, "content", (int)w->content);
    int64_t files[3] = {0}, rows[3] = {0}, min_seq = -1;
    for (uint32_t i = 0; i < w->n; i++) {
        files[w->entries[i].status]++;
        rows[w->entries[i].status] += w->entries[i].data_file.record_count;
        if (w->entries[i].status == BASALT_ICEBERG_ENTRY_EXISTING &&
            (min_seq < 0 || w->entries[i].sequence_number < min_seq))
            min_seq = w->entries[i].sequence_number;
    }
    json_object_set_new(o, "sequence_number", json_integer(7));
    json_object_set_new(o, "min_sequence_number", json_integer(min_seq < 0 ? 7 : min_seq));
    json_object_set_new(o, "added_snapshot_id", json_integer(SNAPSHOT));
    json_object_set_new(o, "added_files_count", json_integer(files[1]));
    json_object_set_new(o, "existing_files_count", json_integer(files[0]));
    json_object_set_new(o, "deleted_files_count", json_integer(files[2]));
    json_object_set_new(o, "added_rows_count", json_integer(rows[1]));
    json_object_set_new(o, "existing_rows_count", json_integer(rows[0]));
    json_object_set_new(o, "deleted_rows_count", json_integer(rows[2]));
    json_object_set_new(o, "key_metadata", json_null());
    if (w->content == BASALT_ICEBERG_MANIFEST_DATA) {
        json_object_set_new(o, "first_row_id", json_integer(*next_row_id));
        *next_row_id += rows[1] + rows[0];
    } else {
        json_object_set_new(o, "first_row_id", json_null());
    }
    /* [contains_null, contains_nan, lower, upper], serialized by hand */
    static const char transforms[] =
        "[[true,false,\"616c706861\",\"62657461\"],[false,false,\"00000000\",\"0f000000\"],"
        "[false,false,\"80020000\",\"94020000\"],[false,false,\"384a0000\",\"bc4d0000\"],"
        "[true,false,\"616c70\",\"626574\"],[false,false,\"fb\",\"01869f\"],"
        "[false,true,\"000000000000f83f\",\"0000000000000440\"]]";
    static const char types[] =
        "[[true,false,\"000102030405060708090a0b0c0d0e0f\",\"fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0\"],"
        "[true,false,\"61626364\",\"7778797a\"],[true,false,\"00\",\"01\"],"
        "[true,false,\"ffffffffffffffff\",\"00401e18240a0600\"],[true,false,\"\",\"00ff\"],"
        "[true,false,\"0000000000000000\",\"00a493d600000000\"],"
        "[true,false,\"ff7538dcfb76180000\",\"01b69b4ba630f34e\"],"
        "[true,false,\"fbffffffffffffff\",\"15cd853dfe9c9717\"],"
        "[true,false,\"000010c0\",\"0000003f\"],[true,false,\"ffffffff\",\"09000000\"],"
        "[true,false,\"9c\",\"04b0\"],[true,false,\"ff\",\"04d2\"],"
        "[true,false,\"00000000\",\"9e340700\"],[true,false,\"ffffffff\",\"36000000\"],"
        "[true,false,\"f9ffffffffffffff\",\"0000000000010000\"]]";
    const char *text = w->spec->n_fields == 7 ? transforms : w->spec->n_fields ? types : "[]";
    json_object_set_new(o, "partitions", json_loads(text, 0, NULL));
    return o;
}

TEST(manifest_write_pyavro_export)
{
    const char *env = getenv("BASALT_MANIFEST_EXPORT_DIR");
    char tmp[] = "/tmp/basalt-manifest-XXXXXX";
    const char *dir = env && *env ? env : mkdtemp(tmp);
    CHECK(dir != NULL);
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_manifest_entry transforms[3][MW_N_ENTRIES], deletes[3][4], types[3];
    struct basalt_iceberg_value tuples[3][MW_N_TYPES];
    for (int r = 0; r < 3; r++)
        mw_types_entry(r, tuples[r], &types[r]);
    json_t *files = json_array();
    basalt_status st = BASALT_OK;
    char names[16][64];
    int n_names = 0;
    for (int32_t v = 1; v <= 3 && st == BASALT_OK; v++) {
        mw_transform_entries(v, transforms[v - 1]);
        uint32_t n_del = v >= 2 ? mw_delete_entries(v, deletes[v - 1]) : 0;
        struct written w[3] = {
            {"", fx.transforms, BASALT_ICEBERG_MANIFEST_DATA, transforms[v - 1], MW_N_ENTRIES},
            {"", fx.types, BASALT_ICEBERG_MANIFEST_DATA, types, 3},
            {"", fx.unpartitioned, BASALT_ICEBERG_MANIFEST_DELETES, deletes[v - 1], n_del},
        };
        snprintf(w[0].name, sizeof w[0].name, "m%d-transforms.avro", (int)v);
        snprintf(w[1].name, sizeof w[1].name, "m%d-types.avro", (int)v);
        snprintf(w[2].name, sizeof w[2].name, "m%d-deletes.avro", (int)v);
        int n_w = v >= 2 ? 3 : 2;
        struct basalt_iceberg_manifest_file summaries[3];
        json_t *list_entries = json_array();
        int64_t next_row_id = 1000;
        for (int i = 0; i < n_w && st == BASALT_OK; i++) {
            st = write_file_manifest(dir, v, &fx, &w[i], &arena, &summaries[i], &err);
            summaries[i].manifest_path = w[i].name;
            memcpy(names[n_names++], w[i].name, sizeof w[i].name);
            json_array_append_new(files, manifest_json(&w[i], v));
            json_array_append_new(list_entries, list_entry_json(&w[i], &next_row_id));
        }
        char list_name[64], path[1024], vs[16];
        snprintf(list_name, sizeof list_name, "snap%d.avro", (int)v);
        memcpy(names[n_names++], list_name, sizeof list_name);
        snprintf(path, sizeof path, "%s/%s", dir, list_name);
        snprintf(vs, sizeof vs, "%d", (int)v);
        struct basalt_output *out = NULL;
        if (st == BASALT_OK)
            st = basalt_output_open_file(path, &out, &err);
        if (st == BASALT_OK) {
            struct basalt_iceberg_manifest_list_write_options lo = {v,   SNAPSHOT, true,
                                                                    998, 7,        1000};
            st = basalt_iceberg_manifest_list_write(&lo, summaries, (uint32_t)n_w, out, NULL, &err);
            if (st == BASALT_OK)
                st = basalt_output_commit(out, &err);
            basalt_output_close(out);
        }
        json_t *meta = json_pack("{ssssss}", "snapshot-id", "999", "parent-snapshot-id", "998",
                                 "format-version", vs);
        if (v >= 2)
            json_object_set_new(meta, "sequence-number", json_string("7"));
        if (v >= 3)
            json_object_set_new(meta, "first-row-id", json_string("1000"));
        json_array_append_new(files, json_pack("{sssssisoso}", "file", list_name, "kind", "list",
                                               "format_version", (int)v, "meta", meta, "manifests",
                                               list_entries));
    }
    json_t *table = json_loads(mw_table_json, 0, NULL);
    json_t *root = json_pack("{soso}", "table", table, "files", files);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s/expected.json", dir);
    bool dumped = root && json_dump_file(root, expected, JSON_INDENT(1)) == 0;
    json_decref(root);
    basalt_arena_reset(&arena);
    mw_fixture_free(&fx);
    if (!(env && *env)) { /* a throwaway directory: the files were written, now gone */
        for (int i = 0; i < n_names; i++) {
            char p[1024];
            if (snprintf(p, sizeof p, "%s/%s", dir, names[i]) < (int)sizeof p)
                unlink(p);
        }
        unlink(expected);
        rmdir(dir);
    }
    CHECK_OK(st, &err);
    CHECK(dumped);
}
