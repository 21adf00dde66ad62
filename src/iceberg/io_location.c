/* Stored locations -> local paths: prefix mappings and file URI forms. */
#include <string.h>

#include "io_internal.h"

basalt_status basalt_iceberg_io_new(struct basalt_iceberg_io **out, struct basalt_error *err)
{
    *out = basalt_calloc(1, sizeof **out);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory creating an iceberg io");
    return BASALT_OK;
}

void basalt_iceberg_io_set_store(struct basalt_iceberg_io *io, struct basalt_io_store *store)
{
    if (io->owned && io->owned != store) {
        basalt_io_store_free(io->owned);
        io->owned = NULL;
    }
    io->store = store;
}

void basalt_iceberg_io_adopt_store(struct basalt_iceberg_io *io, struct basalt_io_store *store)
{
    basalt_iceberg_io_set_store(io, store);
    io->owned = store;
}

void basalt_iceberg_io_free(struct basalt_iceberg_io *io)
{
    if (!io)
        return;
    for (size_t i = 0; i < io->n_maps; i++) {
        basalt_free(io->maps[i].prefix);
        basalt_free(io->maps[i].local);
    }
    basalt_free(io->maps);
    basalt_io_store_free(io->owned);
    basalt_free(io);
}

basalt_status basalt_iceberg_io_map(struct basalt_iceberg_io *io, const char *prefix,
                                    const char *local, struct basalt_error *err)
{
    if (!io || !prefix || !local || !*prefix || !*local)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a location mapping needs a prefix and a directory");
    size_t local_len = strlen(local);
    while (local_len > 1 && local[local_len - 1] == '/')
        local_len--;
    char *p = basalt_strdup(prefix);
    char *l = basalt_strndup(local, local_len);
    if (!p || !l) {
        basalt_free(p);
        basalt_free(l);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory adding a location mapping");
    }
    for (size_t i = 0; i < io->n_maps; i++) {
        if (strcmp(io->maps[i].prefix, p) == 0) {
            basalt_free(io->maps[i].local);
            basalt_free(p);
            io->maps[i].local = l;
            return BASALT_OK;
        }
    }
    if (io->n_maps == io->cap_maps) {
        size_t cap = io->cap_maps ? io->cap_maps * 2 : 4;
        struct basalt_iceberg_io_mapping *m = basalt_realloc(io->maps, cap * sizeof *m);
        if (!m) {
            basalt_free(p);
            basalt_free(l);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory adding a location mapping");
        }
        io->maps = m;
        io->cap_maps = cap;
    }
    io->maps[io->n_maps].prefix = p;
    io->maps[io->n_maps].local = l;
    io->maps[io->n_maps].prefix_len = strlen(p);
    io->n_maps++;
    return BASALT_OK;
}

basalt_status basalt_iceberg_io_map_all(struct basalt_iceberg_io *io,
                                        const struct basalt_iceberg_io *from,
                                        struct basalt_error *err)
{
    if (!from)
        return BASALT_OK;
    if (!io->store)
        io->store = from->store;
    for (size_t i = 0; i < from->n_maps; i++) {
        basalt_status st = basalt_iceberg_io_map(io, from->maps[i].prefix, from->maps[i].local, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

bool basalt_iceberg_location_has_scheme(const char *location)
{
    /* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":". One letter
     * before the colon is left to be a path (a drive letter). */
    const char *p = location;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
        return false;
    for (p++; *p && *p != ':'; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '-' || c == '.'))
            return false;
    }
    return *p == ':' && p - location >= 2;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

basalt_status basalt_iceberg_location_normalize(const char *location, bool strip_slash, char *out,
                                                size_t cap, struct basalt_error *err)
{
    const char *p = location;
    if (starts_with(p, "file:")) {
        p += 5;
        if (starts_with(p, "//")) {
            p += 2;
            /* file:///abs has an empty authority; file://localhost/abs names
             * this machine; file://x/y is how PyIceberg writes a warehouse
             * given as a relative path, and it means the relative path x/y. */
            if (starts_with(p, "localhost/"))
                p += 9;
        }
    }
    while (p[0] == '.' && p[1] == '/') {
        p += 2;
        while (*p == '/')
            p++;
    }
    size_t len = strlen(p);
    if (strip_slash)
        while (len > 1 && p[len - 1] == '/')
            len--;
    if (len + 1 > cap)
        return basalt_error_set(err, BASALT_LIMIT, "location too long: %.200s", location);
    memcpy(out, p, len);
    out[len] = '\0';
    return BASALT_OK;
}

/* The mapping with the longest prefix that `location` starts with, at a path
 * boundary. */
static const struct basalt_iceberg_io_mapping *find_mapping(const struct basalt_iceberg_io *io,
                                                            const char *location)
{
    const struct basalt_iceberg_io_mapping *best = NULL;
    if (!io)
        return NULL;
    for (size_t i = 0; i < io->n_maps; i++) {
        const struct basalt_iceberg_io_mapping *m = &io->maps[i];
        if (strncmp(location, m->prefix, m->prefix_len) != 0)
            continue;
        char next = location[m->prefix_len];
        if (!(next == '\0' || next == '/' || m->prefix[m->prefix_len - 1] == '/'))
            continue;
        if (!best || m->prefix_len > best->prefix_len)
            best = m;
    }
    return best;
}

/* Writes local + the rest of `location` after the prefix into path. The
 * location may itself live in `path` (the normalised form): memmove. */
static basalt_status apply_mapping(const struct basalt_iceberg_io_mapping *m, const char *location,
                                   char *path, size_t cap, struct basalt_error *err)
{
    const char *rest = location + m->prefix_len;
    while (*rest == '/')
        rest++;
    size_t local_len = strlen(m->local), rest_len = strlen(rest);
    size_t sep = rest_len > 0 && m->local[local_len - 1] != '/' ? 1 : 0;
    if (local_len + sep + rest_len + 1 > cap)
        return basalt_error_set(err, BASALT_LIMIT, "local path of %.200s is too long", location);
    memmove(path + local_len + sep, rest, rest_len + 1);
    memcpy(path, m->local, local_len);
    if (sep)
        path[local_len] = '/';
    return BASALT_OK;
}

basalt_status basalt_iceberg_io_resolve(const struct basalt_iceberg_io *io, const char *location,
                                        char *path, size_t cap, struct basalt_error *err)
{
    if (!location || !*location)
        return basalt_error_set(err, BASALT_INVALID_ARG, "empty location");
    const struct basalt_iceberg_io_mapping *m = find_mapping(io, location);
    if (m)
        return apply_mapping(m, location, path, cap, err);
    if (basalt_iceberg_location_has_scheme(location) && !starts_with(location, "file:")) {
        size_t n = (size_t)(strchr(location, ':') - location);
        if (io && io->store && basalt_io_uri_is_remote(location)) {
            /* Read where it is, through the store. */
            size_t len = strlen(location);
            if (len >= cap)
                return basalt_error_set(err, BASALT_LIMIT, "%.300s: location too long", location);
            memcpy(path, location, len + 1);
            return BASALT_OK;
        }
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "%.400s: no local mapping for '%.*s' locations (map the prefix to a "
                                "directory, or read through an object store)",
                                location, (int)n, location);
    }
    /* path and cap are the caller's; normalise into them first, then look the
     * normalised form up (it is never longer than the location). */
    basalt_status st = basalt_iceberg_location_normalize(location, false, path, cap, err);
    if (st != BASALT_OK)
        return st;
    m = find_mapping(io, path);
    return m ? apply_mapping(m, path, path, cap, err) : BASALT_OK;
}
