/* One month's file: chunks of rows generated on the pool, written in order
 * by the Parquet writer. Chunks have a fixed number of rows whatever the
 * thread count, and every value depends only on its row, so the file is
 * byte-identical for any number of threads. */
#include <stdio.h>
#include <string.h>

#include "taxigen.h"

/* Rows per generated chunk: small enough that a wave of them stays cheap in
 * memory, large enough that a worker's hand-off costs nothing. The writer
 * cuts row groups at its own size, independently of this. */
#define CHUNK_ROWS 65536

struct slot {
    struct ArrowArray out;
    basalt_status st;
    struct basalt_error err;
};

struct wave {
    const struct basalt_taxigen_zones *zones;
    const struct basalt_taxigen_month *month;
    int64_t first_chunk;
    struct slot *slots;
};

static void generate_chunks(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct wave *w = ctx;
    for (int64_t k = begin; k < end; k++) {
        struct slot *slot = &w->slots[k];
        int64_t lo = (w->first_chunk + k) * CHUNK_ROWS;
        int64_t hi = lo + CHUNK_ROWS < w->month->rows ? lo + CHUNK_ROWS : w->month->rows;
        basalt_error_init(&slot->err);
        slot->st = basalt_taxigen_batch(w->zones, w->month, lo, hi, &slot->out, &slot->err);
    }
}

basalt_status basalt_taxigen_write_month(const struct basalt_taxigen_zones *z,
                                         const struct basalt_taxigen_month *m, const char *path,
                                         const struct basalt_taxigen_options *o, int64_t *bytes,
                                         struct basalt_error *err)
{
    struct ArrowSchema schema;
    basalt_status st = basalt_taxigen_schema(&schema, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_writer_options wo;
    basalt_parquet_writer_options_init(&wo);
    wo.codec = BASALT_CODEC_ZSTD;
    wo.codec_level = o->zstd_level;
    wo.row_group_rows = o->row_group_rows;
    /* Row groups by rows only, as PyIceberg cuts them. */
    wo.row_group_bytes = 0;
    wo.pool = o->pool;
    struct basalt_parquet_writer *w = NULL;
    st = basalt_parquet_writer_open_file(path, &schema, &wo, &w, err);
    basalt_arrow_schema_release(&schema);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", path);
    /* Enough chunks at once to keep every worker busy; the output does not
     * depend on it. */
    int64_t per_wave = 2 * (int64_t)basalt_pool_workers(o->pool);
    int64_t chunks = (m->rows + CHUNK_ROWS - 1) / CHUNK_ROWS;
    struct slot *slots = basalt_calloc((size_t)per_wave, sizeof *slots);
    if (slots == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t first = 0; st == BASALT_OK && first < chunks; first += per_wave) {
        int64_t n = chunks - first < per_wave ? chunks - first : per_wave;
        struct wave wave = {z, m, first, slots};
        memset(slots, 0, (size_t)n * sizeof *slots);
        basalt_pool_parallel_for(o->pool, 0, n, 1, generate_chunks, &wave);
        for (int64_t k = 0; k < n; k++) {
            if (st == BASALT_OK && slots[k].st != BASALT_OK) {
                st = slots[k].st;
                if (err != NULL)
                    *err = slots[k].err;
            }
            if (st == BASALT_OK)
                st = basalt_parquet_writer_write(w, &slots[k].out, err);
            if (slots[k].out.release != NULL)
                basalt_arrow_array_release(&slots[k].out);
        }
    }
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    if (st == BASALT_OK)
        *bytes = basalt_parquet_writer_bytes(w);
    basalt_parquet_writer_close(w);
    basalt_free(slots);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", path);
    return BASALT_OK;
}
