/* Hash aggregation: the GROUP BY operator the pipeline executor drives.
 *
 * One shared, immutable `basalt_qagg` describes the keys and the aggregate
 * calls; every worker consumes its morsels into its own `basalt_qagg_local`
 * (a table of groups with columnar aggregate states); finish merges the
 * locals partition by partition (the top bits of each group's hash) on the
 * pool and writes the result batches.
 *
 * Determinism: the output is a pure function of the data. Groups come out
 * partition by partition, and within a partition in the order of their
 * 64-bit key hash (ties, which need a 64-bit collision, in key-row order), so
 * neither the number of workers nor the split of the input into consume calls
 * changes it. Aggregates whose result could depend on the order rows arrive
 * in are made order-free: SUM/AVG/VAR/STDDEV of floating point accumulate in
 * double-double (a 106-bit significand), so the rounded result is the same in
 * any order unless the values cancel to within 2^-100 of their magnitude;
 * CORR, COVAR_* and REGR_* keep co-moments as double-double sums of values
 * shifted by a group's first pair (merged by re-shifting, Chan's formula), so
 * a big mean costs no precision and, the sums being exact for values with a
 * fixed grain, the results are the same in any order (agg_comoment.c);
 * ANY_VALUE returns the smallest non-NULL value; STRING_AGG concatenates the
 * values in byte order, or with an order key in its order, equal keys in
 * byte order; the ARG_MIN family takes the smallest x among rows tied on
 * the order value; ARRAY_AGG lists its values in their order key's order,
 * ties (and, without ORDER BY, all of them) in the values' order; MODE the
 * smallest of the most frequent values; PRODUCT
 * multiplies in double-double; the quantiles and DISTINCT aggregates sort
 * the collected values. docs/QUERY.md ("Aggregation") lists the differences
 * from DuckDB this makes. */
#ifndef BASALT_QUERY_AGG_H
#define BASALT_QUERY_AGG_H

#include "basalt/query.h"
#include "spill/spill.h"

enum basalt_qagg_kind {
    BASALT_QAGG_COUNT_STAR, BASALT_QAGG_COUNT, BASALT_QAGG_SUM, BASALT_QAGG_AVG,
    BASALT_QAGG_MIN, BASALT_QAGG_MAX, BASALT_QAGG_ANY_VALUE,
    BASALT_QAGG_STDDEV_SAMP, BASALT_QAGG_STDDEV_POP, BASALT_QAGG_VAR_SAMP, BASALT_QAGG_VAR_POP,
    BASALT_QAGG_MEDIAN, BASALT_QAGG_QUANTILE_CONT, BASALT_QAGG_QUANTILE_DISC,
    BASALT_QAGG_STRING_AGG, BASALT_QAGG_BOOL_AND, BASALT_QAGG_BOOL_OR,
    /* Two arguments, f(y, x) in DuckDB's order: input is y's type, input2 x's. */
    BASALT_QAGG_CORR, BASALT_QAGG_COVAR_POP, BASALT_QAGG_COVAR_SAMP, BASALT_QAGG_REGR_SLOPE,
    BASALT_QAGG_REGR_INTERCEPT, BASALT_QAGG_REGR_R2, BASALT_QAGG_REGR_COUNT, BASALT_QAGG_REGR_AVGX,
    BASALT_QAGG_REGR_AVGY, BASALT_QAGG_REGR_SXX, BASALT_QAGG_REGR_SYY, BASALT_QAGG_REGR_SXY,
    /* arg_min(x, y): x of the row with the smallest y (input is x's type,
     * input2 y's); rows with a NULL y are skipped, and with a NULL x too
     * except in the _NULL kinds (DuckDB's arg_min_null). Ties on y go to the
     * smallest x (a NULL x after every value): the result does not depend
     * on the order rows arrive in. */
    BASALT_QAGG_ARG_MIN, BASALT_QAGG_ARG_MAX, BASALT_QAGG_ARG_MIN_NULL, BASALT_QAGG_ARG_MAX_NULL,
    BASALT_QAGG_PRODUCT, BASALT_QAGG_BIT_AND, BASALT_QAGG_BIT_OR, BASALT_QAGG_BIT_XOR,
    BASALT_QAGG_MODE,
    /* The values as a LIST (input is the element type). Always ordered: its
     * argument array is the rows' pieces (basalt_qagg_list_piece), not the
     * values, and its order key decides the elements' order. */
    BASALT_QAGG_ARRAY_AGG
};
#define BASALT_QAGG_KIND_LAST BASALT_QAGG_ARRAY_AGG

/* The kinds that take two arguments (CORR .. REGR_SXY). */
static inline bool basalt_qagg_kind_binary(enum basalt_qagg_kind k)
{
    return k >= BASALT_QAGG_CORR && k <= BASALT_QAGG_REGR_SXY;
}

/* The ARG_MIN family. */
static inline bool basalt_qagg_kind_arg(enum basalt_qagg_kind k)
{
    return k >= BASALT_QAGG_ARG_MIN && k <= BASALT_QAGG_ARG_MAX_NULL;
}

struct basalt_qagg_call {
    enum basalt_qagg_kind kind;
    bool distinct;                  /* count(DISTINCT x), sum(DISTINCT x)... */
    struct basalt_query_type input; /* argument type (y of f(y, x)); ignored for COUNT_STAR */
    double quantile;                /* QUANTILE_*: 0..1 */
    const char *separator;          /* STRING_AGG (copied); NULL means "," */
    struct basalt_query_type input2; /* the two-argument kinds: x's type; else ignored */
    /* The second argument is an order key (basalt_qagg_order_key: BLOB,
     * NULL for a row to skip): FIRST/LAST/ANY_VALUE(x ORDER BY ...) as the
     * ARG_MIN family over it, and STRING_AGG(x ORDER BY ...), which joins
     * its pieces in the key's order (equal keys: the pieces' byte order). */
    bool ordered;
};

/* Whether the call reads a second argument (args2 of basalt_qagg_consume). */
static inline bool basalt_qagg_call_two_args(const struct basalt_qagg_call *c)
{
    return basalt_qagg_kind_binary(c->kind) || basalt_qagg_kind_arg(c->kind) || c->ordered;
}

/* The result type of a call, with DuckDB's rules: COUNT(*) and COUNT BIGINT;
 * SUM of BOOLEAN and integers DECIMAL(38,0) (DuckDB's HUGEINT), of DECIMAL(p,s)
 * DECIMAL(38,s), of FLOAT/DOUBLE DOUBLE; AVG of numbers DOUBLE;
 * MIN/MAX/ANY_VALUE the input; STDDEV/VAR of numbers DOUBLE; MEDIAN and
 * QUANTILE_CONT of integers and DOUBLE DOUBLE, of FLOAT FLOAT, of DECIMAL the
 * input, of DATE and TIMESTAMP TIMESTAMP (interpolated); QUANTILE_DISC, and
 * MEDIAN of BOOLEAN, INTERVAL, VARCHAR and BLOB, the input; STRING_AGG of
 * VARCHAR VARCHAR; BOOL_AND/BOOL_OR of BOOLEAN BOOLEAN; the two-argument
 * kinds of two numbers DOUBLE, REGR_COUNT UINTEGER (UINT32); the ARG_MIN
 * family the input (x) for any orderable input2 (y); PRODUCT of numbers
 * DOUBLE; BIT_AND/OR/XOR of integers the input; MODE the input. Returns OK;
 * UNSUPPORTED ("no aggregate sum(VARCHAR)", DISTINCT with two arguments);
 * INVALID_ARG (NULL arguments, a quantile outside 0..1). Thread-safe. */
basalt_status basalt_qagg_result_type(const struct basalt_qagg_call *call,
                                      struct basalt_query_type *out, struct basalt_error *err);

/* MEDIAN, QUANTILE_CONT or QUANTILE_DISC `call` over n > 0 non-NULL values:
 * the 0-based ranks in their sorted order of the values it reads (lo <= hi)
 * and the weight of the upper one (the result is v[lo] + (v[hi] - v[lo]) *
 * frac), as basalt_qagg_finish computes them per group; *discrete when the
 * result is v[lo] itself (QUANTILE_DISC; MEDIAN of BOOLEAN, INTERVAL,
 * VARCHAR, BLOB). For quantiles computed from a sort (plan/
 * run_aggregate_quantile.c). */
void basalt_qagg_call_quantile_ranks(const struct basalt_qagg_call *call, int64_t n, int64_t *lo,
                                     int64_t *hi, double *frac, bool *discrete);

struct basalt_qagg_options {
    int64_t memory_limit; /* bytes, 0 none (spilling: basalt_qagg_finish_spilled) */
};
void basalt_qagg_options_init(struct basalt_qagg_options *o);

struct basalt_qagg;       /* shared, immutable after new */
struct basalt_qagg_local; /* one per worker */

/* Makes an aggregation over n_keys key columns of key_types (n_keys 0: a
 * global aggregate, exactly one output row) and n_calls aggregate calls (both
 * arrays copied). Returns OK; INVALID_ARG (negative counts, NULL arrays with
 * counts); UNSUPPORTED (a key type the table cannot hold, a call as
 * basalt_qagg_result_type says); NOMEM. */
basalt_status basalt_qagg_new(const struct basalt_query_type *key_types, int n_keys,
                              const struct basalt_qagg_call *calls, int n_calls,
                              const struct basalt_qagg_options *opts, struct basalt_qagg **out,
                              struct basalt_error *err);
/* Frees the aggregation; every local must be freed first. NULL is a no-op. */
void basalt_qagg_free(struct basalt_qagg *agg);

/* A worker's table. Used by one thread at a time; several locals of one agg
 * may consume on different threads at once. Returns OK, NOMEM. */
basalt_status basalt_qagg_local_new(struct basalt_qagg *agg, struct basalt_qagg_local **out,
                                    struct basalt_error *err);
void basalt_qagg_local_free(struct basalt_qagg_local *local);

/* Adds n_rows rows. keys[i] is an Arrow array (not a struct) of key_types[i]'s
 * format (basalt_query_type_format: "l", "u", "d:38,0", "tsu:UTC"...) with at
 * least n_rows rows, borrowed for the call (strings that start groups are
 * copied); a string key may also be a dictionary array (int32 indices over
 * values of its format), which groups as its values do; args[j] is call j's argument array (NULL for COUNT_STAR), and for
 * the two-argument kinds args2[j] its second argument (x of corr(y, x));
 * args2 may be NULL when no call takes two, and its other entries are
 * ignored. Arrays may have offsets and validity. Returns OK; INVALID_ARG
 * (missing arrays, arrays shorter than n_rows, missing buffers); LIMIT (more
 * than 2^32-2 groups, strings over 4 GiB); NOMEM. After an error the local
 * holds part of the batch: the caller abandons the query. */
basalt_status basalt_qagg_consume(struct basalt_qagg_local *local,
                                  const struct ArrowArray *const *keys,
                                  const struct ArrowArray *const *args,
                                  const struct ArrowArray *const *args2, int64_t n_rows,
                                  struct basalt_error *err);

/* Key k's dictionary array x made plain: its values, of the key's type,
 * in `out` (caller storage, owned on OK), as spill files and the encoder of
 * keys that are not all strings take them. OK; INVALID_ARG; as
 * basalt_arrow_dictionary_decode. */
basalt_status basalt_qagg_key_decode(const struct basalt_qagg *agg, int k,
                                    const struct ArrowArray *x, struct ArrowArray *out,
                                    struct basalt_error *err);

/* Whether consume would group these n_rows rows through a map of their
 * keys' dictionary indices (every key a dictionary array, few combinations):
 * such a batch adds at most n_rows / 4 groups, and is best consumed whole
 * (the map is made per consume). */
bool basalt_qagg_dictionary_batch(const struct basalt_qagg *agg,
                                  const struct ArrowArray *const *keys, int64_t n_rows);

/* Merges the locals (each consumed by one worker) partition by partition on
 * `pool` (NULL: the calling thread), finalises, and appends the result batches
 * to `out` (struct arrays "+s" with the keys "k0".. then one column per call
 * "a0"..; out->schema set when it is released, else it must be the same;
 * batches of at most 65536 rows). With no keys exactly one row, even when
 * nothing was consumed (count 0, sum NULL, as SQL). The locals are consumed:
 * left empty, to be freed (or reused). Group order: see the top of this
 * header. Returns OK; LIMIT (a SUM that overflows DECIMAL(38), a result string
 * over 2 GiB); NOMEM. On failure `out` holds what it held before. */
basalt_status basalt_qagg_finish(struct basalt_qagg *agg, struct basalt_qagg_local **locals,
                                 int n_locals, struct basalt_pool *pool,
                                 struct basalt_arrow_batches *out, struct basalt_error *err);

/* The order key of `ORDER BY` inside an aggregate, as one BLOB per row
 * whose bytes, compared as unsigned bytes (a shorter key that is a prefix
 * of a longer one first), order the rows as the n_cols columns `cols` (of
 * `types`) do with their directions and NULL placements (DuckDB's
 * default: ASC, NULLS LAST, in either direction). Each column is a byte
 * for NULL (0 first, 2 last; 1 a value) then the value: integers, DATE and
 * TIMESTAMP big-endian with the sign bit flipped; floats as their
 * order-preserving bits (-0.0 before 0.0, every NaN one value above
 * +inf, as basalt_qagg's comparator); DECIMAL the same over 128 bits;
 * INTERVAL normalised (months, days, nanoseconds); strings and blobs
 * with each 0x00 written 0x00 0xff, ended by 0x00 0x00, so that no key is
 * a prefix of another's column; DESC inverts a value's bytes. `when`
 * (NULL: none) is a BOOLEAN array: rows where it is not TRUE get a NULL
 * key (FILTER). `out` (caller storage, owned on OK) is a BLOB array ("z")
 * of n_rows rows. Returns OK; UNSUPPORTED (a column type without an
 * order: nested types); INVALID_ARG; NOMEM. */
basalt_status basalt_qagg_order_key(const struct ArrowArray *const *cols,
                                    const struct basalt_query_type *types, const bool *desc,
                                    const bool *nulls_first, int n_cols,
                                    const struct ArrowArray *when, int64_t n_rows,
                                    struct ArrowArray *out, struct basalt_error *err);

/* ARRAY_AGG's argument: row i of x (an Arrow array of `elem`, a scalar
 * type) as a BLOB of a validity byte (0 for NULL) then, for a value, its
 * bytes as a list element holds them (the type's vector width, BOOLEAN a
 * byte; a string's bytes). `out` (caller storage, owned on OK) has n_rows
 * rows, none NULL. Returns OK; INVALID_ARG; LIMIT (over 2 GiB in a batch);
 * NOMEM. */
basalt_status basalt_qagg_list_piece(const struct ArrowArray *x, struct basalt_query_type elem,
                                     int64_t n_rows, struct ArrowArray *out,
                                     struct basalt_error *err);

/* ------------------------------------------------------------ spilling
 *
 * GROUP BY under a memory limit (plan/run_aggregate.c drives it): once the
 * locals pass their share, they stop taking rows (frozen) and the caller
 * writes the remaining input rows to BASALT_QAGG_SPILL_PARTS files by the
 * partition of their key (the top bits of the key row's hash, the same
 * partitions finish merges in). finish_spilled then does one partition at a
 * time: the frozen locals' groups of that partition, plus the spilled rows
 * of it consumed into a fresh local, merged, ordered and written. Every
 * aggregate is order-free (see the top), so the output is the one
 * basalt_qagg_finish would give over all the rows, in the same order (the
 * batches are cut per partition). */
#define BASALT_QAGG_SPILL_PARTS BASALT_QSPILL_PARTS

/* part[i] = the 6 bits of row i's key hash after its first `bits` (0: the
 * partition; 6, 12...: the sub-partitions of a partition split again), for
 * n_rows rows, keys as basalt_qagg_consume takes them. OK; INVALID_ARG (no
 * keys, bits outside 0..58); NOMEM. */
basalt_status basalt_qagg_partition(const struct basalt_qagg *agg,
                                    const struct ArrowArray *const *keys, int64_t n_rows,
                                    int bits, uint8_t *part, struct basalt_error *err);

/* Where the spilled rows are (plan/run_aggregate.c: spill files), as opaque
 * handles. */
struct basalt_qagg_spill_ops {
    void *ctx;
    /* The rows of partition p (handed over), or NULL: none. */
    void *(*part)(void *ctx, int p);
    /* Bytes the rows of h take on disk. */
    int64_t (*bytes)(void *ctx, void *h);
    /* Splits h (freed in every case) by basalt_qagg_partition(bits) into
     * out[64] (NULL: no rows). */
    basalt_status (*split)(void *ctx, void *h, int bits, void **out, struct basalt_error *err);
    /* Consumes h's rows into `into` (a fresh local) and frees h. */
    basalt_status (*load)(void *ctx, void *h, struct basalt_qagg_local *into,
                          struct basalt_error *err);
    void (*drop)(void *ctx, void *h);
    /* Where the result's batches go as they are finished (moved), or NULL:
     * appended to out, which holds the result whole. */
    basalt_status (*emit)(void *ctx, struct ArrowArray *batch, struct basalt_error *err);
};

/* finish for a spilled aggregation (keys required): as basalt_qagg_finish
 * over the locals' groups and the spilled rows, one partition in memory at a
 * time. A partition whose rows take more than `budget` bytes on disk is split
 * by the next 6 bits of the hash, again while it helps (the groups of a
 * partition come out in hash order, so its sub-partitions in order give the
 * same rows). memory_limit > 0: LIMIT, naming the partition, when one does
 * not fit all the same. */
basalt_status basalt_qagg_finish_spilled(struct basalt_qagg *agg,
                                         struct basalt_qagg_local **locals, int n_locals,
                                         struct basalt_pool *pool,
                                         const struct basalt_qagg_spill_ops *ops, int64_t budget,
                                         int64_t memory_limit, struct basalt_arrow_batches *out,
                                         struct basalt_error *err);

/* What the aggregation has done so far, summed over its locals (atomically
 * updated; read after the workers are done). */
struct basalt_qagg_stats {
    int64_t dense_batches;  /* consume chunks grouped by direct indexing */
    int64_t hashed_batches; /* consume chunks grouped through the hash table */
    int64_t word_batches;   /* of those, chunks probed in the word index (one
                               key word inline in the slot) */
    int64_t global_batches; /* consume chunks of a global (keyless) aggregate */
    int64_t dict_batches;   /* consume calls whose keys were dictionary arrays */
    int64_t dict_map_batches; /* of those, calls grouped through a map of their
                                 index combinations (agg_dict.c) */
    int64_t groups;         /* groups in the last finish's output */
    int64_t partitions;     /* partitions the last finish merged in */
    bool direct_finish;     /* the last finish wrote one local's groups
                               without merging them */
    int64_t splits;         /* spilled partitions split again (finish_spilled) */
};
void basalt_qagg_stats(const struct basalt_qagg *agg, struct basalt_qagg_stats *stats);

#endif
