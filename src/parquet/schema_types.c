/* Annotations (LogicalType, else ConvertedType) and the Arrow type and value
 * conversion of each leaf. */
#include <stdio.h>
#include <string.h>

#include "parquet_schema.h"

/* Decimal digits an n-byte two's complement integer always holds:
 * floor(log10(2^(8n-1) - 1)), n = 1..32. */
static const int8_t flba_max_precision[33] = {0,  2,  4,  6,  9,  11, 14, 16, 18, 21, 23,
                                              26, 28, 31, 33, 35, 38, 40, 43, 45, 47, 50,
                                              52, 55, 57, 59, 62, 64, 67, 69, 71, 74, 76};

/* Arrow's largest decimal (decimal256). */
#define MAX_DECIMAL_PRECISION 76

static void from_logical(const struct basalt_parquet_logical_type *lt,
                         struct basalt_parquet_schema_annotation *a)
{
    switch (lt->kind) {
    case BASALT_PARQUET_LOGICAL_TYPE_STRING: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_STRING; break;
    case BASALT_PARQUET_LOGICAL_TYPE_MAP: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_MAP; break;
    case BASALT_PARQUET_LOGICAL_TYPE_LIST: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_LIST; break;
    case BASALT_PARQUET_LOGICAL_TYPE_ENUM: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_ENUM; break;
    case BASALT_PARQUET_LOGICAL_TYPE_DECIMAL:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL;
        a->precision = lt->decimal.precision;
        a->scale = lt->decimal.scale;
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_DATE: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_DATE; break;
    case BASALT_PARQUET_LOGICAL_TYPE_TIME:
    case BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP:
        /* A unit this library does not know makes the whole type unknown. */
        if (lt->time.unit < BASALT_PARQUET_TIME_UNIT_MILLIS ||
            lt->time.unit > BASALT_PARQUET_TIME_UNIT_NANOS) {
            a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_UNKNOWN;
            break;
        }
        a->kind = lt->kind == BASALT_PARQUET_LOGICAL_TYPE_TIME
                      ? BASALT_PARQUET_SCHEMA_LOGICAL_TIME
                      : BASALT_PARQUET_SCHEMA_LOGICAL_TIMESTAMP;
        a->unit = lt->time.unit;
        a->adjusted_to_utc = lt->time.is_adjusted_to_utc;
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_INTEGER:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER;
        a->bit_width = lt->integer.bit_width;
        a->is_signed = lt->integer.is_signed;
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_UNKNOWN: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_NULL; break;
    case BASALT_PARQUET_LOGICAL_TYPE_JSON: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_JSON; break;
    case BASALT_PARQUET_LOGICAL_TYPE_BSON: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_BSON; break;
    case BASALT_PARQUET_LOGICAL_TYPE_UUID: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_UUID; break;
    case BASALT_PARQUET_LOGICAL_TYPE_FLOAT16: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16; break;
    case BASALT_PARQUET_LOGICAL_TYPE_VARIANT: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_VARIANT; break;
    case BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_GEOMETRY;
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_GEOGRAPHY;
        break;
    default: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_UNKNOWN; break;
    }
}

static bool from_converted(const struct basalt_parquet_schema_element *e,
                           struct basalt_parquet_schema_annotation *a)
{
    a->from_converted_type = true;
    int32_t ct = e->converted_type;
    switch (ct) {
    case BASALT_PARQUET_CONVERTED_TYPE_UTF8: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_STRING; break;
    case BASALT_PARQUET_CONVERTED_TYPE_MAP: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_MAP; break;
    case BASALT_PARQUET_CONVERTED_TYPE_MAP_KEY_VALUE:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_MAP_KEY_VALUE;
        break;
    case BASALT_PARQUET_CONVERTED_TYPE_LIST: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_LIST; break;
    case BASALT_PARQUET_CONVERTED_TYPE_ENUM: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_ENUM; break;
    case BASALT_PARQUET_CONVERTED_TYPE_DECIMAL:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL;
        a->precision = e->has_precision ? e->precision : 0;
        a->scale = e->has_scale ? e->scale : 0;
        break;
    case BASALT_PARQUET_CONVERTED_TYPE_DATE: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_DATE; break;
    case BASALT_PARQUET_CONVERTED_TYPE_TIME_MILLIS:
    case BASALT_PARQUET_CONVERTED_TYPE_TIME_MICROS:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_TIME;
        a->unit = ct == BASALT_PARQUET_CONVERTED_TYPE_TIME_MILLIS ? BASALT_PARQUET_TIME_UNIT_MILLIS
                                                                  : BASALT_PARQUET_TIME_UNIT_MICROS;
        a->adjusted_to_utc = true;
        break;
    case BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MILLIS:
    case BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MICROS:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_TIMESTAMP;
        a->unit = ct == BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MILLIS
                      ? BASALT_PARQUET_TIME_UNIT_MILLIS
                      : BASALT_PARQUET_TIME_UNIT_MICROS;
        a->adjusted_to_utc = true;
        break;
    case BASALT_PARQUET_CONVERTED_TYPE_UINT_8:
    case BASALT_PARQUET_CONVERTED_TYPE_UINT_16:
    case BASALT_PARQUET_CONVERTED_TYPE_UINT_32:
    case BASALT_PARQUET_CONVERTED_TYPE_UINT_64:
    case BASALT_PARQUET_CONVERTED_TYPE_INT_8:
    case BASALT_PARQUET_CONVERTED_TYPE_INT_16:
    case BASALT_PARQUET_CONVERTED_TYPE_INT_32:
    case BASALT_PARQUET_CONVERTED_TYPE_INT_64: {
        static const int8_t widths[] = {8, 16, 32, 64};
        bool is_signed = ct >= BASALT_PARQUET_CONVERTED_TYPE_INT_8;
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER;
        a->bit_width = widths[is_signed ? ct - BASALT_PARQUET_CONVERTED_TYPE_INT_8
                                        : ct - BASALT_PARQUET_CONVERTED_TYPE_UINT_8];
        a->is_signed = is_signed;
        break;
    }
    case BASALT_PARQUET_CONVERTED_TYPE_JSON: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_JSON; break;
    case BASALT_PARQUET_CONVERTED_TYPE_BSON: a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_BSON; break;
    case BASALT_PARQUET_CONVERTED_TYPE_INTERVAL:
        a->kind = BASALT_PARQUET_SCHEMA_LOGICAL_INTERVAL;
        break;
    default:
        a->from_converted_type = false; /* a value this library does not know: ignored */
        return false;
    }
    return true;
}

static bool group_kind(enum basalt_parquet_schema_logical k)
{
    return k == BASALT_PARQUET_SCHEMA_LOGICAL_LIST || k == BASALT_PARQUET_SCHEMA_LOGICAL_MAP ||
           k == BASALT_PARQUET_SCHEMA_LOGICAL_MAP_KEY_VALUE ||
           k == BASALT_PARQUET_SCHEMA_LOGICAL_VARIANT;
}

static basalt_status misfit(const struct basalt_parquet_schema_node *n, struct basalt_error *err,
                            const char *why)
{
    return basalt_error_set(err, BASALT_CORRUPT, "column '%s': %s", n->path, why);
}

/* Does the annotation fit the physical type (leaves only)? */
static basalt_status check_leaf(const struct basalt_parquet_schema_node *n,
                                struct basalt_error *err)
{
    const struct basalt_parquet_schema_annotation *a = &n->annotation;
    int32_t t = n->physical_type;
    switch (a->kind) {
    case BASALT_PARQUET_SCHEMA_LOGICAL_NONE:
    case BASALT_PARQUET_SCHEMA_LOGICAL_NULL:
    case BASALT_PARQUET_SCHEMA_LOGICAL_UNKNOWN:
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_STRING:
    case BASALT_PARQUET_SCHEMA_LOGICAL_ENUM:
    case BASALT_PARQUET_SCHEMA_LOGICAL_JSON:
    case BASALT_PARQUET_SCHEMA_LOGICAL_BSON:
    case BASALT_PARQUET_SCHEMA_LOGICAL_GEOMETRY:
    case BASALT_PARQUET_SCHEMA_LOGICAL_GEOGRAPHY:
        if (t != BASALT_PARQUET_TYPE_BYTE_ARRAY)
            return misfit(n, err, "a string, JSON, BSON or geospatial annotation needs BYTE_ARRAY");
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_UUID:
        if (t != BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY || n->type_length != 16)
            return misfit(n, err, "UUID needs FIXED_LEN_BYTE_ARRAY(16)");
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16:
        if (t != BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY || n->type_length != 2)
            return misfit(n, err, "FLOAT16 needs FIXED_LEN_BYTE_ARRAY(2)");
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_INTERVAL:
        if (t != BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY || n->type_length != 12)
            return misfit(n, err, "INTERVAL needs FIXED_LEN_BYTE_ARRAY(12)");
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_DATE:
        if (t != BASALT_PARQUET_TYPE_INT32)
            return misfit(n, err, "DATE needs INT32");
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_TIME:
        if (t != (a->unit == BASALT_PARQUET_TIME_UNIT_MILLIS ? BASALT_PARQUET_TYPE_INT32
                                                             : BASALT_PARQUET_TYPE_INT64))
            return misfit(n, err, "TIME needs INT32 for milliseconds, INT64 otherwise");
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_TIMESTAMP:
        if (t != BASALT_PARQUET_TYPE_INT64)
            return misfit(n, err, "TIMESTAMP needs INT64");
        return BASALT_OK;
    case BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER:
        if (t == BASALT_PARQUET_TYPE_INT32 &&
            (a->bit_width == 8 || a->bit_width == 16 || a->bit_width == 32))
            return BASALT_OK;
        if (t == BASALT_PARQUET_TYPE_INT64 && a->bit_width == 64)
            return BASALT_OK;
        return misfit(n, err, "INTEGER bit width does not fit the physical type");
    case BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL: {
        int32_t max;
        switch (t) {
        case BASALT_PARQUET_TYPE_INT32: max = 9; break;
        case BASALT_PARQUET_TYPE_INT64: max = 18; break;
        case BASALT_PARQUET_TYPE_BYTE_ARRAY: max = MAX_DECIMAL_PRECISION; break;
        case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
            max = n->type_length <= 32 ? flba_max_precision[n->type_length] : MAX_DECIMAL_PRECISION;
            break;
        default: return misfit(n, err, "DECIMAL needs INT32, INT64 or a byte array");
        }
        if (a->precision < 1 || a->precision > max)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "column '%s': DECIMAL precision %d out of range 1..%d for its "
                                    "physical type",
                                    n->path, (int)a->precision, (int)max);
        if (a->scale < 0 || a->scale > a->precision)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "column '%s': DECIMAL scale %d outside 0..precision %d",
                                    n->path, (int)a->scale, (int)a->precision);
        return BASALT_OK;
    }
    default:
        return misfit(n, err, "a group annotation on a primitive column");
    }
}

basalt_status basalt_parquet_schema_annotate(struct basalt_parquet_schema *schema, int32_t node,
                                             const struct basalt_parquet_schema_element *e,
                                             struct basalt_error *err)
{
    struct basalt_parquet_schema_node *n = &schema->nodes[node];
    struct basalt_parquet_schema_annotation *a = &n->annotation;
    memset(a, 0, sizeof *a);
    if (e->has_logical_type && e->logical_type.kind != BASALT_PARQUET_LOGICAL_TYPE_NONE)
        from_logical(&e->logical_type, a);
    /* A LogicalType this library does not know falls back on the
     * ConvertedType written for older readers, when there is one. */
    if ((a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_NONE ||
         a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_UNKNOWN) &&
        e->has_converted_type) {
        struct basalt_parquet_schema_annotation c;
        memset(&c, 0, sizeof c);
        if (from_converted(e, &c))
            *a = c;
    }
    if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_GEOMETRY ||
        a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_GEOGRAPHY) {
        const struct basalt_parquet_logical_type *lt = &e->logical_type;
        if (lt->geo.has_crs && lt->geo.crs.data) {
            a->crs = basalt_parquet_schema_strdup(schema, lt->geo.crs.data, lt->geo.crs.len, err);
            if (!a->crs)
                return BASALT_NOMEM;
        }
        a->algorithm = lt->geo.has_algorithm ? lt->geo.algorithm
                                             : BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_SPHERICAL;
    }
    if (!n->is_leaf) {
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_NONE ||
            a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_UNKNOWN || group_kind(a->kind))
            return BASALT_OK;
        return misfit(n, err, "a primitive annotation on a group");
    }
    return check_leaf(n, err);
}

int32_t basalt_parquet_schema_format_width(const char *format)
{
    struct basalt_arrow_type type;
    if (basalt_arrow_type_parse(format, &type, NULL) != BASALT_OK)
        return 0;
    if (type.id == BASALT_ARROW_TYPE_BOOL || type.bit_width % 8 != 0)
        return 0;
    return (int32_t)(type.bit_width / 8);
}

static basalt_status set_format(struct basalt_parquet_schema *schema,
                                struct basalt_parquet_schema_leaf *leaf, const char *format,
                                struct basalt_error *err)
{
    leaf->format = basalt_parquet_schema_strdup(schema, format, strlen(format), err);
    if (!leaf->format)
        return BASALT_NOMEM;
    leaf->value_width = basalt_parquet_schema_format_width(format);
    return BASALT_OK;
}

static const char *physical_format(const struct basalt_parquet_schema_leaf *leaf, char *buf,
                                   size_t cap)
{
    switch (leaf->physical_type) {
    case BASALT_PARQUET_TYPE_BOOLEAN: return "b";
    case BASALT_PARQUET_TYPE_INT32: return "i";
    case BASALT_PARQUET_TYPE_INT64: return "l";
    case BASALT_PARQUET_TYPE_INT96: return "tsn:";
    case BASALT_PARQUET_TYPE_FLOAT: return "f";
    case BASALT_PARQUET_TYPE_DOUBLE: return "g";
    case BASALT_PARQUET_TYPE_BYTE_ARRAY: return "z";
    default: snprintf(buf, cap, "w:%d", (int)leaf->type_length); return buf;
    }
}

basalt_status basalt_parquet_schema_leaf_type(struct basalt_parquet_schema *schema,
                                              struct basalt_parquet_schema_leaf *leaf,
                                              struct basalt_error *err)
{
    const struct basalt_parquet_schema_annotation *a = &leaf->annotation;
    char buf[48];
    const char *format = physical_format(leaf, buf, sizeof buf);
    leaf->conversion = leaf->physical_type == BASALT_PARQUET_TYPE_INT96
                           ? BASALT_PARQUET_CONVERT_INT96_TO_TIMESTAMP
                           : BASALT_PARQUET_CONVERT_NONE;
    static const char unit_chars[] = "?mun";
    switch (a->kind) {
    case BASALT_PARQUET_SCHEMA_LOGICAL_STRING:
    case BASALT_PARQUET_SCHEMA_LOGICAL_ENUM:
    case BASALT_PARQUET_SCHEMA_LOGICAL_JSON:
        format = "u";
        break;
    case BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16: format = "e"; break;
    case BASALT_PARQUET_SCHEMA_LOGICAL_DATE: format = "tdD"; break;
    case BASALT_PARQUET_SCHEMA_LOGICAL_NULL:
        format = "n";
        leaf->conversion = BASALT_PARQUET_CONVERT_NULL;
        break;
    case BASALT_PARQUET_SCHEMA_LOGICAL_TIME:
        snprintf(buf, sizeof buf, "tt%c", unit_chars[a->unit]);
        format = buf;
        break;
    case BASALT_PARQUET_SCHEMA_LOGICAL_TIMESTAMP:
        /* Only a LogicalType says the values are UTC-normalised; Arrow C++
         * reads a lone ConvertedType TIMESTAMP_* as zone-less. */
        snprintf(buf, sizeof buf, "ts%c:%s", unit_chars[a->unit],
                 a->adjusted_to_utc && !a->from_converted_type ? "UTC" : "");
        format = buf;
        break;
    case BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER: {
        static const char signed_f[] = "csil", unsigned_f[] = "CSIL";
        int w = a->bit_width == 8 ? 0 : a->bit_width == 16 ? 1 : a->bit_width == 32 ? 2 : 3;
        buf[0] = a->is_signed ? signed_f[w] : unsigned_f[w];
        buf[1] = '\0';
        format = buf;
        if (w == 0)
            leaf->conversion = BASALT_PARQUET_CONVERT_INT32_TO_INT8;
        else if (w == 1)
            leaf->conversion = BASALT_PARQUET_CONVERT_INT32_TO_INT16;
        break;
    }
    case BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL:
        if (a->precision <= 38)
            snprintf(buf, sizeof buf, "d:%d,%d", (int)a->precision, (int)a->scale);
        else
            snprintf(buf, sizeof buf, "d:%d,%d,256", (int)a->precision, (int)a->scale);
        format = buf;
        leaf->conversion = leaf->physical_type == BASALT_PARQUET_TYPE_INT32
                               ? BASALT_PARQUET_CONVERT_INT32_TO_DECIMAL
                           : leaf->physical_type == BASALT_PARQUET_TYPE_INT64
                               ? BASALT_PARQUET_CONVERT_INT64_TO_DECIMAL
                               : BASALT_PARQUET_CONVERT_BYTES_TO_DECIMAL;
        break;
    default:
        /* BSON, UUID, INTERVAL, geospatial and unknown annotations keep the
         * physical type (UUID gets its extension metadata on the field). */
        break;
    }
    return set_format(schema, leaf, format, err);
}
