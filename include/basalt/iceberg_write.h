/* basalt iceberg: writing tables.
 *
 *   - basalt_iceberg_io_open_output / _delete   write and remove files at
 *                                               table locations
 *   - basalt_iceberg_data_writer_*   Arrow batches -> Parquet data files with
 *                                    field ids and column metrics, fanned out
 *                                    by partition, rolled at a target size
 *   - basalt_iceberg_manifest_write / basalt_iceberg_manifest_list_write
 *                                    manifests and manifest lists in Avro,
 *                                    with the exact schemas of the
 *                                    specification for format v1, v2 and v3
 *
 * Everything here writes files only; making them part of a table is a commit
 * (iceberg_commit.h). Every output goes through basalt_output, so a file
 * appears under its name only when complete. */
#ifndef BASALT_ICEBERG_WRITE_H
#define BASALT_ICEBERG_WRITE_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_types.h"
#include "basalt/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- io */

/* Opens a table location for writing: the location is resolved as
 * basalt_iceberg_io_resolve resolves it (mappings, file:// forms) and opened
 * with basalt_io_open_output through the io's store (local paths without
 * one). `flags`: BASALT_IO_CREATE_EXCLUSIVE makes the commit fail with
 * CONFLICT when the file exists. Parent directories of local paths are
 * created. The statuses of both calls. */
BASALT_EXPORT basalt_status basalt_iceberg_io_open_output(const struct basalt_iceberg_io *io,
                                                          const char *location, unsigned flags,
                                                          struct basalt_output **out,
                                                          struct basalt_error *err);
/* Deletes files by location (missing files are not an error). The first
 * failure is returned, naming the location; every location is tried. */
BASALT_EXPORT basalt_status basalt_iceberg_io_delete(const struct basalt_iceberg_io *io,
                                                     const char *const *locations, size_t count,
                                                     struct basalt_error *err);

/* ------------------------------------------------------------ table input */

/* An Iceberg schema (as JSON, schema-id 0, fresh ids as
 * basalt_iceberg_schema_from_text assigns them) for an Arrow struct schema:
 * Arrow's integers up to 32 bits become int, uint32 and int64 long,
 * float/double, decimal128, utf8 / large_utf8 / string views string,
 * binaries binary, fixed_size_binary(16) with the arrow.uuid extension uuid
 * and other fixed sizes fixed[L], date32/64 date, time32/64 time, timestamps
 * timestamp (timestamptz with a zone; nanosecond ones timestamp_ns from
 * format version 3), null unknown (v3), structs, lists and maps; dictionary
 * columns their value type; non-nullable fields required. *out is
 * basalt_malloc'd. UNSUPPORTED naming the column (uint64, float16,
 * decimal256 past 38 digits, unions...), NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_schema_from_arrow(const struct ArrowSchema *schema,
                                                             int32_t format_version, char **out,
                                                             struct basalt_error *err);

/* Conforms a batch of input columns to `schema`, giving a batch of the Arrow
 * type basalt_iceberg_schema_to_arrow gives (what the data writer takes):
 * top-level columns matched by name (exactly, else ignoring ASCII case),
 * primitive values cast to the table's types (integer widening, float to
 * double, temporal units, decimal scale, large offsets), nested columns
 * taken when their Arrow shape already matches, missing optional columns
 * filled with nulls. `src` is consumed (released in every case); `out` is
 * caller storage, owned on OK. INVALID_ARG (an input column the table does
 * not have, a required column missing), UNSUPPORTED (a cast the spec does
 * not allow, naming the column), NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_conform_batch(const struct basalt_iceberg_schema *schema,
                                                         const struct ArrowSchema *src_schema,
                                                         struct ArrowArray *src,
                                                         struct ArrowArray *out,
                                                         struct basalt_error *err);

/* -------------------------------------------------------------- data files */

struct basalt_pool;

struct basalt_iceberg_data_writer_options {
    /* The table's current schema and default partition spec (borrowed; they
     * must outlive the writer). A spec with no fields (or NULL) writes an
     * unpartitioned table. */
    const struct basalt_iceberg_schema *schema;
    const struct basalt_iceberg_partition_spec *spec;
    /* The table's properties (borrowed), read for:
     *   write.target-file-size-bytes (default 536870912): a file is closed
     *     and the next one opened when its bytes written pass it (its bytes
     *     so far and the row group being built, whose pending pages count at
     *     their raw size, as parquet-java's length() counts them: rows are
     *     given to a file in runs sized from its bytes per row, so a file
     *     ends close to the target);
     *   write.parquet.compression-codec (zstd default; snappy, gzip, lz4,
     *     lz4_raw, brotli, uncompressed; case ignored) and
     *     write.parquet.compression-level;
     *   write.parquet.row-group-size-bytes (default 134217728), and
     *     write.parquet.page-size-bytes, page-row-limit and dict-size-bytes
     *     (the Parquet writer's defaults when absent);
     *   write.metadata.metrics.default (default "truncate(16)") and
     *     write.metadata.metrics.column.<column name> ("none", "counts",
     *     "truncate(N)", "full"), as the Java writer applies them: a column
     *     is named by its full dotted name ("addr.city", "tags.element",
     *     "m.key"), a mode that does not parse falls back to the default;
     *   write.metadata.metrics.max-inferred-column-defaults (default 100):
     *     without an explicit default, the columns of the top-level fields
     *     past the first N get "none" unless set one by one.
     * Numbers that do not parse and unknown codecs are INVALID_ARG at new.
     * Unknown keys are ignored. (The Java writer also raises the columns of
     * the table's sort order to truncate(16) when the default is none or
     * counts; the sort order is not among these options, so that is left
     * to the caller's properties.) */
    const struct basalt_iceberg_kv *properties;
    uint32_t n_properties;
    /* Where data files go: the table's write.data.path, or
     * "<table location>/data". Files are named
     * "<data_location>/<partition path>/<file_prefix>-<NNNNN>.parquet" with
     * the partition path as the Java writer forms it
     * ("ts_month=2024-03/id_bucket=7", values URL-encoded) and NNNNN the
     * writer's count of files opened, from 00001. */
    const char *data_location;
    /* Unique per writer (e.g. "00000-0-<uuid>"), so concurrent writers never
     * name the same file. */
    const char *file_prefix;
    /* Resolves and opens the locations (borrowed). */
    const struct basalt_iceberg_io *io;
    /* Sort order id recorded in every data file (-1: none recorded). */
    int32_t sort_order_id;
    /* Rows moved from other files of a v3 table: batches carry two more
     * columns after the schema's, _row_id and _last_updated_sequence_number
     * (optional longs), written under their reserved field ids so that the
     * rows keep their lineage (the spec's "Row Lineage"). Default false. */
    bool row_lineage;
    /* Workers: the rows of the partitions a batch touches are gathered at
     * once, and the Parquet writers encode column chunks on it; files are
     * written one at a time, so they are the same for any number of
     * workers. NULL: calling thread. */
    struct basalt_pool *pool;
    int num_workers;
};

BASALT_EXPORT void basalt_iceberg_data_writer_options_init(
    struct basalt_iceberg_data_writer_options *options);

struct basalt_iceberg_data_writer;

/* INVALID_ARG (no schema, a spec field whose source is missing or whose
 * transform cannot apply), UNSUPPORTED (a type the writer cannot write),
 * NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_data_writer_new(
    const struct basalt_iceberg_data_writer_options *options,
    struct basalt_iceberg_data_writer **out, struct basalt_error *err);

/* Writes one batch. `batch` has the Arrow type basalt_iceberg_schema_to_arrow
 * gives for the schema (same columns in the same order, same formats; field
 * names are not compared; an ArrowArray carries no formats, so only its
 * structure is checked: INVALID_ARG when it does not fit); borrowed (not
 * released). A required column with a null (where its parent holds a
 * value) is INVALID_ARG naming it and the row. An unpartitioned batch goes
 * to the Parquet writer as it is; a partitioned one is routed row by row
 * and each partition's rows gathered into a batch of their own, unless the
 * whole batch falls in one partition. IO/AUTH from the outputs, NOMEM.
 * After a failure the writer can only be aborted. */
BASALT_EXPORT basalt_status basalt_iceberg_data_writer_write(struct basalt_iceberg_data_writer *w,
                                                             const struct ArrowArray *batch,
                                                             struct basalt_error *err);

/* Finishes and commits every open file and returns what was written:
 * (*files)[0, *n) in the order the files were opened, valid until the writer
 * is freed (a second call returns the same). Each has content DATA, format
 * PARQUET, the partition tuple typed by the spec's result types,
 * record_count, file_size_in_bytes, the column metrics per field id (sorted
 * by field id) as the metrics modes allow, split_offsets (the row groups'
 * starting offsets) and sort_order_id (when not -1). Metrics, per Parquet
 * leaf whose mode is not none: column size (compressed bytes), value count
 * (nulls included) and null count, for leaves inside lists and maps too;
 * NaN count for floats and doubles; lower and upper bounds (truncate and
 * full) for leaves reached through structs only, NaN never a bound,
 * strings cut to N code points and binaries to N bytes, a cut upper bound
 * incremented and left out when it cannot be; geometry, geography and
 * unknown columns get counts only. Taken from the Parquet writer's
 * statistics, not from the values again. */
BASALT_EXPORT basalt_status basalt_iceberg_data_writer_finish(struct basalt_iceberg_data_writer *w,
                                                              const struct basalt_iceberg_data_file **files,
                                                              uint32_t *n,
                                                              struct basalt_error *err);

/* Sorted writes: the rows of batches[0, n) (each of the Arrow type
 * basalt_iceberg_schema_to_arrow gives the writer's schema, `schema`) go to
 * the writer in the order of the table's default sort order in `m`
 * (stable; a transform sorts by its source column), so the data files
 * written from one call hold their rows sorted, within each partition too.
 * The batches stay the caller's; memory is theirs plus a copy of the rows
 * being written. INVALID_ARG when the table has no sort order,
 * UNSUPPORTED (a bucket transform, a column type without an order), the
 * statuses of basalt_iceberg_data_writer_write. */
BASALT_EXPORT basalt_status basalt_iceberg_data_writer_write_sorted(
    struct basalt_iceberg_data_writer *w, const struct basalt_iceberg_metadata *m,
    const struct ArrowSchema *schema, const struct ArrowArray *batches, uint32_t n,
    struct basalt_error *err);

/* Deletes every file the writer committed (after a failed commit of the
 * table, say) and closes those still open. Returns the first delete failure.
 * The writer stays valid for free only. */
BASALT_EXPORT basalt_status basalt_iceberg_data_writer_abort(struct basalt_iceberg_data_writer *w,
                                                             struct basalt_error *err);

/* NULL is a no-op. Files already committed stay (abort first to remove them). */
BASALT_EXPORT void basalt_iceberg_data_writer_free(struct basalt_iceberg_data_writer *w);

/* ---------------------------------------------------------------- manifests */

struct basalt_arena;

struct basalt_iceberg_manifest_write_options {
    int32_t format_version;                           /* 1, 2 or 3 */
    /* Borrowed. The schema is written into the "schema" / "schema-id"
     * header keys and types the partition values; the spec gives the
     * "partition" record (one field per spec field, named and numbered as
     * the spec, typed by its result type) and "partition-spec" /
     * "partition-spec-id" (NULL: unpartitioned, spec id 0). */
    const struct basalt_iceberg_schema *schema;
    const struct basalt_iceberg_partition_spec *spec;
    enum basalt_iceberg_manifest_content content;     /* v2+; v1: DATA only */
    /* The snapshot that writes the manifest: its id goes into the list
     * entry's added_snapshot_id. */
    int64_t snapshot_id;
    /* v2+: ADDED entries whose sequence_number is >= 0 keep it as their
     * data sequence number (what a rewrite of data files writes, so that
     * deletes committed after its start still apply to the new files);
     * file_sequence_number stays inherited. Default false: null. */
    bool keep_added_sequence_numbers;
};

/* Writes one manifest of `entries` to `out` (not committed: the caller
 * commits or closes it) and fills `summary` with what the manifest list
 * needs: manifest_length, partition_spec_id, content, added_snapshot_id,
 * the added / existing / deleted file and row counts, sequence_number -1,
 * min_sequence_number (over EXISTING entries, the live ones with a sequence
 * number of their own: DELETED entries are not live, as the spec and the
 * Java writer count it; -1 when there is none, meaning "this snapshot's")
 * and one partition field summary per spec field (contains_null,
 * contains_nan, set for every type as the Java writer does, lower / upper
 * bound bytes and values over every entry's partition value), allocated in
 * `arena`; an unpartitioned manifest gets an empty, non-NULL array of them;
 * summary->manifest_path is left for the caller.
 * Entry fields are written as the spec says for the version:
 *   - ADDED entries: snapshot_id written as options->snapshot_id (the file
 *     belongs to the snapshot adding it, whatever the entry holds);
 *     sequence_number and file_sequence_number written as null (inherited
 *     at read time from the manifest list entry, whose sequence number is
 *     assigned at commit), except a sequence_number kept by
 *     keep_added_sequence_numbers (it then counts towards
 *     min_sequence_number); v3 data files' first_row_id null (inherited)
 *     unless has_first_row_id;
 *   - EXISTING / DELETED entries: every value written as given (from v2 on
 *     their sequence numbers must be >= 0);
 *   - delete files: first_row_id always null (spec).
 * Partition values have the spec field's result type (day values may also
 * be ints, as the manifest reader returns them). Nothing is written before
 * every entry is checked. Codec deflate (the Java default for manifests).
 * A partition tuple whose size or types do not match the spec is INVALID_ARG
 * naming the file; a delete file in a DATA manifest or a data file in a
 * DELETES manifest too, and a spec field whose source is not in the schema.
 * UNSUPPORTED: an unknown transform, a result type without an Avro form.
 * LIMIT: counts beyond their fields. IO from `out`, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_manifest_write(
    const struct basalt_iceberg_manifest_write_options *options,
    const struct basalt_iceberg_manifest_entry *entries, uint32_t n_entries,
    struct basalt_output *out, struct basalt_arena *arena,
    struct basalt_iceberg_manifest_file *summary, struct basalt_error *err);

struct basalt_iceberg_manifest_list_write_options {
    int32_t format_version;                           /* 1, 2 or 3 */
    int64_t snapshot_id;
    bool has_parent_snapshot_id;
    int64_t parent_snapshot_id;
    int64_t sequence_number;                          /* v2+: this snapshot's */
    /* v3: the snapshot's first-row-id (the table's next-row-id). Data
     * manifests without first_row_id get one from here on, in list order,
     * each advancing it by its added and existing row counts, as the spec's
     * row-lineage rules say; *next_row_id (may be NULL) receives where it
     * ended. */
    int64_t first_row_id;
};

/* Writes a manifest list of files[0, n) to `out` (not committed). Entries
 * whose sequence_number or min_sequence_number is -1 get this snapshot's
 * sequence number. Counts of -1 (unknown) are written as null in v1, where
 * they are optional, and are INVALID_ARG from v2 on. Partition summaries
 * are written from their bound bytes (from their typed values when the
 * bytes are NULL); partitions NULL writes null, an empty array an empty
 * list. Delete manifests' first_row_id is always null (spec). The header
 * carries "snapshot-id", "parent-snapshot-id" (when there is one: the Java
 * writer writes the text "null" otherwise, this one leaves the key out),
 * "sequence-number" (v2+), "first-row-id" (v3) and "format-version".
 * IO, NOMEM, LIMIT (row ids beyond int64), INVALID_ARG (v1 with a delete
 * manifest, a NULL manifest_path, a negative v3 first_row_id). */
BASALT_EXPORT basalt_status basalt_iceberg_manifest_list_write(
    const struct basalt_iceberg_manifest_list_write_options *options,
    const struct basalt_iceberg_manifest_file *files, uint32_t n_files,
    struct basalt_output *out, int64_t *next_row_id, struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
