/* Sources of morsels: a row group of a Parquet file, a file task of an
 * Iceberg scan, or one batch of a materialised result. A morsel is read by
 * one worker with the pool left alone (the workers are the parallelism). */
#include <string.h>

#include "plan/run_internal.h"

void basalt_qsource_reset(struct qsource *src)
{
    basalt_arrow_batches_reset(&src->batches);
    basalt_free(src->m_file);
    basalt_free(src->m_rg);
    basalt_free(src->matches_all);
    basalt_iceberg_scan_free(src->iscan_kept);
    basalt_iceberg_scan_free(src->iscan);
    basalt_arrow_schema_release(&src->structs);
    basalt_arrow_schema_release(&src->structs_kept);
    if (src->fn_free != NULL)
        src->fn_free(src->fn_ctx);
    memset(src, 0, sizeof *src);
    basalt_arrow_batches_init(&src->batches);
}

static basalt_status open_parquet(struct basalt_qplan *scan, struct qsource *src,
                                  struct basalt_error *err)
{
    const struct qscan *s = &scan->scan;
    int64_t n = 0;
    for (size_t f = 0; f < s->n_paths; f++)
        n += basalt_parquet_reader_num_row_groups(s->readers[f]);
    src->m_file = basalt_calloc((size_t)n + 1, sizeof *src->m_file);
    src->m_rg = basalt_calloc((size_t)n + 1, sizeof *src->m_rg);
    if (src->m_file == NULL || src->m_rg == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t m = 0;
    for (size_t f = 0; f < s->n_paths; f++)
        for (int32_t g = 0; g < basalt_parquet_reader_num_row_groups(s->readers[f]); g++) {
            src->m_file[m] = (int32_t)f;
            src->m_rg[m++] = g;
        }
    src->n_morsels = n;
    scan->files_kept = (int64_t)s->n_paths;
    return BASALT_OK;
}

/* Tasks whose residual is TRUE: the partition alone proves that every row
 * of the file passes the pushed filter. */
static basalt_status mark_matching_tasks(struct qsource *src, const struct basalt_iceberg_plan *plan,
                                         struct basalt_error *err)
{
    src->matches_all = basalt_calloc((size_t)plan->n_tasks + 1, sizeof *src->matches_all);
    if (src->matches_all == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t t = 0; t < plan->n_tasks; t++) {
        const struct basalt_iceberg_expr *res = plan->tasks[t].residual;
        src->matches_all[t] = res != NULL && res->op == BASALT_ICEBERG_OP_TRUE;
    }
    return BASALT_OK;
}

/* The scan of the columns the filter above passes on, for the morsels
 * that skip it (qsource.direct). `o` is the main scan's options, `columns`
 * its columns (NULL: every column of the schema). */
static basalt_status open_kept(const struct qscan *s, const struct basalt_iceberg_scan_options *o,
                               const char *const *columns, struct qsource *src,
                               struct basalt_error *err)
{
    src->direct = true;
    if (s->n_keep_above == 0)
        return BASALT_OK; /* nothing to read: record counts */
    const char **kept = basalt_calloc((size_t)s->n_keep_above, sizeof *kept);
    if (kept == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < s->n_keep_above; i++) {
        int32_t c = s->keep_above[i];
        kept[i] = columns != NULL ? columns[c] : s->full.children[c]->name;
    }
    struct basalt_iceberg_scan_options ko = *o;
    ko.columns = kept;
    ko.n_columns = (size_t)s->n_keep_above;
    const struct basalt_iceberg_plan *plan = NULL;
    basalt_status st = basalt_iceberg_scan_new(s->table, &ko, &src->iscan_kept, err);
    if (st == BASALT_OK && s->nested != NULL)
        st = basalt_iceberg_scan_schema(src->iscan_kept, &src->structs_kept, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_prepare_tasks(src->iscan_kept, &plan, err);
    /* the same snapshot, filter and files: the same tasks, in order */
    if (st == BASALT_OK && plan->n_tasks != src->plan->n_tasks)
        st = basalt_error_set(err, BASALT_INTERNAL, "iceberg scan: %u tasks, then %u",
                              src->plan->n_tasks, plan->n_tasks);
    basalt_free(kept);
    return st;
}

/* The Iceberg scan with the kept columns and the pushed predicates. */
static basalt_status open_iceberg(struct basalt_qplan *scan, struct qsource *src,
                                  struct basalt_error *err)
{
    const struct qscan *s = &scan->scan;
    struct basalt_iceberg_scan_options o = s->iceberg;
    const char **columns = NULL;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    basalt_status st = BASALT_OK;
    if (s->keep != NULL) {
        columns = basalt_calloc((size_t)s->n_keep + 1, sizeof *columns);
        if (columns == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int32_t i = 0; i < s->n_keep; i++)
            columns[i] = s->full.children[s->keep[i]]->name;
        o.columns = columns;
        o.n_columns = (size_t)s->n_keep;
    }
    struct basalt_iceberg_expr *filter = NULL;
    bool whole = s->pushed_all; /* every conjunct of the filter given to Iceberg */
    for (int32_t i = 0; i < s->n_pushed && st == BASALT_OK; i++) {
        struct basalt_iceberg_expr *e = NULL;
        st = basalt_qpushed_iceberg(&s->pushed[i], s->full.children[s->pushed[i].column]->name,
                                    &arena, &e, err);
        if (st == BASALT_OK && e != NULL)
            filter = filter == NULL ? e : basalt_iceberg_expr_and(&arena, filter, e);
        else
            whole = false;
    }
    o.filter = filter;
    /* The filter above tests every row again: the scan only prunes. */
    o.filter_rows = false;
    /* Remote files: the next tasks' round trips overlap the decoding. */
    o.read_ahead = 4;
    if (st == BASALT_OK) {
        st = basalt_iceberg_scan_new(s->table, &o, &src->iscan, err);
        /* A predicate Iceberg cannot bind (a literal its type does not take)
         * only costs pruning: scan without it; the filter above still runs. */
        if (st == BASALT_INVALID_ARG && filter != NULL) {
            o.filter = NULL;
            whole = false;
            st = basalt_iceberg_scan_new(s->table, &o, &src->iscan, err);
        }
    }
    const struct basalt_iceberg_plan *plan = NULL;
    double t0 = basalt_qrun_now_ms();
    if (st == BASALT_OK && s->nested != NULL)
        st = basalt_iceberg_scan_schema(src->iscan, &src->structs, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_prepare_tasks(src->iscan, &plan, err);
    if (st == BASALT_OK) {
        int64_t pruned = (int64_t)plan->files_skipped_by_partition + plan->files_skipped_by_metrics;
        src->n_morsels = plan->n_tasks;
        atomic_fetch_add(&scan->morsels_pruned, pruned);
        /* the scan opens once per run, on the thread that starts it */
        scan->files_kept = (int64_t)plan->data_files_total - pruned;
        scan->files_pruned = pruned;
        scan->plan_ms = basalt_qrun_now_ms() - t0;
        src->plan = plan;
        if (whole && filter != NULL)
            st = mark_matching_tasks(src, plan, err);
        if (st == BASALT_OK && src->matches_all != NULL && s->keep_above != NULL)
            st = open_kept(s, &o, columns, src, err);
    }
    basalt_free(columns);
    basalt_arena_reset(&arena);
    return st;
}

basalt_status basalt_qsource_open(struct basalt_qctx *ctx, struct basalt_qplan *scan,
                                  struct qsource *src, struct basalt_error *err)
{
    (void)ctx;
    memset(src, 0, sizeof *src);
    basalt_arrow_batches_init(&src->batches);
    src->node = scan;
    switch (scan->kind) {
    case QPLAN_SCAN_PARQUET:
        src->kind = QSRC_PARQUET;
        return open_parquet(scan, src, err);
    case QPLAN_SCAN_ICEBERG:
        src->kind = QSRC_ICEBERG;
        return open_iceberg(scan, src, err);
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "not a scan source");
    }
}

/* Reads row group (file, rg) with the kept columns and the pushed
 * predicates; a row group the statistics rule out yields nothing. */
static basalt_status parquet_morsel(struct qsource *src, int64_t m, int worker, qemit_fn emit,
                                    void *emit_ctx, struct basalt_error *err)
{
    const struct qscan *s = &src->node->scan;
    int32_t f = src->m_file[m], rg = src->m_rg[m];
    struct basalt_parquet_read_options ro;
    basalt_parquet_read_options_init(&ro);
    struct basalt_parquet_scan *scan = NULL;
    basalt_status st = basalt_parquet_scan_new(s->readers[f], &ro, &scan, err);
    if (st != BASALT_OK)
        return st;
    if (s->keep == NULL)
        basalt_parquet_scan_select_all(scan);
    for (int32_t i = 0; s->keep != NULL && i < s->n_keep && st == BASALT_OK; i++) {
        const char *name = s->full.children[s->keep[i]]->name;
        st = s->nested != NULL && s->nested[s->keep[i]]
                 ? basalt_parquet_scan_select_path(scan, name, err)
                 : basalt_parquet_scan_select_column(scan, name, err);
    }
    int32_t n_out = s->keep != NULL ? s->n_keep : (int32_t)s->full.n_children;
    for (int32_t i = 0; s->dictionary != NULL && i < n_out && st == BASALT_OK; i++)
        if (s->dictionary[i])
            st = basalt_parquet_scan_keep_dictionary(
                scan, s->full.children[s->keep != NULL ? s->keep[i] : i]->name, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_select_row_groups(scan, &rg, 1, err);
    for (int32_t i = 0; i < s->n_pushed && st == BASALT_OK; i++) {
        struct basalt_parquet_literal lit;
        const char *leaf = s->full.children[s->pushed[i].column]->name;
        if (basalt_qpushed_parquet(&s->pushed[i], s->full.children[s->pushed[i].column], &lit))
            st = basalt_parquet_scan_filter(scan, leaf, s->pushed[i].op, &lit, err);
    }
    /* With struct columns, the reader's batches hold the structs (with the
     * leaves kept): they are flattened to the leaves. */
    struct ArrowSchema structs;
    memset(&structs, 0, sizeof structs);
    if (st == BASALT_OK && s->nested != NULL)
        st = basalt_parquet_scan_schema(scan, &structs, err);
    int64_t rows = 0;
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        st = basalt_parquet_scan_next(scan, &batch, err);
        if (st != BASALT_OK || batch.release == NULL)
            break;
        rows += batch.length;
        if (structs.release != NULL)
            st = basalt_qflat_batch(&structs, &batch, n_out, err);
        if (st == BASALT_OK)
            st = emit(emit_ctx, worker, m, &batch, err);
    }
    basalt_arrow_schema_release(&structs);
    if (st == BASALT_OK) {
        struct basalt_parquet_scan_stats stats;
        basalt_parquet_scan_get_stats(scan, &stats);
        if (stats.row_groups_read == 0)
            atomic_fetch_add(&src->node->morsels_pruned, 1);
        atomic_fetch_add(&src->node->rows_out, rows);
    }
    basalt_parquet_scan_free(scan);
    if (st != BASALT_OK)
        basalt_error_context(err, st, "%s", s->paths[f]);
    return st;
}

static basalt_status iceberg_read(struct qsource *src, struct basalt_iceberg_scan *scan, int64_t m,
                                  int worker, qemit_fn emit, void *emit_ctx,
                                  struct basalt_error *err)
{
    struct basalt_arrow_batches task;
    basalt_arrow_batches_init(&task);
    basalt_status st = basalt_iceberg_scan_read_task(scan, (uint32_t)m, &task, err);
    const struct ArrowSchema *structs = scan == src->iscan_kept ? &src->structs_kept : &src->structs;
    int32_t leaves = structs->release != NULL ? basalt_qflat_leaves(structs) : 0;
    int64_t rows = 0;
    for (int64_t i = 0; i < task.n && st == BASALT_OK; i++) {
        rows += task.arrays[i].length;
        if (structs->release != NULL)
            st = basalt_qflat_batch(structs, &task.arrays[i], leaves, err);
        if (st == BASALT_OK)
            st = emit(emit_ctx, worker, m, &task.arrays[i], err);
    }
    basalt_arrow_batches_reset(&task);
    atomic_fetch_add(&src->node->rows_out, rows);
    return st;
}

/* Whether morsel m may skip the filter above: its file matches it, and
 * either the columns passed on are read alone, or none is and the record
 * count is exact (a whole file, no deletes). */
static bool direct_ok(const struct qsource *src, int64_t m)
{
    if (!src->direct || !src->matches_all[m])
        return false;
    if (src->iscan_kept != NULL)
        return true;
    const struct basalt_iceberg_file_task *t = &src->plan->tasks[m];
    return t->n_deletes == 0 && t->start == 0 && t->length == t->file->file_size_in_bytes;
}

/* A morsel that skips the filter above (qsource.direct): its file matches
 * the filter everywhere, so only the columns passed on are read, or none. */
static basalt_status iceberg_morsel_direct(struct qsource *src, int64_t m, int worker,
                                           qemit_fn past_filter, void *emit_ctx,
                                           struct basalt_error *err)
{
    const struct basalt_iceberg_file_task *t = &src->plan->tasks[m];
    atomic_fetch_add(&src->node->morsels_direct, 1);
    if (src->iscan_kept != NULL)
        return iceberg_read(src, src->iscan_kept, m, worker, past_filter, emit_ctx, err);
    struct ArrowArray none;
    basalt_status st = basalt_arrow_array_init(&none, 1, 0, err);
    if (st != BASALT_OK)
        return st;
    none.length = t->file->record_count;
    atomic_fetch_add(&src->node->rows_out, none.length);
    return past_filter(emit_ctx, worker, m, &none, err);
}

basalt_status basalt_qsource_morsel(struct qsource *src, int64_t m, int worker, qemit_fn emit,
                                    qemit_fn past_filter, void *emit_ctx,
                                    struct basalt_error *err)
{
    switch (src->kind) {
    case QSRC_BATCHES: {
        struct ArrowArray batch;
        basalt_arrow_array_move(&src->batches.arrays[m - src->first], &batch);
        return emit(emit_ctx, worker, m, &batch, err);
    }
    case QSRC_PARQUET:
        return parquet_morsel(src, m, worker, emit, emit_ctx, err);
    case QSRC_ICEBERG:
        if (past_filter != NULL && direct_ok(src, m))
            return iceberg_morsel_direct(src, m, worker, past_filter, emit_ctx, err);
        return iceberg_read(src, src->iscan, m, worker, emit, emit_ctx, err);
    case QSRC_FN:
        return src->fn(src->fn_ctx, m, worker, emit, emit_ctx, err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "unknown source");
}
