/* Benchmark measurement: the clock, percentiles, calibration of iteration
 * counts, the reference kernel and what the system says about its load. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "basalt/bench.h"

/* Calibration never goes past this many iterations per sample. */
#define MEASURE_ITERS_CAP (UINT64_C(1) << 40)
/* Below target / MEASURE_EXTRAPOLATE_MIN a sample is too short to scale from. */
#define MEASURE_EXTRAPOLATE_MIN 1000.0
/* Grow to 20% past the target so one noisy sample does not undershoot. */
#define MEASURE_MARGIN 1.2

uint64_t basalt_bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

double basalt_bench_clock_resolution_ns(void)
{
    struct timespec res;
    double reported = 1.0;
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
        reported = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;
    /* A coarse clock would make each probe wait a whole tick: a few suffice. */
    int probes = reported > 1000.0 ? 3 : 200;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < probes; i++) {
        uint64_t a = basalt_bench_now_ns(), b;
        do
            b = basalt_bench_now_ns();
        while (b == a);
        if (b - a < best)
            best = b - a;
    }
    double seen = (double)best;
    return seen > reported ? seen : reported;
}

double basalt_bench_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    if (!(p > 0.0))
        return sorted[0];
    if (p >= 1.0)
        return sorted[n - 1];
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)h;
    if (lo + 1 >= n)
        return sorted[n - 1];
    double frac = h - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static int measure_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void basalt_bench_stats_compute(double *samples, size_t n, struct basalt_bench_stats *out)
{
    *out = (struct basalt_bench_stats){0};
    if (n == 0)
        return;
    qsort(samples, n, sizeof *samples, measure_cmp_double);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += samples[i];
    out->count = n;
    out->min = samples[0];
    out->max = samples[n - 1];
    out->p50 = basalt_bench_percentile(samples, n, 0.5);
    out->p90 = basalt_bench_percentile(samples, n, 0.9);
    out->mean = sum / (double)n;
}

static basalt_status measure_once(basalt_bench_fn fn, void *ctx, uint64_t iters, double *ns,
                                  struct basalt_error *err)
{
    uint64_t t0 = basalt_bench_now_ns();
    basalt_status st = fn(ctx, iters, err);
    uint64_t t1 = basalt_bench_now_ns();
    *ns = (double)(t1 - t0);
    return st;
}

basalt_status basalt_bench_calibrate(basalt_bench_fn fn, void *ctx, double target_ns,
                                     uint64_t *iters_out, double *sample_ns,
                                     struct basalt_error *err)
{
    if (!fn)
        return basalt_error_set(err, BASALT_INVALID_ARG, "calibrate: no benchmark body");
    if (!(target_ns > 0.0) || !isfinite(target_ns))
        return basalt_error_set(err, BASALT_INVALID_ARG, "calibrate: target %g ns is not positive",
                                target_ns);
    uint64_t iters = 1;
    for (;;) {
        double t;
        basalt_status st = measure_once(fn, ctx, iters, &t, err);
        if (st != BASALT_OK)
            return st;
        /* Near the target, one preempted sample could pass for a long one:
         * keep the fastest of three. Far above it, preemption cannot explain
         * the length and the body is simply slow. */
        if (t >= target_ns && t < 10.0 * target_ns) {
            for (int k = 0; k < 2; k++) {
                double again;
                st = measure_once(fn, ctx, iters, &again, err);
                if (st != BASALT_OK)
                    return st;
                if (again < t)
                    t = again;
            }
        }
        if (t >= target_ns) {
            if (iters_out)
                *iters_out = iters;
            if (sample_ns)
                *sample_ns = t;
            return BASALT_OK;
        }
        if (iters >= MEASURE_ITERS_CAP)
            return basalt_error_set(err, BASALT_LIMIT,
                                    "calibrate: %" PRIu64 " iterations take %.0f ns, under the "
                                    "%.0f ns target: the body does not run its iterations",
                                    iters, t, target_ns);
        double next;
        if (t < target_ns / MEASURE_EXTRAPOLATE_MIN)
            next = (double)iters * 10.0;
        else
            next = ceil((double)iters * target_ns * MEASURE_MARGIN / t);
        if (next <= (double)iters)
            next = (double)iters + 1.0;
        iters = next >= (double)MEASURE_ITERS_CAP ? MEASURE_ITERS_CAP : (uint64_t)next;
    }
}

uint64_t basalt_bench_reference_kernel(uint64_t seed, uint32_t steps)
{
    /* One dependency chain of shift, xor, multiply and add: latency-bound
     * integer work that no compiler can vectorise or shorten, and that does
     * not touch memory, so it measures the core's speed alone. */
    uint64_t x = seed;
    for (uint32_t i = 0; i < steps; i++) {
        x ^= x >> 29;
        x *= UINT64_C(0xbf58476d1ce4e5b9);
        x += i;
    }
    return x;
}

/* Seed and sink through volatile objects so the kernel cannot be folded. */
static volatile uint64_t measure_ref_seed = UINT64_C(0x243f6a8885a308d3);
static volatile uint64_t measure_ref_sink;

double basalt_bench_reference_ns(void)
{
    double samples[BASALT_BENCH_REF_SAMPLES];
    for (int i = 0; i < BASALT_BENCH_REF_SAMPLES; i++) {
        uint64_t seed = measure_ref_seed + (uint64_t)i;
        uint64_t t0 = basalt_bench_now_ns();
        measure_ref_sink = basalt_bench_reference_kernel(seed, BASALT_BENCH_REF_STEPS);
        uint64_t t1 = basalt_bench_now_ns();
        samples[i] = (double)(t1 - t0);
    }
    struct basalt_bench_stats stats;
    basalt_bench_stats_compute(samples, BASALT_BENCH_REF_SAMPLES, &stats);
    return stats.p50;
}

double basalt_bench_load_average(void)
{
    double load[1];
    if (getloadavg(load, 1) != 1)
        return -1.0;
    return load[0];
}

int basalt_bench_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)(n > 65536 ? 65536 : n) : 1;
}
