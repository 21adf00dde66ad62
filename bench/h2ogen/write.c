/* Generates a table chunk by chunk on the pool and writes the chunks, in
 * order, with the Parquet writer. Chunks have a fixed number of rows,
 * whatever the thread count, and every value depends only on its row (or
 * on draws made before), so the files are byte-identical for any number of
 * threads. */
#include <stdio.h>

#include "h2ogen.h"

/* Rows per chunk and per row group, as DuckDB writes them. */
#define CHUNK_ROWS 122880

struct slot {
    struct ArrowArray out;
    basalt_status st;
    struct basalt_error err;
};

struct wave {
    const struct basalt_h2ogen_table *t;
    int64_t first_chunk;
    struct slot *slots;
};

static void generate_chunk(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct wave *w = ctx;
    for (int64_t k = begin; k < end; k++) {
        struct slot *slot = &w->slots[k];
        int64_t lo = (w->first_chunk + k) * CHUNK_ROWS;
        int64_t hi = lo + CHUNK_ROWS < w->t->rows ? lo + CHUNK_ROWS : w->t->rows;
        struct basalt_h2ogen_batch b;
        basalt_error_init(&slot->err);
        slot->st = basalt_h2ogen_batch_init(&b, w->t, hi - lo, &slot->out, &slot->err);
        if (slot->st != BASALT_OK)
            continue;
        w->t->generate(w->t->ctx, lo, hi, &b);
        basalt_h2ogen_batch_finish(&b);
    }
}

static basalt_status schema_of(const struct basalt_h2ogen_table *t, struct ArrowSchema *out,
                               struct basalt_error *err)
{
    static const char *const formats[] = {"i", "g", "u"};
    basalt_status st = basalt_arrow_schema_init(out, "+s", NULL, 0, t->num_columns, err);
    for (int i = 0; i < t->num_columns && st == BASALT_OK; i++)
        st = basalt_arrow_schema_init(out->children[i], formats[t->columns[i].kind],
                                      t->columns[i].name, t->nullable ? ARROW_FLAG_NULLABLE : 0,
                                      0, err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

basalt_status basalt_h2ogen_write(const struct basalt_h2ogen_table *t, const char *dir,
                                  struct basalt_pool *pool, struct basalt_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.parquet", dir, t->name) >= sizeof path)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: output path too long", dir);
    struct ArrowSchema schema;
    basalt_status st = schema_of(t, &schema, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = CHUNK_ROWS;
    o.row_group_bytes = 0;
    o.pool = pool;
    struct basalt_parquet_writer *w = NULL;
    st = basalt_parquet_writer_open_file(path, &schema, &o, &w, err);
    basalt_arrow_schema_release(&schema);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", path);
    /* Chunks generated at once: enough to keep every worker busy; the
     * output does not depend on it. */
    int64_t per_wave = 2 * (int64_t)basalt_pool_workers(pool);
    int64_t chunks = (t->rows + CHUNK_ROWS - 1) / CHUNK_ROWS;
    struct slot *slots = basalt_calloc((size_t)per_wave, sizeof *slots);
    if (slots == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t first = 0; st == BASALT_OK && first < chunks; first += per_wave) {
        int64_t n = chunks - first < per_wave ? chunks - first : per_wave;
        struct wave wave = {t, first, slots};
        memset(slots, 0, (size_t)n * sizeof *slots);
        basalt_pool_parallel_for(pool, 0, n, 1, generate_chunk, &wave);
        for (int64_t k = 0; k < n; k++) {
            if (st == BASALT_OK && slots[k].st != BASALT_OK) {
                st = slots[k].st;
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
    basalt_parquet_writer_close(w);
    basalt_free(slots);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", path);
    return BASALT_OK;
}
