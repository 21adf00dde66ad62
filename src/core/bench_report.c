/* Benchmark reports: the list, the result lines, the comparison table with
 * the verdict, and JSON. Built on the public accessors only. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "basalt/bench.h"

static void report_time(char *buf, size_t size, double ns)
{
    if (!(ns > 0.0) || !isfinite(ns))
        snprintf(buf, size, "-");
    else if (ns < 1e3)
        snprintf(buf, size, "%.2f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, size, "%.2f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, size, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, size, "%.3f s", ns / 1e9);
}

static void report_throughput(char *buf, size_t size, const struct basalt_bench_result *r)
{
    if (r->mb_per_s > 0.0) {
        snprintf(buf, size, "%.1f MB/s", r->mb_per_s);
        return;
    }
    double v = r->items_per_s;
    if (!(v > 0.0))
        snprintf(buf, size, "-");
    else if (v < 1e3)
        snprintf(buf, size, "%.1f items/s", v);
    else if (v < 1e6)
        snprintf(buf, size, "%.2f k items/s", v / 1e3);
    else if (v < 1e9)
        snprintf(buf, size, "%.2f M items/s", v / 1e6);
    else
        snprintf(buf, size, "%.2f G items/s", v / 1e9);
}

static int report_name_width(const struct basalt_bench *bench)
{
    size_t w = strlen("benchmark");
    for (size_t i = 0; i < basalt_bench_count(bench); i++) {
        const struct basalt_bench_result *r = basalt_bench_result_at(bench, i);
        if (r->selected && strlen(r->def.name) > w)
            w = strlen(r->def.name);
    }
    return (int)(w > 72 ? 72 : w);
}

void basalt_bench_print_list(const struct basalt_bench *bench, FILE *out)
{
    int w = report_name_width(bench);
    fprintf(out, "%-*s %7s  %s\n", w, "benchmark", "threads", "group / peer");
    for (size_t i = 0; i < basalt_bench_count(bench); i++) {
        const struct basalt_bench_result *r = basalt_bench_result_at(bench, i);
        if (!r->selected)
            continue;
        fprintf(out, "%-*s %7d  %s%s%s\n", w, r->def.name, r->def.threads, r->def.group,
                r->def.group[0] && r->def.peer[0] ? " / " : "", r->def.peer);
    }
}

void basalt_bench_print_header(const struct basalt_bench *bench, FILE *out)
{
    fprintf(out, "%-*s %3s %11s %11s %11s %16s %12s %7s\n", report_name_width(bench),
            "benchmark", "thr", "p50", "p90", "min(floor)", "throughput(p50)", "iters/sample",
            "samples");
}

void basalt_bench_print_result(const struct basalt_bench *bench,
                               const struct basalt_bench_result *r, FILE *out)
{
    int w = report_name_width(bench);
    if (!r->ran) {
        fprintf(out, "%-*s %3d FAILED %s: %s\n", w, r->def.name, r->def.threads,
                basalt_status_name(r->error.status), r->error.message);
        return;
    }
    char p50[32], p90[32], min[32], tp[48];
    report_time(p50, sizeof p50, r->ns.p50);
    report_time(p90, sizeof p90, r->ns.p90);
    report_time(min, sizeof min, r->ns.min);
    report_throughput(tp, sizeof tp, r);
    fprintf(out, "%-*s %3d %11s %11s %11s %16s %12" PRIu64 " %7zu\n", w, r->def.name,
            r->def.threads, p50, p90, min, tp, r->iters, r->ns.count);
}

/* ------------------------------------------------------------------ summary */

static size_t report_max(size_t a, size_t b) { return a > b ? a : b; }

static void report_comparisons(const struct basalt_bench *bench, FILE *out)
{
    size_t wg = strlen("comparison"), wb = strlen("baseline"), wp = strlen("measured");
    size_t rows = 0;
    for (size_t i = 0; i < basalt_bench_count(bench); i++) {
        const struct basalt_bench_result *r = basalt_bench_result_at(bench, i);
        if (r->baseline < 0)
            continue;
        const struct basalt_bench_result *b = basalt_bench_result_at(bench, (size_t)r->baseline);
        wg = report_max(wg, strlen(r->def.group));
        wb = report_max(wb, strlen(b->def.peer[0] ? b->def.peer : b->def.name));
        wp = report_max(wp, strlen(r->def.peer[0] ? r->def.peer : r->def.name));
        rows++;
    }
    if (rows == 0)
        return;
    fprintf(out, "\ncomparisons (ratio = p50 / baseline p50; both legs interleaved in one run):\n");
    fprintf(out, "%-*s  %-*s %11s  %-*s %11s %8s  %s\n", (int)wg, "comparison", (int)wb,
            "baseline", "p50", (int)wp, "measured", "p50", "ratio", "goal");
    for (size_t i = 0; i < basalt_bench_count(bench); i++) {
        const struct basalt_bench_result *r = basalt_bench_result_at(bench, i);
        if (r->baseline < 0)
            continue;
        const struct basalt_bench_result *b = basalt_bench_result_at(bench, (size_t)r->baseline);
        char bp50[32], p50[32], goal[48] = "";
        report_time(bp50, sizeof bp50, b->ns.p50);
        report_time(p50, sizeof p50, r->ns.p50);
        if (r->def.ratio_max > 0.0)
            snprintf(goal, sizeof goal, "<= %.3f %s", r->def.ratio_max,
                     r->ratio <= r->def.ratio_max ? "met" : "MISSED");
        fprintf(out, "%-*s  %-*s %11s  %-*s %11s %8.4g  %s\n", (int)wg, r->def.group, (int)wb,
                b->def.peer[0] ? b->def.peer : b->def.name, bp50, (int)wp,
                r->def.peer[0] ? r->def.peer : r->def.name, p50, r->ratio, goal);
    }
}

void basalt_bench_print_summary(const struct basalt_bench *bench, FILE *out)
{
    const struct basalt_bench_summary *s = basalt_bench_summary_of(bench);
    if (!s->ran)
        return;
    report_comparisons(bench, out);
    const struct basalt_bench_machine *m = &s->machine;
    const struct basalt_bench_verdict *v = &s->verdict;
    fprintf(out, "\n");
    if (m->ref_count > 0) {
        double lo = m->ref_ns[0], hi = m->ref_ns[0];
        for (size_t i = 1; i < m->ref_count; i++) {
            lo = fmin(lo, m->ref_ns[i]);
            hi = fmax(hi, m->ref_ns[i]);
        }
        char a[32], b[32];
        report_time(a, sizeof a, lo);
        report_time(b, sizeof b, hi);
        fprintf(out, "reference kernel: %zu timings from %s to %s: drift %.1f%% (limit %.1f%%)\n",
                m->ref_count, a, b, v->ref_drift * 100.0, s->limits.ref_drift_max * 100.0);
    }
    if (s->first_name) {
        char a[32], b[32];
        report_time(a, sizeof a, m->first_ns);
        report_time(b, sizeof b, m->first_again_ns);
        fprintf(out, "first benchmark %s: p50 %s, at the end %s: moved %.1f%% (limit %.1f%%)\n",
                s->first_name, a, b, v->first_move * 100.0, s->limits.first_move_max * 100.0);
    }
    if (m->load_avg >= 0.0)
        fprintf(out, "load average: peak %.2f (limit %.2f = %.2f x %d cpus)\n", m->load_avg,
                v->load_limit, s->limits.load_per_cpu_max, m->cpus);
    else
        fprintf(out, "load average: unknown\n");
    if (v->steady)
        fprintf(out, "machine: steady\n");
    else
        fprintf(out, "machine: NOT steady: %s\n", v->reason);
}

/* ------------------------------------------------------------------ JSON */

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

static void json_key(FILE *out, const char *key)
{
    json_string(out, key);
    fputc(':', out);
}

static void json_num_field(FILE *out, const char *key, double v, bool comma)
{
    json_key(out, key);
    json_number(out, v);
    if (comma)
        fputc(',', out);
}

static void json_result(FILE *out, const struct basalt_bench *bench,
                        const struct basalt_bench_result *r)
{
    fputs("{", out);
    json_key(out, "name");
    json_string(out, r->def.name);
    fputc(',', out);
    json_key(out, "group");
    json_string(out, r->def.group);
    fputc(',', out);
    json_key(out, "peer");
    json_string(out, r->def.peer);
    fputc(',', out);
    fprintf(out, "\"threads\":%d,", r->def.threads);
    json_key(out, "status");
    json_string(out, basalt_status_name(r->ran ? BASALT_OK : r->error.status));
    fputc(',', out);
    json_key(out, "error");
    json_string(out, r->ran ? "" : r->error.message);
    fputc(',', out);
    fprintf(out, "\"iters\":%" PRIu64 ",\"samples\":%zu,", r->iters, r->ns.count);
    json_num_field(out, "p50_ns", r->ns.p50, true);
    json_num_field(out, "p90_ns", r->ns.p90, true);
    json_num_field(out, "min_ns", r->ns.min, true);
    json_num_field(out, "max_ns", r->ns.max, true);
    json_num_field(out, "mean_ns", r->ns.mean, true);
    json_num_field(out, "bytes_per_iter", r->def.bytes_per_iter, true);
    json_num_field(out, "items_per_iter", r->def.items_per_iter, true);
    json_num_field(out, "mb_per_s", r->mb_per_s, true);
    json_num_field(out, "items_per_s", r->items_per_s, true);
    json_key(out, "baseline");
    if (r->baseline >= 0)
        json_string(out, basalt_bench_result_at(bench, (size_t)r->baseline)->def.name);
    else
        fputs("null", out);
    fputc(',', out);
    json_key(out, "ratio");
    if (r->baseline >= 0)
        json_number(out, r->ratio);
    else
        fputs("null", out);
    fputc(',', out);
    json_key(out, "ratio_max");
    if (r->def.ratio_max > 0.0)
        json_number(out, r->def.ratio_max);
    else
        fputs("null", out);
    fputs("}", out);
}

void basalt_bench_print_json(const struct basalt_bench *bench, FILE *out)
{
    const struct basalt_bench_summary *s = basalt_bench_summary_of(bench);
    const struct basalt_bench_machine *m = &s->machine;
    const struct basalt_bench_verdict *v = &s->verdict;
    fputs("{", out);
    json_key(out, "basalt_version");
    json_string(out, basalt_version());
    fputc(',', out);
    json_num_field(out, "clock_resolution_ns", s->clock_resolution_ns, true);
    json_num_field(out, "sample_target_ns", s->sample_target_ns, true);
    json_num_field(out, "time_s", s->time_s, true);
    fputs("\"benchmarks\":[", out);
    bool first = true;
    for (size_t i = 0; i < basalt_bench_count(bench); i++) {
        const struct basalt_bench_result *r = basalt_bench_result_at(bench, i);
        if (!r->selected)
            continue;
        if (!first)
            fputc(',', out);
        first = false;
        fputs("\n  ", out);
        json_result(out, bench, r);
    }
    fputs("\n],\"machine\":{", out);
    fprintf(out, "\"steady\":%s,", v->steady ? "true" : "false");
    json_key(out, "reason");
    json_string(out, v->reason);
    fputs(",\"reference_ns\":[", out);
    for (size_t i = 0; i < m->ref_count; i++) {
        if (i)
            fputc(',', out);
        json_number(out, m->ref_ns[i]);
    }
    fputs("],", out);
    json_num_field(out, "reference_drift", v->ref_drift, true);
    json_num_field(out, "reference_drift_max", s->limits.ref_drift_max, true);
    json_key(out, "first_benchmark");
    if (s->first_name)
        json_string(out, s->first_name);
    else
        fputs("null", out);
    fputc(',', out);
    json_num_field(out, "first_p50_ns", m->first_ns, true);
    json_num_field(out, "first_again_p50_ns", m->first_again_ns, true);
    json_num_field(out, "first_move", v->first_move, true);
    json_num_field(out, "first_move_max", s->limits.first_move_max, true);
    json_key(out, "load_average");
    if (m->load_avg >= 0.0)
        json_number(out, m->load_avg);
    else
        fputs("null", out);
    fputc(',', out);
    json_num_field(out, "load_per_cpu_max", s->limits.load_per_cpu_max, true);
    json_num_field(out, "load_limit", v->load_limit, true);
    fprintf(out, "\"cpus\":%d}}\n", m->cpus);
}
