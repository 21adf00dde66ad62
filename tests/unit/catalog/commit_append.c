/* Fast appends through a catalog's committer, with data files described
 * but not written (the plan only reads manifests): the snapshot, its
 * summary and manifests, sequence numbers and row ids, and several
 * processes appending to one table at once with every file present exactly
 * once afterwards. */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "test.h"

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static basalt_status create(struct basalt_catalog *c, const char *name, int version,
                            const char *partition, struct basalt_error *err)
{
    char *schema = NULL, *location = NULL, *updates = NULL;
    struct basalt_iceberg_kv props[] = {{"commit.retry.num-retries", "1000"},
                                        {"commit.retry.min-wait-ms", "1"},
                                        {"commit.retry.max-wait-ms", "20"}};
    basalt_status st = basalt_iceberg_schema_from_text("id long not null, v string", &schema, err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(c, name, &location, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, partition, NULL, version, location, props, 3,
                                           &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(c, name, updates, NULL, err);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    return st;
}

/* A described data file: `rows` rows, partition id_bucket = `bucket` when
 * the table is partitioned. */
static void describe(struct basalt_iceberg_data_file *f, struct basalt_iceberg_value *part,
                     char *path, size_t cap, const char *tag, int i, int64_t rows, int bucket)
{
    memset(f, 0, sizeof *f);
    snprintf(path, cap, "/nowhere/data/%s-%05d.parquet", tag, i);
    f->content = BASALT_ICEBERG_CONTENT_DATA;
    f->file_path = path;
    f->file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    f->record_count = rows;
    f->file_size_in_bytes = 1000 + rows;
    f->sort_order_id = 0;
    if (bucket >= 0) {
        memset(part, 0, sizeof *part);
        part->type = BASALT_ICEBERG_TYPE_INT;
        part->u.i32 = bucket;
        f->partition = part;
        f->n_partition = 1;
    }
}

static const char *summary(const struct basalt_iceberg_snapshot *s, const char *key)
{
    for (uint32_t i = 0; i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0)
            return s->summary[i].value;
    return "(missing)";
}

TEST(append_writes_a_snapshot_java_readers_expect)
{
    char tmp[64], uri[128];
    struct basalt_error err;
    snprintf(tmp, sizeof tmp, "/tmp/basalt-append-XXXXXX");
    CHECK(mkdtemp(tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", tmp);
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, true, &c, &err), BASALT_OK);
    CHECK_MSG(create(c, "db.t", 3, "bucket(4, id)", &err) == BASALT_OK, "%s", err.message);
    struct basalt_iceberg_committer committer;
    basalt_catalog_committer(c, &committer);
    struct basalt_iceberg_data_file files[3];
    struct basalt_iceberg_value parts[3];
    char paths[3][96];
    describe(&files[0], &parts[0], paths[0], sizeof paths[0], "a", 0, 10, 1);
    describe(&files[1], &parts[1], paths[1], sizeof paths[1], "a", 1, 20, 1);
    describe(&files[2], &parts[2], paths[2], sizeof paths[2], "a", 2, 30, 3);
    int64_t first = 0, second = 0;
    CHECK_MSG(basalt_iceberg_append(&committer, "db.t", files, 3, NULL, NULL, &first, &err) ==
                  BASALT_OK,
              "%s", err.message);
    struct basalt_iceberg_table *t = NULL;
    CHECK_MSG(basalt_iceberg_append(&committer, "db.t", files, 1, NULL, &t, &second, &err) ==
                  BASALT_OK,
              "%s", err.message);
    const struct basalt_iceberg_metadata *m = t->metadata;
    const struct basalt_iceberg_snapshot *head = basalt_iceberg_metadata_current_snapshot(m);
    CHECK(head && head->snapshot_id == second);
    CHECK(head->has_parent_snapshot_id && head->parent_snapshot_id == first);
    CHECK_EQ(head->sequence_number, 2);
    CHECK_EQ(m->last_sequence_number, 2);
    CHECK_STR(head->operation, "append");
    CHECK_STR(summary(head, "added-data-files"), "1");
    CHECK_STR(summary(head, "added-records"), "10");
    CHECK_STR(summary(head, "changed-partition-count"), "1");
    CHECK_STR(summary(head, "total-records"), "70");
    CHECK_STR(summary(head, "total-data-files"), "4");
    CHECK_STR(summary(head, "total-files-size"), "4070");
    CHECK_STR(summary(head, "total-delete-files"), "0");
    /* v3 row lineage: 60 rows then 10, ids handed out in commit order. */
    CHECK(head->has_first_row_id && head->first_row_id == 60);
    CHECK(m->has_next_row_id && m->next_row_id == 70);
    /* The plan sees four files; the first snapshot's three carry sequence
     * number 1 (inherited), the new one 2. */
    struct basalt_iceberg_scan *scan = NULL;
    const struct basalt_iceberg_plan *plan = NULL;
    CHECK_EQ(basalt_iceberg_scan_new(t, NULL, &scan, &err), BASALT_OK);
    CHECK_MSG(basalt_iceberg_scan_plan(scan, &plan, &err) == BASALT_OK, "%s", err.message);
    CHECK_EQ(plan->n_tasks, 4);
    CHECK_EQ(plan->manifests_total, 2);
    int seq1 = 0, seq2 = 0;
    for (uint32_t i = 0; i < plan->n_tasks; i++) {
        seq1 += plan->tasks[i].data_sequence_number == 1;
        seq2 += plan->tasks[i].data_sequence_number == 2;
        CHECK_EQ(plan->tasks[i].file->n_partition, 1);
    }
    CHECK_EQ(seq1, 3);
    CHECK_EQ(seq2, 1);
    basalt_iceberg_scan_free(scan);
    basalt_iceberg_table_free(t);
    /* A delete file is refused, and the failed append leaves no manifest. */
    files[0].content = BASALT_ICEBERG_CONTENT_POSITION_DELETES;
    CHECK_EQ(basalt_iceberg_append(&committer, "db.t", files, 1, NULL, NULL, NULL, &err),
             BASALT_INVALID_ARG);
    char cmd[256];
    int avro = 0;
    snprintf(cmd, sizeof cmd, "ls %s/db/t/metadata/*.avro | wc -l", tmp);
    FILE *p = popen(cmd, "r");
    CHECK(p && fscanf(p, "%d", &avro) == 1);
    pclose(p);
    CHECK_EQ(avro, 4); /* two manifests, two manifest lists */
    basalt_catalog_close(c);
    remove_tree(tmp);
}

/* A committer whose commit answer is lost: it applies the commit (or
 * not) through the real one and reports IO either way. */
struct lossy {
    struct basalt_iceberg_committer real;
    bool apply;
};

static basalt_status lossy_load(void *ctx, const char *identifier, struct basalt_iceberg_table **out,
                                struct basalt_error *err)
{
    struct lossy *l = ctx;
    return l->real.load(l->real.ctx, identifier, out, err);
}

static basalt_status lossy_commit(void *ctx, const char *identifier, const char *reqs,
                                  const char *ups, struct basalt_iceberg_table **out,
                                  struct basalt_error *err)
{
    struct lossy *l = ctx;
    if (l->apply && l->real.commit(l->real.ctx, identifier, reqs, ups, out, err) != BASALT_OK)
        return BASALT_CONFLICT;
    return basalt_error_set(err, BASALT_UNKNOWN_OUTCOME,
                            "connection reset after the request was sent");
}

static int count_files(const char *dir, const char *suffix)
{
    char cmd[256];
    int n = -1;
    snprintf(cmd, sizeof cmd, "ls %s/*%s 2>/dev/null | wc -l", dir, suffix);
    FILE *p = popen(cmd, "r");
    if (p && fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

TEST(append_whose_answer_is_lost_checks_the_table)
{
    char tmp[64], uri[128], meta[128];
    struct basalt_error err;
    snprintf(tmp, sizeof tmp, "/tmp/basalt-lost-XXXXXX");
    CHECK(mkdtemp(tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", tmp);
    snprintf(meta, sizeof meta, "%s/db/t/metadata", tmp);
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, true, &c, &err), BASALT_OK);
    CHECK_MSG(create(c, "db.t", 2, NULL, &err) == BASALT_OK, "%s", err.message);
    struct lossy l = {.apply = true};
    basalt_catalog_committer(c, &l.real);
    struct basalt_iceberg_committer committer = {.ctx = &l, .load = lossy_load,
                                                 .commit = lossy_commit};
    struct basalt_iceberg_data_file f;
    char path[96];
    describe(&f, NULL, path, sizeof path, "lost", 0, 10, -1);
    /* Applied but the answer lost: the reload finds the snapshot, so the
     * append succeeded (no second snapshot from a retry). */
    int64_t id = 0;
    CHECK_MSG(basalt_iceberg_append(&committer, "db.t", &f, 1, NULL, NULL, &id, &err) ==
                  BASALT_OK,
              "%s", err.message);
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_load_table(c, "db.t", &t, &err), BASALT_OK);
    const struct basalt_iceberg_snapshot *head = basalt_iceberg_metadata_current_snapshot(t->metadata);
    CHECK(head && head->snapshot_id == id);
    CHECK_EQ(t->metadata->n_snapshots, 1);
    basalt_iceberg_table_free(t);
    /* Not applied and the answer lost: unknown, and the manifest and list
     * it wrote are kept (a server could still apply the request). */
    int avro_before = count_files(meta, ".avro");
    l.apply = false;
    CHECK_EQ(basalt_iceberg_append(&committer, "db.t", &f, 1, NULL, NULL, NULL, &err),
             BASALT_UNKNOWN_OUTCOME);
    CHECK_MSG(strstr(err.message, "commit state") != NULL, "%s", err.message);
    CHECK_EQ(count_files(meta, ".avro"), avro_before + 2);
    basalt_catalog_close(c);
    remove_tree(tmp);
}

/* A committer that counts the catalog calls it passes on. */
struct counting {
    struct basalt_iceberg_committer real;
    int loads, commits, conflicts;
};

static basalt_status counting_load(void *ctx, const char *identifier,
                                   struct basalt_iceberg_table **out, struct basalt_error *err)
{
    struct counting *k = ctx;
    k->loads++;
    return k->real.load(k->real.ctx, identifier, out, err);
}

static basalt_status counting_commit(void *ctx, const char *identifier, const char *reqs,
                                     const char *ups, struct basalt_iceberg_table **out,
                                     struct basalt_error *err)
{
    struct counting *k = ctx;
    k->commits++;
    basalt_status st = k->real.commit(k->real.ctx, identifier, reqs, ups, out, err);
    k->conflicts += st == BASALT_CONFLICT;
    return st;
}

/* An append given the table its caller just loaded (options.base) commits
 * without loading it again; given a table another append has since moved
 * past, its first commit meets CONFLICT and the retry loads the table: both
 * appends' snapshots are there, one the parent of the other. */
TEST(append_on_the_callers_table_loads_it_only_to_retry)
{
    char tmp[64], uri[128];
    struct basalt_error err;
    snprintf(tmp, sizeof tmp, "/tmp/basalt-base-XXXXXX");
    CHECK(mkdtemp(tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", tmp);
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, true, &c, &err), BASALT_OK);
    CHECK_MSG(create(c, "db.t", 2, NULL, &err) == BASALT_OK, "%s", err.message);
    struct counting k = {0};
    basalt_catalog_committer(c, &k.real);
    struct basalt_iceberg_committer committer = {.ctx = &k, .load = counting_load,
                                                 .commit = counting_commit};
    struct basalt_iceberg_append_options o;
    basalt_iceberg_append_options_init(&o);
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_load_table(c, "db.t", &t, &err), BASALT_OK);
    o.base = t;
    struct basalt_iceberg_data_file f1, f2, f3;
    char p1[96], p2[96], p3[96];
    describe(&f1, NULL, p1, sizeof p1, "base", 0, 10, -1);
    describe(&f2, NULL, p2, sizeof p2, "base", 1, 10, -1);
    describe(&f3, NULL, p3, sizeof p3, "base", 2, 10, -1);
    int64_t id1 = 0, id2 = 0, id3 = 0;
    CHECK_MSG(basalt_iceberg_append(&committer, "db.t", &f1, 1, &o, NULL, &id1, &err) == BASALT_OK,
              "%s", err.message);
    CHECK_EQ(k.loads, 0);
    CHECK_EQ(k.commits, 1);
    /* t is now one snapshot behind. */
    CHECK_MSG(basalt_iceberg_append(&committer, "db.t", &f2, 1, NULL, NULL, &id2, &err) == BASALT_OK,
              "%s", err.message);
    CHECK_EQ(k.loads, 1);
    k.loads = k.commits = k.conflicts = 0;
    CHECK_MSG(basalt_iceberg_append(&committer, "db.t", &f3, 1, &o, NULL, &id3, &err) == BASALT_OK,
              "%s", err.message);
    CHECK_EQ(k.conflicts, 1);
    CHECK_EQ(k.loads, 1);
    CHECK_EQ(k.commits, 2);
    basalt_iceberg_table_free(t);
    t = NULL;
    CHECK_EQ(basalt_catalog_load_table(c, "db.t", &t, &err), BASALT_OK);
    CHECK_EQ(t->metadata->n_snapshots, 3);
    const struct basalt_iceberg_snapshot *head = basalt_iceberg_metadata_current_snapshot(t->metadata);
    CHECK(head && head->snapshot_id == id3 && head->has_parent_snapshot_id &&
          head->parent_snapshot_id == id2);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    remove_tree(tmp);
}

static int append_worker(const char *uri, const char *name, int worker, int appends)
{
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    if (basalt_catalog_open(uri, NULL, false, &c, &err) != BASALT_OK)
        return 2;
    struct basalt_iceberg_committer committer;
    basalt_catalog_committer(c, &committer);
    int failures = 0;
    for (int i = 0; i < appends; i++) {
        struct basalt_iceberg_data_file f;
        struct basalt_iceberg_value part;
        char path[96], tag[16];
        snprintf(tag, sizeof tag, "w%d", worker);
        describe(&f, &part, path, sizeof path, tag, i, 1 + worker, i % 4);
        if (basalt_iceberg_append(&committer, name, &f, 1, NULL, NULL, NULL, &err) !=
            BASALT_OK) {
            fprintf(stderr, "worker %d append %d: %s\n", worker, i, err.message);
            failures++;
        }
    }
    basalt_catalog_close(c);
    return failures ? 1 : 0;
}

/* N processes x M appends: every file once, sequence numbers 1..N*M. */
static void concurrent_appends(const char *uri, const char *name)
{
    enum { WORKERS = 4, APPENDS = 8 };
    struct basalt_error err;
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++)
        if ((pids[w] = fork()) == 0)
            _exit(append_worker(uri, name, w, APPENDS));
    int failed = 0;
    for (int w = 0; w < WORKERS; w++) {
        int status = 0;
        waitpid(pids[w], &status, 0);
        failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    CHECK_EQ(failed, 0);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, false, &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_load_table(c, name, &t, &err), BASALT_OK);
    CHECK_EQ(t->metadata->n_snapshots, WORKERS * APPENDS);
    CHECK_EQ(t->metadata->last_sequence_number, WORKERS * APPENDS);
    struct basalt_iceberg_scan *scan = NULL;
    const struct basalt_iceberg_plan *plan = NULL;
    CHECK_EQ(basalt_iceberg_scan_new(t, NULL, &scan, &err), BASALT_OK);
    CHECK_MSG(basalt_iceberg_scan_plan(scan, &plan, &err) == BASALT_OK, "%s", err.message);
    CHECK_EQ(plan->n_tasks, WORKERS * APPENDS);
    int seen[WORKERS][APPENDS];
    memset(seen, 0, sizeof seen);
    bool seq_seen[WORKERS * APPENDS + 1] = {false};
    for (uint32_t i = 0; i < plan->n_tasks; i++) {
        int w = -1, k = -1;
        CHECK(sscanf(plan->tasks[i].file->file_path, "/nowhere/data/w%d-%d.parquet", &w, &k) == 2);
        CHECK(w >= 0 && w < WORKERS && k >= 0 && k < APPENDS);
        seen[w][k]++;
        int64_t s = plan->tasks[i].data_sequence_number;
        CHECK(s >= 1 && s <= WORKERS * APPENDS && !seq_seen[s]);
        seq_seen[s] = true;
    }
    for (int w = 0; w < WORKERS; w++)
        for (int k = 0; k < APPENDS; k++)
            CHECK_MSG(seen[w][k] == 1, "file w%d-%d seen %d times", w, k, seen[w][k]);
    /* Each snapshot's parent is the snapshot before it in sequence order. */
    for (uint32_t i = 0; i < t->metadata->n_snapshots; i++) {
        const struct basalt_iceberg_snapshot *s = &t->metadata->snapshots[i];
        if (s->sequence_number == 1) {
            CHECK(!s->has_parent_snapshot_id);
            continue;
        }
        const struct basalt_iceberg_snapshot *p =
            basalt_iceberg_metadata_snapshot(t->metadata, s->parent_snapshot_id);
        CHECK(p && p->sequence_number == s->sequence_number - 1);
    }
    basalt_iceberg_scan_free(scan);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
}

TEST(sqlite_concurrent_appends_keep_every_file_once)
{
    char tmp[64], uri[128];
    struct basalt_error err;
    snprintf(tmp, sizeof tmp, "/tmp/basalt-append-XXXXXX");
    CHECK(mkdtemp(tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", tmp);
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, true, &c, &err), BASALT_OK);
    CHECK_EQ(create(c, "db.t", 2, "bucket(4, id)", &err), BASALT_OK);
    basalt_catalog_close(c);
    concurrent_appends(uri, "db.t");
    remove_tree(tmp);
}

TEST(postgres_concurrent_appends_keep_every_file_once)
{
    const char *uri = getenv("BASALT_TEST_POSTGRES_URI");
    if (!uri || !*uri) {
        printf("  skipped: BASALT_TEST_POSTGRES_URI is not set\n");
        return;
    }
    char tmp[64];
    struct basalt_error err;
    snprintf(tmp, sizeof tmp, "/tmp/basalt-append-XXXXXX");
    CHECK(mkdtemp(tmp));
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, true, &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_set_warehouse(c, tmp, &err), BASALT_OK);
    CHECK_MSG(create(c, "appends.t", 2, "bucket(4, id)", &err) == BASALT_OK, "%s", err.message);
    basalt_catalog_close(c);
    concurrent_appends(uri, "appends.t");
    remove_tree(tmp);
}
