/* Iceberg append against writing the same rows as one Parquet file, both
 * from batches already in memory:
 *
 *   iceberg/append/taxi1m/{parquet,append}/{1t,2t}
 *     parquet  one Parquet file of the rows (our writer, the table's Arrow
 *              schema with field ids) in /dev/shm
 *     append   the table's data files (field ids, column metrics), one
 *              manifest, one manifest list, the next metadata file and the
 *              commit on a SQLite catalog in /dev/shm
 *
 * The rows are the 1,000,000 taxi-shaped rows of
 * $BASALT_BENCH_DATA/taxi-1000000.parquet (else
 * $HOME/.cache/basalt-peers/data; bench/iceberg_append.sh makes it), read
 * once in setup and conformed to the table's schema, so both legs write the
 * same batches. Files written by an iteration are deleted by it (an unlink
 * each), so the disk does not fill; the table's snapshots accumulate. */
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/bench.h"
#include "basalt/catalog.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"

basalt_status bench_iceberg_append_register(struct basalt_bench *bench, struct basalt_error *err);

struct append_bench {
    char input[2048];
    char dir[256];
    bool append; /* else one Parquet file */
    int threads;
    struct basalt_pool *pool;
    struct basalt_catalog *catalog;
    struct basalt_iceberg_table *table;
    struct ArrowSchema schema;          /* the table's, with field ids */
    struct basalt_arrow_batches rows;   /* conformed to it */
    uint64_t iteration;
};

/* Reads the input into batches conformed to the table's schema. */
static basalt_status load_rows(struct append_bench *b, struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct ArrowSchema src;
    memset(&src, 0, sizeof src);
    struct basalt_parquet_reader_options ro;
    basalt_parquet_reader_options_init(&ro);
    basalt_status st = basalt_parquet_reader_open_file(b->input, &ro, &r, err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_schema(scan, &src, err);
    }
    const struct basalt_iceberg_schema *schema =
        b->table ? basalt_iceberg_metadata_current_schema(b->table->metadata) : NULL;
    while (st == BASALT_OK) {
        struct ArrowArray batch, conformed;
        st = basalt_parquet_scan_next(scan, &batch, err);
        if (st != BASALT_OK || !batch.release)
            break;
        st = basalt_iceberg_conform_batch(schema, &src, &batch, &conformed, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(&b->rows, &conformed, err);
    }
    basalt_arrow_schema_release(&src);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

static basalt_status create_table(struct append_bench *b, struct basalt_error *err)
{
    char uri[300], *schema = NULL, *location = NULL, *updates = NULL;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct ArrowSchema src;
    memset(&src, 0, sizeof src);
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", b->dir);
    struct basalt_parquet_reader_options ro;
    basalt_parquet_reader_options_init(&ro);
    basalt_status st = basalt_parquet_reader_open_file(b->input, &ro, &r, err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_schema(scan, &src, err);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_from_arrow(&src, 2, &schema, err);
    if (st == BASALT_OK)
        st = basalt_catalog_open(uri, NULL, true, &b->catalog, err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(b->catalog, "bench.taxi", &location, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, NULL, NULL, 2, location, NULL, 0, &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(b->catalog, "bench.taxi", updates, &b->table, err);
    basalt_arrow_schema_release(&src);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    return st;
}

static basalt_status append_setup(void *ctx, struct basalt_error *err)
{
    struct append_bench *b = ctx;
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    snprintf(b->dir, sizeof b->dir, "/dev/shm/basalt-bench-append-%d-%s-%d", (int)getpid(),
             b->append ? "append" : "parquet", b->threads);
    basalt_arrow_batches_init(&b->rows);
    basalt_status st = b->threads > 1 ? basalt_pool_new(b->threads - 1, &b->pool, err) : BASALT_OK;
    if (st == BASALT_OK && mkdir(b->dir, 0777) != 0)
        st = basalt_error_set(err, BASALT_IO, "%s: cannot create", b->dir);
    if (st == BASALT_OK)
        st = create_table(b, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_to_arrow(basalt_iceberg_metadata_current_schema(b->table->metadata),
                                            &b->schema, err);
    if (st == BASALT_OK)
        st = load_rows(b, err);
    return st;
}

static void remove_dir(const char *dir)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static void append_teardown(void *ctx)
{
    struct append_bench *b = ctx;
    basalt_arrow_batches_reset(&b->rows);
    basalt_arrow_schema_release(&b->schema);
    basalt_iceberg_table_free(b->table);
    b->table = NULL;
    basalt_catalog_close(b->catalog);
    b->catalog = NULL;
    basalt_pool_free(b->pool);
    b->pool = NULL;
    remove_dir(b->dir);
}

static basalt_status write_parquet(struct append_bench *b, struct basalt_error *err)
{
    char path[400];
    snprintf(path, sizeof path, "%s/one.parquet", b->dir);
    struct basalt_parquet_writer_options wo;
    basalt_parquet_writer_options_init(&wo);
    wo.pool = b->pool;
    struct basalt_parquet_writer *w = NULL;
    basalt_status st = basalt_parquet_writer_open_file(path, &b->schema, &wo, &w, err);
    for (int64_t i = 0; st == BASALT_OK && i < b->rows.n; i++)
        st = basalt_parquet_writer_write(w, &b->rows.arrays[i], err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    basalt_parquet_writer_close(w);
    unlink(path);
    return st;
}

static basalt_status append_once(struct append_bench *b, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = b->table->metadata;
    char data[400], prefix[64];
    snprintf(data, sizeof data, "%s/data", m->location);
    snprintf(prefix, sizeof prefix, "00000-%llu", (unsigned long long)b->iteration++);
    struct basalt_iceberg_data_writer_options wo;
    basalt_iceberg_data_writer_options_init(&wo);
    wo.schema = basalt_iceberg_metadata_current_schema(m);
    wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
    wo.properties = m->properties;
    wo.n_properties = m->n_properties;
    wo.data_location = data;
    wo.file_prefix = prefix;
    wo.io = b->table->io;
    wo.pool = b->pool;
    struct basalt_iceberg_data_writer *w = NULL;
    const struct basalt_iceberg_data_file *files = NULL;
    uint32_t n = 0;
    basalt_status st = basalt_iceberg_data_writer_new(&wo, &w, err);
    for (int64_t i = 0; st == BASALT_OK && i < b->rows.n; i++)
        st = basalt_iceberg_data_writer_write(w, &b->rows.arrays[i], err);
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(w, &files, &n, err);
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(b->catalog, &committer);
        st = basalt_iceberg_append(&committer, "bench.taxi", files, n, NULL, NULL, NULL, err);
    }
    for (uint32_t i = 0; i < n; i++)
        unlink(files[i].file_path);
    basalt_iceberg_data_writer_free(w);
    return st;
}

static basalt_status append_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct append_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = b->append ? append_once(b, err) : write_parquet(b, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void append_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_iceberg_append_register(struct basalt_bench *bench, struct basalt_error *err)
{
    char input[2048];
    const char *env = getenv("BASALT_BENCH_DATA"), *home = getenv("HOME");
    snprintf(input, sizeof input, "%s/taxi-1000000.parquet",
             env && *env ? env : "");
    if (!env || !*env)
        snprintf(input, sizeof input, "%s/.cache/basalt-peers/data/taxi-1000000.parquet",
                 home ? home : ".");
    struct stat sb;
    if (stat(input, &sb) != 0)
        return BASALT_OK; /* no input: bench/iceberg_append.sh makes it */
    static const char *const names[2][2] = {
        {"iceberg/append/taxi1m/parquet/1t", "iceberg/append/taxi1m/parquet/2t"},
        {"iceberg/append/taxi1m/append/1t", "iceberg/append/taxi1m/append/2t"}};
    static const char *const groups[2] = {"iceberg/append/taxi1m/1t", "iceberg/append/taxi1m/2t"};
    for (int t = 0; t < 2; t++)
        for (int leg = 0; leg < 2; leg++) {
            struct append_bench *b = basalt_calloc(1, sizeof *b);
            if (!b)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            snprintf(b->input, sizeof b->input, "%s", input);
            b->append = leg == 1;
            b->threads = t + 1;
            struct basalt_bench_case c = {
                .name = names[leg][t],
                .group = groups[t],
                .peer = leg ? "basalt iceberg append (data files, manifests, commit)"
                            : "basalt parquet writer (one file)",
                .run = append_run,
                .setup = append_setup,
                .teardown = append_teardown,
                .release = append_release,
                .ctx = b,
                .items_per_iter = 1000000,
                .threads = t + 1,
                .ratio_max = leg ? 1.1 : 0,
            };
            basalt_status st = basalt_bench_add(bench, &c, err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
