/* Internal declarations of the Iceberg io and table loading code. Not part
 * of the public API. */
#ifndef BASALT_ICEBERG_IO_INTERNAL_H
#define BASALT_ICEBERG_IO_INTERNAL_H

#include <stdatomic.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/io.h"
#include "basalt/iceberg_metadata.h"

/* One prefix -> local directory mapping. */
struct basalt_iceberg_io_mapping {
    char *prefix;
    char *local;
    size_t prefix_len;
};

/* What a scan's reads cost (basalt_iceberg_scan_io_stats), summed as its
 * inputs close. */
struct basalt_iceberg_io_counts {
    _Atomic uint64_t requests;
    _Atomic uint64_t bytes_requested;
};

struct basalt_iceberg_io {
    struct basalt_io_store *store; /* borrowed; NULL: local files only */
    struct basalt_io_store *owned; /* == store when adopted; freed with the io */
    struct basalt_iceberg_io_mapping *maps;
    size_t n_maps;
    size_t cap_maps;
    /* NULL: not counted (a table's own io). A scan reads through a copy of
     * its table's io pointing here at its own counters. */
    struct basalt_iceberg_io_counts *counts;
};

/* Adds what `in` has cost to io->counts, when the io counts. Call just
 * before closing an input opened through `io`. */
void basalt_iceberg_io_count(const struct basalt_iceberg_io *io, struct basalt_input *in);

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

#endif
