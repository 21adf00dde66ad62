/* The filesystem catalog: <warehouse>/<ns levels>/<table>/metadata/. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct basalt_catalog_fs {
    char *dir;
};

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A table directory holds metadata/ with a hint or a metadata file in it. */
static bool is_table_dir(const char *path)
{
    char mdir[PATH_MAX];
    int n = snprintf(mdir, sizeof mdir, "%s/metadata", path);
    if (n < 0 || (size_t)n >= sizeof mdir)
        return false;
    DIR *d = opendir(mdir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;)
        found = e->d_name[0] != '.' &&
                (strcmp(e->d_name, "version-hint.text") == 0 ||
                 ends_with(e->d_name, ".metadata.json") || ends_with(e->d_name, ".metadata.json.gz"));
    closedir(d);
    return found;
}

/* path + "/" + the level (or the level + ".db") when that is a directory. */
static bool descend(char *path, size_t cap, const char *level, size_t len)
{
    size_t base = strlen(path);
    for (int db = 0; db < 2; db++) {
        int n = snprintf(path + base, cap - base, "/%.*s%s", (int)len, level, db ? ".db" : "");
        if (n > 0 && (size_t)n < cap - base && is_dir(path))
            return true;
        path[base] = '\0';
    }
    return false;
}

/* The directory of namespace `ns` (the warehouse for NULL or ""). */
static basalt_status ns_dir(struct basalt_catalog_fs *fs, const char *ns, char *out,
                            size_t cap, struct basalt_error *err)
{
    if (strlen(fs->dir) + 1 > cap)
        return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", fs->dir);
    memcpy(out, fs->dir, strlen(fs->dir) + 1);
    if (!ns || !*ns)
        return BASALT_OK;
    for (const char *p = ns;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (!len || !descend(out, cap, p, len) || is_table_dir(out))
            return basalt_error_set(err, BASALT_NOT_FOUND, "no namespace '%.200s' in %.200s", ns,
                                    fs->dir);
        if (!dot)
            return BASALT_OK;
        p = dot + 1;
    }
}

basalt_status basalt_catalog_fs_open(const char *dir, bool create,
                                     struct basalt_catalog_fs **out,
                                     struct basalt_error *err)
{
    *out = NULL;
    char path[PATH_MAX];
    basalt_status st = basalt_iceberg_location_normalize(dir, true, path, sizeof path, err);
    if (st != BASALT_OK)
        return st;
    if (!is_dir(path)) {
        if (!create)
            return basalt_error_set(err, BASALT_NOT_FOUND, "%s: no such warehouse directory", path);
        for (char *p = path + 1;; p++) {
            if (*p == '/' || *p == '\0') {
                char saved = *p;
                *p = '\0';
                if (mkdir(path, 0777) != 0 && errno != EEXIST)
                    return basalt_error_set(err, BASALT_IO, "%s: %s", path, strerror(errno));
                *p = saved;
                if (!saved)
                    break;
            }
        }
    }
    struct basalt_catalog_fs *fs = basalt_calloc(1, sizeof *fs);
    if (!fs || !(fs->dir = basalt_strdup(path))) {
        basalt_free(fs);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory opening a catalog");
    }
    *out = fs;
    return BASALT_OK;
}

void basalt_catalog_fs_close(struct basalt_catalog_fs *fs)
{
    if (!fs)
        return;
    basalt_free(fs->dir);
    basalt_free(fs);
}

basalt_status basalt_catalog_fs_namespace_exists(struct basalt_catalog_fs *fs,
                                                 const char *ns, bool *exists,
                                                 struct basalt_error *err)
{
    char dir[PATH_MAX];
    basalt_status st = ns_dir(fs, ns, dir, sizeof dir, NULL);
    *exists = st == BASALT_OK;
    (void)err;
    return BASALT_OK;
}

/* Lists the subdirectories of namespace `ns` that are tables (or not). */
static basalt_status list(struct basalt_catalog_fs *fs, const char *ns, bool tables,
                          struct basalt_string_list *out, struct basalt_error *err)
{
    char dir[PATH_MAX];
    basalt_status st = ns_dir(fs, ns, dir, sizeof dir, err);
    if (st != BASALT_OK)
        return st;
    DIR *d = opendir(dir);
    if (!d)
        return basalt_error_set(err, BASALT_IO, "%s: %s", dir, strerror(errno));
    for (struct dirent *e; st == BASALT_OK && (e = readdir(d)) != NULL;) {
        char path[PATH_MAX];
        if (e->d_name[0] == '.' || strchr(e->d_name, '.') != strrchr(e->d_name, '.'))
            continue;
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path || !is_dir(path) || is_table_dir(path) != tables)
            continue;
        size_t len = strlen(e->d_name);
        if (!tables && ends_with(e->d_name, ".db"))
            len -= 3;
        else if (strchr(e->d_name, '.'))
            continue; /* a dot would read as a namespace level */
        char full[PATH_MAX];
        n = ns && *ns ? snprintf(full, sizeof full, "%s.%.*s", ns, (int)len, e->d_name)
                      : snprintf(full, sizeof full, "%.*s", (int)len, e->d_name);
        if (n > 0 && (size_t)n < sizeof full && len > 0)
            st = basalt_string_list_add(out, full, (size_t)n, err);
    }
    closedir(d);
    return st;
}

basalt_status basalt_catalog_fs_list_namespaces(struct basalt_catalog_fs *fs,
                                                const char *parent,
                                                struct basalt_string_list *out,
                                                struct basalt_error *err)
{
    return list(fs, parent, false, out, err);
}

basalt_status basalt_catalog_fs_list_tables(struct basalt_catalog_fs *fs, const char *ns,
                                            struct basalt_string_list *out,
                                            struct basalt_error *err)
{
    return list(fs, ns, true, out, err);
}

basalt_status basalt_catalog_fs_create_namespace(struct basalt_catalog_fs *fs,
                                                 const char *ns, struct basalt_error *err)
{
    char dir[PATH_MAX];
    if (ns_dir(fs, ns, dir, sizeof dir, NULL) == BASALT_OK)
        return basalt_error_set(err, BASALT_CONFLICT, "namespace '%.200s' already exists", ns);
    memcpy(dir, fs->dir, strlen(fs->dir) + 1);
    for (const char *p = ns;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (!descend(dir, sizeof dir, p, len)) {
            size_t base = strlen(dir);
            int n = snprintf(dir + base, sizeof dir - base, "/%.*s", (int)len, p);
            if (n < 0 || (size_t)n >= sizeof dir - base)
                return basalt_error_set(err, BASALT_LIMIT, "namespace too long: %.200s", ns);
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return basalt_error_set(err, BASALT_IO, "%s: %s", dir, strerror(errno));
        }
        if (!dot)
            return BASALT_OK;
        p = dot + 1;
    }
}

basalt_status basalt_catalog_fs_table_dir(struct basalt_catalog_fs *fs, const char *ns,
                                          const char *name, char **out,
                                          struct basalt_error *err)
{
    char dir[PATH_MAX];
    *out = NULL;
    basalt_status st = ns_dir(fs, ns, dir, sizeof dir, NULL);
    size_t base = strlen(dir);
    if (st == BASALT_OK) {
        int n = snprintf(dir + base, sizeof dir - base, "/%s", name);
        if (n < 0 || (size_t)n >= sizeof dir - base || !is_table_dir(dir))
            st = BASALT_NOT_FOUND;
    }
    if (st != BASALT_OK)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no table '%.200s.%.200s' in %.200s", ns,
                                name, fs->dir);
    if (!(*out = basalt_strdup(dir)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}
