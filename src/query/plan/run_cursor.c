/* Cursors: a plan's rows a batch at a time, so that a result larger than
 * memory can go to a file or a client as it is made (query_plan.h,
 * basalt_qplan_open).
 *
 * The node at the top decides how its rows come:
 *   - a sort under the memory limit (no LIMIT): its input is run into
 *     sorted runs when the cursor opens, then merged a batch per call;
 *   - GROUP BY under the memory limit: when it spills, its result is
 *     written to a spill file as its partitions finish, and read back a
 *     batch per call (otherwise it fits, and is held);
 *   - a window with PARTITION BY under the memory limit: its sorted input
 *     is computed a chunk of whole partitions per call;
 *   - LIMIT: the rows [offset, offset + limit) of its input's cursor, which
 *     is read no further than they need;
 *   - UNION ALL: the cursors of its inputs, one after the other;
 *   - a CSV, JSON or IPC file: its reader's batches, as it parses them
 *     (run_file_scan.c);
 *   - anything else is a pipeline (basalt_qrun_open): breakers under it
 *     run first, as in execute, except a streamable one at its bottom,
 *     whose cursor feeds the pipeline; the pipeline's morsels run a window
 *     at a time on the pool, and a window's batches go out in morsel order.
 * Rows and order are execute's: windows are numbered as execute numbers
 * morsels, and every sink above keeps their order. */
#include <string.h>

#include "plan/run_internal.h"
#include "sort/sort.h"
#include "spill/spill.h"

enum cursor_kind { CUR_PIPE, CUR_SORT, CUR_AGG, CUR_WINDOW, CUR_CUT, CUR_CONCAT, CUR_FILE };

struct basalt_qcursor {
    struct basalt_qctx *ctx;
    struct basalt_qplan *node;
    enum cursor_kind kind;
    /* CUR_PIPE */
    struct qpipeline pl;
    struct basalt_qcursor *feed; /* the streamed breaker under it, or NULL */
    int64_t next_morsel;         /* without feed: the next morsel to run */
    int64_t window;              /* morsels run at a time */
    int64_t bytes_out, morsels_run; /* so far: what sizes the windows */
    struct basalt_arrow_batches ready; /* PIPE: the window's rows; AGG: the result held */
    int64_t next_ready;
    /* CUR_SORT */
    struct basalt_qsort_ext *sort;
    /* CUR_AGG: the result of an aggregation that spilled */
    struct basalt_qspill_file *result;
    /* CUR_WINDOW */
    struct basalt_qwin_stream *win;
    /* CUR_CUT, CUR_CONCAT: the input now read (CONCAT: input `next_input` - 1) */
    struct basalt_qcursor *input;
    int64_t skip, left; /* CUT: rows still to drop, to give (-1: all) */
    int next_input;
    double ms; /* spent in next, for EXPLAIN ANALYZE's time of a pipeline */
    /* a failure ends the cursor: every later call returns it again */
    basalt_status failed;
    struct basalt_error err;
};

/* Bytes a window of the pipeline aims at: enough that its workers rarely
 * wait at the window's end, small beside the memory limit. */
static int64_t window_bytes(const struct basalt_qctx *ctx)
{
    int64_t target = 256ll << 20;
    if (ctx->o.memory_limit > 0 && ctx->o.memory_limit / 16 < target)
        target = ctx->o.memory_limit / 16;
    return target;
}

bool basalt_qcursor_streams(const struct basalt_qctx *ctx, const struct basalt_qplan *node)
{
    switch (node->kind) {
    case QPLAN_SORT:
        return ctx->o.memory_limit > 0 && node->limit < 0;
    case QPLAN_AGGREGATE:
        return ctx->o.memory_limit > 0 && node->n_exprs > 0; /* GROUP BY spills */
    case QPLAN_WINDOW:
        return basalt_qrun_window_spills(ctx, node);
    case QPLAN_LIMIT:
    case QPLAN_UNION_ALL:
    case QPLAN_SCAN_CSV:
    case QPLAN_SCAN_JSON:
    case QPLAN_SCAN_IPC:
        return true;
    default:
        return false;
    }
}

static basalt_status open_pipe(struct basalt_qcursor *c, struct basalt_error *err)
{
    c->kind = CUR_PIPE;
    basalt_qpipeline_init(&c->pl);
    c->pl.defer_breakers = true;
    c->window = 2 * (int64_t)basalt_qrun_workers(c->ctx);
    basalt_status st = basalt_qrun_open(c->ctx, c->node, &c->pl, err);
    if (st == BASALT_OK && c->pl.deferred != NULL)
        st = basalt_qcursor_new_at(c->ctx, c->pl.deferred, &c->feed, err);
    return st;
}

basalt_status basalt_qcursor_new_at(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                    struct basalt_qcursor **out, struct basalt_error *err)
{
    struct basalt_qcursor *c = basalt_calloc(1, sizeof *c);
    if (c == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    c->ctx = ctx;
    c->node = node;
    basalt_error_init(&c->err);
    basalt_arrow_batches_init(&c->ready);
    *out = c;
    if (!basalt_qcursor_streams(ctx, node))
        return open_pipe(c, err);
    switch (node->kind) {
    case QPLAN_SORT:
        c->kind = CUR_SORT;
        return basalt_qrun_sort_spilling(ctx, node, &c->sort, err);
    case QPLAN_AGGREGATE: {
        c->kind = CUR_AGG;
        double t0 = basalt_qrun_now_ms();
        basalt_status st = basalt_qrun_aggregate_to(ctx, node, &c->ready, &c->result, err);
        node->ms += basalt_qrun_now_ms() - t0;
        return st;
    }
    case QPLAN_WINDOW:
        c->kind = CUR_WINDOW;
        return basalt_qwin_stream_open(ctx, node, &c->win, err);
    case QPLAN_LIMIT:
        c->kind = CUR_CUT;
        c->skip = node->offset;
        c->left = node->limit;
        return basalt_qcursor_new_at(ctx, node->child[0], &c->input, err);
    case QPLAN_SCAN_CSV:
    case QPLAN_SCAN_JSON:
    case QPLAN_SCAN_IPC:
        c->kind = CUR_FILE;
        return BASALT_OK;
    default:
        c->kind = CUR_CONCAT;
        return BASALT_OK;
    }
}

void basalt_qcursor_free(struct basalt_qcursor *c)
{
    if (c == NULL)
        return;
    if (c->kind == CUR_PIPE)
        basalt_qpipeline_reset(&c->pl);
    basalt_arrow_batches_reset(&c->ready);
    basalt_qspill_file_free(c->result);
    basalt_qwin_stream_free(c->win);
    basalt_qcursor_free(c->feed);
    basalt_qcursor_free(c->input);
    basalt_qsort_ext_free(c->sort);
    basalt_free(c);
}

basalt_status basalt_qcursor_fill(struct basalt_qcursor *feed, struct qsource *src, int64_t max,
                                  struct basalt_error *err)
{
    for (int64_t i = 0; i < src->batches.n; i++)
        if (src->batches.arrays[i].release != NULL)
            basalt_arrow_array_release(&src->batches.arrays[i]);
    src->batches.n = 0;
    basalt_status st = BASALT_OK;
    int64_t bytes = 0, budget = window_bytes(feed->ctx);
    while (st == BASALT_OK && src->batches.n < max && bytes < budget) {
        struct ArrowArray b;
        st = basalt_qcursor_next(feed, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        bytes += basalt_qspill_array_bytes(&feed->node->schema, &b);
        st = basalt_arrow_batches_append(&src->batches, &b, err);
    }
    src->n_morsels = src->batches.n;
    return st;
}

/* Runs the pipeline's next window into c->ready; *ran: its morsels, 0 when
 * none are left. A window can run and leave ready empty (every morsel a row
 * group the statistics rule out), which is not the end. */
static basalt_status next_window(struct basalt_qcursor *c, int64_t *ran, struct basalt_error *err)
{
    basalt_arrow_batches_reset(&c->ready);
    c->next_ready = 0;
    *ran = 0;
    int64_t first = 0, n = 0;
    basalt_status st = BASALT_OK;
    if (c->feed != NULL) {
        st = basalt_qcursor_fill(c->feed, &c->pl.src, c->window, err);
        n = c->pl.src.n_morsels;
    } else {
        first = c->next_morsel;
        n = c->pl.src.n_morsels - first;
        if (n > c->window)
            n = c->window;
        c->next_morsel += n;
    }
    if (st != BASALT_OK || n == 0)
        return st;
    *ran = n;
    struct qsink sink;
    st = basalt_qsink_collect_init(&sink, n, -1, err);
    if (st != BASALT_OK)
        return st;
    sink.first = first;
    st = basalt_qpipeline_run_range(c->ctx, &c->pl, &sink, first, first + n, err);
    if (st == BASALT_OK)
        st = basalt_qsink_collect_finish(&sink, c->pl.schema, &c->ready, err);
    basalt_qsink_collect_reset(&sink);
    /* The next window: as many morsels as window_bytes() holds, judging by
     * the output so far (not one window's: a window of one small batch
     * would make the next one huge), and at least one per worker. */
    for (int64_t i = 0; st == BASALT_OK && i < c->ready.n; i++)
        c->bytes_out += basalt_qspill_array_bytes(&c->ready.schema, &c->ready.arrays[i]);
    c->morsels_run += n;
    int64_t per = c->bytes_out / c->morsels_run, workers = basalt_qrun_workers(c->ctx);
    c->window = window_bytes(c->ctx) / (per > 0 ? per : 1);
    if (c->window < workers)
        c->window = workers;
    if (c->window > 4096)
        c->window = 4096;
    return st;
}

/* The next non-empty batch of c->ready, if any. */
static bool next_ready(struct basalt_qcursor *c, struct ArrowArray *out)
{
    while (c->next_ready < c->ready.n) {
        struct ArrowArray *b = &c->ready.arrays[c->next_ready++];
        if (b->length > 0) {
            basalt_arrow_array_move(b, out);
            return true;
        }
        basalt_arrow_array_release(b);
    }
    return false;
}

/* GROUP BY: the held result, or the spilled one read back. */
static basalt_status agg_next(struct basalt_qcursor *c, struct ArrowArray *out,
                              struct basalt_error *err)
{
    if (c->result == NULL) {
        next_ready(c, out);
        return BASALT_OK;
    }
    for (;;) {
        basalt_status st = basalt_qspill_file_next(c->result, out, err);
        if (st != BASALT_OK || out->release == NULL) {
            basalt_qspill_file_free(c->result); /* its space goes back now */
            c->result = NULL;
            return st;
        }
        if (out->length > 0)
            return BASALT_OK;
        basalt_arrow_array_release(out);
    }
}

static basalt_status pipe_next(struct basalt_qcursor *c, struct ArrowArray *out,
                               struct basalt_error *err)
{
    for (;;) {
        if (next_ready(c, out))
            return BASALT_OK;
        int64_t ran;
        basalt_status st = next_window(c, &ran, err);
        if (st != BASALT_OK)
            return st;
        if (ran == 0)
            return BASALT_OK; /* the end */
    }
}

/* LIMIT: drops rows up to the offset, cuts the last batch. */
static basalt_status cut_next(struct basalt_qcursor *c, struct ArrowArray *out,
                              struct basalt_error *err)
{
    while (c->left != 0) {
        struct ArrowArray b;
        basalt_status st = basalt_qcursor_next(c->input, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            return st;
        if (c->skip >= b.length) {
            c->skip -= b.length;
            basalt_arrow_array_release(&b);
            continue;
        }
        int64_t from = c->skip, n = b.length - c->skip;
        c->skip = 0;
        if (c->left >= 0 && n > c->left)
            n = c->left;
        if (c->left > 0)
            c->left -= n;
        if (from == 0 && n == b.length) {
            basalt_arrow_array_move(&b, out);
            return BASALT_OK;
        }
        st = basalt_qrun_take_rows(&c->node->schema, &b, from, n, out, err);
        basalt_arrow_array_release(&b);
        return st;
    }
    /* Enough rows: what is under the limit need not run any further. */
    basalt_qcursor_free(c->input);
    c->input = NULL;
    return BASALT_OK;
}

/* UNION ALL: each input's rows in turn, an input opened when the one
 * before it ends. */
static basalt_status concat_next(struct basalt_qcursor *c, struct ArrowArray *out,
                                 struct basalt_error *err)
{
    for (;;) {
        if (c->input != NULL) {
            basalt_status st = basalt_qcursor_next(c->input, out, err);
            if (st != BASALT_OK || out->release != NULL)
                return st;
            basalt_qcursor_free(c->input);
            c->input = NULL;
        }
        if (c->next_input == c->node->n_children)
            return BASALT_OK;
        basalt_status st =
            basalt_qcursor_new_at(c->ctx, c->node->children[c->next_input++], &c->input, err);
        if (st != BASALT_OK)
            return st;
    }
}

basalt_status basalt_qcursor_next(struct basalt_qcursor *c, struct ArrowArray *out,
                                  struct basalt_error *err)
{
    if (c == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "cursor_next: NULL argument");
    out->release = NULL;
    if (c->failed != BASALT_OK) {
        if (err != NULL)
            *err = c->err;
        return c->failed;
    }
    basalt_status st;
    double t0 = basalt_qrun_now_ms();
    switch (c->kind) {
    case CUR_PIPE:
        st = pipe_next(c, out, err);
        break;
    case CUR_SORT:
        st = basalt_qsort_ext_next(c->sort, out, err);
        break;
    case CUR_AGG:
        st = agg_next(c, out, err);
        break;
    case CUR_WINDOW:
        st = basalt_qwin_stream_next(c->win, out, err);
        break;
    case CUR_CUT:
        st = c->input != NULL ? cut_next(c, out, err) : BASALT_OK;
        break;
    case CUR_FILE:
        st = basalt_qrun_file_scan_next(c->node, out, err);
        break;
    default:
        st = concat_next(c, out, err);
        break;
    }
    double ms = basalt_qrun_now_ms() - t0;
    c->ms += ms;
    if (c->kind != CUR_PIPE)
        c->node->ms += ms;
    else if (st == BASALT_OK && out->release == NULL && c->node->ms == 0)
        c->node->ms = c->ms; /* as execute times its root */
    if (st == BASALT_OK && out->release != NULL && c->kind != CUR_PIPE)
        atomic_fetch_add(&c->node->rows_out, out->length);
    if (st != BASALT_OK) {
        c->failed = st;
        if (err != NULL)
            c->err = *err;
    }
    return st;
}

basalt_status basalt_qplan_open(struct basalt_qctx *ctx, struct basalt_qplan *root,
                                struct basalt_qcursor **out, struct basalt_error *err)
{
    if (out != NULL)
        *out = NULL;
    if (ctx == NULL || root == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "open: NULL argument");
    if (root->executed)
        return basalt_error_set(err, BASALT_INVALID_ARG, "open: the plan has run already");
    root->executed = true;
    basalt_status st = basalt_qplan_optimize_plan(ctx, root, err);
    if (st == BASALT_OK)
        st = basalt_qcursor_new_at(ctx, root, out, err);
    if (st != BASALT_OK) {
        basalt_qcursor_free(*out);
        *out = NULL;
    }
    return st;
}

const struct ArrowSchema *basalt_qcursor_schema(const struct basalt_qcursor *c)
{
    return &c->node->schema;
}
