/* Reading flat.parquet (1,000,000 rows: int64, double and two dictionary
 * string columns, uncompressed, 4 row groups; see bench/peers/gen_flat.mjs)
 * and flat_zstd.parquet (the same rows, ZSTD) into Arrow memory, at 1 and 2
 * threads. One iteration opens the file,
 * decodes its footer and every column of every row group (strings
 * materialised, as DuckDB's and Polars' reads do) and frees it all, the work
 * the peer legs in bench/peers/parquet_read_leg.mjs time; bench/parquet_read.sh
 * runs both side by side.
 *
 * The file is found in $BASALT_BENCH_DATA, else $HOME/.cache/basalt-peers/data
 * (where ../shared/peers/gen_fixtures.mjs writes it). Without a file its
 * benchmarks are not registered. Setup checks the layout (4 x 250,000 rows,
 * the four columns, the file's codec) and, once, the decoded strings against
 * flat.fingerprint when gen_flat.mjs wrote one. It also tells glibc's malloc to
 * keep freed memory (mallopt), for this process: see pqr_setup. */
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>

#include "basalt/bench.h"
#include "basalt/parquet.h"

basalt_status bench_parquet_read_register(struct basalt_bench *bench, struct basalt_error *err);

struct pqr_bench {
    char path[4096];
    char fingerprint[4096];
    enum basalt_parquet_compression_codec codec;
    int threads;
    struct basalt_pool *pool;
    int64_t rows;
};

/* Opens, reads every column, frees; *rows and *string_bytes (NULL allowed)
 * receive what was decoded. */
static basalt_status read_once(struct pqr_bench *b, int64_t *rows, int64_t *string_bytes,
                               struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    basalt_status st = basalt_parquet_reader_open_file(b->path, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.pool = b->pool;
    o.batch_size = 0;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_arrow_batches batches;
    basalt_arrow_batches_init(&batches);
    st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_read_all(scan, &batches, err);
    }
    int64_t n = 0, bytes = 0;
    for (int64_t i = 0; st == BASALT_OK && i < batches.n; i++) {
        const struct ArrowArray *a = &batches.arrays[i];
        n += a->length;
        for (int64_t c = 2; c < a->n_children && c < 4; c++) {
            const struct ArrowArray *s = a->children[c];
            const int32_t *off = s->buffers[1];
            bytes += off[s->offset + s->length] - off[s->offset];
        }
    }
    if (rows)
        *rows = n;
    if (string_bytes)
        *string_bytes = bytes;
    basalt_arrow_batches_reset(&batches);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

static basalt_status check_layout(struct pqr_bench *b, struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    basalt_status st = basalt_parquet_reader_open_file(b->path, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    static const char *names[] = {"i64", "f64", "s100", "s10k"};
    bool ok = md->num_row_groups == 4 && basalt_parquet_reader_num_columns(r) == 4;
    for (size_t g = 0; ok && g < md->num_row_groups; g++) {
        ok = md->row_groups[g].num_rows == 250000;
        for (int32_t c = 0; ok && c < 4; c++)
            ok = md->row_groups[g].columns[c].meta_data.codec == (int32_t)b->codec;
    }
    for (int32_t c = 0; ok && c < 4; c++) {
        struct basalt_parquet_column_info info;
        ok = basalt_parquet_reader_column(r, c, &info, NULL) == BASALT_OK &&
             strcmp(info.path, names[c]) == 0;
    }
    basalt_parquet_reader_close(r);
    if (!ok)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%s: not the flat.parquet layout (4 x 250000 rows of i64, f64, "
                                "s100, s10k, codec %d)",
                                b->path, (int)b->codec);
    return BASALT_OK;
}

static basalt_status pqr_setup(void *ctx, struct basalt_error *err)
{
    struct pqr_bench *b = ctx;
#ifdef __GLIBC__
    /* Keep freed memory for the next read, as the peers' allocators do
     * (glibc would return it and fault it in again: a third of a read). */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    basalt_status st = check_layout(b, err);
    if (st == BASALT_OK && b->threads > 1)
        st = basalt_pool_new(b->threads - 1, &b->pool, err);
    int64_t rows = 0, bytes = 0;
    if (st == BASALT_OK)
        st = read_once(b, &rows, &bytes, err);
    if (st != BASALT_OK)
        return st;
    b->rows = rows;
    FILE *f = fopen(b->fingerprint, "r");
    if (f) {
        long long want_rows = -1, len100 = -1, len10k = -1;
        if (fscanf(f, "rows %lld len_s100 %lld len_s10k %lld", &want_rows, &len100, &len10k) != 3)
            want_rows = -1;
        fclose(f);
        if (want_rows != rows || len100 + len10k != bytes)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "%s: decoded %lld rows and %lld string bytes; the fingerprint "
                                    "says %lld and %lld",
                                    b->path, (long long)rows, (long long)bytes, want_rows,
                                    len100 + len10k);
    }
    return BASALT_OK;
}

static void pqr_teardown(void *ctx)
{
    struct pqr_bench *b = ctx;
    basalt_pool_free(b->pool);
    b->pool = NULL;
}

static basalt_status pqr_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct pqr_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = read_once(b, NULL, NULL, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void pqr_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_parquet_read_register(struct basalt_bench *bench, struct basalt_error *err)
{
    char dir[2048];
    const char *env = getenv("BASALT_BENCH_DATA");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        snprintf(dir, sizeof dir, "%s/.cache/basalt-peers/data", home ? home : ".");
    static const struct {
        const char *file;
        enum basalt_parquet_compression_codec codec;
        const char *group;
        const char *names[2];
    } files[] = {
        {"flat.parquet", BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED, "parquet/read/flat",
         {"parquet/read/flat/1t", "parquet/read/flat/2t"}},
        {"flat_zstd.parquet", BASALT_PARQUET_COMPRESSION_CODEC_ZSTD, "parquet/read/flat_zstd",
         {"parquet/read/flat_zstd/1t", "parquet/read/flat_zstd/2t"}},
    };
    static const int threads[] = {1, 2};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[2100];
        snprintf(path, sizeof path, "%s/%s", dir, files[f].file);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue; /* no fixture: node bench/peers/gen_flat.mjs DIR makes them */
        for (int k = 0; k < 2; k++) {
            struct pqr_bench *b = basalt_calloc(1, sizeof *b);
            if (!b)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            snprintf(b->path, sizeof b->path, "%s", path);
            snprintf(b->fingerprint, sizeof b->fingerprint, "%s/flat.fingerprint", dir);
            b->codec = files[f].codec;
            b->threads = threads[k];
            struct basalt_bench_case c = {
                .name = files[f].names[k],
                .group = files[f].group,
                .peer = "basalt",
                .run = pqr_run,
                .setup = pqr_setup,
                .teardown = pqr_teardown,
                .release = pqr_release,
                .ctx = b,
                .bytes_per_iter = (double)sb.st_size,
                .items_per_iter = 1e6,
                .threads = threads[k],
            };
            basalt_status st = basalt_bench_add(bench, &c, err);
            if (st != BASALT_OK)
                return st; /* b is the bench's now, released with it */
        }
    }
    return BASALT_OK;
}
