/* The thread pool: what one dispatch costs, against creating and joining a
 * thread per call (what the pool saves), and how a memory-bound loop scales
 * from 1 to 2 workers. Each pair is one comparison, its samples interleaved. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "basalt/bench.h"

basalt_status bench_pool_register(struct basalt_bench *bench, struct basalt_error *err);

/* Pool threads besides the caller: 2 workers in all. */
#define POOL_THREADS 1
#define POOL_WORKERS (POOL_THREADS + 1)
/* Triad arrays: 4 Mi doubles each, 96 MiB in all, well past any last-level cache. */
#define POOL_TRIAD_N ((int64_t)1 << 22)
#define POOL_TRIAD_CHUNKS 64

/* ------------------------------------------------------------------ dispatch */

/* Items run per worker, to check that every call ran all of its items. */
struct pool_dispatch {
    struct basalt_pool *pool;
    _Alignas(64) int64_t done[POOL_WORKERS][8]; /* a cache line per worker */
};

static void pool_empty_body(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct pool_dispatch *d = ctx;
    d->done[worker][0] += end - begin;
}

static basalt_status pool_dispatch_setup(void *ctx, struct basalt_error *err)
{
    struct pool_dispatch *d = ctx;
    memset(d->done, 0, sizeof d->done);
    return basalt_pool_new(POOL_THREADS, &d->pool, err);
}

static void pool_dispatch_teardown(void *ctx)
{
    struct pool_dispatch *d = ctx;
    basalt_pool_free(d->pool);
    d->pool = NULL;
}

static basalt_status pool_check_done(struct pool_dispatch *d, uint64_t iters,
                                     struct basalt_error *err)
{
    int64_t total = 0;
    for (int w = 0; w < POOL_WORKERS; w++)
        total += d->done[w][0];
    memset(d->done, 0, sizeof d->done);
    if (total != (int64_t)iters * POOL_WORKERS)
        return basalt_error_set(err, BASALT_INTERNAL, "dispatch ran %lld items, expected %lld",
                                (long long)total, (long long)iters * POOL_WORKERS);
    return BASALT_OK;
}

static basalt_status pool_dispatch_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct pool_dispatch *d = ctx;
    for (uint64_t i = 0; i < iters; i++)
        basalt_pool_parallel_for(d->pool, 0, POOL_WORKERS, 1, pool_empty_body, d);
    return pool_check_done(d, iters, err);
}

/* The same work without a pool: the caller takes item 0, a fresh thread
 * item 1, then the caller joins it. */
struct pool_spawned {
    struct pool_dispatch *d;
};

static void *pool_spawned_main(void *arg)
{
    struct pool_spawned *s = arg;
    pool_empty_body(s->d, 1, 2, 1);
    return NULL;
}

static basalt_status pool_spawn_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct pool_dispatch *d = ctx;
    struct pool_spawned s = {d};
    for (uint64_t i = 0; i < iters; i++) {
        pthread_t t;
        int rc = pthread_create(&t, NULL, pool_spawned_main, &s);
        if (rc != 0)
            return basalt_error_set(err, BASALT_INTERNAL, "pthread_create: %s", strerror(rc));
        pool_empty_body(d, 0, 1, 0);
        pthread_join(t, NULL);
    }
    return pool_check_done(d, iters, err);
}

static basalt_status pool_spawn_setup(void *ctx, struct basalt_error *err)
{
    struct pool_dispatch *d = ctx;
    (void)err;
    memset(d->done, 0, sizeof d->done);
    return BASALT_OK;
}

static struct pool_dispatch pool_dispatch_pool, pool_dispatch_spawn;

/* ------------------------------------------------------------------ triad */

/* a[i] = b[i] + s * c[i], shared by both legs (set up by the first, freed by
 * the last) so that they stream over the same memory. */
struct pool_triad_data {
    int users;
    double *a, *b, *c;
};

static struct pool_triad_data pool_triad_data;

struct pool_triad {
    int max_workers;
    struct basalt_pool *pool;
};

static void pool_triad_release_data(void)
{
    struct pool_triad_data *t = &pool_triad_data;
    if (--t->users > 0)
        return;
    basalt_free(t->a);
    basalt_free(t->b);
    basalt_free(t->c);
    t->a = t->b = t->c = NULL;
}

static basalt_status pool_triad_setup(void *ctx, struct basalt_error *err)
{
    struct pool_triad *leg = ctx;
    struct pool_triad_data *t = &pool_triad_data;
    if (t->users++ == 0) {
        size_t bytes = (size_t)POOL_TRIAD_N * sizeof(double);
        t->a = basalt_aligned_alloc(64, bytes);
        t->b = basalt_aligned_alloc(64, bytes);
        t->c = basalt_aligned_alloc(64, bytes);
        if (!t->a || !t->b || !t->c) {
            pool_triad_release_data();
            return basalt_error_set(err, BASALT_NOMEM, "triad: out of memory");
        }
        for (int64_t i = 0; i < POOL_TRIAD_N; i++) {
            t->a[i] = 0.0;
            t->b[i] = (double)(i & 1023);
            t->c[i] = (double)((i * 7) & 511);
        }
    }
    basalt_status st = basalt_pool_new(POOL_THREADS, &leg->pool, err);
    if (st != BASALT_OK)
        pool_triad_release_data();
    return st;
}

static void pool_triad_teardown(void *ctx)
{
    struct pool_triad *leg = ctx;
    basalt_pool_free(leg->pool);
    leg->pool = NULL;
    pool_triad_release_data();
}

static void pool_triad_body(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)ctx;
    (void)worker;
    struct pool_triad_data *t = &pool_triad_data;
    double *restrict a = t->a;
    const double *restrict b = t->b;
    const double *restrict c = t->c;
    for (int64_t i = begin; i < end; i++)
        a[i] = b[i] + 3.0 * c[i];
}

static basalt_status pool_triad_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct pool_triad *leg = ctx;
    for (uint64_t i = 0; i < iters; i++)
        basalt_pool_parallel_for(leg->pool, leg->max_workers, POOL_TRIAD_N,
                                 POOL_TRIAD_N / POOL_TRIAD_CHUNKS, pool_triad_body, NULL);
    /* Spot-check that every chunk ran. */
    struct pool_triad_data *t = &pool_triad_data;
    for (int64_t i = 0; i < POOL_TRIAD_N; i += POOL_TRIAD_N / POOL_TRIAD_CHUNKS - 1)
        if (t->a[i] != t->b[i] + 3.0 * t->c[i])
            return basalt_error_set(err, BASALT_INTERNAL, "triad: element %lld not computed",
                                    (long long)i);
    return BASALT_OK;
}

static struct pool_triad pool_triad_one = {.max_workers = 1};
static struct pool_triad pool_triad_all = {.max_workers = 0};

/* ------------------------------------------------------------------ registration */

basalt_status bench_pool_register(struct basalt_bench *bench, struct basalt_error *err)
{
    char spawn_peer[96], pool_peer[96], one_peer[96], all_peer[96];
    snprintf(spawn_peer, sizeof spawn_peer, "pthread_create + pthread_join per call");
    snprintf(pool_peer, sizeof pool_peer, "basalt_pool_parallel_for, %d items, pool of %d thread",
             POOL_WORKERS, POOL_THREADS);
    snprintf(one_peer, sizeof one_peer, "basalt_pool_parallel_for, max_workers 1");
    snprintf(all_peer, sizeof all_peer, "basalt_pool_parallel_for, %d workers", POOL_WORKERS);
    const double triad_bytes = 3.0 * (double)POOL_TRIAD_N * sizeof(double);
    const struct basalt_bench_case cases[] = {
        {.name = "pool/dispatch/pthread",
         .group = "pool/dispatch",
         .peer = spawn_peer,
         .run = pool_spawn_run,
         .setup = pool_spawn_setup,
         .ctx = &pool_dispatch_spawn,
         .items_per_iter = 1,
         .threads = POOL_WORKERS},
        {.name = "pool/dispatch/pool",
         .group = "pool/dispatch",
         .peer = pool_peer,
         .run = pool_dispatch_run,
         .setup = pool_dispatch_setup,
         .teardown = pool_dispatch_teardown,
         .ctx = &pool_dispatch_pool,
         .items_per_iter = 1,
         .threads = POOL_WORKERS},
        {.name = "pool/triad/1-worker",
         .group = "pool/triad",
         .peer = one_peer,
         .run = pool_triad_run,
         .setup = pool_triad_setup,
         .teardown = pool_triad_teardown,
         .ctx = &pool_triad_one,
         .bytes_per_iter = triad_bytes,
         .threads = 1},
        {.name = "pool/triad/2-workers",
         .group = "pool/triad",
         .peer = all_peer,
         .run = pool_triad_run,
         .setup = pool_triad_setup,
         .teardown = pool_triad_teardown,
         .ctx = &pool_triad_all,
         .bytes_per_iter = triad_bytes,
         .threads = POOL_WORKERS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        basalt_status st = basalt_bench_add(bench, &cases[i], err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
