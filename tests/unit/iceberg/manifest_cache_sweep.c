/* The manifest cache (threads racing to add the same paths), the shared
 * Avro plan cache (many manifests with one schema compile once), and an
 * allocation-failure sweep over a manifest list and a partitioned manifest. */
#include <pthread.h>
#include <time.h>

#include "basalt/avro.h"
#include "basalt/iceberg_manifest.h"
#include "test.h"

#define RENAME_DIR "iceberg/icebird/hyperparam-iceberg/spark/rename_column/metadata/"
#define RENAME_LIST RENAME_DIR "snap-5276958600260276572-1-abf62b15-903b-40b6-9e6b-26bcdceac9b3.avro"
#define RENAME_MANIFEST RENAME_DIR "abf62b15-903b-40b6-9e6b-26bcdceac9b3-m0.avro"

static uint8_t *read_shared(const char *rel, size_t *len)
{
    return bt_read_file(bt_testdata_path(rel), len);
}

struct files {
    uint8_t *list, *manifest;
    size_t list_len, manifest_len;
};

static bool load(struct files *f)
{
    f->list = read_shared(RENAME_LIST, &f->list_len);
    f->manifest = read_shared(RENAME_MANIFEST, &f->manifest_len);
    return f->list && f->manifest;
}

static void unload(struct files *f)
{
    basalt_free(f->list);
    basalt_free(f->manifest);
}

static struct basalt_iceberg_field sweep_fields[2] = {
    {.id = 1, .name = "id", .type = {.id = BASALT_ICEBERG_TYPE_INT}},
    {.id = 3, .name = "date", .type = {.id = BASALT_ICEBERG_TYPE_DATE}},
};
static struct basalt_iceberg_partition_field sweep_pf[2] = {
    {.source_id = 1, .field_id = 1000, .name = "id_bucket",
     .transform = {BASALT_ICEBERG_TRANSFORM_BUCKET, 4, "bucket[4]"}},
    {.source_id = 3, .field_id = 1001, .name = "date",
     .transform = {BASALT_ICEBERG_TRANSFORM_IDENTITY, 0, "identity"}},
};

static basalt_status parse_both(void *p)
{
    struct files *f = p;
    struct basalt_iceberg_schema schema = {
        .root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = sweep_fields, .n_fields = 2}};
    struct basalt_iceberg_partition_spec spec = {.spec_id = 0, .fields = sweep_pf, .n_fields = 2};
    struct basalt_iceberg_manifest_list *list = NULL;
    struct basalt_iceberg_manifest *m = NULL;
    basalt_status st = basalt_iceberg_manifest_list_parse(f->list, f->list_len, "l", 2, &list, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_list_decode_bounds(list, &spec, 1, &schema, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_parse(f->manifest, f->manifest_len, "m", &list->files[0], &spec,
                                           &schema, NULL, &m, NULL);
    if (st == BASALT_OK && (m->n_entries != 3 || m->entries[2].data_file.partition[1].u.i32 != 18993 ||
                            m->entries[0].data_file.n_lower_bounds == 0))
        st = BASALT_INTERNAL;
    basalt_iceberg_manifest_free(m);
    basalt_iceberg_manifest_list_free(list);
    return st;
}

TEST(manifest_allocation_failure_sweep)
{
    struct files f;
    bool ok = load(&f);
    if (!ok)
        unload(&f);
    CHECK(ok);
    int64_t attempts = bt_alloc_failure_sweep(__FILE__, __LINE__, parse_both, &f);
    unload(&f);
    CHECK(attempts > 10);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

TEST(manifest_plan_cache_compiles_once)
{
    struct files f;
    bool ok = load(&f);
    if (!ok)
        unload(&f);
    CHECK(ok);
    struct basalt_error err;
    struct basalt_iceberg_manifest_cache *cache = NULL;
    basalt_status st = basalt_iceberg_manifest_cache_new(&cache, &err);
    if (st != BASALT_OK)
        unload(&f);
    CHECK_OK(st, &err);
    struct basalt_iceberg_manifest_read_options o;
    basalt_iceberg_manifest_read_options_init(&o);
    o.plan_cache = basalt_iceberg_manifest_cache_plans(cache);
    o.with_metrics = false;
    double t0 = now_ms();
    const int rounds = 500;
    for (int i = 0; i < rounds && st == BASALT_OK; i++) {
        struct basalt_iceberg_manifest *m = NULL;
        st = basalt_iceberg_manifest_parse(f.manifest, f.manifest_len, "m", NULL, NULL, NULL, &o, &m,
                                           &err);
        if (st == BASALT_OK && m->n_entries != 3)
            st = BASALT_INTERNAL;
        basalt_iceberg_manifest_free(m);
    }
    double elapsed = now_ms() - t0;
    uint64_t hits = 0, misses = 0;
    basalt_avro_plan_cache_stats(o.plan_cache, &hits, &misses);
    /* The same file with metrics is a second plan. */
    struct basalt_iceberg_manifest *full = NULL;
    o.with_metrics = true;
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_parse(f.manifest, f.manifest_len, "m", NULL, NULL, NULL, &o,
                                           &full, &err);
    uint64_t hits2 = 0, misses2 = 0;
    basalt_avro_plan_cache_stats(o.plan_cache, &hits2, &misses2);
    basalt_iceberg_manifest_free(full);
    basalt_iceberg_manifest_cache_free(cache);
    unload(&f);
    CHECK_OK(st, &err);
    printf("  %d manifests of 3 entries without metrics: %.3f ms (%.1f us each)\n", rounds, elapsed,
           elapsed * 1e3 / rounds);
    /* The statistics count schemas and plans: one of each compiled. */
    CHECK_EQ(misses, 2);
    CHECK_EQ(hits, 2 * (rounds - 1));
    CHECK_EQ(misses2, 3);
}

struct race {
    struct basalt_iceberg_manifest_cache *cache;
    struct files *f;
    const struct basalt_iceberg_manifest *got[8];
    basalt_status st;
};

static void *race_main(void *p)
{
    struct race *r = p;
    struct basalt_iceberg_manifest_read_options o;
    basalt_iceberg_manifest_read_options_init(&o);
    o.plan_cache = basalt_iceberg_manifest_cache_plans(r->cache);
    for (int i = 0; i < 8 && r->st == BASALT_OK; i++) {
        char path[32];
        snprintf(path, sizeof path, "s3://m/%d.avro", i);
        const struct basalt_iceberg_manifest *found = basalt_iceberg_manifest_cache_find(r->cache, path);
        if (found) {
            r->got[i] = found;
            continue;
        }
        struct basalt_iceberg_manifest *m = NULL;
        r->st = basalt_iceberg_manifest_parse(r->f->manifest, r->f->manifest_len, path, NULL, NULL,
                                              NULL, &o, &m, NULL);
        if (r->st == BASALT_OK)
            r->st = basalt_iceberg_manifest_cache_add(r->cache, path, m, &r->got[i], NULL);
    }
    return NULL;
}

TEST(manifest_cache_threads_agree)
{
    struct files f;
    bool ok = load(&f);
    if (!ok)
        unload(&f);
    CHECK(ok);
    struct basalt_error err;
    struct basalt_iceberg_manifest_cache *cache = NULL;
    basalt_status st = basalt_iceberg_manifest_cache_new(&cache, &err);
    if (st != BASALT_OK)
        unload(&f);
    CHECK_OK(st, &err);
    struct race r[4];
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        memset(&r[t], 0, sizeof r[t]);
        r[t].cache = cache;
        r[t].f = &f;
        pthread_create(&th[t], NULL, race_main, &r[t]);
    }
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    ok = basalt_iceberg_manifest_cache_count(cache) == 8 &&
         basalt_iceberg_manifest_cache_find(cache, "s3://m/9.avro") == NULL;
    for (int t = 0; t < 4; t++) {
        ok = ok && r[t].st == BASALT_OK;
        for (int i = 0; ok && i < 8; i++) {
            char path[32];
            snprintf(path, sizeof path, "s3://m/%d.avro", i);
            ok = r[t].got[i] == r[0].got[i] && r[t].got[i] &&
                 basalt_iceberg_manifest_cache_find(cache, path) == r[t].got[i];
        }
    }
    /* Enough distinct paths to grow the table several times. */
    for (int i = 0; ok && i < 300; i++) {
        char path[32];
        snprintf(path, sizeof path, "p%d", i);
        struct basalt_iceberg_manifest *m = NULL;
        const struct basalt_iceberg_manifest *got = NULL;
        ok = basalt_iceberg_manifest_parse(f.manifest, f.manifest_len, path, NULL, NULL, NULL, NULL,
                                           &m, &err) == BASALT_OK &&
             basalt_iceberg_manifest_cache_add(cache, path, m, &got, &err) == BASALT_OK && got == m;
    }
    ok = ok && basalt_iceberg_manifest_cache_count(cache) == 308 &&
         basalt_iceberg_manifest_cache_find(cache, "p123") != NULL;
    basalt_iceberg_manifest_cache_free(cache);
    unload(&f);
    CHECK(ok);
}
