/* Builder appends. Every append reserves all it needs first and only then
 * writes, so a failed append leaves the builder as it was. */
#include <string.h>

#include "arrow_internal.h"

static basalt_status wrong_type(const struct basalt_arrow_builder *b, const char *what,
                                struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_INVALID_ARG, "%s does not apply to '%s' (%s)", what,
                            b->format, basalt_arrow_type_name(b->type.id));
}

/* Marks the element at b->length valid and counts it. */
static inline void commit_valid(struct basalt_arrow_builder *b)
{
    if (b->validity.data)
        basalt_bitmap_set(b->validity.data, b->length, true);
    b->length++;
}

/* The common path of every fixed-width append: room, store, validity bit.
 * Inlined with a constant `width` at each call site. */
static inline basalt_status store_fixed(struct basalt_arrow_builder *b, const void *value,
                                        size_t width, struct basalt_error *err)
{
    if (b->values.capacity - b->values.size < width) {
        basalt_status st = basalt_buffer_reserve(&b->values, width, err);
        if (st != BASALT_OK)
            return st;
    }
    if (b->validity.data && (size_t)(b->length >> 3) >= b->validity.capacity) {
        basalt_status st = basalt_arrow_builder_reserve_validity(b, 1, err);
        if (st != BASALT_OK)
            return st;
    }
    memcpy(b->values.data + b->values.size, value, width);
    b->values.size += width;
    commit_valid(b);
    return BASALT_OK;
}

static basalt_status out_of_range(const struct basalt_arrow_builder *b, const char *value,
                                  struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_INVALID_ARG, "value %s out of range for '%s'", value,
                            b->format);
}

static basalt_status store_decimal(struct basalt_arrow_builder *b, int64_t value,
                                   struct basalt_error *err)
{
    uint8_t bytes[32];
    memset(bytes, value < 0 ? 0xff : 0, sizeof bytes);
    size_t width = (size_t)b->width;
    if (width == 4) {
        if (value < INT32_MIN || value > INT32_MAX)
            return out_of_range(b, "(decimal32)", err);
        int32_t v = (int32_t)value;
        memcpy(bytes, &v, 4);
    } else {
        memcpy(bytes, &value, 8);
    }
    return store_fixed(b, bytes, width, err);
}

basalt_status basalt_arrow_builder_append_int(struct basalt_arrow_builder *b, int64_t value,
                                              struct basalt_error *err)
{
    switch (b->int_kind) {
    case BASALT_ARROW_INT_S8:
        if (value < INT8_MIN || value > INT8_MAX)
            return out_of_range(b, "(int8)", err);
        return store_fixed(b, &(int8_t){(int8_t)value}, 1, err);
    case BASALT_ARROW_INT_S16:
        if (value < INT16_MIN || value > INT16_MAX)
            return out_of_range(b, "(int16)", err);
        return store_fixed(b, &(int16_t){(int16_t)value}, 2, err);
    case BASALT_ARROW_INT_S32:
        if (value < INT32_MIN || value > INT32_MAX)
            return out_of_range(b, "(int32)", err);
        return store_fixed(b, &(int32_t){(int32_t)value}, 4, err);
    case BASALT_ARROW_INT_S64:
        return store_fixed(b, &value, 8, err);
    case BASALT_ARROW_INT_U8:
        if (value < 0 || value > UINT8_MAX)
            return out_of_range(b, "(uint8)", err);
        return store_fixed(b, &(uint8_t){(uint8_t)value}, 1, err);
    case BASALT_ARROW_INT_U16:
        if (value < 0 || value > UINT16_MAX)
            return out_of_range(b, "(uint16)", err);
        return store_fixed(b, &(uint16_t){(uint16_t)value}, 2, err);
    case BASALT_ARROW_INT_U32:
        if (value < 0 || value > (int64_t)UINT32_MAX)
            return out_of_range(b, "(uint32)", err);
        return store_fixed(b, &(uint32_t){(uint32_t)value}, 4, err);
    case BASALT_ARROW_INT_U64:
        if (value < 0)
            return out_of_range(b, "(negative)", err);
        return store_fixed(b, &(uint64_t){(uint64_t)value}, 8, err);
    case BASALT_ARROW_INT_DECIMAL:
        return store_decimal(b, value, err);
    default:
        return wrong_type(b, "append_int", err);
    }
}

basalt_status basalt_arrow_builder_append_uint(struct basalt_arrow_builder *b, uint64_t value,
                                               struct basalt_error *err)
{
    switch (b->int_kind) {
    case BASALT_ARROW_INT_U8:
    case BASALT_ARROW_INT_U16:
    case BASALT_ARROW_INT_U32:
        return basalt_arrow_builder_append_int(b, value > INT64_MAX ? -1 : (int64_t)value, err);
    case BASALT_ARROW_INT_U64:
        return store_fixed(b, &value, 8, err);
    default:
        return wrong_type(b, "append_uint", err);
    }
}

/* IEEE 754 binary64 to binary16, rounding to nearest, ties to even, in one
 * step (converting through float would round twice). */
static uint16_t double_to_half(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
    int exp = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & 0xfffffffffffffull;
    if (exp == 0x7ff) /* inf, or NaN keeping its top payload bits and quiet */
        return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 | (mant >> 42) : 0));
    int e = exp - 1023 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    int shift = 42;
    uint64_t base = 0;
    if (e <= 0) { /* subnormal half: the implicit bit becomes explicit */
        if (e < -10)
            return sign;
        mant |= 1ull << 52;
        shift = 43 - e;
    } else {
        base = (uint64_t)e << 10;
    }
    uint64_t h = base | (mant >> shift);
    uint64_t rem = mant & ((1ull << shift) - 1);
    uint64_t half = 1ull << (shift - 1);
    /* A carry out of the mantissa bumps the exponent, up to infinity: right. */
    if (rem > half || (rem == half && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

basalt_status basalt_arrow_builder_append_double(struct basalt_arrow_builder *b, double value,
                                                 struct basalt_error *err)
{
    switch (b->type.id) {
    case BASALT_ARROW_TYPE_DOUBLE:
        return store_fixed(b, &value, 8, err);
    case BASALT_ARROW_TYPE_FLOAT:
        return store_fixed(b, &(float){(float)value}, 4, err);
    case BASALT_ARROW_TYPE_HALF_FLOAT:
        return store_fixed(b, &(uint16_t){double_to_half(value)}, 2, err);
    default:
        return wrong_type(b, "append_double", err);
    }
}

basalt_status basalt_arrow_builder_append_bool(struct basalt_arrow_builder *b, bool value,
                                               struct basalt_error *err)
{
    if (b->kind != BASALT_ARROW_KIND_BOOL)
        return wrong_type(b, "append_bool", err);
    basalt_status st = basalt_arrow_bitmap_reserve(&b->values, b->length + 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_reserve_validity(b, 1, err);
    if (st != BASALT_OK)
        return st;
    if (value)
        basalt_bitmap_set(b->values.data, b->length, true);
    commit_valid(b);
    return BASALT_OK;
}

basalt_status basalt_arrow_builder_append_bytes(struct basalt_arrow_builder *b, const void *data,
                                                int64_t len, struct basalt_error *err)
{
    if (len < 0 || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "append_bytes: bad data or length");
    if (b->kind == BASALT_ARROW_KIND_FIXED) {
        if (len != b->width)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "append_bytes: %lld bytes for '%s', which takes %lld",
                                    (long long)len, b->format, (long long)b->width);
        return store_fixed(b, data, (size_t)len, err);
    }
    bool large = b->kind == BASALT_ARROW_KIND_LARGE_BINARY;
    if (!large && b->kind != BASALT_ARROW_KIND_BINARY)
        return wrong_type(b, "append_bytes", err);
    int64_t end = (int64_t)b->data.size + len;
    if (len > ((int64_t)1 << 60) || (!large && end > INT32_MAX))
        return basalt_error_set(err, BASALT_LIMIT,
                                "'%s' data would reach %lld bytes, past its 32-bit offsets",
                                b->format, (long long)end);
    basalt_status st = basalt_arrow_builder_reserve_offsets(b, 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_reserve(&b->data, (size_t)len, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_reserve_validity(b, 1, err);
    if (st != BASALT_OK)
        return st;
    if (len)
        memcpy(b->data.data + b->data.size, data, (size_t)len);
    b->data.size += (size_t)len;
    if (large) {
        memcpy(b->values.data + b->values.size, &end, 8);
        b->values.size += 8;
    } else {
        int32_t end32 = (int32_t)end;
        memcpy(b->values.data + b->values.size, &end32, 4);
        b->values.size += 4;
    }
    commit_valid(b);
    return BASALT_OK;
}

basalt_status basalt_arrow_builder_append_string(struct basalt_arrow_builder *b, const char *value,
                                                 struct basalt_error *err)
{
    if (!value)
        return basalt_error_set(err, BASALT_INVALID_ARG, "append_string: NULL value");
    return basalt_arrow_builder_append_bytes(b, value, (int64_t)strlen(value), err);
}

basalt_status basalt_arrow_builder_append_values(struct basalt_arrow_builder *b,
                                                 const void *values, int64_t n,
                                                 const uint8_t *validity, int64_t validity_offset,
                                                 struct basalt_error *err)
{
    if (n < 0 || (!values && n) || validity_offset < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "append_values: bad arguments");
    if (b->kind != BASALT_ARROW_KIND_FIXED && b->kind != BASALT_ARROW_KIND_BOOL)
        return wrong_type(b, "append_values", err);
    if (n == 0)
        return BASALT_OK;
    if (n > ((int64_t)1 << 60) - b->length ||
        (b->width && n > (INT64_MAX >> 2) / b->width))
        return basalt_error_set(err, BASALT_LIMIT, "append_values: %lld values", (long long)n);
    int64_t nulls = validity ? n - basalt_bitmap_count(validity, validity_offset, n) : 0;
    basalt_status st;
    if (b->kind == BASALT_ARROW_KIND_FIXED)
        st = basalt_buffer_reserve(&b->values, (size_t)(n * b->width), err);
    else
        st = basalt_arrow_bitmap_reserve(&b->values, b->length + n, err);
    if (st == BASALT_OK)
        st = nulls ? basalt_arrow_builder_make_validity(b, n, err)
                   : basalt_arrow_builder_reserve_validity(b, n, err);
    if (st != BASALT_OK)
        return st;
    if (b->kind == BASALT_ARROW_KIND_FIXED) {
        memcpy(b->values.data + b->values.size, values, (size_t)(n * b->width));
        b->values.size += (size_t)(n * b->width);
    } else {
        basalt_bitmap_copy(b->values.data, b->length, values, 0, n);
    }
    if (b->validity.data) {
        if (validity)
            basalt_bitmap_copy(b->validity.data, b->length, validity, validity_offset, n);
        else
            basalt_bitmap_fill(b->validity.data, b->length, n, true);
    }
    b->length += n;
    b->null_count += nulls;
    return BASALT_OK;
}

/* ------------------------------------------------------------ nulls */

/* Filler entries go to a child when its parent gets a null: nulls where the
 * child may hold them, zero values where it may not. Dictionary indices are
 * always null, since index 0 need not exist. Null-typed children are nulls. */
static bool filler_is_null(const struct basalt_arrow_builder *b)
{
    return (b->flags & ARROW_FLAG_NULLABLE) || b->dictionary || b->kind == BASALT_ARROW_KIND_NULL;
}

/* The child a dense union puts its nulls and fillers in: the first of the
 * null type, else the first. */
static int64_t union_filler_child(const struct basalt_arrow_builder *b)
{
    for (int64_t i = 0; i < b->n_children; i++)
        if (b->children[i]->kind == BASALT_ARROW_KIND_NULL)
            return i;
    return 0;
}

/* Reserves everything `n` filler entries of `b` need (nulls when `as_null`),
 * recursively, so that write_filler cannot fail. */
static basalt_status reserve_filler(struct basalt_arrow_builder *b, int64_t n, bool as_null,
                                    struct basalt_error *err)
{
    if (n > ((int64_t)1 << 60) - b->length)
        return basalt_error_set(err, BASALT_LIMIT, "'%s' cannot grow by %lld elements",
                                b->format, (long long)n);
    basalt_status st = BASALT_OK;
    if (b->kind != BASALT_ARROW_KIND_NULL && b->kind != BASALT_ARROW_KIND_DENSE_UNION)
        st = as_null ? basalt_arrow_builder_make_validity(b, n, err)
                     : basalt_arrow_builder_reserve_validity(b, n, err);
    if (st != BASALT_OK)
        return st;
    switch (b->kind) {
    case BASALT_ARROW_KIND_NULL:
        return BASALT_OK;
    case BASALT_ARROW_KIND_FIXED:
        if (b->width && n > (INT64_MAX >> 2) / b->width)
            return basalt_error_set(err, BASALT_LIMIT, "'%s': %lld values", b->format,
                                    (long long)n);
        return basalt_buffer_reserve(&b->values, (size_t)(n * b->width), err);
    case BASALT_ARROW_KIND_BOOL:
        return basalt_arrow_bitmap_reserve(&b->values, b->length + n, err);
    case BASALT_ARROW_KIND_BINARY:
    case BASALT_ARROW_KIND_LARGE_BINARY:
    case BASALT_ARROW_KIND_LIST:
    case BASALT_ARROW_KIND_LARGE_LIST:
    case BASALT_ARROW_KIND_MAP:
        return basalt_arrow_builder_reserve_offsets(b, n, err);
    case BASALT_ARROW_KIND_FIXED_LIST: {
        if (b->n_children == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "'%s' has no child builder",
                                    b->format);
        int64_t size = b->type.fixed_size;
        if (size && n > ((int64_t)1 << 60) / size)
            return basalt_error_set(err, BASALT_LIMIT, "'%s': %lld lists", b->format,
                                    (long long)n);
        struct basalt_arrow_builder *c = b->children[0];
        return reserve_filler(c, n * size, filler_is_null(c), err);
    }
    case BASALT_ARROW_KIND_STRUCT:
        for (int64_t i = 0; i < b->n_children; i++) {
            struct basalt_arrow_builder *c = b->children[i];
            st = reserve_filler(c, n, filler_is_null(c), err);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    case BASALT_ARROW_KIND_DENSE_UNION: {
        if (b->n_children == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "'%s' has no child builder",
                                    b->format);
        struct basalt_arrow_builder *c = b->children[union_filler_child(b)];
        if (n > INT32_MAX - c->length)
            return basalt_error_set(err, BASALT_LIMIT, "'%s' child past 32-bit offsets",
                                    b->format);
        st = basalt_buffer_reserve(&b->values, (size_t)n, err);
        if (st == BASALT_OK)
            st = basalt_buffer_reserve(&b->data, (size_t)n * 4, err);
        return st == BASALT_OK ? reserve_filler(c, n, as_null || filler_is_null(c), err) : st;
    }
    }
    return BASALT_OK;
}

static void repeat_offsets(struct basalt_arrow_builder *b, int64_t n)
{
    int64_t last = basalt_arrow_builder_last_offset(b);
    bool large =
        b->kind == BASALT_ARROW_KIND_LARGE_BINARY || b->kind == BASALT_ARROW_KIND_LARGE_LIST;
    for (int64_t i = 0; i < n; i++) {
        if (large) {
            memcpy(b->values.data + b->values.size, &last, 8);
            b->values.size += 8;
        } else {
            int32_t v = (int32_t)last;
            memcpy(b->values.data + b->values.size, &v, 4);
            b->values.size += 4;
        }
    }
}

static void write_filler(struct basalt_arrow_builder *b, int64_t n, bool as_null)
{
    if (n == 0) /* nothing to write, and the buffers may not exist yet */
        return;
    switch (b->kind) {
    case BASALT_ARROW_KIND_NULL:
        b->length += n;
        b->null_count += n;
        return;
    case BASALT_ARROW_KIND_FIXED:
        memset(b->values.data + b->values.size, 0, (size_t)(n * b->width));
        b->values.size += (size_t)(n * b->width);
        break;
    case BASALT_ARROW_KIND_BOOL:
        basalt_bitmap_fill(b->values.data, b->length, n, false);
        break;
    case BASALT_ARROW_KIND_BINARY:
    case BASALT_ARROW_KIND_LARGE_BINARY:
    case BASALT_ARROW_KIND_LIST:
    case BASALT_ARROW_KIND_LARGE_LIST:
    case BASALT_ARROW_KIND_MAP:
        repeat_offsets(b, n);
        break;
    case BASALT_ARROW_KIND_FIXED_LIST: {
        struct basalt_arrow_builder *c = b->children[0];
        write_filler(c, n * b->type.fixed_size, filler_is_null(c));
        break;
    }
    case BASALT_ARROW_KIND_STRUCT:
        for (int64_t i = 0; i < b->n_children; i++) {
            struct basalt_arrow_builder *c = b->children[i];
            write_filler(c, n, filler_is_null(c));
        }
        break;
    case BASALT_ARROW_KIND_DENSE_UNION: {
        /* no validity of its own: the null is the child's */
        int64_t k = union_filler_child(b);
        struct basalt_arrow_builder *c = b->children[k];
        memset(b->values.data + b->values.size, b->union_codes[k], (size_t)n);
        b->values.size += (size_t)n;
        for (int64_t i = 0; i < n; i++) {
            int32_t off = (int32_t)(c->length + i);
            memcpy(b->data.data + b->data.size, &off, 4);
            b->data.size += 4;
        }
        write_filler(c, n, as_null || filler_is_null(c));
        b->length += n;
        return;
    }
    }
    if (b->validity.data)
        basalt_bitmap_fill(b->validity.data, b->length, n, !as_null);
    b->length += n;
    if (as_null)
        b->null_count += n;
}

basalt_status basalt_arrow_builder_append_nulls(struct basalt_arrow_builder *b, int64_t n,
                                                struct basalt_error *err)
{
    if (!b || n < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "append_nulls: bad arguments");
    if (n == 0)
        return BASALT_OK;
    basalt_status st = reserve_filler(b, n, true, err);
    if (st != BASALT_OK)
        return st;
    write_filler(b, n, true);
    return BASALT_OK;
}

basalt_status basalt_arrow_builder_append_null(struct basalt_arrow_builder *b,
                                               struct basalt_error *err)
{
    return basalt_arrow_builder_append_nulls(b, 1, err);
}

/* ------------------------------------------------------------ nested */

basalt_status basalt_arrow_builder_append_union(struct basalt_arrow_builder *b, int64_t child,
                                                struct basalt_error *err)
{
    if (!b)
        return basalt_error_set(err, BASALT_INVALID_ARG, "append_union: NULL builder");
    if (b->kind != BASALT_ARROW_KIND_DENSE_UNION)
        return wrong_type(b, "append_union", err);
    if (child < 0 || child >= b->n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG, "append_union: '%s' has no child %lld",
                                b->format, (long long)child);
    const struct basalt_arrow_builder *c = b->children[child];
    if (c->length >= INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "'%s' child past 32-bit offsets", b->format);
    basalt_status st = basalt_buffer_reserve(&b->values, 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_reserve(&b->data, 4, err);
    if (st != BASALT_OK)
        return st;
    b->values.data[b->values.size++] = (uint8_t)b->union_codes[child];
    int32_t off = (int32_t)c->length;
    memcpy(b->data.data + b->data.size, &off, 4);
    b->data.size += 4;
    b->length++;
    return BASALT_OK;
}

static basalt_status child_mismatch(const struct basalt_arrow_builder *b, int64_t have,
                                    int64_t want, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "end_element: '%s' child has %lld values, the element needs %lld",
                            b->format, (long long)have, (long long)want);
}

/* Closes an element of a list-like builder whose child now has `end` values. */
static basalt_status end_list(struct basalt_arrow_builder *b, int64_t end,
                              struct basalt_error *err)
{
    bool large = b->kind == BASALT_ARROW_KIND_LARGE_LIST;
    if (!large && end > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT,
                                "'%s' child reached %lld values, past 32-bit offsets", b->format,
                                (long long)end);
    basalt_status st = basalt_arrow_builder_reserve_offsets(b, 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_reserve_validity(b, 1, err);
    if (st != BASALT_OK)
        return st;
    if (large) {
        memcpy(b->values.data + b->values.size, &end, 8);
        b->values.size += 8;
    } else {
        int32_t v = (int32_t)end;
        memcpy(b->values.data + b->values.size, &v, 4);
        b->values.size += 4;
    }
    commit_valid(b);
    return BASALT_OK;
}

static basalt_status end_map(struct basalt_arrow_builder *b, struct basalt_error *err)
{
    struct basalt_arrow_builder *entries = b->children[0];
    if (entries->n_children != 2)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "end_element: map needs key and value children");
    int64_t keys = entries->children[0]->length, values = entries->children[1]->length;
    if (keys != values || keys < entries->length)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "end_element: map has %lld keys and %lld values",
                                (long long)keys, (long long)values);
    int64_t added = keys - entries->length;
    basalt_status st = basalt_arrow_builder_reserve_validity(entries, added, err);
    if (st == BASALT_OK && keys > INT32_MAX)
        st = basalt_error_set(err, BASALT_LIMIT, "map entries past 32-bit offsets");
    if (st == BASALT_OK)
        st = basalt_arrow_builder_reserve_offsets(b, 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_reserve_validity(b, 1, err);
    if (st != BASALT_OK)
        return st;
    if (entries->validity.data)
        basalt_bitmap_fill(entries->validity.data, entries->length, added, true);
    entries->length = keys;
    return end_list(b, keys, err); /* reserved above: cannot fail */
}

basalt_status basalt_arrow_builder_end_element(struct basalt_arrow_builder *b,
                                               struct basalt_error *err)
{
    basalt_status st;
    switch (b->kind) {
    case BASALT_ARROW_KIND_LIST:
    case BASALT_ARROW_KIND_LARGE_LIST:
        if (b->n_children != 1)
            return basalt_error_set(err, BASALT_INVALID_ARG, "end_element: list has no child");
        return end_list(b, b->children[0]->length, err);
    case BASALT_ARROW_KIND_MAP:
        return end_map(b, err);
    case BASALT_ARROW_KIND_FIXED_LIST: {
        if (b->n_children != 1)
            return basalt_error_set(err, BASALT_INVALID_ARG, "end_element: list has no child");
        int64_t want = (b->length + 1) * b->type.fixed_size;
        if (b->children[0]->length != want)
            return child_mismatch(b, b->children[0]->length, want, err);
        break;
    }
    case BASALT_ARROW_KIND_STRUCT:
        for (int64_t i = 0; i < b->n_children; i++)
            if (b->children[i]->length != b->length + 1)
                return child_mismatch(b, b->children[i]->length, b->length + 1, err);
        break;
    default:
        return wrong_type(b, "end_element", err);
    }
    st = basalt_arrow_builder_reserve_validity(b, 1, err);
    if (st != BASALT_OK)
        return st;
    commit_valid(b);
    return BASALT_OK;
}
