/* basalt iceberg: where a table's files are, opening tables, and catalogs.
 *
 * Three pieces:
 *   - struct basalt_iceberg_io maps the locations stored in table metadata
 *     (file://..., bare paths, s3://... under a mapped prefix) to local paths
 *     and reads them through basalt_input (io.h);
 *   - basalt_iceberg_table_load opens a table from a metadata file, a
 *     metadata directory or a table directory, and rebases the locations the
 *     table stores onto the directory it was found in, so a table written
 *     elsewhere (another machine, an object store, a relative path) reads in
 *     place;
 *   - struct basalt_iceberg_catalog names tables: the SQL catalog schema of
 *     the Java JdbcCatalog and PyIceberg's SqlCatalog on an embedded SQLite
 *     file, or a filesystem warehouse (<warehouse>/<ns>/<table>/metadata/).
 *
 * Location rules (basalt_iceberg_io_resolve):
 *   1. The longest mapped prefix that the location starts with wins. A
 *      prefix matches at a path boundary: "s3://b/t" matches "s3://b/t" and
 *      "s3://b/t/x" but not "s3://b/tx"; a prefix ending in '/' matches any
 *      location starting with it. The rest is appended to the local directory.
 *   2. Otherwise the location is normalised -- "file:///p" and
 *      "file://localhost/p" -> "/p", "file:/p" -> "/p", "file://r/p" -> "r/p"
 *      (a relative warehouse as PyIceberg writes it), "file:r" -> "r",
 *      leading "./" dropped -- and rule 1 is tried again on the result.
 *   3. Otherwise a location with another scheme ("s3://", "gs://", ...) is
 *      UNSUPPORTED (the message names it); anything else is the normalised
 *      local path, absolute or relative to the working directory.
 * No percent-decoding is done: writers store the path as it is on disk.
 */
#ifndef BASALT_ICEBERG_CATALOG_H
#define BASALT_ICEBERG_CATALOG_H

#include "basalt/io.h"
#include "basalt/iceberg_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- io */

struct basalt_iceberg_io;

/* A new io with no mappings. NOMEM. Free with basalt_iceberg_io_free.
 * Building it (io_map) is single-threaded; once built, resolve/open/read_all
 * only read it and may be called from any number of threads at once. */
BASALT_EXPORT basalt_status basalt_iceberg_io_new(struct basalt_iceberg_io **out,
                                                  struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_io_free(struct basalt_iceberg_io *io);
/* Locations starting with `prefix` are read from `local` + the rest (see the
 * rules above; longest prefix wins, a later mapping of the same prefix
 * replaces the earlier one). Both strings are copied; a trailing '/' of
 * `local` is ignored. INVALID_ARG for an empty prefix or local, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_io_map(struct basalt_iceberg_io *io, const char *prefix,
                                                  const char *local, struct basalt_error *err);
/* Reads remote locations (s3://, gs://, az://, http(s)://) through `store`
 * (borrowed: it must outlive the io and every table loaded with it).
 * Without a store such locations need a mapping. NULL clears it. */
BASALT_EXPORT void basalt_iceberg_io_set_store(struct basalt_iceberg_io *io,
                                               struct basalt_io_store *store);
/* Copies every mapping of `from` into `io` (from may be NULL), and its store
 * when `io` has none. NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_io_map_all(struct basalt_iceberg_io *io,
                                                      const struct basalt_iceberg_io *from,
                                                      struct basalt_error *err);
/* The local path of `location`, NUL-terminated into path[0..cap), or the
 * location itself when it is remote and `io` has a store. `io` may be NULL
 * (no mappings). UNSUPPORTED (an unmapped non-file scheme without a store),
 * LIMIT (does not fit in cap), INVALID_ARG (empty location). Does not touch
 * the disk. */
BASALT_EXPORT basalt_status basalt_iceberg_io_resolve(const struct basalt_iceberg_io *io,
                                                      const char *location, char *path,
                                                      size_t cap, struct basalt_error *err);
/* Resolves and opens `location` for reading (a local file input or a remote
 * object through the io's store). *out is
 * closed with basalt_input_close. NOT_FOUND / IO name the location and,
 * when it differs, the local path; plus the resolve statuses and NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_io_open(const struct basalt_iceberg_io *io,
                                                   const char *location, struct basalt_input **out,
                                                   struct basalt_error *err);
/* Reads a whole file: *data is basalt_malloc'd (free with basalt_free), *len
 * its size. As io_open, plus LIMIT for a file larger than memory can hold. */
BASALT_EXPORT basalt_status basalt_iceberg_io_read_all(const struct basalt_iceberg_io *io,
                                                       const char *location, uint8_t **data,
                                                       size_t *len, struct basalt_error *err);

/* ------------------------------------------------------------------- table */

struct basalt_iceberg_metadata;

/* An open table. Read-only once loaded: one table may be scanned from any
 * number of threads. */
struct basalt_iceberg_table {
    struct basalt_iceberg_metadata *metadata; /* owned */
    /* Where the metadata came from: the local path of the metadata file for a
     * table opened by path, the catalog's stored metadata_location for a
     * table loaded from a catalog. Owned. */
    char *metadata_location;
    /* "ns.table" for catalog tables, else the table directory's name (the
     * metadata file's name without ".metadata.json" when the file is not in a
     * "metadata" directory). Owned. */
    char *name;
    struct basalt_iceberg_io *io;             /* owned: the caller's mappings + the rebasing */
};

/* Opens a table. `path` is a local path:
 *   - a metadata file (any name; JSON, gzip or zstd compressed JSON);
 *   - a metadata directory, or a table directory holding "metadata/". The
 *     file is found by metadata/version-hint.text when present: its content
 *     "N" names v<N>.metadata.json, <N>.metadata.json or v<N>.gz.metadata.json
 *     (rolling forward to v<N+1>... when those exist, as a hint written before
 *     a crash may lag), any other content names a file in the directory. A
 *     missing hint, or one naming no existing file, falls back to listing:
 *     the highest version among v<N>[.gz].metadata.json and
 *     <N>-<anything>[.gz].metadata.json (also with a trailing ".gz"), ties
 *     broken by the greatest last-updated-ms and then the greatest name; files
 *     named *.metadata.json without a version rank below every versioned one.
 * When the metadata file sits in a directory named "metadata", its parent is
 * the table directory, and the table's stored `location` (as written and in
 * its normalised form: "./x" = "x", file:// forms, no trailing '/') is mapped
 * to it in table->io, so every path under the location reads from the table
 * directory. `io`: extra mappings, copied (NULL for none); all mappings
 * compete by length.
 * NOT_FOUND (no such path, no metadata file in the directory), IO, the
 * statuses of basalt_iceberg_metadata_parse (CORRUPT, UNSUPPORTED, LIMIT),
 * NOMEM. Free with basalt_iceberg_table_free. */
BASALT_EXPORT basalt_status basalt_iceberg_table_load(const char *path,
                                                      const struct basalt_iceberg_io *io,
                                                      struct basalt_iceberg_table **out,
                                                      struct basalt_error *err);
/* The local path of the metadata file that basalt_iceberg_table_load would
 * read for `path` (same rules), NUL-terminated into out[0..cap). NOT_FOUND,
 * IO, LIMIT (cap), NOMEM; CORRUPT/UNSUPPORTED only when breaking a version
 * tie needs to parse the candidates. */
BASALT_EXPORT basalt_status basalt_iceberg_table_find_metadata(const char *path, char *out,
                                                               size_t cap,
                                                               struct basalt_error *err);
/* Frees the table, its metadata and its io. NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_table_free(struct basalt_iceberg_table *table);

/* ----------------------------------------------------------------- catalog */

/* The catalog_name used when none is given (PyIceberg's and the Java
 * catalogs' usual name). */
#define BASALT_ICEBERG_CATALOG_DEFAULT_NAME "default"

/* A catalog. Used by one thread at a time; tables loaded from it are
 * independent of it and may outlive it.
 *
 * SQL catalog ("sqlite:PATH", also "sqlite:///PATH" as SQLAlchemy writes it
 * -- "sqlite:////abs" is "/abs" -- and "jdbc:sqlite:PATH"). The two tables
 * are created exactly as PyIceberg's SqlCatalog creates them (the SQLAlchemy
 * models of pyiceberg/catalog/sql.py):
 *
 *   CREATE TABLE iceberg_tables (
 *       catalog_name VARCHAR(255) NOT NULL,
 *       table_namespace VARCHAR(255) NOT NULL,
 *       table_name VARCHAR(255) NOT NULL,
 *       metadata_location VARCHAR(1000),
 *       previous_metadata_location VARCHAR(1000),
 *       PRIMARY KEY (catalog_name, table_namespace, table_name))
 *   CREATE TABLE iceberg_namespace_properties (
 *       catalog_name VARCHAR(255) NOT NULL,
 *       namespace VARCHAR(255) NOT NULL,
 *       property_key VARCHAR(255) NOT NULL,
 *       property_value VARCHAR(1000) NOT NULL,
 *       PRIMARY KEY (catalog_name, namespace, property_key))
 *
 * This is also the Java JdbcCatalog's "V0" schema (the Java catalog's default;
 * it declares the two property columns nullable, which changes nothing for
 * rows either writes). No `iceberg_type` column is created: current PyIceberg
 * neither creates nor reads it, and the Java catalog only adds it (ALTER
 * TABLE ... ADD COLUMN iceberg_type VARCHAR(5)) when asked for its "V1"
 * schema with views. A catalog that has the column is read correctly: rows
 * whose iceberg_type is 'VIEW' are not tables and are skipped, and register
 * writes 'TABLE' into it.
 * Namespaces are dot-joined strings ("a.b"); a namespace exists when a table
 * or a property row names it or a namespace under it. Every statement is
 * prepared with bound parameters; the connection waits up to 5 s on a
 * locked database.
 *
 * Filesystem catalog (any other URI: a directory, or "file://" + directory):
 * <warehouse>/<ns>/<table> with namespace levels as nested directories; a
 * directory is a table when it holds metadata/ with a metadata file. A
 * namespace directory named "<ns>.db" (Hive/PyIceberg style) is listed and
 * found as "<ns>". Tables are registered by placing them there: register and
 * drop are UNSUPPORTED.
 *
 * `catalog_name`: the catalog_name column (NULL: "default"). `create`: create
 * the SQLite file (and its parent directories) and the two tables, or the
 * warehouse directory, when missing; without it a missing catalog is
 * NOT_FOUND, and a SQLite file without iceberg_tables is NOT_FOUND too.
 * INVALID_ARG (empty URI), IO (SQLite errors), NOMEM. */
struct basalt_iceberg_catalog;

BASALT_EXPORT basalt_status basalt_iceberg_catalog_open(const char *uri, const char *catalog_name,
                                                        bool create,
                                                        struct basalt_iceberg_catalog **out,
                                                        struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_catalog_close(struct basalt_iceberg_catalog *catalog);
/* Adds a location mapping used when loading tables (and when register checks
 * a metadata location), as basalt_iceberg_io_map. NOMEM, INVALID_ARG. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_map(struct basalt_iceberg_catalog *c,
                                                       const char *prefix, const char *local,
                                                       struct basalt_error *err);
/* Reads tables' remote locations through `store` (borrowed; it must outlive
 * the catalog and the tables loaded from it), as basalt_iceberg_io_set_store. */
BASALT_EXPORT void basalt_iceberg_catalog_set_store(struct basalt_iceberg_catalog *c,
                                                    struct basalt_io_store *store);

/* Lists: arrays of basalt_malloc'd strings, sorted (byte order), freed with
 * basalt_iceberg_string_list_free. An empty list is *out = NULL, *n = 0. */
/* The namespaces directly under `parent` (NULL or "" for the top level), as
 * full dotted names. NOT_FOUND when parent does not exist. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_list_namespaces(struct basalt_iceberg_catalog *c,
                                                                   const char *parent,
                                                                   char ***out, size_t *n,
                                                                   struct basalt_error *err);
/* The tables directly in namespace `ns`, as full identifiers "ns.table".
 * NOT_FOUND when the namespace does not exist, INVALID_ARG for an empty
 * name or an empty level ("a..b"). IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_list_tables(struct basalt_iceberg_catalog *c,
                                                               const char *ns, char ***out,
                                                               size_t *n,
                                                               struct basalt_error *err);
/* Frees the strings and the array. NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_string_list_free(char **list, size_t n);
/* Creates a namespace (SQL: the row ("exists", "true") in
 * iceberg_namespace_properties, as PyIceberg does for a namespace created
 * without properties; filesystem: the directory). CONFLICT when it exists,
 * INVALID_ARG for an empty name or an empty level ("a..b"), IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_create_namespace(struct basalt_iceberg_catalog *c,
                                                                    const char *ns,
                                                                    struct basalt_error *err);
/* Whether a namespace exists. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_namespace_exists(struct basalt_iceberg_catalog *c,
                                                                    const char *ns, bool *exists,
                                                                    struct basalt_error *err);
/* Loads a table by identifier "ns.table" (the namespace may itself contain
 * dots: the last dot splits). The stored metadata location is resolved with
 * the catalog's mappings and loaded as basalt_iceberg_table_load loads a
 * metadata file; table->name is the identifier and
 * table->metadata_location the stored location. NOT_FOUND (no such table, or
 * its metadata file is missing), INVALID_ARG (no namespace in the
 * identifier), the statuses of basalt_iceberg_table_load, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_load_table(struct basalt_iceberg_catalog *c,
                                                              const char *identifier,
                                                              struct basalt_iceberg_table **out,
                                                              struct basalt_error *err);
/* The stored metadata location of a table, basalt_malloc'd into *out.
 * NOT_FOUND, INVALID_ARG, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_table_location(struct basalt_iceberg_catalog *c,
                                                                  const char *identifier,
                                                                  char **out,
                                                                  struct basalt_error *err);
/* Adds an existing table by the location of its metadata file, stored as
 * given (previous_metadata_location NULL). The metadata is read and parsed
 * first, so a location that does not resolve to a table is refused with its
 * load status and nothing is written. A namespace that does not exist yet
 * is created with the table, in one transaction, as create_namespace creates
 * it (PyIceberg registers only into existing namespaces, so a catalog it
 * reads always has that row; the namespace then outlives a drop).
 * CONFLICT when the identifier exists, INVALID_ARG (no namespace),
 * UNSUPPORTED (filesystem catalog), IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_register_table(struct basalt_iceberg_catalog *c,
                                                                  const char *identifier,
                                                                  const char *metadata_location,
                                                                  struct basalt_error *err);
/* Removes the table from the catalog; its files are kept. NOT_FOUND,
 * INVALID_ARG, UNSUPPORTED (filesystem catalog), IO. */
BASALT_EXPORT basalt_status basalt_iceberg_catalog_drop_table(struct basalt_iceberg_catalog *c,
                                                              const char *identifier,
                                                              struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
