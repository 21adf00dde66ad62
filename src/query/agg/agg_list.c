/* ARRAY_AGG (SQL's array_agg and list): a group's values as one LIST.
 *
 * The call is always ordered (agg.h): the sink turns each row's value into
 * a piece, a BLOB of a validity byte and then the value's bytes as a list
 * element holds them (basalt_qagg_list_piece), and the collection keeps
 * (order key, piece) strings as an ordered STRING_AGG does. The finish sorts
 * each group's by key, then piece, and this file lays them end to end as
 * the serialised list the expressions use (exec/qlist.h), handed to the
 * same "+l" writer as an expression's LIST result. A piece carries its own
 * NULL, so a NULL value is a NULL element, as in DuckDB, while a row that a
 * FILTER leaves out has no key and no piece. */
#include <string.h>

#include "agg/agg_internal.h"

/* Bytes of one fixed-width element in a serialised list (BOOLEAN: a byte). */
static size_t elem_fixed_width(struct basalt_query_type elem)
{
    return elem.id == BASALT_QUERY_TYPE_BOOL ? 1 : (size_t)basalt_qtype_width(elem);
}

static bool elem_is_var(struct basalt_query_type elem)
{
    return elem.id == BASALT_QUERY_TYPE_STRING || elem.id == BASALT_QUERY_TYPE_BINARY;
}

basalt_status basalt_qagg_list_piece(const struct ArrowArray *x, struct basalt_query_type elem,
                                     int64_t n_rows, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    if (!x || !out || n_rows < 0 || elem.id <= BASALT_QUERY_TYPE_NULL ||
        elem.id >= BASALT_QUERY_TYPE_LIST)
        return basalt_error_set(err, BASALT_INVALID_ARG, "array_agg: bad element arguments");
    memset(out, 0, sizeof *out);
    enum qagg_phys phys = basalt_qagg_phys(elem);
    struct qagg_col c;
    basalt_status st = basalt_qagg_col_init(x, phys, elem.large, n_rows, &c, err);
    if (st != BASALT_OK)
        return st;
    bool var = elem_is_var(elem);
    size_t w = var ? 0 : elem_fixed_width(elem);
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    int32_t *offs = basalt_aligned_alloc(64, sizeof *offs * (size_t)(n_rows + 1) + 64);
    if (!offs)
        st = basalt_error_set(err, BASALT_NOMEM, "array_agg: out of memory");
    if (st == BASALT_OK)
        offs[0] = 0;
    for (int64_t i = 0; i < n_rows && st == BASALT_OK; i++) {
        uint8_t valid = basalt_qagg_valid(&c, i);
        st = basalt_buffer_append(&b, &valid, 1, err);
        if (st == BASALT_OK && valid) {
            if (var) {
                const char *p;
                int64_t len;
                basalt_qagg_str_get(&c, i, &p, &len);
                if (len)
                    st = basalt_buffer_append(&b, p, (size_t)len, err);
            } else if (elem.id == BASALT_QUERY_TYPE_BOOL) {
                uint8_t v = basalt_bitmap_get(c.data, c.off + i);
                st = basalt_buffer_append(&b, &v, 1, err);
            } else {
                st = basalt_buffer_append(&b, (const uint8_t *)c.data + (size_t)(c.off + i) * w,
                                          w, err);
            }
        }
        if (st == BASALT_OK && b.size > INT32_MAX)
            st = basalt_error_set(err, BASALT_LIMIT, "array_agg: values over 2 GiB in a batch");
        if (st == BASALT_OK)
            offs[i + 1] = (int32_t)b.size;
    }
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(out, 3, 0, err);
    if (st == BASALT_OK) {
        out->length = n_rows;
        void *data;
        st = basalt_arrow_array_allocate_buffer(out, 2, b.size + 1, &data, err);
        if (st == BASALT_OK && b.size)
            memcpy(data, b.data, b.size);
        if (st == BASALT_OK) {
            st = basalt_arrow_array_set_buffer(out, 1, offs, err);
            offs = NULL;
        }
        if (st != BASALT_OK)
            basalt_arrow_array_release(out);
    }
    basalt_free(offs);
    basalt_buffer_reset(&b);
    return st;
}

/* Appends the serialised list of the m pieces v (keyed values) to `ser`,
 * from its start. */
static basalt_status serialise(struct basalt_query_type elem, const union qagg_cell *v, int64_t m,
                               struct basalt_buffer *ser, struct basalt_error *err)
{
    if (m > UINT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "array_agg: a list of over 2^32 elements");
    bool var = elem_is_var(elem);
    size_t w = var ? 0 : elem_fixed_width(elem);
    uint32_t n = (uint32_t)m;
    size_t bytes = 0;
    for (int64_t k = 0; k < m; k++) {
        const char *p;
        int64_t len;
        basalt_qagg_keyed_piece(&v[k], &p, &len);
        bytes += len > 1 ? (size_t)len - 1 : 0;
    }
    size_t size = 4 + (size_t)n + (var ? (size_t)n * 4 + bytes : (size_t)n * w);
    ser->size = 0;
    basalt_status st = basalt_buffer_reserve(ser, size, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *d = ser->data;
    memset(d, 0, size);
    memcpy(d, &n, 4);
    uint8_t *valid = d + 4, *vals = valid + n, *str = vals + (size_t)n * 4;
    for (uint32_t k = 0; k < n; k++) {
        const char *p;
        int64_t len;
        basalt_qagg_keyed_piece(&v[k], &p, &len);
        valid[k] = len > 0 && p[0] != 0;
        if (!valid[k])
            continue;
        if (var) {
            uint32_t l32 = (uint32_t)(len - 1);
            memcpy(vals + (size_t)k * 4, &l32, 4);
            memcpy(str, p + 1, l32);
            str += l32;
        } else if ((size_t)(len - 1) == w) {
            memcpy(vals + (size_t)k * w, p + 1, w);
        }
    }
    ser->size = size;
    return BASALT_OK;
}

basalt_status basalt_qagg_write_list(const struct basalt_qagg *a, int c,
                                     struct basalt_qagg_local *const *parts, const uint32_t *rp,
                                     const uint32_t *rg, const int64_t *const *coll_start,
                                     int64_t n, struct ArrowArray *out, struct basalt_error *err)
{
    const struct qagg_callinfo *ci = &a->calls[c];
    struct qlist_out lo;
    basalt_qlist_out_init(&lo, ci->out);
    struct basalt_buffer ser;
    basalt_buffer_init(&ser);
    union qagg_cell *u = NULL;
    int64_t u_cap = 0;
    basalt_status st = basalt_arrow_array_init(out, 2, 1, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    void *vb = NULL, *ob = NULL;
    st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(n) + 1, &vb, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, sizeof(int32_t) * (size_t)(n + 1), &ob,
                                                err);
    uint8_t *valid = vb;
    int32_t *offs = ob;
    int64_t nulls = 0;
    if (st == BASALT_OK) {
        memset(valid, 0xff, (size_t)basalt_bitmap_bytes(n) + 1);
        offs[0] = 0;
    }
    for (int64_t i = 0; i < n && st == BASALT_OK; i++) {
        const struct basalt_qagg_local *t = parts[rp[i]];
        uint32_t g = rg[i];
        const int64_t *start = coll_start[(size_t)rp[i] * (size_t)a->n_calls + (size_t)c];
        const union qagg_cell *v = t->coll[c].v + start[g];
        int64_t m = start[g + 1] - start[g];
        if (ci->call.distinct && m > 1) {
            /* DISTINCT orders by the value alone (the binder's rule), so
             * equal values sit side by side with equal keys */
            if (m > u_cap) {
                basalt_free(u);
                u_cap = m;
                u = basalt_malloc(sizeof *u * (size_t)m);
                if (!u) {
                    st = basalt_error_set(err, BASALT_NOMEM, "array_agg: out of memory");
                    break;
                }
            }
            int64_t k2 = 0;
            for (int64_t k = 0; k < m; k++)
                if (k2 == 0 || !basalt_qagg_cell_eq(QP_STR, &u[k2 - 1], &v[k]))
                    u[k2++] = v[k];
            v = u;
            m = k2;
        }
        int32_t end = offs[i];
        if (m == 0) {
            basalt_bitmap_set(valid, i, false);
            nulls++;
        } else {
            st = serialise(basalt_query_type_element(ci->out), v, m, &ser, err);
            if (st == BASALT_OK) {
                struct qstr q = {(const char *)ser.data, (int64_t)ser.size};
                st = basalt_qlist_out_put(&lo, q, &end, err);
            }
        }
        offs[i + 1] = end;
    }
    out->null_count = nulls;
    if (st == BASALT_OK)
        st = basalt_qlist_out_finish(&lo, out->children[0], err);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    basalt_qlist_out_free(&lo);
    basalt_buffer_reset(&ser);
    basalt_free(u);
    return st;
}
