/* Partition specs and sort orders written as text ("month(ts), bucket(16,
 * id)"), and the updates that create a table from them. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_transform.h"
#include "commit_internal.h"

/* One clause: "transform(args)" or a bare column. */
struct clause {
    char transform[32]; /* Iceberg's text: "identity", "bucket[16]", ... */
    char suffix[16];    /* the partition field name's suffix: "_bucket", ... */
    char column[256];
};

static const struct {
    const char *name;
    const char *transform;
    const char *suffix;
    bool param;
} transforms[] = {
    {"identity", "identity", "", false}, {"bucket", "bucket", "_bucket", true},
    {"truncate", "truncate", "_trunc", true}, {"year", "year", "_year", false},
    {"years", "year", "_year", false},    {"month", "month", "_month", false},
    {"months", "month", "_month", false}, {"day", "day", "_day", false},
    {"days", "day", "_day", false},       {"date", "day", "_day", false},
    {"hour", "hour", "_hour", false},     {"hours", "hour", "_hour", false},
    {"void", "void", "_null", false},
};

static void trim(const char **s, const char **end)
{
    while (*s < *end && isspace((unsigned char)**s))
        (*s)++;
    while (*end > *s && isspace((unsigned char)(*end)[-1]))
        (*end)--;
}

static bool copy_word(char *buf, size_t cap, const char *s, const char *end)
{
    trim(&s, &end);
    if ((*s == '`' || *s == '"') && end - s >= 2 && end[-1] == *s) {
        s++;
        end--;
    }
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= cap)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* Parses s[0, end) as a clause; `what` names the text in errors. */
static basalt_status parse_clause(const char *s, const char *end, const char *what,
                                  struct clause *c, struct basalt_error *err)
{
    trim(&s, &end);
    const char *open = memchr(s, '(', (size_t)(end - s));
    int len = (int)(end - s);
    if (!open) {
        if (!copy_word(c->column, sizeof c->column, s, end))
            return basalt_error_set(err, BASALT_INVALID_ARG, "%s: empty clause", what);
        strcpy(c->transform, "identity");
        c->suffix[0] = '\0';
        return BASALT_OK;
    }
    if (end[-1] != ')')
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: '%.*s': expected ')'", what, len, s);
    char name[32];
    if (!copy_word(name, sizeof name, s, open))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: '%.*s': no transform", what, len, s);
    size_t t = 0, nt = sizeof transforms / sizeof transforms[0];
    while (t < nt && strcasecmp(name, transforms[t].name) != 0)
        t++;
    if (t == nt)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: unknown transform '%s'", what, name);
    const char *args = open + 1, *args_end = end - 1;
    const char *comma = memchr(args, ',', (size_t)(args_end - args));
    if (transforms[t].param != (comma != NULL))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: '%.*s': %s takes %s", what, len, s,
                                name, transforms[t].param ? "a width and a column" : "a column");
    const char *col = args, *col_end = args_end;
    if (comma) {
        /* Both argument orders: bucket(16, id) and bucket(id, 16). */
        const char *a = args, *a_end = comma, *b = comma + 1, *b_end = args_end;
        trim(&a, &a_end);
        trim(&b, &b_end);
        const char *num = isdigit((unsigned char)*a) ? a : b;
        const char *num_end = num == a ? a_end : b_end;
        col = num == a ? b : a;
        col_end = num == a ? b_end : a_end;
        char *stop;
        long n = strtol(num, &stop, 10);
        if (stop != num_end || n < 1 || n > INT32_MAX)
            return basalt_error_set(err, BASALT_INVALID_ARG, "%s: '%.*s': bad width", what, len, s);
        snprintf(c->transform, sizeof c->transform, "%s[%ld]", transforms[t].transform, n);
    } else {
        snprintf(c->transform, sizeof c->transform, "%s", transforms[t].transform);
    }
    snprintf(c->suffix, sizeof c->suffix, "%s", transforms[t].suffix);
    if (!copy_word(c->column, sizeof c->column, col, col_end))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: '%.*s': no column", what, len, s);
    return BASALT_OK;
}

/* The source field of a clause, checked against its transform. */
static basalt_status resolve(const struct basalt_iceberg_schema *schema, const struct clause *c,
                             const char *what, const struct basalt_iceberg_field **out,
                             struct basalt_error *err)
{
    const struct basalt_iceberg_field *f =
        basalt_iceberg_schema_field_by_name(schema, c->column, false);
    if (!f)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: no column '%s'", what, c->column);
    struct basalt_iceberg_transform t;
    basalt_status st = basalt_iceberg_transform_parse(c->transform, &t, err);
    if (st != BASALT_OK)
        return st;
    if (!basalt_iceberg_transform_can_apply(&t, &f->type)) {
        char type[128];
        basalt_iceberg_type_to_string(&f->type, type, sizeof type);
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: %s cannot apply to '%s' (%s)", what,
                                c->transform, c->column, type);
    }
    *out = f;
    return BASALT_OK;
}

/* The end of the clause starting at s: the next ',' outside parentheses. */
static const char *clause_end(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        if (*s == '(')
            depth++;
        else if (*s == ')')
            depth--;
        else if (*s == ',' && depth == 0)
            break;
    }
    return s;
}

/* A clause's trailing "AS name" (any case): the partition field's name in
 * place of the column and the transform's suffix. Moves *end before it. */
static bool split_alias(const char *s, const char **end, char *alias, size_t cap)
{
    const char *a = s, *b = *end;
    trim(&a, &b);
    const char *word = b;
    while (word > a && !isspace((unsigned char)word[-1]))
        word--;
    const char *kw_end = word;
    while (kw_end > a && isspace((unsigned char)kw_end[-1]))
        kw_end--;
    if (word == b || kw_end - a < 3 || kw_end == word || strncasecmp(kw_end - 2, "as", 2) != 0 ||
        !isspace((unsigned char)kw_end[-3]))
        return false;
    if (!copy_word(alias, cap, word, b))
        return false;
    *end = kw_end - 2;
    return true;
}

basalt_status basalt_iceberg_spec_from_text(const struct basalt_iceberg_schema *schema,
                                           const char *text, json_t **out,
                                           struct basalt_error *err)
{
    json_t *fields = json_array();
    *out = json_pack("{s:i,s:o}", "spec-id", 0, "fields", fields);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (const char *s = text ? text : ""; *s;) {
        const char *end = clause_end(s), *clause_stop = end;
        char alias[256];
        bool named = split_alias(s, &clause_stop, alias, sizeof alias);
        struct clause c;
        const struct basalt_iceberg_field *f;
        basalt_status st = parse_clause(s, clause_stop, "partition", &c, err);
        if (st == BASALT_OK)
            st = resolve(schema, &c, "partition", &f, err);
        if (st != BASALT_OK)
            return st;
        /* Java refuses a partition name that is another column's (readers
         * would confuse the two); identity may keep its column's name. */
        const struct basalt_iceberg_field *same =
            named ? basalt_iceberg_schema_field_by_name(schema, alias, false) : NULL;
        if (same != NULL && !(same == f && strcmp(c.transform, "identity") == 0))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "partition: the name '%s' is a column of the schema", alias);
        char name[300];
        if (named)
            snprintf(name, sizeof name, "%s", alias);
        else
            snprintf(name, sizeof name, "%s%s", c.column, c.suffix);
        json_t *field = json_pack("{s:s,s:s,s:i}", "name", name, "transform", c.transform,
                                  "source-id", f->id);
        if (!field || json_array_append_new(fields, field) != 0)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        s = *end ? end + 1 : end;
    }
    return BASALT_OK;
}

static basalt_status order_json(const struct basalt_iceberg_schema *schema, const char *text,
                                json_t **out, struct basalt_error *err)
{
    json_t *fields = json_array();
    *out = json_pack("{s:i,s:o}", "order-id", 1, "fields", fields);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (const char *s = text ? text : ""; *s;) {
        const char *end = clause_end(s);
        /* Trailing words: asc|desc, nulls first|last. */
        const char *term_end = end;
        bool desc = false, nulls_last = false, nulls_given = false;
        for (;;) {
            const char *a = s, *b = term_end;
            trim(&a, &b);
            const char *sp = b;
            while (sp > a && !isspace((unsigned char)sp[-1]))
                sp--;
            if (sp == a)
                break;
            size_t n = (size_t)(b - sp);
            if (n == 3 && strncasecmp(sp, "asc", 3) == 0)
                desc = false;
            else if (n == 4 && strncasecmp(sp, "desc", 4) == 0)
                desc = true;
            else if ((n == 5 && strncasecmp(sp, "first", 5) == 0) ||
                     (n == 4 && strncasecmp(sp, "last", 4) == 0)) {
                const char *q = sp;
                while (q > a && isspace((unsigned char)q[-1]))
                    q--;
                if (q - a < 5 || strncasecmp(q - 5, "nulls", 5) != 0)
                    break;
                nulls_last = n == 4;
                nulls_given = true;
                sp = q - 5;
            } else {
                break;
            }
            term_end = sp;
        }
        if (!nulls_given)
            nulls_last = desc; /* Iceberg's defaults: nulls first ascending, last descending */
        struct clause c;
        const struct basalt_iceberg_field *f;
        basalt_status st = parse_clause(s, term_end, "sort", &c, err);
        if (st == BASALT_OK)
            st = resolve(schema, &c, "sort", &f, err);
        if (st != BASALT_OK)
            return st;
        json_t *field = json_pack("{s:s,s:i,s:s,s:s}", "transform", c.transform, "source-id",
                                  f->id, "direction", desc ? "desc" : "asc", "null-order",
                                  nulls_last ? "nulls-last" : "nulls-first");
        if (!field || json_array_append_new(fields, field) != 0)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        s = *end ? end + 1 : end;
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_create_updates(const char *schema_json, const char *partition_text,
                                            const char *sort_text, int32_t format_version,
                                            const char *location,
                                            const struct basalt_iceberg_kv *properties,
                                            uint32_t n_properties, char **out,
                                            struct basalt_error *err)
{
    *out = NULL;
    if (!schema_json || !location || !*location)
        return basalt_error_set(err, BASALT_INVALID_ARG, "create: a schema and a location are needed");
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_schema schema;
    json_t *spec = NULL, *order = NULL, *props = json_object();
    char *spec_text = NULL, *order_text = NULL, *props_text = NULL;
    basalt_status st = basalt_iceberg_schema_parse_json(schema_json, strlen(schema_json), &arena,
                                                        &schema, err);
    if (st == BASALT_OK && !props)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_iceberg_spec_from_text(&schema, partition_text, &spec, err);
    if (st == BASALT_OK)
        st = order_json(&schema, sort_text, &order, err);
    for (uint32_t i = 0; st == BASALT_OK && i < n_properties; i++)
        if (json_object_set_new(props, properties[i].key, json_string(properties[i].value)) != 0)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK) {
        spec_text = json_dumps(spec, JSON_COMPACT);
        order_text = json_dumps(order, JSON_COMPACT);
        props_text = json_dumps(props, JSON_COMPACT);
        if (!spec_text || !order_text || !props_text)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    /* The text forms only resolve to the JSON objects a REST client sends. */
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates_json(schema_json, spec_text, order_text,
                                                format_version, location, props_text, out, err);
    free(spec_text);
    free(order_text);
    free(props_text);
    json_decref(spec);
    json_decref(order);
    json_decref(props);
    basalt_arena_reset(&arena);
    return st;
}
