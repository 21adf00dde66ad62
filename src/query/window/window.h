/* Window functions over rows already sorted by (partition keys, order keys):
 * the operator behind the plan's WINDOW node (plan/run_window.c sorts the
 * input with sort/ and hands the sorted batches here).
 *
 * Partition boundaries and peer groups come from comparing each row's key
 * values with the previous row's (every key type the sort orders; NULLs
 * equal to NULLs, NaN to NaN, -0.0 to 0.0). Then, partition by partition,
 * every call is computed in one pass over the rows with frames whose both
 * ends only move forward: COUNT/SUM/AVG keep two running prefix sums (at the
 * frame's start and end) and subtract, so any ROWS, RANGE or GROUPS frame is
 * O(1) per row and running frames need one sum; MIN/MAX keep a running best
 * when the frame starts at the partition's start and a monotonic deque
 * otherwise; frames covering the whole partition are computed once per
 * partition. A RANGE frame with offsets finds its ends by searching the
 * ORDER BY key from where the previous row's ends were (both move forward);
 * GROUPS frames step their ends a peer group at a time; EXCLUDE cuts a
 * frame into the rows before and after the excluded ones, each a frame of
 * its own with ends that move forward. Partitions are spread over the pool's workers when there are
 * many; each writes only its own rows, so the output is the same for any
 * worker count. LAG/LEAD/FIRST/LAST/NTH_VALUE, MIN and MAX pick a source row
 * per output row and gather the values with basalt_arrow_take_many, so they
 * work for every type take copies. */
#ifndef BASALT_QUERY_WINDOW_H
#define BASALT_QUERY_WINDOW_H

#include "basalt/query_plan.h"

/* What to compute. Column indices are into `schema`. */
struct basalt_qwin_spec {
    const struct ArrowSchema *schema;   /* the input ("+s"), borrowed */
    const int *part_cols;
    int n_part;
    const int *order_cols;              /* the order keys' columns (peers) */
    int n_order;
    const struct basalt_qplan_window_call *calls;
    int n_calls;
    const struct ArrowSchema *out_schema; /* the input's fields then one per call */
    /* the order keys' directions (RANGE offsets move the other way under
     * DESC); NULL: ascending */
    const struct basalt_qplan_sort_key *order_keys;
};

/* Checks a call against the input schema and the window's order keys and
 * makes its result field, named `name`, into *field (DuckDB's result types;
 * the argument's field for the functions that return a row's value).
 * Returns OK; INVALID_ARG (argument missing or out of range, NTILE buckets <
 * 1, a frame SQL rejects, a negative GROUPS offset, a RANGE offset that is
 * NULL or negative or without exactly one order key, a default of another
 * type); UNSUPPORTED (an argument type the function cannot use, a RANGE
 * offset the order key cannot be moved by); NOMEM. Thread-safe. */
basalt_status basalt_qwin_check_call(const struct ArrowSchema *schema,
                                     const struct basalt_qplan_sort_key *order, int n_order,
                                     const struct basalt_qplan_window_call *call, const char *name,
                                     struct ArrowSchema *field, struct basalt_error *err);

/* Checks that a partition or order key column can be compared (the types
 * the sort orders). Returns OK or UNSUPPORTED. */
basalt_status basalt_qwin_check_key(const struct ArrowSchema *field, struct basalt_error *err);

/* Counters for tests that prove the paths fire. */
struct basalt_qwin_stats {
    int64_t rows;
    int64_t partitions;
    int64_t whole_partition;  /* (call, partition) pairs computed once for the partition */
    int64_t running;          /* (call, partition) pairs over frames starting at the partition */
    int64_t sliding;          /* (call, partition) pairs over frames whose both ends move */
    int64_t deque_pushes;     /* values pushed on MIN/MAX deques */
    int64_t parallel_chunks;  /* chunks of partitions handed to the pool (0: one thread) */
    int64_t range_compares;   /* keys compared finding RANGE frames' ends (offsets) */
};

/* Computes the calls over `sorted` (rows in partition, then order key order;
 * the batches are moved out and the list left empty) and appends batches of
 * the input columns followed by the calls' columns to `out` (out->schema
 * set from spec->out_schema when unset). `pool` NULL or workers <= 1: the
 * calling thread. `stats` may be NULL. Returns OK; LIMIT (a SUM outside
 * DECIMAL(38)); NOMEM; the errors of basalt_arrow_take_many. On failure
 * `out` may hold some batches; the caller abandons the query. */
basalt_status basalt_qwin_compute(const struct basalt_qwin_spec *spec,
                                  struct basalt_arrow_batches *sorted, struct basalt_pool *pool,
                                  int workers, struct basalt_arrow_batches *out,
                                  struct basalt_qwin_stats *stats, struct basalt_error *err);

/* ---- a partition too large to hold, a stretch of rows at a time
 * (window_stretch.c; plan/run_window_spill.c cuts the stretches) */

/* What a partition's rows before the held ones leave to the calls. */
struct basalt_qwin_carry;

/* Whether every call can be computed a stretch of its partition at a time:
 * ROW_NUMBER; RANK and DENSE_RANK with ORDER BY; LAG and LEAD; aggregates
 * and FIRST/LAST/NTH_VALUE over frames bounded by row offsets or the
 * peers, or starting at the partition's start (not RANGE frames with
 * offsets or GROUPS frames with offsets, whose reach in rows depends on
 * the data, nor EXCLUDE over a frame from the partition's start or to its
 * end). With `sized` (the caller reads each partition to its end before
 * its stretches: basalt_qwin_carry_set_rows, basalt_qwin_carry_whole_add)
 * also NTILE, PERCENT_RANK and CUME_DIST, and frames to the partition's
 * end: COUNT, SUM, AVG and LAST_VALUE from any start, MIN, MAX and
 * NTH_VALUE over the whole partition; *whole then says whether a call
 * reads the partition's end, so that it must be read first even when its
 * row count is known. If so, *behind and *ahead are the rows before and
 * after an output row that its calls read, and *peers says whether a
 * stretch must end where the order keys change; if not, `why` names the
 * call that cannot. */
bool basalt_qwin_stretchable(const struct basalt_qwin_spec *spec, bool sized, int64_t *behind,
                             int64_t *ahead, bool *peers, bool *whole, char *why,
                             size_t why_size);

/* A carry for a fresh partition (no rows before). Returns OK or NOMEM. */
basalt_status basalt_qwin_carry_new(const struct basalt_qwin_spec *spec,
                                    struct basalt_qwin_carry **out, struct basalt_error *err);
/* Makes the carry a fresh partition's again (its row count unknown). */
void basalt_qwin_carry_reset(struct basalt_qwin_carry *c);
/* The row count of the partition the carry is for. */
void basalt_qwin_carry_set_rows(struct basalt_qwin_carry *c, int64_t rows);
void basalt_qwin_carry_free(struct basalt_qwin_carry *c);
/* Rows [from, from + n) of batch b, the next rows of the partition the
 * carry is for, in order: the carry takes in what frames to the
 * partition's end read (sums, the best, the last and the n-th row). Given
 * all the partition's rows before its first stretch. */
basalt_status basalt_qwin_carry_whole_add(const struct basalt_qwin_spec *spec,
                                          struct basalt_qwin_carry *c,
                                          const struct ArrowArray *b, int64_t from, int64_t n,
                                          struct basalt_error *err);

/* basalt_qwin_compute over `sorted`, rows of one partition that come right
 * after the rows `carry` sums up. Only rows whose `behind` rows before and
 * `ahead` rows after are held (or lie past the partition's ends), and
 * whose peer group is held whole, come out right: the caller keeps those.
 * Afterwards the carry also sums up the first `advance` held rows, where
 * the next stretch's held rows start. */
basalt_status basalt_qwin_compute_stretch(const struct basalt_qwin_spec *spec,
                                          struct basalt_arrow_batches *sorted,
                                          struct basalt_qwin_carry *carry, int64_t advance,
                                          struct basalt_pool *pool, int workers,
                                          struct basalt_arrow_batches *out,
                                          struct basalt_error *err);

#endif
