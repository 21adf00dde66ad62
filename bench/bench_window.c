/* Window functions through the plan API at 10M rows in 1000 partitions:
 * ROW_NUMBER() OVER (PARTITION BY p ORDER BY t) and the running
 * SUM(v) OVER (PARTITION BY p ORDER BY t) (SQL's default frame: RANGE up to
 * the current row's peers), each as VALUES -> WINDOW with every row
 * materialised (p, t, v and the function), at 1 and 2 threads.
 * bench/peers/query_window_leg.mjs times DuckDB on the same shapes
 * (bench/query_window.sh runs both). */
#include <stdio.h>
#include <string.h>

#include "basalt/basalt.h"
#include "basalt/bench.h"
#include "basalt/query_plan.h"

#define WROWS 10000000
#define WPARTS 1000
#define WMORSEL 65536
#define WBATCHES ((WROWS + WMORSEL - 1) / WMORSEL)

basalt_status bench_window_register(struct basalt_bench *bench, struct basalt_error *err);

static struct ArrowArray cols[3]; /* p, t, v */
static struct ArrowSchema schema;
static bool ready;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static basalt_status make_data(struct basalt_error *err)
{
    if (ready)
        return BASALT_OK;
    struct basalt_arrow_builder *b[3];
    basalt_status st = BASALT_OK;
    for (int c = 0; c < 3 && st == BASALT_OK; c++)
        st = basalt_arrow_builder_new("l", NULL, 0, &b[c], err);
    if (st != BASALT_OK)
        return st;
    uint64_t state = 20261202;
    for (int64_t i = 0; i < WROWS && st == BASALT_OK; i++) {
        uint64_t r = lcg(&state), r2 = lcg(&state);
        st = basalt_arrow_builder_append_int(b[0], (int64_t)(r % WPARTS), err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_int(b[1], (int64_t)(r2 % 1000000000), err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_int(b[2], (int64_t)(r2 % 5) + 1, err);
    }
    for (int c = 0; c < 3 && st == BASALT_OK; c++) {
        struct ArrowSchema s;
        st = basalt_arrow_builder_finish(b[c], &s, &cols[c], err);
        if (st == BASALT_OK)
            basalt_arrow_schema_release(&s);
    }
    for (int c = 0; c < 3; c++)
        basalt_arrow_builder_free(b[c]);
    const char *names[3] = {"p", "t", "v"};
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&schema, "+s", NULL, 0, 3, err);
    for (int c = 0; c < 3 && st == BASALT_OK; c++)
        st = basalt_arrow_schema_init(schema.children[c], "l", names[c], 0, 0, err);
    ready = st == BASALT_OK;
    return st;
}

/* Batches that borrow the columns: their release only marks them released,
 * so each iteration hands the plan fresh morsels without copying. */
struct view {
    struct ArrowArray batch;
    struct ArrowArray child[3];
    struct ArrowArray *children[3];
};
static struct view views[WBATCHES];

static void view_release(struct ArrowArray *a)
{
    for (int64_t i = 0; i < a->n_children; i++)
        a->children[i]->release = NULL;
    a->release = NULL;
}

static void child_release(struct ArrowArray *a)
{
    a->release = NULL;
}

static basalt_status view_batches(struct basalt_arrow_batches *out, struct basalt_error *err)
{
    basalt_arrow_batches_init(out);
    basalt_status st = basalt_arrow_schema_copy(&schema, &out->schema, err);
    for (int64_t b = 0; b < WBATCHES && st == BASALT_OK; b++) {
        struct view *v = &views[b];
        int64_t lo = b * WMORSEL, n = WROWS - lo < WMORSEL ? WROWS - lo : WMORSEL;
        for (int c = 0; c < 3; c++) {
            v->child[c] = cols[c];
            v->child[c].offset = lo;
            v->child[c].length = n;
            v->child[c].release = child_release;
            v->children[c] = &v->child[c];
        }
        memset(&v->batch, 0, sizeof v->batch);
        static const void *no_buffers[1] = {NULL};
        v->batch.length = n;
        v->batch.n_buffers = 1;
        v->batch.buffers = no_buffers;
        v->batch.n_children = 3;
        v->batch.children = v->children;
        v->batch.release = view_release;
        struct ArrowArray a = v->batch;
        st = basalt_arrow_batches_append(out, &a, err);
    }
    return st;
}

struct wcase {
    enum basalt_qplan_window_fn fn;
    int threads;
    struct basalt_pool *pool;
};

static basalt_status wsetup(void *ctx, struct basalt_error *err)
{
    struct wcase *c = ctx;
    basalt_status st = make_data(err);
    if (st == BASALT_OK && c->threads > 1)
        st = basalt_pool_new(c->threads - 1, &c->pool, err);
    return st;
}

static void wteardown(void *ctx)
{
    struct wcase *c = ctx;
    basalt_pool_free(c->pool);
    c->pool = NULL;
}

static basalt_status wrun(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct wcase *c = ctx;
    for (uint64_t it = 0; it < iters; it++) {
        struct basalt_qctx_options o;
        basalt_qctx_options_init(&o);
        o.pool = c->pool;
        struct basalt_qctx *q;
        basalt_status st = basalt_qctx_new(&o, &q, err);
        if (st != BASALT_OK)
            return st;
        struct basalt_arrow_batches in, out;
        basalt_arrow_batches_init(&out);
        struct basalt_qplan *values = NULL, *node = NULL;
        st = view_batches(&in, err);
        if (st == BASALT_OK)
            st = basalt_qplan_values(q, &in, &values, err);
        basalt_arrow_batches_reset(&in);
        struct basalt_qplan_window_call call;
        memset(&call, 0, sizeof call);
        call.fn = c->fn;
        call.arg = c->fn == BASALT_QPLAN_WIN_SUM ? 2 : -1;
        call.default_arg = -1;
        call.name = "w";
        const int part[] = {0};
        const struct basalt_qplan_sort_key ord[] = {{1, false, false}};
        if (st == BASALT_OK)
            st = basalt_qplan_window(q, values, part, 1, ord, 1, &call, 1, &node, err);
        if (st == BASALT_OK)
            st = basalt_qplan_execute(q, node, &out, err);
        int64_t rows = 0;
        for (int64_t b = 0; b < out.n; b++)
            rows += out.arrays[b].length;
        basalt_arrow_batches_reset(&out);
        basalt_qctx_free(q);
        if (st != BASALT_OK)
            return st;
        if (rows != WROWS)
            return basalt_error_set(err, BASALT_INTERNAL, "window: %lld rows", (long long)rows);
    }
    return BASALT_OK;
}

static struct wcase cases_ctx[2][2];

basalt_status bench_window_register(struct basalt_bench *bench, struct basalt_error *err)
{
    static const char *const names[2][2] = {
        {"query/window/row_number/t1", "query/window/row_number/t2"},
        {"query/window/running_sum/t1", "query/window/running_sum/t2"}};
    static const enum basalt_qplan_window_fn fns[2] = {BASALT_QPLAN_WIN_ROW_NUMBER,
                                                       BASALT_QPLAN_WIN_SUM};
    for (int w = 0; w < 2; w++)
        for (int t = 0; t < 2; t++) {
            cases_ctx[w][t].fn = fns[w];
            cases_ctx[w][t].threads = t + 1;
            struct basalt_bench_case bc = {
                .name = names[w][t], .peer = "basalt_qplan_window (values -> window)",
                .run = wrun, .setup = wsetup, .teardown = wteardown, .ctx = &cases_ctx[w][t],
                .items_per_iter = WROWS, .threads = t + 1};
            basalt_status st = basalt_bench_add(bench, &bc, err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
