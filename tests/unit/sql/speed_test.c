/* Parser timing, printed when BASALT_SQL_TIMING=1 (run it from a Release
 * build): the 22 TPC-H queries parsed and formatted, and two large
 * generated statements (a 1 MiB IN list, a 20 000-item select list). The
 * checks only make sure the work was done. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sql_internal.h"
#include "test.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Median of `reps` timings of parsing every text once. */
static double time_parse(char **texts, size_t *lens, int n, int reps, bool format)
{
    double *t = malloc(sizeof(double) * (size_t)reps);
    char *buf = malloc(1 << 20);
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (int i = 0; i < n; i++) {
            struct basalt_sql_script *s = NULL;
            if (basalt_sql_parse(texts[i], lens[i], &s, NULL) != BASALT_OK)
                abort();
            if (format)
                basalt_sql_statement_format(s, 0, buf, 1 << 20);
            basalt_sql_script_free(s);
        }
        t[r] = now_s() - t0;
    }
    for (int i = 1; i < reps; i++) /* insertion sort: reps is small */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    double m = t[reps / 2];
    free(t);
    free(buf);
    return m;
}

TEST(sql_parse_speed)
{
    const char *on = getenv("BASALT_SQL_TIMING");
    if (!on || strcmp(on, "1") != 0) {
        printf("SKIP sql_parse_speed: BASALT_SQL_TIMING=1 runs it\n");
        return;
    }
    char *texts[22];
    size_t lens[22], total = 0;
    for (int q = 1; q <= 22; q++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/sql/queries/tpch/q%02d.sql", BASALT_TEST_SOURCE_DIR, q);
        texts[q - 1] = (char *)bt_read_file(path, &lens[q - 1]);
        CHECK(texts[q - 1]);
        total += lens[q - 1];
    }
    time_parse(texts, lens, 22, 20, false); /* warm up */
    double parse = time_parse(texts, lens, 22, 201, false);
    double both = time_parse(texts, lens, 22, 201, true);
    printf("  TPC-H 22 queries (%zu bytes): parse %.1f us per query (%.0f MB/s), parse+format %.1f us\n",
           total, parse / 22 * 1e6, (double)total / parse / 1e6, both / 22 * 1e6);
    for (int q = 0; q < 22; q++)
        basalt_free(texts[q]);

    /* SELECT * FROM t WHERE x IN (0, 1, 2, ...) of about 1 MiB */
    size_t cap = (size_t)2 << 20, n = 0;
    char *big = malloc(cap);
    n += (size_t)snprintf(big + n, cap - n, "SELECT * FROM t WHERE x IN (0");
    for (int i = 1; n < ((size_t)1 << 20); i++)
        n += (size_t)snprintf(big + n, cap - n, ", %d", i);
    n += (size_t)snprintf(big + n, cap - n, ")");
    double in_list = time_parse(&big, &n, 1, 11, false);
    printf("  IN list of %zu bytes: %.2f ms (%.0f MB/s)\n", n, in_list * 1e3, (double)n / in_list / 1e6);
    /* SELECT a0 + 1 AS c0, ... 20 000 items */
    n = (size_t)snprintf(big, cap, "SELECT a0 + 1 AS c0");
    for (int i = 1; i < 20000; i++)
        n += (size_t)snprintf(big + n, cap - n, ", a%d * 2 - b%d AS c%d", i, i, i);
    n += (size_t)snprintf(big + n, cap - n, " FROM t");
    double items = time_parse(&big, &n, 1, 11, false);
    printf("  20000-item select list, %zu bytes: %.2f ms (%.0f MB/s)\n", n, items * 1e3, (double)n / items / 1e6);
    free(big);
}
