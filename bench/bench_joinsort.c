/* Hash join and sort legs (src/query/join, src/query/sort), at 1 and 2
 * threads. Data from closed formulas that bench/peers/joinsort_leg.mjs
 * repeats in DuckDB SQL, so both sides see the same rows
 * (bench/joinsort.sh runs both):
 *   join 1M x 500k   probe k = i*2654435761 % 1e6, p1 = i, p2 = (i % 1000)/2;
 *                    build k = (g*2654435761 + 12345) % 1e6, b1 = g, b2 = g/4;
 *                    inner; "wide": both keys times 1000000007 (no direct table)
 *   H2O-like join    x (N rows, BASALT_BENCH_H2O_ROWS, default 1e7): id1 =
 *                    i*7 % 11 + 1, id2 = i*2654435761 % 11000 + 1, id3 =
 *                    i*2654435761 % (1.1 N) + 1, id5 = 'id' || id2, v1 = i % 100;
 *                    small (10 rows, id1), medium (N/1000 rows, id2, id5),
 *                    big (N rows, id3); q1 x JOIN small ON id1, q2 x JOIN
 *                    medium ON id2, q3 x LEFT JOIN medium ON id2, q4 x JOIN
 *                    medium ON id5 (string), q5 x JOIN big ON id3
 *   sort 1M          a = i*2654435761 % 1000 (int32), s = 'str' ||
 *                    (i*40503 % 100000), v = i; ORDER BY a, s
 *   top-10 of 10M    k = i*2654435761 % 1000000007, v = i; ORDER BY k LIMIT 10
 * Inputs are batches of 65536 rows (views of one table); the timed body is
 * build + probe (every output batch made and released), or consume +
 * finish. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/basalt.h"
#include "basalt/bench.h"
#include "join/join.h"
#include "sort/sort.h"

basalt_status bench_joinsort_register(struct basalt_bench *bench, struct basalt_error *err);

#define BATCH 65536

/* ------------------------------------------------------------------ tables */

struct table {
    struct ArrowSchema schema;
    struct ArrowArray array;
    int64_t rows;
    bool ready;
};

enum ckind { CK_I64, CK_I32, CK_F64, CK_STR };
typedef int64_t (*gen_fn)(int64_t i, int64_t n);

struct colspec {
    const char *name;
    enum ckind kind;
    gen_fn f;          /* I64/I32/STR: the integer (STR: the number after the prefix) */
    const char *prefix; /* STR */
};

static basalt_status make_column(const struct colspec *c, int64_t n, struct ArrowSchema *s,
                                 struct ArrowArray *a, struct basalt_error *err)
{
    static const char *const fmts[] = {"l", "i", "g", "u"};
    basalt_status st = basalt_arrow_schema_init(s, fmts[c->kind], c->name, 0, 0, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_array_init(a, c->kind == CK_STR ? 3 : 2, 0, err);
    if (st != BASALT_OK)
        return st;
    a->length = n;
    void *mem;
    if (c->kind == CK_STR) {
        st = basalt_arrow_array_allocate_buffer(a, 1, (size_t)(n + 1) * 4, &mem, err);
        int32_t *off = mem;
        size_t plen = strlen(c->prefix);
        void *dmem = NULL;
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(a, 2, (size_t)n * (plen + 20), &dmem, err);
        if (st != BASALT_OK)
            return st;
        char *d = dmem;
        int64_t pos = 0;
        for (int64_t i = 0; i < n; i++) {
            off[i] = (int32_t)pos;
            memcpy(d + pos, c->prefix, plen);
            pos += (int64_t)plen;
            pos += sprintf(d + pos, "%lld", (long long)c->f(i, n));
        }
        off[n] = (int32_t)pos;
        return BASALT_OK;
    }
    size_t w = c->kind == CK_I32 ? 4 : 8;
    st = basalt_arrow_array_allocate_buffer(a, 1, (size_t)n * w, &mem, err);
    if (st != BASALT_OK)
        return st;
    for (int64_t i = 0; i < n; i++) {
        if (c->kind == CK_I64)
            ((int64_t *)mem)[i] = c->f(i, n);
        else if (c->kind == CK_I32)
            ((int32_t *)mem)[i] = (int32_t)c->f(i, n);
        else
            ((double *)mem)[i] = (double)c->f(i, n);
    }
    return BASALT_OK;
}

static basalt_status make_table(struct table *t, const struct colspec *cols, int nc, int64_t n,
                                struct basalt_error *err)
{
    if (t->ready)
        return BASALT_OK;
    basalt_status st = basalt_arrow_schema_init(&t->schema, "+s", "", 0, nc, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(&t->array, 1, nc, err);
    t->array.length = n;
    for (int c = 0; c < nc && st == BASALT_OK; c++)
        st = make_column(&cols[c], n, t->schema.children[c], t->array.children[c], err);
    t->rows = n;
    t->ready = st == BASALT_OK;
    return st;
}

/* A view of rows [lo, lo + n) of a table: moving or releasing it frees nothing. */
static void view_release(struct ArrowArray *a) { a->release = NULL; }

static void view(const struct table *t, int64_t lo, int64_t n, struct ArrowArray *out)
{
    *out = t->array;
    out->offset = lo;
    out->length = n;
    out->release = view_release;
    out->private_data = NULL;
}

static int64_t n_batches(const struct table *t) { return (t->rows + BATCH - 1) / BATCH; }

static void batch_view(const struct table *t, int64_t b, struct ArrowArray *out)
{
    int64_t lo = b * BATCH, n = t->rows - lo < BATCH ? t->rows - lo : BATCH;
    view(t, lo, n, out);
}

/* ------------------------------------------------------------------ formulas */

static int64_t f_id(int64_t i, int64_t n) { (void)n; return i; }
static int64_t f_pk(int64_t i, int64_t n) { (void)n; return (i * 2654435761LL) % 1000000; }
static int64_t f_bk(int64_t i, int64_t n) { (void)n; return (i * 2654435761LL + 12345) % 1000000; }
static int64_t f_pkw(int64_t i, int64_t n) { return f_pk(i, n) * 1000000007LL; }
static int64_t f_bkw(int64_t i, int64_t n) { return f_bk(i, n) * 1000000007LL; }
static int64_t f_half(int64_t i, int64_t n) { (void)n; return (i % 1000) / 2; }
static int64_t f_quarter(int64_t i, int64_t n) { (void)n; return i / 4; }
static int64_t f_id1(int64_t i, int64_t n) { (void)n; return i * 7 % 11 + 1; }
static int64_t f_id2(int64_t i, int64_t n) { (void)n; return (i * 2654435761LL) % 11000 + 1; }
static int64_t f_id3(int64_t i, int64_t n) { return (i * 2654435761LL) % (n + n / 10) + 1; }
static int64_t f_mod100(int64_t i, int64_t n) { (void)n; return i % 100; }
static int64_t f_plus1(int64_t i, int64_t n) { (void)n; return i + 1; }
static int64_t f_sa(int64_t i, int64_t n) { (void)n; return (i * 2654435761LL) % 1000; }
static int64_t f_ss(int64_t i, int64_t n) { (void)n; return (i * 40503) % 100000; }
static int64_t f_topk(int64_t i, int64_t n) { (void)n; return (i * 2654435761LL) % 1000000007LL; }

static struct table t_probe, t_build, t_probe_w, t_build_w, t_x, t_small, t_medium, t_big, t_sort,
    t_top;

static int64_t h2o_rows(void)
{
    const char *e = getenv("BASALT_BENCH_H2O_ROWS");
    int64_t n = e ? atoll(e) : 10000000;
    return n < 1000 ? 1000 : n;
}

static basalt_status tables_join(bool wide, struct basalt_error *err)
{
    const struct colspec p[] = {{"k", CK_I64, wide ? f_pkw : f_pk, NULL}, {"p1", CK_I64, f_id, NULL},
                                {"p2", CK_F64, f_half, NULL}};
    const struct colspec b[] = {{"k", CK_I64, wide ? f_bkw : f_bk, NULL}, {"b1", CK_I64, f_id, NULL},
                                {"b2", CK_F64, f_quarter, NULL}};
    basalt_status st = make_table(wide ? &t_probe_w : &t_probe, p, 3, 1000000, err);
    if (st == BASALT_OK)
        st = make_table(wide ? &t_build_w : &t_build, b, 3, 500000, err);
    return st;
}

static basalt_status tables_h2o(int q, struct basalt_error *err)
{
    int64_t n = h2o_rows();
    const struct colspec x[] = {{"id1", CK_I64, f_id1, NULL}, {"id2", CK_I64, f_id2, NULL},
                                {"id3", CK_I64, f_id3, NULL}, {"id5", CK_STR, f_id2, "id"},
                                {"v1", CK_F64, f_mod100, NULL}};
    const struct colspec small[] = {{"id1", CK_I64, f_plus1, NULL}, {"v2", CK_F64, f_id, NULL}};
    const struct colspec medium[] = {{"id2", CK_I64, f_plus1, NULL}, {"id5", CK_STR, f_plus1, "id"},
                                     {"v2", CK_F64, f_id, NULL}};
    const struct colspec big[] = {{"id3", CK_I64, f_plus1, NULL}, {"v2", CK_F64, f_id, NULL}};
    basalt_status st = make_table(&t_x, x, 5, n, err);
    if (st == BASALT_OK && q == 1)
        st = make_table(&t_small, small, 2, 10, err);
    if (st == BASALT_OK && q >= 2 && q <= 4)
        st = make_table(&t_medium, medium, 3, n / 1000, err);
    if (st == BASALT_OK && q == 5)
        st = make_table(&t_big, big, 2, n, err);
    return st;
}

/* ------------------------------------------------------------------ join body */

struct jcase {
    int workload; /* 0: 1M x 500k, 1: wide, 2..6: H2O q1..q5 */
    int threads;
    struct basalt_pool *pool;
    struct table *probe, *build;
    enum basalt_qjoin_type type;
    int pk, bk;
    int64_t out_rows;
};

static basalt_status jsetup(void *ctx, struct basalt_error *err)
{
    struct jcase *c = ctx;
    basalt_status st;
    if (c->workload <= 1) {
        st = tables_join(c->workload == 1, err);
        c->probe = c->workload ? &t_probe_w : &t_probe;
        c->build = c->workload ? &t_build_w : &t_build;
        c->pk = c->bk = 0;
        c->type = BASALT_QJOIN_INNER;
    } else {
        int q = c->workload - 1;
        st = tables_h2o(q, err);
        c->probe = &t_x;
        c->build = q == 1 ? &t_small : q == 5 ? &t_big : &t_medium;
        c->pk = q == 1 ? 0 : q == 4 ? 3 : q == 5 ? 2 : 1;
        c->bk = q == 4 ? 1 : 0;
        c->type = q == 3 ? BASALT_QJOIN_LEFT : BASALT_QJOIN_INNER;
    }
    if (st == BASALT_OK && c->threads > 1)
        st = basalt_pool_new(c->threads - 1, &c->pool, err);
    return st;
}

static void jteardown(void *ctx)
{
    struct jcase *c = ctx;
    basalt_pool_free(c->pool);
    c->pool = NULL;
}

struct jrun {
    struct jcase *c;
    struct basalt_qjoin *j;
    struct basalt_qjoin_build_local **bl;
    struct basalt_qjoin_probe_local **pl;
    basalt_status st[64];
    int64_t rows[64];
    struct basalt_error err[64];
};

static void build_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct jrun *r = ctx;
    for (int64_t b = begin; b < end; b++) {
        struct ArrowArray a;
        batch_view(r->c->build, b, &a);
        basalt_status st = basalt_qjoin_build_consume(r->bl[worker], &a, b, &r->err[worker]);
        if (st != BASALT_OK)
            r->st[worker] = st;
    }
}

static void probe_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct jrun *r = ctx;
    for (int64_t b = begin; b < end; b++) {
        struct ArrowArray a;
        batch_view(r->c->probe, b, &a);
        struct basalt_arrow_batches out;
        basalt_arrow_batches_init(&out);
        basalt_status st = basalt_qjoin_probe(r->pl[worker], &a, &out, &r->err[worker]);
        if (st != BASALT_OK)
            r->st[worker] = st;
        for (int64_t i = 0; i < out.n; i++)
            r->rows[worker] += out.arrays[i].length;
        basalt_arrow_batches_reset(&out);
    }
}

static basalt_status jrun(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct jcase *c = ctx;
    int w = c->threads;
    for (uint64_t it = 0; it < iters; it++) {
        struct basalt_qjoin_spec spec = {c->type, &c->probe->schema, &c->build->schema, &c->pk,
                                         &c->bk, 1, NULL, NULL, 0, NULL, 0};
        struct jrun r;
        memset(&r, 0, sizeof r);
        r.c = c;
        struct basalt_qjoin_build_local *bl[64] = {NULL};
        struct basalt_qjoin_probe_local *pl[64] = {NULL};
        r.bl = bl;
        r.pl = pl;
        basalt_status st = basalt_qjoin_new(&spec, &r.j, err);
        for (int i = 0; i < w && st == BASALT_OK; i++)
            st = basalt_qjoin_build_local_new(r.j, &bl[i], err);
        if (st == BASALT_OK) {
            basalt_pool_parallel_for(c->pool, 0, n_batches(c->build), 1, build_task, &r);
            for (int i = 0; i < w && st == BASALT_OK; i++)
                if ((st = r.st[i]) != BASALT_OK && err)
                    *err = r.err[i];
        }
        if (st == BASALT_OK)
            st = basalt_qjoin_build_finish(r.j, bl, w, c->pool, err);
        for (int i = 0; i < w && st == BASALT_OK; i++)
            st = basalt_qjoin_probe_local_new(r.j, &pl[i], err);
        if (st == BASALT_OK) {
            basalt_pool_parallel_for(c->pool, 0, n_batches(c->probe), 1, probe_task, &r);
            for (int i = 0; i < w && st == BASALT_OK; i++)
                if ((st = r.st[i]) != BASALT_OK && err)
                    *err = r.err[i];
        }
        int64_t rows = 0;
        for (int i = 0; i < w; i++) {
            rows += r.rows[i];
            basalt_qjoin_build_local_free(bl[i]);
            basalt_qjoin_probe_local_free(pl[i]);
        }
        basalt_qjoin_free(r.j);
        if (st != BASALT_OK)
            return st;
        if (c->out_rows == 0)
            c->out_rows = rows;
        else if (c->out_rows != rows)
            return basalt_error_set(err, BASALT_INTERNAL, "join gave %lld rows, earlier %lld",
                                    (long long)rows, (long long)c->out_rows);
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ sort body */

struct scase {
    bool topk;
    int threads;
    struct basalt_pool *pool;
    struct table *t;
    int64_t out_rows;
};

static basalt_status ssetup(void *ctx, struct basalt_error *err)
{
    struct scase *c = ctx;
    basalt_status st;
    if (c->topk) {
        const struct colspec cols[] = {{"k", CK_I64, f_topk, NULL}, {"v", CK_F64, f_id, NULL}};
        st = make_table(&t_top, cols, 2, 10000000, err);
        c->t = &t_top;
    } else {
        const struct colspec cols[] = {{"a", CK_I32, f_sa, NULL}, {"s", CK_STR, f_ss, "str"},
                                       {"v", CK_F64, f_id, NULL}};
        st = make_table(&t_sort, cols, 3, 1000000, err);
        c->t = &t_sort;
    }
    if (st == BASALT_OK && c->threads > 1)
        st = basalt_pool_new(c->threads - 1, &c->pool, err);
    return st;
}

static void steardown(void *ctx)
{
    struct scase *c = ctx;
    basalt_pool_free(c->pool);
    c->pool = NULL;
}

struct srun {
    struct scase *c;
    struct basalt_qsort_local **l;
    basalt_status st[64];
    struct basalt_error err[64];
};

static void consume_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct srun *r = ctx;
    for (int64_t b = begin; b < end; b++) {
        struct ArrowArray a;
        batch_view(r->c->t, b, &a);
        basalt_status st = basalt_qsort_consume(r->l[worker], &a, b, &r->err[worker]);
        if (st != BASALT_OK)
            r->st[worker] = st;
    }
}

static basalt_status srun(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct scase *c = ctx;
    int w = c->threads;
    const struct basalt_qsort_key two[2] = {{0, false, false}, {1, false, false}};
    const struct basalt_qsort_key one[1] = {{0, false, false}};
    for (uint64_t it = 0; it < iters; it++) {
        struct basalt_qsort *s = NULL;
        struct basalt_qsort_local *l[64] = {NULL};
        struct srun r;
        memset(&r, 0, sizeof r);
        r.c = c;
        r.l = l;
        basalt_status st = basalt_qsort_new(&c->t->schema, c->topk ? one : two, c->topk ? 1 : 2,
                                            c->topk ? 10 : -1, 0, &s, err);
        for (int i = 0; i < w && st == BASALT_OK; i++)
            st = basalt_qsort_local_new(s, &l[i], err);
        if (st == BASALT_OK) {
            basalt_pool_parallel_for(c->pool, 0, n_batches(c->t), 1, consume_task, &r);
            for (int i = 0; i < w && st == BASALT_OK; i++)
                if ((st = r.st[i]) != BASALT_OK && err)
                    *err = r.err[i];
        }
        struct basalt_arrow_batches out;
        basalt_arrow_batches_init(&out);
        if (st == BASALT_OK)
            st = basalt_qsort_finish(s, l, w, c->pool, &out, err);
        int64_t rows = 0;
        for (int64_t i = 0; i < out.n; i++)
            rows += out.arrays[i].length;
        basalt_arrow_batches_reset(&out);
        for (int i = 0; i < w; i++)
            basalt_qsort_local_free(l[i]);
        basalt_qsort_free(s);
        if (st != BASALT_OK)
            return st;
        c->out_rows = rows;
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ registration */

static struct jcase jc[7][2];
static struct scase sc[2][2];

basalt_status bench_joinsort_register(struct basalt_bench *bench, struct basalt_error *err)
{
    static const char *const jnames[7] = {"1m_x_500k", "1m_x_500k_wide", "h2o_q1_small",
                                          "h2o_q2_medium", "h2o_q3_medium_left",
                                          "h2o_q4_medium_string", "h2o_q5_big"};
    static char names[7 + 2][2][64];
    double h2o = (double)h2o_rows();
    for (int w = 0; w < 7; w++)
        for (int t = 0; t < 2; t++) {
            jc[w][t].workload = w;
            jc[w][t].threads = t + 1;
            snprintf(names[w][t], sizeof names[w][t], "query/join/%s/%dt", jnames[w], t + 1);
            struct basalt_bench_case bc = {
                .name = names[w][t], .peer = "basalt_qjoin build + probe (output gathered)",
                .run = jrun, .setup = jsetup, .teardown = jteardown, .ctx = &jc[w][t],
                .items_per_iter = w <= 1 ? 1e6 : h2o, .threads = t + 1};
            basalt_status st = basalt_bench_add(bench, &bc, err);
            if (st != BASALT_OK)
                return st;
        }
    static const char *const snames[2] = {"1m_int_string", "top10_of_10m"};
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < 2; t++) {
            sc[k][t].topk = k == 1;
            sc[k][t].threads = t + 1;
            snprintf(names[7 + k][t], sizeof names[7 + k][t], "query/sort/%s/%dt", snames[k], t + 1);
            struct basalt_bench_case bc = {
                .name = names[7 + k][t], .peer = "basalt_qsort consume + finish (output gathered)",
                .run = srun, .setup = ssetup, .teardown = steardown, .ctx = &sc[k][t],
                .items_per_iter = k ? 1e7 : 1e6, .threads = t + 1};
            basalt_status st = basalt_bench_add(bench, &bc, err);
            if (st != BASALT_OK)
                return st;
        }
    return BASALT_OK;
}
