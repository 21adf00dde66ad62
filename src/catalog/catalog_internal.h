/* Internal declarations of the catalogs: the catalog object, and the SQL
 * and file-system kinds behind it (the REST kind: rest_client_internal.h).
 * Not part of the public API. */
#ifndef BASALT_CATALOG_INTERNAL_H
#define BASALT_CATALOG_INTERNAL_H

#include "basalt/catalog.h"

/* Splits identifier "a.b.t" at its last dot into ns "a.b" and name "t" (both
 * basalt_malloc'd). INVALID_ARG when there is no dot or either part is empty. */
basalt_status basalt_catalog_identifier_split(const char *identifier, char **ns, char **name,
                                              struct basalt_error *err);


struct basalt_catalog_sql;
struct basalt_catalog_fs;
struct basalt_rest_client; /* rest_client_internal.h */

enum basalt_catalog_kind {
    BASALT_CATALOG_KIND_SQL,
    BASALT_CATALOG_KIND_FS,
    BASALT_CATALOG_KIND_REST,
};

struct basalt_catalog {
    enum basalt_catalog_kind kind;
    /* Where new tables go: <warehouse>/<namespace levels>/<table>. The
     * catalog database's directory or the file-system catalog's directory
     * unless set. */
    char *warehouse;
    char *name;                     /* catalog_name */
    struct basalt_iceberg_io *io;   /* mappings for table loads */
    struct basalt_catalog_sql *sql;
    struct basalt_catalog_fs *fs;
    struct basalt_rest_client *rest;
};

/* Loads the table whose metadata file is `location` under `identifier`
 * (table->metadata_location is `location`). */
basalt_status basalt_catalog_load_location(struct basalt_catalog *c,
                                                   const char *identifier, const char *location,
                                                   struct basalt_iceberg_table **out,
                                                   struct basalt_error *err);

/* SQL catalog (sql.c) on SQLite (`target`: the database file) or
 * PostgreSQL (`target`: a libpq connection string or URI). */
basalt_status basalt_catalog_sql_open(const char *target, bool postgres, bool create,
                                      struct basalt_catalog_sql **out,
                                      struct basalt_error *err);
void basalt_catalog_sql_close(struct basalt_catalog_sql *sql);
basalt_status basalt_catalog_sql_namespace_exists(struct basalt_catalog_sql *sql,
                                                  const char *catalog, const char *ns,
                                                  bool *exists, struct basalt_error *err);
/* Every namespace named by a table or property row (with repetitions). */
basalt_status basalt_catalog_sql_all_namespaces(struct basalt_catalog_sql *sql,
                                                const char *catalog, const char *parent,
                                                struct basalt_string_list *out,
                                                struct basalt_error *err);
basalt_status basalt_catalog_sql_list_tables(struct basalt_catalog_sql *sql,
                                             const char *catalog, const char *ns,
                                             struct basalt_string_list *out,
                                             struct basalt_error *err);
basalt_status basalt_catalog_sql_create_namespace(struct basalt_catalog_sql *sql,
                                                  const char *catalog, const char *ns,
                                                  struct basalt_error *err);
/* NOT_FOUND when there is no such table (or its location is NULL). */
basalt_status basalt_catalog_sql_table_location(struct basalt_catalog_sql *sql,
                                                const char *catalog, const char *ns,
                                                const char *name, char **out,
                                                struct basalt_error *err);
basalt_status basalt_catalog_sql_register(struct basalt_catalog_sql *sql,
                                          const char *catalog, const char *ns, const char *name,
                                          const char *metadata_location, struct basalt_error *err);
/* Points the table at `location` if it still points at `expected`;
 * CONFLICT when another commit moved it. */
basalt_status basalt_catalog_sql_swap(struct basalt_catalog_sql *sql, const char *catalog,
                                      const char *ns, const char *name, const char *expected,
                                      const char *location, struct basalt_error *err);
/* The database file's path. */
const char *basalt_catalog_sql_path(const struct basalt_catalog_sql *sql);
basalt_status basalt_catalog_sql_drop(struct basalt_catalog_sql *sql, const char *catalog,
                                      const char *ns, const char *name, struct basalt_error *err);

/* File-system catalog (fs.c). */
basalt_status basalt_catalog_fs_open(const char *dir, bool create,
                                     struct basalt_catalog_fs **out,
                                     struct basalt_error *err);
void basalt_catalog_fs_close(struct basalt_catalog_fs *fs);
basalt_status basalt_catalog_fs_namespace_exists(struct basalt_catalog_fs *fs,
                                                 const char *ns, bool *exists,
                                                 struct basalt_error *err);
basalt_status basalt_catalog_fs_list_namespaces(struct basalt_catalog_fs *fs,
                                                const char *parent,
                                                struct basalt_string_list *out,
                                                struct basalt_error *err);
basalt_status basalt_catalog_fs_list_tables(struct basalt_catalog_fs *fs, const char *ns,
                                            struct basalt_string_list *out,
                                            struct basalt_error *err);
basalt_status basalt_catalog_fs_create_namespace(struct basalt_catalog_fs *fs,
                                                 const char *ns, struct basalt_error *err);
/* The table directory of ns.name, basalt_malloc'd. NOT_FOUND. */
basalt_status basalt_catalog_fs_table_dir(struct basalt_catalog_fs *fs, const char *ns,
                                          const char *name, char **out,
                                          struct basalt_error *err);

#endif
