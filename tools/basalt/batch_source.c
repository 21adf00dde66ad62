/* Parquet and Avro files as streams of Arrow batches. */
#include <string.h>

#include "basalt/avro.h"
#include "basalt/parquet.h"
#include "batch_source.h"
#include "cli.h"

/* Rows per Avro batch: big enough to amortise the per-batch work of the
 * writers, small enough to keep memory flat. */
#define AVRO_BATCH_ROWS 65536

struct cli_batch_source {
    struct ArrowSchema schema;
    /* Parquet */
    struct basalt_parquet_reader *reader;
    struct basalt_parquet_scan *scan;
    /* Avro */
    uint8_t *avro_data;
    struct basalt_avro_reader *avro;
    struct basalt_avro_arrow *conv;
};

static basalt_status open_parquet(struct cli_batch_source *s, struct basalt_input *in,
                                  struct basalt_pool *pool, struct basalt_error *err)
{
    struct basalt_parquet_reader_options opts;
    basalt_parquet_reader_options_init(&opts);
    basalt_status st = basalt_parquet_reader_open(in, true /* owns */, &opts, &s->reader, err);
    struct basalt_parquet_read_options ro;
    basalt_parquet_read_options_init(&ro);
    ro.pool = pool;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(s->reader, &ro, &s->scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(s->scan);
        st = basalt_parquet_scan_schema(s->scan, &s->schema, err);
    }
    return st;
}

static basalt_status open_avro(struct cli_batch_source *s, const char *uri,
                               struct basalt_error *err)
{
    size_t len = 0;
    basalt_status st = cli_read_file(uri, &s->avro_data, &len, err);
    if (st == BASALT_OK)
        st = basalt_avro_reader_new(s->avro_data, len, NULL, &s->avro, err);
    if (st == BASALT_OK)
        st = basalt_avro_arrow_new(basalt_avro_reader_schema(s->avro), NULL, NULL, 0, &s->conv,
                                   err);
    /* The schema comes with the first batch; an empty one gives it. */
    if (st == BASALT_OK) {
        struct ArrowArray empty;
        st = basalt_avro_arrow_finish(s->conv, &s->schema, &empty, err);
        if (st == BASALT_OK)
            basalt_arrow_array_release(&empty);
    }
    return st;
}

basalt_status cli_batch_source_open(const char *uri, struct basalt_pool *pool,
                                    struct cli_batch_source **out, struct basalt_error *err)
{
    *out = NULL;
    struct cli_batch_source *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_input *in = NULL;
    uint8_t magic[4] = {0};
    basalt_status st = cli_open_input(uri, &in, err);
    if (st == BASALT_OK && in->size >= 4)
        st = basalt_input_read_at(in, 0, 4, magic, err);
    if (st == BASALT_OK && memcmp(magic, "PAR1", 4) == 0) {
        st = open_parquet(s, in, pool, err);
        in = NULL;
    } else if (st == BASALT_OK && memcmp(magic, "Obj\x01", 4) == 0) {
        basalt_input_close(in);
        in = NULL;
        st = open_avro(s, uri, err);
    } else if (st == BASALT_OK) {
        st = basalt_error_set(err, BASALT_UNSUPPORTED,
                              "not a Parquet or Avro file (CSV input is not supported yet)");
    }
    basalt_input_close(in);
    if (st != BASALT_OK) {
        cli_batch_source_close(s);
        return basalt_error_context(err, st, "%.300s", uri);
    }
    *out = s;
    return BASALT_OK;
}

const struct ArrowSchema *cli_batch_source_schema(const struct cli_batch_source *s)
{
    return &s->schema;
}

basalt_status cli_batch_source_next(struct cli_batch_source *s, struct ArrowArray *out,
                                    struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    if (s->scan)
        return basalt_parquet_scan_next(s->scan, out, err);
    int64_t count = 0;
    basalt_status st = basalt_avro_reader_read_arrow(s->avro, s->conv, AVRO_BATCH_ROWS, &count, err);
    if (st != BASALT_OK || count == 0)
        return st;
    return basalt_avro_arrow_finish(s->conv, NULL, out, err);
}

void cli_batch_source_close(struct cli_batch_source *s)
{
    if (!s)
        return;
    basalt_arrow_schema_release(&s->schema);
    basalt_parquet_scan_free(s->scan);
    basalt_parquet_reader_close(s->reader);
    basalt_avro_arrow_free(s->conv);
    basalt_avro_reader_free(s->avro);
    basalt_free(s->avro_data);
    basalt_free(s);
}
