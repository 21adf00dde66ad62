/* Compact protocol writer: growth, misuse reports and the public API. */
#include "thrift_internal.h"

void basalt_thrift_writer_init(struct basalt_thrift_writer *w, struct basalt_buffer *out,
                               struct basalt_error *err)
{
    w->out = out;
    w->err = err;
    w->status = BASALT_OK;
    w->depth = 0;
    w->last_id[0] = 0;
}

basalt_status basalt_thrift_writer_finish(struct basalt_thrift_writer *w)
{
    if (w->status == BASALT_OK && w->depth != 0)
        return basalt_thrift_writer_misuse(w, "a struct was begun and not ended");
    return w->status;
}

__attribute__((cold, noinline)) basalt_status
basalt_thrift_writer_misuse(struct basalt_thrift_writer *w, const char *what)
{
    if (w->status == BASALT_OK)
        w->status = basalt_error_set(w->err, BASALT_INVALID_ARG, "thrift writer: %s", what);
    return w->status;
}

__attribute__((noinline)) uint8_t *basalt_thrift_writer_grow(struct basalt_thrift_writer *w,
                                                             size_t n)
{
    /* Reserve generously so the inline path rarely comes back here. */
    size_t want = n < 4096 ? 4096 : n;
    basalt_status st = basalt_buffer_reserve(w->out, want, w->err);
    if (st != BASALT_OK) {
        w->status = st;
        return NULL;
    }
    return w->out->data + w->out->size;
}

basalt_status basalt_thrift_write_varint(struct basalt_thrift_writer *w, uint64_t v)
{
    tw_varint(w, v);
    return w->status;
}

basalt_status basalt_thrift_write_i8(struct basalt_thrift_writer *w, int8_t v)
{
    tw_byte(w, (uint8_t)v);
    return w->status;
}

basalt_status basalt_thrift_write_i16(struct basalt_thrift_writer *w, int16_t v)
{
    tw_i32(w, v);
    return w->status;
}

basalt_status basalt_thrift_write_i32(struct basalt_thrift_writer *w, int32_t v)
{
    tw_i32(w, v);
    return w->status;
}

basalt_status basalt_thrift_write_i64(struct basalt_thrift_writer *w, int64_t v)
{
    tw_i64(w, v);
    return w->status;
}

basalt_status basalt_thrift_write_double(struct basalt_thrift_writer *w, double v)
{
    uint8_t *p = tw_room(w, 8);
    if (!p)
        return w->status;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(bits >> (8 * i));
    w->out->size += 8;
    return w->status;
}

basalt_status basalt_thrift_write_bool(struct basalt_thrift_writer *w, bool v)
{
    tw_byte(w, v ? 1 : 2);
    return w->status;
}

basalt_status basalt_thrift_write_binary(struct basalt_thrift_writer *w, const void *data,
                                         size_t len)
{
    if (len && !data)
        return basalt_thrift_writer_misuse(w, "binary with a length and no data");
    tw_binary(w, data, len);
    return w->status;
}

basalt_status basalt_thrift_write_uuid(struct basalt_thrift_writer *w, const uint8_t v[16])
{
    uint8_t *p = tw_room(w, 16);
    if (p) {
        memcpy(p, v, 16);
        w->out->size += 16;
    }
    return w->status;
}

basalt_status basalt_thrift_write_struct_begin(struct basalt_thrift_writer *w)
{
    tw_struct_begin(w);
    return w->status;
}

basalt_status basalt_thrift_write_struct_end(struct basalt_thrift_writer *w)
{
    tw_struct_end(w);
    return w->status;
}

static bool field_type_ok(uint8_t type)
{
    return type >= BASALT_THRIFT_TYPE_I8 && type <= BASALT_THRIFT_TYPE_UUID;
}

basalt_status basalt_thrift_write_field_header(struct basalt_thrift_writer *w, uint8_t type,
                                               int16_t id)
{
    if (w->depth == 0)
        return basalt_thrift_writer_misuse(w, "field header outside a struct");
    if (!field_type_ok(type))
        return basalt_thrift_writer_misuse(w, "field header type is not a value type "
                                              "(booleans use write_field_bool)");
    tw_field(w, type, id);
    return w->status;
}

basalt_status basalt_thrift_write_field_bool(struct basalt_thrift_writer *w, int16_t id,
                                             bool value)
{
    if (w->depth == 0)
        return basalt_thrift_writer_misuse(w, "field header outside a struct");
    tw_field(w, value ? BASALT_THRIFT_TYPE_BOOL : BASALT_THRIFT_TYPE_BOOL_FALSE, id);
    return w->status;
}

basalt_status basalt_thrift_write_list_header(struct basalt_thrift_writer *w, uint8_t elem_type,
                                              uint32_t size)
{
    if (elem_type == BASALT_THRIFT_TYPE_BOOL_FALSE)
        elem_type = BASALT_THRIFT_TYPE_BOOL;
    if (elem_type < BASALT_THRIFT_TYPE_BOOL || elem_type > BASALT_THRIFT_TYPE_UUID)
        return basalt_thrift_writer_misuse(w, "unknown list element type");
    if (size > INT32_MAX)
        return basalt_thrift_writer_misuse(w, "list longer than INT32_MAX");
    tw_list(w, elem_type, size);
    return w->status;
}

basalt_status basalt_thrift_write_map_header(struct basalt_thrift_writer *w, uint8_t key_type,
                                             uint8_t value_type, uint32_t size)
{
    if (size > INT32_MAX)
        return basalt_thrift_writer_misuse(w, "map larger than INT32_MAX");
    if (size == 0) {
        tw_byte(w, 0);
        return w->status;
    }
    if (key_type == BASALT_THRIFT_TYPE_BOOL_FALSE)
        key_type = BASALT_THRIFT_TYPE_BOOL;
    if (value_type == BASALT_THRIFT_TYPE_BOOL_FALSE)
        value_type = BASALT_THRIFT_TYPE_BOOL;
    if (key_type < BASALT_THRIFT_TYPE_BOOL || key_type > BASALT_THRIFT_TYPE_UUID ||
        value_type < BASALT_THRIFT_TYPE_BOOL || value_type > BASALT_THRIFT_TYPE_UUID)
        return basalt_thrift_writer_misuse(w, "unknown map key or value type");
    tw_varint(w, size);
    tw_byte(w, (uint8_t)((key_type << 4) | value_type));
    return w->status;
}
