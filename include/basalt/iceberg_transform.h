/* basalt iceberg: partition transforms, predicate projection and the
 * evaluators that prune manifests, files and partitions during scan planning.
 *
 * Transforms follow the table spec ("Partition Transforms", Appendix B for
 * the bucket hash). Projection turns a bound row filter into a filter on
 * partition values: the inclusive projection is true for every partition that
 * may hold a matching row, the strict projection is true only for partitions
 * whose every row matches. The evaluators answer "may this manifest / file /
 * partition hold a matching row?": false is a proof that it does not, true
 * means it may.
 *
 * Exact evaluation (partition tuples, residuals) follows the row filter's
 * semantics (iceberg_expr.h): a predicate on a null is not satisfied (IS NULL
 * excepted) and values order as basalt_iceberg_value_compare. The pruning
 * evaluators (manifests, metrics) follow the reference implementation, which
 * takes a column holding only NaN to match no ordering or equality predicate.
 * Evaluators compare int with date values (day partitions are written as
 * either) and int with long (promoted columns); values of types that do not
 * compare never rule anything out.
 *
 * Everything here is pure: no global state, every function may be called from
 * any thread on shared read-only inputs. Results built by projection and
 * residual evaluation live in the caller's arena. */
#ifndef BASALT_ICEBERG_TRANSFORM_H
#define BASALT_ICEBERG_TRANSFORM_H

#include "basalt/core.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- transforms */

/* Parses a transform name: "identity", "bucket[N]", "truncate[W]", "year",
 * "month", "day", "hour", "void" (names compared case-insensitively). Any
 * other name is kind UNKNOWN and OK, so tables using transforms this library
 * does not know still load (their partitions are never pruned). `text` is
 * borrowed into out->text and must outlive `out`.
 * Returns CORRUPT for a malformed parameter of bucket/truncate ("bucket[0]",
 * "truncate[x]", "bucket[16", a value above INT32_MAX); INVALID_ARG when text
 * or out is NULL. */
BASALT_EXPORT basalt_status basalt_iceberg_transform_parse(const char *text,
                                                           struct basalt_iceberg_transform *out,
                                                           struct basalt_error *err);

/* Whether `t` may be applied to values of type `source`:
 *   identity: any primitive type; void: any type;
 *   bucket: int, long, decimal, date, time, timestamp(tz)(_ns), string, uuid,
 *           fixed, binary;
 *   truncate: int, long, decimal, string, binary;
 *   year, month, day: date, timestamp(tz)(_ns); hour: timestamp(tz)(_ns);
 *   unknown: true (it cannot be ruled out; it is never applied). */
BASALT_EXPORT bool basalt_iceberg_transform_can_apply(const struct basalt_iceberg_transform *t,
                                                      const struct basalt_iceberg_type *source);

/* The type of the partition values `t` produces from `source`: the source
 * type for identity, truncate and void; int for bucket, year, month and hour;
 * date for day (as the reference implementations write it: days from
 * 1970-01-01). `*out` is a shallow copy (nested pointers, if any, point into
 * `source`). Returns INVALID_ARG when t cannot be applied to source,
 * UNSUPPORTED for an unknown transform. */
BASALT_EXPORT basalt_status basalt_iceberg_transform_result_type(
    const struct basalt_iceberg_transform *t, const struct basalt_iceberg_type *source,
    struct basalt_iceberg_type *out, struct basalt_error *err);

/* Applies `t` to `in`, a value of type `source` (a null gives a null of the
 * result type). Truncated strings and binaries are views into in's bytes; other
 * results are self-contained. Time transforms floor towards negative
 * infinity: 1969-12-31 is day -1, month -1, year -1.
 * Returns INVALID_ARG when t cannot be applied to source or in->type does not
 * match it, UNSUPPORTED for an unknown transform. */
BASALT_EXPORT basalt_status basalt_iceberg_transform_apply(const struct basalt_iceberg_transform *t,
                                                           const struct basalt_iceberg_type *source,
                                                           const struct basalt_iceberg_value *in,
                                                           struct basalt_iceberg_value *out,
                                                           struct basalt_error *err);

/* The 32-bit Murmur3 hash of a non-null value per spec Appendix B (bucket =
 * (hash & INT32_MAX) % N): integers, dates, times and timestamps as an 8-byte
 * little-endian long (nanosecond timestamps floored to microseconds first),
 * decimals as the minimal big-endian two's complement of the unscaled value,
 * strings/uuid/fixed/binary as their bytes, booleans as 0/1, floats and doubles
 * as the bits of the double with NaN and -0.0 canonicalised. 0 for a null or a
 * type without a hash. */
BASALT_EXPORT int32_t basalt_iceberg_bucket_hash(const struct basalt_iceberg_value *value);

/* ------------------------------------------------------------- projection */

/* Projection of a bound row filter onto the partition fields of `spec`
 * (source fields looked up in `schema`). The result's predicates reference
 * partition fields: field_id is the partition field id, name its name, type its
 * result type, literals transformed and converted to that type.
 *
 * Inclusive: every partition that may hold a row matching `bound` satisfies the
 * result (TRUE where nothing projects). Strict: every row of a partition that
 * satisfies the result matches `bound` (FALSE where nothing projects).
 * Stepping follows the reference implementation, including its widening for
 * pre-1970 values of time transforms written by old writers. A NOT in `bound`
 * is pushed down first. The result has no NOT; nodes, names, types and literal
 * bytes are allocated in `arena` (nothing points into `bound`).
 * Returns NOMEM, or INVALID_ARG for an unbound predicate (field_id 0). */
BASALT_EXPORT basalt_status basalt_iceberg_project_inclusive(
    const struct basalt_iceberg_expr *bound, const struct basalt_iceberg_schema *schema,
    const struct basalt_iceberg_partition_spec *spec, struct basalt_arena *arena,
    struct basalt_iceberg_expr **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_iceberg_project_strict(
    const struct basalt_iceberg_expr *bound, const struct basalt_iceberg_schema *schema,
    const struct basalt_iceberg_partition_spec *spec, struct basalt_arena *arena,
    struct basalt_iceberg_expr **out, struct basalt_error *err);

/* ------------------------------------------------------------- evaluators */

/* Whether a manifest may hold files matching `partition_expr` (a projection
 * result over `spec`), judged by the manifest list entry's partition field
 * summaries (contains_null, contains_nan, lower/upper bounds). true when the
 * summaries are absent or do not line up with the spec. */
BASALT_EXPORT bool
basalt_iceberg_manifest_may_match(const struct basalt_iceberg_expr *partition_expr,
                                  const struct basalt_iceberg_partition_spec *spec,
                                  const struct basalt_iceberg_manifest_file *manifest);

/* Exact evaluation of `partition_expr` (a projection result over `spec`) on a
 * partition tuple: one value per spec field, in spec order. A predicate on a
 * field the tuple does not reach (n too small) counts as satisfied. */
BASALT_EXPORT bool
basalt_iceberg_partition_matches(const struct basalt_iceberg_expr *partition_expr,
                                 const struct basalt_iceberg_partition_spec *spec,
                                 const struct basalt_iceberg_value *tuple, uint32_t n);

/* The inclusive metrics evaluator: whether `file` may hold a row matching the
 * bound row filter, judged by its record count, value/null/NaN counts and
 * lower/upper bounds (decoded with the field types of `schema`). != and NOT IN
 * never prune on bounds; bounds of fields inside lists and maps are never used;
 * a NaN lower bound is treated as unknown. */
BASALT_EXPORT bool basalt_iceberg_metrics_may_match(const struct basalt_iceberg_expr *bound,
                                                    const struct basalt_iceberg_schema *schema,
                                                    const struct basalt_iceberg_data_file *file);

/* What is left of `bound` for the rows of a file with partition tuple
 * `tuple` (n values, spec order): each predicate whose strict projection the
 * partition satisfies becomes TRUE, each whose inclusive projection it fails
 * becomes FALSE, the rest stay; AND/OR fold the constants. The result is TRUE
 * when nothing is left. Its nodes are allocated in `arena`; predicates left
 * in it share names, types and literals with `bound`, which must outlive it.
 * Returns NOMEM, INVALID_ARG for an unbound predicate. */
BASALT_EXPORT basalt_status basalt_iceberg_residual(
    const struct basalt_iceberg_expr *bound, const struct basalt_iceberg_schema *schema,
    const struct basalt_iceberg_partition_spec *spec, const struct basalt_iceberg_value *tuple,
    uint32_t n, struct basalt_arena *arena, struct basalt_iceberg_expr **out,
    struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
