/* Variant helpers shared by variant*.c and the reader's unshredding
 * (assemble.c). Internal to the parquet module. */
#ifndef BASALT_PARQUET_VARIANT_INTERNAL_H
#define BASALT_PARQUET_VARIANT_INTERNAL_H

#include "basalt/arrow.h"
#include "basalt/parquet_variant.h"
#include "parquet_column.h"

/* Unsigned little-endian integer of n (0..8) bytes. */
uint64_t basalt_parquet_variant_le(const uint8_t *p, int n);

/* Bytes of a primitive's data after its header byte: 0..17, -4 for binary
 * and string (a 4-byte length, then the bytes), -1 for an unknown type. */
int basalt_parquet_variant_primitive_size(int type);

/* JSON text (variant_json.c): a string (escaped as JSON.stringify does), and
 * a primitive's value from its `n` data bytes (checked by the caller). */
basalt_status basalt_parquet_variant_json_string(struct basalt_buffer *out, const uint8_t *s,
                                                 size_t n, struct basalt_error *err);
basalt_status basalt_parquet_variant_json_primitive(struct basalt_buffer *out, int type,
                                                    const uint8_t *d, size_t n,
                                                    struct basalt_error *err);

/* The unshredded form of an assembled VARIANT group (variant_shred.c).
 * `field` is the group's field (marked variant), `internal` its assembled
 * struct (taken: released in every case) with the arrays of the Parquet
 * children (metadata, value, typed_value...), `leaves` the decoded leaves
 * (their offset widths). `out` (released on entry) becomes the
 * parquet.variant struct of `metadata` and `value`, with int64 offsets when
 * `large`. The value of every non-null slot is rebuilt from `value` and
 * `typed_value` as VariantShredding.md says, and checked.
 * Returns OK; CORRUPT (invalid metadata or value bytes, a null metadata,
 * value and typed_value both set where only an object allows it, a
 * non-object value with shredded fields, an array element missing, a
 * shredded field name not in the metadata, a group without metadata);
 * UNSUPPORTED (a typed_value of a type the specification does not list);
 * LIMIT (over 2 GiB of values without `large`); NOMEM. */
basalt_status basalt_parquet_variant_unshred(const struct basalt_parquet_schema *schema,
                                             int32_t field,
                                             const struct basalt_parquet_leaf_values *leaves,
                                             bool large_lists, bool large,
                                             struct ArrowArray *internal, struct ArrowArray *out,
                                             struct basalt_error *err);

#endif
