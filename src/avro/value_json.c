/* JSON text of generic values (see basalt_avro_value_to_json). */
#include <math.h>
#include <stdio.h>

#include "avro_internal.h"

/* Length of the valid UTF-8 sequence at s[0, n), or 0 when it is not one. */
static size_t utf8_sequence(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    uint32_t cp = c & (0x3f >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Writes a JSON string; `text` keeps valid UTF-8 sequences, otherwise (and
 * for bytes) every byte outside printable ASCII becomes \u00XX. */
static basalt_status put_string(struct basalt_buffer *out, const uint8_t *s, size_t n, bool text,
                                struct basalt_error *err)
{
    basalt_status st = basalt_buffer_reserve(out, n + 2, err);
    if (st != BASALT_OK)
        return st;
    out->data[out->size++] = '"';
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            size_t j = i + 1;
            while (j < n && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\')
                j++;
            if ((st = basalt_buffer_append(out, s + i, j - i, err)) != BASALT_OK)
                return st;
            i = j;
            continue;
        }
        if (text && c >= 0x80) {
            size_t len = utf8_sequence(s + i, n - i);
            if (len) {
                if ((st = basalt_buffer_append(out, s + i, len, err)) != BASALT_OK)
                    return st;
                i += len;
                continue;
            }
        }
        char esc[8];
        if (c == '"')
            memcpy(esc, "\\\"", 3);
        else if (c == '\\')
            memcpy(esc, "\\\\", 3);
        else
            snprintf(esc, sizeof esc, "\\u%04x", c);
        if ((st = avro_put(out, esc, err)) != BASALT_OK)
            return st;
        i++;
    }
    return basalt_buffer_append(out, "\"", 1, err);
}

/* The shortest decimal that reads back as `d`, always with a '.' or an
 * exponent so that it reads back as a floating-point number. */
static basalt_status put_double(struct basalt_buffer *out, double d, struct basalt_error *err)
{
    if (isnan(d))
        return avro_put(out, "NaN", err);
    if (isinf(d))
        return avro_put(out, d > 0 ? "Infinity" : "-Infinity", err);
    char buf[BASALT_FLOAT_TEXT_MAX + 2];
    basalt_double_format_g(d, 1, buf);
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    return avro_put(out, buf, err);
}

static const char *branch_label(const struct basalt_avro_node *n)
{
    return n->name ? n->name : basalt_avro_type_name(n->type);
}

static basalt_status to_json(const struct basalt_avro_value *v, unsigned flags,
                             struct basalt_buffer *out, uint32_t depth, struct basalt_error *err)
{
    const struct basalt_avro_node *n = v->node;
    basalt_status st;
    char num[32];
    if (depth == 0)
        return basalt_error_set(err, BASALT_LIMIT, "value nested too deeply");
    switch (n->type) {
    case BASALT_AVRO_NULL:
        return avro_put(out, "null", err);
    case BASALT_AVRO_BOOLEAN:
        return avro_put(out, v->boolean ? "true" : "false", err);
    case BASALT_AVRO_INT:
    case BASALT_AVRO_LONG:
        snprintf(num, sizeof num, "%lld", (long long)v->i);
        return avro_put(out, num, err);
    case BASALT_AVRO_FLOAT:
        return put_double(out, (double)v->f, err);
    case BASALT_AVRO_DOUBLE:
        return put_double(out, v->d, err);
    case BASALT_AVRO_STRING:
        return put_string(out, v->bytes.data, v->bytes.size, true, err);
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_FIXED:
        return put_string(out, v->bytes.data, v->bytes.size, false, err);
    case BASALT_AVRO_ENUM: {
        const char *sym = v->index < n->count ? n->symbols[v->index] : "";
        return basalt_avro_json_string(out, sym, strlen(sym), err);
    }
    case BASALT_AVRO_UNION: {
        const struct basalt_avro_value *b = v->branch;
        bool wrap = (flags & BASALT_AVRO_JSON_UNION_WRAP) && b->node->type != BASALT_AVRO_NULL;
        if (wrap) {
            const char *label = branch_label(b->node);
            if ((st = avro_put(out, "{", err)) != BASALT_OK ||
                (st = basalt_avro_json_string(out, label, strlen(label), err)) != BASALT_OK ||
                (st = avro_put(out, ":", err)) != BASALT_OK)
                return st;
        }
        if ((st = to_json(b, flags, out, depth - 1, err)) != BASALT_OK)
            return st;
        return wrap ? avro_put(out, "}", err) : BASALT_OK;
    }
    case BASALT_AVRO_RECORD:
        if ((st = avro_put(out, "{", err)) != BASALT_OK)
            return st;
        for (size_t i = 0; i < v->count; i++) {
            const char *name = n->fields[i].name;
            if ((i && (st = avro_put(out, ",", err)) != BASALT_OK) ||
                (st = basalt_avro_json_string(out, name, strlen(name), err)) != BASALT_OK ||
                (st = avro_put(out, ":", err)) != BASALT_OK ||
                (st = to_json(&v->items[i], flags, out, depth - 1, err)) != BASALT_OK)
                return st;
        }
        return avro_put(out, "}", err);
    case BASALT_AVRO_ARRAY:
        if ((st = avro_put(out, "[", err)) != BASALT_OK)
            return st;
        for (size_t i = 0; i < v->count; i++) {
            if ((i && (st = avro_put(out, ",", err)) != BASALT_OK) ||
                (st = to_json(&v->items[i], flags, out, depth - 1, err)) != BASALT_OK)
                return st;
        }
        return avro_put(out, "]", err);
    case BASALT_AVRO_MAP:
        if ((st = avro_put(out, "{", err)) != BASALT_OK)
            return st;
        for (size_t i = 0; i < v->count; i++) {
            const struct basalt_avro_entry *e = &v->entries[i];
            if ((i && (st = avro_put(out, ",", err)) != BASALT_OK) ||
                (st = put_string(out, e->key, e->key_size, true, err)) != BASALT_OK ||
                (st = avro_put(out, ":", err)) != BASALT_OK ||
                (st = to_json(&e->value, flags, out, depth - 1, err)) != BASALT_OK)
                return st;
        }
        return avro_put(out, "}", err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "unknown node type");
}

basalt_status basalt_avro_value_to_json(const struct basalt_avro_value *value, unsigned flags,
                                        struct basalt_buffer *out, struct basalt_error *err)
{
    if (!value || !value->node || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "value_to_json: NULL argument");
    size_t mark = out->size;
    basalt_status st = to_json(value, flags, out, 4096, err);
    if (st != BASALT_OK)
        out->size = mark;
    return st;
}
