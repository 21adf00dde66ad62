/* The aggregation's fast paths against independent answers: the word index
 * (one key word inline in the slot) and the one-local finish over ~100k
 * groups of int64, int32 and int16 keys with NULLs and negative values,
 * checked against a sort-based reference computed here; the one-string-key
 * encoder and the word hash checked byte for byte against the generic row
 * encoder and row hash (the oracle); and the radix-sorted output order
 * checked against its definition (hash, then key row) on forced hash
 * collisions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_internal.h"
#include "agg_util.h"
#include "test.h"

#define T(id) basalt_query_type_make(BASALT_QUERY_TYPE_##id)

struct kv {
    int64_t k, v;
    bool null;
};

static int cmp_kv(const void *x, const void *y)
{
    const struct kv *a = x, *b = y;
    if (a->null != b->null)
        return a->null ? 1 : -1;
    if (!a->null && a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return 0;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* count(*), sum(v), min(v) per key, from sorted pairs, as sorted lines. */
static char **reference(struct kv *p, int64_t n, int64_t *n_out)
{
    qsort(p, (size_t)n, sizeof *p, cmp_kv);
    char **lines = malloc(sizeof(char *) * (size_t)(n + 1));
    int64_t m = 0;
    for (int64_t i = 0, j; i < n; i = j) {
        int64_t sum = 0, mn = INT64_MAX;
        for (j = i; j < n && cmp_kv(&p[i], &p[j]) == 0; j++) {
            sum += p[j].v;
            mn = p[j].v < mn ? p[j].v : mn;
        }
        char b[128];
        if (p[i].null)
            snprintf(b, sizeof b, "NULL|%lld|%lld|%lld", (long long)(j - i), (long long)sum,
                     (long long)mn);
        else
            snprintf(b, sizeof b, "%lld|%lld|%lld|%lld", (long long)p[i].k, (long long)(j - i),
                     (long long)sum, (long long)mn);
        lines[m++] = strdup(b);
    }
    qsort(lines, (size_t)m, sizeof *lines, cmp_line);
    *n_out = m;
    return lines;
}

/* ROWS rows of keys in [-range/2, range/2) of `fmt`, every 101st NULL;
 * `hashed`: the chunks must go through the word index (else the dense map,
 * whose new groups still land in the word index). */
static int word_case(const char *fmt, struct basalt_query_type kt, int64_t range, bool hashed)
{
    enum { ROWS = 200000 };
    struct basalt_error err;
    basalt_error_init(&err);
    char **kc = malloc(sizeof(char *) * ROWS), **vc = malloc(sizeof(char *) * ROWS);
    struct kv *p = malloc(sizeof *p * ROWS);
    uint64_t s = 99;
    for (int64_t i = 0; i < ROWS; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int64_t k = (int64_t)((s >> 33) % (uint64_t)range) - range / 2, v = (int64_t)(i % 13) - 6;
        char b[32];
        p[i] = (struct kv){k, v, i % 101 == 0};
        snprintf(b, sizeof b, "%lld", (long long)k);
        kc[i] = strdup(p[i].null ? "N" : b);
        snprintf(b, sizeof b, "%lld", (long long)v);
        vc[i] = strdup(b);
    }
    int64_t n_want;
    char **want = reference(p, ROWS, &n_want);
    struct ArrowArray key, arg;
    int bad = 0;
    if (at_array(fmt, (const char *const *)kc, ROWS, &key) != BASALT_OK ||
        at_array("l", (const char *const *)vc, ROWS, &arg) != BASALT_OK)
        return printf("bad column\n"), 1;
    struct basalt_qagg_call calls[] = {{BASALT_QAGG_COUNT_STAR, false, T(INT64), 0, NULL, T(NULL), false},
                                       {BASALT_QAGG_SUM, false, T(INT64), 0, NULL, T(NULL), false},
                                       {BASALT_QAGG_MIN, false, T(INT64), 0, NULL, T(NULL), false}};
    struct ArrowArray args[3] = {arg, arg, arg};
    char **first = NULL;
    int64_t n_first = 0;
    for (int mode = 0; mode < 3 && !bad; mode++) {
        struct basalt_qagg *agg;
        if (basalt_qagg_new(&kt, 1, calls, 3, NULL, &agg, &err) != BASALT_OK)
            return printf("new: %s\n", err.message), 1;
        struct at_opts o = {mode == 0 ? 1 : mode == 1 ? 2 : 3, mode == 2 ? 11 : 0, NULL, false, NULL};
        char **rows;
        int64_t nr;
        if (at_run(agg, &kt, 1, calls, 3, &key, args, ROWS, &o, &rows, &nr, &err) != BASALT_OK)
            return printf("run: %s\n", err.message), 1;
        struct basalt_qagg_stats st;
        basalt_qagg_stats(agg, &st);
        if ((st.word_batches > 0) != hashed || st.direct_finish != (o.locals == 1)) {
            printf("%s: word_batches %lld, direct_finish %d with %d locals\n", fmt,
                   (long long)st.word_batches, st.direct_finish, o.locals);
            bad = 1;
        }
        /* the same order for any number of locals and splits */
        if (!first) {
            first = rows;
            n_first = nr;
        } else {
            for (int64_t i = 0; i < nr && i < n_first && !bad; i++)
                if (strcmp(rows[i], first[i]) != 0) {
                    printf("%s: %d locals, row %lld: '%s' vs '%s'\n", fmt, o.locals,
                           (long long)i, rows[i], first[i]);
                    bad = 1;
                }
            at_free(rows, nr);
        }
        basalt_qagg_free(agg);
    }
    qsort(first, (size_t)n_first, sizeof *first, cmp_line);
    if (n_first != n_want) {
        printf("%s: %lld groups, expected %lld\n", fmt, (long long)n_first, (long long)n_want);
        bad = 1;
    }
    for (int64_t i = 0; i < n_first && i < n_want && !bad; i++)
        if (strcmp(first[i], want[i]) != 0) {
            printf("%s: got '%s', expected '%s'\n", fmt, first[i], want[i]);
            bad = 1;
        }
    at_free(first, n_first);
    at_free(want, n_want);
    basalt_arrow_array_release(&key);
    basalt_arrow_array_release(&arg);
    for (int64_t i = 0; i < ROWS; i++) {
        free(kc[i]);
        free(vc[i]);
    }
    free(kc);
    free(vc);
    free(p);
    return bad;
}

TEST(agg_word_index_int64)
{
    CHECK_EQ(word_case("l", T(INT64), 3000000, true), 0);
}

TEST(agg_word_index_int32)
{
    /* negative values: the word holds them zero-extended, as the key row */
    CHECK_EQ(word_case("i", T(INT32), 150000, true), 0);
}

TEST(agg_word_index_int16)
{
    CHECK_EQ(word_case("s", T(INT16), 60000, false), 0);
}

/* The fast encoders produce the generic encoder's rows and hashes. */
TEST(agg_fast_encoders_match_generic)
{
    struct basalt_error err;
    basalt_error_init(&err);
    /* strings of every length 0..40 (inline up to 12, then pointers), the
     * last ones ending at the end of the data buffer, and NULLs */
    enum { N = 300 };
    char *cells[N];
    for (int i = 0; i < N; i++) {
        int len = (i * 7) % 41;
        cells[i] = malloc((size_t)len + 2);
        for (int j = 0; j < len; j++)
            cells[i][j] = (char)('a' + (i + j * 3) % 26);
        cells[i][len] = 0;
        if (i % 37 == 5)
            strcpy(cells[i], "N");
    }
    struct ArrowArray sa;
    CHECK_OK(at_array("u", (const char *const *)cells, N, &sa), NULL);
    struct basalt_query_type st = T(STRING);
    struct basalt_qagg *agg;
    CHECK_OK(basalt_qagg_new(&st, 1, NULL, 0, NULL, &agg, &err), &err);
    CHECK(agg->str_keys);
    struct qagg_col col;
    /* a window from row 9 on: offsets and the buffer end both matter */
    struct ArrowArray v = sa;
    v.offset = 9;
    v.length = N - 9;
    v.null_count = -1;
    CHECK_OK(basalt_qagg_col_init(&v, QP_STR, false, N - 9, &col, &err), &err);
    size_t w = (size_t)agg->row_width;
    uint8_t *r1 = calloc(N, w), *r2 = calloc(N, w);
    uint64_t h1[N];
    basalt_qagg_str_encode(agg, &col, N - 9, r1, h1);
    basalt_qagg_encode_rows(agg, &col, N - 9, r2);
    for (int i = 0; i < N - 9; i++) {
        CHECK_MEM(r1 + i * w, r2 + i * w, w);
        CHECK_UEQ(h1[i], basalt_qagg_hash_row(agg, r2 + i * w));
    }
    free(r1);
    free(r2);
    basalt_qagg_free(agg);

    /* three string keys: windows of the column at rows 9, 0 and 20, so each
     * row mixes lengths, NULLs and buffer ends */
    struct basalt_query_type st3[3] = {T(STRING), T(STRING), T(STRING)};
    CHECK_OK(basalt_qagg_new(st3, 3, NULL, 0, NULL, &agg, &err), &err);
    CHECK(agg->str_keys);
    enum { M = N - 20 };
    struct qagg_col cols[3];
    static const int starts[3] = {9, 0, 20};
    for (int k = 0; k < 3; k++) {
        struct ArrowArray wk = sa;
        wk.offset = starts[k];
        wk.length = M;
        wk.null_count = -1;
        CHECK_OK(basalt_qagg_col_init(&wk, QP_STR, false, M, &cols[k], &err), &err);
    }
    w = (size_t)agg->row_width;
    r1 = calloc(M, w);
    r2 = calloc(M, w);
    basalt_qagg_str_encode(agg, cols, M, r1, h1);
    basalt_qagg_encode_rows(agg, cols, M, r2);
    for (int i = 0; i < M; i++) {
        CHECK_MEM(r1 + i * w, r2 + i * w, w);
        CHECK_UEQ(h1[i], basalt_qagg_hash_row(agg, r2 + i * w));
    }
    free(r1);
    free(r2);
    basalt_qagg_free(agg);
    basalt_arrow_array_release(&sa);
    for (int i = 0; i < N; i++)
        free(cells[i]);

    /* the word hash is the row hash of (zero mask word, value word) */
    struct basalt_query_type kt[2] = {T(INT32), T(INT32)};
    CHECK_OK(basalt_qagg_new(kt, 2, NULL, 0, NULL, &agg, &err), &err);
    CHECK(agg->word_key);
    for (uint64_t x = 1; x < (1ull << 63); x = x * 3 + 1) {
        uint8_t row[16] = {0};
        memcpy(row + 8, &x, 8);
        CHECK_UEQ(basalt_qagg_hash_word(agg, x), basalt_qagg_hash_row(agg, row));
    }
    basalt_qagg_free(agg);
}

/* Output order on forced hash collisions: hash ascending, ties by key row,
 * on the radix path (many groups) and the comparison path (few). */
TEST(agg_order_hash_then_row)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_query_type kt = T(INT64);
    struct basalt_qagg *agg;
    CHECK_OK(basalt_qagg_new(&kt, 1, NULL, 0, NULL, &agg, &err), &err);
    for (int n = 10; n <= 5000; n *= 10) {
        struct basalt_qagg_local *l;
        CHECK_OK(basalt_qagg_local_new(agg, &l, &err), &err);
        for (int j = 0; j < n; j++) {
            /* 7 x 5 distinct hashes differing in high and low bytes */
            uint64_t h = (uint64_t)(j % 7) << 50 | (uint64_t)(j % 5) << 3 | 0xc000000000000000ull;
            uint8_t row[16] = {0};
            int64_t key = 100000 - 3 * (int64_t)j;
            memcpy(row + 8, &key, 8);
            uint32_t g;
            CHECK_OK(basalt_qagg_find_or_add(l, h, row, &g, &err), &err);
            CHECK_EQ(g, j);
        }
        uint32_t *ord = malloc(sizeof(uint32_t) * (size_t)n);
        for (int j = 0; j < n; j++) /* shuffled: ties do not come in row order */
            ord[j] = (uint32_t)(((int64_t)j * 7919) % n);
        CHECK_OK(basalt_qagg_order(l, ord, n, &err), &err);
        for (int j = 1; j < n; j++) {
            uint64_t ha = l->hashes[ord[j - 1]], hb = l->hashes[ord[j]];
            CHECK_MSG(ha < hb || (ha == hb && basalt_qagg_row_cmp(agg, l->rows + ord[j - 1] * 16,
                                                                  l->rows + ord[j] * 16) < 0),
                      "n %d: position %d out of order", n, j);
        }
        free(ord);
        basalt_qagg_local_free(l);
    }
    basalt_qagg_free(agg);
}

/* A dictionary array: int32 indices idx (-1: NULL) over the values cells
 * (format fmt, "N" a NULL value), the dictionary starting at value voff. */
static basalt_status dict_array(const char *fmt, const char *const *values, int64_t nv,
                                int64_t voff, const int32_t *idx, int64_t n,
                                struct ArrowArray *out)
{
    struct ArrowArray d;
    basalt_status st = at_array(fmt, values, nv, &d);
    if (st != BASALT_OK)
        return st;
    d.offset = voff;
    d.length = nv - voff;
    d.null_count = -1;
    st = basalt_arrow_array_init(out, 2, 0, NULL);
    void *ib = NULL, *vb = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * 4 + 4, &ib, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)n / 8 + 1, &vb, NULL);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&d);
        return st;
    }
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
        /* a NULL slot holds an index past the dictionary: it must not be read */
        ((int32_t *)ib)[i] = idx[i] < 0 ? 1 << 30 : idx[i];
        basalt_bitmap_set(vb, i, idx[i] >= 0);
        nulls += idx[i] < 0;
    }
    out->length = n;
    out->null_count = nulls;
    return basalt_arrow_array_set_dictionary(out, &d, NULL);
}

/* The rows of an aggregation over keys (nk arrays) and one int64 argument,
 * in output order, for 1-3 locals and random splits: each mode's rows must
 * equal mode 0's. *dict_batches: the last mode's batches grouped through the
 * map of index combinations. */
static char **run_modes(const struct basalt_query_type *kt, int nk, const struct ArrowArray *keys,
                        const struct ArrowArray *arg, int64_t n, int64_t *n_rows,
                        int64_t *dict_batches, struct basalt_error *err)
{
    struct basalt_qagg_call calls[] = {{BASALT_QAGG_COUNT_STAR, false, T(INT64), 0, NULL, {0}, false},
                                       {BASALT_QAGG_SUM, false, T(INT64), 0, NULL, {0}, false}};
    struct ArrowArray args[2] = {*arg, *arg};
    char **first = NULL;
    for (int mode = 0; mode < 3; mode++) {
        struct basalt_qagg *agg;
        if (basalt_qagg_new(kt, nk, calls, 2, NULL, &agg, err) != BASALT_OK)
            return NULL;
        struct at_opts o = {mode + 1, mode == 2 ? 7 : 0, NULL, false, NULL};
        char **rows;
        int64_t nr;
        basalt_status st = at_run(agg, kt, nk, calls, 2, keys, args, n, &o, &rows, &nr, err);
        struct basalt_qagg_stats s;
        basalt_qagg_stats(agg, &s);
        *dict_batches = s.dict_map_batches;
        basalt_qagg_free(agg);
        if (st != BASALT_OK)
            return NULL;
        if (!first) {
            first = rows;
            *n_rows = nr;
            continue;
        }
        bool same = nr == *n_rows;
        for (int64_t r = 0; same && r < nr; r++)
            same = strcmp(rows[r], first[r]) == 0;
        at_free(rows, nr);
        if (!same) {
            basalt_error_set(err, BASALT_INTERNAL, "mode %d differs from one local", mode);
            at_free(first, *n_rows);
            return NULL;
        }
    }
    return first;
}

/* Dictionary-array keys (agg_dict.c) give the rows, in the same order, that
 * the same values as plain strings give (the generic path, checked against
 * DuckDB elsewhere): through the map of index combinations (two keys, few
 * values), through the encoder reading strings by index (a dictionary too
 * large for the map), and gathered (a string key beside an integer key);
 * with NULL indices, a NULL dictionary value, long strings and dictionaries
 * that start at an offset. An index outside its dictionary is refused. */
TEST(agg_dictionary_keys_match_plain)
{
    struct basalt_error err;
    basalt_error_init(&err);
    enum { N = 40000, BIG = 20000 };
    static const char *v1[] = {"skipped", "id001", "id002", "", "N",
                               "a value longer than twelve bytes", "id003",
                               "a value longer than twelve bytez"};
    static const char *v2[] = {"x", "yy", "zzz"};
    char **big = malloc(sizeof(char *) * BIG);
    for (int i = 0; i < BIG; i++) {
        char b[64];
        snprintf(b, sizeof b, i % 3 ? "id%07d" : "a long dictionary value number %d", i);
        big[i] = strdup(b);
    }
    int32_t *i1 = malloc(4 * N), *i2 = malloc(4 * N), *i3 = malloc(4 * N);
    const char **c1 = malloc(sizeof(char *) * N), **c2 = malloc(sizeof(char *) * N),
               **c3 = malloc(sizeof(char *) * N), **cv = malloc(sizeof(char *) * N),
               **ci = malloc(sizeof(char *) * N);
    char (*vbuf)[24] = malloc(24 * (size_t)N);
    struct bt_rng rng;
    bt_rng_seed(&rng, 5);
    for (int i = 0; i < N; i++) {
        i1[i] = bt_rng_below(&rng, 20) == 0 ? -1 : (int32_t)bt_rng_below(&rng, 7);
        i2[i] = bt_rng_below(&rng, 10) == 0 ? -1 : (int32_t)bt_rng_below(&rng, 3);
        i3[i] = bt_rng_below(&rng, 30) == 0 ? -1 : (int32_t)bt_rng_below(&rng, BIG);
        c1[i] = i1[i] < 0 ? "N" : v1[1 + i1[i]];
        c2[i] = i2[i] < 0 ? "N" : v2[i2[i]];
        c3[i] = i3[i] < 0 ? "N" : big[i3[i]];
        snprintf(vbuf[i], sizeof vbuf[i], "%d", (int)bt_rng_below(&rng, 1000) - 500);
        cv[i] = vbuf[i];
        ci[i] = i % 5 == 0 ? "N" : (i % 2 ? "7" : "-3");
    }
    i2[N / 2] = 1; /* valid: below, its index is made to point past the dictionary */
    c2[N / 2] = v2[1];
    struct ArrowArray arg, d1, d2, d3, p1, p2, p3, pi;
    CHECK_OK(at_array("l", cv, N, &arg), NULL);
    CHECK_OK(dict_array("u", v1, 8, 1, i1, N, &d1), NULL);
    CHECK_OK(dict_array("u", v2, 3, 0, i2, N, &d2), NULL);
    CHECK_OK(dict_array("u", (const char *const *)big, BIG, 0, i3, N, &d3), NULL);
    CHECK_OK(at_array("u", c1, N, &p1), NULL);
    CHECK_OK(at_array("u", c2, N, &p2), NULL);
    CHECK_OK(at_array("u", c3, N, &p3), NULL);
    CHECK_OK(at_array("l", ci, N, &pi), NULL);
    struct {
        const char *what;
        int nk;
        struct ArrowArray dict[2], plain[2];
        struct basalt_query_type kt[2];
        bool by_code;
    } cases[] = {
        {"two keys by code", 2, {d1, d2}, {p1, p2}, {T(STRING), T(STRING)}, true},
        {"one key by code", 1, {d2}, {p2}, {T(STRING)}, true},
        {"a large dictionary by index", 1, {d3}, {p3}, {T(STRING)}, false},
        {"two keys, one by index", 2, {d2, d3}, {p2, p3}, {T(STRING), T(STRING)}, false},
        {"beside an integer, gathered", 2, {d1, pi}, {p1, pi}, {T(STRING), T(INT64)}, false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t nd = 0, np = 0, dict_batches = 0, plain_batches = 0;
        char **want = run_modes(cases[c].kt, cases[c].nk, cases[c].plain, &arg, N, &np,
                                &plain_batches, &err);
        char **got = run_modes(cases[c].kt, cases[c].nk, cases[c].dict, &arg, N, &nd,
                               &dict_batches, &err);
        CHECK_MSG(want && got, "%s: %s", cases[c].what, err.message);
        if (!want || !got)
            continue;
        CHECK_EQ(nd, np);
        for (int64_t r = 0; r < nd && r < np; r++)
            CHECK_MSG(strcmp(got[r], want[r]) == 0, "%s: row %lld '%s', plain '%s'",
                      cases[c].what, (long long)r, got[r], want[r]);
        /* the map fires on the one-local runs' whole batches, and only there */
        CHECK_MSG((dict_batches > 0) == cases[c].by_code, "%s: %lld dictionary batches",
                  cases[c].what, (long long)dict_batches);
        CHECK_EQ(plain_batches, 0);
        at_free(want, np);
        at_free(got, nd);
    }

    /* an index past the dictionary (not NULL) is an error, not a read */
    int32_t bad = 3;
    memcpy((char *)(uintptr_t)d2.buffers[1] + 4 * (N / 2), &bad, 4);
    struct basalt_query_type kt[] = {T(STRING)};
    struct basalt_qagg_call call = {BASALT_QAGG_COUNT_STAR, false, T(INT64), 0, NULL, {0}, false};
    struct basalt_qagg *agg;
    struct basalt_qagg_local *l;
    CHECK_OK(basalt_qagg_new(kt, 1, &call, 1, NULL, &agg, &err), &err);
    CHECK_OK(basalt_qagg_local_new(agg, &l, &err), &err);
    const struct ArrowArray *kp[] = {&d2}, *ap[] = {NULL};
    CHECK_STATUS(basalt_qagg_consume(l, kp, ap, NULL, N, &err), BASALT_INVALID_ARG, &err);
    CHECK_MSG(strstr(err.message, "dictionary index 3 outside its 3 values") != NULL, "%s",
              err.message);
    basalt_qagg_local_free(l);
    basalt_qagg_free(agg);

    struct ArrowArray *all[] = {&arg, &d1, &d2, &d3, &p1, &p2, &p3, &pi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        basalt_arrow_array_release(all[i]);
    for (int i = 0; i < BIG; i++)
        free(big[i]);
    free(big);
    free(i1);
    free(i2);
    free(i3);
    free(c1);
    free(c2);
    free(c3);
    free(cv);
    free(ci);
    free(vbuf);
}

/* Keys and values of large strings (64-bit offsets) group and aggregate as
 * the same strings with 32-bit offsets do. */
TEST(agg_large_string_columns)
{
    struct basalt_error err;
    basalt_error_init(&err);
    static const char *words[] = {"a", "", "N", "a string longer than twelve", "bb", "ccc"};
    enum { N = 3000 };
    const char *cells[N], *vals[N];
    for (int i = 0; i < N; i++) {
        cells[i] = words[(i * 7) % 6];
        vals[i] = words[(i * 5 + 1) % 6];
    }
    struct basalt_query_type large = T(STRING);
    large.large = true;
    char **rows[2];
    int64_t nr[2];
    for (int w = 0; w < 2; w++) {
        const char *fmt = w ? "U" : "u";
        struct basalt_query_type t = w ? large : T(STRING);
        struct basalt_qagg_call calls[] = {{BASALT_QAGG_MIN, false, t, 0, NULL, {0}, false},
                                           {BASALT_QAGG_MAX, false, t, 0, NULL, {0}, false}};
        struct ArrowArray key, arg;
        CHECK_OK(at_array(fmt, cells, N, &key), NULL);
        CHECK_OK(at_array(fmt, vals, N, &arg), NULL);
        struct ArrowArray args[2] = {arg, arg};
        struct basalt_qagg *agg;
        CHECK_OK(basalt_qagg_new(&t, 1, calls, 2, NULL, &agg, &err), &err);
        struct at_opts o = {2, 3, NULL, true, NULL};
        CHECK_OK(at_run(agg, &t, 1, calls, 2, &key, args, N, &o, &rows[w], &nr[w], &err), &err);
        basalt_qagg_free(agg);
        basalt_arrow_array_release(&key);
        basalt_arrow_array_release(&arg);
    }
    CHECK_EQ(nr[0], 6); /* five strings and NULL */
    CHECK_EQ(nr[1], nr[0]);
    for (int64_t r = 0; r < nr[0] && r < nr[1]; r++)
        CHECK_MSG(strcmp(rows[0][r], rows[1][r]) == 0, "row %lld: '%s', large '%s'",
                  (long long)r, rows[0][r], rows[1][r]);
    at_free(rows[0], nr[0]);
    at_free(rows[1], nr[1]);
}
