/* basalt flight shm-serve / shm-get: the shared-memory transport
 * (basalt/flight_shm.h) from the command line. A producer serves files
 * (Parquet, Avro, CSV, Arrow IPC) over a Unix socket; a consumer on the same
 * machine asks for one by its ticket and reads it through shared memory. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_source.h"
#include "cli.h"
#include "format.h"

static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* ------------------------------------------------------------ sources */

/* A cli_batch_source as an ArrowArrayStream that owns it. */
struct source_stream {
    struct cli_batch_source *src;
    struct basalt_error err;
};

static int status_errno(basalt_status st)
{
    switch (st) {
    case BASALT_OK: return 0;
    case BASALT_NOMEM: return ENOMEM;
    case BASALT_IO: return EIO;
    case BASALT_UNSUPPORTED: return ENOTSUP;
    case BASALT_LIMIT: return EOVERFLOW;
    default: return EINVAL;
    }
}

static int source_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct source_stream *p = s->private_data;
    return status_errno(basalt_arrow_schema_copy(cli_batch_source_schema(p->src), out, &p->err));
}

static int source_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct source_stream *p = s->private_data;
    return status_errno(cli_batch_source_next(p->src, out, &p->err));
}

static const char *source_last_error(struct ArrowArrayStream *s)
{
    return ((struct source_stream *)s->private_data)->err.message;
}

static void source_release(struct ArrowArrayStream *s)
{
    struct source_stream *p = s->private_data;
    cli_batch_source_close(p->src);
    basalt_free(p);
    s->release = NULL;
}

/* Batches of at most `rows` rows cut from another stream's batches without
 * copying: each slice is a view that holds a reference on the batch it was
 * cut from, so slices may be released in any order, on any thread. */
struct slice_parent {
    struct ArrowArray array;
    int64_t refs;
};

struct slice_hold {
    struct slice_parent *parent;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

static void parent_unref(struct slice_parent *p)
{
    if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        basalt_arrow_array_release(&p->array);
        basalt_free(p);
    }
}

static void slice_release(struct ArrowArray *a)
{
    struct slice_hold *h = a->private_data;
    a->release = h->release;
    a->private_data = h->private_data;
    a->release(a);
    parent_unref(h->parent);
    basalt_free(h);
}

struct slice_stream {
    struct ArrowArrayStream inner;
    int64_t rows;
    struct slice_parent *cur;
    int64_t pos;
    struct basalt_error err;
};

static int slice_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct slice_stream *p = s->private_data;
    return p->inner.get_schema(&p->inner, out);
}

static int slice_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct slice_stream *p = s->private_data;
    out->release = NULL;
    while (!p->cur || p->pos >= p->cur->array.length) {
        parent_unref(p->cur);
        p->cur = NULL;
        struct slice_parent *next = basalt_calloc(1, sizeof *next);
        if (!next) {
            basalt_error_set(&p->err, BASALT_NOMEM, "out of memory for a batch");
            return ENOMEM;
        }
        int rc = p->inner.get_next(&p->inner, &next->array);
        if (rc != 0 || !next->array.release) {
            if (rc != 0)
                basalt_error_set(&p->err, BASALT_IO, "%s", p->inner.get_last_error(&p->inner));
            basalt_free(next);
            return rc;
        }
        next->refs = 1;
        p->cur = next;
        p->pos = 0;
    }
    struct slice_hold *h = basalt_calloc(1, sizeof *h);
    if (!h || basalt_arrow_array_view(&p->cur->array, out, &p->err) != BASALT_OK) {
        basalt_free(h);
        basalt_error_set(&p->err, BASALT_NOMEM, "out of memory for a slice");
        return ENOMEM;
    }
    int64_t n = p->cur->array.length - p->pos;
    out->offset = p->cur->array.offset + p->pos;
    out->length = n < p->rows ? n : p->rows;
    out->null_count = out->null_count == 0 ? 0 : -1;
    p->pos += out->length;
    h->parent = p->cur;
    __atomic_add_fetch(&p->cur->refs, 1, __ATOMIC_ACQ_REL);
    h->release = out->release;
    h->private_data = out->private_data;
    out->release = slice_release;
    out->private_data = h;
    return 0;
}

static const char *slice_last_error(struct ArrowArrayStream *s)
{
    return ((struct slice_stream *)s->private_data)->err.message;
}

static void slice_stream_release(struct ArrowArrayStream *s)
{
    struct slice_stream *p = s->private_data;
    parent_unref(p->cur);
    basalt_arrow_stream_release(&p->inner);
    basalt_free(p);
    s->release = NULL;
}

/* Opens `path` as a stream: Arrow IPC by its first bytes, else what
 * cli_batch_source reads; cut into batches of `rows` when rows > 0. */
static basalt_status open_file_stream(const char *path, int64_t rows, struct ArrowArrayStream *out,
                                      struct basalt_error *err)
{
    out->release = NULL;
    struct basalt_input *in;
    basalt_status st = cli_open_input(path, &in, err);
    if (st != BASALT_OK)
        return st;
    uint8_t head[6] = {0};
    bool ipc = in->size >= 6 && basalt_input_read_at(in, 0, 6, head, NULL) == BASALT_OK &&
               (!memcmp(head, "ARROW1", 6) || !memcmp(head, "\xff\xff\xff\xff", 4));
    if (ipc) {
        struct basalt_ipc_reader *r;
        st = basalt_ipc_reader_open(in, NULL, &r, err);
        if (st == BASALT_OK)
            st = basalt_ipc_reader_to_stream(r, out, err);
    } else {
        basalt_input_close(in);
        struct source_stream *p = basalt_calloc(1, sizeof *p);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a stream");
        st = cli_batch_source_open(path, NULL, &p->src, err);
        if (st != BASALT_OK) {
            basalt_free(p);
            return st;
        }
        out->get_schema = source_get_schema;
        out->get_next = source_get_next;
        out->get_last_error = source_last_error;
        out->release = source_release;
        out->private_data = p;
    }
    if (st != BASALT_OK || rows <= 0)
        return st;
    struct slice_stream *p = basalt_calloc(1, sizeof *p);
    if (!p) {
        basalt_arrow_stream_release(out);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a stream");
    }
    basalt_arrow_stream_move(out, &p->inner);
    p->rows = rows;
    out->get_schema = slice_get_schema;
    out->get_next = slice_get_next;
    out->get_last_error = slice_last_error;
    out->release = slice_stream_release;
    out->private_data = p;
    return BASALT_OK;
}

/* ------------------------------------------------------------ shm-serve */

struct serve_cfg {
    const char *file; /* every ticket serves it */
    const char *root; /* tickets name files under it */
    int64_t batch_rows;
};

/* A ticket names a file under the root: relative, no "." or ".." step. */
static bool ticket_path_ok(const char *t, size_t len)
{
    if (len == 0 || t[0] == '/' || memchr(t, '\0', len))
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || t[i] == '/') {
            size_t n = i - start;
            if (n == 0 || (n == 1 && t[start] == '.') ||
                (n == 2 && t[start] == '.' && t[start + 1] == '.'))
                return false;
            start = i + 1;
        }
    }
    return true;
}

/* The files are read into the heap and copied into the segment (Flight's
 * server decodes its Iceberg tables into the segment instead). */
static basalt_status serve_open(void *ctx, const void *ticket, size_t len,
                                const struct basalt_arrow_allocator *allocator,
                                struct ArrowArrayStream *out, struct basalt_error *err)
{
    (void)allocator;
    const struct serve_cfg *cfg = ctx;
    if (cfg->file)
        return open_file_stream(cfg->file, cfg->batch_rows, out, err);
    const char *t = ticket;
    if (!ticket_path_ok(t, len))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "a ticket is a relative path without '.' or '..' steps");
    size_t rl = strlen(cfg->root);
    char *path = basalt_malloc(rl + 1 + len + 1);
    if (!path)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a path");
    memcpy(path, cfg->root, rl);
    path[rl] = '/';
    memcpy(path + rl + 1, t, len);
    path[rl + 1 + len] = '\0';
    basalt_status st = open_file_stream(path, cfg->batch_rows, out, err);
    basalt_free(path);
    return st;
}

static void serve_log(void *ctx, basalt_status st, const char *message)
{
    (void)ctx;
    fprintf(stderr, "basalt: flight shm-serve: %s: %s\n", basalt_status_name(st), message);
}

static const char serve_help[] =
    "usage: basalt flight shm-serve --socket PATH (--file FILE | --root DIR) [options]\n\n"
    "Serves Arrow record batches to consumers on this machine through shared\n"
    "memory: each consumer connects to the Unix socket PATH, asks for a ticket\n"
    "and is given a memory file the batches are written into as they are read.\n"
    "With --file every ticket gets FILE; with --root a ticket is a path under DIR.\n"
    "Files are Parquet, Avro, CSV (.csv/.tsv) or Arrow IPC (file or stream).\n"
    "Runs until SIGINT or SIGTERM (a consumer's failure is logged on stderr and\n"
    "serving goes on), then removes the socket.\n\n"
    "options:\n"
    "  --socket PATH        the Unix socket to listen on\n"
    "  --file FILE          serve FILE for every ticket\n"
    "  --root DIR           serve DIR/TICKET\n"
    "  --batch-rows N       cut batches to at most N rows (no copy)\n"
    "  --max-segment BYTES  memory file size limit per stream (default 64 GiB)\n"
    "  --max-connections N  consumers served at once (default 16)\n"
    "  --once               serve one consumer and exit with its outcome\n";

int cli_flight_shm_serve(int argc, char **argv)
{
    struct serve_cfg cfg = {0};
    const char *socket_path = NULL;
    bool once = false;
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            fputs(serve_help, stdout);
            return CLI_OK;
        }
        if (!strcmp(a, "--once")) {
            once = true;
            continue;
        }
        if (i + 1 >= argc)
            return cli_usage_error("flight shm-serve: %s needs a value", a);
        const char *v = argv[++i];
        uint64_t n;
        if (!strcmp(a, "--socket"))
            socket_path = v;
        else if (!strcmp(a, "--file"))
            cfg.file = v;
        else if (!strcmp(a, "--root"))
            cfg.root = v;
        else if (!strcmp(a, "--batch-rows") && parse_u64(v, 1, INT64_MAX, &n))
            cfg.batch_rows = (int64_t)n;
        else if (!strcmp(a, "--max-segment") && parse_u64(v, 4096, (uint64_t)1 << 46, &n))
            o.max_segment_size = n;
        else if (!strcmp(a, "--max-connections") && parse_u64(v, 1, 4096, &n))
            o.max_connections = (unsigned)n;
        else
            return cli_usage_error("flight shm-serve: bad option %s %s", a, v);
    }
    if (!socket_path || !cfg.file == !cfg.root)
        return cli_usage_error("flight shm-serve needs --socket and one of --file, --root");
    o.log = serve_log;
    /* Signals are taken by sigwait below; threads made from here on
     * inherit the mask. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    struct basalt_error err;
    struct basalt_flight_shm_server *server;
    if (basalt_flight_shm_server_new(socket_path, serve_open, &cfg, &o, &server, &err) !=
        BASALT_OK)
        return cli_fail_error(&err);
    fprintf(stderr, "basalt: flight shm-serve: listening on %s\n", socket_path);
    if (once) {
        basalt_status st = basalt_flight_shm_server_serve_one(server, &err);
        basalt_flight_shm_server_free(server);
        return st == BASALT_OK ? CLI_OK : CLI_FAILURE; /* already logged */
    }
    if (basalt_flight_shm_server_start(server, &err) != BASALT_OK) {
        basalt_flight_shm_server_free(server);
        return cli_fail_error(&err);
    }
    int sig = 0;
    sigwait(&stop, &sig);
    basalt_flight_shm_server_free(server);
    return CLI_OK;
}

/* ------------------------------------------------------------ shm-get */

static const char get_help[] =
    "usage: basalt flight shm-get --socket PATH --ticket TICKET [--ticket T2 ...] [options]\n\n"
    "Asks the producer at the Unix socket PATH (basalt flight shm-serve, or flight\n"
    "serve --shm-socket) for each TICKET in turn, in one session (one connection,\n"
    "one memory file), and prints the rows it sends through shared memory; the\n"
    "tickets must give one schema. Fails (exit 1) with one line on stderr when the\n"
    "producer dies or sends anything malformed.\n\n"
    "options:\n"
    "  --format table|csv|json  how rows are printed (default table)\n"
    "  --count              print counts, bytes and throughput instead of rows\n"
    "  --progress           one line on stderr per batch received\n"
    "  --max-segment BYTES  address space mapped for the memory file (default 64 GiB)\n"
    "  --timeout-ms N       fail when no record comes for N ms (default: wait)\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The same columns (names and formats) at the top level. */
static bool same_columns(const struct ArrowSchema *a, const struct ArrowSchema *b)
{
    if (a->n_children != b->n_children || strcmp(a->format, b->format) != 0)
        return false;
    for (int64_t i = 0; i < a->n_children; i++) {
        const struct ArrowSchema *x = a->children[i], *y = b->children[i];
        if (strcmp(x->format, y->format) != 0 ||
            strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0)
            return false;
    }
    return true;
}

static basalt_status stream_status(struct ArrowArrayStream *s, int rc, struct basalt_error *err)
{
    return basalt_error_set(err, rc == EIO ? BASALT_IO : rc == ENOMEM ? BASALT_NOMEM
                                 : rc == EOVERFLOW          ? BASALT_LIMIT
                                 : rc == ENOTSUP            ? BASALT_UNSUPPORTED
                                                            : BASALT_CORRUPT,
                            "%s", s->get_last_error(s));
}

struct get_totals {
    int64_t rows, batches, bytes, zero_copy, copied;
};

/* Reads one ticket's stream of the session, printing its rows through `w`
 * (made with the first stream's schema when *w is NULL and rows are
 * printed). */
static basalt_status get_ticket(struct basalt_flight_shm_session *session, const char *ticket,
                                enum cli_format_kind kind, bool count, bool progress,
                                struct ArrowSchema *first_schema, struct cli_format_writer **w,
                                struct get_totals *t, struct basalt_error *err)
{
    struct ArrowArrayStream s;
    basalt_status st = basalt_flight_shm_session_get(session, ticket, strlen(ticket), &s, err);
    if (st != BASALT_OK)
        return st;
    struct ArrowSchema schema;
    schema.release = NULL;
    int rc = s.get_schema(&s, &schema);
    if (rc != 0)
        st = stream_status(&s, rc, err);
    else if (first_schema->release && !same_columns(first_schema, &schema))
        st = basalt_error_set(err, BASALT_INVALID_ARG, "ticket %s: its columns are not the "
                              "first ticket's", ticket);
    if (st == BASALT_OK && !first_schema->release) {
        basalt_arrow_schema_move(&schema, first_schema);
        if (!count)
            st = cli_format_writer_new(stdout, kind, first_schema, NULL, 0, w, err);
    }
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        rc = s.get_next(&s, &batch);
        if (rc != 0) {
            st = stream_status(&s, rc, err);
            break;
        }
        if (!batch.release)
            break;
        for (int64_t i = 0; *w && i < batch.length && st == BASALT_OK; i++)
            st = cli_format_writer_row(*w, &batch, i, err);
        t->rows += batch.length;
        t->batches++;
        if (progress)
            fprintf(stderr, "batch %lld: %lld rows\n", (long long)t->batches,
                    (long long)batch.length);
        basalt_arrow_array_release(&batch);
    }
    struct basalt_flight_shm_stream_info info;
    if (basalt_flight_shm_stream_info(&s, &info, NULL) == BASALT_OK) {
        t->bytes += (int64_t)info.published;
        t->zero_copy += info.ipc.buffers_zero_copy;
        t->copied += info.ipc.buffers_copied;
    }
    if (schema.release)
        schema.release(&schema);
    s.release(&s);
    return st;
}

int cli_flight_shm_get(int argc, char **argv)
{
    const char *socket_path = NULL;
    const char **tickets = basalt_calloc((size_t)argc + 1, sizeof *tickets);
    if (!tickets)
        return cli_fail("out of memory");
    size_t n_tickets = 0;
    enum cli_format_kind kind = CLI_FORMAT_TABLE;
    bool count = false, progress = false;
    struct basalt_flight_shm_client_options o;
    basalt_flight_shm_client_options_init(&o);
    int usage = -1;
    for (int i = 1; i < argc && usage < 0; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            fputs(get_help, stdout);
            usage = CLI_OK;
            break;
        }
        if (!strcmp(a, "--count")) {
            count = true;
            continue;
        }
        if (!strcmp(a, "--progress")) {
            progress = true;
            continue;
        }
        if (i + 1 >= argc) {
            usage = cli_usage_error("flight shm-get: %s needs a value", a);
            break;
        }
        const char *v = argv[++i];
        uint64_t n;
        if (!strcmp(a, "--socket"))
            socket_path = v;
        else if (!strcmp(a, "--ticket"))
            tickets[n_tickets++] = v;
        else if (!strcmp(a, "--format") && cli_format_parse(v, &kind))
            continue;
        else if (!strcmp(a, "--max-segment") && parse_u64(v, 4096, (uint64_t)1 << 46, &n))
            o.max_segment_size = n;
        else if (!strcmp(a, "--timeout-ms") && parse_u64(v, 1, UINT32_MAX, &n))
            o.timeout_ms = (uint32_t)n;
        else
            usage = cli_usage_error("flight shm-get: bad option %s %s", a, v);
    }
    if (usage < 0 && (!socket_path || n_tickets == 0))
        usage = cli_usage_error("flight shm-get needs --socket and --ticket");
    if (usage >= 0) {
        basalt_free(tickets);
        return usage;
    }
    double t0 = now_s();
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_flight_shm_session *session;
    basalt_status st = basalt_flight_shm_session_open(socket_path, &o, &session, &err);
    struct ArrowSchema schema;
    schema.release = NULL;
    struct cli_format_writer *w = NULL;
    struct get_totals t = {0};
    for (size_t i = 0; st == BASALT_OK && i < n_tickets; i++)
        st = get_ticket(session, tickets[i], kind, count, progress, &schema, &w, &t, &err);
    double secs = now_s() - t0;
    if (st == BASALT_OK && w)
        st = cli_format_writer_finish(w, &err);
    if (st == BASALT_OK && count)
        printf("rows: %lld\nbatches: %lld\nbytes: %llu\nzero-copy buffers: %lld\n"
               "copied buffers: %lld\nseconds: %.3f\nMiB/s: %.0f\n",
               (long long)t.rows, (long long)t.batches, (unsigned long long)t.bytes,
               (long long)t.zero_copy, (long long)t.copied, secs,
               secs > 0 ? (double)t.bytes / (1 << 20) / secs : 0.0);
    cli_format_writer_free(w);
    if (schema.release)
        schema.release(&schema);
    basalt_flight_shm_session_close(session);
    basalt_free(tickets);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}
