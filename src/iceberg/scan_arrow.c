/* Iceberg types as Arrow types. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_internal.h"

#define FIELD_ID_KEY "PARQUET:field_id"
#define MAX_DEPTH 200

basalt_status basalt_iceberg_scan_type_format(const struct basalt_iceberg_type *type, char *buf,
                                              size_t cap, struct basalt_error *err)
{
    const char *f = NULL;
    int n = 0;
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN: f = "b"; break;
    case BASALT_ICEBERG_TYPE_INT: f = "i"; break;
    case BASALT_ICEBERG_TYPE_LONG: f = "l"; break;
    case BASALT_ICEBERG_TYPE_FLOAT: f = "f"; break;
    case BASALT_ICEBERG_TYPE_DOUBLE: f = "g"; break;
    case BASALT_ICEBERG_TYPE_DATE: f = "tdD"; break;
    case BASALT_ICEBERG_TYPE_TIME: f = "ttu"; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP: f = "tsu:"; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ: f = "tsu:UTC"; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS: f = "tsn:"; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS: f = "tsn:UTC"; break;
    case BASALT_ICEBERG_TYPE_STRING: f = "u"; break;
    case BASALT_ICEBERG_TYPE_UUID: f = "w:16"; break;
    case BASALT_ICEBERG_TYPE_BINARY: f = "z"; break;
    case BASALT_ICEBERG_TYPE_GEOMETRY:
    case BASALT_ICEBERG_TYPE_GEOGRAPHY: f = "z"; break;
    case BASALT_ICEBERG_TYPE_UNKNOWN: f = "n"; break;
    case BASALT_ICEBERG_TYPE_STRUCT: f = "+s"; break;
    case BASALT_ICEBERG_TYPE_LIST: f = "+l"; break;
    case BASALT_ICEBERG_TYPE_MAP: f = "+m"; break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        n = snprintf(buf, cap, "d:%" PRId32 ",%" PRId32, type->precision, type->scale);
        break;
    case BASALT_ICEBERG_TYPE_FIXED:
        n = snprintf(buf, cap, "w:%" PRId32, type->length);
        break;
    case BASALT_ICEBERG_TYPE_VARIANT:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "variant columns cannot be read yet");
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "type %d has no Arrow type", (int)type->id);
    }
    if (f != NULL)
        n = snprintf(buf, cap, "%s", f);
    if (n < 0 || (size_t)n >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "format buffer too small");
    return BASALT_OK;
}

/* The field id, and for uuid the arrow.uuid extension type (as the Parquet
 * reader gives UUID columns). */
static basalt_status set_field_metadata(struct ArrowSchema *s, int32_t id, bool uuid,
                                        struct basalt_error *err)
{
    char text[16];
    int n = snprintf(text, sizeof text, "%" PRId32, id);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_arrow_metadata_append(&buf, FIELD_ID_KEY, strlen(FIELD_ID_KEY), text,
                                                    (size_t)n, err);
    if (st == BASALT_OK && uuid)
        st = basalt_arrow_metadata_append(&buf, "ARROW:extension:name", 20, "arrow.uuid", 10, err);
    if (st == BASALT_OK && uuid)
        st = basalt_arrow_metadata_append(&buf, "ARROW:extension:metadata", 24, "", 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(s, (const char *)buf.data, err);
    basalt_buffer_reset(&buf);
    return st;
}

static basalt_status field_node(const char *name, int32_t id, bool nullable,
                                const struct basalt_iceberg_type *type, struct ArrowSchema *out,
                                int depth, struct basalt_error *err);

static basalt_status type_children(const struct basalt_iceberg_type *type, struct ArrowSchema *s,
                                   int depth, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (type->id == BASALT_ICEBERG_TYPE_STRUCT || type->id == BASALT_ICEBERG_TYPE_LIST) {
        for (uint32_t i = 0; i < type->n_fields && st == BASALT_OK; i++) {
            const struct basalt_iceberg_field *f = &type->fields[i];
            const char *name = type->id == BASALT_ICEBERG_TYPE_LIST ? "element" : f->name;
            st = field_node(name, f->id, !f->required, &f->type, s->children[i], depth + 1, err);
        }
    } else if (type->id == BASALT_ICEBERG_TYPE_MAP) {
        struct ArrowSchema *entries = s->children[0];
        st = basalt_arrow_schema_init(entries, "+s", "key_value", 0, 2, err);
        if (st == BASALT_OK)
            st = field_node("key", type->fields[0].id, false, &type->fields[0].type,
                            entries->children[0], depth + 1, err);
        if (st == BASALT_OK)
            st = field_node("value", type->fields[1].id, !type->fields[1].required,
                            &type->fields[1].type, entries->children[1], depth + 1, err);
    }
    return st;
}

static basalt_status field_node(const char *name, int32_t id, bool nullable,
                                const struct basalt_iceberg_type *type, struct ArrowSchema *out,
                                int depth, struct basalt_error *err)
{
    if (depth > MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "type nesting over %d levels", MAX_DEPTH);
    char format[48];
    basalt_status st = basalt_iceberg_scan_type_format(type, format, sizeof format, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "field %" PRId32 " '%s'", id, name ? name : "");
    int64_t n_children = 0;
    if (type->id == BASALT_ICEBERG_TYPE_STRUCT)
        n_children = type->n_fields;
    else if (type->id == BASALT_ICEBERG_TYPE_LIST || type->id == BASALT_ICEBERG_TYPE_MAP)
        n_children = 1;
    if ((type->id == BASALT_ICEBERG_TYPE_LIST && type->n_fields != 1) ||
        (type->id == BASALT_ICEBERG_TYPE_MAP && type->n_fields != 2))
        return basalt_error_set(err, BASALT_CORRUPT, "field %" PRId32 ": malformed nested type", id);
    /* the null type is always nullable */
    if (type->id == BASALT_ICEBERG_TYPE_UNKNOWN)
        nullable = true;
    st = basalt_arrow_schema_init(out, format, name, nullable ? ARROW_FLAG_NULLABLE : 0,
                                  n_children, err);
    if (st != BASALT_OK)
        return st;
    st = set_field_metadata(out, id, type->id == BASALT_ICEBERG_TYPE_UUID, err);
    if (st == BASALT_OK)
        st = type_children(type, out, depth, err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

basalt_status basalt_iceberg_scan_field_to_arrow(const struct basalt_iceberg_field *field,
                                                 struct ArrowSchema *out, struct basalt_error *err)
{
    return field_node(field->name, field->id, !field->required, &field->type, out, 0, err);
}

BASALT_EXPORT basalt_status basalt_iceberg_schema_to_arrow(const struct basalt_iceberg_schema *schema,
                                                           struct ArrowSchema *out,
                                                           struct basalt_error *err)
{
    if (schema == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL schema or out");
    const struct basalt_iceberg_type *root = &schema->root;
    basalt_status st = basalt_arrow_schema_init(out, "+s", "", 0, root->n_fields, err);
    if (st != BASALT_OK)
        return st;
    for (uint32_t i = 0; i < root->n_fields && st == BASALT_OK; i++)
        st = basalt_iceberg_scan_field_to_arrow(&root->fields[i], out->children[i], err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

bool basalt_iceberg_scan_arrow_field_id(const struct ArrowSchema *schema, int32_t *id)
{
    const char *v;
    size_t len;
    if (schema->metadata == NULL ||
        basalt_arrow_metadata_get(schema->metadata, FIELD_ID_KEY, &v, &len, NULL) != BASALT_OK)
        return false;
    char text[24];
    if (len == 0 || len >= sizeof text)
        return false;
    memcpy(text, v, len);
    text[len] = '\0';
    char *end;
    long long x = strtoll(text, &end, 10);
    if (*end != '\0' || x < INT32_MIN || x > INT32_MAX)
        return false;
    *id = (int32_t)x;
    return true;
}
