/* Gathering join output column by column. Unlike basalt_arrow_take, a
 * negative index gives a NULL (the missing side of an outer join), and the
 * common types (fixed width, bool, strings) are copied by tight loops over
 * one source. The build side is concatenated once so that every build row
 * is one index into one array. */
#include <string.h>

#include "join/join_impl.h"

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

/* The validity of the gathered rows; none when no row is NULL. */
static basalt_status gather_validity(const struct ArrowArray *col, int64_t base, const int64_t *idx,
                                     int64_t n, struct ArrowArray *out, struct basalt_error *err)
{
    const uint8_t *v = col && col->null_count != 0 ? col->buffers[0] : NULL;
    int64_t off = col ? col->offset + base : 0;
    bool neg = false;
    if (!v) {
        for (int64_t k = 0; k < n && !neg; k++)
            neg = idx[k] < 0;
        if (!neg) {
            out->null_count = 0;
            return BASALT_OK;
        }
    }
    void *mem;
    basalt_status st =
        basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(n), &mem, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *bits = mem;
    memset(bits, 0, (size_t)basalt_bitmap_bytes(n));
    int64_t nulls = 0;
    for (int64_t k = 0; k < n; k++) {
        bool ok = idx[k] >= 0 && (!v || basalt_bitmap_get(v, off + idx[k]));
        bits[k >> 3] |= (uint8_t)((unsigned)ok << (k & 7));
        nulls += !ok;
    }
    out->null_count = nulls;
    if (nulls == 0)
        basalt_arrow_array_set_buffer(out, 0, NULL, NULL);
    return BASALT_OK;
}

static basalt_status gather_fixed(const struct ArrowArray *col, int64_t base, const int64_t *idx,
                                  int64_t n, size_t w, struct ArrowArray *out,
                                  struct basalt_error *err)
{
    void *mem;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * w, &mem, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *dst = mem;
    if (!col) {
        memset(dst, 0, (size_t)n * w);
        return BASALT_OK;
    }
    const uint8_t *src = (const uint8_t *)col->buffers[1] + (size_t)(col->offset + base) * w;
    /* Constant widths compile to single moves. */
#define GATHER_W(W)                                                                     \
    for (int64_t k = 0; k < n; k++) {                                                   \
        if (idx[k] >= 0)                                                                \
            memcpy(dst + (W) * (size_t)k, src + (W) * (size_t)idx[k], (W));             \
        else                                                                            \
            memset(dst + (W) * (size_t)k, 0, (W));                                      \
    }
    switch (w) {
    case 1: GATHER_W(1) break;
    case 2: GATHER_W(2) break;
    case 4: GATHER_W(4) break;
    case 8: GATHER_W(8) break;
    case 16: GATHER_W(16) break;
    default: GATHER_W(w) break;
    }
#undef GATHER_W
    return BASALT_OK;
}

static basalt_status gather_bool(const struct ArrowArray *col, int64_t base, const int64_t *idx,
                                 int64_t n, struct ArrowArray *out, struct basalt_error *err)
{
    void *mem;
    basalt_status st =
        basalt_arrow_array_allocate_buffer(out, 1, (size_t)basalt_bitmap_bytes(n), &mem, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *bits = mem;
    memset(bits, 0, (size_t)basalt_bitmap_bytes(n));
    if (!col)
        return BASALT_OK;
    const uint8_t *src = col->buffers[1];
    int64_t off = col->offset + base;
    for (int64_t k = 0; k < n; k++)
        if (idx[k] >= 0 && basalt_bitmap_get(src, off + idx[k]))
            bits[k >> 3] |= (uint8_t)(1u << (k & 7));
    return BASALT_OK;
}

static basalt_status gather_binary(const struct ArrowArray *col, int64_t base, const int64_t *idx,
                                   int64_t n, bool large, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    void *omem, *dmem;
    basalt_status st =
        basalt_arrow_array_allocate_buffer(out, 1, (size_t)(n + 1) * (large ? 8 : 4), &omem, err);
    if (st != BASALT_OK)
        return st;
    int64_t off = col ? col->offset + base : 0;
    const int32_t *o32 = col ? col->buffers[1] : NULL;
    const int64_t *o64 = col ? col->buffers[1] : NULL;
    const uint8_t *src = col ? col->buffers[2] : NULL;
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
        if (idx[k] < 0)
            continue;
        int64_t p = off + idx[k];
        total += large ? o64[p + 1] - o64[p] : (int64_t)o32[p + 1] - o32[p];
    }
    if (!large && total > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "join output: more than 2^31-1 bytes in a "
                                                   "string column of one batch");
    st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)total, &dmem, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *dst = dmem;
    int64_t pos = 0;
    for (int64_t k = 0; k < n; k++) {
        if (large)
            ((int64_t *)omem)[k] = pos;
        else
            ((int32_t *)omem)[k] = (int32_t)pos;
        if (idx[k] < 0)
            continue;
        int64_t p = off + idx[k];
        int64_t s = large ? o64[p] : o32[p], e = large ? o64[p + 1] : o32[p + 1];
        if (e - s <= 16) {
            /* Short values inline: a call per value would dominate. */
            for (int64_t b = 0; b < e - s; b++)
                dst[pos + b] = src[s + b];
        } else {
            memcpy(dst + pos, src + s, (size_t)(e - s));
        }
        pos += e - s;
    }
    if (large)
        ((int64_t *)omem)[n] = pos;
    else
        ((int32_t *)omem)[n] = (int32_t)pos;
    return BASALT_OK;
}

/* Other types through basalt_arrow_take, then NULLs where idx < 0. */
static basalt_status gather_other(const struct ArrowSchema *s, const struct ArrowArray *col,
                                  int64_t base, const int64_t *idx, int64_t n,
                                  struct ArrowArray *out, struct basalt_error *err)
{
    bool neg = false;
    for (int64_t k = 0; k < n && !neg; k++)
        neg = idx[k] < 0;
    if (neg && (!col || col->length == 0))
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "join: NULL rows of nested column '%s' with an empty side",
                                s->name ? s->name : "");
    int64_t *ix = basalt_malloc((size_t)(n ? n : 1) * sizeof *ix);
    if (!ix)
        return nomem(err);
    for (int64_t k = 0; k < n; k++)
        ix[k] = base + (idx[k] < 0 ? 0 : idx[k]);
    basalt_status st = basalt_arrow_take(s, col, ix, n, out, err);
    basalt_free(ix);
    if (st != BASALT_OK || !neg)
        return st;
    void *mem;
    const uint8_t *old = out->null_count != 0 ? out->buffers[0] : NULL;
    uint8_t *bits = basalt_aligned_alloc(64, (size_t)basalt_bitmap_bytes(n) + 64);
    if (!bits) {
        basalt_arrow_array_release(out);
        return nomem(err);
    }
    int64_t nulls = 0;
    memset(bits, 0, (size_t)basalt_bitmap_bytes(n));
    for (int64_t k = 0; k < n; k++) {
        bool ok = idx[k] >= 0 && (!old || basalt_bitmap_get(old, out->offset + k));
        bits[k >> 3] |= (uint8_t)((unsigned)ok << (k & 7));
        nulls += !ok;
    }
    (void)mem;
    st = basalt_arrow_array_set_buffer(out, 0, bits, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    out->null_count = nulls;
    return BASALT_OK;
}

/* Rows [first, first + n) of `col` whole: the probe side of a join whose
 * probe rows each emit one row. */
static basalt_status copy_run(const struct basalt_arrow_type *t, const struct ArrowArray *col,
                              int64_t first, int64_t n, struct ArrowArray *out,
                              struct basalt_error *err)
{
    int64_t p = col->offset + first;
    void *mem;
    basalt_status st;
    out->null_count = 0;
    if (col->null_count != 0 && col->buffers[0]) {
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(n), &mem, err);
        if (st != BASALT_OK)
            return st;
        basalt_bitmap_copy(mem, 0, col->buffers[0], p, n);
        out->null_count = n - basalt_bitmap_count(mem, 0, n);
        if (out->null_count == 0)
            basalt_arrow_array_set_buffer(out, 0, NULL, NULL);
    }
    if (t->id == BASALT_ARROW_TYPE_BOOL) {
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)basalt_bitmap_bytes(n), &mem, err);
        if (st == BASALT_OK)
            basalt_bitmap_copy(mem, 0, col->buffers[1], p, n);
        return st;
    }
    bool large = t->id == BASALT_ARROW_TYPE_LARGE_BINARY || t->id == BASALT_ARROW_TYPE_LARGE_STRING;
    if (t->id == BASALT_ARROW_TYPE_BINARY || t->id == BASALT_ARROW_TYPE_STRING || large) {
        int64_t s0 = large ? ((const int64_t *)col->buffers[1])[p] : ((const int32_t *)col->buffers[1])[p];
        int64_t e0 = large ? ((const int64_t *)col->buffers[1])[p + n]
                           : ((const int32_t *)col->buffers[1])[p + n];
        void *dmem;
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(n + 1) * (large ? 8 : 4), &mem, err);
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)(e0 - s0), &dmem, err);
        if (st != BASALT_OK)
            return st;
        for (int64_t k = 0; k <= n; k++) {
            if (large)
                ((int64_t *)mem)[k] = ((const int64_t *)col->buffers[1])[p + k] - s0;
            else
                ((int32_t *)mem)[k] = ((const int32_t *)col->buffers[1])[p + k] - (int32_t)s0;
        }
        memcpy(dmem, (const uint8_t *)col->buffers[2] + s0, (size_t)(e0 - s0));
        return BASALT_OK;
    }
    size_t w = (size_t)(t->bit_width / 8);
    st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * w, &mem, err);
    if (st == BASALT_OK)
        memcpy(mem, (const uint8_t *)col->buffers[1] + (size_t)p * w, (size_t)n * w);
    return st;
}

static inline int64_t run_end(const int64_t *idx, int64_t k, int64_t n)
{
    int64_t r = k + 1;
    while (r < n && idx[r] == idx[r - 1] + 1)
        r++;
    return r;
}

/* Rows that come in long runs of consecutive slots (the probe side when most
 * probe rows emit one row) are copied run by run; no negative index. */
static basalt_status gather_runs(const struct basalt_arrow_type *t, const struct ArrowArray *col,
                                 int64_t base, const int64_t *idx, int64_t n,
                                 struct ArrowArray *out, struct basalt_error *err)
{
    int64_t off = col->offset + base;
    void *mem;
    basalt_status st;
    out->null_count = 0;
    if (col->null_count != 0 && col->buffers[0]) {
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(n), &mem, err);
        if (st != BASALT_OK)
            return st;
        for (int64_t k = 0, r; k < n; k = r) {
            r = run_end(idx, k, n);
            basalt_bitmap_copy(mem, k, col->buffers[0], off + idx[k], r - k);
        }
        out->null_count = n - basalt_bitmap_count(mem, 0, n);
        if (out->null_count == 0)
            basalt_arrow_array_set_buffer(out, 0, NULL, NULL);
    }
    bool large = t->id == BASALT_ARROW_TYPE_LARGE_BINARY || t->id == BASALT_ARROW_TYPE_LARGE_STRING;
    if (t->id == BASALT_ARROW_TYPE_BINARY || t->id == BASALT_ARROW_TYPE_STRING || large) {
        const int32_t *o32 = col->buffers[1];
        const int64_t *o64 = col->buffers[1];
#define OFF(i) (large ? o64[i] : (int64_t)o32[i])
        int64_t total = 0;
        for (int64_t k = 0, r; k < n; k = r) {
            r = run_end(idx, k, n);
            total += OFF(off + idx[k] + (r - k)) - OFF(off + idx[k]);
        }
        if (!large && total > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "join output: more than 2^31-1 bytes in a "
                                                       "string column of one batch");
        void *dmem;
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(n + 1) * (large ? 8 : 4), &mem, err);
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)total, &dmem, err);
        if (st != BASALT_OK)
            return st;
        int64_t pos = 0;
        for (int64_t k = 0, r; k < n; k = r) {
            r = run_end(idx, k, n);
            int64_t p = off + idx[k], s0 = OFF(p), e0 = OFF(p + (r - k));
            for (int64_t i = 0; i < r - k; i++) {
                if (large)
                    ((int64_t *)mem)[k + i] = pos + o64[p + i] - s0;
                else
                    ((int32_t *)mem)[k + i] = (int32_t)(pos + o32[p + i] - s0);
            }
            memcpy((uint8_t *)dmem + pos, (const uint8_t *)col->buffers[2] + s0, (size_t)(e0 - s0));
            pos += e0 - s0;
        }
#undef OFF
        if (large)
            ((int64_t *)mem)[n] = pos;
        else
            ((int32_t *)mem)[n] = (int32_t)pos;
        return BASALT_OK;
    }
    size_t w = (size_t)(t->bit_width / 8);
    st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * w, &mem, err);
    if (st != BASALT_OK)
        return st;
    for (int64_t k = 0, r; k < n; k = r) {
        r = run_end(idx, k, n);
        memcpy((uint8_t *)mem + (size_t)k * w,
               (const uint8_t *)col->buffers[1] + (size_t)(off + idx[k]) * w, (size_t)(r - k) * w);
    }
    return BASALT_OK;
}

basalt_status basalt_qj_gather(const struct ArrowSchema *s, const struct ArrowArray *col,
                               int64_t base, const int64_t *idx, int64_t n,
                               struct ArrowArray *out, struct basalt_error *err)
{
    out->release = NULL;
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    bool simple = !s->dictionary && s->n_children == 0 &&
                  (t.id == BASALT_ARROW_TYPE_BOOL || t.id == BASALT_ARROW_TYPE_BINARY ||
                   t.id == BASALT_ARROW_TYPE_STRING || t.id == BASALT_ARROW_TYPE_LARGE_BINARY ||
                   t.id == BASALT_ARROW_TYPE_LARGE_STRING ||
                   (t.bit_width > 0 && t.bit_width % 8 == 0));
    if (!simple)
        return gather_other(s, col, base, idx, n, out, err);
    bool bin = t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_STRING ||
               t.id == BASALT_ARROW_TYPE_LARGE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
    st = basalt_arrow_array_init(out, bin ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    /* Consecutive slots: one run copies whole, long runs run by run. */
    int64_t runs = 1;
    bool neg = n > 0 && idx[0] < 0;
    for (int64_t k = 1; k < n; k++) {
        runs += idx[k] != idx[k - 1] + 1;
        neg |= idx[k] < 0;
    }
    if (col && n > 0 && !neg && (runs == 1 || (runs * 4 <= n && t.id != BASALT_ARROW_TYPE_BOOL))) {
        st = runs == 1 ? copy_run(&t, col, base + idx[0], n, out, err)
                       : gather_runs(&t, col, base, idx, n, out, err);
        if (st != BASALT_OK)
            basalt_arrow_array_release(out);
        return st;
    }
    st = gather_validity(col, base, idx, n, out, err);
    if (st == BASALT_OK) {
        if (t.id == BASALT_ARROW_TYPE_BOOL)
            st = gather_bool(col, base, idx, n, out, err);
        else if (bin)
            st = gather_binary(col, base, idx, n,
                               t.id == BASALT_ARROW_TYPE_LARGE_BINARY ||
                                   t.id == BASALT_ARROW_TYPE_LARGE_STRING,
                               out, err);
        else
            st = gather_fixed(col, base, idx, n, (size_t)(t.bit_width / 8), out, err);
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

/* ------------------------------------------------------------------ concat */

struct concat_ctx {
    const struct ArrowSchema *s;
    const struct qj_batch *b;
    int64_t n, total;
    struct ArrowArray *out;
    basalt_status *st;
    struct basalt_error *errs;
};

static basalt_status concat_other(const struct ArrowSchema *s, const struct qj_batch *b, int64_t nb,
                                  int c, int64_t total, struct ArrowArray *out,
                                  struct basalt_error *err)
{
    if (nb > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "join: too many build batches");
    int32_t *src = basalt_malloc((size_t)(total ? total : 1) * sizeof *src);
    int64_t *idx = basalt_malloc((size_t)(total ? total : 1) * sizeof *idx);
    struct ArrowArray *arr = basalt_malloc((size_t)(nb ? nb : 1) * sizeof *arr);
    if (!src || !idx || !arr) {
        basalt_free(src);
        basalt_free(idx);
        basalt_free(arr);
        return nomem(err);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < nb; i++) {
        /* A shallow view: the batch's child with the batch's offset folded in. */
        arr[i] = *b[i].a.children[c];
        for (int64_t r = 0; r < b[i].a.length; r++, k++) {
            src[k] = (int32_t)i;
            idx[k] = b[i].a.offset + r;
        }
    }
    basalt_status st = nb ? basalt_arrow_take_many(s, arr, (int32_t)nb, src, idx, total, out, err)
                          : basalt_error_set(err, BASALT_INTERNAL, "join: concat of nothing");
    basalt_free(src);
    basalt_free(idx);
    basalt_free(arr);
    return st;
}

static basalt_status concat_column(const struct ArrowSchema *s, const struct qj_batch *b, int64_t nb,
                                   int c, int64_t total, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    out->release = NULL;
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    bool bin = t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_STRING ||
               t.id == BASALT_ARROW_TYPE_LARGE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
    bool large = t.id == BASALT_ARROW_TYPE_LARGE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
    bool simple = !s->dictionary && s->n_children == 0 &&
                  (t.id == BASALT_ARROW_TYPE_BOOL || bin || (t.bit_width > 0 && t.bit_width % 8 == 0));
    if (!simple || nb == 0)
        return nb == 0 ? basalt_qj_gather(s, NULL, 0, NULL, 0, out, err)
                       : concat_other(s, b, nb, c, total, out, err);
    st = basalt_arrow_array_init(out, bin ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    out->length = total;
    bool nulls = false;
    for (int64_t i = 0; i < nb; i++)
        nulls |= b[i].a.children[c]->null_count != 0 && b[i].a.children[c]->buffers[0];
    void *vmem = NULL, *dmem = NULL, *omem = NULL;
    int64_t null_count = 0;
    if (nulls) {
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(total), &vmem,
                                                err);
        if (st != BASALT_OK)
            goto fail;
    }
    size_t w = (size_t)(t.bit_width / 8);
    int64_t bytes = 0;
    if (bin) {
        for (int64_t i = 0; i < nb; i++) {
            const struct ArrowArray *a = b[i].a.children[c];
            int64_t p = a->offset + b[i].a.offset, n = b[i].a.length;
            if (n == 0)
                continue;
            bytes += large ? ((const int64_t *)a->buffers[1])[p + n] - ((const int64_t *)a->buffers[1])[p]
                           : (int64_t)((const int32_t *)a->buffers[1])[p + n] -
                                 ((const int32_t *)a->buffers[1])[p];
        }
        if (!large && bytes > INT32_MAX) {
            st = basalt_error_set(err, BASALT_LIMIT,
                                  "join: build column '%s' over 2^31-1 bytes; use large_utf8",
                                  s->name ? s->name : "");
            goto fail;
        }
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(total + 1) * (large ? 8 : 4),
                                                &omem, err);
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)bytes, &dmem, err);
    } else {
        st = basalt_arrow_array_allocate_buffer(
            out, 1, t.id == BASALT_ARROW_TYPE_BOOL ? (size_t)basalt_bitmap_bytes(total) : (size_t)total * w,
            &dmem, err);
    }
    if (st != BASALT_OK)
        goto fail;
    int64_t row = 0, pos = 0;
    for (int64_t i = 0; i < nb; i++) {
        const struct ArrowArray *a = b[i].a.children[c];
        int64_t p = a->offset + b[i].a.offset, n = b[i].a.length;
        if (nulls) {
            if (a->null_count != 0 && a->buffers[0]) {
                basalt_bitmap_copy(vmem, row, a->buffers[0], p, n);
                null_count += n - basalt_bitmap_count(a->buffers[0], p, n);
            } else {
                basalt_bitmap_fill(vmem, row, n, true);
            }
        }
        if (n == 0)
            continue;
        if (t.id == BASALT_ARROW_TYPE_BOOL) {
            basalt_bitmap_copy(dmem, row, a->buffers[1], p, n);
        } else if (bin) {
            int64_t s0 = large ? ((const int64_t *)a->buffers[1])[p] : ((const int32_t *)a->buffers[1])[p];
            for (int64_t r = 0; r < n; r++) {
                int64_t o = large ? ((const int64_t *)a->buffers[1])[p + r]
                                  : ((const int32_t *)a->buffers[1])[p + r];
                if (large)
                    ((int64_t *)omem)[row + r] = pos + o - s0;
                else
                    ((int32_t *)omem)[row + r] = (int32_t)(pos + o - s0);
            }
            int64_t e0 = large ? ((const int64_t *)a->buffers[1])[p + n]
                               : ((const int32_t *)a->buffers[1])[p + n];
            memcpy((uint8_t *)dmem + pos, (const uint8_t *)a->buffers[2] + s0, (size_t)(e0 - s0));
            pos += e0 - s0;
        } else {
            memcpy((uint8_t *)dmem + (size_t)row * w, (const uint8_t *)a->buffers[1] + (size_t)p * w,
                   (size_t)n * w);
        }
        row += n;
    }
    if (bin) {
        if (large)
            ((int64_t *)omem)[total] = pos;
        else
            ((int32_t *)omem)[total] = (int32_t)pos;
    }
    out->null_count = null_count;
    if (nulls && null_count == 0)
        basalt_arrow_array_set_buffer(out, 0, NULL, NULL);
    return BASALT_OK;
fail:
    basalt_arrow_array_release(out);
    return st;
}

static void concat_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct concat_ctx *x = ctx;
    for (int64_t c = begin; c < end; c++) {
        basalt_error_init(&x->errs[c]);
        x->st[c] = concat_column(x->s->children[c], x->b, x->n, (int)c, x->total,
                                 x->out->children[c], &x->errs[c]);
    }
}

basalt_status basalt_qj_concat(const struct ArrowSchema *s, const struct qj_batch *batches,
                               int64_t n, struct basalt_pool *pool, struct ArrowArray *out,
                               struct basalt_error *err)
{
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += batches[i].a.length;
    basalt_status st = basalt_arrow_array_init(out, 1, s->n_children, err);
    if (st != BASALT_OK)
        return st;
    out->length = total;
    int64_t nc = s->n_children;
    basalt_status *sts = basalt_calloc((size_t)(nc ? nc : 1), sizeof *sts);
    struct basalt_error *errs = basalt_calloc((size_t)(nc ? nc : 1), sizeof *errs);
    if (!sts || !errs) {
        basalt_free(sts);
        basalt_free(errs);
        basalt_arrow_array_release(out);
        return nomem(err);
    }
    struct concat_ctx x = {s, batches, n, total, out, sts, errs};
    basalt_pool_parallel_for(pool, 0, nc, 1, concat_task, &x);
    st = BASALT_OK;
    for (int64_t c = 0; c < nc && st == BASALT_OK; c++) {
        if (sts[c] != BASALT_OK) {
            st = sts[c];
            if (err)
                *err = errs[c];
        }
    }
    basalt_free(sts);
    basalt_free(errs);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}
