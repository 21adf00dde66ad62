/* FLOAT16 statistics and pruning: the two float16 files of parquet-testing
 * against their documented values (data/README.md "Float16 Files": the
 * pyarrow tables and the statistics pyarrow printed), pruning row groups and
 * pages with float predicates on half floats, and the writer's statistics
 * against pyarrow's for the same tables.
 *
 * Half-float bounds compare as numbers: -2.0 is 0x00 0xc0 and 2.0 is 0x00
 * 0x40 in the file, so bytes compared as unsigned integers say min > max,
 * and as signed integers order negative values backwards; the predicates
 * below are chosen so that either mistake changes the answer. */
#include <math.h>
#include <stdlib.h>

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "parquet_writer.h"
#include "test.h"
#include "writer_test_util.h"

static const char *data_file(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/data"), name);
    return path;
}

/* IEEE 754 binary16, written out here rather than taken from the library. */
static double half(uint16_t h)
{
    int e = (h >> 10) & 31, f = h & 1023;
    double v = e == 0 ? ldexp(f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp(f + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

TEST(float16_corpus_statistics)
{
    static const struct {
        const char *file;
        uint8_t min[2], max[2];
        int64_t nulls, values, rows;
    } files[] = {
        /* README: min b'\x00\x80' (-0), max b'\x00\x00' (+0), 1 null, 3 values */
        {"float16_zeros_and_nans.parquet", {0x00, 0x80}, {0x00, 0x00}, 1, 3, 3},
        /* README: min b'\x00\xc0' (-2), max b'\x00@' (2), 1 null, 8 values */
        {"float16_nonzeros_and_nans.parquet", {0x00, 0xc0}, {0x00, 0x40}, 1, 8, 8},
    };
    for (size_t i = 0; i < 2; i++) {
        struct basalt_parquet_reader *r;
        struct basalt_error err;
        CHECK_OK(basalt_parquet_reader_open_file(data_file(files[i].file), NULL, &r, &err), &err);
        struct basalt_parquet_column_stats cs;
        CHECK_OK(basalt_parquet_reader_column_stats(r, 0, 0, &cs, &err), &err);
        struct basalt_parquet_column_info info;
        CHECK_OK(basalt_parquet_reader_column(r, 0, &info, &err), &err);
        CHECK_STR(info.arrow_format, "e");
        CHECK(cs.has_min_max && cs.min_exact && cs.max_exact);
        CHECK_EQ(cs.sort_order, BASALT_PARQUET_SORT_ORDER_SIGNED);
        CHECK(cs.min.len == 2 && cs.max.len == 2);
        CHECK_MEM(cs.min.data, files[i].min, 2);
        CHECK_MEM(cs.max.data, files[i].max, 2);
        CHECK(cs.has_null_count && cs.null_count == files[i].nulls);
        CHECK_EQ(cs.num_values, files[i].values);
        CHECK_EQ(basalt_parquet_reader_num_rows(r), files[i].rows);
        basalt_parquet_reader_close(r);
    }
    CHECK(half(0x8000) == 0 && signbit(half(0x8000)) && half(0xc000) == -2 && half(0x4000) == 2);
}

/* The values of float16_nonzeros_and_nans.parquet, as the README builds
 * them: None, 1.0, -2.0, NaN, 0.0, -1.0, -0.0, 2.0. */
TEST(float16_corpus_values)
{
    struct basalt_parquet_reader *r;
    struct basalt_parquet_scan *scan;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_error err;
    CHECK_OK(basalt_parquet_reader_open_file(data_file("float16_nonzeros_and_nans.parquet"), NULL,
                                             &r, &err),
             &err);
    CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    basalt_parquet_scan_select_all(scan);
    CHECK_OK(basalt_parquet_scan_read_all(scan, &b, &err), &err);
    const struct ArrowArray *x = b.arrays[0].children[0];
    CHECK_EQ(x->length, 8);
    static const double want[] = {0, 1, -2, NAN, 0, -1, -0.0, 2};
    const uint16_t *v = x->buffers[1];
    bool ok = !basalt_bitmap_get(x->buffers[0], 0);
    for (int i = 1; i < 8 && ok; i++) {
        double d = half(v[i]);
        ok = basalt_bitmap_get(x->buffers[0], i) &&
             (isnan(want[i]) ? isnan(d) : d == want[i] && signbit(d) == signbit(want[i]));
    }
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK(ok);
}

/* Whether a scan of `file` with `x op d` keeps its one row group. */
static basalt_status kept(const char *file, enum basalt_parquet_op op, double d, bool *keep,
                          struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_parquet_reader_open_file(data_file(file), NULL, &r, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, NULL, &scan, err);
    struct basalt_parquet_literal lit = {.kind = BASALT_PARQUET_LITERAL_DOUBLE, .d = d};
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_filter(scan, "x", op, &lit, err);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_scan_read_all(scan, &b, err);
    if (st == BASALT_OK) {
        struct basalt_parquet_scan_stats s;
        basalt_parquet_scan_get_stats(scan, &s);
        *keep = s.row_groups_read == 1;
    }
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

TEST(float16_corpus_pruning)
{
    enum { EQ = BASALT_PARQUET_OP_EQ, NE = BASALT_PARQUET_OP_NE, LT = BASALT_PARQUET_OP_LT,
           LE = BASALT_PARQUET_OP_LE, GT = BASALT_PARQUET_OP_GT, GE = BASALT_PARQUET_OP_GE };
    static const struct {
        const char *file;
        int op;
        double d;
        bool keep; /* from the documented values: may a row match? */
    } cases[] = {
        /* -2, -1, -0, 0, 1, 2 and NaN */
        {"float16_nonzeros_and_nans.parquet", GT, 2.5, false},  /* unsigned bytes: min > max, kept */
        {"float16_nonzeros_and_nans.parquet", GT, 1.5, true},
        {"float16_nonzeros_and_nans.parquet", GE, 2, true},
        {"float16_nonzeros_and_nans.parquet", LT, -1.5, true},  /* signed bytes: 0xbe00 < 0xc000, pruned */
        {"float16_nonzeros_and_nans.parquet", LT, -2, false},
        {"float16_nonzeros_and_nans.parquet", LE, -2, true},
        {"float16_nonzeros_and_nans.parquet", EQ, -3, false},
        {"float16_nonzeros_and_nans.parquet", EQ, 0.5, true},   /* inside the bounds */
        {"float16_nonzeros_and_nans.parquet", EQ, 1e6, false},  /* beyond any half */
        /* -0, +0 and NaN: min -0, max +0 */
        {"float16_zeros_and_nans.parquet", GT, 0, false},
        {"float16_zeros_and_nans.parquet", GE, 0, true},
        {"float16_zeros_and_nans.parquet", LT, 0, false},
        {"float16_zeros_and_nans.parquet", LE, -0.0, true},
        {"float16_zeros_and_nans.parquet", EQ, -0.0, true},
        {"float16_zeros_and_nans.parquet", EQ, 0.001, false},
        {"float16_zeros_and_nans.parquet", NE, 0, true},        /* NaN != 0, no nan_count */
        {"float16_zeros_and_nans.parquet", EQ, NAN, true},      /* never pruned on NaN */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool keep = !cases[i].keep;
        struct basalt_error err;
        CHECK_OK(kept(cases[i].file, (enum basalt_parquet_op)cases[i].op, cases[i].d, &keep, &err),
                 &err);
        CHECK_MSG(keep == cases[i].keep, "case %zu: %s op %d %g: %s", i, cases[i].file,
                  cases[i].op, cases[i].d, keep ? "kept" : "pruned");
    }
}

/* ------------------------------------------------------------ writing */

/* A table of one nullable float16 column x (NaN in `v` is NaN; `nulls`
 * marks nulls). */
static basalt_status half_table(const double *v, const bool *nulls, int n, struct ArrowSchema *s,
                                struct ArrowArray *a, struct basalt_error *err)
{
    struct basalt_arrow_builder *b = NULL, *x = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &b, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(b, "e", "x", ARROW_FLAG_NULLABLE, &x, err);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        st = nulls && nulls[i] ? basalt_arrow_builder_append_null(x, err)
                               : basalt_arrow_builder_append_double(x, v[i], err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(b, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, s, a, err);
    basalt_arrow_builder_free(b);
    return st;
}

/* The README's two pyarrow tables, written by basalt: the chunk statistics
 * equal pyarrow's, byte for byte (min -0 and max +0 when only zeros; NaN
 * never a bound). */
TEST(float16_writer_statistics)
{
    static const double t1[] = {0, 0.0, NAN};
    static const bool n1[] = {true, false, false};
    static const double t2[] = {0, 1.0, -2.0, NAN, 0.0, -1.0, -0.0, 2.0};
    static const bool n2[] = {true, false, false, false, false, false, false, false};
    static const struct {
        const double *v;
        const bool *nulls;
        int n;
        const char *corpus;
    } tables[] = {{t1, n1, 3, "float16_zeros_and_nans.parquet"},
                  {t2, n2, 8, "float16_nonzeros_and_nans.parquet"}};
    for (size_t i = 0; i < 2; i++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        struct basalt_error err;
        CHECK_OK(half_table(tables[i].v, tables[i].nulls, tables[i].n, &s, &a, &err), &err);
        uint8_t *data = NULL;
        size_t len = 0;
        basalt_status st = wtu_write(&s, &a, NULL, 1, &data, &len, NULL, &err);
        basalt_arrow_schema_release(&s);
        basalt_arrow_array_release(&a);
        CHECK_OK(st, &err);
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        struct basalt_parquet_reader *mine = NULL, *theirs = NULL;
        st = wtu_read(data, len, false, &b, &mine, &err);
        basalt_arrow_batches_reset(&b);
        if (st == BASALT_OK)
            st = basalt_parquet_reader_open_file(data_file(tables[i].corpus), NULL, &theirs, &err);
        struct basalt_parquet_column_stats x, y;
        if (st == BASALT_OK)
            st = basalt_parquet_reader_column_stats(mine, 0, 0, &x, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_reader_column_stats(theirs, 0, 0, &y, &err);
        bool same = st == BASALT_OK && x.has_min_max && y.has_min_max && x.min.len == 2 &&
                    x.max.len == 2 && y.min.len == 2 && memcmp(x.min.data, y.min.data, 2) == 0 &&
                    memcmp(x.max.data, y.max.data, 2) == 0 && x.null_count == y.null_count &&
                    x.num_values == y.num_values;
        basalt_parquet_reader_close(mine);
        basalt_parquet_reader_close(theirs);
        basalt_free(data);
        CHECK_OK(st, &err);
        CHECK_MSG(same, "%s: basalt's statistics differ from pyarrow's", tables[i].corpus);
    }
}

/* 4000 halves, -2000 .. 1999 in order (every 97th a NaN, every 101st
 * null), in pages of 500 rows with a page index: a float predicate reads
 * only the pages whose bounds, compared as numbers, may match. */
TEST(float16_page_index_pruning)
{
    enum { N = 4000 };
    double *v = basalt_malloc(N * sizeof *v);
    bool *nulls = basalt_malloc(N);
    for (int i = 0; i < N; i++) {
        v[i] = i % 97 == 50 ? NAN : (double)(i - 2000);
        nulls[i] = i % 101 == 7;
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    basalt_status st = half_table(v, nulls, N, &s, &a, &err);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 500;
    o.dictionary = false;
    uint8_t *data = NULL;
    size_t len = 0;
    if (st == BASALT_OK)
        st = wtu_write(&s, &a, &o, 1, &data, &len, NULL, &err);
    basalt_arrow_schema_release(&s);
    basalt_arrow_array_release(&a);
    CHECK_OK(st, &err);
    static const struct {
        int op;
        double d;
        int64_t rows_read; /* whole pages of 500 */
    } preds[] = {
        {BASALT_PARQUET_OP_GE, 1500, 500},      /* the last page */
        {BASALT_PARQUET_OP_GT, 1499.5, 500},
        {BASALT_PARQUET_OP_LT, -1500, 500},     /* the first page */
        {BASALT_PARQUET_OP_LE, -1500, 1000},    /* -1500 opens the second */
        {BASALT_PARQUET_OP_EQ, -2, 500},        /* page 4: -500 .. -1 */
        {BASALT_PARQUET_OP_EQ, -0.5, 0},        /* between pages 4 (..-1) and 5 (0..) */
        {BASALT_PARQUET_OP_GT, -3000, 4000},
    };
    for (size_t p = 0; p < sizeof preds / sizeof *preds; p++) {
        struct basalt_input *in = NULL;
        struct basalt_parquet_reader *r = NULL;
        struct basalt_parquet_scan *scan = NULL;
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        struct basalt_parquet_literal lit = {.kind = BASALT_PARQUET_LITERAL_DOUBLE, .d = preds[p].d};
        st = basalt_input_open_memory(data, len, "half.parquet", &in, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_reader_open(in, true, NULL, &r, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_scan_new(r, NULL, &scan, &err);
        if (st == BASALT_OK) {
            basalt_parquet_scan_select_all(scan);
            st = basalt_parquet_scan_filter(scan, "x", (enum basalt_parquet_op)preds[p].op, &lit,
                                            &err);
        }
        if (st == BASALT_OK)
            st = basalt_parquet_scan_read_all(scan, &b, &err);
        struct basalt_parquet_scan_stats stats;
        memset(&stats, 0, sizeof stats);
        if (scan)
            basalt_parquet_scan_get_stats(scan, &stats);
        /* every row that matches is among those read */
        int64_t matches = 0, found = 0;
        for (int i = 0; i < N; i++) {
            double x = v[i];
            bool m = !nulls[i] && !isnan(x) &&
                     (preds[p].op == BASALT_PARQUET_OP_GE   ? x >= preds[p].d
                      : preds[p].op == BASALT_PARQUET_OP_GT ? x > preds[p].d
                      : preds[p].op == BASALT_PARQUET_OP_LT ? x < preds[p].d
                      : preds[p].op == BASALT_PARQUET_OP_LE ? x <= preds[p].d
                                                            : x == preds[p].d);
            matches += m;
        }
        for (int64_t k = 0; st == BASALT_OK && k < b.n; k++) {
            const struct ArrowArray *x = b.arrays[k].children[0];
            const uint16_t *h = x->buffers[1];
            for (int64_t i = 0; i < x->length; i++) {
                if (x->buffers[0] && !basalt_bitmap_get(x->buffers[0], i))
                    continue;
                double d = half(h[i]);
                found += !isnan(d) && (preds[p].op == BASALT_PARQUET_OP_GE   ? d >= preds[p].d
                                       : preds[p].op == BASALT_PARQUET_OP_GT ? d > preds[p].d
                                       : preds[p].op == BASALT_PARQUET_OP_LT ? d < preds[p].d
                                       : preds[p].op == BASALT_PARQUET_OP_LE ? d <= preds[p].d
                                                                             : d == preds[p].d);
            }
        }
        basalt_arrow_batches_reset(&b);
        basalt_parquet_scan_free(scan);
        basalt_parquet_reader_close(r);
        CHECK_OK(st, &err);
        CHECK_MSG(stats.rows_read == preds[p].rows_read, "predicate %zu: %lld rows read, %lld expected",
                  p, (long long)stats.rows_read, (long long)preds[p].rows_read);
        CHECK_MSG(found == matches, "predicate %zu: %lld matches read, %lld in the data", p,
                  (long long)found, (long long)matches);
        if (preds[p].rows_read < N && preds[p].rows_read > 0)
            CHECK(stats.pages_skipped > 0);
    }
    basalt_free(data);
    basalt_free(v);
    basalt_free(nulls);
}
