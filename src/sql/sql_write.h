/* The statements that write (write.c), called by the session with the
 * cursor of their query: the rows are written as they are made. */
#ifndef BASALT_SQL_WRITE_H
#define BASALT_SQL_WRITE_H

#include "bind/bind_internal.h"

/* A query's rows as they are made: its cursor, and the cursor's schema with
 * the columns named as the query names them. */
struct sql_rows {
    struct ArrowSchema schema;
    struct basalt_qcursor *cursor;
};

/* COPY ... TO 'file' [(FORMAT parquet|csv, HEADER, DELIMITER 'c', QUOTE 'c')]:
 * the format from the option or the file's extension (.csv, .tsv; Parquet
 * otherwise). *written: the rows written. */
basalt_status basalt_sql_copy_to(const struct basalt_sql_statement *stmt,
                                 struct sql_rows *rows, int64_t *written,
                                 struct basalt_error *err);
/* CREATE TABLE ns.t AS query: the table in the query's schema, then the rows. */
basalt_status basalt_sql_create_as(struct basalt_sql_session *s,
                                   const struct basalt_sql_statement *stmt,
                                   struct sql_rows *rows, int64_t *written,
                                   struct basalt_error *err);
/* INSERT INTO ns.t query: the rows conformed to the table's schema (by
 * column name) and appended in one commit. */
basalt_status basalt_sql_insert(struct basalt_sql_session *s,
                                const struct basalt_sql_statement *stmt,
                                struct sql_rows *rows, int64_t *written,
                                struct basalt_error *err);
basalt_status basalt_sql_create_table(struct basalt_sql_session *s,
                                      const struct basalt_sql_statement *stmt,
                                      struct basalt_error *err);
basalt_status basalt_sql_drop_table(struct basalt_sql_session *s,
                                    const struct basalt_sql_statement *stmt,
                                    struct basalt_error *err);

#endif
