/* Thread pool: coverage of every index, worker ids, the max_workers cap,
 * back-to-back dispatch, no thread creation per call, the inline NULL pool
 * and allocation failures in basalt_pool_new. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "test.h"

/* ------------------------------------------------------------ helpers */

struct cover_ctx {
    _Atomic int *hits;      /* per index */
    int64_t grain_limit;    /* largest chunk allowed */
    int worker_limit;       /* worker ids must be below this */
    _Atomic int bad_chunk;  /* a chunk was empty, reversed or too large */
    _Atomic int bad_worker; /* a worker id was out of range */
    _Atomic uint64_t worker_mask;
    _Atomic int64_t calls;
};

static void cover_fn(void *vctx, int64_t begin, int64_t end, int worker)
{
    struct cover_ctx *c = vctx;
    atomic_fetch_add(&c->calls, 1);
    if (begin < 0 || end <= begin || end - begin > c->grain_limit)
        atomic_store(&c->bad_chunk, 1);
    if (worker < 0 || worker >= c->worker_limit)
        atomic_store(&c->bad_worker, 1);
    else if (worker < 64)
        atomic_fetch_or(&c->worker_mask, UINT64_C(1) << worker);
    for (int64_t i = begin; i < end && i >= 0; i++)
        atomic_fetch_add(&c->hits[i], 1);
}

static int popcount64(uint64_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* A joined thread can linger in /proc for a moment while the kernel reaps it. */
static int settled_threads(int want)
{
    int n = count_threads();
    for (int i = 0; i < 200 && n != want; i++) {
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
        n = count_threads();
    }
    return n;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ tests */

TEST(pool_new_rejects_bad_sizes)
{
    struct basalt_pool *pool = (struct basalt_pool *)1;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_STATUS(basalt_pool_new(-1, &pool, &err), BASALT_INVALID_ARG, &err);
    CHECK(pool == NULL);
    CHECK_STATUS(basalt_pool_new(1025, &pool, &err), BASALT_INVALID_ARG, &err);
    CHECK(strstr(err.message, "1025") != NULL);
    CHECK_STATUS(basalt_pool_new(2, NULL, NULL), BASALT_INVALID_ARG, NULL);
    basalt_pool_free(NULL);
    CHECK_EQ(basalt_pool_workers(NULL), 1);
}

TEST(pool_workers_counts_the_caller)
{
    for (int t = 0; t <= 4; t++) {
        struct basalt_pool *pool = NULL;
        CHECK_OK(basalt_pool_new(t, &pool, NULL), NULL);
        CHECK_EQ(basalt_pool_workers(pool), t + 1);
        basalt_pool_free(pool);
    }
}

/* Every index exactly once, chunks within grain, worker ids within both the
 * pool and the cap, for many shapes. */
TEST(pool_covers_every_index_once)
{
    static const int64_t ns[] = {0, 1, 2, 3, 7, 8, 63, 64, 65, 100, 1000, 4097, 20000};
    static const int64_t grains[] = {0, 1, 2, 3, 7, 64, 1000, 1 << 20};
    static const int caps[] = {0, 1, 2, 3, 5, 64};
    _Atomic int *hits = basalt_calloc(20000, sizeof *hits);
    CHECK(hits != NULL);
    int failures = 0;
    for (int threads = 0; threads <= 4 && !failures; threads++) {
        struct basalt_pool *pool = NULL;
        CHECK_OK(basalt_pool_new(threads, &pool, NULL), NULL);
        int workers = threads + 1;
        for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
            for (size_t b = 0; b < sizeof grains / sizeof grains[0]; b++) {
                for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
                    int64_t n = ns[a], grain = grains[b];
                    int cap = caps[c];
                    int limit = cap > 0 && cap < workers ? cap : workers;
                    for (int64_t i = 0; i < n; i++)
                        atomic_store(&hits[i], 0);
                    struct cover_ctx ctx = {.hits = hits, .worker_limit = limit};
                    /* grain 0 picks ceil(n / (workers * 8)) or less */
                    int64_t chunks = (int64_t)limit * 8;
                    ctx.grain_limit = grain > 0 ? grain : (n + chunks - 1) / chunks;
                    if (grain == 0 && limit == 1)
                        ctx.grain_limit = n;
                    basalt_pool_parallel_for(pool, cap, n, grain, cover_fn, &ctx);
                    int64_t wrong = -1;
                    for (int64_t i = 0; i < n && wrong < 0; i++)
                        if (atomic_load(&hits[i]) != 1)
                            wrong = i;
                    if (wrong >= 0 || atomic_load(&ctx.bad_chunk) ||
                        atomic_load(&ctx.bad_worker) || (n == 0 && atomic_load(&ctx.calls))) {
                        bt_fail(__FILE__, __LINE__,
                                "threads %d n %" PRId64 " grain %" PRId64
                                " cap %d: index %" PRId64 " hit %d times, bad chunk %d, "
                                "bad worker %d",
                                threads, n, grain, cap, wrong,
                                wrong >= 0 ? atomic_load(&hits[wrong]) : 1,
                                atomic_load(&ctx.bad_chunk), atomic_load(&ctx.bad_worker));
                        failures++;
                        break;
                    }
                    if (popcount64(atomic_load(&ctx.worker_mask)) > limit) {
                        bt_fail(__FILE__, __LINE__, "more than %d distinct workers", limit);
                        failures++;
                    }
                }
                if (failures)
                    break;
            }
            if (failures)
                break;
        }
        basalt_pool_free(pool);
    }
    basalt_free(hits);
}

/* Each chunk blocks until `want` distinct workers have arrived, so the call
 * completes only if exactly that many take part concurrently. */
struct rendezvous_ctx {
    int want;
    _Atomic uint64_t arrived; /* bit per worker */
    _Atomic int timed_out;
    _Atomic int extra;        /* a worker beyond `want` showed up */
};

static void rendezvous_fn(void *vctx, int64_t begin, int64_t end, int worker)
{
    (void)begin;
    (void)end;
    struct rendezvous_ctx *c = vctx;
    uint64_t before = atomic_fetch_or(&c->arrived, UINT64_C(1) << worker);
    if (popcount64(before | UINT64_C(1) << worker) > c->want)
        atomic_store(&c->extra, 1);
    int64_t deadline = now_ms() + 20000;
    while (popcount64(atomic_load(&c->arrived)) < c->want) {
        if (now_ms() > deadline) {
            atomic_store(&c->timed_out, 1);
            return;
        }
        sched_yield();
    }
}

TEST(pool_max_workers_is_respected_and_reached)
{
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(4, &pool, NULL), NULL);
    for (int cap = 1; cap <= 6; cap++) {
        int want = cap < 5 ? cap : 5;
        struct rendezvous_ctx ctx = {.want = want};
        /* n == want chunks of one: each participant must take exactly one. */
        basalt_pool_parallel_for(pool, cap == 6 ? 0 : cap, want, 1, rendezvous_fn, &ctx);
        CHECK_MSG(!atomic_load(&ctx.timed_out), "cap %d: only %d workers arrived", cap,
                  popcount64(atomic_load(&ctx.arrived)));
        CHECK(!atomic_load(&ctx.extra));
        CHECK_EQ(popcount64(atomic_load(&ctx.arrived)), want);
        CHECK_UEQ(atomic_load(&ctx.arrived), (UINT64_C(1) << want) - 1);
    }
    /* More chunks than the cap: still only `cap` distinct workers. */
    for (int cap = 1; cap <= 4; cap++) {
        _Atomic int *hits = basalt_calloc(5000, sizeof *hits);
        CHECK(hits != NULL);
        struct cover_ctx ctx = {.hits = hits, .worker_limit = cap, .grain_limit = 1};
        basalt_pool_parallel_for(pool, cap, 5000, 1, cover_fn, &ctx);
        int bad = atomic_load(&ctx.bad_worker);
        int distinct = popcount64(atomic_load(&ctx.worker_mask));
        basalt_free(hits);
        CHECK(!bad);
        CHECK(distinct <= cap);
    }
    basalt_pool_free(pool);
}

struct sum_ctx {
    _Atomic int64_t sum;
};

static void sum_fn(void *vctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct sum_ctx *c = vctx;
    int64_t s = 0;
    for (int64_t i = begin; i < end; i++)
        s += i;
    atomic_fetch_add(&c->sum, s);
}

TEST(pool_back_to_back_calls_without_new_threads)
{
    int base = count_threads();
    CHECK(base >= 1);
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(3, &pool, NULL), NULL);
    int with_pool = count_threads();
    CHECK_EQ(with_pool, base + 3);
    for (int call = 0; call < 10000; call++) {
        int64_t n = 1 + call % 97;
        struct sum_ctx ctx = {0};
        basalt_pool_parallel_for(pool, 0, n, 1 + call % 5, sum_fn, &ctx);
        int64_t got = atomic_load(&ctx.sum);
        CHECK_MSG(got == n * (n - 1) / 2, "call %d: sum %" PRId64, call, got);
        if (call % 1000 == 0)
            CHECK_EQ(count_threads(), with_pool);
    }
    CHECK_EQ(count_threads(), with_pool);
    basalt_pool_free(pool);
    CHECK_EQ(settled_threads(base), base);
}

/* After the workers have gone to sleep, a call still wakes them. */
TEST(pool_wakes_sleeping_workers)
{
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(2, &pool, NULL), NULL);
    for (int round = 0; round < 5; round++) {
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
        struct rendezvous_ctx ctx = {.want = 3};
        basalt_pool_parallel_for(pool, 0, 3, 1, rendezvous_fn, &ctx);
        CHECK(!atomic_load(&ctx.timed_out));
        CHECK_UEQ(atomic_load(&ctx.arrived), 7);
    }
    basalt_pool_free(pool);
}

struct inline_ctx {
    pthread_t caller;
    int foreign_thread;
    int bad_worker;
    int64_t next; /* chunks must arrive in order on one thread */
    int out_of_order;
    int64_t max_chunk;
    int calls;
};

static void inline_fn(void *vctx, int64_t begin, int64_t end, int worker)
{
    struct inline_ctx *c = vctx;
    if (!pthread_equal(pthread_self(), c->caller))
        c->foreign_thread = 1;
    if (worker != 0)
        c->bad_worker = 1;
    if (begin != c->next)
        c->out_of_order = 1;
    c->next = end;
    if (end - begin > c->max_chunk)
        c->max_chunk = end - begin;
    c->calls++;
}

TEST(pool_null_runs_inline)
{
    struct inline_ctx ctx = {.caller = pthread_self()};
    basalt_pool_parallel_for(NULL, 0, 1000, 7, inline_fn, &ctx);
    CHECK(!ctx.foreign_thread);
    CHECK(!ctx.bad_worker);
    CHECK(!ctx.out_of_order);
    CHECK_EQ(ctx.next, 1000);
    CHECK_EQ(ctx.max_chunk, 7);
    CHECK_EQ(ctx.calls, 143);

    struct inline_ctx whole = {.caller = pthread_self()};
    basalt_pool_parallel_for(NULL, 4, 1000, 0, inline_fn, &whole);
    CHECK_EQ(whole.calls, 1);
    CHECK_EQ(whole.next, 1000);

    struct inline_ctx none = {.caller = pthread_self()};
    basalt_pool_parallel_for(NULL, 0, 0, 0, inline_fn, &none);
    basalt_pool_parallel_for(NULL, 0, -5, 0, inline_fn, &none);
    CHECK_EQ(none.calls, 0);

    /* max_workers 1 on a real pool also stays on the caller. */
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(3, &pool, NULL), NULL);
    struct inline_ctx capped = {.caller = pthread_self()};
    basalt_pool_parallel_for(pool, 1, 500, 3, inline_fn, &capped);
    basalt_pool_free(pool);
    CHECK(!capped.foreign_thread);
    CHECK(!capped.out_of_order);
    CHECK_EQ(capped.next, 500);
}

/* Chunk boundaries near INT64_MAX must neither overflow nor be lost. */
struct range_ctx {
    pthread_mutex_t mutex;
    int64_t begins[64];
    int64_t ends[64];
    int count;
};

static void range_fn(void *vctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct range_ctx *c = vctx;
    pthread_mutex_lock(&c->mutex);
    if (c->count < 64) {
        c->begins[c->count] = begin;
        c->ends[c->count] = end;
    }
    c->count++;
    pthread_mutex_unlock(&c->mutex);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

TEST(pool_huge_ranges_partition_exactly)
{
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(3, &pool, NULL), NULL);
    static const int64_t grains[] = {INT64_MAX / 3, INT64_MAX / 7 + 1, INT64_MAX / 40,
                                     INT64_MAX / 2 + 1};
    for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
        int64_t n = INT64_MAX, grain = grains[g];
        struct range_ctx ctx = {.count = 0};
        pthread_mutex_init(&ctx.mutex, NULL);
        basalt_pool_parallel_for(pool, 0, n, grain, range_fn, &ctx);
        pthread_mutex_destroy(&ctx.mutex);
        int64_t want = n / grain + (n % grain != 0);
        CHECK_EQ(ctx.count, want);
        CHECK(ctx.count <= 64);
        qsort(ctx.begins, (size_t)ctx.count, sizeof ctx.begins[0], cmp_i64);
        qsort(ctx.ends, (size_t)ctx.count, sizeof ctx.ends[0], cmp_i64);
        CHECK_EQ(ctx.begins[0], 0);
        for (int i = 0; i + 1 < ctx.count; i++)
            CHECK_EQ(ctx.ends[i], ctx.begins[i + 1]);
        CHECK_EQ(ctx.ends[ctx.count - 1], n);
    }
    basalt_pool_free(pool);
}

/* Per-worker scratch, the documented use of the worker id: partial sums are
 * combined after the call and must equal the closed form. */
struct scratch_ctx {
    int64_t partial[8 * 5]; /* one cache line per worker */
};

static void scratch_fn(void *vctx, int64_t begin, int64_t end, int worker)
{
    struct scratch_ctx *c = vctx;
    for (int64_t i = begin; i < end; i++)
        c->partial[worker * 8] += i % 1000;
}

TEST(pool_per_worker_scratch)
{
    struct basalt_pool *pool = NULL;
    CHECK_OK(basalt_pool_new(4, &pool, NULL), NULL);
    for (int round = 0; round < 50; round++) {
        struct scratch_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        int64_t n = 100000 + round;
        basalt_pool_parallel_for(pool, 0, n, 0, scratch_fn, &ctx);
        int64_t total = 0, want = 0;
        for (int w = 0; w < 5; w++)
            total += ctx.partial[w * 8];
        for (int64_t i = 0; i < n; i++)
            want += i % 1000;
        CHECK_EQ(total, want);
    }
    basalt_pool_free(pool);
}

static basalt_status pool_new_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_pool *pool = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_pool_new(3, &pool, &err);
    if (st != BASALT_OK)
        return pool == NULL ? st : BASALT_INTERNAL;
    struct sum_ctx sum = {0};
    basalt_pool_parallel_for(pool, 0, 1000, 10, sum_fn, &sum);
    basalt_pool_free(pool);
    return atomic_load(&sum.sum) == 999 * 1000 / 2 ? BASALT_OK : BASALT_INTERNAL;
}

TEST(pool_new_allocation_failures)
{
    int before = count_threads();
    CHECK_ALLOC_SWEEP(pool_new_attempt, NULL);
    CHECK_EQ(settled_threads(before), before);
}
