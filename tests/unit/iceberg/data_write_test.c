/* The Iceberg data writer, unpartitioned: what it writes reads back with
 * the Parquet reader (values, field ids), the data_file it describes
 * matches the file (size, split offsets, record count), files roll at the
 * target size, abort removes them, required columns refuse nulls, options
 * and specs are checked, and every allocation failure is clean. */
#include <math.h>

#include "basalt/iceberg_scan.h"
#include "data_write_rows.h"
#include "data_write_util.h"

struct dw_table {
    char dir[64];
    char data[128];
    struct basalt_arena arena;
    struct basalt_iceberg_schema schema;
};

static bool table_init(struct dw_table *t, const char *schema_json)
{
    if (!dwt_tmpdir(t->dir))
        return false;
    basalt_arena_init(&t->arena, 4096);
    dwt_schema(schema_json, &t->arena, &t->schema);
    snprintf(t->data, sizeof t->data, "%s/data", t->dir);
    return true;
}

static void table_reset(struct dw_table *t)
{
    dwt_rmrf(t->dir);
    basalt_arena_reset(&t->arena);
}

/* Writes rows [0, n) in batches of `per` rows; the writer is left open. */
static basalt_status write_rows(struct basalt_iceberg_data_writer *w,
                                const struct basalt_iceberg_schema *schema, int64_t n, int64_t per,
                                struct basalt_error *err)
{
    for (int64_t first = 0; first < n; first += per) {
        struct ArrowArray batch;
        int64_t m = n - first < per ? n - first : per;
        basalt_status st = dwr_batch(schema, NULL, first, m, &batch);
        if (st != BASALT_OK)
            return st;
        st = basalt_iceberg_data_writer_write(w, &batch, err);
        basalt_arrow_array_release(&batch);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static const char *str_at(const struct ArrowArray *a, int64_t i, int32_t *len)
{
    const int32_t *off = a->buffers[1];
    *len = off[a->offset + i + 1] - off[a->offset + i];
    return (const char *)a->buffers[2] + off[a->offset + i];
}

static bool is_valid(const struct ArrowArray *a, int64_t i)
{
    return !a->buffers[0] || basalt_bitmap_get(a->buffers[0], a->offset + i);
}

static bool same_str(const struct ArrowArray *a, int64_t i, const char *want)
{
    if (!want)
        return !is_valid(a, i);
    int32_t len;
    const char *s = str_at(a, i, &len);
    return is_valid(a, i) && (size_t)len == strlen(want) && memcmp(s, want, (size_t)len) == 0;
}

/* Row `r` of the read-back batch `b` at index i holds dwr row r's values. */
static bool row_matches(const struct ArrowArray *b, int64_t i, int64_t r, char *why, size_t cap)
{
    struct dwr_row x;
    dwr_make_row(r, &x);
    const struct ArrowArray *const *c = (const struct ArrowArray *const *)b->children;
#define MISMATCH(col)                                                                             \
    do {                                                                                          \
        snprintf(why, cap, "row %lld: column %s", (long long)r, col);                            \
        return false;                                                                             \
    } while (0)
    if (((const int64_t *)c[0]->buffers[1])[c[0]->offset + i] != x.id)
        MISMATCH("id");
    if (!same_str(c[1], i, x.name))
        MISMATCH("name");
    if (is_valid(c[2], i) == x.price_null)
        MISMATCH("price validity");
    double p = ((const double *)c[2]->buffers[1])[c[2]->offset + i];
    if (!x.price_null && !(isnan(x.price) ? isnan(p) : p == x.price))
        MISMATCH("price");
    if (is_valid(c[3], i) == x.qty_null ||
        (!x.qty_null && ((const int32_t *)c[3]->buffers[1])[c[3]->offset + i] != x.qty))
        MISMATCH("qty");
    if (((const int64_t *)c[4]->buffers[1])[c[4]->offset + i] != x.ts)
        MISMATCH("ts");
    if (is_valid(c[5], i) == x.tags_null)
        MISMATCH("tags validity");
    if (!x.tags_null) {
        const int32_t *off = c[5]->buffers[1];
        int64_t b0 = off[c[5]->offset + i], b1 = off[c[5]->offset + i + 1];
        if (b1 - b0 != x.ntags)
            MISMATCH("tags length");
        for (int j = 0; j < x.ntags; j++)
            if (!same_str(c[5]->children[0], b0 + j, x.tag_null[j] ? NULL : x.tags[j]))
                MISMATCH("tags element");
    }
    if (is_valid(c[6], i) == x.addr_null)
        MISMATCH("addr validity");
    if (!x.addr_null) {
        const struct ArrowArray *city = c[6]->children[0], *zip = c[6]->children[1];
        int64_t k = c[6]->offset + i;
        if (!same_str(city, k - city->offset, x.city))
            MISMATCH("addr.city");
        if (((const int32_t *)zip->buffers[1])[zip->offset + k] != x.zip)
            MISMATCH("addr.zip");
    }
    if (basalt_bitmap_get(c[7]->buffers[1], c[7]->offset + i) != x.flag)
        MISMATCH("flag");
    if (is_valid(c[8], i) == x.amount_null)
        MISMATCH("amount validity");
    if (!x.amount_null) {
        int64_t lo;
        memcpy(&lo, (const uint8_t *)c[8]->buffers[1] + 16 * (c[8]->offset + i), 8);
        if (lo != x.amount)
            MISMATCH("amount");
    }
    if (((const int32_t *)c[9]->buffers[1])[c[9]->offset + i] != x.day)
        MISMATCH("day");
    const int32_t *moff = c[10]->buffers[1];
    int64_t m0 = moff[c[10]->offset + i], m1 = moff[c[10]->offset + i + 1];
    if (m1 - m0 != x.nm)
        MISMATCH("m length");
    const struct ArrowArray *keys = c[10]->children[0]->children[0];
    const struct ArrowArray *vals = c[10]->children[0]->children[1];
    for (int j = 0; j < x.nm; j++) {
        if (!same_str(keys, m0 + j, x.keys[j]))
            MISMATCH("m key");
        if (is_valid(vals, m0 + j) == x.value_null[j] ||
            (!x.value_null[j] &&
             ((const int64_t *)vals->buffers[1])[vals->offset + m0 + j] != x.values[j]))
            MISMATCH("m value");
    }
    if (is_valid(c[11], i) == x.score_null)
        MISMATCH("score validity");
    float s = ((const float *)c[11]->buffers[1])[c[11]->offset + i];
    if (!x.score_null && !(isnan(x.score) ? isnan(s) : s == x.score))
        MISMATCH("score");
#undef MISMATCH
    return true;
}

/* Every row of `path` is dwr row first, first + 1, ... */
static bool file_holds_rows(const char *path, int64_t first, int64_t expect_rows, char *why,
                            size_t cap)
{
    struct basalt_arrow_batches b;
    struct basalt_error err;
    if (dwt_read(path, &b, &err) != BASALT_OK) {
        snprintf(why, cap, "%.100s: %.140s", path, err.message);
        return false;
    }
    int64_t r = first;
    bool ok = true;
    for (int64_t k = 0; ok && k < b.n; k++)
        for (int64_t i = 0; ok && i < b.arrays[k].length; i++)
            ok = row_matches(&b.arrays[k], i, r++, why, cap);
    if (ok && r - first != expect_rows) {
        snprintf(why, cap, "%s: %lld rows, %lld expected", path, (long long)(r - first),
                 (long long)expect_rows);
        ok = false;
    }
    basalt_arrow_batches_reset(&b);
    return ok;
}

TEST(data_writer_unpartitioned_round_trip)
{
    struct dw_table t;
    CHECK(table_init(&t, dwr_schema_json));
    struct basalt_iceberg_data_writer_options o;
    char data[128];
    dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
    o.sort_order_id = 3;
    struct basalt_iceberg_data_writer *w;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
    CHECK_OK(write_rows(w, &t.schema, 600, 300, &err), &err);
    /* nothing under its final name before finish */
    char path[256];
    snprintf(path, sizeof path, "%s/data/00000-0-test-00001.parquet", t.dir);
    CHECK(dwt_file_size(path) < 0);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(w, &files, &n, &err), &err);
    CHECK_EQ(n, 1);
    const struct basalt_iceberg_data_file *f = &files[0];
    CHECK_STR(f->file_path, path);
    CHECK_EQ(f->content, BASALT_ICEBERG_CONTENT_DATA);
    CHECK_EQ(f->file_format, BASALT_ICEBERG_FORMAT_PARQUET);
    CHECK_EQ(f->n_partition, 0);
    CHECK_EQ(f->record_count, 600);
    CHECK_EQ(f->file_size_in_bytes, dwt_file_size(path));
    CHECK(f->has_sort_order_id);
    CHECK_EQ(f->sort_order_id, 3);
    char why[256] = "";
    CHECK_MSG(file_holds_rows(path, 0, 600, why, sizeof why), "%s", why);

    /* split offsets: where each row group starts, as the footer says */
    struct basalt_parquet_reader *r;
    CHECK_OK(basalt_parquet_reader_open_file(path, NULL, &r, &err), &err);
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    CHECK_EQ(f->n_split_offsets, md->num_row_groups);
    for (size_t g = 0; g < md->num_row_groups; g++) {
        const struct basalt_parquet_column_metadata *m0 = &md->row_groups[g].columns[0].meta_data;
        int64_t start = m0->has_dictionary_page_offset ? m0->dictionary_page_offset
                                                       : m0->data_page_offset;
        CHECK_EQ(f->split_offsets[g], start);
    }
    CHECK_EQ(f->split_offsets[0], 4);
    /* the footer names the Iceberg schema, as the Java writer's does */
    bool has_schema = false;
    for (size_t k = 0; k < md->num_key_value_metadata; k++) {
        const struct basalt_parquet_key_value *kv = &md->key_value_metadata[k];
        if (kv->key.len == 14 && memcmp(kv->key.data, "iceberg.schema", 14) == 0)
            has_schema = kv->has_value && memmem(kv->value.data, kv->value.len, "\"id\":17", 7);
    }
    CHECK(has_schema);
    /* every field carries its id, nested ones too */
    struct ArrowSchema s;
    CHECK_OK(basalt_parquet_reader_schema(r, &s, &err), &err);
    static const int32_t top[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 17};
    CHECK_EQ(s.n_children, 12);
    for (int i = 0; i < 12; i++)
        CHECK_EQ(dwt_field_id(s.children[i]), top[i]);
    CHECK_EQ(dwt_field_id(s.children[5]->children[0]), 10);
    CHECK_EQ(dwt_field_id(s.children[6]->children[0]), 11);
    CHECK_EQ(dwt_field_id(s.children[6]->children[1]), 12);
    CHECK_EQ(dwt_field_id(s.children[10]->children[0]->children[0]), 15);
    CHECK_EQ(dwt_field_id(s.children[10]->children[0]->children[1]), 16);
    basalt_arrow_schema_release(&s);
    basalt_parquet_reader_close(r);

    /* finish again: the same files; writing after finish is refused */
    const struct basalt_iceberg_data_file *again;
    uint32_t n2;
    CHECK_OK(basalt_iceberg_data_writer_finish(w, &again, &n2, &err), &err);
    CHECK(again == files && n2 == 1);
    struct ArrowArray batch;
    CHECK_OK(dwr_batch(&t.schema, NULL, 0, 3, &batch), NULL);
    CHECK_STATUS(basalt_iceberg_data_writer_write(w, &batch, &err), BASALT_INVALID_ARG, &err);
    basalt_arrow_array_release(&batch);
    basalt_iceberg_data_writer_free(w);
    /* the file stays after free */
    CHECK(dwt_file_size(path) > 0);
    table_reset(&t);
}

TEST(data_writer_rolls_at_target_size)
{
    struct dw_table t;
    CHECK(table_init(&t, dwr_schema_json));
    struct basalt_iceberg_data_writer_options o;
    char data[128];
    dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
    static const struct basalt_iceberg_kv props[] = {
        {"write.target-file-size-bytes", "24000"},
        {"write.parquet.compression-codec", "uncompressed"},
    };
    o.properties = props;
    o.n_properties = 2;
    struct basalt_iceberg_data_writer *w;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
    /* one big batch and a few small ones */
    CHECK_OK(write_rows(w, &t.schema, 4000, 4000, &err), &err);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(w, &files, &n, &err), &err);
    CHECK_MSG(n >= 3, "%u files", n);
    int64_t first = 0;
    for (uint32_t i = 0; i < n; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/data/00000-0-test-%05u.parquet", t.dir, i + 1);
        CHECK_STR(files[i].file_path, path);
        int64_t size = dwt_file_size(path);
        CHECK_EQ(files[i].file_size_in_bytes, size);
        /* every file but the last was closed near the target: its size
         * while open (pending pages counted raw, as parquet-java's
         * buffered size does) passed it, and the rows it was given were
         * sized to fit */
        if (i + 1 < n)
            CHECK_MSG(size >= 24000 / 2 && size < 24000 * 2, "file %u: %lld bytes", i,
                      (long long)size);
        char why[256] = "";
        CHECK_MSG(file_holds_rows(path, first, files[i].record_count, why, sizeof why), "%s", why);
        const struct basalt_iceberg_metric_long *vc =
            dwt_long(files[i].value_counts, files[i].n_value_counts, 1);
        CHECK(vc && vc->value == files[i].record_count);
        first += files[i].record_count;
    }
    CHECK_EQ(first, 4000);
    basalt_iceberg_data_writer_free(w);
    table_reset(&t);
}

TEST(data_writer_abort_deletes_files)
{
    struct dw_table t;
    CHECK(table_init(&t, dwr_schema_json));
    struct basalt_iceberg_data_writer_options o;
    char data[128];
    dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
    static const struct basalt_iceberg_kv props[] = {{"write.target-file-size-bytes", "30000"}};
    o.properties = props;
    o.n_properties = 1;
    struct basalt_iceberg_data_writer *w;
    struct basalt_error err;
    /* finished files: abort deletes every one */
    CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
    CHECK_OK(write_rows(w, &t.schema, 3000, 1000, &err), &err);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(w, &files, &n, &err), &err);
    CHECK(n >= 2);
    CHECK_EQ(dwt_count_files(t.dir), (int)n);
    CHECK_OK(basalt_iceberg_data_writer_abort(w, &err), &err);
    CHECK_EQ(dwt_count_files(t.dir), 0);
    CHECK_STATUS(basalt_iceberg_data_writer_finish(w, &files, &n, &err), BASALT_INVALID_ARG, &err);
    basalt_iceberg_data_writer_free(w);
    /* rolled files and an open one: the open one is discarded too */
    CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
    CHECK_OK(write_rows(w, &t.schema, 3000, 1000, &err), &err);
    CHECK(dwt_count_files(t.dir) >= 2);
    CHECK_OK(basalt_iceberg_data_writer_abort(w, &err), &err);
    CHECK_EQ(dwt_count_files(t.dir), 0);
    struct ArrowArray batch;
    CHECK_OK(dwr_batch(&t.schema, NULL, 0, 3, &batch), NULL);
    CHECK_STATUS(basalt_iceberg_data_writer_write(w, &batch, &err), BASALT_INVALID_ARG, &err);
    basalt_arrow_array_release(&batch);
    basalt_iceberg_data_writer_free(w);
    /* free without finish leaves nothing either (no file was rolled) */
    CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
    CHECK_OK(write_rows(w, &t.schema, 50, 50, &err), &err);
    basalt_iceberg_data_writer_free(w);
    CHECK_EQ(dwt_count_files(t.dir), 0);
    table_reset(&t);
}

static const char req_schema[] =
    "{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"addr\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":3,\"name\":\"zip\",\"required\":true,\"type\":\"int\"}]}},"
    "{\"id\":4,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\","
    "\"element-id\":5,\"element\":\"string\",\"element-required\":true}}]}";

/* id: null at null_id; addr: null structs at rows 1 and 4, a null zip in
 * row 1 (hidden by its null struct) and in row null_zip; tags: a null list
 * at row 8, a null element in row null_tag, and one in row 4 hidden by a
 * null list whose slot still spans it. */
static basalt_status req_batch(int null_id, int null_zip, int null_tag, struct ArrowArray *out)
{
    struct basalt_arrow_builder *root, *id, *addr, *zip, *tags, *el;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_builder_add_child(root, "l", "id", 0, &id, NULL);
    basalt_arrow_builder_add_child(root, "+s", "addr", ARROW_FLAG_NULLABLE, &addr, NULL);
    basalt_arrow_builder_add_child(addr, "i", "zip", 0, &zip, NULL);
    basalt_arrow_builder_add_child(root, "+l", "tags", ARROW_FLAG_NULLABLE, &tags, NULL);
    basalt_arrow_builder_add_child(tags, "u", "element", 0, &el, NULL);
    for (int r = 0; r < 10; r++) {
        if (r == null_id)
            basalt_arrow_builder_append_null(id, NULL);
        else
            basalt_arrow_builder_append_int(id, r, NULL);
        if (r == 4) {
            basalt_arrow_builder_append_null(addr, NULL);
        } else {
            if (r == null_zip || r == 1)
                basalt_arrow_builder_append_null(zip, NULL);
            else
                basalt_arrow_builder_append_int(zip, r, NULL);
            basalt_arrow_builder_end_element(addr, NULL);
        }
        if (r == 8) {
            basalt_arrow_builder_append_null(tags, NULL);
        } else {
            basalt_arrow_builder_append_string(el, "a", NULL);
            if (r == null_tag || r == 4)
                basalt_arrow_builder_append_null(el, NULL);
            basalt_arrow_builder_end_element(tags, NULL);
        }
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct ArrowSchema s;
    st = basalt_arrow_builder_finish(root, &s, out, NULL);
    if (st == BASALT_OK) {
        basalt_arrow_schema_release(&s);
        /* row 1's struct and row 4's list made null after the fact, so
         * their children keep a null where the parent holds none */
        uint8_t *addr_valid = (uint8_t *)(uintptr_t)out->children[1]->buffers[0];
        uint8_t *tags_valid = (uint8_t *)(uintptr_t)out->children[2]->buffers[0];
        basalt_bitmap_set(addr_valid, 1, false);
        out->children[1]->null_count++;
        basalt_bitmap_set(tags_valid, 4, false);
        out->children[2]->null_count++;
    }
    basalt_arrow_builder_free(root);
    return st;
}

TEST(data_writer_required_nulls_refused)
{
    struct dw_table t;
    CHECK(table_init(&t, req_schema));
    struct basalt_iceberg_data_writer_options o;
    char data[128];
    dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
    struct basalt_error err;
    static const struct {
        int id, zip, tag;
        const char *message;
    } cases[] = {
        {-1, -1, -1, NULL},
        {7, -1, -1, "required column 'id' is null in row 7"},
        {-1, 3, -1, "required column 'addr.zip' is null in row 3"},
        {-1, -1, 6, "required column 'tags.element' is null in row 6"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_iceberg_data_writer *w;
        CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
        struct ArrowArray batch;
        CHECK_OK(req_batch(cases[i].id, cases[i].zip, cases[i].tag, &batch), NULL);
        basalt_status st = basalt_iceberg_data_writer_write(w, &batch, &err);
        if (!cases[i].message) {
            /* nulls hidden by a null parent are no nulls of the child */
            CHECK_OK(st, &err);
            const struct basalt_iceberg_data_file *files;
            uint32_t n;
            CHECK_OK(basalt_iceberg_data_writer_finish(w, &files, &n, &err), &err);
            CHECK_EQ(n, 1);
            CHECK_EQ(files[0].record_count, 10);
        } else {
            CHECK_STATUS(st, BASALT_INVALID_ARG, &err);
            CHECK_MSG(strstr(err.message, cases[i].message) != NULL, "case %zu: '%s'", i,
                      err.message);
            /* a failed writer only aborts */
            CHECK_STATUS(basalt_iceberg_data_writer_write(w, &batch, &err), BASALT_INVALID_ARG,
                         &err);
            CHECK_OK(basalt_iceberg_data_writer_abort(w, &err), &err);
            CHECK_EQ(dwt_count_files(t.dir), 0);
        }
        basalt_arrow_array_release(&batch);
        basalt_iceberg_data_writer_free(w);
        dwt_rmrf(t.data);
    }
    table_reset(&t);
}

TEST(data_writer_refuses_bad_options_and_specs)
{
    struct dw_table t;
    CHECK(table_init(&t, dwr_schema_json));
    struct basalt_iceberg_data_writer_options o;
    char data[128];
    struct basalt_iceberg_data_writer *w = (void *)1;
    struct basalt_error err;
    dwt_options(&o, NULL, NULL, data, sizeof data, t.dir);
    CHECK_STATUS(basalt_iceberg_data_writer_new(&o, &w, &err), BASALT_INVALID_ARG, &err);
    CHECK(w == NULL);
    dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
    o.file_prefix = NULL;
    CHECK_STATUS(basalt_iceberg_data_writer_new(&o, &w, &err), BASALT_INVALID_ARG, &err);

    static const struct {
        const char *key, *value, *message;
    } bad_props[] = {
        {"write.parquet.compression-codec", "lzo", "write.parquet.compression-codec"},
        {"write.target-file-size-bytes", "12MB", "write.target-file-size-bytes"},
        {"write.parquet.row-group-size-bytes", "-1", "write.parquet.row-group-size-bytes"},
        {"write.parquet.compression-level", "x", "write.parquet.compression-level"},
    };
    for (size_t i = 0; i < sizeof bad_props / sizeof bad_props[0]; i++) {
        dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
        struct basalt_iceberg_kv kv = {bad_props[i].key, bad_props[i].value};
        o.properties = &kv;
        o.n_properties = 1;
        CHECK_STATUS(basalt_iceberg_data_writer_new(&o, &w, &err), BASALT_INVALID_ARG, &err);
        CHECK_MSG(strstr(err.message, bad_props[i].message), "'%s'", err.message);
    }
    static const struct {
        int32_t source;
        const char *transform, *message;
    } bad_specs[] = {
        {99, "identity", "not in the schema"},
        {10, "identity", "inside a list or map"},  /* tags.element */
        {2, "month", "cannot apply"},              /* month of a string */
        {7, "identity", "cannot apply"},           /* a struct */
        {3, "bucket[4]", "cannot apply"},          /* bucket of a double */
        {1, "zorder", "cannot apply"},             /* an unknown transform */
    };
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
        struct basalt_iceberg_partition_field pf =
            dwt_pfield(bad_specs[i].source, 1000, "p", bad_specs[i].transform);
        struct basalt_iceberg_partition_spec spec = {0, &pf, 1};
        dwt_options(&o, &t.schema, &spec, data, sizeof data, t.dir);
        CHECK_STATUS(basalt_iceberg_data_writer_new(&o, &w, &err), BASALT_INVALID_ARG, &err);
        CHECK_MSG(strstr(err.message, bad_specs[i].message), "case %zu: '%s'", i, err.message);
    }
    /* a spec without fields is an unpartitioned table */
    struct basalt_iceberg_partition_spec empty = {0, NULL, 0};
    dwt_options(&o, &t.schema, &empty, data, sizeof data, t.dir);
    CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
    CHECK_OK(write_rows(w, &t.schema, 10, 10, &err), &err);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(w, &files, &n, &err), &err);
    CHECK(n == 1 && files[0].n_partition == 0);
    basalt_iceberg_data_writer_free(w);
    /* a batch of another shape */
    dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
    CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
    struct ArrowArray other;
    CHECK_OK(req_batch(-1, -1, -1, &other), NULL);
    CHECK_STATUS(basalt_iceberg_data_writer_write(w, &other, &err), BASALT_INVALID_ARG, &err);
    basalt_arrow_array_release(&other);
    basalt_iceberg_data_writer_free(w);
    basalt_iceberg_data_writer_free(NULL);
    table_reset(&t);
}

/* ------------------------------------------------------------ fault injection */

struct sweep {
    const struct basalt_iceberg_data_writer_options *o;
    const struct ArrowArray *batches;
    int n_batches;
    uint32_t files;
};

static basalt_status sweep_attempt(void *ctx)
{
    struct sweep *s = ctx;
    struct basalt_iceberg_data_writer *w;
    basalt_status st = basalt_iceberg_data_writer_new(s->o, &w, NULL);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; st == BASALT_OK && i < s->n_batches; i++)
        st = basalt_iceberg_data_writer_write(w, &s->batches[i], NULL);
    const struct basalt_iceberg_data_file *files;
    uint32_t n = 0;
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(w, &files, &n, NULL);
    if (st == BASALT_OK && n != s->files)
        st = BASALT_INTERNAL;
    if (st != BASALT_OK)
        basalt_iceberg_data_writer_abort(w, NULL);
    basalt_iceberg_data_writer_free(w);
    return st;
}

TEST(data_writer_alloc_failures)
{
    struct dw_table t;
    CHECK(table_init(&t, dwr_schema_json));
    struct ArrowArray batches[2];
    CHECK_OK(dwr_batch(&t.schema, NULL, 0, 40, &batches[0]), NULL);
    CHECK_OK(dwr_batch(&t.schema, NULL, 40, 40, &batches[1]), NULL);
    struct basalt_iceberg_data_writer_options o;
    char data[128];
    /* unpartitioned, rolled once by a small target */
    static const struct basalt_iceberg_kv props[] = {{"write.target-file-size-bytes", "3000"}};
    dwt_options(&o, &t.schema, NULL, data, sizeof data, t.dir);
    o.properties = props;
    o.n_properties = 1;
    struct sweep s = {&o, batches, 2, 0};
    {
        struct basalt_iceberg_data_writer *w;
        const struct basalt_iceberg_data_file *files;
        struct basalt_error err;
        CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
        CHECK_OK(basalt_iceberg_data_writer_write(w, &batches[0], &err), &err);
        CHECK_OK(basalt_iceberg_data_writer_write(w, &batches[1], &err), &err);
        CHECK_OK(basalt_iceberg_data_writer_finish(w, &files, &s.files, &err), &err);
        basalt_iceberg_data_writer_free(w);
        CHECK(s.files >= 2);
    }
    CHECK_ALLOC_SWEEP(sweep_attempt, &s);
    /* partitioned: two buckets, the rows of each gathered (every file
     * opened costs a Parquet writer's allocations: few files keep the sweep
     * short) */
    struct basalt_iceberg_partition_field pf[2] = {dwt_pfield(1, 1000, "id_bucket", "bucket[2]"),
                                                   dwt_pfield(8, 1001, "flag", "identity")};
    struct basalt_iceberg_partition_spec spec = {1, pf, 2};
    dwt_rmrf(t.data);
    dwt_options(&o, &t.schema, &spec, data, sizeof data, t.dir);
    s.files = 0;
    {
        struct basalt_iceberg_data_writer *w;
        const struct basalt_iceberg_data_file *files;
        struct basalt_error err;
        CHECK_OK(basalt_iceberg_data_writer_new(&o, &w, &err), &err);
        CHECK_OK(basalt_iceberg_data_writer_write(w, &batches[0], &err), &err);
        CHECK_OK(basalt_iceberg_data_writer_write(w, &batches[1], &err), &err);
        CHECK_OK(basalt_iceberg_data_writer_finish(w, &files, &s.files, &err), &err);
        basalt_iceberg_data_writer_free(w);
        CHECK(s.files >= 3);
    }
    CHECK_ALLOC_SWEEP(sweep_attempt, &s);
    basalt_arrow_array_release(&batches[0]);
    basalt_arrow_array_release(&batches[1]);
    table_reset(&t);
}
