/* basalt iceberg view: Iceberg views in SQL and REST catalogs (create, show,
 * list, replace, drop, rename). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_view.h"
#include "cli.h"
#include "cmd_iceberg.h"

#define MAX_PROPERTIES 64

static const char view_help[] =
    "  --sql TEXT           the view's query\n"
    "  --schema TEXT        its columns: \"name type, ...\" as for iceberg create\n"
    "  --dialect D          the SQL dialect (default spark)\n"
    "  --default-namespace NS  the namespace unqualified names resolve in\n"
    "                       (default: the view's own)\n"
    "  --property KEY=VALUE a view property (repeatable)\n";

struct view_args {
    struct cli_iceberg_common common;
    const char *pos[2];
    int n_pos;
    const char *sql, *schema, *dialect, *default_ns;
    struct basalt_iceberg_kv props[MAX_PROPERTIES];
    uint32_t n_props;
    bool json;
};

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

/* "--name VALUE" or "--name=VALUE" into *out: 1 taken, 0 not this option,
 * -1 missing value. */
static int take(const char *name, int argc, char **argv, int *i, const char **out)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
        return 0;
    if (arg[n] == '=') {
        *out = arg + n + 1;
        return 1;
    }
    if (*i + 1 >= argc)
        return -1;
    *out = argv[++*i];
    return 1;
}

static int parse(const char *verb, int argc, char **argv, int max_pos, bool definition,
                 struct view_args *a)
{
    memset(a, 0, sizeof *a);
    cli_iceberg_common_init(&a->common);
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&a->common, verb, argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        static const char *const names[] = {"--sql", "--schema", "--dialect",
                                            "--default-namespace", "--property", "--format"};
        const char *v = NULL;
        int k, got = 0;
        for (k = 0; k < 6 && !got; k++)
            if ((k < 5 ? definition : !definition) &&
                (got = take(names[k], argc, argv, &i, &v)) != 0)
                break;
        if (got < 0)
            return cli_usage_error("%s: %s needs a value", verb, names[k]);
        if (got) {
            if (k == 0) {
                a->sql = v;
            } else if (k == 1) {
                a->schema = v;
            } else if (k == 2) {
                a->dialect = v;
            } else if (k == 3) {
                a->default_ns = v;
            } else if (k == 4) {
                char *eq = strchr(argv[i] + (v - argv[i]), '=');
                if (!eq || eq == v)
                    return cli_usage_error("%s: --property wants KEY=VALUE, got '%s'", verb, v);
                if (a->n_props == MAX_PROPERTIES)
                    return cli_usage_error("%s: more than %d --property options", verb,
                                           MAX_PROPERTIES);
                *eq = '\0';
                a->props[a->n_props].key = v;
                a->props[a->n_props++].value = eq + 1;
            } else if (strcmp(v, "json") == 0 || strcmp(v, "table") == 0) {
                a->json = strcmp(v, "json") == 0;
            } else {
                return cli_usage_error("%s: unknown format '%s' (table or json)", verb, v);
            }
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

/* The definition of the arguments: the schema JSON into *schema_json
 * (basalt_malloc'd). */
static basalt_status definition(const struct view_args *a, const char *identifier,
                                struct basalt_iceberg_view_definition *def, char **schema_json,
                                char **ns, struct basalt_error *err)
{
    memset(def, 0, sizeof *def);
    *schema_json = *ns = NULL;
    basalt_status st = basalt_iceberg_schema_from_text(a->schema, schema_json, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "--schema");
    const char *dot = strrchr(identifier, '.');
    if (!a->default_ns && dot && !(*ns = basalt_strndup(identifier, (size_t)(dot - identifier))))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    def->schema_json = *schema_json;
    def->sql = a->sql;
    def->dialect = a->dialect;
    def->default_namespace = a->default_ns ? a->default_ns : *ns;
    def->properties = a->props;
    def->n_properties = a->n_props;
    return BASALT_OK;
}

static void print_view(const char *identifier, const struct basalt_iceberg_view_metadata *v,
                       const char *location, bool json)
{
    if (json) {
        char *doc = NULL;
        if (basalt_iceberg_view_metadata_to_json(v, &doc, NULL, NULL) == BASALT_OK)
            printf("{\"identifier\": \"%s\", \"metadata-location\": \"%s\", \"metadata\": %s}\n",
                   identifier, location ? location : "", doc);
        basalt_free(doc);
        return;
    }
    const struct basalt_iceberg_view_version *cur = basalt_iceberg_view_metadata_current_version(v);
    printf("view             %s\nview-uuid        %s\nlocation         %s\nmetadata         %s\n"
           "current-version  %" PRId32 " (of %" PRIu32 ")\nschema           %" PRId32 "\n",
           identifier, v->view_uuid, v->location, location ? location : "", cur->version_id,
           v->n_versions, cur->schema_id);
    const struct basalt_iceberg_schema *schema = basalt_iceberg_view_metadata_current_schema(v);
    for (uint32_t i = 0; i < schema->root.n_fields; i++) {
        const struct basalt_iceberg_field *f = &schema->root.fields[i];
        char type[128];
        if (f->type.id == BASALT_ICEBERG_TYPE_STRUCT || f->type.id == BASALT_ICEBERG_TYPE_LIST ||
            f->type.id == BASALT_ICEBERG_TYPE_MAP)
            snprintf(type, sizeof type, "%s",
                     f->type.id == BASALT_ICEBERG_TYPE_STRUCT ? "struct"
                     : f->type.id == BASALT_ICEBERG_TYPE_LIST ? "list"
                                                              : "map");
        else
            basalt_iceberg_type_to_string(&f->type, type, sizeof type);
        printf("  %-3" PRId32 " %-20s %s%s\n", f->id, f->name, type,
               f->required ? " not null" : "");
    }
    for (uint32_t i = 0; i < cur->n_representations; i++) {
        const struct basalt_iceberg_view_representation *r = &cur->representations[i];
        printf("%s %s\n  %s\n", r->type, r->dialect ? r->dialect : "",
               r->sql ? r->sql : r->json);
    }
    for (uint32_t i = 0; i < v->n_properties; i++)
        printf("property         %s=%s\n", v->properties[i].key, v->properties[i].value);
    printf("version-log     ");
    for (uint32_t i = 0; i < v->n_version_log; i++)
        printf(" %" PRId32, v->version_log[i].version_id);
    printf("\n");
}

/* create / replace */
static int define(int argc, char **argv, bool replace)
{
    const char *verb = replace ? "iceberg view replace" : "iceberg view create";
    if (wants_help(argc, argv)) {
        printf("usage: basalt %s NAME --sql TEXT --schema TEXT [options]\n\n"
               "%s\n\noptions:\n%s%s",
               verb,
               replace ? "Replaces the current version of view NAME (ns.view) by a new one:\n"
                         "its schema added (or reused), the version added and made current,\n"
                         "the view's uuid asserted. When another writer replaced the view\n"
                         "first, the replace is made again on the view as it then is."
                       : "Creates view NAME (ns.view) in a SQL or REST catalog, its metadata\n"
                         "under the catalog's default location (REST: where the server puts\n"
                         "it). A missing namespace is created in a SQL catalog. Fails when a\n"
                         "table or view has the name.",
               view_help, cli_iceberg_common_help);
        return CLI_OK;
    }
    struct view_args a;
    int rc = parse(verb, argc, argv, 1, true, &a);
    if (rc != CLI_OK)
        return rc;
    if (a.n_pos != 1)
        return cli_usage_error("%s: expected NAME", verb);
    if (!a.sql || !a.schema)
        return cli_usage_error("%s: --sql and --schema are required", verb);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_iceberg_view_definition def;
    char *schema = NULL, *ns = NULL, *location = NULL;
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_view_metadata *v = NULL;
    basalt_status st = definition(&a, a.pos[0], &def, &schema, &ns, &err);
    if (st == BASALT_OK)
        st = cli_iceberg_open_catalog(&a.common, !replace, &c, &err);
    if (st == BASALT_OK)
        st = replace ? basalt_catalog_replace_view(c, a.pos[0], &def, -1, &v, &location, &err)
                     : basalt_catalog_create_sql_view(c, a.pos[0], &def, &v, &location, &err);
    if (st == BASALT_OK)
        printf("%s %s: version %" PRId32 " at %s\n", replace ? "replaced" : "created", a.pos[0],
               v->current_version_id, location ? location : "");
    basalt_iceberg_view_metadata_free(v);
    basalt_catalog_close(c);
    basalt_free(schema);
    basalt_free(ns);
    basalt_free(location);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_create(int argc, char **argv)
{
    return define(argc, argv, false);
}

static int cmd_replace(int argc, char **argv)
{
    return define(argc, argv, true);
}

static int cmd_show(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg view show NAME [options]\n\n"
               "Prints view NAME: uuid, locations, the current version's schema and SQL,\n"
               "properties and the version log; --format json prints the metadata.\n\n"
               "options:\n  --format table|json\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct view_args a;
    int rc = parse("iceberg view show", argc, argv, 1, false, &a);
    if (rc != CLI_OK)
        return rc;
    if (a.n_pos != 1)
        return cli_usage_error("iceberg view show: expected NAME");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_view_metadata *v = NULL;
    char *location = NULL;
    basalt_status st = cli_iceberg_open_catalog(&a.common, false, &c, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_load_view(c, a.pos[0], &v, &location, &err);
    if (st == BASALT_OK)
        print_view(a.pos[0], v, location, a.json);
    basalt_iceberg_view_metadata_free(v);
    basalt_free(location);
    basalt_catalog_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* Views of `ns` and the namespaces under it (NULL: all). */
static basalt_status list_under(struct basalt_catalog *c, const char *ns, int depth,
                                struct basalt_error *err)
{
    char **list = NULL;
    size_t n = 0;
    basalt_status st = BASALT_OK;
    if (depth > 64)
        return BASALT_OK;
    if (ns) {
        st = basalt_catalog_list_views(c, ns, &list, &n, err);
        for (size_t i = 0; st == BASALT_OK && i < n; i++)
            printf("%s\n", list[i]);
        basalt_string_list_free(list, n);
        list = NULL;
        n = 0;
    }
    if (st == BASALT_OK)
        st = basalt_catalog_list_namespaces(c, ns, &list, &n, err);
    for (size_t i = 0; st == BASALT_OK && i < n; i++)
        st = list_under(c, list[i], depth + 1, err);
    basalt_string_list_free(list, n);
    return st;
}

static int cmd_list(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg view list [NAMESPACE] [options]\n\n"
               "Lists the views of a catalog, one identifier (ns.view) a line: those in\n"
               "NAMESPACE and the namespaces under it, or all of them.\n\noptions:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct view_args a;
    int rc = parse("iceberg view list", argc, argv, 1, false, &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&a.common, false, &c, &err);
    if (st == BASALT_OK)
        st = list_under(c, a.n_pos ? a.pos[0] : NULL, 0, &err);
    basalt_catalog_close(c);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_drop(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg view drop NAME [options]\n\n"
               "Removes view NAME from the catalog; its files are kept.\n\noptions:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct view_args a;
    int rc = parse("iceberg view drop", argc, argv, 1, false, &a);
    if (rc != CLI_OK)
        return rc;
    if (a.n_pos != 1)
        return cli_usage_error("iceberg view drop: expected NAME");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&a.common, false, &c, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_drop_view(c, a.pos[0], &err);
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("dropped view %s\n", a.pos[0]);
    return CLI_OK;
}

static int cmd_rename(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg view rename FROM TO [options]\n\n"
               "Renames a view, also into another existing namespace; its files stay where\n"
               "they are. Fails when a table or view is called TO.\n\noptions:\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct view_args a;
    int rc = parse("iceberg view rename", argc, argv, 2, false, &a);
    if (rc != CLI_OK)
        return rc;
    if (a.n_pos != 2)
        return cli_usage_error("iceberg view rename: expected FROM and TO");
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    basalt_status st = cli_iceberg_open_catalog(&a.common, false, &c, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_rename_view(c, a.pos[0], a.pos[1], &err);
    basalt_catalog_close(c);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    printf("renamed view %s to %s\n", a.pos[0], a.pos[1]);
    return CLI_OK;
}

int cli_iceberg_view(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"create", "create a view from SQL text and a schema", cmd_create},
        {"show", "a view's schema, SQL, properties and version log", cmd_show},
        {"list", "list the views of a catalog", cmd_list},
        {"replace", "replace a view's current version (SQL, schema, dialect)", cmd_replace},
        {"drop", "remove a view from a catalog (files are kept)", cmd_drop},
        {"rename", "rename a view", cmd_rename},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("iceberg view", verbs, argc, argv);
}
