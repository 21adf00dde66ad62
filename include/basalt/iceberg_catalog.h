/* basalt iceberg: where a table's files are, and opening tables.
 *
 * Two pieces (catalogs, which name tables, are a layer above: catalog.h):
 *   - struct basalt_iceberg_io maps the locations stored in table metadata
 *     (file://..., bare paths, s3://... under a mapped prefix) to local paths
 *     and reads them through basalt_input (io.h);
 *   - basalt_iceberg_table_load opens a table from a metadata file, a
 *     metadata directory or a table directory, and rebases the locations the
 *     table stores onto the directory it was found in, so a table written
 *     elsewhere (another machine, an object store, a relative path) reads in
 *     place.
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
/* As io_set_store, but the io takes `store` (basalt_io_store_new made it):
 * it is freed with the io, or when another store is set. For a table whose
 * files need credentials of their own (a REST catalog's vended ones), so
 * that the table carries them wherever it goes. An io that copies this
 * one's store (io_map_all) only borrows it. */
BASALT_EXPORT void basalt_iceberg_io_adopt_store(struct basalt_iceberg_io *io,
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
/* The normalised form of a location (rule 2 above), NUL-terminated into
 * out[0..cap): file URI forms become paths, leading "./" go, and with
 * `strip_slash` trailing '/' go too (never the root's). LIMIT. */
BASALT_EXPORT basalt_status basalt_iceberg_location_normalize(const char *location,
                                                              bool strip_slash, char *out,
                                                              size_t cap,
                                                              struct basalt_error *err);
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
/* Loads the metadata file at `path` -- a local path, or a remote URI read
 * through io's store -- as basalt_iceberg_table_load loads a metadata file,
 * without looking for a newer version (catalogs name the file). */
BASALT_EXPORT basalt_status basalt_iceberg_table_load_file(const char *path,
                                                           const struct basalt_iceberg_io *io,
                                                           struct basalt_iceberg_table **out,
                                                           struct basalt_error *err);
/* Frees the table, its metadata and its io. NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_table_free(struct basalt_iceberg_table *table);

#ifdef __cplusplus
}
#endif

#endif
