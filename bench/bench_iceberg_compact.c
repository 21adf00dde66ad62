/* Iceberg compaction of 100 small files against reading them:
 *
 *   iceberg/compact/100x2k/{scan,compact}/{1t,2t}
 *     scan     basalt_iceberg_scan of the table's 100 data files (2,000 rows
 *              each: id long, name string, v double), every batch taken
 *     compact  basalt_iceberg_compact --all of the same table: plan, read the
 *              100 files, write one file, its manifests and manifest list,
 *              the commit's requirements and updates
 *
 * The table lives in /dev/shm on a SQLite catalog, made once in setup. The
 * compaction's commit goes to a committer that accepts it without applying
 * it, so every iteration compacts the same 100 files; the files an
 * iteration wrote are then deleted (an unlink each, timed with it). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/bench.h"
#include "basalt/catalog.h"
#include "basalt/iceberg_maintain.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "basalt/iceberg_write.h"

basalt_status bench_iceberg_compact_register(struct basalt_bench *bench, struct basalt_error *err);

#define CB_FILES 100
#define CB_ROWS 2000

struct compact_bench {
    char dir[256];
    bool compact; /* else scan */
    int threads;
    struct basalt_pool *pool;
    struct basalt_catalog *catalog;
    struct basalt_iceberg_table *table;
    struct basalt_iceberg_committer inner;
    struct basalt_string_list keep; /* the table's files, sorted */
};

static basalt_status make_batch(int file, struct ArrowArray *out, struct basalt_error *err)
{
    struct basalt_arrow_builder *root = NULL, *k[3];
    struct ArrowSchema s;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    static const char *const formats[3] = {"l", "u", "g"}, *const names[3] = {"id", "name", "v"};
    for (int c = 0; c < 3 && st == BASALT_OK; c++)
        st = basalt_arrow_builder_add_child(root, formats[c], names[c], c ? ARROW_FLAG_NULLABLE : 0,
                                            &k[c], err);
    for (int r = 0; r < CB_ROWS && st == BASALT_OK; r++) {
        int64_t id = (int64_t)file * CB_ROWS + r;
        char name[32];
        snprintf(name, sizeof name, "name-%lld", (long long)(id * 7919 % 100003));
        st = basalt_arrow_builder_append_int(k[0], id, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_string(k[1], name, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_double(k[2], (double)id * 0.25, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &s, out, err);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&s);
    basalt_arrow_builder_free(root);
    return st;
}

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

static basalt_status create_table(struct compact_bench *b, struct basalt_error *err)
{
    char uri[300], *location = NULL, *updates = NULL;
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", b->dir);
    static const char schema[] =
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
        "{\"id\":3,\"name\":\"v\",\"required\":false,\"type\":\"double\"}]}";
    basalt_status st = basalt_catalog_open(uri, NULL, true, &b->catalog, err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(b->catalog, "bench.small", &location, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, NULL, NULL, 2, location, NULL, 0, &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(b->catalog, "bench.small", updates, &b->table, err);
    basalt_free(location);
    basalt_free(updates);
    /* 100 files of one writer each, appended in one snapshot. */
    struct basalt_iceberg_data_writer *w[CB_FILES] = {0};
    struct basalt_iceberg_data_file files[CB_FILES];
    const struct basalt_iceberg_metadata *m = b->table ? b->table->metadata : NULL;
    char data[400];
    if (m)
        snprintf(data, sizeof data, "%s/data", m->location);
    for (int f = 0; f < CB_FILES && st == BASALT_OK; f++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "small-%03d", f);
        struct basalt_iceberg_data_writer_options wo;
        basalt_iceberg_data_writer_options_init(&wo);
        wo.schema = basalt_iceberg_metadata_current_schema(m);
        wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
        wo.data_location = data;
        wo.file_prefix = prefix;
        wo.io = b->table->io;
        struct ArrowArray batch;
        const struct basalt_iceberg_data_file *out = NULL;
        uint32_t n = 0;
        st = basalt_iceberg_data_writer_new(&wo, &w[f], err);
        if (st == BASALT_OK)
            st = make_batch(f, &batch, err);
        if (st == BASALT_OK) {
            st = basalt_iceberg_data_writer_write(w[f], &batch, err);
            basalt_arrow_array_release(&batch);
        }
        if (st == BASALT_OK)
            st = basalt_iceberg_data_writer_finish(w[f], &out, &n, err);
        if (st == BASALT_OK)
            files[f] = out[0];
    }
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(b->catalog, &committer);
        st = basalt_iceberg_append(&committer, "bench.small", files, CB_FILES, NULL, NULL, NULL,
                                   err);
    }
    for (int f = 0; f < CB_FILES; f++)
        basalt_iceberg_data_writer_free(w[f]);
    if (st == BASALT_OK) {
        basalt_iceberg_table_free(b->table);
        b->table = NULL;
        st = basalt_catalog_load_table(b->catalog, "bench.small", &b->table, err);
    }
    if (st == BASALT_OK) {
        char meta[400];
        snprintf(meta, sizeof meta, "%s/metadata", m ? b->table->metadata->location : "");
        list_dir(data, &b->keep);
        list_dir(meta, &b->keep);
        basalt_string_list_sort_unique(&b->keep);
    }
    return st;
}

static basalt_status compact_setup(void *ctx, struct basalt_error *err)
{
    struct compact_bench *b = ctx;
    snprintf(b->dir, sizeof b->dir, "/dev/shm/basalt-bench-compact-%d-%s-%d", (int)getpid(),
             b->compact ? "compact" : "scan", b->threads);
    basalt_status st = b->threads > 1 ? basalt_pool_new(b->threads - 1, &b->pool, err) : BASALT_OK;
    if (st == BASALT_OK && mkdir(b->dir, 0777) != 0)
        st = basalt_error_set(err, BASALT_IO, "%s: cannot create", b->dir);
    if (st == BASALT_OK)
        st = create_table(b, err);
    return st;
}

static void compact_teardown(void *ctx)
{
    struct compact_bench *b = ctx;
    basalt_iceberg_table_free(b->table);
    b->table = NULL;
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
    struct compact_bench *b = ctx;
    return b->inner.load(b->inner.ctx, identifier, out, err);
}

/* Accepted, not applied: the next iteration compacts the same files. */
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

static void remove_new_files(struct compact_bench *b)
{
    struct basalt_string_list now = {0};
    char dir[400];
    snprintf(dir, sizeof dir, "%s/data", b->table->metadata->location);
    list_dir(dir, &now);
    snprintf(dir, sizeof dir, "%s/metadata", b->table->metadata->location);
    list_dir(dir, &now);
    for (size_t i = 0; i < now.n; i++)
        if (!bsearch(&now.items[i], b->keep.items, b->keep.n, sizeof *b->keep.items, compare_str))
            unlink(now.items[i]);
    basalt_string_list_reset(&now);
}

static basalt_status scan_once(struct compact_bench *b, struct basalt_error *err)
{
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.pool = b->pool;
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowArrayStream stream;
    stream.release = NULL;
    int64_t rows = 0;
    basalt_status st = basalt_iceberg_scan_new(b->table, &o, &scan, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_stream(scan, &stream, err);
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        if (stream.get_next(&stream, &batch) != 0) {
            st = basalt_error_set(err, BASALT_IO, "%s", stream.get_last_error(&stream));
            break;
        }
        if (!batch.release)
            break;
        rows += batch.length;
        batch.release(&batch);
    }
    if (stream.release)
        stream.release(&stream);
    basalt_iceberg_scan_free(scan);
    if (st == BASALT_OK && rows != (int64_t)CB_FILES * CB_ROWS)
        st = basalt_error_set(err, BASALT_INTERNAL, "scan read %lld rows", (long long)rows);
    return st;
}

static basalt_status compact_once(struct compact_bench *b, struct basalt_error *err)
{
    basalt_catalog_committer(b->catalog, &b->inner);
    struct basalt_iceberg_committer c = {.ctx = b, .load = load, .commit = commit};
    struct basalt_iceberg_compact_options o;
    basalt_iceberg_compact_options_init(&o);
    o.rewrite_all = true;
    o.pool = b->pool;
    struct basalt_iceberg_compact_result r;
    basalt_status st = basalt_iceberg_compact(&c, "bench.small", &o, &r, err);
    if (st == BASALT_OK && (r.data_files_removed != CB_FILES || r.rows != (int64_t)CB_FILES * CB_ROWS))
        st = basalt_error_set(err, BASALT_INTERNAL, "compacted %u files, %lld rows",
                              r.data_files_removed, (long long)r.rows);
    remove_new_files(b);
    return st;
}

static basalt_status compact_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct compact_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = b->compact ? compact_once(b, err) : scan_once(b, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void compact_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_iceberg_compact_register(struct basalt_bench *bench, struct basalt_error *err)
{
    static const char *const names[2][2] = {
        {"iceberg/compact/100x2k/scan/1t", "iceberg/compact/100x2k/scan/2t"},
        {"iceberg/compact/100x2k/compact/1t", "iceberg/compact/100x2k/compact/2t"}};
    static const char *const groups[2] = {"iceberg/compact/100x2k/1t", "iceberg/compact/100x2k/2t"};
    for (int t = 0; t < 2; t++)
        for (int leg = 0; leg < 2; leg++) {
            struct compact_bench *b = basalt_calloc(1, sizeof *b);
            if (!b)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            b->compact = leg == 1;
            b->threads = t + 1;
            struct basalt_bench_case c = {
                .name = names[leg][t],
                .group = groups[t],
                .peer = leg ? "basalt_iceberg_compact (read 100 files, write 1, manifests)"
                            : "basalt_iceberg_scan (read the 100 files)",
                .run = compact_run,
                .setup = compact_setup,
                .teardown = compact_teardown,
                .release = compact_release,
                .ctx = b,
                .items_per_iter = (uint64_t)CB_FILES * CB_ROWS,
                .threads = t + 1,
            };
            basalt_status st = basalt_bench_add(bench, &c, err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
