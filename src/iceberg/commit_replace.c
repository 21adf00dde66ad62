/* Dynamic partition overwrite: new data files replace every live data file
 * of the partitions they fall in (the Java library's ReplacePartitions,
 * what `INSERT OVERWRITE` does without a filter). The files to remove are
 * found from the branch head's scan plan; the snapshot asserts the head
 * has not moved, and a lost race is worked out again on the new head, so
 * files another writer added to those partitions are replaced too. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

bool basalt_iceberg_partition_equal(const struct basalt_iceberg_data_file *a,
                                    const struct basalt_iceberg_data_file *b)
{
    if (a->n_partition != b->n_partition)
        return false;
    for (uint32_t i = 0; i < a->n_partition; i++) {
        const struct basalt_iceberg_value *x = &a->partition[i], *y = &b->partition[i];
        if (x->is_null != y->is_null || (!x->is_null && basalt_iceberg_value_compare(x, y) != 0))
            return false;
    }
    return true;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The live data files of the default spec in the added files' partitions
 * (sorted, unique, views into the plan) and their rows. */
static basalt_status replaced_files(const struct basalt_iceberg_table *t, const char *branch,
                                    const struct basalt_iceberg_data_file *added, uint32_t n_added,
                                    struct basalt_iceberg_scan **scan_out, const char ***out,
                                    uint32_t *n_out, int64_t *rows, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.ref = basalt_iceberg_metadata_ref(m, branch) ? branch : NULL;
    const struct basalt_iceberg_plan *plan = NULL;
    basalt_status st = basalt_iceberg_scan_new(t, &o, scan_out, err);
    if (st == BASALT_OK && (o.ref || m->has_current_snapshot_id))
        st = basalt_iceberg_scan_plan(*scan_out, &plan, err);
    uint32_t n_tasks = plan ? plan->n_tasks : 0;
    const char **paths = basalt_malloc((n_tasks + 1) * sizeof *paths);
    if (st == BASALT_OK && !paths)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < n_tasks; i++) {
        const struct basalt_iceberg_file_task *task = &plan->tasks[i];
        if (task->spec_id != m->default_spec_id)
            continue;
        bool hit = false;
        for (uint32_t k = 0; k < n_added && !hit; k++)
            hit = basalt_iceberg_partition_equal(task->file, &added[k]);
        if (hit)
            paths[n++] = task->file->file_path;
    }
    if (st == BASALT_OK && n > 1)
        qsort(paths, n, sizeof *paths, compare_paths);
    /* A file split into several tasks is named once. */
    uint32_t unique = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++)
        if (unique == 0 || strcmp(paths[unique - 1], paths[i]) != 0)
            paths[unique++] = paths[i];
    *rows = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < n_tasks; i++) {
        const char *p = plan->tasks[i].file->file_path;
        if (unique && bsearch(&p, paths, unique, sizeof *paths, compare_paths) &&
            plan->tasks[i].start == 0)
            *rows += plan->tasks[i].file->record_count;
    }
    if (st != BASALT_OK) {
        basalt_free(paths);
        return st;
    }
    *out = paths;
    *n_out = unique;
    return BASALT_OK;
}

basalt_status basalt_iceberg_replace_partitions(
    const struct basalt_iceberg_committer *committer, const char *identifier,
    const struct basalt_iceberg_data_file *files, uint32_t n_files,
    const struct basalt_iceberg_delete_options *options,
    struct basalt_iceberg_delete_result *result, struct basalt_error *err)
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
    for (uint32_t i = 0; i < n_files; i++)
        if (files[i].content != BASALT_ICEBERG_CONTENT_DATA)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "replace partitions: %.300s is a delete file", files[i].file_path);
    const char *branch = options->branch ? options->branch : "main";
    static const struct basalt_iceberg_kv marker = {"replace-partitions", "true"};
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT && attempt <= options->retries; attempt++) {
        struct basalt_iceberg_table *t = NULL;
        struct basalt_iceberg_scan *scan = NULL;
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_iceberg_rewrite_state state;
        memset(&state, 0, sizeof state);
        const char **removed = NULL;
        uint32_t n_removed = 0;
        int64_t rows = 0;
        char *reqs = NULL, *ups = NULL;
        bool unknown = false;
        int64_t id = basalt_iceberg_new_snapshot_id();
        st = committer->load(committer->ctx, identifier, &t, err);
        if (st == BASALT_OK)
            st = replaced_files(t, branch, files, n_files, &scan, &removed, &n_removed, &rows, err);
        if (st == BASALT_OK) {
            struct basalt_iceberg_rewrite rw = {
                .branch = branch,
                .operation = "overwrite",
                .removed = removed,
                .n_removed = n_removed,
                .added = files,
                .n_added = n_files,
                .summary = &marker,
                .n_summary = 1,
            };
            st = basalt_iceberg_rewrite_build(t, &rw, id, &arena, &state, &reqs, &ups, err);
        }
        if (st == BASALT_OK) {
            st = committer->commit(committer->ctx, identifier, reqs, ups, NULL, err);
            if (st == BASALT_UNKNOWN_OUTCOME) {
                st = basalt_iceberg_commit_status_check(committer, identifier, id, err);
                unknown = st != BASALT_OK;
            }
        }
        if (st == BASALT_OK) {
            result->snapshot_id = id;
            result->files_removed = n_removed;
            result->rows_deleted = rows;
        } else if (!unknown && state.written.n) {
            basalt_iceberg_io_delete(t->io, (const char *const *)state.written.items,
                                     state.written.n, NULL);
        }
        basalt_string_list_reset(&state.written);
        basalt_free(removed);
        basalt_free(reqs);
        basalt_free(ups);
        basalt_iceberg_scan_free(scan);
        basalt_arena_reset(&arena);
        basalt_iceberg_table_free(t);
    }
    return st;
}
