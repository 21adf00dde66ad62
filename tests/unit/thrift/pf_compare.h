/* Field-by-field comparison of decoded Parquet structures, for round-trip
 * tests. Each returns true when equal; otherwise false with the path of the
 * first difference in `why` (e.g. "row_groups[2].columns[0].meta_data.
 * statistics.null_count"). Every field is compared, including those whose
 * has_ flag is false (the decoders leave them zero). */
#ifndef BASALT_TEST_PF_COMPARE_H
#define BASALT_TEST_PF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "basalt/parquet_format.h"

bool pfc_file_metadata(const struct basalt_parquet_file_metadata *a,
                       const struct basalt_parquet_file_metadata *b, char *why, size_t why_size);
bool pfc_page_header(const struct basalt_parquet_page_header *a,
                     const struct basalt_parquet_page_header *b, char *why, size_t why_size);
bool pfc_column_index(const struct basalt_parquet_column_index *a,
                      const struct basalt_parquet_column_index *b, char *why, size_t why_size);
bool pfc_offset_index(const struct basalt_parquet_offset_index *a,
                      const struct basalt_parquet_offset_index *b, char *why, size_t why_size);
bool pfc_bloom_filter_header(const struct basalt_parquet_bloom_filter_header *a,
                             const struct basalt_parquet_bloom_filter_header *b, char *why,
                             size_t why_size);

#endif
