/* Plan nodes: what each operator holds between being built and being run,
 * and the statistics EXPLAIN ANALYZE prints. */
#ifndef BASALT_QUERY_PLAN_INTERNAL_H
#define BASALT_QUERY_PLAN_INTERNAL_H

#include <stdatomic.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_scan.h"
#include "basalt/parquet.h"
#include "basalt/query_plan.h"
#include "query_internal.h"

enum qplan_kind {
    QPLAN_SCAN_PARQUET,
    QPLAN_SCAN_CSV,
    QPLAN_SCAN_JSON,
    QPLAN_SCAN_IPC,
    QPLAN_SCAN_ICEBERG,
    QPLAN_VALUES,
    QPLAN_SERIES,
    QPLAN_FILTER,
    QPLAN_PROJECT,
    QPLAN_AGGREGATE,
    QPLAN_JOIN,
    QPLAN_SORT,
    QPLAN_LIMIT,
    QPLAN_UNION_ALL,
    QPLAN_WINDOW,
    QPLAN_UNNEST
};

/* A `column op constant` conjunct pushed into a file scan's pruning. */
struct qpushed {
    int32_t column; /* in the scan's full schema */
    enum basalt_parquet_op op;
    struct basalt_query_value value;
};

struct qscan {
    /* Parquet */
    char **paths;
    size_t n_paths;
    struct basalt_parquet_reader **readers; /* opened when built */
    /* CSV, JSON, IPC: opened when built, read when run */
    char *path;
    struct basalt_csv_read_options csv;
    struct basalt_csv_reader *csv_reader;
    struct basalt_json_reader *json_reader;
    struct basalt_ipc_reader *ipc_reader;
    /* Iceberg */
    const struct basalt_iceberg_table *table;
    struct basalt_iceberg_scan_options iceberg;
    char *ref;
    /* The file's full schema and the columns the scan keeps (indices into
     * it, ascending; NULL: every column). Struct columns are there as
     * their leaves (struct_flatten.c), named by their dotted paths, `nested`
     * saying which columns are such leaves (NULL: none). */
    struct ArrowSchema full;
    bool *nested;
    /* JSON, IPC and Iceberg with struct columns: the reader's schema (JSON
     * and IPC batches are flattened by it as they are read,
     * run_file_scan.c). */
    struct ArrowSchema with_structs;
    int32_t *keep;
    int32_t n_keep;
    struct qpushed *pushed;
    int32_t n_pushed;
    bool pushed_all; /* the filter above is the conjunction of `pushed` */
    /* Iceberg: the columns (of this scan's output) that the filter right
     * above passes on, when it drops some (its filter_keep); NULL: none. */
    const int32_t *keep_above;
    int n_keep_above;
    /* In-memory batches (VALUES), and what they are for EXPLAIN (NULL:
     * nothing said). */
    struct basalt_arrow_batches values;
    char *label;
    /* SERIES (series.c) */
    struct basalt_qplan_series series;
    /* Parquet: per output column, read as a dictionary array (the
     * aggregate right above groups such keys by their indices; in the
     * context's arena); NULL: none. */
    bool *dictionary;
};

struct qagg_call {
    struct basalt_qplan_agg_call call; /* arg points into the node's builder */
    struct basalt_query_type result;
};

struct basalt_qplan {
    enum qplan_kind kind;
    struct ArrowSchema schema;        /* output, "+s" */
    struct basalt_qplan *child[2];    /* [0]: input (join: left), [1]: join right */
    struct basalt_qplan **children;   /* UNION ALL */
    int n_children;
    struct basalt_qexpr_builder *b;   /* over the input schema (join: left ++ right) */

    struct qscan scan;
    struct basalt_qexpr *pred;        /* FILTER */
    /* FILTER: the input columns it passes on, in order (the predicate's own
     * are dropped once tested, so rows are taken only from these); NULL:
     * every column, the output schema being the input's. */
    int32_t *filter_keep;
    int n_filter_keep;
    struct basalt_qexpr **exprs;      /* PROJECT; AGGREGATE keys */
    int n_exprs;
    struct qagg_call *calls;          /* AGGREGATE */
    int n_calls;
    struct basalt_qplan_agg_order *agg_order; /* AGGREGATE: every call's ORDER BY keys */
    int n_agg_order;
    enum basalt_qplan_join_type join_type;
    int *left_keys, *right_keys;
    int n_join_keys;
    bool build_left; /* SEMI/ANTI: the table is built on the left side */
    struct basalt_qexpr *residual;
    /* JOIN: the columns of its row (left then right columns; SEMI/ANTI:
     * left) it outputs, in order, when its parent reads fewer than all
     * (the optimiser's; in the context's arena): the pairs gather only
     * those, the keys and the residual's columns being read inside the
     * join. NULL: every column. */
    int *join_keep;
    int n_join_keep;
    struct basalt_qplan_sort_key *sort_keys; /* SORT; WINDOW: the order keys */
    int n_sort_keys;
    int *part_cols;                   /* WINDOW */
    /* UNNEST: its LIST columns of the input (not passed on: the output is
     * the input's other columns, then the elements) */
    int *unnest_cols;
    int n_unnest;
    int n_part;
    /* WINDOW, all of whose calls are ROW_NUMBER, RANK or DENSE_RANK: only
     * rows whose row number is at most row_limit are needed (a filter
     * above drops the others; plan/window_limit.c). */
    bool has_row_limit;
    int64_t row_limit;
    int64_t rows_pruned; /* the input rows it dropped (EXPLAIN ANALYZE) */
    int64_t rows_cut;    /* of those, dropped before being held (window_cut.c) */
    int64_t prunings;    /* times a worker pruned what it held */
    bool live_pruning;   /* by the first K rows per partition in a table (window_live.c) */
    int64_t topk_workers; /* SORT with a limit: workers with a top-k of their own */
    struct basalt_qplan_window_call *wcalls; /* WINDOW (names in the context's arena) */
    int n_wcalls;
    int64_t limit, offset;            /* SORT (limit < 0: all), LIMIT */

    bool executed;
    bool optimized;
    /* EXPLAIN ANALYZE */
    _Atomic int64_t rows_out;
    _Atomic int64_t rows_in;
    _Atomic int64_t morsels, morsels_pruned;
    _Atomic int64_t batches_unfiltered; /* FILTER: passed whole, their files matching it */
    _Atomic int64_t morsels_direct; /* Iceberg scans: files read without the filter's columns */
    /* SORT, AGGREGATE under a memory limit: sorted runs and hash partitions
     * written to spill files, the rows and bytes written */
    int64_t spill_runs, spill_partitions, spill_rows, spill_bytes;
    int64_t spill_merge_passes; /* sort: runs merged into longer runs first */
    int64_t spill_splits; /* AGGREGATE, HASH JOIN: spilled partitions split again */
    int64_t spill_blocks; /* CROSS JOIN: blocks of the build side joined in turn */
    int64_t window_stretches; /* WINDOW: stretches of partitions too large to hold */
    int64_t dict_batches; /* AGGREGATE: batches whose keys were dictionary arrays */
    int64_t dict_map_batches; /* of those, grouped through the map of their indices */
    double ms;
    /* scans: data files kept and ruled out by the planner, and the time it
     * took (Iceberg: reading and pruning manifests) */
    int64_t files_kept, files_pruned;
    double plan_ms;
};

struct basalt_qctx {
    struct basalt_qctx_options o;
    struct basalt_io_store *own_store; /* basalt_qctx_store's, when o.store is NULL */
    struct basalt_arena arena;
    /* everything to free with the context */
    struct basalt_qplan **nodes;
    int n_nodes, cap_nodes;
    struct basalt_qexpr_builder **builders;
    int n_builders, cap_builders;
};

/* node.c */
/* unnest.c: whether input column `column` is one of UNNEST node's lists. */
bool basalt_qplan_unnested(const struct basalt_qplan *node, int column);
basalt_status basalt_qplan_node_new(struct basalt_qctx *ctx, enum qplan_kind kind,
                                    struct basalt_qplan **out, struct basalt_error *err);
basalt_status basalt_qctx_builder_over(struct basalt_qctx *ctx, const struct ArrowSchema *schema,
                                       struct basalt_qexpr_builder **out,
                                       struct basalt_error *err);
/* operators.c: UNSUPPORTED when column `field` (a sort, join or window
 * key) has a type the expressions do not take (a list, a map), naming it;
 * else OK. `what` says which key. */
basalt_status basalt_qplan_key_column_ok(const struct ArrowSchema *field, const char *what,
                                         struct basalt_error *err);
/* struct_flatten.c: struct columns as their leaf fields, named by their
 * dotted paths ("s.b.c"). basalt_qflat_schema gives the schema of the
 * leaves of `in` and, per leaf, whether it is inside a struct;
 * basalt_qflat_batch turns a batch of `schema` (some of whose columns are
 * structs) into one of its n_leaves leaves in place (released on error). */
/* Whether a scan's schema takes the flattening pass: struct columns, or
 * time columns to convert to microseconds (time_conform.c). */
bool basalt_qflat_has_structs(const struct ArrowSchema *schema);
/* time_conform.c: whether a column of `format` (time32[s|ms], time64[ns])
 * becomes time64[us]; its field as time64[us] named `name`; its array
 * (moved in, released on failure) replaced by the converted one. */
bool basalt_qtime_needs_conform(const char *format);
basalt_status basalt_qtime_conform_schema(const struct ArrowSchema *f, const char *name,
                                          struct ArrowSchema *dst, struct basalt_error *err);
basalt_status basalt_qtime_conform_array(const char *format, struct ArrowArray *leaf,
                                         struct basalt_error *err);
int32_t basalt_qflat_leaves(const struct ArrowSchema *schema);
basalt_status basalt_qflat_schema(const struct ArrowSchema *in, struct ArrowSchema *out,
                                  bool **nested, struct basalt_error *err);
basalt_status basalt_qflat_batch(const struct ArrowSchema *schema, struct ArrowArray *batch,
                                 int32_t n_leaves, struct basalt_error *err);
/* A "+s" schema whose children are copies of the given fields, renamed when
 * names[i] is not NULL. */
basalt_status basalt_qplan_struct_schema(const struct ArrowSchema *const *fields,
                                         const char *const *names, int n, struct ArrowSchema *out,
                                         struct basalt_error *err);
/* The Arrow field of a query type (nullable) named `name`. */
basalt_status basalt_qplan_type_field(struct basalt_query_type type, const char *name,
                                      bool nullable, struct ArrowSchema *out,
                                      struct basalt_error *err);

/* aggregate.c: the aggregation operator's description of call c. */
struct basalt_qagg_call;
basalt_status basalt_qplan_agg_call_of(const struct qagg_call *c, struct basalt_qagg_call *out);

/* operators.c: a join's output schema from its children and type, only
 * the columns join_keep names when it is set. */
basalt_status basalt_qplan_join_schema(struct basalt_qplan *node, struct basalt_error *err);

/* remap.c: a copy of `e` in `dst`, column i of the old input becoming column
 * map[i] of dst's (map[i] < 0 is a column the copy must not reference). */
basalt_status basalt_qexpr_remap(struct basalt_qexpr_builder *dst, const struct basalt_qexpr *e,
                                 const int32_t *map, struct basalt_qexpr **out,
                                 struct basalt_error *err);
/* Marks the input columns `e` references in used[]. */
void basalt_qexpr_columns(const struct basalt_qexpr *e, bool *used);

/* pushdown.c: the `column op constant` conjuncts of pred (NULL list when
 * none; string constants copied into arena), and their forms for Parquet
 * (false: not expressible for that column) and Iceberg (*out NULL: not
 * expressible). */
basalt_status basalt_qpushed_collect(const struct basalt_qexpr *pred, struct basalt_arena *arena,
                                     struct qpushed **out, int32_t *n, bool *all,
                                     struct basalt_error *err);
bool basalt_qpushed_parquet(const struct qpushed *p, const struct ArrowSchema *field,
                            struct basalt_parquet_literal *lit);
struct basalt_iceberg_expr;
basalt_status basalt_qpushed_iceberg(const struct qpushed *p, const char *column,
                                     struct basalt_arena *arena, struct basalt_iceberg_expr **out,
                                     struct basalt_error *err);

/* series.c: how many rows a series node gives (month steps: an estimate). */
int64_t basalt_qseries_rows(const struct basalt_qplan *node);

/* optimize.c: column pruning and predicate pushdown, before a run; then
 * the window row limits. */
basalt_status basalt_qplan_optimize(struct basalt_qctx *ctx, struct basalt_qplan *root,
                                    struct basalt_error *err);
/* window_limit.c: marks the windows that a filter above needs only up to a
 * row number (has_row_limit). */
void basalt_qplan_window_limits(struct basalt_qplan *root);

/* run.c: runs a node into batches (in order). */
basalt_status basalt_qplan_run(struct basalt_qctx *ctx, struct basalt_qplan *node,
                               struct basalt_arrow_batches *out, struct basalt_error *err);

#endif
