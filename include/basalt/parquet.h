/* basalt parquet: reading Parquet files into Arrow.
 *
 * A `struct basalt_parquet_reader` is an open file: its footer decoded, its
 * schema mapped to Arrow. It is immutable once open, so any number of scans
 * may run over one reader at once (from several threads when the input
 * allows concurrent reads, as both built-in inputs do).
 *
 * A `struct basalt_parquet_scan` is one read of a reader: which columns
 * (projection by top-level name, nested path or field id), which row groups,
 * and a conjunction of predicates `column op literal` used to skip data. It
 * yields record batches (ArrowArray of format "+s", one child per selected
 * top-level field in file order) through basalt_parquet_scan_next, an
 * ArrowArrayStream, or all at once.
 *
 * Pruning is conservative: it drops row groups and pages that cannot hold a
 * matching row, and never filters rows itself, so a scan returns a superset
 * of the matching rows (whole pages of them) and the caller applies the
 * predicate to the rows it gets. In order:
 *   1. row-group statistics (min/max under the column's sort order,
 *      null_count for IS NULL / IS NOT NULL);
 *   2. bloom filters, for `=` predicates;
 *   3. the page index (ColumnIndex + OffsetIndex): the pages of the predicate
 *      columns that may match give row ranges; every projected column then
 *      decodes only the pages covering those ranges (grown until they cover
 *      the same rows in every column), and the pages it skips are neither
 *      read nor decompressed.
 * Statistics are trusted as the format says: min_value/max_value (and the
 * ColumnIndex bounds) when the file's ColumnOrder for the column is
 * TYPE_ORDER or IEEE_754_TOTAL_ORDER (floats), or absent (writers then use
 * the type-defined order), never under an order this library does not know;
 * the deprecated min/max only for signed-order INT32, INT64, FLOAT and DOUBLE
 * columns not written by parquet-mr before 1.8.0 (PARQUET-251); float bounds
 * that are NaN are ignored, and `!=` on a float column prunes only when
 * nan_count says there is no NaN. Byte arrays compare as unsigned bytes,
 * unsigned integers as unsigned. DECIMAL, INT96 and INTERVAL columns are
 * never pruned (their predicates are accepted and ignored here).
 *
 * Output types are those of the schema mapping (parquet_schema.h in the
 * sources documents every case; the ARROW:schema key restores stored Arrow
 * types). utf8/binary columns use 32-bit offsets unless a column chunk's byte
 * data may exceed 2 GiB, judged from the footer (SizeStatistics'
 * unencoded_byte_array_data_bytes, else the chunk's uncompressed size), in
 * which case the column is large_utf8/large_binary for the whole scan; a chunk
 * that overflows 32-bit offsets all the same is LIMIT, and the option
 * large_binary reads every such column with 64-bit offsets.
 *
 * Errors name the place: "flat.parquet: row group 3: column 'price': page 7:
 * RLE run exceeds page". Anything derived from the file that is malformed is
 * CORRUPT, a feature not implemented UNSUPPORTED (column chunks in other
 * files; encrypted files and columns read without decryption options), a
 * module that does not authenticate or a missing key AUTH, a size over a
 * limit LIMIT; nothing in a file can crash the reader, make it hang or make
 * it allocate more than the limits allow (column chunks are bounded by the
 * file size, pages by max_page_size).
 *
 * Threads: a scan decodes (row group x column chunk) tasks, then assembles
 * the top-level fields of each row group, on the pool given in its options
 * (NULL: the calling thread). The output is bit-identical for any number of
 * workers. A scan is used by one thread at a time. */
#ifndef BASALT_PARQUET_H
#define BASALT_PARQUET_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/io.h"
#include "basalt/parquet_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ decryption */

/* Parquet modular encryption (parquet-format Encryption.md): files with an
 * encrypted footer ("PARE") and files with a plaintext, signed footer
 * ("PAR1") whose columns are encrypted; AES_GCM_V1 and AES_GCM_CTR_V1; keys
 * of 16, 24 or 32 bytes.
 *
 * Keys reach the reader through `struct basalt_parquet_decryption`, given in
 * the reader options. The footer key is `footer_key`, else the retriever's
 * answer for the footer's key metadata; a column's key is its entry in
 * `column_keys` (by dotted path), else the footer key for columns encrypted
 * with it, else the retriever's answer for the column's key metadata. Keys
 * are looked up and the encrypted column metadata decrypted when the file
 * is opened: the decryption options and everything they point to are only
 * read during basalt_parquet_reader_open (the retriever is called there,
 * on the opening thread, at most once per distinct key metadata).
 *
 * Without decryption options, an encrypted footer is UNSUPPORTED at open and
 * the encrypted columns of a plaintext-footer file are UNSUPPORTED when read.
 * With them:
 *   - an encrypted footer needs its key (AUTH when there is none), and a
 *     module that does not authenticate (a wrong key or AAD prefix, modified
 *     bytes) is AUTH naming the module ("f.parquet: footer: AES-GCM
 *     authentication failed: ...", "...: row group 0: column 'x': page 2:
 *     data page header: ...");
 *   - a plaintext footer is verified against its signature when the footer
 *     key can be had (AUTH when it does not verify); without the footer key
 *     it is read unverified;
 *   - a column whose key cannot be had is left encrypted: the file opens,
 *     the other columns read, and reading that column (or filtering on it)
 *     is AUTH ("column 'x': encrypted column chunk: no key for it (key
 *     metadata "kc1")"). Its basalt_parquet_reader_metadata chunk keeps what
 *     the file shows (no meta_data in an encrypted footer, the redacted
 *     meta_data of a plaintext one); chunks that were decrypted show their
 *     decrypted ColumnMetaData.
 * The AAD prefix is the file's (aad_prefix) unless the caller gives one; a
 * file that stores none and asks for one (supply_aad_prefix) needs the
 * caller's, and a caller's prefix that differs from the stored one is AUTH.
 * With AES_GCM_CTR_V1, pages are not authenticated (the format's choice):
 * a changed byte in one is not detected; page headers and metadata are
 * still GCM, so a wrong key is. Page CRCs are checked over the page as
 * stored (encrypted). DATA_PAGE_V2 pages are read in both layouts in use:
 * one module (Arrow C++, Rust) or the levels in plaintext before a module
 * of the values (parquet-java). Files written by DuckDB 1.x, which use no
 * AAD at all, mark no encrypted column and give plaintext sizes in page
 * headers, are read too: a file without aad_file_unique or AAD prefix whose
 * footer does not authenticate with the format's AAD is tried without any,
 * and read so (every column under the footer key) when that authenticates. */

#define BASALT_PARQUET_MAX_KEY_SIZE 32

/* Finds the key for `key_metadata` (the bytes a writer stored with a footer
 * or column key; not NUL-terminated, `len` may be 0): writes it to `key`
 * (room for BASALT_PARQUET_MAX_KEY_SIZE bytes) and its length (16, 24 or 32)
 * to *key_len, and returns OK. NOT_FOUND or AUTH when this key is not
 * available (the column is then left encrypted, see above); any other status
 * fails the open with the retriever's message. */
typedef basalt_status (*basalt_parquet_key_retriever)(void *ctx, const uint8_t *key_metadata,
                                                      size_t len, uint8_t *key, size_t *key_len,
                                                      struct basalt_error *err);

/* An explicit key of one leaf column (its dotted path, as path_in_schema). */
struct basalt_parquet_column_key {
    const char *column;
    const uint8_t *key;
    size_t key_len;
};

struct basalt_parquet_decryption {
    const uint8_t *footer_key;          /* NULL: from the retriever */
    size_t footer_key_len;
    const struct basalt_parquet_column_key *column_keys;
    size_t num_column_keys;
    basalt_parquet_key_retriever retrieve_key; /* NULL: explicit keys only */
    void *retrieve_ctx;
    /* The AAD prefix (NULL: the file's). */
    const uint8_t *aad_prefix;
    size_t aad_prefix_len;
    /* Read a plaintext footer without checking its signature even when the
     * footer key is known (default false). */
    bool skip_footer_signature;
};

/* parquet-java's key tools (PropertiesDrivenCryptoFactory, key material
 * type PKMT1): key metadata that is a JSON object naming its key material,
 * either inside it ("internalStorage": true) or, by "keyReference", in the
 * file `_KEY_MATERIAL_FOR_<file name>.json` beside the Parquet file (a JSON
 * object of key reference -> key material string). The key material holds
 * the data key wrapped by a master key, directly or ("doubleWrapping")
 * through a key-encryption key that the master key wraps. Master keys come
 * from a KMS client: this one is parquet-java's InMemoryKMS /
 * LocalWrapKmsClient, master keys in memory, keys wrapped locally with
 * AES-GCM (nonce | ciphertext | tag, base64; AAD the master key id). */
struct basalt_parquet_master_key {
    const char *id;                     /* masterKeyID */
    const uint8_t *key;
    size_t key_len;
};

struct basalt_parquet_key_tools {
    const struct basalt_parquet_master_key *master_keys; /* borrowed */
    size_t num_master_keys;
    /* The external key material file: its path (NULL: key material inside
     * the key metadata only). basalt_parquet_key_tools_material_path makes
     * the conventional one. */
    const char *key_material_path;
};

/* A basalt_parquet_key_retriever over `ctx`, a struct basalt_parquet_key_tools.
 * NOT_FOUND for a master key that is not in the list; CORRUPT for key
 * metadata or key material that is not what parquet-java writes; AUTH when
 * a wrapped key does not unwrap; IO, NOT_FOUND reading the material file. */
BASALT_EXPORT basalt_status basalt_parquet_key_tools_retrieve(void *ctx,
                                                              const uint8_t *key_metadata,
                                                              size_t len, uint8_t *key,
                                                              size_t *key_len,
                                                              struct basalt_error *err);

/* Writes the path of the external key material of the Parquet file at
 * `path` ("dir/_KEY_MATERIAL_FOR_<name>.json") into `out` (`size` bytes).
 * LIMIT when it does not fit. */
BASALT_EXPORT basalt_status basalt_parquet_key_tools_material_path(const char *path, char *out,
                                                                   size_t size,
                                                                   struct basalt_error *err);

/* A key written as text: hex (32, 48 or 64 digits) or base64 (standard or
 * URL-safe, padding optional) of 16, 24 or 32 bytes; "hex:" or "base64:"
 * in front says which when both could be meant. Writes the bytes to `key`
 * (room for BASALT_PARQUET_MAX_KEY_SIZE) and their count to *key_len.
 * INVALID_ARG otherwise (the message does not repeat the text). */
BASALT_EXPORT basalt_status basalt_parquet_key_parse(const char *text, uint8_t *key,
                                                     size_t *key_len, struct basalt_error *err);

/* ------------------------------------------------------------------ reader */

#define BASALT_PARQUET_DEFAULT_MAX_FOOTER_SIZE (64u << 20)
#define BASALT_PARQUET_DEFAULT_MAX_PAGE_SIZE (1ll << 30)

struct basalt_parquet_reader_options {
    /* A footer longer than this is LIMIT (default 64 MiB). */
    uint64_t max_footer_size;
    /* Arena bytes the decoded footer may take (default 1 GiB): LIMIT. */
    size_t max_metadata_memory;
    /* Group nesting below the root (default 64): deeper is LIMIT. */
    int32_t max_schema_depth;
    /* A page larger than this, compressed or not, is LIMIT (default 1 GiB). */
    int64_t max_page_size;
    /* Map the file rather than pread it (basalt_parquet_reader_open_file;
     * default false: reading whole files, mapping costs more in page faults
     * and unmapping than pread costs in copies). */
    bool use_mmap;
    /* Check page CRCs where the writer stored them (default true). */
    bool verify_crc;
    /* Keep the Parquet-derived types and ignore the ARROW:schema key. */
    bool ignore_arrow_schema;
    /* Keys for encrypted files (see "decryption" above; borrowed, read
     * during open only). NULL: none. */
    const struct basalt_parquet_decryption *decryption;
};

/* Fills `options` with the defaults above. */
BASALT_EXPORT void basalt_parquet_reader_options_init(struct basalt_parquet_reader_options *options);

struct basalt_parquet_reader;

/* Opens the Parquet file at `path` (options NULL: the defaults): reads and
 * decodes the footer and builds the schema. Returns OK; NOT_FOUND or IO
 * from the file system; CORRUPT ("<path>: file too small to be Parquet
 * (5 bytes)", "<path>: bad magic ...", "<path>: footer length 900 exceeds the
 * file", a malformed footer or schema); UNSUPPORTED for an encrypted footer
 * ("PARE") without decryption options; AUTH for a footer that does not
 * decrypt or verify, a missing footer key or AAD prefix (see "decryption");
 * LIMIT; NOMEM; INVALID_ARG for NULL path/out or a bad explicit key. *out is
 * NULL on failure. Close with basalt_parquet_reader_close. */
BASALT_EXPORT basalt_status basalt_parquet_reader_open_file(
    const char *path, const struct basalt_parquet_reader_options *options,
    struct basalt_parquet_reader **out, struct basalt_error *err);

/* The same over any input. With `take_input` the reader owns `input` and
 * closes it with itself (also when this call fails); otherwise the input is
 * borrowed and must outlive the reader. */
BASALT_EXPORT basalt_status basalt_parquet_reader_open(
    struct basalt_input *input, bool take_input,
    const struct basalt_parquet_reader_options *options, struct basalt_parquet_reader **out,
    struct basalt_error *err);

/* Closes the reader (and its input when owned). NULL is a no-op. Every scan
 * of the reader must be freed first. */
BASALT_EXPORT void basalt_parquet_reader_close(struct basalt_parquet_reader *reader);

/* The decoded footer, valid until close. For encrypted files, the decrypted
 * footer; column chunks whose metadata was decrypted hold it in meta_data
 * (see "decryption"). Plaintext-footer encrypted files open without keys
 * too (metadata.has_encrypted_columns); reading an encrypted column is then
 * UNSUPPORTED. */
BASALT_EXPORT const struct basalt_parquet_file_metadata *basalt_parquet_reader_metadata(
    const struct basalt_parquet_reader *reader);

/* The input's name (its path), for messages. Valid until close. */
BASALT_EXPORT const char *basalt_parquet_reader_name(const struct basalt_parquet_reader *reader);

/* Rows in the file: the sum of the row groups' num_rows. */
BASALT_EXPORT int64_t basalt_parquet_reader_num_rows(const struct basalt_parquet_reader *reader);
BASALT_EXPORT int32_t basalt_parquet_reader_num_row_groups(
    const struct basalt_parquet_reader *reader);
/* Leaf columns (column chunks per row group). */
BASALT_EXPORT int32_t basalt_parquet_reader_num_columns(const struct basalt_parquet_reader *reader);

/* The Arrow schema of a scan of every column with default read options
 * (format "+s"). `out` is caller storage, owned on OK. Returns OK or NOMEM. */
BASALT_EXPORT basalt_status basalt_parquet_reader_schema(const struct basalt_parquet_reader *reader,
                                                         struct ArrowSchema *out,
                                                         struct basalt_error *err);

/* One leaf column as the reader sees it. Strings and pointers are valid
 * until close. */
struct basalt_parquet_column_info {
    const char *path;           /* dotted path, as path_in_schema */
    const struct basalt_parquet_schema_element *element; /* its SchemaElement */
    int16_t max_definition_level;
    int16_t max_repetition_level;
    int32_t physical_type;      /* enum basalt_parquet_type */
    const char *arrow_format;   /* the Arrow type its values decode into */
    int32_t column_order;       /* enum basalt_parquet_column_order_kind; NONE when absent */
};

/* Fills `out` for leaf column `column`. NOT_FOUND when out of range. */
BASALT_EXPORT basalt_status basalt_parquet_reader_column(const struct basalt_parquet_reader *reader,
                                                         int32_t column,
                                                         struct basalt_parquet_column_info *out,
                                                         struct basalt_error *err);

/* The leaf column whose dotted path is `path`. NOT_FOUND. */
BASALT_EXPORT basalt_status basalt_parquet_reader_find_column(
    const struct basalt_parquet_reader *reader, const char *path, int32_t *column,
    struct basalt_error *err);

/* ------------------------------------------------------------------ statistics */

enum basalt_parquet_sort_order {
    BASALT_PARQUET_SORT_ORDER_SIGNED = 0,
    BASALT_PARQUET_SORT_ORDER_UNSIGNED,
    BASALT_PARQUET_SORT_ORDER_UNKNOWN
};

/* A column chunk's statistics as the reader trusts them (see the top of this
 * file for the rules). Bounds are PLAIN-encoded values of the physical type
 * (byte arrays without their length prefix), views into the metadata. */
struct basalt_parquet_column_stats {
    int32_t sort_order;         /* enum basalt_parquet_sort_order of the column */
    bool has_min_max;           /* min and max below are usable for pruning */
    bool from_legacy;           /* they came from the deprecated min/max fields */
    bool min_exact, max_exact;  /* the bounds are actual values (not truncated) */
    struct basalt_parquet_binary min, max;
    bool has_null_count;
    int64_t null_count;
    bool has_nan_count;
    int64_t nan_count;
    int64_t num_values;         /* ColumnMetaData.num_values */
    /* GEOMETRY and GEOGRAPHY chunks: the GeospatialStatistics (bounding box
     * and ISO WKB type codes, Geospatial.md) when the writer stored them,
     * else NULL. A view into the metadata. Their min/max are never trusted
     * (the sort order of WKB is undefined). */
    const struct basalt_parquet_geospatial_statistics *geospatial;
};

/* The statistics of column chunk (row_group, column). NOT_FOUND for indices
 * out of range; UNSUPPORTED (no decryption options) or AUTH (no key) for an
 * encrypted column that could not be decrypted. A chunk without
 * statistics gives has_min_max and has_null_count false. */
BASALT_EXPORT basalt_status basalt_parquet_reader_column_stats(
    const struct basalt_parquet_reader *reader, int32_t row_group, int32_t column,
    struct basalt_parquet_column_stats *out, struct basalt_error *err);

/* ------------------------------------------------------------------ bloom filters */

/* A split-block bloom filter (parquet-format BloomFilter.md): 32-byte blocks
 * of eight 32-bit words, XXH64 (seed 0) of the PLAIN encoding of a value
 * (byte arrays without the length prefix). */
struct basalt_parquet_bloom_filter {
    const uint8_t *bitset;  /* num_bytes bytes, a multiple of 32 */
    size_t num_bytes;
    uint8_t *owned;         /* what basalt_parquet_bloom_filter_reset frees */
};

/* XXH64 with seed 0, the hash the filters use. */
BASALT_EXPORT uint64_t basalt_parquet_bloom_hash(const void *data, size_t len);

/* Whether `hash` may be in the filter (false: certainly absent). */
BASALT_EXPORT bool basalt_parquet_bloom_filter_check(const struct basalt_parquet_bloom_filter *bf,
                                                     uint64_t hash);

/* Parses a serialized filter (BloomFilterHeader then the bitset) in
 * [data, data + len): on OK `out` views the bitset inside `data` (owned is
 * NULL) and *consumed (NULL allowed) is the header plus bitset length.
 * CORRUPT (a malformed header, a bitset past `len`, a size that is not a
 * positive multiple of 32); UNSUPPORTED (an algorithm, hash or compression
 * other than BLOCK, XXHASH, UNCOMPRESSED); LIMIT (over 128 MiB). */
BASALT_EXPORT basalt_status basalt_parquet_bloom_filter_parse(
    const void *data, size_t len, struct basalt_parquet_bloom_filter *out, size_t *consumed,
    struct basalt_error *err);

/* Reads the filter of column chunk (row_group, column) from the file into
 * memory `out` owns. NOT_FOUND when the chunk has none (or indices are out of
 * range); the statuses of parse, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_parquet_reader_bloom_filter(
    const struct basalt_parquet_reader *reader, int32_t row_group, int32_t column,
    struct basalt_parquet_bloom_filter *out, struct basalt_error *err);

/* Frees what the filter owns; it is empty afterwards. NULL is a no-op. */
BASALT_EXPORT void basalt_parquet_bloom_filter_reset(struct basalt_parquet_bloom_filter *bf);

/* ------------------------------------------------------------------ scans */

struct basalt_parquet_read_options {
    /* Rows per batch (default 65536); 0 makes one batch per row group. */
    int64_t batch_size;
    /* utf8/binary columns (top-level, not nested) as dictionary arrays with
     * int32 indices, holding the file's dictionary where every page of a
     * chunk is dictionary-encoded (default false: materialised values, as
     * pyarrow reads). */
    bool keep_dictionary;
    /* Every utf8/binary column with 64-bit offsets (default false: only those
     * whose chunks may pass 2 GiB). */
    bool large_binary;
    /* Pruning by row-group statistics, bloom filters and the page index
     * (each default true; off means the predicate is ignored there). */
    bool use_statistics;
    bool use_bloom_filters;
    bool use_page_index;
    /* Workers: `pool` (borrowed, NULL for the calling thread only) and at most
     * `num_workers` of its workers (0: all). */
    struct basalt_pool *pool;
    int num_workers;
    /* Where decoded fixed-width values, validity bitmaps and offsets are
     * allocated (borrowed, must outlive the scan; NULL, the default: the
     * heap). A producer that decodes straight into shared memory. */
    const struct basalt_arrow_allocator *allocator;
};

/* Fills `options` with the defaults above. */
BASALT_EXPORT void basalt_parquet_read_options_init(struct basalt_parquet_read_options *options);

enum basalt_parquet_op {
    BASALT_PARQUET_OP_EQ = 0,
    BASALT_PARQUET_OP_NE,
    BASALT_PARQUET_OP_LT,
    BASALT_PARQUET_OP_LE,
    BASALT_PARQUET_OP_GT,
    BASALT_PARQUET_OP_GE,
    BASALT_PARQUET_OP_IS_NULL,
    BASALT_PARQUET_OP_IS_NOT_NULL
};

enum basalt_parquet_literal_kind {
    BASALT_PARQUET_LITERAL_NONE = 0, /* IS NULL / IS NOT NULL */
    BASALT_PARQUET_LITERAL_BOOL,
    BASALT_PARQUET_LITERAL_INT,      /* int64 in `i` */
    BASALT_PARQUET_LITERAL_UINT,     /* uint64 in `u` */
    BASALT_PARQUET_LITERAL_DOUBLE,
    BASALT_PARQUET_LITERAL_BYTES     /* `bytes`, `len` */
};

/* A value compared with a column's stored values: BOOLEAN columns take BOOL;
 * INT32 and INT64 columns (integers, DATE as days, TIME and TIMESTAMP in the
 * column's unit) take INT or UINT; FLOAT, DOUBLE and FLOAT16 take DOUBLE, INT
 * or UINT; BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY take BYTES. */
struct basalt_parquet_literal {
    enum basalt_parquet_literal_kind kind;
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    const void *bytes;
    size_t len;
};

struct basalt_parquet_scan;

/* Starts a scan of `reader` (borrowed: it must outlive the scan) that reads
 * nothing until a column is selected (basalt_parquet_scan_select_all
 * selects everything). `options` NULL means the defaults; it is copied.
 * Returns OK, INVALID_ARG, NOMEM. */
BASALT_EXPORT basalt_status basalt_parquet_scan_new(const struct basalt_parquet_reader *reader,
                                                    const struct basalt_parquet_read_options *options,
                                                    struct basalt_parquet_scan **out,
                                                    struct basalt_error *err);
/* Frees the scan and what it still holds. NULL is a no-op. */
BASALT_EXPORT void basalt_parquet_scan_free(struct basalt_parquet_scan *scan);

/* Projection. Selecting a field selects everything below it and keeps its
 * ancestors holding only the selected children; the output keeps the file's
 * order whatever the order of the calls. Once the scan has started (its
 * first schema, next, read_all or stream get_next) the selection is fixed:
 * the functions below return INVALID_ARG and select_all does nothing. */
BASALT_EXPORT void basalt_parquet_scan_select_all(struct basalt_parquet_scan *scan);
/* A top-level field by its exact name. NOT_FOUND ("column 'x' not found"). */
BASALT_EXPORT basalt_status basalt_parquet_scan_select_column(struct basalt_parquet_scan *scan,
                                                              const char *name,
                                                              struct basalt_error *err);
/* The top-level binary or string column `name` comes out as a dictionary
 * array (int32 indices), as keep_dictionary makes every such column; other
 * columns are unaffected. It does not select the column. Same rules as the
 * selection: INVALID_ARG once started; NOT_FOUND ("column 'x' not found"). */
BASALT_EXPORT basalt_status basalt_parquet_scan_keep_dictionary(struct basalt_parquet_scan *scan,
                                                                const char *name,
                                                                struct basalt_error *err);
/* A nested field by its dotted path, through the Parquet groups
 * ("a.list.element") or the Arrow fields ("a.element"). NOT_FOUND. */
BASALT_EXPORT basalt_status basalt_parquet_scan_select_path(struct basalt_parquet_scan *scan,
                                                            const char *dotted,
                                                            struct basalt_error *err);
/* Every field with this PARQUET:field_id. NOT_FOUND. */
BASALT_EXPORT basalt_status basalt_parquet_scan_select_field_id(struct basalt_parquet_scan *scan,
                                                                int32_t field_id,
                                                                struct basalt_error *err);

/* Restricts the scan to these row groups (read in ascending order,
 * duplicates ignored). NOT_FOUND for an index out of range; INVALID_ARG. */
BASALT_EXPORT basalt_status basalt_parquet_scan_select_row_groups(
    struct basalt_parquet_scan *scan, const int32_t *row_groups, size_t count,
    struct basalt_error *err);

/* Over a remote input, starts fetching the first stretch of the selected
 * row groups' chunks now, as the first basalt_parquet_scan_next would: a
 * scan opened ahead of its turn then finds its bytes on the way. Call it
 * once the columns, row groups and filters are chosen, before the first
 * next. Does nothing for local inputs; never fails (a range that cannot be
 * planned is read, and reported, by the decode). */
BASALT_EXPORT void basalt_parquet_scan_warm(struct basalt_parquet_scan *scan);

/* Adds `column op literal` to the conjunction. `column` is a leaf's dotted
 * path, through the Parquet groups ("l.list.element") or the Arrow fields
 * ("l.element", "m.key_value.key"); the literal (its bytes copied) must fit
 * the column as described at struct basalt_parquet_literal, and be NONE
 * exactly for IS NULL / IS NOT NULL. A leaf inside a list or map holds many
 * values a row: the predicate then means "some value of the row satisfies
 * it" (none does for a null or empty list), and only statistics and bloom
 * filters prune on it (not the page index: a row's values may span pages).
 * NOT_FOUND (no such leaf); INVALID_ARG (literal kind, or the scan has
 * started); NOMEM. */
BASALT_EXPORT basalt_status basalt_parquet_scan_filter(struct basalt_parquet_scan *scan,
                                                       const char *column,
                                                       enum basalt_parquet_op op,
                                                       const struct basalt_parquet_literal *literal,
                                                       struct basalt_error *err);

/* The Arrow schema of the batches (format "+s"), caller storage owned on
 * OK. Fixes the projection as a start does. OK, NOMEM. */
BASALT_EXPORT basalt_status basalt_parquet_scan_schema(struct basalt_parquet_scan *scan,
                                                       struct ArrowSchema *out,
                                                       struct basalt_error *err);

/* The next batch into `out` (caller storage): at most batch_size rows, in
 * file order; at the end `out` is released (out->release == NULL) and OK is
 * returned. The first call plans the scan (pruning; reads page indexes and
 * bloom filters as needed). Errors stop the scan: later calls return the
 * same status. */
BASALT_EXPORT basalt_status basalt_parquet_scan_next(struct basalt_parquet_scan *scan,
                                                     struct ArrowArray *out,
                                                     struct basalt_error *err);

/* Reads every remaining selected row group at once (all of their column
 * chunks spread over the workers) and appends one batch per row group (not
 * split by batch_size) to `batches`, whose schema is set if it has none.
 * Returns as basalt_parquet_scan_next. */
BASALT_EXPORT basalt_status basalt_parquet_scan_read_all(struct basalt_parquet_scan *scan,
                                                         struct basalt_arrow_batches *batches,
                                                         struct basalt_error *err);

/* Makes `stream` (caller storage) yield the scan's batches. The stream takes
 * the scan, in every case: do not use or free it afterwards (on failure it
 * has been freed). The reader must outlive the stream. get_next returns EIO
 * for CORRUPT, ENOSYS for UNSUPPORTED, ENOMEM, EINVAL, ERANGE for LIMIT, with
 * the message ("CORRUPT: file: row group 2: ...") from get_last_error.
 * Returns OK, NOMEM, INVALID_ARG. */
BASALT_EXPORT basalt_status basalt_parquet_scan_stream(struct basalt_parquet_scan *scan,
                                                       struct ArrowArrayStream *stream,
                                                       struct basalt_error *err);

/* What a scan did, for tests and tools; cumulative. */
struct basalt_parquet_scan_stats {
    int64_t row_groups_selected;       /* after the row-group selection */
    int64_t row_groups_pruned_stats;   /* dropped by statistics */
    int64_t row_groups_pruned_bloom;   /* dropped by bloom filters */
    int64_t row_groups_pruned_pages;   /* dropped because no page could match */
    int64_t row_groups_read;
    int64_t pages_total;               /* data pages in the offset indexes used */
    int64_t pages_skipped;             /* of those, not read */
    int64_t rows_total;                /* rows of the row groups read */
    int64_t rows_read;                 /* rows decoded (after page pruning) */
    int64_t bytes_read;                /* column chunk bytes fetched or viewed */
    int64_t pages_decompressed;        /* as counted by the decoders, when they count */
};

BASALT_EXPORT void basalt_parquet_scan_get_stats(const struct basalt_parquet_scan *scan,
                                                 struct basalt_parquet_scan_stats *out);

#ifdef __cplusplus
}
#endif

#endif
