/* The binary metadata encoding of ArrowSchema.metadata: int32 pair count,
 * then for each pair int32 key length, key bytes, int32 value length, value
 * bytes; native byte order, no alignment. */
#include <string.h>

#include "arrow_internal.h"

static int32_t read_i32(const char *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void write_i32(uint8_t *p, int32_t v) { memcpy(p, &v, 4); }

basalt_status basalt_arrow_metadata_append(struct basalt_buffer *buf, const char *key,
                                           size_t key_len, const char *value, size_t value_len,
                                           struct basalt_error *err)
{
    if (!buf || (!key && key_len) || (!value && value_len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "metadata_append: NULL argument");
    if (key_len > INT32_MAX || value_len > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "metadata key or value longer than 2^31-1");
    int32_t count = buf->size >= 4 ? read_i32((const char *)buf->data) : 0;
    if (count == INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "metadata has 2^31-1 pairs already");
    size_t head = buf->size == 0 ? 4 : 0;
    basalt_status st = basalt_buffer_reserve(buf, head + 8 + key_len + value_len, err);
    if (st != BASALT_OK)
        return st;
    if (head) {
        write_i32(buf->data, 0);
        buf->size = 4;
    }
    uint8_t *p = buf->data + buf->size;
    write_i32(p, (int32_t)key_len);
    if (key_len)
        memcpy(p + 4, key, key_len);
    p += 4 + key_len;
    write_i32(p, (int32_t)value_len);
    if (value_len)
        memcpy(p + 4, value, value_len);
    buf->size += 8 + key_len + value_len;
    write_i32(buf->data, count + 1);
    return BASALT_OK;
}

basalt_status basalt_arrow_metadata_size(const char *metadata, size_t *size,
                                         struct basalt_error *err)
{
    if (!size)
        return basalt_error_set(err, BASALT_INVALID_ARG, "metadata_size: NULL size");
    *size = 0;
    if (!metadata)
        return BASALT_OK;
    int32_t count = read_i32(metadata);
    if (count < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "metadata: negative pair count %d",
                                (int)count);
    size_t pos = 4;
    for (int32_t i = 0; i < count; i++) {
        for (int part = 0; part < 2; part++) {
            int32_t len = read_i32(metadata + pos);
            if (len < 0)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "metadata: pair %d: negative %s length",
                                        (int)i, part ? "value" : "key");
            pos += 4 + (size_t)len;
        }
    }
    *size = pos;
    return BASALT_OK;
}

basalt_status basalt_arrow_metadata_reader_init(struct basalt_arrow_metadata_reader *reader,
                                                const char *metadata, struct basalt_error *err)
{
    if (!reader)
        return basalt_error_set(err, BASALT_INVALID_ARG, "metadata_reader_init: NULL reader");
    reader->pos = NULL;
    reader->remaining = 0;
    size_t size;
    basalt_status st = basalt_arrow_metadata_size(metadata, &size, err);
    if (st != BASALT_OK || !metadata)
        return st;
    reader->pos = metadata + 4;
    reader->remaining = read_i32(metadata);
    return BASALT_OK;
}

bool basalt_arrow_metadata_reader_next(struct basalt_arrow_metadata_reader *reader,
                                       struct basalt_arrow_metadata_item *item)
{
    if (reader->remaining <= 0)
        return false;
    const char *p = reader->pos;
    item->key_len = (size_t)read_i32(p);
    item->key = p + 4;
    p += 4 + item->key_len;
    item->value_len = (size_t)read_i32(p);
    item->value = p + 4;
    reader->pos = p + 4 + item->value_len;
    reader->remaining--;
    return true;
}

basalt_status basalt_arrow_metadata_get(const char *metadata, const char *key, const char **value,
                                        size_t *value_len, struct basalt_error *err)
{
    if (!key || !value || !value_len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "metadata_get: NULL argument");
    struct basalt_arrow_metadata_reader reader;
    basalt_status st = basalt_arrow_metadata_reader_init(&reader, metadata, err);
    if (st != BASALT_OK)
        return st;
    size_t key_len = strlen(key);
    struct basalt_arrow_metadata_item item;
    while (basalt_arrow_metadata_reader_next(&reader, &item)) {
        if (item.key_len == key_len && memcmp(item.key, key, key_len) == 0) {
            *value = item.value;
            *value_len = item.value_len;
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "metadata has no key '%s'", key);
}
