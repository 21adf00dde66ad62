/* The SQL catalog: the two-table schema of PyIceberg's SqlCatalog and the
 * Java JdbcCatalog, on SQLite or PostgreSQL (sql_driver.h). */
#include <stdio.h>
#include <string.h>

#include "catalog_internal.h"
#include "sql_driver.h"

/* The DDL of pyiceberg/catalog/sql.py (IcebergTables and
 * IcebergNamespaceProperties) as SQLAlchemy emits it, so the schema text
 * stored in SQLite's sqlite_master is the one PyIceberg stores. */
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

struct basalt_catalog_sql {
    const struct basalt_catalog_sql_driver *driver;
    void *conn;
    char *path;            /* the database, for messages (no password) */
    bool has_properties;   /* iceberg_namespace_properties exists */
    bool has_iceberg_type; /* the Java catalog's V1 schema (views share the table) */
};

static basalt_status run(struct basalt_catalog_sql *sql, const char *text,
                         const char *const *args, int n, basalt_catalog_sql_row_fn row, void *ctx,
                         int64_t *changes, struct basalt_error *err)
{
    return sql->driver->exec(sql->conn, text, args, n, row, ctx, changes, err);
}

/* Whether iceberg_tables has the Java V1 schema's iceberg_type column, asked
 * again while it is missing: another connection may have added it (the
 * first view added to a V0 catalog does), and from then on view rows must
 * be told apart from tables. */
static basalt_status refresh_type(struct basalt_catalog_sql *sql, struct basalt_error *err)
{
    if (sql->has_iceberg_type)
        return BASALT_OK;
    return sql->driver->has_column(sql->conn, "iceberg_tables", "iceberg_type",
                                   &sql->has_iceberg_type, err);
}

/* Creates whichever of the two tables is missing, in one transaction, the
 * check repeated under the write lock so two creators do not collide. */
static basalt_status create_schema(struct basalt_catalog_sql *sql,
                                   struct basalt_error *err)
{
    basalt_status st = run(sql, sql->driver->begin_write, NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK)
        return st;
    bool tables = false, props = false;
    st = sql->driver->has_table(sql->conn, "iceberg_tables", &tables, err);
    if (st == BASALT_OK)
        st = sql->driver->has_table(sql->conn, "iceberg_namespace_properties", &props, err);
    if (st == BASALT_OK && !tables)
        st = run(sql, create_tables_sql, NULL, 0, NULL, NULL, NULL, err);
    if (st == BASALT_OK && !props)
        st = run(sql, create_properties_sql, NULL, 0, NULL, NULL, NULL, err);
    if (st == BASALT_OK)
        st = run(sql, "COMMIT", NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK)
        run(sql, "ROLLBACK", NULL, 0, NULL, NULL, NULL, NULL);
    return st;
}

void basalt_catalog_sql_close(struct basalt_catalog_sql *sql)
{
    if (!sql)
        return;
    if (sql->driver)
        sql->driver->close(sql->conn);
    basalt_free(sql->path);
    basalt_free(sql);
}

/* The database named in messages: a file path, or a PostgreSQL URI with
 * any password left out. */
static char *display_name(const char *target, bool postgres)
{
    if (!postgres)
        return basalt_strdup(target);
    const char *at = strchr(target, '@'), *scheme = strstr(target, "://");
    if (!at || !scheme || at < scheme)
        return basalt_strdup(target);
    size_t n = (size_t)(scheme + 3 - target);
    char *out = basalt_malloc(strlen(target) + 1);
    if (out) {
        memcpy(out, target, n);
        strcpy(out + n, at + 1);
    }
    return out;
}

basalt_status basalt_catalog_sql_open(const char *target, bool postgres, bool create,
                                      struct basalt_catalog_sql **out,
                                      struct basalt_error *err)
{
    *out = NULL;
    struct basalt_catalog_sql *sql = basalt_calloc(1, sizeof *sql);
    if (!sql || !(sql->path = display_name(target, postgres))) {
        basalt_free(sql);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory opening a catalog");
    }
    basalt_status st = postgres ? basalt_catalog_postgres_open(target, &sql->driver, &sql->conn, err)
                                : basalt_catalog_sqlite_open(target, create, &sql->driver,
                                                             &sql->conn, err);
    bool tables = false;
    if (st == BASALT_OK)
        st = sql->driver->has_table(sql->conn, "iceberg_tables", &tables, err);
    if (st == BASALT_OK)
        st = sql->driver->has_table(sql->conn, "iceberg_namespace_properties",
                                    &sql->has_properties, err);
    if (st == BASALT_OK && create && (!tables || !sql->has_properties)) {
        st = create_schema(sql, err);
        /* Another process may have created them first. */
        if (st == BASALT_CONFLICT)
            st = BASALT_OK;
        if (st == BASALT_OK)
            st = sql->driver->has_table(sql->conn, "iceberg_tables", &tables, err);
        if (st == BASALT_OK)
            st = sql->driver->has_table(sql->conn, "iceberg_namespace_properties",
                                        &sql->has_properties, err);
    }
    if (st == BASALT_OK && !tables)
        st = basalt_error_set(err, BASALT_NOT_FOUND,
                              "%s: not an Iceberg SQL catalog (no iceberg_tables table)", sql->path);
    if (st == BASALT_OK)
        st = sql->driver->has_column(sql->conn, "iceberg_tables", "iceberg_type",
                                     &sql->has_iceberg_type, err);
    if (st != BASALT_OK) {
        basalt_catalog_sql_close(sql);
        return st;
    }
    *out = sql;
    return BASALT_OK;
}

/* "ns" -> "ns.%" with PyIceberg's escaping ('!' escapes '!', '_', '%'). */
char *basalt_catalog_sql_like_children(const char *ns)
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

/* Whether `candidate` is `ns` or a namespace under it, byte for byte
 * (SQLite's LIKE ignores ASCII case). */
static bool within(const char *candidate, const char *ns)
{
    size_t n = strlen(ns);
    return strncmp(candidate, ns, n) == 0 && (candidate[n] == '\0' || candidate[n] == '.');
}

basalt_status basalt_catalog_sql_one_row(void *ctx, const char *const *columns, int n,
                                        struct basalt_error *err)
{
    (void)columns;
    (void)n;
    (void)err;
    *(bool *)ctx = true;
    return BASALT_OK;
}

struct collect {
    struct basalt_string_list *out;
    const char *ns;
    const char *prefix; /* list_tables: "ns." before each name */
};

static basalt_status collect_row(void *ctx, const char *const *columns, int n,
                                 struct basalt_error *err)
{
    struct collect *c = ctx;
    const char *value = n > 0 ? columns[0] : NULL;
    if (!value || (c->ns && !within(value, c->ns)))
        return BASALT_OK;
    if (!c->prefix)
        return basalt_string_list_add(c->out, value, strlen(value), err);
    size_t pl = strlen(c->prefix), vl = strlen(value);
    char *id = basalt_malloc(pl + vl + 2);
    if (!id)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(id, c->prefix, pl);
    id[pl] = '.';
    memcpy(id + pl + 1, value, vl + 1);
    basalt_status st = basalt_string_list_add(c->out, id, pl + vl + 1, err);
    basalt_free(id);
    return st;
}

/* Collects the namespace column of rows in `ns` or under it (every row when
 * ns is NULL) from both tables. */
static basalt_status collect_namespaces(struct basalt_catalog_sql *sql,
                                        const char *catalog, const char *ns,
                                        struct basalt_string_list *out,
                                        struct basalt_error *err)
{
    static const char *const filtered[2] = {
        "SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = $1 AND "
        "(table_namespace = $2 OR table_namespace LIKE $3 ESCAPE '!')",
        "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = $1 AND "
        "(namespace = $2 OR namespace LIKE $3 ESCAPE '!')"};
    static const char *const all[2] = {
        "SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = $1",
        "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = $1"};
    char *like = NULL;
    if (ns && !(like = basalt_catalog_sql_like_children(ns)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    struct collect c = {.out = out, .ns = ns};
    for (int t = 0; t < 2 && st == BASALT_OK; t++) {
        if (t == 1 && !sql->has_properties)
            break;
        const char *args[3] = {catalog, ns, like};
        st = run(sql, ns ? filtered[t] : all[t], args, ns ? 3 : 1, collect_row, &c, NULL, err);
    }
    basalt_free(like);
    return st;
}

basalt_status basalt_catalog_sql_namespace_exists(struct basalt_catalog_sql *sql,
                                                  const char *catalog, const char *ns,
                                                  bool *exists, struct basalt_error *err)
{
    struct basalt_string_list found = {0};
    basalt_status st = collect_namespaces(sql, catalog, ns, &found, err);
    *exists = found.n > 0;
    basalt_string_list_reset(&found);
    return st;
}

basalt_status basalt_catalog_sql_all_namespaces(struct basalt_catalog_sql *sql,
                                                const char *catalog, const char *parent,
                                                struct basalt_string_list *out,
                                                struct basalt_error *err)
{
    return collect_namespaces(sql, catalog, parent, out, err);
}

/* Rows of iceberg_tables that are tables: in the Java V1 schema, views share
 * the table and carry iceberg_type 'VIEW'. */
#define TABLE_ROWS " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"

basalt_status basalt_catalog_sql_list_tables(struct basalt_catalog_sql *sql,
                                             const char *catalog, const char *ns,
                                             struct basalt_string_list *out,
                                             struct basalt_error *err)
{
#define LIST_SQL "SELECT table_name FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2"
    const char *args[2] = {catalog, ns};
    struct collect c = {.out = out, .prefix = ns};
    basalt_status st = refresh_type(sql, err);
    if (st != BASALT_OK)
        return st;
    return run(sql, sql->has_iceberg_type ? LIST_SQL TABLE_ROWS : LIST_SQL, args, 2, collect_row,
               &c, NULL, err);
}

basalt_status basalt_catalog_sql_create_namespace(struct basalt_catalog_sql *sql,
                                                  const char *catalog, const char *ns,
                                                  struct basalt_error *err)
{
    bool exists;
    basalt_status st = basalt_catalog_sql_namespace_exists(sql, catalog, ns, &exists, err);
    if (st != BASALT_OK)
        return st;
    if (exists)
        return basalt_error_set(err, BASALT_CONFLICT, "namespace '%.200s' already exists", ns);
    if (!sql->has_properties) {
        st = run(sql, create_properties_sql, NULL, 0, NULL, NULL, NULL, err);
        if (st != BASALT_OK)
            return st;
        sql->has_properties = true;
    }
    /* PyIceberg's minimal properties of a namespace created without any. */
    const char *args[2] = {catalog, ns};
    st = run(sql,
             "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
             "property_value) VALUES ($1, $2, 'exists', 'true')",
             args, 2, NULL, NULL, NULL, err);
    if (st == BASALT_CONFLICT)
        return basalt_error_set(err, BASALT_CONFLICT, "namespace '%.200s' already exists", ns);
    return st;
}

static basalt_status take_location(void *ctx, const char *const *columns, int n,
                                   struct basalt_error *err)
{
    char **out = ctx;
    if (*out || n < 1 || !columns[0] || !*columns[0])
        return BASALT_OK;
    if (!(*out = basalt_strdup(columns[0])))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

basalt_status basalt_catalog_sql_table_location(struct basalt_catalog_sql *sql,
                                                const char *catalog, const char *ns,
                                                const char *name, char **out,
                                                struct basalt_error *err)
{
#define LOCATION_SQL                                                                           \
    "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = " \
    "$2 AND table_name = $3"
    *out = NULL;
    const char *args[3] = {catalog, ns, name};
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK)
        st = run(sql, sql->has_iceberg_type ? LOCATION_SQL TABLE_ROWS : LOCATION_SQL, args, 3,
                 take_location, out, NULL, err);
    if (st == BASALT_OK && !*out)
        st = basalt_error_set(err, BASALT_NOT_FOUND,
                              "no table '%.200s.%.200s' in catalog '%.100s'", ns, name, catalog);
    if (st != BASALT_OK) {
        basalt_free(*out);
        *out = NULL;
    }
    return st;
}

static basalt_status insert_table(struct basalt_catalog_sql *sql, const char *catalog,
                                  const char *ns, const char *name, const char *metadata_location,
                                  struct basalt_error *err)
{
    const char *args[4] = {catalog, ns, name, metadata_location};
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK)
        st = run(sql,
            sql->has_iceberg_type
                ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                  "metadata_location, previous_metadata_location, iceberg_type) VALUES ($1, $2, "
                  "$3, $4, NULL, 'TABLE')"
                : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                  "metadata_location, previous_metadata_location) VALUES ($1, $2, $3, $4, NULL)",
            args, 4, NULL, NULL, NULL, err);
    if (st == BASALT_CONFLICT)
        return basalt_error_set(err, BASALT_CONFLICT,
                                "table '%.200s.%.200s' already exists in catalog '%.100s'", ns,
                                name, catalog);
    return st;
}

basalt_status basalt_catalog_sql_register(struct basalt_catalog_sql *sql,
                                          const char *catalog, const char *ns, const char *name,
                                          const char *metadata_location, struct basalt_error *err)
{
    /* One transaction: the namespace row (PyIceberg only registers into an
     * existing namespace, so a catalog it reads has one) and the table row. */
    basalt_status st = run(sql, sql->driver->begin_write, NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK)
        return st;
    bool exists = false;
    st = basalt_catalog_sql_namespace_exists(sql, catalog, ns, &exists, err);
    if (st == BASALT_OK && !exists)
        st = basalt_catalog_sql_create_namespace(sql, catalog, ns, err);
    if (st == BASALT_OK)
        st = insert_table(sql, catalog, ns, name, metadata_location, err);
    if (st == BASALT_OK)
        st = run(sql, "COMMIT", NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK)
        run(sql, "ROLLBACK", NULL, 0, NULL, NULL, NULL, NULL);
    return st;
}

#define DROP_SQL                                                                                \
    "DELETE FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3"

basalt_status basalt_catalog_sql_drop(struct basalt_catalog_sql *sql, const char *catalog,
                                      const char *ns, const char *name, struct basalt_error *err)
{
    const char *args[3] = {catalog, ns, name};
    int64_t changes = 0;
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK)
        st = run(sql, sql->has_iceberg_type ? DROP_SQL TABLE_ROWS : DROP_SQL, args, 3, NULL, NULL,
                 &changes, err);
    if (st == BASALT_OK && changes == 0)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "no table '%.200s.%.200s' in catalog '%.100s'",
                              ns, name, catalog);
    return st;
}

basalt_status basalt_catalog_sql_swap(struct basalt_catalog_sql *sql, const char *catalog,
                                      const char *ns, const char *name, const char *expected,
                                      const char *location, struct basalt_error *err)
{
    /* The compare-and-swap of a commit, as PyIceberg and the Java catalog
     * do it: the row changes only while it still names the metadata the
     * commit was built on. One statement, so the database makes it atomic. */
#define SWAP_SQL                                                                                  \
    "UPDATE iceberg_tables SET metadata_location = $5, previous_metadata_location = $4 WHERE "    \
    "catalog_name = $1 AND table_namespace = $2 AND table_name = $3 AND metadata_location = $4"
    const char *args[5] = {catalog, ns, name, expected, location};
    int64_t changes = 0;
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK)
        st = run(sql, sql->has_iceberg_type ? SWAP_SQL TABLE_ROWS : SWAP_SQL, args, 5, NULL, NULL,
                 &changes, err);
    if (st == BASALT_OK && changes == 0)
        st = basalt_error_set(err, BASALT_CONFLICT,
                              "table '%.200s.%.200s' was changed by another commit", ns, name);
    return st;
}

const char *basalt_catalog_sql_path(const struct basalt_catalog_sql *sql)
{
    return sql->path;
}

/* ------------------------------------------------------------------ views
 *
 * Views share iceberg_tables with tables, as the Java JdbcCatalog's V1
 * schema keeps them: iceberg_type 'VIEW' (tables: 'TABLE', or NULL in rows
 * written before the column existed). The key (catalog, namespace, name)
 * covers both, so a view and a table never share a name. */

#define VIEW_ROWS " AND iceberg_type = 'VIEW'"

basalt_status basalt_catalog_sql_enable_views(struct basalt_catalog_sql *sql,
                                              struct basalt_error *err)
{
    basalt_status st = refresh_type(sql, err);
    if (st != BASALT_OK || sql->has_iceberg_type)
        return st;
    /* The Java catalog's V0 -> V1 migration (JdbcUtil.V1_UPDATE_CATALOG_SQL).
     * Old rows keep NULL there, which both catalogs read as a table. */
    struct basalt_error alter;
    basalt_error_init(&alter);
    st = run(sql, "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)", NULL, 0, NULL,
             NULL, NULL, &alter);
    /* Another writer may have added it first: what counts is that it is there. */
    basalt_status probe = sql->driver->has_column(sql->conn, "iceberg_tables", "iceberg_type",
                                                  &sql->has_iceberg_type, err);
    if (probe != BASALT_OK)
        return probe;
    if (!sql->has_iceberg_type) {
        if (err)
            *err = alter;
        return basalt_error_context(err, st == BASALT_OK ? BASALT_IO : st,
                                    "%s: adding the iceberg_type column for views", sql->path);
    }
    return BASALT_OK;
}

basalt_status basalt_catalog_sql_list_views(struct basalt_catalog_sql *sql, const char *catalog,
                                            const char *ns, struct basalt_string_list *out,
                                            struct basalt_error *err)
{
    basalt_status st = refresh_type(sql, err);
    if (st != BASALT_OK || !sql->has_iceberg_type)
        return st; /* V0: no view can be there */
    const char *args[2] = {catalog, ns};
    struct collect c = {.out = out, .prefix = ns};
    return run(sql, LIST_SQL VIEW_ROWS, args, 2, collect_row, &c, NULL, err);
}

basalt_status basalt_catalog_sql_view_location(struct basalt_catalog_sql *sql, const char *catalog,
                                               const char *ns, const char *name, char **out,
                                               struct basalt_error *err)
{
    *out = NULL;
    const char *args[3] = {catalog, ns, name};
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK && sql->has_iceberg_type)
        st = run(sql, LOCATION_SQL VIEW_ROWS, args, 3, take_location, out, NULL, err);
    if (st == BASALT_OK && !*out)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "no view '%.200s.%.200s' in catalog '%.100s'",
                              ns, name, catalog);
    if (st != BASALT_OK) {
        basalt_free(*out);
        *out = NULL;
    }
    return st;
}

basalt_status basalt_catalog_sql_register_view(struct basalt_catalog_sql *sql,
                                               const char *catalog, const char *ns,
                                               const char *name, const char *metadata_location,
                                               struct basalt_error *err)
{
    basalt_status st = basalt_catalog_sql_enable_views(sql, err);
    if (st == BASALT_OK)
        st = run(sql, sql->driver->begin_write, NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK)
        return st;
    bool exists = false;
    st = basalt_catalog_sql_namespace_exists(sql, catalog, ns, &exists, err);
    if (st == BASALT_OK && !exists)
        st = basalt_catalog_sql_create_namespace(sql, catalog, ns, err);
    const char *args[4] = {catalog, ns, name, metadata_location};
    if (st == BASALT_OK) {
        st = run(sql,
                 "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                 "metadata_location, previous_metadata_location, iceberg_type) VALUES ($1, $2, "
                 "$3, $4, NULL, 'VIEW')",
                 args, 4, NULL, NULL, NULL, err);
        if (st == BASALT_CONFLICT)
            st = basalt_error_set(err, BASALT_CONFLICT,
                                  "a table or view '%.200s.%.200s' already exists in catalog "
                                  "'%.100s'",
                                  ns, name, catalog);
    }
    if (st == BASALT_OK)
        st = run(sql, "COMMIT", NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK)
        run(sql, "ROLLBACK", NULL, 0, NULL, NULL, NULL, NULL);
    return st;
}

basalt_status basalt_catalog_sql_swap_view(struct basalt_catalog_sql *sql, const char *catalog,
                                           const char *ns, const char *name,
                                           const char *expected, const char *location,
                                           struct basalt_error *err)
{
    /* The compare-and-swap of table commits, on view rows. */
    const char *args[5] = {catalog, ns, name, expected, location};
    int64_t changes = 0;
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK && sql->has_iceberg_type)
        st = run(sql, SWAP_SQL VIEW_ROWS, args, 5, NULL, NULL, &changes, err);
    if (st == BASALT_OK && changes == 0)
        st = basalt_error_set(err, BASALT_CONFLICT,
                              "view '%.200s.%.200s' was changed by another commit", ns, name);
    return st;
}

basalt_status basalt_catalog_sql_drop_view(struct basalt_catalog_sql *sql, const char *catalog,
                                           const char *ns, const char *name,
                                           struct basalt_error *err)
{
    const char *args[3] = {catalog, ns, name};
    int64_t changes = 0;
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK && sql->has_iceberg_type)
        st = run(sql, DROP_SQL VIEW_ROWS, args, 3, NULL, NULL, &changes, err);
    if (st == BASALT_OK && changes == 0)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "no view '%.200s.%.200s' in catalog '%.100s'",
                              ns, name, catalog);
    return st;
}

basalt_status basalt_catalog_sql_rename_view(struct basalt_catalog_sql *sql, const char *catalog,
                                             const char *from_ns, const char *from_name,
                                             const char *to_ns, const char *to_name,
                                             struct basalt_error *err)
{
    const char *args[5] = {catalog, from_ns, from_name, to_ns, to_name};
    int64_t changes = 0;
    basalt_status st = refresh_type(sql, err);
    /* The key refuses a name a table or view already has. */
    if (st == BASALT_OK && sql->has_iceberg_type)
        st = run(sql,
                 "UPDATE iceberg_tables SET table_namespace = $4, table_name = $5 WHERE "
                 "catalog_name = $1 AND table_namespace = $2 AND table_name = $3" VIEW_ROWS,
                 args, 5, NULL, NULL, &changes, err);
    if (st == BASALT_CONFLICT)
        return basalt_error_set(err, BASALT_CONFLICT,
                                "a table or view '%.200s.%.200s' already exists", to_ns, to_name);
    if (st == BASALT_OK && changes == 0)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "no view '%.200s.%.200s' in catalog '%.100s'",
                              from_ns, from_name, catalog);
    return st;
}
