/* Opening a table from a local path, with its stored location rebased onto
 * the directory it was found in. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

void basalt_iceberg_table_free(struct basalt_iceberg_table *table)
{
    if (!table)
        return;
    basalt_iceberg_metadata_free(table->metadata);
    basalt_free(table->metadata_location);
    basalt_free(table->name);
    basalt_iceberg_io_free(table->io);
    basalt_free(table);
}

/* The directory part of `path` without trailing '/', into out ("." when
 * there is none). */
static void dir_of(const char *path, size_t len, char *out, size_t cap)
{
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t end = len;
    while (end > 0 && path[end - 1] != '/')
        end--;
    /* path[0..end) is the directory with its trailing slash(es). */
    while (end > 1 && path[end - 1] == '/')
        end--;
    if (end == 0) {
        snprintf(out, cap, ".");
        return;
    }
    snprintf(out, cap, "%.*s", (int)end, path);
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Where the table's files are: the parent of a "metadata" directory holding
 * the file, or "" when the file is elsewhere. */
static void table_dir_of(const char *file, char *out, size_t cap)
{
    char mdir[PATH_MAX];
    dir_of(file, strlen(file), mdir, sizeof mdir);
    out[0] = '\0';
    if (strcmp(base_of(mdir), "metadata") != 0)
        return;
    if (strcmp(mdir, "metadata") == 0) {
        snprintf(out, cap, ".");
        return;
    }
    dir_of(mdir, strlen(mdir), out, cap);
}

static basalt_status table_name(const char *file, const char *table_dir, char **out,
                                struct basalt_error *err)
{
    char resolved[PATH_MAX];
    const char *name;
    size_t len;
    if (*table_dir) {
        /* "." or "../.." name no directory: ask the file system for its name. */
        name = base_of(table_dir);
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')) &&
            realpath(table_dir, resolved))
            name = base_of(resolved);
        len = strlen(name);
        while (len > 1 && name[len - 1] == '/')
            len--;
    } else {
        name = base_of(file);
        len = strlen(name);
        static const char *const suffixes[] = {".gz.metadata.json", ".metadata.json.gz",
                                               ".metadata.json", ".json"};
        for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
            size_t sl = strlen(suffixes[i]);
            if (len > sl && strcmp(name + len - sl, suffixes[i]) == 0) {
                len -= sl;
                break;
            }
        }
    }
    *out = basalt_strndup(name, len);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory naming a table");
    return BASALT_OK;
}

/* Maps the stored table location, as written and normalised, to `dir`. */
static basalt_status rebase(struct basalt_iceberg_io *io, const char *location, const char *dir,
                            struct basalt_error *err)
{
    char norm[PATH_MAX];
    size_t len = strlen(location);
    while (len > 1 && location[len - 1] == '/')
        len--;
    if (len == 0 || len >= sizeof norm)
        return BASALT_OK;
    memcpy(norm, location, len);
    norm[len] = '\0';
    /* A location of "/" or "." would capture every path: not a table's. */
    if (strcmp(norm, "/") != 0 && strcmp(norm, ".") != 0) {
        basalt_status st = basalt_iceberg_io_map(io, norm, dir, err);
        if (st != BASALT_OK)
            return st;
    }
    if (basalt_iceberg_location_normalize(location, true, norm, sizeof norm, NULL) != BASALT_OK)
        return BASALT_OK;
    if (!*norm || strcmp(norm, "/") == 0 || strcmp(norm, ".") == 0)
        return BASALT_OK;
    return basalt_iceberg_io_map(io, norm, dir, err);
}

basalt_status basalt_iceberg_table_load_file(const char *path, const struct basalt_iceberg_io *io,
                                             struct basalt_iceberg_table **out,
                                             struct basalt_error *err)
{
    *out = NULL;
    uint8_t *data;
    size_t len;
    basalt_status st = basalt_iceberg_io_read_resolved(io, path, &data, &len, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_iceberg_table *t = basalt_calloc(1, sizeof *t);
    if (!t) {
        basalt_free(data);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening a table", path);
    }
    st = basalt_iceberg_metadata_parse(data, len, path, &t->metadata, err);
    basalt_free(data);
    char dir[PATH_MAX];
    table_dir_of(path, dir, sizeof dir);
    if (st == BASALT_OK)
        st = table_name(path, dir, &t->name, err);
    if (st == BASALT_OK) {
        t->metadata_location = basalt_strdup(path);
        if (!t->metadata_location)
            st = basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening a table", path);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_io_new(&t->io, err);
    /* Rebasing first: a caller's mapping of the very same prefix replaces it. */
    if (st == BASALT_OK && *dir && t->metadata->location)
        st = rebase(t->io, t->metadata->location, dir, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map_all(t->io, io, err);
    if (st != BASALT_OK) {
        basalt_iceberg_table_free(t);
        return st;
    }
    *out = t;
    return BASALT_OK;
}

basalt_status basalt_iceberg_table_load(const char *path, const struct basalt_iceberg_io *io,
                                        struct basalt_iceberg_table **out,
                                        struct basalt_error *err)
{
    char file[PATH_MAX];
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "no table output");
    *out = NULL;
    basalt_status st = basalt_io_uri_is_remote(path)
                           ? basalt_iceberg_table_find_metadata_remote(io, path, file, sizeof file,
                                                                       err)
                           : basalt_iceberg_table_find_metadata(path, file, sizeof file, err);
    if (st != BASALT_OK)
        return st;
    return basalt_iceberg_table_load_file(file, io, out, err);
}
