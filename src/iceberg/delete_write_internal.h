/* Internal declarations of the delete files a merge-on-read change writes:
 * position-delete files (v2), deletion vectors in Puffin files (v3) and
 * equality-delete files. Not part of the public API. */
#ifndef BASALT_ICEBERG_DELETE_WRITE_INTERNAL_H
#define BASALT_ICEBERG_DELETE_WRITE_INTERNAL_H

#include "basalt/core.h"
#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_types.h"

struct ArrowArray;
struct ArrowSchema;
struct basalt_iceberg_posset;
struct basalt_iceberg_data_writer;
struct basalt_iceberg_eq_groups;

/* The rows of one data file a change deletes (all borrowed). */
struct basalt_iceberg_file_deletes {
    const struct basalt_iceberg_data_file *file;
    int32_t spec_id;                              /* the data file's spec */
    const struct basalt_iceberg_posset *positions;
};

/* The delete files one attempt wrote, with their specs. The entries stay
 * valid until reset (the writers behind them are kept). */
struct basalt_iceberg_delete_files {
    struct basalt_iceberg_data_file *files;
    int32_t *spec_ids;
    uint32_t n, cap;
    struct basalt_iceberg_data_writer **writers;
    uint32_t n_writers, cap_writers;
    struct basalt_string_list puffins;            /* Puffin files written */
    struct basalt_arena arena;                    /* DV entries, schemas, group keys */
    /* Equality deletes being gathered (delete_write_eq.c). */
    struct basalt_iceberg_eq_groups *eq;
};

void basalt_iceberg_delete_files_init(struct basalt_iceberg_delete_files *d);
/* Deletes every file written (the attempt lost or failed). */
void basalt_iceberg_delete_files_abort(const struct basalt_iceberg_table *t,
                                       struct basalt_iceberg_delete_files *d);
void basalt_iceberg_delete_files_reset(struct basalt_iceberg_delete_files *d);

/* Appends one delete file entry (copied; what it points to must live as long
 * as `d`). NOMEM. */
basalt_status basalt_iceberg_delete_files_add(struct basalt_iceberg_delete_files *d,
                                              const struct basalt_iceberg_data_file *f,
                                              int32_t spec_id, struct basalt_error *err);

/* The data writer options every delete file of `t` starts from: Parquet in
 * the table's data location, its codec properties, a unique file prefix
 * made of `tag` and a random UUID (prefix[64] holds it). */
struct basalt_iceberg_data_writer_options;
void basalt_iceberg_delete_writer_options(const struct basalt_iceberg_table *t, const char *tag,
                                          char data_location[4096], char prefix[96],
                                          struct basalt_iceberg_data_writer_options *o);

/* A data writer for delete files of `schema` in t's data location, named
 * with `tag`, with the table's properties (or props[0, n_props) when
 * props is set), kept in `d` so an abort removes its files and reset frees
 * it. NOMEM, the statuses of basalt_iceberg_data_writer_new. */
basalt_status basalt_iceberg_delete_files_writer(const struct basalt_iceberg_table *t,
                                                 const char *tag,
                                                 const struct basalt_iceberg_schema *schema,
                                                 const struct basalt_iceberg_kv *props,
                                                 uint32_t n_props,
                                                 struct basalt_iceberg_delete_files *d,
                                                 struct basalt_iceberg_data_writer **out,
                                                 struct basalt_error *err);

/* One position-delete file per item (file-scoped: referenced_data_file set),
 * rows (file_path, pos) in position order, in the data file's partition. */
basalt_status basalt_iceberg_write_position_deletes(const struct basalt_iceberg_table *t,
                                                    const struct basalt_iceberg_file_deletes *items,
                                                    uint32_t n,
                                                    struct basalt_iceberg_delete_files *out,
                                                    struct basalt_error *err);

/* One Puffin file holding a deletion-vector-v1 blob per item; each item's
 * positions must already include the deletes in force on its file (a DV
 * replaces them). */
basalt_status basalt_iceberg_write_dvs(const struct basalt_iceberg_table *t,
                                       const struct basalt_iceberg_file_deletes *items, uint32_t n,
                                       struct basalt_iceberg_delete_files *out,
                                       struct basalt_error *err);

/* Equality deletes (delete_write_eq.c): the key columns `field_ids`
 * (top-level primitive fields of the current schema) of the deleted rows,
 * one file per partition of the data files the rows came from. */
basalt_status basalt_iceberg_eq_deletes_begin(const struct basalt_iceberg_table *t,
                                              const int32_t *field_ids, uint32_t n_ids,
                                              struct basalt_iceberg_delete_files *out,
                                              struct basalt_error *err);
/* Adds the rows of `keys` (a struct array of the key columns, in field_ids
 * order, as basalt_iceberg_schema_to_arrow types them); row r came from data
 * file files[r] (of spec spec_ids[r]). */
basalt_status basalt_iceberg_eq_deletes_add(struct basalt_iceberg_delete_files *out,
                                            const struct ArrowSchema *keys_schema,
                                            const struct ArrowArray *keys,
                                            const struct basalt_iceberg_data_file *const *files,
                                            const int32_t *spec_ids, struct basalt_error *err);
/* Frees the gathering state (NULL is a no-op); the writers are d's. */
void basalt_iceberg_eq_groups_free(struct basalt_iceberg_eq_groups *g);
/* Closes the files and adds their entries to `out`. */
basalt_status basalt_iceberg_eq_deletes_finish(struct basalt_iceberg_delete_files *out,
                                               struct basalt_error *err);

#endif
