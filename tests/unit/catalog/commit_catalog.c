/* Creating and committing tables in the SQLite and file-system catalogs:
 * the files written, the pointer swap, conflicts, and several processes
 * committing to one table at once without losing a change. */
#include <ftw.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_metadata.h"
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

static bool make_tmp(char *tmp, size_t cap)
{
    snprintf(tmp, cap, "/tmp/basalt-commit-XXXXXX");
    return mkdtemp(tmp) != NULL;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Creates table `name` with a small schema in catalog `c`. */
static basalt_status create(struct basalt_catalog *c, const char *name,
                            struct basalt_iceberg_table **out, struct basalt_error *err)
{
    char *schema = NULL, *location = NULL, *updates = NULL;
    basalt_status st = basalt_iceberg_schema_from_text("id long not null, v string", &schema, err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(c, name, &location, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, "bucket(4, id)", NULL, 2, location, NULL, 0,
                                           &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(c, name, updates, out, err);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    return st;
}

/* The stored metadata_location and previous_metadata_location of a row. */
static bool sql_row(const char *db_path, const char *name, char *loc, char *prev, size_t cap)
{
    sqlite3 *db;
    sqlite3_stmt *stmt;
    bool ok = false;
    if (sqlite3_open(db_path, &db) != SQLITE_OK)
        return false;
    if (sqlite3_prepare_v2(db,
                           "SELECT metadata_location, previous_metadata_location FROM "
                           "iceberg_tables WHERE table_name = ?1",
                           -1, &stmt, NULL) == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
        if (sqlite3_step(stmt) == SQLITE_ROW) {
            const unsigned char *a = sqlite3_column_text(stmt, 0), *b = sqlite3_column_text(stmt, 1);
            snprintf(loc, cap, "%s", a ? (const char *)a : "");
            snprintf(prev, cap, "%s", b ? (const char *)b : "");
            ok = true;
        }
        sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
    return ok;
}

TEST(sqlite_create_and_commit_swap_the_pointer)
{
    char tmp[64], uri[160], db[128], loc0[512], loc1[512], prev[512];
    struct basalt_error err;
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(db, sizeof db, "%s/catalog.db", tmp);
    snprintf(uri, sizeof uri, "sqlite:%s", db);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, true, &c, &err), BASALT_OK);
    CHECK_MSG(create(c, "db.events", &t, &err) == BASALT_OK, "%s", err.message);
    /* Tables go under the catalog's directory, namespace levels as dirs. */
    char want[256];
    char real[200];
    CHECK(realpath(tmp, real) != NULL);
    snprintf(want, sizeof want, "%s/db/events", real);
    CHECK_STR(t->metadata->location, want);
    CHECK_EQ(t->metadata->default_spec_id, 0);
    basalt_iceberg_table_free(t);
    CHECK(sql_row(db, "events", loc0, prev, sizeof loc0));
    CHECK(strstr(loc0, "/db/events/metadata/00000-") && strstr(loc0, ".metadata.json"));
    CHECK_STR(prev, "");
    CHECK(exists(loc0));
    /* A second create of the same name is a conflict and writes nothing. */
    CHECK_EQ(create(c, "db.events", NULL, &err), BASALT_CONFLICT);

    CHECK_MSG(basalt_catalog_commit_table(
                  c, "db.events", "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}]",
                  "[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]", &t, &err) ==
                  BASALT_OK,
              "%s", err.message);
    CHECK_STR(basalt_iceberg_metadata_property(t->metadata, "k"), "v");
    CHECK_EQ(t->metadata->n_metadata_log, 1);
    CHECK_STR(t->metadata->metadata_log[0].metadata_file, loc0);
    basalt_iceberg_table_free(t);
    CHECK(sql_row(db, "events", loc1, prev, sizeof loc1));
    CHECK(strstr(loc1, "/metadata/00001-") != NULL);
    CHECK_STR(prev, loc0);
    /* A failed requirement changes nothing and leaves no file behind. */
    CHECK_EQ(basalt_catalog_commit_table(
                 c, "db.events", "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":7}]",
                 "[{\"action\":\"set-properties\",\"updates\":{\"k\":\"w\"}}]", NULL, &err),
             BASALT_CONFLICT);
    char loc2[512];
    CHECK(sql_row(db, "events", loc2, prev, sizeof loc2));
    CHECK_STR(loc2, loc1);
    char metadata_dir[512];
    snprintf(metadata_dir, sizeof metadata_dir, "%s/db/events/metadata", tmp);
    int files = 0;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s | wc -l", metadata_dir);
    FILE *p = popen(cmd, "r");
    CHECK(p && fscanf(p, "%d", &files) == 1);
    pclose(p);
    CHECK_EQ(files, 2);
    basalt_catalog_close(c);
    remove_tree(tmp);
}

TEST(filesystem_catalog_commits_by_exclusive_create)
{
    char tmp[64];
    struct basalt_error err;
    CHECK(make_tmp(tmp, sizeof tmp));
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_open(tmp, NULL, true, &c, &err), BASALT_OK);
    CHECK_MSG(create(c, "ns.t", &t, &err) == BASALT_OK, "%s", err.message);
    basalt_iceberg_table_free(t);
    char path[256];
    snprintf(path, sizeof path, "%s/ns/t/metadata/v1.metadata.json", tmp);
    CHECK(exists(path));
    CHECK_MSG(basalt_catalog_commit_table(
                  c, "ns.t", NULL, "[{\"action\":\"set-properties\",\"updates\":{\"a\":\"1\"}}]",
                  &t, &err) == BASALT_OK,
              "%s", err.message);
    CHECK_STR(basalt_iceberg_metadata_property(t->metadata, "a"), "1");
    basalt_iceberg_table_free(t);
    snprintf(path, sizeof path, "%s/ns/t/metadata/v2.metadata.json", tmp);
    CHECK(exists(path));
    snprintf(path, sizeof path, "%s/ns/t/metadata/version-hint.text", tmp);
    FILE *f = fopen(path, "r");
    int hint = 0;
    CHECK(f && fscanf(f, "%d", &hint) == 1);
    fclose(f);
    CHECK_EQ(hint, 2);
    /* Someone else's v3 appears first: the commit loses, cleanly. */
    snprintf(path, sizeof path, "%s/ns/t/metadata/v3.metadata.json", tmp);
    char v2[600];
    snprintf(v2, sizeof v2, "cp %s/ns/t/metadata/v2.metadata.json %s", tmp, path);
    CHECK(system(v2) == 0);
    snprintf(path, sizeof path, "%s/ns/t/metadata/version-hint.text", tmp);
    /* The hint still says 2, so the commit builds v3 and finds it taken. */
    CHECK_EQ(basalt_catalog_commit_table(
                 c, "ns.t", NULL, "[{\"action\":\"set-properties\",\"updates\":{\"a\":\"2\"}}]",
                 NULL, &err),
             BASALT_OK); /* the hint rolls forward to v3: the commit writes v4 */
    snprintf(path, sizeof path, "%s/ns/t/metadata/v4.metadata.json", tmp);
    CHECK(exists(path));
    basalt_catalog_close(c);
    remove_tree(tmp);
}

/* One child process: `commits` property commits, each retried until it wins. */
static int commit_worker(const char *uri, int worker, int commits)
{
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    if (basalt_catalog_open(uri, NULL, false, &c, &err) != BASALT_OK)
        return 2;
    int failures = 0;
    for (int i = 0; i < commits; i++) {
        char updates[160];
        snprintf(updates, sizeof updates,
                 "[{\"action\":\"set-properties\",\"updates\":{\"w%d-%d\":\"x\"}}]", worker, i);
        basalt_status st;
        int tries = 0;
        do {
            st = basalt_catalog_commit_table(c, "db.t", NULL, updates, NULL, &err);
        } while (st == BASALT_CONFLICT && ++tries < 1000);
        if (st != BASALT_OK) {
            fprintf(stderr, "worker %d commit %d: %s\n", worker, i, err.message);
            failures++;
        }
    }
    basalt_catalog_close(c);
    return failures ? 1 : 0;
}

/* Processes committing to one table at once: every change lands exactly
 * once, and the metadata log is one unbroken chain. */
static void concurrent_commits(const char *uri)
{
    enum { WORKERS = 4, COMMITS = 12 };
    struct basalt_error err;
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(commit_worker(uri, w, COMMITS));
    }
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
    CHECK_EQ(basalt_catalog_load_table(c, "db.t", &t, &err), BASALT_OK);
    for (int w = 0; w < WORKERS; w++)
        for (int i = 0; i < COMMITS; i++) {
            char key[32];
            snprintf(key, sizeof key, "w%d-%d", w, i);
            CHECK_MSG(basalt_iceberg_metadata_property(t->metadata, key) != NULL, "lost %s", key);
        }
    /* One metadata file per commit plus the first, each naming its
     * predecessor in the log. */
    CHECK_EQ(t->metadata->n_metadata_log, WORKERS * COMMITS);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
}

TEST(sqlite_concurrent_commits_lose_nothing)
{
    char tmp[64], uri[128];
    struct basalt_error err;
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", tmp);
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, true, &c, &err), BASALT_OK);
    CHECK_EQ(create(c, "db.t", NULL, &err), BASALT_OK);
    basalt_catalog_close(c);
    concurrent_commits(uri);
    remove_tree(tmp);
}

TEST(filesystem_concurrent_commits_lose_nothing)
{
    char tmp[64];
    struct basalt_error err;
    CHECK(make_tmp(tmp, sizeof tmp));
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(tmp, NULL, true, &c, &err), BASALT_OK);
    CHECK_EQ(create(c, "db.t", NULL, &err), BASALT_OK);
    basalt_catalog_close(c);
    concurrent_commits(tmp);
    remove_tree(tmp);
}

/* PostgreSQL: the same catalog through libpq, against a server the ctest
 * wrapper (tests/cli/catalog_postgres.sh) starts; skipped without one. */
TEST(postgres_create_commit_and_concurrent_commits)
{
    const char *uri = getenv("BASALT_TEST_POSTGRES_URI");
    if (!uri || !*uri) {
        printf("  skipped: BASALT_TEST_POSTGRES_URI is not set\n");
        return;
    }
    char tmp[64];
    struct basalt_error err;
    CHECK(make_tmp(tmp, sizeof tmp));
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    CHECK_MSG(basalt_catalog_open(uri, NULL, true, &c, &err) == BASALT_OK, "%s",
              err.message);
    CHECK_EQ(basalt_catalog_set_warehouse(c, tmp, &err), BASALT_OK);
    CHECK_MSG(create(c, "db.t", &t, &err) == BASALT_OK, "%s", err.message);
    basalt_iceberg_table_free(t);
    CHECK_EQ(create(c, "db.t", NULL, &err), BASALT_CONFLICT);
    bool exists = false;
    CHECK_EQ(basalt_catalog_namespace_exists(c, "db", &exists, &err), BASALT_OK);
    CHECK(exists);
    CHECK_EQ(basalt_catalog_commit_table(
                 c, "db.t", "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":3}]",
                 "[]", NULL, &err),
             BASALT_CONFLICT);
    basalt_catalog_close(c);
    concurrent_commits(uri);
    /* A wrong server is a clear IO error naming it, without a password. */
    CHECK_EQ(basalt_catalog_open("postgresql://basalt:s3cret@127.0.0.1:1/none", NULL,
                                         false, &c, &err),
             BASALT_IO);
    CHECK(strstr(err.message, "127.0.0.1:1") != NULL);
    CHECK(strstr(err.message, "s3cret") == NULL);
    remove_tree(tmp);
}
