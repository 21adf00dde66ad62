/* Finding the current metadata file of a table stored in an object store:
 * the highest version among the metadata directory's listing (one listing
 * request per thousand objects; no version-hint.text round trip, since the
 * listing is what the hint would only point into). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

struct best_version {
    char *uri;        /* basalt_malloc'd */
    uint64_t version;
    bool found;
    struct basalt_error *err;
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The version of a metadata file name: "v12.metadata.json" (Hadoop tables)
 * or "00012-<uuid>.metadata.json" (catalog tables), gzip forms included. */
static bool metadata_version(const char *name, uint64_t *version)
{
    if (!ends_with(name, ".metadata.json") && !ends_with(name, ".metadata.json.gz"))
        return false;
    const char *p = name[0] == 'v' ? name + 1 : name;
    if (*p < '0' || *p > '9')
        return false;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (*end != '.' && *end != '-')
        return false;
    *version = v;
    return true;
}

static basalt_status visit(void *ctx, const struct basalt_io_entry *e, struct basalt_error *err)
{
    struct best_version *b = ctx;
    if (e->is_prefix)
        return BASALT_OK;
    const char *slash = strrchr(e->uri, '/');
    const char *name = slash ? slash + 1 : e->uri;
    uint64_t v;
    if (!metadata_version(name, &v))
        return BASALT_OK;
    /* Equal versions: the later name wins, as the local listing does. */
    if (b->found && (v < b->version || (v == b->version && strcmp(e->uri, b->uri) < 0)))
        return BASALT_OK;
    char *copy = basalt_strdup(e->uri);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory listing metadata");
    basalt_free(b->uri);
    b->uri = copy;
    b->version = v;
    b->found = true;
    return BASALT_OK;
}

basalt_status basalt_iceberg_table_find_metadata_remote(const struct basalt_iceberg_io *io,
                                                        const char *path, char *out, size_t cap,
                                                        struct basalt_error *err)
{
    size_t len = strlen(path);
    if (ends_with(path, ".json") || ends_with(path, ".json.gz")) {
        if (len + 1 > cap)
            return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", path);
        memcpy(out, path, len + 1);
        return BASALT_OK;
    }
    while (len > 1 && path[len - 1] == '/')
        len--;
    char prefix[4096];
    if (len + sizeof "/metadata/" > sizeof prefix)
        return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", path);
    memcpy(prefix, path, len);
    memcpy(prefix + len, "/metadata/", sizeof "/metadata/");
    struct best_version b = {.err = err};
    basalt_status st =
        basalt_io_list(io ? io->store : NULL, prefix, true, visit, &b, err);
    if (st == BASALT_OK && !b.found)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "%.300s: no metadata file in %s", path,
                              prefix);
    if (st == BASALT_OK) {
        size_t n = strlen(b.uri);
        if (n + 1 > cap)
            st = basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", b.uri);
        else
            memcpy(out, b.uri, n + 1);
    }
    basalt_free(b.uri);
    return st;
}
