/* Opening an Iceberg table from a metadata file in an object store
 * (s3://.../metadata/v3.metadata.json): the file is read through the CLI's
 * store and parsed here; the table's manifests and data files are read by
 * the table's io. */
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "cli.h"
#include "cmd_iceberg.h"

static char *copy_n(const char *s, size_t n)
{
    char *c = basalt_malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* The table's name as basalt_iceberg_table_load names it: the directory
 * above "metadata/", else the file name without ".metadata.json". */
static char *table_name(const char *uri)
{
    const char *scheme = strstr(uri, "://");
    const char *path = scheme ? scheme + 3 : uri;
    const char *file = strrchr(path, '/');
    file = file ? file + 1 : path;
    const char *dir_end = file > path ? file - 1 : path; /* the '/' before the file */
    const char *dir = dir_end;
    while (dir > path && dir[-1] != '/')
        dir--;
    if ((size_t)(dir_end - dir) == 8 && strncmp(dir, "metadata", 8) == 0 && dir > path) {
        const char *up_end = dir - 1, *up = up_end;
        while (up > path && up[-1] != '/')
            up--;
        if (up_end > up)
            return copy_n(up, (size_t)(up_end - up));
    }
    size_t n = strlen(file);
    static const char suffix[] = ".metadata.json";
    if (n > sizeof suffix - 1 && strcmp(file + n - (sizeof suffix - 1), suffix) == 0)
        n -= sizeof suffix - 1;
    return copy_n(file, n);
}

int cli_iceberg_open_remote_table(const char *uri, struct basalt_iceberg_io *io,
                                  struct basalt_iceberg_table **out)
{
    struct basalt_error err;
    basalt_error_init(&err);
    *out = NULL;
    unsigned char *data = NULL;
    size_t len = 0;
    struct basalt_iceberg_metadata *md = NULL;
    basalt_status st = cli_read_file(uri, &data, &len, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_metadata_parse(data, len, uri, &md, &err);
    basalt_free(data);
    /* STORE HOOK: once the iceberg module reads locations through an object
     * store, hand it the CLI's store here, e.g.
     *     basalt_iceberg_io_set_store(io, cli_store(&err));
     * Until then manifests and data files under a remote location are read
     * only where --map maps them to local directories. */
    struct basalt_iceberg_table *t = NULL;
    if (st == BASALT_OK && !(t = basalt_calloc(1, sizeof *t)))
        st = basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK) {
        t->metadata = md;
        t->io = io;
        md = NULL;
        io = NULL;
        t->metadata_location = copy_n(uri, strlen(uri));
        t->name = table_name(uri);
        if (!t->metadata_location || !t->name)
            st = basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    }
    basalt_iceberg_metadata_free(md);
    basalt_iceberg_io_free(io);
    if (st != BASALT_OK) {
        basalt_iceberg_table_free(t);
        return cli_fail_error(&err);
    }
    *out = t;
    return CLI_OK;
}
