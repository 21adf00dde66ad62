/* basalt sql: the SQL front end over the query layer.
 *
 * Dialect: DuckDB's (PostgreSQL's grammar with DuckDB's additions: GROUP BY
 * ALL, ORDER BY ALL, SEMI/ANTI joins, `* EXCLUDE`, `//`, `==`, named
 * arguments `name => value`, files and table functions in FROM). */
#ifndef BASALT_SQL_H
#define BASALT_SQL_H

#include <stddef.h>

#include "basalt/arrow.h"
#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ parser */

/* A parsed script: its statements and the arena holding their syntax trees.
 * Immutable once parsed; may be read by several threads at once. */
struct basalt_sql_script;

/* Parses `len` bytes of `text` (borrowed; it need not be NUL-terminated and
 * is not read past len) as `;`-separated statements; empty statements are
 * skipped. On OK *out is a new script (free with basalt_sql_script_free).
 * Returns INVALID_ARG for a syntax error, with DuckDB-like text ending in
 * the 0-based byte offset: `syntax error at or near "FROM" (at position 17)`,
 * `unterminated quoted string (at position 5)`, `unexpected end of query (at
 * position 9)`; LIMIT for nesting deeper than 1000 or text over 16 MiB;
 * UNSUPPORTED for SQL understood but not supported (WITH RECURSIVE, NATURAL
 * JOIN, ...); NOMEM. Thread-safe (no shared state); the recursion needs
 * about 1 MiB of stack at the nesting limit (2 MiB under AddressSanitizer). */
BASALT_EXPORT basalt_status basalt_sql_parse(const char *text, size_t len,
                                             struct basalt_sql_script **out,
                                             struct basalt_error *err);

/* Frees the script and every tree in it. NULL is a no-op. */
BASALT_EXPORT void basalt_sql_script_free(struct basalt_sql_script *s);

/* Number of statements in the script. */
BASALT_EXPORT size_t basalt_sql_script_count(const struct basalt_sql_script *s);

/* Canonical, fully parenthesised text of statement i (for tests and EXPLAIN):
 * keywords upper-case, identifiers as stored (quoted ones quoted), every
 * operator application in parentheses. Parsing it gives the same text back.
 * Writes at most cap bytes including a terminating NUL (when cap > 0) and
 * returns the length of the whole text, like snprintf, so a caller can size
 * a buffer; returns 0 (and writes "") when i is out of range. Never
 * allocates. */
BASALT_EXPORT size_t basalt_sql_statement_format(const struct basalt_sql_script *s, size_t i,
                                                 char *buf, size_t cap);

/* ------------------------------------------------------------------ end of parser */

/* ------------------------------------------------------------------ sessions
 *
 * A session runs SQL text: it binds each statement into a query plan
 * (include/basalt/query_plan.h), optimises and runs it. Tables are files
 * (a quoted path or glob globs, read_parquet, read_csv, read_ipc,
 * iceberg_scan('dir' [, version => N, snapshot_from_id => ID])) or, with a
 * catalog, Iceberg tables by name (`db.trips`, `FOR VERSION AS OF`,
 * `FOR TIMESTAMP AS OF`). docs/QUERY.md lists what differs from DuckDB. */

struct basalt_sql_options {
    struct basalt_pool *pool; /* borrowed; NULL: the calling thread */
    int num_workers;          /* at most this many workers (0: all of the pool's) */
    int64_t memory_limit;     /* bytes; 0: none */
    const char *catalog_uri;  /* copied; NULL: no catalog (files only) */
};
BASALT_EXPORT void basalt_sql_options_init(struct basalt_sql_options *o);

struct basalt_sql_session;

/* Opens the catalog when one is given. Returns OK, the catalog's statuses,
 * NOMEM. */
BASALT_EXPORT basalt_status basalt_sql_session_new(const struct basalt_sql_options *o,
                                                   struct basalt_sql_session **out,
                                                   struct basalt_error *err);
BASALT_EXPORT void basalt_sql_session_free(struct basalt_sql_session *s);

/* Runs the statements of `text` in order; the rows of the last statement
 * that returns rows go to `out` (empty; its schema names the columns; EXPLAIN
 * gives one VARCHAR column "explain"). Errors name the position in the text:
 * `column "x" not found (at position 7)`. Returns OK; INVALID_ARG (syntax,
 * binding); NOT_FOUND (a file, a table, a column); UNSUPPORTED; the
 * statuses of the readers and operators; NOMEM. */
BASALT_EXPORT basalt_status basalt_sql_session_run(struct basalt_sql_session *s, const char *text,
                                                   size_t len, struct basalt_arrow_batches *out,
                                                   struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
