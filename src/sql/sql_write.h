/* The statements that write (write.c), called by the session with the rows
 * of their query already computed. */
#ifndef BASALT_SQL_WRITE_H
#define BASALT_SQL_WRITE_H

#include "bind/bind_internal.h"

/* COPY ... TO 'file' [(FORMAT parquet|csv, HEADER, DELIMITER 'c', QUOTE 'c')]:
 * the format from the option or the file's extension (.csv, .tsv; Parquet
 * otherwise). *written: the rows written. */
basalt_status basalt_sql_copy_to(const struct basalt_sql_statement *stmt,
                                 struct basalt_arrow_batches *rows, int64_t *written,
                                 struct basalt_error *err);
/* CREATE TABLE ns.t AS query: the table in the query's schema, then the rows. */
basalt_status basalt_sql_create_as(struct basalt_sql_session *s,
                                   const struct basalt_sql_statement *stmt,
                                   struct basalt_arrow_batches *rows, int64_t *written,
                                   struct basalt_error *err);
/* INSERT INTO ns.t query: the rows conformed to the table's schema (by
 * column name) and appended in one commit. */
basalt_status basalt_sql_insert(struct basalt_sql_session *s,
                                const struct basalt_sql_statement *stmt,
                                struct basalt_arrow_batches *rows, int64_t *written,
                                struct basalt_error *err);
basalt_status basalt_sql_create_table(struct basalt_sql_session *s,
                                      const struct basalt_sql_statement *stmt,
                                      struct basalt_error *err);
basalt_status basalt_sql_drop_table(struct basalt_sql_session *s,
                                    const struct basalt_sql_statement *stmt,
                                    struct basalt_error *err);

#endif
