/* The join tables of join-datagen.R. Each of the three keys has a domain
 * of n = small's, medium's or big's row count (N/10^6, N/10^3, N; at least
 * 10): a permutation of 1..1.1n split into 0.9n keys on both sides, 0.1n
 * on the left only and 0.1n on the right only, so about 90% of x's rows
 * find a match. A side's column holds all n of its keys at least once
 * (sample_all: each listed once, the other rows drawn from them, in a
 * random order), which for n equal to the rows is a permutation:
 *   x       id1 id2 id3 INTEGER, id4 id5 id6 VARCHAR "id<id1..3>", v1 DOUBLE
 *   small   id1, id4, v2             (rows N/10^6)
 *   medium  id1, id2, id4, id5, v2   (rows N/10^3)
 *   big     id1 .. id6, v2           (rows N)
 * v1 and v2 are round(runif(max = 100), 6). */

#include "h2ogen.h"

static int64_t at_least_10(int64_t n) { return n > 10 ? n : 10; }

basalt_status basalt_h2ogen_join_init(struct basalt_h2ogen_join *j, int64_t rows,
                                      struct basalt_error *err)
{
    memset(j, 0, sizeof *j);
    j->rows = rows;
    j->n[0] = at_least_10(rows / 1000000);
    j->n[1] = at_least_10(rows / 1000);
    j->n[2] = rows;
    for (int k = 0; k < 3; k++) {
        j->total[k] = j->n[k] + (j->n[k] + 5) / 10;
        j->common[k] = j->n[k] - (j->n[k] + 5) / 10;
        j->keys[k] = basalt_malloc((size_t)j->total[k] * sizeof(int32_t));
        if (j->keys[k] == NULL) {
            basalt_h2ogen_join_reset(j);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for %lld keys",
                                    (long long)j->total[k]);
        }
        for (int64_t i = 0; i < j->total[k]; i++)
            j->keys[k][i] = (int32_t)(i + 1);
        struct basalt_h2ogen_rng r;
        h2ogen_seed(&r, H2OGEN_JOIN_KEYS, (uint64_t)k);
        basalt_h2ogen_shuffle(&r, j->keys[k], j->total[k]);
    }
    return BASALT_OK;
}

void basalt_h2ogen_join_reset(struct basalt_h2ogen_join *j)
{
    for (int k = 0; k < 3; k++)
        basalt_free(j->keys[k]);
    memset(j, 0, sizeof *j);
}

/* The i-th of the n keys of domain k on one side: the shared ones, then
 * those of that side only. */
static int32_t side_key(const struct basalt_h2ogen_join *j, int k, bool right, int64_t i)
{
    if (right && i >= j->common[k])
        i += j->n[k] - j->common[k];
    return j->keys[k][i];
}

/* sample_all(keys of domain k on one side, rows) into out[rows]; `sub`
 * names the column for its draws. */
static basalt_status sample_all(const struct basalt_h2ogen_join *j, int k, bool right,
                                int64_t rows, unsigned sub, int32_t *out,
                                struct basalt_error *err)
{
    int64_t n = j->n[k];
    struct basalt_h2ogen_rng r;
    h2ogen_seed(&r, H2OGEN_JOIN_SAMPLE, sub);
    if (rows == n) {
        for (int64_t i = 0; i < n; i++)
            out[i] = side_key(j, k, right, i);
        basalt_h2ogen_shuffle(&r, out, n);
        return BASALT_OK;
    }
    /* Every row drawn from the keys, then each key put in a place of its
     * own: a shuffle of the keys followed by the draws, without moving
     * the whole column. */
    for (int64_t i = 0; i < rows; i++)
        out[i] = side_key(j, k, right, h2ogen_below(h2ogen_draw(H2OGEN_JOIN_SAMPLE, (uint64_t)i,
                                                                 sub), n));
    int64_t *places = basalt_malloc((size_t)n * sizeof *places);
    uint8_t *bits = NULL;
    if (places == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = basalt_h2ogen_choose(&r, rows, n, &bits, places, err);
    for (int64_t i = 0; st == BASALT_OK && i < n; i++)
        out[places[i]] = side_key(j, k, right, i);
    basalt_free(bits);
    basalt_free(places);
    return st;
}

struct join_table {
    const struct basalt_h2ogen_join *j;
    int table;       /* 0 x, 1 small, 2 medium, 3 big */
    int num_ids;     /* id1..id<num_ids> as INTEGER, then as text */
    int32_t *ids[3]; /* the key columns, rows each */
};

static void generate(const void *ctx, int64_t begin, int64_t end, struct basalt_h2ogen_batch *b)
{
    const struct join_table *t = ctx;
    char text[H2OGEN_MAX_STR + 8];
    for (int64_t i = 0; i < end - begin; i++) {
        int64_t r = begin + i;
        for (int c = 0; c < t->num_ids; c++) {
            int32_t v = t->ids[c][r];
            h2ogen_i32(b, c, i, v);
            h2ogen_str(b, t->num_ids + c, i, text, basalt_h2ogen_id(text, v, 1));
        }
        h2ogen_f64(b, 2 * t->num_ids, i,
                   h2ogen_v3(h2ogen_draw(H2OGEN_JOIN_ROWS, (uint64_t)r, (unsigned)t->table)));
    }
}

static const struct basalt_h2ogen_column_spec x_cols[] = {
    {"id1", H2OGEN_I32}, {"id2", H2OGEN_I32}, {"id3", H2OGEN_I32}, {"id4", H2OGEN_STR},
    {"id5", H2OGEN_STR}, {"id6", H2OGEN_STR}, {"v1", H2OGEN_F64}};
static const struct basalt_h2ogen_column_spec small_cols[] = {
    {"id1", H2OGEN_I32}, {"id4", H2OGEN_STR}, {"v2", H2OGEN_F64}};
static const struct basalt_h2ogen_column_spec medium_cols[] = {
    {"id1", H2OGEN_I32}, {"id2", H2OGEN_I32}, {"id4", H2OGEN_STR}, {"id5", H2OGEN_STR},
    {"v2", H2OGEN_F64}};
static const struct basalt_h2ogen_column_spec big_cols[] = {
    {"id1", H2OGEN_I32}, {"id2", H2OGEN_I32}, {"id3", H2OGEN_I32}, {"id4", H2OGEN_STR},
    {"id5", H2OGEN_STR}, {"id6", H2OGEN_STR}, {"v2", H2OGEN_F64}};

static basalt_status write_table(const struct basalt_h2ogen_join *j, int table, const char *dir,
                                 struct basalt_pool *pool, struct basalt_error *err)
{
    static const char *const names[] = {"x", "small", "medium", "big"};
    static const struct basalt_h2ogen_column_spec *const cols[] = {x_cols, small_cols,
                                                                   medium_cols, big_cols};
    static const int num_ids[] = {3, 1, 2, 3};
    int64_t rows = table == 1 ? j->n[0] : table == 2 ? j->n[1] : j->rows;
    struct join_table t = {j, table, num_ids[table], {NULL, NULL, NULL}};
    basalt_status st = BASALT_OK;
    for (int c = 0; c < t.num_ids && st == BASALT_OK; c++) {
        t.ids[c] = basalt_malloc((size_t)rows * sizeof(int32_t));
        if (t.ids[c] == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory for %lld rows",
                                  (long long)rows);
        else
            st = sample_all(j, c, table != 0, rows, (unsigned)(4 * table + c), t.ids[c], err);
    }
    if (st == BASALT_OK) {
        struct basalt_h2ogen_table out = {names[table], cols[table], 2 * t.num_ids + 1, false,
                                          rows, generate, &t};
        st = basalt_h2ogen_write(&out, dir, pool, err);
    }
    for (int c = 0; c < 3; c++)
        basalt_free(t.ids[c]);
    return st;
}

basalt_status basalt_h2ogen_join_write(const struct basalt_h2ogen_join *j, const char *dir,
                                       struct basalt_pool *pool, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int table = 0; table < 4 && st == BASALT_OK; table++)
        st = write_table(j, table, dir, pool, err);
    return st;
}
