/* The `basalt io` verbs, split over cmd_io.c (ls, stat, cat, rm, presign
 * and the group's dispatcher) and cmd_io_cp.c (cp). */
#ifndef BASALT_CMD_IO_H
#define BASALT_CMD_IO_H

#include "cli.h"

/* The store for `uri`: cli_store() for a remote URI, NULL (which the io
 * functions accept for local paths) otherwise. false with `err` set when a
 * needed store cannot be made. */
bool cli_io_store_for(const char *uri, struct basalt_io_store **store, struct basalt_error *err);

/* Every object under `prefix` (a listing without delimiter), in key order,
 * with URIs and sizes copied. */
struct cli_io_listing {
    char **uris;
    uint64_t *sizes;
    size_t n, cap;
};
basalt_status cli_io_list_all(const char *prefix, struct cli_io_listing *out,
                              struct basalt_error *err);
void cli_io_listing_reset(struct cli_io_listing *l);

/* A "+" option value: a non-negative integer. */
bool cli_io_parse_u64(const char *s, uint64_t *out);

int cli_io_cp(int argc, char **argv);

#endif
