/* The steadiness verdict: a pure function of what the run measured. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basalt/bench.h"

void basalt_bench_limits_init(struct basalt_bench_limits *limits)
{
    limits->ref_drift_max = BASALT_BENCH_REF_DRIFT_MAX;
    limits->first_move_max = BASALT_BENCH_FIRST_MOVE_MAX;
    limits->load_per_cpu_max = BASALT_BENCH_LOAD_PER_CPU_MAX;
}

BASALT_PRINTF(2, 3)
static void verdict_add_reason(struct basalt_bench_verdict *v, const char *fmt, ...)
{
    size_t used = strlen(v->reason);
    if (used > 0 && used + 2 < sizeof v->reason) {
        memcpy(v->reason + used, "; ", 3);
        used += 2;
    }
    if (used + 1 >= sizeof v->reason)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason + used, sizeof v->reason - used, fmt, ap);
    va_end(ap);
}

void basalt_bench_verdict_compute(const struct basalt_bench_machine *m,
                                  const struct basalt_bench_limits *limits,
                                  struct basalt_bench_verdict *out)
{
    struct basalt_bench_limits defaults;
    if (!limits) {
        basalt_bench_limits_init(&defaults);
        limits = &defaults;
    }
    memset(out, 0, sizeof *out);
    out->steady = true;

    if (m->ref_count >= 2) {
        double lo = m->ref_ns[0], hi = m->ref_ns[0];
        for (size_t i = 1; i < m->ref_count; i++) {
            if (m->ref_ns[i] < lo)
                lo = m->ref_ns[i];
            if (m->ref_ns[i] > hi)
                hi = m->ref_ns[i];
        }
        if (lo > 0.0)
            out->ref_drift = (hi - lo) / lo;
    }
    if (m->first_ns > 0.0 && m->first_again_ns > 0.0)
        out->first_move = fabs(m->first_again_ns - m->first_ns) / m->first_ns;
    if (m->cpus > 0)
        out->load_limit = limits->load_per_cpu_max * (double)m->cpus;

    if (out->ref_drift > limits->ref_drift_max)
        verdict_add_reason(out, "reference kernel drifted %.1f%% (limit %.1f%%)",
                           out->ref_drift * 100.0, limits->ref_drift_max * 100.0);
    if (out->first_move > limits->first_move_max)
        verdict_add_reason(out, "first benchmark moved %.1f%% (limit %.1f%%)",
                           out->first_move * 100.0, limits->first_move_max * 100.0);
    if (m->cpus > 0 && m->load_avg >= 0.0 && m->load_avg > out->load_limit)
        verdict_add_reason(out, "load average %.2f above %.2f (%.2f x %d cpus)", m->load_avg,
                           out->load_limit, limits->load_per_cpu_max, m->cpus);
    out->steady = out->reason[0] == '\0';
}
