/* basalt iceberg: catalog and metadata verbs (tables, namespaces, describe,
 * snapshots, register, drop), opening a table from the command line, and the
 * dispatcher of the group. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_view.h"
#include "cli.h"
#include "cmd_iceberg.h"
#include "format.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

const char cli_iceberg_common_help[] =
    "  --catalog URI        catalog for table identifiers: sqlite:PATH, postgresql://...,\n"
    "                       a warehouse directory, or an Iceberg REST catalog\n"
    "                       rest+http(s)://HOST:PORT[/PATH][?warehouse=W], AWS Glue\n"
    "                       glue://[REGION] or Amazon S3 Tables s3tables://BUCKET-ARN\n"
    "                       (default " CLI_ICEBERG_DEFAULT_CATALOG ")\n"
    "  --catalog-name NAME  catalog_name in a SQL catalog (default \"default\")\n"
    "  --map PREFIX=DIR     read locations starting with PREFIX from DIR (repeatable)\n"
    "  REST catalogs:\n"
    "  --token TOKEN        bearer token (default $BASALT_REST_TOKEN)\n"
    "  --credential ID:SECRET  OAuth2 client credentials, exchanged for tokens and\n"
    "                       renewed when they expire (default $BASALT_REST_CREDENTIAL)\n"
    "  --oauth2-server-uri URI  token endpoint (default: the catalog's oauth2-server-uri,\n"
    "                       else its /v1/oauth/tokens)\n"
    "  --warehouse W        the warehouse asked for in GET /v1/config (other\n"
    "                       catalogs: where new tables go, e.g. s3://bucket/wh\n"
    "                       for Glue)\n"
    "  --vended-credentials ask for the tables' storage credentials\n"
    "                       (X-Iceberg-Access-Delegation: vended-credentials)\n";

void cli_iceberg_common_init(struct cli_iceberg_common *common)
{
    memset(common, 0, sizeof *common);
    common->catalog = CLI_ICEBERG_DEFAULT_CATALOG;
    common->catalog_name = BASALT_CATALOG_DEFAULT_NAME;
}

/* "--name VALUE" or "--name=VALUE": the value, or NULL when argv[*i] is not
 * this option. *missing is set when the option has no value. */
static const char *option_value(const char *name, int argc, char **argv, int *i, bool *missing)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    *missing = false;
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    if (arg[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

int cli_iceberg_common_option(struct cli_iceberg_common *common, const char *verb, int argc,
                              char **argv, int *i)
{
    if (strcmp(argv[*i], "--vended-credentials") == 0) {
        common->vended_credentials = true;
        return CLI_ICEBERG_OPT_TAKEN;
    }
    static const char *const names[] = {"--catalog",    "--catalog-name",      "--map",
                                        "--token",      "--credential",        "--oauth2-server-uri",
                                        "--warehouse"};
    for (int k = 0; k < 7; k++) {
        bool missing;
        const char *v = option_value(names[k], argc, argv, i, &missing);
        if (missing) {
            cli_usage_error("%s: %s needs a value", verb, names[k]);
            return CLI_ICEBERG_OPT_ERROR;
        }
        if (!v)
            continue;
        if (k == 0) {
            common->catalog = v;
        } else if (k == 1) {
            common->catalog_name = v;
        } else if (k == 3) {
            common->token = v;
        } else if (k == 4) {
            common->credential = v;
        } else if (k == 5) {
            common->oauth2_server_uri = v;
        } else if (k == 6) {
            common->warehouse = v;
        } else {
            const char *eq = strrchr(v, '=');
            if (!eq || eq == v || !eq[1]) {
                cli_usage_error("%s: --map wants PREFIX=DIR, got '%s'", verb, v);
                return CLI_ICEBERG_OPT_ERROR;
            }
            if (common->n_maps == CLI_ICEBERG_MAX_MAPS) {
                cli_usage_error("%s: more than %d --map options", verb, CLI_ICEBERG_MAX_MAPS);
                return CLI_ICEBERG_OPT_ERROR;
            }
            /* The prefix is copied by basalt_iceberg_io_map; keep it in argv
             * by ending it at the last '='. */
            char *cut = argv[*i] + (eq - argv[*i]);
            common->map_prefix[common->n_maps] = v;
            common->map_dir[common->n_maps] = eq + 1;
            *cut = '\0';
            common->n_maps++;
        }
        return CLI_ICEBERG_OPT_TAKEN;
    }
    return CLI_ICEBERG_OPT_NOT_MINE;
}

static basalt_status make_io(const struct cli_iceberg_common *common, struct basalt_iceberg_io **io,
                             struct basalt_error *err)
{
    basalt_status st = basalt_iceberg_io_new(io, err);
    for (int i = 0; st == BASALT_OK && i < common->n_maps; i++)
        st = basalt_iceberg_io_map(*io, common->map_prefix[i], common->map_dir[i], err);
    /* Remote locations (the metadata's or a table's own) are read where
     * they are, through the CLI's store; a --map still wins. */
    struct basalt_io_store *store = st == BASALT_OK ? cli_store(NULL) : NULL;
    if (store)
        basalt_iceberg_io_set_store(*io, store);
    if (st != BASALT_OK) {
        basalt_iceberg_io_free(*io);
        *io = NULL;
    }
    return st;
}

basalt_status cli_iceberg_open_catalog(const struct cli_iceberg_common *common, bool create,
                                       struct basalt_catalog **out,
                                       struct basalt_error *err)
{
    basalt_status st =
        basalt_catalog_open(common->catalog, common->catalog_name, create, out, err);
    if (st == BASALT_OK && strncmp(common->catalog, "rest+", 5) == 0) {
        /* Secrets from the environment keep them out of the process list. */
        struct basalt_catalog_rest_options o;
        basalt_catalog_rest_options_init(&o);
        o.token = common->token ? common->token : getenv("BASALT_REST_TOKEN");
        o.credential = common->credential ? common->credential : getenv("BASALT_REST_CREDENTIAL");
        o.oauth2_server_uri = common->oauth2_server_uri;
        o.vended_credentials = common->vended_credentials;
        o.stage_create = common->stage_create;
        st = basalt_catalog_set_rest_options(*out, &o, err);
    }
    if (st == BASALT_OK && common->warehouse)
        st = basalt_catalog_set_warehouse(*out, common->warehouse, err);
    for (int i = 0; st == BASALT_OK && i < common->n_maps; i++)
        st = basalt_catalog_map(*out, common->map_prefix[i], common->map_dir[i], err);
    struct basalt_io_store *store = st == BASALT_OK ? cli_store(NULL) : NULL;
    if (store)
        basalt_catalog_set_store(*out, store);
    if (st != BASALT_OK) {
        basalt_catalog_close(*out);
        *out = NULL;
    }
    return st;
}

static bool exists_on_disk(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int cli_iceberg_open_table(const char *arg, const struct cli_iceberg_common *common,
                           struct basalt_iceberg_table **out)
{
    struct basalt_error err;
    basalt_error_init(&err);
    *out = NULL;
    basalt_status st;
    if (cli_is_remote(arg) || exists_on_disk(arg)) {
        struct basalt_iceberg_io *io = NULL;
        st = make_io(common, &io, &err);
        if (st == BASALT_OK)
            st = basalt_iceberg_table_load(arg, io, out, &err);
        basalt_iceberg_io_free(io);
        return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
    }
    if (strchr(arg, '/') || !strchr(arg, '.'))
        return cli_fail("NOT_FOUND: %s: no such file, directory or table", arg);
    struct basalt_catalog *catalog = NULL;
    st = cli_iceberg_open_catalog(common, false, &catalog, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_load_table(catalog, arg, out, &err);
    basalt_catalog_close(catalog);
    if (st != BASALT_OK) {
        basalt_error_context(&err, st, "%s", arg);
        return cli_fail_error(&err);
    }
    return CLI_OK;
}

/* ------------------------------------------------------------------ output */

/* Text accumulated in a buffer, written at the end; a failed append is
 * remembered and reported once. */
struct text {
    struct basalt_buffer buf;
    bool failed;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (!t->failed && basalt_buffer_append(&t->buf, s, n, NULL) != BASALT_OK)
        t->failed = true;
}

static void putf(struct text *t, const char *fmt, ...) BASALT_PRINTF(2, 3);
static void putf(struct text *t, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        put(t, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        t->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    put(t, big, (size_t)n);
    free(big);
}

/* A JSON string, or null for NULL. */
static void put_json_str(struct text *t, const char *s)
{
    if (!s) {
        put(t, "null", 4);
        return;
    }
    if (!t->failed &&
        cli_format_json_string(&t->buf, (const uint8_t *)s, strlen(s), NULL) != BASALT_OK)
        t->failed = true;
}

static int flush_text(struct text *t)
{
    int rc = CLI_OK;
    if (t->failed)
        rc = cli_fail("NOMEM: out of memory formatting output");
    else if (t->buf.size && fwrite(t->buf.data, 1, t->buf.size, stdout) != t->buf.size)
        rc = cli_fail("IO: write to stdout failed");
    basalt_buffer_reset(&t->buf);
    return rc;
}

/* ISO-8601 UTC with milliseconds: 2023-03-01T19:25:00.123Z. */
static void iso_time(int64_t ms, char *buf, size_t cap)
{
    int64_t secs = ms / 1000, frac = ms % 1000;
    if (frac < 0) {
        frac += 1000;
        secs -= 1;
    }
    time_t tt = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&tt, &tm)) {
        snprintf(buf, cap, "%" PRId64, ms);
        return;
    }
    snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)frac);
}

static const char *summary_value(const struct basalt_iceberg_snapshot *s, const char *key)
{
    for (uint32_t i = 0; i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0)
            return s->summary[i].value;
    return NULL;
}

/* Snapshots in time order (file order is not), ties kept in file order. */
static const struct basalt_iceberg_snapshot **snapshots_by_time(const struct basalt_iceberg_metadata *m)
{
    const struct basalt_iceberg_snapshot **order = malloc((m->n_snapshots + 1) * sizeof *order);
    if (!order)
        return NULL;
    for (uint32_t i = 0; i < m->n_snapshots; i++) {
        const struct basalt_iceberg_snapshot *s = &m->snapshots[i];
        uint32_t j = i;
        while (j > 0 && order[j - 1]->timestamp_ms > s->timestamp_ms) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = s;
    }
    return order;
}

static void type_text(const struct basalt_iceberg_type *type, char *buf, size_t cap)
{
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_STRUCT:
        snprintf(buf, cap, "struct");
        return;
    case BASALT_ICEBERG_TYPE_LIST:
        snprintf(buf, cap, "list");
        return;
    case BASALT_ICEBERG_TYPE_MAP:
        snprintf(buf, cap, "map");
        return;
    default:
        basalt_iceberg_type_to_string(type, buf, cap);
    }
}

static bool nested(const struct basalt_iceberg_type *type)
{
    return type->id == BASALT_ICEBERG_TYPE_STRUCT || type->id == BASALT_ICEBERG_TYPE_LIST ||
           type->id == BASALT_ICEBERG_TYPE_MAP;
}

/* The schema as an indented tree: "<id> <name>: required|optional <type>". */
static void put_fields_text(struct text *t, const struct basalt_iceberg_type *type, int depth)
{
    for (uint32_t i = 0; i < type->n_fields && depth < 64; i++) {
        const struct basalt_iceberg_field *f = &type->fields[i];
        char tb[512];
        type_text(&f->type, tb, sizeof tb);
        putf(t, "%*s%" PRId32 " %s: %s %s\n", 2 * (depth + 1), "", f->id, f->name,
             f->required ? "required" : "optional", tb);
        if (nested(&f->type))
            put_fields_text(t, &f->type, depth + 1);
    }
}

static void put_fields_json(struct text *t, const struct basalt_iceberg_type *type, int depth)
{
    put(t, "[", 1);
    for (uint32_t i = 0; i < type->n_fields && depth < 64; i++) {
        const struct basalt_iceberg_field *f = &type->fields[i];
        char tb[512];
        type_text(&f->type, tb, sizeof tb);
        putf(t, "%s{\"id\":%" PRId32 ",\"name\":", i ? "," : "", f->id);
        put_json_str(t, f->name);
        putf(t, ",\"required\":%s,\"type\":", f->required ? "true" : "false");
        put_json_str(t, tb);
        if (f->doc) {
            put(t, ",\"doc\":", 7);
            put_json_str(t, f->doc);
        }
        if (nested(&f->type)) {
            put(t, ",\"fields\":", 10);
            put_fields_json(t, &f->type, depth + 1);
        }
        put(t, "}", 1);
    }
    put(t, "]", 1);
}

static const char *field_name(const struct basalt_iceberg_schema *schema, int32_t id, char *buf,
                              size_t cap)
{
    if (!schema || basalt_iceberg_schema_field_name(schema, id, buf, cap) != BASALT_OK)
        snprintf(buf, cap, "?");
    return buf;
}

/* ------------------------------------------------------------------ verbs */

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

/* Parses `verb [options] ARG...` with the common options and --format;
 * positional arguments go into pos[0..max_pos). CLI_OK or CLI_USAGE. */
struct verb_args {
    struct cli_iceberg_common common;
    enum cli_format_kind format;
    bool has_format;
    const char *pos[2];
    int n_pos;
};

static int parse_args(const char *verb, int argc, char **argv, int max_pos, bool allow_format,
                      struct verb_args *a)
{
    memset(a, 0, sizeof *a);
    cli_iceberg_common_init(&a->common);
    a->format = CLI_FORMAT_TABLE;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&a->common, verb, argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        bool missing;
        const char *v = allow_format ? option_value("--format", argc, argv, &i, &missing) : NULL;
        if (allow_format && missing)
            return cli_usage_error("%s: --format needs a value", verb);
        if (v) {
            if (!cli_format_parse(v, &a->format) || a->format == CLI_FORMAT_CSV)
                return cli_usage_error("%s: unknown format '%s' (table or json)", verb, v);
            a->has_format = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("%s: unknown option '%s'", verb, argv[i]);
        } else if (a->n_pos == max_pos) {
            return cli_usage_error("%s: unexpected argument '%s'", verb, argv[i]);
        } else {
            a->pos[a->n_pos++] = argv[i];
        }
    }
    return CLI_OK;
}

/* Every namespace at or under `ns` (NULL: all), depth first, sorted. */
static basalt_status walk_namespaces(struct basalt_catalog *c, const char *ns, int depth,
                                     bool with_tables, struct text *t, struct basalt_error *err)
{
    char **list = NULL;
    size_t n = 0;
    basalt_status st = BASALT_OK;
    if (depth > 64)
        return BASALT_OK;
    if (with_tables && ns) {
        st = basalt_catalog_list_tables(c, ns, &list, &n, err);
        for (size_t i = 0; st == BASALT_OK && i < n; i++)
            putf(t, "%s\n", list[i]);
        basalt_string_list_free(list, n);
        list = NULL;
        n = 0;
    }
    if (st == BASALT_OK)
        st = basalt_catalog_list_namespaces(c, ns, &list, &n, err);
    for (size_t i = 0; st == BASALT_OK && i < n; i++) {
        if (!with_tables)
            putf(t, "%s\n", list[i]);
        st = walk_namespaces(c, list[i], depth + 1, with_tables, t, err);
    }
    basalt_string_list_free(list, n);
    return st;
}

static int list_verb(int argc, char **argv, bool tables)
{
    const char *verb = tables ? "iceberg tables" : "iceberg namespaces";
    if (wants_help(argc, argv)) {
        printf("usage: basalt %s [options] [NAMESPACE]\n\n"
               "%s\n\noptions:\n%s",
               verb,
               tables ? "Lists the tables of a catalog, one identifier (ns.table) a line: those in\n"
                        "NAMESPACE and the namespaces under it, or all of them."
                      : "Lists the namespaces of a catalog, one a line: those under NAMESPACE,\n"
                        "or all of them.",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct verb_args a;
    int rc = parse_args(verb, argc, argv, 1, false, &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&a.common, false, &c, &err);
    struct text t = {0};
    if (st == BASALT_OK)
        st = walk_namespaces(c, a.n_pos ? a.pos[0] : NULL, 0, tables, &t, &err);
    basalt_catalog_close(c);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&t.buf);
        return cli_fail_error(&err);
    }
    return flush_text(&t);
}

static int cmd_tables(int argc, char **argv)
{
    return list_verb(argc, argv, true);
}

static int cmd_namespaces(int argc, char **argv)
{
    return list_verb(argc, argv, false);
}

/* ---------------------------------------------------------------- describe */

static void describe_text(struct text *t, const struct basalt_iceberg_table *table)
{
    const struct basalt_iceberg_metadata *m = table->metadata;
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(m);
    char when[64], nb[512];
    iso_time(m->last_updated_ms, when, sizeof when);
    putf(t, "name                  %s\n", table->name);
    putf(t, "metadata              %s\n", table->metadata_location);
    putf(t, "format-version        %" PRId32 "\n", m->format_version);
    putf(t, "table-uuid            %s\n", m->table_uuid ? m->table_uuid : "-");
    putf(t, "location              %s\n", m->location ? m->location : "-");
    putf(t, "last-updated          %s\n", when);
    putf(t, "last-sequence-number  %" PRId64 "\n", m->last_sequence_number);
    putf(t, "last-column-id        %" PRId32 "\n", m->last_column_id);
    if (m->has_current_snapshot_id)
        putf(t, "current-snapshot      %" PRId64 "\n", m->current_snapshot_id);
    else
        putf(t, "current-snapshot      none\n");

    putf(t, "\nschema %" PRId32 " (current; %" PRIu32 " schema%s)\n",
         schema ? schema->schema_id : -1, m->n_schemas, m->n_schemas == 1 ? "" : "s");
    if (schema) {
        put_fields_text(t, &schema->root, 0);
        if (schema->n_identifier_field_ids) {
            put(t, "  identifier fields:", 20);
            for (uint32_t i = 0; i < schema->n_identifier_field_ids; i++)
                putf(t, " %" PRId32, schema->identifier_field_ids[i]);
            put(t, "\n", 1);
        }
    }

    put(t, "\npartition specs\n", 17);
    for (uint32_t i = 0; i < m->n_specs; i++) {
        const struct basalt_iceberg_partition_spec *spec = &m->specs[i];
        putf(t, "  spec %" PRId32 "%s%s\n", spec->spec_id,
             spec->spec_id == m->default_spec_id ? " (default)" : "",
             spec->n_fields ? "" : ": unpartitioned");
        for (uint32_t k = 0; k < spec->n_fields; k++) {
            const struct basalt_iceberg_partition_field *f = &spec->fields[k];
            putf(t, "    %" PRId32 " %s: %s(%" PRId32 " %s)\n", f->field_id, f->name,
                 f->transform.text ? f->transform.text : "?", f->source_id,
                 field_name(schema, f->source_id, nb, sizeof nb));
        }
    }

    put(t, "\nsort orders\n", 13);
    for (uint32_t i = 0; i < m->n_sort_orders; i++) {
        const struct basalt_iceberg_sort_order *o = &m->sort_orders[i];
        putf(t, "  order %" PRId32 "%s%s\n", o->order_id,
             o->order_id == m->default_sort_order_id ? " (default)" : "",
             o->n_fields ? "" : ": unsorted");
        for (uint32_t k = 0; k < o->n_fields; k++) {
            const struct basalt_iceberg_sort_field *f = &o->fields[k];
            putf(t, "    %s(%" PRId32 " %s) %s %s\n", f->transform.text ? f->transform.text : "?",
                 f->source_id, field_name(schema, f->source_id, nb, sizeof nb),
                 f->direction == BASALT_ICEBERG_SORT_ASC ? "asc" : "desc",
                 f->null_order == BASALT_ICEBERG_NULLS_FIRST ? "nulls-first" : "nulls-last");
        }
    }

    putf(t, "\nsnapshots (%" PRIu32 ")\n", m->n_snapshots);
    const struct basalt_iceberg_snapshot **order = snapshots_by_time(m);
    if (!order) {
        t->failed = true;
        return;
    }
    for (uint32_t i = 0; i < m->n_snapshots; i++) {
        const struct basalt_iceberg_snapshot *s = order[i];
        iso_time(s->timestamp_ms, when, sizeof when);
        putf(t, "  %" PRId64 "  seq %" PRId64 "  %s  %s", s->snapshot_id, s->sequence_number, when,
             s->operation ? s->operation : "append");
        if (s->has_parent_snapshot_id)
            putf(t, "  parent %" PRId64, s->parent_snapshot_id);
        if (m->has_current_snapshot_id && s->snapshot_id == m->current_snapshot_id)
            put(t, "  (current)", 11);
        put(t, "\n", 1);
    }
    free(order);

    put(t, "\nrefs\n", 6);
    for (uint32_t i = 0; i < m->n_refs; i++)
        putf(t, "  %s: %s -> %" PRId64 "\n", m->refs[i].name, m->refs[i].is_tag ? "tag" : "branch",
             m->refs[i].snapshot_id);

    put(t, "\nproperties\n", 12);
    for (uint32_t i = 0; i < m->n_properties; i++)
        putf(t, "  %s = %s\n", m->properties[i].key, m->properties[i].value);
}

static void snapshot_json(struct text *t, const struct basalt_iceberg_snapshot *s)
{
    char when[64];
    iso_time(s->timestamp_ms, when, sizeof when);
    putf(t, "{\"snapshot_id\":%" PRId64 ",\"parent_snapshot_id\":", s->snapshot_id);
    if (s->has_parent_snapshot_id)
        putf(t, "%" PRId64, s->parent_snapshot_id);
    else
        put(t, "null", 4);
    putf(t, ",\"sequence_number\":%" PRId64 ",\"timestamp_ms\":%" PRId64 ",\"timestamp\":\"%s\"",
         s->sequence_number, s->timestamp_ms, when);
    put(t, ",\"operation\":", 13);
    put_json_str(t, s->operation ? s->operation : "append");
    put(t, ",\"summary\":{", 12);
    for (uint32_t i = 0; i < s->n_summary; i++) {
        if (i)
            put(t, ",", 1);
        put_json_str(t, s->summary[i].key);
        put(t, ":", 1);
        put_json_str(t, s->summary[i].value);
    }
    put(t, "},\"manifest_list\":", 18);
    put_json_str(t, s->manifest_list);
    if (s->has_schema_id)
        putf(t, ",\"schema_id\":%" PRId32, s->schema_id);
    put(t, "}", 1);
}

static void describe_json(struct text *t, const struct basalt_iceberg_table *table)
{
    const struct basalt_iceberg_metadata *m = table->metadata;
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(m);
    put(t, "{\"name\":", 8);
    put_json_str(t, table->name);
    put(t, ",\"metadata_location\":", 21);
    put_json_str(t, table->metadata_location);
    putf(t, ",\"format_version\":%" PRId32 ",\"table_uuid\":", m->format_version);
    put_json_str(t, m->table_uuid);
    put(t, ",\"location\":", 12);
    put_json_str(t, m->location);
    putf(t,
         ",\"last_updated_ms\":%" PRId64 ",\"last_sequence_number\":%" PRId64
         ",\"last_column_id\":%" PRId32 ",\"current_snapshot_id\":",
         m->last_updated_ms, m->last_sequence_number, m->last_column_id);
    if (m->has_current_snapshot_id)
        putf(t, "%" PRId64, m->current_snapshot_id);
    else
        put(t, "null", 4);
    putf(t, ",\"current_schema_id\":%" PRId32 ",\"schema_ids\":[", m->current_schema_id);
    for (uint32_t i = 0; i < m->n_schemas; i++)
        putf(t, "%s%" PRId32, i ? "," : "", m->schemas[i].schema_id);
    put(t, "],\"schema\":{\"schema_id\":", 24);
    putf(t, "%" PRId32 ",\"identifier_field_ids\":[", schema ? schema->schema_id : -1);
    for (uint32_t i = 0; schema && i < schema->n_identifier_field_ids; i++)
        putf(t, "%s%" PRId32, i ? "," : "", schema->identifier_field_ids[i]);
    put(t, "],\"fields\":", 11);
    if (schema)
        put_fields_json(t, &schema->root, 0);
    else
        put(t, "[]", 2);
    putf(t, "},\"default_spec_id\":%" PRId32 ",\"partition_specs\":[", m->default_spec_id);
    for (uint32_t i = 0; i < m->n_specs; i++) {
        const struct basalt_iceberg_partition_spec *spec = &m->specs[i];
        putf(t, "%s{\"spec_id\":%" PRId32 ",\"fields\":[", i ? "," : "", spec->spec_id);
        for (uint32_t k = 0; k < spec->n_fields; k++) {
            const struct basalt_iceberg_partition_field *f = &spec->fields[k];
            putf(t, "%s{\"field_id\":%" PRId32 ",\"name\":", k ? "," : "", f->field_id);
            put_json_str(t, f->name);
            putf(t, ",\"source_id\":%" PRId32 ",\"transform\":", f->source_id);
            put_json_str(t, f->transform.text);
            put(t, "}", 1);
        }
        put(t, "]}", 2);
    }
    putf(t, "],\"default_sort_order_id\":%" PRId32 ",\"sort_orders\":[", m->default_sort_order_id);
    for (uint32_t i = 0; i < m->n_sort_orders; i++) {
        const struct basalt_iceberg_sort_order *o = &m->sort_orders[i];
        putf(t, "%s{\"order_id\":%" PRId32 ",\"fields\":[", i ? "," : "", o->order_id);
        for (uint32_t k = 0; k < o->n_fields; k++) {
            const struct basalt_iceberg_sort_field *f = &o->fields[k];
            putf(t, "%s{\"source_id\":%" PRId32 ",\"transform\":", k ? "," : "", f->source_id);
            put_json_str(t, f->transform.text);
            putf(t, ",\"direction\":\"%s\",\"null_order\":\"%s\"}",
                 f->direction == BASALT_ICEBERG_SORT_ASC ? "asc" : "desc",
                 f->null_order == BASALT_ICEBERG_NULLS_FIRST ? "nulls-first" : "nulls-last");
        }
        put(t, "]}", 2);
    }
    put(t, "],\"snapshots\":[", 15);
    const struct basalt_iceberg_snapshot **order = snapshots_by_time(m);
    if (!order) {
        t->failed = true;
        return;
    }
    for (uint32_t i = 0; i < m->n_snapshots; i++) {
        if (i)
            put(t, ",", 1);
        snapshot_json(t, order[i]);
    }
    free(order);
    put(t, "],\"refs\":[", 10);
    for (uint32_t i = 0; i < m->n_refs; i++) {
        put(t, i ? ",{\"name\":" : "{\"name\":", i ? 9 : 8);
        put_json_str(t, m->refs[i].name);
        putf(t, ",\"type\":\"%s\",\"snapshot_id\":%" PRId64 "}", m->refs[i].is_tag ? "tag" : "branch",
             m->refs[i].snapshot_id);
    }
    put(t, "],\"properties\":{", 16);
    for (uint32_t i = 0; i < m->n_properties; i++) {
        if (i)
            put(t, ",", 1);
        put_json_str(t, m->properties[i].key);
        put(t, ":", 1);
        put_json_str(t, m->properties[i].value);
    }
    put(t, "}}\n", 3);
}

/* A view metadata file: its current schema and SQL (json: the metadata). */
static bool describe_view(struct text *t, const char *path, bool json)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    if (!exists_on_disk(path) || basalt_iceberg_view_metadata_read_file(path, &v, NULL))
        return false;
    const struct basalt_iceberg_view_version *cur = basalt_iceberg_view_metadata_current_version(v);
    char *doc = NULL;
    if (json) {
        t->failed = basalt_iceberg_view_metadata_to_json(v, &doc, NULL, NULL) != BASALT_OK;
        putf(t, "%s\n", doc ? doc : "");
    } else {
        putf(t, "view-uuid        %s\nformat-version   %" PRId32 "\nlocation         %s\n"
                "current-version  %" PRId32 " (of %" PRIu32 ")\n\nschema %" PRId32 "\n",
             v->view_uuid, v->format_version, v->location, cur->version_id, v->n_versions,
             cur->schema_id);
        put_fields_text(t, &basalt_iceberg_view_metadata_current_schema(v)->root, 0);
        for (const struct basalt_iceberg_view_representation *r = cur->representations;
             r < cur->representations + cur->n_representations; r++)
            putf(t, "\n%s %s\n%s\n", r->type, r->dialect ? r->dialect : "", r->sql ? r->sql : "");
    }
    basalt_free(doc);
    basalt_iceberg_view_metadata_free(v);
    return true;
}

static int table_verb(int argc, char **argv, bool snapshots)
{
    const char *verb = snapshots ? "iceberg snapshots" : "iceberg describe";
    if (wants_help(argc, argv)) {
        printf("usage: basalt %s TABLE [--format table|json] [options]\n\n%s\n\n"
               "TABLE is a metadata file, a metadata directory or a table directory when it\n"
               "exists on disk, the URI of a metadata file (s3://, gs://, az://, http(s)://;\n"
               "store options in 'basalt --help'), else an identifier ns.table in the catalog.\n\n"
               "options:\n  --format F           table (default) or json\n%s",
               verb,
               snapshots
                   ? "Lists the snapshots of a table in time order: id, parent, sequence number,\n"
                     "timestamp (ISO-8601 UTC), operation, summary counts, manifest list."
                   : "Describes a table: format version, uuid, location, current snapshot, the\n"
                     "current schema as a field tree (ids, types, required), partition specs,\n"
                     "sort orders, snapshots, refs and properties.",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct verb_args a;
    int rc = parse_args(verb, argc, argv, 1, true, &a);
    if (rc != CLI_OK)
        return rc;
    if (a.n_pos != 1)
        return cli_usage_error("%s: expected TABLE", verb);
    struct text t = {0};
    if (!snapshots && describe_view(&t, a.pos[0], a.format == CLI_FORMAT_JSON))
        return flush_text(&t);
    struct basalt_iceberg_table *table;
    rc = cli_iceberg_open_table(a.pos[0], &a.common, &table);
    if (rc != CLI_OK)
        return rc;
    const struct basalt_iceberg_metadata *m = table->metadata;
    if (!snapshots && a.format == CLI_FORMAT_JSON) {
        describe_json(&t, table);
    } else if (!snapshots) {
        describe_text(&t, table);
    } else if (a.format == CLI_FORMAT_JSON) {
        const struct basalt_iceberg_snapshot **order = snapshots_by_time(m);
        t.failed = !order;
        for (uint32_t i = 0; order && i < m->n_snapshots; i++) {
            snapshot_json(&t, order[i]);
            put(&t, "\n", 1);
        }
        free(order);
    } else {
        /* An aligned table; every cell is text. */
        static const char *const heads[] = {
            "snapshot_id", "parent_id", "sequence_number", "timestamp", "operation",
            "added_data_files", "deleted_data_files", "added_records", "deleted_records",
            "total_data_files", "total_delete_files", "total_records", "manifest_list"};
        static const char *const keys[] = {"added-data-files", "deleted-data-files",
                                           "added-records",    "deleted-records",
                                           "total-data-files", "total-delete-files",
                                           "total-records"};
        enum { NCOL = 13 };
        const struct basalt_iceberg_snapshot **order = snapshots_by_time(m);
        char(*cells)[NCOL][64] = order ? calloc(m->n_snapshots + 1, sizeof *cells) : NULL;
        if (!cells) {
            t.failed = true;
        } else {
            size_t width[NCOL];
            for (int c = 0; c < NCOL; c++)
                width[c] = strlen(heads[c]);
            for (uint32_t r = 0; r < m->n_snapshots; r++) {
                const struct basalt_iceberg_snapshot *s = order[r];
                snprintf(cells[r][0], 64, "%" PRId64, s->snapshot_id);
                if (s->has_parent_snapshot_id)
                    snprintf(cells[r][1], 64, "%" PRId64, s->parent_snapshot_id);
                else
                    snprintf(cells[r][1], 64, "-");
                snprintf(cells[r][2], 64, "%" PRId64, s->sequence_number);
                iso_time(s->timestamp_ms, cells[r][3], 64);
                snprintf(cells[r][4], 64, "%s", s->operation ? s->operation : "append");
                for (int k = 0; k < 7; k++) {
                    const char *v = summary_value(s, keys[k]);
                    snprintf(cells[r][5 + k], 64, "%s", v ? v : "-");
                }
                for (int c = 0; c < NCOL - 1; c++)
                    if (strlen(cells[r][c]) > width[c])
                        width[c] = strlen(cells[r][c]);
            }
            /* Numbers right-aligned, text left-aligned; the last column unpadded. */
            for (int c = 0; c < NCOL - 1; c++) {
                int w = c == 3 || c == 4 ? -(int)width[c] : (int)width[c];
                putf(&t, "%*s  ", w, heads[c]);
            }
            putf(&t, "%s\n", heads[NCOL - 1]);
            for (uint32_t r = 0; r < m->n_snapshots; r++) {
                for (int c = 0; c < NCOL - 1; c++) {
                    int w = c == 3 || c == 4 ? -(int)width[c] : (int)width[c];
                    putf(&t, "%*s  ", w, cells[r][c]);
                }
                putf(&t, "%s\n", order[r]->manifest_list ? order[r]->manifest_list : "-");
            }
        }
        free(cells);
        free(order);
    }
    basalt_iceberg_table_free(table);
    return flush_text(&t);
}

static int cmd_describe(int argc, char **argv)
{
    return table_verb(argc, argv, false);
}

static int cmd_snapshots(int argc, char **argv)
{
    return table_verb(argc, argv, true);
}

/* --------------------------------------------------------- register / drop */

static int cmd_register(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg register NAME METADATA [options]\n\n"
               "Adds an existing table to a SQL catalog as NAME (ns.table), creating the\n"
               "catalog file when it does not exist. METADATA is a metadata file, a metadata\n"
               "directory or a table directory on disk (the current metadata file is found\n"
               "and stored by its absolute path), or a location such as s3://... stored as\n"
               "given (it must load, through --map). Fails when NAME exists.\n\n"
               "options:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct verb_args a;
    int rc = parse_args("iceberg register", argc, argv, 2, false, &a);
    if (rc != CLI_OK)
        return rc;
    if (a.n_pos != 2)
        return cli_usage_error("iceberg register: expected NAME and METADATA");
    struct basalt_error err;
    basalt_error_init(&err);
    char found[PATH_MAX], absolute[PATH_MAX];
    const char *location = a.pos[1];
    if (exists_on_disk(location)) {
        if (basalt_iceberg_table_find_metadata(location, found, sizeof found, &err) != BASALT_OK)
            return cli_fail_error(&err);
        if (!realpath(found, absolute))
            return cli_fail("IO: %s: %s", found, strerror(errno));
        location = absolute;
    }
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&a.common, true, &c, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_register_table(c, a.pos[0], location, &err);
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("registered %s: %s\n", a.pos[0], location);
    return CLI_OK;
}

static int cmd_drop(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg drop NAME [options]\n\n"
               "Removes table NAME (ns.table) from a SQL, REST, Glue or S3 Tables catalog;\n"
               "its files are kept.\n\n"
               "options:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct verb_args a;
    int rc = parse_args("iceberg drop", argc, argv, 1, false, &a);
    if (rc != CLI_OK)
        return rc;
    if (a.n_pos != 1)
        return cli_usage_error("iceberg drop: expected NAME");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&a.common, false, &c, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_drop_table(c, a.pos[0], &err);
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("dropped %s\n", a.pos[0]);
    return CLI_OK;
}

int cli_iceberg_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"tables", "list the tables of a catalog", cmd_tables},
        {"namespaces", "list the namespaces of a catalog", cmd_namespaces},
        {"describe", "a table's schema, specs, sort orders, snapshots, refs, properties",
         cmd_describe},
        {"snapshots", "a table's snapshots with their summaries", cmd_snapshots},
        {"create", "create a table (schema text or like a file, partitioning, sort order)",
         cli_iceberg_create},
        {"append", "append Parquet, Avro or CSV files to a table as one snapshot", cli_iceberg_append},
        {"overwrite", "replace the rows matching a filter with the rows of files", cli_iceberg_overwrite},
        {"delete", "delete the rows matching a filter (copy-on-write or merge-on-read)",
         cli_iceberg_delete},
        {"update", "set columns of the rows matching a filter", cli_iceberg_update},
        {"evolve", "change a table's schema, partitioning or properties", cli_iceberg_evolve},
        {"branch", "create, replace, drop or fast-forward a branch", cli_iceberg_branch},
        {"tag", "create, replace or drop a tag", cli_iceberg_tag},
        {"expire", "expire old snapshots and delete the files only they used", cli_iceberg_expire},
        {"compact", "rewrite small data files (and their deletes) into larger ones",
         cli_iceberg_compact},
        {"rewrite-manifests", "regroup the data manifests by partition", cli_iceberg_rewrite_manifests},
        {"remove-orphans", "delete the files under a table that no metadata reaches",
         cli_iceberg_remove_orphans},
        {"cherry-pick", "apply an append snapshot onto a branch", cli_iceberg_cherry_pick},
        {"register", "add an existing table to a catalog", cmd_register},
        {"drop", "remove a table from a catalog (files are kept)", cmd_drop},
        {"view", "views: create, show, list, replace, drop, rename", cli_iceberg_view},
        {"files", "the scan plan: data files, deletes, residuals, pruning counts", cli_iceberg_files},
        {"scan", "read a table (projection, filter, time travel)", cli_iceberg_scan},
        {"count", "count the rows of a table", cli_iceberg_count},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("iceberg", verbs, argc, argv);
}
