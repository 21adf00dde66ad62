/* An Iceberg schema from an Arrow schema ("create ... like" a file), with
 * fresh field ids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/arrow.h"
#include "commit_internal.h"

static bool is_uuid_extension(const struct ArrowSchema *s)
{
    const char *name = NULL;
    size_t len = 0;
    if (!s->metadata ||
        basalt_arrow_metadata_get(s->metadata, "ARROW:extension:name", &name, &len, NULL) !=
            BASALT_OK ||
        !name)
        return false;
    return len == 10 && memcmp(name, "arrow.uuid", 10) == 0;
}

static basalt_status type_json(const struct ArrowSchema *s, int32_t format_version, int depth,
                               json_t **out, struct basalt_error *err);

static basalt_status field_json(const struct ArrowSchema *s, int32_t format_version, int depth,
                                json_t **out, struct basalt_error *err)
{
    json_t *type = NULL;
    basalt_status st = type_json(s, format_version, depth + 1, &type, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "column '%.200s'", s->name ? s->name : "");
    *out = json_pack("{s:i,s:s,s:b,s:o}", "id", 0, "name", s->name ? s->name : "", "required",
                     !(s->flags & ARROW_FLAG_NULLABLE), "type", type);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static basalt_status type_json(const struct ArrowSchema *s, int32_t format_version, int depth,
                               json_t **out, struct basalt_error *err)
{
    if (depth > 64)
        return basalt_error_set(err, BASALT_LIMIT, "types nested too deeply");
    if (s->dictionary)
        return type_json(s->dictionary, format_version, depth + 1, out, err);
    const char *f = s->format;
    const char *prim = NULL;
    char text[64];
    if (!strcmp(f, "b"))
        prim = "boolean";
    else if (!strcmp(f, "c") || !strcmp(f, "s") || !strcmp(f, "i") || !strcmp(f, "C") ||
             !strcmp(f, "S"))
        prim = "int";
    else if (!strcmp(f, "I") || !strcmp(f, "l"))
        prim = "long";
    else if (!strcmp(f, "f"))
        prim = "float";
    else if (!strcmp(f, "g"))
        prim = "double";
    else if (!strcmp(f, "u") || !strcmp(f, "U") || !strcmp(f, "vu"))
        prim = "string";
    else if (!strcmp(f, "z") || !strcmp(f, "Z") || !strcmp(f, "vz"))
        prim = "binary";
    else if (!strcmp(f, "tdD") || !strcmp(f, "tdm"))
        prim = "date";
    else if (!strcmp(f, "tts") || !strcmp(f, "ttm") || !strcmp(f, "ttu") || !strcmp(f, "ttn"))
        prim = "time";
    else if (!strncmp(f, "ts", 2) && strlen(f) >= 4 && f[3] == ':') {
        bool tz = f[4] != '\0';
        bool ns = f[2] == 'n' && format_version >= 3;
        prim = ns ? (tz ? "timestamptz_ns" : "timestamp_ns") : (tz ? "timestamptz" : "timestamp");
    } else if (!strcmp(f, "n") && format_version >= 3)
        prim = "unknown";
    else if (!strncmp(f, "w:", 2)) {
        long len = strtol(f + 2, NULL, 10);
        if (len == 16 && is_uuid_extension(s))
            prim = "uuid";
        else {
            snprintf(text, sizeof text, "fixed[%ld]", len);
            prim = text;
        }
    } else if (!strncmp(f, "d:", 2)) {
        int p = 0, sc = 0, bits = 128;
        if (sscanf(f + 2, "%d,%d,%d", &p, &sc, &bits) < 2 || p < 1 || p > 38 || sc < 0 || sc > p)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "decimal '%s' has no Iceberg type", f);
        snprintf(text, sizeof text, "decimal(%d, %d)", p, sc);
        prim = text;
    }
    if (prim) {
        *out = json_string(prim);
        return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (!strcmp(f, "+s")) {
        json_t *fields = json_array();
        for (int64_t i = 0; fields && i < s->n_children; i++) {
            json_t *field = NULL;
            basalt_status st = field_json(s->children[i], format_version, depth, &field, err);
            if (st != BASALT_OK) {
                json_decref(fields);
                return st;
            }
            json_array_append_new(fields, field);
        }
        *out = fields ? json_pack("{s:s,s:o}", "type", "struct", "fields", fields) : NULL;
    } else if ((!strcmp(f, "+l") || !strcmp(f, "+L") || !strncmp(f, "+w:", 3)) &&
               s->n_children == 1) {
        json_t *elem = NULL;
        basalt_status st = type_json(s->children[0], format_version, depth + 1, &elem, err);
        if (st != BASALT_OK)
            return st;
        *out = json_pack("{s:s,s:i,s:o,s:b}", "type", "list", "element-id", 0, "element", elem,
                         "element-required", !(s->children[0]->flags & ARROW_FLAG_NULLABLE));
    } else if (!strcmp(f, "+m") && s->n_children == 1 && s->children[0]->n_children == 2) {
        const struct ArrowSchema *entries = s->children[0];
        json_t *key = NULL, *value = NULL;
        basalt_status st = type_json(entries->children[0], format_version, depth + 1, &key, err);
        if (st == BASALT_OK)
            st = type_json(entries->children[1], format_version, depth + 1, &value, err);
        if (st != BASALT_OK) {
            json_decref(key);
            return st;
        }
        *out = json_pack("{s:s,s:i,s:o,s:i,s:o,s:b}", "type", "map", "key-id", 0, "key", key,
                         "value-id", 0, "value", value, "value-required",
                         !(entries->children[1]->flags & ARROW_FLAG_NULLABLE));
    } else {
        return basalt_error_set(err, BASALT_UNSUPPORTED, "Arrow type '%s' has no Iceberg type", f);
    }
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status basalt_iceberg_schema_from_arrow(const struct ArrowSchema *schema,
                                               int32_t format_version, char **out,
                                               struct basalt_error *err)
{
    *out = NULL;
    if (!schema || strcmp(schema->format, "+s") != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_from_arrow: not a struct schema");
    json_t *type = NULL;
    basalt_status st = type_json(schema, format_version, 0, &type, err);
    if (st != BASALT_OK)
        return st;
    json_object_set_new(type, "schema-id", json_integer(0));
    /* Nullability of the top level is not a column's: every column keeps its own. */
    basalt_iceberg_assign_fresh_ids(type);
    char *text = json_dumps(type, JSON_COMPACT);
    json_decref(type);
    size_t n = text ? strlen(text) : 0;
    *out = text ? basalt_malloc(n + 1) : NULL;
    if (*out)
        memcpy(*out, text, n + 1);
    free(text);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}
