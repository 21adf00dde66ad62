/* Binary decoding of one datum into a generic value tree. */
#include "avro_internal.h"

struct dec {
    const uint8_t *start;
    const uint8_t *end;
    struct basalt_arena *arena;
    struct avro_limits lim;
    uint64_t items; /* array items and map entries so far */
    struct basalt_error *err;
};

static basalt_status bad(struct dec *d, const uint8_t *p, const char *what)
{
    return basalt_error_set(d->err, BASALT_CORRUPT, "truncated or malformed %s at byte %zu",
                            what, (size_t)(p - d->start));
}

static basalt_status nomem(struct dec *d)
{
    return basalt_error_set(d->err, BASALT_NOMEM, "out of memory decoding a value");
}

static basalt_status decode(struct dec *d, const struct basalt_avro_node *n, const uint8_t **pp,
                            uint32_t depth, struct basalt_avro_value *out);

/* Arrays and maps: blocks of items, grown by doubling inside the arena. */
static basalt_status decode_blocks(struct dec *d, const struct basalt_avro_node *n,
                                   const uint8_t **pp, uint32_t depth,
                                   struct basalt_avro_value *out)
{
    bool map = n->type == BASALT_AVRO_MAP;
    size_t elem = map ? sizeof(struct basalt_avro_entry) : sizeof(struct basalt_avro_value);
    bool zero = !map && basalt_avro_node_zero_size(n->items, 8);
    uint8_t *items = NULL;
    size_t count = 0, cap = 0;
    for (;;) {
        int64_t block;
        if (!avro_read_long(pp, d->end, &block))
            return bad(d, *pp, "block count");
        if (block == 0)
            break;
        if (block < 0) {
            int64_t size;
            if (block == INT64_MIN || !avro_read_long(pp, d->end, &size) || size < 0)
                return bad(d, *pp, "block size");
            block = -block;
        }
        if (!zero && (uint64_t)block > (uint64_t)(d->end - *pp))
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "block claims %lld items but %zu bytes remain at byte %zu",
                                    (long long)block, (size_t)(d->end - *pp),
                                    (size_t)(*pp - d->start));
        if ((uint64_t)block > d->lim.max_items - d->items)
            return basalt_error_set(d->err, BASALT_LIMIT, "more than %llu items in a value",
                                    (unsigned long long)d->lim.max_items);
        d->items += (uint64_t)block;
        if (count + (size_t)block > cap) {
            size_t ncap = cap ? cap * 2 : 8;
            while (ncap < count + (size_t)block)
                ncap *= 2;
            uint8_t *grown = basalt_arena_alloc(d->arena, ncap * elem, 8);
            if (!grown)
                return nomem(d);
            if (count)
                memcpy(grown, items, count * elem);
            items = grown;
            cap = ncap;
        }
        for (int64_t i = 0; i < block; i++, count++) {
            struct basalt_avro_value *v;
            if (map) {
                struct basalt_avro_entry *e = (struct basalt_avro_entry *)(void *)items + count;
                int64_t klen;
                if (!avro_read_long(pp, d->end, &klen) || klen < 0 ||
                    (uint64_t)klen > (uint64_t)(d->end - *pp))
                    return bad(d, *pp, "map key");
                e->key = *pp;
                e->key_size = (size_t)klen;
                *pp += klen;
                v = &e->value;
            } else {
                v = (struct basalt_avro_value *)(void *)items + count;
            }
            basalt_status st = decode(d, n->items, pp, depth - 1, v);
            if (st != BASALT_OK)
                return st;
        }
    }
    out->count = count;
    if (map)
        out->entries = (struct basalt_avro_entry *)(void *)items;
    else
        out->items = (struct basalt_avro_value *)(void *)items;
    return BASALT_OK;
}

static basalt_status decode(struct dec *d, const struct basalt_avro_node *n, const uint8_t **pp,
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
    struct dec d = {.start = data, .end = data + len, .arena = arena, .err = err};
    basalt_avro_limits_resolve(limits, &d.lim);
    const uint8_t *p = data;
    basalt_status st = decode(&d, node, &p, d.lim.max_depth, out);
    if (st == BASALT_OK && consumed)
        *consumed = (size_t)(p - data);
    return st;
}
