/* The group-by table x of groupby-datagen.R:
 *   id1, id2  VARCHAR "id%03d" of 1..K        id4, id5  INTEGER 1..K
 *   id3       VARCHAR "id%010d" of 1..N/K     id6       INTEGER 1..N/K
 *   v1 INTEGER 1..5, v2 INTEGER 1..15, v3 DOUBLE in [0, 100] to 6 places
 * With NAs, as the R script does: in each id column NAS% of its distinct
 * values become NA (every row holding one), and in each v column NAS% of
 * the rows. The script draws them from the values present; here from the
 * whole domain, which at N/K rows per value is the same set. */
#include "h2ogen.h"

static const struct basalt_h2ogen_column_spec columns[] = {
    {"id1", H2OGEN_STR}, {"id2", H2OGEN_STR}, {"id3", H2OGEN_STR},
    {"id4", H2OGEN_I32}, {"id5", H2OGEN_I32}, {"id6", H2OGEN_I32},
    {"v1", H2OGEN_I32},  {"v2", H2OGEN_I32},  {"v3", H2OGEN_F64}};

static int64_t domain(const struct basalt_h2ogen_groupby *g, int c)
{
    return c == 2 || c == 5 ? g->groups : g->k;
}

static bool bit(const uint8_t *bits, int64_t i)
{
    return bits != NULL && (bits[i >> 3] >> (i & 7)) & 1;
}

int64_t basalt_h2ogen_groupby_code(const struct basalt_h2ogen_groupby *g, int c, int64_t r)
{
    int64_t v = h2ogen_below(h2ogen_draw(H2OGEN_GROUPBY_ROWS, (uint64_t)r, (unsigned)c),
                             domain(g, c));
    return bit(g->na_id[c], v) ? 0 : v + 1;
}

basalt_status basalt_h2ogen_groupby_init(struct basalt_h2ogen_groupby *g, int64_t rows, int64_t k,
                                         int nas, bool sort, struct basalt_error *err)
{
    memset(g, 0, sizeof *g);
    g->rows = rows;
    g->k = k;
    g->groups = rows / k > 0 ? rows / k : 1;
    g->nas = nas;
    basalt_status st = BASALT_OK;
    for (int c = 0; nas > 0 && c < 9 && st == BASALT_OK; c++) {
        struct basalt_h2ogen_rng r;
        h2ogen_seed(&r, H2OGEN_GROUPBY_NA, (uint64_t)c);
        int64_t n = c < 6 ? domain(g, c) : rows;
        st = basalt_h2ogen_choose(&r, n, n * nas / 100, c < 6 ? &g->na_id[c] : &g->na_v[c - 6],
                                  NULL, err);
    }
    if (st == BASALT_OK && sort)
        st = basalt_h2ogen_groupby_sort(g, err);
    if (st != BASALT_OK)
        basalt_h2ogen_groupby_reset(g);
    return st;
}

void basalt_h2ogen_groupby_reset(struct basalt_h2ogen_groupby *g)
{
    for (int c = 0; c < 6; c++)
        basalt_free(g->na_id[c]);
    for (int c = 0; c < 3; c++)
        basalt_free(g->na_v[c]);
    basalt_free(g->perm);
    memset(g, 0, sizeof *g);
}

static void generate(const void *ctx, int64_t begin, int64_t end, struct basalt_h2ogen_batch *b)
{
    const struct basalt_h2ogen_groupby *g = ctx;
    static const int32_t v_domain[2] = {5, 15};
    char text[H2OGEN_MAX_STR + 8];
    for (int64_t i = 0; i < end - begin; i++) {
        int64_t r = g->perm != NULL ? (int64_t)g->perm[begin + i] : begin + i;
        for (int c = 0; c < 6; c++) {
            int64_t v = basalt_h2ogen_groupby_code(g, c, r);
            if (v == 0)
                h2ogen_null(b, c, i);
            else if (c < 3)
                h2ogen_str(b, c, i, text, basalt_h2ogen_id(text, v, c == 2 ? 10 : 3));
            else
                h2ogen_i32(b, c, i, (int32_t)v);
        }
        for (int c = 6; c < 9; c++) {
            if (bit(g->na_v[c - 6], r)) {
                h2ogen_null(b, c, i);
                continue;
            }
            uint64_t d = h2ogen_draw(H2OGEN_GROUPBY_ROWS, (uint64_t)r, (unsigned)c);
            if (c < 8)
                h2ogen_i32(b, c, i, (int32_t)h2ogen_below(d, v_domain[c - 6]) + 1);
            else
                h2ogen_f64(b, c, i, h2ogen_v3(d));
        }
    }
}

void basalt_h2ogen_groupby_table(const struct basalt_h2ogen_groupby *g,
                                 struct basalt_h2ogen_table *out)
{
    out->name = "x";
    out->columns = columns;
    out->num_columns = 9;
    out->nullable = g->nas > 0;
    out->rows = g->rows;
    out->generate = generate;
    out->ctx = g;
}
