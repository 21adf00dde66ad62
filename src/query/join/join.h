/* Hash join: the build side is collected by many workers, turned into one
 * table on a pool, then probed concurrently. Probe output keeps probe row
 * order and, per probe row, build input order, so results do not depend on
 * the worker count.
 *
 * Keys: every basalt_query_type except INTERVAL; NULL keys never match;
 * DOUBLE/FLOAT keys compare -0.0 = 0.0 and NaN = NaN (DuckDB). One integer
 * key (any width, DATE, TIMESTAMP) gets an integer table, a direct array
 * when the build keys' range is small; other keys hash and compare hash,
 * length and bytes.
 *
 * Thread safety: the join is shared read-only after build_finish; each
 * worker uses its own local. Stats are atomic. */
#ifndef BASALT_QUERY_JOIN_H
#define BASALT_QUERY_JOIN_H

#include "basalt/query.h"

enum basalt_qjoin_type {
    BASALT_QJOIN_INNER,
    BASALT_QJOIN_LEFT,
    BASALT_QJOIN_RIGHT,
    BASALT_QJOIN_FULL,
    BASALT_QJOIN_SEMI,
    BASALT_QJOIN_ANTI,
    BASALT_QJOIN_CROSS,
    /* SEMI and ANTI with the sides' roles turned around: the rows kept are
     * the build side's, those some probe row matches (RIGHT_SEMI) or none
     * does (RIGHT_ANTI). The probes mark them and give nothing; the rows
     * come from basalt_qjoin_unmatched, build columns only, in build input
     * order. For a small kept side and a large other side. */
    BASALT_QJOIN_RIGHT_SEMI,
    BASALT_QJOIN_RIGHT_ANTI
};

struct basalt_qjoin_spec {
    enum basalt_qjoin_type type;
    const struct ArrowSchema *probe_schema; /* "+s", borrowed during new */
    const struct ArrowSchema *build_schema; /* "+s" */
    const int *probe_keys, *build_keys;     /* column indices; n_keys pairs of equal type */
    int n_keys;                             /* 0 only for CROSS */
    /* Optional extra condition over the output row (probe columns then build
     * columns, the INNER layout): a candidate pair matches only when it is
     * TRUE. NULL: none. Borrowed; outlives the join. */
    const struct basalt_query_program *residual;
    /* Optional: the residual reads a batch of only these columns of the
     * output row (indices into probe then build columns, in its order), so
     * that only they are gathered for the candidate pairs and the others
     * only for the pairs that pass. NULL (n 0): the whole output row.
     * Copied. */
    const int *residual_columns;
    int n_residual_columns;
    /* Optional: the output row narrowed to these columns of the row
     * basalt_qjoin_output_schema describes without them (indices into it,
     * in the order given), so that the pairs gather nothing a reader above
     * does not read. A list with n 0 gives rows without columns (a count
     * above the join). NULL: every column. Copied. */
    const int *output_columns;
    int n_output_columns;
};

struct basalt_qjoin;
struct basalt_qjoin_build_local;
struct basalt_qjoin_probe_local;

/* Returns OK; INVALID_ARG (schemas not structs, key index out of range,
 * n_keys 0 for a join other than CROSS, residual not BOOL, a residual or
 * output column out of range); UNSUPPORTED (a
 * key type that cannot be compared, or a pair of different types); NOMEM. */
basalt_status basalt_qjoin_new(const struct basalt_qjoin_spec *spec, struct basalt_qjoin **out,
                               struct basalt_error *err);
void basalt_qjoin_free(struct basalt_qjoin *j);

/* Probe columns then build columns (build columns nullable for LEFT/FULL,
 * probe columns nullable for RIGHT/FULL); SEMI and ANTI: probe columns only;
 * RIGHT_SEMI and RIGHT_ANTI: build columns only; of those, the spec's
 * output_columns when it named them. Names as the inputs. `out` caller storage, owned on OK. OK, NOMEM. */
basalt_status basalt_qjoin_output_schema(const struct basalt_qjoin *j, struct ArrowSchema *out,
                                         struct basalt_error *err);

/* Build phase: each worker has a local and moves whole build batches into
 * it; `seq` is the batch's position in the build input (distinct, >= 0). */
basalt_status basalt_qjoin_build_local_new(struct basalt_qjoin *j,
                                           struct basalt_qjoin_build_local **out,
                                           struct basalt_error *err);
void basalt_qjoin_build_local_free(struct basalt_qjoin_build_local *l);
/* Moves `batch` in (released on return in every case). OK, INVALID_ARG (not
 * a struct of the build schema's width, negative seq), NOMEM. */
basalt_status basalt_qjoin_build_consume(struct basalt_qjoin_build_local *l,
                                         struct ArrowArray *batch, int64_t seq,
                                         struct basalt_error *err);
/* Builds the table from every local's batches (the locals are emptied, the
 * caller still frees them), in parallel on pool (NULL: caller thread).
 * OK; INVALID_ARG (called twice, two batches with one seq); LIMIT (2^32-1
 * build rows or more); NOMEM. */
basalt_status basalt_qjoin_build_finish(struct basalt_qjoin *j,
                                        struct basalt_qjoin_build_local **locals, int n_locals,
                                        struct basalt_pool *pool, struct basalt_error *err);

/* Probe phase, after build_finish: many workers probe concurrently, each
 * with its own local. The output of one probe batch (borrowed) is appended
 * to `out` as zero or more batches of the output schema (out->schema set on
 * first use). OK; INVALID_ARG (before build_finish, batch not of the probe
 * schema's width); the residual's errors; NOMEM. */
basalt_status basalt_qjoin_probe_local_new(struct basalt_qjoin *j,
                                           struct basalt_qjoin_probe_local **out,
                                           struct basalt_error *err);
void basalt_qjoin_probe_local_free(struct basalt_qjoin_probe_local *l);
basalt_status basalt_qjoin_probe(struct basalt_qjoin_probe_local *l,
                                 const struct ArrowArray *batch, struct basalt_arrow_batches *out,
                                 struct basalt_error *err);

/* RIGHT/FULL: after every probe has finished, the build rows no probe
 * matched (probe columns NULL), in build input order, in batches of at most
 * 65536 rows; RIGHT_SEMI: the build rows some probe matched, RIGHT_ANTI:
 * those none did (build columns only). Others: nothing. OK, INVALID_ARG
 * (before build_finish), NOMEM. */
basalt_status basalt_qjoin_unmatched(struct basalt_qjoin *j, struct basalt_arrow_batches *out,
                                     struct basalt_error *err);

/* Which paths ran (counts of probe rows looked up per table kind), for
 * tests that prove the fast paths fire. */
enum basalt_qjoin_table {
    BASALT_QJOIN_TABLE_NONE,    /* before build_finish; CROSS */
    BASALT_QJOIN_TABLE_DIRECT,  /* one integer key, small range: offsets by key - min */
    BASALT_QJOIN_TABLE_INTEGER, /* one integer key: buckets of keys */
    BASALT_QJOIN_TABLE_HASHED   /* any keys: buckets of 64-bit hashes */
};
struct basalt_qjoin_stats {
    enum basalt_qjoin_table table;
    bool direct_unique; /* DIRECT with one row per key: a row array, no offsets */
    int64_t build_rows;
    int64_t direct_lookups, integer_lookups, hashed_lookups;
    int64_t hash_hits_compared; /* hashed path: candidates whose hash matched */
    int64_t residual_pairs;     /* candidate pairs the residual evaluated */
};
void basalt_qjoin_stats(const struct basalt_qjoin *j, struct basalt_qjoin_stats *out);

/* Spilling (grace hash join, plan/run_join.c): part[i] = the partition
 * (0..63) of row i of struct batch `batch` of `schema` by its key columns
 * keys[0..n_keys): the 6 bits of the keys' hash after its first `bits` (0
 * at the first level, 6 more for each split of a partition). Equal keys of
 * the two sides (pairs of equal type) get the same partition; a row with a
 * NULL key gets partition 0. OK; INVALID_ARG (bits over 58); UNSUPPORTED (a
 * key type the join does not take); NOMEM. */
basalt_status basalt_qjoin_partition(const struct ArrowSchema *schema,
                                     const struct ArrowArray *batch, const int *keys, int n_keys,
                                     int bits, uint8_t *part, struct basalt_error *err);

#endif
