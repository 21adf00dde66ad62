/* Binary decoding of one datum into a generic value tree. */
#include "avro_internal.h"

static basalt_status bad(struct avro_value_reader *d, const uint8_t *p, const char *what)
{
    return basalt_error_set(d->err, BASALT_CORRUPT, "truncated or malformed %s at byte %zu",
                            what, (size_t)(p - d->start));
}

static basalt_status nomem(struct avro_value_reader *d)
{
    return basalt_error_set(d->err, BASALT_NOMEM, "out of memory decoding a value");
}

static basalt_status decode(struct avro_value_reader *d, const struct basalt_avro_node *n, const uint8_t **pp,
                            uint32_t depth, struct basalt_avro_value *out);

/* Arrays and maps: one element is the item schema decoded one level deeper. */
struct decode_item {
    struct avro_value_reader *d;
    const struct basalt_avro_node *node;
    uint32_t depth;
};

static basalt_status decode_item(void *ctx, const uint8_t **pp, struct basalt_avro_value *v)
{
    struct decode_item *c = ctx;
    return decode(c->d, c->node, pp, c->depth, v);
}

static basalt_status decode_blocks(struct avro_value_reader *d, const struct basalt_avro_node *n,
                                   const uint8_t **pp, uint32_t depth,
                                   struct basalt_avro_value *out)
{
    struct decode_item c = {d, n->items, depth - 1};
    bool map = n->type == BASALT_AVRO_MAP;
    return basalt_avro_value_read_blocks(d, map, !map && basalt_avro_node_zero_size(n->items, 8),
                                         pp, decode_item, &c, out);
}

static basalt_status decode(struct avro_value_reader *d, const struct basalt_avro_node *n, const uint8_t **pp,
                            uint32_t depth, struct basalt_avro_value *out)
{
    if (depth == 0)
        return basalt_error_set(d->err, BASALT_LIMIT, "value nested deeper than %u levels",
                                d->lim.max_depth);
    memset(out, 0, sizeof *out);
    out->node = n;
    const uint8_t *end = d->end;
    int64_t v;
    switch (n->type) {
    case BASALT_AVRO_NULL:
        return BASALT_OK;
    case BASALT_AVRO_BOOLEAN:
        if (*pp >= end)
            return bad(d, *pp, "boolean");
        out->boolean = **pp == 1;
        (*pp)++;
        return BASALT_OK;
    case BASALT_AVRO_INT: {
        int32_t i;
        if (!avro_read_int(pp, end, &i))
            return bad(d, *pp, "int");
        out->i = i;
        return BASALT_OK;
    }
    case BASALT_AVRO_LONG:
        if (!avro_read_long(pp, end, &out->i))
            return bad(d, *pp, "long");
        return BASALT_OK;
    case BASALT_AVRO_FLOAT:
        if (end - *pp < 4)
            return bad(d, *pp, "float");
        out->f = avro_load_float(*pp);
        *pp += 4;
        return BASALT_OK;
    case BASALT_AVRO_DOUBLE:
        if (end - *pp < 8)
            return bad(d, *pp, "double");
        out->d = avro_load_double(*pp);
        *pp += 8;
        return BASALT_OK;
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        if (!avro_read_long(pp, end, &v) || v < 0 || (uint64_t)v > (uint64_t)(end - *pp))
            return bad(d, *pp, basalt_avro_type_name(n->type));
        out->bytes.data = *pp;
        out->bytes.size = (size_t)v;
        *pp += v;
        return BASALT_OK;
    case BASALT_AVRO_FIXED:
        if ((uint64_t)n->size > (uint64_t)(end - *pp))
            return bad(d, *pp, "fixed");
        out->bytes.data = *pp;
        out->bytes.size = (size_t)n->size;
        *pp += n->size;
        return BASALT_OK;
    case BASALT_AVRO_ENUM:
        if (!avro_read_long(pp, end, &v))
            return bad(d, *pp, "enum index");
        if (v < 0 || v >= n->count)
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "enum index %lld out of range (%u symbols) at byte %zu",
                                    (long long)v, n->count, (size_t)(*pp - d->start));
        out->index = (uint32_t)v;
        return BASALT_OK;
    case BASALT_AVRO_UNION:
        if (!avro_read_long(pp, end, &v))
            return bad(d, *pp, "union branch");
        if (v < 0 || v >= n->count)
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "union branch %lld out of range (%u branches) at byte %zu",
                                    (long long)v, n->count, (size_t)(*pp - d->start));
        out->index = (uint32_t)v;
        out->branch = basalt_arena_alloc(d->arena, sizeof *out->branch, 8);
        if (!out->branch)
            return nomem(d);
        return decode(d, n->branches[v], pp, depth - 1, out->branch);
    case BASALT_AVRO_RECORD:
        out->count = n->count;
        out->items = basalt_arena_alloc(d->arena, sizeof *out->items * (n->count ? n->count : 1), 8);
        if (!out->items)
            return nomem(d);
        for (uint32_t i = 0; i < n->count; i++) {
            basalt_status st = decode(d, n->fields[i].type, pp, depth - 1, &out->items[i]);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP:
        return decode_blocks(d, n, pp, depth, out);
    }
    return basalt_error_set(d->err, BASALT_INTERNAL, "unknown node type");
}

basalt_status basalt_avro_value_decode(const struct basalt_avro_node *node, const uint8_t *data,
                                       size_t len, const struct basalt_avro_limits *limits,
                                       struct basalt_arena *arena, struct basalt_avro_value *out,
                                       size_t *consumed, struct basalt_error *err)
{
    if (!node || !arena || !out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_decode: NULL argument");
    static const uint8_t empty[1];
    if (!data)
        data = empty;
    struct avro_value_reader d = {.start = data, .end = data + len, .arena = arena, .err = err};
    basalt_avro_limits_resolve(limits, &d.lim);
    const uint8_t *p = data;
    basalt_status st = decode(&d, node, &p, d.lim.max_depth, out);
    if (st == BASALT_OK && consumed)
        *consumed = (size_t)(p - data);
    return st;
}
