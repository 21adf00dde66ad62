/* Deleting 1% of a 1M-row table by a filter, copy-on-write against
 * merge-on-read:
 *
 *   iceberg/delete/taxi1m/{cow,mor-v2,mor-v3}/{1t,2t}
 *     cow     basalt_iceberg_delete_where, copy-on-write: find the rows
 *             (trip_distance > 14.7: about 10,000 rows spread over the
 *             whole file), write the data file again without them
 *     mor-v2  merge-on-read on a v2 table: find the rows, write one
 *             position-delete file
 *     mor-v3  merge-on-read on a v3 table: find the rows, write a deletion
 *             vector in a Puffin file
 *   each then writes the manifests, the manifest list and the commit's
 *   requirements and updates.
 *
 * The table (the 1,000,000 taxi-shaped rows of
 * $BASALT_BENCH_DATA/taxi-1000000.parquet, else
 * $HOME/.cache/basalt-peers/data; bench/iceberg_append.sh makes it, in one
 * data file) lives in /dev/shm on a SQLite catalog, made once in setup.
 * The delete commits to a committer that accepts without applying, so every
 * iteration starts from the same table; the catalog's own commit (metadata
 * file and swap) is iceberg/commit's. The files an iteration wrote are
 * deleted by it (an unlink each, timed with it). */
#include <dirent.h>
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
#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "basalt/parquet.h"

basalt_status bench_iceberg_delete_register(struct basalt_bench *bench, struct basalt_error *err);

#define DB_FILTER "trip_distance > 14.7"

enum delete_leg { LEG_COW, LEG_MOR_V2, LEG_MOR_V3 };

struct delete_bench {
    char input[2048];
    char dir[256];
    enum delete_leg leg;
    int threads;
    struct basalt_pool *pool;
    struct basalt_catalog *catalog;
    struct basalt_iceberg_committer inner;
    struct basalt_string_list keep; /* the table's files, sorted */
    int64_t rows_deleted;           /* by the first iteration; every one must match */
};

static void list_dir(const char *dir, struct basalt_string_list *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n > 0 && (size_t)n < sizeof path)
            basalt_string_list_add(out, path, (size_t)n, NULL);
    }
    closedir(d);
}

/* The table, and the input's rows appended to it as the data writer cuts
 * them (one file at the default target size). */
static basalt_status create_table(struct delete_bench *b, struct basalt_error *err)
{
    char uri[300], *schema = NULL, *location = NULL, *updates = NULL;
    int version = b->leg == LEG_MOR_V3 ? 3 : 2;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_iceberg_table *t = NULL;
    struct basalt_iceberg_data_writer *w = NULL;
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
        st = basalt_iceberg_create_updates(schema, NULL, NULL, version, location, NULL, 0,
                                           &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(b->catalog, "bench.taxi", updates, &t, err);
    char data[400];
    if (st == BASALT_OK) {
        const struct basalt_iceberg_metadata *m = t->metadata;
        snprintf(data, sizeof data, "%s/data", m->location);
        struct basalt_iceberg_data_writer_options wo;
        basalt_iceberg_data_writer_options_init(&wo);
        wo.schema = basalt_iceberg_metadata_current_schema(m);
        wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
        wo.properties = m->properties;
        wo.n_properties = m->n_properties;
        wo.data_location = data;
        wo.file_prefix = "00000-0-taxi";
        wo.io = t->io;
        wo.pool = b->pool;
        st = basalt_iceberg_data_writer_new(&wo, &w, err);
    }
    while (st == BASALT_OK) {
        struct ArrowArray batch, conformed;
        st = basalt_parquet_scan_next(scan, &batch, err);
        if (st != BASALT_OK || !batch.release)
            break;
        st = basalt_iceberg_conform_batch(basalt_iceberg_metadata_current_schema(t->metadata),
                                          &src, &batch, &conformed, err);
        if (st == BASALT_OK) {
            st = basalt_iceberg_data_writer_write(w, &conformed, err);
            basalt_arrow_array_release(&conformed);
        }
    }
    const struct basalt_iceberg_data_file *files = NULL;
    uint32_t n = 0;
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(w, &files, &n, err);
    basalt_catalog_committer(b->catalog, &b->inner);
    if (st == BASALT_OK)
        st = basalt_iceberg_append(&b->inner, "bench.taxi", files, n, NULL, NULL, NULL, err);
    if (st == BASALT_OK) {
        char meta[400];
        snprintf(meta, sizeof meta, "%s/metadata", t->metadata->location);
        list_dir(data, &b->keep);
        list_dir(meta, &b->keep);
        basalt_string_list_sort_unique(&b->keep);
    }
    basalt_iceberg_data_writer_free(w);
    basalt_iceberg_table_free(t);
    basalt_arrow_schema_release(&src);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    return st;
}

static basalt_status delete_setup(void *ctx, struct basalt_error *err)
{
    struct delete_bench *b = ctx;
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    static const char *const legs[] = {"cow", "mor2", "mor3"};
    snprintf(b->dir, sizeof b->dir, "/dev/shm/basalt-bench-delete-%d-%s-%d", (int)getpid(),
             legs[b->leg], b->threads);
    b->rows_deleted = -1;
    basalt_status st = b->threads > 1 ? basalt_pool_new(b->threads - 1, &b->pool, err) : BASALT_OK;
    if (st == BASALT_OK && mkdir(b->dir, 0777) != 0)
        st = basalt_error_set(err, BASALT_IO, "%s: cannot create", b->dir);
    if (st == BASALT_OK)
        st = create_table(b, err);
    return st;
}

static void delete_teardown(void *ctx)
{
    struct delete_bench *b = ctx;
    basalt_catalog_close(b->catalog);
    b->catalog = NULL;
    basalt_pool_free(b->pool);
    b->pool = NULL;
    basalt_string_list_reset(&b->keep);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", b->dir);
}

static basalt_status load(void *ctx, const char *identifier, struct basalt_iceberg_table **out,
                          struct basalt_error *err)
{
    struct delete_bench *b = ctx;
    return b->inner.load(b->inner.ctx, identifier, out, err);
}

/* Accepted, not applied: the next iteration deletes from the same table. */
static basalt_status commit(void *ctx, const char *identifier, const char *requirements_json,
                            const char *updates_json, struct basalt_iceberg_table **out,
                            struct basalt_error *err)
{
    (void)ctx, (void)identifier, (void)requirements_json, (void)updates_json, (void)err;
    if (out)
        *out = NULL;
    return BASALT_OK;
}

static int compare_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void remove_new_files(struct delete_bench *b)
{
    struct basalt_string_list now = {0};
    char dir[400];
    snprintf(dir, sizeof dir, "%s/bench/taxi/data", b->dir);
    list_dir(dir, &now);
    snprintf(dir, sizeof dir, "%s/bench/taxi/metadata", b->dir);
    list_dir(dir, &now);
    for (size_t i = 0; i < now.n; i++)
        if (!bsearch(&now.items[i], b->keep.items, b->keep.n, sizeof *b->keep.items, compare_str))
            unlink(now.items[i]);
    basalt_string_list_reset(&now);
}

static basalt_status delete_once(struct delete_bench *b, struct basalt_error *err)
{
    struct basalt_iceberg_committer c = {.ctx = b, .load = load, .commit = commit};
    struct basalt_iceberg_delete_options o;
    basalt_iceberg_delete_options_init(&o);
    o.mode = b->leg == LEG_COW ? BASALT_ICEBERG_COPY_ON_WRITE : BASALT_ICEBERG_MERGE_ON_READ;
    o.pool = b->pool;
    struct basalt_iceberg_delete_result r;
    basalt_status st = basalt_iceberg_delete_where(&c, "bench.taxi", DB_FILTER, NULL, 0, &o, &r,
                                                   err);
    if (st == BASALT_OK && b->rows_deleted < 0)
        b->rows_deleted = r.rows_deleted;
    /* 1% of the rows, the same every time, in the files the leg writes. */
    bool shape = b->leg == LEG_COW ? r.files_added == 1 && r.delete_files_added == 0
                                   : r.files_added == 0 && r.delete_files_added == 1;
    if (st == BASALT_OK && (r.rows_deleted != b->rows_deleted || r.rows_deleted < 9000 ||
                            r.rows_deleted > 11000 || !shape))
        st = basalt_error_set(err, BASALT_INTERNAL,
                              "deleted %lld rows (%u files written, %u delete files)",
                              (long long)r.rows_deleted, r.files_added, r.delete_files_added);
    remove_new_files(b);
    return st;
}

static basalt_status delete_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct delete_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = delete_once(b, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void delete_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_iceberg_delete_register(struct basalt_bench *bench, struct basalt_error *err)
{
    char input[2048];
    const char *env = getenv("BASALT_BENCH_DATA"), *home = getenv("HOME");
    if (env && *env)
        snprintf(input, sizeof input, "%s/taxi-1000000.parquet", env);
    else
        snprintf(input, sizeof input, "%s/.cache/basalt-peers/data/taxi-1000000.parquet",
                 home ? home : ".");
    struct stat sb;
    if (stat(input, &sb) != 0)
        return BASALT_OK; /* no input: bench/iceberg_append.sh makes it */
    static const char *const names[3][2] = {
        {"iceberg/delete/taxi1m/cow/1t", "iceberg/delete/taxi1m/cow/2t"},
        {"iceberg/delete/taxi1m/mor-v2/1t", "iceberg/delete/taxi1m/mor-v2/2t"},
        {"iceberg/delete/taxi1m/mor-v3/1t", "iceberg/delete/taxi1m/mor-v3/2t"}};
    static const char *const peers[3] = {
        "basalt_iceberg_delete_where copy-on-write (rewrite the data file)",
        "basalt_iceberg_delete_where merge-on-read v2 (position-delete file)",
        "basalt_iceberg_delete_where merge-on-read v3 (deletion vector)"};
    static const char *const groups[2] = {"iceberg/delete/taxi1m/1t", "iceberg/delete/taxi1m/2t"};
    for (int t = 0; t < 2; t++)
        for (int leg = 0; leg < 3; leg++) {
            struct delete_bench *b = basalt_calloc(1, sizeof *b);
            if (!b)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            snprintf(b->input, sizeof b->input, "%s", input);
            b->leg = (enum delete_leg)leg;
            b->threads = t + 1;
            struct basalt_bench_case c = {
                .name = names[leg][t],
                .group = groups[t],
                .peer = peers[leg],
                .run = delete_run,
                .setup = delete_setup,
                .teardown = delete_teardown,
                .release = delete_release,
                .ctx = b,
                .items_per_iter = 1000000,
                .threads = t + 1,
            };
            basalt_status st = basalt_bench_add(bench, &c, err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
