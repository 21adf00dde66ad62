/* Casts of LIST values: to VARCHAR (DuckDB's text: [1, 2, NULL], each
 * element as its own cast writes it, quoted only where DuckDB quotes), to
 * another list element by element through the scalar cast kernel, from a
 * list of untyped NULLs (`[]`) to any list, and to itself. */
#include <stdio.h>
#include <string.h>

#include "qlist.h"

#define A0 (x->vec[st->args[0]])
#define OUT (x->vec[st->out])

/* An element's text as CAST(... AS VARCHAR) writes it, into buf (or, for
 * strings, *out pointing at the bytes themselves). */
static size_t elem_text(struct basalt_query_type t, const uint8_t *v, size_t len, char *buf,
                        size_t cap, const char **out)
{
    *out = buf;
    switch (t.id) {
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: *out = (const char *)v; return len;
    case BASALT_QUERY_TYPE_BOOL: return (size_t)snprintf(buf, cap, *v ? "true" : "false");
    default: return basalt_qformat_value(t, v, buf, cap);
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
        char *values = basalt_qstr_alloc(x, 16 * QVEC + 16);
        ev[k].vbuf = (uint64_t *)basalt_qstr_alloc(x, QWORDS * 8 + 8);
        if (!values || !ev[k].vbuf)
            return BASALT_NOMEM;
        /* the arena's bytes are not aligned for words: align by hand (the
         * values for 16-byte DECIMALs and intervals) */
        ev[k].dbuf = (void *)(((uintptr_t)values + 15) & ~(uintptr_t)15);
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
