/* Decoders shared by the footer and the page-level structures. */
#include "pf_decode_internal.h"

void basalt_thrift_pf_init(struct pf_dec *d, const void *data, size_t len,
                           struct basalt_arena *arena, const struct basalt_thrift_limits *limits,
                           struct basalt_error *err)
{
    struct basalt_thrift_limits defaults;
    if (!limits) {
        basalt_thrift_limits_init(&defaults);
        limits = &defaults;
    }
    basalt_thrift_reader_init(&d->r, data, len, limits);
    d->arena = arena;
    d->err = err;
    d->mem_left = limits->max_memory;
    d->pool = NULL;
    d->pool_left = 0;
}

#define POOL_CHUNK 16384

basalt_status basalt_thrift_pf_pool_refill(struct pf_dec *d, size_t need, size_t align,
                                           uint8_t **out)
{
    void *p;
    /* Large requests get their own allocation and leave the pool as it is. */
    if (need > POOL_CHUNK / 4) {
        TRY(pf_alloc(d, need, align < 8 ? 8 : align, &p));
        *out = p;
        return BASALT_OK;
    }
    /* A short input (a page header) cannot ask for much: size the chunk by
     * what is left of it rather than take a whole one. */
    size_t size = POOL_CHUNK;
    size_t left = tr_left(&d->r);
    if (left < POOL_CHUNK / 64)
        size = 64 * left + need + 64;
    TRY(pf_alloc(d, size, 8, &p));
    d->pool = p;
    d->pool_left = size;
    return pf_pool_alloc(d, need, align, out);
}

__attribute__((cold, noinline)) basalt_status
basalt_thrift_pf_missing(struct pf_dec *d, const char *struct_name, uint32_t seen,
                         uint32_t required, const char *const *field_names)
{
    uint32_t missing = required & ~seen;
    int id = __builtin_ctz(missing);
    return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT,
                              "%s: required field '%s' (%d) is missing", struct_name,
                              field_names[id], id);
}

__attribute__((cold, noinline)) basalt_status basalt_thrift_pf_nomem(struct pf_dec *d)
{
    return basalt_error_set(d->err, BASALT_NOMEM, "out of memory decoding Parquet metadata");
}

__attribute__((cold, noinline)) basalt_status basalt_thrift_pf_two_members(struct pf_dec *d,
                                                                         const char *union_name)
{
    return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT, "union %s has more than one member",
                              union_name);
}

static const char *type_label(uint8_t t)
{
    static const char *const names[] = {"stop",   "bool",   "bool", "i8",  "i16",
                                        "i32",    "i64",    "double", "binary", "list",
                                        "set",    "map",    "struct", "uuid"};
    return t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

basalt_status basalt_thrift_pf_list(struct pf_dec *d, uint8_t want_type, size_t elem_size,
                                    size_t min_wire, void **out, size_t *count)
{
    uint8_t et;
    uint32_t n;
    TRY(tr_list(&d->r, &et, &n, d->err));
    if (n == 0) {
        *out = NULL;
        *count = 0;
        return BASALT_OK;
    }
    /* i16, i32 and i64 elements are all zigzag varints: the reference
     * implementations ignore the element type, and files in the wild carry
     * an i16 list of encodings, so integer widths are interchangeable here
     * (values are still range-checked when read). */
    bool integers = (want_type == BASALT_THRIFT_TYPE_I32 || want_type == BASALT_THRIFT_TYPE_I64) &&
                    (et == BASALT_THRIFT_TYPE_I16 || et == BASALT_THRIFT_TYPE_I32 ||
                     et == BASALT_THRIFT_TYPE_I64);
    if (TH_UNLIKELY(et != want_type && !integers))
        return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT,
                                  "list elements are %s, expected %s", type_label(et),
                                  type_label(want_type));
    /* tr_list checked one byte per element; structs with required fields
     * need more, which bounds what a short input can make us allocate. */
    if (TH_UNLIKELY(min_wire > 1 && n > tr_left(&d->r) / min_wire))
        return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT,
                                  "list of %u elements cannot fit in the %zu bytes left", n,
                                  tr_left(&d->r));
    if (TH_UNLIKELY((size_t)n > SIZE_MAX / elem_size))
        return basalt_thrift_fail(&d->r, d->err, BASALT_LIMIT, "list of %u elements too large",
                                  n);
    size_t bytes = (size_t)n * elem_size;
    if (bytes <= POOL_CHUNK / 4) {
        uint8_t *p = NULL;
        TRY(pf_pool_alloc(d, bytes, 8, &p));
        *out = p;
    } else {
        TRY(pf_alloc(d, bytes, 8, out));
    }
    /* Element decoders fill zeroed storage (absent fields read as zero). */
    memset(*out, 0, bytes);
    *count = n;
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_i64_list(struct pf_dec *d, const int64_t **out, size_t *count)
{
    void *p;
    size_t n;
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_I64, sizeof(int64_t), 1, &p, &n));
    int64_t *v = p;
    for (size_t i = 0; i < n; i++)
        TRY(tr_i64(&d->r, &v[i], d->err));
    *out = v;
    *count = n;
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_i32_list(struct pf_dec *d, const int32_t **out, size_t *count)
{
    void *p;
    size_t n;
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_I32, sizeof(int32_t), 1, &p, &n));
    int32_t *v = p;
    for (size_t i = 0; i < n; i++)
        TRY(tr_i32(&d->r, &v[i], d->err));
    *out = v;
    *count = n;
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_enum_list(struct pf_dec *d, const char *name, const int32_t **out,
                                         size_t *count)
{
    void *p;
    size_t n;
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_I32, sizeof(int32_t), 1, &p, &n));
    int32_t *v = p;
    for (size_t i = 0; i < n; i++)
        TRY(pf_enum(d, &v[i], name));
    *out = v;
    *count = n;
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_string_list(struct pf_dec *d,
                                           const struct basalt_parquet_string **out,
                                           size_t *count)
{
    void *p;
    size_t n;
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_BINARY, sizeof(struct basalt_parquet_string),
                              1, &p, &n));
    struct basalt_parquet_string *v = p;
    for (size_t i = 0; i < n; i++)
        TRY(pf_string(d, &v[i]));
    *out = v;
    *count = n;
    return BASALT_OK;
}

static const char *const key_value_fields[] = {"", "key", "value"};

static basalt_status key_value(struct pf_dec *d, struct basalt_parquet_key_value *kv)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(BINARY);
        TRY(pf_string(d, &kv->key));
        SEEN(1);
        continue;
    case 2:
        EXPECT(BINARY);
        TRY(pf_string(d, &kv->value));
        kv->has_value = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY(!(seen & 2u)))
        return basalt_thrift_pf_missing(d, "KeyValue", seen, 2u, key_value_fields);
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_key_values(struct pf_dec *d,
                                          const struct basalt_parquet_key_value **out,
                                          size_t *count)
{
    void *p;
    size_t n;
    /* A KeyValue holds at least a key: header, length, stop. */
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT, sizeof(struct basalt_parquet_key_value),
                              3, &p, &n));
    struct basalt_parquet_key_value *v = p;
    for (size_t i = 0; i < n; i++)
        TRY_IN(d, key_value(d, &v[i]), "[%zu]", i);
    *out = v;
    *count = n;
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_statistics(struct pf_dec *d, struct basalt_parquet_statistics *s)
{
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(BINARY);
        TRY(pf_binary(d, &s->max));
        s->has_max = true;
        continue;
    case 2:
        EXPECT(BINARY);
        TRY(pf_binary(d, &s->min));
        s->has_min = true;
        continue;
    case 3:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &s->null_count, d->err));
        s->has_null_count = true;
        continue;
    case 4:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &s->distinct_count, d->err));
        s->has_distinct_count = true;
        continue;
    case 5:
        EXPECT(BINARY);
        TRY(pf_binary(d, &s->max_value));
        s->has_max_value = true;
        continue;
    case 6:
        EXPECT(BINARY);
        TRY(pf_binary(d, &s->min_value));
        s->has_min_value = true;
        continue;
    case 7:
        EXPECT(BOOL);
        s->is_max_value_exact = f.bool_value;
        s->has_is_max_value_exact = true;
        continue;
    case 8:
        EXPECT(BOOL);
        s->is_min_value_exact = f.bool_value;
        s->has_is_min_value_exact = true;
        continue;
    case 9:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &s->nan_count, d->err));
        s->has_nan_count = true;
        continue;
    }
    STRUCT_END(d);
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_empty_union(struct pf_dec *d, const char *name, int32_t *kind)
{
    *kind = 0;
    STRUCT_BEGIN(d);
    if (f.type == BASALT_THRIFT_TYPE_STRUCT && f.id > 0) {
        if (TH_UNLIKELY(*kind != 0))
            return basalt_thrift_pf_two_members(d, name);
        *kind = f.id;
    }
    STRUCT_END(d);
    return BASALT_OK;
}

static basalt_status aes_gcm(struct pf_dec *d, struct basalt_parquet_encryption_algorithm *a)
{
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(BINARY);
        TRY(pf_binary(d, &a->aad_prefix));
        a->has_aad_prefix = true;
        continue;
    case 2:
        EXPECT(BINARY);
        TRY(pf_binary(d, &a->aad_file_unique));
        a->has_aad_file_unique = true;
        continue;
    case 3:
        EXPECT(BOOL);
        a->supply_aad_prefix = f.bool_value;
        a->has_supply_aad_prefix = true;
        continue;
    }
    STRUCT_END(d);
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_encryption_algorithm(struct pf_dec *d,
                                                    struct basalt_parquet_encryption_algorithm *a)
{
    STRUCT_BEGIN(d);
    if (f.type == BASALT_THRIFT_TYPE_STRUCT && f.id > 0) {
        if (TH_UNLIKELY(a->kind != 0))
            return basalt_thrift_pf_two_members(d, "EncryptionAlgorithm");
        a->kind = f.id;
        if (f.id == BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 ||
            f.id == BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1) {
            TRY(aes_gcm(d, a));
            continue;
        }
    }
    STRUCT_END(d);
    return BASALT_OK;
}
