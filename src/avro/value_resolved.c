/* Decoding a datum written with one schema into a value of another, by
 * following the resolution's action graph. */
#include "avro_resolve.h"

static basalt_status bad(struct avro_value_reader *d, const uint8_t *p, const char *what)
{
    return basalt_error_set(d->err, BASALT_CORRUPT, "truncated or malformed %s at byte %zu",
                            what, (size_t)(p - d->start));
}

static basalt_status nomem(struct avro_value_reader *d)
{
    return basalt_error_set(d->err, BASALT_NOMEM, "out of memory decoding a value");
}

/* Reads a primitive of the writer's type `w` and stores it as reader type `r`. */
static basalt_status read_primitive(struct avro_value_reader *d, const struct basalt_avro_node *w,
                                    const struct basalt_avro_node *r, const uint8_t **pp,
                                    struct basalt_avro_value *out)
{
    int64_t i = 0;
    double x = 0;
    const uint8_t *end = d->end;
    switch (w->type) {
    case BASALT_AVRO_NULL:
        return BASALT_OK;
    case BASALT_AVRO_BOOLEAN:
        if (*pp >= end)
            return bad(d, *pp, "boolean");
        out->boolean = **pp == 1;
        (*pp)++;
        return BASALT_OK;
    case BASALT_AVRO_INT: {
        int32_t v;
        if (!avro_read_int(pp, end, &v))
            return bad(d, *pp, "int");
        i = v;
        x = (double)v;
        break;
    }
    case BASALT_AVRO_LONG:
        if (!avro_read_long(pp, end, &i))
            return bad(d, *pp, "long");
        x = (double)i;
        break;
    case BASALT_AVRO_FLOAT:
        if (end - *pp < 4)
            return bad(d, *pp, "float");
        out->f = avro_load_float(*pp);
        x = (double)out->f;
        *pp += 4;
        break;
    case BASALT_AVRO_DOUBLE:
        if (end - *pp < 8)
            return bad(d, *pp, "double");
        x = avro_load_double(*pp);
        *pp += 8;
        break;
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING: {
        int64_t len;
        if (!avro_read_long(pp, end, &len) || len < 0 || (uint64_t)len > (uint64_t)(end - *pp))
            return bad(d, *pp, basalt_avro_type_name(w->type));
        out->bytes.data = *pp;
        out->bytes.size = (size_t)len;
        *pp += len;
        return BASALT_OK;
    }
    case BASALT_AVRO_FIXED:
        if ((uint64_t)w->size > (uint64_t)(end - *pp))
            return bad(d, *pp, "fixed");
        out->bytes.data = *pp;
        out->bytes.size = (size_t)w->size;
        *pp += w->size;
        return BASALT_OK;
    default:
        return basalt_error_set(d->err, BASALT_INTERNAL, "not a primitive");
    }
    switch (r->type) {
    case BASALT_AVRO_INT:
    case BASALT_AVRO_LONG:
        out->i = i;
        break;
    case BASALT_AVRO_FLOAT:
        out->f = (float)x;
        break;
    case BASALT_AVRO_DOUBLE:
        out->d = x;
        break;
    default:
        break;
    }
    return BASALT_OK;
}

static basalt_status rdecode(struct avro_value_reader *d, const struct avro_rnode *rn, const uint8_t **pp,
                             uint32_t depth, struct basalt_avro_value *out);

struct rdecode_item {
    struct avro_value_reader *d;
    const struct avro_rnode *rn;
    uint32_t depth;
};

static basalt_status rdecode_item(void *ctx, const uint8_t **pp, struct basalt_avro_value *v)
{
    struct rdecode_item *c = ctx;
    return rdecode(c->d, c->rn, pp, c->depth, v);
}

static basalt_status rdecode_blocks(struct avro_value_reader *d, const struct avro_rnode *rn,
                                    const uint8_t **pp, uint32_t depth,
                                    struct basalt_avro_value *out)
{
    struct rdecode_item c = {d, rn->child, depth - 1};
    bool map = rn->kind == AVRO_R_MAP;
    return basalt_avro_value_read_blocks(d, map,
                                         !map && basalt_avro_node_zero_size(rn->w->items, 8), pp,
                                         rdecode_item, &c, out);
}

static basalt_status rdecode(struct avro_value_reader *d, const struct avro_rnode *rn, const uint8_t **pp,
                             uint32_t depth, struct basalt_avro_value *out)
{
    if (depth == 0)
        return basalt_error_set(d->err, BASALT_LIMIT, "value nested deeper than %u levels",
                                d->lim.max_depth);
    memset(out, 0, sizeof *out);
    out->node = rn->r;
    int64_t v;
    basalt_status st;
    switch (rn->kind) {
    case AVRO_R_SAME:
    case AVRO_R_PROMOTE:
        return read_primitive(d, rn->w, rn->r, pp, out);
    case AVRO_R_ENUM:
        if (!avro_read_long(pp, d->end, &v))
            return bad(d, *pp, "enum index");
        if (v < 0 || v >= rn->w->count)
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "enum index %lld out of range (%u symbols) at byte %zu",
                                    (long long)v, rn->w->count, (size_t)(*pp - d->start));
        if (rn->enum_map[v] < 0)
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "symbol '%s' is not in the reader's enum %s, which has no "
                                    "default",
                                    rn->w->symbols[v], rn->r->name);
        out->index = (uint32_t)rn->enum_map[v];
        return BASALT_OK;
    case AVRO_R_ARRAY:
    case AVRO_R_MAP:
        return rdecode_blocks(d, rn, pp, depth, out);
    case AVRO_R_RECORD: {
        const struct basalt_avro_node *r = rn->r;
        out->count = r->count;
        out->items = basalt_arena_alloc(d->arena, sizeof *out->items * (r->count ? r->count : 1), 8);
        if (!out->items)
            return nomem(d);
        for (uint32_t i = 0; i < rn->w->count; i++) {
            const struct avro_rfield *f = &rn->fields[i];
            if (f->reader_index < 0)
                st = basalt_avro_skip(f->writer_type, pp, d->end, depth - 1, d->err);
            else
                st = rdecode(d, f->child, pp, depth - 1, &out->items[f->reader_index]);
            if (st != BASALT_OK)
                return st;
        }
        for (uint32_t i = 0; i < rn->default_count; i++)
            out->items[rn->defaults[i].reader_index] = rn->defaults[i].value;
        return BASALT_OK;
    }
    case AVRO_R_WUNION: {
        if (!avro_read_long(pp, d->end, &v))
            return bad(d, *pp, "union branch");
        if (v < 0 || v >= rn->w->count)
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "union branch %lld out of range (%u branches) at byte %zu",
                                    (long long)v, rn->w->count, (size_t)(*pp - d->start));
        const struct avro_rnode *b = rn->branches[v];
        if (!b) {
            const struct basalt_avro_node *wb = rn->w->branches[v];
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "the writer's union branch %lld (%s) cannot be read as the "
                                    "reader's %s",
                                    (long long)v, wb->name ? wb->name : basalt_avro_type_name(wb->type),
                                    rn->r->name ? rn->r->name : basalt_avro_type_name(rn->r->type));
        }
        return rdecode(d, b, pp, depth - 1, out);
    }
    case AVRO_R_RUNION:
        out->index = rn->branch;
        out->branch = basalt_arena_alloc(d->arena, sizeof *out->branch, 8);
        if (!out->branch)
            return nomem(d);
        return rdecode(d, rn->child, pp, depth - 1, out->branch);
    }
    return basalt_error_set(d->err, BASALT_INTERNAL, "unknown resolution action");
}

basalt_status basalt_avro_value_decode_resolved(const struct basalt_avro_resolution *resolution,
                                                const uint8_t *data, size_t len,
                                                const struct basalt_avro_limits *limits,
                                                struct basalt_arena *arena,
                                                struct basalt_avro_value *out, size_t *consumed,
                                                struct basalt_error *err)
{
    static const uint8_t empty[1];
    if (!resolution || !arena || !out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_decode_resolved: NULL argument");
    if (!data)
        data = empty;
    struct avro_value_reader d = {.start = data, .end = data + len, .arena = arena, .err = err};
    basalt_avro_limits_resolve(limits, &d.lim);
    const uint8_t *p = data;
    basalt_status st = rdecode(&d, resolution->root, &p, d.lim.max_depth, out);
    if (st == BASALT_OK && consumed)
        *consumed = (size_t)(p - data);
    return st;
}
