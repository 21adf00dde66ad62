/* Helpers shared by the Parquet writer tests: a table written into memory
 * and read back with basalt's reader. */
#ifndef BASALT_PARQUET_WRITER_TEST_UTIL_H
#define BASALT_PARQUET_WRITER_TEST_UTIL_H

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "parquet_writer.h"

/* Writes batch `a` of schema `s` into memory with options `o` (NULL:
 * defaults), handed to the writer as `nbatches` slices (offset views of
 * `a`), and takes the file into *data (basalt_free it). With `counters`,
 * the writer's fast-path counters go there. */
static inline basalt_status wtu_write(const struct ArrowSchema *s, const struct ArrowArray *a,
                                      const struct basalt_parquet_writer_options *o,
                                      int nbatches, uint8_t **data, size_t *len,
                                      struct basalt_parquet_wcounters *counters,
                                      struct basalt_error *err)
{
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    *data = NULL;
    basalt_status st = basalt_output_open_memory("mem.parquet", &out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_open(out, false, s, o, &w, err);
    int64_t step = (a->length + nbatches - 1) / (nbatches > 0 ? nbatches : 1);
    if (step == 0)
        step = 1;
    for (int64_t start = 0; st == BASALT_OK && start < a->length; start += step) {
        struct ArrowArray view = *a;
        view.offset = a->offset + start;
        view.length = a->length - start < step ? a->length - start : step;
        st = basalt_parquet_writer_write(w, &view, err);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    if (st == BASALT_OK)
        *data = basalt_output_memory_take(out, len);
    if (counters)
        basalt_parquet_writer_counters(w, counters);
    basalt_parquet_writer_close(w);
    basalt_output_close(out);
    return st;
}

/* Reads every row of the file `data` into `b`; with `reader`, the open
 * reader is handed over there (close it) when all went well. */
static inline basalt_status wtu_read(const uint8_t *data, size_t len, bool ignore_arrow_schema,
                                     struct basalt_arrow_batches *b,
                                     struct basalt_parquet_reader **reader,
                                     struct basalt_error *err)
{
    struct basalt_parquet_reader_options ro;
    basalt_parquet_reader_options_init(&ro);
    ro.ignore_arrow_schema = ignore_arrow_schema;
    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    basalt_status st = basalt_input_open_memory(data, len, "mem.parquet", &in, err);
    if (st == BASALT_OK)
        st = basalt_parquet_reader_open(in, true, &ro, &r, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, NULL, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_read_all(scan, b, err);
    }
    basalt_parquet_scan_free(scan);
    if (reader && st == BASALT_OK)
        *reader = r;
    else
        basalt_parquet_reader_close(r);
    return st;
}

/* A write for CHECK_ALLOC_SWEEP: the table in two slices, the file dropped. */
struct wtu_sweep {
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_parquet_writer_options o;
};

static inline basalt_status wtu_sweep_write(void *p)
{
    struct wtu_sweep *k = p;
    uint8_t *data = NULL;
    size_t len = 0;
    basalt_status st = wtu_write(&k->s, &k->a, &k->o, 2, &data, &len, NULL, NULL);
    basalt_free(data);
    return st;
}

#endif
