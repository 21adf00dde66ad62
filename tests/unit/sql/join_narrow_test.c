/* A join outputs only the columns read above it (the optimiser's
 * join_keep, plan/optimize.c): EXPLAIN shows them on the HASH_JOIN line,
 * `[]` when nothing above reads a column (a count), and nothing when every
 * column is read. The answers are counted here by loops over the same
 * rows, for every join type, with residuals, NULL-extended columns read and
 * not, at 1 and 3 workers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/core.h"
#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

/* t: id 0..99, k = id % 7, s = 'v' || id, x = id * 1.5 (NULL where id % 5
 * = 0). */
#define ROWS 100
static bool x_null(long long id) { return id % 5 == 0; }

static char path[256];

static void remove_table(void) { unlink(path); }

static struct basalt_sql_session *session(struct basalt_pool *pool)
{
    struct basalt_sql_options o;
    basalt_sql_options_init(&o);
    o.pool = pool;
    struct basalt_sql_session *s = NULL;
    basalt_sql_session_new(&o, &s, NULL);
    return s;
}

static bool write_table(struct basalt_sql_session *s)
{
    if (path[0])
        return true;
    snprintf(path, sizeof path, "/tmp/basalt_join_narrow_%d.parquet", (int)getpid());
    atexit(remove_table);
    char q[512];
    snprintf(q, sizeof q,
             "COPY (SELECT range::BIGINT AS id, range %% 7 AS k, 'v' || range AS s, CASE WHEN "
             "range %% 5 = 0 THEN NULL ELSE range * 1.5 END AS x FROM range(%d)) TO '%s' "
             "(FORMAT parquet)",
             ROWS, path);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_sql_session_run(s, q, strlen(q), &b, NULL);
    basalt_arrow_batches_reset(&b);
    return st == BASALT_OK;
}

/* `sql` with every T replaced by the table's path, quoted. */
static void with_table(const char *sql, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *c = sql; *c && n + 1 < cap; c++) {
        if (*c == 'T' && (c == sql || c[-1] == ' ') && (c[1] == ' ' || c[1] == '\0'))
            n += (size_t)snprintf(out + n, cap - n, "'%s'", path);
        else
            out[n++] = *c;
    }
    out[n < cap ? n : cap - 1] = '\0';
}

/* The HASH_JOIN lines of EXPLAIN sql, each ending in ';'. */
static void join_lines(struct basalt_sql_session *s, const char *sql, char *out, size_t cap)
{
    char q[2048];
    snprintf(q, sizeof q, "EXPLAIN %s", sql);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    size_t n = 0;
    out[0] = '\0';
    if (basalt_sql_session_run(s, q, strlen(q), &b, &err) != BASALT_OK)
        snprintf(out, cap, "error: %s", err.message);
    for (int64_t k = 0; k < b.n; k++) {
        const struct ArrowArray *c = b.arrays[k].children[0];
        const int32_t *o = c->buffers[1];
        for (int64_t r = 0; r < c->length; r++) {
            int64_t i = c->offset + r;
            const char *text = (const char *)c->buffers[2] + o[i];
            int len = (int)(o[i + 1] - o[i]);
            const char *j = memmem(text, (size_t)len, "HASH_JOIN", 9);
            if (j != NULL && n < cap)
                n += (size_t)snprintf(out + n, cap - n, "%.*s;", (int)(len - (j - text)), j);
        }
    }
    basalt_arrow_batches_reset(&b);
}

#define EXPECT_JOINS(SQL, LINES)                                                             \
    do {                                                                                     \
        char q_[1024], got_[1024];                                                           \
        with_table((SQL), q_, sizeof q_);                                                    \
        join_lines(s, q_, got_, sizeof got_);                                                \
        CHECK_MSG(strcmp(got_, (LINES)) == 0, "%s\n  got  %s\n  want %s", (SQL), got_,       \
                  (LINES));                                                                  \
    } while (0)

#define EXPECT_ROWS(SQL, WANT)                                                               \
    do {                                                                                     \
        char q2_[1024];                                                                      \
        with_table((SQL), q2_, sizeof q2_);                                                  \
        EXPECT_SQL_ROWS(q2_, (WANT));                                                        \
    } while (0)

/* The answers by loops over the rows. */
struct counts {
    long long inner_lt;          /* a.k = b.k AND a.id < b.id */
    long long left_rows, left_x; /* LEFT of the same: rows, non-NULL b.x */
    long long left_sum_id;       /* sum(b.id), NULL-extended rows adding nothing */
    long long full_rows, full_a, full_b; /* a.k = b.id: rows, a.id and b.id not NULL */
    long long cross_lt;          /* a.id < b.k */
};

static void count(struct counts *c)
{
    memset(c, 0, sizeof *c);
    for (long long a = 0; a < ROWS; a++) {
        long long m = 0, full_m = 0;
        for (long long b = 0; b < ROWS; b++) {
            if (a % 7 == b % 7 && a < b) {
                c->inner_lt++;
                m++;
                c->left_x += !x_null(b);
                c->left_sum_id += b;
            }
            if (a % 7 == b)
                full_m++;
            c->cross_lt += a < b % 7;
        }
        c->left_rows += m ? m : 1;
        c->full_rows += full_m ? full_m : 1;
        c->full_a++;
        c->full_b += full_m;
    }
    for (long long b = 0; b < ROWS; b++) {
        if (b >= 7) { /* no a.k is as large */
            c->full_rows++;
            c->full_b++;
        }
    }
}

static void check_queries(struct basalt_sql_session *s)
{
    struct counts c;
    count(&c);
    char want[256];
    /* a count above an inner join with a residual: nothing gathered */
    EXPECT_JOINS("SELECT count(*) FROM T a JOIN T b ON a.k = b.k AND a.id < b.id",
                 "HASH_JOIN INNER keys=1 residual [];");
    snprintf(want, sizeof want, "%lld;", c.inner_lt);
    EXPECT_ROWS("SELECT count(*) FROM T a JOIN T b ON a.k = b.k AND a.id < b.id", want);
    /* LEFT: the NULL-extended columns read above come out, the keys and the
     * residual's a.id do not */
    EXPECT_JOINS("SELECT count(*), count(b.x), sum(b.id)::BIGINT FROM T a LEFT JOIN T b ON a.k = b.k "
                 "AND a.id < b.id",
                 "HASH_JOIN LEFT keys=1 residual [id, x];");
    snprintf(want, sizeof want, "%lld|%lld|%lld;", c.left_rows, c.left_x, c.left_sum_id);
    EXPECT_ROWS("SELECT count(*), count(b.x), sum(b.id)::BIGINT FROM T a LEFT JOIN T b ON a.k = b.k AND "
                "a.id < b.id",
                want);
    /* FULL: a.k, a key, stays inside; b.id, the other key, is read above */
    EXPECT_JOINS("SELECT count(*), count(a.id), count(b.id) FROM T a FULL JOIN T b ON a.k = b.id",
                 "HASH_JOIN FULL keys=1 [id, id];");
    snprintf(want, sizeof want, "%lld|%lld|%lld;", c.full_rows, c.full_a, c.full_b);
    EXPECT_ROWS("SELECT count(*), count(a.id), count(b.id) FROM T a FULL JOIN T b ON a.k = b.id",
                want);
    /* SEMI under a count: its key stays inside */
    EXPECT_JOINS("SELECT count(*) FROM T a WHERE a.id IN (SELECT b.k * 3 FROM T b)",
                 "HASH_JOIN SEMI keys=1 [];");
    EXPECT_ROWS("SELECT count(*) FROM T a WHERE a.id IN (SELECT b.k * 3 FROM T b)", "7;");
    /* ANTI: only the left side's id, not the computed key beside it */
    EXPECT_ROWS("SELECT sum(a.id)::BIGINT FROM T a WHERE NOT EXISTS (SELECT 1 FROM T b WHERE b.id = "
                "a.id + 95)",
                "4940;");
    /* CROSS with a residual: its columns read inside */
    EXPECT_JOINS("SELECT count(*) FROM T a, T b WHERE a.id < b.k",
                 "HASH_JOIN CROSS keys=0 residual [];");
    snprintf(want, sizeof want, "%lld;", c.cross_lt);
    EXPECT_ROWS("SELECT count(*) FROM T a, T b WHERE a.id < b.k", want);
    /* two joins, each passing on only what the one above reads */
    EXPECT_JOINS("SELECT count(c.s) FROM T a JOIN T b ON a.id = b.id JOIN T c ON b.k = c.id",
                 "HASH_JOIN INNER keys=1 [s];HASH_JOIN INNER keys=1 [k];");
    EXPECT_ROWS("SELECT count(c.s) FROM T a JOIN T b ON a.id = b.id JOIN T c ON b.k = c.id",
                "100;");
    EXPECT_ROWS("SELECT count(*) FROM T a JOIN T b USING (k, id)", "100;");
    /* every column read: the join's row whole, as before */
    EXPECT_JOINS("SELECT * FROM T a JOIN T b ON a.id = b.id", "HASH_JOIN INNER keys=1;");
    EXPECT_ROWS("SELECT a.s, b.x::DOUBLE, a.k FROM T a JOIN T b ON a.id = b.id WHERE a.id = 7",
                "v7|10.5|0;");
}

TEST(sql_join_output_narrowed)
{
    for (int workers = 1; workers <= 3; workers += 2) {
        struct basalt_pool *pool = NULL;
        if (workers > 1)
            basalt_pool_new(workers - 1, &pool, NULL);
        struct basalt_sql_session *s = session(pool);
        CHECK(s != NULL && write_table(s));
        check_queries(s);
        basalt_sql_session_free(s);
        basalt_pool_free(pool);
    }
}
