/* basalt csv: schema, cat and convert of delimited text files. */
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "batch_source.h"
#include "cli.h"
#include "cli_csv.h"
#include "format.h"

const char cli_csv_read_help[] =
    "reading options (whatever is not given is sniffed from the first records):\n"
    "  --delimiter C      field delimiter: a character, 'tab' or '\\t'\n"
    "  --quote C          quote character; --no-quote: no quoting\n"
    "  --escape KIND      'doubled' (\"\" in quoted fields, default) or 'backslash'\n"
    "  --header, --no-header   whether the first record names the columns\n"
    "  --names A,B,...    column names\n"
    "  --types SPEC       column types: 'int64,double,...' by position, or\n"
    "                     'name=type,...' by name; types: bool, int32, int64, float,\n"
    "                     double, decimal(P,S), date, timestamp, timestamptz, string\n"
    "  --null TEXT        an unquoted field equal to TEXT is null (repeatable;\n"
    "                     default only the empty field)\n"
    "  --skip N           lines skipped before the header\n"
    "  --comment C        records starting with C are skipped\n"
    "  --fill-ragged      short records are filled with nulls (default: an error)\n"
    "  --sample N         records sniffed for the types (default 20480; -1: all)\n"
    "  --max-line-size N  bytes of one record at most (default 8388608)\n"
    "  --batch-size N     rows per batch at most (default 65536)\n"
    "  --chunk-size N     bytes per parallel chunk (default 2097152)\n"
    "  --threads N        parse on N threads (default 1)\n"
    "  --reader-stats     print the reader's counters on stderr\n";

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

void cli_csv_args_init(struct cli_csv_args *a)
{
    memset(a, 0, sizeof *a);
    basalt_csv_read_options_init(&a->opts);
    a->threads = 1;
}

void cli_csv_args_free(struct cli_csv_args *a)
{
    basalt_free(a->text);
    a->text = NULL;
}

static bool parse_char(const char *s, char *out)
{
    if (strcmp(s, "tab") == 0 || strcmp(s, "\\t") == 0) {
        *out = '\t';
        return true;
    }
    if (strlen(s) != 1)
        return false;
    *out = s[0];
    return true;
}

/* Splits `text` (copied into a->text) at commas outside parentheses. */
static int split_list(struct cli_csv_args *a, const char *text, char **items, size_t *n)
{
    basalt_free(a->text);
    a->text = basalt_strdup(text);
    if (!a->text)
        return cli_fail("out of memory");
    *n = 0;
    char *p = a->text;
    int depth = 0;
    items[(*n)++] = p;
    for (; *p; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        else if (*p == ',' && depth == 0) {
            *p = 0;
            if (*n == CLI_CSV_MAX_LIST)
                return cli_usage_error("too many items in '%s'", text);
            items[(*n)++] = p + 1;
        }
    }
    return CLI_OK;
}

static int parse_types(struct cli_csv_args *a, const char *verb, const char *text)
{
    char *items[CLI_CSV_MAX_LIST];
    size_t n = 0;
    int rc = split_list(a, text, items, &n);
    if (rc != CLI_OK)
        return rc;
    bool named = strchr(items[0], '=') != NULL;
    for (size_t i = 0; i < n; i++) {
        char *t = items[i];
        if (named) {
            char *eq = strchr(t, '=');
            if (!eq)
                return cli_usage_error("%s: --types mixes 'name=type' and bare types", verb);
            *eq = 0;
            a->type_names[i] = t;
            t = eq + 1;
        }
        struct basalt_error err;
        basalt_error_init(&err);
        if (basalt_csv_type_parse(t, strlen(t), &a->types[i], &err) != BASALT_OK)
            return cli_usage_error("%s: %s", verb, err.message);
    }
    if (named) {
        a->opts.type_names = a->type_names;
        a->opts.named_types = a->types;
        a->opts.n_named_types = n;
    } else {
        a->opts.types = a->types;
        a->opts.n_types = n;
    }
    return CLI_OK;
}

int cli_csv_option(struct cli_csv_args *a, const char *verb, int argc, char **argv, int *i,
                   bool *taken)
{
    const char *arg = argv[*i];
    *taken = true;
    if (strcmp(arg, "--header") == 0) {
        a->opts.header = BASALT_CSV_HEADER_YES;
        return CLI_OK;
    }
    if (strcmp(arg, "--no-header") == 0) {
        a->opts.header = BASALT_CSV_HEADER_NO;
        return CLI_OK;
    }
    if (strcmp(arg, "--no-quote") == 0) {
        a->opts.no_quote = true;
        return CLI_OK;
    }
    if (strcmp(arg, "--fill-ragged") == 0) {
        a->opts.fill_ragged = true;
        return CLI_OK;
    }
    if (strcmp(arg, "--reader-stats") == 0) {
        a->stats = true;
        return CLI_OK;
    }
    static const char *const with_value[] = {
        "--delimiter", "--quote",      "--escape",  "--names",      "--types",
        "--null",      "--skip",       "--comment", "--sample",     "--max-line-size",
        "--batch-size", "--chunk-size", "--threads", NULL};
    int which = -1;
    for (int k = 0; with_value[k]; k++)
        if (strcmp(arg, with_value[k]) == 0)
            which = k;
    if (which < 0) {
        *taken = false;
        return CLI_OK;
    }
    if (*i + 1 >= argc)
        return cli_usage_error("%s: %s needs a value", verb, arg);
    const char *v = argv[++*i];
    int64_t n;
    switch (which) {
    case 0:
        if (!parse_char(v, &a->opts.delimiter))
            return cli_usage_error("%s: --delimiter wants one character, got '%s'", verb, v);
        return CLI_OK;
    case 1:
        if (!parse_char(v, &a->opts.quote))
            return cli_usage_error("%s: --quote wants one character, got '%s'", verb, v);
        return CLI_OK;
    case 2:
        if (strcmp(v, "backslash") == 0)
            a->opts.escape = BASALT_CSV_ESCAPE_BACKSLASH;
        else if (strcmp(v, "doubled") == 0)
            a->opts.escape = BASALT_CSV_ESCAPE_DOUBLED;
        else
            return cli_usage_error("%s: --escape wants 'doubled' or 'backslash'", verb);
        return CLI_OK;
    case 3: {
        char *items[CLI_CSV_MAX_LIST];
        size_t count = 0;
        int rc = split_list(a, v, items, &count);
        if (rc != CLI_OK)
            return rc;
        for (size_t k = 0; k < count; k++)
            a->names[k] = items[k];
        a->opts.names = a->names;
        a->opts.n_names = count;
        return CLI_OK;
    }
    case 4: return parse_types(a, verb, v);
    case 5:
        if (a->opts.n_nulls == sizeof a->nulls / sizeof a->nulls[0])
            return cli_usage_error("%s: too many --null", verb);
        a->nulls[a->opts.n_nulls++] = v;
        a->opts.nulls = a->nulls;
        return CLI_OK;
    case 6:
        if (!parse_count(v, 0, INT64_MAX, &n))
            return cli_usage_error("%s: --skip wants a count, got '%s'", verb, v);
        a->opts.skip_rows = n;
        return CLI_OK;
    case 7:
        if (!parse_char(v, &a->opts.comment))
            return cli_usage_error("%s: --comment wants one character, got '%s'", verb, v);
        return CLI_OK;
    case 8:
        if (!parse_count(v, -1, INT64_MAX, &n))
            return cli_usage_error("%s: --sample wants a count or -1, got '%s'", verb, v);
        a->opts.sample_rows = n;
        return CLI_OK;
    case 9:
        if (!parse_count(v, 1, INT64_MAX, &n))
            return cli_usage_error("%s: --max-line-size wants bytes, got '%s'", verb, v);
        a->opts.max_line_size = (size_t)n;
        return CLI_OK;
    case 10:
        if (!parse_count(v, 1, INT32_MAX, &n))
            return cli_usage_error("%s: --batch-size wants rows, got '%s'", verb, v);
        a->opts.batch_size = n;
        return CLI_OK;
    case 11:
        if (!parse_count(v, 1, INT64_MAX, &n))
            return cli_usage_error("%s: --chunk-size wants bytes, got '%s'", verb, v);
        a->opts.chunk_size = (size_t)n;
        return CLI_OK;
    default:
        if (!parse_count(v, 1, 1024, &n))
            return cli_usage_error("%s: --threads wants 1..1024, got '%s'", verb, v);
        a->threads = (int)n;
        return CLI_OK;
    }
}

basalt_status cli_csv_open(const char *uri, const struct basalt_csv_read_options *opts,
                           struct basalt_csv_reader **out, struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st;
    if (!cli_is_remote(uri) && strcmp(uri, "-") != 0) {
        const char *path = uri;
        if (strncmp(path, "file://", 7) == 0)
            path += 7;
        st = basalt_input_open_file(path, true, &in, err);
    } else if (strcmp(uri, "-") == 0) {
        return basalt_error_set(err, BASALT_UNSUPPORTED, "reading CSV from stdin is not supported");
    } else {
        st = cli_open_text_input(uri, &in, err);
    }
    if (st != BASALT_OK)
        return st;
    return basalt_csv_reader_open(in, true, opts, out, err);
}

bool cli_csv_is_csv_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 &&
           (strcasecmp(path + n - 4, ".csv") == 0 || strcasecmp(path + n - 4, ".tsv") == 0);
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

/* The reader of FILE with the options, on a pool of args->threads. */
struct csv_run {
    struct basalt_pool *pool;
    struct basalt_csv_reader *reader;
};

static int open_run(const char *path, struct cli_csv_args *a, struct csv_run *run,
                    struct basalt_error *err)
{
    memset(run, 0, sizeof *run);
    if (a->threads > 1 && basalt_pool_new(a->threads - 1, &run->pool, err) != BASALT_OK)
        return cli_fail_error(err);
    a->opts.pool = run->pool;
    if (cli_csv_open(path, &a->opts, &run->reader, err) != BASALT_OK) {
        basalt_pool_free(run->pool);
        return cli_fail_error(err);
    }
    return CLI_OK;
}

static void close_run(struct csv_run *run, const struct cli_csv_args *a)
{
    if (a->stats && run->reader) {
        struct basalt_csv_stats s;
        basalt_csv_reader_stats(run->reader, &s);
        fprintf(stderr,
                "csv: chunks %" PRId64 ", windows %" PRId64 ", rows %" PRId64
                ", parity splits %" PRId64 ", serial splits %" PRId64 ", sampled %" PRId64 "\n",
                s.chunks, s.windows, s.rows, s.parity_splits, s.serial_splits, s.sample_rows);
    }
    basalt_csv_reader_close(run->reader);
    basalt_pool_free(run->pool);
}

/* ------------------------------------------------------------------ schema */

static int cmd_schema(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt csv schema FILE [--format table|json] [reading options]\n\n"
               "Prints the dialect and the columns of a CSV file as the reader sees\n"
               "them: what the options give and what was sniffed.\n\n%s"
               "\nFILE is a local path or a URI (s3://, gs://, az://, http(s)://, file://).\n",
               cli_csv_read_help);
        return CLI_OK;
    }
    struct cli_csv_args a;
    cli_csv_args_init(&a);
    const char *path = NULL;
    bool json = false;
    int rc = CLI_OK;
    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        bool taken;
        rc = cli_csv_option(&a, "csv schema", argc, argv, &i, &taken);
        if (rc != CLI_OK || taken)
            continue;
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            const char *f = argv[++i];
            if (strcmp(f, "json") == 0)
                json = true;
            else if (strcmp(f, "table") != 0)
                rc = cli_usage_error("csv schema: --format wants table or json");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage_error("csv schema: unknown option '%s'", argv[i]);
        } else if (path) {
            rc = cli_usage_error("csv schema: unexpected argument '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (rc == CLI_OK && !path)
        rc = cli_usage_error("csv schema: expected FILE");
    if (rc != CLI_OK) {
        cli_csv_args_free(&a);
        return rc;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct csv_run run;
    rc = open_run(path, &a, &run, &err);
    if (rc != CLI_OK) {
        cli_csv_args_free(&a);
        return rc;
    }
    const struct basalt_csv_dialect *d = basalt_csv_reader_dialect(run.reader);
    int32_t n = basalt_csv_reader_num_columns(run.reader);
    char delim[8], quote[8];
    snprintf(delim, sizeof delim, "%s", d->delimiter == '\t' ? "\\t" : (char[]){d->delimiter, 0});
    snprintf(quote, sizeof quote, "%s", d->quote == 0 ? "" : (char[]){d->quote, 0});
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    if (json) {
        printf("{\"delimiter\":");
        cli_format_json_string(&b, (const uint8_t *)&d->delimiter, 1, &err);
        fwrite(b.data, 1, b.size, stdout);
        b.size = 0;
        printf(",\"quote\":");
        cli_format_json_string(&b, (const uint8_t *)quote, strlen(quote), &err);
        fwrite(b.data, 1, b.size, stdout);
        b.size = 0;
        printf(",\"header\":%s,\"columns\":[", d->header ? "true" : "false");
        for (int32_t c = 0; c < n; c++) {
            char type[48];
            basalt_csv_type_name(basalt_csv_reader_column_type(run.reader, c), type, sizeof type);
            const char *name = basalt_csv_reader_column_name(run.reader, c);
            cli_format_json_string(&b, (const uint8_t *)name, strlen(name), &err);
            printf("%s{\"name\":%.*s,\"type\":\"%s\"}", c ? "," : "", (int)b.size,
                   (const char *)b.data, type);
            b.size = 0;
        }
        printf("]}\n");
    } else {
        printf("# delimiter '%s', quote '%s', escape %s, header %s\n", delim, quote,
               d->escape == BASALT_CSV_ESCAPE_BACKSLASH ? "backslash" : "doubled",
               d->header ? "yes" : "no");
        int width = 6;
        for (int32_t c = 0; c < n; c++) {
            int len = (int)strlen(basalt_csv_reader_column_name(run.reader, c));
            if (len > width)
                width = len;
        }
        printf("%-*s  %s\n", width, "column", "type");
        for (int32_t c = 0; c < n; c++) {
            char type[48];
            basalt_csv_type_name(basalt_csv_reader_column_type(run.reader, c), type, sizeof type);
            printf("%-*s  %s\n", width, basalt_csv_reader_column_name(run.reader, c), type);
        }
    }
    basalt_buffer_reset(&b);
    close_run(&run, &a);
    cli_csv_args_free(&a);
    return CLI_OK;
}

/* ------------------------------------------------------------------ cat */

static int cmd_cat(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt csv cat FILE [--format table|csv|json] [--limit N]\n"
               "                          [reading options]\n\n"
               "Prints the rows of a CSV file as the reader types them: an aligned\n"
               "table (default), CSV or JSON lines.\n\n%s"
               "\nFILE is a local path or a URI (s3://, gs://, az://, http(s)://, file://).\n",
               cli_csv_read_help);
        return CLI_OK;
    }
    struct cli_csv_args a;
    cli_csv_args_init(&a);
    const char *path = NULL;
    enum cli_format_kind format = CLI_FORMAT_TABLE;
    int64_t limit = -1;
    int rc = CLI_OK;
    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        bool taken;
        rc = cli_csv_option(&a, "csv cat", argc, argv, &i, &taken);
        if (rc != CLI_OK || taken)
            continue;
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            if (!cli_format_parse(argv[++i], &format))
                rc = cli_usage_error("csv cat: --format wants table, csv or json");
        } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 0, INT64_MAX, &limit))
                rc = cli_usage_error("csv cat: --limit wants a count");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage_error("csv cat: unknown option '%s'", argv[i]);
        } else if (path) {
            rc = cli_usage_error("csv cat: unexpected argument '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (rc == CLI_OK && !path)
        rc = cli_usage_error("csv cat: expected FILE");
    if (rc != CLI_OK) {
        cli_csv_args_free(&a);
        return rc;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct csv_run run;
    rc = open_run(path, &a, &run, &err);
    if (rc != CLI_OK) {
        cli_csv_args_free(&a);
        return rc;
    }
    struct ArrowSchema schema = {0};
    struct cli_format_writer *w = NULL;
    basalt_status st = basalt_csv_reader_schema(run.reader, &schema, &err);
    if (st == BASALT_OK)
        st = cli_format_writer_new(stdout, format, &schema, NULL, 0, &w, &err);
    int64_t shown = 0;
    while (st == BASALT_OK && (limit < 0 || shown < limit)) {
        struct ArrowArray batch;
        st = basalt_csv_reader_next(run.reader, &batch, &err);
        if (st != BASALT_OK || !batch.release)
            break;
        for (int64_t r = 0; st == BASALT_OK && r < batch.length && (limit < 0 || shown < limit);
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
    cli_csv_args_free(&a);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* ------------------------------------------------------------------ convert */

static int cmd_convert(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt csv convert IN OUT [--codec NAME] [reading options]\n\n"
               "Reads IN (CSV by its .csv/.tsv name, else Parquet or Avro) and writes its\n"
               "rows to OUT: CSV when OUT is named .csv (.tsv: tab-delimited), with a\n"
               "header, RFC 4180 quoting where needed and NULL as an empty field; else\n"
               "one Parquet file (zstd by default; --codec\n"
               "uncompressed|snappy|gzip|zstd|lz4|brotli).\n\n%s"
               "\nIN and OUT are local paths or URIs (s3://, gs://, az://, file://).\n",
               cli_csv_read_help);
        return CLI_OK;
    }
    struct cli_csv_args a;
    cli_csv_args_init(&a);
    const char *in = NULL, *outp = NULL;
    struct basalt_parquet_writer_options wo;
    basalt_parquet_writer_options_init(&wo);
    int rc = CLI_OK;
    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        bool taken;
        rc = cli_csv_option(&a, "csv convert", argc, argv, &i, &taken);
        if (rc != CLI_OK || taken)
            continue;
        if (strcmp(argv[i], "--codec") == 0 && i + 1 < argc) {
            const char *c = argv[++i];
            static const struct {
                const char *name;
                enum basalt_codec_kind kind;
            } codecs[] = {{"uncompressed", BASALT_CODEC_UNCOMPRESSED},
                          {"none", BASALT_CODEC_UNCOMPRESSED},
                          {"snappy", BASALT_CODEC_SNAPPY},
                          {"gzip", BASALT_CODEC_GZIP},
                          {"zstd", BASALT_CODEC_ZSTD},
                          {"lz4", BASALT_CODEC_LZ4_RAW},
                          {"brotli", BASALT_CODEC_BROTLI}};
            size_t k = 0;
            while (k < sizeof codecs / sizeof codecs[0] && strcmp(codecs[k].name, c) != 0)
                k++;
            if (k == sizeof codecs / sizeof codecs[0])
                rc = cli_usage_error("csv convert: unknown codec '%s'", c);
            else
                wo.codec = codecs[k].kind;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage_error("csv convert: unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else if (!outp) {
            outp = argv[i];
        } else {
            rc = cli_usage_error("csv convert: unexpected argument '%s'", argv[i]);
        }
    }
    if (rc == CLI_OK && !outp)
        rc = cli_usage_error("csv convert: expected IN OUT");
    if (rc != CLI_OK) {
        cli_csv_args_free(&a);
        return rc;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct csv_run run;
    memset(&run, 0, sizeof run);
    struct cli_batch_source *src = NULL;
    if (cli_csv_is_csv_name(in)) {
        rc = open_run(in, &a, &run, &err);
    } else {
        if (a.threads > 1 && basalt_pool_new(a.threads - 1, &run.pool, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
        else if (cli_batch_source_open(in, run.pool, &src, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
    }
    if (rc != CLI_OK) {
        basalt_pool_free(run.pool);
        cli_csv_args_free(&a);
        return rc;
    }
    bool to_csv = cli_csv_is_csv_name(outp);
    struct ArrowSchema schema = {0};
    struct basalt_parquet_writer *pw = NULL;
    struct basalt_csv_writer *cw = NULL;
    struct basalt_output *o = NULL;
    basalt_status st = BASALT_OK;
    if (src)
        st = basalt_arrow_schema_copy(cli_batch_source_schema(src), &schema, &err);
    else
        st = basalt_csv_reader_schema(run.reader, &schema, &err);
    if (st == BASALT_OK)
        st = cli_open_output(outp, 0, &o, &err);
    if (st == BASALT_OK && to_csv) {
        struct basalt_csv_write_options co;
        basalt_csv_write_options_init(&co);
        size_t n = strlen(outp);
        if (strcasecmp(outp + n - 4, ".tsv") == 0)
            co.delimiter = '\t';
        st = basalt_csv_writer_open(o, true, &schema, &co, &cw, &err);
        o = NULL;
    } else if (st == BASALT_OK) {
        st = basalt_parquet_writer_open(o, true, &schema, &wo, &pw, &err);
        o = NULL;
    }
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        st = src ? cli_batch_source_next(src, &batch, &err)
                 : basalt_csv_reader_next(run.reader, &batch, &err);
        if (st != BASALT_OK || !batch.release)
            break;
        st = cw ? basalt_csv_writer_write(cw, &batch, &err)
                : basalt_parquet_writer_write(pw, &batch, &err);
        basalt_arrow_array_release(&batch);
    }
    if (st == BASALT_OK)
        st = cw ? basalt_csv_writer_finish(cw, &err) : basalt_parquet_writer_finish(pw, &err);
    int64_t rows = cw   ? basalt_csv_writer_num_rows(cw)
                   : pw ? basalt_parquet_writer_num_rows(pw)
                        : 0;
    basalt_csv_writer_close(cw);
    basalt_parquet_writer_close(pw);
    basalt_output_close(o);
    basalt_arrow_schema_release(&schema);
    cli_batch_source_close(src);
    close_run(&run, &a);
    cli_csv_args_free(&a);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    fprintf(stderr, "wrote %" PRId64 " rows to %s\n", rows, outp);
    return CLI_OK;
}

/* ------------------------------------------------------------------ scan */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmd_scan(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt csv scan FILE [--repeat K [--warmup W]] [reading options]\n\n"
               "Reads every row into Arrow memory and frees it, K times after W\n"
               "untimed reads (default 1 and 0); prints the rows and the p50 and p90 time\n"
               "of one read (open, sniff, parse; nearest rank).\n\n%s",
               cli_csv_read_help);
        return CLI_OK;
    }
    struct cli_csv_args a;
    cli_csv_args_init(&a);
    const char *path = NULL;
    int64_t repeat = 1, warmup = 0;
    int rc = CLI_OK;
    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        bool taken;
        rc = cli_csv_option(&a, "csv scan", argc, argv, &i, &taken);
        if (rc != CLI_OK || taken)
            continue;
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 1, 100000, &repeat))
                rc = cli_usage_error("csv scan: --repeat wants a positive count");
        } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 0, 100000, &warmup))
                rc = cli_usage_error("csv scan: --warmup wants a count");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage_error("csv scan: unknown option '%s'", argv[i]);
        } else if (path) {
            rc = cli_usage_error("csv scan: unexpected argument '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (rc == CLI_OK && !path)
        rc = cli_usage_error("csv scan: expected FILE");
    if (rc != CLI_OK) {
        cli_csv_args_free(&a);
        return rc;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool = NULL;
    if (a.threads > 1 && basalt_pool_new(a.threads - 1, &pool, &err) != BASALT_OK) {
        cli_csv_args_free(&a);
        return cli_fail_error(&err);
    }
    a.opts.pool = pool;
#ifdef __GLIBC__
    /* Keep freed memory for the next read, as the peers' allocators do
     * (glibc would give the batches' buffers back and fault them in again). */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    double *times = basalt_calloc((size_t)(repeat + warmup), sizeof *times);
    basalt_status st = times ? BASALT_OK : basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    int64_t rows = 0;
    for (int64_t k = 0; st == BASALT_OK && k < repeat + warmup; k++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        struct basalt_csv_reader *r = NULL;
        st = cli_csv_open(path, &a.opts, &r, &err);
        rows = 0;
        while (st == BASALT_OK) {
            struct ArrowArray batch;
            st = basalt_csv_reader_next(r, &batch, &err);
            if (st != BASALT_OK || !batch.release)
                break;
            rows += batch.length;
            basalt_arrow_array_release(&batch);
        }
        basalt_csv_reader_close(r);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        times[k] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    }
    if (st == BASALT_OK) {
        qsort(times + warmup, (size_t)repeat, sizeof *times, cmp_double);
        const double *t = times + warmup;
        int64_t i50 = (repeat * 50 + 99) / 100 - 1, i90 = (repeat * 90 + 99) / 100 - 1;
        printf("rows: %" PRId64 "\nthreads: %d\nreads: %" PRId64 "\np50: %.3f ms\np90: %.3f ms\n",
               rows, a.threads, repeat, t[i50 < 0 ? 0 : i50], t[i90 < 0 ? 0 : i90]);
    }
    basalt_free(times);
    basalt_pool_free(pool);
    cli_csv_args_free(&a);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

int cli_csv_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"schema", "print the dialect and the columns as sniffed", cmd_schema},
        {"cat", "print rows as a table, CSV or JSON lines", cmd_cat},
        {"convert", "CSV to Parquet, Parquet or Avro to CSV", cmd_convert},
        {"scan", "read every row into Arrow memory, timed", cmd_scan},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("csv", verbs, argc, argv);
}
