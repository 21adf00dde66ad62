/* The `basalt iceberg` verbs, split over cmd_iceberg.c (catalog and metadata
 * verbs, opening a table from the command line) and cmd_iceberg_scan.c
 * (plans, scans and counts). */
#ifndef BASALT_CMD_ICEBERG_H
#define BASALT_CMD_ICEBERG_H

#include "basalt/catalog.h"

/* The catalog used when --catalog is not given. */
#define CLI_ICEBERG_DEFAULT_CATALOG "sqlite:./warehouse/catalog.db"
/* The most --map options one command takes. */
#define CLI_ICEBERG_MAX_MAPS 32

/* Options every iceberg verb that opens a table understands:
 *   --catalog URI        the catalog for identifiers ("sqlite:PATH" or a
 *                        warehouse directory; default CLI_ICEBERG_DEFAULT_CATALOG)
 *   --catalog-name NAME  the catalog_name of a SQL catalog (default "default")
 *   --map PREFIX=DIR     read locations starting with PREFIX from DIR
 *                        (repeatable; longest prefix wins)
 * and, for REST catalogs (--catalog rest+http(s)://HOST:PORT[/PATH]):
 *   --token TOKEN        a bearer token (else $BASALT_REST_TOKEN)
 *   --credential ID:SECRET  OAuth2 client credentials (else
 *                        $BASALT_REST_CREDENTIAL), exchanged for tokens
 *   --oauth2-server-uri URI  the token endpoint (default: the catalog's)
 *   --warehouse W        the warehouse asked for in GET /v1/config (other
 *                        catalogs: where new tables go)
 *   --vended-credentials ask the catalog for the tables' storage credentials
 * Each also in the form --option=VALUE. Strings point into argv (the last
 * '=' of a --map value is overwritten with a NUL to end the prefix). */
struct cli_iceberg_common {
    const char *catalog;
    const char *catalog_name;
    const char *map_prefix[CLI_ICEBERG_MAX_MAPS];
    const char *map_dir[CLI_ICEBERG_MAX_MAPS];
    int n_maps;
    const char *token;
    const char *credential;
    const char *oauth2_server_uri;
    const char *warehouse;
    bool vended_credentials;
    bool stage_create; /* iceberg create --stage-create */
};

/* The help lines of the common options, to print in a verb's --help. */
extern const char cli_iceberg_common_help[];

/* Sets the defaults. */
void cli_iceberg_common_init(struct cli_iceberg_common *common);

/* Results of cli_iceberg_common_option. */
enum { CLI_ICEBERG_OPT_NOT_MINE = 0, CLI_ICEBERG_OPT_TAKEN = 1, CLI_ICEBERG_OPT_ERROR = -1 };

/* Looks at argv[*i]: when it is a common option, stores it, advances *i past
 * its value (so the caller's loop continues at the next argument) and
 * returns CLI_ICEBERG_OPT_TAKEN; returns CLI_ICEBERG_OPT_NOT_MINE for
 * anything else; on a malformed one (missing value, --map without '=', too
 * many maps) prints one usage line on stderr and returns
 * CLI_ICEBERG_OPT_ERROR (the verb then returns CLI_USAGE). `verb` names the
 * verb in messages ("iceberg scan"). */
int cli_iceberg_common_option(struct cli_iceberg_common *common, const char *verb, int argc,
                              char **argv, int *i);

/* Opens the table named by `arg`: a path (metadata file, metadata directory
 * or table directory) when it exists on disk, else an identifier
 * "ns.table" in the catalog of `common` (opened read-only: a missing
 * catalog is a failure). The --map mappings apply either way. On success
 * *out is the table (basalt_iceberg_table_free) and CLI_OK is returned; on
 * failure one line is printed on stderr and CLI_FAILURE is returned. */
int cli_iceberg_open_table(const char *arg, const struct cli_iceberg_common *common,
                           struct basalt_iceberg_table **out);

/* Opens the catalog of `common` (creating a missing one when `create`),
 * with its --map mappings and the CLI's store. */
basalt_status cli_iceberg_open_catalog(const struct cli_iceberg_common *common, bool create,
                                       struct basalt_catalog **out,
                                       struct basalt_error *err);

/* Epoch milliseconds, or ISO-8601 "YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|+HH:MM]"
 * (UTC without a zone), into *ms. False when malformed. */
bool cli_parse_time(const char *s, int64_t *ms);

int cli_iceberg_create(int argc, char **argv);
int cli_iceberg_expire(int argc, char **argv);
int cli_iceberg_delete(int argc, char **argv);
int cli_iceberg_update(int argc, char **argv);
int cli_iceberg_overwrite(int argc, char **argv);
int cli_iceberg_append(int argc, char **argv);
int cli_iceberg_evolve(int argc, char **argv);
int cli_iceberg_branch(int argc, char **argv);
int cli_iceberg_tag(int argc, char **argv);
int cli_iceberg_files(int argc, char **argv);
int cli_iceberg_scan(int argc, char **argv);
int cli_iceberg_count(int argc, char **argv);
int cli_iceberg_compact(int argc, char **argv);
int cli_iceberg_rewrite_manifests(int argc, char **argv);
int cli_iceberg_remove_orphans(int argc, char **argv);
int cli_iceberg_cherry_pick(int argc, char **argv);

/* basalt iceberg view (cmd_iceberg_view.c): create, show, list, replace,
 * drop, rename. */
int cli_iceberg_view(int argc, char **argv);

#endif
