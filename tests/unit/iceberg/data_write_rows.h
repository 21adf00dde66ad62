/* The rows the data writer's tests write: a table of every kind of column
 * (flat, list, struct, map; nulls and NaN), each value a function of the
 * row number, so a test computes what it expects from the same function
 * instead of from the code under test. */
#ifndef BASALT_DATA_WRITE_ROWS_H
#define BASALT_DATA_WRITE_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "basalt/arrow.h"
#include "basalt/iceberg_types.h"

/* The schema of the rows (field ids in brackets):
 *   id [1] long required        name [2] string        price [3] double (NaN some)
 *   qty [4] int                 ts [5] timestamptz     tags [6] list<string [10]>
 *   addr [7] struct<city [11] string, zip [12] int required>
 *   flag [8] boolean            amount [9] decimal(10,2)   day [13] date
 *   m [14] map<string [15], long [16]>                  score [17] float (NaN some) */
extern const char *const dwr_schema_json;

/* 2024-03-05T10:15:30Z in microseconds. */
#define DWR_TS0 INT64_C(1709633730000000)
/* 2024-03-05 in days. */
#define DWR_DAY0 19787

/* One row's values; a string is NULL when null. */
struct dwr_row {
    int64_t id;
    const char *name;               /* points into `buf` */
    bool price_null;
    double price;
    bool qty_null;
    int32_t qty;
    int64_t ts;
    bool tags_null;
    int ntags;
    bool tag_null[3];
    char tags[3][8];
    bool addr_null;
    const char *city;
    int32_t zip;
    bool flag;
    bool amount_null;
    int64_t amount;                 /* unscaled, scale 2 */
    int32_t day;
    int nm;
    char keys[3][8];
    bool value_null[3];
    int64_t values[3];
    bool score_null;
    float score;
    char buf[2][16];
};

void dwr_make_row(int64_t r, struct dwr_row *out);

/* A batch of rows rows[0, n) (rows NULL: first, first + 1, ...), of the type
 * basalt_iceberg_schema_to_arrow gives `schema` (which must be the schema
 * above). */
basalt_status dwr_batch(const struct basalt_iceberg_schema *schema, const int64_t *rows,
                        int64_t first, int64_t n, struct ArrowArray *out);

#endif
