/* basalt-bench: runs the project's C benchmarks on the harness of
 * basalt/bench.h. Each bench_<area>.c registers its benchmarks through the
 * suite table below. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/basalt.h"
#include "basalt/bench.h"

/* Defined by the bench_<area>.c files. */
basalt_status bench_core_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_codec_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_pool_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_parquet_encoding_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_parquet_read_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_parquet_footer_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_avro_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_csv_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_ipc_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_iceberg_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_iceberg_append_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_iceberg_commit_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_iceberg_compact_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_iceberg_delete_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_query_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_joinsort_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_agg_register(struct basalt_bench *bench, struct basalt_error *err);
basalt_status bench_window_register(struct basalt_bench *bench, struct basalt_error *err);

static const struct {
    const char *area;
    basalt_status (*add)(struct basalt_bench *bench, struct basalt_error *err);
} suites[] = {
    {"core", bench_core_register},
    {"codec", bench_codec_register},
    {"pool", bench_pool_register},
    {"parquet encoding", bench_parquet_encoding_register},
    {"parquet read", bench_parquet_read_register},
    {"parquet footer", bench_parquet_footer_register},
    {"avro", bench_avro_register},
    {"csv", bench_csv_register},
    {"ipc", bench_ipc_register},
    {"iceberg", bench_iceberg_register},
    {"iceberg append", bench_iceberg_append_register},
    {"iceberg commit", bench_iceberg_commit_register},
    {"iceberg compact", bench_iceberg_compact_register},
    {"iceberg delete", bench_iceberg_delete_register},
    {"query", bench_query_register},
    {"query join and sort", bench_joinsort_register},
    {"query agg", bench_agg_register},
    {"query window", bench_window_register},
};

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: basalt-bench [options]\n\n"
            "Runs basalt's benchmarks one at a time: iteration counts calibrated to the\n"
            "clock, p50 headline with p90 beside it (min only as a floor), throughput\n"
            "from p50, comparisons run side by side with interleaved samples, and a\n"
            "verdict on whether the machine was steady.\n\n"
            "options:\n"
            "  --list           list the benchmarks (those --only selects) and exit\n"
            "  --only PATTERN   run the benchmarks whose name contains PATTERN (a\n"
            "                   case-sensitive substring); '=NAME' matches NAME exactly.\n"
            "                   Repeatable: a benchmark runs if any pattern matches.\n"
            "                   Members of one comparison run together when all match.\n"
            "  --time SECONDS   seconds of samples per benchmark (default %.1f)\n"
            "  --json           print the results as JSON on stdout (progress on stderr)\n"
            "  --help           this text\n\n"
            "exit status: 0 ok, 1 a benchmark failed, 2 usage error\n",
            BASALT_BENCH_TIME_DEFAULT);
}

BASALT_PRINTF(1, 2)
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("basalt-bench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (try --help)\n", stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    basalt_exec_with_huge_pages(argv); /* as the CLI: src/core/huge_pages.c */
    bool list = false, json = false;
    double time_s = BASALT_BENCH_TIME_DEFAULT;
    const char **only = basalt_calloc((size_t)argc, sizeof *only);
    size_t only_count = 0;
    if (!only)
        return EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            basalt_free(only);
            return EXIT_OK;
        } else if (strcmp(a, "--list") == 0) {
            list = true;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--only") == 0 || strcmp(a, "--time") == 0) {
            if (i + 1 >= argc) {
                basalt_free(only);
                return usage_error("%s needs a value", a);
            }
            const char *v = argv[++i];
            if (a[2] == 'o') {
                if (!v[0] || strcmp(v, "=") == 0) {
                    basalt_free(only);
                    return usage_error("--only needs a non-empty pattern");
                }
                only[only_count++] = v;
            } else {
                char *end;
                errno = 0;
                time_s = strtod(v, &end);
                if (errno || end == v || *end || !(time_s > 0.0) || time_s > 3600.0) {
                    basalt_free(only);
                    return usage_error("--time wants seconds in (0, 3600], got '%s'", v);
                }
            }
        } else {
            basalt_free(only);
            return usage_error("unknown option '%s'", a);
        }
    }

    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_bench *bench = NULL;
    int rc = EXIT_OK;
    if (basalt_bench_new(&bench, &err) != BASALT_OK) {
        fprintf(stderr, "basalt-bench: %s\n", err.message);
        basalt_free(only);
        return EXIT_FAIL;
    }
    for (size_t s = 0; s < sizeof suites / sizeof suites[0]; s++) {
        if (suites[s].add(bench, &err) != BASALT_OK) {
            fprintf(stderr, "basalt-bench: %s benchmarks: %s: %s\n", suites[s].area,
                    basalt_status_name(err.status), err.message);
            rc = EXIT_FAIL;
            goto done;
        }
    }
    if (basalt_bench_select(bench, only, only_count, NULL, &err) != BASALT_OK) {
        fprintf(stderr, "basalt-bench: %s (try --list)\n", err.message);
        rc = EXIT_USAGE;
        goto done;
    }
    if (list) {
        basalt_bench_print_list(bench, stdout);
        goto done;
    }

    FILE *text = json ? stderr : stdout;
    fprintf(text, "basalt-bench %s; cpu: %s; %d cpus; %.2f s per benchmark\n", basalt_version(),
            basalt_cpu_describe(), basalt_bench_cpu_count(), time_s);
#ifndef __OPTIMIZE__
    fprintf(text, "warning: this basalt-bench is not optimised (a Debug build): its times say "
                  "little about release builds\n");
#endif
    struct basalt_bench_options opts;
    basalt_bench_options_init(&opts);
    opts.time_s = time_s;
    opts.progress = text;
    basalt_status st = basalt_bench_run(bench, &opts, &err);
    if (st == BASALT_NOMEM || basalt_bench_summary_of(bench)->ran == false) {
        fprintf(stderr, "basalt-bench: %s: %s\n", basalt_status_name(st), err.message);
        rc = EXIT_FAIL;
        goto done;
    }
    basalt_bench_print_summary(bench, text);
    if (json)
        basalt_bench_print_json(bench, stdout);
    if (st != BASALT_OK) {
        fprintf(stderr, "basalt-bench: a benchmark failed: %s: %s\n", basalt_status_name(st),
                err.message);
        rc = EXIT_FAIL;
    }

done:
    basalt_bench_free(bench);
    basalt_free(only);
    return rc;
}
