/* Shared pieces of the basalt CLI: one command group per file, each exposing
 * a `cli_<group>_main(argc, argv)` that returns the exit status:
 * 0 ok, 1 failure, 2 usage error. */
#ifndef BASALT_CLI_H
#define BASALT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "basalt/basalt.h"

enum { CLI_OK = 0, CLI_FAILURE = 1, CLI_USAGE = 2 };

struct cli_group {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv); /* argv[0] is the group name */
};

/* A verb inside a group. */
struct cli_verb {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv); /* argv[0] is the verb name */
};

/* Dispatches argv[1] to a verb of `group`, handling --help and unknown verbs. */
int cli_dispatch_verbs(const char *group, const struct cli_verb *verbs, int argc, char **argv);

/* Prints "basalt: <message>" on stderr and returns CLI_USAGE. */
int cli_usage_error(const char *fmt, ...) BASALT_PRINTF(1, 2);
/* Prints "basalt: <message>" on stderr and returns CLI_FAILURE. */
int cli_fail(const char *fmt, ...) BASALT_PRINTF(1, 2);
/* Prints a basalt_error as one line and returns CLI_FAILURE. */
int cli_fail_error(const struct basalt_error *err);
bool cli_is_help(const char *arg);

/* Reads a whole file (or stdin for "-") into a basalt_malloc'd buffer. */
basalt_status cli_read_file(const char *path, unsigned char **data, size_t *len,
                            struct basalt_error *err);
basalt_status cli_write_file(const char *path, const void *data, size_t len,
                             struct basalt_error *err);

int cli_avro_main(int argc, char **argv);
int cli_codec_main(int argc, char **argv);
int cli_hash_main(int argc, char **argv);
int cli_iceberg_main(int argc, char **argv);
int cli_info_main(int argc, char **argv);
int cli_parquet_main(int argc, char **argv);
int cli_parquet_rewrite_main(int argc, char **argv); /* a verb of the parquet group */

#endif
