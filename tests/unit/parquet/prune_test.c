/* Pruning: the "may a value in these bounds match" rules on hand-made
 * bounds, row ranges, and the plans of corpus files with a page index, whose
 * expected pages come from hyparquet's reading of the same column and offset
 * indexes (readColumnIndex / readOffsetIndex, compared by hand). */
#include <math.h>
#include <stdlib.h>

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "parquet_column.h"
#include "parquet_reader.h"
#include "test.h"

static const char *corpus(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/data"), name);
    return path;
}

/* ------------------------------------------------------------------ bounds */

static void make_leaf(struct basalt_parquet_schema_leaf *l, int32_t physical,
                      enum basalt_parquet_schema_logical kind, bool is_signed)
{
    memset(l, 0, sizeof *l);
    l->path = "c";
    l->physical_type = physical;
    l->annotation.kind = kind;
    l->annotation.is_signed = is_signed;
    l->annotation.bit_width = 32;
    if (physical == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY)
        l->type_length = kind == BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16 ? 2 : 4;
}

static struct basalt_parquet_binary bin(const void *p, size_t n)
{
    struct basalt_parquet_binary b = {p, n};
    return b;
}

static bool may(const struct basalt_parquet_schema_leaf *leaf, enum basalt_parquet_op op,
                const struct basalt_parquet_literal *lit, const struct basalt_parquet_bounds *b)
{
    struct basalt_parquet_predicate p;
    struct basalt_error err;
    if (basalt_parquet_predicate_init(&p, leaf, 0, op, lit, &err) != BASALT_OK) {
        fprintf(stderr, "predicate_init: %s\n", err.message);
        abort();
    }
    bool r = basalt_parquet_predicate_may_match(&p, leaf, b);
    basalt_parquet_predicate_reset(&p);
    return r;
}

static struct basalt_parquet_literal lint(int64_t v)
{
    struct basalt_parquet_literal l;
    memset(&l, 0, sizeof l);
    l.kind = BASALT_PARQUET_LITERAL_INT;
    l.i = v;
    return l;
}

static struct basalt_parquet_literal ldbl(double v)
{
    struct basalt_parquet_literal l;
    memset(&l, 0, sizeof l);
    l.kind = BASALT_PARQUET_LITERAL_DOUBLE;
    l.d = v;
    return l;
}

static struct basalt_parquet_literal lbytes(const char *s)
{
    struct basalt_parquet_literal l;
    memset(&l, 0, sizeof l);
    l.kind = BASALT_PARQUET_LITERAL_BYTES;
    l.bytes = s;
    l.len = strlen(s);
    return l;
}

TEST(prune_int_bounds)
{
    struct basalt_parquet_schema_leaf leaf;
    make_leaf(&leaf, BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_SCHEMA_LOGICAL_NONE, true);
    static const uint8_t lo[4] = {10, 0, 0, 0}, hi[4] = {20, 0, 0, 0};
    struct basalt_parquet_bounds b;
    memset(&b, 0, sizeof b);
    b.has_min_max = true;
    b.min = bin(lo, 4);
    b.max = bin(hi, 4);
    b.min_exact = b.max_exact = true;
    b.num_values = 100;
    struct basalt_parquet_literal l;
    l = lint(5);
    CHECK(!may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_LT, &l, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_GT, &l, &b));
    l = lint(10);
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_LT, &l, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_LE, &l, &b));
    l = lint(20);
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_GT, &l, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_GE, &l, &b));
    l = lint(21);
    CHECK(!may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_GE, &l, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_LT, &l, &b));
    /* Beyond int32 and beyond int64. */
    l = lint(INT64_MIN);
    CHECK(!may(&leaf, BASALT_PARQUET_OP_LT, &l, &b));
    l.kind = BASALT_PARQUET_LITERAL_UINT;
    l.u = UINT64_MAX;
    CHECK(!may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_GT, &l, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_LT, &l, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    /* min == max: != can rule the chunk out. */
    b.min = bin(lo, 4);
    b.max = bin(lo, 4);
    l = lint(10);
    CHECK(!may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    l = lint(11);
    CHECK(may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    /* Malformed bounds (wrong width) are ignored, not trusted. */
    b.min = bin(lo, 3);
    l = lint(99);
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    /* No bounds: anything may match. */
    b.has_min_max = false;
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
}

TEST(prune_null_counts)
{
    struct basalt_parquet_schema_leaf leaf;
    make_leaf(&leaf, BASALT_PARQUET_TYPE_INT64, BASALT_PARQUET_SCHEMA_LOGICAL_NONE, true);
    struct basalt_parquet_bounds b;
    memset(&b, 0, sizeof b);
    b.num_values = 50;
    b.has_null_count = true;
    b.null_count = 0;
    CHECK(!may(&leaf, BASALT_PARQUET_OP_IS_NULL, NULL, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_IS_NOT_NULL, NULL, &b));
    b.null_count = 50; /* every value null */
    CHECK(may(&leaf, BASALT_PARQUET_OP_IS_NULL, NULL, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_IS_NOT_NULL, NULL, &b));
    struct basalt_parquet_literal l = lint(3);
    CHECK(!may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    b.null_count = 7;
    CHECK(may(&leaf, BASALT_PARQUET_OP_IS_NULL, NULL, &b));
    CHECK(may(&leaf, BASALT_PARQUET_OP_IS_NOT_NULL, NULL, &b));
    b.has_null_count = false;
    CHECK(may(&leaf, BASALT_PARQUET_OP_IS_NULL, NULL, &b));
    b.all_null = true; /* a null page */
    CHECK(!may(&leaf, BASALT_PARQUET_OP_IS_NOT_NULL, NULL, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
}

TEST(prune_unsigned_order)
{
    /* 0xfffffff0 .. 0xffffffff: as signed, -16 .. -1. */
    static const uint8_t lo[4] = {0xf0, 0xff, 0xff, 0xff}, hi[4] = {0xff, 0xff, 0xff, 0xff};
    struct basalt_parquet_bounds b;
    memset(&b, 0, sizeof b);
    b.has_min_max = true;
    b.min = bin(lo, 4);
    b.max = bin(hi, 4);
    b.num_values = 10;
    struct basalt_parquet_schema_leaf uleaf, sleaf;
    make_leaf(&uleaf, BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER, false);
    make_leaf(&sleaf, BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER, true);
    CHECK_EQ(basalt_parquet_leaf_value_class(&uleaf), BASALT_PARQUET_CLASS_UINT);
    struct basalt_parquet_literal l = lint(5);
    CHECK(may(&uleaf, BASALT_PARQUET_OP_GT, &l, &b));
    CHECK(!may(&uleaf, BASALT_PARQUET_OP_LT, &l, &b));
    /* The same bytes read as signed say the opposite. */
    CHECK(!may(&sleaf, BASALT_PARQUET_OP_GT, &l, &b));
    CHECK(may(&sleaf, BASALT_PARQUET_OP_LT, &l, &b));
    l = lint(-1); /* below every unsigned value */
    CHECK(!may(&uleaf, BASALT_PARQUET_OP_EQ, &l, &b));
    CHECK(may(&uleaf, BASALT_PARQUET_OP_GT, &l, &b));
    CHECK(!may(&uleaf, BASALT_PARQUET_OP_LE, &l, &b));
}

TEST(prune_float_bounds)
{
    struct basalt_parquet_schema_leaf leaf;
    make_leaf(&leaf, BASALT_PARQUET_TYPE_DOUBLE, BASALT_PARQUET_SCHEMA_LOGICAL_NONE, true);
    double lo = 1.5, hi = 2.5, nan = NAN, one = 1.0;
    struct basalt_parquet_bounds b;
    memset(&b, 0, sizeof b);
    b.has_min_max = true;
    b.min = bin(&lo, 8);
    b.max = bin(&hi, 8);
    b.min_exact = b.max_exact = true;
    b.num_values = 10;
    struct basalt_parquet_literal l = ldbl(3.0);
    CHECK(!may(&leaf, BASALT_PARQUET_OP_GE, &l, &b));
    l = lint(2);
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    /* A NaN bound says nothing (PARQUET-1222). */
    b.max = bin(&nan, 8);
    l = ldbl(3.0);
    CHECK(may(&leaf, BASALT_PARQUET_OP_GE, &l, &b));
    /* A NaN literal never prunes. */
    b.max = bin(&hi, 8);
    l = ldbl(NAN);
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    /* != on a constant float column prunes only without NaNs. */
    b.min = bin(&one, 8);
    b.max = bin(&one, 8);
    l = ldbl(1.0);
    CHECK(may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    b.has_nan_count = true;
    b.nan_count = 2;
    CHECK(may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    b.nan_count = 0;
    CHECK(!may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    /* float16 bounds: 0x3c00 = 1.0, 0x4000 = 2.0. */
    struct basalt_parquet_schema_leaf h;
    make_leaf(&h, BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY, BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16,
              true);
    static const uint8_t h1[2] = {0x00, 0x3c}, h2[2] = {0x00, 0x40}, hnan[2] = {0x01, 0x7e};
    memset(&b, 0, sizeof b);
    b.has_min_max = true;
    b.min = bin(h1, 2);
    b.max = bin(h2, 2);
    b.num_values = 3;
    l = ldbl(2.5);
    CHECK(!may(&h, BASALT_PARQUET_OP_GT, &l, &b));
    l = ldbl(1.5);
    CHECK(may(&h, BASALT_PARQUET_OP_GT, &l, &b));
    b.max = bin(hnan, 2);
    l = ldbl(2.5);
    CHECK(may(&h, BASALT_PARQUET_OP_GT, &l, &b));
}

TEST(prune_byte_bounds)
{
    struct basalt_parquet_schema_leaf leaf;
    make_leaf(&leaf, BASALT_PARQUET_TYPE_BYTE_ARRAY, BASALT_PARQUET_SCHEMA_LOGICAL_STRING, true);
    struct basalt_parquet_bounds b;
    memset(&b, 0, sizeof b);
    b.has_min_max = true;
    b.min = bin("apple", 5);
    b.max = bin("banana", 6);
    b.num_values = 4;
    struct basalt_parquet_literal l = lbytes("cherry");
    CHECK(!may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    l = lbytes("b");
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
    l = lbytes("apple");
    CHECK(!may(&leaf, BASALT_PARQUET_OP_LT, &l, &b));
    l = lbytes("appl");
    CHECK(!may(&leaf, BASALT_PARQUET_OP_LE, &l, &b));
    l = lbytes("bananas");
    CHECK(!may(&leaf, BASALT_PARQUET_OP_GE, &l, &b));
    /* Bytes compare unsigned: 0xc3 sorts after 'z'. */
    l = lbytes("\xc3\xa9t\xc3\xa9");
    CHECK(may(&leaf, BASALT_PARQUET_OP_LE, &l, &b));
    CHECK(!may(&leaf, BASALT_PARQUET_OP_GT, &l, &b));
    /* min == max but possibly truncated: != keeps the chunk. */
    b.max = bin("apple", 5);
    l = lbytes("apple");
    CHECK(may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    b.min_exact = b.max_exact = true;
    CHECK(!may(&leaf, BASALT_PARQUET_OP_NE, &l, &b));
    /* A literal of the wrong kind is refused. */
    struct basalt_parquet_predicate p;
    struct basalt_error err;
    l = lint(1);
    CHECK_STATUS(basalt_parquet_predicate_init(&p, &leaf, 0, BASALT_PARQUET_OP_EQ, &l, &err),
                 BASALT_INVALID_ARG, &err);
    basalt_parquet_predicate_reset(&p);
    CHECK_STATUS(basalt_parquet_predicate_init(&p, &leaf, 0, BASALT_PARQUET_OP_EQ, NULL, &err),
                 BASALT_INVALID_ARG, &err);
    basalt_parquet_predicate_reset(&p);
}

TEST(prune_decimal_never)
{
    struct basalt_parquet_schema_leaf leaf;
    make_leaf(&leaf, BASALT_PARQUET_TYPE_INT32, BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL, true);
    static const uint8_t lo[4] = {10, 0, 0, 0};
    struct basalt_parquet_bounds b;
    memset(&b, 0, sizeof b);
    b.has_min_max = true;
    b.min = b.max = bin(lo, 4);
    b.num_values = 1;
    struct basalt_parquet_literal l = lint(99);
    CHECK(may(&leaf, BASALT_PARQUET_OP_EQ, &l, &b));
}

/* ------------------------------------------------------------------ ranges */

TEST(prune_ranges_ops)
{
    struct basalt_error err;
    struct basalt_parquet_ranges a, b, c;
    basalt_parquet_ranges_init(&a);
    basalt_parquet_ranges_init(&b);
    basalt_parquet_ranges_init(&c);
    CHECK_OK(basalt_parquet_ranges_add(&a, 0, 10, &err), &err);
    CHECK_OK(basalt_parquet_ranges_add(&a, 10, 15, &err), &err); /* merges */
    CHECK_OK(basalt_parquet_ranges_add(&a, 30, 40, &err), &err);
    CHECK_EQ(a.n, 2);
    CHECK_OK(basalt_parquet_ranges_add(&b, 5, 35, &err), &err);
    CHECK_OK(basalt_parquet_ranges_add(&b, 38, 50, &err), &err);
    CHECK_OK(basalt_parquet_ranges_intersect(&a, &b, &c, &err), &err);
    CHECK_EQ(c.n, 3);
    CHECK_EQ(c.r[0], 5);
    CHECK_EQ(c.r[1], 15);
    CHECK_EQ(c.r[2], 30);
    CHECK_EQ(c.r[3], 35);
    CHECK_EQ(c.r[4], 38);
    CHECK_EQ(c.r[5], 40);
    CHECK_EQ(basalt_parquet_ranges_rows(&c), 17);
    CHECK_OK(basalt_parquet_ranges_union(&a, &b, &c, &err), &err);
    CHECK_EQ(c.n, 1);
    CHECK_EQ(c.r[0], 0);
    CHECK_EQ(c.r[1], 50);
    CHECK(basalt_parquet_ranges_overlap(&a, 14, 16));
    CHECK(!basalt_parquet_ranges_overlap(&a, 15, 30));
    CHECK(basalt_parquet_ranges_overlap(&a, 39, 100));
    CHECK(!basalt_parquet_ranges_overlap(&a, 40, 100));
    CHECK(!basalt_parquet_ranges_equal(&a, &b));
    basalt_parquet_ranges_reset(&a);
    basalt_parquet_ranges_reset(&b);
    basalt_parquet_ranges_reset(&c);
}

/* ------------------------------------------------------------------ plans */

struct plan_case {
    struct basalt_parquet_reader *reader;
    struct basalt_parquet_scan *scan;
    struct basalt_parquet_rg_plan plan;
    bool skip;
};

static basalt_status plan_one(const char *file, const char *column, bool all_columns,
                              const char *filter, enum basalt_parquet_op op,
                              const struct basalt_parquet_literal *lit, struct plan_case *pc,
                              struct basalt_error *err)
{
    memset(pc, 0, sizeof *pc);
    basalt_status st = basalt_parquet_reader_open_file(corpus(file), NULL, &pc->reader, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(pc->reader, NULL, &pc->scan, err);
    if (st == BASALT_OK) {
        if (all_columns)
            basalt_parquet_scan_select_all(pc->scan);
        else
            st = basalt_parquet_scan_select_column(pc->scan, column, err);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_scan_filter(pc->scan, filter, op, lit, err);
    struct ArrowSchema s;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_schema(pc->scan, &s, err); /* starts the scan */
    if (st == BASALT_OK) {
        basalt_arrow_schema_release(&s);
        st = basalt_parquet_scan_plan(pc->scan, 0, &pc->plan, &pc->skip, err);
    }
    return st;
}

static void plan_done(struct plan_case *pc)
{
    basalt_parquet_scan_free(pc->scan);
    basalt_parquet_reader_close(pc->reader);
}

/* The selected pages of `leaf` as a list "k,k,...". */
static void selected_pages(const struct plan_case *pc, int32_t leaf, char *buf, size_t cap)
{
    buf[0] = '\0';
    const struct basalt_parquet_page_selection *sel = &pc->plan.pages[leaf];
    size_t w = 0;
    for (int32_t k = 0; k < sel->n_pages; k++)
        if (sel->selected[k])
            w += (size_t)snprintf(buf + w, cap - w, "%s%d", w ? "," : "", (int)k);
}

TEST(prune_plan_tiny_pages)
{
    struct basalt_error err;
    struct plan_case pc;
    char pages[4096];
    /* hyparquet: the id column has 325 pages; id = 7 can only be in pages
     * 6 (min 7, max 76) and 7 (min 0, max 97): rows [132, 174). */
    struct basalt_parquet_literal l = lint(7);
    CHECK_OK(plan_one("alltypes_tiny_pages.parquet", "id", false, "id", BASALT_PARQUET_OP_EQ, &l,
                      &pc, &err),
             &err);
    CHECK(!pc.skip);
    CHECK(pc.plan.pages != NULL);
    CHECK_EQ(pc.plan.pages[0].n_pages, 325);
    selected_pages(&pc, 0, pages, sizeof pages);
    CHECK_STR(pages, "6,7");
    CHECK_EQ(pc.plan.rows, 42);
    struct basalt_parquet_scan_stats ss;
    basalt_parquet_scan_get_stats(pc.scan, &ss);
    CHECK_EQ(ss.pages_total, 325);
    CHECK_EQ(ss.pages_skipped, 323);
    plan_done(&pc);

    l = lint(3000);
    CHECK_OK(plan_one("alltypes_tiny_pages.parquet", "id", false, "id", BASALT_PARQUET_OP_EQ, &l,
                      &pc, &err),
             &err);
    selected_pages(&pc, 0, pages, sizeof pages);
    CHECK_STR(pages, "21,22,24,27,54,162");
    CHECK_EQ(pc.plan.rows, 132);
    plan_done(&pc);

    l = lint(100);
    CHECK_OK(plan_one("alltypes_tiny_pages.parquet", "id", false, "id", BASALT_PARQUET_OP_LT, &l,
                      &pc, &err),
             &err);
    selected_pages(&pc, 0, pages, sizeof pages);
    CHECK_STR(pages, "1,4,5,6,7,8");
    CHECK_EQ(pc.plan.rows, 138);
    plan_done(&pc);

    l = lint(7200);
    CHECK_OK(plan_one("alltypes_tiny_pages.parquet", "id", false, "id", BASALT_PARQUET_OP_GT, &l,
                      &pc, &err),
             &err);
    selected_pages(&pc, 0, pages, sizeof pages);
    CHECK_STR(pages, "203,204,205,206,207,208");
    plan_done(&pc);

    /* Outside the chunk's min/max (0..7299): the statistics drop it. */
    l = lint(100000);
    CHECK_OK(plan_one("alltypes_tiny_pages.parquet", "id", false, "id", BASALT_PARQUET_OP_EQ, &l,
                      &pc, &err),
             &err);
    CHECK(pc.skip);
    basalt_parquet_scan_get_stats(pc.scan, &ss);
    CHECK_EQ(ss.row_groups_pruned_stats, 1);
    plan_done(&pc);
}

/* With every column decoded, each reads exactly the pages that overlap the
 * rows the filter column keeps, [132, 174), and is cut down to them. */
TEST(prune_plan_tiny_pages_all_columns)
{
    struct basalt_error err;
    struct plan_case pc;
    struct basalt_parquet_literal l = lint(7);
    CHECK_OK(plan_one("alltypes_tiny_pages.parquet", NULL, true, "id", BASALT_PARQUET_OP_EQ, &l,
                      &pc, &err),
             &err);
    CHECK(pc.plan.pages != NULL);
    CHECK_EQ(pc.plan.n_want, 1);
    CHECK_EQ(pc.plan.want[0], 132);
    CHECK_EQ(pc.plan.want[1], 174);
    CHECK_EQ(pc.plan.rows, 42);
    int32_t n_leaves = basalt_parquet_reader_num_columns(pc.reader);
    CHECK_EQ(n_leaves, 13);
    int64_t skipped = 0, total = 0;
    for (int32_t leaf = 0; leaf < n_leaves; leaf++) {
        const struct basalt_parquet_page_selection *sel = &pc.plan.pages[leaf];
        CHECK(sel->selected != NULL);
        int64_t covered = 0;
        for (int32_t k = 0; k < sel->n_pages; k++) {
            int64_t b = sel->first_row_index[k], e = sel->first_row_index[k + 1];
            bool meets = b < 174 && 132 < e;
            CHECK_MSG(!!sel->selected[k] == meets, "column %d page %d", (int)leaf, (int)k);
            if (meets)
                covered += (e < 174 ? e : 174) - (b > 132 ? b : 132);
            skipped += !sel->selected[k];
        }
        total += sel->n_pages;
        CHECK_EQ(covered, 42);
    }
    struct basalt_parquet_scan_stats ss;
    basalt_parquet_scan_get_stats(pc.scan, &ss);
    CHECK_EQ(ss.pages_total, total);
    CHECK_EQ(ss.pages_skipped, skipped);
    CHECK(skipped > total * 9 / 10);
    plan_done(&pc);
}

TEST(prune_plan_null_pages)
{
    struct basalt_error err;
    struct plan_case pc;
    char pages[256];
    /* hyparquet: 10 pages of 100 rows; page 2 is a null page, every page
     * has nulls. */
    CHECK_OK(plan_one("int32_with_null_pages.parquet", "int32_field", false, "int32_field",
                      BASALT_PARQUET_OP_IS_NOT_NULL, NULL, &pc, &err),
             &err);
    selected_pages(&pc, 0, pages, sizeof pages);
    CHECK_STR(pages, "0,1,3,4,5,6,7,8,9");
    CHECK_EQ(pc.plan.rows, 900);
    plan_done(&pc);
    CHECK_OK(plan_one("int32_with_null_pages.parquet", "int32_field", false, "int32_field",
                      BASALT_PARQUET_OP_IS_NULL, NULL, &pc, &err),
             &err);
    CHECK(!pc.skip);
    CHECK(pc.plan.pages == NULL); /* every page may hold a null */
    CHECK_EQ(pc.plan.rows, 1000);
    plan_done(&pc);
}

TEST(prune_plan_options_off)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_tiny_pages.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.use_page_index = false;
    o.use_statistics = false;
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, &o, &scan, &err), &err);
    CHECK_OK(basalt_parquet_scan_select_column(scan, "id", &err), &err);
    struct basalt_parquet_literal l = lint(100000);
    CHECK_OK(basalt_parquet_scan_filter(scan, "id", BASALT_PARQUET_OP_EQ, &l, &err), &err);
    struct ArrowSchema s;
    CHECK_OK(basalt_parquet_scan_schema(scan, &s, &err), &err);
    basalt_arrow_schema_release(&s);
    struct basalt_parquet_rg_plan plan;
    bool skip = true;
    CHECK_OK(basalt_parquet_scan_plan(scan, 0, &plan, &skip, &err), &err);
    CHECK(!skip);
    CHECK(plan.pages == NULL);
    CHECK_EQ(plan.rows, 7300);
    /* The selection is fixed once started. */
    CHECK_STATUS(basalt_parquet_scan_select_column(scan, "bool_col", &err), BASALT_INVALID_ARG,
                 &err);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
}

TEST(prune_filter_errors)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("nested_lists.snappy.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    struct basalt_parquet_literal l = lbytes("x");
    CHECK_STATUS(basalt_parquet_scan_filter(scan, "nope", BASALT_PARQUET_OP_EQ, &l, &err),
                 BASALT_NOT_FOUND, &err);
    CHECK(strstr(err.message, "nested_lists.snappy.parquet: ") != NULL);
    /* a leaf inside lists: taken (ANY semantics); a group is no leaf */
    CHECK_OK(basalt_parquet_scan_filter(scan, "a.list.element.list.element.list.element",
                                        BASALT_PARQUET_OP_EQ, &l, &err),
             &err);
    CHECK_STATUS(basalt_parquet_scan_filter(scan, "a.list.element", BASALT_PARQUET_OP_EQ, &l,
                                            &err),
                 BASALT_NOT_FOUND, &err);
    CHECK(strstr(err.message, "not a leaf") != NULL);
    CHECK_STATUS(basalt_parquet_scan_select_column(scan, "zzz", &err), BASALT_NOT_FOUND, &err);
    CHECK_STATUS(basalt_parquet_scan_select_field_id(scan, 12345, &err), BASALT_NOT_FOUND, &err);
    int32_t bad = 3;
    CHECK_STATUS(basalt_parquet_scan_select_row_groups(scan, &bad, 1, &err), BASALT_NOT_FOUND,
                 &err);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
}

/* ------------------------------------------------------------------ lists and maps */

/* A table written by basalt's writer: id int64, l list<int32>, m map<utf8,
 * int64>, four row groups of 50 rows with small pages and a page index.
 * Row group g holds element values in [1000 g, 1000 g + 99] and map keys
 * "g<g>-<k>"; row group 1 has no null element, row group 3 only null
 * elements and null lists, the others a bit of everything. */
static basalt_status write_nested(uint8_t **data, size_t *len, struct basalt_error *err)
{
    struct basalt_arrow_builder *root = NULL, *id, *l, *item, *m;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "l", "id", 0, &id, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "+l", "l", ARROW_FLAG_NULLABLE, &l, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(l, "i", "element", ARROW_FLAG_NULLABLE, &item, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "+m", "m", ARROW_FLAG_NULLABLE, &m, err);
    struct basalt_arrow_builder *key = NULL, *value = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(m, "u", "key", 0, &key, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(m, "l", "value", ARROW_FLAG_NULLABLE, &value, err);
    for (int64_t r = 0; r < 200 && st == BASALT_OK; r++) {
        int64_t g = r / 50, k = r % 50;
        st = basalt_arrow_builder_append_int(id, r, err);
        bool all_null = g == 3;
        if (st == BASALT_OK && ((g != 1 && k % 7 == 3) || (all_null && k % 2))) {
            st = basalt_arrow_builder_append_null(l, err);
        } else {
            for (int64_t e = 0; e < k % 4 + 1 && st == BASALT_OK; e++) {
                if (all_null || (g != 1 && (k + e) % 5 == 0))
                    st = basalt_arrow_builder_append_null(item, err);
                else
                    st = basalt_arrow_builder_append_int(item, 1000 * g + (k * 2 + e) % 100, err);
            }
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(l, err);
        }
        for (int64_t e = 0; e < k % 3 && st == BASALT_OK; e++) {
            char text[32];
            snprintf(text, sizeof text, "g%d-%d", (int)g, (int)(k + e));
            st = basalt_arrow_builder_append_string(key, text, err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_int(value, 100 * g + e, err);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(m, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    s.release = NULL;
    a.release = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &s, &a, err);
    basalt_arrow_builder_free(root);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = 50;
    o.page_rows = 5;
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    if (st == BASALT_OK)
        st = basalt_output_open_memory("nested.parquet", &out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_open(out, false, &s, &o, &w, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_write(w, &a, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
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

/* The row groups a filter leaves, as a string of their indices ("02"), and
 * the pages skipped. */
static basalt_status kept_groups(const uint8_t *data, size_t len, const char *column,
                                 enum basalt_parquet_op op, const struct basalt_parquet_literal *lit,
                                 char *kept, int64_t *pages_skipped, struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    basalt_status st = basalt_input_open_memory(data, len, "nested.parquet", &in, err);
    if (st == BASALT_OK)
        st = basalt_parquet_reader_open(in, true, NULL, &r, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, NULL, &scan, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_select_column(scan, "id", err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_filter(scan, column, op, lit, err);
    int n = 0;
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_parquet_scan_next(scan, &b, err);
        if (st != BASALT_OK || !b.release)
            break;
        const int64_t *ids = b.children[0]->buffers[1];
        int64_t first = ids[b.children[0]->offset];
        if (n == 0 || kept[n - 1] != (char)('0' + first / 50))
            kept[n++] = (char)('0' + first / 50);
        basalt_arrow_array_release(&b);
    }
    kept[n] = '\0';
    if (scan) {
        struct basalt_parquet_scan_stats stats;
        basalt_parquet_scan_get_stats(scan, &stats);
        *pages_skipped = stats.pages_skipped;
    }
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

/* Filters on leaves inside a list and a map (ANY semantics): row groups go
 * by the leaf's statistics (min/max over every element, null_count against
 * num_values, which counts every slot of the leaf) and bloom filters, never
 * by its page index; paths through the Parquet groups or the Arrow fields. */
TEST(prune_repeated_leaves_by_statistics)
{
    struct basalt_error err;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(write_nested(&data, &len, &err), &err);
    if (!data)
        return;
    static const struct {
        const char *column;
        enum basalt_parquet_op op;
        int64_t value; /* INT literal; -1 bytes "g2-7"; -2 none */
        const char *kept;
    } cases[] = {
        {"l.list.element", BASALT_PARQUET_OP_EQ, 2011, "2"},
        {"l.element", BASALT_PARQUET_OP_EQ, 2011, "2"},
        {"l.element", BASALT_PARQUET_OP_GE, 1050, "12"},
        {"l.element", BASALT_PARQUET_OP_LT, 1000, "0"},
        {"l.element", BASALT_PARQUET_OP_EQ, 5000, ""},
        {"l.element", BASALT_PARQUET_OP_IS_NULL, -2, "023"},
        {"l.element", BASALT_PARQUET_OP_IS_NOT_NULL, -2, "012"},
        {"m.key_value.key", BASALT_PARQUET_OP_EQ, -1, "2"},
        {"m.key_value.value", BASALT_PARQUET_OP_GE, 300, "3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_parquet_literal lit = cases[i].value == -1 ? lbytes("g2-7") : lint(cases[i].value);
        char kept[8];
        int64_t skipped = -1;
        CHECK_OK(kept_groups(data, len, cases[i].column, cases[i].op,
                             cases[i].value == -2 ? NULL : &lit, kept, &skipped, &err),
                 &err);
        CHECK_MSG(strcmp(kept, cases[i].kept) == 0, "%s op %d: kept row groups '%s', want '%s'",
                  cases[i].column, (int)cases[i].op, kept, cases[i].kept);
        CHECK_EQ(skipped, 0);
    }
    basalt_free(data);
}
