/* Deep comparison of decoded Parquet structures (see pf_compare.h). */
#include "pf_compare.h"

#include <stdio.h>
#include <string.h>

struct cmp {
    char *why;
    size_t why_size;
};

static bool differ(struct cmp *c, const char *path, const char *field)
{
    snprintf(c->why, c->why_size, "%.400s%s%.64s", path, *path ? "." : "", field);
    return false;
}

#define F(field)                                                                    \
    do {                                                                            \
        if (a->field != b->field)                                                   \
            return differ(c, path, #field);                                         \
    } while (0)

/* Doubles by bit pattern, so NaN equals itself. */
#define D(field)                                                                    \
    do {                                                                            \
        if (memcmp(&a->field, &b->field, sizeof(double)) != 0)                      \
            return differ(c, path, #field);                                         \
    } while (0)

#define BYTES(field)                                                                \
    do {                                                                            \
        if (a->field.len != b->field.len ||                                         \
            (a->field.len && memcmp(a->field.data, b->field.data, a->field.len)))   \
            return differ(c, path, #field);                                         \
    } while (0)

#define LIST(field, count, elem_cmp)                                                \
    do {                                                                            \
        if (a->count != b->count)                                                   \
            return differ(c, path, #count);                                         \
        for (size_t i_ = 0; i_ < a->count; i_++) {                                  \
            char sub_[512];                                                         \
            snprintf(sub_, sizeof sub_, "%.400s%s%.64s[%zu]", path,                 \
                     *path ? "." : "", #field, i_);                                 \
            if (!elem_cmp(c, sub_, &a->field[i_], &b->field[i_]))                   \
                return false;                                                       \
        }                                                                           \
    } while (0)

#define SUB(field, sub_cmp)                                                         \
    do {                                                                            \
        char sub_[512];                                                             \
        snprintf(sub_, sizeof sub_, "%.400s%s%.64s", path, *path ? "." : "", #field); \
        if (!sub_cmp(c, sub_, &a->field, &b->field))                                \
            return false;                                                           \
    } while (0)

static bool i64_eq(struct cmp *c, const char *path, const int64_t *a, const int64_t *b)
{
    return *a == *b ? true : differ(c, path, "");
}

static bool i32_eq(struct cmp *c, const char *path, const int32_t *a, const int32_t *b)
{
    return *a == *b ? true : differ(c, path, "");
}

static bool bool_eq(struct cmp *c, const char *path, const bool *a, const bool *b)
{
    return *a == *b ? true : differ(c, path, "");
}

static bool string_eq(struct cmp *c, const char *path, const struct basalt_parquet_string *a,
                      const struct basalt_parquet_string *b)
{
    if (a->len != b->len || (a->len && memcmp(a->data, b->data, a->len)))
        return differ(c, path, "");
    return true;
}

static bool binary_eq(struct cmp *c, const char *path, const struct basalt_parquet_binary *a,
                      const struct basalt_parquet_binary *b)
{
    if (a->len != b->len || (a->len && memcmp(a->data, b->data, a->len)))
        return differ(c, path, "");
    return true;
}

static bool key_value_eq(struct cmp *c, const char *path, const struct basalt_parquet_key_value *a,
                         const struct basalt_parquet_key_value *b)
{
    BYTES(key);
    F(has_value);
    BYTES(value);
    return true;
}

static bool statistics_eq(struct cmp *c, const char *path, const struct basalt_parquet_statistics *a,
                          const struct basalt_parquet_statistics *b)
{
    F(has_max);
    F(has_min);
    F(has_null_count);
    F(has_distinct_count);
    F(has_max_value);
    F(has_min_value);
    F(has_is_max_value_exact);
    F(has_is_min_value_exact);
    F(has_nan_count);
    F(is_max_value_exact);
    F(is_min_value_exact);
    BYTES(max);
    BYTES(min);
    F(null_count);
    F(distinct_count);
    BYTES(max_value);
    BYTES(min_value);
    F(nan_count);
    return true;
}

static bool logical_type_eq(struct cmp *c, const char *path,
                            const struct basalt_parquet_logical_type *a,
                            const struct basalt_parquet_logical_type *b)
{
    F(kind);
    F(decimal.scale);
    F(decimal.precision);
    F(time.is_adjusted_to_utc);
    F(time.unit);
    F(integer.bit_width);
    F(integer.is_signed);
    F(variant.has_specification_version);
    F(variant.specification_version);
    F(geo.has_crs);
    F(geo.has_algorithm);
    BYTES(geo.crs);
    F(geo.algorithm);
    return true;
}

static bool schema_element_eq(struct cmp *c, const char *path,
                              const struct basalt_parquet_schema_element *a,
                              const struct basalt_parquet_schema_element *b)
{
    F(has_type);
    F(has_type_length);
    F(has_repetition_type);
    F(has_num_children);
    F(has_converted_type);
    F(has_scale);
    F(has_precision);
    F(has_field_id);
    F(has_logical_type);
    F(type);
    F(type_length);
    F(repetition_type);
    BYTES(name);
    F(num_children);
    F(converted_type);
    F(scale);
    F(precision);
    F(field_id);
    SUB(logical_type, logical_type_eq);
    return true;
}

static bool encoding_stats_eq(struct cmp *c, const char *path,
                              const struct basalt_parquet_page_encoding_stats *a,
                              const struct basalt_parquet_page_encoding_stats *b)
{
    F(page_type);
    F(encoding);
    F(count);
    return true;
}

static bool size_statistics_eq(struct cmp *c, const char *path,
                               const struct basalt_parquet_size_statistics *a,
                               const struct basalt_parquet_size_statistics *b)
{
    F(has_unencoded_byte_array_data_bytes);
    F(has_repetition_level_histogram);
    F(has_definition_level_histogram);
    F(unencoded_byte_array_data_bytes);
    LIST(repetition_level_histogram, num_repetition_level_histogram, i64_eq);
    LIST(definition_level_histogram, num_definition_level_histogram, i64_eq);
    return true;
}

static bool geospatial_eq(struct cmp *c, const char *path,
                          const struct basalt_parquet_geospatial_statistics *a,
                          const struct basalt_parquet_geospatial_statistics *b)
{
    F(has_bbox);
    F(has_geospatial_types);
    D(bbox.xmin);
    D(bbox.xmax);
    D(bbox.ymin);
    D(bbox.ymax);
    F(bbox.has_zmin);
    F(bbox.has_zmax);
    F(bbox.has_mmin);
    F(bbox.has_mmax);
    D(bbox.zmin);
    D(bbox.zmax);
    D(bbox.mmin);
    D(bbox.mmax);
    LIST(geospatial_types, num_geospatial_types, i32_eq);
    return true;
}

static bool column_metadata_eq(struct cmp *c, const char *path,
                               const struct basalt_parquet_column_metadata *a,
                               const struct basalt_parquet_column_metadata *b)
{
    F(has_key_value_metadata);
    F(has_index_page_offset);
    F(has_dictionary_page_offset);
    F(has_statistics);
    F(has_encoding_stats);
    F(has_bloom_filter_offset);
    F(has_bloom_filter_length);
    F(has_size_statistics);
    F(has_geospatial_statistics);
    F(type);
    LIST(encodings, num_encodings, i32_eq);
    LIST(path_in_schema, num_path_in_schema, string_eq);
    F(codec);
    F(num_values);
    F(total_uncompressed_size);
    F(total_compressed_size);
    LIST(key_value_metadata, num_key_value_metadata, key_value_eq);
    F(data_page_offset);
    F(index_page_offset);
    F(dictionary_page_offset);
    SUB(statistics, statistics_eq);
    LIST(encoding_stats, num_encoding_stats, encoding_stats_eq);
    F(bloom_filter_offset);
    F(bloom_filter_length);
    SUB(size_statistics, size_statistics_eq);
    if ((a->geospatial_statistics == NULL) != (b->geospatial_statistics == NULL))
        return differ(c, path, "geospatial_statistics");
    if (a->geospatial_statistics &&
        !geospatial_eq(c, path, a->geospatial_statistics, b->geospatial_statistics))
        return false;
    return true;
}

static bool column_crypto_eq(struct cmp *c, const char *path,
                             const struct basalt_parquet_column_crypto_metadata *a,
                             const struct basalt_parquet_column_crypto_metadata *b)
{
    F(kind);
    LIST(path_in_schema, num_path_in_schema, string_eq);
    F(has_key_metadata);
    BYTES(key_metadata);
    return true;
}

static bool column_chunk_eq(struct cmp *c, const char *path,
                            const struct basalt_parquet_column_chunk *a,
                            const struct basalt_parquet_column_chunk *b)
{
    F(has_file_path);
    F(has_meta_data);
    F(has_offset_index_offset);
    F(has_offset_index_length);
    F(has_column_index_offset);
    F(has_column_index_length);
    F(has_crypto_metadata);
    F(has_encrypted_column_metadata);
    BYTES(file_path);
    F(file_offset);
    SUB(meta_data, column_metadata_eq);
    F(offset_index_offset);
    F(offset_index_length);
    F(column_index_offset);
    F(column_index_length);
    if ((a->crypto_metadata == NULL) != (b->crypto_metadata == NULL))
        return differ(c, path, "crypto_metadata");
    if (a->crypto_metadata && !column_crypto_eq(c, path, a->crypto_metadata, b->crypto_metadata))
        return false;
    BYTES(encrypted_column_metadata);
    return true;
}

static bool sorting_column_eq(struct cmp *c, const char *path,
                              const struct basalt_parquet_sorting_column *a,
                              const struct basalt_parquet_sorting_column *b)
{
    F(column_idx);
    F(descending);
    F(nulls_first);
    return true;
}

static bool row_group_eq(struct cmp *c, const char *path, const struct basalt_parquet_row_group *a,
                         const struct basalt_parquet_row_group *b)
{
    F(has_sorting_columns);
    F(has_file_offset);
    F(has_total_compressed_size);
    F(has_ordinal);
    LIST(columns, num_columns, column_chunk_eq);
    F(total_byte_size);
    F(num_rows);
    LIST(sorting_columns, num_sorting_columns, sorting_column_eq);
    F(file_offset);
    F(total_compressed_size);
    F(ordinal);
    return true;
}

static bool encryption_algorithm_eq(struct cmp *c, const char *path,
                                    const struct basalt_parquet_encryption_algorithm *a,
                                    const struct basalt_parquet_encryption_algorithm *b)
{
    F(kind);
    F(has_aad_prefix);
    F(has_aad_file_unique);
    F(has_supply_aad_prefix);
    F(supply_aad_prefix);
    BYTES(aad_prefix);
    BYTES(aad_file_unique);
    return true;
}

static bool file_metadata_eq(struct cmp *c, const char *path,
                             const struct basalt_parquet_file_metadata *a,
                             const struct basalt_parquet_file_metadata *b)
{
    F(has_key_value_metadata);
    F(has_created_by);
    F(has_column_orders);
    F(has_encryption_algorithm);
    F(has_footer_signing_key_metadata);
    F(version);
    LIST(schema, num_schema, schema_element_eq);
    F(num_rows);
    LIST(row_groups, num_row_groups, row_group_eq);
    LIST(key_value_metadata, num_key_value_metadata, key_value_eq);
    BYTES(created_by);
    LIST(column_orders, num_column_orders, i32_eq);
    SUB(encryption_algorithm, encryption_algorithm_eq);
    BYTES(footer_signing_key_metadata);
    F(has_encrypted_columns);
    return true;
}

bool pfc_file_metadata(const struct basalt_parquet_file_metadata *a,
                       const struct basalt_parquet_file_metadata *b, char *why, size_t why_size)
{
    struct cmp c = {why, why_size};
    return file_metadata_eq(&c, "", a, b);
}

static bool data_page_eq(struct cmp *c, const char *path,
                         const struct basalt_parquet_data_page_header *a,
                         const struct basalt_parquet_data_page_header *b)
{
    F(has_statistics);
    F(num_values);
    F(encoding);
    F(definition_level_encoding);
    F(repetition_level_encoding);
    SUB(statistics, statistics_eq);
    return true;
}

static bool dictionary_page_eq(struct cmp *c, const char *path,
                               const struct basalt_parquet_dictionary_page_header *a,
                               const struct basalt_parquet_dictionary_page_header *b)
{
    F(has_is_sorted);
    F(num_values);
    F(encoding);
    F(is_sorted);
    return true;
}

static bool data_page_v2_eq(struct cmp *c, const char *path,
                            const struct basalt_parquet_data_page_header_v2 *a,
                            const struct basalt_parquet_data_page_header_v2 *b)
{
    F(has_is_compressed);
    F(has_statistics);
    F(num_values);
    F(num_nulls);
    F(num_rows);
    F(encoding);
    F(definition_levels_byte_length);
    F(repetition_levels_byte_length);
    F(is_compressed);
    SUB(statistics, statistics_eq);
    return true;
}

bool pfc_page_header(const struct basalt_parquet_page_header *a,
                     const struct basalt_parquet_page_header *b, char *why, size_t why_size)
{
    struct cmp cc = {why, why_size}, *c = &cc;
    const char *path = "";
    F(has_crc);
    F(has_data_page_header);
    F(has_index_page_header);
    F(has_dictionary_page_header);
    F(has_data_page_header_v2);
    F(type);
    F(uncompressed_page_size);
    F(compressed_page_size);
    F(crc);
    SUB(data_page_header, data_page_eq);
    SUB(dictionary_page_header, dictionary_page_eq);
    SUB(data_page_header_v2, data_page_v2_eq);
    return true;
}

bool pfc_column_index(const struct basalt_parquet_column_index *a,
                      const struct basalt_parquet_column_index *b, char *why, size_t why_size)
{
    struct cmp cc = {why, why_size}, *c = &cc;
    const char *path = "";
    F(has_null_counts);
    F(has_repetition_level_histograms);
    F(has_definition_level_histograms);
    F(has_nan_counts);
    LIST(null_pages, num_null_pages, bool_eq);
    LIST(min_values, num_min_values, binary_eq);
    LIST(max_values, num_max_values, binary_eq);
    F(boundary_order);
    LIST(null_counts, num_null_counts, i64_eq);
    LIST(repetition_level_histograms, num_repetition_level_histograms, i64_eq);
    LIST(definition_level_histograms, num_definition_level_histograms, i64_eq);
    LIST(nan_counts, num_nan_counts, i64_eq);
    return true;
}

static bool page_location_eq(struct cmp *c, const char *path,
                             const struct basalt_parquet_page_location *a,
                             const struct basalt_parquet_page_location *b)
{
    F(offset);
    F(compressed_page_size);
    F(first_row_index);
    return true;
}

bool pfc_offset_index(const struct basalt_parquet_offset_index *a,
                      const struct basalt_parquet_offset_index *b, char *why, size_t why_size)
{
    struct cmp cc = {why, why_size}, *c = &cc;
    const char *path = "";
    F(has_unencoded_byte_array_data_bytes);
    LIST(page_locations, num_page_locations, page_location_eq);
    LIST(unencoded_byte_array_data_bytes, num_unencoded_byte_array_data_bytes, i64_eq);
    return true;
}

bool pfc_bloom_filter_header(const struct basalt_parquet_bloom_filter_header *a,
                             const struct basalt_parquet_bloom_filter_header *b, char *why,
                             size_t why_size)
{
    struct cmp cc = {why, why_size}, *c = &cc;
    const char *path = "";
    F(num_bytes);
    F(algorithm);
    F(hash);
    F(compression);
    return true;
}
