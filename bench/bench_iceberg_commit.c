/* Commit latency with 1, 4 and 16 writers, on a SQLite catalog directly
 * and through the REST catalog (our server, in this process on 127.0.0.1,
 * over the same kind of SQLite catalog, reached by the REST client):
 *
 *   iceberg/commit/{sqlite,rest}/{1w,4w,16w}
 *
 * One iteration: every writer (a thread with its own catalog connection)
 * appends one data file (described, not written: the commit's own work is
 * what is timed -- a manifest, a manifest list, the next metadata file and
 * the compare-and-swap, plus retries after losing a race) and the iteration
 * ends when all have committed. items/s is commits per second; the p50 of
 * 1w is the latency of one uncontended commit. The table lives in /dev/shm;
 * every append adds a snapshot and a manifest (no manifest merging yet), so
 * a fresh table is started every 64 commits to keep the measured commit the
 * same size, its creation inside that sample. The REST server handles 16
 * requests at once (one catalog connection each); every writer is a client
 * catalog of its own (its own HTTP connection pool). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/bench.h"
#include "basalt/catalog.h"

basalt_status bench_iceberg_commit_register(struct basalt_bench *bench, struct basalt_error *err);

#define MAX_WRITERS 16

struct commit_bench {
    int writers;
    bool rest;
    struct basalt_catalog_rest_server *server;
    char dir[256];
    char uri[300];
    struct basalt_catalog *catalogs[MAX_WRITERS];
    uint64_t serial;
    int table;             /* bench.commits<table> */
    uint64_t since_create; /* commits on it */
};

struct writer_job {
    struct commit_bench *b;
    int w;
    basalt_status st;
    struct basalt_error err;
};

static void *writer(void *arg)
{
    struct writer_job *j = arg;
    struct basalt_iceberg_data_file f;
    memset(&f, 0, sizeof f);
    char path[300];
    snprintf(path, sizeof path, "%s/data/w%d-%llu.parquet", j->b->dir, j->w,
             (unsigned long long)__atomic_fetch_add(&j->b->serial, 1, __ATOMIC_RELAXED));
    f.content = BASALT_ICEBERG_CONTENT_DATA;
    f.file_path = path;
    f.file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    f.record_count = 1000;
    f.file_size_in_bytes = 100000;
    struct basalt_iceberg_committer c;
    basalt_catalog_committer(j->b->catalogs[j->w], &c);
    struct basalt_iceberg_append_options o;
    basalt_iceberg_append_options_init(&o);
    o.retries = 1000;
    char name[64];
    snprintf(name, sizeof name, "bench.commits%d", j->b->table);
    j->st = basalt_iceberg_append(&c, name, &f, 1, &o, NULL, NULL, &j->err);
    return NULL;
}

static basalt_status create_table(struct commit_bench *b, struct basalt_error *err);

static basalt_status commit_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct commit_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        if (b->since_create >= 64) {
            b->table++;
            basalt_status st = create_table(b, err);
            if (st != BASALT_OK)
                return st;
        }
        b->since_create += (uint64_t)b->writers;
        pthread_t threads[MAX_WRITERS];
        struct writer_job jobs[MAX_WRITERS];
        for (int w = 0; w < b->writers; w++) {
            jobs[w] = (struct writer_job){.b = b, .w = w};
            basalt_error_init(&jobs[w].err);
            if (pthread_create(&threads[w], NULL, writer, &jobs[w]) != 0)
                return basalt_error_set(err, BASALT_IO, "cannot start a writer thread");
        }
        for (int w = 0; w < b->writers; w++)
            pthread_join(threads[w], NULL);
        for (int w = 0; w < b->writers; w++)
            if (jobs[w].st != BASALT_OK)
                return basalt_error_set(err, jobs[w].st, "writer %d: %s", w, jobs[w].err.message);
    }
    return BASALT_OK;
}

static basalt_status create_table(struct commit_bench *b, struct basalt_error *err)
{
    char name[64], *schema = NULL, *location = NULL, *updates = NULL;
    snprintf(name, sizeof name, "bench.commits%d", b->table);
    struct basalt_iceberg_kv props[] = {{"commit.retry.min-wait-ms", "1"},
                                        {"commit.retry.max-wait-ms", "50"}};
    basalt_status st = basalt_iceberg_schema_from_text("id long, v string", &schema, err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(b->catalogs[0], name, &location, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, NULL, NULL, 2, location, props, 2, &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(b->catalogs[0], name, updates, NULL, err);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    b->since_create = 0;
    return st;
}

static basalt_status commit_setup(void *ctx, struct basalt_error *err)
{
    struct commit_bench *b = ctx;
    snprintf(b->dir, sizeof b->dir, "/dev/shm/basalt-bench-commit-%d-%s-%d", (int)getpid(),
             b->rest ? "rest" : "sqlite", b->writers);
    snprintf(b->uri, sizeof b->uri, "sqlite:%s/catalog.db", b->dir);
    if (mkdir(b->dir, 0777) != 0)
        return basalt_error_set(err, BASALT_IO, "%s: cannot create", b->dir);
    basalt_status st = BASALT_OK;
    if (b->rest) {
        struct basalt_catalog_rest_server_options o;
        basalt_catalog_rest_server_options_init(&o);
        o.catalog_uri = b->uri;
        o.warehouse = b->dir;
        o.threads = MAX_WRITERS;
        st = basalt_catalog_rest_server_start(&o, &b->server, err);
        if (st == BASALT_OK)
            snprintf(b->uri, sizeof b->uri, "rest+http://127.0.0.1:%u",
                     (unsigned)basalt_catalog_rest_server_port(b->server));
    }
    for (int w = 0; st == BASALT_OK && w < b->writers; w++)
        st = basalt_catalog_open(b->uri, NULL, true, &b->catalogs[w], err);
    if (st == BASALT_OK && b->rest) {
        st = basalt_catalog_create_namespace(b->catalogs[0], "bench", err);
        if (st == BASALT_CONFLICT)
            st = BASALT_OK;
    }
    b->table = 0;
    if (st == BASALT_OK)
        st = create_table(b, err);
    return st;
}

static void commit_teardown(void *ctx)
{
    struct commit_bench *b = ctx;
    for (int w = 0; w < b->writers; w++) {
        basalt_catalog_close(b->catalogs[w]);
        b->catalogs[w] = NULL;
    }
    basalt_catalog_rest_server_stop(b->server);
    b->server = NULL;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", b->dir);
}

static void commit_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_iceberg_commit_register(struct basalt_bench *bench, struct basalt_error *err)
{
    static const int writers[] = {1, 4, 16};
    static const char *const names[2][3] = {
        {"iceberg/commit/sqlite/1w", "iceberg/commit/sqlite/4w", "iceberg/commit/sqlite/16w"},
        {"iceberg/commit/rest/1w", "iceberg/commit/rest/4w", "iceberg/commit/rest/16w"}};
    static const char *const groups[] = {"iceberg/commit/1w", "iceberg/commit/4w",
                                         "iceberg/commit/16w"};
    for (int k = 0; k < 3; k++)
        for (int rest = 0; rest < 2; rest++) {
            struct commit_bench *b = basalt_calloc(1, sizeof *b);
            if (!b)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            b->writers = writers[k];
            b->rest = rest;
            struct basalt_bench_case c = {
                .name = names[rest][k],
                .group = groups[k],
                .peer = rest ? "basalt REST client -> basalt REST server (SQLite), 16 threads"
                             : "basalt SQLite catalog",
                .run = commit_run,
                .setup = commit_setup,
                .teardown = commit_teardown,
                .release = commit_release,
                .ctx = b,
                .items_per_iter = writers[k],
                .threads = writers[k],
            };
            basalt_status st = basalt_bench_add(bench, &c, err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
