/* basalt iceberg: table metadata (the metadata.json files of the Iceberg
 * table spec, format versions 1, 2 and 3), schemas and types.
 *
 * A parsed struct basalt_iceberg_metadata (iceberg_types.h) owns all of its
 * memory: every string, array, schema and field inside it lives until
 * basalt_iceberg_metadata_free. Parsing is reentrant (threads may parse at
 * once). Parsed metadata is immutable, so one object
 * may be read from any number of threads at once; the functions here that
 * take a const object never modify it.
 *
 * Errors name the file and the JSON path, e.g.
 * "v3.metadata.json: schemas[1]: fields[3]: field 4 'price': unknown type 'foo'". */
#ifndef BASALT_ICEBERG_METADATA_H
#define BASALT_ICEBERG_METADATA_H

#include "basalt/iceberg_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes of JSON that basalt_iceberg_metadata_parse inflates out of
 * compressed metadata (256 MiB). */
#define BASALT_ICEBERG_METADATA_MAX_JSON ((size_t)256 << 20)

/* Parses table metadata. `data` (borrowed, `len` bytes) is JSON text, or
 * gzip (starting 1f 8b) or zstd (28 b5 2f fd) compressed JSON, told apart
 * by their magic bytes. `name` (borrowed, may be NULL) prefixes error
 * messages. On success *out is a new object (free it with
 * basalt_iceberg_metadata_free); on failure *out is NULL.
 * Everything the spec defines is read; top-level keys it does not define are
 * kept in unknown_keys_json. v1 files get their v2 shape: the singular
 * `schema` and `partition-spec` become one-element lists, partition field
 * ids are assigned from 1000 when absent, last-partition-id is derived, and
 * a "main" branch is made from current-snapshot-id when `refs` is absent.
 * Read leniently, as other writers write them: a v3 table without
 * `next-row-id` (has_next_row_id false, 0, as Java 1.8 read it), and
 * snapshot ids past INT64_MAX (snapshot-id, parent-snapshot-id,
 * current-snapshot-id, in snapshots, refs, the snapshot log and statistics)
 * taken as their 64-bit two's-complement pattern.
 * Returns UNSUPPORTED for a format-version outside 1..3, CORRUPT for
 * malformed JSON or metadata the spec (and the Java reader) refuses (missing
 * required fields, a current schema / default spec / current snapshot that
 * does not exist, ...), LIMIT when compressed metadata inflates past
 * BASALT_ICEBERG_METADATA_MAX_JSON, NOMEM, INVALID_ARG for NULL data/out. */
BASALT_EXPORT basalt_status basalt_iceberg_metadata_parse(const void *data, size_t len,
                                                          const char *name,
                                                          struct basalt_iceberg_metadata **out,
                                                          struct basalt_error *err);
/* As basalt_iceberg_metadata_parse, with the inflated-size limit given. */
BASALT_EXPORT basalt_status basalt_iceberg_metadata_parse_limit(const void *data, size_t len,
                                                                const char *name,
                                                                size_t max_json,
                                                                struct basalt_iceberg_metadata **out,
                                                                struct basalt_error *err);
/* Reads the whole file at `path` and parses it, the path naming it in
 * errors. IO when the file cannot be read; otherwise as parse. */
BASALT_EXPORT basalt_status basalt_iceberg_metadata_read_file(const char *path,
                                                              struct basalt_iceberg_metadata **out,
                                                              struct basalt_error *err);
/* Frees the metadata and everything in it. NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_metadata_free(struct basalt_iceberg_metadata *metadata);

/* Serialises every field back to metadata JSON of the same format version,
 * unknown top-level keys included; object keys are sorted. Parsing the result
 * gives metadata equal to `metadata` field by field. *out is basalt_malloc'd
 * and NUL-terminated; *len (may be NULL) is its length without the NUL.
 * NOMEM; INTERNAL when the JSON library fails. */
BASALT_EXPORT basalt_status basalt_iceberg_metadata_to_json(
    const struct basalt_iceberg_metadata *metadata, char **out, size_t *len,
    struct basalt_error *err);

/* Lookups. Results point into the metadata; NULL when there is no such thing. */
BASALT_EXPORT const struct basalt_iceberg_schema *basalt_iceberg_metadata_schema(
    const struct basalt_iceberg_metadata *m, int32_t schema_id);
BASALT_EXPORT const struct basalt_iceberg_schema *basalt_iceberg_metadata_current_schema(
    const struct basalt_iceberg_metadata *m);
BASALT_EXPORT const struct basalt_iceberg_partition_spec *basalt_iceberg_metadata_spec(
    const struct basalt_iceberg_metadata *m, int32_t spec_id);
BASALT_EXPORT const struct basalt_iceberg_sort_order *basalt_iceberg_metadata_sort_order(
    const struct basalt_iceberg_metadata *m, int32_t order_id);
BASALT_EXPORT const struct basalt_iceberg_snapshot *basalt_iceberg_metadata_snapshot(
    const struct basalt_iceberg_metadata *m, int64_t snapshot_id);
/* The current snapshot; NULL when the table has none. */
BASALT_EXPORT const struct basalt_iceberg_snapshot *basalt_iceberg_metadata_current_snapshot(
    const struct basalt_iceberg_metadata *m);
/* A branch or tag by exact name ("main", ...). */
BASALT_EXPORT const struct basalt_iceberg_ref *basalt_iceberg_metadata_ref(
    const struct basalt_iceberg_metadata *m, const char *name);
/* The snapshot current at `timestamp_ms`: the last snapshot-log entry whose
 * timestamp is <= timestamp_ms (on equal timestamps the later entry wins);
 * when the log is empty, the snapshot with the greatest timestamp <=
 * timestamp_ms (snapshots are not stored in time order). NOT_FOUND when
 * the table had no snapshot yet at that time, or when the log names a
 * snapshot that has since expired. *out points into the metadata. */
BASALT_EXPORT basalt_status basalt_iceberg_metadata_snapshot_as_of(
    const struct basalt_iceberg_metadata *m, int64_t timestamp_ms,
    const struct basalt_iceberg_snapshot **out, struct basalt_error *err);
/* The snapshot that `ref` (a branch or tag) points at. NOT_FOUND. */
BASALT_EXPORT basalt_status basalt_iceberg_metadata_snapshot_by_ref(
    const struct basalt_iceberg_metadata *m, const char *ref,
    const struct basalt_iceberg_snapshot **out, struct basalt_error *err);
/* The schema a snapshot was written with (its schema-id), else the current
 * schema (also when snapshot is NULL). */
BASALT_EXPORT const struct basalt_iceberg_schema *basalt_iceberg_metadata_snapshot_schema(
    const struct basalt_iceberg_metadata *m, const struct basalt_iceberg_snapshot *snapshot);
/* A table property's value, or NULL. */
BASALT_EXPORT const char *basalt_iceberg_metadata_property(const struct basalt_iceberg_metadata *m,
                                                           const char *key);

/* Schemas. A field at any depth (struct fields, list elements, map keys and
 * values) by id; NULL if absent. Lookups are thread-safe (read only). */
BASALT_EXPORT const struct basalt_iceberg_field *basalt_iceberg_schema_field(
    const struct basalt_iceberg_schema *s, int32_t field_id);
/* By full dotted name ("addr.city"; a list's element is "<list>.element",
 * a map's key and value "<map>.key" and "<map>.value"). Without
 * case_sensitive, ASCII letters match either case and the first field in
 * schema order wins. NULL if absent. */
BASALT_EXPORT const struct basalt_iceberg_field *basalt_iceberg_schema_field_by_name(
    const struct basalt_iceberg_schema *s, const char *name, bool case_sensitive);
/* The full dotted name of a field id, NUL-terminated into buf[0..cap).
 * NOT_FOUND; LIMIT when it does not fit. */
BASALT_EXPORT basalt_status basalt_iceberg_schema_field_name(const struct basalt_iceberg_schema *s,
                                                             int32_t field_id, char *buf,
                                                             size_t cap);
/* Human text of a type, NUL-terminated into buf[0..cap): "long",
 * "decimal(10,2)", "fixed[16]", "list<string>", "map<string, int>",
 * "struct<1 a: int not null, 2 b: string>", "geography(crs, algorithm)".
 * LIMIT when it does not fit (buf then holds a truncated, terminated text). */
BASALT_EXPORT basalt_status basalt_iceberg_type_to_string(const struct basalt_iceberg_type *type,
                                                          char *buf, size_t cap);
/* Parses one schema from its JSON text (as embedded in a manifest's Avro
 * metadata "schema") into `out`; every pointer in it, and its field index,
 * go into `arena` (caller's; keep it alive as long as the schema).
 * CORRUPT, LIMIT (nesting), NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_schema_parse_json(const char *json, size_t len,
                                                             struct basalt_arena *arena,
                                                             struct basalt_iceberg_schema *out,
                                                             struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
