/* basalt-tpchgen: TPC-H data (spec v3, clause 4.2) as Parquet files.
 *
 * Every row draws its values from a splitmix64 stream seeded by (table, row
 * index), so a row's values do not depend on which thread made it or on
 * what was generated before it: the files are the same for any thread
 * count. Tables are generated in fixed chunks of rows (the chunk size is a
 * constant, never derived from the thread count) and written in chunk
 * order. Text columns are slices of one text pool built once from the
 * spec's grammar and word lists (clause 4.2.2.14), as dbgen does. */
#ifndef BASALT_TPCHGEN_H
#define BASALT_TPCHGEN_H

#include <stdint.h>
#include <string.h>

#include "basalt/basalt.h"

/* ------------------------------------------------------------------ random */

/* Table ids: the high byte of every row seed. */
enum basalt_tpchgen_table_id {
    TPCHGEN_REGION = 1,
    TPCHGEN_NATION,
    TPCHGEN_SUPPLIER,
    TPCHGEN_CUSTOMER,
    TPCHGEN_PART,
    TPCHGEN_ORDERS,
    TPCHGEN_TEXT_POOL
};

struct basalt_tpchgen_rng {
    uint64_t s;
};

static inline uint64_t tpchgen_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void tpchgen_seed(struct basalt_tpchgen_rng *r, int table, int64_t row)
{
    /* Mixed once more so neighbouring rows start far apart in the sequence. */
    r->s = tpchgen_mix(((uint64_t)table << 56) ^ (uint64_t)row ^ 0x5DEECE66Dull);
}

static inline uint64_t tpchgen_next(struct basalt_tpchgen_rng *r)
{
    r->s += 0x9E3779B97F4A7C15ull;
    return tpchgen_mix(r->s);
}

/* Uniform in [lo, hi]; every range here is far below 2^32, so the top 32
 * bits scaled by the range are unbiased enough and need no 128-bit product. */
static inline int64_t tpchgen_uniform(struct basalt_tpchgen_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo + 1);
    return lo + (int64_t)(((tpchgen_next(r) >> 32) * span) >> 32);
}

/* ------------------------------------------------------------------ words */

/* A weighted list (the spec's distributions): `cumulative[i]` is the sum of
 * the weights of items 0..i. */
struct basalt_tpchgen_dist {
    const char *const *items;
    const int *cumulative;
    int n;
};

/* The lists of clause 4.2.2.13 and 4.2.3 (words.c). */
extern const char *const basalt_tpchgen_colors[];         /* 92 P_NAME words */
#define TPCHGEN_NUM_COLORS 92
extern const char *const basalt_tpchgen_type_s1[];        /* 6 */
extern const char *const basalt_tpchgen_type_s2[];        /* 5 */
extern const char *const basalt_tpchgen_type_s3[];        /* 5 */
extern const char *const basalt_tpchgen_container_s1[];   /* 5 */
extern const char *const basalt_tpchgen_container_s2[];   /* 8 */
extern const char *const basalt_tpchgen_segments[];       /* 5 */
extern const char *const basalt_tpchgen_priorities[];     /* 5 */
extern const char *const basalt_tpchgen_instructions[];   /* 4 */
extern const char *const basalt_tpchgen_modes[];          /* 7 */
extern const char *const basalt_tpchgen_regions[];        /* 5 */
extern const char *const basalt_tpchgen_nations[];        /* 25 */
extern const int basalt_tpchgen_nation_region[];          /* 25 */

/* Picks an item of `d` by weight. */
const char *basalt_tpchgen_pick(const struct basalt_tpchgen_dist *d, struct basalt_tpchgen_rng *r);

/* The text pool: sentences of the grammar of clause 4.2.2.14 over the word
 * lists, with its own seed. `size` bytes (at least 1 MiB); *out is
 * basalt_malloc'd. Returns OK or NOMEM. */
basalt_status basalt_tpchgen_text_pool(size_t size, char **out, struct basalt_error *err);

/* ------------------------------------------------------------------ columns */

enum basalt_tpchgen_kind {
    TPCHGEN_I32,   /* INTEGER */
    TPCHGEN_I64,   /* BIGINT */
    TPCHGEN_MONEY, /* DECIMAL(15,2) as unscaled int64 */
    TPCHGEN_DATE,  /* DATE, days since 1970-01-01 */
    TPCHGEN_STR    /* VARCHAR */
};

struct basalt_tpchgen_column_spec {
    const char *name;
    enum basalt_tpchgen_kind kind;
    int max_len; /* STR: the longest value, so buffers never grow */
};

struct basalt_tpchgen_table_spec {
    const char *name;
    const struct basalt_tpchgen_column_spec *columns;
    int num_columns;
};

extern const struct basalt_tpchgen_table_spec basalt_tpchgen_region_spec, basalt_tpchgen_nation_spec,
    basalt_tpchgen_supplier_spec, basalt_tpchgen_customer_spec, basalt_tpchgen_part_spec,
    basalt_tpchgen_partsupp_spec, basalt_tpchgen_orders_spec, basalt_tpchgen_lineitem_spec;

/* One column of a batch being generated: buffers sized for the batch's
 * capacity up front (64-byte aligned), handed to Arrow without a copy. */
struct basalt_tpchgen_column {
    enum basalt_tpchgen_kind kind;
    int64_t n;
    void *values;     /* int32 or int64 values; STR: int32 offsets */
    char *data;       /* STR bytes */
    int64_t data_len;
};

#define TPCHGEN_MAX_COLUMNS 16

struct basalt_tpchgen_batch {
    const struct basalt_tpchgen_table_spec *spec;
    struct basalt_tpchgen_column cols[TPCHGEN_MAX_COLUMNS];
};

/* Allocates the buffers of `spec`'s columns for `capacity` rows. Returns OK
 * or NOMEM (nothing left allocated). */
basalt_status basalt_tpchgen_batch_init(struct basalt_tpchgen_batch *b,
                                        const struct basalt_tpchgen_table_spec *spec,
                                        int64_t capacity, struct basalt_error *err);
/* Moves the columns into `out` (a "+s" struct array, the buffers taken
 * over) and leaves `b` empty. Returns OK or NOMEM (b reset). */
basalt_status basalt_tpchgen_batch_finish(struct basalt_tpchgen_batch *b, struct ArrowArray *out,
                                          struct basalt_error *err);
/* Frees whatever `b` still holds. */
void basalt_tpchgen_batch_reset(struct basalt_tpchgen_batch *b);
/* The Arrow schema of `spec` (every column non-nullable, as the spec's
 * NOT NULL columns). Returns OK or NOMEM. */
basalt_status basalt_tpchgen_schema(const struct basalt_tpchgen_table_spec *spec,
                                    struct ArrowSchema *out, struct basalt_error *err);

static inline void tpchgen_i32(struct basalt_tpchgen_column *c, int32_t v)
{
    ((int32_t *)c->values)[c->n++] = v;
}

static inline void tpchgen_i64(struct basalt_tpchgen_column *c, int64_t v)
{
    ((int64_t *)c->values)[c->n++] = v;
}

/* Appends len bytes; the column's capacity was sized from max_len. */
static inline void tpchgen_str(struct basalt_tpchgen_column *c, const char *s, size_t len)
{
    memcpy(c->data + c->data_len, s, len);
    c->data_len += (int64_t)len;
    ((int32_t *)c->values)[++c->n] = (int32_t)c->data_len;
}

/* Reserves len bytes for the caller to fill, then closes the value. */
static inline char *tpchgen_str_begin(struct basalt_tpchgen_column *c)
{
    return c->data + c->data_len;
}

static inline void tpchgen_str_end(struct basalt_tpchgen_column *c, size_t len)
{
    c->data_len += (int64_t)len;
    ((int32_t *)c->values)[++c->n] = (int32_t)c->data_len;
}

/* ------------------------------------------------------------------ tables */

/* What every generator reads: the scale's row counts and the shared pool. */
struct basalt_tpchgen_scale {
    double sf;
    int64_t suppliers, customers, parts, orders, clerks;
    int64_t complaints; /* suppliers with "Customer ... Complaints" (and as
                         * many with "Customer ... Recommends") */
    const char *pool;
    int64_t pool_len;
};

/* Fills the row counts of clause 4.2.5 for scale factor `sf`. Returns OK or
 * INVALID_ARG (sf outside [0.001, 1000]). */
basalt_status basalt_tpchgen_scale_init(struct basalt_tpchgen_scale *s, double sf,
                                        struct basalt_error *err);

/* Generators: rows [begin, end) (0-based) of their table appended to the
 * batch(es), which hold room for them. Part and orders also write the rows of
 * their children (partsupp: 4 per part; lineitem: 1..7 per order, so
 * room for 7 per order). */
void basalt_tpchgen_region(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                           struct basalt_tpchgen_batch *out);
void basalt_tpchgen_nation(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                           struct basalt_tpchgen_batch *out);
void basalt_tpchgen_supplier(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                             struct basalt_tpchgen_batch *out);
void basalt_tpchgen_customer(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                             struct basalt_tpchgen_batch *out);
void basalt_tpchgen_part(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                         struct basalt_tpchgen_batch *part, struct basalt_tpchgen_batch *partsupp);
void basalt_tpchgen_orders(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                           struct basalt_tpchgen_batch *orders,
                           struct basalt_tpchgen_batch *lineitem);

/* Shared row helpers (rows.c). */
/* A slice of the text pool of a length in [lo, hi]. */
void basalt_tpchgen_text(const struct basalt_tpchgen_scale *s, struct basalt_tpchgen_rng *r,
                         int lo, int hi, struct basalt_tpchgen_column *c);
/* A random alphanumeric string of a length in [lo, hi] (addresses). */
void basalt_tpchgen_vstring(struct basalt_tpchgen_rng *r, int lo, int hi,
                            struct basalt_tpchgen_column *c);
/* "Prefix#" and `key` zero-padded to `digits` digits. */
void basalt_tpchgen_keyed_name(const char *prefix, int64_t key, int digits,
                               struct basalt_tpchgen_column *c);
/* "CC-LLL-LLL-LLLL" with CC = nationkey + 10 (clause 4.2.2.9). */
void basalt_tpchgen_phone(struct basalt_tpchgen_rng *r, int32_t nationkey,
                          struct basalt_tpchgen_column *c);
/* P_RETAILPRICE in cents for a part key (clause 4.2.3). */
static inline int64_t tpchgen_retail_cents(int64_t partkey)
{
    return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}
/* The supplier of a part's i-th partsupp row (clause 4.2.3), 1-based. */
static inline int64_t tpchgen_part_supplier(int64_t partkey, int64_t i, int64_t suppliers)
{
    return (partkey + i * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
}
/* Days since 1970-01-01 of a proleptic Gregorian date. */
int32_t basalt_tpchgen_days(int y, int m, int d);

/* ------------------------------------------------------------------ writing */

/* A table to write, or a parent with its child table (part and partsupp,
 * orders and lineitem), generated `chunk_rows` parent rows at a time. */
struct basalt_tpchgen_job {
    const struct basalt_tpchgen_table_spec *specs[2]; /* specs[1] NULL: one table */
    int64_t rows;         /* parent rows */
    int64_t chunk_rows;   /* a constant per table, never from the thread count */
    int64_t max_children; /* child rows per parent row, at most */
    void (*generate)(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                     struct basalt_tpchgen_batch *parent, struct basalt_tpchgen_batch *child);
};

/* Writes DIR/<table>.parquet for the job's table(s): chunks generated in
 * parallel on `pool` (NULL: the calling thread), written in chunk order in
 * row groups of 122880 rows. Returns OK; IO; NOMEM; the writer's statuses. */
basalt_status basalt_tpchgen_run(const struct basalt_tpchgen_job *job,
                                 const struct basalt_tpchgen_scale *scale, const char *dir,
                                 struct basalt_pool *pool, struct basalt_error *err);

#endif
