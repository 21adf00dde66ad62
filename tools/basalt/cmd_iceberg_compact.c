/* basalt iceberg compact | rewrite-manifests | remove-orphans | cherry-pick:
 * table maintenance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_maintain.h"
#include "cli.h"
#include "cmd_iceberg.h"

static bool help_asked(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

static bool parse_count(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long n = strtoll(s, &end, 10);
    if (end == s || *end || n < lo || n > hi)
        return false;
    *out = n;
    return true;
}

int cli_iceberg_compact(int argc, char **argv)
{
    if (help_asked(argc, argv)) {
        printf("usage: basalt iceberg compact NAME [--strategy binpack|sort] [--sort 'col desc, ...']\n"
               "                              [--target-file-size BYTES] [--min-input-files N]\n"
               "                              [--where EXPR] [--all] [--branch B] [--threads N]\n"
               "                              [options]\n\n"
               "Rewrites the small data files of table NAME (below 0.75 x the target size),\n"
               "the large ones (above 1.8 x) and those with deletes into files near the target\n"
               "(--target-file-size, default write.target-file-size-bytes, 512 MiB), partition\n"
               "by partition, deletes applied. A partition is rewritten when it has at least\n"
               "--min-input-files such files (default 5), more bytes of them than the target,\n"
               "or deletes. --strategy sort sorts each partition's rows by --sort (default the\n"
               "table's sort order). --where: only files that may hold matching rows. --all:\n"
               "every file. One snapshot, operation replace; the delete files that applied only\n"
               "to rewritten files are removed with them.\n\n"
               "options:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    struct basalt_iceberg_compact_options o;
    basalt_iceberg_compact_options_init(&o);
    const char *name = NULL;
    long long threads = 1, n;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&common, "iceberg compact", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "binpack") == 0)
                o.strategy = BASALT_ICEBERG_COMPACT_BINPACK;
            else if (strcmp(s, "sort") == 0)
                o.strategy = BASALT_ICEBERG_COMPACT_SORT;
            else
                return cli_usage_error("iceberg compact: --strategy is binpack or sort");
        } else if (strcmp(argv[i], "--sort") == 0 && i + 1 < argc) {
            o.sort = argv[++i];
            o.strategy = BASALT_ICEBERG_COMPACT_SORT;
        } else if (strcmp(argv[i], "--target-file-size") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 1, (long long)1 << 50, &n))
                return cli_usage_error("iceberg compact: --target-file-size wants bytes");
            o.target_file_size = n;
        } else if (strcmp(argv[i], "--min-input-files") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 1, 1000000, &n))
                return cli_usage_error("iceberg compact: --min-input-files wants a count >= 1");
            o.min_input_files = (int32_t)n;
        } else if (strcmp(argv[i], "--where") == 0 && i + 1 < argc) {
            o.filter = argv[++i];
        } else if (strcmp(argv[i], "--all") == 0) {
            o.rewrite_all = true;
        } else if (strcmp(argv[i], "--branch") == 0 && i + 1 < argc) {
            o.branch = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 1, 256, &threads))
                return cli_usage_error("iceberg compact: --threads is 1 to 256");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("iceberg compact: unknown option '%s'", argv[i]);
        } else if (!name) {
            name = argv[i];
        } else {
            return cli_usage_error("iceberg compact: unexpected argument '%s'", argv[i]);
        }
    }
    if (!name)
        return cli_usage_error("iceberg compact: expected NAME");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_pool *pool = NULL;
    struct basalt_iceberg_compact_result r;
    memset(&r, 0, sizeof r);
    basalt_status st = cli_iceberg_open_catalog(&common, false, &c, &err);
    if (st == BASALT_OK && threads > 1)
        st = basalt_pool_new((int)threads - 1, &pool, &err);
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(c, &committer);
        o.pool = pool;
        st = basalt_iceberg_compact(&committer, name, &o, &r, &err);
    }
    basalt_pool_free(pool);
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    if (r.snapshot_id == 0)
        printf("%s: nothing to compact\n", name);
    else
        printf("%s: compacted %u partitions: %u data files (%lld bytes) rewritten into %u "
               "(%lld bytes), %lld rows, %u delete files removed: snapshot %lld\n",
               name, r.groups, r.data_files_removed, (long long)r.bytes_removed,
               r.data_files_added, (long long)r.bytes_added, (long long)r.rows,
               r.delete_files_removed, (long long)r.snapshot_id);
    return CLI_OK;
}

int cli_iceberg_rewrite_manifests(int argc, char **argv)
{
    if (help_asked(argc, argv)) {
        printf("usage: basalt iceberg rewrite-manifests NAME [--target-size BYTES] [--branch B]\n"
               "                                        [options]\n\n"
               "Regroups the data manifests of table NAME's current snapshot by partition into\n"
               "manifests of about --target-size bytes (default\n"
               "commit.manifest.target-size-bytes, 8 MiB), entries kept as they are. One\n"
               "snapshot, operation replace; the rows do not change.\n\n"
               "options:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    struct basalt_iceberg_rewrite_manifests_options o;
    basalt_iceberg_rewrite_manifests_options_init(&o);
    const char *name = NULL;
    long long n;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&common, "iceberg rewrite-manifests", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (strcmp(argv[i], "--target-size") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], 1, (long long)1 << 40, &n))
                return cli_usage_error("iceberg rewrite-manifests: --target-size wants bytes");
            o.target_size = n;
        } else if (strcmp(argv[i], "--branch") == 0 && i + 1 < argc) {
            o.branch = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("iceberg rewrite-manifests: unknown option '%s'", argv[i]);
        } else if (!name) {
            name = argv[i];
        } else {
            return cli_usage_error("iceberg rewrite-manifests: unexpected argument '%s'", argv[i]);
        }
    }
    if (!name)
        return cli_usage_error("iceberg rewrite-manifests: expected NAME");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_rewrite_manifests_result r;
    memset(&r, 0, sizeof r);
    basalt_status st = cli_iceberg_open_catalog(&common, false, &c, &err);
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(c, &committer);
        st = basalt_iceberg_rewrite_manifests(&committer, name, &o, &r, &err);
    }
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    if (r.snapshot_id == 0)
        printf("%s: no data manifest to rewrite\n", name);
    else
        printf("%s: %u data manifests rewritten into %u (%lld entries), %u kept: snapshot %lld\n",
               name, r.manifests_replaced, r.manifests_created, (long long)r.entries,
               r.manifests_kept, (long long)r.snapshot_id);
    return CLI_OK;
}

static void print_orphan(void *ctx, const char *location)
{
    if (*(const bool *)ctx)
        printf("%s\n", location);
}

int cli_iceberg_remove_orphans(int argc, char **argv)
{
    if (help_asked(argc, argv)) {
        printf("usage: basalt iceberg remove-orphans NAME [--older-than TIME] [--dry-run] [--list]\n"
               "                                     [options]\n\n"
               "Deletes the files under table NAME's location that no snapshot, manifest,\n"
               "statistics file or metadata file of the table reaches and that were modified\n"
               "before --older-than (ISO-8601 or epoch ms; default now minus 3 days).\n"
               "--dry-run: count them only. --list: print each one.\n\n"
               "options:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    struct basalt_iceberg_remove_orphans_options o;
    basalt_iceberg_remove_orphans_options_init(&o);
    const char *name = NULL;
    bool list = false;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&common, "iceberg remove-orphans", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (strcmp(argv[i], "--older-than") == 0 && i + 1 < argc) {
            if (!cli_parse_time(argv[++i], &o.older_than_ms))
                return cli_usage_error("iceberg remove-orphans: --older-than wants ISO-8601 or "
                                       "epoch milliseconds, got '%s'", argv[i]);
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            o.dry_run = true;
        } else if (strcmp(argv[i], "--list") == 0) {
            list = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("iceberg remove-orphans: unknown option '%s'", argv[i]);
        } else if (!name) {
            name = argv[i];
        } else {
            return cli_usage_error("iceberg remove-orphans: unexpected argument '%s'", argv[i]);
        }
    }
    if (!name)
        return cli_usage_error("iceberg remove-orphans: expected NAME");
    struct basalt_iceberg_table *t = NULL;
    int rc = cli_iceberg_open_table(name, &common, &t);
    if (rc != CLI_OK)
        return rc;
    o.visit = print_orphan;
    o.visit_ctx = &list;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_iceberg_remove_orphans_result r;
    basalt_status st = basalt_iceberg_remove_orphans(t, &o, &r, &err);
    basalt_iceberg_table_free(t);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("%s%s: %llu files listed, %llu reachable; %llu orphans %s, %llu too young kept\n",
           o.dry_run ? "dry run: " : "", name, (unsigned long long)r.files_listed,
           (unsigned long long)r.files_reachable, (unsigned long long)r.orphans,
           o.dry_run ? "to delete" : "deleted", (unsigned long long)r.too_young);
    return CLI_OK;
}

int cli_iceberg_cherry_pick(int argc, char **argv)
{
    if (help_asked(argc, argv)) {
        printf("usage: basalt iceberg cherry-pick NAME SNAPSHOT_ID [--branch B] [options]\n\n"
               "Applies snapshot SNAPSHOT_ID of table NAME (an append, e.g. one written to\n"
               "another branch or staged) onto branch B (default main): fast-forward when its\n"
               "parent is the head, else a new append snapshot of its files whose summary\n"
               "names it (source-snapshot-id). A snapshot already in the branch's history or\n"
               "already picked into it is refused.\n\n"
               "options:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    const char *name = NULL, *branch = NULL, *id_text = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&common, "iceberg cherry-pick", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (strcmp(argv[i], "--branch") == 0 && i + 1 < argc) {
            branch = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] && !(argv[i][1] >= '0' && argv[i][1] <= '9')) {
            return cli_usage_error("iceberg cherry-pick: unknown option '%s'", argv[i]);
        } else if (!name) {
            name = argv[i];
        } else if (!id_text) {
            id_text = argv[i];
        } else {
            return cli_usage_error("iceberg cherry-pick: unexpected argument '%s'", argv[i]);
        }
    }
    long long id;
    if (!name || !id_text)
        return cli_usage_error("iceberg cherry-pick: expected NAME and SNAPSHOT_ID");
    if (!parse_count(id_text, -(long long)(~0ULL >> 1) - 1, (long long)(~0ULL >> 1), &id))
        return cli_usage_error("iceberg cherry-pick: '%s' is not a snapshot id", id_text);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_cherry_pick_result r;
    memset(&r, 0, sizeof r);
    basalt_status st = cli_iceberg_open_catalog(&common, false, &c, &err);
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(c, &committer);
        st = basalt_iceberg_cherry_pick(&committer, name, (int64_t)id, branch, 10, &r, &err);
    }
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    if (r.fast_forward)
        printf("%s: %s fast-forwarded to snapshot %lld\n", name, branch ? branch : "main",
               (long long)r.snapshot_id);
    else
        printf("%s: picked snapshot %lld onto %s: %u files, snapshot %lld\n", name, id,
               branch ? branch : "main", r.files_added, (long long)r.snapshot_id);
    return CLI_OK;
}
