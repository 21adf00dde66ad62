/* Internals of the Iceberg data writer (data_write*.c): the writer's state,
 * the metrics configuration per Parquet leaf, partitions and the files they
 * write. Internal to the iceberg module. */
#ifndef BASALT_ICEBERG_DATA_WRITE_INTERNAL_H
#define BASALT_ICEBERG_DATA_WRITE_INTERNAL_H

#include "basalt/iceberg_write.h"
#include "basalt/parquet_writer.h"

/* ------------------------------------------------------------ metrics modes */

enum basalt_iceberg_dw_mode_kind {
    BASALT_ICEBERG_DW_NONE = 0,
    BASALT_ICEBERG_DW_COUNTS,
    BASALT_ICEBERG_DW_TRUNCATE,
    BASALT_ICEBERG_DW_FULL
};

struct basalt_iceberg_dw_mode {
    enum basalt_iceberg_dw_mode_kind kind;
    int32_t length; /* TRUNCATE: code points of strings, bytes of binaries */
};

/* Parses "none", "counts", "full", "truncate(N)" (N > 0), ASCII case
 * ignored, as the Java MetricsModes.fromString does. False for anything
 * else. */
bool basalt_iceberg_dw_mode_parse(const char *text, struct basalt_iceberg_dw_mode *out);

/* One Parquet leaf column, in the order the Parquet writer numbers them
 * (depth first: struct fields in order, a list's element, a map's key then
 * value). */
struct basalt_iceberg_dw_leaf {
    const struct basalt_iceberg_field *field;
    struct basalt_iceberg_dw_mode mode;
    /* Lower and upper bounds are kept: a primitive with an order, reached
     * from the table through structs only (not inside a list or map). */
    bool bounds;
    /* NaN values are counted: a float or double whose mode is not none. */
    bool nan;
};

/* ------------------------------------------------------------ partitions */

#define BASALT_ICEBERG_DW_MAX_PATH 64

/* A spec field bound to its source column. */
struct basalt_iceberg_dw_pfield {
    const struct basalt_iceberg_partition_field *field;
    const struct basalt_iceberg_field *source;
    struct basalt_iceberg_type result;    /* the transform's result type */
    /* The source column: child indices from the batch down through
     * structs, `depth` of them. */
    uint32_t path[BASALT_ICEBERG_DW_MAX_PATH];
    uint32_t depth;
};

struct basalt_iceberg_dw_file;

/* One partition tuple seen so far, with its open file. */
struct basalt_iceberg_dw_partition {
    struct basalt_iceberg_value *tuple;   /* one per spec field, bytes in the writer's arena */
    uint64_t hash;
    const char *path;                     /* "a=1/b=x"; "" when unpartitioned */
    struct basalt_iceberg_dw_file *file;  /* NULL when none is open */
    /* Rows of the batch being routed: a run of the writer's row index. */
    uint64_t batch;                       /* the batch they belong to (writer's counter) */
    int64_t first, count;
};

/* A data file, open or finished. */
struct basalt_iceberg_dw_file {
    struct basalt_parquet_writer *pw;     /* NULL once finished or discarded */
    const char *location;                 /* in the writer's arena */
    struct basalt_iceberg_dw_partition *part;
    int64_t rows;
    int64_t *nan_counts;                  /* per leaf */
    bool committed;                       /* the file exists under its name */
    struct basalt_iceberg_data_file df;   /* filled when finished */
};

/* ------------------------------------------------------------ the writer */

struct basalt_iceberg_data_writer {
    struct basalt_iceberg_data_writer_options options; /* borrowed pointers inside */
    const struct basalt_iceberg_schema *schema;
    const struct basalt_iceberg_partition_spec *spec; /* NULL: unpartitioned */
    struct ArrowSchema arrow;             /* batches' type, with PARQUET:field_id */
    struct basalt_parquet_writer_options popts;
    char *kv_metadata;                    /* the footer's iceberg.schema (basalt_malloc) */
    int64_t target_bytes;
    struct basalt_iceberg_dw_leaf *leaves;
    uint32_t n_leaves;
    bool any_nan;                         /* some leaf counts NaN */
    struct basalt_iceberg_dw_pfield *pfields;
    uint32_t n_pfields;
    /* Results and everything they point to: locations, tuples, metrics. */
    struct basalt_arena arena;
    struct basalt_iceberg_dw_file **files; /* in the order they were opened */
    uint32_t n_files, cap_files;
    struct basalt_iceberg_data_file *out;  /* finish's array */
    /* Partitions: `parts` in first-seen order, a hash table of their
     * indices + 1 over them. */
    struct basalt_iceberg_dw_partition **parts;
    uint32_t n_parts, cap_parts;
    uint32_t *slots;
    uint32_t n_slots;                     /* a power of two */
    /* Scratch of one batch: the partition of each row, the rows of each
     * partition in turn, and the partitions the batch touches in order. */
    uint32_t *row_part;
    int64_t *row_index;
    uint32_t *touched;
    int64_t scratch_rows;
    uint32_t n_touched, cap_touched;
    struct basalt_iceberg_value *tmp;     /* one tuple being formed */
    uint64_t batch_seq;
    bool failed, finished, aborted;
    /* How batches went, so tests prove the fast paths fire: rows routed to
     * partitions one by one, rows gathered into a partition's own batch,
     * and batches handed to the Parquet writer as they came. */
    struct {
        int64_t routed_rows, gathered_rows, direct_batches;
    } counters;
};

/* ------------------------------------------------------------ configuration
 * (data_write_config.c) */

/* Reads the table properties into w->popts and w->target_bytes, and makes
 * w->leaves with each leaf's metrics mode. INVALID_ARG (a property that is
 * not a number or an unknown codec, naming it), UNSUPPORTED (a type without
 * a Parquet column), NOMEM. */
basalt_status basalt_iceberg_dw_configure(struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err);

/* ------------------------------------------------------------ batch checks
 * (data_write_scan.c) */

/* INVALID_ARG naming the column and row when a required field holds a null
 * where its parent holds a value; CORRUPT for offsets that run backwards;
 * NOMEM. */
basalt_status basalt_iceberg_dw_check_required(const struct basalt_iceberg_data_writer *w,
                                               const struct ArrowArray *batch,
                                               struct basalt_error *err);
/* Adds the NaN values of rows [start, start + count) of `batch`, per leaf
 * that counts them, to counts[leaf]. CORRUPT, NOMEM. */
basalt_status basalt_iceberg_dw_count_nan(const struct basalt_iceberg_data_writer *w,
                                          const struct ArrowArray *batch, int64_t start,
                                          int64_t count, int64_t *counts,
                                          struct basalt_error *err);

/* ------------------------------------------------------------ partitions
 * (data_write_partition.c) */

/* Binds the spec's fields to their source columns (w->pfields).
 * INVALID_ARG for a source that is missing, not a primitive reached through
 * structs, or that the transform cannot apply to; NOMEM. */
basalt_status basalt_iceberg_dw_bind_spec(struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err);
/* The one partition of an unpartitioned table (made on first use). NOMEM. */
basalt_status basalt_iceberg_dw_unpartitioned(struct basalt_iceberg_data_writer *w,
                                              struct basalt_iceberg_dw_partition **out,
                                              struct basalt_error *err);
/* Computes every row's partition tuple, finds or adds its partition, and
 * leaves in w->touched the partitions of the batch in the order their first
 * rows come, each with its rows as w->row_index[first, first + count).
 * INVALID_ARG and UNSUPPORTED from the transforms; CORRUPT; NOMEM. */
basalt_status basalt_iceberg_dw_route(struct basalt_iceberg_data_writer *w,
                                      const struct ArrowArray *batch, struct basalt_error *err);

/* ------------------------------------------------------------ partition paths
 * (data_write_path.c) */

/* Appends the partition path of `tuple` (n = spec->n_fields values, typed by
 * `result` types) as Java's PartitionSpec.partitionToPath writes it:
 * "name=value" per field joined by '/', each value in its human form,
 * names and values URL-encoded. NOMEM, LIMIT. */
basalt_status basalt_iceberg_dw_partition_path(const struct basalt_iceberg_partition_spec *spec,
                                               const struct basalt_iceberg_dw_pfield *pfields,
                                               const struct basalt_iceberg_value *tuple,
                                               struct basalt_buffer *out,
                                               struct basalt_error *err);
/* The human form of one partition value (Java's Transform.toHumanString),
 * NUL-terminated into `out` (which it resets first). NOMEM. */
basalt_status basalt_iceberg_dw_human_value(const struct basalt_iceberg_transform *transform,
                                            const struct basalt_iceberg_type *result,
                                            const struct basalt_iceberg_value *value,
                                            struct basalt_buffer *out, struct basalt_error *err);

/* ------------------------------------------------------------ metrics
 * (data_write_metrics.c) */

/* The smallest upper bound of `n` bytes of UTF-8 whose first `length` code
 * points are kept (Java's UnicodeUtil.truncateStringMax): the value when it
 * has at most `length` code points, else its first `length` with the last
 * one that can be incremented incremented (surrogates skipped), the rest
 * dropped. *out_len receives the length written into `buf` (n bytes at
 * least); false when no code point can be incremented or the text is not
 * UTF-8. */
bool basalt_iceberg_dw_truncate_string_max(const uint8_t *s, size_t n, int32_t length,
                                           uint8_t *buf, size_t *out_len);
/* The byte length of the first `length` code points of s[0, n) (all of it
 * when it has fewer); *complete is false when s ends inside a code point or
 * is not UTF-8 (the length then covers the whole code points before it). */
size_t basalt_iceberg_dw_utf8_prefix(const uint8_t *s, size_t n, int32_t length, bool *complete);

/* Fills f->df's metrics (column sizes, value, null and NaN counts, bounds),
 * split offsets and record count from the Parquet writer's row groups, as
 * the leaves' modes allow, in the writer's arena. INTERNAL when the row
 * groups do not have a column per leaf; NOMEM. */
basalt_status basalt_iceberg_dw_metrics(struct basalt_iceberg_data_writer *w,
                                        struct basalt_iceberg_dw_file *f,
                                        const struct basalt_parquet_row_group *groups,
                                        size_t n_groups, struct basalt_error *err);

#endif
