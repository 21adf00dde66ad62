/* Inline fast paths of the compact protocol, shared by the public wrappers
 * and the Parquet structure codecs. The common case (a one-byte varint, a
 * short field header, a buffer with room) stays inline; everything else,
 * including every error report, is out of line. */
#ifndef BASALT_THRIFT_INTERNAL_H
#define BASALT_THRIFT_INTERNAL_H

#include <string.h>

#include "basalt/parquet_format.h"
#include "basalt/thrift.h"

#define TH_LIKELY(x) __builtin_expect(!!(x), 1)
#define TH_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------------ reader */

/* Out-of-line pieces (compact_reader.c). */
basalt_status basalt_thrift_fail(const struct basalt_thrift_reader *r, struct basalt_error *err,
                                 basalt_status status, const char *fmt, ...) BASALT_PRINTF(4, 5);
basalt_status basalt_thrift_varint_slow(struct basalt_thrift_reader *r, uint64_t *out,
                                        struct basalt_error *err);
basalt_status basalt_thrift_field_header_slow(struct basalt_thrift_reader *r,
                                             struct basalt_thrift_field *f, uint8_t byte,
                                             struct basalt_error *err);
basalt_status basalt_thrift_list_header_slow(struct basalt_thrift_reader *r, uint8_t byte,
                                             uint8_t *elem_type, uint32_t *size,
                                             struct basalt_error *err);

static inline size_t tr_left(const struct basalt_thrift_reader *r)
{
    return (size_t)(r->end - r->pos);
}

static inline basalt_status tr_truncated(const struct basalt_thrift_reader *r,
                                         struct basalt_error *err, const char *what)
{
    return basalt_thrift_fail(r, err, BASALT_CORRUPT, "input ends inside %s", what);
}

/* Up to three bytes inline (lengths, counts, most sizes); longer varints and
 * those near the end of the input go out of line. */
static inline basalt_status tr_varint(struct basalt_thrift_reader *r, uint64_t *out,
                                      struct basalt_error *err)
{
    const uint8_t *p = r->pos;
    if (TH_LIKELY(r->end - p >= 3)) {
        uint64_t b = p[0];
        if (TH_LIKELY(b < 0x80)) {
            r->pos = p + 1;
            *out = b;
            return BASALT_OK;
        }
        uint64_t v = b & 0x7f;
        b = p[1];
        v |= (b & 0x7f) << 7;
        if (b < 0x80) {
            r->pos = p + 2;
            *out = v;
            return BASALT_OK;
        }
        b = p[2];
        v |= (b & 0x7f) << 14;
        if (b < 0x80) {
            r->pos = p + 3;
            *out = v;
            return BASALT_OK;
        }
    }
    return basalt_thrift_varint_slow(r, out, err);
}

static inline basalt_status tr_i64(struct basalt_thrift_reader *r, int64_t *out,
                                   struct basalt_error *err)
{
    uint64_t v = 0;
    basalt_status st = tr_varint(r, &v, err);
    if (TH_UNLIKELY(st != BASALT_OK))
        return st;
    *out = (int64_t)((v >> 1) ^ (0 - (v & 1)));
    return BASALT_OK;
}

static inline basalt_status tr_i32(struct basalt_thrift_reader *r, int32_t *out,
                                   struct basalt_error *err)
{
    uint64_t v = 0;
    basalt_status st = tr_varint(r, &v, err);
    if (TH_UNLIKELY(st != BASALT_OK))
        return st;
    if (TH_UNLIKELY(v > UINT32_MAX))
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "i32 varint out of range");
    uint32_t u = (uint32_t)v;
    *out = (int32_t)((u >> 1) ^ (0u - (u & 1u)));
    return BASALT_OK;
}

static inline basalt_status tr_i16(struct basalt_thrift_reader *r, int16_t *out,
                                   struct basalt_error *err)
{
    uint64_t v = 0;
    basalt_status st = tr_varint(r, &v, err);
    if (TH_UNLIKELY(st != BASALT_OK))
        return st;
    if (TH_UNLIKELY(v > UINT16_MAX))
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "i16 varint out of range");
    uint32_t u = (uint32_t)v;
    *out = (int16_t)(uint16_t)((u >> 1) ^ (0u - (u & 1u)));
    return BASALT_OK;
}

static inline basalt_status tr_i8(struct basalt_thrift_reader *r, int8_t *out,
                                  struct basalt_error *err)
{
    if (TH_UNLIKELY(r->pos >= r->end))
        return tr_truncated(r, err, "an i8");
    *out = (int8_t)*r->pos++;
    return BASALT_OK;
}

static inline basalt_status tr_bool(struct basalt_thrift_reader *r, bool *out,
                                    struct basalt_error *err)
{
    if (TH_UNLIKELY(r->pos >= r->end))
        return tr_truncated(r, err, "a bool");
    uint8_t b = *r->pos;
    if (TH_UNLIKELY(b > 2))
        return basalt_thrift_fail(r, err, BASALT_CORRUPT, "bool element byte %u is not 0, 1 or 2",
                                  b);
    r->pos++;
    *out = b == 1;
    return BASALT_OK;
}

static inline basalt_status tr_double(struct basalt_thrift_reader *r, double *out,
                                      struct basalt_error *err)
{
    if (TH_UNLIKELY(tr_left(r) < 8))
        return tr_truncated(r, err, "a double");
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = (bits << 8) | r->pos[i];
    memcpy(out, &bits, sizeof bits);
    r->pos += 8;
    return BASALT_OK;
}

static inline basalt_status tr_binary(struct basalt_thrift_reader *r, const uint8_t **data,
                                      size_t *len, struct basalt_error *err)
{
    uint64_t n = 0;
    basalt_status st = tr_varint(r, &n, err);
    if (TH_UNLIKELY(st != BASALT_OK))
        return st;
    if (TH_UNLIKELY(n > tr_left(r) || n > INT32_MAX || (int64_t)n > r->max_binary_size)) {
        if (n > INT32_MAX)
            return basalt_thrift_fail(r, err, BASALT_CORRUPT,
                                      "binary length %llu is not a valid i32",
                                      (unsigned long long)n);
        if (n > tr_left(r))
            return basalt_thrift_fail(r, err, BASALT_CORRUPT,
                                      "binary length %llu exceeds the %zu bytes left",
                                      (unsigned long long)n, tr_left(r));
        return basalt_thrift_fail(r, err, BASALT_LIMIT,
                                  "binary length %llu exceeds the limit of %lld",
                                  (unsigned long long)n, (long long)r->max_binary_size);
    }
    *data = r->pos;
    *len = (size_t)n;
    r->pos += n;
    return BASALT_OK;
}

static inline basalt_status tr_struct_begin(struct basalt_thrift_reader *r,
                                            struct basalt_error *err)
{
    if (TH_UNLIKELY(r->depth >= r->max_depth))
        return basalt_thrift_fail(r, err, BASALT_LIMIT, "nesting deeper than %d", r->max_depth);
    r->depth++;
    return BASALT_OK;
}

static inline void tr_struct_end(struct basalt_thrift_reader *r)
{
    r->depth--;
}

/* Short-form headers with a field-type nibble of 1..12 are handled inline. */
static inline basalt_status tr_field(struct basalt_thrift_reader *r, struct basalt_thrift_field *f,
                                     struct basalt_error *err)
{
    if (TH_UNLIKELY(r->pos >= r->end))
        return tr_truncated(r, err, "a field header");
    uint8_t b = *r->pos++;
    if (b == 0) { /* every struct ends with one */
        f->type = BASALT_THRIFT_TYPE_STOP;
        f->bool_value = false;
        return BASALT_OK;
    }
    uint8_t t = b & 0x0f;
    uint8_t delta = b >> 4;
    if (TH_LIKELY(delta != 0 && t != 0 && t <= BASALT_THRIFT_TYPE_STRUCT &&
                  f->id <= INT16_MAX - 15)) {
        f->id = (int16_t)(f->id + delta);
        f->bool_value = t == BASALT_THRIFT_TYPE_BOOL;
        f->type = t == BASALT_THRIFT_TYPE_BOOL_FALSE ? BASALT_THRIFT_TYPE_BOOL : t;
        return BASALT_OK;
    }
    return basalt_thrift_field_header_slow(r, f, b, err);
}

static inline basalt_status tr_list(struct basalt_thrift_reader *r, uint8_t *elem_type,
                                    uint32_t *size, struct basalt_error *err)
{
    if (TH_UNLIKELY(r->pos >= r->end))
        return tr_truncated(r, err, "a list header");
    uint8_t b = *r->pos++;
    uint8_t t = b & 0x0f;
    uint32_t n = b >> 4;
    /* Short form with an element type whose values take at least one byte. */
    if (TH_LIKELY(n != 15 && t >= BASALT_THRIFT_TYPE_BOOL && t <= BASALT_THRIFT_TYPE_STRUCT &&
                  t != BASALT_THRIFT_TYPE_DOUBLE && n <= tr_left(r) &&
                  (int64_t)n <= r->max_container_size)) {
        *elem_type = t == BASALT_THRIFT_TYPE_BOOL_FALSE ? BASALT_THRIFT_TYPE_BOOL : t;
        *size = n;
        return BASALT_OK;
    }
    return basalt_thrift_list_header_slow(r, b, elem_type, size, err);
}

/* ------------------------------------------------------------------ writer */

uint8_t *basalt_thrift_writer_grow(struct basalt_thrift_writer *w, size_t n);
basalt_status basalt_thrift_writer_misuse(struct basalt_thrift_writer *w, const char *what);

/* Room for `n` more bytes at the end of the output, or NULL once failed. */
static inline uint8_t *tw_room(struct basalt_thrift_writer *w, size_t n)
{
    if (TH_UNLIKELY(w->status != BASALT_OK))
        return NULL;
    struct basalt_buffer *b = w->out;
    if (TH_LIKELY(b->capacity - b->size >= n))
        return b->data + b->size;
    return basalt_thrift_writer_grow(w, n);
}

static inline size_t tw_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static inline void tw_varint(struct basalt_thrift_writer *w, uint64_t v)
{
    uint8_t *p = tw_room(w, 10);
    if (p)
        w->out->size += tw_put_varint(p, v);
}

static inline void tw_byte(struct basalt_thrift_writer *w, uint8_t v)
{
    uint8_t *p = tw_room(w, 1);
    if (p) {
        *p = v;
        w->out->size++;
    }
}

static inline uint64_t tw_zigzag64(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline uint32_t tw_zigzag32(int32_t v)
{
    return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
}

static inline void tw_i32(struct basalt_thrift_writer *w, int32_t v)
{
    tw_varint(w, tw_zigzag32(v));
}

static inline void tw_i64(struct basalt_thrift_writer *w, int64_t v)
{
    tw_varint(w, tw_zigzag64(v));
}

/* A field header into room already taken (at most 4 bytes); returns its
 * length. Callers that write a header and its value take room for both at
 * once. */
static inline size_t tw_put_field(struct basalt_thrift_writer *w, uint8_t *p, uint8_t type,
                                  int16_t id)
{
    int16_t *last = &w->last_id[w->depth];
    int32_t delta = (int32_t)id - (int32_t)*last;
    *last = id;
    if (delta > 0 && delta <= 15) {
        p[0] = (uint8_t)((delta << 4) | type);
        return 1;
    }
    p[0] = type;
    return 1 + tw_put_varint(p + 1, tw_zigzag32(id));
}

static inline void tw_field(struct basalt_thrift_writer *w, uint8_t type, int16_t id)
{
    uint8_t *p = tw_room(w, 4);
    if (p)
        w->out->size += tw_put_field(w, p, type, id);
}

static inline void tw_struct_begin(struct basalt_thrift_writer *w)
{
    if (TH_UNLIKELY(w->depth >= BASALT_THRIFT_WRITER_MAX_DEPTH)) {
        basalt_thrift_writer_misuse(w, "structs nested too deeply");
        return;
    }
    w->last_id[++w->depth] = 0;
}

static inline void tw_struct_end(struct basalt_thrift_writer *w)
{
    if (TH_UNLIKELY(w->depth <= 0)) {
        basalt_thrift_writer_misuse(w, "struct end without a struct begin");
        return;
    }
    tw_byte(w, 0);
    w->depth--;
}

static inline void tw_list(struct basalt_thrift_writer *w, uint8_t elem_type, uint32_t size)
{
    uint8_t *p = tw_room(w, 6);
    if (!p)
        return;
    if (size < 15) {
        p[0] = (uint8_t)((size << 4) | elem_type);
        w->out->size += 1;
    } else {
        p[0] = (uint8_t)(0xf0 | elem_type);
        w->out->size += 1 + tw_put_varint(p + 1, size);
    }
}

static inline void tw_binary(struct basalt_thrift_writer *w, const void *data, size_t len)
{
    if (TH_UNLIKELY(len > INT32_MAX)) {
        basalt_thrift_writer_misuse(w, "binary longer than INT32_MAX");
        return;
    }
    uint8_t *p = tw_room(w, 5 + len);
    if (!p)
        return;
    size_t n = tw_put_varint(p, len);
    if (len)
        memcpy(p + n, data, len);
    w->out->size += n + len;
}

#endif
