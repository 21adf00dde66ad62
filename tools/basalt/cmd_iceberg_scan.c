/* basalt iceberg files|scan|count. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_scan.h"
#include "cli.h"
#include "cmd_iceberg.h"
#include "format.h"

#define MAX_COLUMNS 1024

struct scan_args {
    const char *verb;
    struct cli_iceberg_common common;
    const char *table;
    const char *where;
    char *columns_text;
    const char *columns[MAX_COLUMNS];
    size_t n_columns;
    bool has_columns;
    bool has_snapshot;
    int64_t snapshot;
    const char *ref;
    bool has_as_of;
    int64_t as_of;
    enum cli_format_kind format;
    int threads;
    int64_t limit;
    int64_t batch_size;
    bool no_prune;
};

static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool digits(const char **p, int n, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9')
            return false;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return true;
}

/* Epoch milliseconds, or ISO-8601 "YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|+HH:MM|-HH:MM]" (UTC when no zone). */
bool cli_parse_time(const char *s, int64_t *ms)
{
    const char *p = s;
    bool all_digits = *p != '\0';
    for (const char *q = s; *q; q++)
        if ((*q < '0' || *q > '9') && !(q == s && *q == '-'))
            all_digits = false;
    if (all_digits) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (*end != '\0')
            return false;
        *ms = v;
        return true;
    }
    int64_t y, mo, d, h = 0, mi = 0, sec = 0, frac = 0;
    if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' || !digits(&p, 2, &d))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    if (*p == 'T' || *p == ' ') {
        p++;
        if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
            return false;
        if (*p == ':') {
            p++;
            if (!digits(&p, 2, &sec))
                return false;
            if (*p == '.') {
                p++;
                int n = 0;
                while (*p >= '0' && *p <= '9') {
                    if (n < 3)
                        frac = frac * 10 + (*p - '0');
                    n++;
                    p++;
                }
                for (; n < 3; n++)
                    frac *= 10;
            }
        }
    }
    int64_t offset_min = 0;
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1;
        int64_t oh, om = 0;
        if (!digits(&p, 2, &oh))
            return false;
        if (*p == ':')
            p++;
        if (*p && !digits(&p, 2, &om))
            return false;
        offset_min = sign * (oh * 60 + om);
    }
    if (*p != '\0' || h > 23 || mi > 59 || sec > 60)
        return false;
    *ms = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) - offset_min * 60) * 1000 + frac;
    return true;
}

static bool parse_i64(const char *s, int64_t *out)
{
    char *end;
    if (*s == '\0')
        return false;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0')
        return false;
    *out = v;
    return true;
}

static void usage(const char *verb)
{
    if (strcmp(verb, "files") == 0)
        printf("usage: basalt iceberg files TABLE [--where EXPR] [--snapshot ID | --ref NAME | --as-of TIME]\n\n"
               "Prints the scan plan: one line per task (path, records, delete files,\n"
               "residual filter, byte range when split), then the pruning counts.\n");
    else if (strcmp(verb, "scan") == 0)
        printf("usage: basalt iceberg scan TABLE [--columns a,b.c] [--where EXPR]\n"
               "                          [--snapshot ID | --ref NAME | --as-of TIME]\n"
               "                          [--format table|csv|json] [--threads N] [--limit N]\n"
               "                          [--batch-size N] [--no-prune]\n\n"
               "Reads the rows of a table snapshot (deletes applied). --columns also takes\n"
               "_file, _pos, _spec_id, _partition, and the v3 row lineage _row_id and\n"
               "_last_updated_sequence_number. --as-of takes ISO-8601 (UTC unless a\n"
               "zone is given) or epoch milliseconds. --batch-size sets the rows read per\n"
               "batch; --no-prune plans every file and filters only while reading (for\n"
               "checking the pruning).\n");
    else
        printf("usage: basalt iceberg count TABLE [--where EXPR] [--snapshot ID | --ref NAME | --as-of TIME]\n"
               "                           [--threads N]\n\n"
               "Counts the rows of a table snapshot (deletes applied): from the manifests\n"
               "when nothing has to be read.\n");
    printf("\nEXPR: SQL-like, e.g. \"a > 5 AND b = 'x' OR c IS NULL\", \"x IN (1, 2)\",\n"
           "\"s STARTS WITH 'ab'\", \"ts >= '2023-03-01T19:25:00'\".\n\n%s", cli_iceberg_common_help);
}

static int parse_args(const char *verb, int argc, char **argv, struct scan_args *a)
{
    memset(a, 0, sizeof *a);
    a->verb = verb;
    a->limit = -1;
    a->threads = 1;
    cli_iceberg_common_init(&a->common);
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&a->common, verb, argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') {
            if (a->table != NULL)
                return cli_usage_error("iceberg %s: one TABLE expected, got '%s' too", verb, arg);
            a->table = arg;
            continue;
        }
        if (strcmp(arg, "--no-prune") == 0) {
            a->no_prune = true;
            continue;
        }
        const char *val = NULL;
        const char *eq = strchr(arg, '=');
        char name[32];
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nlen >= sizeof name)
            return cli_usage_error("iceberg %s: unknown option '%s'", verb, arg);
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            return cli_usage_error("iceberg %s: %s wants a value", verb, name);
        bool scan_only = strcmp(verb, "scan") == 0;
        if (strcmp(name, "--where") == 0) {
            a->where = val;
        } else if (strcmp(name, "--snapshot") == 0 || strcmp(name, "--snapshot-id") == 0) {
            if (!parse_i64(val, &a->snapshot))
                return cli_usage_error("iceberg %s: --snapshot wants a snapshot id, got '%s'", verb, val);
            a->has_snapshot = true;
        } else if (strcmp(name, "--ref") == 0) {
            a->ref = val;
        } else if (strcmp(name, "--as-of") == 0) {
            if (!cli_parse_time(val, &a->as_of))
                return cli_usage_error("iceberg %s: --as-of wants ISO-8601 or epoch milliseconds, got '%s'",
                                       verb, val);
            a->has_as_of = true;
        } else if (strcmp(name, "--threads") == 0 && strcmp(verb, "files") != 0) {
            int64_t t;
            if (!parse_i64(val, &t) || t < 1 || t > 1024)
                return cli_usage_error("iceberg %s: --threads wants 1..1024, got '%s'", verb, val);
            a->threads = (int)t;
        } else if (strcmp(name, "--batch-size") == 0 && strcmp(verb, "files") != 0) {
            if (!parse_i64(val, &a->batch_size) || a->batch_size < 1)
                return cli_usage_error("iceberg %s: --batch-size wants a positive number, got '%s'", verb, val);
        } else if (scan_only && strcmp(name, "--columns") == 0) {
            a->has_columns = true;
            a->columns_text = (char *)(uintptr_t)val;
        } else if (scan_only && strcmp(name, "--format") == 0) {
            if (!cli_format_parse(val, &a->format))
                return cli_usage_error("iceberg %s: --format wants table, csv or json, got '%s'", verb, val);
        } else if (scan_only && strcmp(name, "--limit") == 0) {
            if (!parse_i64(val, &a->limit) || a->limit < 0)
                return cli_usage_error("iceberg %s: --limit wants a number >= 0, got '%s'", verb, val);
        } else {
            return cli_usage_error("iceberg %s: unknown option '%s'", verb, name);
        }
    }
    if (a->table == NULL)
        return cli_usage_error("iceberg %s: TABLE expected (try --help)", verb);
    if ((a->has_snapshot ? 1 : 0) + (a->ref ? 1 : 0) + (a->has_as_of ? 1 : 0) > 1)
        return cli_usage_error("iceberg %s: at most one of --snapshot, --ref and --as-of", verb);
    return CLI_OK;
}

/* The scan of the arguments; *table and *scan to free by the caller. */
struct session {
    struct basalt_iceberg_table *table;
    struct basalt_iceberg_scan *scan;
    struct basalt_pool *pool;
    struct basalt_arena arena;
    char *columns_copy;
};

static void session_close(struct session *s)
{
    if (s->scan != NULL && cli_store_stats_wanted()) {
        /* The scan's own requests (manifests, data and delete files), beside
         * the store's, which also count loading the table. */
        struct basalt_input_stats io;
        basalt_iceberg_scan_io_stats(s->scan, &io);
        fprintf(stderr, "scan: %llu requests, %llu bytes requested\n",
                (unsigned long long)io.requests, (unsigned long long)io.bytes_requested);
    }
    basalt_iceberg_scan_free(s->scan);
    basalt_iceberg_table_free(s->table);
    basalt_pool_free(s->pool);
    basalt_arena_reset(&s->arena);
    basalt_free(s->columns_copy);
}

static int session_open(struct scan_args *a, struct session *s)
{
    memset(s, 0, sizeof *s);
    basalt_arena_init(&s->arena, 4096);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    if (a->where != NULL) {
        struct basalt_iceberg_expr *e = NULL;
        basalt_status st = basalt_iceberg_expr_parse(a->where, &s->arena, &e, &err);
        if (st != BASALT_OK)
            return cli_usage_error("iceberg %s: --where: %s", a->verb, err.message);
        o.filter = e;
    }
    if (a->has_columns) {
        size_t len = strlen(a->columns_text);
        s->columns_copy = basalt_malloc(len + 1);
        if (s->columns_copy == NULL)
            return cli_fail("out of memory");
        memcpy(s->columns_copy, a->columns_text, len + 1);
        char *save = NULL;
        for (char *tok = strtok_r(s->columns_copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            while (*tok == ' ')
                tok++;
            if (*tok == '\0')
                continue;
            if (a->n_columns == MAX_COLUMNS)
                return cli_usage_error("iceberg %s: more than %d columns", a->verb, MAX_COLUMNS);
            a->columns[a->n_columns++] = tok;
        }
        o.columns = a->columns;
        o.n_columns = a->n_columns;
    }
    o.has_snapshot_id = a->has_snapshot;
    o.snapshot_id = a->snapshot;
    o.ref = a->ref;
    o.has_as_of = a->has_as_of;
    o.as_of_ms = a->as_of;
    o.prune = !a->no_prune;
    if (a->batch_size > 0)
        o.batch_size = a->batch_size;
    if (a->threads > 1) {
        basalt_status st = basalt_pool_new(a->threads - 1, &s->pool, &err);
        if (st != BASALT_OK)
            return cli_fail_error(&err);
        o.pool = s->pool;
        o.num_workers = a->threads;
    }
    int rc = cli_iceberg_open_table(a->table, &a->common, &s->table);
    if (rc != CLI_OK)
        return rc;
    basalt_status st = basalt_iceberg_scan_new(s->table, &o, &s->scan, &err);
    if (st == BASALT_NOT_FOUND || st == BASALT_INVALID_ARG)
        return cli_fail("iceberg %s: %s", a->verb, err.message);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    return CLI_OK;
}

int cli_iceberg_files(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        usage("files");
        return CLI_OK;
    }
    struct scan_args a;
    int rc = parse_args("files", argc, argv, &a);
    if (rc != CLI_OK)
        return rc;
    struct session s;
    rc = session_open(&a, &s);
    if (rc == CLI_OK) {
        struct basalt_error err;
        basalt_error_init(&err);
        const struct basalt_iceberg_plan *plan = NULL;
        basalt_status st = basalt_iceberg_scan_plan(s.scan, &plan, &err);
        if (st != BASALT_OK) {
            rc = cli_fail_error(&err);
        } else {
            static char residual[8192];
            for (uint32_t i = 0; i < plan->n_tasks; i++) {
                const struct basalt_iceberg_file_task *t = &plan->tasks[i];
                if (basalt_iceberg_expr_to_string(t->residual, residual, sizeof residual) != BASALT_OK)
                    snprintf(residual, sizeof residual, "(too long)");
                printf("%s\t%" PRId64 "\t%" PRIu32 "\t%s", t->file->file_path, t->file->record_count,
                       t->n_deletes, residual);
                if (t->start != 0 || t->length != t->file->file_size_in_bytes)
                    printf("\t%" PRId64 "+%" PRId64, t->start, t->length);
                printf("\n");
            }
            printf("# tasks %" PRIu32 ", manifests %" PRIu32 " (skipped %" PRIu32 "), data files %" PRIu32
                   " (skipped %" PRIu32 " by partition, %" PRIu32 " by metrics), delete files %" PRIu32 "\n",
                   plan->n_tasks, plan->manifests_total, plan->manifests_skipped, plan->data_files_total,
                   plan->files_skipped_by_partition, plan->files_skipped_by_metrics, plan->delete_files);
        }
    }
    session_close(&s);
    return rc;
}

int cli_iceberg_scan(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        usage("scan");
        return CLI_OK;
    }
    struct scan_args a;
    int rc = parse_args("scan", argc, argv, &a);
    if (rc != CLI_OK)
        return rc;
    struct session s;
    rc = session_open(&a, &s);
    if (rc != CLI_OK) {
        session_close(&s);
        return rc;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    schema.release = NULL;
    stream.release = NULL;
    struct cli_format_writer *w = NULL;
    basalt_status st = basalt_iceberg_scan_stream(s.scan, &stream, &err);
    if (st == BASALT_OK && stream.get_schema(&stream, &schema) != 0)
        st = basalt_error_set(&err, BASALT_IO, "%s", stream.get_last_error(&stream));
    if (st == BASALT_OK)
        st = cli_format_writer_new(stdout, a.format, &schema, NULL, 0, &w, &err);
    int64_t printed = 0;
    while (st == BASALT_OK && (a.limit < 0 || printed < a.limit)) {
        struct ArrowArray b;
        if (stream.get_next(&stream, &b) != 0) {
            const char *m = stream.get_last_error(&stream);
            fprintf(stderr, "basalt: %s\n", m ? m : "scan failed");
            rc = CLI_FAILURE;
            break;
        }
        if (b.release == NULL)
            break;
        for (int64_t row = 0; row < b.length && st == BASALT_OK; row++) {
            if (a.limit >= 0 && printed >= a.limit)
                break;
            st = cli_format_writer_row(w, &b, row, &err);
            printed++;
        }
        basalt_arrow_array_release(&b);
    }
    if (st == BASALT_OK && rc == CLI_OK)
        st = cli_format_writer_finish(w, &err);
    cli_format_writer_free(w);
    basalt_arrow_schema_release(&schema);
    basalt_arrow_stream_release(&stream);
    if (st != BASALT_OK)
        rc = cli_fail_error(&err);
    session_close(&s);
    return rc;
}

int cli_iceberg_count(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        usage("count");
        return CLI_OK;
    }
    struct scan_args a;
    int rc = parse_args("count", argc, argv, &a);
    if (rc != CLI_OK)
        return rc;
    struct session s;
    rc = session_open(&a, &s);
    if (rc == CLI_OK) {
        struct basalt_error err;
        basalt_error_init(&err);
        int64_t n = 0;
        basalt_status st = basalt_iceberg_scan_count(s.scan, &n, &err);
        if (st != BASALT_OK)
            rc = cli_fail_error(&err);
        else
            printf("%" PRId64 "\n", n);
    }
    session_close(&s);
    return rc;
}
