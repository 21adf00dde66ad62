/* Scan planning: manifest list, manifest pruning, manifests read on the
 * pool, file pruning, delete association, residuals, splits. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_transform.h"
#include "scan_internal.h"

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Files larger than this are split at their split offsets into tasks of
 * about this size. */
#define SPLIT_TARGET BASALT_ICEBERG_SPLIT_TARGET

struct manifest_job {
    const struct basalt_iceberg_manifest_file *mf;   /* NULL for v1 inline manifests */
    const char *path;
    const struct basalt_iceberg_partition_spec *spec;
    struct basalt_iceberg_manifest *manifest;
    struct basalt_error err;
    basalt_status status;
};

struct read_ctx {
    struct basalt_iceberg_scan *scan;
    struct manifest_job *jobs;
    struct basalt_iceberg_manifest_read_options options;
};

static void read_manifests(void *vctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct read_ctx *ctx = vctx;
    for (int64_t i = begin; i < end; i++) {
        struct manifest_job *job = &ctx->jobs[i];
        uint8_t *data = NULL;
        size_t len = 0;
        basalt_error_init(&job->err);
        job->status = basalt_iceberg_io_read_all(&ctx->scan->io, job->path, &data, &len, &job->err);
        if (job->status == BASALT_OK)
            job->status = basalt_iceberg_manifest_parse(data, len, job->path, job->mf, job->spec,
                                                        ctx->scan->schema, &ctx->options,
                                                        &job->manifest, &job->err);
        basalt_free(data);
    }
}

static bool expr_is_true(const struct basalt_iceberg_expr *e)
{
    return e == NULL || e->op == BASALT_ICEBERG_OP_TRUE;
}

/* How many tasks a file becomes: one, unless it is larger than the split
 * target and has usable split offsets (ascending, inside the file). */
static int64_t split_tasks_needed(const struct basalt_iceberg_data_file *f)
{
    /* Avro files are read whole: row positions count from their start */
    if (f->file_format != BASALT_ICEBERG_FORMAT_PARQUET || f->file_size_in_bytes <= SPLIT_TARGET ||
        f->n_split_offsets < 2)
        return 1;
    for (uint32_t i = 1; i < f->n_split_offsets; i++)
        if (f->split_offsets[i] <= f->split_offsets[i - 1])
            return 1;
    if (f->split_offsets[f->n_split_offsets - 1] >= f->file_size_in_bytes)
        return 1;
    int64_t n = 1, acc = 0;
    for (uint32_t i = 0; i < f->n_split_offsets; i++) {
        int64_t end = i + 1 < f->n_split_offsets ? f->split_offsets[i + 1] : f->file_size_in_bytes;
        int64_t len = end - f->split_offsets[i];
        if (acc > 0 && acc + len > SPLIT_TARGET) {
            n++;
            acc = 0;
        }
        acc += len;
    }
    return n;
}

basalt_status basalt_iceberg_split_file(struct basalt_iceberg_file_task *proto,
                               struct basalt_iceberg_file_task **tasks, uint32_t *n, uint32_t *cap,
                               struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *f = proto->file;
    int64_t need = split_tasks_needed(f);
    if (*n + (uint64_t)need > *cap) {
        uint64_t nc = *cap ? *cap : 64;
        while (nc < *n + (uint64_t)need)
            nc *= 2;
        if (nc > UINT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "too many tasks");
        struct basalt_iceberg_file_task *p = basalt_realloc(*tasks, (size_t)nc * sizeof *p);
        if (p == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        *tasks = p;
        *cap = (uint32_t)nc;
    }
    if (need == 1) {
        proto->start = 0;
        proto->length = f->file_size_in_bytes;
        (*tasks)[(*n)++] = *proto;
        return BASALT_OK;
    }
    int64_t start = f->split_offsets[0], acc = 0;
    for (uint32_t i = 0; i < f->n_split_offsets; i++) {
        int64_t end = i + 1 < f->n_split_offsets ? f->split_offsets[i + 1] : f->file_size_in_bytes;
        int64_t len = end - f->split_offsets[i];
        if (acc > 0 && acc + len > SPLIT_TARGET) {
            struct basalt_iceberg_file_task t = *proto;
            t.start = start == f->split_offsets[0] ? 0 : start;
            t.length = f->split_offsets[i] - t.start;
            (*tasks)[(*n)++] = t;
            start = f->split_offsets[i];
            acc = 0;
        }
        acc += len;
    }
    struct basalt_iceberg_file_task t = *proto;
    t.start = start == f->split_offsets[0] ? 0 : start;
    t.length = f->file_size_in_bytes - t.start;
    (*tasks)[(*n)++] = t;
    return BASALT_OK;
}

basalt_status basalt_iceberg_scan_do_plan(struct basalt_iceberg_scan *scan, struct basalt_error *err)
{
    struct basalt_iceberg_plan *plan = &scan->plan;
    memset(plan, 0, sizeof *plan);
    if (scan->snapshot == NULL)
        return BASALT_OK;
    const struct basalt_iceberg_metadata *m = scan->table->metadata;
    const struct basalt_iceberg_snapshot *snap = scan->snapshot;
    struct basalt_arena *arena = &scan->arena;
    bool filtered = scan->options.prune && !expr_is_true(scan->bound);
    basalt_status st = BASALT_OK;
    struct manifest_job *jobs = NULL;
    struct basalt_iceberg_delete_entry *dels = NULL;
    struct basalt_iceberg_expr **pexpr = NULL;
    uint32_t n_jobs = 0, n_dels = 0, cap_tasks = 0;

    /* the inclusive projection of the filter on every spec */
    pexpr = basalt_calloc(m->n_specs ? m->n_specs : 1, sizeof *pexpr);
    if (pexpr == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < m->n_specs && filtered && st == BASALT_OK; i++)
        st = basalt_iceberg_project_inclusive(scan->bound, scan->schema, &m->specs[i], arena, &pexpr[i], err);
    if (st != BASALT_OK)
        goto done;

    uint32_t n_listed = 0;
    if (snap->manifest_list != NULL) {
        uint8_t *data = NULL;
        size_t len = 0;
        st = basalt_iceberg_io_read_all(&scan->io, snap->manifest_list, &data, &len, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_manifest_list_parse(data, len, snap->manifest_list, m->format_version,
                                                    &scan->manifest_list, err);
        basalt_free(data);
        if (st != BASALT_OK)
            goto done;
        /* bounds that do not decode only cost the manifest pruning */
        bool bounds_ok = basalt_iceberg_manifest_list_decode_bounds(scan->manifest_list, m->specs, m->n_specs,
                                                                    scan->schema, NULL) == BASALT_OK;
        n_listed = scan->manifest_list->n_files;
        jobs = basalt_calloc(n_listed ? n_listed : 1, sizeof *jobs);
        if (jobs == NULL) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            goto done;
        }
        for (uint32_t i = 0; i < n_listed; i++) {
            const struct basalt_iceberg_manifest_file *mf = &scan->manifest_list->files[i];
            const struct basalt_iceberg_partition_spec *spec =
                basalt_iceberg_metadata_spec(m, mf->partition_spec_id);
            if (filtered && bounds_ok && mf->content == BASALT_ICEBERG_MANIFEST_DATA && spec != NULL) {
                uint32_t si = (uint32_t)(spec - m->specs);
                if (pexpr[si] != NULL && !basalt_iceberg_manifest_may_match(pexpr[si], spec, mf)) {
                    plan->manifests_skipped++;
                    continue;
                }
            }
            jobs[n_jobs].mf = mf;
            jobs[n_jobs].path = mf->manifest_path;
            jobs[n_jobs].spec = spec;
            n_jobs++;
        }
    } else {
        n_listed = snap->n_manifests;
        jobs = basalt_calloc(n_listed ? n_listed : 1, sizeof *jobs);
        if (jobs == NULL) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            goto done;
        }
        for (uint32_t i = 0; i < n_listed; i++) {
            jobs[n_jobs].path = snap->manifests[i];
            jobs[n_jobs].spec = NULL;
            n_jobs++;
        }
    }
    plan->manifests_total = n_listed;

    struct read_ctx rctx;
    rctx.scan = scan;
    rctx.jobs = jobs;
    basalt_iceberg_manifest_read_options_init(&rctx.options);
    rctx.options.with_metrics = filtered;
    /* manifests written with one schema share its parsed form and decode plan */
    if (scan->manifest_cache == NULL) {
        st = basalt_iceberg_manifest_cache_new(&scan->manifest_cache, err);
        if (st != BASALT_OK)
            goto done;
    }
    rctx.options.plan_cache = basalt_iceberg_manifest_cache_plans(scan->manifest_cache);
    basalt_pool_parallel_for(scan->options.pool, scan->options.num_workers, n_jobs, 1, read_manifests, &rctx);
    scan->manifests = basalt_calloc(n_jobs ? n_jobs : 1, sizeof *scan->manifests);
    if (scan->manifests == NULL) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    } else {
        for (uint32_t i = 0; i < n_jobs; i++)
            scan->manifests[i] = jobs[i].manifest;
        scan->n_manifests = n_jobs;
    }
    for (uint32_t i = 0; i < n_jobs && st == BASALT_OK; i++) {
        if (jobs[i].status != BASALT_OK) {
            if (err != NULL)
                *err = jobs[i].err;
            st = jobs[i].status;
        }
    }
    if (st != BASALT_OK) {
        if (scan->manifests == NULL)
            for (uint32_t i = 0; i < n_jobs; i++)
                basalt_iceberg_manifest_free(jobs[i].manifest);
        goto done;
    }

    /* delete files */
    uint32_t cap_dels = 0;
    for (uint32_t i = 0; i < n_jobs; i++) {
        const struct basalt_iceberg_manifest *man = scan->manifests[i];
        for (uint32_t e = 0; e < man->n_entries; e++)
            if (man->entries[e].data_file.content != BASALT_ICEBERG_CONTENT_DATA &&
                man->entries[e].status != BASALT_ICEBERG_ENTRY_DELETED)
                cap_dels++;
    }
    dels = basalt_calloc(cap_dels ? cap_dels : 1, sizeof *dels);
    if (dels == NULL) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n_jobs; i++) {
        const struct basalt_iceberg_manifest *man = scan->manifests[i];
        int32_t spec_id = jobs[i].mf ? jobs[i].mf->partition_spec_id : man->spec_id;
        for (uint32_t e = 0; e < man->n_entries; e++) {
            const struct basalt_iceberg_manifest_entry *en = &man->entries[e];
            if (en->data_file.content == BASALT_ICEBERG_CONTENT_DATA ||
                en->status == BASALT_ICEBERG_ENTRY_DELETED)
                continue;
            dels[n_dels].file = &en->data_file;
            dels[n_dels].spec = basalt_iceberg_metadata_spec(m, spec_id);
            dels[n_dels].spec_id = spec_id;
            dels[n_dels].seq = en->sequence_number;
            n_dels++;
        }
    }
    plan->delete_files = n_dels;

    /* data files */
    for (uint32_t i = 0; i < n_jobs && st == BASALT_OK; i++) {
        const struct basalt_iceberg_manifest *man = scan->manifests[i];
        int32_t spec_id = jobs[i].mf ? jobs[i].mf->partition_spec_id : man->spec_id;
        const struct basalt_iceberg_partition_spec *spec = basalt_iceberg_metadata_spec(m, spec_id);
        const struct basalt_iceberg_expr *pe = NULL;
        if (spec != NULL && filtered)
            pe = pexpr[spec - m->specs];
        for (uint32_t e = 0; e < man->n_entries && st == BASALT_OK; e++) {
            const struct basalt_iceberg_manifest_entry *en = &man->entries[e];
            const struct basalt_iceberg_data_file *f = &en->data_file;
            if (f->content != BASALT_ICEBERG_CONTENT_DATA || en->status == BASALT_ICEBERG_ENTRY_DELETED)
                continue;
            if (scan->options.n_only_files && !bsearch(&f->file_path, scan->options.only_files,
                                                       scan->options.n_only_files,
                                                       sizeof *scan->options.only_files,
                                                       compare_paths))
                continue;
            plan->data_files_total++;
            struct basalt_iceberg_file_task task;
            memset(&task, 0, sizeof task);
            task.file = f;
            task.spec_id = spec_id;
            task.data_sequence_number = en->sequence_number;
            task.residual = scan->bound;
            if (filtered) {
                if (pe != NULL && spec != NULL &&
                    !basalt_iceberg_partition_matches(pe, spec, f->partition, f->n_partition)) {
                    plan->files_skipped_by_partition++;
                    continue;
                }
                if (!basalt_iceberg_metrics_may_match(scan->bound, scan->schema, f)) {
                    plan->files_skipped_by_metrics++;
                    continue;
                }
                struct basalt_iceberg_expr *res = NULL;
                if (spec != NULL) {
                    st = basalt_iceberg_residual(scan->bound, scan->schema, spec, f->partition,
                                                 f->n_partition, arena, &res, err);
                    if (st != BASALT_OK)
                        break;
                    if (res->op == BASALT_ICEBERG_OP_FALSE) {
                        plan->files_skipped_by_partition++;
                        continue;
                    }
                    task.residual = res;
                }
            }
            st = basalt_iceberg_deletes_for(dels, n_dels, f, spec_id, en->sequence_number, arena,
                                            &task.deletes, &task.n_deletes, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_split_file(&task, &plan->tasks, &plan->n_tasks, &cap_tasks, err);
        }
    }
done:
    basalt_free(pexpr);
    basalt_free(jobs);
    basalt_free(dels);
    return st;
}
