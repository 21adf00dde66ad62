/* Format strings <-> struct basalt_arrow_type. */
#include <stdio.h>
#include <string.h>

#include "arrow_internal.h"

static void type_clear(struct basalt_arrow_type *type, enum basalt_arrow_type_id id,
                       int64_t bit_width)
{
    memset(type, 0, sizeof *type);
    type->id = id;
    type->bit_width = bit_width;
}

/* Parses a decimal int32 at *p (a leading '-' only when `allow_negative`),
 * advancing *p past it. Leading '+', spaces and empty digit runs are refused,
 * as a strict producer would never write them. */
static bool parse_int32(const char **p, bool allow_negative, int32_t *out)
{
    const char *s = *p;
    bool negative = false;
    if (*s == '-' && allow_negative) {
        negative = true;
        s++;
    }
    if (*s < '0' || *s > '9')
        return false;
    int64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > (int64_t)INT32_MAX + 1)
            return false;
        s++;
    }
    if (negative)
        v = -v;
    if (v > INT32_MAX || v < INT32_MIN)
        return false;
    *out = (int32_t)v;
    *p = s;
    return true;
}

static bool parse_unit(char c, enum basalt_arrow_time_unit *unit)
{
    switch (c) {
    case 's': *unit = BASALT_ARROW_TIME_UNIT_SECOND; return true;
    case 'm': *unit = BASALT_ARROW_TIME_UNIT_MILLI; return true;
    case 'u': *unit = BASALT_ARROW_TIME_UNIT_MICRO; return true;
    case 'n': *unit = BASALT_ARROW_TIME_UNIT_NANO; return true;
    default: return false;
    }
}

static char unit_char(enum basalt_arrow_time_unit unit)
{
    static const char chars[] = "smun";
    return (unsigned)unit < 4 ? chars[unit] : '?';
}

static int32_t decimal_max_precision(enum basalt_arrow_type_id id)
{
    switch (id) {
    case BASALT_ARROW_TYPE_DECIMAL32: return 9;
    case BASALT_ARROW_TYPE_DECIMAL64: return 18;
    case BASALT_ARROW_TYPE_DECIMAL128: return 38;
    default: return 76;
    }
}

static basalt_status corrupt(struct basalt_error *err, const char *format, const char *why)
{
    return basalt_error_set(err, BASALT_CORRUPT, "format '%s': %s", format, why);
}

static basalt_status unknown(struct basalt_error *err, const char *format)
{
    return basalt_error_set(err, BASALT_UNSUPPORTED, "format '%s': unknown type", format);
}

static basalt_status parse_decimal(const char *format, struct basalt_arrow_type *type,
                                   struct basalt_error *err)
{
    const char *p = format + 1;
    if (*p++ != ':')
        return corrupt(err, format, "decimal needs ':precision,scale'");
    int32_t precision, scale, bits = 128;
    if (!parse_int32(&p, false, &precision) || *p++ != ',' || !parse_int32(&p, true, &scale))
        return corrupt(err, format, "decimal needs ':precision,scale'");
    if (*p == ',') {
        p++;
        if (!parse_int32(&p, false, &bits))
            return corrupt(err, format, "bad decimal bit width");
    }
    if (*p != '\0')
        return corrupt(err, format, "trailing characters");
    enum basalt_arrow_type_id id;
    switch (bits) {
    case 32: id = BASALT_ARROW_TYPE_DECIMAL32; break;
    case 64: id = BASALT_ARROW_TYPE_DECIMAL64; break;
    case 128: id = BASALT_ARROW_TYPE_DECIMAL128; break;
    case 256: id = BASALT_ARROW_TYPE_DECIMAL256; break;
    default: return corrupt(err, format, "decimal bit width is not 32, 64, 128 or 256");
    }
    if (precision < 1 || precision > decimal_max_precision(id))
        return corrupt(err, format, "decimal precision out of range for its width");
    type_clear(type, id, bits);
    type->precision = precision;
    type->scale = scale;
    return BASALT_OK;
}

/* "w:N" and "+w:N": the size after the colon, N >= 0, nothing after it. */
static bool parse_size(const char *p, int32_t *size)
{
    if (*p++ != ':')
        return false;
    if (!parse_int32(&p, false, size))
        return false;
    return *p == '\0';
}

static basalt_status parse_temporal(const char *format, struct basalt_arrow_type *type,
                                    struct basalt_error *err)
{
    const char *p = format + 1;
    char kind = *p++;
    enum basalt_arrow_time_unit unit = BASALT_ARROW_TIME_UNIT_SECOND;
    switch (kind) {
    case 'd':
        if (p[0] == 'D' && p[1] == '\0') {
            type_clear(type, BASALT_ARROW_TYPE_DATE32, 32);
            return BASALT_OK;
        }
        if (p[0] == 'm' && p[1] == '\0') {
            type_clear(type, BASALT_ARROW_TYPE_DATE64, 64);
            return BASALT_OK;
        }
        return corrupt(err, format, "date unit is not D or m");
    case 't':
        if (!parse_unit(p[0], &unit) || p[1] != '\0')
            return corrupt(err, format, "time unit is not s, m, u or n");
        if (unit <= BASALT_ARROW_TIME_UNIT_MILLI)
            type_clear(type, BASALT_ARROW_TYPE_TIME32, 32);
        else
            type_clear(type, BASALT_ARROW_TYPE_TIME64, 64);
        type->unit = unit;
        return BASALT_OK;
    case 's':
        if (!parse_unit(p[0], &unit) || p[1] != ':')
            return corrupt(err, format, "timestamp needs a unit and ':'");
        type_clear(type, BASALT_ARROW_TYPE_TIMESTAMP, 64);
        type->unit = unit;
        type->timezone = p[2] != '\0' ? p + 2 : NULL;
        return BASALT_OK;
    case 'D':
        if (!parse_unit(p[0], &unit) || p[1] != '\0')
            return corrupt(err, format, "duration unit is not s, m, u or n");
        type_clear(type, BASALT_ARROW_TYPE_DURATION, 64);
        type->unit = unit;
        return BASALT_OK;
    case 'i':
        if (p[0] != '\0' && p[1] == '\0') {
            if (p[0] == 'M') {
                type_clear(type, BASALT_ARROW_TYPE_INTERVAL_MONTHS, 32);
                return BASALT_OK;
            }
            if (p[0] == 'D') {
                type_clear(type, BASALT_ARROW_TYPE_INTERVAL_DAY_TIME, 64);
                return BASALT_OK;
            }
            if (p[0] == 'n') {
                type_clear(type, BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO, 128);
                return BASALT_OK;
            }
        }
        return corrupt(err, format, "interval unit is not M, D or n");
    default:
        return unknown(err, format);
    }
}

static basalt_status parse_union(const char *format, enum basalt_arrow_type_id id,
                                 struct basalt_arrow_type *type, struct basalt_error *err)
{
    const char *p = format + 3;
    if (*p++ != ':')
        return corrupt(err, format, "union needs ':' and its type ids");
    const char *ids = p;
    int32_t n = 0;
    if (*p != '\0') {
        for (;;) {
            int32_t code;
            if (!parse_int32(&p, false, &code) || code > 127)
                return corrupt(err, format, "union type id is not in [0, 127]");
            n++;
            if (*p == '\0')
                break;
            if (*p++ != ',')
                return corrupt(err, format, "union type ids are not comma-separated");
        }
    }
    type_clear(type, id, 0);
    type->union_type_ids = ids;
    type->n_union_types = n;
    return BASALT_OK;
}

static basalt_status parse_nested(const char *format, struct basalt_arrow_type *type,
                                  struct basalt_error *err)
{
    const char *p = format + 1;
    int32_t size;
    switch (p[0]) {
    case 'l':
    case 'L':
    case 's':
    case 'm':
    case 'r':
        if (p[1] != '\0')
            return corrupt(err, format, "trailing characters");
        type_clear(type,
                   p[0] == 'l'   ? BASALT_ARROW_TYPE_LIST
                   : p[0] == 'L' ? BASALT_ARROW_TYPE_LARGE_LIST
                   : p[0] == 's' ? BASALT_ARROW_TYPE_STRUCT
                   : p[0] == 'm' ? BASALT_ARROW_TYPE_MAP
                                 : BASALT_ARROW_TYPE_RUN_END_ENCODED,
                   0);
        return BASALT_OK;
    case 'w':
        if (!parse_size(p + 1, &size))
            return corrupt(err, format, "fixed-size list needs ':N' with N >= 0");
        type_clear(type, BASALT_ARROW_TYPE_FIXED_SIZE_LIST, 0);
        type->fixed_size = size;
        return BASALT_OK;
    case 'v':
        if ((p[1] == 'l' || p[1] == 'L') && p[2] == '\0') {
            type_clear(type,
                       p[1] == 'l' ? BASALT_ARROW_TYPE_LIST_VIEW
                                   : BASALT_ARROW_TYPE_LARGE_LIST_VIEW,
                       0);
            return BASALT_OK;
        }
        return unknown(err, format);
    case 'u':
        if (p[1] == 's')
            return parse_union(format, BASALT_ARROW_TYPE_SPARSE_UNION, type, err);
        if (p[1] == 'd')
            return parse_union(format, BASALT_ARROW_TYPE_DENSE_UNION, type, err);
        return unknown(err, format);
    default:
        return unknown(err, format);
    }
}

basalt_status basalt_arrow_type_parse(const char *format, struct basalt_arrow_type *type,
                                      struct basalt_error *err)
{
    if (!format || !type)
        return basalt_error_set(err, BASALT_INVALID_ARG, "type_parse: NULL argument");
    static const struct {
        char code;
        enum basalt_arrow_type_id id;
        int bits;
    } simple[] = {
        {'n', BASALT_ARROW_TYPE_NULL, 0},         {'b', BASALT_ARROW_TYPE_BOOL, 1},
        {'c', BASALT_ARROW_TYPE_INT8, 8},         {'C', BASALT_ARROW_TYPE_UINT8, 8},
        {'s', BASALT_ARROW_TYPE_INT16, 16},       {'S', BASALT_ARROW_TYPE_UINT16, 16},
        {'i', BASALT_ARROW_TYPE_INT32, 32},       {'I', BASALT_ARROW_TYPE_UINT32, 32},
        {'l', BASALT_ARROW_TYPE_INT64, 64},       {'L', BASALT_ARROW_TYPE_UINT64, 64},
        {'e', BASALT_ARROW_TYPE_HALF_FLOAT, 16},  {'f', BASALT_ARROW_TYPE_FLOAT, 32},
        {'g', BASALT_ARROW_TYPE_DOUBLE, 64},      {'z', BASALT_ARROW_TYPE_BINARY, 0},
        {'u', BASALT_ARROW_TYPE_STRING, 0},       {'Z', BASALT_ARROW_TYPE_LARGE_BINARY, 0},
        {'U', BASALT_ARROW_TYPE_LARGE_STRING, 0},
    };
    char c = format[0];
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (simple[i].code != c)
            continue;
        if (format[1] != '\0')
            return corrupt(err, format, "trailing characters");
        type_clear(type, simple[i].id, simple[i].bits);
        return BASALT_OK;
    }
    int32_t size;
    switch (c) {
    case 'v':
        if ((format[1] == 'z' || format[1] == 'u') && format[2] == '\0') {
            type_clear(type,
                       format[1] == 'z' ? BASALT_ARROW_TYPE_BINARY_VIEW
                                        : BASALT_ARROW_TYPE_STRING_VIEW,
                       0);
            return BASALT_OK;
        }
        return unknown(err, format);
    case 'w':
        if (!parse_size(format + 1, &size))
            return corrupt(err, format, "fixed-size binary needs ':N' with N >= 0");
        type_clear(type, BASALT_ARROW_TYPE_FIXED_SIZE_BINARY, (int64_t)size * 8);
        type->fixed_size = size;
        return BASALT_OK;
    case 'd':
        return parse_decimal(format, type, err);
    case 't':
        return parse_temporal(format, type, err);
    case '+':
        return parse_nested(format, type, err);
    case '\0':
        return basalt_error_set(err, BASALT_CORRUPT, "empty format string");
    default:
        return unknown(err, format);
    }
}

/* The format of a type with no parameters, or NULL. */
static const char *plain_format(const struct basalt_arrow_type *type)
{
    static const char *const unit_suffix[2][4] = {
        {"tts", "ttm", NULL, NULL},
        {NULL, NULL, "ttu", "ttn"},
    };
    static const char *const duration[4] = {"tDs", "tDm", "tDu", "tDn"};
    switch (type->id) {
    case BASALT_ARROW_TYPE_NULL: return "n";
    case BASALT_ARROW_TYPE_BOOL: return "b";
    case BASALT_ARROW_TYPE_INT8: return "c";
    case BASALT_ARROW_TYPE_UINT8: return "C";
    case BASALT_ARROW_TYPE_INT16: return "s";
    case BASALT_ARROW_TYPE_UINT16: return "S";
    case BASALT_ARROW_TYPE_INT32: return "i";
    case BASALT_ARROW_TYPE_UINT32: return "I";
    case BASALT_ARROW_TYPE_INT64: return "l";
    case BASALT_ARROW_TYPE_UINT64: return "L";
    case BASALT_ARROW_TYPE_HALF_FLOAT: return "e";
    case BASALT_ARROW_TYPE_FLOAT: return "f";
    case BASALT_ARROW_TYPE_DOUBLE: return "g";
    case BASALT_ARROW_TYPE_BINARY: return "z";
    case BASALT_ARROW_TYPE_STRING: return "u";
    case BASALT_ARROW_TYPE_LARGE_BINARY: return "Z";
    case BASALT_ARROW_TYPE_LARGE_STRING: return "U";
    case BASALT_ARROW_TYPE_BINARY_VIEW: return "vz";
    case BASALT_ARROW_TYPE_STRING_VIEW: return "vu";
    case BASALT_ARROW_TYPE_DATE32: return "tdD";
    case BASALT_ARROW_TYPE_DATE64: return "tdm";
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_TIME64:
        if ((unsigned)type->unit > 3)
            return NULL;
        return unit_suffix[type->id == BASALT_ARROW_TYPE_TIME64][type->unit];
    case BASALT_ARROW_TYPE_DURATION:
        return (unsigned)type->unit > 3 ? NULL : duration[type->unit];
    case BASALT_ARROW_TYPE_INTERVAL_MONTHS: return "tiM";
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME: return "tiD";
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO: return "tin";
    case BASALT_ARROW_TYPE_LIST: return "+l";
    case BASALT_ARROW_TYPE_LARGE_LIST: return "+L";
    case BASALT_ARROW_TYPE_LIST_VIEW: return "+vl";
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW: return "+vL";
    case BASALT_ARROW_TYPE_STRUCT: return "+s";
    case BASALT_ARROW_TYPE_MAP: return "+m";
    case BASALT_ARROW_TYPE_RUN_END_ENCODED: return "+r";
    default: return NULL;
    }
}

basalt_status basalt_arrow_type_format(const struct basalt_arrow_type *type, char *buf, size_t cap,
                                       struct basalt_error *err)
{
    if (!type || (!buf && cap))
        return basalt_error_set(err, BASALT_INVALID_ARG, "type_format: NULL argument");
    int n;
    const char *plain = NULL;
    switch (type->id) {
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
        if (type->fixed_size < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "negative fixed size %d",
                                    (int)type->fixed_size);
        n = snprintf(buf, cap, "%sw:%d",
                     type->id == BASALT_ARROW_TYPE_FIXED_SIZE_LIST ? "+" : "",
                     (int)type->fixed_size);
        break;
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256:
        if (type->precision < 1 || type->precision > decimal_max_precision(type->id))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "decimal precision %d out of range", (int)type->precision);
        if (type->id == BASALT_ARROW_TYPE_DECIMAL128)
            n = snprintf(buf, cap, "d:%d,%d", (int)type->precision, (int)type->scale);
        else
            n = snprintf(buf, cap, "d:%d,%d,%d", (int)type->precision, (int)type->scale,
                         type->id == BASALT_ARROW_TYPE_DECIMAL32   ? 32
                         : type->id == BASALT_ARROW_TYPE_DECIMAL64 ? 64
                                                                   : 256);
        break;
    case BASALT_ARROW_TYPE_TIMESTAMP:
        if ((unsigned)type->unit > 3)
            return basalt_error_set(err, BASALT_INVALID_ARG, "bad time unit");
        n = snprintf(buf, cap, "ts%c:%s", unit_char(type->unit),
                     type->timezone ? type->timezone : "");
        break;
    case BASALT_ARROW_TYPE_SPARSE_UNION:
    case BASALT_ARROW_TYPE_DENSE_UNION:
        n = snprintf(buf, cap, "+u%c:%s", type->id == BASALT_ARROW_TYPE_SPARSE_UNION ? 's' : 'd',
                     type->union_type_ids ? type->union_type_ids : "");
        break;
    default:
        plain = plain_format(type);
        if (!plain)
            return basalt_error_set(err, BASALT_INVALID_ARG, "type id %d has no format",
                                    (int)type->id);
        n = snprintf(buf, cap, "%s", plain);
        break;
    }
    if (n < 0 || (size_t)n >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "format string needs %d bytes, have %zu",
                                n + 1, cap);
    return BASALT_OK;
}

const char *basalt_arrow_type_name(enum basalt_arrow_type_id id)
{
    static const char *const names[] = {
        "null", "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
        "uint64", "half_float", "float", "double", "binary", "string", "large_binary",
        "large_string", "binary_view", "string_view", "fixed_size_binary", "decimal32",
        "decimal64", "decimal128", "decimal256", "date32", "date64", "time32", "time64",
        "timestamp", "duration", "interval_months", "interval_day_time",
        "interval_month_day_nano", "list", "large_list", "list_view", "large_list_view",
        "fixed_size_list", "struct", "map", "sparse_union", "dense_union", "run_end_encoded",
    };
    if ((unsigned)id >= sizeof names / sizeof names[0])
        return "unknown";
    return names[id];
}

int64_t basalt_arrow_type_n_buffers(enum basalt_arrow_type_id id)
{
    switch (id) {
    case BASALT_ARROW_TYPE_NULL:
    case BASALT_ARROW_TYPE_RUN_END_ENCODED:
        return 0;
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
    case BASALT_ARROW_TYPE_STRUCT:
    case BASALT_ARROW_TYPE_SPARSE_UNION:
        return 1;
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW:
        return 3;
    case BASALT_ARROW_TYPE_BINARY_VIEW:
    case BASALT_ARROW_TYPE_STRING_VIEW:
        return -1;
    default:
        return 2; /* fixed width, bool, list, large list, map, dense union */
    }
}

bool basalt_arrow_type_is_integer(enum basalt_arrow_type_id id)
{
    return id >= BASALT_ARROW_TYPE_INT8 && id <= BASALT_ARROW_TYPE_UINT64;
}
