/* basalt sql: run SQL over files and catalog tables and print the rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "basalt/parquet_writer.h"
#include "cli.h"
#include "format.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: basalt sql \"QUERY\" [options]\n"
            "       basalt sql -f FILE [options]\n"
            "       echo \"QUERY\" | basalt sql [options]\n"
            "       basalt sql [options]       (on a terminal: an interactive shell)\n\n"
            "Runs SQL (DuckDB's dialect) over files (FROM 'trips.parquet', read_parquet(...),\n"
            "read_csv(...), read_ipc(...), iceberg_scan('table_dir')) and, with --catalog, Iceberg\n"
            "tables by name. Several statements may be separated by ';': the rows of the last\n"
            "one are printed, as the query makes them (a result larger than memory streams\n"
            "to --output or stdout).\n\n"
            "options:\n"
            "  --catalog URI        a catalog (sqlite:PATH, postgresql://..., rest+http://...)\n"
            "  --format F           table (default), csv, json (one object per row) or\n"
            "                       parquet (a Parquet file; needs --output)\n"
            "  --output FILE        write the rows to FILE instead of stdout\n"
            "  --threads N          worker threads (default: all cores)\n"
            "  --memory-limit SIZE  memory for the query (e.g. 2GB; default 80%% of RAM): past it\n"
            "                       ORDER BY, GROUP BY and joins spill to temporary files, other\n"
            "                       operators fail with a LIMIT error\n"
            "  --temp-directory DIR where spill files go (default $TMPDIR, else /tmp; also\n"
            "                       SET temp_directory = 'DIR'); they are unlinked when made\n"
            "  --timer              print the query's run time to stderr (rows are printed\n"
            "                       or written as they come; their formatting is not counted)\n"
            "  -f FILE              read the query from FILE\n");
}

static char *read_all(FILE *f)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        return NULL;
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n < 2) {
            char *p = realloc(buf, cap * 2);
            if (p == NULL) {
                free(buf);
                return NULL;
            }
            buf = p;
            cap *= 2;
        }
    }
    buf[n] = '\0';
    return buf;
}

static bool parse_size(const char *s, int64_t *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return false;
    while (*end == ' ')
        end++;
    double mult = 1;
    if (strcasecmp(end, "kb") == 0 || strcasecmp(end, "k") == 0 || strcasecmp(end, "kib") == 0)
        mult = 1024;
    else if (strcasecmp(end, "mb") == 0 || strcasecmp(end, "m") == 0 || strcasecmp(end, "mib") == 0)
        mult = 1024.0 * 1024;
    else if (strcasecmp(end, "gb") == 0 || strcasecmp(end, "g") == 0 || strcasecmp(end, "gib") == 0)
        mult = 1024.0 * 1024 * 1024;
    else if (*end != '\0' && strcasecmp(end, "b") != 0)
        return false;
    *out = (int64_t)(v * mult);
    return true;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The result's next batch; *engine_s adds the time the query took for it
 * (--timer reports the query's time, not the printing's). */
static basalt_status next_batch(struct basalt_sql_result *r, struct ArrowArray *b,
                                double *engine_s, struct basalt_error *err)
{
    double t0 = now_s();
    basalt_status st = basalt_sql_result_next(r, b, err);
    *engine_s += now_s() - t0;
    return st;
}

/* The rows as one Parquet file at `path`, batch by batch as they come
 * (written under a temporary name, renamed when whole). */
static basalt_status write_parquet(const char *path, struct basalt_sql_result *r,
                                   double *engine_s, struct basalt_error *err)
{
    struct basalt_parquet_writer *w = NULL;
    basalt_status st =
        basalt_parquet_writer_open_file(path, basalt_sql_result_schema(r), NULL, &w, err);
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = next_batch(r, &b, engine_s, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = basalt_parquet_writer_write(w, &b, err);
        basalt_arrow_array_release(&b);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    basalt_parquet_writer_close(w);
    return st;
}

basalt_status cli_sql_print(FILE *out, int format, struct basalt_sql_result *r, double *engine_s,
                            struct basalt_error *err)
{
    struct cli_format_writer *w = NULL;
    basalt_status st = cli_format_writer_new(out, (enum cli_format_kind)format,
                                             basalt_sql_result_schema(r), NULL, 0, &w, err);
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = next_batch(r, &b, engine_s, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        for (int64_t i = 0; st == BASALT_OK && i < b.length; i++)
            st = cli_format_writer_row(w, &b, i, err);
        basalt_arrow_array_release(&b);
    }
    if (st == BASALT_OK)
        st = cli_format_writer_finish(w, err);
    cli_format_writer_free(w);
    return st;
}

/* --output FILE for text formats: a regular file is written under a
 * temporary name beside it and renamed when every row is in, so a query
 * that fails half way leaves no partial file; anything else (/dev/null, a
 * pipe) is written in place. */
struct text_output {
    FILE *f;
    char tmp[4096];
};

static bool text_output_open(const char *path, struct text_output *o)
{
    o->tmp[0] = '\0';
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        o->f = fopen(path, "wb");
        return o->f != NULL;
    }
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%d", path, (int)getpid());
    o->f = fopen(o->tmp, "wb");
    return o->f != NULL;
}

/* Closes the file: renamed over `path` when ok, else removed. */
static bool text_output_close(const char *path, struct text_output *o, bool ok)
{
    ok = fclose(o->f) == 0 && ok;
    if (o->tmp[0] == '\0')
        return ok;
    if (ok && rename(o->tmp, path) == 0)
        return true;
    unlink(o->tmp);
    return false;
}

int cli_sql_main(int argc, char **argv)
{
    const char *query = NULL, *file = NULL, *catalog = NULL, *output = NULL;
    enum cli_format_kind format = CLI_FORMAT_TABLE;
    int threads = 0;
    int64_t memory_limit = 0;
    const char *temp_dir = NULL;
    bool timer = false, parquet = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_OK;
        }
        bool has_val = i + 1 < argc;
        if (strcmp(a, "--catalog") == 0 && has_val)
            catalog = argv[++i];
        else if (strcmp(a, "--format") == 0 && has_val) {
            parquet = strcmp(argv[++i], "parquet") == 0;
            if (!parquet && !cli_format_parse(argv[i], &format))
                return cli_usage_error("sql: unknown format '%s' (table, csv, json, parquet)",
                                       argv[i]);
        } else if (strcmp(a, "--output") == 0 && has_val)
            output = argv[++i];
        else if (strcmp(a, "--threads") == 0 && has_val) {
            threads = atoi(argv[++i]);
            if (threads < 1 || threads > 1024)
                return cli_usage_error("sql: --threads takes 1..1024");
        } else if (strcmp(a, "--memory-limit") == 0 && has_val) {
            if (!parse_size(argv[++i], &memory_limit))
                return cli_usage_error("sql: bad --memory-limit '%s' (e.g. 2GB)", argv[i]);
        } else if (strcmp(a, "--temp-directory") == 0 && has_val) {
            temp_dir = argv[++i];
        } else if (strcmp(a, "--timer") == 0)
            timer = true;
        else if (strcmp(a, "-f") == 0 && has_val)
            file = argv[++i];
        else if (a[0] == '-' && a[1] != '\0')
            return cli_usage_error("sql: unknown option '%s'", a);
        else if (query == NULL)
            query = a;
        else
            return cli_usage_error("sql: more than one query given");
    }
    if (parquet && output == NULL)
        return cli_usage_error("sql: --format parquet needs --output FILE");
    char *text = NULL;
    if (file != NULL) {
        FILE *f = fopen(file, "rb");
        if (f == NULL)
            return cli_fail("%s: cannot open", file);
        text = read_all(f);
        fclose(f);
    } else if (query == NULL && !isatty(0)) {
        text = read_all(stdin);
        if (text == NULL)
            return cli_fail("out of memory");
    }
    bool shell = query == NULL && text == NULL;
    const char *sql = query ? query : text;

    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool = NULL;
    int workers = threads > 0 ? threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (workers > 1 && basalt_pool_new(workers - 1, &pool, &err) != BASALT_OK) {
        free(text);
        return cli_fail_error(&err);
    }
    /* As DuckDB: 80% of the machine's memory unless told otherwise, so a
     * runaway query fails with a message instead of taking the machine. */
    if (memory_limit == 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            memory_limit = (int64_t)((double)pages * (double)page * 0.8);
    }
    struct basalt_sql_options o;
    basalt_sql_options_init(&o);
    o.pool = pool;
    o.memory_limit = memory_limit;
    o.spill_dir = temp_dir;
    o.catalog_uri = catalog;
    /* the store options of 'basalt --help' (and --stats) for remote tables */
    o.store = cli_store(NULL);
    struct basalt_sql_session *s = NULL;
    struct basalt_sql_result *r = NULL;
    double t0 = now_s();
    basalt_status st = basalt_sql_session_new(&o, &s, &err);
    if (st == BASALT_OK && shell) {
        int shell_rc = cli_sql_shell(s, format, timer);
        basalt_sql_session_free(s);
        basalt_pool_free(pool);
        return shell_rc;
    }
    if (st == BASALT_OK)
        st = basalt_sql_session_open(s, sql, strlen(sql), &r, &err);
    /* The rows are printed or written as the query makes them. */
    double engine_s = now_s() - t0;
    int rc = CLI_OK;
    if (st != BASALT_OK) {
        rc = cli_fail_error(&err);
    } else if (basalt_sql_result_schema(r) != NULL && parquet) {
        if (write_parquet(output, r, &engine_s, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
    } else if (basalt_sql_result_schema(r) != NULL) {
        struct text_output to = {stdout, ""};
        if (output != NULL && !text_output_open(output, &to))
            rc = cli_fail("%s: cannot write", output);
        if (rc == CLI_OK) {
            st = cli_sql_print(to.f, format, r, &engine_s, &err);
            if (output != NULL && !text_output_close(output, &to, st == BASALT_OK) &&
                st == BASALT_OK)
                rc = cli_fail("%s: cannot write", output);
            if (st != BASALT_OK)
                rc = cli_fail_error(&err);
        }
    }
    if (timer)
        fprintf(stderr, "Run Time: %.3f s\n", engine_s);
    basalt_sql_result_free(r);
    basalt_sql_session_free(s);
    basalt_pool_free(pool);
    free(text);
    return rc;
}
