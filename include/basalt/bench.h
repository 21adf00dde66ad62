/* basalt bench: the benchmark harness behind basalt-bench and every other
 * benchmark program of the project.
 *
 * A program registers benchmarks (struct basalt_bench_case) in a
 * `struct basalt_bench`, selects some by name and runs them one at a time:
 *
 *  - the iteration count of each benchmark is calibrated so that one sample
 *    (one call of its body) lasts at least BASALT_BENCH_SAMPLE_MIN_NS and at
 *    least BASALT_BENCH_SAMPLE_TICKS ticks of the clock (CLOCK_MONOTONIC, whose
 *    resolution is measured);
 *  - samples are taken until the time budget of the benchmark is spent
 *    (BASALT_BENCH_TIME_DEFAULT seconds, between BASALT_BENCH_SAMPLES_MIN and
 *    BASALT_BENCH_SAMPLES_MAX samples);
 *  - the headline is the median time per iteration (p50) with p90 beside it;
 *    the minimum is reported only as a floor; throughput comes from p50;
 *  - benchmarks sharing a group are a comparison: they are run as one unit with
 *    their samples interleaved (A B B A A B ...), so drift of the machine falls
 *    on every member alike, and each member's p50 is reported as a ratio to the
 *    group's baseline, its first registered member;
 *  - a fixed reference kernel is timed before the first unit and after every
 *    unit, the first benchmark is timed again at the end and the load average
 *    is read, and together they give the verdict `machine: steady` or
 *    `machine: NOT steady: <reasons>` (thresholds below).
 *
 * Times are in nanoseconds; throughput in MB/s is 1e6 bytes per second.
 * A `struct basalt_bench` is used by one thread at a time. */
#ifndef BASALT_BENCH_H
#define BASALT_BENCH_H

#include <stdio.h>

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ settings */

/* A sample lasts at least 2 ms and at least 1000 clock ticks, so the clock's
 * resolution and the cost of reading it stay below 0.1% of a sample. */
#define BASALT_BENCH_SAMPLE_MIN_NS 2e6
#define BASALT_BENCH_SAMPLE_TICKS 1000.0
/* Seconds of samples per benchmark (per member of a comparison). */
#define BASALT_BENCH_TIME_DEFAULT 0.5
/* Bounds on the samples per benchmark: at least 5 even when one sample is
 * slower than the budget, so that p50 and p90 exist. */
#define BASALT_BENCH_SAMPLES_MIN 5
#define BASALT_BENCH_SAMPLES_MAX 20000

/* Steadiness thresholds. The machine is NOT steady when
 *  - the reference kernel's p50, timed before the first unit and after every
 *    unit, spreads by more than 5%: (max - min) / min > 0.05;
 *  - the first benchmark's p50, timed again at the end, moved by more than
 *    5%: |again - first| / first > 0.05;
 *  - the 1-minute load average, read at every reference timing, peaked above
 *    0.75 per online CPU. It counts this process too, which runs one thread
 *    most of the time, so on 2 CPUs more than half a CPU of other work trips it.
 * 5% is chosen against the project's tightest goal (a wrapper within 3% of the
 * library it wraps): noise of that size makes absolute numbers meaningless,
 * while interleaved ratios still hold. */
#define BASALT_BENCH_REF_DRIFT_MAX 0.05
#define BASALT_BENCH_FIRST_MOVE_MAX 0.05
#define BASALT_BENCH_LOAD_PER_CPU_MAX 0.75

/* The reference kernel: BASALT_BENCH_REF_STEPS dependent rounds of a 64-bit
 * integer mix (about 1-2 ms on current CPUs), timed BASALT_BENCH_REF_SAMPLES
 * times; its p50 is one reference timing. */
#define BASALT_BENCH_REF_STEPS (1u << 20)
#define BASALT_BENCH_REF_SAMPLES 15

/* ------------------------------------------------------------------ benchmarks */

/* Runs the body of a benchmark `iters` times. Only this call is timed. A
 * non-OK status (with `err` filled) stops the benchmark and is reported. */
typedef basalt_status (*basalt_bench_fn)(void *ctx, uint64_t iters, struct basalt_error *err);

struct basalt_bench_case {
    /* Unique name, "area/thing/variant" by convention (--only matches it). */
    const char *name;
    /* Comparison this benchmark belongs to (NULL or "" for none). Members of a
     * group run as one unit; the first registered member is the baseline. */
    const char *group;
    /* Who or what is measured: "basalt", or the peer with its API and version
     * ("libzstd 1.5.4 ZSTD_decompressDCtx"). NULL or "" for none. */
    const char *peer;
    basalt_bench_fn run;
    /* Called once before the benchmark is calibrated and timed, and
     * `teardown` once after, both outside the timed region; either may be
     * NULL. teardown is called only if setup succeeded. */
    basalt_status (*setup)(void *ctx, struct basalt_error *err);
    void (*teardown)(void *ctx);
    /* Called with ctx by basalt_bench_free (NULL: ctx is not the bench's). */
    void (*release)(void *ctx);
    void *ctx;
    /* Work per iteration, for throughput; 0 when not meaningful. */
    double bytes_per_iter;
    double items_per_iter;
    /* Threads the body uses, as a label (0 is taken as 1). */
    int threads;
    /* Goal for p50 / baseline p50 of a non-baseline member (0: none). */
    double ratio_max;
};

/* Five-number summary of a set of samples. Percentiles interpolate linearly
 * between the two nearest order statistics (the "R-7" / numpy default rule):
 * with the samples sorted as x[0..n), percentile p lies at h = (n - 1) * p
 * and equals x[floor h] + (h - floor h) * (x[floor h + 1] - x[floor h]). */
struct basalt_bench_stats {
    size_t count;
    double min;
    double p50;
    double p90;
    double max;
    double mean;
};

/* What a run measured for one registered benchmark. */
struct basalt_bench_result {
    /* As registered; the strings are the bench's copies, group and peer ""
     * when absent. */
    struct basalt_bench_case def;
    bool selected;
    bool ran;                     /* timed to the end */
    struct basalt_error error;    /* why it did not run; status OK otherwise */
    uint64_t iters;               /* iterations per sample */
    struct basalt_bench_stats ns; /* nanoseconds per iteration, over the samples */
    double mb_per_s;              /* bytes_per_iter / p50, 1e6 bytes/s; 0 without bytes */
    double items_per_s;           /* items_per_iter / p50; 0 without items */
    /* Comparison: index of the group's baseline result and p50 / its p50;
     * baseline is -1 and ratio 0 for the baseline itself and ungrouped ones. */
    ptrdiff_t baseline;
    double ratio;
};

/* ------------------------------------------------------------------ verdict */

/* What the verdict is decided from. */
struct basalt_bench_machine {
    const double *ref_ns;   /* reference kernel p50 at each timing, in order */
    size_t ref_count;
    double first_ns;        /* p50 of the first benchmark; <= 0 if none ran */
    double first_again_ns;  /* its p50 timed again at the end; <= 0 if not */
    double load_avg;        /* highest 1-minute load average seen; < 0 unknown */
    int cpus;               /* online CPUs; <= 0 unknown */
};

struct basalt_bench_limits {
    double ref_drift_max;
    double first_move_max;
    double load_per_cpu_max;
};

struct basalt_bench_verdict {
    bool steady;
    double ref_drift;   /* (max - min) / min of ref_ns; 0 with fewer than 2 */
    double first_move;  /* |again - first| / first; 0 when either is missing */
    double load_limit;  /* load_per_cpu_max * cpus; 0 when cpus unknown */
    /* "" when steady, else the reasons joined by "; ", e.g.
     * "reference kernel drifted 7.2% (limit 5.0%)". */
    char reason[256];
};

/* The default limits (the BASALT_BENCH_*_MAX constants). */
BASALT_EXPORT void basalt_bench_limits_init(struct basalt_bench_limits *limits);

/* Decides the verdict from measured inputs alone (no clock, no I/O), so it can
 * be checked on synthetic inputs. `limits` NULL means the defaults. Unknown
 * inputs (a missing first benchmark, load < 0, cpus <= 0) count as steady. */
BASALT_EXPORT void basalt_bench_verdict_compute(const struct basalt_bench_machine *machine,
                                                const struct basalt_bench_limits *limits,
                                                struct basalt_bench_verdict *out);

/* ------------------------------------------------------------------ measuring */

/* CLOCK_MONOTONIC in nanoseconds. Thread-safe. */
BASALT_EXPORT uint64_t basalt_bench_now_ns(void);

/* The clock's effective resolution in nanoseconds: the larger of what
 * clock_getres reports and the smallest step seen between two consecutive
 * readings (which includes the cost of a reading). Takes about 0.1 ms;
 * thread-safe. */
BASALT_EXPORT double basalt_bench_clock_resolution_ns(void);

/* The percentile p (0 <= p <= 1) of `sorted` (ascending, n > 0) by the rule
 * of struct basalt_bench_stats. Returns 0 for n == 0. */
BASALT_EXPORT double basalt_bench_percentile(const double *sorted, size_t n, double p);

/* Sorts samples[0..n) in place and summarises them; all zero for n == 0. */
BASALT_EXPORT void basalt_bench_stats_compute(double *samples, size_t n,
                                              struct basalt_bench_stats *out);

/* Finds an iteration count for `fn` such that one call lasts at least
 * `target_ns`: starting from 1, it grows the count (tenfold while a sample is
 * too short to extrapolate from, then in proportion with 20% to spare) until a
 * sample reaches the target, and confirms short samples by timing twice more
 * and keeping the fastest, so a preempted sample does not pass for a long one.
 * Stores the count in *iters and the accepted (fastest) sample's nanoseconds
 * in *sample_ns; either may be NULL. Returns fn's status with
 * its error, LIMIT if 2^40 iterations are still shorter than the target (a
 * body that does not run its iterations), INVALID_ARG for a NULL fn or a
 * target that is not positive. */
BASALT_EXPORT basalt_status basalt_bench_calibrate(basalt_bench_fn fn, void *ctx, double target_ns,
                                                   uint64_t *iters, double *sample_ns,
                                                   struct basalt_error *err);

/* The reference kernel itself: `steps` dependent rounds of a 64-bit mix from
 * `seed`, returning the final state. Pure; thread-safe. */
BASALT_EXPORT uint64_t basalt_bench_reference_kernel(uint64_t seed, uint32_t steps);

/* p50 in nanoseconds of BASALT_BENCH_REF_SAMPLES timings of
 * basalt_bench_reference_kernel(_, BASALT_BENCH_REF_STEPS). Thread-safe. */
BASALT_EXPORT double basalt_bench_reference_ns(void);

/* The 1-minute load average, or -1 if the system does not say. */
BASALT_EXPORT double basalt_bench_load_average(void);
/* Online CPUs (at least 1). */
BASALT_EXPORT int basalt_bench_cpu_count(void);

/* ------------------------------------------------------------------ the bench */

struct basalt_bench;

struct basalt_bench_options {
    double time_s;        /* seconds of samples per benchmark; 0: the default */
    double sample_min_ns; /* shortest sample; 0: BASALT_BENCH_SAMPLE_MIN_NS */
    FILE *progress;       /* a line per benchmark as it finishes; NULL: quiet */
};

/* Fills `options` with the defaults (progress NULL). */
BASALT_EXPORT void basalt_bench_options_init(struct basalt_bench_options *options);

/* Creates an empty bench. Returns NOMEM. */
BASALT_EXPORT basalt_status basalt_bench_new(struct basalt_bench **out, struct basalt_error *err);
/* Calls each registered case's `release` and frees the bench. NULL is a no-op. */
BASALT_EXPORT void basalt_bench_free(struct basalt_bench *bench);

/* Registers a copy of `bench_case` (its strings are copied; ctx is borrowed,
 * or owned by the bench when `release` is set, even if this call fails).
 * New cases are selected. Returns INVALID_ARG for a missing name or run, or a
 * name already registered; NOMEM. */
BASALT_EXPORT basalt_status basalt_bench_add(struct basalt_bench *bench,
                                             const struct basalt_bench_case *bench_case,
                                             struct basalt_error *err);

/* Whether `name` matches the --only pattern `pattern`: "=NAME" matches NAME
 * exactly, anything else matches names that contain it (case-sensitive). */
BASALT_EXPORT bool basalt_bench_matches(const char *name, const char *pattern);

/* Selects the benchmarks matching any of `patterns` (count 0: all) and stores
 * how many in *selected (NULL allowed). Returns NOT_FOUND, naming the pattern,
 * when a pattern matches nothing; the selection is then unchanged. */
BASALT_EXPORT basalt_status basalt_bench_select(struct basalt_bench *bench,
                                                const char *const *patterns, size_t count,
                                                size_t *selected, struct basalt_error *err);

/* Runs the selected benchmarks one unit at a time as described at the top,
 * then the re-timing of the first one and the verdict. A benchmark that fails
 * (setup or body) is recorded in its result and the run goes on; the call then
 * returns that first failure's status with "<name>: <message>" in err.
 * Returns INVALID_ARG for options out of range (time_s < 0 or > 3600,
 * sample_min_ns < 0), NOMEM. May be called again (results are replaced). */
BASALT_EXPORT basalt_status basalt_bench_run(struct basalt_bench *bench,
                                             const struct basalt_bench_options *options,
                                             struct basalt_error *err);

/* Number of registered benchmarks, and the result of the i-th (i < count) in
 * registration order; valid until the next add, run or free. */
BASALT_EXPORT size_t basalt_bench_count(const struct basalt_bench *bench);
BASALT_EXPORT const struct basalt_bench_result *basalt_bench_result_at(
    const struct basalt_bench *bench, size_t i);

/* How the last run went as a whole; all zero before a run. The pointers in it
 * are valid until the next run or free. */
struct basalt_bench_summary {
    bool ran;
    double clock_resolution_ns;
    double sample_target_ns;   /* the shortest sample, after the tick rule */
    double time_s;             /* budget per benchmark */
    const char *first_name;    /* the benchmark timed again; NULL if none */
    struct basalt_bench_machine machine;
    struct basalt_bench_limits limits;
    struct basalt_bench_verdict verdict;
};
BASALT_EXPORT const struct basalt_bench_summary *basalt_bench_summary_of(
    const struct basalt_bench *bench);

/* ------------------------------------------------------------------ reports */

/* Prints the selected benchmarks, one per line with group, peer and threads. */
BASALT_EXPORT void basalt_bench_print_list(const struct basalt_bench *bench, FILE *out);

/* The column header and the line of one result, as the progress output of
 * basalt_bench_run prints them: name, threads, p50, p90, min (floor),
 * throughput, iterations per sample, samples; or FAILED with the message. */
BASALT_EXPORT void basalt_bench_print_header(const struct basalt_bench *bench, FILE *out);
BASALT_EXPORT void basalt_bench_print_result(const struct basalt_bench *bench,
                                             const struct basalt_bench_result *result, FILE *out);

/* After a run: the comparison table (each group's members against its
 * baseline: p50s, ratio, goal), the verdict's inputs and the verdict line
 * "machine: steady" or "machine: NOT steady: <reasons>". */
BASALT_EXPORT void basalt_bench_print_summary(const struct basalt_bench *bench, FILE *out);

/* After a run: one JSON object with the settings, every selected benchmark
 * (name, group, peer, threads, status, p50/p90/min/max/mean ns, iters,
 * samples, bytes and items per iteration, throughput, baseline and ratio),
 * the comparisons and the verdict with its inputs. Numbers that are not
 * finite are written as null. */
BASALT_EXPORT void basalt_bench_print_json(const struct basalt_bench *bench, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
