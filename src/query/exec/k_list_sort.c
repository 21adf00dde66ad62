/* list_sort / list_reverse_sort and list_distinct: a row's elements put in
 * order by the element type's order (DuckDB's: NaN above every number and
 * -0.0 equal to 0.0, intervals by months, days and time as they are
 * stored, strings and blobs by their bytes). list_distinct is the sorted list without NULLs
 * and with each value once: the same list whatever the elements' order,
 * where DuckDB's order comes from a hash table. And the comparisons of two
 * lists (=, <>, <, <=, >, >=): DuckDB's, element by element, a NULL element
 * equal to another and above every value, a list before the longer lists
 * it begins. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qlist.h"

#define A0 (x->vec[st->args[0]])
#define OUT (x->vec[st->out])

/* One element to sort: its bytes. */
struct elem_ref {
    const uint8_t *p;
    size_t len;
};

struct sort_ctx {
    enum basalt_query_type_id id;
    bool desc;
};

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static int cmp_double(double a, double b)
{
    bool na = isnan(a), nb = isnan(b);
    if (na || nb)
        return na - nb; /* every NaN one value, above the rest */
    return (a > b) - (a < b); /* -0.0 == 0.0 */
}

static int64_t signed_at(const uint8_t *p, size_t w)
{
    switch (w) {
    case 1: return (int8_t)p[0];
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static uint64_t unsigned_at(const uint8_t *p, size_t w)
{
    uint64_t v = 0;
    memcpy(&v, p, w); /* little-endian hosts, as the vectors are */
    return v;
}

/* `carry`: intervals compared as DuckDB's comparisons do (days and time
 * carried into months and days), not as list_sort orders them. */
static int elem_cmp_as(enum basalt_query_type_id id, const struct elem_ref *a,
                       const struct elem_ref *b, bool carry)
{
    switch (id) {
    case BASALT_QUERY_TYPE_BOOL: return (a->p[0] != 0) - (b->p[0] != 0);
    case BASALT_QUERY_TYPE_INT8: case BASALT_QUERY_TYPE_INT16: case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_DATE: case BASALT_QUERY_TYPE_TIMESTAMP:
    case BASALT_QUERY_TYPE_TIME:
        return cmp_i64(signed_at(a->p, a->len), signed_at(b->p, b->len));
    case BASALT_QUERY_TYPE_UINT8: case BASALT_QUERY_TYPE_UINT16: case BASALT_QUERY_TYPE_UINT32:
    case BASALT_QUERY_TYPE_UINT64:
        return cmp_u64(unsigned_at(a->p, a->len), unsigned_at(b->p, b->len));
    case BASALT_QUERY_TYPE_FLOAT: {
        float x, y;
        memcpy(&x, a->p, 4);
        memcpy(&y, b->p, 4);
        return cmp_double(x, y);
    }
    case BASALT_QUERY_TYPE_DOUBLE: {
        double x, y;
        memcpy(&x, a->p, 8);
        memcpy(&y, b->p, 8);
        return cmp_double(x, y);
    }
    case BASALT_QUERY_TYPE_DECIMAL: {
        qi128 x, y;
        memcpy(&x, a->p, 16);
        memcpy(&y, b->p, 16);
        return (x > y) - (x < y);
    }
    case BASALT_QUERY_TYPE_INTERVAL: {
        /* months, days, then time, as stored (DuckDB's list_sort and
         * list_distinct: 1 month before 40 days, 30 days apart from 1 month,
         * unlike its comparisons, which carry) */
        struct qinterval x, y;
        memcpy(&x, a->p, 16);
        memcpy(&y, b->p, 16);
        if (carry) {
            basalt_qinterval_normalize(&x);
            basalt_qinterval_normalize(&y);
        }
        return basalt_qinterval_cmp_fields(&x, &y);
    }
    default: { /* VARCHAR, BLOB: bytes, a prefix first */
        size_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->p, b->p, n) : 0;
        return c ? c : (a->len > b->len) - (a->len < b->len);
    }
    }
}

static int elem_cmp(enum basalt_query_type_id id, const struct elem_ref *a,
                    const struct elem_ref *b)
{
    return elem_cmp_as(id, a, b, false);
}

static int ref_cmp(const void *x, const void *y, void *ctx)
{
    const struct sort_ctx *s = ctx;
    int c = elem_cmp(s->id, x, y);
    return s->desc ? -c : c;
}

/* Sorts each row's list: aux bit 0 DESC, bit 1 NULLS FIRST; `distinct`
 * (list_distinct) drops the NULLs and repeats. */
static basalt_status sort_lists(const struct qstep *st, struct qexec *x, bool distinct)
{
    struct basalt_query_type elem = basalt_query_type_element(st->in_type);
    struct sort_ctx sc = {elem.id, !distinct && (st->aux & 1)};
    bool nulls_first = !distinct && (st->aux & 2);
    const struct qstr *l = A0.data;
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    OUT.valid = A0.valid;
    struct elem_ref *refs = NULL;
    size_t cap = 0;
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        struct lview lv;
        lview_open(l[i], elem, &lv);
        if (lv.n > cap) {
            basalt_free(refs);
            cap = lv.n;
            refs = basalt_malloc(sizeof *refs * cap);
            if (refs == NULL)
                return basalt_qexec_error(x, st, BASALT_NOMEM, "out of memory");
        }
        uint32_t m = 0, nulls = 0;
        int64_t skip = 0;
        size_t bytes = 0;
        for (uint32_t k = 0; k < lv.n; k++) {
            size_t len;
            const uint8_t *e = lview_at(&lv, k, skip, &len);
            if (lv.var)
                skip += (int64_t)len;
            if (!lv.valid[k]) {
                nulls++;
                continue;
            }
            refs[m].p = e;
            refs[m++].len = len;
        }
        if (m > 1)
            qsort_r(refs, m, sizeof *refs, ref_cmp, &sc);
        if (distinct) {
            uint32_t d = 0;
            for (uint32_t k = 0; k < m; k++)
                if (d == 0 || elem_cmp(elem.id, &refs[d - 1], &refs[k]) != 0)
                    refs[d++] = refs[k];
            m = d;
            nulls = 0;
        }
        for (uint32_t k = 0; k < m; k++)
            bytes += lv.var ? refs[k].len : 0;
        uint32_t cnt = m + nulls;
        size_t need = lsize(elem, cnt, bytes);
        uint8_t *buf = (uint8_t *)basalt_qstr_alloc(x, need);
        if (!buf) {
            basalt_free(refs);
            return BASALT_NOMEM;
        }
        struct lwriter lw;
        lwriter_start(&lw, buf, elem, cnt);
        uint32_t at = nulls_first ? nulls : 0; /* NULLs are left unwritten: NULL */
        for (uint32_t k = 0; k < m; k++)
            lwriter_put(&lw, at + k, refs[k].p, refs[k].len);
        o[i].ptr = (const char *)buf;
        o[i].len = (int64_t)need;
    }
    basalt_free(refs);
    return BASALT_OK;
}

basalt_status basalt_qk_list_sort(const struct qstep *st, struct qexec *x)
{
    return sort_lists(st, x, false);
}

basalt_status basalt_qk_list_distinct(const struct qstep *st, struct qexec *x)
{
    return sort_lists(st, x, true);
}

/* Lists l and r's order: lexicographic by elem_cmp_as (carrying), a NULL
 * element after every value, a prefix first. */
static int list_cmp(struct basalt_query_type elem, struct qstr l, struct qstr r)
{
    struct lview a, b;
    lview_open(l, elem, &a);
    lview_open(r, elem, &b);
    int64_t sa = 0, sb = 0;
    for (uint32_t k = 0; k < a.n && k < b.n; k++) {
        struct elem_ref x, y;
        x.p = lview_at(&a, k, sa, &x.len);
        y.p = lview_at(&b, k, sb, &y.len);
        if (a.var) {
            sa += (int64_t)x.len;
            sb += (int64_t)y.len;
        }
        if (!a.valid[k] || !b.valid[k]) {
            if (a.valid[k] != b.valid[k])
                return a.valid[k] ? -1 : 1;
            continue;
        }
        int c = elem_cmp_as(elem.id, &x, &y, true);
        if (c)
            return c;
    }
    return (a.n > b.n) - (a.n < b.n);
}

/* aux: 0 =, 1 <>, 2 <, 3 <=, 4 >, 5 >= (QOP_EQ's order); NULL for a NULL
 * list. */
basalt_status basalt_qk_list_cmp(const struct qstep *st, struct qexec *x)
{
    struct basalt_query_type elem = basalt_query_type_element(st->in_type);
    const struct qstr *l = A0.data, *r = x->vec[st->args[1]].data;
    uint64_t *o = OUT.dbuf;
    memset(o, 0, QWORDS * 8);
    OUT.data = o;
    basalt_qvalid_and(x, &OUT, &A0, &x->vec[st->args[1]]);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        int c = list_cmp(elem, l[i], r[i]);
        bool t;
        switch (st->aux) {
        case 0: t = c == 0; break;
        case 1: t = c != 0; break;
        case 2: t = c < 0; break;
        case 3: t = c <= 0; break;
        case 4: t = c > 0; break;
        default: t = c >= 0; break;
        }
        if (t)
            qbit_set(o, i, true);
    }
    return BASALT_OK;
}
