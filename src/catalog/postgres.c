/* The SQL catalog's PostgreSQL driver, over libpq. */
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "sql_driver.h"

/* SQLSTATEs that mean "another writer got there first": unique_violation,
 * serialization_failure, deadlock_detected. */
static bool is_conflict(const char *state)
{
    return state && (!strcmp(state, "23505") || !strcmp(state, "40001") || !strcmp(state, "40P01"));
}

/* libpq's messages end in a newline; one line reads better in ours. */
static void one_line(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        s[--n] = '\0';
}

static basalt_status pg_exec(void *conn, const char *text, const char *const *args, int n_args,
                             basalt_catalog_sql_row_fn row, void *ctx, int64_t *changes,
                             struct basalt_error *err)
{
    PGconn *pg = conn;
    PGresult *res = PQexecParams(pg, text, n_args, NULL, args, NULL, NULL, 0);
    if (!res)
        return basalt_error_set(err, BASALT_NOMEM, "PostgreSQL: out of memory");
    ExecStatusType status = PQresultStatus(res);
    basalt_status st = BASALT_OK;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        char message[BASALT_ERROR_MESSAGE_MAX];
        snprintf(message, sizeof message, "%s", PQresultErrorMessage(res));
        one_line(message);
        /* A write whose connection broke before the server's answer came
         * may have been applied. */
        bool lost = changes != NULL && PQstatus(pg) == CONNECTION_BAD;
        st = basalt_error_set(err, is_conflict(state) ? BASALT_CONFLICT
                                   : lost              ? BASALT_UNKNOWN_OUTCOME
                                                       : BASALT_IO,
                              "PostgreSQL %s: %s%s", state ? state : "", message,
                              lost ? " (the connection broke: commit state unknown)" : "");
        PQclear(res);
        return st;
    }
    int rows = PQntuples(res), cols = PQnfields(res);
    for (int r = 0; row && st == BASALT_OK && r < rows; r++) {
        const char *values[8] = {0};
        for (int c = 0; c < cols && c < 8; c++)
            values[c] = PQgetisnull(res, r, c) ? NULL : PQgetvalue(res, r, c);
        st = row(ctx, values, cols < 8 ? cols : 8, err);
    }
    if (st == BASALT_OK && changes) {
        const char *n = PQcmdTuples(res);
        *changes = n && *n ? strtoll(n, NULL, 10) : 0;
    }
    PQclear(res);
    return st;
}

/* Tables and columns are looked up in the schemas on the search path, as
 * unqualified names in the statements resolve. */
static basalt_status pg_has_table(void *conn, const char *table, bool *exists,
                                  struct basalt_error *err)
{
    *exists = false;
    return pg_exec(conn,
                   "SELECT 1 FROM information_schema.tables WHERE table_name = $1 AND "
                   "table_schema = ANY (current_schemas(false))",
                   &table, 1, basalt_catalog_sql_one_row, exists, NULL, err);
}

static basalt_status pg_has_column(void *conn, const char *table, const char *column, bool *exists,
                                   struct basalt_error *err)
{
    const char *args[2] = {table, column};
    *exists = false;
    return pg_exec(conn,
                   "SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND "
                   "column_name = $2 AND table_schema = ANY (current_schemas(false))",
                   args, 2, basalt_catalog_sql_one_row, exists, NULL, err);
}

static void pg_close(void *conn)
{
    if (conn)
        PQfinish(conn);
}

static const struct basalt_catalog_sql_driver postgres_driver = {
    .name = "PostgreSQL",
    .begin_write = "BEGIN",
    .exec = pg_exec,
    .has_table = pg_has_table,
    .has_column = pg_has_column,
    .close = pg_close,
};

basalt_status basalt_catalog_postgres_open(const char *conninfo,
                                           const struct basalt_catalog_sql_driver **driver,
                                           void **conn, struct basalt_error *err)
{
    *driver = &postgres_driver;
    *conn = NULL;
    PGconn *pg = PQconnectdb(conninfo);
    if (!pg)
        return basalt_error_set(err, BASALT_NOMEM, "PostgreSQL: out of memory");
    if (PQstatus(pg) != CONNECTION_OK) {
        char message[BASALT_ERROR_MESSAGE_MAX];
        snprintf(message, sizeof message, "%s", PQerrorMessage(pg));
        one_line(message);
        const char *host = PQhost(pg), *port = PQport(pg), *db = PQdb(pg);
        basalt_status st = basalt_error_set(err, BASALT_IO, "PostgreSQL at %s:%s/%s: %s",
                                            host ? host : "?", port ? port : "?", db ? db : "?",
                                            message);
        PQfinish(pg);
        return st;
    }
    /* Catalog rows are short ASCII identifiers and paths; UTF-8 keeps the
     * bytes as they are. Notices (e.g. "table exists") stay quiet. */
    PQsetClientEncoding(pg, "UTF8");
    PQsetNoticeProcessor(pg, NULL, NULL);
    *conn = pg;
    return BASALT_OK;
}
