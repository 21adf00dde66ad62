/* Loading the delete files of a scan, each once: position delete files as
 * one position set per data file path, deletion vectors from their Puffin
 * blob, equality delete files as tuple sets. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/io.h"
#include "scan_internal.h"

/* Position delete files and DVs larger than this are refused (LIMIT). */
#define MAX_DV_BYTES (1ll << 30)

struct path_set {
    char *path;
    struct basalt_iceberg_posset *set;
};

struct loaded {
    const struct basalt_iceberg_data_file *file;
    struct path_set *paths;
    size_t n_paths, cap_paths;
    struct basalt_iceberg_eqset *eq;
    basalt_status status;
    struct basalt_error err;
};

struct basalt_iceberg_delete_cache {
    struct loaded *items;
    size_t n;
};

basalt_status basalt_iceberg_delete_cache_new(struct basalt_iceberg_delete_cache **out,
                                              struct basalt_error *err)
{
    *out = basalt_calloc(1, sizeof **out);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static void loaded_reset(struct loaded *l)
{
    for (size_t i = 0; i < l->n_paths; i++) {
        basalt_free(l->paths[i].path);
        basalt_iceberg_posset_free(l->paths[i].set);
    }
    basalt_free(l->paths);
    basalt_iceberg_eqset_free(l->eq);
    l->paths = NULL;
    l->n_paths = l->cap_paths = 0;
    l->eq = NULL;
}

void basalt_iceberg_delete_cache_free(struct basalt_iceberg_delete_cache *cache)
{
    if (cache == NULL)
        return;
    for (size_t i = 0; i < cache->n; i++)
        loaded_reset(&cache->items[i]);
    basalt_free(cache->items);
    basalt_free(cache);
}

static bool is_dv(const struct basalt_iceberg_data_file *f)
{
    return f->content == BASALT_ICEBERG_CONTENT_POSITION_DELETES &&
           f->file_format == BASALT_ICEBERG_FORMAT_PUFFIN;
}

/* The set for `path` in l, created when absent. */
static basalt_status set_for(struct loaded *l, const char *path, size_t len,
                             struct basalt_iceberg_posset **out, struct basalt_error *err)
{
    for (size_t i = l->n_paths; i > 0; i--) {
        struct path_set *p = &l->paths[i - 1];
        if (strlen(p->path) == len && memcmp(p->path, path, len) == 0) {
            *out = p->set;
            return BASALT_OK;
        }
    }
    if (l->n_paths == l->cap_paths) {
        size_t nc = l->cap_paths ? l->cap_paths * 2 : 4;
        struct path_set *np = basalt_realloc(l->paths, nc * sizeof *np);
        if (np == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        l->paths = np;
        l->cap_paths = nc;
    }
    struct path_set *p = &l->paths[l->n_paths];
    p->path = basalt_malloc(len + 1);
    if (p->path == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(p->path, path, len);
    p->path[len] = '\0';
    basalt_status st = basalt_iceberg_posset_new(&p->set, err);
    if (st != BASALT_OK) {
        basalt_free(p->path);
        return st;
    }
    l->n_paths++;
    *out = p->set;
    return BASALT_OK;
}

static basalt_status load_dv(struct basalt_iceberg_scan *scan, struct loaded *l,
                             struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *f = l->file;
    if (f->referenced_data_file == NULL || !f->has_content_offset)
        return basalt_error_set(err, BASALT_CORRUPT, "deletion vector without referenced_data_file or content_offset");
    if (f->content_offset < 0 || f->content_size_in_bytes < 0 || f->content_size_in_bytes > MAX_DV_BYTES)
        return basalt_error_set(err, BASALT_CORRUPT, "deletion vector: bad blob range");
    struct basalt_input *in = NULL;
    basalt_status st = basalt_iceberg_io_open(&scan->io, f->file_path, &in, err);
    if (st != BASALT_OK)
        return st;
    size_t n = (size_t)f->content_size_in_bytes;
    uint8_t *blob = basalt_malloc(n ? n : 1);
    if (blob == NULL) {
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    st = basalt_input_read_at(in, (uint64_t)f->content_offset, n, blob, err);
    basalt_iceberg_io_count(&scan->io, in);
    basalt_input_close(in);
    struct basalt_iceberg_posset *dv = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_dv_parse(blob, n, &dv, err);
    basalt_free(blob);
    struct basalt_iceberg_posset *set = NULL;
    if (st == BASALT_OK)
        st = set_for(l, f->referenced_data_file, strlen(f->referenced_data_file), &set, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_posset_union(set, dv, err);
    basalt_iceberg_posset_free(dv);
    return st;
}

static const struct basalt_iceberg_expr true_expr = {.op = BASALT_ICEBERG_OP_TRUE};

/* Reads a delete file with `layout` and hands each batch to `fn`. */
static basalt_status read_file(struct basalt_iceberg_scan *scan, struct loaded *l,
                               const struct basalt_iceberg_layout *layout,
                               basalt_status (*fn)(struct loaded *, const struct basalt_iceberg_layout *,
                                                   const struct ArrowArray *, struct basalt_error *),
                               struct basalt_error *err)
{
    struct basalt_iceberg_file_task task;
    memset(&task, 0, sizeof task);
    task.file = l->file;
    task.residual = &true_expr;
    task.length = l->file->file_size_in_bytes;
    task.spec_id = -1;
    struct basalt_iceberg_task_reader *r = NULL;
    basalt_status st = basalt_iceberg_task_reader_open(scan, &task, layout, NULL, 1, &r, err);
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        st = basalt_iceberg_task_reader_next(r, &batch, err);
        if (st != BASALT_OK || batch.release == NULL)
            break;
        st = fn(l, layout, &batch, err);
        basalt_arrow_array_release(&batch);
    }
    basalt_iceberg_task_reader_close(r);
    return st;
}

static basalt_status pos_batch(struct loaded *l, const struct basalt_iceberg_layout *layout,
                               const struct ArrowArray *batch, struct basalt_error *err)
{
    (void)layout;
    const struct ArrowArray *paths = batch->children[0], *pos = batch->children[1];
    const int32_t *offs = paths->buffers[1];
    const char *data = paths->buffers[2];
    const int64_t *p = (const int64_t *)pos->buffers[1] + pos->offset;
    basalt_status st = BASALT_OK;
    int64_t i = 0;
    while (i < batch->length && st == BASALT_OK) {
        int64_t pi = paths->offset + i;
        if ((paths->null_count != 0 && paths->buffers[0] != NULL && !basalt_bitmap_get(paths->buffers[0], pi)) ||
            (pos->null_count != 0 && pos->buffers[0] != NULL && !basalt_bitmap_get(pos->buffers[0], pos->offset + i)))
            return basalt_error_set(err, BASALT_CORRUPT, "position delete row %lld has a null", (long long)i);
        const char *s = data + offs[pi];
        size_t len = (size_t)(offs[pi + 1] - offs[pi]);
        int64_t j = i + 1;
        while (j < batch->length) {
            int64_t pj = paths->offset + j;
            if ((size_t)(offs[pj + 1] - offs[pj]) != len || memcmp(data + offs[pj], s, len) != 0)
                break;
            j++;
        }
        struct basalt_iceberg_posset *set;
        st = set_for(l, s, len, &set, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_posset_add_many(set, p + i, (size_t)(j - i), err);
        i = j;
    }
    return st;
}

static basalt_status eq_batch(struct loaded *l, const struct basalt_iceberg_layout *layout,
                              const struct ArrowArray *batch, struct basalt_error *err)
{
    return basalt_iceberg_eqset_add_batch(l->eq, &layout->arrow, batch, err);
}

static basalt_status load_pos(struct basalt_iceberg_scan *scan, struct loaded *l,
                              struct basalt_error *err)
{
    struct basalt_iceberg_field fields[2];
    memset(fields, 0, sizeof fields);
    fields[0].id = BASALT_ICEBERG_FIELD_ID_FILE_PATH;
    fields[0].name = "file_path";
    fields[0].required = true;
    fields[0].type.id = BASALT_ICEBERG_TYPE_STRING;
    fields[1].id = BASALT_ICEBERG_FIELD_ID_POS;
    fields[1].name = "pos";
    fields[1].required = true;
    fields[1].type.id = BASALT_ICEBERG_TYPE_LONG;
    for (int i = 0; i < 2; i++) {
        fields[i].initial_default.is_null = true;
        fields[i].write_default.is_null = true;
    }
    const struct basalt_iceberg_field *fp[2] = {&fields[0], &fields[1]};
    struct basalt_iceberg_layout layout;
    basalt_status st = basalt_iceberg_layout_for_fields(fp, 2, &layout, err);
    if (st != BASALT_OK)
        return st;
    st = read_file(scan, l, &layout, pos_batch, err);
    basalt_iceberg_layout_reset(&layout);
    return st;
}

static basalt_status load_eq(struct basalt_iceberg_scan *scan, struct loaded *l,
                             struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *f = l->file;
    const struct basalt_iceberg_type *root = &scan->schema->root;
    if (f->n_equality_ids == 0)
        return basalt_error_set(err, BASALT_CORRUPT, "equality delete file without equality_ids");
    for (uint32_t k = 0; k < f->n_equality_ids; k++)
        if (basalt_iceberg_schema_field(scan->schema, f->equality_ids[k]) == NULL)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "equality field %d is not in the schema",
                                    (int)f->equality_ids[k]);
    const struct basalt_iceberg_field **fields = basalt_calloc(root->n_fields ? root->n_fields : 1, sizeof *fields);
    if (fields == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t n = 0;
    bool nomem = false;
    /* delete files load on several threads: a private arena for the pruned fields */
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    for (uint32_t i = 0; i < root->n_fields && !nomem; i++) {
        const struct basalt_iceberg_field *p =
            basalt_iceberg_field_prune(&arena, &root->fields[i], f->equality_ids, f->n_equality_ids, &nomem);
        if (p != NULL)
            fields[n++] = p;
    }
    basalt_status st = BASALT_OK;
    struct basalt_iceberg_layout layout;
    memset(&layout, 0, sizeof layout);
    if (nomem)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_iceberg_eqset_new(f->equality_ids, f->n_equality_ids, &l->eq, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_layout_for_fields(fields, n, &layout, err);
    if (st == BASALT_OK)
        st = read_file(scan, l, &layout, eq_batch, err);
    basalt_iceberg_layout_reset(&layout);
    basalt_free(fields);
    basalt_arena_reset(&arena);
    return st;
}

struct load_ctx {
    struct basalt_iceberg_scan *scan;
    struct loaded *items;
};

static void load_items(void *vctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct load_ctx *ctx = vctx;
    for (int64_t i = begin; i < end; i++) {
        struct loaded *l = &ctx->items[i];
        basalt_error_init(&l->err);
        if (is_dv(l->file))
            l->status = load_dv(ctx->scan, l, &l->err);
        else if (l->file->content == BASALT_ICEBERG_CONTENT_POSITION_DELETES)
            l->status = load_pos(ctx->scan, l, &l->err);
        else
            l->status = load_eq(ctx->scan, l, &l->err);
        if (l->status != BASALT_OK)
            basalt_error_context(&l->err, l->status, "delete file %s", l->file->file_path);
    }
}

static int cmp_ptr(const void *a, const void *b)
{
    const struct loaded *x = a, *y = b;
    uintptr_t p = (uintptr_t)x->file, q = (uintptr_t)y->file;
    return p < q ? -1 : p > q;
}

static int cmp_path(const void *a, const void *b)
{
    const struct path_set *x = a, *y = b;
    return strcmp(x->path, y->path);
}

basalt_status basalt_iceberg_delete_cache_load(struct basalt_iceberg_scan *scan,
                                               struct basalt_iceberg_delete_cache *cache,
                                               struct basalt_error *err)
{
    const struct basalt_iceberg_plan *plan = &scan->plan;
    if (cache->items != NULL)
        return BASALT_OK;
    size_t total = 0;
    for (uint32_t t = 0; t < plan->n_tasks; t++)
        total += plan->tasks[t].n_deletes;
    if (total == 0)
        return BASALT_OK;
    struct loaded *items = basalt_calloc(total, sizeof *items);
    if (items == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t n = 0;
    for (uint32_t t = 0; t < plan->n_tasks; t++)
        for (uint32_t d = 0; d < plan->tasks[t].n_deletes; d++)
            items[n++].file = plan->tasks[t].deletes[d];
    qsort(items, n, sizeof *items, cmp_ptr);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || items[u - 1].file != items[i].file)
            items[u++] = items[i];
    cache->items = items;
    cache->n = u;
    struct load_ctx ctx = {scan, items};
    basalt_pool_parallel_for(scan->options.pool, scan->options.num_workers, (int64_t)u, 1, load_items, &ctx);
    for (size_t i = 0; i < u; i++) {
        if (items[i].status != BASALT_OK) {
            if (err != NULL)
                *err = items[i].err;
            return items[i].status;
        }
        if (items[i].n_paths > 1)
            qsort(items[i].paths, items[i].n_paths, sizeof *items[i].paths, cmp_path);
    }
    return BASALT_OK;
}

static const struct loaded *find_loaded(const struct basalt_iceberg_delete_cache *cache,
                                        const struct basalt_iceberg_data_file *file)
{
    size_t lo = 0, hi = cache->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((uintptr_t)cache->items[mid].file < (uintptr_t)file)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cache->n && cache->items[lo].file == file ? &cache->items[lo] : NULL;
}

basalt_status basalt_iceberg_task_deletes(struct basalt_iceberg_scan *scan,
                                          const struct basalt_iceberg_file_task *task,
                                          struct basalt_iceberg_posset **positions,
                                          const struct basalt_iceberg_eqset ***eq, uint32_t *n_eq,
                                          struct basalt_error *err)
{
    *positions = NULL;
    *eq = NULL;
    *n_eq = 0;
    if (task->n_deletes == 0)
        return BASALT_OK;
    if (scan->deletes == NULL)
        return basalt_error_set(err, BASALT_INTERNAL, "deletes not loaded");
    const struct basalt_iceberg_eqset **sets = basalt_calloc(task->n_deletes, sizeof *sets);
    if (sets == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    uint32_t k = 0;
    for (uint32_t d = 0; d < task->n_deletes && st == BASALT_OK; d++) {
        const struct loaded *l = find_loaded(scan->deletes, task->deletes[d]);
        if (l == NULL) {
            st = basalt_error_set(err, BASALT_INTERNAL, "delete file not loaded");
            break;
        }
        if (l->status != BASALT_OK) {
            if (err != NULL)
                *err = l->err;
            st = l->status;
            break;
        }
        if (l->eq != NULL) {
            sets[k++] = l->eq;
            continue;
        }
        struct path_set key = {(char *)(uintptr_t)task->file->file_path, NULL};
        const struct path_set *hit =
            l->n_paths ? bsearch(&key, l->paths, l->n_paths, sizeof *l->paths, cmp_path) : NULL;
        if (hit == NULL)
            continue;
        if (*positions == NULL)
            st = basalt_iceberg_posset_new(positions, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_posset_union(*positions, hit->set, err);
    }
    if (st != BASALT_OK || k == 0) {
        basalt_free(sets);
        if (st != BASALT_OK) {
            basalt_iceberg_posset_free(*positions);
            *positions = NULL;
        }
        return st;
    }
    *eq = sets;
    *n_eq = k;
    return BASALT_OK;
}
