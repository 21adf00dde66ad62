/* Exercises one object-store prefix through basalt's store API, for the
 * tests/cli/io_store_*.sh and io_faults.sh cases.
 *
 *   store_check [flags] PREFIX            every check below; one "ok" or
 *                                         "FAIL" line each, exit 1 on a FAIL
 *   store_check [flags] --faults N PREFIX N write/read round trips; each is
 *                                         identical bytes or a clear error
 *   store_check [flags] --write-fail SIZE URI   a write that must fail and
 *                                         leave nothing under URI
 *   store_check [flags] --cat URI         the object's bytes on stdout
 *   store_check [flags] --put URI         stdin as one object
 *
 * The store is configured from the environment plus the flags (see usage()).
 * Objects go under PREFIX/sc-<random>/ and are deleted at the end. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basalt/io.h"
#include "store_check.h"

static int failures;

void sc_report(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s: ", ok ? "ok" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    if (!ok)
        failures++;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: store_check [flags] PREFIX | --faults N PREFIX | --write-fail SIZE URI | "
            "--cat URI | --put URI\n"
            "flags: --endpoint URL --part-size N --parts-in-flight N --footer-tail N\n"
            "       --coalesce-gap N --split-size N --stall-timeout-ms N --max-attempts N\n"
            "       --retry-base-ms N --retry-max-ms N --anonymous --sas TOKEN\n"
            "       --connection-string S --azure-key KEY --addressing path|virtual\n"
            "       --skip-list (no listing checks) --max-size N (--faults objects)\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    struct basalt_io_options o;
    basalt_io_options_init(&o);
    uint64_t faults = 0, write_fail = 0, max_size = 0;
    const char *cat = NULL, *put = NULL;
    bool want_faults = false, want_write_fail = false, skip_list = false;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n = 0;
        bool num = v && parse_u64(v, &n);
        if (strcmp(a, "--anonymous") == 0 || strcmp(a, "--skip-list") == 0) {
            o.anonymous |= strcmp(a, "--anonymous") == 0;
            skip_list |= strcmp(a, "--skip-list") == 0;
            continue;
        }
        if (!v) {
            usage();
            return 2;
        }
        i++;
        if (strcmp(a, "--endpoint") == 0)
            o.endpoint = o.azure_endpoint = v;
        else if (strcmp(a, "--sas") == 0)
            o.azure_sas_token = v;
        else if (strcmp(a, "--connection-string") == 0)
            o.azure_connection_string = v;
        else if (strcmp(a, "--azure-key") == 0)
            o.azure_key = v;
        else if (strcmp(a, "--addressing") == 0)
            o.addressing = strcmp(v, "virtual") == 0 ? BASALT_IO_ADDRESSING_VIRTUAL
                                                     : BASALT_IO_ADDRESSING_PATH;
        else if (strcmp(a, "--cat") == 0)
            cat = v;
        else if (strcmp(a, "--put") == 0)
            put = v;
        else if (!num) {
            fprintf(stderr, "store_check: %s needs a number\n", a);
            return 2;
        } else if (strcmp(a, "--part-size") == 0)
            o.part_size = n;
        else if (strcmp(a, "--parts-in-flight") == 0)
            o.parts_in_flight = (uint32_t)n;
        else if (strcmp(a, "--footer-tail") == 0)
            o.footer_tail = n;
        else if (strcmp(a, "--coalesce-gap") == 0)
            o.coalesce_gap = n;
        else if (strcmp(a, "--split-size") == 0)
            o.split_size = n;
        else if (strcmp(a, "--stall-timeout-ms") == 0)
            o.stall_timeout_ms = (uint32_t)n;
        else if (strcmp(a, "--max-attempts") == 0)
            o.max_attempts = (uint32_t)n;
        else if (strcmp(a, "--retry-base-ms") == 0)
            o.retry_base_ms = (uint32_t)n;
        else if (strcmp(a, "--retry-max-ms") == 0)
            o.retry_max_ms = (uint32_t)n;
        else if (strcmp(a, "--max-size") == 0)
            max_size = n;
        else if (strcmp(a, "--faults") == 0)
            faults = n, want_faults = true;
        else if (strcmp(a, "--write-fail") == 0)
            write_fail = n, want_write_fail = true;
        else {
            usage();
            return 2;
        }
    }
    if (!cat && !put && i != argc - 1) {
        usage();
        return 2;
    }
    struct basalt_io_store *store = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_io_store_new(&o, &store, &err) != BASALT_OK) {
        fprintf(stderr, "store_check: %s\n", err.message);
        return 1;
    }
    if (cat || put) {
        int rc = cat ? sc_cat(store, cat) : sc_put(store, put);
        basalt_io_store_free(store);
        return rc;
    }
    const char *target = argv[i];
    if (want_write_fail) {
        sc_write_fail(store, target, (size_t)write_fail);
    } else {
        /* A root of our own: runs never see each other's objects. */
        char root[1024];
        size_t n = strlen(target);
        srand((unsigned)time(NULL) ^ (unsigned)getpid());
        snprintf(root, sizeof root, "%s%ssc-%d-%08x/", target,
                 n && target[n - 1] == '/' ? "" : "/", (int)getpid(), (unsigned)rand());
        struct sc_context c = {.store = store, .options = &o, .root = root,
                               .part_size = o.part_size, .max_size = max_size,
                               .skip_list = skip_list};
        if (want_faults)
            sc_faults(&c, (unsigned)faults);
        else
            sc_all_checks(&c);
    }
    struct basalt_io_stats stats;
    basalt_io_store_stats(store, &stats);
    printf("store stats: requests=%" PRIu64 " retries=%" PRIu64 " failures=%" PRIu64
           " bytes_sent=%" PRIu64 " bytes_received=%" PRIu64 "\n",
           stats.requests, stats.retries, stats.failures, stats.bytes_sent,
           stats.bytes_received);
    basalt_io_store_free(store);
    printf("%d failed\n", failures);
    return failures ? 1 : 0;
}
