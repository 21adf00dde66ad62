/* basalt json: schema, cat, convert and scan of JSON-lines files. */
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "basalt/json.h"
#include "batch_source.h"
#include "cli.h"
#include "cli_csv.h"
#include "format.h"

static const char read_help[] =
    "reading options (whatever is not given is inferred from the first records):\n"
    "  --columns SPEC     explicit columns 'name=TYPE,...'; types: BOOLEAN, TINYINT,\n"
    "                     SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, VARCHAR, DATE,\n"
    "                     TIMESTAMP, TIMESTAMPTZ, T[], STRUCT(name T, ...)\n"
    "  --sample N         records inferred from (default 20480; -1: all)\n"
    "  --max-record-size N  bytes of one line at most (default 16777216)\n"
    "  --max-depth N      nesting of objects and arrays at most (default 64)\n"
    "  --batch-size N     rows per batch at most (default 65536)\n"
    "  --chunk-size N     bytes per parallel chunk (default 2097152)\n"
    "  --threads N        parse on N threads (default 1)\n"
    "  --reader-stats     print the reader's counters on stderr\n";

struct json_args {
    struct basalt_json_read_options opts;
    int threads;
    bool stats;
    char *text;          /* the --columns text, split in place */
    const char **names;
    const char **types;
};

static void args_init(struct json_args *a)
{
    memset(a, 0, sizeof *a);
    basalt_json_read_options_init(&a->opts);
    a->threads = 1;
}

static void args_free(struct json_args *a)
{
    basalt_free(a->text);
    basalt_free(a->names);
    basalt_free(a->types);
    memset(a, 0, sizeof *a);
}

static bool parse_count(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* 'name=TYPE,...' split at commas outside parentheses. */
static int parse_columns(struct json_args *a, const char *verb, const char *spec)
{
    basalt_free(a->text);
    basalt_free(a->names);
    basalt_free(a->types);
    size_t cap = 1;
    for (const char *p = spec; *p; p++)
        cap += *p == ',';
    a->text = basalt_strdup(spec);
    a->names = basalt_calloc(cap, sizeof *a->names);
    a->types = basalt_calloc(cap, sizeof *a->types);
    if (!a->text || !a->names || !a->types)
        return cli_usage_error("%s: out of memory", verb);
    size_t n = 0;
    int depth = 0;
    char *item = a->text;
    for (char *p = a->text;; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        if ((*p == ',' && depth == 0) || !*p) {
            bool last = !*p;
            *p = 0;
            char *eq = strchr(item, '=');
            if (!eq || eq == item)
                return cli_usage_error("%s: --columns wants 'name=TYPE,...', got '%s'", verb,
                                       item);
            *eq = 0;
            a->names[n] = item;
            a->types[n++] = eq + 1;
            item = p + 1;
            if (last)
                break;
        }
    }
    a->opts.names = a->names;
    a->opts.types = a->types;
    a->opts.n_columns = n;
    return CLI_OK;
}

/* One reading option at argv[*i]; *taken tells whether it was one. */
static int read_option(struct json_args *a, const char *verb, int argc, char **argv, int *i,
                       bool *taken)
{
    *taken = true;
    const char *o = argv[*i];
    if (strcmp(o, "--reader-stats") == 0) {
        a->stats = true;
        return CLI_OK;
    }
    static const char *const with_value[] = {"--columns",   "--sample",     "--max-record-size",
                                             "--max-depth", "--batch-size", "--chunk-size",
                                             "--threads"};
    size_t k = 0;
    while (k < sizeof with_value / sizeof with_value[0] && strcmp(o, with_value[k]) != 0)
        k++;
    if (k == sizeof with_value / sizeof with_value[0] || *i + 1 >= argc) {
        *taken = false;
        return CLI_OK;
    }
    const char *v = argv[++*i];
    int64_t n;
    switch (k) {
    case 0: return parse_columns(a, verb, v);
    case 1:
        if (!parse_count(v, -1, INT64_MAX, &n))
            return cli_usage_error("%s: --sample wants a count or -1, got '%s'", verb, v);
        a->opts.sample_rows = n;
        return CLI_OK;
    case 2:
        if (!parse_count(v, 1, INT64_MAX, &n))
            return cli_usage_error("%s: --max-record-size wants a positive size", verb);
        a->opts.max_record_size = (size_t)n;
        return CLI_OK;
    case 3:
        if (!parse_count(v, 1, 100000, &n))
            return cli_usage_error("%s: --max-depth wants 1..100000", verb);
        a->opts.max_depth = (int32_t)n;
        return CLI_OK;
    case 4:
        if (!parse_count(v, 1, INT64_MAX, &n))
            return cli_usage_error("%s: --batch-size wants a positive count", verb);
        a->opts.batch_size = n;
        return CLI_OK;
    case 5:
        if (!parse_count(v, 1, INT64_MAX, &n))
            return cli_usage_error("%s: --chunk-size wants a positive size", verb);
        a->opts.chunk_size = (size_t)n;
        return CLI_OK;
    default:
        if (!parse_count(v, 1, 1024, &n))
            return cli_usage_error("%s: --threads wants 1..1024, got '%s'", verb, v);
        a->threads = (int)n;
        return CLI_OK;
    }
}

static bool is_json_name(const char *path)
{
    size_t n = strlen(path);
    return (n >= 5 && strcasecmp(path + n - 5, ".json") == 0) ||
           (n >= 6 && strcasecmp(path + n - 6, ".jsonl") == 0) ||
           (n >= 7 && strcasecmp(path + n - 7, ".ndjson") == 0);
}

static basalt_status open_reader(const char *uri, const struct basalt_json_read_options *o,
                                 struct basalt_json_reader **out, struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st;
    if (strcmp(uri, "-") == 0)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "reading JSON from stdin is not supported");
    if (!cli_is_remote(uri))
        st = basalt_input_open_file(strncmp(uri, "file://", 7) == 0 ? uri + 7 : uri, true, &in,
                                    err);
    else
        st = cli_open_text_input(uri, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_json_reader_open(in, true, o, out, err);
}

struct run {
    struct basalt_pool *pool;
    struct basalt_json_reader *reader;
};

static int open_run(const char *path, struct json_args *a, struct run *run,
                    struct basalt_error *err)
{
    memset(run, 0, sizeof *run);
    if (a->threads > 1 && basalt_pool_new(a->threads - 1, &run->pool, err) != BASALT_OK)
        return cli_fail_error(err);
    a->opts.pool = run->pool;
    if (open_reader(path, &a->opts, &run->reader, err) != BASALT_OK) {
        basalt_pool_free(run->pool);
        run->pool = NULL;
        return cli_fail_error(err);
    }
    return CLI_OK;
}

static void close_run(struct run *run, const struct json_args *a)
{
    if (a->stats && run->reader) {
        struct basalt_json_stats s;
        basalt_json_reader_stats(run->reader, &s);
        fprintf(stderr,
                "json: chunks %" PRId64 ", windows %" PRId64 ", rows %" PRId64
                ", sampled %" PRId64 "\n",
                s.chunks, s.windows, s.rows, s.sample_rows);
    }
    basalt_json_reader_close(run->reader);
    basalt_pool_free(run->pool);
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

/* Parses the command line: reading options, the verb's own (`own` returns
 * true when it took argv[*i]) and up to `max_paths` paths. */
typedef int (*own_option)(void *ctx, const char *verb, int argc, char **argv, int *i,
                          bool *taken);

static int parse_args(struct json_args *a, const char *verb, int argc, char **argv,
                      own_option own, void *ctx, const char **paths, int max_paths, int *n_paths)
{
    int rc = CLI_OK;
    *n_paths = 0;
    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        bool taken = false;
        rc = read_option(a, verb, argc, argv, &i, &taken);
        if (rc != CLI_OK || taken)
            continue;
        if (own) {
            rc = own(ctx, verb, argc, argv, &i, &taken);
            if (rc != CLI_OK || taken)
                continue;
        }
        if (argv[i][0] == '-' && argv[i][1])
            rc = cli_usage_error("%s: unknown option '%s'", verb, argv[i]);
        else if (*n_paths == max_paths)
            rc = cli_usage_error("%s: unexpected argument '%s'", verb, argv[i]);
        else
            paths[(*n_paths)++] = argv[i];
    }
    if (rc == CLI_OK && *n_paths < max_paths)
        rc = cli_usage_error("%s: expected %s", verb, max_paths == 1 ? "FILE" : "IN OUT");
    return rc;
}

/* ------------------------------------------------------------------ schema */

/* DuckDB-style type text of a column ("BIGINT", "STRUCT(a VARCHAR)[]"). */
static void type_text(const struct ArrowSchema *s, struct basalt_buffer *b)
{
    static const struct {
        const char *format, *name;
    } names[] = {{"b", "BOOLEAN"},   {"c", "TINYINT"},   {"s", "SMALLINT"},
                 {"i", "INTEGER"},   {"l", "BIGINT"},    {"f", "FLOAT"},
                 {"g", "DOUBLE"},    {"u", "VARCHAR"},   {"tdD", "DATE"},
                 {"tsu:", "TIMESTAMP"}, {"tsu:UTC", "TIMESTAMPTZ"}};
    if (strcmp(s->format, "+l") == 0) {
        type_text(s->children[0], b);
        basalt_buffer_append(b, "[]", 2, NULL);
        return;
    }
    if (strcmp(s->format, "+s") == 0) {
        basalt_buffer_append(b, "STRUCT(", 7, NULL);
        for (int64_t i = 0; i < s->n_children; i++) {
            if (i)
                basalt_buffer_append(b, ", ", 2, NULL);
            const char *n = s->children[i]->name;
            bool plain = n[0] != 0;
            for (const char *p = n; *p && plain; p++)
                plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                        (*p >= '0' && *p <= '9') || *p == '_';
            if (!plain)
                basalt_buffer_append(b, "\"", 1, NULL);
            basalt_buffer_append(b, n, strlen(n), NULL);
            basalt_buffer_append(b, plain ? " " : "\" ", plain ? 1 : 2, NULL);
            type_text(s->children[i], b);
        }
        basalt_buffer_append(b, ")", 1, NULL);
        return;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].format, s->format) == 0) {
            basalt_buffer_append(b, names[i].name, strlen(names[i].name), NULL);
            return;
        }
    basalt_buffer_append(b, s->format, strlen(s->format), NULL);
}

static int schema_own(void *ctx, const char *verb, int argc, char **argv, int *i, bool *taken)
{
    bool *json = ctx;
    *taken = strcmp(argv[*i], "--format") == 0 && *i + 1 < argc;
    if (!*taken)
        return CLI_OK;
    const char *f = argv[++*i];
    if (strcmp(f, "json") == 0)
        *json = true;
    else if (strcmp(f, "table") != 0)
        return cli_usage_error("%s: --format wants table or json", verb);
    return CLI_OK;
}

static int cmd_schema(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt json schema FILE [--format table|json] [reading options]\n\n"
               "Prints the columns of a JSON-lines file as the reader types them.\n\n%s",
               read_help);
        return CLI_OK;
    }
    struct json_args a;
    args_init(&a);
    bool json = false;
    const char *path;
    int n;
    int rc = parse_args(&a, "json schema", argc, argv, schema_own, &json, &path, 1, &n);
    struct basalt_error err;
    basalt_error_init(&err);
    struct run run;
    if (rc == CLI_OK)
        rc = open_run(path, &a, &run, &err);
    if (rc != CLI_OK) {
        args_free(&a);
        return rc;
    }
    struct ArrowSchema s;
    basalt_status st = basalt_json_reader_schema(run.reader, &s, &err);
    if (st == BASALT_OK) {
        struct basalt_buffer b;
        basalt_buffer_init(&b);
        int width = 6;
        for (int64_t c = 0; c < s.n_children; c++)
            if ((int)strlen(s.children[c]->name) > width)
                width = (int)strlen(s.children[c]->name);
        if (json)
            printf("{\"columns\":[");
        else
            printf("%-*s  %s\n", width, "column", "type");
        for (int64_t c = 0; c < s.n_children; c++) {
            b.size = 0;
            type_text(s.children[c], &b);
            if (json) {
                struct basalt_buffer nb;
                basalt_buffer_init(&nb);
                const char *name = s.children[c]->name;
                basalt_json_append_string(&nb, (const uint8_t *)name, strlen(name), NULL);
                printf("%s{\"name\":%.*s,\"type\":", c ? "," : "", (int)nb.size,
                       (const char *)nb.data);
                nb.size = 0;
                basalt_json_append_string(&nb, b.data, b.size, NULL);
                printf("%.*s}", (int)nb.size, (const char *)nb.data);
                basalt_buffer_reset(&nb);
            } else {
                printf("%-*s  %.*s\n", width, s.children[c]->name, (int)b.size,
                       (const char *)b.data);
            }
        }
        if (json)
            printf("]}\n");
        basalt_buffer_reset(&b);
        basalt_arrow_schema_release(&s);
    }
    close_run(&run, &a);
    args_free(&a);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* ------------------------------------------------------------------ cat */

struct cat_opts {
    enum cli_format_kind format;
    int64_t limit;
};

static int cat_own(void *ctx, const char *verb, int argc, char **argv, int *i, bool *taken)
{
    struct cat_opts *c = ctx;
    *taken = (strcmp(argv[*i], "--format") == 0 || strcmp(argv[*i], "--limit") == 0) &&
             *i + 1 < argc;
    if (!*taken)
        return CLI_OK;
    if (strcmp(argv[*i], "--format") == 0) {
        if (!cli_format_parse(argv[++*i], &c->format))
            return cli_usage_error("%s: --format wants table, csv or json", verb);
    } else if (!parse_count(argv[++*i], 0, INT64_MAX, &c->limit)) {
        return cli_usage_error("%s: --limit wants a count", verb);
    }
    return CLI_OK;
}

static int cmd_cat(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt json cat FILE [--format table|csv|json] [--limit N]\n"
               "                           [reading options]\n\n"
               "Prints the rows of a JSON-lines file as the reader types them.\n\n%s",
               read_help);
        return CLI_OK;
    }
    struct json_args a;
    args_init(&a);
    struct cat_opts co = {CLI_FORMAT_TABLE, -1};
    const char *path;
    int n;
    int rc = parse_args(&a, "json cat", argc, argv, cat_own, &co, &path, 1, &n);
    struct basalt_error err;
    basalt_error_init(&err);
    struct run run;
    if (rc == CLI_OK)
        rc = open_run(path, &a, &run, &err);
    if (rc != CLI_OK) {
        args_free(&a);
        return rc;
    }
    struct ArrowSchema schema = {0};
    struct cli_format_writer *w = NULL;
    basalt_status st = basalt_json_reader_schema(run.reader, &schema, &err);
    if (st == BASALT_OK)
        st = cli_format_writer_new(stdout, co.format, &schema, NULL, 0, &w, &err);
    int64_t shown = 0;
    while (st == BASALT_OK && (co.limit < 0 || shown < co.limit)) {
        struct ArrowArray batch;
        st = basalt_json_reader_next(run.reader, &batch, &err);
        if (st != BASALT_OK || !batch.release)
            break;
        for (int64_t r = 0; st == BASALT_OK && r < batch.length &&
                            (co.limit < 0 || shown < co.limit);
             r++, shown++)
            st = cli_format_writer_row(w, &batch, r, &err);
        basalt_arrow_array_release(&batch);
    }
    if (st == BASALT_OK)
        st = cli_format_writer_finish(w, &err);
    cli_format_writer_free(w);
    basalt_arrow_schema_release(&schema);
    if (fflush(stdout) != 0 && st == BASALT_OK)
        st = basalt_error_set(&err, BASALT_IO, "write to stdout failed");
    close_run(&run, &a);
    args_free(&a);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* ------------------------------------------------------------------ convert */

static int cmd_convert(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt json convert IN OUT [reading options]\n\n"
               "Reads IN (JSON lines by its .json/.jsonl/.ndjson name, else Parquet, Avro\n"
               "or CSV) and writes its rows to OUT: JSON lines when OUT has such a name,\n"
               "CSV for .csv, else one Parquet file (zstd).\n\n%s",
               read_help);
        return CLI_OK;
    }
    struct json_args a;
    args_init(&a);
    const char *paths[2];
    int n;
    int rc = parse_args(&a, "json convert", argc, argv, NULL, NULL, paths, 2, &n);
    struct basalt_error err;
    basalt_error_init(&err);
    struct run run;
    memset(&run, 0, sizeof run);
    struct cli_batch_source *src = NULL;
    if (rc == CLI_OK && is_json_name(paths[0])) {
        rc = open_run(paths[0], &a, &run, &err);
    } else if (rc == CLI_OK) {
        if (a.threads > 1 && basalt_pool_new(a.threads - 1, &run.pool, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
        else if (cli_batch_source_open(paths[0], run.pool, &src, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
    }
    if (rc != CLI_OK) {
        basalt_pool_free(run.pool);
        args_free(&a);
        return rc;
    }
    const char *outp = paths[1];
    struct ArrowSchema schema = {0};
    struct basalt_json_writer *jw = NULL;
    struct basalt_csv_writer *cw = NULL;
    struct basalt_parquet_writer *pw = NULL;
    struct basalt_output *o = NULL;
    basalt_status st = src ? basalt_arrow_schema_copy(cli_batch_source_schema(src), &schema, &err)
                           : basalt_json_reader_schema(run.reader, &schema, &err);
    if (st == BASALT_OK)
        st = cli_open_output(outp, 0, &o, &err);
    if (st == BASALT_OK) {
        if (is_json_name(outp))
            st = basalt_json_writer_open(o, true, &schema, NULL, &jw, &err);
        else if (cli_csv_is_csv_name(outp))
            st = basalt_csv_writer_open(o, true, &schema, NULL, &cw, &err);
        else
            st = basalt_parquet_writer_open(o, true, &schema, NULL, &pw, &err);
        o = NULL;
    }
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        st = src ? cli_batch_source_next(src, &batch, &err)
                 : basalt_json_reader_next(run.reader, &batch, &err);
        if (st != BASALT_OK || !batch.release)
            break;
        st = jw ? basalt_json_writer_write(jw, &batch, &err)
             : cw ? basalt_csv_writer_write(cw, &batch, &err)
                  : basalt_parquet_writer_write(pw, &batch, &err);
        basalt_arrow_array_release(&batch);
    }
    if (st == BASALT_OK)
        st = jw   ? basalt_json_writer_finish(jw, &err)
             : cw ? basalt_csv_writer_finish(cw, &err)
                  : basalt_parquet_writer_finish(pw, &err);
    int64_t rows = jw   ? basalt_json_writer_num_rows(jw)
                   : cw ? basalt_csv_writer_num_rows(cw)
                   : pw ? basalt_parquet_writer_num_rows(pw)
                        : 0;
    basalt_json_writer_close(jw);
    basalt_csv_writer_close(cw);
    basalt_parquet_writer_close(pw);
    basalt_output_close(o);
    basalt_arrow_schema_release(&schema);
    cli_batch_source_close(src);
    close_run(&run, &a);
    args_free(&a);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    fprintf(stderr, "wrote %" PRId64 " rows to %s\n", rows, outp);
    return CLI_OK;
}

/* ------------------------------------------------------------------ scan */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

struct scan_opts {
    int64_t repeat, warmup;
};

static int scan_own(void *ctx, const char *verb, int argc, char **argv, int *i, bool *taken)
{
    struct scan_opts *s = ctx;
    *taken = (strcmp(argv[*i], "--repeat") == 0 || strcmp(argv[*i], "--warmup") == 0) &&
             *i + 1 < argc;
    if (!*taken)
        return CLI_OK;
    bool rep = strcmp(argv[*i], "--repeat") == 0;
    if (!parse_count(argv[++*i], rep ? 1 : 0, 100000, rep ? &s->repeat : &s->warmup))
        return cli_usage_error("%s: --repeat and --warmup want counts", verb);
    return CLI_OK;
}

static int cmd_scan(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt json scan FILE [--repeat K [--warmup W]] [reading options]\n\n"
               "Reads every row into Arrow memory and frees it, K times after W untimed\n"
               "reads; prints the rows and the p50 and p90 time of one read (open,\n"
               "inference, parse).\n\n%s",
               read_help);
        return CLI_OK;
    }
    struct json_args a;
    args_init(&a);
    struct scan_opts so = {1, 0};
    const char *path;
    int n;
    int rc = parse_args(&a, "json scan", argc, argv, scan_own, &so, &path, 1, &n);
    if (rc != CLI_OK) {
        args_free(&a);
        return rc;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool = NULL;
    if (a.threads > 1 && basalt_pool_new(a.threads - 1, &pool, &err) != BASALT_OK) {
        args_free(&a);
        return cli_fail_error(&err);
    }
    a.opts.pool = pool;
#ifdef __GLIBC__
    /* keep freed batch memory for the next read, as the peers' allocators do */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    double *times = basalt_calloc((size_t)(so.repeat + so.warmup), sizeof *times);
    basalt_status st = times ? BASALT_OK : basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    int64_t rows = 0;
    for (int64_t k = 0; st == BASALT_OK && k < so.repeat + so.warmup; k++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        struct basalt_json_reader *r = NULL;
        st = open_reader(path, &a.opts, &r, &err);
        rows = 0;
        while (st == BASALT_OK) {
            struct ArrowArray batch;
            st = basalt_json_reader_next(r, &batch, &err);
            if (st != BASALT_OK || !batch.release)
                break;
            rows += batch.length;
            basalt_arrow_array_release(&batch);
        }
        basalt_json_reader_close(r);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        times[k] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    }
    if (st == BASALT_OK) {
        qsort(times + so.warmup, (size_t)so.repeat, sizeof *times, cmp_double);
        const double *t = times + so.warmup;
        int64_t i50 = (so.repeat * 50 + 99) / 100 - 1, i90 = (so.repeat * 90 + 99) / 100 - 1;
        printf("rows: %" PRId64 "\nthreads: %d\nreads: %" PRId64 "\np50: %.3f ms\np90: %.3f ms\n",
               rows, a.threads, so.repeat, t[i50 < 0 ? 0 : i50], t[i90 < 0 ? 0 : i90]);
    }
    basalt_free(times);
    basalt_pool_free(pool);
    args_free(&a);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

int cli_json_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"schema", "print the columns as inferred", cmd_schema},
        {"cat", "print rows as a table, CSV or JSON lines", cmd_cat},
        {"convert", "JSON lines to Parquet/CSV/JSON, and other files to JSON lines",
         cmd_convert},
        {"scan", "read every row into Arrow memory, timed", cmd_scan},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("json", verbs, argc, argv);
}
