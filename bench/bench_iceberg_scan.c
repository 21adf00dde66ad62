/* Iceberg scans and planning over the tables of bench/peers/gen_iceberg.mjs:
 *
 *   iceberg/scan/scan1m/{1t,2t}  1,000,000 rows, six columns, four ZSTD files
 *   iceberg/scan/scan2m/{1t,2t}  2,000,000 rows in eight files
 *   iceberg/plan/500x4           500 manifests of 4 entries: planning alone
 *                                (the metadata loaded once, in setup)
 *   iceberg/load+plan/500x4      the same with the metadata load (its JSON
 *                                holds the 500 snapshots)
 *
 * One scan iteration loads the table metadata, plans, reads every column of
 * every file into Arrow batches through the scan's stream and frees it all:
 * the work the peer legs of bench/peers/iceberg_read_leg.mjs time
 * (bench/iceberg_scan.sh runs them side by side). One planning iteration
 * reads the manifest list and the 500 manifests and plans.
 *
 * The tables are found in $BASALT_BENCH_ICEBERG, else
 * $HOME/.cache/basalt-peers/iceberg; without them the benchmarks are not
 * registered. Setup checks the layout (row count, tasks, manifests). */
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>

#include "basalt/bench.h"
#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_scan.h"

basalt_status bench_iceberg_register(struct basalt_bench *bench, struct basalt_error *err);

struct ice_bench {
    char dir[4096];
    int threads;
    bool plan_only;
    bool keep_table;                     /* load the metadata once, in setup */
    int64_t want_rows;
    uint32_t want_tasks;
    uint32_t want_manifests;
    struct basalt_pool *pool;
    struct basalt_iceberg_table *table;  /* keep_table: the loaded table */
};

static basalt_status scan_once(struct ice_bench *b, int64_t *rows, uint32_t *tasks,
                               uint32_t *manifests, struct basalt_error *err)
{
    struct basalt_iceberg_table *table = b->table;
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowArrayStream stream;
    stream.release = NULL;
    basalt_status st = BASALT_OK;
    if (!table)
        st = basalt_iceberg_table_load(b->dir, NULL, &table, err);
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.pool = b->pool;
    o.num_workers = b->threads;
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_new(table, &o, &scan, err);
    const struct basalt_iceberg_plan *plan = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_plan(scan, &plan, err);
    if (st == BASALT_OK && tasks)
        *tasks = plan->n_tasks;
    if (st == BASALT_OK && manifests)
        *manifests = plan->manifests_total;
    int64_t n = 0;
    if (st == BASALT_OK && !b->plan_only) {
        st = basalt_iceberg_scan_stream(scan, &stream, err);
        while (st == BASALT_OK) {
            struct ArrowArray batch;
            if (stream.get_next(&stream, &batch) != 0) {
                st = basalt_error_set(err, BASALT_IO, "%s", stream.get_last_error(&stream));
                break;
            }
            if (batch.release == NULL)
                break;
            n += batch.length;
            batch.release(&batch);
        }
        basalt_arrow_stream_release(&stream);
    }
    basalt_iceberg_scan_free(scan);
    if (table != b->table)
        basalt_iceberg_table_free(table);
    if (rows)
        *rows = n;
    return st;
}

static basalt_status ice_setup(void *ctx, struct basalt_error *err)
{
    struct ice_bench *b = ctx;
#ifdef __GLIBC__
    /* keep freed memory for the next iteration, as the peers' allocators do */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    basalt_status st = BASALT_OK;
    if (b->threads > 1)
        st = basalt_pool_new(b->threads - 1, &b->pool, err);
    if (st == BASALT_OK && b->keep_table)
        st = basalt_iceberg_table_load(b->dir, NULL, &b->table, err);
    int64_t rows = 0;
    uint32_t tasks = 0, manifests = 0;
    if (st == BASALT_OK)
        st = scan_once(b, &rows, &tasks, &manifests, err);
    if (st != BASALT_OK)
        return st;
    if ((!b->plan_only && (rows != b->want_rows || tasks != b->want_tasks)) ||
        (b->plan_only && manifests != b->want_manifests))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%s: %lld rows, %u tasks, %u manifests: not the layout of gen_iceberg.mjs",
                                b->dir, (long long)rows, tasks, manifests);
    return BASALT_OK;
}

static void ice_teardown(void *ctx)
{
    struct ice_bench *b = ctx;
    basalt_iceberg_table_free(b->table);
    b->table = NULL;
    basalt_pool_free(b->pool);
    b->pool = NULL;
}

static basalt_status ice_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct ice_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = scan_once(b, NULL, NULL, NULL, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void ice_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_iceberg_register(struct basalt_bench *bench, struct basalt_error *err)
{
    char dir[2048];
    const char *env = getenv("BASALT_BENCH_ICEBERG");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        snprintf(dir, sizeof dir, "%s/.cache/basalt-peers/iceberg", home ? home : ".");
    static const struct {
        const char *table;
        const char *group;
        const char *names[2];
        int64_t rows;
        uint32_t tasks, manifests;
        bool plan_only;
        bool keep_table;
        int n_threads;
    } cases[] = {
        {"scan1m", "iceberg/scan/scan1m", {"iceberg/scan/scan1m/1t", "iceberg/scan/scan1m/2t"}, 1000000, 4, 0, false, false, 2},
        {"scan2m", "iceberg/scan/scan2m", {"iceberg/scan/scan2m/1t", "iceberg/scan/scan2m/2t"}, 2000000, 8, 0, false, false, 2},
        {"planning", "", {"iceberg/plan/500x4", NULL}, 0, 0, 500, true, true, 1},
        {"planning", "", {"iceberg/load+plan/500x4", NULL}, 0, 0, 500, true, false, 1},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        char path[2100];
        snprintf(path, sizeof path, "%s/%s/metadata", dir, cases[t].table);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue; /* no table: node bench/peers/gen_iceberg.mjs DIR makes them */
        for (int k = 0; k < cases[t].n_threads; k++) {
            struct ice_bench *b = basalt_calloc(1, sizeof *b);
            if (!b)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            snprintf(b->dir, sizeof b->dir, "%s/%s", dir, cases[t].table);
            b->threads = k + 1;
            b->plan_only = cases[t].plan_only;
            b->keep_table = cases[t].keep_table;
            b->want_rows = cases[t].rows;
            b->want_tasks = cases[t].tasks;
            b->want_manifests = cases[t].manifests;
            struct basalt_bench_case c = {
                .name = cases[t].names[k],
                .group = cases[t].group,
                .peer = "basalt",
                .run = ice_run,
                .setup = ice_setup,
                .teardown = ice_teardown,
                .release = ice_release,
                .ctx = b,
                .items_per_iter = cases[t].plan_only ? 2000 : (double)cases[t].rows,
                .threads = k + 1,
            };
            basalt_status st = basalt_bench_add(bench, &c, err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}
