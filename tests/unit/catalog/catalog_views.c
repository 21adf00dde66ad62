/* Views in SQL catalogs: beside tables in one database (neither ever listed
 * or loaded as the other, no shared names), a V0 database migrated by the
 * first view, a row written as the Java JdbcCatalog writes it, the metadata
 * files, and processes replacing one view at once without losing or
 * repeating a version. SQLite here; the same on PostgreSQL when
 * BASALT_TEST_POSTGRES_URI names a server (tests/cli/catalog_postgres.sh). */
#include <ftw.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basalt/catalog.h"
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
    snprintf(tmp, cap, "/tmp/basalt-views-XXXXXX");
    return mkdtemp(tmp) != NULL;
}

static bool run_sql(const char *db_path, const char *sql)
{
    sqlite3 *db = NULL;
    char *msg = NULL;
    bool ok = sqlite3_open(db_path, &db) == SQLITE_OK &&
              sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK;
    if (msg)
        printf("  sqlite: %s\n", msg);
    sqlite3_free(msg);
    sqlite3_close(db);
    return ok;
}

/* The single text value `sql` selects, "NULL" for SQL NULL, "" for no row. */
static void query(const char *db_path, const char *sql, char *out, size_t cap)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    out[0] = '\0';
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(stmt, 0);
        snprintf(out, cap, "%s", v ? (const char *)v : "NULL");
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

/* "a|b|c" from a list, for comparisons. */
static void joined(char **list, size_t n, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? "|" : "", list[i]);
    basalt_string_list_free(list, n);
}

static bool views_are(struct basalt_catalog *c, const char *ns, const char *want)
{
    char **list = NULL, got[512];
    size_t n = 0;
    struct basalt_error err;
    if (basalt_catalog_list_views(c, ns, &list, &n, &err) != BASALT_OK) {
        printf("  list views: %s\n", err.message);
        return false;
    }
    joined(list, n, got, sizeof got);
    if (strcmp(got, want) != 0)
        printf("  views of %s: '%s', not '%s'\n", ns, got, want);
    return strcmp(got, want) == 0;
}

static bool tables_are(struct basalt_catalog *c, const char *ns, const char *want)
{
    char **list = NULL, got[512];
    size_t n = 0;
    struct basalt_error err;
    if (basalt_catalog_list_tables(c, ns, &list, &n, &err) != BASALT_OK) {
        printf("  list tables: %s\n", err.message);
        return false;
    }
    joined(list, n, got, sizeof got);
    if (strcmp(got, want) != 0)
        printf("  tables of %s: '%s', not '%s'\n", ns, got, want);
    return strcmp(got, want) == 0;
}

static basalt_status create_table(struct basalt_catalog *c, const char *name,
                                  struct basalt_error *err)
{
    char *schema = NULL, *location = NULL, *updates = NULL;
    basalt_status st = basalt_iceberg_schema_from_text("id long not null", &schema, err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(c, name, &location, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, NULL, NULL, 2, location, NULL, 0, &updates,
                                           err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(c, name, updates, NULL, err);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    return st;
}

#define VIEW_SCHEMA                                                                               \
    "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":"  \
    "\"long\"}]}"

static basalt_status create_view(struct basalt_catalog *c, const char *name, const char *sql,
                                 struct basalt_iceberg_view_metadata **out, char **location,
                                 struct basalt_error *err)
{
    struct basalt_iceberg_view_definition def = {
        .schema_json = VIEW_SCHEMA, .sql = sql, .default_namespace = "db"};
    return basalt_catalog_create_sql_view(c, name, &def, out, location, err);
}

/* The catalog_name the shared helpers open with (NULL: the default). */
static const char *catalog_name;

static bool file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Tables and views in one catalog, whatever the database. */
static void tables_and_views(const char *uri, const char *warehouse)
{
    struct basalt_error err;
    struct basalt_catalog *c = NULL;
    CHECK_MSG(basalt_catalog_open(uri, catalog_name, true, &c, &err) == BASALT_OK, "%s", err.message);
    CHECK_EQ(basalt_catalog_set_warehouse(c, warehouse, &err), BASALT_OK);
    CHECK_MSG(create_table(c, "db.t", &err) == BASALT_OK, "%s", err.message);
    struct basalt_iceberg_view_metadata *v = NULL;
    char *loc = NULL, want[1024];
    CHECK_MSG(create_view(c, "db.v", "SELECT id FROM db.t", &v, &loc, &err) == BASALT_OK, "%s",
              err.message);
    /* <warehouse>/<ns>/<view>/metadata/00000-<uuid>.metadata.json */
    snprintf(want, sizeof want, "%s/db/v/metadata/00000-", warehouse);
    CHECK_MSG(strncmp(loc, want, strlen(want)) == 0, "%s", loc);
    CHECK(strstr(loc, ".metadata.json") != NULL);
    CHECK(file_exists(loc));
    snprintf(want, sizeof want, "%s/db/v", warehouse);
    CHECK_STR(v->location, want);
    CHECK_EQ(v->current_version_id, 1);
    CHECK_STR(basalt_iceberg_view_metadata_current_version(v)->representations[0].sql,
              "SELECT id FROM db.t");
    basalt_iceberg_view_metadata_free(v);
    basalt_free(loc);

    CHECK(tables_are(c, "db", "db.t"));
    CHECK(views_are(c, "db", "db.v"));
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_load_table(c, "db.v", &t, &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_load_view(c, "db.t", &v, NULL, &err), BASALT_NOT_FOUND);
    bool exists = true;
    CHECK_EQ(basalt_catalog_view_exists(c, "db.t", &exists, &err), BASALT_OK);
    CHECK(!exists);
    CHECK_EQ(basalt_catalog_view_exists(c, "db.v", &exists, &err), BASALT_OK);
    CHECK(exists);
    /* No shared names, whichever comes second. */
    CHECK_EQ(create_view(c, "db.t", "SELECT 1", NULL, NULL, &err), BASALT_CONFLICT);
    CHECK_EQ(create_view(c, "db.v", "SELECT 1", NULL, NULL, &err), BASALT_CONFLICT);
    CHECK_EQ(create_table(c, "db.v", &err), BASALT_CONFLICT);
    CHECK_EQ(basalt_catalog_drop_table(c, "db.v", &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_drop_view(c, "db.t", &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_commit_table(c, "db.v", NULL, "[]", NULL, &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_commit_view(c, "db.t", NULL, "[]", NULL, NULL, &err),
             BASALT_NOT_FOUND);

    /* A replace writes the next file and swaps the row. */
    struct basalt_iceberg_view_definition def = {
        .schema_json = VIEW_SCHEMA, .sql = "SELECT id + 1 AS id FROM db.t", .dialect = "trino"};
    CHECK_MSG(basalt_catalog_replace_view(c, "db.v", &def, 0, &v, &loc, &err) == BASALT_OK,
              "%s", err.message);
    CHECK(strstr(loc, "/metadata/00001-") != NULL);
    CHECK_EQ(v->n_versions, 2);
    CHECK_EQ(v->n_version_log, 2);
    basalt_iceberg_view_metadata_free(v);
    basalt_free(loc);
    CHECK_EQ(basalt_catalog_load_view(c, "db.v", &v, NULL, &err), BASALT_OK);
    CHECK_EQ(v->current_version_id, 2);
    CHECK_STR(basalt_iceberg_view_metadata_current_version(v)->representations[0].dialect,
              "trino");
    basalt_iceberg_view_metadata_free(v);
    /* A stale uuid is a failed requirement. */
    CHECK_EQ(basalt_catalog_commit_view(
                 c, "db.v", "[{\"type\":\"assert-view-uuid\",\"uuid\":\"x\"}]", "[]", NULL, NULL,
                 &err),
             BASALT_CONFLICT);

    /* Renames: into another (existing) namespace, never onto a table. */
    CHECK_EQ(basalt_catalog_rename_view(c, "db.v", "db.t", &err), BASALT_CONFLICT);
    CHECK_EQ(basalt_catalog_rename_view(c, "db.v", "nowhere.v", &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_rename_view(c, "db.t", "db.t2", &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_create_namespace(c, "other", &err), BASALT_OK);
    CHECK_MSG(basalt_catalog_rename_view(c, "db.v", "other.w", &err) == BASALT_OK, "%s",
              err.message);
    CHECK(views_are(c, "db", ""));
    CHECK(views_are(c, "other", "other.w"));
    CHECK(tables_are(c, "other", ""));
    CHECK_EQ(basalt_catalog_load_view(c, "other.w", &v, &loc, &err), BASALT_OK);
    basalt_iceberg_view_metadata_free(v);
    /* Registered again under a second name from its file. */
    CHECK_EQ(basalt_catalog_register_view(c, "db.t", loc, &err), BASALT_CONFLICT);
    CHECK_MSG(basalt_catalog_register_view(c, "db.again", loc, &err) == BASALT_OK, "%s",
              err.message);
    basalt_free(loc);
    CHECK(views_are(c, "db", "db.again"));
    CHECK_EQ(basalt_catalog_drop_view(c, "other.w", &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_drop_view(c, "other.w", &err), BASALT_NOT_FOUND);
    CHECK(views_are(c, "other", ""));
    CHECK(tables_are(c, "db", "db.t"));
    CHECK_EQ(basalt_catalog_load_table(c, "db.t", &t, &err), BASALT_OK);
    basalt_iceberg_table_free(t);
    char **list = NULL;
    size_t n = 0;
    CHECK_EQ(basalt_catalog_list_views(c, "missing", &list, &n, &err), BASALT_NOT_FOUND);
    basalt_catalog_close(c);
}

TEST(sqlite_views_beside_tables)
{
    char tmp[64], uri[160], db[128], text[64];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(db, sizeof db, "%.60s/catalog.db", tmp);
    snprintf(uri, sizeof uri, "sqlite:%s", db);
    tables_and_views(uri, tmp);
    if (bt_failed()) {
        remove_tree(tmp);
        return;
    }
    /* Rows as the Java catalog writes them: 'VIEW' for views; the table
     * created before there were views keeps NULL (a table to both). */
    query(db, "SELECT iceberg_type FROM iceberg_tables WHERE table_name = 'again'", text,
          sizeof text);
    CHECK_STR(text, "VIEW");
    query(db, "SELECT iceberg_type FROM iceberg_tables WHERE table_name = 't'", text,
          sizeof text);
    CHECK_STR(text, "NULL");
    remove_tree(tmp);
}

/* PyIceberg's DDL (the V0 schema), a table in it, then views: the column
 * is added, the table stays a table. */
TEST(sqlite_v0_catalog_migrated_by_the_first_view)
{
    char tmp[64], uri[160], db[128], text[64];
    struct basalt_error err;
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(db, sizeof db, "%.60s/catalog.db", tmp);
    snprintf(uri, sizeof uri, "sqlite:%s", db);
    struct basalt_catalog *c = NULL, *stale = NULL;
    CHECK_EQ(basalt_catalog_open(uri, catalog_name, true, &c, &err), BASALT_OK);
    CHECK_EQ(create_table(c, "db.t", &err), BASALT_OK);
    query(db, "SELECT count(*) FROM pragma_table_info('iceberg_tables') WHERE name = "
              "'iceberg_type'",
          text, sizeof text);
    CHECK_STR(text, "0");
    CHECK(views_are(c, "db", ""));
    struct basalt_iceberg_view_metadata *v = NULL;
    CHECK_EQ(basalt_catalog_load_view(c, "db.t", &v, NULL, &err), BASALT_NOT_FOUND);
    /* A second connection opened while the database was V0. */
    CHECK_EQ(basalt_catalog_open(uri, catalog_name, false, &stale, &err), BASALT_OK);
    CHECK_MSG(create_view(c, "db.v", "SELECT 1 AS id", NULL, NULL, &err) == BASALT_OK, "%s",
              err.message);
    query(db, "SELECT type FROM pragma_table_info('iceberg_tables') WHERE name = 'iceberg_type'",
          text, sizeof text);
    CHECK_STR(text, "VARCHAR(5)");
    CHECK(tables_are(c, "db", "db.t"));
    CHECK(views_are(c, "db", "db.v"));
    /* The old connection sees the column now, and no view as a table. */
    CHECK(tables_are(stale, "db", "db.t"));
    CHECK(views_are(stale, "db", "db.v"));
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_load_table(stale, "db.v", &t, &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_commit_table(stale, "db.t", NULL,
                                         "[{\"action\":\"set-properties\",\"updates\":{\"a\":"
                                         "\"b\"}}]",
                                         NULL, &err),
             BASALT_OK);
    CHECK_EQ(create_table(stale, "db.t2", &err), BASALT_OK);
    query(db, "SELECT iceberg_type FROM iceberg_tables WHERE table_name = 't2'", text,
          sizeof text);
    CHECK_STR(text, "TABLE");
    CHECK(tables_are(c, "db", "db.t|db.t2"));
    basalt_catalog_close(stale);
    basalt_catalog_close(c);
    remove_tree(tmp);
}

/* A catalog the Java JdbcCatalog made (V1 schema) with a view row and the
 * Java library's own view metadata file. */
TEST(sqlite_reads_a_java_view_row)
{
    char tmp[64], uri[160], db[128], meta[512], sql[2048];
    struct basalt_error err;
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(db, sizeof db, "%.60s/jdbc.db", tmp);
    snprintf(uri, sizeof uri, "jdbc:sqlite:%s", db);
    snprintf(meta, sizeof meta, "%s/iceberg/metadata-json/apache-iceberg/view/ValidViewMetadata.json",
             BASALT_TEST_DATA_DIR);
    snprintf(sql, sizeof sql,
             "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace "
             "VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL,metadata_location "
             "VARCHAR(1000),previous_metadata_location VARCHAR(1000),PRIMARY KEY (catalog_name, "
             "table_namespace, table_name));\n"
             "CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT "
             "NULL,namespace VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value "
             "VARCHAR(1000),PRIMARY KEY (catalog_name, namespace, property_key));\n"
             "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5);\n"
             "INSERT INTO iceberg_tables VALUES ('default', 'ns', 'jv', '%s', NULL, 'VIEW');\n"
             "INSERT INTO iceberg_tables VALUES ('other', 'ns', 'elsewhere', '%s', NULL, "
             "'VIEW');\n",
             meta, meta);
    CHECK(run_sql(db, sql));
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, catalog_name, false, &c, &err), BASALT_OK);
    CHECK(views_are(c, "ns", "ns.jv"));
    CHECK(tables_are(c, "ns", ""));
    struct basalt_iceberg_view_metadata *v = NULL;
    char *loc = NULL;
    CHECK_MSG(basalt_catalog_load_view(c, "ns.jv", &v, &loc, &err) == BASALT_OK, "%s",
              err.message);
    CHECK_STR(loc, meta);
    basalt_free(loc);
    CHECK_STR(v->view_uuid, "fa6506c3-7681-40c8-86dc-e36561f83385");
    CHECK_EQ(v->current_version_id, 2);
    CHECK_STR(basalt_iceberg_view_metadata_current_version(v)->representations[0].sql,
              "select 1 id, 'abc' data");
    basalt_iceberg_view_metadata_free(v);
    CHECK_EQ(basalt_catalog_load_view(c, "ns.elsewhere", &v, NULL, &err), BASALT_NOT_FOUND);
    basalt_catalog_close(c);
    remove_tree(tmp);
}

/* ------------------------------------------------------------ concurrency */

/* One process: `n` replaces of db.v, each with its own SQL; exits with the
 * number accepted (each replace retried up to `retries` times). */
static int replace_worker(const char *uri, int worker, int n, int retries)
{
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    if (basalt_catalog_open(uri, catalog_name, false, &c, &err) != BASALT_OK)
        return 100;
    int accepted = 0;
    for (int i = 0; i < n; i++) {
        char sql[64];
        /* Distinct per round too: an equal version would be reused. */
        snprintf(sql, sizeof sql, "SELECT %d AS id -- worker %d, %s", i, worker,
                 retries ? "retrying" : "once");
        struct basalt_iceberg_view_definition def = {.schema_json = VIEW_SCHEMA, .sql = sql};
        basalt_status st = basalt_catalog_replace_view(c, "db.v", &def, retries, NULL, NULL, &err);
        if (st == BASALT_OK) {
            accepted++;
        } else if (st != BASALT_CONFLICT) {
            fprintf(stderr, "worker %d replace %d: %s\n", worker, i, err.message);
            basalt_catalog_close(c);
            return 101;
        }
    }
    basalt_catalog_close(c);
    return accepted;
}

/* Two processes replace one view at once. Every replace either lands or
 * fails with CONFLICT; the view then holds exactly the versions it had and
 * those accepted, each once (no two alike), and its log grew by one entry
 * per accepted replace, no version named twice. */
static void concurrent_replaces(const char *uri, int retries, int *conflicts)
{
    enum { WORKERS = 2, REPLACES = 12 };
    struct basalt_error err;
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_view_metadata *before = NULL;
    CHECK_EQ(basalt_catalog_open(uri, catalog_name, false, &c, &err), BASALT_OK);
    /* Keep every version: the test counts them. */
    CHECK_MSG(basalt_catalog_commit_view(c, "db.v", NULL,
                                         "[{\"action\":\"set-properties\",\"updates\":{"
                                         "\"version.history.num-entries\":\"1000\"}}]",
                                         &before, NULL, &err) == BASALT_OK,
              "%s", err.message);
    basalt_catalog_close(c);
    uint32_t versions_before = before->n_versions, log_before = before->n_version_log;
    basalt_iceberg_view_metadata_free(before);
    pid_t pids[WORKERS];
    int accepted = 0, failed = 0;
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(replace_worker(uri, w, REPLACES, retries));
    }
    for (int w = 0; w < WORKERS; w++) {
        int status = 0;
        waitpid(pids[w], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) > REPLACES)
            failed++;
        else
            accepted += WEXITSTATUS(status);
    }
    CHECK_EQ(failed, 0);
    *conflicts = WORKERS * REPLACES - accepted;
    struct basalt_iceberg_view_metadata *v = NULL;
    CHECK_EQ(basalt_catalog_open(uri, catalog_name, false, &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_load_view(c, "db.v", &v, NULL, &err), BASALT_OK);
    basalt_catalog_close(c);
    CHECK_EQ(v->n_versions, versions_before + (uint32_t)accepted);
    CHECK_EQ(v->n_version_log, log_before + (uint32_t)accepted);
    bool ok = true;
    for (uint32_t i = 0; i < v->n_version_log && ok; i++)
        for (uint32_t j = 0; j < i; j++)
            ok = ok && v->version_log[i].version_id != v->version_log[j].version_id;
    for (uint32_t i = 0; i < v->n_versions && ok; i++)
        for (uint32_t j = 0; j < i; j++)
            ok = ok && strcmp(v->versions[i].representations[0].sql,
                              v->versions[j].representations[0].sql) != 0;
    /* The last accepted replace is current. */
    ok = ok && v->current_version_id == v->version_log[v->n_version_log - 1].version_id;
    basalt_iceberg_view_metadata_free(v);
    CHECK(ok);
}

static void concurrency(const char *uri, const char *warehouse)
{
    struct basalt_error err;
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, catalog_name, true, &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_set_warehouse(c, warehouse, &err), BASALT_OK);
    CHECK_MSG(create_view(c, "db.v", "SELECT 0 AS id", NULL, NULL, &err) == BASALT_OK, "%s",
              err.message);
    basalt_catalog_close(c);
    int conflicts = 0;
    /* Without retries some replaces meet another's commit: CONFLICT. */
    concurrent_replaces(uri, 0, &conflicts);
    printf("  without retries: %d of 24 replaces refused\n", conflicts);
    /* With enough retries every one lands. */
    concurrent_replaces(uri, 1000, &conflicts);
    CHECK_EQ(conflicts, 0);
}

TEST(sqlite_concurrent_view_replaces_keep_each_version_once)
{
    char tmp[64], uri[160];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", tmp);
    concurrency(uri, tmp);
    remove_tree(tmp);
}

TEST(postgres_views_beside_tables_and_concurrent_replaces)
{
    const char *uri = getenv("BASALT_TEST_POSTGRES_URI");
    if (!uri || !*uri) {
        printf("  skipped: BASALT_TEST_POSTGRES_URI is not set\n");
        return;
    }
    char tmp[64];
    CHECK(make_tmp(tmp, sizeof tmp));
    /* A catalog of its own in the server's database, which the other
     * PostgreSQL tests share. When this test comes first the database is
     * made V0 here and the first view migrates it. */
    catalog_name = "views";
    tables_and_views(uri, tmp);
    if (!bt_failed()) {
        struct basalt_error err;
        struct basalt_catalog *c = NULL;
        CHECK_EQ(basalt_catalog_open(uri, catalog_name, false, &c, &err), BASALT_OK);
        CHECK_EQ(basalt_catalog_drop_view(c, "db.again", &err), BASALT_OK);
        basalt_catalog_close(c);
        concurrency(uri, tmp);
    }
    catalog_name = NULL;
    remove_tree(tmp);
}
