/* Sort and top-k with hand-written expected orders (DuckDB's rules: NaN
 * after every number, -0.0 == 0.0, strings byte-wise, NULLs per key),
 * stability by input position, strings that tie on their 8-byte prefix,
 * top-k with offset; no keys (input order); a random comparison against a merge sort written here,
 * the same output for 1, 2 and 4 workers, any batch split and any
 * assignment of batches to locals; counters proving the radix path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joinsort_util.h"
#include "sort/sort.h"
#include "test.h"

struct sopts {
    const struct basalt_qsort_key *keys;
    int n_keys;
    int64_t limit, offset;
    int workers;
    int64_t split;
    uint64_t shuffle; /* 0: batches consumed in order; else a seed for the order */
    struct basalt_qsort_stats stats;
};

struct consume_ctx {
    struct basalt_qsort_local **locals;
    struct ArrowArray *batches;
    const int64_t *order;
    int workers;
    basalt_status *st;
};

/* Worker w consumes the batches at positions w, w + workers, ... of `order`. */
static void consume_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct consume_ctx *x = ctx;
    for (int64_t w = begin; w < end; w++) {
        int64_t n = x->order[0];
        for (int64_t k = w; k < n; k += x->workers) {
            int64_t b = x->order[1 + k];
            x->st[b] = basalt_qsort_consume(x->locals[w], &x->batches[b], b, NULL);
        }
    }
}

static char *run_sort(const struct ArrowSchema *schema, const struct ArrowArray *table, struct sopts *o)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_qsort *s = NULL;
    if (basalt_qsort_new(schema, o->keys, o->n_keys, o->limit, o->offset, &s, &err) != BASALT_OK) {
        fprintf(stderr, "qsort_new: %s\n", err.message);
        return NULL;
    }
    struct basalt_pool *pool = NULL;
    if (o->workers > 1)
        basalt_pool_new(o->workers - 1, &pool, NULL);
    int64_t n = table->length, step = o->split > 0 ? o->split : (n ? n : 1);
    int64_t nb = n == 0 ? 1 : (n + step - 1) / step;
    struct ArrowArray *bs = calloc((size_t)nb, sizeof *bs);
    int64_t *order = malloc((size_t)(nb + 1) * sizeof *order);
    basalt_status *sts = calloc((size_t)nb, sizeof *sts);
    order[0] = nb;
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * step, hi = lo + step < n ? lo + step : n;
        js_slice(schema, table, lo, hi, &bs[b]);
        order[1 + b] = b;
    }
    if (o->shuffle) {
        struct bt_rng rng;
        bt_rng_seed(&rng, o->shuffle);
        for (int64_t b = nb - 1; b > 0; b--) {
            int64_t j = (int64_t)bt_rng_below(&rng, (uint64_t)b + 1), t = order[1 + b];
            order[1 + b] = order[1 + j];
            order[1 + j] = t;
        }
    }
    struct basalt_qsort_local *locals[4] = {NULL};
    for (int w = 0; w < o->workers; w++)
        basalt_qsort_local_new(s, &locals[w], NULL);
    struct consume_ctx x = {locals, bs, order, o->workers, sts};
    basalt_pool_parallel_for(pool, 0, o->workers, 1, consume_task, &x);
    basalt_status st = BASALT_OK;
    for (int64_t b = 0; b < nb && st == BASALT_OK; b++)
        st = sts[b];
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    if (st == BASALT_OK)
        st = basalt_qsort_finish(s, locals, o->workers, pool, &out, &err);
    char *res = NULL;
    if (st == BASALT_OK) {
        bool small = true;
        for (int64_t i = 0; i < out.n; i++)
            small &= out.arrays[i].length <= 65536;
        res = small ? js_render(&out, false) : NULL;
        if (!small)
            fprintf(stderr, "an output batch over 65536 rows\n");
    } else {
        fprintf(stderr, "sort: %s %s\n", basalt_status_name(st), err.message);
    }
    basalt_qsort_stats(s, &o->stats);
    basalt_arrow_batches_reset(&out);
    for (int w = 0; w < o->workers; w++)
        basalt_qsort_local_free(locals[w]);
    free(bs);
    free(order);
    free(sts);
    basalt_qsort_free(s);
    basalt_pool_free(pool);
    return res;
}

static char *run_all(const struct ArrowSchema *schema, const struct ArrowArray *table, struct sopts *o)
{
    static const int workers[] = {1, 2, 4};
    static const int64_t splits[] = {0, 1, 3, 4};
    char *first = NULL;
    for (int wi = 0; wi < 3; wi++)
        for (int si = 0; si < 4; si++)
            for (uint64_t sh = 0; sh < 2; sh++) {
                o->workers = workers[wi];
                o->split = splits[si];
                o->shuffle = sh * 77;
                char *r = run_sort(schema, table, o);
                if (!r) {
                    free(first);
                    return NULL;
                }
                if (!first) {
                    first = r;
                    continue;
                }
                bool same = strcmp(first, r) == 0;
                if (!same)
                    fprintf(stderr, "workers %d split %lld shuffle %d differ:\n%s---\n%s",
                            workers[wi], (long long)splits[si], (int)sh, first, r);
                free(r);
                if (!same) {
                    free(first);
                    return NULL;
                }
            }
    return first;
}

#define EXPECT_SORT(SCHEMA, TABLE, O, EXPECTED)                                           \
    do {                                                                                  \
        char *got_ = run_all((SCHEMA), (TABLE), (O));                                     \
        CHECK_MSG(got_, "sort failed");                                                   \
        if (strcmp(got_, (EXPECTED)) != 0) {                                              \
            bt_fail(__FILE__, __LINE__, "got:\n%sexpected:\n%s", got_, (EXPECTED));       \
            free(got_);                                                                   \
            return;                                                                       \
        }                                                                                 \
        free(got_);                                                                       \
    } while (0)

/* d: doubles with NaN, -0.0, inf, NULL; i: ints with NULL; s: strings tying
 * on their first 8 bytes; t: the input position. */
static const char *const cells[] = {
    "1.5", "3", "prefix__b", "0",
    "nan", "NULL", "prefix__a", "1",
    "-0", "3", "prefix__", "2",
    "NULL", "-7", "prefix__a", "3",
    "0", "3", "b", "4",
    "-inf", "9223372036854775807", "NULL", "5",
    "inf", "-9223372036854775808", "prefix__b", "6",
    "nan", "0", "", "7",
    "-2", "NULL", "prefix__ab", "8",
};

static void table(struct ArrowSchema *s, struct ArrowArray *a)
{
    js_table("g,l,u,i", "d,i,s,t", cells, 9, s, a);
}

TEST(sort_doubles_nan_negative_zero_nulls)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    table(&s, &a);
    struct basalt_qsort_key k = {0, false, false};
    struct sopts o = {&k, 1, -1, 0, 1, 0, 0, {0}};
    /* -0.0 and 0.0 tie: input order; NaN after inf; NULL last. */
    EXPECT_SORT(&s, &a, &o,
                "-inf|9223372036854775807|NULL|5\n-2|NULL|prefix__ab|8\n-0|3|prefix__|2\n0|3|b|4\n"
                "1.5|3|prefix__b|0\ninf|-9223372036854775808|prefix__b|6\nnan|NULL|prefix__a|1\n"
                "nan|0||7\nNULL|-7|prefix__a|3\n");
    CHECK(o.stats.rows_sorted == 9 && o.stats.key_words == 2);
    k.descending = true;
    k.nulls_first = true;
    EXPECT_SORT(&s, &a, &o,
                "NULL|-7|prefix__a|3\nnan|NULL|prefix__a|1\nnan|0||7\ninf|-9223372036854775808|prefix__b|6\n"
                "1.5|3|prefix__b|0\n-0|3|prefix__|2\n0|3|b|4\n-2|NULL|prefix__ab|8\n"
                "-inf|9223372036854775807|NULL|5\n");
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(sort_strings_past_prefix_and_multi_key)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    table(&s, &a);
    /* s ASC NULLS FIRST, then i DESC NULLS LAST: the keys after a string are
     * decided on full values when the prefixes tie. */
    struct basalt_qsort_key k[2] = {{2, false, true}, {1, true, false}};
    struct sopts o = {k, 2, -1, 0, 1, 0, 0, {0}};
    EXPECT_SORT(&s, &a, &o,
                "-inf|9223372036854775807|NULL|5\nnan|0||7\n0|3|b|4\n-0|3|prefix__|2\n"
                "NULL|-7|prefix__a|3\nnan|NULL|prefix__a|1\n-2|NULL|prefix__ab|8\n"
                "1.5|3|prefix__b|0\ninf|-9223372036854775808|prefix__b|6\n");
    /* Every string fits a whole-value prefix: no full comparisons. */
    CHECK(o.stats.tie_compares == 0);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    /* Strings over 32 bytes get a 16-byte prefix and a full-value tail, the
     * key after them compared on values too. */
#define L "0123456789abcdefghijklmnopqrstuvwxyz-"
    static const char *const long_cells[] = {L "b", "1", "0", L "a", "5", "1", L "a", "3", "2",
                                             L, "9", "3", "short", "0", "4"};
    js_table("u,l,i", "s,i,t", long_cells, 5, &s, &a);
    struct basalt_qsort_key k2[2] = {{0, false, false}, {1, true, false}};
    struct sopts o2 = {k2, 2, -1, 0, 1, 0, 0, {0}};
    EXPECT_SORT(&s, &a, &o2, L "|9|3\n" L "a|5|1\n" L "a|3|2\n" L "b|1|0\nshort|0|4\n");
    CHECK(o2.stats.tie_compares > 0);
#undef L
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(sort_ints_desc_and_topk)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    table(&s, &a);
    struct basalt_qsort_key k[2] = {{1, true, true}, {3, true, false}};
    struct sopts o = {k, 2, -1, 0, 1, 0, 0, {0}};
    const char *full =
        "-2|NULL|prefix__ab|8\nnan|NULL|prefix__a|1\n-inf|9223372036854775807|NULL|5\n"
        "0|3|b|4\n-0|3|prefix__|2\n1.5|3|prefix__b|0\nnan|0||7\nNULL|-7|prefix__a|3\n"
        "inf|-9223372036854775808|prefix__b|6\n";
    EXPECT_SORT(&s, &a, &o, full);
    o.limit = 3;
    o.offset = 2;
    EXPECT_SORT(&s, &a, &o, "-inf|9223372036854775807|NULL|5\n0|3|b|4\n-0|3|prefix__|2\n");
    o.limit = 0;
    EXPECT_SORT(&s, &a, &o, "");
    o.limit = 100;
    o.offset = 8;
    EXPECT_SORT(&s, &a, &o, "inf|-9223372036854775808|prefix__b|6\n");
    o.offset = 9;
    EXPECT_SORT(&s, &a, &o, "");
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* No keys: every row ties, so the rows come out in input order (the
 * window without PARTITION BY or ORDER BY sorts its input so under a memory
 * limit), whatever the workers, batch splits and consumption order. */
TEST(sort_without_keys_keeps_input_order)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    table(&s, &a);
    struct basalt_qsort_key none[1];
    struct sopts o = {none, 0, -1, 0, 1, 0, 0, {0}};
    const char *input =
        "1.5|3|prefix__b|0\nnan|NULL|prefix__a|1\n-0|3|prefix__|2\nNULL|-7|prefix__a|3\n"
        "0|3|b|4\n-inf|9223372036854775807|NULL|5\ninf|-9223372036854775808|prefix__b|6\n"
        "nan|0||7\n-2|NULL|prefix__ab|8\n";
    EXPECT_SORT(&s, &a, &o, input);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* A top-k whose first k rows come from k different batches holds those
 * rows, not the batches: LIMIT 100 over 300 batches of 4096 rows, each
 * batch bringing one row better than all before it, ends holding a few
 * batches' worth of memory (100 whole batches before the candidates were
 * copied into one), and gives the 100 best rows in order. */
TEST(sort_topk_holds_its_rows_not_their_batches)
{
    enum { BATCHES = 300, ROWS = 4096, K = 100 };
    struct basalt_error err;
    basalt_error_init(&err);
    struct ArrowSchema schema;
    struct basalt_qsort_key key = {0, false, false};
    struct basalt_qsort *s = NULL;
    struct basalt_qsort_local *l = NULL;
    int64_t base = 0, one_batch = 0;
    for (int b = 0; b < BATCHES; b++) {
        int64_t start = basalt_alloc_bytes();
        struct basalt_arrow_builder *root, *kc, *pc;
        CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
        CHECK_OK(basalt_arrow_builder_add_child(root, "l", "k", 0, &kc, &err), &err);
        CHECK_OK(basalt_arrow_builder_add_child(root, "u", "p", 0, &pc, &err), &err);
        for (int r = 0; r < ROWS; r++) {
            char text[48];
            snprintf(text, sizeof text, "payload-of-batch-%d-row-%d", b, r);
            CHECK_OK(basalt_arrow_builder_append_int(kc, r == 0 ? -b : 1000000 + r, &err), &err);
            CHECK_OK(basalt_arrow_builder_append_string(pc, text, &err), &err);
            CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
        }
        struct ArrowArray batch;
        struct ArrowSchema sch;
        CHECK_OK(basalt_arrow_builder_finish(root, &sch, &batch, &err), &err);
        basalt_arrow_builder_free(root);
        if (b == 0) {
            schema = sch;
            one_batch = basalt_alloc_bytes() - start;
            CHECK_OK(basalt_qsort_new(&schema, &key, 1, K, 0, &s, &err), &err);
            CHECK_OK(basalt_qsort_local_new(s, &l, &err), &err);
            base = basalt_alloc_bytes() - one_batch;
        } else {
            basalt_arrow_schema_release(&sch);
        }
        CHECK_OK(basalt_qsort_consume(l, &batch, b, &err), &err);
    }
    int64_t held = basalt_alloc_bytes() - base;
    CHECK_MSG(held < 20 * one_batch, "%lld bytes held for %d rows (a batch is %lld)",
              (long long)held, K, (long long)one_batch);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_qsort_finish(s, &l, 1, NULL, &out, &err), &err);
    int64_t r = 0;
    for (int64_t b = 0; b < out.n; b++) {
        const struct ArrowArray *kcol = out.arrays[b].children[0];
        const int64_t *v = kcol->buffers[1];
        for (int64_t i = 0; i < kcol->length; i++, r++)
            CHECK_EQ(v[kcol->offset + i], -(int64_t)(BATCHES - 1 - r));
    }
    CHECK_EQ(r, K);
    basalt_arrow_batches_reset(&out);
    basalt_qsort_local_free(l);
    basalt_qsort_free(s);
    basalt_arrow_schema_release(&schema);
}

/* ------------------------------------------------------------------ random vs a merge sort */

/* Under AddressSanitizer the large per-configuration allocations make the
 * full size take minutes; the smaller table still spans many batches. */
#if defined(__SANITIZE_ADDRESS__)
#define RN 20000
#else
#define RN 150000
#endif
struct rrow {
    bool in, dn, sn; /* nulls */
    int32_t i;
    double d;
    char s[64];
    int32_t t;
    int32_t g; /* never NULL, many ties */
};
static struct rrow *rrows;
static const struct basalt_qsort_key *rkeys;
static int rnk;

static int dcmp(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y) ? 0 : isnan(x) ? 1 : -1;
    return x < y ? -1 : x > y;
}

static int rcmp(const struct rrow *a, const struct rrow *b)
{
    for (int k = 0; k < rnk; k++) {
        int col = rkeys[k].column, c;
        bool an = col == 0 ? a->in : col == 1 ? a->dn : col == 2 ? a->sn : false;
        bool bn = col == 0 ? b->in : col == 1 ? b->dn : col == 2 ? b->sn : false;
        if (an || bn) {
            if (an && bn)
                continue;
            return an ? (rkeys[k].nulls_first ? -1 : 1) : (rkeys[k].nulls_first ? 1 : -1);
        }
        if (col == 3)
            c = a->t < b->t ? -1 : a->t > b->t;
        else if (col == 4)
            c = a->g < b->g ? -1 : a->g > b->g;
        else if (col == 0)
            c = a->i < b->i ? -1 : a->i > b->i;
        else if (col == 1)
            c = dcmp(a->d, b->d);
        else
            c = strcmp(a->s, b->s);
        if (c)
            return rkeys[k].descending ? -c : c;
    }
    return a->t < b->t ? -1 : a->t > b->t;
}

static void msort(int32_t *ix, int32_t *tmp, int64_t n)
{
    if (n < 2)
        return;
    int64_t h = n / 2;
    msort(ix, tmp, h);
    msort(ix + h, tmp, n - h);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = rcmp(&rrows[ix[j]], &rrows[ix[i]]) < 0 ? ix[j++] : ix[i++];
    while (i < h)
        tmp[k++] = ix[i++];
    while (j < n)
        tmp[k++] = ix[j++];
    memcpy(ix, tmp, (size_t)n * sizeof *ix);
}

TEST(sort_random_against_merge_sort)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    rrows = calloc(RN, sizeof *rrows);
    struct basalt_arrow_builder *root, *c[4];
    basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    basalt_arrow_builder_add_child(root, "i", "i", ARROW_FLAG_NULLABLE, &c[0], NULL);
    basalt_arrow_builder_add_child(root, "g", "d", ARROW_FLAG_NULLABLE, &c[1], NULL);
    basalt_arrow_builder_add_child(root, "u", "s", ARROW_FLAG_NULLABLE, &c[2], NULL);
    basalt_arrow_builder_add_child(root, "i", "t", 0, &c[3], NULL);
    struct basalt_arrow_builder *cg;
    basalt_arrow_builder_add_child(root, "i", "g", 0, &cg, NULL);
    static const double specials[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.0};
    for (int r = 0; r < RN; r++) {
        struct rrow *x = &rrows[r];
        x->t = r;
        x->in = bt_rng_below(&rng, 20) == 0;
        x->i = (int32_t)bt_rng_below(&rng, 1000) - 500;
        x->dn = bt_rng_below(&rng, 20) == 0;
        x->d = bt_rng_below(&rng, 10) == 0 ? specials[bt_rng_below(&rng, 6)]
                                           : (double)((int64_t)bt_rng_below(&rng, 200000) - 100000) / 8;
        x->sn = bt_rng_below(&rng, 20) == 0;
        snprintf(x->s, sizeof x->s, "%s%llu", bt_rng_below(&rng, 2) ? "shared-prefix-longer-than-32-bytes-" : "",
                 (unsigned long long)bt_rng_below(&rng, 5000));
        if (x->in)
            basalt_arrow_builder_append_null(c[0], NULL);
        else
            basalt_arrow_builder_append_int(c[0], x->i, NULL);
        if (x->dn)
            basalt_arrow_builder_append_null(c[1], NULL);
        else
            basalt_arrow_builder_append_double(c[1], x->d, NULL);
        if (x->sn)
            basalt_arrow_builder_append_null(c[2], NULL);
        else
            basalt_arrow_builder_append_string(c[2], x->s, NULL);
        basalt_arrow_builder_append_int(c[3], r, NULL);
        x->g = (int32_t)bt_rng_below(&rng, 300) - 150;
        basalt_arrow_builder_append_int(cg, x->g, NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(root);
    static const struct basalt_qsort_key sets[][3] = {
        {{0, false, false}, {2, true, true}, {0, false, false}},
        {{2, false, false}, {1, true, false}, {0, false, true}},
        {{1, false, true}, {0, false, false}, {0, false, false}},
        {{4, true, false}, {1, false, true}, {0, false, false}},
        {{4, false, true}, {0, false, false}, {0, false, false}},
        /* NULLs first on a key the top-k's threshold prefilters (an integer
         * and a double, DESC and ASC): the prefilter adds the NULL rows to
         * its selection, which lost rows when done in place from the front */
        {{0, true, true}, {3, false, false}, {0, false, false}},
        {{1, false, true}, {3, true, false}, {0, false, false}},
    };
    static const int nks[] = {2, 3, 1, 2, 1, 2, 2};
    int32_t *ix = malloc(RN * sizeof *ix), *tmp = malloc(RN * sizeof *tmp);
    bool ok = true;
    for (int set = 0; set < 7 && ok; set++) {
        rkeys = sets[set];
        rnk = nks[set];
        for (int r = 0; r < RN; r++)
            ix[r] = r;
        msort(ix, tmp, RN);
        /* (RN / 8: more rows than the key has NULLs, so that the threshold
         * is a value, which the prefilter reads) */
        static const int64_t limits[] = {-1, 10, 5000, RN / 8};
        for (int li = 0; li < (set < 5 ? 3 : 4) && ok; li++) {
            int64_t limit = limits[li], offset = li == 2 ? 777 : 0;
            /* Expected text from the merge sort. */
            int64_t lo = limit < 0 ? 0 : offset, hi = limit < 0 ? RN : offset + limit;
            size_t cap = 128 * (size_t)(hi - lo) + 1, len = 0;
            char *want = malloc(cap);
            want[0] = 0;
            for (int64_t k = lo; k < hi; k++) {
                const struct rrow *x = &rrows[ix[k]];
                char d[64], i[32];
                if (x->dn)
                    snprintf(d, sizeof d, "NULL");
                else
                    snprintf(d, sizeof d, "%.17g", x->d);
                if (x->in)
                    snprintf(i, sizeof i, "NULL");
                else
                    snprintf(i, sizeof i, "%d", x->i);
                len += (size_t)snprintf(want + len, cap - len, "%s|%s|%s|%d|%d\n", i, d,
                                        x->sn ? "NULL" : x->s, x->t, x->g);
            }
            static const int workers[] = {1, 2, 4};
            static const int64_t splits[] = {0, 10000, 65536};
            for (int v = 0; v < 3 && ok; v++) {
                struct sopts o = {rkeys, rnk, limit, offset, workers[v], splits[v], (uint64_t)v * 5, {0}};
                char *got = run_sort(&s, &a, &o);
                ok = got && strcmp(got, want) == 0;
                if (!ok) {
                    size_t p = 0;
                    while (got && got[p] && got[p] == want[p])
                        p++;
                    fprintf(stderr, "set %d limit %lld workers %d: first difference at byte %zu:\n"
                            "got  %.200s\nwant %.200s\n", set, (long long)limit, workers[v], p,
                            got ? got + p : "(failed)", want + p);
                }
                if (ok && limit < 0)
                    ok = o.stats.radix_passes > 0 && o.stats.rows_sorted == RN;
                if (ok && limit == 10 && splits[v] == 10000 && RN >= 100000)
                    ok = o.stats.topk_dropped > RN / 2;
                if (!ok)
                    fprintf(stderr, "stats: sorted %lld passes %lld dropped %lld\n",
                            (long long)o.stats.rows_sorted, (long long)o.stats.radix_passes,
                            (long long)o.stats.topk_dropped);
                free(got);
            }
            free(want);
        }
    }
    free(ix);
    free(tmp);
    free(rrows);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    CHECK(ok);
}
