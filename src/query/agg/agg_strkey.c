/* Keys that are all strings (TPC-H Q1's two flags, H2O's id1/id2), plain or
 * dictionary columns (agg_dict.c): the chunk's key rows and their hashes in
 * one tight pass, without the generic encoder's per-row type switch or the
 * generic hash's per-word pointer checks. A string's first 16 bytes are read
 * as two words (masked to its length) when the column's data covers them;
 * the rows and hashes are exactly those of basalt_qagg_encode_rows and
 * hash_row over the same strings. */
#include <string.h>

#include "agg/agg_internal.h"
#include "basalt/hash.h"

/* The bytes of column c the chunk is known to have: up to the end of its
 * last string (a dictionary's last value). */
static int64_t covered(const struct qagg_col *c, int64_t n)
{
    const char *p;
    int64_t len, last = c->index ? c->dict_len - 1 : n - 1;
    if (last < 0)
        return 0;
    basalt_qagg_str_get(c, last, &p, &len);
    return (p - c->sdata) + len;
}

/* Value i's two words for a valid string of column c (header: length and
 * first 4 bytes; then the next 8 bytes, or the pointer of a long string)
 * and the value the row hash takes for the second. */
static inline void str_words(const struct qagg_col *c, int64_t i, int64_t limit, uint64_t *w1,
                             uint64_t *w2, uint64_t *hv)
{
    const char *p;
    int64_t len;
    basalt_qagg_str_get(c, i, &p, &len);
    uint64_t b0 = 0, b1 = 0;
    if ((p - c->sdata) + 16 <= limit) {
        memcpy(&b0, p, 8);
        memcpy(&b1, p + 8, 8);
    } else {
        uint8_t tmp[16] = {0};
        memcpy(tmp, p, (size_t)(len < 16 ? len : 16));
        memcpy(&b0, tmp, 8);
        memcpy(&b1, tmp + 8, 8);
    }
    if (len <= QAGG_STR_INLINE) {
        b0 &= len >= 8 ? ~0ull : (1ull << (8 * len)) - 1;
        b1 &= len <= 8 ? 0 : (1ull << (8 * (len - 8))) - 1;
        *w2 = b0 >> 32 | b1 << 32;
        *hv = *w2;
    } else {
        memcpy(w2, &p, sizeof p);
        *hv = basalt_hash_xxh64(p, (size_t)len, 0);
    }
    *w1 = (uint64_t)(uint32_t)len | b0 << 32;
}

/* The chunk's rows and hashes for nk keys; inlined with nk a constant for
 * one and two keys, so their loops keep everything in registers (the
 * generic loop added 5 instructions a row to one key), and with `indexed`
 * when some key is a dictionary column (its rows read their values
 * through their indices). */
static inline __attribute__((always_inline)) void
encode_chunk(const struct basalt_qagg *a, const struct qagg_col *keys, int nk, bool indexed,
             int64_t n, const int64_t *limit, uint8_t *rows, uint64_t *hashes)
{
    size_t w = (size_t)a->row_width;
    for (int64_t i = 0; i < n; i++) {
        uint8_t *row = rows + (size_t)i * w;
        uint64_t nulls = 0, h1[QAGG_STR_KEYS_MAX], hv[QAGG_STR_KEYS_MAX];
        for (int k = 0; k < nk; k++) {
            uint64_t w1 = 0, w2 = 0;
            hv[k] = 0;
            int64_t j = i;
            if (indexed ? basalt_qagg_row_at(&keys[k], i, &j) : basalt_qagg_valid(&keys[k], i))
                str_words(&keys[k], j, limit[k], &w1, &w2, &hv[k]);
            else
                nulls |= 1ull << k;
            /* all-string rows: the mask word, then 16 bytes a key */
            memcpy(row + 8 + 16 * (size_t)k, &w1, 8);
            memcpy(row + 16 + 16 * (size_t)k, &w2, 8);
            h1[k] = w1;
        }
        memcpy(row, &nulls, 8);
        uint64_t h = basalt_qagg_hash_step(0x9e3779b97f4a7c15ull, nulls);
        for (int k = 0; k < nk; k++)
            h = basalt_qagg_hash_step(basalt_qagg_hash_step(h, h1[k]), hv[k]);
        hashes[i] = basalt_qagg_fmix64(h);
    }
}

void basalt_qagg_str_encode(const struct basalt_qagg *a, const struct qagg_col *keys, int64_t n,
                            uint8_t *rows, uint64_t *hashes)
{
    int nk = a->n_keys;
    if (n <= 0)
        return;
    int64_t limit[QAGG_STR_KEYS_MAX];
    bool indexed = false;
    for (int k = 0; k < nk; k++) {
        limit[k] = covered(&keys[k], n);
        indexed |= keys[k].index != NULL;
    }
    if (indexed) {
        if (nk == 1)
            encode_chunk(a, keys, 1, true, n, limit, rows, hashes);
        else
            encode_chunk(a, keys, nk, true, n, limit, rows, hashes);
    } else if (nk == 1) {
        encode_chunk(a, keys, 1, false, n, limit, rows, hashes);
    } else if (nk == 2) {
        encode_chunk(a, keys, 2, false, n, limit, rows, hashes);
    } else {
        encode_chunk(a, keys, nk, false, n, limit, rows, hashes);
    }
}
