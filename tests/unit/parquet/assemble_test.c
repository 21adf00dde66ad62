/* Record assembly on hand-written levels: the worked examples of
 * parquet_schema.h ("Levels of a field") and of the Dremel paper's
 * encoding, each with the Arrow value it must give, plus the level
 * sequences that are inconsistent. Chunks are built with
 * column_build_test.c, the expected rows are written out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet_column.h"
#include "test.h"

struct pqc_el {
    const char *name;
    int32_t type;
    int32_t repetition;
    int32_t children;
    int32_t converted;
    int32_t type_length;
    int32_t precision, scale;
};
struct pqc_page {
    int32_t type;
    int32_t num_values;
    int32_t encoding;
    const int16_t *rep, *def;
    int16_t max_rep, max_def;
    const uint8_t *values;
    size_t values_len;
    int32_t codec;
    bool crc;
    bool bad_crc;
    bool v2_not_compressed;
    bool v2_flag_lies;
    int32_t size_delta;
    bool def_bit_packed;
    bool raw_body;       /* v1: `values` is the whole page body, levels included */
};
struct pqc_chunk {
    struct basalt_buffer bytes;
    struct basalt_parquet_column_metadata meta;
    int64_t page_offsets[64];
    int32_t n_data_pages;
};
void pqc_chunk_init(struct pqc_chunk *c, int32_t physical, int32_t codec);
void pqc_chunk_reset(struct pqc_chunk *c);
void pqc_chunk_add(struct pqc_chunk *c, const struct pqc_page *p);
basalt_status pqc_schema(const struct pqc_el *els, size_t n, struct basalt_parquet_schema **out);
void pqc_plain_i32(struct basalt_buffer *b, const int32_t *v, size_t n);
void pqc_plain_bytes(struct basalt_buffer *b, const char *const *v, size_t n);
basalt_status pqc_rows(const struct basalt_parquet_schema *s, struct pqc_chunk *chunks,
                       int64_t num_rows, const struct basalt_parquet_column_options *o,
                       struct basalt_parquet_scratch *scratch, struct basalt_buffer *text,
                       struct basalt_error *err);
bool pqc_text_is(struct basalt_buffer *text, const char *want);

#define REQ BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED
#define OPT BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL
#define REP BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED
#define I32 BASALT_PARQUET_TYPE_INT32
#define BIN BASALT_PARQUET_TYPE_BYTE_ARRAY
#define GROUP (-1)
#define NONE (-1)
#define LIST BASALT_PARQUET_CONVERTED_TYPE_LIST
#define MAP BASALT_PARQUET_CONVERTED_TYPE_MAP
#define UTF8 BASALT_PARQUET_CONVERTED_TYPE_UTF8

/* A leaf's levels and its present int32 values (or strings), as one v1 page
 * (or, split at `split`, two pages: a record continued across pages). */
struct leaf_data {
    int32_t physical;
    int16_t max_def, max_rep;
    const int16_t *def, *rep;
    int32_t n;
    const int32_t *ints;
    const char *const *strings;
    int32_t n_values;
    int32_t split; /* 0: one page */
};

static void add_pages(struct pqc_chunk *c, const struct leaf_data *d, bool v2)
{
    int32_t cuts[3] = {0, d->split ? d->split : d->n, d->n};
    int32_t vpos = 0;
    for (int k = 0; k < 2; k++) {
        int32_t b = cuts[k], e = cuts[k + 1];
        if (b == e)
            continue;
        int32_t present = 0;
        for (int32_t i = b; i < e; i++)
            present += !d->def || d->def[i] == d->max_def;
        struct basalt_buffer vals;
        basalt_buffer_init(&vals);
        if (d->physical == BIN)
            pqc_plain_bytes(&vals, d->strings + vpos, (size_t)present);
        else
            pqc_plain_i32(&vals, d->ints + vpos, (size_t)present);
        vpos += present;
        struct pqc_page p = {
            .type = v2 ? BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2 : 0,
            .num_values = e - b,
            .encoding = BASALT_PARQUET_ENCODING_PLAIN,
            .def = d->def ? d->def + b : NULL,
            .rep = d->rep ? d->rep + b : NULL,
            .max_def = d->max_def,
            .max_rep = d->max_rep,
            .values = vals.data,
            .values_len = vals.size,
        };
        pqc_chunk_add(c, &p);
        basalt_buffer_reset(&vals);
    }
}

/* Fields made fixed-size lists, as ARROW:schema restores them: field index
 * (pre-order) and size, `n` of them. */
struct fixed {
    int32_t field, size;
};

/* Builds the schema, one chunk a leaf, assembles, compares the rows. */
static basalt_status run_fixed(const struct pqc_el *els, size_t n_els,
                               const struct leaf_data *leaves, int32_t n_leaves, int64_t rows,
                               const char *want, const struct fixed *fixed, int n_fixed,
                               bool *same, struct basalt_error *err)
{
    struct basalt_parquet_schema *s = NULL;
    basalt_status st = pqc_schema(els, n_els, &s);
    if (st != BASALT_OK)
        return st;
    static char formats[8][16];
    for (int k = 0; k < n_fixed && k < 8; k++) {
        struct basalt_parquet_schema_field *f = &s->fields[fixed[k].field];
        snprintf(formats[k], sizeof formats[k], "+w:%d", (int)fixed[k].size);
        f->kind = BASALT_PARQUET_FIELD_FIXED_LIST;
        f->format = formats[k];
        f->list_size = fixed[k].size;
    }
    *same = true;
    for (int v2 = 0; v2 < 2 && st == BASALT_OK; v2++) {
        struct pqc_chunk chunks[8];
        for (int32_t k = 0; k < n_leaves; k++) {
            pqc_chunk_init(&chunks[k], leaves[k].physical, 0);
            add_pages(&chunks[k], &leaves[k], v2);
        }
        struct basalt_parquet_scratch *scratch = NULL;
        st = basalt_parquet_scratch_new(&scratch, err);
        struct basalt_buffer text;
        basalt_buffer_init(&text);
        if (st == BASALT_OK)
            st = pqc_rows(s, chunks, rows, NULL, scratch, &text, err);
        if (st == BASALT_OK && want)
            *same = *same && pqc_text_is(&text, want);
        basalt_buffer_reset(&text);
        basalt_parquet_scratch_free(scratch);
        for (int32_t k = 0; k < n_leaves; k++)
            pqc_chunk_reset(&chunks[k]);
    }
    basalt_parquet_schema_free(s);
    return st;
}

static basalt_status run(const struct pqc_el *els, size_t n_els, const struct leaf_data *leaves,
                         int32_t n_leaves, int64_t rows, const char *want, bool *same,
                         struct basalt_error *err)
{
    return run_fixed(els, n_els, leaves, n_leaves, rows, want, NULL, 0, same, err);
}

/* (a) optional group s { optional int32 a; required int32 b; } */
TEST(assemble_struct_validity_from_levels)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"s", GROUP, OPT, 2, NONE, 0, 0, 0},
                                 {"a", I32, OPT, 0, NONE, 0, 0, 0},
                                 {"b", I32, REQ, 0, NONE, 0, 0, 0}};
    /* s = null; s = {a: null, b: 2}; s = {a: 3, b: 4} */
    const int16_t def_a[] = {0, 1, 2}, def_b[] = {0, 1, 1};
    const int32_t va[] = {3}, vb[] = {2, 4};
    const struct leaf_data leaves[] = {{I32, 2, 0, def_a, NULL, 3, va, NULL, 1, 0},
                                       {I32, 1, 0, def_b, NULL, 3, vb, NULL, 2, 0}};
    bool same;
    struct basalt_error err;
    CHECK_OK(run(els, 4, leaves, 2, 3, "[null]\n[{\"a\":null,\"b\":\"2\"}]\n[{\"a\":\"3\",\"b\":\"4\"}]\n",
                 &same, &err),
             &err);
    CHECK(same);
}

/* (b) the three-level LIST; a record split across pages. */
TEST(assemble_three_level_list)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"a", GROUP, OPT, 1, LIST, 0, 0, 0},
                                 {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                 {"element", I32, OPT, 0, NONE, 0, 0, 0}};
    /* null, [], [null], [1, 2, 3], [4], [5] */
    const int16_t def[] = {0, 1, 2, 3, 3, 3, 3, 3};
    const int16_t rep[] = {0, 0, 0, 0, 1, 1, 0, 0};
    const int32_t v[] = {1, 2, 3, 4, 5};
    const char *want = "[null]\n[[]]\n[[null]]\n[[\"1\",\"2\",\"3\"]]\n[[\"4\"]]\n[[\"5\"]]\n";
    bool same;
    struct basalt_error err;
    for (int32_t split = 0; split <= 5; split += 5) {
        /* split 5: the page boundary falls inside [1, 2, 3] */
        const struct leaf_data leaves[] = {{I32, 3, 1, def, rep, 8, v, NULL, 5, split}};
        CHECK_OK(run(els, 4, leaves, 1, 6, want, &same, &err), &err);
        CHECK(same);
    }
}

/* DuckDB's null fixed-size ARRAY: INTEGER[2] values null, [1, null], null,
 * [3, 4] are written with two levels per row, a null row as (d 0, r 0)
 * then (d 0, r 1): a continuation that defines nothing. Both walks read it
 * as one null (as DuckDB, Polars and Arrow do); a continuation of a null
 * list that does define something stays corrupt
 * (assemble_rejects_inconsistent_levels). Also inside a list of arrays,
 * which the general branch-free walk handles, and an ARRAY of ARRAYs whose
 * null outer value pads the inner field's levels too. */
TEST(assemble_duckdb_null_fixed_size_array)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"a", GROUP, OPT, 1, LIST, 0, 0, 0},
                                 {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                 {"element", I32, OPT, 0, NONE, 0, 0, 0}};
    const int16_t def[] = {0, 0, 3, 2, 0, 0, 3, 3};
    const int16_t rep[] = {0, 1, 0, 1, 0, 1, 0, 1};
    const int32_t v[] = {1, 3, 4};
    const char *want = "[null]\n[[\"1\",null]]\n[null]\n[[\"3\",\"4\"]]\n";
    bool same;
    struct basalt_error err;
    const struct leaf_data leaves[] = {{I32, 3, 1, def, rep, 8, v, NULL, 3, 0}};
    CHECK_OK(run(els, 4, leaves, 1, 4, want, &same, &err), &err);
    CHECK(same);

    /* list<INTEGER[2]>: [[1, 2], null], null */
    const struct pqc_el nested[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                    {"a", GROUP, OPT, 1, LIST, 0, 0, 0},
                                    {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                    {"element", GROUP, OPT, 1, LIST, 0, 0, 0},
                                    {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                    {"element", I32, OPT, 0, NONE, 0, 0, 0}};
    const int16_t d2[] = {5, 5, 2, 2, 0};
    const int16_t r2[] = {0, 2, 1, 2, 0};
    const int32_t v2[] = {1, 2};
    const char *want2 = "[[[\"1\",\"2\"],null]]\n[null]\n";
    const struct leaf_data l2[] = {{I32, 5, 2, d2, r2, 5, v2, NULL, 2, 0}};
    CHECK_OK(run(nested, 6, l2, 1, 2, want2, &same, &err), &err);
    CHECK(same);

    /* INTEGER[2][2] as DuckDB writes it: [[1, 2], [3, 4]], then null (four
     * levels defining nothing), then [null, [5, 6]] */
    const int16_t d3[] = {5, 5, 5, 5, 0, 0, 0, 0, 2, 2, 5, 5};
    const int16_t r3[] = {0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2};
    const int32_t v3[] = {1, 2, 3, 4, 5, 6};
    const char *want3 = "[[[\"1\",\"2\"],[\"3\",\"4\"]]]\n[null]\n[[null,[\"5\",\"6\"]]]\n";
    const struct leaf_data l3[] = {{I32, 5, 2, d3, r3, 12, v3, NULL, 6, 0}};
    CHECK_OK(run(nested, 6, l3, 1, 3, want3, &same, &err), &err);
    CHECK(same);
}

/* Lists restored as fixed-size lists (ARROW:schema): null lists written
 * as one level (Arrow, Polars) or as one level per element (DuckDB) both
 * take `size` child slots, at any depth (a list of arrays, an array of
 * arrays, an array of structs with strings); the arrays are validated in
 * full (child lengths, offsets) by pqc_rows. A present list of another
 * length, an empty one included, is CORRUPT; null lists asking for more than
 * 2^31-1 child slots are LIMIT. */
TEST(assemble_fixed_size_list)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"a", GROUP, OPT, 1, LIST, 0, 0, 0},
                                 {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                 {"element", I32, OPT, 0, NONE, 0, 0, 0}};
    const struct fixed a2[] = {{0, 2}};
    const char *want = "[null]\n[[\"1\",null]]\n[null]\n[[\"3\",\"4\"]]\n";
    const int32_t v[] = {1, 3, 4};
    bool same;
    struct basalt_error err;
    const int16_t duck_def[] = {0, 0, 3, 2, 0, 0, 3, 3};
    const int16_t duck_rep[] = {0, 1, 0, 1, 0, 1, 0, 1};
    const struct leaf_data duck[] = {{I32, 3, 1, duck_def, duck_rep, 8, v, NULL, 3, 0}};
    CHECK_OK(run_fixed(els, 4, duck, 1, 4, want, a2, 1, &same, &err), &err);
    CHECK(same);
    const int16_t arrow_def[] = {0, 3, 2, 0, 3, 3};
    const int16_t arrow_rep[] = {0, 0, 1, 0, 0, 1};
    const struct leaf_data arrow[] = {{I32, 3, 1, arrow_def, arrow_rep, 6, v, NULL, 3, 0}};
    CHECK_OK(run_fixed(els, 4, arrow, 1, 4, want, a2, 1, &same, &err), &err);
    CHECK(same);

    /* three elements in a list of two; an empty list */
    const int16_t d3[] = {3, 3, 3}, r3[] = {0, 1, 1};
    const struct leaf_data long_list[] = {{I32, 3, 1, d3, r3, 3, v, NULL, 3, 0}};
    CHECK_STATUS(run_fixed(els, 4, long_list, 1, -1, NULL, a2, 1, &same, &err), BASALT_CORRUPT,
                 &err);
    CHECK(strstr(err.message, "list 0 holds 3 elements") != NULL);
    CHECK(strstr(err.message, "fixed-size list of 2") != NULL);
    const int16_t de[] = {3, 3, 1}, re[] = {0, 1, 0};
    const struct leaf_data empty[] = {{I32, 3, 1, de, re, 3, v, NULL, 2, 0}};
    CHECK_STATUS(run_fixed(els, 4, empty, 1, -1, NULL, a2, 1, &same, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "list 1 holds 0 elements") != NULL);
    /* null lists of a huge fixed size: their slots are bounded, not allocated */
    const struct fixed huge[] = {{0, 1 << 30}};
    const int16_t dz[] = {0, 0, 0}, rz[] = {0, 0, 0};
    const struct leaf_data nulls[] = {{I32, 3, 1, dz, rz, 3, v, NULL, 0, 0}};
    CHECK_STATUS(run_fixed(els, 4, nulls, 1, -1, NULL, huge, 1, &same, &err), BASALT_LIMIT, &err);

    /* list<INTEGER[2]>: [[1, 2], null], null */
    const struct pqc_el nested[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                    {"a", GROUP, OPT, 1, LIST, 0, 0, 0},
                                    {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                    {"element", GROUP, OPT, 1, LIST, 0, 0, 0},
                                    {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                    {"element", I32, OPT, 0, NONE, 0, 0, 0}};
    const struct fixed inner2[] = {{1, 2}};
    const int16_t dn[] = {5, 5, 2, 2, 0};
    const int16_t rn[] = {0, 2, 1, 2, 0};
    const int32_t vn[] = {1, 2};
    const struct leaf_data ln[] = {{I32, 5, 2, dn, rn, 5, vn, NULL, 2, 0}};
    CHECK_OK(run_fixed(nested, 6, ln, 1, 2, "[[[\"1\",\"2\"],null]]\n[null]\n", inner2, 1,
                       &same, &err),
             &err);
    CHECK(same);

    /* INTEGER[2][2]: [[1, 2], [3, 4]], null, [null, [5, 6]]: the null outer
     * array gets four slots below its two */
    const struct fixed both[] = {{0, 2}, {1, 2}};
    const int16_t dd[] = {5, 5, 5, 5, 0, 0, 0, 0, 2, 2, 5, 5};
    const int16_t rd[] = {0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2};
    const int32_t vd[] = {1, 2, 3, 4, 5, 6};
    const char *want_dd = "[[[\"1\",\"2\"],[\"3\",\"4\"]]]\n[null]\n[[null,[\"5\",\"6\"]]]\n";
    const struct leaf_data ld[] = {{I32, 5, 2, dd, rd, 12, vd, NULL, 6, 0}};
    CHECK_OK(run_fixed(nested, 6, ld, 1, 3, want_dd, both, 2, &same, &err), &err);
    CHECK(same);
    const int16_t dd1[] = {5, 5, 5, 5, 0, 2, 5, 5};
    const int16_t rd1[] = {0, 2, 1, 2, 0, 0, 1, 2};
    const struct leaf_data ld1[] = {{I32, 5, 2, dd1, rd1, 8, vd, NULL, 6, 0}};
    CHECK_OK(run_fixed(nested, 6, ld1, 1, 3, want_dd, both, 2, &same, &err), &err);
    CHECK(same);

    /* STRUCT(p INTEGER, s VARCHAR)[2]: [{1, "x"}, null], null, [{null, "yz"}, {3, null}] */
    const struct pqc_el st_els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                    {"a", GROUP, OPT, 1, LIST, 0, 0, 0},
                                    {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                    {"element", GROUP, OPT, 2, NONE, 0, 0, 0},
                                    {"p", I32, OPT, 0, NONE, 0, 0, 0},
                                    {"s", BIN, OPT, 0, UTF8, 0, 0, 0}};
    const int16_t dp[] = {4, 2, 0, 3, 4}, ds[] = {4, 2, 0, 4, 3}, rs[] = {0, 1, 0, 0, 1};
    const int32_t vp[] = {1, 3};
    const char *const vs[] = {"x", "yz"};
    const struct leaf_data lst[] = {{I32, 4, 1, dp, rs, 5, vp, NULL, 2, 0},
                                    {BIN, 4, 1, ds, rs, 5, NULL, vs, 2, 0}};
    CHECK_OK(run_fixed(st_els, 6, lst, 2, 3,
                       "[[{\"p\":\"1\",\"s\":\"x\"},null]]\n[null]\n"
                       "[[{\"p\":null,\"s\":\"yz\"},{\"p\":\"3\",\"s\":null}]]\n",
                       a2, 1, &same, &err),
             &err);
    CHECK(same);
}

/* (c) a list of lists: [[1, 2], [], null], null, [], [[null]] */
TEST(assemble_nested_lists)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"outer", GROUP, OPT, 1, LIST, 0, 0, 0},
                                 {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                 {"element", GROUP, OPT, 1, LIST, 0, 0, 0},
                                 {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                 {"element", I32, OPT, 0, NONE, 0, 0, 0}};
    const int16_t def[] = {5, 5, 3, 2, 0, 1, 4};
    const int16_t rep[] = {0, 2, 1, 1, 0, 0, 0};
    const int32_t v[] = {1, 2};
    const struct leaf_data leaves[] = {{I32, 5, 2, def, rep, 7, v, NULL, 2, 0}};
    bool same;
    struct basalt_error err;
    CHECK_OK(run(els, 6, leaves, 1, 4, "[[[\"1\",\"2\"],[],null]]\n[null]\n[[]]\n[[[null]]]\n", &same,
                 &err),
             &err);
    CHECK(same);
}

/* (e) a MAP of string keys to nullable ints. */
TEST(assemble_map)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"m", GROUP, OPT, 1, MAP, 0, 0, 0},
                                 {"key_value", GROUP, REP, 2, NONE, 0, 0, 0},
                                 {"key", BIN, REQ, 0, UTF8, 0, 0, 0},
                                 {"value", I32, OPT, 0, NONE, 0, 0, 0}};
    /* null, {}, {"x": null}, {"x": 1, "y": 2} */
    const int16_t def_k[] = {0, 1, 2, 2, 2}, def_v[] = {0, 1, 2, 3, 3};
    const int16_t rep[] = {0, 0, 0, 0, 1};
    const char *const keys[] = {"x", "x", "y"};
    const int32_t vals[] = {1, 2};
    const struct leaf_data leaves[] = {{BIN, 2, 1, def_k, rep, 5, NULL, keys, 3, 0},
                                       {I32, 3, 1, def_v, rep, 5, vals, NULL, 2, 0}};
    bool same;
    struct basalt_error err;
    CHECK_OK(run(els, 5, leaves, 2, 4,
                 "[null]\n[[]]\n[[[\"x\",null]]]\n[[[\"x\",\"1\"],[\"y\",\"2\"]]]\n", &same, &err),
             &err);
    CHECK(same);
}

/* (f) an unannotated repeated field, and a repeated group of two fields. */
TEST(assemble_unannotated_repeated)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 2, NONE, 0, 0, 0},
                                 {"x", I32, REP, 0, NONE, 0, 0, 0},
                                 {"g", GROUP, REP, 2, NONE, 0, 0, 0},
                                 {"a", I32, REQ, 0, NONE, 0, 0, 0},
                                 {"b", BIN, OPT, 0, UTF8, 0, 0, 0}};
    /* x = [], g = [{1, "p"}, {2, null}]; x = [7, 8], g = [] */
    const int16_t def_x[] = {0, 1, 1}, rep_x[] = {0, 0, 1};
    const int16_t def_a[] = {1, 1, 0}, rep_g[] = {0, 1, 0};
    const int16_t def_b[] = {2, 1, 0};
    const int32_t vx[] = {7, 8}, va[] = {1, 2};
    const char *const vb[] = {"p"};
    const struct leaf_data leaves[] = {{I32, 1, 1, def_x, rep_x, 3, vx, NULL, 2, 0},
                                       {I32, 1, 1, def_a, rep_g, 3, va, NULL, 2, 0},
                                       {BIN, 2, 1, def_b, rep_g, 3, NULL, vb, 1, 0}};
    bool same;
    struct basalt_error err;
    CHECK_OK(run(els, 5, leaves, 3, 2,
                 "[[],[{\"a\":\"1\",\"b\":\"p\"},{\"a\":\"2\",\"b\":null}]]\n[[\"7\",\"8\"],[]]\n",
                 &same, &err),
             &err);
    CHECK(same);
}

/* A struct inside a list inside a struct: optional group r { optional group
 * l (LIST) { repeated group list { optional group element { optional int32
 * p; optional int32 q; } } } } */
TEST(assemble_struct_in_list_in_struct)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"r", GROUP, OPT, 1, NONE, 0, 0, 0},
                                 {"l", GROUP, OPT, 1, LIST, 0, 0, 0},
                                 {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                 {"element", GROUP, OPT, 2, NONE, 0, 0, 0},
                                 {"p", I32, OPT, 0, NONE, 0, 0, 0},
                                 {"q", I32, OPT, 0, NONE, 0, 0, 0}};
    /* r = null; r = {l: null}; r = {l: []}; r = {l: [null, {p: 1, q: null}, {p: null, q: 2}]} */
    const int16_t def_p[] = {0, 1, 2, 3, 5, 4}, def_q[] = {0, 1, 2, 3, 4, 5};
    const int16_t rep[] = {0, 0, 0, 0, 1, 1};
    const int32_t vp[] = {1}, vq[] = {2};
    const struct leaf_data leaves[] = {{I32, 5, 1, def_p, rep, 6, vp, NULL, 1, 0},
                                       {I32, 5, 1, def_q, rep, 6, vq, NULL, 1, 0}};
    bool same;
    struct basalt_error err;
    CHECK_OK(run(els, 7, leaves, 2, 4,
                 "[null]\n[{\"l\":null}]\n[{\"l\":[]}]\n"
                 "[{\"l\":[null,{\"p\":\"1\",\"q\":null},{\"p\":null,\"q\":\"2\"}]}]\n",
                 &same, &err),
             &err);
    CHECK(same);
}

TEST(assemble_rejects_inconsistent_levels)
{
    const struct pqc_el list_els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                      {"a", GROUP, OPT, 1, LIST, 0, 0, 0},
                                      {"list", GROUP, REP, 1, NONE, 0, 0, 0},
                                      {"element", I32, OPT, 0, NONE, 0, 0, 0}};
    const int32_t v[] = {1, 2, 3};
    bool same;
    struct basalt_error err;
    /* The chunk starts inside a record (ARROW-GH-45185). */
    const int16_t d1[] = {3, 3}, r1[] = {1, 0};
    const struct leaf_data l1[] = {{I32, 3, 1, d1, r1, 2, v, NULL, 2, 0}};
    CHECK_STATUS(run(list_els, 4, l1, 1, -1, NULL, &same, &err), BASALT_CORRUPT, &err);
    /* A null list continued. */
    const int16_t d2[] = {0, 3}, r2[] = {0, 1};
    const struct leaf_data l2[] = {{I32, 3, 1, d2, r2, 2, v, NULL, 1, 0}};
    CHECK_STATUS(run(list_els, 4, l2, 1, -1, NULL, &same, &err), BASALT_CORRUPT, &err);
    /* An empty list continued. */
    const int16_t d3[] = {1, 3}, r3[] = {0, 1};
    const struct leaf_data l3[] = {{I32, 3, 1, d3, r3, 2, v, NULL, 1, 0}};
    CHECK_STATUS(run(list_els, 4, l3, 1, -1, NULL, &same, &err), BASALT_CORRUPT, &err);

    /* Sibling leaves of a struct disagreeing on rows (ARROW-GH-41317). */
    const struct pqc_el st_els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                    {"s", GROUP, OPT, 2, NONE, 0, 0, 0},
                                    {"a", I32, OPT, 0, NONE, 0, 0, 0},
                                    {"b", I32, OPT, 0, NONE, 0, 0, 0}};
    const int16_t da[] = {2, 2, 2}, db[] = {2, 2};
    const struct leaf_data l4[] = {{I32, 2, 0, da, NULL, 3, v, NULL, 3, 0},
                                   {I32, 2, 0, db, NULL, 2, v, NULL, 2, 0}};
    CHECK_STATUS(run(st_els, 4, l4, 2, -1, NULL, &same, &err), BASALT_CORRUPT, &err);

    /* A null map key (the file marks the key optional). */
    const struct pqc_el map_els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                     {"m", GROUP, OPT, 1, MAP, 0, 0, 0},
                                     {"key_value", GROUP, REP, 2, NONE, 0, 0, 0},
                                     {"key", BIN, OPT, 0, UTF8, 0, 0, 0},
                                     {"value", I32, OPT, 0, NONE, 0, 0, 0}};
    const int16_t dk[] = {2, 3}, dv[] = {3, 3}, rk[] = {0, 1};
    const char *const keys[] = {"k"};
    const struct leaf_data l5[] = {{BIN, 3, 1, dk, rk, 2, NULL, keys, 1, 0},
                                   {I32, 3, 1, dv, rk, 2, v, NULL, 2, 0}};
    CHECK_STATUS(run(map_els, 5, l5, 2, -1, NULL, &same, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "map key") != NULL);
}

/* Leaves not decoded, bad field indices. */
TEST(assemble_argument_checks)
{
    const struct pqc_el els[] = {{"schema", GROUP, REQ, 1, NONE, 0, 0, 0},
                                 {"a", I32, OPT, 0, NONE, 0, 0, 0}};
    struct basalt_parquet_schema *s = NULL;
    CHECK_OK(pqc_schema(els, 2, &s), NULL);
    struct basalt_parquet_leaf_values leaves[1];
    memset(leaves, 0, sizeof leaves);
    struct ArrowArray out;
    struct basalt_error err;
    basalt_status a = basalt_parquet_assemble_field(s, s->roots[0], leaves, &out, &err);
    basalt_status b = basalt_parquet_assemble_field(s, 99, leaves, &out, &err);
    basalt_status c = basalt_parquet_assemble_field(s, 0, NULL, &out, &err);
    basalt_parquet_schema_free(s);
    CHECK_EQ(a, BASALT_INVALID_ARG);
    CHECK_EQ(b, BASALT_INVALID_ARG);
    CHECK_EQ(c, BASALT_INVALID_ARG);
    CHECK(out.release == NULL);
}
