/* Sort internals: key columns, the normalised key layout, records and the
 * radix sort shared by the sort files.
 *
 * A record is S = K + 2 words: the K key words (unsigned order = sort
 * order), a tag (seq or batch index << 32 | row: the stable tie-break) and a
 * ref (index of the row's batch in the batch table the sort reads). */
#ifndef BASALT_QUERY_SORT_IMPL_H
#define BASALT_QUERY_SORT_IMPL_H

#include <stdatomic.h>
#include <string.h>

#include "sort/sort.h"

enum qs_kind { QSK_INT, QSK_UINT, QSK_FLOAT, QSK_DOUBLE, QSK_DEC, QSK_BOOL, QSK_INTERVAL, QSK_BYTES };

struct qs_key {
    int column;
    bool desc, nulls_first;
    enum qs_kind kind;
    int width;   /* value bytes (BYTES: the prefix length) */
    bool large;  /* BYTES: 64-bit offsets */
};

/* Where each key sits in the normalised key (byte offsets), for one sort. */
struct qs_layout {
    int off[64];      /* byte offset of the key's NULL byte or value; -1: not encoded */
    bool null_byte[64];
    int width[64];    /* value bytes (BYTES: the prefix) */
    int bytes;        /* key bytes used */
    int K;            /* key words */
    int tail_from;    /* first key compared on full values after the words tie; -1: none */
};

struct basalt_qsort {
    struct ArrowSchema schema;
    struct qs_key *keys;
    int n_keys;
    int64_t limit, offset;
    struct qs_layout topk_layout; /* every key with its NULL byte */
    atomic_llong rows_sorted, key_words, radix_passes, skipped_bytes, tie_compares, topk_dropped;
};

struct basalt_qsort_local {
    struct basalt_qsort *s;
    struct ArrowArray *arr; /* batches (full sort: all; top-k: those holding candidates) */
    int64_t *seq;
    int64_t n, cap;
    /* top-k */
    uint64_t *rec;
    int64_t n_rec, cap_rec;
    uint64_t *thr; /* the k-th record after the last prune; NULL until there is one */
    int64_t *sel;  /* prefilter scratch, kept between batches */
    int64_t sel_cap;
};

/* What a comparison of records needs. */
struct qs_ctx {
    const struct basalt_qsort *s;
    const struct qs_layout *lay;
    const struct ArrowArray *arr; /* batch table indexed by ref */
    int K, S;
    int nbytes; /* radix bytes: key bytes, then the tag's when no tail */
    uint8_t constant[64 * 8 + 8]; /* bytes equal in every record */
    int64_t passes, skipped, ties; /* per call; summed into the stats */
};

/* sort_keys.c */
basalt_status basalt_qs_key_init(const struct ArrowSchema *col, struct qs_key *k,
                                 struct basalt_error *err);
/* nullable[k]: the key gets a NULL byte. prefix[k] (BYTES keys): the
 * prefix length, negative when the prefix holds every value whole (no value
 * longer, none with a zero byte): then it decides the order and later keys
 * are encoded too. */
void basalt_qs_layout(const struct qs_key *keys, int n_keys, const bool *nullable,
                      const int *prefix, struct qs_layout *lay);
/* Longest value of BYTES key column `col` over the batches and whether any
 * value holds a zero byte. */
void basalt_qs_bytes_stats(const struct ArrowArray *arr, int64_t n, int col, bool large,
                           int64_t *max_len, bool *has_zero);
/* Encodes one row `row` of `a` into rec (S words). */
void basalt_qs_encode_row(const struct basalt_qsort *s, const struct qs_layout *lay,
                          const struct ArrowArray *a, int64_t row, uint64_t tag_hi, uint64_t ref,
                          uint64_t *rec);
/* Top-k prefilter: the order-preserving 64-bit image of key 0 of row `row`
 * of `a` (ascending order of the key's values, DESC not applied); false
 * when the key is NULL or not a number. */
bool basalt_qs_key0_image(const struct basalt_qsort *s, const struct ArrowArray *a, int64_t row,
                          uint64_t *out);
/* Writes to sel (a->length entries) the rows of `a`, ascending, whose key 0
 * can sort at or before a row whose key 0 image is `thr` (NULLs by their
 * placement). Returns how many, or -1 when key 0 is not a number. */
int64_t basalt_qs_prefilter(const struct basalt_qsort *s, const struct ArrowArray *a, uint64_t thr,
                            int64_t *sel);
/* Record copies with the common sizes spelled out, so that they compile to
 * a few moves instead of a call to memmove. */
/* When key 0 of `a` is a number with no NULLs: the image of the k-th row of
 * `a` in key 0's order (every row of the batch's first k by all keys has an
 * image at or before it). scratch: a->length words. */
bool basalt_qs_batch_threshold(const struct basalt_qsort *s, const struct ArrowArray *a, int64_t k,
                               uint64_t *scratch, uint64_t *thr);
static inline void basalt_qs_rcopy(uint64_t *d, const uint64_t *s, int S)
{
    switch (S) {
    case 3: memcpy(d, s, 24); break;
    case 4: memcpy(d, s, 32); break;
    case 5: memcpy(d, s, 40); break;
    case 6: memcpy(d, s, 48); break;
    default: memcpy(d, s, (size_t)S * 8); break;
    }
}
/* Encodes rows [0, a->length) of struct batch `a` into rec (S words each). */
void basalt_qs_encode(const struct basalt_qsort *s, const struct qs_layout *lay,
                      const struct ArrowArray *a, uint64_t tag_hi, uint64_t ref, uint64_t *rec);
/* Full-value comparison of keys [tail_from, n) of two records' rows. */
int basalt_qs_tie(struct qs_ctx *c, const uint64_t *a, const uint64_t *b);
static inline int basalt_qs_cmp(struct qs_ctx *c, const uint64_t *a, const uint64_t *b, int from)
{
    for (int w = from; w < c->K; w++)
        if (a[w] != b[w])
            return a[w] < b[w] ? -1 : 1;
    if (c->lay->tail_from >= 0) {
        int t = basalt_qs_tie(c, a, b);
        if (t)
            return t;
    }
    uint64_t x = a[c->K], y = b[c->K];
    return x < y ? -1 : x > y;
}

/* sort_gather.c: a struct batch of `schema` whose row k is logical row
 * idx[k] of arr[src[k]]. */
basalt_status basalt_qs_gather(const struct ArrowSchema *schema, const struct ArrowArray *arr,
                               int64_t nb, const int32_t *src, const int64_t *idx, int64_t n,
                               struct ArrowArray *out, struct basalt_error *err);

/* sort_radix.c */
void basalt_qs_ctx_init(struct qs_ctx *c, const struct basalt_qsort *s, const struct qs_layout *lay,
                        const struct ArrowArray *arr);
/* Sorts n records; the result is left in rec (tmp: n records of scratch).
 * Parallel on pool when given. */
void basalt_qs_sort(struct qs_ctx *c, uint64_t *rec, uint64_t *tmp, int64_t n,
                    struct basalt_pool *pool);

#endif
