/* basalt iceberg: manifest lists, manifests, Puffin files, deletion vectors.
 *
 *   - basalt_iceberg_manifest_list_*  a snapshot's manifest list (Avro
 *                                     records "manifest_file")
 *   - basalt_iceberg_manifest_*       one manifest (Avro records
 *                                     "manifest_entry"), and a cache of them
 *   - basalt_iceberg_puffin_*         Puffin statistics / deletion-vector files
 *   - basalt_iceberg_posset_*         sets of 64-bit row positions
 *   - basalt_iceberg_dv_* / _roaring64_*  deletion-vector blobs and portable
 *                                     64-bit Roaring maps
 *
 * Manifests and manifest lists are read by Iceberg field id, not by Avro field
 * name (writers disagree on names: added_files_count / added_data_files_count),
 * with the defaults of format v1 and the inheritance rules of the
 * specification applied, so callers see one shape whatever wrote the file.
 *
 * Statuses: malformed input is CORRUPT, input beyond a limit LIMIT, features
 * not implemented (encrypted files, unknown codecs) UNSUPPORTED; NOMEM.
 * Parsed objects own all their memory (one arena each) and are immutable
 * after parsing, so they may be read from several threads at once. */
#ifndef BASALT_ICEBERG_MANIFEST_H
#define BASALT_ICEBERG_MANIFEST_H

#include "basalt/core.h"
#include "basalt/iceberg_types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct basalt_avro_plan_cache;

/* ------------------------------------------------------------ manifest lists */

struct basalt_iceberg_manifest_list_private;

struct basalt_iceberg_manifest_list {
    struct basalt_iceberg_manifest_file *files;
    uint32_t n_files;
    int32_t format_version; /* the version the list was read as */
    /* The Avro header's "snapshot-id" / "parent-snapshot-id" when present
     * (values past INT64_MAX, written by writers that keep ids unsigned, are
     * their two's-complement pattern, as in the table metadata). */
    bool has_snapshot_id;
    int64_t snapshot_id;
    bool has_parent_snapshot_id;
    int64_t parent_snapshot_id;
    struct basalt_iceberg_manifest_list_private *priv;
};

/* Parses a manifest list held in data[0, len) (borrowed; nothing points into
 * it afterwards). `name` is prepended to error messages (NULL: none).
 * `format_version` is the table's (1..3): v1 lists have no content or
 * sequence numbers (DATA and 0 are filled in) and some writers omit the
 * "format-version" Avro key, so the table's version is trusted first, then
 * that key, then 1 when both are missing (pass 0 for "unknown").
 * Fields present in the file are read whatever the version. Partition field
 * summaries keep their bounds as bytes; their typed values stay NULL-typed
 * (type NONE, is_null) until basalt_iceberg_manifest_list_decode_bounds.
 * first_row_id is as stored (the list-level inheritance from the snapshot's
 * first-row-id is left to the caller, who has the snapshot).
 * Returns OK; CORRUPT (not Avro, a required field missing or null, a bad
 * value); UNSUPPORTED (an encrypted list, an unknown Avro codec); LIMIT; NOMEM.
 * *out is owned by the caller (basalt_iceberg_manifest_list_free). */
BASALT_EXPORT basalt_status basalt_iceberg_manifest_list_parse(
    const void *data, size_t len, const char *name, int32_t format_version,
    struct basalt_iceberg_manifest_list **out, struct basalt_error *err);

/* Decodes the partition field summary bounds of every manifest whose
 * partition_spec_id is among `specs` into values of each partition field's
 * result type, computed from the transform and the source field's type in
 * `schema`. Manifests with another spec are left as they are. Values view
 * into the list's memory; nothing is allocated. Not thread-safe against
 * readers of the same list. Returns OK or CORRUPT (a bound that does not fit
 * its type: the message names the manifest and field). */
BASALT_EXPORT basalt_status basalt_iceberg_manifest_list_decode_bounds(
    struct basalt_iceberg_manifest_list *list, const struct basalt_iceberg_partition_spec *specs,
    uint32_t n_specs, const struct basalt_iceberg_schema *schema, struct basalt_error *err);

/* NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_manifest_list_free(struct basalt_iceberg_manifest_list *list);

/* ----------------------------------------------------------------- manifests */

struct basalt_iceberg_manifest_read_options {
    /* Decode the six metric maps (default true); false skips them without
     * decoding (faster planning without a filter): the arrays stay empty. */
    bool with_metrics;
    /* Keep DELETED entries (default false). */
    bool with_deleted;
    /* Optional, borrowed: Avro schemas and decode plans shared between
     * manifests, so that many manifests written with one schema parse and
     * compile it once. Must outlive every manifest parsed with it. NULL: each
     * parse works on its own. See basalt_iceberg_manifest_cache_plans. */
    struct basalt_avro_plan_cache *plan_cache;
};

/* Defaults: with_metrics true, with_deleted false, no plan cache. */
BASALT_EXPORT void basalt_iceberg_manifest_read_options_init(
    struct basalt_iceberg_manifest_read_options *options);

struct basalt_iceberg_manifest_private;

struct basalt_iceberg_manifest {
    struct basalt_iceberg_manifest_entry *entries;
    uint32_t n_entries;
    int32_t spec_id;                         /* Avro key "partition-spec-id", else from_list's */
    enum basalt_iceberg_manifest_content content;
    int32_t format_version;                  /* Avro key "format-version", else from the schema */
    struct basalt_iceberg_manifest_private *priv;
};

/* Parses a manifest held in data[0, len) (borrowed; nothing points into it
 * afterwards).
 * from_list: its manifest list entry (borrowed), for inheritance: entries with
 *   a null snapshot_id take its added_snapshot_id; ADDED entries with a null
 *   data / file sequence number take its sequence_number (other entries with
 *   a null one, invalid in v2, read 0); v3 data files with a null first_row_id
 *   (ADDED and EXISTING) get its first_row_id plus the record counts of the
 *   earlier such files. NULL (v1 inline manifests): nothing is inherited,
 *   nulls read 0.
 * spec: the table's partition spec of this manifest (borrowed): partition
 *   values get each field's result type and spec order; NULL: the values are
 *   typed from the manifest's Avro schema, in its order.
 * schema: the table schema (borrowed), for the result types; NULL with a spec
 *   types values from the Avro schema.
 * options: NULL for the defaults.
 * Returns OK; CORRUPT (not Avro, a required field missing, a bad value, a
 *   partition field of the spec missing from the file); UNSUPPORTED; LIMIT;
 *   NOMEM. *out is owned by the caller (basalt_iceberg_manifest_free). */
BASALT_EXPORT basalt_status basalt_iceberg_manifest_parse(
    const void *data, size_t len, const char *name,
    const struct basalt_iceberg_manifest_file *from_list,
    const struct basalt_iceberg_partition_spec *spec, const struct basalt_iceberg_schema *schema,
    const struct basalt_iceberg_manifest_read_options *options,
    struct basalt_iceberg_manifest **out, struct basalt_error *err);

/* NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_manifest_free(struct basalt_iceberg_manifest *manifest);

/* The result type of a partition transform over a source type (identity,
 * truncate: the source; bucket, year, month, day, hour: int; void: the
 * source; unknown: NONE), for callers without the transform module.
 * Nested source types come back with their fields borrowed from `source`. */
BASALT_EXPORT struct basalt_iceberg_type basalt_iceberg_manifest_result_type(
    enum basalt_iceberg_transform_kind kind, const struct basalt_iceberg_type *source);

/* --------------------------------------------------------------------- cache */

/* A thread-safe cache of parsed manifests keyed by path; entries live until
 * the cache is freed. It also holds an Avro plan cache for the parses that
 * fill it (basalt_iceberg_manifest_cache_plans). */
struct basalt_iceberg_manifest_cache;

/* Returns OK or NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_manifest_cache_new(
    struct basalt_iceberg_manifest_cache **out, struct basalt_error *err);
/* Frees every cached manifest. NULL is a no-op. No other thread may use it. */
BASALT_EXPORT void basalt_iceberg_manifest_cache_free(struct basalt_iceberg_manifest_cache *cache);
/* The cached manifest for `path`, or NULL. Thread-safe; the manifest lives as
 * long as the cache. */
BASALT_EXPORT const struct basalt_iceberg_manifest *basalt_iceberg_manifest_cache_find(
    struct basalt_iceberg_manifest_cache *cache, const char *path);
/* Takes `manifest` (also on failure); if another thread added the same path
 * first, frees it and returns the cached one in *out. Thread-safe.
 * Returns OK or NOMEM (manifest freed, *out NULL). */
BASALT_EXPORT basalt_status basalt_iceberg_manifest_cache_add(
    struct basalt_iceberg_manifest_cache *cache, const char *path,
    struct basalt_iceberg_manifest *manifest, const struct basalt_iceberg_manifest **out,
    struct basalt_error *err);
/* Number of cached manifests. Thread-safe. */
BASALT_EXPORT uint32_t basalt_iceberg_manifest_cache_count(struct basalt_iceberg_manifest_cache *cache);
/* The cache's Avro plan cache, for basalt_iceberg_manifest_read_options
 * .plan_cache; lives as long as the manifest cache; thread-safe. */
BASALT_EXPORT struct basalt_avro_plan_cache *basalt_iceberg_manifest_cache_plans(
    struct basalt_iceberg_manifest_cache *cache);

/* -------------------------------------------------------------------- Puffin */

struct basalt_iceberg_puffin_blob {
    const char *type;
    int32_t *fields;
    uint32_t n_fields;
    int64_t snapshot_id;
    int64_t sequence_number;
    int64_t offset;
    int64_t length;
    const char *compression_codec;           /* NULL = none */
    struct basalt_iceberg_kv *properties;
    uint32_t n_properties;
};

struct basalt_iceberg_puffin_private;

struct basalt_iceberg_puffin {
    struct basalt_iceberg_puffin_blob *blobs;
    uint32_t n_blobs;
    struct basalt_iceberg_kv *properties;
    uint32_t n_properties;
    struct basalt_iceberg_puffin_private *priv;
};

/* Parses the footer of a Puffin file held whole in data[0, len) (borrowed;
 * nothing points into it afterwards): the magic "PFA1" at both ends and
 * before the footer payload, the payload size and flags, the JSON payload.
 * A payload compressed with flag bit 0 (an LZ4 frame) is decompressed; other
 * flag bits are ignored. Every blob must lie between the leading magic and
 * the footer.
 * Returns OK; CORRUPT ("invalid footer size", "expected magic at offset N",
 * malformed JSON or LZ4, a blob outside the file); LIMIT (a payload over
 * 1 GiB decompressed); NOMEM. *out: basalt_iceberg_puffin_free. */
BASALT_EXPORT basalt_status basalt_iceberg_puffin_parse(const void *data, size_t len,
                                                        const char *name,
                                                        struct basalt_iceberg_puffin **out,
                                                        struct basalt_error *err);
/* As basalt_iceberg_puffin_parse, checking the footer size recorded with the
 * file (a statistics file's file-footer-size-in-bytes: magic, payload and the
 * 12-byte tail); a mismatch is CORRUPT ("invalid footer size"). */
BASALT_EXPORT basalt_status basalt_iceberg_puffin_parse_footer(const void *data, size_t len,
                                                               const char *name,
                                                               int64_t footer_size,
                                                               struct basalt_iceberg_puffin **out,
                                                               struct basalt_error *err);
/* The payload of blob `index`, decompressed ("zstd" or "lz4" frames), from
 * the same file bytes that were parsed. *out is basalt_malloc'd (also for an
 * empty payload). Returns OK; INVALID_ARG (index out of range, a file shorter
 * than the blob); CORRUPT (undecodable payload); UNSUPPORTED (another codec);
 * LIMIT (over 1 GiB decompressed); NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_puffin_blob_read(
    const struct basalt_iceberg_puffin *puffin, const void *data, size_t len, uint32_t index,
    uint8_t **out, size_t *out_len, struct basalt_error *err);
/* The value of a blob property, or NULL. */
BASALT_EXPORT const char *basalt_iceberg_puffin_blob_property(
    const struct basalt_iceberg_puffin_blob *blob, const char *key);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_puffin_free(struct basalt_iceberg_puffin *puffin);

/* ----------------------------------------------------------- position sets */

/* A set of 64-bit row positions (deletion vectors, position deletes): one
 * 32-bit Roaring bitmap per high 32 bits. Used by one thread at a time;
 * const functions may run concurrently. The Roaring bitmaps themselves
 * allocate through the C library (CRoaring 0.2.66 takes no allocator), so
 * allocation-failure tests only reach basalt's own allocations. */
struct basalt_iceberg_posset;

/* An empty set. Returns OK or NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_posset_new(struct basalt_iceberg_posset **out,
                                                      struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_posset_free(struct basalt_iceberg_posset *set);
/* Returns OK or NOMEM (the set is unchanged). */
BASALT_EXPORT basalt_status basalt_iceberg_posset_add(struct basalt_iceberg_posset *set,
                                                      uint64_t pos, struct basalt_error *err);
/* Adds n positions; a negative one is INVALID_ARG (nothing after it is
 * added). NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_posset_add_many(struct basalt_iceberg_posset *set,
                                                           const int64_t *pos, size_t n,
                                                           struct basalt_error *err);
/* Adds every position of `other` (borrowed). OK or NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_posset_union(struct basalt_iceberg_posset *set,
                                                        const struct basalt_iceberg_posset *other,
                                                        struct basalt_error *err);
BASALT_EXPORT bool basalt_iceberg_posset_contains(const struct basalt_iceberg_posset *set,
                                                  uint64_t pos);
BASALT_EXPORT uint64_t basalt_iceberg_posset_cardinality(const struct basalt_iceberg_posset *set);
/* Sets bit i (LSB-first) of `bitmap` for every position start+i in the set,
 * i < n; other bits untouched. */
BASALT_EXPORT void basalt_iceberg_posset_mark(const struct basalt_iceberg_posset *set,
                                              uint64_t start, size_t n, uint8_t *bitmap);
/* Writes the first min(cap, cardinality) positions in ascending order into
 * out[0..cap); returns the cardinality. */
BASALT_EXPORT uint64_t basalt_iceberg_posset_to_array(const struct basalt_iceberg_posset *set,
                                                      uint64_t *out, uint64_t cap);

/* ------------------------------------------------------- deletion vectors */

/* A deletion-vector-v1 blob: 4-byte big-endian length of what follows up to
 * the CRC, magic D1 D3 39 64, a portable 64-bit Roaring map, 4-byte
 * big-endian CRC-32 of magic and map. Returns OK; CORRUPT on any mismatch
 * (length, magic, checksum, map); NOMEM. *out: basalt_iceberg_posset_free. */
BASALT_EXPORT basalt_status basalt_iceberg_dv_parse(const void *blob, size_t len,
                                                    struct basalt_iceberg_posset **out,
                                                    struct basalt_error *err);
/* A raw portable 64-bit Roaring map (8-byte little-endian bitmap count, then
 * per bitmap a 4-byte key and a portable 32-bit Roaring bitmap), which must
 * fill data[0, len) exactly. Keys must ascend; a key above 2^31-1 is CORRUPT
 * ("Invalid unsigned key"), as Iceberg positions are non-negative longs.
 * Returns OK; CORRUPT; NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_roaring64_parse(const void *data, size_t len,
                                                           struct basalt_iceberg_posset **out,
                                                           struct basalt_error *err);
/* The deletion-vector-v1 blob Iceberg Java writes for the set: every bitmap
 * run-optimised, keys 0..max written contiguously (empty bitmaps for absent
 * keys). *out is basalt_malloc'd. Returns OK; LIMIT (a position at or above
 * 2^63, or a blob over 8 MiB: that layout spends 12 bytes on every high
 * key below the highest, so positions beyond about 2^51 are refused rather
 * than written as megabytes of empty bitmaps); NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_dv_serialize(const struct basalt_iceberg_posset *set,
                                                        uint8_t **out, size_t *len,
                                                        struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
