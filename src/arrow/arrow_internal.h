/* Shared between the arrow module's files; not part of the public API. */
#ifndef BASALT_ARROW_INTERNAL_H
#define BASALT_ARROW_INTERNAL_H

#include <string.h>

#include "basalt/arrow.h"

/* Nesting deeper than this in a foreign schema or array is refused (LIMIT):
 * it bounds recursion, and a cyclic producer would otherwise never end. */
#define BASALT_ARROW_MAX_DEPTH 64

/* Buffers in the ArrowArray of a type, validity included; -1 for the view
 * types, whose count is variadic. */
int64_t basalt_arrow_type_n_buffers(enum basalt_arrow_type_id id);

/* True for the eight integer types (the only valid dictionary index types). */
bool basalt_arrow_type_is_integer(enum basalt_arrow_type_id id);

/* True when every byte of s[0, len) forms well-formed UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
bool basalt_arrow_utf8_valid(const uint8_t *s, int64_t len);

/* Release callbacks of basalt's own structs; comparing a struct's `release`
 * with these tells whether basalt made it. */
void basalt_arrow_schema_release_owned(struct ArrowSchema *schema);
void basalt_arrow_array_release_owned(struct ArrowArray *array);

/* ------------------------------------------------------------ builders */

/* How a builder stores its values. */
enum basalt_arrow_builder_kind {
    BASALT_ARROW_KIND_NULL,        /* no buffers, length only */
    BASALT_ARROW_KIND_FIXED,       /* `width` bytes per value in `values` */
    BASALT_ARROW_KIND_BOOL,        /* a bitmap in `values` */
    BASALT_ARROW_KIND_BINARY,      /* int32 offsets in `values`, bytes in `data` */
    BASALT_ARROW_KIND_LARGE_BINARY,/* int64 offsets */
    BASALT_ARROW_KIND_LIST,        /* int32 offsets into child 0 */
    BASALT_ARROW_KIND_LARGE_LIST,  /* int64 offsets into child 0 */
    BASALT_ARROW_KIND_MAP,         /* int32 offsets into child 0, the entries struct */
    BASALT_ARROW_KIND_FIXED_LIST,  /* child 0 holds fixed_size values per element */
    BASALT_ARROW_KIND_STRUCT,      /* one value per element in each child */
    BASALT_ARROW_KIND_DENSE_UNION  /* int8 type codes in `values`, int32 offsets
                                      into the chosen child in `data`; no validity */
};

/* What append_int / append_uint store (and how they range-check). */
enum basalt_arrow_int_kind {
    BASALT_ARROW_INT_NONE,
    BASALT_ARROW_INT_S8,
    BASALT_ARROW_INT_S16,
    BASALT_ARROW_INT_S32,
    BASALT_ARROW_INT_S64,
    BASALT_ARROW_INT_U8,
    BASALT_ARROW_INT_U16,
    BASALT_ARROW_INT_U32,
    BASALT_ARROW_INT_U64,
    BASALT_ARROW_INT_DECIMAL /* sign-extended to `width` bytes */
};

struct basalt_arrow_builder {
    enum basalt_arrow_builder_kind kind;
    enum basalt_arrow_int_kind int_kind;
    struct basalt_arrow_type type; /* views into `format` */
    char *format;
    char *name;
    char *metadata;
    int64_t flags;
    int64_t width; /* bytes per value, KIND_FIXED */
    int64_t length;
    int64_t null_count;
    /* NULL until the first null. Bitmaps (validity, bool values) keep every
     * byte of their capacity past the bits in use zeroed. */
    struct basalt_buffer validity;
    struct basalt_buffer values; /* fixed values, bool bits or offsets */
    struct basalt_buffer data;   /* binary bytes */
    int64_t n_children;
    struct basalt_arrow_builder **children;
    struct basalt_arrow_builder *dictionary;
    struct basalt_arrow_builder *parent; /* set for children and dictionaries */
    int8_t *union_codes;                 /* dense union: the type code of each child */
};

/* Grows a bitmap to hold `bits` bits, zero-filling the new bytes. */
basalt_status basalt_arrow_bitmap_reserve(struct basalt_buffer *bitmap, int64_t bits,
                                          struct basalt_error *err);

/* Makes room for `n` more validity bits when the builder has a bitmap. */
basalt_status basalt_arrow_builder_reserve_validity(struct basalt_arrow_builder *b, int64_t n,
                                                    struct basalt_error *err);

/* Creates the validity bitmap (all earlier elements valid) if there is none,
 * with room for `n` more bits. */
basalt_status basalt_arrow_builder_make_validity(struct basalt_arrow_builder *b, int64_t n,
                                                 struct basalt_error *err);

/* Makes room for `n` more offsets, writing the leading 0 offset first. */
basalt_status basalt_arrow_builder_reserve_offsets(struct basalt_arrow_builder *b, int64_t n,
                                                   struct basalt_error *err);

/* The offset after the last element (data size or child length). */
int64_t basalt_arrow_builder_last_offset(const struct basalt_arrow_builder *b);

/* ------------------------------------------------------------ validation */

/* State of one validation walk: the level, the error, and the path of the
 * node being looked at ("a.b.item") for messages. */
struct basalt_arrow_vctx {
    enum basalt_arrow_validate_level level;
    struct basalt_error *err;
    size_t path_len;
    char path[256];
};

/* Records `status` with "column '<path>': " before the message. */
basalt_status basalt_arrow_validate_fail(struct basalt_arrow_vctx *ctx, basalt_status status,
                                         const char *fmt, ...) BASALT_PRINTF(3, 4);

/* Reads offset i of an int32 (large false) or int64 offsets buffer. A
 * foreign producer's buffer need not be aligned, hence memcpy. */
static inline int64_t basalt_arrow_read_offset(const void *offsets, bool large, int64_t i)
{
    if (large) {
        int64_t v;
        memcpy(&v, (const char *)offsets + i * 8, 8);
        return v;
    }
    int32_t v;
    memcpy(&v, (const char *)offsets + i * 4, 4);
    return v;
}

/* The FULL-level checks of one node whose structure already passed:
 * null_count against the bitmap, offsets monotonic, UTF-8, dictionary
 * indices in range, map keys non-null. */
basalt_status basalt_arrow_validate_content(struct basalt_arrow_vctx *ctx,
                                            const struct basalt_arrow_type *type,
                                            const struct ArrowArray *array);

#endif
