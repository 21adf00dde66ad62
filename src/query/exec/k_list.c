/* LIST values in vectors. A slot of type LIST holds, per row, a view
 * (struct qstr) of the row's elements serialised in one run of bytes:
 *
 *   uint32 n | n validity bytes (1: valid) | the values
 *
 * the values being n fixed-width native values (the element type's vector
 * width; BOOLEAN one byte each) or, for VARCHAR and BLOB, n uint32 lengths
 * then the bytes one after another. A list is thus one value of the same
 * shape as a string: constants, CASE and COALESCE, masks and the state's
 * per-vector arena treat it as they treat strings, and only the kernels here
 * look inside. Columns read from Arrow lists ("+l") are serialised as
 * a vector is read; results go back to Arrow as "+l" with an "item" child.
 *
 * Kernels: the column read, list_value, len, element access (1-based,
 * negative from the end, NULL out of range), list_contains, string_split,
 * CAST to VARCHAR (DuckDB's text: [1, 2, NULL], strings quoted only where
 * they need it) and CAST from a list of NULLs (`[]`) to another list. */
#include <stdio.h>
#include <string.h>

#include "query_internal.h"

#define A0 (x->vec[st->args[0]])
#define A1 (x->vec[st->args[1]])
#define OUT (x->vec[st->out])

/* ------------------------------------------------------------------ layout */

static bool elem_var(enum basalt_query_type_id id)
{
    return id == BASALT_QUERY_TYPE_STRING || id == BASALT_QUERY_TYPE_BINARY;
}

/* Bytes of one fixed-width element in the serialised form. */
static size_t elem_width(struct basalt_query_type elem)
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

static void lview_open(struct qstr v, struct basalt_query_type elem, struct lview *l)
{
    const uint8_t *p = (const uint8_t *)v.ptr;
    memcpy(&l->n, p, 4);
    l->valid = p + 4;
    l->vals = l->valid + l->n;
    l->var = elem_var(elem.id);
    l->w = elem_width(elem);
    l->bytes = l->var ? l->vals + (size_t)l->n * 4 : NULL;
}

static uint32_t lview_len(const struct lview *l, uint32_t k)
{
    uint32_t len;
    memcpy(&len, l->vals + (size_t)k * 4, 4);
    return len;
}

/* Element k's bytes (its fixed-width value, or its string). `skip` is the
 * offset of element k's string among the bytes, which callers walking the
 * list keep; -1 computes it. */
static const uint8_t *lview_at(const struct lview *l, uint32_t k, int64_t skip, size_t *len)
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
static size_t lsize(struct basalt_query_type elem, uint32_t n, size_t bytes)
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

static void lwriter_start(struct lwriter *lw, uint8_t *p, struct basalt_query_type elem, uint32_t n)
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
static void lwriter_put(struct lwriter *lw, uint32_t k, const void *v, size_t len)
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
static const void *vec_value(const struct qvec *v, struct basalt_query_type t, int i, uint8_t *tmp,
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

/* Writes element bytes v (NULL: NULL) as row i of a vector of type t. */
static void put_value(struct qvec *o, struct basalt_query_type t, int i, const uint8_t *v, size_t len)
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
    default: return false;
    }
}

/* ------------------------------------------------------------------ casts */

/* An element's text as CAST(... AS VARCHAR) writes it, into buf (or, for
 * strings, *out pointing at the bytes themselves). */
static size_t elem_text(struct basalt_query_type t, const uint8_t *v, size_t len, char *buf,
                        size_t cap, const char **out)
{
    *out = buf;
    int64_t i64;
    switch (t.id) {
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: *out = (const char *)v; return len;
    case BASALT_QUERY_TYPE_BOOL: return (size_t)snprintf(buf, cap, *v ? "true" : "false");
    case BASALT_QUERY_TYPE_INT8: return (size_t)snprintf(buf, cap, "%d", *(const int8_t *)v);
    case BASALT_QUERY_TYPE_UINT8: return (size_t)snprintf(buf, cap, "%u", *v);
    case BASALT_QUERY_TYPE_INT16: {
        int16_t a;
        memcpy(&a, v, 2);
        return (size_t)snprintf(buf, cap, "%d", a);
    }
    case BASALT_QUERY_TYPE_UINT16: {
        uint16_t a;
        memcpy(&a, v, 2);
        return (size_t)snprintf(buf, cap, "%u", a);
    }
    case BASALT_QUERY_TYPE_INT32: {
        int32_t a;
        memcpy(&a, v, 4);
        return (size_t)snprintf(buf, cap, "%d", a);
    }
    case BASALT_QUERY_TYPE_UINT32: {
        uint32_t a;
        memcpy(&a, v, 4);
        return (size_t)snprintf(buf, cap, "%u", a);
    }
    case BASALT_QUERY_TYPE_INT64:
        memcpy(&i64, v, 8);
        return (size_t)snprintf(buf, cap, "%lld", (long long)i64);
    case BASALT_QUERY_TYPE_UINT64: {
        uint64_t a;
        memcpy(&a, v, 8);
        return (size_t)snprintf(buf, cap, "%llu", (unsigned long long)a);
    }
    case BASALT_QUERY_TYPE_FLOAT: {
        float f;
        memcpy(&f, v, 4);
        return basalt_qformat_float(f, buf, cap);
    }
    case BASALT_QUERY_TYPE_DOUBLE: {
        double d;
        memcpy(&d, v, 8);
        return basalt_qformat_double(d, buf, cap);
    }
    case BASALT_QUERY_TYPE_DECIMAL: {
        qi128 d;
        memcpy(&d, v, 16);
        return basalt_qformat_decimal(d, t.scale, buf, cap);
    }
    case BASALT_QUERY_TYPE_DATE: {
        int32_t d;
        memcpy(&d, v, 4);
        return basalt_qformat_date(d, buf, cap);
    }
    case BASALT_QUERY_TYPE_TIMESTAMP:
        memcpy(&i64, v, 8);
        return basalt_qformat_timestamp(i64, t.nanos, t.tz, buf, cap);
    case BASALT_QUERY_TYPE_INTERVAL: {
        struct qinterval iv;
        memcpy(&iv, v, 16);
        return basalt_qformat_interval(iv, buf, cap);
    }
    default: return 0;
    }
}

/* DuckDB quotes an element's text inside a list's text when it is empty,
 * is NULL in any case, has space at either end, or holds one of
 * , : " ' [ ] { } ( ) = (a backslash alone does not need quotes). */
static bool needs_quotes(const char *s, size_t n)
{
    if (n == 0)
        return true;
    if (s[0] == ' ' || s[n - 1] == ' ')
        return true;
    if (n == 4 && (s[0] | 32) == 'n' && (s[1] | 32) == 'u' && (s[2] | 32) == 'l' && (s[3] | 32) == 'l')
        return true;
    for (size_t i = 0; i < n; i++)
        if (strchr(",:\"'[]{}()=", s[i]) && s[i] != '\0')
            return true;
    return false;
}

/* The text of list `l` appended to buf (NULL: measures only); returns its
 * length. */
static size_t list_text(struct lview *lv, struct basalt_query_type elem, char *buf)
{
    size_t k = 0;
#define EMIT(p, n)                                                                                \
    do {                                                                                          \
        if (buf)                                                                                  \
            memcpy(buf + k, (p), (n));                                                            \
        k += (n);                                                                                 \
    } while (0)
    EMIT("[", 1);
    int64_t skip = 0;
    for (uint32_t j = 0; j < lv->n; j++) {
        if (j)
            EMIT(", ", 2);
        size_t len;
        const uint8_t *v = lview_at(lv, j, skip, &len);
        if (lv->var)
            skip += (int64_t)len;
        if (!lv->valid[j]) {
            EMIT("NULL", 4);
            continue;
        }
        char tmp[128];
        const char *t;
        size_t n = elem_text(elem, v, len, tmp, sizeof tmp, &t);
        if (!needs_quotes(t, n)) {
            EMIT(t, n);
            continue;
        }
        EMIT("'", 1);
        for (size_t c = 0; c < n; c++) {
            if (t[c] == '\'' || t[c] == '\\')
                EMIT("\\", 1);
            EMIT(t + c, 1);
        }
        EMIT("'", 1);
    }
    EMIT("]", 1);
#undef EMIT
    return k;
}

static basalt_status cast_list_to_string(const struct qstep *st, struct qexec *x)
{
    struct basalt_query_type elem = basalt_query_type_element(st->in_type);
    const struct qstr *l = A0.data;
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    OUT.valid = A0.valid;
    for (int i = 0; i < x->n; i++) {
        o[i].ptr = "";
        o[i].len = 0;
        if (!qrow_valid(A0.valid, i))
            continue;
        struct lview lv;
        lview_open(l[i], elem, &lv);
        size_t n = list_text(&lv, elem, NULL);
        char *p = basalt_qstr_alloc(x, n);
        if (!p)
            return BASALT_NOMEM;
        list_text(&lv, elem, p);
        o[i].ptr = p;
        o[i].len = (int64_t)n;
    }
    return BASALT_OK;
}

/* A list of untyped NULLs (`[]`, `[NULL]`) as a list of another element
 * type: the same count of NULL elements. */
static basalt_status cast_null_list(const struct qstep *st, struct qexec *x)
{
    struct basalt_query_type elem = basalt_query_type_element(st->type);
    const struct qstr *l = A0.data;
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    OUT.valid = A0.valid;
    for (int i = 0; i < x->n; i++) {
        o[i].ptr = "";
        o[i].len = 0;
        if (!qrow_valid(A0.valid, i))
            continue;
        uint32_t n;
        memcpy(&n, l[i].ptr, 4);
        size_t need = lsize(elem, n, 0);
        uint8_t *p = (uint8_t *)basalt_qstr_alloc(x, need);
        if (!p)
            return BASALT_NOMEM;
        struct lwriter lw;
        lwriter_start(&lw, p, elem, n);
        o[i].ptr = (const char *)p;
        o[i].len = (int64_t)need;
    }
    return BASALT_OK;
}

/* A list of one element type as a list of another: the elements of the
 * vector's lists, a vector's worth at a time, go through the scalar cast
 * kernel of the two element types (its errors, TRY_CAST's NULLs and
 * position included), and are written back list by list. */
static basalt_status cast_list_elems(const struct qstep *st, struct qexec *x)
{
    const struct qstep *inner = st->data;
    struct basalt_query_type from = basalt_query_type_element(st->in_type);
    struct basalt_query_type to = basalt_query_type_element(st->type);
    const struct qstr *l = A0.data;
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    OUT.valid = A0.valid;
    /* two element vectors (in, out) in the per-vector arena */
    struct qvec ev[2];
    memset(ev, 0, sizeof ev);
    for (int k = 0; k < 2; k++) {
        ev[k].dbuf = basalt_qstr_alloc(x, 16 * QVEC);
        ev[k].vbuf = (uint64_t *)basalt_qstr_alloc(x, QWORDS * 8 + 8);
        if (!ev[k].dbuf || !ev[k].vbuf)
            return BASALT_NOMEM;
        /* the arena's bytes are not aligned for words: align by hand */
        ev[k].vbuf = (uint64_t *)(((uintptr_t)ev[k].vbuf + 7) & ~(uintptr_t)7);
    }
    struct qexec sub = *x;
    sub.vec = ev;
    for (int i = 0; i < x->n; i++) {
        o[i].ptr = "";
        o[i].len = 0;
        if (!qrow_valid(A0.valid, i))
            continue;
        struct lview lv;
        lview_open(l[i], from, &lv);
        /* a row the step's mask leaves out is not cast: an empty list */
        uint32_t n = qcounts(x, st, i) ? lv.n : 0;
        if (n > (uint32_t)QVEC)
            return basalt_qexec_error(x, st, BASALT_UNSUPPORTED,
                                      "a list of more than %d elements cannot be cast yet", QVEC);
        memset(ev[0].vbuf, 0, QWORDS * 8);
        memset(ev[0].dbuf, 0, 16 * QVEC);
        ev[0].data = ev[0].dbuf;
        ev[0].valid = ev[0].vbuf;
        int64_t skip = 0;
        for (uint32_t k = 0; k < n; k++) {
            size_t len;
            const uint8_t *v = lview_at(&lv, k, skip, &len);
            if (lv.var)
                skip += (int64_t)len;
            put_value(&ev[0], from, (int)k, lv.valid[k] ? v : NULL, len);
        }
        sub.n = (int)n;
        if (n > 0) {
            basalt_status r = inner->fn(inner, &sub);
            if (r != BASALT_OK)
                return r;
        }
        size_t bytes = 0, len = 0;
        uint8_t tmp;
        for (uint32_t k = 0; k < n && elem_var(to.id); k++)
            if (vec_value(&ev[1], to, (int)k, &tmp, &len))
                bytes += len;
        size_t need = lsize(to, n, bytes);
        uint8_t *res = (uint8_t *)basalt_qstr_alloc(x, need);
        if (!res)
            return BASALT_NOMEM;
        struct lwriter lw;
        lwriter_start(&lw, res, to, n);
        for (uint32_t k = 0; k < n; k++) {
            const void *v = vec_value(&ev[1], to, (int)k, &tmp, &len);
            lwriter_put(&lw, k, v, len);
        }
        o[i].ptr = (const char *)res;
        o[i].len = (int64_t)need;
    }
    return BASALT_OK;
}

static basalt_status cast_list_same(const struct qstep *st, struct qexec *x)
{
    OUT.data = A0.data;
    OUT.valid = A0.valid;
    return BASALT_OK;
}

bool basalt_qk_list_cast_select(struct qstep *st, struct basalt_arena *arena)
{
    struct basalt_query_type s = st->in_type, d = st->type;
    if (s.id == BASALT_QUERY_TYPE_LIST && d.id == BASALT_QUERY_TYPE_STRING) {
        st->fn = cast_list_to_string;
        st->kname = "cast_list_to_varchar";
        return true;
    }
    if (s.id != BASALT_QUERY_TYPE_LIST || d.id != BASALT_QUERY_TYPE_LIST)
        return false;
    if (basalt_query_type_equal(s, d)) {
        st->fn = cast_list_same;
        st->kname = "cast_list";
        return true;
    }
    if (s.elem == BASALT_QUERY_TYPE_NULL) {
        st->fn = cast_null_list;
        st->kname = "cast_null_list";
        return true;
    }
    /* the elements' own cast, run over vectors of elements (slot 0 in,
     * slot 1 out) */
    struct qstep *inner = basalt_arena_alloc(arena, sizeof *inner, 16);
    if (!inner)
        return false;
    memset(inner, 0, sizeof *inner);
    inner->in_type = basalt_query_type_element(s);
    inner->type = basalt_query_type_element(d);
    inner->args[0] = 0;
    inner->n_args = 1;
    inner->out = 1;
    inner->mask = -1;
    inner->pos = st->pos;
    inner->flag = st->flag;
    if (!basalt_qk_cast_select(inner, arena))
        return false;
    st->data = inner;
    st->fn = cast_list_elems;
    st->kname = "cast_list_elements";
    return true;
}

/* ------------------------------------------------------------------ output */

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
