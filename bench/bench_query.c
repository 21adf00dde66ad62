/* Expressions at 1M rows, 10% nulls, the seed's workloads (inventory-
 * dataframe.md section 3.1): arithmetic_chain ((x + 3.0) * (y - 2.0)) / 4.0,
 * nullable_compare x > y, filter x > 0 gathering column n. Data from the
 * seed's LCG. One thread; the fused program against the unfused kernels.
 * DuckDB and Polars time the same expressions in-process in
 * bench/peers/query_expr_leg.mjs (bench/query_expr.sh runs both). */
#include <stdio.h>
#include <string.h>

#include "basalt/basalt.h"
#include "basalt/bench.h"

#define ROWS 1000000

basalt_status bench_query_register(struct basalt_bench *bench, struct basalt_error *err);

struct qdata {
    struct ArrowSchema schema;
    struct ArrowArray batch;
    bool ready;
};
static struct qdata data;

static basalt_status make_data(struct basalt_error *err)
{
    if (data.ready)
        return BASALT_OK;
    struct basalt_arrow_builder *root, *x, *y, *n;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_builder_add_child(root, "g", "x", ARROW_FLAG_NULLABLE, &x, err);
    basalt_arrow_builder_add_child(root, "g", "y", ARROW_FLAG_NULLABLE, &y, err);
    basalt_arrow_builder_add_child(root, "l", "n", ARROW_FLAG_NULLABLE, &n, err);
    uint64_t state = 20260918u + ROWS;
    for (int64_t i = 0; i < ROWS && st == BASALT_OK; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = state >> 33;
        bool null = i % 10 == 0;
        st = null ? basalt_arrow_builder_append_null(x, err)
                  : basalt_arrow_builder_append_double(x, (double)(r % 10000) / 100.0 - 50.0, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_double(y, (double)((r >> 8) % 1000) / 10.0, err);
        if (st == BASALT_OK)
            st = null ? basalt_arrow_builder_append_null(n, err)
                      : basalt_arrow_builder_append_int(n, (int64_t)(r % 1000) - 500, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &data.schema, &data.batch, err);
    basalt_arrow_builder_free(root);
    data.ready = st == BASALT_OK;
    return st;
}

enum { W_CHAIN, W_COMPARE, W_FILTER };

struct qcase {
    int workload;
    bool fuse;
    struct basalt_query_program *p;
    struct basalt_query_state *s;
    int64_t *sel;
};

static basalt_status qsetup(void *ctx, struct basalt_error *err)
{
    struct qcase *c = ctx;
    basalt_status st = make_data(err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr_builder *b;
    struct basalt_qexpr *x, *y, *e, *k, *t1, *t2, *args[2];
    st = basalt_qexpr_builder_new(&data.schema, &b, err);
    if (st != BASALT_OK)
        return st;
    basalt_qexpr_column(b, 0, &x, err);
    basalt_qexpr_column(b, 1, &y, err);
    if (c->workload == W_CHAIN) {
        basalt_qexpr_double(b, 3.0, &k, err);
        args[0] = x; args[1] = k;
        basalt_qexpr_call(b, "+", args, 2, &t1, err);
        basalt_qexpr_double(b, 2.0, &k, err);
        args[0] = y; args[1] = k;
        basalt_qexpr_call(b, "-", args, 2, &t2, err);
        args[0] = t1; args[1] = t2;
        basalt_qexpr_call(b, "*", args, 2, &t1, err);
        basalt_qexpr_double(b, 4.0, &k, err);
        args[0] = t1; args[1] = k;
        st = basalt_qexpr_call(b, "/", args, 2, &e, err);
    } else if (c->workload == W_COMPARE) {
        args[0] = x; args[1] = y;
        st = basalt_qexpr_call(b, ">", args, 2, &e, err);
    } else {
        basalt_qexpr_double(b, 0.0, &k, err);
        args[0] = x; args[1] = k;
        st = basalt_qexpr_call(b, ">", args, 2, &e, err);
    }
    struct basalt_query_compile_options o;
    basalt_query_compile_options_init(&o);
    o.fuse = c->fuse;
    if (st == BASALT_OK)
        st = basalt_query_compile(b, &e, 1, &o, &c->p, err);
    basalt_qexpr_builder_free(b);
    if (st == BASALT_OK)
        st = basalt_query_state_new(c->p, &c->s, err);
    c->sel = basalt_malloc(sizeof(int64_t) * ROWS);
    if (st == BASALT_OK && !c->sel)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return st;
}

static void qteardown(void *ctx)
{
    struct qcase *c = ctx;
    basalt_query_state_free(c->s);
    basalt_query_program_free(c->p);
    basalt_free(c->sel);
    c->s = NULL;
    c->p = NULL;
    c->sel = NULL;
}

static basalt_status qrun(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct qcase *c = ctx;
    for (uint64_t it = 0; it < iters; it++) {
        struct ArrowArray out;
        basalt_status st;
        if (c->workload == W_FILTER) {
            int64_t k;
            st = basalt_query_select(c->p, c->s, &data.batch, c->sel, &k, err);
            if (st == BASALT_OK)
                st = basalt_arrow_take(data.schema.children[2], data.batch.children[2], c->sel, k,
                                       &out, err);
        } else {
            st = basalt_query_eval(c->p, c->s, &data.batch, &out, err);
        }
        if (st != BASALT_OK)
            return st;
        basalt_arrow_array_release(&out);
    }
    return BASALT_OK;
}

static struct qcase chain_fused = {W_CHAIN, true, NULL, NULL, NULL};
static struct qcase chain_unfused = {W_CHAIN, false, NULL, NULL, NULL};
static struct qcase compare_fused = {W_COMPARE, true, NULL, NULL, NULL};
static struct qcase compare_unfused = {W_COMPARE, false, NULL, NULL, NULL};
static struct qcase filter_fused = {W_FILTER, true, NULL, NULL, NULL};

basalt_status bench_query_register(struct basalt_bench *bench, struct basalt_error *err)
{
    const struct basalt_bench_case cases[] = {
        {.name = "query/arithmetic_chain/fused", .group = "query/arithmetic_chain",
         .peer = "basalt_query_eval, fused register program", .run = qrun, .setup = qsetup,
         .teardown = qteardown, .ctx = &chain_fused, .items_per_iter = ROWS, .threads = 1},
        {.name = "query/arithmetic_chain/unfused", .group = "query/arithmetic_chain",
         .peer = "basalt_query_eval, one kernel per node", .run = qrun, .setup = qsetup,
         .teardown = qteardown, .ctx = &chain_unfused, .items_per_iter = ROWS, .threads = 1},
        {.name = "query/nullable_compare/fused", .group = "query/nullable_compare",
         .peer = "basalt_query_eval, fused", .run = qrun, .setup = qsetup,
         .teardown = qteardown, .ctx = &compare_fused, .items_per_iter = ROWS, .threads = 1},
        {.name = "query/nullable_compare/unfused", .group = "query/nullable_compare",
         .peer = "basalt_query_eval, compare kernel", .run = qrun, .setup = qsetup,
         .teardown = qteardown, .ctx = &compare_unfused, .items_per_iter = ROWS, .threads = 1},
        {.name = "query/filter", .peer = "basalt_query_select + basalt_arrow_take", .run = qrun,
         .setup = qsetup, .teardown = qteardown, .ctx = &filter_fused, .items_per_iter = ROWS,
         .threads = 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        basalt_status st = basalt_bench_add(bench, &cases[i], err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
