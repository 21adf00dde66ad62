/* Internal declarations of the maintenance operations. Not part of the
 * public API. */
#ifndef BASALT_ICEBERG_MAINTAIN_INTERNAL_H
#define BASALT_ICEBERG_MAINTAIN_INTERNAL_H

#include "basalt/arrow.h"
#include "basalt/iceberg_types.h"

struct basalt_iceberg_data_writer;

/* One sort key: a top-level column of the batches. */
struct basalt_iceberg_sort_key {
    int64_t column;
    bool descending;
    bool nulls_first;
};

/* The sort keys of `text` ("col [asc|desc] [nulls first|nulls last], ...";
 * NULL: the table's default sort order, its transforms sorted by their
 * source column) over the top-level columns of `schema` (an Arrow struct
 * schema with the schema's fields, as scans give it). *keys is
 * basalt_malloc'd. INVALID_ARG (a bad clause, an unknown column, no order),
 * UNSUPPORTED (a column type without an order here, a bucket transform),
 * NOMEM. */
basalt_status basalt_iceberg_sort_keys(const struct basalt_iceberg_metadata *m, const char *text,
                                       const struct ArrowSchema *schema,
                                       struct basalt_iceberg_sort_key **keys, uint32_t *n_keys,
                                       struct basalt_error *err);

/* Writes the rows of batches[0, n) (type `schema`) to `w` in key order
 * (stable: equal keys keep their input order). The batches stay the
 * caller's. The statuses of basalt_arrow_take and the writer, NOMEM. */
basalt_status basalt_iceberg_write_sorted(const struct ArrowSchema *schema,
                                          const struct ArrowArray *batches, uint32_t n,
                                          const struct basalt_iceberg_sort_key *keys,
                                          uint32_t n_keys, struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err);

#endif
