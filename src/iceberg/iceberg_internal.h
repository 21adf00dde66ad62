/* Internal declarations of the Iceberg table metadata code (types, schemas,
 * table metadata JSON). Not part of the public API. */
#ifndef BASALT_ICEBERG_INTERNAL_H
#define BASALT_ICEBERG_INTERNAL_H

#include <jansson.h>

#include "basalt/iceberg_metadata.h"

/* Nested types deeper than this are refused (LIMIT): recursion is bounded
 * by it, whatever the JSON parser allows. */
#define BASALT_ICEBERG_MAX_TYPE_DEPTH 200

/* The object behind a struct basalt_iceberg_metadata: every pointer in
 * `pub` points into `arena`. */
struct basalt_iceberg_metadata_impl {
    struct basalt_iceberg_metadata pub;
    struct basalt_arena arena;
};

/* What the parsers of one document share. */
struct basalt_iceberg_parse_ctx {
    struct basalt_arena *arena;
    struct basalt_error *err;
    int32_t format_version;
};

/* ---------------------------------------------------- JSON member access
 * Each returns OK, CORRUPT ("missing 'key'" / "'key' is not ...") or NOMEM.
 * `present` (may be NULL for required members) says whether the key was
 * there; an absent optional member leaves *out untouched. JSON null counts
 * as absent. */
basalt_status basalt_iceberg_json_i64(const json_t *obj, const char *key, bool required,
                                      bool *present, int64_t *out, struct basalt_error *err);
basalt_status basalt_iceberg_json_i32(const json_t *obj, const char *key, bool required,
                                      bool *present, int32_t *out, struct basalt_error *err);
basalt_status basalt_iceberg_json_bool(const json_t *obj, const char *key, bool required,
                                       bool *present, bool *out, struct basalt_error *err);
/* A string copied into the arena (NULL when absent and optional). Strings
 * holding a NUL byte are CORRUPT: they could not be handed out as C text. */
basalt_status basalt_iceberg_json_str(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                      const char *key, bool required, const char **out);
basalt_status basalt_iceberg_json_str_value(struct basalt_iceberg_parse_ctx *ctx,
                                            const json_t *value, const char **out);
/* The member `key` when it is an array / object, else NULL (absent or null)
 * or CORRUPT (another kind). */
basalt_status basalt_iceberg_json_array(const json_t *obj, const char *key, bool required,
                                        const json_t **out, struct basalt_error *err);
basalt_status basalt_iceberg_json_object(const json_t *obj, const char *key, bool required,
                                         const json_t **out, struct basalt_error *err);
/* A JSON object of strings as key/value pairs, sorted by key. */
basalt_status basalt_iceberg_json_kv(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                     struct basalt_iceberg_kv **out, uint32_t *n);
/* Compact JSON text of any value, copied into the arena. */
basalt_status basalt_iceberg_json_text(struct basalt_iceberg_parse_ctx *ctx, const json_t *value,
                                       const char **out);
/* The members of object `root` whose keys `known` does not accept, as the
 * compact text of one JSON object ("{}" when none), copied into the arena:
 * what a rewrite must keep. */
basalt_status basalt_iceberg_json_unknown_keys(struct basalt_iceberg_parse_ctx *ctx,
                                               const json_t *root, bool (*known)(const char *key),
                                               const char **out);
/* An arena array for the elements of JSON array `arr` (zeroed, *n of them);
 * LIMIT above UINT32_MAX elements, NOMEM. */
basalt_status basalt_iceberg_json_array_of(struct basalt_iceberg_parse_ctx *ctx, const json_t *arr,
                                           size_t size, void **out, uint32_t *n);
/* CORRUPT "not an object" unless `v` is a JSON object. */
basalt_status basalt_iceberg_json_need_object(struct basalt_iceberg_parse_ctx *ctx,
                                              const json_t *v);
/* The string map at obj[key] as sorted key/value pairs; absent: an empty
 * array (CORRUPT when `required`). Errors name the key. */
basalt_status basalt_iceberg_json_kv_field(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                           const char *key, bool required,
                                           struct basalt_iceberg_kv **out, uint32_t *n);
/* Arena allocation of n elements (zeroed); NULL + NOMEM set on failure. */
void *basalt_iceberg_arena_array(struct basalt_iceberg_parse_ctx *ctx, size_t n, size_t size);

/* ------------------------------------------------------- types, schemas */

/* Parses a type (a string for primitives, an object for nested types). */
basalt_status basalt_iceberg_type_parse(struct basalt_iceberg_parse_ctx *ctx, const json_t *json,
                                        int depth, struct basalt_iceberg_type *out);
/* The JSON form of a type (as the spec writes it); a new reference, or NULL
 * when out of memory. */
json_t *basalt_iceberg_type_to_json(const struct basalt_iceberg_type *type);
/* Decodes a default (JSON single-value serialization) for a primitive type.
 * Nested and non-primitive types leave out->is_null set. CORRUPT when the
 * value does not fit the type. */
basalt_status basalt_iceberg_default_decode(struct basalt_iceberg_parse_ctx *ctx,
                                            const struct basalt_iceberg_type *type,
                                            const json_t *json, struct basalt_iceberg_value *out);
/* Parses one schema object (type "struct"); schema-id defaults to 0. Builds
 * its field index. */
basalt_status basalt_iceberg_schema_parse(struct basalt_iceberg_parse_ctx *ctx, const json_t *json,
                                          struct basalt_iceberg_schema *out);
json_t *basalt_iceberg_schema_to_json(const struct basalt_iceberg_schema *schema);
/* The whole table metadata as a new JSON object (every field this library
 * reads, plus the unknown top-level keys it kept); NULL on NOMEM. */
json_t *basalt_iceberg_metadata_json(const struct basalt_iceberg_metadata *m);
/* The "fields" array of a partition spec (what a manifest's "partition-spec"
 * key holds); a new reference, or NULL when out of memory. */
json_t *basalt_iceberg_spec_fields_to_json(const struct basalt_iceberg_partition_spec *spec);
/* Builds schema->index (in the arena). CORRUPT for a repeated field id. */
basalt_status basalt_iceberg_field_index_build(struct basalt_iceberg_parse_ctx *ctx,
                                               struct basalt_iceberg_schema *schema);

/* Appends the whole of the local file at `path` to `out`. IO (naming the
 * path); NOMEM. */
basalt_status basalt_iceberg_read_local_file(const char *path, struct basalt_buffer *out,
                                            struct basalt_error *err);

/* Snapshot ids some writers keep unsigned: every integer value of a
 * "snapshot-id", "parent-snapshot-id" or "current-snapshot-id" member in
 * (INT64_MAX, UINT64_MAX] is rewritten as the signed number of the same 64-bit
 * pattern, which JSON parsers limited to int64 then read. Returns OK with
 * *out NULL when there is nothing to rewrite, else a basalt_malloc'd,
 * NUL-terminated copy; NOMEM. Strings and other members are left alone. */
basalt_status basalt_iceberg_json_signed_snapshot_ids(const char *text, size_t len, char **out,
                                                      size_t *out_len, struct basalt_error *err);

/* Decompresses gzip / zstd metadata (by magic) into a basalt_malloc'd,
 * NUL-terminated buffer of at most `limit` bytes (LIMIT beyond). Returns
 * OK with *out NULL when the data is not compressed. */
basalt_status basalt_iceberg_metadata_inflate(const void *data, size_t len, size_t limit,
                                              char **out, size_t *out_len,
                                              struct basalt_error *err);

#endif
