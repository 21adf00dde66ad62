/* Internal declarations of row-level changes (delete, overwrite, update):
 * where the matching rows are, and the pass over their files that writes
 * what stays. Not part of the public API. */
#ifndef BASALT_ICEBERG_DELETE_INTERNAL_H
#define BASALT_ICEBERG_DELETE_INTERNAL_H

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_scan.h"
#include "delete_write_internal.h"

/* The matching positions of one data file. */
struct basalt_iceberg_hit {
    char *path;
    struct basalt_iceberg_posset *positions;
    const struct basalt_iceberg_data_file *file;      /* from the plan */
    const struct basalt_iceberg_file_task *task;      /* the plan's task of the file */
    int32_t spec_id;
    bool has_deletes;
    bool whole;                                       /* every row matches */
};

/* Sorted by path (strcmp) once found. */
struct basalt_iceberg_hits {
    struct basalt_iceberg_hit *items;
    uint32_t n, cap;
};

void basalt_iceberg_hits_reset(struct basalt_iceberg_hits *h);
/* The hit of `path` (len bytes), or NULL. */
struct basalt_iceberg_hit *basalt_iceberg_hits_find(const struct basalt_iceberg_hits *h,
                                                    const char *path, size_t len);

/* Scans the branch of `t` for the rows where `filter` is true, reading only
 * their positions (pruned by partitions and metrics), into *h (sorted).
 * *scan_out keeps the plan the hits point into (free it after them). */
basalt_status basalt_iceberg_find_hits(const struct basalt_iceberg_table *t, const char *branch,
                                       const char *filter, struct basalt_arena *arena,
                                       struct basalt_iceberg_hits *h,
                                       struct basalt_iceberg_scan **scan_out,
                                       struct basalt_error *err);

/* One parsed SET clause: a top-level field and its new value. */
struct basalt_iceberg_set_clause {
    uint32_t index;                                   /* among the top-level fields */
    const struct basalt_iceberg_field *field;
    struct basalt_iceberg_value value;                /* typed as the field; may be null */
};

/* Parses "column = literal" clauses against `schema` into clauses[0, n)
 * (allocated in `arena`). INVALID_ARG / NOT_FOUND naming the clause. */
basalt_status basalt_iceberg_set_parse(const struct basalt_iceberg_schema *schema,
                                       const char *const *set, uint32_t n,
                                       struct basalt_arena *arena,
                                       struct basalt_iceberg_set_clause **out,
                                       struct basalt_error *err);

/* What the pass over the hit files does with each row. */
struct basalt_iceberg_row_pass {
    const char *branch;
    const char *filter;          /* set: read only matching rows (all are hits) */
    bool keep_unmatched;         /* write the rows that do not match (copy-on-write) */
    bool all_files;              /* read every hit file, not only the partly matching */
    /* Matching rows: with clauses, changed and written; with eq, their keys
     * go to the equality deletes; else dropped. */
    const struct basalt_iceberg_set_clause *set;
    uint32_t n_set;
    /* the caller's computation of the changed rows (in place of set) */
    basalt_status (*set_rows)(void *ctx, const struct ArrowSchema *schema,
                              struct ArrowArray *rows, struct basalt_error *err);
    void *set_rows_ctx;
    struct basalt_iceberg_delete_files *eq;
    const uint32_t *eq_index;    /* key columns among the top-level fields */
    uint32_t n_eq;
    /* v3: the writer takes _row_id and _last_updated_sequence_number after
     * the table's columns (its row_lineage option); rows kept keep both,
     * changed rows keep their id and get a null sequence number (the
     * change's), rows re-added beside equality deletes get neither. */
    bool lineage;
    struct basalt_pool *pool;
    int num_workers;
};

/* Reads the hit files of `t` (the table's columns plus _file and _pos, and
 * the lineage columns when pass->lineage) and writes rows to `w` as `pass`
 * says. */
basalt_status basalt_iceberg_row_pass_run(const struct basalt_iceberg_table *t,
                                          const struct basalt_iceberg_hits *h,
                                          const struct basalt_iceberg_row_pass *pass,
                                          struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err);

#endif
