/* basalt flight: serve a catalog's tables over Arrow Flight, and the client
 * verbs (list, info, schema, get, put, actions, action). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/basalt.h"
#include "basalt/flight.h"
#include "batch_source.h"
#include "cli.h"
#include "cmd_iceberg.h"
#include "format.h"

static const char *value_of(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_usage_error("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static bool parse_long(const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return false;
    *out = n;
    return true;
}

/* ------------------------------------------------------------------ serve */

static void serve_usage(void)
{
    printf("usage: basalt flight serve [--catalog URI] [--port N] [--host ADDR]\n"
           "                           [--require-token T]\n"
           "                           [--compression none|lz4|zstd]\n"
           "                           [--max-message BYTES] [--location URI] [--verbose]\n"
           "                           [--tls-cert CHAIN.pem --tls-key KEY.pem]\n"
           "                           [--shm-socket PATH [--shm-decode-in-place]]\n\n"
           "Serves the catalog's Iceberg tables over Arrow Flight (gRPC, h2c) until SIGINT or\n"
           "SIGTERM. A PATH descriptor names a table (namespace levels, then the name); a CMD\n"
           "descriptor is JSON {\"table\", \"columns\", \"filter\", \"snapshot\"}. GetFlightInfo\n"
           "returns one endpoint per file task; DoPut appends to a table.\n\n"
           "  --port N          0 (default) picks a free port; the line printed names it\n"
           "  --require-token T require 'authorization: Bearer T' on every call but\n"
           "                    Handshake (default $BASALT_FLIGHT_TOKEN)\n"
           "Each call decodes on its connection's thread: clients read in parallel by\n"
           "fetching several endpoints at once.\n"
           "  --location URI    the location put in endpoints (default none: this server)\n"
           "  --tls-cert/--tls-key  serve gRPC over TLS (grpc+tls://) with this certificate\n"
           "  --shm-socket PATH also serve tickets through shared memory on this Unix socket\n"
           "                    (basalt flight shm-get --socket PATH --ticket T; action \"shm\")\n"
           "  --shm-decode-in-place  decode the columns straight into the shared memory\n"
           "                    instead of copying each batch there\n"
           "  --verbose         one line per call on stderr; at exit, the shared-memory\n"
           "                    counters (bytes decoded straight into it, bytes copied)\n"
           "%s",
           cli_iceberg_common_help);
}

static int cmd_serve(int argc, char **argv)
{
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    struct basalt_flight_server_options o;
    basalt_flight_server_options_init(&o);
    const char *env_token = getenv("BASALT_FLIGHT_TOKEN");
    o.token = env_token && *env_token ? env_token : NULL;
    long long n;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            serve_usage();
            return CLI_OK;
        }
        int r = cli_iceberg_common_option(&common, "flight serve", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        const char *opt = argv[i];
        if (!strcmp(opt, "--verbose")) {
            o.verbose = true;
            continue;
        }
        if (!strcmp(opt, "--shm-decode-in-place")) {
            o.shm_decode_in_place = true;
            continue;
        }
        const char *v = value_of(argc, argv, &i);
        if (!v)
            return CLI_USAGE;
        if (!strcmp(opt, "--port")) {
            if (!parse_long(v, 0, 65535, &n))
                return cli_usage_error("flight serve: --port wants 0..65535, got '%s'", v);
            o.port = (int)n;
        } else if (!strcmp(opt, "--host")) {
            o.host = v;
        } else if (!strcmp(opt, "--require-token")) {
            o.token = *v ? v : NULL;
        } else if (!strcmp(opt, "--location")) {
            o.location = v;
        } else if (!strcmp(opt, "--shm-socket")) {
            o.shm_socket = v;
        } else if (!strcmp(opt, "--tls-cert")) {
            o.tls_cert_file = v;
        } else if (!strcmp(opt, "--tls-key")) {
            o.tls_key_file = v;
        } else if (!strcmp(opt, "--max-message")) {
            if (!parse_long(v, 1024, (long long)1 << 40, &n))
                return cli_usage_error("flight serve: --max-message wants bytes >= 1024");
            o.max_message = (size_t)n;
        } else if (!strcmp(opt, "--compression")) {
            if (!strcmp(v, "none"))
                o.compression = BASALT_CODEC_UNCOMPRESSED;
            else if (!strcmp(v, "lz4"))
                o.compression = BASALT_CODEC_LZ4_FRAME;
            else if (!strcmp(v, "zstd"))
                o.compression = BASALT_CODEC_ZSTD;
            else
                return cli_usage_error("flight serve: --compression none, lz4 or zstd");
        } else {
            return cli_usage_error("flight serve: unknown argument '%s'", opt);
        }
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_flight_server *srv = NULL;
    basalt_status st = cli_iceberg_open_catalog(&common, false, &c, &err);
    if (st == BASALT_OK)
        st = basalt_flight_server_start(c, &o, &srv, &err);
    if (st != BASALT_OK) {
        basalt_catalog_close(c);
        return cli_fail_error(&err);
    }
    printf("listening on %s://%s:%d\n", o.tls_cert_file ? "grpc+tls" : "grpc", o.host,
           basalt_flight_server_port(srv));
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    if (o.shm_socket && o.verbose) {
        struct basalt_flight_shm_server_stats ss;
        basalt_flight_server_shm_stats(srv, &ss);
        fprintf(stderr,
                "basalt: flight serve: shm: %lld streams, %lld batches; of their buffers %lld "
                "bytes decoded in place, %lld copied\n",
                (long long)ss.streams_ok, (long long)ss.batches, (long long)ss.in_place_bytes,
                (long long)ss.copied_bytes);
    }
    basalt_flight_server_stop(srv);
    basalt_catalog_close(c);
    fprintf(stderr, "basalt: flight serve: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return CLI_OK;
}

/* ------------------------------------------------------------------ client */

/* The options every client verb takes. */
struct client_args {
    const char *uri;
    const char *token;
    const char *ca_file;      /* grpc+tls:// */
    unsigned timeout_ms;
    const char *table;        /* "ns.t": a PATH descriptor */
    const char *cmd;          /* a CMD descriptor */
    const char *ticket;
    const char *file;         /* put: the input */
    const char *out;          /* get: an IPC stream file */
    const char *type, *body;  /* action */
    enum cli_format_kind format;
    long long limit;
    bool stats;
    char *parts[32];
    size_t n_parts;
    char table_copy[512];
};

static int client_args(int argc, char **argv, const char *verb, const char *usage,
                       struct client_args *a)
{
    memset(a, 0, sizeof *a);
    a->format = CLI_FORMAT_TABLE;
    a->limit = -1;
    const char *env_token = getenv("BASALT_FLIGHT_TOKEN");
    a->token = env_token && *env_token ? env_token : NULL;
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: basalt flight %s %s\n\n"
                   "Every client verb also takes --token T (default $BASALT_FLIGHT_TOKEN),\n"
                   "--tls-ca CA.pem (grpc+tls:// servers) and --timeout MS (the longest wait\n"
                   "for the server).\n",
                   verb, usage);
            return -1;
        }
        const char *opt = argv[i];
        if (!strcmp(opt, "--summary")) {
            a->stats = true;
            continue;
        }
        if (opt[0] == '-' && opt[1] == '-') {
            const char *v = value_of(argc, argv, &i);
            if (!v)
                return CLI_USAGE;
            long long n;
            if (!strcmp(opt, "--token"))
                a->token = v;
            else if (!strcmp(opt, "--tls-ca"))
                a->ca_file = v;
            else if (!strcmp(opt, "--timeout") && parse_long(v, 1, 86400000, &n))
                a->timeout_ms = (unsigned)n;
            else if (!strcmp(opt, "--cmd"))
                a->cmd = v;
            else if (!strcmp(opt, "--ticket"))
                a->ticket = v;
            else if (!strcmp(opt, "--out"))
                a->out = v;
            else if (!strcmp(opt, "--format") && cli_format_parse(v, &a->format))
                ;
            else if (!strcmp(opt, "--limit") && parse_long(v, 0, INT64_MAX, &n))
                a->limit = n;
            else
                return cli_usage_error("flight %s: bad option '%s %s'", verb, opt, v);
            continue;
        }
        if (positional == 0)
            a->uri = opt;
        else if (positional == 1 && !strcmp(verb, "action"))
            a->type = opt;
        else if (positional == 2 && !strcmp(verb, "action"))
            a->body = opt;
        else if (positional == 1)
            a->table = opt;
        else if (positional == 2 && !strcmp(verb, "put"))
            a->file = opt;
        else
            return cli_usage_error("flight %s: unexpected argument '%s'", verb, opt);
        positional++;
    }
    if (!a->uri)
        return cli_usage_error("flight %s needs the server's URI (grpc://host:port)", verb);
    if (a->table) {
        snprintf(a->table_copy, sizeof a->table_copy, "%s", a->table);
        for (char *p = a->table_copy; a->n_parts < 32;) {
            a->parts[a->n_parts++] = p;
            char *dot = strchr(p, '.');
            if (!dot)
                break;
            *dot = 0;
            p = dot + 1;
        }
    }
    return CLI_OK;
}

static bool descriptor_of(const struct client_args *a, struct basalt_flight_descriptor *d)
{
    memset(d, 0, sizeof *d);
    if (a->cmd) {
        d->cmd = a->cmd;
        d->cmd_len = strlen(a->cmd);
        return true;
    }
    if (a->table) {
        d->path = (const char *const *)a->parts;
        d->n_path = a->n_parts;
        return true;
    }
    return false;
}

static int connect_client(const struct client_args *a, struct basalt_flight_client **c,
                          struct basalt_error *err)
{
    signal(SIGPIPE, SIG_IGN);
    struct basalt_flight_client_options o;
    basalt_flight_client_options_init(&o);
    o.token = a->token;
    o.ca_file = a->ca_file;
    o.timeout_ms = a->timeout_ms;
    return basalt_flight_client_connect(a->uri, &o, c, err) == BASALT_OK ? CLI_OK
                                                                         : cli_fail_error(err);
}

static void print_info(const struct basalt_flight_info *info)
{
    printf("flight");
    for (size_t i = 0; i < info->n_path; i++)
        printf("%s%s", i ? "." : " ", info->path[i]);
    if (info->cmd)
        printf(" cmd %s", info->cmd);
    printf(": %lld records, %lld bytes, %zu endpoints\n", (long long)info->total_records,
           (long long)info->total_bytes, info->n_endpoints);
    if (info->schema.release)
        for (int64_t i = 0; i < info->schema.n_children; i++)
            printf("  %s: %s\n", info->schema.children[i]->name, info->schema.children[i]->format);
    for (size_t i = 0; i < info->n_endpoints; i++)
        printf("  endpoint %zu: %.*s%s%s\n", i, (int)info->endpoints[i].ticket_len,
               (const char *)info->endpoints[i].ticket, info->endpoints[i].location ? " at " : "",
               info->endpoints[i].location ? info->endpoints[i].location : "");
}

static int cmd_list(int argc, char **argv)
{
    struct client_args a;
    int rc = client_args(argc, argv, "list", "URI [--token T]", &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_flight_client *c = NULL;
    if ((rc = connect_client(&a, &c, &err)) != CLI_OK)
        return rc;
    struct basalt_flight_info *infos = NULL;
    size_t n = 0;
    basalt_status st = basalt_flight_client_list(c, NULL, &infos, &n, &err);
    for (size_t i = 0; i < n; i++) {
        print_info(&infos[i]);
        basalt_flight_info_reset(&infos[i]);
    }
    basalt_free(infos);
    basalt_flight_client_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_info(int argc, char **argv)
{
    struct client_args a;
    int rc = client_args(argc, argv, "info", "URI (TABLE | --cmd JSON) [--token T]", &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    struct basalt_flight_descriptor d;
    if (!descriptor_of(&a, &d))
        return cli_usage_error("flight info needs a TABLE or --cmd JSON");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_flight_client *c = NULL;
    if ((rc = connect_client(&a, &c, &err)) != CLI_OK)
        return rc;
    struct basalt_flight_info info;
    basalt_status st = basalt_flight_client_get_info(c, &d, &info, &err);
    if (st == BASALT_OK) {
        print_info(&info);
        basalt_flight_info_reset(&info);
    }
    basalt_flight_client_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_schema(int argc, char **argv)
{
    struct client_args a;
    int rc = client_args(argc, argv, "schema", "URI (TABLE | --cmd JSON) [--token T]", &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    struct basalt_flight_descriptor d;
    if (!descriptor_of(&a, &d))
        return cli_usage_error("flight schema needs a TABLE or --cmd JSON");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_flight_client *c = NULL;
    if ((rc = connect_client(&a, &c, &err)) != CLI_OK)
        return rc;
    struct ArrowSchema schema;
    basalt_status st = basalt_flight_client_get_schema(c, &d, &schema, &err);
    if (st == BASALT_OK) {
        for (int64_t i = 0; i < schema.n_children; i++)
            printf("%s: %s\n", schema.children[i]->name, schema.children[i]->format);
        schema.release(&schema);
    }
    basalt_flight_client_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prints or writes every batch of one DoGet stream. `schema` gets the
 * first stream's schema, which the writers borrow until the end. */
static basalt_status drain(struct ArrowArrayStream *s, const struct client_args *a,
                           struct ArrowSchema *schema, struct cli_format_writer **w,
                           struct basalt_ipc_writer **iw, struct basalt_output *out,
                           long long *rows, long long *bytes, struct basalt_error *err)
{
    if (!schema->release && s->get_schema(s, schema) != 0)
        return basalt_error_set(err, BASALT_IO, "%s", s->get_last_error(s));
    basalt_status st = BASALT_OK;
    if (out && !*iw)
        st = basalt_ipc_writer_open(out, schema, NULL, iw, err);
    else if (!out && !a->stats && !*w)
        st = cli_format_writer_new(stdout, a->format, schema, NULL, 0, w, err);
    while (st == BASALT_OK && (a->limit < 0 || *rows < a->limit)) {
        struct ArrowArray batch;
        if (s->get_next(s, &batch) != 0) {
            st = basalt_error_set(err, BASALT_IO, "%s", s->get_last_error(s));
            break;
        }
        if (!batch.release)
            break;
        if (*iw)
            st = basalt_ipc_writer_write(*iw, &batch, err);
        for (int64_t i = 0; *w && st == BASALT_OK && i < batch.length &&
                            (a->limit < 0 || *rows + i < a->limit);
             i++)
            st = cli_format_writer_row(*w, &batch, i, err);
        *rows += batch.length;
        *bytes += cli_format_array_bytes(schema, &batch);
        batch.release(&batch);
    }
    return st;
}

static int cmd_get(int argc, char **argv)
{
    struct client_args a;
    int rc = client_args(argc, argv, "get",
                         "URI (TABLE | --cmd JSON | --ticket T) [--format table|json|csv]\n"
                         "       [--out FILE.arrow] [--limit N] [--summary] [--token T]\n\n"
                         "Fetches a table: GetFlightInfo, then DoGet of every endpoint in order.\n"
                         "--out writes an Arrow IPC stream; --summary prints rows, bytes, seconds and\n"
                         "how many buffers were used where they were received or copied, instead\n"
                         "of the rows.",
                         &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    struct basalt_flight_descriptor d;
    if (!a.ticket && !descriptor_of(&a, &d))
        return cli_usage_error("flight get needs a TABLE, --cmd JSON or --ticket T");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_flight_client *c = NULL;
    if ((rc = connect_client(&a, &c, &err)) != CLI_OK)
        return rc;
    double t0 = now_s();
    struct basalt_flight_info info;
    memset(&info, 0, sizeof info);
    basalt_status st = BASALT_OK;
    if (!a.ticket)
        st = basalt_flight_client_get_info(c, &d, &info, &err);
    struct basalt_output *out = NULL;
    if (st == BASALT_OK && a.out)
        st = basalt_output_open_file(a.out, &out, &err);
    struct cli_format_writer *w = NULL;
    struct basalt_ipc_writer *iw = NULL;
    struct ArrowSchema schema = {0};
    long long rows = 0, bytes = 0, in_place = 0, copied = 0;
    size_t n = a.ticket ? 1 : info.n_endpoints;
    for (size_t i = 0; st == BASALT_OK && i < n && (a.limit < 0 || rows < a.limit); i++) {
        struct ArrowArrayStream s;
        const uint8_t *t = a.ticket ? (const uint8_t *)a.ticket : info.endpoints[i].ticket;
        size_t tl = a.ticket ? strlen(a.ticket) : info.endpoints[i].ticket_len;
        st = basalt_flight_client_do_get(c, t, tl, &s, &err);
        if (st == BASALT_OK) {
            st = drain(&s, &a, &schema, &w, &iw, out, &rows, &bytes, &err);
            struct basalt_ipc_read_stats rs;
            if (basalt_flight_client_get_stats(&s, &rs, NULL) == BASALT_OK) {
                in_place += rs.buffers_zero_copy;
                copied += rs.buffers_copied;
            }
            s.release(&s);
        }
    }
    if (st == BASALT_OK && !iw && !w && !a.stats && info.schema.release) {
        st = cli_format_writer_new(stdout, a.format, &info.schema, NULL, 0, &w, &err);
    }
    if (st == BASALT_OK && w)
        st = cli_format_writer_finish(w, &err);
    if (st == BASALT_OK && iw)
        st = basalt_ipc_writer_finish(iw, &err);
    if (st == BASALT_OK && out)
        st = basalt_output_commit(out, &err);
    basalt_ipc_writer_free(iw);
    cli_format_writer_free(w);
    if (schema.release)
        schema.release(&schema);
    if (out)
        basalt_output_close(out);
    double secs = now_s() - t0;
    if (st == BASALT_OK && a.stats)
        printf("rows %lld, bytes %lld, endpoints %zu, %.3f s, %.1f MB/s, buffers %lld in place, "
               "%lld copied\n",
               rows, bytes, n, secs, secs > 0 ? (double)bytes / 1e6 / secs : 0.0, in_place, copied);
    basalt_flight_info_reset(&info);
    basalt_flight_client_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* A batch source as an ArrowArrayStream, for DoPut. */
struct source_stream {
    struct cli_batch_source *src;
    char message[BASALT_ERROR_MESSAGE_MAX];
};

static int ss_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct source_stream *p = s->private_data;
    struct basalt_error err;
    if (basalt_arrow_schema_copy(cli_batch_source_schema(p->src), out, &err) != BASALT_OK) {
        snprintf(p->message, sizeof p->message, "%s", err.message);
        return ENOMEM;
    }
    return 0;
}

static int ss_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct source_stream *p = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    if (cli_batch_source_next(p->src, out, &err) != BASALT_OK) {
        snprintf(p->message, sizeof p->message, "%s", err.message);
        return EIO;
    }
    return 0;
}

static const char *ss_error(struct ArrowArrayStream *s)
{
    struct source_stream *p = s->private_data;
    return p->message;
}

static void ss_release(struct ArrowArrayStream *s)
{
    struct source_stream *p = s->private_data;
    cli_batch_source_close(p->src);
    free(p);
    s->release = NULL;
}

static int cmd_put(int argc, char **argv)
{
    struct client_args a;
    int rc = client_args(argc, argv, "put",
                         "URI TABLE FILE [--token T]\n\n"
                         "Appends FILE (Parquet, Avro or CSV) to TABLE through DoPut.",
                         &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    if (!a.table || !a.file)
        return cli_usage_error("flight put needs TABLE and FILE");
    struct basalt_flight_descriptor d;
    descriptor_of(&a, &d);
    struct basalt_error err;
    basalt_error_init(&err);
    struct source_stream *p = calloc(1, sizeof *p);
    if (!p)
        return cli_fail("out of memory");
    basalt_status st = cli_batch_source_open(a.file, NULL, &p->src, &err);
    if (st != BASALT_OK) {
        free(p);
        return cli_fail_error(&err);
    }
    struct ArrowArrayStream s = {ss_schema, ss_next, ss_error, ss_release, p};
    struct basalt_flight_client *c = NULL;
    if ((rc = connect_client(&a, &c, &err)) != CLI_OK) {
        s.release(&s);
        return rc;
    }
    char *result = NULL;
    st = basalt_flight_client_do_put(c, &d, &s, &result, &err);
    if (st == BASALT_OK)
        printf("%s\n", result ? result : "");
    basalt_free(result);
    basalt_flight_client_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_actions(int argc, char **argv)
{
    struct client_args a;
    int rc = client_args(argc, argv, "actions", "URI [--token T]", &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_flight_client *c = NULL;
    if ((rc = connect_client(&a, &c, &err)) != CLI_OK)
        return rc;
    char *text = NULL;
    basalt_status st = basalt_flight_client_list_actions(c, &text, &err);
    if (st == BASALT_OK)
        fputs(text, stdout);
    basalt_free(text);
    basalt_flight_client_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_action(int argc, char **argv)
{
    struct client_args a;
    int rc = client_args(argc, argv, "action", "URI TYPE [BODY] [--token T]", &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    if (!a.type)
        return cli_usage_error("flight action needs a TYPE (see 'basalt flight actions')");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_flight_client *c = NULL;
    if ((rc = connect_client(&a, &c, &err)) != CLI_OK)
        return rc;
    char *text = NULL;
    basalt_status st = basalt_flight_client_do_action(c, a.type, a.body, &text, &err);
    if (st == BASALT_OK)
        fputs(text, stdout);
    basalt_free(text);
    basalt_flight_client_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

int cli_flight_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"serve", "serve a catalog's tables over Arrow Flight", cmd_serve},
        {"list", "ListFlights: every table with its schema", cmd_list},
        {"info", "GetFlightInfo: a table's endpoints (one per file task)", cmd_info},
        {"schema", "GetSchema of a table or command", cmd_schema},
        {"get", "fetch a table or command through DoGet", cmd_get},
        {"put", "append a file to a table through DoPut", cmd_put},
        {"actions", "ListActions", cmd_actions},
        {"action", "DoAction TYPE [BODY]", cmd_action},
        {"shm-serve", "serve files to local consumers through shared memory", cli_flight_shm_serve},
        {"shm-get", "read a stream from a shm-serve producer", cli_flight_shm_get},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("flight", verbs, argc, argv);
}
