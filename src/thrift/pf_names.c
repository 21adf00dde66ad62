/* Names of the Parquet enum values, as spelled in parquet.thrift. */
#include "thrift_internal.h"

#define LOOKUP(table, v)                                                            \
    ((v) >= 0 && (size_t)(v) < sizeof(table) / sizeof(table)[0] ? (table)[v] : NULL)

const char *basalt_thrift_parquet_type_name(int32_t type)
{
    static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                        "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return LOOKUP(names, type);
}

const char *basalt_thrift_parquet_converted_type_name(int32_t converted_type)
{
    static const char *const names[] = {
        "UTF8",        "MAP",          "MAP_KEY_VALUE",    "LIST",
        "ENUM",        "DECIMAL",      "DATE",             "TIME_MILLIS",
        "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8",
        "UINT_16",     "UINT_32",      "UINT_64",          "INT_8",
        "INT_16",      "INT_32",       "INT_64",           "JSON",
        "BSON",        "INTERVAL"};
    return LOOKUP(names, converted_type);
}

const char *basalt_thrift_parquet_repetition_name(int32_t repetition_type)
{
    static const char *const names[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
    return LOOKUP(names, repetition_type);
}

const char *basalt_thrift_parquet_encoding_name(int32_t encoding)
{
    /* 1 was GROUP_VAR_INT, never used and removed from the format. */
    static const char *const names[] = {"PLAIN",
                                        NULL,
                                        "PLAIN_DICTIONARY",
                                        "RLE",
                                        "BIT_PACKED",
                                        "DELTA_BINARY_PACKED",
                                        "DELTA_LENGTH_BYTE_ARRAY",
                                        "DELTA_BYTE_ARRAY",
                                        "RLE_DICTIONARY",
                                        "BYTE_STREAM_SPLIT",
                                        "ALP"};
    return LOOKUP(names, encoding);
}

const char *basalt_thrift_parquet_codec_name(int32_t codec)
{
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                        "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
    return LOOKUP(names, codec);
}

const char *basalt_thrift_parquet_page_type_name(int32_t page_type)
{
    static const char *const names[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE",
                                        "DATA_PAGE_V2"};
    return LOOKUP(names, page_type);
}

const char *basalt_thrift_parquet_boundary_order_name(int32_t boundary_order)
{
    static const char *const names[] = {"UNORDERED", "ASCENDING", "DESCENDING"};
    return LOOKUP(names, boundary_order);
}

const char *basalt_thrift_parquet_logical_type_name(int32_t kind)
{
    static const char *const names[] = {
        NULL,      "STRING", "MAP",     "LIST",    "ENUM",   "DECIMAL",  "DATE",
        "TIME",    "TIMESTAMP", NULL,   "INTEGER", "UNKNOWN", "JSON",    "BSON",
        "UUID",    "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY", "FILE"};
    return LOOKUP(names, kind);
}
