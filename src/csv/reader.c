/* The CSV reader: opening, the chunk split and the ordered hand-out of the
 * batches parsed on the pool. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "csv_reader.h"

/* ------------------------------------------------------------------ types */

void basalt_csv_read_options_init(struct basalt_csv_read_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_line_size = 8u << 20;
    o->sample_rows = 20480;
    o->batch_size = 65536;
    o->chunk_size = 2u << 20;
}

static const struct {
    const char *name;
    enum basalt_csv_type type;
} type_names[] = {
    {"bool", BASALT_CSV_TYPE_BOOL},        {"boolean", BASALT_CSV_TYPE_BOOL},
    {"int32", BASALT_CSV_TYPE_INT32},      {"int", BASALT_CSV_TYPE_INT32},
    {"integer", BASALT_CSV_TYPE_INT32},    {"int64", BASALT_CSV_TYPE_INT64},
    {"bigint", BASALT_CSV_TYPE_INT64},     {"long", BASALT_CSV_TYPE_INT64},
    {"float", BASALT_CSV_TYPE_FLOAT},      {"real", BASALT_CSV_TYPE_FLOAT},
    {"double", BASALT_CSV_TYPE_DOUBLE},    {"float64", BASALT_CSV_TYPE_DOUBLE},
    {"date", BASALT_CSV_TYPE_DATE},        {"timestamp", BASALT_CSV_TYPE_TIMESTAMP},
    {"timestamptz", BASALT_CSV_TYPE_TIMESTAMPTZ}, {"time", BASALT_CSV_TYPE_TIME},
    {"string", BASALT_CSV_TYPE_STRING},    {"varchar", BASALT_CSV_TYPE_STRING},
    {"text", BASALT_CSV_TYPE_STRING},      {"utf8", BASALT_CSV_TYPE_STRING},
};

basalt_status basalt_csv_type_parse(const char *text, size_t len,
                                    struct basalt_csv_column_type *out, struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    char buf[64];
    if (!text || len == 0 || len >= sizeof buf)
        return basalt_error_set(err, BASALT_INVALID_ARG, "unknown CSV column type '%.*s'",
                                (int)(len < 64 ? len : 64), text ? text : "");
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)(text[i] >= 'A' && text[i] <= 'Z' ? text[i] | 0x20 : text[i]);
    buf[len] = 0;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        if (strcmp(buf, type_names[i].name) == 0) {
            out->type = type_names[i].type;
            return BASALT_OK;
        }
    }
    int p, s, n = 0;
    if (sscanf(buf, "decimal(%d,%d)%n", &p, &s, &n) == 2 && (size_t)n == len && p >= 1 &&
        p <= 38 && s >= 0 && s <= p) {
        out->type = BASALT_CSV_TYPE_DECIMAL;
        out->precision = p;
        out->scale = s;
        return BASALT_OK;
    }
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "unknown CSV column type '%s' (bool, int32, int64, float, double, "
                            "decimal(P,S), date, timestamp, timestamptz, string)",
                            buf);
}

void basalt_csv_type_name(const struct basalt_csv_column_type *t, char *buf, size_t cap)
{
    const char *name = "string";
    switch (t->type) {
    case BASALT_CSV_TYPE_AUTO: name = "auto"; break;
    case BASALT_CSV_TYPE_BOOL: name = "bool"; break;
    case BASALT_CSV_TYPE_INT32: name = "int32"; break;
    case BASALT_CSV_TYPE_INT64: name = "int64"; break;
    case BASALT_CSV_TYPE_FLOAT: name = "float"; break;
    case BASALT_CSV_TYPE_DOUBLE: name = "double"; break;
    case BASALT_CSV_TYPE_DATE: name = "date"; break;
    case BASALT_CSV_TYPE_TIMESTAMP: name = "timestamp"; break;
    case BASALT_CSV_TYPE_TIMESTAMPTZ: name = "timestamptz"; break;
    case BASALT_CSV_TYPE_TIME: name = "time"; break;
    case BASALT_CSV_TYPE_STRING: name = "string"; break;
    case BASALT_CSV_TYPE_DECIMAL:
        snprintf(buf, cap, "decimal(%d,%d)", (int)t->precision, (int)t->scale);
        return;
    }
    snprintf(buf, cap, "%s", name);
}

void basalt_csv_type_format(const struct basalt_csv_column_type *t, char *buf, size_t cap)
{
    const char *f = "u";
    switch (t->type) {
    case BASALT_CSV_TYPE_BOOL: f = "b"; break;
    case BASALT_CSV_TYPE_INT32: f = "i"; break;
    case BASALT_CSV_TYPE_INT64: f = "l"; break;
    case BASALT_CSV_TYPE_FLOAT: f = "f"; break;
    case BASALT_CSV_TYPE_DOUBLE: f = "g"; break;
    case BASALT_CSV_TYPE_DATE: f = "tdD"; break;
    case BASALT_CSV_TYPE_TIMESTAMP: f = "tsu:"; break;
    case BASALT_CSV_TYPE_TIMESTAMPTZ: f = "tsu:UTC"; break;
    case BASALT_CSV_TYPE_TIME: f = "ttu"; break;
    case BASALT_CSV_TYPE_DECIMAL:
        snprintf(buf, cap, "d:%d,%d", (int)t->precision, (int)t->scale);
        return;
    default: break;
    }
    snprintf(buf, cap, "%s", f);
}

/* ------------------------------------------------------------------ open */

static basalt_status check_options(const struct basalt_csv_read_options *o,
                                   struct basalt_error *err)
{
    if (o->delimiter == '\n' || o->delimiter == '\r' || (o->quote && o->quote == o->delimiter) ||
        o->quote == '\n' || o->quote == '\r' || o->comment == '\n' || o->comment == '\r' ||
        (o->comment && (o->comment == o->delimiter || o->comment == o->quote)))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "CSV options: delimiter, quote and comment must be distinct and "
                                "not line breaks");
    if (o->batch_size < 1 || o->chunk_size < 1 || o->max_line_size < 1 || o->skip_rows < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "CSV options: batch_size, chunk_size and max_line_size must be "
                                "positive, skip_rows not negative");
    if ((o->n_names && !o->names) || (o->n_types && !o->types) ||
        (o->n_named_types && (!o->type_names || !o->named_types)) ||
        (o->n_nulls && !o->nulls))
        return basalt_error_set(err, BASALT_INVALID_ARG, "CSV options: a count without its array");
    for (size_t i = 0; i < o->n_types + o->n_named_types; i++) {
        const struct basalt_csv_column_type *t =
            i < o->n_types ? &o->types[i] : &o->named_types[i - o->n_types];
        if (t->type > BASALT_CSV_TYPE_STRING ||
            (t->type == BASALT_CSV_TYPE_DECIMAL &&
             (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)))
            return basalt_error_set(err, BASALT_INVALID_ARG, "CSV options: bad column type");
    }
    return BASALT_OK;
}

static basalt_status copy_nulls(struct basalt_csv_reader *r,
                                const struct basalt_csv_read_options *o,
                                struct basalt_error *err)
{
    if (!o->nulls) {
        r->cfg.null_empty = true;
        return BASALT_OK;
    }
    r->nulls = basalt_calloc(o->n_nulls + 1, sizeof *r->nulls);
    r->null_lens = basalt_calloc(o->n_nulls + 1, sizeof *r->null_lens);
    if (!r->nulls || !r->null_lens)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < o->n_nulls; i++) {
        if (!o->nulls[i])
            continue;
        size_t len = strlen(o->nulls[i]);
        if (len == 0) {
            r->cfg.null_empty = true;
            continue;
        }
        r->nulls[n] = (uint8_t *)basalt_strdup(o->nulls[i]);
        if (!r->nulls[n])
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        r->null_lens[n++] = len;
    }
    r->cfg.nulls = (const uint8_t *const *)r->nulls;
    r->cfg.null_lens = r->null_lens;
    r->cfg.n_nulls = n;
    return BASALT_OK;
}

/* name, name_1, name_2, ... for repeated header names. */
static basalt_status dedup_names(struct basalt_csv_reader *r, struct basalt_error *err)
{
    for (int32_t c = 1; c < r->n_columns; c++) {
        bool clash = false;
        for (int32_t k = 0; k < c && !clash; k++)
            clash = strcmp(r->columns[k].name, r->columns[c].name) == 0;
        if (!clash)
            continue;
        size_t len = strlen(r->columns[c].name);
        char *name = basalt_malloc(len + 16);
        if (!name)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int suffix = 1;; suffix++) {
            snprintf(name, len + 16, "%s_%d", r->columns[c].name, suffix);
            bool taken = false;
            for (int32_t k = 0; k < r->n_columns && !taken; k++)
                taken = k != c && strcmp(r->columns[k].name, name) == 0;
            if (!taken)
                break;
        }
        basalt_free(r->columns[c].name);
        r->columns[c].name = name;
    }
    return BASALT_OK;
}

static basalt_status apply_options(struct basalt_csv_reader *r,
                                   const struct basalt_csv_read_options *o,
                                   struct basalt_error *err)
{
    if (o->n_names > (size_t)r->n_columns && r->n_columns > 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%zu column names given for %d columns", o->n_names,
                                (int)r->n_columns);
    for (size_t i = 0; i < o->n_names && i < (size_t)r->n_columns; i++) {
        char *name = basalt_strdup(o->names[i] ? o->names[i] : "");
        if (!name)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_free(r->columns[i].name);
        r->columns[i].name = name;
    }
    basalt_status st = dedup_names(r, err);
    if (st != BASALT_OK)
        return st;
    if (o->n_types > (size_t)r->n_columns && r->n_columns > 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%zu column types given for %d columns",
                                o->n_types, (int)r->n_columns);
    for (size_t i = 0; i < o->n_types && i < (size_t)r->n_columns; i++)
        if (o->types[i].type != BASALT_CSV_TYPE_AUTO)
            r->columns[i].type = o->types[i];
    for (size_t i = 0; i < o->n_named_types; i++) {
        int32_t c = 0;
        while (c < r->n_columns && strcmp(r->columns[c].name, o->type_names[i]) != 0)
            c++;
        if (c == r->n_columns)
            return basalt_error_set(err, BASALT_NOT_FOUND, "no column named '%s'",
                                    o->type_names[i]);
        if (o->named_types[i].type != BASALT_CSV_TYPE_AUTO)
            r->columns[c].type = o->named_types[i];
    }
    for (int32_t c = 0; c < r->n_columns; c++)
        basalt_csv_type_format(&r->columns[c].type, r->columns[c].format,
                               sizeof r->columns[c].format);
    return BASALT_OK;
}

static basalt_status load(struct basalt_csv_reader *r, struct basalt_error *err)
{
    const uint8_t *view = basalt_input_view(r->in);
    if (r->in->size > SIZE_MAX / 2)
        return basalt_error_set(err, BASALT_LIMIT, "too large");
    r->size = (size_t)r->in->size;
    if (view) {
        r->data = view;
        return BASALT_OK;
    }
    r->owned = basalt_malloc(r->size ? r->size : 1);
    if (!r->owned)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for %zu bytes", r->size);
    r->data = r->owned;
    return r->size ? basalt_input_read_at(r->in, 0, r->size, r->owned, err) : BASALT_OK;
}

static basalt_status open_reader(struct basalt_csv_reader *r,
                                 const struct basalt_csv_read_options *o, struct basalt_error *err)
{
    basalt_status st = load(r, err);
    if (st != BASALT_OK)
        return st;
    st = copy_nulls(r, o, err);
    if (st != BASALT_OK)
        return st;
    const uint8_t *p = r->data, *end = r->data + r->size;
    int64_t line = 1;
    if (r->size >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
        p += 3;
        r->dialect.bom = true;
    }
    for (int64_t i = 0; i < o->skip_rows && p < end; i++, line++)
        basalt_csv_skip_line(&p, end);
    uint8_t delim = (uint8_t)o->delimiter, quote = (uint8_t)o->quote;
    if (!delim || (!quote && !o->no_quote))
        basalt_csv_sniff_dialect(o, p, end, &delim, &quote);
    basalt_csv_dialect_init(&r->cfg.dialect, delim, !o->no_quote, quote,
                     o->escape == BASALT_CSV_ESCAPE_BACKSLASH, o->comment != 0,
                     (uint8_t)o->comment);
    r->dialect.delimiter = (char)delim;
    r->dialect.quote = o->no_quote ? 0 : (char)quote;
    r->dialect.escape = o->escape;
    st = basalt_csv_sniff_schema(r, o, &p, &line, err);
    if (st != BASALT_OK)
        return st;
    st = apply_options(r, o, err);
    if (st != BASALT_OK)
        return st;
    r->cfg.columns = r->columns;
    r->cfg.n_columns = r->n_columns;
    r->cfg.fill_ragged = o->fill_ragged;
    r->cfg.max_line_size = o->max_line_size;
    r->cfg.batch_size = o->batch_size;
    r->chunk_size = o->chunk_size;
    r->pool = o->pool;
    r->max_workers = o->max_workers;
    size_t body = r->size - r->data_begin;
    r->n_chunks = r->n_columns == 0 ? 0 : (int64_t)((body + r->chunk_size - 1) / r->chunk_size);
    r->next_chunk = 0;
    r->next_start = r->data_begin;
    r->next_parity = false;
    r->serial_split = o->escape == BASALT_CSV_ESCAPE_BACKSLASH || o->comment != 0;
    r->result_line = r->dialect.data_line;
    int workers = basalt_pool_workers(r->pool);
    if (r->max_workers > 0 && r->max_workers < workers)
        workers = r->max_workers;
    r->workers = workers;
    r->window_cap = 4 * (int64_t)workers < 4 ? 4 : 4 * (int64_t)workers;
    r->results = basalt_calloc((size_t)r->window_cap, sizeof *r->results);
    r->starts = basalt_calloc((size_t)r->window_cap + 1, sizeof *r->starts);
    r->quotes = basalt_calloc((size_t)r->window_cap, sizeof *r->quotes);
    if (!r->results || !r->starts || !r->quotes)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

basalt_status basalt_csv_reader_open(struct basalt_input *in, bool take_input,
                                     const struct basalt_csv_read_options *options,
                                     struct basalt_csv_reader **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    struct basalt_csv_read_options defaults;
    if (!options) {
        basalt_csv_read_options_init(&defaults);
        options = &defaults;
    }
    if (!in || !out) {
        if (take_input)
            basalt_input_close(in);
        return basalt_error_set(err, BASALT_INVALID_ARG, "csv reader: NULL input or output");
    }
    basalt_status st = check_options(options, err);
    struct basalt_csv_reader *r = NULL;
    if (st == BASALT_OK && !(r = basalt_calloc(1, sizeof *r)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK) {
        if (take_input)
            basalt_input_close(in);
        return st;
    }
    r->in = in;
    r->own_input = take_input;
    r->name = basalt_strdup(in->name ? in->name : "csv");
    if (!r->name)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = open_reader(r, options, err);
    if (st != BASALT_OK) {
        basalt_error_context(err, st, "%.300s", in->name ? in->name : "csv");
        basalt_csv_reader_close(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

basalt_status basalt_csv_reader_open_file(const char *path,
                                          const struct basalt_csv_read_options *options,
                                          struct basalt_csv_reader **out,
                                          struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_file(path, true, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_csv_reader_open(in, true, options, out, err);
}

basalt_status basalt_csv_reader_open_memory(const void *data, size_t len, const char *name,
                                            const struct basalt_csv_read_options *options,
                                            struct basalt_csv_reader **out,
                                            struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_memory(data, len, name ? name : "csv", &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_csv_reader_open(in, true, options, out, err);
}

static void free_window(struct basalt_csv_reader *r)
{
    for (int64_t i = 0; i < r->n_results; i++)
        basalt_csv_chunk_result_reset(&r->results[i]);
    r->n_results = r->result_pos = r->batch_pos = 0;
}

void basalt_csv_reader_close(struct basalt_csv_reader *r)
{
    if (!r)
        return;
    if (r->results)
        free_window(r);
    basalt_free(r->results);
    basalt_free(r->starts);
    basalt_free(r->quotes);
    for (int32_t c = 0; c < r->n_columns; c++)
        basalt_free(r->columns ? r->columns[c].name : NULL);
    basalt_free(r->columns);
    if (r->nulls)
        for (size_t i = 0; r->nulls[i]; i++)
            basalt_free(r->nulls[i]);
    basalt_free(r->nulls);
    basalt_free(r->null_lens);
    basalt_free(r->owned);
    if (r->own_input)
        basalt_input_close(r->in);
    basalt_free(r->name);
    basalt_free(r);
}

/* ------------------------------------------------------------------ access */

const struct basalt_csv_dialect *basalt_csv_reader_dialect(const struct basalt_csv_reader *r)
{
    return &r->dialect;
}

int32_t basalt_csv_reader_num_columns(const struct basalt_csv_reader *r)
{
    return r->n_columns;
}

const char *basalt_csv_reader_column_name(const struct basalt_csv_reader *r, int32_t i)
{
    return i >= 0 && i < r->n_columns ? r->columns[i].name : NULL;
}

const struct basalt_csv_column_type *basalt_csv_reader_column_type(
    const struct basalt_csv_reader *r, int32_t i)
{
    return i >= 0 && i < r->n_columns ? &r->columns[i].type : NULL;
}

basalt_status basalt_csv_reader_schema(const struct basalt_csv_reader *r, struct ArrowSchema *out,
                                       struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(out, "+s", "", 0, r->n_columns, err);
    for (int32_t c = 0; st == BASALT_OK && c < r->n_columns; c++)
        st = basalt_arrow_schema_init(out->children[c], r->columns[c].format, r->columns[c].name,
                                      ARROW_FLAG_NULLABLE, 0, err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

void basalt_csv_reader_stats(const struct basalt_csv_reader *r, struct basalt_csv_stats *out)
{
    *out = r->stats;
}

/* ------------------------------------------------------------------ split */

static size_t nominal(const struct basalt_csv_reader *r, int64_t k)
{
    if (k >= r->n_chunks)
        return r->size;
    size_t off = r->data_begin + (size_t)k * r->chunk_size;
    return off < r->size ? off : r->size;
}

/* The first record start at or after nominal offset `k`, when `odd` says
 * whether an odd number of quotes precede it (doubled-quote escaping). */
static size_t parity_start(const struct basalt_csv_reader *r, int64_t k, bool odd)
{
    size_t pos = nominal(r, k);
    if (pos >= r->size)
        return r->size;
    const uint8_t *d = r->data;
    if (!odd && d[pos - 1] == '\n')
        return pos;
    if (!r->cfg.dialect.has_quote) {
        const uint8_t *nl = memchr(d + pos, '\n', r->size - pos);
        return nl ? (size_t)(nl - d) + 1 : r->size;
    }
    uint8_t q = r->cfg.dialect.quote;
    for (size_t i = pos; i < r->size; i++) {
        if (d[i] == q)
            odd = !odd;
        else if (d[i] == '\n' && !odd)
            return i + 1;
    }
    return r->size;
}

/* The first record start at or after nominal offset `k`, scanning records
 * from the record start `from`. A malformed record ends the scan (the chunk
 * parser reports it). */
static size_t serial_start(const struct basalt_csv_reader *r, size_t from, int64_t k)
{
    size_t target = nominal(r, k);
    const struct csv_dialect *d = &r->cfg.dialect;
    const uint8_t *p = r->data + from, *end = r->data + r->size, *stop = r->data + target;
    struct csv_record rec;
    while (p < stop) {
        if (d->has_comment && *p == d->comment) {
            basalt_csv_skip_line(&p, end);
            continue;
        }
        if (basalt_csv_tokenize(d, &p, end, NULL, 0, &rec) != CSV_TOK_OK)
            return r->size;
    }
    return (size_t)(p - r->data);
}

struct window_job {
    struct basalt_csv_reader *r;
    int64_t k0;
};

/* Maps the pages of a chunk of a mapped file in one call rather than one
 * fault per page (a third of a read on a fresh mapping); best effort. */
static void populate(const struct basalt_csv_reader *r, size_t a, size_t b)
{
#if defined(MADV_POPULATE_READ)
    if (r->owned || b <= a)
        return;
    static long page;
    if (!page)
        page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)(r->data + a) & ~(uintptr_t)(page - 1);
    uintptr_t hi = (uintptr_t)(r->data + b);
    madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
#else
    (void)r;
    (void)a;
    (void)b;
#endif
}

static void count_job(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct window_job *j = ctx;
    struct basalt_csv_reader *r = j->r;
    for (int64_t i = begin; i < end; i++) {
        size_t a = nominal(r, j->k0 + i), b = nominal(r, j->k0 + i + 1);
        populate(r, a, b);
        r->quotes[i] = basalt_csv_count_byte(r->data + a, b - a, r->cfg.dialect.quote);
    }
}

static void parse_job(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct window_job *j = ctx;
    struct basalt_csv_reader *r = j->r;
    for (int64_t i = begin; i < end; i++) {
        const uint8_t *stop;
        basalt_csv_parse_chunk(&r->cfg, r->data + r->starts[i], r->data + r->starts[i + 1],
                        r->data + r->starts[i + 1], &r->results[i], &stop);
    }
}

/* The window's bytes are parsed into batches of their own: a mapped file
 * gives their pages back, so that reading a file larger than memory does
 * not keep all of it resident. */
static void release_parsed(struct basalt_csv_reader *r)
{
    if (r->owned == NULL && r->in != NULL && r->n_results > 0)
        basalt_input_release_view(r->in, r->starts[0], r->starts[r->n_results] - r->starts[0]);
}

/* Splits and parses the next window of chunks. */
static void parse_window(struct basalt_csv_reader *r)
{
    int64_t k0 = r->next_chunk;
    int64_t n = r->n_chunks - k0 < r->window_cap ? r->n_chunks - k0 : r->window_cap;
    struct window_job job = {r, k0};
    r->starts[0] = r->next_start;
    if (r->workers == 1) {
        /* One worker: each chunk ends where the parser, going record by
         * record, first reaches a record start at or after the next nominal
         * offset; the same starts the split below finds, without a pass of
         * its own over the bytes. */
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *stop;
            populate(r, r->starts[i], nominal(r, k0 + i + 1));
            basalt_csv_parse_chunk(&r->cfg, r->data + r->starts[i],
                                   r->data + nominal(r, k0 + i + 1),
                            r->data + r->size, &r->results[i], &stop);
            r->starts[i + 1] = (size_t)(stop - r->data);
            if (r->results[i].error.status != BASALT_OK) {
                n = i + 1; /* nothing after the first error is read */
                r->next_chunk = r->n_chunks;
                break;
            }
        }
        r->stats.chunks += n;
        r->stats.windows++;
        r->n_results = n;
        r->result_pos = r->batch_pos = 0;
        r->next_start = r->starts[n];
        if (r->next_chunk != r->n_chunks)
            r->next_chunk = k0 + n;
        release_parsed(r);
        return;
    }
    if (r->serial_split) {
        for (int64_t i = 1; i <= n; i++)
            r->starts[i] = serial_start(r, r->starts[i - 1], k0 + i);
        r->stats.serial_splits += n;
    } else {
        if (r->cfg.dialect.has_quote)
            basalt_pool_parallel_for(r->pool, r->max_workers, n, 1, count_job, &job);
        bool odd = r->next_parity;
        for (int64_t i = 1; i <= n; i++) {
            odd ^= r->cfg.dialect.has_quote && (r->quotes[i - 1] & 1);
            r->starts[i] = parity_start(r, k0 + i, odd);
        }
        r->stats.parity_splits += n;
        r->next_parity = odd;
    }
    r->next_start = r->starts[n];
    r->next_chunk = k0 + n;
    basalt_pool_parallel_for(r->pool, r->max_workers, n, 1, parse_job, &job);
    r->n_results = n;
    r->result_pos = r->batch_pos = 0;
    r->stats.chunks += n;
    r->stats.windows++;
    release_parsed(r);
}

/* ------------------------------------------------------------------ batches */

static basalt_status chunk_failure(struct basalt_csv_reader *r, const struct csv_chunk_result *res,
                                   struct basalt_error *err)
{
    const struct csv_chunk_error *e = &res->error;
    long long line = (long long)(r->result_line + e->line);
    if (e->status == BASALT_NOMEM)
        basalt_error_set(&r->failure, e->status, "%.300s: %s", r->name, e->message);
    else if (e->column >= 0)
        basalt_error_set(&r->failure, e->status, "%.300s: line %lld, column %d ('%.100s'): %s",
                         r->name, line, (int)e->column + 1, r->columns[e->column].name,
                         e->message);
    else
        basalt_error_set(&r->failure, e->status, "%.300s: line %lld: %s", r->name, line,
                         e->message);
    r->failed = e->status;
    if (err)
        *err = r->failure;
    return r->failed;
}

basalt_status basalt_csv_reader_next(struct basalt_csv_reader *r, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    if (!r || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "csv reader: NULL argument");
    memset(out, 0, sizeof *out);
    if (r->failed != BASALT_OK) {
        if (err)
            *err = r->failure;
        return r->failed;
    }
    for (;;) {
        if (r->result_pos < r->n_results) {
            struct csv_chunk_result *res = &r->results[r->result_pos];
            if (res->error.status != BASALT_OK)
                return chunk_failure(r, res, err);
            if (r->batch_pos < res->n_batches) {
                basalt_arrow_array_move(&res->batches[r->batch_pos++], out);
                r->stats.rows += out->length;
                return BASALT_OK;
            }
            r->result_line += res->newlines;
            r->result_pos++;
            r->batch_pos = 0;
            continue;
        }
        free_window(r);
        if (r->next_chunk >= r->n_chunks)
            return BASALT_OK;
        parse_window(r);
    }
}

basalt_status basalt_csv_reader_read_all(struct basalt_csv_reader *r,
                                         struct basalt_arrow_batches *batches,
                                         struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (batches->schema.release == NULL)
        st = basalt_csv_reader_schema(r, &batches->schema, err);
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_csv_reader_next(r, &a, err);
        if (st != BASALT_OK || !a.release)
            break;
        st = basalt_arrow_batches_append(batches, &a, err);
    }
    return st;
}

/* ------------------------------------------------------------------ stream */

static int errno_of(basalt_status st)
{
    switch (st) {
    case BASALT_NOMEM: return ENOMEM;
    case BASALT_INVALID_ARG: return EINVAL;
    case BASALT_UNSUPPORTED: return ENOTSUP;
    default: return EIO;
    }
}

static int stream_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct basalt_csv_reader *r = s->private_data;
    basalt_status st = basalt_csv_reader_schema(r, out, &r->failure);
    return st == BASALT_OK ? 0 : errno_of(st);
}

static int stream_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct basalt_csv_reader *r = s->private_data;
    struct basalt_error e;
    basalt_error_init(&e);
    basalt_status st = basalt_csv_reader_next(r, out, &e);
    if (st != BASALT_OK) {
        r->failure = e;
        return errno_of(st);
    }
    return 0;
}

static const char *stream_error(struct ArrowArrayStream *s)
{
    struct basalt_csv_reader *r = s->private_data;
    return r->failure.message[0] ? r->failure.message : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    basalt_csv_reader_close(s->private_data);
    s->release = NULL;
    s->private_data = NULL;
}

basalt_status basalt_csv_reader_stream(struct basalt_csv_reader *r, struct ArrowArrayStream *stream,
                                       struct basalt_error *err)
{
    if (!r || !stream)
        return basalt_error_set(err, BASALT_INVALID_ARG, "csv reader: NULL argument");
    stream->get_schema = stream_schema;
    stream->get_next = stream_next;
    stream->get_last_error = stream_error;
    stream->release = stream_release;
    stream->private_data = r;
    return BASALT_OK;
}
