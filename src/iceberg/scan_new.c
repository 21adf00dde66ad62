/* Scans: snapshot and schema selection, filter binding, plan, count. */
#include <inttypes.h>
#include <string.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "scan_internal.h"

BASALT_EXPORT void basalt_iceberg_scan_options_init(struct basalt_iceberg_scan_options *options)
{
    memset(options, 0, sizeof *options);
    options->case_sensitive = true;
    options->batch_size = 65536;
    options->prune = true;
    options->filter_rows = true;
}

static basalt_status select_snapshot(struct basalt_iceberg_scan *scan, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = scan->table->metadata;
    const struct basalt_iceberg_scan_options *o = &scan->options;
    int n = (o->has_snapshot_id ? 1 : 0) + (o->ref != NULL ? 1 : 0) + (o->has_as_of ? 1 : 0);
    if (n > 1)
        return basalt_error_set(err, BASALT_INVALID_ARG, "at most one of snapshot id, ref and as-of time");
    bool travel_schema = true;
    if (o->has_snapshot_id) {
        scan->snapshot = basalt_iceberg_metadata_snapshot(m, o->snapshot_id);
        if (scan->snapshot == NULL)
            return basalt_error_set(err, BASALT_NOT_FOUND, "snapshot %" PRId64 " not found", o->snapshot_id);
    } else if (o->ref != NULL) {
        const struct basalt_iceberg_ref *ref = basalt_iceberg_metadata_ref(m, o->ref);
        if (ref == NULL)
            return basalt_error_set(err, BASALT_NOT_FOUND, "ref '%s' not found", o->ref);
        scan->snapshot = basalt_iceberg_metadata_snapshot(m, ref->snapshot_id);
        if (scan->snapshot == NULL)
            return basalt_error_set(err, BASALT_NOT_FOUND, "ref '%s': snapshot %" PRId64 " not found",
                                    o->ref, ref->snapshot_id);
        /* a branch reads with the table's schema, a tag with its snapshot's */
        travel_schema = ref->is_tag;
    } else if (o->has_as_of) {
        basalt_status st = basalt_iceberg_metadata_snapshot_as_of(m, o->as_of_ms, &scan->snapshot, err);
        if (st != BASALT_OK)
            return st;
    } else {
        scan->snapshot = basalt_iceberg_metadata_current_snapshot(m);
        travel_schema = false;
    }
    scan->schema = travel_schema ? basalt_iceberg_metadata_snapshot_schema(m, scan->snapshot)
                                 : basalt_iceberg_metadata_current_schema(m);
    if (scan->schema == NULL)
        return basalt_error_set(err, BASALT_CORRUPT, "table metadata has no schema");
    return BASALT_OK;
}

/* The _partition struct: every partition field of every spec, by field id. */
static basalt_status build_partition_type(struct basalt_iceberg_scan *scan, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = scan->table->metadata;
    size_t max = 0;
    for (uint32_t s = 0; s < m->n_specs; s++)
        max += m->specs[s].n_fields;
    struct basalt_iceberg_field *fields =
        basalt_arena_alloc(&scan->arena, (max ? max : 1) * sizeof *fields, _Alignof(struct basalt_iceberg_field));
    struct basalt_iceberg_field *pt = basalt_arena_alloc(&scan->arena, sizeof *pt, _Alignof(struct basalt_iceberg_field));
    if (fields == NULL || pt == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t s = 0; s < m->n_specs; s++) {
        const struct basalt_iceberg_partition_spec *spec = &m->specs[s];
        for (uint32_t i = 0; i < spec->n_fields; i++) {
            const struct basalt_iceberg_partition_field *pf = &spec->fields[i];
            if (pf->transform.kind == BASALT_ICEBERG_TRANSFORM_UNKNOWN ||
                pf->transform.kind == BASALT_ICEBERG_TRANSFORM_VOID)
                continue;
            bool dup = false;
            for (uint32_t k = 0; k < n; k++)
                dup = dup || fields[k].id == pf->field_id;
            const struct basalt_iceberg_field *src = basalt_iceberg_schema_field(scan->schema, pf->source_id);
            if (dup || src == NULL)
                continue;
            struct basalt_iceberg_type t = basalt_iceberg_manifest_result_type(pf->transform.kind, &src->type);
            if (t.id == BASALT_ICEBERG_TYPE_NONE || t.id == BASALT_ICEBERG_TYPE_STRUCT ||
                t.id == BASALT_ICEBERG_TYPE_LIST || t.id == BASALT_ICEBERG_TYPE_MAP)
                continue;
            memset(&fields[n], 0, sizeof fields[n]);
            fields[n].id = pf->field_id;
            fields[n].name = pf->name;
            fields[n].required = false;
            fields[n].type = t;
            fields[n].initial_default.is_null = true;
            fields[n].write_default.is_null = true;
            n++;
        }
    }
    memset(pt, 0, sizeof *pt);
    pt->id = BASALT_ICEBERG_FIELD_ID_PARTITION;
    pt->name = "_partition";
    pt->required = true;
    pt->type.id = BASALT_ICEBERG_TYPE_STRUCT;
    pt->type.fields = fields;
    pt->type.n_fields = n;
    pt->initial_default.is_null = true;
    pt->write_default.is_null = true;
    scan->partition_type = pt;
    return BASALT_OK;
}

BASALT_EXPORT basalt_status basalt_iceberg_scan_new(const struct basalt_iceberg_table *table,
                                                    const struct basalt_iceberg_scan_options *options,
                                                    struct basalt_iceberg_scan **out,
                                                    struct basalt_error *err)
{
    if (out == NULL || table == NULL || table->metadata == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL table or out");
    *out = NULL;
    struct basalt_iceberg_scan *scan = basalt_calloc(1, sizeof *scan);
    if (scan == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    scan->table = table;
    if (table->io != NULL)
        scan->io = *table->io;
    scan->io.owned = NULL; /* the table's: never freed through the copy */
    scan->io.counts = &scan->io_counts;
    if (options != NULL)
        scan->options = *options;
    else
        basalt_iceberg_scan_options_init(&scan->options);
    if (scan->options.batch_size <= 0)
        scan->options.batch_size = 65536;
    basalt_arena_init(&scan->arena, 64 << 10);
    basalt_status st = select_snapshot(scan, err);
    if (st == BASALT_OK) {
        if (scan->options.filter != NULL) {
            st = basalt_iceberg_expr_bind(scan->options.filter, scan->schema, scan->options.case_sensitive,
                                          &scan->arena, &scan->bound, err);
            if (st != BASALT_OK)
                basalt_error_context(err, st, "filter");
        } else {
            scan->bound = basalt_iceberg_expr_true(&scan->arena);
            if (scan->bound == NULL)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
    }
    /* the columns outlive this call: copy them */
    if (st == BASALT_OK && scan->options.columns != NULL) {
        size_t n = scan->options.n_columns;
        const char **cols = basalt_arena_alloc(&scan->arena, (n ? n : 1) * sizeof *cols, _Alignof(void *));
        if (cols == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (size_t i = 0; i < n && st == BASALT_OK; i++) {
            cols[i] = basalt_arena_strndup(&scan->arena, options->columns[i], strlen(options->columns[i]));
            if (cols[i] == NULL)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        scan->options.columns = cols;
    }
    scan->options.filter = NULL;
    if (st == BASALT_OK)
        st = build_partition_type(scan, err);
    if (st == BASALT_OK) {
        scan->name_mapping = basalt_iceberg_metadata_property(table->metadata, "schema.name-mapping.default");
        st = basalt_iceberg_layout_build(scan, scan->options.columns, scan->options.n_columns, NULL, 0,
                                         &scan->layout, err);
    }
    if (st != BASALT_OK) {
        basalt_iceberg_scan_free(scan);
        return st;
    }
    *out = scan;
    return BASALT_OK;
}

BASALT_EXPORT void basalt_iceberg_scan_io_stats(const struct basalt_iceberg_scan *scan,
                                                struct basalt_input_stats *out)
{
    out->requests = atomic_load_explicit(&scan->io_counts.requests, memory_order_relaxed);
    out->bytes_requested =
        atomic_load_explicit(&scan->io_counts.bytes_requested, memory_order_relaxed);
}

BASALT_EXPORT void basalt_iceberg_scan_free(struct basalt_iceberg_scan *scan)
{
    if (scan == NULL)
        return;
    basalt_iceberg_read_ahead_stop(scan);
    basalt_iceberg_layout_reset(&scan->layout);
    basalt_iceberg_layout_reset(&scan->read_layout);
    basalt_iceberg_layout_reset(&scan->count_layout);
    basalt_iceberg_delete_cache_free(scan->deletes);
    for (uint32_t i = 0; i < scan->n_manifests; i++)
        basalt_iceberg_manifest_free(scan->manifests[i]);
    basalt_free(scan->manifests);
    basalt_iceberg_manifest_cache_free(scan->manifest_cache);
    basalt_iceberg_manifest_list_free(scan->manifest_list);
    basalt_free(scan->plan.tasks);
    basalt_arena_reset(&scan->arena);
    basalt_free(scan);
}

BASALT_EXPORT basalt_status basalt_iceberg_scan_plan(struct basalt_iceberg_scan *scan,
                                                     const struct basalt_iceberg_plan **out,
                                                     struct basalt_error *err)
{
    if (scan == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL scan");
    if (!scan->planned) {
        if (scan->plan_status == BASALT_OK) {
            scan->plan_status = basalt_iceberg_scan_do_plan(scan, &scan->plan_err);
            if (scan->plan_status == BASALT_OK)
                scan->planned = true;
        }
        if (!scan->planned) {
            if (err != NULL)
                *err = scan->plan_err;
            return scan->plan_status;
        }
    }
    if (out != NULL)
        *out = &scan->plan;
    return BASALT_OK;
}

BASALT_EXPORT basalt_status basalt_iceberg_scan_schema(struct basalt_iceberg_scan *scan,
                                                       struct ArrowSchema *out,
                                                       struct basalt_error *err)
{
    if (scan == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL scan or out");
    return basalt_arrow_schema_copy(&scan->layout.out_arrow, out, err);
}

/* The equality delete columns of the plan. */
static basalt_status eq_ids(const struct basalt_iceberg_plan *plan, int32_t **ids, size_t *n,
                            struct basalt_error *err)
{
    size_t cap = 0;
    *ids = NULL;
    *n = 0;
    for (uint32_t t = 0; t < plan->n_tasks; t++) {
        const struct basalt_iceberg_file_task *task = &plan->tasks[t];
        for (uint32_t d = 0; d < task->n_deletes; d++) {
            const struct basalt_iceberg_data_file *f = task->deletes[d];
            if (f->content != BASALT_ICEBERG_CONTENT_EQUALITY_DELETES)
                continue;
            for (uint32_t k = 0; k < f->n_equality_ids; k++) {
                bool dup = false;
                for (size_t j = 0; j < *n && !dup; j++)
                    dup = (*ids)[j] == f->equality_ids[k];
                if (dup)
                    continue;
                if (*n == cap) {
                    cap = cap ? cap * 2 : 8;
                    int32_t *p = basalt_realloc(*ids, cap * sizeof *p);
                    if (p == NULL) {
                        basalt_free(*ids);
                        *ids = NULL;
                        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    }
                    *ids = p;
                }
                (*ids)[(*n)++] = f->equality_ids[k];
            }
        }
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_scan_prepare(struct basalt_iceberg_scan *scan, bool count,
                                          struct basalt_error *err)
{
    basalt_status st = basalt_iceberg_scan_plan(scan, NULL, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_iceberg_layout *layout = count ? &scan->count_layout : &scan->read_layout;
    if (layout->arrow.release == NULL) {
        int32_t *ids = NULL;
        size_t n = 0;
        static const char *const none[1] = {NULL};
        st = eq_ids(&scan->plan, &ids, &n, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_layout_build(scan, count ? none : scan->options.columns,
                                             count ? 0 : scan->options.n_columns, ids, n, layout, err);
        basalt_free(ids);
        if (st != BASALT_OK)
            return st;
    }
    if (scan->deletes == NULL) {
        st = basalt_iceberg_delete_cache_new(&scan->deletes, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_delete_cache_load(scan, scan->deletes, err);
    }
    return st;
}

struct count_ctx {
    struct basalt_iceberg_scan *scan;
    int64_t *counts;
    basalt_status *status;
    struct basalt_error *errs;
    struct basalt_pool *inner_pool;
    int inner_workers;
};

static void count_tasks(void *vctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct count_ctx *ctx = vctx;
    for (int64_t i = begin; i < end; i++) {
        const struct basalt_iceberg_file_task *task = &ctx->scan->plan.tasks[i];
        basalt_error_init(&ctx->errs[i]);
        bool trivial = task->n_deletes == 0 && (task->residual == NULL || task->residual->op == BASALT_ICEBERG_OP_TRUE);
        if (trivial) {
            ctx->counts[i] = task->start == 0 ? task->file->record_count : 0;
            ctx->status[i] = BASALT_OK;
            continue;
        }
        struct basalt_iceberg_task_reader *r = NULL;
        ctx->status[i] = basalt_iceberg_task_reader_open(ctx->scan, task, &ctx->scan->count_layout,
                                                         ctx->inner_pool, ctx->inner_workers, &r, &ctx->errs[i]);
        if (ctx->status[i] == BASALT_OK)
            ctx->status[i] = basalt_iceberg_task_reader_count(r, &ctx->counts[i], &ctx->errs[i]);
        basalt_iceberg_task_reader_close(r);
    }
}

BASALT_EXPORT basalt_status basalt_iceberg_scan_count(struct basalt_iceberg_scan *scan,
                                                      int64_t *out, struct basalt_error *err)
{
    if (scan == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL scan or out");
    *out = 0;
    basalt_status st = basalt_iceberg_scan_prepare(scan, true, err);
    if (st != BASALT_OK)
        return st;
    uint32_t n = scan->plan.n_tasks;
    if (n == 0)
        return BASALT_OK;
    struct count_ctx ctx;
    ctx.scan = scan;
    ctx.counts = basalt_calloc(n, sizeof *ctx.counts);
    ctx.status = basalt_calloc(n, sizeof *ctx.status);
    ctx.errs = basalt_calloc(n, sizeof *ctx.errs);
    if (!ctx.counts || !ctx.status || !ctx.errs) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    } else {
        bool across = n > 1 && basalt_pool_workers(scan->options.pool) > 1;
        ctx.inner_pool = across ? NULL : scan->options.pool;
        ctx.inner_workers = across ? 1 : scan->options.num_workers;
        if (across)
            basalt_pool_parallel_for(scan->options.pool, scan->options.num_workers, n, 1, count_tasks, &ctx);
        else
            count_tasks(&ctx, 0, n, 0);
        for (uint32_t i = 0; i < n && st == BASALT_OK; i++) {
            if (ctx.status[i] != BASALT_OK) {
                if (err != NULL)
                    *err = ctx.errs[i];
                st = ctx.status[i];
            }
            *out += ctx.counts[i];
        }
    }
    basalt_free(ctx.counts);
    basalt_free(ctx.status);
    basalt_free(ctx.errs);
    if (st != BASALT_OK)
        *out = 0;
    return st;
}
