/* Query plans over a Parquet file whose values follow a formula (x = row,
 * s = "r<row>", d = row / 4): scans with pruning, filter, projection, limit
 * and union, checked against the formula, with 1, 2 and 4 workers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_fixture.h"
#include "basalt/query_plan.h"
#include "test.h"

#define ROWS 100000
#define GROUP 10000

static const char *fixture(void)
{
    static char path[256];
    if (path[0])
        return path;
    snprintf(path, sizeof path, "/tmp/basalt_plan_%d.parquet", (int)getpid());
    struct basalt_arrow_builder *root, *x, *s, *d;
    basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    basalt_arrow_builder_add_child(root, "l", "x", 0, &x, NULL);
    basalt_arrow_builder_add_child(root, "u", "s", ARROW_FLAG_NULLABLE, &s, NULL);
    basalt_arrow_builder_add_child(root, "g", "d", 0, &d, NULL);
    for (int64_t i = 0; i < ROWS; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "r%lld", (long long)i);
        basalt_arrow_builder_append_int(x, i, NULL);
        if (i % 10 == 9)
            basalt_arrow_builder_append_null(s, NULL);
        else
            basalt_arrow_builder_append_string(s, buf, NULL);
        basalt_arrow_builder_append_double(d, (double)i / 4, NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    if (test_write_fixture(root, path, GROUP) != BASALT_OK)
        path[0] = '\0';
    return path;
}

static int64_t total_rows(const struct basalt_arrow_batches *b)
{
    int64_t n = 0;
    for (int64_t i = 0; i < b->n; i++)
        n += b->arrays[i].length;
    return n;
}

/* Column c of the result, row r, as int64 / string (via the batches). */
static const struct ArrowArray *locate(const struct basalt_arrow_batches *b, int64_t *row)
{
    for (int64_t i = 0; i < b->n; i++) {
        if (*row < b->arrays[i].length)
            return &b->arrays[i];
        *row -= b->arrays[i].length;
    }
    return NULL;
}

static int64_t cell_i64(const struct basalt_arrow_batches *b, int c, int64_t r)
{
    const struct ArrowArray *a = locate(b, &r);
    const struct ArrowArray *col = a->children[c];
    return ((const int64_t *)col->buffers[1])[col->offset + r];
}

static bool cell_null(const struct basalt_arrow_batches *b, int c, int64_t r)
{
    const struct ArrowArray *a = locate(b, &r);
    const struct ArrowArray *col = a->children[c];
    const uint8_t *v = col->buffers[0];
    int64_t k = col->offset + r;
    return v != NULL && !((v[k >> 3] >> (k & 7)) & 1);
}

static size_t cell_str(const struct basalt_arrow_batches *b, int c, int64_t r, char *out,
                       size_t cap)
{
    const struct ArrowArray *a = locate(b, &r);
    const struct ArrowArray *col = a->children[c];
    const int32_t *off = col->buffers[1];
    const char *data = col->buffers[2];
    int64_t k = col->offset + r;
    size_t n = (size_t)(off[k + 1] - off[k]);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, data + off[k], n);
    out[n] = '\0';
    return n;
}

static struct basalt_pool *pool_of(int workers)
{
    struct basalt_pool *p = NULL;
    if (workers > 1)
        basalt_pool_new(workers - 1, &p, NULL);
    return p;
}

/* SELECT x * 3 AS y, s FROM f WHERE x % 7 = 3 AND x >= 55000 LIMIT 20 OFFSET 5 */
TEST(plan_filter_project_limit_prunes)
{
    const char *path = fixture();
    CHECK(path[0] != '\0');
    for (int workers = 1; workers <= 4; workers *= 2) {
        struct basalt_pool *pool = pool_of(workers);
        struct basalt_qctx_options o;
        basalt_qctx_options_init(&o);
        o.pool = pool;
        struct basalt_qctx *ctx;
        struct basalt_error err;
        basalt_error_init(&err);
        CHECK(basalt_qctx_new(&o, &ctx, &err) == BASALT_OK);
        struct basalt_qplan *scan, *filter, *proj, *lim;
        CHECK_MSG(basalt_qplan_scan_parquet(ctx, &path, 1, &scan, &err) == BASALT_OK, "%s", err.message);
        struct basalt_qexpr_builder *b;
        CHECK(basalt_qplan_builder(ctx, scan, &b, &err) == BASALT_OK);
        struct basalt_qexpr *x, *k7, *k3, *k55, *mod, *eq, *ge, *both, *args[2];
        CHECK(basalt_qexpr_column(b, 0, &x, &err) == BASALT_OK);
        basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64, 7, &k7, &err);
        basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64, 3, &k3, &err);
        basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64, 55000, &k55, &err);
        args[0] = x, args[1] = k7;
        CHECK(basalt_qexpr_call(b, "%", args, 2, &mod, &err) == BASALT_OK);
        args[0] = mod, args[1] = k3;
        CHECK(basalt_qexpr_call(b, "=", args, 2, &eq, &err) == BASALT_OK);
        args[0] = x, args[1] = k55;
        CHECK(basalt_qexpr_call(b, ">=", args, 2, &ge, &err) == BASALT_OK);
        args[0] = eq, args[1] = ge;
        CHECK(basalt_qexpr_and(b, args, 2, &both, &err) == BASALT_OK);
        CHECK(basalt_qplan_filter(ctx, scan, both, &filter, &err) == BASALT_OK);
        struct basalt_qexpr_builder *pb;
        CHECK(basalt_qplan_builder(ctx, filter, &pb, &err) == BASALT_OK);
        struct basalt_qexpr *px, *ps, *k, *y, *outs[2];
        basalt_qexpr_column(pb, 0, &px, &err);
        basalt_qexpr_column(pb, 1, &ps, &err);
        basalt_qexpr_int(pb, BASALT_QUERY_TYPE_INT64, 3, &k, &err);
        args[0] = px, args[1] = k;
        CHECK(basalt_qexpr_call(pb, "*", args, 2, &y, &err) == BASALT_OK);
        outs[0] = y, outs[1] = ps;
        const char *names[2] = {"y", "s"};
        CHECK(basalt_qplan_project(ctx, filter, outs, names, 2, &proj, &err) == BASALT_OK);
        CHECK(basalt_qplan_limit(ctx, proj, 20, 5, &lim, &err) == BASALT_OK);
        struct basalt_arrow_batches res;
        basalt_arrow_batches_init(&res);
        CHECK_MSG(basalt_qplan_execute(ctx, lim, &res, &err) == BASALT_OK, "%s", err.message);
        CHECK_EQ(total_rows(&res), 20);
        CHECK_EQ(res.schema.n_children, 2);
        CHECK(strcmp(res.schema.children[0]->name, "y") == 0);
        /* the qualifying rows are 55000 + k with (55000 + k) % 7 == 3 */
        int64_t row = 0, want = 55000;
        while (want % 7 != 3)
            want++;
        want += 7 * 5; /* OFFSET 5 */
        for (int64_t r = 0; r < 20; r++, want += 7) {
            CHECK_EQ(cell_i64(&res, 0, r), want * 3);
            if (want % 10 == 9) {
                CHECK(cell_null(&res, 1, r));
            } else {
                char got[32], exp[32];
                cell_str(&res, 1, r, got, sizeof got);
                snprintf(exp, sizeof exp, "r%lld", (long long)want);
                CHECK_MSG(strcmp(got, exp) == 0, "row %lld: %s != %s", (long long)r, got, exp);
            }
            row++;
        }
        char plan[2048];
        basalt_qplan_explain(lim, true, plan, sizeof plan);
        /* 5 of the 10 row groups hold no x >= 55000; the column d is never read */
        CHECK_MSG(strstr(plan, "PARQUET_SCAN 1 file [x, s] pushed=1") != NULL, "%s", plan);
        CHECK_MSG(strstr(plan, "pruned=5") != NULL, "%s", plan);
        basalt_arrow_batches_reset(&res);
        basalt_qctx_free(ctx);
        basalt_pool_free(pool);
    }
}

/* A union of two scans of the same file, the second filtered: order is the
 * children's, then the file's. */
TEST(plan_union_all_keeps_order)
{
    const char *path = fixture();
    CHECK(path[0] != '\0');
    struct basalt_pool *pool = pool_of(2);
    struct basalt_qctx_options o;
    basalt_qctx_options_init(&o);
    o.pool = pool;
    struct basalt_qctx *ctx;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK(basalt_qctx_new(&o, &ctx, &err) == BASALT_OK);
    struct basalt_qplan *a, *b, *fb, *u, *kids[2];
    CHECK(basalt_qplan_scan_parquet(ctx, &path, 1, &a, &err) == BASALT_OK);
    CHECK(basalt_qplan_scan_parquet(ctx, &path, 1, &b, &err) == BASALT_OK);
    struct basalt_qexpr_builder *bb;
    CHECK(basalt_qplan_builder(ctx, b, &bb, &err) == BASALT_OK);
    struct basalt_qexpr *x, *k, *lt, *args[2];
    basalt_qexpr_column(bb, 0, &x, &err);
    basalt_qexpr_int(bb, BASALT_QUERY_TYPE_INT64, 10, &k, &err);
    args[0] = x, args[1] = k;
    CHECK(basalt_qexpr_call(bb, "<", args, 2, &lt, &err) == BASALT_OK);
    CHECK(basalt_qplan_filter(ctx, b, lt, &fb, &err) == BASALT_OK);
    kids[0] = a, kids[1] = fb;
    CHECK(basalt_qplan_union_all(ctx, kids, 2, &u, &err) == BASALT_OK);
    struct basalt_arrow_batches res;
    basalt_arrow_batches_init(&res);
    CHECK_MSG(basalt_qplan_execute(ctx, u, &res, &err) == BASALT_OK, "%s", err.message);
    CHECK_EQ(total_rows(&res), ROWS + 10);
    for (int64_t r = 0; r < ROWS; r += 997)
        CHECK_EQ(cell_i64(&res, 0, r), r);
    for (int64_t r = 0; r < 10; r++)
        CHECK_EQ(cell_i64(&res, 0, ROWS + r), r);
    basalt_arrow_batches_reset(&res);
    basalt_qctx_free(ctx);
    basalt_pool_free(pool);
}

/* ORDER BY s NULLS FIRST LIMIT 2500 OFFSET 3: every tenth row's s is NULL,
 * so the answer is NULL rows, all tied, which must come in input order
 * (x = 9 + 10 * (3 + r)) though they lie in three row groups that different
 * workers read. Then ORDER BY d DESC LIMIT 7 (x from 99999 down). With 2
 * and 4 workers each worker prunes its own top-k as it reads
 * (topk_workers=2 in EXPLAIN ANALYZE); the rows are the same. */
TEST(plan_top_k_on_every_worker_keeps_ties_in_input_order)
{
    const char *path = fixture();
    CHECK(path[0] != '\0');
    for (int workers = 1; workers <= 4; workers *= 2) {
        struct basalt_pool *pool = pool_of(workers);
        struct basalt_qctx_options o;
        basalt_qctx_options_init(&o);
        o.pool = pool;
        struct basalt_error err;
        basalt_error_init(&err);
        for (int q = 0; q < 2; q++) {
            struct basalt_qctx *ctx;
            CHECK(basalt_qctx_new(&o, &ctx, &err) == BASALT_OK);
            struct basalt_qplan *scan, *sort;
            CHECK_MSG(basalt_qplan_scan_parquet(ctx, &path, 1, &scan, &err) == BASALT_OK, "%s",
                      err.message);
            struct basalt_qplan_sort_key key = q == 0 ? (struct basalt_qplan_sort_key){1, false, true}
                                                      : (struct basalt_qplan_sort_key){2, true, false};
            int64_t limit = q == 0 ? 2500 : 7, offset = q == 0 ? 3 : 0;
            CHECK(basalt_qplan_sort(ctx, scan, &key, 1, limit, offset, &sort, &err) == BASALT_OK);
            struct basalt_arrow_batches res;
            basalt_arrow_batches_init(&res);
            CHECK_MSG(basalt_qplan_execute(ctx, sort, &res, &err) == BASALT_OK, "%s", err.message);
            CHECK_EQ(total_rows(&res), limit);
            int64_t bad = -1;
            for (int64_t r = 0; r < total_rows(&res) && bad < 0; r++) {
                int64_t want = q == 0 ? 9 + 10 * (offset + r) : ROWS - 1 - r;
                if (cell_i64(&res, 0, r) != want || (q == 0 && !cell_null(&res, 1, r)))
                    bad = r;
            }
            CHECK_MSG(bad < 0, "%d workers, query %d: row %lld is x=%lld", workers, q,
                      (long long)bad, bad < 0 ? 0ll : (long long)cell_i64(&res, 0, bad));
            char plan[2048], want[64];
            basalt_qplan_explain(sort, true, plan, sizeof plan);
            snprintf(want, sizeof want, "topk_workers=%d ", workers);
            CHECK_MSG(strstr(plan, want) != NULL, "%s", plan);
            basalt_arrow_batches_reset(&res);
            basalt_qctx_free(ctx);
        }
        basalt_pool_free(pool);
    }
}

/* Scan x filtered by `x op k` (pushed to the row groups' statistics). */
static struct basalt_qplan *scan_where(struct basalt_qctx *ctx, const char *op, int64_t k)
{
    const char *path = fixture();
    struct basalt_qplan *scan = NULL, *filter = NULL;
    struct basalt_qexpr_builder *b;
    struct basalt_qexpr *x, *kk, *cmp, *args[2];
    if (basalt_qplan_scan_parquet(ctx, &path, 1, &scan, NULL) != BASALT_OK ||
        basalt_qplan_builder(ctx, scan, &b, NULL) != BASALT_OK)
        return NULL;
    basalt_qexpr_column(b, 0, &x, NULL);
    basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64, k, &kk, NULL);
    args[0] = x, args[1] = kk;
    if (basalt_qexpr_call(b, op, args, 2, &cmp, NULL) != BASALT_OK ||
        basalt_qplan_filter(ctx, scan, cmp, &filter, NULL) != BASALT_OK)
        return NULL;
    return filter;
}

/* The rows of a plan through a cursor: their count and the sum of x. */
static basalt_status cursor_rows(struct basalt_qctx *ctx, struct basalt_qplan *root, int64_t *n,
                                 int64_t *sum, struct basalt_error *err)
{
    struct basalt_qcursor *cur;
    *n = *sum = 0;
    basalt_status st = basalt_qplan_open(ctx, root, &cur, err);
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qcursor_next(cur, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        const int64_t *x = b.children[0]->buffers[1];
        for (int64_t r = 0; r < b.length; r++)
            *sum += x[b.children[0]->offset + r];
        *n += b.length;
        b.release(&b);
    }
    if (cur != NULL)
        basalt_qcursor_free(cur);
    return st;
}

/* A cursor reads on past a window of morsels that gave no rows: x >= 85000
 * rules out the first 8 of 10 row groups, more than a window of morsels
 * (two per worker); a UNION ALL whose first input has no rows (every row
 * group ruled out) under a sort, which reads the union through its cursor.
 * Both ended at the empty window before (no rows at all). */
TEST(plan_cursor_reads_past_empty_windows)
{
    CHECK(fixture()[0] != '\0');
    for (int workers = 1; workers <= 4; workers *= 2) {
        struct basalt_pool *pool = pool_of(workers);
        struct basalt_qctx_options o;
        basalt_qctx_options_init(&o);
        o.pool = pool;
        struct basalt_error err;
        basalt_error_init(&err);
        struct basalt_qctx *ctx;
        CHECK(basalt_qctx_new(&o, &ctx, &err) == BASALT_OK);
        struct basalt_qplan *late = scan_where(ctx, ">=", 85000);
        CHECK(late != NULL);
        int64_t n, sum;
        CHECK_MSG(cursor_rows(ctx, late, &n, &sum, &err) == BASALT_OK, "%s", err.message);
        CHECK_MSG(n == ROWS - 85000, "%d workers: %lld rows", workers, (long long)n);
        CHECK_EQ(sum, (int64_t)(85000 + ROWS - 1) * (ROWS - 85000) / 2);
        char plan[2048];
        basalt_qplan_explain(late, true, plan, sizeof plan);
        CHECK_MSG(strstr(plan, "pruned=8") != NULL, "%s", plan);
        basalt_qctx_free(ctx);

        CHECK(basalt_qctx_new(&o, &ctx, &err) == BASALT_OK);
        struct basalt_qplan *kids[2] = {scan_where(ctx, ">=", ROWS), scan_where(ctx, "<", 10)}, *u, *sort;
        CHECK(kids[0] != NULL && kids[1] != NULL);
        CHECK(basalt_qplan_union_all(ctx, kids, 2, &u, &err) == BASALT_OK);
        struct basalt_qplan_sort_key key = {0, true, false};
        CHECK(basalt_qplan_sort(ctx, u, &key, 1, -1, 0, &sort, &err) == BASALT_OK);
        CHECK_MSG(cursor_rows(ctx, sort, &n, &sum, &err) == BASALT_OK, "%s", err.message);
        CHECK_MSG(n == 10 && sum == 45, "%d workers: %lld rows, sum %lld", workers, (long long)n,
                  (long long)sum);
        basalt_qctx_free(ctx);
        basalt_pool_free(pool);
    }
}

/* A scan over a file that is not there names it; a second execute is refused. */
TEST(plan_errors)
{
    struct basalt_qctx *ctx;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK(basalt_qctx_new(NULL, &ctx, &err) == BASALT_OK);
    const char *missing = "/nonexistent/file.parquet";
    struct basalt_qplan *scan;
    CHECK(basalt_qplan_scan_parquet(ctx, &missing, 1, &scan, &err) == BASALT_NOT_FOUND);
    CHECK_MSG(strstr(err.message, "/nonexistent/file.parquet") != NULL, "%s", err.message);
    const char *path = fixture();
    CHECK(basalt_qplan_scan_parquet(ctx, &path, 1, &scan, &err) == BASALT_OK);
    struct basalt_arrow_batches res;
    basalt_arrow_batches_init(&res);
    CHECK(basalt_qplan_execute(ctx, scan, &res, &err) == BASALT_OK);
    CHECK_EQ(total_rows(&res), ROWS);
    basalt_arrow_batches_reset(&res);
    CHECK(basalt_qplan_execute(ctx, scan, &res, &err) == BASALT_INVALID_ARG);
    basalt_qctx_free(ctx);
    unlink(path);
}
