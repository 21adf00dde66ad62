/* The database under the SQL catalog: one small interface with a driver for
 * embedded SQLite (sqlite.c) and one for PostgreSQL over libpq
 * (postgres.c), so the catalog's statements are written once
 * (sql.c). Not part of the public API. */
#ifndef BASALT_CATALOG_SQL_DRIVER_H
#define BASALT_CATALOG_SQL_DRIVER_H

#include "basalt/core.h"

/* Called once per result row with its columns as text (NULL for SQL NULL). */
typedef basalt_status (*basalt_catalog_sql_row_fn)(void *ctx, const char *const *columns,
                                                   int n_columns, struct basalt_error *err);

struct basalt_catalog_sql_driver {
    const char *name; /* "SQLite", "PostgreSQL": for messages */
    /* The statement that starts a transaction that will write, taking the
     * write lock up front where the database has one. */
    const char *begin_write;
    /* Runs `text`, whose parameters are written $1..$n, with text arguments
     * (NULL: SQL NULL). `row` (may be NULL) sees every result row;
     * *changes (may be NULL) receives the rows a write changed. A broken
     * uniqueness constraint is CONFLICT; a write (changes not NULL) whose
     * connection to a server broke is UNKNOWN_OUTCOME; other failures IO
     * (NOMEM for the database's own allocation failures), with the
     * database's message. */
    basalt_status (*exec)(void *conn, const char *text, const char *const *args, int n_args,
                          basalt_catalog_sql_row_fn row, void *ctx, int64_t *changes,
                          struct basalt_error *err);
    /* Whether a table / a table's column exists. */
    basalt_status (*has_table)(void *conn, const char *table, bool *exists,
                               struct basalt_error *err);
    basalt_status (*has_column)(void *conn, const char *table, const char *column, bool *exists,
                                struct basalt_error *err);
    void (*close)(void *conn);
};

/* A row callback that sets the bool at ctx: "is there a row". */
basalt_status basalt_catalog_sql_one_row(void *ctx, const char *const *columns, int n_columns,
                                        struct basalt_error *err);
/* "ns" -> "ns.%" with PyIceberg's LIKE escaping ('!' escapes '!', '_', '%'):
 * the pattern of the namespaces under ns. basalt_malloc'd; NULL on NOMEM. */
char *basalt_catalog_sql_like_children(const char *ns);

/* Opens a SQLite database file (created, with its directories, when
 * `create`); NOT_FOUND when it is missing and not created. */
basalt_status basalt_catalog_sqlite_open(const char *path, bool create,
                                         const struct basalt_catalog_sql_driver **driver,
                                         void **conn, struct basalt_error *err);
/* Connects to PostgreSQL with a libpq connection string or URI
 * ("postgresql://user:secret@host:5432/db"). IO naming the server when it
 * cannot connect (the password is never printed). */
basalt_status basalt_catalog_postgres_open(const char *conninfo,
                                           const struct basalt_catalog_sql_driver **driver,
                                           void **conn, struct basalt_error *err);

#endif
