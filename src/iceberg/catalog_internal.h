/* Internal declarations of the Iceberg io, table loading and catalog code.
 * Not part of the public API. */
#ifndef BASALT_ICEBERG_CATALOG_INTERNAL_H
#define BASALT_ICEBERG_CATALOG_INTERNAL_H

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_metadata.h"

/* One prefix -> local directory mapping. */
struct basalt_iceberg_io_mapping {
    char *prefix;
    char *local;
    size_t prefix_len;
};

struct basalt_iceberg_io {
    struct basalt_io_store *store; /* borrowed; NULL: local files only */
    struct basalt_iceberg_io_mapping *maps;
    size_t n_maps;
    size_t cap_maps;
};

/* The normalised form of a location (io rules, step 2), NUL-terminated into
 * out[0..cap): file URI forms become paths, leading "./" go, and with
 * `strip_slash` trailing '/' go too (never the root's). LIMIT. */
basalt_status basalt_iceberg_location_normalize(const char *location, bool strip_slash, char *out,
                                                size_t cap, struct basalt_error *err);
/* Whether `location` has a URI scheme ("s3:", "file:", ...): two or more
 * scheme characters before a ':'. */
bool basalt_iceberg_location_has_scheme(const char *location);

/* The current metadata file of a remote table (a metadata URI, or a table
 * URI whose metadata/ is listed for the highest version). NOT_FOUND, LIMIT,
 * and the store's statuses. */
basalt_status basalt_iceberg_table_find_metadata_remote(const struct basalt_iceberg_io *io,
                                                        const char *path, char *out, size_t cap,
                                                        struct basalt_error *err);

/* Reads a whole resolved path (a local path, or a remote URI when `io` has a
 * store) into a basalt_malloc'd buffer. NOT_FOUND, IO, LIMIT, NOMEM. */
basalt_status basalt_iceberg_io_read_resolved(const struct basalt_iceberg_io *io,
                                              const char *path, uint8_t **data, size_t *len,
                                              struct basalt_error *err);

/* Reads the whole local file `path` (no location rules) into a
 * basalt_malloc'd buffer. NOT_FOUND, IO, LIMIT, NOMEM. */
basalt_status basalt_iceberg_read_path(const char *path, uint8_t **data, size_t *len,
                                       struct basalt_error *err);

/* mkdir -p of the directory part of the local path `path`. IO, LIMIT. */
basalt_status basalt_iceberg_make_parent_dirs(const char *path, struct basalt_error *err);

/* A basalt_malloc'd copy of s (NULL on NOMEM). */
char *basalt_iceberg_strdup(const char *s);
char *basalt_iceberg_strndup(const char *s, size_t len);

/* Loads a table from a local metadata file path, without discovery (catalog
 * loads): as basalt_iceberg_table_load for a file. */
basalt_status basalt_iceberg_table_load_file(const char *path, const struct basalt_iceberg_io *io,
                                             struct basalt_iceberg_table **out,
                                             struct basalt_error *err);

/* Splits identifier "a.b.t" at its last dot into ns "a.b" and name "t" (both
 * basalt_malloc'd). INVALID_ARG when there is no dot or either part is empty. */
basalt_status basalt_iceberg_identifier_split(const char *identifier, char **ns, char **name,
                                              struct basalt_error *err);

/* A growable list of basalt_malloc'd strings. */
struct basalt_iceberg_strings {
    char **items;
    size_t n;
    size_t cap;
};
/* Appends a copy of s[0..len). NOMEM. */
basalt_status basalt_iceberg_strings_add(struct basalt_iceberg_strings *list, const char *s,
                                         size_t len, struct basalt_error *err);
/* Sorts and removes duplicates. */
void basalt_iceberg_strings_sort_unique(struct basalt_iceberg_strings *list);
void basalt_iceberg_strings_reset(struct basalt_iceberg_strings *list);

/* -------------------------------------------------------------- catalogs */

struct basalt_iceberg_sql_catalog;
struct basalt_iceberg_fs_catalog;

enum basalt_iceberg_catalog_kind { BASALT_ICEBERG_CATALOG_SQL, BASALT_ICEBERG_CATALOG_FS };

struct basalt_iceberg_catalog {
    enum basalt_iceberg_catalog_kind kind;
    /* Where new tables go: <warehouse>/<namespace levels>/<table>. The
     * catalog database's directory or the file-system catalog's directory
     * unless set. */
    char *warehouse;
    char *name;                     /* catalog_name */
    struct basalt_iceberg_io *io;   /* mappings for table loads */
    struct basalt_iceberg_sql_catalog *sql;
    struct basalt_iceberg_fs_catalog *fs;
};

/* Loads the table whose metadata file is `location` under `identifier`
 * (table->metadata_location is `location`). */
basalt_status basalt_iceberg_catalog_load_location(struct basalt_iceberg_catalog *c,
                                                   const char *identifier, const char *location,
                                                   struct basalt_iceberg_table **out,
                                                   struct basalt_error *err);

/* SQL catalog (catalog_sql.c) on SQLite (`target`: the database file) or
 * PostgreSQL (`target`: a libpq connection string or URI). */
basalt_status basalt_iceberg_sql_open(const char *target, bool postgres, bool create,
                                      struct basalt_iceberg_sql_catalog **out,
                                      struct basalt_error *err);
void basalt_iceberg_sql_close(struct basalt_iceberg_sql_catalog *sql);
basalt_status basalt_iceberg_sql_namespace_exists(struct basalt_iceberg_sql_catalog *sql,
                                                  const char *catalog, const char *ns,
                                                  bool *exists, struct basalt_error *err);
/* Every namespace named by a table or property row (with repetitions). */
basalt_status basalt_iceberg_sql_all_namespaces(struct basalt_iceberg_sql_catalog *sql,
                                                const char *catalog, const char *parent,
                                                struct basalt_iceberg_strings *out,
                                                struct basalt_error *err);
basalt_status basalt_iceberg_sql_list_tables(struct basalt_iceberg_sql_catalog *sql,
                                             const char *catalog, const char *ns,
                                             struct basalt_iceberg_strings *out,
                                             struct basalt_error *err);
basalt_status basalt_iceberg_sql_create_namespace(struct basalt_iceberg_sql_catalog *sql,
                                                  const char *catalog, const char *ns,
                                                  struct basalt_error *err);
/* NOT_FOUND when there is no such table (or its location is NULL). */
basalt_status basalt_iceberg_sql_table_location(struct basalt_iceberg_sql_catalog *sql,
                                                const char *catalog, const char *ns,
                                                const char *name, char **out,
                                                struct basalt_error *err);
basalt_status basalt_iceberg_sql_register(struct basalt_iceberg_sql_catalog *sql,
                                          const char *catalog, const char *ns, const char *name,
                                          const char *metadata_location, struct basalt_error *err);
/* Points the table at `location` if it still points at `expected`;
 * CONFLICT when another commit moved it. */
basalt_status basalt_iceberg_sql_swap(struct basalt_iceberg_sql_catalog *sql, const char *catalog,
                                      const char *ns, const char *name, const char *expected,
                                      const char *location, struct basalt_error *err);
/* The database file's path. */
const char *basalt_iceberg_sql_path(const struct basalt_iceberg_sql_catalog *sql);
basalt_status basalt_iceberg_sql_drop(struct basalt_iceberg_sql_catalog *sql, const char *catalog,
                                      const char *ns, const char *name, struct basalt_error *err);

/* Filesystem catalog (catalog_fs.c). */
basalt_status basalt_iceberg_fs_open(const char *dir, bool create,
                                     struct basalt_iceberg_fs_catalog **out,
                                     struct basalt_error *err);
void basalt_iceberg_fs_close(struct basalt_iceberg_fs_catalog *fs);
basalt_status basalt_iceberg_fs_namespace_exists(struct basalt_iceberg_fs_catalog *fs,
                                                 const char *ns, bool *exists,
                                                 struct basalt_error *err);
basalt_status basalt_iceberg_fs_list_namespaces(struct basalt_iceberg_fs_catalog *fs,
                                                const char *parent,
                                                struct basalt_iceberg_strings *out,
                                                struct basalt_error *err);
basalt_status basalt_iceberg_fs_list_tables(struct basalt_iceberg_fs_catalog *fs, const char *ns,
                                            struct basalt_iceberg_strings *out,
                                            struct basalt_error *err);
basalt_status basalt_iceberg_fs_create_namespace(struct basalt_iceberg_fs_catalog *fs,
                                                 const char *ns, struct basalt_error *err);
/* The table directory of ns.name, basalt_malloc'd. NOT_FOUND. */
basalt_status basalt_iceberg_fs_table_dir(struct basalt_iceberg_fs_catalog *fs, const char *ns,
                                          const char *name, char **out,
                                          struct basalt_error *err);

#endif
