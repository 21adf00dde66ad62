/* taxibench: eight analytical queries over an Iceberg table of taxi trips,
 * each folded into the result shape the benchmark compares across engines:
 *   COUNT {count}   SUM {count, sum}   RATIO {count, tip, fare, tip_ratio}
 *   ZONE_COUNT {count, top: [[zone, count] x10]}
 *   ZONE_SUM {count, sum, top: [[zone, count, sum] x10], top_sum: [[zone, sum] x10]} */
#ifndef BASALT_TAXIBENCH_H
#define BASALT_TAXIBENCH_H

#include <stddef.h>

#include "basalt/arrow.h"
#include "basalt/core.h"

enum taxi_fold { TAXI_COUNT, TAXI_SUM, TAXI_RATIO, TAXI_ZONE_COUNT, TAXI_ZONE_SUM };

struct taxi_query {
    const char *name;  /* q1 .. q8: queries/<name>.sql */
    const char *id;    /* the upstream name, q1_scan_count ... */
    const char *title;
    enum taxi_fold fold;
};

extern const struct taxi_query taxi_queries[];
extern const size_t taxi_n_queries;

const struct taxi_query *taxi_query_find(const char *name);

/* The query's SQL read from dir/<name>.sql, with the table name `taxi.trips`
 * replaced by `table` (any FROM item: another name, read_parquet([...])).
 * Returns a malloc'ed string, or NULL with a message on stderr. */
char *taxi_query_sql(const struct taxi_query *q, const char *dir, const char *table);

/* The result rows folded into the query's JSON shape (a malloc'ed string)
 * and the number of rows that passed the filter in *count. Sums are printed
 * with 17 significant digits; an empty sum is 0. */
basalt_status taxi_fold_result(const struct taxi_query *q, const struct basalt_arrow_batches *rows,
                               char **json, long long *count, struct basalt_error *err);

#endif
