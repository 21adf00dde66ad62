/* The external sort (sort.h, "spilling"): sorted runs on disk, merged. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sort/sort_impl.h"
#include "spill/spill.h"

#define MERGE_ROWS 65536
#define RUN_BATCH 8192

struct slot {
    struct ArrowArray *arr;
    int64_t *pos;
    int64_t n, cap, rows, bytes;
};

struct cursor {
    struct basalt_qspill_file *f; /* NULL: done */
    int slot;                     /* its batch in the table */
    int64_t row, len;
    const int64_t *pos, *prow;
};

/* A k-way merge of sorted runs, handing out MERGE_ROWS rows at a time. */
struct merge {
    struct basalt_qsort_ext *x;
    struct cursor *cur;
    int n_cur;
    int *heap, n_heap;
    struct ArrowArray *tab; /* the runs' loaded batches */
    int n_tab, cap_tab;
    int32_t *src; /* the next rows: batch in tab, row in it */
    int64_t *idx;
};

struct basalt_qsort_ext {
    struct ArrowSchema schema; /* the input's */
    struct ArrowSchema aug;    /* the input's columns, then the batch's position and the row */
    struct basalt_qsort_key *keys;
    int n_keys, workers;
    const char *dir;
    struct basalt_qsort *cmp; /* the keys, for comparing rows of runs */
    struct slot *slots;
    pthread_mutex_t lock;
    struct basalt_qspill_file **runs;
    int n_runs, cap_runs;
    atomic_llong runs_made, rows_spilled, bytes_spilled, merge_passes, rows_in;
    /* after start: the result sorted in memory (nothing spilled), handed
     * out from next_sorted, or the merge of the runs */
    bool started, merging;
    struct basalt_arrow_batches sorted;
    int64_t next_sorted;
    struct merge final;
};

static void merge_close(struct merge *m);

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status basalt_qsort_ext_new(const struct ArrowSchema *schema,
                                   const struct basalt_qsort_key *keys, int n_keys, int workers,
                                   const char *spill_dir, struct basalt_qsort_ext **out,
                                   struct basalt_error *err)
{
    *out = NULL;
    if (schema == NULL || schema->release == NULL || workers < 1)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: bad arguments");
    struct basalt_qsort_ext *x = basalt_calloc(1, sizeof *x);
    if (x == NULL)
        return nomem(err);
    pthread_mutex_init(&x->lock, NULL);
    x->n_keys = n_keys;
    x->workers = workers;
    x->dir = spill_dir;
    x->keys = basalt_calloc((size_t)n_keys + 1, sizeof *x->keys);
    x->slots = basalt_calloc((size_t)workers, sizeof *x->slots);
    basalt_status st = x->keys && x->slots ? BASALT_OK : nomem(err);
    if (st == BASALT_OK) {
        memcpy(x->keys, keys, (size_t)n_keys * sizeof *keys);
        st = basalt_qsort_new(schema, keys, n_keys, -1, 0, &x->cmp, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(schema, &x->schema, err);
    int64_t nc = schema->n_children;
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&x->aug, "+s", "", 0, nc + 2, err);
    for (int64_t i = 0; i < nc && st == BASALT_OK; i++)
        st = basalt_arrow_schema_copy(schema->children[i], x->aug.children[i], err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(x->aug.children[nc], "l", "__pos", 0, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(x->aug.children[nc + 1], "l", "__row", 0, 0, err);
    if (st != BASALT_OK) {
        basalt_qsort_ext_free(x);
        return st;
    }
    *out = x;
    return BASALT_OK;
}

void basalt_qsort_ext_free(struct basalt_qsort_ext *x)
{
    if (x == NULL)
        return;
    for (int w = 0; x->slots != NULL && w < x->workers; w++) {
        struct slot *sl = &x->slots[w];
        for (int64_t i = 0; i < sl->n; i++)
            basalt_arrow_array_release(&sl->arr[i]);
        basalt_free(sl->arr);
        basalt_free(sl->pos);
    }
    merge_close(&x->final);
    basalt_arrow_batches_reset(&x->sorted);
    for (int r = 0; r < x->n_runs; r++)
        basalt_qspill_file_free(x->runs[r]);
    basalt_free(x->runs);
    basalt_free(x->slots);
    basalt_free(x->keys);
    basalt_qsort_free(x->cmp);
    if (x->schema.release != NULL)
        basalt_arrow_schema_release(&x->schema);
    if (x->aug.release != NULL)
        basalt_arrow_schema_release(&x->aug);
    pthread_mutex_destroy(&x->lock);
    basalt_free(x);
}

basalt_status basalt_qsort_ext_consume(struct basalt_qsort_ext *x, int worker, int64_t pos,
                                       struct ArrowArray *batch, struct basalt_error *err)
{
    if (worker < 0 || worker >= x->workers || batch == NULL || batch->release == NULL) {
        if (batch != NULL && batch->release != NULL)
            basalt_arrow_array_release(batch);
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: bad arguments");
    }
    struct slot *sl = &x->slots[worker];
    if (sl->n == sl->cap) {
        int64_t cap = sl->cap ? sl->cap * 2 : 16;
        struct ArrowArray *arr = basalt_realloc(sl->arr, (size_t)cap * sizeof *arr);
        if (arr != NULL)
            sl->arr = arr;
        int64_t *p = arr ? basalt_realloc(sl->pos, (size_t)cap * sizeof *p) : NULL;
        if (p == NULL) {
            basalt_arrow_array_release(batch);
            return nomem(err);
        }
        sl->pos = p;
        sl->cap = cap;
    }
    sl->rows += batch->length;
    atomic_fetch_add(&x->rows_in, batch->length);
    sl->bytes += basalt_qspill_array_bytes(&x->schema, batch);
    sl->pos[sl->n] = pos;
    basalt_arrow_array_move(batch, &sl->arr[sl->n++]);
    return BASALT_OK;
}

int64_t basalt_qsort_ext_held(const struct basalt_qsort_ext *x, int worker)
{
    return x->slots[worker].rows;
}

int64_t basalt_qsort_ext_held_cost(const struct basalt_qsort_ext *x, int worker)
{
    /* A record is the key words (about one per key, a string's prefix
     * more), a tag and a ref, twice (the radix sort's scratch). */
    const struct slot *sl = &x->slots[worker];
    return 2 * sl->bytes + sl->rows * 16 * (x->n_keys + 3);
}

/* An int64 column of length `len` (the struct's offset and rows). */
static basalt_status int_column(struct ArrowArray *c, int64_t len, int64_t **data,
                                struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(c, 2, 0, err);
    if (st != BASALT_OK)
        return st;
    c->length = len;
    c->null_count = 0;
    return basalt_arrow_array_allocate_buffer(c, 1, (size_t)(len ? len : 1) * 8, (void **)data,
                                              err);
}

/* `batch` (moved) with the position columns added. */
static basalt_status augment(struct ArrowArray *batch, int64_t pos, struct ArrowArray *out,
                             struct basalt_error *err)
{
    int64_t nc = batch->n_children, off = batch->offset, len = off + batch->length;
    basalt_status st = basalt_arrow_array_init(out, 1, nc + 2, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(batch);
        return st;
    }
    out->length = batch->length;
    out->offset = off;
    out->null_count = 0;
    if (batch->buffers[0] != NULL && batch->null_count != 0) {
        size_t nb = (size_t)(len + 7) / 8;
        void *v;
        st = basalt_arrow_array_allocate_buffer(out, 0, nb ? nb : 1, &v, err);
        if (st == BASALT_OK) {
            memcpy(v, batch->buffers[0], nb);
            out->null_count = batch->null_count;
        }
    }
    for (int64_t i = 0; i < nc; i++)
        basalt_arrow_array_move(batch->children[i], out->children[i]);
    basalt_arrow_array_release(batch);
    int64_t *p = NULL, *r = NULL;
    if (st == BASALT_OK)
        st = int_column(out->children[nc], len, &p, err);
    if (st == BASALT_OK)
        st = int_column(out->children[nc + 1], len, &r, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    for (int64_t i = 0; i < len; i++) {
        p[i] = pos;
        r[i] = i - off;
    }
    return BASALT_OK;
}

static int by_pos(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The slots' batches (slot w or all: w < 0) in position order: *nb
 * triples (position, slot, batch); NULL when out of memory. */
static int64_t *slot_order(const struct basalt_qsort_ext *x, int w, int64_t *nb)
{
    *nb = 0;
    for (int i = 0; i < x->workers; i++)
        if (w < 0 || i == w)
            *nb += x->slots[i].n;
    int64_t *ord = basalt_malloc((size_t)(*nb ? *nb : 1) * 3 * sizeof *ord);
    if (ord == NULL)
        return NULL;
    int64_t k = 0;
    for (int i = 0; i < x->workers; i++)
        for (int64_t b = 0; (w < 0 || i == w) && b < x->slots[i].n; b++, k++) {
            ord[3 * k] = x->slots[i].pos[b];
            ord[3 * k + 1] = i;
            ord[3 * k + 2] = b;
        }
    qsort(ord, (size_t)*nb, 3 * sizeof *ord, by_pos);
    return ord;
}

/* Releases what is left in the slots (slot w or all) and empties them. */
static void slots_clear(struct basalt_qsort_ext *x, int w)
{
    for (int i = 0; i < x->workers; i++) {
        if (w >= 0 && i != w)
            continue;
        struct slot *sl = &x->slots[i];
        for (int64_t b = 0; b < sl->n; b++)
            if (sl->arr[b].release != NULL)
                basalt_arrow_array_release(&sl->arr[b]);
        sl->n = 0;
        sl->rows = 0;
        sl->bytes = 0;
    }
}

/* The slots' batches (slot w or all: w < 0) in position order, handed to
 * `s` (augmented or not) with seq 0, 1, ... The slots are emptied. */
static basalt_status feed(struct basalt_qsort_ext *x, int w, bool aug,
                          struct basalt_qsort_local *local, struct basalt_error *err)
{
    int64_t nb;
    int64_t *ord = slot_order(x, w, &nb);
    basalt_status st = ord ? BASALT_OK : nomem(err);
    for (int64_t b = 0; b < nb && st == BASALT_OK; b++) {
        struct ArrowArray *src = &x->slots[ord[3 * b + 1]].arr[ord[3 * b + 2]], a;
        if (aug) {
            st = augment(src, ord[3 * b], &a, err);
            if (st == BASALT_OK)
                st = basalt_qsort_consume(local, &a, b, err);
        } else {
            st = basalt_qsort_consume(local, src, b, err);
        }
    }
    /* What was not handed over is released with the slots. */
    slots_clear(x, w);
    basalt_free(ord);
    return st;
}

/* Without keys every row ties, so the batches in position order are the
 * sorted rows: moved, not sorted and copied. */
static basalt_status slots_in_order(struct basalt_qsort_ext *x, struct basalt_arrow_batches *sorted,
                                    struct basalt_error *err)
{
    int64_t nb;
    int64_t *ord = slot_order(x, -1, &nb);
    basalt_status st = ord ? BASALT_OK : nomem(err);
    if (st == BASALT_OK && sorted->schema.release == NULL)
        st = basalt_arrow_schema_copy(&x->schema, &sorted->schema, err);
    for (int64_t b = 0; b < nb && st == BASALT_OK; b++) {
        struct ArrowArray *src = &x->slots[ord[3 * b + 1]].arr[ord[3 * b + 2]], a;
        basalt_arrow_array_move(src, &a);
        st = basalt_arrow_batches_append(sorted, &a, err);
    }
    slots_clear(x, -1);
    basalt_free(ord);
    return st;
}

/* Sorts the batches of slot w (or all) into `sorted`. */
static basalt_status sort_slots(struct basalt_qsort_ext *x, int w, bool aug,
                                struct basalt_pool *pool, struct basalt_arrow_batches *sorted,
                                struct basalt_error *err)
{
    struct basalt_qsort *s = NULL;
    struct basalt_qsort_local *local = NULL;
    basalt_status st = basalt_qsort_new(aug ? &x->aug : &x->schema, x->keys, x->n_keys, -1, 0, &s,
                                        err);
    if (st == BASALT_OK)
        st = basalt_qsort_local_new(s, &local, err);
    if (st == BASALT_OK)
        st = feed(x, w, aug, local, err);
    if (st == BASALT_OK)
        st = basalt_qsort_finish(s, &local, 1, pool, sorted, err);
    basalt_qsort_local_free(local);
    basalt_qsort_free(s);
    return st;
}

basalt_status basalt_qsort_ext_spill(struct basalt_qsort_ext *x, int worker,
                                     struct basalt_error *err)
{
    if (x->slots[worker].n == 0)
        return BASALT_OK;
    struct basalt_arrow_batches sorted;
    basalt_arrow_batches_init(&sorted);
    struct basalt_qspill_file *f = NULL;
    basalt_status st = sort_slots(x, worker, true, NULL, &sorted, err);
    if (st == BASALT_OK)
        st = basalt_qspill_file_new(x->dir, &x->aug, &f, err);
    int64_t rows = 0;
    /* Runs are read back a batch at a time per run, so they are written in
     * small batches: the merge's memory grows with runs * RUN_BATCH rows. */
    for (int64_t i = 0; i < sorted.n && st == BASALT_OK; i++) {
        struct ArrowArray *b = &sorted.arrays[i];
        for (int64_t from = 0; from < b->length && st == BASALT_OK; from += RUN_BATCH) {
            struct ArrowArray view = *b;
            view.offset = b->offset + from;
            view.length = b->length - from < RUN_BATCH ? b->length - from : RUN_BATCH;
            view.null_count = b->null_count == 0 ? 0 : -1;
            st = basalt_qspill_file_write(f, &view, err);
        }
        rows += b->length;
        basalt_arrow_array_release(b);
    }
    basalt_arrow_batches_reset(&sorted);
    if (st == BASALT_OK)
        st = basalt_qspill_file_seal(f, err);
    /* Read before the run is handed over: once the lock is released, other
     * workers append to x->runs and may move it (realloc). */
    int64_t bytes = st == BASALT_OK ? basalt_qspill_file_bytes(f) : 0;
    if (st == BASALT_OK) {
        pthread_mutex_lock(&x->lock);
        if (x->n_runs == x->cap_runs) {
            int cap = x->cap_runs ? x->cap_runs * 2 : 16;
            struct basalt_qspill_file **r = basalt_realloc(x->runs, (size_t)cap * sizeof *r);
            if (r != NULL) {
                x->runs = r;
                x->cap_runs = cap;
            }
        }
        if (x->n_runs < x->cap_runs) {
            x->runs[x->n_runs++] = f;
            f = NULL;
        } else {
            st = nomem(err);
        }
        pthread_mutex_unlock(&x->lock);
    }
    if (st == BASALT_OK) {
        atomic_fetch_add(&x->runs_made, 1);
        atomic_fetch_add(&x->rows_spilled, rows);
        atomic_fetch_add(&x->bytes_spilled, bytes);
    }
    basalt_qspill_file_free(f);
    if (st != BASALT_OK)
        basalt_error_context(err, st, "ORDER BY: spilling a sorted run");
    return st;
}

/* ------------------------------------------------------------------ merge */

static basalt_status load(struct merge *m, struct cursor *c, struct basalt_error *err)
{
    int64_t nc = m->x->schema.n_children;
    for (;;) {
        struct ArrowArray a;
        basalt_status st = basalt_qspill_file_next(c->f, &a, err);
        if (st != BASALT_OK)
            return st;
        if (a.release == NULL) {
            c->f = NULL;
            return BASALT_OK;
        }
        if (a.length == 0) {
            basalt_arrow_array_release(&a);
            continue;
        }
        if (a.n_children != nc + 2) {
            basalt_arrow_array_release(&a);
            return basalt_error_set(err, BASALT_CORRUPT, "spill file: wrong width");
        }
        if (m->n_tab == m->cap_tab) {
            int cap = m->cap_tab * 2;
            struct ArrowArray *t = basalt_realloc(m->tab, (size_t)cap * sizeof *t);
            if (t == NULL) {
                basalt_arrow_array_release(&a);
                return nomem(err);
            }
            m->tab = t;
            m->cap_tab = cap;
        }
        c->slot = m->n_tab;
        basalt_arrow_array_move(&a, &m->tab[m->n_tab++]);
        const struct ArrowArray *b = &m->tab[c->slot];
        c->pos = (const int64_t *)b->children[nc]->buffers[1] + b->children[nc]->offset + b->offset;
        c->prow = (const int64_t *)b->children[nc + 1]->buffers[1] + b->children[nc + 1]->offset +
                  b->offset;
        c->row = 0;
        c->len = b->length;
        return BASALT_OK;
    }
}

/* Whether cursor i's row comes before cursor j's. */
static bool before(struct merge *m, int i, int j)
{
    const struct cursor *a = &m->cur[i], *b = &m->cur[j];
    int r = basalt_qs_row_cmp(m->x->cmp, &m->tab[a->slot], a->row, &m->tab[b->slot], b->row);
    if (r)
        return r < 0;
    if (a->pos[a->row] != b->pos[b->row])
        return a->pos[a->row] < b->pos[b->row];
    return a->prow[a->row] < b->prow[b->row];
}

static void sift_down(struct merge *m, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, s = i;
        if (l < m->n_heap && before(m, m->heap[l], m->heap[s]))
            s = l;
        if (r < m->n_heap && before(m, m->heap[r], m->heap[s]))
            s = r;
        if (s == i)
            return;
        int t = m->heap[i];
        m->heap[i] = m->heap[s];
        m->heap[s] = t;
        i = s;
    }
}

/* Drops the loaded batches no cursor is on any more. */
static basalt_status drop_passed(struct merge *m, struct basalt_error *err)
{
    bool *keep = basalt_calloc((size_t)m->n_tab + 1, sizeof *keep);
    int *to = basalt_calloc((size_t)m->n_tab + 1, sizeof *to);
    if (keep == NULL || to == NULL) {
        basalt_free(keep);
        basalt_free(to);
        return nomem(err);
    }
    for (int i = 0; i < m->n_cur; i++)
        if (m->cur[i].f != NULL || m->cur[i].row < m->cur[i].len)
            keep[m->cur[i].slot] = true;
    int k = 0;
    for (int t = 0; t < m->n_tab; t++) {
        if (!keep[t]) {
            basalt_arrow_array_release(&m->tab[t]);
            continue;
        }
        to[t] = k;
        if (t != k)
            basalt_arrow_array_move(&m->tab[t], &m->tab[k]);
        k++;
    }
    for (int i = 0; i < m->n_cur; i++)
        if (m->cur[i].f != NULL || m->cur[i].row < m->cur[i].len)
            m->cur[i].slot = to[m->cur[i].slot];
    m->n_tab = k;
    basalt_free(keep);
    basalt_free(to);
    return BASALT_OK;
}

static void merge_close(struct merge *m)
{
    for (int t = 0; m->tab != NULL && t < m->n_tab; t++)
        basalt_arrow_array_release(&m->tab[t]);
    basalt_free(m->tab);
    basalt_free(m->cur);
    basalt_free(m->heap);
    basalt_free(m->src);
    basalt_free(m->idx);
    memset(m, 0, sizeof *m);
}

/* Starts merging runs[0..n) (borrowed: read, not freed). */
static basalt_status merge_open(struct basalt_qsort_ext *x, struct basalt_qspill_file **runs,
                                int n, struct merge *m, struct basalt_error *err)
{
    memset(m, 0, sizeof *m);
    m->x = x;
    m->n_cur = n;
    m->cur = basalt_calloc((size_t)n + 1, sizeof *m->cur);
    m->heap = basalt_calloc((size_t)n + 1, sizeof *m->heap);
    m->cap_tab = n + 16;
    m->tab = basalt_calloc((size_t)m->cap_tab, sizeof *m->tab);
    m->src = basalt_malloc(MERGE_ROWS * sizeof *m->src);
    m->idx = basalt_malloc(MERGE_ROWS * sizeof *m->idx);
    basalt_status st = m->cur && m->heap && m->tab && m->src && m->idx ? BASALT_OK : nomem(err);
    for (int r = 0; r < n && st == BASALT_OK; r++) {
        m->cur[r].f = runs[r];
        st = load(m, &m->cur[r], err);
        if (st == BASALT_OK && m->cur[r].len > 0)
            m->heap[m->n_heap++] = r;
    }
    for (int i = m->n_heap / 2 - 1; i >= 0 && st == BASALT_OK; i--)
        sift_down(m, i);
    if (st != BASALT_OK)
        merge_close(m);
    return st;
}

/* The next (up to) MERGE_ROWS rows in order, with the columns of `schema`
 * (the input's, or the augmented ones for an intermediate run); at the end
 * out->release is NULL. */
static basalt_status merge_next(struct merge *m, const struct ArrowSchema *schema,
                                struct ArrowArray *out, struct basalt_error *err)
{
    out->release = NULL;
    basalt_status st = BASALT_OK;
    int64_t n = 0;
    while (st == BASALT_OK && m->n_heap > 0 && n < MERGE_ROWS) {
        struct cursor *c = &m->cur[m->heap[0]];
        m->src[n] = c->slot;
        m->idx[n] = c->row;
        n++;
        if (++c->row == c->len) {
            c->len = 0;
            c->row = 0;
            if (c->f != NULL)
                st = load(m, c, err);
            if (st != BASALT_OK)
                break;
            if (c->len == 0)
                m->heap[0] = m->heap[--m->n_heap];
        }
        if (m->n_heap > 0)
            sift_down(m, 0);
    }
    if (st == BASALT_OK && n > 0)
        st = basalt_qs_gather(schema, m->tab, m->n_tab, m->src, m->idx, n, out, err);
    if (st == BASALT_OK)
        st = drop_passed(m, err);
    if (st != BASALT_OK && out->release != NULL)
        basalt_arrow_array_release(out);
    return st;
}

/* Runs one merge may read at once: each holds a batch of RUN_BATCH rows
 * in memory, so a quarter of the limit bounds them. Past it the runs are
 * merged into fewer, longer runs first. */
static int merge_fan_in(const struct basalt_qsort_ext *x, int64_t memory_limit)
{
    int64_t forced = basalt_qspill_test_fan_in();
    if (forced >= 2)
        return (int)forced;
    int64_t rows = atomic_load(&x->rows_spilled), bytes = atomic_load(&x->bytes_spilled);
    if (memory_limit <= 0 || rows <= 0)
        return 1024;
    double per_batch = (double)bytes / (double)rows * RUN_BATCH;
    double fan = (double)memory_limit / 4 / (per_batch > 1 ? per_batch : 1);
    return fan < 8 ? 8 : fan > 1024 ? 1024 : (int)fan;
}

/* Merges the first `n` runs into one run (the positions kept, so ties keep
 * their order) that takes their place at the end of the list. */
static basalt_status merge_into_run(struct basalt_qsort_ext *x, int n, struct basalt_error *err)
{
    struct merge m;
    struct basalt_qspill_file *f = NULL;
    basalt_status st = basalt_qspill_file_new(x->dir, &x->aug, &f, err);
    if (st == BASALT_OK)
        st = merge_open(x, x->runs, n, &m, err);
    if (st != BASALT_OK) {
        basalt_qspill_file_free(f);
        return st;
    }
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray b;
        st = merge_next(&m, &x->aug, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        for (int64_t from = 0; from < b.length && st == BASALT_OK; from += RUN_BATCH) {
            struct ArrowArray view = b;
            view.offset = b.offset + from;
            view.length = b.length - from < RUN_BATCH ? b.length - from : RUN_BATCH;
            view.null_count = b.null_count == 0 ? 0 : -1;
            st = basalt_qspill_file_write(f, &view, err);
        }
        rows += b.length;
        basalt_arrow_array_release(&b);
        if (st != BASALT_OK)
            break;
    }
    merge_close(&m);
    if (st == BASALT_OK)
        st = basalt_qspill_file_seal(f, err);
    if (st != BASALT_OK) {
        basalt_qspill_file_free(f);
        return st;
    }
    for (int r = 0; r < n; r++)
        basalt_qspill_file_free(x->runs[r]);
    memmove(x->runs, x->runs + n, (size_t)(x->n_runs - n) * sizeof *x->runs);
    x->n_runs -= n;
    x->runs[x->n_runs++] = f;
    atomic_fetch_add(&x->merge_passes, 1);
    atomic_fetch_add(&x->rows_spilled, rows);
    atomic_fetch_add(&x->bytes_spilled, basalt_qspill_file_bytes(f));
    return BASALT_OK;
}

basalt_status basalt_qsort_ext_start(struct basalt_qsort_ext *x, struct basalt_pool *pool,
                                     int64_t memory_limit, struct basalt_error *err)
{
    if (x->started)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: started twice");
    x->started = true;
    if (x->n_runs == 0 && x->n_keys == 0)
        return slots_in_order(x, &x->sorted, err);
    if (x->n_runs == 0)
        return sort_slots(x, -1, false, pool, &x->sorted, err);
    basalt_status st = BASALT_OK;
    for (int w = 0; w < x->workers && st == BASALT_OK; w++)
        st = basalt_qsort_ext_spill(x, w, err);
    int fan_in = merge_fan_in(x, memory_limit);
    while (st == BASALT_OK && x->n_runs > fan_in)
        st = merge_into_run(x, fan_in, err);
    if (st == BASALT_OK) {
        st = merge_open(x, x->runs, x->n_runs, &x->final, err);
        x->merging = st == BASALT_OK;
    }
    if (st != BASALT_OK)
        basalt_error_context(err, st, "ORDER BY: merging the sorted runs");
    return st;
}

basalt_status basalt_qsort_ext_next(struct basalt_qsort_ext *x, struct ArrowArray *out,
                                    struct basalt_error *err)
{
    out->release = NULL;
    if (!x->merging) {
        while (x->next_sorted < x->sorted.n && out->release == NULL) {
            struct ArrowArray *b = &x->sorted.arrays[x->next_sorted++];
            if (b->length > 0)
                basalt_arrow_array_move(b, out);
            else
                basalt_arrow_array_release(b);
        }
        return BASALT_OK;
    }
    basalt_status st = merge_next(&x->final, &x->schema, out, err);
    if (st != BASALT_OK || out->release == NULL) {
        /* The runs' space goes back now rather than with the plan. */
        merge_close(&x->final);
        x->merging = false;
        for (int r = 0; r < x->n_runs; r++)
            basalt_qspill_file_free(x->runs[r]);
        x->n_runs = 0;
    }
    return st;
}

const struct ArrowSchema *basalt_qsort_ext_schema(const struct basalt_qsort_ext *x)
{
    return &x->schema;
}

void basalt_qsort_ext_stats(const struct basalt_qsort_ext *x, struct basalt_qsort_ext_stats *out)
{
    memset(out, 0, sizeof *out);
    out->runs = atomic_load(&x->runs_made);
    out->rows_spilled = atomic_load(&x->rows_spilled);
    out->bytes_spilled = atomic_load(&x->bytes_spilled);
    out->merge_passes = atomic_load(&x->merge_passes);
    out->rows = atomic_load(&x->rows_in);
}
