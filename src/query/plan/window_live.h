/* The first K rows of every partition so far, kept row by row, for a
 * limited window whose keys the cut reads (window_live.c). Not part of the
 * public API. */
#ifndef BASALT_QUERY_PLAN_WINDOW_LIVE_H
#define BASALT_QUERY_PLAN_WINDOW_LIVE_H

#include "basalt/arrow.h"
#include "sort/sort.h"

/* The largest K kept row by row; a larger limit is pruned by sorting. */
#define BASALT_QWIN_LIVE_MAX_K 16

struct basalt_qwin_live;

/* Whether a live table can serve: the cut reads every key and
 * 0 < limit <= BASALT_QWIN_LIVE_MAX_K. */
bool basalt_qwin_live_applies(const struct ArrowSchema *schema, const int *part_cols, int n_part,
                              const struct basalt_qsort_key *order, int n_order, int64_t limit);
/* An empty table for rows of `schema` (or any layout with those columns
 * first). NOMEM. */
basalt_status basalt_qwin_live_new(const struct ArrowSchema *schema, const int *part_cols,
                                   int n_part, const struct basalt_qsort_key *order, int n_order,
                                   int64_t limit, struct basalt_qwin_live **out,
                                   struct basalt_error *err);
void basalt_qwin_live_free(struct basalt_qwin_live *l);

/* Offers the rows of `batch` in turn, row k at input position (seq, k):
 * the indices of those that enter the first K of their partition in the
 * order of the sort (the keys, then the position), each pushing out the
 * last of them, go to keep (room for batch->length), *n_keep of them.
 * LIMIT; NOMEM. */
basalt_status basalt_qwin_live_offer(struct basalt_qwin_live *l, const struct ArrowArray *batch,
                                     int64_t seq, int64_t *keep, int64_t *n_keep,
                                     struct basalt_error *err);
/* The rows of `batch`, whose input positions are in its int64 columns
 * seq_col and row_col, still among the first K of their partition: their
 * indices into keep (room for batch->length), *n_keep of them. NOMEM. */
basalt_status basalt_qwin_live_holding(struct basalt_qwin_live *l,
                                       const struct ArrowArray *batch, int seq_col, int row_col,
                                       int64_t *keep, int64_t *n_keep, struct basalt_error *err);
/* Offers every row `from` holds to `into` (same keys and limit). NOMEM. */
basalt_status basalt_qwin_live_merge(struct basalt_qwin_live *into,
                                     const struct basalt_qwin_live *from,
                                     struct basalt_error *err);
/* Rows the table holds. */
int64_t basalt_qwin_live_rows(const struct basalt_qwin_live *l);

#endif
