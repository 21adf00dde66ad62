/* Seeded random Avro schemas and values (see random_gen.h). */
#include <math.h>
#include <stdio.h>

#include "random_gen.h"

bool rg_avrocat_safe;

struct gen {
    struct bt_rng *rng;
    struct basalt_buffer *out;
    int names;
};

static void put(struct gen *g, const char *s) { basalt_buffer_append(g->out, s, strlen(s), NULL); }

static uint64_t below(struct gen *g, uint64_t n) { return bt_rng_below(g->rng, n); }

static const char *const primitives[] = {"null", "boolean", "int",   "long",
                                         "float", "double", "bytes", "string"};

static void gen_type(struct gen *g, int depth, bool in_union);

static void gen_named(struct gen *g, const char *kind, char *name, size_t cap)
{
    snprintf(name, cap, "%s%d", kind, g->names++);
}

static void gen_record(struct gen *g, int depth)
{
    char name[32];
    gen_named(g, "R", name, sizeof name);
    put(g, "{\"type\":\"record\",\"name\":\"");
    put(g, name);
    put(g, "\",\"fields\":[");
    int n = 1 + (int)below(g, depth > 0 ? 6 : 4);
    for (int i = 0; i < n; i++) {
        char f[48];
        snprintf(f, sizeof f, "%s{\"name\":\"f%d\",\"type\":", i ? "," : "", i);
        put(g, f);
        gen_type(g, depth - 1, false);
        put(g, "}");
    }
    put(g, "]}");
}

static void gen_type(struct gen *g, int depth, bool in_union)
{
    uint64_t k = below(g, depth > 0 ? 16 : 10);
    char buf[160];
    switch (k) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5: {
        const char *p = primitives[below(g, 8)];
        if (in_union && strcmp(p, "null") == 0)
            p = "long";
        snprintf(buf, sizeof buf, "\"%s\"", p);
        put(g, buf);
        return;
    }
    case 6: {
        static const char *const logical[] = {
            "{\"type\":\"int\",\"logicalType\":\"date\"}",
            "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}",
            "{\"type\":\"string\",\"logicalType\":\"uuid\"}",
            "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}"};
        put(g, logical[below(g, 4)]);
        return;
    }
    case 7: {
        char name[32];
        gen_named(g, "E", name, sizeof name);
        snprintf(buf, sizeof buf, "{\"type\":\"enum\",\"name\":\"%s\",\"symbols\":[\"A\",\"B\",\"C\"%s]}",
                 name, below(g, 2) ? ",\"D\"" : "");
        put(g, buf);
        return;
    }
    case 8: {
        char name[32];
        gen_named(g, "F", name, sizeof name);
        snprintf(buf, sizeof buf, "{\"type\":\"fixed\",\"name\":\"%s\",\"size\":%d}", name,
                 (int)below(g, 9));
        put(g, buf);
        return;
    }
    case 9:
        if (!in_union) {
            /* an optional primitive, the commonest union */
            bool first = below(g, 4) != 0;
            const char *p = primitives[1 + below(g, 7)];
            snprintf(buf, sizeof buf, first ? "[\"null\",\"%s\"]" : "[\"%s\",\"null\"]", p);
            put(g, buf);
            return;
        }
        put(g, "\"string\"");
        return;
    case 10:
    case 11:
        put(g, k == 10 ? "{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":");
        gen_type(g, depth - 1, false);
        put(g, "}");
        return;
    case 12:
    case 13:
        gen_record(g, depth - 1);
        return;
    default:
        if (in_union) {
            put(g, "\"int\"");
            return;
        }
        /* a union of distinct kinds */
        put(g, "[\"null\",");
        if (below(g, 2))
            gen_record(g, depth - 1);
        else
            put(g, "{\"type\":\"array\",\"items\":\"int\"}");
        put(g, below(g, 2) ? ",\"string\",\"double\"]" : ",\"long\"]");
        return;
    }
}

void rg_schema_json(struct bt_rng *rng, int max_depth, struct basalt_buffer *out)
{
    struct gen g = {.rng = rng, .out = out};
    gen_record(&g, max_depth);
}

static void *alloc(struct basalt_arena *arena, size_t size)
{
    void *p = basalt_arena_alloc(arena, size ? size : 1, 8);
    memset(p, 0, size ? size : 1);
    return p;
}

static void random_bytes(struct bt_rng *rng, struct basalt_arena *arena, size_t n, bool text,
                         struct basalt_avro_value *out)
{
    uint8_t *p = alloc(arena, n + 4);
    size_t i = 0;
    while (i < n) {
        if (!text) {
            p[i++] = (uint8_t)(rg_avrocat_safe ? 1 + bt_rng_below(rng, 255) : bt_rng_below(rng, 256));
        } else if (bt_rng_below(rng, 8) == 0 && i + 2 <= n) {
            /* a two-byte character (U+0080..U+07FF) */
            uint32_t cp = 0x80 + (uint32_t)bt_rng_below(rng, 0x780);
            p[i++] = (uint8_t)(0xc0 | (cp >> 6));
            p[i++] = (uint8_t)(0x80 | (cp & 0x3f));
        } else {
            p[i++] = (uint8_t)(0x20 + bt_rng_below(rng, 0x5f));
        }
    }
    out->bytes.data = p;
    out->bytes.size = i;
}

static int64_t random_long(struct bt_rng *rng)
{
    switch (bt_rng_below(rng, 4)) {
    case 0:
        return (int64_t)bt_rng_below(rng, 100) - 50;
    case 1:
        return (int64_t)bt_rng_next(rng);
    case 2:
        return bt_rng_below(rng, 2) ? INT64_MAX : INT64_MIN;
    default:
        return (int64_t)bt_rng_below(rng, 1u << 20) - (1 << 19);
    }
}

static double random_double(struct bt_rng *rng)
{
    switch (bt_rng_below(rng, rg_avrocat_safe ? 2 : 8)) {
    case 0:
        return (double)bt_rng_below(rng, 1000) / 8;
    case 1: {
        uint64_t u = bt_rng_next(rng);
        double d;
        memcpy(&d, &u, 8);
        return isnan(d) || isinf(d) ? 0.5 : d;
    }
    case 2:
        return bt_rng_below(rng, 2) ? INFINITY : -INFINITY;
    case 3:
        return NAN;
    case 4:
        return -0.0;
    default:
        return ((double)bt_rng_next(rng) / 18446744073709551616.0 - 0.5) * 1e6;
    }
}

void rg_value(struct bt_rng *rng, const struct basalt_avro_node *n, struct basalt_arena *arena,
              int depth, struct basalt_avro_value *out)
{
    memset(out, 0, sizeof *out);
    out->node = n;
    switch (n->type) {
    case BASALT_AVRO_NULL:
        return;
    case BASALT_AVRO_BOOLEAN:
        out->boolean = bt_rng_below(rng, 2);
        return;
    case BASALT_AVRO_INT:
        out->i = (int32_t)random_long(rng);
        return;
    case BASALT_AVRO_LONG:
        out->i = random_long(rng);
        return;
    case BASALT_AVRO_FLOAT:
        out->f = (float)random_double(rng);
        if (rg_avrocat_safe && isinf(out->f))
            out->f = 0.25f;
        return;
    case BASALT_AVRO_DOUBLE:
        out->d = random_double(rng);
        return;
    case BASALT_AVRO_BYTES:
        random_bytes(rng, arena, bt_rng_below(rng, 12), false, out);
        return;
    case BASALT_AVRO_STRING:
        random_bytes(rng, arena, bt_rng_below(rng, 40), true, out);
        return;
    case BASALT_AVRO_FIXED:
        random_bytes(rng, arena, (size_t)n->size, false, out);
        return;
    case BASALT_AVRO_ENUM:
        out->index = (uint32_t)bt_rng_below(rng, n->count);
        return;
    case BASALT_AVRO_UNION:
        out->index = (uint32_t)bt_rng_below(rng, n->count);
        if (depth <= 0) /* prefer a null branch deep down */
            for (uint32_t i = 0; i < n->count; i++)
                if (n->branches[i]->type == BASALT_AVRO_NULL)
                    out->index = i;
        out->branch = alloc(arena, sizeof *out->branch);
        rg_value(rng, n->branches[out->index], arena, depth - 1, out->branch);
        return;
    case BASALT_AVRO_RECORD:
        out->count = n->count;
        out->items = alloc(arena, sizeof *out->items * n->count);
        for (uint32_t i = 0; i < n->count; i++)
            rg_value(rng, n->fields[i].type, arena, depth - 1, &out->items[i]);
        return;
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP: {
        size_t count = depth > 0 ? bt_rng_below(rng, 5) : 0;
        out->count = count;
        if (n->type == BASALT_AVRO_ARRAY) {
            out->items = alloc(arena, sizeof *out->items * count);
            for (size_t i = 0; i < count; i++)
                rg_value(rng, n->items, arena, depth - 1, &out->items[i]);
        } else {
            out->entries = alloc(arena, sizeof *out->entries * count);
            for (size_t i = 0; i < count; i++) {
                char *key = alloc(arena, 32);
                snprintf(key, 32, "k%zu", i);
                out->entries[i].key = (const uint8_t *)key;
                out->entries[i].key_size = strlen(key);
                rg_value(rng, n->items, arena, depth - 1, &out->entries[i].value);
            }
        }
        return;
    }
    }
}
