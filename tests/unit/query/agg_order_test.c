/* The aggregates that pick a row or keep an order: the order key of ORDER
 * BY inside an aggregate (its bytes against a comparison of the columns,
 * every direction and NULL placement), the ARG_MIN family's tie rule (the
 * smallest x), and STRING_AGG over an order key (ties by the piece), each
 * the same for 1 to 4 locals and random splits of the input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_internal.h"
#include "agg_util.h"
#include "test.h"

#define T(id) basalt_query_type_make(BASALT_QUERY_TYPE_##id)

/* A VARCHAR array of n values given with their lengths (bytes may be 0);
 * lens[i] < 0 is NULL. */
static basalt_status str_array(const char *const *v, const int *lens, int n, struct ArrowArray *out)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    basalt_status st = basalt_arrow_builder_new("u", NULL, ARROW_FLAG_NULLABLE, &b, NULL);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = lens[i] < 0 ? basalt_arrow_builder_append_null(b, NULL)
                         : basalt_arrow_builder_append_bytes(b, v[i], lens[i], NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, &s, out, NULL);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&s);
    basalt_arrow_builder_free(b);
    return st;
}

/* The rows of the order-key test: an int64, a string (prefixes of one
 * another, embedded NUL bytes, bytes above 0x7f) and a double (-0.0, 0.0,
 * NaN, infinities), NULLs in each. */
enum { KROWS = 14 };
static const char *const k_int[KROWS] = {"1", "1", "N", "-5", "1", "N", "-5", "7", "1", "1",
                                         "-9223372036854775808", "9223372036854775807", "0", "0"};
static const char *const k_str[KROWS] = {"a", "a\0", "", "ab", "a", "b", "\xff", "a\0b", "N",
                                         "a", "", "b", "\0", "\0\0"};
static const int k_len[KROWS] = {1, 2, 0, 2, 1, 1, 1, 3, -1, 1, 0, 1, 1, 2};
static const char *const k_dbl[KROWS] = {"-0.0", "0.0", "nan", "N", "inf", "-inf", "1.5", "-1.5",
                                         "0.0", "N", "nan", "2", "-0.0", "3"};

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

/* The reference order of rows a and b on column c (0 int, 1 string, 2
 * double) ascending, NULLs apart. */
static int value_cmp(int c, int a, int b)
{
    if (c == 0) {
        long long x = strtoll(k_int[a], NULL, 10), y = strtoll(k_int[b], NULL, 10);
        return (x > y) - (x < y);
    }
    if (c == 1) {
        int n = k_len[a] < k_len[b] ? k_len[a] : k_len[b];
        int r = memcmp(k_str[a], k_str[b], (size_t)n);
        return r ? sign(r) : (k_len[a] > k_len[b]) - (k_len[a] < k_len[b]);
    }
    double x = strtod(k_dbl[a], NULL), y = strtod(k_dbl[b], NULL);
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    if (x != y)
        return x < y ? -1 : 1;
    return signbit(y) - signbit(x); /* -0.0 first */
}

static bool is_null(int c, int r)
{
    return c == 0 ? strcmp(k_int[r], "N") == 0
                  : c == 1 ? k_len[r] < 0 : strcmp(k_dbl[r], "N") == 0;
}

static int ref_cmp(const int *cols, const bool *desc, const bool *nf, int n, int a, int b)
{
    for (int k = 0; k < n; k++) {
        int c = cols[k];
        bool na = is_null(c, a), nb = is_null(c, b);
        if (na || nb) {
            if (na && nb)
                continue;
            return (na ? 1 : -1) * (nf[k] ? -1 : 1);
        }
        int r = value_cmp(c, a, b);
        if (r)
            return desc[k] ? -r : r;
    }
    return 0;
}

static int blob_cmp(const struct ArrowArray *a, int64_t i, int64_t j)
{
    const int32_t *off = a->buffers[1];
    const uint8_t *d = a->buffers[2];
    int64_t ni = off[i + 1] - off[i], nj = off[j + 1] - off[j];
    int r = memcmp(d + off[i], d + off[j], (size_t)(ni < nj ? ni : nj));
    return r ? sign(r) : (ni > nj) - (ni < nj);
}

TEST(agg_order_key_orders_rows)
{
    struct ArrowArray ci, cs, cd;
    CHECK_OK(at_array("l", k_int, KROWS, &ci), NULL);
    CHECK_OK(str_array(k_str, k_len, KROWS, &cs), NULL);
    CHECK_OK(at_array("g", k_dbl, KROWS, &cd), NULL);
    const struct ArrowArray *all[3] = {&ci, &cs, &cd};
    const struct basalt_query_type types_all[3] = {T(INT64), T(STRING), T(DOUBLE)};
    /* every column order of the three, and each alone, under every
     * direction and NULL placement */
    static const int orders[][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {1, 0, 2}};
    int bad = 0, compared = 0;
    for (int o = 0; o < 4; o++)
        for (int n = 1; n <= 3; n++)
            for (int flags = 0; flags < 1 << (2 * n); flags++) {
                const struct ArrowArray *cols[3];
                struct basalt_query_type types[3];
                bool desc[3], nf[3];
                for (int k = 0; k < n; k++) {
                    cols[k] = all[orders[o][k]];
                    types[k] = types_all[orders[o][k]];
                    desc[k] = flags >> (2 * k) & 1;
                    nf[k] = flags >> (2 * k + 1) & 1;
                }
                struct ArrowArray key;
                struct basalt_error err;
                basalt_error_init(&err);
                CHECK_OK(basalt_qagg_order_key(cols, types, desc, nf, n, NULL, KROWS, &key, &err),
                         &err);
                CHECK(key.length == KROWS && key.null_count == 0);
                for (int a = 0; a < KROWS; a++)
                    for (int b = 0; b < KROWS; b++) {
                        int want = ref_cmp(orders[o], desc, nf, n, a, b);
                        int got = blob_cmp(&key, a, b);
                        compared++;
                        if (want != got && bad++ < 5)
                            printf("order %d, %d keys, flags %x: rows %d, %d: %d, expected %d\n",
                                   o, n, flags, a, b, got, want);
                    }
                basalt_arrow_array_release(&key);
            }
    CHECK(bad == 0);
    CHECK(compared > 10000);
    /* FILTER: a row where `when` is not TRUE has a NULL key */
    const char *w[KROWS] = {"t", "f", "N", "t", "t", "t", "t", "t", "t", "t", "t", "t", "t", "f"};
    struct ArrowArray when, key;
    CHECK_OK(at_array("b", w, KROWS, &when), NULL);
    bool f = false;
    CHECK_OK(basalt_qagg_order_key(all, types_all, &f, &f, 1, &when, KROWS, &key, NULL), NULL);
    CHECK(key.null_count == 3);
    for (int r = 0; r < KROWS; r++)
        CHECK(basalt_bitmap_get(key.buffers[0], r) == (w[r][0] == 't'));
    basalt_arrow_array_release(&key);
    basalt_arrow_array_release(&when);
    /* INTERVAL, DATE, DECIMAL and BOOLEAN keys have an order too; no type
     * is refused */
    struct basalt_query_type none = T(NULL);
    CHECK_STATUS(basalt_qagg_order_key(all, &none, &f, &f, 1, NULL, KROWS, &key, NULL),
                 BASALT_UNSUPPORTED, NULL);
    basalt_arrow_array_release(&ci);
    basalt_arrow_array_release(&cs);
    basalt_arrow_array_release(&cd);
}

/* Runs calls over key k (int64), x and y arrays with 1 to 4 locals and
 * random splits; every run must give `expect`, sorted. */
static int check_runs(const char *const *k, int n, const struct basalt_qagg_call *calls, int nc,
                      const struct ArrowArray *args, const struct ArrowArray *args2,
                      const char *const *expect, int n_expect)
{
    struct ArrowArray key;
    struct basalt_query_type kt[] = {T(INT64)};
    if (at_array("l", k, n, &key) != BASALT_OK)
        return printf("bad key column\n"), 1;
    int bad = 0;
    for (int mode = 0; mode < 6 && !bad; mode++) {
        struct basalt_error err;
        basalt_error_init(&err);
        struct basalt_qagg *agg;
        if (basalt_qagg_new(kt, 1, calls, nc, NULL, &agg, &err) != BASALT_OK) {
            printf("new: %s\n", err.message);
            bad = 1;
            break;
        }
        struct at_opts o = {mode % 4 + 1, mode >= 3 ? (uint64_t)mode * 11 : 0, NULL, true, args2};
        char **rows;
        int64_t nr;
        basalt_status st = at_run(agg, kt, 1, calls, nc, &key, args, n, &o, &rows, &nr, &err);
        basalt_qagg_free(agg);
        if (st != BASALT_OK) {
            printf("run: %s\n", err.message);
            bad = 1;
            break;
        }
        if (nr != n_expect) {
            printf("mode %d: %lld rows, expected %d\n", mode, (long long)nr, n_expect);
            bad = 1;
        }
        for (int64_t r = 0; r < nr && r < n_expect; r++)
            if (strcmp(rows[r], expect[r]) != 0) {
                printf("mode %d row %lld: '%s', expected '%s'\n", mode, (long long)r, rows[r],
                       expect[r]);
                bad = 1;
            }
        at_free(rows, nr);
    }
    basalt_arrow_array_release(&key);
    return bad;
}

/* arg_min(x, y) and its family where y ties: the smallest x wins (a NULL x,
 * kept by the _NULL kinds, after every value); strings longer than a
 * state holds inline (24 bytes) among them. DuckDB's answer there is the
 * first row it meets, which depends on the order rows arrive in. */
TEST(agg_arg_family_ties)
{
    const char *k[] = {"1", "1", "1", "1", "2", "2", "2", "3", "3", "4", "4", "5"};
    const char *x[] = {"pear-a-rather-long-string-value", "apple-a-rather-long-string-value",
                       "N", "fig", "b", "a", "c", "N", "z", "N", "N", "q"};
    const char *y[] = {"5", "5", "5", "9", "1", "1", "1", "2", "2", "3", "N", "N"};
    struct basalt_qagg_call calls[4];
    enum basalt_qagg_kind kinds[] = {BASALT_QAGG_ARG_MIN, BASALT_QAGG_ARG_MAX,
                                     BASALT_QAGG_ARG_MIN_NULL, BASALT_QAGG_ARG_MAX_NULL};
    struct ArrowArray xa, ya, args[4], args2[4];
    CHECK_OK(at_array("u", x, 12, &xa), NULL);
    CHECK_OK(at_array("l", y, 12, &ya), NULL);
    for (int c = 0; c < 4; c++) {
        memset(&calls[c], 0, sizeof calls[c]);
        calls[c].kind = kinds[c];
        calls[c].input = T(STRING);
        calls[c].input2 = T(INT64);
        args[c] = xa;
        args2[c] = ya;
    }
    /* group 1: y 5 ties between pear, apple and NULL; group 3: y 2 ties
     * between NULL and z; group 4: a NULL x alone; group 5: no y */
    const char *expect[] = {
        "1|apple-a-rather-long-string-value|fig|apple-a-rather-long-string-value|fig",
        "2|a|a|a|a", "3|z|z|z|z", "4|NULL|NULL|NULL|NULL", "5|NULL|NULL|NULL|NULL"};
    CHECK(!check_runs(k, 12, calls, 4, args, args2, expect, 5));
    basalt_arrow_array_release(&xa);
    basalt_arrow_array_release(&ya);
}

/* STRING_AGG over an order key: pieces in the key's order, equal keys by
 * the pieces' bytes; FIRST (ARG_MIN_NULL over the key) keeps a NULL x. */
TEST(agg_ordered_string_agg_and_first)
{
    const char *k[] = {"1", "1", "1", "1", "1", "2", "2", "2", "3"};
    const char *x[] = {"c", "a", "b", "N", "d", "q", "p", "N", "N"};
    const char *o[] = {"2", "2", "1", "0", "N", "7", "7", "9", "1"};
    struct ArrowArray xa, oa, key;
    CHECK_OK(at_array("u", x, 9, &xa), NULL);
    CHECK_OK(at_array("l", o, 9, &oa), NULL);
    const struct ArrowArray *cols[] = {&oa};
    struct basalt_query_type ot = T(INT64);
    bool desc = true, nf = false;
    /* ORDER BY o DESC NULLS LAST */
    CHECK_OK(basalt_qagg_order_key(cols, &ot, &desc, &nf, 1, NULL, 9, &key, NULL), NULL);
    struct basalt_qagg_call calls[3];
    memset(calls, 0, sizeof calls);
    calls[0].kind = BASALT_QAGG_STRING_AGG;
    calls[0].separator = "-";
    calls[1].kind = BASALT_QAGG_ARG_MIN_NULL; /* first(x ORDER BY o DESC) */
    calls[2].kind = BASALT_QAGG_ARG_MAX_NULL; /* last(x ORDER BY o DESC) */
    struct ArrowArray args[3], args2[3];
    for (int c = 0; c < 3; c++) {
        calls[c].input = T(STRING);
        calls[c].input2 = T(BINARY);
        calls[c].ordered = true;
        args[c] = xa;
        args2[c] = key;
    }
    /* group 1: o 2 (a, c: by bytes), 1 (b), 0 (NULL x: no piece), NULL (d,
     * last); group 2: 9 (NULL x), 7 (p, q); group 3: one NULL x */
    const char *expect[] = {"1|a-c-b-d|a|d", "2|p-q|NULL|p", "3|NULL|NULL|NULL"};
    CHECK(!check_runs(k, 9, calls, 3, args, args2, expect, 3));
    /* an order key needs an ordered kind and a BLOB */
    struct basalt_query_type t;
    struct basalt_qagg_call bad = calls[0];
    bad.kind = BASALT_QAGG_MIN;
    CHECK_STATUS(basalt_qagg_result_type(&bad, &t, NULL), BASALT_INVALID_ARG, NULL);
    bad = calls[0];
    bad.input2 = T(STRING);
    CHECK_STATUS(basalt_qagg_result_type(&bad, &t, NULL), BASALT_INVALID_ARG, NULL);
    basalt_arrow_array_release(&key);
    basalt_arrow_array_release(&xa);
    basalt_arrow_array_release(&oa);
}

/* PRODUCT, BIT_* and MODE: result types, NULLs, DISTINCT, and a product
 * whose double rounding would depend on the order of its factors. */
TEST(agg_product_bits_mode)
{
    const char *k[] = {"1", "1", "1", "1", "2", "2", "2", "3", "3", "3", "3"};
    const char *v[] = {"6", "3", "6", "N", "-1", "5", "N", "N", "N", "N", "N"};
    struct basalt_qagg_call calls[7];
    enum basalt_qagg_kind kinds[] = {BASALT_QAGG_PRODUCT, BASALT_QAGG_BIT_AND, BASALT_QAGG_BIT_OR,
                                     BASALT_QAGG_BIT_XOR, BASALT_QAGG_BIT_XOR, BASALT_QAGG_MODE,
                                     BASALT_QAGG_PRODUCT};
    struct ArrowArray va, args[7];
    CHECK_OK(at_array("s", v, 11, &va), NULL);
    for (int c = 0; c < 7; c++) {
        memset(&calls[c], 0, sizeof calls[c]);
        calls[c].kind = kinds[c];
        calls[c].input = T(INT16);
        calls[c].distinct = c >= 4;
        args[c] = va;
    }
    const char *expect[] = {"1|108|2|7|3|5|3|18", "2|-5|5|-1|-6|-6|-1|-5",
                            "3|NULL|NULL|NULL|NULL|NULL|NULL|NULL"};
    CHECK(!check_runs(k, 11, calls, 7, args, NULL, expect, 3));
    basalt_arrow_array_release(&va);
    struct basalt_query_type t;
    char name[64];
    CHECK_OK(basalt_qagg_result_type(&calls[1], &t, NULL), NULL);
    basalt_query_type_name(t, name, sizeof name);
    CHECK(strcmp(name, "SMALLINT") == 0);
    CHECK_OK(basalt_qagg_result_type(&calls[0], &t, NULL), NULL);
    CHECK(t.id == BASALT_QUERY_TYPE_DOUBLE);
    struct basalt_qagg_call b = calls[1];
    b.input = T(DOUBLE);
    CHECK_STATUS(basalt_qagg_result_type(&b, &t, NULL), BASALT_UNSUPPORTED, NULL);
    b.input = T(BOOL);
    CHECK_STATUS(basalt_qagg_result_type(&b, &t, NULL), BASALT_UNSUPPORTED, NULL);
    b = calls[0];
    b.input = T(STRING);
    CHECK_STATUS(basalt_qagg_result_type(&b, &t, NULL), BASALT_UNSUPPORTED, NULL);

    /* 1 + 2^-52 and its reciprocal's neighbours: the plain double product
     * of these depends on the order; the double-double one rounds once */
    enum { N = 4000 };
    char **keys = calloc(N, sizeof *keys), **vals = calloc(N, sizeof *vals);
    double exact_log = 0;
    for (int i = 0; i < N; i++) {
        keys[i] = strdup("1");
        double f = i % 2 ? 1.0 + 0x1p-52 * (i % 7 + 1) : 1.0 - 0x1p-53 * (i % 5 + 1);
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", f);
        vals[i] = strdup(buf);
        exact_log += log(f);
    }
    struct ArrowArray fa, key;
    CHECK_OK(at_array("g", (const char *const *)vals, N, &fa), NULL);
    CHECK_OK(at_array("l", (const char *const *)keys, N, &key), NULL);
    struct basalt_qagg_call pc = {0};
    pc.kind = BASALT_QAGG_PRODUCT;
    pc.input = T(DOUBLE);
    struct basalt_query_type kt[] = {T(INT64)};
    char *first = NULL;
    for (int mode = 0; mode < 6; mode++) {
        struct basalt_qagg *agg;
        CHECK_OK(basalt_qagg_new(kt, 1, &pc, 1, NULL, &agg, NULL), NULL);
        struct at_opts o = {mode % 4 + 1, mode >= 3 ? (uint64_t)mode * 13 : 0, NULL, true, NULL};
        char **rows;
        int64_t nr;
        CHECK_OK(at_run(agg, kt, 1, &pc, 1, &key, &fa, N, &o, &rows, &nr, NULL), NULL);
        basalt_qagg_free(agg);
        CHECK(nr == 1);
        if (first == NULL)
            first = strdup(rows[0]);
        else if (strcmp(first, rows[0]) != 0)
            printf("mode %d: %s, 1 local %s\n", mode, rows[0], first);
        CHECK(strcmp(first, rows[0]) == 0);
        at_free(rows, nr);
    }
    double got = strtod(strchr(first, '|') + 1, NULL);
    CHECK(fabs(log(got) - exact_log) < 1e-13);
    free(first);
    basalt_arrow_array_release(&fa);
    basalt_arrow_array_release(&key);
    for (int i = 0; i < N; i++) {
        free(keys[i]);
        free(vals[i]);
    }
    free(keys);
    free(vals);
}
