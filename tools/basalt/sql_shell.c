/* basalt sql's interactive shell: line editing and history (libedit),
 * statements over several lines until a ';', dot commands. */
#include <editline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "format.h"

static void history_path(char *buf, size_t cap)
{
    const char *home = getenv("HOME");
    snprintf(buf, cap, "%s/.basalt_history", home && home[0] ? home : ".");
}

static void run(struct basalt_sql_session *s, const char *sql, int format, bool timer)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_sql_result *r = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    basalt_status st = basalt_sql_session_open(s, sql, strlen(sql), &r, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double engine_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (st != BASALT_OK)
        fprintf(stderr, "Error: %s: %s\n", basalt_status_name(st), err.message);
    else if (basalt_sql_result_schema(r) != NULL &&
             (st = cli_sql_print(stdout, format, r, &engine_s, &err)) != BASALT_OK)
        fprintf(stderr, "Error: %s: %s\n", basalt_status_name(st), err.message);
    fflush(stdout);
    if (timer)
        fprintf(stderr, "Run Time: %.3f s\n", engine_s);
    basalt_sql_result_free(r);
}

/* Whether the statement text ends with ';' (outside quotes and comments). */
static bool complete(const char *text)
{
    char quote = 0;
    bool done = false;
    for (const char *p = text; *p; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
            continue;
        }
        if (*p == '\'' || *p == '"') {
            quote = *p;
            done = false;
        } else if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
            if (!*p)
                break;
        } else if (*p == ';') {
            done = true;
        } else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            done = false;
        }
    }
    return done && !quote;
}

static void help(void)
{
    printf(".tables             the catalog's tables\n"
           ".schema NAME        the columns of a table (or a file: .schema 'x.parquet')\n"
           ".mode table|csv|json\n"
           ".timer on|off       print each statement's run time\n"
           ".quit               leave (also Ctrl-D)\n"
           "Statements end with ';' and may span lines.\n");
}

/* A dot command; false to leave the shell. */
static bool dot(struct basalt_sql_session *s, const char *line, int *format, bool *timer)
{
    char cmd[32] = "", arg[1024] = "";
    sscanf(line, ".%31s %1023[^\n]", cmd, arg);
    if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "exit") == 0 || strcmp(cmd, "q") == 0)
        return false;
    if (strcmp(cmd, "tables") == 0) {
        run(s, "SHOW TABLES", *format, *timer);
    } else if (strcmp(cmd, "schema") == 0 && arg[0]) {
        char sql[1100];
        snprintf(sql, sizeof sql, "DESCRIBE SELECT * FROM %s", arg);
        run(s, sql, *format, *timer);
    } else if (strcmp(cmd, "schema") == 0) {
        fprintf(stderr, "Error: .schema needs a table or a file (.schema db.t, .schema "
                        "'x.parquet')\n");
    } else if (strcmp(cmd, "timer") == 0) {
        *timer = strcmp(arg, "off") != 0;
    } else if (strcmp(cmd, "mode") == 0) {
        enum cli_format_kind k;
        if (cli_format_parse(arg, &k))
            *format = (int)k;
        else
            fprintf(stderr, "Error: unknown mode '%s' (table, csv, json)\n", arg);
    } else if (strcmp(cmd, "help") == 0) {
        help();
    } else {
        fprintf(stderr, "Error: unknown command '.%s' (.help lists them)\n", cmd);
    }
    return true;
}

int cli_sql_shell(struct basalt_sql_session *s, int format, bool timer)
{
    char hist[1024];
    history_path(hist, sizeof hist);
    using_history();
    read_history(hist);
    printf("basalt %s: SQL over Parquet, CSV, Arrow IPC and Iceberg. .help for commands.\n",
           basalt_version());
    char *buf = NULL;
    size_t len = 0;
    for (;;) {
        char *line = readline(len == 0 ? "basalt> " : "   ...> ");
        if (line == NULL) {
            printf("\n");
            break;
        }
        if (len == 0 && line[strspn(line, " \t")] == '.') {
            add_history(line);
            bool go_on = dot(s, line + strspn(line, " \t"), &format, &timer);
            free(line);
            if (!go_on)
                break;
            continue;
        }
        size_t n = strlen(line);
        char *grown = realloc(buf, len + n + 2);
        if (grown == NULL) {
            free(line);
            break;
        }
        buf = grown;
        memcpy(buf + len, line, n);
        len += n;
        buf[len++] = '\n';
        buf[len] = '\0';
        free(line);
        if (!complete(buf))
            continue;
        buf[len - 1] = '\0';
        add_history(buf);
        run(s, buf, format, timer);
        len = 0;
    }
    free(buf);
    write_history(hist);
    return CLI_OK;
}
