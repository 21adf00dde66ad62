/* basalt-h2ogen: the tables of the H2O db-benchmark (group-by and join) as
 * Parquet files, with the shapes of its groupby-datagen.R and
 * join-datagen.R.
 *
 * Values that belong to one row are pure functions of (stream, row, column):
 * a splitmix64 finaliser over a seed made from the stream and the row, so a
 * row can be computed anywhere, in any order, by any thread. What is not per
 * row (the NA choices, the join keys' permutations, the sort order) is drawn
 * once, sequentially, from its own seeded sequence before rows are made.
 * Tables are then generated in fixed chunks of rows on the pool and written
 * in chunk order: the files are byte-identical for any thread count. */
#ifndef BASALT_H2OGEN_H
#define BASALT_H2OGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "basalt/basalt.h"

/* ------------------------------------------------------------------ random */

#define H2OGEN_GAMMA 0x9E3779B97F4A7C15ull

static inline uint64_t h2ogen_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Streams: the high bits of every seed, one per table and purpose, so no
 * two decisions share a sequence. */
enum basalt_h2ogen_stream {
    H2OGEN_GROUPBY_ROWS = 1, /* the group-by table's values, by row */
    H2OGEN_GROUPBY_NA,       /* which id values and rows are NA (+ column) */
    H2OGEN_JOIN_KEYS,        /* the join keys' permutations (+ key) */
    H2OGEN_JOIN_SAMPLE,      /* sample_all's extra draws and places (+ column) */
    H2OGEN_JOIN_ROWS         /* the join tables' values, by row (+ table) */
};

/* Draw `k` of row `row` in stream `stream`: one mix to place the row's
 * sequence, one per draw, as a splitmix64 sequence would give them. */
static inline uint64_t h2ogen_draw(uint64_t stream, uint64_t row, unsigned k)
{
    uint64_t s = h2ogen_mix((stream << 48) ^ row ^ 0x5DEECE66Dull);
    return h2ogen_mix(s + (uint64_t)(k + 1) * H2OGEN_GAMMA);
}

/* Scales a draw to [0, n) for n < 2^32 (every domain here: --rows is
 * capped below that). */
static inline int64_t h2ogen_below(uint64_t draw, int64_t n)
{
    return (int64_t)(((draw >> 32) * (uint64_t)n) >> 32);
}

/* A sequential generator, for the draws that are made once. */
struct basalt_h2ogen_rng {
    uint64_t s;
};

static inline void h2ogen_seed(struct basalt_h2ogen_rng *r, uint64_t stream, uint64_t sub)
{
    r->s = h2ogen_mix((stream << 48) ^ (sub << 32) ^ 0x2545F4914F6CDD1Dull);
}

static inline int64_t h2ogen_next_below(struct basalt_h2ogen_rng *r, int64_t n)
{
    r->s += H2OGEN_GAMMA;
    return h2ogen_below(h2ogen_mix(r->s), n);
}

/* round(runif(1, max = 100), 6): a whole number of millionths in
 * [0, 100], as the double nearest to it (what parsing its decimal text
 * gives). */
static inline double h2ogen_v3(uint64_t draw)
{
    return (double)h2ogen_below(draw, 100000001) / 1e6;
}

/* ------------------------------------------------------------------ sampling */

/* Marks `m` distinct values of [0, n) in a bitmap of n bits (*bits,
 * basalt_calloc'd) by Floyd's algorithm, and when `order` is not NULL
 * stores them there in the order drawn (m entries). Returns OK or NOMEM. */
basalt_status basalt_h2ogen_choose(struct basalt_h2ogen_rng *r, int64_t n, int64_t m,
                                   uint8_t **bits, int64_t *order, struct basalt_error *err);
/* Shuffles a[0..n) in place (Fisher-Yates). */
void basalt_h2ogen_shuffle(struct basalt_h2ogen_rng *r, int32_t *a, int64_t n);

/* ------------------------------------------------------------------ tables */

enum basalt_h2ogen_kind {
    H2OGEN_I32, /* INTEGER */
    H2OGEN_F64, /* DOUBLE */
    H2OGEN_STR  /* VARCHAR */
};

#define H2OGEN_MAX_COLUMNS 9
/* The longest text value: "id" and up to 10 digits. */
#define H2OGEN_MAX_STR 12

struct basalt_h2ogen_column_spec {
    const char *name;
    enum basalt_h2ogen_kind kind;
};

/* A batch being filled: row i of each column is set once, in row order for
 * text columns. Buffers belong to the Arrow arrays from the start. */
struct basalt_h2ogen_batch {
    struct ArrowArray *out;
    int64_t rows;
    struct basalt_h2ogen_col {
        enum basalt_h2ogen_kind kind;
        uint8_t *validity;
        void *values;      /* int32, double; STR: int32 offsets */
        char *data;        /* STR bytes */
        int32_t data_len;
        int64_t nulls;
    } cols[H2OGEN_MAX_COLUMNS];
};

/* A table to write: rows [begin, end) of it come from `generate`, which
 * fills a batch made for them. */
struct basalt_h2ogen_table {
    const char *name;
    const struct basalt_h2ogen_column_spec *columns;
    int num_columns;
    bool nullable;
    int64_t rows;
    void (*generate)(const void *ctx, int64_t begin, int64_t end, struct basalt_h2ogen_batch *b);
    const void *ctx;
};

static inline void h2ogen_i32(struct basalt_h2ogen_batch *b, int c, int64_t i, int32_t v)
{
    ((int32_t *)b->cols[c].values)[i] = v;
}

static inline void h2ogen_f64(struct basalt_h2ogen_batch *b, int c, int64_t i, double v)
{
    ((double *)b->cols[c].values)[i] = v;
}

/* Appends text as row i's value (rows come in order). */
static inline void h2ogen_str(struct basalt_h2ogen_batch *b, int c, int64_t i, const char *s,
                              int len)
{
    struct basalt_h2ogen_col *col = &b->cols[c];
    memcpy(col->data + col->data_len, s, (size_t)len);
    col->data_len += len;
    ((int32_t *)col->values)[i + 1] = col->data_len;
}

/* Row i is NULL: its bit cleared, its value zero or empty. */
static inline void h2ogen_null(struct basalt_h2ogen_batch *b, int c, int64_t i)
{
    struct basalt_h2ogen_col *col = &b->cols[c];
    col->validity[i >> 3] &= (uint8_t)~(1u << (i & 7));
    col->nulls++;
    if (col->kind == H2OGEN_STR)
        ((int32_t *)col->values)[i + 1] = col->data_len;
    else if (col->kind == H2OGEN_I32)
        ((int32_t *)col->values)[i] = 0;
    else
        ((double *)col->values)[i] = 0;
}

/* "id" and `v` printed with at least `width` digits ("id%0*lld"); returns
 * the length (at most H2OGEN_MAX_STR for v below 10^10). */
int basalt_h2ogen_id(char *out, int64_t v, int width);

/* Makes `out` a struct array of `rows` rows with the table's columns,
 * buffers allocated (64-byte aligned; every validity bit set). Returns OK
 * or NOMEM (out released). */
basalt_status basalt_h2ogen_batch_init(struct basalt_h2ogen_batch *b,
                                       const struct basalt_h2ogen_table *t, int64_t rows,
                                       struct ArrowArray *out, struct basalt_error *err);
/* Sets the null counts (dropping validity buffers without a NULL). */
void basalt_h2ogen_batch_finish(struct basalt_h2ogen_batch *b);

/* Writes DIR/<name>.parquet: chunks of 122880 rows generated in parallel on
 * `pool` (NULL: the calling thread), written in order, one row group per
 * chunk. Returns OK; INVALID_ARG (path too long); IO; NOMEM; the writer's
 * statuses. */
basalt_status basalt_h2ogen_write(const struct basalt_h2ogen_table *t, const char *dir,
                                  struct basalt_pool *pool, struct basalt_error *err);

/* ------------------------------------------------------------------ group-by */

/* groupby-datagen.R's table G1_<rows>_<k>_<nas>_<sort>. */
struct basalt_h2ogen_groupby {
    int64_t rows, k, groups; /* groups: rows / k, at least 1 (id3, id6) */
    int nas;                 /* percent */
    /* NA: id value v of column c (1-based) is NA when bit v of na_id[c]
     * is set; row r's v column c when bit r of na_v[c] is set. */
    uint8_t *na_id[6];
    uint8_t *na_v[3];
    /* --sort 1: output row i is source row perm[i]; NULL when unsorted. */
    uint32_t *perm;
};

/* Draws the NA choices and, when `sort`, the order. Returns OK, NOMEM or
 * LIMIT (sorting more than 2^32-1 rows). */
basalt_status basalt_h2ogen_groupby_init(struct basalt_h2ogen_groupby *g, int64_t rows, int64_t k,
                                         int nas, bool sort, struct basalt_error *err);
void basalt_h2ogen_groupby_reset(struct basalt_h2ogen_groupby *g);
/* The table x (ctx: the struct above). */
void basalt_h2ogen_groupby_table(const struct basalt_h2ogen_groupby *g,
                                 struct basalt_h2ogen_table *out);
/* The sort order (sort.c): perm of g->rows rows by id1..id6, NAs first, text
 * ids in byte order. Returns OK or NOMEM. */
basalt_status basalt_h2ogen_groupby_sort(struct basalt_h2ogen_groupby *g,
                                         struct basalt_error *err);
/* The code of id column c (0..5) of source row r: 0 for NA, else the value
 * (1-based). */
int64_t basalt_h2ogen_groupby_code(const struct basalt_h2ogen_groupby *g, int c, int64_t r);

/* ------------------------------------------------------------------ join */

/* join-datagen.R's tables x (rows), small (rows / 10^6), medium
 * (rows / 10^3) and big (rows). */
struct basalt_h2ogen_join {
    int64_t rows;
    int64_t n[3]; /* key domains: small's, medium's and big's row counts */
    /* keys[j]: a permutation of 1..n[j]*1.1 (rounded): the first
     * common[j] shared by both sides, then lhs-only ones up to n[j], then
     * rhs-only ones. */
    int32_t *keys[3];
    int64_t common[3], total[3];
};

basalt_status basalt_h2ogen_join_init(struct basalt_h2ogen_join *j, int64_t rows,
                                      struct basalt_error *err);
void basalt_h2ogen_join_reset(struct basalt_h2ogen_join *j);
/* Writes x, small, medium and big into `dir`. */
basalt_status basalt_h2ogen_join_write(const struct basalt_h2ogen_join *j, const char *dir,
                                       struct basalt_pool *pool, struct basalt_error *err);

#endif
