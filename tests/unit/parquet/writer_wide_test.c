/* A wide footer through the writer and back: 1,000 columns (int64, double
 * and string in turn) in 50 row groups of 4 rows, written with the C API and
 * read back by basalt's reader. Every value is compared with the formula
 * that made it, and the footer with what was asked for: row groups, columns,
 * rows per group, leaf names and physical types, and the statistics (min,
 * max, null count) of a sample of column chunks against bounds computed here
 * from the same formula. Also a regression found by
 * tests/cli/parquet_writer_peers.sh: DELTA_BYTE_ARRAY pages of a nested
 * FIXED_LEN_BYTE_ARRAY column that hold nulls only. */
#include <stdio.h>
#include <string.h>

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "test.h"

#define WW_COLS 1000
#define WW_GROUPS 50
#define WW_GROUP_ROWS 4
#define WW_ROWS (WW_GROUPS * WW_GROUP_ROWS)

enum ww_kind { WW_INT64, WW_DOUBLE, WW_STRING };

static enum ww_kind ww_kind(int c)
{
    return (enum ww_kind)(c % 3);
}

static bool ww_null(int r, int c)
{
    /* whole chunks of nulls too: column 7 in row group 3 */
    if (c == 7 && r / WW_GROUP_ROWS == 3)
        return true;
    return (r * 31 + c * 17) % 11 == 0;
}

static uint64_t ww_mix(int r, int c)
{
    uint64_t x = (uint64_t)(r + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(c + 1) * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 29);
}

static int64_t ww_int(int r, int c)
{
    return (int64_t)ww_mix(r, c);
}

static double ww_double(int r, int c)
{
    return (double)((int64_t)ww_mix(r, c) >> 20) / 1024.0;
}

/* The string of (r, c) into buf (at least 48 bytes); its length. */
static int ww_string(int r, int c, char *buf)
{
    uint64_t x = ww_mix(r, c);
    return snprintf(buf, 48, "%c%d.%d.%llx", (char)('a' + (int)(x % 26)), r, c,
                    (unsigned long long)(x >> (x % 40)));
}

static basalt_status ww_table(struct ArrowSchema *s, struct ArrowArray *a, struct basalt_error *err)
{
    static struct basalt_arrow_builder *kids[WW_COLS];
    struct basalt_arrow_builder *root = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    for (int c = 0; c < WW_COLS && st == BASALT_OK; c++) {
        char name[16];
        snprintf(name, sizeof name, "c%04d", c);
        static const char *const formats[] = {"l", "g", "u"};
        st = basalt_arrow_builder_add_child(root, formats[ww_kind(c)], name, ARROW_FLAG_NULLABLE,
                                            &kids[c], err);
    }
    for (int r = 0; r < WW_ROWS && st == BASALT_OK; r++) {
        for (int c = 0; c < WW_COLS && st == BASALT_OK; c++) {
            char buf[48];
            if (ww_null(r, c))
                st = basalt_arrow_builder_append_null(kids[c], err);
            else if (ww_kind(c) == WW_INT64)
                st = basalt_arrow_builder_append_int(kids[c], ww_int(r, c), err);
            else if (ww_kind(c) == WW_DOUBLE)
                st = basalt_arrow_builder_append_double(kids[c], ww_double(r, c), err);
            else
                st = basalt_arrow_builder_append_bytes(kids[c], buf, ww_string(r, c, buf), err);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, s, a, err);
    basalt_arrow_builder_free(root);
    return st;
}

static basalt_status ww_write(uint8_t **data, size_t *len, struct basalt_error *err)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    *data = NULL;
    basalt_status st = ww_table(&s, &a, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = WW_GROUP_ROWS;
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    st = basalt_output_open_memory("wide.parquet", &out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_open(out, false, &s, &o, &w, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_write(w, &a, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    if (st == BASALT_OK && basalt_parquet_writer_num_row_groups(w) != WW_GROUPS)
        st = basalt_error_set(err, BASALT_INTERNAL, "the writer made %d row groups",
                              (int)basalt_parquet_writer_num_row_groups(w));
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    if (st == BASALT_OK)
        *data = basalt_output_memory_take(out, len);
    basalt_parquet_writer_close(w);
    basalt_output_close(out);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    return st;
}

/* The statistics of chunk (g, c) against the bounds of the formula. */
static void ww_check_stats(const struct basalt_parquet_reader *r, int g, int c)
{
    struct basalt_error err;
    struct basalt_parquet_column_stats st;
    CHECK_OK(basalt_parquet_reader_column_stats(r, g, c, &st, &err), &err);
    int64_t nulls = 0;
    bool any = false;
    int64_t imin = 0, imax = 0;
    double dmin = 0, dmax = 0;
    char smin[48] = "", smax[48] = "";
    int lmin = 0, lmax = 0;
    for (int row = g * WW_GROUP_ROWS; row < (g + 1) * WW_GROUP_ROWS; row++) {
        if (ww_null(row, c)) {
            nulls++;
            continue;
        }
        char buf[48];
        int n;
        switch (ww_kind(c)) {
        case WW_INT64: {
            int64_t v = ww_int(row, c);
            if (!any || v < imin)
                imin = v;
            if (!any || v > imax)
                imax = v;
            break;
        }
        case WW_DOUBLE: {
            double v = ww_double(row, c);
            if (!any || v < dmin)
                dmin = v;
            if (!any || v > dmax)
                dmax = v;
            break;
        }
        case WW_STRING:
            n = ww_string(row, c, buf);
            /* unsigned byte order; the strings are ASCII and NUL-free */
            if (!any || strcmp(buf, smin) < 0) {
                memcpy(smin, buf, (size_t)n + 1);
                lmin = n;
            }
            if (!any || strcmp(buf, smax) > 0) {
                memcpy(smax, buf, (size_t)n + 1);
                lmax = n;
            }
            break;
        }
        any = true;
    }
    CHECK(st.has_null_count);
    CHECK_EQ(st.null_count, nulls);
    CHECK_EQ(st.num_values, WW_GROUP_ROWS);
    CHECK_EQ(st.has_min_max, any);
    if (!any || !st.has_min_max)
        return;
    switch (ww_kind(c)) {
    case WW_INT64:
        CHECK_EQ(st.min.len, 8u);
        CHECK_EQ(st.max.len, 8u);
        if (st.min.len == 8 && st.max.len == 8) {
            CHECK_MEM(st.min.data, &imin, 8);
            CHECK_MEM(st.max.data, &imax, 8);
        }
        break;
    case WW_DOUBLE:
        CHECK_EQ(st.min.len, 8u);
        CHECK_EQ(st.max.len, 8u);
        if (st.min.len == 8 && st.max.len == 8) {
            CHECK_MEM(st.min.data, &dmin, 8);
            CHECK_MEM(st.max.data, &dmax, 8);
        }
        break;
    case WW_STRING:
        CHECK_EQ(st.min.len, (size_t)lmin);
        CHECK_EQ(st.max.len, (size_t)lmax);
        if (st.min.len == (size_t)lmin && st.max.len == (size_t)lmax) {
            CHECK_MEM(st.min.data, smin, (size_t)lmin);
            CHECK_MEM(st.max.data, smax, (size_t)lmax);
        }
        CHECK(st.min_exact && st.max_exact);
        break;
    }
}

/* Every value of batch `g` (row group g) against the formula. */
static void ww_check_batch(const struct ArrowSchema *s, const struct ArrowArray *a, int g)
{
    CHECK_EQ(a->length, WW_GROUP_ROWS);
    CHECK_EQ(a->n_children, WW_COLS);
    if (a->length != WW_GROUP_ROWS || a->n_children != WW_COLS)
        return;
    int bad = 0;
    for (int c = 0; c < WW_COLS && bad < 5; c++) {
        const struct ArrowArray *col = a->children[c];
        const char *format = s->children[c]->format;
        static const char *const want[] = {"l", "g", "u"};
        if (strcmp(format, want[ww_kind(c)]) != 0) {
            bt_fail(__FILE__, __LINE__, "column %d reads back as %s", c, format);
            bad++;
            continue;
        }
        for (int i = 0; i < WW_GROUP_ROWS; i++) {
            int row = g * WW_GROUP_ROWS + i;
            int64_t k = col->offset + a->offset + i;
            bool valid = !col->buffers[0] || basalt_bitmap_get(col->buffers[0], k);
            bool same = valid == !ww_null(row, c);
            if (same && valid) {
                char buf[48];
                switch (ww_kind(c)) {
                case WW_INT64:
                    same = ((const int64_t *)col->buffers[1])[k] == ww_int(row, c);
                    break;
                case WW_DOUBLE:
                    same = ((const double *)col->buffers[1])[k] == ww_double(row, c);
                    break;
                case WW_STRING: {
                    int n = ww_string(row, c, buf);
                    const int32_t *o = col->buffers[1];
                    same = o[k + 1] - o[k] == n &&
                           memcmp((const char *)col->buffers[2] + o[k], buf, (size_t)n) == 0;
                    break;
                }
                }
            }
            if (!same) {
                bt_fail(__FILE__, __LINE__, "row %d column %d differs", row, c);
                bad++;
            }
        }
    }
}

TEST(writer_wide_footer_1000_columns_50_row_groups)
{
    struct basalt_error err;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(ww_write(&data, &len, &err), &err);
    if (!data)
        return;
    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_input_open_memory(data, len, "wide.parquet", &in, &err), &err);
    if (in)
        CHECK_OK(basalt_parquet_reader_open(in, true, NULL, &r, &err), &err);
    if (!r) {
        basalt_free(data);
        return;
    }

    /* the footer */
    CHECK_EQ(basalt_parquet_reader_num_row_groups(r), WW_GROUPS);
    CHECK_EQ(basalt_parquet_reader_num_columns(r), WW_COLS);
    CHECK_EQ(basalt_parquet_reader_num_rows(r), WW_ROWS);
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    CHECK_EQ(md->num_rows, WW_ROWS);
    CHECK_EQ(md->num_row_groups, (size_t)WW_GROUPS);
    CHECK_EQ(md->num_schema, (size_t)WW_COLS + 1);
    static const int32_t types[] = {BASALT_PARQUET_TYPE_INT64, BASALT_PARQUET_TYPE_DOUBLE,
                                    BASALT_PARQUET_TYPE_BYTE_ARRAY};
    int bad = 0;
    for (size_t g = 0; g < md->num_row_groups && bad < 5; g++) {
        const struct basalt_parquet_row_group *rg = &md->row_groups[g];
        CHECK_EQ(rg->num_rows, WW_GROUP_ROWS);
        CHECK_EQ(rg->num_columns, (size_t)WW_COLS);
        for (size_t c = 0; c < rg->num_columns && bad < 5; c++) {
            const struct basalt_parquet_column_metadata *m = &rg->columns[c].meta_data;
            char name[16];
            snprintf(name, sizeof name, "c%04d", (int)c);
            bool ok = rg->columns[c].has_meta_data && m->type == types[ww_kind((int)c)] &&
                      m->num_values == WW_GROUP_ROWS && m->num_path_in_schema == 1 &&
                      strcmp(m->path_in_schema[0].data, name) == 0 && m->has_statistics &&
                      rg->columns[c].has_offset_index_offset;
            if (!ok) {
                bt_fail(__FILE__, __LINE__, "row group %zu column %zu: footer entry wrong", g, c);
                bad++;
            }
        }
    }
    for (int c = 0; c < WW_COLS && (size_t)c + 1 < md->num_schema; c += 97) {
        char name[16];
        snprintf(name, sizeof name, "c%04d", c);
        CHECK_STR(md->schema[c + 1].name.data, name);
    }

    /* statistics of a sample: corners, the all-null chunk, and a spread */
    static const int sample_groups[] = {0, 3, 17, 49};
    static const int sample_cols[] = {0, 1, 2, 7, 499, 500, 501, 997, 998, 999};
    for (size_t i = 0; i < sizeof sample_groups / sizeof sample_groups[0]; i++)
        for (size_t j = 0; j < sizeof sample_cols / sizeof sample_cols[0]; j++)
            ww_check_stats(r, sample_groups[i], sample_cols[j]);
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    for (int i = 0; i < 60; i++)
        ww_check_stats(r, (int)bt_rng_below(&rng, WW_GROUPS), (int)bt_rng_below(&rng, WW_COLS));
    {
        /* the all-null chunk of column 7 */
        struct basalt_parquet_column_stats st;
        CHECK_OK(basalt_parquet_reader_column_stats(r, 3, 7, &st, &err), &err);
        CHECK(!st.has_min_max);
        CHECK_EQ(st.null_count, WW_GROUP_ROWS);
    }

    /* every value, one batch per row group */
    struct basalt_parquet_read_options ro;
    basalt_parquet_read_options_init(&ro);
    ro.batch_size = 0;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    CHECK_OK(basalt_parquet_scan_new(r, &ro, &scan, &err), &err);
    if (scan) {
        basalt_parquet_scan_select_all(scan);
        CHECK_OK(basalt_parquet_scan_read_all(scan, &b, &err), &err);
    }
    CHECK_EQ(b.n, WW_GROUPS);
    for (int64_t g = 0; g < b.n && g < WW_GROUPS; g++)
        ww_check_batch(&b.schema, &b.arrays[g], (int)g);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    basalt_free(data);
}

/* A nested FIXED_LEN_BYTE_ARRAY column whose pages hold nulls only, written
 * DELTA_BYTE_ARRAY: such a page has no value bytes at all, which the encoder
 * once refused ("fixed-width input needs a width"). Then a page with values
 * after it in the same chunk. */
TEST(writer_delta_byte_array_nested_fixed_nulls_only)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *list = NULL, *item = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    if (!root)
        return;
    CHECK_OK(basalt_arrow_builder_add_child(root, "+l", "l", ARROW_FLAG_NULLABLE, &list, &err), &err);
    if (list)
        CHECK_OK(basalt_arrow_builder_add_child(list, "w:16", "element", ARROW_FLAG_NULLABLE, &item,
                                                &err),
                 &err);
    /* rows 0-9: [null]; rows 10-19: [16 bytes of the row number] */
    for (int r = 0; r < 20 && item; r++) {
        uint8_t v[16];
        memset(v, r, sizeof v);
        CHECK_OK(r < 10 ? basalt_arrow_builder_append_null(item, &err)
                        : basalt_arrow_builder_append_bytes(item, v, 16, &err),
                 &err);
        CHECK_OK(basalt_arrow_builder_end_element(list, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    memset(&s, 0, sizeof s);
    memset(&a, 0, sizeof a);
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    if (!a.release)
        return;

    struct basalt_parquet_writer_column_encoding enc = {"l.list.element",
                                                        BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY};
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.column_encodings = &enc;
    o.num_column_encodings = 1;
    o.page_rows = 10; /* the first page: nulls only */
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(basalt_output_open_memory("nulls.parquet", &out, &err), &err);
    if (out)
        CHECK_OK(basalt_parquet_writer_open(out, false, &s, &o, &w, &err), &err);
    if (w) {
        CHECK_OK(basalt_parquet_writer_write(w, &a, &err), &err);
        CHECK_OK(basalt_parquet_writer_finish(w, &err), &err);
        CHECK_OK(basalt_output_commit(out, &err), &err);
        data = basalt_output_memory_take(out, &len);
    }
    basalt_parquet_writer_close(w);
    basalt_output_close(out);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    if (!data)
        return;

    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_input_open_memory(data, len, "nulls.parquet", &in, &err), &err);
    if (in)
        CHECK_OK(basalt_parquet_reader_open(in, true, NULL, &r, &err), &err);
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    if (r) {
        const struct basalt_parquet_column_metadata *m =
            &basalt_parquet_reader_metadata(r)->row_groups[0].columns[0].meta_data;
        bool delta = false;
        for (size_t k = 0; k < m->num_encodings; k++)
            delta = delta || m->encodings[k] == BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY;
        CHECK(delta);
        CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    }
    if (scan) {
        basalt_parquet_scan_select_all(scan);
        CHECK_OK(basalt_parquet_scan_read_all(scan, &b, &err), &err);
    }
    int64_t row = 0;
    for (int64_t k = 0; k < b.n; k++) {
        const struct ArrowArray *l = b.arrays[k].children[0];
        const struct ArrowArray *e = l->children[0];
        const int32_t *off = l->buffers[1];
        for (int64_t i = 0; i < l->length; i++, row++) {
            int64_t j = l->offset + i;
            CHECK_EQ(off[j + 1] - off[j], 1);
            int64_t x = e->offset + off[j];
            bool valid = !e->buffers[0] || basalt_bitmap_get(e->buffers[0], x);
            CHECK_EQ(valid, row >= 10);
            if (valid) {
                uint8_t v[16];
                memset(v, (int)row, sizeof v);
                CHECK_MEM((const uint8_t *)e->buffers[1] + 16 * x, v, 16);
            }
        }
    }
    CHECK_EQ(row, 20);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    basalt_free(data);
}
