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

/* Reads a whole file, remote object (through cli_store) or stdin for "-"
 * into a basalt_malloc'd buffer. */
basalt_status cli_read_file(const char *path, unsigned char **data, size_t *len,
                            struct basalt_error *err);
/* Writes `data` to a file, a remote object, or stdout for "-". */
basalt_status cli_write_file(const char *path, const void *data, size_t len,
                             struct basalt_error *err);

/* ------------------------------------------------------------ object stores
 * (cli_store.c). Every command takes the store options; main.c parses them
 * before dispatch and removes them from argv. */

/* The help lines of the store options. */
extern const char cli_store_help[];
/* Takes the store options out of argv[1..*argc) (stopping at "--"), updates
 * *argc and returns CLI_OK, or prints a usage line and returns CLI_USAGE. */
int cli_store_options(int *argc, char **argv);
/* The process-wide store, made on first use from the options; NULL with
 * `err` set when it cannot be made. Borrowed: freed by cli_store_finish. */
struct basalt_io_store *cli_store(struct basalt_error *err);
/* Prints the counters on stderr when --stats was given; frees the store. */
void cli_store_finish(void);
/* Whether --stats was given: commands then print their own counters too. */
bool cli_store_stats_wanted(void);
/* Whether `uri` names a remote object (s3://, gs://, az://, http(s)://...). */
bool cli_is_remote(const char *uri);
/* Opens `uri` for reading: a remote object through the store, a local path
 * (or file:// URI) as a local file. Close with basalt_input_close. */
basalt_status cli_open_input(const char *uri, struct basalt_input **in, struct basalt_error *err);
/* cli_open_input with basalt_io_open_input_flags's flags (BASALT_IO_SEQUENTIAL
 * for an object read front to back). */
basalt_status cli_open_input_flags(const char *uri, unsigned flags, struct basalt_input **in,
                                   struct basalt_error *err);
/* Opens a CSV or JSON lines file for a reader that parses in place: a
 * local one mapped; a remote one streamed into an unlinked temporary file
 * in $TMPDIR and mapped (basalt_input_spool), so it too is parsed a window
 * at a time instead of read whole into memory. */
basalt_status cli_open_text_input(const char *uri, struct basalt_input **in,
                                  struct basalt_error *err);
/* Opens `uri` for writing (flags: BASALT_IO_CREATE_EXCLUSIVE); nothing is
 * visible until basalt_output_commit. */
basalt_status cli_open_output(const char *uri, unsigned flags, struct basalt_output **out,
                              struct basalt_error *err);
/* "512 B", "4.1 MiB". */
void cli_format_bytes(uint64_t n, char *buf, size_t cap);

/* Keys for encrypted Parquet files (cli_keys.c; the --key-file format is
 * described there and in `basalt parquet cat --help`). */
enum cli_key_kind { CLI_KEY_ANY = 0, CLI_KEY_FOOTER, CLI_KEY_ID, CLI_KEY_COLUMN, CLI_KEY_MASTER };

struct cli_key_entry {
    char *name;
    int kind; /* enum cli_key_kind */
    uint8_t key[BASALT_PARQUET_MAX_KEY_SIZE];
    size_t len;
};

struct cli_keys {
    bool loaded;
    struct cli_key_entry *entries;
    size_t n;
    const char *aad_prefix;  /* --aad-prefix, borrowed from argv */
    /* what cli_keys_decryption builds */
    struct basalt_parquet_decryption dec;
    struct basalt_parquet_column_key *columns;
    struct basalt_parquet_master_key *masters;
    struct basalt_parquet_key_tools tools;
    char material_path[4096];
};

void cli_keys_init(struct cli_keys *k);
/* Wipes the keys and frees. */
void cli_keys_free(struct cli_keys *k);
/* Reads a key file. CLI_OK, CLI_USAGE (malformed), CLI_FAILURE (unreadable). */
int cli_keys_load(const char *path, struct cli_keys *k);
/* --key-file PATH and --aad-prefix TEXT: *taken tells whether `arg` was one
 * of them. Returns a CLI status. */
int cli_keys_option(struct cli_keys *k, const char *arg, const char *val, bool *taken);
/* The entry named `name` (its full name after any prefix), or NULL. */
const struct cli_key_entry *cli_keys_find(const struct cli_keys *k, const char *name);
/* The reader's decryption options for the Parquet file at `parquet_path`
 * (*out NULL when no key file or prefix was given), valid while `k` lives. */
int cli_keys_decryption(struct cli_keys *k, const char *parquet_path,
                        const struct basalt_parquet_decryption **out);

int cli_avro_main(int argc, char **argv);
int cli_catalog_main(int argc, char **argv);
int cli_flight_main(int argc, char **argv);
/* basalt flight shm-serve / shm-get (cmd_shm.c). */
int cli_flight_shm_serve(int argc, char **argv);
int cli_flight_shm_get(int argc, char **argv);
int cli_codec_main(int argc, char **argv);
int cli_csv_main(int argc, char **argv);
int cli_hash_main(int argc, char **argv);
int cli_iceberg_main(int argc, char **argv);
int cli_info_main(int argc, char **argv);
int cli_io_main(int argc, char **argv);
int cli_ipc_main(int argc, char **argv);
int cli_json_main(int argc, char **argv);
int cli_sql_main(int argc, char **argv);
/* basalt sql's rows printer (a result's rows as they come; *engine_s adds
 * the time spent making them) and its interactive shell (sql_shell.c). */
struct basalt_sql_session;
struct basalt_sql_result;
basalt_status cli_sql_print(FILE *out, int format, struct basalt_sql_result *r, double *engine_s,
                            struct basalt_error *err);
int cli_sql_shell(struct basalt_sql_session *s, int format, bool timer);
int cli_parquet_main(int argc, char **argv);
int cli_parquet_rewrite_main(int argc, char **argv); /* a verb of the parquet group */

#endif
