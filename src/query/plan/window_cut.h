/* The cut of a limited window: per partition, the order key of its K-th
 * row so far; rows strictly past it are dropped before they are held
 * (window_cut.c). Not part of the public API. */
#ifndef BASALT_QUERY_PLAN_WINDOW_CUT_H
#define BASALT_QUERY_PLAN_WINDOW_CUT_H

#include "basalt/arrow.h"
#include "sort/sort.h"

struct basalt_qwin_cut;

/* ---- reading fixed-width key values (shared with window_live.c) */

enum basalt_qwin_key_kind { QWIN_KEY_SIGNED, QWIN_KEY_UNSIGNED, QWIN_KEY_FLOAT, QWIN_KEY_DOUBLE };

struct basalt_qwin_keycol {
    int column;
    enum basalt_qwin_key_kind kind;
    int width;        /* bytes */
    bool desc;        /* order keys */
    bool nulls_first; /* order keys */
};

/* Column `column` of `schema` as a key; false when its type is not one the
 * cut reads. */
bool basalt_qwin_keycol_init(const struct ArrowSchema *schema, int column,
                             struct basalt_qwin_keycol *out);
/* The partition keys and the order keys (with their direction and NULL
 * placement) of a window whose keys the cut reads, into part[0..n_part)
 * and order_out[0..n_order). */
void basalt_qwin_keycols_init(const struct ArrowSchema *schema, const int *part_cols, int n_part,
                              const struct basalt_qsort_key *order, int n_order,
                              struct basalt_qwin_keycol *part, struct basalt_qwin_keycol *order_out);
/* Row i (offset included) of column `a`: false when NULL (or NaN: *nan
 * set). Partition values (order false) are compared for equality only:
 * -0.0 as 0.0 and one NaN. Order values (order true) come out so that
 * unsigned order is the ascending order, NaN above every number. */
bool basalt_qwin_key_value(const struct basalt_qwin_keycol *c, const struct ArrowArray *a,
                           int64_t i, bool order, uint64_t *out, bool *nan);
/* The partition tuple of row i into key[0..n_part] (values, then a
 * validity mask) and its hash. */
uint64_t basalt_qwin_part_key(const struct basalt_qwin_keycol *part, int n_part,
                              const struct ArrowArray *batch, int64_t i, uint64_t *key);

/* Whether every partition and order key is of a type the cut reads (fixed
 * width numbers, dates, times, timestamps), and there is an order key. */
bool basalt_qwin_cut_applies(const struct ArrowSchema *schema, const int *part_cols, int n_part,
                             const struct basalt_qsort_key *order, int n_order);
/* An empty cut (it drops nothing) for rows of `schema` (or any layout with
 * those columns first). NOMEM. */
basalt_status basalt_qwin_cut_new(const struct ArrowSchema *schema, const int *part_cols,
                                  int n_part, const struct basalt_qsort_key *order, int n_order,
                                  int64_t limit, struct basalt_qwin_cut **out,
                                  struct basalt_error *err);
void basalt_qwin_cut_free(struct basalt_qwin_cut *c);
/* Replaces the cuts by those of `sorted` (rows in partition, then order
 * key order: a pruning's survivors). NOMEM. */
basalt_status basalt_qwin_cut_set(struct basalt_qwin_cut *c,
                                  const struct basalt_arrow_batches *sorted,
                                  struct basalt_error *err);
/* The rows of `batch` its cuts do not rule out, as indices into keep
 * (room for batch->length); returns how many. */
int64_t basalt_qwin_cut_keep(const struct basalt_qwin_cut *c, const struct ArrowArray *batch,
                             int64_t *keep);

#endif
