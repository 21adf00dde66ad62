/* The contract between the Parquet reader front end (reader*.c: footer,
 * projection, pruning, scheduling, batches) and the column decoder
 * (page*.c, column*.c, assemble*.c: pages, values, levels, Dremel assembly).
 *
 * The front end fetches the bytes of a column chunk and calls
 * basalt_parquet_column_decode once per (row group, leaf); when every leaf
 * under a top-level field is decoded, basalt_parquet_assemble_field turns them
 * into one Arrow array for the row group. Both are sans-IO and thread-safe
 * for distinct outputs and scratches: the pool runs many of them at once.
 *
 * How a chunk is decoded. A first pass walks the page headers only (no page
 * body is touched): it checks every size against the chunk and the options,
 * finds the dictionary page and counts the levels, so the output buffers are
 * allocated once, at their final size. The second pass decodes each selected
 * page straight into those buffers: definition levels into the validity
 * bitmap, values into the values / offsets / data buffers, dictionary indices
 * gathered into them with their bounds check fused in. An uncompressed page is
 * read where it lies in the chunk; a compressed one is decompressed into the
 * scratch's one reused buffer. Values that need converting (narrowing,
 * decimals, INT96) go through a scratch buffer, except for dictionary-encoded
 * pages: the dictionary is converted once and gathered from. */
#ifndef BASALT_PARQUET_COLUMN_H
#define BASALT_PARQUET_COLUMN_H

#include "basalt/arrow.h"
#include "basalt/codec.h"
#include "basalt/parquet_format.h"
#include "parquet_encoding.h"
#include "parquet_schema.h"

struct basalt_parquet_cipher; /* parquet_crypto.h */

/* Pages of a chunk to decode, from the OffsetIndex. Pages not selected are
 * skipped without being decompressed; their rows are absent from the output
 * (the front end accounts for them). NULL selection = all. Data page k of the
 * chunk (counting data pages only, in chunk order) is entry k; a page whose
 * file offset differs from page_offsets[k] (when given) is CORRUPT. With
 * page_offsets, a page left out is stepped over by its offsets, its bytes
 * never read (they need not have been fetched); without, its header is read.
 * Pages after the last entry are not read. */
struct basalt_parquet_page_selection {
    int32_t n_pages;           /* pages in the OffsetIndex */
    const uint8_t *selected;   /* n_pages flags */
    const int64_t *page_offsets;      /* file offset of each page (PageLocation.offset); may be NULL */
    const int64_t *first_row_index;   /* PageLocation.first_row_index; not used by the decoder */
};

struct basalt_parquet_column_options {
    bool verify_crc;        /* check PageHeader.crc where present (default on) */
    bool keep_dictionary;   /* dictionary-encoded byte-array leaves -> Arrow dictionary arrays */
    bool large_offsets;     /* 64-bit offsets for this leaf's binary values */
    /* Treat every DATA_PAGE_V2 values section as compressed whatever its
     * is_compressed flag says: parquet-cpp before 2.0.0 wrote false on
     * compressed pages (ARROW-17100). The front end sets it from created_by.
     * Without it, such a page is still recognised when its compressed and
     * uncompressed sizes differ (an uncompressed section has equal sizes). */
    bool v2_always_compressed;
    int64_t max_page_size;  /* compressed or uncompressed page larger than this: LIMIT
                             * (default 1 GiB) */
    int64_t max_values;     /* levels (values and nulls) in one chunk; more is LIMIT
                             * (default INT32_MAX). Output buffers are sized from the
                             * page headers, so this bounds what a small corrupt file
                             * can make the decoder allocate. */
    int64_t max_binary_bytes; /* cap on a byte-array leaf's data, LIMIT beyond it;
                               * 0: INT32_MAX with 32-bit offsets, 2^34 with 64-bit */
    /* Strings (utf8 leaves) must be well-formed UTF-8, else CORRUPT
     * (default on). Dictionary-encoded pages cost nothing: the dictionary is
     * checked once. Other pages are scanned for ASCII first, then checked
     * value by value only when they are not ASCII. */
    bool validate_utf8;
    /* Where the values, validity and offsets buffers are allocated
     * (borrowed; NULL: the heap). Byte-array data grows as it decodes and
     * stays on the heap. */
    const struct basalt_arrow_allocator *allocator;
};

/* Defaults: verify_crc and validate_utf8 on, everything else off, the
 * limits above. */
void basalt_parquet_column_options_init(struct basalt_parquet_column_options *options);

/* One column chunk's bytes in memory: from min(dictionary_page_offset,
 * data_page_offset) for total_compressed_size bytes. (A dictionary_page_offset
 * of 0, as some writers store when there is none, is not a chunk start.)
 * Pages are read until the data pages seen hold meta->num_values values or
 * the bytes run out, so bytes after the last page are ignored. */
struct basalt_parquet_chunk_source {
    const uint8_t *data;
    size_t len;
    int64_t file_offset;   /* file offset of data[0] */
    const struct basalt_parquet_column_metadata *meta;
    const struct basalt_parquet_schema_leaf *leaf;
    const struct basalt_parquet_page_selection *pages; /* NULL: every page */
    /* Rows of the row group (RowGroup.num_rows). With every page selected,
     * a chunk holding a different number of records is CORRUPT; negative:
     * not checked. */
    int64_t num_rows;
    /* An encrypted chunk (Parquet modular encryption): the column's key, and
     * the row group and column ordinals of its module AADs. Every page header
     * is then a GCM module, every page body a GCM or CTR module: the headers
     * are decrypted as they are walked, the bodies of the pages to decode
     * into the scratch (so the decoder sees plaintext pages), and a CRC is
     * checked on the encrypted bytes, as written. NULL: plaintext. */
    const struct basalt_parquet_cipher *cipher;
    int32_t row_group_ordinal;
    int32_t column_ordinal;
};

/* Per-thread reusable state: codec objects (one per codec kind, created on
 * first use), the decompression scratch buffer, dictionary, conversion and
 * level scratch, the page table and the arena page headers decode into. It
 * grows to the largest page and chunk seen and is then reused: decoding
 * another chunk of the same shape allocates only the output buffers (and,
 * about once per megabyte of page-header statistics, an arena block). Owned
 * by one worker at a time. */
struct basalt_parquet_scratch;
/* Returns OK, INVALID_ARG (NULL out) or NOMEM (*out NULL). */
basalt_status basalt_parquet_scratch_new(struct basalt_parquet_scratch **out,
                                         struct basalt_error *err);
/* NULL is a no-op. */
void basalt_parquet_scratch_free(struct basalt_parquet_scratch *scratch);

/* Counters of the paths the decoder took, summed over every decode with this
 * scratch (tests use them to see that the fast paths fire). */
struct basalt_parquet_scratch_stats {
    int64_t chunks;             /* decode calls that succeeded */
    int64_t data_pages;         /* data pages decoded (selected, num_values > 0) */
    int64_t pages_skipped;      /* data pages left out by the selection */
    int64_t pages_in_place;     /* page bodies read where they lie in the chunk, not copied */
    int64_t pages_decompressed; /* page bodies decompressed into the scratch buffer */
    int64_t crc_checked;        /* pages whose CRC was verified */
    int64_t levels_to_validity; /* pages whose definition levels went straight into the
                                 * output validity bitmap (flat optional leaves) */
    int64_t pages_all_valid;    /* pages whose definition levels were one run of
                                 * "present": no bitmap work, values decoded without one */
    int64_t values_direct;      /* pages whose values were decoded straight into the
                                 * output buffers (PLAIN, DELTA_*, BYTE_STREAM_SPLIT, RLE) */
    int64_t values_converted;   /* pages whose values went through the conversion scratch */
    int64_t dict_gathered;      /* dictionary-encoded pages whose values were gathered
                                 * straight into the output buffers */
    int64_t dict_indices;       /* dictionary-encoded pages kept as Arrow indices */
    int64_t scratch_grows;      /* times a scratch buffer had to grow */
};

/* A copy of the counters. Not thread-safe against a decode using the scratch. */
void basalt_parquet_scratch_get_stats(const struct basalt_parquet_scratch *scratch,
                                      struct basalt_parquet_scratch_stats *out);

/* A decoded leaf column of one row group.
 * Leaves with max_rep == 0 (top-level or below structs only): `values` is
 * spaced, one slot per row, validity from the definition levels (a slot is
 * valid when def == max_def). For a top-level leaf it is the finished Arrow
 * array and def is NULL; below a struct, def keeps the n_levels definition
 * levels for the assembler (NULL when max_def is 0).
 * Leaves with max_rep > 0 (`dense`): def and rep hold n_levels entries (def
 * NULL when max_def is 0) and `values` holds only the values that are present
 * (def == max_def), densely and without a validity bitmap; its buffers have
 * room for n_levels slots so the assembler can spread them in place.
 * With keep_dictionary and every page dictionary-encoded, `values` is int32
 * indices with the dictionary attached (is_dictionary). Buffers are
 * basalt_aligned_alloc'd and owned by this struct until moved. */
struct basalt_parquet_leaf_values {
    int64_t n_levels;
    int16_t *def;
    int16_t *rep;
    int64_t n_rows;        /* rows covered (records: rep == 0 entries) */
    bool dense;            /* max_rep > 0: values holds the present values only */
    bool is_dictionary;    /* values are dictionary indices */
    int32_t kind;          /* enum basalt_parquet_out_kind: the layout of `values` */
    int32_t width;         /* bytes a value (fixed width, indices) or an offset (byte arrays) */
    struct ArrowArray values;  /* released state (release == NULL) once moved out */
};

/* Frees what `leaf` owns and zeroes it. */
void basalt_parquet_leaf_values_reset(struct basalt_parquet_leaf_values *leaf);

/* Decodes the chunk into `out` (a released/zeroed struct; on failure it is
 * left zeroed). `options` NULL means the defaults. Errors name the page
 * ("page 7: ...", pages counted from 0 in chunk order, the dictionary page
 * included); the caller prepends file, row group and column.
 * Returns OK; INVALID_ARG (NULL arguments); CORRUPT (a chunk whose physical
 * type is not the leaf's; malformed pages, levels, values; a CRC mismatch; a
 * dictionary page after a data page or twice; dictionary indices without a
 * dictionary; a decompressed size other than the header's; a record count
 * other than num_rows); UNSUPPORTED (encoding, codec, page type combination);
 * LIMIT (options' limits; 32-bit offsets overflowing: retry with
 * large_offsets); NOMEM. */
basalt_status basalt_parquet_column_decode(const struct basalt_parquet_chunk_source *src,
                                           const struct basalt_parquet_column_options *options,
                                           struct basalt_parquet_scratch *scratch,
                                           struct basalt_parquet_leaf_values *out,
                                           struct basalt_error *err);

struct basalt_parquet_assemble_options {
    bool large_lists; /* LIST fields as large_list (as basalt_parquet_arrow_options.large_lists) */
    /* Tests: walk every level with the general, branching loop only, and
     * count the walks the branch-free loop did. */
    bool no_branchless_walk;
    int64_t *branchless_walks;
};

/* Builds the Arrow array of top-level field `field` (schema->roots[i]) from
 * its decoded leaves (leaves[k] is leaf k of the schema; only leaves in
 * [field.leaf_begin, field.leaf_end) are read, and their values are moved
 * out, also on failure). `out` (released on entry) has the type
 * basalt_parquet_schema_to_arrow gives the field. A struct's slots and
 * validity come from its first leaf, a list's offsets and validity from its
 * leftmost leaf.
 * Returns OK; INVALID_ARG (bad field index, a leaf not decoded); CORRUPT when
 * the leaves disagree (row counts, slot counts of struct children) or their
 * levels are inconsistent (a first repetition level above 0, a continuation
 * of a list that is not open, a null map key); LIMIT when a list needs more
 * than INT32_MAX elements (retry with large_lists); NOMEM. */
basalt_status basalt_parquet_assemble_field(const struct basalt_parquet_schema *schema,
                                            int32_t field,
                                            struct basalt_parquet_leaf_values *leaves,
                                            struct ArrowArray *out, struct basalt_error *err);

/* The same with options (NULL: none). */
basalt_status basalt_parquet_assemble_field_with(const struct basalt_parquet_schema *schema,
                                                 int32_t field,
                                                 struct basalt_parquet_leaf_values *leaves,
                                                 const struct basalt_parquet_assemble_options *options,
                                                 struct ArrowArray *out, struct basalt_error *err);

/* ================================================================ internal */

/* Between the page*.c, column*.c, assemble*.c and scratch*.c files and their
 * tests; not for other callers. */

/* One page of a chunk as the header walk found it. */
struct basalt_parquet_page {
    int32_t ordinal;          /* position in the chunk, every page counted */
    int32_t type;             /* enum basalt_parquet_page_type */
    size_t body;              /* offset of the body in the chunk */
    int32_t compressed_size;
    int32_t uncompressed_size;
    bool has_crc;
    uint32_t crc;
    int32_t num_values;       /* levels (data pages), entries (dictionary page) */
    int32_t encoding;         /* values (data) or dictionary (dictionary page) encoding */
    int32_t def_encoding;     /* v1 */
    int32_t rep_encoding;     /* v1 */
    int32_t def_bytes;        /* v2 */
    int32_t rep_bytes;        /* v2 */
    bool is_compressed;       /* v2 */
    bool selected;            /* data pages: decoded (not skipped by the selection) */
    int64_t first_level;      /* selected data pages: first output level */
    /* Decrypted: `body` is an offset in the scratch's DECRYPTED buffer and
     * compressed_size the plaintext's length. */
    bool decrypted;
};

struct basalt_parquet_page_table {
    struct basalt_parquet_page *pages; /* in the scratch */
    int32_t n_pages;
    int32_t dictionary;       /* index of the dictionary page, -1 for none */
    int64_t n_levels;         /* levels of the selected data pages */
    int64_t data_bytes;       /* uncompressed bytes of the selected data pages */
    bool all_dictionary;      /* every selected data page holding values is dictionary-encoded */
};

/* A page body ready to decode. v1: `data` is the whole (uncompressed) page,
 * levels first. v2: rep and def are the uncompressed level sections, `data`
 * the values (decompressed when they were compressed). */
struct basalt_parquet_page_data {
    const uint8_t *rep;
    size_t rep_len;
    const uint8_t *def;
    size_t def_len;
    const uint8_t *data;
    size_t len;
};

/* Walks the page headers of src (page.c). */
basalt_status basalt_parquet_page_scan(const struct basalt_parquet_chunk_source *src,
                                       const struct basalt_parquet_column_options *options,
                                       struct basalt_parquet_scratch *scratch,
                                       struct basalt_parquet_page_table *table,
                                       struct basalt_error *err);

/* Checks the CRC and decompresses the body of `page` when needed (page.c).
 * The result views the chunk or the scratch's decompression buffer, valid
 * until the next call. */
basalt_status basalt_parquet_page_load(const struct basalt_parquet_chunk_source *src,
                                       const struct basalt_parquet_column_options *options,
                                       struct basalt_parquet_scratch *scratch,
                                       const struct basalt_parquet_page *page,
                                       struct basalt_parquet_page_data *out,
                                       struct basalt_error *err);

/* The codec object for a Parquet codec (created on first use) or NULL for
 * UNCOMPRESSED (scratch.c). UNSUPPORTED for LZO and unknown codecs. */
basalt_status basalt_parquet_scratch_codec(struct basalt_parquet_scratch *scratch, int32_t codec,
                                           struct basalt_codec **out, struct basalt_error *err);

/* Empties the header arena once it has grown past a threshold; called at the
 * start of a chunk (scratch.c). */
void basalt_parquet_scratch_trim(struct basalt_parquet_scratch *scratch);

/* Scratch buffers (scratch.c). Each is grown only when a request exceeds its
 * capacity, never shrunk. */
enum basalt_parquet_scratch_buffer {
    BASALT_PARQUET_SCRATCH_PAGE = 0,   /* decompressed page bodies */
    BASALT_PARQUET_SCRATCH_VALUES,     /* physical values before conversion */
    BASALT_PARQUET_SCRATCH_OFFSETS,    /* int32 offsets of byte arrays before conversion */
    BASALT_PARQUET_SCRATCH_BYTES,      /* their data */
    BASALT_PARQUET_SCRATCH_DICT,       /* dictionary values in output form */
    BASALT_PARQUET_SCRATCH_DICT_OFFSETS, /* byte-array dictionary offsets (int32) */
    BASALT_PARQUET_SCRATCH_LEVELS,     /* int16 levels that have no output array */
    BASALT_PARQUET_SCRATCH_PAGES,      /* the page table */
    BASALT_PARQUET_SCRATCH_DELTA_LAST, /* DELTA_BYTE_ARRAY's previous value */
    BASALT_PARQUET_SCRATCH_DECRYPTED,  /* an encrypted chunk's decrypted page bodies */
    BASALT_PARQUET_SCRATCH_HEADER,     /* a decrypted page header */
    BASALT_PARQUET_SCRATCH_COUNT
};

struct basalt_parquet_scratch {
    struct basalt_codec *codecs[BASALT_CODEC_COUNT];
    struct basalt_buffer buffers[BASALT_PARQUET_SCRATCH_COUNT];
    struct basalt_arena arena; /* page headers */
    struct basalt_parquet_scratch_stats stats;
};

/* Makes buffer `which` hold at least `bytes` bytes (its size is set to 0) and
 * returns its data in *out. NOMEM. */
basalt_status basalt_parquet_scratch_reserve(struct basalt_parquet_scratch *scratch, int which,
                                             size_t bytes, uint8_t **out,
                                             struct basalt_error *err);

/* Checks that byte arrays [first, first + count) of `offsets` (int32, or
 * int64 when `wide`) into `data` are well-formed UTF-8 (column_utf8.c).
 * CORRUPT naming the value (counted from `first`). */
basalt_status basalt_parquet_check_utf8(const uint8_t *data, const void *offsets, bool wide,
                                        uint64_t first, uint64_t count, struct basalt_error *err);

/* Value conversions (column_convert.c), n values from the physical form `in`
 * to `out_width`-byte output values. Fixed-width inputs: `in_width` bytes per
 * value. CORRUPT for a big-endian decimal that does not fit out_width. */
basalt_status basalt_parquet_convert_fixed(enum basalt_parquet_conversion conversion,
                                           const uint8_t *in, size_t in_width, size_t n,
                                           uint8_t *out, size_t out_width,
                                           struct basalt_error *err);
/* BYTE_ARRAY big-endian decimals: value i is data[offsets[i], offsets[i + 1]). */
basalt_status basalt_parquet_convert_binary_decimal(const int32_t *offsets, const uint8_t *data,
                                                    size_t n, uint8_t *out, size_t out_width,
                                                    struct basalt_error *err);
/* One big-endian two's complement integer of `len` bytes to `width` bytes
 * little-endian, sign-extended. false when it does not fit. */
bool basalt_parquet_convert_be_decimal(const uint8_t *in, size_t len, uint8_t *out, size_t width);

/* How a leaf's values are laid out in its output (column.c). */
enum basalt_parquet_out_kind {
    BASALT_PARQUET_OUT_NULL = 0,  /* no buffers: every slot null */
    BASALT_PARQUET_OUT_BOOL,      /* bits */
    BASALT_PARQUET_OUT_FIXED,     /* `width` bytes a value */
    BASALT_PARQUET_OUT_BINARY,    /* offsets and data */
    BASALT_PARQUET_OUT_INDICES    /* int32 dictionary indices */
};

/* The state of one chunk decode, shared by the column*.c files. */
struct basalt_parquet_column_state {
    const struct basalt_parquet_chunk_source *src;
    const struct basalt_parquet_column_options *options;
    struct basalt_parquet_scratch *scratch;
    const struct basalt_parquet_schema_leaf *leaf;
    enum basalt_parquet_out_kind kind;
    enum basalt_parquet_conversion conversion;
    int32_t physical;         /* enum basalt_parquet_type */
    size_t phys_width;        /* bytes of a fixed-width physical value; 0 for BOOLEAN, BYTE_ARRAY */
    size_t width;             /* bytes of an output value (FIXED, INDICES) */
    bool large;               /* 64-bit offsets */
    bool utf8;                /* strings whose UTF-8 is checked */
    bool spaced;              /* one output slot per level (max_rep == 0) */
    bool keep_def;            /* def levels go to the output */
    uint64_t max_data;        /* cap on byte-array data */
    int64_t n_slots;          /* output capacity in slots */
    struct ArrowArray array;  /* the output values being filled */
    uint8_t *validity;        /* spaced outputs: allocated at the first null */
    uint8_t *values;          /* values, bits, indices or offsets buffer */
    struct basalt_buffer data; /* byte-array data */
    int16_t *def;
    int16_t *rep;
    int64_t n_present;        /* values decoded so far (dense position) */
    int64_t null_count;
    /* The dictionary, in output form: FIXED/INDICES `dict_len` values of
     * `width` bytes (or byte arrays: dict_offsets into dict_data). */
    bool has_dict;
    uint32_t dict_len;
    const uint8_t *dict_values;
    const int32_t *dict_offsets;
    const uint8_t *dict_data;
};

/* Decodes the dictionary page (column_dict.c). */
basalt_status basalt_parquet_column_dictionary(struct basalt_parquet_column_state *st,
                                               const struct basalt_parquet_page *page,
                                               const struct basalt_parquet_page_data *body,
                                               struct basalt_error *err);

/* Decodes `count` slots starting at output slot `slot` from one page's values
 * (column_values.c): `validity` (bitmap and bit offset `slot`) or NULL when
 * every slot is present; `n_present` of them consume a value. */
basalt_status basalt_parquet_column_values(struct basalt_parquet_column_state *st,
                                           int32_t encoding, const uint8_t *data, size_t len,
                                           int64_t slot, uint64_t count, const uint8_t *validity,
                                           uint64_t n_present, struct basalt_error *err);

#endif
