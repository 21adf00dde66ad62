/* Cutting decoded leaves to the rows a page-pruned scan keeps: hand-built
 * leaves (dense list levels, spaced strings with nulls, booleans) with the
 * expected levels and values worked out by hand, then page pruning on
 * alltypes_tiny_pages.parquet with many predicates, each compared with the
 * same rows of a full read. */
#include <stdlib.h>

#include "basalt/parquet.h"
#include "parquet_column.h"
#include "parquet_reader.h"
#include "test.h"

void pqr_text_batches(const struct ArrowSchema *s, const struct ArrowArray *batches, int64_t n,
                      struct basalt_buffer *out);

static int16_t *levels(const int16_t *v, size_t n)
{
    int16_t *p = basalt_aligned_alloc(64, n * sizeof *p + 2);
    memcpy(p, v, n * sizeof *p);
    return p;
}

/* Two pages of two rows each, both read. */
static const int64_t first_rows[] = {0, 2, 4};
static const uint8_t both[] = {1, 1};
static const struct basalt_parquet_page_selection two_pages = {2, both, NULL, first_rows};

/* optional list<optional int32>, max_def 3, max_rep 1:
 *   row 0 [1, 2]     (3,0) (3,1)   values 1 2
 *   row 1 null       (0,0)
 *   row 2 []         (1,0)
 *   row 3 [null, 5]  (2,0) (3,1)   value 5 */
static basalt_status dense_leaf(struct basalt_parquet_leaf_values *leaf, struct basalt_error *err)
{
    static const int16_t def[] = {3, 3, 0, 1, 2, 3}, rep[] = {0, 1, 0, 0, 0, 1};
    static const int32_t vals[] = {1, 2, 5};
    memset(leaf, 0, sizeof *leaf);
    leaf->def = levels(def, 6);
    leaf->rep = levels(rep, 6);
    leaf->n_levels = 6;
    leaf->n_rows = 4;
    leaf->dense = true;
    leaf->kind = BASALT_PARQUET_OUT_FIXED;
    leaf->width = 4;
    basalt_status st = basalt_arrow_array_init(&leaf->values, 2, 0, err);
    void *p = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(&leaf->values, 1, 6 * 4, &p, err);
    if (st == BASALT_OK) {
        memcpy(p, vals, sizeof vals);
        leaf->values.length = 3;
    }
    return st;
}

TEST(reader_trim_dense_levels)
{
    struct basalt_error err;
    struct basalt_parquet_leaf_values leaf;
    /* Rows 1 and 2: a null list and an empty one; no values left. */
    CHECK_OK(dense_leaf(&leaf, &err), &err);
    static const int64_t want1[] = {1, 3};
    basalt_status st = basalt_parquet_leaf_keep_rows(&leaf, 3, &two_pages, want1, 1, &err);
    bool ok = st == BASALT_OK && leaf.n_rows == 2 && leaf.n_levels == 2 && leaf.def[0] == 0 &&
              leaf.def[1] == 1 && leaf.rep[0] == 0 && leaf.rep[1] == 0 && leaf.values.length == 0;
    basalt_parquet_leaf_values_reset(&leaf);
    CHECK_OK(st, &err);
    CHECK(ok);
    /* Rows 0 and 3: levels (3,0) (3,1) (2,0) (3,1), values 1 2 5. */
    CHECK_OK(dense_leaf(&leaf, &err), &err);
    static const int64_t want2[] = {0, 1, 3, 4};
    st = basalt_parquet_leaf_keep_rows(&leaf, 3, &two_pages, want2, 2, &err);
    const int32_t *v = leaf.values.buffers[1];
    ok = st == BASALT_OK && leaf.n_rows == 2 && leaf.n_levels == 4 && leaf.def[0] == 3 &&
         leaf.def[1] == 3 && leaf.def[2] == 2 && leaf.def[3] == 3 && leaf.rep[0] == 0 &&
         leaf.rep[1] == 1 && leaf.rep[2] == 0 && leaf.rep[3] == 1 && leaf.values.length == 3 &&
         v[0] == 1 && v[1] == 2 && v[2] == 5;
    basalt_parquet_leaf_values_reset(&leaf);
    CHECK_OK(st, &err);
    CHECK(ok);
    /* Row 3 only: (2,0) (3,1), value 5. */
    CHECK_OK(dense_leaf(&leaf, &err), &err);
    static const int64_t want3[] = {3, 4};
    st = basalt_parquet_leaf_keep_rows(&leaf, 3, &two_pages, want3, 1, &err);
    v = leaf.values.buffers[1];
    ok = st == BASALT_OK && leaf.n_levels == 2 && leaf.def[0] == 2 && leaf.rep[1] == 1 &&
         leaf.values.length == 1 && v[0] == 5;
    basalt_parquet_leaf_values_reset(&leaf);
    CHECK_OK(st, &err);
    CHECK(ok);
    /* Pages that claim more rows than the leaf holds. */
    CHECK_OK(dense_leaf(&leaf, &err), &err);
    static const int64_t more_rows[] = {0, 2, 5};
    const struct basalt_parquet_page_selection wrong = {2, both, NULL, more_rows};
    st = basalt_parquet_leaf_keep_rows(&leaf, 3, &wrong, want3, 1, &err);
    basalt_parquet_leaf_values_reset(&leaf);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
}

/* A spaced optional utf8 leaf of rows "a", null, "ccc", "", "ee", null
 * held by pages [0, 3) and [3, 6) of a row group whose first page (rows
 * 0..2) was skipped: the leaf holds rows 3..8 of the row group as 0..5. */
TEST(reader_trim_spaced_strings)
{
    struct basalt_error err;
    struct basalt_parquet_leaf_values leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.n_levels = leaf.n_rows = 6;
    leaf.kind = BASALT_PARQUET_OUT_BINARY;
    leaf.width = 4;
    static const int32_t off[] = {0, 1, 1, 4, 4, 6, 6};
    CHECK_OK(basalt_arrow_array_init(&leaf.values, 3, 0, &err), &err);
    void *p = NULL;
    basalt_status st = basalt_arrow_array_allocate_buffer(&leaf.values, 1, sizeof off, &p, &err);
    if (st == BASALT_OK)
        memcpy(p, off, sizeof off);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(&leaf.values, 2, 6, &p, &err);
    if (st == BASALT_OK)
        memcpy(p, "acccee", 6);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(&leaf.values, 0, 1, &p, &err);
    if (st == BASALT_OK)
        *(uint8_t *)p = 0x1d; /* rows 0, 2, 3, 4 valid */
    leaf.values.length = 6;
    leaf.values.null_count = 2;
    static const int64_t firsts[] = {0, 3, 6, 9};
    static const uint8_t sel[] = {0, 1, 1};
    const struct basalt_parquet_page_selection pages = {3, sel, NULL, firsts};
    /* Keep row-group rows 4..5 and 7 (leaf rows 1, 2, 4): null, "ccc", "ee". */
    static const int64_t want[] = {4, 6, 7, 8};
    if (st == BASALT_OK)
        st = basalt_parquet_leaf_keep_rows(&leaf, 1, &pages, want, 2, &err);
    const int32_t *o = leaf.values.buffers[1];
    const char *d = leaf.values.buffers[2];
    const uint8_t *valid = leaf.values.buffers[0];
    bool ok = st == BASALT_OK && leaf.n_rows == 3 && leaf.values.length == 3 &&
              leaf.values.null_count == 1 && (valid[0] & 7) == 6 && o[0] == 0 && o[1] == 0 &&
              o[2] == 3 && o[3] == 5 && memcmp(d, "cccee", 5) == 0;
    basalt_parquet_leaf_values_reset(&leaf);
    CHECK_OK(st, &err);
    CHECK(ok);
}

TEST(reader_trim_spaced_bools)
{
    struct basalt_error err;
    struct basalt_parquet_leaf_values leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.n_levels = leaf.n_rows = 4;
    leaf.kind = BASALT_PARQUET_OUT_BOOL;
    CHECK_OK(basalt_arrow_array_init(&leaf.values, 2, 0, &err), &err);
    void *p = NULL;
    basalt_status st = basalt_arrow_array_allocate_buffer(&leaf.values, 1, 1, &p, &err);
    if (st == BASALT_OK)
        *(uint8_t *)p = 0x9; /* true false false true */
    leaf.values.length = 4;
    static const int64_t want[] = {1, 2, 3, 4};
    if (st == BASALT_OK)
        st = basalt_parquet_leaf_keep_rows(&leaf, 0, &two_pages, want, 2, &err);
    const uint8_t *bits = leaf.values.buffers[1];
    bool ok = st == BASALT_OK && leaf.values.length == 2 && (bits[0] & 3) == 2 &&
              leaf.values.null_count == 0;
    basalt_parquet_leaf_values_reset(&leaf);
    CHECK_OK(st, &err);
    CHECK(ok);
}

/* ------------------------------------------------------------------ page pruning, many predicates */

/* Reads every column of alltypes_tiny_pages.parquet with `filter op lit`
 * into text; the plan of row group 0 gives the rows kept. */
static basalt_status read_with(const char *filter, enum basalt_parquet_op op,
                               const struct basalt_parquet_literal *lit, struct basalt_buffer *text,
                               struct basalt_parquet_ranges *kept, struct basalt_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/alltypes_tiny_pages.parquet",
             bt_testdata_path("parquet-testing/data"));
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL, *probe = NULL;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_parquet_reader_open_file(path, NULL, &r, err);
    for (int k = 0; k < 2 && st == BASALT_OK; k++) {
        struct basalt_parquet_scan **s = k ? &probe : &scan;
        st = basalt_parquet_scan_new(r, NULL, s, err);
        if (st == BASALT_OK) {
            basalt_parquet_scan_select_all(*s);
            if (filter)
                st = basalt_parquet_scan_filter(*s, filter, op, lit, err);
        }
    }
    if (st == BASALT_OK)
        st = basalt_parquet_scan_read_all(scan, &b, err);
    if (st == BASALT_OK)
        pqr_text_batches(&b.schema, b.arrays, b.n, text);
    basalt_buffer_append(text, "", 1, NULL);
    if (st == BASALT_OK && kept) {
        struct ArrowSchema s;
        st = basalt_parquet_scan_schema(probe, &s, err);
        if (st == BASALT_OK) {
            basalt_arrow_schema_release(&s);
            struct basalt_parquet_rg_plan plan;
            bool skip = false;
            st = basalt_parquet_scan_plan(probe, 0, &plan, &skip, err);
            if (st == BASALT_OK && !skip && !plan.want)
                st = basalt_parquet_ranges_add(kept, 0, 7300, err);
            for (int32_t i = 0; st == BASALT_OK && !skip && plan.want && i < plan.n_want; i++)
                st = basalt_parquet_ranges_add(kept, plan.want[2 * i], plan.want[2 * i + 1], err);
        }
    }
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_scan_free(probe);
    basalt_parquet_reader_close(r);
    return st;
}

TEST(reader_trim_many_predicates)
{
    struct basalt_error err;
    struct basalt_buffer full;
    basalt_buffer_init(&full);
    basalt_status st = read_with(NULL, BASALT_PARQUET_OP_EQ, NULL, &full, NULL, &err);
    /* Where each of the 7300 lines starts. */
    size_t *line = basalt_malloc(sizeof *line * 7301);
    size_t n = 0;
    for (size_t i = 0; st == BASALT_OK && line && i < full.size && n <= 7300; i++)
        if (i == 0 || full.data[i - 1] == '\n')
            line[n++] = i;
    bool shaped = st == BASALT_OK && line && n == 7301; /* the last is the final NUL */
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    static const enum basalt_parquet_op ops[] = {BASALT_PARQUET_OP_EQ, BASALT_PARQUET_OP_LT,
                                                 BASALT_PARQUET_OP_GE, BASALT_PARQUET_OP_GT};
    static const char *cols[] = {"id", "bigint_col", "int_col"};
    int pruned = 0;
    bool ok = shaped;
    for (int t = 0; ok && t < 24; t++) {
        const char *col = cols[t % 3];
        struct basalt_parquet_literal lit;
        memset(&lit, 0, sizeof lit);
        lit.kind = BASALT_PARQUET_LITERAL_INT;
        lit.i = t % 3 == 0 ? (int64_t)bt_rng_below(&rng, 7400)
                : t % 3 == 1 ? (int64_t)bt_rng_below(&rng, 10) * 10
                             : (int64_t)bt_rng_below(&rng, 10);
        enum basalt_parquet_op op = ops[bt_rng_below(&rng, 4)];
        struct basalt_buffer got;
        basalt_buffer_init(&got);
        struct basalt_parquet_ranges kept;
        basalt_parquet_ranges_init(&kept);
        st = read_with(col, op, &lit, &got, &kept, &err);
        /* The expected text: the full read's lines of the kept rows. */
        struct basalt_buffer want;
        basalt_buffer_init(&want);
        for (int32_t i = 0; st == BASALT_OK && i < kept.n; i++)
            basalt_buffer_append(&want, full.data + line[kept.r[2 * i]],
                                 line[kept.r[2 * i + 1]] - line[kept.r[2 * i]], NULL);
        basalt_buffer_append(&want, "", 1, NULL);
        ok = st == BASALT_OK && strcmp((char *)want.data, (char *)got.data) == 0;
        if (!ok)
            fprintf(stderr, "%s op %d %lld: %s\n", col, (int)op, (long long)lit.i,
                    st == BASALT_OK ? "rows differ" : err.message);
        pruned += basalt_parquet_ranges_rows(&kept) < 7300;
        basalt_parquet_ranges_reset(&kept);
        basalt_buffer_reset(&want);
        basalt_buffer_reset(&got);
    }
    basalt_free(line);
    basalt_buffer_reset(&full);
    CHECK(shaped);
    CHECK(ok);
    CHECK(pruned >= 6);
}
