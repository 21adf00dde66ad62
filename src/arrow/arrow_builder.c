/* Builders: creation, children, dictionaries and capacity. Appends live in
 * arrow_append.c, finishing in arrow_finish.c. */
#include <string.h>

#include "arrow_internal.h"

static char *dup_string(const char *s)
{
    size_t len = strlen(s) + 1;
    char *copy = basalt_malloc(len);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

static basalt_status classify(struct basalt_arrow_builder *b, const char *format,
                              struct basalt_error *err)
{
    b->int_kind = BASALT_ARROW_INT_NONE;
    b->width = 0;
    switch (b->type.id) {
    case BASALT_ARROW_TYPE_NULL: b->kind = BASALT_ARROW_KIND_NULL; return BASALT_OK;
    case BASALT_ARROW_TYPE_BOOL: b->kind = BASALT_ARROW_KIND_BOOL; return BASALT_OK;
    case BASALT_ARROW_TYPE_INT8: b->int_kind = BASALT_ARROW_INT_S8; break;
    case BASALT_ARROW_TYPE_INT16: b->int_kind = BASALT_ARROW_INT_S16; break;
    case BASALT_ARROW_TYPE_INT32:
    case BASALT_ARROW_TYPE_DATE32:
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_INTERVAL_MONTHS:
        b->int_kind = BASALT_ARROW_INT_S32;
        break;
    case BASALT_ARROW_TYPE_INT64:
    case BASALT_ARROW_TYPE_DATE64:
    case BASALT_ARROW_TYPE_TIME64:
    case BASALT_ARROW_TYPE_TIMESTAMP:
    case BASALT_ARROW_TYPE_DURATION:
        b->int_kind = BASALT_ARROW_INT_S64;
        break;
    case BASALT_ARROW_TYPE_UINT8: b->int_kind = BASALT_ARROW_INT_U8; break;
    case BASALT_ARROW_TYPE_UINT16: b->int_kind = BASALT_ARROW_INT_U16; break;
    case BASALT_ARROW_TYPE_UINT32: b->int_kind = BASALT_ARROW_INT_U32; break;
    case BASALT_ARROW_TYPE_UINT64: b->int_kind = BASALT_ARROW_INT_U64; break;
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256:
        b->int_kind = BASALT_ARROW_INT_DECIMAL;
        break;
    case BASALT_ARROW_TYPE_HALF_FLOAT:
    case BASALT_ARROW_TYPE_FLOAT:
    case BASALT_ARROW_TYPE_DOUBLE:
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME:
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO:
        break;
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
        b->kind = BASALT_ARROW_KIND_BINARY;
        return BASALT_OK;
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
        b->kind = BASALT_ARROW_KIND_LARGE_BINARY;
        return BASALT_OK;
    case BASALT_ARROW_TYPE_LIST: b->kind = BASALT_ARROW_KIND_LIST; return BASALT_OK;
    case BASALT_ARROW_TYPE_LARGE_LIST: b->kind = BASALT_ARROW_KIND_LARGE_LIST; return BASALT_OK;
    case BASALT_ARROW_TYPE_MAP: b->kind = BASALT_ARROW_KIND_MAP; return BASALT_OK;
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
        b->kind = BASALT_ARROW_KIND_FIXED_LIST;
        return BASALT_OK;
    case BASALT_ARROW_TYPE_STRUCT: b->kind = BASALT_ARROW_KIND_STRUCT; return BASALT_OK;
    case BASALT_ARROW_TYPE_DENSE_UNION: {
        b->kind = BASALT_ARROW_KIND_DENSE_UNION;
        int32_t n = b->type.n_union_types;
        b->union_codes = basalt_malloc(n ? (size_t)n : 1);
        if (!b->union_codes)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a builder");
        const char *p = b->type.union_type_ids;
        for (int32_t i = 0; i < n; i++) {
            /* parse already checked: comma-separated codes in [0, 127] */
            int code = 0;
            while (*p >= '0' && *p <= '9')
                code = code * 10 + (*p++ - '0');
            if (*p == ',')
                p++;
            b->union_codes[i] = (int8_t)code;
        }
        return BASALT_OK;
    }
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "format '%s': no builder for %s arrays",
                                format, basalt_arrow_type_name(b->type.id));
    }
    b->kind = BASALT_ARROW_KIND_FIXED;
    b->width = b->type.bit_width / 8;
    return BASALT_OK;
}

static void builder_destroy(struct basalt_arrow_builder *b)
{
    if (!b)
        return;
    for (int64_t i = 0; i < b->n_children; i++)
        builder_destroy(b->children[i]);
    basalt_free(b->children);
    builder_destroy(b->dictionary);
    basalt_buffer_reset(&b->validity);
    basalt_buffer_reset(&b->values);
    basalt_buffer_reset(&b->data);
    basalt_free(b->format);
    basalt_free(b->name);
    basalt_free(b->metadata);
    basalt_free(b->union_codes);
    basalt_free(b);
}

void basalt_arrow_builder_free(struct basalt_arrow_builder *builder)
{
    /* Children and dictionaries belong to their parent. */
    if (builder && !builder->parent)
        builder_destroy(builder);
}

static basalt_status append_child(struct basalt_arrow_builder *parent, const char *format,
                                  const char *name, int64_t flags,
                                  struct basalt_arrow_builder **child, struct basalt_error *err);

static basalt_status builder_create(const char *format, const char *name, int64_t flags,
                                    struct basalt_arrow_builder *parent,
                                    struct basalt_arrow_builder **out, struct basalt_error *err)
{
    *out = NULL;
    struct basalt_arrow_type type;
    basalt_status st = basalt_arrow_type_parse(format, &type, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arrow_builder *b = basalt_calloc(1, sizeof *b);
    if (!b)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a builder");
    b->parent = parent;
    b->flags = flags;
    b->format = dup_string(format);
    if (!b->format || (name && !(b->name = dup_string(name)))) {
        builder_destroy(b);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a builder");
    }
    /* Parsed again so that the type's views point into our own copy. */
    basalt_arrow_type_parse(b->format, &b->type, NULL);
    basalt_buffer_init(&b->validity);
    basalt_buffer_init(&b->values);
    basalt_buffer_init(&b->data);
    st = classify(b, format, err);
    if (st == BASALT_OK && b->kind == BASALT_ARROW_KIND_MAP) {
        struct basalt_arrow_builder *entries;
        st = append_child(b, "+s", "entries", 0, &entries, err);
    }
    if (st != BASALT_OK) {
        builder_destroy(b);
        return st;
    }
    *out = b;
    return BASALT_OK;
}

basalt_status basalt_arrow_builder_new(const char *format, const char *name, int64_t flags,
                                       struct basalt_arrow_builder **out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "builder_new: NULL out");
    *out = NULL;
    if (!format)
        return basalt_error_set(err, BASALT_INVALID_ARG, "builder_new: NULL format");
    return builder_create(format, name, flags, NULL, out, err);
}

static basalt_status append_child(struct basalt_arrow_builder *parent, const char *format,
                                  const char *name, int64_t flags,
                                  struct basalt_arrow_builder **child, struct basalt_error *err)
{
    struct basalt_arrow_builder **children =
        basalt_realloc(parent->children, (size_t)(parent->n_children + 1) * sizeof *children);
    if (!children)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory adding a child builder");
    parent->children = children;
    basalt_status st = builder_create(format, name, flags, parent, child, err);
    if (st != BASALT_OK)
        return st;
    parent->children[parent->n_children++] = *child;
    return BASALT_OK;
}

basalt_status basalt_arrow_builder_add_child(struct basalt_arrow_builder *parent,
                                             const char *format, const char *name, int64_t flags,
                                             struct basalt_arrow_builder **child,
                                             struct basalt_error *err)
{
    if (!child)
        return basalt_error_set(err, BASALT_INVALID_ARG, "add_child: NULL child");
    *child = NULL;
    if (!parent || !format)
        return basalt_error_set(err, BASALT_INVALID_ARG, "add_child: NULL argument");
    struct basalt_arrow_builder *target = parent;
    int64_t max_children;
    switch (parent->kind) {
    case BASALT_ARROW_KIND_LIST:
    case BASALT_ARROW_KIND_LARGE_LIST:
    case BASALT_ARROW_KIND_FIXED_LIST:
        max_children = 1;
        break;
    case BASALT_ARROW_KIND_STRUCT:
        max_children = INT32_MAX;
        break;
    case BASALT_ARROW_KIND_DENSE_UNION:
        max_children = parent->type.n_union_types;
        break;
    case BASALT_ARROW_KIND_MAP:
        target = parent->children[0];
        max_children = 2;
        if (target->n_children == 0)
            flags &= ~(int64_t)ARROW_FLAG_NULLABLE; /* map keys are never null */
        break;
    default:
        return basalt_error_set(err, BASALT_INVALID_ARG, "add_child: '%s' is not a nested type",
                                parent->format);
    }
    if (target->n_children >= max_children)
        return basalt_error_set(err, BASALT_INVALID_ARG, "add_child: '%s' has all its children",
                                parent->format);
    if (parent->length != 0 || target->length != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "add_child: values were already appended");
    return append_child(target, format, name, flags, child, err);
}

basalt_status basalt_arrow_builder_add_dictionary(struct basalt_arrow_builder *builder,
                                                  const char *value_format,
                                                  struct basalt_arrow_builder **dictionary,
                                                  struct basalt_error *err)
{
    if (!dictionary)
        return basalt_error_set(err, BASALT_INVALID_ARG, "add_dictionary: NULL out");
    *dictionary = NULL;
    if (!builder || !value_format)
        return basalt_error_set(err, BASALT_INVALID_ARG, "add_dictionary: NULL argument");
    if (!basalt_arrow_type_is_integer(builder->type.id))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "add_dictionary: indices of type '%s' are not integers",
                                builder->format);
    if (builder->dictionary || builder->length != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "add_dictionary: already a dictionary, or not empty");
    basalt_status st = builder_create(value_format, NULL, ARROW_FLAG_NULLABLE, builder,
                                      &builder->dictionary, err);
    *dictionary = builder->dictionary;
    return st;
}

struct basalt_arrow_builder *basalt_arrow_builder_child(struct basalt_arrow_builder *builder,
                                                        int64_t i)
{
    if (!builder || i < 0 || i >= builder->n_children)
        return NULL;
    return builder->children[i];
}

struct basalt_arrow_builder *basalt_arrow_builder_dictionary(struct basalt_arrow_builder *builder)
{
    return builder ? builder->dictionary : NULL;
}

int64_t basalt_arrow_builder_length(const struct basalt_arrow_builder *builder)
{
    return builder ? builder->length : 0;
}

int64_t basalt_arrow_builder_null_count(const struct basalt_arrow_builder *builder)
{
    return builder ? builder->null_count : 0;
}

basalt_status basalt_arrow_builder_set_metadata(struct basalt_arrow_builder *builder,
                                                const char *metadata, struct basalt_error *err)
{
    if (!builder)
        return basalt_error_set(err, BASALT_INVALID_ARG, "set_metadata: NULL builder");
    size_t size;
    basalt_status st = basalt_arrow_metadata_size(metadata, &size, err);
    if (st != BASALT_OK)
        return st;
    char *copy = NULL;
    if (metadata) {
        copy = basalt_malloc(size);
        if (!copy)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for field metadata");
        memcpy(copy, metadata, size);
    }
    basalt_free(builder->metadata);
    builder->metadata = copy;
    return BASALT_OK;
}

/* ------------------------------------------------------------ capacity */

basalt_status basalt_arrow_bitmap_reserve(struct basalt_buffer *bitmap, int64_t bits,
                                          struct basalt_error *err)
{
    size_t need = (size_t)basalt_bitmap_bytes(bits);
    if (need <= bitmap->capacity)
        return BASALT_OK;
    size_t cap = bitmap->capacity * 2;
    if (cap < need)
        cap = need;
    cap = (cap + 63) & ~(size_t)63;
    uint8_t *data = basalt_aligned_alloc(64, cap);
    if (!data)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory growing a bitmap to %zu bytes",
                                cap);
    if (bitmap->capacity)
        memcpy(data, bitmap->data, bitmap->capacity);
    memset(data + bitmap->capacity, 0, cap - bitmap->capacity);
    basalt_free(bitmap->data);
    bitmap->data = data;
    bitmap->capacity = cap;
    return BASALT_OK;
}

basalt_status basalt_arrow_builder_reserve_validity(struct basalt_arrow_builder *b, int64_t n,
                                                    struct basalt_error *err)
{
    if (!b->validity.data)
        return BASALT_OK;
    return basalt_arrow_bitmap_reserve(&b->validity, b->length + n, err);
}

basalt_status basalt_arrow_builder_make_validity(struct basalt_arrow_builder *b, int64_t n,
                                                 struct basalt_error *err)
{
    if (b->validity.data)
        return basalt_arrow_bitmap_reserve(&b->validity, b->length + n, err);
    basalt_status st = basalt_arrow_bitmap_reserve(&b->validity, b->length + n, err);
    if (st != BASALT_OK)
        return st;
    basalt_bitmap_fill(b->validity.data, 0, b->length, true);
    return BASALT_OK;
}

static size_t offset_width(const struct basalt_arrow_builder *b)
{
    return b->kind == BASALT_ARROW_KIND_LARGE_BINARY || b->kind == BASALT_ARROW_KIND_LARGE_LIST
               ? 8
               : 4;
}

basalt_status basalt_arrow_builder_reserve_offsets(struct basalt_arrow_builder *b, int64_t n,
                                                   struct basalt_error *err)
{
    size_t w = offset_width(b);
    size_t entries = (size_t)n + (b->values.size == 0);
    if ((size_t)n > ((size_t)1 << 60))
        return basalt_error_set(err, BASALT_LIMIT, "cannot reserve %lld offsets", (long long)n);
    basalt_status st = basalt_buffer_reserve(&b->values, entries * w, err);
    if (st != BASALT_OK)
        return st;
    if (b->values.size == 0) {
        memset(b->values.data, 0, w);
        b->values.size = w;
    }
    return BASALT_OK;
}

int64_t basalt_arrow_builder_last_offset(const struct basalt_arrow_builder *b)
{
    if (b->values.size == 0)
        return 0;
    if (offset_width(b) == 8) {
        int64_t v;
        memcpy(&v, b->values.data + b->values.size - 8, 8);
        return v;
    }
    int32_t v;
    memcpy(&v, b->values.data + b->values.size - 4, 4);
    return v;
}

basalt_status basalt_arrow_builder_reserve(struct basalt_arrow_builder *b, int64_t additional,
                                           struct basalt_error *err)
{
    if (!b || additional < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reserve: NULL builder or negative count");
    if (additional > ((int64_t)1 << 60) - b->length)
        return basalt_error_set(err, BASALT_LIMIT, "cannot reserve %lld more elements",
                                (long long)additional);
    basalt_status st = basalt_arrow_builder_reserve_validity(b, additional, err);
    if (st != BASALT_OK)
        return st;
    switch (b->kind) {
    case BASALT_ARROW_KIND_FIXED:
        if (b->width && additional > (INT64_MAX >> 2) / b->width)
            return basalt_error_set(err, BASALT_LIMIT, "cannot reserve %lld values of %lld bytes",
                                    (long long)additional, (long long)b->width);
        return basalt_buffer_reserve(&b->values, (size_t)(additional * b->width), err);
    case BASALT_ARROW_KIND_BOOL:
        return basalt_arrow_bitmap_reserve(&b->values, b->length + additional, err);
    case BASALT_ARROW_KIND_BINARY:
    case BASALT_ARROW_KIND_LARGE_BINARY:
    case BASALT_ARROW_KIND_LIST:
    case BASALT_ARROW_KIND_LARGE_LIST:
    case BASALT_ARROW_KIND_MAP:
        return basalt_arrow_builder_reserve_offsets(b, additional, err);
    case BASALT_ARROW_KIND_FIXED_LIST:
        if (b->n_children == 0)
            return BASALT_OK;
        if (b->type.fixed_size && additional > ((int64_t)1 << 60) / b->type.fixed_size)
            return basalt_error_set(err, BASALT_LIMIT, "cannot reserve %lld lists of %d",
                                    (long long)additional, (int)b->type.fixed_size);
        return basalt_arrow_builder_reserve(b->children[0], additional * b->type.fixed_size, err);
    case BASALT_ARROW_KIND_STRUCT:
        for (int64_t i = 0; i < b->n_children; i++) {
            st = basalt_arrow_builder_reserve(b->children[i], additional, err);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    case BASALT_ARROW_KIND_DENSE_UNION:
        st = basalt_buffer_reserve(&b->values, (size_t)additional, err);
        return st == BASALT_OK ? basalt_buffer_reserve(&b->data, (size_t)additional * 4, err) : st;
    default:
        return BASALT_OK;
    }
}

basalt_status basalt_arrow_builder_reserve_bytes(struct basalt_arrow_builder *b, int64_t additional,
                                                 struct basalt_error *err)
{
    if (!b || additional < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reserve_bytes: bad argument");
    if (b->kind != BASALT_ARROW_KIND_BINARY && b->kind != BASALT_ARROW_KIND_LARGE_BINARY)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reserve_bytes: '%s' is not binary",
                                b->format);
    if (additional > ((int64_t)1 << 60))
        return basalt_error_set(err, BASALT_LIMIT, "cannot reserve %lld bytes",
                                (long long)additional);
    return basalt_buffer_reserve(&b->data, (size_t)additional, err);
}
