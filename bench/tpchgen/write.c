/* Generates a table (or a parent table and its child) chunk by chunk on the
 * pool and writes the chunks, in order, with the Parquet writer. Chunks have
 * a fixed number of parent rows, whatever the thread count, and every row's
 * values depend only on its index, so the files are byte-identical for any
 * number of threads. */
#include <stdio.h>
#include <time.h>

#include "tpchgen.h"

/* Rows per row group, as DuckDB writes them. */
#define ROW_GROUP_ROWS 122880

struct slot {
    struct ArrowArray out[2];
    basalt_status st;
    struct basalt_error err;
};

struct wave {
    const struct basalt_tpchgen_job *job;
    const struct basalt_tpchgen_scale *scale;
    int64_t first_chunk;
    struct slot *slots;
};

static void generate_chunk(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct wave *w = ctx;
    const struct basalt_tpchgen_job *job = w->job;
    for (int64_t k = begin; k < end; k++) {
        struct slot *slot = &w->slots[k];
        int64_t lo = (w->first_chunk + k) * job->chunk_rows;
        int64_t hi = lo + job->chunk_rows < job->rows ? lo + job->chunk_rows : job->rows;
        struct basalt_tpchgen_batch b[2];
        memset(b, 0, sizeof b);
        basalt_error_init(&slot->err);
        slot->st = basalt_tpchgen_batch_init(&b[0], job->specs[0], hi - lo, &slot->err);
        if (slot->st == BASALT_OK && job->specs[1] != NULL) {
            slot->st = basalt_tpchgen_batch_init(&b[1], job->specs[1],
                                                 (hi - lo) * job->max_children, &slot->err);
            if (slot->st != BASALT_OK)
                basalt_tpchgen_batch_reset(&b[0]);
        }
        if (slot->st != BASALT_OK)
            continue;
        job->generate(w->scale, lo, hi, &b[0], &b[1]);
        slot->st = basalt_tpchgen_batch_finish(&b[0], &slot->out[0], &slot->err);
        if (job->specs[1] != NULL) {
            if (slot->st == BASALT_OK)
                slot->st = basalt_tpchgen_batch_finish(&b[1], &slot->out[1], &slot->err);
            else
                basalt_tpchgen_batch_reset(&b[1]);
        }
    }
}

static basalt_status open_writer(const char *dir, const struct basalt_tpchgen_table_spec *spec,
                                 struct basalt_pool *pool, struct basalt_parquet_writer **out,
                                 struct basalt_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.parquet", dir, spec->name) >= sizeof path)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: output path too long", dir);
    struct ArrowSchema schema;
    basalt_status st = basalt_tpchgen_schema(spec, &schema, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = ROW_GROUP_ROWS;
    o.row_group_bytes = 0;
    o.pool = pool;
    /* Readers take the Parquet types (DECIMAL(15,2) on INT64, as DuckDB
     * writes it), not the decimal64 Arrow type the batches carry. */
    o.skip_arrow_schema = true;
    st = basalt_parquet_writer_open_file(path, &schema, &o, out, err);
    basalt_arrow_schema_release(&schema);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", path);
    return BASALT_OK;
}

basalt_status basalt_tpchgen_run(const struct basalt_tpchgen_job *job,
                                 const struct basalt_tpchgen_scale *scale, const char *dir,
                                 struct basalt_pool *pool, struct basalt_error *err)
{
    int tables = job->specs[1] != NULL ? 2 : 1;
    struct basalt_parquet_writer *w[2] = {NULL, NULL};
    basalt_status st = BASALT_OK;
    for (int t = 0; t < tables && st == BASALT_OK; t++)
        st = open_writer(dir, job->specs[t], pool, &w[t], err);
    /* Chunks generated at once: enough to keep every worker busy; the
     * output does not depend on it. */
    int64_t per_wave = 2 * (int64_t)basalt_pool_workers(pool);
    int64_t chunks = (job->rows + job->chunk_rows - 1) / job->chunk_rows;
    struct slot *slots = basalt_calloc((size_t)per_wave, sizeof *slots);
    if (st == BASALT_OK && slots == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t first = 0; st == BASALT_OK && first < chunks; first += per_wave) {
        int64_t n = chunks - first < per_wave ? chunks - first : per_wave;
        struct wave wave = {job, scale, first, slots};
        memset(slots, 0, (size_t)n * sizeof *slots);
        basalt_pool_parallel_for(pool, 0, n, 1, generate_chunk, &wave);
        for (int64_t k = 0; k < n; k++) {
            if (st == BASALT_OK && slots[k].st != BASALT_OK) {
                st = slots[k].st;
                *err = slots[k].err;
            }
            for (int t = 0; t < tables; t++) {
                if (st == BASALT_OK) {
                    st = basalt_parquet_writer_write(w[t], &slots[k].out[t], err);
                    if (st != BASALT_OK)
                        basalt_error_context(err, st, "%s", job->specs[t]->name);
                }
                basalt_arrow_array_release(&slots[k].out[t]);
            }
        }
    }
    for (int t = 0; t < tables && st == BASALT_OK; t++) {
        st = basalt_parquet_writer_finish(w[t], err);
        if (st != BASALT_OK)
            basalt_error_context(err, st, "%s", job->specs[t]->name);
    }
    for (int t = 0; t < tables; t++)
        basalt_parquet_writer_close(w[t]);
    basalt_free(slots);
    return st;
}
