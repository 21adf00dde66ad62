/* Internals shared by the expression and value files of the Iceberg module:
 * 128-bit decimal arithmetic, calendar arithmetic and range-aware literal
 * conversion. */
#ifndef BASALT_ICEBERG_EXPR_INTERNAL_H
#define BASALT_ICEBERG_EXPR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "basalt/iceberg_expr.h"

/* ------------------------------------------------------------------ decimal */

#define BASALT_ICEBERG_DECIMAL_MAX_DIGITS 38

struct basalt_iceberg_decimal basalt_iceberg_dec_from_i64(int64_t v);
bool basalt_iceberg_dec_is_neg(struct basalt_iceberg_decimal d);
struct basalt_iceberg_decimal basalt_iceberg_dec_neg(struct basalt_iceberg_decimal d);
int basalt_iceberg_dec_cmp(struct basalt_iceberg_decimal a, struct basalt_iceberg_decimal b);
/* *d = *d * mul + add on the magnitude (non-negative values); false on overflow
 * past 2^127 - 1. */
bool basalt_iceberg_dec_mul_add(struct basalt_iceberg_decimal *d, uint32_t mul, uint32_t add);
/* Divides a non-negative value by `div` in place, returning the remainder. */
uint32_t basalt_iceberg_dec_divmod(struct basalt_iceberg_decimal *d, uint32_t div);
/* Number of decimal digits of |d| (0 has 1). */
int basalt_iceberg_dec_digits(struct basalt_iceberg_decimal d);
/* Rescales d from scale `from` to scale `to`: exact only (false when digits
 * would be lost or the value overflows 128 bits). */
bool basalt_iceberg_dec_rescale(struct basalt_iceberg_decimal *d, int32_t from, int32_t to);
/* The decimal as a double (nearest, through its digits). */
double basalt_iceberg_dec_to_double(struct basalt_iceberg_decimal d, int32_t scale);
/* Exact digits with the point: "-12.50"; returns the length written, or the
 * length needed when cap is too small (buf holds a prefix). */
size_t basalt_iceberg_dec_format(struct basalt_iceberg_decimal d, int32_t scale, char *buf,
                                 size_t cap);

/* ------------------------------------------------------------------ calendar */

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t basalt_iceberg_days_from_civil(int64_t y, unsigned m, unsigned d);
void basalt_iceberg_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* ------------------------------------------------------------------ floats */

/* A key with the order of the spec's float total order
 * (-NaN < -inf < ... < -0 < 0 < ... < inf < NaN), every NaN of one sign equal. */
int64_t basalt_iceberg_double_key(double v);

/* Whether text reads back as f both through strtof and through strtod and a
 * cast, the way the expression parser and value conversion read a float
 * (the text of floats must satisfy both; see value_string.c). */
bool basalt_iceberg_float_text_reads_back(const char *text, float f);

/* ------------------------------------------------------------------ convert */

/* basalt_iceberg_value_convert that reports a literal outside the target's
 * range instead of failing: *range is +1 above the largest value, -1 below
 * the smallest (out left unset), 0 when converted. */
basalt_status basalt_iceberg_value_convert_range(const struct basalt_iceberg_value *in,
                                                 const struct basalt_iceberg_type *to,
                                                 struct basalt_arena *arena,
                                                 struct basalt_iceberg_value *out, int *range,
                                                 struct basalt_error *err);

/* True when the value's bytes equal bit for bit (type, null, scale, payload). */
bool basalt_iceberg_value_identical(const struct basalt_iceberg_value *a,
                                    const struct basalt_iceberg_value *b);

/* A node in `arena` with everything zero but `op`. */
struct basalt_iceberg_expr *basalt_iceberg_expr_node(struct basalt_arena *arena,
                                                     enum basalt_iceberg_op op);

/* True for the ops that take literals. */
bool basalt_iceberg_op_has_literals(enum basalt_iceberg_op op);

#endif
