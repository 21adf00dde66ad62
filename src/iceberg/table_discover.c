/* Finding the current metadata file of a table directory: version-hint.text,
 * else the highest version in the metadata directory. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* A hint longer than this is not a version number or a file name. */
#define HINT_MAX 1024

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static basalt_status join(char *out, size_t cap, const char *dir, const char *name,
                          struct basalt_error *err)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s/%.200s", dir, name);
    return BASALT_OK;
}

/* The metadata file of version n written by the known writers, if present. */
static bool version_file(const char *mdir, uint64_t n, char *out, size_t cap)
{
    static const char *const forms[][2] = {
        {"v", ".metadata.json"}, {"", ".metadata.json"}, {"v", ".gz.metadata.json"}};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        int k = snprintf(out, cap, "%s/%s%llu%s", mdir, forms[i][0], (unsigned long long)n,
                         forms[i][1]);
        if (k > 0 && (size_t)k < cap && is_file(out))
            return true;
    }
    return false;
}

/* OK with *found set when the hint names an existing file. */
static basalt_status from_hint(const char *mdir, char *out, size_t cap, bool *found,
                               struct basalt_error *err)
{
    char path[PATH_MAX];
    *found = false;
    basalt_status st = join(path, sizeof path, mdir, "version-hint.text", err);
    if (st != BASALT_OK)
        return st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? BASALT_OK
                               : basalt_error_set(err, BASALT_IO, "%s: %s", path, strerror(errno));
    char hint[HINT_MAX + 1];
    size_t n = fread(hint, 1, HINT_MAX + 1, f);
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed)
        return basalt_error_set(err, BASALT_IO, "%s: read failed", path);
    if (n > HINT_MAX)
        return BASALT_OK;
    hint[n] = '\0';
    char *s = hint;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' ||
                   s[len - 1] == '\n'))
        s[--len] = '\0';
    if (!len)
        return BASALT_OK;
    bool digits = len <= 18;
    for (size_t i = 0; digits && i < len; i++)
        digits = s[i] >= '0' && s[i] <= '9';
    if (digits) {
        uint64_t v = 0;
        for (size_t i = 0; i < len; i++)
            v = v * 10 + (uint64_t)(s[i] - '0');
        if (!version_file(mdir, v, out, cap))
            return BASALT_OK;
        /* The hint is written after the metadata file: after a crash between
         * the two it names the version before the current one. */
        char next[PATH_MAX];
        while (v < UINT64_MAX / 2 && version_file(mdir, v + 1, next, sizeof next)) {
            v++;
            if (strlen(next) + 1 > cap)
                return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", next);
            memcpy(out, next, strlen(next) + 1);
        }
        *found = true;
        return BASALT_OK;
    }
    const char *base = strrchr(s, '/');
    base = base ? base + 1 : s;
    if (!*base)
        return BASALT_OK;
    int k = snprintf(out, cap, "%s/%s", mdir, base);
    if (k > 0 && (size_t)k < cap && is_file(out)) {
        *found = true;
        return BASALT_OK;
    }
    k = snprintf(out, cap, "%s/%s.metadata.json", mdir, base);
    if (k > 0 && (size_t)k < cap && is_file(out))
        *found = true;
    return BASALT_OK;
}

/* The version of a metadata file name: v<N>..., <N>-...; -1 for another
 * *.metadata.json; -2 for a name that is not a metadata file. */
static int64_t name_version(const char *name)
{
    static const char *const suffixes[] = {".gz.metadata.json", ".metadata.json.gz",
                                           ".metadata.json"};
    if (name[0] == '.')
        return -2;
    size_t len = strlen(name), stem = 0;
    bool matched = false;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0] && !matched; i++) {
        size_t sl = strlen(suffixes[i]);
        if (len > sl && strcmp(name + len - sl, suffixes[i]) == 0) {
            stem = len - sl;
            matched = true;
        }
    }
    if (!matched)
        return -2;
    size_t start = name[0] == 'v' ? 1 : 0, i = start;
    int64_t v = 0;
    while (i < stem && name[i] >= '0' && name[i] <= '9') {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (name[i] - '0');
        i++;
    }
    if (i == start)
        return -1;
    if (start == 1 && i == stem)
        return v; /* v<N> */
    if (start == 0 && (i == stem || name[i] == '-'))
        return v; /* <N> or <N>-<uuid> */
    return -1;
}

static basalt_status last_updated(const char *path, int64_t *out, struct basalt_error *err)
{
    uint8_t *data;
    size_t len;
    basalt_status st = basalt_iceberg_read_path(path, &data, &len, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_iceberg_metadata *m = NULL;
    st = basalt_iceberg_metadata_parse(data, len, path, &m, err);
    basalt_free(data);
    if (st != BASALT_OK)
        return st;
    *out = m->last_updated_ms;
    basalt_iceberg_metadata_free(m);
    return BASALT_OK;
}

static basalt_status from_listing(const char *mdir, char *out, size_t cap,
                                  struct basalt_error *err)
{
    DIR *d = opendir(mdir);
    if (!d)
        return basalt_error_set(err, errno == ENOENT ? BASALT_NOT_FOUND : BASALT_IO, "%s: %s",
                                mdir, strerror(errno));
    struct basalt_string_list best = {0};
    int64_t best_version = -2;
    basalt_status st = BASALT_OK;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int64_t v = name_version(e->d_name);
        if (v < -1 || v < best_version)
            continue;
        char path[PATH_MAX];
        if (join(path, sizeof path, mdir, e->d_name, NULL) != BASALT_OK || !is_file(path))
            continue;
        if (v > best_version) {
            basalt_string_list_reset(&best);
            best_version = v;
        }
        st = basalt_string_list_add(&best, e->d_name, strlen(e->d_name), err);
        if (st != BASALT_OK)
            break;
    }
    closedir(d);
    if (st == BASALT_OK && best.n == 0)
        st = basalt_error_set(err, BASALT_NOT_FOUND,
                              "%s: no table metadata (no version-hint.text, no *.metadata.json)",
                              mdir);
    if (st != BASALT_OK) {
        basalt_string_list_reset(&best);
        return st;
    }
    /* Name order first, so that equal timestamps keep the greatest name. */
    basalt_string_list_sort_unique(&best);
    size_t pick = best.n - 1;
    if (best.n > 1) {
        int64_t best_ts = INT64_MIN;
        for (size_t i = 0; i < best.n && st == BASALT_OK; i++) {
            char path[PATH_MAX];
            int64_t ts = 0;
            st = join(path, sizeof path, mdir, best.items[i], err);
            if (st == BASALT_OK)
                st = last_updated(path, &ts, err);
            if (st == BASALT_OK && ts >= best_ts) {
                best_ts = ts;
                pick = i;
            }
        }
    }
    if (st == BASALT_OK)
        st = join(out, cap, mdir, best.items[pick], err);
    basalt_string_list_reset(&best);
    return st;
}

basalt_status basalt_iceberg_table_find_metadata(const char *path, char *out, size_t cap,
                                                 struct basalt_error *err)
{
    struct stat st;
    if (!path || !*path || !out || !cap)
        return basalt_error_set(err, BASALT_INVALID_ARG, "no table path");
    if (stat(path, &st) != 0)
        return basalt_error_set(err, errno == ENOENT ? BASALT_NOT_FOUND : BASALT_IO, "%s: %s",
                                path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (strlen(path) + 1 > cap)
            return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", path);
        memcpy(out, path, strlen(path) + 1);
        return BASALT_OK;
    }
    char mdir[PATH_MAX];
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    if (len + sizeof "/metadata" > sizeof mdir)
        return basalt_error_set(err, BASALT_LIMIT, "path too long: %.200s", path);
    memcpy(mdir, path, len);
    memcpy(mdir + len, "/metadata", sizeof "/metadata");
    if (!is_dir(mdir))
        mdir[len] = '\0';
    bool found;
    basalt_status s = from_hint(mdir, out, cap, &found, err);
    if (s != BASALT_OK || found)
        return s;
    return from_listing(mdir, out, cap, err);
}
