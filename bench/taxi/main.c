/* basalt-taxibench: runs one taxibench query through the C API (a SQL
 * session over a catalog) as the benchmark's timing rules ask: one warm-up
 * run, then --repeat timed runs, each a fresh statement (table metadata
 * loaded, files planned, decoded, filtered, aggregated) plus the fold into
 * the result shape. Prints one JSON line: query, engine, threads, files,
 * rows_scanned, plan_ms, total_ms (p50), p90_ms, min_ms, runs, cold_ms (the
 * warm-up run), peak_rss_mb, result. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "basalt/bench.h"
#include "basalt/sql.h"
#include "taxibench.h"

#define MAX_REPEAT 1000

static double now_ms(void)
{
    return (double)basalt_bench_now_ns() / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank, index round(q (n - 1)), as the upstream summaries. */
static double percentile(const double *sorted, int n, double q)
{
    return sorted[(int)(q * (n - 1) + 0.5)];
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: basalt-taxibench --query NAME [options]\n"
            "       basalt-taxibench --print-sql NAME [--table TEXT]\n"
            "       basalt-taxibench --list\n\n"
            "Runs one of the eight taxibench queries (q1..q8) over an Iceberg table\n"
            "and prints one JSON line with its answer and timings.\n\n"
            "options:\n"
            "  --catalog URI   the table's catalog (default sqlite:./warehouse/catalog.db)\n"
            "  --table TEXT    the table, or any FROM item (default taxi.trips)\n"
            "  --threads N     workers (default 1)\n"
            "  --repeat N      timed runs after the warm-up (default 5)\n"
            "  --no-warmup     no warm-up run\n"
            "  --sql-dir DIR   where q1.sql .. q8.sql are (default the source tree's)\n");
}

struct options {
    const char *query, *print_sql, *catalog, *table, *sql_dir;
    int threads, repeat;
    bool warmup, list;
};

static int parse_args(int argc, char **argv, struct options *o)
{
    *o = (struct options){.catalog = "sqlite:./warehouse/catalog.db",
                          .table = "taxi.trips",
                          .sql_dir = BASALT_TAXI_SQL_DIR,
                          .threads = 1,
                          .repeat = 5,
                          .warmup = true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--list") == 0) {
            o->list = true;
        } else if (strcmp(a, "--no-warmup") == 0) {
            o->warmup = false;
        } else if (v == NULL) {
            fprintf(stderr, "basalt-taxibench: %s needs a value\n", a);
            return 2;
        } else if (strcmp(a, "--query") == 0) {
            o->query = argv[++i];
        } else if (strcmp(a, "--print-sql") == 0) {
            o->print_sql = argv[++i];
        } else if (strcmp(a, "--catalog") == 0) {
            o->catalog = argv[++i];
        } else if (strcmp(a, "--table") == 0) {
            o->table = argv[++i];
        } else if (strcmp(a, "--sql-dir") == 0) {
            o->sql_dir = argv[++i];
        } else if (strcmp(a, "--threads") == 0 || strcmp(a, "--repeat") == 0) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            bool threads = strcmp(a, "--threads") == 0;
            if (*end != '\0' || n < (threads ? 1 : 1) || n > (threads ? 256 : MAX_REPEAT)) {
                fprintf(stderr, "basalt-taxibench: bad %s '%s'\n", a, argv[i]);
                return 2;
            }
            *(threads ? &o->threads : &o->repeat) = (int)n;
        } else {
            fprintf(stderr, "basalt-taxibench: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!o->list && o->query == NULL && o->print_sql == NULL) {
        usage(stderr);
        return 2;
    }
    return 0;
}

struct run {
    double ms;
    char *result;
    long long count;
    struct basalt_sql_stats stats;
};

static basalt_status run_once(struct basalt_sql_session *s, const struct taxi_query *q,
                              const char *sql, struct run *r, struct basalt_error *err)
{
    struct basalt_arrow_batches rows;
    basalt_arrow_batches_init(&rows);
    double t0 = now_ms();
    basalt_status st = basalt_sql_session_run(s, sql, strlen(sql), &rows, err);
    if (st == BASALT_OK)
        st = taxi_fold_result(q, &rows, &r->result, &r->count, err);
    r->ms = now_ms() - t0;
    basalt_sql_session_last_stats(s, &r->stats);
    basalt_arrow_batches_reset(&rows);
    return st;
}

static void print_record(const struct taxi_query *q, const struct options *o, struct run *runs,
                         int n, double cold_ms)
{
    double sorted[MAX_REPEAT], plan[MAX_REPEAT];
    for (int i = 0; i < n; i++) {
        sorted[i] = runs[i].ms;
        plan[i] = runs[i].stats.plan_ms;
    }
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    qsort(plan, (size_t)n, sizeof *plan, cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const struct run *last = &runs[n - 1];
    printf("{\"query\":\"%s\",\"id\":\"%s\",\"title\":\"%s\",\"engine\":\"basalt\","
           "\"threads\":%d,\"files\":%lld,\"files_pruned\":%lld,\"rows_scanned\":%lld,"
           "\"plan_ms\":%.3f,\"total_ms\":%.3f,\"p90_ms\":%.3f,\"min_ms\":%.3f,\"runs\":[",
           q->name, q->id, q->title, o->threads, (long long)last->stats.scans.files,
           (long long)last->stats.scans.files_pruned, (long long)last->stats.scans.rows_scanned,
           percentile(plan, n, 0.5), percentile(sorted, n, 0.5), percentile(sorted, n, 0.9),
           sorted[0]);
    for (int i = 0; i < n; i++)
        printf("%s%.3f", i ? "," : "", runs[i].ms);
    printf("],\"repeat\":%d,\"cold_ms\":%.3f,\"peak_rss_mb\":%.1f,\"result\":%s}\n", n, cold_ms,
           (double)ru.ru_maxrss / 1024, last->result);
}

int main(int argc, char **argv)
{
    basalt_exec_with_huge_pages(argv); /* as the CLI: src/core/huge_pages.c */
    /* As the basalt CLI does: batches are megabytes each, allocated and
     * freed once per batch; glibc would give each back to the kernel and
     * fault its pages in again for the next. Keep them in the heap. */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    struct options o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc;
    if (o.list) {
        for (size_t i = 0; i < taxi_n_queries; i++)
            printf("%s\t%s\t%s\n", taxi_queries[i].name, taxi_queries[i].id,
                   taxi_queries[i].title);
        return 0;
    }
    const char *name = o.print_sql != NULL ? o.print_sql : o.query;
    const struct taxi_query *q = taxi_query_find(name);
    if (q == NULL) {
        fprintf(stderr, "basalt-taxibench: no query '%s' (--list shows them)\n", name);
        return 2;
    }
    char *sql = taxi_query_sql(q, o.sql_dir, o.table);
    if (sql == NULL)
        return 1;
    if (o.print_sql != NULL) {
        fputs(sql, stdout);
        free(sql);
        return 0;
    }

    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool = NULL;
    struct basalt_sql_session *s = NULL;
    struct run runs[MAX_REPEAT + 1];
    memset(runs, 0, sizeof runs);
    int n = 0;
    basalt_status st = BASALT_OK;
    if (o.threads > 1)
        st = basalt_pool_new(o.threads - 1, &pool, &err);
    if (st == BASALT_OK) {
        struct basalt_sql_options so;
        basalt_sql_options_init(&so);
        so.pool = pool;
        so.num_workers = o.threads;
        so.catalog_uri = o.catalog;
        st = basalt_sql_session_new(&so, &s, &err);
    }
    /* the first run meets cold caches (and, over object storage, fetches
     * what the store then keeps): reported as cold_ms beside the timed runs */
    double cold_ms = -1;
    if (st == BASALT_OK && o.warmup) {
        struct run warm = {0};
        st = run_once(s, q, sql, &warm, &err);
        cold_ms = warm.ms;
        free(warm.result);
    }
    for (; st == BASALT_OK && n < o.repeat; n++)
        st = run_once(s, q, sql, &runs[n], &err);
    if (st == BASALT_OK)
        print_record(q, &o, runs, n, cold_ms);
    else
        fprintf(stderr, "basalt-taxibench: %s: %s\n", q->name, err.message);
    for (int i = 0; i <= n && i < MAX_REPEAT; i++)
        free(runs[i].result);
    basalt_sql_session_free(s);
    basalt_pool_free(pool);
    free(sql);
    return st == BASALT_OK ? 0 : 1;
}
