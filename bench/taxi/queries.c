/* The eight queries: their names and result shapes here, their SQL in
 * queries/<name>.sql (one source for this driver, `basalt sql -f` and the
 * DuckDB leg, which swaps the table for read_parquet of the same files). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taxibench.h"

const struct taxi_query taxi_queries[] = {
    {"q1", "q1_scan_count", "rows with a positive trip distance", TAXI_COUNT},
    {"q2", "q2_month_range", "fares over one quarter", TAXI_SUM},
    {"q3", "q3_payment_sum", "cash fares across the whole table", TAXI_SUM},
    {"q4", "q4_tip_ratio", "tip ratio on long trips", TAXI_RATIO},
    {"q5", "q5_top_zones", "busiest pickup zones", TAXI_ZONE_COUNT},
    {"q6", "q6_zone_revenue", "revenue by pickup zone, 2024", TAXI_ZONE_SUM},
    {"q7", "q7_wide", "every trip of one month", TAXI_COUNT},
    {"q8", "q8_selective", "long card trips from JFK", TAXI_SUM},
};
const size_t taxi_n_queries = sizeof taxi_queries / sizeof taxi_queries[0];

const struct taxi_query *taxi_query_find(const char *name)
{
    for (size_t i = 0; i < taxi_n_queries; i++)
        if (strcmp(taxi_queries[i].name, name) == 0 || strcmp(taxi_queries[i].id, name) == 0)
            return &taxi_queries[i];
    return NULL;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) != NULL) {
            if (fread(text, 1, (size_t)n, f) != (size_t)n) {
                free(text);
                text = NULL;
            } else {
                text[n] = '\0';
            }
        }
    }
    fclose(f);
    return text;
}

char *taxi_query_sql(const struct taxi_query *q, const char *dir, const char *table)
{
    static const char placeholder[] = "taxi.trips";
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.sql", dir, q->name);
    char *text = read_text(path);
    if (text == NULL) {
        fprintf(stderr, "basalt-taxibench: cannot read %s\n", path);
        return NULL;
    }
    char *at = strstr(text, placeholder);
    if (at == NULL) {
        fprintf(stderr, "basalt-taxibench: %s does not name %s\n", path, placeholder);
        free(text);
        return NULL;
    }
    size_t head = (size_t)(at - text), tail = strlen(at + sizeof placeholder - 1);
    char *out = malloc(head + strlen(table) + tail + 1);
    if (out != NULL) {
        memcpy(out, text, head);
        strcpy(out + head, table);
        strcat(out, at + sizeof placeholder - 1);
    }
    free(text);
    return out;
}
