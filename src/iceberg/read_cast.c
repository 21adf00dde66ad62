/* Casting the columns of a data file to the table's types, and columns of
 * constants (missing columns, identity partition values, defaults). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "scan_internal.h"

/* Bytes per value of a fixed-width Iceberg type; 0 for bool and variable
 * width types, -1 for nested and null. */
static int64_t type_width(const struct basalt_iceberg_type *t)
{
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
    case BASALT_ICEBERG_TYPE_FLOAT:
        return 4;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_DOUBLE:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        return 8;
    case BASALT_ICEBERG_TYPE_DECIMAL:
    case BASALT_ICEBERG_TYPE_UUID:
        return 16;
    case BASALT_ICEBERG_TYPE_FIXED:
        return t->length;
    case BASALT_ICEBERG_TYPE_BOOLEAN:
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_GEOMETRY:
    case BASALT_ICEBERG_TYPE_GEOGRAPHY:
        return 0;
    default:
        return -1;
    }
}

static bool is_binary_type(const struct basalt_iceberg_type *t)
{
    return t->id == BASALT_ICEBERG_TYPE_STRING || t->id == BASALT_ICEBERG_TYPE_BINARY ||
           t->id == BASALT_ICEBERG_TYPE_GEOMETRY || t->id == BASALT_ICEBERG_TYPE_GEOGRAPHY;
}

static basalt_status alloc_zero(struct ArrowArray *a, int64_t i, size_t size, void **out,
                                struct basalt_error *err)
{
    void *p;
    basalt_status st = basalt_arrow_array_allocate_buffer(a, i, size ? size : 1, &p, err);
    if (st != BASALT_OK)
        return st;
    memset(p, 0, size ? size : 1);
    if (out)
        *out = p;
    return BASALT_OK;
}

/* A null (value NULL) or constant column of `type`. */
static basalt_status constant_of(const struct basalt_iceberg_type *type,
                                 const struct basalt_iceberg_value *value, int64_t length,
                                 struct ArrowArray *out, struct basalt_error *err)
{
    bool null = value == NULL || value->is_null;
    size_t n = (size_t)length;
    size_t vbytes = (n + 7) / 8;
    basalt_status st;
    if (type->id == BASALT_ICEBERG_TYPE_UNKNOWN) {
        st = basalt_arrow_array_init(out, 0, 0, err);
        if (st == BASALT_OK) {
            out->length = length;
            out->null_count = length;
        }
        return st;
    }
    if (type->id == BASALT_ICEBERG_TYPE_STRUCT) {
        st = basalt_arrow_array_init(out, 1, type->n_fields, err);
        if (st == BASALT_OK && length > 0)
            st = alloc_zero(out, 0, vbytes, NULL, err);
        for (uint32_t i = 0; i < type->n_fields && st == BASALT_OK; i++)
            st = constant_of(&type->fields[i].type, NULL, length, out->children[i], err);
        if (st != BASALT_OK) {
            basalt_arrow_array_release(out);
            return st;
        }
        out->length = length;
        out->null_count = length;
        return BASALT_OK;
    }
    if (type->id == BASALT_ICEBERG_TYPE_LIST || type->id == BASALT_ICEBERG_TYPE_MAP) {
        st = basalt_arrow_array_init(out, 2, 1, err);
        if (st == BASALT_OK && length > 0)
            st = alloc_zero(out, 0, vbytes, NULL, err);
        if (st == BASALT_OK)
            st = alloc_zero(out, 1, (n + 1) * sizeof(int32_t), NULL, err);
        if (st == BASALT_OK) {
            if (type->id == BASALT_ICEBERG_TYPE_LIST) {
                st = constant_of(&type->fields[0].type, NULL, 0, out->children[0], err);
            } else {
                struct ArrowArray *entries = out->children[0];
                st = basalt_arrow_array_init(entries, 1, 2, err);
                for (int k = 0; k < 2 && st == BASALT_OK; k++)
                    st = constant_of(&type->fields[k].type, NULL, 0, entries->children[k], err);
            }
        }
        if (st != BASALT_OK) {
            basalt_arrow_array_release(out);
            return st;
        }
        out->length = length;
        out->null_count = length;
        return BASALT_OK;
    }
    int64_t width = type_width(type);
    if (width < 0)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "no constant column of type %d", (int)type->id);
    bool var = is_binary_type(type);
    st = basalt_arrow_array_init(out, var ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *valid = NULL;
    if (length > 0)
        st = alloc_zero(out, 0, vbytes, (void **)&valid, err);
    if (st == BASALT_OK && !null && valid != NULL)
        basalt_bitmap_fill(valid, 0, length, true);
    if (st == BASALT_OK && var) {
        int32_t *offsets = NULL;
        size_t len = null ? 0 : value->u.bytes.len;
        if (len > 0 && (uint64_t)len * n > INT32_MAX)
            st = basalt_error_set(err, BASALT_LIMIT, "constant column over 2 GiB");
        if (st == BASALT_OK)
            st = alloc_zero(out, 1, (n + 1) * sizeof(int32_t), (void **)&offsets, err);
        uint8_t *data = NULL;
        if (st == BASALT_OK)
            st = alloc_zero(out, 2, len * n, (void **)&data, err);
        if (st == BASALT_OK) {
            for (size_t i = 0; i < n; i++) {
                if (len)
                    memcpy(data + i * len, value->u.bytes.data, len);
                offsets[i + 1] = (int32_t)((i + 1) * len);
            }
        }
    } else if (st == BASALT_OK && type->id == BASALT_ICEBERG_TYPE_BOOLEAN) {
        uint8_t *bits = NULL;
        st = alloc_zero(out, 1, vbytes, (void **)&bits, err);
        if (st == BASALT_OK && !null && value->u.b && length > 0)
            basalt_bitmap_fill(bits, 0, length, true);
    } else if (st == BASALT_OK) {
        uint8_t *data = NULL;
        st = alloc_zero(out, 1, n * (size_t)width, (void **)&data, err);
        if (st == BASALT_OK && !null) {
            uint8_t one[32];
            memset(one, 0, sizeof one);
            switch (type->id) {
            case BASALT_ICEBERG_TYPE_INT:
            case BASALT_ICEBERG_TYPE_DATE:
                memcpy(one, &value->u.i32, 4);
                break;
            case BASALT_ICEBERG_TYPE_FLOAT:
                memcpy(one, &value->u.f32, 4);
                break;
            case BASALT_ICEBERG_TYPE_DOUBLE:
                memcpy(one, &value->u.f64, 8);
                break;
            case BASALT_ICEBERG_TYPE_DECIMAL:
                memcpy(one, &value->u.dec.lo, 8);
                memcpy(one + 8, &value->u.dec.hi, 8);
                break;
            case BASALT_ICEBERG_TYPE_UUID:
            case BASALT_ICEBERG_TYPE_FIXED:
                if ((int64_t)value->u.bytes.len != width) {
                    st = basalt_error_set(err, BASALT_CORRUPT, "constant of %zu bytes for a %" PRId64 "-byte type",
                                          value->u.bytes.len, width);
                    break;
                }
                break;
            default:
                memcpy(one, &value->u.i64, 8);
                break;
            }
            const uint8_t *src = one;
            if (type->id == BASALT_ICEBERG_TYPE_UUID || type->id == BASALT_ICEBERG_TYPE_FIXED)
                src = value->u.bytes.data;
            for (size_t i = 0; i < n && st == BASALT_OK; i++)
                memcpy(data + i * (size_t)width, src, (size_t)width);
        }
    }
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    out->length = length;
    out->null_count = null ? length : 0;
    return BASALT_OK;
}

basalt_status basalt_iceberg_constant_array(const struct basalt_iceberg_field *field,
                                            const struct basalt_iceberg_value *value, int64_t length,
                                            struct ArrowArray *out, struct basalt_error *err)
{
    if (length < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "negative length");
    return constant_of(&field->type, value, length, out, err);
}

/* ------------------------------------------------------------------ casts */

enum src_kind { SRC_INT, SRC_UINT, SRC_FLOAT, SRC_OTHER };

struct src_info {
    enum src_kind kind;
    int width;          /* bytes */
    int64_t mul, div;   /* temporal rescaling to the target unit */
};

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* The temporal unit of a format as a count per second (date: per day as 0). */
static int64_t unit_of(const char *f)
{
    char u = 0;
    if (strncmp(f, "ts", 2) == 0 || strncmp(f, "tt", 2) == 0)
        u = f[2];
    switch (u) {
    case 's': return 1;
    case 'm': return 1000;
    case 'u': return 1000000;
    case 'n': return 1000000000;
    default: return 0;
    }
}

static int64_t target_unit(const struct basalt_iceberg_type *t)
{
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
        return 1000000;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        return 1000000000;
    default:
        return 0;
    }
}

static bool decimal_fmt(const char *f, int *bits, int *scale)
{
    if (strncmp(f, "d:", 2) != 0)
        return false;
    int p = 0, s = 0, b = 128;
    const char *c = f + 2;
    while (*c >= '0' && *c <= '9')
        p = p * 10 + (*c++ - '0');
    if (*c++ != ',')
        return false;
    bool neg = false;
    if (*c == '-') {
        neg = true;
        c++;
    }
    while (*c >= '0' && *c <= '9')
        s = s * 10 + (*c++ - '0');
    if (*c == ',') {
        c++;
        b = 0;
        while (*c >= '0' && *c <= '9')
            b = b * 10 + (*c++ - '0');
    }
    (void)p;
    *bits = b;
    *scale = neg ? -s : s;
    return true;
}

static basalt_status copy_validity(const struct ArrowArray *src, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    out->null_count = src->null_count;
    if (src->null_count == 0 || src->n_buffers == 0 || src->buffers[0] == NULL) {
        out->null_count = 0;
        return BASALT_OK;
    }
    void *p;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)((src->length + 7) / 8), &p, err);
    if (st == BASALT_OK)
        basalt_bitmap_copy(p, 0, src->buffers[0], src->offset, src->length);
    return st;
}

static basalt_status numeric_cast(const char *from, const struct ArrowArray *src,
                                  const struct basalt_iceberg_type *to, struct ArrowArray *out,
                                  struct basalt_error *err)
{
    struct src_info si = {SRC_OTHER, 0, 1, 1};
    int64_t tu = target_unit(to);
    int dbits = 0, dscale = 0;
    char c = from[0];
    bool two = from[1] != '\0';
    if (!two && (c == 'c' || c == 's' || c == 'i' || c == 'l')) {
        si.kind = SRC_INT;
        si.width = c == 'c' ? 1 : c == 's' ? 2 : c == 'i' ? 4 : 8;
    } else if (!two && (c == 'C' || c == 'S' || c == 'I' || c == 'L')) {
        si.kind = SRC_UINT;
        si.width = c == 'C' ? 1 : c == 'S' ? 2 : c == 'I' ? 4 : 8;
    } else if (!two && (c == 'f' || c == 'g')) {
        si.kind = SRC_FLOAT;
        si.width = c == 'f' ? 4 : 8;
    } else if (strcmp(from, "tdD") == 0) {
        si.kind = SRC_INT;
        si.width = 4;
        if (tu != 0 && to->id != BASALT_ICEBERG_TYPE_TIME)
            si.mul = 86400 * tu;
        else if (to->id != BASALT_ICEBERG_TYPE_DATE)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "cannot read a date column as type %d", (int)to->id);
    } else if (strcmp(from, "tdm") == 0) {
        si.kind = SRC_INT;
        si.width = 8;
        if (to->id == BASALT_ICEBERG_TYPE_DATE)
            si.div = 86400000;
        else if (tu != 0)
            si.mul = tu / 1000;
    } else if (unit_of(from) != 0 && tu != 0) {
        int64_t fu = unit_of(from);
        si.kind = SRC_INT;
        si.width = (from[1] == 't' && (from[2] == 's' || from[2] == 'm')) ? 4 : 8;
        if (tu >= fu)
            si.mul = tu / fu;
        else
            si.div = fu / tu;
    } else if (decimal_fmt(from, &dbits, &dscale) && to->id == BASALT_ICEBERG_TYPE_DECIMAL) {
        if (dscale != to->scale)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "decimal scale %d cannot be read as scale %d",
                                    dscale, (int)to->scale);
        si.kind = SRC_INT;
        si.width = dbits / 8;
        if (si.width != 4 && si.width != 8 && si.width != 16)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "decimal%d cannot be read", dbits);
    } else {
        return basalt_error_set(err, BASALT_UNSUPPORTED, "a column of Arrow type '%s' cannot be read as type %d",
                                from, (int)to->id);
    }
    int64_t width = type_width(to);
    bool to_float = to->id == BASALT_ICEBERG_TYPE_FLOAT || to->id == BASALT_ICEBERG_TYPE_DOUBLE;
    if (width <= 0 || (si.kind == SRC_FLOAT && !to_float))
        return basalt_error_set(err, BASALT_UNSUPPORTED, "a column of Arrow type '%s' cannot be read as type %d",
                                from, (int)to->id);
    basalt_status st = basalt_arrow_array_init(out, 2, 0, err);
    if (st != BASALT_OK)
        return st;
    st = copy_validity(src, out, err);
    uint8_t *dst = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(src->length * width) + 1, (void **)&dst, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    const uint8_t *values = src->buffers[1];
    int64_t n = src->length;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *p = values + (size_t)(src->offset + i) * (size_t)si.width;
        uint8_t *q = dst + (size_t)i * (size_t)width;
        if (si.kind == SRC_FLOAT) {
            double d;
            if (si.width == 4) {
                float f;
                memcpy(&f, p, 4);
                d = f;
            } else {
                memcpy(&d, p, 8);
            }
            if (width == 4) {
                float f = (float)d;
                memcpy(q, &f, 4);
            } else {
                memcpy(q, &d, 8);
            }
            continue;
        }
        int64_t v = 0, hi = 0;
        switch (si.width) {
        case 1: v = si.kind == SRC_INT ? (int64_t)(int8_t)p[0] : (int64_t)p[0]; break;
        case 2: {
            uint16_t x;
            memcpy(&x, p, 2);
            v = si.kind == SRC_INT ? (int64_t)(int16_t)x : (int64_t)x;
            break;
        }
        case 4: {
            uint32_t x;
            memcpy(&x, p, 4);
            v = si.kind == SRC_INT ? (int64_t)(int32_t)x : (int64_t)x;
            break;
        }
        case 8:
            memcpy(&v, p, 8);
            break;
        default:
            memcpy(&v, p, 8);
            memcpy(&hi, p + 8, 8);
            break;
        }
        if (si.width < 16)
            hi = v < 0 ? -1 : 0;
        if (si.mul != 1)
            v *= si.mul;
        if (si.div != 1)
            v = floor_div(v, si.div);
        if (to_float) {
            double d = (double)v;
            if (width == 4) {
                float f = (float)d;
                memcpy(q, &f, 4);
            } else {
                memcpy(q, &d, 8);
            }
        } else if (width == 4) {
            int32_t x = (int32_t)v;
            memcpy(q, &x, 4);
        } else if (width == 8) {
            memcpy(q, &v, 8);
        } else if (width == 16) {
            memcpy(q, &v, 8);
            memcpy(q + 8, &hi, 8);
        }
    }
    out->length = n;
    return BASALT_OK;
}

/* large_utf8/large_binary to 32-bit offsets. */
static basalt_status narrow_offsets(const struct ArrowArray *src, struct ArrowArray *out,
                                    struct basalt_error *err)
{
    const int64_t *offs = src->buffers[1];
    int64_t first = offs[src->offset], last = offs[src->offset + src->length];
    if (last - first > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "a string column over 2 GiB in one batch");
    basalt_status st = basalt_arrow_array_init(out, 3, 0, err);
    if (st != BASALT_OK)
        return st;
    st = copy_validity(src, out, err);
    int32_t *o = NULL;
    uint8_t *d = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(src->length + 1) * 4, (void **)&o, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)(last - first) + 1, (void **)&d, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    for (int64_t i = 0; i <= src->length; i++)
        o[i] = (int32_t)(offs[src->offset + i] - first);
    if (last > first)
        memcpy(d, (const uint8_t *)src->buffers[2] + first, (size_t)(last - first));
    out->length = src->length;
    return BASALT_OK;
}

basalt_status basalt_iceberg_cast(const char *from, struct ArrowArray *src,
                                  const struct basalt_iceberg_type *to, struct ArrowArray *out,
                                  struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    bool same = false;
    int dbits, dscale;
    switch (to->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN: same = strcmp(from, "b") == 0; break;
    case BASALT_ICEBERG_TYPE_INT: same = strcmp(from, "i") == 0; break;
    case BASALT_ICEBERG_TYPE_LONG: same = strcmp(from, "l") == 0; break;
    case BASALT_ICEBERG_TYPE_FLOAT: same = strcmp(from, "f") == 0; break;
    case BASALT_ICEBERG_TYPE_DOUBLE: same = strcmp(from, "g") == 0; break;
    case BASALT_ICEBERG_TYPE_DATE: same = strcmp(from, "tdD") == 0; break;
    case BASALT_ICEBERG_TYPE_TIME: same = strcmp(from, "ttu") == 0; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ: same = strncmp(from, "tsu:", 4) == 0; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS: same = strncmp(from, "tsn:", 4) == 0; break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        same = decimal_fmt(from, &dbits, &dscale) && dbits == 128 && dscale == to->scale;
        break;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_GEOMETRY:
    case BASALT_ICEBERG_TYPE_GEOGRAPHY:
        if (strcmp(from, "u") == 0 || strcmp(from, "z") == 0) {
            same = true;
        } else if (strcmp(from, "U") == 0 || strcmp(from, "Z") == 0) {
            st = narrow_offsets(src, out, err);
            basalt_arrow_array_release(src);
            return st;
        }
        break;
    case BASALT_ICEBERG_TYPE_UUID:
        same = strcmp(from, "w:16") == 0;
        break;
    case BASALT_ICEBERG_TYPE_FIXED: {
        char want[24];
        snprintf(want, sizeof want, "w:%d", (int)to->length);
        same = strcmp(from, want) == 0;
        break;
    }
    case BASALT_ICEBERG_TYPE_UNKNOWN:
        st = constant_of(to, NULL, src->length, out, err);
        basalt_arrow_array_release(src);
        return st;
    default:
        break;
    }
    if (same) {
        basalt_arrow_array_move(src, out);
        return BASALT_OK;
    }
    st = numeric_cast(from, src, to, out, err);
    basalt_arrow_array_release(src);
    return st;
}
