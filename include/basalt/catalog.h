/* basalt catalog: naming tables, and committing changes to them.
 *
 * One interface over every kind of catalog, chosen by URI:
 *   sqlite:PATH (also sqlite:///PATH, jdbc:sqlite:PATH)   embedded SQLite
 *   postgresql://... (also postgres://, jdbc:postgresql://)  PostgreSQL
 *   a directory or file://DIR                             file system
 * The SQL kinds keep the tables of PyIceberg's SqlCatalog and the Java
 * JdbcCatalog, so those read and write the same catalog. Table changes are
 * committed with requirements and updates (iceberg_commit.h); every kind
 * provides a struct basalt_iceberg_committer for the table format's
 * operations (appends, deletes, ...). */
#ifndef BASALT_CATALOG_H
#define BASALT_CATALOG_H

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------- naming */

/* The catalog_name used when none is given (PyIceberg's and the Java
 * catalogs' usual name). */
#define BASALT_CATALOG_DEFAULT_NAME "default"

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
struct basalt_catalog;

BASALT_EXPORT basalt_status basalt_catalog_open(const char *uri, const char *catalog_name,
                                                        bool create,
                                                        struct basalt_catalog **out,
                                                        struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_catalog_close(struct basalt_catalog *catalog);
/* Adds a location mapping used when loading tables (and when register checks
 * a metadata location), as basalt_iceberg_io_map. NOMEM, INVALID_ARG. */
BASALT_EXPORT basalt_status basalt_catalog_map(struct basalt_catalog *c,
                                                       const char *prefix, const char *local,
                                                       struct basalt_error *err);
/* Reads tables' remote locations through `store` (borrowed; it must outlive
 * the catalog and the tables loaded from it), as basalt_iceberg_io_set_store. */
BASALT_EXPORT void basalt_catalog_set_store(struct basalt_catalog *c,
                                                    struct basalt_io_store *store);

/* Lists: arrays of basalt_malloc'd strings, sorted (byte order), freed with
 * basalt_string_list_free. An empty list is *out = NULL, *n = 0. */
/* The namespaces directly under `parent` (NULL or "" for the top level), as
 * full dotted names. NOT_FOUND when parent does not exist. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_list_namespaces(struct basalt_catalog *c,
                                                                   const char *parent,
                                                                   char ***out, size_t *n,
                                                                   struct basalt_error *err);
/* The tables directly in namespace `ns`, as full identifiers "ns.table".
 * NOT_FOUND when the namespace does not exist, INVALID_ARG for an empty
 * name or an empty level ("a..b"). IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_list_tables(struct basalt_catalog *c,
                                                               const char *ns, char ***out,
                                                               size_t *n,
                                                               struct basalt_error *err);
/* Frees the strings and the array. NULL is a no-op. */
BASALT_EXPORT void basalt_string_list_free(char **list, size_t n);
/* Creates a namespace (SQL: the row ("exists", "true") in
 * iceberg_namespace_properties, as PyIceberg does for a namespace created
 * without properties; filesystem: the directory). CONFLICT when it exists,
 * INVALID_ARG for an empty name or an empty level ("a..b"), IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_create_namespace(struct basalt_catalog *c,
                                                                    const char *ns,
                                                                    struct basalt_error *err);
/* Whether a namespace exists. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_namespace_exists(struct basalt_catalog *c,
                                                                    const char *ns, bool *exists,
                                                                    struct basalt_error *err);
/* Loads a table by identifier "ns.table" (the namespace may itself contain
 * dots: the last dot splits). The stored metadata location is resolved with
 * the catalog's mappings and loaded as basalt_iceberg_table_load loads a
 * metadata file; table->name is the identifier and
 * table->metadata_location the stored location. NOT_FOUND (no such table, or
 * its metadata file is missing), INVALID_ARG (no namespace in the
 * identifier), the statuses of basalt_iceberg_table_load, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_load_table(struct basalt_catalog *c,
                                                              const char *identifier,
                                                              struct basalt_iceberg_table **out,
                                                              struct basalt_error *err);
/* The stored metadata location of a table, basalt_malloc'd into *out.
 * NOT_FOUND, INVALID_ARG, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_table_location(struct basalt_catalog *c,
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
BASALT_EXPORT basalt_status basalt_catalog_register_table(struct basalt_catalog *c,
                                                                  const char *identifier,
                                                                  const char *metadata_location,
                                                                  struct basalt_error *err);
/* Removes the table from the catalog; its files are kept. NOT_FOUND,
 * INVALID_ARG, UNSUPPORTED (filesystem catalog), IO. */
BASALT_EXPORT basalt_status basalt_catalog_drop_table(struct basalt_catalog *c,
                                                              const char *identifier,
                                                              struct basalt_error *err);

/* ---------------------------------------------------------------- changing */

/* Where new tables go (default: the SQLite database's directory, or the
 * file-system catalog's directory, made absolute). Copied. NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_set_warehouse(struct basalt_catalog *c,
                                                                 const char *warehouse,
                                                                 struct basalt_error *err);
/* "<warehouse>/<namespace levels as directories>/<table>", basalt_malloc'd.
 * INVALID_ARG (no namespace), NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_default_location(
    struct basalt_catalog *c, const char *identifier, char **out,
    struct basalt_error *err);

/* Creates a table from `updates_json` (basalt_iceberg_create_updates makes
 * them) and registers it: the first metadata file is written at
 * "<location>/metadata/00000-<uuid>.metadata.json" (file-system catalog:
 * "v1.metadata.json" plus version-hint.text, and the location must be the
 * default one, since that catalog finds tables by directory). A missing
 * namespace is created with it. CONFLICT when the table exists (also when
 * another writer creates it first), the statuses of apply_updates, IO,
 * NOMEM. *out (may be NULL) receives the new table. */
BASALT_EXPORT basalt_status basalt_catalog_create_table(
    struct basalt_catalog *c, const char *identifier, const char *updates_json,
    struct basalt_iceberg_table **out, struct basalt_error *err);

/* Commits a change: loads the table, checks `requirements_json` (NULL or ""
 * for none), applies `updates_json`, writes the next metadata file
 * ("<NNNNN>-<uuid>.metadata.json", or "v<N>.metadata.json" in a file-system
 * catalog, created exclusively) and swaps the catalog to it only if the
 * table still points at the metadata the change was built on (SQL: one
 * UPDATE ... WHERE metadata_location = <base>; file system: the exclusive
 * create of the next version). When write.metadata.delete-after-commit.enabled
 * is true, metadata files that fell off the metadata log are deleted.
 * CONFLICT when a requirement fails or another commit won (the new file is
 * deleted: nothing references it), NOT_FOUND, the statuses of
 * apply_updates, IO, NOMEM. *out (may be NULL): the table as committed. */
BASALT_EXPORT basalt_status basalt_catalog_commit_table(
    struct basalt_catalog *c, const char *identifier, const char *requirements_json,
    const char *updates_json, struct basalt_iceberg_table **out, struct basalt_error *err);

/* The committer of a catalog (valid while the catalog is open). */
BASALT_EXPORT void basalt_catalog_committer(struct basalt_catalog *c,
                                            struct basalt_iceberg_committer *out);

#ifdef __cplusplus
}
#endif

#endif
