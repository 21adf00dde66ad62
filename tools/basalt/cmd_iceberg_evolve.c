/* basalt iceberg evolve / branch / tag: schema and partition evolution,
 * properties, and the table's named refs. Each is one commit of
 * requirements and updates; when another writer commits first, the change
 * is computed again on the new metadata and retried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "cli.h"
#include "cmd_iceberg.h"

/* Attempts of a change that keeps losing to other writers. */
#define RETRIES 10

/* Computes the requirements and updates of a change against `m`. */
typedef basalt_status (*change_fn)(const struct basalt_iceberg_metadata *m, void *ctx,
                                   char **requirements, char **updates,
                                   struct basalt_error *err);

static basalt_status commit_change(struct basalt_catalog *c, const char *name, change_fn fn,
                                   void *ctx, struct basalt_error *err)
{
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT && attempt < RETRIES; attempt++) {
        struct basalt_iceberg_table *t = NULL;
        char *reqs = NULL, *ups = NULL;
        st = basalt_catalog_load_table(c, name, &t, err);
        if (st == BASALT_OK)
            st = fn(t->metadata, ctx, &reqs, &ups, err);
        if (st == BASALT_OK)
            st = basalt_catalog_commit_table(c, name, reqs, ups, NULL, err);
        basalt_free(reqs);
        basalt_free(ups);
        basalt_iceberg_table_free(t);
    }
    return st;
}

/* Dumps requirements and updates built as JSON text by printf. */
static basalt_status texts(char **requirements, char **updates, const char *reqs,
                           const char *ups, struct basalt_error *err)
{
    *requirements = basalt_strdup(reqs);
    *updates = basalt_strdup(ups);
    if (!*requirements || !*updates) {
        basalt_free(*requirements);
        basalt_free(*updates);
        *requirements = *updates = NULL;
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

/* A JSON string literal of s (printable ASCII and UTF-8 kept; quotes,
 * backslashes and controls escaped) into buf. */
static const char *json_text(const char *s, char *buf, size_t cap)
{
    size_t k = 0;
    buf[k++] = '"';
    for (; *s && k + 8 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            buf[k++] = '\\';
            buf[k++] = (char)ch;
        } else if (ch < 0x20) {
            k += (size_t)snprintf(buf + k, cap - k, "\\u%04x", ch);
        } else {
            buf[k++] = (char)ch;
        }
    }
    buf[k++] = '"';
    buf[k] = '\0';
    return buf;
}

/* ------------------------------------------------------------------ evolve */

struct evolve {
    const char *op;
    const char *args[3];
    int n_args;
};

static const struct {
    const char *op;
    enum basalt_iceberg_column_change_kind kind;
    int n_args; /* after the column */
} column_ops[] = {
    {"add-column", BASALT_ICEBERG_ADD_COLUMN, 1},   {"drop-column", BASALT_ICEBERG_DROP_COLUMN, 0},
    {"rename-column", BASALT_ICEBERG_RENAME_COLUMN, 1}, {"update-column", BASALT_ICEBERG_UPDATE_COLUMN, 1},
    {"make-optional", BASALT_ICEBERG_MAKE_OPTIONAL, 0}, {"set-doc", BASALT_ICEBERG_SET_DOC, 1},
};

static basalt_status evolve_change(const struct basalt_iceberg_metadata *m, void *ctx,
                                   char **requirements, char **updates, struct basalt_error *err)
{
    const struct evolve *e = ctx;
    for (size_t i = 0; i < sizeof column_ops / sizeof column_ops[0]; i++)
        if (strcmp(e->op, column_ops[i].op) == 0) {
            struct basalt_iceberg_column_change c = {column_ops[i].kind, e->args[0],
                                                     e->n_args > 1 ? e->args[1] : NULL};
            return basalt_iceberg_schema_changes(m, &c, 1, requirements, updates, err);
        }
    if (strcmp(e->op, "move-column") == 0) {
        struct basalt_iceberg_column_change c = {BASALT_ICEBERG_MOVE_FIRST, e->args[0], NULL};
        if (strcmp(e->args[1], "after") == 0 || strcmp(e->args[1], "before") == 0) {
            c.kind = e->args[1][0] == 'a' ? BASALT_ICEBERG_MOVE_AFTER : BASALT_ICEBERG_MOVE_BEFORE;
            c.value = e->n_args > 2 ? e->args[2] : NULL;
        }
        return basalt_iceberg_schema_changes(m, &c, 1, requirements, updates, err);
    }
    if (strcmp(e->op, "add-partition-field") == 0)
        return basalt_iceberg_spec_changes(m, e->args[0], NULL, 0, requirements, updates, err);
    if (strcmp(e->op, "drop-partition-field") == 0)
        return basalt_iceberg_spec_changes(m, NULL, &e->args[0], 1, requirements, updates, err);
    char a[1024], b[1024], ups[2200];
    if (strcmp(e->op, "set-property") == 0) {
        const char *eq = strchr(e->args[0], '=');
        char key[512];
        snprintf(key, sizeof key, "%.*s", (int)(eq - e->args[0]), e->args[0]);
        snprintf(ups, sizeof ups, "[{\"action\":\"set-properties\",\"updates\":{%s:%s}}]",
                 json_text(key, a, sizeof a), json_text(eq + 1, b, sizeof b));
        return texts(requirements, updates, "[]", ups, err);
    }
    if (strcmp(e->op, "remove-property") == 0) {
        snprintf(ups, sizeof ups, "[{\"action\":\"remove-properties\",\"removals\":[%s]}]",
                 json_text(e->args[0], a, sizeof a));
        return texts(requirements, updates, "[]", ups, err);
    }
    return basalt_error_set(err, BASALT_INVALID_ARG, "unknown change '%s'", e->op);
}

static const char evolve_help[] =
    "usage: basalt iceberg evolve NAME CHANGE ARGS... [options]\n\n"
    "Changes table NAME's schema, partitioning or properties in one commit.\n"
    "CHANGE:\n"
    "  add-column COLUMN TYPE         a new optional column (\"loc.alt\" adds alt to\n"
    "                                 struct loc; TYPE as in create --schema)\n"
    "  drop-column COLUMN\n"
    "  rename-column COLUMN NEW-NAME\n"
    "  update-column COLUMN TYPE      int -> long, float -> double, wider decimal\n"
    "  make-optional COLUMN\n"
    "  move-column COLUMN first | after OTHER | before OTHER\n"
    "  set-doc COLUMN TEXT\n"
    "  add-partition-field CLAUSE     e.g. 'bucket(16, id)' or 'day(ts)'\n"
    "  drop-partition-field FIELD     a partition field's name, e.g. id_bucket\n"
    "  set-property KEY=VALUE\n"
    "  remove-property KEY\n\n"
    "options:\n";

int cli_iceberg_evolve(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf("%s%s", evolve_help, cli_iceberg_common_help);
            return CLI_OK;
        }
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    const char *pos[6];
    int n_pos = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&common, "iceberg evolve", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (n_pos == 6)
            return cli_usage_error("iceberg evolve: unexpected argument '%s'", argv[i]);
        pos[n_pos++] = argv[i];
    }
    if (n_pos < 3)
        return cli_usage_error("iceberg evolve: expected NAME CHANGE ARGS...");
    struct evolve e = {.op = pos[1], .n_args = n_pos - 2};
    for (int i = 0; i < e.n_args && i < 3; i++)
        e.args[i] = pos[i + 2];
    int want = -1;
    for (size_t i = 0; i < sizeof column_ops / sizeof column_ops[0]; i++)
        if (strcmp(e.op, column_ops[i].op) == 0)
            want = 1 + column_ops[i].n_args;
    if (!strcmp(e.op, "add-partition-field") || !strcmp(e.op, "drop-partition-field") ||
        !strcmp(e.op, "remove-property"))
        want = 1;
    if (!strcmp(e.op, "set-property"))
        want = strchr(e.args[0], '=') && e.args[0][0] != '=' ? 1 : -2;
    if (!strcmp(e.op, "move-column"))
        want = e.n_args >= 2 && !strcmp(e.args[1], "first") ? 2 : 3;
    if (want == -1)
        return cli_usage_error("iceberg evolve: unknown change '%s' (see --help)", e.op);
    if (want != e.n_args)
        return cli_usage_error("iceberg evolve: %s takes %d argument%s", e.op, want < 0 ? 1 : want,
                               want == 1 ? " (KEY=VALUE for set-property)" : "s");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&common, false, &c, &err);
    if (st == BASALT_OK)
        st = commit_change(c, pos[0], evolve_change, &e, &err);
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("%s: %s done\n", pos[0], e.op);
    return CLI_OK;
}

/* ------------------------------------------------------------ branch / tag */

struct ref_change {
    bool tag;
    const char *verb;   /* create, replace, drop, fast-forward */
    const char *ref;
    const char *target; /* a snapshot id, or for fast-forward the branch to move to */
};

static basalt_status ref_change(const struct basalt_iceberg_metadata *m, void *ctx,
                                char **requirements, char **updates, struct basalt_error *err)
{
    const struct ref_change *r = ctx;
    const struct basalt_iceberg_ref *cur = basalt_iceberg_metadata_ref(m, r->ref);
    char name[600], reqs[1400], ups[1400];
    json_text(r->ref, name, sizeof name);
    if (strcmp(r->verb, "drop") == 0) {
        if (!cur)
            return basalt_error_set(err, BASALT_NOT_FOUND, "no branch or tag '%s'", r->ref);
        if (strcmp(r->ref, "main") == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "the main branch cannot be dropped");
        snprintf(reqs, sizeof reqs,
                 "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":%s,\"snapshot-id\":%lld}]", name,
                 (long long)cur->snapshot_id);
        snprintf(ups, sizeof ups, "[{\"action\":\"remove-snapshot-ref\",\"ref-name\":%s}]", name);
        return texts(requirements, updates, reqs, ups, err);
    }
    int64_t id = 0;
    if (strcmp(r->verb, "fast-forward") == 0) {
        /* Move the branch to where another branch is, when the other is
         * ahead of it: its snapshot descends from the branch's. */
        const struct basalt_iceberg_ref *to = basalt_iceberg_metadata_ref(m, r->target);
        if (!cur || !to)
            return basalt_error_set(err, BASALT_NOT_FOUND, "no branch '%s'",
                                    cur ? r->target : r->ref);
        if (cur->is_tag || to->is_tag)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "fast-forward moves a branch to a branch; '%s' is a tag",
                                    cur->is_tag ? r->ref : r->target);
        bool ancestor = false;
        for (const struct basalt_iceberg_snapshot *s = basalt_iceberg_metadata_snapshot(m, to->snapshot_id);
             s; s = s->has_parent_snapshot_id ? basalt_iceberg_metadata_snapshot(m, s->parent_snapshot_id) : NULL)
            if (s->snapshot_id == cur->snapshot_id) {
                ancestor = true;
                break;
            }
        if (!ancestor)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "cannot fast-forward '%s' to '%s': it is not an ancestor",
                                    r->ref, r->target);
        id = to->snapshot_id;
    } else {
        char *end;
        id = r->target ? strtoll(r->target, &end, 10) : 0;
        if (!r->target) {
            const struct basalt_iceberg_snapshot *s = basalt_iceberg_metadata_current_snapshot(m);
            if (!s)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "the table has no snapshot yet: give --snapshot");
            id = s->snapshot_id;
        } else if (*end || !basalt_iceberg_metadata_snapshot(m, id)) {
            return basalt_error_set(err, BASALT_NOT_FOUND, "no snapshot '%s'", r->target);
        }
        if (strcmp(r->verb, "create") == 0 && cur)
            return basalt_error_set(err, BASALT_CONFLICT, "'%s' already exists", r->ref);
        if (strcmp(r->verb, "replace") == 0 && !cur)
            return basalt_error_set(err, BASALT_NOT_FOUND, "no branch or tag '%s'", r->ref);
    }
    char expected[32];
    if (cur)
        snprintf(expected, sizeof expected, "%lld", (long long)cur->snapshot_id);
    else
        strcpy(expected, "null");
    snprintf(reqs, sizeof reqs,
             "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":%s,\"snapshot-id\":%s}]", name, expected);
    snprintf(ups, sizeof ups,
             "[{\"action\":\"set-snapshot-ref\",\"ref-name\":%s,\"type\":\"%s\",\"snapshot-id\":%lld}]",
             name, r->tag ? "tag" : "branch", (long long)id);
    return texts(requirements, updates, reqs, ups, err);
}

static int ref_verb(int argc, char **argv, bool tag)
{
    const char *what = tag ? "tag" : "branch";
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf("usage: basalt iceberg %s NAME create|replace|drop %s [--snapshot ID]%s\n\n"
                   "Creates, moves or drops a %s of table NAME. create and replace point it at\n"
                   "--snapshot (default: the current snapshot).%s\n\noptions:\n%s",
                   what, tag ? "TAG" : "BRANCH", tag ? "" : "\n       basalt iceberg branch NAME fast-forward BRANCH TO-BRANCH",
                   what,
                   tag ? "" : " fast-forward moves BRANCH to where\nTO-BRANCH is, when TO-BRANCH descends from it.",
                   cli_iceberg_common_help);
            return CLI_OK;
        }
    struct cli_iceberg_common common;
    cli_iceberg_common_init(&common);
    const char *pos[4];
    int n_pos = 0;
    const char *snapshot = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&common, "iceberg ref", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (strcmp(argv[i], "--snapshot") == 0 && i + 1 < argc) {
            snapshot = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("iceberg %s: unknown option '%s'", what, argv[i]);
        } else if (n_pos < 4) {
            pos[n_pos++] = argv[i];
        } else {
            return cli_usage_error("iceberg %s: unexpected argument '%s'", what, argv[i]);
        }
    }
    struct ref_change rc = {.tag = tag, .target = snapshot};
    bool ff = n_pos >= 2 && strcmp(pos[1], "fast-forward") == 0;
    if (n_pos != (ff ? 4 : 3) ||
        (strcmp(pos[1], "create") && strcmp(pos[1], "replace") && strcmp(pos[1], "drop") &&
         (tag || !ff)))
        return cli_usage_error("iceberg %s: expected NAME create|replace|drop %s%s", what,
                               tag ? "TAG" : "BRANCH", tag ? "" : " (or fast-forward BRANCH TO)");
    rc.verb = pos[1];
    rc.ref = pos[2];
    if (ff)
        rc.target = pos[3];
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&common, false, &c, &err);
    if (st == BASALT_OK)
        st = commit_change(c, pos[0], ref_change, &rc, &err);
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("%s: %s %s %s\n", pos[0], what, rc.ref, rc.verb);
    return CLI_OK;
}

int cli_iceberg_branch(int argc, char **argv)
{
    return ref_verb(argc, argv, false);
}

int cli_iceberg_tag(int argc, char **argv)
{
    return ref_verb(argc, argv, true);
}
