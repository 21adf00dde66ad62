/* The Arrow types of Avro schema nodes, and the builder tree of a converter. */
#include <stdio.h>
#include <string.h>

#include "avro_arrow.h"

bool basalt_avro_arrow_is_union(const struct basalt_avro_node *n)
{
    if (n->type != BASALT_AVRO_UNION)
        return false;
    uint32_t non_null = 0;
    for (uint32_t i = 0; i < n->count; i++)
        non_null += n->branches[i]->type != BASALT_AVRO_NULL;
    return non_null >= 2;
}

/* The reader type a value is built as: a union of null and one type is that
 * type, nullable; a union of several types stays a union (nullable when one
 * branch is null). */
static const struct basalt_avro_node *arrow_base(const struct basalt_avro_node *n, bool *nullable)
{
    *nullable = false;
    if (n->type != BASALT_AVRO_UNION)
        return n;
    const struct basalt_avro_node *base = NULL;
    for (uint32_t i = 0; i < n->count; i++) {
        if (n->branches[i]->type == BASALT_AVRO_NULL)
            *nullable = true;
        else if (!base)
            base = n->branches[i];
    }
    if (basalt_avro_arrow_is_union(n))
        return n;
    return base ? base : n->branches[0];
}

static basalt_status format_of(const struct basalt_avro_node *n, char *buf, size_t cap,
                               struct basalt_error *err)
{
    const char *f = NULL;
    switch (n->type) {
    case BASALT_AVRO_NULL: f = "n"; break;
    case BASALT_AVRO_BOOLEAN: f = "b"; break;
    case BASALT_AVRO_INT:
        f = n->logical == BASALT_AVRO_LOGICAL_DATE          ? "tdD"
            : n->logical == BASALT_AVRO_LOGICAL_TIME_MILLIS ? "ttm"
                                                            : "i";
        break;
    case BASALT_AVRO_LONG: {
        /* Iceberg writes its timestamps without zone as timestamp-* with
         * "adjust-to-utc": false */
        const char *adjust = basalt_avro_node_prop(n, "adjust-to-utc");
        bool local = adjust && strcmp(adjust, "false") == 0;
        switch (n->logical) {
        case BASALT_AVRO_LOGICAL_TIME_MICROS: f = "ttu"; break;
        case BASALT_AVRO_LOGICAL_TIMESTAMP_MILLIS: f = local ? "tsm:" : "tsm:UTC"; break;
        case BASALT_AVRO_LOGICAL_TIMESTAMP_MICROS: f = local ? "tsu:" : "tsu:UTC"; break;
        case BASALT_AVRO_LOGICAL_TIMESTAMP_NANOS: f = local ? "tsn:" : "tsn:UTC"; break;
        case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS: f = "tsm:"; break;
        case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: f = "tsu:"; break;
        case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS: f = "tsn:"; break;
        default: f = "l"; break;
        }
        break;
    }
    case BASALT_AVRO_FLOAT: f = "f"; break;
    case BASALT_AVRO_DOUBLE: f = "g"; break;
    case BASALT_AVRO_STRING: f = "u"; break;
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_FIXED:
        if (n->logical == BASALT_AVRO_LOGICAL_DECIMAL) {
            snprintf(buf, cap, n->precision <= 38 ? "d:%d,%d" : "d:%d,%d,256", n->precision,
                     n->scale);
            return BASALT_OK;
        }
        if (n->type == BASALT_AVRO_BYTES)
            f = "z";
        else if (n->logical == BASALT_AVRO_LOGICAL_DURATION)
            f = "tin";
        else {
            snprintf(buf, cap, "w:%lld", (long long)n->size);
            return BASALT_OK;
        }
        break;
    case BASALT_AVRO_ENUM: f = "i"; break; /* dictionary indices */
    case BASALT_AVRO_ARRAY: f = "+l"; break;
    case BASALT_AVRO_MAP: f = "+m"; break;
    case BASALT_AVRO_RECORD: f = "+s"; break;
    case BASALT_AVRO_UNION: {
        /* "+ud:0,1,...": type code i is branch i */
        if (n->count > 127)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "a union of %u branches has no Arrow form (127 at most)",
                                    n->count);
        size_t w = (size_t)snprintf(buf, cap, "+ud:");
        for (uint32_t i = 0; i < n->count && w < cap; i++)
            w += (size_t)snprintf(buf + w, cap - w, i ? ",%u" : "%u", i);
        return BASALT_OK;
    }
    }
    snprintf(buf, cap, "%s", f);
    return BASALT_OK;
}

static basalt_status add_children(struct basalt_avro_arrow *c, struct basalt_arrow_builder *b,
                                  const struct basalt_avro_node *base, uint32_t depth,
                                  struct basalt_error *err);

basalt_status basalt_avro_arrow_builder(struct basalt_avro_arrow *c,
                                        struct basalt_arrow_builder *parent,
                                        const struct basalt_avro_node *n, const char *name,
                                        bool force_nullable, uint32_t depth,
                                        struct basalt_arrow_builder **out,
                                        struct basalt_error *err)
{
    if (depth > 64)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "recursive or deeply nested types have no Arrow form");
    bool nullable;
    const struct basalt_avro_node *base = arrow_base(n, &nullable);
    char format[512]; /* "+ud:0,1,...,126" at most */
    basalt_status st = format_of(base, format, sizeof format, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "field '%s'", name ? name : "");
    int64_t flags = nullable || force_nullable ? ARROW_FLAG_NULLABLE : 0;
    st = parent ? basalt_arrow_builder_add_child(parent, format, name, flags, out, err)
                : basalt_arrow_builder_new(format, name, flags, out, err);
    if (st != BASALT_OK)
        return st;
    if (base->type == BASALT_AVRO_ENUM) {
        struct avro_dict d = {.node = base};
        if ((st = basalt_arrow_builder_add_dictionary(*out, "u", &d.values, err)) != BASALT_OK)
            return st;
        if ((st = basalt_buffer_append(&c->dicts, &d, sizeof d, err)) != BASALT_OK)
            return st;
    }
    return add_children(c, *out, base, depth, err);
}

static basalt_status add_children(struct basalt_avro_arrow *c, struct basalt_arrow_builder *b,
                                  const struct basalt_avro_node *base, uint32_t depth,
                                  struct basalt_error *err)
{
    struct basalt_arrow_builder *child;
    basalt_status st;
    switch (base->type) {
    case BASALT_AVRO_ARRAY:
        return basalt_avro_arrow_builder(c, b, base->items, "item", true, depth + 1, &child, err);
    case BASALT_AVRO_MAP:
        if ((st = basalt_arrow_builder_add_child(b, "u", "key", 0, &child, err)) != BASALT_OK)
            return st;
        return basalt_avro_arrow_builder(c, b, base->items, "value", true, depth + 1, &child, err);
    case BASALT_AVRO_RECORD:
        for (uint32_t i = 0; i < base->count; i++) {
            st = basalt_avro_arrow_builder(c, b, base->fields[i].type, base->fields[i].name, false, depth + 1,
                              &child, err);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    case BASALT_AVRO_UNION:
        /* one child per branch, named by its type ("int", a record's name) */
        for (uint32_t i = 0; i < base->count; i++) {
            const struct basalt_avro_node *br = base->branches[i];
            const char *name = br->short_name ? br->short_name : basalt_avro_type_name(br->type);
            st = basalt_avro_arrow_builder(c, b, br, name, br->type == BASALT_AVRO_NULL, depth + 1,
                                           &child, err);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    default:
        return BASALT_OK;
    }
}

basalt_status basalt_avro_arrow_dictionaries(struct basalt_avro_arrow *c, struct basalt_error *err)
{
    const struct avro_dict *d = (const struct avro_dict *)(const void *)c->dicts.data;
    for (size_t i = 0; i < c->dicts.size / sizeof *d; i++)
        for (uint32_t k = 0; k < d[i].node->count; k++) {
            basalt_status st = basalt_arrow_builder_append_string(d[i].values, d[i].node->symbols[k],
                                                                   err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
