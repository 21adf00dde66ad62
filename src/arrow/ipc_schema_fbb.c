/* A small flatbuffers builder, just enough for Arrow's Message and Schema
 * tables. Bytes are prepended, so the buffer keeps its content at the end of
 * the allocation and grows by moving it to the end of a bigger one. */
#include "ipc_schema_internal.h"

/* 2 GiB: offsets are uint32, and Arrow frames the message with an int32. */
#define FBB_MAX ((size_t)INT32_MAX - 16)

void basalt_arrow_fbb_init(struct basalt_arrow_fbb *b)
{
    memset(b, 0, sizeof *b);
    b->max_align = 1;
}

void basalt_arrow_fbb_reset(struct basalt_arrow_fbb *b)
{
    basalt_free(b->buf);
    basalt_arrow_fbb_init(b);
}

static bool fbb_grow(struct basalt_arrow_fbb *b, size_t n)
{
    if (b->status != BASALT_OK)
        return false;
    if (n > FBB_MAX - b->size) {
        b->status = BASALT_LIMIT;
        return false;
    }
    /* An empty builder allocates even for 0 bytes: callers get a pointer
     * into the buffer, never an offset from NULL. */
    if (b->buf && b->cap - b->size >= n)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->size < n)
        cap *= 2;
    uint8_t *buf = basalt_malloc(cap);
    if (!buf) {
        b->status = BASALT_NOMEM;
        return false;
    }
    if (b->size)
        memcpy(buf + cap - b->size, b->buf + b->cap - b->size, b->size);
    basalt_free(b->buf);
    b->buf = buf;
    b->cap = cap;
    return true;
}

/* Pointer to `n` new bytes at the front. NULL after a failure. */
static uint8_t *fbb_prepend(struct basalt_arrow_fbb *b, size_t n)
{
    if (!fbb_grow(b, n))
        return NULL;
    b->size += n;
    return b->buf + b->cap - b->size;
}

/* Pads with zeros so that after `n` more bytes the size is a multiple of
 * `align`, which makes those bytes' first position aligned in the result. */
static void fbb_prealign(struct basalt_arrow_fbb *b, size_t n, size_t align)
{
    if (align > b->max_align)
        b->max_align = align;
    size_t pad = (align - ((b->size + n) & (align - 1))) & (align - 1);
    uint8_t *p = fbb_prepend(b, pad);
    if (p)
        memset(p, 0, pad);
}

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Prepends a uint32 offset to `ref`; the offset counts from its own position. */
static void fbb_offset(struct basalt_arrow_fbb *b, basalt_arrow_fb_ref ref)
{
    fbb_prealign(b, 4, 4);
    uint8_t *p = fbb_prepend(b, 4);
    if (p)
        put_u32(p, (uint32_t)(b->size - ref));
}

basalt_arrow_fb_ref basalt_arrow_fbb_string(struct basalt_arrow_fbb *b, const char *s, size_t len)
{
    if (len > FBB_MAX) {
        if (b->status == BASALT_OK)
            b->status = BASALT_LIMIT;
        return 0;
    }
    fbb_prealign(b, len + 1, 4);
    uint8_t *p = fbb_prepend(b, len + 1);
    if (!p)
        return 0;
    if (len)
        memcpy(p, s, len);
    p[len] = 0;
    p = fbb_prepend(b, 4);
    if (!p)
        return 0;
    put_u32(p, (uint32_t)len);
    return (basalt_arrow_fb_ref)b->size;
}

basalt_arrow_fb_ref basalt_arrow_fbb_ref_vector(struct basalt_arrow_fbb *b,
                                                const basalt_arrow_fb_ref *refs, size_t n)
{
    if (n > FBB_MAX / 4) {
        if (b->status == BASALT_OK)
            b->status = BASALT_LIMIT;
        return 0;
    }
    fbb_prealign(b, 4 * n, 4);
    for (size_t i = n; i-- > 0;)
        fbb_offset(b, refs[i]);
    uint8_t *p = fbb_prepend(b, 4);
    if (!p)
        return 0;
    put_u32(p, (uint32_t)n);
    return (basalt_arrow_fb_ref)b->size;
}

basalt_arrow_fb_ref basalt_arrow_fbb_i32_vector(struct basalt_arrow_fbb *b, const int32_t *values,
                                                size_t n)
{
    if (n > FBB_MAX / 4) {
        if (b->status == BASALT_OK)
            b->status = BASALT_LIMIT;
        return 0;
    }
    fbb_prealign(b, 4 * n, 4);
    uint8_t *p = fbb_prepend(b, 4 * n);
    if (!p)
        return 0;
    for (size_t i = 0; i < n; i++)
        put_u32(p + 4 * i, (uint32_t)values[i]);
    p = fbb_prepend(b, 4);
    if (!p)
        return 0;
    put_u32(p, (uint32_t)n);
    return (basalt_arrow_fb_ref)b->size;
}

basalt_arrow_fb_ref basalt_arrow_fbb_bytes_vector(struct basalt_arrow_fbb *b, const void *data,
                                                  size_t elem_size, size_t n, size_t align)
{
    if (elem_size == 0 || n > FBB_MAX / elem_size) {
        if (b->status == BASALT_OK)
            b->status = BASALT_LIMIT;
        return 0;
    }
    size_t bytes = elem_size * n;
    /* The count sits right before the first element: align both. */
    fbb_prealign(b, bytes, align < 4 ? 4 : align);
    uint8_t *p = fbb_prepend(b, bytes);
    if (!p)
        return 0;
    if (bytes)
        memcpy(p, data, bytes);
    p = fbb_prepend(b, 4);
    if (!p)
        return 0;
    put_u32(p, (uint32_t)n);
    return (basalt_arrow_fb_ref)b->size;
}

void basalt_arrow_fbb_table_start(struct basalt_arrow_fbb *b)
{
    b->in_table = true;
    b->table_start = b->size;
    b->n_fields = 0;
    memset(b->field_ref, 0, sizeof b->field_ref);
}

static uint8_t *fbb_field(struct basalt_arrow_fbb *b, unsigned id, size_t size)
{
    if (id >= BASALT_ARROW_FBB_MAX_FIELDS) {
        if (b->status == BASALT_OK)
            b->status = BASALT_INTERNAL;
        return NULL;
    }
    fbb_prealign(b, size, size);
    uint8_t *p = fbb_prepend(b, size);
    if (!p)
        return NULL;
    b->field_ref[id] = (uint32_t)b->size;
    if (id + 1 > b->n_fields)
        b->n_fields = id + 1;
    return p;
}

void basalt_arrow_fbb_add_u8(struct basalt_arrow_fbb *b, unsigned id, uint8_t v)
{
    uint8_t *p = fbb_field(b, id, 1);
    if (p)
        *p = v;
}

void basalt_arrow_fbb_add_i16(struct basalt_arrow_fbb *b, unsigned id, int16_t v)
{
    uint8_t *p = fbb_field(b, id, 2);
    if (p)
        put_u16(p, (uint16_t)v);
}

void basalt_arrow_fbb_add_i32(struct basalt_arrow_fbb *b, unsigned id, int32_t v)
{
    uint8_t *p = fbb_field(b, id, 4);
    if (p)
        put_u32(p, (uint32_t)v);
}

void basalt_arrow_fbb_add_i64(struct basalt_arrow_fbb *b, unsigned id, int64_t v)
{
    uint8_t *p = fbb_field(b, id, 8);
    if (p)
        put_u64(p, (uint64_t)v);
}

void basalt_arrow_fbb_add_ref(struct basalt_arrow_fbb *b, unsigned id, basalt_arrow_fb_ref ref)
{
    uint8_t *p = fbb_field(b, id, 4);
    if (p)
        put_u32(p, (uint32_t)(b->size - ref));
}

basalt_arrow_fb_ref basalt_arrow_fbb_table_end(struct basalt_arrow_fbb *b)
{
    b->in_table = false;
    /* The soffset, patched once the vtable's place is known. */
    fbb_prealign(b, 4, 4);
    uint8_t *p = fbb_prepend(b, 4);
    if (!p)
        return 0;
    size_t table = b->size;
    size_t table_size = table - b->table_start;
    size_t vt_size = 4 + 2 * (size_t)b->n_fields;
    if (table_size > UINT16_MAX) {
        b->status = BASALT_LIMIT;
        return 0;
    }
    uint8_t *vt = fbb_prepend(b, vt_size);
    if (!vt)
        return 0;
    put_u16(vt, (uint16_t)vt_size);
    put_u16(vt + 2, (uint16_t)table_size);
    for (unsigned i = 0; i < b->n_fields; i++)
        put_u16(vt + 4 + 2 * i, b->field_ref[i] ? (uint16_t)(table - b->field_ref[i]) : 0);
    /* The vtable sits before the table: a positive soffset. */
    put_u32(b->buf + b->cap - table, (uint32_t)(b->size - table));
    return (basalt_arrow_fb_ref)table;
}

basalt_status basalt_arrow_fbb_finish(struct basalt_arrow_fbb *b, basalt_arrow_fb_ref root,
                                      const uint8_t **data, size_t *len,
                                      struct basalt_error *err)
{
    if (b->status == BASALT_OK) {
        fbb_prealign(b, 4, b->max_align > 4 ? b->max_align : 4);
        fbb_offset(b, root);
    }
    switch (b->status) {
    case BASALT_OK:
        *data = b->buf + b->cap - b->size;
        *len = b->size;
        return BASALT_OK;
    case BASALT_NOMEM:
        return basalt_error_set(err, BASALT_NOMEM, "out of memory building a flatbuffer");
    case BASALT_LIMIT:
        return basalt_error_set(err, BASALT_LIMIT, "flatbuffer over 2 GiB");
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "flatbuffer builder misused");
    }
}
