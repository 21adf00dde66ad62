/* The benchmark registry and the runner: selection, units of interleaved
 * comparisons, reference timings, the re-timing of the first benchmark. */
#include <math.h>
#include <string.h>

#include "basalt/bench.h"

struct basalt_bench {
    struct basalt_bench_result *results;
    size_t count;
    size_t cap;
    struct basalt_arena strings; /* names, groups and peers */
    double *ref_ns;              /* reference timings of the last run */
    struct basalt_bench_summary summary;
};

void basalt_bench_options_init(struct basalt_bench_options *options)
{
    options->time_s = BASALT_BENCH_TIME_DEFAULT;
    options->sample_min_ns = BASALT_BENCH_SAMPLE_MIN_NS;
    options->progress = NULL;
}

basalt_status basalt_bench_new(struct basalt_bench **out, struct basalt_error *err)
{
    struct basalt_bench *bench = basalt_calloc(1, sizeof *bench);
    if (!bench)
        return basalt_error_set(err, BASALT_NOMEM, "bench: out of memory");
    basalt_arena_init(&bench->strings, 4096);
    *out = bench;
    return BASALT_OK;
}

void basalt_bench_free(struct basalt_bench *bench)
{
    if (!bench)
        return;
    for (size_t i = 0; i < bench->count; i++)
        if (bench->results[i].def.release)
            bench->results[i].def.release(bench->results[i].def.ctx);
    basalt_free(bench->results);
    basalt_free(bench->ref_ns);
    basalt_arena_reset(&bench->strings);
    basalt_free(bench);
}

static const char *bench_copy(struct basalt_bench *bench, const char *s)
{
    return basalt_arena_strndup(&bench->strings, s ? s : "", s ? strlen(s) : 0);
}

static basalt_status bench_add_owned(struct basalt_bench *bench, const struct basalt_bench_case *c,
                                     struct basalt_error *err)
{
    if (!c->name || !c->name[0] || !c->run)
        return basalt_error_set(err, BASALT_INVALID_ARG, "bench: a benchmark needs a name and a body");
    for (size_t i = 0; i < bench->count; i++)
        if (strcmp(bench->results[i].def.name, c->name) == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "bench: '%s' is registered twice",
                                    c->name);
    if (bench->count == bench->cap) {
        size_t cap = bench->cap ? bench->cap * 2 : 32;
        struct basalt_bench_result *grown = basalt_realloc(bench->results, cap * sizeof *grown);
        if (!grown)
            return basalt_error_set(err, BASALT_NOMEM, "bench: out of memory");
        bench->results = grown;
        bench->cap = cap;
    }
    struct basalt_bench_case def = *c;
    def.name = bench_copy(bench, c->name);
    def.group = bench_copy(bench, c->group);
    def.peer = bench_copy(bench, c->peer);
    if (!def.name || !def.group || !def.peer)
        return basalt_error_set(err, BASALT_NOMEM, "bench: out of memory");
    if (def.threads <= 0)
        def.threads = 1;
    struct basalt_bench_result *r = &bench->results[bench->count++];
    memset(r, 0, sizeof *r);
    r->def = def;
    r->selected = true;
    r->baseline = -1;
    return BASALT_OK;
}

basalt_status basalt_bench_add(struct basalt_bench *bench, const struct basalt_bench_case *c,
                               struct basalt_error *err)
{
    basalt_status st = bench_add_owned(bench, c, err);
    if (st != BASALT_OK && c->release)
        c->release(c->ctx);
    return st;
}

bool basalt_bench_matches(const char *name, const char *pattern)
{
    if (pattern[0] == '=')
        return strcmp(name, pattern + 1) == 0;
    return strstr(name, pattern) != NULL;
}

basalt_status basalt_bench_select(struct basalt_bench *bench, const char *const *patterns,
                                  size_t count, size_t *selected, struct basalt_error *err)
{
    for (size_t p = 0; p < count; p++) {
        bool any = false;
        for (size_t i = 0; i < bench->count && !any; i++)
            any = basalt_bench_matches(bench->results[i].def.name, patterns[p]);
        if (!any)
            return basalt_error_set(err, BASALT_NOT_FOUND, "no benchmark matches '%s'",
                                    patterns[p]);
    }
    size_t n = 0;
    for (size_t i = 0; i < bench->count; i++) {
        bool on = count == 0;
        for (size_t p = 0; p < count && !on; p++)
            on = basalt_bench_matches(bench->results[i].def.name, patterns[p]);
        bench->results[i].selected = on;
        n += on;
    }
    if (selected)
        *selected = n;
    return BASALT_OK;
}

size_t basalt_bench_count(const struct basalt_bench *bench) { return bench->count; }

const struct basalt_bench_result *basalt_bench_result_at(const struct basalt_bench *bench, size_t i)
{
    return i < bench->count ? &bench->results[i] : NULL;
}

const struct basalt_bench_summary *basalt_bench_summary_of(const struct basalt_bench *bench)
{
    return &bench->summary;
}

/* ------------------------------------------------------------------ running */

/* Where one member of the unit being run stands. */
struct bench_member {
    bool set_up;
    bool active;     /* set up, calibrated and not failed */
    double sample_ns; /* calibrated sample length */
};

/* State of one run, shared by the units. */
struct bench_run {
    struct basalt_bench *bench;
    struct bench_member *state; /* one per member of the current unit */
    double target_ns;
    double budget_ns;
    FILE *progress;
    double load_max;
    basalt_status first_failure;
    struct basalt_error *err;
};

static void bench_fail(struct bench_run *run, struct basalt_bench_result *r, const char *stage,
                       basalt_status status, const struct basalt_error *why)
{
    r->ran = false;
    if (status == BASALT_OK)
        status = BASALT_INTERNAL;
    basalt_error_set(&r->error, status, "%s: %s", stage,
                     why->message[0] ? why->message : basalt_status_name(status));
    if (run->first_failure == BASALT_OK) {
        run->first_failure = r->error.status;
        basalt_error_set(run->err, r->error.status, "%s: %s", r->def.name, r->error.message);
    }
}

static void bench_note_load(struct bench_run *run)
{
    double load = basalt_bench_load_average();
    if (load > run->load_max)
        run->load_max = load;
}

static size_t bench_sample_count(double budget_ns, double sample_ns)
{
    double n = sample_ns > 0.0 ? floor(budget_ns / sample_ns) : BASALT_BENCH_SAMPLES_MAX;
    if (n < BASALT_BENCH_SAMPLES_MIN)
        return BASALT_BENCH_SAMPLES_MIN;
    if (n > BASALT_BENCH_SAMPLES_MAX)
        return BASALT_BENCH_SAMPLES_MAX;
    return (size_t)n;
}

static void bench_finish(struct basalt_bench_result *r, double *samples, size_t n)
{
    basalt_bench_stats_compute(samples, n, &r->ns);
    r->ran = true;
    double p50_s = r->ns.p50 * 1e-9;
    r->mb_per_s = r->def.bytes_per_iter > 0.0 && p50_s > 0.0 ? r->def.bytes_per_iter / p50_s / 1e6
                                                              : 0.0;
    r->items_per_s = r->def.items_per_iter > 0.0 && p50_s > 0.0 ? r->def.items_per_iter / p50_s
                                                                : 0.0;
}

/* Runs the members m[0..k) of one unit with their samples interleaved.
 * Only NOMEM of the harness itself stops the run. */
static basalt_status bench_run_unit(struct bench_run *run, const size_t *m, size_t k)
{
    struct basalt_bench_result *res = run->bench->results;
    struct bench_member *state = run->state;
    double longest = 0.0;
    for (size_t j = 0; j < k; j++) {
        struct basalt_bench_result *r = &res[m[j]];
        struct basalt_error e;
        basalt_error_init(&e);
        state[j] = (struct bench_member){0};
        basalt_status st = r->def.setup ? r->def.setup(r->def.ctx, &e) : BASALT_OK;
        if (st != BASALT_OK) {
            bench_fail(run, r, "setup", st, &e);
            continue;
        }
        state[j].set_up = true;
        st = basalt_bench_calibrate(r->def.run, r->def.ctx, run->target_ns, &r->iters,
                                    &state[j].sample_ns, &e);
        if (st != BASALT_OK) {
            bench_fail(run, r, "calibrate", st, &e);
            continue;
        }
        state[j].active = true;
        if (state[j].sample_ns > longest)
            longest = state[j].sample_ns;
    }
    size_t n = bench_sample_count(run->budget_ns, longest);
    double *samples = basalt_malloc(k * n * sizeof *samples);
    basalt_status st = BASALT_OK;
    if (!samples) {
        st = basalt_error_set(run->err, BASALT_NOMEM, "bench: out of memory for samples");
        n = 0;
    }
    for (size_t s = 0; s < n; s++) {
        for (size_t step = 0; step < k; step++) {
            /* A B, B A, A B, ...: each member in turn goes first and last. */
            size_t j = s % 2 == 0 ? step : k - 1 - step;
            if (!state[j].active)
                continue;
            struct basalt_bench_result *r = &res[m[j]];
            struct basalt_error e;
            basalt_error_init(&e);
            uint64_t t0 = basalt_bench_now_ns();
            basalt_status body = r->def.run(r->def.ctx, r->iters, &e);
            uint64_t t1 = basalt_bench_now_ns();
            if (body != BASALT_OK) {
                bench_fail(run, r, "run", body, &e);
                state[j].active = false;
                continue;
            }
            samples[j * n + s] = (double)(t1 - t0) / (double)r->iters;
        }
    }
    for (size_t j = 0; j < k; j++) {
        struct basalt_bench_result *r = &res[m[j]];
        if (state[j].set_up && r->def.teardown)
            r->def.teardown(r->def.ctx);
        if (state[j].active && n > 0)
            bench_finish(r, samples + j * n, n);
    }
    basalt_free(samples);
    if (run->progress) {
        for (size_t j = 0; j < k; j++)
            basalt_bench_print_result(run->bench, &res[m[j]], run->progress);
        fflush(run->progress);
    }
    return st;
}

/* Times result i again with the iteration and sample counts of its run. */
static double bench_retime(struct bench_run *run, size_t i)
{
    struct basalt_bench_result *r = &run->bench->results[i];
    if (r->def.setup && r->def.setup(r->def.ctx, NULL) != BASALT_OK)
        return 0.0;
    size_t n = r->ns.count;
    double *samples = basalt_malloc(n * sizeof *samples);
    bool ok = samples != NULL;
    for (size_t s = 0; s < n && ok; s++) {
        uint64_t t0 = basalt_bench_now_ns();
        ok = r->def.run(r->def.ctx, r->iters, NULL) == BASALT_OK;
        uint64_t t1 = basalt_bench_now_ns();
        samples[s] = (double)(t1 - t0) / (double)r->iters;
    }
    if (r->def.teardown)
        r->def.teardown(r->def.ctx);
    double p50 = 0.0;
    if (ok) {
        struct basalt_bench_stats stats;
        basalt_bench_stats_compute(samples, n, &stats);
        p50 = stats.p50;
    }
    basalt_free(samples);
    return p50;
}

static bool bench_same_group(const struct basalt_bench_result *a, const struct basalt_bench_result *b)
{
    return a->def.group[0] && strcmp(a->def.group, b->def.group) == 0;
}

static void bench_link_baselines(struct basalt_bench *bench)
{
    for (size_t i = 0; i < bench->count; i++) {
        struct basalt_bench_result *r = &bench->results[i];
        if (!r->ran || !r->def.group[0])
            continue;
        for (size_t b = 0; b < i; b++) {
            const struct basalt_bench_result *base = &bench->results[b];
            if (base->selected && bench_same_group(base, r)) {
                if (base->ran && base->ns.p50 > 0.0) {
                    r->baseline = (ptrdiff_t)b;
                    r->ratio = r->ns.p50 / base->ns.p50;
                }
                break;
            }
        }
    }
}

basalt_status basalt_bench_run(struct basalt_bench *bench,
                               const struct basalt_bench_options *options,
                               struct basalt_error *err)
{
    struct basalt_bench_options defaults;
    if (!options) {
        basalt_bench_options_init(&defaults);
        options = &defaults;
    }
    double time_s = options->time_s == 0.0 ? BASALT_BENCH_TIME_DEFAULT : options->time_s;
    double min_ns = options->sample_min_ns == 0.0 ? BASALT_BENCH_SAMPLE_MIN_NS
                                                  : options->sample_min_ns;
    if (!(time_s > 0.0 && time_s <= 3600.0))
        return basalt_error_set(err, BASALT_INVALID_ARG, "bench: time %g s is out of range",
                                options->time_s);
    if (!(min_ns > 0.0 && min_ns <= 60e9))
        return basalt_error_set(err, BASALT_INVALID_ARG, "bench: sample length %g ns is out of range",
                                options->sample_min_ns);

    size_t slots = bench->count ? bench->count : 1;
    size_t *members = basalt_malloc(slots * sizeof *members);
    bool *done = basalt_calloc(slots, sizeof *done);
    struct bench_member *state = basalt_malloc(slots * sizeof *state);
    double *ref = basalt_malloc((bench->count + 2) * sizeof *ref);
    if (!members || !done || !state || !ref) {
        basalt_free(members);
        basalt_free(done);
        basalt_free(state);
        basalt_free(ref);
        return basalt_error_set(err, BASALT_NOMEM, "bench: out of memory");
    }
    basalt_free(bench->ref_ns);
    bench->ref_ns = ref;
    memset(&bench->summary, 0, sizeof bench->summary);
    for (size_t i = 0; i < bench->count; i++) {
        struct basalt_bench_result *r = &bench->results[i];
        r->ran = false;
        basalt_error_init(&r->error);
        r->iters = 0;
        r->ns = (struct basalt_bench_stats){0};
        r->mb_per_s = r->items_per_s = r->ratio = 0.0;
        r->baseline = -1;
    }

    struct basalt_bench_summary *sum = &bench->summary;
    sum->clock_resolution_ns = basalt_bench_clock_resolution_ns();
    sum->sample_target_ns = fmax(min_ns, sum->clock_resolution_ns * BASALT_BENCH_SAMPLE_TICKS);
    sum->time_s = time_s;
    basalt_bench_limits_init(&sum->limits);

    struct bench_run run = {
        .bench = bench,
        .state = state,
        .target_ns = sum->sample_target_ns,
        .budget_ns = time_s * 1e9,
        .progress = options->progress,
        .load_max = -1.0,
        .first_failure = BASALT_OK,
        .err = err,
    };
    if (run.progress)
        basalt_bench_print_header(bench, run.progress);

    size_t nref = 0;
    basalt_status st = BASALT_OK;
    ref[nref++] = basalt_bench_reference_ns();
    bench_note_load(&run);
    ptrdiff_t first = -1;
    for (size_t i = 0; i < bench->count && st == BASALT_OK; i++) {
        if (!bench->results[i].selected || done[i])
            continue;
        size_t k = 0;
        for (size_t j = i; j < bench->count; j++) {
            struct basalt_bench_result *r = &bench->results[j];
            if (r->selected && !done[j] && (j == i || bench_same_group(&bench->results[i], r))) {
                members[k++] = j;
                done[j] = true;
            }
        }
        st = bench_run_unit(&run, members, k);
        ref[nref++] = basalt_bench_reference_ns();
        bench_note_load(&run);
        for (size_t j = 0; j < k && first < 0; j++)
            if (bench->results[members[j]].ran)
                first = (ptrdiff_t)members[j];
    }
    basalt_free(members);
    basalt_free(done);
    basalt_free(state);
    if (st != BASALT_OK)
        return st;

    sum->machine.ref_ns = ref;
    sum->machine.ref_count = nref;
    sum->machine.cpus = basalt_bench_cpu_count();
    if (first >= 0) {
        sum->first_name = bench->results[first].def.name;
        sum->machine.first_ns = bench->results[first].ns.p50;
        sum->machine.first_again_ns = bench_retime(&run, (size_t)first);
        bench_note_load(&run);
    }
    sum->machine.load_avg = run.load_max;
    basalt_bench_verdict_compute(&sum->machine, &sum->limits, &sum->verdict);
    bench_link_baselines(bench);
    sum->ran = true;
    return run.first_failure;
}
