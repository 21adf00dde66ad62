/* Binary encoding of generic values. */
#include "avro_internal.h"

basalt_status basalt_avro_put_long(struct basalt_buffer *out, int64_t v, struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(out, 10, err);
    if (st != BASALT_OK)
        return st;
    out->size += avro_write_long(out->data + out->size, v);
    return BASALT_OK;
}

basalt_status basalt_avro_put_bytes(struct basalt_buffer *out, const void *data, size_t len,
                                    struct basalt_error *err)
{
    if (len > INT64_MAX)
        return basalt_error_set(err, BASALT_INVALID_ARG, "byte string too long");
    basalt_status st = basalt_avro_put_long(out, (int64_t)len, err);
    if (st == BASALT_OK && len)
        st = basalt_buffer_append(out, data, len, err);
    return st;
}

static basalt_status misfit(struct basalt_error *err, const struct basalt_avro_node *n,
                            const char *why)
{
    return basalt_error_set(err, BASALT_INVALID_ARG, "value does not fit %s%s%s: %s",
                            basalt_avro_type_name(n->type), n->name ? " " : "",
                            n->name ? n->name : "", why);
}

static basalt_status encode(const struct basalt_avro_value *v, struct basalt_buffer *out,
                            uint32_t depth, struct basalt_error *err)
{
    const struct basalt_avro_node *n = v->node;
    basalt_status st = BASALT_OK;
    if (!n)
        return basalt_error_set(err, BASALT_INVALID_ARG, "value without a schema node");
    if (depth == 0)
        return basalt_error_set(err, BASALT_LIMIT, "value nested too deeply");
    switch (n->type) {
    case BASALT_AVRO_NULL:
        return BASALT_OK;
    case BASALT_AVRO_BOOLEAN: {
        uint8_t b = v->boolean ? 1 : 0;
        return basalt_buffer_append(out, &b, 1, err);
    }
    case BASALT_AVRO_INT:
        if (v->i < INT32_MIN || v->i > INT32_MAX)
            return misfit(err, n, "outside 32 bits");
        return basalt_avro_put_long(out, v->i, err);
    case BASALT_AVRO_LONG:
        return basalt_avro_put_long(out, v->i, err);
    case BASALT_AVRO_FLOAT: {
        uint32_t u;
        memcpy(&u, &v->f, 4);
        uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
        return basalt_buffer_append(out, b, 4, err);
    }
    case BASALT_AVRO_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->d, 8);
        uint8_t b[8];
        for (int i = 0; i < 8; i++)
            b[i] = (uint8_t)(u >> (8 * i));
        return basalt_buffer_append(out, b, 8, err);
    }
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        return basalt_avro_put_bytes(out, v->bytes.data, v->bytes.size, err);
    case BASALT_AVRO_FIXED:
        if (v->bytes.size != (size_t)n->size)
            return misfit(err, n, "wrong size");
        return v->bytes.size ? basalt_buffer_append(out, v->bytes.data, v->bytes.size, err)
                             : BASALT_OK;
    case BASALT_AVRO_ENUM:
        if (v->index >= n->count)
            return misfit(err, n, "symbol index out of range");
        return basalt_avro_put_long(out, v->index, err);
    case BASALT_AVRO_UNION:
        if (v->index >= n->count || !v->branch)
            return misfit(err, n, "branch index out of range");
        if (v->branch->node != n->branches[v->index])
            return misfit(err, n, "branch value of another type");
        if ((st = basalt_avro_put_long(out, v->index, err)) != BASALT_OK)
            return st;
        return encode(v->branch, out, depth - 1, err);
    case BASALT_AVRO_RECORD:
        if (v->count != n->count)
            return misfit(err, n, "wrong number of fields");
        for (uint32_t i = 0; i < n->count; i++) {
            if (v->items[i].node != n->fields[i].type)
                return misfit(err, n, "field value of another type");
            if ((st = encode(&v->items[i], out, depth - 1, err)) != BASALT_OK)
                return basalt_error_context(err, st, "field '%s'", n->fields[i].name);
        }
        return BASALT_OK;
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP:
        if (v->count > INT64_MAX)
            return misfit(err, n, "too many items");
        if (v->count) {
            if ((st = basalt_avro_put_long(out, (int64_t)v->count, err)) != BASALT_OK)
                return st;
            for (size_t i = 0; i < v->count; i++) {
                const struct basalt_avro_value *item = &v->items[i];
                if (n->type == BASALT_AVRO_MAP) {
                    const struct basalt_avro_entry *e = &v->entries[i];
                    if ((st = basalt_avro_put_bytes(out, e->key, e->key_size, err)) != BASALT_OK)
                        return st;
                    item = &e->value;
                }
                if (item->node != n->items)
                    return misfit(err, n, "item of another type");
                if ((st = encode(item, out, depth - 1, err)) != BASALT_OK)
                    return st;
            }
        }
        return basalt_avro_put_long(out, 0, err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "unknown node type");
}

basalt_status basalt_avro_value_encode(const struct basalt_avro_value *value,
                                       struct basalt_buffer *out, struct basalt_error *err)
{
    if (!value || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_encode: NULL argument");
    size_t mark = out->size;
    basalt_status st = encode(value, out, 1024, err);
    if (st != BASALT_OK)
        out->size = mark;
    return st;
}
