/* Skipping a datum of the writer's schema without building anything. */
#include "avro_internal.h"

bool basalt_avro_node_zero_size(const struct basalt_avro_node *node, uint32_t depth)
{
    if (depth == 0)
        return false;
    switch (node->type) {
    case BASALT_AVRO_NULL:
        return true;
    case BASALT_AVRO_FIXED:
        return node->size == 0;
    case BASALT_AVRO_RECORD:
        for (uint32_t i = 0; i < node->count; i++)
            if (!basalt_avro_node_zero_size(node->fields[i].type, depth - 1))
                return false;
        return true;
    default:
        return false;
    }
}

static basalt_status truncated(struct basalt_error *err, const char *what)
{
    return basalt_error_set(err, BASALT_CORRUPT, "truncated or malformed %s", what);
}

/* Skips the blocks of an array or map. */
static basalt_status skip_blocks(const struct basalt_avro_node *node, const uint8_t **pp,
                                 const uint8_t *end, uint32_t depth, struct basalt_error *err)
{
    bool map = node->type == BASALT_AVRO_MAP;
    bool zero = !map && basalt_avro_node_zero_size(node->items, 8);
    for (;;) {
        int64_t count;
        if (!avro_read_long(pp, end, &count))
            return truncated(err, map ? "map block count" : "array block count");
        if (count == 0)
            return BASALT_OK;
        if (count < 0) {
            int64_t size;
            if (count == INT64_MIN || !avro_read_long(pp, end, &size) || size < 0)
                return truncated(err, "block size");
            if ((uint64_t)size > (uint64_t)(end - *pp))
                return truncated(err, "block");
            *pp += size;
            continue;
        }
        if (zero)
            continue;
        if ((uint64_t)count > (uint64_t)(end - *pp))
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "block claims %lld items but %zu bytes remain",
                                    (long long)count, (size_t)(end - *pp));
        for (int64_t i = 0; i < count; i++) {
            if (map) {
                int64_t klen;
                if (!avro_read_long(pp, end, &klen) || klen < 0 ||
                    (uint64_t)klen > (uint64_t)(end - *pp))
                    return truncated(err, "map key");
                *pp += klen;
            }
            basalt_status st = basalt_avro_skip(node->items, pp, end, depth, err);
            if (st != BASALT_OK)
                return st;
        }
    }
}

basalt_status basalt_avro_skip(const struct basalt_avro_node *node, const uint8_t **pp,
                               const uint8_t *end, uint32_t depth, struct basalt_error *err)
{
    if (depth == 0)
        return basalt_error_set(err, BASALT_LIMIT, "value nested too deeply");
    int64_t v;
    switch (node->type) {
    case BASALT_AVRO_NULL:
        return BASALT_OK;
    case BASALT_AVRO_BOOLEAN:
        if (*pp >= end)
            return truncated(err, "boolean");
        (*pp)++;
        return BASALT_OK;
    case BASALT_AVRO_INT: {
        int32_t i;
        if (!avro_read_int(pp, end, &i))
            return truncated(err, "int");
        return BASALT_OK;
    }
    case BASALT_AVRO_LONG:
        if (!avro_read_long(pp, end, &v))
            return truncated(err, "long");
        return BASALT_OK;
    case BASALT_AVRO_FLOAT:
    case BASALT_AVRO_DOUBLE: {
        size_t n = node->type == BASALT_AVRO_FLOAT ? 4 : 8;
        if ((size_t)(end - *pp) < n)
            return truncated(err, basalt_avro_type_name(node->type));
        *pp += n;
        return BASALT_OK;
    }
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        if (!avro_read_long(pp, end, &v) || v < 0 || (uint64_t)v > (uint64_t)(end - *pp))
            return truncated(err, basalt_avro_type_name(node->type));
        *pp += v;
        return BASALT_OK;
    case BASALT_AVRO_FIXED:
        if ((uint64_t)node->size > (uint64_t)(end - *pp))
            return truncated(err, "fixed");
        *pp += node->size;
        return BASALT_OK;
    case BASALT_AVRO_ENUM:
        if (!avro_read_long(pp, end, &v))
            return truncated(err, "enum index");
        if (v < 0 || v >= node->count)
            return basalt_error_set(err, BASALT_CORRUPT, "enum index %lld out of range (%u symbols)",
                                    (long long)v, node->count);
        return BASALT_OK;
    case BASALT_AVRO_UNION:
        if (!avro_read_long(pp, end, &v))
            return truncated(err, "union branch");
        if (v < 0 || v >= node->count)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "union branch %lld out of range (%u branches)", (long long)v,
                                    node->count);
        return basalt_avro_skip(node->branches[v], pp, end, depth - 1, err);
    case BASALT_AVRO_RECORD:
        for (uint32_t i = 0; i < node->count; i++) {
            basalt_status st = basalt_avro_skip(node->fields[i].type, pp, end, depth - 1, err);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP:
        return skip_blocks(node, pp, end, depth - 1, err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "unknown node type");
}

basalt_status basalt_avro_value_skip(const struct basalt_avro_node *node, const uint8_t *data,
                                     size_t len, const struct basalt_avro_limits *limits,
                                     size_t *consumed, struct basalt_error *err)
{
    static const uint8_t empty[1];
    if (!node || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_skip: NULL argument");
    if (!data)
        data = empty;
    struct avro_limits lim;
    basalt_avro_limits_resolve(limits, &lim);
    const uint8_t *p = data;
    basalt_status st = basalt_avro_skip(node, &p, data + len, lim.max_depth, err);
    if (st == BASALT_OK && consumed)
        *consumed = (size_t)(p - data);
    return st;
}
