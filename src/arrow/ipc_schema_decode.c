/* Arrow IPC Schema message (flatbuffers) -> ArrowSchema. */
#include <stdarg.h>
#include <stdio.h>

#include "arrow_internal.h"
#include "ipc_schema_internal.h"

/* Type union tags of Schema.fbs. */
enum {
    FB_TYPE_NULL = 1,
    FB_TYPE_INT,
    FB_TYPE_FLOATING_POINT,
    FB_TYPE_BINARY,
    FB_TYPE_UTF8,
    FB_TYPE_BOOL,
    FB_TYPE_DECIMAL,
    FB_TYPE_DATE,
    FB_TYPE_TIME,
    FB_TYPE_TIMESTAMP,
    FB_TYPE_INTERVAL,
    FB_TYPE_LIST,
    FB_TYPE_STRUCT,
    FB_TYPE_UNION,
    FB_TYPE_FIXED_SIZE_BINARY,
    FB_TYPE_FIXED_SIZE_LIST,
    FB_TYPE_MAP,
    FB_TYPE_DURATION,
    FB_TYPE_LARGE_BINARY,
    FB_TYPE_LARGE_UTF8,
    FB_TYPE_LARGE_LIST,
    FB_TYPE_RUN_END_ENCODED,
    FB_TYPE_BINARY_VIEW,
    FB_TYPE_UTF8_VIEW,
    FB_TYPE_LIST_VIEW,
    FB_TYPE_LARGE_LIST_VIEW
};

struct decode_ctx {
    const struct basalt_arrow_fb *fb;
    /* Work left: fields, metadata pairs and copied bytes all draw on it. A
     * flatbuffer whose objects are not shared never runs out; one that makes
     * many fields point at the same children or strings does. */
    int64_t budget;
    struct basalt_buffer format;
    struct basalt_error *err;
};

static basalt_status spend(struct decode_ctx *ctx, int64_t cost)
{
    ctx->budget -= cost;
    if (ctx->budget < 0)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "flatbuffer: more fields and strings than its bytes can hold "
                                "(shared or cyclic references)");
    return BASALT_OK;
}

/* Replaces the format being built with `text` (NUL-terminated in the buffer). */
static basalt_status format_set(struct decode_ctx *ctx, const char *text, size_t len)
{
    ctx->format.size = 0;
    basalt_status st = basalt_buffer_append(&ctx->format, text, len, ctx->err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&ctx->format, "", 1, ctx->err);
    return st;
}

static basalt_status format_printf(struct decode_ctx *ctx, const char *fmt, ...)
    BASALT_PRINTF(2, 3);

static basalt_status format_printf(struct decode_ctx *ctx, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return format_set(ctx, tmp, (size_t)n);
}

static basalt_status bad_type(struct decode_ctx *ctx, const char *type, const char *why, long v)
{
    return basalt_error_set(ctx->err, BASALT_CORRUPT, "%s: %s %ld", type, why, v);
}

static basalt_status int_format(struct decode_ctx *ctx, const struct basalt_arrow_fb_table *t,
                                const char **out)
{
    int32_t bits;
    bool is_signed;
    basalt_status st = basalt_arrow_fb_i32(t, 0, 0, &bits, ctx->err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_bool(t, 1, false, &is_signed, ctx->err);
    if (st != BASALT_OK)
        return st;
    switch (bits) {
    case 8: *out = is_signed ? "c" : "C"; return BASALT_OK;
    case 16: *out = is_signed ? "s" : "S"; return BASALT_OK;
    case 32: *out = is_signed ? "i" : "I"; return BASALT_OK;
    case 64: *out = is_signed ? "l" : "L"; return BASALT_OK;
    default: return bad_type(ctx, "Int", "bitWidth", bits);
    }
}

static const char unit_chars[] = "smun";

static basalt_status time_unit(struct decode_ctx *ctx, const struct basalt_arrow_fb_table *t,
                               int16_t dflt, const char *type, char *unit)
{
    int16_t u;
    basalt_status st = basalt_arrow_fb_i16(t, 0, dflt, &u, ctx->err);
    if (st != BASALT_OK)
        return st;
    if (u < 0 || u > 3)
        return bad_type(ctx, type, "unit", u);
    *unit = unit_chars[u];
    return BASALT_OK;
}

/* Expected number of children of a nested type; -1 for any. */
struct type_shape {
    int64_t n_children; /* -1: any */
    int64_t flags;      /* extra ArrowSchema flags */
};

/* Writes the format of the type table `t` (union tag `tag`) into ctx->format. */
static basalt_status type_format(struct decode_ctx *ctx, uint8_t tag,
                                 const struct basalt_arrow_fb_table *t, int64_t n_children,
                                 struct type_shape *shape)
{
    shape->n_children = 0;
    shape->flags = 0;
    basalt_status st = BASALT_OK;
    const char *fixed = NULL;
    char unit = 0;
    switch (tag) {
    case FB_TYPE_NULL: fixed = "n"; break;
    case FB_TYPE_BOOL: fixed = "b"; break;
    case FB_TYPE_BINARY: fixed = "z"; break;
    case FB_TYPE_UTF8: fixed = "u"; break;
    case FB_TYPE_LARGE_BINARY: fixed = "Z"; break;
    case FB_TYPE_LARGE_UTF8: fixed = "U"; break;
    case FB_TYPE_BINARY_VIEW: fixed = "vz"; break;
    case FB_TYPE_UTF8_VIEW: fixed = "vu"; break;
    case FB_TYPE_INT:
        st = int_format(ctx, t, &fixed);
        break;
    case FB_TYPE_FLOATING_POINT: {
        int16_t precision;
        st = basalt_arrow_fb_i16(t, 0, 0, &precision, ctx->err);
        if (st != BASALT_OK)
            return st;
        if (precision < 0 || precision > 2)
            return bad_type(ctx, "FloatingPoint", "precision", precision);
        fixed = precision == 0 ? "e" : precision == 1 ? "f" : "g";
        break;
    }
    case FB_TYPE_DECIMAL: {
        int32_t precision, scale, bits;
        st = basalt_arrow_fb_i32(t, 0, 0, &precision, ctx->err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_i32(t, 1, 0, &scale, ctx->err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_i32(t, 2, 128, &bits, ctx->err);
        if (st != BASALT_OK)
            return st;
        int32_t max = bits == 32 ? 9 : bits == 64 ? 18 : bits == 128 ? 38 : bits == 256 ? 76 : 0;
        if (max == 0)
            return bad_type(ctx, "Decimal", "bitWidth", bits);
        if (precision < 1 || precision > max)
            return bad_type(ctx, "Decimal", "precision", precision);
        return bits == 128 ? format_printf(ctx, "d:%d,%d", (int)precision, (int)scale)
                           : format_printf(ctx, "d:%d,%d,%d", (int)precision, (int)scale, (int)bits);
    }
    case FB_TYPE_DATE: {
        int16_t u;
        st = basalt_arrow_fb_i16(t, 0, 1, &u, ctx->err);
        if (st != BASALT_OK)
            return st;
        if (u != 0 && u != 1)
            return bad_type(ctx, "Date", "unit", u);
        fixed = u == 0 ? "tdD" : "tdm";
        break;
    }
    case FB_TYPE_TIME: {
        int32_t bits;
        st = time_unit(ctx, t, 1, "Time", &unit);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_i32(t, 1, 32, &bits, ctx->err);
        if (st != BASALT_OK)
            return st;
        if (bits != ((unit == 's' || unit == 'm') ? 32 : 64))
            return bad_type(ctx, "Time", "bitWidth does not fit the unit:", bits);
        char f[4] = {'t', 't', unit, 0};
        return format_set(ctx, f, 3);
    }
    case FB_TYPE_TIMESTAMP: {
        const char *tz;
        uint32_t tz_len;
        bool has_tz;
        st = time_unit(ctx, t, 0, "Timestamp", &unit);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_string(t, 1, &tz, &tz_len, &has_tz, ctx->err);
        if (st == BASALT_OK)
            st = spend(ctx, tz_len);
        if (st != BASALT_OK)
            return st;
        if (memchr(tz, 0, tz_len))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "Timestamp: time zone holds a NUL");
        char f[4] = {'t', 's', unit, ':'};
        ctx->format.size = 0;
        st = basalt_buffer_append(&ctx->format, f, 4, ctx->err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&ctx->format, tz, tz_len, ctx->err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&ctx->format, "", 1, ctx->err);
        return st;
    }
    case FB_TYPE_DURATION: {
        st = time_unit(ctx, t, 1, "Duration", &unit);
        if (st != BASALT_OK)
            return st;
        char f[4] = {'t', 'D', unit, 0};
        return format_set(ctx, f, 3);
    }
    case FB_TYPE_INTERVAL: {
        int16_t u;
        st = basalt_arrow_fb_i16(t, 0, 0, &u, ctx->err);
        if (st != BASALT_OK)
            return st;
        if (u < 0 || u > 2)
            return bad_type(ctx, "Interval", "unit", u);
        fixed = u == 0 ? "tiM" : u == 1 ? "tiD" : "tin";
        break;
    }
    case FB_TYPE_FIXED_SIZE_BINARY: {
        int32_t width;
        st = basalt_arrow_fb_i32(t, 0, 0, &width, ctx->err);
        if (st != BASALT_OK)
            return st;
        if (width < 0)
            return bad_type(ctx, "FixedSizeBinary", "byteWidth", width);
        return format_printf(ctx, "w:%d", (int)width);
    }
    case FB_TYPE_LIST:
    case FB_TYPE_LARGE_LIST:
    case FB_TYPE_LIST_VIEW:
    case FB_TYPE_LARGE_LIST_VIEW:
        shape->n_children = 1;
        fixed = tag == FB_TYPE_LIST         ? "+l"
                : tag == FB_TYPE_LARGE_LIST ? "+L"
                : tag == FB_TYPE_LIST_VIEW  ? "+vl"
                                            : "+vL";
        break;
    case FB_TYPE_FIXED_SIZE_LIST: {
        int32_t size;
        st = basalt_arrow_fb_i32(t, 0, 0, &size, ctx->err);
        if (st != BASALT_OK)
            return st;
        if (size < 0)
            return bad_type(ctx, "FixedSizeList", "listSize", size);
        shape->n_children = 1;
        return format_printf(ctx, "+w:%d", (int)size);
    }
    case FB_TYPE_STRUCT:
        shape->n_children = -1;
        fixed = "+s";
        break;
    case FB_TYPE_MAP: {
        bool sorted;
        st = basalt_arrow_fb_bool(t, 0, false, &sorted, ctx->err);
        if (st != BASALT_OK)
            return st;
        shape->n_children = 1;
        shape->flags = sorted ? ARROW_FLAG_MAP_KEYS_SORTED : 0;
        fixed = "+m";
        break;
    }
    case FB_TYPE_RUN_END_ENCODED:
        shape->n_children = 2;
        fixed = "+r";
        break;
    case FB_TYPE_UNION: {
        int16_t mode;
        struct basalt_arrow_fb_vector ids;
        bool has_ids;
        st = basalt_arrow_fb_i16(t, 0, 0, &mode, ctx->err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_vector_field(t, 1, 4, &ids, &has_ids, ctx->err);
        if (st != BASALT_OK)
            return st;
        if (mode != 0 && mode != 1)
            return bad_type(ctx, "Union", "mode", mode);
        if (has_ids && ids.count != n_children)
            return bad_type(ctx, "Union", "typeIds do not match the children: count",
                            (long)ids.count);
        if (n_children > 128)
            return bad_type(ctx, "Union", "children", (long)n_children);
        shape->n_children = n_children;
        ctx->format.size = 0;
        st = basalt_buffer_append(&ctx->format, mode == 0 ? "+us:" : "+ud:", 4, ctx->err);
        for (int64_t i = 0; i < n_children && st == BASALT_OK; i++) {
            int32_t id = has_ids ? (int32_t)basalt_arrow_fb_u32(ctx->fb->data + ids.pos + 4 * i)
                                 : (int32_t)i;
            if (id < 0 || id > 127)
                return bad_type(ctx, "Union", "type id", id);
            char tmp[8];
            int n = snprintf(tmp, sizeof tmp, i ? ",%d" : "%d", (int)id);
            st = basalt_buffer_append(&ctx->format, tmp, (size_t)n, ctx->err);
        }
        if (st == BASALT_OK)
            st = basalt_buffer_append(&ctx->format, "", 1, ctx->err);
        return st;
    }
    case 0:
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "field has no type");
    default:
        return basalt_error_set(ctx->err, BASALT_UNSUPPORTED, "unknown Type union member %u",
                                (unsigned)tag);
    }
    if (st != BASALT_OK)
        return st;
    return format_set(ctx, fixed, strlen(fixed));
}

/* Encodes the KeyValue vector `v` as ArrowSchema metadata into `md` (left
 * empty when the vector is). */
static basalt_status decode_metadata(struct decode_ctx *ctx, const struct basalt_arrow_fb_vector *v,
                                     struct basalt_buffer *md)
{
    md->size = 0;
    basalt_status st = spend(ctx, 8 * (int64_t)v->count);
    for (uint32_t i = 0; i < v->count && st == BASALT_OK; i++) {
        struct basalt_arrow_fb_table kv;
        const char *key, *value;
        uint32_t key_len, value_len;
        bool present;
        st = basalt_arrow_fb_vector_table(v, i, &kv, ctx->err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_string(&kv, 0, &key, &key_len, &present, ctx->err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_string(&kv, 1, &value, &value_len, &present, ctx->err);
        if (st == BASALT_OK)
            st = spend(ctx, (int64_t)key_len + value_len);
        if (st == BASALT_OK)
            st = basalt_arrow_metadata_append(md, key, key_len, value, value_len, ctx->err);
    }
    return st;
}

static basalt_status set_metadata(struct decode_ctx *ctx, const struct basalt_arrow_fb_table *t,
                                  unsigned id, struct ArrowSchema *out)
{
    struct basalt_arrow_fb_vector v;
    bool present;
    basalt_status st = basalt_arrow_fb_vector_field(t, id, 4, &v, &present, ctx->err);
    if (st != BASALT_OK || !present || v.count == 0)
        return st;
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    st = decode_metadata(ctx, &v, &md);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(out, (const char *)md.data, ctx->err);
    basalt_buffer_reset(&md);
    return st;
}

static basalt_status decode_field(struct decode_ctx *ctx, const struct basalt_arrow_fb_table *f,
                                  struct ArrowSchema *out, int depth);

/* Decodes the Field vector `children` into out->children. */
static basalt_status decode_children(struct decode_ctx *ctx,
                                     const struct basalt_arrow_fb_vector *children,
                                     struct ArrowSchema *out, int depth)
{
    for (uint32_t i = 0; i < children->count; i++) {
        struct basalt_arrow_fb_table child;
        basalt_status st = basalt_arrow_fb_vector_table(children, i, &child, ctx->err);
        if (st == BASALT_OK)
            st = decode_field(ctx, &child, out->children[i], depth + 1);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* The Map type's single child must be a struct of key and value. */
static basalt_status check_map_entries(struct decode_ctx *ctx, const struct ArrowSchema *map)
{
    const struct ArrowSchema *entries = map->children[0];
    if (strcmp(entries->format, "+s") != 0 || entries->n_children != 2)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "Map child is not a struct of key and value");
    return BASALT_OK;
}

static basalt_status decode_field_body(struct decode_ctx *ctx,
                                       const struct basalt_arrow_fb_table *f,
                                       struct ArrowSchema *out, int depth, const char *name)
{
    bool nullable, present;
    uint8_t tag;
    struct basalt_arrow_fb_table type, dict;
    struct basalt_arrow_fb_vector children;
    basalt_status st = basalt_arrow_fb_bool(f, 1, false, &nullable, ctx->err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_u8(f, 2, 0, &tag, ctx->err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_table_field(f, 3, &type, &present, ctx->err);
    if (st != BASALT_OK)
        return st;
    if (!present && tag != 0)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "type tag %u without its table",
                                (unsigned)tag);
    st = basalt_arrow_fb_vector_field(f, 5, 4, &children, &present, ctx->err);
    if (st != BASALT_OK)
        return st;
    struct type_shape shape;
    st = type_format(ctx, tag, &type, children.count, &shape);
    if (st != BASALT_OK)
        return st;
    if (shape.n_children >= 0 && children.count != shape.n_children)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "type %s with %u children",
                                (const char *)ctx->format.data, (unsigned)children.count);
    int64_t flags = (nullable ? ARROW_FLAG_NULLABLE : 0) | shape.flags;

    st = basalt_arrow_fb_table_field(f, 4, &dict, &present, ctx->err);
    if (st != BASALT_OK)
        return st;
    struct ArrowSchema *values = out;
    if (present) {
        /* The field's type and children describe the dictionary values; the
         * field itself is the index type. */
        struct basalt_arrow_fb_table index;
        bool has_index, ordered;
        const char *index_format = "i";
        st = basalt_arrow_fb_table_field(&dict, 1, &index, &has_index, ctx->err);
        if (st == BASALT_OK && has_index)
            st = int_format(ctx, &index, &index_format);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_bool(&dict, 2, false, &ordered, ctx->err);
        if (st != BASALT_OK)
            return st;
        struct ArrowSchema value_schema;
        st = basalt_arrow_schema_init(&value_schema, (const char *)ctx->format.data, "",
                                      ARROW_FLAG_NULLABLE | shape.flags, children.count,
                                      ctx->err);
        if (st != BASALT_OK)
            return st;
        st = basalt_arrow_schema_init(out, index_format, name,
                                      (nullable ? ARROW_FLAG_NULLABLE : 0) |
                                          (ordered ? ARROW_FLAG_DICTIONARY_ORDERED : 0),
                                      0, ctx->err);
        if (st != BASALT_OK) {
            basalt_arrow_schema_release(&value_schema);
            return st;
        }
        st = basalt_arrow_schema_set_dictionary(out, &value_schema, ctx->err);
        if (st != BASALT_OK)
            return st;
        values = out->dictionary;
    } else {
        st = basalt_arrow_schema_init(out, (const char *)ctx->format.data, name, flags,
                                      children.count, ctx->err);
        if (st != BASALT_OK)
            return st;
    }
    st = set_metadata(ctx, f, 6, out);
    if (st == BASALT_OK)
        st = decode_children(ctx, &children, values, depth);
    if (st == BASALT_OK && strcmp(values->format, "+m") == 0)
        st = check_map_entries(ctx, values);
    return st;
}

static basalt_status decode_field(struct decode_ctx *ctx, const struct basalt_arrow_fb_table *f,
                                  struct ArrowSchema *out, int depth)
{
    out->release = NULL;
    if (depth > BASALT_ARROW_MAX_DEPTH)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "fields nested deeper than %d levels",
                                BASALT_ARROW_MAX_DEPTH);
    basalt_status st = spend(ctx, 8);
    if (st != BASALT_OK)
        return st;
    const char *name;
    uint32_t name_len;
    bool present;
    st = basalt_arrow_fb_string(f, 0, &name, &name_len, &present, ctx->err);
    if (st == BASALT_OK)
        st = spend(ctx, name_len);
    if (st != BASALT_OK)
        return st;
    /* The C interface's names are NUL-terminated. */
    char small[64];
    char *copy = name_len < sizeof small ? small : basalt_malloc((size_t)name_len + 1);
    if (!copy)
        return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory for a field name");
    memcpy(copy, name, name_len);
    copy[name_len] = '\0';
    if (strlen(copy) != name_len)
        st = basalt_error_set(ctx->err, BASALT_CORRUPT, "field name holds a NUL");
    else
        st = decode_field_body(ctx, f, out, depth, copy);
    if (st != BASALT_OK) {
        basalt_arrow_schema_release(out);
        out->release = NULL;
        st = basalt_error_context(ctx->err, st, "field '%s'", copy);
    }
    if (copy != small)
        basalt_free(copy);
    return st;
}

static basalt_status decode_schema(struct decode_ctx *ctx, const struct basalt_arrow_fb_table *s,
                                   struct ArrowSchema *out,
                                   struct basalt_arrow_ipc_schema_info *info)
{
    int16_t endianness;
    struct basalt_arrow_fb_vector fields, features;
    bool present, has_features;
    basalt_status st = basalt_arrow_fb_i16(s, 0, 0, &endianness, ctx->err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_vector_field(s, 1, 4, &fields, &present, ctx->err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_vector_field(s, 3, 8, &features, &has_features, ctx->err);
    if (st != BASALT_OK)
        return st;
    if (endianness != 0 && endianness != 1)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "schema endianness %d",
                                (int)endianness);
    if (info) {
        info->big_endian = endianness == 1;
        info->features = 0;
        for (uint32_t i = 0; i < features.count; i++)
            info->features |= basalt_arrow_fb_u64(ctx->fb->data + features.pos + 8 * i);
    }
    st = basalt_arrow_schema_init(out, "+s", "", 0, fields.count, ctx->err);
    if (st != BASALT_OK)
        return st;
    st = set_metadata(ctx, s, 2, out);
    if (st == BASALT_OK)
        st = decode_children(ctx, &fields, out, 0);
    if (st != BASALT_OK) {
        basalt_arrow_schema_release(out);
        out->release = NULL;
    }
    return st;
}

basalt_status basalt_arrow_ipc_schema_decode_message(const void *flatbuffer, size_t len,
                                                     struct ArrowSchema *out,
                                                     struct basalt_arrow_ipc_schema_info *info,
                                                     struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_decode: NULL out");
    out->release = NULL;
    if (!flatbuffer && len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_decode: NULL data");
    struct basalt_arrow_fb fb;
    struct basalt_arrow_fb_table message, schema;
    basalt_status st = basalt_arrow_fb_init(&fb, flatbuffer, len, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_root(&fb, &message, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "schema message");
    int16_t version;
    uint8_t header_type;
    bool present;
    st = basalt_arrow_fb_i16(&message, 0, 0, &version, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_u8(&message, 1, 0, &header_type, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_table_field(&message, 2, &schema, &present, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "schema message");
    if (header_type != 1 || !present)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "schema message: header is type %u, not a Schema",
                                (unsigned)header_type);
    if (version < 0 || version > 4)
        return basalt_error_set(err, BASALT_CORRUPT, "schema message: metadata version %d",
                                (int)version);
    if (info)
        info->metadata_version = version;
    struct decode_ctx ctx = {.fb = &fb, .budget = 2 * (int64_t)fb.len + 64, .err = err};
    basalt_buffer_init(&ctx.format);
    st = decode_schema(&ctx, &schema, out, info);
    basalt_buffer_reset(&ctx.format);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "schema message");
    return BASALT_OK;
}

basalt_status basalt_arrow_ipc_schema_decode(const void *data, size_t len, struct ArrowSchema *out,
                                             struct basalt_arrow_ipc_schema_info *info,
                                             struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_decode: NULL out");
    out->release = NULL;
    if (!data && len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_decode: NULL data");
    const uint8_t *p = data;
    size_t head = 4;
    if (len < 4)
        return basalt_error_set(err, BASALT_CORRUPT, "schema message: %zu bytes, no length",
                                len);
    if (basalt_arrow_fb_u32(p) == 0xFFFFFFFFu) {
        if (len < 8)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "schema message: continuation marker without a length");
        head = 8;
    }
    int32_t mlen = (int32_t)basalt_arrow_fb_u32(p + head - 4);
    if (mlen <= 0)
        return basalt_error_set(err, BASALT_CORRUPT, "schema message: length %d", (int)mlen);
    if ((size_t)mlen > len - head)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "schema message: length %d but %zu bytes follow", (int)mlen,
                                len - head);
    return basalt_arrow_ipc_schema_decode_message(p + head, (size_t)mlen, out, info, err);
}

basalt_status basalt_arrow_ipc_schema_decode_base64(const char *text, size_t len,
                                                    struct ArrowSchema *out,
                                                    struct basalt_arrow_ipc_schema_info *info,
                                                    struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_decode: NULL out");
    out->release = NULL;
    if (!text && len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_decode: NULL text");
    struct basalt_buffer bytes;
    basalt_buffer_init(&bytes);
    basalt_status st = basalt_arrow_base64_decode(text, len, &bytes, err);
    if (st == BASALT_OK)
        st = basalt_arrow_ipc_schema_decode(bytes.data, bytes.size, out, info, err);
    basalt_buffer_reset(&bytes);
    return st;
}
