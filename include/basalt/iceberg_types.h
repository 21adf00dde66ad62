/* basalt iceberg: the data model shared by every part of the Iceberg module.
 *
 * These are plain structs, read-only to callers, built by the parsers
 * (iceberg_metadata.h for table metadata, iceberg_manifest.h for manifest
 * lists and manifests). Every pointer inside one of them points into memory
 * owned by the object it was parsed into (the table metadata, the manifest
 * list, the manifest) and lives exactly as long as that object; nothing here
 * is freed on its own.
 *
 * Optional numbers come with a `has_` flag; optional strings are NULL when
 * absent. Arrays are a pointer plus an `n_` count. */
#ifndef BASALT_ICEBERG_TYPES_H
#define BASALT_ICEBERG_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The highest table format version this library reads. */
#define BASALT_ICEBERG_MAX_FORMAT_VERSION 3

/* Reserved field ids of the metadata columns (spec, "Reserved Field IDs"). */
#define BASALT_ICEBERG_FIELD_ID_FILE_PATH 2147483546   /* _file, and file_path of position deletes */
#define BASALT_ICEBERG_FIELD_ID_POS 2147483545         /* _pos, and pos of position deletes */
#define BASALT_ICEBERG_FIELD_ID_DELETED 2147483544     /* _deleted */
#define BASALT_ICEBERG_FIELD_ID_SPEC_ID 2147483543     /* _spec_id */
#define BASALT_ICEBERG_FIELD_ID_PARTITION 2147483642   /* _partition */
#define BASALT_ICEBERG_FIELD_ID_ROW_ID 2147483540      /* _row_id (v3) */
#define BASALT_ICEBERG_FIELD_ID_LAST_UPDATED_SEQ 2147483539 /* _last_updated_sequence_number */
#define BASALT_ICEBERG_ROW_ID_NAME "_row_id"
#define BASALT_ICEBERG_LAST_UPDATED_SEQ_NAME "_last_updated_sequence_number"

/* ------------------------------------------------------------------- types */

enum basalt_iceberg_type_id {
    BASALT_ICEBERG_TYPE_NONE = 0,   /* an untyped value (a null literal) */
    BASALT_ICEBERG_TYPE_BOOLEAN,
    BASALT_ICEBERG_TYPE_INT,        /* 32-bit signed */
    BASALT_ICEBERG_TYPE_LONG,       /* 64-bit signed */
    BASALT_ICEBERG_TYPE_FLOAT,
    BASALT_ICEBERG_TYPE_DOUBLE,
    BASALT_ICEBERG_TYPE_DECIMAL,    /* precision, scale */
    BASALT_ICEBERG_TYPE_DATE,       /* days since 1970-01-01 */
    BASALT_ICEBERG_TYPE_TIME,       /* microseconds since midnight */
    BASALT_ICEBERG_TYPE_TIMESTAMP,  /* microseconds since the epoch, no zone */
    BASALT_ICEBERG_TYPE_TIMESTAMPTZ,/* microseconds since the epoch, UTC */
    BASALT_ICEBERG_TYPE_TIMESTAMP_NS,
    BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS,
    BASALT_ICEBERG_TYPE_STRING,     /* UTF-8 */
    BASALT_ICEBERG_TYPE_UUID,       /* 16 bytes, big-endian */
    BASALT_ICEBERG_TYPE_FIXED,      /* length */
    BASALT_ICEBERG_TYPE_BINARY,
    BASALT_ICEBERG_TYPE_UNKNOWN,    /* v3: always null */
    BASALT_ICEBERG_TYPE_VARIANT,    /* v3 */
    BASALT_ICEBERG_TYPE_GEOMETRY,   /* v3: crs */
    BASALT_ICEBERG_TYPE_GEOGRAPHY,  /* v3: crs, algorithm */
    BASALT_ICEBERG_TYPE_STRUCT,
    BASALT_ICEBERG_TYPE_LIST,
    BASALT_ICEBERG_TYPE_MAP,
};

struct basalt_iceberg_field;

struct basalt_iceberg_type {
    enum basalt_iceberg_type_id id;
    int32_t precision;              /* DECIMAL */
    int32_t scale;                  /* DECIMAL */
    int32_t length;                 /* FIXED */
    const char *crs;                /* GEOMETRY/GEOGRAPHY; NULL = the default */
    const char *algorithm;          /* GEOGRAPHY edge algorithm; NULL = the default */
    /* STRUCT: its fields in order. LIST: one field, the element.
     * MAP: two fields, the key and then the value. */
    struct basalt_iceberg_field *fields;
    uint32_t n_fields;
};

/* A decimal's unscaled value as a two's complement 128-bit integer. */
struct basalt_iceberg_decimal {
    uint64_t lo;
    int64_t hi;
};

/* One typed value: a partition value, a literal, a bound, a default.
 * Byte payloads are views into memory owned elsewhere (see the object that
 * handed the value out). */
struct basalt_iceberg_value {
    enum basalt_iceberg_type_id type;
    bool is_null;
    int32_t scale;                  /* DECIMAL: the scale of `u.dec` */
    union {
        bool b;                     /* BOOLEAN */
        int32_t i32;                /* INT, DATE */
        int64_t i64;                /* LONG, TIME, TIMESTAMP*, TIMESTAMP*_NS */
        float f32;                  /* FLOAT */
        double f64;                 /* DOUBLE */
        struct basalt_iceberg_decimal dec; /* DECIMAL */
        struct {
            const uint8_t *data;
            size_t len;
        } bytes;                    /* STRING, BINARY, FIXED, UUID (16 bytes) */
    } u;
};

struct basalt_iceberg_field {
    int32_t id;
    const char *name;
    bool required;
    const char *doc;
    struct basalt_iceberg_type type;
    /* v3 defaults. The JSON text as written (NULL when absent), and for
     * primitive types the value itself (is_null when absent or nested). */
    const char *initial_default_json;
    const char *write_default_json;
    struct basalt_iceberg_value initial_default;
    struct basalt_iceberg_value write_default;
};

struct basalt_iceberg_field_index; /* opaque: lookup by id and by name */

struct basalt_iceberg_schema {
    int32_t schema_id;
    struct basalt_iceberg_type root;        /* a STRUCT */
    int32_t *identifier_field_ids;
    uint32_t n_identifier_field_ids;
    struct basalt_iceberg_field_index *index;
};

/* ------------------------------------------------------- partition and sort */

enum basalt_iceberg_transform_kind {
    BASALT_ICEBERG_TRANSFORM_IDENTITY,
    BASALT_ICEBERG_TRANSFORM_BUCKET,        /* param = N */
    BASALT_ICEBERG_TRANSFORM_TRUNCATE,      /* param = W */
    BASALT_ICEBERG_TRANSFORM_YEAR,
    BASALT_ICEBERG_TRANSFORM_MONTH,
    BASALT_ICEBERG_TRANSFORM_DAY,
    BASALT_ICEBERG_TRANSFORM_HOUR,
    BASALT_ICEBERG_TRANSFORM_VOID,
    BASALT_ICEBERG_TRANSFORM_UNKNOWN,       /* kept, never applied: files are not pruned by it */
};

struct basalt_iceberg_transform {
    enum basalt_iceberg_transform_kind kind;
    int32_t param;
    const char *text;                       /* as written, e.g. "bucket[16]" */
};

struct basalt_iceberg_partition_field {
    int32_t source_id;                      /* the first source id in v3 multi-argument form */
    int32_t field_id;                       /* 1000, 1001, ... */
    const char *name;
    struct basalt_iceberg_transform transform;
    int32_t *source_ids;                    /* v3 "source-ids" as written, or NULL */
    uint32_t n_source_ids;
};

struct basalt_iceberg_partition_spec {
    int32_t spec_id;
    struct basalt_iceberg_partition_field *fields;
    uint32_t n_fields;
};

enum basalt_iceberg_sort_direction { BASALT_ICEBERG_SORT_ASC, BASALT_ICEBERG_SORT_DESC };
enum basalt_iceberg_null_order { BASALT_ICEBERG_NULLS_FIRST, BASALT_ICEBERG_NULLS_LAST };

struct basalt_iceberg_sort_field {
    struct basalt_iceberg_transform transform;
    int32_t source_id;                      /* the first source id in v3 multi-argument form */
    enum basalt_iceberg_sort_direction direction;
    enum basalt_iceberg_null_order null_order;
    int32_t *source_ids;                    /* v3 "source-ids" as written, or NULL */
    uint32_t n_source_ids;
};

struct basalt_iceberg_sort_order {
    int32_t order_id;
    struct basalt_iceberg_sort_field *fields;
    uint32_t n_fields;
};

/* ---------------------------------------------------------------- snapshots */

struct basalt_iceberg_kv {
    const char *key;
    const char *value;
};

struct basalt_iceberg_snapshot {
    int64_t snapshot_id;
    bool has_parent_snapshot_id;
    int64_t parent_snapshot_id;
    int64_t sequence_number;                /* 0 in v1 */
    int64_t timestamp_ms;
    const char *manifest_list;              /* NULL for a v1 snapshot with inline manifests */
    const char **manifests;                 /* v1 inline manifest paths */
    uint32_t n_manifests;
    const char *operation;                  /* summary "operation"; "append" when absent */
    struct basalt_iceberg_kv *summary;      /* every summary entry but "operation" */
    uint32_t n_summary;
    bool has_schema_id;
    int32_t schema_id;
    bool has_first_row_id;                  /* v3 row lineage */
    int64_t first_row_id;
    bool has_added_rows;
    int64_t added_rows;
    const char *key_id;                     /* v3 encryption key id, or NULL */
};

struct basalt_iceberg_ref {
    const char *name;
    int64_t snapshot_id;
    bool is_tag;                            /* else a branch */
    bool has_min_snapshots_to_keep;
    int32_t min_snapshots_to_keep;
    bool has_max_snapshot_age_ms;
    int64_t max_snapshot_age_ms;
    bool has_max_ref_age_ms;
    int64_t max_ref_age_ms;
};

struct basalt_iceberg_snapshot_log_entry {
    int64_t timestamp_ms;
    int64_t snapshot_id;
};

struct basalt_iceberg_metadata_log_entry {
    int64_t timestamp_ms;
    const char *metadata_file;
};

struct basalt_iceberg_blob_metadata {
    const char *type;
    int64_t snapshot_id;
    int64_t sequence_number;
    int32_t *fields;
    uint32_t n_fields;
    struct basalt_iceberg_kv *properties;
    uint32_t n_properties;
};

struct basalt_iceberg_statistics_file {
    int64_t snapshot_id;
    const char *statistics_path;
    int64_t file_size_in_bytes;
    int64_t file_footer_size_in_bytes;
    const char *key_metadata;               /* base64 text, or NULL */
    struct basalt_iceberg_blob_metadata *blobs;
    uint32_t n_blobs;
};

struct basalt_iceberg_partition_statistics_file {
    int64_t snapshot_id;
    const char *statistics_path;
    int64_t file_size_in_bytes;
};

struct basalt_iceberg_encryption_key {
    const char *key_id;
    const char *encrypted_key_metadata;     /* base64 text */
    const char *encrypted_by_id;            /* or NULL */
    struct basalt_iceberg_kv *properties;
    uint32_t n_properties;
};

/* ----------------------------------------------------------- table metadata */

struct basalt_iceberg_metadata {
    int32_t format_version;                 /* 1, 2 or 3 */
    const char *table_uuid;                 /* NULL when absent (v1 allows it) */
    const char *location;
    int64_t last_sequence_number;
    int64_t last_updated_ms;
    int32_t last_column_id;

    struct basalt_iceberg_schema *schemas;
    uint32_t n_schemas;
    int32_t current_schema_id;

    struct basalt_iceberg_partition_spec *specs;
    uint32_t n_specs;
    int32_t default_spec_id;
    int32_t last_partition_id;

    struct basalt_iceberg_kv *properties;
    uint32_t n_properties;

    bool has_current_snapshot_id;           /* false for -1 (unless a snapshot has
                                               that id), null or absent */
    int64_t current_snapshot_id;
    struct basalt_iceberg_snapshot *snapshots; /* in file order (not chronological) */
    uint32_t n_snapshots;
    struct basalt_iceberg_snapshot_log_entry *snapshot_log;
    uint32_t n_snapshot_log;
    struct basalt_iceberg_metadata_log_entry *metadata_log;
    uint32_t n_metadata_log;

    struct basalt_iceberg_sort_order *sort_orders;
    uint32_t n_sort_orders;
    int32_t default_sort_order_id;

    struct basalt_iceberg_ref *refs;        /* "main" synthesised from current-snapshot-id when absent */
    uint32_t n_refs;

    struct basalt_iceberg_statistics_file *statistics;
    uint32_t n_statistics;
    struct basalt_iceberg_partition_statistics_file *partition_statistics;
    uint32_t n_partition_statistics;

    bool has_next_row_id;                   /* v3 */
    int64_t next_row_id;
    struct basalt_iceberg_encryption_key *encryption_keys;
    uint32_t n_encryption_keys;

    /* Top-level keys this library does not know, as the text of one JSON
     * object ("{}" when there are none), so a rewrite loses nothing. */
    const char *unknown_keys_json;
};

/* ------------------------------------------------------ manifests and files */

enum basalt_iceberg_manifest_content {
    BASALT_ICEBERG_MANIFEST_DATA = 0,
    BASALT_ICEBERG_MANIFEST_DELETES = 1,
};

/* Partition field summary of a manifest list entry. */
struct basalt_iceberg_field_summary {
    bool contains_null;
    bool has_contains_nan;
    bool contains_nan;
    bool has_lower_bound;
    bool has_upper_bound;
    struct basalt_iceberg_value lower_bound; /* decoded with the partition field's result type */
    struct basalt_iceberg_value upper_bound;
    const uint8_t *lower_bound_bytes;        /* the serialized bound as stored */
    size_t lower_bound_len;
    const uint8_t *upper_bound_bytes;
    size_t upper_bound_len;
};

/* One entry of a manifest list (Avro record "manifest_file"), after
 * resolution by field id and with v1 defaults filled in. */
struct basalt_iceberg_manifest_file {
    const char *manifest_path;
    int64_t manifest_length;
    int32_t partition_spec_id;
    enum basalt_iceberg_manifest_content content;
    int64_t sequence_number;                /* 0 in v1 */
    int64_t min_sequence_number;
    int64_t added_snapshot_id;
    int32_t added_files_count;              /* -1 when absent */
    int32_t existing_files_count;
    int32_t deleted_files_count;
    int64_t added_rows_count;               /* -1 when absent */
    int64_t existing_rows_count;
    int64_t deleted_rows_count;
    struct basalt_iceberg_field_summary *partitions; /* NULL when absent */
    uint32_t n_partitions;
    const uint8_t *key_metadata;
    size_t key_metadata_len;
    bool has_first_row_id;
    int64_t first_row_id;
};

enum basalt_iceberg_file_content {
    BASALT_ICEBERG_CONTENT_DATA = 0,
    BASALT_ICEBERG_CONTENT_POSITION_DELETES = 1,
    BASALT_ICEBERG_CONTENT_EQUALITY_DELETES = 2,
};

enum basalt_iceberg_file_format {
    BASALT_ICEBERG_FORMAT_PARQUET,
    BASALT_ICEBERG_FORMAT_AVRO,
    BASALT_ICEBERG_FORMAT_ORC,
    BASALT_ICEBERG_FORMAT_PUFFIN,
    BASALT_ICEBERG_FORMAT_OTHER,
};

struct basalt_iceberg_metric_long {
    int32_t field_id;
    int64_t value;
};

struct basalt_iceberg_metric_bytes {
    int32_t field_id;
    const uint8_t *data;                    /* single-value serialization (spec Appendix D) */
    size_t len;
};

/* Avro record "data_file". Metric arrays are sorted by field id. */
struct basalt_iceberg_data_file {
    enum basalt_iceberg_file_content content;
    const char *file_path;
    enum basalt_iceberg_file_format file_format;
    /* The partition tuple, one value per field of the manifest's partition
     * spec, in spec order, typed by each field's result type. */
    struct basalt_iceberg_value *partition;
    uint32_t n_partition;
    int64_t record_count;
    int64_t file_size_in_bytes;
    struct basalt_iceberg_metric_long *column_sizes;
    uint32_t n_column_sizes;
    struct basalt_iceberg_metric_long *value_counts;
    uint32_t n_value_counts;
    struct basalt_iceberg_metric_long *null_value_counts;
    uint32_t n_null_value_counts;
    struct basalt_iceberg_metric_long *nan_value_counts;
    uint32_t n_nan_value_counts;
    struct basalt_iceberg_metric_bytes *lower_bounds;
    uint32_t n_lower_bounds;
    struct basalt_iceberg_metric_bytes *upper_bounds;
    uint32_t n_upper_bounds;
    const uint8_t *key_metadata;
    size_t key_metadata_len;
    int64_t *split_offsets;
    uint32_t n_split_offsets;
    int32_t *equality_ids;
    uint32_t n_equality_ids;
    bool has_sort_order_id;
    int32_t sort_order_id;
    bool has_first_row_id;                  /* v3 */
    int64_t first_row_id;
    const char *referenced_data_file;       /* v2 position deletes / v3 DVs, or NULL */
    bool has_content_offset;                /* v3 DVs: the blob inside the Puffin file */
    int64_t content_offset;
    int64_t content_size_in_bytes;
};

enum basalt_iceberg_entry_status {
    BASALT_ICEBERG_ENTRY_EXISTING = 0,
    BASALT_ICEBERG_ENTRY_ADDED = 1,
    BASALT_ICEBERG_ENTRY_DELETED = 2,
};

/* Avro record "manifest_entry", with snapshot id and sequence numbers
 * inherited from the manifest list entry where the spec says so. */
struct basalt_iceberg_manifest_entry {
    enum basalt_iceberg_entry_status status;
    int64_t snapshot_id;
    int64_t sequence_number;                /* data sequence number */
    int64_t file_sequence_number;
    struct basalt_iceberg_data_file data_file;
};

#ifdef __cplusplus
}
#endif

#endif
