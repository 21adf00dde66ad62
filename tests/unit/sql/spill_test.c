/* Spilling under a memory limit (SET memory_limit): ORDER BY and GROUP BY
 * over a 1.5M-row Parquet file give exactly the rows they give without a
 * limit, in the same order, with EXPLAIN ANALYZE proving that runs and
 * partitions were written; the sorted rows are checked against the order's
 * definition (keys, then input order) and the groups' counts and sums
 * against the generator's formula; what cannot fit fails with LIMIT naming
 * the operator; spill files live in temp_directory and nothing is left
 * there. The comparison with DuckDB on the same shapes is
 * tests/cli/sql_spill.sh. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/sql.h"
#include "test_fixture.h"
#include "test.h"

/* The spill module's test hooks (src/query/spill/spill.h). */
void basalt_qspill_test_set_budget(int64_t bytes);
void basalt_qspill_test_set_fan_in(int64_t runs);
int64_t basalt_qspill_files_made(void);

#define ROWS 1500000
#define GROUPS 200003

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

/* Row i: id = i, k = mix(i) % 1000 (many ties), s = "s<mix(3i) % 50000>"
 * (NULL every 13th), d = mix(5i) % 100000 / 8 (NULL every 17th),
 * g = mix(7i) % GROUPS. */
static int64_t k_of(int64_t i)
{
    return (int64_t)(mix((uint64_t)i) % 1000);
}
static int64_t g_of(int64_t i)
{
    return (int64_t)(mix((uint64_t)i * 7) % GROUPS);
}
/* s of row i (not NULL) into buf (at least 32 bytes). */
static void s_of(int64_t i, char *buf)
{
    snprintf(buf, 32, "s%llu", (unsigned long long)(mix((uint64_t)i * 3) % 50000));
}

static char fixture_path[256];

static char spill_dir_path[256];
static char csv_path[256], json_path[256];

static void remove_fixture(void)
{
    unlink(fixture_path);
    if (csv_path[0])
        unlink(csv_path);
    if (json_path[0])
        unlink(json_path);
    if (spill_dir_path[0])
        rmdir(spill_dir_path);
}

static const char *fixture(void)
{
    char *path = fixture_path;
    if (path[0])
        return path;
    snprintf(path, sizeof fixture_path, "/tmp/basalt_spill_%d.parquet", (int)getpid());
    atexit(remove_fixture);
    struct basalt_arrow_builder *root, *id, *k, *s, *d, *g;
    basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    basalt_arrow_builder_add_child(root, "l", "id", 0, &id, NULL);
    basalt_arrow_builder_add_child(root, "l", "k", 0, &k, NULL);
    basalt_arrow_builder_add_child(root, "u", "s", ARROW_FLAG_NULLABLE, &s, NULL);
    basalt_arrow_builder_add_child(root, "g", "d", ARROW_FLAG_NULLABLE, &d, NULL);
    basalt_arrow_builder_add_child(root, "l", "g", 0, &g, NULL);
    for (int64_t i = 0; i < ROWS; i++) {
        char buf[32];
        basalt_arrow_builder_append_int(id, i, NULL);
        basalt_arrow_builder_append_int(k, k_of(i), NULL);
        if (i % 13 == 5) {
            basalt_arrow_builder_append_null(s, NULL);
        } else {
            s_of(i, buf);
            basalt_arrow_builder_append_string(s, buf, NULL);
        }
        if (i % 17 == 3)
            basalt_arrow_builder_append_null(d, NULL);
        else
            basalt_arrow_builder_append_double(d, (double)(mix((uint64_t)i * 5) % 100000) / 8,
                                               NULL);
        basalt_arrow_builder_append_int(g, g_of(i), NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    if (test_write_fixture(root, path, 65536) != BASALT_OK)
        path[0] = '\0';
    return path;
}

/* ------------------------------------------------------------------ results */

/* Every cell of the result, row by row, in a canonical byte form (validity,
 * then the value's bytes; strings with their length), so that two results
 * compare whatever their batches. */
struct flat {
    uint8_t *p;
    size_t n, cap;
    int64_t rows;
};

static void put(struct flat *f, const void *v, size_t n)
{
    if (f->n + n > f->cap) {
        f->cap = (f->n + n) * 2 + 4096;
        f->p = realloc(f->p, f->cap);
    }
    memcpy(f->p + f->n, v, n);
    f->n += n;
}

static bool bit(const void *b, int64_t i)
{
    return (((const uint8_t *)b)[i >> 3] >> (i & 7)) & 1;
}

static void flatten(const struct basalt_arrow_batches *b, struct flat *f)
{
    memset(f, 0, sizeof *f);
    for (int64_t k = 0; k < b->n; k++) {
        const struct ArrowArray *a = &b->arrays[k];
        for (int64_t r = 0; r < a->length; r++, f->rows++) {
            for (int64_t c = 0; c < a->n_children; c++) {
                const struct ArrowArray *col = a->children[c];
                const char *fmt = b->schema.children[c]->format;
                int64_t i = col->offset + a->offset + r;
                uint8_t valid = !(col->null_count != 0 && col->buffers[0] && !bit(col->buffers[0], i));
                put(f, &valid, 1);
                if (!valid)
                    continue;
                struct basalt_arrow_type t;
                basalt_arrow_type_parse(fmt, &t, NULL);
                if (strcmp(fmt, "u") == 0) {
                    const int32_t *o = col->buffers[1];
                    int32_t len = o[i + 1] - o[i];
                    put(f, &len, 4);
                    put(f, (const char *)col->buffers[2] + o[i], (size_t)len);
                } else if (strcmp(fmt, "b") == 0) {
                    uint8_t v = bit(col->buffers[1], i);
                    put(f, &v, 1);
                } else {
                    size_t w = (size_t)t.bit_width / 8;
                    put(f, (const uint8_t *)col->buffers[1] + w * (size_t)i, w);
                }
            }
        }
    }
}

static basalt_status run(struct basalt_sql_session *s, const char *sql,
                         struct basalt_arrow_batches *out, struct basalt_error *err)
{
    basalt_arrow_batches_init(out);
    return basalt_sql_session_run(s, sql, strlen(sql), out, err);
}

/* EXPLAIN ANALYZE's text. */
static void explain(struct basalt_sql_session *s, const char *sql, char *buf, size_t cap)
{
    char q[4096];
    snprintf(q, sizeof q, "EXPLAIN ANALYZE %s", sql);
    struct basalt_arrow_batches b;
    struct basalt_error err;
    buf[0] = '\0';
    if (run(s, q, &b, &err) != BASALT_OK) {
        snprintf(buf, cap, "error: %s", err.message);
        return;
    }
    size_t n = 0;
    for (int64_t k = 0; k < b.n; k++) {
        const struct ArrowArray *c = b.arrays[k].children[0];
        const int32_t *o = c->buffers[1];
        for (int64_t r = 0; r < c->length; r++) {
            int64_t i = c->offset + r;
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%.*s\n", (int)(o[i + 1] - o[i]),
                                  (const char *)c->buffers[2] + o[i]);
        }
    }
    basalt_arrow_batches_reset(&b);
}

/* The number after `name` in text; "OP:name" looks on the first line that
 * has OP only. */
static long long counter(const char *text, const char *name)
{
    const char *colon = strchr(name, ':');
    if (colon != NULL) {
        char op[64];
        snprintf(op, sizeof op, "%.*s", (int)(colon - name), name);
        const char *line = strstr(text, op);
        if (line == NULL)
            return 0;
        const char *end = strchr(line, '\n');
        const char *p = strstr(line, colon + 1);
        return p != NULL && (end == NULL || p < end) ? atoll(p + strlen(colon + 1)) : 0;
    }
    const char *p = strstr(text, name);
    return p ? atoll(p + strlen(name)) : 0;
}

static struct basalt_sql_session *session(struct basalt_pool *pool, int64_t limit, const char *dir)
{
    struct basalt_sql_options o;
    basalt_sql_options_init(&o);
    o.pool = pool;
    o.memory_limit = limit;
    o.spill_dir = dir;
    struct basalt_sql_session *s = NULL;
    basalt_sql_session_new(&o, &s, NULL);
    return s;
}

/* A fresh directory for spill files. */
static const char *spill_dir(void)
{
    char *dir = spill_dir_path;
    snprintf(dir, sizeof spill_dir_path, "/tmp/basalt_spill_dir_%d", (int)getpid());
    mkdir(dir, 0700);
    return dir;
}

static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Runs sql without a limit and under `limit` (1 and 2 workers) and checks
 * that the rows are the same, in order, and that the operator spilled
 * (`spill_counter` > 1 in EXPLAIN ANALYZE). `check` looks at the
 * unlimited result first, which is then freed: the limit counts all the
 * memory of the process. */
static void same_with_limit(const char *sql, int64_t limit, const char *spill_counter,
                            void (*check)(const struct basalt_arrow_batches *))
{
    struct basalt_arrow_batches refs, *ref = &refs;
    const char *dir = spill_dir();
    struct basalt_error err;
    struct basalt_sql_session *plain = session(NULL, 0, NULL);
    CHECK_OK(run(plain, sql, ref, &err), &err);
    struct flat want;
    flatten(ref, &want);
    CHECK(want.rows > 0);
    check(ref);
    basalt_arrow_batches_reset(ref);
    basalt_sql_session_free(plain);
    /* BASALT_SPILL_MIN_WORKERS=2 (the sanitizer run) skips the one-worker
     * leg, which `make test` runs: every leg costs a whole query. */
    const char *min_workers = getenv("BASALT_SPILL_MIN_WORKERS");
    for (int workers = min_workers && atoi(min_workers) == 2 ? 2 : 1; workers <= 2; workers++) {
        struct basalt_pool *pool = NULL;
        if (workers > 1)
            basalt_pool_new(workers - 1, &pool, NULL);
        struct basalt_sql_session *s = session(pool, limit, dir);
        struct basalt_arrow_batches got;
        CHECK_OK(run(s, sql, &got, &err), &err);
        struct flat have;
        flatten(&got, &have);
        CHECK_EQ(have.rows, want.rows);
        CHECK(have.n == want.n && memcmp(have.p, want.p, want.n) == 0);
        basalt_arrow_batches_reset(&got);
        free(have.p);
        char text[8192];
        explain(s, sql, text, sizeof text);
        long long spilled = counter(text, spill_counter);
        CHECK_MSG(spilled > 1, "%d workers: no spill under %lld MiB:\n%s", workers,
                  (long long)(limit >> 20), text);
        CHECK(counter(text, "spilled_bytes=") > 0);
        /* The files were unlinked as they were made. */
        CHECK_EQ(dir_entries(dir), 0);
        basalt_sql_session_free(s);
        basalt_pool_free(pool);
    }
    free(want.p);
}

/* ------------------------------------------------------------------ tests */

static int64_t col_i64(const struct ArrowArray *a, int c, int64_t r)
{
    const struct ArrowArray *col = a->children[c];
    return ((const int64_t *)col->buffers[1])[col->offset + r];
}

static bool col_str(const struct ArrowArray *a, int c, int64_t r, const char **p, int32_t *n)
{
    const struct ArrowArray *col = a->children[c];
    int64_t i = col->offset + r;
    if (col->null_count != 0 && col->buffers[0] && !bit(col->buffers[0], i))
        return false;
    const int32_t *o = col->buffers[1];
    *p = (const char *)col->buffers[2] + o[i];
    *n = o[i + 1] - o[i];
    return true;
}

/* (k DESC, s NULLS FIRST, then input order): each row after the one
 * before it. */
static int cmp_sorted(int64_t k0, bool v0, const char *s0, int32_t n0, int64_t id0, int64_t k1,
                      bool v1, const char *s1, int32_t n1, int64_t id1)
{
    if (k0 != k1)
        return k0 > k1 ? -1 : 1;
    if (v0 != v1)
        return !v0 ? -1 : 1;
    if (v0) {
        int32_t m = n0 < n1 ? n0 : n1;
        int r = memcmp(s0, s1, (size_t)m);
        if (r)
            return r;
        if (n0 != n1)
            return n0 < n1 ? -1 : 1;
    }
    return id0 < id1 ? -1 : id0 > id1;
}

static void check_sorted(const struct basalt_arrow_batches *ref)
{
    /* The order's definition, independently: keys, then input order (id). */
    int64_t rows = 0, prev_k = 0, prev_id = -1, sum = 0;
    const char *prev_s = NULL;
    int32_t prev_n = 0;
    bool prev_v = false;
    int bad = 0, wrong_k = 0;
    for (int64_t b = 0; b < ref->n; b++) {
        const struct ArrowArray *a = &ref->arrays[b];
        for (int64_t r = 0; r < a->length; r++, rows++) {
            const char *s = NULL;
            int32_t n = 0;
            bool v = col_str(a, 1, r, &s, &n);
            int64_t k = col_i64(a, 0, r), id = col_i64(a, 2, r);
            wrong_k += k != k_of(id);
            if (rows > 0 && cmp_sorted(prev_k, prev_v, prev_s, prev_n, prev_id, k, v, s, n, id) >= 0)
                bad++;
            prev_k = k, prev_v = v, prev_s = s, prev_n = n, prev_id = id;
            sum += id;
        }
    }
    CHECK_EQ(wrong_k, 0);
    CHECK_EQ(bad, 0);
    CHECK_EQ(rows, ROWS);
    CHECK_EQ(sum, (int64_t)ROWS * (ROWS - 1) / 2);
}

TEST(spill_order_by_matches_in_memory_and_keeps_ties_in_input_order)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT k, s, id FROM '%s' ORDER BY k DESC, s NULLS FIRST", f);
    /* ~40 MB of result; the in-memory sort needs about three times that. */
    same_with_limit(sql, 72ll << 20, "spilled_runs=", check_sorted);
}

static void check_groups(const struct basalt_arrow_batches *ref)
{
    /* count(*) and sum(k) per group from the generator's formula. */
    int64_t *cnt = calloc(GROUPS, sizeof *cnt), *sum = calloc(GROUPS, sizeof *sum);
    for (int64_t i = 0; i < ROWS; i++) {
        cnt[g_of(i)]++;
        sum[g_of(i)] += k_of(i);
    }
    int64_t groups = 0, wrong = 0, want_groups = 0;
    for (int64_t g = 0; g < GROUPS; g++)
        want_groups += cnt[g] > 0;
    for (int64_t b = 0; b < ref->n; b++) {
        const struct ArrowArray *a = &ref->arrays[b];
        for (int64_t r = 0; r < a->length; r++, groups++) {
            int64_t g = col_i64(a, 0, r);
            const struct ArrowArray *sc = a->children[3]; /* DECIMAL(38,0): low word */
            int64_t s = ((const int64_t *)sc->buffers[1])[2 * (sc->offset + r)];
            if (g < 0 || g >= GROUPS || col_i64(a, 1, r) != cnt[g] || s != sum[g])
                wrong++;
        }
    }
    CHECK_EQ(wrong, 0);
    CHECK_EQ(groups, want_groups);
    free(cnt);
    free(sum);
}

TEST(spill_group_by_matches_in_memory_for_every_aggregate)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT g, count(*), count(s), sum(k), min(s), max(d), avg(d), any_value(s), "
             "count(DISTINCT k), sum(DISTINCT k), median(d), quantile_cont(d, 0.25), "
             "quantile_disc(k, 0.75), string_agg(s, '|'), stddev_samp(d), var_pop(k), "
             "bool_and(k > 10), bool_or(k > 990), corr(d, k), regr_slope(k, d), "
             "min(id), max(id) FROM '%s' GROUP BY g",
             f);
    same_with_limit(sql, 96ll << 20, "spilled_partitions=", check_groups);
}

static void check_nothing(const struct basalt_arrow_batches *ref)
{
    (void)ref;
}

/* Partitions bigger than 64 KiB on disk (each is about 200 KB here) are
 * split by the next hash bits: the rows stay the same, in the same order. */
TEST(spill_group_by_splits_big_partitions)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT g, count(*), sum(k), count(DISTINCT k), median(d), string_agg(s, '|'), "
             "min(s) FROM '%s' WHERE id %% 4 = 0 GROUP BY g",
             f);
    basalt_qspill_test_set_budget(64 << 10);
    same_with_limit(sql, 32ll << 20, "spill_splits=", check_nothing);
    basalt_qspill_test_set_budget(0);
}

/* Joins of every kind that spills, under an aggregate whose output order is
 * a function of the data (a spilled join's rows come partition by
 * partition): the same rows with and without the limit. */
TEST(spill_joins_match_in_memory)
{
    const char *f = fixture();
    CHECK(f[0]);
    static const char *const kinds[] = {"JOIN", "LEFT JOIN", "ANTI JOIN"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char sql[1024];
        bool probe_only = strncmp(kinds[i], "ANTI", 4) == 0;
        snprintf(sql, sizeof sql,
                 "SELECT a.g, count(*), sum(a.id), %s FROM (SELECT * FROM '%s' WHERE id %% 2 = 0) a %s "
                 "(SELECT * FROM '%s' WHERE id %% 3 <> 0) b ON a.g = b.g AND a.k < b.k "
                 "GROUP BY a.g",
                 probe_only ? "min(a.s)" : "sum(b.id), min(b.s), count(b.d)", f, kinds[i], f);
        same_with_limit(sql, 40ll << 20, "HASH_JOIN:spilled_partitions=", check_nothing);
    }
    /* RIGHT keeps every build row (its result is kept in memory: few
     * matches here), with the partitions' unmatched rows. */
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT b.g, count(*), sum(a.id), sum(b.id) FROM '%s' a RIGHT JOIN "
             "(SELECT g, k, id FROM '%s' WHERE id %% 3 <> 0) b ON a.g = b.g AND a.k < b.k AND "
             "a.id < 20000 GROUP BY b.g",
             f, f);
    same_with_limit(sql, 64ll << 20, "HASH_JOIN:spilled_partitions=", check_nothing);
}

/* Spilled join partitions bigger than 256 KiB on disk (each build partition
 * is about 600 KB here) are split by the next hash bits, both sides, into 8
 * parts (enough for half the budget each): the same rows as in memory, with
 * the splits counted. */
TEST(spill_join_splits_big_partitions)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT a.g, count(*), sum(a.id), sum(b.id), min(b.s) FROM "
             "(SELECT * FROM '%s' WHERE id %% 2 = 0) a LEFT JOIN "
             "(SELECT * FROM '%s' WHERE id %% 3 <> 0) b ON a.g = b.g AND a.k < b.k GROUP BY a.g",
             f, f);
    basalt_qspill_test_set_budget(256 << 10);
    same_with_limit(sql, 40ll << 20, "HASH_JOIN:spill_splits=", check_nothing);
    basalt_qspill_test_set_budget(0);
}

TEST(spill_limit_errors_name_the_operator)
{
    const char *f = fixture();
    CHECK(f[0]);
    const char *dir = spill_dir();
    struct basalt_sql_session *s = session(NULL, 24ll << 20, dir);
    struct basalt_error err;
    struct basalt_arrow_batches b;
    char sql[1024];
    /* One group holding every string: spilling cannot split it. */
    snprintf(sql, sizeof sql, "SELECT k - k AS one, string_agg(s, ',') FROM '%s' GROUP BY 1", f);
    CHECK_STATUS(run(s, sql, &b, &err), BASALT_LIMIT, &err);
    CHECK_MSG(strstr(err.message, "GROUP BY") != NULL, "%s", err.message);
    basalt_arrow_batches_reset(&b);
    /* A sorted result larger than the limit, collected: the runs spill, the
     * collected rows cannot (spill_sort_streams_past_the_limit reads the
     * same query a batch at a time). */
    snprintf(sql, sizeof sql, "SELECT * FROM '%s' ORDER BY s", f);
    CHECK_STATUS(run(s, sql, &b, &err), BASALT_LIMIT, &err);
    CHECK_MSG(strstr(err.message, "while it is collected") != NULL, "%s", err.message);
    basalt_arrow_batches_reset(&b);
    CHECK_EQ(dir_entries(dir), 0);
    /* A join spills by key: one key for every build row is one partition,
     * whose table does not fit. */
    snprintf(sql, sizeof sql,
             "SELECT count(*), max(a.s), max(b.s) FROM '%s' a JOIN '%s' b "
             "ON a.k - a.k = b.k - b.k",
             f, f);
    CHECK_STATUS(run(s, sql, &b, &err), BASALT_LIMIT, &err);
    CHECK_MSG(strstr(err.message, "HASH JOIN") != NULL && strstr(err.message, "spilled partition"),
              "%s", err.message);
    basalt_arrow_batches_reset(&b);
    /* A window without PARTITION BY is one partition: with a MIN over a
     * frame from each row to its end it is not computed in stretches (see
     * spill_window_to_the_end), and the error says so. */
    snprintf(sql, sizeof sql,
             "SELECT id, min(k) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED "
             "FOLLOWING) FROM '%s'",
             f);
    CHECK_STATUS(run(s, sql, &b, &err), BASALT_LIMIT, &err);
    CHECK_MSG(strstr(err.message, "WINDOW") != NULL &&
                  strstr(err.message, "MIN ('min(k) OVER") != NULL &&
                  strstr(err.message, "has a frame to the partition's end that starts after its "
                                      "start") != NULL,
              "%s", err.message);
    basalt_arrow_batches_reset(&b);
    /* A directory that cannot take files is named. */
    snprintf(sql, sizeof sql,
             "SET temp_directory = '/nonexistent/basalt'; SELECT k, id FROM '%s' ORDER BY k", f);
    CHECK_STATUS(run(s, sql, &b, &err), BASALT_IO, &err);
    CHECK_MSG(strstr(err.message, "/nonexistent/basalt") != NULL, "%s", err.message);
    basalt_arrow_batches_reset(&b);
    basalt_sql_session_free(s);
}

/* Reads sql's result a batch at a time under `limit` into `have`; the
 * memory in use after each batch must stay under the limit. *files: the
 * spill files the query made. */
static void stream_flat(const char *sql, int64_t limit, int workers, struct flat *have,
                        int64_t *files)
{
    memset(have, 0, sizeof *have);
    *files = basalt_qspill_files_made();
    struct basalt_pool *pool = NULL;
    if (workers > 1)
        basalt_pool_new(workers - 1, &pool, NULL);
    struct basalt_sql_session *s = session(pool, limit, spill_dir());
    struct basalt_error err;
    struct basalt_sql_result *r = NULL;
    CHECK_OK(basalt_sql_session_open(s, sql, strlen(sql), &r, &err), &err);
    int64_t peak = 0;
    while (r != NULL) {
        struct basalt_arrow_batches one;
        basalt_arrow_batches_init(&one);
        CHECK_OK(basalt_arrow_schema_copy(basalt_sql_result_schema(r), &one.schema, &err), &err);
        struct ArrowArray b;
        CHECK_OK(basalt_sql_result_next(r, &b, &err), &err);
        if (b.release == NULL) {
            basalt_arrow_batches_reset(&one);
            break;
        }
        if (basalt_alloc_bytes() > peak)
            peak = basalt_alloc_bytes();
        CHECK_OK(basalt_arrow_batches_append(&one, &b, &err), &err);
        struct flat part;
        flatten(&one, &part);
        put(have, part.p, part.n);
        have->rows += part.rows;
        free(part.p);
        basalt_arrow_batches_reset(&one);
    }
    CHECK_MSG(peak < limit, "%d workers: %.1f MiB in use under a %.1f MiB limit", workers,
              (double)peak / 1048576.0, (double)limit / 1048576.0);
    basalt_sql_result_free(r);
    basalt_sql_session_free(s);
    basalt_pool_free(pool);
    *files = basalt_qspill_files_made() - *files;
}

/* Runs sql without a limit, then reads it a batch at a time under `limit`
 * (stream_flat) at 1 and 2 workers: the same rows in the same order, the
 * result more than `over` bytes, more than `min_files` spill files made;
 * with `fan_in` > 0 again with merges of that many sorted runs at a time
 * forced: the same rows, and more files (the runs merged into longer
 * ones). */
static void same_streamed(const char *sql, int64_t rows, int64_t limit, int64_t over,
                          int64_t min_files, int64_t fan_in)
{
    struct basalt_arrow_batches ref;
    struct basalt_error err;
    struct basalt_sql_session *plain = session(NULL, 0, NULL);
    CHECK_OK(run(plain, sql, &ref, &err), &err);
    struct flat want;
    flatten(&ref, &want);
    basalt_arrow_batches_reset(&ref);
    basalt_sql_session_free(plain);
    CHECK_EQ(want.rows, rows);
    CHECK(want.n > (size_t)over);
    const char *min_workers = getenv("BASALT_SPILL_MIN_WORKERS");
    for (int workers = min_workers && atoi(min_workers) == 2 ? 2 : 1; workers <= 2; workers++) {
        struct flat have;
        int64_t files, merged;
        stream_flat(sql, limit, workers, &have, &files);
        CHECK_EQ(have.rows, want.rows);
        CHECK(have.n == want.n && memcmp(have.p, want.p, want.n) == 0);
        CHECK_MSG(files > min_files, "%d workers: %lld spill files", workers, (long long)files);
        free(have.p);
        if (fan_in > 0) {
            basalt_qspill_test_set_fan_in(fan_in);
            stream_flat(sql, limit, workers, &have, &merged);
            basalt_qspill_test_set_fan_in(0);
            CHECK_EQ(have.rows, want.rows);
            CHECK(have.n == want.n && memcmp(have.p, want.p, want.n) == 0);
            CHECK_MSG(merged > files, "%d workers: %lld files, %lld with merges", workers,
                      (long long)files, (long long)merged);
            free(have.p);
        }
        CHECK_EQ(dir_entries(spill_dir()), 0);
    }
    free(want.p);
}

/* A sorted result three times the memory limit, read a batch at a time:
 * the merge hands it out as it goes, so the rows are the unlimited run's,
 * in order, and memory stays under the limit. With merges of two runs at a
 * time forced, runs are merged into longer ones first (more spill files)
 * and the rows are the same again. */
TEST(spill_sort_streams_past_the_limit)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT * FROM '%s' ORDER BY s, k DESC", f);
    same_streamed(sql, ROWS, 24ll << 20, 48ll << 20, 2, 2);
}

/* A GROUP BY with a group per row, its result twice the memory limit, read
 * a batch at a time: the spilled partitions' groups go to a result file as
 * they are finished and come back from it, so the rows are the unlimited
 * run's, in its order, with memory under the limit; a projection above the
 * aggregation reads it the same way. */
TEST(spill_group_by_streams_past_the_limit)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT id + 1 AS id1, n, sk, ms FROM (SELECT id, count(*) AS n, sum(k) AS sk, "
             "min(s) AS ms FROM '%s' GROUP BY id)",
             f);
    same_streamed(sql, ROWS, 24ll << 20, 24ll << 20, 64, 0);
}

/* Windows with PARTITION BY spill: their input goes through the external
 * sort and is computed a chunk of whole partitions at a time. Two windows
 * (running SUM, LAG, ROW_NUMBER over other order keys) over 1.5M rows, read
 * a batch at a time under a limit their input passes several times: the
 * unlimited run's rows in its order, memory under the limit; under an
 * aggregation the same through execute, with the runs counted. */
TEST(spill_window_partitions)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT id, g, sum(k) OVER (PARTITION BY g ORDER BY id) AS rs, lag(s) OVER "
             "(PARTITION BY g ORDER BY id) AS ls, row_number() OVER (PARTITION BY k %% 7 ORDER "
             "BY s DESC NULLS LAST, id) AS rn FROM '%s'",
             f);
    same_streamed(sql, ROWS, 32ll << 20, 32ll << 20, 4, 0);
    snprintf(sql, sizeof sql,
             "SELECT g %% 100 AS h, count(*) AS n, sum(rs) AS srs, max(ls) AS mls FROM (SELECT g, "
             "sum(k) OVER (PARTITION BY g ORDER BY id) AS rs, lag(s) OVER (PARTITION BY g ORDER "
             "BY id) AS ls FROM '%s') GROUP BY 1",
             f);
    same_with_limit(sql, 32ll << 20, "WINDOW:spilled_runs=", check_nothing);
}

/* A window without PARTITION BY is one partition of 1.5M rows: under the
 * limit it is computed a stretch at a time (window/window_stretch.c), each
 * with the rows around it that LAG, LEAD and the frames read, cut where the
 * order keys change (ranks, RANGE frames), the partition's rows so far
 * carried over (ROW_NUMBER, RANK, DENSE_RANK, COUNT(*), running sums and
 * MIN/MAX, the first and n-th rows for FIRST_VALUE and NTH_VALUE), its size
 * known from the sort (NTILE, PERCENT_RANK, CUME_DIST).
 * Every kind of call it allows, read a batch at a time, gives the
 * rows of the window computed whole in memory; so do partitionings with
 * one partition too large to hold before small ones (under an aggregate)
 * and with three such partitions in a row. */
TEST(spill_window_stretches)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[2048];
    snprintf(sql, sizeof sql,
             "SELECT id, k, s, d, row_number() OVER w AS rn, rank() OVER (ORDER BY k) AS rk, "
             "dense_rank() OVER (ORDER BY k) AS dr, lag(s, 3) OVER w AS lg, "
             "lead(d, 2, -1.0) OVER w AS ld, sum(d) OVER w AS rs, count(s) OVER (ORDER BY k) AS "
             "cs, count(*) OVER (ORDER BY k) AS cn, avg(k) OVER w AS ak, max(s) OVER (ORDER BY "
             "k) AS mx, min(d) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) AS mn, "
             "sum(k) OVER (w ROWS BETWEEN 5 PRECEDING AND 2 FOLLOWING) AS fs, max(d) OVER (w "
             "ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS fm, first_value(s) OVER (w ROWS "
             "BETWEEN 2 PRECEDING AND CURRENT ROW) AS fv, last_value(s) OVER w AS lv, ntile(7) "
             "OVER w AS nt, percent_rank() OVER (ORDER BY k) AS pr, cume_dist() OVER (ORDER BY k) "
             "AS cd, first_value(s) OVER w AS fr, nth_value(d, 3) OVER w AS nr, nth_value(s, "
             "900000) OVER (w ROWS UNBOUNDED PRECEDING) AS nf FROM '%s' WINDOW w AS (ORDER BY k, "
             "id)",
             f);
    same_streamed(sql, ROWS, 24ll << 20, 24ll << 20, 4, 0);
    snprintf(sql, sizeof sql,
             "SELECT p, count(*) AS n, sum(rn) AS srn, sum(rs) AS srs, max(lg) AS mlg, "
             "sum(mk) AS smk FROM (SELECT CASE WHEN id < 1200000 THEN 0 ELSE g END AS p, "
             "row_number() OVER w AS rn, sum(k) OVER w AS rs, lag(s) OVER w AS lg, max(k) OVER "
             "(w ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS mk FROM '%s' WINDOW w AS "
             "(PARTITION BY CASE WHEN id < 1200000 THEN 0 ELSE g END ORDER BY s, id)) GROUP BY p",
             f);
    same_with_limit(sql, 24ll << 20, "WINDOW:stretches=", check_nothing);
    /* Three partitions, each in stretches after the one before ended. */
    snprintf(sql, sizeof sql,
             "SELECT id, row_number() OVER w AS rn, k - lag(k) OVER w AS dk FROM '%s' WINDOW w "
             "AS (PARTITION BY id %% 3 ORDER BY s, id)",
             f);
    same_streamed(sql, ROWS, 24ll << 20, 0, 4, 0);
    /* Calls that read no row but their own (no context, no peers): a
     * stretch still keeps its last row held, to see where its partition
     * ends, even where that is the end of a merged batch (65,536 rows: the
     * big partition here is 18 of them). */
    snprintf(sql, sizeof sql,
             "SELECT p, count(*) AS n, sum(rn) AS srn, sum(rs) AS srs FROM (SELECT CASE WHEN id "
             "< 1179648 THEN -1 ELSE g END AS p, row_number() OVER w AS rn, sum(k) OVER (w ROWS "
             "UNBOUNDED PRECEDING) AS rs FROM '%s' WINDOW w AS (PARTITION BY CASE WHEN id < "
             "1179648 THEN -1 ELSE g END ORDER BY s, id)) GROUP BY p",
             f);
    same_with_limit(sql, 24ll << 20, "WINDOW:stretches=", check_nothing);
}

/* Frames to the partition's end in a partition too large to hold: the
 * partition is first read to its end (its rows past those held spooled to a
 * file read again), which gives the partition's sums, its best, last and
 * n-th rows; then its stretches take COUNT, SUM and AVG from the partition's
 * sum less the rows before each frame, and the rest from those rows. One
 * partition with ORDER BY, one without (the input's order: the sort has no
 * keys), and a partition too large to hold among small ones; each read a
 * batch at a time under 24 MiB gives the rows of the window computed whole
 * in memory, to the bit (sums of doubles included). Before, each failed
 * with LIMIT: "has a frame to the partition's end". */
TEST(spill_window_to_the_end)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[4096];
    snprintf(sql, sizeof sql,
             "SELECT id, k, d, sum(d) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) "
             "AS sf, count(*) OVER (w ROWS BETWEEN 3 FOLLOWING AND UNBOUNDED FOLLOWING) AS cf, "
             "count(s) OVER (w ROWS BETWEEN 5 PRECEDING AND UNBOUNDED FOLLOWING) AS cs, avg(k) "
             "OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS aw, min(d) OVER "
             "(w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS mn, max(s) OVER (w "
             "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS mx, last_value(s) OVER "
             "(w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lv, last_value(d) OVER (w "
             "ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING) AS lf, nth_value(d, 1000000) OVER "
             "(w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS nw, nth_value(s, "
             "2000000) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS nn, "
             "first_value(s) OVER (w ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING) AS ff, "
             "sum(k) OVER (w GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS sg, lag(s, 4) "
             "OVER w AS lg, row_number() OVER w AS rn FROM '%s' WINDOW w AS (ORDER BY k, id %% "
             "1000)",
             f);
    same_streamed(sql, ROWS, 24ll << 20, 24ll << 20, 4, 0);
    snprintf(sql, sizeof sql,
             "SELECT id, d, d / sum(d) OVER () AS share, count(*) OVER () AS n, count(d) OVER () "
             "AS nd, max(s) OVER () AS mx, min(k) OVER () AS mn, last_value(s) OVER () AS ls, "
             "row_number() OVER () AS rn, lag(id) OVER () AS lid FROM '%s'",
             f);
    same_streamed(sql, ROWS, 24ll << 20, 24ll << 20, 4, 0);
    /* Under a limit it stays below, nothing spills: the sort without keys
     * hands its batches over in input order, unsorted. */
    struct basalt_arrow_batches got;
    struct basalt_error err;
    struct flat plain, roomy;
    struct basalt_sql_session *ss = session(NULL, 0, NULL);
    CHECK_OK(run(ss, sql, &got, &err), &err);
    flatten(&got, &plain);
    basalt_arrow_batches_reset(&got);
    basalt_sql_session_free(ss);
    ss = session(NULL, 4ll << 30, spill_dir());
    int64_t files = basalt_qspill_files_made();
    CHECK_OK(run(ss, sql, &got, &err), &err);
    flatten(&got, &roomy);
    basalt_arrow_batches_reset(&got);
    basalt_sql_session_free(ss);
    CHECK_EQ(basalt_qspill_files_made(), files);
    CHECK(plain.n == roomy.n && memcmp(plain.p, roomy.p, plain.n) == 0);
    free(plain.p);
    free(roomy.p);
    snprintf(sql, sizeof sql,
             "SELECT p, count(*) AS n, sum(share) AS ss, sum(sf) AS ssf, max(lv) AS mlv, min(mx) "
             "AS mmx FROM (SELECT CASE WHEN id < 1200000 THEN 0 ELSE g END AS p, d / sum(d) OVER "
             "v AS share, sum(k) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS sf, "
             "last_value(s) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lv, "
             "max(d) OVER v AS mx FROM '%s' WINDOW v AS (PARTITION BY CASE WHEN id < 1200000 "
             "THEN 0 ELSE g END), w AS (v ORDER BY s, id)) GROUP BY p",
             f);
    same_with_limit(sql, 24ll << 20, "WINDOW:stretches=", check_nothing);
}

/* NTILE, PERCENT_RANK and CUME_DIST under PARTITION BY need each
 * partition's row count before its first row. A partition larger than a
 * chunk is first read to its end, its rows past those held going to a spill
 * file that is read again, then computed in stretches (before, it failed
 * with LIMIT: "needs the partition's row count"). Two partitions of
 * 750,000 rows under two windows, read a batch at a time under 24 MiB:
 * the rows of the windows computed whole in memory, each partition sized
 * (spilled_partitions=2); then one partition too large to hold before
 * 60,000 small ones, which are computed whole as before. */
TEST(spill_window_sized_partitions)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[2048];
    snprintf(sql, sizeof sql,
             "SELECT id, ntile(7) OVER w AS nt, row_number() OVER w AS rn, lag(s) OVER w AS lg, "
             "percent_rank() OVER v AS pr, cume_dist() OVER v AS cd, ntile(1000) OVER v AS nv "
             "FROM '%s' WINDOW w AS (PARTITION BY id %% 2 ORDER BY s, id), v AS (PARTITION BY "
             "id %% 2 ORDER BY k)",
             f);
    same_streamed(sql, ROWS, 24ll << 20, 0, 4, 0);
    snprintf(sql, sizeof sql,
             "SELECT id %% 2 AS p, count(*) AS n, sum(nt * id) AS snt, sum(rn * id) AS srn, "
             "max(lg) AS mlg FROM (SELECT id, ntile(7) OVER w AS nt, row_number() OVER w AS rn, "
             "lag(s) OVER w AS lg FROM '%s' WINDOW w AS (PARTITION BY id %% 2 ORDER BY s, id)) "
             "GROUP BY 1",
             f);
    same_with_limit(sql, 24ll << 20, "WINDOW:spilled_partitions=", check_nothing);
    snprintf(sql, sizeof sql,
             "SELECT p, count(*) AS n, sum(nt) AS snt, sum(pr) AS spr, sum(cd) AS scd FROM "
             "(SELECT CASE WHEN id < 1200000 THEN 0 ELSE g END AS p, ntile(5) OVER w AS nt, "
             "percent_rank() OVER w AS pr, cume_dist() OVER w AS cd FROM '%s' WINDOW w AS "
             "(PARTITION BY CASE WHEN id < 1200000 THEN 0 ELSE g END ORDER BY k)) GROUP BY p",
             f);
    same_with_limit(sql, 24ll << 20, "WINDOW:stretches=", check_nothing);
}

/* The fixture's rows as a CSV or JSON lines file (COPY TO): empty when it
 * could not be written. */
static const char *text_fixture(char *path, size_t cap, const char *ext)
{
    if (path[0])
        return path;
    snprintf(path, cap, "/tmp/basalt_spill_%d.%s", (int)getpid(), ext);
    char sql[1024];
    snprintf(sql, sizeof sql, "COPY (SELECT * FROM '%s') TO '%s'", fixture(), path);
    struct basalt_sql_session *s = session(NULL, 0, NULL);
    struct basalt_arrow_batches b;
    struct basalt_error err;
    if (run(s, sql, &b, &err) != BASALT_OK)
        path[0] = '\0';
    basalt_arrow_batches_reset(&b);
    basalt_sql_session_free(s);
    return path;
}

/* How many rows the scan named `op` (CSV_SCAN, JSON_SCAN) gave, by EXPLAIN
 * ANALYZE of sql without a limit. */
static long long scan_rows(const char *sql, const char *op)
{
    struct basalt_sql_session *s = session(NULL, 0, NULL);
    char text[4096], name[64];
    explain(s, sql, text, sizeof text);
    basalt_sql_session_free(s);
    snprintf(name, sizeof name, "%s:rows=", op);
    return counter(text, name);
}

/* CSV and JSON lines files are read a window of batches at a time into the
 * pipeline above them, not whole first: a sort of a CSV file whose rows are
 * twice the limit, and a global aggregate over the JSON lines of the same
 * rows, run under the limit with the unlimited run's result and memory
 * under the limit after every batch; a LIMIT reads the first window of
 * either file, not all its rows. */
TEST(spill_text_files_stream_into_pipelines)
{
    const char *csv = text_fixture(csv_path, sizeof csv_path, "csv");
    const char *json = text_fixture(json_path, sizeof json_path, "json");
    CHECK(csv[0] && json[0]);
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT * FROM '%s' ORDER BY s, k DESC", csv);
    same_streamed(sql, ROWS, 24ll << 20, 48ll << 20, 2, 0);
    snprintf(sql, sizeof sql,
             "SELECT count(*) AS n, count(s) AS ns, sum(k) AS sk, max(d) AS md, min(s) AS ms "
             "FROM '%s'",
             json);
    same_streamed(sql, 1, 24ll << 20, 0, -1, 0);
    snprintf(sql, sizeof sql, "SELECT * FROM '%s' LIMIT 10", csv);
    long long rows = scan_rows(sql, "CSV_SCAN");
    CHECK_MSG(rows >= 10 && rows < ROWS / 2, "CSV_SCAN gave %lld rows for LIMIT 10", rows);
    snprintf(sql, sizeof sql, "SELECT * FROM '%s' LIMIT 10", json);
    rows = scan_rows(sql, "JSON_SCAN");
    CHECK_MSG(rows >= 10 && rows < ROWS / 2, "JSON_SCAN gave %lld rows for LIMIT 10", rows);
}

/* ORDER BY ... LIMIT reads its input a window at a time and keeps only the
 * rows that can still be among the first: 1.5M rows give the unlimited
 * run's 100 rows under a 48 MiB limit, which their 60 MB in memory pass
 * (two workers each decode a row group while the window before is held,
 * which 24 MiB does not leave room for). Before, the top-k collected its
 * whole input and failed with LIMIT. */
TEST(spill_top_k_streams_its_input)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT * FROM '%s' ORDER BY d DESC NULLS LAST, s LIMIT 100 OFFSET 7",
             f);
    same_streamed(sql, 100, 48ll << 20, 0, -1, 0);
}

/* The first two rows of each of 200,003 partitions (row_number() <= 2):
 * the window prunes its input as it comes to about two rows per partition
 * and worker. Under a memory limit it also prunes once an eighth of the
 * limit is in use, not only on its own schedule (each time it holds four
 * times what survived its last pruning): more prunings than without the
 * limit. (At 1e8 rows, H2O's groupby q8 under a 2 GB limit peaked at 2.8 GB
 * on the schedule alone.) Its keys are held as the input columns they are,
 * not as copies appended by the projection below it: three columns, not
 * six. The rows are the unlimited run's, read under the limit at 1 and 2
 * workers. */
TEST(spill_window_top_rows_per_partition_prune_under_the_limit)
{
    const char *f = fixture();
    CHECK(f[0]);
    static int32_t per_group[GROUPS];
    int64_t want = 0;
    for (int64_t i = 0; i < ROWS; i++)
        if (per_group[g_of(i)]++ < 2)
            want++;
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT g, id, d FROM (SELECT g, id, d, row_number() OVER (PARTITION BY g ORDER BY "
             "d DESC NULLS LAST, id) AS rn FROM '%s') WHERE rn <= 2",
             f);
    const int64_t limit = 192ll << 20;
    same_streamed(sql, want, limit, 0, -1, 0);
    char plain[8192], limited[8192];
    struct basalt_sql_session *s = session(NULL, 0, NULL);
    explain(s, sql, plain, sizeof plain);
    basalt_sql_session_free(s);
    s = session(NULL, limit, spill_dir());
    explain(s, sql, limited, sizeof limited);
    basalt_sql_session_free(s);
    long long unlimited_prunings = counter(plain, "WINDOW:prunings=");
    CHECK_MSG(unlimited_prunings > 0, "%s", plain);
    CHECK_MSG(counter(limited, "WINDOW:prunings=") > unlimited_prunings, "without a limit:\n%s\n"
              "under %lld MiB:\n%s", plain, (long long)(limit >> 20), limited);
    const char *window = strstr(limited, "WINDOW");
    const char *below = window != NULL ? strchr(window, '\n') : NULL;
    CHECK_MSG(below != NULL && strstr(below, "PROJECTION [") != NULL, "%s", limited);
    if (below != NULL && strstr(below, "PROJECTION [") != NULL) {
        const char *list = strstr(below, "PROJECTION [");
        int columns = 1;
        for (const char *c = list; *c != ']' && *c != '\0'; c++)
            columns += *c == ',';
        CHECK_MSG(columns == 3, "%d columns below the window:\n%s", columns, limited);
    }
}

/* median(k) over the fixture, from k's formula: the mean of the values at
 * ranks ROWS/2 - 1 and ROWS/2 of the sorted k (ROWS is even). */
static double median_of_k(void)
{
    static int64_t count[1000];
    memset(count, 0, sizeof count);
    for (int64_t i = 0; i < ROWS; i++)
        count[k_of(i)]++;
    int64_t seen = 0, lo = -1, hi = -1;
    for (int64_t v = 0; v < 1000 && hi < 0; v++) {
        seen += count[v];
        if (lo < 0 && seen > ROWS / 2 - 1)
            lo = v;
        if (seen > ROWS / 2)
            hi = v;
    }
    return ((double)lo + (double)hi) / 2;
}

static void check_median_of_k(const struct basalt_arrow_batches *ref)
{
    CHECK_EQ(ref->n, 1);
    if (ref->n != 1)
        return;
    /* column 0 is median(k), a DOUBLE */
    const struct ArrowArray *c = ref->arrays[0].children[0];
    double got = ((const double *)c->buffers[1])[c->offset];
    CHECK_MSG(got == median_of_k(), "median(k) %.17g, the formula's %.17g", got, median_of_k());
}

/* Quantiles without GROUP BY keys have one group, which partitioning by key
 * cannot split: under a memory limit their values go to external sorts,
 * and the values at the ranks they read go through the in-memory
 * aggregate's own quantile. MEDIAN, QUANTILE_CONT and QUANTILE_DISC of
 * doubles, integers and strings beside aggregates that do not collect,
 * under 24 MiB (collected in memory they take several times that): the
 * unlimited run's row, with sorted runs written (spilled_runs), at 1 and 2
 * workers, and median(k) equal to what k's formula gives. No rows, and only
 * NULLs, give NULL as in memory. */
TEST(spill_global_quantiles_sort_their_values)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT median(k), median(d), quantile_cont(d, 0.37), quantile_disc(s, 0.9), "
             "median(s), count(*), sum(k), quantile_cont(id, 0.25), quantile_disc(d, 0.001), "
             "max(s) FROM '%s'",
             f);
    same_with_limit(sql, 24ll << 20, "spilled_runs=", check_median_of_k);
    struct basalt_sql_session *plain = session(NULL, 0, NULL);
    struct basalt_sql_session *limited = session(NULL, 24ll << 20, spill_dir());
    const char *empty[] = {"WHERE id < 0", "WHERE d IS NULL"};
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof sql,
                 "SELECT median(d), quantile_disc(s, 0.5), count(*) FROM '%s' %s", f, empty[i]);
        struct basalt_arrow_batches want, got;
        struct basalt_error err;
        CHECK_OK(run(plain, sql, &want, &err), &err);
        CHECK_OK(run(limited, sql, &got, &err), &err);
        struct flat a, b;
        flatten(&want, &a);
        flatten(&got, &b);
        CHECK_EQ(a.rows, 1);
        CHECK_MSG(a.n == b.n && memcmp(a.p, b.p, a.n) == 0, "%s", empty[i]);
        CHECK(a.n > 0 && a.p[0] == 0); /* median(d): NULL */
        free(a.p);
        free(b.p);
        basalt_arrow_batches_reset(&want);
        basalt_arrow_batches_reset(&got);
    }
    basalt_sql_session_free(plain);
    basalt_sql_session_free(limited);
    CHECK_EQ(dir_entries(spill_dir()), 0);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The s of every third row (not NULL), in byte order, joined by `sep`,
 * from s's formula; malloc'd. */
static char *joined_s(const char *sep)
{
    int64_t n = 0;
    char **v = malloc((size_t)(ROWS / 3 + 1) * sizeof *v);
    size_t total = 1;
    for (int64_t i = 0; i < ROWS; i += 3) {
        if (i % 13 == 5)
            continue;
        char buf[32];
        s_of(i, buf);
        v[n++] = strdup(buf);
        total += strlen(buf) + strlen(sep);
    }
    qsort(v, (size_t)n, sizeof *v, cmp_cstr);
    char *out = malloc(total), *at = out;
    for (int64_t i = 0; i < n; i++) {
        at += sprintf(at, "%s%s", i ? sep : "", v[i]);
        free(v[i]);
    }
    free(v);
    return out;
}

/* string_agg(s, '; ') and string_agg(s) over every third row. */
static void check_string_agg(const struct basalt_arrow_batches *ref)
{
    CHECK_EQ(ref->n, 1);
    if (ref->n != 1)
        return;
    const char *seps[2] = {"; ", ","};
    for (int c = 0; c < 2; c++) {
        const char *p;
        int32_t n;
        CHECK(col_str(&ref->arrays[0], c == 0 ? 0 : 2, 0, &p, &n));
        char *want = joined_s(seps[c]);
        CHECK_MSG((size_t)n == strlen(want) && memcmp(p, want, (size_t)n) == 0,
                  "string_agg with '%s': %d bytes, the formula's %zu", seps[c], n, strlen(want));
        free(want);
    }
}

/* STRING_AGG without GROUP BY keys is one group too: under the limit its
 * values go to an external sort, and the merged stream, in the byte order
 * the in-memory aggregate joins them in, is written into a result sized
 * from the values' bytes counted on the way in. Two of them (their own
 * separators and sorts) over 500,000 rows under 24 MiB: the unlimited
 * run's row, with runs spilled, at 1 and 2 workers, equal to the joins of
 * s's formula; no rows give NULL as in memory. */
TEST(spill_global_string_agg_sorts_its_values)
{
    const char *f = fixture();
    CHECK(f[0]);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT string_agg(s, '; '), count(*), string_agg(s), max(k) FROM '%s' WHERE id %% "
             "3 = 0",
             f);
    same_with_limit(sql, 24ll << 20, "spilled_runs=", check_string_agg);
    snprintf(sql, sizeof sql, "SELECT string_agg(s, '-') IS NULL, count(*) FROM '%s' WHERE id < 0",
             f);
    struct basalt_sql_session *limited = session(NULL, 24ll << 20, spill_dir());
    struct basalt_arrow_batches got;
    struct basalt_error err;
    CHECK_OK(run(limited, sql, &got, &err), &err);
    CHECK(got.n == 1 && got.arrays[0].length == 1);
    const struct ArrowArray *isnull = got.n == 1 ? got.arrays[0].children[0] : NULL;
    CHECK(isnull != NULL && bit(isnull->buffers[1], isnull->offset));
    basalt_arrow_batches_reset(&got);
    basalt_sql_session_free(limited);
    CHECK_EQ(dir_entries(spill_dir()), 0);
}

/* The CROSS join below: count, sum(a.k * b.k) and max(a.id * 10^7 + b.id)
 * over 40 probe rows and 300,000 build rows, from k's formula. */
static void check_cross(const struct basalt_arrow_batches *ref)
{
    int64_t ka = 0, kb = 0;
    for (int64_t i = 0; i < 40; i++)
        ka += k_of(i);
    for (int64_t i = 0; i < 300000; i++)
        kb += k_of(i);
    CHECK_EQ(ref->n, 1);
    if (ref->n != 1)
        return;
    const struct ArrowArray *row = &ref->arrays[0];
    CHECK_EQ(col_i64(row, 0, 0), 40ll * 300000);
    CHECK_EQ(col_i64(row, 2, 0), 39ll * 10000000 + 299999);
    /* sum of BIGINT is DECIMAL(38,0): its low 64 bits hold this sum */
    const struct ArrowArray *s = row->children[1];
    int64_t lo;
    memcpy(&lo, (const uint8_t *)s->buffers[1] + 16 * (size_t)s->offset, 8);
    CHECK_EQ(lo, ka * kb);
}

/* A CROSS join whose build side passes a third of the limit spills both
 * sides and joins them as a block nested loop: blocks of the build side,
 * each with the probe side read again (spilled_blocks). The build side is
 * 300,000 rows of a file (the optimizer's smaller estimate: the filtered
 * side counts as a quarter of its 1.5M), the probe side the 40 rows a filter
 * the scan cannot use keeps: the product's count, sum and max equal the
 * formula's and the unlimited run's, at 1 and 2 workers. */
TEST(spill_cross_join_in_blocks)
{
    const char *f = fixture();
    CHECK(f[0]);
    char build[300], sql[1024];
    snprintf(build, sizeof build, "%s.build.parquet", f);
    struct basalt_sql_session *s = session(NULL, 0, NULL);
    snprintf(sql, sizeof sql, "COPY (SELECT id, k FROM '%s' WHERE id < 300000) TO '%s'", f, build);
    struct basalt_arrow_batches b;
    struct basalt_error err;
    CHECK_OK(run(s, sql, &b, &err), &err);
    basalt_arrow_batches_reset(&b);
    basalt_sql_session_free(s);
    snprintf(sql, sizeof sql,
             "SELECT count(*) AS n, sum(a.k * b.k) AS skk, max(a.id * 10000000 + b.id) AS mx "
             "FROM (SELECT id, k FROM '%s' WHERE k * 0 + id < 40) a CROSS JOIN '%s' b",
             f, build);
    same_with_limit(sql, 12ll << 20, "spilled_blocks=", check_cross);
    unlink(build);
}
