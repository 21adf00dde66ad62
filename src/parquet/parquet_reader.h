/* The Parquet reader front end (reader*.c, prune*.c, bloom*.c): the open
 * file, scan planning (statistics, bloom filters, page index), the
 * scheduling of column-chunk decodes on the pool, batches and the stream.
 * Internal to the parquet module; the public API is basalt/parquet.h. */
#ifndef BASALT_PARQUET_READER_H
#define BASALT_PARQUET_READER_H

#include "basalt/parquet.h"
#include "parquet_crypto.h"
#include "parquet_schema.h"

/* ------------------------------------------------------------------ reader */

/* The writer as created_by names it, for the workarounds of known writer
 * bugs. A missing or malformed version reads as 0.0.0 (known false). */
struct basalt_parquet_writer_version {
    bool known;        /* created_by parsed as "<app> version <major>.<minor>.<patch>" */
    bool parquet_mr;   /* app is parquet-mr */
    bool parquet_cpp;  /* app is parquet-cpp (Arrow C++ before it wrote parquet-cpp-arrow) */
    int major, minor, patch;
};

struct basalt_parquet_reader {
    struct basalt_input *input;
    bool owns_input;
    const uint8_t *view;           /* the whole file in memory, or NULL */
    const char *name;              /* for messages */
    struct basalt_parquet_reader_options options;
    struct basalt_arena arena;     /* the decoded footer */
    struct basalt_parquet_file_metadata md;
    struct basalt_parquet_schema *schema;
    uint64_t data_end;             /* where the footer starts: chunks end before it */
    int64_t num_rows;
    struct basalt_parquet_writer_version writer;
    int32_t *column_orders;        /* per leaf: enum basalt_parquet_column_order_kind */
    struct basalt_parquet_file_crypto *crypto; /* NULL: a plaintext file */
};

/* Parses a created_by string (NULL allowed). */
void basalt_parquet_writer_version_parse(const char *created_by,
                                         struct basalt_parquet_writer_version *out);
/* a < (major, minor, patch)? */
bool basalt_parquet_writer_version_lt(const struct basalt_parquet_writer_version *v, int major,
                                      int minor, int patch);
/* parquet-mr before 1.2.9 left the dictionary page header out of the
 * column chunk sizes (PARQUET-816): chunks are read up to 100 bytes longer. */
bool basalt_parquet_writer_short_chunks(const struct basalt_parquet_writer_version *v);
/* parquet-cpp before 2.0.0 (the fixed version Arrow C++ uses for
 * ARROW-17100 / ARROW-10353) wrote compressed DATA_PAGE_V2 values with
 * is_compressed false. */
bool basalt_parquet_writer_v2_always_compressed(const struct basalt_parquet_writer_version *v);

/* The byte range of a column chunk: from min(dictionary_page_offset,
 * data_page_offset) for total_compressed_size bytes (with the PARQUET-816
 * padding for old parquet-mr files), checked to lie between the leading
 * magic and the footer. CORRUPT otherwise; UNSUPPORTED for a chunk in
 * another file; UNSUPPORTED / AUTH for an encrypted one without its key. */
basalt_status basalt_parquet_reader_chunk_range(const struct basalt_parquet_reader *reader,
                                                int32_t row_group, int32_t leaf,
                                                uint64_t *offset, uint64_t *length,
                                                struct basalt_error *err);

/* The column metadata of a chunk (decrypted for an encrypted chunk with its
 * key), or UNSUPPORTED / AUTH (encrypted, no key) / CORRUPT (missing) naming
 * nothing: callers add the context. */
basalt_status basalt_parquet_reader_chunk_meta(const struct basalt_parquet_reader *reader,
                                               int32_t row_group, int32_t leaf,
                                               const struct basalt_parquet_column_metadata **out,
                                               struct basalt_error *err);

/* Prepends "<file>: row group R: column 'path'" to err (row_group < 0 or
 * leaf < 0 leave those parts out) and returns st. */
basalt_status basalt_parquet_reader_context(const struct basalt_parquet_reader *reader,
                                            int32_t row_group, int32_t leaf, basalt_status st,
                                            struct basalt_error *err);

/* ------------------------------------------------------------------ pruning */

/* How the values of a leaf compare, for pruning. */
enum basalt_parquet_value_class {
    BASALT_PARQUET_CLASS_NONE = 0, /* never pruned on bounds */
    BASALT_PARQUET_CLASS_BOOL,
    BASALT_PARQUET_CLASS_INT,      /* INT32 / INT64, signed */
    BASALT_PARQUET_CLASS_UINT,     /* INT32 / INT64, unsigned */
    BASALT_PARQUET_CLASS_FLOAT,    /* FLOAT, DOUBLE, FLOAT16: compared as double */
    BASALT_PARQUET_CLASS_BYTES     /* BYTE_ARRAY / FLBA, unsigned lexicographic */
};

enum basalt_parquet_sort_order basalt_parquet_leaf_sort_order(
    const struct basalt_parquet_schema_leaf *leaf);
enum basalt_parquet_value_class basalt_parquet_leaf_value_class(
    const struct basalt_parquet_schema_leaf *leaf);

/* A predicate bound to a leaf, its literal normalised to the leaf's class. */
struct basalt_parquet_predicate {
    int32_t leaf;
    enum basalt_parquet_op op;
    enum basalt_parquet_value_class cls;
    bool comparable;   /* the literal can be compared with bounds (not NaN, class not NONE) */
    int64_t i;         /* CLASS_INT, and CLASS_BOOL (0/1) */
    uint64_t u;        /* CLASS_UINT */
    bool u_negative;   /* CLASS_UINT: the literal is below 0 (below every value) */
    double d;          /* CLASS_FLOAT */
    uint8_t *bytes;    /* CLASS_BYTES: owned copy */
    size_t len;
    struct basalt_parquet_literal literal; /* as given (bytes point to `bytes`) */
};

/* Binds `literal` to `leaf` into `out` (which then owns a copy of the bytes:
 * basalt_parquet_predicate_reset). INVALID_ARG for a literal kind that does
 * not fit the leaf; NOMEM. */
basalt_status basalt_parquet_predicate_init(struct basalt_parquet_predicate *out,
                                            const struct basalt_parquet_schema_leaf *leaf,
                                            int32_t leaf_index, enum basalt_parquet_op op,
                                            const struct basalt_parquet_literal *literal,
                                            struct basalt_error *err);
void basalt_parquet_predicate_reset(struct basalt_parquet_predicate *p);

/* What is known about a set of values (a chunk or a page). */
struct basalt_parquet_bounds {
    bool has_min_max;
    struct basalt_parquet_binary min, max;  /* PLAIN-encoded */
    bool min_exact, max_exact;
    bool has_null_count;
    int64_t null_count;
    bool has_nan_count;
    int64_t nan_count;
    int64_t num_values;     /* -1 when unknown */
    bool all_null;          /* every value is null (a null page) */
};

/* False when no value described by `b` can satisfy `p` (prune); true when
 * one may. Malformed bounds (a wrong width) count as unknown. */
bool basalt_parquet_predicate_may_match(const struct basalt_parquet_predicate *p,
                                        const struct basalt_parquet_schema_leaf *leaf,
                                        const struct basalt_parquet_bounds *b);

/* The trusted statistics of a chunk (the rules of basalt/parquet.h). */
void basalt_parquet_stats_of(const struct basalt_parquet_reader *reader, int32_t leaf,
                             const struct basalt_parquet_column_metadata *meta,
                             struct basalt_parquet_column_stats *out);

/* Whether ColumnIndex bounds of `leaf` may be used (the column order). */
bool basalt_parquet_page_bounds_usable(const struct basalt_parquet_reader *reader, int32_t leaf);

/* The PLAIN encoding of the literal of an `=` predicate in the leaf's
 * physical type, for a bloom filter probe: false when no probe is sound
 * (floats equal to zero or NaN, a value the type cannot hold, BOOLEAN). */
bool basalt_parquet_predicate_plain(const struct basalt_parquet_predicate *p,
                                    const struct basalt_parquet_schema_leaf *leaf, uint8_t buf[16],
                                    const uint8_t **data, size_t *len);

/* ------------------------------------------------------------------ row ranges */

/* Sorted, disjoint, non-adjacent [begin, end) ranges of row numbers. */
struct basalt_parquet_ranges {
    int64_t *r;   /* 2 * n entries */
    int32_t n;
    int32_t cap;
};

void basalt_parquet_ranges_init(struct basalt_parquet_ranges *rr);
void basalt_parquet_ranges_reset(struct basalt_parquet_ranges *rr);
/* Appends [begin, end), merging with the last range; ranges must come in
 * order. NOMEM. */
basalt_status basalt_parquet_ranges_add(struct basalt_parquet_ranges *rr, int64_t begin,
                                        int64_t end, struct basalt_error *err);
/* out = a AND b. NOMEM. */
basalt_status basalt_parquet_ranges_intersect(const struct basalt_parquet_ranges *a,
                                              const struct basalt_parquet_ranges *b,
                                              struct basalt_parquet_ranges *out,
                                              struct basalt_error *err);
/* out = a OR b. NOMEM. */
basalt_status basalt_parquet_ranges_union(const struct basalt_parquet_ranges *a,
                                          const struct basalt_parquet_ranges *b,
                                          struct basalt_parquet_ranges *out,
                                          struct basalt_error *err);
bool basalt_parquet_ranges_equal(const struct basalt_parquet_ranges *a,
                                 const struct basalt_parquet_ranges *b);
/* Whether [begin, end) meets any range. */
bool basalt_parquet_ranges_overlap(const struct basalt_parquet_ranges *rr, int64_t begin,
                                   int64_t end);
int64_t basalt_parquet_ranges_rows(const struct basalt_parquet_ranges *rr);

/* ------------------------------------------------------------------ page index */

/* The page index of one column chunk. Lists live in the caller's arena. */
struct basalt_parquet_page_index {
    bool has_offset_index;
    bool has_column_index;
    struct basalt_parquet_offset_index oi;
    struct basalt_parquet_column_index ci;
    int64_t *page_first_row;   /* n_pages + 1 entries: page k covers [first[k], first[k+1]) */
    int64_t *page_offsets;
    int32_t n_pages;
};

/* Reads and checks the offset index (and, with `want_column_index`, the
 * column index) of chunk (row_group, leaf) into `out`, allocating from
 * `arena`. Absent indexes leave the has_ flags false. CORRUPT when an index
 * is malformed or disagrees with the chunk (pages outside the chunk, first
 * rows not increasing from 0, list lengths that differ); LIMIT; NOMEM; IO. */
basalt_status basalt_parquet_page_index_read(const struct basalt_parquet_reader *reader,
                                             int32_t row_group, int32_t leaf,
                                             bool want_column_index, struct basalt_arena *arena,
                                             struct basalt_parquet_page_index *out,
                                             struct basalt_error *err);

/* Adds to `out` the rows of the pages of `pi` whose column index bounds may
 * satisfy `p` (every page when the bounds cannot be used). NOMEM. */
basalt_status basalt_parquet_page_index_match(const struct basalt_parquet_reader *reader,
                                              const struct basalt_parquet_page_index *pi,
                                              const struct basalt_parquet_predicate *p,
                                              struct basalt_parquet_ranges *out,
                                              struct basalt_error *err);

/* ------------------------------------------------------------------ bloom */

/* Whether the chunk's bloom filter rules out the `=` predicate `p`
 * (*absent true). Chunks without a filter, or literals that cannot be
 * probed, give false. IO, CORRUPT, UNSUPPORTED, LIMIT, NOMEM. */
basalt_status basalt_parquet_bloom_excludes(const struct basalt_parquet_reader *reader,
                                            int32_t row_group,
                                            const struct basalt_parquet_predicate *p,
                                            bool *absent, struct basalt_error *err);

/* ------------------------------------------------------------------ scans */

/* The column decoder's contract (parquet_column.h) is included by the files
 * that call it; the scan only needs its page selection and scratch types. */
struct basalt_parquet_page_selection;
struct basalt_parquet_scratch;
struct basalt_parquet_leaf_values;

/* One row group a scan reads. */
struct basalt_parquet_rg_plan {
    int32_t row_group;
    int64_t rows;          /* rows output: all, or those of `want` */
    /* With page pruning: the rows kept (2 * n_want sorted [begin, end)
     * bounds) and, per leaf, the pages to decode, those overlapping them;
     * each decoded leaf is then cut down to exactly these rows. NULL when
     * every row is read. In the plan arena. */
    const int64_t *want;
    int32_t n_want;
    struct basalt_parquet_page_selection *pages;
};

/* Cuts a decoded leaf whose rows are those of the pages `sel` selected down
 * to the rows `want` covers (reader_trim.c): levels, validity and values
 * move left in place. CORRUPT when the leaf does not hold as many rows as
 * its pages. NOMEM. */
basalt_status basalt_parquet_leaf_keep_rows(struct basalt_parquet_leaf_values *leaf,
                                            int16_t max_def,
                                            const struct basalt_parquet_page_selection *sel,
                                            const int64_t *want, int32_t n_want,
                                            struct basalt_error *err);

/* A decoded batch shared by the slices handed out of it (reader_slice.c). */
struct basalt_parquet_holder;

/* Takes `batch` (moved in, released on return in every case). NOMEM. */
basalt_status basalt_parquet_holder_new(struct ArrowArray *batch,
                                        struct basalt_parquet_holder **out,
                                        struct basalt_error *err);
/* Rows [offset, offset + length) of the batch as a new array sharing its
 * buffers; the batch lives until its last slice and the holder are released.
 * NOMEM. */
basalt_status basalt_parquet_holder_slice(struct basalt_parquet_holder *holder, int64_t offset,
                                          int64_t length, struct ArrowArray *out,
                                          struct basalt_error *err);
int64_t basalt_parquet_holder_length(const struct basalt_parquet_holder *holder);
/* Drops the caller's reference. NULL is a no-op. */
void basalt_parquet_holder_release(struct basalt_parquet_holder *holder);

struct basalt_parquet_scan {
    const struct basalt_parquet_reader *reader;
    struct basalt_parquet_read_options options;
    struct basalt_parquet_projection projection;
    uint8_t *row_groups;           /* n_row_groups flags; NULL: every row group */
    uint8_t *dict_fields;          /* per field: kept as a dictionary (scan_keep_dictionary); NULL: none */
    struct basalt_parquet_predicate *preds;
    int32_t n_preds, cap_preds;

    bool started;
    basalt_status failed;          /* OK until an error stops the scan */
    struct basalt_error failure;

    /* Fixed when the scan starts. */
    struct ArrowSchema schema;
    int32_t *out_fields;           /* selected top-level fields (field indices) */
    int32_t n_out_fields;
    uint8_t *decode;               /* per leaf: decoded */
    int32_t *decode_leaves;        /* their indices */
    int32_t n_decode;
    uint8_t *large;                /* per leaf: 64-bit offsets */
    uint8_t *dict;                 /* per leaf: dictionary output asked by the options */
    uint8_t *keep_dict;            /* per leaf: the output is a dictionary (options or ARROW:schema) */
    bool partial;                  /* some output field lacks unselected children */
    bool v2_always_compressed;

    int32_t next_rg;               /* next row group to plan */
    struct basalt_arena plan_arena;
    struct basalt_parquet_scratch **scratch;
    struct basalt_buffer *chunk_buf;   /* per worker: column chunk bytes read with pread */
    int n_scratch;

    struct ArrowArray *queue;      /* decoded batches not yet handed out */
    int32_t queue_head, queue_len, queue_cap;
    struct basalt_parquet_holder *holder; /* the batch being sliced */
    int64_t holder_pos;

    struct basalt_parquet_scan_stats stats;
    /* Row groups before this one were already asked of a remote input; the
     * next stretch is asked for once planning reaches prefetch_trigger. */
    int32_t prefetched_until;
    int32_t prefetch_trigger;
};

/* Remote inputs (reader_prefetch.c): whether the input fetches ahead, and
 * the hint of the byte ranges `plans` will read. */
bool basalt_parquet_scan_prefetches(const struct basalt_parquet_scan *scan);
void basalt_parquet_scan_prefetch(struct basalt_parquet_scan *scan,
                                  const struct basalt_parquet_rg_plan *plans, int32_t n);

/* Decodes the row groups of `plans` (reader_decode.c): every (row group,
 * leaf) chunk, then every output field, on the scan's pool; batches[i]
 * receives row group i's batch. The first error in (row group, column) order
 * is reported. */
basalt_status basalt_parquet_scan_decode(struct basalt_parquet_scan *scan,
                                         const struct basalt_parquet_rg_plan *plans, int32_t n,
                                         struct ArrowArray *batches, struct basalt_error *err);

/* Frees the per-worker decoder scratch (reader_decode.c). */
void basalt_parquet_scan_free_scratch(struct basalt_parquet_scan *scan);

/* Plans row group `row_group` (reader_plan.c): statistics, bloom filters,
 * page index. *skip is true when it is pruned (or empty). Allocates from
 * scan->plan_arena. */
basalt_status basalt_parquet_scan_plan(struct basalt_parquet_scan *scan, int32_t row_group,
                                       struct basalt_parquet_rg_plan *plan, bool *skip,
                                       struct basalt_error *err);

#endif
