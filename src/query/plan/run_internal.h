/* Running plans: a pipeline is a source of numbered morsels, a chain of
 * streaming operators and a sink. Workers take morsels in order and push
 * each morsel's batches through the chain into their own part of the sink;
 * operators that need all their input (aggregation, sort, the build side of
 * a join, limit, union) end a pipeline and their result becomes the source
 * of the next. Morsel numbers travel with the batches, so sinks that keep
 * order (collect, sort, join build) give the same result for any worker
 * count. */
#ifndef BASALT_QUERY_RUN_INTERNAL_H
#define BASALT_QUERY_RUN_INTERNAL_H

#include <pthread.h>

#include "plan/plan_internal.h"

enum qsource_kind { QSRC_BATCHES, QSRC_PARQUET, QSRC_ICEBERG, QSRC_FN };

typedef basalt_status (*qemit_fn)(void *ctx, int worker, int64_t morsel, struct ArrowArray *batch,
                                  struct basalt_error *err);

struct qsource {
    enum qsource_kind kind;
    struct basalt_qplan *node;           /* the scan (statistics), or NULL */
    struct basalt_arrow_batches batches; /* QSRC_BATCHES: morsel first + i is batch i (moved out) */
    int64_t first;
    int64_t n_morsels;
    int32_t *m_file, *m_rg;              /* QSRC_PARQUET: morsel -> file, row group */
    struct basalt_iceberg_scan *iscan;   /* QSRC_ICEBERG: morsel i is task i */
    /* QSRC_ICEBERG, when the filter above was pushed whole: morsel i's
     * file is known to match it everywhere (its residual is TRUE), so the
     * filter may pass its batches through. NULL: filter every morsel. */
    bool *matches_all;
    /* QSRC_ICEBERG, with matches_all, when the filter above drops columns:
     * such morsels are read with only the columns it passes on (iscan_kept,
     * planned alike: task i is the same file), or not read at all when it
     * passes none and the task is a whole file without deletes (its record
     * count is the answer). Their batches skip the filter. */
    bool direct;
    struct basalt_iceberg_scan *iscan_kept;
    const struct basalt_iceberg_plan *plan;
    /* QSRC_ICEBERG over struct columns: the schemas of iscan's and
     * iscan_kept's batches, which are flattened to their leaves
     * (struct_flatten.c); released when there is nothing to flatten. */
    struct ArrowSchema structs, structs_kept;
    /* QSRC_FN: morsel m is what fn emits (a spilled join's partition m);
     * fn_free(fn_ctx) at reset */
    basalt_status (*fn)(void *fn_ctx, int64_t m, int worker, qemit_fn emit, void *emit_ctx,
                        struct basalt_error *err);
    void *fn_ctx;
    void (*fn_free)(void *fn_ctx);
};

/* series.c: a series node's morsels, made as they are taken. */
basalt_status basalt_qseries_open(struct basalt_qplan *node, struct qsource *src,
                                  struct basalt_error *err);

enum qpipe_op_kind { QPIPE_FILTER, QPIPE_PROJECT, QPIPE_PROBE };

struct qpipe_op {
    enum qpipe_op_kind kind;
    struct basalt_qplan *node;
    const struct ArrowSchema *in_schema;   /* borrowed */
    struct basalt_query_program *prog;     /* FILTER predicate; PROJECT computed outputs */
    int *pass;                             /* PROJECT: input column passed through, or -1 */
    int *slot;                             /* PROJECT: program output of a computed column */
    /* PROBE: the join (owned by the pipeline: freed through free_join) and
     * its probe functions (run_join.c) */
    void *join;
    basalt_status (*probe_local_new)(void *join, void **out, struct basalt_error *err);
    void (*probe_local_free)(void *local);
    basalt_status (*probe)(void *local, const struct ArrowArray *batch,
                           struct basalt_arrow_batches *out, struct basalt_error *err);
    void (*free_join)(void *join);
    double fanout; /* PROBE: output rows one probe row may give (a cross join's build rows) */
    void **locals;                         /* per worker: query state / probe local */
    int n_locals;
    int64_t **sel;                         /* FILTER: per worker selection vectors */
    int64_t *sel_cap;
};

/* Where a pipeline's batches end. consume takes the batch (moved in). */
struct qsink {
    basalt_status (*consume)(struct qsink *sink, int worker, int64_t morsel, int64_t seq,
                             struct ArrowArray *batch, struct basalt_error *err);
    void *impl;
    /* The sink spills under the memory limit and checks the limit itself:
     * the pipeline does not fail on it. */
    bool spills;
    /* The operator the pipeline feeds, named in the limit's error (NULL:
     * the query's result or a LIMIT / UNION ALL). */
    const char *what;
    /* COLLECT: the batches of each morsel, in order, of the morsels from
     * `first` on */
    struct basalt_arrow_batches *per_morsel;
    int64_t first, n_morsels;
    int64_t need;     /* rows wanted (offset + limit) or -1: stop reading once the
                       * finished prefix of morsels holds them */
    int64_t *morsel_rows;
    bool *morsel_done;
    int64_t frontier, frontier_rows;
    pthread_mutex_t lock;
};

struct qpipeline {
    struct qsource src;
    struct qpipe_op *ops;
    int n_ops, cap_ops;
    const struct ArrowSchema *schema; /* of the batches leaving the last op (borrowed) */
    bool prepared; /* the ops are compiled for the workers */
    /* Set by the caller before basalt_qrun_open: a breaker at the bottom
     * that a cursor can stream (basalt_qcursor_streams) is not run; it is
     * left in `deferred` and the source is empty QSRC_BATCHES, for the
     * caller to fill a window of batches at a time. */
    bool defer_breakers;
    struct basalt_qplan *deferred;
};
/* Callers whose sinks take morsels in any number and order (their order is
 * kept by the morsel numbers: sort, aggregation) set defer_breakers, and
 * basalt_qpipeline_run then feeds a deferred breaker's cursor through the
 * pipeline a window of batches at a time, numbering the morsels on. */

int basalt_qrun_workers(const struct basalt_qctx *ctx);

/* run_source.c */
basalt_status basalt_qsource_open(struct basalt_qctx *ctx, struct basalt_qplan *scan,
                                  struct qsource *src, struct basalt_error *err);
void basalt_qsource_reset(struct qsource *src);
/* Produces morsel m's batches, calling emit for each (in order). */
/* past_filter (NULL: none): where batches that skip the filter above go
 * (qsource.direct). */
basalt_status basalt_qsource_morsel(struct qsource *src, int64_t m, int worker, qemit_fn emit,
                                    qemit_fn past_filter, void *emit_ctx,
                                    struct basalt_error *err);

/* run_pipeline.c */
void basalt_qpipeline_init(struct qpipeline *pl);
void basalt_qpipeline_reset(struct qpipeline *pl);
basalt_status basalt_qpipeline_add(struct qpipeline *pl, struct qpipe_op **out,
                                   struct basalt_error *err);
/* A probe makes all of a batch's output at once. Where one probe row may
 * meet many build rows (`fanout` of them on average; a cross join gives
 * every build row to each), the batch is probed in slices of about 65536
 * output rows each, so that memory stays bounded. Calls fn with `batch`
 * itself when it fits, else with a copy of each slice of its rows. */
basalt_status basalt_qrun_probe_slices(const struct ArrowSchema *schema,
                                       const struct ArrowArray *batch, double fanout,
                                       basalt_status (*fn)(void *ctx,
                                                           const struct ArrowArray *part,
                                                           struct basalt_error *err),
                                       void *ctx, struct basalt_error *err);
/* Compiles the ops for `workers` workers and runs every morsel into sink. */
basalt_status basalt_qpipeline_run(struct basalt_qctx *ctx, struct qpipeline *pl,
                                   struct qsink *sink, struct basalt_error *err);
/* Runs morsels [first, end) only (the ops compiled on the first call), so
 * a pipeline may run a window at a time. */
basalt_status basalt_qpipeline_run_range(struct basalt_qctx *ctx, struct qpipeline *pl,
                                         struct qsink *sink, int64_t first, int64_t end,
                                         struct basalt_error *err);
/* A collecting sink for pl's morsels (need < 0: every row). */
basalt_status basalt_qsink_collect_init(struct qsink *sink, int64_t n_morsels, int64_t need,
                                        struct basalt_error *err);
/* Moves the collected batches, in morsel order, to out (schema given). */
basalt_status basalt_qsink_collect_finish(struct qsink *sink, const struct ArrowSchema *schema,
                                          struct basalt_arrow_batches *out,
                                          struct basalt_error *err);
void basalt_qsink_collect_reset(struct qsink *sink);

/* run.c */
/* The pipeline producing node's rows (breakers below it already run). */
basalt_status basalt_qrun_open(struct basalt_qctx *ctx, struct basalt_qplan *node,
                               struct qpipeline *pl, struct basalt_error *err);

/* run_cursor.c: whether a cursor streams node's rows instead of holding
 * them (a spilling sort, GROUP BY or window, LIMIT, UNION ALL, a CSV,
 * JSON or IPC file). */
bool basalt_qcursor_streams(const struct basalt_qctx *ctx, const struct basalt_qplan *node);
/* A cursor over node, a part of a plan being run (not optimised again). */
basalt_status basalt_qcursor_new_at(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                    struct basalt_qcursor **out, struct basalt_error *err);
/* Replaces src's batches (QSRC_BATCHES) with up to `max` next batches of
 * feed; none left: src->n_morsels is 0. */
basalt_status basalt_qcursor_fill(struct basalt_qcursor *feed, struct qsource *src, int64_t max,
                                  struct basalt_error *err);

/* run_aggregate.c, run_sort.c, run_join.c: the breakers. */
basalt_status basalt_qrun_aggregate(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                    struct basalt_arrow_batches *out, struct basalt_error *err);
/* The same for a cursor: an aggregation that spilled writes its result to a
 * spill file, handed over in *result (read back with basalt_qspill_file_next;
 * `out` then holds only the schema); otherwise *result is NULL and `out`
 * holds the result. */
struct basalt_qspill_file;
basalt_status basalt_qrun_aggregate_to(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                       struct basalt_arrow_batches *out,
                                       struct basalt_qspill_file **result,
                                       struct basalt_error *err);
/* run_aggregate_quantile.c: MEDIAN / QUANTILE_CONT / QUANTILE_DISC and STRING_AGG of an
 * aggregation without keys under a memory limit, from external sorts of
 * their values. new picks them among `calls` (which the aggregation is then
 * made with: each picked call becomes COUNT of its argument); *out NULL when
 * there are none or no limit. consume takes a batch's arguments (one per
 * call, borrowed) and checks the limit, as a sink that spills does; finish
 * puts each picked call's result into `out`, the aggregation's one row. */
struct basalt_qquant;
struct basalt_qagg_call;
basalt_status basalt_qquant_new(struct basalt_qagg_call *calls, int n_calls, int workers,
                                const char *spill_dir, int64_t limit, struct basalt_qquant **out,
                                struct basalt_error *err);
basalt_status basalt_qquant_consume(struct basalt_qquant *q, int worker,
                                    const struct ArrowArray *const *args, int64_t n,
                                    struct basalt_error *err);
basalt_status basalt_qquant_finish(struct basalt_qquant *q, struct basalt_pool *pool,
                                   struct basalt_qplan *node, struct basalt_arrow_batches *out,
                                   struct basalt_error *err);
void basalt_qquant_free(struct basalt_qquant *q);
basalt_status basalt_qrun_sort(struct basalt_qctx *ctx, struct basalt_qplan *node,
                               struct basalt_arrow_batches *out, struct basalt_error *err);
/* A sort under the memory limit with no LIMIT: its input run into sorted
 * runs, started (basalt_qsort_ext_next hands out the rows; the caller frees
 * *out, also on failure). */
struct basalt_qsort_ext;
basalt_status basalt_qrun_sort_spilling(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                        struct basalt_qsort_ext **out, struct basalt_error *err);
/* The same by `keys` (the sort's columns are node->child[0]'s; the spill
 * counters go on node). */
struct basalt_qsort_key;
basalt_status basalt_qrun_sort_input(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     const struct basalt_qsort_key *keys, int n_keys,
                                     struct basalt_qsort_ext **out, struct basalt_error *err);
/* run_window.c */
basalt_status basalt_qrun_window(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                 struct basalt_arrow_batches *out, struct basalt_error *err);
/* run_window_spill.c: a window with PARTITION BY under the memory limit,
 * computed a chunk of whole partitions at a time over its externally
 * sorted input (open runs the input into sorted runs; next gives the rows
 * in the in-memory window's order, out->release NULL at the end). */
struct basalt_qwin_stream;
bool basalt_qrun_window_spills(const struct basalt_qctx *ctx, const struct basalt_qplan *node);
basalt_status basalt_qwin_stream_open(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                      struct basalt_qwin_stream **out, struct basalt_error *err);
basalt_status basalt_qwin_stream_next(struct basalt_qwin_stream *w, struct ArrowArray *out,
                                      struct basalt_error *err);
void basalt_qwin_stream_free(struct basalt_qwin_stream *w);
/* run_window_limit.c: a window with a row limit (its input pruned as it
 * comes), computing `spec` over the rows that can pass it. */
struct basalt_qwin_spec;
basalt_status basalt_qrun_window_limited(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                         const struct basalt_qwin_spec *spec,
                                         struct basalt_arrow_batches *out,
                                         struct basalt_error *err);
/* run_sort.c: the rows of node's pipeline, in morsel order, for the
 * operator `what` (named when the memory limit is passed; NULL: none); need
 * >= 0 stops reading once that many rows are in. */
basalt_status basalt_qrun_collect_in_order(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                           const char *what, int64_t need,
                                           struct basalt_arrow_batches *out,
                                           struct basalt_error *err);
/* Runs the build side and adds the probe to pl (whose source is the left
 * side's pipeline, already open). */
/* unnest.c: an UNNEST node as an operator of the pipeline pl (opened on
 * its input). */
basalt_status basalt_qrun_unnest_op(struct basalt_qplan *node, struct qpipeline *pl,
                                    struct basalt_error *err);
basalt_status basalt_qrun_join_probe(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct qpipeline *pl, struct basalt_error *err);
/* RIGHT and FULL joins: the whole join, unmatched build rows last; SEMI and
 * ANTI joins built on their left side: its rows, matched or not. */
basalt_status basalt_qrun_join_outer(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct basalt_arrow_batches *out, struct basalt_error *err);

/* dict_keys.c: before the aggregation `node` opens its input, asks a
 * Parquet scan below it (through filters) for the key columns as dictionary
 * arrays, and makes the schemas on the way say so, when nothing but the
 * aggregation reads them. col[i] (n_inputs: keys, then arguments) is the
 * input column an aggregation input reads, or -1 for one of the computed
 * expressions. OK or NOMEM; doing nothing is OK. */
basalt_status basalt_qrun_dictionary_keys(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                          const int *col, int n_inputs,
                                          struct basalt_qexpr *const *computed, int n_computed,
                                          struct basalt_error *err);

/* run.c: rows [from, from + n) of b (a struct of schema; borrowed) as a
 * batch of their own (copied). */
basalt_status basalt_qrun_take_rows(const struct ArrowSchema *schema, const struct ArrowArray *b,
                                   int64_t from, int64_t n, struct ArrowArray *out,
                                   struct basalt_error *err);

/* run_file_scan.c: a CSV, JSON or IPC scan's next batch (none: out->release
 * NULL), or all its batches appended to out. */
basalt_status basalt_qrun_file_scan_next(struct basalt_qplan *node, struct ArrowArray *out,
                                         struct basalt_error *err);
basalt_status basalt_qrun_file_scan_all(struct basalt_qplan *node, struct basalt_arrow_batches *out,
                                        struct basalt_error *err);

/* run.c: a monotonic clock in milliseconds, for the statistics. */
double basalt_qrun_now_ms(void);

#endif
