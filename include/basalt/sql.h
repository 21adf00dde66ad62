/* basalt sql: the SQL front end over the query layer.
 *
 * Dialect: DuckDB's (PostgreSQL's grammar with DuckDB's additions: GROUP BY
 * ALL, ORDER BY ALL, SEMI/ANTI joins, `* EXCLUDE`, `//`, `==`, named
 * arguments `name => value`, files and table functions in FROM). */
#ifndef BASALT_SQL_H
#define BASALT_SQL_H

#include <stddef.h>

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
 * JOIN); NOMEM. Thread-safe. */
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

#ifdef __cplusplus
}
#endif

#endif
