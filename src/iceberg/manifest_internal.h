/* Internals shared by the manifest, Puffin and deletion-vector files. */
#ifndef BASALT_ICEBERG_MANIFEST_INTERNAL_H
#define BASALT_ICEBERG_MANIFEST_INTERNAL_H

#include <string.h>

#include "basalt/avro.h"
#include "basalt/iceberg_manifest.h"

struct basalt_iceberg_manifest_list_private {
    struct basalt_arena arena;
};

struct basalt_iceberg_manifest_private {
    struct basalt_arena arena;
};

struct basalt_iceberg_puffin_private {
    struct basalt_arena arena;
};

/* --- Avro helpers (manifest_avro.c) --- */

/* The Iceberg field id of an Avro record field ("field-id" attribute), or -1. */
int64_t basalt_iceberg_mf_field_id(const struct basalt_avro_field *field);
/* The record inside `node` (itself, or the record branch of a union with
 * null), or NULL. */
const struct basalt_avro_node *basalt_iceberg_mf_record(const struct basalt_avro_node *node);
/* The index of the field with Iceberg id `id` in record `rec`, or -1. */
int32_t basalt_iceberg_mf_find_id(const struct basalt_avro_node *rec, int64_t id);

/* A value of a generic Avro datum with unions stripped: NULL for null. */
const struct basalt_avro_value *basalt_iceberg_mf_unwrap(const struct basalt_avro_value *v);

/* Converts an Avro datum to an Iceberg value of type `type` (the result type of
 * a partition field; NONE: derive it from the Avro node). Byte payloads are
 * copied into `arena`. CORRUPT when the datum does not fit. */
basalt_status basalt_iceberg_mf_to_value(const struct basalt_avro_value *v,
                                           const struct basalt_iceberg_type *type,
                                           struct basalt_arena *arena,
                                           struct basalt_iceberg_value *out,
                                           struct basalt_error *err);

/* Decodes a single-value serialization (spec Appendix D) of a primitive type;
 * byte payloads view into data. CORRUPT when the length does not fit. */
basalt_status basalt_iceberg_mf_bound_decode(const struct basalt_iceberg_type *type,
                                                   const uint8_t *data, size_t len,
                                                   struct basalt_iceberg_value *out,
                                                   struct basalt_error *err);

/* A field by id at any depth of a schema, or NULL. */
const struct basalt_iceberg_field *basalt_iceberg_mf_schema_field(
    const struct basalt_iceberg_schema *schema, int32_t id);

/* The result type of each partition field of `spec` over `schema` into
 * out[0..spec->n_fields). A source missing from the schema gives NONE. */
void basalt_iceberg_mf_spec_types(const struct basalt_iceberg_partition_spec *spec,
                                        const struct basalt_iceberg_schema *schema,
                                        struct basalt_iceberg_type *out);

/* Copies len bytes into the arena (NULL data with len 0 gives a valid pointer). */
uint8_t *basalt_iceberg_mf_copy(struct basalt_arena *arena, const void *data, size_t len);

/* Parses a decimal integer from text[0, len) (optionally quoted); false if it
 * is not one. */
bool basalt_iceberg_mf_parse_i64(const char *text, size_t len, int64_t *out);
/* The same for a snapshot id: values in (INT64_MAX, UINT64_MAX], as writers
 * that keep ids unsigned write them, are their two's-complement pattern. */
bool basalt_iceberg_mf_parse_snapshot_id(const char *text, size_t len, int64_t *out);

/* The Avro reader limits used for manifests and lists. */
void basalt_iceberg_mf_limits(struct basalt_avro_limits *limits);

/* --- Position sets (posset_*.c) --- */

#include <roaring/roaring.h>

struct basalt_iceberg_posset_bucket {
    uint32_t key;                 /* the high 32 bits of the positions */
    roaring_bitmap_t *bitmap;     /* the low 32 bits; owned */
};

struct basalt_iceberg_posset {
    struct basalt_iceberg_posset_bucket *buckets; /* ascending keys */
    uint32_t n, cap;
};

/* Inserts `bitmap` (taken on OK) for a key not yet in the set; *out gets it.
 * INTERNAL when the key is present (bitmap not taken); NOMEM. */
basalt_status basalt_iceberg_posset_insert_bitmap(struct basalt_iceberg_posset *set, uint32_t key,
                                                  roaring_bitmap_t *bitmap, roaring_bitmap_t **out,
                                                  struct basalt_error *err);

/* --- Roaring helpers (posset_*.c) --- */

/* Checks a portable 32-bit Roaring bitmap at data[0, len) (keys ascending,
 * values inside containers ascending, cardinalities consistent) and stores
 * its size in *used. CORRUPT when malformed. */
basalt_status basalt_iceberg_mf_roaring32_check(const uint8_t *data, size_t len, size_t *used,
                                             struct basalt_error *err);

/* --- Opening manifests and lists (manifest_read.c) --- */

#define BASALT_ICEBERG_MF_MAX_COLS 40
#define BASALT_ICEBERG_MF_MAX_PATH 256

/* A column wanted: a path of Iceberg field ids from the root record, the slot
 * type, and where its slot sits in a row struct. */
struct basalt_iceberg_mf_col {
    int32_t ids[2];
    uint8_t depth;
    enum basalt_avro_slot_type type;
    size_t offset;
};

struct basalt_iceberg_mf_file {
    struct basalt_avro_reader *reader;
    struct basalt_avro_plan *plan;
    size_t n_cols;
    int32_t plan_col[BASALT_ICEBERG_MF_MAX_COLS]; /* -1: not in the file */
};

/* Opens the container and compiles the plan. A row's present flags are
 * bytes at present_offset + column index. Not-found columns read as absent.
 * Statuses: UNSUPPORTED (encrypted, codec), CORRUPT, LIMIT, NOMEM. */
basalt_status basalt_iceberg_mf_file_open(const void *data, size_t len,
                                          struct basalt_avro_plan_cache *cache,
                                          const struct basalt_iceberg_mf_col *cols, size_t n_cols,
                                          struct basalt_iceberg_mf_file *f,
                                          struct basalt_error *err);
void basalt_iceberg_mf_file_close(struct basalt_iceberg_mf_file *f);
/* Reads up to max rows; *count 0 at the end. Views stay valid until the next
 * read. Columns in the plan are written for every row (zero and present 0
 * when null); the others are never touched, so rows zeroed once by the
 * caller keep reading as absent. */
basalt_status basalt_iceberg_mf_file_read(struct basalt_iceberg_mf_file *f,
                                          const struct basalt_iceberg_mf_col *cols, void *rows,
                                          size_t row_size, size_t present_offset, int64_t max,
                                          int64_t *count, struct basalt_error *err);
/* The writer node of column `col` (NULL when absent). */
const struct basalt_avro_node *basalt_iceberg_mf_col_node(const struct basalt_iceberg_mf_file *f,
                                                          size_t col);
const uint8_t *basalt_iceberg_mf_meta(const struct basalt_iceberg_mf_file *f, const char *key,
                                      size_t *len);
bool basalt_iceberg_mf_meta_i64(const struct basalt_iceberg_mf_file *f, const char *key,
                                int64_t *out);
/* A snapshot id of the header (basalt_iceberg_mf_parse_snapshot_id). */
bool basalt_iceberg_mf_meta_snapshot_id(const struct basalt_iceberg_mf_file *f, const char *key,
                                        int64_t *out);

#endif
