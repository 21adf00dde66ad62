/* The serialised form of a LIST row in a vector slot (see k_list.c):
 *
 *   uint32 n | n validity bytes (1: valid) | the values
 *
 * the values being n fixed-width native values (the element type's vector
 * width; BOOLEAN one byte each) or, for VARCHAR and BLOB, n uint32 lengths
 * then the bytes one after another. Readers (lview), a writer (lwriter) and
 * the moves between one element and a row of an element-typed vector, for
 * the list kernels (k_list*.c) only. */
#ifndef BASALT_QUERY_QLIST_H
#define BASALT_QUERY_QLIST_H

#include <string.h>

#include "query_internal.h"


static inline bool elem_var(enum basalt_query_type_id id)
{
    return id == BASALT_QUERY_TYPE_STRING || id == BASALT_QUERY_TYPE_BINARY;
}

/* k_list_sort.c */
basalt_status basalt_qk_list_sort(const struct qstep *st, struct qexec *x);
basalt_status basalt_qk_list_distinct(const struct qstep *st, struct qexec *x);
basalt_status basalt_qk_list_cmp(const struct qstep *st, struct qexec *x);

/* Bytes of one fixed-width element in the serialised form. */
static inline size_t elem_width(struct basalt_query_type elem)
{
    if (elem.id == BASALT_QUERY_TYPE_BOOL)
        return 1;
    return elem_var(elem.id) ? 0 : (size_t)basalt_qtype_width(elem);
}

/* A serialised list opened for reading. */
struct lview {
    uint32_t n;
    const uint8_t *valid;
    const uint8_t *vals; /* fixed: n * w bytes; var: n uint32 lengths */
    const uint8_t *bytes; /* var: the strings' bytes */
    size_t w;
    bool var;
};

static inline void lview_open(struct qstr v, struct basalt_query_type elem, struct lview *l)
{
    const uint8_t *p = (const uint8_t *)v.ptr;
    memcpy(&l->n, p, 4);
    l->valid = p + 4;
    l->vals = l->valid + l->n;
    l->var = elem_var(elem.id);
    l->w = elem_width(elem);
    l->bytes = l->var ? l->vals + (size_t)l->n * 4 : NULL;
}

static inline uint32_t lview_len(const struct lview *l, uint32_t k)
{
    uint32_t len;
    memcpy(&len, l->vals + (size_t)k * 4, 4);
    return len;
}

/* Element k's bytes (its fixed-width value, or its string). `skip` is the
 * offset of element k's string among the bytes, which callers walking the
 * list keep; -1 computes it. */
static inline const uint8_t *lview_at(const struct lview *l, uint32_t k, int64_t skip, size_t *len)
{
    if (!l->var) {
        *len = l->w;
        return l->vals + (size_t)k * l->w;
    }
    if (skip < 0) {
        skip = 0;
        for (uint32_t j = 0; j < k; j++)
            skip += lview_len(l, j);
    }
    *len = lview_len(l, k);
    return l->bytes + skip;
}

/* Room for a list of n elements whose strings take `bytes`. */
static inline size_t lsize(struct basalt_query_type elem, uint32_t n, size_t bytes)
{
    return 4 + (size_t)n + (elem_var(elem.id) ? (size_t)n * 4 + bytes : (size_t)n * elem_width(elem));
}

/* A list being written into memory of lsize(). */
struct lwriter {
    uint8_t *p;
    uint32_t n;
    size_t w;
    bool var;
    uint8_t *bytes;
};

static inline void lwriter_start(struct lwriter *lw, uint8_t *p, struct basalt_query_type elem, uint32_t n)
{
    lw->p = p;
    lw->n = n;
    lw->var = elem_var(elem.id);
    lw->w = elem_width(elem);
    memcpy(p, &n, 4);
    memset(p + 4, 0, n);
    lw->bytes = p + 4 + n + (lw->var ? (size_t)n * 4 : 0);
    if (!lw->var)
        memset(p + 4 + n, 0, (size_t)n * lw->w);
    else
        memset(p + 4 + n, 0, (size_t)n * 4);
}

/* Element k: NULL when v is NULL; else the fixed-width value's bytes or
 * the string's. Elements go in order. */
static inline void lwriter_put(struct lwriter *lw, uint32_t k, const void *v, size_t len)
{
    uint8_t *vals = lw->p + 4 + lw->n;
    if (!v)
        return;
    lw->p[4 + k] = 1;
    if (!lw->var) {
        memcpy(vals + (size_t)k * lw->w, v, lw->w);
        return;
    }
    uint32_t l32 = (uint32_t)len;
    memcpy(vals + (size_t)k * 4, &l32, 4);
    if (len)
        memcpy(lw->bytes, v, len);
    lw->bytes += len;
}

/* Row i of a vector of the element type as bytes (NULL when NULL);
 * BOOLEAN as one byte in *tmp. */
static inline const void *vec_value(const struct qvec *v, struct basalt_query_type t, int i, uint8_t *tmp,
                             size_t *len)
{
    if (!qrow_valid(v->valid, i) || t.id == BASALT_QUERY_TYPE_NULL)
        return NULL;
    if (t.id == BASALT_QUERY_TYPE_BOOL) {
        *tmp = qbit((const uint64_t *)v->data, i);
        *len = 1;
        return tmp;
    }
    if (elem_var(t.id)) {
        const struct qstr *q = (const struct qstr *)v->data + i;
        *len = (size_t)q->len;
        return q->ptr;
    }
    *len = (size_t)basalt_qtype_width(t);
    return (const char *)v->data + (size_t)i * *len;
}

/* Writes element bytes v (NULL: NULL) as row i of a vector of type t. */
static inline void put_value(struct qvec *o, struct basalt_query_type t, int i, const uint8_t *v, size_t len)
{
    if (!v) {
        qbit_set(o->vbuf, i, false);
        return;
    }
    qbit_set(o->vbuf, i, true);
    if (t.id == BASALT_QUERY_TYPE_BOOL)
        qbit_set(o->dbuf, i, *v != 0);
    else if (elem_var(t.id)) {
        struct qstr *q = (struct qstr *)o->dbuf + i;
        q->ptr = (const char *)v;
        q->len = (int64_t)len;
    } else {
        memcpy((char *)o->dbuf + (size_t)i * len, v, len);
    }
}

#endif
