/* The SQL catalog on SQLite: the schema it creates (against PyIceberg's DDL),
 * catalogs written by other tools (PyIceberg's DDL and rows, the Java
 * catalog's V1 schema with views), and create / register / list / load /
 * drop / conflict. Also the filesystem catalog over corpus warehouses. */
#include <ftw.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_metadata.h"
#include "test.h"

static const char *corpus(const char *rel, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", bt_testdata_path("iceberg"), rel);
    return buf;
}

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
    snprintf(tmp, cap, "/tmp/basalt-catalog-XXXXXX");
    return mkdtemp(tmp) != NULL;
}

#define BUNNIES_V5 "icebird/hyperparam-iceberg/java/bunnies/metadata/v5.metadata.json"
#define CITIES_V1 \
    "glaredb/iceberg/wh/default.db/cities/metadata/00001-278cfebe-cfd4-4475-b30f-1b8ba1ae8eee.metadata.json"
#define ATHENA_V1 \
    "athena/example/metadata/00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json"

/* The columns of a table as PRAGMA table_info reports them. */
struct column {
    const char *name;
    const char *type;
    int notnull;
    int pk; /* position in the primary key, 0 when not in it */
};

/* Expected from pyiceberg/catalog/sql.py (apache/iceberg-python), the
 * SQLAlchemy models the SqlCatalog creates its tables from:
 *   class IcebergTables: __tablename__ = "iceberg_tables"
 *     catalog_name: mapped_column(String(255), nullable=False, primary_key=True)
 *     table_namespace: mapped_column(String(255), nullable=False, primary_key=True)
 *     table_name: mapped_column(String(255), nullable=False, primary_key=True)
 *     metadata_location: mapped_column(String(1000), nullable=True)
 *     previous_metadata_location: mapped_column(String(1000), nullable=True)
 *   class IcebergNamespaceProperties: __tablename__ = "iceberg_namespace_properties"
 *     catalog_name: mapped_column(String(255), nullable=False, primary_key=True)
 *     namespace: mapped_column(String(255), nullable=False, primary_key=True)
 *     property_key: mapped_column(String(255), nullable=False, primary_key=True)
 *     property_value: mapped_column(String(1000), nullable=False)
 * (String(n) is VARCHAR(n); primary key order is declaration order.) */
static const struct column tables_columns[] = {
    {"catalog_name", "VARCHAR(255)", 1, 1},
    {"table_namespace", "VARCHAR(255)", 1, 2},
    {"table_name", "VARCHAR(255)", 1, 3},
    {"metadata_location", "VARCHAR(1000)", 0, 0},
    {"previous_metadata_location", "VARCHAR(1000)", 0, 0},
};
static const struct column properties_columns[] = {
    {"catalog_name", "VARCHAR(255)", 1, 1},
    {"namespace", "VARCHAR(255)", 1, 2},
    {"property_key", "VARCHAR(255)", 1, 3},
    {"property_value", "VARCHAR(1000)", 1, 0},
};

static bool same_columns(sqlite3 *db, const char *table, const struct column *want, int n)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
        return false;
    int i = 0;
    bool ok = true;
    while (ok && sqlite3_step(stmt) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(stmt, 1);
        const char *type = (const char *)sqlite3_column_text(stmt, 2);
        int notnull = sqlite3_column_int(stmt, 3), pk = sqlite3_column_int(stmt, 5);
        bool dflt_null = sqlite3_column_type(stmt, 4) == SQLITE_NULL;
        if (i >= n || strcmp(name, want[i].name) != 0 || strcmp(type, want[i].type) != 0 ||
            notnull != want[i].notnull || pk != want[i].pk || !dflt_null) {
            printf("  %s column %d: %s %s notnull=%d pk=%d\n", table, i, name, type, notnull, pk);
            ok = false;
        }
        i++;
    }
    sqlite3_finalize(stmt);
    return ok && i == n;
}

/* Rows of a one-column query, joined with '|'. */
static bool query_is(sqlite3 *db, const char *sql, const char *want)
{
    sqlite3_stmt *stmt;
    char got[1024] = "";
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        printf("  %s: %s\n", sql, sqlite3_errmsg(db));
        return false;
    }
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(stmt, 0);
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%s", n ? "|" : "", v ? v : "NULL");
    }
    sqlite3_finalize(stmt);
    if (strcmp(got, want) != 0) {
        printf("  %s: got '%s', expected '%s'\n", sql, got, want);
        return false;
    }
    return true;
}

TEST(catalog_sql_schema_matches_pyiceberg)
{
    char tmp[256], uri[600], db_path[512];
    CHECK(make_tmp(tmp, sizeof tmp));
    /* The parent directories are created too. */
    snprintf(db_path, sizeof db_path, "%s/a/b/catalog.db", tmp);
    snprintf(uri, sizeof uri, "sqlite:%s", db_path);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = basalt_catalog_open(uri, NULL, true, &c, &err);
    basalt_catalog_close(c);
    bool ok = false, objects = false;
    sqlite3 *db = NULL;
    if (st == BASALT_OK && sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        ok = same_columns(db, "iceberg_tables", tables_columns, 5) &&
             same_columns(db, "iceberg_namespace_properties", properties_columns, 4);
        /* Nothing else: the two tables and their primary-key indexes. */
        objects = query_is(db, "SELECT type || ':' || name FROM sqlite_master ORDER BY name",
                           "table:iceberg_namespace_properties|table:iceberg_tables|"
                           "index:sqlite_autoindex_iceberg_namespace_properties_1|"
                           "index:sqlite_autoindex_iceberg_tables_1");
    }
    sqlite3_close(db);
    /* Opening again (without create) keeps the schema and works. */
    basalt_status again = basalt_catalog_open(uri, NULL, false, &c, &err);
    basalt_catalog_close(c);
    remove_tree(tmp);
    CHECK_OK(st, &err);
    CHECK(ok);
    CHECK(objects);
    CHECK_OK(again, &err);
}

static bool list_is(char **list, size_t n, const char *want)
{
    char got[1024] = "";
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(got);
        snprintf(got + k, sizeof got - k, "%s%s", i ? "|" : "", list[i]);
    }
    basalt_string_list_free(list, n);
    if (strcmp(got, want) != 0) {
        printf("  list '%s', expected '%s'\n", got, want);
        return false;
    }
    return true;
}

static bool namespaces_are(struct basalt_catalog *c, const char *parent, const char *want)
{
    char **list;
    size_t n;
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_catalog_list_namespaces(c, parent, &list, &n, &err) != BASALT_OK) {
        printf("  namespaces of %s: %s\n", parent ? parent : "(root)", err.message);
        return false;
    }
    return list_is(list, n, want);
}

static bool tables_are(struct basalt_catalog *c, const char *ns, const char *want)
{
    char **list;
    size_t n;
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_catalog_list_tables(c, ns, &list, &n, &err) != BASALT_OK) {
        printf("  tables of %s: %s\n", ns, err.message);
        return false;
    }
    return list_is(list, n, want);
}

TEST(catalog_sql_register_list_load_drop)
{
    char tmp[256], uri[600], meta[1024], db_path[512];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(db_path, sizeof db_path, "%s/catalog.db", tmp);
    snprintf(uri, sizeof uri, "sqlite:%s", db_path);
    corpus(BUNNIES_V5, meta, sizeof meta);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    bool ok = basalt_catalog_open(uri, NULL, true, &c, &err) == BASALT_OK;
    ok = ok && basalt_catalog_register_table(c, "db.bunnies", meta, &err) == BASALT_OK;
    ok = ok && namespaces_are(c, NULL, "db") && tables_are(c, "db", "db.bunnies");
    struct basalt_iceberg_table *t = NULL;
    ok = ok && basalt_catalog_load_table(c, "db.bunnies", &t, &err) == BASALT_OK;
    /* TABLES.tsv: v5 has 3 snapshots, current 9158179788527662767 */
    ok = ok && t->metadata->n_snapshots == 3 && t->metadata->has_current_snapshot_id &&
         t->metadata->current_snapshot_id == INT64_C(9158179788527662767) &&
         strcmp(t->name, "db.bunnies") == 0 && strcmp(t->metadata_location, meta) == 0;
    basalt_iceberg_table_free(t);
    t = NULL;
    CHECK(ok);
    /* twice: CONFLICT, and the first row is untouched */
    basalt_status twice = basalt_catalog_register_table(c, "db.bunnies", meta, &err);
    bool conflict_named = strstr(err.message, "db.bunnies") != NULL;
    /* a location that does not load is refused and nothing is written */
    basalt_status bad = basalt_catalog_register_table(c, "db.nothing", "/no/such.metadata.json",
                                                              NULL);
    /* nested namespaces */
    ok = basalt_catalog_register_table(c, "a.b.t", meta, &err) == BASALT_OK;
    ok = ok && namespaces_are(c, NULL, "a|db") && namespaces_are(c, "a", "a.b") &&
         namespaces_are(c, "a.b", "") && tables_are(c, "a.b", "a.b.t") && tables_are(c, "a", "") &&
         tables_are(c, "db", "db.bunnies");
    /* an empty namespace exists by its ("exists", "true") property row */
    ok = ok && basalt_catalog_create_namespace(c, "empty", &err) == BASALT_OK;
    ok = ok && namespaces_are(c, NULL, "a|db|empty") && tables_are(c, "empty", "");
    basalt_status again = basalt_catalog_create_namespace(c, "empty", NULL);
    basalt_status dup = basalt_catalog_create_namespace(c, "a", NULL); /* exists by a table */
    bool exists_a = false, exists_upper = true, exists_pattern = true;
    ok = ok && basalt_catalog_namespace_exists(c, "a", &exists_a, &err) == BASALT_OK &&
         basalt_catalog_namespace_exists(c, "A", &exists_upper, &err) == BASALT_OK &&
         basalt_catalog_namespace_exists(c, "_", &exists_pattern, &err) == BASALT_OK;
    char **none = NULL;
    size_t n_none = 0;
    basalt_status no_ns = basalt_catalog_list_tables(c, "nope", &none, &n_none, NULL);
    basalt_string_list_free(none, n_none);
    /* drop removes the row only */
    basalt_status dropped = basalt_catalog_drop_table(c, "db.bunnies", &err);
    basalt_status load_dropped = basalt_catalog_load_table(c, "db.bunnies", &t, NULL);
    basalt_status drop_again = basalt_catalog_drop_table(c, "db.bunnies", NULL);
    basalt_status no_dot = basalt_catalog_load_table(c, "bunnies", &t, NULL);
    struct stat sb;
    bool file_kept = stat(meta, &sb) == 0;
    basalt_catalog_close(c);

    sqlite3 *db = NULL;
    bool rows = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
                query_is(db,
                         "SELECT catalog_name || ',' || table_namespace || ',' || table_name || ',' "
                         "|| coalesce(previous_metadata_location, 'NULL') FROM iceberg_tables",
                         "default,a.b,t,NULL") &&
                query_is(db,
                         "SELECT namespace || ',' || property_key || ',' || property_value FROM "
                         "iceberg_namespace_properties ORDER BY namespace",
                         "a.b,exists,true|db,exists,true|empty,exists,true");
    sqlite3_close(db);
    remove_tree(tmp);
    CHECK(ok);
    CHECK_EQ(twice, BASALT_CONFLICT);
    CHECK(conflict_named);
    CHECK_EQ(bad, BASALT_NOT_FOUND);
    CHECK_EQ(again, BASALT_CONFLICT);
    CHECK_EQ(dup, BASALT_CONFLICT);
    CHECK(exists_a);
    CHECK(!exists_upper);
    CHECK(!exists_pattern);
    CHECK_EQ(no_ns, BASALT_NOT_FOUND);
    CHECK_EQ(dropped, BASALT_OK);
    CHECK_EQ(load_dropped, BASALT_NOT_FOUND);
    CHECK_EQ(drop_again, BASALT_NOT_FOUND);
    CHECK_EQ(no_dot, BASALT_INVALID_ARG);
    CHECK(file_kept);
    CHECK(rows);
}

/* Runs SQL text on a new database file, as the sqlite3 shell would. */
static bool run_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return false;
    char *msg = NULL;
    bool ok = sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK;
    if (!ok)
        printf("  %s\n", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    return ok;
}

TEST(catalog_sql_reads_pyiceberg_catalog)
{
    char tmp[256], db_path[512], uri[600], meta[1024], sql[4096];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(db_path, sizeof db_path, "%s/pyiceberg.db", tmp);
    corpus(CITIES_V1, meta, sizeof meta);
    /* The DDL SQLAlchemy emits for PyIceberg's models, and the rows a
     * PyIceberg create_namespace("default") + register_table write. */
    snprintf(sql, sizeof sql,
             "CREATE TABLE iceberg_tables (\n"
             "\tcatalog_name VARCHAR(255) NOT NULL, \n"
             "\ttable_namespace VARCHAR(255) NOT NULL, \n"
             "\ttable_name VARCHAR(255) NOT NULL, \n"
             "\tmetadata_location VARCHAR(1000), \n"
             "\tprevious_metadata_location VARCHAR(1000), \n"
             "\tPRIMARY KEY (catalog_name, table_namespace, table_name)\n"
             ");\n"
             "CREATE TABLE iceberg_namespace_properties (\n"
             "\tcatalog_name VARCHAR(255) NOT NULL, \n"
             "\tnamespace VARCHAR(255) NOT NULL, \n"
             "\tproperty_key VARCHAR(255) NOT NULL, \n"
             "\tproperty_value VARCHAR(1000) NOT NULL, \n"
             "\tPRIMARY KEY (catalog_name, namespace, property_key)\n"
             ");\n"
             "INSERT INTO iceberg_namespace_properties VALUES ('pyc', 'default', 'exists', 'true');\n"
             "INSERT INTO iceberg_tables VALUES ('pyc', 'default', 'cities', 'file://%s', NULL);\n"
             "INSERT INTO iceberg_tables VALUES ('other', 'hidden', 'x', '/nowhere', NULL);\n",
             meta);
    bool ok = run_sql(db_path, sql);
    /* SQLAlchemy's URI form: sqlite:////abs/path */
    snprintf(uri, sizeof uri, "sqlite:///%s", db_path);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    ok = ok && basalt_catalog_open(uri, "pyc", false, &c, &err) == BASALT_OK;
    ok = ok && namespaces_are(c, NULL, "default") && tables_are(c, "default", "default.cities");
    ok = ok && basalt_catalog_load_table(c, "default.cities", &t, &err) == BASALT_OK;
    /* glaredb/EXPECTED.md: snapshot 8687260678833969554, sequence 1 */
    ok = ok && t->metadata->n_snapshots == 1 &&
         t->metadata->snapshots[0].snapshot_id == INT64_C(8687260678833969554) &&
         t->metadata->snapshots[0].sequence_number == 1 &&
         strncmp(t->metadata_location, "file://", 7) == 0;
    /* stored as file://wh/default.db/cities/...: rebased onto the corpus */
    char path[1024];
    struct stat sb;
    ok = ok && basalt_iceberg_io_resolve(t->io, t->metadata->snapshots[0].manifest_list, path,
                                         sizeof path, &err) == BASALT_OK &&
         stat(path, &sb) == 0;
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    remove_tree(tmp);
    if (!ok)
        printf("  %s\n", err.message);
    CHECK(ok);
}

TEST(catalog_sql_java_v1_schema_with_views)
{
    char tmp[256], db_path[512], uri[600], meta[1024], sql[4096];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(db_path, sizeof db_path, "%s/jdbc.db", tmp);
    corpus(BUNNIES_V5, meta, sizeof meta);
    /* JdbcUtil's V0 CREATE TABLE statements, then its V1_UPDATE_CATALOG_SQL. */
    snprintf(sql, sizeof sql,
             "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace "
             "VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL,metadata_location "
             "VARCHAR(1000),previous_metadata_location VARCHAR(1000),PRIMARY KEY (catalog_name, "
             "table_namespace, table_name));\n"
             "CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT "
             "NULL,namespace VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value "
             "VARCHAR(1000),PRIMARY KEY (catalog_name, namespace, property_key));\n"
             "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5);\n"
             "INSERT INTO iceberg_tables VALUES ('default', 'ns', 'tbl', '%s', NULL, 'TABLE');\n"
             "INSERT INTO iceberg_tables VALUES ('default', 'ns', 'old', '%s', NULL, NULL);\n"
             "INSERT INTO iceberg_tables VALUES ('default', 'ns', 'v', '/view.json', NULL, 'VIEW');\n",
             meta, meta);
    bool ok = run_sql(db_path, sql);
    snprintf(uri, sizeof uri, "jdbc:sqlite:%s", db_path);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    ok = ok && basalt_catalog_open(uri, NULL, false, &c, &err) == BASALT_OK;
    ok = ok && tables_are(c, "ns", "ns.old|ns.tbl");
    ok = ok && basalt_catalog_load_table(c, "ns.tbl", &t, &err) == BASALT_OK;
    basalt_iceberg_table_free(t);
    t = NULL;
    basalt_status view = c ? basalt_catalog_load_table(c, "ns.v", &t, NULL) : BASALT_OK;
    basalt_status view_conflict =
        c ? basalt_catalog_register_table(c, "ns.v", meta, NULL) : BASALT_OK;
    ok = ok && basalt_catalog_register_table(c, "ns.new", meta, &err) == BASALT_OK;
    basalt_catalog_close(c);
    sqlite3 *db = NULL;
    ok = ok && sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
         query_is(db, "SELECT iceberg_type FROM iceberg_tables WHERE table_name = 'new'", "TABLE");
    sqlite3_close(db);
    remove_tree(tmp);
    if (!ok)
        printf("  %s\n", err.message);
    CHECK(ok);
    CHECK_EQ(view, BASALT_NOT_FOUND);
    CHECK_EQ(view_conflict, BASALT_CONFLICT);
}

TEST(catalog_open_errors)
{
    char tmp[256], path[512], uri[600];
    CHECK(make_tmp(tmp, sizeof tmp));
    struct basalt_catalog *c = NULL;
    snprintf(uri, sizeof uri, "sqlite:%s/missing.db", tmp);
    basalt_status missing = basalt_catalog_open(uri, NULL, false, &c, NULL);
    struct stat sb;
    snprintf(path, sizeof path, "%s/missing.db", tmp);
    bool not_created = stat(path, &sb) != 0;
    /* a SQLite file that is not a catalog */
    snprintf(path, sizeof path, "%s/other.db", tmp);
    bool made = run_sql(path, "CREATE TABLE t(x);");
    snprintf(uri, sizeof uri, "sqlite:%s", path);
    basalt_status other = basalt_catalog_open(uri, NULL, false, &c, NULL);
    /* not a database at all */
    snprintf(path, sizeof path, "%s/text.db", tmp);
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs("this is not a database, just some text long enough to fill a header.....", f);
        fclose(f);
    }
    snprintf(uri, sizeof uri, "sqlite:%s", path);
    basalt_status text = basalt_catalog_open(uri, NULL, false, &c, NULL);
    basalt_status empty = basalt_catalog_open("", NULL, false, &c, NULL);
    basalt_status no_file = basalt_catalog_open("sqlite:", NULL, false, &c, NULL);
    snprintf(uri, sizeof uri, "%s/no-warehouse", tmp);
    basalt_status no_dir = basalt_catalog_open(uri, NULL, false, &c, NULL);
    remove_tree(tmp);
    CHECK_EQ(missing, BASALT_NOT_FOUND);
    CHECK(not_created);
    CHECK(made);
    CHECK_EQ(other, BASALT_NOT_FOUND);
    CHECK_EQ(text, BASALT_CORRUPT);
    CHECK_EQ(empty, BASALT_INVALID_ARG);
    CHECK_EQ(no_file, BASALT_INVALID_ARG);
    CHECK_EQ(no_dir, BASALT_NOT_FOUND);
    CHECK(c == NULL);
}

TEST(catalog_sql_register_mapped_location)
{
    char tmp[256], uri[600], dir[1024];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/c.db", tmp);
    corpus("icebird/hyperparam-iceberg", dir, sizeof dir);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    /* without a mapping the s3:// location cannot be read */
    bool ok = basalt_catalog_open(uri, NULL, true, &c, &err) == BASALT_OK;
    basalt_status unmapped = c ? basalt_catalog_register_table(
                                     c, "ice.athena", "s3://hyperparam-iceberg/" ATHENA_V1, NULL)
                               : BASALT_OK;
    ok = ok && basalt_catalog_map(c, "s3://hyperparam-iceberg/", dir, &err) == BASALT_OK;
    ok = ok && basalt_catalog_register_table(c, "ice.athena",
                                                     "s3://hyperparam-iceberg/" ATHENA_V1,
                                                     &err) == BASALT_OK;
    ok = ok && basalt_catalog_load_table(c, "ice.athena", &t, &err) == BASALT_OK;
    /* icebird/EXPECTED.md: last-sequence-number 1, one snapshot */
    ok = ok && t->metadata->last_sequence_number == 1 && t->metadata->n_snapshots == 1 &&
         strcmp(t->metadata_location, "s3://hyperparam-iceberg/" ATHENA_V1) == 0;
    char path[1024];
    struct stat sb;
    ok = ok && basalt_iceberg_io_resolve(t->io, t->metadata->snapshots[0].manifest_list, path,
                                         sizeof path, &err) == BASALT_OK &&
         stat(path, &sb) == 0;
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    remove_tree(tmp);
    if (!ok)
        printf("  %s\n", err.message);
    CHECK(ok);
    CHECK_EQ(unmapped, BASALT_UNSUPPORTED);
}

TEST(catalog_filesystem_warehouses)
{
    char dir[1024];
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    /* PyIceberg's <warehouse>/<ns>.db/<table> layout */
    bool ok = basalt_catalog_open(corpus("glaredb/iceberg/wh", dir, sizeof dir), NULL, false,
                                          &c, &err) == BASALT_OK;
    ok = ok && namespaces_are(c, NULL, "default") && tables_are(c, "default", "default.cities");
    ok = ok && basalt_catalog_load_table(c, "default.cities", &t, &err) == BASALT_OK &&
         t->metadata->has_current_snapshot_id &&
         t->metadata->current_snapshot_id == INT64_C(8687260678833969554) &&
         strcmp(t->name, "default.cities") == 0;
    basalt_iceberg_table_free(t);
    t = NULL;
    basalt_status reg = c ? basalt_catalog_register_table(c, "default.x", "/x", NULL)
                          : BASALT_OK;
    basalt_catalog_close(c);
    c = NULL;
    CHECK(ok);
    CHECK_EQ(reg, BASALT_UNSUPPORTED);
    /* <warehouse>/<ns>/<table> */
    ok = basalt_catalog_open(corpus("icebird/hyperparam-iceberg", dir, sizeof dir), NULL,
                                     false, &c, &err) == BASALT_OK;
    ok = ok && namespaces_are(c, NULL, "athena|java|spark") &&
         tables_are(c, "spark", "spark.bunnies|spark.rename_column") &&
         tables_are(c, "java", "java.bunnies");
    ok = ok && basalt_catalog_load_table(c, "spark.rename_column", &t, &err) == BASALT_OK &&
         t->metadata->n_schemas == 2; /* v3, TABLES.tsv */
    basalt_iceberg_table_free(t);
    basalt_status missing = c ? basalt_catalog_load_table(c, "spark.nope", &t, NULL)
                              : BASALT_OK;
    basalt_catalog_close(c);
    if (!ok)
        printf("  %s\n", err.message);
    CHECK(ok);
    CHECK_EQ(missing, BASALT_NOT_FOUND);
}

struct sweep_ctx {
    const char *uri;
};

static basalt_status catalog_attempt(void *ctx)
{
    struct sweep_ctx *s = ctx;
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    char **list = NULL;
    size_t n = 0;
    basalt_status st = basalt_catalog_open(s->uri, NULL, false, &c, NULL);
    if (st == BASALT_OK)
        st = basalt_catalog_list_namespaces(c, NULL, &list, &n, NULL);
    basalt_string_list_free(list, n);
    if (st == BASALT_OK)
        st = basalt_catalog_list_tables(c, "db", &list, &n, NULL);
    basalt_string_list_free(list, n);
    if (st == BASALT_OK)
        st = basalt_catalog_load_table(c, "db.bunnies", &t, NULL);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    return st;
}

TEST(catalog_alloc_sweep)
{
    char tmp[256], uri[600], meta[1024];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(uri, sizeof uri, "sqlite:%s/c.db", tmp);
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    bool ok = basalt_catalog_open(uri, NULL, true, &c, &err) == BASALT_OK &&
              basalt_catalog_register_table(c, "db.bunnies", corpus(BUNNIES_V5, meta, sizeof meta),
                                                    &err) == BASALT_OK;
    basalt_catalog_close(c);
    struct sweep_ctx ctx = {uri};
    int64_t attempts = ok ? bt_alloc_failure_sweep(__FILE__, __LINE__, catalog_attempt, &ctx) : -1;
    remove_tree(tmp);
    CHECK(ok);
    CHECK(attempts > 0);
}

TEST(catalog_filesystem_create)
{
    char tmp[256], dir[512], path[700];
    CHECK(make_tmp(tmp, sizeof tmp));
    snprintf(dir, sizeof dir, "%s/new/warehouse", tmp);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    bool ok = basalt_catalog_open(dir, NULL, true, &c, &err) == BASALT_OK;
    ok = ok && basalt_catalog_create_namespace(c, "a.b", &err) == BASALT_OK;
    ok = ok && namespaces_are(c, NULL, "a") && namespaces_are(c, "a", "a.b") &&
         tables_are(c, "a.b", "");
    basalt_status again = c ? basalt_catalog_create_namespace(c, "a.b", NULL) : BASALT_OK;
    basalt_status bad = c ? basalt_catalog_create_namespace(c, "a..b", NULL) : BASALT_OK;
    basalt_catalog_close(c);
    struct stat sb;
    snprintf(path, sizeof path, "%s/a/b", dir);
    bool made = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
    remove_tree(tmp);
    if (!ok)
        printf("  %s\n", err.message);
    CHECK(ok);
    CHECK(made);
    CHECK_EQ(again, BASALT_CONFLICT);
    CHECK_EQ(bad, BASALT_INVALID_ARG);
}

static basalt_status register_attempt(void *ctx)
{
    const char *meta = ctx;
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    char **list = NULL;
    size_t n = 0;
    /* A fresh in-memory catalog per attempt: every attempt starts empty. */
    basalt_status st = basalt_catalog_open("sqlite::memory:", "sweep", true, &c, NULL);
    if (st == BASALT_OK)
        st = basalt_catalog_create_namespace(c, "x", NULL);
    if (st == BASALT_OK)
        st = basalt_catalog_register_table(c, "a.b.t", meta, NULL);
    if (st == BASALT_OK)
        st = basalt_catalog_list_namespaces(c, "a", &list, &n, NULL);
    if (st == BASALT_OK && (n != 1 || strcmp(list[0], "a.b") != 0))
        st = BASALT_INTERNAL;
    basalt_string_list_free(list, n);
    if (st == BASALT_OK)
        st = basalt_catalog_load_table(c, "a.b.t", &t, NULL);
    if (st == BASALT_OK)
        st = basalt_catalog_drop_table(c, "a.b.t", NULL);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    return st;
}

TEST(catalog_register_alloc_sweep)
{
    char meta[1024];
    corpus(BUNNIES_V5, meta, sizeof meta);
    CHECK_ALLOC_SWEEP(register_attempt, meta);
}
