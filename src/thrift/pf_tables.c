/* parquet.thrift (apache/parquet-format 2.12) as tables over the C structs of
 * basalt/parquet_format.h: what the generic decoder and encoder know about
 * Parquet. Adding a struct is adding a table here; tests/unit/thrift checks
 * every table against its invariants (ids in range, offsets inside the
 * struct, the required mask and min_wire as the fields imply).
 *
 * In each table S is the C struct the offsets are taken from. REQ fields are
 * required (no has_ flag: always written, missing is CORRUPT); OPT fields
 * have a has_<member> flag. A field whose IDL name differs from its C member
 * uses FIELD with the IDL name. */
#include "pf_decode_internal.h"
#include "pf_desc.h"

/* The field-header type codes each kind is read from (pf_field.wires). */
#define CODE(t) (1u << BASALT_THRIFT_TYPE_##t)
#define WIRES_I8 CODE(I8)
#define WIRES_I16 CODE(I16)
#define WIRES_I32 CODE(I32)
#define WIRES_ENUM CODE(I32)
#define WIRES_I64 CODE(I64)
#define WIRES_DOUBLE CODE(DOUBLE)
#define WIRES_BOOL (CODE(BOOL) | CODE(BOOL_FALSE))
#define WIRES_BYTES CODE(BINARY)
#define WIRES_STRUCT CODE(STRUCT)
#define WIRES_STRUCT_PTR CODE(STRUCT)
#define WIRES_LIST CODE(LIST)

/* A field of kind K at member m of S, named n, presence flag at offset h;
 * the rest designates the kind's extras (.sub, .enum_name, .elem...), or
 * is `.flags = 0` for a kind without any. */
#define FIELD(K, m, h, n, ...)                                                     \
    {.wires = WIRES_##K, .kind = PF_##K, .off = offsetof(S, m), .has = (h),       \
     .name = (n), __VA_ARGS__}
#define HAS(m) offsetof(S, has_##m)
#define NO_HAS PF_NO_HAS

#define REQ(K, m) FIELD(K, m, NO_HAS, #m, .flags = 0)
#define OPT(K, m) FIELD(K, m, HAS(m), #m, .flags = 0)
#define REQ_ENUM(m, e) FIELD(ENUM, m, NO_HAS, #m, .enum_name = (e))
#define OPT_ENUM(m, e) FIELD(ENUM, m, HAS(m), #m, .enum_name = (e))
#define REQ_STRUCT(m, s) FIELD(STRUCT, m, NO_HAS, #m, .sub = (s))
#define OPT_STRUCT(m, s) FIELD(STRUCT, m, HAS(m), #m, .sub = (s))
#define OPT_PTR(m, s) FIELD(STRUCT_PTR, m, HAS(m), #m, .sub = (s))
/* Lists: elements of kind E, the count in num_<m>. */
#define LIST_OF(E, m) .elem = PF_##E, .count = offsetof(S, num_##m)
#define REQ_LIST(E, m) FIELD(LIST, m, NO_HAS, #m, LIST_OF(E, m))
#define OPT_LIST(E, m) FIELD(LIST, m, HAS(m), #m, LIST_OF(E, m))
#define REQ_ENUM_LIST(m, e) FIELD(LIST, m, NO_HAS, #m, LIST_OF(ENUM, m), .enum_name = (e))
#define REQ_STRUCT_LIST(m, s) FIELD(LIST, m, NO_HAS, #m, LIST_OF(STRUCT, m), .sub = (s))
#define OPT_STRUCT_LIST(m, s) FIELD(LIST, m, HAS(m), #m, LIST_OF(STRUCT, m), .sub = (s))
/* A union member decoded into the union's own storage. */
#define MEMBER(s, n)                                                               \
    {.wires = WIRES_STRUCT, .kind = PF_STRUCT, .off = 0, .has = NO_HAS, .name = (n), .sub = (s)}

#define ID(i) ((uint64_t)1 << (i))
#define COUNT(a) (uint8_t)(sizeof(a) / sizeof(a)[0])

/* The descriptor of a struct with the fields `f` (a table indexed by id),
 * the required ones `req`, at least `minw` bytes on the wire; DESC_WITH adds
 * .flags or an .after hook. */
#define DESC_WITH(idl, f, req, minw, ...)                                          \
    {.name = (idl), .fields = (f), .nfields = COUNT(f), .size = sizeof(S),         \
     .required = (req), .min_wire = (minw), __VA_ARGS__}
#define DESC(idl, f, req, minw) DESC_WITH(idl, f, req, minw, .flags = 0)
/* A union of the members in `f`, its kind at member `kind` of S. */
#define UNION_DESC(idl, f, kind)                                                   \
    {.name = (idl), .fields = (f), .nfields = COUNT(f), .size = sizeof(S),         \
     .kind_off = offsetof(S, kind), .flags = PF_S_UNION, .min_wire = 1}
/* A union all of whose members are empty structs, stored as its int32_t kind. */
#define EMPTY_UNION_DESC(idl)                                                      \
    {.name = (idl), .size = sizeof(int32_t), .flags = PF_S_UNION, .min_wire = 1}

/* Offsets are kept in 16 bits. */
_Static_assert(sizeof(struct basalt_parquet_column_chunk) < PF_NO_HAS &&
                   sizeof(struct basalt_parquet_page_header) < PF_NO_HAS &&
                   sizeof(struct basalt_parquet_file_metadata) < PF_NO_HAS,
               "pf_field offsets are 16 bits");

/* ------------------------------------------------------------------ shared */

#define S struct basalt_parquet_key_value
static const struct pf_field key_value_fields[] = {
    [1] = REQ(BYTES, key),
    [2] = OPT(BYTES, value),
};
static const struct pf_struct key_value =
    DESC("KeyValue", key_value_fields, ID(1), 3);
#undef S

#define S struct basalt_parquet_statistics
static const struct pf_field statistics_fields[] = {
    [1] = OPT(BYTES, max),
    [2] = OPT(BYTES, min),
    [3] = OPT(I64, null_count),
    [4] = OPT(I64, distinct_count),
    [5] = OPT(BYTES, max_value),
    [6] = OPT(BYTES, min_value),
    [7] = OPT(BOOL, is_max_value_exact),
    [8] = OPT(BOOL, is_min_value_exact),
    [9] = OPT(I64, nan_count),
};
static const struct pf_struct statistics =
    DESC("Statistics", statistics_fields, 0, 1);
#undef S

/* Unions whose members are all empty structs: only the kind is kept. */
#define S int32_t
static const struct pf_struct time_unit = EMPTY_UNION_DESC("TimeUnit");
static const struct pf_struct column_order = EMPTY_UNION_DESC("ColumnOrder");
static const struct pf_struct bloom_filter_algorithm = EMPTY_UNION_DESC("BloomFilterAlgorithm");
static const struct pf_struct bloom_filter_hash = EMPTY_UNION_DESC("BloomFilterHash");
static const struct pf_struct bloom_filter_compression = EMPTY_UNION_DESC("BloomFilterCompression");
#undef S

/* ------------------------------------------------------------------ schema */

/* LogicalType's members keep their fields in the union's own storage. */
#define S struct basalt_parquet_logical_type
static const struct pf_field decimal_type_fields[] = {
    [1] = FIELD(I32, decimal.scale, NO_HAS, "scale", .flags = 0),
    [2] = FIELD(I32, decimal.precision, NO_HAS, "precision", .flags = 0),
};
static const struct pf_struct decimal_type =
    DESC("DecimalType", decimal_type_fields, ID(1) | ID(2), 5);

/* TimeType and TimestampType: the same fields, the same storage. */
static const struct pf_field time_type_fields[] = {
    [1] = FIELD(BOOL, time.is_adjusted_to_utc, NO_HAS, "isAdjustedToUTC", .flags = 0),
    [2] = FIELD(STRUCT, time.unit, NO_HAS, "unit", .sub = &time_unit),
};
static const struct pf_struct time_type =
    DESC("TimeType", time_type_fields, ID(1) | ID(2), 4);
static const struct pf_struct timestamp_type =
    DESC("TimestampType", time_type_fields, ID(1) | ID(2), 4);

static const struct pf_field int_type_fields[] = {
    [1] = FIELD(I8, integer.bit_width, NO_HAS, "bitWidth", .flags = 0),
    [2] = FIELD(BOOL, integer.is_signed, NO_HAS, "isSigned", .flags = 0),
};
static const struct pf_struct int_type =
    DESC("IntType", int_type_fields, ID(1) | ID(2), 4);

static const struct pf_field variant_type_fields[] = {
    [1] = FIELD(I8, variant.specification_version, offsetof(S, variant.has_specification_version),
                "specification_version", .flags = 0),
};
static const struct pf_struct variant_type =
    DESC("VariantType", variant_type_fields, 0, 1);

/* GeometryType has only the crs of GeographyType. */
static const struct pf_field geography_type_fields[] = {
    [1] = FIELD(BYTES, geo.crs, offsetof(S, geo.has_crs), "crs", .flags = 0),
    [2] = FIELD(ENUM, geo.algorithm, offsetof(S, geo.has_algorithm), "algorithm",
                .enum_name = "EdgeInterpolationAlgorithm"),
};
static const struct pf_struct geography_type =
    DESC("GeographyType", geography_type_fields, 0, 1);
static const struct pf_field geometry_type_fields[] = {
    [1] = FIELD(BYTES, geo.crs, offsetof(S, geo.has_crs), "crs", .flags = 0),
};
static const struct pf_struct geometry_type =
    DESC("GeometryType", geometry_type_fields, 0, 1);

/* The members not here (STRING, MAP, ...) are empty structs. */
static const struct pf_field logical_type_fields[] = {
    [BASALT_PARQUET_LOGICAL_TYPE_DECIMAL] = MEMBER(&decimal_type, "DECIMAL"),
    [BASALT_PARQUET_LOGICAL_TYPE_TIME] = MEMBER(&time_type, "TIME"),
    [BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP] = MEMBER(&timestamp_type, "TIMESTAMP"),
    [BASALT_PARQUET_LOGICAL_TYPE_INTEGER] = MEMBER(&int_type, "INTEGER"),
    [BASALT_PARQUET_LOGICAL_TYPE_VARIANT] = MEMBER(&variant_type, "VARIANT"),
    [BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY] = MEMBER(&geometry_type, "GEOMETRY"),
    [BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY] = MEMBER(&geography_type, "GEOGRAPHY"),
};
static const struct pf_struct logical_type =
    UNION_DESC("LogicalType", logical_type_fields, kind);
#undef S

#define S struct basalt_parquet_schema_element
static const struct pf_field schema_element_fields[] = {
    [1] = OPT_ENUM(type, "Type"),
    [2] = OPT(I32, type_length),
    [3] = OPT_ENUM(repetition_type, "FieldRepetitionType"),
    [4] = REQ(BYTES, name),
    [5] = OPT(I32, num_children),
    [6] = OPT_ENUM(converted_type, "ConvertedType"),
    [7] = OPT(I32, scale),
    [8] = OPT(I32, precision),
    [9] = OPT(I32, field_id),
    [10] = FIELD(STRUCT, logical_type, HAS(logical_type), "logicalType", .sub = &logical_type),
};
static const struct pf_struct schema_element =
    DESC("SchemaElement", schema_element_fields, ID(4), 3);
#undef S

/* ------------------------------------------------------------------ column metadata */

#define S struct basalt_parquet_size_statistics
static const struct pf_field size_statistics_fields[] = {
    [1] = OPT(I64, unencoded_byte_array_data_bytes),
    [2] = OPT_LIST(I64, repetition_level_histogram),
    [3] = OPT_LIST(I64, definition_level_histogram),
};
static const struct pf_struct size_statistics =
    DESC("SizeStatistics", size_statistics_fields, 0, 1);
#undef S

#define S struct basalt_parquet_bounding_box
static const struct pf_field bounding_box_fields[] = {
    [1] = REQ(DOUBLE, xmin), [2] = REQ(DOUBLE, xmax),
    [3] = REQ(DOUBLE, ymin), [4] = REQ(DOUBLE, ymax),
    [5] = OPT(DOUBLE, zmin), [6] = OPT(DOUBLE, zmax),
    [7] = OPT(DOUBLE, mmin), [8] = OPT(DOUBLE, mmax),
};
static const struct pf_struct bounding_box =
    DESC("BoundingBox", bounding_box_fields, ID(1) | ID(2) | ID(3) | ID(4), 37);
#undef S

#define S struct basalt_parquet_geospatial_statistics
static const struct pf_field geospatial_statistics_fields[] = {
    [1] = OPT_STRUCT(bbox, &bounding_box),
    [2] = OPT_LIST(I32, geospatial_types),
};
static const struct pf_struct geospatial_statistics =
    DESC("GeospatialStatistics", geospatial_statistics_fields, 0, 1);
#undef S

#define S struct basalt_parquet_page_encoding_stats
static const struct pf_field page_encoding_stats_fields[] = {
    [1] = REQ_ENUM(page_type, "PageType"),
    [2] = REQ_ENUM(encoding, "Encoding"),
    [3] = REQ(I32, count),
};
static const struct pf_struct page_encoding_stats =
    DESC("PageEncodingStats", page_encoding_stats_fields, ID(1) | ID(2) | ID(3), 7);
#undef S

#define S struct basalt_parquet_column_metadata
static const struct pf_field column_metadata_fields[] = {
    [1] = REQ_ENUM(type, "Type"),
    [2] = REQ_ENUM_LIST(encodings, "Encoding"),
    [3] = REQ_LIST(BYTES, path_in_schema),
    [4] = REQ_ENUM(codec, "CompressionCodec"),
    [5] = REQ(I64, num_values),
    [6] = REQ(I64, total_uncompressed_size),
    [7] = REQ(I64, total_compressed_size),
    [8] = OPT_STRUCT_LIST(key_value_metadata, &key_value),
    [9] = REQ(I64, data_page_offset),
    [10] = OPT(I64, index_page_offset),
    [11] = OPT(I64, dictionary_page_offset),
    [12] = OPT_STRUCT(statistics, &statistics),
    [13] = OPT_STRUCT_LIST(encoding_stats, &page_encoding_stats),
    [14] = OPT(I64, bloom_filter_offset),
    [15] = OPT(I32, bloom_filter_length),
    [16] = OPT_STRUCT(size_statistics, &size_statistics),
    /* Rare, so out of line. */
    [17] = OPT_PTR(geospatial_statistics, &geospatial_statistics),
};
const struct pf_struct basalt_thrift_pf_column_metadata =
    DESC("ColumnMetaData", column_metadata_fields,
         ID(1) | ID(2) | ID(3) | ID(4) | ID(5) | ID(6) | ID(7) | ID(9), 17);
#undef S

/* ------------------------------------------------------------------ column chunk */

/* ColumnCryptoMetaData: EncryptionWithFooterKey (1) is empty. */
#define S struct basalt_parquet_column_crypto_metadata
static const struct pf_field encryption_with_column_key_fields[] = {
    [1] = REQ_LIST(BYTES, path_in_schema),
    [2] = OPT(BYTES, key_metadata),
};
static const struct pf_struct encryption_with_column_key =
    DESC("EncryptionWithColumnKey", encryption_with_column_key_fields, ID(1), 3);
static const struct pf_field column_crypto_metadata_fields[] = {
    [BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY] =
        MEMBER(&encryption_with_column_key, "ENCRYPTION_WITH_COLUMN_KEY"),
};
static const struct pf_struct column_crypto_metadata =
    UNION_DESC("ColumnCryptoMetaData", column_crypto_metadata_fields, kind);
#undef S

/* A file whose footer is plaintext may still have encrypted columns, which
 * cannot be read without keys: FileMetaData.has_encrypted_columns says so. */
static basalt_status column_chunk_after(struct pf_dec *d, void *obj)
{
    const struct basalt_parquet_column_chunk *c = obj;
    if (c->has_crypto_metadata || c->has_encrypted_column_metadata)
        d->encrypted_columns = true;
    return BASALT_OK;
}

#define S struct basalt_parquet_column_chunk
static const struct pf_field column_chunk_fields[] = {
    [1] = OPT(BYTES, file_path),
    [2] = REQ(I64, file_offset),
    [3] = OPT_STRUCT(meta_data, &basalt_thrift_pf_column_metadata),
    [4] = OPT(I64, offset_index_offset),
    [5] = OPT(I32, offset_index_length),
    [6] = OPT(I64, column_index_offset),
    [7] = OPT(I32, column_index_length),
    [8] = OPT_PTR(crypto_metadata, &column_crypto_metadata),
    [9] = OPT(BYTES, encrypted_column_metadata),
};
static const struct pf_struct column_chunk =
    DESC_WITH("ColumnChunk", column_chunk_fields, ID(2), 3, .after = column_chunk_after);
#undef S

/* ------------------------------------------------------------------ row group */

#define S struct basalt_parquet_sorting_column
static const struct pf_field sorting_column_fields[] = {
    [1] = REQ(I32, column_idx),
    [2] = REQ(BOOL, descending),
    [3] = REQ(BOOL, nulls_first),
};
static const struct pf_struct sorting_column =
    DESC("SortingColumn", sorting_column_fields, ID(1) | ID(2) | ID(3), 5);
#undef S

#define S struct basalt_parquet_row_group
static const struct pf_field row_group_fields[] = {
    [1] = REQ_STRUCT_LIST(columns, &column_chunk),
    [2] = REQ(I64, total_byte_size),
    [3] = REQ(I64, num_rows),
    [4] = OPT_STRUCT_LIST(sorting_columns, &sorting_column),
    [5] = OPT(I64, file_offset),
    [6] = OPT(I64, total_compressed_size),
    [7] = OPT(I16, ordinal),
};
static const struct pf_struct row_group =
    DESC("RowGroup", row_group_fields, ID(1) | ID(2) | ID(3), 7);
#undef S

/* ------------------------------------------------------------------ file */

/* AesGcmV1 and AesGcmCtrV1: the same fields, the same storage. */
#define S struct basalt_parquet_encryption_algorithm
static const struct pf_field aes_gcm_v1_fields[] = {
    [1] = OPT(BYTES, aad_prefix),
    [2] = OPT(BYTES, aad_file_unique),
    [3] = OPT(BOOL, supply_aad_prefix),
};
static const struct pf_struct aes_gcm_v1 =
    DESC("AesGcmV1", aes_gcm_v1_fields, 0, 1);
static const struct pf_struct aes_gcm_ctr_v1 = DESC("AesGcmCtrV1", aes_gcm_v1_fields, 0, 1);
static const struct pf_field encryption_algorithm_fields[] = {
    [BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1] = MEMBER(&aes_gcm_v1, "AES_GCM_V1"),
    [BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1] =
        MEMBER(&aes_gcm_ctr_v1, "AES_GCM_CTR_V1"),
};
static const struct pf_struct encryption_algorithm =
    UNION_DESC("EncryptionAlgorithm", encryption_algorithm_fields, kind);
#undef S

#define S struct basalt_parquet_file_metadata
static const struct pf_field file_metadata_fields[] = {
    [1] = REQ(I32, version),
    [2] = REQ_STRUCT_LIST(schema, &schema_element),
    [3] = REQ(I64, num_rows),
    [4] = REQ_STRUCT_LIST(row_groups, &row_group),
    [5] = OPT_STRUCT_LIST(key_value_metadata, &key_value),
    [6] = OPT(BYTES, created_by),
    [7] = OPT_STRUCT_LIST(column_orders, &column_order),
    [8] = OPT_STRUCT(encryption_algorithm, &encryption_algorithm),
    [9] = OPT(BYTES, footer_signing_key_metadata),
};
static basalt_status file_metadata_after(struct pf_dec *d, void *obj)
{
    struct basalt_parquet_file_metadata *md = obj;
    md->has_encrypted_columns = d->encrypted_columns;
    return BASALT_OK;
}
const struct pf_struct basalt_thrift_pf_file_metadata =
    DESC_WITH("FileMetaData", file_metadata_fields, ID(1) | ID(2) | ID(3) | ID(4), 9,
              .after = file_metadata_after);
#undef S

#define S struct basalt_parquet_file_crypto_metadata
static const struct pf_field file_crypto_metadata_fields[] = {
    [1] = REQ_STRUCT(encryption_algorithm, &encryption_algorithm),
    [2] = OPT(BYTES, key_metadata),
};
const struct pf_struct basalt_thrift_pf_file_crypto_metadata =
    DESC("FileCryptoMetaData", file_crypto_metadata_fields, ID(1), 3);
#undef S

/* ------------------------------------------------------------------ pages */

#define S struct basalt_parquet_data_page_header
static const struct pf_field data_page_header_fields[] = {
    [1] = REQ(I32, num_values),
    [2] = REQ_ENUM(encoding, "Encoding"),
    [3] = REQ_ENUM(definition_level_encoding, "Encoding"),
    [4] = REQ_ENUM(repetition_level_encoding, "Encoding"),
    [5] = OPT_STRUCT(statistics, &statistics),
};
static const struct pf_struct data_page_header =
    DESC("DataPageHeader", data_page_header_fields, ID(1) | ID(2) | ID(3) | ID(4), 9);
#undef S

/* IndexPageHeader has no fields: what a later version puts there is skipped. */
static const struct pf_struct index_page_header = {.name = "IndexPageHeader", .min_wire = 1};

#define S struct basalt_parquet_dictionary_page_header
static const struct pf_field dictionary_page_header_fields[] = {
    [1] = REQ(I32, num_values),
    [2] = REQ_ENUM(encoding, "Encoding"),
    [3] = OPT(BOOL, is_sorted),
};
static const struct pf_struct dictionary_page_header =
    DESC("DictionaryPageHeader", dictionary_page_header_fields, ID(1) | ID(2), 5);
#undef S

#define S struct basalt_parquet_data_page_header_v2
static const struct pf_field data_page_header_v2_fields[] = {
    [1] = REQ(I32, num_values),
    [2] = REQ(I32, num_nulls),
    [3] = REQ(I32, num_rows),
    [4] = REQ_ENUM(encoding, "Encoding"),
    [5] = REQ(I32, definition_levels_byte_length),
    [6] = REQ(I32, repetition_levels_byte_length),
    [7] = FIELD(BOOL, is_compressed, HAS(is_compressed), "is_compressed",
                .flags = PF_F_DEFAULT_TRUE),
    [8] = OPT_STRUCT(statistics, &statistics),
};
static const struct pf_struct data_page_header_v2 =
    DESC_WITH("DataPageHeaderV2", data_page_header_v2_fields,
              ID(1) | ID(2) | ID(3) | ID(4) | ID(5) | ID(6), 13, .flags = PF_S_DEFAULTS);
#undef S

#define S struct basalt_parquet_page_header
static const struct pf_field page_header_fields[] = {
    [1] = REQ_ENUM(type, "PageType"),
    [2] = REQ(I32, uncompressed_page_size),
    [3] = REQ(I32, compressed_page_size),
    [4] = OPT(I32, crc),
    [5] = OPT_STRUCT(data_page_header, &data_page_header),
    /* No storage: has_index_page_header says it was there. */
    [6] = {.wires = WIRES_STRUCT, .kind = PF_STRUCT, .off = 0, .has = HAS(index_page_header),
           .name = "index_page_header", .sub = &index_page_header},
    [7] = OPT_STRUCT(dictionary_page_header, &dictionary_page_header),
    [8] = OPT_STRUCT(data_page_header_v2, &data_page_header_v2),
};
/* PF_S_DEFAULTS: data_page_header_v2.is_compressed reads as true even when
 * the page has no v2 header. */
const struct pf_struct basalt_thrift_pf_page_header =
    DESC_WITH("PageHeader", page_header_fields, ID(1) | ID(2) | ID(3), 7,
              .flags = PF_S_DEFAULTS);
#undef S

/* ------------------------------------------------------------------ page index */

#define S struct basalt_parquet_column_index
static const struct pf_field column_index_fields[] = {
    [1] = REQ_LIST(BOOL, null_pages),
    [2] = REQ_LIST(BYTES, min_values),
    [3] = REQ_LIST(BYTES, max_values),
    [4] = REQ_ENUM(boundary_order, "BoundaryOrder"),
    [5] = OPT_LIST(I64, null_counts),
    [6] = OPT_LIST(I64, repetition_level_histograms),
    [7] = OPT_LIST(I64, definition_level_histograms),
    [8] = OPT_LIST(I64, nan_counts),
};
const struct pf_struct basalt_thrift_pf_column_index =
    DESC("ColumnIndex", column_index_fields, ID(1) | ID(2) | ID(3) | ID(4), 9);
#undef S

#define S struct basalt_parquet_page_location
static const struct pf_field page_location_fields[] = {
    [1] = REQ(I64, offset),
    [2] = REQ(I32, compressed_page_size),
    [3] = REQ(I64, first_row_index),
};
static const struct pf_struct page_location =
    DESC("PageLocation", page_location_fields, ID(1) | ID(2) | ID(3), 7);
#undef S

#define S struct basalt_parquet_offset_index
static const struct pf_field offset_index_fields[] = {
    [1] = REQ_STRUCT_LIST(page_locations, &page_location),
    [2] = OPT_LIST(I64, unencoded_byte_array_data_bytes),
};
const struct pf_struct basalt_thrift_pf_offset_index =
    DESC("OffsetIndex", offset_index_fields, ID(1), 3);
#undef S

/* ------------------------------------------------------------------ bloom filter */

#define S struct basalt_parquet_bloom_filter_header
static const struct pf_field bloom_filter_header_fields[] = {
    [1] = FIELD(I32, num_bytes, NO_HAS, "numBytes", .flags = 0),
    [2] = REQ_STRUCT(algorithm, &bloom_filter_algorithm),
    [3] = REQ_STRUCT(hash, &bloom_filter_hash),
    [4] = REQ_STRUCT(compression, &bloom_filter_compression),
};
const struct pf_struct basalt_thrift_pf_bloom_filter_header =
    DESC("BloomFilterHeader", bloom_filter_header_fields, ID(1) | ID(2) | ID(3) | ID(4), 9);
#undef S

/* ------------------------------------------------------------------ all */

const struct pf_struct *const basalt_thrift_pf_all_structs[] = {
    &key_value, &statistics, &time_unit, &column_order, &bloom_filter_algorithm,
    &bloom_filter_hash, &bloom_filter_compression, &decimal_type, &time_type, &timestamp_type,
    &int_type, &variant_type, &geography_type, &geometry_type, &logical_type, &schema_element,
    &size_statistics, &bounding_box, &geospatial_statistics, &page_encoding_stats,
    &basalt_thrift_pf_column_metadata, &encryption_with_column_key, &column_crypto_metadata,
    &column_chunk,
    &sorting_column, &row_group, &aes_gcm_v1, &aes_gcm_ctr_v1, &encryption_algorithm,
    &basalt_thrift_pf_file_metadata, &basalt_thrift_pf_file_crypto_metadata, &data_page_header,
    &index_page_header, &dictionary_page_header, &data_page_header_v2,
    &basalt_thrift_pf_page_header, &basalt_thrift_pf_column_index, &page_location,
    &basalt_thrift_pf_offset_index, &basalt_thrift_pf_bloom_filter_header,
};
const size_t basalt_thrift_pf_num_structs =
    sizeof basalt_thrift_pf_all_structs / sizeof basalt_thrift_pf_all_structs[0];
