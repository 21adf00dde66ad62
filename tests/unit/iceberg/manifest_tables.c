/* Every manifest list and manifest of the corpus tables decodes, and the
 * current snapshot's live files and rows agree with TABLES.tsv. Snapshots
 * are found by reading the table metadata JSON directly; stored paths are
 * mapped by their "/metadata/" suffix onto the local table directory. */
#include <jansson.h>
#include <stdlib.h>

#include "basalt/iceberg_manifest.h"
#include "test.h"

static void corpus_path(char *out, size_t cap, const char *rel)
{
    snprintf(out, cap, "%s", bt_testdata_path("iceberg"));
    size_t n = strlen(out);
    snprintf(out + n, cap - n, "/%s", rel);
}

/* table_dir + the stored path from "/metadata/" on. */
static bool local_path(char *out, size_t cap, const char *table_dir, const char *stored)
{
    const char *m = strstr(stored, "/metadata/");
    if (!m)
        return false;
    char rel[1024];
    snprintf(rel, sizeof rel, "%s%s", table_dir, m);
    corpus_path(out, cap, rel);
    return true;
}

struct counts {
    int64_t data_files, pos_files, eq_files, dvs, data_rows;
    int manifests, lists;
};

/* Parses a snapshot's list and all its manifests; counts live files. */
static basalt_status walk_snapshot(const char *table_dir, const char *list_loc, int32_t fv,
                                   struct counts *c, char *what, size_t what_cap,
                                   struct basalt_error *err)
{
    char path[2048];
    if (!local_path(path, sizeof path, table_dir, list_loc)) {
        snprintf(what, what_cap, "unmappable %s", list_loc);
        return BASALT_NOT_FOUND;
    }
    size_t len;
    uint8_t *data = bt_read_file(path, &len);
    if (!data) {
        snprintf(what, what_cap, "cannot read %s", path);
        return BASALT_IO;
    }
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_manifest_list_parse(data, len, path, fv, &list, err);
    basalt_free(data);
    if (st != BASALT_OK) {
        snprintf(what, what_cap, "list %s", path);
        return st;
    }
    c->lists++;
    for (uint32_t i = 0; i < list->n_files && st == BASALT_OK; i++) {
        const struct basalt_iceberg_manifest_file *mf = &list->files[i];
        if (!local_path(path, sizeof path, table_dir, mf->manifest_path) ||
            !(data = bt_read_file(path, &len))) {
            snprintf(what, what_cap, "cannot read manifest %s", mf->manifest_path);
            st = BASALT_IO;
            break;
        }
        struct basalt_iceberg_manifest *m = NULL;
        st = basalt_iceberg_manifest_parse(data, len, path, mf, NULL, NULL, NULL, &m, err);
        basalt_free(data);
        if (st != BASALT_OK) {
            snprintf(what, what_cap, "manifest %s", path);
            break;
        }
        c->manifests++;
        if (m->content != mf->content || (int64_t)len != mf->manifest_length) {
            snprintf(what, what_cap, "manifest %s: content/length differ from the list", path);
            st = BASALT_CORRUPT;
        }
        for (uint32_t e = 0; e < m->n_entries; e++) {
            const struct basalt_iceberg_manifest_entry *en = &m->entries[e];
            const struct basalt_iceberg_data_file *df = &en->data_file;
            if (en->status == BASALT_ICEBERG_ENTRY_DELETED) {
                snprintf(what, what_cap, "a DELETED entry was kept");
                st = BASALT_INTERNAL;
            }
            if (fv >= 2 && en->sequence_number < 1) {
                snprintf(what, what_cap, "%s: entry %u: sequence number %lld", path, e,
                         (long long)en->sequence_number);
                st = BASALT_INTERNAL;
            }
            if (df->content == BASALT_ICEBERG_CONTENT_DATA) {
                c->data_files++;
                c->data_rows += df->record_count;
            } else if (df->content == BASALT_ICEBERG_CONTENT_POSITION_DELETES) {
                if (df->file_format == BASALT_ICEBERG_FORMAT_PUFFIN)
                    c->dvs++;
                else
                    c->pos_files++;
            } else {
                c->eq_files++;
            }
        }
        basalt_iceberg_manifest_free(m);
    }
    basalt_iceberg_manifest_list_free(list);
    return st;
}

static int64_t field_i64(char **f, int i)
{
    return f[i][0] ? strtoll(f[i], NULL, 10) : -1;
}

TEST(manifest_corpus_tables_agree_with_tables_tsv)
{
    char path[2048];
    corpus_path(path, sizeof path, "TABLES.tsv");
    size_t len;
    char *tsv = (char *)bt_read_file(path, &len);
    CHECK(tsv);
    char *text = malloc(len + 1);
    if (!text)
        basalt_free(tsv);
    CHECK(text);
    memcpy(text, tsv, len);
    text[len] = 0;
    basalt_free(tsv);
    int rows = 0, snapshots = 0, checked = 0;
    struct counts total = {0};
    char what[2600] = "";
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = BASALT_OK;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && st == BASALT_OK;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "table_dir", 9) == 0)
            continue;
        char *f[32];
        int nf = 0;
        for (char *p = line; nf < 32;) {
            f[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = 0;
            p = tab + 1;
        }
        if (nf < 14)
            continue;
        rows++;
        char rel[1024];
        snprintf(rel, sizeof rel, "%s/%s", f[0], f[1]);
        corpus_path(path, sizeof path, rel);
        json_error_t jerr;
        json_t *meta = json_load_file(path, 0, &jerr);
        if (!meta) {
            snprintf(what, sizeof what, "cannot read %s", path);
            st = BASALT_IO;
            break;
        }
        int32_t fv = (int32_t)json_integer_value(json_object_get(meta, "format-version"));
        json_t *cur = json_object_get(meta, "current-snapshot-id");
        int64_t current = json_is_integer(cur) ? json_integer_value(cur) : -1;
        json_t *snaps = json_object_get(meta, "snapshots");
        for (size_t s = 0; s < json_array_size(snaps) && st == BASALT_OK; s++) {
            json_t *snap = json_array_get(snaps, s);
            const char *list_loc = json_string_value(json_object_get(snap, "manifest-list"));
            if (!list_loc) {
                snprintf(what, sizeof what, "%s: snapshot without a manifest list", rel);
                st = BASALT_UNSUPPORTED;
                break;
            }
            struct counts c = {0};
            st = walk_snapshot(f[0], list_loc, fv, &c, what, sizeof what, &err);
            snapshots++;
            total.manifests += c.manifests;
            total.lists += c.lists;
            if (st != BASALT_OK ||
                json_integer_value(json_object_get(snap, "snapshot-id")) != current)
                continue;
            checked++;
            if (c.data_files != field_i64(f, 9) || c.pos_files != field_i64(f, 10) ||
                c.eq_files != field_i64(f, 11) || c.dvs != field_i64(f, 12) ||
                c.data_rows != field_i64(f, 13)) {
                snprintf(what, sizeof what,
                         "%s: files %lld/%lld/%lld/%lld rows %lld, TABLES.tsv says %s/%s/%s/%s rows %s",
                         rel, (long long)c.data_files, (long long)c.pos_files,
                         (long long)c.eq_files, (long long)c.dvs, (long long)c.data_rows, f[9],
                         f[10], f[11], f[12], f[13]);
                st = BASALT_INTERNAL;
            }
        }
        json_decref(meta);
    }
    free(text);
    CHECK_MSG(st == BASALT_OK, "%s: %s: %s", what, basalt_status_name(st), err.message);
    /* 26 rows today; the corpus may grow, never shrink. */
    CHECK(rows >= 26);
    CHECK(checked >= 20);
    CHECK(snapshots >= checked);
    CHECK(total.manifests >= snapshots);
}

/* Typed partition tuples against the values in the corpus EXPECTED.md files. */

static uint8_t *read_rel(const char *rel, size_t *len)
{
    char path[2048];
    corpus_path(path, sizeof path, rel);
    return bt_read_file(path, len);
}

TEST(manifest_partition_values_bucket_and_date)
{
    /* icebird spark/rename_column: bucket[4](id) -> 1000, identity(date) -> 1001.
     * Expected partitions: (3, null), (2, 2022-01-02), (0, 2022-01-01). */
    struct basalt_iceberg_field fields[2] = {
        {.id = 1, .name = "id", .type = {.id = BASALT_ICEBERG_TYPE_INT}},
        {.id = 3, .name = "date", .type = {.id = BASALT_ICEBERG_TYPE_DATE}},
    };
    struct basalt_iceberg_schema schema = {
        .root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = fields, .n_fields = 2}};
    struct basalt_iceberg_partition_field pf[2] = {
        {.source_id = 1, .field_id = 1000, .name = "id_bucket",
         .transform = {BASALT_ICEBERG_TRANSFORM_BUCKET, 4, "bucket[4]"}},
        {.source_id = 3, .field_id = 1001, .name = "date",
         .transform = {BASALT_ICEBERG_TRANSFORM_IDENTITY, 0, "identity"}},
    };
    struct basalt_iceberg_partition_spec spec = {.spec_id = 0, .fields = pf, .n_fields = 2};
    const char *dir = "icebird/hyperparam-iceberg/spark/rename_column/metadata/";
    char rel[512];
    size_t len;
    snprintf(rel, sizeof rel, "%ssnap-5276958600260276572-1-abf62b15-903b-40b6-9e6b-26bcdceac9b3.avro",
             dir);
    uint8_t *data = read_rel(rel, &len);
    CHECK(data);
    struct basalt_error err;
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_manifest_list_parse(data, len, rel, 2, &list, &err);
    basalt_free(data);
    CHECK_OK(st, &err);
    st = basalt_iceberg_manifest_list_decode_bounds(list, &spec, 1, &schema, &err);
    const struct basalt_iceberg_field_summary *s = list->files[0].partitions;
    bool ok = st == BASALT_OK && list->n_files == 1 && list->files[0].n_partitions == 2 &&
              !s[0].contains_null && s[0].lower_bound.type == BASALT_ICEBERG_TYPE_INT &&
              s[0].lower_bound.u.i32 == 0 && s[0].upper_bound.u.i32 == 3 && s[1].contains_null &&
              s[1].lower_bound.type == BASALT_ICEBERG_TYPE_DATE && s[1].lower_bound.u.i32 == 18993 &&
              s[1].upper_bound.u.i32 == 18994;
    snprintf(rel, sizeof rel, "%sabf62b15-903b-40b6-9e6b-26bcdceac9b3-m0.avro", dir);
    data = read_rel(rel, &len);
    struct basalt_iceberg_manifest *m = NULL;
    if (ok && data)
        st = basalt_iceberg_manifest_parse(data, len, rel, &list->files[0], &spec, &schema, NULL, &m,
                                           &err);
    basalt_free(data);
    basalt_iceberg_manifest_list_free(list);
    CHECK_OK(st, &err);
    CHECK(ok && m);
    static const int32_t buckets[3] = {3, 2, 0};
    static const int32_t dates[3] = {0, 18994, 18993};
    static const int64_t records[3] = {1, 1, 2};
    ok = m->n_entries == 3;
    for (uint32_t i = 0; ok && i < 3; i++) {
        const struct basalt_iceberg_data_file *df = &m->entries[i].data_file;
        ok = df->n_partition == 2 && df->partition[0].type == BASALT_ICEBERG_TYPE_INT &&
             !df->partition[0].is_null && df->partition[0].u.i32 == buckets[i] &&
             df->partition[1].type == BASALT_ICEBERG_TYPE_DATE &&
             df->partition[1].is_null == (i == 0) && (i == 0 || df->partition[1].u.i32 == dates[i]) &&
             df->record_count == records[i] && m->entries[i].sequence_number == 1;
    }
    basalt_iceberg_manifest_free(m);
    CHECK(ok);
}

TEST(manifest_partition_values_identity_string)
{
    /* glaredb lineitem_partitioned (v1 and v2): identity(l_shipmode), record
     * counts per partition from EXPECTED.md. */
    static const struct {
        const char *mode;
        int64_t rows;
    } expect[] = {{"AIR", 143}, {"FOB", 136}, {"MAIL", 144}, {"RAIL", 130},
                  {"REG AIR", 157}, {"SHIP", 158}, {"TRUCK", 132}};
    struct basalt_iceberg_field fields[1] = {
        {.id = 15, .name = "l_shipmode", .type = {.id = BASALT_ICEBERG_TYPE_STRING}}};
    struct basalt_iceberg_schema schema = {
        .root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = fields, .n_fields = 1}};
    struct basalt_iceberg_partition_field pf = {
        .source_id = 15, .field_id = 1000, .name = "l_shipmode",
        .transform = {BASALT_ICEBERG_TRANSFORM_IDENTITY, 0, "identity"}};
    struct basalt_iceberg_partition_spec spec = {.spec_id = 0, .fields = &pf, .n_fields = 1};
    for (int v = 1; v <= 2; v++) {
        char rel[512];
        snprintf(rel, sizeof rel, "glaredb/iceberg/tables-v%d/lineitem_partitioned/metadata/v1.metadata.json", v);
        char path[2048];
        corpus_path(path, sizeof path, rel);
        json_t *meta = json_load_file(path, 0, NULL);
        CHECK(meta);
        const char *list_loc = json_string_value(
            json_object_get(json_array_get(json_object_get(meta, "snapshots"), 0), "manifest-list"));
        snprintf(rel, sizeof rel, "glaredb/iceberg/tables-v%d/lineitem_partitioned", v);
        bool mapped = list_loc && local_path(path, sizeof path, rel, list_loc);
        json_decref(meta);
        CHECK(mapped);
        size_t len;
        uint8_t *data = bt_read_file(path, &len);
        CHECK(data);
        struct basalt_error err;
        struct basalt_iceberg_manifest_list *list = NULL;
        basalt_status st = basalt_iceberg_manifest_list_parse(data, len, path, v, &list, &err);
        basalt_free(data);
        CHECK_OK(st, &err);
        int64_t got[7] = {0};
        bool ok = true;
        for (uint32_t i = 0; ok && i < list->n_files; i++) {
            struct basalt_iceberg_manifest *m = NULL;
            ok = local_path(path, sizeof path, rel, list->files[i].manifest_path) &&
                 (data = bt_read_file(path, &len)) != NULL;
            if (!ok)
                break;
            st = basalt_iceberg_manifest_parse(data, len, path, &list->files[i], &spec, &schema,
                                               NULL, &m, &err);
            basalt_free(data);
            ok = st == BASALT_OK;
            for (uint32_t e = 0; ok && e < m->n_entries; e++) {
                const struct basalt_iceberg_value *pv = m->entries[e].data_file.partition;
                ok = m->entries[e].data_file.n_partition == 1 &&
                     pv->type == BASALT_ICEBERG_TYPE_STRING && !pv->is_null;
                int k = -1;
                for (int x = 0; ok && x < 7; x++)
                    if (pv->u.bytes.len == strlen(expect[x].mode) &&
                        memcmp(pv->u.bytes.data, expect[x].mode, pv->u.bytes.len) == 0)
                        k = x;
                ok = ok && k >= 0;
                if (ok)
                    got[k] += m->entries[e].data_file.record_count;
                if (ok && v == 1)
                    ok = m->entries[e].sequence_number == 0 && m->format_version == 1;
            }
            basalt_iceberg_manifest_free(m);
        }
        basalt_iceberg_manifest_list_free(list);
        CHECK_MSG(ok, "tables-v%d: %s", v, err.message);
        for (int x = 0; x < 7; x++)
            CHECK_EQ(got[x], expect[x].rows);
    }
}

TEST(manifest_partition_values_day_v1)
{
    /* polars: v1, day(ts) written as Avro "date"; 2023-03-01 (19417) holds
     * two rows, 2023-03-02 one. Typed by the spec (int) and by the Avro
     * schema alone (date). */
    struct basalt_iceberg_field fields[1] = {
        {.id = 3, .name = "ts", .type = {.id = BASALT_ICEBERG_TYPE_TIMESTAMP}}};
    struct basalt_iceberg_schema schema = {
        .root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = fields, .n_fields = 1}};
    struct basalt_iceberg_partition_field pf = {
        .source_id = 3, .field_id = 1000, .name = "ts_day",
        .transform = {BASALT_ICEBERG_TRANSFORM_DAY, 0, "day"}};
    struct basalt_iceberg_partition_spec spec = {.spec_id = 0, .fields = &pf, .n_fields = 1};
    size_t len;
    uint8_t *data = read_rel(
        "polars/iceberg-table/metadata/aef5d952-7e24-4764-9b30-3483be37240f-m0.avro", &len);
    CHECK(data);
    struct basalt_error err;
    struct basalt_iceberg_manifest *typed = NULL, *raw = NULL;
    basalt_status st = basalt_iceberg_manifest_parse(data, len, "m0", NULL, &spec, &schema, NULL,
                                                     &typed, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_parse(data, len, "m0", NULL, NULL, NULL, NULL, &raw, &err);
    basalt_free(data);
    bool ok = st == BASALT_OK && typed->n_entries == 2 && raw->n_entries == 2 &&
              typed->format_version == 1 && typed->spec_id == 0;
    static const int32_t days[2] = {19417, 19418};
    static const int64_t rows[2] = {2, 1};
    for (uint32_t i = 0; ok && i < 2; i++) {
        const struct basalt_iceberg_data_file *t = &typed->entries[i].data_file;
        const struct basalt_iceberg_data_file *r = &raw->entries[i].data_file;
        ok = t->n_partition == 1 && t->partition[0].type == BASALT_ICEBERG_TYPE_INT &&
             t->partition[0].u.i32 == days[i] && r->n_partition == 1 &&
             r->partition[0].type == BASALT_ICEBERG_TYPE_DATE && r->partition[0].u.i32 == days[i] &&
             t->record_count == rows[i] && t->content == BASALT_ICEBERG_CONTENT_DATA &&
             typed->entries[i].snapshot_id == INT64_C(7051579356916758811);
    }
    basalt_iceberg_manifest_free(typed);
    basalt_iceberg_manifest_free(raw);
    CHECK_OK(st, &err);
    CHECK(ok);
}

/* Every Avro file of the three table groups, referenced by a snapshot or not:
 * snap-*.avro as manifest lists, the rest as manifests. */
#include <dirent.h>
#include <sys/stat.h>

static int walk_avro(const char *dir, int *lists, int *manifests, char *bad, size_t bad_cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 1;
    int failures = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            failures += walk_avro(path, lists, manifests, bad, bad_cap);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".avro") != 0)
            continue;
        size_t len;
        uint8_t *data = bt_read_file(path, &len);
        struct basalt_error err;
        basalt_status st = BASALT_IO;
        if (data && strncmp(e->d_name, "snap-", 5) == 0) {
            struct basalt_iceberg_manifest_list *list = NULL;
            st = basalt_iceberg_manifest_list_parse(data, len, path, 0, &list, &err);
            if (st == BASALT_OK && list->n_files == 0)
                st = BASALT_INTERNAL;
            basalt_iceberg_manifest_list_free(list);
            (*lists)++;
        } else if (data) {
            struct basalt_iceberg_manifest *m = NULL;
            struct basalt_iceberg_manifest_read_options o;
            basalt_iceberg_manifest_read_options_init(&o);
            o.with_deleted = true; /* some manifests hold only DELETED entries */
            st = basalt_iceberg_manifest_parse(data, len, path, NULL, NULL, NULL, &o, &m, &err);
            if (st == BASALT_OK && m->n_entries == 0)
                st = BASALT_INTERNAL;
            basalt_iceberg_manifest_free(m);
            (*manifests)++;
        }
        basalt_free(data);
        if (st != BASALT_OK) {
            failures++;
            snprintf(bad, bad_cap, "%s: %s", path, basalt_status_name(st));
        }
    }
    closedir(d);
    return failures;
}

TEST(manifest_corpus_every_avro_file_decodes)
{
    static const char *groups[] = {"glaredb", "icebird", "polars"};
    int lists = 0, manifests = 0, failures = 0;
    char bad[2100] = "";
    for (int g = 0; g < 3; g++) {
        char dir[2048];
        corpus_path(dir, sizeof dir, groups[g]);
        failures += walk_avro(dir, &lists, &manifests, bad, sizeof bad);
    }
    CHECK_MSG(failures == 0, "%d failures, last %s", failures, bad);
    /* 40 files today (19 lists, 21 manifests). */
    CHECK(lists >= 19);
    CHECK(manifests >= 21);
}
