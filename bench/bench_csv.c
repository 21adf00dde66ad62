/* Reading wide.csv (1,000,000 rows + header, 8 columns: id int64, qty
 * integer, price and ratio doubles, code, city and the quoted note with a
 * comma, flag boolean; 54.7 MB; see bench/peers/gen_wide_csv.mjs) into Arrow
 * memory, at 1 and 2 threads. One iteration opens the file (mapped), sniffs
 * the dialect, the header and the types from the first 20,480 records,
 * parses every record into Arrow batches and frees them: the work of
 * DuckDB's `SELECT * FROM read_csv('wide.csv')` (materialised, sniffer
 * included) and Polars' `readCSV` that bench/csv_read.sh times beside it.
 *
 * The file is found in $BASALT_BENCH_DATA, else $HOME/.cache/basalt-peers/data.
 * Without it the benchmarks are not registered. Setup checks the sniffed
 * types (int64, int64, double, double, string x3, bool) and, once, the
 * values against wide.fingerprint (rows, sums of id and qty, summed note
 * lengths, true flags, as DuckDB reads them). */
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>

#include "basalt/bench.h"
#include "basalt/csv.h"

basalt_status bench_csv_register(struct basalt_bench *bench, struct basalt_error *err);

struct csvb {
    char path[4096];
    char fingerprint[4096];
    int threads;
    struct basalt_pool *pool;
};

struct wide_sums {
    int64_t rows, sum_id, sum_qty, len_note, true_flag;
};

static basalt_status read_once(struct csvb *b, struct wide_sums *sums, struct basalt_error *err)
{
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.pool = b->pool;
    struct basalt_csv_reader *r = NULL;
    basalt_status st = basalt_csv_reader_open_file(b->path, &o, &r, err);
    if (st != BASALT_OK)
        return st;
    static const enum basalt_csv_type want[] = {
        BASALT_CSV_TYPE_INT64,  BASALT_CSV_TYPE_INT64,  BASALT_CSV_TYPE_DOUBLE,
        BASALT_CSV_TYPE_DOUBLE, BASALT_CSV_TYPE_STRING, BASALT_CSV_TYPE_STRING,
        BASALT_CSV_TYPE_STRING, BASALT_CSV_TYPE_BOOL};
    bool ok = basalt_csv_reader_num_columns(r) == 8;
    for (int32_t c = 0; ok && c < 8; c++)
        ok = basalt_csv_reader_column_type(r, c)->type == want[c];
    if (!ok) {
        basalt_csv_reader_close(r);
        return basalt_error_set(err, BASALT_CORRUPT, "%s: not the wide.csv columns", b->path);
    }
    struct wide_sums s = {0};
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_csv_reader_next(r, &a, err);
        if (st != BASALT_OK || !a.release)
            break;
        if (sums) {
            const int64_t *id = a.children[0]->buffers[1], *qty = a.children[1]->buffers[1];
            const int32_t *note = a.children[6]->buffers[1];
            const uint8_t *flag = a.children[7]->buffers[1];
            for (int64_t i = 0; i < a.length; i++) {
                s.sum_id += id[i];
                s.sum_qty += qty[i];
                s.true_flag += (flag[i >> 3] >> (i & 7)) & 1;
            }
            s.len_note += note[a.length] - note[0];
        }
        s.rows += a.length;
        basalt_arrow_array_release(&a);
    }
    if (sums)
        *sums = s;
    basalt_csv_reader_close(r);
    return st;
}

static basalt_status csvb_setup(void *ctx, struct basalt_error *err)
{
    struct csvb *b = ctx;
#ifdef __GLIBC__
    /* Keep freed memory for the next read, as the peers' allocators do. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    basalt_status st = BASALT_OK;
    if (b->threads > 1)
        st = basalt_pool_new(b->threads - 1, &b->pool, err);
    struct wide_sums got = {0};
    if (st == BASALT_OK)
        st = read_once(b, &got, err);
    if (st != BASALT_OK)
        return st;
    FILE *f = fopen(b->fingerprint, "r");
    if (f) {
        long long w[5] = {-1, -1, -1, -1, -1};
        if (fscanf(f, "rows %lld sum_id %lld sum_qty %lld len_note %lld true_flag %lld", &w[0],
                   &w[1], &w[2], &w[3], &w[4]) != 5)
            w[0] = -1;
        fclose(f);
        if (w[0] != got.rows || w[1] != got.sum_id || w[2] != got.sum_qty ||
            w[3] != got.len_note || w[4] != got.true_flag)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "%s: parsed rows %lld, sums %lld %lld %lld %lld; the "
                                    "fingerprint says %lld, %lld %lld %lld %lld",
                                    b->path, (long long)got.rows, (long long)got.sum_id,
                                    (long long)got.sum_qty, (long long)got.len_note,
                                    (long long)got.true_flag, w[0], w[1], w[2], w[3], w[4]);
    }
    return BASALT_OK;
}

static void csvb_teardown(void *ctx)
{
    struct csvb *b = ctx;
    basalt_pool_free(b->pool);
    b->pool = NULL;
}

static basalt_status csvb_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct csvb *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = read_once(b, NULL, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void csvb_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_csv_register(struct basalt_bench *bench, struct basalt_error *err)
{
    char dir[2048];
    const char *env = getenv("BASALT_BENCH_DATA");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        snprintf(dir, sizeof dir, "%s/.cache/basalt-peers/data", home ? home : ".");
    char path[2100];
    snprintf(path, sizeof path, "%s/wide.csv", dir);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return BASALT_OK; /* no fixture: node bench/peers/gen_wide_csv.mjs DIR makes it */
    static const int threads[] = {1, 2};
    static const char *const names[] = {"csv/read/wide/1t", "csv/read/wide/2t"};
    for (int k = 0; k < 2; k++) {
        struct csvb *b = basalt_calloc(1, sizeof *b);
        if (!b)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        snprintf(b->path, sizeof b->path, "%s", path);
        snprintf(b->fingerprint, sizeof b->fingerprint, "%s/wide.fingerprint", dir);
        b->threads = threads[k];
        struct basalt_bench_case c = {
            .name = names[k],
            .group = "csv/read/wide",
            .peer = "basalt",
            .run = csvb_run,
            .setup = csvb_setup,
            .teardown = csvb_teardown,
            .release = csvb_release,
            .ctx = b,
            .bytes_per_iter = (double)sb.st_size,
            .items_per_iter = 1e6,
            .threads = threads[k],
        };
        basalt_status st = basalt_bench_add(bench, &c, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
