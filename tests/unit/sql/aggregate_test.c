/* The two-argument aggregates through SQL (corr, covar_*, regr_*): binding
 * (arity, nesting, DISTINCT and windows refused with clear messages), FILTER,
 * grouped and global answers written by hand (DuckDB 1.5.6 gives the same
 * with the same SQL, to the last digit or one ulp), and the plan API's
 * second argument. The randomised
 * comparisons with DuckDB are tests/cli/sql_duckdb.sh and
 * differential.query_agg. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basalt/query_plan.h"
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

#define VALUES                                                                           \
    "(VALUES (1, 1.0, 2.0), (1, 2.0, 5.0), (1, NULL, 3.0), (1, 4.0, NULL), (1, 3.0, 1.0), " \
    "(2, 1.0, 2.0), (2, 1.0, 2.0), (3, 7.0, NULL)) t(k, y, x)"

TEST(sql_two_arg_aggregates)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);

    /* grouped, in DuckDB's (y, x) order; group 2 has x constant, group 3 no
     * pair (regr_count 0, the rest NULL) */
    EXPECT_SQL_ROWS("SELECT k, corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_slope(y, x), "
                "regr_intercept(y, x), regr_r2(y, x), regr_count(y, x) FROM " VALUES
                " GROUP BY k ORDER BY k",
                "1|-0.24019223070763068|-0.33333333333333331|-0.5|-0.11538461538461538|"
                "2.3076923076923075|0.057692307692307682|3;"
                "2|nan|0|0|nan|N|N|2;"
                "3|N|N|N|N|N|N|0;");
    EXPECT_SQL_ROWS("SELECT regr_avgx(y, x), regr_avgy(y, x), regr_sxx(y, x), regr_syy(y, x), "
                "regr_sxy(y, x) FROM " VALUES " WHERE k = 1",
                "2.6666666666666665|2|8.6666666666666661|2|-1;");
    /* FILTER: a pair whose row fails the filter is skipped */
    EXPECT_SQL_ROWS("SELECT regr_count(y, x) FILTER (WHERE y > 1), corr(y, x) FILTER (WHERE k = 1),"
                " regr_count(y, x) FROM " VALUES,
                "2|-0.24019223070763068|5;");
    /* computed arguments, an aggregate inside an expression, HAVING */
    EXPECT_SQL_ROWS("SELECT k, pow(corr(y * 2 + 1, x - 3), 2) AS r2 FROM " VALUES
                " GROUP BY k HAVING regr_count(y, x) > 2",
                "1|0.057692307692307682;");

    EXPECT_SQL_ERROR("SELECT corr(y) FROM " VALUES, BASALT_INVALID_ARG, "corr takes 2 arguments");
    EXPECT_SQL_ERROR("SELECT regr_slope(y, x, k) FROM " VALUES, BASALT_INVALID_ARG,
                 "regr_slope takes 2 arguments");
    EXPECT_SQL_ERROR("SELECT corr(y, sum(x)) FROM " VALUES, BASALT_INVALID_ARG,
                 "aggregate function calls cannot be nested");
    EXPECT_SQL_ERROR("SELECT corr(DISTINCT y, x) FROM " VALUES, BASALT_UNSUPPORTED,
                 "corr(DISTINCT ...) is not supported");
    EXPECT_SQL_ERROR("SELECT k, corr(y, x) OVER (PARTITION BY k) FROM " VALUES, BASALT_UNSUPPORTED,
                 "corr is not supported as a window function");
    EXPECT_SQL_ERROR("SELECT corr('a', x) FROM " VALUES, BASALT_UNSUPPORTED,
                 "no aggregate corr(VARCHAR, DECIMAL(2,1))");
    basalt_sql_session_free(s);
}

/* The plan API: the second argument is required, and ignored by the
 * one-argument aggregates. */
TEST(sql_two_arg_plan_api)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_qctx *ctx;
    CHECK_OK(basalt_qctx_new(NULL, &ctx, &err), &err);
    struct basalt_sql_session *s;
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    const char *q = "SELECT * FROM " VALUES;
    CHECK_OK(basalt_sql_session_run(s, q, strlen(q), &b, &err), &err);
    struct basalt_qplan *vals, *agg;
    CHECK_OK(basalt_qplan_values(ctx, &b, &vals, &err), &err);
    struct basalt_qexpr_builder *qb;
    CHECK_OK(basalt_qplan_builder(ctx, vals, &qb, &err), &err);
    struct basalt_qexpr *y, *x;
    CHECK_OK(basalt_qexpr_column(qb, 1, &y, &err), &err);
    CHECK_OK(basalt_qexpr_column(qb, 2, &x, &err), &err);
    struct basalt_qplan_agg_call call = {.kind = BASALT_QPLAN_REGR_SLOPE, .arg = y, .name = "s"};
    CHECK_STATUS(basalt_qplan_aggregate(ctx, vals, NULL, NULL, 0, &call, 1, &agg, &err),
                 BASALT_INVALID_ARG, &err);
    call.arg2 = x;
    struct basalt_qplan_agg_call calls[2] = {call,
                                             {.kind = BASALT_QPLAN_SUM, .arg = y, .arg2 = x}};
    CHECK_OK(basalt_qplan_aggregate(ctx, vals, NULL, NULL, 0, calls, 2, &agg, &err), &err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_qplan_execute(ctx, agg, &out, &err), &err);
    CHECK_EQ(out.n, 1);
    if (out.n == 1) {
        const struct ArrowArray *a = &out.arrays[0];
        double slope = ((const double *)a->children[0]->buffers[1])[a->children[0]->offset];
        /* all five pairs: sxy -0.2, sxx 9.2 (DuckDB: -0.021739130434782608) */
        CHECK_MSG(fabs(slope / -0.02173913043478262 - 1) < 1e-15, "slope %.17g", slope);
    }
    basalt_arrow_batches_reset(&out);
    basalt_sql_session_free(s);
    basalt_qctx_free(ctx);
}

/* MEDIAN and QUANTILE_CONT of timestamps interpolate to the nearest
 * microsecond, halves away from zero, as DuckDB 1.5.6 answers the same SQL:
 * 1 and 2 microseconds past 2000-01-01 give 2 at 0.5 and 0.7 and 1 at 0.3;
 * before 1970 (negative microseconds) the half goes to the earlier one.
 * Truncating the step (as DECIMAL does, which DuckDB also truncates) gave
 * the earlier value every time. */
TEST(sql_timestamp_quantiles_round_to_the_nearest_microsecond)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
#define TWO_TS(y)                                                                        \
    "(VALUES (TIMESTAMP '" y "-01-01 00:00:00.000001'), (TIMESTAMP '" y              \
    "-01-01 00:00:00.000002')) v(t)"
    EXPECT_SQL_ROWS("SELECT CAST(median(t) AS VARCHAR), CAST(quantile_cont(t, 0.7) AS VARCHAR), "
                    "CAST(quantile_cont(t, 0.3) AS VARCHAR) FROM " TWO_TS("2000"),
                    "2000-01-01 00:00:00.000002|2000-01-01 00:00:00.000002|"
                    "2000-01-01 00:00:00.000001;");
    EXPECT_SQL_ROWS("SELECT CAST(median(t) AS VARCHAR), CAST(quantile_cont(t, 0.7) AS VARCHAR) "
                    "FROM " TWO_TS("1960"),
                    "1960-01-01 00:00:00.000001|1960-01-01 00:00:00.000002;");
#undef TWO_TS
    basalt_sql_session_free(s);
}

/* ORDER BY inside an aggregate whose result does not depend on the order is
 * accepted and changes nothing; inside first, last, any_value and
 * string_agg it decides the answer (DuckDB 1.5.6's answers to the same SQL:
 * NULLS LAST in either direction, first and last keep a NULL x, any_value
 * and string_agg skip it). Not as window functions, nor ORDER BY ALL (a
 * syntax error). */
TEST(sql_order_by_inside_aggregates)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_sql_session_new(NULL, &s, &err), &err);
#define T4 "(VALUES (1, 2.5, 'b'), (1, 1.5, 'a'), (2, NULL, 'c'), (2, 4.0, NULL)) t(g, x, s)"
    EXPECT_SQL_ROWS("SELECT g, sum(x ORDER BY s DESC)::DOUBLE, count(s ORDER BY x), "
                    "min(x ORDER BY g)::DOUBLE, median(x ORDER BY s)::DOUBLE, "
                    "string_agg(s, ',' ORDER BY s) FROM " T4 " GROUP BY g ORDER BY g",
                    "1|4|2|1.5|2|a,b;2|4|1|4|4|c;");
    EXPECT_SQL_ROWS("SELECT g, any_value(x ORDER BY s)::DOUBLE, string_agg(s, ',' ORDER BY x), "
                    "string_agg(s, ',' ORDER BY s DESC), first(x ORDER BY s)::DOUBLE, "
                    "last(s ORDER BY x DESC), arg_max(s, x) FROM " T4 " GROUP BY g ORDER BY g",
                    "1|1.5|a,b|b,a|1.5|a|b;2|4|c|c|N|c|N;");
    /* FILTER leaves rows out of the order (not as NULL values to first) */
    EXPECT_SQL_ROWS("SELECT first(s ORDER BY x NULLS FIRST) FILTER (WHERE x IS NOT NULL), "
                    "first(s ORDER BY x NULLS FIRST) FROM " T4,
                    "a|c;");
    EXPECT_SQL_ERROR("SELECT arg_max(s, x) OVER (PARTITION BY g) FROM " T4, BASALT_UNSUPPORTED,
                     "arg_max is not supported as a window function");
    EXPECT_SQL_ERROR("SELECT first(s ORDER BY x) OVER () FROM " T4, BASALT_UNSUPPORTED,
                     "first is not supported as a window function");
    EXPECT_SQL_ERROR("SELECT first(x ORDER BY ALL) FROM " T4, BASALT_INVALID_ARG,
                     "syntax error at or near \"ALL\"");
    EXPECT_SQL_ERROR("SELECT first(DISTINCT s ORDER BY x) FROM " T4, BASALT_INVALID_ARG,
                     "ORDER BY expressions must appear in the argument list");
    EXPECT_SQL_ERROR("SELECT count_if(x) FROM " T4, BASALT_INVALID_ARG,
                     "count_if takes a BOOLEAN, not DECIMAL(2,1)");
    EXPECT_SQL_ERROR("SELECT arg_min(x) FROM " T4, BASALT_INVALID_ARG, "arg_min takes 2 arguments");
#undef T4
    basalt_sql_session_free(s);
}

/* VAR and STDDEV of a group of equal values are exactly 0 at any worker
 * count: Q - S*S/n in double-double left rounding noise there (2.6e-25 at
 * one worker, 9.8e-26 at two for 20000 copies of 1.5190...), which depended
 * on the order the sums were merged in. */
TEST(sql_variance_of_equal_values_is_zero)
{
    for (int workers = 1; workers <= 4; workers *= 2) {
        struct basalt_pool *pool = NULL;
        if (workers > 1)
            basalt_pool_new(workers - 1, &pool, NULL);
        struct basalt_sql_options o;
        basalt_sql_options_init(&o);
        o.pool = pool;
        o.num_workers = workers;
        struct basalt_sql_session *s;
        struct basalt_error err;
        basalt_error_init(&err);
        CHECK_OK(basalt_sql_session_new(&o, &s, &err), &err);
        EXPECT_SQL_ROWS("WITH r AS (SELECT pow(123.25 / 100, 2) AS a, 1.1::DOUBLE AS b, 0.1 AS c "
                        "FROM (VALUES (1), (2), (3), (4), (5), (6), (7), (8)) v(x), "
                        "(VALUES (1), (2), (3), (4), (5), (6), (7), (8)) w(y), "
                        "(VALUES (1), (2), (3), (4), (5), (6), (7), (8)) z(q)) "
                        "SELECT variance(a), var_pop(b), stddev(c::DOUBLE), stddev_pop(a) FROM r",
                        "0|0|0|0;");
        /* Unequal values are unaffected; equal infinities stay out of range. */
        EXPECT_SQL_ROWS("SELECT var_pop(x::DOUBLE) FROM (VALUES (1), (2), (3), (4)) t(x)", "1.25;");
        EXPECT_SQL_ERROR("SELECT variance(x) FROM (VALUES ('inf'::DOUBLE), ('inf'::DOUBLE)) t(x)",
                         BASALT_LIMIT, "out of range");
        basalt_sql_session_free(s);
        basalt_pool_free(pool);
    }
}

/* array_agg / list: NULL values are NULL elements; without ORDER BY the
 * elements come in the values' order (NULLs last), and rows tied on the
 * ORDER BY keys in their values' order too, so the lists are the same for
 * 1, 2 and 4 workers and any split of the input. The answers are DuckDB's
 * (with `ORDER BY v` spelled out where it has arrival order). */
TEST(sql_array_agg)
{
    char first[2048] = "";
    for (int workers = 1; workers <= 4; workers *= 2) {
        struct basalt_pool *pool = NULL;
        if (workers > 1)
            basalt_pool_new(workers - 1, &pool, NULL);
        struct basalt_sql_options o;
        basalt_sql_options_init(&o);
        o.pool = pool;
        o.num_workers = workers;
        struct basalt_sql_session *s;
        struct basalt_error err;
        basalt_error_init(&err);
        CHECK_OK(basalt_sql_session_new(&o, &s, &err), &err);
#define T6 "(VALUES (1, 3, 1), (1, NULL, 1), (1, 1, 2), (1, 3, 0), (2, NULL, 5), (2, -1, 5)) t(g, v, k)"
        EXPECT_SQL_ROWS("SELECT g, array_agg(v)::VARCHAR, list(v ORDER BY k DESC)::VARCHAR, "
                        "array_agg(DISTINCT v)::VARCHAR, array_agg(v ORDER BY v DESC NULLS FIRST)"
                        "::VARCHAR FROM " T6 " GROUP BY g ORDER BY g",
                        "1|[1, 3, 3, NULL]|[1, 3, NULL, 3]|[1, 3, NULL]|[NULL, 3, 3, 1];"
                        "2|[-1, NULL]|[-1, NULL]|[-1, NULL]|[NULL, -1];");
        /* FILTER leaves rows out (a group left with none is NULL), as does
         * an input of no rows; the lists' type and the list functions */
        EXPECT_SQL_ROWS("SELECT g, array_agg(v) FILTER (WHERE k > 1)::VARCHAR, "
                        "len(array_agg(v)), array_agg(v ORDER BY k)[1], typeof(list(v)) FROM " T6
                        " GROUP BY g ORDER BY g",
                        "1|[1]|4|3|INTEGER[];2|[-1, NULL]|2|-1|INTEGER[];");
        EXPECT_SQL_ROWS("SELECT array_agg(v)::VARCHAR, list(v)::VARCHAR IS NULL FROM " T6
                        " WHERE g > 2",
                        "N|t;");
        EXPECT_SQL_ROWS("SELECT array_agg(s)::VARCHAR, array_agg(b)::VARCHAR, "
                        "array_agg(s::BLOB ORDER BY s DESC)::VARCHAR, array_agg(iv ORDER BY s)"
                        "::VARCHAR FROM (VALUES ('b', true, INTERVAL 1 DAY), ('a, c', NULL, NULL), "
                        "(NULL, false, INTERVAL 2 HOUR)) t(s, b, iv)",
                        "['a, c', b, NULL]|[false, true, NULL]|[b, 'a, c', NULL]|"
                        "[NULL, 1 day, '02:00:00'];");
        /* ties on k go in the values' order (DuckDB: ORDER BY k, v) */
        char got[2048];
        CHECK_OK(sql_test_rows(s,
                               "SELECT g, array_agg(v ORDER BY k)::VARCHAR FROM (SELECT range % 2 "
                               "AS g, (range * 7) % 10 - 5 AS v, range % 3 AS k FROM range(30)) "
                               "GROUP BY g ORDER BY g",
                               got, sizeof got, &err),
                 &err);
        CHECK_MSG(strcmp(got, "0|[-5, -3, -1, 1, 3, -5, -3, -1, 1, 3, -5, -3, -1, 1, 3];"
                              "1|[-4, -2, 0, 2, 4, -4, -2, 0, 2, 4, -4, -2, 0, 2, 4];") == 0,
                  "got %s", got);
        if (workers == 1)
            snprintf(first, sizeof first, "%s", got);
        else
            CHECK_MSG(strcmp(got, first) == 0, "%d workers: %s\n  1 worker: %s", workers, got,
                      first);
        EXPECT_SQL_ERROR("SELECT array_agg(v, k) FROM " T6, BASALT_INVALID_ARG,
                         "array_agg takes 1 argument");
        EXPECT_SQL_ERROR("SELECT array_agg(DISTINCT v ORDER BY k) FROM " T6, BASALT_INVALID_ARG,
                         "ORDER BY expressions must appear in the argument list");
        EXPECT_SQL_ERROR("SELECT array_agg([v]) FROM " T6, BASALT_UNSUPPORTED,
                         "cannot be an aggregate's argument");
        EXPECT_SQL_ERROR("SELECT array_agg(v) OVER () FROM " T6, BASALT_UNSUPPORTED,
                         "array_agg is not supported as a window function");
#undef T6
        basalt_sql_session_free(s);
        basalt_pool_free(pool);
    }
}
