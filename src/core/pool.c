/* A persistent thread pool for data-parallel loops.
 *
 * Dispatch is one atomic store: the caller writes the job, then publishes a
 * ticket (generation << 16 | participants). Workers spin on the ticket for a
 * few microseconds after each job, so back-to-back calls do not pay a futex
 * round trip, then sleep on a condition variable. Items are handed out in
 * chunks from an atomic cursor; the caller works as worker 0.
 *
 * A worker must join the job (a compare-exchange on `entry`) before reading
 * it. When the caller runs out of chunks it closes the entry and waits only
 * for the workers that joined, so a call never waits for a worker that was
 * still asleep or descheduled; a latecomer finds the entry closed and leaves
 * the job alone. The caller does not touch the job again until every joined
 * worker has checked out, so the job fields need no atomics of their own. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "basalt/core.h"

#define POOL_MAX_THREADS 1024
/* Participant count in the low bits of the ticket; 0 there means "stop". */
#define POOL_TICKET_BITS 16
#define POOL_TICKET_MASK ((UINT64_C(1) << POOL_TICKET_BITS) - 1)
/* How long workers and the caller spin before sleeping. Long enough to cover
 * the gap between back-to-back calls, short enough not to steal a core from
 * the rest of the process when the pool is idle. */
#define POOL_SPIN_NS 10000
/* The ticket before any job: a worker starts out having "seen" it. */
#define POOL_TICKET_IDLE UINT64_C(1)
/* entry = generation << 17 | open << 16 | workers joined */
#define POOL_ENTRY_GEN_SHIFT 17
#define POOL_ENTRY_OPEN (UINT64_C(1) << 16)
#define POOL_ENTRY_JOINED_MASK (POOL_ENTRY_OPEN - 1)
#define POOL_CACHE_LINE 64
/* Default chunks per worker when grain is 0: enough for dynamic balancing
 * to absorb uneven chunks, few enough to keep the cursor uncontended. */
#define POOL_CHUNKS_PER_WORKER 8

struct pool_thread {
    struct basalt_pool *pool;
    int id; /* worker id, 1..num_threads */
    pthread_t handle;
};

/* The hot atomics sit on separate cache lines: idle workers poll `ticket`
 * while busy ones hammer `cursor`. */
struct basalt_pool {
    int num_threads;
    struct pool_thread *threads;

    pthread_mutex_t mutex;
    pthread_cond_t wake; /* workers sleep here for a new ticket */
    pthread_cond_t done; /* the caller sleeps here for finished == joined */

    /* The current job: written by the caller before the ticket is published. */
    basalt_pool_fn fn;
    void *ctx;
    int64_t n;
    int64_t grain;
    bool bounded_cursor; /* fetch_add could overflow: claim with compare-exchange */

    _Alignas(POOL_CACHE_LINE) _Atomic uint64_t ticket;
    _Atomic int sleepers; /* workers asleep (or about to be) on `wake` */

    _Alignas(POOL_CACHE_LINE) _Atomic int64_t cursor;

    _Alignas(POOL_CACHE_LINE) _Atomic uint64_t entry;
    _Atomic uint64_t finished;  /* joined workers that have checked out */
    _Atomic bool caller_asleep; /* the caller is (about to be) on `done` */
};

static int64_t pool_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void pool_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* Claims the next chunk; false when none is left. */
static bool pool_claim(struct basalt_pool *pool, int64_t *begin, int64_t *end)
{
    int64_t n = pool->n, grain = pool->grain;
    int64_t b;
    if (!pool->bounded_cursor) {
        b = atomic_fetch_add_explicit(&pool->cursor, grain, memory_order_relaxed);
        if (b >= n)
            return false;
    } else {
        b = atomic_load_explicit(&pool->cursor, memory_order_relaxed);
        do {
            if (b >= n)
                return false;
        } while (!atomic_compare_exchange_weak_explicit(&pool->cursor, &b,
                                                        b + (n - b < grain ? n - b : grain),
                                                        memory_order_relaxed,
                                                        memory_order_relaxed));
    }
    *begin = b;
    *end = n - b < grain ? n : b + grain;
    return true;
}

static void pool_run_chunks(struct basalt_pool *pool, int worker)
{
    int64_t begin, end;
    while (pool_claim(pool, &begin, &end))
        pool->fn(pool->ctx, begin, end, worker);
}

/* Waits for a ticket other than `seen` and returns it. */
static uint64_t pool_wait_ticket(struct basalt_pool *pool, uint64_t seen)
{
    int64_t start = pool_now_ns();
    for (unsigned i = 1;; i++) {
        uint64_t t = atomic_load_explicit(&pool->ticket, memory_order_acquire);
        if (t != seen)
            return t;
        pool_pause();
        if (i % 64 == 0 && pool_now_ns() - start > POOL_SPIN_NS)
            break;
    }
    pthread_mutex_lock(&pool->mutex);
    /* sleepers is raised before the ticket is re-read and the publisher reads
     * sleepers after storing the ticket (both seq_cst): either we see the new
     * ticket or the publisher sees us and broadcasts under the mutex. */
    atomic_fetch_add(&pool->sleepers, 1);
    uint64_t t;
    while ((t = atomic_load(&pool->ticket)) == seen)
        pthread_cond_wait(&pool->wake, &pool->mutex);
    atomic_fetch_sub(&pool->sleepers, 1);
    pthread_mutex_unlock(&pool->mutex);
    return t;
}

static void *pool_worker_main(void *arg)
{
    struct pool_thread *self = arg;
    struct basalt_pool *pool = self->pool;
    uint64_t seen = POOL_TICKET_IDLE;
    for (;;) {
        uint64_t t = pool_wait_ticket(pool, seen);
        seen = t;
        uint64_t participants = t & POOL_TICKET_MASK;
        if (participants == 0)
            break;
        if ((uint64_t)self->id >= participants)
            continue; /* not ours: the job must not be read */
        uint64_t gen = t >> POOL_TICKET_BITS;
        uint64_t e = atomic_load_explicit(&pool->entry, memory_order_acquire);
        bool joined = false;
        while (!joined && e >> POOL_ENTRY_GEN_SHIFT == gen && (e & POOL_ENTRY_OPEN))
            joined = atomic_compare_exchange_weak_explicit(&pool->entry, &e, e + 1,
                                                           memory_order_acquire,
                                                           memory_order_acquire);
        if (!joined)
            continue; /* closed already (or a newer job): the caller is not waiting for us */
        pool_run_chunks(pool, self->id);
        /* Same pairing as in pool_wait_ticket, with the caller's flag. */
        atomic_fetch_add(&pool->finished, 1);
        if (atomic_load(&pool->caller_asleep)) {
            pthread_mutex_lock(&pool->mutex);
            pthread_cond_signal(&pool->done);
            pthread_mutex_unlock(&pool->mutex);
        }
    }
    return NULL;
}

/* Publishes ticket `t` and wakes sleeping workers. */
static void pool_publish(struct basalt_pool *pool, uint64_t t)
{
    atomic_store(&pool->ticket, t);
    if (atomic_load(&pool->sleepers) > 0) {
        pthread_mutex_lock(&pool->mutex);
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mutex);
    }
}

/* Stops and joins the first `started` threads. */
static void pool_stop(struct basalt_pool *pool, int started)
{
    uint64_t gen = (atomic_load(&pool->ticket) >> POOL_TICKET_BITS) + 1;
    pool_publish(pool, gen << POOL_TICKET_BITS);
    for (int i = 0; i < started; i++)
        pthread_join(pool->threads[i].handle, NULL);
}

static void pool_destroy_sync(struct basalt_pool *pool)
{
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
}

basalt_status basalt_pool_new(int num_threads, struct basalt_pool **out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "pool: out is NULL");
    *out = NULL;
    if (num_threads < 0 || num_threads > POOL_MAX_THREADS)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "pool: num_threads %d is outside [0, %d]", num_threads,
                                POOL_MAX_THREADS);
    struct basalt_pool *pool = basalt_aligned_alloc(POOL_CACHE_LINE, sizeof *pool);
    if (!pool)
        return basalt_error_set(err, BASALT_NOMEM, "pool: out of memory");
    memset(pool, 0, sizeof *pool);
    pool->num_threads = num_threads;
    atomic_init(&pool->ticket, POOL_TICKET_IDLE);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->entry, 0);
    atomic_init(&pool->finished, 0);
    atomic_init(&pool->caller_asleep, false);
    atomic_init(&pool->cursor, 0);
    if (num_threads > 0) {
        pool->threads = basalt_calloc((size_t)num_threads, sizeof *pool->threads);
        if (!pool->threads) {
            basalt_free(pool);
            return basalt_error_set(err, BASALT_NOMEM, "pool: out of memory");
        }
    }
    if (pthread_mutex_init(&pool->mutex, NULL) != 0) {
        basalt_free(pool->threads);
        basalt_free(pool);
        return basalt_error_set(err, BASALT_INTERNAL, "pool: pthread_mutex_init failed");
    }
    if (pthread_cond_init(&pool->wake, NULL) != 0) {
        pthread_mutex_destroy(&pool->mutex);
        basalt_free(pool->threads);
        basalt_free(pool);
        return basalt_error_set(err, BASALT_INTERNAL, "pool: pthread_cond_init failed");
    }
    if (pthread_cond_init(&pool->done, NULL) != 0) {
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->mutex);
        basalt_free(pool->threads);
        basalt_free(pool);
        return basalt_error_set(err, BASALT_INTERNAL, "pool: pthread_cond_init failed");
    }

    /* Workers block asynchronous signals, so those reach the application's
     * own threads; faults stay deliverable so crash handlers still run. */
    sigset_t mask, old;
    sigfillset(&mask);
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&mask, faults[i]);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    int started = 0, rc = 0;
    for (; started < num_threads; started++) {
        struct pool_thread *t = &pool->threads[started];
        t->pool = pool;
        t->id = started + 1;
        rc = pthread_create(&t->handle, NULL, pool_worker_main, t);
        if (rc != 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < num_threads) {
        pool_stop(pool, started);
        pool_destroy_sync(pool);
        basalt_free(pool->threads);
        basalt_free(pool);
        return basalt_error_set(err, BASALT_INTERNAL,
                                "pool: could not start thread %d of %d: %s", started + 1,
                                num_threads, strerror(rc));
    }
    *out = pool;
    return BASALT_OK;
}

void basalt_pool_free(struct basalt_pool *pool)
{
    if (!pool)
        return;
    pool_stop(pool, pool->num_threads);
    pool_destroy_sync(pool);
    basalt_free(pool->threads);
    basalt_free(pool);
}

int basalt_pool_workers(const struct basalt_pool *pool)
{
    return pool ? pool->num_threads + 1 : 1;
}

void basalt_pool_parallel_for(struct basalt_pool *pool, int max_workers, int64_t n, int64_t grain,
                              basalt_pool_fn fn, void *ctx)
{
    if (n <= 0 || !fn)
        return;
    int workers = basalt_pool_workers(pool);
    if (max_workers > 0 && max_workers < workers)
        workers = max_workers;
    if (grain <= 0) {
        /* n / (workers * 8), rounded up; a lone caller takes everything at once. */
        int64_t chunks = (int64_t)workers * POOL_CHUNKS_PER_WORKER;
        grain = workers == 1 ? n : n / chunks + (n % chunks != 0);
    }
    if (grain > n)
        grain = n;
    /* One chunk or one worker: no dispatch at all. */
    if (workers == 1 || grain == n) {
        for (int64_t b = 0; b < n; b += grain) {
            int64_t e = n - b < grain ? n : b + grain;
            fn(ctx, b, e, 0);
            if (e == n)
                break;
        }
        return;
    }
    /* No more workers than chunks: the extra ones would only wake to find nothing. */
    int64_t chunks = n / grain + (n % grain != 0);
    if (chunks < workers)
        workers = (int)chunks;

    pool->fn = fn;
    pool->ctx = ctx;
    pool->n = n;
    pool->grain = grain;
    /* The cursor ends below n + grain, then each participant's failed claim
     * adds one more grain. */
    pool->bounded_cursor = grain > (INT64_MAX - n) / (workers + 1);
    atomic_store_explicit(&pool->cursor, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->finished, 0, memory_order_relaxed);
    uint64_t gen =
        (atomic_load_explicit(&pool->ticket, memory_order_relaxed) >> POOL_TICKET_BITS) + 1;
    atomic_store_explicit(&pool->entry, gen << POOL_ENTRY_GEN_SHIFT | POOL_ENTRY_OPEN,
                          memory_order_release);
    pool_publish(pool, gen << POOL_TICKET_BITS | (uint64_t)workers);

    pool_run_chunks(pool, 0);

    /* Every chunk is claimed: close the entry and wait for those who joined. */
    uint64_t joined = atomic_fetch_and_explicit(&pool->entry, ~POOL_ENTRY_OPEN,
                                                memory_order_acq_rel) &
                      POOL_ENTRY_JOINED_MASK;
    int64_t start = pool_now_ns();
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(&pool->finished, memory_order_acquire) == joined)
            return;
        pool_pause();
        if (i % 64 == 0 && pool_now_ns() - start > POOL_SPIN_NS)
            break;
    }
    pthread_mutex_lock(&pool->mutex);
    atomic_store(&pool->caller_asleep, true);
    while (atomic_load(&pool->finished) != joined)
        pthread_cond_wait(&pool->done, &pool->mutex);
    atomic_store(&pool->caller_asleep, false);
    pthread_mutex_unlock(&pool->mutex);
}
