/* A window whose rows are wanted only while their row_number() is at most K
 * (the filter above says so: plan/window_limit.c). Each worker holds the
 * rows it is given and, once it holds many, prunes them to the first K of
 * each partition, so the operator holds about K rows per partition and
 * worker instead of its whole input. Pruning a subset is safe: a row with
 * K rows of its partition before it in a subset has them before it in the
 * whole input too. Ties keep input order as the plain window does: every
 * row carries its place in the input (the pipeline's batch sequence and its
 * row in the batch) as the last two sort keys. What survives the last
 * pruning goes through the plain window computation.
 *
 * Where the keys are fixed-width numbers or times and K is small, each
 * worker keeps instead a table of the first K rows of every partition so
 * far (plan/window_live.c): a row is held only if it enters its partition's
 * first K, and the held rows pushed out since are dropped by probing the
 * table, not by sorting. At the end the workers' tables are merged, the
 * held rows still in the merged table are exactly the survivors, and only
 * they are sorted. */
#include <stdatomic.h>
#include <string.h>

#include "plan/run_internal.h"
#include "plan/window_cut.h"
#include "plan/window_live.h"
#include "sort/sort.h"
#include "window/window.h"

/* Rows a worker holds before it first prunes; after a pruning, four times
 * what survived, so each pruning reads at least three new rows per row it
 * read before. */
#define PRUNE_ROWS 262144

/* Under a memory limit a worker also prunes once the process holds an
 * eighth of the limit (a pruning briefly takes about four times what it
 * sorts: the sorted copy, the row numbers, the rows kept), as long as it
 * has gained PRUNE_MIN_NEW rows and as many as survived its last pruning:
 * each pruning still reads at least one new row per row it read before. */
#define PRUNE_MIN_NEW 65536

struct wl_plan {
    const struct ArrowSchema *in; /* the input's schema */
    int n_in;                  /* the input's columns */
    struct ArrowSchema tagged; /* the input's, then __seq and __row (int64) */
    struct ArrowSchema ranked; /* tagged, then __rn */
    struct basalt_qsort_key *keys;
    int n_keys;
    const int *part_cols;
    int n_part;
    int64_t limit;
    bool cut;  /* the keys are of types window_cut.c reads */
    bool live; /* and K is small: a live table per worker (window_live.c) */
};

struct wl_held {
    struct basalt_arrow_batches batches; /* tagged */
    int64_t rows;
    int64_t next_prune;
    int64_t survived;            /* rows its last pruning kept */
    struct basalt_qwin_cut *cut; /* from this worker's last pruning; NULL: none */
    struct basalt_qwin_live *live; /* the first K rows per partition it was given */
    int64_t *keep;               /* scratch for the cut */
    int64_t keep_cap;
};

struct wl_sink {
    struct qsink base; /* first: the pipeline sees a qsink */
    const struct wl_plan *p;
    int64_t memory_limit; /* 0: none */
    struct wl_held *held; /* one per worker */
    _Atomic int64_t rows; /* taken in */
    _Atomic int64_t cut;  /* of those, dropped by a cut before being held */
    _Atomic int64_t prunings;
};

static basalt_status int64_column(int64_t n, int64_t **values, struct ArrowArray *out,
                                  struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(out, 2, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * 8 + 8, (void **)values, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    out->length = n;
    return BASALT_OK;
}

/* `batch` (moved out) with its sequence and row numbers appended: rows[k]
 * for its row k when `rows` is not NULL (the rows a cut kept of a larger
 * batch), else k. */
static basalt_status tag(const struct wl_plan *p, struct ArrowArray *batch, int64_t seq,
                         const int64_t *rows, struct ArrowArray *out, struct basalt_error *err)
{
    int64_t n = batch->length;
    basalt_status st = basalt_arrow_array_init(out, 1, p->n_in + 2, err);
    for (int i = 0; st == BASALT_OK && i < p->n_in; i++) {
        struct ArrowArray *c = out->children[i];
        basalt_arrow_array_move(batch->children[i], c);
        c->offset += batch->offset;
        c->length = n;
    }
    int64_t *s = NULL, *r = NULL;
    if (st == BASALT_OK)
        st = int64_column(n, &s, out->children[p->n_in], err);
    if (st == BASALT_OK)
        st = int64_column(n, &r, out->children[p->n_in + 1], err);
    for (int64_t k = 0; st == BASALT_OK && k < n; k++) {
        s[k] = seq;
        r[k] = rows ? rows[k] : k;
    }
    basalt_arrow_array_release(batch);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    out->length = n;
    return BASALT_OK;
}

/* Sorts `in` (moved out) on the window's keys and the positions into
 * `sorted` (appended). */
static basalt_status sort_tagged(const struct wl_plan *p, struct basalt_arrow_batches *in,
                                 struct basalt_pool *pool, struct basalt_arrow_batches *sorted,
                                 struct basalt_error *err)
{
    struct basalt_qsort *sort = NULL;
    struct basalt_qsort_local *local = NULL;
    basalt_status st = basalt_qsort_new(&p->tagged, p->keys, p->n_keys, -1, 0, &sort, err);
    if (st == BASALT_OK)
        st = basalt_qsort_local_new(sort, &local, err);
    for (int64_t i = 0; i < in->n; i++)
        if (st == BASALT_OK)
            st = basalt_qsort_consume(local, &in->arrays[i], i, err);
        else
            basalt_arrow_array_release(&in->arrays[i]);
    in->n = 0;
    if (st == BASALT_OK)
        st = basalt_qsort_finish(sort, &local, 1, pool, sorted, err);
    basalt_qsort_local_free(local);
    basalt_qsort_free(sort);
    return st;
}

/* Sorts `in` (moved out) and keeps the rows whose row_number is at most the
 * limit, in sort order, into `out` (appended). */
static basalt_status prune(const struct wl_plan *p, struct basalt_arrow_batches *in,
                           struct basalt_pool *pool, int workers, struct basalt_arrow_batches *out,
                           struct basalt_error *err)
{
    struct basalt_arrow_batches sorted, ranked;
    basalt_arrow_batches_init(&sorted);
    basalt_arrow_batches_init(&ranked);
    basalt_status st = sort_tagged(p, in, pool, &sorted, err);
    const struct basalt_qplan_window_call rn = {
        .fn = BASALT_QPLAN_WIN_ROW_NUMBER, .arg = -1, .default_arg = -1, .name = "__rn"};
    const struct basalt_qwin_spec spec = {&p->tagged, p->part_cols, p->n_part, NULL, 0,
                                          &rn, 1, &p->ranked, NULL};
    if (st == BASALT_OK && sorted.n > 0)
        st = basalt_qwin_compute(&spec, &sorted, pool, workers, &ranked, NULL, err);
    int64_t *keep = NULL;
    int64_t cap = 0;
    for (int64_t b = 0; st == BASALT_OK && b < ranked.n; b++) {
        struct ArrowArray *batch = &ranked.arrays[b];
        const struct ArrowArray *rc = batch->children[p->n_in + 2];
        const int64_t *rv = (const int64_t *)rc->buffers[1] + rc->offset + batch->offset;
        if (batch->length > cap) {
            basalt_free(keep);
            cap = batch->length;
            keep = basalt_malloc((size_t)cap * sizeof *keep);
            if (keep == NULL) {
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                break;
            }
        }
        int64_t k = 0;
        for (int64_t i = 0; i < batch->length; i++)
            if (rv[i] <= p->limit)
                keep[k++] = i;
        if (k == 0)
            continue;
        /* The tagged columns only: a view of the batch without __rn. */
        struct ArrowArray view = *batch;
        view.n_children = p->n_in + 2;
        struct ArrowArray kept;
        st = basalt_arrow_take(&p->tagged, &view, keep, k, &kept, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(out, &kept, err);
    }
    basalt_free(keep);
    basalt_arrow_batches_reset(&sorted);
    basalt_arrow_batches_reset(&ranked);
    return st;
}

static int64_t rows_of(const struct basalt_arrow_batches *b)
{
    int64_t n = 0;
    for (int64_t i = 0; i < b->n; i++)
        n += b->arrays[i].length;
    return n;
}

static bool prune_due(const struct wl_sink *s, const struct wl_held *h)
{
    if (h->rows >= h->next_prune)
        return true;
    return s->memory_limit > 0 && h->rows - h->survived >= PRUNE_MIN_NEW &&
           h->rows >= 2 * h->survived && basalt_alloc_bytes() > s->memory_limit / 8;
}

/* With a live table: once the held rows pushed out of it are as many as
 * those still in it (under a memory limit, a quarter as many once an
 * eighth of the limit is in use), each compaction reading at least one
 * row pushed out per two it keeps. */
static bool compaction_due(const struct wl_sink *s, const struct wl_held *h)
{
    int64_t in = basalt_qwin_live_rows(h->live), out = h->rows - in;
    if (out < PRUNE_MIN_NEW)
        return false;
    return out >= in || (s->memory_limit > 0 && out >= in / 4 &&
                         basalt_alloc_bytes() > s->memory_limit / 8);
}

static basalt_status ensure_keep(struct wl_held *h, int64_t n, struct basalt_error *err)
{
    if (n <= h->keep_cap)
        return BASALT_OK;
    basalt_free(h->keep);
    h->keep = basalt_malloc((size_t)n * sizeof *h->keep);
    h->keep_cap = h->keep != NULL ? n : 0;
    return h->keep != NULL ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

/* The tagged rows of `held` (moved out) that `live` still holds, appended
 * to `out`; h->keep is the scratch. */
static basalt_status compact(const struct wl_plan *p, struct basalt_qwin_live *live,
                             struct wl_held *h, struct basalt_arrow_batches *held,
                             struct basalt_arrow_batches *out, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int64_t b = 0; b < held->n; b++) {
        struct ArrowArray *batch = &held->arrays[b];
        if (st == BASALT_OK)
            st = ensure_keep(h, batch->length, err);
        int64_t k = 0;
        if (st == BASALT_OK)
            st = basalt_qwin_live_holding(live, batch, p->n_in, p->n_in + 1, h->keep, &k, err);
        if (st == BASALT_OK && k == batch->length) {
            st = basalt_arrow_batches_append(out, batch, err);
            continue;
        }
        struct ArrowArray kept;
        if (st == BASALT_OK && k > 0) {
            st = basalt_arrow_take(&p->tagged, batch, h->keep, k, &kept, err);
            if (st == BASALT_OK)
                st = basalt_arrow_batches_append(out, &kept, err);
        }
        basalt_arrow_array_release(batch);
    }
    held->n = 0;
    basalt_arrow_batches_reset(held);
    return st;
}

static basalt_status wl_consume(struct qsink *sink, int worker, int64_t m, int64_t seq,
                                struct ArrowArray *batch, struct basalt_error *err)
{
    (void)m;
    struct wl_sink *s = (struct wl_sink *)sink;
    struct wl_held *h = &s->held[worker];
    atomic_fetch_add_explicit(&s->rows, batch->length, memory_order_relaxed);
    if (s->p->limit == 0) {
        basalt_arrow_array_release(batch);
        return BASALT_OK;
    }
    const int64_t *rows = NULL;
    struct ArrowArray taken;
    taken.release = NULL;
    if ((h->cut != NULL || h->live != NULL) && batch->length > 0) {
        int64_t k = 0;
        basalt_status st = ensure_keep(h, batch->length, err);
        if (st == BASALT_OK && h->live != NULL)
            st = basalt_qwin_live_offer(h->live, batch, seq, h->keep, &k, err);
        else if (st == BASALT_OK)
            k = basalt_qwin_cut_keep(h->cut, batch, h->keep);
        if (st != BASALT_OK) {
            basalt_arrow_array_release(batch);
            return st;
        }
        atomic_fetch_add_explicit(&s->cut, batch->length - k, memory_order_relaxed);
        if (k < batch->length) {
            st = k == 0 ? BASALT_OK : basalt_arrow_take(s->p->in, batch, h->keep, k, &taken, err);
            basalt_arrow_array_release(batch);
            if (st != BASALT_OK || k == 0)
                return st;
            batch = &taken;
            rows = h->keep;
        }
    }
    struct ArrowArray tagged;
    basalt_status st = tag(s->p, batch, seq, rows, &tagged, err);
    if (st == BASALT_OK) {
        h->rows += tagged.length;
        st = basalt_arrow_batches_append(&h->batches, &tagged, err);
    }
    struct basalt_arrow_batches kept;
    basalt_arrow_batches_init(&kept);
    if (h->live != NULL) {
        if (st != BASALT_OK || !compaction_due(s, h))
            return st;
        st = compact(s->p, h->live, h, &h->batches, &kept, err);
        atomic_fetch_add_explicit(&s->prunings, 1, memory_order_relaxed);
        h->batches = kept;
        h->rows = rows_of(&kept);
        return st;
    }
    if (st != BASALT_OK || !prune_due(s, h))
        return st;
    /* On this worker's thread: the pool's workers are busy with morsels. */
    st = prune(s->p, &h->batches, NULL, 1, &kept, err);
    atomic_fetch_add_explicit(&s->prunings, 1, memory_order_relaxed);
    basalt_arrow_batches_reset(&h->batches);
    h->batches = kept;
    h->rows = rows_of(&kept);
    h->survived = h->rows;
    h->next_prune = h->rows * 4 > PRUNE_ROWS ? h->rows * 4 : PRUNE_ROWS;
    if (st == BASALT_OK && h->cut != NULL)
        st = basalt_qwin_cut_set(h->cut, &h->batches, err);
    return st;
}

static basalt_status plan_init(const struct basalt_qplan *node, struct wl_plan *p,
                               struct basalt_error *err)
{
    const struct ArrowSchema *in = &node->child[0]->schema;
    memset(p, 0, sizeof *p);
    p->in = in;
    p->n_in = (int)in->n_children;
    p->part_cols = node->part_cols;
    p->n_part = node->n_part;
    p->limit = node->row_limit;
    p->n_keys = node->n_part + node->n_sort_keys + 2;
    p->keys = basalt_calloc((size_t)p->n_keys, sizeof *p->keys);
    basalt_status st = p->keys ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; st == BASALT_OK && i < node->n_part; i++)
        p->keys[i].column = node->part_cols[i];
    for (int i = 0; st == BASALT_OK && i < node->n_sort_keys; i++) {
        struct basalt_qsort_key *k = &p->keys[node->n_part + i];
        k->column = node->sort_keys[i].column;
        k->descending = node->sort_keys[i].descending;
        k->nulls_first = node->sort_keys[i].nulls_first;
    }
    if (st == BASALT_OK) {
        p->keys[p->n_keys - 2].column = p->n_in;
        p->keys[p->n_keys - 1].column = p->n_in + 1;
        p->cut = basalt_qwin_cut_applies(in, node->part_cols, node->n_part,
                                         &p->keys[node->n_part], node->n_sort_keys);
        p->live = basalt_qwin_live_applies(in, node->part_cols, node->n_part,
                                           &p->keys[node->n_part], node->n_sort_keys, p->limit);
    }
    static const char *const extra[3] = {"__seq", "__row", "__rn"};
    struct ArrowSchema *schemas[2] = {&p->tagged, &p->ranked};
    for (int s = 0; s < 2 && st == BASALT_OK; s++) {
        int n = p->n_in + 2 + s;
        st = basalt_arrow_schema_init(schemas[s], "+s", NULL, 0, n, err);
        for (int i = 0; st == BASALT_OK && i < p->n_in; i++)
            st = basalt_arrow_schema_copy(in->children[i], schemas[s]->children[i], err);
        for (int i = p->n_in; st == BASALT_OK && i < n; i++) {
            basalt_arrow_schema_release(schemas[s]->children[i]);
            st = basalt_arrow_schema_init(schemas[s]->children[i], "l", extra[i - p->n_in], 0, 0,
                                          err);
        }
    }
    return st;
}

static void plan_reset(struct wl_plan *p)
{
    basalt_arrow_schema_release(&p->tagged);
    basalt_arrow_schema_release(&p->ranked);
    basalt_free(p->keys);
}

/* The survivors' input columns (moved out of `in`, in order). */
static basalt_status untag(const struct wl_plan *p, struct basalt_arrow_batches *in,
                           struct basalt_arrow_batches *out, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int64_t b = 0; b < in->n && st == BASALT_OK; b++) {
        struct ArrowArray *t = &in->arrays[b], plain;
        st = basalt_arrow_array_init(&plain, 1, p->n_in, err);
        for (int i = 0; st == BASALT_OK && i < p->n_in; i++) {
            basalt_arrow_array_move(t->children[i], plain.children[i]);
            plain.children[i]->offset += t->offset;
            plain.children[i]->length = t->length;
        }
        if (st == BASALT_OK) {
            plain.length = t->length;
            st = basalt_arrow_batches_append(out, &plain, err);
        }
    }
    basalt_arrow_batches_reset(in);
    return st;
}

basalt_status basalt_qrun_window_limited(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                         const struct basalt_qwin_spec *spec,
                                         struct basalt_arrow_batches *out,
                                         struct basalt_error *err)
{
    struct wl_plan p;
    int workers = basalt_qrun_workers(ctx);
    basalt_status st = plan_init(node, &p, err);
    struct wl_sink sink;
    memset(&sink, 0, sizeof sink);
    atomic_init(&sink.rows, 0);
    atomic_init(&sink.cut, 0);
    atomic_init(&sink.prunings, 0);
    sink.base.consume = wl_consume;
    sink.base.what = "WINDOW";
    sink.p = &p;
    sink.memory_limit = ctx->o.memory_limit;
    sink.held = basalt_calloc((size_t)workers, sizeof *sink.held);
    if (st == BASALT_OK && sink.held == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int w = 0; st == BASALT_OK && w < workers; w++) {
        basalt_arrow_batches_init(&sink.held[w].batches);
        sink.held[w].next_prune = PRUNE_ROWS;
        if (p.live)
            st = basalt_qwin_live_new(p.in, p.part_cols, p.n_part, &p.keys[p.n_part],
                                      p.n_keys - p.n_part - 2, p.limit, &sink.held[w].live, err);
        else if (p.cut)
            st = basalt_qwin_cut_new(p.in, p.part_cols, p.n_part, &p.keys[p.n_part],
                                     p.n_keys - p.n_part - 2, p.limit, &sink.held[w].cut, err);
    }
    struct qpipeline pl;
    basalt_qpipeline_init(&pl);
    if (st == BASALT_OK)
        st = basalt_qrun_open(ctx, node->child[0], &pl, err);
    if (st == BASALT_OK)
        st = basalt_qpipeline_run(ctx, &pl, &sink.base, err);
    basalt_qpipeline_reset(&pl);
    /* Every worker's survivors together: with live tables, the rows the
     * merged table holds, sorted; otherwise pruned once more on the pool. */
    struct basalt_arrow_batches all, kept, plain;
    basalt_arrow_batches_init(&all);
    basalt_arrow_batches_init(&kept);
    basalt_arrow_batches_init(&plain);
    bool live = sink.held != NULL && p.live;
    for (int w = 1; live && st == BASALT_OK && w < workers; w++) {
        st = basalt_qwin_live_merge(sink.held[0].live, sink.held[w].live, err);
        basalt_qwin_live_free(sink.held[w].live);
        sink.held[w].live = NULL;
    }
    for (int w = 0; sink.held != NULL && w < workers; w++) {
        struct basalt_arrow_batches *h = &sink.held[w].batches;
        if (live && st == BASALT_OK) {
            st = compact(&p, sink.held[0].live, &sink.held[0], h, &all, err);
            continue;
        }
        for (int64_t i = 0; i < h->n; i++)
            if (st == BASALT_OK)
                st = basalt_arrow_batches_append(&all, &h->arrays[i], err);
            else
                basalt_arrow_array_release(&h->arrays[i]);
        h->n = 0;
        basalt_arrow_batches_reset(h);
    }
    for (int w = 0; sink.held != NULL && w < workers; w++) {
        basalt_arrow_batches_reset(&sink.held[w].batches);
        basalt_qwin_cut_free(sink.held[w].cut);
        basalt_qwin_live_free(sink.held[w].live);
        basalt_free(sink.held[w].keep);
    }
    basalt_free(sink.held);
    if (st == BASALT_OK && live)
        st = sort_tagged(&p, &all, ctx->o.pool, &kept, err);
    else if (st == BASALT_OK)
        st = prune(&p, &all, ctx->o.pool, workers, &kept, err);
    if (st == BASALT_OK) {
        node->rows_pruned = atomic_load(&sink.rows) - rows_of(&kept);
        node->rows_cut = atomic_load(&sink.cut);
        node->prunings = atomic_load(&sink.prunings);
        node->live_pruning = p.live;
    }
    if (st == BASALT_OK)
        st = untag(&p, &kept, &plain, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(&node->child[0]->schema, &plain.schema, err);
    if (st == BASALT_OK)
        st = basalt_qwin_compute(spec, &plain, ctx->o.pool, workers, out, NULL, err);
    basalt_arrow_batches_reset(&all);
    basalt_arrow_batches_reset(&kept);
    basalt_arrow_batches_reset(&plain);
    plan_reset(&p);
    return st;
}
