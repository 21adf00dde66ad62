/* basalt arrow: the Arrow C Data Interface and C Stream Interface.
 *
 * Every reader hands data out as (struct ArrowSchema, struct ArrowArray)
 * pairs, every writer takes them in, from basalt or from any other producer.
 * This header declares the structs exactly as the specification does (so it
 * may be included next to nanoarrow or Arrow C++ headers) and adds:
 *
 *   - basalt_arrow_type_*      parse format strings into a type descriptor
 *   - basalt_arrow_metadata_*  encode and read the binary metadata
 *   - basalt_arrow_schema_*    allocate schemas that own their strings
 *   - basalt_arrow_array_*     arrays owning basalt-allocated buffers, move,
 *                              and validation of arrays from foreign producers
 *   - basalt_arrow_builder_*   append values, finish into (schema, array)
 *   - basalt_arrow_stream_*    streams over batches, and collecting a stream
 *
 * Release semantics follow the specification: release() frees what the
 * struct owns and sets `release` to NULL; a parent's release releases the
 * children and dictionary that are not yet released, so a consumer may move a
 * child out (basalt_arrow_array_move) and release it on its own. Every struct
 * basalt produces can be moved to another address with a plain copy.
 *
 * Buffers basalt produces are 64-byte aligned. A validity bitmap is omitted
 * (NULL, null_count 0) when an array has no nulls.
 *
 * Thread safety: none of these objects are shared; a struct and everything
 * it owns is used by one thread at a time. Released structs may be moved to
 * and released on another thread. */
#ifndef BASALT_ARROW_H
#define BASALT_ARROW_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ the specification's structs */

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    /* Array type description */
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;

    /* Release callback */
    void (*release)(struct ArrowSchema *);
    /* Opaque producer-specific data */
    void *private_data;
};

struct ArrowArray {
    /* Array data description */
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;

    /* Release callback */
    void (*release)(struct ArrowArray *);
    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    /* Callbacks providing stream functionality */
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);

    /* Release callback */
    void (*release)(struct ArrowArrayStream *);

    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* ------------------------------------------------------------------ types */

/* Logical types of the format strings (see basalt_arrow_type_parse). */
enum basalt_arrow_type_id {
    BASALT_ARROW_TYPE_NULL = 0,           /* n */
    BASALT_ARROW_TYPE_BOOL,               /* b */
    BASALT_ARROW_TYPE_INT8,               /* c */
    BASALT_ARROW_TYPE_UINT8,              /* C */
    BASALT_ARROW_TYPE_INT16,              /* s */
    BASALT_ARROW_TYPE_UINT16,             /* S */
    BASALT_ARROW_TYPE_INT32,              /* i */
    BASALT_ARROW_TYPE_UINT32,             /* I */
    BASALT_ARROW_TYPE_INT64,              /* l */
    BASALT_ARROW_TYPE_UINT64,             /* L */
    BASALT_ARROW_TYPE_HALF_FLOAT,         /* e */
    BASALT_ARROW_TYPE_FLOAT,              /* f */
    BASALT_ARROW_TYPE_DOUBLE,             /* g */
    BASALT_ARROW_TYPE_BINARY,             /* z */
    BASALT_ARROW_TYPE_STRING,             /* u */
    BASALT_ARROW_TYPE_LARGE_BINARY,       /* Z */
    BASALT_ARROW_TYPE_LARGE_STRING,       /* U */
    BASALT_ARROW_TYPE_BINARY_VIEW,        /* vz */
    BASALT_ARROW_TYPE_STRING_VIEW,        /* vu */
    BASALT_ARROW_TYPE_FIXED_SIZE_BINARY,  /* w:N */
    BASALT_ARROW_TYPE_DECIMAL32,          /* d:P,S,32 */
    BASALT_ARROW_TYPE_DECIMAL64,          /* d:P,S,64 */
    BASALT_ARROW_TYPE_DECIMAL128,         /* d:P,S  or d:P,S,128 */
    BASALT_ARROW_TYPE_DECIMAL256,         /* d:P,S,256 */
    BASALT_ARROW_TYPE_DATE32,             /* tdD: days since the epoch, int32 */
    BASALT_ARROW_TYPE_DATE64,             /* tdm: milliseconds since the epoch, int64 */
    BASALT_ARROW_TYPE_TIME32,             /* tts, ttm */
    BASALT_ARROW_TYPE_TIME64,             /* ttu, ttn */
    BASALT_ARROW_TYPE_TIMESTAMP,          /* ts{s,m,u,n}:[zone] */
    BASALT_ARROW_TYPE_DURATION,           /* tD{s,m,u,n} */
    BASALT_ARROW_TYPE_INTERVAL_MONTHS,    /* tiM */
    BASALT_ARROW_TYPE_INTERVAL_DAY_TIME,  /* tiD */
    BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO, /* tin */
    BASALT_ARROW_TYPE_LIST,               /* +l */
    BASALT_ARROW_TYPE_LARGE_LIST,         /* +L */
    BASALT_ARROW_TYPE_LIST_VIEW,          /* +vl */
    BASALT_ARROW_TYPE_LARGE_LIST_VIEW,    /* +vL */
    BASALT_ARROW_TYPE_FIXED_SIZE_LIST,    /* +w:N */
    BASALT_ARROW_TYPE_STRUCT,             /* +s */
    BASALT_ARROW_TYPE_MAP,                /* +m */
    BASALT_ARROW_TYPE_SPARSE_UNION,       /* +us:I,J,... */
    BASALT_ARROW_TYPE_DENSE_UNION,        /* +ud:I,J,... */
    BASALT_ARROW_TYPE_RUN_END_ENCODED     /* +r */
};

enum basalt_arrow_time_unit {
    BASALT_ARROW_TIME_UNIT_SECOND = 0,
    BASALT_ARROW_TIME_UNIT_MILLI,
    BASALT_ARROW_TIME_UNIT_MICRO,
    BASALT_ARROW_TIME_UNIT_NANO
};

/* A parsed format string. Pointer members are views into the parsed string
 * and valid as long as it is. */
struct basalt_arrow_type {
    enum basalt_arrow_type_id id;
    /* Bits per value in the values buffer of a fixed-width type (bool 1,
     * int32 32, decimal128 128, w:N 8*N, interval month_day_nano 128);
     * 0 for every other type. */
    int64_t bit_width;
    /* w:N byte width, or +w:N list size; 0 otherwise. */
    int32_t fixed_size;
    /* Decimals. */
    int32_t precision;
    int32_t scale;
    /* time32, time64, timestamp, duration. */
    enum basalt_arrow_time_unit unit;
    /* Timestamp zone ("UTC", "+01:00", "Europe/Paris"); NULL when the format
     * carries none ("tsu:"). NUL-terminated: it is the tail of the format. */
    const char *timezone;
    /* Unions: the type codes, the text after "+us:"/"+ud:" ("0,1,5"), and
     * their number; NULL and 0 otherwise. */
    const char *union_type_ids;
    int32_t n_union_types;
};

/* Parses an Arrow format string (the specification's table: every primitive,
 * temporal, nested, union, view and run-end format).
 * Returns OK; INVALID_ARG when format or type is NULL; UNSUPPORTED for a
 * format code this library does not know (possibly from a newer specification);
 * CORRUPT for a known code with malformed or out-of-range parameters ("w:",
 * "w:-1", "d:0,2", "tsx:", "i extra"). Thread-safe, never allocates. */
BASALT_EXPORT basalt_status basalt_arrow_type_parse(const char *format,
                                                    struct basalt_arrow_type *type,
                                                    struct basalt_error *err);

/* Writes the format string of `type` with its NUL into buf[0, cap).
 * Returns OK; LIMIT when it does not fit; INVALID_ARG for an unknown id or
 * out-of-range parameters (the same rules parse enforces). */
BASALT_EXPORT basalt_status basalt_arrow_type_format(const struct basalt_arrow_type *type,
                                                     char *buf, size_t cap,
                                                     struct basalt_error *err);

/* Lower-case name of a type id ("int32", "large_string", "timestamp");
 * static storage, "unknown" for values outside the enum. */
BASALT_EXPORT const char *basalt_arrow_type_name(enum basalt_arrow_type_id id);

/* ------------------------------------------------------------------ metadata */

/* One key/value pair. Keys and values are byte strings (UTF-8 by convention)
 * and are not NUL-terminated inside encoded metadata. */
struct basalt_arrow_metadata_item {
    const char *key;
    size_t key_len;
    const char *value;
    size_t value_len;
};

/* Appends one pair to metadata being built in `buf` (core buffer, caller
 * storage, starting empty): the first call writes the int32 pair count, every
 * call adds int32 key length, key bytes, int32 value length, value bytes and
 * bumps the count (native byte order, as the specification says). The result,
 * buf->data, is what ArrowSchema.metadata points to.
 * Returns OK; LIMIT when a length or the count exceeds INT32_MAX; NOMEM. On
 * failure `buf` holds the metadata as it was before the call. */
BASALT_EXPORT basalt_status basalt_arrow_metadata_append(struct basalt_buffer *buf,
                                                         const char *key, size_t key_len,
                                                         const char *value, size_t value_len,
                                                         struct basalt_error *err);

/* Total encoded size in bytes of `metadata` (0 for NULL). Returns OK or
 * CORRUPT when a count or length is negative. The specification carries no
 * outer length, so `metadata` must be trusted to be as long as it says. */
BASALT_EXPORT basalt_status basalt_arrow_metadata_size(const char *metadata, size_t *size,
                                                       struct basalt_error *err);

/* Iterates the pairs of encoded metadata. Caller storage; the items are views
 * into the metadata. */
struct basalt_arrow_metadata_reader {
    const char *pos;
    int32_t remaining;
};

/* Starts reading `metadata` (NULL reads as no pairs). The whole encoding is
 * checked here, so reader_next cannot fail. Returns OK or CORRUPT. */
BASALT_EXPORT basalt_status basalt_arrow_metadata_reader_init(
    struct basalt_arrow_metadata_reader *reader, const char *metadata, struct basalt_error *err);
/* Fills `item` with the next pair and returns true, or returns false at the end. */
BASALT_EXPORT bool basalt_arrow_metadata_reader_next(struct basalt_arrow_metadata_reader *reader,
                                                     struct basalt_arrow_metadata_item *item);

/* Looks up the value of the first pair whose key equals the NUL-terminated
 * `key` (e.g. "PARQUET:field_id"). On OK, *value / *value_len view the value
 * inside `metadata`. Returns OK, NOT_FOUND (also for NULL metadata) or CORRUPT. */
BASALT_EXPORT basalt_status basalt_arrow_metadata_get(const char *metadata, const char *key,
                                                      const char **value, size_t *value_len,
                                                      struct basalt_error *err);

/* ------------------------------------------------------------------ schema */

/* Initialises `schema` (caller storage) to own a copy of `format` and `name`
 * (NULL name allowed), the given flags and `n_children` child structs whose
 * `release` is NULL: each must then be initialised in place (schema_init on
 * schema->children[i], or basalt_arrow_schema_move into it) before the schema
 * is handed out. metadata and dictionary start NULL. The release callback
 * frees everything the schema owns, releasing children and dictionary that are
 * not already released. The format is not checked (basalt_arrow_schema_validate).
 * Returns OK; INVALID_ARG (NULL schema/format, n_children < 0); LIMIT
 * (n_children above 2^31-1); NOMEM. On failure schema->release is NULL and
 * nothing is allocated. */
BASALT_EXPORT basalt_status basalt_arrow_schema_init(struct ArrowSchema *schema, const char *format,
                                                     const char *name, int64_t flags,
                                                     int64_t n_children, struct basalt_error *err);

/* Replaces the metadata of a schema made by basalt_arrow_schema_init with a
 * copy of `metadata` (encoded; NULL removes it). Returns OK; INVALID_ARG for a
 * released schema or one another producer made; CORRUPT for malformed
 * metadata; NOMEM (the schema is unchanged). */
BASALT_EXPORT basalt_status basalt_arrow_schema_set_metadata(struct ArrowSchema *schema,
                                                             const char *metadata,
                                                             struct basalt_error *err);

/* Gives `schema` (made by basalt_arrow_schema_init) the dictionary
 * `dictionary`, moved in: on return `dictionary` is released in every case (on
 * failure its contents were released). Replaces any earlier dictionary.
 * Returns OK; INVALID_ARG (schema not ours or released, dictionary released);
 * NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_schema_set_dictionary(struct ArrowSchema *schema,
                                                               struct ArrowSchema *dictionary,
                                                               struct basalt_error *err);

/* Deep copy of any valid schema (any producer) into `dst`, a schema made by
 * basalt that owns everything. Returns OK; INVALID_ARG for a released src;
 * CORRUPT for malformed metadata; LIMIT past 64 levels of nesting; NOMEM (dst
 * released). */
BASALT_EXPORT basalt_status basalt_arrow_schema_copy(const struct ArrowSchema *src,
                                                     struct ArrowSchema *dst,
                                                     struct basalt_error *err);

/* As basalt_arrow_schema_copy, the copy's root named `name` (NULL: none):
 * a column renamed by a projection. */
BASALT_EXPORT basalt_status basalt_arrow_schema_copy_renamed(const struct ArrowSchema *src,
                                                             const char *name,
                                                             struct ArrowSchema *dst,
                                                             struct basalt_error *err);

/* Moves `src` into `dst`: dst takes over ownership, src is marked released.
 * `dst` must be released (or never initialised). Neither may be NULL. */
BASALT_EXPORT void basalt_arrow_schema_move(struct ArrowSchema *src, struct ArrowSchema *dst);

/* Calls schema->release if the schema is not released. NULL is a no-op. */
BASALT_EXPORT void basalt_arrow_schema_release(struct ArrowSchema *schema);

/* Checks a schema from any producer: the format of every node parses, the
 * number of children fits the type (list 1, map 1 struct of 2, struct any,
 * fixed-width 0), children and dictionary are present and not released,
 * dictionary indices are integers, metadata is well formed; at most 64 levels.
 * Returns OK; INVALID_ARG (NULL or released schema); CORRUPT naming the
 * column path; UNSUPPORTED for unknown formats; LIMIT. */
BASALT_EXPORT basalt_status basalt_arrow_schema_validate(const struct ArrowSchema *schema,
                                                         struct basalt_error *err);

/* ------------------------------------------------------------------ arrays */

/* Initialises `array` (caller storage) as an empty array of length 0 that
 * owns up to `n_buffers` buffers and `n_children` children:
 * array->buffers[i] are NULL, array->children[i] point to structs whose
 * `release` is NULL, to be filled in place (basalt_arrow_builder_finish or
 * basalt_arrow_array_move into them). The caller sets length, null_count and
 * offset. Buffers are given with basalt_arrow_array_set_buffer or
 * basalt_arrow_array_allocate_buffer; the release callback basalt_free()s
 * them, releases children and dictionary not yet released, and frees itself.
 * Returns OK; INVALID_ARG (NULL array, negative counts); LIMIT (a count above
 * 2^31-1); NOMEM, in which case array->release is NULL and nothing is allocated. */
BASALT_EXPORT basalt_status basalt_arrow_array_init(struct ArrowArray *array, int64_t n_buffers,
                                                    int64_t n_children, struct basalt_error *err);

/* Memory of the caller's for the buffers of arrays a reader fills (a
 * shared-memory segment the values are decoded straight into).
 * `allocate` returns `size` bytes (a multiple of 64), 64-byte aligned, or
 * NULL when it has none (the heap is used then: never a failure);
 * `release` takes back what `allocate` gave, on whichever thread releases
 * the array. Both are called with `ctx`, which must stay valid as long as
 * any buffer from it is alive. */
struct basalt_arrow_allocator {
    void *(*allocate)(void *ctx, size_t size);
    void (*release)(void *ctx, void *buffer);
    void *ctx;
};

/* As basalt_arrow_array_init, with basalt_arrow_array_allocate_buffer
 * taking its buffers from `allocator` (copied; NULL: the heap). Buffers
 * given with set_buffer are the heap's as before. INVALID_ARG for an
 * allocator without both functions. */
BASALT_EXPORT basalt_status basalt_arrow_array_init_with(
    struct ArrowArray *array, int64_t n_buffers, int64_t n_children,
    const struct basalt_arrow_allocator *allocator, struct basalt_error *err);

/* Makes `buffer` (from basalt_aligned_alloc / basalt_malloc, or NULL) buffer
 * `i` of an array made by basalt_arrow_array_init; the array takes ownership
 * in every case (on INVALID_ARG the buffer is freed). A buffer already there
 * is freed. Returns OK or INVALID_ARG (array not ours, released, i out of range). */
BASALT_EXPORT basalt_status basalt_arrow_array_set_buffer(struct ArrowArray *array, int64_t i,
                                                          void *buffer, struct basalt_error *err);

/* Allocates `size` bytes, 64-byte aligned with the size rounded up to a
 * multiple of 64 (the padding zeroed), as buffer `i` of an array made by
 * basalt_arrow_array_init, replacing any buffer there; *out receives it for
 * the caller to fill. Returns OK, INVALID_ARG (as set_buffer), LIMIT (size
 * above 2^62) or NOMEM (the array is unchanged). */
BASALT_EXPORT basalt_status basalt_arrow_array_allocate_buffer(struct ArrowArray *array, int64_t i,
                                                               size_t size, void **out,
                                                               struct basalt_error *err);

/* Gives an array made by basalt_arrow_array_init the dictionary `dictionary`,
 * moved in (released on return in every case, as schema_set_dictionary).
 * Returns OK, INVALID_ARG or NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_array_set_dictionary(struct ArrowArray *array,
                                                              struct ArrowArray *dictionary,
                                                              struct basalt_error *err);

/* A view of `src` in `dst` (caller storage): new structs for the array, its
 * children and dictionary, pointing at src's buffers; releasing the view
 * frees only those structs. `src` (any producer) must outlive the view.
 * Returns OK; INVALID_ARG (NULL or released); LIMIT (nesting); NOMEM (dst
 * released). */
BASALT_EXPORT basalt_status basalt_arrow_array_view(const struct ArrowArray *src,
                                                    struct ArrowArray *dst,
                                                    struct basalt_error *err);

/* An array owned jointly by its views, for one result read by several
 * consumers (a CTE computed once and scanned twice). `src` is moved in
 * (released on error too). Each basalt_arrow_shared_view gives a view in
 * `dst` (caller storage) whose every struct, children and dictionary
 * included, keeps the data alive: views may outlive the holder and each
 * other, be released in any thread, and have children moved out of them.
 * basalt_arrow_shared_release drops the creator's hold; the data goes with
 * the last view. Returns OK; INVALID_ARG (NULL or released); LIMIT
 * (nesting); NOMEM. */
struct basalt_arrow_shared;
BASALT_EXPORT basalt_status basalt_arrow_shared_new(struct ArrowArray *src,
                                                    struct basalt_arrow_shared **out,
                                                    struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_shared_view(struct basalt_arrow_shared *s,
                                                     struct ArrowArray *dst,
                                                     struct basalt_error *err);
BASALT_EXPORT void basalt_arrow_shared_release(struct basalt_arrow_shared *s);

/* Moves `src` into `dst` (dst must be released); src is marked released. */
BASALT_EXPORT void basalt_arrow_array_move(struct ArrowArray *src, struct ArrowArray *dst);

/* Calls array->release if the array is not released. NULL is a no-op. */
BASALT_EXPORT void basalt_arrow_array_release(struct ArrowArray *array);

/* How thoroughly basalt_arrow_array_validate looks at an array. */
enum basalt_arrow_validate_level {
    /* The structs only, no buffer contents read: format, n_buffers,
     * n_children, dictionary presence, non-NULL required buffers,
     * length/offset/null_count ranges, child lengths of struct and
     * fixed-size list. O(number of nodes). */
    BASALT_ARROW_VALIDATE_STRUCTURE = 0,
    /* Also reads the first and last offset of each offsets buffer: data and
     * child arrays are long enough. O(number of nodes). */
    BASALT_ARROW_VALIDATE_DEFAULT = 1,
    /* Also every value that could make a reader misbehave: offsets monotonic,
     * dictionary indices in range, UTF-8 of every non-null string, map keys
     * non-null, null_count equal to the bitmap's count when not -1.
     * O(data size). */
    BASALT_ARROW_VALIDATE_FULL = 2
};

/* Validates `array` against `schema` before a consumer reads it, usually
 * from a foreign producer. Both must be unreleased; the schema is checked as
 * by basalt_arrow_schema_validate. Nothing is modified or allocated.
 * Returns OK; INVALID_ARG (NULL or released structs); CORRUPT with a message
 * naming the column path ("column 'a.b': offsets not monotonic at 17");
 * UNSUPPORTED for run-end-encoded and view types, whose validation is not
 * implemented, and formats parse does not know; LIMIT past 64 levels of
 * nesting. Unions have no validity bitmap and a null_count of 0 (or -1);
 * FULL checks every type code against the declared ones and, for dense
 * unions, every offset against its child's length. Thread-safe on distinct
 * or read-only data. The interface carries no buffer sizes, so a binary data buffer can only be
 * checked for presence, not for being as long as the last offset; list and
 * map offsets are checked against the child's length. */
BASALT_EXPORT basalt_status basalt_arrow_array_validate(const struct ArrowSchema *schema,
                                                        const struct ArrowArray *array,
                                                        enum basalt_arrow_validate_level level,
                                                        struct basalt_error *err);

/* ------------------------------------------------------------------ builders */

/* Builds one array of a given type by appending values, then finishes it
 * into an owned (schema, array) pair and starts over empty, ready for the
 * next batch. Nested types own child builders (add_child); a dictionary
 * builder appends indices and owns the builder of the dictionary values.
 * Data goes to 64-byte aligned buffers that grow geometrically and are handed
 * to the finished array without copying. Not shareable between threads.
 *
 * Builders exist for every type except sparse unions, run-end-encoded and
 * views (UNSUPPORTED). Which appends fit which types:
 *   append_int    signed and unsigned integers (range-checked), date32/64,
 *                 time32/64, timestamp, duration, interval months, decimals
 *                 (the unscaled value, sign-extended), dictionary indices
 *   append_uint   unsigned integers (range-checked)
 *   append_double half_float (rounded to nearest even), float, double
 *   append_bool   bool
 *   append_bytes  binary/string (large too; UTF-8 is not checked), and any
 *                 fixed-width type given exactly its byte width: w:N, decimals
 *                 (little-endian two's complement), half_float bits,
 *                 intervals, and the little-endian bytes of any number
 *   append_values a run of fixed-width values or bools from memory (memcpy)
 *   append_null(s) every type; nested types add entries to their children
 *                 (nulls for nullable children and dictionary indices, zero
 *                 values for the others)
 *   end_element   list, large_list, map, fixed-size list, struct: closes one
 *                 non-null element after its child values were appended
 *   append_union  dense union: starts an element in one child, whose value
 *                 (or null) is appended to that child next
 * Dense unions have no validity bitmap (null_count stays 0): append_null(s)
 * appends a null to their first child of the null type ("n"), or else to
 * the first child.
 * A failed append changes nothing: INVALID_ARG (the wrong call for the type,
 * a value out of range), LIMIT or NOMEM. */
struct basalt_arrow_builder;

/* Creates a builder for `format` (as parse accepts, minus the unsupported
 * types) named `name` (NULL for none) with ArrowSchema flags `flags`
 * (ARROW_FLAG_NULLABLE, ARROW_FLAG_DICTIONARY_ORDERED, ARROW_FLAG_MAP_KEYS_SORTED).
 * A map builder comes with its "entries" struct child; add_child on the map
 * adds the key (first, always non-nullable) and value fields to it.
 * Returns OK; INVALID_ARG (NULL format/out); CORRUPT/UNSUPPORTED as parse, and
 * UNSUPPORTED for types without a builder; NOMEM. *out is NULL on failure. */
BASALT_EXPORT basalt_status basalt_arrow_builder_new(const char *format, const char *name,
                                                     int64_t flags,
                                                     struct basalt_arrow_builder **out,
                                                     struct basalt_error *err);

/* Frees the builder, its children, dictionary builder and unfinished data.
 * NULL is a no-op, and so is a child or dictionary builder: those belong to
 * their parent and go with it. */
BASALT_EXPORT void basalt_arrow_builder_free(struct basalt_arrow_builder *builder);

/* Adds a child field to a nested builder (list, large list, fixed-size list:
 * exactly one; struct: any number; map: key then value) and returns it in
 * *child, owned by `parent` and valid until the parent is freed. Children must
 * be added before anything is appended to the parent.
 * Returns OK; INVALID_ARG (not nested, too many children, parent not empty);
 * the statuses of builder_new. */
BASALT_EXPORT basalt_status basalt_arrow_builder_add_child(struct basalt_arrow_builder *parent,
                                                           const char *format, const char *name,
                                                           int64_t flags,
                                                           struct basalt_arrow_builder **child,
                                                           struct basalt_error *err);

/* Makes `builder`, whose type must be an integer type, build dictionary
 * indices, and creates the builder of the dictionary values (format
 * `value_format`), returned in *dictionary and owned by `builder`. Values are
 * appended to *dictionary; indices with append_int / append_values on
 * `builder`. Returns OK; INVALID_ARG (not an integer type, already a
 * dictionary, not empty); the statuses of builder_new. */
BASALT_EXPORT basalt_status basalt_arrow_builder_add_dictionary(
    struct basalt_arrow_builder *builder, const char *value_format,
    struct basalt_arrow_builder **dictionary, struct basalt_error *err);

/* Child i of a nested builder (for a map, 0 is the entries struct), or NULL. */
BASALT_EXPORT struct basalt_arrow_builder *basalt_arrow_builder_child(
    struct basalt_arrow_builder *builder, int64_t i);
/* Builder of the dictionary values, or NULL. */
BASALT_EXPORT struct basalt_arrow_builder *basalt_arrow_builder_dictionary(
    struct basalt_arrow_builder *builder);
/* Number of elements appended since the last finish. */
BASALT_EXPORT int64_t basalt_arrow_builder_length(const struct basalt_arrow_builder *builder);
/* Number of nulls among them. */
BASALT_EXPORT int64_t basalt_arrow_builder_null_count(const struct basalt_arrow_builder *builder);

/* Replaces the field metadata (encoded, copied; NULL removes it) that finish
 * puts in the schema. Returns OK, CORRUPT (malformed metadata) or NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_set_metadata(struct basalt_arrow_builder *builder,
                                                              const char *metadata,
                                                              struct basalt_error *err);

/* Ensures `additional` more elements can be appended without growing the
 * validity, values and offsets buffers. Returns OK, LIMIT or NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_reserve(struct basalt_arrow_builder *builder,
                                                         int64_t additional,
                                                         struct basalt_error *err);
/* Ensures `additional` more bytes of binary/string data fit. Returns OK,
 * INVALID_ARG (not a binary/string type), LIMIT or NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_reserve_bytes(struct basalt_arrow_builder *builder,
                                                               int64_t additional,
                                                               struct basalt_error *err);

/* Appends one value; see the table above for which types take which call.
 * Return OK; INVALID_ARG (wrong type, or a value out of the type's range);
 * LIMIT (32-bit offsets or lengths overflow); NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_append_int(struct basalt_arrow_builder *builder,
                                                            int64_t value,
                                                            struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_builder_append_uint(struct basalt_arrow_builder *builder,
                                                             uint64_t value,
                                                             struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_builder_append_double(
    struct basalt_arrow_builder *builder, double value, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_builder_append_bool(struct basalt_arrow_builder *builder,
                                                             bool value, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_builder_append_bytes(struct basalt_arrow_builder *builder,
                                                              const void *data, int64_t len,
                                                              struct basalt_error *err);
/* append_bytes of a NUL-terminated string. */
BASALT_EXPORT basalt_status basalt_arrow_builder_append_string(
    struct basalt_arrow_builder *builder, const char *value, struct basalt_error *err);

/* Appends `n` fixed-width values (little-endian, the type's byte width each)
 * or, for bool, `n` bits of the bitmap `values` starting at bit 0. When
 * `validity` is not NULL, bit validity_offset + i says whether value i is
 * valid (the value bytes of null slots are copied as they are). One memcpy
 * for the values, one bitmap copy for the validity.
 * Returns OK; INVALID_ARG (not a fixed-width or bool type, n < 0, NULL values
 * with n > 0); LIMIT; NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_append_values(
    struct basalt_arrow_builder *builder, const void *values, int64_t n, const uint8_t *validity,
    int64_t validity_offset, struct basalt_error *err);

/* Starts the next element of a dense union ("+ud:...") in its child `child`
 * (the index among the children added, not the type code): records the
 * child's type code and the child's current length as the offset. Exactly
 * one value or null must then be appended to that child; until then the
 * builder cannot be finished (INVALID_ARG). Returns OK; INVALID_ARG (not a
 * dense union, no such child); LIMIT (32-bit offsets); NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_append_union(struct basalt_arrow_builder *builder,
                                                              int64_t child,
                                                              struct basalt_error *err);

/* Appends one or `n` nulls. Returns OK, INVALID_ARG (n < 0), LIMIT or NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_append_null(struct basalt_arrow_builder *builder,
                                                             struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_builder_append_nulls(struct basalt_arrow_builder *builder,
                                                              int64_t n,
                                                              struct basalt_error *err);

/* Closes one valid element of a nested builder:
 *   list, large list, map: the element holds the child values appended since
 *     the previous element (for a map: key/value pairs, whose key and value
 *     builders must have the same length; the entries struct is advanced);
 *   fixed-size list +w:N: the child must have exactly N more values;
 *   struct: every child must have exactly one more value.
 * Returns OK; INVALID_ARG (not nested, child lengths do not fit); LIMIT; NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_builder_end_element(struct basalt_arrow_builder *builder,
                                                             struct basalt_error *err);

/* Hands what was appended over as `array` (and, when `schema` is not NULL,
 * its `schema`), both in caller storage, both with release callbacks owning
 * everything, and leaves the builder empty with the same type. The buffers are
 * moved, not copied. Child and dictionary builders are finished with it.
 * Returns OK; INVALID_ARG (a child or dictionary builder, which is finished
 * with its parent; child lengths other than what the parent refers to, e.g. a
 * struct child with fewer values than the struct, or list child values
 * appended after the last end_element); NOMEM, in which case the builder
 * keeps its data. On failure both outputs are released. */
BASALT_EXPORT basalt_status basalt_arrow_builder_finish(struct basalt_arrow_builder *builder,
                                                        struct ArrowSchema *schema,
                                                        struct ArrowArray *array,
                                                        struct basalt_error *err);

/* The schema finish would produce, without touching the data.
 * Returns OK or NOMEM (schema released). */
BASALT_EXPORT basalt_status basalt_arrow_builder_schema(const struct basalt_arrow_builder *builder,
                                                        struct ArrowSchema *schema,
                                                        struct basalt_error *err);

/* ------------------------------------------------------------------ take */

/* Gathers rows: `out` (caller storage, owned on OK) becomes a new array of
 * type `schema` holding slots indices[0, n) of `array`, in that order
 * (logical slots, 0 <= indices[i] < array->length; repeats allowed). Every
 * value is copied: nothing in `out` points into `array`, which stays
 * borrowed. A null slot stays null; a null list or map slot becomes an empty
 * one. A validity bitmap is kept only when some gathered slot is null.
 * Types: null, bool, every fixed-width type (integers, floats, decimals,
 * dates, times, timestamps, durations, intervals, fixed-size binary),
 * binary and string (large too), list, large list, fixed-size list, map and
 * struct, nested to any depth up to 64 levels; dictionary-encoded arrays of
 * those (the indices gathered, the dictionary copied whole). `array` is
 * trusted to fit `schema` (validate a foreign one first); offsets that run
 * backwards or past a child are CORRUPT. O(n + the gathered children's rows
 * and bytes + the dictionaries' size). Returns OK; INVALID_ARG (NULL or
 * released arguments, n < 0, an index out of range); UNSUPPORTED (union,
 * view and run-end-encoded types); CORRUPT; LIMIT (more than 2^31-1 bytes or
 * children under 32-bit offsets, nesting); NOMEM. On failure `out` is
 * released. */
BASALT_EXPORT basalt_status basalt_arrow_take(const struct ArrowSchema *schema,
                                              const struct ArrowArray *array,
                                              const int64_t *indices, int64_t n,
                                              struct ArrowArray *out, struct basalt_error *err);

/* As basalt_arrow_take over several arrays of one type `schema`: row k of
 * `out` is slot indices[k] of arrays[sources[k]] (0 <= sources[k] <
 * n_arrays). What a sort or a merge uses to gather rows from many batches
 * into one. Same types and statuses as basalt_arrow_take; INVALID_ARG for a
 * source out of range; UNSUPPORTED for dictionary arrays whose dictionaries
 * are not one and the same. */
BASALT_EXPORT basalt_status basalt_arrow_take_many(const struct ArrowSchema *schema,
                                                   const struct ArrowArray *arrays,
                                                   int32_t n_arrays, const int32_t *sources,
                                                   const int64_t *indices, int64_t n,
                                                   struct ArrowArray *out,
                                                   struct basalt_error *err);

/* Index i (physical position) of a dictionary-encoded array's index buffer
 * `indices` of integer type `index_type`; -1 for a uint64 index past
 * INT64_MAX or a type that is not an integer. */
BASALT_EXPORT int64_t basalt_arrow_dictionary_index(enum basalt_arrow_type_id index_type,
                                                    const void *indices, int64_t i);

/* A dictionary-encoded array made plain: `out` (caller storage, owned on OK)
 * gets, for each slot of `array` (a field of type `schema`, whose
 * `dictionary` is the value type), the dictionary entry its index names,
 * copied (basalt_arrow_take's types); a null index is a null slot. What a
 * writer without dictionary columns does with foreign ones. Returns OK;
 * INVALID_ARG (NULL, released, not dictionary-encoded); CORRUPT (indices not
 * an integer type, an index outside the dictionary); UNSUPPORTED (as take;
 * null slots over an empty dictionary); LIMIT; NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_dictionary_decode(const struct ArrowSchema *schema,
                                                           const struct ArrowArray *array,
                                                           struct ArrowArray *out,
                                                           struct basalt_error *err);

/* ------------------------------------------------------------------ streams */

/* An owned list of batches sharing one schema. Caller storage. */
struct basalt_arrow_batches {
    struct ArrowSchema schema;  /* released when there is none */
    struct ArrowArray *arrays;  /* n arrays, each owned */
    int64_t n;
    int64_t capacity;
};

/* An empty list with a released schema. */
BASALT_EXPORT void basalt_arrow_batches_init(struct basalt_arrow_batches *batches);
/* Releases the schema and every array; the list is empty again. */
BASALT_EXPORT void basalt_arrow_batches_reset(struct basalt_arrow_batches *batches);
/* Moves `array` to the end of the list (released on return in every case).
 * Returns OK, INVALID_ARG (released array) or NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_batches_append(struct basalt_arrow_batches *batches,
                                                        struct ArrowArray *array,
                                                        struct basalt_error *err);

/* Makes `stream` (caller storage) a stream that yields batches->schema and
 * then each array in order, moving everything out of `batches` (left empty,
 * in every case). get_next moves each batch out once; after the last it
 * returns a released array. The stream keeps no pointer to `batches`.
 * Returns OK; INVALID_ARG (released or missing schema); NOMEM (stream
 * released, batches released too). */
BASALT_EXPORT basalt_status basalt_arrow_stream_from_batches(struct basalt_arrow_batches *batches,
                                                             struct ArrowArrayStream *stream,
                                                             struct basalt_error *err);

/* Takes a stream from a foreign producer (`foreign` is moved into `out`,
 * released on failure) and makes it safe to consume: its schema is
 * validated now (and must be a struct of columns), each batch when
 * get_next hands it on, at `level`. A batch that does not validate is
 * released and get_next fails with EINVAL and a message naming it
 * ("batch 3: column 'a': offsets not monotonic at 7"). What the query
 * engine, the writers and the transports read foreign streams through.
 * Returns OK; INVALID_ARG (released stream, a schema that is not a
 * struct, the producer's get_schema failing); CORRUPT / UNSUPPORTED (the
 * schema); NOMEM. */
BASALT_EXPORT basalt_status basalt_arrow_stream_import(struct ArrowArrayStream *foreign,
                                                       enum basalt_arrow_validate_level level,
                                                       struct ArrowArrayStream *out,
                                                       struct basalt_error *err);

/* Reads a stream from any producer to its end into `batches` (which must be
 * empty), then releases the stream; the stream is released on failure too.
 * Returns OK; INVALID_ARG (released stream or non-empty batches); the
 * producer's errno code mapped (ENOMEM NOMEM, EINVAL INVALID_ARG, ENOSYS and
 * ENOTSUP UNSUPPORTED, others IO) with its get_last_error message; NOMEM.
 * On failure `batches` holds what was read before the error. */
BASALT_EXPORT basalt_status basalt_arrow_stream_collect(struct ArrowArrayStream *stream,
                                                        struct basalt_arrow_batches *batches,
                                                        struct basalt_error *err);

/* Moves `src` into `dst` (dst must be released); src is marked released. */
BASALT_EXPORT void basalt_arrow_stream_move(struct ArrowArrayStream *src,
                                            struct ArrowArrayStream *dst);
/* Calls stream->release if the stream is not released. NULL is a no-op. */
BASALT_EXPORT void basalt_arrow_stream_release(struct ArrowArrayStream *stream);

/* ------------------------------------------------------------------ IPC schema
 *
 * The Arrow IPC encoding of a schema: a flatbuffers `Message` whose header is
 * a `Schema` (format/Message.fbs and format/Schema.fbs of the Arrow
 * repository), framed as an encapsulated IPC message: the 0xFFFFFFFF
 * continuation marker, an int32 length, the flatbuffer padded to 8 bytes.
 * Parquet writers store it, base64-encoded, under the key `ARROW:schema` of
 * the file's key-value metadata so a reader can restore the Arrow types that
 * Parquet cannot express (large types, dictionaries, time zones, durations).
 *
 * A schema maps to an ArrowSchema of format "+s" (name "", flags 0) whose
 * children are the fields and whose metadata is the schema's custom_metadata.
 * Every member of the Type union maps to its format string (Null, Int,
 * FloatingPoint, Binary, LargeBinary, Utf8, LargeUtf8, BinaryView, Utf8View,
 * FixedSizeBinary, Bool, Decimal 32/64/128/256, Date, Time, Timestamp with its
 * time zone, Duration, Interval, List, LargeList, ListView, LargeListView,
 * FixedSizeList, Struct_, Map (keysSorted as ARROW_FLAG_MAP_KEYS_SORTED),
 * Union, RunEndEncoded). A dictionary-encoded field becomes the index type
 * (DictionaryEncoding.indexType, int32 when absent) with the value type, and
 * the field's children, in `dictionary`; isOrdered becomes
 * ARROW_FLAG_DICTIONARY_ORDERED. Dictionary ids are not kept (the C data
 * interface has no place for them); the encoder numbers dictionaries 0, 1,
 * ... in depth-first order. Field custom_metadata maps to the field's
 * metadata, so extension types travel as their ARROW:extension:* keys. */

/* What a decoded schema message says besides the fields. */
struct basalt_arrow_ipc_schema_info {
    int16_t metadata_version; /* Message.version: 0 = V1 ... 4 = V5 */
    bool big_endian;          /* Schema.endianness is Big (data, not the schema, is affected) */
    uint64_t features;        /* OR of Schema.features (1 dictionary replacement, 2 compressed body) */
};

/* Decodes an encapsulated IPC message holding a Schema: `data` starts with
 * 0xFFFFFFFF and an int32 length, or (before Arrow 0.15) with the length
 * alone; the flatbuffer follows and must fit in `len`; bytes after it are
 * ignored. `out` (caller storage) receives an owned schema; `info` (NULL
 * allowed) the message's version, endianness and features.
 * Every offset in the flatbuffer is checked against the buffer; nesting is
 * limited to 64 levels and the number of fields to what the bytes can hold.
 * Returns OK; INVALID_ARG (NULL out, NULL data with len > 0); CORRUPT
 * (truncated or malformed framing or flatbuffer, a header that is not a
 * Schema, a type whose parameters are out of range); UNSUPPORTED (a Type
 * union member this library does not know); LIMIT (nesting); NOMEM. On
 * failure out->release is NULL. Thread-safe. */
BASALT_EXPORT basalt_status basalt_arrow_ipc_schema_decode(const void *data, size_t len,
                                                           struct ArrowSchema *out,
                                                           struct basalt_arrow_ipc_schema_info *info,
                                                           struct basalt_error *err);

/* As basalt_arrow_ipc_schema_decode for the bare flatbuffer `Message`, with
 * no framing (what an IPC reader has after reading the length). */
BASALT_EXPORT basalt_status basalt_arrow_ipc_schema_decode_message(
    const void *flatbuffer, size_t len, struct ArrowSchema *out,
    struct basalt_arrow_ipc_schema_info *info, struct basalt_error *err);

/* As basalt_arrow_ipc_schema_decode for the base64 text of the message (the
 * value of an ARROW:schema key), `len` characters, with or without '='
 * padding. Invalid base64 is CORRUPT. */
BASALT_EXPORT basalt_status basalt_arrow_ipc_schema_decode_base64(
    const char *text, size_t len, struct ArrowSchema *out,
    struct basalt_arrow_ipc_schema_info *info, struct basalt_error *err);

/* Encodes `schema` (any producer; format "+s", whose children are the
 * fields) as an encapsulated IPC message, V5, little-endian, appended to
 * `out` (caller's buffer): 0xFFFFFFFF, int32 length, the flatbuffer padded
 * with zeros to a multiple of 8 bytes. The schema's own metadata becomes the
 * Schema's custom_metadata.
 * Returns OK; INVALID_ARG (NULL or released schema, not a struct); CORRUPT
 * (a malformed format or metadata in the schema); UNSUPPORTED (a format parse
 * does not know); LIMIT (over 64 levels, or a message over 2 GiB); NOMEM. On
 * failure `out` keeps its previous size. Thread-safe on distinct buffers. */
BASALT_EXPORT basalt_status basalt_arrow_ipc_schema_encode(const struct ArrowSchema *schema,
                                                           struct basalt_buffer *out,
                                                           struct basalt_error *err);

/* As basalt_arrow_ipc_schema_encode, appending the padded base64 text of the
 * message (no NUL), ready to be stored under ARROW:schema. */
BASALT_EXPORT basalt_status basalt_arrow_ipc_schema_encode_base64(
    const struct ArrowSchema *schema, struct basalt_buffer *out, struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
