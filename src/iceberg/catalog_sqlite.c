/* The SQL catalog on an embedded SQLite database: the two-table schema of
 * PyIceberg's SqlCatalog and the Java JdbcCatalog. */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* How long a statement waits for another connection's lock. */
#define BUSY_TIMEOUT_MS 5000

/* The DDL of pyiceberg/catalog/sql.py (IcebergTables and
 * IcebergNamespaceProperties) as SQLAlchemy emits it for SQLite, so the
 * schema text stored in sqlite_master is the one PyIceberg stores. */
static const char create_tables_sql[] =
    "CREATE TABLE iceberg_tables (\n"
    "\tcatalog_name VARCHAR(255) NOT NULL, \n"
    "\ttable_namespace VARCHAR(255) NOT NULL, \n"
    "\ttable_name VARCHAR(255) NOT NULL, \n"
    "\tmetadata_location VARCHAR(1000), \n"
    "\tprevious_metadata_location VARCHAR(1000), \n"
    "\tPRIMARY KEY (catalog_name, table_namespace, table_name)\n"
    ")";
static const char create_properties_sql[] =
    "CREATE TABLE iceberg_namespace_properties (\n"
    "\tcatalog_name VARCHAR(255) NOT NULL, \n"
    "\tnamespace VARCHAR(255) NOT NULL, \n"
    "\tproperty_key VARCHAR(255) NOT NULL, \n"
    "\tproperty_value VARCHAR(1000) NOT NULL, \n"
    "\tPRIMARY KEY (catalog_name, namespace, property_key)\n"
    ")";

struct basalt_iceberg_sql_catalog {
    sqlite3 *db;
    char *path;
    bool has_properties;   /* iceberg_namespace_properties exists */
    bool has_iceberg_type; /* the Java catalog's V1 schema (views share the table) */
};

static basalt_status sql_error(struct basalt_iceberg_sql_catalog *sql, int rc,
                               struct basalt_error *err, const char *what)
{
    basalt_status st;
    switch (rc & 0xff) {
    case SQLITE_NOMEM:
        st = BASALT_NOMEM;
        break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        st = BASALT_CORRUPT;
        break;
    case SQLITE_CONSTRAINT:
        st = BASALT_CONFLICT;
        break;
    default:
        st = BASALT_IO;
    }
    return basalt_error_set(err, st, "%s: %s: %s", sql->path, what, sqlite3_errmsg(sql->db));
}

static basalt_status prepare(struct basalt_iceberg_sql_catalog *sql, const char *text,
                             sqlite3_stmt **stmt, struct basalt_error *err)
{
    int rc = sqlite3_prepare_v2(sql->db, text, -1, stmt, NULL);
    if (rc != SQLITE_OK) {
        *stmt = NULL;
        return sql_error(sql, rc, err, "prepare");
    }
    return BASALT_OK;
}

static basalt_status bind_texts(struct basalt_iceberg_sql_catalog *sql, sqlite3_stmt *stmt,
                                const char *const *values, int n, struct basalt_error *err)
{
    for (int i = 0; i < n; i++) {
        int rc = sqlite3_bind_text(stmt, i + 1, values[i], -1, SQLITE_STATIC);
        if (rc != SQLITE_OK)
            return sql_error(sql, rc, err, "bind");
    }
    return BASALT_OK;
}

/* Runs a statement without results. */
static basalt_status exec_simple(struct basalt_iceberg_sql_catalog *sql, const char *text,
                                 struct basalt_error *err)
{
    sqlite3_stmt *stmt;
    basalt_status st = prepare(sql, text, &stmt, err);
    if (st != BASALT_OK)
        return st;
    int rc = sqlite3_step(stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        st = sql_error(sql, rc, err, "execute");
    sqlite3_finalize(stmt);
    return st;
}

static basalt_status table_exists(struct basalt_iceberg_sql_catalog *sql, const char *name,
                                  bool *exists, struct basalt_error *err)
{
    sqlite3_stmt *stmt;
    basalt_status st =
        prepare(sql, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", &stmt, err);
    if (st == BASALT_OK)
        st = bind_texts(sql, stmt, &name, 1, err);
    if (st == BASALT_OK) {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW || rc == SQLITE_DONE)
            *exists = rc == SQLITE_ROW;
        else
            st = sql_error(sql, rc, err, "read schema");
    }
    sqlite3_finalize(stmt);
    return st;
}

static basalt_status column_exists(struct basalt_iceberg_sql_catalog *sql, const char *table,
                                   const char *column, bool *exists, struct basalt_error *err)
{
    sqlite3_stmt *stmt;
    const char *args[2] = {table, column};
    basalt_status st = prepare(sql, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", &stmt,
                               err);
    if (st == BASALT_OK)
        st = bind_texts(sql, stmt, args, 2, err);
    if (st == BASALT_OK) {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW || rc == SQLITE_DONE)
            *exists = rc == SQLITE_ROW;
        else
            st = sql_error(sql, rc, err, "read schema");
    }
    sqlite3_finalize(stmt);
    return st;
}

/* Creates whichever of the two tables is missing, in one transaction, the
 * check repeated under the write lock so two creators do not collide. */
static basalt_status create_schema(struct basalt_iceberg_sql_catalog *sql,
                                   struct basalt_error *err)
{
    basalt_status st = exec_simple(sql, "BEGIN IMMEDIATE", err);
    if (st != BASALT_OK)
        return st;
    bool tables = false, props = false;
    st = table_exists(sql, "iceberg_tables", &tables, err);
    if (st == BASALT_OK)
        st = table_exists(sql, "iceberg_namespace_properties", &props, err);
    if (st == BASALT_OK && !tables)
        st = exec_simple(sql, create_tables_sql, err);
    if (st == BASALT_OK && !props)
        st = exec_simple(sql, create_properties_sql, err);
    if (st == BASALT_OK)
        st = exec_simple(sql, "COMMIT", err);
    if (st != BASALT_OK)
        exec_simple(sql, "ROLLBACK", NULL);
    return st;
}

void basalt_iceberg_sql_close(struct basalt_iceberg_sql_catalog *sql)
{
    if (!sql)
        return;
    sqlite3_close(sql->db);
    basalt_free(sql->path);
    basalt_free(sql);
}

basalt_status basalt_iceberg_sql_open(const char *path, bool create,
                                      struct basalt_iceberg_sql_catalog **out,
                                      struct basalt_error *err)
{
    *out = NULL;
    bool memory = strcmp(path, ":memory:") == 0;
    struct stat sb;
    if (!memory && stat(path, &sb) != 0) {
        if (errno != ENOENT)
            return basalt_error_set(err, BASALT_IO, "%s: %s", path, strerror(errno));
        if (!create)
            return basalt_error_set(err, BASALT_NOT_FOUND, "%s: no such catalog database", path);
        basalt_status st = basalt_iceberg_make_parent_dirs(path, err);
        if (st != BASALT_OK)
            return st;
    }
    struct basalt_iceberg_sql_catalog *sql = basalt_calloc(1, sizeof *sql);
    if (!sql || !(sql->path = basalt_iceberg_strdup(path))) {
        basalt_free(sql);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening a catalog", path);
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &sql->db, flags, NULL);
    if (rc != SQLITE_OK) {
        basalt_status st = sql->db ? sql_error(sql, rc, err, "open")
                                   : basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", path);
        basalt_iceberg_sql_close(sql);
        return st;
    }
    sqlite3_busy_timeout(sql->db, BUSY_TIMEOUT_MS);
    bool tables = false;
    basalt_status st = table_exists(sql, "iceberg_tables", &tables, err);
    if (st == BASALT_OK)
        st = table_exists(sql, "iceberg_namespace_properties", &sql->has_properties, err);
    if (st == BASALT_OK && create && (!tables || !sql->has_properties)) {
        st = create_schema(sql, err);
        tables = sql->has_properties = st == BASALT_OK;
    }
    if (st == BASALT_OK && !tables)
        st = basalt_error_set(err, BASALT_NOT_FOUND,
                              "%s: not an Iceberg SQL catalog (no iceberg_tables table)", path);
    if (st == BASALT_OK)
        st = column_exists(sql, "iceberg_tables", "iceberg_type", &sql->has_iceberg_type, err);
    if (st != BASALT_OK) {
        basalt_iceberg_sql_close(sql);
        return st;
    }
    *out = sql;
    return BASALT_OK;
}

/* "ns" -> "ns.%" with PyIceberg's escaping ('!' escapes '!', '_', '%'). */
static char *like_children(const char *ns)
{
    size_t len = strlen(ns), k = 0;
    char *p = basalt_malloc(2 * len + 3);
    if (!p)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (ns[i] == '!' || ns[i] == '_' || ns[i] == '%')
            p[k++] = '!';
        p[k++] = ns[i];
    }
    memcpy(p + k, ".%", 3);
    return p;
}

/* Whether `candidate` is `ns` or a namespace under it, byte for byte (SQLite's
 * LIKE ignores ASCII case). */
static bool within(const char *candidate, const char *ns)
{
    size_t n = strlen(ns);
    return strncmp(candidate, ns, n) == 0 && (candidate[n] == '\0' || candidate[n] == '.');
}

/* Collects the namespace column of rows in `ns` or under it (every row when
 * ns is NULL) from both tables. */
static basalt_status collect_namespaces(struct basalt_iceberg_sql_catalog *sql,
                                        const char *catalog, const char *ns,
                                        struct basalt_iceberg_strings *out, bool first_only,
                                        struct basalt_error *err)
{
    static const char *const filtered[2] = {
        "SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 AND "
        "(table_namespace = ?2 OR table_namespace LIKE ?3 ESCAPE '!')",
        "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
        "(namespace = ?2 OR namespace LIKE ?3 ESCAPE '!')"};
    static const char *const all[2] = {
        "SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = ?1",
        "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1"};
    char *like = NULL;
    if (ns && !(like = like_children(ns)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    for (int t = 0; t < 2 && st == BASALT_OK; t++) {
        if (t == 1 && !sql->has_properties)
            break;
        sqlite3_stmt *stmt;
        const char *args[3] = {catalog, ns, like};
        st = prepare(sql, ns ? filtered[t] : all[t], &stmt, err);
        if (st == BASALT_OK)
            st = bind_texts(sql, stmt, args, ns ? 3 : 1, err);
        while (st == BASALT_OK) {
            int rc = sqlite3_step(stmt);
            if (rc == SQLITE_DONE)
                break;
            if (rc != SQLITE_ROW) {
                st = sql_error(sql, rc, err, "list namespaces");
                break;
            }
            const char *value = (const char *)sqlite3_column_text(stmt, 0);
            if (!value || (ns && !within(value, ns)))
                continue;
            st = basalt_iceberg_strings_add(out, value, strlen(value), err);
            if (st == BASALT_OK && first_only)
                break;
        }
        sqlite3_finalize(stmt);
        if (first_only && out->n)
            break;
    }
    basalt_free(like);
    return st;
}

basalt_status basalt_iceberg_sql_namespace_exists(struct basalt_iceberg_sql_catalog *sql,
                                                  const char *catalog, const char *ns,
                                                  bool *exists, struct basalt_error *err)
{
    struct basalt_iceberg_strings found = {0};
    basalt_status st = collect_namespaces(sql, catalog, ns, &found, true, err);
    *exists = found.n > 0;
    basalt_iceberg_strings_reset(&found);
    return st;
}

basalt_status basalt_iceberg_sql_all_namespaces(struct basalt_iceberg_sql_catalog *sql,
                                                const char *catalog, const char *parent,
                                                struct basalt_iceberg_strings *out,
                                                struct basalt_error *err)
{
    return collect_namespaces(sql, catalog, parent, out, false, err);
}

/* Rows of iceberg_tables that are tables: in the Java V1 schema, views share
 * the table and carry iceberg_type 'VIEW'. */
#define TABLE_ROWS " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"

basalt_status basalt_iceberg_sql_list_tables(struct basalt_iceberg_sql_catalog *sql,
                                             const char *catalog, const char *ns,
                                             struct basalt_iceberg_strings *out,
                                             struct basalt_error *err)
{
#define LIST_SQL "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2"
    sqlite3_stmt *stmt;
    const char *args[2] = {catalog, ns};
    basalt_status st = prepare(sql, sql->has_iceberg_type ? LIST_SQL TABLE_ROWS : LIST_SQL, &stmt, err);
    if (st == BASALT_OK)
        st = bind_texts(sql, stmt, args, 2, err);
    while (st == BASALT_OK) {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            st = sql_error(sql, rc, err, "list tables");
            break;
        }
        const char *name = (const char *)sqlite3_column_text(stmt, 0);
        if (!name)
            continue;
        size_t nl = strlen(ns), tl = strlen(name);
        char *id = basalt_malloc(nl + tl + 2);
        if (!id) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            break;
        }
        memcpy(id, ns, nl);
        id[nl] = '.';
        memcpy(id + nl + 1, name, tl + 1);
        st = basalt_iceberg_strings_add(out, id, nl + tl + 1, err);
        basalt_free(id);
    }
    sqlite3_finalize(stmt);
    return st;
}

basalt_status basalt_iceberg_sql_create_namespace(struct basalt_iceberg_sql_catalog *sql,
                                                  const char *catalog, const char *ns,
                                                  struct basalt_error *err)
{
    bool exists;
    basalt_status st = basalt_iceberg_sql_namespace_exists(sql, catalog, ns, &exists, err);
    if (st != BASALT_OK)
        return st;
    if (exists)
        return basalt_error_set(err, BASALT_CONFLICT, "namespace '%.200s' already exists", ns);
    if (!sql->has_properties) {
        st = exec_simple(sql, create_properties_sql, err);
        if (st != BASALT_OK)
            return st;
        sql->has_properties = true;
    }
    /* PyIceberg's minimal properties of a namespace created without any. */
    sqlite3_stmt *stmt;
    const char *args[2] = {catalog, ns};
    st = prepare(sql,
                 "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
                 "property_value) VALUES (?1, ?2, 'exists', 'true')",
                 &stmt, err);
    if (st == BASALT_OK)
        st = bind_texts(sql, stmt, args, 2, err);
    if (st == BASALT_OK) {
        int rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE)
            st = (rc & 0xff) == SQLITE_CONSTRAINT
                     ? basalt_error_set(err, BASALT_CONFLICT, "namespace '%.200s' already exists", ns)
                     : sql_error(sql, rc, err, "create namespace");
    }
    sqlite3_finalize(stmt);
    return st;
}

basalt_status basalt_iceberg_sql_table_location(struct basalt_iceberg_sql_catalog *sql,
                                                const char *catalog, const char *ns,
                                                const char *name, char **out,
                                                struct basalt_error *err)
{
#define LOCATION_SQL                                                                           \
    "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = " \
    "?2 AND table_name = ?3"
    *out = NULL;
    sqlite3_stmt *stmt;
    const char *args[3] = {catalog, ns, name};
    basalt_status st = prepare(sql, sql->has_iceberg_type ? LOCATION_SQL TABLE_ROWS : LOCATION_SQL, &stmt, err);
    if (st == BASALT_OK)
        st = bind_texts(sql, stmt, args, 3, err);
    if (st == BASALT_OK) {
        int rc = sqlite3_step(stmt);
        const char *loc = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(stmt, 0) : NULL;
        if (rc == SQLITE_DONE)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "no table '%.200s.%.200s' in catalog '%.100s'",
                                  ns, name, catalog);
        else if (rc != SQLITE_ROW)
            st = sql_error(sql, rc, err, "load table");
        else if (!loc || !*loc)
            st = basalt_error_set(err, BASALT_NOT_FOUND,
                                  "table '%.200s.%.200s' has no metadata_location", ns, name);
        else if (!(*out = basalt_iceberg_strdup(loc)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    sqlite3_finalize(stmt);
    return st;
}

static basalt_status insert_table(struct basalt_iceberg_sql_catalog *sql, const char *catalog,
                                  const char *ns, const char *name, const char *metadata_location,
                                  struct basalt_error *err)
{
    sqlite3_stmt *stmt;
    const char *args[4] = {catalog, ns, name, metadata_location};
    basalt_status st = prepare(
        sql,
        sql->has_iceberg_type
            ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
              "metadata_location, previous_metadata_location, iceberg_type) VALUES (?1, ?2, ?3, ?4, "
              "NULL, 'TABLE')"
            : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
              "metadata_location, previous_metadata_location) VALUES (?1, ?2, ?3, ?4, NULL)",
        &stmt, err);
    if (st == BASALT_OK)
        st = bind_texts(sql, stmt, args, 4, err);
    if (st == BASALT_OK) {
        int rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE)
            st = (rc & 0xff) == SQLITE_CONSTRAINT
                     ? basalt_error_set(err, BASALT_CONFLICT,
                                        "table '%.200s.%.200s' already exists in catalog '%.100s'",
                                        ns, name, catalog)
                     : sql_error(sql, rc, err, "register table");
    }
    sqlite3_finalize(stmt);
    return st;
}

basalt_status basalt_iceberg_sql_register(struct basalt_iceberg_sql_catalog *sql,
                                          const char *catalog, const char *ns, const char *name,
                                          const char *metadata_location, struct basalt_error *err)
{
    /* One transaction: the namespace row (PyIceberg only registers into an
     * existing namespace, so a catalog it reads has one) and the table row. */
    basalt_status st = exec_simple(sql, "BEGIN IMMEDIATE", err);
    if (st != BASALT_OK)
        return st;
    bool exists = false;
    st = basalt_iceberg_sql_namespace_exists(sql, catalog, ns, &exists, err);
    if (st == BASALT_OK && !exists)
        st = basalt_iceberg_sql_create_namespace(sql, catalog, ns, err);
    if (st == BASALT_OK)
        st = insert_table(sql, catalog, ns, name, metadata_location, err);
    if (st == BASALT_OK)
        st = exec_simple(sql, "COMMIT", err);
    if (st != BASALT_OK)
        exec_simple(sql, "ROLLBACK", NULL);
    return st;
}

#define DROP_SQL                                                                                \
    "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3"

basalt_status basalt_iceberg_sql_drop(struct basalt_iceberg_sql_catalog *sql, const char *catalog,
                                      const char *ns, const char *name, struct basalt_error *err)
{
    sqlite3_stmt *stmt;
    const char *args[3] = {catalog, ns, name};
    basalt_status st = prepare(sql, sql->has_iceberg_type ? DROP_SQL TABLE_ROWS : DROP_SQL, &stmt, err);
    if (st == BASALT_OK)
        st = bind_texts(sql, stmt, args, 3, err);
    if (st == BASALT_OK) {
        int rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE)
            st = sql_error(sql, rc, err, "drop table");
        else if (sqlite3_changes(sql->db) == 0)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "no table '%.200s.%.200s' in catalog '%.100s'",
                                  ns, name, catalog);
    }
    sqlite3_finalize(stmt);
    return st;
}
