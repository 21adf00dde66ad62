/* basalt_arrow_take and basalt_arrow_take_many: a new array of chosen rows
 * of one array, or of several arrays of one type, every value copied.
 * Writers that fan rows out (an Iceberg partition per row) use it to cut one
 * batch into several; sorts use it to gather rows from many batches. */
#include <string.h>

#include "arrow_internal.h"

/* One node to gather: the schema and the source arrays, and the rows wanted:
 * row k is logical slot idx[k] of source src[k] (physical slot
 * offset + idx[k]; src NULL: every row from source 0). */
struct take {
    const struct ArrowSchema *s;
    const struct ArrowArray *const *a;
    int32_t n_sources;
    const int32_t *src;
    const int64_t *idx;
    int64_t n;
    int depth;
};

/* The source array of row k. */
static inline const struct ArrowArray *source(const struct take *t, int64_t k)
{
    return t->a[t->src ? t->src[k] : 0];
}

static basalt_status take_node(const struct take *t, struct ArrowArray *out,
                               struct basalt_error *err);

/* The validity of the gathered slots, or none when none of them is null. */
static basalt_status take_validity(const struct take *t, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    out->null_count = 0;
    bool any = false;
    for (int32_t i = 0; i < t->n_sources; i++)
        any |= t->a[i]->buffers[0] && t->a[i]->null_count != 0;
    if (!any || t->n == 0)
        return BASALT_OK;
    void *mem;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 0,
                                                          (size_t)basalt_bitmap_bytes(t->n), &mem,
                                                          err);
    if (st != BASALT_OK)
        return st;
    uint8_t *bits = mem;
    int64_t nulls = 0;
    memset(bits, 0, (size_t)basalt_bitmap_bytes(t->n));
    for (int64_t k = 0; k < t->n; k++) {
        const struct ArrowArray *a = source(t, k);
        bool v = !a->buffers[0] || a->null_count == 0 ||
                 basalt_bitmap_get(a->buffers[0], a->offset + t->idx[k]);
        bits[k >> 3] |= (uint8_t)((unsigned)v << (k & 7));
        nulls += !v;
    }
    out->null_count = nulls;
    if (nulls == 0)
        basalt_arrow_array_set_buffer(out, 0, NULL, NULL);
    return BASALT_OK;
}

static bool slot_valid(const struct ArrowArray *a, int64_t i)
{
    return !a->buffers[0] || a->null_count == 0 || basalt_bitmap_get(a->buffers[0], a->offset + i);
}

static basalt_status take_bool(const struct take *t, struct ArrowArray *out,
                               struct basalt_error *err)
{
    void *mem;
    basalt_status st = basalt_arrow_array_allocate_buffer(
        out, 1, (size_t)basalt_bitmap_bytes(t->n), &mem, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *bits = mem;
    memset(bits, 0, (size_t)basalt_bitmap_bytes(t->n));
    for (int64_t k = 0; k < t->n; k++) {
        const struct ArrowArray *a = source(t, k);
        bits[k >> 3] |= (uint8_t)((unsigned)basalt_bitmap_get(a->buffers[1], a->offset + t->idx[k])
                                  << (k & 7));
    }
    return BASALT_OK;
}

static basalt_status take_fixed(const struct take *t, size_t width, struct ArrowArray *out,
                                struct basalt_error *err)
{
    void *mem;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)t->n * width, &mem, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *dst = mem;
    if (t->src) {
        for (int64_t k = 0; k < t->n; k++) {
            const struct ArrowArray *a = source(t, k);
            memcpy(dst + width * (size_t)k,
                   (const uint8_t *)a->buffers[1] + width * (size_t)(a->offset + t->idx[k]), width);
        }
        return BASALT_OK;
    }
    const uint8_t *src = (const uint8_t *)t->a[0]->buffers[1] + (size_t)t->a[0]->offset * width;
    /* Constant widths let the copies compile to single moves. */
    switch (width) {
    case 4:
        for (int64_t k = 0; k < t->n; k++)
            memcpy(dst + 4 * k, src + 4 * t->idx[k], 4);
        break;
    case 8:
        for (int64_t k = 0; k < t->n; k++)
            memcpy(dst + 8 * k, src + 8 * t->idx[k], 8);
        break;
    case 16:
        for (int64_t k = 0; k < t->n; k++)
            memcpy(dst + 16 * k, src + 16 * t->idx[k], 16);
        break;
    default:
        for (int64_t k = 0; k < t->n; k++)
            memcpy(dst + width * (size_t)k, src + width * (size_t)t->idx[k], width);
    }
    return BASALT_OK;
}

static void put_offset(void *offsets, bool large, int64_t i, int64_t v)
{
    if (large) {
        memcpy((char *)offsets + 8 * i, &v, 8);
    } else {
        int32_t w = (int32_t)v;
        memcpy((char *)offsets + 4 * i, &w, 4);
    }
}

/* The range of slot i of an offsets layout; CORRUPT when it runs backwards
 * or past `limit` (the data size or the child's length, when known). */
static basalt_status slot_range(const struct ArrowArray *a, bool large, int64_t i, int64_t limit,
                                int64_t *begin, int64_t *end, struct basalt_error *err)
{
    *begin = basalt_arrow_read_offset(a->buffers[1], large, a->offset + i);
    *end = basalt_arrow_read_offset(a->buffers[1], large, a->offset + i + 1);
    if (*begin < 0 || *end < *begin || (limit >= 0 && *end > limit))
        return basalt_error_set(err, BASALT_CORRUPT, "take: offsets of slot %lld out of order",
                                (long long)i);
    return BASALT_OK;
}

/* The offsets of the gathered slots (null slots empty), into buffer 1 of
 * `out`; *total receives the last one. */
static basalt_status take_offsets(const struct take *t, bool large, int64_t limit,
                                  struct ArrowArray *out, int64_t *total, struct basalt_error *err)
{
    void *offsets;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(t->n + 1) * (large ? 8 : 4),
                                                          &offsets, err);
    if (st != BASALT_OK)
        return st;
    int64_t pos = 0;
    put_offset(offsets, large, 0, 0);
    for (int64_t k = 0; k < t->n; k++) {
        const struct ArrowArray *a = source(t, k);
        if (slot_valid(a, t->idx[k])) {
            int64_t b, e;
            st = slot_range(a, large, t->idx[k], limit < 0 ? -1 : a->children[0]->length, &b, &e,
                            err);
            if (st != BASALT_OK)
                return st;
            pos += e - b;
            if (!large && pos > INT32_MAX)
                return basalt_error_set(err, BASALT_LIMIT, "take: over 2^31-1 values in 32-bit offsets");
        }
        put_offset(offsets, large, k + 1, pos);
    }
    *total = pos;
    return BASALT_OK;
}

static basalt_status take_binary(const struct take *t, bool large, struct ArrowArray *out,
                                 struct basalt_error *err)
{
    int64_t total;
    basalt_status st = take_offsets(t, large, -1, out, &total, err);
    if (st != BASALT_OK)
        return st;
    void *mem;
    st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)total, &mem, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *dst = mem;
    const void *offsets = out->buffers[1];
    for (int64_t k = 0; k < t->n; k++) {
        int64_t at = basalt_arrow_read_offset(offsets, large, k);
        int64_t len = basalt_arrow_read_offset(offsets, large, k + 1) - at;
        if (len > 0) {
            const struct ArrowArray *a = source(t, k);
            int64_t from = basalt_arrow_read_offset(a->buffers[1], large, a->offset + t->idx[k]);
            memcpy(dst + at, (const uint8_t *)a->buffers[2] + from, (size_t)len);
        }
    }
    return BASALT_OK;
}

/* Child c of every source, rows src/idx[0, n) of them. */
static basalt_status take_child(const struct take *t, int64_t c, const int32_t *src,
                                const int64_t *idx, int64_t n, struct ArrowArray *out,
                                struct basalt_error *err)
{
    const struct ArrowArray *one[1];
    const struct ArrowArray **children = t->n_sources == 1 ? one
                                         : basalt_malloc((size_t)t->n_sources * sizeof *children);
    if (!children)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t i = 0; i < t->n_sources; i++)
        children[i] = t->a[i]->children[c];
    struct take ct = {t->s->children[c], children, t->n_sources, src, idx, n, t->depth + 1};
    basalt_status st = take_node(&ct, out->children[c], err);
    if (children != one)
        basalt_free(children);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", t->s->children[c]->name ? t->s->children[c]->name
                                                                            : "child");
    return BASALT_OK;
}

/* list, large list, map: the child's rows of every gathered slot, in order. */
static basalt_status take_list(const struct take *t, bool large, struct ArrowArray *out,
                               struct basalt_error *err)
{
    int64_t total;
    basalt_status st = take_offsets(t, large, 0, out, &total, err);
    if (st != BASALT_OK)
        return st;
    int64_t *cidx = basalt_malloc((size_t)(total ? total : 1) * sizeof *cidx);
    int32_t *csrc = t->src ? basalt_malloc((size_t)(total ? total : 1) * sizeof *csrc) : NULL;
    if (!cidx || (t->src && !csrc)) {
        basalt_free(cidx);
        basalt_free(csrc);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int64_t m = 0;
    for (int64_t k = 0; k < t->n; k++) {
        const struct ArrowArray *a = source(t, k);
        int64_t len = basalt_arrow_read_offset(out->buffers[1], large, k + 1) -
                      basalt_arrow_read_offset(out->buffers[1], large, k);
        int64_t from = len ? basalt_arrow_read_offset(a->buffers[1], large, a->offset + t->idx[k])
                           : 0;
        for (int64_t j = 0; j < len; j++) {
            if (csrc)
                csrc[m] = t->src[k];
            cidx[m++] = from + j;
        }
    }
    st = take_child(t, 0, csrc, cidx, m, out, err);
    basalt_free(cidx);
    basalt_free(csrc);
    return st;
}

static basalt_status take_fixed_list(const struct take *t, int64_t size, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    if (size > 0 && t->n > INT64_MAX / size)
        return basalt_error_set(err, BASALT_LIMIT, "take: fixed-size list too long");
    int64_t m = t->n * size;
    int64_t *cidx = basalt_malloc((size_t)(m ? m : 1) * sizeof *cidx);
    int32_t *csrc = t->src ? basalt_malloc((size_t)(m ? m : 1) * sizeof *csrc) : NULL;
    if (!cidx || (t->src && !csrc)) {
        basalt_free(cidx);
        basalt_free(csrc);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int64_t k = 0; k < t->n; k++)
        for (int64_t j = 0; j < size; j++) {
            if (csrc)
                csrc[k * size + j] = t->src[k];
            cidx[k * size + j] = (source(t, k)->offset + t->idx[k]) * size + j;
        }
    basalt_status st = take_child(t, 0, csrc, cidx, m, out, err);
    basalt_free(cidx);
    basalt_free(csrc);
    return st;
}

static basalt_status take_struct(const struct take *t, struct ArrowArray *out,
                                 struct basalt_error *err)
{
    /* A struct's offset applies to its children. */
    int64_t *cidx = NULL;
    const int64_t *idx = t->idx;
    bool shifted = false;
    for (int32_t i = 0; i < t->n_sources; i++)
        shifted |= t->a[i]->offset != 0;
    if (shifted && t->n > 0) {
        cidx = basalt_malloc((size_t)t->n * sizeof *cidx);
        if (!cidx)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int64_t k = 0; k < t->n; k++)
            cidx[k] = source(t, k)->offset + t->idx[k];
        idx = cidx;
    }
    basalt_status st = BASALT_OK;
    for (int64_t c = 0; st == BASALT_OK && c < t->s->n_children; c++)
        st = take_child(t, c, t->src, idx, t->n, out, err);
    basalt_free(cidx);
    return st;
}

/* A dictionary array: its indices are taken like any integers, and the
 * result gets a copy of the dictionary, which every source must share (a
 * filter's rows of one batch; sources with different dictionaries would
 * need their indices remapped). */
static basalt_status take_dictionary(const struct take *t, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    const struct ArrowArray *dict = t->a[0]->dictionary;
    for (int32_t i = 0; i < t->n_sources; i++)
        if (!t->a[i]->dictionary || t->a[i]->dictionary != dict)
            return basalt_error_set(err, t->a[i]->dictionary ? BASALT_UNSUPPORTED : BASALT_CORRUPT,
                                    t->a[i]->dictionary
                                        ? "take: dictionary arrays with different dictionaries"
                                        : "take: dictionary array without its dictionary");
    if (!dict->release || dict->length < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "take: released dictionary");
    struct ArrowSchema indices = *t->s;
    indices.dictionary = NULL;
    struct take it = *t;
    it.s = &indices;
    basalt_status st = take_node(&it, out, err);
    if (st != BASALT_OK)
        return st;
    int64_t *all = basalt_malloc(((size_t)dict->length + 1) * sizeof *all);
    if (!all)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = 0; i < dict->length; i++)
        all[i] = i;
    const struct ArrowArray *one[1] = {dict};
    struct take dt = {t->s->dictionary, one, 1, NULL, all, dict->length, t->depth + 1};
    struct ArrowArray copy;
    copy.release = NULL;
    st = take_node(&dt, &copy, err);
    basalt_free(all);
    if (st == BASALT_OK)
        st = basalt_arrow_array_set_dictionary(out, &copy, err);
    else
        basalt_arrow_array_release(&copy);
    return st;
}

static basalt_status take_node(const struct take *t, struct ArrowArray *out,
                               struct basalt_error *err)
{
    const struct ArrowSchema *s = t->s;
    if (t->depth > BASALT_ARROW_MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "take: nested deeper than %d levels",
                                BASALT_ARROW_MAX_DEPTH);
    if (!s || !s->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "take: NULL or released child");
    for (int32_t i = 0; i < t->n_sources; i++)
        if (!t->a[i] || !t->a[i]->release)
            return basalt_error_set(err, BASALT_INVALID_ARG, "take: NULL or released child");
    struct basalt_arrow_type type;
    basalt_status st = basalt_arrow_type_parse(s->format, &type, err);
    if (st != BASALT_OK)
        return st;
    if (s->dictionary)
        return take_dictionary(t, out, err);
    int64_t nb = basalt_arrow_type_n_buffers(type.id);
    switch (type.id) {
    case BASALT_ARROW_TYPE_SPARSE_UNION:
    case BASALT_ARROW_TYPE_DENSE_UNION:
    case BASALT_ARROW_TYPE_RUN_END_ENCODED:
    case BASALT_ARROW_TYPE_BINARY_VIEW:
    case BASALT_ARROW_TYPE_STRING_VIEW:
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "take: %s arrays",
                                basalt_arrow_type_name(type.id));
    default:
        break;
    }
    for (int32_t j = 0; j < t->n_sources; j++) {
        const struct ArrowArray *a = t->a[j];
        if (a->n_buffers != nb || a->n_children != s->n_children)
            return basalt_error_set(err, BASALT_CORRUPT, "take: array does not fit format '%s'",
                                    s->format);
        for (int64_t i = 1; i < nb; i++)
            if (!a->buffers[i] && a->length > 0)
                return basalt_error_set(err, BASALT_CORRUPT, "take: buffer %lld missing",
                                        (long long)i);
    }
    for (int64_t k = 0; k < t->n; k++) {
        if (t->src && (t->src[k] < 0 || t->src[k] >= t->n_sources))
            return basalt_error_set(err, BASALT_INVALID_ARG, "take: source %d out of range",
                                    (int)t->src[k]);
        const struct ArrowArray *a = source(t, k);
        if (t->idx[k] < 0 || t->idx[k] >= a->length)
            return basalt_error_set(err, t->depth ? BASALT_CORRUPT : BASALT_INVALID_ARG,
                                    "take: index %lld out of range [0, %lld)",
                                    (long long)t->idx[k], (long long)a->length);
    }
    st = basalt_arrow_array_init(out, nb, s->n_children, err);
    if (st != BASALT_OK)
        return st;
    out->length = t->n;
    if (type.id == BASALT_ARROW_TYPE_NULL) {
        out->null_count = t->n;
        return BASALT_OK;
    }
    st = take_validity(t, out, err);
    if (st != BASALT_OK)
        return st;
    switch (type.id) {
    case BASALT_ARROW_TYPE_BOOL:
        return take_bool(t, out, err);
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
        return take_binary(t, false, out, err);
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
        return take_binary(t, true, out, err);
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_MAP:
        return take_list(t, false, out, err);
    case BASALT_ARROW_TYPE_LARGE_LIST:
        return take_list(t, true, out, err);
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
        return take_fixed_list(t, type.fixed_size, out, err);
    case BASALT_ARROW_TYPE_STRUCT:
        return take_struct(t, out, err);
    default:
        if (type.bit_width <= 0 || type.bit_width % 8 != 0)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "take: %s arrays",
                                    basalt_arrow_type_name(type.id));
        return take_fixed(t, (size_t)(type.bit_width / 8), out, err);
    }
}

basalt_status basalt_arrow_take(const struct ArrowSchema *schema, const struct ArrowArray *array,
                                const int64_t *indices, int64_t n, struct ArrowArray *out,
                                struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "take: NULL out");
    out->release = NULL;
    if (!schema || !array || !schema->release || !array->release || n < 0 || (n > 0 && !indices))
        return basalt_error_set(err, BASALT_INVALID_ARG, "take: NULL or released argument");
    const struct ArrowArray *one[1] = {array};
    struct take t = {schema, one, 1, NULL, indices, n, 0};
    basalt_status st = take_node(&t, out, err);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

basalt_status basalt_arrow_take_many(const struct ArrowSchema *schema,
                                     const struct ArrowArray *arrays, int32_t n_arrays,
                                     const int32_t *sources, const int64_t *indices, int64_t n,
                                     struct ArrowArray *out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "take: NULL out");
    out->release = NULL;
    if (!schema || !schema->release || !arrays || n_arrays < 1 || n < 0 ||
        (n > 0 && (!indices || !sources)))
        return basalt_error_set(err, BASALT_INVALID_ARG, "take: NULL or released argument");
    const struct ArrowArray **a = basalt_malloc((size_t)n_arrays * sizeof *a);
    if (!a)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t i = 0; i < n_arrays; i++)
        a[i] = &arrays[i];
    struct take t = {schema, a, n_arrays, sources, indices, n, 0};
    basalt_status st = take_node(&t, out, err);
    basalt_free(a);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}
