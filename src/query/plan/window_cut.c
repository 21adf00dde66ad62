/* The cut of a limited window (plan/run_window_limit.c): after a pruning,
 * the order key of each partition's K-th survivor. A new row whose order
 * key is strictly worse than its partition's cut can never be among the
 * first K rows of that partition, so it is dropped before it is held, at
 * the cost of a hash lookup instead of a sort. Ties with the cut are kept
 * (input order decides ties, and a new row may come earlier in the input
 * than the survivor). Only keys of fixed-width number and time types take
 * part; a row whose order key is NULL or NaN is always kept, and a
 * partition whose K-th survivor has one gets no cut: where those sort is
 * the sort's to say. */
#include <math.h>
#include <string.h>

#include "plan/window_cut.h"

struct basalt_qwin_cut {
    struct basalt_qwin_keycol part[64], order[64];
    int n_part, n_order;
    int64_t limit;
    /* open addressing: per slot, used, then n_part values, a validity
     * mask, and n_order cut values */
    uint64_t *slots;
    uint8_t *used;
    int64_t cap, n;
    int words; /* per slot */
};

static bool kind_of(const struct ArrowSchema *field, struct basalt_qwin_keycol *c)
{
    struct basalt_arrow_type t;
    if (field->dictionary != NULL || basalt_arrow_type_parse(field->format, &t, NULL) != BASALT_OK)
        return false;
    switch (t.id) {
    case BASALT_ARROW_TYPE_INT8: c->kind = QWIN_KEY_SIGNED; c->width = 1; return true;
    case BASALT_ARROW_TYPE_INT16: c->kind = QWIN_KEY_SIGNED; c->width = 2; return true;
    case BASALT_ARROW_TYPE_INT32:
    case BASALT_ARROW_TYPE_DATE32:
    case BASALT_ARROW_TYPE_TIME32: c->kind = QWIN_KEY_SIGNED; c->width = 4; return true;
    case BASALT_ARROW_TYPE_INT64:
    case BASALT_ARROW_TYPE_DATE64:
    case BASALT_ARROW_TYPE_TIME64:
    case BASALT_ARROW_TYPE_TIMESTAMP:
    case BASALT_ARROW_TYPE_DURATION: c->kind = QWIN_KEY_SIGNED; c->width = 8; return true;
    case BASALT_ARROW_TYPE_UINT8: c->kind = QWIN_KEY_UNSIGNED; c->width = 1; return true;
    case BASALT_ARROW_TYPE_UINT16: c->kind = QWIN_KEY_UNSIGNED; c->width = 2; return true;
    case BASALT_ARROW_TYPE_UINT32: c->kind = QWIN_KEY_UNSIGNED; c->width = 4; return true;
    case BASALT_ARROW_TYPE_UINT64: c->kind = QWIN_KEY_UNSIGNED; c->width = 8; return true;
    case BASALT_ARROW_TYPE_FLOAT: c->kind = QWIN_KEY_FLOAT; c->width = 4; return true;
    case BASALT_ARROW_TYPE_DOUBLE: c->kind = QWIN_KEY_DOUBLE; c->width = 8; return true;
    default: return false;
    }
}

bool basalt_qwin_key_value(const struct basalt_qwin_keycol *c, const struct ArrowArray *a,
                           int64_t i, bool order, uint64_t *out, bool *nan)
{
    int64_t k = a->offset + i;
    const uint8_t *valid = a->buffers[0];
    *nan = false;
    if (valid != NULL && a->null_count != 0 && !basalt_bitmap_get(valid, k))
        return false;
    const uint8_t *p = (const uint8_t *)a->buffers[1] + k * c->width;
    switch (c->kind) {
    case QWIN_KEY_SIGNED: {
        int64_t v = c->width == 1 ? *(const int8_t *)p
                    : c->width == 2 ? *(const int16_t *)p
                    : c->width == 4 ? *(const int32_t *)p
                                    : *(const int64_t *)p;
        *out = (uint64_t)v ^ (order ? UINT64_C(1) << 63 : 0);
        return true;
    }
    case QWIN_KEY_UNSIGNED:
        *out = c->width == 1 ? *p
               : c->width == 2 ? *(const uint16_t *)p
               : c->width == 4 ? *(const uint32_t *)p
                               : *(const uint64_t *)p;
        return true;
    case QWIN_KEY_FLOAT:
    case QWIN_KEY_DOUBLE: {
        double d = c->kind == QWIN_KEY_FLOAT ? *(const float *)p : *(const double *)p;
        if (isnan(d)) {
            *nan = true;
            *out = UINT64_C(0x7ff8000000000000);
            return !order;
        }
        if (order) {
            *out = basalt_qs_float_image(d, false);
            return true;
        }
        if (d == 0.0)
            d = 0.0; /* partitions: -0.0 is 0.0 */
        memcpy(out, &d, 8);
        return true;
    }
    }
    return false;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    return h * UINT64_C(0xff51afd7ed558ccd);
}

bool basalt_qwin_keycol_init(const struct ArrowSchema *schema, int column,
                             struct basalt_qwin_keycol *out)
{
    memset(out, 0, sizeof *out);
    out->column = column;
    return kind_of(schema->children[column], out);
}

void basalt_qwin_keycols_init(const struct ArrowSchema *schema, const int *part_cols, int n_part,
                              const struct basalt_qsort_key *order, int n_order,
                              struct basalt_qwin_keycol *part, struct basalt_qwin_keycol *order_out)
{
    for (int i = 0; i < n_part; i++)
        basalt_qwin_keycol_init(schema, part_cols[i], &part[i]);
    for (int i = 0; i < n_order; i++) {
        basalt_qwin_keycol_init(schema, order[i].column, &order_out[i]);
        order_out[i].desc = order[i].descending;
        order_out[i].nulls_first = order[i].nulls_first;
    }
}

bool basalt_qwin_cut_applies(const struct ArrowSchema *schema, const int *part_cols, int n_part,
                             const struct basalt_qsort_key *order, int n_order)
{
    struct basalt_qwin_keycol c;
    if (n_part > 64 || n_order > 64 || n_order == 0)
        return false;
    for (int i = 0; i < n_part; i++)
        if (!kind_of(schema->children[part_cols[i]], &c))
            return false;
    for (int i = 0; i < n_order; i++)
        if (!kind_of(schema->children[order[i].column], &c))
            return false;
    return true;
}

uint64_t basalt_qwin_part_key(const struct basalt_qwin_keycol *part, int n_part,
                              const struct ArrowArray *batch, int64_t i, uint64_t *key)
{
    uint64_t h = UINT64_C(0x243f6a8885a308d3), mask = 0;
    for (int k = 0; k < n_part; k++) {
        bool nan;
        uint64_t v = 0;
        if (basalt_qwin_key_value(&part[k], batch->children[part[k].column], i, false, &v, &nan))
            mask |= UINT64_C(1) << k;
        else
            v = 0;
        key[k] = v;
        h = mix(h, v);
    }
    key[n_part] = mask;
    return mix(h, mask);
}

static uint64_t part_key(const struct basalt_qwin_cut *c, const struct ArrowArray *batch,
                         int64_t i, uint64_t *key)
{
    return basalt_qwin_part_key(c->part, c->n_part, batch, i, key);
}

static bool same_part(const struct basalt_qwin_cut *c, const uint64_t *a, const uint64_t *b)
{
    for (int k = 0; k <= c->n_part; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

/* The slot of a partition tuple: its own, or the empty one it would take. */
static int64_t find(const struct basalt_qwin_cut *c, const uint64_t *key, uint64_t h)
{
    int64_t s = (int64_t)(h & (uint64_t)(c->cap - 1));
    while (c->used[s] && !same_part(c, &c->slots[s * c->words], key))
        s = (s + 1) & (c->cap - 1);
    return s;
}

basalt_status basalt_qwin_cut_new(const struct ArrowSchema *schema, const int *part_cols,
                                  int n_part, const struct basalt_qsort_key *order, int n_order,
                                  int64_t limit, struct basalt_qwin_cut **out,
                                  struct basalt_error *err)
{
    struct basalt_qwin_cut *c = basalt_calloc(1, sizeof *c);
    if (c == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    c->n_part = n_part;
    c->n_order = n_order;
    c->limit = limit;
    c->words = n_part + 1 + n_order;
    basalt_qwin_keycols_init(schema, part_cols, n_part, order, n_order, c->part, c->order);
    *out = c;
    return BASALT_OK;
}

void basalt_qwin_cut_free(struct basalt_qwin_cut *c)
{
    if (c == NULL)
        return;
    basalt_free(c->slots);
    basalt_free(c->used);
    basalt_free(c);
}

basalt_status basalt_qwin_cut_set(struct basalt_qwin_cut *c, const struct basalt_arrow_batches *sorted,
                                  struct basalt_error *err)
{
    int64_t rows = 0;
    for (int64_t b = 0; b < sorted->n; b++)
        rows += sorted->arrays[b].length;
    /* at most one cut per K rows; room for twice that */
    int64_t want = 16;
    while (want < 2 * (rows / (c->limit > 0 ? c->limit : 1) + 1))
        want *= 2;
    basalt_free(c->slots);
    basalt_free(c->used);
    c->slots = basalt_malloc((size_t)(want * c->words) * sizeof *c->slots);
    c->used = basalt_calloc((size_t)want, 1);
    c->cap = want;
    c->n = 0;
    if (c->slots == NULL || c->used == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint64_t key[66], prev[66];
    int64_t in_part = 0;
    bool first = true;
    for (int64_t b = 0; b < sorted->n; b++) {
        const struct ArrowArray *batch = &sorted->arrays[b];
        for (int64_t i = 0; i < batch->length; i++) {
            uint64_t h = part_key(c, batch, batch->offset + i, key);
            if (first || !same_part(c, key, prev)) {
                memcpy(prev, key, (size_t)(c->n_part + 1) * 8);
                in_part = 0;
                first = false;
            }
            if (++in_part != c->limit)
                continue;
            uint64_t *cut = &key[c->n_part + 1];
            bool usable = true;
            for (int k = 0; k < c->n_order && usable; k++) {
                bool nan;
                usable = basalt_qwin_key_value(&c->order[k], batch->children[c->order[k].column],
                                  batch->offset + i, true, &cut[k], &nan);
            }
            if (!usable)
                continue;
            int64_t s = find(c, key, h);
            if (!c->used[s]) {
                c->used[s] = 1;
                c->n++;
            }
            memcpy(&c->slots[s * c->words], key, (size_t)c->words * 8);
        }
    }
    return BASALT_OK;
}

int64_t basalt_qwin_cut_keep(const struct basalt_qwin_cut *c, const struct ArrowArray *batch,
                             int64_t *keep)
{
    int64_t n = 0;
    uint64_t key[66];
    for (int64_t i = 0; i < batch->length; i++) {
        bool drop = false;
        if (c->n > 0) {
            uint64_t h = part_key(c, batch, batch->offset + i, key);
            int64_t s = find(c, key, h);
            if (c->used[s]) {
                const uint64_t *cut = &c->slots[s * c->words + c->n_part + 1];
                for (int k = 0; k < c->n_order; k++) {
                    bool nan;
                    uint64_t v;
                    if (!basalt_qwin_key_value(&c->order[k], batch->children[c->order[k].column],
                                  batch->offset + i, true, &v, &nan))
                        break; /* NULL or NaN: the sort places it; keep */
                    if (v == cut[k])
                        continue;
                    /* ascending: larger is later; descending: smaller */
                    drop = c->order[k].desc ? v < cut[k] : v > cut[k];
                    break;
                }
            }
        }
        if (!drop)
            keep[n++] = i;
    }
    return n;
}
