/* Hash aggregation internals: the shared description, a worker's table, key
 * rows, aggregate states and collected values. */
#ifndef BASALT_QUERY_AGG_INTERNAL_H
#define BASALT_QUERY_AGG_INTERNAL_H

#include <stdatomic.h>
#include <string.h>

#include "agg/agg.h"
#include "query_internal.h"

#define QAGG_CHUNK 2048
/* Partitions of the merge: fixed, so the output order does not depend on the
 * number of workers. */
#define QAGG_PART_BITS 6
#define QAGG_PARTS (1 << QAGG_PART_BITS)
/* Direct-indexed window of the dense path: one int32 group id per key value. */
#define QAGG_DENSE_SLOTS 65536
#define QAGG_BATCH_ROWS 65536
/* From this many groups in the locals, the finish merges and writes each
 * partition in one task and frees its table at once (agg_finish.c), so the
 * merged tables are never all held beside the locals; a partition's output
 * then averages at least a quarter of a batch. Below it, the output's
 * batches are cut across partitions. */
#define QAGG_MERGE_WRITE_GROUPS ((int64_t)QAGG_PARTS * QAGG_BATCH_ROWS / 4)
/* All-string keys encoded in one pass (agg_strkey.c), dictionary keys
 * grouped by code (agg_dict.c): up to this many. */
#define QAGG_STR_KEYS_MAX 8

/* How values sit in an Arrow array. DATE is I32, TIMESTAMP I64. */
enum qagg_phys {
    QP_BOOL, QP_I8, QP_I16, QP_I32, QP_I64, QP_U8, QP_U16, QP_U32, QP_U64, QP_F32, QP_F64,
    QP_DEC, QP_IV, QP_STR
};

/* What a call keeps per group. */
enum qagg_state {
    QS_COUNT,   /* int64 */
    QS_SUM_I,   /* struct qagg_sum_i: exact 128-bit sum of integers, decimals, booleans */
    QS_SUM_F,   /* struct qagg_sum_f: double-double sum */
    QS_VAR,     /* struct qagg_var: double-double sums of x and x*x */
    QS_MINMAX,  /* struct qagg_minmax */
    QS_BOOL,    /* uint8: bit 0 seen, bit 1 the deciding value seen */
    QS_COLLECT, /* nothing per group: (group, value) pairs in a qagg_coll */
    QS_COMOM,   /* struct qagg_comom: the two-argument kinds (agg_comoment.c) */
    QS_ARG,     /* struct qagg_arg: the ARG_MIN family (agg_arg.c) */
    QS_PROD,    /* struct qagg_prod */
    QS_BITS     /* struct qagg_bits */
};

/* A key string in a row (and a string value in a cell): up to 12 bytes
 * inline and zero-padded, so short strings compare as two words; longer ones
 * keep a 4-byte prefix and point at their bytes. */
struct qagg_str {
    uint32_t len;
    char prefix[4];
    union {
        char inl[8];
        const char *ptr;
    } u;
};
#define QAGG_STR_INLINE 12

/* One value of any argument type (collected values, min/max). */
union qagg_cell {
    int64_t i;
    uint64_t u;
    double f;
    qi128 d;
    struct qinterval iv;
    struct {
        const char *p;
        int64_t n;
    } s;
};

struct qagg_sum_i {
    qi128 sum;
    int64_t n;
    int64_t pad;
};
struct qagg_sum_f {
    double hi, lo;
    int64_t n;
};
/* VAR and STDDEV: double-double sums of x and x*x; `first` (the first
 * value seen) and `varied` (a value other than it seen) make a group of
 * equal values exactly 0, which Q - S*S/n leaves as rounding noise that
 * depends on the order the sums were added in (and so on the workers). */
struct qagg_var {
    double s_hi, s_lo, q_hi, q_lo;
    int64_t n;
    double first;
    bool varied;
};
/* Co-moments of the pairs (y, x) with neither NULL (agg_comoment.c): sums
 * of the values shifted by the state's first pair (kx, ky), each
 * double-double (hi, lo): sx = sum (x - kx), sy, sxx = sum (x - kx)^2, syy,
 * sxy = sum (x - kx)(y - ky). */
struct qagg_comom {
    int64_t n;
    double kx, ky;
    double sx[2], sy[2];
    double sxx[2], syy[2], sxy[2];
};
/* The same co-moments when both arguments are integers of at most 32 bits
 * (qagg_callinfo.comom_int): the shifted values, squares and products are
 * integers, summed exactly in 128 bits (wrapping arithmetic; the true sums
 * fit while there are fewer than 2^60 pairs). n comes first in both, so
 * REGR_COUNT reads either. */
typedef unsigned __int128 qu128;
struct qagg_comom_i {
    int64_t n;
    int64_t kx, ky, pad;
    qu128 sx, sy, sxx, syy, sxy;
};
/* MIN, MAX and ANY_VALUE. has is QAGG_MM_NONE until a value is seen. A
 * string value of up to QAGG_MM_INLINE_BYTES is held in the state itself
 * (the bytes of v and tail; has is QAGG_MM_INLINE and cap its length), so
 * that a group with a short string costs no allocation; a longer one is
 * owned (has is QAGG_MM_SET, v.s.p basalt_malloc'd with capacity cap, kept
 * for later values). basalt_qagg_minmax_value reads either. */
struct qagg_minmax {
    union qagg_cell v;
    char tail[8];
    uint32_t cap;
    uint32_t has;
};
enum { QAGG_MM_NONE = 0, QAGG_MM_SET = 1, QAGG_MM_INLINE = 2 };
#define QAGG_MM_INLINE_BYTES (sizeof(union qagg_cell) + 8)

/* The ARG_MIN family: the order value (y, or an order key) and x of the
 * row chosen so far, each held as a MIN/MAX state holds its value.
 * key.has is QAGG_MM_NONE until a row is seen; x_null: that row's x is
 * NULL (val then holds nothing, or an old buffer kept for later values). */
struct qagg_arg {
    struct qagg_minmax key, val;
    bool x_null;
};

/* PRODUCT: a double-double product (hi + lo), so that the rounded result
 * is the same in any order, as the sums'; n values seen. */
struct qagg_prod {
    double hi, lo;
    int64_t n;
};

/* BIT_AND, BIT_OR, BIT_XOR: the bits so far (sign-extended) and the values
 * seen. */
struct qagg_bits {
    uint64_t v;
    int64_t n;
};

struct qagg_callinfo {
    struct basalt_qagg_call call;
    char *separator;
    size_t sep_len;
    struct basalt_query_type out;
    enum qagg_phys in_phys;
    enum qagg_phys in2_phys; /* QS_COMOM: the second argument's */
    bool comom_int;          /* QS_COMOM over two small integers: struct qagg_comom_i */
    bool arg_keeps_null;     /* QS_ARG: a NULL x is a value (ARG_MIN_NULL, ARG_MAX_NULL) */
    enum qagg_state state;
    size_t state_size;
    bool is_max;             /* MAX; QS_ARG: ARG_MAX, ARG_MAX_NULL */
};

struct qagg_keyinfo {
    struct basalt_query_type type;
    enum qagg_phys phys;
    char format[48];
    int32_t offset; /* byte offset of the value in the row */
    int32_t width;
};

struct basalt_qagg {
    int n_keys, n_calls;
    struct qagg_keyinfo *keys;
    struct qagg_callinfo *calls;
    int32_t row_width;   /* bytes, a multiple of 8 */
    int32_t row_words;
    int32_t null_words;  /* leading words of the null mask */
    bool has_strings;
    bool *ptr_word;      /* per word: the pointer word of a long string */
    bool dense_ok;       /* one integer-like key */
    /* The key row is one NULL-mask word and one value word (keys of at most
     * 8 bytes in all, no strings): rows without NULLs are indexed by that
     * word inline (agg_word.c). word_seed is the row hash's state after the
     * all-zero mask word, so hash_row(row) = basalt_qagg_hash_word(a, word). */
    bool word_key;
    uint64_t word_seed;
    bool str_keys; /* 1..QAGG_STR_KEYS_MAX keys, all strings: agg_strkey.c encodes them */
    struct basalt_qagg_options opts;
    _Atomic int64_t dense_batches, hashed_batches, global_batches, word_batches, dict_batches,
        dict_map_batches;
    int64_t groups, partitions;
    bool direct_finish;
    bool merge_write_finish; /* each partition merged and written at once (agg_finish.c) */
    int64_t splits;
};

/* A slot of the word index: the key's value word inline beside its group
 * id, so a probe touches one cache line and no key row. gid1 0: empty. */
struct qagg_wslot {
    uint64_t word;
    uint32_t gid1; /* group id + 1 */
    uint32_t pad;
};

/* Collected values of one call: parallel arrays. */
struct qagg_coll {
    uint32_t *gid;
    union qagg_cell *v;
    int64_t n, cap;
};

struct basalt_qagg_local {
    struct basalt_qagg *agg;
    int64_t n_groups, cap_groups;
    uint8_t *rows;     /* cap_groups * row_width */
    uint64_t *hashes;  /* cap_groups */
    uint64_t *slots;   /* 0 empty, else (gid + 1) | (hash >> 32) << 32 */
    uint64_t mask;     /* slots - 1; slots is NULL until the first hashed chunk */
    int64_t in_slots;  /* groups indexed in slots */
    struct qagg_wslot *wslots; /* word_key tables: groups whose row has no NULL */
    uint64_t wmask;
    int64_t in_wslots;
    uint8_t **states;  /* per call: cap_groups * state_size */
    struct qagg_coll *coll; /* per call */
    struct basalt_arena arena; /* long key strings, collected strings */
    bool copy_strings; /* false in merge tables: strings stay in the locals */
    /* dense path: 0 undecided, 1 on, -1 off for good */
    int dense;
    int64_t dense_base, dense_lo, dense_hi;
    int32_t *dense_map;
    int64_t dense_null_gid;
    /* per-chunk scratch */
    uint8_t *rowbuf;
    uint64_t *hbuf;
    uint32_t *gids;
    uint64_t *wbuf; /* word_key tables: the chunk's value words */
    uint32_t *dict_map; /* agg_dict.c: a batch's key code -> group id + 1 (0: not met) */
    size_t dict_cap;
};

/* A borrowed Arrow array, ready to index. */
struct qagg_col {
    const uint8_t *valid; /* NULL: all valid */
    const void *data;
    const char *sdata;
    int64_t off;
    bool large;
    /* A dictionary array's key (strings only, agg_dict.c): the fields above
     * describe the dictionary's values, and row i is value index[ioff + i]
     * (NULL where ivalid says so). index NULL: row i is value i. */
    const int32_t *index;
    const uint8_t *ivalid;
    int64_t ioff;
    int64_t dict_len;
};

static inline bool basalt_qagg_valid(const struct qagg_col *c, int64_t i)
{
    return !c->valid || basalt_bitmap_get(c->valid, c->off + i);
}

static inline void basalt_qagg_str_get(const struct qagg_col *c, int64_t i, const char **p,
                                       int64_t *n)
{
    int64_t s, e;
    if (c->large) {
        s = ((const int64_t *)c->data)[c->off + i];
        e = ((const int64_t *)c->data)[c->off + i + 1];
    } else {
        s = ((const int32_t *)c->data)[c->off + i];
        e = ((const int32_t *)c->data)[c->off + i + 1];
    }
    *p = c->sdata + s;
    *n = e - s;
}

/* agg_dict.c: keys that are dictionary arrays. */
/* c for key array x, a dictionary array (int32 indices over strings) whose
 * indices are checked against the dictionary for the n rows. INVALID_ARG
 * otherwise, or for an index outside it. */
basalt_status basalt_qagg_dict_col_init(const struct ArrowArray *x, bool large, int64_t n,
                                        struct qagg_col *c, struct basalt_error *err);
/* A batch whose keys are all dictionary columns, grouped through a map of
 * their index combinations: the code of a row is the sum of its indices
 * times the strides, NULL being index dict_len. */
struct qagg_dict_codes {
    bool use;
    int64_t stride[QAGG_STR_KEYS_MAX];
    int64_t codes;
};
/* Sets dc->use when every key column is a dictionary column and their
 * combinations are few enough for a map of them (cleared for the batch of
 * n rows). OK, NOMEM. */
basalt_status basalt_qagg_dict_codes(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                     int64_t n, struct qagg_dict_codes *dc,
                                     struct basalt_error *err);
/* l->gids for the chunk of n rows at keys' offsets (prepared with dc->use). */
basalt_status basalt_qagg_dict_rows(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                    const struct qagg_dict_codes *dc, int64_t n,
                                    struct basalt_error *err);
/* A column's row i: whether it is valid and, if so, its position among the
 * values (a dictionary's index, else i). */
static inline bool basalt_qagg_row_at(const struct qagg_col *c, int64_t i, int64_t *j)
{
    if (c->index == NULL) {
        *j = i;
        return basalt_qagg_valid(c, i);
    }
    if (c->ivalid && !basalt_bitmap_get(c->ivalid, c->ioff + i))
        return false;
    *j = c->index[c->ioff + i];
    return basalt_qagg_valid(c, *j);
}
/* Moves a key column's rows on by n (a chunk). */
static inline void basalt_qagg_col_advance(struct qagg_col *c, int64_t n)
{
    if (c->index)
        c->ioff += n;
    else
        c->off += n;
}

/* agg_type.c */
enum qagg_phys basalt_qagg_phys(struct basalt_query_type t);
int basalt_qagg_phys_width(enum qagg_phys p);

/* agg_table.c */
/* large: strings with 64-bit offsets. */
basalt_status basalt_qagg_col_init(const struct ArrowArray *a, enum qagg_phys phys, bool large,
                                   int64_t n, struct qagg_col *c, struct basalt_error *err);
void basalt_qagg_cell_get(const struct qagg_col *c, enum qagg_phys phys, int64_t i,
                          union qagg_cell *out);
basalt_status basalt_qagg_local_init(struct basalt_qagg *agg, struct basalt_qagg_local *l,
                                     bool copy_strings, struct basalt_error *err);
void basalt_qagg_local_clear(struct basalt_qagg_local *l);
basalt_status basalt_qagg_local_reserve(struct basalt_qagg_local *l, int64_t n,
                                        struct basalt_error *err);
void basalt_qagg_local_reset(struct basalt_qagg_local *l);
basalt_status basalt_qagg_group_append(struct basalt_qagg_local *l, uint64_t h,
                                       const uint8_t *row, uint32_t *gid,
                                       struct basalt_error *err);
basalt_status basalt_qagg_find_or_add(struct basalt_qagg_local *l, uint64_t h,
                                      const uint8_t *row, uint32_t *gid,
                                      struct basalt_error *err);
basalt_status basalt_qagg_group_rows(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                     int64_t n, struct basalt_error *err);
void basalt_qagg_encode_rows(const struct basalt_qagg *a, const struct qagg_col *keys, int64_t n,
                             uint8_t *rows);
uint64_t basalt_qagg_hash_row(const struct basalt_qagg *a, const uint8_t *row);
bool basalt_qagg_row_eq(const struct basalt_qagg *a, const uint8_t *x, const uint8_t *y);
int basalt_qagg_row_cmp(const struct basalt_qagg *a, const uint8_t *x, const uint8_t *y);

/* agg_word.c */
static inline uint64_t basalt_qagg_fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}
/* One step of the row hash over a word. */
static inline uint64_t basalt_qagg_hash_step(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ h >> 29;
}
static inline uint64_t basalt_qagg_hash_word(const struct basalt_qagg *a, uint64_t word)
{
    return basalt_qagg_fmix64(basalt_qagg_hash_step(a->word_seed, word));
}
basalt_status basalt_qagg_word_find_or_add(struct basalt_qagg_local *l, uint64_t h,
                                           uint64_t word, uint32_t *gid,
                                           struct basalt_error *err);
basalt_status basalt_qagg_word_reserve(struct basalt_qagg_local *l, int64_t n,
                                       struct basalt_error *err);
basalt_status basalt_qagg_word_rows(struct basalt_qagg_local *l, const struct qagg_col *key,
                                    int64_t n, struct basalt_error *err);

/* Key rows past this size are mostly out of cache: the probe then
 * prefetches the key row of a group a few rows ahead. */
#define QAGG_PREFETCH_ROWS_BYTES (256 * 1024)

/* agg_strkey.c */
void basalt_qagg_str_encode(const struct basalt_qagg *a, const struct qagg_col *keys, int64_t n,
                            uint8_t *rows, uint64_t *hashes);

/* agg_state.c */
void basalt_qagg_call_setup(struct qagg_callinfo *ci);
/* arg2: the second argument of a two-argument call, else NULL. */
basalt_status basalt_qagg_update(struct basalt_qagg_local *l, int call,
                                 const struct qagg_col *arg, const struct qagg_col *arg2,
                                 const uint32_t *gids, int64_t n, bool global,
                                 struct basalt_error *err);
/* Folds src's states of groups sfirst + k into dst's of groups dgids[k]. */
basalt_status basalt_qagg_combine_many(struct basalt_qagg_local *dst, const uint32_t *dgids,
                                       const struct basalt_qagg_local *src, uint32_t sfirst,
                                       int64_t n, struct basalt_error *err);
void basalt_qagg_states_free(struct basalt_qagg_local *l, int64_t from);
int basalt_qagg_cell_cmp(enum qagg_phys p, const union qagg_cell *a, const union qagg_cell *b);
bool basalt_qagg_cell_eq(enum qagg_phys p, const union qagg_cell *a, const union qagg_cell *b);
/* The value of a MIN/MAX state that has one; a string points into the state
 * or its buffer, valid while the state is neither changed nor moved. */
union qagg_cell basalt_qagg_minmax_value(const struct qagg_minmax *m);
/* Sets state m's value to v (of physical type p; a string copied into
 * the state or its buffer). OK; LIMIT (a string over 4 GiB); NOMEM. */
basalt_status basalt_qagg_minmax_set(struct qagg_minmax *m, enum qagg_phys p,
                                     const union qagg_cell *v, struct basalt_error *err);
/* Frees the buffer a MIN/MAX state may own, leaving it empty. */
void basalt_qagg_minmax_clear(struct qagg_minmax *m);

/* agg_arg.c: the QS_ARG states. arg is x, key y or the order key. */
basalt_status basalt_qagg_arg_update(const struct qagg_callinfo *ci, struct qagg_arg *states,
                                     const struct qagg_col *arg, const struct qagg_col *key,
                                     const uint32_t *gids, int64_t n, struct basalt_error *err);
basalt_status basalt_qagg_arg_combine(const struct qagg_callinfo *ci, struct qagg_arg *d,
                                      const struct qagg_arg *s, struct basalt_error *err);
void basalt_qagg_arg_free(struct qagg_arg *s);

/* Collected values of an ordered STRING_AGG: each a string of the order
 * key's length (4 bytes, host order), the key, then the piece. */
int basalt_qagg_keyed_cmp(const union qagg_cell *a, const union qagg_cell *b);
/* The piece of such a value. */
static inline void basalt_qagg_keyed_piece(const union qagg_cell *v, const char **p, int64_t *n)
{
    uint32_t klen;
    memcpy(&klen, v->s.p, 4);
    *p = v->s.p + 4 + klen;
    *n = v->s.n - 4 - (int64_t)klen;
}
void basalt_qagg_dd_add(double *hi, double *lo, double x);

/* agg_comoment.c: the QS_COMOM states of the two-argument kinds. */
double basalt_qagg_cell_double(enum qagg_phys p, const union qagg_cell *v, int scale);
/* Whether call ci's pairs go to struct qagg_comom_i: both arguments integers
 * of at most 32 bits. */
bool basalt_qagg_comom_int(const struct qagg_callinfo *ci);
/* The states are struct qagg_comom, or qagg_comom_i with ci->comom_int. */
void basalt_qagg_comom_update(const struct qagg_callinfo *ci, void *states,
                              const struct qagg_col *y, const struct qagg_col *x,
                              const uint32_t *gids, int64_t n);
void basalt_qagg_comom_combine(const struct qagg_callinfo *ci, void *d, const void *s);
/* Call ci's result from state s: *valid false for NULL, else *out (REGR_COUNT
 * writes a count as a double); LIMIT with DuckDB's message when a variance
 * is not finite ("STDDEV_POP for X is out of range!"). */
basalt_status basalt_qagg_comom_final(const struct qagg_callinfo *ci, const void *s,
                                      double *out, bool *valid, struct basalt_error *err);

/* agg_select.c: quantiles by selection. The 0-based ranks a MEDIAN or
 * QUANTILE call reads among n > 0 sorted values: lo == hi for a discrete
 * one, else the two around the interpolation point, frac of the way from
 * lo to hi. */
void basalt_qagg_quantile_ranks(const struct qagg_callinfo *ci, int64_t n, int64_t *lo,
                                int64_t *hi, double *frac);
/* Whether the call picks one of the values (QUANTILE_DISC; MEDIAN of
 * BOOLEAN, INTERVAL or VARCHAR) rather than interpolating. */
bool basalt_qagg_quantile_disc(const struct qagg_callinfo *ci);
/* Whether the call's collected values need only its ranks in place (a
 * quantile without DISTINCT over numbers), not a sort. */
bool basalt_qagg_selects(const struct qagg_callinfo *ci);
/* Puts the values of the call's ranks at their places in v[0, n), the
 * rest in no order; scratch holds n words. */
void basalt_qagg_select_ranks(const struct qagg_callinfo *ci, union qagg_cell *v, int64_t n,
                              uint64_t *scratch);

/* agg_order.c: sorts ord (n group ids of t) into output order. */
basalt_status basalt_qagg_order(const struct basalt_qagg_local *t, uint32_t *ord, int64_t n,
                                struct basalt_error *err);

/* agg_list.c: call c's column of "+l" lists (ARRAY_AGG), as
 * basalt_qagg_write writes a column. */
basalt_status basalt_qagg_write_list(const struct basalt_qagg *a, int c,
                                     struct basalt_qagg_local *const *parts, const uint32_t *rp,
                                     const uint32_t *rg, const int64_t *const *coll_start,
                                     int64_t n, struct ArrowArray *out, struct basalt_error *err);

/* agg_output.c */
basalt_status basalt_qagg_write(const struct basalt_qagg *agg,
                                struct basalt_qagg_local *const *parts,
                                const uint32_t *ref_part, const uint32_t *ref_gid,
                                const int64_t *const *coll_start, int64_t n,
                                struct ArrowArray *out, struct basalt_error *err);

#endif
