/* Deleting rows by filter, copy-on-write, and overwriting by filter: the
 * rows matching the filter are found with a scan that reads only their
 * positions (_file, _pos; pruned by partitions and metrics), files whose
 * every row matches are removed whole, the others are read again and
 * written without those rows, and one snapshot swaps the old files for the
 * new (plus any files the caller adds). A lost race starts over on the new
 * head, so rows another writer added are judged too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "commit_internal.h"
#include "scan_internal.h"
#include "snapshot_internal.h"

void basalt_iceberg_delete_options_init(struct basalt_iceberg_delete_options *o)
{
    memset(o, 0, sizeof *o);
    o->retries = 10;
}

/* The matching positions of one data file. */
struct hit {
    char *path;
    struct basalt_iceberg_posset *positions;
    const struct basalt_iceberg_data_file *file; /* from the plan */
    bool has_deletes;
    bool whole;                                  /* every row matches */
};

struct hits {
    struct hit *items;
    uint32_t n, cap;
};

static void hits_reset(struct hits *h)
{
    for (uint32_t i = 0; i < h->n; i++) {
        basalt_free(h->items[i].path);
        basalt_iceberg_posset_free(h->items[i].positions);
    }
    basalt_free(h->items);
    memset(h, 0, sizeof *h);
}

static struct hit *hit_for(struct hits *h, const char *path, size_t len, struct basalt_error *err)
{
    /* Batches come file by file: the last one is nearly always the one. */
    for (uint32_t i = h->n; i-- > 0;)
        if (strlen(h->items[i].path) == len && memcmp(h->items[i].path, path, len) == 0)
            return &h->items[i];
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 16;
        struct hit *items = basalt_realloc(h->items, cap * sizeof *items);
        if (!items)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory"), NULL;
        h->items = items;
        h->cap = cap;
    }
    struct hit *x = &h->items[h->n];
    memset(x, 0, sizeof *x);
    x->path = basalt_strndup(path, len);
    if (!x->path || basalt_iceberg_posset_new(&x->positions, err) != BASALT_OK) {
        basalt_free(x->path);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory"), NULL;
    }
    h->n++;
    return x;
}

static const char *branch_ref(const struct basalt_iceberg_table *t, const char *branch)
{
    return basalt_iceberg_metadata_ref(t->metadata, branch) ? branch : NULL;
}

/* Scan A: where the filter matches, as (_file, _pos). */
static basalt_status find_hits(const struct basalt_iceberg_table *t, const char *branch,
                               const char *filter, struct basalt_arena *arena, struct hits *h,
                               struct basalt_iceberg_scan **scan_out, struct basalt_error *err)
{
    struct basalt_iceberg_expr *expr = NULL;
    basalt_status st = basalt_iceberg_expr_parse(filter, arena, &expr, err);
    if (st != BASALT_OK)
        return st;
    static const char *const columns[] = {"_file", "_pos"};
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.ref = branch_ref(t, branch);
    o.filter = expr;
    o.columns = columns;
    o.n_columns = 2;
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowArrayStream stream;
    stream.release = NULL;
    st = basalt_iceberg_scan_new(t, &o, &scan, err);
    if (st == BASALT_OK && !o.ref && t->metadata->has_current_snapshot_id == false) {
        *scan_out = scan; /* an empty table: nothing matches */
        return BASALT_OK;
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_stream(scan, &stream, err);
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        if (stream.get_next(&stream, &batch) != 0) {
            st = basalt_error_set(err, BASALT_IO, "reading the rows to delete: %s",
                                  stream.get_last_error(&stream));
            break;
        }
        if (!batch.release)
            break;
        const struct ArrowArray *files = batch.children[0], *pos = batch.children[1];
        const int32_t *off = (const int32_t *)files->buffers[1] + files->offset;
        const char *chars = files->buffers[2];
        const int64_t *p = (const int64_t *)pos->buffers[1] + pos->offset;
        struct hit *x = NULL;
        for (int64_t r = 0; st == BASALT_OK && r < batch.length; r++) {
            const char *path = chars + off[r];
            size_t len = (size_t)(off[r + 1] - off[r]);
            if (!x || strlen(x->path) != len || memcmp(x->path, path, len) != 0)
                x = hit_for(h, path, len, err);
            st = x ? basalt_iceberg_posset_add(x->positions, (uint64_t)p[r], err) : BASALT_NOMEM;
        }
        batch.release(&batch);
    }
    if (stream.release)
        stream.release(&stream);
    /* The plan knows each file's row count and whether deletes apply. */
    const struct basalt_iceberg_plan *plan = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_plan(scan, &plan, err);
    for (uint32_t i = 0; st == BASALT_OK && i < plan->n_tasks; i++)
        for (uint32_t k = 0; k < h->n; k++)
            if (strcmp(h->items[k].path, plan->tasks[i].file->file_path) == 0) {
                h->items[k].file = plan->tasks[i].file;
                h->items[k].has_deletes |= plan->tasks[i].n_deletes > 0;
            }
    for (uint32_t k = 0; st == BASALT_OK && k < h->n; k++) {
        struct hit *x = &h->items[k];
        x->whole = x->file && !x->has_deletes &&
                   basalt_iceberg_posset_cardinality(x->positions) == (uint64_t)x->file->record_count;
    }
    *scan_out = scan;
    return st;
}

static int compare_hits(const void *a, const void *b)
{
    return strcmp(((const struct hit *)a)->path, ((const struct hit *)b)->path);
}

/* Scan B: the rows of the partly matching files that do not match, into
 * the data writer. */
static basalt_status rewrite_rest(const struct basalt_iceberg_table *t, const char *branch,
                                  struct hits *h, const struct basalt_iceberg_delete_options *opt,
                                  struct basalt_iceberg_data_writer *w, struct basalt_error *err)
{
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(t->metadata);
    uint32_t n_fields = schema->root.n_fields, n_partial = 0;
    const char **only = basalt_malloc((h->n ? h->n : 1) * sizeof *only);
    const char **columns = basalt_malloc((n_fields + 2) * sizeof *columns);
    if (!only || !columns) {
        basalt_free(only);
        basalt_free(columns);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < h->n; k++)
        if (!h->items[k].whole)
            only[n_partial++] = h->items[k].path; /* sorted: h is */
    for (uint32_t i = 0; i < n_fields; i++)
        columns[i] = schema->root.fields[i].name;
    columns[n_fields] = "_file";
    columns[n_fields + 1] = "_pos";
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.ref = branch_ref(t, branch);
    o.columns = columns;
    o.n_columns = n_fields + 2;
    o.only_files = only;
    o.n_only_files = n_partial;
    o.pool = opt->pool;
    o.num_workers = opt->num_workers;
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowArrayStream stream;
    stream.release = NULL;
    struct ArrowSchema out_schema;
    out_schema.release = NULL;
    basalt_status st = n_partial ? basalt_iceberg_scan_new(t, &o, &scan, err) : BASALT_OK;
    if (n_partial && st == BASALT_OK)
        st = basalt_iceberg_scan_schema(scan, &out_schema, err);
    if (n_partial && st == BASALT_OK)
        st = basalt_iceberg_scan_stream(scan, &stream, err);
    uint8_t *sel = NULL;
    while (n_partial && st == BASALT_OK) {
        struct ArrowArray batch, kept, rows;
        if (stream.get_next(&stream, &batch) != 0) {
            st = basalt_error_set(err, BASALT_IO, "reading the rows to keep: %s",
                                  stream.get_last_error(&stream));
            break;
        }
        if (!batch.release)
            break;
        const struct ArrowArray *files = batch.children[n_fields], *pos = batch.children[n_fields + 1];
        const int32_t *off = (const int32_t *)files->buffers[1] + files->offset;
        const char *chars = files->buffers[2];
        const int64_t *p = (const int64_t *)pos->buffers[1] + pos->offset;
        basalt_free(sel);
        sel = basalt_calloc((size_t)(batch.length + 7) / 8 + 1, 1);
        int64_t n_keep = 0;
        struct hit key, *x = NULL;
        for (int64_t r = 0; sel && r < batch.length; r++) {
            size_t len = (size_t)(off[r + 1] - off[r]);
            if (!x || strlen(x->path) != len || memcmp(x->path, chars + off[r], len) != 0) {
                char path[4096];
                snprintf(path, sizeof path, "%.*s", (int)len, chars + off[r]);
                key.path = path;
                x = bsearch(&key, h->items, h->n, sizeof *h->items, compare_hits);
            }
            if (!x || !basalt_iceberg_posset_contains(x->positions, (uint64_t)p[r])) {
                sel[r / 8] |= (uint8_t)(1u << (r % 8));
                n_keep++;
            }
        }
        st = sel ? basalt_iceberg_filter_array(&out_schema, &batch, sel, n_keep, &kept, err)
                 : basalt_error_set(err, BASALT_NOMEM, "out of memory");
        batch.release(&batch);
        if (st != BASALT_OK)
            break;
        /* The table's columns without _file and _pos. */
        st = basalt_arrow_array_init(&rows, 1, n_fields, err);
        for (uint32_t i = 0; st == BASALT_OK && i < n_fields; i++)
            basalt_arrow_array_move(kept.children[i], rows.children[i]);
        if (st == BASALT_OK) {
            rows.length = kept.length;
            st = rows.length ? basalt_iceberg_data_writer_write(w, &rows, err) : BASALT_OK;
            basalt_arrow_array_release(&rows);
        }
        basalt_arrow_array_release(&kept);
    }
    basalt_free(sel);
    if (stream.release)
        stream.release(&stream);
    if (out_schema.release)
        out_schema.release(&out_schema);
    basalt_iceberg_scan_free(scan);
    basalt_free(only);
    basalt_free(columns);
    return st;
}

static void delete_written(const struct basalt_iceberg_table *t, struct basalt_string_list *l)
{
    if (l->n)
        basalt_iceberg_io_delete(t->io, (const char *const *)l->items, l->n, NULL);
    basalt_string_list_reset(l);
}

basalt_status basalt_iceberg_delete_where(const struct basalt_iceberg_committer *committer,
                                          const char *identifier, const char *filter,
                                          const struct basalt_iceberg_data_file *added,
                                          uint32_t n_added,
                                          const struct basalt_iceberg_delete_options *options,
                                          struct basalt_iceberg_delete_result *result,
                                          struct basalt_error *err)
{
    struct basalt_iceberg_delete_options defaults;
    struct basalt_iceberg_delete_result ignored;
    if (!options) {
        basalt_iceberg_delete_options_init(&defaults);
        options = &defaults;
    }
    if (!result)
        result = &ignored;
    memset(result, 0, sizeof *result);
    const char *branch = options->branch ? options->branch : "main";
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT && attempt <= options->retries; attempt++) {
        struct basalt_iceberg_table *t = NULL;
        struct basalt_iceberg_scan *scan = NULL;
        struct basalt_iceberg_data_writer *w = NULL;
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct hits h = {0};
        struct basalt_iceberg_rewrite_state state;
        memset(&state, 0, sizeof state);
        char *reqs = NULL, *ups = NULL;
        const struct basalt_iceberg_data_file *rewritten = NULL;
        uint32_t n_rewritten = 0;
        st = committer->load(committer->ctx, identifier, &t, err);
        if (st == BASALT_OK)
            st = find_hits(t, branch, filter, &arena, &h, &scan, err);
        if (st == BASALT_OK && h.n > 1)
            qsort(h.items, h.n, sizeof *h.items, compare_hits);
        bool partial = false;
        for (uint32_t k = 0; k < h.n; k++)
            partial |= !h.items[k].whole;
        if (st == BASALT_OK && partial) {
            const struct basalt_iceberg_metadata *m = t->metadata;
            char data[4096], prefix[64], uuid[37];
            const char *path = basalt_iceberg_metadata_property(m, "write.data.path");
            snprintf(data, sizeof data, "%s%s", path ? path : m->location, path ? "" : "/data");
            basalt_iceberg_uuid4(uuid);
            snprintf(prefix, sizeof prefix, "00000-0-%s", uuid);
            struct basalt_iceberg_data_writer_options wo;
            basalt_iceberg_data_writer_options_init(&wo);
            wo.schema = basalt_iceberg_metadata_current_schema(m);
            wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
            wo.properties = m->properties;
            wo.n_properties = m->n_properties;
            wo.data_location = data;
            wo.file_prefix = prefix;
            wo.io = t->io;
            wo.sort_order_id = m->default_sort_order_id;
            wo.pool = options->pool;
            wo.num_workers = options->num_workers;
            st = basalt_iceberg_data_writer_new(&wo, &w, err);
            if (st == BASALT_OK)
                st = rewrite_rest(t, branch, &h, options, w, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_data_writer_finish(w, &rewritten, &n_rewritten, err);
        }
        /* Nothing to remove and nothing to add: no snapshot. */
        bool nothing = st == BASALT_OK && h.n == 0 && n_added == 0;
        struct basalt_iceberg_data_file *all = NULL;
        const char **removed = NULL;
        if (st == BASALT_OK && !nothing) {
            all = basalt_arena_alloc(&arena, (n_rewritten + n_added + 1) * sizeof *all, 8);
            removed = basalt_arena_alloc(&arena, (h.n + 1) * sizeof *removed, 8);
            if (!all || !removed)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        if (st == BASALT_OK && !nothing) {
            for (uint32_t i = 0; i < n_rewritten; i++)
                all[i] = rewritten[i];
            for (uint32_t i = 0; i < n_added; i++)
                all[n_rewritten + i] = added[i];
            for (uint32_t k = 0; k < h.n; k++) {
                removed[k] = h.items[k].path;
                result->rows_deleted += (int64_t)basalt_iceberg_posset_cardinality(h.items[k].positions);
            }
            struct basalt_iceberg_rewrite rw = {
                .branch = branch,
                .operation = n_added || n_rewritten ? "overwrite" : "delete",
                .removed = removed,
                .n_removed = h.n,
                .added = all,
                .n_added = n_rewritten + n_added,
            };
            int64_t id = basalt_iceberg_new_snapshot_id();
            st = basalt_iceberg_rewrite_build(t, &rw, id, &arena, &state, &reqs, &ups, err);
            if (st == BASALT_OK)
                st = committer->commit(committer->ctx, identifier, reqs, ups, NULL, err);
            if (st == BASALT_OK) {
                result->snapshot_id = id;
                result->files_removed = h.n;
                result->files_added = n_rewritten;
            }
        }
        if (st != BASALT_OK && st != BASALT_IO) {
            /* Nothing names them: the attempt's files go. */
            delete_written(t, &state.written);
            if (w)
                basalt_iceberg_data_writer_abort(w, NULL);
        }
        basalt_string_list_reset(&state.written);
        if (st != BASALT_OK)
            result->rows_deleted = 0;
        basalt_iceberg_data_writer_free(w);
        basalt_iceberg_scan_free(scan);
        hits_reset(&h);
        basalt_free(reqs);
        basalt_free(ups);
        basalt_arena_reset(&arena);
        basalt_iceberg_table_free(t);
    }
    return st;
}
