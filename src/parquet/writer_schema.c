/* Arrow field -> Parquet leaf column, and the physical values of a slice. */
#include <stdlib.h>
#include <string.h>

#include "parquet_writer.h"

static basalt_status set_int(struct basalt_parquet_wcolumn *col, int32_t physical, int bits,
                             bool is_signed)
{
    struct basalt_parquet_schema_element *e = &col->element;
    col->physical = physical;
    col->width = physical == BASALT_PARQUET_TYPE_INT32 ? 4 : 8;
    col->src_width = (size_t)bits / 8;
    col->order = physical == BASALT_PARQUET_TYPE_INT32
                     ? (is_signed ? BASALT_PARQUET_WORDER_I32 : BASALT_PARQUET_WORDER_U32)
                     : (is_signed ? BASALT_PARQUET_WORDER_I64 : BASALT_PARQUET_WORDER_U64);
    e->has_logical_type = true;
    e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_INTEGER;
    e->logical_type.integer.bit_width = (int8_t)bits;
    e->logical_type.integer.is_signed = is_signed;
    e->has_converted_type = true;
    static const int32_t conv_signed[] = {BASALT_PARQUET_CONVERTED_TYPE_INT_8,
                                          BASALT_PARQUET_CONVERTED_TYPE_INT_16,
                                          BASALT_PARQUET_CONVERTED_TYPE_INT_32,
                                          BASALT_PARQUET_CONVERTED_TYPE_INT_64};
    static const int32_t conv_unsigned[] = {BASALT_PARQUET_CONVERTED_TYPE_UINT_8,
                                            BASALT_PARQUET_CONVERTED_TYPE_UINT_16,
                                            BASALT_PARQUET_CONVERTED_TYPE_UINT_32,
                                            BASALT_PARQUET_CONVERTED_TYPE_UINT_64};
    int idx = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
    e->converted_type = is_signed ? conv_signed[idx] : conv_unsigned[idx];
    return BASALT_OK;
}

/* Fewest bytes whose two's complement holds every value of `precision` digits. */
static int32_t decimal_bytes(int32_t precision)
{
    /* 10^p < 2^(8n - 1)  <=>  p * log2(10) < 8n - 1 */
    for (int32_t n = 1; n < 64; n++)
        if ((double)precision * 3.321928094887362 < (double)(8 * n - 1))
            return n;
    return 64;
}

static void set_time(struct basalt_parquet_schema_element *e, int32_t kind, int32_t unit, bool utc)
{
    e->has_logical_type = true;
    e->logical_type.kind = kind;
    e->logical_type.time.unit = unit;
    e->logical_type.time.is_adjusted_to_utc = utc;
    /* Arrow times and zone-less timestamps are wall-clock values, so they
     * are not UTC-adjusted. The legacy annotations are written for local
     * ones too, as LogicalTypes.md requires for forward compatibility with
     * readers that know only them; nanoseconds have none. */
    if (unit == BASALT_PARQUET_TIME_UNIT_NANOS)
        return;
    e->has_converted_type = true;
    if (kind == BASALT_PARQUET_LOGICAL_TYPE_TIME)
        e->converted_type = unit == BASALT_PARQUET_TIME_UNIT_MILLIS
                                ? BASALT_PARQUET_CONVERTED_TYPE_TIME_MILLIS
                                : BASALT_PARQUET_CONVERTED_TYPE_TIME_MICROS;
    else
        e->converted_type = unit == BASALT_PARQUET_TIME_UNIT_MILLIS
                                ? BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MILLIS
                                : BASALT_PARQUET_CONVERTED_TYPE_TIMESTAMP_MICROS;
}

static basalt_status field_id(const struct basalt_parquet_wcolumn *col, const char *metadata,
                              struct basalt_parquet_schema_element *e, struct basalt_error *err)
{
    const char *value;
    size_t len;
    basalt_status st = basalt_arrow_metadata_get(metadata, "PARQUET:field_id", &value, &len, err);
    if (st == BASALT_NOT_FOUND) {
        basalt_error_init(err);
        return BASALT_OK;
    }
    if (st != BASALT_OK)
        return st;
    char buf[24];
    if (len == 0 || len >= sizeof buf)
        return basalt_error_set(err, BASALT_CORRUPT, "column '%s': bad PARQUET:field_id",
                                col->name);
    memcpy(buf, value, len);
    buf[len] = '\0';
    char *end;
    long long id = strtoll(buf, &end, 10);
    if (*end != '\0' || id < INT32_MIN || id > INT32_MAX)
        return basalt_error_set(err, BASALT_CORRUPT, "column '%s': bad PARQUET:field_id '%s'",
                                col->name, buf);
    e->has_field_id = true;
    e->field_id = (int32_t)id;
    return BASALT_OK;
}

static bool has_extension(const char *metadata, const char *name)
{
    const char *value;
    size_t len;
    if (basalt_arrow_metadata_get(metadata, "ARROW:extension:name", &value, &len, NULL) !=
        BASALT_OK)
        return false;
    return len == strlen(name) && memcmp(value, name, len) == 0;
}

static bool is_uuid(const char *metadata)
{
    return has_extension(metadata, "arrow.uuid");
}

/* A geoarrow.wkb binary column: GEOMETRY or GEOGRAPHY with the CRS and
 * edges of its extension metadata. */
static basalt_status set_geo(struct basalt_parquet_wcolumn *col, const char *metadata,
                             struct basalt_error *err)
{
    const char *json = NULL;
    size_t len = 0;
    basalt_status st = basalt_arrow_metadata_get(metadata, "ARROW:extension:metadata", &json,
                                                 &len, err);
    if (st == BASALT_NOT_FOUND) {
        basalt_error_init(err);
        json = NULL;
        len = 0;
    } else if (st != BASALT_OK) {
        return st;
    }
    struct basalt_parquet_schema_element *e = &col->element;
    st = basalt_parquet_geo_logical_type(json, len, &e->logical_type, &col->crs, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "column '%s'", col->name);
    e->has_logical_type = true;
    col->geo = true;
    return BASALT_OK;
}

static basalt_status map_type(struct basalt_parquet_wcolumn *col, const char *format,
                              const char *metadata, struct basalt_error *err)
{
    struct basalt_parquet_schema_element *e = &col->element;
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(format, &t, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "column '%s'", col->name);
    col->conv = BASALT_PARQUET_WCONV_COPY;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL:
        /* As Arrow C++ writes it: an INT32 that never holds a value, its
         * logical type Null (Thrift's UNKNOWN) and no converted type. */
        col->physical = BASALT_PARQUET_TYPE_INT32;
        col->width = 4;
        col->conv = BASALT_PARQUET_WCONV_NULL;
        col->order = BASALT_PARQUET_WORDER_I32;
        e->has_logical_type = true;
        e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_UNKNOWN;
        break;
    case BASALT_ARROW_TYPE_BOOL:
        col->physical = BASALT_PARQUET_TYPE_BOOLEAN;
        col->conv = BASALT_PARQUET_WCONV_BOOL;
        col->order = BASALT_PARQUET_WORDER_BOOL;
        break;
    case BASALT_ARROW_TYPE_INT8:
        col->conv = BASALT_PARQUET_WCONV_I8;
        return set_int(col, BASALT_PARQUET_TYPE_INT32, 8, true);
    case BASALT_ARROW_TYPE_UINT8:
        col->conv = BASALT_PARQUET_WCONV_U8;
        return set_int(col, BASALT_PARQUET_TYPE_INT32, 8, false);
    case BASALT_ARROW_TYPE_INT16:
        col->conv = BASALT_PARQUET_WCONV_I16;
        return set_int(col, BASALT_PARQUET_TYPE_INT32, 16, true);
    case BASALT_ARROW_TYPE_UINT16:
        col->conv = BASALT_PARQUET_WCONV_U16;
        return set_int(col, BASALT_PARQUET_TYPE_INT32, 16, false);
    case BASALT_ARROW_TYPE_INT32:
        return set_int(col, BASALT_PARQUET_TYPE_INT32, 32, true);
    case BASALT_ARROW_TYPE_UINT32:
        return set_int(col, BASALT_PARQUET_TYPE_INT32, 32, false);
    case BASALT_ARROW_TYPE_INT64:
        return set_int(col, BASALT_PARQUET_TYPE_INT64, 64, true);
    case BASALT_ARROW_TYPE_UINT64:
        return set_int(col, BASALT_PARQUET_TYPE_INT64, 64, false);
    case BASALT_ARROW_TYPE_HALF_FLOAT:
        col->physical = BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY;
        col->type_length = 2;
        col->width = col->src_width = 2;
        col->order = BASALT_PARQUET_WORDER_FLOAT16;
        e->has_logical_type = true;
        e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_FLOAT16;
        break;
    case BASALT_ARROW_TYPE_FLOAT:
        col->physical = BASALT_PARQUET_TYPE_FLOAT;
        col->width = col->src_width = 4;
        col->order = BASALT_PARQUET_WORDER_FLOAT;
        break;
    case BASALT_ARROW_TYPE_DOUBLE:
        col->physical = BASALT_PARQUET_TYPE_DOUBLE;
        col->width = col->src_width = 8;
        col->order = BASALT_PARQUET_WORDER_DOUBLE;
        break;
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256:
        e->has_logical_type = true;
        e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_DECIMAL;
        e->logical_type.decimal.precision = t.precision;
        e->logical_type.decimal.scale = t.scale;
        e->has_converted_type = true;
        e->converted_type = BASALT_PARQUET_CONVERTED_TYPE_DECIMAL;
        e->has_precision = e->has_scale = true;
        e->precision = t.precision;
        e->scale = t.scale;
        col->src_width = (size_t)t.bit_width / 8;
        if (t.id == BASALT_ARROW_TYPE_DECIMAL32) {
            col->physical = BASALT_PARQUET_TYPE_INT32;
            col->width = 4;
            col->order = BASALT_PARQUET_WORDER_I32;
        } else if (t.id == BASALT_ARROW_TYPE_DECIMAL64) {
            col->physical = BASALT_PARQUET_TYPE_INT64;
            col->width = 8;
            col->order = BASALT_PARQUET_WORDER_I64;
        } else {
            col->physical = BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY;
            col->type_length = decimal_bytes(t.precision);
            if ((size_t)col->type_length > col->src_width)
                col->type_length = (int32_t)col->src_width;
            col->width = (size_t)col->type_length;
            col->conv = BASALT_PARQUET_WCONV_DECIMAL_BE;
            col->order = BASALT_PARQUET_WORDER_DECIMAL;
        }
        break;
    case BASALT_ARROW_TYPE_DATE32:
    case BASALT_ARROW_TYPE_DATE64:
        col->physical = BASALT_PARQUET_TYPE_INT32;
        col->width = 4;
        col->src_width = t.id == BASALT_ARROW_TYPE_DATE32 ? 4 : 8;
        col->conv = t.id == BASALT_ARROW_TYPE_DATE32 ? BASALT_PARQUET_WCONV_COPY
                                                     : BASALT_PARQUET_WCONV_DATE64;
        col->order = BASALT_PARQUET_WORDER_I32;
        e->has_logical_type = e->has_converted_type = true;
        e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_DATE;
        e->converted_type = BASALT_PARQUET_CONVERTED_TYPE_DATE;
        break;
    case BASALT_ARROW_TYPE_TIME32:
        col->physical = BASALT_PARQUET_TYPE_INT32;
        col->width = col->src_width = 4;
        col->order = BASALT_PARQUET_WORDER_I32;
        if (t.unit == BASALT_ARROW_TIME_UNIT_SECOND) {
            col->conv = BASALT_PARQUET_WCONV_MUL32;
            col->factor = 1000;
        }
        set_time(e, BASALT_PARQUET_LOGICAL_TYPE_TIME, BASALT_PARQUET_TIME_UNIT_MILLIS, false);
        break;
    case BASALT_ARROW_TYPE_TIME64:
        col->physical = BASALT_PARQUET_TYPE_INT64;
        col->width = col->src_width = 8;
        col->order = BASALT_PARQUET_WORDER_I64;
        set_time(e, BASALT_PARQUET_LOGICAL_TYPE_TIME,
                 t.unit == BASALT_ARROW_TIME_UNIT_MICRO ? BASALT_PARQUET_TIME_UNIT_MICROS
                                                        : BASALT_PARQUET_TIME_UNIT_NANOS,
                 false);
        break;
    case BASALT_ARROW_TYPE_TIMESTAMP: {
        col->physical = BASALT_PARQUET_TYPE_INT64;
        col->width = col->src_width = 8;
        col->order = BASALT_PARQUET_WORDER_I64;
        int32_t unit = BASALT_PARQUET_TIME_UNIT_MILLIS;
        if (t.unit == BASALT_ARROW_TIME_UNIT_SECOND) {
            col->conv = BASALT_PARQUET_WCONV_MUL64;
            col->factor = 1000;
        } else if (t.unit == BASALT_ARROW_TIME_UNIT_MICRO) {
            unit = BASALT_PARQUET_TIME_UNIT_MICROS;
        } else if (t.unit == BASALT_ARROW_TIME_UNIT_NANO) {
            unit = BASALT_PARQUET_TIME_UNIT_NANOS;
        }
        set_time(e, BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP, unit,
                 t.timezone != NULL && t.timezone[0] != '\0');
        break;
    }
    case BASALT_ARROW_TYPE_DURATION:
        col->physical = BASALT_PARQUET_TYPE_INT64;
        col->width = col->src_width = 8;
        col->order = BASALT_PARQUET_WORDER_I64;
        break;
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_STRING:
        e->has_logical_type = e->has_converted_type = true;
        e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_STRING;
        e->converted_type = BASALT_PARQUET_CONVERTED_TYPE_UTF8;
        /* fall through */
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
        col->physical = BASALT_PARQUET_TYPE_BYTE_ARRAY;
        col->order = BASALT_PARQUET_WORDER_BYTES;
        col->conv = (t.id == BASALT_ARROW_TYPE_STRING || t.id == BASALT_ARROW_TYPE_BINARY)
                        ? BASALT_PARQUET_WCONV_BINARY32
                        : BASALT_PARQUET_WCONV_BINARY64;
        if ((t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_BINARY) &&
            has_extension(metadata, "geoarrow.wkb"))
            return set_geo(col, metadata, err);
        break;
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
        col->physical = BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY;
        col->type_length = t.fixed_size;
        col->width = col->src_width = (size_t)t.fixed_size;
        col->order = BASALT_PARQUET_WORDER_BYTES;
        if (t.fixed_size == 16 && is_uuid(metadata)) {
            e->has_logical_type = true;
            e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_UUID;
        }
        break;
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column '%s': Arrow type %s is not written to Parquet yet",
                                col->name, basalt_arrow_type_name(t.id));
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_wcolumn_init(struct basalt_parquet_wcolumn *col,
                                          const struct ArrowSchema *field,
                                          struct basalt_error *err)
{
    memset(col, 0, sizeof *col);
    const char *name = field->name ? field->name : "";
    size_t len = strlen(name);
    col->name = basalt_malloc(len + 1);
    if (!col->name)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(col->name, name, len + 1);
    col->nullable = (field->flags & ARROW_FLAG_NULLABLE) != 0;
    col->encoding = -1;
    struct basalt_parquet_schema_element *e = &col->element;
    e->name.data = col->name;
    e->name.len = len;
    /* Every slot of the null type is null, whatever the field says. */
    if (!field->dictionary && strcmp(field->format, "n") == 0)
        col->nullable = true;
    e->has_repetition_type = true;
    e->repetition_type = col->nullable ? BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL
                                       : BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED;
    basalt_status st = field_id(col, field->metadata, e, err);
    if (st != BASALT_OK)
        return st;
    const char *format = field->format;
    if (field->dictionary) {
        struct basalt_arrow_type it;
        st = basalt_arrow_type_parse(field->format, &it, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "column '%s'", col->name);
        col->arrow_dictionary = true;
        col->index_bytes = (int)(it.bit_width / 8);
        col->index_signed = it.id == BASALT_ARROW_TYPE_INT8 || it.id == BASALT_ARROW_TYPE_INT16 ||
                            it.id == BASALT_ARROW_TYPE_INT32 || it.id == BASALT_ARROW_TYPE_INT64;
        format = field->dictionary->format;
        if (field->dictionary->dictionary || field->dictionary->n_children > 0)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "column '%s': nested dictionary values are not written yet",
                                    col->name);
    }
    if (format[0] == '+')
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column '%s': nested types are not written yet", col->name);
    st = map_type(col, format, field->metadata, err);
    if (st != BASALT_OK)
        return st;
    if (col->arrow_dictionary && col->conv == BASALT_PARQUET_WCONV_BOOL)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column '%s': dictionary of booleans", col->name);
    if (col->arrow_dictionary && col->conv == BASALT_PARQUET_WCONV_NULL)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "column '%s': dictionary of nulls",
                                col->name);
    e->has_type = true;
    e->type = col->physical;
    if (col->physical == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY) {
        e->has_type_length = true;
        e->type_length = col->type_length;
    }
    return BASALT_OK;
}

void basalt_parquet_wcolumn_reset(struct basalt_parquet_wcolumn *col)
{
    basalt_free(col->name);
    col->name = NULL;
    basalt_free(col->crs);
    col->crs = NULL;
}

static int64_t read_index(const struct basalt_parquet_wcolumn *col, const void *buf, int64_t i)
{
    switch (col->index_bytes) {
    case 1:
        return col->index_signed ? ((const int8_t *)buf)[i] : ((const uint8_t *)buf)[i];
    case 2:
        return col->index_signed ? ((const int16_t *)buf)[i] : ((const uint16_t *)buf)[i];
    case 4:
        return col->index_signed ? ((const int32_t *)buf)[i]
                                 : (int64_t)((const uint32_t *)buf)[i];
    default:
        return ((const int64_t *)buf)[i];
    }
}

/* Converts Arrow value `src` (index `i` of the source) to its physical
 * bytes at `dst`. */
static void convert_fixed(const struct basalt_parquet_wcolumn *col, const uint8_t *src,
                          uint8_t *dst)
{
    switch (col->conv) {
    case BASALT_PARQUET_WCONV_I8: {
        int32_t v = (int8_t)src[0];
        memcpy(dst, &v, 4);
        break;
    }
    case BASALT_PARQUET_WCONV_U8: {
        int32_t v = src[0];
        memcpy(dst, &v, 4);
        break;
    }
    case BASALT_PARQUET_WCONV_I16: {
        int16_t s;
        memcpy(&s, src, 2);
        int32_t v = s;
        memcpy(dst, &v, 4);
        break;
    }
    case BASALT_PARQUET_WCONV_U16: {
        uint16_t s;
        memcpy(&s, src, 2);
        int32_t v = s;
        memcpy(dst, &v, 4);
        break;
    }
    case BASALT_PARQUET_WCONV_MUL32: {
        int32_t s;
        memcpy(&s, src, 4);
        uint32_t v = (uint32_t)s * (uint32_t)col->factor;
        memcpy(dst, &v, 4);
        break;
    }
    case BASALT_PARQUET_WCONV_MUL64: {
        int64_t s;
        memcpy(&s, src, 8);
        uint64_t v = (uint64_t)s * (uint64_t)col->factor;
        memcpy(dst, &v, 8);
        break;
    }
    case BASALT_PARQUET_WCONV_DATE64: {
        int64_t s;
        memcpy(&s, src, 8);
        int64_t d = s / 86400000;
        if (s % 86400000 < 0)
            d--;
        int32_t v = (int32_t)d;
        memcpy(dst, &v, 4);
        break;
    }
    case BASALT_PARQUET_WCONV_DECIMAL_BE:
        /* The low `width` bytes, most significant first. */
        for (size_t k = 0; k < col->width; k++)
            dst[k] = src[col->width - 1 - k];
        break;
    default:
        memcpy(dst, src, col->width);
        break;
    }
}

static basalt_status view_dictionary(const struct basalt_parquet_wcolumn *col,
                                     const struct ArrowArray *array, int64_t start,
                                     int64_t count, struct basalt_buffer *scratch,
                                     struct basalt_buffer *scratch_offsets,
                                     struct basalt_parquet_wvalues *v, struct basalt_error *err)
{
    const struct ArrowArray *dict = array->dictionary;
    const void *idx = array->buffers[1];
    int64_t base = array->offset + start;
    bool bytes = col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY;
    basalt_status st;
    if (!bytes) {
        st = basalt_buffer_resize(scratch, (size_t)count * col->width + 1, err);
        if (st != BASALT_OK)
            return st;
        memset(scratch->data, 0, scratch->size);
    } else {
        st = basalt_buffer_resize(scratch_offsets, ((size_t)count + 1) * 8, err);
        if (st != BASALT_OK)
            return st;
        scratch->size = 0;
    }
    int64_t *offs = bytes ? (int64_t *)(void *)scratch_offsets->data : NULL;
    if (offs)
        offs[0] = 0;
    const uint8_t *dvalid = dict->null_count != 0 ? dict->buffers[0] : NULL;
    for (int64_t i = 0; i < count; i++) {
        bool valid = !v->validity || basalt_bitmap_get(v->validity, v->validity_offset + i);
        int64_t k = valid ? read_index(col, idx, base + i) : -1;
        if (valid && (k < 0 || k >= dict->length))
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "column '%s': dictionary index %lld out of range", col->name,
                                    (long long)k);
        if (valid && dvalid && !basalt_bitmap_get(dvalid, dict->offset + k))
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "column '%s': null dictionary values are not written",
                                    col->name);
        if (!bytes) {
            if (valid)
                convert_fixed(col,
                              (const uint8_t *)dict->buffers[1] +
                                  (size_t)(dict->offset + k) * col->src_width,
                              scratch->data + (size_t)i * col->width);
            continue;
        }
        if (valid) {
            int64_t b, e;
            if (col->conv == BASALT_PARQUET_WCONV_BINARY32) {
                const int32_t *o = dict->buffers[1];
                b = o[dict->offset + k];
                e = o[dict->offset + k + 1];
            } else {
                const int64_t *o = dict->buffers[1];
                b = o[dict->offset + k];
                e = o[dict->offset + k + 1];
            }
            st = basalt_buffer_append(scratch, (const uint8_t *)dict->buffers[2] + b,
                                      (size_t)(e - b), err);
            if (st != BASALT_OK)
                return st;
        }
        offs[i + 1] = (int64_t)scratch->size;
    }
    if (bytes) {
        v->binary.offsets64 = offs;
        v->binary.data = scratch->data;
    } else {
        v->fixed = scratch->data;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_wvalues_view(const struct basalt_parquet_wcolumn *col,
                                          const struct ArrowArray *array, int64_t start,
                                          int64_t count, struct basalt_buffer *scratch,
                                          struct basalt_buffer *scratch_offsets,
                                          struct basalt_parquet_wvalues *v,
                                          struct basalt_error *err)
{
    memset(v, 0, sizeof *v);
    v->count = (uint64_t)count;
    if (col->conv == BASALT_PARQUET_WCONV_NULL) {
        /* no buffers to look at: an all-zero validity bitmap of its own */
        size_t bytes = (size_t)basalt_bitmap_bytes(count) + 1;
        basalt_status st = basalt_buffer_resize(scratch, bytes, err);
        if (st != BASALT_OK)
            return st;
        memset(scratch->data, 0, bytes);
        v->validity = scratch->data;
        v->fixed = scratch->data;
        return BASALT_OK;
    }
    int64_t base = array->offset + start;
    if (array->null_count != 0 && array->buffers[0]) {
        v->validity = array->buffers[0];
        v->validity_offset = base;
    }
    v->non_null = basalt_parquet_count_valid(v->validity, v->validity_offset, v->count);
    if (col->arrow_dictionary)
        return view_dictionary(col, array, start, count, scratch, scratch_offsets, v, err);
    switch (col->conv) {
    case BASALT_PARQUET_WCONV_BOOL:
        v->bits = array->buffers[1];
        v->bits_offset = base;
        return BASALT_OK;
    case BASALT_PARQUET_WCONV_BINARY32:
        v->binary.offsets32 = (const int32_t *)array->buffers[1] + base;
        v->binary.data = array->buffers[2];
        return BASALT_OK;
    case BASALT_PARQUET_WCONV_BINARY64:
        v->binary.offsets64 = (const int64_t *)array->buffers[1] + base;
        v->binary.data = array->buffers[2];
        return BASALT_OK;
    case BASALT_PARQUET_WCONV_COPY:
        v->fixed = (const uint8_t *)array->buffers[1] + (size_t)base * col->src_width;
        return BASALT_OK;
    default:
        break;
    }
    basalt_status st = basalt_buffer_resize(scratch, (size_t)count * col->width + 1, err);
    if (st != BASALT_OK)
        return st;
    const uint8_t *src = (const uint8_t *)array->buffers[1] + (size_t)base * col->src_width;
    for (int64_t i = 0; i < count; i++)
        convert_fixed(col, src + (size_t)i * col->src_width, scratch->data + (size_t)i * col->width);
    v->fixed = scratch->data;
    return BASALT_OK;
}

basalt_status basalt_parquet_wvalues_gather(const struct basalt_parquet_wcolumn *col,
                                            const struct ArrowArray *array, const int64_t *index,
                                            uint64_t n, struct basalt_buffer *scratch,
                                            struct basalt_buffer *scratch_offsets,
                                            struct basalt_parquet_wvalues *v,
                                            struct basalt_error *err)
{
    memset(v, 0, sizeof *v);
    v->count = v->non_null = n;
    const struct ArrowArray *src = array;
    const struct basalt_parquet_wcolumn *c = col;
    bool bytes = col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY;
    basalt_status st;
    if (col->conv == BASALT_PARQUET_WCONV_BOOL) {
        st = basalt_buffer_resize(scratch, (size_t)basalt_bitmap_bytes((int64_t)n) + 1, err);
        if (st != BASALT_OK)
            return st;
        for (uint64_t i = 0; i < n; i++)
            basalt_bitmap_set(scratch->data, (int64_t)i,
                              basalt_bitmap_get(array->buffers[1], index[i]));
        v->bits = scratch->data;
        return BASALT_OK;
    }
    if (bytes) {
        st = basalt_buffer_resize(scratch_offsets, ((size_t)n + 1) * 8, err);
        if (st != BASALT_OK)
            return st;
        scratch->size = 0;
    } else {
        st = basalt_buffer_resize(scratch, (size_t)n * col->width + 1, err);
        if (st != BASALT_OK)
            return st;
    }
    int64_t *offs = bytes ? (int64_t *)(void *)scratch_offsets->data : NULL;
    if (offs)
        offs[0] = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t k = index[i];
        if (col->arrow_dictionary) {
            int64_t d = read_index(c, array->buffers[1], k);
            src = array->dictionary;
            if (d < 0 || d >= src->length)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "column '%s': dictionary index %lld out of range",
                                        col->name, (long long)d);
            k = src->offset + d;
        }
        if (!bytes) {
            convert_fixed(col, (const uint8_t *)src->buffers[1] + (size_t)k * col->src_width,
                          scratch->data + (size_t)i * col->width);
            continue;
        }
        int64_t b, e;
        if (col->conv == BASALT_PARQUET_WCONV_BINARY32) {
            const int32_t *o = src->buffers[1];
            b = o[k];
            e = o[k + 1];
        } else {
            const int64_t *o = src->buffers[1];
            b = o[k];
            e = o[k + 1];
        }
        st = basalt_buffer_append(scratch, (const uint8_t *)src->buffers[2] + b, (size_t)(e - b),
                                  err);
        if (st != BASALT_OK)
            return st;
        offs[i + 1] = (int64_t)scratch->size;
    }
    if (bytes) {
        v->binary.offsets64 = offs;
        v->binary.data = scratch->data;
    } else {
        v->fixed = scratch->data;
    }
    return BASALT_OK;
}
