/* Leaf nodes: Parquet files, CSV, Arrow IPC, Iceberg tables and in-memory
 * batches. Each reads its schema when it is built; the data is read when the
 * plan runs (run_source.c). */
#include <string.h>

#include "basalt/io.h"
#include "basalt/ipc.h"
#include "plan/plan_internal.h"

/* A scan's file as an input: a remote URI through the context's store
 * (`flags` as basalt_io_open_input_flags takes them), or NULL in *in for a
 * local path, which the format's own open_file maps. */
static basalt_status open_remote(struct basalt_qctx *ctx, const char *path, unsigned flags,
                                 struct basalt_input **in, struct basalt_error *err)
{
    *in = NULL;
    if (!basalt_io_uri_is_remote(path))
        return BASALT_OK;
    struct basalt_io_store *store;
    basalt_status st = basalt_qctx_store(ctx, &store, err);
    if (st == BASALT_OK)
        st = basalt_io_open_input_flags(store, path, flags, in, err);
    return st;
}

/* open_remote for a text file the reader parses in place: the object is
 * copied to an unlinked temporary file in the temp directory and mapped
 * (basalt_input_spool), so its parsed windows' pages go back as the reader
 * moves on instead of the whole object being read into memory. */
static basalt_status open_remote_spooled(struct basalt_qctx *ctx, const char *path,
                                         struct basalt_input **in, struct basalt_error *err)
{
    struct basalt_input *remote;
    basalt_status st = open_remote(ctx, path, BASALT_IO_SEQUENTIAL, &remote, err);
    *in = NULL;
    if (st == BASALT_OK && remote != NULL)
        st = basalt_input_spool(remote, ctx->o.spill_dir, in, err);
    basalt_input_close(remote);
    return st;
}

/* The schema of a JSON, IPC or Iceberg scan whose reader's schema is in
 * s->full: struct columns as their leaves (struct_flatten.c), the reader's
 * schema kept in s->with_structs (JSON and IPC batches are flattened by it,
 * run_file_scan.c; an Iceberg scan's by its scan's own schema,
 * run_source.c). */
static basalt_status file_schema(struct basalt_qplan *node, struct basalt_error *err)
{
    struct qscan *s = &node->scan;
    basalt_status st = BASALT_OK;
    if (basalt_qflat_has_structs(&s->full)) {
        basalt_arrow_schema_move(&s->full, &s->with_structs);
        st = basalt_qflat_schema(&s->with_structs, &s->full, &s->nested, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(&s->full, &node->schema, err);
    return st;
}

/* Two schemas a union of files accepts as one: same column names and types. */
static basalt_status same_columns(const struct ArrowSchema *a, const struct ArrowSchema *b,
                                  const char *path, struct basalt_error *err)
{
    if (a->n_children != b->n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%s: %lld columns where the first file has %lld", path,
                                (long long)b->n_children, (long long)a->n_children);
    for (int64_t i = 0; i < a->n_children; i++) {
        const struct ArrowSchema *x = a->children[i], *y = b->children[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0 ||
            strcmp(x->format, y->format) != 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "%s: column %lld is '%s' (%s) where the first file has '%s' (%s)",
                                    path, (long long)i, y->name ? y->name : "", y->format,
                                    x->name ? x->name : "", x->format);
    }
    return BASALT_OK;
}

basalt_status basalt_qplan_scan_parquet(struct basalt_qctx *ctx, const char *const *paths,
                                        size_t n, struct basalt_qplan **out,
                                        struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || paths == NULL || n == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "read_parquet: no file to read");
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_SCAN_PARQUET, &node, err);
    if (st != BASALT_OK)
        return st;
    struct qscan *s = &node->scan;
    struct ArrowSchema first;
    memset(&first, 0, sizeof first);
    s->paths = basalt_calloc(n, sizeof *s->paths);
    s->readers = basalt_calloc(n, sizeof *s->readers);
    if (s->paths == NULL || s->readers == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        s->paths[i] = basalt_strdup(paths[i]);
        s->n_paths = i + 1;
        if (s->paths[i] == NULL) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            break;
        }
        struct basalt_input *in;
        st = open_remote(ctx, paths[i], 0, &in, err);
        if (st == BASALT_OK)
            st = in != NULL ? basalt_parquet_reader_open(in, true, NULL, &s->readers[i], err)
                            : basalt_parquet_reader_open_file(paths[i], NULL, &s->readers[i], err);
        struct ArrowSchema schema;
        if (st == BASALT_OK)
            st = basalt_parquet_reader_schema(s->readers[i], &schema, err);
        if (st != BASALT_OK)
            break;
        if (i == 0) {
            basalt_arrow_schema_move(&schema, &first);
            continue;
        }
        st = same_columns(&first, &schema, paths[i], err);
        basalt_arrow_schema_release(&schema);
    }
    /* Struct columns are read as their leaves (struct_flatten.c). */
    if (st == BASALT_OK && basalt_qflat_has_structs(&first))
        st = basalt_qflat_schema(&first, &s->full, &s->nested, err);
    else if (st == BASALT_OK)
        basalt_arrow_schema_move(&first, &s->full);
    basalt_arrow_schema_release(&first);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(&s->full, &node->schema, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_scan_csv(struct basalt_qctx *ctx, const char *path,
                                    const struct basalt_csv_read_options *options,
                                    struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || path == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "read_csv: NULL path");
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_SCAN_CSV, &node, err);
    if (st != BASALT_OK)
        return st;
    struct qscan *s = &node->scan;
    if (options != NULL)
        s->csv = *options;
    else
        basalt_csv_read_options_init(&s->csv);
    s->csv.pool = ctx->o.pool;
    s->csv.max_workers = ctx->o.num_workers;
    s->path = basalt_strdup(path);
    if (s->path == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* The reader stays open until the plan runs: it has copied what it keeps
     * of the options, whose pointers are borrowed only during this call. */
    struct basalt_input *in;
    st = open_remote_spooled(ctx, path, &in, err);
    if (st == BASALT_OK)
        st = in != NULL ? basalt_csv_reader_open(in, true, &s->csv, &s->csv_reader, err)
                        : basalt_csv_reader_open_file(path, &s->csv, &s->csv_reader, err);
    if (st == BASALT_OK)
        st = basalt_csv_reader_schema(s->csv_reader, &s->full, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(&s->full, &node->schema, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_scan_json(struct basalt_qctx *ctx, const char *path,
                                     const struct basalt_json_read_options *options,
                                     struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || path == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "read_json: NULL path");
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_SCAN_JSON, &node, err);
    if (st != BASALT_OK)
        return st;
    struct qscan *s = &node->scan;
    struct basalt_json_read_options o;
    if (options != NULL)
        o = *options;
    else
        basalt_json_read_options_init(&o);
    o.pool = ctx->o.pool;
    o.max_workers = ctx->o.num_workers;
    s->path = basalt_strdup(path);
    if (s->path == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* open now (the options' pointers are borrowed during this call only) */
    struct basalt_input *in;
    st = open_remote_spooled(ctx, path, &in, err);
    if (st == BASALT_OK)
        st = in != NULL ? basalt_json_reader_open(in, true, &o, &s->json_reader, err)
                        : basalt_json_reader_open_file(path, &o, &s->json_reader, err);
    if (st == BASALT_OK)
        st = basalt_json_reader_schema(s->json_reader, &s->full, err);
    if (st == BASALT_OK)
        st = file_schema(node, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_scan_ipc(struct basalt_qctx *ctx, const char *path,
                                    struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || path == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "read_ipc: NULL path");
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_SCAN_IPC, &node, err);
    if (st != BASALT_OK)
        return st;
    struct qscan *s = &node->scan;
    s->path = basalt_strdup(path);
    if (s->path == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_input *in;
    st = open_remote(ctx, path, 0, &in, err);
    if (st == BASALT_OK)
        st = in != NULL ? basalt_ipc_reader_open(in, NULL, &s->ipc_reader, err)
                        : basalt_ipc_reader_open_file(path, NULL, &s->ipc_reader, err);
    if (st == BASALT_OK)
        st = basalt_ipc_reader_schema(s->ipc_reader, &s->full, err);
    if (st == BASALT_OK)
        st = file_schema(node, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_scan_iceberg(struct basalt_qctx *ctx,
                                        const struct basalt_iceberg_table *table,
                                        const struct basalt_iceberg_scan_options *options,
                                        struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || table == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "iceberg scan: NULL table");
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_SCAN_ICEBERG, &node, err);
    if (st != BASALT_OK)
        return st;
    struct qscan *s = &node->scan;
    s->table = table;
    if (options != NULL)
        s->iceberg = *options;
    else
        basalt_iceberg_scan_options_init(&s->iceberg);
    s->iceberg.ref = NULL;
    if (options != NULL && options->ref != NULL) {
        s->ref = basalt_strdup(options->ref);
        if (s->ref == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        s->iceberg.ref = s->ref;
    }
    s->iceberg.filter = NULL;
    s->iceberg.columns = NULL;
    s->iceberg.n_columns = 0;
    s->iceberg.only_files = NULL;
    s->iceberg.n_only_files = 0;
    s->iceberg.pool = ctx->o.pool;
    s->iceberg.num_workers = ctx->o.num_workers;
    /* The schema of the snapshot the options select. */
    struct basalt_iceberg_scan *scan;
    st = basalt_iceberg_scan_new(table, &s->iceberg, &scan, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_iceberg_scan_schema(scan, &s->full, err);
    basalt_iceberg_scan_free(scan);
    if (st == BASALT_OK)
        st = file_schema(node, err);
    if (st == BASALT_OK)
        *out = node;
    return st;
}

basalt_status basalt_qplan_values(struct basalt_qctx *ctx, struct basalt_arrow_batches *batches,
                                  struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || batches == NULL || batches->schema.release == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "values: no schema");
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_VALUES, &node, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_schema_copy(&batches->schema, &node->schema, err);
    if (st != BASALT_OK)
        return st;
    node->scan.values = *batches;
    basalt_arrow_batches_init(batches);
    *out = node;
    return BASALT_OK;
}

basalt_status basalt_qplan_values_label(struct basalt_qplan *node, const char *label,
                                        struct basalt_error *err)
{
    if (node == NULL || node->kind != QPLAN_VALUES || label == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "values label: not a VALUES node");
    char *copy = basalt_strdup(label);
    if (copy == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_free(node->scan.label);
    node->scan.label = copy;
    return BASALT_OK;
}
