/* Joins: the build side collected in morsel order (so matches keep input
 * order whatever the worker count) into a table, the probe added to the
 * pipeline above; under a memory limit both sides spill by key partition
 * (grace hash join). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "join/join.h"
#include "plan/run_internal.h"
#include "spill/spill.h"

/* ------------------------------------------------------------------ spilled joins
 *
 * A grace hash join under a memory limit: while the build side is collected
 * each worker holds its batches; once memory in use passes a third of the
 * limit, every batch held and every batch after goes to 64 spill files by
 * the partition of its keys (basalt_qjoin_partition). The probe side's
 * pipeline is then run into 64 files the same way, and the join becomes a
 * source whose morsel p joins build partition p with probe partition p (a
 * table per partition; RIGHT and FULL add the partition's unmatched build
 * rows). Output comes partition by partition, so its order differs from the
 * in-memory join's (which follows the probe rows); the rows are the same.
 * A CROSS join (no keys) spills both sides whole into partition 0 and
 * joins them as a block nested loop: blocks of the build side that fit a
 * quarter of the limit, each joined with the whole probe side read again. */

/* 64 spill files that many workers write at once. */
struct part_files {
    struct ArrowSchema schema;
    const char *dir;
    struct basalt_qspill_file *files[BASALT_QSPILL_PARTS];
    pthread_mutex_t locks[BASALT_QSPILL_PARTS];
    bool locks_made;
    atomic_llong rows;
    int bits;  /* hash bits the rows were partitioned by before these files */
    int width; /* bits of the hash after those that pick the file: 1 to 6 */
};

static basalt_status pf_init(struct part_files *pf, const struct ArrowSchema *schema,
                             const char *dir, int bits, int width, struct basalt_error *err)
{
    memset(pf, 0, sizeof *pf);
    pf->dir = dir;
    pf->bits = bits;
    pf->width = width;
    atomic_init(&pf->rows, 0);
    for (int p = 0; p < BASALT_QSPILL_PARTS; p++)
        pthread_mutex_init(&pf->locks[p], NULL);
    pf->locks_made = true;
    return basalt_arrow_schema_copy(schema, &pf->schema, err);
}

static void pf_reset(struct part_files *pf)
{
    for (int p = 0; p < BASALT_QSPILL_PARTS; p++) {
        basalt_qspill_file_free(pf->files[p]);
        pf->files[p] = NULL;
        if (pf->locks_made)
            pthread_mutex_destroy(&pf->locks[p]);
    }
    pf->locks_made = false;
    if (pf->schema.release != NULL)
        basalt_arrow_schema_release(&pf->schema);
}

/* Writes batch's rows (borrowed) to the files of their partitions by keys. */
static basalt_status pf_write(struct part_files *pf, const struct ArrowArray *batch,
                              const int *keys, int n_keys, struct basalt_error *err)
{
    int64_t n = batch->length;
    uint8_t *part = basalt_malloc((size_t)n + 1);
    basalt_status st = part ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK && n_keys == 0)
        memset(part, 0, (size_t)n + 1); /* a CROSS join: every row meets every row */
    else if (st == BASALT_OK)
        st = basalt_qjoin_partition(&pf->schema, batch, keys, n_keys, pf->bits, part, err);
    for (int64_t i = 0; st == BASALT_OK && pf->width < 6 && i < n; i++)
        part[i] >>= 6 - pf->width;
    if (st == BASALT_OK)
        st = basalt_qspill_write_partitioned(&pf->schema, batch, part, n, pf->dir, pf->files,
                                             pf->locks, err);
    if (st == BASALT_OK)
        atomic_fetch_add(&pf->rows, n);
    basalt_free(part);
    return st;
}

/* Ends the writing (the writers' buffers go back) and counts the files. */
static basalt_status pf_seal(struct part_files *pf, struct basalt_qplan *node,
                             struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int p = 0; p < BASALT_QSPILL_PARTS && st == BASALT_OK; p++) {
        if (pf->files[p] == NULL)
            continue;
        node->spill_partitions++;
        node->spill_bytes += basalt_qspill_file_bytes(pf->files[p]);
        st = basalt_qspill_file_seal(pf->files[p], err);
    }
    node->spill_rows += atomic_load(&pf->rows);
    return st;
}

struct held {
    struct ArrowArray *arr;
    int64_t *seq;
    int64_t n, cap;
};

/* The build side's sink. */
struct jbuild_sink {
    struct qsink base;
    int64_t limit;
    const int *keys;
    int n_keys;
    struct held *held; /* per worker */
    int workers;
    atomic_bool spilling;
    struct part_files pf;
};

static basalt_status flush_held(struct jbuild_sink *s, struct held *h, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < h->n; i++) {
        if (st == BASALT_OK)
            st = pf_write(&s->pf, &h->arr[i], s->keys, s->n_keys, err);
        basalt_arrow_array_release(&h->arr[i]);
    }
    h->n = 0;
    return st;
}

static basalt_status jbuild_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                    struct ArrowArray *batch, struct basalt_error *err)
{
    (void)m;
    struct jbuild_sink *s = (struct jbuild_sink *)sink;
    struct held *h = &s->held[worker];
    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 16;
        struct ArrowArray *arr = basalt_realloc(h->arr, (size_t)cap * sizeof *arr);
        if (arr != NULL)
            h->arr = arr;
        int64_t *sq = arr ? basalt_realloc(h->seq, (size_t)cap * sizeof *sq) : NULL;
        if (sq == NULL) {
            basalt_arrow_array_release(batch);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        h->seq = sq;
        h->cap = cap;
    }
    h->seq[h->n] = seq;
    basalt_arrow_array_move(batch, &h->arr[h->n++]);
    if (!atomic_load(&s->spilling) && basalt_alloc_bytes() > s->limit / 3)
        atomic_store(&s->spilling, true);
    return atomic_load(&s->spilling) ? flush_held(s, h, err) : BASALT_OK;
}

static void held_free(struct held *h, int workers)
{
    for (int w = 0; h != NULL && w < workers; w++) {
        for (int64_t i = 0; i < h[w].n; i++)
            basalt_arrow_array_release(&h[w].arr[i]);
        basalt_free(h[w].arr);
        basalt_free(h[w].seq);
    }
    basalt_free(h);
}

static int by_first(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The build side: in memory, in input order, into `in`; or, past a third of
 * the limit, in 64 files (*spilled set, pf filled). */
static basalt_status collect_build(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                   struct basalt_arrow_batches *in, struct part_files *pf,
                                   bool *spilled, struct basalt_error *err)
{
    *spilled = false;
    struct jbuild_sink s;
    memset(&s, 0, sizeof s);
    s.base.consume = jbuild_consume;
    s.base.what = "HASH JOIN (build side)";
    s.limit = ctx->o.memory_limit;
    s.keys = node->right_keys;
    s.n_keys = node->n_join_keys;
    s.workers = basalt_qrun_workers(ctx);
    atomic_init(&s.spilling, false);
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    s.held = basalt_calloc((size_t)s.workers, sizeof *s.held);
    basalt_status st = s.held ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = pf_init(&s.pf, &node->child[1]->schema, ctx->o.spill_dir, 0, 6, err);
    if (st == BASALT_OK)
        st = basalt_qrun_open(ctx, node->child[1], &pl, err);
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &s.base, err);
    basalt_qpipeline_reset(&pl);
    if (st == BASALT_OK && atomic_load(&s.spilling)) {
        for (int w = 0; w < s.workers && st == BASALT_OK; w++)
            st = flush_held(&s, &s.held[w], err);
        if (st == BASALT_OK)
            st = pf_seal(&s.pf, node, err);
        if (st == BASALT_OK) {
            *pf = s.pf; /* the files and locks move */
            memset(&s.pf, 0, sizeof s.pf);
            *spilled = true;
        }
    } else if (st == BASALT_OK) {
        /* In input order, as basalt_qrun_collect_in_order gives it. */
        int64_t nb = 0;
        for (int w = 0; w < s.workers; w++)
            nb += s.held[w].n;
        int64_t *ord = basalt_malloc((size_t)(nb + 1) * 3 * sizeof *ord);
        if (ord == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        int64_t k = 0;
        for (int w = 0; w < s.workers && st == BASALT_OK; w++)
            for (int64_t i = 0; i < s.held[w].n; i++, k++) {
                ord[3 * k] = s.held[w].seq[i];
                ord[3 * k + 1] = w;
                ord[3 * k + 2] = i;
            }
        if (st == BASALT_OK)
            qsort(ord, (size_t)nb, 3 * sizeof *ord, by_first);
        if (st == BASALT_OK && in->schema.release == NULL)
            st = basalt_arrow_schema_copy(&node->child[1]->schema, &in->schema, err);
        for (k = 0; k < nb && st == BASALT_OK; k++)
            st = basalt_arrow_batches_append(in, &s.held[ord[3 * k + 1]].arr[ord[3 * k + 2]],
                                             err);
        basalt_free(ord);
    }
    held_free(s.held, s.workers);
    pf_reset(&s.pf);
    return st;
}

/* What the partitions' joins need. */
struct grace {
    struct basalt_qjoin_spec spec;
    struct basalt_query_program *residual;
    int *res_cols; /* spec.residual_columns */
    struct part_files build, probe;
    int64_t limit;
    struct basalt_qplan *node; /* counts the rows out */
    atomic_llong splits;       /* partitions split again (node->spill_splits at the end) */
    atomic_llong blocks;       /* a CROSS join's blocks (node->spill_blocks at the end) */
};

static void grace_free(void *p)
{
    struct grace *g = p;
    if (g == NULL)
        return;
    if (g->node != NULL) {
        g->node->spill_splits += atomic_load(&g->splits);
        g->node->spill_blocks += atomic_load(&g->blocks);
    }
    pf_reset(&g->build);
    pf_reset(&g->probe);
    basalt_query_program_free(g->residual);
    basalt_free(g->res_cols);
    basalt_free(g);
}

static basalt_status emit_all(struct basalt_qplan *node, struct basalt_arrow_batches *out,
                              int64_t m, int worker, qemit_fn emit, void *emit_ctx,
                              struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < out->n && st == BASALT_OK; i++) {
        atomic_fetch_add(&node->rows_out, out->arrays[i].length);
        st = emit(emit_ctx, worker, m, &out->arrays[i], err);
    }
    basalt_arrow_batches_reset(out);
    basalt_arrow_batches_init(out);
    return st;
}

/* How many times a partition is split again. A partition that stays too
 * big past that (one key for most rows) fails with LIMIT when its table
 * does not fit. */
#define JOIN_SPLITS_MAX 3

static basalt_status join_partition(struct grace *g, struct basalt_qspill_file *bf,
                                    struct basalt_qspill_file *pf, int used_bits, int splits,
                                    int64_t p, int worker, qemit_fn emit, void *emit_ctx,
                                    struct basalt_error *err);

/* Moves every batch of `from` (freed) into `to`'s partitions by `keys`. */
static basalt_status repartition(struct basalt_qspill_file *from, struct part_files *to,
                                 const int *keys, int n_keys, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    while (st == BASALT_OK && from != NULL) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(from, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = pf_write(to, &b, keys, n_keys, err);
        basalt_arrow_array_release(&b);
    }
    basalt_qspill_file_free(from);
    for (int q = 0; q < BASALT_QSPILL_PARTS && st == BASALT_OK; q++)
        if (to->files[q] != NULL)
            st = basalt_qspill_file_seal(to->files[q], err);
    return st;
}

/* Bytes of a spilled build partition past which it is split again: a
 * quarter of the limit (the test hook's budget when set). */
static int64_t split_budget(const struct grace *g)
{
    int64_t test = basalt_qspill_test_budget();
    return test > 0 ? test : g->limit / 4;
}

/* A spilled partition too big for a table: both sides split by the next
 * hash bits, into as many parts as bring the build side to half the budget
 * (2 to 64: every part is a file, and files cost), joined one after the
 * other. */
static basalt_status split_partition(struct grace *g, struct basalt_qspill_file *bf,
                                     struct basalt_qspill_file *pf, int used_bits, int splits,
                                     int64_t p, int worker, qemit_fn emit, void *emit_ctx,
                                     struct basalt_error *err)
{
    int width = 1;
    while (width < 6 && ((int64_t)1 << width) * split_budget(g) < 2 * basalt_qspill_file_bytes(bf))
        width++;
    struct part_files sb, sp;
    memset(&sp, 0, sizeof sp);
    basalt_status st = pf_init(&sb, &g->build.schema, g->build.dir, used_bits, width, err);
    if (st == BASALT_OK)
        st = pf_init(&sp, &g->probe.schema, g->probe.dir, used_bits, width, err);
    if (st == BASALT_OK) {
        atomic_fetch_add(&g->splits, 1);
        st = repartition(bf, &sb, g->spec.build_keys, g->spec.n_keys, err);
        bf = NULL;
    }
    if (st == BASALT_OK) {
        st = repartition(pf, &sp, g->spec.probe_keys, g->spec.n_keys, err);
        pf = NULL;
    }
    for (int q = 0; q < BASALT_QSPILL_PARTS && st == BASALT_OK; q++) {
        struct basalt_qspill_file *b = sb.files[q], *r = sp.files[q];
        sb.files[q] = sp.files[q] = NULL;
        st = join_partition(g, b, r, used_bits + width, splits + 1, p, worker, emit, emit_ctx,
                            err);
    }
    basalt_qspill_file_free(bf);
    basalt_qspill_file_free(pf);
    pf_reset(&sb);
    pf_reset(&sp);
    return st;
}

/* Output rows a CROSS join's block may give one probe row at most (the
 * slices of basalt_qrun_probe_slices cannot go below one probe row). */
#define PROBE_OUT_ROWS 65536

struct probe_emit_at {
    struct grace *g;
    struct basalt_qjoin_probe_local *pl;
    int64_t p;
    int worker;
    qemit_fn emit;
    void *emit_ctx;
};

static basalt_status probe_emit_slice(void *ctx, const struct ArrowArray *part,
                                      struct basalt_error *err)
{
    struct probe_emit_at *a = ctx;
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    basalt_status st = basalt_qjoin_probe(a->pl, part, &out, err);
    if (st == BASALT_OK)
        st = emit_all(a->g->node, &out, a->p, a->worker, a->emit, a->emit_ctx, err);
    basalt_arrow_batches_reset(&out);
    return st;
}

/* Probes with batch `b` (borrowed) and emits what it joins: a CROSS join
 * over build_rows rows in slices, as the pipeline's probes. */
static basalt_status probe_emit(struct grace *g, struct basalt_qjoin_probe_local *pl,
                                const struct ArrowArray *b, int64_t build_rows, int64_t p,
                                int worker, qemit_fn emit, void *emit_ctx,
                                struct basalt_error *err)
{
    struct probe_emit_at a = {g, pl, p, worker, emit, emit_ctx};
    double fanout = g->spec.type == BASALT_QJOIN_CROSS ? (double)build_rows : 1;
    return basalt_qrun_probe_slices(&g->probe.schema, b, fanout, probe_emit_slice, &a, err);
}

/* Joins one block of build rows (`block`, moved out) with every batch of
 * the probe file, read from its start. */
static basalt_status cross_block(struct grace *g, struct basalt_arrow_batches *block,
                                 int64_t block_rows, struct basalt_qspill_file *pf, int64_t p,
                                 int worker, qemit_fn emit, void *emit_ctx,
                                 struct basalt_error *err)
{
    struct basalt_qjoin *j = NULL;
    struct basalt_qjoin_build_local *bl = NULL;
    struct basalt_qjoin_probe_local *pl = NULL;
    basalt_status st = basalt_qjoin_new(&g->spec, &j, err);
    if (st == BASALT_OK)
        st = basalt_qjoin_build_local_new(j, &bl, err);
    for (int64_t i = 0; i < block->n && st == BASALT_OK; i++)
        st = basalt_qjoin_build_consume(bl, &block->arrays[i], i, err);
    basalt_arrow_batches_reset(block);
    basalt_arrow_batches_init(block);
    if (st == BASALT_OK)
        st = basalt_qjoin_build_finish(j, &bl, 1, NULL, err);
    if (st == BASALT_OK)
        st = basalt_qjoin_probe_local_new(j, &pl, err);
    basalt_qspill_file_rewind(pf);
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(pf, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = probe_emit(g, pl, &b, block_rows, p, worker, emit, emit_ctx, err);
        basalt_arrow_array_release(&b);
    }
    basalt_qjoin_probe_local_free(pl);
    basalt_qjoin_build_local_free(bl);
    basalt_qjoin_free(j);
    return st;
}

/* A CROSS join's spilled sides (both freed): a block nested loop over
 * blocks of the build side, the probe side read again for each. A block
 * holds up to the split budget (a quarter of the limit) and about
 * PROBE_OUT_ROWS rows: one probe row meets every row of the block in one
 * output batch. The probe side is read once per block, which costs less
 * than the block's output (a block's rows times the probe side's). */
static basalt_status cross_in_blocks(struct grace *g, struct basalt_qspill_file *bf,
                                     struct basalt_qspill_file *pf, int64_t p, int worker,
                                     qemit_fn emit, void *emit_ctx, struct basalt_error *err)
{
    struct basalt_arrow_batches block;
    basalt_arrow_batches_init(&block);
    int64_t bytes = 0, rows = 0;
    basalt_status st = BASALT_OK;
    for (;;) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(bf, &b, err);
        if (st != BASALT_OK)
            break;
        bool end = b.release == NULL;
        if (!end) {
            bytes += basalt_qspill_array_bytes(&g->build.schema, &b);
            rows += b.length;
            st = basalt_arrow_batches_append(&block, &b, err);
        }
        if (st == BASALT_OK && block.n > 0 &&
            (end || bytes >= split_budget(g) || rows >= PROBE_OUT_ROWS)) {
            atomic_fetch_add(&g->blocks, 1);
            st = cross_block(g, &block, rows, pf, p, worker, emit, emit_ctx, err);
            bytes = rows = 0;
        }
        if (st != BASALT_OK || end)
            break;
    }
    basalt_arrow_batches_reset(&block);
    basalt_qspill_file_free(bf);
    basalt_qspill_file_free(pf);
    return st;
}

/* QSRC_FN: morsel p joins build partition p with probe partition p. */
static basalt_status grace_morsel(void *ctx, int64_t p, int worker, qemit_fn emit,
                                  void *emit_ctx, struct basalt_error *err)
{
    struct grace *g = ctx;
    struct basalt_qspill_file *bf = g->build.files[p], *pf = g->probe.files[p];
    g->build.files[p] = NULL;
    g->probe.files[p] = NULL;
    return join_partition(g, bf, pf, 6, 0, p, worker, emit, emit_ctx, err);
}

/* Joins a build partition's file with the probe partition's (either may be
 * NULL, for no rows; both are freed), or splits them first when the build
 * side is too big for a table. */
static basalt_status join_partition(struct grace *g, struct basalt_qspill_file *bf,
                                    struct basalt_qspill_file *pf, int used_bits, int splits,
                                    int64_t p, int worker, qemit_fn emit, void *emit_ctx,
                                    struct basalt_error *err)
{
    enum basalt_qjoin_type t = g->spec.type;
    bool outer_build = t == BASALT_QJOIN_RIGHT || t == BASALT_QJOIN_FULL;
    bool outer_probe = t == BASALT_QJOIN_LEFT || t == BASALT_QJOIN_ANTI || t == BASALT_QJOIN_FULL;
    if (t == BASALT_QJOIN_CROSS && bf != NULL && pf != NULL && g->limit > 0 &&
        basalt_qspill_file_bytes(bf) > split_budget(g))
        return cross_in_blocks(g, bf, pf, p, worker, emit, emit_ctx, err);
    if (bf != NULL && (pf != NULL || outer_build) && splits < JOIN_SPLITS_MAX && g->limit > 0 &&
        basalt_qspill_file_bytes(bf) > split_budget(g))
        return split_partition(g, bf, pf, used_bits, splits, p, worker, emit, emit_ctx, err);
    basalt_status st = BASALT_OK;
    struct basalt_qjoin *j = NULL;
    struct basalt_qjoin_build_local *bl = NULL;
    struct basalt_qjoin_probe_local *pl = NULL;
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    /* Nothing can come out of an empty side unless its other side is kept. */
    if ((bf == NULL && !(pf != NULL && outer_probe)) || (pf == NULL && !(bf != NULL && outer_build)))
        goto done;
    st = basalt_qjoin_new(&g->spec, &j, err);
    if (st == BASALT_OK)
        st = basalt_qjoin_build_local_new(j, &bl, err);
    int64_t build_rows = 0;
    for (int64_t seq = 0; st == BASALT_OK && bf != NULL; seq++) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(bf, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        build_rows += b.length;
        st = basalt_qjoin_build_consume(bl, &b, seq, err);
    }
    basalt_qspill_file_free(bf);
    bf = NULL;
    if (st == BASALT_OK)
        st = basalt_qjoin_build_finish(j, &bl, 1, NULL, err);
    if (st == BASALT_OK && g->limit > 0 && basalt_alloc_bytes() > g->limit)
        st = basalt_error_set(err, BASALT_LIMIT,
                              "HASH JOIN: memory limit of %.1f MiB exceeded (%.1f MiB in use) by "
                              "the table of spilled partition %lld of %d; raise --memory-limit",
                              (double)g->limit / 1048576.0,
                              (double)basalt_alloc_bytes() / 1048576.0, (long long)p,
                              BASALT_QSPILL_PARTS);
    if (st == BASALT_OK)
        st = basalt_qjoin_probe_local_new(j, &pl, err);
    while (st == BASALT_OK && pf != NULL) {
        struct ArrowArray b;
        st = basalt_qspill_file_next(pf, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = probe_emit(g, pl, &b, build_rows, p, worker, emit, emit_ctx, err);
        basalt_arrow_array_release(&b);
    }
    if (st == BASALT_OK && outer_build) {
        st = basalt_qjoin_unmatched(j, &out, err);
        if (st == BASALT_OK)
            st = emit_all(g->node, &out, p, worker, emit, emit_ctx, err);
    }
done:
    basalt_arrow_batches_reset(&out);
    basalt_qjoin_probe_local_free(pl);
    basalt_qjoin_build_local_free(bl);
    basalt_qjoin_free(j);
    basalt_qspill_file_free(bf);
    basalt_qspill_file_free(pf);
    return st;
}

struct jprobe_sink {
    struct qsink base;
    struct grace *g;
};

static basalt_status jprobe_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                    struct ArrowArray *batch, struct basalt_error *err)
{
    (void)worker;
    (void)m;
    (void)seq;
    struct jprobe_sink *s = (struct jprobe_sink *)sink;
    basalt_status st = pf_write(&s->g->probe, batch, s->g->spec.probe_keys, s->g->spec.n_keys, err);
    basalt_arrow_array_release(batch);
    return st;
}

/* Runs the probe side (pl, open) into g's probe files and makes pl the
 * source of the partitions' joins (g moves into it). */
static basalt_status grace_take_over(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct qpipeline *pl, struct grace *g,
                                     struct basalt_error *err)
{
    struct jprobe_sink s;
    memset(&s, 0, sizeof s);
    s.base.consume = jprobe_consume;
    s.base.what = "HASH JOIN (probe side, spilling)";
    s.g = g;
    basalt_status st = pf_init(&g->probe, &node->child[0]->schema, ctx->o.spill_dir, 0, 6, err);
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, pl, &s.base, err);
    if (st == BASALT_OK)
        st = pf_seal(&g->probe, node, err);
    basalt_qpipeline_reset(pl);
    if (st != BASALT_OK) {
        grace_free(g);
        return st;
    }
    pl->src.kind = QSRC_FN;
    pl->src.fn = grace_morsel;
    pl->src.fn_ctx = g;
    pl->src.fn_free = grace_free;
    pl->src.n_morsels = BASALT_QSPILL_PARTS;
    return BASALT_OK;
}

/* A join and the residual program it borrows, freed together. */
struct join_run {
    struct basalt_qjoin *join;
    struct basalt_query_program *residual;
    int *res_cols; /* the columns of the join's row the residual reads */
    int n_res_cols;
    int64_t build_rows;
};

static void join_run_free(void *p)
{
    struct join_run *r = p;
    if (r == NULL)
        return;
    basalt_qjoin_free(r->join);
    basalt_query_program_free(r->residual);
    basalt_free(r->res_cols);
    basalt_free(r);
}

/* node's residual compiled over the columns of the join's row it reads
 * alone (r->res_cols), so that the join gathers only those for the pairs
 * it tests: a condition on two of twenty columns no longer has every
 * column of every candidate copied. All of them when it reads every
 * column or none. */
static basalt_status compile_residual(struct basalt_qctx *ctx, const struct basalt_qplan *node,
                                      struct join_run *r, struct basalt_error *err)
{
    const struct ArrowSchema *l = &node->child[0]->schema, *rs = &node->child[1]->schema;
    int nl = (int)l->n_children, width = nl + (int)rs->n_children;
    bool *used = basalt_calloc((size_t)width + 1, sizeof *used);
    int32_t *map = basalt_calloc((size_t)width + 1, sizeof *map);
    int *cols = basalt_calloc((size_t)width + 1, sizeof *cols);
    const struct ArrowSchema **fields = basalt_calloc((size_t)width + 1, sizeof *fields);
    basalt_status st = used && map && cols && fields
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int n = 0;
    if (st == BASALT_OK) {
        basalt_qexpr_columns(node->residual, used);
        for (int i = 0; i < width; i++) {
            map[i] = used[i] ? n : -1;
            if (used[i]) {
                fields[n] = i < nl ? l->children[i] : rs->children[i - nl];
                cols[n++] = i;
            }
        }
    }
    struct basalt_qexpr_builder *b = NULL;
    struct basalt_qexpr *x = node->residual;
    bool narrow = n > 0 && n < width;
    if (st == BASALT_OK && narrow) {
        struct ArrowSchema s;
        st = basalt_qplan_struct_schema(fields, NULL, n, &s, err);
        if (st == BASALT_OK) {
            st = basalt_qctx_builder_over(ctx, &s, &b, err);
            basalt_arrow_schema_release(&s);
        }
        if (st == BASALT_OK)
            st = basalt_qexpr_remap(b, node->residual, map, &x, err);
    } else if (st == BASALT_OK) {
        st = basalt_qplan_join_builder(ctx, node->child[0], node->child[1], &b, err);
    }
    struct basalt_query_compile_options co;
    basalt_query_compile_options_init(&co);
    if (st == BASALT_OK)
        st = basalt_query_compile(b, &x, 1, &co, &r->residual, err);
    if (st == BASALT_OK && narrow) {
        r->res_cols = cols;
        r->n_res_cols = n;
        cols = NULL;
    }
    basalt_free(used);
    basalt_free(map);
    basalt_free(cols);
    basalt_free(fields);
    return st;
}

static basalt_status probe_local_new(void *p, void **out, struct basalt_error *err)
{
    struct join_run *r = p;
    return basalt_qjoin_probe_local_new(r->join, (struct basalt_qjoin_probe_local **)out, err);
}

static void probe_local_free(void *l)
{
    basalt_qjoin_probe_local_free(l);
}

static basalt_status probe(void *l, const struct ArrowArray *batch, struct basalt_arrow_batches *out,
                           struct basalt_error *err)
{
    return basalt_qjoin_probe(l, batch, out, err);
}

/* r's join of `spec` with its table built from the batches `in` (moved
 * out), in their order. */
static basalt_status build_table(struct join_run *r, const struct basalt_qjoin_spec *spec,
                                 struct basalt_arrow_batches *in, struct basalt_pool *pool,
                                 struct basalt_error *err)
{
    basalt_status st = basalt_qjoin_new(spec, &r->join, err);
    struct basalt_qjoin_build_local *local = NULL;
    if (st == BASALT_OK)
        st = basalt_qjoin_build_local_new(r->join, &local, err);
    for (int64_t i = 0; i < in->n && st == BASALT_OK; i++) {
        r->build_rows += in->arrays[i].length;
        st = basalt_qjoin_build_consume(local, &in->arrays[i], i, err);
    }
    if (st == BASALT_OK)
        st = basalt_qjoin_build_finish(r->join, &local, 1, pool, err);
    basalt_qjoin_build_local_free(local);
    return st;
}

/* Runs the right side and builds the hash table on it. */
static basalt_status build(struct basalt_qctx *ctx, struct basalt_qplan *node,
                           const struct ArrowSchema *probe_schema, struct join_run **out,
                           struct grace **spilled_out, struct basalt_error *err)
{
    *out = NULL;
    *spilled_out = NULL;
    struct join_run *r = basalt_calloc(1, sizeof *r);
    if (r == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    if (node->residual != NULL)
        st = compile_residual(ctx, node, r, err);
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    bool spilled = false;
    bool keyed = node->n_join_keys > 0 && node->join_type != BASALT_QPLAN_JOIN_CROSS;
    bool cross = node->n_join_keys == 0 && node->join_type == BASALT_QPLAN_JOIN_CROSS;
    if (st == BASALT_OK && ctx->o.memory_limit > 0 && (keyed || cross)) {
        struct grace *g = basalt_calloc(1, sizeof *g);
        if (g == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (st == BASALT_OK)
            st = collect_build(ctx, node, &in, &g->build, &spilled, err);
        if (st == BASALT_OK && spilled) {
            struct basalt_qjoin_spec gs = {(enum basalt_qjoin_type)node->join_type, probe_schema,
                                           &node->child[1]->schema, node->left_keys,
                                           node->right_keys, node->n_join_keys, r->residual,
                                           r->res_cols, r->n_res_cols, node->join_keep,
                                           node->n_join_keep};
            g->spec = gs;
            g->residual = r->residual; /* moves to g, with its columns */
            r->residual = NULL;
            g->res_cols = r->res_cols;
            r->res_cols = NULL;
            g->limit = ctx->o.memory_limit;
            g->node = node;
            join_run_free(r);
            *spilled_out = g;
            return BASALT_OK;
        }
        grace_free(g);
    } else if (st == BASALT_OK) {
        st = basalt_qrun_collect_in_order(ctx, node->child[1], "HASH JOIN (build side)", -1,
                                              &in, err);
    }
    struct basalt_qjoin_spec spec = {(enum basalt_qjoin_type)node->join_type, probe_schema,
                                     &node->child[1]->schema, node->left_keys, node->right_keys,
                                     node->n_join_keys, r->residual, r->res_cols, r->n_res_cols,
                                     node->join_keep, node->n_join_keep};
    if (st == BASALT_OK)
        st = build_table(r, &spec, &in, ctx->o.pool, err);
    basalt_arrow_batches_reset(&in);
    if (st != BASALT_OK) {
        join_run_free(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

static basalt_status add_probe_of(struct basalt_qplan *node, const struct ArrowSchema *in_schema,
                                  struct qpipeline *pl, struct join_run *r,
                                  struct basalt_error *err)
{
    struct qpipe_op *op;
    basalt_status st = basalt_qpipeline_add(pl, &op, err);
    if (st != BASALT_OK) {
        join_run_free(r);
        return st;
    }
    op->kind = QPIPE_PROBE;
    op->node = node;
    op->in_schema = in_schema;
    op->join = r;
    op->probe_local_new = probe_local_new;
    op->probe_local_free = probe_local_free;
    op->probe = probe;
    op->free_join = join_run_free;
    op->fanout = node->n_join_keys == 0 ? (double)r->build_rows : 1;
    return BASALT_OK;
}

static basalt_status add_probe(struct basalt_qplan *node, struct qpipeline *pl, struct join_run *r,
                               struct basalt_error *err)
{
    return add_probe_of(node, &node->child[0]->schema, pl, r, err);
}

/* Runs pl (opened; st its state so far) into `out` in morsel order, with
 * node's schema; `what` names the operator the memory limit stops. The
 * caller resets pl, which owns the join, once done with the join. */
static basalt_status run_collected(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                   struct qpipeline *pl, basalt_status st, const char *what,
                                   struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct qsink sink;
    memset(&sink, 0, sizeof sink);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_init(&sink, pl->src.n_morsels, -1, err);
    sink.what = what;
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, pl, &sink, err);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_finish(&sink, &node->schema, out, err);
    basalt_qsink_collect_reset(&sink);
    return st;
}

/* Runs node's input `side` probing r's join (r freed here in every case)
 * into `out`, then appends the build rows basalt_qjoin_unmatched gives:
 * RIGHT/FULL's unmatched rows, or the kept rows of a join built on its
 * left. `what` names the operator the memory limit stops. */
static basalt_status probe_then_build_rows(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                           int side, struct join_run *r, const char *what,
                                           struct basalt_arrow_batches *out,
                                           struct basalt_error *err)
{
    struct basalt_qjoin *join = r->join;
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    basalt_status st = basalt_qrun_open(ctx, node->child[side], &pl, err);
    if (st == BASALT_OK)
        st = add_probe_of(node, &node->child[side]->schema, &pl, r, err); /* pl owns r */
    else
        join_run_free(r);
    st = run_collected(ctx, node, &pl, st, what, out, err);
    if (st == BASALT_OK)
        st = basalt_qjoin_unmatched(join, out, err);
    basalt_qpipeline_reset(&pl); /* frees r */
    return st;
}

/* A SEMI or ANTI join built on its left side (basalt_qplan_join_build_left):
 * the left rows are collected in order and hashed, the right side's
 * pipeline probes them (RIGHT_SEMI / RIGHT_ANTI: marks, no output), then
 * the left rows matched (SEMI) or not (ANTI) come out in their order. The
 * left side is held whole (it does not spill: the planner turns joins
 * around for a small left side). */
static basalt_status join_build_left(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct join_run *r = basalt_calloc(1, sizeof *r);
    if (r == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    basalt_status st = basalt_qrun_collect_in_order(ctx, node->child[0],
                                                    "HASH JOIN (its left side, built)", -1, &in,
                                                    err);
    struct basalt_qjoin_spec spec = {node->join_type == BASALT_QPLAN_JOIN_SEMI
                                         ? BASALT_QJOIN_RIGHT_SEMI
                                         : BASALT_QJOIN_RIGHT_ANTI,
                                     &node->child[1]->schema, &node->child[0]->schema,
                                     node->right_keys, node->left_keys, node->n_join_keys, NULL, NULL, 0,
                                     node->join_keep, node->n_join_keep};
    if (st == BASALT_OK)
        st = build_table(r, &spec, &in, ctx->o.pool, err);
    basalt_arrow_batches_reset(&in);
    if (st != BASALT_OK) {
        join_run_free(r);
        return st;
    }
    /* the probes give no rows (`out` only gets its schema): what comes out
     * is the left side's */
    return probe_then_build_rows(ctx, node, 1, r, "HASH JOIN (its right side, probing)", out,
                                 err);
}

basalt_status basalt_qrun_join_probe(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct qpipeline *pl, struct basalt_error *err)
{
    struct join_run *r;
    struct grace *g;
    basalt_status st = build(ctx, node, &node->child[0]->schema, &r, &g, err);
    if (st == BASALT_OK && g != NULL)
        return grace_take_over(ctx, node, pl, g, err);
    return st == BASALT_OK ? add_probe(node, pl, r, err) : st;
}

basalt_status basalt_qrun_join_outer(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                     struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (node->build_left)
        return join_build_left(ctx, node, out, err);
    struct join_run *r;
    struct grace *g;
    basalt_status st = build(ctx, node, &node->child[0]->schema, &r, &g, err);
    if (st != BASALT_OK)
        return st;
    if (g != NULL) {
        /* Spilled: the partitions' joins, unmatched build rows included. */
        struct qpipeline pl;
        basalt_qpipeline_init(&pl);
        st = basalt_qrun_open(ctx, node->child[0], &pl, err);
        if (st == BASALT_OK)
            st = grace_take_over(ctx, node, &pl, g, err);
        else
            grace_free(g);
        st = run_collected(ctx, node, &pl, st,
                           "HASH JOIN (RIGHT/FULL: its result is kept in memory)", out, err);
        basalt_qpipeline_reset(&pl);
        /* run_breaker counts the rows of the result */
        atomic_store(&node->rows_out, 0);
        return st;
    }
    return probe_then_build_rows(ctx, node, 0, r, "HASH JOIN (RIGHT/FULL)", out, err);
}
