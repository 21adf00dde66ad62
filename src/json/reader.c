/* The JSON-lines reader: opening (schema given or inferred), the chunk split
 * at line feeds and the ordered hand-out of the batches parsed on the pool. */
#include <errno.h>
#include <stdio.h>

#include "json_internal.h"

struct basalt_json_reader {
    struct basalt_input *in;
    bool own_input;
    uint8_t *owned;
    const uint8_t *data;
    size_t size;
    char *name;

    struct json_type root;
    struct json_parse_config cfg;

    size_t begin;          /* the first line (after a BOM) */
    size_t chunk_size;
    int64_t n_chunks, next_chunk;
    size_t next_start;

    struct json_chunk_result *results;
    size_t *starts;
    int64_t n_results, window_cap, result_pos, batch_pos;
    int64_t result_line;   /* 1-based line of results[result_pos]'s start */

    struct basalt_pool *pool;
    int max_workers, workers;

    basalt_status failed;
    struct basalt_error failure;
    struct basalt_json_stats stats;
};

void basalt_json_read_options_init(struct basalt_json_read_options *o)
{
    memset(o, 0, sizeof *o);
    o->sample_rows = 20480;
    o->max_record_size = 16u << 20;
    o->max_depth = 64;
    o->batch_size = 65536;
    o->chunk_size = 2u << 20;
}

static basalt_status load(struct basalt_json_reader *r, struct basalt_error *err)
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

static basalt_status explicit_schema(struct basalt_json_reader *r,
                                     const struct basalt_json_read_options *o,
                                     struct basalt_error *err)
{
    if (o->schema) {
        if (!o->schema->format || strcmp(o->schema->format, "+s") != 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "JSON options: the schema must be a struct (\"+s\")");
        return basalt_json_type_from_schema(o->schema, &r->root, err);
    }
    struct ArrowSchema s;
    basalt_status st = basalt_arrow_schema_init(&s, "+s", "", 0, (int64_t)o->n_columns, err);
    for (size_t i = 0; st == BASALT_OK && i < o->n_columns; i++) {
        if (!o->names[i] || !o->types[i])
            st = basalt_error_set(err, BASALT_INVALID_ARG, "JSON options: a NULL column name");
        else
            st = basalt_json_type_parse(o->types[i], o->names[i], s.children[i], err);
    }
    if (st == BASALT_OK)
        st = basalt_json_type_from_schema(&s, &r->root, err);
    basalt_arrow_schema_release(&s);
    return st;
}

/* Unifies the first sample_rows records into r->root. */
static basalt_status infer(struct basalt_json_reader *r, const struct basalt_json_read_options *o,
                           struct basalt_error *err)
{
    r->root.kind = JSON_K_STRUCT;
    struct json_lex lx;
    memset(&lx, 0, sizeof lx);
    basalt_buffer_init(&lx.scratch);
    lx.max_depth = o->max_depth;
    const uint8_t *p = r->data + r->begin, *end = r->data + r->size;
    int64_t line = 1, records = 0;
    basalt_status st = BASALT_OK;
    while (p < end && (o->sample_rows < 0 || records < o->sample_rows)) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *le = nl ? nl : end;
        if ((size_t)(le - p) > o->max_record_size) {
            st = basalt_error_set(err, BASALT_LIMIT,
                                  "line %lld: a record of more than %zu bytes (max_record_size)",
                                  (long long)line, o->max_record_size);
            break;
        }
        lx.p = p;
        lx.end = le;
        basalt_json_ws(&lx);
        if (lx.p < le) {
            if (!basalt_json_infer_record(&lx, &r->root)) {
                st = basalt_error_set(err, lx.status, "line %lld, column %lld: %s",
                                      (long long)line, (long long)(lx.pos - p + 1), lx.message);
                break;
            }
            records++;
        }
        if (!nl)
            break;
        p = nl + 1;
        line++;
    }
    basalt_buffer_reset(&lx.scratch);
    r->stats.sample_rows = records;
    if (st == BASALT_OK)
        basalt_json_infer_finish(&r->root);
    return st;
}

static basalt_status open_reader(struct basalt_json_reader *r,
                                 const struct basalt_json_read_options *o,
                                 struct basalt_error *err)
{
    basalt_status st = load(r, err);
    if (st != BASALT_OK)
        return st;
    if (r->size >= 3 && r->data[0] == 0xef && r->data[1] == 0xbb && r->data[2] == 0xbf)
        r->begin = 3;
    size_t i = r->begin;
    while (i < r->size && (r->data[i] == ' ' || r->data[i] == '\t' || r->data[i] == '\r' ||
                           r->data[i] == '\n'))
        i++;
    if (i < r->size && r->data[i] == '[')
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "a top-level JSON array (format 'array') is not supported: "
                                "only newline-delimited JSON, one object per line");
    if (o->schema || o->n_columns)
        st = explicit_schema(r, o, err);
    else
        st = infer(r, o, err);
    if (st == BASALT_OK)
        st = basalt_json_type_paths(&r->root, NULL, err);
    if (st != BASALT_OK)
        return st;
    r->cfg.root = &r->root;
    r->cfg.batch_size = o->batch_size;
    r->cfg.max_record_size = o->max_record_size;
    r->cfg.max_depth = o->max_depth;
    r->chunk_size = o->chunk_size;
    r->pool = o->pool;
    r->max_workers = o->max_workers;
    size_t body = r->size - r->begin;
    r->n_chunks = (int64_t)((body + r->chunk_size - 1) / r->chunk_size);
    r->next_start = r->begin;
    r->result_line = 1;
    int workers = basalt_pool_workers(r->pool);
    if (r->max_workers > 0 && r->max_workers < workers)
        workers = r->max_workers;
    r->workers = workers;
    r->window_cap = 4 * (int64_t)workers;
    r->results = basalt_calloc((size_t)r->window_cap, sizeof *r->results);
    r->starts = basalt_calloc((size_t)r->window_cap + 1, sizeof *r->starts);
    if (!r->results || !r->starts)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

basalt_status basalt_json_reader_open(struct basalt_input *in, bool take_input,
                                      const struct basalt_json_read_options *options,
                                      struct basalt_json_reader **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    struct basalt_json_read_options defaults;
    if (!options) {
        basalt_json_read_options_init(&defaults);
        options = &defaults;
    }
    basalt_status st = BASALT_OK;
    if (!in || !out)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "json reader: NULL input or output");
    else if (options->batch_size < 1 || options->chunk_size < 1 ||
             options->max_record_size < 1 || options->max_depth < 1 ||
             (options->n_columns && (!options->names || !options->types)))
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "JSON options: batch_size, chunk_size, max_record_size and "
                              "max_depth must be positive, names and types given together");
    struct basalt_json_reader *r = NULL;
    if (st == BASALT_OK && !(r = basalt_calloc(1, sizeof *r)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK) {
        if (take_input)
            basalt_input_close(in);
        return st;
    }
    r->in = in;
    r->own_input = take_input;
    r->name = basalt_strdup(in->name ? in->name : "json");
    if (!r->name)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = open_reader(r, options, err);
    if (st != BASALT_OK) {
        basalt_error_context(err, st, "%.300s", in->name ? in->name : "json");
        basalt_json_reader_close(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

basalt_status basalt_json_reader_open_file(const char *path,
                                           const struct basalt_json_read_options *options,
                                           struct basalt_json_reader **out,
                                           struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_file(path, true, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_json_reader_open(in, true, options, out, err);
}

basalt_status basalt_json_reader_open_memory(const void *data, size_t len, const char *name,
                                             const struct basalt_json_read_options *options,
                                             struct basalt_json_reader **out,
                                             struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_memory(data, len, name ? name : "json", &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_json_reader_open(in, true, options, out, err);
}

static void free_window(struct basalt_json_reader *r)
{
    for (int64_t i = 0; i < r->n_results; i++)
        basalt_json_chunk_result_reset(&r->results[i]);
    r->n_results = r->result_pos = r->batch_pos = 0;
}

void basalt_json_reader_close(struct basalt_json_reader *r)
{
    if (!r)
        return;
    if (r->results)
        free_window(r);
    basalt_free(r->results);
    basalt_free(r->starts);
    basalt_json_type_reset(&r->root);
    basalt_free(r->owned);
    if (r->own_input)
        basalt_input_close(r->in);
    basalt_free(r->name);
    basalt_free(r);
}

basalt_status basalt_json_reader_schema(const struct basalt_json_reader *r,
                                        struct ArrowSchema *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(out, "+s", "", 0, r->root.n_children, err);
    for (int32_t c = 0; st == BASALT_OK && c < r->root.n_children; c++)
        st = basalt_json_type_schema(&r->root.children[c], r->root.children[c].name,
                                     out->children[c], err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

void basalt_json_reader_stats(const struct basalt_json_reader *r, struct basalt_json_stats *out)
{
    *out = r->stats;
}

/* ------------------------------------------------------------------ split */

/* The first line start at or after nominal offset `k`. */
static size_t chunk_start(const struct basalt_json_reader *r, int64_t k)
{
    if (k >= r->n_chunks)
        return r->size;
    size_t pos = r->begin + (size_t)k * r->chunk_size;
    if (pos >= r->size)
        return r->size;
    if (r->data[pos - 1] == '\n')
        return pos;
    const uint8_t *nl = memchr(r->data + pos, '\n', r->size - pos);
    return nl ? (size_t)(nl - r->data) + 1 : r->size;
}

struct window_job {
    struct basalt_json_reader *r;
};

static void parse_job(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct basalt_json_reader *r = ((struct window_job *)ctx)->r;
    for (int64_t i = begin; i < end; i++)
        basalt_json_parse_chunk(&r->cfg, r->data + r->starts[i], r->data + r->starts[i + 1],
                                &r->results[i]);
}

static void parse_window(struct basalt_json_reader *r)
{
    int64_t k0 = r->next_chunk;
    int64_t n = r->n_chunks - k0 < r->window_cap ? r->n_chunks - k0 : r->window_cap;
    r->starts[0] = r->next_start;
    /* chunks whose nominal range holds no line start are empty */
    for (int64_t i = 1; i <= n; i++) {
        size_t s = chunk_start(r, k0 + i);
        r->starts[i] = s > r->starts[i - 1] ? s : r->starts[i - 1];
    }
    struct window_job job = {r};
    basalt_pool_parallel_for(r->pool, r->max_workers, n, 1, parse_job, &job);
    r->next_start = r->starts[n];
    r->next_chunk = k0 + n;
    r->n_results = n;
    r->result_pos = r->batch_pos = 0;
    r->stats.chunks += n;
    r->stats.windows++;
    /* The window's lines are parsed into batches of their own: a mapped
     * file gives their pages back (a file larger than memory is never all
     * resident). */
    if (r->owned == NULL && n > 0)
        basalt_input_release_view(r->in, r->starts[0], r->starts[n] - r->starts[0]);
}

/* ------------------------------------------------------------------ batches */

static basalt_status chunk_failure(struct basalt_json_reader *r,
                                   const struct json_chunk_result *res, struct basalt_error *err)
{
    const struct json_chunk_error *e = &res->error;
    long long line = (long long)(r->result_line + e->line);
    if (e->status == BASALT_NOMEM)
        basalt_error_set(&r->failure, e->status, "%.300s: %s", r->name, e->message);
    else if (e->column > 0)
        basalt_error_set(&r->failure, e->status, "%.300s: line %lld, column %lld: %s", r->name,
                         line, (long long)e->column, e->message);
    else
        basalt_error_set(&r->failure, e->status, "%.300s: line %lld: %s", r->name, line,
                         e->message);
    r->failed = e->status;
    if (err)
        *err = r->failure;
    return r->failed;
}

basalt_status basalt_json_reader_next(struct basalt_json_reader *r, struct ArrowArray *out,
                                      struct basalt_error *err)
{
    if (!r || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "json reader: NULL argument");
    memset(out, 0, sizeof *out);
    if (r->failed != BASALT_OK) {
        if (err)
            *err = r->failure;
        return r->failed;
    }
    for (;;) {
        if (r->result_pos < r->n_results) {
            struct json_chunk_result *res = &r->results[r->result_pos];
            if (r->batch_pos < res->n_batches) {
                basalt_arrow_array_move(&res->batches[r->batch_pos++], out);
                r->stats.rows += out->length;
                return BASALT_OK;
            }
            /* the rows before an error in the chunk come out first */
            if (res->error.status != BASALT_OK)
                return chunk_failure(r, res, err);
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

basalt_status basalt_json_reader_read_all(struct basalt_json_reader *r,
                                          struct basalt_arrow_batches *batches,
                                          struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (batches->schema.release == NULL)
        st = basalt_json_reader_schema(r, &batches->schema, err);
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_json_reader_next(r, &a, err);
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
    struct basalt_json_reader *r = s->private_data;
    basalt_status st = basalt_json_reader_schema(r, out, &r->failure);
    return st == BASALT_OK ? 0 : errno_of(st);
}

static int stream_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct basalt_json_reader *r = s->private_data;
    struct basalt_error e;
    basalt_error_init(&e);
    basalt_status st = basalt_json_reader_next(r, out, &e);
    if (st != BASALT_OK) {
        r->failure = e;
        return errno_of(st);
    }
    return 0;
}

static const char *stream_error(struct ArrowArrayStream *s)
{
    struct basalt_json_reader *r = s->private_data;
    return r->failure.message[0] ? r->failure.message : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    basalt_json_reader_close(s->private_data);
    s->release = NULL;
    s->private_data = NULL;
}

basalt_status basalt_json_reader_stream(struct basalt_json_reader *r,
                                        struct ArrowArrayStream *stream, struct basalt_error *err)
{
    if (!r || !stream)
        return basalt_error_set(err, BASALT_INVALID_ARG, "json reader: NULL argument");
    stream->get_schema = stream_schema;
    stream->get_next = stream_next;
    stream->get_last_error = stream_error;
    stream->release = stream_release;
    stream->private_data = r;
    return BASALT_OK;
}
