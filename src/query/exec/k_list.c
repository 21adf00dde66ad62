/* LIST values in vectors. A slot of type LIST holds, per row, a view
 * (struct qstr) of the row's elements serialised in one run of bytes
 * (qlist.h). A list is thus one value of the same shape as a string:
 * constants, CASE and COALESCE, masks and the state's per-vector arena
 * treat it as they treat strings, and only the list kernels look inside.
 * Columns read from Arrow lists ("+l") are serialised as a vector is read;
 * results go back to Arrow as "+l" with an "item" child.
 *
 * Here: the column read, list_value, len, element access (1-based,
 * negative from the end, NULL out of range), list_contains and
 * string_split. Casts in k_list_cast.c, the Arrow result in k_list_out.c. */
#include <string.h>

#include "qlist.h"

#define A0 (x->vec[st->args[0]])
#define A1 (x->vec[st->args[1]])
#define OUT (x->vec[st->out])

/* ------------------------------------------------------------------ column */

/* Bytes of element k of an Arrow array of the element type (its offset
 * counted in k), NULL when NULL. */
static const void *arrow_value(const struct ArrowArray *c, struct basalt_query_type elem, int64_t k,
                               uint8_t *tmp, size_t *len)
{
    const uint8_t *validity = c->n_buffers > 0 ? c->buffers[0] : NULL;
    if (elem.id == BASALT_QUERY_TYPE_NULL || (validity && c->null_count != 0 &&
                                              !basalt_bitmap_get(validity, k)))
        return NULL;
    if (elem.id == BASALT_QUERY_TYPE_BOOL) {
        *tmp = basalt_bitmap_get(c->buffers[1], k);
        *len = 1;
        return tmp;
    }
    if (elem_var(elem.id)) {
        int64_t b, e;
        if (elem.large) {
            b = ((const int64_t *)c->buffers[1])[k];
            e = ((const int64_t *)c->buffers[1])[k + 1];
        } else {
            b = ((const int32_t *)c->buffers[1])[k];
            e = ((const int32_t *)c->buffers[1])[k + 1];
        }
        *len = (size_t)(e - b);
        return (const char *)c->buffers[2] + b;
    }
    *len = (size_t)basalt_qtype_width(elem);
    return (const char *)c->buffers[1] + (size_t)k * *len;
}

basalt_status basalt_qk_list_column(const struct qstep *st, struct qexec *x)
{
    const struct qcolumn *c = &x->cols[st->column];
    const struct ArrowArray *a = c->array;
    struct qvec *o = &x->vec[st->out];
    struct basalt_query_type elem = basalt_query_type_element(st->type);
    int64_t at = c->offset + x->start;
    int n = x->n;
    if (c->validity && a->null_count != 0) {
        basalt_bitmap_copy((uint8_t *)o->vbuf, 0, c->validity, at, n);
        o->valid = o->vbuf;
    } else {
        o->valid = NULL;
    }
    struct qstr *v = o->dbuf;
    o->data = v;
    const struct ArrowArray *child = a->n_children == 1 ? a->children[0] : NULL;
    if (!child || a->n_buffers < 2)
        return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "list column %d without its child",
                                  st->column);
    for (int i = 0; i < n; i++) {
        int64_t b = ((const int32_t *)c->values)[at + i];
        int64_t e = ((const int32_t *)c->values)[at + i + 1];
        if (!qrow_valid(o->valid, i)) {
            v[i].ptr = "";
            v[i].len = 0;
            continue;
        }
        if (e < b || b < 0 || e > child->length || e - b > UINT32_MAX)
            return basalt_qexec_error(x, st, BASALT_CORRUPT, "list offsets out of range");
        uint32_t cnt = (uint32_t)(e - b);
        size_t bytes = 0;
        uint8_t tmp;
        size_t len;
        for (int64_t k = b; k < e && elem_var(elem.id); k++)
            if (arrow_value(child, elem, child->offset + k, &tmp, &len))
                bytes += len;
        size_t need = lsize(elem, cnt, bytes);
        uint8_t *p = (uint8_t *)basalt_qstr_alloc(x, need);
        if (!p)
            return BASALT_NOMEM;
        struct lwriter lw;
        lwriter_start(&lw, p, elem, cnt);
        for (uint32_t k = 0; k < cnt; k++) {
            const void *ev = arrow_value(child, elem, child->offset + b + k, &tmp, &len);
            lwriter_put(&lw, k, ev, len);
        }
        v[i].ptr = (const char *)p;
        v[i].len = (int64_t)need;
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ kernels */

/* list_value(a, b, ...): the arguments (cast to the element type) as a
 * list; never NULL. */
static basalt_status k_list_value(const struct qstep *st, struct qexec *x)
{
    struct basalt_query_type elem = basalt_query_type_element(st->type);
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    OUT.valid = NULL;
    uint32_t cnt = (uint32_t)st->n_args;
    for (int i = 0; i < x->n; i++) {
        size_t bytes = 0, len;
        uint8_t tmp;
        for (uint32_t k = 0; k < cnt && elem_var(elem.id); k++)
            if (vec_value(&x->vec[st->args[k]], elem, i, &tmp, &len))
                bytes += len;
        size_t need = lsize(elem, cnt, bytes);
        uint8_t *p = (uint8_t *)basalt_qstr_alloc(x, need);
        if (!p)
            return BASALT_NOMEM;
        struct lwriter lw;
        lwriter_start(&lw, p, elem, cnt);
        for (uint32_t k = 0; k < cnt; k++) {
            const void *v = vec_value(&x->vec[st->args[k]], elem, i, &tmp, &len);
            lwriter_put(&lw, k, v, len);
        }
        o[i].ptr = (const char *)p;
        o[i].len = (int64_t)need;
    }
    return BASALT_OK;
}

/* len(l): BIGINT element count, NULL for a NULL list. */
static basalt_status k_list_len(const struct qstep *st, struct qexec *x)
{
    const struct qstr *l = A0.data;
    int64_t *o = OUT.dbuf;
    OUT.data = o;
    OUT.valid = A0.valid;
    for (int i = 0; i < x->n; i++) {
        uint32_t n = 0;
        if (qrow_valid(A0.valid, i))
            memcpy(&n, l[i].ptr, 4);
        o[i] = n;
    }
    return BASALT_OK;
}

/* l[i] (list_extract): 1-based, negative from the end; 0, out of range, a
 * NULL list or index: NULL. */
static basalt_status k_list_extract(const struct qstep *st, struct qexec *x)
{
    struct basalt_query_type elem = st->type;
    struct basalt_query_type lt = st->in_type;
    const struct qstr *l = A0.data;
    const int64_t *ix = A1.data;
    OUT.data = OUT.dbuf;
    OUT.valid = OUT.vbuf;
    if (st->type.id == BASALT_QUERY_TYPE_BOOL)
        memset(OUT.dbuf, 0, QWORDS * 8);
    for (int i = 0; i < x->n; i++) {
        const uint8_t *v = NULL;
        size_t len = 0;
        if (qrow_valid(A0.valid, i) && qrow_valid(A1.valid, i)) {
            struct lview lv;
            lview_open(l[i], basalt_query_type_element(lt), &lv);
            int64_t k = ix[i];
            k = k > 0 ? k - 1 : k < 0 ? (int64_t)lv.n + k : -1;
            if (k >= 0 && k < (int64_t)lv.n && lv.valid[k])
                v = lview_at(&lv, (uint32_t)k, -1, &len);
        }
        put_value(&OUT, elem, i, v, len);
    }
    return BASALT_OK;
}

/* Whether element bytes a equal value bytes b of type t (NaN equals NaN
 * and -0.0 equals 0.0, as DuckDB compares). */
static bool elem_equal(struct basalt_query_type t, const uint8_t *a, size_t alen, const uint8_t *b,
                       size_t blen)
{
    if (t.id == BASALT_QUERY_TYPE_DOUBLE || t.id == BASALT_QUERY_TYPE_FLOAT) {
        double x, y;
        if (t.id == BASALT_QUERY_TYPE_DOUBLE) {
            memcpy(&x, a, 8);
            memcpy(&y, b, 8);
        } else {
            float fx, fy;
            memcpy(&fx, a, 4);
            memcpy(&fy, b, 4);
            x = fx;
            y = fy;
        }
        return x == y || (x != x && y != y);
    }
    if (t.id == BASALT_QUERY_TYPE_INTERVAL) {
        struct qinterval p, q;
        memcpy(&p, a, 16);
        memcpy(&q, b, 16);
        basalt_qinterval_normalize(&p);
        basalt_qinterval_normalize(&q);
        return p.months == q.months && p.days == q.days && p.nanos == q.nanos;
    }
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* list_contains(l, v): NULL for a NULL list or v; NULL elements never
 * match. */
static basalt_status k_list_contains(const struct qstep *st, struct qexec *x)
{
    struct basalt_query_type elem = basalt_query_type_element(st->in_type);
    const struct qstr *l = A0.data;
    uint64_t *o = OUT.dbuf;
    memset(o, 0, QWORDS * 8);
    OUT.data = o;
    basalt_qvalid_and(x, &OUT, &A0, &A1);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        uint8_t tmp;
        size_t vlen = 0;
        const uint8_t *v = vec_value(&A1, elem, i, &tmp, &vlen);
        struct lview lv;
        lview_open(l[i], elem, &lv);
        int64_t skip = 0;
        bool found = false;
        for (uint32_t k = 0; k < lv.n && !found; k++) {
            size_t len;
            const uint8_t *e = lview_at(&lv, k, skip, &len);
            if (lv.var)
                skip += (int64_t)len;
            found = lv.valid[k] && v && elem_equal(elem, e, len, v, vlen);
        }
        if (found)
            qbit_set(o, i, true);
    }
    return BASALT_OK;
}

/* string_split(s, sep): the pieces of s between occurrences of sep; an
 * empty sep splits into characters (code points), a NULL one not at all;
 * '' gives ['']. */
static basalt_status k_string_split(const struct qstep *st, struct qexec *x)
{
    struct basalt_query_type elem = basalt_query_type_element(st->type);
    const struct qstr *s = A0.data, *sep = A1.data;
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    OUT.valid = A0.valid;
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        const char *p = s[i].ptr, *end = p + s[i].len;
        bool whole = !qrow_valid(A1.valid, i);
        size_t sl = whole ? 0 : (size_t)sep[i].len;
        /* pieces: count first */
        uint32_t cnt = 0;
        for (const char *q = p;;) {
            cnt++;
            if (whole)
                break;
            if (sl == 0) {
                if (q >= end)
                    break;
                q++;
                while (q < end && ((unsigned char)*q & 0xC0) == 0x80)
                    q++;
                if (q >= end)
                    break;
                continue;
            }
            const char *hit = (size_t)(end - q) >= sl ? memmem(q, (size_t)(end - q), sep[i].ptr, sl) : NULL;
            if (!hit)
                break;
            q = hit + sl;
        }
        size_t need = lsize(elem, cnt, (size_t)s[i].len);
        uint8_t *buf = (uint8_t *)basalt_qstr_alloc(x, need);
        if (!buf)
            return BASALT_NOMEM;
        struct lwriter lw;
        lwriter_start(&lw, buf, elem, cnt);
        const char *q = p;
        for (uint32_t k = 0; k < cnt; k++) {
            const char *stop;
            if (whole) {
                lwriter_put(&lw, k, q, (size_t)(end - q));
                continue;
            }
            if (sl == 0) {
                stop = q < end ? q + 1 : q;
                while (stop < end && ((unsigned char)*stop & 0xC0) == 0x80)
                    stop++;
                lwriter_put(&lw, k, q, (size_t)(stop - q));
                q = stop;
                continue;
            }
            const char *hit = (size_t)(end - q) >= sl ? memmem(q, (size_t)(end - q), sep[i].ptr, sl) : NULL;
            stop = hit ? hit : end;
            lwriter_put(&lw, k, q, (size_t)(stop - q));
            q = hit ? hit + sl : end;
        }
        o[i].ptr = (const char *)buf;
        o[i].len = (int64_t)need;
    }
    return BASALT_OK;
}

bool basalt_qk_list_select(struct qstep *st)
{
    switch (st->op) {
    case QOP_LIST_VALUE: st->fn = k_list_value; st->kname = "list_value"; return true;
    case QOP_LIST_LEN: st->fn = k_list_len; st->kname = "list_len"; return true;
    case QOP_LIST_EXTRACT: st->fn = k_list_extract; st->kname = "list_extract"; return true;
    case QOP_LIST_CONTAINS: st->fn = k_list_contains; st->kname = "list_contains"; return true;
    case QOP_STRING_SPLIT: st->fn = k_string_split; st->kname = "string_split"; return true;
    case QOP_LIST_SORT: st->fn = basalt_qk_list_sort; st->kname = "list_sort"; return true;
    case QOP_LIST_CMP: st->fn = basalt_qk_list_cmp; st->kname = "list_compare"; return true;
    case QOP_LIST_DISTINCT:
        st->fn = basalt_qk_list_distinct;
        st->kname = "list_distinct";
        return true;
    default: return false;
    }
}
