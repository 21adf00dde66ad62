/* Partition transforms: parsing, applicability and result types. */
#include <string.h>
#include <strings.h>

#include "basalt/iceberg_metadata.h"
#include "transform_internal.h"

/* The positive decimal integer of "NAME[digits]" after the '['; CORRUPT for
 * anything else (no digits, a sign, trailing bytes, 0, past INT32_MAX). */
static basalt_status transform_param(const char *text, const char *p, int32_t *out,
                                     struct basalt_error *err)
{
    int64_t v = 0;
    const char *start = p;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > INT32_MAX)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "transform '%s': parameter exceeds 2147483647", text);
        p++;
    }
    if (p == start || p[0] != ']' || p[1] != '\0')
        return basalt_error_set(err, BASALT_CORRUPT, "transform '%s': malformed parameter", text);
    if (v == 0)
        return basalt_error_set(err, BASALT_CORRUPT, "transform '%s': parameter must be positive",
                                text);
    *out = (int32_t)v;
    return BASALT_OK;
}

basalt_status basalt_iceberg_transform_parse(const char *text, struct basalt_iceberg_transform *out,
                                             struct basalt_error *err)
{
    if (!text || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "transform: NULL argument");
    static const struct {
        const char *name;
        enum basalt_iceberg_transform_kind kind;
    } plain[] = {
        {"identity", BASALT_ICEBERG_TRANSFORM_IDENTITY}, {"year", BASALT_ICEBERG_TRANSFORM_YEAR},
        {"month", BASALT_ICEBERG_TRANSFORM_MONTH},       {"day", BASALT_ICEBERG_TRANSFORM_DAY},
        {"hour", BASALT_ICEBERG_TRANSFORM_HOUR},         {"void", BASALT_ICEBERG_TRANSFORM_VOID},
    };
    out->text = text;
    out->param = 0;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        if (strcasecmp(text, plain[i].name) == 0) {
            out->kind = plain[i].kind;
            return BASALT_OK;
        }
    }
    if (strncasecmp(text, "bucket[", 7) == 0) {
        out->kind = BASALT_ICEBERG_TRANSFORM_BUCKET;
        return transform_param(text, text + 7, &out->param, err);
    }
    if (strncasecmp(text, "truncate[", 9) == 0) {
        out->kind = BASALT_ICEBERG_TRANSFORM_TRUNCATE;
        return transform_param(text, text + 9, &out->param, err);
    }
    out->kind = BASALT_ICEBERG_TRANSFORM_UNKNOWN;
    return BASALT_OK;
}

static bool type_is_primitive(enum basalt_iceberg_type_id id)
{
    return id >= BASALT_ICEBERG_TYPE_BOOLEAN && id <= BASALT_ICEBERG_TYPE_BINARY;
}

static bool type_is_timestamp(enum basalt_iceberg_type_id id)
{
    return id == BASALT_ICEBERG_TYPE_TIMESTAMP || id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ ||
           id == BASALT_ICEBERG_TYPE_TIMESTAMP_NS || id == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS;
}

bool basalt_iceberg_transform_can_apply(const struct basalt_iceberg_transform *t,
                                        const struct basalt_iceberg_type *source)
{
    if (!t || !source)
        return false;
    enum basalt_iceberg_type_id id = source->id;
    switch (t->kind) {
    case BASALT_ICEBERG_TRANSFORM_IDENTITY:
        return type_is_primitive(id);
    case BASALT_ICEBERG_TRANSFORM_BUCKET:
        switch (id) {
        case BASALT_ICEBERG_TYPE_INT:
        case BASALT_ICEBERG_TYPE_LONG:
        case BASALT_ICEBERG_TYPE_DECIMAL:
        case BASALT_ICEBERG_TYPE_DATE:
        case BASALT_ICEBERG_TYPE_TIME:
        case BASALT_ICEBERG_TYPE_STRING:
        case BASALT_ICEBERG_TYPE_UUID:
        case BASALT_ICEBERG_TYPE_FIXED:
        case BASALT_ICEBERG_TYPE_BINARY:
            return true;
        default:
            return type_is_timestamp(id);
        }
    case BASALT_ICEBERG_TRANSFORM_TRUNCATE:
        return id == BASALT_ICEBERG_TYPE_INT || id == BASALT_ICEBERG_TYPE_LONG ||
               id == BASALT_ICEBERG_TYPE_DECIMAL || id == BASALT_ICEBERG_TYPE_STRING ||
               id == BASALT_ICEBERG_TYPE_BINARY;
    case BASALT_ICEBERG_TRANSFORM_YEAR:
    case BASALT_ICEBERG_TRANSFORM_MONTH:
    case BASALT_ICEBERG_TRANSFORM_DAY:
        return id == BASALT_ICEBERG_TYPE_DATE || type_is_timestamp(id);
    case BASALT_ICEBERG_TRANSFORM_HOUR:
        return type_is_timestamp(id);
    case BASALT_ICEBERG_TRANSFORM_VOID:
    case BASALT_ICEBERG_TRANSFORM_UNKNOWN:
        return true;
    }
    return false;
}

basalt_status basalt_iceberg_transform_result_type(const struct basalt_iceberg_transform *t,
                                                   const struct basalt_iceberg_type *source,
                                                   struct basalt_iceberg_type *out,
                                                   struct basalt_error *err)
{
    if (!t || !source || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "transform: NULL argument");
    if (t->kind == BASALT_ICEBERG_TRANSFORM_UNKNOWN)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "transform '%s' is not supported",
                                t->text ? t->text : "?");
    if (!basalt_iceberg_transform_can_apply(t, source))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "transform '%s' does not apply to this source type",
                                t->text ? t->text : "?");
    switch (t->kind) {
    case BASALT_ICEBERG_TRANSFORM_BUCKET:
    case BASALT_ICEBERG_TRANSFORM_YEAR:
    case BASALT_ICEBERG_TRANSFORM_MONTH:
    case BASALT_ICEBERG_TRANSFORM_HOUR:
        memset(out, 0, sizeof *out);
        out->id = BASALT_ICEBERG_TYPE_INT;
        return BASALT_OK;
    case BASALT_ICEBERG_TRANSFORM_DAY:
        memset(out, 0, sizeof *out);
        out->id = BASALT_ICEBERG_TYPE_DATE;
        return BASALT_OK;
    default:
        *out = *source;
        return BASALT_OK;
    }
}

static const struct basalt_iceberg_field *find_field(const struct basalt_iceberg_type *type,
                                                     int32_t field_id, bool repeated,
                                                     bool *in_repeated)
{
    if (type->id != BASALT_ICEBERG_TYPE_STRUCT && type->id != BASALT_ICEBERG_TYPE_LIST &&
        type->id != BASALT_ICEBERG_TYPE_MAP)
        return NULL;
    bool inner = repeated || type->id != BASALT_ICEBERG_TYPE_STRUCT;
    for (uint32_t i = 0; i < type->n_fields; i++) {
        const struct basalt_iceberg_field *f = &type->fields[i];
        if (f->id == field_id) {
            *in_repeated = inner;
            return f;
        }
        const struct basalt_iceberg_field *found =
            find_field(&f->type, field_id, inner, in_repeated);
        if (found)
            return found;
    }
    return NULL;
}

const struct basalt_iceberg_type *
basalt_iceberg_tx_field_type(const struct basalt_iceberg_schema *schema, int32_t field_id,
                             bool *in_repeated)
{
    bool repeated = false;
    const struct basalt_iceberg_field *f = NULL;
    if (schema) {
        /* the common case, a top-level column, without walking the schema */
        f = basalt_iceberg_schema_field(schema, field_id);
        uintptr_t p = (uintptr_t)f, first = (uintptr_t)schema->root.fields;
        if (!f || p < first || p >= first + schema->root.n_fields * sizeof *f)
            f = find_field(&schema->root, field_id, false, &repeated);
    }
    if (in_repeated)
        *in_repeated = repeated;
    return f ? &f->type : NULL;
}
