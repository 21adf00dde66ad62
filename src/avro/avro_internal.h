/* Internal pieces of the avro module shared between its files. */
#ifndef BASALT_AVRO_INTERNAL_H
#define BASALT_AVRO_INTERNAL_H

#include <string.h>

#include "basalt/avro.h"

/* ------------------------------------------------------------------ schema */

struct avro_name_slot {
    const char *name;
    struct basalt_avro_node *node;
};

struct basalt_avro_schema {
    struct basalt_arena arena;
    struct basalt_avro_node *root;
    struct basalt_avro_node **nodes; /* by id */
    uint32_t node_count;
    /* named types, open addressing on the full name */
    struct avro_name_slot *names;
    uint32_t name_cap;
    uint32_t name_count;
    char *canonical;
    size_t canonical_len;
    uint64_t fingerprint;
    /* nodes flagged as "error" records, by id (for the full JSON form) */
    uint8_t *is_error;
};

#define AVRO_DEFAULT_SCHEMA_DEPTH 64u

/* Named-type table (schema_names.c). */
basalt_status basalt_avro_names_put(struct basalt_avro_schema *schema,
                                    struct basalt_avro_node *node, struct basalt_error *err);
struct basalt_avro_node *basalt_avro_names_get(const struct basalt_avro_schema *schema,
                                               const char *full_name);
/* Whether `name` is a valid simple name (no dots). */
bool basalt_avro_name_valid(const char *name, bool lenient);
/* Whether `full` is a valid dotted name (each part valid). */
bool basalt_avro_fullname_valid(const char *full, bool lenient);

/* Computes schema->canonical and schema->fingerprint (schema_canonical.c). */
basalt_status basalt_avro_canonical_build(struct basalt_avro_schema *schema,
                                          struct basalt_error *err);

/* JSON string escaping shared by the writers of schema and value JSON:
 * quotes, backslashes and control characters escaped, other bytes copied. */
basalt_status basalt_avro_json_string(struct basalt_buffer *out, const char *s, size_t len,
                                      struct basalt_error *err);

static inline basalt_status avro_put(struct basalt_buffer *out, const char *s,
                                     struct basalt_error *err)
{
    return basalt_buffer_append(out, s, strlen(s), err);
}

/* ------------------------------------------------------------------ limits */

struct avro_limits {
    uint32_t max_depth;
    uint64_t max_items;
    uint64_t max_block_bytes;
    uint64_t max_block_records;
    uint64_t max_header_bytes;
};

/* State shared by the generic value decoders (plain and resolved). */
struct avro_value_reader {
    const uint8_t *start;
    const uint8_t *end;
    struct basalt_arena *arena;
    struct avro_limits lim;
    uint64_t items; /* array items and map entries so far */
    struct basalt_error *err;
};

/* Decodes one array item or map value at *pp into `v`. */
typedef basalt_status (*avro_item_decode_fn)(void *ctx, const uint8_t **pp,
                                             struct basalt_avro_value *v);

/* Reads the blocks of an array (`map` false) or map into out->items or
 * out->entries, growing the item array inside the arena and calling
 * `item` for each element. `zero_size_items` lifts the bytes-per-item
 * bound for items that may encode to zero bytes. CORRUPT, LIMIT, NOMEM. */
basalt_status basalt_avro_value_read_blocks(struct avro_value_reader *d, bool map,
                                            bool zero_size_items, const uint8_t **pp,
                                            avro_item_decode_fn item, void *ctx,
                                            struct basalt_avro_value *out);

void basalt_avro_limits_resolve(const struct basalt_avro_limits *in, struct avro_limits *out);

/* ------------------------------------------------------------------ binary primitives */

/* Reads a zig-zag varint long. Returns false when the input ends first or the
 * varint is longer than 10 bytes. */
static inline bool avro_read_long(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        uint64_t v = *p;
        *pp = p + 1;
        *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
        return true;
    }
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        if (p >= end || shift > 63)
            return false;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    *pp = p;
    *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    return true;
}

/* A long that must fit in 32 bits (ints, enum indexes, union branches). */
static inline bool avro_read_int(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    int64_t v;
    if (!avro_read_long(pp, end, &v) || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int32_t)v;
    return true;
}

static inline size_t avro_write_long(uint8_t *p, int64_t value)
{
    uint64_t v = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static inline uint32_t avro_load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t avro_load_u64le(const uint8_t *p)
{
    return (uint64_t)avro_load_u32le(p) | (uint64_t)avro_load_u32le(p + 4) << 32;
}

static inline float avro_load_float(const uint8_t *p)
{
    uint32_t u = avro_load_u32le(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline double avro_load_double(const uint8_t *p)
{
    uint64_t u = avro_load_u64le(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Encoding primitives appending to a buffer (value_encode.c). */
basalt_status basalt_avro_put_long(struct basalt_buffer *out, int64_t v,
                                   struct basalt_error *err);
basalt_status basalt_avro_put_bytes(struct basalt_buffer *out, const void *data, size_t len,
                                    struct basalt_error *err);

/* ------------------------------------------------------------------ values */

/* Converts a default value (parsed JSON) to a value of `node`: union defaults
 * take the first branch they fit (value_from_json.c). `json` is a json_t*. */
basalt_status basalt_avro_value_from_jansson(const struct basalt_avro_node *node,
                                             void *json, struct basalt_arena *arena,
                                             struct basalt_avro_value *out,
                                             struct basalt_error *err);

/* Skips a datum (value_skip.c) with an explicit depth budget. */
basalt_status basalt_avro_skip(const struct basalt_avro_node *node, const uint8_t **pp,
                               const uint8_t *end, uint32_t depth, struct basalt_error *err);

/* Whether values of `node` encode in zero bytes (null, empty records, fixed(0),
 * ...): counts of such items cannot be bounded by the input size. */
bool basalt_avro_node_zero_size(const struct basalt_avro_node *node, uint32_t depth);

#endif
