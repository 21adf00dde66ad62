/* The small results of statements (results.c): one batch each. */
#ifndef BASALT_SQL_RESULTS_H
#define BASALT_SQL_RESULTS_H

#include "bind/bind_internal.h"

/* One VARCHAR column "explain", a row per line of `text`. */
basalt_status basalt_sql_explain_rows(const char *text, struct basalt_arrow_batches *out,
                                      struct basalt_error *err);
/* One row, one BIGINT column `name` holding n (what writes answer). */
basalt_status basalt_sql_count_rows(const char *name, int64_t n, struct basalt_arrow_batches *out,
                                    struct basalt_error *err);
/* DESCRIBE: column_name and column_type (DuckDB's type names) per column. */
basalt_status basalt_sql_describe_rows(const struct ArrowSchema *schema,
                                       struct basalt_arrow_batches *out, struct basalt_error *err);
/* SHOW TABLES: "ns.table" for every table of the session's catalog. */
basalt_status basalt_sql_show_tables(struct basalt_sql_session *s, struct basalt_arrow_batches *out,
                                     struct basalt_error *err);

#endif
