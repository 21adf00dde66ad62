/* Reading a table's files by their stored locations. */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "io_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

basalt_status basalt_iceberg_io_open(const struct basalt_iceberg_io *io, const char *location,
                                     struct basalt_input **out, struct basalt_error *err)
{
    char path[PATH_MAX];
    *out = NULL;
    basalt_status st = basalt_iceberg_io_resolve(io, location, path, sizeof path, err);
    if (st != BASALT_OK)
        return st;
    /* Local files are mapped: readers use their bytes in place. */
    /* Iceberg never rewrites a file under its name: the store may keep its
     * bytes for the next scan. */
    st = basalt_io_uri_is_remote(path)
             ? basalt_io_open_input_flags(io->store, path, BASALT_IO_IMMUTABLE, out, err)
             : basalt_input_open_file(path, true, out, err);
    if (st != BASALT_OK && strcmp(path, location) != 0)
        return basalt_error_context(err, st, "%.300s", location);
    return st;
}

void basalt_iceberg_io_count(const struct basalt_iceberg_io *io, struct basalt_input *in)
{
    if (io == NULL || io->counts == NULL || in == NULL)
        return;
    struct basalt_input_stats s;
    basalt_input_get_stats(in, &s);
    atomic_fetch_add_explicit(&io->counts->requests, s.requests, memory_order_relaxed);
    atomic_fetch_add_explicit(&io->counts->bytes_requested, s.bytes_requested,
                              memory_order_relaxed);
}

/* Reads the whole input and closes it (counted against `io`, may be NULL). */
static basalt_status read_input(const struct basalt_iceberg_io *io, struct basalt_input *in,
                                const char *location, uint8_t **data, size_t *len,
                                struct basalt_error *err)
{
    basalt_status st;
    if (in->size >= SIZE_MAX) {
        basalt_iceberg_io_count(io, in);
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_LIMIT, "%.300s: file too large to read into memory",
                                location);
    }
    size_t n = (size_t)in->size;
    uint8_t *buf = basalt_malloc(n ? n : 1);
    if (!buf) {
        basalt_iceberg_io_count(io, in);
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_NOMEM, "%.300s: out of memory reading %zu bytes",
                                location, n);
    }
    st = n ? basalt_input_read_at(in, 0, n, buf, err) : BASALT_OK;
    basalt_iceberg_io_count(io, in);
    basalt_input_close(in);
    if (st != BASALT_OK) {
        basalt_free(buf);
        return st;
    }
    *data = buf;
    *len = n;
    return BASALT_OK;
}

basalt_status basalt_iceberg_io_read_all(const struct basalt_iceberg_io *io, const char *location,
                                         uint8_t **data, size_t *len, struct basalt_error *err)
{
    char path[PATH_MAX];
    *data = NULL;
    *len = 0;
    basalt_status st = basalt_iceberg_io_resolve(io, location, path, sizeof path, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_iceberg_io_read_resolved(io, path, data, len, err);
    if (st != BASALT_OK && strcmp(path, location) != 0)
        return basalt_error_context(err, st, "%.300s", location);
    return st;
}

basalt_status basalt_iceberg_io_read_resolved(const struct basalt_iceberg_io *io,
                                              const char *path, uint8_t **data, size_t *len,
                                              struct basalt_error *err)
{
    *data = NULL;
    *len = 0;
    if (!basalt_io_uri_is_remote(path))
        return basalt_iceberg_read_path(path, data, len, err);
    struct basalt_input *in;
    basalt_status st =
        basalt_io_open_input_flags(io ? io->store : NULL, path, BASALT_IO_IMMUTABLE, &in, err);
    if (st != BASALT_OK)
        return st;
    return read_input(io, in, path, data, len, err);
}

basalt_status basalt_iceberg_read_path(const char *path, uint8_t **data, size_t *len,
                                       struct basalt_error *err)
{
    struct basalt_input *in;
    *data = NULL;
    *len = 0;
    basalt_status st = basalt_input_open_file(path, false, &in, err);
    if (st != BASALT_OK)
        return st;
    return read_input(NULL, in, path, data, len, err);
}
