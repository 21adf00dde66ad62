/* The SQL catalog's SQLite driver. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog_internal.h"
#include "sql_driver.h"

/* How long a statement waits for another connection's lock. */
#define BUSY_TIMEOUT_MS 5000

struct sqlite_conn {
    sqlite3 *db;
    char *path;
};

static basalt_status sqlite_failure(struct sqlite_conn *c, int rc, struct basalt_error *err)
{
    basalt_status st;
    switch (rc & 0xff) {
    case SQLITE_NOMEM: st = BASALT_NOMEM; break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: st = BASALT_CORRUPT; break;
    /* A broken constraint, or a lock held past the busy timeout: either
     * way another writer got there first, and nothing was changed. */
    case SQLITE_CONSTRAINT:
    case SQLITE_BUSY:
    case SQLITE_LOCKED: st = BASALT_CONFLICT; break;
    default: st = BASALT_IO;
    }
    return basalt_error_set(err, st, "%s: %s", c->path, sqlite3_errmsg(c->db));
}

static basalt_status sqlite_exec(void *conn, const char *text, const char *const *args,
                                 int n_args, basalt_catalog_sql_row_fn row, void *ctx,
                                 int64_t *changes, struct basalt_error *err)
{
    struct sqlite_conn *c = conn;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(c->db, text, -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return sqlite_failure(c, rc, err);
    basalt_status st = BASALT_OK;
    /* $N names parameter N whatever the order they appear in. */
    for (int i = 0; i < n_args && st == BASALT_OK; i++) {
        char name[16];
        snprintf(name, sizeof name, "$%d", i + 1);
        int index = sqlite3_bind_parameter_index(stmt, name);
        if (index == 0)
            continue;
        rc = args[i] ? sqlite3_bind_text(stmt, index, args[i], -1, SQLITE_STATIC)
                     : sqlite3_bind_null(stmt, index);
        if (rc != SQLITE_OK)
            st = sqlite_failure(c, rc, err);
    }
    while (st == BASALT_OK) {
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            st = sqlite_failure(c, rc, err);
            break;
        }
        if (!row)
            continue;
        int n = sqlite3_column_count(stmt);
        const char *cols[8] = {0};
        for (int i = 0; i < n && i < 8; i++)
            cols[i] = (const char *)sqlite3_column_text(stmt, i);
        st = row(ctx, cols, n < 8 ? n : 8, err);
    }
    if (st == BASALT_OK && changes)
        *changes = sqlite3_changes(c->db);
    sqlite3_finalize(stmt);
    return st;
}

static basalt_status sqlite_has_table(void *conn, const char *table, bool *exists,
                                      struct basalt_error *err)
{
    *exists = false;
    return sqlite_exec(conn, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1",
                       &table, 1, basalt_catalog_sql_one_row, exists, NULL, err);
}

static basalt_status sqlite_has_column(void *conn, const char *table, const char *column,
                                       bool *exists, struct basalt_error *err)
{
    const char *args[2] = {table, column};
    *exists = false;
    return sqlite_exec(conn, "SELECT 1 FROM pragma_table_info($1) WHERE name = $2", args, 2,
                       basalt_catalog_sql_one_row, exists, NULL, err);
}

static void sqlite_close(void *conn)
{
    struct sqlite_conn *c = conn;
    if (!c)
        return;
    sqlite3_close(c->db);
    basalt_free(c->path);
    basalt_free(c);
}

static const struct basalt_catalog_sql_driver sqlite_driver = {
    .name = "SQLite",
    .begin_write = "BEGIN IMMEDIATE",
    .exec = sqlite_exec,
    .has_table = sqlite_has_table,
    .has_column = sqlite_has_column,
    .close = sqlite_close,
};

basalt_status basalt_catalog_sqlite_open(const char *path, bool create,
                                         const struct basalt_catalog_sql_driver **driver,
                                         void **conn, struct basalt_error *err)
{
    *conn = NULL;
    *driver = &sqlite_driver;
    bool memory = strcmp(path, ":memory:") == 0;
    struct stat sb;
    if (!memory && stat(path, &sb) != 0) {
        if (errno != ENOENT)
            return basalt_error_set(err, BASALT_IO, "%s: %s", path, strerror(errno));
        if (!create)
            return basalt_error_set(err, BASALT_NOT_FOUND, "%s: no such catalog database", path);
        basalt_status st = basalt_io_make_parent_dirs(path, err);
        if (st != BASALT_OK)
            return st;
    }
    struct sqlite_conn *c = basalt_calloc(1, sizeof *c);
    if (!c || !(c->path = basalt_strdup(path))) {
        basalt_free(c);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening a catalog", path);
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &c->db, flags, NULL);
    if (rc != SQLITE_OK) {
        basalt_status st = c->db ? sqlite_failure(c, rc, err)
                                 : basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", path);
        sqlite_close(c);
        return st;
    }
    sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
    *conn = c;
    return BASALT_OK;
}
