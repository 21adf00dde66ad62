/* The generic decoder: reads any Parquet struct a pf_struct table describes
 * (pf_tables.c) into its C struct.
 *
 * One loop serves every struct: the field id indexes the table, one bit test
 * checks the wire type (a field of another type is skipped like an unknown
 * one, as the reference implementations do), and a switch on the storage
 * kind reads the value in place, with the compact-protocol fast paths of
 * thrift_internal.h inlined. Presence and required fields are a has_ flag
 * store or one bit in a mask. On failure each level prepends the field's
 * name (and list index), so errors read "row_groups[3]: columns[7]:
 * meta_data: ColumnMetaData: required field ...". */
#include "pf_decode_internal.h"
#include "pf_desc.h"

/* Strings and binaries are stored through one layout. */
_Static_assert(sizeof(struct basalt_parquet_string) == sizeof(struct basalt_parquet_binary) &&
                   offsetof(struct basalt_parquet_string, data) ==
                       offsetof(struct basalt_parquet_binary, data) &&
                   offsetof(struct basalt_parquet_string, len) ==
                       offsetof(struct basalt_parquet_binary, len),
               "string and binary share a layout");

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
    d->encrypted_columns = false;
}

/* ------------------------------------------------------------------ memory */

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

__attribute__((cold, noinline)) basalt_status basalt_thrift_pf_nomem(struct pf_dec *d)
{
    return basalt_error_set(d->err, BASALT_NOMEM, "out of memory decoding Parquet metadata");
}

/* Pointer members have many declared types; they are stored by bytes. */
static inline void put_ptr(uint8_t *at, const void *p)
{
    memcpy(at, &p, sizeof p);
}

/* ------------------------------------------------------------------ errors */

__attribute__((cold, noinline)) static basalt_status missing(struct pf_dec *d,
                                                             const struct pf_struct *s,
                                                             uint64_t seen)
{
    int id = __builtin_ctzll(s->required & ~seen);
    return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT,
                              "%s: required field '%s' (%d) is missing", s->name,
                              s->fields[id].name, id);
}

__attribute__((cold, noinline)) static basalt_status two_members(struct pf_dec *d,
                                                                 const struct pf_struct *u)
{
    return basalt_thrift_fail(&d->r, d->err, BASALT_CORRUPT, "union %s has more than one member",
                              u->name);
}

__attribute__((cold, noinline)) static basalt_status in_field(struct pf_dec *d, basalt_status st,
                                                              const struct pf_field *fd)
{
    return basalt_error_context(d->err, st, "%s", fd->name);
}

__attribute__((cold, noinline)) static basalt_status in_element(struct pf_dec *d, basalt_status st,
                                                                const struct pf_field *fd,
                                                                size_t i)
{
    return basalt_error_context(d->err, st, "%s[%zu]", fd->name, i);
}

static const char *type_label(uint8_t t)
{
    static const char *const names[] = {"stop",   "bool",   "bool", "i8",  "i16",
                                        "i32",    "i64",    "double", "binary", "list",
                                        "set",    "map",    "struct", "uuid"};
    return t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

/* ------------------------------------------------------------------ lists */

/* Reads a list header and takes storage for its elements (not zeroed: the
 * caller fills or clears each element). */
static basalt_status list_begin(struct pf_dec *d, uint8_t want_type, size_t elem_size,
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
    *count = n;
    return BASALT_OK;
}

static basalt_status decode_struct(struct pf_dec *d, const struct pf_struct *s, uint8_t *base);

/* A binary or string into its {data, len} member. */
static inline basalt_status decode_bytes(struct pf_dec *d, uint8_t *at)
{
    const void *p = NULL;
    size_t n = 0;
    TRY(pf_bytes(d, &p, &n));
    put_ptr(at + offsetof(struct basalt_parquet_binary, data), p);
    memcpy(at + offsetof(struct basalt_parquet_binary, len), &n, sizeof n);
    return BASALT_OK;
}

/* The storage and wire type of each list element kind. */
static const uint8_t elem_size[] = {
    [PF_I32] = sizeof(int32_t), [PF_ENUM] = sizeof(int32_t),
    [PF_I64] = sizeof(int64_t), [PF_BOOL] = sizeof(bool),
    [PF_BYTES] = sizeof(struct basalt_parquet_binary),
};
static const uint8_t elem_wire[] = {
    [PF_I32] = BASALT_THRIFT_TYPE_I32,     [PF_ENUM] = BASALT_THRIFT_TYPE_I32,
    [PF_I64] = BASALT_THRIFT_TYPE_I64,     [PF_BOOL] = BASALT_THRIFT_TYPE_BOOL,
    [PF_BYTES] = BASALT_THRIFT_TYPE_BINARY, [PF_STRUCT] = BASALT_THRIFT_TYPE_STRUCT,
};

/* A list field: a pointer at fd->off, its length at fd->count. Adds its own
 * error context: the field's name, with the element's index inside. Out of
 * line, as the rarer kinds below: inlined, they would crowd the registers
 * of the field loop in decode_struct. */
__attribute__((noinline)) static basalt_status decode_list(struct pf_dec *d,
                                                           const struct pf_field *fd,
                                                           uint8_t *base)
{
    const struct pf_struct *es = fd->elem == PF_STRUCT ? fd->sub : NULL;
    size_t esize = es ? es->size : elem_size[fd->elem];
    void *p = NULL;
    size_t n = 0;
    basalt_status st = list_begin(d, elem_wire[fd->elem], esize, es ? es->min_wire : 1, &p, &n);
    if (TH_UNLIKELY(st != BASALT_OK))
        return in_field(d, st, fd);
    uint8_t *v = p;
    size_t i = 0;
    /* One loop per element kind, the read inlined in it. */
#define EACH(read)                                                                 \
    for (; i < n; i++)                                                             \
        if (TH_UNLIKELY((st = (read)) != BASALT_OK))                               \
            goto fail;                                                             \
    break
    switch (fd->elem) {
    case PF_I32:
        EACH(tr_i32(&d->r, (int32_t *)(void *)v + i, d->err));
    case PF_ENUM:
        EACH(pf_enum(d, (int32_t *)(void *)v + i, fd->enum_name));
    case PF_I64:
        EACH(tr_i64(&d->r, (int64_t *)(void *)v + i, d->err));
    case PF_BOOL:
        EACH(tr_bool(&d->r, (bool *)(void *)v + i, d->err));
    case PF_BYTES:
        EACH(decode_bytes(d, v + i * esize));
    case PF_STRUCT:
        /* Struct decoders fill zeroed storage (absent fields read as zero).
         * Each element is cleared just before it is read, while its lines
         * are in cache, rather than the whole array first. */
        EACH((memset(v + i * esize, 0, esize), decode_struct(d, es, v + i * esize)));
#undef EACH
    default:
        return basalt_error_set(d->err, BASALT_INTERNAL, "%s: no decoder for list elements",
                                fd->name);
    }
    put_ptr(base + fd->off, p);
    memcpy(base + fd->count, &n, sizeof n);
    return BASALT_OK;
fail:
    return in_element(d, st, fd, i);
}

/* ------------------------------------------------------------------ structs */

/* Out-of-line storage: zeroed, then filled, then linked. */
__attribute__((noinline)) static basalt_status decode_struct_ptr(struct pf_dec *d,
                                                                 const struct pf_struct *s,
                                                                 uint8_t *at)
{
    void *p;
    TRY(pf_alloc(d, s->size, 8, &p));
    memset(p, 0, s->size);
    TRY(decode_struct(d, s, p));
    put_ptr(at, p);
    return BASALT_OK;
}

/* Bools whose IDL default is true, here and in inline nested structs. */
__attribute__((noinline)) static void apply_defaults(const struct pf_struct *s, uint8_t *base)
{
    for (size_t id = 0; id < s->nfields; id++) {
        const struct pf_field *fd = &s->fields[id];
        if (fd->flags & PF_F_DEFAULT_TRUE)
            *(bool *)(base + fd->off) = true;
        else if (fd->kind == PF_STRUCT && (fd->sub->flags & PF_S_DEFAULTS))
            apply_defaults(fd->sub, base + fd->off);
    }
}

/* A union: the member's id in the kind, its fields in the union's storage
 * (see pf_desc.h). Starts from zero, so a second occurrence of the field
 * replaces the first rather than counting as a second member. */
__attribute__((noinline)) static basalt_status decode_union(struct pf_dec *d,
                                                            const struct pf_struct *u,
                                                            uint8_t *base)
{
    memset(base, 0, u->size);
    TRY(tr_struct_begin(&d->r, d->err));
    int32_t kind = 0;
    struct basalt_thrift_field f = {0};
    for (;;) {
        TRY(tr_field(&d->r, &f, d->err));
        if (f.type == BASALT_THRIFT_TYPE_STOP)
            break;
        if (f.type == BASALT_THRIFT_TYPE_STRUCT && f.id > 0) {
            if (TH_UNLIKELY(kind != 0))
                return two_members(d, u);
            kind = f.id;
            memcpy(base + u->kind_off, &kind, sizeof kind);
            if (f.id < u->nfields && u->fields[f.id].kind == PF_STRUCT) {
                const struct pf_field *m = &u->fields[f.id];
                TRY(decode_struct(d, m->sub, base + m->off));
                continue;
            }
        }
        TRY(basalt_thrift_read_skip_field(&d->r, &f, d->err));
    }
    tr_struct_end(&d->r);
    return BASALT_OK;
}

static basalt_status decode_struct(struct pf_dec *d, const struct pf_struct *s, uint8_t *base)
{
    if (TH_UNLIKELY(s->flags != 0)) {
        if (s->flags & PF_S_UNION)
            return decode_union(d, s, base);
        apply_defaults(s, base);
    }
    TRY(tr_struct_begin(&d->r, d->err));
    const struct pf_field *const fields = s->fields;
    const unsigned nfields = s->nfields;
    uint64_t seen = 0; /* required fields read */
    int32_t last = 0;   /* the last field's id, for the next header's delta */
    for (;;) {
        const struct pf_field *fd;
        bool bool_value;
        /* The common header, inline: one byte, the id a delta from the
         * last, a type this struct's table has for that id. */
        const uint8_t *p = d->r.pos;
        if (TH_LIKELY(p < d->r.end)) {
            unsigned b = *p;
            unsigned next = (unsigned)(last + (int32_t)(b >> 4)); /* < 0: huge */
            if (b == 0) {
                d->r.pos = p + 1;
                break;
            }
            if (TH_LIKELY(b >= 0x10 && next < nfields) &&
                TH_LIKELY((fields[next].wires >> (b & 0x0f)) & 1)) {
                d->r.pos = p + 1;
                last = (int32_t)next;
                fd = &fields[next];
                bool_value = (b & 0x0f) == BASALT_THRIFT_TYPE_BOOL;
                goto read_value;
            }
        }
        /* Everything else the general way: long headers, the end of the
         * input, fields unknown here or of another type (skipped, as the
         * reference implementations do). */
        struct basalt_thrift_field f = {.id = (int16_t)last};
        TRY(tr_field(&d->r, &f, d->err));
        if (f.type == BASALT_THRIFT_TYPE_STOP)
            break;
        last = f.id;
        if ((unsigned)last >= nfields || !((fields[last].wires >> f.type) & 1)) {
            TRY(basalt_thrift_read_skip_field(&d->r, &f, d->err));
            continue;
        }
        fd = &fields[last];
        bool_value = f.bool_value;
    read_value:;
        uint8_t *at = base + fd->off;
        const uint16_t has = fd->has;
        basalt_status st;
        switch (fd->kind) {
        case PF_I32:
            st = tr_i32(&d->r, (int32_t *)at, d->err);
            break;
        case PF_I64:
            st = tr_i64(&d->r, (int64_t *)at, d->err);
            break;
        case PF_ENUM:
            st = pf_enum(d, (int32_t *)at, fd->enum_name);
            break;
        case PF_BYTES:
            st = decode_bytes(d, at);
            break;
        case PF_BOOL:
            *(bool *)at = bool_value;
            st = BASALT_OK;
            break;
        case PF_STRUCT:
            st = decode_struct(d, fd->sub, at);
            break;
        case PF_LIST:
            /* Names its own context (with the element index). */
            st = decode_list(d, fd, base);
            if (TH_UNLIKELY(st != BASALT_OK))
                return st;
            break;
        case PF_I16:
            st = tr_i16(&d->r, (int16_t *)at, d->err);
            break;
        case PF_I8:
            st = tr_i8(&d->r, (int8_t *)at, d->err);
            break;
        case PF_DOUBLE:
            st = tr_double(&d->r, (double *)at, d->err);
            break;
        case PF_STRUCT_PTR:
            st = decode_struct_ptr(d, fd->sub, at);
            break;
        default:
            st = basalt_error_set(d->err, BASALT_INTERNAL, "no decoder for this field");
            break;
        }
        if (TH_UNLIKELY(st != BASALT_OK))
            return in_field(d, st, fd);
        if (has != PF_NO_HAS)
            *(bool *)(base + has) = true;
        else
            seen |= (uint64_t)1 << last;
    }
    tr_struct_end(&d->r);
    if (TH_UNLIKELY((seen & s->required) != s->required))
        return missing(d, s, seen);
    if (s->after)
        return s->after(d, base);
    return BASALT_OK;
}

basalt_status basalt_thrift_pf_decode(struct pf_dec *d, const struct pf_struct *s, void *obj)
{
    return decode_struct(d, s, obj);
}
