/* basalt io: objects in S3, GCS, Azure, over HTTP and in local files: ls,
 * stat, cat, rm, presign (cp is in cmd_io_cp.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_io.h"
#include "format.h"

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

bool cli_io_store_for(const char *uri, struct basalt_io_store **store, struct basalt_error *err)
{
    *store = NULL;
    if (!cli_is_remote(uri))
        return true;
    *store = cli_store(err);
    return *store != NULL;
}

bool cli_io_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-' || *s == '+')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* ------------------------------------------------------------------ listing */

void cli_io_listing_reset(struct cli_io_listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        basalt_free(l->uris[i]);
    basalt_free(l->uris);
    basalt_free(l->sizes);
    memset(l, 0, sizeof *l);
}

static basalt_status collect(void *ctx, const struct basalt_io_entry *e, struct basalt_error *err)
{
    struct cli_io_listing *l = ctx;
    if (e->is_prefix)
        return BASALT_OK;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **uris = basalt_realloc(l->uris, cap * sizeof *uris);
        if (uris)
            l->uris = uris;
        uint64_t *sizes = uris ? basalt_realloc(l->sizes, cap * sizeof *sizes) : NULL;
        if (!sizes)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory listing");
        l->sizes = sizes;
        l->cap = cap;
    }
    size_t n = strlen(e->uri);
    char *copy = basalt_malloc(n + 1);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory listing");
    memcpy(copy, e->uri, n + 1);
    l->uris[l->n] = copy;
    l->sizes[l->n++] = e->size;
    return BASALT_OK;
}

basalt_status cli_io_list_all(const char *prefix, struct cli_io_listing *out,
                              struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    struct basalt_io_store *store;
    if (!cli_io_store_for(prefix, &store, err))
        return err->status;
    basalt_status st = basalt_io_list(store, prefix, false, collect, out, err);
    if (st != BASALT_OK)
        cli_io_listing_reset(out);
    return st;
}

/* "2024-05-01T12:00:00Z" (UTC, seconds), or "" for an unknown time. */
static void iso_time(int64_t ms, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (ms <= 0)
        return;
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    if (gmtime_r(&s, &tm))
        strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* --------------------------------------------------------------------- ls */

struct ls_state {
    enum cli_format_kind format;
    bool header_done; /* printed before the first entry, so a failure prints none */
    struct basalt_buffer line;
    uint64_t objects;
};

static void ls_header(struct ls_state *s)
{
    if (s->header_done)
        return;
    s->header_done = true;
    if (s->format == CLI_FORMAT_TABLE)
        printf("%14s  %-20s  %s\n", "size", "modified", "name");
    else if (s->format == CLI_FORMAT_CSV)
        printf("size,modified,name\n");
}

static basalt_status ls_visit(void *ctx, const struct basalt_io_entry *e, struct basalt_error *err)
{
    struct ls_state *s = ctx;
    ls_header(s);
    char when[32];
    iso_time(e->mtime_ms, when, sizeof when);
    s->line.size = 0;
    basalt_status st = BASALT_OK;
    if (s->format == CLI_FORMAT_JSON) {
        char num[64];
        st = basalt_buffer_append(&s->line, "{\"name\":", 8, err);
        if (st == BASALT_OK)
            st = cli_format_json_string(&s->line, (const uint8_t *)e->uri, strlen(e->uri), err);
        if (st == BASALT_OK && e->is_prefix) {
            st = basalt_buffer_append(&s->line, ",\"prefix\":true}", 15, err);
        } else if (st == BASALT_OK) {
            int n = snprintf(num, sizeof num, ",\"size\":%" PRIu64 ",\"modified\":", e->size);
            st = basalt_buffer_append(&s->line, num, (size_t)n, err);
            if (st == BASALT_OK && when[0])
                st = cli_format_json_string(&s->line, (const uint8_t *)when, strlen(when), err);
            else if (st == BASALT_OK)
                st = basalt_buffer_append(&s->line, "null", 4, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(&s->line, ",\"etag\":", 8, err);
            if (st == BASALT_OK)
                st = cli_format_json_string(&s->line, (const uint8_t *)e->etag, strlen(e->etag),
                                            err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(&s->line, "}", 1, err);
        }
        if (st == BASALT_OK)
            st = basalt_buffer_append(&s->line, "\n", 1, err);
    } else if (s->format == CLI_FORMAT_CSV) {
        /* size,modified,name: a prefix has an empty size and time. Names are
         * quoted when they hold a comma, quote or newline. */
        char head[64] = ",,";
        if (!e->is_prefix)
            snprintf(head, sizeof head, "%" PRIu64 ",%s,", e->size, when);
        st = basalt_buffer_append(&s->line, head, strlen(head), err);
        bool quote = strpbrk(e->uri, ",\"\r\n") != NULL;
        if (st == BASALT_OK && quote)
            st = basalt_buffer_append(&s->line, "\"", 1, err);
        for (const char *p = e->uri; st == BASALT_OK && *p; p++)
            st = basalt_buffer_append(&s->line, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1, err);
        if (st == BASALT_OK && quote)
            st = basalt_buffer_append(&s->line, "\"", 1, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&s->line, "\n", 1, err);
    } else {
        char head[64];
        if (e->is_prefix)
            snprintf(head, sizeof head, "%14s  %-20s  ", "PRE", "");
        else
            snprintf(head, sizeof head, "%14" PRIu64 "  %-20s  ", e->size, when);
        st = basalt_buffer_append(&s->line, head, strlen(head), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&s->line, e->uri, strlen(e->uri), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&s->line, "\n", 1, err);
    }
    if (st != BASALT_OK)
        return st;
    if (fwrite(s->line.data, 1, s->line.size, stdout) != s->line.size)
        return basalt_error_set(err, BASALT_IO, "write to stdout failed");
    s->objects++;
    return BASALT_OK;
}

static int parse_format(const char *verb, const char *val, enum cli_format_kind *format)
{
    if (!cli_format_parse(val, format))
        return cli_usage_error("io %s: unknown format '%s' (table, csv, json)", verb, val);
    return CLI_OK;
}

static int cmd_ls(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt io ls URI_PREFIX [--recursive] [--format table|csv|json]\n\n"
               "Lists the objects whose URIs start with URI_PREFIX, in key order: size in\n"
               "bytes, modification time (UTC) and URI. Without --recursive (-r) the\n"
               "listing stops at the next '/': what lies below shows as one PRE line per\n"
               "common prefix (\"directory\"). JSON lines have name, size, modified, etag,\n"
               "or name and \"prefix\": true. s3://, s3a://, gs:// and local paths.\n");
        return CLI_OK;
    }
    const char *uri = NULL;
    bool recursive = false;
    struct ls_state s;
    memset(&s, 0, sizeof s);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--recursive") == 0) {
            recursive = true;
        } else if (strcmp(argv[i], "--format") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("io ls: --format needs a value");
            int rc = parse_format("ls", argv[++i], &s.format);
            if (rc != CLI_OK)
                return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("io ls: unknown option '%s'", argv[i]);
        } else if (uri) {
            return cli_usage_error("io ls: unexpected argument '%s'", argv[i]);
        } else {
            uri = argv[i];
        }
    }
    if (!uri)
        return cli_usage_error("io ls: expected URI_PREFIX");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_io_store *store;
    if (!cli_io_store_for(uri, &store, &err))
        return cli_fail_error(&err);
    basalt_buffer_init(&s.line);
    basalt_status st = basalt_io_list(store, uri, !recursive, ls_visit, &s, &err);
    basalt_buffer_reset(&s.line);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    ls_header(&s);
    return fflush(stdout) == 0 ? CLI_OK : cli_fail("write to stdout failed");
}

/* ------------------------------------------------------------------- stat */

static int cmd_stat(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt io stat URI [--format table|json]\n\n"
               "Prints an object's size in bytes, modification time (UTC) and ETag (as the\n"
               "server quotes it; empty for local files). A missing object is a failure\n"
               "(NOT_FOUND, exit status 1).\n");
        return CLI_OK;
    }
    const char *uri = NULL;
    enum cli_format_kind format = CLI_FORMAT_TABLE;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--format") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("io stat: --format needs a value");
            int rc = parse_format("stat", argv[++i], &format);
            if (rc != CLI_OK)
                return rc;
            if (format == CLI_FORMAT_CSV)
                return cli_usage_error("io stat: unknown format 'csv' (table or json)");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("io stat: unknown option '%s'", argv[i]);
        } else if (uri) {
            return cli_usage_error("io stat: unexpected argument '%s'", argv[i]);
        } else {
            uri = argv[i];
        }
    }
    if (!uri)
        return cli_usage_error("io stat: expected URI");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_io_store *store;
    if (!cli_io_store_for(uri, &store, &err))
        return cli_fail_error(&err);
    struct basalt_io_object_info info;
    if (basalt_io_stat(store, uri, &info, &err) != BASALT_OK)
        return cli_fail_error(&err);
    char when[32];
    iso_time(info.mtime_ms, when, sizeof when);
    if (format == CLI_FORMAT_JSON) {
        struct basalt_buffer b;
        basalt_buffer_init(&b);
        char num[48];
        basalt_status st = basalt_buffer_append(&b, "{\"name\":", 8, &err);
        if (st == BASALT_OK)
            st = cli_format_json_string(&b, (const uint8_t *)uri, strlen(uri), &err);
        snprintf(num, sizeof num, ",\"size\":%" PRIu64 ",\"modified\":", info.size);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, num, strlen(num), &err);
        if (st == BASALT_OK)
            st = when[0] ? cli_format_json_string(&b, (const uint8_t *)when, strlen(when), &err)
                         : basalt_buffer_append(&b, "null", 4, &err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, ",\"etag\":", 8, &err);
        if (st == BASALT_OK)
            st = cli_format_json_string(&b, (const uint8_t *)info.etag, strlen(info.etag), &err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, "}\n", 2, &err);
        if (st == BASALT_OK)
            fwrite(b.data, 1, b.size, stdout);
        basalt_buffer_reset(&b);
        if (st != BASALT_OK)
            return cli_fail_error(&err);
    } else {
        printf("name      %s\nsize      %" PRIu64 "\nmodified  %s\netag      %s\n", uri, info.size,
               when[0] ? when : "-", info.etag[0] ? info.etag : "-");
    }
    return fflush(stdout) == 0 ? CLI_OK : cli_fail("write to stdout failed");
}

/* -------------------------------------------------------------------- cat */

static basalt_status to_stdout(void *ctx, const void *data, size_t len, struct basalt_error *err)
{
    (void)ctx;
    if (fwrite(data, 1, len, stdout) != len)
        return basalt_error_set(err, BASALT_IO, "write to stdout failed");
    return BASALT_OK;
}

static int cmd_cat(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt io cat URI [--offset N] [--length N]\n\n"
               "Writes an object's bytes to stdout: all of them, or LENGTH bytes from\n"
               "OFFSET (a range past the end stops at the end). A remote object comes\n"
               "down in one request whose body is written out as it arrives (resumed\n"
               "from the byte reached if it breaks); memory stays bounded.\n");
        return CLI_OK;
    }
    const char *uri = NULL;
    uint64_t offset = 0, length = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        bool is_off = strcmp(argv[i], "--offset") == 0, is_len = strcmp(argv[i], "--length") == 0;
        if (is_off || is_len) {
            if (i + 1 >= argc)
                return cli_usage_error("io cat: %s needs a value", argv[i]);
            if (!cli_io_parse_u64(argv[i + 1], is_off ? &offset : &length))
                return cli_usage_error("io cat: %s wants a byte count, got '%s'", argv[i],
                                       argv[i + 1]);
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("io cat: unknown option '%s'", argv[i]);
        } else if (uri) {
            return cli_usage_error("io cat: unexpected argument '%s'", argv[i]);
        } else {
            uri = argv[i];
        }
    }
    if (!uri)
        return cli_usage_error("io cat: expected URI");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_input *in = NULL;
    if (cli_open_input_flags(uri, BASALT_IO_SEQUENTIAL, &in, &err) != BASALT_OK)
        return cli_fail_error(&err);
    if (offset > in->size) {
        int rc = cli_fail("INVALID_ARG: %s: offset %" PRIu64 " is past the end (%" PRIu64 " bytes)",
                          uri, offset, in->size);
        basalt_input_close(in);
        return rc;
    }
    uint64_t end = length > in->size - offset ? in->size : offset + length;
    basalt_status st = basalt_input_read_stream(in, offset, end - offset, to_stdout, NULL, &err);
    basalt_input_close(in);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    return fflush(stdout) == 0 ? CLI_OK : cli_fail("write to stdout failed");
}

/* --------------------------------------------------------------------- rm */

/* Deletes in batches of this many URIs (an S3 DeleteObjects request each). */
#define RM_BATCH 1000

static int cmd_rm(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt io rm URI... [--recursive]\n\n"
               "Deletes objects, in batches (S3 DeleteObjects). A missing object is not an\n"
               "error. With --recursive (-r) each URI is a prefix: every object under\n"
               "URI/ is listed and deleted. Local directories are left in place.\n");
        return CLI_OK;
    }
    bool recursive = false;
    const char **uris = basalt_calloc((size_t)argc, sizeof *uris);
    if (!uris)
        return cli_fail("NOMEM: out of memory");
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--recursive") == 0) {
            recursive = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            basalt_free(uris);
            return cli_usage_error("io rm: unknown option '%s'", argv[i]);
        } else {
            uris[n++] = argv[i];
        }
    }
    if (n == 0) {
        basalt_free(uris);
        return cli_usage_error("io rm: expected URI");
    }
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = BASALT_OK;
    struct basalt_io_store *store = NULL;
    for (size_t i = 0; i < n && st == BASALT_OK; i++)
        if (cli_is_remote(uris[i]) && !cli_io_store_for(uris[i], &store, &err))
            st = err.status;
    if (st == BASALT_OK && !recursive) {
        for (size_t i = 0; i < n && st == BASALT_OK; i += RM_BATCH)
            st = basalt_io_delete(store, uris + i, n - i < RM_BATCH ? n - i : RM_BATCH, &err);
    }
    for (size_t i = 0; recursive && i < n && st == BASALT_OK; i++) {
        size_t len = strlen(uris[i]);
        char *prefix = basalt_malloc(len + 2);
        if (!prefix) {
            st = basalt_error_set(&err, BASALT_NOMEM, "out of memory");
            break;
        }
        memcpy(prefix, uris[i], len + 1);
        if (len == 0 || prefix[len - 1] != '/')
            memcpy(prefix + len, "/", 2);
        struct cli_io_listing l;
        st = cli_io_list_all(prefix, &l, &err);
        for (size_t k = 0; st == BASALT_OK && k < l.n; k += RM_BATCH)
            st = basalt_io_delete(store, (const char *const *)l.uris + k,
                                  l.n - k < RM_BATCH ? l.n - k : RM_BATCH, &err);
        cli_io_listing_reset(&l);
        basalt_free(prefix);
    }
    basalt_free(uris);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* ---------------------------------------------------------------- presign */

static int cmd_presign(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt io presign URI [--method GET|PUT] [--expires SECONDS]\n\n"
               "Prints a presigned URL for an s3:// or gs:// object: anyone holding it\n"
               "may GET (default) or PUT the object until it expires (default 3600 s,\n"
               "at most 604800 s = 7 days). The URL is a credential: share it with care.\n");
        return CLI_OK;
    }
    const char *uri = NULL, *method = "GET";
    uint64_t expires = 3600;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--method") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("io presign: --method needs a value");
            method = argv[++i];
            if (strcmp(method, "GET") != 0 && strcmp(method, "PUT") != 0)
                return cli_usage_error("io presign: --method wants GET or PUT, got '%s'", method);
        } else if (strcmp(argv[i], "--expires") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("io presign: --expires needs a value");
            if (!cli_io_parse_u64(argv[i + 1], &expires) || expires < 1 || expires > 604800)
                return cli_usage_error("io presign: --expires wants 1 to 604800 seconds, got '%s'",
                                       argv[i + 1]);
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("io presign: unknown option '%s'", argv[i]);
        } else if (uri) {
            return cli_usage_error("io presign: unexpected argument '%s'", argv[i]);
        } else {
            uri = argv[i];
        }
    }
    if (!uri)
        return cli_usage_error("io presign: expected URI");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_io_store *store = cli_store(&err);
    if (!store)
        return cli_fail_error(&err);
    char url[8192];
    if (basalt_io_presign(store, uri, method, (uint32_t)expires, url, sizeof url, &err) !=
        BASALT_OK)
        return cli_fail_error(&err);
    printf("%s\n", url);
    return fflush(stdout) == 0 ? CLI_OK : cli_fail("write to stdout failed");
}

/* ------------------------------------------------------------------ group */

static const struct cli_verb verbs[] = {
    {"ls", "list objects under a prefix (size, time, name)", cmd_ls},
    {"stat", "an object's size, time and ETag", cmd_stat},
    {"cat", "write an object (or a byte range of it) to stdout", cmd_cat},
    {"cp", "copy objects between any two places (-r: a whole prefix)", cli_io_cp},
    {"rm", "delete objects (-r: everything under a prefix)", cmd_rm},
    {"presign", "a presigned GET or PUT URL for an s3:// or gs:// object", cmd_presign},
    {NULL, NULL, NULL}};

int cli_io_main(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        FILE *out = argc < 2 ? stderr : stdout;
        fprintf(out, "usage: basalt io <verb> [options]\n\n"
                     "Objects by URI: s3://BUCKET/KEY (also s3a://), gs://BUCKET/KEY,\n"
                     "az://CONTAINER/BLOB, http(s)://HOST/PATH (read-only), file:// and local\n"
                     "paths.\n\nverbs:\n");
        for (const struct cli_verb *v = verbs; v->name; v++)
            fprintf(out, "  %-12s %s\n", v->name, v->summary);
        fprintf(out, "\nobject-store options (accepted by every command):\n%s", cli_store_help);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    return cli_dispatch_verbs("io", verbs, argc, argv);
}
