/* The state of one Parquet structure decode (pf_decode.c) and its inline
 * helpers: arena copies under a memory bound, in pool chunks.
 *
 * Decoders fill zeroed storage: struct list elements are zeroed one by one,
 * nested structs with their parent, and only the entry points and
 * out-of-line allocations clear memory themselves. */
#ifndef BASALT_THRIFT_PF_DECODE_INTERNAL_H
#define BASALT_THRIFT_PF_DECODE_INTERNAL_H

#include "thrift_internal.h"

struct pf_dec {
    struct basalt_thrift_reader r;
    struct basalt_arena *arena;
    struct basalt_error *err;
    size_t mem_left;
    /* Strings and small lists go into chunks taken from the arena a few
     * KiB at a time, sparing an arena call each. */
    uint8_t *pool;
    size_t pool_left;
    /* Some ColumnChunk has crypto_metadata or encrypted_column_metadata
     * (FileMetaData.has_encrypted_columns). */
    bool encrypted_columns;
};

#define TRY(expr)                                                                   \
    do {                                                                            \
        basalt_status try_st_ = (expr);                                             \
        if (TH_UNLIKELY(try_st_ != BASALT_OK))                                      \
            return try_st_;                                                         \
    } while (0)

/* Out of line (pf_decode.c). */
basalt_status basalt_thrift_pf_nomem(struct pf_dec *d);
void basalt_thrift_pf_init(struct pf_dec *d, const void *data, size_t len,
                           struct basalt_arena *arena, const struct basalt_thrift_limits *limits,
                           struct basalt_error *err);

static inline basalt_status pf_alloc(struct pf_dec *d, size_t bytes, size_t align, void **out)
{
    *out = NULL;
    if (TH_UNLIKELY(bytes > d->mem_left))
        return basalt_thrift_fail(&d->r, d->err, BASALT_LIMIT,
                                  "decoded metadata exceeds the memory limit");
    void *p = basalt_arena_alloc(d->arena, bytes ? bytes : 1, align);
    if (TH_UNLIKELY(!p))
        return basalt_thrift_pf_nomem(d);
    d->mem_left -= bytes;
    *out = p;
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_pool_refill(struct pf_dec *d, size_t need, size_t align,
                                           uint8_t **out);

/* `size` bytes aligned to `align` (a power of two) from the pool. */
static inline basalt_status pf_pool_alloc(struct pf_dec *d, size_t size, size_t align,
                                          uint8_t **out)
{
    size_t pad = (size_t)(0 - (uintptr_t)d->pool) & (align - 1);
    if (TH_LIKELY(size + pad <= d->pool_left)) {
        *out = d->pool + pad;
        d->pool += pad + size;
        d->pool_left -= pad + size;
        return BASALT_OK;
    }
    return basalt_thrift_pf_pool_refill(d, size, align, out);
}

/* An enum value: an i32 kept as read (later versions add values), but never
 * negative, which no version of the format uses. */
static inline basalt_status pf_enum(struct pf_dec *d, int32_t *out, const char *name)
{
    TRY(tr_i32(&d->r, out, d->err));
    if (TH_UNLIKELY(*out < 0))
        return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT, "%s %d is not a valid enum value",
                                  name, *out);
    return BASALT_OK;
}

/* A binary or string, copied into the arena with a NUL after it. */
static inline basalt_status pf_bytes(struct pf_dec *d, const void **out, size_t *len)
{
    const uint8_t *p = NULL;
    size_t n = 0;
    TRY(tr_binary(&d->r, &p, &n, d->err));
    uint8_t *copy = NULL;
    TRY(pf_pool_alloc(d, n + 1, 1, &copy));
    if (n)
        memcpy(copy, p, n);
    copy[n] = 0;
    *out = copy;
    *len = n;
    return BASALT_OK;
}

#endif
