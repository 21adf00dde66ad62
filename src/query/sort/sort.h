/* Sort and top-k over Arrow struct batches. Each row gets a normalised key:
 * fixed-width words whose unsigned order is the sort order (per key column a
 * NULL byte, then the value encoded order-preservingly: sign bits flipped,
 * floats folded so that -0.0 = 0.0 and NaN sorts after every number, bytes
 * inverted for DESC, strings as an 8-byte prefix). Keys after the first
 * string key are left out of the words: rows whose words tie are compared
 * on the full values from that key on. Rows are radix-sorted on the words
 * (most significant byte first, constant bytes skipped, small ranges by
 * comparison) with (seq, row) as the last tie-break, so the sort is stable
 * and its output does not depend on worker count or batch assignment.
 * Payload columns are gathered with basalt_arrow_take_many.
 *
 * Ordering follows DuckDB: NaN after every number, -0.0 == 0.0, strings
 * byte-wise, NULLs placed per key. */
#ifndef BASALT_QUERY_SORT_H
#define BASALT_QUERY_SORT_H

#include "basalt/query.h"

struct basalt_qsort_key {
    int column;
    bool descending;
    bool nulls_first;
};

struct basalt_qsort;
struct basalt_qsort_local;

/* limit < 0: all rows; otherwise top-k: keep only the first offset+limit
 * rows in sort order (per local, pruned as batches arrive, then merged) and
 * return rows [offset, offset+limit). `schema` ("+s") and `keys` are copied.
 * OK; INVALID_ARG (not a struct, column out of range, no keys, offset < 0);
 * UNSUPPORTED (a key column of a type that cannot be ordered: nested);
 * NOMEM. */
basalt_status basalt_qsort_new(const struct ArrowSchema *schema, const struct basalt_qsort_key *keys,
                               int n_keys, int64_t limit, int64_t offset,
                               struct basalt_qsort **out, struct basalt_error *err);
void basalt_qsort_free(struct basalt_qsort *s);

/* One local per worker; a local is used by one thread at a time. */
basalt_status basalt_qsort_local_new(struct basalt_qsort *s, struct basalt_qsort_local **out,
                                     struct basalt_error *err);
void basalt_qsort_local_free(struct basalt_qsort_local *l);

/* Moves `batch` in (released on return in every case); `seq` is its
 * position in the input (distinct, 0 <= seq < 2^31; ties keep input
 * order). OK; INVALID_ARG (released batch, wrong width, seq out of range,
 * more than 2^32-1 rows); NOMEM. */
basalt_status basalt_qsort_consume(struct basalt_qsort_local *l, struct ArrowArray *batch,
                                   int64_t seq, struct basalt_error *err);

/* Top-k only (a no-op otherwise, and for a local holding fewer than two
 * batches): keeps the local's first offset + limit candidates now, copied
 * into one batch of their own, and releases every batch it held, instead of
 * on its own schedule (when it holds four times the rows needed, keeping up
 * to four batches the candidates sit in). For a caller under a memory
 * limit. OK; NOMEM. */
basalt_status basalt_qsort_local_prune(struct basalt_qsort_local *l, struct basalt_error *err);

/* Sorts everything the locals hold (they are emptied; the caller still
 * frees them), in parallel on pool (NULL: the caller's thread), and appends
 * the result to `out` in batches of at most 65536 rows (out->schema set to
 * the input schema when unset). OK; INVALID_ARG (two batches with one seq);
 * NOMEM; the errors of basalt_arrow_take_many. */
basalt_status basalt_qsort_finish(struct basalt_qsort *s, struct basalt_qsort_local **locals,
                                  int n_locals, struct basalt_pool *pool,
                                  struct basalt_arrow_batches *out, struct basalt_error *err);

/* Counters for tests that prove the paths fire. */
struct basalt_qsort_stats {
    int64_t rows_sorted;    /* rows that went through the final sort */
    int64_t key_words;      /* 64-bit words per normalised key in the last sort */
    int64_t radix_passes;   /* scatter passes of the radix sort */
    int64_t skipped_bytes;  /* key bytes found constant and skipped */
    int64_t tie_compares;   /* comparisons that needed the full values */
    int64_t topk_dropped;   /* top-k rows dropped at consume by the running threshold */
};
void basalt_qsort_stats(const struct basalt_qsort *s, struct basalt_qsort_stats *out);

/* Full-value comparison of every key of row ra of struct batch ba and row
 * rb of bb (logical rows): the order of the sort, without its tie-break
 * (0: the rows are peers; NULLs equal NULLs, NaN NaN, -0.0 0.0). */
int basalt_qs_row_cmp(const struct basalt_qsort *s, const struct ArrowArray *ba, int64_t ra,
                      const struct ArrowArray *bb, int64_t rb);

/* ------------------------------------------------------------------ spilling
 *
 * An external sort for full sorts under a memory limit. Workers hand their
 * batches to their own slot (worker index) with the batch's position in the
 * input (any distinct int64: the order of positions is the input order).
 * When the caller sees memory run short it has a worker spill its slot:
 * the held batches are sorted in memory (basalt_qsort, with two columns
 * more: the position of the batch and the row in it) into a run written to
 * a spill file (spill/spill.h), and freed. start sorts in memory when
 * nothing was spilled (the result of basalt_qsort over the batches in
 * position order); otherwise it spills what is still held and merges the
 * runs, a batch of each at a time, comparing the keys' full values and then
 * the positions: the output is the same as the in-memory sort's, ties in
 * input order. next hands the result out a batch at a time, so a merged
 * result need never be in memory whole. */
struct basalt_qsort_ext;

struct basalt_qsort_ext_stats {
    int64_t runs;          /* runs written */
    int64_t rows_spilled;  /* rows written to runs */
    int64_t bytes_spilled; /* bytes written to spill files (runs of merges included) */
    int64_t merge_passes;  /* runs merged into a longer run before the last merge */
    int64_t rows;          /* rows consumed */
};

/* `schema` and `keys` as basalt_qsort_new (copied); `workers` slots;
 * spill_dir borrowed (NULL: $TMPDIR or /tmp). OK; the statuses of
 * basalt_qsort_new; NOMEM. */
basalt_status basalt_qsort_ext_new(const struct ArrowSchema *schema,
                                   const struct basalt_qsort_key *keys, int n_keys, int workers,
                                   const char *spill_dir, struct basalt_qsort_ext **out,
                                   struct basalt_error *err);
void basalt_qsort_ext_free(struct basalt_qsort_ext *x);
/* Moves batch in (released on return in every case) into slot `worker`.
 * One thread per slot at a time. OK; INVALID_ARG; NOMEM. */
basalt_status basalt_qsort_ext_consume(struct basalt_qsort_ext *x, int worker, int64_t pos,
                                       struct ArrowArray *batch, struct basalt_error *err);
/* Rows held in slot `worker`. */
int64_t basalt_qsort_ext_held(const struct basalt_qsort_ext *x, int worker);
/* About how many bytes sorting slot `worker` into a run takes: its
 * batches, their sorted copy and the sort's records. */
int64_t basalt_qsort_ext_held_cost(const struct basalt_qsort_ext *x, int worker);
/* Sorts slot `worker`'s batches into a run on disk and frees them (a no-op
 * when it holds none). OK; IO; NOMEM; the sort's statuses. */
basalt_status basalt_qsort_ext_spill(struct basalt_qsort_ext *x, int worker,
                                     struct basalt_error *err);
/* Starts handing out the sorted rows (once, after the last consume): sorts
 * in memory when nothing was spilled; otherwise spills what is still held,
 * merges runs into longer ones while there are more than one merge may read
 * at once (their loaded batches must stay under a quarter of memory_limit),
 * and opens the last merge. OK; IO; NOMEM; the sort's statuses. */
basalt_status basalt_qsort_ext_start(struct basalt_qsort_ext *x, struct basalt_pool *pool,
                                     int64_t memory_limit, struct basalt_error *err);
/* The next batch of sorted rows (never empty, at most 65536; the input's
 * schema), or out->release NULL at the end, when the runs' space goes
 * back. */
basalt_status basalt_qsort_ext_next(struct basalt_qsort_ext *x, struct ArrowArray *out,
                                    struct basalt_error *err);
const struct ArrowSchema *basalt_qsort_ext_schema(const struct basalt_qsort_ext *x);
void basalt_qsort_ext_stats(const struct basalt_qsort_ext *x, struct basalt_qsort_ext_stats *out);

/* The sort's image of a float (`single`) or double: unsigned order is the
 * sort's order (-0.0 equal to 0.0, every NaN one value above +inf). */
uint64_t basalt_qs_float_image(double d, bool single);

/* The k-th smallest (0-based) of x[0, n), n > k >= 0, reordering x so that
 * x[k] holds it, none before it greater and none after it smaller
 * (select.c: quickselect with a median-of-three pivot; what is left after
 * 2 log2(n) + 8 rounds is sorted, so an adversarial order costs a sort). */
uint64_t basalt_qselect_u64(uint64_t *x, int64_t n, int64_t k);

#endif
