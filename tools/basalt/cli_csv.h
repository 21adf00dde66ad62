/* CSV reading options shared by `basalt csv ...` and the table-writing verbs
 * that take CSV input (cmd_csv.c). */
#ifndef BASALT_CLI_CSV_H
#define BASALT_CLI_CSV_H

#include <stdbool.h>

#include "basalt/basalt.h"

#define CLI_CSV_MAX_LIST 1024

struct cli_csv_args {
    struct basalt_csv_read_options opts;
    /* storage behind the option arrays (names point into argv or `text`) */
    const char *names[CLI_CSV_MAX_LIST];
    struct basalt_csv_column_type types[CLI_CSV_MAX_LIST];
    const char *type_names[CLI_CSV_MAX_LIST];
    const char *nulls[64];
    char *text; /* owned copies of the lists' text */
    int threads;
    bool stats;
};

/* The help lines of the reading options. */
extern const char cli_csv_read_help[];

void cli_csv_args_init(struct cli_csv_args *a);
void cli_csv_args_free(struct cli_csv_args *a);
/* Takes argv[*i] (and its value argv[*i + 1]) when it is a reading option:
 * *taken tells whether it was. Returns CLI_OK or CLI_USAGE (after a message). */
int cli_csv_option(struct cli_csv_args *a, const char *verb, int argc, char **argv, int *i,
                   bool *taken);
/* Opens `uri` (a local path is mapped; a URI goes through the store) with
 * the options; `pool` may be NULL. */
basalt_status cli_csv_open(const char *uri, const struct basalt_csv_read_options *opts,
                           struct basalt_csv_reader **out, struct basalt_error *err);
/* Whether `path` names a CSV file by its extension (.csv, .tsv, any case). */
bool cli_csv_is_csv_name(const char *path);

#endif
