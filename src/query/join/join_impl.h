/* Join internals shared by the join files: the join object, key columns
 * read in place, hashing, and the gather and concatenation of columns. */
#ifndef BASALT_QUERY_JOIN_IMPL_H
#define BASALT_QUERY_JOIN_IMPL_H

#include <stdatomic.h>

#include "join/join.h"

/* How a key column is compared and hashed. */
enum qj_kind { QJK_INT, QJK_UINT, QJK_FLOAT, QJK_DOUBLE, QJK_DEC, QJK_BOOL, QJK_BYTES };

struct qj_keytype {
    enum qj_kind kind;
    int width; /* bytes per value: ints 1..8, FLOAT 4, DOUBLE 8, DEC 16; 0 BOOL/BYTES */
};

/* A column of a struct batch read in place: slot i is physical slot off + i. */
struct qj_col {
    const uint8_t *valid; /* NULL: no nulls */
    const uint8_t *data;  /* values; BYTES: offsets */
    const uint8_t *bytes; /* BYTES: the data buffer */
    int64_t off;
    bool large;
    struct qj_keytype t;
};

struct qj_batch {
    int64_t seq;
    struct ArrowArray a;
};

struct basalt_qjoin_build_local {
    struct basalt_qjoin *j;
    struct qj_batch *b;
    int64_t n, cap;
};

struct basalt_qjoin {
    enum basalt_qjoin_type type;
    struct ArrowSchema probe_schema, build_schema; /* owned copies */
    int n_keys;
    int *probe_keys, *build_keys;
    struct qj_keytype *kt;
    const struct basalt_query_program *residual;
    int *res_cols; /* the columns the residual reads (NULL: all) */
    int n_res_cols;
    /* The output row's columns as indices into the INNER layout (probe
     * then build columns): every column of the type's output, or the
     * spec's output_columns. */
    int *out_cols;
    int n_out_cols;
    bool finished;

    /* The build side, concatenated in build input order (released: none). */
    struct ArrowArray build;
    int64_t n_build;

    enum basalt_qjoin_table table;
    int int_width; /* INTEGER/DIRECT: the key's width */
    bool int_unsigned;
    int64_t dmin;   /* DIRECT: the smallest key */
    uint64_t n_buckets;
    int shift;      /* INTEGER/HASHED: bucket = mixed >> shift */
    uint32_t *offs; /* n_buckets + 1: entries of bucket b are [offs[b], offs[b+1]) */
    uint32_t *erow; /* build row of each entry, ascending within a bucket */
    uint64_t *ekey; /* INTEGER: the key; HASHED: the hash */
    /* DIRECT with every key on at most one row: that row per key (UINT32_MAX:
     * none), one read per probe instead of offsets then rows. */
    uint32_t *drow;
    atomic_uchar *matched; /* RIGHT/FULL: build rows some probe matched */

    atomic_llong direct_lookups, integer_lookups, hashed_lookups, hash_hits, residual_pairs;
};

/* join_keys.c */
basalt_status basalt_qj_keytype(const struct ArrowSchema *s, struct qj_keytype *out,
                                struct basalt_error *err);
void basalt_qj_col_init(struct qj_col *c, const struct ArrowArray *batch, int col,
                        struct qj_keytype t, const char *format);
static inline bool basalt_qj_valid(const struct qj_col *c, int64_t i)
{
    return !c->valid || ((c->valid[(c->off + i) >> 3] >> ((c->off + i) & 7)) & 1);
}
/* Integer key i as int64 (unsigned values as their bits). */
int64_t basalt_qj_int(const struct qj_col *c, int64_t i);
/* Integer keys of rows [lo, hi) into out[0, hi-lo) (NULL rows: any value). */
void basalt_qj_ints(const struct qj_col *c, int64_t lo, int64_t hi, int64_t *out);
static inline uint64_t basalt_qj_mix(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}
/* Folds the hashes of rows [begin, end) of `c` into h[0, end-begin) and
 * sets null[k] when the row's key is NULL. */
void basalt_qj_hash_col(const struct qj_col *c, int64_t begin, int64_t end, uint64_t *h,
                        uint8_t *null);
/* Equality of probe row i of a and build row g of b (both valid). */
bool basalt_qj_equal(const struct qj_col *a, int64_t i, const struct qj_col *b, int64_t g);

/* join_gather.c */
/* A new array of type `s`: row k is slot base + idx[k] of `col` (a child of
 * a struct batch whose own offset is `base`), NULL where idx[k] < 0. `col`
 * may be NULL when every idx is negative. */
basalt_status basalt_qj_gather(const struct ArrowSchema *s, const struct ArrowArray *col,
                               int64_t base, const int64_t *idx, int64_t n,
                               struct ArrowArray *out, struct basalt_error *err);
/* One struct array of type `s` with the rows of batches[0, n) in order. */
basalt_status basalt_qj_concat(const struct ArrowSchema *s, const struct qj_batch *batches,
                               int64_t n, struct basalt_pool *pool, struct ArrowArray *out,
                               struct basalt_error *err);

/* join_build.c */
basalt_status basalt_qj_build_table(struct basalt_qjoin *j, struct basalt_pool *pool,
                                    struct basalt_error *err);

#endif
