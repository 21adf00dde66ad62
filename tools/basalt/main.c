/* basalt CLI entry point: `basalt <group> <verb> [options]`. Each group lives
 * in its own file (cmd_<group>.c); this file only dispatches. */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_group groups[] = {
    {"avro", "Avro container files: schema, cat, count", cli_avro_main},
    {"catalog", "serve a catalog over the Iceberg REST protocol", cli_catalog_main},
    {"csv", "CSV files: schema, cat, convert to Parquet", cli_csv_main},
    {"flight", "serve tables over Arrow Flight; list, get, put from a Flight server",
     cli_flight_main},
    {"codec", "compress and decompress with any basalt codec", cli_codec_main},
    {"hash", "checksums and hashes of files (crc32, murmur3, xxh64, sha256)", cli_hash_main},
    {"iceberg", "Iceberg tables: catalogs, metadata, plans, scans, counts", cli_iceberg_main},
    {"info", "library version, CPU features and codecs", cli_info_main},
    {"io", "objects in S3, GCS, Azure, HTTP and files: ls, stat, cat, cp, rm, presign",
     cli_io_main},
    {"json", "JSON-lines files: schema, cat, convert", cli_json_main},
    {"ipc", "Arrow IPC files and streams (Feather v2): schema, cat, convert", cli_ipc_main},
    {"parquet", "Parquet files: schema, meta, head, cat, scan", cli_parquet_main},
    {"sql", "run SQL over files and Iceberg tables: basalt sql \"SELECT ...\"", cli_sql_main},
};

static void print_help(FILE *out)
{
    fprintf(out, "usage: basalt <group> <verb> [options]\n\n"
                 "A native lakehouse stack: Iceberg, Parquet, Avro and Arrow.\n\n"
                 "groups:\n");
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        fprintf(out, "  %-10s %s\n", groups[i].name, groups[i].summary);
    fprintf(out, "\noptions:\n  --help     this text (also after any group or verb)\n"
                 "  --version  print the version\n\n"
                 "object-store options, accepted by every command:\n%s\n"
                 "Files may be given as local paths or URIs: s3://BUCKET/KEY, s3a://,\n"
                 "gs://BUCKET/KEY, az://CONTAINER/BLOB, http(s):// (read-only), file://.\n\n"
                 "exit status: 0 ok, 1 failure, 2 usage error\n",
            cli_store_help);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("basalt: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (try --help)\n", stderr);
    return CLI_USAGE;
}

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("basalt: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_FAILURE;
}

int cli_fail_error(const struct basalt_error *err)
{
    return cli_fail("%s: %s", basalt_status_name(err->status), err->message);
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "help") == 0;
}

int cli_dispatch_verbs(const char *group, const struct cli_verb *verbs, int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        FILE *out = argc < 2 ? stderr : stdout;
        fprintf(out, "usage: basalt %s <verb> [options]\n\nverbs:\n", group);
        for (const struct cli_verb *v = verbs; v->name; v++)
            fprintf(out, "  %-12s %s\n", v->name, v->summary);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    for (const struct cli_verb *v = verbs; v->name; v++)
        if (strcmp(argv[1], v->name) == 0)
            return v->main(argc - 1, argv + 1);
    return cli_usage_error("unknown verb '%s' for '%s'", argv[1], group);
}

/* A whole remote object in one read (the store splits a long range into
 * concurrent requests). */
static basalt_status read_remote(const char *uri, unsigned char **data, size_t *len,
                                 struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st = cli_open_input(uri, &in, err);
    if (st != BASALT_OK)
        return st;
    unsigned char *buf = NULL;
    if (in->size > SIZE_MAX - 1)
        st = basalt_error_set(err, BASALT_LIMIT, "%s: too large to read into memory", uri);
    else if (!(buf = basalt_malloc(in->size ? (size_t)in->size : 1)))
        st = basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for %llu bytes", uri,
                              (unsigned long long)in->size);
    if (st == BASALT_OK && in->size)
        st = basalt_input_read_at(in, 0, in->size, buf, err);
    if (st == BASALT_OK) {
        *data = buf;
        *len = (size_t)in->size;
    } else {
        basalt_free(buf);
    }
    basalt_input_close(in);
    return st;
}

basalt_status cli_read_file(const char *path, unsigned char **data, size_t *len,
                            struct basalt_error *err)
{
    if (cli_is_remote(path))
        return read_remote(path, data, len, err);
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return basalt_error_set(err, errno == ENOENT ? BASALT_NOT_FOUND : BASALT_IO, "%s: %s",
                                path, strerror(errno));
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = BASALT_OK;
    for (;;) {
        st = basalt_buffer_reserve(&buf, 1 << 16, err);
        if (st != BASALT_OK)
            break;
        size_t n = fread(buf.data + buf.size, 1, buf.capacity - buf.size, f);
        buf.size += n;
        if (n == 0) {
            if (ferror(f))
                st = basalt_error_set(err, BASALT_IO, "%s: read failed", path);
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&buf);
        return st;
    }
    *len = buf.size;
    *data = basalt_buffer_take(&buf);
    return BASALT_OK;
}

basalt_status cli_write_file(const char *path, const void *data, size_t len,
                             struct basalt_error *err)
{
    if (cli_is_remote(path)) {
        struct basalt_output *out = NULL;
        basalt_status st = cli_open_output(path, 0, &out, err);
        if (st == BASALT_OK)
            st = basalt_output_write(out, data, len, err);
        if (st == BASALT_OK)
            st = basalt_output_commit(out, err);
        basalt_output_close(out);
        return st;
    }
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!f)
        return basalt_error_set(err, BASALT_IO, "%s: %s", path, strerror(errno));
    size_t n = fwrite(data, 1, len, f);
    int closed = f == stdout ? fflush(f) : fclose(f);
    if (n != len || closed != 0)
        return basalt_error_set(err, BASALT_IO, "%s: write failed", path);
    return BASALT_OK;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CLI_USAGE;
    }
    if (cli_is_help(argv[1])) {
        print_help(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("basalt %s\n", basalt_version());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (strcmp(argv[1], groups[i].name) == 0)
            return groups[i].main(argc - 1, argv + 1);
    if (argv[1][0] == '-')
        return cli_usage_error("unknown option '%s'", argv[1]);
    return cli_usage_error("unknown command group '%s'", argv[1]);
}

int main(int argc, char **argv)
{
    basalt_exec_with_huge_pages(argv); /* src/core/huge_pages.c says why */
    /* Batches of decoded columns are megabytes each, allocated and freed
     * once per batch: glibc would hand every one back to the kernel (mmap
     * above 128 KiB, trimming above 128 KiB free) and fault its pages in
     * again for the next. Keep them in the heap instead. */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    int rc = cli_store_options(&argc, argv);
    if (rc != CLI_OK)
        return rc;
    rc = run(argc, argv);
    cli_store_finish();
    return rc;
}
