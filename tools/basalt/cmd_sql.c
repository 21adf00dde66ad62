/* basalt sql: run SQL over files and catalog tables and print the rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
            "one are printed.\n\n"
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
            "  --timer              print the run time to stderr\n"
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

/* The rows as one Parquet file at `path`, batch by batch. */
static basalt_status write_parquet(const char *path, const struct basalt_arrow_batches *rows,
                                   struct basalt_error *err)
{
    struct basalt_parquet_writer *w = NULL;
    basalt_status st = basalt_parquet_writer_open_file(path, &rows->schema, NULL, &w, err);
    for (int64_t b = 0; st == BASALT_OK && b < rows->n; b++)
        st = basalt_parquet_writer_write(w, &rows->arrays[b], err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    basalt_parquet_writer_close(w);
    return st;
}

basalt_status cli_sql_print(FILE *out, int format,
                            const struct basalt_arrow_batches *rows, struct basalt_error *err)
{
    struct cli_format_writer *w = NULL;
    basalt_status st = cli_format_writer_new(out, (enum cli_format_kind)format, &rows->schema,
                                             NULL, 0, &w, err);
    for (int64_t b = 0; st == BASALT_OK && b < rows->n; b++)
        for (int64_t r = 0; st == BASALT_OK && r < rows->arrays[b].length; r++)
            st = cli_format_writer_row(w, &rows->arrays[b], r, err);
    if (st == BASALT_OK)
        st = cli_format_writer_finish(w, err);
    cli_format_writer_free(w);
    return st;
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
    struct basalt_arrow_batches rows;
    basalt_arrow_batches_init(&rows);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    basalt_status st = basalt_sql_session_new(&o, &s, &err);
    if (st == BASALT_OK && shell) {
        int shell_rc = cli_sql_shell(s, format, timer);
        basalt_sql_session_free(s);
        basalt_pool_free(pool);
        return shell_rc;
    }
    if (st == BASALT_OK)
        st = basalt_sql_session_run(s, sql, strlen(sql), &rows, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int rc = CLI_OK;
    if (st != BASALT_OK) {
        rc = cli_fail_error(&err);
    } else if (rows.schema.release != NULL && parquet) {
        if (write_parquet(output, &rows, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
    } else if (rows.schema.release != NULL) {
        FILE *out = stdout;
        if (output != NULL && (out = fopen(output, "wb")) == NULL)
            rc = cli_fail("%s: cannot write", output);
        if (rc == CLI_OK && cli_sql_print(out, format, &rows, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
        if (out != stdout && out != NULL)
            fclose(out);
    }
    if (timer)
        fprintf(stderr, "Run Time: %.3f s\n",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    basalt_arrow_batches_reset(&rows);
    basalt_sql_session_free(s);
    basalt_pool_free(pool);
    free(text);
    return rc;
}
