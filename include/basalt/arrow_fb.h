/* basalt arrow_fb: a bounded flatbuffers reader and a small flatbuffers
 * builder, shared by the Arrow IPC schema codec (arrow) and the Arrow IPC
 * message reader and writer (ipc). Not a general flatbuffers library: no
 * schema compiler, just tables, vectors, strings and unions as Arrow's
 * Message.fbs, Schema.fbs and File.fbs use them.
 *
 * Flatbuffers in one paragraph (https://flatbuffers.dev/internals/): every
 * number is little-endian; a buffer starts with a uint32 offset to the root
 * table. A table starts with an int32 `soffset`; its vtable sits at
 * (table - soffset) and holds uint16 vtable size, uint16 table size, then one
 * uint16 per field id: the field's byte offset inside the table, 0 when the
 * field is absent (the reader uses the schema's default). Strings, vectors
 * and sub-tables are reached through a uint32 stored in the table, relative
 * to the position of that uint32, and start with a uint32 count. A union is
 * two fields: a uint8 type tag (id k) and an offset to a table (id k + 1).
 * Structs are stored inline (in tables and vectors) with natural alignment.
 *
 * Nothing in the reader trusts the buffer: every offset, vtable and length is
 * checked against [data, data + len) before it is followed, and any violation
 * is CORRUPT naming the byte position. Positions are uint32 (a flatbuffer is
 * at most 2 GiB). Thread safety: readers are read-only views (shareable);
 * a builder is used by one thread at a time. */
#ifndef BASALT_ARROW_FB_H
#define BASALT_ARROW_FB_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ reader */

struct basalt_arrow_fb {
    const uint8_t *data;
    uint32_t len;
};

/* A table whose vtable passed the checks of basalt_arrow_fb_table_at. */
struct basalt_arrow_fb_table {
    const struct basalt_arrow_fb *fb;
    uint32_t pos;      /* the table's soffset */
    uint32_t vtable;   /* its vtable */
    uint16_t vt_size;  /* bytes of vtable */
    uint16_t tbl_size; /* bytes of table, soffset included */
};

/* A vector's element count and the position of its first element. */
struct basalt_arrow_fb_vector {
    const struct basalt_arrow_fb *fb;
    uint32_t pos;
    uint32_t count;
};

static inline uint16_t basalt_arrow_fb_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t basalt_arrow_fb_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t basalt_arrow_fb_u64(const uint8_t *p)
{
    return (uint64_t)basalt_arrow_fb_u32(p) | (uint64_t)basalt_arrow_fb_u32(p + 4) << 32;
}

/* Starts reading `len` bytes (CORRUPT above 2^31 - 1 or below 4). */
BASALT_EXPORT basalt_status basalt_arrow_fb_init(struct basalt_arrow_fb *fb, const void *data, size_t len,
                                   struct basalt_error *err);
/* The root table. */
BASALT_EXPORT basalt_status basalt_arrow_fb_root(const struct basalt_arrow_fb *fb,
                                   struct basalt_arrow_fb_table *table,
                                   struct basalt_error *err);
/* The table whose soffset is at `pos`, with its vtable checked. */
BASALT_EXPORT basalt_status basalt_arrow_fb_table_at(const struct basalt_arrow_fb *fb, uint32_t pos,
                                       struct basalt_arrow_fb_table *table,
                                       struct basalt_error *err);

/* Scalars: `*out` is the stored value, or `dflt` when the field is absent.
 * CORRUPT when the field does not fit in its table. */
BASALT_EXPORT basalt_status basalt_arrow_fb_u8(const struct basalt_arrow_fb_table *t, unsigned id, uint8_t dflt,
                                 uint8_t *out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_fb_bool(const struct basalt_arrow_fb_table *t, unsigned id, bool dflt,
                                   bool *out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_fb_i16(const struct basalt_arrow_fb_table *t, unsigned id, int16_t dflt,
                                  int16_t *out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_fb_i32(const struct basalt_arrow_fb_table *t, unsigned id, int32_t dflt,
                                  int32_t *out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_arrow_fb_i64(const struct basalt_arrow_fb_table *t, unsigned id, int64_t dflt,
                                  int64_t *out, struct basalt_error *err);

/* References: `*present` says whether the field is there; when it is not,
 * the outputs are zeroed/empty and the status is OK. */
BASALT_EXPORT basalt_status basalt_arrow_fb_table_field(const struct basalt_arrow_fb_table *t, unsigned id,
                                          struct basalt_arrow_fb_table *out, bool *present,
                                          struct basalt_error *err);
/* A string's bytes (not NUL-terminated as far as the checks go) and length. */
BASALT_EXPORT basalt_status basalt_arrow_fb_string(const struct basalt_arrow_fb_table *t, unsigned id,
                                     const char **str, uint32_t *len, bool *present,
                                     struct basalt_error *err);
/* A vector of `elem_size`-byte elements (4 for offsets to tables/strings). */
BASALT_EXPORT basalt_status basalt_arrow_fb_vector_field(const struct basalt_arrow_fb_table *t, unsigned id,
                                           uint32_t elem_size, struct basalt_arrow_fb_vector *out,
                                           bool *present, struct basalt_error *err);
/* Element i (< count) of a vector of tables. */
BASALT_EXPORT basalt_status basalt_arrow_fb_vector_table(const struct basalt_arrow_fb_vector *v, uint32_t i,
                                           struct basalt_arrow_fb_table *out,
                                           struct basalt_error *err);
/* Element i of a vector of strings. */
BASALT_EXPORT basalt_status basalt_arrow_fb_vector_string(const struct basalt_arrow_fb_vector *v, uint32_t i,
                                            const char **str, uint32_t *len,
                                            struct basalt_error *err);

/* ------------------------------------------------------------ builder */

/* Builds a flatbuffer back to front, as the format requires (references
 * point forward). Objects are named by their "ref": their distance from the
 * end of the buffer, which does not change as more is prepended. The first
 * failure sticks (`status`): later calls do nothing and finish reports it, so
 * callers check once. */
#define BASALT_ARROW_FBB_MAX_FIELDS 16

struct basalt_arrow_fbb {
    uint8_t *buf;  /* the built bytes are buf[cap - size, cap) */
    size_t cap;
    size_t size;
    size_t max_align;
    basalt_status status;
    /* The table being built. */
    bool in_table;
    size_t table_start;
    unsigned n_fields;
    uint32_t field_ref[BASALT_ARROW_FBB_MAX_FIELDS]; /* 0: absent */
};

typedef uint32_t basalt_arrow_fb_ref;

BASALT_EXPORT void basalt_arrow_fbb_init(struct basalt_arrow_fbb *b);
BASALT_EXPORT void basalt_arrow_fbb_reset(struct basalt_arrow_fbb *b);

BASALT_EXPORT basalt_arrow_fb_ref basalt_arrow_fbb_string(struct basalt_arrow_fbb *b, const char *s, size_t len);
/* A vector of references (tables or strings), refs[0] first. */
BASALT_EXPORT basalt_arrow_fb_ref basalt_arrow_fbb_ref_vector(struct basalt_arrow_fbb *b,
                                                const basalt_arrow_fb_ref *refs, size_t n);
/* A vector of int32 values. */
BASALT_EXPORT basalt_arrow_fb_ref basalt_arrow_fbb_i32_vector(struct basalt_arrow_fbb *b, const int32_t *values,
                                                size_t n);
/* A vector of `n` elements of `elem_size` bytes each, copied from `data`
 * (already in flatbuffers' little-endian layout: structs, int64 values),
 * its first element aligned to `align` (a power of two, at most 16). */
BASALT_EXPORT basalt_arrow_fb_ref basalt_arrow_fbb_bytes_vector(struct basalt_arrow_fbb *b,
                                                                const void *data,
                                                                size_t elem_size, size_t n,
                                                                size_t align);

/* Between table_start and table_end, add each field at most once. Scalars
 * are written even when they equal the schema's default. */
BASALT_EXPORT void basalt_arrow_fbb_table_start(struct basalt_arrow_fbb *b);
BASALT_EXPORT void basalt_arrow_fbb_add_u8(struct basalt_arrow_fbb *b, unsigned id, uint8_t v);
BASALT_EXPORT void basalt_arrow_fbb_add_i16(struct basalt_arrow_fbb *b, unsigned id, int16_t v);
BASALT_EXPORT void basalt_arrow_fbb_add_i32(struct basalt_arrow_fbb *b, unsigned id, int32_t v);
BASALT_EXPORT void basalt_arrow_fbb_add_i64(struct basalt_arrow_fbb *b, unsigned id, int64_t v);
BASALT_EXPORT void basalt_arrow_fbb_add_ref(struct basalt_arrow_fbb *b, unsigned id, basalt_arrow_fb_ref ref);
BASALT_EXPORT basalt_arrow_fb_ref basalt_arrow_fbb_table_end(struct basalt_arrow_fbb *b);

/* Prepends the root offset; on OK *data / *len view the finished buffer
 * (valid until the builder is reset). Returns the first failure: NOMEM, or
 * LIMIT past 2^31 - 1 bytes. */
BASALT_EXPORT basalt_status basalt_arrow_fbb_finish(struct basalt_arrow_fbb *b, basalt_arrow_fb_ref root,
                                      const uint8_t **data, size_t *len,
                                      struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
