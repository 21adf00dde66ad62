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
    struct basalt_qagg_call calls[] = {{BASALT_QAGG_COUNT_STAR, false, T(INT64), 0, NULL, T(NULL)},
                                       {BASALT_QAGG_SUM, false, T(INT64), 0, NULL, T(NULL)},
                                       {BASALT_QAGG_MIN, false, T(INT64), 0, NULL, T(NULL)}};
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
    CHECK_OK(basalt_qagg_col_init(&v, QP_STR, N - 9, &col, &err), &err);
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
        CHECK_OK(basalt_qagg_col_init(&wk, QP_STR, M, &cols[k], &err), &err);
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
