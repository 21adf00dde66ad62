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
struct basalt_catalog_glue;
struct basalt_catalog_s3tables;
struct basalt_rest_client; /* rest_client_internal.h */

enum basalt_catalog_kind {
    BASALT_CATALOG_KIND_SQL,
    BASALT_CATALOG_KIND_FS,
    BASALT_CATALOG_KIND_REST,
    BASALT_CATALOG_KIND_GLUE,
    BASALT_CATALOG_KIND_S3TABLES,
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
    struct basalt_catalog_glue *glue;
    struct basalt_catalog_s3tables *s3t;
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

/* Views (rows with iceberg_type 'VIEW'). enable_views adds the iceberg_type
 * column to a V0 catalog (ALTER TABLE ... ADD COLUMN iceberg_type
 * VARCHAR(5), as the Java catalog's V1 migration); register_view does so
 * first. A V0 catalog has no views: lists are empty, lookups NOT_FOUND. */
basalt_status basalt_catalog_sql_enable_views(struct basalt_catalog_sql *sql,
                                              struct basalt_error *err);
basalt_status basalt_catalog_sql_list_views(struct basalt_catalog_sql *sql, const char *catalog,
                                            const char *ns, struct basalt_string_list *out,
                                            struct basalt_error *err);
basalt_status basalt_catalog_sql_view_location(struct basalt_catalog_sql *sql, const char *catalog,
                                               const char *ns, const char *name, char **out,
                                               struct basalt_error *err);
/* CONFLICT when a table or view has the name. */
basalt_status basalt_catalog_sql_register_view(struct basalt_catalog_sql *sql,
                                               const char *catalog, const char *ns,
                                               const char *name, const char *metadata_location,
                                               struct basalt_error *err);
basalt_status basalt_catalog_sql_swap_view(struct basalt_catalog_sql *sql, const char *catalog,
                                           const char *ns, const char *name,
                                           const char *expected, const char *location,
                                           struct basalt_error *err);
basalt_status basalt_catalog_sql_drop_view(struct basalt_catalog_sql *sql, const char *catalog,
                                           const char *ns, const char *name,
                                           struct basalt_error *err);
basalt_status basalt_catalog_sql_rename_view(struct basalt_catalog_sql *sql, const char *catalog,
                                             const char *from_ns, const char *from_name,
                                             const char *to_ns, const char *to_name,
                                             struct basalt_error *err);

/* Commit helpers shared by tables and views (commit.c). */
/* The next metadata file under `location`: "<location>/metadata/<NNNNN>-
 * <uuid>.metadata.json", NNNNN one past the version of `previous` (NULL:
 * 0). basalt_malloc'd. */
basalt_status basalt_catalog_next_metadata_location(const struct basalt_catalog *c,
                                                    const char *location, const char *previous,
                                                    char **out, struct basalt_error *err);
/* Writes `text` to `location`, created exclusively (CONFLICT when it is
 * there). */
basalt_status basalt_catalog_write_metadata(const struct basalt_iceberg_io *io,
                                            const char *location, const char *text, size_t len,
                                            struct basalt_error *err);
/* Milliseconds since the epoch. */
int64_t basalt_catalog_now_ms(void);

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

/* AWS Glue Data Catalog (glue.c): "glue://[REGION]". Databases are the
 * namespaces (one level), Iceberg tables are EXTERNAL_TABLE entries with
 * Parameters table_type ICEBERG and metadata_location. */
bool basalt_catalog_glue_uri(const char *uri);
basalt_status basalt_catalog_glue_open(const char *uri, struct basalt_catalog_glue **out,
                                       struct basalt_error *err);
void basalt_catalog_glue_close(struct basalt_catalog_glue *g);
void basalt_catalog_glue_set_store(struct basalt_catalog_glue *g, struct basalt_io_store *store);
basalt_status basalt_catalog_glue_namespace_exists(struct basalt_catalog_glue *g, const char *ns,
                                                   bool *exists, struct basalt_error *err);
basalt_status basalt_catalog_glue_list_namespaces(struct basalt_catalog_glue *g,
                                                  const char *parent,
                                                  struct basalt_string_list *out,
                                                  struct basalt_error *err);
basalt_status basalt_catalog_glue_list_tables(struct basalt_catalog_glue *g, const char *ns,
                                              struct basalt_string_list *out,
                                              struct basalt_error *err);
basalt_status basalt_catalog_glue_create_namespace(struct basalt_catalog_glue *g, const char *ns,
                                                   struct basalt_error *err);
/* NOT_FOUND when there is no such table or it is not an Iceberg table. */
basalt_status basalt_catalog_glue_table_location(struct basalt_catalog_glue *g, const char *ns,
                                                 const char *name, char **out,
                                                 struct basalt_error *err);
/* "<database LocationUri>/<name>", else "<warehouse>/<ns>.db/<name>";
 * NOT_FOUND when the database does not exist. */
basalt_status basalt_catalog_glue_default_location(struct basalt_catalog_glue *g,
                                                   const char *warehouse, const char *ns,
                                                   const char *name, char **out,
                                                   struct basalt_error *err);
/* CreateTable pointing at `metadata_location`; `metadata_text` (may be
 * NULL) gives the location and the columns. CONFLICT when it exists. */
basalt_status basalt_catalog_glue_register(struct basalt_catalog_glue *g, const char *ns,
                                           const char *name, const char *metadata_location,
                                           const char *metadata_text, struct basalt_error *err);
/* GetTable, then UpdateTable to `location` with the VersionId it gave,
 * when it still points at `expected`. CONFLICT when another commit moved
 * it; UNKNOWN_OUTCOME when the update may have been applied anyway. */
basalt_status basalt_catalog_glue_swap(struct basalt_catalog_glue *g, const char *ns,
                                       const char *name, const char *expected,
                                       const char *location, const char *metadata_text,
                                       struct basalt_error *err);
basalt_status basalt_catalog_glue_drop(struct basalt_catalog_glue *g, const char *ns,
                                       const char *name, struct basalt_error *err);

/* Amazon S3 Tables (s3tables.c): "s3tables://" + a table bucket ARN. The
 * service chooses each table's location (its warehouseLocation) and keeps a
 * version token that every pointer update must name. */
bool basalt_catalog_s3tables_uri(const char *uri);
basalt_status basalt_catalog_s3tables_open(const char *uri,
                                           struct basalt_catalog_s3tables **out,
                                           struct basalt_error *err);
void basalt_catalog_s3tables_close(struct basalt_catalog_s3tables *s);
void basalt_catalog_s3tables_set_store(struct basalt_catalog_s3tables *s,
                                       struct basalt_io_store *store);
basalt_status basalt_catalog_s3tables_namespace_exists(struct basalt_catalog_s3tables *s,
                                                       const char *ns, bool *exists,
                                                       struct basalt_error *err);
basalt_status basalt_catalog_s3tables_list_namespaces(struct basalt_catalog_s3tables *s,
                                                      const char *parent,
                                                      struct basalt_string_list *out,
                                                      struct basalt_error *err);
basalt_status basalt_catalog_s3tables_list_tables(struct basalt_catalog_s3tables *s,
                                                  const char *ns,
                                                  struct basalt_string_list *out,
                                                  struct basalt_error *err);
basalt_status basalt_catalog_s3tables_create_namespace(struct basalt_catalog_s3tables *s,
                                                       const char *ns,
                                                       struct basalt_error *err);
/* NOT_FOUND also when the table has no metadata yet. */
basalt_status basalt_catalog_s3tables_table_location(struct basalt_catalog_s3tables *s,
                                                     const char *ns, const char *name,
                                                     char **out, struct basalt_error *err);
/* "s3tables://<ARN>/<ns>/<name>": a stand-in; create_table puts the
 * table where the service says. */
basalt_status basalt_catalog_s3tables_default_location(struct basalt_catalog_s3tables *s,
                                                       const char *ns, const char *name,
                                                       char **out, struct basalt_error *err);
/* CreateTable (format ICEBERG): the table's warehouseLocation and version
 * token, both basalt_malloc'd. CONFLICT when it exists. */
basalt_status basalt_catalog_s3tables_create_entry(struct basalt_catalog_s3tables *s,
                                                   const char *ns, const char *name,
                                                   char **warehouse, char **token,
                                                   struct basalt_error *err);
/* Points the table at `location`: with `token` (the create's), or, when
 * NULL, after GetTableMetadataLocation if it still points at `expected`.
 * CONFLICT when another commit moved it; UNKNOWN_OUTCOME as for Glue. */
basalt_status basalt_catalog_s3tables_swap(struct basalt_catalog_s3tables *s, const char *ns,
                                           const char *name, const char *token,
                                           const char *expected, const char *location,
                                           struct basalt_error *err);
basalt_status basalt_catalog_s3tables_drop(struct basalt_catalog_s3tables *s, const char *ns,
                                           const char *name, struct basalt_error *err);

#endif
