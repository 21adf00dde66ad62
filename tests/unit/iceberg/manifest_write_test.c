/* The manifest and manifest-list writers read back through our readers:
 * v1, v2 and v3, partitioned by several transforms and by every partition
 * type, data and delete manifests, EXISTING and DELETED entries with their
 * sequence numbers, ADDED ones inheriting the list's, v3 first row ids.
 * Expected values are the fixture's inputs and hand-computed serializations
 * (spec Appendix D), not anything the writer reports. */
#include <math.h>
#include <stdlib.h>

#include "basalt/iceberg_expr.h"

#include "manifest_write_fixture.h"
#include "test.h"

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            snprintf(why, cap, "line %d: %s", __LINE__, #cond);                                    \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

static bool bytes_are(const uint8_t *p, size_t n, const char *hex)
{
    size_t want = strlen(hex) / 2;
    if (n != want || (n && !p))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        if (sscanf(hex + 2 * i, "%2x", &b) != 1 || p[i] != b)
            return false;
    }
    return true;
}

static bool bound_is(const struct basalt_iceberg_field_summary *s, bool contains_null,
                     bool contains_nan, const char *lo, const char *hi)
{
    if (s->contains_null != contains_null || !s->has_contains_nan ||
        s->contains_nan != contains_nan)
        return false;
    if (!lo)
        return !s->has_lower_bound && !s->has_upper_bound;
    return s->has_lower_bound && s->has_upper_bound &&
           bytes_are(s->lower_bound_bytes, s->lower_bound_len, lo) &&
           bytes_are(s->upper_bound_bytes, s->upper_bound_len, hi);
}

/* The partition summaries of the transforms spec's entries, serialized by
 * hand: strings as UTF-8, ints little-endian, the decimal big-endian minimal,
 * doubles IEEE 754 little-endian. */
static bool transform_summaries_ok(const struct basalt_iceberg_manifest_file *m, char *why,
                                   size_t cap)
{
    EXPECT(m->partitions && m->n_partitions == 7);
    EXPECT(bound_is(&m->partitions[0], true, false, "616c706861", "62657461"));
    EXPECT(bound_is(&m->partitions[1], false, false, "00000000", "0f000000"));
    EXPECT(bound_is(&m->partitions[2], false, false, "80020000", "94020000"));
    EXPECT(bound_is(&m->partitions[3], false, false, "384a0000", "bc4d0000"));
    EXPECT(bound_is(&m->partitions[4], true, false, "616c70", "626574"));
    EXPECT(bound_is(&m->partitions[5], false, false, "fb", "01869f"));
    EXPECT(bound_is(&m->partitions[6], false, true, "000000000000f83f", "0000000000000440"));
    return true;
}

static bool summary_ok(const struct basalt_iceberg_manifest_file *s, size_t len, char *why,
                       size_t cap)
{
    EXPECT(s->manifest_length == (int64_t)len && s->manifest_path == NULL);
    EXPECT(s->partition_spec_id == 1 && s->content == BASALT_ICEBERG_MANIFEST_DATA);
    EXPECT(s->added_snapshot_id == 999 && s->sequence_number == -1);
    EXPECT(s->added_files_count == 1 && s->existing_files_count == 1 &&
           s->deleted_files_count == 1);
    EXPECT(s->added_rows_count == 100 && s->existing_rows_count == 50 &&
           s->deleted_rows_count == 7);
    /* live entries with a sequence number: the EXISTING one (3), not the
     * DELETED one (2) */
    EXPECT(s->min_sequence_number == 3);
    EXPECT(!s->has_first_row_id && !s->key_metadata);
    return transform_summaries_ok(s, why, cap);
}

static bool value_is(const struct basalt_iceberg_value *got,
                     const struct basalt_iceberg_value *want)
{
    if (got->is_null || want->is_null)
        return got->is_null == want->is_null;
    if (want->type == BASALT_ICEBERG_TYPE_DOUBLE && isnan(want->u.f64))
        return got->type == BASALT_ICEBERG_TYPE_DOUBLE && isnan(got->u.f64);
    /* day values come back as the int the spec gives them */
    if (want->type == BASALT_ICEBERG_TYPE_DATE && got->type == BASALT_ICEBERG_TYPE_INT)
        return got->u.i32 == want->u.i32;
    return got->type == want->type && basalt_iceberg_value_compare(got, want) == 0 &&
           (want->type != BASALT_ICEBERG_TYPE_DECIMAL || got->scale == want->scale);
}

static bool metrics_same(const struct basalt_iceberg_data_file *a,
                         const struct basalt_iceberg_data_file *b)
{
    const struct basalt_iceberg_metric_long *la[4] = {a->column_sizes, a->value_counts,
                                                      a->null_value_counts, a->nan_value_counts};
    const struct basalt_iceberg_metric_long *lb[4] = {b->column_sizes, b->value_counts,
                                                      b->null_value_counts, b->nan_value_counts};
    uint32_t na[4] = {a->n_column_sizes, a->n_value_counts, a->n_null_value_counts,
                      a->n_nan_value_counts};
    uint32_t nb[4] = {b->n_column_sizes, b->n_value_counts, b->n_null_value_counts,
                      b->n_nan_value_counts};
    for (int m = 0; m < 4; m++) {
        if (na[m] != nb[m])
            return false;
        for (uint32_t k = 0; k < na[m]; k++)
            if (la[m][k].field_id != lb[m][k].field_id || la[m][k].value != lb[m][k].value)
                return false;
    }
    const struct basalt_iceberg_metric_bytes *ya[2] = {a->lower_bounds, a->upper_bounds};
    const struct basalt_iceberg_metric_bytes *yb[2] = {b->lower_bounds, b->upper_bounds};
    uint32_t ma[2] = {a->n_lower_bounds, a->n_upper_bounds};
    uint32_t mb[2] = {b->n_lower_bounds, b->n_upper_bounds};
    for (int m = 0; m < 2; m++) {
        if (ma[m] != mb[m])
            return false;
        for (uint32_t k = 0; k < ma[m]; k++)
            if (ya[m][k].field_id != yb[m][k].field_id || ya[m][k].len != yb[m][k].len ||
                memcmp(ya[m][k].data, yb[m][k].data, ya[m][k].len) != 0)
                return false;
    }
    if (a->n_split_offsets != b->n_split_offsets || a->n_equality_ids != b->n_equality_ids)
        return false;
    for (uint32_t k = 0; k < a->n_split_offsets; k++)
        if (a->split_offsets[k] != b->split_offsets[k])
            return false;
    for (uint32_t k = 0; k < a->n_equality_ids; k++)
        if (a->equality_ids[k] != b->equality_ids[k])
            return false;
    return a->key_metadata_len == b->key_metadata_len && (!a->key_metadata) == (!b->key_metadata) &&
           (a->key_metadata_len == 0 ||
            memcmp(a->key_metadata, b->key_metadata, a->key_metadata_len) == 0);
}

/* What a written entry reads back as: the input, with the ADDED one's
 * snapshot id and sequence numbers from the list entry. */
static bool entry_ok(const struct basalt_iceberg_manifest_entry *got,
                     const struct basalt_iceberg_manifest_entry *in, int32_t version,
                     int64_t snapshot, int64_t seq, int64_t fseq, bool has_row_id, int64_t row_id,
                     char *why, size_t cap)
{
    const struct basalt_iceberg_data_file *g = &got->data_file, *w = &in->data_file;
    EXPECT(got->status == in->status);
    EXPECT(got->snapshot_id == snapshot);
    EXPECT(got->sequence_number == (version >= 2 ? seq : 0));
    EXPECT(got->file_sequence_number == (version >= 2 ? fseq : 0));
    EXPECT(g->content == w->content && strcmp(g->file_path, w->file_path) == 0);
    EXPECT(g->file_format == w->file_format);
    EXPECT(g->record_count == w->record_count && g->file_size_in_bytes == w->file_size_in_bytes);
    EXPECT(g->n_partition == w->n_partition);
    for (uint32_t i = 0; i < w->n_partition; i++)
        if (!value_is(&g->partition[i], &w->partition[i])) {
            snprintf(why, cap, "%s: partition value %u differs", w->file_path, (unsigned)i);
            return false;
        }
    EXPECT(metrics_same(g, w));
    EXPECT(g->has_sort_order_id == w->has_sort_order_id && g->sort_order_id == w->sort_order_id);
    EXPECT(g->has_first_row_id == has_row_id && (!has_row_id || g->first_row_id == row_id));
    if (version >= 2)
        EXPECT((!g->referenced_data_file && !w->referenced_data_file) ||
               (g->referenced_data_file && w->referenced_data_file &&
                strcmp(g->referenced_data_file, w->referenced_data_file) == 0));
    if (version >= 3)
        EXPECT(g->has_content_offset == w->has_content_offset &&
               g->content_offset == w->content_offset &&
               g->content_size_in_bytes == w->content_size_in_bytes);
    return true;
}

static void init_list_options(struct basalt_iceberg_manifest_list_write_options *lo,
                              int32_t version)
{
    memset(lo, 0, sizeof *lo);
    lo->format_version = version;
    lo->snapshot_id = 999;
    lo->has_parent_snapshot_id = true;
    lo->parent_snapshot_id = 998;
    lo->sequence_number = 7;
    lo->first_row_id = 1000;
}

/* A manifest list of: the transforms manifest (m0), a types-spec manifest
 * of one ADDED file of 10 rows written now (m1), and an older manifest that
 * already has sequence numbers and a first row id. */
static bool list_ok(const struct basalt_iceberg_manifest_list *l, int32_t version,
                    const struct basalt_iceberg_manifest_file *in, int64_t next_row_id, char *why,
                    size_t cap)
{
    EXPECT(l->n_files == 3 && l->format_version == version);
    EXPECT(l->has_snapshot_id && l->snapshot_id == 999);
    EXPECT(l->has_parent_snapshot_id && l->parent_snapshot_id == 998);
    static const int64_t seq[3] = {7, 7, 4}, min_seq[3] = {3, 7, 2};
    for (int i = 0; i < 3; i++) {
        const struct basalt_iceberg_manifest_file *g = &l->files[i], *w = &in[i];
        EXPECT(strcmp(g->manifest_path, w->manifest_path) == 0);
        EXPECT(g->manifest_length == w->manifest_length);
        EXPECT(g->partition_spec_id == w->partition_spec_id && g->content == w->content);
        EXPECT(g->sequence_number == (version >= 2 ? seq[i] : 0));
        EXPECT(g->min_sequence_number == (version >= 2 ? min_seq[i] : 0));
        EXPECT(g->added_snapshot_id == w->added_snapshot_id);
        EXPECT(g->added_files_count == w->added_files_count &&
               g->existing_files_count == w->existing_files_count &&
               g->deleted_files_count == w->deleted_files_count);
        EXPECT(g->added_rows_count == w->added_rows_count &&
               g->existing_rows_count == w->existing_rows_count &&
               g->deleted_rows_count == w->deleted_rows_count);
        EXPECT(g->n_partitions == w->n_partitions && g->partitions);
    }
    if (!transform_summaries_ok(&l->files[0], why, cap))
        return false;
    /* v3: m0 starts at the snapshot's first row id, m1 after m0's added and
     * existing rows (100 + 50), the old manifest keeps 42; the next row id
     * passes m1's 10 rows. */
    if (version >= 3) {
        EXPECT(l->files[0].has_first_row_id && l->files[0].first_row_id == 1000);
        EXPECT(l->files[1].has_first_row_id && l->files[1].first_row_id == 1150);
        EXPECT(l->files[2].has_first_row_id && l->files[2].first_row_id == 42);
        EXPECT(next_row_id == 1160);
    } else {
        for (int i = 0; i < 3; i++)
            EXPECT(!l->files[i].has_first_row_id);
        EXPECT(next_row_id == 1000);
    }
    return true;
}

static void round_trip(int32_t version)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_manifest_entry entries[MW_N_ENTRIES], types_entry;
    struct basalt_iceberg_value tuple[MW_N_TYPES];
    mw_transform_entries(version, entries);
    mw_types_entry(0, tuple, &types_entry);

    struct basalt_iceberg_manifest_write_options o = {version, fx.schema, fx.transforms,
                                                      BASALT_ICEBERG_MANIFEST_DATA, 999, false};
    struct basalt_iceberg_manifest_file files[3];
    uint8_t *m0 = NULL, *m1 = NULL, *lbytes = NULL;
    size_t m0_len = 0, m1_len = 0, l_len = 0;
    uint64_t written;
    int64_t next_row_id = -1;
    struct basalt_iceberg_manifest_list *list = NULL;
    struct basalt_iceberg_manifest *m = NULL;
    char why[256] = "";
    bool ok = false;
    basalt_status st = mw_write_manifest(&o, entries, MW_N_ENTRIES, &arena, &files[0], &m0, &m0_len,
                                         &written, &err);
    if (st == BASALT_OK && !summary_ok(&files[0], m0_len, why, sizeof why))
        goto done;
    if (st == BASALT_OK) {
        o.spec = fx.types;
        st =
            mw_write_manifest(&o, &types_entry, 1, &arena, &files[1], &m1, &m1_len, &written, &err);
    }
    if (st == BASALT_OK) {
        files[0].manifest_path = "s3://b/t/metadata/m0.avro";
        files[1].manifest_path = "s3://b/t/metadata/m1.avro";
        files[2] = files[0];
        files[2].manifest_path = "s3://b/t/metadata/old.avro";
        files[2].sequence_number = 4;
        files[2].min_sequence_number = 2;
        files[2].added_snapshot_id = 555;
        files[2].has_first_row_id = true;
        files[2].first_row_id = 42;
        struct basalt_iceberg_manifest_list_write_options lo;
        init_list_options(&lo, version);
        st = mw_write_list(&lo, files, 3, &next_row_id, &lbytes, &l_len, &written, &err);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_list_parse(lbytes, l_len, "snap.avro", version, &list, &err);
    if (st == BASALT_OK && !list_ok(list, version, files, next_row_id, why, sizeof why))
        goto done;
    if (st == BASALT_OK) {
        struct basalt_iceberg_manifest_read_options ro;
        basalt_iceberg_manifest_read_options_init(&ro);
        ro.with_deleted = true;
        st = basalt_iceberg_manifest_parse(m0, m0_len, "m0.avro", &list->files[0], fx.transforms,
                                           fx.schema, &ro, &m, &err);
    }
    if (st == BASALT_OK) {
        if (m->n_entries != 3 || m->spec_id != 1 || m->content != BASALT_ICEBERG_MANIFEST_DATA ||
            m->format_version != version) {
            snprintf(why, sizeof why, "manifest header: %u entries, spec %d, v%d",
                     (unsigned)m->n_entries, (int)m->spec_id, (int)m->format_version);
            goto done;
        }
        /* ADDED: the writing snapshot and the list's sequence number 7;
         * v3: the list's first row id 1000 (the EXISTING one keeps 500) */
        if (!entry_ok(&m->entries[0], &entries[0], version, 999, 7, 7, version >= 3, 1000, why,
                      sizeof why) ||
            !entry_ok(&m->entries[1], &entries[1], version, 111, 3, 4, version >= 3, 500, why,
                      sizeof why) ||
            !entry_ok(&m->entries[2], &entries[2], version, 222, 2, 2, false, 0, why, sizeof why))
            goto done;
        ok = true;
    }
done:
    basalt_iceberg_manifest_free(m);
    basalt_iceberg_manifest_list_free(list);
    basalt_free(m0);
    basalt_free(m1);
    basalt_free(lbytes);
    basalt_arena_reset(&arena);
    mw_fixture_free(&fx);
    CHECK_OK(st, &err);
    CHECK_MSG(ok, "v%d: %s", (int)version, why);
}

TEST(manifest_write_round_trip_v1) { round_trip(1); }
TEST(manifest_write_round_trip_v2) { round_trip(2); }
TEST(manifest_write_round_trip_v3) { round_trip(3); }

/* Every partition type through the Avro mapping and back; the summary's
 * bounds serialized by hand. */
static bool types_summary_ok(const struct basalt_iceberg_manifest_file *s, char *why, size_t cap)
{
    EXPECT(s->n_partitions == MW_N_TYPES);
    const struct basalt_iceberg_field_summary *p = s->partitions;
    EXPECT(bound_is(&p[0], true, false, "000102030405060708090a0b0c0d0e0f",
                    "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0"));
    EXPECT(bound_is(&p[1], true, false, "61626364", "7778797a"));
    EXPECT(bound_is(&p[2], true, false, "00", "01"));
    EXPECT(bound_is(&p[3], true, false, "ffffffffffffffff", "00401e18240a0600"));
    EXPECT(bound_is(&p[4], true, false, "", "00ff"));
    EXPECT(bound_is(&p[6], true, false, "ff7538dcfb76180000", "01b69b4ba630f34e"));
    EXPECT(bound_is(&p[8], true, false, "000010c0", "0000003f"));
    EXPECT(bound_is(&p[9], true, false, "ffffffff", "09000000"));
    EXPECT(bound_is(&p[11], true, false, "ff", "04d2"));
    return true;
}

static void types_round_trip(int32_t version)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_value tuples[3][MW_N_TYPES];
    struct basalt_iceberg_manifest_entry entries[3];
    for (int r = 0; r < 3; r++)
        mw_types_entry(r, tuples[r], &entries[r]);
    struct basalt_iceberg_manifest_write_options o = {version, fx.schema, fx.types,
                                                      BASALT_ICEBERG_MANIFEST_DATA, 5, false};
    struct basalt_iceberg_manifest_file summary;
    uint8_t *data = NULL;
    size_t len = 0;
    uint64_t written;
    struct basalt_iceberg_manifest *m = NULL;
    char why[256] = "";
    bool ok = false;
    basalt_status st =
        mw_write_manifest(&o, entries, 3, &arena, &summary, &data, &len, &written, &err);
    if (st == BASALT_OK && !types_summary_ok(&summary, why, sizeof why))
        goto done;
    if (st == BASALT_OK) {
        summary.manifest_path = "types.avro";
        summary.sequence_number = summary.min_sequence_number = 1;
        summary.has_first_row_id = version >= 3; /* rows 10, 11, 12 inherit 0, 10, 21 */
        summary.first_row_id = 0;
        st = basalt_iceberg_manifest_parse(data, len, "types.avro", &summary, fx.types, fx.schema,
                                           NULL, &m, &err);
    }
    if (st == BASALT_OK) {
        ok = m->n_entries == 3;
        for (uint32_t i = 0; ok && i < 3; i++)
            ok = entry_ok(&m->entries[i], &entries[i], version, 5, 1, 1, version >= 3,
                          i == 0   ? 0
                          : i == 1 ? 10
                                   : 21,
                          why, sizeof why);
        if (!ok && !why[0])
            snprintf(why, sizeof why, "%u entries", (unsigned)m->n_entries);
    }
done:
    basalt_iceberg_manifest_free(m);
    basalt_free(data);
    basalt_arena_reset(&arena);
    mw_fixture_free(&fx);
    CHECK_OK(st, &err);
    CHECK_MSG(ok, "v%d: %s", (int)version, why);
}

TEST(manifest_write_types_v2) { types_round_trip(2); }
TEST(manifest_write_types_v3) { types_round_trip(3); }

/* Delete manifests: position deletes naming their data file, equality
 * deletes, a v3 deletion vector, an EXISTING delete file with its sequence
 * numbers; the list keeps delete manifests out of row-id assignment. */
static void deletes_round_trip(int32_t version)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_manifest_entry entries[4], data_entry;
    struct basalt_iceberg_value tuple[MW_N_TYPES];
    uint32_t n = mw_delete_entries(version, entries);
    mw_types_entry(0, tuple, &data_entry);
    struct basalt_iceberg_manifest_write_options o = {version, fx.schema, fx.unpartitioned,
                                                      BASALT_ICEBERG_MANIFEST_DELETES, 31, false};
    struct basalt_iceberg_manifest_file files[2];
    uint8_t *d = NULL, *l = NULL;
    size_t d_len = 0, l_len = 0;
    uint64_t written;
    int64_t next = 0;
    struct basalt_iceberg_manifest_list *list = NULL;
    struct basalt_iceberg_manifest *m = NULL;
    char why[256] = "";
    bool ok = false;
    basalt_status st =
        mw_write_manifest(&o, entries, n, &arena, &files[0], &d, &d_len, &written, &err);
    uint8_t *ignored = NULL;
    size_t ignored_len;
    if (st == BASALT_OK) {
        o.spec = fx.types;
        o.content = BASALT_ICEBERG_MANIFEST_DATA;
        st = mw_write_manifest(&o, &data_entry, 1, &arena, &files[1], &ignored, &ignored_len,
                               &written, &err);
        basalt_free(ignored);
    }
    if (st == BASALT_OK) {
        files[0].manifest_path = "deletes.avro";
        files[1].manifest_path = "data.avro";
        struct basalt_iceberg_manifest_list_write_options lo;
        init_list_options(&lo, version);
        st = mw_write_list(&lo, files, 2, &next, &l, &l_len, &written, &err);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_list_parse(l, l_len, "snap.avro", version, &list, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_parse(d, d_len, "deletes.avro", &list->files[0],
                                           fx.unpartitioned, fx.schema, NULL, &m, &err);
    if (st == BASALT_OK) {
        const struct basalt_iceberg_manifest_file *f = &list->files[0];
        ok = f->content == BASALT_ICEBERG_MANIFEST_DELETES && f->added_files_count == (int)n - 1 &&
             f->existing_files_count == 1 && f->existing_rows_count == 1 &&
             f->min_sequence_number == 5 && f->n_partitions == 0 && f->partitions &&
             !f->has_first_row_id && list->files[1].content == BASALT_ICEBERG_MANIFEST_DATA &&
             m->content == BASALT_ICEBERG_MANIFEST_DELETES && m->n_entries == n;
        /* v3: only the data manifest takes row ids: 1000, then its 10 rows */
        if (ok && version >= 3)
            ok = list->files[1].has_first_row_id && list->files[1].first_row_id == 1000 &&
                 next == 1010;
        if (!ok)
            snprintf(why, sizeof why, "list or manifest header");
        for (uint32_t i = 0; ok && i < n; i++) {
            bool existing = entries[i].status == BASALT_ICEBERG_ENTRY_EXISTING;
            ok = entry_ok(&m->entries[i], &entries[i], version, existing ? 333 : 31,
                          existing ? 5 : 7, existing ? 6 : 7, false, 0, why, sizeof why);
        }
    }
    basalt_iceberg_manifest_free(m);
    basalt_iceberg_manifest_list_free(list);
    basalt_free(d);
    basalt_free(l);
    basalt_arena_reset(&arena);
    mw_fixture_free(&fx);
    CHECK_OK(st, &err);
    CHECK_MSG(ok, "v%d: %s", (int)version, why);
}

TEST(manifest_write_deletes_v2) { deletes_round_trip(2); }
TEST(manifest_write_deletes_v3) { deletes_round_trip(3); }

/* An unpartitioned manifest records an empty list of summaries, and a v1
 * list leaves unknown counts null. */
TEST(manifest_write_unpartitioned_and_v1_counts)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_manifest_entry e;
    struct basalt_iceberg_value tuple[MW_N_TYPES];
    mw_types_entry(1, tuple, &e);
    e.data_file.partition = NULL;
    e.data_file.n_partition = 0;
    struct basalt_iceberg_manifest_write_options o = {1, fx.schema, fx.unpartitioned,
                                                      BASALT_ICEBERG_MANIFEST_DATA, 8, false};
    struct basalt_iceberg_manifest_file s;
    uint8_t *data = NULL, *l = NULL;
    size_t len = 0, l_len = 0;
    uint64_t written;
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = mw_write_manifest(&o, &e, 1, &arena, &s, &data, &len, &written, &err);
    bool summary = st == BASALT_OK && s.partitions && s.n_partitions == 0 &&
                   s.added_files_count == 1 && s.added_rows_count == 11 &&
                   s.min_sequence_number == -1;
    if (st == BASALT_OK) {
        s.manifest_path = "u.avro";
        s.existing_files_count = -1; /* unknown: null in v1 */
        s.deleted_rows_count = -1;
        struct basalt_iceberg_manifest_list_write_options lo;
        init_list_options(&lo, 1);
        lo.has_parent_snapshot_id = false;
        st = mw_write_list(&lo, &s, 1, NULL, &l, &l_len, &written, &err);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_list_parse(l, l_len, "snap.avro", 0, &list, &err);
    bool ok = st == BASALT_OK && list->format_version == 1 && list->n_files == 1 &&
              !list->has_parent_snapshot_id && list->files[0].existing_files_count == -1 &&
              list->files[0].deleted_rows_count == -1 && list->files[0].added_files_count == 1 &&
              list->files[0].partitions && list->files[0].n_partitions == 0 &&
              list->files[0].sequence_number == 0;
    basalt_iceberg_manifest_list_free(list);
    basalt_free(data);
    basalt_free(l);
    basalt_arena_reset(&arena);
    mw_fixture_free(&fx);
    CHECK_OK(st, &err);
    CHECK(summary);
    CHECK(ok);
}
