/* basalt parquet: the Variant binary encoding (parquet-format
 * VariantEncoding.md): parsing and checking metadata and values, and their
 * JSON text.
 *
 * A Variant is two byte strings: the metadata (a header byte, then a
 * dictionary of the object field names) and the value (a header byte, then
 * the data of a primitive, a short string, an object of (field id, value)
 * pairs or an array of values). The Parquet reader gives VARIANT columns, shredded or not, as
 * the Arrow extension type "parquet.variant": a struct of a binary
 * `metadata` and a binary `value` holding these bytes (see basalt/parquet.h).
 *
 * Every function takes its input as (pointer, length), never reads outside
 * it and treats it as untrusted: malformed bytes are CORRUPT, with a message
 * naming what is wrong and where ("variant value: object field 3: field id
 * 9 outside the dictionary of 5 names"); values nested deeper than
 * BASALT_PARQUET_VARIANT_MAX_DEPTH are LIMIT.
 *
 * Thread safety: the functions keep no state. */
#ifndef BASALT_PARQUET_VARIANT_H
#define BASALT_PARQUET_VARIANT_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Objects and arrays nested deeper than this are LIMIT. */
#define BASALT_PARQUET_VARIANT_MAX_DEPTH 128

enum basalt_parquet_variant_basic_type {
    BASALT_PARQUET_VARIANT_BASIC_PRIMITIVE = 0,
    BASALT_PARQUET_VARIANT_BASIC_SHORT_STRING = 1,
    BASALT_PARQUET_VARIANT_BASIC_OBJECT = 2,
    BASALT_PARQUET_VARIANT_BASIC_ARRAY = 3
};

/* The primitive type ids (the value header of basic type 0). */
enum basalt_parquet_variant_primitive {
    BASALT_PARQUET_VARIANT_NULL = 0,
    BASALT_PARQUET_VARIANT_TRUE = 1,
    BASALT_PARQUET_VARIANT_FALSE = 2,
    BASALT_PARQUET_VARIANT_INT8 = 3,
    BASALT_PARQUET_VARIANT_INT16 = 4,
    BASALT_PARQUET_VARIANT_INT32 = 5,
    BASALT_PARQUET_VARIANT_INT64 = 6,
    BASALT_PARQUET_VARIANT_DOUBLE = 7,
    BASALT_PARQUET_VARIANT_DECIMAL4 = 8,
    BASALT_PARQUET_VARIANT_DECIMAL8 = 9,
    BASALT_PARQUET_VARIANT_DECIMAL16 = 10,
    BASALT_PARQUET_VARIANT_DATE = 11,
    BASALT_PARQUET_VARIANT_TIMESTAMP_MICROS = 12,     /* UTC-adjusted */
    BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_MICROS = 13, /* wall clock */
    BASALT_PARQUET_VARIANT_FLOAT = 14,
    BASALT_PARQUET_VARIANT_BINARY = 15,
    BASALT_PARQUET_VARIANT_STRING = 16,
    BASALT_PARQUET_VARIANT_TIME_NTZ_MICROS = 17,
    BASALT_PARQUET_VARIANT_TIMESTAMP_NANOS = 18,
    BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_NANOS = 19,
    BASALT_PARQUET_VARIANT_UUID = 20
};

/* Parsed metadata: views into the bytes given to the parser, valid as long
 * as they are. */
struct basalt_parquet_variant_metadata {
    const uint8_t *data;       /* the metadata, `len` bytes (trailing bytes excluded) */
    size_t len;
    bool sorted;               /* the sorted_strings flag */
    int offset_size;           /* 1..4 */
    uint32_t dictionary_size;
    const uint8_t *offsets;    /* dictionary_size + 1 offsets of offset_size bytes */
    const uint8_t *strings;    /* the dictionary's bytes */
    size_t strings_len;
};

/* Parses the metadata at the start of [data, data + len) into `out` and
 * checks it: version 1, the dictionary size and offsets inside the bytes,
 * offsets starting at 0 and never decreasing, every name well-formed UTF-8.
 * Bytes after the metadata are allowed; *consumed (NULL allowed) is its
 * length (a metadata immediately followed by a value splits there).
 * Returns OK, CORRUPT or INVALID_ARG (NULL out). */
BASALT_EXPORT basalt_status basalt_parquet_variant_metadata_parse(
    const void *data, size_t len, struct basalt_parquet_variant_metadata *out, size_t *consumed,
    struct basalt_error *err);

/* Dictionary name `id` (a view into the metadata); false when id is out of
 * range. */
BASALT_EXPORT bool basalt_parquet_variant_metadata_name(
    const struct basalt_parquet_variant_metadata *md, uint32_t id, const uint8_t **name,
    size_t *len);

/* The id of `name` in the dictionary (binary search when the dictionary is
 * sorted, else the first match), or -1 when it is not there. */
BASALT_EXPORT int64_t basalt_parquet_variant_metadata_find(
    const struct basalt_parquet_variant_metadata *md, const void *name, size_t len);

/* Checks the value at the start of [value, value + len) against `md`, all
 * the way down: headers, sizes and offsets inside the bytes, object field
 * ids inside the dictionary, decimal scales in 0..38, strings well-formed
 * UTF-8, nesting depth. Stores the value's encoded length in *size (NULL
 * allowed; bytes after it are allowed). Primitive type ids this version does
 * not know are CORRUPT (their size cannot be known). Returns OK, CORRUPT,
 * LIMIT or INVALID_ARG (NULL md). */
BASALT_EXPORT basalt_status basalt_parquet_variant_validate(
    const struct basalt_parquet_variant_metadata *md, const void *value, size_t len,
    size_t *size, struct basalt_error *err);

/* Appends the JSON text of the Variant (metadata, value) to `out`
 * (borrowed), checking both as basalt_parquet_variant_validate does:
 *   null, true, false; integers exact; float and double in their shortest
 *   round-trip text (NaN, Infinity, -Infinity as strings); decimals as exact
 *   JSON numbers ("12.340"); dates "YYYY-MM-DD"; times "HH:MM:SS.ffffff";
 *   timestamps "YYYY-MM-DDTHH:MM:SS.ffffff" (9 digits for nanoseconds) with
 *   a trailing "Z" when UTC-adjusted; binary as a base64 string; strings
 *   JSON-escaped; UUIDs "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; objects with
 *   their fields in the order of the encoding (sorted by name); arrays.
 * Returns OK, CORRUPT, LIMIT, NOMEM. On failure `out` may hold part of the
 * text after its previous size. */
BASALT_EXPORT basalt_status basalt_parquet_variant_to_json(const void *metadata,
                                                           size_t metadata_len, const void *value,
                                                           size_t value_len,
                                                           struct basalt_buffer *out,
                                                           struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
