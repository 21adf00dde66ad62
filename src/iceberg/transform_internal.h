/* Internals shared by the transform, projection and evaluator files of the
 * Iceberg module. Not part of the public API. */
#ifndef BASALT_ICEBERG_TRANSFORM_INTERNAL_H
#define BASALT_ICEBERG_TRANSFORM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_transform.h"
#include "basalt/iceberg_types.h"

/* ------------------------------------------------------------- transforms */

/* Floor division and the calendar, for the time transforms. */
int64_t basalt_iceberg_tx_floor_div(int64_t a, int64_t b);
/* Year, month (1-12) of a day count since 1970-01-01 (proleptic Gregorian). */
void basalt_iceberg_tx_civil(int64_t days, int64_t *year, int *month);

/* The type of field `field_id` at any depth of `schema`, NULL when absent.
 * *in_repeated (may be NULL) says whether it lies inside a list or a map,
 * where per-file metrics describe elements, not rows. Recursion is bounded by
 * the schema parser's depth limit. */
const struct basalt_iceberg_type *
basalt_iceberg_tx_field_type(const struct basalt_iceberg_schema *schema, int32_t field_id,
                             bool *in_repeated);

/* ------------------------------------------------------------- predicates */

/* Whether `v` (a value of the predicate's type, possibly null) satisfies the
 * predicate `pred` (TRUE, FALSE, IS_NULL .. NOT_IN), with SQL semantics: null
 * satisfies only IS NULL; order as basalt_iceberg_value_compare. Values of the
 * i32 (int, date) and i64 (long, time, timestamps) families compare across
 * types. Returns 1 (satisfied), 0 (not) or -1 (undecidable: the value and the
 * literals cannot be compared). */
int basalt_iceberg_tx_pred_eval(const struct basalt_iceberg_expr *pred,
                                const struct basalt_iceberg_value *v);

/* basalt_iceberg_value_compare, with int/date and the 64-bit integer types
 * compared across types; *ok false when the two cannot be compared. */
int basalt_iceberg_tx_compare(const struct basalt_iceberg_value *a,
                              const struct basalt_iceberg_value *b, bool *ok);

/* Whether value `v` is a float/double NaN. */
bool basalt_iceberg_tx_is_nan(const struct basalt_iceberg_value *v);

/* ------------------------------------------------------------- projection */

/* The projection of one bound predicate through one partition field: the
 * projected predicate in `arena`, or NULL with *status OK when nothing
 * projects (the caller substitutes TRUE for inclusive, FALSE for strict), or
 * NULL with *status NOMEM. `source` is the type of the predicate's field. */
struct basalt_iceberg_expr *
basalt_iceberg_tx_project_pred(const struct basalt_iceberg_expr *pred,
                               const struct basalt_iceberg_partition_field *field,
                               const struct basalt_iceberg_type *source, bool strict,
                               struct basalt_arena *arena, basalt_status *status);

/* Whether a NOT is left anywhere in `e` (bound expressions have none; the
 * entry points push NOTs down when a caller passes one). */
bool basalt_iceberg_tx_has_not(const struct basalt_iceberg_expr *e);

/* A node in `arena` with everything zero but `op`; NULL when out of memory. */
struct basalt_iceberg_expr *basalt_iceberg_tx_node(struct basalt_arena *arena,
                                                   enum basalt_iceberg_op op);

#endif
