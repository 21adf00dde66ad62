/* The window operator's driver: boundary marks, the partition list, the
 * calls computed partition by partition (on the pool when there are enough
 * partitions to share), and the output batches: the sorted batches' columns
 * moved over, each call's column cut from its flat result or gathered from
 * its source rows. */
#include <string.h>

#include "window/window_impl.h"

/* Work below this many rows stays on the calling thread. */
#define PARALLEL_ROWS 131072
/* Rows per chunk handed to a worker, about. */
#define CHUNK_ROWS 65536

static bool is_rank(enum basalt_qplan_window_fn f)
{
    return f == BASALT_QPLAN_WIN_ROW_NUMBER || f == BASALT_QPLAN_WIN_RANK ||
           f == BASALT_QPLAN_WIN_DENSE_RANK || f == BASALT_QPLAN_WIN_PERCENT_RANK ||
           f == BASALT_QPLAN_WIN_CUME_DIST || f == BASALT_QPLAN_WIN_NTILE;
}

/* The functions that read the frame. */
static bool is_framed(enum basalt_qplan_window_fn f)
{
    return f >= BASALT_QPLAN_WIN_FIRST_VALUE;
}

static bool is_source(enum basalt_qplan_window_fn f)
{
    return f == BASALT_QPLAN_WIN_LAG || f == BASALT_QPLAN_WIN_LEAD ||
           f == BASALT_QPLAN_WIN_FIRST_VALUE || f == BASALT_QPLAN_WIN_LAST_VALUE ||
           f == BASALT_QPLAN_WIN_NTH_VALUE || f == BASALT_QPLAN_WIN_MIN ||
           f == BASALT_QPLAN_WIN_MAX;
}

/* Whether a call reads peer groups (so the order keys must be compared). */
static bool needs_peers(const struct basalt_qplan_window_call *c)
{
    switch (c->fn) {
    case BASALT_QPLAN_WIN_RANK:
    case BASALT_QPLAN_WIN_DENSE_RANK:
    case BASALT_QPLAN_WIN_PERCENT_RANK:
    case BASALT_QPLAN_WIN_CUME_DIST:
        return true;
    case BASALT_QPLAN_WIN_ROW_NUMBER:
    case BASALT_QPLAN_WIN_NTILE:
    case BASALT_QPLAN_WIN_LAG:
    case BASALT_QPLAN_WIN_LEAD:
        return false;
    default:
        /* RANGE and GROUPS frames read peers unless they span the partition
         * (a NULL key's RANGE offset is its peers'); EXCLUDE GROUP and TIES
         * take them out. */
        return !c->has_frame ||
               (!c->rows && (c->start != BASALT_QPLAN_UNBOUNDED_PRECEDING ||
                             c->end != BASALT_QPLAN_UNBOUNDED_FOLLOWING)) ||
               c->exclude == BASALT_QPLAN_EXCLUDE_GROUP || c->exclude == BASALT_QPLAN_EXCLUDE_TIES;
    }
}

/* ------------------------------------------------------------------ boundaries */

struct mark_job {
    const struct qw_view *v;
    uint8_t mark;
    uint8_t *bnd;
};

static void mark_range(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    const struct mark_job *j = ctx;
    basalt_qw_mark(j->v, j->mark, begin < 1 ? 1 : begin, end, j->bnd);
}

static basalt_status mark_keys(struct qw_run *r, const int *cols, int n, uint8_t mark,
                               struct basalt_pool *pool, uint8_t *bnd, struct basalt_error *err)
{
    for (int k = 0; k < n; k++) {
        struct qw_view v;
        basalt_status st = basalt_qw_view(&r->in, cols[k], QWP_KEY, pool, r->workers, &v, err);
        if (st != BASALT_OK)
            return st;
        struct mark_job j = {&v, mark, bnd};
        basalt_pool_parallel_for(pool, r->workers, r->in.n, CHUNK_ROWS, mark_range, &j);
        basalt_qw_view_free(&v);
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ partitions */

struct part_job {
    struct qw_run *r;
};

static void part_range(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct qw_run *r = ((struct part_job *)ctx)->r;
    int64_t whole = 0, running = 0, sliding = 0, pushes = 0;
    for (int64_t p = begin; p < end; p++) {
        int64_t s = r->parts[p], e = r->parts[p + 1];
        for (int c = 0; c < r->spec->n_calls; c++) {
            struct qw_call *k = &r->calls[c];
            enum basalt_qplan_window_fn f = k->c->fn;
            if (is_rank(f)) {
                basalt_qw_rank(r, k, s, e);
            } else if (f == BASALT_QPLAN_WIN_MIN || f == BASALT_QPLAN_WIN_MAX ||
                       f == BASALT_QPLAN_WIN_COUNT_STAR || f == BASALT_QPLAN_WIN_COUNT ||
                       f == BASALT_QPLAN_WIN_SUM || f == BASALT_QPLAN_WIN_AVG) {
                int how = basalt_qw_agg(r, k, s, e, worker, &pushes);
                whole += how == 0;
                running += how == 1;
                sliding += how == 2;
            } else {
                basalt_qw_value(r, k, s, e);
            }
        }
    }
    atomic_fetch_add(&r->whole, whole);
    atomic_fetch_add(&r->running, running);
    atomic_fetch_add(&r->sliding, sliding);
    atomic_fetch_add(&r->pushes, pushes);
}

/* ------------------------------------------------------------------ output columns */

static basalt_status fixed_column(const struct qw_call *k, size_t width, int64_t lo, int64_t len,
                                  struct ArrowArray *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(out, 2, 0, err);
    if (st != BASALT_OK)
        return st;
    out->length = len;
    void *mem;
    st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)len * width + 1, &mem, err);
    if (st == BASALT_OK)
        memcpy(mem, (const char *)k->vals + (size_t)lo * width, (size_t)len * width);
    int64_t nulls = 0;
    for (int64_t i = 0; k->valid != NULL && i < len; i++)
        nulls += !k->valid[lo + i];
    if (st == BASALT_OK && nulls > 0) {
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(len), &mem, err);
        if (st == BASALT_OK) {
            memset(mem, 0, (size_t)basalt_bitmap_bytes(len));
            for (int64_t i = 0; i < len; i++)
                if (k->valid[lo + i])
                    basalt_bitmap_set(mem, i, true);
            out->null_count = nulls;
        }
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

/* The batch holding row t, starting the search at batch b. */
static int64_t batch_of(const struct qw_input *in, int64_t t, int64_t b)
{
    if (t >= in->start[b] && t < in->start[b + 1])
        return b;
    int64_t lo = 0, hi = in->n_batches - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (in->start[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The arrays a gathered column reads: the argument's column of every batch,
 * then the default's. Shallow copies, valid while the batches are. */
struct source_table {
    struct ArrowArray *arrays;
    int32_t n;
};

static basalt_status source_column(const struct qw_run *r, const struct qw_call *k,
                                   const struct source_table *tab, int64_t b,
                                   struct ArrowArray *out, struct basalt_error *err)
{
    const struct qw_input *in = &r->in;
    int64_t lo = in->start[b], len = in->start[b + 1] - lo, nb = in->n_batches;
    const int64_t *src = (const int64_t *)k->vals + lo;
    int32_t *sources = basalt_malloc((size_t)len * sizeof *sources + 1);
    int64_t *idx = basalt_malloc((size_t)len * sizeof *idx + 1);
    if (sources == NULL || idx == NULL) {
        basalt_free(sources);
        basalt_free(idx);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int64_t nulls = 0, at = b;
    for (int64_t i = 0; i < len; i++) {
        int64_t t = src[i];
        if (t >= 0) {
            at = batch_of(in, t, at);
            sources[i] = (int32_t)at;
            idx[i] = t - in->start[at];
        } else if (t == QW_SRC_CARRY) {
            sources[i] = tab->n - 1; /* the carried row, the table's last array */
            idx[i] = 0;
        } else if (t == QW_SRC_NULL) {
            /* Any row will do: its slot is made NULL below. */
            sources[i] = (int32_t)b;
            idx[i] = i;
            nulls++;
        } else {
            sources[i] = (int32_t)(nb + b); /* the default on the row itself */
            idx[i] = (-2 - t) - lo;
        }
    }
    const struct ArrowSchema *field = in->schema->children[k->c->arg];
    basalt_status st = basalt_arrow_take_many(field, tab->arrays, tab->n, sources, idx, len, out,
                                              err);
    basalt_free(sources);
    basalt_free(idx);
    if (st != BASALT_OK || nulls == 0)
        return st;
    /* A fresh bitmap: the gathered one (if any) with the NULL rows cleared. */
    int64_t nbytes = basalt_bitmap_bytes(out->offset + len);
    uint8_t *bits = basalt_aligned_alloc(64, (size_t)nbytes + 64);
    if (bits == NULL) {
        basalt_arrow_array_release(out);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (out->buffers[0] != NULL)
        memcpy(bits, out->buffers[0], (size_t)nbytes);
    else
        basalt_bitmap_fill(bits, 0, out->offset + len, true);
    for (int64_t i = 0; i < len; i++)
        if (src[i] == QW_SRC_NULL)
            basalt_bitmap_set(bits, out->offset + i, false);
    st = basalt_arrow_array_set_buffer(out, 0, bits, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    int64_t n_null = 0;
    for (int64_t i = 0; i < len; i++)
        n_null += !basalt_bitmap_get(bits, out->offset + i);
    out->null_count = n_null;
    return BASALT_OK;
}

struct out_job {
    struct qw_run *r;
    struct source_table *tabs; /* per call */
    struct ArrowArray *cols;   /* batch * n_calls + call */
    basalt_status *st;         /* per batch */
    struct basalt_error *errs; /* per batch */
};

static void out_range(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct out_job *j = ctx;
    struct qw_run *r = j->r;
    int nc = r->spec->n_calls;
    for (int64_t b = begin; b < end; b++) {
        int64_t lo = r->in.start[b], len = r->in.start[b + 1] - lo;
        basalt_status st = BASALT_OK;
        for (int c = 0; c < nc && st == BASALT_OK; c++) {
            struct qw_call *k = &r->calls[c];
            struct ArrowArray *col = &j->cols[b * nc + c];
            switch (k->okind) {
            case QWO_I64:
            case QWO_F64: st = fixed_column(k, 8, lo, len, col, &j->errs[b]); break;
            case QWO_DEC: st = fixed_column(k, 16, lo, len, col, &j->errs[b]); break;
            case QWO_SRC: st = source_column(r, k, &j->tabs[c], b, col, &j->errs[b]); break;
            }
        }
        j->st[b] = st;
    }
}

/* ------------------------------------------------------------------ driver */

static basalt_status prepare_call(struct qw_run *r, struct qw_call *k,
                                  const struct basalt_qplan_window_call *c,
                                  struct basalt_pool *pool, struct basalt_error *err)
{
    int64_t n = r->in.n;
    k->c = c;
    atomic_store(&k->overflow, -1);
    k->limit = basalt_qpow10(38);
    size_t width = 8;
    bool nullable = false;
    switch (c->fn) {
    case BASALT_QPLAN_WIN_PERCENT_RANK:
    case BASALT_QPLAN_WIN_CUME_DIST:
        k->okind = QWO_F64;
        break;
    case BASALT_QPLAN_WIN_AVG:
        k->okind = QWO_F64;
        nullable = true;
        break;
    case BASALT_QPLAN_WIN_SUM:
        nullable = true;
        break;
    default:
        k->okind = is_source(c->fn) ? QWO_SRC : QWO_I64;
        break;
    }
    basalt_status st = BASALT_OK;
    if (c->fn == BASALT_QPLAN_WIN_SUM || c->fn == BASALT_QPLAN_WIN_AVG)
        st = basalt_qw_view(&r->in, c->arg, QWP_NUM, pool, r->workers, &k->arg, err);
    else if (c->fn == BASALT_QPLAN_WIN_COUNT)
        st = basalt_qw_view(&r->in, c->arg, QWP_VALID, pool, r->workers, &k->arg, err);
    else if (c->fn == BASALT_QPLAN_WIN_MIN || c->fn == BASALT_QPLAN_WIN_MAX)
        st = basalt_qw_view(&r->in, c->arg, QWP_ORDER, pool, r->workers, &k->arg, err);
    if (st != BASALT_OK)
        return st;
    if (basalt_qw_frame_ranged(c) && r->spec->n_order > 0 && is_framed(c->fn)) {
        const struct basalt_qplan_sort_key *ok = r->spec->order_keys;
        st = basalt_qw_range_views(r, k, r->spec->order_cols[0], ok != NULL && ok[0].descending,
                                   pool, err);
    }
    if (st != BASALT_OK)
        return st;
    if (c->fn == BASALT_QPLAN_WIN_SUM) {
        k->okind = k->arg.kind == QWV_F64 ? QWO_F64 : QWO_DEC;
        width = k->okind == QWO_DEC ? 16 : 8;
    }
    if ((c->fn == BASALT_QPLAN_WIN_SUM || c->fn == BASALT_QPLAN_WIN_AVG) &&
        k->arg.kind == QWV_DEC) {
        k->wide = basalt_qw_sum_wide(r->in.schema->children[c->arg], &k->arg);
        k->scale = (double)basalt_qpow10(k->arg.scale);
    }
    k->vals = basalt_aligned_alloc(64, (size_t)(n + 1) * width);
    if (nullable)
        k->valid = basalt_calloc((size_t)n + 1, 1);
    if (k->vals == NULL || (nullable && k->valid == NULL))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

static void free_run(struct qw_run *r, int n_calls)
{
    for (int c = 0; r->calls != NULL && c < n_calls; c++) {
        basalt_free(r->calls[c].vals);
        basalt_free(r->calls[c].valid);
        basalt_qw_view_free(&r->calls[c].arg);
        basalt_qw_view_free(&r->calls[c].rkey);
        basalt_qw_view_free(&r->calls[c].rlo);
        basalt_qw_view_free(&r->calls[c].rhi);
    }
    for (int w = 0; r->deque != NULL && w < r->workers; w++)
        basalt_free(r->deque[w]);
    basalt_free(r->deque);
    basalt_free(r->calls);
    basalt_free(r->bnd);
    basalt_free(r->parts);
    basalt_free(r->in.start);
}

/* Moves each sorted batch's columns and the calls' columns into out. */
static basalt_status assemble(struct qw_run *r, struct ArrowArray *cols,
                              struct basalt_arrow_batches *out, struct basalt_error *err)
{
    int nin = (int)r->spec->schema->n_children, nc = r->spec->n_calls;
    basalt_status st = BASALT_OK;
    for (int64_t b = 0; b < r->in.n_batches && st == BASALT_OK; b++) {
        struct ArrowArray *in = &r->in.batches[b];
        struct ArrowArray ob;
        st = basalt_arrow_array_init(&ob, 1, nin + nc, err);
        if (st != BASALT_OK)
            break;
        ob.length = in->length;
        for (int k = 0; k < nin; k++)
            basalt_arrow_array_move(in->children[k], ob.children[k]);
        for (int c = 0; c < nc; c++)
            basalt_arrow_array_move(&cols[b * nc + c], ob.children[nin + c]);
        basalt_arrow_array_release(in);
        st = basalt_arrow_batches_append(out, &ob, err);
    }
    return st;
}

static basalt_status compute(const struct basalt_qwin_spec *spec,
                             struct basalt_arrow_batches *sorted, struct basalt_qwin_carry *carry,
                             int64_t advance, struct basalt_pool *pool, int workers,
                             struct basalt_arrow_batches *out, struct basalt_qwin_stats *stats,
                             struct basalt_error *err)
{
    struct qw_run r;
    memset(&r, 0, sizeof r);
    r.spec = spec;
    r.carry = carry;
    r.in.schema = spec->schema;
    r.in.batches = sorted->arrays;
    r.in.n_batches = sorted->n;
    r.workers = pool != NULL && workers > 1 ? workers : 1;
    if (r.workers == 1)
        pool = NULL;
    atomic_init(&r.whole, 0);
    atomic_init(&r.running, 0);
    atomic_init(&r.sliding, 0);
    atomic_init(&r.pushes, 0);
    atomic_init(&r.range_compares, 0);
    int nc = spec->n_calls;
    basalt_status st = BASALT_OK;
    if (out->schema.release == NULL)
        st = basalt_arrow_schema_copy(spec->out_schema, &out->schema, err);
    r.in.start = basalt_malloc((size_t)(r.in.n_batches + 1) * sizeof *r.in.start);
    if (st == BASALT_OK && r.in.start == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t b = 0; st == BASALT_OK && b <= r.in.n_batches; b++) {
        r.in.start[b] = r.in.n;
        if (b < r.in.n_batches)
            r.in.n += r.in.batches[b].length;
    }
    if (st == BASALT_OK && r.in.n < PARALLEL_ROWS)
        pool = NULL;
    uint8_t *bnd = NULL;
    if (st == BASALT_OK) {
        bnd = basalt_calloc((size_t)r.in.n + 1, 1);
        r.bnd = bnd;
        r.calls = basalt_calloc((size_t)nc + 1, sizeof *r.calls);
        if (bnd == NULL || r.calls == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    /* Partitions, then peers within them. */
    bool peers = false;
    for (int c = 0; c < nc; c++)
        peers |= spec->n_order > 0 && needs_peers(&spec->calls[c]);
    if (st == BASALT_OK)
        st = mark_keys(&r, spec->part_cols, spec->n_part, QW_PART, pool, bnd, err);
    if (st == BASALT_OK && peers)
        st = mark_keys(&r, spec->order_cols, spec->n_order, QW_PEER, pool, bnd, err);
    int64_t longest = 0;
    if (st == BASALT_OK && r.in.n > 0) {
        bnd[0] = QW_PART;
        int64_t np = 0;
        for (int64_t i = 0; i < r.in.n; i++)
            np += (bnd[i] & QW_PART) != 0;
        int64_t *parts = basalt_malloc((size_t)(np + 1) * sizeof *parts);
        if (parts == NULL) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        } else {
            np = 0;
            for (int64_t i = 0; i < r.in.n; i++)
                if (bnd[i] & QW_PART)
                    parts[np++] = i;
            parts[np] = r.in.n;
            for (int64_t p = 0; p < np; p++)
                if (parts[p + 1] - parts[p] > longest)
                    longest = parts[p + 1] - parts[p];
            r.parts = parts;
            r.n_parts = np;
        }
    }
    bool deque = false;
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        st = prepare_call(&r, &r.calls[c], &spec->calls[c], pool, err);
        const struct basalt_qplan_window_call *call = &spec->calls[c];
        deque |= (call->fn == BASALT_QPLAN_WIN_MIN || call->fn == BASALT_QPLAN_WIN_MAX) &&
                 (!basalt_qw_frame_running(call, spec->n_order > 0) ||
                  (call->has_frame && call->exclude != BASALT_QPLAN_EXCLUDE_NO_OTHERS));
    }
    if (st == BASALT_OK && deque) {
        /* Two deques: EXCLUDE leaves a frame's rows before and after the
         * excluded ones. */
        r.deque_cap = longest + 1;
        r.deque = basalt_calloc((size_t)r.workers, sizeof *r.deque);
        for (int w = 0; r.deque != NULL && w < r.workers; w++) {
            r.deque[w] = basalt_malloc((size_t)(2 * r.deque_cap) * sizeof **r.deque);
            if (r.deque[w] == NULL)
                break;
        }
        if (r.deque == NULL || r.deque[r.workers - 1] == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int64_t chunks = 0;
    if (st == BASALT_OK && r.n_parts > 0) {
        struct part_job pj = {&r};
        struct basalt_pool *pp = r.n_parts > 1 ? pool : NULL;
        int64_t grain = r.n_parts * CHUNK_ROWS / (r.in.n > 0 ? r.in.n : 1);
        if (grain < 1)
            grain = 1;
        if (pp != NULL)
            chunks = (r.n_parts + grain - 1) / grain;
        basalt_pool_parallel_for(pp, r.workers, r.n_parts, grain, part_range, &pj);
    }
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        long long row = atomic_load(&r.calls[c].overflow);
        if (row >= 0)
            st = basalt_error_set(err, BASALT_LIMIT,
                                  "Overflow in SUM: result exceeds DECIMAL(38) (window '%s')",
                                  spec->calls[c].name ? spec->calls[c].name : "");
    }
    /* The calls' columns, batch by batch, before any batch gives its columns away. */
    int64_t nb = r.in.n_batches;
    struct out_job oj = {&r, NULL, NULL, NULL, NULL};
    if (st == BASALT_OK) {
        oj.tabs = basalt_calloc((size_t)nc + 1, sizeof *oj.tabs);
        oj.cols = basalt_calloc((size_t)(nb * nc) + 1, sizeof *oj.cols);
        oj.st = basalt_calloc((size_t)nb + 1, sizeof *oj.st);
        oj.errs = basalt_calloc((size_t)nb + 1, sizeof *oj.errs);
        if (oj.tabs == NULL || oj.cols == NULL || oj.st == NULL || oj.errs == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        const struct basalt_qplan_window_call *call = &spec->calls[c];
        if (r.calls[c].okind != QWO_SRC || nb == 0)
            continue;
        int ndef = call->default_arg >= 0 &&
                   (call->fn == BASALT_QPLAN_WIN_LAG || call->fn == BASALT_QPLAN_WIN_LEAD);
        const struct ArrowArray *carried = carry != NULL ? basalt_qw_carried_row(&r, c) : NULL;
        int nbest = carried != NULL;
        oj.tabs[c].n = (int32_t)(nb * (1 + ndef) + nbest);
        oj.tabs[c].arrays = basalt_malloc((size_t)oj.tabs[c].n * sizeof *oj.tabs[c].arrays);
        if (oj.tabs[c].arrays == NULL) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            break;
        }
        for (int64_t b = 0; b < nb; b++) {
            oj.tabs[c].arrays[b] = *r.in.batches[b].children[call->arg];
            if (ndef)
                oj.tabs[c].arrays[nb + b] = *r.in.batches[b].children[call->default_arg];
        }
        if (nbest)
            oj.tabs[c].arrays[oj.tabs[c].n - 1] = *carried->children[call->arg];
    }
    if (st == BASALT_OK && nb > 0 && nc > 0) {
        basalt_pool_parallel_for(pool, r.workers, nb, 1, out_range, &oj);
        for (int64_t b = 0; b < nb && st == BASALT_OK; b++)
            if (oj.st[b] != BASALT_OK) {
                st = oj.st[b];
                if (err != NULL)
                    *err = oj.errs[b];
            }
    }
    /* The carry moves on once the columns are gathered (they may read its
     * carried rows) and before the batches give their columns away. */
    if (st == BASALT_OK && carry != NULL)
        st = basalt_qw_carry_advance(&r, advance, err);
    if (st == BASALT_OK)
        st = assemble(&r, oj.cols, out, err);
    for (int64_t i = 0; oj.cols != NULL && i < nb * nc; i++)
        basalt_arrow_array_release(&oj.cols[i]);
    for (int c = 0; oj.tabs != NULL && c < nc; c++)
        basalt_free(oj.tabs[c].arrays);
    basalt_free(oj.tabs);
    basalt_free(oj.cols);
    basalt_free(oj.st);
    basalt_free(oj.errs);
    if (stats != NULL) {
        memset(stats, 0, sizeof *stats);
        stats->rows = r.in.n;
        stats->partitions = r.n_parts;
        stats->whole_partition = atomic_load(&r.whole);
        stats->running = atomic_load(&r.running);
        stats->sliding = atomic_load(&r.sliding);
        stats->deque_pushes = atomic_load(&r.pushes);
        stats->parallel_chunks = chunks;
        stats->range_compares = atomic_load(&r.range_compares);
    }
    free_run(&r, nc);
    basalt_arrow_batches_reset(sorted);
    return st;
}

basalt_status basalt_qwin_compute(const struct basalt_qwin_spec *spec,
                                  struct basalt_arrow_batches *sorted, struct basalt_pool *pool,
                                  int workers, struct basalt_arrow_batches *out,
                                  struct basalt_qwin_stats *stats, struct basalt_error *err)
{
    return compute(spec, sorted, NULL, 0, pool, workers, out, stats, err);
}

basalt_status basalt_qwin_compute_stretch(const struct basalt_qwin_spec *spec,
                                          struct basalt_arrow_batches *sorted,
                                          struct basalt_qwin_carry *carry, int64_t advance,
                                          struct basalt_pool *pool, int workers,
                                          struct basalt_arrow_batches *out,
                                          struct basalt_error *err)
{
    return compute(spec, sorted, carry, advance, pool, workers, out, NULL, err);
}
