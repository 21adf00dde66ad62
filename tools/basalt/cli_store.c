/* The object-store options every command takes (parsed once by main.c), the
 * process-wide store they configure, and opening inputs and outputs by URI:
 * remote URIs through the store, local paths through the file functions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_store_help[] =
    "  --endpoint URL          S3-compatible endpoint (default: AWS_ENDPOINT_URL_S3,\n"
    "                          AWS_ENDPOINT_URL, the profile, then AWS itself)\n"
    "  --region NAME           region for signing (default: AWS_REGION, the profile,\n"
    "                          then us-east-1)\n"
    "  --profile NAME          a profile of ~/.aws/credentials and ~/.aws/config\n"
    "  --no-sign-request       send anonymous requests (public buckets)\n"
    "  --addressing MODE       bucket addressing: path, virtual or auto (default)\n"
    "  --insecure              do not verify TLS certificates\n"
    "  --ca-file PATH          trust the CA certificates in this PEM file instead of\n"
    "                          the system store (a private CA, a test server)\n"
    "  --part-size SIZE        upload part size, 5MiB to 5GiB (default 8MiB)\n"
    "  --parts-in-flight N     parts uploading at once (default 4)\n"
    "  --max-concurrency N     requests in flight at once per read (default 8)\n"
    "  --coalesce-gap SIZE     ranges closer than this share a request (default 1MiB)\n"
    "  --split-size SIZE       a longer range is fetched as concurrent requests of\n"
    "                          this size (default 8MiB)\n"
    "  --no-prefetch           fetch row groups only when the decoder needs them\n"
    "  --cache-bytes SIZE      memory for the bytes of Iceberg files read from object\n"
    "                          stores, kept for the next reads (default 256MiB; 0: none)\n"
    "  --stats                 print the store's request counters on stderr at the end\n"
    "Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,\n"
    "AWS_SESSION_TOKEN, AZURE_STORAGE_*, GOOGLE_OAUTH_ACCESS_TOKEN) or the AWS shared\n"
    "files; they are never printed.\n";

static struct {
    const char *endpoint;
    const char *region;
    const char *profile;
    bool anonymous;
    enum basalt_io_addressing addressing;
    bool insecure;
    const char *ca_file;
    bool stats;
    uint64_t part_size; /* 0: the store's default */
    uint32_t parts_in_flight; /* 0: the store's default */
    uint32_t max_concurrency; /* 0: the store's default */
    bool have_gap;
    uint64_t coalesce_gap;
    uint64_t split_size; /* 0: the store's default */
    bool no_prefetch;
    bool have_cache;
    uint64_t cache_bytes;
    struct basalt_io_store *store;
    basalt_status failed; /* why the store could not be made */
} state;

/* "5MiB", "8M", "16777216": bytes, with binary K/M/G suffixes. */
static bool parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return false;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift) {
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
            end += strlen(end);
    } else if (strcmp(end, "B") == 0) {
        end++;
    }
    if (*end || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* Matches argv[i] against option `name`: "--name VALUE" or "--name=VALUE"
 * (with_value), or "--name" alone. Returns 0 no, 1 yes (*used args), -1 a
 * missing value. */
static int match(const char *name, bool with_value, int argc, char **argv, int i,
                 const char **value, int *used)
{
    size_t n = strlen(name);
    const char *arg = argv[i];
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (!with_value)
        return arg[n] == '\0' ? (*used = 1) : 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        *used = 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (i + 1 >= argc)
        return -1;
    *value = argv[i + 1];
    *used = 2;
    return 1;
}

static int take(const char *name, const char *value)
{
    if (strcmp(name, "--endpoint") == 0) {
        state.endpoint = value;
    } else if (strcmp(name, "--region") == 0) {
        state.region = value;
    } else if (strcmp(name, "--ca-file") == 0) {
        if (!*value)
            return cli_usage_error("--ca-file wants a path");
        state.ca_file = value;
    } else if (strcmp(name, "--profile") == 0) {
        state.profile = value;
    } else if (strcmp(name, "--addressing") == 0) {
        if (strcmp(value, "path") == 0)
            state.addressing = BASALT_IO_ADDRESSING_PATH;
        else if (strcmp(value, "virtual") == 0)
            state.addressing = BASALT_IO_ADDRESSING_VIRTUAL;
        else if (strcmp(value, "auto") == 0)
            state.addressing = BASALT_IO_ADDRESSING_AUTO;
        else
            return cli_usage_error("--addressing wants path, virtual or auto, got '%s'", value);
    } else if (strcmp(name, "--part-size") == 0) {
        uint64_t v;
        if (!parse_size(value, &v) || v < (5u << 20) || v > ((uint64_t)5 << 30))
            return cli_usage_error("--part-size wants 5MiB to 5GiB, got '%s'", value);
        state.part_size = v;
    } else if (strcmp(name, "--parts-in-flight") == 0 || strcmp(name, "--max-concurrency") == 0) {
        uint64_t v;
        if (!parse_size(value, &v) || v < 1 || v > 64)
            return cli_usage_error("%s wants 1 to 64, got '%s'", name, value);
        if (name[2] == 'p')
            state.parts_in_flight = (uint32_t)v;
        else
            state.max_concurrency = (uint32_t)v;
    } else if (strcmp(name, "--coalesce-gap") == 0) {
        if (!parse_size(value, &state.coalesce_gap))
            return cli_usage_error("--coalesce-gap wants a size, got '%s'", value);
        state.have_gap = true;
    } else if (strcmp(name, "--split-size") == 0) {
        if (!parse_size(value, &state.split_size) || state.split_size == 0)
            return cli_usage_error("--split-size wants a size above 0, got '%s'", value);
    } else if (strcmp(name, "--cache-bytes") == 0) {
        if (!parse_size(value, &state.cache_bytes))
            return cli_usage_error("--cache-bytes wants a size, got '%s'", value);
        state.have_cache = true;
    } else if (strcmp(name, "--no-prefetch") == 0) {
        state.no_prefetch = true;
    } else if (strcmp(name, "--no-sign-request") == 0) {
        state.anonymous = true;
    } else if (strcmp(name, "--insecure") == 0) {
        state.insecure = true;
    } else if (strcmp(name, "--stats") == 0) {
        state.stats = true;
    }
    return CLI_OK;
}

int cli_store_options(int *argc, char **argv)
{
    static const struct {
        const char *name;
        bool with_value;
    } options[] = {
        {"--endpoint", true},         {"--region", true},    {"--profile", true},
        {"--addressing", true},       {"--part-size", true}, {"--no-sign-request", false},
        {"--insecure", false},        {"--stats", false},    {"--ca-file", true},
        {"--parts-in-flight", true},  {"--max-concurrency", true}, {"--coalesce-gap", true},
        {"--no-prefetch", false},     {"--cache-bytes", true},    {"--split-size", true},
    };
    int out = 1;
    int i = 1;
    while (i < *argc) {
        /* After "--" everything is an argument of the verb. */
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        int used = 0;
        for (size_t k = 0; k < sizeof options / sizeof options[0] && !used; k++) {
            const char *value = NULL;
            int m = match(options[k].name, options[k].with_value, *argc, argv, i, &value, &used);
            if (m < 0)
                return cli_usage_error("%s needs a value", options[k].name);
            if (m > 0) {
                int rc = take(options[k].name, value);
                if (rc != CLI_OK)
                    return rc;
            }
        }
        if (used) {
            i += used;
            continue;
        }
        argv[out++] = argv[i++];
    }
    argv[out] = NULL;
    *argc = out;
    return CLI_OK;
}

struct basalt_io_store *cli_store(struct basalt_error *err)
{
    if (state.store)
        return state.store;
    struct basalt_io_options o;
    basalt_io_options_init(&o);
    o.endpoint = state.endpoint;
    o.region = state.region;
    o.profile = state.profile;
    o.anonymous = state.anonymous;
    if (state.have_cache)
        o.cache_bytes = state.cache_bytes;
    o.addressing = state.addressing;
    o.tls_verify = !state.insecure;
    o.ca_file = state.ca_file;
    if (state.part_size)
        o.part_size = state.part_size;
    if (state.parts_in_flight)
        o.parts_in_flight = state.parts_in_flight;
    if (state.max_concurrency)
        o.max_concurrency = state.max_concurrency;
    if (state.have_gap)
        o.coalesce_gap = state.coalesce_gap;
    if (state.split_size)
        o.split_size = state.split_size;
    if (state.no_prefetch)
        o.prefetch = false;
    state.failed = basalt_io_store_new(&o, &state.store, err);
    if (state.failed != BASALT_OK) {
        basalt_error_context(err, state.failed, "object store");
        state.store = NULL;
    }
    return state.store;
}

/* "4.1 MiB", "512 B". */
static void human_bytes(uint64_t n, char *buf, size_t cap)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (n < 1024) {
        snprintf(buf, cap, "%llu B", (unsigned long long)n);
        return;
    }
    double v = (double)n / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", v, units[u]);
}

void cli_format_bytes(uint64_t n, char *buf, size_t cap)
{
    human_bytes(n, buf, cap);
}

bool cli_store_stats_wanted(void) { return state.stats; }

void cli_store_finish(void)
{
    if (state.stats) {
        struct basalt_io_stats s;
        basalt_io_store_stats(state.store, &s); /* zeros when no store was made */
        char in[32], out[32];
        human_bytes(s.bytes_received, in, sizeof in);
        human_bytes(s.bytes_sent, out, sizeof out);
        /* Exact byte counts too, for scripts that check request budgets. */
        fprintf(stderr,
                "io: %llu requests (%llu retries, %llu failed), %s received, %s sent "
                "(%llu and %llu bytes)\n",
                (unsigned long long)s.requests, (unsigned long long)s.retries,
                (unsigned long long)s.failures, in, out, (unsigned long long)s.bytes_received,
                (unsigned long long)s.bytes_sent);
        fprintf(stderr, "io: %llu opens and reads served from the cache\n",
                (unsigned long long)s.cache_hits);
        fprintf(stderr, "io: %llu prefetched bodies held back for one needed sooner\n",
                (unsigned long long)s.held_back);
    }
    basalt_io_store_free(state.store);
    state.store = NULL;
}

bool cli_is_remote(const char *uri)
{
    return basalt_io_uri_is_remote(uri);
}

/* The path a local uri names: a plain path, file://PATH or file:PATH. */
static const char *local_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0)
        return uri + 7;
    if (strncmp(uri, "file:", 5) == 0)
        return uri + 5;
    return uri;
}

basalt_status cli_open_input(const char *uri, struct basalt_input **in, struct basalt_error *err)
{
    return cli_open_input_flags(uri, 0, in, err);
}

basalt_status cli_open_input_flags(const char *uri, unsigned flags, struct basalt_input **in,
                                   struct basalt_error *err)
{
    *in = NULL;
    if (!cli_is_remote(uri))
        return basalt_input_open_file(local_path(uri), false, in, err);
    struct basalt_io_store *store = cli_store(err);
    if (!store)
        return state.failed;
    return basalt_io_open_input_flags(store, uri, flags, in, err);
}

basalt_status cli_open_text_input(const char *uri, struct basalt_input **in,
                                  struct basalt_error *err)
{
    *in = NULL;
    if (!cli_is_remote(uri))
        return basalt_input_open_file(local_path(uri), true, in, err);
    struct basalt_input *remote;
    basalt_status st = cli_open_input_flags(uri, BASALT_IO_SEQUENTIAL, &remote, err);
    if (st == BASALT_OK)
        st = basalt_input_spool(remote, NULL, in, err);
    basalt_input_close(remote);
    return st;
}

basalt_status cli_open_output(const char *uri, unsigned flags, struct basalt_output **out,
                              struct basalt_error *err)
{
    *out = NULL;
    if (!cli_is_remote(uri))
        return basalt_io_open_output(NULL, uri, flags, out, err);
    struct basalt_io_store *store = cli_store(err);
    if (!store)
        return state.failed;
    return basalt_io_open_output(store, uri, flags, out, err);
}
