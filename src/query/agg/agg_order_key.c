/* The order key of ORDER BY inside an aggregate (agg.h,
 * basalt_qagg_order_key): the ORDER BY columns of a row as one byte
 * string whose byte order is the rows' order, so that the ARG_MIN states
 * and ordered STRING_AGG compare one value however many keys there are,
 * and a spilled row carries its order as one column. Unlike the sort's
 * normalised keys (sort/sort_keys.c), which keep a prefix of a string and
 * compare the rest apart, a key here is the whole order. */
#include <math.h>
#include <string.h>

#include "agg/agg_internal.h"

enum { NULL_FIRST = 0x00, VALUE = 0x01, NULL_LAST = 0x02 };

struct keybuf {
    uint8_t *p;
    size_t n, cap;
};

static basalt_status reserve(struct keybuf *b, size_t more, struct basalt_error *err)
{
    if (b->n + more <= b->cap)
        return BASALT_OK;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more)
        cap *= 2;
    uint8_t *p = basalt_realloc(b->p, cap);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    b->p = p;
    b->cap = cap;
    return BASALT_OK;
}

static void put_be(uint8_t *d, uint64_t v, int w)
{
    for (int k = 0; k < w; k++)
        d[k] = (uint8_t)(v >> (8 * (w - 1 - k)));
}

/* The bits of a double ordered as basalt_qagg_cell_cmp orders doubles:
 * -0.0 before 0.0, every NaN equal and above +inf. */
static uint64_t double_image(double f)
{
    if (isnan(f))
        return UINT64_MAX;
    uint64_t b;
    memcpy(&b, &f, 8);
    return b >> 63 ? ~b : b | 0x8000000000000000ull;
}

/* Appends row i's value of column c (physical type p) to b: bytes whose
 * order is the values'. */
static basalt_status put_value(struct keybuf *b, const struct qagg_col *c, enum qagg_phys p,
                               int64_t i, struct basalt_error *err)
{
    union qagg_cell v;
    basalt_qagg_cell_get(c, p, i, &v);
    basalt_status st;
    if (p == QP_STR) {
        /* 0x00 as 0x00 0xff, then 0x00 0x00: no key is a prefix of
         * another's, so what follows never decides between two strings. */
        if ((st = reserve(b, 2 * (size_t)v.s.n + 2, err)) != BASALT_OK)
            return st;
        const uint8_t *s = (const uint8_t *)v.s.p;
        for (int64_t k = 0; k < v.s.n; k++) {
            b->p[b->n++] = s[k];
            if (s[k] == 0)
                b->p[b->n++] = 0xff;
        }
        b->p[b->n++] = 0;
        b->p[b->n++] = 0;
        return BASALT_OK;
    }
    if ((st = reserve(b, 16, err)) != BASALT_OK)
        return st;
    uint8_t *d = b->p + b->n;
    int w = basalt_qagg_phys_width(p);
    switch (p) {
    case QP_BOOL: d[0] = v.i != 0; w = 1; break;
    case QP_I8: case QP_I16: case QP_I32: case QP_I64:
        put_be(d, (uint64_t)v.i ^ (1ull << (8 * w - 1)), w);
        break;
    case QP_U8: case QP_U16: case QP_U32: case QP_U64: put_be(d, v.u, w); break;
    case QP_F32: case QP_F64: put_be(d, double_image(v.f), 8); w = 8; break;
    case QP_DEC: {
        unsigned __int128 u = (unsigned __int128)v.d ^ ((unsigned __int128)1 << 127);
        put_be(d, (uint64_t)(u >> 64), 8);
        put_be(d + 8, (uint64_t)u, 8);
        break;
    }
    case QP_IV: {
        /* DuckDB's order: months, days and time after carrying (30-day
         * months, agg_type.c) */
        struct qinterval iv = v.iv;
        basalt_qinterval_normalize(&iv);
        put_be(d, (uint32_t)iv.months ^ 0x80000000u, 4);
        put_be(d + 4, (uint32_t)iv.days ^ 0x80000000u, 4);
        put_be(d + 8, (uint64_t)iv.nanos ^ 0x8000000000000000ull, 8);
        break;
    }
    case QP_STR: break;
    }
    b->n += (size_t)w;
    return BASALT_OK;
}

basalt_status basalt_qagg_order_key(const struct ArrowArray *const *cols,
                                    const struct basalt_query_type *types, const bool *desc,
                                    const bool *nulls_first, int n_cols,
                                    const struct ArrowArray *when, int64_t n_rows,
                                    struct ArrowArray *out, struct basalt_error *err)
{
    if (!out || n_rows < 0 || n_cols < 0 || (n_cols && (!cols || !types || !desc || !nulls_first)))
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: bad order key arguments");
    memset(out, 0, sizeof *out);
    struct qagg_col cc[16];
    struct qagg_col *c = n_cols <= 16 ? cc : basalt_malloc(sizeof *c * (size_t)n_cols);
    enum qagg_phys ph[16];
    enum qagg_phys *phys = n_cols <= 16 ? ph : basalt_malloc(sizeof *phys * (size_t)n_cols);
    struct qagg_col wc;
    basalt_status st = c && phys ? BASALT_OK
                                 : basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    for (int k = 0; k < n_cols && st == BASALT_OK; k++) {
        if (types[k].id <= BASALT_QUERY_TYPE_NULL || types[k].id >= BASALT_QUERY_TYPE_COUNT)
            st = basalt_error_set(err, BASALT_UNSUPPORTED, "aggregate: ORDER BY key %d has no order",
                                  k + 1);
        else {
            phys[k] = basalt_qagg_phys(types[k]);
            st = basalt_qagg_col_init(cols[k], phys[k], types[k].large, n_rows, &c[k], err);
        }
    }
    if (st == BASALT_OK && when)
        st = basalt_qagg_col_init(when, QP_BOOL, false, n_rows, &wc, err);
    int32_t *offs = NULL;
    uint8_t *valid = NULL;
    struct keybuf b = {0};
    if (st == BASALT_OK) {
        offs = basalt_aligned_alloc(64, sizeof *offs * (size_t)(n_rows + 1) + 64);
        valid = basalt_aligned_alloc(64, (size_t)basalt_bitmap_bytes(n_rows) + 64);
        if (!offs || !valid)
            st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    }
    int64_t nulls = 0;
    if (st == BASALT_OK) {
        memset(valid, 0xff, (size_t)basalt_bitmap_bytes(n_rows) + 1);
        offs[0] = 0;
    }
    for (int64_t i = 0; i < n_rows && st == BASALT_OK; i++) {
        bool take = !when || (basalt_qagg_valid(&wc, i) &&
                              basalt_bitmap_get(wc.data, wc.off + i));
        for (int k = 0; k < n_cols && take && st == BASALT_OK; k++) {
            if ((st = reserve(&b, 1, err)) != BASALT_OK)
                break;
            if (!basalt_qagg_valid(&c[k], i)) {
                b.p[b.n++] = nulls_first[k] ? NULL_FIRST : NULL_LAST;
                continue;
            }
            b.p[b.n++] = VALUE;
            size_t from = b.n;
            st = put_value(&b, &c[k], phys[k], i, err);
            for (size_t j = from; desc[k] && j < b.n; j++)
                b.p[j] = (uint8_t)~b.p[j];
        }
        if (!take) {
            basalt_bitmap_set(valid, i, false);
            nulls++;
        }
        if (st == BASALT_OK && b.n > INT32_MAX)
            st = basalt_error_set(err, BASALT_LIMIT, "aggregate: order keys over 2 GiB in a batch");
        if (st == BASALT_OK)
            offs[i + 1] = (int32_t)b.n;
    }
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(out, 3, 0, err);
    if (st == BASALT_OK) {
        out->length = n_rows;
        out->null_count = nulls;
        uint8_t *data = basalt_aligned_alloc(64, b.n + 64);
        if (!data)
            st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        else if (b.n)
            memcpy(data, b.p, b.n);
        if (st == BASALT_OK)
            st = basalt_arrow_array_set_buffer(out, 2, data, err); /* owned either way */
        if (st == BASALT_OK) {
            st = basalt_arrow_array_set_buffer(out, 1, offs, err);
            offs = NULL;
        }
        if (st == BASALT_OK) {
            st = basalt_arrow_array_set_buffer(out, 0, nulls ? valid : NULL, err);
            if (nulls)
                valid = NULL;
        }
        if (st != BASALT_OK)
            basalt_arrow_array_release(out);
    }
    basalt_free(offs);
    basalt_free(valid);
    basalt_free(b.p);
    if (c != cc)
        basalt_free(c);
    if (phys != ph)
        basalt_free(phys);
    return st;
}
