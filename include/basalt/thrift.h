/* basalt thrift: the Thrift compact protocol, bounded and sans-IO.
 *
 * The reader walks a byte range the caller owns; it never reads outside
 * [data, data + len), never allocates, and reports malformed bytes as
 * CORRUPT and bytes beyond a configured bound as LIMIT. The writer appends to
 * a basalt_buffer. Parquet's footer structures, built on these, are in
 * basalt/parquet_format.h.
 *
 * Wire format: https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
 *
 * Thread safety: a reader or writer is used by one thread at a time; distinct
 * readers over the same bytes may run in parallel. */
#ifndef BASALT_THRIFT_H
#define BASALT_THRIFT_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compact-protocol type codes as they appear in field headers and in list,
 * set and map headers. A boolean field carries its value in the type code
 * (1 = true, 2 = false); the reader reports both as BASALT_THRIFT_TYPE_BOOL
 * and puts the value in basalt_thrift_field.bool_value. As a container element
 * type, 1 and 2 both mean bool. */
enum basalt_thrift_type {
    BASALT_THRIFT_TYPE_STOP = 0,
    BASALT_THRIFT_TYPE_BOOL = 1,
    BASALT_THRIFT_TYPE_BOOL_FALSE = 2,
    BASALT_THRIFT_TYPE_I8 = 3,
    BASALT_THRIFT_TYPE_I16 = 4,
    BASALT_THRIFT_TYPE_I32 = 5,
    BASALT_THRIFT_TYPE_I64 = 6,
    BASALT_THRIFT_TYPE_DOUBLE = 7,
    BASALT_THRIFT_TYPE_BINARY = 8,
    BASALT_THRIFT_TYPE_LIST = 9,
    BASALT_THRIFT_TYPE_SET = 10,
    BASALT_THRIFT_TYPE_MAP = 11,
    BASALT_THRIFT_TYPE_STRUCT = 12,
    BASALT_THRIFT_TYPE_UUID = 13
};

/* Bounds on what one decode may ask for. Exceeding one is LIMIT. */
struct basalt_thrift_limits {
    int32_t max_depth;          /* nesting of structs, lists, sets and maps (default 64;
                                 * readers recurse, so values above 1024 count as 1024) */
    int64_t max_container_size; /* elements in one list or set, pairs in one map (default 2^31-1) */
    int64_t max_binary_size;    /* bytes in one binary or string (default 2^31-1) */
    size_t max_memory;          /* arena bytes one structure decode may take (default 1 GiB);
                                 * used by the decoders of basalt/parquet_format.h */
};

#define BASALT_THRIFT_DEFAULT_MAX_DEPTH 64
#define BASALT_THRIFT_MAX_DEPTH_CAP 1024

/* Fills `limits` with the defaults above. */
BASALT_EXPORT void basalt_thrift_limits_init(struct basalt_thrift_limits *limits);

/* ------------------------------------------------------------------ reader */

/* A cursor over caller-owned bytes (borrowed; they must outlive the reader).
 * Fields are public so decoders can be written on top; change them only
 * through the functions below. */
struct basalt_thrift_reader {
    const uint8_t *begin;
    const uint8_t *pos;
    const uint8_t *end;
    int32_t depth;
    int32_t max_depth;
    int64_t max_container_size;
    int64_t max_binary_size;
};

/* A field header. Before the first field of a struct set `id` to 0; each
 * read_field_header uses the previous `id` to resolve the short (delta) form.
 * `type` is a basalt_thrift_type, BOOL for both boolean codes, STOP at the
 * end of the struct. */
struct basalt_thrift_field {
    int16_t id;
    uint8_t type;
    bool bool_value;
};

/* Starts reading `len` bytes at `data` (data may be NULL when len is 0) with
 * `limits` (NULL for the defaults). Never fails. */
BASALT_EXPORT void basalt_thrift_reader_init(struct basalt_thrift_reader *r, const void *data,
                                             size_t len, const struct basalt_thrift_limits *limits);
/* Bytes consumed so far. */
BASALT_EXPORT size_t basalt_thrift_reader_offset(const struct basalt_thrift_reader *r);

/* Every read below advances past what it read on success and returns OK;
 * otherwise CORRUPT (truncated input, a varint over 10 bytes or over its
 * type's range, an unknown type code, a size that the remaining bytes cannot
 * hold) or LIMIT (depth or size over the reader's limits), with the byte
 * offset in `err`. After a failure the reader's position is unspecified. */

/* Unsigned LEB128, at most 10 bytes; bits beyond 64 are CORRUPT. */
BASALT_EXPORT basalt_status basalt_thrift_read_varint(struct basalt_thrift_reader *r,
                                                      uint64_t *out, struct basalt_error *err);
/* i8 is one raw byte; i16, i32 and i64 are zigzag varints that must fit
 * their width. */
BASALT_EXPORT basalt_status basalt_thrift_read_i8(struct basalt_thrift_reader *r, int8_t *out,
                                                  struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_read_i16(struct basalt_thrift_reader *r, int16_t *out,
                                                   struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_read_i32(struct basalt_thrift_reader *r, int32_t *out,
                                                   struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_thrift_read_i64(struct basalt_thrift_reader *r, int64_t *out,
                                                   struct basalt_error *err);
/* 8 bytes, IEEE 754, little-endian. */
BASALT_EXPORT basalt_status basalt_thrift_read_double(struct basalt_thrift_reader *r, double *out,
                                                      struct basalt_error *err);
/* A container element of type bool: one byte, 1 true, 0 or 2 false (writers
 * use both), anything else CORRUPT. Boolean fields come with their header. */
BASALT_EXPORT basalt_status basalt_thrift_read_bool(struct basalt_thrift_reader *r, bool *out,
                                                    struct basalt_error *err);
/* Binary or string: a varint length then the bytes. `*data` is a view into
 * the reader's input (valid as long as the input). */
BASALT_EXPORT basalt_status basalt_thrift_read_binary(struct basalt_thrift_reader *r,
                                                      const uint8_t **data, size_t *len,
                                                      struct basalt_error *err);
/* 16 raw bytes. */
BASALT_EXPORT basalt_status basalt_thrift_read_uuid(struct basalt_thrift_reader *r, uint8_t out[16],
                                                    struct basalt_error *err);

/* Enters a struct (depth + 1, LIMIT past max_depth). Pair with struct_end. */
BASALT_EXPORT basalt_status basalt_thrift_read_struct_begin(struct basalt_thrift_reader *r,
                                                            struct basalt_error *err);
BASALT_EXPORT void basalt_thrift_read_struct_end(struct basalt_thrift_reader *r);
/* Reads a field header, short or long form, into `f` (see above). As in the
 * reference implementations, a type nibble of 0 ends the struct whatever the
 * id nibble holds. A delta that carries the id past INT16_MAX is CORRUPT. */
BASALT_EXPORT basalt_status basalt_thrift_read_field_header(struct basalt_thrift_reader *r,
                                                            struct basalt_thrift_field *f,
                                                            struct basalt_error *err);
/* List or set header, short (size 0..14) or long form. `*elem_type` is a
 * basalt_thrift_type (bool as BOOL). Since every element takes at least one
 * byte, a size above the remaining bytes is CORRUPT; above
 * max_container_size, LIMIT. An empty list may carry any element type. */
BASALT_EXPORT basalt_status basalt_thrift_read_list_header(struct basalt_thrift_reader *r,
                                                           uint8_t *elem_type, uint32_t *size,
                                                           struct basalt_error *err);
/* Map header: one 0 byte for an empty map (types reported as STOP), else a
 * varint size and a key/value type byte. */
BASALT_EXPORT basalt_status basalt_thrift_read_map_header(struct basalt_thrift_reader *r,
                                                          uint8_t *key_type, uint8_t *value_type,
                                                          uint32_t *size, struct basalt_error *err);
/* Skips one value of `type` as it appears in a container (a bool element is
 * one byte). Nested values are skipped recursively within max_depth. */
BASALT_EXPORT basalt_status basalt_thrift_read_skip(struct basalt_thrift_reader *r, uint8_t type,
                                                    struct basalt_error *err);
/* Skips the value of the field whose header `f` was just read (a boolean
 * field has no value bytes). */
BASALT_EXPORT basalt_status basalt_thrift_read_skip_field(struct basalt_thrift_reader *r,
                                                          const struct basalt_thrift_field *f,
                                                          struct basalt_error *err);

/* ------------------------------------------------------------------ writer */

#define BASALT_THRIFT_WRITER_MAX_DEPTH 64

/* Appends compact-protocol bytes to a caller-owned buffer (borrowed). The
 * first failure (NOMEM, or INVALID_ARG for misuse) is kept in `status` and
 * recorded in `err`; every later call does nothing and returns it, so a
 * sequence of writes can be checked once, by basalt_thrift_writer_finish.
 * Field ids are tracked per struct level to pick the short header form. */
struct basalt_thrift_writer {
    struct basalt_buffer *out;
    struct basalt_error *err;
    basalt_status status;
    int32_t depth;
    int16_t last_id[BASALT_THRIFT_WRITER_MAX_DEPTH + 1];
};

BASALT_EXPORT void basalt_thrift_writer_init(struct basalt_thrift_writer *w,
                                             struct basalt_buffer *out, struct basalt_error *err);
/* The writer's status; INVALID_ARG if a struct was begun and not ended. */
BASALT_EXPORT basalt_status basalt_thrift_writer_finish(struct basalt_thrift_writer *w);

BASALT_EXPORT basalt_status basalt_thrift_write_varint(struct basalt_thrift_writer *w, uint64_t v);
BASALT_EXPORT basalt_status basalt_thrift_write_i8(struct basalt_thrift_writer *w, int8_t v);
BASALT_EXPORT basalt_status basalt_thrift_write_i16(struct basalt_thrift_writer *w, int16_t v);
BASALT_EXPORT basalt_status basalt_thrift_write_i32(struct basalt_thrift_writer *w, int32_t v);
BASALT_EXPORT basalt_status basalt_thrift_write_i64(struct basalt_thrift_writer *w, int64_t v);
BASALT_EXPORT basalt_status basalt_thrift_write_double(struct basalt_thrift_writer *w, double v);
/* A container element of type bool: 1 for true, 2 for false, as the Java and
 * C++ implementations write (readers accept 0 too). */
BASALT_EXPORT basalt_status basalt_thrift_write_bool(struct basalt_thrift_writer *w, bool v);
/* `len` above INT32_MAX is INVALID_ARG. `data` may be NULL when len is 0. */
BASALT_EXPORT basalt_status basalt_thrift_write_binary(struct basalt_thrift_writer *w,
                                                       const void *data, size_t len);
BASALT_EXPORT basalt_status basalt_thrift_write_uuid(struct basalt_thrift_writer *w,
                                                     const uint8_t v[16]);
/* Struct nesting deeper than BASALT_THRIFT_WRITER_MAX_DEPTH is INVALID_ARG. */
BASALT_EXPORT basalt_status basalt_thrift_write_struct_begin(struct basalt_thrift_writer *w);
/* Writes the stop byte and returns to the enclosing struct. */
BASALT_EXPORT basalt_status basalt_thrift_write_struct_end(struct basalt_thrift_writer *w);
/* Field header for a non-boolean field: the short form when the id is 1..15
 * above the previous field's, else the long form. Must be inside a struct. */
BASALT_EXPORT basalt_status basalt_thrift_write_field_header(struct basalt_thrift_writer *w,
                                                             uint8_t type, int16_t id);
/* A boolean field: header only, the value in the type code. */
BASALT_EXPORT basalt_status basalt_thrift_write_field_bool(struct basalt_thrift_writer *w,
                                                           int16_t id, bool value);
/* List or set header; bool elements are announced with type code 1. */
BASALT_EXPORT basalt_status basalt_thrift_write_list_header(struct basalt_thrift_writer *w,
                                                            uint8_t elem_type, uint32_t size);
BASALT_EXPORT basalt_status basalt_thrift_write_map_header(struct basalt_thrift_writer *w,
                                                           uint8_t key_type, uint8_t value_type,
                                                           uint32_t size);

#ifdef __cplusplus
}
#endif

#endif
