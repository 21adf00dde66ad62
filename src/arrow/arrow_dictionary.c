/* Dictionary-encoded arrays made plain: each slot's value gathered from the
 * dictionary (basalt_arrow_take), a null index a null slot. */
#include <string.h>

#include "basalt/arrow.h"

int64_t basalt_arrow_dictionary_index(enum basalt_arrow_type_id index_type, const void *indices,
                                      int64_t i)
{
    const void *v = indices;
    switch (index_type) {
    case BASALT_ARROW_TYPE_INT8: return ((const int8_t *)v)[i];
    case BASALT_ARROW_TYPE_UINT8: return ((const uint8_t *)v)[i];
    case BASALT_ARROW_TYPE_INT16: return ((const int16_t *)v)[i];
    case BASALT_ARROW_TYPE_UINT16: return ((const uint16_t *)v)[i];
    case BASALT_ARROW_TYPE_INT32: return ((const int32_t *)v)[i];
    case BASALT_ARROW_TYPE_UINT32: return ((const uint32_t *)v)[i];
    case BASALT_ARROW_TYPE_INT64: return ((const int64_t *)v)[i];
    case BASALT_ARROW_TYPE_UINT64: {
        uint64_t u = ((const uint64_t *)v)[i];
        return u > INT64_MAX ? -1 : (int64_t)u;
    }
    default: return -1;
    }
}

static bool is_index_type(enum basalt_arrow_type_id id)
{
    return id == BASALT_ARROW_TYPE_INT8 || id == BASALT_ARROW_TYPE_UINT8 ||
           id == BASALT_ARROW_TYPE_INT16 || id == BASALT_ARROW_TYPE_UINT16 ||
           id == BASALT_ARROW_TYPE_INT32 || id == BASALT_ARROW_TYPE_UINT32 ||
           id == BASALT_ARROW_TYPE_INT64 || id == BASALT_ARROW_TYPE_UINT64;
}

basalt_status basalt_arrow_dictionary_decode(const struct ArrowSchema *schema,
                                             const struct ArrowArray *array,
                                             struct ArrowArray *out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dictionary decode: NULL out");
    out->release = NULL;
    if (!schema || !schema->release || !schema->dictionary || !array || !array->release ||
        !array->dictionary || !array->dictionary->release)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "dictionary decode: NULL, released or not dictionary-encoded");
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(schema->format, &t, err);
    if (st != BASALT_OK)
        return st;
    if (!is_index_type(t.id))
        return basalt_error_set(err, BASALT_CORRUPT, "dictionary indices of type '%s'",
                                schema->format);
    int64_t n = array->length, dict_len = array->dictionary->length;
    if (n > 0 && (array->n_buffers != 2 || !array->buffers[1]))
        return basalt_error_set(err, BASALT_CORRUPT, "dictionary indices without values");
    const uint8_t *valid = array->null_count != 0 ? array->buffers[0] : NULL;
    int64_t *idx = basalt_malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
    if (!idx)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for dictionary indices");
    bool any_null = false;
    for (int64_t i = 0; i < n && st == BASALT_OK; i++) {
        int64_t at = array->offset + i;
        if (valid && !basalt_bitmap_get(valid, at)) {
            any_null = true;
            idx[i] = -1;
            continue;
        }
        idx[i] = basalt_arrow_dictionary_index(t.id, array->buffers[1], at);
        if (idx[i] < 0 || idx[i] >= dict_len)
            st = basalt_error_set(err, BASALT_CORRUPT,
                                  "dictionary index %lld at slot %lld outside the dictionary's "
                                  "%lld entries",
                                  (long long)idx[i], (long long)i, (long long)dict_len);
    }
    if (st == BASALT_OK && any_null && dict_len == 0)
        st = basalt_error_set(err, BASALT_UNSUPPORTED,
                              "dictionary decode: null slots over an empty dictionary");
    /* A null slot takes entry 0, then is masked. */
    for (int64_t i = 0; st == BASALT_OK && any_null && i < n; i++)
        if (idx[i] < 0)
            idx[i] = 0;
    if (st == BASALT_OK)
        st = basalt_arrow_take(schema->dictionary, array->dictionary, idx, n, out, err);
    basalt_free(idx);
    if (st != BASALT_OK || !any_null)
        return st;
    if (out->n_buffers == 0) /* null values: every slot null already */
        return BASALT_OK;
    /* The gathered validity (if any) and the indices' together (take's
     * arrays start at offset 0). */
    size_t bytes = (size_t)basalt_bitmap_bytes(n);
    uint8_t *bits = basalt_malloc(bytes > 0 ? bytes : 1);
    if (!bits) {
        basalt_arrow_array_release(out);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a validity bitmap");
    }
    if (out->buffers[0])
        basalt_bitmap_copy(bits, 0, out->buffers[0], 0, n);
    else
        basalt_bitmap_fill(bits, 0, n, true);
    for (int64_t i = 0; i < n; i++)
        if (!basalt_bitmap_get(valid, array->offset + i))
            basalt_bitmap_set(bits, i, false);
    st = basalt_arrow_array_set_buffer(out, 0, bits, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    out->null_count = n - basalt_bitmap_count(bits, 0, n);
    return BASALT_OK;
}
