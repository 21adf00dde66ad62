/* basalt query plans: relational operators over Arrow batches, run in
 * parallel on the basalt pool.
 *
 *   - basalt_qctx       a query context: the pool, the worker count, the
 *                       memory limit, and the arena every plan node of the
 *                       query lives in (freed with the context)
 *   - basalt_qplan_*    plan nodes: scans (Parquet files, CSV, Arrow IPC,
 *                       Iceberg tables, in-memory batches), filter,
 *                       projection, aggregation, join, sort and top-k,
 *                       window functions, limit, union; each knows its
 *                       output schema when it is made, so a binder or a
 *                       DataFrame can build on it
 *   - basalt_qplan_execute / _open   optimise (column pruning, predicates
 *                       pushed into Parquet and Iceberg pruning) and run,
 *                       to batches or a cursor a batch at a time
 *
 * Expressions are basalt_qexpr trees (include/basalt/query.h) built with a
 * builder over the input schema of the node that takes them:
 * basalt_qplan_builder(ctx, child) gives one (the context owns it). The
 * results of a plan are identical for any worker count: morsels (row groups,
 * batches) are numbered and every operator keeps or restores their order;
 * aggregation emits groups in an order that depends only on the data. */
#ifndef BASALT_QUERY_PLAN_H
#define BASALT_QUERY_PLAN_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/csv.h"
#include "basalt/json.h"
#include "basalt/iceberg_scan.h"
#include "basalt/query.h"

#ifdef __cplusplus
extern "C" {
#endif

struct basalt_qctx;
struct basalt_qplan;
struct basalt_iceberg_table;

struct basalt_io_store;

struct basalt_qctx_options {
    struct basalt_pool *pool; /* borrowed; NULL: the calling thread */
    int num_workers;          /* at most this many of the pool's workers (0: all) */
    /* Bytes; 0: none. Past it sort (ORDER BY, window input) and grouped
     * aggregation spill to temporary files instead of failing; the other
     * operators fail with LIMIT naming the limit. */
    int64_t memory_limit;
    /* Where spill files go (borrowed; it must outlive the context). NULL or
     * "": $TMPDIR, else /tmp. Files are unlinked as soon as they are made. */
    const char *spill_dir;
    /* Opens the remote URIs of file scans (s3://, s3a://, gs://, az://,
     * abfs[s]://, http(s)://) (borrowed; it must outlive the context). NULL:
     * the context makes one from the environment when a scan first needs
     * it (basalt_qctx_store). */
    struct basalt_io_store *store;
};
BASALT_EXPORT void basalt_qctx_options_init(struct basalt_qctx_options *o);

BASALT_EXPORT basalt_status basalt_qctx_new(const struct basalt_qctx_options *o,
                                            struct basalt_qctx **out, struct basalt_error *err);
/* Frees the context and every node, builder and expression made in it. */
BASALT_EXPORT void basalt_qctx_free(struct basalt_qctx *ctx);
/* The store remote file URIs are opened with: the options' store, or one
 * the context made from the environment (basalt_io_store_new) the first
 * time it was asked, kept until the context is freed. The errors of
 * basalt_io_store_new (a malformed AWS config file, say). */
BASALT_EXPORT basalt_status basalt_qctx_store(struct basalt_qctx *ctx, struct basalt_io_store **out,
                                              struct basalt_error *err);

/* The output schema of a node ("+s"; children named as the columns). Valid
 * as long as the context. */
BASALT_EXPORT const struct ArrowSchema *basalt_qplan_schema(const struct basalt_qplan *node);

/* Rows a node is expected to produce: exact for Parquet files (their
 * footers) and in-memory batches, the snapshot's record count for Iceberg,
 * a guess elsewhere. For join ordering. */
BASALT_EXPORT int64_t basalt_qplan_estimated_rows(const struct basalt_qplan *node);

/* The rows of the largest source under `node` (its scans and VALUES, by
 * basalt_qplan_estimated_rows): what running it reads at least once. */
BASALT_EXPORT int64_t basalt_qplan_largest_input(const struct basalt_qplan *node);

/* An upper bound of the distinct values of column `column` of `node`, for
 * join ordering: for integer columns of Parquet scans, the smaller of their
 * rows and their range in the row groups' statistics; -1 when unknown. */
BASALT_EXPORT int64_t basalt_qplan_column_ndv(const struct basalt_qplan *node, int column);

/* A builder over `node`'s output schema for expressions handed to the
 * filter, projection and aggregation made on top of it (owned by ctx). */
BASALT_EXPORT basalt_status basalt_qplan_builder(struct basalt_qctx *ctx,
                                                 const struct basalt_qplan *node,
                                                 struct basalt_qexpr_builder **out,
                                                 struct basalt_error *err);

/* ------------------------------------------------------------------ scans */

/* The Parquet files `paths[0, n)` (copied), read as one table: every file
 * must have the first file's columns (same names and types). The files'
 * footers are read now. Every column by default; the optimiser prunes the
 * columns no operator uses and pushes `column op constant` conjuncts of
 * filters above into the row-group pruning. Returns OK; the reader's
 * statuses ("trips/a.parquet: bad magic"); INVALID_ARG (no file, schemas
 * that differ, naming the file and the column); NOMEM. */
BASALT_EXPORT basalt_status basalt_qplan_scan_parquet(struct basalt_qctx *ctx,
                                                      const char *const *paths, size_t n,
                                                      struct basalt_qplan **out,
                                                      struct basalt_error *err);

/* A CSV file read with `options` (NULL: sniffed; copied). */
BASALT_EXPORT basalt_status basalt_qplan_scan_csv(struct basalt_qctx *ctx, const char *path,
                                                  const struct basalt_csv_read_options *options,
                                                  struct basalt_qplan **out,
                                                  struct basalt_error *err);

/* A JSON-lines file read with `options` (NULL: types inferred; the pool and
 * workers come from the context). The file is opened and its schema inferred
 * now, read whole when the plan runs. The reader's statuses ("t.json: line
 * 3, column 7: ..."); UNSUPPORTED for a top-level JSON array. */
BASALT_EXPORT basalt_status basalt_qplan_scan_json(struct basalt_qctx *ctx, const char *path,
                                                   const struct basalt_json_read_options *options,
                                                   struct basalt_qplan **out,
                                                   struct basalt_error *err);

/* An Arrow IPC file or stream (Feather v2 too). */
BASALT_EXPORT basalt_status basalt_qplan_scan_ipc(struct basalt_qctx *ctx, const char *path,
                                                  struct basalt_qplan **out,
                                                  struct basalt_error *err);

/* An Iceberg table (borrowed: it must outlive the context). `options` gives
 * the time travel (snapshot id, ref, timestamp); its columns and filter are
 * ignored: the optimiser sets them from the plan. */
BASALT_EXPORT basalt_status basalt_qplan_scan_iceberg(
    struct basalt_qctx *ctx, const struct basalt_iceberg_table *table,
    const struct basalt_iceberg_scan_options *options, struct basalt_qplan **out,
    struct basalt_error *err);

/* In-memory batches (moved out of `batches`, left empty; its schema is the
 * node's). */
BASALT_EXPORT basalt_status basalt_qplan_values(struct basalt_qctx *ctx,
                                                struct basalt_arrow_batches *batches,
                                                struct basalt_qplan **out,
                                                struct basalt_error *err);

/* What a VALUES node holds, shown by EXPLAIN after its name ("CTE
 * revenue"; copied). INVALID_ARG for another kind of node; NOMEM. */
BASALT_EXPORT basalt_status basalt_qplan_values_label(struct basalt_qplan *node, const char *label,
                                                      struct basalt_error *err);

/* A series of values generated as the plan runs, DuckDB's range and
 * generate_series: start, start + step, ... while before stop (or at it,
 * when `inclusive`), in one non-null column. Of INT64 (`step`) or of
 * TIMESTAMP (us, with or without zone; `interval` is the step, added as
 * TIMESTAMP + INTERVAL adds it, so a month step from the 31st stays on
 * the days the months allow). */
struct basalt_qplan_series {
    struct basalt_query_type type; /* INT64 or TIMESTAMP */
    int64_t start, stop;
    int64_t step; /* INT64 */
    struct {
        int32_t months, days;
        int64_t nanos;
    } interval; /* TIMESTAMP */
    bool inclusive;
    bool empty; /* no rows at all (an argument was NULL) */
};

/* A series node with column `name` (copied). Returns OK; INVALID_ARG: a
 * step of 0, an interval whose parts differ in sign, a type other than
 * INT64 and TIMESTAMP; NOMEM. */
BASALT_EXPORT basalt_status basalt_qplan_series(struct basalt_qctx *ctx,
                                                const struct basalt_qplan_series *series,
                                                const char *name, struct basalt_qplan **out,
                                                struct basalt_error *err);

/* ------------------------------------------------------------------ operators */

/* Rows of `child` where `predicate` (BOOLEAN, built over child's schema) is
 * TRUE. */
BASALT_EXPORT basalt_status basalt_qplan_filter(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                                struct basalt_qexpr *predicate,
                                                struct basalt_qplan **out,
                                                struct basalt_error *err);

/* UNNEST: per row of `child`, as many rows as the longest of its lists in
 * columns cols[0, n_cols) (LIST columns of child; a NULL list has none):
 * child's other columns repeated, then one column per list, "unnest0".., holding
 * the list's element k of row k (NULL past the list's end: DuckDB's zip of
 * several unnests). A row whose lists are all empty or NULL gives no row.
 * Rows come out in the input's order, each row's elements in theirs.
 * Returns OK; INVALID_ARG (a column out of range or not a LIST; n_cols
 * outside 1..64); NOMEM. */
BASALT_EXPORT basalt_status basalt_qplan_unnest(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                                const int *cols, int n_cols,
                                                struct basalt_qplan **out,
                                                struct basalt_error *err);

/* One column per expression (over child's schema), named names[i] (copied). */
BASALT_EXPORT basalt_status basalt_qplan_project(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                                 struct basalt_qexpr *const *exprs,
                                                 const char *const *names, int n,
                                                 struct basalt_qplan **out,
                                                 struct basalt_error *err);

enum basalt_qplan_agg {
    BASALT_QPLAN_COUNT_STAR, BASALT_QPLAN_COUNT, BASALT_QPLAN_SUM, BASALT_QPLAN_AVG,
    BASALT_QPLAN_MIN, BASALT_QPLAN_MAX, BASALT_QPLAN_ANY_VALUE,
    BASALT_QPLAN_STDDEV_SAMP, BASALT_QPLAN_STDDEV_POP, BASALT_QPLAN_VAR_SAMP, BASALT_QPLAN_VAR_POP,
    BASALT_QPLAN_MEDIAN, BASALT_QPLAN_QUANTILE_CONT, BASALT_QPLAN_QUANTILE_DISC,
    BASALT_QPLAN_STRING_AGG, BASALT_QPLAN_BOOL_AND, BASALT_QPLAN_BOOL_OR,
    /* Two arguments, DuckDB's f(y, x): arg is y, arg2 is x. Pairs with a
     * NULL on either side are skipped. */
    BASALT_QPLAN_CORR, BASALT_QPLAN_COVAR_POP, BASALT_QPLAN_COVAR_SAMP,
    BASALT_QPLAN_REGR_SLOPE, BASALT_QPLAN_REGR_INTERCEPT, BASALT_QPLAN_REGR_R2,
    BASALT_QPLAN_REGR_COUNT, BASALT_QPLAN_REGR_AVGX, BASALT_QPLAN_REGR_AVGY,
    BASALT_QPLAN_REGR_SXX, BASALT_QPLAN_REGR_SYY, BASALT_QPLAN_REGR_SXY,
    /* arg_min(x, y) (arg is x, arg2 y): x of the row with the smallest y,
     * over rows with neither NULL (_NULL: a NULL x counts); ties go to the
     * smallest x. With `order` instead of arg2: the first (MIN) or last
     * (MAX) row in that order. */
    BASALT_QPLAN_ARG_MIN, BASALT_QPLAN_ARG_MAX, BASALT_QPLAN_ARG_MIN_NULL,
    BASALT_QPLAN_ARG_MAX_NULL,
    BASALT_QPLAN_PRODUCT, BASALT_QPLAN_BIT_AND, BASALT_QPLAN_BIT_OR, BASALT_QPLAN_BIT_XOR,
    BASALT_QPLAN_MODE, /* the most frequent value; ties: the smallest */
    /* array_agg / list: the values as a LIST of arg's type, NULLs kept as
     * NULL elements, in `order` (which it needs: the SQL binder ends it with
     * the value itself, so that the order is a function of the values);
     * NULL over no row. */
    BASALT_QPLAN_ARRAY_AGG
};

/* An ORDER BY key inside an aggregate call. */
struct basalt_qplan_agg_order {
    struct basalt_qexpr *expr; /* over child's schema */
    bool desc;
    bool nulls_first;          /* DuckDB's default: false in either direction */
};

struct basalt_qplan_agg_call {
    enum basalt_qplan_agg kind;
    bool distinct;
    struct basalt_qexpr *arg;  /* over child's schema; NULL for COUNT_STAR */
    double quantile;           /* QUANTILE_* */
    const char *separator;     /* STRING_AGG; NULL: "," */
    const char *name;          /* output column name */
    struct basalt_qexpr *arg2; /* CORR .. REGR_SXY: the second argument (x); else NULL */
    /* ORDER BY inside the call, for the ARG_MIN family (instead of arg2:
     * first(x ORDER BY k) is ARG_MIN_NULL over the order of k, last ARG_MAX_NULL,
     * any_value ARG_MIN) and STRING_AGG (the pieces joined in that order,
     * equal keys by the pieces' bytes); n_order 0 for the others. Copied. */
    const struct basalt_qplan_agg_order *order;
    int n_order;
    /* With `order`: rows where this BOOLEAN is not TRUE are left out
     * (FILTER (WHERE ...)); NULL: none. Ignored without `order`, where a
     * FILTER is the argument's CASE WHEN. */
    struct basalt_qexpr *filter;
};

/* GROUP BY keys (expressions over child's schema, named key_names[i]) with
 * the aggregates `calls`: output columns are the keys then the aggregates.
 * No keys: one row. Result types as DuckDB's (sum of integers is
 * DECIMAL(38,0), DuckDB's HUGEINT; the two-argument aggregates of numbers
 * DOUBLE, REGR_COUNT UINT32, never NULL). Returns OK; INVALID_ARG (a
 * missing argument); UNSUPPORTED (an argument type the aggregate does not
 * take, DISTINCT with two arguments); NOMEM. */
BASALT_EXPORT basalt_status basalt_qplan_aggregate(struct basalt_qctx *ctx,
                                                   struct basalt_qplan *child,
                                                   struct basalt_qexpr *const *keys,
                                                   const char *const *key_names, int n_keys,
                                                   const struct basalt_qplan_agg_call *calls,
                                                   int n_calls, struct basalt_qplan **out,
                                                   struct basalt_error *err);

enum basalt_qplan_join_type {
    BASALT_QPLAN_JOIN_INNER, BASALT_QPLAN_JOIN_LEFT, BASALT_QPLAN_JOIN_RIGHT,
    BASALT_QPLAN_JOIN_FULL, BASALT_QPLAN_JOIN_SEMI, BASALT_QPLAN_JOIN_ANTI,
    BASALT_QPLAN_JOIN_CROSS
};

/* left JOIN right ON left.left_keys[i] = right.right_keys[i] (column
 * indices; the pairs must have equal types) [AND residual]. The output is
 * left's columns then right's (SEMI and ANTI: left's only). `residual`
 * (NULL: none) is built over the output layout of an INNER join, with a
 * builder from basalt_qplan_join_builder. The hash table is built on the
 * right side. */
BASALT_EXPORT basalt_status basalt_qplan_join(struct basalt_qctx *ctx,
                                              enum basalt_qplan_join_type type,
                                              struct basalt_qplan *left,
                                              struct basalt_qplan *right,
                                              const int *left_keys, const int *right_keys,
                                              int n_keys, struct basalt_qexpr *residual,
                                              struct basalt_qplan **out,
                                              struct basalt_error *err);
/* Makes SEMI or ANTI join `join` build its hash table on its left side:
 * the right side then probes, marking the left rows it matches, and the
 * left rows come out (matched for SEMI, not for ANTI) in their order once
 * the right side is done. The same rows; for a left side much smaller than
 * the right. Returns OK; INVALID_ARG (not a SEMI or ANTI join, no keys, a
 * residual). */
BASALT_EXPORT basalt_status basalt_qplan_join_build_left(struct basalt_qplan *join,
                                                         struct basalt_error *err);
/* A builder over left's columns then right's, for a join's residual. */
BASALT_EXPORT basalt_status basalt_qplan_join_builder(struct basalt_qctx *ctx,
                                                      const struct basalt_qplan *left,
                                                      const struct basalt_qplan *right,
                                                      struct basalt_qexpr_builder **out,
                                                      struct basalt_error *err);

struct basalt_qplan_sort_key {
    int column;
    bool descending;
    bool nulls_first;
};

/* Rows of child ordered by `keys` (stable); limit >= 0 keeps rows [offset,
 * offset + limit) of that order (top-k); limit < 0 keeps rows from offset
 * on (*out is then a LIMIT node over the sort when offset > 0). */
BASALT_EXPORT basalt_status basalt_qplan_sort(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                              const struct basalt_qplan_sort_key *keys, int n,
                                              int64_t limit, int64_t offset,
                                              struct basalt_qplan **out,
                                              struct basalt_error *err);

/* Rows [offset, offset + limit) of child in its order (limit < 0: all). */
BASALT_EXPORT basalt_status basalt_qplan_limit(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                               int64_t limit, int64_t offset,
                                               struct basalt_qplan **out,
                                               struct basalt_error *err);

/* The rows of every child in order (UNION ALL); the children's column types
 * must be equal; names are the first child's. */
BASALT_EXPORT basalt_status basalt_qplan_union_all(struct basalt_qctx *ctx,
                                                   struct basalt_qplan *const *children, int n,
                                                   struct basalt_qplan **out,
                                                   struct basalt_error *err);

/* ------------------------------------------------------------------ windows */

enum basalt_qplan_window_fn {
    BASALT_QPLAN_WIN_ROW_NUMBER, BASALT_QPLAN_WIN_RANK, BASALT_QPLAN_WIN_DENSE_RANK,
    BASALT_QPLAN_WIN_PERCENT_RANK, BASALT_QPLAN_WIN_CUME_DIST, BASALT_QPLAN_WIN_NTILE,
    BASALT_QPLAN_WIN_LAG, BASALT_QPLAN_WIN_LEAD, BASALT_QPLAN_WIN_FIRST_VALUE,
    BASALT_QPLAN_WIN_LAST_VALUE, BASALT_QPLAN_WIN_NTH_VALUE,
    BASALT_QPLAN_WIN_COUNT_STAR, BASALT_QPLAN_WIN_COUNT, BASALT_QPLAN_WIN_SUM,
    BASALT_QPLAN_WIN_AVG, BASALT_QPLAN_WIN_MIN, BASALT_QPLAN_WIN_MAX
};

enum basalt_qplan_frame_bound {
    BASALT_QPLAN_UNBOUNDED_PRECEDING, BASALT_QPLAN_PRECEDING, BASALT_QPLAN_CURRENT_ROW,
    BASALT_QPLAN_FOLLOWING, BASALT_QPLAN_UNBOUNDED_FOLLOWING
};

/* EXCLUDE: rows taken out of every row's frame (NO OTHERS: none). */
enum basalt_qplan_frame_exclude {
    BASALT_QPLAN_EXCLUDE_NO_OTHERS, /* the default */
    BASALT_QPLAN_EXCLUDE_CURRENT_ROW,
    BASALT_QPLAN_EXCLUDE_GROUP,     /* the current row and its peers */
    BASALT_QPLAN_EXCLUDE_TIES       /* the current row's peers, not the row itself */
};

struct basalt_qplan_window_call {
    enum basalt_qplan_window_fn fn;
    int arg;                 /* input column (LAG/LEAD/FIRST/LAST/NTH value, aggregates); -1 none */
    int64_t offset;          /* LAG/LEAD offset (default 1), NTILE buckets, NTH_VALUE n */
    int default_arg;         /* LAG/LEAD default: input column, -1 = NULL */
    bool rows;               /* frame in ROWS (true) or RANGE / GROUPS (false) */
    bool groups;             /* with rows false: GROUPS (offsets count peer groups), not RANGE */
    enum basalt_qplan_frame_bound start, end;
    int64_t start_offset, end_offset; /* PRECEDING / FOLLOWING offsets of ROWS and GROUPS
                                         frames; of RANGE frames when the value below is unset */
    /* RANGE PRECEDING / FOLLOWING offsets, in the one ORDER BY key's units: a
     * number for a numeric key, a number (days) or an INTERVAL for a DATE,
     * an INTERVAL for a TIMESTAMP. Type BASALT_QUERY_TYPE_NULL and not
     * is_null (a zeroed value): start_offset / end_offset as a BIGINT. */
    struct basalt_query_value start_value, end_value;
    enum basalt_qplan_frame_exclude exclude;
    bool has_frame;          /* false: SQL's default frame (RANGE UNBOUNDED PRECEDING .. CURRENT ROW
                                with ORDER BY, the whole partition without) */
    const char *name;        /* output column name (copied) */
};

/* Window functions over partitions of child (partition_cols), ordered by
 * order_keys (the sort keys above). Output: every column of child, then one
 * column per call. All calls share the one PARTITION BY / ORDER BY (the
 * binder stacks nodes for several windows). Rows come out ordered by
 * (partition columns ascending, NULLs last; then the order keys), ties in
 * input order.
 *
 * Semantics and result types are DuckDB's: ROW_NUMBER, RANK, DENSE_RANK,
 * NTILE, COUNT and COUNT_STAR BIGINT; PERCENT_RANK, CUME_DIST and AVG DOUBLE;
 * LAG, LEAD, FIRST/LAST/NTH_VALUE, MIN and MAX the argument's type; SUM
 * DECIMAL(38,0) of integers and BOOLEAN, DECIMAL(38,s) of DECIMAL(p,s),
 * DOUBLE of floats. The ranking functions and LAG/LEAD ignore the frame;
 * aggregates skip NULLs (NULL over a frame without values, COUNT 0);
 * LAG/LEAD outside the partition give the default (default_arg's value on
 * the current row; its type must be the argument's); NTH_VALUE with n < 1
 * is NULL. ROWS offsets may be negative (the frame moves the other way,
 * as DuckDB's). Peers are rows with equal order keys, NULLs equal to NULLs,
 * NaN to NaN and -0.0 to 0.0.
 *
 * Frames as DuckDB's: ROWS counts rows; GROUPS counts peer groups (n
 * PRECEDING starts at the first row of the n-th group before the current
 * row's); RANGE with an offset takes the rows whose ORDER BY value lies
 * within the offset of the current row's (key - offset .. key + offset,
 * PRECEDING meaning larger values under DESC). In a RANGE frame with an
 * offset a row whose key is NULL has its peers (the other NULL rows) where
 * the offset bound would be, and an offset bound of a non-NULL row never
 * reaches the NULL rows (UNBOUNDED bounds do). EXCLUDE takes the current
 * row, its peer group, or the peers but the row out of the frame.
 *
 * `partition_cols`, `order_keys` and `calls` are copied. Returns OK;
 * INVALID_ARG (columns out of range, a missing argument, NTILE buckets < 1,
 * a frame SQL rejects: start UNBOUNDED FOLLOWING, end UNBOUNDED PRECEDING, a
 * start after CURRENT ROW with an end before it, a negative GROUPS offset, a
 * RANGE offset that is NULL, negative, NaN or an INTERVAL with a negative
 * part, a RANGE offset without exactly one ORDER BY key; a default of
 * another type); UNSUPPORTED (a key or argument type the function cannot
 * use: INTERVAL keys, MIN of INTERVAL, SUM of VARCHAR, a RANGE offset over
 * a key that is not a number, DATE or TIMESTAMP or of a type the key cannot
 * be moved by); LIMIT (more than 64 partition and order keys); NOMEM.
 * Running, a RANGE bound that leaves the key's type fails as the
 * expression key +/- offset does (LIMIT "Overflow in addition ..."). */
BASALT_EXPORT basalt_status basalt_qplan_window(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                                const int *partition_cols, int n_partition,
                                                const struct basalt_qplan_sort_key *order_keys,
                                                int n_order,
                                                const struct basalt_qplan_window_call *calls,
                                                int n_calls, struct basalt_qplan **out,
                                                struct basalt_error *err);

/* ------------------------------------------------------------------ running */

/* Optimises the plan (column pruning, predicates into scans) without
 * running it, for EXPLAIN; execute does it when it has not been done. */
BASALT_EXPORT basalt_status basalt_qplan_optimize_plan(struct basalt_qctx *ctx,
                                                       struct basalt_qplan *root,
                                                       struct basalt_error *err);

/* Optimises and runs the plan, appending its result to `out` (empty; its
 * schema set). The plan may be executed once. */
BASALT_EXPORT basalt_status basalt_qplan_execute(struct basalt_qctx *ctx, struct basalt_qplan *root,
                                                 struct basalt_arrow_batches *out,
                                                 struct basalt_error *err);

/* A plan's rows a batch at a time, for results too large to hold:
 * basalt_qplan_open optimises the plan and runs what must run before the
 * first row can come (aggregations, the build sides of joins, the input of
 * a sort); each basalt_qcursor_next then runs only as much of the rest as
 * its batch needs: the morsels of the last pipeline a window at a time (a
 * window is sized to a few hundred MiB, or an eighth of the memory limit),
 * the merge of a sort that spilled, a LIMIT's rows (what lies under it
 * stops once they are out), the inputs of a UNION ALL one after another.
 * The rows and their order are basalt_qplan_execute's. A plan is opened or
 * executed once; the cursor borrows the context and the plan, so it is
 * freed before the context. One thread at a time. */
struct basalt_qcursor;

/* Returns OK; INVALID_ARG (NULL, a plan run already); the statuses of
 * execute. */
BASALT_EXPORT basalt_status basalt_qplan_open(struct basalt_qctx *ctx, struct basalt_qplan *root,
                                              struct basalt_qcursor **out,
                                              struct basalt_error *err);
/* The rows' schema (the root's; valid as long as the cursor). */
BASALT_EXPORT const struct ArrowSchema *basalt_qcursor_schema(const struct basalt_qcursor *c);
/* The next batch (caller storage, never empty), or out->release NULL at the
 * end. A failure ends the cursor: later calls return it again. Returns OK
 * and the statuses of execute. */
BASALT_EXPORT basalt_status basalt_qcursor_next(struct basalt_qcursor *c, struct ArrowArray *out,
                                                struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_qcursor_free(struct basalt_qcursor *c);

/* The plan as indented text, one operator per line (with rows and times
 * after execute: EXPLAIN ANALYZE). Returns the length needed. */
BASALT_EXPORT size_t basalt_qplan_explain(const struct basalt_qplan *root, bool analyze, char *buf,
                                          size_t cap);

/* What a run's scans read (after execute). `files` are the data files the
 * scans kept (Parquet: the files named; Iceberg: the data files left after
 * partition and metrics pruning) and `files_pruned` those the planner ruled
 * out; `rows_read` the rows the scans produced and `rows_scanned` the rows
 * that passed the filter directly above each scan (the rows the rest of the
 * plan saw); `plan_ms` the time spent planning the files (Iceberg manifests
 * read and pruned). Sums over every scan of the plan. */
struct basalt_qplan_scan_stats {
    int64_t files;
    int64_t files_pruned;
    int64_t rows_read;
    int64_t rows_scanned;
    double plan_ms;
};
BASALT_EXPORT void basalt_qplan_scan_stats(const struct basalt_qplan *root,
                                           struct basalt_qplan_scan_stats *out);

#ifdef __cplusplus
}
#endif

#endif
