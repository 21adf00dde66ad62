/* Randomised differentials of the join and the sort against DuckDB: DuckDB
 * writes two random tables to Parquet (tests/query/duckdb_joinsort.mjs),
 * basalt's reader reads them, a seeded generator picks joins (type, key
 * columns of every kind, an optional residual) and sorts (1-3 keys with
 * random direction and NULL placement, then rid for a total order, with or
 * without LIMIT/OFFSET), runs them here and renders them as SQL for DuckDB.
 * Joins are compared as sorted row lists, sorts row by row. Every case also
 * runs on 1 worker with whole batches and on 4 workers with random batch
 * splits (and, for sorts, a shuffled assignment to locals): the two must be
 * identical, order included. BASALT_QUERY_JOINS / BASALT_QUERY_SORTS set the
 * number of cases, BASALT_RANDOM_SEED the seed. Run by ctest's
 * differential.query_join and differential.query_sort. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/parquet.h"
#include "join/join.h"
#include "joinsort_util.h"
#include "sort/sort.h"
#include "test.h"

enum { C_K1, C_K2, C_K3, C_K4, C_K5, C_K6, C_V, C_S, C_RID, NCOL };
static const char *const col_names[NCOL] = {"k1", "k2", "k3", "k4", "k5", "k6", "v", "s", "rid"};
static const bool col_double[NCOL] = {false, false, true, false, false, false, true, false, false};

struct input {
    struct basalt_arrow_batches p, b;
};

static bool have_node(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-api/package.json", BASALT_TEST_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f && system("command -v node >/dev/null 2>&1") == 0;
}

static bool gate(const char *env, const char *name)
{
    const char *on = getenv(env);
    if (!on || strcmp(on, "1") != 0) {
        printf("SKIP %s: run by ctest's differential target\n", name);
        return false;
    }
    if (!have_node()) {
        const char *req = getenv("BASALT_REQUIRE_PEERS");
        if (req && strcmp(req, "1") == 0) {
            bt_fail(__FILE__, __LINE__, "node or node_modules/@duckdb/node-api missing");
            return false;
        }
        printf("SKIP %s: node or @duckdb/node-api missing\n", name);
        return false;
    }
    return true;
}

static basalt_status read_parquet(const char *path, struct basalt_arrow_batches *out)
{
    struct basalt_parquet_reader *rd;
    struct basalt_parquet_scan *scan;
    basalt_arrow_batches_init(out);
    basalt_status st = basalt_parquet_reader_open_file(path, NULL, &rd, NULL);
    if (st != BASALT_OK)
        return st;
    st = basalt_parquet_scan_new(rd, NULL, &scan, NULL);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_read_all(scan, out, NULL);
        basalt_parquet_scan_free(scan);
    }
    basalt_parquet_reader_close(rd);
    return st;
}

static uint64_t seed_env(void)
{
    const char *se = getenv("BASALT_RANDOM_SEED");
    return se ? strtoull(se, NULL, 10) : 1;
}

static bool setup(char *dir, struct input *in)
{
    char cmd[2048], path[600];
    if (!mkdtemp(dir))
        return false;
    snprintf(cmd, sizeof cmd, "node '%s/tests/query/duckdb_joinsort.mjs' tables %llu 1500 1000 '%s'",
             BASALT_TEST_SOURCE_DIR, (unsigned long long)seed_env(), dir);
    if (system(cmd) != 0)
        return false;
    snprintf(path, sizeof path, "%s/p.parquet", dir);
    if (read_parquet(path, &in->p) != BASALT_OK)
        return false;
    snprintf(path, sizeof path, "%s/b.parquet", dir);
    return read_parquet(path, &in->b) == BASALT_OK && in->p.schema.n_children == NCOL &&
           in->b.schema.n_children == NCOL;
}

static void teardown(const char *dir, struct input *in)
{
    basalt_arrow_batches_reset(&in->p);
    basalt_arrow_batches_reset(&in->b);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* Owned slices of the batches: whole (max 0) or random pieces of 1..max rows. */
static int64_t split(const struct basalt_arrow_batches *in, struct bt_rng *rng, int64_t max,
                     struct ArrowArray **out)
{
    int64_t n = 0, cap = 16;
    *out = malloc((size_t)cap * sizeof **out);
    for (int64_t i = 0; i < in->n; i++) {
        int64_t len = in->arrays[i].length;
        for (int64_t lo = 0; lo < len || (len == 0 && lo == 0);) {
            int64_t step = max > 0 ? 1 + (int64_t)bt_rng_below(rng, (uint64_t)max) : len;
            int64_t hi = lo + step < len ? lo + step : len;
            if (n == cap)
                *out = realloc(*out, (size_t)(cap *= 2) * sizeof **out);
            js_slice(&in->schema, &in->arrays[i], lo, hi, &(*out)[n++]);
            if (hi == lo)
                break;
            lo = hi;
        }
    }
    return n;
}

struct lines {
    char **v;
    int64_t n;
};

static void lines_free(struct lines *l)
{
    for (int64_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ------------------------------------------------------------------ joins */

struct jcase {
    enum basalt_qjoin_type type;
    int keys[3];
    int nk;
    int residual; /* 0 none, 1 p.v < b.v, 2 p.k6 >= b.k6 */
    char sql[4096];
};

static basalt_status residual_program(const struct ArrowSchema *ps, const struct ArrowSchema *bs,
                                      int kind, struct basalt_query_program **out)
{
    struct ArrowSchema s;
    basalt_status st = basalt_arrow_schema_init(&s, "+s", "", 0, 2 * NCOL, NULL);
    for (int c = 0; c < 2 * NCOL && st == BASALT_OK; c++)
        st = basalt_arrow_schema_copy(c < NCOL ? ps->children[c] : bs->children[c - NCOL],
                                      s.children[c], NULL);
    struct basalt_qexpr_builder *qb = NULL;
    struct basalt_qexpr *a = NULL, *b = NULL, *e = NULL, *args[2];
    if (st == BASALT_OK)
        st = basalt_qexpr_builder_new(&s, &qb, NULL);
    int col = kind == 1 ? C_V : C_K6;
    if (st == BASALT_OK)
        st = basalt_qexpr_column(qb, col, &a, NULL);
    if (st == BASALT_OK)
        st = basalt_qexpr_column(qb, NCOL + col, &b, NULL);
    args[0] = a;
    args[1] = b;
    if (st == BASALT_OK)
        st = basalt_qexpr_call(qb, kind == 1 ? "<" : ">=", args, 2, &e, NULL);
    if (st == BASALT_OK)
        st = basalt_query_compile(qb, &e, 1, NULL, out, NULL);
    basalt_qexpr_builder_free(qb);
    basalt_arrow_schema_release(&s);
    return st;
}

static void select_list(char *buf, size_t cap, const char *t1, const char *t2)
{
    size_t len = 0;
    for (int side = 0; side < (t2 ? 2 : 1); side++)
        for (int c = 0; c < NCOL; c++) {
            const char *t = side ? t2 : t1;
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", "");
            if (col_double[c])
                len += (size_t)snprintf(buf + len, cap - len, "printf('%%.17g', %s.%s)", t, col_names[c]);
            else
                len += (size_t)snprintf(buf + len, cap - len, "CAST(%s.%s AS VARCHAR)", t, col_names[c]);
        }
}

static void jcase_gen(struct bt_rng *rng, struct jcase *c)
{
    static const int sets[][3] = {{C_K1}, {C_K2}, {C_K3}, {C_K4}, {C_K5}, {C_K1, C_K2}, {C_K2, C_K3},
                                  {C_K1, C_K5, C_K2}};
    static const int set_n[] = {1, 1, 1, 1, 1, 2, 2, 3};
    static const char *const sqlj[] = {"INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN",
                                       "SEMI JOIN", "ANTI JOIN"};
    int s = (int)bt_rng_below(rng, 8);
    c->type = (enum basalt_qjoin_type)bt_rng_below(rng, 6);
    c->nk = set_n[s];
    memcpy(c->keys, sets[s], sizeof c->keys);
    c->residual = bt_rng_below(rng, 10) < 3 ? 1 + (int)bt_rng_below(rng, 2) : 0;
    bool semi = c->type == BASALT_QJOIN_SEMI || c->type == BASALT_QJOIN_ANTI;
    char sel[1500];
    select_list(sel, sizeof sel, "p", semi ? NULL : "b");
    size_t len = (size_t)snprintf(c->sql, sizeof c->sql, "SELECT %s FROM p %s b ON ", sel, sqlj[c->type]);
    for (int k = 0; k < c->nk; k++)
        len += (size_t)snprintf(c->sql + len, sizeof c->sql - len, "%sp.%s = b.%s", k ? " AND " : "",
                                col_names[c->keys[k]], col_names[c->keys[k]]);
    if (c->residual)
        snprintf(c->sql + len, sizeof c->sql - len, " AND %s", c->residual == 1 ? "p.v < b.v" : "p.k6 >= b.k6");
}

struct probe_ctx {
    struct basalt_qjoin_probe_local **locals;
    struct ArrowArray *batches;
    struct basalt_arrow_batches *outs;
    basalt_status *st;
};

static void probe_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct probe_ctx *x = ctx;
    for (int64_t i = begin; i < end; i++)
        x->st[i] = basalt_qjoin_probe(x->locals[worker], &x->batches[i], &x->outs[i], NULL);
}

/* Our rows for a case, in output order; false on error. */
static bool run_join(const struct input *in, const struct jcase *c,
                     const struct basalt_query_program *res, int workers, struct bt_rng *rng,
                     struct lines *out, struct basalt_qjoin_stats *stats)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_qjoin_spec spec = {c->type, &in->p.schema, &in->b.schema, c->keys, c->keys, c->nk, res, NULL, 0, NULL, 0};
    struct basalt_qjoin *j = NULL;
    if (basalt_qjoin_new(&spec, &j, &err) != BASALT_OK) {
        fprintf(stderr, "join_new: %s\n", err.message);
        return false;
    }
    struct basalt_pool *pool = NULL;
    if (workers > 1)
        basalt_pool_new(workers - 1, &pool, NULL);
    struct basalt_qjoin_build_local *bl[4] = {NULL};
    for (int w = 0; w < workers; w++)
        basalt_qjoin_build_local_new(j, &bl[w], NULL);
    struct ArrowArray *bb, *pb;
    int64_t nbb = split(&in->b, rng, workers > 1 ? 300 : 0, &bb);
    int64_t npb = split(&in->p, rng, workers > 1 ? 400 : 0, &pb);
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < nbb; i++) {
        basalt_status s2 = basalt_qjoin_build_consume(bl[bt_rng_below(rng, (uint64_t)workers)], &bb[i], i, &err);
        if (st == BASALT_OK)
            st = s2;
    }
    if (st == BASALT_OK)
        st = basalt_qjoin_build_finish(j, bl, workers, pool, &err);
    struct basalt_qjoin_probe_local *pl[4] = {NULL};
    struct basalt_arrow_batches *outs = calloc((size_t)npb + 1, sizeof *outs);
    basalt_status *sts = calloc((size_t)npb + 1, sizeof *sts);
    for (int64_t i = 0; i <= npb; i++)
        basalt_arrow_batches_init(&outs[i]);
    for (int w = 0; w < workers && st == BASALT_OK; w++)
        st = basalt_qjoin_probe_local_new(j, &pl[w], &err);
    if (st == BASALT_OK) {
        struct probe_ctx x = {pl, pb, outs, sts};
        basalt_pool_parallel_for(pool, 0, npb, 1, probe_task, &x);
        for (int64_t i = 0; i < npb && st == BASALT_OK; i++)
            st = sts[i];
    }
    if (st == BASALT_OK)
        st = basalt_qjoin_unmatched(j, &outs[npb], &err);
    if (st == BASALT_OK)
        for (int64_t i = 0; i <= npb; i++)
            for (int64_t k = 0; k < outs[i].n; k++)
                js_render_rows(&outs[i].schema, &outs[i].arrays[k], &out->v, &out->n);
    if (st != BASALT_OK)
        fprintf(stderr, "join: %s %s\n", basalt_status_name(st), err.message);
    basalt_qjoin_stats(j, stats);
    for (int64_t i = 0; i <= npb; i++)
        basalt_arrow_batches_reset(&outs[i]);
    for (int64_t i = 0; i < npb; i++)
        basalt_arrow_array_release(&pb[i]);
    free(outs);
    free(sts);
    free(pb);
    free(bb);
    for (int w = 0; w < workers; w++) {
        basalt_qjoin_build_local_free(bl[w]);
        basalt_qjoin_probe_local_free(pl[w]);
    }
    basalt_qjoin_free(j);
    basalt_pool_free(pool);
    return st == BASALT_OK;
}

/* Reads DuckDB's answer for case k (the file positioned at its header). */
static bool read_answer(FILE *f, char *line, size_t cap, struct lines *out)
{
    bool ok = strstr(line, " OK") != NULL;
    if (!ok)
        fprintf(stderr, "duckdb: %s", line);
    while (fgets(line, (int)cap, f) && line[0] != '#') {
        line[strcspn(line, "\n")] = 0;
        out->v = realloc(out->v, (size_t)(out->n + 1) * sizeof *out->v);
        out->v[out->n++] = strdup(line);
    }
    if (feof(f) && line[0] != '#')
        line[0] = 0;
    return ok;
}

static bool same_lines(const struct lines *a, const struct lines *b, const char *what, int k)
{
    if (a->n != b->n) {
        fprintf(stderr, "  case %d (%s): %lld rows, duckdb %lld\n", k, what, (long long)a->n,
                (long long)b->n);
        return false;
    }
    for (int64_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0) {
            fprintf(stderr, "  case %d (%s): row %lld: ours '%s', duckdb '%s'\n", k, what,
                    (long long)i, a->v[i], b->v[i]);
            return false;
        }
    return true;
}

TEST(query_join_duckdb_differential)
{
    if (!gate("BASALT_QUERY_JOIN_DIFFERENTIAL", "query_join_duckdb_differential"))
        return;
    char dir[] = "/tmp/basalt-jdiff-XXXXXX";
    struct input in;
    memset(&in, 0, sizeof in);
    CHECK_MSG(setup(dir, &in), "tables not written or read in %s", dir);
    const char *ne = getenv("BASALT_QUERY_JOINS");
    int n = ne ? atoi(ne) : 60;
    struct bt_rng rng;
    bt_rng_seed(&rng, seed_env() * 31 + 5);
    struct jcase *cases = calloc((size_t)n, sizeof *cases);
    char qpath[600], opath[600], cmd[2048];
    snprintf(qpath, sizeof qpath, "%s/joins.sql", dir);
    snprintf(opath, sizeof opath, "%s/joins.out", dir);
    FILE *q = fopen(qpath, "w");
    for (int k = 0; k < n; k++) {
        jcase_gen(&rng, &cases[k]);
        fprintf(q, "%s\n", cases[k].sql);
    }
    fclose(q);
    snprintf(cmd, sizeof cmd, "node '%s/tests/query/duckdb_joinsort.mjs' run '%s' '%s' '%s'",
             BASALT_TEST_SOURCE_DIR, dir, qpath, opath);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    FILE *f = fopen(opath, "r");
    CHECK(f);
    char line[8192];
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    int mismatches = 0;
    int64_t rows = 0;
    int tables[4] = {0};
    for (int k = 0; k < n; k++) {
        struct lines duck = {0}, one = {0}, four = {0};
        bool dok = read_answer(f, line, sizeof line, &duck);
        struct basalt_query_program *res = NULL;
        if (cases[k].residual)
            residual_program(&in.p.schema, &in.b.schema, cases[k].residual, &res);
        struct basalt_qjoin_stats st1, st4;
        bool ok = dok && run_join(&in, &cases[k], res, 1, &rng, &one, &st1) &&
                  run_join(&in, &cases[k], res, 4, &rng, &four, &st4);
        if (ok)
            tables[st1.table]++;
        ok = ok && same_lines(&one, &four, "1 worker against 4 workers, split", k);
        if (ok) {
            /* (an empty result has no array: qsort takes no NULL) */
            if (one.n > 0)
                qsort(one.v, (size_t)one.n, sizeof *one.v, cmp_line);
            if (duck.n > 0)
                qsort(duck.v, (size_t)duck.n, sizeof *duck.v, cmp_line);
            ok = same_lines(&one, &duck, cases[k].sql, k);
            rows += one.n;
        }
        if (!ok) {
            mismatches++;
            fprintf(stderr, "  mismatch in case %d: %s\n", k, cases[k].sql);
        }
        basalt_query_program_free(res);
        lines_free(&duck);
        lines_free(&one);
        lines_free(&four);
    }
    fclose(f);
    printf("  join differential: seed %llu, %d joins, %lld rows compared, tables direct %d integer %d "
           "hashed %d, %d mismatches\n",
           (unsigned long long)seed_env(), n, (long long)rows, tables[BASALT_QJOIN_TABLE_DIRECT],
           tables[BASALT_QJOIN_TABLE_INTEGER], tables[BASALT_QJOIN_TABLE_HASHED], mismatches);
    free(cases);
    teardown(dir, &in);
    CHECK_EQ(mismatches, 0);
    CHECK(tables[BASALT_QJOIN_TABLE_DIRECT] > 0 && tables[BASALT_QJOIN_TABLE_INTEGER] > 0 &&
          tables[BASALT_QJOIN_TABLE_HASHED] > 0);
}

/* ------------------------------------------------------------------ sorts */

struct scase {
    struct basalt_qsort_key keys[4];
    int nk;
    int64_t limit, offset;
    char sql[4096];
};

static void scase_gen(struct bt_rng *rng, struct scase *c)
{
    c->nk = 1 + (int)bt_rng_below(rng, 3);
    char order[512];
    size_t len = 0;
    for (int k = 0; k < c->nk; k++) {
        c->keys[k].column = (int)bt_rng_below(rng, C_RID);
        c->keys[k].descending = bt_rng_below(rng, 2);
        c->keys[k].nulls_first = bt_rng_below(rng, 2);
        len += (size_t)snprintf(order + len, sizeof order - len, "%s%s %s NULLS %s", k ? ", " : "",
                                col_names[c->keys[k].column], c->keys[k].descending ? "DESC" : "ASC",
                                c->keys[k].nulls_first ? "FIRST" : "LAST");
    }
    c->keys[c->nk].column = C_RID;
    c->keys[c->nk].descending = false;
    c->keys[c->nk].nulls_first = false;
    c->nk++;
    snprintf(order + len, sizeof order - len, ", rid");
    c->limit = -1;
    c->offset = 0;
    char lim[64] = "";
    if (bt_rng_below(rng, 10) < 4) {
        static const int64_t ls[] = {0, 1, 10, 100, 1000, 5000};
        c->limit = ls[bt_rng_below(rng, 6)];
        c->offset = bt_rng_below(rng, 2) ? (int64_t)bt_rng_below(rng, 300) : 0;
        snprintf(lim, sizeof lim, " LIMIT %lld OFFSET %lld", (long long)c->limit, (long long)c->offset);
    }
    char sel[1500];
    select_list(sel, sizeof sel, "p", NULL);
    snprintf(c->sql, sizeof c->sql, "SELECT %s FROM p ORDER BY %s%s", sel, order, lim);
}

struct consume_ctx {
    struct basalt_qsort_local **locals;
    struct ArrowArray *batches;
    const int32_t *owner;
    int64_t n;
    basalt_status *st;
};

static void consume_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct consume_ctx *x = ctx;
    for (int64_t w = begin; w < end; w++)
        for (int64_t b = 0; b < x->n; b++)
            if (x->owner[b] == w)
                x->st[b] = basalt_qsort_consume(x->locals[w], &x->batches[b], b, NULL);
}

static bool run_sort(const struct input *in, const struct scase *c, int workers, struct bt_rng *rng,
                     struct lines *out)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_qsort *s = NULL;
    if (basalt_qsort_new(&in->p.schema, c->keys, c->nk, c->limit, c->offset, &s, &err) != BASALT_OK) {
        fprintf(stderr, "qsort_new: %s\n", err.message);
        return false;
    }
    struct basalt_pool *pool = NULL;
    if (workers > 1)
        basalt_pool_new(workers - 1, &pool, NULL);
    struct ArrowArray *pb;
    int64_t npb = split(&in->p, rng, workers > 1 ? 300 : 0, &pb);
    int32_t *owner = malloc((size_t)npb * sizeof *owner);
    basalt_status *sts = calloc((size_t)npb, sizeof *sts);
    for (int64_t b = 0; b < npb; b++)
        owner[b] = (int32_t)bt_rng_below(rng, (uint64_t)workers);
    struct basalt_qsort_local *locals[4] = {NULL};
    for (int w = 0; w < workers; w++)
        basalt_qsort_local_new(s, &locals[w], NULL);
    struct consume_ctx x = {locals, pb, owner, npb, sts};
    basalt_pool_parallel_for(pool, 0, workers, 1, consume_task, &x);
    basalt_status st = BASALT_OK;
    for (int64_t b = 0; b < npb && st == BASALT_OK; b++)
        st = sts[b];
    struct basalt_arrow_batches res;
    basalt_arrow_batches_init(&res);
    if (st == BASALT_OK)
        st = basalt_qsort_finish(s, locals, workers, pool, &res, &err);
    if (st == BASALT_OK)
        for (int64_t i = 0; i < res.n; i++)
            js_render_rows(&res.schema, &res.arrays[i], &out->v, &out->n);
    else
        fprintf(stderr, "sort: %s %s\n", basalt_status_name(st), err.message);
    basalt_arrow_batches_reset(&res);
    for (int w = 0; w < workers; w++)
        basalt_qsort_local_free(locals[w]);
    free(pb);
    free(owner);
    free(sts);
    basalt_qsort_free(s);
    basalt_pool_free(pool);
    return st == BASALT_OK;
}

TEST(query_sort_duckdb_differential)
{
    if (!gate("BASALT_QUERY_SORT_DIFFERENTIAL", "query_sort_duckdb_differential"))
        return;
    char dir[] = "/tmp/basalt-sdiff-XXXXXX";
    struct input in;
    memset(&in, 0, sizeof in);
    CHECK_MSG(setup(dir, &in), "tables not written or read in %s", dir);
    const char *ne = getenv("BASALT_QUERY_SORTS");
    int n = ne ? atoi(ne) : 60;
    struct bt_rng rng;
    bt_rng_seed(&rng, seed_env() * 37 + 11);
    struct scase *cases = calloc((size_t)n, sizeof *cases);
    char qpath[600], opath[600], cmd[2048];
    snprintf(qpath, sizeof qpath, "%s/sorts.sql", dir);
    snprintf(opath, sizeof opath, "%s/sorts.out", dir);
    FILE *q = fopen(qpath, "w");
    for (int k = 0; k < n; k++) {
        scase_gen(&rng, &cases[k]);
        fprintf(q, "%s\n", cases[k].sql);
    }
    fclose(q);
    snprintf(cmd, sizeof cmd, "node '%s/tests/query/duckdb_joinsort.mjs' run '%s' '%s' '%s'",
             BASALT_TEST_SOURCE_DIR, dir, qpath, opath);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    FILE *f = fopen(opath, "r");
    CHECK(f);
    char line[8192];
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    int mismatches = 0, topk = 0;
    int64_t rows = 0;
    for (int k = 0; k < n; k++) {
        struct lines duck = {0}, one = {0}, four = {0};
        bool ok = read_answer(f, line, sizeof line, &duck) && run_sort(&in, &cases[k], 1, &rng, &one) &&
                  run_sort(&in, &cases[k], 4, &rng, &four) &&
                  same_lines(&one, &four, "1 worker against 4 workers, split", k) &&
                  same_lines(&one, &duck, cases[k].sql, k);
        rows += one.n;
        topk += cases[k].limit >= 0;
        if (!ok) {
            mismatches++;
            fprintf(stderr, "  mismatch in case %d: %s\n", k, cases[k].sql);
        }
        lines_free(&duck);
        lines_free(&one);
        lines_free(&four);
    }
    fclose(f);
    printf("  sort differential: seed %llu, %d sorts (%d top-k), %lld rows compared in order, "
           "%d mismatches\n", (unsigned long long)seed_env(), n, topk, (long long)rows, mismatches);
    free(cases);
    teardown(dir, &in);
    CHECK_EQ(mismatches, 0);
}
