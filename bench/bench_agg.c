/* Hash aggregation (src/query/agg) at 10M rows: a global sum/count over
 * int64, group-by at low (100 groups), high (1M groups) and zipf-skewed
 * cardinality (int64 keys, sum of an int64), and the H2O db-benchmark q1
 * shape (id1: 100 strings "id001".."id100", sum(v1)), at 1 and 2 threads
 * (one local per thread, morsels of 64k rows dealt round-robin, finish on
 * the pool). bench/peers/query_agg_leg.mjs times DuckDB on the same data
 * (bench/query_agg.sh runs both). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agg/agg.h"
#include "basalt/basalt.h"
#include "basalt/bench.h"

#define AROWS 10000000
#define MORSEL 65536

basalt_status bench_agg_register(struct basalt_bench *bench, struct basalt_error *err);

enum { W_GLOBAL, W_LOW, W_HIGH, W_ZIPF, W_H2O, W_COUNT };

static struct ArrowArray keys[W_COUNT], vals;
static bool ready;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The same generator as bench/peers/query_agg_leg.mjs. */
static basalt_status make_data(struct basalt_error *err)
{
    if (ready)
        return BASALT_OK;
    struct basalt_arrow_builder *b[W_COUNT + 1];
    struct ArrowSchema s;
    basalt_status st = BASALT_OK;
    const char *fmts[W_COUNT + 1] = {"l", "l", "l", "l", "u", "l"};
    for (int w = 0; w <= W_COUNT && st == BASALT_OK; w++)
        st = basalt_arrow_builder_new(fmts[w], NULL, 0, &b[w], err);
    if (st != BASALT_OK)
        return st;
    double zipf_norm = 0;
    static double cdf[1000];
    for (int k = 0; k < 1000; k++)
        zipf_norm += 1.0 / (k + 1);
    for (int k = 0, acc = 0; k < 1000; k++, (void)acc)
        cdf[k] = (k ? cdf[k - 1] : 0) + 1.0 / (k + 1) / zipf_norm;
    uint64_t state = 20261202;
    for (int64_t i = 0; i < AROWS && st == BASALT_OK; i++) {
        uint64_t r = lcg(&state), r2 = lcg(&state);
        char id[8];
        double u = (double)(r2 % 1000000) / 1e6;
        int lo = 0, hi = 999;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        snprintf(id, sizeof id, "id%03d", (int)(r % 100) + 1);
        st = basalt_arrow_builder_append_int(b[W_LOW], (int64_t)(r % 100), err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_int(b[W_HIGH], (int64_t)(r2 % 1000000) * 7919, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_int(b[W_ZIPF], (int64_t)lo * 1000003, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_bytes(b[W_H2O], id, 5, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_int(b[W_COUNT], (int64_t)(r2 % 5) + 1, err);
    }
    for (int w = 1; w <= W_COUNT && st == BASALT_OK; w++) {
        st = basalt_arrow_builder_finish(b[w], &s, w == W_COUNT ? &vals : &keys[w], err);
        if (st == BASALT_OK)
            basalt_arrow_schema_release(&s);
    }
    for (int w = 0; w <= W_COUNT; w++)
        basalt_arrow_builder_free(b[w]);
    ready = st == BASALT_OK;
    return st;
}

struct acase {
    int workload;
    int threads;
    struct basalt_pool *pool;
};

static basalt_status asetup(void *ctx, struct basalt_error *err)
{
    struct acase *c = ctx;
    basalt_status st = make_data(err);
    if (st == BASALT_OK && c->threads > 1)
        st = basalt_pool_new(c->threads - 1, &c->pool, err);
    return st;
}

static void ateardown(void *ctx)
{
    struct acase *c = ctx;
    basalt_pool_free(c->pool);
    c->pool = NULL;
}

struct consume_ctx {
    struct acase *c;
    struct basalt_qagg_local **locals;
    basalt_status st[8];
};

static void consume_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct consume_ctx *x = ctx;
    for (int64_t m = begin; m < end && x->st[worker] == BASALT_OK; m++) {
        int64_t lo = m * MORSEL, n = AROWS - lo < MORSEL ? AROWS - lo : MORSEL;
        struct ArrowArray k = keys[x->c->workload], v = vals;
        k.offset = lo;
        k.length = n;
        v.offset = lo;
        v.length = n;
        const struct ArrowArray *kp[1] = {&k}, *ap[2] = {&v, NULL};
        x->st[worker] = basalt_qagg_consume(x->locals[worker], kp, ap, NULL, n, NULL);
    }
}

static basalt_status arun(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct acase *c = ctx;
    struct basalt_query_type kt[1];
    struct basalt_qagg_call calls[2] = {
        {.kind = BASALT_QAGG_SUM, .input = basalt_query_type_make(BASALT_QUERY_TYPE_INT64)},
        {.kind = BASALT_QAGG_COUNT_STAR, .input = basalt_query_type_make(BASALT_QUERY_TYPE_INT64)}};
    kt[0] = basalt_query_type_make(c->workload == W_H2O ? BASALT_QUERY_TYPE_STRING
                                                        : BASALT_QUERY_TYPE_INT64);
    int nk = c->workload == W_GLOBAL ? 0 : 1;
    for (uint64_t it = 0; it < iters; it++) {
        struct basalt_qagg *agg;
        struct basalt_qagg_local *locals[8];
        basalt_status st = basalt_qagg_new(kt, nk, calls, 2, NULL, &agg, err);
        if (st != BASALT_OK)
            return st;
        for (int t = 0; t < c->threads; t++)
            if ((st = basalt_qagg_local_new(agg, &locals[t], err)) != BASALT_OK)
                return st;
        struct consume_ctx x = {c, locals, {0}};
        basalt_pool_parallel_for(c->pool, 0, (AROWS + MORSEL - 1) / MORSEL, 1, consume_task, &x);
        for (int t = 0; t < c->threads; t++)
            if (x.st[t] != BASALT_OK)
                return basalt_error_set(err, x.st[t], "consume failed");
        struct basalt_arrow_batches out;
        basalt_arrow_batches_init(&out);
        st = basalt_qagg_finish(agg, locals, c->threads, c->pool, &out, err);
        basalt_arrow_batches_reset(&out);
        for (int t = 0; t < c->threads; t++)
            basalt_qagg_local_free(locals[t]);
        basalt_qagg_free(agg);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static struct acase cases_ctx[W_COUNT][2];

basalt_status bench_agg_register(struct basalt_bench *bench, struct basalt_error *err)
{
    static const char *const names[W_COUNT][2] = {
        {"query/agg/global_sum_count/t1", "query/agg/global_sum_count/t2"},
        {"query/agg/low_100/t1", "query/agg/low_100/t2"},
        {"query/agg/high_1m/t1", "query/agg/high_1m/t2"},
        {"query/agg/zipf_1000/t1", "query/agg/zipf_1000/t2"},
        {"query/agg/h2o_q1/t1", "query/agg/h2o_q1/t2"}};
    for (int w = 0; w < W_COUNT; w++)
        for (int t = 0; t < 2; t++) {
            cases_ctx[w][t].workload = w;
            cases_ctx[w][t].threads = t + 1;
            struct basalt_bench_case bc = {
                .name = names[w][t], .peer = "basalt_qagg (sum(v), count(*))", .run = arun,
                .setup = asetup, .teardown = ateardown, .ctx = &cases_ctx[w][t],
                .items_per_iter = AROWS, .threads = t + 1};
            basalt_status st = basalt_bench_add(bench, &bc, err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
