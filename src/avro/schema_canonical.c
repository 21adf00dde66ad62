/* Parsing Canonical Form and the CRC-64-AVRO fingerprint (specification,
 * "Schema Fingerprints"). */
#include <stdio.h>

#include "avro_internal.h"

#define AVRO_FP_EMPTY 0xc15d213aa4d7a795ull

static uint64_t fp_table[256];
static bool fp_ready;

static void fp_init(void)
{
    /* Idempotent: concurrent first calls compute the same table. */
    for (int i = 0; i < 256; i++) {
        uint64_t fp = (uint64_t)i;
        for (int j = 0; j < 8; j++)
            fp = (fp >> 1) ^ (AVRO_FP_EMPTY & (0 - (fp & 1)));
        __atomic_store_n(&fp_table[i], fp, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&fp_ready, true, __ATOMIC_RELEASE);
}

uint64_t basalt_avro_fingerprint64(const void *data, size_t len)
{
    if (!__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE))
        fp_init();
    const uint8_t *p = data;
    uint64_t fp = AVRO_FP_EMPTY;
    for (size_t i = 0; i < len; i++)
        fp = (fp >> 8) ^ fp_table[(fp ^ p[i]) & 0xff];
    return fp;
}

basalt_status basalt_avro_json_string(struct basalt_buffer *out, const char *s, size_t len,
                                      struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(out, len + 2, err);
    if (st != BASALT_OK)
        return st;
    out->data[out->size++] = '"';
    size_t run = 0;
    for (size_t i = 0; i <= len; i++) {
        unsigned char c = i < len ? (unsigned char)s[i] : 0;
        bool plain = i < len && c >= 0x20 && c != '"' && c != '\\';
        if (plain)
            continue;
        if (i > run && (st = basalt_buffer_append(out, s + run, i - run, err)) != BASALT_OK)
            return st;
        run = i + 1;
        if (i == len)
            break;
        char esc[8];
        switch (c) {
        case '"': memcpy(esc, "\\\"", 3); break;
        case '\\': memcpy(esc, "\\\\", 3); break;
        case '\n': memcpy(esc, "\\n", 3); break;
        case '\t': memcpy(esc, "\\t", 3); break;
        case '\r': memcpy(esc, "\\r", 3); break;
        case '\b': memcpy(esc, "\\b", 3); break;
        case '\f': memcpy(esc, "\\f", 3); break;
        default: snprintf(esc, sizeof esc, "\\u%04x", c); break;
        }
        if ((st = avro_put(out, esc, err)) != BASALT_OK)
            return st;
    }
    return basalt_buffer_append(out, "\"", 1, err);
}

struct canon_ctx {
    struct basalt_buffer *out;
    uint8_t *seen;
    struct basalt_error *err;
};

static basalt_status canon_str(struct canon_ctx *c, const char *s)
{
    return basalt_avro_json_string(c->out, s, strlen(s), c->err);
}

#define PUT(lit)                                                                    \
    do {                                                                            \
        if ((st = avro_put(c->out, (lit), c->err)) != BASALT_OK)                    \
            return st;                                                              \
    } while (0)

static basalt_status canon_node(struct canon_ctx *c, const struct basalt_avro_node *n)
{
    basalt_status st;
    char num[32];
    switch (n->type) {
    case BASALT_AVRO_NULL:
    case BASALT_AVRO_BOOLEAN:
    case BASALT_AVRO_INT:
    case BASALT_AVRO_LONG:
    case BASALT_AVRO_FLOAT:
    case BASALT_AVRO_DOUBLE:
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        return canon_str(c, basalt_avro_type_name(n->type));
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP:
        PUT(n->type == BASALT_AVRO_ARRAY ? "{\"type\":\"array\",\"items\":"
                                         : "{\"type\":\"map\",\"values\":");
        if ((st = canon_node(c, n->items)) != BASALT_OK)
            return st;
        PUT("}");
        return BASALT_OK;
    case BASALT_AVRO_UNION:
        PUT("[");
        for (uint32_t i = 0; i < n->count; i++) {
            if (i)
                PUT(",");
            if ((st = canon_node(c, n->branches[i])) != BASALT_OK)
                return st;
        }
        PUT("]");
        return BASALT_OK;
    case BASALT_AVRO_RECORD:
    case BASALT_AVRO_ENUM:
    case BASALT_AVRO_FIXED:
        break;
    }
    if (c->seen[n->id])
        return canon_str(c, n->name);
    c->seen[n->id] = 1;
    PUT("{\"name\":");
    if ((st = canon_str(c, n->name)) != BASALT_OK)
        return st;
    if (n->type == BASALT_AVRO_FIXED) {
        snprintf(num, sizeof num, ",\"type\":\"fixed\",\"size\":%lld}", (long long)n->size);
        PUT(num);
        return BASALT_OK;
    }
    if (n->type == BASALT_AVRO_ENUM) {
        PUT(",\"type\":\"enum\",\"symbols\":[");
        for (uint32_t i = 0; i < n->count; i++) {
            if (i)
                PUT(",");
            if ((st = canon_str(c, n->symbols[i])) != BASALT_OK)
                return st;
        }
        PUT("]}");
        return BASALT_OK;
    }
    PUT(",\"type\":\"record\",\"fields\":[");
    for (uint32_t i = 0; i < n->count; i++) {
        PUT(i ? ",{\"name\":" : "{\"name\":");
        if ((st = canon_str(c, n->fields[i].name)) != BASALT_OK)
            return st;
        PUT(",\"type\":");
        if ((st = canon_node(c, n->fields[i].type)) != BASALT_OK)
            return st;
        PUT("}");
    }
    PUT("]}");
    return BASALT_OK;
}

basalt_status basalt_avro_canonical_build(struct basalt_avro_schema *schema,
                                          struct basalt_error *err)
{
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    uint8_t *seen = basalt_calloc(schema->node_count ? schema->node_count : 1, 1);
    if (!seen)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the canonical form");
    struct canon_ctx c = {.out = &out, .seen = seen, .err = err};
    basalt_status st = canon_node(&c, schema->root);
    basalt_free(seen);
    if (st == BASALT_OK) {
        schema->canonical = basalt_arena_strndup(&schema->arena, (const char *)out.data, out.size);
        if (!schema->canonical)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory for the canonical form");
        else {
            schema->canonical_len = out.size;
            schema->fingerprint = basalt_avro_fingerprint64(out.data, out.size);
        }
    }
    basalt_buffer_reset(&out);
    return st;
}

const char *basalt_avro_schema_canonical(const struct basalt_avro_schema *schema, size_t *len)
{
    if (len)
        *len = schema->canonical_len;
    return schema->canonical;
}

uint64_t basalt_avro_schema_fingerprint(const struct basalt_avro_schema *schema)
{
    return schema->fingerprint;
}
