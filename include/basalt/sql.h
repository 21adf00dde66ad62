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
#include "basalt/query_plan.h"

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
    int64_t memory_limit;     /* bytes; 0: none (past it sort and GROUP BY spill) */
    /* Spill files' directory (copied; SET temp_directory = '...'); NULL:
     * $TMPDIR, else /tmp. */
    const char *spill_dir;
    const char *catalog_uri;  /* copied; NULL: no catalog (files only) */
    /* Where the catalog's remote tables are read (borrowed; it must outlive
     * the session). NULL: a store of the session's own, with the default
     * options: credentials from the environment, and the bytes of the
     * tables' files (never rewritten under their names) kept across
     * statements, up to its cache_bytes. */
    struct basalt_io_store *store;
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

/* The same a batch at a time, for results too large to hold: the
 * statements run in order, and the last one's query, when it gives the rows
 * (a SELECT, not a write or EXPLAIN), runs as a cursor (query_plan.h,
 * basalt_qplan_open): each basalt_sql_result_next runs only as much of it
 * as its batch needs. COPY, CREATE TABLE AS and INSERT write their query's
 * rows as they are made in every case. The result keeps the text and what
 * its query reads; the session must outlive it, and a table registered in
 * the session must not be replaced while it reads it. Returns
 * basalt_sql_session_run's statuses; the rest come from next. */
struct basalt_sql_result;
BASALT_EXPORT basalt_status basalt_sql_session_open(struct basalt_sql_session *s, const char *text,
                                                    size_t len, struct basalt_sql_result **out,
                                                    struct basalt_error *err);
/* The rows' schema (named as the query names them), or NULL when no
 * statement gave rows. Valid as long as the result. */
BASALT_EXPORT const struct ArrowSchema *basalt_sql_result_schema(
    const struct basalt_sql_result *r);
/* The next batch (caller storage), or out->release NULL at the end. A
 * failure ends the rows: later calls return it again. */
BASALT_EXPORT basalt_status basalt_sql_result_next(struct basalt_sql_result *r,
                                                   struct ArrowArray *out,
                                                   struct basalt_error *err);
/* Moves the result into `out` (caller storage), a stream of its rows that
 * frees it when released; the result is freed in every case. INVALID_ARG
 * (no rows), NOMEM. */
BASALT_EXPORT basalt_status basalt_sql_result_stream(struct basalt_sql_result *r,
                                                     struct ArrowArrayStream *out,
                                                     struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_sql_result_free(struct basalt_sql_result *r);

/* Statistics of the last statement a session ran that read tables (set by
 * basalt_sql_session_run; zero before the first). `bind_ms`: binding, with
 * the tables' metadata loaded; `plan_ms`: bind_ms plus planning the scans'
 * files; `run_ms`: executing the plan (file planning included);
 * `scans`: what the scans kept and read (include/basalt/query_plan.h). */
struct basalt_sql_stats {
    double bind_ms;
    double plan_ms;
    double run_ms;
    struct basalt_qplan_scan_stats scans;
};
BASALT_EXPORT void basalt_sql_session_last_stats(const struct basalt_sql_session *s,
                                                 struct basalt_sql_stats *out);

/* Registers in-memory batches (moved out of `batches`, left empty in every
 * case; struct batches with a schema) as table `name` of the session,
 * replacing one of that name: queries read them without copying, as often
 * as they like. Returns OK, INVALID_ARG, NOMEM. */
BASALT_EXPORT basalt_status basalt_sql_session_register(struct basalt_sql_session *s,
                                                        const char *name,
                                                        struct basalt_arrow_batches *batches,
                                                        struct basalt_error *err);

/* ------------------------------------------------------------------ DataFrames
 *
 * A lazy DataFrame: a query built one step at a time and run by collect.
 * Every step returns a new frame and leaves its input valid; a frame stands
 * for the SQL text basalt_df_sql_text gives, so frames and SQL build the same
 * plans (and the optimiser prunes columns and pushes filters into scans as
 * for any query). Expressions are SQL text over the frame's columns
 * ("fare * 1.1 AS fare2", "count(*) AS n"). Frames use their session (it
 * must outlive them) and are used by one thread at a time. */
struct basalt_df;

enum basalt_df_join_type {
    BASALT_DF_INNER, BASALT_DF_LEFT, BASALT_DF_RIGHT, BASALT_DF_FULL, BASALT_DF_SEMI, BASALT_DF_ANTI
};

/* Sources: Parquet files (a path or glob), a CSV file, an Iceberg table
 * directory, any SQL query, or batches from an Arrow stream (read to its
 * end and registered in the session; the stream is released). */
BASALT_EXPORT basalt_status basalt_df_read_parquet(struct basalt_sql_session *s, const char *path,
                                                   struct basalt_df **out,
                                                   struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_read_csv(struct basalt_sql_session *s, const char *path,
                                               struct basalt_df **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_read_iceberg(struct basalt_sql_session *s, const char *path,
                                                   struct basalt_df **out,
                                                   struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_sql(struct basalt_sql_session *s, const char *query,
                                          struct basalt_df **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_from_stream(struct basalt_sql_session *s,
                                                  struct ArrowArrayStream *stream,
                                                  struct basalt_df **out,
                                                  struct basalt_error *err);

/* Steps. Each checks its expressions when the frame runs (collect), where
 * errors name the position in basalt_df_sql_text. */
BASALT_EXPORT basalt_status basalt_df_filter(const struct basalt_df *df, const char *predicate,
                                             struct basalt_df **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_select(const struct basalt_df *df,
                                             const char *const *exprs, size_t n,
                                             struct basalt_df **out, struct basalt_error *err);
/* Adds columns, or replaces those of the same names (replaced columns move
 * to the end). */
BASALT_EXPORT basalt_status basalt_df_with_columns(const struct basalt_df *df,
                                                   const char *const *exprs,
                                                   const char *const *names, size_t n,
                                                   struct basalt_df **out,
                                                   struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_group_by(const struct basalt_df *df,
                                               const char *const *keys, size_t n_keys,
                                               const char *const *aggs, size_t n_aggs,
                                               struct basalt_df **out, struct basalt_error *err);
/* Joins on the columns `on` (comma-separated names both sides have: USING),
 * the right side's copies of them left out. */
BASALT_EXPORT basalt_status basalt_df_join(const struct basalt_df *left,
                                           const struct basalt_df *right, const char *on,
                                           enum basalt_df_join_type how, struct basalt_df **out,
                                           struct basalt_error *err);
/* order_by as SQL's ("fare DESC, id"). */
BASALT_EXPORT basalt_status basalt_df_sort(const struct basalt_df *df, const char *order_by,
                                           struct basalt_df **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_unique(const struct basalt_df *df, struct basalt_df **out,
                                             struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_df_head(const struct basalt_df *df, int64_t n,
                                           struct basalt_df **out, struct basalt_error *err);
/* The rows of every frame in order (UNION ALL; same columns). */
BASALT_EXPORT basalt_status basalt_df_concat(const struct basalt_df *const *dfs, size_t n,
                                             struct basalt_df **out, struct basalt_error *err);

/* Runs the frame: `out` (caller storage) becomes a stream of its rows,
 * made as they are read (basalt_sql_session_open). */
BASALT_EXPORT basalt_status basalt_df_collect(const struct basalt_df *df,
                                              struct ArrowArrayStream *out,
                                              struct basalt_error *err);
/* Runs the frame into a Parquet or CSV file (by the name's extension). */
BASALT_EXPORT basalt_status basalt_df_write(const struct basalt_df *df, const char *path,
                                            struct basalt_error *err);
/* The SQL text the frame stands for; valid as long as the frame. */
BASALT_EXPORT const char *basalt_df_sql_text(const struct basalt_df *df);
BASALT_EXPORT void basalt_df_free(struct basalt_df *df);

#ifdef __cplusplus
}
#endif

#endif
