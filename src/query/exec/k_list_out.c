/* A LIST result gathered into the "+l" array's "item" child, list by list
 * (basalt_query_eval's output of a LIST slot). */
#include <string.h>

#include "qlist.h"

void basalt_qlist_out_init(struct qlist_out *o, struct basalt_query_type t)
{
    memset(o, 0, sizeof *o);
    o->elem = basalt_query_type_element(t);
    basalt_buffer_init(&o->valid);
    basalt_buffer_init(&o->values);
    basalt_buffer_init(&o->offsets);
    basalt_buffer_init(&o->data);
}

void basalt_qlist_out_free(struct qlist_out *o)
{
    basalt_buffer_reset(&o->valid);
    basalt_buffer_reset(&o->values);
    basalt_buffer_reset(&o->offsets);
    basalt_buffer_reset(&o->data);
}

basalt_status basalt_qlist_out_put(struct qlist_out *o, struct qstr list, int32_t *end,
                                   struct basalt_error *err)
{
    struct lview lv;
    lview_open(list, o->elem, &lv);
    int64_t skip = 0;
    basalt_status st = BASALT_OK;
    bool var = elem_var(o->elem.id);
    if (var && o->n == 0) {
        int32_t zero = 0;
        st = basalt_buffer_append(&o->offsets, &zero, 4, err);
    }
    for (uint32_t k = 0; k < lv.n && st == BASALT_OK; k++) {
        size_t len;
        const uint8_t *v = lview_at(&lv, k, skip, &len);
        if (lv.var)
            skip += (int64_t)len;
        uint8_t ok = lv.valid[k];
        st = basalt_buffer_append(&o->valid, &ok, 1, err);
        if (st != BASALT_OK)
            break;
        if (var) {
            if (ok)
                st = basalt_buffer_append(&o->data, v, len, err);
            if (st == BASALT_OK && o->data.size > INT32_MAX)
                st = basalt_error_set(err, BASALT_LIMIT, "list strings over 2 GiB");
            int32_t e = (int32_t)o->data.size;
            if (st == BASALT_OK)
                st = basalt_buffer_append(&o->offsets, &e, 4, err);
        } else if (lv.w) {
            st = basalt_buffer_append(&o->values, v, lv.w, err);
        }
        o->n++;
    }
    if (st == BASALT_OK && o->n > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "list output over 2^31 elements");
    *end = (int32_t)o->n;
    return st;
}

basalt_status basalt_qlist_out_finish(struct qlist_out *o, struct ArrowArray *child,
                                      struct basalt_error *err)
{
    bool is_null = o->elem.id == BASALT_QUERY_TYPE_NULL;
    bool var = elem_var(o->elem.id);
    basalt_status st = basalt_arrow_array_init(child, is_null ? 0 : var ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    child->length = o->n;
    if (is_null) {
        child->null_count = o->n;
        return BASALT_OK;
    }
    void *bits;
    st = basalt_arrow_array_allocate_buffer(child, 0, (size_t)basalt_bitmap_bytes(o->n) + 1, &bits, err);
    int64_t nulls = 0;
    if (st == BASALT_OK) {
        memset(bits, 0, (size_t)basalt_bitmap_bytes(o->n) + 1);
        for (int64_t k = 0; k < o->n; k++) {
            basalt_bitmap_set(bits, k, o->valid.data[k] != 0);
            nulls += o->valid.data[k] == 0;
        }
        child->null_count = nulls;
    }
    void *buf;
    if (st == BASALT_OK && o->elem.id == BASALT_QUERY_TYPE_BOOL) {
        st = basalt_arrow_array_allocate_buffer(child, 1, (size_t)basalt_bitmap_bytes(o->n) + 1, &buf, err);
        if (st == BASALT_OK) {
            memset(buf, 0, (size_t)basalt_bitmap_bytes(o->n) + 1);
            for (int64_t k = 0; k < o->n; k++)
                basalt_bitmap_set(buf, k, o->values.data[k] != 0);
        }
    } else if (st == BASALT_OK && var) {
        if (o->n == 0) {
            int32_t zero = 0;
            st = basalt_buffer_append(&o->offsets, &zero, 4, err);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(child, 1, o->offsets.size, &buf, err);
        if (st == BASALT_OK) {
            memcpy(buf, o->offsets.data, o->offsets.size);
            st = basalt_arrow_array_allocate_buffer(child, 2, o->data.size + 1, &buf, err);
        }
        if (st == BASALT_OK && o->data.size)
            memcpy(buf, o->data.data, o->data.size);
    } else if (st == BASALT_OK) {
        st = basalt_arrow_array_allocate_buffer(child, 1, o->values.size + 1, &buf, err);
        if (st == BASALT_OK && o->values.size)
            memcpy(buf, o->values.data, o->values.size);
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(child);
    return st;
}
