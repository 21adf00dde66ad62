/* Writing and deleting a table's files by their locations. */
#include <limits.h>
#include <string.h>

#include "basalt/iceberg_write.h"
#include "io_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

basalt_status basalt_iceberg_io_open_output(const struct basalt_iceberg_io *io,
                                            const char *location, unsigned flags,
                                            struct basalt_output **out, struct basalt_error *err)
{
    char path[PATH_MAX];
    *out = NULL;
    basalt_status st = basalt_iceberg_io_resolve(io, location, path, sizeof path, err);
    if (st != BASALT_OK)
        return st;
    if (!basalt_io_uri_is_remote(path)) {
        st = basalt_io_make_parent_dirs(path, err);
        if (st != BASALT_OK)
            return st;
    }
    st = basalt_io_open_output(io ? io->store : NULL, path, flags, out, err);
    if (st != BASALT_OK && strcmp(path, location) != 0)
        return basalt_error_context(err, st, "%.300s", location);
    return st;
}

basalt_status basalt_iceberg_io_delete(const struct basalt_iceberg_io *io,
                                       const char *const *locations, size_t count,
                                       struct basalt_error *err)
{
    basalt_status first = BASALT_OK;
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX];
        struct basalt_error one;
        basalt_error_init(&one);
        basalt_status st = basalt_iceberg_io_resolve(io, locations[i], path, sizeof path, &one);
        if (st == BASALT_OK) {
            const char *p = path;
            st = basalt_io_delete(io ? io->store : NULL, &p, 1, &one);
        }
        if (st != BASALT_OK && first == BASALT_OK) {
            first = st;
            basalt_error_set(err, st, "%s", one.message);
        }
    }
    return first;
}
