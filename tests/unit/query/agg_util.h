/* Helpers for the aggregation tests: arrays from text cells, and running an
 * aggregation over them into text rows ("k0|k1|a0|..."). */
#ifndef QUERY_AGG_UTIL_H
#define QUERY_AGG_UTIL_H

#include "agg/agg.h"

/* An array of `fmt` ("l", "u", "g", "d:9,2" (unscaled integers), "b" (t/f),
 * "tdD"...) from n text cells; "N" is NULL. */
basalt_status at_array(const char *fmt, const char *const *cells, int64_t n,
                       struct ArrowArray *out);

struct at_opts {
    int locals;          /* workers' locals, rows dealt out in runs */
    uint64_t split_seed; /* 0: one consume call per local; else random run lengths */
    struct basalt_pool *pool;
    bool sorted;         /* sort the rows (keys first), for order-insensitive checks */
    const struct ArrowArray *args2; /* per call: the second arguments of two-argument
                                       calls (NULL: none) */
};

/* Runs the aggregation; *rows gets malloc'd lines (free with at_free). */
basalt_status at_run(struct basalt_qagg *agg, const struct basalt_query_type *kt, int nk,
                     const struct basalt_qagg_call *calls, int nc,
                     const struct ArrowArray *keys, const struct ArrowArray *args, int64_t n,
                     const struct at_opts *o, char ***rows, int64_t *n_rows,
                     struct basalt_error *err);
void at_free(char **rows, int64_t n);

#endif
