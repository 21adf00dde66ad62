/* Gathering sorted rows from many batches into one output batch, column by
 * column. Fixed-width values are copied with constant sizes and strings with
 * short inline copies (a call per value dominated the sort otherwise);
 * other types go through basalt_arrow_take_many. */
#include <string.h>

#include "sort/sort_impl.h"

#define PF 16 /* rows of prefetch distance */

struct gsrc {
    const uint8_t *valid; /* NULL: no nulls */
    const uint8_t *data;
    const uint8_t *bytes;
    int64_t off; /* physical slot of logical row 0 */
};

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static inline void copy_short(uint8_t *d, const uint8_t *s, int64_t n)
{
    if (n > 16) {
        memcpy(d, s, (size_t)n);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        d[i] = s[i];
}

static basalt_status gather_column(const struct ArrowSchema *s, const struct ArrowArray *arr,
                                   int64_t nb, int c, const int32_t *src, const int64_t *idx,
                                   int64_t n, struct gsrc *g, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    bool bin = t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_STRING ||
               t.id == BASALT_ARROW_TYPE_LARGE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
    bool large = t.id == BASALT_ARROW_TYPE_LARGE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
    bool fixed = t.bit_width > 0 && t.bit_width % 8 == 0 && t.id != BASALT_ARROW_TYPE_BOOL;
    if (s->dictionary || s->n_children != 0 || !(bin || fixed || t.id == BASALT_ARROW_TYPE_BOOL)) {
        /* Views of the columns, as take_many wants one array per source. */
        struct ArrowArray *cols = basalt_malloc((size_t)nb * sizeof *cols);
        int64_t *ix = basalt_malloc((size_t)(n ? n : 1) * sizeof *ix);
        if (!cols || !ix) {
            basalt_free(cols);
            basalt_free(ix);
            return nomem(err);
        }
        for (int64_t b = 0; b < nb; b++)
            cols[b] = *arr[b].children[c];
        for (int64_t k = 0; k < n; k++)
            ix[k] = arr[src[k]].offset + idx[k];
        st = basalt_arrow_take_many(s, cols, (int32_t)nb, src, ix, n, out, err);
        basalt_free(cols);
        basalt_free(ix);
        return st;
    }
    bool nulls = false;
    for (int64_t b = 0; b < nb; b++) {
        const struct ArrowArray *ch = arr[b].children[c];
        g[b].valid = ch->null_count != 0 ? ch->buffers[0] : NULL;
        g[b].data = ch->buffers[1];
        g[b].bytes = bin ? ch->buffers[2] : NULL;
        g[b].off = arr[b].offset + ch->offset;
        nulls |= g[b].valid != NULL;
    }
    st = basalt_arrow_array_init(out, bin ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    void *mem;
    if (nulls) {
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(n), &mem, err);
        if (st != BASALT_OK)
            goto fail;
        uint8_t *bits = mem;
        memset(bits, 0, (size_t)basalt_bitmap_bytes(n));
        int64_t nn = 0;
        for (int64_t k = 0; k < n; k++) {
            if (k + PF < n && g[src[k + PF]].valid)
                __builtin_prefetch(g[src[k + PF]].valid + ((g[src[k + PF]].off + idx[k + PF]) >> 3));
            const struct gsrc *x = &g[src[k]];
            bool ok = !x->valid || basalt_bitmap_get(x->valid, x->off + idx[k]);
            bits[k >> 3] |= (uint8_t)((unsigned)ok << (k & 7));
            nn += !ok;
        }
        out->null_count = nn;
        if (nn == 0)
            basalt_arrow_array_set_buffer(out, 0, NULL, NULL);
    }
    if (t.id == BASALT_ARROW_TYPE_BOOL) {
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)basalt_bitmap_bytes(n), &mem, err);
        if (st != BASALT_OK)
            goto fail;
        uint8_t *bits = mem;
        memset(bits, 0, (size_t)basalt_bitmap_bytes(n));
        for (int64_t k = 0; k < n; k++) {
            const struct gsrc *x = &g[src[k]];
            bits[k >> 3] |= (uint8_t)((unsigned)basalt_bitmap_get(x->data, x->off + idx[k]) << (k & 7));
        }
        return BASALT_OK;
    }
    if (fixed) {
        size_t w = (size_t)(t.bit_width / 8);
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * w, &mem, err);
        if (st != BASALT_OK)
            goto fail;
        uint8_t *dst = mem;
    /* Rows come in sort order, so every read misses: prefetch ahead. */
#define GATHER_W(W)                                                                          \
    for (int64_t k = 0; k < n; k++) {                                                        \
        if (k + PF < n) {                                                                    \
            const struct gsrc *y = &g[src[k + PF]];                                          \
            __builtin_prefetch(y->data + (W) * (size_t)(y->off + idx[k + PF]));              \
        }                                                                                    \
        const struct gsrc *x = &g[src[k]];                                                   \
        memcpy(dst + (W) * (size_t)k, x->data + (W) * (size_t)(x->off + idx[k]), (W));       \
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
    void *omem, *dmem;
    st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(n + 1) * (large ? 8 : 4), &omem, err);
    if (st != BASALT_OK)
        goto fail;
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
        if (k + PF < n) {
            const struct gsrc *y = &g[src[k + PF]];
            __builtin_prefetch(y->data + (large ? 8 : 4) * (size_t)(y->off + idx[k + PF]));
        }
        const struct gsrc *x = &g[src[k]];
        int64_t p = x->off + idx[k];
        total += large ? ((const int64_t *)x->data)[p + 1] - ((const int64_t *)x->data)[p]
                       : (int64_t)((const int32_t *)x->data)[p + 1] - ((const int32_t *)x->data)[p];
    }
    if (!large && total > INT32_MAX) {
        st = basalt_error_set(err, BASALT_LIMIT, "sort output: a string column over 2^31-1 bytes "
                                                 "in one batch");
        goto fail;
    }
    st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)total, &dmem, err);
    if (st != BASALT_OK)
        goto fail;
    uint8_t *d = dmem;
    int64_t pos = 0;
    for (int64_t k = 0; k < n; k++) {
        if (k + PF / 2 < n) {
            /* The offsets were read by the sizing pass: fetch the bytes. */
            const struct gsrc *y = &g[src[k + PF / 2]];
            int64_t q = y->off + idx[k + PF / 2];
            __builtin_prefetch(y->bytes + (large ? ((const int64_t *)y->data)[q]
                                                 : ((const int32_t *)y->data)[q]));
        }
        const struct gsrc *x = &g[src[k]];
        int64_t p = x->off + idx[k], s0, e0;
        if (large) {
            s0 = ((const int64_t *)x->data)[p];
            e0 = ((const int64_t *)x->data)[p + 1];
            ((int64_t *)omem)[k] = pos;
        } else {
            s0 = ((const int32_t *)x->data)[p];
            e0 = ((const int32_t *)x->data)[p + 1];
            ((int32_t *)omem)[k] = (int32_t)pos;
        }
        copy_short(d + pos, x->bytes + s0, e0 - s0);
        pos += e0 - s0;
    }
    if (large)
        ((int64_t *)omem)[n] = pos;
    else
        ((int32_t *)omem)[n] = (int32_t)pos;
    return BASALT_OK;
fail:
    basalt_arrow_array_release(out);
    return st;
}

basalt_status basalt_qs_gather(const struct ArrowSchema *schema, const struct ArrowArray *arr,
                               int64_t nb, const int32_t *src, const int64_t *idx, int64_t n,
                               struct ArrowArray *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(out, 1, schema->n_children, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    struct gsrc *g = basalt_malloc((size_t)(nb ? nb : 1) * sizeof *g);
    if (!g) {
        basalt_arrow_array_release(out);
        return nomem(err);
    }
    for (int64_t c = 0; c < schema->n_children && st == BASALT_OK; c++)
        st = gather_column(schema->children[c], arr, nb, (int)c, src, idx, n, g, out->children[c],
                           err);
    basalt_free(g);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}
