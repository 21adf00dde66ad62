/* basalt iceberg create / append: making tables and adding data to them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "basalt/catalog.h"
#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "batch_source.h"
#include "cli.h"
#include "cmd_iceberg.h"

#define MAX_PROPERTIES 64

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

/* "--name VALUE" / "--name=VALUE" at argv[*i]: the value, or NULL. */
static const char *opt(const char *name, int argc, char **argv, int *i, bool *missing)
{
    size_t n = strlen(name);
    *missing = false;
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

/* ------------------------------------------------------------------ create */

struct create_args {
    struct cli_iceberg_common common;
    const char *name;
    const char *schema;
    const char *like;
    const char *partition;
    const char *sort;
    const char *location;
    int format_version;
    struct basalt_iceberg_kv props[MAX_PROPERTIES];
    uint32_t n_props;
};

static int parse_create(int argc, char **argv, struct create_args *a)
{
    memset(a, 0, sizeof *a);
    cli_iceberg_common_init(&a->common);
    a->format_version = 2;
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&a->common, "iceberg create", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        if (strcmp(argv[i], "--stage-create") == 0) {
            a->common.stage_create = true;
            continue;
        }
        static const char *const names[] = {"--schema", "--like", "--partition", "--sort",
                                            "--location", "--format-version", "--property"};
        const char *v = NULL;
        int k = 0;
        bool missing = false;
        for (; k < 7 && !v && !missing; k++)
            v = opt(names[k], argc, argv, &i, &missing);
        k--;
        if (missing)
            return cli_usage_error("iceberg create: %s needs a value", names[k]);
        if (!v) {
            if (argv[i][0] == '-' && argv[i][1])
                return cli_usage_error("iceberg create: unknown option '%s'", argv[i]);
            if (a->name)
                return cli_usage_error("iceberg create: unexpected argument '%s'", argv[i]);
            a->name = argv[i];
            continue;
        }
        switch (k) {
        case 0: a->schema = v; break;
        case 1: a->like = v; break;
        case 2: a->partition = v; break;
        case 3: a->sort = v; break;
        case 4: a->location = v; break;
        case 5:
            a->format_version = atoi(v);
            if (a->format_version < 1 || a->format_version > 3)
                return cli_usage_error("iceberg create: --format-version is 1, 2 or 3");
            break;
        default: {
            char *eq = strchr(argv[i] + (v - argv[i]), '=');
            if (!eq || eq == v)
                return cli_usage_error("iceberg create: --property wants KEY=VALUE, got '%s'", v);
            if (a->n_props == MAX_PROPERTIES)
                return cli_usage_error("iceberg create: more than %d properties", MAX_PROPERTIES);
            *eq = '\0';
            a->props[a->n_props].key = v;
            a->props[a->n_props++].value = eq + 1;
        }
        }
    }
    if (!a->name)
        return cli_usage_error("iceberg create: expected NAME");
    if (!a->schema == !a->like)
        return cli_usage_error("iceberg create: give one of --schema and --like");
    return CLI_OK;
}

/* The schema JSON of --schema or --like. */
static basalt_status create_schema(const struct create_args *a, char **out,
                                   struct basalt_error *err)
{
    if (a->schema)
        return basalt_iceberg_schema_from_text(a->schema, out, err);
    struct cli_batch_source *src = NULL;
    basalt_status st = cli_batch_source_open(a->like, NULL, &src, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_from_arrow(cli_batch_source_schema(src), a->format_version, out,
                                              err);
    if (st != BASALT_OK && src)
        st = basalt_error_context(err, st, "%.300s", a->like);
    cli_batch_source_close(src);
    return st;
}

int cli_iceberg_create(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg create NAME (--schema SPEC | --like FILE) [options]\n\n"
               "Creates table NAME (ns.table) in the catalog, with a missing namespace.\n"
               "--schema: \"id long not null, name string, ts timestamptz, tags list<string>,\n"
               "  attrs map<string, int>, loc struct<lat: double, lon: double>\" (types:\n"
               "  boolean int long float double decimal(P,S) date time timestamp timestamptz\n"
               "  timestamp_ns timestamptz_ns string uuid fixed[L] binary, nested as shown).\n"
               "--like FILE: the schema of a Parquet, Avro or CSV file.\n\n"
               "options:\n"
               "  --partition SPEC     e.g. 'month(ts), bucket(16, id), truncate(4, name), x'\n"
               "                       (identity, bucket, truncate, year, month, day, hour, void);\n"
               "                       `month(ts) AS ts_month` names the partition field\n"
               "  --sort ORDER         e.g. 'ts desc nulls last, id' (transforms allowed)\n"
               "  --format-version N   1, 2 (default) or 3\n"
               "  --property KEY=VALUE a table property (repeatable)\n"
               "  --location URI       where the table's files go (default: the warehouse,\n"
               "                       <catalog dir>/<namespace>/<table>; for a REST catalog,\n"
               "                       where the server puts it)\n"
               "  --stage-create       REST catalogs: a staged create, then a commit of every\n"
               "                       change with assert-create (as Java's create transactions)\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct create_args a;
    int rc = parse_create(argc, argv, &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    char *schema = NULL, *location = NULL, *updates = NULL;
    struct basalt_iceberg_table *t = NULL;
    basalt_status st = create_schema(&a, &schema, &err);
    if (st == BASALT_OK)
        st = cli_iceberg_open_catalog(&a.common, true, &c, &err);
    if (st == BASALT_OK && !a.location) {
        st = basalt_catalog_default_location(c, a.name, &location, &err);
        /* A REST catalog places tables in existing namespaces only: make
         * the missing one first (others never answer NOT_FOUND here). */
        const char *dot = strrchr(a.name, '.');
        if (st == BASALT_NOT_FOUND && dot) {
            char *ns = strndup(a.name, (size_t)(dot - a.name));
            basalt_error_init(&err);
            st = ns ? basalt_catalog_create_namespace(c, ns, &err)
                    : basalt_error_set(&err, BASALT_NOMEM, "out of memory");
            if (st == BASALT_CONFLICT)
                st = BASALT_OK;
            free(ns);
            if (st == BASALT_OK)
                st = basalt_catalog_default_location(c, a.name, &location, &err);
        }
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, a.partition, a.sort, a.format_version,
                                           a.location ? a.location : location, a.props, a.n_props,
                                           &updates, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(c, a.name, updates, &t, &err);
    if (st == BASALT_OK)
        printf("created %s at %s\n", a.name, t->metadata->location);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* ------------------------------------------------------------------ append */

struct append_args {
    struct cli_iceberg_common common;
    bool overwrite;    /* the overwrite verb: --where allowed */
    const char *where; /* overwrite: the rows replaced (NULL: all) */
    bool dynamic;      /* overwrite: the partitions the new rows fall in */
    const char *name;
    const char **files;
    int n_files;
    const char *branch;
    int threads;
    bool unsorted;         /* --unsorted: write in input order */
    long sort_buffer_rows; /* rows sorted together (default SORT_BUFFER_ROWS) */
};

/* Rows of input sorted together when the table has a sort order: each run
 * of this many rows is written in order, so files come out sorted when a
 * run covers them (one file of the taxi shape is about 4M rows). */
#define SORT_BUFFER_ROWS 2000000L

static int parse_append(int argc, char **argv, bool overwrite, struct append_args *a)
{
    memset(a, 0, sizeof *a);
    a->overwrite = overwrite;
    cli_iceberg_common_init(&a->common);
    a->threads = default_threads();
    a->sort_buffer_rows = SORT_BUFFER_ROWS;
    a->files = calloc((size_t)argc, sizeof *a->files);
    if (!a->files)
        return cli_fail("out of memory");
    for (int i = 1; i < argc; i++) {
        int r = cli_iceberg_common_option(&a->common, "iceberg append", argc, argv, &i);
        if (r == CLI_ICEBERG_OPT_ERROR)
            return CLI_USAGE;
        if (r == CLI_ICEBERG_OPT_TAKEN)
            continue;
        bool missing = false;
        const char *v;
        if ((v = opt("--branch", argc, argv, &i, &missing))) {
            a->branch = v;
        } else if (overwrite && !missing && (v = opt("--where", argc, argv, &i, &missing))) {
            a->where = v;
        } else if (overwrite && strcmp(argv[i], "--dynamic") == 0) {
            a->dynamic = true;
        } else if (strcmp(argv[i], "--unsorted") == 0) {
            a->unsorted = true;
        } else if (!missing && (v = opt("--sort-buffer-rows", argc, argv, &i, &missing))) {
            char *end;
            a->sort_buffer_rows = strtol(v, &end, 10);
            if (*end || a->sort_buffer_rows < 1)
                return cli_usage_error("iceberg append: --sort-buffer-rows wants a count");
        } else if (!missing && (v = opt("--threads", argc, argv, &i, &missing))) {
            a->threads = atoi(v);
            if (a->threads < 1 || a->threads > 256)
                return cli_usage_error("iceberg append: --threads is 1 to 256");
        } else if (missing) {
            return cli_usage_error("iceberg append: %s needs a value", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("iceberg append: unknown option '%s'", argv[i]);
        } else if (!a->name) {
            a->name = argv[i];
        } else {
            a->files[a->n_files++] = argv[i];
        }
    }
    if (!a->name || a->n_files == 0)
        return cli_usage_error("iceberg %s: expected NAME and at least one FILE",
                               overwrite ? "overwrite" : "append");
    if (a->dynamic && a->where)
        return cli_usage_error("iceberg overwrite: give --where or --dynamic, not both");
    return CLI_OK;
}

/* A unique prefix for this writer's data files: "00000-0-<uuid>". */
static void file_prefix(char *out, size_t cap)
{
    uint8_t b[16] = {0};
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
        memcpy(b, &x, 8);
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, cap,
             "00000-0-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

/* Writes every input file through the data writer. */
/* Batches held for a sorted write. */
struct sort_buffer {
    struct ArrowArray *batches;
    uint32_t n, cap;
    int64_t rows;
};

static basalt_status sort_flush(struct sort_buffer *b, struct basalt_iceberg_data_writer *w,
                                const struct basalt_iceberg_metadata *m,
                                const struct ArrowSchema *schema, struct basalt_error *err)
{
    basalt_status st = b->n ? basalt_iceberg_data_writer_write_sorted(w, m, schema, b->batches,
                                                                      b->n, err)
                            : BASALT_OK;
    for (uint32_t i = 0; i < b->n; i++)
        basalt_arrow_array_release(&b->batches[i]);
    b->n = 0;
    b->rows = 0;
    return st;
}

static basalt_status sort_hold(struct sort_buffer *b, struct ArrowArray *batch,
                               struct basalt_error *err)
{
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 64;
        struct ArrowArray *more = realloc(b->batches, cap * sizeof *more);
        if (!more) {
            basalt_arrow_array_release(batch);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        b->batches = more;
        b->cap = cap;
    }
    basalt_arrow_array_move(batch, &b->batches[b->n++]);
    b->rows += b->batches[b->n - 1].length;
    return BASALT_OK;
}

/* Writes every input file through the data writer; in the table's sort
 * order when it has one (runs of a->sort_buffer_rows rows), unless
 * --unsorted. */
static basalt_status write_inputs(const struct append_args *a, struct basalt_iceberg_data_writer *w,
                                  const struct basalt_iceberg_metadata *m,
                                  struct basalt_pool *pool, int64_t *rows,
                                  struct basalt_error *err)
{
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(m);
    const struct basalt_iceberg_sort_order *order =
        basalt_iceberg_metadata_sort_order(m, m->default_sort_order_id);
    bool sorted = !a->unsorted && order && order->n_fields > 0;
    struct sort_buffer held = {0};
    /* CSV inputs are read as the table's types. */
    struct ArrowSchema want = {0};
    basalt_status st = basalt_iceberg_schema_to_arrow(schema, &want, err);
    for (int f = 0; st == BASALT_OK && f < a->n_files; f++) {
        struct cli_batch_source *src = NULL;
        st = cli_batch_source_open_as(a->files[f], pool, &want, &src, err);
        while (st == BASALT_OK) {
            struct ArrowArray batch, conformed;
            st = cli_batch_source_next(src, &batch, err);
            if (st != BASALT_OK || !batch.release)
                break;
            st = basalt_iceberg_conform_batch(schema, cli_batch_source_schema(src), &batch,
                                              &conformed, err);
            if (st != BASALT_OK)
                break;
            *rows += conformed.length;
            if (sorted) {
                st = sort_hold(&held, &conformed, err);
                if (st == BASALT_OK && held.rows >= a->sort_buffer_rows)
                    st = sort_flush(&held, w, m, &want, err);
            } else {
                st = basalt_iceberg_data_writer_write(w, &conformed, err);
                basalt_arrow_array_release(&conformed);
            }
        }
        /* (the CSV reader's messages already start with the file's name) */
        if (st != BASALT_OK && (!err || strncmp(err->message, a->files[f],
                                                strlen(a->files[f])) != 0))
            st = basalt_error_context(err, st, "%.300s", a->files[f]);
        cli_batch_source_close(src);
    }
    if (st == BASALT_OK)
        st = sort_flush(&held, w, m, &want, err);
    for (uint32_t i = 0; i < held.n; i++)
        basalt_arrow_array_release(&held.batches[i]);
    free(held.batches);
    basalt_arrow_schema_release(&want);
    return st;
}

static int append_or_overwrite(int argc, char **argv, bool overwrite);

int cli_iceberg_append(int argc, char **argv)
{
    return append_or_overwrite(argc, argv, false);
}

int cli_iceberg_overwrite(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg overwrite NAME FILE... [--where EXPR | --dynamic] [options]\n\n"
               "Replaces the rows of table NAME where EXPR holds (default: every row) with\n"
               "the rows of Parquet, Avro or CSV files, in one snapshot (operation overwrite):\n"
               "files whose rows all match are removed, files partly matching are written\n"
               "again without those rows. With --dynamic, the partitions the new rows fall\n"
               "in are replaced whole, and no others. Retried on the new head when another\n"
               "writer commits first.\n\n"
               "options:\n"
               "  --where EXPR         the rows replaced, e.g. \"d >= '2024-03-01'\"\n"
               "  --dynamic            replace the partitions the new rows fall in\n"
               "  --branch NAME        commit to this branch (default main)\n"
               "  --threads N          workers for reading and writing (default: the CPUs)\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    return append_or_overwrite(argc, argv, true);
}

static int append_or_overwrite(int argc, char **argv, bool overwrite)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt iceberg append NAME FILE... [options]\n\n"
               "Appends the rows of Parquet, Avro or CSV files to table NAME as one snapshot.\n"
               "Columns are matched by name and cast to the table's types; missing optional\n"
               "columns are null. Rows are written as the table's data files (partitioned,\n"
               "rolled at write.target-file-size-bytes) and committed with retries when\n"
               "another writer commits first; on failure the files written are removed.\n"
               "CSV files (named .csv or .tsv) have their dialect and header sniffed and\n"
               "their columns read as the table's types. A table with a sort order gets\n"
               "its rows sorted, in runs of --sort-buffer-rows rows.\n\n"
               "options:\n"
               "  --branch NAME        commit to this branch (default main)\n"
               "  --unsorted           keep the input order\n"
               "  --sort-buffer-rows N rows sorted together (default 2000000)\n"
               "  --threads N          workers for reading and writing (default: the CPUs)\n%s",
               cli_iceberg_common_help);
        return CLI_OK;
    }
    struct append_args a;
    int rc = parse_append(argc, argv, overwrite, &a);
    if (rc != CLI_OK) {
        free(a.files);
        return rc;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    struct basalt_iceberg_data_writer *w = NULL;
    struct basalt_pool *pool = NULL;
    char *data_location = NULL;
    int64_t rows = 0, snapshot_id = 0;
    const struct basalt_iceberg_data_file *files = NULL;
    uint32_t n_files = 0;
    basalt_status st = cli_iceberg_open_catalog(&a.common, false, &c, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_load_table(c, a.name, &t, &err);
    if (st == BASALT_OK && a.threads > 1)
        st = basalt_pool_new(a.threads - 1, &pool, &err);
    const struct basalt_iceberg_metadata *m = t ? t->metadata : NULL;
    const struct basalt_iceberg_schema *schema = m ? basalt_iceberg_metadata_current_schema(m) : NULL;
    if (st == BASALT_OK) {
        const char *path = basalt_iceberg_metadata_property(m, "write.data.path");
        size_t cap = (path ? strlen(path) : strlen(m->location)) + 8;
        data_location = malloc(cap);
        if (!data_location)
            st = basalt_error_set(&err, BASALT_NOMEM, "out of memory");
        else if (path)
            snprintf(data_location, cap, "%s", path);
        else
            snprintf(data_location, cap, "%s/data", m->location);
    }
    char prefix[64];
    file_prefix(prefix, sizeof prefix);
    if (st == BASALT_OK) {
        struct basalt_iceberg_data_writer_options wo;
        basalt_iceberg_data_writer_options_init(&wo);
        wo.schema = schema;
        wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
        wo.properties = m->properties;
        wo.n_properties = m->n_properties;
        wo.data_location = data_location;
        wo.file_prefix = prefix;
        wo.io = t->io;
        wo.sort_order_id = m->default_sort_order_id;
        wo.pool = pool;
        st = basalt_iceberg_data_writer_new(&wo, &w, &err);
    }
    if (st == BASALT_OK)
        st = write_inputs(&a, w, m, pool, &rows, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(w, &files, &n_files, &err);
    struct basalt_iceberg_delete_result replaced;
    memset(&replaced, 0, sizeof replaced);
    if (st == BASALT_OK) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(c, &committer);
        if (overwrite) {
            struct basalt_iceberg_delete_options d;
            basalt_iceberg_delete_options_init(&d);
            d.branch = a.branch;
            d.pool = pool;
            st = a.dynamic ? basalt_iceberg_replace_partitions(&committer, a.name, files, n_files,
                                                               &d, &replaced, &err)
                           : basalt_iceberg_delete_where(&committer, a.name,
                                                         a.where ? a.where : "true", files,
                                                         n_files, &d, &replaced, &err);
            snapshot_id = replaced.snapshot_id;
        } else {
            struct basalt_iceberg_append_options ao;
            basalt_iceberg_append_options_init(&ao);
            ao.branch = a.branch;
            ao.base = t; /* loaded above: its first attempt loads nothing */
            st = basalt_iceberg_append(&committer, a.name, files, n_files, &ao, NULL,
                                       &snapshot_id, &err);
        }
    }
    /* Data files of a failed append are removed, unless the commit's outcome
     * is unknown: then a committed snapshot may name them. */
    if (st != BASALT_OK && w && st != BASALT_UNKNOWN_OUTCOME)
        basalt_iceberg_data_writer_abort(w, NULL);
    if (st == BASALT_OK && overwrite)
        printf("overwrote %lld rows with %lld rows in %u files in %s: snapshot %lld\n",
               (long long)replaced.rows_deleted, (long long)rows, n_files, a.name,
               (long long)snapshot_id);
    else if (st == BASALT_OK)
        printf("appended %lld rows in %u files to %s: snapshot %lld\n", (long long)rows, n_files,
               a.name, (long long)snapshot_id);
    basalt_iceberg_data_writer_free(w);
    basalt_pool_free(pool);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    free(data_location);
    free(a.files);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}
