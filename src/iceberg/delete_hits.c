/* Where a filter matches: a scan of the branch reading only (_file, _pos)
 * of the matching rows, pruned by partitions and metrics, gathered per data
 * file, with what the plan knows of each file (its task, spec, row count,
 * deletes in force). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "delete_internal.h"
#include "scan_internal.h"

void basalt_iceberg_hits_reset(struct basalt_iceberg_hits *h)
{
    for (uint32_t i = 0; i < h->n; i++) {
        basalt_free(h->items[i].path);
        basalt_iceberg_posset_free(h->items[i].positions);
    }
    basalt_free(h->items);
    memset(h, 0, sizeof *h);
}

static int compare_hits(const void *a, const void *b)
{
    return strcmp(((const struct basalt_iceberg_hit *)a)->path,
                  ((const struct basalt_iceberg_hit *)b)->path);
}

struct basalt_iceberg_hit *basalt_iceberg_hits_find(const struct basalt_iceberg_hits *h,
                                                    const char *path, size_t len)
{
    char buf[4096];
    if (len >= sizeof buf)
        return NULL;
    memcpy(buf, path, len);
    buf[len] = 0;
    struct basalt_iceberg_hit key = {.path = buf};
    return h->n ? bsearch(&key, h->items, h->n, sizeof *h->items, compare_hits) : NULL;
}

static struct basalt_iceberg_hit *hit_for(struct basalt_iceberg_hits *h, const char *path,
                                          size_t len, struct basalt_error *err)
{
    /* Batches come file by file: the last one is nearly always the one. */
    for (uint32_t i = h->n; i-- > 0;)
        if (strlen(h->items[i].path) == len && memcmp(h->items[i].path, path, len) == 0)
            return &h->items[i];
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 16;
        struct basalt_iceberg_hit *items = basalt_realloc(h->items, cap * sizeof *items);
        if (!items)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory"), NULL;
        h->items = items;
        h->cap = cap;
    }
    struct basalt_iceberg_hit *x = &h->items[h->n];
    memset(x, 0, sizeof *x);
    x->path = basalt_strndup(path, len);
    if (!x->path || basalt_iceberg_posset_new(&x->positions, err) != BASALT_OK) {
        basalt_free(x->path);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory"), NULL;
    }
    h->n++;
    return x;
}

/* Whether every live row of the file matches: then the file can go
 * whole. The matching rows are live ones, so with position deletes on the
 * file the two counts add up to its rows; equality deletes leave it
 * unknown (the file is then kept and its rows deleted one by one). */
static basalt_status judge_whole(struct basalt_iceberg_scan *scan, struct basalt_iceberg_hit *x,
                                 struct basalt_error *err)
{
    uint64_t matched = basalt_iceberg_posset_cardinality(x->positions), deleted = 0;
    if (x->has_deletes) {
        struct basalt_iceberg_posset *old = NULL;
        const struct basalt_iceberg_eqset **eq = NULL;
        uint32_t n_eq = 0;
        basalt_status st = basalt_iceberg_task_deletes(scan, x->task, &old, &eq, &n_eq, err);
        deleted = old ? basalt_iceberg_posset_cardinality(old) : 0;
        basalt_iceberg_posset_free(old);
        basalt_free(eq);
        if (st != BASALT_OK)
            return st;
        if (n_eq > 0)
            return BASALT_OK;
    }
    x->whole = matched + deleted == (uint64_t)x->file->record_count;
    return BASALT_OK;
}

basalt_status basalt_iceberg_find_hits(const struct basalt_iceberg_table *t, const char *branch,
                                       const char *filter, struct basalt_arena *arena,
                                       struct basalt_iceberg_hits *h,
                                       struct basalt_iceberg_scan **scan_out,
                                       struct basalt_error *err)
{
    struct basalt_iceberg_expr *expr = NULL;
    basalt_status st = basalt_iceberg_expr_parse(filter, arena, &expr, err);
    if (st != BASALT_OK)
        return st;
    static const char *const columns[] = {"_file", "_pos"};
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.ref = basalt_iceberg_metadata_ref(t->metadata, branch) ? branch : NULL;
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
            st = basalt_error_set(err, basalt_iceberg_scan_stream_status(&stream),
                                  "reading the matching rows: %s",
                                  stream.get_last_error(&stream));
            break;
        }
        if (!batch.release)
            break;
        const struct ArrowArray *files = batch.children[0], *pos = batch.children[1];
        const int32_t *off = (const int32_t *)files->buffers[1] + files->offset;
        const char *chars = files->buffers[2];
        const int64_t *p = (const int64_t *)pos->buffers[1] + pos->offset;
        struct basalt_iceberg_hit *x = NULL;
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
    if (st == BASALT_OK && h->n > 1)
        qsort(h->items, h->n, sizeof *h->items, compare_hits);
    /* The plan knows each file's row count, spec and deletes. */
    const struct basalt_iceberg_plan *plan = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_plan(scan, &plan, err);
    for (uint32_t i = 0; st == BASALT_OK && i < plan->n_tasks; i++) {
        const struct basalt_iceberg_file_task *task = &plan->tasks[i];
        const char *path = task->file->file_path;
        struct basalt_iceberg_hit *x = basalt_iceberg_hits_find(h, path, strlen(path));
        if (!x)
            continue;
        x->file = task->file;
        x->task = task;
        x->spec_id = task->spec_id;
        x->has_deletes |= task->n_deletes > 0;
    }
    for (uint32_t k = 0; st == BASALT_OK && k < h->n; k++) {
        struct basalt_iceberg_hit *x = &h->items[k];
        if (!x->file)
            st = basalt_error_set(err, BASALT_CORRUPT, "matching rows of '%s', a file the plan lacks",
                                  x->path);
        else
            st = judge_whole(scan, x, err);
    }
    *scan_out = scan;
    return st;
}
