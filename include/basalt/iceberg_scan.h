/* basalt iceberg: scans of a table snapshot.
 *
 * A scan reads one snapshot of a table (the current one, or one chosen by id,
 * ref or timestamp) into Arrow record batches, in the table's schema:
 *
 *   1. planning (basalt_iceberg_scan_plan): the manifest list of the snapshot,
 *      manifests pruned by their partition summaries, data files pruned by
 *      partition tuple and column metrics, delete files associated with the
 *      data files they apply to, a residual filter per file, large files split
 *      at their split offsets. The plan is deterministic: tasks follow the
 *      manifest list and manifest entry order.
 *   2. reading (basalt_iceberg_scan_stream): each task's Parquet or Avro file
 *      read by field id (renamed, added, dropped and reordered columns, type
 *      promotions int -> long, float -> double, decimal precision, date ->
 *      timestamp;
 *      a missing column reads as its identity partition value, else its
 *      initial default, else nulls), deletes applied (position deletes,
 *      deletion vectors, equality deletes) together with the residual, the
 *      selected rows kept. Files without field ids are read as Java reads
 *      them: through the table's name mapping (`schema.name-mapping.default`),
 *      where a column the mapping does not name reads as null whatever its
 *      name; without a mapping, Parquet columns by position (top-level column
 *      i is field id i + 1, nested fields unmatched) and Avro fields by the
 *      schema's names. ORC files are UNSUPPORTED. Row order is task order,
 *      then file order, whatever the number of workers.
 *
 * Delete association follows the spec's "Scan Planning" rules: a position
 * delete file applies to a data file whose data sequence number is <= its own,
 * in the same spec and partition (or from an unpartitioned delete spec), and
 * only to `referenced_data_file` when that is set; an equality delete file
 * applies to data files with a STRICTLY lower data sequence number, same
 * partition or unpartitioned delete spec; a deletion vector (v3) applies to its
 * referenced data file and supersedes position delete files for that file.
 *
 * Metadata columns may be requested by name: _file (string), _pos (long, the
 * row position in the data file), _spec_id (int), _partition (a struct of every
 * partition field of every spec of the table, by partition field id), and the
 * v3 row lineage columns _row_id and _last_updated_sequence_number (optional
 * longs: the value the data file stores, else first_row_id + _pos and the data
 * file's data sequence number; null in snapshots from before the table
 * tracked lineage).
 *
 * Threads: a scan is used by one thread at a time; it uses the pool of its
 * options for manifests, files and the inside of files. The table must
 * outlive the scan and every stream made from it. */
#ifndef BASALT_ICEBERG_SCAN_H
#define BASALT_ICEBERG_SCAN_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/iceberg_types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct basalt_iceberg_table;
struct basalt_iceberg_expr;

struct basalt_iceberg_scan_options {
    /* Time travel: at most one of these three (INVALID_ARG otherwise). */
    bool has_snapshot_id;
    int64_t snapshot_id;
    const char *ref;                 /* branch or tag name, borrowed */
    bool has_as_of;
    int64_t as_of_ms;                /* the snapshot current at this time */
    /* Row filter, unbound (names), borrowed until scan_new returns; NULL = all rows. */
    const struct basalt_iceberg_expr *filter;
    /* Output columns in this order; NULL = every column of the schema. Names
     * are dotted for sub-fields ("addr.city": the struct `addr` holding only
     * `city`), or a metadata column (above). Borrowed until
     * scan_new returns. */
    const char *const *columns;
    size_t n_columns;
    bool case_sensitive;             /* default true */
    /* Workers: `pool` (borrowed, NULL = the calling thread) and at most
     * `num_workers` of them (0 = all). */
    struct basalt_pool *pool;
    int num_workers;
    int64_t batch_size;              /* rows read per batch (default 65536) */
    bool prune;                      /* default true; false plans every file (for tests) */
    /* Default true: rows the filter rejects are dropped. False: the filter
     * only prunes (manifests, files, row groups) and every row of the files
     * read is kept, for a caller that filters the rows itself (and then need
     * not have the filter's columns read when it does not ask for them).
     * Deletes apply either way. */
    bool filter_rows;
    /* basalt_iceberg_scan_read_task over remote data files (s3://, gs://,
     * http://...): up to this many tasks ahead of the highest one asked for
     * are opened in the background by one thread (footers, deletes, and the
     * first stretch of their chunks fetched), so that requests overlap the
     * decoding. 0 (default): none. */
    int read_ahead;
    /* Plan only these data files (their paths as the manifests store them,
     * sorted in strcmp order; borrowed: they must outlive the scan). NULL:
     * every file. What table writes use to read back the files they
     * rewrite. */
    const char *const *only_files;
    size_t n_only_files;
};

/* Fills `options` with the defaults above. */
BASALT_EXPORT void basalt_iceberg_scan_options_init(struct basalt_iceberg_scan_options *options);

/* One unit of reading: a byte range of one data file with the delete files
 * that apply to it. Pointers are valid until the scan is freed. */
struct basalt_iceberg_file_task {
    const struct basalt_iceberg_data_file *file;
    const struct basalt_iceberg_data_file **deletes;   /* position, DV and equality deletes */
    uint32_t n_deletes;
    const struct basalt_iceberg_expr *residual;        /* bound; op TRUE when nothing is left */
    int64_t start, length;                             /* byte range (split at split_offsets) */
    int32_t spec_id;
    int64_t data_sequence_number;
};

struct basalt_iceberg_plan {
    struct basalt_iceberg_file_task *tasks;
    uint32_t n_tasks;
    uint32_t manifests_total;          /* data and delete manifests of the snapshot */
    uint32_t manifests_skipped;        /* data manifests pruned by partition summaries */
    uint32_t data_files_total;         /* live data files in the manifests read */
    uint32_t files_skipped_by_partition;
    uint32_t files_skipped_by_metrics;
    uint32_t delete_files;             /* live delete files in the snapshot */
};

struct basalt_iceberg_scan;

/* Starts a scan of `table` (borrowed; it must outlive the scan and its
 * streams). Selects the snapshot (none for a table without snapshots: the
 * scan is empty), the schema (the current one, or the snapshot's when time
 * travelling by id, timestamp or tag), binds the filter and resolves the
 * columns. `options` NULL means the defaults; it is copied.
 * Returns OK; NOT_FOUND ("snapshot 1234 not found", "ref 'x' not found", no
 * snapshot at that time, an unknown column in the filter or the columns);
 * INVALID_ARG (several time-travel options, a filter literal that does not
 * convert); the statuses of the metadata; NOMEM. *out is NULL on failure. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_new(const struct basalt_iceberg_table *table,
                                                    const struct basalt_iceberg_scan_options *options,
                                                    struct basalt_iceberg_scan **out,
                                                    struct basalt_error *err);

/* Frees the scan, its plan and everything it read. Streams made from the
 * scan must be released first. NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_scan_free(struct basalt_iceberg_scan *scan);

/* Plans the scan (once; later calls return the same plan), valid until the
 * scan is freed. Returns OK; IO / NOT_FOUND (a manifest that cannot be read);
 * CORRUPT / UNSUPPORTED from the manifests; NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_plan(struct basalt_iceberg_scan *scan,
                                                     const struct basalt_iceberg_plan **out,
                                                     struct basalt_error *err);

/* The Arrow schema of the output batches (format "+s", one child per output
 * column, each with "PARQUET:field_id" metadata), caller storage owned on OK.
 * Returns OK, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_schema(struct basalt_iceberg_scan *scan,
                                                       struct ArrowSchema *out,
                                                       struct basalt_error *err);

/* Makes `out` (caller storage) a stream of the scan's rows (plans first).
 * The stream borrows the scan: release it before freeing the scan; one stream
 * at a time per scan. get_next returns EIO for CORRUPT and IO, ENOSYS for
 * UNSUPPORTED, ENOMEM, ERANGE for LIMIT, EINVAL otherwise, with the message
 * from get_last_error; batches are never empty.
 * Returns OK; the statuses of basalt_iceberg_scan_plan; INVALID_ARG (a stream
 * of this scan is still open); NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_stream(struct basalt_iceberg_scan *scan,
                                                       struct ArrowArrayStream *out,
                                                       struct basalt_error *err);

/* Plans the scan and readies it for basalt_iceberg_scan_read_task, which
 * reads the tasks of *plan one at a time: what a query engine uses to read
 * file tasks as parallel morsels. Returns as basalt_iceberg_scan_plan. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_prepare_tasks(
    struct basalt_iceberg_scan *scan, const struct basalt_iceberg_plan **plan,
    struct basalt_error *err);

/* Reads task `task` of the prepared scan whole (deletes and the residual
 * applied) and appends its batches, in file order, to `out` (its schema is
 * not set: it is basalt_iceberg_scan_schema's). Several threads may read
 * different tasks of one scan at once; the pool is not used.
 * Returns OK; INVALID_ARG (task out of range, scan not prepared); the
 * statuses of the stream's get_next. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_read_task(struct basalt_iceberg_scan *scan,
                                                          uint32_t task,
                                                          struct basalt_arrow_batches *out,
                                                          struct basalt_error *err);

/* Makes `out` (caller storage) a stream of task `task` of the prepared scan
 * (basalt_iceberg_scan_prepare_tasks): its batches in file order, deletes
 * and the residual applied, the scan's pool used inside the file. What a
 * server hands one client per task (Arrow Flight endpoints). Several task
 * streams of one scan may be open at once, each used by one thread; release
 * them before freeing the scan. get_next fails as basalt_iceberg_scan_stream's.
 * Returns OK; INVALID_ARG (task out of range, scan not prepared); the
 * statuses of opening the file; NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_task_stream(struct basalt_iceberg_scan *scan,
                                                            uint32_t task,
                                                            struct ArrowArrayStream *out,
                                                            struct basalt_error *err);

/* As basalt_iceberg_scan_task_stream, with the Parquet columns' decoded
 * values, validity and offsets in memory from `allocator` (borrowed: it
 * must outlive every batch; NULL: the heap): a shared-memory producer
 * decodes straight into its segment. Columns the scan computes (deleted
 * rows taken out, the residual applied, promoted types, metadata columns)
 * are built on the heap as before. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_task_stream_into(
    struct basalt_iceberg_scan *scan, uint32_t task, const struct basalt_arrow_allocator *allocator,
    struct ArrowArrayStream *out, struct basalt_error *err);

/* The number of rows the scan yields: summed from the manifests' record
 * counts when no residual and no delete applies to a task, otherwise by
 * reading only the columns the residual and the deletes need.
 * Returns as basalt_iceberg_scan_stream. */
BASALT_EXPORT basalt_status basalt_iceberg_scan_count(struct basalt_iceberg_scan *scan,
                                                      int64_t *out, struct basalt_error *err);

struct basalt_input_stats;
/* What the scan's reads have cost so far on object stores: the requests
 * sent for its manifest list, manifests, data and delete files, and the
 * bytes they asked for (basalt_input_stats; the table's metadata file,
 * read when the table was loaded, is not the scan's). A file counts once
 * it is closed, so after a stream has ended or a read task is done the
 * figures are whole. Its own, even when several scans share one store
 * (whose counters, basalt_io_store_stats, add them all up). Zeros for
 * local tables. Thread-safe. */
BASALT_EXPORT void basalt_iceberg_scan_io_stats(const struct basalt_iceberg_scan *scan,
                                                struct basalt_input_stats *out);

/* The Arrow type of an Iceberg schema, format "+s", one child per field:
 * boolean "b", int "i", long "l", float "f", double "g", decimal(P,S) "d:P,S",
 * date "tdD", time "ttu", timestamp "tsu:", timestamptz "tsu:UTC",
 * timestamp_ns "tsn:", timestamptz_ns "tsn:UTC", string "u", uuid "w:16",
 * fixed[L] "w:L", binary "z", unknown "n", geometry/geography "z" (WKB),
 * struct "+s", list "+l" (child "element"), map "+m" (entries "key_value" of
 * "key", "value"). Every field carries "PARQUET:field_id" metadata; optional
 * fields are nullable. `out` is caller storage, owned on OK.
 * Returns OK; UNSUPPORTED (variant); NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_schema_to_arrow(const struct basalt_iceberg_schema *schema,
                                                           struct ArrowSchema *out,
                                                           struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
