/* basalt thrift: Parquet's metadata structures (parquet.thrift of
 * apache/parquet-format 2.12) and their compact-protocol decoders and
 * encoders.
 *
 * The C structs mirror the Thrift ones field for field. Optional fields have
 * a `has_` flag; a field whose flag is false holds zero (except where an IDL
 * default says otherwise, as for is_compressed). Enum-typed fields are
 * int32_t holding the value as read, so values added to the format later are
 * kept rather than rejected (a negative one, which no version uses, is
 * CORRUPT); the enums below name the known ones. Lists are a pointer and a
 * count. Strings and binaries are copied into the caller's arena and
 * NUL-terminated there (the NUL is not counted in `len`), so they stay valid
 * after the input bytes are gone.
 *
 * Decoding skips fields it does not know (forward compatibility) and fields
 * whose wire type differs from the IDL's, as the generated Thrift code of the
 * reference implementations does. Lists of integers accept i16, i32 and i64
 * elements alike (all zigzag varints; some writers announce the wrong one).
 * A missing required field is CORRUPT, and the message names the struct and
 * the field with the path to it, e.g. "FileMetaData: row_groups[3]:
 * columns[7]: meta_data: ColumnMetaData: required field 'num_values' (5) is
 * missing (at byte 1234)".
 *
 * Thread safety: the functions keep no state; concurrent calls need distinct
 * arenas. */
#ifndef BASALT_PARQUET_FORMAT_H
#define BASALT_PARQUET_FORMAT_H

#include "basalt/core.h"
#include "basalt/thrift.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ enums */

enum basalt_parquet_type {
    BASALT_PARQUET_TYPE_BOOLEAN = 0,
    BASALT_PARQUET_TYPE_INT32 = 1,
    BASALT_PARQUET_TYPE_INT64 = 2,
    BASALT_PARQUET_TYPE_INT96 = 3,
    BASALT_PARQUET_TYPE_FLOAT = 4,
    BASALT_PARQUET_TYPE_DOUBLE = 5,
    BASALT_PARQUET_TYPE_BYTE_ARRAY = 6,
    BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY = 7
};

enum basalt_parquet_converted_type {
    BASALT_PARQUET_CONVERTED_TYPE_UTF8 = 0,
    BASALT_PARQUET_CONVERTED_TYPE_MAP = 1,
    BASALT_PARQUET_CONVERTED_TYPE_MAP_KEY_VALUE = 2,
    BASALT_PARQUET_CONVERTED_TYPE_LIST = 3,
    BASALT_PARQUET_CONVERTED_TYPE_ENUM = 4,
    BASALT_PARQUET_CONVERTED_TYPE_DECIMAL = 5,
    BASALT_PARQUET_CONVERTED_TYPE_DATE = 6,
    BASALT_PARQUET_CONVERTED_TYPE_TIME_MILLIS = 7,
    BASALT_PARQUET_CONVERTED_TYPE_TIME_MICROS = 8,
    BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MILLIS = 9,
    BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MICROS = 10,
    BASALT_PARQUET_CONVERTED_TYPE_UINT_8 = 11,
    BASALT_PARQUET_CONVERTED_TYPE_UINT_16 = 12,
    BASALT_PARQUET_CONVERTED_TYPE_UINT_32 = 13,
    BASALT_PARQUET_CONVERTED_TYPE_UINT_64 = 14,
    BASALT_PARQUET_CONVERTED_TYPE_INT_8 = 15,
    BASALT_PARQUET_CONVERTED_TYPE_INT_16 = 16,
    BASALT_PARQUET_CONVERTED_TYPE_INT_32 = 17,
    BASALT_PARQUET_CONVERTED_TYPE_INT_64 = 18,
    BASALT_PARQUET_CONVERTED_TYPE_JSON = 19,
    BASALT_PARQUET_CONVERTED_TYPE_BSON = 20,
    BASALT_PARQUET_CONVERTED_TYPE_INTERVAL = 21
};

enum basalt_parquet_field_repetition_type {
    BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED = 0,
    BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL = 1,
    BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED = 2
};

enum basalt_parquet_encoding {
    BASALT_PARQUET_ENCODING_PLAIN = 0,
    BASALT_PARQUET_ENCODING_PLAIN_DICTIONARY = 2,
    BASALT_PARQUET_ENCODING_RLE = 3,
    BASALT_PARQUET_ENCODING_BIT_PACKED = 4,
    BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED = 5,
    BASALT_PARQUET_ENCODING_DELTA_LENGTH_BYTE_ARRAY = 6,
    BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY = 7,
    BASALT_PARQUET_ENCODING_RLE_DICTIONARY = 8,
    BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT = 9,
    BASALT_PARQUET_ENCODING_ALP = 10
};

enum basalt_parquet_compression_codec {
    BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED = 0,
    BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY = 1,
    BASALT_PARQUET_COMPRESSION_CODEC_GZIP = 2,
    BASALT_PARQUET_COMPRESSION_CODEC_LZO = 3,
    BASALT_PARQUET_COMPRESSION_CODEC_BROTLI = 4,
    BASALT_PARQUET_COMPRESSION_CODEC_LZ4 = 5,
    BASALT_PARQUET_COMPRESSION_CODEC_ZSTD = 6,
    BASALT_PARQUET_COMPRESSION_CODEC_LZ4_RAW = 7
};

enum basalt_parquet_page_type {
    BASALT_PARQUET_PAGE_TYPE_DATA_PAGE = 0,
    BASALT_PARQUET_PAGE_TYPE_INDEX_PAGE = 1,
    BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE = 2,
    BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2 = 3
};

enum basalt_parquet_boundary_order {
    BASALT_PARQUET_BOUNDARY_ORDER_UNORDERED = 0,
    BASALT_PARQUET_BOUNDARY_ORDER_ASCENDING = 1,
    BASALT_PARQUET_BOUNDARY_ORDER_DESCENDING = 2
};

enum basalt_parquet_edge_interpolation_algorithm {
    BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_SPHERICAL = 0,
    BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_VINCENTY = 1,
    BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_THOMAS = 2,
    BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_ANDOYER = 3,
    BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_KARNEY = 4
};

/* Thrift unions are a `kind` holding the field id of the member that was
 * set (0: none). A member this version does not know keeps its id as the
 * kind, its contents skipped, so a reader can tell "unknown" from "absent".
 * Members are structs with positive ids; other fields are skipped. */

enum basalt_parquet_logical_type_kind {
    BASALT_PARQUET_LOGICAL_TYPE_NONE = 0,
    BASALT_PARQUET_LOGICAL_TYPE_STRING = 1,
    BASALT_PARQUET_LOGICAL_TYPE_MAP = 2,
    BASALT_PARQUET_LOGICAL_TYPE_LIST = 3,
    BASALT_PARQUET_LOGICAL_TYPE_ENUM = 4,
    BASALT_PARQUET_LOGICAL_TYPE_DECIMAL = 5,
    BASALT_PARQUET_LOGICAL_TYPE_DATE = 6,
    BASALT_PARQUET_LOGICAL_TYPE_TIME = 7,
    BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP = 8,
    BASALT_PARQUET_LOGICAL_TYPE_INTEGER = 10,
    BASALT_PARQUET_LOGICAL_TYPE_UNKNOWN = 11, /* the format's name for "always null" */
    BASALT_PARQUET_LOGICAL_TYPE_JSON = 12,
    BASALT_PARQUET_LOGICAL_TYPE_BSON = 13,
    BASALT_PARQUET_LOGICAL_TYPE_UUID = 14,
    BASALT_PARQUET_LOGICAL_TYPE_FLOAT16 = 15,
    BASALT_PARQUET_LOGICAL_TYPE_VARIANT = 16,
    BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY = 17,
    BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY = 18,
    BASALT_PARQUET_LOGICAL_TYPE_FILE = 19
};

enum basalt_parquet_time_unit {
    BASALT_PARQUET_TIME_UNIT_NONE = 0,
    BASALT_PARQUET_TIME_UNIT_MILLIS = 1,
    BASALT_PARQUET_TIME_UNIT_MICROS = 2,
    BASALT_PARQUET_TIME_UNIT_NANOS = 3
};

enum basalt_parquet_column_order_kind {
    BASALT_PARQUET_COLUMN_ORDER_NONE = 0,
    BASALT_PARQUET_COLUMN_ORDER_TYPE_ORDER = 1,
    BASALT_PARQUET_COLUMN_ORDER_IEEE_754_TOTAL_ORDER = 2,
    BASALT_PARQUET_COLUMN_ORDER_INT96_TIMESTAMP_ORDER = 3
};

enum basalt_parquet_column_crypto_kind {
    BASALT_PARQUET_COLUMN_CRYPTO_NONE = 0,
    BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_FOOTER_KEY = 1,
    BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY = 2
};

enum basalt_parquet_encryption_algorithm_kind {
    BASALT_PARQUET_ENCRYPTION_ALGORITHM_NONE = 0,
    BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 = 1,
    BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1 = 2
};

enum basalt_parquet_bloom_filter_algorithm {
    BASALT_PARQUET_BLOOM_FILTER_ALGORITHM_NONE = 0,
    BASALT_PARQUET_BLOOM_FILTER_ALGORITHM_BLOCK = 1
};

enum basalt_parquet_bloom_filter_hash {
    BASALT_PARQUET_BLOOM_FILTER_HASH_NONE = 0,
    BASALT_PARQUET_BLOOM_FILTER_HASH_XXHASH = 1
};

enum basalt_parquet_bloom_filter_compression {
    BASALT_PARQUET_BLOOM_FILTER_COMPRESSION_NONE = 0,
    BASALT_PARQUET_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED = 1
};

/* ------------------------------------------------------------------ values */

/* A Thrift string (names, paths, key/value metadata). NUL-terminated in the
 * arena; `data` is NULL only for an absent optional field. */
struct basalt_parquet_string {
    const char *data;
    size_t len;
};

/* A Thrift binary (statistics bounds, key metadata). Same storage. */
struct basalt_parquet_binary {
    const uint8_t *data;
    size_t len;
};

struct basalt_parquet_key_value {
    struct basalt_parquet_string key;
    bool has_value;
    struct basalt_parquet_string value;
};

struct basalt_parquet_statistics {
    bool has_max, has_min, has_null_count, has_distinct_count;
    bool has_max_value, has_min_value, has_is_max_value_exact, has_is_min_value_exact;
    bool has_nan_count;
    bool is_max_value_exact;
    bool is_min_value_exact;
    struct basalt_parquet_binary max; /* deprecated signed-order bounds */
    struct basalt_parquet_binary min;
    int64_t null_count;
    int64_t distinct_count;
    struct basalt_parquet_binary max_value;
    struct basalt_parquet_binary min_value;
    int64_t nan_count;
};

struct basalt_parquet_size_statistics {
    bool has_unencoded_byte_array_data_bytes;
    bool has_repetition_level_histogram;
    bool has_definition_level_histogram;
    int64_t unencoded_byte_array_data_bytes;
    const int64_t *repetition_level_histogram;
    size_t num_repetition_level_histogram;
    const int64_t *definition_level_histogram;
    size_t num_definition_level_histogram;
};

struct basalt_parquet_bounding_box {
    double xmin, xmax, ymin, ymax;
    bool has_zmin, has_zmax, has_mmin, has_mmax;
    double zmin, zmax, mmin, mmax;
};

struct basalt_parquet_geospatial_statistics {
    bool has_bbox;
    bool has_geospatial_types;
    struct basalt_parquet_bounding_box bbox;
    const int32_t *geospatial_types;
    size_t num_geospatial_types;
};

/* ------------------------------------------------------------------ schema */

/* LogicalType. Only the member matching `kind` is meaningful. */
struct basalt_parquet_logical_type {
    int32_t kind; /* enum basalt_parquet_logical_type_kind */
    struct {
        int32_t scale;
        int32_t precision;
    } decimal;
    struct { /* TIME and TIMESTAMP */
        bool is_adjusted_to_utc;
        int32_t unit; /* enum basalt_parquet_time_unit; an unknown member keeps its id */
    } time;
    struct {
        int8_t bit_width;
        bool is_signed;
    } integer;
    struct {
        bool has_specification_version;
        int8_t specification_version;
    } variant;
    struct { /* GEOMETRY and GEOGRAPHY (GEOMETRY has no algorithm) */
        bool has_crs;
        bool has_algorithm;
        struct basalt_parquet_string crs;
        int32_t algorithm; /* enum basalt_parquet_edge_interpolation_algorithm */
    } geo;
};

struct basalt_parquet_schema_element {
    bool has_type, has_type_length, has_repetition_type, has_num_children;
    bool has_converted_type, has_scale, has_precision, has_field_id, has_logical_type;
    int32_t type; /* enum basalt_parquet_type */
    int32_t type_length;
    int32_t repetition_type; /* enum basalt_parquet_field_repetition_type */
    struct basalt_parquet_string name;
    int32_t num_children;
    int32_t converted_type; /* enum basalt_parquet_converted_type */
    int32_t scale;
    int32_t precision;
    int32_t field_id;
    struct basalt_parquet_logical_type logical_type;
};

/* ------------------------------------------------------------------ row groups */

struct basalt_parquet_page_encoding_stats {
    int32_t page_type; /* enum basalt_parquet_page_type */
    int32_t encoding;  /* enum basalt_parquet_encoding */
    int32_t count;
};

struct basalt_parquet_column_metadata {
    bool has_key_value_metadata, has_index_page_offset, has_dictionary_page_offset;
    bool has_statistics, has_encoding_stats, has_bloom_filter_offset, has_bloom_filter_length;
    bool has_size_statistics, has_geospatial_statistics;
    int32_t type;             /* enum basalt_parquet_type */
    const int32_t *encodings; /* enum basalt_parquet_encoding */
    size_t num_encodings;
    const struct basalt_parquet_string *path_in_schema;
    size_t num_path_in_schema;
    int32_t codec; /* enum basalt_parquet_compression_codec */
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    const struct basalt_parquet_key_value *key_value_metadata;
    size_t num_key_value_metadata;
    int64_t data_page_offset;
    int64_t index_page_offset;
    int64_t dictionary_page_offset;
    struct basalt_parquet_statistics statistics;
    const struct basalt_parquet_page_encoding_stats *encoding_stats;
    size_t num_encoding_stats;
    int64_t bloom_filter_offset;
    int32_t bloom_filter_length;
    struct basalt_parquet_size_statistics size_statistics;
    /* Rare, so kept out of line: non-NULL exactly when has_geospatial_statistics. */
    const struct basalt_parquet_geospatial_statistics *geospatial_statistics;
};

/* ColumnCryptoMetaData. */
struct basalt_parquet_column_crypto_metadata {
    int32_t kind; /* enum basalt_parquet_column_crypto_kind */
    /* ENCRYPTION_WITH_COLUMN_KEY: */
    const struct basalt_parquet_string *path_in_schema;
    size_t num_path_in_schema;
    bool has_key_metadata;
    struct basalt_parquet_binary key_metadata;
};

struct basalt_parquet_column_chunk {
    bool has_file_path, has_meta_data, has_offset_index_offset, has_offset_index_length;
    bool has_column_index_offset, has_column_index_length, has_crypto_metadata;
    bool has_encrypted_column_metadata;
    struct basalt_parquet_string file_path;
    int64_t file_offset;
    struct basalt_parquet_column_metadata meta_data;
    int64_t offset_index_offset;
    int32_t offset_index_length;
    int64_t column_index_offset;
    int32_t column_index_length;
    /* Non-NULL exactly when has_crypto_metadata. */
    const struct basalt_parquet_column_crypto_metadata *crypto_metadata;
    struct basalt_parquet_binary encrypted_column_metadata;
};

struct basalt_parquet_sorting_column {
    int32_t column_idx;
    bool descending;
    bool nulls_first;
};

struct basalt_parquet_row_group {
    bool has_sorting_columns, has_file_offset, has_total_compressed_size, has_ordinal;
    const struct basalt_parquet_column_chunk *columns;
    size_t num_columns;
    int64_t total_byte_size;
    int64_t num_rows;
    const struct basalt_parquet_sorting_column *sorting_columns;
    size_t num_sorting_columns;
    int64_t file_offset;
    int64_t total_compressed_size;
    int16_t ordinal;
};

/* ------------------------------------------------------------------ file */

/* EncryptionAlgorithm: AesGcmV1 and AesGcmCtrV1 have the same fields. */
struct basalt_parquet_encryption_algorithm {
    int32_t kind; /* enum basalt_parquet_encryption_algorithm_kind */
    bool has_aad_prefix, has_aad_file_unique, has_supply_aad_prefix;
    bool supply_aad_prefix;
    struct basalt_parquet_binary aad_prefix;
    struct basalt_parquet_binary aad_file_unique;
};

struct basalt_parquet_file_metadata {
    bool has_key_value_metadata, has_created_by, has_column_orders;
    bool has_encryption_algorithm, has_footer_signing_key_metadata;
    int32_t version;
    const struct basalt_parquet_schema_element *schema;
    size_t num_schema;
    int64_t num_rows;
    const struct basalt_parquet_row_group *row_groups;
    size_t num_row_groups;
    const struct basalt_parquet_key_value *key_value_metadata;
    size_t num_key_value_metadata;
    struct basalt_parquet_string created_by;
    const int32_t *column_orders; /* enum basalt_parquet_column_order_kind, one per leaf */
    size_t num_column_orders;
    struct basalt_parquet_encryption_algorithm encryption_algorithm;
    struct basalt_parquet_binary footer_signing_key_metadata;
    /* Derived by the decoder, not encoded: some column chunk carries
     * crypto_metadata or encrypted_column_metadata (a plaintext-footer
     * encrypted file). Such columns cannot be read without keys. */
    bool has_encrypted_columns;
};

/* FileCryptoMetaData: the plaintext prefix of an encrypted ("PARE") footer. */
struct basalt_parquet_file_crypto_metadata {
    struct basalt_parquet_encryption_algorithm encryption_algorithm;
    bool has_key_metadata;
    struct basalt_parquet_binary key_metadata;
};

/* ------------------------------------------------------------------ pages */

struct basalt_parquet_data_page_header {
    bool has_statistics;
    int32_t num_values;
    int32_t encoding;                  /* enum basalt_parquet_encoding */
    int32_t definition_level_encoding; /* enum basalt_parquet_encoding */
    int32_t repetition_level_encoding; /* enum basalt_parquet_encoding */
    struct basalt_parquet_statistics statistics;
};

struct basalt_parquet_dictionary_page_header {
    bool has_is_sorted;
    int32_t num_values;
    int32_t encoding; /* enum basalt_parquet_encoding */
    bool is_sorted;
};

struct basalt_parquet_data_page_header_v2 {
    bool has_is_compressed, has_statistics;
    int32_t num_values;
    int32_t num_nulls;
    int32_t num_rows;
    int32_t encoding; /* enum basalt_parquet_encoding */
    int32_t definition_levels_byte_length;
    int32_t repetition_levels_byte_length;
    bool is_compressed; /* true when absent, the IDL's default */
    struct basalt_parquet_statistics statistics;
};

struct basalt_parquet_page_header {
    bool has_crc, has_data_page_header, has_index_page_header, has_dictionary_page_header;
    bool has_data_page_header_v2;
    int32_t type; /* enum basalt_parquet_page_type */
    int32_t uncompressed_page_size;
    int32_t compressed_page_size;
    int32_t crc;
    struct basalt_parquet_data_page_header data_page_header;
    /* IndexPageHeader has no fields: has_index_page_header says it was there. */
    struct basalt_parquet_dictionary_page_header dictionary_page_header;
    struct basalt_parquet_data_page_header_v2 data_page_header_v2;
};

/* ------------------------------------------------------------------ page index */

struct basalt_parquet_page_location {
    int64_t offset;
    int32_t compressed_page_size;
    int64_t first_row_index;
};

struct basalt_parquet_offset_index {
    bool has_unencoded_byte_array_data_bytes;
    const struct basalt_parquet_page_location *page_locations;
    size_t num_page_locations;
    const int64_t *unencoded_byte_array_data_bytes;
    size_t num_unencoded_byte_array_data_bytes;
};

/* The lists' lengths are kept as read, each with its own count: checking
 * that they agree with each other and with the offset index is the reader's
 * business. */
struct basalt_parquet_column_index {
    bool has_null_counts, has_repetition_level_histograms, has_definition_level_histograms;
    bool has_nan_counts;
    const bool *null_pages;
    size_t num_null_pages;
    const struct basalt_parquet_binary *min_values;
    size_t num_min_values;
    const struct basalt_parquet_binary *max_values;
    size_t num_max_values;
    int32_t boundary_order; /* enum basalt_parquet_boundary_order */
    const int64_t *null_counts;
    size_t num_null_counts;
    const int64_t *repetition_level_histograms;
    size_t num_repetition_level_histograms;
    const int64_t *definition_level_histograms;
    size_t num_definition_level_histograms;
    const int64_t *nan_counts;
    size_t num_nan_counts;
};

struct basalt_parquet_bloom_filter_header {
    int32_t num_bytes;
    int32_t algorithm;   /* enum basalt_parquet_bloom_filter_algorithm */
    int32_t hash;        /* enum basalt_parquet_bloom_filter_hash */
    int32_t compression; /* enum basalt_parquet_bloom_filter_compression */
};

/* ------------------------------------------------------------------ decoding */

/* Every decoder reads one structure from the start of [data, data + len)
 * (bytes after it are ignored), with `limits` (NULL: defaults) bounding
 * nesting, list and binary sizes and the arena bytes taken. `out` is
 * overwritten; its lists and strings live in `arena` (borrowed; the caller
 * resets it) and do not point into `data`. On failure `out` is unspecified
 * and the arena may hold partial allocations (released by its reset).
 * Returns OK, CORRUPT (malformed bytes, a missing required field, a union
 * with two members), LIMIT, or NOMEM. */

BASALT_EXPORT basalt_status basalt_thrift_decode_file_metadata(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_file_metadata *out,
    struct basalt_error *err);

/* Also stores the header's length in bytes in `*header_len` (the page body
 * follows it). A caller that passed only a prefix of the page and gets
 * CORRUPT may retry with more bytes. */
BASALT_EXPORT basalt_status basalt_thrift_decode_page_header(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_page_header *out,
    size_t *header_len, struct basalt_error *err);

BASALT_EXPORT basalt_status basalt_thrift_decode_column_index(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_column_index *out,
    struct basalt_error *err);

BASALT_EXPORT basalt_status basalt_thrift_decode_offset_index(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_offset_index *out,
    struct basalt_error *err);

/* Also stores the header's length in `*header_len`: the bitset follows it. */
BASALT_EXPORT basalt_status basalt_thrift_decode_bloom_filter_header(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_bloom_filter_header *out,
    size_t *header_len, struct basalt_error *err);

/* Also stores the structure's length in `*consumed`: the encrypted footer
 * follows it. */
BASALT_EXPORT basalt_status basalt_thrift_decode_file_crypto_metadata(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_file_crypto_metadata *out,
    size_t *consumed, struct basalt_error *err);

/* A ColumnMetaData serialized on its own: the plaintext of a column chunk's
 * encrypted_column_metadata (Parquet modular encryption). */
BASALT_EXPORT basalt_status basalt_thrift_decode_column_metadata(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_column_metadata *out,
    struct basalt_error *err);

/* The last 8 bytes of a Parquet file: a 4-byte little-endian footer length
 * and the magic. `file_size` is the whole file's size, used to check that
 * the footer and the leading magic fit. Stores the footer length (the
 * footer's bytes end 8 bytes before the end of the file). Returns OK for
 * "PAR1", UNSUPPORTED for "PARE" (an encrypted footer; its length is stored
 * too, for a caller that wants to look at the FileCryptoMetaData it starts
 * with), CORRUPT otherwise. */
#define BASALT_PARQUET_TRAILER_SIZE 8
BASALT_EXPORT basalt_status basalt_thrift_decode_trailer(const uint8_t tail[8], uint64_t file_size,
                                                         uint32_t *footer_len,
                                                         struct basalt_error *err);

/* ------------------------------------------------------------------ encoding */

/* Every encoder appends one structure to `out` (borrowed): fields in id
 * order, optional fields only where their has_ flag is set, unions as the
 * member named by `kind` (a kind this version does not know is written as an
 * empty struct under that id; kind 0 as a union with no member, as it was
 * read). Returns OK, NOMEM, or INVALID_ARG (a list with a count but no
 * pointer, a list or binary over INT32_MAX, a union kind outside 0..32767).
 * On failure `out` may hold a partial structure after its previous size. */

BASALT_EXPORT basalt_status basalt_thrift_encode_file_metadata(
    const struct basalt_parquet_file_metadata *md, struct basalt_buffer *out,
    struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_encode_page_header(
    const struct basalt_parquet_page_header *ph, struct basalt_buffer *out,
    struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_encode_column_index(
    const struct basalt_parquet_column_index *ci, struct basalt_buffer *out,
    struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_encode_offset_index(
    const struct basalt_parquet_offset_index *oi, struct basalt_buffer *out,
    struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_encode_bloom_filter_header(
    const struct basalt_parquet_bloom_filter_header *bf, struct basalt_buffer *out,
    struct basalt_error *err);

/* Parquet modular encryption: a ColumnMetaData on its own (to be encrypted
 * into encrypted_column_metadata), and the FileCryptoMetaData written before
 * an encrypted footer (INVALID_ARG for an algorithm other than AES_GCM_V1 and
 * AES_GCM_CTR_V1). */
BASALT_EXPORT basalt_status basalt_thrift_encode_column_metadata(
    const struct basalt_parquet_column_metadata *m, struct basalt_buffer *out,
    struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_encode_file_crypto_metadata(
    const struct basalt_parquet_file_crypto_metadata *m, struct basalt_buffer *out,
    struct basalt_error *err);

/* ------------------------------------------------------------------ names */

/* Upper-case names as in parquet.thrift ("INT32", "SNAPPY"), static
 * storage; NULL for a value this version does not know. */
BASALT_EXPORT const char *basalt_thrift_parquet_type_name(int32_t type);
BASALT_EXPORT const char *basalt_thrift_parquet_converted_type_name(int32_t converted_type);
BASALT_EXPORT const char *basalt_thrift_parquet_repetition_name(int32_t repetition_type);
BASALT_EXPORT const char *basalt_thrift_parquet_encoding_name(int32_t encoding);
BASALT_EXPORT const char *basalt_thrift_parquet_codec_name(int32_t codec);
BASALT_EXPORT const char *basalt_thrift_parquet_page_type_name(int32_t page_type);
BASALT_EXPORT const char *basalt_thrift_parquet_boundary_order_name(int32_t boundary_order);
BASALT_EXPORT const char *basalt_thrift_parquet_logical_type_name(int32_t kind);

#ifdef __cplusplus
}
#endif

#endif
