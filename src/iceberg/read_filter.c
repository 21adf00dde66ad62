/* Keeping the selected rows of an Arrow array (deletes and the residual
 * filter applied as one selection bitmap). */
#include <string.h>

#include "scan_internal.h"

#define MAX_DEPTH 64

/* Elements [begin, begin + length) of `src` (logical indices), element
 * begin + i kept when bit i of `sel` is set; n_sel bits are set. */
static basalt_status filter_range(const struct ArrowSchema *schema, const struct ArrowArray *src,
                                  int64_t begin, int64_t length, const uint8_t *sel, int64_t n_sel,
                                  struct ArrowArray *out, int depth, struct basalt_error *err);

static basalt_status gather_validity(const struct ArrowArray *src, int64_t begin, int64_t length,
                                     const uint8_t *sel, int64_t n_sel, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    out->null_count = 0;
    if (src->n_buffers == 0 || src->buffers[0] == NULL || src->null_count == 0)
        return BASALT_OK;
    uint8_t *v;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)((n_sel + 7) / 8), (void **)&v, err);
    if (st != BASALT_OK)
        return st;
    memset(v, 0, (size_t)((n_sel + 7) / 8));
    const uint8_t *in = src->buffers[0];
    int64_t base = src->offset + begin, k = 0, nulls = 0;
    for (int64_t i = 0; i < length; i++) {
        if (!basalt_bitmap_get(sel, i))
            continue;
        if (basalt_bitmap_get(in, base + i))
            v[k >> 3] = (uint8_t)(v[k >> 3] | (1u << (k & 7)));
        else
            nulls++;
        k++;
    }
    out->null_count = nulls;
    return BASALT_OK;
}

static basalt_status filter_fixed(const struct ArrowArray *src, int64_t begin, int64_t length,
                                  const uint8_t *sel, int64_t n_sel, int64_t bits,
                                  struct ArrowArray *out, struct basalt_error *err)
{
    uint8_t *d;
    size_t size = bits == 1 ? (size_t)((n_sel + 7) / 8) : (size_t)(n_sel * (bits / 8));
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 1, size + 1, (void **)&d, err);
    if (st != BASALT_OK)
        return st;
    const uint8_t *in = src->buffers[1];
    int64_t base = src->offset + begin, k = 0;
    if (bits == 1) {
        memset(d, 0, size + 1);
        for (int64_t i = 0; i < length; i++)
            if (basalt_bitmap_get(sel, i)) {
                if (basalt_bitmap_get(in, base + i))
                    d[k >> 3] = (uint8_t)(d[k >> 3] | (1u << (k & 7)));
                k++;
            }
        return BASALT_OK;
    }
    size_t w = (size_t)(bits / 8);
    if (w == 4) {
        const uint32_t *a = (const uint32_t *)(const void *)in + base;
        uint32_t *b = (uint32_t *)(void *)d;
        for (int64_t i = 0; i < length; i++)
            if (basalt_bitmap_get(sel, i))
                b[k++] = a[i];
    } else if (w == 8) {
        const uint64_t *a = (const uint64_t *)(const void *)in + base;
        uint64_t *b = (uint64_t *)(void *)d;
        for (int64_t i = 0; i < length; i++)
            if (basalt_bitmap_get(sel, i))
                b[k++] = a[i];
    } else {
        for (int64_t i = 0; i < length; i++)
            if (basalt_bitmap_get(sel, i)) {
                memcpy(d + (size_t)k * w, in + (size_t)(base + i) * w, w);
                k++;
            }
    }
    return BASALT_OK;
}

static basalt_status filter_binary(const struct ArrowArray *src, int64_t begin, int64_t length,
                                   const uint8_t *sel, int64_t n_sel, bool large,
                                   struct ArrowArray *out, struct basalt_error *err)
{
    int64_t base = src->offset + begin;
    const uint8_t *data = src->buffers[2];
    int64_t total = 0;
    for (int64_t i = 0; i < length; i++) {
        if (!basalt_bitmap_get(sel, i))
            continue;
        int64_t a, b;
        if (large) {
            a = ((const int64_t *)src->buffers[1])[base + i];
            b = ((const int64_t *)src->buffers[1])[base + i + 1];
        } else {
            a = ((const int32_t *)src->buffers[1])[base + i];
            b = ((const int32_t *)src->buffers[1])[base + i + 1];
        }
        total += b - a;
    }
    size_t ow = large ? 8 : 4;
    uint8_t *o, *d;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(n_sel + 1) * ow, (void **)&o, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)total + 1, (void **)&d, err);
    if (st != BASALT_OK)
        return st;
    int64_t pos = 0, k = 0;
    if (large)
        ((int64_t *)(void *)o)[0] = 0;
    else
        ((int32_t *)(void *)o)[0] = 0;
    for (int64_t i = 0; i < length; i++) {
        if (!basalt_bitmap_get(sel, i))
            continue;
        int64_t a, b;
        if (large) {
            a = ((const int64_t *)src->buffers[1])[base + i];
            b = ((const int64_t *)src->buffers[1])[base + i + 1];
        } else {
            a = ((const int32_t *)src->buffers[1])[base + i];
            b = ((const int32_t *)src->buffers[1])[base + i + 1];
        }
        if (b > a)
            memcpy(d + pos, data + a, (size_t)(b - a));
        pos += b - a;
        k++;
        if (large)
            ((int64_t *)(void *)o)[k] = pos;
        else
            ((int32_t *)(void *)o)[k] = (int32_t)pos;
    }
    return BASALT_OK;
}

static basalt_status filter_list(const struct ArrowSchema *schema, const struct ArrowArray *src,
                                 int64_t begin, int64_t length, const uint8_t *sel, int64_t n_sel,
                                 bool large, struct ArrowArray *out, int depth,
                                 struct basalt_error *err)
{
    int64_t base = src->offset + begin;
#define OFF(j) (large ? ((const int64_t *)src->buffers[1])[(j)] : (int64_t)((const int32_t *)src->buffers[1])[(j)])
    int64_t first = length > 0 ? OFF(base) : 0;
    int64_t last = length > 0 ? OFF(base + length) : 0;
    int64_t span = last - first;
    size_t ow = large ? 8 : 4;
    uint8_t *o;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(n_sel + 1) * ow, (void **)&o, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *csel = basalt_calloc((size_t)((span + 7) / 8) + 1, 1);
    if (csel == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t pos = 0, k = 0;
    if (large)
        ((int64_t *)(void *)o)[0] = 0;
    else
        ((int32_t *)(void *)o)[0] = 0;
    for (int64_t i = 0; i < length; i++) {
        if (!basalt_bitmap_get(sel, i))
            continue;
        int64_t a = OFF(base + i), b = OFF(base + i + 1);
        if (b > a)
            basalt_bitmap_fill(csel, a - first, b - a, true);
        pos += b - a;
        k++;
        if (large)
            ((int64_t *)(void *)o)[k] = pos;
        else
            ((int32_t *)(void *)o)[k] = (int32_t)pos;
    }
#undef OFF
    st = filter_range(schema->children[0], src->children[0], first, span, csel, pos,
                      out->children[0], depth + 1, err);
    basalt_free(csel);
    return st;
}

static basalt_status filter_range(const struct ArrowSchema *schema, const struct ArrowArray *src,
                                  int64_t begin, int64_t length, const uint8_t *sel, int64_t n_sel,
                                  struct ArrowArray *out, int depth, struct basalt_error *err)
{
    if (depth > MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "nesting over %d levels", MAX_DEPTH);
    if (schema->dictionary != NULL)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "dictionary-encoded columns cannot be filtered");
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(schema->format, &t, err);
    if (st != BASALT_OK)
        return st;
    if (t.id == BASALT_ARROW_TYPE_NULL) {
        st = basalt_arrow_array_init(out, 0, 0, err);
        if (st == BASALT_OK) {
            out->length = n_sel;
            out->null_count = n_sel;
        }
        return st;
    }
    int64_t n_buffers, n_children = 0;
    switch (t.id) {
    case BASALT_ARROW_TYPE_STRUCT:
        n_buffers = 1;
        n_children = schema->n_children;
        break;
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP:
        n_buffers = 2;
        n_children = 1;
        break;
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
        n_buffers = 3;
        break;
    default:
        if (t.bit_width == 0 || (t.bit_width != 1 && t.bit_width % 8 != 0))
            return basalt_error_set(err, BASALT_UNSUPPORTED, "columns of type '%s' cannot be filtered",
                                    schema->format);
        n_buffers = 2;
        break;
    }
    st = basalt_arrow_array_init(out, n_buffers, n_children, err);
    if (st != BASALT_OK)
        return st;
    st = gather_validity(src, begin, length, sel, n_sel, out, err);
    if (st == BASALT_OK) {
        switch (t.id) {
        case BASALT_ARROW_TYPE_STRUCT:
            for (int64_t c = 0; c < n_children && st == BASALT_OK; c++)
                st = filter_range(schema->children[c], src->children[c], src->offset + begin, length,
                                  sel, n_sel, out->children[c], depth + 1, err);
            break;
        case BASALT_ARROW_TYPE_LIST:
        case BASALT_ARROW_TYPE_MAP:
            st = filter_list(schema, src, begin, length, sel, n_sel, false, out, depth, err);
            break;
        case BASALT_ARROW_TYPE_LARGE_LIST:
            st = filter_list(schema, src, begin, length, sel, n_sel, true, out, depth, err);
            break;
        case BASALT_ARROW_TYPE_BINARY:
        case BASALT_ARROW_TYPE_STRING:
            st = filter_binary(src, begin, length, sel, n_sel, false, out, err);
            break;
        case BASALT_ARROW_TYPE_LARGE_BINARY:
        case BASALT_ARROW_TYPE_LARGE_STRING:
            st = filter_binary(src, begin, length, sel, n_sel, true, out, err);
            break;
        default:
            st = filter_fixed(src, begin, length, sel, n_sel, t.bit_width, out, err);
            break;
        }
    }
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    out->length = n_sel;
    return BASALT_OK;
}

basalt_status basalt_iceberg_filter_array(const struct ArrowSchema *schema,
                                          const struct ArrowArray *src, const uint8_t *sel,
                                          int64_t n_sel, struct ArrowArray *out,
                                          struct basalt_error *err)
{
    return filter_range(schema, src, 0, src->length, sel, n_sel, out, 0, err);
}

basalt_status basalt_iceberg_narrow(const struct basalt_iceberg_field *from,
                                    const struct basalt_iceberg_field *to, struct ArrowArray *src,
                                    struct ArrowArray *out, struct basalt_error *err)
{
    if (basalt_iceberg_field_same_shape(from, to) || from->type.id != BASALT_ICEBERG_TYPE_STRUCT) {
        if (!basalt_iceberg_field_same_shape(from, to)) {
            basalt_arrow_array_release(src);
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "column %d: narrowing inside lists and maps is not supported",
                                    (int)from->id);
        }
        basalt_arrow_array_move(src, out);
        return BASALT_OK;
    }
    basalt_status st = basalt_arrow_array_init(out, 1, to->type.n_fields, err);
    if (st == BASALT_OK && src->null_count != 0 && src->buffers[0] != NULL) {
        uint8_t *v;
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)((src->length + 7) / 8), (void **)&v, err);
        if (st == BASALT_OK)
            basalt_bitmap_copy(v, 0, src->buffers[0], src->offset, src->length);
    }
    for (uint32_t i = 0; i < to->type.n_fields && st == BASALT_OK; i++) {
        uint32_t j = 0;
        while (j < from->type.n_fields && from->type.fields[j].id != to->type.fields[i].id)
            j++;
        if (j == from->type.n_fields) {
            st = basalt_error_set(err, BASALT_INTERNAL, "field %d missing", (int)to->type.fields[i].id);
            break;
        }
        struct ArrowArray child;
        basalt_arrow_array_move(src->children[j], &child);
        /* the struct's offset moves into its children */
        child.offset += src->offset;
        child.length = src->length;
        st = basalt_iceberg_narrow(&from->type.fields[j], &to->type.fields[i], &child,
                                   out->children[i], err);
    }
    if (st == BASALT_OK) {
        out->length = src->length;
        out->null_count = src->buffers[0] != NULL ? src->null_count : 0;
    } else {
        basalt_arrow_array_release(out);
    }
    basalt_arrow_array_release(src);
    return st;
}
