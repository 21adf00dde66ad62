/* FULL validation: what a reader would trip over in the buffers themselves.
 * Runs after the node's structure and its children passed. */
#include <string.h>

#include "arrow_internal.h"

static bool is_valid(const uint8_t *validity, int64_t i)
{
    return !validity || basalt_bitmap_get(validity, i);
}

static basalt_status check_null_count(struct basalt_arrow_vctx *ctx, const struct ArrowArray *array,
                                      const uint8_t *validity)
{
    if (array->null_count == -1)
        return BASALT_OK;
    int64_t nulls =
        validity ? array->length - basalt_bitmap_count(validity, array->offset, array->length) : 0;
    if (nulls != array->null_count)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "null_count %lld but the validity bitmap has %lld nulls",
                                          (long long)array->null_count, (long long)nulls);
    return BASALT_OK;
}

static basalt_status check_offsets(struct basalt_arrow_vctx *ctx,
                                   const struct basalt_arrow_type *type,
                                   const struct ArrowArray *array, const uint8_t *validity,
                                   bool large)
{
    const void *offsets = array->buffers[1];
    bool utf8 = type->id == BASALT_ARROW_TYPE_STRING || type->id == BASALT_ARROW_TYPE_LARGE_STRING;
    const uint8_t *data = utf8 ? array->buffers[2] : NULL;
    int64_t prev = basalt_arrow_read_offset(offsets, large, array->offset);
    for (int64_t j = 0; j < array->length; j++) {
        int64_t next = basalt_arrow_read_offset(offsets, large, array->offset + j + 1);
        if (next < prev)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "offsets not monotonic at %lld (%lld after %lld)",
                                              (long long)j, (long long)next, (long long)prev);
        if (utf8 && next > prev && is_valid(validity, array->offset + j) &&
            !basalt_arrow_utf8_valid(data + prev, next - prev))
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "invalid UTF-8 in element %lld",
                                              (long long)j);
        prev = next;
    }
    return BASALT_OK;
}

/* Map keys may not be null: the entries the map refers to must have valid keys. */
static basalt_status check_map_keys(struct basalt_arrow_vctx *ctx, const struct ArrowArray *array)
{
    if (array->length == 0)
        return BASALT_OK;
    const struct ArrowArray *entries = array->children[0];
    const struct ArrowArray *keys = entries->children[0];
    const uint8_t *key_validity = keys->n_buffers > 0 ? keys->buffers[0] : NULL;
    if (!key_validity || keys->null_count == 0)
        return BASALT_OK;
    const void *offsets = array->buffers[1];
    int64_t first = basalt_arrow_read_offset(offsets, false, array->offset);
    int64_t last = basalt_arrow_read_offset(offsets, false, array->offset + array->length);
    int64_t start = keys->offset + entries->offset + first;
    int64_t valid = basalt_bitmap_count(key_validity, start, last - first);
    if (valid != last - first)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "%lld map keys are null",
                                          (long long)(last - first - valid));
    return BASALT_OK;
}

/* Reads index i of an integer indices buffer as a signed value; uint64
 * indices above INT64_MAX read as -1, out of range either way. */
static int64_t read_index(const void *values, enum basalt_arrow_type_id id, int64_t i)
{
    const char *p = values;
    switch (id) {
    case BASALT_ARROW_TYPE_INT8: return ((const int8_t *)p)[i];
    case BASALT_ARROW_TYPE_UINT8: return ((const uint8_t *)p)[i];
    case BASALT_ARROW_TYPE_INT16: { int16_t v; memcpy(&v, p + i * 2, 2); return v; }
    case BASALT_ARROW_TYPE_UINT16: { uint16_t v; memcpy(&v, p + i * 2, 2); return v; }
    case BASALT_ARROW_TYPE_INT32: { int32_t v; memcpy(&v, p + i * 4, 4); return v; }
    case BASALT_ARROW_TYPE_UINT32: { uint32_t v; memcpy(&v, p + i * 4, 4); return v; }
    case BASALT_ARROW_TYPE_INT64: { int64_t v; memcpy(&v, p + i * 8, 8); return v; }
    default: { uint64_t v; memcpy(&v, p + i * 8, 8); return v > INT64_MAX ? -1 : (int64_t)v; }
    }
}

static basalt_status check_indices(struct basalt_arrow_vctx *ctx,
                                   const struct basalt_arrow_type *type,
                                   const struct ArrowArray *array, const uint8_t *validity)
{
    int64_t size = array->dictionary->length;
    for (int64_t j = 0; j < array->length; j++) {
        int64_t i = array->offset + j;
        if (!is_valid(validity, i))
            continue;
        int64_t index = read_index(array->buffers[1], type->id, i);
        if (index < 0 || index >= size)
            return basalt_arrow_validate_fail(
                ctx, BASALT_CORRUPT, "dictionary index %lld at %lld outside [0, %lld)",
                (long long)index, (long long)j, (long long)size);
    }
    return BASALT_OK;
}

/* Every type code is one the format declares; a dense union's offsets fall
 * inside the child of their code. */
static basalt_status check_union(struct basalt_arrow_vctx *ctx,
                                 const struct basalt_arrow_type *type,
                                 const struct ArrowArray *array)
{
    int8_t child_of[128];
    memset(child_of, -1, sizeof child_of);
    const char *p = type->union_type_ids;
    for (int32_t i = 0; i < type->n_union_types; i++) {
        int code = 0;
        while (*p >= '0' && *p <= '9')
            code = code * 10 + (*p++ - '0');
        if (*p == ',')
            p++;
        if (child_of[code] >= 0)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "union type id %d declared twice",
                                              code);
        child_of[code] = (int8_t)i;
    }
    const int8_t *codes = array->buffers[0];
    bool dense = type->id == BASALT_ARROW_TYPE_DENSE_UNION;
    for (int64_t j = 0; j < array->length; j++) {
        int64_t i = array->offset + j;
        int8_t code = codes[i];
        if (code < 0 || child_of[code] < 0)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "union type id %d at %lld is not declared", code,
                                              (long long)j);
        if (!dense)
            continue;
        int64_t off = basalt_arrow_read_offset(array->buffers[1], false, i);
        int64_t have = array->children[child_of[code]]->length;
        if (off < 0 || off >= have)
            return basalt_arrow_validate_fail(
                ctx, BASALT_CORRUPT, "union offset %lld at %lld outside child %d's %lld values",
                (long long)off, (long long)j, (int)child_of[code], (long long)have);
    }
    return BASALT_OK;
}

basalt_status basalt_arrow_validate_content(struct basalt_arrow_vctx *ctx,
                                            const struct basalt_arrow_type *type,
                                            const struct ArrowArray *array)
{
    if (type->id == BASALT_ARROW_TYPE_NULL)
        return BASALT_OK;
    if (type->id == BASALT_ARROW_TYPE_SPARSE_UNION || type->id == BASALT_ARROW_TYPE_DENSE_UNION)
        return check_union(ctx, type, array);
    const uint8_t *validity = array->buffers[0];
    basalt_status st = check_null_count(ctx, array, validity);
    if (st != BASALT_OK || array->length == 0)
        return st;
    switch (type->id) {
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LIST:
        return check_offsets(ctx, type, array, validity, false);
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LARGE_LIST:
        return check_offsets(ctx, type, array, validity, true);
    case BASALT_ARROW_TYPE_MAP:
        st = check_offsets(ctx, type, array, validity, false);
        return st == BASALT_OK ? check_map_keys(ctx, array) : st;
    default:
        break;
    }
    if (array->dictionary)
        return check_indices(ctx, type, array, validity);
    return BASALT_OK;
}
