#include <string.h>

#include "basalt/core.h"

void basalt_buffer_init(struct basalt_buffer *buf)
{
    buf->data = NULL;
    buf->size = 0;
    buf->capacity = 0;
}

basalt_status basalt_buffer_reserve(struct basalt_buffer *buf, size_t additional,
                                    struct basalt_error *err)
{
    if (additional > SIZE_MAX - buf->size - 64)
        return basalt_error_set(err, BASALT_LIMIT, "buffer of %zu bytes cannot grow by %zu",
                                buf->size, additional);
    size_t need = buf->size + additional;
    if (need <= buf->capacity)
        return BASALT_OK;
    /* Grow geometrically (1.5x) so appends are amortised O(1). */
    size_t cap = buf->capacity + buf->capacity / 2;
    if (cap < need)
        cap = need;
    cap = (cap + 63) & ~(size_t)63;
    uint8_t *data = basalt_aligned_alloc(64, cap);
    if (!data)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory growing a buffer to %zu bytes",
                                cap);
    if (buf->size)
        memcpy(data, buf->data, buf->size);
    basalt_free(buf->data);
    buf->data = data;
    buf->capacity = cap;
    return BASALT_OK;
}

basalt_status basalt_buffer_resize(struct basalt_buffer *buf, size_t size, struct basalt_error *err)
{
    if (size > buf->size) {
        basalt_status st = basalt_buffer_reserve(buf, size - buf->size, err);
        if (st != BASALT_OK)
            return st;
    }
    buf->size = size;
    return BASALT_OK;
}

basalt_status basalt_buffer_append(struct basalt_buffer *buf, const void *data, size_t len,
                                   struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(buf, len, err);
    if (st != BASALT_OK)
        return st;
    if (len)
        memcpy(buf->data + buf->size, data, len);
    buf->size += len;
    return BASALT_OK;
}

uint8_t *basalt_buffer_take(struct basalt_buffer *buf)
{
    uint8_t *data = buf->data;
    basalt_buffer_init(buf);
    return data;
}

void basalt_buffer_reset(struct basalt_buffer *buf)
{
    basalt_free(buf->data);
    basalt_buffer_init(buf);
}
