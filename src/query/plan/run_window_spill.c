/* A window with PARTITION BY under the memory limit: its input goes through
 * the external sort by (partition keys, order keys), whose runs spill, and
 * the merged rows are computed a chunk of whole partitions at a time, so
 * only the partitions of one chunk are in memory. The external sort keeps
 * ties in input order as the in-memory sort does, and a partition's values
 * depend on its rows alone, so the rows and their order are the in-memory
 * window's. One partition larger than the limit fails with LIMIT naming
 * it. */
#include <string.h>

#include "plan/run_internal.h"
#include "sort/sort.h"
#include "spill/spill.h"
#include "window/window.h"

struct basalt_qwin_stream {
    struct basalt_qctx *ctx;
    struct basalt_qplan *node;
    struct basalt_qwin_spec spec;
    int *order_cols;
    struct basalt_qsort_ext *x;  /* the input, sorted */
    struct basalt_qsort *part;   /* compares the partition keys */
    /* merged rows not computed yet: whole partitions, the last maybe not */
    struct basalt_arrow_batches pending;
    int64_t pending_rows, pending_bytes;
    bool input_done;
    struct basalt_arrow_batches out; /* the last chunk's result */
    int64_t next_out;
};

bool basalt_qrun_window_spills(const struct basalt_qctx *ctx, const struct basalt_qplan *node)
{
    return ctx->o.memory_limit > 0 && node->n_part > 0 && !node->has_row_limit;
}

void basalt_qwin_stream_free(struct basalt_qwin_stream *w)
{
    if (w == NULL)
        return;
    basalt_qsort_ext_free(w->x);
    basalt_qsort_free(w->part);
    basalt_arrow_batches_reset(&w->pending);
    basalt_arrow_batches_reset(&w->out);
    basalt_free(w->order_cols);
    basalt_free(w);
}

basalt_status basalt_qwin_stream_open(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                      struct basalt_qwin_stream **out, struct basalt_error *err)
{
    *out = NULL;
    int np = node->n_part, no = node->n_sort_keys;
    struct basalt_qwin_stream *w = basalt_calloc(1, sizeof *w);
    struct basalt_qsort_key *keys = basalt_calloc((size_t)(np + no) + 1, sizeof *keys);
    if (w != NULL)
        w->order_cols = basalt_calloc((size_t)no + 1, sizeof *w->order_cols);
    if (w == NULL || keys == NULL || w->order_cols == NULL) {
        basalt_free(keys);
        basalt_qwin_stream_free(w);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    w->ctx = ctx;
    w->node = node;
    basalt_arrow_batches_init(&w->pending);
    basalt_arrow_batches_init(&w->out);
    /* The in-memory window's order: partition keys ascending, NULLs last,
     * then the order keys. */
    for (int i = 0; i < np + no; i++) {
        if (i < np) {
            keys[i].column = node->part_cols[i];
            continue;
        }
        const struct basalt_qplan_sort_key *k = &node->sort_keys[i - np];
        keys[i].column = k->column;
        keys[i].descending = k->descending;
        keys[i].nulls_first = k->nulls_first;
        w->order_cols[i - np] = k->column;
    }
    struct basalt_qwin_spec spec = {&node->child[0]->schema, node->part_cols, np, w->order_cols, no,
                                    node->wcalls, node->n_wcalls, &node->schema};
    w->spec = spec;
    *out = w;
    basalt_status st = basalt_qsort_new(&node->child[0]->schema, keys, np, -1, 0, &w->part, err);
    if (st == BASALT_OK)
        st = basalt_qrun_sort_input(ctx, node, keys, np + no, &w->x, err);
    basalt_free(keys);
    return st;
}

static basalt_status hold(struct basalt_qwin_stream *w, struct ArrowArray *b,
                          struct basalt_error *err)
{
    w->pending_rows += b->length;
    w->pending_bytes += basalt_qspill_array_bytes(w->spec.schema, b);
    return basalt_arrow_batches_append(&w->pending, b, err);
}

/* Where b's last partition starts (the rows before it end theirs), or -1
 * when b's rows are all one partition. */
static int64_t last_start(struct basalt_qwin_stream *w, const struct ArrowArray *b)
{
    int64_t last = b->length - 1;
    if (basalt_qs_row_cmp(w->part, b, 0, b, last) == 0)
        return -1;
    int64_t r = last;
    while (r > 0 && basalt_qs_row_cmp(w->part, b, r - 1, b, last) == 0)
        r--;
    return r;
}

/* Computes the held rows (whole partitions) into w->out. */
static basalt_status compute(struct basalt_qwin_stream *w, struct basalt_error *err)
{
    basalt_arrow_batches_reset(&w->out);
    w->next_out = 0;
    basalt_status st = basalt_arrow_schema_copy(w->spec.schema, &w->pending.schema, err);
    if (st == BASALT_OK)
        st = basalt_qwin_compute(&w->spec, &w->pending, w->ctx->o.pool,
                                 basalt_qrun_workers(w->ctx), &w->out, NULL, err);
    basalt_arrow_batches_reset(&w->pending);
    w->pending_rows = 0;
    w->pending_bytes = 0;
    return st;
}

/* Reads merged batches until the held rows are a chunk of whole partitions
 * worth computing (or the input ends), then computes them. */
static basalt_status next_chunk(struct basalt_qwin_stream *w, struct basalt_error *err)
{
    int64_t limit = w->ctx->o.memory_limit, chunk = limit / 16;
    while (!w->input_done) {
        struct ArrowArray b;
        basalt_status st = basalt_qsort_ext_next(w->x, &b, err);
        if (st != BASALT_OK)
            return st;
        if (b.release == NULL) {
            w->input_done = true;
            break;
        }
        if (b.length == 0) {
            basalt_arrow_array_release(&b);
            continue;
        }
        int64_t cut = -1; /* rows of b before the last partition boundary in it */
        if (w->pending.n > 0) {
            const struct ArrowArray *tail = &w->pending.arrays[w->pending.n - 1];
            if (basalt_qs_row_cmp(w->part, tail, tail->length - 1, &b, 0) != 0)
                cut = 0;
        }
        int64_t inner = last_start(w, &b);
        if (inner > 0)
            cut = inner;
        if (cut < 0 || w->pending_bytes < chunk) {
            st = hold(w, &b, err);
            /* Past a chunk, rows are held only while no partition ends. */
            if (st == BASALT_OK && w->pending_bytes > limit / 2)
                st = basalt_error_set(err, BASALT_LIMIT,
                                      "WINDOW: memory limit of %.1f MiB exceeded: one partition "
                                      "holds %.1f MiB (%lld rows so far), and a partition is "
                                      "computed in memory; raise --memory-limit",
                                      (double)limit / 1048576.0,
                                      (double)w->pending_bytes / 1048576.0,
                                      (long long)w->pending_rows);
            if (st != BASALT_OK)
                return st;
            continue;
        }
        /* b's rows before `cut` end the held partitions; the rest start
         * the next chunk. */
        struct ArrowArray rest;
        rest.release = NULL;
        if (cut > 0) {
            struct ArrowArray head;
            st = basalt_qrun_take_rows(w->spec.schema, &b, 0, cut, &head, err);
            if (st == BASALT_OK)
                st = hold(w, &head, err);
            if (st == BASALT_OK)
                st = basalt_qrun_take_rows(w->spec.schema, &b, cut, b.length - cut, &rest, err);
            basalt_arrow_array_release(&b);
        } else {
            basalt_arrow_array_move(&b, &rest);
        }
        if (st == BASALT_OK)
            st = compute(w, err);
        if (st == BASALT_OK)
            st = hold(w, &rest, err);
        else if (rest.release != NULL)
            basalt_arrow_array_release(&rest);
        return st;
    }
    if (w->pending.n == 0) {
        basalt_arrow_batches_reset(&w->out);
        w->next_out = 0;
        return BASALT_OK;
    }
    return compute(w, err);
}

basalt_status basalt_qwin_stream_next(struct basalt_qwin_stream *w, struct ArrowArray *out,
                                      struct basalt_error *err)
{
    out->release = NULL;
    for (;;) {
        while (w->next_out < w->out.n) {
            struct ArrowArray *b = &w->out.arrays[w->next_out++];
            if (b->length > 0) {
                basalt_arrow_array_move(b, out);
                return BASALT_OK;
            }
            basalt_arrow_array_release(b);
        }
        if (w->input_done && w->pending.n == 0)
            return BASALT_OK;
        basalt_status st = next_chunk(w, err);
        if (st != BASALT_OK)
            return st;
    }
}
