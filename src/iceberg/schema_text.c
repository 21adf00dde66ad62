/* Schemas written as text ("id long not null, tags list<string>"), turned
 * into schema JSON with field ids assigned as the Java library assigns
 * fresh ids. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commit_internal.h"

struct text_parser {
    const char *text;
    size_t pos;
    int depth;
    struct basalt_error *err;
};

static void skip_space(struct text_parser *p)
{
    while (isspace((unsigned char)p->text[p->pos]))
        p->pos++;
}

static bool accept(struct text_parser *p, char c)
{
    skip_space(p);
    if (p->text[p->pos] != c)
        return false;
    p->pos++;
    return true;
}

static basalt_status fail(struct text_parser *p, const char *what)
{
    return basalt_error_set(p->err, BASALT_INVALID_ARG, "schema text, at character %zu: %s",
                            p->pos + 1, what);
}

/* An identifier, or a name in backquotes or double quotes, into buf. */
static bool word(struct text_parser *p, char *buf, size_t cap)
{
    skip_space(p);
    const char *s = p->text + p->pos;
    size_t n = 0;
    if (*s == '`' || *s == '"') {
        const char *end = strchr(s + 1, *s);
        if (!end || end == s + 1 || (size_t)(end - s - 1) >= cap)
            return false;
        n = (size_t)(end - s - 1);
        memcpy(buf, s + 1, n);
        buf[n] = '\0';
        p->pos += n + 2;
        return true;
    }
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n++;
    if (n == 0 || n >= cap)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    p->pos += n;
    return true;
}

/* A keyword (case-insensitive) followed by a non-name character. */
static bool keyword(struct text_parser *p, const char *kw)
{
    skip_space(p);
    size_t n = strlen(kw);
    if (strncasecmp(p->text + p->pos, kw, n) != 0)
        return false;
    char next = p->text[p->pos + n];
    if (isalnum((unsigned char)next) || next == '_')
        return false;
    p->pos += n;
    return true;
}

static bool number(struct text_parser *p, long *out)
{
    skip_space(p);
    char *end;
    long v = strtol(p->text + p->pos, &end, 10);
    if (end == p->text + p->pos || v < 0 || v > 1000000)
        return false;
    *out = v;
    p->pos = (size_t)(end - p->text);
    return true;
}

static basalt_status parse_type(struct text_parser *p, json_t **out);

/* "not null" after a type: whether the value is required. */
static bool not_null(struct text_parser *p)
{
    size_t save = p->pos;
    if (keyword(p, "not") && keyword(p, "null"))
        return true;
    p->pos = save;
    return false;
}

static basalt_status parse_fields(struct text_parser *p, char close, json_t **out)
{
    json_t *fields = json_array();
    if (!fields)
        return basalt_error_set(p->err, BASALT_NOMEM, "out of memory");
    for (;;) {
        char name[256];
        if (!word(p, name, sizeof name)) {
            json_decref(fields);
            return fail(p, "expected a field name");
        }
        accept(p, ':');
        json_t *type = NULL;
        basalt_status st = parse_type(p, &type);
        if (st != BASALT_OK) {
            json_decref(fields);
            return st;
        }
        bool required = not_null(p);
        json_t *field = json_pack("{s:i,s:s,s:b,s:o}", "id", 0, "name", name, "required",
                                  required, "type", type);
        if (!field || json_array_append_new(fields, field) != 0) {
            json_decref(fields);
            return basalt_error_set(p->err, BASALT_NOMEM, "out of memory");
        }
        if (keyword(p, "comment")) {
            skip_space(p);
            const char *s = p->text + p->pos;
            const char *end = *s == '\'' ? strchr(s + 1, '\'') : NULL;
            if (!end) {
                json_decref(fields);
                return fail(p, "expected a quoted comment");
            }
            json_object_set_new(field, "doc", json_stringn(s + 1, (size_t)(end - s - 1)));
            p->pos += (size_t)(end - s) + 1;
        }
        if (accept(p, ','))
            continue;
        skip_space(p);
        if (p->text[p->pos] == close)
            break;
        json_decref(fields);
        return fail(p, close ? "expected ',' or '>'" : "expected ',' or the end");
    }
    *out = fields;
    return BASALT_OK;
}

static const struct {
    const char *name;
    const char *iceberg;
} primitives[] = {
    {"boolean", "boolean"},   {"bool", "boolean"},
    {"int", "int"},           {"integer", "int"},
    {"long", "long"},         {"bigint", "long"},
    {"float", "float"},       {"double", "double"},
    {"date", "date"},         {"time", "time"},
    {"timestamp", "timestamp"}, {"timestamptz", "timestamptz"},
    {"timestamp_ns", "timestamp_ns"}, {"timestamptz_ns", "timestamptz_ns"},
    {"string", "string"},     {"varchar", "string"},
    {"uuid", "uuid"},         {"binary", "binary"},
    {"variant", "variant"},   {"unknown", "unknown"},
    {"geometry", "geometry"}, {"geography", "geography"},
};

static basalt_status parse_type(struct text_parser *p, json_t **out)
{
    char name[64];
    if (++p->depth > 100)
        return fail(p, "types nested too deeply");
    size_t at = p->pos;
    if (!word(p, name, sizeof name))
        return fail(p, "expected a type");
    basalt_status st = BASALT_OK;
    if (strcasecmp(name, "struct") == 0) {
        json_t *fields = NULL;
        if (!accept(p, '<'))
            return fail(p, "expected '<' after struct");
        st = parse_fields(p, '>', &fields);
        if (st == BASALT_OK && !accept(p, '>')) {
            json_decref(fields);
            return fail(p, "expected '>'");
        }
        if (st == BASALT_OK)
            *out = json_pack("{s:s,s:o}", "type", "struct", "fields", fields);
    } else if (strcasecmp(name, "list") == 0 || strcasecmp(name, "array") == 0) {
        json_t *elem = NULL;
        if (!accept(p, '<'))
            return fail(p, "expected '<' after list");
        st = parse_type(p, &elem);
        if (st != BASALT_OK)
            return st;
        bool required = not_null(p);
        if (!accept(p, '>')) {
            json_decref(elem);
            return fail(p, "expected '>'");
        }
        *out = json_pack("{s:s,s:i,s:o,s:b}", "type", "list", "element-id", 0, "element", elem,
                         "element-required", required);
    } else if (strcasecmp(name, "map") == 0) {
        json_t *key = NULL, *value = NULL;
        if (!accept(p, '<'))
            return fail(p, "expected '<' after map");
        st = parse_type(p, &key);
        if (st != BASALT_OK)
            return st;
        if (!accept(p, ',')) {
            json_decref(key);
            return fail(p, "expected ',' between the key and value types");
        }
        st = parse_type(p, &value);
        if (st != BASALT_OK) {
            json_decref(key);
            return st;
        }
        bool required = not_null(p);
        if (!accept(p, '>')) {
            json_decref(key);
            json_decref(value);
            return fail(p, "expected '>'");
        }
        *out = json_pack("{s:s,s:i,s:o,s:i,s:o,s:b}", "type", "map", "key-id", 0, "key", key,
                         "value-id", 0, "value", value, "value-required", required);
    } else if (strcasecmp(name, "decimal") == 0 || strcasecmp(name, "numeric") == 0) {
        long prec, scale = 0;
        char text[64];
        if (!accept(p, '(') || !number(p, &prec) || (accept(p, ',') && !number(p, &scale)) ||
            !accept(p, ')') || prec < 1 || prec > 38 || scale > prec)
            return fail(p, "expected decimal(P, S) with 1 <= P <= 38 and S <= P");
        snprintf(text, sizeof text, "decimal(%ld, %ld)", prec, scale);
        *out = json_string(text);
    } else if (strcasecmp(name, "fixed") == 0) {
        long len;
        char text[64];
        bool square = accept(p, '[');
        if ((!square && !accept(p, '(')) || !number(p, &len) || len < 1 ||
            !accept(p, square ? ']' : ')'))
            return fail(p, "expected fixed[L] with L >= 1");
        snprintf(text, sizeof text, "fixed[%ld]", len);
        *out = json_string(text);
    } else {
        const char *iceberg = NULL;
        for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
            if (strcasecmp(name, primitives[i].name) == 0)
                iceberg = primitives[i].iceberg;
        if (!iceberg) {
            p->pos = at;
            skip_space(p);
            return basalt_error_set(p->err, BASALT_INVALID_ARG,
                                    "schema text, at character %zu: unknown type '%s'",
                                    p->pos + 1, name);
        }
        *out = json_string(iceberg);
    }
    p->depth--;
    if (st == BASALT_OK && !*out)
        return basalt_error_set(p->err, BASALT_NOMEM, "out of memory");
    return st;
}

/* Java's fresh-id order: the fields of a struct take the next ids
 * together, then each field's own nested type is numbered in turn. */
static void assign_ids(json_t *type, int32_t *next);

void basalt_iceberg_assign_fresh_ids(json_t *schema)
{
    int32_t next = 1;
    assign_ids(schema, &next);
}

void basalt_iceberg_assign_ids_from(json_t *type, int32_t *next)
{
    assign_ids(type, next);
}

static void assign_ids(json_t *type, int32_t *next)
{
    if (!json_is_object(type))
        return;
    const char *kind = json_string_value(json_object_get(type, "type"));
    if (strcmp(kind, "struct") == 0) {
        json_t *fields = json_object_get(type, "fields");
        size_t i;
        json_t *f;
        json_array_foreach(fields, i, f) json_object_set_new(f, "id", json_integer((*next)++));
        json_array_foreach(fields, i, f) assign_ids(json_object_get(f, "type"), next);
    } else if (strcmp(kind, "list") == 0) {
        json_object_set_new(type, "element-id", json_integer((*next)++));
        assign_ids(json_object_get(type, "element"), next);
    } else if (strcmp(kind, "map") == 0) {
        json_object_set_new(type, "key-id", json_integer((*next)++));
        json_object_set_new(type, "value-id", json_integer((*next)++));
        assign_ids(json_object_get(type, "key"), next);
        assign_ids(json_object_get(type, "value"), next);
    }
}

basalt_status basalt_iceberg_schema_from_text(const char *text, char **out,
                                              struct basalt_error *err)
{
    *out = NULL;
    struct text_parser p = {.text = text ? text : "", .err = err};
    json_t *fields = NULL;
    basalt_status st = parse_fields(&p, '\0', &fields);
    if (st != BASALT_OK)
        return st;
    json_t *schema = json_pack("{s:s,s:i,s:o}", "type", "struct", "schema-id", 0, "fields", fields);
    if (!schema)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_iceberg_assign_fresh_ids(schema);
    char *dumped = json_dumps(schema, JSON_COMPACT);
    json_decref(schema);
    size_t n = dumped ? strlen(dumped) : 0;
    char *copy = dumped ? basalt_malloc(n + 1) : NULL;
    if (copy)
        memcpy(copy, dumped, n + 1);
    free(dumped);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *out = copy;
    return BASALT_OK;
}
