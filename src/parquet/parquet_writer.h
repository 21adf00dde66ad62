/* Internals of the Parquet writer: the column descriptors made from the
 * Arrow schema, the per-chunk encoder state, statistics and the dictionary.
 * Internal to the parquet module. */
#ifndef BASALT_PARQUET_WRITER_INTERNAL_H
#define BASALT_PARQUET_WRITER_INTERNAL_H

#include "basalt/arrow.h"
#include "basalt/codec.h"
#include "basalt/parquet_format.h"
#include "basalt/parquet_writer.h"
#include "parquet_encoding.h"
#include "parquet_geo.h"

/* How an Arrow column's values become physical values. */
enum basalt_parquet_wconv {
    BASALT_PARQUET_WCONV_COPY = 0,   /* same bytes (int32, int64, float, double, flba) */
    BASALT_PARQUET_WCONV_BOOL,       /* bitmap */
    BASALT_PARQUET_WCONV_I8,         /* int8 -> int32 */
    BASALT_PARQUET_WCONV_U8,
    BASALT_PARQUET_WCONV_I16,
    BASALT_PARQUET_WCONV_U16,
    BASALT_PARQUET_WCONV_MUL32,      /* int32 * factor (time32[s] -> millis) */
    BASALT_PARQUET_WCONV_MUL64,      /* int64 * factor (timestamp[s] -> millis) */
    BASALT_PARQUET_WCONV_DATE64,     /* int64 millis -> int32 days */
    BASALT_PARQUET_WCONV_DECIMAL_BE, /* little-endian two's complement -> big-endian, truncated */
    BASALT_PARQUET_WCONV_BINARY32,   /* binary/utf8 */
    BASALT_PARQUET_WCONV_BINARY64,   /* large binary/utf8 */
    BASALT_PARQUET_WCONV_NULL        /* the null type: every slot null, no buffers */
};

/* Sort orders of statistics. */
enum basalt_parquet_worder {
    BASALT_PARQUET_WORDER_BOOL = 0,
    BASALT_PARQUET_WORDER_I32,
    BASALT_PARQUET_WORDER_U32,
    BASALT_PARQUET_WORDER_I64,
    BASALT_PARQUET_WORDER_U64,
    BASALT_PARQUET_WORDER_FLOAT,
    BASALT_PARQUET_WORDER_DOUBLE,
    BASALT_PARQUET_WORDER_FLOAT16,
    BASALT_PARQUET_WORDER_BYTES,     /* unsigned lexicographic */
    BASALT_PARQUET_WORDER_DECIMAL    /* signed big-endian */
};

/* A step on the way from a top-level field down to a leaf. */
enum basalt_parquet_wnode_kind {
    BASALT_PARQUET_WNODE_LEAF = 0,
    BASALT_PARQUET_WNODE_STRUCT,     /* go to child `child` */
    BASALT_PARQUET_WNODE_LIST,       /* int32 offsets; child 0 */
    BASALT_PARQUET_WNODE_LARGE_LIST, /* int64 offsets; child 0 */
    BASALT_PARQUET_WNODE_MAP,        /* as LIST; child 0 is the entries struct */
    BASALT_PARQUET_WNODE_FIXED_LIST, /* fixed_size slots of child 0 per slot */
    BASALT_PARQUET_WNODE_NULL        /* a leaf of the null type: always null, no buffers */
};

#define BASALT_PARQUET_WRITER_MAX_DEPTH 64

struct basalt_parquet_wnode {
    int8_t kind;
    bool nullable;
    int32_t child;
    int16_t rep_level; /* LIST, MAP, FIXED_LIST: repetition level of their elements */
    int32_t fixed_size; /* FIXED_LIST: elements per list */
};

/* One leaf column. */
struct basalt_parquet_wcolumn {
    char *name;
    int32_t physical;      /* enum basalt_parquet_type */
    int32_t type_length;   /* FIXED_LEN_BYTE_ARRAY */
    size_t width;          /* bytes per physical fixed-width value; 0 for byte arrays, bool */
    size_t src_width;      /* bytes per Arrow value (decimals, fixed-size binary) */
    enum basalt_parquet_wconv conv;
    int64_t factor;
    enum basalt_parquet_worder order;
    bool nullable;
    bool arrow_dictionary; /* the Arrow column is dictionary-encoded */
    int index_bytes;       /* its index width */
    bool index_signed;
    int32_t encoding;      /* requested: PLAIN, RLE_DICTIONARY or another */
    bool bloom;            /* write a bloom filter per chunk */
    /* GEOMETRY or GEOGRAPHY (a geoarrow.wkb input): no min/max, a
     * GeospatialStatistics per chunk instead; the crs string the logical
     * type points to (owned). */
    bool geo;
    char *crs;
    /* Where the leaf is: the top-level field `top`, then `depth` nodes (the
     * last one the leaf itself). Flat columns have depth 1. */
    int32_t top;
    int depth;
    bool nested;
    int16_t max_def, max_rep;
    struct basalt_parquet_wnode nodes[BASALT_PARQUET_WRITER_MAX_DEPTH];
    const struct basalt_parquet_string *path; /* path_in_schema */
    size_t path_len;
    struct basalt_parquet_schema_element element;
    /* Encryption (writer_crypto.c): the column's key (NULL: plaintext), its
     * ordinal among the leaf columns for the module AADs, and whether the
     * key is its own rather than the footer key. */
    const struct basalt_parquet_cipher *cipher;
    int32_t ordinal;
    bool own_key;
    bool v2_clear_levels;  /* DATA_PAGE_V2 levels outside the page module */
};

/* A view of the physical values of `count` slots of one column. */
struct basalt_parquet_wvalues {
    uint64_t count;
    const uint8_t *validity;     /* NULL: all valid */
    int64_t validity_offset;
    uint64_t non_null;
    const void *fixed;           /* fixed width: count slots of width bytes */
    const uint8_t *bits;         /* bool: bits [bits_offset, +count) */
    int64_t bits_offset;
    struct basalt_parquet_binary_view binary; /* byte arrays: offsets already at slot 0 */
};

/* Running statistics of a chunk. */
struct basalt_parquet_wstats {
    bool has;               /* some non-null, non-NaN value seen */
    int64_t null_count;
    struct basalt_buffer min;
    struct basalt_buffer max;
};

void basalt_parquet_wstats_init(struct basalt_parquet_wstats *st);
void basalt_parquet_wstats_reset(struct basalt_parquet_wstats *st);
/* Folds the non-null values of `v` into `st`. NOMEM. */
basalt_status basalt_parquet_wstats_update(struct basalt_parquet_wstats *st,
                                           const struct basalt_parquet_wcolumn *col,
                                           const struct basalt_parquet_wvalues *v,
                                           struct basalt_error *err);
/* Fills the Thrift statistics (pointing into `st` and `scratch`, which must
 * outlive `out`'s use) with bounds truncated to `max_size` bytes. NOMEM. */
basalt_status basalt_parquet_wstats_finish(const struct basalt_parquet_wstats *st,
                                           const struct basalt_parquet_wcolumn *col,
                                           size_t max_size, struct basalt_buffer *scratch,
                                           struct basalt_parquet_statistics *out,
                                           struct basalt_error *err);
/* Folds the bounds of the dense values `v` (no validity; the null count is
 * left alone) with typed loops: the same bounds as wstats_update. NOMEM. */
basalt_status basalt_parquet_wstats_fold_dense(struct basalt_parquet_wstats *st,
                                               const struct basalt_parquet_wcolumn *col,
                                               const struct basalt_parquet_wvalues *v,
                                               struct basalt_error *err);
struct basalt_parquet_wdict;
/* Folds the bounds of the dictionary entries whose bit is set in `seen`
 * (one bit per entry, 64 to a word). NOMEM. */
basalt_status basalt_parquet_wstats_fold_entries(struct basalt_parquet_wstats *st,
                                                 const struct basalt_parquet_wcolumn *col,
                                                 const struct basalt_parquet_wdict *d,
                                                 const uint64_t *seen, struct basalt_error *err);
/* Folds the bounds of `page` into `st`. NOMEM. */
basalt_status basalt_parquet_wstats_merge(struct basalt_parquet_wstats *st,
                                          enum basalt_parquet_worder order,
                                          const struct basalt_parquet_wstats *page,
                                          struct basalt_error *err);
/* Compares two PLAIN values (byte arrays without length) in `order`. */
int basalt_parquet_wcompare(enum basalt_parquet_worder order, const uint8_t *a, size_t alen,
                            const uint8_t *b, size_t blen);

/* A slot of the fast lookups' table: a 4- or 8-byte value itself, or the
 * entry's 32-bit hash (high half) and its start in `values` (low half). */
struct basalt_parquet_wslot {
    uint64_t key;
    uint32_t index1;               /* entry index + 1, 0 empty */
    uint32_t len;                  /* the value's length */
};

/* A dictionary under construction: distinct values in insertion order and a
 * hash table over them (the reference lookups' or the fast ones'). */
struct basalt_parquet_wdict {
    struct basalt_buffer values;   /* fixed: width bytes each; bytes: PLAIN (length + bytes) */
    struct basalt_buffer offsets;  /* bytes: uint64 start of each value in `values` */
    uint32_t *slots;               /* hash table of index + 1, 0 empty */
    uint64_t *hashes;              /* per value */
    struct basalt_parquet_wslot *fslots; /* the fast lookups' table */
    uint32_t fcapacity;            /* its slots, a power of two */
    uint32_t count;
    uint32_t capacity;             /* slots, a power of two */
    size_t width;                  /* 0 for byte arrays */
    int64_t plain_bytes;           /* size of the dictionary page body */
};

void basalt_parquet_wdict_init(struct basalt_parquet_wdict *d, size_t width);
void basalt_parquet_wdict_reset(struct basalt_parquet_wdict *d);
/* Empties the dictionary, keeping its memory for the next chunk. */
void basalt_parquet_wdict_clear(struct basalt_parquet_wdict *d);
/* Entry `i` (below count): its bytes (without the length of a byte array). */
const uint8_t *basalt_parquet_wdict_value(const struct basalt_parquet_wdict *d, uint32_t i,
                                          size_t *len);
/* Looks up the non-null values of `v` from slot `first` on, adding new ones,
 * and stores their indices in `indices` (dense: one per non-null value).
 * Stops before a value that would take the dictionary past `max_bytes`;
 * `*done` receives the slots consumed from `first` (all of them unless the
 * cap was reached), and `*n_indices` the indices written. The fast lookups
 * also stop once the dictionary holds `max_count` entries (UINT32_MAX: no
 * such stop), the last value's index written. `simple` takes
 * the reference path (XXH64 and memcmp per value, any values); otherwise `v`
 * must have no validity (INTERNAL) and the lookup is specialised by width.
 * Both give the same entries and indices; a dictionary must be filled by
 * one of them only. NOMEM, LIMIT. */
basalt_status basalt_parquet_wdict_put(struct basalt_parquet_wdict *d,
                                       const struct basalt_parquet_wvalues *v, uint64_t first,
                                       int64_t max_bytes, uint32_t max_count, bool simple,
                                       uint32_t *indices, uint64_t *done, uint64_t *n_indices,
                                       struct basalt_error *err);

/* Schema mapping: fills `col` for Arrow field `field`. UNSUPPORTED for types
 * not written; CORRUPT for malformed formats or field ids; NOMEM. */
basalt_status basalt_parquet_wcolumn_init(struct basalt_parquet_wcolumn *col,
                                          const struct ArrowSchema *field,
                                          struct basalt_error *err);
void basalt_parquet_wcolumn_reset(struct basalt_parquet_wcolumn *col);

/* The Parquet schema of an Arrow schema (format "+s"): every element in
 * depth-first order (the root first) and the leaf columns, names in `arena`.
 * Structs become groups, list and large_list the three-level LIST form,
 * fixed-size lists the LIST form too (their size is left to ARROW:schema),
 * map the MAP form with a required key, and the null type an OPTIONAL INT32
 * leaf annotated Null whatever its field's nullability. `*elements` and
 * `*cols` are basalt_malloc'd (free the columns with wcolumn_reset, also on
 * failure, for the `*ncols` that were made). UNSUPPORTED (unions, empty
 * structs, deeper than BASALT_PARQUET_WRITER_MAX_DEPTH), CORRUPT, NOMEM. */
basalt_status basalt_parquet_wschema_build(const struct ArrowSchema *schema,
                                           struct basalt_arena *arena,
                                           struct basalt_parquet_schema_element **elements,
                                           size_t *num_elements,
                                           struct basalt_parquet_wcolumn **cols, int32_t *ncols,
                                           struct basalt_error *err);

/* Dense physical values of the slots `index[0, n)` (physical indices into
 * `array`, every one valid) into `v`, using the scratch buffers. NOMEM;
 * CORRUPT for a dictionary index out of range. */
basalt_status basalt_parquet_wvalues_gather(const struct basalt_parquet_wcolumn *col,
                                            const struct ArrowArray *array, const int64_t *index,
                                            uint64_t n, struct basalt_buffer *scratch,
                                            struct basalt_buffer *scratch_offsets,
                                            struct basalt_parquet_wvalues *v,
                                            struct basalt_error *err);

/* Physical values of slots [start, start + count) of `array` (the column's
 * Arrow array; a dictionary array's indices are resolved) into `v`, using
 * `scratch` for converted values. NOMEM; CORRUPT for a dictionary index out
 * of range. */
basalt_status basalt_parquet_wvalues_view(const struct basalt_parquet_wcolumn *col,
                                          const struct ArrowArray *array, int64_t start,
                                          int64_t count, struct basalt_buffer *scratch,
                                          struct basalt_buffer *scratch_offsets,
                                          struct basalt_parquet_wvalues *v,
                                          struct basalt_error *err);

/* Appends the XXH64 of each of the dense values `v` (no validity) to
 * `hashes` (uint64 each). NOMEM. */
basalt_status basalt_parquet_wbloom_hash_values(struct basalt_buffer *hashes,
                                                const struct basalt_parquet_wcolumn *col,
                                                const struct basalt_parquet_wvalues *v,
                                                struct basalt_error *err);
/* Appends a bloom filter (BloomFilterHeader and bitset) holding the hashes
 * in `hashes` to `out`, sized for their distinct count at `fpp`, and
 * empties `hashes` (which it sorts). NOMEM. */
basalt_status basalt_parquet_wbloom_build(struct basalt_buffer *hashes, double fpp,
                                          struct basalt_buffer *out, struct basalt_error *err);

/* Parquet codec of a basalt codec kind; -1 for none. */
int32_t basalt_parquet_writer_codec_id(enum basalt_codec_kind kind);

/* How often the fast paths ran (tests prove they fire). */
struct basalt_parquet_wcounters {
    int64_t dict_pages;   /* page bounds from the dictionary entries it uses */
    int64_t dense_pages;  /* page bounds from typed loops over its values */
    int64_t simple_pages; /* page bounds value by value (options.simple_paths) */
    int64_t in_place_pages; /* PLAIN fixed-width values written from the pending page */
    int64_t level_runs;   /* definition levels of a page without nulls as one run */
    int64_t rle_pages;    /* levels and indices by basalt_parquet_wrle_* */
    int64_t list_walks;   /* levels of a list of leaf values without recursion */
    int64_t leaf_views;   /* nested values that are one run of their leaf array */
    int64_t slice_runs;   /* runs of several slices, each column's in one task */
    int64_t level_hists;  /* level histograms counted per run while encoding */
};

/* Scratch of one encoding thread. */
struct basalt_parquet_wctx {
    const struct basalt_parquet_writer_options *options;
    struct basalt_codec *codec;
    int32_t codec_id;
    struct basalt_buffer levels;
    struct basalt_buffer values;
    struct basalt_buffer compressed;
    struct basalt_buffer header;
    struct basalt_buffer scratch;
    struct basalt_buffer scratch_offsets;
    struct basalt_buffer indices;
    struct basalt_buffer seen;     /* dictionary entries a page uses */
    struct basalt_buffer page_bounds; /* the pending page's finished min/max */
    struct basalt_parquet_wcounters counters;
    int32_t num_columns;           /* leaf columns of the writer */
    int32_t row_group;             /* ordinal of the row group being built (module AADs) */
    struct basalt_buffer crypt;    /* an encrypted page body, or a module's plaintext */
};

void basalt_parquet_wctx_init(struct basalt_parquet_wctx *ctx,
                              const struct basalt_parquet_writer_options *options,
                              struct basalt_codec *codec);
void basalt_parquet_wctx_reset(struct basalt_parquet_wctx *ctx);

/* Where a data page sits in its chunk's buffer (for the offset index). */
struct basalt_parquet_wpage {
    int64_t offset;          /* in the chunk's page buffer */
    int32_t compressed_size; /* header included */
    int64_t first_row;
    int64_t null_count;
    bool null_page;          /* no non-null value */
    bool has_bounds;         /* min/max below (false: only NaN, or no max) */
    size_t min_off, min_len, max_off, max_len; /* in the chunk's `bounds` */
    int64_t unencoded_bytes; /* BYTE_ARRAY: the values' bytes, lengths not counted */
};

/* A column chunk being written. Rows are gathered into a pending page in
 * dense form (levels and non-null values apart), encoded into `pages` when
 * the page is full, and the whole chunk is written when the row group is. */
struct basalt_parquet_wchunk {
    /* pending page */
    struct basalt_buffer def;      /* int16 levels */
    struct basalt_buffer rep;      /* int16 levels (nested columns) */
    int64_t def_ones;              /* leading levels of 1 not in `def` (flat, no null yet) */
    int64_t pend_levels;
    struct basalt_buffer vals;     /* fixed: dense values; bool: bits; bytes: data */
    struct basalt_buffer offs;     /* bytes: int64 offsets, n_values + 1 */
    int64_t pend_rows;
    int64_t pend_values;
    int64_t pend_bytes;
    /* the chunk */
    struct basalt_buffer pages;
    struct basalt_parquet_wpage *page_list;
    size_t num_pages, cap_pages;
    struct basalt_buffer bounds;   /* page min/max bytes */
    struct basalt_buffer hashes;   /* bloom: uint64 hash of every value */
    /* SizeStatistics: each page's level histograms (int64, max_rep + 1 and
     * max_def + 1 per page; none when that maximum is 0), concatenated */
    struct basalt_buffer rep_hist;
    struct basalt_buffer def_hist;
    struct basalt_parquet_wstats page_stats;
    struct basalt_parquet_wdict dict;
    bool dict_on;        /* pages use the dictionary */
    bool dict_decided;   /* the first page has been seen */
    bool used_plain, used_dict, used_other;
    int32_t pages_plain, pages_dict, pages_other; /* data pages of each encoding */
    int32_t other_encoding;
    struct basalt_parquet_wstats stats;
    struct basalt_parquet_geo_bounds geo;   /* geo columns: the chunk's values */
    int64_t rows;
    int64_t num_values;
    int64_t uncompressed;  /* page bytes before compression, headers included */
};

/* Whether a parquet.variant struct is at or below `s` (writer_variant.c). */
bool basalt_parquet_wvariant_present(const struct ArrowSchema *s);
/* Checks the metadata and value of every present variant of `batch`
 * (schema `schema`): INVALID_ARG naming the column and row when one is not
 * valid Variant bytes. */
basalt_status basalt_parquet_wvariant_check(const struct ArrowSchema *schema,
                                            const struct ArrowArray *batch,
                                            struct basalt_error *err);

void basalt_parquet_wchunk_init(struct basalt_parquet_wchunk *c,
                                const struct basalt_parquet_wcolumn *col);
void basalt_parquet_wchunk_reset(struct basalt_parquet_wchunk *c);
/* Adds slots [start, start + count) of the column's array, encoding pages as
 * they fill. NOMEM, LIMIT, CORRUPT, INVALID_ARG (nulls in a required column). */
basalt_status basalt_parquet_wchunk_append(struct basalt_parquet_wchunk *c,
                                           const struct basalt_parquet_wcolumn *col,
                                           const struct ArrowArray *array, int64_t start,
                                           int64_t count, struct basalt_parquet_wctx *ctx,
                                           struct basalt_error *err);
/* Appends the levels of rows [start, start + count) of the nested column's
 * array to the pending page's `def` and `rep`, and the physical index of
 * each value they reach (int64) to ctx->indices (emptied first). `*leaf`
 * receives the array those indices are in (NULL when no value was reached),
 * `*levels` the levels appended. On failure `def` and `rep` may hold part of
 * the rows' levels: the caller restores their sizes. NOMEM, INVALID_ARG
 * (nulls in a non-nullable field). */
basalt_status basalt_parquet_wlevels_walk(struct basalt_parquet_wchunk *c,
                                          const struct basalt_parquet_wcolumn *col,
                                          const struct ArrowArray *array, int64_t start,
                                          int64_t count, struct basalt_parquet_wctx *ctx,
                                          const struct ArrowArray **leaf, int64_t *levels,
                                          struct basalt_error *err);
/* Encodes the pending page when it is full (`force`: when it holds any row). */
basalt_status basalt_parquet_wchunk_flush_page(struct basalt_parquet_wchunk *c,
                                               const struct basalt_parquet_wcolumn *col,
                                               struct basalt_parquet_wctx *ctx, bool force,
                                               struct basalt_error *err);
/* Bytes the chunk holds so far (encoded pages and the pending page). */
int64_t basalt_parquet_wchunk_bytes(const struct basalt_parquet_wchunk *c);
/* Writes the chunk (dictionary page, data pages) to `out` at file offset
 * `*offset` (advanced), fills `md` with arrays and bounds in `arena`, and
 * empties the chunk for the next row group. With `ci` and `oi` (the page
 * index being built) it appends the chunk's ColumnIndex and OffsetIndex
 * there and records their places in `md` relative to those buffers
 * (column_index_offset / offset_index_offset; the ColumnIndex is left out
 * when a page has no bounds). With `bloom`, a column that asks for one gets
 * its filter (header and bitset) appended there, its offset in `md`
 * relative to that buffer. NOMEM, IO, LIMIT. */
basalt_status basalt_parquet_wchunk_write(struct basalt_parquet_wchunk *c,
                                          const struct basalt_parquet_wcolumn *col,
                                          struct basalt_parquet_wctx *ctx,
                                          struct basalt_output *out, int64_t *offset,
                                          struct basalt_arena *arena,
                                          struct basalt_buffer *ci, struct basalt_buffer *oi,
                                          struct basalt_buffer *bloom,
                                          struct basalt_parquet_column_chunk *md,
                                          struct basalt_error *err);

/* The same bytes as basalt_parquet_dict_encode_indices and
 * basalt_parquet_levels_encode, a page at a time. Same statuses. */
basalt_status basalt_parquet_wrle_indices(const uint32_t *indices, size_t count,
                                          uint32_t dict_len, struct basalt_buffer *out,
                                          struct basalt_error *err);
basalt_status basalt_parquet_wrle_levels(const int16_t *levels, size_t count, int16_t max_level,
                                         bool prefixed, struct basalt_buffer *out,
                                         struct basalt_error *err);
/* wrle_levels that also adds the number of times each level occurs to
 * hist[0, max_level] (counted per run while encoding, not in a pass of its
 * own). On failure `hist` may hold part of the counts. Same statuses. */
basalt_status basalt_parquet_wrle_levels_hist(const int16_t *levels, size_t count,
                                              int16_t max_level, bool prefixed, int64_t *hist,
                                              struct basalt_buffer *out, struct basalt_error *err);

/* The longest value in the dictionary of a dictionary-encoded byte-array
 * column's leaf array (`array` is the column's top-level array); 0 for
 * other columns, -1 for an offset that goes backwards. O(dictionary). */
int64_t basalt_parquet_wcolumn_dict_max_len(const struct basalt_parquet_wcolumn *col,
                                            const struct ArrowArray *array);
/* An upper bound of basalt_parquet_wchunk_bytes once the pending page is
 * encoded (writer_bound.c says by how much it can grow). */
int64_t basalt_parquet_wchunk_bytes_bound(const struct basalt_parquet_wchunk *c);
/* An upper bound of what appending rows [start, start + count) of `array`
 * (the column's top-level array) can add to its chunk's
 * basalt_parquet_wchunk_bytes, counting the pages they can close; the
 * pending page's own bytes are not included. `dict_max_len` is
 * basalt_parquet_wcolumn_dict_max_len's. -1 when no bound is known.
 * O(depth). */
int64_t basalt_parquet_wcolumn_growth_bound(const struct basalt_parquet_wcolumn *col,
                                            const struct ArrowArray *array, int64_t start,
                                            int64_t count, int64_t dict_max_len,
                                            const struct basalt_parquet_writer_options *o);

struct basalt_parquet_writer;
/* The fast-path counters of every encoding thread of `w`, summed. */
void basalt_parquet_writer_counters(const struct basalt_parquet_writer *w,
                                    struct basalt_parquet_wcounters *out);

/* ------------------------------------------------------------------ encryption */

struct basalt_parquet_cipher;

/* The encryption of a file being written (writer_crypto.c). */
struct basalt_parquet_wcrypto {
    int32_t algorithm;
    bool plaintext_footer;
    bool store_aad_prefix;
    uint8_t *aad;               /* AAD prefix + aad_file_unique */
    size_t aad_len, prefix_len;
    uint8_t *footer_key_metadata;
    size_t footer_key_metadata_len;
    struct basalt_parquet_cipher *ciphers; /* [0] the footer key, then the column keys */
    size_t n_ciphers;
    struct basalt_parquet_binary *key_metadata; /* per leaf column (data owned) */
    int32_t n_columns;
};

/* Checks `e` against the columns and sets up `*out` (basalt_malloc'd),
 * pointing each encrypted column's `cipher` at its key. INVALID_ARG,
 * NOT_FOUND, LIMIT, NOMEM, INTERNAL (random generator). */
basalt_status basalt_parquet_wcrypto_new(const struct basalt_parquet_encryption *e,
                                         struct basalt_parquet_wcolumn *cols, int32_t ncols,
                                         struct basalt_parquet_wcrypto **out,
                                         struct basalt_error *err);
/* Wipes the keys and frees. NULL is a no-op. */
void basalt_parquet_wcrypto_free(struct basalt_parquet_wcrypto *c);

/* Appends `plain` to `dst`: as it is for a plaintext column, else as the
 * column's encrypted module of type `type` (row group ctx->row_group).
 * NOMEM, LIMIT. */
basalt_status basalt_parquet_wcrypto_put(const struct basalt_parquet_wcolumn *col,
                                         const struct basalt_parquet_wctx *ctx, int type,
                                         const uint8_t *plain, size_t len,
                                         struct basalt_buffer *dst, struct basalt_error *err);

/* Finishes an encrypted column's chunk metadata `cc` (its meta_data final):
 * crypto_metadata, and the encrypted ColumnMetaData where the format asks
 * for it, in `arena`. Plaintext columns are left alone. NOMEM, LIMIT. */
basalt_status basalt_parquet_wcrypto_chunk(const struct basalt_parquet_wcrypto *c,
                                           const struct basalt_parquet_wcolumn *col,
                                           int32_t row_group, struct basalt_arena *arena,
                                           struct basalt_parquet_column_chunk *cc,
                                           struct basalt_error *err);

/* The FileMetaData fields of a plaintext footer (encryption_algorithm,
 * footer_signing_key_metadata); nothing for an encrypted one. */
void basalt_parquet_wcrypto_footer_fields(const struct basalt_parquet_wcrypto *c,
                                          struct basalt_parquet_file_metadata *md);

/* Turns the serialized FileMetaData in `footer` into what precedes the
 * footer length: FileCryptoMetaData and the encrypted footer, or the
 * footer and its signature. NOMEM, LIMIT, INTERNAL. */
basalt_status basalt_parquet_wcrypto_footer(const struct basalt_parquet_wcrypto *c,
                                            struct basalt_buffer *footer,
                                            struct basalt_error *err);

#endif
