/* Finishing a builder: the schema, then every ArrowArray shell of the tree
 * allocated up front (the only step that can fail), then the buffers moved in
 * and the builders emptied. */
#include <string.h>

#include "arrow_internal.h"

static int64_t kind_n_buffers(enum basalt_arrow_builder_kind kind)
{
    switch (kind) {
    case BASALT_ARROW_KIND_NULL: return 0;
    case BASALT_ARROW_KIND_BINARY:
    case BASALT_ARROW_KIND_LARGE_BINARY: return 3;
    case BASALT_ARROW_KIND_FIXED_LIST:
    case BASALT_ARROW_KIND_STRUCT: return 1;
    default: return 2; /* dense union: type codes and offsets, no validity */
    }
}

static bool has_offsets(enum basalt_arrow_builder_kind kind)
{
    return kind == BASALT_ARROW_KIND_BINARY || kind == BASALT_ARROW_KIND_LARGE_BINARY ||
           kind == BASALT_ARROW_KIND_LIST || kind == BASALT_ARROW_KIND_LARGE_LIST ||
           kind == BASALT_ARROW_KIND_MAP;
}

static basalt_status short_child(const struct basalt_arrow_builder *b, int64_t have, int64_t want,
                                 struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "finish: '%s'%s%s%s: a child has %lld values where %lld are needed",
                            b->format, b->name ? " ('" : "", b->name ? b->name : "",
                            b->name ? "')" : "", (long long)have, (long long)want);
}

/* Every child holds exactly what its parent refers to. */
static basalt_status check_lengths(const struct basalt_arrow_builder *b, struct basalt_error *err)
{
    switch (b->kind) {
    case BASALT_ARROW_KIND_STRUCT:
        for (int64_t i = 0; i < b->n_children; i++)
            if (b->children[i]->length != b->length)
                return short_child(b, b->children[i]->length, b->length, err);
        break;
    case BASALT_ARROW_KIND_FIXED_LIST:
        if (b->n_children != 1)
            return basalt_error_set(err, BASALT_INVALID_ARG, "finish: '%s' has no child builder",
                                    b->format);
        if (b->children[0]->length != b->length * b->type.fixed_size)
            return short_child(b, b->children[0]->length, b->length * b->type.fixed_size, err);
        break;
    case BASALT_ARROW_KIND_DENSE_UNION:
        if (b->n_children != b->type.n_union_types)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "finish: '%s' has %lld of its %d children", b->format,
                                    (long long)b->n_children, (int)b->type.n_union_types);
        for (int64_t i = 0; i < b->n_children; i++) {
            int64_t used = 0;
            for (size_t k = 0; k < b->values.size; k++)
                used += (int8_t)b->values.data[k] == b->union_codes[i];
            if (b->children[i]->length != used)
                return short_child(b, b->children[i]->length, used, err);
        }
        break;
    case BASALT_ARROW_KIND_LIST:
    case BASALT_ARROW_KIND_LARGE_LIST:
    case BASALT_ARROW_KIND_MAP:
        if (b->n_children != 1)
            return basalt_error_set(err, BASALT_INVALID_ARG, "finish: '%s' has no child builder",
                                    b->format);
        if (b->children[0]->length != basalt_arrow_builder_last_offset(b))
            return short_child(b, b->children[0]->length, basalt_arrow_builder_last_offset(b),
                               err);
        if (b->kind == BASALT_ARROW_KIND_MAP && b->children[0]->n_children != 2)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "finish: map needs key and value children");
        break;
    default:
        break;
    }
    for (int64_t i = 0; i < b->n_children; i++) {
        basalt_status st = check_lengths(b->children[i], err);
        if (st != BASALT_OK)
            return st;
    }
    return b->dictionary ? check_lengths(b->dictionary, err) : BASALT_OK;
}

basalt_status basalt_arrow_builder_schema(const struct basalt_arrow_builder *b,
                                          struct ArrowSchema *schema, struct basalt_error *err)
{
    if (!b || !schema)
        return basalt_error_set(err, BASALT_INVALID_ARG, "builder_schema: NULL argument");
    basalt_status st =
        basalt_arrow_schema_init(schema, b->format, b->name, b->flags, b->n_children, err);
    if (st != BASALT_OK)
        return st;
    if (b->metadata)
        st = basalt_arrow_schema_set_metadata(schema, b->metadata, err);
    for (int64_t i = 0; st == BASALT_OK && i < b->n_children; i++)
        st = basalt_arrow_builder_schema(b->children[i], schema->children[i], err);
    if (st == BASALT_OK && b->dictionary) {
        struct ArrowSchema dictionary;
        st = basalt_arrow_builder_schema(b->dictionary, &dictionary, err);
        if (st == BASALT_OK)
            st = basalt_arrow_schema_set_dictionary(schema, &dictionary, err);
    }
    if (st != BASALT_OK)
        basalt_arrow_schema_release(schema);
    return st;
}

/* Gives a buffer a non-NULL address even when empty: consumers index
 * buffers[i] for zero-length reads, and some reject NULL data buffers. */
static basalt_status ensure_allocated(struct basalt_buffer *buf, struct basalt_error *err)
{
    if (buf->data)
        return BASALT_OK;
    return basalt_buffer_reserve(buf, 1, err);
}

static basalt_status prepare(struct basalt_arrow_builder *b, struct ArrowArray *array,
                             struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(array, kind_n_buffers(b->kind), b->n_children, err);
    if (st != BASALT_OK)
        return st;
    if (has_offsets(b->kind))
        st = basalt_arrow_builder_reserve_offsets(b, 0, err);
    if (st == BASALT_OK &&
        (b->kind == BASALT_ARROW_KIND_FIXED || b->kind == BASALT_ARROW_KIND_DENSE_UNION))
        st = ensure_allocated(&b->values, err);
    if (st == BASALT_OK && b->kind == BASALT_ARROW_KIND_DENSE_UNION)
        st = ensure_allocated(&b->data, err);
    if (st == BASALT_OK && b->kind == BASALT_ARROW_KIND_BOOL) /* zeroed: it is a bitmap */
        st = basalt_arrow_bitmap_reserve(&b->values, 1, err);
    if (st == BASALT_OK &&
        (b->kind == BASALT_ARROW_KIND_BINARY || b->kind == BASALT_ARROW_KIND_LARGE_BINARY))
        st = ensure_allocated(&b->data, err);
    for (int64_t i = 0; st == BASALT_OK && i < b->n_children; i++)
        st = prepare(b->children[i], array->children[i], err);
    if (st == BASALT_OK && b->dictionary) {
        struct ArrowArray dictionary;
        st = prepare(b->dictionary, &dictionary, err);
        if (st == BASALT_OK)
            st = basalt_arrow_array_set_dictionary(array, &dictionary, err);
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(array);
    return st;
}

static void give(struct ArrowArray *array, int64_t i, struct basalt_buffer *buf)
{
    basalt_arrow_array_set_buffer(array, i, basalt_buffer_take(buf), NULL);
}

static void transfer(struct basalt_arrow_builder *b, struct ArrowArray *array)
{
    array->length = b->length;
    array->null_count = b->null_count;
    array->offset = 0;
    if (b->kind != BASALT_ARROW_KIND_NULL) {
        if (b->null_count > 0)
            give(array, 0, &b->validity);
        else
            basalt_buffer_reset(&b->validity);
    }
    switch (b->kind) {
    case BASALT_ARROW_KIND_FIXED:
    case BASALT_ARROW_KIND_BOOL:
    case BASALT_ARROW_KIND_LIST:
    case BASALT_ARROW_KIND_LARGE_LIST:
    case BASALT_ARROW_KIND_MAP:
        give(array, 1, &b->values);
        break;
    case BASALT_ARROW_KIND_BINARY:
    case BASALT_ARROW_KIND_LARGE_BINARY:
        give(array, 1, &b->values);
        give(array, 2, &b->data);
        break;
    case BASALT_ARROW_KIND_DENSE_UNION:
        give(array, 0, &b->values);
        give(array, 1, &b->data);
        break;
    default:
        break;
    }
    for (int64_t i = 0; i < b->n_children; i++)
        transfer(b->children[i], array->children[i]);
    if (b->dictionary)
        transfer(b->dictionary, array->dictionary);
    b->length = 0;
    b->null_count = 0;
}

basalt_status basalt_arrow_builder_finish(struct basalt_arrow_builder *b,
                                          struct ArrowSchema *schema, struct ArrowArray *array,
                                          struct basalt_error *err)
{
    if (schema)
        schema->release = NULL;
    if (array)
        array->release = NULL;
    if (!b || !array)
        return basalt_error_set(err, BASALT_INVALID_ARG, "finish: NULL builder or array");
    if (b->parent)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "finish: '%s' is a child; finish its parent", b->format);
    basalt_status st = check_lengths(b, err);
    if (st == BASALT_OK && schema)
        st = basalt_arrow_builder_schema(b, schema, err);
    if (st != BASALT_OK)
        return st;
    st = prepare(b, array, err);
    if (st != BASALT_OK) {
        if (schema)
            basalt_arrow_schema_release(schema);
        return st;
    }
    transfer(b, array);
    return BASALT_OK;
}
