/* Row-level changes by filter: delete, overwrite and update, copy-on-write
 * or merge-on-read. Each attempt finds the matching rows on the branch
 * head (delete_hits.c), then either writes their files again without them
 * (copy-on-write) or records them in delete files (merge-on-read: position
 * deletes, deletion vectors or equality deletes), writes any changed rows,
 * and commits one snapshot asserting the head has not moved. A lost race
 * starts over on the new head, so rows another writer added or deleted are
 * judged too: no change is lost or applied twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "commit_internal.h"
#include "delete_internal.h"
#include "scan_internal.h"
#include "snapshot_internal.h"

void basalt_iceberg_delete_options_init(struct basalt_iceberg_delete_options *o)
{
    memset(o, 0, sizeof *o);
    o->retries = 10;
}

/* What one change asks for. */
struct change {
    const char *branch;
    const char *filter;
    const struct basalt_iceberg_data_file *added;   /* the caller's files (overwrite) */
    uint32_t n_added;
    const char *const *set;                          /* update */
    uint32_t n_set;
    const struct basalt_iceberg_delete_options *o;
    bool update;
};

/* Everything one attempt holds. */
struct attempt {
    struct basalt_iceberg_table *t;
    struct basalt_iceberg_scan *scan;
    struct basalt_iceberg_hits h;
    struct basalt_iceberg_data_writer *w;
    struct basalt_iceberg_delete_files deletes;
    struct basalt_iceberg_file_deletes *items;
    struct basalt_iceberg_rewrite_state state;
    struct basalt_arena arena;
    const struct basalt_iceberg_data_file *written; /* by w */
    uint32_t n_written;
    int64_t rows;                                   /* matching rows */
    bool mor;
    bool unknown;                                   /* the commit's outcome is unknown */
};

static bool merge_on_read(const struct basalt_iceberg_metadata *m, const struct change *c)
{
    if (c->o->mode != BASALT_ICEBERG_DELETE_TABLE_MODE)
        return c->o->mode == BASALT_ICEBERG_MERGE_ON_READ;
    const char *mode =
        basalt_iceberg_metadata_property(m, c->update ? "write.update.mode" : "write.delete.mode");
    return mode && strcmp(mode, "merge-on-read") == 0;
}

static basalt_status open_writer(struct attempt *a, const struct change *c,
                                 struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = a->t->metadata;
    char *data = basalt_arena_alloc(&a->arena, 4096, 1), *prefix = basalt_arena_alloc(&a->arena, 96, 1);
    if (!data || !prefix)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_iceberg_data_writer_options wo;
    basalt_iceberg_delete_writer_options(a->t, "data", data, prefix, &wo);
    wo.schema = basalt_iceberg_metadata_current_schema(m);
    wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
    wo.sort_order_id = m->default_sort_order_id;
    wo.row_lineage = basalt_iceberg_tracks_row_lineage(m);
    wo.pool = c->o->pool;
    wo.num_workers = c->o->num_workers;
    return basalt_iceberg_data_writer_new(&wo, &a->w, err);
}

/* The top-level indexes and ids of the equality delete columns. */
static basalt_status equality_keys(const struct basalt_iceberg_schema *schema,
                                   const struct change *c, struct basalt_arena *arena,
                                   uint32_t **index, int32_t **ids, struct basalt_error *err)
{
    uint32_t n = c->o->n_equality_columns;
    *index = basalt_arena_alloc(arena, n * sizeof **index, 4);
    *ids = basalt_arena_alloc(arena, n * sizeof **ids, 4);
    if (!*index || !*ids)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t k = 0; k < n; k++) {
        const char *name = c->o->equality_columns[k];
        bool found = false;
        for (uint32_t i = 0; i < schema->root.n_fields && !found; i++)
            if (strcmp(schema->root.fields[i].name, name) == 0) {
                (*index)[k] = i;
                (*ids)[k] = schema->root.fields[i].id;
                found = true;
            }
        if (!found)
            return basalt_error_set(err, BASALT_NOT_FOUND,
                                    "equality delete column '%s' is not a top-level column", name);
    }
    return BASALT_OK;
}

/* Merge-on-read: position deletes (v2) or DVs merged with the deletes
 * already on each file (v3) for the partly matching files; files whose
 * every row matches are removed instead. */
static basalt_status write_position_deletes(struct attempt *a, uint32_t *n_items,
                                            struct basalt_error *err)
{
    bool v3 = a->t->metadata->format_version >= 3;
    a->items = basalt_arena_alloc(&a->arena, (a->h.n + 1) * sizeof *a->items, 8);
    if (!a->items)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    uint32_t n = 0;
    for (uint32_t k = 0; st == BASALT_OK && k < a->h.n; k++) {
        struct basalt_iceberg_hit *x = &a->h.items[k];
        if (x->whole)
            continue;
        if (v3 && x->has_deletes) {
            struct basalt_iceberg_posset *old = NULL;
            const struct basalt_iceberg_eqset **eq = NULL;
            uint32_t n_eq = 0;
            st = basalt_iceberg_task_deletes(a->scan, x->task, &old, &eq, &n_eq, err);
            if (st == BASALT_OK && old)
                st = basalt_iceberg_posset_union(x->positions, old, err);
            basalt_iceberg_posset_free(old);
            basalt_free(eq);
        }
        a->items[n++] = (struct basalt_iceberg_file_deletes){
            .file = x->file, .spec_id = x->spec_id, .positions = x->positions};
    }
    *n_items = n;
    if (st != BASALT_OK)
        return st;
    return v3 ? basalt_iceberg_write_dvs(a->t, a->items, n, &a->deletes, err)
              : basalt_iceberg_write_position_deletes(a->t, a->items, n, &a->deletes, err);
}

/* Reads and writes what the change needs before its snapshot. */
static basalt_status prepare(struct attempt *a, const struct change *c, uint32_t *n_dv_items,
                             struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = a->t->metadata;
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(m);
    a->mor = merge_on_read(m, c);
    if (a->mor && m->format_version < 2)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "merge-on-read deletes need format version 2 or later (this table "
                                "is version %d)",
                                (int)m->format_version);
    bool equality = a->mor && c->o->n_equality_columns > 0;
    struct basalt_iceberg_row_pass pass = {
        .branch = c->branch,
        .filter = a->mor ? c->filter : NULL,
        .keep_unmatched = !a->mor,
        .all_files = c->update || equality,
        .lineage = basalt_iceberg_tracks_row_lineage(m),
        .pool = c->o->pool,
        .num_workers = c->o->num_workers,
    };
    basalt_status st = BASALT_OK;
    struct basalt_iceberg_set_clause *set = NULL;
    bool literal = c->update && c->o->set_rows == NULL;
    if (literal)
        st = basalt_iceberg_set_parse(schema, c->set, c->n_set, &a->arena, &set, err);
    pass.set = set;
    pass.n_set = literal ? c->n_set : 0;
    pass.set_rows = c->update ? c->o->set_rows : NULL;
    pass.set_rows_ctx = c->o->set_rows_ctx;
    if (st == BASALT_OK && equality) {
        int32_t *ids = NULL;
        uint32_t *index = NULL;
        st = equality_keys(schema, c, &a->arena, &index, &ids, err);
        pass.eq_index = index;
        pass.n_eq = c->o->n_equality_columns;
        pass.eq = &a->deletes;
        if (st == BASALT_OK)
            st = basalt_iceberg_eq_deletes_begin(a->t, ids, pass.n_eq, &a->deletes, err);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_find_hits(a->t, c->branch, c->filter, &a->arena, &a->h, &a->scan, err);
    if (st != BASALT_OK || a->h.n == 0)
        return st;
    for (uint32_t k = 0; k < a->h.n; k++)
        a->rows += (int64_t)basalt_iceberg_posset_cardinality(a->h.items[k].positions);
    /* Whole files go in every mode, unless an update must read their rows
     * or equality deletes their keys. */
    bool partial = false;
    for (uint32_t k = 0; k < a->h.n; k++)
        partial |= !a->h.items[k].whole;
    bool rows_needed = a->mor ? c->update || equality : partial || c->update;
    if (rows_needed) {
        st = open_writer(a, c, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_row_pass_run(a->t, &a->h, &pass, a->w, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_data_writer_finish(a->w, &a->written, &a->n_written, err);
    }
    if (st == BASALT_OK && equality)
        st = basalt_iceberg_eq_deletes_finish(&a->deletes, err);
    else if (st == BASALT_OK && a->mor)
        st = write_position_deletes(a, n_dv_items, err);
    return st;
}

static void attempt_reset(struct attempt *a, basalt_status st)
{
    if (st != BASALT_OK && !a->unknown && a->t) {
        /* Nothing names them: the attempt's files go. A commit whose
         * outcome is unknown may have made a snapshot of them: they stay. */
        if (a->state.written.n)
            basalt_iceberg_io_delete(a->t->io, (const char *const *)a->state.written.items,
                                     a->state.written.n, NULL);
        if (a->w)
            basalt_iceberg_data_writer_abort(a->w, NULL);
        basalt_iceberg_delete_files_abort(a->t, &a->deletes);
    }
    basalt_string_list_reset(&a->state.written);
    basalt_iceberg_data_writer_free(a->w);
    basalt_iceberg_delete_files_reset(&a->deletes);
    basalt_iceberg_hits_reset(&a->h);
    basalt_iceberg_scan_free(a->scan);
    basalt_arena_reset(&a->arena);
    basalt_iceberg_table_free(a->t);
}

static int compare_paths(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Builds and commits the snapshot of a prepared attempt. */
static basalt_status commit(struct attempt *a, const struct basalt_iceberg_committer *committer,
                            const char *identifier, const struct change *c, uint32_t n_dv_items,
                            struct basalt_iceberg_delete_result *result, struct basalt_error *err)
{
    uint32_t n_new = a->n_written + c->n_added;
    struct basalt_iceberg_data_file *all = basalt_arena_alloc(&a->arena, (n_new + 1) * sizeof *all, 8);
    const char **removed = basalt_arena_alloc(&a->arena, (a->h.n + 1) * sizeof *removed, 8);
    const char **replaced = basalt_arena_alloc(&a->arena, (n_dv_items + 1) * sizeof *replaced, 8);
    if (!all || !removed || !replaced)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < a->n_written; i++)
        all[i] = a->written[i];
    for (uint32_t i = 0; i < c->n_added; i++)
        all[a->n_written + i] = c->added[i];
    /* Copy-on-write removes every hit file; merge-on-read the whole ones
     * (and an update's are read and written again, so those go too). */
    uint32_t n_removed = 0;
    for (uint32_t k = 0; k < a->h.n; k++) {
        const struct basalt_iceberg_hit *x = &a->h.items[k];
        if (!a->mor || x->whole)
            removed[n_removed++] = x->path; /* sorted: h is */
    }
    /* DVs written replace the old ones of their files. */
    bool dvs = a->mor && a->t->metadata->format_version >= 3 && !a->deletes.eq;
    for (uint32_t i = 0; dvs && i < n_dv_items; i++)
        replaced[i] = a->items[i].file->file_path;
    if (dvs && n_dv_items > 1)
        qsort(replaced, n_dv_items, sizeof *replaced, compare_paths);
    const char *operation = n_new ? "overwrite" : "delete";
    struct basalt_iceberg_rewrite rw = {
        .branch = c->branch,
        .operation = operation,
        .removed = removed,
        .n_removed = n_removed,
        .added = all,
        .n_added = n_new,
        .added_deletes = a->deletes.files,
        .added_delete_specs = a->deletes.spec_ids,
        .n_added_deletes = a->deletes.n,
        .replaced_dvs = replaced,
        .n_replaced_dvs = dvs ? n_dv_items : 0,
    };
    char *reqs = NULL, *ups = NULL;
    int64_t id = basalt_iceberg_new_snapshot_id();
    basalt_status st =
        basalt_iceberg_rewrite_build(a->t, &rw, id, &a->arena, &a->state, &reqs, &ups, err);
    if (st == BASALT_OK) {
        st = committer->commit(committer->ctx, identifier, reqs, ups, NULL, err);
        if (st == BASALT_UNKNOWN_OUTCOME) {
            st = basalt_iceberg_commit_status_check(committer, identifier, id, err);
            a->unknown = st != BASALT_OK;
        }
    }
    basalt_free(reqs);
    basalt_free(ups);
    if (st == BASALT_OK) {
        result->snapshot_id = id;
        result->files_removed = n_removed;
        result->files_added = a->n_written;
        result->delete_files_added = a->deletes.n;
        result->rows_deleted = a->rows;
    }
    return st;
}

static basalt_status run(const struct basalt_iceberg_committer *committer, const char *identifier,
                         const struct change *c, struct basalt_iceberg_delete_result *result,
                         struct basalt_error *err)
{
    struct basalt_iceberg_delete_result ignored;
    if (!result)
        result = &ignored;
    memset(result, 0, sizeof *result);
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT && attempt <= c->o->retries; attempt++) {
        struct attempt a;
        memset(&a, 0, sizeof a);
        basalt_arena_init(&a.arena, 0);
        basalt_iceberg_delete_files_init(&a.deletes);
        uint32_t n_dv_items = 0;
        st = committer->load(committer->ctx, identifier, &a.t, err);
        if (st == BASALT_OK)
            st = prepare(&a, c, &n_dv_items, err);
        /* Nothing matching and nothing added: no snapshot. */
        if (st == BASALT_OK && (a.h.n > 0 || c->n_added > 0))
            st = commit(&a, committer, identifier, c, n_dv_items, result, err);
        attempt_reset(&a, st);
    }
    if (st != BASALT_OK)
        memset(result, 0, sizeof *result);
    return st;
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
    if (!options) {
        basalt_iceberg_delete_options_init(&defaults);
        options = &defaults;
    }
    struct change c = {
        .branch = options->branch ? options->branch : "main",
        .filter = filter,
        .added = added,
        .n_added = n_added,
        .o = options,
    };
    return run(committer, identifier, &c, result, err);
}

basalt_status basalt_iceberg_update_where(const struct basalt_iceberg_committer *committer,
                                          const char *identifier, const char *filter,
                                          const char *const *set, uint32_t n_set,
                                          const struct basalt_iceberg_delete_options *options,
                                          struct basalt_iceberg_delete_result *result,
                                          struct basalt_error *err)
{
    struct basalt_iceberg_delete_options defaults;
    if (!options) {
        basalt_iceberg_delete_options_init(&defaults);
        options = &defaults;
    }
    if (n_set == 0 && options->set_rows == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "an update needs a SET clause");
    struct change c = {
        .branch = options->branch ? options->branch : "main",
        .filter = filter,
        .set = set,
        .n_set = n_set,
        .o = options,
        .update = true,
    };
    return run(committer, identifier, &c, result, err);
}
