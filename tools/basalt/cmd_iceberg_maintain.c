/* basalt iceberg expire: table maintenance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_commit.h"
#include "cli.h"
#include "cmd_iceberg.h"

int cli_iceberg_expire(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf("usage: basalt iceberg expire NAME [--older-than TIME] [--retain N] [--keep-files]\n"
                   "                              [--dry-run] [options]\n\n"
                   "Expires the snapshots of table NAME that no branch or tag retains: each\n"
                   "branch keeps its head, its last N snapshots (--retain, default the table's\n"
                   "history.expire.min-snapshots-to-keep, 1) and those newer than --older-than\n"
                   "(ISO-8601 or epoch ms; default now minus history.expire.max-snapshot-age-ms,\n"
                   "5 days). Then deletes the data files, manifests and manifest lists that only\n"
                   "expired snapshots used (--keep-files: leave them). --dry-run: count only.\n\n"
                   "options:\n%s",
                   cli_iceberg_common_help);
            return CLI_OK;
        }
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    struct basalt_iceberg_expire_options o;
    basalt_iceberg_expire_options_init(&o);
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&common, "iceberg expire", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (strcmp(argv[i], "--older-than") == 0 && i + 1 < argc) {
            if (!cli_parse_time(argv[++i], &o.older_than_ms))
                return cli_usage_error("iceberg expire: --older-than wants ISO-8601 or epoch "
                                       "milliseconds, got '%s'", argv[i]);
        } else if (strcmp(argv[i], "--retain") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 1000000)
                return cli_usage_error("iceberg expire: --retain wants a count of 1 or more");
            o.retain_last = (int32_t)n;
        } else if (strcmp(argv[i], "--keep-files") == 0) {
            o.clean_files = false;
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            o.dry_run = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("iceberg expire: unknown option '%s'", argv[i]);
        } else if (!name) {
            name = argv[i];
        } else {
            return cli_usage_error("iceberg expire: unexpected argument '%s'", argv[i]);
        }
    }
    if (!name)
        return cli_usage_error("iceberg expire: expected NAME");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_expire_result r;
    memset(&r, 0, sizeof r);
    basalt_status st = cli_iceberg_open_catalog(&common, false, &c, &err);
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(c, &committer);
        st = basalt_iceberg_expire_snapshots(&committer, name, &o, &r, &err);
    }
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("%s%s: %u snapshots expired, %u refs removed; deleted %u data files, %u manifests, "
           "%u manifest lists\n",
           o.dry_run ? "dry run: " : "", name, r.snapshots_expired, r.refs_removed, r.files_deleted,
           r.manifests_deleted, r.manifest_lists_deleted);
    return CLI_OK;
}
