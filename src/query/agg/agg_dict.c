/* Group keys that arrive as dictionary arrays (Parquet dictionary pages kept
 * as indices: plan/run_aggregate.c asks the scan for them when every key is
 * a string column read straight from Parquet).
 *
 * When the combinations of the keys' indices are few next to the batch's
 * rows (H2O's id1 and id2: 100 values each), a row's group follows from its
 * indices alone: each combination met is encoded from the dictionaries'
 * strings, hashed and looked up once, and the rows only index a map from
 * the combination's code to its group. Otherwise (a dictionary of 100,000
 * ids) the string encoder reads each row's string through its index
 * (agg_strkey.c), which still skips the gather of the strings that the
 * reader would have done. Either way the groups and their hashes are those
 * the strings give, so the output is the same bits, in the same order, as
 * without dictionaries. */
#include <string.h>

#include "agg/agg_internal.h"

/* The map has at most this many codes, and at most a quarter of the batch's
 * rows: each code met costs a lookup in the hash table, and the map is
 * cleared per batch. */
#define DICT_MAX_CODES (1 << 20)

/* A NULL key's column: one invalid row of an empty string. */
static const uint8_t null_valid = 0;
static const int32_t null_offsets[2] = {0, 0};

static basalt_status bad_index(int64_t row, int32_t ix, int64_t len, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "aggregate: row %lld: dictionary index %d outside its %lld values",
                            (long long)row, (int)ix, (long long)len);
}

basalt_status basalt_qagg_dict_col_init(const struct ArrowArray *x, bool large, int64_t n,
                                        struct qagg_col *c, struct basalt_error *err)
{
    const struct ArrowArray *d = x->dictionary;
    memset(c, 0, sizeof *c);
    if (x->n_buffers != 2 || !x->buffers || x->offset < 0 || d->n_buffers != 3 || !d->buffers ||
        d->offset < 0 || d->length < 0 || (n > 0 && !x->buffers[1]) ||
        (d->length > 0 && (!d->buffers[1] || !d->buffers[2])))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "aggregate: a key's dictionary array is not int32 indices over "
                                "strings");
    if (x->length < n)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "aggregate: array of %lld rows for a batch of %lld",
                                (long long)x->length, (long long)n);
    c->valid = d->null_count != 0 ? d->buffers[0] : NULL;
    c->data = d->buffers[1];
    c->sdata = d->buffers[2];
    c->off = d->offset;
    c->large = large;
    c->index = x->buffers[1];
    c->ivalid = x->null_count != 0 ? x->buffers[0] : NULL;
    c->ioff = x->offset;
    c->dict_len = d->length;
    /* Every index a valid row reads must name a value (NULL rows may hold
     * anything): one pass, branch-free without NULLs. */
    const int32_t *ix = c->index + c->ioff;
    uint32_t len = (uint32_t)(d->length < INT32_MAX ? d->length : INT32_MAX);
    if (!c->ivalid) {
        uint32_t bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad |= (uint32_t)ix[i] >= len;
        if (!bad)
            return BASALT_OK;
    }
    for (int64_t i = 0; i < n; i++)
        if ((!c->ivalid || basalt_bitmap_get(c->ivalid, c->ioff + i)) && (uint32_t)ix[i] >= len)
            return bad_index(i, ix[i], d->length, err);
    return BASALT_OK;
}

/* Whether n rows of keys with dictionaries of these lengths go through the
 * map; *codes its size. */
static bool codes_fit(const struct basalt_qagg *a, const int64_t *dict_len, int64_t n,
                      int64_t *codes, int64_t *stride)
{
    int64_t limit = n / 4 < DICT_MAX_CODES ? n / 4 : DICT_MAX_CODES;
    *codes = 1;
    if (!a->str_keys)
        return false;
    for (int k = 0; k < a->n_keys; k++) {
        if (dict_len[k] < 0)
            return false;
        stride[k] = *codes;
        *codes *= dict_len[k] + 1; /* the last code: NULL */
        if (*codes > limit)
            return false;
    }
    return true;
}

bool basalt_qagg_dictionary_batch(const struct basalt_qagg *agg,
                                  const struct ArrowArray *const *keys, int64_t n_rows)
{
    int64_t len[QAGG_STR_KEYS_MAX], codes, stride[QAGG_STR_KEYS_MAX];
    if (!agg || !keys || agg->n_keys < 1 || agg->n_keys > QAGG_STR_KEYS_MAX)
        return false;
    for (int k = 0; k < agg->n_keys; k++) {
        if (!keys[k] || !keys[k]->dictionary)
            return false;
        len[k] = keys[k]->dictionary->length;
    }
    return codes_fit(agg, len, n_rows, &codes, stride);
}

basalt_status basalt_qagg_dict_codes(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                     int64_t n, struct qagg_dict_codes *dc,
                                     struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    int64_t len[QAGG_STR_KEYS_MAX];
    memset(dc, 0, sizeof *dc);
    if (a->n_keys > QAGG_STR_KEYS_MAX)
        return BASALT_OK;
    for (int k = 0; k < a->n_keys; k++)
        len[k] = keys[k].index ? keys[k].dict_len : -1;
    if (!codes_fit(a, len, n, &dc->codes, dc->stride))
        return BASALT_OK;
    if ((size_t)dc->codes > l->dict_cap) {
        basalt_free(l->dict_map);
        l->dict_cap = 0;
        l->dict_map = basalt_malloc((size_t)dc->codes * sizeof *l->dict_map);
        if (!l->dict_map)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        l->dict_cap = (size_t)dc->codes;
    }
    memset(l->dict_map, 0, (size_t)dc->codes * sizeof *l->dict_map);
    dc->use = true;
    return BASALT_OK;
}

/* The group of code `code`: its key encoded from the dictionaries' values
 * (or NULL), found or added, and remembered in the map. */
static basalt_status first_of_code(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                   const struct qagg_dict_codes *dc, uint64_t code,
                                   uint32_t *g1, struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    struct qagg_col cols[QAGG_STR_KEYS_MAX];
    uint8_t row[8 + 16 * QAGG_STR_KEYS_MAX];
    uint64_t h;
    for (int k = 0; k < a->n_keys; k++) {
        int64_t len = keys[k].dict_len;
        int64_t ix = (int64_t)(code / (uint64_t)dc->stride[k] % (uint64_t)(len + 1));
        /* the dictionary's value ix as a plain one-row column, or NULL */
        cols[k] = keys[k];
        cols[k].index = NULL;
        cols[k].off += ix;
        if (ix == len)
            cols[k] = (struct qagg_col){.valid = &null_valid, .data = null_offsets, .sdata = ""};
    }
    basalt_qagg_str_encode(a, cols, 1, row, &h);
    uint32_t g;
    basalt_status st = basalt_qagg_find_or_add(l, h, row, &g, err);
    if (st != BASALT_OK)
        return st;
    *g1 = g + 1;
    l->dict_map[code] = *g1;
    return BASALT_OK;
}

basalt_status basalt_qagg_dict_rows(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                    const struct qagg_dict_codes *dc, int64_t n,
                                    struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    basalt_status st;
    const uint32_t *map = l->dict_map;
    if (a->n_keys == 1 && !keys[0].ivalid) {
        /* One key without NULLs (H2O's id1): a load and a lookup a row. */
        const int32_t *idx = keys[0].index + keys[0].ioff;
        for (int64_t i = 0; i < n; i++) {
            uint32_t g1 = map[idx[i]];
            if (!g1 && (st = first_of_code(l, keys, dc, (uint64_t)idx[i], &g1, err)) != BASALT_OK)
                return st;
            l->gids[i] = g1 - 1;
        }
        return BASALT_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t code = 0;
        for (int k = 0; k < a->n_keys; k++) {
            const struct qagg_col *c = &keys[k];
            bool null = c->ivalid && !basalt_bitmap_get(c->ivalid, c->ioff + i);
            code += (null ? c->dict_len : c->index[c->ioff + i]) * dc->stride[k];
        }
        uint32_t g1 = map[code];
        if (!g1 && (st = first_of_code(l, keys, dc, (uint64_t)code, &g1, err)) != BASALT_OK)
            return st;
        l->gids[i] = g1 - 1;
    }
    return BASALT_OK;
}

static void borrowed_release(struct ArrowArray *a)
{
    a->release = NULL;
}

basalt_status basalt_qagg_key_decode(const struct basalt_qagg *agg, int k,
                                    const struct ArrowArray *x, struct ArrowArray *out,
                                    struct basalt_error *err)
{
    if (!agg || k < 0 || k >= agg->n_keys || !x || !x->dictionary || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: not a dictionary key");
    /* Consume borrows its arrays, which may be views without a release
     * callback; the decoder reads buffers only but wants live arrays. */
    struct ArrowArray view = *x, dict = *x->dictionary;
    view.release = dict.release = borrowed_release;
    view.dictionary = &dict;
    x = &view;
    struct ArrowSchema type, values;
    basalt_status st = basalt_arrow_schema_init(&type, "i", "", ARROW_FLAG_NULLABLE, 0, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_schema_init(&values, agg->keys[k].format, "", ARROW_FLAG_NULLABLE, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_dictionary(&type, &values, err); /* takes values */
    if (st == BASALT_OK)
        st = basalt_arrow_dictionary_decode(&type, x, out, err);
    basalt_arrow_schema_release(&type);
    return st;
}
