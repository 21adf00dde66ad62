/* Local files through the store's URI operations. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "local/local.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

const char *basalt_local_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0)
        return uri + 7;
    if (strncmp(uri, "file:", 5) == 0)
        return uri + 5;
    return uri;
}

basalt_status basalt_local_open_input(const char *uri, struct basalt_input **out,
                                      struct basalt_error *err)
{
    return basalt_input_open_file(basalt_local_path(uri), true, out, err);
}

basalt_status basalt_local_open_output(const char *uri, unsigned flags, struct basalt_output **out,
                                       struct basalt_error *err)
{
    return basalt_io_file_output_open(basalt_local_path(uri),
                                      (flags & BASALT_IO_CREATE_EXCLUSIVE) != 0, out, err);
}

basalt_status basalt_local_stat(const char *uri, struct basalt_io_object_info *out,
                                struct basalt_error *err)
{
    struct stat st;
    const char *path = basalt_local_path(uri);
    if (stat(path, &st) != 0)
        return basalt_io_errno(err, errno, "stat", path);
    out->size = (uint64_t)st.st_size;
    out->mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    out->etag[0] = '\0';
    return BASALT_OK;
}

basalt_status basalt_local_delete(const char *const *uris, size_t count, struct basalt_error *err)
{
    for (size_t i = 0; i < count; i++) {
        const char *path = basalt_local_path(uris[i]);
        if (unlink(path) != 0 && errno != ENOENT)
            return basalt_io_errno(err, errno, "delete", path);
    }
    return BASALT_OK;
}

/* Names of one directory, sorted, so listings come in key order. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static basalt_status read_names(const char *dir, char ***names, size_t *count,
                                struct basalt_error *err)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return errno == ENOENT ? BASALT_OK : basalt_io_errno(err, errno, "list", dir);
    size_t cap = 0;
    basalt_status st = BASALT_OK;
    struct dirent *e;
    while (st == BASALT_OK && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (*count == cap) {
            cap = cap ? cap * 2 : 32;
            char **grown = basalt_realloc(*names, sizeof **names * cap);
            if (!grown) {
                st = basalt_error_set(err, BASALT_NOMEM, "%s: out of memory listing", dir);
                break;
            }
            *names = grown;
        }
        size_t n = strlen(e->d_name);
        char *copy = basalt_malloc(n + 1);
        if (!copy) {
            st = basalt_error_set(err, BASALT_NOMEM, "%s: out of memory listing", dir);
            break;
        }
        memcpy(copy, e->d_name, n + 1);
        (*names)[(*count)++] = copy;
    }
    closedir(d);
    if (*count > 1)
        qsort(*names, *count, sizeof **names, by_name);
    return st;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        basalt_free(names[i]);
    basalt_free(names);
}

/* Visits the files under `dir` whose names start with `stem`; with
 * `delimited`, directories are reported, not entered. */
static basalt_status walk(const char *dir, const char *stem, bool delimited,
                          basalt_io_visit_fn visit, void *ctx, struct basalt_error *err)
{
    char **names;
    size_t count;
    basalt_status st = read_names(dir, &names, &count, err);
    size_t stem_len = strlen(stem);
    for (size_t i = 0; i < count && st == BASALT_OK; i++) {
        if (strncmp(names[i], stem, stem_len) != 0)
            continue;
        char path[PATH_MAX];
        int w = snprintf(path, sizeof path, "%s%s", dir, names[i]);
        if (w < 0 || (size_t)w >= sizeof path - 1) {
            st = basalt_error_set(err, BASALT_LIMIT, "%s%s: path too long", dir, names[i]);
            break;
        }
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue; /* gone since readdir */
        if (S_ISDIR(sb.st_mode)) {
            path[w] = '/';
            path[w + 1] = '\0';
            if (delimited) {
                struct basalt_io_entry e = {.uri = path, .etag = "", .is_prefix = true};
                st = visit(ctx, &e, err);
            } else {
                st = walk(path, "", false, visit, ctx, err);
            }
        } else if (S_ISREG(sb.st_mode)) {
            struct basalt_io_entry e = {
                .uri = path, .size = (uint64_t)sb.st_size,
                .mtime_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000,
                .etag = ""};
            st = visit(ctx, &e, err);
        }
    }
    free_names(names, count);
    return st;
}

basalt_status basalt_local_list(const char *uri_prefix, bool delimited, basalt_io_visit_fn visit,
                                void *ctx, struct basalt_error *err)
{
    const char *prefix = basalt_local_path(uri_prefix);
    const char *slash = strrchr(prefix, '/');
    char dir[PATH_MAX];
    size_t dlen = slash ? (size_t)(slash - prefix) + 1 : 0;
    if (dlen >= sizeof dir)
        return basalt_error_set(err, BASALT_LIMIT, "%s: path too long", prefix);
    memcpy(dir, prefix, dlen);
    dir[dlen] = '\0';
    return walk(dir, prefix + dlen, delimited, visit, ctx, err);
}

/* mkdir -p of the directory part of a local path, for writers that create
 * files in directories that may not exist yet. */
basalt_status basalt_io_make_parent_dirs(const char *path, struct basalt_error *err)
{
    char dir[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof dir)
        return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", path);
    memcpy(dir, path, len + 1);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return BASALT_OK;
    *slash = '\0';
    struct stat sb;
    if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
        return BASALT_OK; /* the common case: one stat, no walk */
    for (char *p = dir + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return basalt_error_set(err, BASALT_IO, "%s: %s", dir, strerror(errno));
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    return BASALT_OK;
}
