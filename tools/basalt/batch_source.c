/* Parquet, Avro, CSV and JSON-lines files as streams of Arrow batches. */
#include <string.h>
#include <strings.h>

#include "basalt/avro.h"
#include "basalt/parquet.h"
#include "basalt/csv.h"
#include "basalt/json.h"
#include "batch_source.h"
#include "cli.h"
#include "cli_csv.h"

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
    /* CSV */
    struct basalt_csv_reader *csv;
    /* JSON lines */
    struct basalt_json_reader *json;
};

static bool is_json_name(const char *path)
{
    size_t n = strlen(path);
    return (n >= 5 && strcasecmp(path + n - 5, ".json") == 0) ||
           (n >= 6 && strcasecmp(path + n - 6, ".jsonl") == 0) ||
           (n >= 7 && strcasecmp(path + n - 7, ".ndjson") == 0);
}

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

/* The CSV type that reads values of the Arrow type `format`, or AUTO. */
static struct basalt_csv_column_type csv_type_of(const char *format)
{
    struct basalt_csv_column_type t = {BASALT_CSV_TYPE_AUTO, 0, 0};
    static const struct {
        const char *format;
        enum basalt_csv_type type;
    } map[] = {{"b", BASALT_CSV_TYPE_BOOL},         {"i", BASALT_CSV_TYPE_INT32},
               {"l", BASALT_CSV_TYPE_INT64},        {"f", BASALT_CSV_TYPE_FLOAT},
               {"g", BASALT_CSV_TYPE_DOUBLE},       {"tdD", BASALT_CSV_TYPE_DATE},
               {"tsu:", BASALT_CSV_TYPE_TIMESTAMP}, {"tsu:UTC", BASALT_CSV_TYPE_TIMESTAMPTZ},
               {"ttu", BASALT_CSV_TYPE_TIME},       {"u", BASALT_CSV_TYPE_STRING},
               {"U", BASALT_CSV_TYPE_STRING}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(format, map[i].format) == 0)
            t.type = map[i].type;
    int p, sc, n = 0;
    if (sscanf(format, "d:%d,%d%n", &p, &sc, &n) == 2 && format[n] == 0 && p >= 1 && p <= 38 &&
        sc >= 0 && sc <= p) {
        t.type = BASALT_CSV_TYPE_DECIMAL;
        t.precision = p;
        t.scale = sc;
    }
    return t;
}

static basalt_status open_csv(struct cli_batch_source *s, const char *uri,
                              struct basalt_pool *pool, const struct ArrowSchema *want,
                              struct basalt_error *err)
{
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.pool = pool;
    basalt_status st = cli_csv_open(uri, &o, &s->csv, err);
    if (st == BASALT_OK && want) {
        /* The names come from the first open; the types from `want`. */
        int32_t n = basalt_csv_reader_num_columns(s->csv);
        const char **names = basalt_calloc((size_t)n + 1, sizeof *names);
        struct basalt_csv_column_type *types = basalt_calloc((size_t)n + 1, sizeof *types);
        size_t k = 0;
        if (!names || !types)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int32_t c = 0; st == BASALT_OK && c < n; c++) {
            const char *name = basalt_csv_reader_column_name(s->csv, c);
            const struct ArrowSchema *match = NULL;
            for (int64_t f = 0; f < want->n_children && !match; f++)
                if (want->children[f]->name && strcmp(want->children[f]->name, name) == 0)
                    match = want->children[f];
            for (int64_t f = 0; f < want->n_children && !match; f++)
                if (want->children[f]->name && strcasecmp(want->children[f]->name, name) == 0)
                    match = want->children[f];
            if (!match)
                continue;
            types[k] = csv_type_of(match->format);
            if (types[k].type != BASALT_CSV_TYPE_AUTO)
                names[k++] = name;
        }
        struct basalt_csv_reader *typed = NULL;
        if (st == BASALT_OK && k > 0) {
            o.type_names = names;
            o.named_types = types;
            o.n_named_types = k;
            st = cli_csv_open(uri, &o, &typed, err);
        }
        if (typed) {
            basalt_csv_reader_close(s->csv);
            s->csv = typed;
        }
        basalt_free(names);
        basalt_free(types);
    }
    if (st == BASALT_OK)
        st = basalt_csv_reader_schema(s->csv, &s->schema, err);
    return st;
}

basalt_status cli_batch_source_open(const char *uri, struct basalt_pool *pool,
                                    struct cli_batch_source **out, struct basalt_error *err)
{
    return cli_batch_source_open_as(uri, pool, NULL, out, err);
}

basalt_status cli_batch_source_open_as(const char *uri, struct basalt_pool *pool,
                                       const struct ArrowSchema *want,
                                       struct cli_batch_source **out, struct basalt_error *err)
{
    *out = NULL;
    struct cli_batch_source *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (cli_csv_is_csv_name(uri)) {
        /* The reader names the file in its messages. */
        basalt_status st = open_csv(s, uri, pool, want, err);
        if (st != BASALT_OK) {
            cli_batch_source_close(s);
            return st;
        }
        *out = s;
        return BASALT_OK;
    }
    if (is_json_name(uri)) {
        struct basalt_json_read_options o;
        basalt_json_read_options_init(&o);
        o.pool = pool;
        struct basalt_input *jin = NULL;
        basalt_status st = cli_open_text_input(uri, &jin, err);
        if (st == BASALT_OK)
            st = basalt_json_reader_open(jin, true, &o, &s->json, err);
        if (st == BASALT_OK)
            st = basalt_json_reader_schema(s->json, &s->schema, err);
        if (st != BASALT_OK) {
            cli_batch_source_close(s);
            return st;
        }
        *out = s;
        return BASALT_OK;
    }
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
                              "not a Parquet or Avro file (nor a .csv or .tsv name)");
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
    if (s->csv)
        return basalt_csv_reader_next(s->csv, out, err);
    if (s->json)
        return basalt_json_reader_next(s->json, out, err);
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
    basalt_csv_reader_close(s->csv);
    basalt_json_reader_close(s->json);
    basalt_free(s->avro_data);
    basalt_free(s);
}
