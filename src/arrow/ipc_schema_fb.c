/* A bounded flatbuffers reader: every position is checked before it is read. */
#include "ipc_schema_internal.h"

static basalt_status fb_corrupt(struct basalt_error *err, uint64_t pos, const char *what)
{
    return basalt_error_set(err, BASALT_CORRUPT, "flatbuffer: %s at byte %llu", what,
                            (unsigned long long)pos);
}

/* True when [pos, pos + n) lies inside the buffer. */
static bool fb_fits(const struct basalt_arrow_fb *fb, uint64_t pos, uint64_t n)
{
    return pos <= fb->len && n <= fb->len - pos;
}

basalt_status basalt_arrow_fb_init(struct basalt_arrow_fb *fb, const void *data, size_t len,
                                   struct basalt_error *err)
{
    fb->data = data;
    fb->len = 0;
    if (len > INT32_MAX)
        return basalt_error_set(err, BASALT_CORRUPT, "flatbuffer: %zu bytes is over 2^31 - 1",
                                len);
    if (len < 4 || !data)
        return basalt_error_set(err, BASALT_CORRUPT, "flatbuffer: %zu bytes is too short", len);
    fb->len = (uint32_t)len;
    return BASALT_OK;
}

basalt_status basalt_arrow_fb_table_at(const struct basalt_arrow_fb *fb, uint32_t pos,
                                       struct basalt_arrow_fb_table *table,
                                       struct basalt_error *err)
{
    if (!fb_fits(fb, pos, 4))
        return fb_corrupt(err, pos, "table outside the buffer");
    int32_t soffset = (int32_t)basalt_arrow_fb_u32(fb->data + pos);
    int64_t vtable = (int64_t)pos - soffset;
    if (vtable < 0 || !fb_fits(fb, (uint64_t)vtable, 4))
        return fb_corrupt(err, pos, "vtable outside the buffer");
    uint16_t vt_size = basalt_arrow_fb_u16(fb->data + vtable);
    uint16_t tbl_size = basalt_arrow_fb_u16(fb->data + vtable + 2);
    if (vt_size < 4 || (vt_size & 1) || !fb_fits(fb, (uint64_t)vtable, vt_size))
        return fb_corrupt(err, (uint64_t)vtable, "malformed vtable");
    if (tbl_size < 4 || !fb_fits(fb, pos, tbl_size))
        return fb_corrupt(err, pos, "table size beyond the buffer");
    table->fb = fb;
    table->pos = pos;
    table->vtable = (uint32_t)vtable;
    table->vt_size = vt_size;
    table->tbl_size = tbl_size;
    return BASALT_OK;
}

basalt_status basalt_arrow_fb_root(const struct basalt_arrow_fb *fb,
                                   struct basalt_arrow_fb_table *table,
                                   struct basalt_error *err)
{
    if (!fb_fits(fb, 0, 4))
        return fb_corrupt(err, 0, "no root offset");
    return basalt_arrow_fb_table_at(fb, basalt_arrow_fb_u32(fb->data), table, err);
}

/* Position of field `id` holding `size` bytes; false when absent. A field
 * that would reach past its table is CORRUPT. */
static basalt_status field_pos(const struct basalt_arrow_fb_table *t, unsigned id, uint32_t size,
                               uint32_t *pos, bool *present, struct basalt_error *err)
{
    *present = false;
    uint32_t entry = 4 + 2 * (uint32_t)id;
    if (entry + 2 > t->vt_size)
        return BASALT_OK;
    uint16_t off = basalt_arrow_fb_u16(t->fb->data + t->vtable + entry);
    if (off == 0)
        return BASALT_OK;
    if ((uint32_t)off + size > t->tbl_size)
        return fb_corrupt(err, (uint64_t)t->pos + off, "field beyond its table");
    *pos = t->pos + off;
    *present = true;
    return BASALT_OK;
}

basalt_status basalt_arrow_fb_u8(const struct basalt_arrow_fb_table *t, unsigned id, uint8_t dflt,
                                 uint8_t *out, struct basalt_error *err)
{
    uint32_t pos = 0;
    bool present;
    basalt_status st = field_pos(t, id, 1, &pos, &present, err);
    *out = present ? t->fb->data[pos] : dflt;
    return st;
}

basalt_status basalt_arrow_fb_bool(const struct basalt_arrow_fb_table *t, unsigned id, bool dflt,
                                   bool *out, struct basalt_error *err)
{
    uint8_t v;
    basalt_status st = basalt_arrow_fb_u8(t, id, dflt ? 1 : 0, &v, err);
    *out = v != 0;
    return st;
}

basalt_status basalt_arrow_fb_i16(const struct basalt_arrow_fb_table *t, unsigned id, int16_t dflt,
                                  int16_t *out, struct basalt_error *err)
{
    uint32_t pos = 0;
    bool present;
    basalt_status st = field_pos(t, id, 2, &pos, &present, err);
    *out = present ? (int16_t)basalt_arrow_fb_u16(t->fb->data + pos) : dflt;
    return st;
}

basalt_status basalt_arrow_fb_i32(const struct basalt_arrow_fb_table *t, unsigned id, int32_t dflt,
                                  int32_t *out, struct basalt_error *err)
{
    uint32_t pos = 0;
    bool present;
    basalt_status st = field_pos(t, id, 4, &pos, &present, err);
    *out = present ? (int32_t)basalt_arrow_fb_u32(t->fb->data + pos) : dflt;
    return st;
}

basalt_status basalt_arrow_fb_i64(const struct basalt_arrow_fb_table *t, unsigned id, int64_t dflt,
                                  int64_t *out, struct basalt_error *err)
{
    uint32_t pos = 0;
    bool present;
    basalt_status st = field_pos(t, id, 8, &pos, &present, err);
    *out = present ? (int64_t)basalt_arrow_fb_u64(t->fb->data + pos) : dflt;
    return st;
}

/* Follows the uint32 offset stored at `pos` to its target, which must leave
 * room for `min` bytes. */
static basalt_status follow(const struct basalt_arrow_fb *fb, uint32_t pos, uint32_t min,
                            uint32_t *target, struct basalt_error *err)
{
    uint64_t t = (uint64_t)pos + basalt_arrow_fb_u32(fb->data + pos);
    if (!fb_fits(fb, t, min))
        return fb_corrupt(err, pos, "offset points outside the buffer");
    *target = (uint32_t)t;
    return BASALT_OK;
}

basalt_status basalt_arrow_fb_table_field(const struct basalt_arrow_fb_table *t, unsigned id,
                                          struct basalt_arrow_fb_table *out, bool *present,
                                          struct basalt_error *err)
{
    uint32_t pos = 0, target = 0;
    memset(out, 0, sizeof *out);
    basalt_status st = field_pos(t, id, 4, &pos, present, err);
    if (st != BASALT_OK || !*present)
        return st;
    st = follow(t->fb, pos, 4, &target, err);
    if (st != BASALT_OK)
        return st;
    return basalt_arrow_fb_table_at(t->fb, target, out, err);
}

/* The string whose length word is at `target`. */
static basalt_status string_at(const struct basalt_arrow_fb *fb, uint32_t target,
                               const char **str, uint32_t *len, struct basalt_error *err)
{
    uint32_t n = basalt_arrow_fb_u32(fb->data + target);
    if (!fb_fits(fb, (uint64_t)target + 4, n))
        return fb_corrupt(err, target, "string longer than the buffer");
    *str = (const char *)fb->data + target + 4;
    *len = n;
    return BASALT_OK;
}

basalt_status basalt_arrow_fb_string(const struct basalt_arrow_fb_table *t, unsigned id,
                                     const char **str, uint32_t *len, bool *present,
                                     struct basalt_error *err)
{
    uint32_t pos = 0, target = 0;
    *str = "";
    *len = 0;
    basalt_status st = field_pos(t, id, 4, &pos, present, err);
    if (st != BASALT_OK || !*present)
        return st;
    st = follow(t->fb, pos, 4, &target, err);
    if (st != BASALT_OK)
        return st;
    return string_at(t->fb, target, str, len, err);
}

basalt_status basalt_arrow_fb_vector_field(const struct basalt_arrow_fb_table *t, unsigned id,
                                           uint32_t elem_size, struct basalt_arrow_fb_vector *out,
                                           bool *present, struct basalt_error *err)
{
    uint32_t pos = 0, target = 0;
    out->fb = t->fb;
    out->pos = 0;
    out->count = 0;
    basalt_status st = field_pos(t, id, 4, &pos, present, err);
    if (st != BASALT_OK || !*present)
        return st;
    st = follow(t->fb, pos, 4, &target, err);
    if (st != BASALT_OK)
        return st;
    uint32_t count = basalt_arrow_fb_u32(t->fb->data + target);
    if (!fb_fits(t->fb, (uint64_t)target + 4, (uint64_t)count * elem_size))
        return fb_corrupt(err, target, "vector longer than the buffer");
    out->pos = target + 4;
    out->count = count;
    return BASALT_OK;
}

basalt_status basalt_arrow_fb_vector_table(const struct basalt_arrow_fb_vector *v, uint32_t i,
                                           struct basalt_arrow_fb_table *out,
                                           struct basalt_error *err)
{
    uint32_t target = 0;
    basalt_status st = follow(v->fb, v->pos + 4 * i, 4, &target, err);
    if (st != BASALT_OK)
        return st;
    return basalt_arrow_fb_table_at(v->fb, target, out, err);
}

basalt_status basalt_arrow_fb_vector_string(const struct basalt_arrow_fb_vector *v, uint32_t i,
                                            const char **str, uint32_t *len,
                                            struct basalt_error *err)
{
    uint32_t target = 0;
    basalt_status st = follow(v->fb, v->pos + 4 * i, 4, &target, err);
    if (st != BASALT_OK)
        return st;
    return string_at(v->fb, target, str, len, err);
}
