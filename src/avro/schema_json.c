/* The full JSON form of a parsed schema. */
#include <stdio.h>

#include "avro_internal.h"

struct json_ctx {
    const struct basalt_avro_schema *schema;
    struct basalt_buffer *out;
    uint8_t *seen;
    struct basalt_error *err;
};

#define PUT(lit)                                                                    \
    do {                                                                            \
        if ((st = avro_put(c->out, (lit), c->err)) != BASALT_OK)                    \
            return st;                                                              \
    } while (0)
#define STR(s)                                                                      \
    do {                                                                            \
        if ((st = basalt_avro_json_string(c->out, (s), strlen(s), c->err)) != BASALT_OK) \
            return st;                                                              \
    } while (0)

static basalt_status put_props(struct json_ctx *c, const struct basalt_avro_prop *props,
                               uint32_t n)
{
    basalt_status st;
    for (uint32_t i = 0; i < n; i++) {
        PUT(",");
        STR(props[i].key);
        PUT(":");
        PUT(props[i].json);
    }
    return BASALT_OK;
}

static basalt_status put_aliases(struct json_ctx *c, const char **aliases, uint32_t n)
{
    basalt_status st;
    if (n == 0)
        return BASALT_OK;
    PUT(",\"aliases\":[");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            PUT(",");
        STR(aliases[i]);
    }
    PUT("]");
    return BASALT_OK;
}

static basalt_status json_node(struct json_ctx *c, const struct basalt_avro_node *n,
                               const char *ns)
{
    basalt_status st;
    char num[48];
    bool named = n->name != NULL;
    if (named && c->seen[n->id]) {
        STR(strcmp(n->space, ns) == 0 ? n->short_name : n->name);
        return BASALT_OK;
    }
    if (n->type == BASALT_AVRO_UNION) {
        PUT("[");
        for (uint32_t i = 0; i < n->count; i++) {
            if (i)
                PUT(",");
            if ((st = json_node(c, n->branches[i], ns)) != BASALT_OK)
                return st;
        }
        PUT("]");
        return BASALT_OK;
    }
    bool primitive = n->type <= BASALT_AVRO_STRING;
    if (primitive && n->prop_count == 0) {
        STR(basalt_avro_type_name(n->type));
        return BASALT_OK;
    }
    PUT("{\"type\":");
    bool is_error = n->type == BASALT_AVRO_RECORD && c->schema->is_error[n->id];
    STR(is_error ? "error" : basalt_avro_type_name(n->type));
    if (named) {
        c->seen[n->id] = 1;
        PUT(",\"name\":");
        STR(n->short_name);
        if (strcmp(n->space, ns) != 0) {
            PUT(",\"namespace\":");
            STR(n->space);
        }
        if (n->doc) {
            PUT(",\"doc\":");
            STR(n->doc);
        }
        if ((st = put_aliases(c, n->aliases, n->alias_count)) != BASALT_OK)
            return st;
    }
    switch (n->type) {
    case BASALT_AVRO_RECORD:
        PUT(",\"fields\":[");
        for (uint32_t i = 0; i < n->count; i++) {
            const struct basalt_avro_field *f = &n->fields[i];
            PUT(i ? ",{\"name\":" : "{\"name\":");
            STR(f->name);
            PUT(",\"type\":");
            if ((st = json_node(c, f->type, n->space)) != BASALT_OK)
                return st;
            if (f->doc) {
                PUT(",\"doc\":");
                STR(f->doc);
            }
            if (f->default_json) {
                PUT(",\"default\":");
                PUT(f->default_json);
            }
            if (f->order != BASALT_AVRO_ORDER_ASCENDING)
                PUT(f->order == BASALT_AVRO_ORDER_DESCENDING ? ",\"order\":\"descending\""
                                                             : ",\"order\":\"ignore\"");
            if ((st = put_aliases(c, f->aliases, f->alias_count)) != BASALT_OK)
                return st;
            if ((st = put_props(c, f->props, f->prop_count)) != BASALT_OK)
                return st;
            PUT("}");
        }
        PUT("]");
        break;
    case BASALT_AVRO_ENUM:
        PUT(",\"symbols\":[");
        for (uint32_t i = 0; i < n->count; i++) {
            if (i)
                PUT(",");
            STR(n->symbols[i]);
        }
        PUT("]");
        if (n->enum_default >= 0) {
            PUT(",\"default\":");
            STR(n->symbols[n->enum_default]);
        }
        break;
    case BASALT_AVRO_FIXED:
        snprintf(num, sizeof num, ",\"size\":%lld", (long long)n->size);
        PUT(num);
        break;
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP:
        PUT(n->type == BASALT_AVRO_ARRAY ? ",\"items\":" : ",\"values\":");
        if ((st = json_node(c, n->items, ns)) != BASALT_OK)
            return st;
        break;
    default:
        break;
    }
    if ((st = put_props(c, n->props, n->prop_count)) != BASALT_OK)
        return st;
    PUT("}");
    return BASALT_OK;
}

/* Re-indents compact JSON text; strings are copied as they are. */
static basalt_status indent(const uint8_t *in, size_t len, struct basalt_buffer *out,
                            struct basalt_error *err)
{
    int depth = 0;
    bool in_string = false;
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < len && st == BASALT_OK; i++) {
        char ch = (char)in[i];
        if (in_string) {
            st = basalt_buffer_append(out, &ch, 1, err);
            if (ch == '\\' && i + 1 < len)
                st = basalt_buffer_append(out, &in[++i], 1, err);
            else if (ch == '"')
                in_string = false;
            continue;
        }
        char pad[2] = "\n";
        switch (ch) {
        case '"':
            in_string = true;
            st = basalt_buffer_append(out, &ch, 1, err);
            break;
        case '{':
        case '[': {
            /* Keep empty containers on one line. */
            char close = ch == '{' ? '}' : ']';
            if (i + 1 < len && in[i + 1] == (uint8_t)close) {
                char both[2] = {ch, close};
                st = basalt_buffer_append(out, both, 2, err);
                i++;
                break;
            }
            depth++;
            st = basalt_buffer_append(out, &ch, 1, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(out, pad, 1, err);
            for (int k = 0; k < depth && st == BASALT_OK; k++)
                st = basalt_buffer_append(out, "  ", 2, err);
            break;
        }
        case '}':
        case ']':
            depth--;
            st = basalt_buffer_append(out, pad, 1, err);
            for (int k = 0; k < depth && st == BASALT_OK; k++)
                st = basalt_buffer_append(out, "  ", 2, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(out, &ch, 1, err);
            break;
        case ',':
            st = basalt_buffer_append(out, ",\n", 2, err);
            for (int k = 0; k < depth && st == BASALT_OK; k++)
                st = basalt_buffer_append(out, "  ", 2, err);
            break;
        case ':':
            st = basalt_buffer_append(out, ": ", 2, err);
            break;
        default:
            st = basalt_buffer_append(out, &ch, 1, err);
            break;
        }
    }
    return st;
}

basalt_status basalt_avro_schema_to_json(const struct basalt_avro_schema *schema, bool pretty,
                                         struct basalt_buffer *out, struct basalt_error *err)
{
    uint8_t *seen = basalt_calloc(schema->node_count ? schema->node_count : 1, 1);
    if (!seen)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory writing a schema");
    struct basalt_buffer compact;
    basalt_buffer_init(&compact);
    struct json_ctx c = {.schema = schema, .out = pretty ? &compact : out, .seen = seen, .err = err};
    basalt_status st = json_node(&c, schema->root, "");
    if (st == BASALT_OK && pretty)
        st = indent(compact.data, compact.size, out, err);
    basalt_buffer_reset(&compact);
    basalt_free(seen);
    return st;
}
