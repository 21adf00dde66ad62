/* A window under a row-number filter (plan/run_window_limit.c) keeps the
 * first K rows of every partition as they come. Where its keys are
 * fixed-width numbers and K <= 16 it keeps them in a table per worker
 * (plan/window_live.c) instead of sorting what it holds; these tests hold
 * that path to the plain window's answer. Each query runs as written and
 * with its filter as `rn + 0 <= K`, which the limit rule does not read (the
 * whole input sorted and numbered: the plain window, itself held to
 * DuckDB's answers by differential.query_window); the rows, their row
 * numbers and ranks must be the same bytes at 1, 2 and 4 workers. The
 * table is built so that the table's comparisons meet every case of the
 * sort's order: NULL, NaN, -0.0 and 0.0 in partition and order keys, both
 * directions, NULLS FIRST and LAST, ties decided by input order, and an
 * order key that rises along the input, so that under DESC every row
 * enters its partition's first K and pushes one out (the held rows are
 * compacted many times). EXPLAIN ANALYZE shows which path pruned. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/sql.h"
#include "test_fixture.h"
#include "sql_test_rows.h"
#include "test.h"

#define ROWS 300000

static char fixture_path[256];

static void remove_fixture(void) { unlink(fixture_path); }

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Row i: id = i; p1 = mix(i) % 700 (NULL every 97th); p2 one of 0.0,
 * -0.0, 1.5, NaN, NULL; o1 a double with many ties, NULL, NaN, -0.0 and
 * 0.0; o2 = i / 3 (rising, ties of three); o3 = mix(7i) % 5. */
static const char *fixture(void)
{
    if (fixture_path[0])
        return fixture_path;
    snprintf(fixture_path, sizeof fixture_path, "/tmp/basalt_wlimit_%d.parquet", (int)getpid());
    atexit(remove_fixture);
    struct basalt_arrow_builder *root, *id, *p1, *p2, *o1, *o2, *o3;
    basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    basalt_arrow_builder_add_child(root, "l", "id", 0, &id, NULL);
    basalt_arrow_builder_add_child(root, "i", "p1", ARROW_FLAG_NULLABLE, &p1, NULL);
    basalt_arrow_builder_add_child(root, "g", "p2", ARROW_FLAG_NULLABLE, &p2, NULL);
    basalt_arrow_builder_add_child(root, "g", "o1", ARROW_FLAG_NULLABLE, &o1, NULL);
    basalt_arrow_builder_add_child(root, "l", "o2", 0, &o2, NULL);
    basalt_arrow_builder_add_child(root, "i", "o3", 0, &o3, NULL);
    static const double p2_values[4] = {0.0, -0.0, 1.5, 0.0 / 0.0};
    for (int64_t i = 0; i < ROWS; i++) {
        uint64_t u = (uint64_t)i;
        basalt_arrow_builder_append_int(id, i, NULL);
        if (i % 97 == 5)
            basalt_arrow_builder_append_null(p1, NULL);
        else
            basalt_arrow_builder_append_int(p1, (int64_t)(mix(u) % 700), NULL);
        uint64_t k = mix(u * 3) % 5;
        if (k == 4)
            basalt_arrow_builder_append_null(p2, NULL);
        else
            basalt_arrow_builder_append_double(p2, p2_values[k], NULL);
        if (i % 29 == 1)
            basalt_arrow_builder_append_null(o1, NULL);
        else if (i % 31 == 2)
            basalt_arrow_builder_append_double(o1, 0.0 / 0.0, NULL);
        else if (i % 37 == 3)
            basalt_arrow_builder_append_double(o1, -0.0, NULL);
        else if (i % 41 == 4)
            basalt_arrow_builder_append_double(o1, 0.0, NULL);
        else
            basalt_arrow_builder_append_double(o1, (double)(mix(u * 5) % 200) / 4 - 10, NULL);
        basalt_arrow_builder_append_int(o2, i / 3, NULL);
        basalt_arrow_builder_append_int(o3, (int64_t)(mix(u * 7) % 5), NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    /* ten row groups: every worker gets some */
    if (test_write_fixture(root, fixture_path, 32768) != BASALT_OK)
        fixture_path[0] = '\0';
    return fixture_path;
}

static struct basalt_sql_session *session(struct basalt_pool *pool)
{
    struct basalt_sql_options o;
    basalt_sql_options_init(&o);
    o.pool = pool;
    struct basalt_sql_session *s = NULL;
    basalt_sql_session_new(&o, &s, NULL);
    return s;
}

#define OUT_CAP (8u << 20)

/* The rows of sql rendered (sql_test_render), or the error. */
static void rows_of(struct basalt_sql_session *s, const char *sql, char *out)
{
    struct basalt_error err;
    basalt_error_init(&err);
    if (sql_test_rows(s, sql, out, OUT_CAP, &err) != BASALT_OK)
        snprintf(out, OUT_CAP, "error: %s", err.message);
}

/* The WINDOW line of EXPLAIN ANALYZE sql. */
static void window_line(struct basalt_sql_session *s, const char *sql, char *line, size_t cap)
{
    char q[2048];
    snprintf(q, sizeof q, "EXPLAIN ANALYZE %s", sql);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    snprintf(line, cap, "no WINDOW line");
    if (basalt_sql_session_run(s, q, strlen(q), &b, &err) != BASALT_OK)
        snprintf(line, cap, "error: %s", err.message);
    for (int64_t k = 0; k < b.n; k++) {
        const struct ArrowArray *c = b.arrays[k].children[0];
        const int32_t *o = c->buffers[1];
        for (int64_t r = 0; r < c->length; r++) {
            int64_t i = c->offset + r;
            const char *text = (const char *)c->buffers[2] + o[i];
            int len = (int)(o[i + 1] - o[i]);
            const char *w = memmem(text, (size_t)len, "WINDOW", 6);
            if (w != NULL)
                snprintf(line, cap, "%.*s", (int)(len - (w - text)), w);
        }
    }
    basalt_arrow_batches_reset(&b);
}

static long long field(const char *line, const char *name)
{
    const char *p = strstr(line, name);
    return p ? atoll(p + strlen(name)) : -1;
}

struct wcase {
    const char *over;  /* the window: PARTITION BY ... ORDER BY ... */
    const char *ranks; /* ", rank() OVER (...) AS r" or "" */
    int k;
    bool table;    /* the table path is expected (else the sort's) */
    bool compacts; /* the held rows are compacted at least once */
};

static const struct wcase cases[] = {
    {"PARTITION BY p1 ORDER BY o2 DESC", "", 2, true, true},
    {"PARTITION BY p2 ORDER BY o1 NULLS FIRST", "", 3, true, false},
    {"PARTITION BY p2 ORDER BY o1 DESC NULLS LAST, o3", "", 3, true, false},
    {"PARTITION BY p1, p2 ORDER BY o1 DESC NULLS LAST, o3", "", 1, true, false},
    {"PARTITION BY o3 ORDER BY o1 NULLS LAST, o2 DESC", "", 5, true, false},
    {"ORDER BY o3, o1 DESC NULLS FIRST", "", 16, true, false},
    {"ORDER BY o3, o1 DESC NULLS FIRST", "", 17, false, false},
    {"PARTITION BY p1 ORDER BY o3 DESC",
     ", rank() OVER (PARTITION BY p1 ORDER BY o3 DESC) AS r,"
     " dense_rank() OVER (PARTITION BY p1 ORDER BY o3 DESC) AS dr",
     4, true, false},
};

TEST(sql_window_limit_table_gives_the_plain_windows_rows)
{
    const char *f = fixture();
    CHECK(f[0]);
    char *plain = malloc(OUT_CAP), *got = malloc(OUT_CAP);
    CHECK(plain != NULL && got != NULL);
    if (!f[0] || plain == NULL || got == NULL) {
        free(plain);
        free(got);
        return;
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct wcase *w = &cases[c];
        char limited[1024], unlimited[1024];
        const char *cols = w->ranks[0] ? "id, p1, p2, o1, o2, o3, rn, r, dr"
                                       : "id, p1, p2, o1, o2, o3, rn";
        snprintf(limited, sizeof limited,
                 "SELECT %s FROM (SELECT *, row_number() OVER (%s) AS rn%s FROM '%s') "
                 "WHERE rn <= %d ORDER BY id",
                 cols, w->over, w->ranks, f, w->k);
        snprintf(unlimited, sizeof unlimited,
                 "SELECT %s FROM (SELECT *, row_number() OVER (%s) AS rn%s FROM '%s') "
                 "WHERE rn + 0 <= %d ORDER BY id",
                 cols, w->over, w->ranks, f, w->k);
        struct basalt_sql_session *s = session(NULL);
        rows_of(s, unlimited, plain);
        CHECK_MSG(strncmp(plain, "error", 5) != 0 && strchr(plain, ';') != NULL, "%s: %.200s",
                  unlimited, plain);
        basalt_sql_session_free(s);
        for (int workers = 1; workers <= 4; workers *= 2) {
            struct basalt_pool *pool = NULL;
            if (workers > 1)
                basalt_pool_new(workers - 1, &pool, NULL);
            s = session(pool);
            rows_of(s, limited, got);
            size_t at = 0;
            while (plain[at] != '\0' && plain[at] == got[at])
                at++;
            CHECK_MSG(plain[at] == got[at], "%s (%d workers): differs at byte %zu\n  got  %.120s\n"
                      "  want %.120s", limited, workers, at, got + at, plain + at);
            char line[1024];
            window_line(s, limited, line, sizeof line);
            const char *by = w->table ? "pruned_by=table" : "pruned_by=sort";
            CHECK_MSG(strstr(line, by) != NULL, "%s (%d workers): want %s\n  %s", limited,
                      workers, by, line);
            /* The window passes on its survivors alone: nothing for the
             * filter above to drop. */
            long long n = 0;
            for (const char *p = got; *p; p++)
                n += *p == ';';
            CHECK_MSG(field(line, " rows=") == n, "%s (%d workers): %lld rows in the answer\n  %s",
                      limited, workers, n, line);
            if (w->table)
                CHECK_MSG(field(line, "rows_cut=") > 0, "%s: nothing cut\n  %s", limited, line);
            if (w->compacts)
                CHECK_MSG(field(line, "prunings=") > 0, "%s (%d workers): no compaction\n  %s",
                          limited, workers, line);
            basalt_sql_session_free(s);
            basalt_pool_free(pool);
        }
    }
    free(plain);
    free(got);
}
