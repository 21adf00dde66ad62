/* The word index: tables whose key row is a NULL-mask word and one value
 * word (one key of at most 8 bytes, or a few narrow ones) index their rows
 * without NULLs by the value word itself, kept in the slot beside the group
 * id. A probe then touches one slot and never the key rows, and a chunk is
 * hashed in one pass and probed in a second with the slot of a row a few
 * ahead prefetched, so the cache misses of neighbouring rows overlap. Rows
 * with a NULL key go through the generic slots (agg_table.c); the hash is the
 * row hash of agg_table.c either way, so output order does not depend on
 * which index a group sits in. */
#include <string.h>

#include "agg/agg_internal.h"

/* How far ahead the probe loop prefetches: enough rows to cover a memory
 * latency at a few nanoseconds per hit. */
#define WORD_PREFETCH 16
#define WORD_PREFETCH_SLOTS (1u << 14) /* 256 KiB of slots */
#define WORD_SPARSE_SLOTS (1u << 16)   /* 1 MiB of slots */

static basalt_status wslots_resize(struct basalt_qagg_local *l, uint64_t n,
                                   struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    struct qagg_wslot *s = basalt_calloc((size_t)n, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    uint64_t mask = n - 1;
    const uint8_t *row = l->rows;
    for (int64_t g = 0; g < l->n_groups; g++, row += a->row_width) {
        uint64_t m, word;
        memcpy(&m, row, 8);
        if (m)
            continue;
        memcpy(&word, row + 8, 8);
        uint64_t pos = l->hashes[g] & mask;
        while (s[pos].gid1)
            pos = (pos + 1) & mask;
        s[pos].word = word;
        s[pos].gid1 = (uint32_t)(g + 1);
    }
    basalt_free(l->wslots);
    l->wslots = s;
    l->wmask = mask;
    return BASALT_OK;
}

static basalt_status grow_wslots(struct basalt_qagg_local *l, struct basalt_error *err)
{
    return wslots_resize(l, l->wslots ? (l->wmask + 1) * 2 : 1024, err);
}

/* Sizes an empty index for n groups, so filling it never rehashes. */
basalt_status basalt_qagg_word_reserve(struct basalt_qagg_local *l, int64_t n,
                                       struct basalt_error *err)
{
    uint64_t size = 1024;
    while (size < (uint64_t)n * (size <= WORD_SPARSE_SLOTS ? 4 : 2) + 4)
        size *= 2;
    if (l->in_wslots > 0 || (l->wslots && l->wmask + 1 >= size))
        return BASALT_OK;
    return wslots_resize(l, size, err);
}

static basalt_status word_add(struct basalt_qagg_local *l, uint64_t h, uint64_t word,
                              uint64_t pos, uint32_t *gid, struct basalt_error *err)
{
    uint8_t row[16];
    memset(row, 0, 8);
    memcpy(row + 8, &word, 8);
    basalt_status st = basalt_qagg_group_append(l, h, row, gid, err);
    if (st != BASALT_OK)
        return st;
    l->wslots[pos].word = word;
    l->wslots[pos].gid1 = *gid + 1;
    l->in_wslots++;
    /* A small index is kept at most a quarter full: a probe that meets
     * another key first is a mispredicted branch, dearer than the memory. */
    uint64_t fill = l->wmask < WORD_SPARSE_SLOTS ? 4 : 2;
    if ((uint64_t)l->in_wslots * fill > l->wmask + 1)
        return grow_wslots(l, err);
    return BASALT_OK;
}

basalt_status basalt_qagg_word_find_or_add(struct basalt_qagg_local *l, uint64_t h,
                                           uint64_t word, uint32_t *gid,
                                           struct basalt_error *err)
{
    basalt_status st;
    if (!l->wslots && (st = grow_wslots(l, err)) != BASALT_OK)
        return st;
    uint64_t mask = l->wmask, pos = h & mask;
    for (;;) {
        const struct qagg_wslot *s = &l->wslots[pos];
        if (!s->gid1)
            return word_add(l, h, word, pos, gid, err);
        if (s->word == word) {
            *gid = s->gid1 - 1;
            return BASALT_OK;
        }
        pos = (pos + 1) & mask;
    }
}

/* The value words of one key column without a row buffer: integers widen
 * with zero bits, as the key row holds them (64-bit ones are their own
 * words: *w points at the column). False for the other types. */
static bool words_direct(enum qagg_phys p, const struct qagg_col *c, int64_t n,
                         const uint64_t **w)
{
    uint64_t *out = (uint64_t *)(uintptr_t)*w;
    switch (p) {
    case QP_I64:
    case QP_U64: *w = (const uint64_t *)c->data + c->off; return true;
    case QP_I32:
    case QP_U32: {
        const uint32_t *d = (const uint32_t *)c->data + c->off;
        for (int64_t i = 0; i < n; i++)
            out[i] = d[i];
        return true;
    }
    case QP_I16:
    case QP_U16: {
        const uint16_t *d = (const uint16_t *)c->data + c->off;
        for (int64_t i = 0; i < n; i++)
            out[i] = d[i];
        return true;
    }
    case QP_I8:
    case QP_U8: {
        const uint8_t *d = (const uint8_t *)c->data + c->off;
        for (int64_t i = 0; i < n; i++)
            out[i] = d[i];
        return true;
    }
    default: return false;
    }
}

basalt_status basalt_qagg_word_rows(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                    int64_t n, struct basalt_error *err)
{
    struct basalt_qagg *a = l->agg;
    basalt_status st;
    const uint64_t *w = l->wbuf;
    uint64_t *h = l->hbuf;
    atomic_fetch_add_explicit(&a->word_batches, 1, memory_order_relaxed);
    uint32_t *gids = l->gids;
    /* Rows with a NULL key: a validity bitmap (direct words) or a nonzero
     * mask word in the encoded rows. */
    const struct qagg_col *direct = a->n_keys == 1 ? &keys[0] : NULL;
    if (direct && !words_direct(a->keys[0].phys, direct, n, &w))
        direct = NULL;
    bool nulls = direct ? direct->valid != NULL : false;
    if (!direct) {
        basalt_qagg_encode_rows(a, keys, n, l->rowbuf);
        for (int64_t i = 0; i < n; i++) {
            uint64_t m;
            memcpy(&m, l->rowbuf + 16 * i, 8);
            memcpy(&l->wbuf[i], l->rowbuf + 16 * i + 8, 8);
            nulls |= m != 0;
        }
    }
    for (int64_t i = 0; i < n; i++)
        h[i] = basalt_qagg_hash_word(a, w[i]);
    if (!l->wslots && (st = grow_wslots(l, err)) != BASALT_OK)
        return st;
    for (int64_t i = 0; i < n; i++) {
        /* a small index stays in cache: prefetching it costs more than it saves */
        if (i + WORD_PREFETCH < n && l->wmask >= WORD_PREFETCH_SLOTS)
            __builtin_prefetch(&l->wslots[h[i + WORD_PREFETCH] & l->wmask]);
        if (nulls) {
            uint8_t nrow[16];
            const uint8_t *row = NULL;
            if (direct && !basalt_qagg_valid(direct, i)) {
                uint64_t one = 1, zero = 0;
                memcpy(nrow, &one, 8);
                memcpy(nrow + 8, &zero, 8);
                row = nrow;
            } else if (!direct) {
                uint64_t m;
                memcpy(&m, l->rowbuf + 16 * i, 8);
                row = m ? l->rowbuf + 16 * i : NULL;
            }
            if (row) {
                st = basalt_qagg_find_or_add(l, basalt_qagg_hash_row(a, row), row, &gids[i],
                                             err);
                if (st != BASALT_OK)
                    return st;
                continue;
            }
        }
        uint64_t word = w[i], mask = l->wmask, pos = h[i] & mask;
        const struct qagg_wslot *ws = l->wslots;
        for (;;) {
            if (ws[pos].word == word && ws[pos].gid1) {
                gids[i] = ws[pos].gid1 - 1;
                break;
            }
            if (!ws[pos].gid1) {
                if ((st = word_add(l, h[i], word, pos, &gids[i], err)) != BASALT_OK)
                    return st;
                break;
            }
            pos = (pos + 1) & mask;
        }
    }
    return BASALT_OK;
}
