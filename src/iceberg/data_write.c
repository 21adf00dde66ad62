/* The Iceberg data writer: Arrow batches in, Parquet data files out, one
 * open file per partition, each closed and followed by the next once it
 * passes the target size. A batch of an unpartitioned table goes to the
 * Parquet writer as it is (no copy, no per-row work: only NaN counts of
 * float columns are read from it); a partitioned one is routed row by row
 * and each partition's rows gathered into a batch of their own, unless the
 * whole batch falls in one partition. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "basalt/iceberg_scan.h"
#include "data_write_internal.h"
#include "iceberg_internal.h"
#include "scan_internal.h"

/* An empty file's first write: how many rows go in before its size says
 * how big a row is. */
#define FIRST_STEP_ROWS 128

void basalt_iceberg_data_writer_options_init(struct basalt_iceberg_data_writer_options *options)
{
    memset(options, 0, sizeof *options);
    options->sort_order_id = -1;
}

/* The footer's "iceberg.schema", as the Java writer stores it. */
static basalt_status schema_metadata(struct basalt_iceberg_data_writer *w,
                                     struct basalt_error *err)
{
    json_t *json = basalt_iceberg_schema_to_json(w->schema);
    char *text = json ? json_dumps(json, JSON_COMPACT) : NULL;
    json_decref(json);
    if (!text)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema's JSON");
    struct basalt_buffer kv;
    basalt_buffer_init(&kv);
    basalt_status st = basalt_arrow_metadata_append(&kv, "iceberg.schema", 14, text, strlen(text),
                                                    err);
    free(text);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&kv);
        return st;
    }
    w->kv_metadata = (char *)basalt_buffer_take(&kv);
    return BASALT_OK;
}

basalt_status basalt_iceberg_data_writer_new(const struct basalt_iceberg_data_writer_options *options,
                                             struct basalt_iceberg_data_writer **out,
                                             struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!options || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "data writer: NULL argument");
    if (!options->schema || options->schema->root.id != BASALT_ICEBERG_TYPE_STRUCT)
        return basalt_error_set(err, BASALT_INVALID_ARG, "data writer: no schema");
    if (!options->data_location || !options->file_prefix)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "data writer: no data location or file prefix");
    if (options->n_properties > 0 && !options->properties)
        return basalt_error_set(err, BASALT_INVALID_ARG, "data writer: properties missing");
    struct basalt_iceberg_data_writer *w = basalt_calloc(1, sizeof *w);
    if (!w)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    w->options = *options;
    w->schema = options->schema;
    w->spec = options->spec && options->spec->n_fields > 0 ? options->spec : NULL;
    basalt_arena_init(&w->arena, 16384);
    basalt_status st = BASALT_OK;
    if (options->row_lineage)
        st = basalt_iceberg_schema_with_lineage(&w->arena, options->schema, &w->schema, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_to_arrow(w->schema, &w->arrow, err);
    if (st == BASALT_OK)
        st = schema_metadata(w, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_dw_configure(w, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_dw_bind_spec(w, err);
    if (st != BASALT_OK) {
        basalt_iceberg_data_writer_free(w);
        return basalt_error_context(err, st, "data writer");
    }
    *out = w;
    return BASALT_OK;
}

/* ------------------------------------------------------------ files */

static basalt_status open_file(struct basalt_iceberg_data_writer *w,
                               struct basalt_iceberg_dw_partition *part, struct basalt_error *err)
{
    if (w->n_files == w->cap_files) {
        uint32_t cap = w->cap_files ? w->cap_files * 2 : 8;
        struct basalt_iceberg_dw_file **files = basalt_realloc(w->files, cap * sizeof *files);
        if (!files)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        w->files = files;
        w->cap_files = cap;
    }
    const char *dir = w->options.data_location;
    size_t dir_len = strlen(dir);
    while (dir_len > 0 && dir[dir_len - 1] == '/')
        dir_len--;
    size_t cap = dir_len + strlen(part->path) + strlen(w->options.file_prefix) + 32;
    char *location = basalt_arena_alloc(&w->arena, cap, 1);
    if (!location)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    snprintf(location, cap, "%.*s/%s%s%s-%05u.parquet", (int)dir_len, dir, part->path,
             part->path[0] ? "/" : "", w->options.file_prefix, w->n_files + 1);
    struct basalt_iceberg_dw_file *f = basalt_calloc(1, sizeof *f);
    if (!f)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    f->nan_counts = basalt_calloc(w->n_leaves ? w->n_leaves : 1, sizeof *f->nan_counts);
    basalt_status st = f->nan_counts ? BASALT_OK
                                     : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_output *output = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_io_open_output(w->options.io, location, 0, &output, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_open(output, true, &w->arrow, &w->popts, &f->pw, err);
    if (st != BASALT_OK) {
        basalt_free(f->nan_counts);
        basalt_free(f);
        return basalt_error_context(err, st, "%s", location);
    }
    f->location = location;
    f->part = part;
    part->file = f;
    w->files[w->n_files++] = f;
    return BASALT_OK;
}

/* Finishes and commits f's Parquet file and fills its data_file. */
static basalt_status finish_file(struct basalt_iceberg_data_writer *w,
                                 struct basalt_iceberg_dw_file *f, struct basalt_error *err)
{
    basalt_status st = basalt_parquet_writer_finish(f->pw, err);
    if (st == BASALT_OK) {
        f->committed = true;
        size_t n_groups;
        const struct basalt_parquet_row_group *groups =
            basalt_parquet_writer_row_groups(f->pw, &n_groups);
        st = basalt_iceberg_dw_metrics(w, f, groups, n_groups, err);
        struct basalt_iceberg_data_file *df = &f->df;
        df->content = BASALT_ICEBERG_CONTENT_DATA;
        df->file_path = f->location;
        df->file_format = BASALT_ICEBERG_FORMAT_PARQUET;
        df->partition = w->spec ? f->part->tuple : NULL;
        df->n_partition = w->spec ? w->n_pfields : 0;
        df->record_count = f->rows;
        df->file_size_in_bytes = basalt_parquet_writer_bytes(f->pw);
        df->has_sort_order_id = w->options.sort_order_id >= 0;
        df->sort_order_id = df->has_sort_order_id ? w->options.sort_order_id : 0;
    }
    basalt_parquet_writer_close(f->pw);
    f->pw = NULL;
    if (f->part->file == f)
        f->part->file = NULL;
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", f->location);
    return BASALT_OK;
}

/* How many rows go to `f` before its size is looked at again: as many as
 * its bytes per row so far say fit below the target (at least one). */
static int64_t step_rows(const struct basalt_iceberg_data_writer *w,
                         const struct basalt_iceberg_dw_file *f, int64_t remaining)
{
    int64_t n;
    if (f->rows == 0) {
        n = FIRST_STEP_ROWS;
    } else {
        int64_t bytes = basalt_parquet_writer_bytes(f->pw);
        int64_t per_row = bytes / f->rows;
        if (per_row < 1)
            per_row = 1;
        int64_t room = w->target_bytes - bytes;
        n = room > 0 ? room / per_row + 1 : 1;
    }
    return n < remaining ? n : remaining;
}

static void view_release(struct ArrowArray *array) { array->release = NULL; }

/* Writes rows [start, start + count) of `batch` to the partition's files. */
static basalt_status write_rows(struct basalt_iceberg_data_writer *w,
                                struct basalt_iceberg_dw_partition *part,
                                const struct ArrowArray *batch, int64_t start, int64_t count,
                                struct basalt_error *err)
{
    while (count > 0) {
        basalt_status st = BASALT_OK;
        if (!part->file)
            st = open_file(w, part, err);
        if (st != BASALT_OK)
            return st;
        struct basalt_iceberg_dw_file *f = part->file;
        int64_t n = step_rows(w, f, count);
        const struct ArrowArray *rows = batch;
        struct ArrowArray view;
        if (start != 0 || n != batch->length) {
            /* a struct's offset applies to its children: no copy */
            view = *batch;
            view.offset = batch->offset + start;
            view.length = n;
            view.null_count = batch->null_count == 0 ? 0 : -1;
            view.release = view_release;
            view.private_data = NULL;
            rows = &view;
        }
        st = basalt_parquet_writer_write(f->pw, rows, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_dw_count_nan(w, batch, start, n, f->nan_counts, err);
        if (st != BASALT_OK)
            return st;
        f->rows += n;
        if (basalt_parquet_writer_bytes(f->pw) >= w->target_bytes) {
            st = finish_file(w, f, err);
            if (st != BASALT_OK)
                return st;
        }
        start += n;
        count -= n;
    }
    return BASALT_OK;
}

/* The rows of each partition a batch touches, gathered on the pool: one
 * task per partition, each into its own batch. */
struct gather {
    const struct basalt_iceberg_data_writer *w;
    const struct ArrowArray *batch;
    struct ArrowArray *rows;     /* per touched partition */
    basalt_status *status;
    struct basalt_error *errs;
};

static void gather_task(void *arg, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct gather *g = arg;
    for (int64_t t = begin; t < end; t++) {
        const struct basalt_iceberg_dw_partition *p = g->w->parts[g->w->touched[t]];
        g->status[t] = basalt_arrow_take(&g->w->arrow, g->batch, g->w->row_index + p->first,
                                         p->count, &g->rows[t], &g->errs[t]);
    }
}

static basalt_status write_partitioned(struct basalt_iceberg_data_writer *w,
                                       const struct ArrowArray *batch, struct basalt_error *err)
{
    basalt_status st = basalt_iceberg_dw_route(w, batch, err);
    if (st != BASALT_OK)
        return st;
    w->counters.routed_rows += batch->length;
    if (w->n_touched == 1) {
        w->counters.direct_batches++;
        return write_rows(w, w->parts[w->touched[0]], batch, 0, batch->length, err);
    }
    /* Gathering runs on the pool; the writes after it run one partition at
     * a time, in the order their first rows came, each Parquet writer
     * encoding its columns on the pool: the files are the same for any
     * number of workers. */
    uint32_t n = w->n_touched;
    struct gather g = {w, batch, basalt_calloc(n, sizeof *g.rows), basalt_calloc(n, sizeof *g.status),
                       basalt_calloc(n, sizeof *g.errs)};
    if (!g.rows || !g.status || !g.errs) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    } else {
        basalt_pool_parallel_for(w->options.pool, w->options.num_workers, n, 1, gather_task, &g);
        for (uint32_t t = 0; t < n && st == BASALT_OK; t++) {
            if (g.status[t] != BASALT_OK) {
                st = g.status[t];
                if (err)
                    *err = g.errs[t];
            }
        }
    }
    for (uint32_t t = 0; st == BASALT_OK && t < n; t++) {
        w->counters.gathered_rows += g.rows[t].length;
        st = write_rows(w, w->parts[w->touched[t]], &g.rows[t], 0, g.rows[t].length, err);
    }
    for (uint32_t t = 0; g.rows && t < n; t++)
        basalt_arrow_array_release(&g.rows[t]);
    basalt_free(g.rows);
    basalt_free(g.status);
    basalt_free(g.errs);
    return st;
}

basalt_status basalt_iceberg_data_writer_write(struct basalt_iceberg_data_writer *w,
                                               const struct ArrowArray *batch,
                                               struct basalt_error *err)
{
    if (!w || !batch || !batch->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "data writer: NULL or released batch");
    if (w->failed || w->finished || w->aborted)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "data writer: already failed, finished or aborted");
    basalt_status st = basalt_arrow_array_validate(&w->arrow, batch, BASALT_ARROW_VALIDATE_DEFAULT,
                                                   err);
    if (st != BASALT_OK)
        return basalt_error_context(err, BASALT_INVALID_ARG,
                                    "data writer: batch does not fit the schema");
    if (batch->length == 0)
        return BASALT_OK;
    st = basalt_iceberg_dw_check_required(w, batch, err);
    if (st == BASALT_OK) {
        if (w->spec) {
            st = write_partitioned(w, batch, err);
        } else {
            struct basalt_iceberg_dw_partition *p;
            st = basalt_iceberg_dw_unpartitioned(w, &p, err);
            w->counters.direct_batches++;
            if (st == BASALT_OK)
                st = write_rows(w, p, batch, 0, batch->length, err);
        }
    }
    if (st != BASALT_OK) {
        w->failed = true;
        return basalt_error_context(err, st, "data writer");
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_data_writer_finish(struct basalt_iceberg_data_writer *w,
                                                const struct basalt_iceberg_data_file **files,
                                                uint32_t *n, struct basalt_error *err)
{
    if (!w || !files || !n)
        return basalt_error_set(err, BASALT_INVALID_ARG, "data writer: NULL argument");
    *files = NULL;
    *n = 0;
    if (w->failed || w->aborted)
        return basalt_error_set(err, BASALT_INVALID_ARG, "data writer: already failed or aborted");
    if (!w->finished) {
        for (uint32_t i = 0; i < w->n_files; i++) {
            if (!w->files[i]->pw)
                continue;
            basalt_status st = finish_file(w, w->files[i], err);
            if (st != BASALT_OK) {
                w->failed = true;
                return basalt_error_context(err, st, "data writer");
            }
        }
        w->out = basalt_arena_alloc(&w->arena, (w->n_files ? w->n_files : 1) * sizeof *w->out, 8);
        if (!w->out) {
            w->failed = true;
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < w->n_files; i++)
            w->out[i] = w->files[i]->df;
        w->finished = true;
    }
    *files = w->out;
    *n = w->n_files;
    return BASALT_OK;
}

basalt_status basalt_iceberg_data_writer_abort(struct basalt_iceberg_data_writer *w,
                                               struct basalt_error *err)
{
    if (!w)
        return basalt_error_set(err, BASALT_INVALID_ARG, "data writer: NULL writer");
    w->aborted = true;
    /* One file at a time: an abort often follows an out-of-memory failure,
     * so it must not need memory itself. */
    basalt_status first = BASALT_OK;
    for (uint32_t i = 0; i < w->n_files; i++) {
        struct basalt_iceberg_dw_file *f = w->files[i];
        basalt_parquet_writer_close(f->pw); /* an open file is discarded */
        f->pw = NULL;
        if (!f->committed)
            continue;
        const char *location = f->location;
        basalt_status st = basalt_iceberg_io_delete(w->options.io, &location, 1,
                                                    first == BASALT_OK ? err : NULL);
        if (st == BASALT_OK)
            f->committed = false;
        else if (first == BASALT_OK)
            first = st;
    }
    return first;
}

void basalt_iceberg_data_writer_free(struct basalt_iceberg_data_writer *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->n_files; i++) {
        basalt_parquet_writer_close(w->files[i]->pw);
        basalt_free(w->files[i]->nan_counts);
        basalt_free(w->files[i]);
    }
    basalt_free(w->files);
    for (uint32_t i = 0; i < w->n_parts; i++)
        basalt_free(w->parts[i]);
    basalt_free(w->parts);
    basalt_free(w->slots);
    basalt_free(w->row_part);
    basalt_free(w->row_index);
    basalt_free(w->touched);
    basalt_free(w->tmp);
    basalt_free(w->pfields);
    basalt_free(w->leaves);
    basalt_free(w->kv_metadata);
    basalt_arrow_schema_release(&w->arrow);
    basalt_arena_reset(&w->arena);
    basalt_free(w);
}
