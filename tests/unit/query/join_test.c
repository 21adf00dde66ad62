/* The hash join with hand-written expected rows: every join type (SEMI and
 * ANTI turned around too) with NULL keys, duplicates, empty sides, residual conditions (a LEFT row whose
 * candidates all fail keeps its probe row with NULLs), multi-column and
 * string keys, DuckDB's float equality (-0.0 = 0.0, NaN = NaN); the table
 * kinds proven by counters; a nested-loop oracle written here for random
 * inputs; identical output for 1, 2 and 4 workers and any batch split. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "join/join.h"
#include "joinsort_util.h"
#include "test.h"

struct side {
    struct ArrowSchema schema;
    struct ArrowArray array;
};

struct jopts {
    enum basalt_qjoin_type type;
    const int *pk, *bk;
    int nk;
    const struct basalt_query_program *residual;
    int workers;   /* 1, 2, 4 */
    int64_t split; /* rows per batch (0: one batch) */
    struct basalt_qjoin_stats stats;
    const int *res_cols; /* the columns the residual reads (NULL: all) */
    int n_res_cols;
    const int *out_cols; /* the output's columns (NULL: all) */
    int n_out_cols;
};

struct probe_ctx {
    struct basalt_qjoin *j;
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

static int64_t slices(const struct side *s, int64_t split, struct ArrowArray **out)
{
    int64_t n = s->array.length, step = split > 0 ? split : (n ? n : 1);
    int64_t nb = n == 0 ? 1 : (n + step - 1) / step;
    *out = calloc((size_t)nb, sizeof **out);
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * step, hi = lo + step < n ? lo + step : n;
        js_slice(&s->schema, &s->array, lo, hi, &(*out)[b]);
    }
    return nb;
}

/* Runs the join (build batches spread over the workers' locals in a
 * rotating order, probe batches on a pool) and renders probe output then
 * unmatched rows. NULL on failure (message printed). */
static char *run_join(const struct side *p, const struct side *b, struct jopts *o, bool sorted)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_qjoin_spec spec = {o->type, &p->schema, &b->schema, o->pk, o->bk, o->nk, o->residual, o->res_cols, o->n_res_cols, o->out_cols, o->n_out_cols};
    struct basalt_qjoin *j = NULL;
    struct basalt_pool *pool = NULL;
    char *res = NULL;
    if (basalt_qjoin_new(&spec, &j, &err) != BASALT_OK) {
        fprintf(stderr, "join_new: %s\n", err.message);
        return NULL;
    }
    if (o->workers > 1)
        basalt_pool_new(o->workers - 1, &pool, &err);
    int w = o->workers;
    struct basalt_qjoin_build_local *bl[4] = {NULL};
    for (int i = 0; i < w; i++)
        basalt_qjoin_build_local_new(j, &bl[i], &err);
    struct ArrowArray *bb;
    int64_t nbb = slices(b, o->split, &bb);
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < nbb && st == BASALT_OK; i++)
        st = basalt_qjoin_build_consume(bl[(i * 7 + 3) % w], &bb[i], i, &err);
    if (st == BASALT_OK)
        st = basalt_qjoin_build_finish(j, bl, w, pool, &err);
    for (int i = 0; i < w; i++)
        basalt_qjoin_build_local_free(bl[i]);
    free(bb);
    struct ArrowArray *pb;
    int64_t npb = slices(p, o->split, &pb);
    struct basalt_qjoin_probe_local *pl[4] = {NULL};
    struct basalt_arrow_batches *outs = calloc((size_t)npb + 1, sizeof *outs);
    basalt_status *sts = calloc((size_t)npb, sizeof *sts);
    for (int64_t i = 0; i <= npb; i++)
        basalt_arrow_batches_init(&outs[i]);
    if (st == BASALT_OK) {
        for (int i = 0; i < w && st == BASALT_OK; i++)
            st = basalt_qjoin_probe_local_new(j, &pl[i], &err);
        struct probe_ctx x = {j, pl, pb, outs, sts};
        if (st == BASALT_OK)
            basalt_pool_parallel_for(pool, 0, npb, 1, probe_task, &x);
        for (int64_t i = 0; i < npb && st == BASALT_OK; i++)
            st = sts[i];
        if (st == BASALT_OK)
            st = basalt_qjoin_unmatched(j, &outs[npb], &err);
    }
    if (st == BASALT_OK) {
        /* All outputs into one list, in probe batch order. */
        struct basalt_arrow_batches all;
        basalt_arrow_batches_init(&all);
        basalt_qjoin_output_schema(j, &all.schema, &err);
        for (int64_t i = 0; i <= npb; i++)
            for (int64_t k = 0; k < outs[i].n; k++)
                basalt_arrow_batches_append(&all, &outs[i].arrays[k], &err);
        res = js_render(&all, sorted);
        basalt_arrow_batches_reset(&all);
    } else {
        fprintf(stderr, "join: %s %s\n", basalt_status_name(st), err.message);
    }
    basalt_qjoin_stats(j, &o->stats);
    for (int64_t i = 0; i <= npb; i++)
        basalt_arrow_batches_reset(&outs[i]);
    for (int64_t i = 0; i < npb; i++)
        basalt_arrow_array_release(&pb[i]);
    free(pb);
    free(outs);
    free(sts);
    for (int i = 0; i < w; i++)
        basalt_qjoin_probe_local_free(pl[i]);
    basalt_qjoin_free(j);
    basalt_pool_free(pool);
    return res;
}

/* The join under every worker count and several splits must give one answer. */
static char *run_all(const struct side *p, const struct side *b, struct jopts *o)
{
    static const int workers[] = {1, 2, 4};
    static const int64_t splits[] = {0, 1, 2, 3, 7};
    char *first = NULL;
    for (int wi = 0; wi < 3; wi++) {
        for (int si = 0; si < 5; si++) {
            o->workers = workers[wi];
            o->split = splits[si];
            char *r = run_join(p, b, o, false);
            if (!r) {
                free(first);
                return NULL;
            }
            if (!first) {
                first = r;
                continue;
            }
            if (strcmp(first, r) != 0) {
                fprintf(stderr, "workers %d split %lld differ:\n%s---\n%s", workers[wi],
                        (long long)splits[si], first, r);
                free(r);
                free(first);
                return NULL;
            }
            free(r);
        }
    }
    o->workers = 1;
    o->split = 0;
    return first;
}

static const char *const probe_cells[] = {"1", "p1", "2", "p2", "NULL", "pn", "2", "p2b", "5", "p5"};
static const char *const build_cells[] = {"2", "b2", "1", "b1", "2", "b2x", "NULL", "bn", "7", "b7"};

static void sides(struct side *p, struct side *b)
{
    js_table("l,u", "k,a", probe_cells, 5, &p->schema, &p->array);
    js_table("l,u", "k,b", build_cells, 5, &b->schema, &b->array);
}

static void release(struct side *s)
{
    basalt_arrow_array_release(&s->array);
    basalt_arrow_schema_release(&s->schema);
}

#define EXPECT_JOIN(P, B, O, EXPECTED)                                                    \
    do {                                                                                  \
        char *got_ = run_all((P), (B), (O));                                              \
        CHECK_MSG(got_, "join failed");                                                   \
        if (strcmp(got_, (EXPECTED)) != 0) {                                              \
            bt_fail(__FILE__, __LINE__, "got:\n%sexpected:\n%s", got_, (EXPECTED));       \
            free(got_);                                                                   \
            return;                                                                       \
        }                                                                                 \
        free(got_);                                                                       \
    } while (0)

static const int K0[] = {0}, K1[] = {1};

TEST(join_types_null_keys_duplicates)
{
    struct side p, b;
    sides(&p, &b);
    struct jopts o = {BASALT_QJOIN_INNER, K0, K0, 1, NULL, 1, 0, {0}, NULL, 0, NULL, 0};
    const char *inner = "1|p1|1|b1\n2|p2|2|b2\n2|p2|2|b2x\n2|p2b|2|b2\n2|p2b|2|b2x\n";
    EXPECT_JOIN(&p, &b, &o, inner);
    CHECK_EQ(o.stats.table, BASALT_QJOIN_TABLE_DIRECT);
    CHECK(o.stats.direct_lookups == 5);
    o.type = BASALT_QJOIN_LEFT;
    EXPECT_JOIN(&p, &b, &o,
                "1|p1|1|b1\n2|p2|2|b2\n2|p2|2|b2x\nNULL|pn|NULL|NULL\n2|p2b|2|b2\n2|p2b|2|b2x\n"
                "5|p5|NULL|NULL\n");
    o.type = BASALT_QJOIN_RIGHT;
    EXPECT_JOIN(&p, &b, &o,
                "1|p1|1|b1\n2|p2|2|b2\n2|p2|2|b2x\n2|p2b|2|b2\n2|p2b|2|b2x\n"
                "NULL|NULL|NULL|bn\nNULL|NULL|7|b7\n");
    o.type = BASALT_QJOIN_FULL;
    EXPECT_JOIN(&p, &b, &o,
                "1|p1|1|b1\n2|p2|2|b2\n2|p2|2|b2x\nNULL|pn|NULL|NULL\n2|p2b|2|b2\n2|p2b|2|b2x\n"
                "5|p5|NULL|NULL\nNULL|NULL|NULL|bn\nNULL|NULL|7|b7\n");
    o.type = BASALT_QJOIN_SEMI;
    EXPECT_JOIN(&p, &b, &o, "1|p1\n2|p2\n2|p2b\n");
    o.type = BASALT_QJOIN_ANTI;
    EXPECT_JOIN(&p, &b, &o, "NULL|pn\n5|p5\n");
    /* Turned around: the build rows some probe matches (each once, in
     * build order), and those none does (the NULL key among them). */
    o.type = BASALT_QJOIN_RIGHT_SEMI;
    EXPECT_JOIN(&p, &b, &o, "2|b2\n1|b1\n2|b2x\n");
    o.type = BASALT_QJOIN_RIGHT_ANTI;
    EXPECT_JOIN(&p, &b, &o, "NULL|bn\n7|b7\n");
    /* Output schema nullability follows the join type. */
    struct basalt_qjoin_spec spec = {BASALT_QJOIN_RIGHT, &p.schema, &b.schema, K0, K0, 1, NULL, NULL, 0, NULL, 0};
    struct basalt_qjoin *j;
    CHECK_OK(basalt_qjoin_new(&spec, &j, NULL), NULL);
    struct ArrowSchema os;
    CHECK_OK(basalt_qjoin_output_schema(j, &os, NULL), NULL);
    CHECK_EQ(os.n_children, 4);
    CHECK_STR(os.children[3]->name, "b");
    CHECK(os.children[0]->flags & ARROW_FLAG_NULLABLE);
    basalt_arrow_schema_release(&os);
    basalt_qjoin_free(j);
    spec.type = BASALT_QJOIN_RIGHT_ANTI; /* build columns only */
    CHECK_OK(basalt_qjoin_new(&spec, &j, NULL), NULL);
    CHECK_OK(basalt_qjoin_output_schema(j, &os, NULL), NULL);
    CHECK_EQ(os.n_children, 2);
    CHECK_STR(os.children[1]->name, "b");
    basalt_arrow_schema_release(&os);
    basalt_qjoin_free(j);
    release(&p);
    release(&b);
}

TEST(join_cross)
{
    struct side p, b;
    sides(&p, &b);
    struct jopts o = {BASALT_QJOIN_CROSS, NULL, NULL, 0, NULL, 1, 0, {0}, NULL, 0, NULL, 0};
    char *r = run_all(&p, &b, &o);
    CHECK(r);
    int lines = 0;
    for (char *c = r; *c; c++)
        lines += *c == '\n';
    bool head = strncmp(r, "1|p1|2|b2\n1|p1|1|b1\n1|p1|2|b2x\n1|p1|NULL|bn\n1|p1|7|b7\n2|p2|2|b2\n", 60) == 0;
    free(r);
    CHECK_EQ(lines, 25);
    CHECK(head);
    release(&p);
    release(&b);
}

TEST(join_empty_sides)
{
    struct side p, b, e;
    sides(&p, &b);
    js_table("l,u", "k,b", NULL, 0, &e.schema, &e.array);
    struct jopts o = {BASALT_QJOIN_INNER, K0, K0, 1, NULL, 1, 0, {0}, NULL, 0, NULL, 0};
    EXPECT_JOIN(&p, &e, &o, "");
    o.type = BASALT_QJOIN_LEFT;
    EXPECT_JOIN(&p, &e, &o,
                "1|p1|NULL|NULL\n2|p2|NULL|NULL\nNULL|pn|NULL|NULL\n2|p2b|NULL|NULL\n5|p5|NULL|NULL\n");
    o.type = BASALT_QJOIN_ANTI;
    EXPECT_JOIN(&p, &e, &o, "1|p1\n2|p2\nNULL|pn\n2|p2b\n5|p5\n");
    o.type = BASALT_QJOIN_SEMI;
    EXPECT_JOIN(&p, &e, &o, "");
    /* Empty probe: RIGHT gives every build row from unmatched. */
    struct side ep;
    js_table("l,u", "k,a", NULL, 0, &ep.schema, &ep.array);
    o.type = BASALT_QJOIN_RIGHT;
    EXPECT_JOIN(&ep, &b, &o,
                "NULL|NULL|2|b2\nNULL|NULL|1|b1\nNULL|NULL|2|b2x\nNULL|NULL|NULL|bn\nNULL|NULL|7|b7\n");
    o.type = BASALT_QJOIN_INNER;
    EXPECT_JOIN(&ep, &b, &o, "");
    release(&p);
    release(&b);
    release(&e);
    release(&ep);
}

/* probe columns then build columns: b.b (column 3) > 'b1', or a.a (1) <> 'p2'. */
static struct basalt_query_program *residual(const struct side *p, const struct side *b, int col,
                                             const char *op, const char *lit)
{
    struct ArrowSchema s;
    int64_t np = p->schema.n_children, nb = b->schema.n_children;
    basalt_arrow_schema_init(&s, "+s", "", 0, np + nb, NULL);
    for (int64_t c = 0; c < np + nb; c++)
        basalt_arrow_schema_copy(c < np ? p->schema.children[c] : b->schema.children[c - np],
                                 s.children[c], NULL);
    struct basalt_qexpr_builder *qb;
    struct basalt_qexpr *x, *k, *e, *args[2];
    struct basalt_query_program *prog = NULL;
    basalt_qexpr_builder_new(&s, &qb, NULL);
    basalt_qexpr_column(qb, col, &x, NULL);
    basalt_qexpr_string(qb, lit, strlen(lit), &k, NULL);
    args[0] = x;
    args[1] = k;
    if (basalt_qexpr_call(qb, op, args, 2, &e, NULL) == BASALT_OK)
        basalt_query_compile(qb, &e, 1, NULL, &prog, NULL);
    basalt_qexpr_builder_free(qb);
    basalt_arrow_schema_release(&s);
    return prog;
}

TEST(join_residual)
{
    struct side p, b;
    sides(&p, &b);
    struct basalt_query_program *r = residual(&p, &b, 3, ">", "b1");
    CHECK(r);
    struct jopts o = {BASALT_QJOIN_LEFT, K0, K0, 1, r, 1, 0, {0}, NULL, 0, NULL, 0};
    /* p1's only candidate (b1) fails: p1 stays with NULLs. */
    EXPECT_JOIN(&p, &b, &o,
                "1|p1|NULL|NULL\n2|p2|2|b2\n2|p2|2|b2x\nNULL|pn|NULL|NULL\n2|p2b|2|b2\n2|p2b|2|b2x\n"
                "5|p5|NULL|NULL\n");
    CHECK(o.stats.residual_pairs == 5);
    o.type = BASALT_QJOIN_INNER;
    EXPECT_JOIN(&p, &b, &o, "2|p2|2|b2\n2|p2|2|b2x\n2|p2b|2|b2\n2|p2b|2|b2x\n");
    o.type = BASALT_QJOIN_SEMI;
    EXPECT_JOIN(&p, &b, &o, "2|p2\n2|p2b\n");
    o.type = BASALT_QJOIN_ANTI;
    EXPECT_JOIN(&p, &b, &o, "1|p1\nNULL|pn\n5|p5\n");
    /* b1 matched no pair that passed: it is unmatched for RIGHT. */
    o.type = BASALT_QJOIN_RIGHT;
    EXPECT_JOIN(&p, &b, &o,
                "2|p2|2|b2\n2|p2|2|b2x\n2|p2b|2|b2\n2|p2b|2|b2x\nNULL|NULL|1|b1\nNULL|NULL|NULL|bn\n"
                "NULL|NULL|7|b7\n");
    basalt_query_program_free(r);
    /* A residual on a probe column: a <> 'p2'. */
    r = residual(&p, &b, 1, "<>", "p2");
    o.residual = r;
    o.type = BASALT_QJOIN_FULL;
    EXPECT_JOIN(&p, &b, &o,
                "1|p1|1|b1\n2|p2|NULL|NULL\nNULL|pn|NULL|NULL\n2|p2b|2|b2\n2|p2b|2|b2x\n5|p5|NULL|NULL\n"
                "NULL|NULL|NULL|bn\nNULL|NULL|7|b7\n");
    /* CROSS with a residual. */
    o.type = BASALT_QJOIN_CROSS;
    o.nk = 0;
    o.pk = o.bk = NULL;
    basalt_query_program_free(r);
    r = residual(&p, &b, 3, "=", "b7");
    o.residual = r;
    EXPECT_JOIN(&p, &b, &o, "1|p1|7|b7\n2|p2|7|b7\nNULL|pn|7|b7\n2|p2b|7|b7\n5|p5|7|b7\n");
    basalt_query_program_free(r);
    release(&p);
    release(&b);
}

/* A residual compiled over only some columns of the output row, in the
 * order `cols` lists them (probe columns then build columns): `col` of
 * those compared with a string. */
static struct basalt_query_program *narrow_residual(const struct side *p, const struct side *b,
                                                    const int *cols, int n, int col,
                                                    const char *op, const char *lit)
{
    struct ArrowSchema s;
    int64_t np = p->schema.n_children;
    basalt_arrow_schema_init(&s, "+s", "", 0, n, NULL);
    for (int i = 0; i < n; i++)
        basalt_arrow_schema_copy(cols[i] < np ? p->schema.children[cols[i]]
                                              : b->schema.children[cols[i] - np],
                                 s.children[i], NULL);
    struct basalt_qexpr_builder *qb;
    struct basalt_qexpr *x, *k, *e, *args[2];
    struct basalt_query_program *prog = NULL;
    basalt_qexpr_builder_new(&s, &qb, NULL);
    basalt_qexpr_column(qb, col, &x, NULL);
    basalt_qexpr_string(qb, lit, strlen(lit), &k, NULL);
    args[0] = x;
    args[1] = k;
    if (basalt_qexpr_call(qb, op, args, 2, &e, NULL) == BASALT_OK)
        basalt_query_compile(qb, &e, 1, NULL, &prog, NULL);
    basalt_qexpr_builder_free(qb);
    basalt_arrow_schema_release(&s);
    return prog;
}

/* The same answers as join_residual with the residual reading only the
 * columns it names: the candidates' other columns are gathered only for
 * the pairs that pass. */
TEST(join_residual_reads_named_columns)
{
    struct side p, b;
    sides(&p, &b);
    static const int only_b[] = {3}, b_then_a[] = {3, 1}, bad[] = {4};
    struct basalt_query_program *r = narrow_residual(&p, &b, only_b, 1, 0, ">", "b1");
    CHECK(r);
    struct jopts o = {BASALT_QJOIN_INNER, K0, K0, 1, r, 1, 0, {0}, only_b, 1, NULL, 0};
    EXPECT_JOIN(&p, &b, &o, "2|p2|2|b2\n2|p2|2|b2x\n2|p2b|2|b2\n2|p2b|2|b2x\n");
    CHECK(o.stats.residual_pairs == 5);
    o.type = BASALT_QJOIN_LEFT;
    EXPECT_JOIN(&p, &b, &o,
                "1|p1|NULL|NULL\n2|p2|2|b2\n2|p2|2|b2x\nNULL|pn|NULL|NULL\n2|p2b|2|b2\n2|p2b|2|b2x\n"
                "5|p5|NULL|NULL\n");
    /* split into batches of 2 rows on 4 workers: the same rows */
    o.type = BASALT_QJOIN_INNER;
    o.workers = 4;
    o.split = 2;
    EXPECT_JOIN(&p, &b, &o, "2|p2|2|b2\n2|p2|2|b2x\n2|p2b|2|b2\n2|p2b|2|b2x\n");
    o.workers = 1;
    o.split = 0;
    basalt_query_program_free(r);
    /* two columns, the build one first: a (the second) <> 'p2' */
    r = narrow_residual(&p, &b, b_then_a, 2, 1, "<>", "p2");
    o.residual = r;
    o.res_cols = b_then_a;
    o.n_res_cols = 2;
    EXPECT_JOIN(&p, &b, &o, "1|p1|1|b1\n2|p2b|2|b2\n2|p2b|2|b2x\n");
    o.type = BASALT_QJOIN_FULL;
    EXPECT_JOIN(&p, &b, &o,
                "1|p1|1|b1\n2|p2|NULL|NULL\nNULL|pn|NULL|NULL\n2|p2b|2|b2\n2|p2b|2|b2x\n5|p5|NULL|NULL\n"
                "NULL|NULL|NULL|bn\nNULL|NULL|7|b7\n");
    basalt_query_program_free(r);
    /* CROSS: every pair a candidate, b = 'b7' over b alone */
    r = narrow_residual(&p, &b, only_b, 1, 0, "=", "b7");
    o = (struct jopts){BASALT_QJOIN_CROSS, NULL, NULL, 0, r, 1, 0, {0}, only_b, 1, NULL, 0};
    EXPECT_JOIN(&p, &b, &o, "1|p1|7|b7\n2|p2|7|b7\nNULL|pn|7|b7\n2|p2b|7|b7\n5|p5|7|b7\n");
    CHECK(o.stats.residual_pairs == 25);
    /* a column past the output row is refused when the join is made */
    struct basalt_qjoin_spec spec = {BASALT_QJOIN_INNER, &p.schema, &b.schema, K0, K0, 1, r, bad, 1, NULL, 0};
    struct basalt_qjoin *j = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK(basalt_qjoin_new(&spec, &j, &err) == BASALT_INVALID_ARG);
    CHECK(j == NULL);
    CHECK(strstr(err.message, "residual column 4 out of range") != NULL);
    basalt_query_program_free(r);
    release(&p);
    release(&b);
}

/* The output narrowed to the columns named (indices into the type's own
 * output row, in the order given): the same rows with only those columns,
 * NULL-extended ones included; none at all leaves rows without columns. */
TEST(join_output_columns)
{
    struct side p, b;
    sides(&p, &b);
    static const int b_then_a[] = {3, 1}, a_then_b[] = {1, 3}, first[] = {0}, second[] = {1},
                     third[] = {2}, only_b[] = {3}, none[] = {0}, past[] = {4}, past_semi[] = {2};
    struct jopts o = {BASALT_QJOIN_INNER, K0, K0, 1, NULL, 1, 0, {0}, NULL, 0, b_then_a, 2};
    EXPECT_JOIN(&p, &b, &o, "b1|p1\nb2|p2\nb2x|p2\nb2|p2b\nb2x|p2b\n");
    o.type = BASALT_QJOIN_LEFT;
    o.out_cols = a_then_b;
    EXPECT_JOIN(&p, &b, &o, "p1|b1\np2|b2\np2|b2x\npn|NULL\np2b|b2\np2b|b2x\np5|NULL\n");
    /* RIGHT and FULL: the unmatched build rows' probe columns are NULL */
    o.type = BASALT_QJOIN_RIGHT;
    o.out_cols = third;
    o.n_out_cols = 1;
    EXPECT_JOIN(&p, &b, &o, "1\n2\n2\n2\n2\nNULL\n7\n");
    o.type = BASALT_QJOIN_FULL;
    o.out_cols = first;
    EXPECT_JOIN(&p, &b, &o, "1\n2\n2\nNULL\n2\n2\n5\nNULL\nNULL\n");
    /* SEMI and ANTI index the probe columns, RIGHT_SEMI the build's */
    o.type = BASALT_QJOIN_SEMI;
    o.out_cols = second;
    EXPECT_JOIN(&p, &b, &o, "p1\np2\np2b\n");
    o.type = BASALT_QJOIN_RIGHT_SEMI;
    EXPECT_JOIN(&p, &b, &o, "b2\nb1\nb2x\n");
    o.type = BASALT_QJOIN_ANTI;
    o.out_cols = none;
    o.n_out_cols = 0;
    EXPECT_JOIN(&p, &b, &o, "\n\n");
    o.type = BASALT_QJOIN_FULL;
    EXPECT_JOIN(&p, &b, &o, "\n\n\n\n\n\n\n\n\n");
    /* a residual reads its columns inside the join: b > 'b1', a alone out */
    struct basalt_query_program *r = narrow_residual(&p, &b, only_b, 1, 0, ">", "b1");
    CHECK(r);
    o = (struct jopts){BASALT_QJOIN_INNER, K0, K0, 1, r, 1, 0, {0}, only_b, 1, second, 1};
    EXPECT_JOIN(&p, &b, &o, "p2\np2\np2b\np2b\n");
    o.type = BASALT_QJOIN_LEFT;
    EXPECT_JOIN(&p, &b, &o, "p1\np2\np2\npn\np2b\np2b\np5\n");
    /* CROSS with nothing read above: 25 rows without columns */
    o = (struct jopts){BASALT_QJOIN_CROSS, NULL, NULL, 0, NULL, 1, 0, {0}, NULL, 0, none, 0};
    char *rows = run_all(&p, &b, &o);
    CHECK(rows != NULL && strlen(rows) == 25 && strspn(rows, "\n") == 25);
    free(rows);
    /* the schema: the named columns, an outer side's nullable */
    struct basalt_qjoin_spec spec = {BASALT_QJOIN_LEFT, &p.schema, &b.schema, K0, K0, 1,
                                     NULL, NULL, 0, only_b, 1};
    struct basalt_qjoin *j = NULL;
    CHECK_OK(basalt_qjoin_new(&spec, &j, NULL), NULL);
    struct ArrowSchema os;
    CHECK_OK(basalt_qjoin_output_schema(j, &os, NULL), NULL);
    CHECK_EQ(os.n_children, 1);
    CHECK_STR(os.children[0]->name, "b");
    CHECK(os.children[0]->flags & ARROW_FLAG_NULLABLE);
    basalt_arrow_schema_release(&os);
    basalt_qjoin_free(j);
    /* a column past the type's output row is refused */
    struct basalt_error err;
    basalt_error_init(&err);
    spec.output_columns = past;
    j = NULL;
    CHECK(basalt_qjoin_new(&spec, &j, &err) == BASALT_INVALID_ARG && j == NULL);
    CHECK(strstr(err.message, "output column 4 out of range") != NULL);
    spec.type = BASALT_QJOIN_SEMI;
    spec.output_columns = past_semi;
    CHECK(basalt_qjoin_new(&spec, &j, &err) == BASALT_INVALID_ARG && j == NULL);
    CHECK(strstr(err.message, "output column 2 out of range") != NULL);
    basalt_query_program_free(r);
    release(&p);
    release(&b);
}

TEST(join_multi_key_strings_floats)
{
    static const char *const pc[] = {"a", "-0", "x1", "a", "nan", "x2", "b", "1", "x3",
                                     "NULL", "1", "x4", "a", "0", "x5", "c", "NULL", "x6"};
    static const char *const bc[] = {"a", "0", "y1", "a", "nan", "y2", "b", "2", "y3",
                                     "c", "1", "y4", "a", "-0", "y5", "NULL", "1", "y6"};
    struct side p, b;
    js_table("u,g,u", "s,d,a", pc, 6, &p.schema, &p.array);
    js_table("U,g,u", "s,d,b", bc, 6, &b.schema, &b.array);
    static const int pk[] = {0, 1}, bk[] = {0, 1};
    struct jopts o = {BASALT_QJOIN_INNER, pk, bk, 2, NULL, 1, 0, {0}, NULL, 0, NULL, 0};
    EXPECT_JOIN(&p, &b, &o,
                "a|-0|x1|a|0|y1\na|-0|x1|a|-0|y5\na|nan|x2|a|nan|y2\na|0|x5|a|0|y1\na|0|x5|a|-0|y5\n");
    CHECK_EQ(o.stats.table, BASALT_QJOIN_TABLE_HASHED);
    CHECK(o.stats.hashed_lookups == 6);
    /* One string key. */
    o.nk = 1;
    o.type = BASALT_QJOIN_SEMI;
    EXPECT_JOIN(&p, &b, &o, "a|-0|x1\na|nan|x2\nb|1|x3\na|0|x5\nc|NULL|x6\n");
    /* One double key: NaN = NaN, -0.0 = 0.0; NULL never matches. */
    o.pk = K1;
    o.bk = K1;
    o.type = BASALT_QJOIN_ANTI;
    EXPECT_JOIN(&p, &b, &o, "c|NULL|x6\n");
    release(&p);
    release(&b);
}

TEST(join_integer_tables)
{
    /* Keys spread over 2^40: the integer table, not the direct one; int32 and date keys. */
    static const char *const pc[] = {"1099511627776", "7", "-5", "1099511627776", "NULL", "3"};
    static const char *const bc[] = {"-5", "1099511627776", "9", "1099511627776"};
    struct side p, b;
    js_table("l", "k", pc, 6, &p.schema, &p.array);
    js_table("l", "k", bc, 4, &b.schema, &b.array);
    struct jopts o = {BASALT_QJOIN_LEFT, K0, K0, 1, NULL, 1, 0, {0}, NULL, 0, NULL, 0};
    EXPECT_JOIN(&p, &b, &o,
                "1099511627776|1099511627776\n1099511627776|1099511627776\n7|NULL\n-5|-5\n"
                "1099511627776|1099511627776\n1099511627776|1099511627776\nNULL|NULL\n3|NULL\n");
    CHECK_EQ(o.stats.table, BASALT_QJOIN_TABLE_INTEGER);
    CHECK(o.stats.integer_lookups == 6 && o.stats.direct_lookups == 0);
    release(&p);
    release(&b);
    static const char *const dc[] = {"19000", "19001", "NULL", "18990"};
    static const char *const ec[] = {"19001", "18990", "18990"};
    js_table("tdD", "d", dc, 4, &p.schema, &p.array);
    js_table("tdD", "d", ec, 3, &b.schema, &b.array);
    o.type = BASALT_QJOIN_INNER;
    EXPECT_JOIN(&p, &b, &o, "2022-01-09|2022-01-09\n2021-12-29|2021-12-29\n2021-12-29|2021-12-29\n");
    CHECK_EQ(o.stats.table, BASALT_QJOIN_TABLE_DIRECT);
    release(&p);
    release(&b);
    /* Unique build keys: the direct table keeps one row per key. */
    static const char *const uc[] = {"5", "3", "9", "NULL", "4", "-2"};
    static const char *const vc[] = {"4", "8", "NULL", "-2", "9", "4", "10"};
    js_table("s", "k", uc, 6, &b.schema, &b.array);
    js_table("s", "k", vc, 7, &p.schema, &p.array);
    o.type = BASALT_QJOIN_LEFT;
    EXPECT_JOIN(&p, &b, &o, "4|4\n8|NULL\nNULL|NULL\n-2|-2\n9|9\n4|4\n10|NULL\n");
    CHECK_EQ(o.stats.table, BASALT_QJOIN_TABLE_DIRECT);
    CHECK(o.stats.direct_unique);
    o.type = BASALT_QJOIN_RIGHT;
    EXPECT_JOIN(&p, &b, &o, "4|4\n-2|-2\n9|9\n4|4\nNULL|5\nNULL|3\nNULL|NULL\n");
    release(&p);
    release(&b);
    /* Mismatched key types are refused. */
    js_table("i", "k", NULL, 0, &p.schema, &p.array);
    js_table("l", "k", NULL, 0, &b.schema, &b.array);
    struct basalt_qjoin_spec spec = {BASALT_QJOIN_INNER, &p.schema, &b.schema, K0, K0, 1, NULL, NULL, 0, NULL, 0};
    struct basalt_qjoin *j = NULL;
    struct basalt_error err;
    CHECK_STATUS(basalt_qjoin_new(&spec, &j, &err), BASALT_UNSUPPORTED, &err);
    spec.n_keys = 0;
    CHECK_STATUS(basalt_qjoin_new(&spec, &j, &err), BASALT_INVALID_ARG, &err);
    release(&p);
    release(&b);
}

/* ------------------------------------------------------------------ random vs nested loops */

static const char *cell(const char *const *cells, int nc, int r, int c) { return cells[r * nc + c]; }

/* The same join by nested loops over the text cells (NULL never equal; the
 * cells are canonical so text equality is value equality). */
static char *oracle(const char *const *pc, int pn, const char *const *bc, int bn, int nc,
                    int nk, enum basalt_qjoin_type type)
{
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    s[0] = 0;
    char *bm = calloc((size_t)bn + 1, 1);
#define APPEND(...)                                                                        \
    do {                                                                                   \
        char line_[512];                                                                   \
        size_t l_ = (size_t)snprintf(line_, sizeof line_, __VA_ARGS__);                    \
        while (len + l_ + 1 > cap)                                                         \
            s = realloc(s, cap *= 2);                                                      \
        memcpy(s + len, line_, l_ + 1);                                                    \
        len += l_;                                                                         \
    } while (0)
    for (int i = 0; i < pn; i++) {
        int hits = 0;
        for (int g = 0; g < bn; g++) {
            bool eq = true;
            for (int k = 0; k < nk && eq; k++)
                eq = strcmp(cell(pc, nc, i, k), "NULL") != 0 &&
                     strcmp(cell(pc, nc, i, k), cell(bc, nc, g, k)) == 0;
            if (!eq)
                continue;
            hits++;
            bm[g] = 1;
            if (type == BASALT_QJOIN_SEMI || type == BASALT_QJOIN_ANTI)
                continue;
            APPEND("%s|%s|%s|%s|%s|%s\n", cell(pc, nc, i, 0), cell(pc, nc, i, 1), cell(pc, nc, i, 2),
                   cell(bc, nc, g, 0), cell(bc, nc, g, 1), cell(bc, nc, g, 2));
        }
        if (type == BASALT_QJOIN_SEMI && hits)
            APPEND("%s|%s|%s\n", cell(pc, nc, i, 0), cell(pc, nc, i, 1), cell(pc, nc, i, 2));
        if (type == BASALT_QJOIN_ANTI && !hits)
            APPEND("%s|%s|%s\n", cell(pc, nc, i, 0), cell(pc, nc, i, 1), cell(pc, nc, i, 2));
        if ((type == BASALT_QJOIN_LEFT || type == BASALT_QJOIN_FULL) && !hits)
            APPEND("%s|%s|%s|NULL|NULL|NULL\n", cell(pc, nc, i, 0), cell(pc, nc, i, 1),
                   cell(pc, nc, i, 2));
    }
    if (type == BASALT_QJOIN_RIGHT || type == BASALT_QJOIN_FULL)
        for (int g = 0; g < bn; g++)
            if (!bm[g])
                APPEND("NULL|NULL|NULL|%s|%s|%s\n", cell(bc, nc, g, 0), cell(bc, nc, g, 1),
                       cell(bc, nc, g, 2));
#undef APPEND
    free(bm);
    return s;
}

static char **random_cells(struct bt_rng *rng, int rows, int kind, int tag)
{
    char **c = calloc((size_t)rows * 3, sizeof *c);
    for (int r = 0; r < rows; r++) {
        char buf[64];
        for (int k = 0; k < 2; k++) {
            uint64_t x = bt_rng_below(rng, 40);
            if (bt_rng_below(rng, 10) == 0)
                snprintf(buf, sizeof buf, "NULL");
            else if (kind == 0)
                snprintf(buf, sizeof buf, "%d", (int)x - 10);
            else if (kind == 1)
                snprintf(buf, sizeof buf, "%lld", (long long)((int64_t)x * 1000000007LL * 1000003LL - 7));
            else
                snprintf(buf, sizeof buf, "s%llu%s", (unsigned long long)x, x % 3 ? "" : "-long-tail-text");
            c[r * 3 + k] = strdup(buf);
        }
        snprintf(buf, sizeof buf, "%c%d", tag, r);
        c[r * 3 + 2] = strdup(buf);
    }
    return c;
}

static void free_cells(char **c, int rows)
{
    for (int i = 0; i < rows * 3; i++)
        free(c[i]);
    free(c);
}

TEST(join_random_against_nested_loops)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    static const enum basalt_query_type_id dummy = BASALT_QUERY_TYPE_INT64;
    (void)dummy;
    static const char *const fmts[] = {"l,l,u", "l,l,u", "u,u,u"};
    static const enum basalt_qjoin_table tables[] = {BASALT_QJOIN_TABLE_DIRECT,
                                                      BASALT_QJOIN_TABLE_INTEGER,
                                                      BASALT_QJOIN_TABLE_HASHED};
    for (int kind = 0; kind < 3; kind++) {
        for (int nk = 1; nk <= 2; nk++) {
            int pn = 300 + (int)bt_rng_below(&rng, 100), bn = 200 + (int)bt_rng_below(&rng, 100);
            char **pc = random_cells(&rng, pn, kind, 'p'), **bc = random_cells(&rng, bn, kind, 'b');
            struct side p, b;
            CHECK_OK(js_table(fmts[kind], "k1,k2,a", (const char *const *)pc, pn, &p.schema, &p.array), NULL);
            CHECK_OK(js_table(fmts[kind], "k1,k2,b", (const char *const *)bc, bn, &b.schema, &b.array), NULL);
            static const int pk[] = {0, 1};
            for (int t = BASALT_QJOIN_INNER; t <= BASALT_QJOIN_ANTI; t++) {
                struct jopts o = {(enum basalt_qjoin_type)t, pk, pk, nk, NULL, 1, 0, {0}, NULL, 0, NULL, 0};
                char *want = oracle((const char *const *)pc, pn, (const char *const *)bc, bn, 3, nk,
                                    (enum basalt_qjoin_type)t);
                static const int workers[] = {1, 2, 4};
                static const int64_t splits[] = {0, 64, 97};
                for (int v = 0; v < 3; v++) {
                    o.workers = workers[v];
                    o.split = splits[v];
                    char *got = run_join(&p, &b, &o, false);
                    bool same = got && strcmp(got, want) == 0;
                    if (!same)
                        fprintf(stderr, "kind %d keys %d type %d workers %d:\n--- got\n%.2000s--- want\n%.2000s",
                                kind, nk, t, o.workers, got ? got : "(failed)", want);
                    free(got);
                    CHECK(same);
                    CHECK_EQ(o.stats.table, nk == 2 ? BASALT_QJOIN_TABLE_HASHED : tables[kind]);
                }
                free(want);
            }
            /* Turned around: the build rows a SEMI or ANTI join of the
             * sides the other way would give. */
            for (int t = BASALT_QJOIN_RIGHT_SEMI; t <= BASALT_QJOIN_RIGHT_ANTI; t++) {
                struct jopts o = {(enum basalt_qjoin_type)t, pk, pk, nk, NULL, 2, 64, {0}, NULL, 0, NULL, 0};
                char *want = oracle((const char *const *)bc, bn, (const char *const *)pc, pn, 3, nk,
                                    t == BASALT_QJOIN_RIGHT_SEMI ? BASALT_QJOIN_SEMI
                                                                 : BASALT_QJOIN_ANTI);
                char *got = run_join(&p, &b, &o, false);
                bool same = got && strcmp(got, want) == 0;
                if (!same)
                    fprintf(stderr, "kind %d keys %d type %d:\n--- got\n%.2000s--- want\n%.2000s",
                            kind, nk, t, got ? got : "(failed)", want);
                free(got);
                free(want);
                CHECK(same);
            }
            release(&p);
            release(&b);
            free_cells(pc, pn);
            free_cells(bc, bn);
        }
    }
}
