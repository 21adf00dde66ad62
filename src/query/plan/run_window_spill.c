/* A window under the memory limit: its input goes through the external
 * sort by (partition keys, order keys), whose runs spill, and the merged
 * rows are computed a chunk of whole partitions at a time, so only the
 * partitions of one chunk are in memory. A partition larger than a chunk
 * (a window without PARTITION BY is one) is computed a stretch of rows at a
 * time when its calls allow (window/window_stretch.c): each stretch is held
 * with the rows before and after it that its rows read, ends where the
 * order keys change when a call reads peer groups, and hands what the
 * partition's rows so far leave (counts, running sums, a running best) to
 * the next in a carry. NTILE, PERCENT_RANK and CUME_DIST need the
 * partition's row count before its first row: without PARTITION BY the sort
 * knows it; with it, a partition about to go in stretches is first read to
 * its end, its rows past those held going to a spill file that is then read
 * again (size_partition). Frames to the partition's end read it to its end
 * first the same way, with or without PARTITION BY, the carry taking in
 * their sums and rows on the way. Without PARTITION BY and ORDER BY the
 * sort has no keys and keeps the input's order. The external sort keeps
 * ties in input order as the in-memory sort does, and a partition's values
 * depend on its rows alone, so the rows and their order are the in-memory
 * window's. A partition whose calls do not allow stretches, or a peer
 * group, larger than half the limit fails with LIMIT naming it. */
#include <stdio.h>
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
    struct basalt_qsort *peer;   /* compares the order keys (stretches that need peers) */
    /* merged rows not computed yet: whole partitions, the last maybe not */
    struct basalt_arrow_batches pending;
    int64_t pending_rows, pending_bytes;
    bool input_done;
    struct ArrowArray next_in; /* merged rows to read before the next merged batch */
    struct basalt_arrow_batches out; /* the last chunk's result */
    int64_t next_out;
    /* stretches */
    bool stretchable;
    int64_t behind, ahead; /* rows before and after an output row its calls read */
    bool peers;            /* stretches end where the order keys change */
    char why[160];         /* why not stretchable */
    struct basalt_qwin_carry *carry;
    bool in_stretch;       /* pending holds the rest of a partition begun in stretches */
    int64_t emit_from;     /* pending's first rows already out (context of the next stretch) */
    /* partitions read to their end before their stretches (PARTITION BY
     * with NTILE, PERCENT_RANK or CUME_DIST; frames to the partition's end) */
    bool needs_rows;
    bool reads_end;                  /* a call reads the partition's end */
    bool sized;                      /* the held partition's count is in the carry */
    struct basalt_qspill_file *replay; /* its rows past those held, read before next_in */
    bool sort_done;                  /* the sort gave its last batch */
};

/* `sized`: each partition's row count is known before its stretches (the
 * sort knows the one partition's without PARTITION BY; with it,
 * size_partition finds it). */
static bool stretchable(const struct basalt_qplan *node, bool sized, int64_t *behind,
                        int64_t *ahead, bool *peers, bool *whole, char *why, size_t why_size)
{
    struct basalt_qwin_spec spec = {&node->child[0]->schema, node->part_cols, node->n_part, NULL,
                                    node->n_sort_keys, node->wcalls, node->n_wcalls,
                                    &node->schema, node->sort_keys};
    return basalt_qwin_stretchable(&spec, sized, behind, ahead, peers, whole, why, why_size);
}

bool basalt_qrun_window_spills(const struct basalt_qctx *ctx, const struct basalt_qplan *node)
{
    if (ctx->o.memory_limit <= 0 || node->has_row_limit)
        return false;
    if (node->n_part > 0)
        return true;
    /* One partition: worth sorting apart only in stretches. Without ORDER
     * BY either, the sort keeps the input's order (ties keep it). */
    int64_t behind, ahead;
    bool peers, whole;
    char why[8];
    return stretchable(node, true, &behind, &ahead, &peers, &whole, why, sizeof why);
}

void basalt_qwin_stream_free(struct basalt_qwin_stream *w)
{
    if (w == NULL)
        return;
    basalt_qsort_ext_free(w->x);
    basalt_qsort_free(w->part);
    basalt_qsort_free(w->peer);
    basalt_qwin_carry_free(w->carry);
    basalt_qspill_file_free(w->replay);
    if (w->next_in.release != NULL)
        basalt_arrow_array_release(&w->next_in);
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
                                    node->wcalls, node->n_wcalls, &node->schema,
                                    node->sort_keys};
    w->spec = spec;
    *out = w;
    /* Without PARTITION BY the sort counts the one partition's rows. */
    w->stretchable = stretchable(node, np == 0, &w->behind, &w->ahead, &w->peers, &w->reads_end,
                                 w->why, sizeof w->why);
    w->needs_rows = w->stretchable && w->reads_end;
    if (!w->stretchable && np > 0) {
        /* Stretchable once each partition is sized first? */
        char why[8];
        w->needs_rows = stretchable(node, true, &w->behind, &w->ahead, &w->peers, &w->reads_end,
                                    why, sizeof why);
        w->stretchable = w->needs_rows;
    }
    basalt_status st = BASALT_OK;
    if (np > 0)
        st = basalt_qsort_new(&node->child[0]->schema, keys, np, -1, 0, &w->part, err);
    if (st == BASALT_OK && w->stretchable)
        st = basalt_qwin_carry_new(&w->spec, &w->carry, err);
    if (st == BASALT_OK && w->stretchable && w->peers)
        st = basalt_qsort_new(&node->child[0]->schema, keys + np, no, -1, 0, &w->peer, err);
    if (st == BASALT_OK)
        st = basalt_qrun_sort_input(ctx, node, keys, np + no, &w->x, err);
    if (st == BASALT_OK && w->carry != NULL && np == 0) {
        struct basalt_qsort_ext_stats xs;
        basalt_qsort_ext_stats(w->x, &xs);
        basalt_qwin_carry_set_rows(w->carry, xs.rows);
    }
    basalt_free(keys);
    return st;
}

/* Compares two rows' partition keys (equal without PARTITION BY). */
static int part_cmp(const struct basalt_qwin_stream *w, const struct ArrowArray *a, int64_t ra,
                    const struct ArrowArray *b, int64_t rb)
{
    return w->part != NULL ? basalt_qs_row_cmp(w->part, a, ra, b, rb) : 0;
}

static int64_t batches_bytes(const struct ArrowSchema *schema,
                             const struct basalt_arrow_batches *h)
{
    int64_t bytes = 0;
    for (int64_t i = 0; i < h->n; i++)
        bytes += basalt_qspill_array_bytes(schema, &h->arrays[i]);
    return bytes;
}

/* Rows [from, to) of `h` (batches of `schema`) into `out`: whole batches
 * moved, the ends copied. `h` is emptied. */
static basalt_status keep_rows(const struct ArrowSchema *schema, struct basalt_arrow_batches *h,
                               int64_t from, int64_t to, struct basalt_arrow_batches *out,
                               struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    int64_t at = 0;
    for (int64_t i = 0; i < h->n && st == BASALT_OK; i++) {
        struct ArrowArray *b = &h->arrays[i];
        int64_t lo = from > at ? from - at : 0, hi = to - at < b->length ? to - at : b->length;
        at += b->length;
        if (hi <= lo)
            continue;
        struct ArrowArray part;
        if (lo == 0 && hi == b->length)
            basalt_arrow_array_move(b, &part);
        else
            st = basalt_qrun_take_rows(schema, b, lo, hi - lo, &part, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(out, &part, err);
    }
    basalt_arrow_batches_reset(h);
    return st;
}

/* Copies of the held rows from `from` on. */
static basalt_status copy_held(struct basalt_qwin_stream *w, int64_t from,
                               struct basalt_arrow_batches *out, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    int64_t at = 0;
    for (int64_t i = 0; i < w->pending.n && st == BASALT_OK; i++) {
        const struct ArrowArray *b = &w->pending.arrays[i];
        int64_t lo = from > at ? from - at : 0;
        at += b->length;
        if (lo >= b->length)
            continue;
        struct ArrowArray part;
        st = basalt_qrun_take_rows(w->spec.schema, b, lo, b->length - lo, &part, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(out, &part, err);
    }
    return st;
}

/* The held batch holding row r, and r's row in it. */
static const struct ArrowArray *held_row(const struct basalt_qwin_stream *w, int64_t r,
                                         int64_t *row)
{
    for (int64_t i = 0; i < w->pending.n; i++) {
        if (r < w->pending.arrays[i].length) {
            *row = r;
            return &w->pending.arrays[i];
        }
        r -= w->pending.arrays[i].length;
    }
    return NULL;
}

/* Whether held row r starts a peer group (its order keys differ from row
 * r - 1's). */
static bool peer_start(const struct basalt_qwin_stream *w, int64_t r)
{
    int64_t ra = 0, rb = 0;
    const struct ArrowArray *a = held_row(w, r - 1, &ra), *b = held_row(w, r, &rb);
    return basalt_qs_row_cmp(w->peer, a, ra, b, rb) != 0;
}

/* Where b's last partition starts (the rows before it end theirs), or -1
 * when b's rows are all one partition. */
static int64_t last_start(const struct basalt_qwin_stream *w, const struct ArrowArray *b)
{
    int64_t last = b->length - 1;
    if (part_cmp(w, b, 0, b, last) == 0)
        return -1;
    int64_t r = last;
    while (r > 0 && part_cmp(w, b, r - 1, b, last) == 0)
        r--;
    return r;
}

/* Where b's first partition ends, or -1 when b's rows are all one
 * partition. */
static int64_t first_end(const struct basalt_qwin_stream *w, const struct ArrowArray *b)
{
    int64_t last = b->length - 1;
    if (part_cmp(w, b, 0, b, last) == 0)
        return -1;
    int64_t r = 1;
    while (part_cmp(w, b, 0, b, r) == 0)
        r++;
    return r;
}

/* The held row where the held rows' last partition starts. */
static int64_t held_last_start(const struct basalt_qwin_stream *w)
{
    int64_t end = w->pending_rows;
    for (int64_t i = w->pending.n - 1; i >= 0; i--) {
        const struct ArrowArray *b = &w->pending.arrays[i];
        end -= b->length;
        int64_t r = last_start(w, b);
        if (r > 0)
            return end + r;
        if (i > 0) {
            const struct ArrowArray *p = &w->pending.arrays[i - 1];
            if (part_cmp(w, p, p->length - 1, b, 0) != 0)
                return end;
        }
    }
    return 0;
}

/* The held rows become `rest` (moved in), counted anew. */
static void held_replace(struct basalt_qwin_stream *w, struct basalt_arrow_batches *rest)
{
    basalt_arrow_batches_reset(&w->pending);
    w->pending = *rest;
    basalt_arrow_batches_init(rest);
    w->pending_rows = 0;
    for (int64_t i = 0; i < w->pending.n; i++)
        w->pending_rows += w->pending.arrays[i].length;
    w->pending_bytes = batches_bytes(w->spec.schema, &w->pending);
}

/* Computes the first `rows` held rows (whole partitions) into w->out; the
 * rest stay held. */
static basalt_status compute(struct basalt_qwin_stream *w, int64_t rows, struct basalt_error *err)
{
    basalt_arrow_batches_reset(&w->out);
    w->next_out = 0;
    struct basalt_arrow_batches whole, rest;
    basalt_arrow_batches_init(&whole);
    basalt_arrow_batches_init(&rest);
    basalt_status st = BASALT_OK;
    if (rows < w->pending_rows) {
        st = copy_held(w, rows, &rest, err);
        if (st == BASALT_OK)
            st = keep_rows(w->spec.schema, &w->pending, 0, rows, &whole, err);
    } else {
        whole = w->pending;
        basalt_arrow_batches_init(&w->pending);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(w->spec.schema, &whole.schema, err);
    if (st == BASALT_OK)
        st = basalt_qwin_compute(&w->spec, &whole, w->ctx->o.pool, basalt_qrun_workers(w->ctx),
                                 &w->out, NULL, err);
    basalt_arrow_batches_reset(&whole);
    held_replace(w, &rest);
    w->sized = false;
    return st;
}

/* Computes the next stretch of the held partition into w->out. `last`: the
 * held rows end the partition. Otherwise the stretch ends `ahead` rows
 * before the held rows do (at the start of a peer group when the calls
 * read peers) and the rows from `behind` rows before its end on stay held;
 * *done is false when no stretch could be cut yet. */
static basalt_status stretch(struct basalt_qwin_stream *w, bool last, bool *done,
                             struct basalt_error *err)
{
    int64_t n = w->pending_rows, emit_to = n, advance = 0;
    *done = false;
    if (!last) {
        emit_to = n - w->ahead;
        /* A peer group ends only where the next row's keys are seen to differ. */
        if (w->peers && emit_to > n - 1)
            emit_to = n - 1;
        while (w->peers && emit_to > w->emit_from && !peer_start(w, emit_to))
            emit_to--;
        if (emit_to <= w->emit_from)
            return BASALT_OK;
        advance = emit_to - w->behind > 0 ? emit_to - w->behind : 0;
        /* The last held row stays: the next batch is compared with it to
         * see whether the partition goes on. */
        if (advance > n - 1)
            advance = n - 1;
    }
    *done = true;
    w->node->window_stretches++;
    /* The rows the next stretch holds are copied; the held ones go to the
     * window operator, which takes their batches. */
    struct basalt_arrow_batches rest, held;
    basalt_arrow_batches_init(&rest);
    basalt_status st = last ? BASALT_OK : copy_held(w, advance, &rest, err);
    held = w->pending;
    basalt_arrow_batches_init(&w->pending);
    basalt_arrow_batches_reset(&w->out);
    w->next_out = 0;
    struct basalt_arrow_batches computed;
    basalt_arrow_batches_init(&computed);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(w->spec.schema, &held.schema, err);
    if (st == BASALT_OK)
        st = basalt_qwin_compute_stretch(&w->spec, &held, w->carry, advance, w->ctx->o.pool,
                                         basalt_qrun_workers(w->ctx), &computed, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(w->spec.out_schema, &w->out.schema, err);
    if (st == BASALT_OK)
        st = keep_rows(w->spec.out_schema, &computed, w->emit_from, emit_to, &w->out, err);
    basalt_arrow_batches_reset(&computed);
    basalt_arrow_batches_reset(&held);
    held_replace(w, &rest);
    w->emit_from = emit_to - advance;
    w->in_stretch = !last;
    if (last) {
        basalt_qwin_carry_reset(w->carry);
        w->emit_from = 0;
        w->sized = false;
    }
    return st;
}

static basalt_status hold(struct basalt_qwin_stream *w, struct ArrowArray *b,
                          struct basalt_error *err)
{
    w->pending_rows += b->length;
    w->pending_bytes += basalt_qspill_array_bytes(w->spec.schema, b);
    return basalt_arrow_batches_append(&w->pending, b, err);
}

/* Holds rows [from, from + n) of b (a copy). */
static basalt_status hold_rows(struct basalt_qwin_stream *w, const struct ArrowArray *b,
                               int64_t from, int64_t n, struct basalt_error *err)
{
    struct ArrowArray part;
    basalt_status st = basalt_qrun_take_rows(w->spec.schema, b, from, n, &part, err);
    return st == BASALT_OK ? hold(w, &part, err) : st;
}

static basalt_status too_large(struct basalt_qwin_stream *w, struct basalt_error *err)
{
    int64_t limit = w->ctx->o.memory_limit;
    if (w->stretchable)
        return basalt_error_set(err, BASALT_LIMIT,
                                "WINDOW: memory limit of %.1f MiB exceeded: %.1f MiB of rows "
                                "(%lld) are held and no stretch of the partition ends in them "
                                "(one peer group of equal ORDER BY keys, or a frame's offsets, "
                                "spans them); raise --memory-limit",
                                (double)limit / 1048576.0, (double)w->pending_bytes / 1048576.0,
                                (long long)w->pending_rows);
    return basalt_error_set(err, BASALT_LIMIT,
                            "WINDOW: memory limit of %.1f MiB exceeded: one partition holds "
                            "%.1f MiB (%lld rows so far), and a partition is computed in "
                            "memory (%s); raise --memory-limit",
                            (double)limit / 1048576.0, (double)w->pending_bytes / 1048576.0,
                            (long long)w->pending_rows, w->why);
}

/* The next merged batch: the sized partition's spooled rows, then the rows
 * put back, then the sort's; b->release NULL at the end. */
static basalt_status next_merged(struct basalt_qwin_stream *w, struct ArrowArray *b,
                                 struct basalt_error *err)
{
    b->release = NULL;
    if (w->replay != NULL) {
        basalt_status st = basalt_qspill_file_next(w->replay, b, err);
        if (st != BASALT_OK || b->release != NULL)
            return st;
        basalt_qspill_file_free(w->replay);
        w->replay = NULL;
    }
    if (w->next_in.release != NULL) {
        basalt_arrow_array_move(&w->next_in, b);
        return BASALT_OK;
    }
    if (w->sort_done)
        return BASALT_OK;
    basalt_status st = basalt_qsort_ext_next(w->x, b, err);
    w->sort_done = st == BASALT_OK && b->release == NULL;
    return st;
}

/* The held rows are the start of one partition, past a chunk: reads it to
 * its end, counting, the rows past those held going to a spill file that
 * next_merged reads again before anything else (the next partition's first
 * rows are put back behind it), and gives the carry the count. The held
 * rows stay in memory: they are at most a chunk and a batch. */
static basalt_status size_partition(struct basalt_qwin_stream *w, struct basalt_error *err)
{
    int64_t rows = w->pending_rows;
    struct basalt_qspill_file *f = NULL;
    const struct ArrowArray *tail = &w->pending.arrays[w->pending.n - 1];
    struct ArrowArray last; /* a copy of the partition's last row read so far */
    last.release = NULL;
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < w->pending.n && w->reads_end && st == BASALT_OK; i++)
        st = basalt_qwin_carry_whole_add(&w->spec, w->carry, &w->pending.arrays[i], 0,
                                         w->pending.arrays[i].length, err);
    if (st == BASALT_OK)
        st = basalt_qrun_take_rows(w->spec.schema, tail, tail->length - 1, 1, &last, err);
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = next_merged(w, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        if (b.length == 0) {
            basalt_arrow_array_release(&b);
            continue;
        }
        int64_t end = part_cmp(w, &last, 0, &b, 0) != 0 ? 0 : first_end(w, &b);
        int64_t in_part = end < 0 ? b.length : end;
        if (in_part > 0 && f == NULL)
            st = basalt_qspill_file_new(w->ctx->o.spill_dir, w->spec.schema, &f, err);
        struct ArrowArray part;
        part.release = NULL;
        if (st == BASALT_OK && in_part > 0)
            st = end < 0 ? BASALT_OK
                         : basalt_qrun_take_rows(w->spec.schema, &b, 0, in_part, &part, err);
        if (st == BASALT_OK && in_part > 0 && w->reads_end)
            st = basalt_qwin_carry_whole_add(&w->spec, w->carry, &b, 0, in_part, err);
        if (st == BASALT_OK && in_part > 0)
            st = basalt_qspill_file_write(f, end < 0 ? &b : &part, err);
        if (st == BASALT_OK && in_part > 0) {
            w->node->spill_rows += in_part;
            rows += in_part;
            basalt_arrow_array_release(&last);
            st = basalt_qrun_take_rows(w->spec.schema, &b, in_part - 1, 1, &last, err);
        }
        if (part.release != NULL)
            basalt_arrow_array_release(&part);
        /* The next partition starts at b's row `end`. */
        if (st == BASALT_OK && end == 0)
            basalt_arrow_array_move(&b, &w->next_in);
        else if (st == BASALT_OK && end > 0)
            st = basalt_qrun_take_rows(w->spec.schema, &b, end, b.length - end, &w->next_in,
                                       err);
        if (b.release != NULL)
            basalt_arrow_array_release(&b);
        if (end >= 0)
            break;
    }
    if (last.release != NULL)
        basalt_arrow_array_release(&last);
    if (st == BASALT_OK && f != NULL) {
        w->node->spill_bytes += basalt_qspill_file_bytes(f);
        st = basalt_qspill_file_seal(f, err);
    }
    if (st != BASALT_OK) {
        basalt_qspill_file_free(f);
        return st;
    }
    w->replay = f;
    w->node->spill_partitions++;
    basalt_qwin_carry_set_rows(w->carry, rows);
    w->sized = true;
    return BASALT_OK;
}

/* Past a chunk of held rows of one partition: a stretch when the calls
 * allow one (the partitions held before it go first); *done when w->out
 * was made. */
static basalt_status past_chunk(struct basalt_qwin_stream *w, bool *done,
                                struct basalt_error *err)
{
    *done = false;
    if (!w->stretchable)
        return w->pending_bytes > w->ctx->o.memory_limit / 2 ? too_large(w, err) : BASALT_OK;
    basalt_status st = BASALT_OK;
    if (!w->in_stretch) {
        int64_t start = held_last_start(w);
        if (start > 0) {
            *done = true;
            return compute(w, start, err);
        }
        if (w->needs_rows && !w->sized)
            st = size_partition(w, err);
        if (st != BASALT_OK)
            return st;
    }
    /* Worth a stretch once most held rows would come out of it. */
    if (w->pending_rows - w->emit_from - w->ahead > w->pending_rows / 2)
        st = stretch(w, false, done, err);
    if (st == BASALT_OK && !*done && w->pending_bytes > w->ctx->o.memory_limit / 2)
        st = too_large(w, err);
    return st;
}

/* Reads merged batches until the held rows are a chunk of whole partitions
 * worth computing, or a stretch of one partition (or the input ends), then
 * computes them into w->out. */
static basalt_status next_chunk(struct basalt_qwin_stream *w, struct basalt_error *err)
{
    int64_t chunk = w->ctx->o.memory_limit / 16;
    while (!w->input_done) {
        struct ArrowArray b;
        basalt_status st = next_merged(w, &b, err);
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
        bool new_part = false; /* b's first row starts a partition */
        if (w->pending.n > 0) {
            const struct ArrowArray *tail = &w->pending.arrays[w->pending.n - 1];
            new_part = part_cmp(w, tail, tail->length - 1, &b, 0) != 0;
        }
        if (w->in_stretch) {
            /* The partition in stretches ends at b's first partition boundary. */
            int64_t end = new_part ? 0 : first_end(w, &b);
            if (end < 0) {
                bool done = false;
                st = hold(w, &b, err);
                if (st == BASALT_OK && w->pending_bytes >= chunk)
                    st = past_chunk(w, &done, err);
                if (st != BASALT_OK || done)
                    return st;
                continue;
            }
            if (end > 0)
                st = hold_rows(w, &b, 0, end, err);
            if (st == BASALT_OK)
                st = basalt_qrun_take_rows(w->spec.schema, &b, end, b.length - end, &w->next_in,
                                           err);
            basalt_arrow_array_release(&b);
            bool done = false;
            return st == BASALT_OK ? stretch(w, true, &done, err) : st;
        }
        int64_t cut = new_part ? 0 : -1; /* rows of b before the last partition boundary in it */
        int64_t inner = last_start(w, &b);
        if (inner > 0)
            cut = inner;
        if (cut < 0 || w->pending_bytes < chunk) {
            st = hold(w, &b, err);
            if (st == BASALT_OK && cut < 0 && w->pending_bytes >= chunk) {
                /* Past a chunk, rows are held only while no partition ends. */
                bool done = false;
                st = past_chunk(w, &done, err);
                if (st == BASALT_OK && done)
                    return st;
            }
            if (st != BASALT_OK)
                return st;
            continue;
        }
        /* b's rows before `cut` end the held partitions; the rest start
         * the next chunk. */
        struct ArrowArray rest;
        rest.release = NULL;
        if (cut > 0) {
            st = hold_rows(w, &b, 0, cut, err);
            if (st == BASALT_OK)
                st = basalt_qrun_take_rows(w->spec.schema, &b, cut, b.length - cut, &rest, err);
            basalt_arrow_array_release(&b);
        } else {
            basalt_arrow_array_move(&b, &rest);
        }
        if (st == BASALT_OK)
            st = compute(w, w->pending_rows, err);
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
    if (w->in_stretch) {
        bool done = false;
        return stretch(w, true, &done, err);
    }
    return compute(w, w->pending_rows, err);
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
