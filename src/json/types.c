/* Column types of the JSON reader: the type tree, its Arrow form, and type
 * texts ("BIGINT", "STRUCT(a INT, b VARCHAR[])"). */
#include <stdio.h>
#include <strings.h>

#include "json_internal.h"

void basalt_json_type_reset(struct json_type *t)
{
    for (int32_t i = 0; i < t->n_children; i++)
        basalt_json_type_reset(&t->children[i]);
    basalt_free(t->children);
    basalt_free(t->name);
    basalt_free(t->path);
    memset(t, 0, sizeof *t);
}

void basalt_json_type_format(const struct json_type *t, char *buf)
{
    const char *f = "u";
    switch (t->kind) {
    case JSON_K_BOOL: f = "b"; break;
    case JSON_K_INT:
        f = t->int_bits == 8 ? "c" : t->int_bits == 16 ? "s" : t->int_bits == 32 ? "i" : "l";
        break;
    case JSON_K_DOUBLE: f = t->single ? "f" : "g"; break;
    case JSON_K_DATE: f = "tdD"; break;
    case JSON_K_TIMESTAMP: f = t->zoned ? "tsu:UTC" : "tsu:"; break;
    case JSON_K_TIME: f = "ttu"; break;
    case JSON_K_STRUCT: f = "+s"; break;
    case JSON_K_LIST: f = "+l"; break;
    default: break;
    }
    strcpy(buf, f);
}

basalt_status basalt_json_type_schema(const struct json_type *t, const char *name,
                                      struct ArrowSchema *out, struct basalt_error *err)
{
    char f[16];
    basalt_json_type_format(t, f);
    int64_t n = t->kind == JSON_K_STRUCT || t->kind == JSON_K_LIST ? t->n_children : 0;
    basalt_status st = basalt_arrow_schema_init(out, f, name, ARROW_FLAG_NULLABLE, n, err);
    for (int64_t i = 0; st == BASALT_OK && i < n; i++)
        st = basalt_json_type_schema(&t->children[i],
                                     t->kind == JSON_K_LIST ? "item" : t->children[i].name,
                                     out->children[i], err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

static basalt_status add_child(struct json_type *t, struct json_type **out,
                               struct basalt_error *err)
{
    if (t->n_children == t->cap_children) {
        int32_t cap = t->cap_children ? 2 * t->cap_children : 4;
        struct json_type *c = basalt_realloc(t->children, (size_t)cap * sizeof *c);
        if (!c)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        t->children = c;
        t->cap_children = cap;
    }
    *out = &t->children[t->n_children++];
    memset(*out, 0, sizeof **out);
    return BASALT_OK;
}

static basalt_status set_name(struct json_type *t, const char *name, struct basalt_error *err)
{
    t->name = basalt_strdup(name ? name : "");
    if (!t->name)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    t->name_len = strlen(t->name);
    return BASALT_OK;
}

basalt_status basalt_json_type_from_schema(const struct ArrowSchema *s, struct json_type *t,
                                           struct basalt_error *err)
{
    memset(t, 0, sizeof *t);
    basalt_status st = set_name(t, s->name, err);
    if (st != BASALT_OK)
        return st;
    const char *f = s->format ? s->format : "";
    if (s->dictionary)
        f = "?";
    if (strcmp(f, "b") == 0) {
        t->kind = JSON_K_BOOL;
    } else if (strcmp(f, "c") == 0 || strcmp(f, "s") == 0 || strcmp(f, "i") == 0 ||
               strcmp(f, "l") == 0) {
        t->kind = JSON_K_INT;
        t->int_bits = f[0] == 'c' ? 8 : f[0] == 's' ? 16 : f[0] == 'i' ? 32 : 64;
    } else if (strcmp(f, "f") == 0 || strcmp(f, "g") == 0) {
        t->kind = JSON_K_DOUBLE;
        t->single = f[0] == 'f';
    } else if (strcmp(f, "u") == 0) {
        t->kind = JSON_K_STRING;
    } else if (strcmp(f, "tdD") == 0) {
        t->kind = JSON_K_DATE;
    } else if (strcmp(f, "tsu:") == 0 || strcmp(f, "tsu:UTC") == 0) {
        t->kind = JSON_K_TIMESTAMP;
        t->zoned = f[4] != 0;
    } else if (strcmp(f, "ttu") == 0) {
        t->kind = JSON_K_TIME;
    } else if (strcmp(f, "+s") == 0 || (strcmp(f, "+l") == 0 && s->n_children == 1)) {
        t->kind = f[1] == 's' ? JSON_K_STRUCT : JSON_K_LIST;
        for (int64_t i = 0; i < s->n_children; i++) {
            struct json_type *c = NULL;
            st = add_child(t, &c, err);
            if (st == BASALT_OK)
                st = basalt_json_type_from_schema(s->children[i], c, err);
            if (st != BASALT_OK)
                return st;
        }
    } else {
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column '%.100s': the JSON reader cannot fill Arrow type '%.40s'",
                                s->name ? s->name : "", f);
    }
    return BASALT_OK;
}

basalt_status basalt_json_type_paths(struct json_type *t, const char *prefix,
                                     struct basalt_error *err)
{
    for (int32_t i = 0; i < t->n_children; i++) {
        struct json_type *c = &t->children[i];
        const char *name = t->kind == JSON_K_LIST ? "[]" : c->name;
        size_t len = (prefix ? strlen(prefix) + 1 : 0) + strlen(name) + 1;
        basalt_free(c->path);
        c->path = basalt_malloc(len);
        if (!c->path)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (!prefix)
            snprintf(c->path, len, "%s", name);
        else
            snprintf(c->path, len, t->kind == JSON_K_LIST ? "%s%s" : "%s.%s", prefix, name);
        basalt_status st = basalt_json_type_paths(c, c->path, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ type text */

struct type_text {
    const char *p;
    const char *text;
    int depth;
};

static void skip_spaces(struct type_text *tt)
{
    while (*tt->p == ' ' || *tt->p == '\t' || *tt->p == '\n')
        tt->p++;
}

static const struct {
    const char *name;
    const char *format;
} scalar_names[] = {
    {"boolean", "b"}, {"bool", "b"},       {"tinyint", "c"},     {"smallint", "s"},
    {"integer", "i"}, {"int", "i"},        {"int4", "i"},        {"bigint", "l"},
    {"int8", "l"},    {"long", "l"},       {"float", "f"},       {"real", "f"},
    {"double", "g"},  {"varchar", "u"},    {"text", "u"},        {"string", "u"},
    {"json", "u"},    {"date", "tdD"},     {"timestamp", "tsu:"}, {"timestamptz", "tsu:UTC"},
    {"time", "ttu"},
};

static basalt_status parse_type(struct type_text *tt, const char *name, struct ArrowSchema *out,
                                struct basalt_error *err);

static basalt_status parse_struct(struct type_text *tt, const char *name, struct ArrowSchema *out,
                                  struct basalt_error *err)
{
    /* fields are parsed into a temporary list, then moved under the struct */
    enum { max_fields = 256 };
    struct ArrowSchema *fields = basalt_calloc(max_fields, sizeof *fields);
    if (!fields)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int n = 0;
    basalt_status st = BASALT_OK;
    skip_spaces(tt);
    while (st == BASALT_OK && *tt->p != ')') {
        if (n == max_fields) {
            st = basalt_error_set(err, BASALT_INVALID_ARG, "type '%.200s': too many fields",
                                  tt->text);
            break;
        }
        skip_spaces(tt);
        char fname[256];
        size_t k = 0;
        if (*tt->p == '"') {
            tt->p++;
            while (*tt->p && *tt->p != '"' && k < sizeof fname - 1)
                fname[k++] = *tt->p++;
            if (*tt->p != '"') {
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "type '%.200s': unterminated field name", tt->text);
                break;
            }
            tt->p++;
        } else {
            while (*tt->p && *tt->p != ' ' && *tt->p != '\t' && *tt->p != ',' &&
                   *tt->p != ')' && k < sizeof fname - 1)
                fname[k++] = *tt->p++;
        }
        fname[k] = 0;
        if (k == 0) {
            st = basalt_error_set(err, BASALT_INVALID_ARG, "type '%.200s': a field without a name",
                                  tt->text);
            break;
        }
        st = parse_type(tt, fname, &fields[n], err);
        if (st != BASALT_OK)
            break;
        n++;
        skip_spaces(tt);
        if (*tt->p == ',')
            tt->p++;
        else if (*tt->p != ')')
            st = basalt_error_set(err, BASALT_INVALID_ARG, "type '%.200s': expected ',' or ')'",
                                  tt->text);
    }
    if (st == BASALT_OK) {
        tt->p++;
        st = basalt_arrow_schema_init(out, "+s", name, ARROW_FLAG_NULLABLE, n, err);
    }
    for (int i = 0; i < n; i++) {
        if (st == BASALT_OK)
            basalt_arrow_schema_move(&fields[i], out->children[i]);
        else
            basalt_arrow_schema_release(&fields[i]);
    }
    basalt_free(fields);
    return st;
}

static basalt_status parse_type(struct type_text *tt, const char *name, struct ArrowSchema *out,
                                struct basalt_error *err)
{
    if (++tt->depth > 32)
        return basalt_error_set(err, BASALT_INVALID_ARG, "type '%.200s': nested too deeply",
                                tt->text);
    skip_spaces(tt);
    const char *w = tt->p;
    while ((*tt->p >= 'a' && *tt->p <= 'z') || (*tt->p >= 'A' && *tt->p <= 'Z') ||
           (*tt->p >= '0' && *tt->p <= '9'))
        tt->p++;
    size_t len = (size_t)(tt->p - w);
    basalt_status st;
    if (len == 6 && strncasecmp(w, "struct", 6) == 0) {
        skip_spaces(tt);
        if (*tt->p != '(')
            return basalt_error_set(err, BASALT_INVALID_ARG, "type '%.200s': expected '('",
                                    tt->text);
        tt->p++;
        st = parse_struct(tt, name, out, err);
    } else {
        const char *format = NULL;
        for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++)
            if (strlen(scalar_names[i].name) == len &&
                strncasecmp(w, scalar_names[i].name, len) == 0)
                format = scalar_names[i].format;
        if (!format)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "unknown JSON column type '%.200s' (BOOLEAN, TINYINT, "
                                    "SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, VARCHAR, DATE, "
                                    "TIME, TIMESTAMP, TIMESTAMPTZ, T[], STRUCT(...))",
                                    tt->text);
        st = basalt_arrow_schema_init(out, format, name, ARROW_FLAG_NULLABLE, 0, err);
    }
    skip_spaces(tt);
    while (st == BASALT_OK && tt->p[0] == '[' && tt->p[1] == ']') {
        tt->p += 2;
        struct ArrowSchema list;
        st = basalt_arrow_schema_init(&list, "+l", name, ARROW_FLAG_NULLABLE, 1, err);
        if (st != BASALT_OK)
            break;
        basalt_arrow_schema_move(out, list.children[0]);
        /* the element is named "item" */
        struct ArrowSchema item;
        st = basalt_arrow_schema_copy_renamed(list.children[0], "item", &item, err);
        if (st != BASALT_OK) {
            basalt_arrow_schema_release(&list);
            return st;
        }
        basalt_arrow_schema_release(list.children[0]);
        basalt_arrow_schema_move(&item, list.children[0]);
        basalt_arrow_schema_move(&list, out);
        skip_spaces(tt);
    }
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    tt->depth--;
    return st;
}

basalt_status basalt_json_type_parse(const char *text, const char *name, struct ArrowSchema *out,
                                     struct basalt_error *err)
{
    if (!text || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "json type: NULL argument");
    struct type_text tt = {text, text, 0};
    basalt_status st = parse_type(&tt, name, out, err);
    if (st == BASALT_OK && *tt.p) {
        basalt_arrow_schema_release(out);
        return basalt_error_set(err, BASALT_INVALID_ARG, "type '%.200s': unexpected '%.40s'", text,
                                tt.p);
    }
    return st;
}
