/* What the REST server does directly in a SQL catalog's database, on a
 * connection of its own through the catalog's driver (sql_driver.h):
 * namespace properties, dropping namespaces, renaming tables and swapping
 * several tables' pointers in one transaction. The statements follow the
 * tables and conventions of sql.c (PyIceberg's SqlCatalog, the Java
 * JdbcCatalog); catalog.h has no such operations yet. */
#include <string.h>

#include "rest_server_internal.h"
#include "sql_driver.h"

struct basalt_catalog_rest_sql {
    const struct basalt_catalog_sql_driver *driver;
    void *conn;
    bool has_iceberg_type; /* the Java V1 schema: views share iceberg_tables */
};

static basalt_status run(struct basalt_catalog_rest_sql *sql, const char *text,
                         const char *const *args, int n, basalt_catalog_sql_row_fn row, void *ctx,
                         int64_t *changes, struct basalt_error *err)
{
    return sql->driver->exec(sql->conn, text, args, n, row, ctx, changes, err);
}

/* The iceberg_type column, asked again while missing: a view added through
 * another connection adds it to a V0 catalog, and from then on the table
 * statements must leave view rows alone. */
static basalt_status refresh_type(struct basalt_catalog_rest_sql *sql, struct basalt_error *err)
{
    if (sql->has_iceberg_type)
        return BASALT_OK;
    return sql->driver->has_column(sql->conn, "iceberg_tables", "iceberg_type",
                                   &sql->has_iceberg_type, err);
}

static basalt_status begin(struct basalt_catalog_rest_sql *sql, struct basalt_error *err)
{
    return run(sql, sql->driver->begin_write, NULL, 0, NULL, NULL, NULL, err);
}

/* COMMIT when st is OK, else ROLLBACK; returns the outcome. */
static basalt_status finish(struct basalt_catalog_rest_sql *sql, basalt_status st,
                            struct basalt_error *err)
{
    if (st == BASALT_OK)
        st = run(sql, "COMMIT", NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK)
        run(sql, "ROLLBACK", NULL, 0, NULL, NULL, NULL, NULL);
    return st;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

basalt_status basalt_catalog_rest_sql_open(const char *catalog_uri, struct basalt_catalog *c,
                                           struct basalt_catalog_rest_sql **out,
                                           struct basalt_error *err)
{
    *out = NULL;
    if (c->kind != BASALT_CATALOG_KIND_SQL)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "not a SQL catalog");
    struct basalt_catalog_rest_sql *sql = basalt_calloc(1, sizeof *sql);
    if (!sql)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* The catalog keeps the SQLite file's path as it was opened; a
     * PostgreSQL URI is the catalog URI itself (the path the catalog shows
     * leaves the password out). */
    const char *uri = starts_with(catalog_uri, "jdbc:") ? catalog_uri + 5 : catalog_uri;
    basalt_status st =
        starts_with(uri, "postgresql://") || starts_with(uri, "postgres://")
            ? basalt_catalog_postgres_open(uri, &sql->driver, &sql->conn, err)
            : basalt_catalog_sqlite_open(basalt_catalog_sql_path(c->sql), false, &sql->driver,
                                         &sql->conn, err);
    if (st == BASALT_OK)
        st = sql->driver->has_column(sql->conn, "iceberg_tables", "iceberg_type",
                                     &sql->has_iceberg_type, err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_sql_close(sql);
        return st;
    }
    *out = sql;
    return BASALT_OK;
}

void basalt_catalog_rest_sql_close(struct basalt_catalog_rest_sql *sql)
{
    if (!sql)
        return;
    if (sql->driver && sql->conn)
        sql->driver->close(sql->conn);
    basalt_free(sql);
}

basalt_status basalt_catalog_rest_slot_sql(struct basalt_catalog_rest_call *call,
                                           struct basalt_catalog_rest_sql **out,
                                           struct basalt_error *err)
{
    *out = call->slot->sql;
    return *out ? BASALT_OK
                : basalt_error_set(err, BASALT_UNSUPPORTED, "not a SQL catalog");
}

static basalt_status take_property(void *ctx, const char *const *columns, int n,
                                   struct basalt_error *err)
{
    json_t *props = ctx;
    if (n < 2 || !columns[0] || strcmp(columns[0], "exists") == 0)
        return BASALT_OK;
    if (json_object_set_new(props, columns[0], json_string(columns[1] ? columns[1] : "")) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

basalt_status basalt_catalog_rest_sql_properties(struct basalt_catalog_rest_sql *sql,
                                                 const char *catalog, const char *ns,
                                                 json_t *out, struct basalt_error *err)
{
    const char *args[2] = {catalog, ns};
    return run(sql,
               "SELECT property_key, property_value FROM iceberg_namespace_properties WHERE "
               "catalog_name = $1 AND namespace = $2",
               args, 2, take_property, out, NULL, err);
}

#define INSERT_PROPERTY                                                                         \
    "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "          \
    "property_value) VALUES ($1, $2, $3, $4)"

basalt_status basalt_catalog_rest_sql_create_namespace(struct basalt_catalog_rest_sql *sql,
                                                       const char *catalog, const char *ns,
                                                       json_t *props,
                                                       struct basalt_error *err)
{
    /* As PyIceberg creates a namespace with properties: one row each and no
     * ("exists", "true") row. A key taken means the namespace exists. */
    basalt_status st = begin(sql, err);
    if (st != BASALT_OK)
        return st;
    const char *key;
    json_t *v;
    json_object_foreach(props, key, v)
    {
        const char *args[4] = {catalog, ns, key, json_string_value(v)};
        if (st == BASALT_OK)
            st = run(sql, INSERT_PROPERTY, args, 4, NULL, NULL, NULL, err);
    }
    return finish(sql, st, err);
}

basalt_status basalt_catalog_rest_sql_update_properties(
    struct basalt_catalog_rest_sql *sql, const char *catalog, const char *ns,
    const json_t *removals, json_t *updates, json_t *updated, json_t *removed,
    json_t *missing, struct basalt_error *err)
{
    basalt_status st = begin(sql, err);
    if (st != BASALT_OK)
        return st;
    size_t i;
    const json_t *k;
    json_array_foreach(removals, i, k)
    {
        const char *args[3] = {catalog, ns, json_string_value(k)};
        int64_t changes = 0;
        if (st == BASALT_OK)
            st = run(sql,
                     "DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND "
                     "namespace = $2 AND property_key = $3",
                     args, 3, NULL, NULL, &changes, err);
        if (st == BASALT_OK &&
            json_array_append_new(changes ? removed : missing, json_string(args[2])) != 0)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    const char *key;
    json_t *v;
    json_object_foreach(updates, key, v)
    {
        /* Delete then insert: the same two statements on SQLite and
         * PostgreSQL, inside the transaction. */
        const char *args[4] = {catalog, ns, key, json_string_value(v)};
        if (st == BASALT_OK)
            st = run(sql,
                     "DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND "
                     "namespace = $2 AND property_key = $3",
                     args, 3, NULL, NULL, NULL, err);
        if (st == BASALT_OK)
            st = run(sql, INSERT_PROPERTY, args, 4, NULL, NULL, NULL, err);
        if (st == BASALT_OK && json_array_append_new(updated, json_string(key)) != 0)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    /* A namespace without tables exists through its rows: keep one. */
    bool any = false;
    const char *args[2] = {catalog, ns};
    if (st == BASALT_OK)
        st = run(sql,
                 "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 AND "
                 "namespace = $2",
                 args, 2, basalt_catalog_sql_one_row, &any, NULL, err);
    if (st == BASALT_OK && !any)
        st = run(sql,
                 "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
                 "property_value) VALUES ($1, $2, 'exists', 'true')",
                 args, 2, NULL, NULL, NULL, err);
    return finish(sql, st, err);
}

basalt_status basalt_catalog_rest_sql_drop_namespace(struct basalt_catalog_rest_sql *sql,
                                                     const char *catalog, const char *ns,
                                                     struct basalt_error *err)
{
    char *like = basalt_catalog_sql_like_children(ns);
    if (!like)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* The checks and the delete in one write transaction, so a table
     * created meanwhile cannot end up in a dropped namespace. */
    basalt_status st = begin(sql, err);
    bool tables = false, children = false;
    const char *args[3] = {catalog, ns, like};
    if (st == BASALT_OK)
        st = run(sql,
                 "SELECT 1 FROM iceberg_tables WHERE catalog_name = $1 AND (table_namespace = $2 "
                 "OR table_namespace LIKE $3 ESCAPE '!')",
                 args, 3, basalt_catalog_sql_one_row, &tables, NULL, err);
    /* PostgreSQL wants every parameter passed to be used. */
    const char *child_args[2] = {catalog, like};
    if (st == BASALT_OK)
        st = run(sql,
                 "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 AND "
                 "namespace LIKE $2 ESCAPE '!'",
                 child_args, 2, basalt_catalog_sql_one_row, &children, NULL, err);
    if (st == BASALT_OK && (tables || children))
        st = basalt_error_set(err, BASALT_CONFLICT, "%s",
                              tables ? "it holds tables or views" : "it holds namespaces");
    if (st == BASALT_OK)
        st = run(sql,
                 "DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND "
                 "namespace = $2",
                 args, 2, NULL, NULL, NULL, err);
    basalt_free(like);
    return finish(sql, st, err);
}

/* Rows of iceberg_tables that are tables (V1 schema: not views). */
#define TABLE_ROWS " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"

basalt_status basalt_catalog_rest_sql_rename(struct basalt_catalog_rest_sql *sql,
                                             const char *catalog, const char *from_ns,
                                             const char *from_name, const char *to_ns,
                                             const char *to_name, struct basalt_error *err)
{
#define RENAME_SQL                                                                              \
    "UPDATE iceberg_tables SET table_namespace = $4, table_name = $5 WHERE catalog_name = $1 "  \
    "AND table_namespace = $2 AND table_name = $3"
    const char *args[5] = {catalog, from_ns, from_name, to_ns, to_name};
    int64_t changes = 0;
    /* The key (catalog, namespace, name) refuses a taken identifier. */
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK)
        st = run(sql, sql->has_iceberg_type ? RENAME_SQL TABLE_ROWS : RENAME_SQL, args, 5, NULL,
                 NULL, &changes, err);
    if (st == BASALT_OK && changes == 0)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "no table '%.200s.%.200s'", from_ns,
                              from_name);
    return st;
}

basalt_status basalt_catalog_rest_sql_swap_all(struct basalt_catalog_rest_sql *sql,
                                               const char *catalog,
                                               const struct basalt_catalog_rest_swap *swaps,
                                               size_t n, struct basalt_error *err)
{
    /* The compare-and-swap of sql.c's commits, once per table, inside one
     * transaction: SQLite's BEGIN IMMEDIATE holds the write lock across
     * them, PostgreSQL's row locks make a concurrent swap wait and then
     * find the location changed. */
#define SWAP_SQL                                                                                  \
    "UPDATE iceberg_tables SET metadata_location = $5, previous_metadata_location = $4 WHERE "    \
    "catalog_name = $1 AND table_namespace = $2 AND table_name = $3 AND metadata_location = $4"
    basalt_status st = refresh_type(sql, err);
    if (st == BASALT_OK)
        st = begin(sql, err);
    if (st != BASALT_OK)
        return st;
    for (size_t i = 0; st == BASALT_OK && i < n; i++) {
        const char *args[5] = {catalog, swaps[i].ns, swaps[i].name, swaps[i].expected,
                               swaps[i].location};
        int64_t changes = 0;
        st = run(sql, sql->has_iceberg_type ? SWAP_SQL TABLE_ROWS : SWAP_SQL, args, 5, NULL, NULL,
                 &changes, err);
        if (st == BASALT_OK && changes == 0)
            st = basalt_error_set(err, BASALT_CONFLICT,
                                  "table '%.200s.%.200s' was changed by another commit",
                                  swaps[i].ns, swaps[i].name);
    }
    if (st != BASALT_OK) {
        run(sql, "ROLLBACK", NULL, 0, NULL, NULL, NULL, NULL);
        /* Nothing is applied before COMMIT, even over a broken connection. */
        return st == BASALT_UNKNOWN_OUTCOME ? basalt_error_context(err, BASALT_IO, "rolled back")
                                            : st;
    }
    st = run(sql, "COMMIT", NULL, 0, NULL, NULL, NULL, err);
    if (st != BASALT_OK) {
        run(sql, "ROLLBACK", NULL, 0, NULL, NULL, NULL, NULL);
        return basalt_error_context(err, BASALT_UNKNOWN_OUTCOME, "the commit's outcome is unknown");
    }
    return BASALT_OK;
}
