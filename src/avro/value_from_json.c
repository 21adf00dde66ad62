/* Values from JSON in the form of default values. */
#include <jansson.h>

#include "avro_internal.h"

struct fj {
    struct basalt_arena *arena;
    struct basalt_error *err;
};

static basalt_status misfit(struct fj *c, const struct basalt_avro_node *n, const char *why)
{
    return basalt_error_set(c->err, BASALT_CORRUPT, "JSON does not fit %s%s%s: %s",
                            basalt_avro_type_name(n->type), n->name ? " " : "",
                            n->name ? n->name : "", why);
}

static basalt_status nomem(struct fj *c)
{
    return basalt_error_set(c->err, BASALT_NOMEM, "out of memory converting JSON");
}

/* Decodes the code points of a UTF-8 string that must all be <= U+00FF. */
static basalt_status latin1_bytes(struct fj *c, const struct basalt_avro_node *n, json_t *j,
                                  struct basalt_avro_value *out)
{
    const uint8_t *s = (const uint8_t *)json_string_value(j);
    size_t len = json_string_length(j);
    uint8_t *buf = basalt_arena_alloc(c->arena, len ? len : 1, 1);
    if (!buf)
        return nomem(c);
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < 0x80) {
            buf[o++] = s[i];
        } else if ((s[i] == 0xc2 || s[i] == 0xc3) && i + 1 < len && (s[i + 1] & 0xc0) == 0x80) {
            buf[o++] = (uint8_t)(((s[i] & 0x03) << 6) | (s[i + 1] & 0x3f));
            i++;
        } else {
            return misfit(c, n, "a character above U+00FF in a byte string");
        }
    }
    out->bytes.data = buf;
    out->bytes.size = o;
    return BASALT_OK;
}

static basalt_status convert(struct fj *c, const struct basalt_avro_node *n, json_t *j,
                             uint32_t depth, struct basalt_avro_value *out);

static basalt_status convert_record(struct fj *c, const struct basalt_avro_node *n,
                                    json_t *j, uint32_t depth, struct basalt_avro_value *out)
{
    if (!json_is_object(j))
        return misfit(c, n, "not an object");
    out->count = n->count;
    out->items = basalt_arena_alloc(c->arena, sizeof *out->items * (n->count ? n->count : 1), 8);
    if (!out->items)
        return nomem(c);
    for (uint32_t i = 0; i < n->count; i++) {
        const struct basalt_avro_field *f = &n->fields[i];
        json_t *fv = json_object_get(j, f->name);
        basalt_status st;
        if (fv) {
            st = convert(c, f->type, fv, depth - 1, &out->items[i]);
        } else if (f->default_json) {
            json_t *def = json_loads(f->default_json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
            if (!def)
                return nomem(c);
            st = convert(c, f->type, def, depth - 1, &out->items[i]);
            json_decref(def);
        } else {
            return basalt_error_set(c->err, BASALT_CORRUPT,
                                    "JSON for record %s lacks field '%s', which has no default",
                                    n->name, f->name);
        }
        if (st != BASALT_OK)
            return basalt_error_context(c->err, st, "field '%s'", f->name);
    }
    return BASALT_OK;
}

static basalt_status convert(struct fj *c, const struct basalt_avro_node *n, json_t *j,
                             uint32_t depth, struct basalt_avro_value *out)
{
    if (depth == 0)
        return basalt_error_set(c->err, BASALT_LIMIT, "JSON value nested too deeply");
    memset(out, 0, sizeof *out);
    out->node = n;
    switch (n->type) {
    case BASALT_AVRO_NULL:
        return json_is_null(j) ? BASALT_OK : misfit(c, n, "not null");
    case BASALT_AVRO_BOOLEAN:
        if (!json_is_boolean(j))
            return misfit(c, n, "not a boolean");
        out->boolean = json_is_true(j);
        return BASALT_OK;
    case BASALT_AVRO_INT:
    case BASALT_AVRO_LONG:
        if (!json_is_integer(j))
            return misfit(c, n, "not an integer");
        out->i = (int64_t)json_integer_value(j);
        if (n->type == BASALT_AVRO_INT && (out->i < INT32_MIN || out->i > INT32_MAX))
            return misfit(c, n, "outside 32 bits");
        return BASALT_OK;
    case BASALT_AVRO_FLOAT:
    case BASALT_AVRO_DOUBLE:
        if (!json_is_number(j))
            return misfit(c, n, "not a number");
        if (n->type == BASALT_AVRO_FLOAT)
            out->f = (float)json_number_value(j);
        else
            out->d = json_number_value(j);
        return BASALT_OK;
    case BASALT_AVRO_STRING: {
        if (!json_is_string(j))
            return misfit(c, n, "not a string");
        size_t len = json_string_length(j);
        char *s = basalt_arena_strndup(c->arena, json_string_value(j), len);
        if (!s)
            return nomem(c);
        out->bytes.data = (const uint8_t *)s;
        out->bytes.size = len;
        return BASALT_OK;
    }
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_FIXED: {
        if (!json_is_string(j))
            return misfit(c, n, "not a string");
        basalt_status st = latin1_bytes(c, n, j, out);
        if (st == BASALT_OK && n->type == BASALT_AVRO_FIXED && out->bytes.size != (size_t)n->size)
            return misfit(c, n, "wrong length");
        return st;
    }
    case BASALT_AVRO_ENUM:
        if (!json_is_string(j))
            return misfit(c, n, "not a string");
        for (uint32_t i = 0; i < n->count; i++)
            if (strcmp(n->symbols[i], json_string_value(j)) == 0) {
                out->index = i;
                return BASALT_OK;
            }
        return misfit(c, n, "not one of the symbols");
    case BASALT_AVRO_ARRAY: {
        if (!json_is_array(j))
            return misfit(c, n, "not an array");
        size_t count = json_array_size(j);
        out->count = count;
        out->items = basalt_arena_alloc(c->arena, sizeof *out->items * (count ? count : 1), 8);
        if (!out->items)
            return nomem(c);
        for (size_t i = 0; i < count; i++) {
            basalt_status st = convert(c, n->items, json_array_get(j, i), depth - 1, &out->items[i]);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    }
    case BASALT_AVRO_MAP: {
        if (!json_is_object(j))
            return misfit(c, n, "not an object");
        size_t count = json_object_size(j);
        out->count = count;
        out->entries = basalt_arena_alloc(c->arena, sizeof *out->entries * (count ? count : 1), 8);
        if (!out->entries)
            return nomem(c);
        size_t i = 0;
        const char *key;
        json_t *val;
        json_object_foreach(j, key, val) {
            struct basalt_avro_entry *e = &out->entries[i++];
            size_t klen = strlen(key);
            e->key = (const uint8_t *)basalt_arena_strndup(c->arena, key, klen);
            e->key_size = klen;
            if (!e->key)
                return nomem(c);
            basalt_status st = convert(c, n->items, val, depth - 1, &e->value);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    }
    case BASALT_AVRO_UNION: {
        if (n->count == 0)
            return misfit(c, n, "empty union");
        out->branch = basalt_arena_alloc(c->arena, sizeof *out->branch, 8);
        if (!out->branch)
            return nomem(c);
        /* The first branch, as the specification says; then any branch the
         * JSON fits, as later versions of it allow. */
        basalt_status first = convert(c, n->branches[0], j, depth - 1, out->branch);
        if (first == BASALT_OK || first == BASALT_NOMEM)
            return first;
        struct basalt_error saved;
        if (c->err)
            saved = *c->err;
        for (uint32_t i = 1; i < n->count; i++) {
            if (convert(c, n->branches[i], j, depth - 1, out->branch) == BASALT_OK) {
                out->index = i;
                return BASALT_OK;
            }
        }
        if (c->err)
            *c->err = saved;
        return first;
    }
    case BASALT_AVRO_RECORD:
        return convert_record(c, n, j, depth, out);
    }
    return basalt_error_set(c->err, BASALT_INTERNAL, "unknown node type");
}

basalt_status basalt_avro_value_from_jansson(const struct basalt_avro_node *node,
                                             void *json, struct basalt_arena *arena,
                                             struct basalt_avro_value *out,
                                             struct basalt_error *err)
{
    struct fj c = {.arena = arena, .err = err};
    return convert(&c, node, json, 64, out);
}

basalt_status basalt_avro_value_from_json(const struct basalt_avro_node *node, const char *json,
                                          size_t len, struct basalt_arena *arena,
                                          struct basalt_avro_value *out, struct basalt_error *err)
{
    if (!node || !arena || !out || (!json && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_from_json: NULL argument");
    json_error_t jerr;
    json_t *j = json_loadb(json ? json : "", len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!j)
        return basalt_error_set(err, BASALT_CORRUPT, "invalid JSON: %s at line %d column %d",
                                jerr.text, jerr.line, jerr.column);
    basalt_status st = basalt_avro_value_from_jansson(node, j, arena, out, err);
    json_decref(j);
    return st;
}
