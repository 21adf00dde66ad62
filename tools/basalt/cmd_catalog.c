/* basalt catalog: serving a catalog over the Iceberg REST protocol. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/catalog.h"
#include "cli.h"
#include "cmd_iceberg.h"

#define SERVE_DEFAULT_PORT 8181 /* the Iceberg REST fixture's port */

static void serve_usage(FILE *out)
{
    fprintf(out,
            "usage: basalt catalog serve [options]\n\n"
            "Serves a catalog over the Iceberg REST catalog protocol, so that Iceberg engines\n"
            "(Spark, Trino, PyIceberg, DuckDB...) share its tables. The first line printed is\n"
            "the URL it listens on; it serves until SIGINT or SIGTERM. GET /v1/config lists\n"
            "the endpoints served: a SQL catalog serves all of namespaces, tables, commits\n"
            "and multi-table transactions; a file-system catalog does not drop namespaces\n"
            "or tables, register or rename tables, keeps no namespace properties and has\n"
            "no transactions. Views and server-side scan planning are not served.\n\n"
            "options:\n"
            "  --catalog URI        the catalog: sqlite:PATH, postgresql://... or a warehouse\n"
            "                       directory, created when missing (default\n"
            "                       " CLI_ICEBERG_DEFAULT_CATALOG ")\n"
            "  --catalog-name NAME  catalog_name in a SQL catalog (default \"default\")\n"
            "  --warehouse PATH     where new tables go (default: the catalog's directory); a\n"
            "                       remote one (s3://bucket/wh) through the store options\n"
            "                       of 'basalt --help'\n"
            "  --port N             TCP port (default %d; 0: any free port)\n"
            "  --bind ADDR          IPv4 or IPv6 address to listen on (default 127.0.0.1)\n"
            "  --token T            require \"Authorization: Bearer T\" on every request\n"
            "                       (default: $BASALT_CATALOG_TOKEN; unset: no check)\n"
            "  --prefix P           serve under /v1/P/ (announced in /v1/config)\n"
            "  --max-body BYTES     largest request body accepted (default 16777216)\n"
            "  --threads N          requests handled at once (default 4)\n\n"
            "exit status: 0 stopped by a signal, 1 failure, 2 usage error\n",
            SERVE_DEFAULT_PORT);
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]; NULL when it is another
 * argument. *missing: the option is there without a value. */
static const char *option_value(const char *name, int argc, char **argv, int *i, bool *missing)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    *missing = false;
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    if (arg[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static bool parse_count(const char *text, unsigned long long max, unsigned long long *out)
{
    if (text[0] < '0' || text[0] > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

/* Parses the options into `o` (strings point into argv). */
static int serve_options(int argc, char **argv, struct basalt_catalog_rest_server_options *o)
{
    static const char *const names[] = {"--catalog", "--catalog-name", "--warehouse",
                                        "--port",    "--bind",         "--token",
                                        "--prefix",  "--max-body",     "--threads"};
    basalt_catalog_rest_server_options_init(o);
    o->catalog_uri = CLI_ICEBERG_DEFAULT_CATALOG;
    o->port = SERVE_DEFAULT_PORT;
    const char *env_token = getenv("BASALT_CATALOG_TOKEN");
    o->token = env_token && *env_token ? env_token : NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        size_t k = 0;
        bool missing = false;
        for (; k < sizeof names / sizeof names[0]; k++)
            if ((v = option_value(names[k], argc, argv, &i, &missing)) || missing)
                break;
        if (missing)
            return cli_usage_error("catalog serve: %s needs a value", names[k]);
        if (!v)
            return cli_usage_error("catalog serve: unknown argument '%s'", argv[i]);
        unsigned long long n = 0;
        switch (k) {
        case 0: o->catalog_uri = v; break;
        case 1: o->catalog_name = v; break;
        case 2: o->warehouse = v; break;
        case 3:
            if (!parse_count(v, 65535, &n))
                return cli_usage_error("catalog serve: --port wants 0..65535, got '%s'", v);
            o->port = (uint16_t)n;
            break;
        case 4: o->bind_address = v; break;
        case 5: o->token = *v ? v : NULL; break;
        case 6:
            if (strchr(v, '/'))
                return cli_usage_error("catalog serve: --prefix is one path segment, got '%s'", v);
            o->prefix = v;
            break;
        case 7:
            if (!parse_count(v, SIZE_MAX, &n) || n == 0)
                return cli_usage_error("catalog serve: --max-body wants a positive size, got '%s'",
                                       v);
            o->max_body_bytes = (size_t)n;
            break;
        default:
            if (!parse_count(v, 256, &n) || n == 0)
                return cli_usage_error("catalog serve: --threads wants 1..256, got '%s'", v);
            o->threads = (unsigned)n;
        }
    }
    return CLI_OK;
}

static int cmd_serve(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            serve_usage(stdout);
            return CLI_OK;
        }
    struct basalt_catalog_rest_server_options o;
    int rc = serve_options(argc, argv, &o);
    if (rc != CLI_OK)
        return rc;
    /* The signals are taken by sigwait below: blocked before the server's
     * threads start, so that they inherit the mask and none of them is
     * interrupted instead. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog_rest_server *server = NULL;
    /* Remote warehouses (--warehouse s3://...) through the store options of
     * 'basalt --help' (endpoint, credentials from the environment). */
    o.store = cli_store(NULL);
    if (basalt_catalog_rest_server_start(&o, &server, &err) != BASALT_OK)
        return cli_fail_error(&err);
    bool v6 = strchr(o.bind_address, ':') != NULL;
    printf("listening on http://%s%s%s:%u\n", v6 ? "[" : "", o.bind_address, v6 ? "]" : "",
           (unsigned)basalt_catalog_rest_server_port(server));
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    basalt_catalog_rest_server_stop(server);
    fprintf(stderr, "basalt: catalog serve: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return CLI_OK;
}

int cli_catalog_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"serve", "serve a catalog over the Iceberg REST protocol", cmd_serve},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("catalog", verbs, argc, argv);
}
