/* Internal declarations of snapshot producers. Not part of the public API. */
#ifndef BASALT_ICEBERG_SNAPSHOT_INTERNAL_H
#define BASALT_ICEBERG_SNAPSHOT_INTERNAL_H

#include <jansson.h>

#include "basalt/iceberg_types.h"

/* The summary of an append of files[0, n) on top of `parent` (NULL for the
 * first snapshot): "operation", the added counts and the running totals,
 * plus `extra` entries. NULL on NOMEM. */
json_t *basalt_iceberg_append_summary(const struct basalt_iceberg_data_file *files, uint32_t n,
                                      const struct basalt_iceberg_snapshot *parent,
                                      const struct basalt_iceberg_kv *extra, uint32_t n_extra);

#endif
