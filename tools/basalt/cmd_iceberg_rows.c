/* basalt iceberg delete and update: row-level changes by filter,
 * copy-on-write or merge-on-read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_commit.h"
#include "cli.h"
#include "cmd_iceberg.h"
#include "update_exprs.h"

#define MAX_CLAUSES 64

struct rows_args {
    struct cli_iceberg_common common;
    struct basalt_iceberg_delete_options o;
    const char *name, *where;
    const char *set[MAX_CLAUSES];
    uint32_t n_set;
    const char *keys[MAX_CLAUSES];
    int threads;
};

/* Splits "a, b" into keys[] in place (names have no commas). */
static int split_keys(const char *verb, char *text, struct rows_args *a)
{
    for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ')
            tok++;
        for (char *end = tok + strlen(tok); end > tok && end[-1] == ' ';)
            *--end = 0;
        if (!*tok || a->o.n_equality_columns == MAX_CLAUSES)
            return cli_usage_error("%s: --equality wants column names, comma separated", verb);
        a->keys[a->o.n_equality_columns++] = tok;
    }
    a->o.equality_columns = a->keys;
    return CLI_OK;
}

static int parse_rows(const char *verb, int argc, char **argv, bool update, struct rows_args *a)
{
    memset(a, 0, sizeof *a);
    cli_iceberg_common_init(&a->common);
    basalt_iceberg_delete_options_init(&a->o);
    a->threads = 1;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&a->common, verb, argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        bool has_value = i + 1 < argc;
        if (strcmp(argv[i], "--where") == 0 && has_value) {
            a->where = argv[++i];
        } else if (update && strcmp(argv[i], "--set") == 0 && has_value) {
            if (a->n_set == MAX_CLAUSES)
                return cli_usage_error("%s: more than %d --set clauses", verb, MAX_CLAUSES);
            a->set[a->n_set++] = argv[++i];
        } else if (strcmp(argv[i], "--branch") == 0 && has_value) {
            a->o.branch = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && has_value) {
            a->threads = atoi(argv[++i]);
            if (a->threads < 1 || a->threads > 256)
                return cli_usage_error("%s: --threads is 1 to 256", verb);
        } else if (strcmp(argv[i], "--mode") == 0 && has_value) {
            const char *mode = argv[++i];
            if (strcmp(mode, "mor") == 0 || strcmp(mode, "merge-on-read") == 0)
                a->o.mode = BASALT_ICEBERG_MERGE_ON_READ;
            else if (strcmp(mode, "cow") == 0 || strcmp(mode, "copy-on-write") == 0)
                a->o.mode = BASALT_ICEBERG_COPY_ON_WRITE;
            else
                return cli_usage_error("%s: --mode is cow or mor", verb);
        } else if (strcmp(argv[i], "--equality") == 0 && has_value) {
            int rc = split_keys(verb, argv[++i], a);
            if (rc != CLI_OK)
                return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("%s: unknown option '%s'", verb, argv[i]);
        } else if (!a->name) {
            a->name = argv[i];
        } else {
            return cli_usage_error("%s: unexpected argument '%s'", verb, argv[i]);
        }
    }
    if (!a->name || !a->where)
        return cli_usage_error("%s: expected NAME and --where EXPR", verb);
    if (update && a->n_set == 0)
        return cli_usage_error("%s: expected at least one --set 'column = value'", verb);
    if (a->o.n_equality_columns && a->o.mode != BASALT_ICEBERG_MERGE_ON_READ)
        return cli_usage_error("%s: --equality needs --mode mor", verb);
    return CLI_OK;
}

static int run_rows(struct rows_args *a, bool update)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_pool *pool = NULL;
    struct basalt_iceberg_delete_result r;
    memset(&r, 0, sizeof r);
    basalt_status st = cli_iceberg_open_catalog(&a->common, false, &c, &err);
    if (st == BASALT_OK && a->threads > 1)
        st = basalt_pool_new(a->threads - 1, &pool, &err);
    /* expressions (anything but plain literals) go through the SQL engine */
    struct cli_set_exprs *exprs = NULL;
    bool literal = true;
    for (uint32_t i = 0; update && i < a->n_set; i++)
        literal = literal && cli_set_value_is_literal(a->set[i]);
    if (st == BASALT_OK && !literal) {
        st = cli_set_exprs_new(a->set, a->n_set, &exprs, &err);
        a->o.set_rows = cli_set_exprs_rows;
        a->o.set_rows_ctx = exprs;
    }
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(c, &committer);
        a->o.pool = pool;
        a->o.num_workers = a->threads;
        st = update ? basalt_iceberg_update_where(&committer, a->name, a->where, a->set, a->n_set,
                                                  &a->o, &r, &err)
                    : basalt_iceberg_delete_where(&committer, a->name, a->where, NULL, 0, &a->o,
                                                  &r, &err);
    }
    basalt_pool_free(pool);
    basalt_catalog_close(c);
    cli_set_exprs_free(exprs);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    if (r.snapshot_id == 0)
        printf("%s: no row matches; nothing %s\n", a->name, update ? "updated" : "deleted");
    else
        printf("%s: %s %lld rows: %u files removed, %u written, %u delete files: snapshot %lld\n",
               a->name, update ? "updated" : "deleted", (long long)r.rows_deleted,
               r.files_removed, r.files_added, r.delete_files_added, (long long)r.snapshot_id);
    return CLI_OK;
}

static const char MODES_HELP[] =
    "  --mode cow   copy-on-write: files holding matching rows are written again\n"
    "               (files whose rows all match are removed)\n"
    "  --mode mor   merge-on-read: the rows are recorded as deleted: a position-delete\n"
    "               file per data file (v2), deletion vectors in a Puffin file (v3)\n"
    "  --equality COLS  with --mode mor: equality deletes keyed by these columns;\n"
    "               every older row with an equal key goes too\n"
    "  (default: the table's write.delete.mode / write.update.mode, copy-on-write)\n"
    "  --branch B   change branch B (default main)\n"
    "  --threads N  read and write with N threads\n";

int cli_iceberg_delete(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf("usage: basalt iceberg delete NAME --where EXPR [--mode cow|mor]\n"
                   "                              [--equality COLS] [options]\n\n"
                   "Deletes the rows of table NAME where EXPR holds, in one snapshot (operation\n"
                   "delete, or overwrite when files were rewritten). Retried on the new head\n"
                   "when another writer commits first.\n\n%s\noptions:\n%s",
                   MODES_HELP, cli_iceberg_common_help);
            return CLI_OK;
        }
    struct rows_args a;
    int rc = parse_rows("iceberg delete", argc, argv, false, &a);
    return rc != CLI_OK ? rc : run_rows(&a, false);
}

int cli_iceberg_update(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf("usage: basalt iceberg update NAME --set 'COL = VALUE' [--set ...] --where EXPR\n"
                   "                              [--mode cow|mor] [options]\n\n"
                   "Sets columns of the rows of table NAME where EXPR holds, in one snapshot\n"
                   "(operation overwrite). VALUE is a literal of the filter language (42, 1.5,\n"
                   "'text', '2024-03-01', true) or NULL, or a SQL expression over the row's\n"
                   "columns ('fare = fare * 1.1', 'note = upper(note) || '!'') cast to the\n"
                   "column's type. Copy-on-write rewrites the files holding those rows;\n"
                   "merge-on-read deletes the rows and appends them changed.\n\n"
                   "%s\noptions:\n%s",
                   MODES_HELP, cli_iceberg_common_help);
            return CLI_OK;
        }
    struct rows_args a;
    int rc = parse_rows("iceberg update", argc, argv, true, &a);
    return rc != CLI_OK ? rc : run_rows(&a, true);
}
