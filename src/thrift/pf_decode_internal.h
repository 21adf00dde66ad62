/* Shared machinery of the Parquet structure decoders: the decode state, arena
 * copies under a memory bound, list headers, required-field checks, and the
 * loop shape every struct decoder follows:
 *
 *     STRUCT_BEGIN(d);
 *     switch (f.id) {
 *     case 1: EXPECT(I32); TRY(tr_i32(&d->r, &x->a, d->err)); SEEN(1); continue;
 *     }
 *     STRUCT_END(d);
 *
 * A case whose wire type is not the IDL's breaks out of the switch and the
 * field is skipped, like an unknown one.
 *
 * Decoders fill zeroed storage: list elements are zeroed with their array,
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
};

#define TRY(expr)                                                                   \
    do {                                                                            \
        basalt_status try_st_ = (expr);                                             \
        if (TH_UNLIKELY(try_st_ != BASALT_OK))                                      \
            return try_st_;                                                         \
    } while (0)

/* Like TRY, naming the field the failure happened in. */
#define TRY_IN(d, expr, ...)                                                        \
    do {                                                                            \
        basalt_status try_st_ = (expr);                                             \
        if (TH_UNLIKELY(try_st_ != BASALT_OK))                                      \
            return basalt_error_context((d)->err, try_st_, __VA_ARGS__);            \
    } while (0)

#define STRUCT_BEGIN(d)                                                             \
    TRY(tr_struct_begin(&(d)->r, (d)->err));                                        \
    struct basalt_thrift_field f = {0};                                             \
    for (;;) {                                                                      \
        TRY(tr_field(&(d)->r, &f, (d)->err));                                       \
        if (f.type == BASALT_THRIFT_TYPE_STOP)                                      \
            break;

#define STRUCT_END(d)                                                               \
        TRY(basalt_thrift_read_skip_field(&(d)->r, &f, (d)->err));                  \
    }                                                                               \
    tr_struct_end(&(d)->r)

#define EXPECT(t)                                                                   \
    if (f.type != BASALT_THRIFT_TYPE_##t)                                           \
    break

#define SEEN(id) (seen |= (uint32_t)1 << (id))

/* Out of line (pf_decode_common.c). */
basalt_status basalt_thrift_pf_missing(struct pf_dec *d, const char *struct_name, uint32_t seen,
                                       uint32_t required, const char *const *field_names);
basalt_status basalt_thrift_pf_nomem(struct pf_dec *d);
basalt_status basalt_thrift_pf_list(struct pf_dec *d, uint8_t want_type, size_t elem_size,
                                    size_t min_wire, void **out, size_t *count);
basalt_status basalt_thrift_pf_i64_list(struct pf_dec *d, const int64_t **out, size_t *count);
basalt_status basalt_thrift_pf_i32_list(struct pf_dec *d, const int32_t **out, size_t *count);
basalt_status basalt_thrift_pf_enum_list(struct pf_dec *d, const char *name, const int32_t **out,
                                         size_t *count);
basalt_status basalt_thrift_pf_string_list(struct pf_dec *d,
                                           const struct basalt_parquet_string **out,
                                           size_t *count);
basalt_status basalt_thrift_pf_key_values(struct pf_dec *d,
                                          const struct basalt_parquet_key_value **out,
                                          size_t *count);
basalt_status basalt_thrift_pf_statistics(struct pf_dec *d, struct basalt_parquet_statistics *s);
/* A union all of whose members are empty structs: `*kind` = the member's id. */
basalt_status basalt_thrift_pf_empty_union(struct pf_dec *d, const char *name, int32_t *kind);
basalt_status basalt_thrift_pf_encryption_algorithm(struct pf_dec *d,
                                                    struct basalt_parquet_encryption_algorithm *a);
basalt_status basalt_thrift_pf_two_members(struct pf_dec *d, const char *union_name);

void basalt_thrift_pf_init(struct pf_dec *d, const void *data, size_t len,
                           struct basalt_arena *arena, const struct basalt_thrift_limits *limits,
                           struct basalt_error *err);

/* An enum field: an i32 kept as read (later versions add values), but never
 * negative, which no version of the format uses. */
static inline basalt_status pf_enum(struct pf_dec *d, int32_t *out, const char *name)
{
    TRY(tr_i32(&d->r, out, d->err));
    if (TH_UNLIKELY(*out < 0))
        return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT, "%s %d is not a valid enum value",
                                  name, *out);
    return BASALT_OK;
}

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

static inline basalt_status pf_string(struct pf_dec *d, struct basalt_parquet_string *s)
{
    const void *p;
    TRY(pf_bytes(d, &p, &s->len));
    s->data = p;
    return BASALT_OK;
}

static inline basalt_status pf_binary(struct pf_dec *d, struct basalt_parquet_binary *b)
{
    const void *p;
    TRY(pf_bytes(d, &p, &b->len));
    b->data = p;
    return BASALT_OK;
}

/* ColumnMetaData alone (pf_decode_footer.c), for the encrypted column
 * metadata of encrypted columns (pf_decode_crypto.c). */
basalt_status basalt_thrift_pf_column_metadata(struct pf_dec *d,
                                               struct basalt_parquet_column_metadata *m);

#endif
