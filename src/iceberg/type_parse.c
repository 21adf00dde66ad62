/* Iceberg types from their JSON form (spec, "Schemas" and Appendix C) and
 * back, and partition/sort transform names. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "iceberg_internal.h"

struct primitive_name {
    const char *name;
    enum basalt_iceberg_type_id id;
};

static const struct primitive_name primitives[] = {
    {"boolean", BASALT_ICEBERG_TYPE_BOOLEAN},
    {"int", BASALT_ICEBERG_TYPE_INT},
    {"long", BASALT_ICEBERG_TYPE_LONG},
    {"float", BASALT_ICEBERG_TYPE_FLOAT},
    {"double", BASALT_ICEBERG_TYPE_DOUBLE},
    {"date", BASALT_ICEBERG_TYPE_DATE},
    {"time", BASALT_ICEBERG_TYPE_TIME},
    {"timestamp", BASALT_ICEBERG_TYPE_TIMESTAMP},
    {"timestamptz", BASALT_ICEBERG_TYPE_TIMESTAMPTZ},
    {"timestamp_ns", BASALT_ICEBERG_TYPE_TIMESTAMP_NS},
    {"timestamptz_ns", BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS},
    {"string", BASALT_ICEBERG_TYPE_STRING},
    {"uuid", BASALT_ICEBERG_TYPE_UUID},
    {"binary", BASALT_ICEBERG_TYPE_BINARY},
    {"unknown", BASALT_ICEBERG_TYPE_UNKNOWN},
    {"variant", BASALT_ICEBERG_TYPE_VARIANT},
    {"geometry", BASALT_ICEBERG_TYPE_GEOMETRY},
    {"geography", BASALT_ICEBERG_TYPE_GEOGRAPHY},
};

static const char *primitive_name(enum basalt_iceberg_type_id id)
{
    for (size_t i = 0; i < sizeof(primitives) / sizeof(primitives[0]); i++)
        if (primitives[i].id == id)
            return primitives[i].name;
    return NULL;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A non-negative decimal number of at most 9 digits. */
static const char *read_uint(const char *p, int32_t *out)
{
    p = skip_space(p);
    int64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (++digits > 9)
            return NULL;
        v = v * 10 + (*p - '0');
        p++;
    }
    if (digits == 0)
        return NULL;
    *out = (int32_t)v;
    return skip_space(p);
}

/* "(" args ")" of geometry/geography: up to two comma-separated words. */
static basalt_status parse_geo_args(struct basalt_iceberg_parse_ctx *ctx, const char *text,
                                    const char *p, int max_args, struct basalt_iceberg_type *out)
{
    const char *args[2] = {NULL, NULL};
    int n = 0;
    p = skip_space(p + 1);
    for (;;) {
        const char *start = p;
        while (*p && *p != ',' && *p != ')')
            p++;
        const char *end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (end == start || n >= max_args || !*p)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "malformed type '%s'", text);
        char *arg = basalt_arena_strndup(ctx->arena, start, (size_t)(end - start));
        if (!arg)
            return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
        args[n++] = arg;
        if (*p == ')')
            break;
        p = skip_space(p + 1);
    }
    if (*skip_space(p + 1))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "malformed type '%s'", text);
    out->crs = args[0];
    out->algorithm = args[1];
    return BASALT_OK;
}

static basalt_status parse_primitive(struct basalt_iceberg_parse_ctx *ctx, const char *text,
                                     struct basalt_iceberg_type *out)
{
    for (size_t i = 0; i < sizeof(primitives) / sizeof(primitives[0]); i++)
        if (strcmp(text, primitives[i].name) == 0) {
            out->id = primitives[i].id;
            return BASALT_OK;
        }
    if (strncmp(text, "decimal", 7) == 0) {
        const char *p = skip_space(text + 7);
        int32_t precision, scale;
        if (*p != '(' || !(p = read_uint(p + 1, &precision)) || *p != ',' ||
            !(p = read_uint(p + 1, &scale)) || *p != ')' || *skip_space(p + 1))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "malformed type '%s'", text);
        if (precision < 1 || precision > 38 || scale > precision)
            return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                    "invalid decimal precision/scale in '%s'", text);
        out->id = BASALT_ICEBERG_TYPE_DECIMAL;
        out->precision = precision;
        out->scale = scale;
        return BASALT_OK;
    }
    if (strncmp(text, "fixed", 5) == 0) {
        const char *p = skip_space(text + 5);
        int32_t length;
        if (*p != '[' || !(p = read_uint(p + 1, &length)) || *p != ']' || *skip_space(p + 1))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "malformed type '%s'", text);
        if (length < 1)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "invalid fixed length in '%s'",
                                    text);
        out->id = BASALT_ICEBERG_TYPE_FIXED;
        out->length = length;
        return BASALT_OK;
    }
    if (strncmp(text, "geometry", 8) == 0 && *skip_space(text + 8) == '(') {
        out->id = BASALT_ICEBERG_TYPE_GEOMETRY;
        return parse_geo_args(ctx, text, skip_space(text + 8), 1, out);
    }
    if (strncmp(text, "geography", 9) == 0 && *skip_space(text + 9) == '(') {
        out->id = BASALT_ICEBERG_TYPE_GEOGRAPHY;
        return parse_geo_args(ctx, text, skip_space(text + 9), 2, out);
    }
    return basalt_error_set(ctx->err, BASALT_CORRUPT, "unknown type '%s'", text);
}

/* One field of a struct, or the element / key / value of a list or map. */
static basalt_status parse_field_common(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                        int depth, struct basalt_iceberg_field *f)
{
    basalt_status st;
    const json_t *type = json_object_get(obj, "type");
    if (!type || json_is_null(type))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'type'");
    if ((st = basalt_iceberg_type_parse(ctx, type, depth + 1, &f->type)) != BASALT_OK)
        return st;
    return BASALT_OK;
}

static basalt_status parse_default(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                   const char *key, struct basalt_iceberg_field *f,
                                   const char **text, struct basalt_iceberg_value *value)
{
    value->type = f->type.id;
    value->is_null = true;
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return BASALT_OK;
    basalt_status st = basalt_iceberg_json_text(ctx, v, text);
    if (st != BASALT_OK)
        return st;
    st = basalt_iceberg_default_decode(ctx, &f->type, v, value);
    if (st != BASALT_OK)
        return basalt_error_context(ctx->err, st, "'%s'", key);
    return BASALT_OK;
}

static basalt_status parse_struct_field(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                        int depth, struct basalt_iceberg_field *f)
{
    basalt_status st;
    if (!json_is_object(obj))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "not an object");
    if ((st = basalt_iceberg_json_i32(obj, "id", true, NULL, &f->id, ctx->err)) != BASALT_OK)
        return st;
    if ((st = basalt_iceberg_json_str(ctx, obj, "name", true, &f->name)) != BASALT_OK)
        return basalt_error_context(ctx->err, st, "field %d", f->id);
    if ((st = basalt_iceberg_json_bool(obj, "required", true, NULL, &f->required, ctx->err)) !=
            BASALT_OK ||
        (st = basalt_iceberg_json_str(ctx, obj, "doc", false, &f->doc)) != BASALT_OK ||
        (st = parse_field_common(ctx, obj, depth, f)) != BASALT_OK ||
        (st = parse_default(ctx, obj, "initial-default", f, &f->initial_default_json,
                            &f->initial_default)) != BASALT_OK ||
        (st = parse_default(ctx, obj, "write-default", f, &f->write_default_json,
                            &f->write_default)) != BASALT_OK)
        return basalt_error_context(ctx->err, st, "field %d '%s'", f->id, f->name);
    return BASALT_OK;
}

static basalt_status parse_child(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                 const char *id_key, const char *type_key,
                                 const char *required_key, const char *name, int depth,
                                 struct basalt_iceberg_field *f)
{
    basalt_status st;
    f->name = name;
    f->required = true;
    if ((st = basalt_iceberg_json_i32(obj, id_key, true, NULL, &f->id, ctx->err)) != BASALT_OK)
        return st;
    if (required_key &&
        (st = basalt_iceberg_json_bool(obj, required_key, true, NULL, &f->required, ctx->err)) !=
            BASALT_OK)
        return st;
    const json_t *type = json_object_get(obj, type_key);
    if (!type || json_is_null(type))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing '%s'", type_key);
    if ((st = basalt_iceberg_type_parse(ctx, type, depth + 1, &f->type)) != BASALT_OK)
        return basalt_error_context(ctx->err, st, "%s", type_key);
    f->initial_default.type = f->type.id;
    f->initial_default.is_null = true;
    f->write_default.type = f->type.id;
    f->write_default.is_null = true;
    return BASALT_OK;
}

basalt_status basalt_iceberg_type_parse(struct basalt_iceberg_parse_ctx *ctx, const json_t *json,
                                        int depth, struct basalt_iceberg_type *out)
{
    memset(out, 0, sizeof(*out));
    if (depth > BASALT_ICEBERG_MAX_TYPE_DEPTH)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "types nested deeper than %d",
                                BASALT_ICEBERG_MAX_TYPE_DEPTH);
    if (json_is_string(json)) {
        const char *text = json_string_value(json);
        if (strlen(text) != json_string_length(json))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "type holds a NUL character");
        return parse_primitive(ctx, text, out);
    }
    if (!json_is_object(json))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "a type is neither a string nor an object");
    const char *kind = json_string_value(json_object_get(json, "type"));
    if (!kind)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "nested type without a 'type' string");
    basalt_status st;
    if (strcmp(kind, "struct") == 0) {
        const json_t *fields;
        if ((st = basalt_iceberg_json_array(json, "fields", true, &fields, ctx->err)) != BASALT_OK)
            return st;
        size_t n = json_array_size(fields);
        if (n > UINT32_MAX)
            return basalt_error_set(ctx->err, BASALT_LIMIT, "too many fields");
        out->id = BASALT_ICEBERG_TYPE_STRUCT;
        out->fields = basalt_iceberg_arena_array(ctx, n, sizeof(*out->fields));
        if (!out->fields)
            return BASALT_NOMEM;
        out->n_fields = (uint32_t)n;
        for (size_t i = 0; i < n; i++) {
            st = parse_struct_field(ctx, json_array_get(fields, i), depth, &out->fields[i]);
            if (st != BASALT_OK)
                return basalt_error_context(ctx->err, st, "fields[%zu]", i);
        }
        return BASALT_OK;
    }
    if (strcmp(kind, "list") == 0) {
        out->id = BASALT_ICEBERG_TYPE_LIST;
        out->fields = basalt_iceberg_arena_array(ctx, 1, sizeof(*out->fields));
        if (!out->fields)
            return BASALT_NOMEM;
        out->n_fields = 1;
        return parse_child(ctx, json, "element-id", "element", "element-required", "element",
                           depth, &out->fields[0]);
    }
    if (strcmp(kind, "map") == 0) {
        out->id = BASALT_ICEBERG_TYPE_MAP;
        out->fields = basalt_iceberg_arena_array(ctx, 2, sizeof(*out->fields));
        if (!out->fields)
            return BASALT_NOMEM;
        out->n_fields = 2;
        if ((st = parse_child(ctx, json, "key-id", "key", NULL, "key", depth, &out->fields[0])) !=
            BASALT_OK)
            return st;
        return parse_child(ctx, json, "value-id", "value", "value-required", "value", depth,
                           &out->fields[1]);
    }
    return basalt_error_set(ctx->err, BASALT_CORRUPT, "unknown nested type '%s'", kind);
}

/* ----------------------------------------------------------- JSON output */

static json_t *field_to_json(const struct basalt_iceberg_field *f)
{
    json_t *o = json_object();
    json_t *type = basalt_iceberg_type_to_json(&f->type);
    if (!o || !type)
        goto fail;
    int bad = json_object_set_new(o, "type", type);
    type = NULL; /* owned by o now, even when the call failed */
    if (bad || json_object_set_new(o, "id", json_integer(f->id)) ||
        json_object_set_new(o, "name", json_string(f->name)) ||
        json_object_set_new(o, "required", json_boolean(f->required)))
        goto fail;
    if (f->doc && json_object_set_new(o, "doc", json_string(f->doc)))
        goto fail;
    if (f->initial_default_json) {
        json_t *d = json_loads(f->initial_default_json, JSON_DECODE_ANY, NULL);
        if (!d || json_object_set_new(o, "initial-default", d))
            goto fail;
    }
    if (f->write_default_json) {
        json_t *d = json_loads(f->write_default_json, JSON_DECODE_ANY, NULL);
        if (!d || json_object_set_new(o, "write-default", d))
            goto fail;
    }
    return o;
fail:
    json_decref(type);
    json_decref(o);
    return NULL;
}

static json_t *type_text_json(const struct basalt_iceberg_type *t)
{
    char buf[512];
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_DECIMAL:
        snprintf(buf, sizeof(buf), "decimal(%d, %d)", t->precision, t->scale);
        return json_string(buf);
    case BASALT_ICEBERG_TYPE_FIXED:
        snprintf(buf, sizeof(buf), "fixed[%d]", t->length);
        return json_string(buf);
    case BASALT_ICEBERG_TYPE_GEOMETRY:
    case BASALT_ICEBERG_TYPE_GEOGRAPHY: {
        const char *name = primitive_name(t->id);
        if (!t->crs && !t->algorithm)
            return json_string(name);
        int n = t->algorithm ? snprintf(buf, sizeof(buf), "%s(%s, %s)", name,
                                        t->crs ? t->crs : "OGC:CRS84", t->algorithm)
                             : snprintf(buf, sizeof(buf), "%s(%s)", name, t->crs);
        if (n < 0 || (size_t)n >= sizeof(buf))
            return NULL;
        return json_string(buf);
    }
    default: {
        const char *name = primitive_name(t->id);
        return name ? json_string(name) : NULL;
    }
    }
}

json_t *basalt_iceberg_type_to_json(const struct basalt_iceberg_type *t)
{
    json_t *o = NULL;
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_STRUCT: {
        json_t *fields = json_array();
        o = json_object();
        if (!o || !fields || json_object_set_new(o, "type", json_string("struct")) ||
            json_object_set(o, "fields", fields))
        {
            json_decref(fields);
            break;
        }
        json_decref(fields);
        for (uint32_t i = 0; i < t->n_fields; i++) {
            json_t *f = field_to_json(&t->fields[i]);
            if (!f || json_array_append_new(fields, f))
                goto fail;
        }
        return o;
    }
    case BASALT_ICEBERG_TYPE_LIST: {
        const struct basalt_iceberg_field *e = &t->fields[0];
        json_t *et = basalt_iceberg_type_to_json(&e->type);
        o = json_object();
        if (!o || !et) {
            json_decref(et);
            break;
        }
        if (json_object_set_new(o, "type", json_string("list")) ||
            json_object_set_new(o, "element-id", json_integer(e->id)) ||
            json_object_set_new(o, "element", et) ||
            json_object_set_new(o, "element-required", json_boolean(e->required)))
            goto fail;
        return o;
    }
    case BASALT_ICEBERG_TYPE_MAP: {
        const struct basalt_iceberg_field *k = &t->fields[0], *v = &t->fields[1];
        json_t *kt = basalt_iceberg_type_to_json(&k->type);
        json_t *vt = basalt_iceberg_type_to_json(&v->type);
        o = json_object();
        if (!o || !kt || !vt) {
            json_decref(kt);
            json_decref(vt);
            break;
        }
        if (json_object_set_new(o, "type", json_string("map")) ||
            json_object_set_new(o, "key-id", json_integer(k->id)) ||
            json_object_set_new(o, "key", kt) ||
            json_object_set_new(o, "value-id", json_integer(v->id)) ||
            json_object_set_new(o, "value", vt) ||
            json_object_set_new(o, "value-required", json_boolean(v->required)))
            goto fail;
        return o;
    }
    default:
        return type_text_json(t);
    }
fail:
    json_decref(o);
    return NULL;
}

/* --------------------------------------------------------- human text */

struct text_out {
    char *buf;
    size_t cap;
    size_t len;
    bool overflow;
};

static void put(struct text_out *o, const char *fmt, ...) BASALT_PRINTF(2, 3);
static void put(struct text_out *o, const char *fmt, ...)
{
    if (o->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->cap - o->len) {
        o->overflow = true;
        return;
    }
    o->len += (size_t)n;
}

static void type_text(struct text_out *o, const struct basalt_iceberg_type *t, int depth)
{
    if (depth > BASALT_ICEBERG_MAX_TYPE_DEPTH) {
        put(o, "...");
        return;
    }
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_DECIMAL:
        put(o, "decimal(%d,%d)", t->precision, t->scale);
        break;
    case BASALT_ICEBERG_TYPE_FIXED:
        put(o, "fixed[%d]", t->length);
        break;
    case BASALT_ICEBERG_TYPE_GEOMETRY:
    case BASALT_ICEBERG_TYPE_GEOGRAPHY:
        put(o, "%s", primitive_name(t->id));
        if (t->crs && t->algorithm)
            put(o, "(%s, %s)", t->crs, t->algorithm);
        else if (t->crs)
            put(o, "(%s)", t->crs);
        else if (t->algorithm)
            put(o, "(OGC:CRS84, %s)", t->algorithm);
        break;
    case BASALT_ICEBERG_TYPE_STRUCT:
        put(o, "struct<");
        for (uint32_t i = 0; i < t->n_fields; i++) {
            const struct basalt_iceberg_field *f = &t->fields[i];
            put(o, "%s%d %s: ", i ? ", " : "", f->id, f->name);
            type_text(o, &f->type, depth + 1);
            if (f->required)
                put(o, " not null");
        }
        put(o, ">");
        break;
    case BASALT_ICEBERG_TYPE_LIST:
        put(o, "list<");
        type_text(o, &t->fields[0].type, depth + 1);
        put(o, ">");
        break;
    case BASALT_ICEBERG_TYPE_MAP:
        put(o, "map<");
        type_text(o, &t->fields[0].type, depth + 1);
        put(o, ", ");
        type_text(o, &t->fields[1].type, depth + 1);
        put(o, ">");
        break;
    case BASALT_ICEBERG_TYPE_NONE:
        put(o, "null");
        break;
    default: {
        const char *name = primitive_name(t->id);
        put(o, "%s", name ? name : "?");
        break;
    }
    }
}

basalt_status basalt_iceberg_type_to_string(const struct basalt_iceberg_type *type, char *buf,
                                            size_t cap)
{
    if (!type || !buf || cap == 0)
        return BASALT_INVALID_ARG;
    struct text_out o = {buf, cap, 0, false};
    buf[0] = '\0';
    type_text(&o, type, 0);
    if (o.overflow) {
        buf[cap - 1] = '\0';
        return BASALT_LIMIT;
    }
    return BASALT_OK;
}
