/* Hash aggregation with hand-written expected values (SQL's and DuckDB's
 * answers): NULL behaviour of every kind, empty input, result types, DECIMAL
 * and 128-bit sums, string keys short and long, NaN and -0.0 keys, several
 * keys with NULLs, DISTINCT, quantiles, the dense path firing (and leaving
 * for the hash table), and the output being identical for any number of
 * locals, pool workers and split of the input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_internal.h"
#include "agg_util.h"
#include "test.h"

#define T(id) basalt_query_type_make(BASALT_QUERY_TYPE_##id)
#define CALL(k, t) {BASALT_QAGG_##k, false, t, 0, NULL, T(NULL), false}
#define NA (sizeof(char *))

/* Runs keys/args given as text columns, sorted rows, and compares with the
 * expected lines. */
static int check_rows(const struct basalt_query_type *kt, const char *const *kfmt, int nk,
                      const char *const *const *kcells, const struct basalt_qagg_call *calls,
                      const char *const *afmt, int nc, const char *const *const *acells,
                      int64_t n, const char *const *expect, int64_t n_expect)
{
    struct ArrowArray keys[4], args[16];
    struct basalt_error err;
    basalt_error_init(&err);
    for (int k = 0; k < nk; k++)
        if (at_array(kfmt[k], kcells[k], n, &keys[k]) != BASALT_OK)
            return printf("bad key column\n"), 1;
    for (int c = 0; c < nc; c++)
        if (afmt[c] && at_array(afmt[c], acells[c], n, &args[c]) != BASALT_OK)
            return printf("bad arg column\n"), 1;
    struct basalt_qagg *agg;
    int bad = 0;
    if (basalt_qagg_new(kt, nk, calls, nc, NULL, &agg, &err) != BASALT_OK) {
        printf("new: %s\n", err.message);
        bad = 1;
    }
    for (int mode = 0; mode < 3 && !bad; mode++) {
        struct at_opts o = {mode + 1, mode == 2 ? 7 : 0, NULL, true, NULL};
        char **rows;
        int64_t nr;
        if (at_run(agg, kt, nk, calls, nc, keys, args, n, &o, &rows, &nr, &err) != BASALT_OK) {
            printf("run: %s\n", err.message);
            bad = 1;
            break;
        }
        if (nr != n_expect) {
            printf("%lld rows, expected %lld\n", (long long)nr, (long long)n_expect);
            bad = 1;
        }
        for (int64_t i = 0; i < nr && i < n_expect; i++)
            if (strcmp(rows[i], expect[i]) != 0) {
                printf("row %lld: got '%s', expected '%s'\n", (long long)i, rows[i], expect[i]);
                bad = 1;
            }
        at_free(rows, nr);
    }
    basalt_qagg_free(agg);
    for (int k = 0; k < nk; k++)
        basalt_arrow_array_release(&keys[k]);
    for (int c = 0; c < nc; c++)
        if (afmt[c])
            basalt_arrow_array_release(&args[c]);
    return bad;
}

/* Frees three columns of n malloc'd text cells. */
static void free_cells(char **k, char **y, char **x, int rows)
{
    for (int i = 0; i < rows; i++) {
        free(k[i]);
        free(x[i]);
        free(y[i]);
    }
    free(k);
    free(x);
    free(y);
}

TEST(agg_null_behaviour)
{
    struct basalt_query_type kt[] = {T(INT64)};
    const char *kf[] = {"l"};
    const char *k0[] = {"1", "1", "2", "2", "N"};
    const char *const *kc[] = {k0};
    const char *x[] = {"10", "N", "N", "N", "5"};
    const char *b[] = {"t", "f", "N", "N", "t"};
    struct basalt_qagg_call calls[] = {
        CALL(COUNT_STAR, T(INT64)), CALL(COUNT, T(INT64)), CALL(SUM, T(INT64)),
        CALL(AVG, T(INT64)), CALL(MIN, T(INT64)), CALL(MAX, T(INT64)),
        CALL(ANY_VALUE, T(INT64)), CALL(VAR_POP, T(INT64)), CALL(MEDIAN, T(INT64)),
        CALL(BOOL_AND, T(BOOL)), CALL(BOOL_OR, T(BOOL))};
    const char *af[] = {NULL, "l", "l", "l", "l", "l", "l", "l", "l", "b", "b"};
    const char *const *ac[] = {NULL, x, x, x, x, x, x, x, x, b, b};
    const char *expect[] = {"1|2|1|10|10|10|10|10|0|10|false|true",
                            "2|2|0|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
                            "NULL|1|1|5|5|5|5|5|0|5|true|true"};
    CHECK(!check_rows(kt, kf, 1, kc, calls, af, 11, ac, 5, expect, 3));
}

TEST(agg_empty_input_global)
{
    struct basalt_qagg_call calls[] = {
        CALL(COUNT_STAR, T(INT64)), CALL(COUNT, T(INT64)), CALL(SUM, T(INT64)),
        CALL(MIN, T(STRING)), CALL(STRING_AGG, T(STRING)), CALL(AVG, T(DOUBLE))};
    const char *af[] = {NULL, "l", "l", "u", "u", "g"};
    const char *none[] = {"N"};
    const char *const *ac[] = {NULL, none, none, none, none, none};
    const char *expect[] = {"0|0|NULL|NULL|NULL|NULL"};
    CHECK(!check_rows(NULL, NULL, 0, NULL, calls, af, 6, ac, 0, expect, 1));
    /* one NULL row: count(*) 1 */
    const char *expect1[] = {"1|0|NULL|NULL|NULL|NULL"};
    CHECK(!check_rows(NULL, NULL, 0, NULL, calls, af, 6, ac, 1, expect1, 1));
    /* grouped, no rows: no groups */
    struct basalt_query_type kt[] = {T(INT32)};
    const char *kf[] = {"i"};
    const char *const *kc[] = {none};
    CHECK(!check_rows(kt, kf, 1, kc, calls, af, 6, ac, 0, NULL, 0));
}

TEST(agg_result_types)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_query_type t;
    char buf[64];
    struct {
        enum basalt_qagg_kind k;
        struct basalt_query_type in;
        const char *want;
    } cases[] = {
        {BASALT_QAGG_COUNT_STAR, T(NULL), "BIGINT"},
        {BASALT_QAGG_SUM, T(INT8), "DECIMAL(38,0)"},
        {BASALT_QAGG_SUM, T(BOOL), "DECIMAL(38,0)"},
        {BASALT_QAGG_SUM, T(UINT64), "DECIMAL(38,0)"},
        {BASALT_QAGG_SUM, basalt_query_type_decimal(9, 2), "DECIMAL(38,2)"},
        {BASALT_QAGG_SUM, T(FLOAT), "DOUBLE"},
        {BASALT_QAGG_AVG, basalt_query_type_decimal(9, 2), "DOUBLE"},
        {BASALT_QAGG_AVG, T(INT32), "DOUBLE"},
        {BASALT_QAGG_MIN, T(STRING), "VARCHAR"},
        {BASALT_QAGG_MAX, T(DATE), "DATE"},
        {BASALT_QAGG_STDDEV_SAMP, T(INT16), "DOUBLE"},
        {BASALT_QAGG_MEDIAN, T(INT32), "DOUBLE"},
        {BASALT_QAGG_MEDIAN, T(FLOAT), "FLOAT"},
        {BASALT_QAGG_MEDIAN, basalt_query_type_decimal(9, 2), "DECIMAL(9,2)"},
        {BASALT_QAGG_MEDIAN, T(DATE), "TIMESTAMP"},
        {BASALT_QAGG_MEDIAN, T(STRING), "VARCHAR"},
        {BASALT_QAGG_QUANTILE_DISC, T(INT8), "TINYINT"},
        {BASALT_QAGG_QUANTILE_CONT, T(INT64), "DOUBLE"},
        {BASALT_QAGG_STRING_AGG, T(STRING), "VARCHAR"},
        {BASALT_QAGG_BOOL_AND, T(BOOL), "BOOLEAN"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_qagg_call c = {cases[i].k, false, cases[i].in, 0.5, NULL, T(NULL), false};
        CHECK_OK(basalt_qagg_result_type(&c, &t, &err), &err);
        CHECK_STR(basalt_query_type_name(t, buf, sizeof buf), cases[i].want);
    }
    struct basalt_qagg_call bad = {BASALT_QAGG_SUM, false, T(STRING), 0, NULL, T(NULL), false};
    CHECK_STATUS(basalt_qagg_result_type(&bad, &t, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STR(err.message, "no aggregate sum(VARCHAR)");
    struct basalt_qagg_call bad2 = {BASALT_QAGG_BOOL_OR, false, T(INT32), 0, NULL, T(NULL), false};
    CHECK_STATUS(basalt_qagg_result_type(&bad2, &t, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STR(err.message, "no aggregate bool_or(INTEGER)");
    struct basalt_qagg_call bad3 = {BASALT_QAGG_QUANTILE_CONT, false, T(INT32), 1.5, NULL, T(NULL), false};
    CHECK_STATUS(basalt_qagg_result_type(&bad3, &t, &err), BASALT_INVALID_ARG, &err);
    struct basalt_qagg *agg;
    CHECK_STATUS(basalt_qagg_new(NULL, 0, &bad, 1, NULL, &agg, &err), BASALT_UNSUPPORTED, &err);
}

TEST(agg_decimal_and_wide_sums)
{
    struct basalt_query_type kt[] = {T(BOOL)};
    const char *kf[] = {"b"};
    const char *k0[] = {"t", "t", "t", "f", "f"};
    const char *const *kc[] = {k0};
    const char *d[] = {"125", "250", "-75", "1", "N"}; /* DECIMAL(9,2) */
    const char *i[] = {"9223372036854775807", "9223372036854775807", "1",
                       "-9223372036854775808", "-9223372036854775808"};
    const char *u[] = {"18446744073709551615", "18446744073709551615", "0", "1", "2"};
    struct basalt_qagg_call calls[] = {
        CALL(SUM, basalt_query_type_decimal(9, 2)), CALL(AVG, basalt_query_type_decimal(9, 2)),
        CALL(SUM, T(INT64)), CALL(SUM, T(UINT64)), CALL(MAX, basalt_query_type_decimal(9, 2))};
    const char *af[] = {"d:9,2", "d:9,2", "l", "L", "d:9,2"};
    const char *const *ac[] = {d, d, i, u, d};
    const char *expect[] = {"false|0.01|0.01|-18446744073709551616|3|0.01",
                            "true|3.00|1|18446744073709551615|36893488147419103230|2.50"};
    CHECK(!check_rows(kt, kf, 1, kc, calls, af, 5, ac, 5, expect, 2));
}

TEST(agg_string_keys)
{
    struct basalt_query_type kt[] = {T(STRING)};
    const char *kf[] = {"u"};
    const char *k0[] = {"a", "", "a long key over twelve bytes", "N", "a", "",
                        "a long key over twelve bytes", "a long key over twelve bytez", "N"};
    const char *const *kc[] = {k0};
    const char *v[] = {"1", "2", "3", "4", "5", "6", "7", "8", "N"};
    const char *s[] = {"x", "yy", "zzz", "N", "b", "a", "the longest string of them all", "q", "r"};
    struct basalt_qagg_call calls[] = {CALL(COUNT_STAR, T(INT64)), CALL(SUM, T(INT32)),
                                       CALL(MIN, T(STRING)), CALL(MAX, T(STRING)),
                                       {BASALT_QAGG_STRING_AGG, false, T(STRING), 0, "-", T(NULL), false}};
    const char *af[] = {NULL, "i", "u", "u", "u"};
    const char *const *ac[] = {NULL, v, s, s, s};
    const char *expect[] = {"NULL|2|4|r|r|r",
                            "a long key over twelve bytes|2|10|the longest string of them all|zzz|the longest string of them all-zzz",
                            "a long key over twelve bytez|1|8|q|q|q",
                            "a|2|6|b|x|b-x",
                            "|2|8|a|yy|a-yy"};
    /* in strcmp order of the rows' text */
    const char *sorted[] = {expect[0], expect[1], expect[2], expect[3], expect[4]};
    CHECK(!check_rows(kt, kf, 1, kc, calls, af, 5, ac, 9, sorted, 5));
}

TEST(agg_float_keys)
{
    struct basalt_query_type kt[] = {T(DOUBLE)};
    const char *kf[] = {"g"};
    const char *k0[] = {"nan", "-0.0", "0.0", "-nan", "1.5", "N", "1.5"};
    const char *const *kc[] = {k0};
    struct basalt_qagg_call calls[] = {CALL(COUNT_STAR, T(INT64))};
    const char *af[] = {NULL};
    const char *expect[] = {"0|2", "1.5|2", "NULL|1", "nan|2"};
    CHECK(!check_rows(kt, kf, 1, kc, calls, af, 1, NULL, 7, expect, 4));
}

TEST(agg_multi_key_nulls)
{
    struct basalt_query_type kt[] = {T(INT32), T(STRING), T(DATE)};
    const char *kf[] = {"i", "u", "tdD"};
    const char *k0[] = {"1", "1", "N", "N", "1", "N"};
    const char *k1[] = {"a", "N", "a", "N", "a", "N"};
    const char *k2[] = {"0", "0", "0", "N", "0", "N"};
    const char *const *kc[] = {k0, k1, k2};
    const char *v[] = {"1.5", "2.5", "N", "4", "-1", "8"};
    struct basalt_qagg_call calls[] = {CALL(COUNT_STAR, T(INT64)), CALL(SUM, T(DOUBLE)),
                                       CALL(STDDEV_SAMP, T(DOUBLE))};
    const char *af[] = {NULL, "g", "g"};
    const char *const *ac[] = {NULL, v, v};
    const char *expect[] = {"1|NULL|1970-01-01|1|2.5|NULL",
                            "1|a|1970-01-01|2|0.5|1.7677669529663689",
                            "NULL|NULL|NULL|2|12|2.8284271247461903",
                            "NULL|a|1970-01-01|1|NULL|NULL"};
    CHECK(!check_rows(kt, kf, 3, kc, calls, af, 3, ac, 6, expect, 4));
}

TEST(agg_distinct_and_quantiles)
{
    struct basalt_query_type kt[] = {T(INT8)};
    const char *kf[] = {"c"};
    const char *k0[] = {"1", "1", "1", "1", "1", "2", "2"};
    const char *const *kc[] = {k0};
    const char *v[] = {"3", "1", "3", "N", "10", "7", "7"};
    struct basalt_qagg_call calls[] = {
        {BASALT_QAGG_COUNT, true, T(INT64), 0, NULL, T(NULL), false},
        {BASALT_QAGG_SUM, true, T(INT64), 0, NULL, T(NULL), false},
        CALL(MEDIAN, T(INT64)),
        {BASALT_QAGG_QUANTILE_DISC, false, T(INT64), 0.25, NULL, T(NULL), false},
        {BASALT_QAGG_QUANTILE_CONT, false, T(INT64), 0.9, NULL, T(NULL), false},
        {BASALT_QAGG_AVG, true, T(INT64), 0, NULL, T(NULL), false}};
    const char *af[] = {"l", "l", "l", "l", "l", "l"};
    const char *const *ac[] = {v, v, v, v, v, v};
    /* group 1: values 1 3 3 10; quantile_cont 0.9: rn = 3 * 0.9 (2.7000000000000002 in
     * doubles), 3 + 7 * (rn - 2), DuckDB's 7.900000000000001 */
    const char *expect[] = {"1|3|14|3|1|7.9000000000000012|4.666666666666667",
                            "2|1|7|7|7|7|7"};
    CHECK(!check_rows(kt, kf, 1, kc, calls, af, 6, ac, 7, expect, 2));
}

/* Quantiles by selection (agg_select.c) put at the ranks a call reads the
 * values a sort by the cell comparator puts there: doubles with NaNs, both
 * zeros and infinities, signed and unsigned integers, many duplicates, every
 * group size from 1 to 300, adversarial orders (sorted, reversed, all equal). */
static int cmp_cells_f(const void *x, const void *y, void *p)
{
    return basalt_qagg_cell_cmp(*(const enum qagg_phys *)p, x, y);
}

static bool same_cell(enum qagg_phys p, const union qagg_cell *a, const union qagg_cell *b)
{
    if (p == QP_F64)
        return (isnan(a->f) && isnan(b->f)) || memcmp(&a->f, &b->f, 8) == 0;
    return p == QP_U64 ? a->u == b->u : a->i == b->i;
}

TEST(agg_quantile_selection_matches_sorting)
{
    const enum qagg_phys phys[] = {QP_F64, QP_I64, QP_U64};
    const double specials[] = {NAN, -NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -1.5};
    const struct {
        enum basalt_qagg_kind kind;
        double q;
    } calls[] = {{BASALT_QAGG_MEDIAN, 0.5},        {BASALT_QAGG_QUANTILE_CONT, 0.25},
                 {BASALT_QAGG_QUANTILE_CONT, 0.9}, {BASALT_QAGG_QUANTILE_DISC, 0.3},
                 {BASALT_QAGG_QUANTILE_CONT, 0.0}, {BASALT_QAGG_QUANTILE_DISC, 1.0}};
    union qagg_cell *v = malloc(sizeof *v * 300), *sorted = malloc(sizeof *v * 300);
    uint64_t *scratch = malloc(sizeof *scratch * 300);
    uint64_t seed = 7;
    int checked = 0;
    for (size_t pi = 0; pi < sizeof phys / sizeof phys[0]; pi++) {
        for (size_t ci = 0; ci < sizeof calls / sizeof calls[0]; ci++) {
            struct qagg_callinfo info;
            memset(&info, 0, sizeof info);
            info.call.kind = calls[ci].kind;
            info.call.quantile = calls[ci].q;
            info.in_phys = phys[pi];
            CHECK(basalt_qagg_selects(&info));
            for (int64_t n = 1; n <= 300; n += n < 20 ? 1 : 37) {
                for (int order = 0; order < 4; order++) {
                    for (int64_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                        int64_t r = (int64_t)(seed >> 33) % 11 - 5; /* many duplicates */
                        if (order == 1)
                            r = i;
                        else if (order == 2)
                            r = n - i;
                        else if (order == 3)
                            r = 4;
                        memset(&v[i], 0, sizeof v[i]);
                        if (phys[pi] == QP_F64)
                            v[i].f = order == 0 && (seed >> 20) % 3 == 0
                                         ? specials[(seed >> 24) % 8]
                                         : (double)r / 2;
                        else if (phys[pi] == QP_U64)
                            v[i].u = (uint64_t)(r + 5) << 60; /* the top bit set too */
                        else
                            v[i].i = r * 1000000000000LL;
                    }
                    memcpy(sorted, v, sizeof *v * (size_t)n);
                    enum qagg_phys p = phys[pi];
                    qsort_r(sorted, (size_t)n, sizeof *sorted, cmp_cells_f, &p);
                    basalt_qagg_select_ranks(&info, v, n, scratch);
                    int64_t lo, hi;
                    double frac;
                    basalt_qagg_quantile_ranks(&info, n, &lo, &hi, &frac);
                    CHECK_MSG(same_cell(p, &v[lo], &sorted[lo]) &&
                                  same_cell(p, &v[hi], &sorted[hi]),
                              "phys %d kind %d q %g n %lld order %d: ranks %lld/%lld differ",
                              (int)p, (int)calls[ci].kind, calls[ci].q, (long long)n, order,
                              (long long)lo, (long long)hi);
                    checked++;
                }
            }
        }
    }
    CHECK(checked > 1000);
    free(v);
    free(sorted);
    free(scratch);
}

/* The dense path takes small integer keys and hands over to the hash table
 * when a batch widens the range past the window; the results agree. */
TEST(agg_dense_path)
{
    struct basalt_error err;
    basalt_error_init(&err);
    enum { ROWS = 20000 };
    char **cells = malloc(sizeof(char *) * ROWS), **vals = malloc(sizeof(char *) * ROWS);
    for (int i = 0; i < ROWS; i++) {
        char b[32];
        /* the last rows jump far away: the local leaves the dense path */
        snprintf(b, sizeof b, "%d", i < 15000 ? (i * 7919) % 100 - 50 : 1000000 + i % 3);
        cells[i] = strdup(i % 97 == 0 ? "N" : b);
        snprintf(b, sizeof b, "%d", i);
        vals[i] = strdup(b);
    }
    struct ArrowArray key, arg;
    CHECK_OK(at_array("l", (const char *const *)cells, ROWS, &key), NULL);
    CHECK_OK(at_array("l", (const char *const *)vals, ROWS, &arg), NULL);
    struct basalt_query_type kt[] = {T(INT64)};
    struct basalt_qagg_call calls[] = {CALL(COUNT_STAR, T(INT64)), CALL(SUM, T(INT64))};
    struct ArrowArray args[2] = {arg, arg};
    struct basalt_qagg *agg;
    CHECK_OK(basalt_qagg_new(kt, 1, calls, 2, NULL, &agg, &err), &err);
    char **rows;
    int64_t nr;
    struct at_opts o = {1, 0, NULL, true, NULL};
    /* only the first 15000 rows: dense throughout */
    CHECK_OK(at_run(agg, kt, 1, calls, 2, &key, args, 15000, &o, &rows, &nr, &err), &err);
    struct basalt_qagg_stats st;
    basalt_qagg_stats(agg, &st);
    CHECK(st.dense_batches > 0);
    CHECK_EQ(st.hashed_batches, 0);
    CHECK_EQ(st.groups, 101);
    /* hand-computed: sum over rows with key k */
    int64_t sum_m50 = 0, cnt_m50 = 0;
    for (int i = 0; i < 15000; i++)
        if (i % 97 != 0 && (i * 7919) % 100 - 50 == -50) {
            sum_m50 += i;
            cnt_m50++;
        }
    char want[64];
    snprintf(want, sizeof want, "-50|%lld|%lld", (long long)cnt_m50, (long long)sum_m50);
    bool found = false;
    for (int64_t r = 0; r < nr; r++)
        found |= strcmp(rows[r], want) == 0;
    CHECK_MSG(found, "no row '%s'", want);
    at_free(rows, nr);
    basalt_qagg_free(agg);
    /* all rows: the far keys turn the hash table on */
    CHECK_OK(basalt_qagg_new(kt, 1, calls, 2, NULL, &agg, &err), &err);
    o.locals = 2;
    o.split_seed = 3;
    CHECK_OK(at_run(agg, kt, 1, calls, 2, &key, args, ROWS, &o, &rows, &nr, &err), &err);
    basalt_qagg_stats(agg, &st);
    CHECK(st.dense_batches > 0);
    CHECK(st.hashed_batches > 0);
    CHECK_EQ(nr, 104);
    found = false;
    for (int64_t r = 0; r < nr; r++)
        found |= strcmp(rows[r], want) == 0;
    CHECK_MSG(found, "no row '%s' after the switch", want);
    at_free(rows, nr);
    basalt_qagg_free(agg);
    basalt_arrow_array_release(&key);
    basalt_arrow_array_release(&arg);
    for (int i = 0; i < ROWS; i++) {
        free(cells[i]);
        free(vals[i]);
    }
    free(cells);
    free(vals);
}

/* The same data through 1, 2 and 4 locals, random splits and a pool: the
 * output, in its order, is byte for byte the same. */
static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* String MIN and MAX keep values of up to QAGG_MM_INLINE_BYTES in the state
 * and longer ones in a buffer of their own; values of 0 to 40 bytes arrive in
 * random order, so states go from inline to a buffer and a buffer holds a
 * short value again. The expected extremes are found here with strcmp. */
TEST(agg_string_minmax_inline_and_owned)
{
    enum { GROUPS = 120, PER = 40, ROWS = GROUPS * PER, MAXLEN = 40 };
    CHECK(QAGG_MM_INLINE_BYTES > 8 && QAGG_MM_INLINE_BYTES < MAXLEN);
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    char **k = malloc(sizeof(char *) * ROWS), **v = malloc(sizeof(char *) * ROWS);
    char **expect = malloc(sizeof(char *) * GROUPS);
    const char *lo[GROUPS] = {0}, *hi[GROUPS] = {0};
    for (int i = 0; i < ROWS; i++) {
        int g = i % GROUPS;
        char b[MAXLEN + 1];
        /* a length at or next to the inline size half the time */
        int len = bt_rng_below(&rng, 2) ? (int)QAGG_MM_INLINE_BYTES - 1 + (int)bt_rng_below(&rng, 3)
                                         : (int)bt_rng_below(&rng, MAXLEN + 1);
        for (int j = 0; j < len; j++)
            b[j] = (char)('a' + bt_rng_below(&rng, 3));
        b[len] = 0;
        char kb[16];
        snprintf(kb, sizeof kb, "g%03d", g);
        k[i] = strdup(kb);
        v[i] = strdup(b);
        if (!lo[g] || strcmp(v[i], lo[g]) < 0)
            lo[g] = v[i];
        if (!hi[g] || strcmp(v[i], hi[g]) > 0)
            hi[g] = v[i];
    }
    for (int g = 0; g < GROUPS; g++) {
        size_t n = strlen(lo[g]) + strlen(hi[g]) + 16;
        expect[g] = malloc(n);
        snprintf(expect[g], n, "g%03d|%s|%s", g, lo[g], hi[g]);
    }
    qsort(expect, GROUPS, sizeof *expect, cmp_text);
    struct basalt_query_type kt[] = {T(STRING)};
    const char *kf[] = {"u"};
    const char *const *kc[] = {(const char *const *)k};
    struct basalt_qagg_call calls[] = {CALL(MIN, T(STRING)), CALL(MAX, T(STRING))};
    const char *af[] = {"u", "u"};
    const char *const *ac[] = {(const char *const *)v, (const char *const *)v};
    CHECK(!check_rows(kt, kf, 1, kc, calls, af, 2, ac, ROWS, (const char *const *)expect,
                      GROUPS));
    for (int i = 0; i < ROWS; i++) {
        free(k[i]);
        free(v[i]);
    }
    for (int g = 0; g < GROUPS; g++)
        free(expect[g]);
    free(k);
    free(v);
    free(expect);
}

TEST(agg_deterministic_output)
{
    struct basalt_error err;
    basalt_error_init(&err);
    enum { ROWS = 30000 };
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    char **k0 = malloc(sizeof(char *) * ROWS), **k1 = malloc(sizeof(char *) * ROWS),
         **v = malloc(sizeof(char *) * ROWS);
    for (int i = 0; i < ROWS; i++) {
        char b[64];
        snprintf(b, sizeof b, "%d", (int)bt_rng_below(&rng, 3000));
        k0[i] = strdup(bt_rng_below(&rng, 50) ? b : "N");
        snprintf(b, sizeof b, "key-%d-padded-past-inline", (int)bt_rng_below(&rng, 3));
        k1[i] = strdup(b);
        snprintf(b, sizeof b, "%.17g", (bt_rng_below(&rng, 2000000) - 1e6) / 7.0);
        v[i] = strdup(bt_rng_below(&rng, 20) ? b : "N");
    }
    struct ArrowArray keys[2], args[4];
    CHECK_OK(at_array("l", (const char *const *)k0, ROWS, &keys[0]), NULL);
    CHECK_OK(at_array("u", (const char *const *)k1, ROWS, &keys[1]), NULL);
    CHECK_OK(at_array("g", (const char *const *)v, ROWS, &args[0]), NULL);
    args[1] = args[2] = args[3] = args[0];
    struct basalt_query_type kt[] = {T(INT64), T(STRING)};
    struct basalt_qagg_call calls[] = {CALL(SUM, T(DOUBLE)), CALL(STDDEV_POP, T(DOUBLE)),
                                       CALL(MEDIAN, T(DOUBLE)), CALL(AVG, T(DOUBLE))};
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    char **ref = NULL;
    int64_t nref = 0;
    for (int mode = 0; mode < 5; mode++) {
        struct basalt_qagg *agg;
        CHECK_OK(basalt_qagg_new(kt, 2, calls, 4, NULL, &agg, &err), &err);
        static const int locals[] = {1, 2, 4, 4, 3};
        struct at_opts o = {locals[mode], mode >= 3 ? (uint64_t)mode : 0, mode >= 2 ? pool : NULL,
                            false, NULL};
        char **rows;
        int64_t nr;
        CHECK_OK(at_run(agg, kt, 2, calls, 4, keys, args, ROWS, &o, &rows, &nr, &err), &err);
        basalt_qagg_free(agg);
        if (!ref) {
            ref = rows;
            nref = nr;
            CHECK(nr > 5000);
            continue;
        }
        CHECK_EQ(nr, nref);
        for (int64_t r = 0; r < nr; r++)
            CHECK_MSG(strcmp(rows[r], ref[r]) == 0, "mode %d row %lld: '%s' != '%s'", mode,
                      (long long)r, rows[r], ref[r]);
        at_free(rows, nr);
    }
    at_free(ref, nref);
    basalt_pool_free(pool);
    basalt_arrow_array_release(&keys[0]);
    basalt_arrow_array_release(&keys[1]);
    basalt_arrow_array_release(&args[0]);
    free_cells(k0, k1, v, ROWS);
}

/* Enough groups that each partition is merged and written in one task, its
 * table freed at once (QAGG_MERGE_WRITE_GROUPS): two locals that each hold
 * every one of 600,000 keys give the rows of one local (too few groups for
 * that: its output batches are cut across partitions) in the same order,
 * and the counts, sums and minimum strings the rows' formulas give; the
 * median collects values, which the writer reads per partition. */
TEST(agg_many_groups_merge_and_write_each_partition)
{
    enum { KEYS = 600000, ROWS = 2 * KEYS };
    CHECK(2 * (int64_t)KEYS >= QAGG_MERGE_WRITE_GROUPS && KEYS < QAGG_MERGE_WRITE_GROUPS);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arrow_builder *kb, *xb, *sb;
    struct ArrowSchema sch;
    CHECK_OK(basalt_arrow_builder_new("l", NULL, 0, &kb, &err), &err);
    CHECK_OK(basalt_arrow_builder_new("l", NULL, 0, &xb, &err), &err);
    CHECK_OK(basalt_arrow_builder_new("u", NULL, 0, &sb, &err), &err);
    for (int64_t r = 0; r < ROWS; r++) {
        char b[32];
        snprintf(b, sizeof b, "s%lld", (long long)((r * 31) % 977));
        CHECK_OK(basalt_arrow_builder_append_int(kb, r % KEYS, &err), &err);
        CHECK_OK(basalt_arrow_builder_append_int(xb, (r * 7919) % 1000, &err), &err);
        CHECK_OK(basalt_arrow_builder_append_bytes(sb, b, (int64_t)strlen(b), &err), &err);
    }
    struct ArrowArray keys[1], args[4];
    CHECK_OK(basalt_arrow_builder_finish(kb, &sch, &keys[0], &err), &err);
    basalt_arrow_schema_release(&sch);
    CHECK_OK(basalt_arrow_builder_finish(xb, &sch, &args[1], &err), &err);
    basalt_arrow_schema_release(&sch);
    CHECK_OK(basalt_arrow_builder_finish(sb, &sch, &args[2], &err), &err);
    basalt_arrow_schema_release(&sch);
    basalt_arrow_builder_free(kb);
    basalt_arrow_builder_free(xb);
    basalt_arrow_builder_free(sb);
    args[0] = args[3] = args[1];
    struct basalt_query_type kt[] = {T(INT64)};
    struct basalt_qagg_call calls[] = {CALL(COUNT_STAR, T(INT64)), CALL(SUM, T(INT64)),
                                       CALL(MIN, T(STRING)), CALL(MEDIAN, T(INT64))};
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(1, &pool, &err), &err);
    char **one = NULL, **two = NULL;
    int64_t n_one = 0, n_two = 0;
    struct basalt_qagg *agg;
    CHECK_OK(basalt_qagg_new(kt, 1, calls, 4, NULL, &agg, &err), &err);
    struct at_opts o1 = {1, 0, NULL, false, NULL};
    CHECK_OK(at_run(agg, kt, 1, calls, 4, keys, args, ROWS, &o1, &one, &n_one, &err), &err);
    CHECK(!agg->merge_write_finish); /* 600,000 groups: batches cut across partitions */
    basalt_qagg_free(agg);
    CHECK_OK(basalt_qagg_new(kt, 1, calls, 4, NULL, &agg, &err), &err);
    struct at_opts o2 = {2, 0, pool, false, NULL};
    CHECK_OK(at_run(agg, kt, 1, calls, 4, keys, args, ROWS, &o2, &two, &n_two, &err), &err);
    CHECK(!agg->direct_finish && agg->merge_write_finish);
    basalt_qagg_free(agg);
    CHECK_EQ(n_one, KEYS);
    CHECK_EQ(n_two, KEYS);
    int64_t wrong = 0, first_wrong = -1;
    for (int64_t i = 0; i < n_one && i < n_two; i++) {
        long long k = atoll(one[i]);
        int64_t r0 = k, r1 = k + KEYS;
        int64_t s0 = (r0 * 31) % 977, s1 = (r1 * 31) % 977;
        char a[32], b[32], want[128];
        snprintf(a, sizeof a, "s%lld", (long long)s0);
        snprintf(b, sizeof b, "s%lld", (long long)s1);
        snprintf(want, sizeof want, "%lld|2|%lld|%s|", k,
                 (long long)((r0 * 7919) % 1000 + (r1 * 7919) % 1000), strcmp(a, b) < 0 ? a : b);
        if (strcmp(one[i], two[i]) != 0 || strncmp(one[i], want, strlen(want)) != 0) {
            if (first_wrong < 0)
                first_wrong = i;
            wrong++;
        }
    }
    CHECK_MSG(wrong == 0, "%lld rows differ, first %lld: one '%s' two '%s'", (long long)wrong,
              (long long)first_wrong, first_wrong >= 0 ? one[first_wrong] : "",
              first_wrong >= 0 ? two[first_wrong] : "");
    at_free(one, n_one);
    at_free(two, n_two);
    basalt_pool_free(pool);
    basalt_arrow_array_release(&keys[0]);
    basalt_arrow_array_release(&args[1]);
    basalt_arrow_array_release(&args[2]);
}

/* A later chunk below the first one's keys slides the dense window down:
 * the map moves with it and every earlier group keeps its id. */
TEST(agg_dense_window_slides)
{
    struct basalt_error err;
    basalt_error_init(&err);
    enum { ROWS = 3 * 2048 };
    char **cells = malloc(sizeof(char *) * ROWS);
    for (int i = 0; i < ROWS; i++) {
        static const int base[3] = {30000, 0, 60000};
        char b[32];
        snprintf(b, sizeof b, "%d", base[i / 2048] + (i % 2048) % 100);
        cells[i] = strdup(b);
    }
    struct ArrowArray key;
    CHECK_OK(at_array("i", (const char *const *)cells, ROWS, &key), NULL);
    struct basalt_query_type kt[] = {T(INT32)};
    struct basalt_qagg_call calls[] = {CALL(COUNT_STAR, T(INT64))};
    struct basalt_qagg *agg;
    CHECK_OK(basalt_qagg_new(kt, 1, calls, 1, NULL, &agg, &err), &err);
    char **rows;
    int64_t nr;
    struct at_opts o = {1, 0, NULL, true, NULL};
    CHECK_OK(at_run(agg, kt, 1, calls, 1, &key, NULL, ROWS, &o, &rows, &nr, &err), &err);
    struct basalt_qagg_stats st;
    basalt_qagg_stats(agg, &st);
    CHECK_EQ(st.dense_batches, 3);
    CHECK_EQ(st.hashed_batches, 0);
    CHECK_EQ(nr, 300);
    /* 2048 rows per chunk: offsets 0..47 come 21 times, 48..99 20 times */
    static const char *const want[] = {"0|21", "99|20", "30047|21", "30048|20", "60000|21",
                                       "60099|20"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool found = false;
        for (int64_t r = 0; r < nr; r++)
            found |= strcmp(rows[r], want[w]) == 0;
        CHECK_MSG(found, "no row '%s'", want[w]);
    }
    at_free(rows, nr);
    basalt_qagg_free(agg);
    basalt_arrow_array_release(&key);
    for (int i = 0; i < ROWS; i++)
        free(cells[i]);
    free(cells);
}

/* ------------------------------------------------------------ f(y, x) */

#define PAIR(k) {BASALT_QAGG_##k, false, T(DOUBLE), 0, NULL, T(DOUBLE), false}

/* Same text, or both numbers within rel (NaN equal to NaN). */
static bool cell_close(const char *a, const char *b, double rel)
{
    if (strcmp(a, b) == 0)
        return true;
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (*ea || *eb || ea == a || eb == b)
        return false;
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y);
    return fabs(x - y) <= rel * fmax(fabs(x), fabs(y));
}

/* Runs f(y, x) calls over text columns (keys "l", values "g") with 1, 2 and 3
 * locals and random splits; every mode must give the same rows, sorted, and
 * they must match `expect` cell by cell to rel. */
/* check_pairs over y and x of Arrow format fmt (the calls' input types). */
static int check_pairs_as(const char *fmt, const char *const *k, const char *const *y,
                          const char *const *x, int64_t n, const struct basalt_qagg_call *calls,
                          int nc, const char *const *expect, int64_t n_expect, double rel)
{
    struct ArrowArray key, ya, xa, args[16], args2[16];
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_query_type kt[] = {T(INT64)};
    if (at_array("l", k, n, &key) != BASALT_OK || at_array(fmt, y, n, &ya) != BASALT_OK ||
        at_array(fmt, x, n, &xa) != BASALT_OK)
        return printf("bad column\n"), 1;
    for (int c = 0; c < nc; c++) {
        args[c] = ya;
        args2[c] = xa;
    }
    int bad = 0;
    char **first = NULL;
    int64_t nfirst = 0;
    for (int mode = 0; mode < 4 && !bad; mode++) {
        struct basalt_qagg *agg;
        if (basalt_qagg_new(kt, 1, calls, nc, NULL, &agg, &err) != BASALT_OK) {
            printf("new: %s\n", err.message);
            bad = 1;
            break;
        }
        struct at_opts o = {mode + 1, mode >= 2 ? (uint64_t)mode + 5 : 0, NULL, true, args2};
        char **rows;
        int64_t nr;
        basalt_status st = at_run(agg, kt, 1, calls, nc, &key, args, n, &o, &rows, &nr, &err);
        basalt_qagg_free(agg);
        if (st != BASALT_OK) {
            printf("run: %s\n", err.message);
            bad = 1;
            break;
        }
        if (!first) {
            first = rows;
            nfirst = nr;
            continue;
        }
        for (int64_t r = 0; r < nr && r < nfirst; r++)
            if (strcmp(rows[r], first[r]) != 0) {
                printf("mode %d row %lld: '%s', 1 local '%s'\n", mode, (long long)r, rows[r],
                       first[r]);
                bad = 1;
            }
        bad |= nr != nfirst;
        at_free(rows, nr);
    }
    if (!bad && nfirst != n_expect) {
        printf("%lld rows, expected %lld\n", (long long)nfirst, (long long)n_expect);
        bad = 1;
    }
    for (int64_t r = 0; !bad && r < nfirst; r++) {
        char got[1024], want[1024];
        snprintf(got, sizeof got, "%s", first[r]);
        snprintf(want, sizeof want, "%s", expect[r]);
        char *gs = NULL, *ws = NULL;
        char *g = strtok_r(got, "|", &gs), *w = strtok_r(want, "|", &ws);
        for (; g && w; g = strtok_r(NULL, "|", &gs), w = strtok_r(NULL, "|", &ws))
            if (!cell_close(g, w, rel)) {
                printf("row %lld: '%s', expected '%s' ('%s' vs '%s')\n", (long long)r, first[r],
                       expect[r], g, w);
                bad = 1;
                break;
            }
        if (!bad && (g || w)) {
            printf("row %lld: '%s', expected '%s'\n", (long long)r, first[r], expect[r]);
            bad = 1;
        }
    }
    at_free(first, nfirst);
    basalt_arrow_array_release(&key);
    basalt_arrow_array_release(&ya);
    basalt_arrow_array_release(&xa);
    return bad;
}

static int check_pairs(const char *const *k, const char *const *y, const char *const *x,
                       int64_t n, const struct basalt_qagg_call *calls, int nc,
                       const char *const *expect, int64_t n_expect, double rel)
{
    return check_pairs_as("g", k, y, x, n, calls, nc, expect, n_expect, rel);
}

/* DuckDB 1.5.6's answers (SELECT corr(y, x), ... GROUP BY k over the same
 * rows): pairs with a NULL skipped; one pair: covariance 0, NaN correlation
 * and slope, NULL intercept and r2; constant x: NaN correlation and slope,
 * NULL intercept and r2; constant y (x varying): slope 0, r2 1, NaN
 * correlation; no pair: NULL, regr_count 0. */
TEST(agg_two_arg_duckdb_cases)
{
    const char *k[] = {"1", "1", "1", "1", "1", "2", "3", "3", "4", "4", "5", "5", "6", "6"};
    const char *y[] = {"1", "2", "N", "4", "3", "1", "1", "3", "1", "1", "1", "1", "N", "2"};
    const char *x[] = {"2", "5", "3", "N", "1", "2", "2", "2", "2", "3", "2", "2", "1", "N"};
    struct basalt_qagg_call calls[] = {
        PAIR(CORR), PAIR(COVAR_POP), PAIR(COVAR_SAMP), PAIR(REGR_SLOPE), PAIR(REGR_INTERCEPT),
        PAIR(REGR_R2), PAIR(REGR_COUNT), PAIR(REGR_AVGX), PAIR(REGR_AVGY), PAIR(REGR_SXX),
        PAIR(REGR_SYY), PAIR(REGR_SXY)};
    const char *expect[] = {
        ("1|-0.24019223070763068|-0.3333333333333333|-0.5|-0.11538461538461538|"
         "2.3076923076923075|0.05769230769230768|3|2.6666666666666665|2|8.666666666666666|2|-1"),
        "2|nan|0|NULL|nan|NULL|NULL|1|2|1|0|0|0",
        "3|nan|0|0|nan|NULL|NULL|2|2|2|0|2|0",
        "4|nan|0|0|0|1|1|2|2.5|1|0.5|0|0",
        "5|nan|0|0|nan|NULL|NULL|2|2|1|0|0|0",
        "6|NULL|NULL|NULL|NULL|NULL|NULL|0|NULL|NULL|NULL|NULL|NULL"};
    CHECK(!check_pairs(k, y, x, 14, calls, 12, expect, 6, 1e-15));
}

/* The twelve two-argument kinds, in the order of the expected rows, each
 * over arguments of type t. */
static void pair_calls(struct basalt_qagg_call *calls, struct basalt_query_type t)
{
    static const enum basalt_qagg_kind kinds[] = {
        BASALT_QAGG_CORR, BASALT_QAGG_COVAR_POP, BASALT_QAGG_COVAR_SAMP, BASALT_QAGG_REGR_SLOPE,
        BASALT_QAGG_REGR_INTERCEPT, BASALT_QAGG_REGR_R2, BASALT_QAGG_REGR_COUNT,
        BASALT_QAGG_REGR_AVGX, BASALT_QAGG_REGR_AVGY, BASALT_QAGG_REGR_SXX, BASALT_QAGG_REGR_SYY,
        BASALT_QAGG_REGR_SXY};
    for (int c = 0; c < 12; c++)
        calls[c] = (struct basalt_qagg_call){kinds[c], false, t, 0, NULL, t, false};
}

/* The expected row of group g (rows i with i % groups == g) of the twelve
 * kinds: two passes in long double over the values less `shift` (exact for
 * the data here), the means and intercept moved back by it. malloc'd. */
static char *pair_expect(const double *xs, const double *ys, int rows, int groups, int g,
                         long double shift)
{
    long double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int i = g; i < rows; i += groups) {
        n++;
        sx += xs[i] - shift;
        sy += ys[i] - shift;
    }
    long double mx = sx / n, my = sy / n;
    for (int i = g; i < rows; i += groups) {
        long double dx = (xs[i] - shift) - mx, dy = (ys[i] - shift) - my;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    long double cov = sxy / n, vx = sxx / n, vy = syy / n, slope = cov / vx;
    long double corr = cov / sqrtl(vx * vy);
    char b[1024];
    snprintf(b, sizeof b, "%d|%.17Lg|%.17Lg|%.17Lg|%.17Lg|%.17Lg|%.17Lg|%.0Lf|%.17Lg|%.17Lg|"
             "%.17Lg|%.17Lg|%.17Lg",
             g, corr, cov, sxy / (n - 1), slope, (my + shift) - slope * (mx + shift),
             corr * corr, n, mx + shift, my + shift, sxx, syy, sxy);
    return strdup(b);
}

/* The same rows as INTEGER columns take the exact 128-bit path
 * (qagg_comom_i): the same answers. */
TEST(agg_two_arg_integer_duckdb_cases)
{
    const char *k[] = {"1", "1", "1", "1", "1", "2", "3", "3", "4", "4", "5", "5", "6", "6"};
    const char *y[] = {"1", "2", "N", "4", "3", "1", "1", "3", "1", "1", "1", "1", "N", "2"};
    const char *x[] = {"2", "5", "3", "N", "1", "2", "2", "2", "2", "3", "2", "2", "1", "N"};
    struct basalt_qagg_call calls[12];
    pair_calls(calls, T(INT32));
    const char *expect[] = {
        ("1|-0.24019223070763068|-0.3333333333333333|-0.5|-0.11538461538461538|"
         "2.3076923076923075|0.05769230769230768|3|2.6666666666666665|2|8.666666666666666|2|-1"),
        "2|nan|0|NULL|nan|NULL|NULL|1|2|1|0|0|0",
        "3|nan|0|0|nan|NULL|NULL|2|2|2|0|2|0",
        "4|nan|0|0|0|1|1|2|2.5|1|0.5|0|0",
        "5|nan|0|0|nan|NULL|NULL|2|2|1|0|0|0",
        "6|NULL|NULL|NULL|NULL|NULL|NULL|0|NULL|NULL|NULL|NULL|NULL"};
    CHECK(!check_pairs_as("i", k, y, x, 14, calls, 12, expect, 6, 1e-15));
}

/* INTEGER pairs at the ends of the range (shifts of 2^32 between the locals
 * merged, squares near 2^64, sums past 2^64): against two passes in long
 * double, bit-identical for 1-4 locals and any split. */
TEST(agg_two_arg_integer_extremes)
{
    enum { ROWS = 60000, G = 3 };
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    char **k = malloc(sizeof(char *) * ROWS), **y = malloc(sizeof(char *) * ROWS),
         **x = malloc(sizeof(char *) * ROWS);
    double *xs = malloc(sizeof(double) * ROWS), *ys = malloc(sizeof(double) * ROWS);
    for (int i = 0; i < ROWS; i++) {
        /* x anywhere in INT32; y follows x with noise and an intercept of
         * 5e8 (one near 0 would cancel to a few digits in any engine) */
        int64_t u = (int64_t)bt_rng_below(&rng, 1u << 31) * 2 - INT32_MAX;
        int64_t v = (int64_t)bt_rng_below(&rng, 1u << 20) - (1 << 19);
        int64_t w = u / 2 + v + 500000000;
        w = w < INT32_MIN ? INT32_MIN : w > INT32_MAX ? INT32_MAX : w;
        xs[i] = (double)u;
        ys[i] = (double)w;
        char b[64];
        snprintf(b, sizeof b, "%d", i % G);
        k[i] = strdup(b);
        snprintf(b, sizeof b, "%lld", (long long)u);
        x[i] = strdup(b);
        snprintf(b, sizeof b, "%lld", (long long)w);
        y[i] = strdup(b);
    }
    char *expect[G];
    for (int g = 0; g < G; g++)
        expect[g] = pair_expect(xs, ys, ROWS, G, g, 0);
    struct basalt_qagg_call calls[12];
    pair_calls(calls, T(INT32));
    CHECK(!check_pairs_as("i", (const char *const *)k, (const char *const *)y,
                          (const char *const *)x, ROWS, calls, 12, (const char *const *)expect, G,
                          1e-13));
    for (int g = 0; g < G; g++)
        free(expect[g]);
    free_cells(k, y, x, ROWS);
    free(xs);
    free(ys);
}

TEST(agg_two_arg_types_and_errors)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_query_type t;
    char buf[64];
    struct basalt_qagg_call c = {BASALT_QAGG_CORR, false, T(INT32), 0, NULL,
                                 basalt_query_type_decimal(18, 3), false};
    CHECK_OK(basalt_qagg_result_type(&c, &t, &err), &err);
    CHECK_STR(basalt_query_type_name(t, buf, sizeof buf), "DOUBLE");
    c.kind = BASALT_QAGG_REGR_COUNT;
    CHECK_OK(basalt_qagg_result_type(&c, &t, &err), &err);
    CHECK_STR(basalt_query_type_name(t, buf, sizeof buf), "UINTEGER");
    c.input = T(STRING);
    CHECK_STATUS(basalt_qagg_result_type(&c, &t, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STR(err.message, "no aggregate regr_count(VARCHAR, DECIMAL(18,3))");
    c.input = T(DOUBLE);
    c.input2 = T(BOOL); /* DuckDB: no corr(DOUBLE, BOOLEAN) either */
    CHECK_STATUS(basalt_qagg_result_type(&c, &t, &err), BASALT_UNSUPPORTED, &err);
    c.input2 = T(DOUBLE);
    c.kind = BASALT_QAGG_COVAR_SAMP;
    c.distinct = true;
    CHECK_STATUS(basalt_qagg_result_type(&c, &t, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STR(err.message, "covar_samp(DISTINCT ...) is not supported");

    /* A NaN in x: DuckDB's out-of-range errors where its finaliser checks
     * the variance, NaN where it does not. */
    const char *k[] = {"1", "1", "1"};
    const char *y[] = {"1", "1", "2"};
    const char *x[] = {"nan", "2", "3"};
    static const struct {
        enum basalt_qagg_kind kind;
        const char *msg; /* NULL: a NaN result */
    } nan_cases[] = {
        {BASALT_QAGG_CORR, "STDDEV_POP for X is out of range!"},
        {BASALT_QAGG_REGR_R2, "VARPOP(X) is out of range!"},
        {BASALT_QAGG_REGR_SLOPE, "VARPOP is out of range!"},
        {BASALT_QAGG_REGR_SXX, "VARPOP is out of range!"},
        {BASALT_QAGG_COVAR_POP, NULL},
        {BASALT_QAGG_REGR_SXY, NULL},
    };
    struct ArrowArray ka, ya, xa;
    CHECK_OK(at_array("l", k, 3, &ka), NULL);
    CHECK_OK(at_array("g", y, 3, &ya), NULL);
    CHECK_OK(at_array("g", x, 3, &xa), NULL);
    for (size_t i = 0; i < sizeof nan_cases / sizeof nan_cases[0]; i++) {
        struct basalt_qagg_call call = {nan_cases[i].kind, false, T(DOUBLE), 0, NULL, T(DOUBLE), false};
        struct basalt_qagg *agg;
        CHECK_OK(basalt_qagg_new(NULL, 0, &call, 1, NULL, &agg, &err), &err);
        struct at_opts o = {2, 0, NULL, false, &xa};
        char **rows = NULL;
        int64_t nr = 0;
        basalt_status st = at_run(agg, NULL, 0, &call, 1, NULL, &ya, 3, &o, &rows, &nr, &err);
        if (nan_cases[i].msg) {
            CHECK_STATUS(st, BASALT_LIMIT, &err);
            CHECK_STR(err.message, nan_cases[i].msg);
        } else {
            CHECK_OK(st, &err);
            CHECK_EQ(nr, 1);
            CHECK_MSG(nr == 1 && strstr(rows[0], "nan"), "got '%s'", nr ? rows[0] : "");
        }
        at_free(rows, nr);
        basalt_qagg_free(agg);
    }
    basalt_arrow_array_release(&ka);
    basalt_arrow_array_release(&ya);
    basalt_arrow_array_release(&xa);
}

/* Values near 1e9 with a spread of 1 (a grain of 2^-22): the answers are
 * those of the same data shifted to 0 (exact in doubles), which a two-pass
 * long double computation gives to ~1e-19 (DuckDB's Welford updates in
 * doubles lose about 5e-8 of var_pop on such data at 1e6 rows). The shifted
 * sums make every operation exact, so the results are within an ulp or two
 * of the reference and bit-identical for 1-4 locals and any split. */
TEST(agg_two_arg_large_mean)
{
    enum { ROWS = 200000, G = 3 };
    struct bt_rng rng;
    bt_rng_seed(&rng, 9);
    char **k = malloc(sizeof(char *) * ROWS), **y = malloc(sizeof(char *) * ROWS),
         **x = malloc(sizeof(char *) * ROWS);
    double *xs = malloc(sizeof(double) * ROWS), *ys = malloc(sizeof(double) * ROWS);
    for (int i = 0; i < ROWS; i++) {
        double u = (double)bt_rng_below(&rng, 1u << 22) / (1u << 22);
        double v = (double)bt_rng_below(&rng, 1u << 22) / (1u << 22);
        xs[i] = 1e9 + u;
        ys[i] = 1e9 + 0.5 * u + 0.3 * v;
        char b[64];
        snprintf(b, sizeof b, "%d", i % G);
        k[i] = strdup(b);
        snprintf(b, sizeof b, "%.17g", xs[i]);
        x[i] = strdup(b);
        snprintf(b, sizeof b, "%.17g", ys[i]);
        y[i] = strdup(b);
    }
    /* the reference: two passes in long double over the shifted values */
    char *expect[G];
    for (int g = 0; g < G; g++)
        expect[g] = pair_expect(xs, ys, ROWS, G, g, 1e9L);
    struct basalt_qagg_call calls[12];
    pair_calls(calls, T(DOUBLE));
    CHECK(!check_pairs((const char *const *)k, (const char *const *)y, (const char *const *)x,
                       ROWS, calls, 12, (const char *const *)expect, G, 1e-14));
    for (int g = 0; g < G; g++)
        free(expect[g]);
    free_cells(k, y, x, ROWS);
    free(xs);
    free(ys);
}
