/* store_check's parts (see store_check.c). */
#ifndef BASALT_TESTS_STORE_CHECK_H
#define BASALT_TESTS_STORE_CHECK_H

#include "basalt/io.h"

struct sc_context {
    struct basalt_io_store *store;
    const struct basalt_io_options *options;
    const char *root; /* "PREFIX/sc-PID-RANDOM/", ends in '/' */
    uint64_t part_size;
    uint64_t max_size; /* --faults: objects of 1 to max_size bytes */
    bool skip_list; /* --skip-list: a server that cannot check listings' signatures */
};

/* Prints "ok: ..." or "FAIL: ..." and counts the failures. */
void sc_report(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Deterministic bytes for object `name` (any length). Owned (free()). */
uint8_t *sc_data(const char *name, size_t len);
/* Writes `len` bytes as one object, in writes of uneven sizes, and commits. */
basalt_status sc_write(struct basalt_io_store *store, const char *uri, const uint8_t *data,
                       size_t len, unsigned flags, struct basalt_error *err);
/* Reads a whole object. `*out` owned (free()). */
basalt_status sc_read(struct basalt_io_store *store, const char *uri, uint8_t **out,
                      size_t *len, struct basalt_error *err);

int sc_cat(struct basalt_io_store *store, const char *uri);
int sc_put(struct basalt_io_store *store, const char *uri); /* stdin to one object */
void sc_write_fail(struct basalt_io_store *store, const char *uri, size_t size);
void sc_all_checks(const struct sc_context *c);
void sc_faults(const struct sc_context *c, unsigned count);

#endif
