/* Avro records into Arrow: the converter's builder tree (arrow_types.c) is
 * fed by walking the resolution's action graph over the encoded records. */
#include "avro_arrow.h"
#include "avro_ocf.h"

/* ------------------------------------------------------------------ values */

/* Big-endian two's complement (Avro decimals) to `width` bytes little-endian. */
static basalt_status decimal_bytes(const uint8_t *be, size_t n, size_t width, uint8_t *le,
                                   struct basalt_error *err)
{
    uint8_t sign = n && (be[0] & 0x80) ? 0xff : 0x00;
    if (n > width) {
        for (size_t i = 0; i < n - width; i++)
            if (be[i] != sign)
                return basalt_error_set(err, BASALT_CORRUPT, "decimal of %zu bytes overflows %zu",
                                        n, width);
        be += n - width;
        n = width;
    }
    memset(le, sign, width);
    for (size_t i = 0; i < n; i++)
        le[i] = be[n - 1 - i];
    return BASALT_OK;
}

/* Appends a primitive, fixed or enum value already decoded. */
static basalt_status append_scalar(struct basalt_arrow_builder *b, const struct basalt_avro_node *r,
                                   int64_t i, double d, bool boolean, const uint8_t *bytes,
                                   size_t size, struct basalt_error *err)
{
    switch (r->type) {
    case BASALT_AVRO_NULL:
        return basalt_arrow_builder_append_null(b, err);
    case BASALT_AVRO_BOOLEAN:
        return basalt_arrow_builder_append_bool(b, boolean, err);
    case BASALT_AVRO_INT:
    case BASALT_AVRO_LONG:
    case BASALT_AVRO_ENUM:
        return basalt_arrow_builder_append_int(b, i, err);
    case BASALT_AVRO_FLOAT:
    case BASALT_AVRO_DOUBLE:
        return basalt_arrow_builder_append_double(b, d, err);
    case BASALT_AVRO_STRING:
        return basalt_arrow_builder_append_bytes(b, bytes, (int64_t)size, err);
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_FIXED:
        if (r->logical == BASALT_AVRO_LOGICAL_DECIMAL) {
            uint8_t le[32];
            size_t width = r->precision <= 38 ? 16 : 32;
            basalt_status st = decimal_bytes(bytes, size, width, le, err);
            return st == BASALT_OK ? basalt_arrow_builder_append_bytes(b, le, (int64_t)width, err)
                                   : st;
        }
        if (r->logical == BASALT_AVRO_LOGICAL_DURATION && size == 12) {
            /* months, days, milliseconds (uint32 each) -> months, days, nanoseconds */
            uint8_t v[16];
            uint32_t ms = avro_load_u32le(bytes + 8);
            int64_t ns = (int64_t)ms * 1000000;
            memcpy(v, bytes, 8);
            for (int k = 0; k < 8; k++)
                v[8 + k] = (uint8_t)((uint64_t)ns >> (8 * k));
            return basalt_arrow_builder_append_bytes(b, v, 16, err);
        }
        return basalt_arrow_builder_append_bytes(b, bytes, (int64_t)size, err);
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "not a scalar");
    }
}

struct adec {
    const uint8_t *start;
    const uint8_t *end;
    struct basalt_error *err;
};

static basalt_status bad(struct adec *a, const uint8_t *p, const char *what)
{
    return basalt_error_set(a->err, BASALT_CORRUPT, "truncated or malformed %s at byte %zu", what,
                            (size_t)(p - a->start));
}

static basalt_status append_value(struct basalt_arrow_builder *b, const struct basalt_avro_value *v,
                                  uint32_t depth, struct basalt_error *err);

/* Appends a reader node's builder the value of node `r` (the builder of a
 * nullable base type when r is a union). */
static basalt_status append_datum(struct adec *a, const struct avro_rnode *rn,
                                  struct basalt_arrow_builder *b, const uint8_t **pp,
                                  uint32_t depth)
{
    if (depth == 0)
        return basalt_error_set(a->err, BASALT_LIMIT, "value nested too deeply");
    basalt_status st;
    int64_t v;
    switch (rn->kind) {
    case AVRO_R_WUNION: {
        if (!avro_read_long(pp, a->end, &v))
            return bad(a, *pp, "union branch");
        if (v < 0 || v >= rn->w->count)
            return basalt_error_set(a->err, BASALT_CORRUPT,
                                    "union branch %lld out of range (%u branches) at byte %zu",
                                    (long long)v, rn->w->count, (size_t)(*pp - a->start));
        if (!rn->branches[v])
            return basalt_error_set(a->err, BASALT_CORRUPT,
                                    "the writer's union branch %lld cannot be read as the "
                                    "reader's type",
                                    (long long)v);
        return append_datum(a, rn->branches[v], b, pp, depth - 1);
    }
    case AVRO_R_RUNION:
        if (basalt_avro_arrow_is_union(rn->r)) {
            /* a dense union: the branch's child gets the value (or null) */
            if ((st = basalt_arrow_builder_append_union(b, rn->branch, a->err)) != BASALT_OK)
                return st;
            return append_datum(a, rn->child, basalt_arrow_builder_child(b, rn->branch), pp,
                                depth - 1);
        }
        if (rn->r->branches[rn->branch]->type == BASALT_AVRO_NULL)
            return basalt_arrow_builder_append_null(b, a->err);
        return append_datum(a, rn->child, b, pp, depth - 1);
    case AVRO_R_ENUM:
        if (!avro_read_long(pp, a->end, &v))
            return bad(a, *pp, "enum index");
        if (v < 0 || v >= rn->w->count)
            return basalt_error_set(a->err, BASALT_CORRUPT, "enum index %lld out of range",
                                    (long long)v);
        if (rn->enum_map[v] < 0)
            return basalt_error_set(a->err, BASALT_CORRUPT,
                                    "symbol '%s' is not in the reader's enum %s",
                                    rn->w->symbols[v], rn->r->name);
        return basalt_arrow_builder_append_int(b, rn->enum_map[v], a->err);
    case AVRO_R_ARRAY:
    case AVRO_R_MAP: {
        bool map = rn->kind == AVRO_R_MAP;
        struct basalt_arrow_builder *entries = basalt_arrow_builder_child(b, 0);
        struct basalt_arrow_builder *keys = map ? basalt_arrow_builder_child(entries, 0) : NULL;
        struct basalt_arrow_builder *items = map ? basalt_arrow_builder_child(entries, 1) : entries;
        for (;;) {
            int64_t count;
            if (!avro_read_long(pp, a->end, &count))
                return bad(a, *pp, "block count");
            if (count == 0)
                break;
            if (count < 0) {
                int64_t size;
                if (count == INT64_MIN || !avro_read_long(pp, a->end, &size) || size < 0)
                    return bad(a, *pp, "block size");
                count = -count;
            }
            if (!basalt_avro_node_zero_size(rn->w->items, 8) &&
                (uint64_t)count > (uint64_t)(a->end - *pp))
                return bad(a, *pp, "block count");
            for (int64_t i = 0; i < count; i++) {
                if (map) {
                    int64_t klen;
                    if (!avro_read_long(pp, a->end, &klen) || klen < 0 ||
                        (uint64_t)klen > (uint64_t)(a->end - *pp))
                        return bad(a, *pp, "map key");
                    if ((st = basalt_arrow_builder_append_bytes(keys, *pp, klen, a->err)) !=
                        BASALT_OK)
                        return st;
                    *pp += klen;
                }
                if ((st = append_datum(a, rn->child, items, pp, depth - 1)) != BASALT_OK)
                    return st;
            }
        }
        return basalt_arrow_builder_end_element(b, a->err);
    }
    case AVRO_R_RECORD:
        for (uint32_t i = 0; i < rn->w->count; i++) {
            const struct avro_rfield *f = &rn->fields[i];
            if (f->reader_index < 0)
                st = basalt_avro_skip(f->writer_type, pp, a->end, depth - 1, a->err);
            else
                st = append_datum(a, f->child, basalt_arrow_builder_child(b, f->reader_index), pp,
                                  depth - 1);
            if (st != BASALT_OK)
                return st;
        }
        for (uint32_t i = 0; i < rn->default_count; i++) {
            const struct avro_rdefault *d = &rn->defaults[i];
            st = append_value(basalt_arrow_builder_child(b, d->reader_index), &d->value, depth - 1,
                              a->err);
            if (st != BASALT_OK)
                return st;
        }
        return basalt_arrow_builder_end_element(b, a->err);
    case AVRO_R_SAME:
    case AVRO_R_PROMOTE:
        break;
    }
    /* A primitive or fixed, read as the writer wrote it. */
    const struct basalt_avro_node *w = rn->w;
    int64_t i = 0;
    double d = 0;
    bool boolean = false;
    const uint8_t *bytes = NULL;
    size_t size = 0;
    switch (w->type) {
    case BASALT_AVRO_NULL:
        break;
    case BASALT_AVRO_BOOLEAN:
        if (*pp >= a->end)
            return bad(a, *pp, "boolean");
        boolean = **pp == 1;
        (*pp)++;
        break;
    case BASALT_AVRO_INT: {
        int32_t x;
        if (!avro_read_int(pp, a->end, &x))
            return bad(a, *pp, "int");
        i = x;
        d = rn->r->type == BASALT_AVRO_FLOAT ? (double)(float)x : (double)x;
        break;
    }
    case BASALT_AVRO_LONG:
        if (!avro_read_long(pp, a->end, &i))
            return bad(a, *pp, "long");
        d = rn->r->type == BASALT_AVRO_FLOAT ? (double)(float)i : (double)i;
        break;
    case BASALT_AVRO_FLOAT:
        if (a->end - *pp < 4)
            return bad(a, *pp, "float");
        d = (double)avro_load_float(*pp);
        *pp += 4;
        break;
    case BASALT_AVRO_DOUBLE:
        if (a->end - *pp < 8)
            return bad(a, *pp, "double");
        d = avro_load_double(*pp);
        *pp += 8;
        break;
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        if (!avro_read_long(pp, a->end, &v) || v < 0 || (uint64_t)v > (uint64_t)(a->end - *pp))
            return bad(a, *pp, basalt_avro_type_name(w->type));
        bytes = *pp;
        size = (size_t)v;
        *pp += v;
        break;
    case BASALT_AVRO_FIXED:
        if ((uint64_t)w->size > (uint64_t)(a->end - *pp))
            return bad(a, *pp, "fixed");
        bytes = *pp;
        size = (size_t)w->size;
        *pp += size;
        break;
    default:
        return basalt_error_set(a->err, BASALT_INTERNAL, "unexpected writer type");
    }
    return append_scalar(b, rn->r, i, d, boolean, bytes, size, a->err);
}

/* Default values (reader-only fields). */
static basalt_status append_value(struct basalt_arrow_builder *b, const struct basalt_avro_value *v,
                                  uint32_t depth, struct basalt_error *err)
{
    if (depth == 0)
        return basalt_error_set(err, BASALT_LIMIT, "default nested too deeply");
    const struct basalt_avro_node *n = v->node;
    basalt_status st;
    switch (n->type) {
    case BASALT_AVRO_UNION:
        if (basalt_avro_arrow_is_union(n)) {
            if ((st = basalt_arrow_builder_append_union(b, v->index, err)) != BASALT_OK)
                return st;
            return append_value(basalt_arrow_builder_child(b, v->index), v->branch, depth - 1,
                                err);
        }
        if (v->branch->node->type == BASALT_AVRO_NULL)
            return basalt_arrow_builder_append_null(b, err);
        return append_value(b, v->branch, depth - 1, err);
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP: {
        struct basalt_arrow_builder *entries = basalt_arrow_builder_child(b, 0);
        bool map = n->type == BASALT_AVRO_MAP;
        for (size_t i = 0; i < v->count; i++) {
            if (map) {
                st = basalt_arrow_builder_append_bytes(basalt_arrow_builder_child(entries, 0),
                                                       v->entries[i].key,
                                                       (int64_t)v->entries[i].key_size, err);
                if (st == BASALT_OK)
                    st = append_value(basalt_arrow_builder_child(entries, 1), &v->entries[i].value,
                                      depth - 1, err);
            } else {
                st = append_value(entries, &v->items[i], depth - 1, err);
            }
            if (st != BASALT_OK)
                return st;
        }
        return basalt_arrow_builder_end_element(b, err);
    }
    case BASALT_AVRO_RECORD:
        for (size_t i = 0; i < v->count; i++)
            if ((st = append_value(basalt_arrow_builder_child(b, (int64_t)i), &v->items[i],
                                   depth - 1, err)) != BASALT_OK)
                return st;
        return basalt_arrow_builder_end_element(b, err);
    default: {
        /* only the member that the type uses is read */
        enum basalt_avro_type t = n->type;
        bool text = t == BASALT_AVRO_STRING || t == BASALT_AVRO_BYTES || t == BASALT_AVRO_FIXED;
        int64_t i = t == BASALT_AVRO_ENUM                           ? (int64_t)v->index
                    : t == BASALT_AVRO_INT || t == BASALT_AVRO_LONG ? v->i
                                                                    : 0;
        double d = t == BASALT_AVRO_FLOAT ? (double)v->f : t == BASALT_AVRO_DOUBLE ? v->d : 0;
        bool boolean = t == BASALT_AVRO_BOOLEAN && v->boolean;
        return append_scalar(b, n, i, d, boolean, text ? v->bytes.data : NULL,
                             text ? v->bytes.size : 0, err);
    }
    }
}

/* ------------------------------------------------------------------ converter */

basalt_status basalt_avro_arrow_new(const struct basalt_avro_schema *writer,
                                    const struct basalt_avro_schema *reader,
                                    const char *const *fields, size_t field_count,
                                    struct basalt_avro_arrow **out, struct basalt_error *err)
{
    if (!writer || !out || (!fields && field_count))
        return basalt_error_set(err, BASALT_INVALID_ARG, "arrow_new: NULL argument");
    *out = NULL;
    const struct basalt_avro_schema *rs = reader ? reader : writer;
    const struct basalt_avro_node *root = rs->root;
    if (root->type != BASALT_AVRO_RECORD)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "arrow_new: the root of the schema is not a record");
    struct basalt_avro_arrow *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory converting to Arrow");
    basalt_arena_init(&c->arena, 8192);
    basalt_buffer_init(&c->dicts);
    basalt_avro_limits_resolve(NULL, &c->lim);
    struct avro_rnode *rn = NULL;
    basalt_status st = basalt_avro_resolve_nodes(&c->arena, writer->root, root, &rn, err);
    c->root = rn;
    if (st == BASALT_OK && rn->kind != AVRO_R_RECORD)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "arrow_new: the writer's root is not a record");
    if (st == BASALT_OK) {
        c->child_of = basalt_arena_alloc(&c->arena, sizeof *c->child_of * (root->count + 1), 8);
        if (!c->child_of)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory converting to Arrow");
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_new("+s", "", 0, &c->top, err);
    int32_t next = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < root->count; i++) {
        bool selected = !fields;
        for (size_t k = 0; !selected && k < field_count; k++)
            selected = fields[k] && strcmp(fields[k], root->fields[i].name) == 0;
        c->child_of[i] = selected ? next++ : -1;
        if (selected) {
            struct basalt_arrow_builder *child;
            st = basalt_avro_arrow_builder(c, c->top, root->fields[i].type, root->fields[i].name, false, 0,
                              &child, err);
        }
    }
    for (size_t k = 0; st == BASALT_OK && k < field_count; k++)
        if (basalt_avro_node_field_index(root, fields[k]) < 0)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "arrow_new: no field '%s'", fields[k]);
    if (st == BASALT_OK)
        st = basalt_avro_arrow_dictionaries(c, err);
    if (st != BASALT_OK) {
        basalt_avro_arrow_free(c);
        return st;
    }
    *out = c;
    return BASALT_OK;
}

void basalt_avro_arrow_free(struct basalt_avro_arrow *conv)
{
    if (!conv)
        return;
    basalt_arrow_builder_free(conv->top);
    basalt_buffer_reset(&conv->dicts);
    basalt_arena_reset(&conv->arena);
    basalt_free(conv);
}

/* One record: the selected fields into the top struct's children. */
static basalt_status append_record(struct basalt_avro_arrow *c, struct adec *a, const uint8_t **pp)
{
    const struct avro_rnode *rn = c->root;
    uint32_t depth = c->lim.max_depth;
    basalt_status st;
    for (uint32_t i = 0; i < rn->w->count; i++) {
        const struct avro_rfield *f = &rn->fields[i];
        int32_t child = f->reader_index >= 0 ? c->child_of[f->reader_index] : -1;
        if (child < 0)
            st = basalt_avro_skip(f->writer_type, pp, a->end, depth - 1, a->err);
        else
            st = append_datum(a, f->child, basalt_arrow_builder_child(c->top, child), pp, depth - 1);
        if (st != BASALT_OK)
            return st;
    }
    for (uint32_t i = 0; i < rn->default_count; i++) {
        int32_t child = c->child_of[rn->defaults[i].reader_index];
        if (child >= 0 && (st = append_value(basalt_arrow_builder_child(c->top, child),
                                             &rn->defaults[i].value, depth - 1, a->err)) != BASALT_OK)
            return st;
    }
    return basalt_arrow_builder_end_element(c->top, a->err);
}

basalt_status basalt_avro_arrow_decode(struct basalt_avro_arrow *conv, const uint8_t *data,
                                       size_t len, int64_t count, size_t *consumed,
                                       struct basalt_error *err)
{
    static const uint8_t empty[1];
    if (!conv || (!data && len) || count < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "arrow_decode: bad argument");
    if (!data)
        data = empty;
    struct adec a = {.start = data, .end = data + len, .err = err};
    const uint8_t *p = data;
    for (int64_t r = 0; r < count; r++) {
        basalt_status st = append_record(conv, &a, &p);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "record %lld", (long long)r);
        conv->rows++;
    }
    if (consumed)
        *consumed = (size_t)(p - data);
    return BASALT_OK;
}

int64_t basalt_avro_arrow_length(const struct basalt_avro_arrow *conv)
{
    return basalt_arrow_builder_length(conv->top);
}

basalt_status basalt_avro_arrow_finish(struct basalt_avro_arrow *conv, struct ArrowSchema *schema,
                                       struct ArrowArray *array, struct basalt_error *err)
{
    if (!conv || !array)
        return basalt_error_set(err, BASALT_INVALID_ARG, "arrow_finish: NULL argument");
    basalt_status st = basalt_arrow_builder_finish(conv->top, schema, array, err);
    if (st != BASALT_OK)
        return st;
    /* The next batch starts with every dictionary again. */
    st = basalt_avro_arrow_dictionaries(conv, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(array);
        if (schema)
            basalt_arrow_schema_release(schema);
    }
    return st;
}

basalt_status basalt_avro_reader_read_arrow(struct basalt_avro_reader *reader,
                                            struct basalt_avro_arrow *conv, int64_t max,
                                            int64_t *count, struct basalt_error *err)
{
    if (!reader || !conv || !count || max < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_read_arrow: bad argument");
    *count = 0;
    while (*count < max) {
        if (!reader->in_block || reader->cur_left == 0) {
            if (reader->in_block && reader->cur_p != reader->cur.data + reader->cur.size)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "block %lld at offset %llu: bytes left after its records",
                                        (long long)reader->cur.index,
                                        (unsigned long long)reader->cur.offset);
            struct basalt_avro_block b;
            bool has;
            basalt_status st = basalt_avro_reader_next_block(reader, &b, &has, err);
            if (st != BASALT_OK)
                return st;
            if (!has)
                break;
            reader->cur = b;
            reader->cur_p = b.data;
            reader->cur_left = b.count;
            reader->in_block = true;
            continue;
        }
        int64_t n = reader->cur_left < max - *count ? reader->cur_left : max - *count;
        size_t used = 0;
        basalt_status st = basalt_avro_arrow_decode(conv, reader->cur_p,
                                                    (size_t)(reader->cur.data + reader->cur.size -
                                                             reader->cur_p),
                                                    n, &used, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "block %lld at offset %llu",
                                        (long long)reader->cur.index,
                                        (unsigned long long)reader->cur.offset);
        reader->cur_p += used;
        reader->cur_left -= n;
        *count += n;
    }
    return BASALT_OK;
}
