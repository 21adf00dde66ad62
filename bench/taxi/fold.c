/* Folds a query's result rows into its JSON shape. The top-10 rule is the
 * upstream benchmark's: zones 0 <= z < 266 with a value above 0, by value
 * descending, ties to the lower zone. The zone query's total sum adds the
 * zones in ascending zone order, so it does not depend on the engine's
 * group order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taxibench.h"

#define MAX_ZONE 266
#define TOP_K 10

/* Value (row) of column c as a double; NULL is 0, as an empty SQL sum. */
static basalt_status cell(const struct basalt_arrow_batches *rows, int c, int64_t row, double *out,
                          struct basalt_error *err)
{
    if (c >= rows->schema.n_children)
        return basalt_error_set(err, BASALT_CORRUPT, "result has %lld columns, wanted %d",
                                (long long)rows->schema.n_children, c + 1);
    const char *fmt = rows->schema.children[c]->format;
    for (int64_t b = 0; b < rows->n; b++) {
        const struct ArrowArray *batch = &rows->arrays[b];
        if (row >= batch->length) {
            row -= batch->length;
            continue;
        }
        const struct ArrowArray *a = batch->children[c];
        int64_t i = a->offset + row;
        const uint8_t *valid = a->buffers[0];
        if (valid != NULL && !(valid[i >> 3] & (1u << (i & 7)))) {
            *out = 0;
            return BASALT_OK;
        }
        if (strcmp(fmt, "l") == 0)
            *out = (double)((const int64_t *)a->buffers[1])[i];
        else if (strcmp(fmt, "i") == 0)
            *out = (double)((const int32_t *)a->buffers[1])[i];
        else if (strcmp(fmt, "g") == 0)
            *out = ((const double *)a->buffers[1])[i];
        else
            return basalt_error_set(err, BASALT_UNSUPPORTED, "result column %d has type '%s'", c,
                                    fmt);
        return BASALT_OK;
    }
    return basalt_error_set(err, BASALT_CORRUPT, "result has no row %lld", (long long)row);
}

static int64_t num_rows(const struct basalt_arrow_batches *rows)
{
    int64_t n = 0;
    for (int64_t b = 0; b < rows->n; b++)
        n += rows->arrays[b].length;
    return n;
}

/* The k best zones by value[z] (descending, ties to the lower zone). */
static int top_zones(const double *value, const bool *seen, int *top)
{
    int n = 0;
    for (int z = 0; z < MAX_ZONE; z++) {
        if (!seen[z] || !(value[z] > 0))
            continue;
        int at = n < TOP_K ? n++ : TOP_K;
        /* strictly greater moves up: an equal value keeps the lower zone first */
        while (at > 0 && value[z] > value[top[at - 1]]) {
            if (at < TOP_K)
                top[at] = top[at - 1];
            at--;
        }
        if (at < TOP_K)
            top[at] = z;
    }
    return n;
}

static basalt_status fold_zones(const struct taxi_query *q, const struct basalt_arrow_batches *rows,
                                FILE *o, long long *count, struct basalt_error *err)
{
    double counts[MAX_ZONE] = {0}, sums[MAX_ZONE] = {0};
    bool seen[MAX_ZONE] = {false};
    double total = 0, out_of_range_sum = 0;
    basalt_status st = BASALT_OK;
    for (int64_t r = 0; r < num_rows(rows) && st == BASALT_OK; r++) {
        double zone, n, sum = 0;
        st = cell(rows, 0, r, &zone, err);
        if (st == BASALT_OK)
            st = cell(rows, 1, r, &n, err);
        if (st == BASALT_OK && q->fold == TAXI_ZONE_SUM)
            st = cell(rows, 2, r, &sum, err);
        if (st != BASALT_OK)
            break;
        total += n;
        if (zone >= 0 && zone < MAX_ZONE) {
            counts[(int)zone] += n;
            sums[(int)zone] += sum;
            seen[(int)zone] = true;
        } else {
            out_of_range_sum += sum;
        }
    }
    if (st != BASALT_OK)
        return st;
    *count = (long long)total;
    int top[TOP_K], n = top_zones(counts, seen, top);
    fprintf(o, "{\"count\":%lld", *count);
    if (q->fold == TAXI_ZONE_SUM) {
        double sum = out_of_range_sum;
        for (int z = 0; z < MAX_ZONE; z++)
            sum += sums[z];
        fprintf(o, ",\"sum\":%.17g", sum);
    }
    fprintf(o, ",\"top\":[");
    for (int i = 0; i < n; i++) {
        fprintf(o, "%s[%d,%.0f", i ? "," : "", top[i], counts[top[i]]);
        if (q->fold == TAXI_ZONE_SUM)
            fprintf(o, ",%.17g", sums[top[i]]);
        fprintf(o, "]");
    }
    fprintf(o, "]");
    if (q->fold == TAXI_ZONE_SUM) {
        n = top_zones(sums, seen, top);
        fprintf(o, ",\"top_sum\":[");
        for (int i = 0; i < n; i++)
            fprintf(o, "%s[%d,%.17g]", i ? "," : "", top[i], sums[top[i]]);
        fprintf(o, "]");
    }
    fprintf(o, "}");
    return BASALT_OK;
}

static basalt_status fold_row(const struct taxi_query *q, const struct basalt_arrow_batches *rows,
                              FILE *o, long long *count, struct basalt_error *err)
{
    if (num_rows(rows) != 1)
        return basalt_error_set(err, BASALT_CORRUPT, "%s: %lld result rows, wanted 1", q->name,
                                (long long)num_rows(rows));
    double v[3] = {0, 0, 0};
    int n = q->fold == TAXI_COUNT ? 1 : q->fold == TAXI_SUM ? 2 : 3;
    for (int c = 0; c < n; c++) {
        basalt_status st = cell(rows, c, 0, &v[c], err);
        if (st != BASALT_OK)
            return st;
    }
    *count = (long long)v[0];
    if (q->fold == TAXI_COUNT)
        fprintf(o, "{\"count\":%lld}", *count);
    else if (q->fold == TAXI_SUM)
        fprintf(o, "{\"count\":%lld,\"sum\":%.17g}", *count, v[1]);
    else
        fprintf(o, "{\"count\":%lld,\"tip\":%.17g,\"fare\":%.17g,\"tip_ratio\":%.17g}", *count,
                v[1], v[2], v[2] == 0 ? 0.0 : v[1] / v[2]);
    return BASALT_OK;
}

basalt_status taxi_fold_result(const struct taxi_query *q, const struct basalt_arrow_batches *rows,
                               char **json, long long *count, struct basalt_error *err)
{
    size_t len = 0;
    FILE *o = open_memstream(json, &len);
    if (o == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = q->fold == TAXI_ZONE_COUNT || q->fold == TAXI_ZONE_SUM
                           ? fold_zones(q, rows, o, count, err)
                           : fold_row(q, rows, o, count, err);
    fclose(o);
    if (st != BASALT_OK) {
        free(*json);
        *json = NULL;
    }
    return st;
}
