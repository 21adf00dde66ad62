/* basalt parquet writer: Arrow record batches to a Parquet file.
 *
 * A `struct basalt_parquet_writer` takes the Arrow schema of the batches
 * (format "+s", one child per column) at open, then any number of batches of
 * that schema (ArrowArray from any producer, or an ArrowArrayStream), and
 * writes the footer when finished. Rows are buffered into row groups, cut
 * when a row group reaches `row_group_rows` rows or `row_group_bytes`
 * encoded bytes, whichever comes first.
 *
 * The output is written through a `struct basalt_output`, so a file appears
 * under its name only when basalt_parquet_writer_finish commits it: a write
 * that fails, or a writer closed before finishing, leaves nothing that looks
 * like a valid file.
 *
 * Types (Arrow -> Parquet physical / logical):
 *   bool                      BOOLEAN
 *   int8/16/32, uint8/16/32   INT32, INTEGER(width, signedness of the type)
 *   int64, uint64             INT64, INTEGER(64, signedness of the type)
 *   float16                   FIXED_LEN_BYTE_ARRAY(2), FLOAT16
 *   float, double             FLOAT, DOUBLE
 *   decimal32, decimal64      INT32, INT64, DECIMAL(p, s)
 *   decimal128, decimal256    FIXED_LEN_BYTE_ARRAY(the fewest bytes that hold
 *                             the precision), DECIMAL(p, s), big-endian
 *   date32, date64            INT32, DATE (date64 divided down to days)
 *   time32[s], time32[ms]     INT32, TIME(MILLIS) (seconds multiplied up)
 *   time64[us], time64[ns]    INT64, TIME(MICROS / NANOS); times are wall-clock
 *                             values, not UTC-adjusted (millis and micros
 *                             also get the legacy TIME_* converted type)
 *   timestamp[unit, tz]       INT64, TIMESTAMP(MILLIS/MICROS/NANOS, UTC when
 *                             the zone is set; seconds multiplied to MILLIS;
 *                             millis and micros also TIMESTAMP_* converted)
 *   duration                  INT64 (the unit kept in ARROW:schema)
 *   null                      INT32, Null (Thrift UNKNOWN), always OPTIONAL:
 *                             every value null, statistics only null_count
 *   utf8, large_utf8          BYTE_ARRAY, STRING
 *   binary, large_binary      BYTE_ARRAY; with ARROW:extension:name
 *                             "geoarrow.wkb", GEOMETRY, or GEOGRAPHY when the
 *                             GeoArrow metadata's "edges" is not planar (the
 *                             algorithm named there); its "crs" becomes the
 *                             logical type's crs as Arrow C++ maps it
 *                             (OGC:CRS84 and EPSG:4326 left out, crs_type
 *                             "srid" as "srid:N", PROJJSON as its JSON text);
 *                             metadata that is not a GeoArrow JSON object is
 *                             INVALID_ARG at open
 *   fixed_size_binary(n)      FIXED_LEN_BYTE_ARRAY(n); UUID when the field's
 *                             ARROW:extension:name is "arrow.uuid"
 *   dictionary<int, value>    the value type's column (its values are
 *                             written; the column gets its own dictionary
 *                             pages when dictionary-encoded)
 *   struct                    a group of its fields; a "parquet.variant"
 *                             extension struct of binary `metadata` and
 *                             `value` is an unshredded VARIANT(1) group of
 *                             required metadata and value, whose bytes are
 *                             checked as Variant values when written
 *                             (INVALID_ARG naming column and row; a null
 *                             metadata or value in a present variant too);
 *                             a shredded one (typed_value) is UNSUPPORTED
 *   list, large_list,         the three-level LIST form: "<name>" (LIST) /
 *   fixed_size_list(n)        repeated "list" / "element" (the fixed size
 *                             kept in ARROW:schema)
 *   map                       the MAP form: "<name>" (MAP) / repeated
 *                             "key_value" / required "key", "value"
 * Nesting goes to any depth (up to 64 nodes from a column to its leaf);
 * definition and repetition levels come from the validity and offsets of
 * every level. Leaf columns are named by their dotted path
 * ("a.list.element") in options and messages. Union, view and run-end-encoded
 * types are UNSUPPORTED at open.
 * Field ids come from each field's PARQUET:field_id metadata. The file's
 * key-value metadata holds ARROW:schema (the IPC-encoded input schema, so an
 * Arrow reader restores exact types) and the caller's pairs.
 *
 * Encodings: data pages PLAIN or RLE_DICTIONARY (v1 or v2 pages), levels
 * RLE. A dictionary column builds its dictionary while its first page is
 * encoded; if that page's values are mostly distinct the column is written
 * PLAIN instead, before any dictionary bytes exist, so the abandoned attempt
 * costs nothing in the output. A dictionary that would pass
 * `dictionary_max_bytes` part-way through a chunk stops growing: the page
 * where that happens and every later page of the chunk are PLAIN.
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
 * BYTE_STREAM_SPLIT are chosen per column with basalt_parquet_writer_options
 * column_encodings.
 *
 * Statistics (min/max in the column's order, null_count) are written for
 * every column chunk: signed or unsigned integers as the logical type says,
 * floats never with NaN as a bound (-0.0 as min and +0.0 as max when a bound
 * is zero), decimals as signed big-endian numbers, byte arrays as unsigned
 * bytes, truncated to `max_statistics_size` bytes with is_*_value_exact
 * false when truncated. null_count counts the leaf slots that hold no value
 * (null or empty ancestors included, as the levels say). GEOMETRY and
 * GEOGRAPHY chunks have no min/max (WKB has no order) and no ColumnIndex,
 * but GeospatialStatistics: the ISO WKB type codes of their values and, for
 * GEOMETRY, the bounding box of their coordinates, NaN skipped dimension by
 * dimension (Geospatial.md); a chunk holding a value that is not WKB has
 * none. GEOGRAPHY gets no box: its edges are spherical, and a box of the
 * vertices would not hold them.
 *
 * Thread safety: a writer is used by one thread at a time (it runs its own
 * work on the pool given in its options). */
#ifndef BASALT_PARQUET_WRITER_H
#define BASALT_PARQUET_WRITER_H

#include "basalt/arrow.h"
#include "basalt/codec.h"
#include "basalt/core.h"
#include "basalt/io.h"
#include "basalt/parquet_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parquet modular encryption (parquet-format Encryption.md) of the file
 * written. Every encrypted column's pages and page headers, ColumnIndex,
 * OffsetIndex and bloom filter are encrypted with its key; the footer is
 * encrypted with the footer key ("PARE" magic, a FileCryptoMetaData before
 * it), or left in plaintext and signed with it ("PAR1": readers without
 * keys read the plaintext columns). A column with a key of its own (or any
 * encrypted column under a plaintext footer) gets its ColumnMetaData
 * serialized and encrypted into encrypted_column_metadata; under a
 * plaintext footer its plain meta_data is kept for old readers, stripped of
 * statistics, encoding stats and size statistics. AES_GCM_V1 encrypts every
 * module with AES-GCM; AES_GCM_CTR_V1 encrypts pages with AES-CTR (not
 * authenticated) and the rest with AES-GCM. The AAD of every GCM module
 * starts with the AAD prefix (if any) and 8 random bytes (aad_file_unique).
 * Nonces are random: the bytes of an encrypted file differ from run to run.
 * An encrypted file holds at most 32767 row groups, columns and pages per
 * column chunk (the AAD ordinals are 16-bit): more is LIMIT. */
struct basalt_parquet_column_encryption {
    const char *column;             /* leaf column, dotted path */
    const uint8_t *key;             /* 16, 24 or 32 bytes; NULL: the footer key */
    size_t key_len;
    const uint8_t *key_metadata;    /* stored for readers to find the key; NULL: none */
    size_t key_metadata_len;
};

struct basalt_parquet_encryption {
    /* enum basalt_parquet_encryption_algorithm_kind: AES_GCM_V1 (0 means
     * it too) or AES_GCM_CTR_V1. */
    int32_t algorithm;
    const uint8_t *footer_key;      /* 16, 24 or 32 bytes, required */
    size_t footer_key_len;
    const uint8_t *footer_key_metadata; /* NULL: none */
    size_t footer_key_metadata_len;
    bool plaintext_footer;
    /* AAD prefix (NULL: none), stored in the file unless
     * skip_aad_prefix_storage (then readers must be given it). */
    const uint8_t *aad_prefix;
    size_t aad_prefix_len;
    bool skip_aad_prefix_storage;
    /* The columns to encrypt, `num_columns` of them; none (0) encrypts every
     * column with the footer key. Columns not listed stay plaintext. */
    const struct basalt_parquet_column_encryption *columns;
    size_t num_columns;
    /* DATA_PAGE_V2 pages as parquet-java writes them: the level sections in
     * plaintext, then a module of the values (default false: the whole page
     * one module, as Arrow C++ and Rust write; readers of either do not read
     * the other). The reader reads both. */
    bool v2_levels_in_plaintext;
};

/* A per-column encoding choice (by leaf column: its dotted path). */
struct basalt_parquet_writer_column_encoding {
    const char *column;  /* borrowed until open returns */
    int32_t encoding;    /* enum basalt_parquet_encoding: PLAIN, RLE_DICTIONARY,
                          * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
                          * DELTA_BYTE_ARRAY or BYTE_STREAM_SPLIT */
};

struct basalt_parquet_writer_options {
    /* Page compression (default ZSTD) at `codec_level` (default
     * BASALT_CODEC_LEVEL_DEFAULT). ZLIB, DEFLATE, BZIP2 and XZ have no Parquet
     * codec: INVALID_ARG at open. */
    enum basalt_codec_kind codec;
    int codec_level;
    /* Row group cuts (defaults 1048576 rows, 128 MiB); 0 means no limit of
     * that kind, but not both. */
    int64_t row_group_rows;
    int64_t row_group_bytes;
    /* Target uncompressed size of a data page (default 1 MiB) and a cap on
     * its rows (default 20000). */
    int64_t page_bytes;
    int64_t page_rows;
    /* Dictionary encoding for columns without an explicit choice (default
     * true), and the dictionary size in bytes at which a chunk falls back to
     * PLAIN (default 1 MiB). */
    bool dictionary;
    int64_t dictionary_max_bytes;
    /* Data page version, 1 (default) or 2. */
    int page_version;
    /* Store a CRC-32 of each page (default false). */
    bool page_crc;
    /* Write the page index, a ColumnIndex (per-page bounds and null counts,
     * and the level histograms below per page) and an OffsetIndex (page
     * locations; for BYTE_ARRAY columns each page's value bytes) per column
     * chunk (default true). A chunk with a page of only NaN, or whose
     * truncated max cannot be written (every byte 0xff), has no ColumnIndex.
     * Whatever this option, every chunk's ColumnMetaData has
     * size_statistics: for BYTE_ARRAY columns the bytes of the values
     * without their lengths, and the histograms of the repetition levels
     * (columns that repeat) and of the definition levels (columns that have
     * any). */
    bool page_index;
    /* Bounds of byte-array statistics longer than this are truncated (default
     * 64). */
    size_t max_statistics_size;
    /* Leave the statistics out of the data page headers (default false:
     * every DataPageHeader / DataPageHeaderV2 carries the page's null_count
     * and, unless the page has no value, only NaN or a max that cannot be
     * truncated, the bounds its ColumnIndex entry has, by the rules above,
     * with their is_*_value_exact flags). */
    bool skip_page_statistics;
    /* Per-column encodings, `num_column_encodings` of them (borrowed until
     * open returns). */
    const struct basalt_parquet_writer_column_encoding *column_encodings;
    size_t num_column_encodings;
    /* Extra key-value metadata (encoded as ArrowSchema metadata, borrowed
     * until open returns), NULL for none. */
    const char *key_value_metadata;
    /* Split-block bloom filters (XXH64 of each value's PLAIN bytes) for
     * these leaf columns (dotted paths), `num_bloom_columns` names (borrowed until open
     * returns; not BOOLEAN columns), sized for each chunk's distinct values
     * at false-positive rate `bloom_fpp` (default 0.01), at most 128 MiB. */
    const char *const *bloom_columns;
    size_t num_bloom_columns;
    double bloom_fpp;
    /* Leave out the ARROW:schema key (default false). */
    bool skip_arrow_schema;
    /* Take the reference paths, value by value, for dictionary lookups and
     * statistics instead of the specialised ones (default false). The file
     * is byte-for-byte the same, written more slowly: tests compare them. */
    bool simple_paths;
    /* Workers encoding the column chunks of a row group: `pool` (borrowed;
     * it must outlive the writer; NULL for the calling thread only) and at
     * most `num_workers` of its workers (0: all). The file is byte-for-byte
     * the same for any number of workers. */
    struct basalt_pool *pool;
    int num_workers;
    /* Encrypt the file (see struct basalt_parquet_encryption; borrowed until
     * open returns, keys copied). NULL: a plaintext file. */
    const struct basalt_parquet_encryption *encryption;
};

/* Fills `options` with the defaults above. */
BASALT_EXPORT void basalt_parquet_writer_options_init(struct basalt_parquet_writer_options *options);

struct basalt_parquet_writer;

/* Starts a Parquet file on `output` for batches of `schema` (format "+s";
 * borrowed, read during the call only). With `take_output` the writer owns
 * the output and closes it with itself (also when this call fails);
 * otherwise the output is borrowed and must outlive the writer, and the
 * caller commits or closes it after basalt_parquet_writer_finish.
 * `options` NULL means the defaults; it is copied.
 * Returns OK; INVALID_ARG (NULL arguments, bad options, an encoding that
 * does not fit its column's type, a bloom filter on a BOOLEAN column, a
 * schema that is not a struct, an encryption key that is not 16, 24 or 32
 * bytes, an unknown algorithm, a column listed twice for encryption);
 * NOT_FOUND (a column named in the options is not a leaf of the schema);
 * LIMIT (over 32767 columns in an encrypted file); CORRUPT (a malformed schema or field id);
 * UNSUPPORTED (a type this writer does not write); IO (writing the magic);
 * NOMEM.
 * *out is NULL on failure. */
BASALT_EXPORT basalt_status basalt_parquet_writer_open(
    struct basalt_output *output, bool take_output, const struct ArrowSchema *schema,
    const struct basalt_parquet_writer_options *options, struct basalt_parquet_writer **out,
    struct basalt_error *err);

/* The same for a local file at `path` (written under a temporary name and
 * renamed by finish). */
BASALT_EXPORT basalt_status basalt_parquet_writer_open_file(
    const char *path, const struct ArrowSchema *schema,
    const struct basalt_parquet_writer_options *options, struct basalt_parquet_writer **out,
    struct basalt_error *err);

/* Appends the rows of `batch` (borrowed; format "+s" matching the schema
 * given at open, any producer; not released by the writer). The batch is
 * validated at BASALT_ARROW_VALIDATE_DEFAULT first. Full row groups are
 * written out as they fill.
 * Returns OK; INVALID_ARG (NULL, released batch, a writer that failed or
 * finished); CORRUPT (the batch does not fit the schema); LIMIT; IO; NOMEM.
 * After a failure the writer only accepts close. */
BASALT_EXPORT basalt_status basalt_parquet_writer_write(struct basalt_parquet_writer *writer,
                                                        const struct ArrowArray *batch,
                                                        struct basalt_error *err);

/* Writes every batch of `stream` (borrowed; read to its end, not released).
 * The stream's schema must have the same columns as the writer's.
 * Returns as write, and the stream's errors mapped as
 * basalt_arrow_stream_collect maps them. */
BASALT_EXPORT basalt_status basalt_parquet_writer_write_stream(struct basalt_parquet_writer *writer,
                                                               struct ArrowArrayStream *stream,
                                                               struct basalt_error *err);

/* Writes the last row group and the footer and, when the writer owns its
 * output, commits it. Returns OK; INVALID_ARG (a writer that failed or
 * finished); IO; NOMEM. The writer must still be closed. */
BASALT_EXPORT basalt_status basalt_parquet_writer_finish(struct basalt_parquet_writer *writer,
                                                         struct basalt_error *err);

/* Frees the writer, closing an owned output (which discards the file unless
 * finish committed it). NULL is a no-op. */
BASALT_EXPORT void basalt_parquet_writer_close(struct basalt_parquet_writer *writer);

/* Rows accepted so far, and row groups written so far. */
BASALT_EXPORT int64_t basalt_parquet_writer_num_rows(const struct basalt_parquet_writer *writer);
BASALT_EXPORT int32_t basalt_parquet_writer_num_row_groups(
    const struct basalt_parquet_writer *writer);

/* The size of the file so far: the bytes written to the output plus the
 * encoded pages of the row group being built (its pending pages counted as
 * their raw values), so a caller can roll files at a target size before the
 * row group is written. After finish, the size of the whole file. */
BASALT_EXPORT int64_t basalt_parquet_writer_bytes(const struct basalt_parquet_writer *writer);

/* The row groups written so far (every one of them once finish returned),
 * as the footer holds them: per leaf column, in schema order, its
 * ColumnMetaData with num_values, total_compressed_size, the data and
 * dictionary page offsets and the chunk's statistics (bounds truncated to
 * max_statistics_size, with their is_*_value_exact flags); file_offset is
 * where the row group starts. *n receives their number. For callers that
 * derive metadata from the file they wrote (table formats' column metrics)
 * without reading it back. Valid until the next write, finish or close. */
BASALT_EXPORT const struct basalt_parquet_row_group *basalt_parquet_writer_row_groups(
    const struct basalt_parquet_writer *writer, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
