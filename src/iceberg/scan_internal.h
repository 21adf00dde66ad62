/* Internal declarations of Iceberg scans: planning, reading data files into
 * the table schema, deletes. Not part of the public API. */
#ifndef BASALT_SCAN_INTERNAL_H
#define BASALT_SCAN_INTERNAL_H

#include <stdatomic.h>

#include "basalt/arrow.h"
#include "basalt/iceberg_scan.h"
#include "basalt/iceberg_types.h"
#include "io_internal.h"

struct basalt_iceberg_expr;
struct basalt_iceberg_manifest;
struct basalt_iceberg_manifest_cache;
struct basalt_iceberg_manifest_list;
struct basalt_iceberg_posset;

/* ------------------------------------------------------------ arrow types */

/* The Arrow format string of a primitive Iceberg type into buf. UNSUPPORTED
 * (variant, nested types); LIMIT when buf is too small. */
basalt_status basalt_iceberg_scan_type_format(const struct basalt_iceberg_type *type, char *buf,
                                              size_t cap, struct basalt_error *err);
/* One field as an Arrow schema node (caller storage, owned on OK). */
basalt_status basalt_iceberg_scan_field_to_arrow(const struct basalt_iceberg_field *field,
                                                 struct ArrowSchema *out, struct basalt_error *err);
/* The PARQUET:field_id of a schema node; false when it has none. */
bool basalt_iceberg_scan_arrow_field_id(const struct ArrowSchema *schema, int32_t *id);

/* ------------------------------------------------------------ row lineage */

/* The optional long field _row_id or _last_updated_sequence_number (by its
 * reserved id); NULL for another id. */
const struct basalt_iceberg_field *basalt_iceberg_row_lineage_field(int32_t id);
/* Whether rewrites of this table must carry its rows' lineage (v3 and on). */
bool basalt_iceberg_tracks_row_lineage(const struct basalt_iceberg_metadata *m);
/* `schema` with the two lineage fields appended, for a data writer whose
 * batches carry them after the table's columns (arena-owned). */
basalt_status basalt_iceberg_schema_with_lineage(struct basalt_arena *arena,
                                                 const struct basalt_iceberg_schema *schema,
                                                 const struct basalt_iceberg_schema **out,
                                                 struct basalt_error *err);
/* Rows [pos, pos + n) of the task's file in the lineage column `field_id`:
 * the values `stored` in the file (conformed to long; NULL when the file has
 * none) where not null, else inherited: first_row_id + position, or the
 * file's data sequence number. Null where the file has no first_row_id (a
 * snapshot from before the table tracked lineage). */
basalt_status basalt_iceberg_lineage_column(const struct basalt_iceberg_file_task *task,
                                            int32_t field_id, int64_t pos, int64_t n,
                                            const struct ArrowArray *stored,
                                            struct ArrowArray *out, struct basalt_error *err);

/* ------------------------------------------------------------ columns */

enum basalt_iceberg_column_kind {
    BASALT_ICEBERG_COLUMN_DATA = 0,
    BASALT_ICEBERG_COLUMN_FILE,
    BASALT_ICEBERG_COLUMN_POS,
    BASALT_ICEBERG_COLUMN_SPEC_ID,
    BASALT_ICEBERG_COLUMN_PARTITION,
    /* v3 row lineage: the file's value where it has one, else inherited */
    BASALT_ICEBERG_COLUMN_ROW_ID,
    BASALT_ICEBERG_COLUMN_LAST_UPDATED_SEQ
};

/* One column of a read layout: a (possibly pruned) copy of a schema field. */
struct basalt_iceberg_column {
    enum basalt_iceberg_column_kind kind;
    const struct basalt_iceberg_field *field;
};

/* What a data file is read into: `cols` (arrow: their schema, "+s"); the
 * output is cols[out_index[i]] for i < n_out, narrowed to out_fields[i] when
 * out_narrow[i] (a struct column widened for the filter or the deletes). */
struct basalt_iceberg_layout {
    struct basalt_iceberg_column *cols;
    uint32_t n_cols;
    struct ArrowSchema arrow;
    uint32_t n_out;
    uint32_t *out_index;
    const struct basalt_iceberg_field **out_fields;
    bool *out_narrow;
    struct ArrowSchema out_arrow;
    bool needs_pos;            /* a _pos or _row_id column is read */
};

/* The fields with these ids (and everything below them), and the ancestors
 * leading to them, copied into the arena; NULL when none is in the subtree
 * (or out of memory: *nomem is set). */
const struct basalt_iceberg_field *basalt_iceberg_field_prune(struct basalt_arena *arena,
                                                              const struct basalt_iceberg_field *field,
                                                              const int32_t *ids, size_t n_ids,
                                                              bool *nomem);
/* Whether two pruned copies of one field have the same shape. */
bool basalt_iceberg_field_same_shape(const struct basalt_iceberg_field *a,
                                     const struct basalt_iceberg_field *b);
/* Appends the id of every field in the subtree (itself included) to *ids. */
basalt_status basalt_iceberg_field_collect_ids(const struct basalt_iceberg_field *field,
                                               int32_t **ids, size_t *n, size_t *cap,
                                               struct basalt_error *err);

/* ------------------------------------------------------------ reading */

/* Per-task constants a file read needs. */
struct basalt_iceberg_read_ctx {
    const struct basalt_iceberg_data_file *file;
    const struct basalt_iceberg_partition_spec *spec;   /* the task's spec */
    const struct basalt_iceberg_schema *schema;         /* table schema of the scan */
    const struct basalt_iceberg_field *partition_type;  /* the _partition struct field */
    int32_t spec_id;
};

/* Conforms `src` (an array of the file, type `src_schema` whose nodes carry
 * field ids) to `field` (a table field): children matched by field id,
 * missing ones filled with nulls or defaults, primitive values cast to the
 * table type. `src` is consumed (released on return in every case).
 * `out` has `length` elements; src NULL means the field is absent from the
 * file (a constant column). */
basalt_status basalt_iceberg_conform(const struct basalt_iceberg_read_ctx *ctx,
                                     const struct basalt_iceberg_field *field,
                                     const struct ArrowSchema *src_schema, struct ArrowArray *src,
                                     int64_t length, struct ArrowArray *out,
                                     struct basalt_error *err);
/* A column of `length` copies of `value` (null when value is NULL or null)
 * of the field's type. */
basalt_status basalt_iceberg_constant_array(const struct basalt_iceberg_field *field,
                                            const struct basalt_iceberg_value *value, int64_t length,
                                            struct ArrowArray *out, struct basalt_error *err);
/* Casts a primitive array of Arrow format `from` to Iceberg type `to`
 * (promotions, units, offset widths); consumes `src`. UNSUPPORTED for
 * conversions the spec does not allow. */
basalt_status basalt_iceberg_cast(const char *from, struct ArrowArray *src,
                                  const struct basalt_iceberg_type *to, struct ArrowArray *out,
                                  struct basalt_error *err);
/* The rows of `src` (type `schema`) whose bit is set in `sel`, `n_sel` of
 * them, as a new array (offset 0); `src` is left as it is. */
basalt_status basalt_iceberg_filter_array(const struct ArrowSchema *schema,
                                          const struct ArrowArray *src, const uint8_t *sel,
                                          int64_t n_sel, struct ArrowArray *out,
                                          struct basalt_error *err);
/* A struct array narrowed to `to` (a pruned copy of its type `from`):
 * children moved out of `src` (consumed). */
basalt_status basalt_iceberg_narrow(const struct basalt_iceberg_field *from,
                                    const struct basalt_iceberg_field *to, struct ArrowArray *src,
                                    struct ArrowArray *out, struct basalt_error *err);

struct basalt_parquet_scan;
/* Hands the simple conjuncts of `residual` (comparisons and null tests of
 * primitive columns stored in the table type's unit) to a Parquet scan
 * that has not started, for row-group and page pruning; `file` is the
 * reader's schema with field ids. *pushed counts them. NOMEM; what the
 * reader refuses is left out. Row positions are not contiguous afterwards:
 * not for scans that need them. */
basalt_status basalt_iceberg_pushdown(struct basalt_parquet_scan *pscan, const struct ArrowSchema *file,
                                      const struct basalt_iceberg_expr *residual, int *pushed,
                                      struct basalt_error *err);

/* Adds PARQUET:field_id metadata to a file schema without ids, from the
 * table's name mapping (JSON text `mapping_json`; NULL: the names of
 * `schema`, as Java reads Avro files without ids). Fields the mapping does
 * not name keep no id, so they read as null (or their default). CORRUPT for a
 * malformed mapping; NOMEM. */
basalt_status basalt_iceberg_name_mapping_apply(const char *mapping_json,
                                                const struct basalt_iceberg_schema *schema,
                                                struct ArrowSchema *arrow, struct basalt_error *err);
/* Whether any node below `s` has a PARQUET:field_id (Java's hasIds: a file
 * with one id anywhere is read by its ids). */
bool basalt_iceberg_arrow_has_ids(const struct ArrowSchema *s);
/* The ids Java gives a Parquet file with neither field ids nor a name
 * mapping: top-level column i gets id i + 1 (columns read by position);
 * nested fields get none. NOMEM, LIMIT. */
basalt_status basalt_iceberg_position_ids_apply(struct ArrowSchema *arrow, struct basalt_error *err);

/* An Avro data file read for a layout: the top-level fields whose ids
 * (from the file's field-id properties, else from the name mapping, else
 * the schema's names) the layout reads, decoded into struct batches whose
 * schema carries the ids (field-id, element-id, key-id, value-id) as
 * PARQUET:field_id. Whole files only (no splits). */
struct basalt_iceberg_avro_source;
basalt_status basalt_iceberg_avro_source_open(const struct basalt_iceberg_scan *scan,
                                              const struct basalt_iceberg_data_file *file,
                                              const struct basalt_iceberg_layout *layout,
                                              int64_t batch_size,
                                              struct basalt_iceberg_avro_source **out,
                                              struct basalt_error *err);
/* The schema of the batches (valid until close). */
const struct ArrowSchema *basalt_iceberg_avro_source_schema(const struct basalt_iceberg_avro_source *a);
/* The next batch of up to batch_size records, or a released array at the end. */
basalt_status basalt_iceberg_avro_source_next(struct basalt_iceberg_avro_source *a,
                                              struct ArrowArray *out, struct basalt_error *err);
void basalt_iceberg_avro_source_close(struct basalt_iceberg_avro_source *a);

/* ------------------------------------------------------------ deletes */

/* Equality delete rows as a set of encoded tuples. */
struct basalt_iceberg_eqset;
basalt_status basalt_iceberg_eqset_new(const int32_t *ids, uint32_t n_ids,
                                       struct basalt_iceberg_eqset **out, struct basalt_error *err);
void basalt_iceberg_eqset_free(struct basalt_iceberg_eqset *set);
/* The field ids the set is keyed on. */
const int32_t *basalt_iceberg_eqset_ids(const struct basalt_iceberg_eqset *set, uint32_t *n);
/* Adds every row of `batch` (struct, type `schema`) as a tuple of the
 * set's columns, found by field id. NOT_FOUND for a missing column. */
basalt_status basalt_iceberg_eqset_add_batch(struct basalt_iceberg_eqset *set,
                                             const struct ArrowSchema *schema,
                                             const struct ArrowArray *batch,
                                             struct basalt_error *err);
/* Clears bit i of `sel` for each selected row i of `batch` whose tuple is in
 * the set (null equals null). */
basalt_status basalt_iceberg_eqset_apply(const struct basalt_iceberg_eqset *set,
                                         const struct ArrowSchema *schema,
                                         const struct ArrowArray *batch, uint8_t *sel,
                                         struct basalt_error *err);
uint64_t basalt_iceberg_eqset_size(const struct basalt_iceberg_eqset *set);

/* Whether delete file `del` (spec `del_spec`, data sequence number
 * `del_seq`) applies to data file `data` (spec `data_spec`, `data_seq`). */
bool basalt_iceberg_delete_applies(const struct basalt_iceberg_data_file *data, int32_t data_spec_id,
                                   int64_t data_seq, const struct basalt_iceberg_data_file *del,
                                   const struct basalt_iceberg_partition_spec *del_spec,
                                   int64_t del_seq);
/* Whether a spec has no partition fields that partition (none, or all void). */
bool basalt_iceberg_spec_unpartitioned(const struct basalt_iceberg_partition_spec *spec);

/* One delete file known to the planner. */
struct basalt_iceberg_delete_entry {
    const struct basalt_iceberg_data_file *file;
    const struct basalt_iceberg_partition_spec *spec;
    int32_t spec_id;
    int64_t seq;
};

/* The delete files that apply to data file `data`: DVs first (superseding
 * position delete files), then position, then equality deletes, each in
 * `deletes` order. *out is allocated in `arena`. */
basalt_status basalt_iceberg_deletes_for(const struct basalt_iceberg_delete_entry *deletes,
                                         uint32_t n_deletes,
                                         const struct basalt_iceberg_data_file *data,
                                         int32_t data_spec_id, int64_t data_seq,
                                         struct basalt_arena *arena,
                                         const struct basalt_iceberg_data_file ***out,
                                         uint32_t *n_out, struct basalt_error *err);

/* ------------------------------------------------------------ the scan */

/* Loaded delete data shared by the tasks of one scan. */
struct basalt_iceberg_delete_cache;
basalt_status basalt_iceberg_delete_cache_new(struct basalt_iceberg_delete_cache **out,
                                              struct basalt_error *err);
void basalt_iceberg_delete_cache_free(struct basalt_iceberg_delete_cache *cache);
struct basalt_iceberg_scan;
/* Reads every delete file the plan's tasks refer to (on the scan's pool),
 * once; later calls do nothing. */
basalt_status basalt_iceberg_delete_cache_load(struct basalt_iceberg_scan *scan,
                                               struct basalt_iceberg_delete_cache *cache,
                                               struct basalt_error *err);

struct basalt_iceberg_scan {
    const struct basalt_iceberg_table *table;
    struct basalt_iceberg_scan_options options;
    struct basalt_arena arena;
    const struct basalt_iceberg_snapshot *snapshot;   /* NULL: empty table */
    const struct basalt_iceberg_schema *schema;
    struct basalt_iceberg_expr *bound;                /* bound filter (TRUE when none) */
    struct basalt_iceberg_layout layout;
    const struct basalt_iceberg_field *partition_type; /* struct of every partition field */
    const char *name_mapping;                          /* property, or NULL */

    struct basalt_iceberg_layout read_layout;          /* layout + equality delete columns */
    struct basalt_iceberg_layout count_layout;         /* residual and equality delete columns only */

    bool planned;
    basalt_status plan_status;
    struct basalt_error plan_err;
    struct basalt_iceberg_plan plan;
    struct basalt_iceberg_manifest_list *manifest_list;
    struct basalt_iceberg_manifest **manifests;
    uint32_t n_manifests;
    struct basalt_iceberg_manifest_cache *manifest_cache; /* its Avro plans outlive the manifests */
    struct basalt_iceberg_delete_cache *deletes;
    bool streaming;
    /* Data files opened by task readers (tests prove the count fast path). */
    _Atomic int64_t files_opened;
    /* Conjuncts handed to the Parquet reader, over all files (tests). */
    _Atomic int64_t predicates_pushed;
    struct basalt_iceberg_read_ahead *ahead; /* options.read_ahead over remote files */
    /* The table's io with counters of this scan's own: every file the scan
     * reads is opened through it. */
    struct basalt_iceberg_io io;
    struct basalt_iceberg_io_counts io_counts;
};

/* read_ahead.c: tasks opened ahead of basalt_iceberg_scan_read_task. */
struct basalt_iceberg_read_ahead;
struct basalt_iceberg_task_reader;
/* Starts the opener for a prepared scan when options.read_ahead > 0 and
 * the tasks' files are remote; on any failure there is simply none. */
void basalt_iceberg_read_ahead_start(struct basalt_iceberg_scan *scan);
/* The reader of task t: opened ahead (waiting for it when it is being
 * opened), else *out NULL and the caller opens it. Marks t taken. */
void basalt_iceberg_read_ahead_take(struct basalt_iceberg_scan *scan, uint32_t t,
                                    struct basalt_iceberg_task_reader **out);
/* Stops the opener and closes the readers nobody took. */
void basalt_iceberg_read_ahead_stop(struct basalt_iceberg_scan *scan);

/* Files larger than this are split at their split offsets into tasks of
 * about this size (a small file stays one task). */
#define BASALT_ICEBERG_SPLIT_TARGET (128ll << 20)
/* Appends the tasks of proto->file (copies of `proto` with start/length set)
 * to the growing array *tasks (*n used, *cap allocated). NOMEM, LIMIT. */
basalt_status basalt_iceberg_split_file(struct basalt_iceberg_file_task *proto,
                                        struct basalt_iceberg_file_task **tasks, uint32_t *n,
                                        uint32_t *cap, struct basalt_error *err);
/* Plans (once), builds the read or count layout, loads the delete files. */
/* The status a stream of basalt_iceberg_scan_stream failed with (IO when it
 * has not): the errno code get_next returns cannot tell CORRUPT from IO,
 * and callers must (a commit keeps its files after an IO failure). */
basalt_status basalt_iceberg_scan_stream_status(const struct ArrowArrayStream *stream);

basalt_status basalt_iceberg_scan_prepare(struct basalt_iceberg_scan *scan, bool count,
                                          struct basalt_error *err);
/* Plans into scan->plan. */
basalt_status basalt_iceberg_scan_do_plan(struct basalt_iceberg_scan *scan, struct basalt_error *err);
/* Builds scan->layout from the options' columns, the bound filter and the
 * equality delete columns `eq_ids`. */
basalt_status basalt_iceberg_layout_build(struct basalt_iceberg_scan *scan,
                                          const char *const *columns, size_t n_columns,
                                          const int32_t *extra_ids, size_t n_extra,
                                          struct basalt_iceberg_layout *layout,
                                          struct basalt_error *err);
void basalt_iceberg_layout_reset(struct basalt_iceberg_layout *layout);
/* A layout reading exactly these whole fields (borrowed), output as read. */
basalt_status basalt_iceberg_layout_for_fields(const struct basalt_iceberg_field *const *fields,
                                               uint32_t n, struct basalt_iceberg_layout *layout,
                                               struct basalt_error *err);

/* Loads the delete files of a task into the cache (each file read once per
 * scan; safe to call from several threads) and gives the task's deleted
 * positions (NULL: none; owned by the caller) and equality sets (views into
 * the cache, `*n_eq` of them, array basalt_malloc'd). */
basalt_status basalt_iceberg_task_deletes(struct basalt_iceberg_scan *scan,
                                          const struct basalt_iceberg_file_task *task,
                                          struct basalt_iceberg_posset **positions,
                                          const struct basalt_iceberg_eqset ***eq, uint32_t *n_eq,
                                          struct basalt_error *err);

/* One task being read. */
struct basalt_iceberg_task_reader;
/* Opens the task's file for `layout`; `pool` is used inside the file. */
basalt_status basalt_iceberg_task_reader_open(struct basalt_iceberg_scan *scan,
                                              const struct basalt_iceberg_file_task *task,
                                              const struct basalt_iceberg_layout *layout,
                                              struct basalt_pool *pool, int num_workers,
                                              struct basalt_iceberg_task_reader **out,
                                              struct basalt_error *err);
/* As _open, with the Parquet file's decoded values in memory from
 * `allocator` (borrowed, NULL: the heap; see basalt_parquet_read_options). */
basalt_status basalt_iceberg_task_reader_open_into(
    struct basalt_iceberg_scan *scan, const struct basalt_iceberg_file_task *task,
    const struct basalt_iceberg_layout *layout, struct basalt_pool *pool, int num_workers,
    const struct basalt_arrow_allocator *allocator, struct basalt_iceberg_task_reader **out,
    struct basalt_error *err);
/* The next non-empty output batch (layout->out_arrow), or a released array at
 * the end. With count_only, *count gets the selected rows and no batch is built. */
basalt_status basalt_iceberg_task_reader_next(struct basalt_iceberg_task_reader *reader,
                                              struct ArrowArray *out, struct basalt_error *err);
basalt_status basalt_iceberg_task_reader_count(struct basalt_iceberg_task_reader *reader,
                                               int64_t *count, struct basalt_error *err);
void basalt_iceberg_task_reader_close(struct basalt_iceberg_task_reader *reader);

#endif
