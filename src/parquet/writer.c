/* The Parquet writer: options, open, batches into row groups, the footer. */
#include <errno.h>
#include <string.h>

#include "parquet_writer.h"

struct basalt_parquet_writer {
    struct basalt_output *out;
    bool own_output;
    bool failed;
    bool finished;
    struct basalt_parquet_writer_options options;
    struct ArrowSchema schema;
    struct basalt_parquet_wcolumn *cols;
    struct basalt_parquet_wchunk *chunks;
    struct basalt_parquet_schema_element *elements;
    size_t num_elements;
    int32_t ncols;
    /* one codec and scratch per worker; ctx[0] also writes row groups */
    struct basalt_codec **codecs;
    struct basalt_parquet_wctx *ctx;
    int workers;
    struct basalt_pool *pool;
    /* per-column outcome of a parallel step */
    basalt_status *col_status;
    struct basalt_error *col_err;
    int64_t *dict_max_len; /* of the batch being written (writer_bound.c) */
    bool has_variant;   /* some column holds a parquet.variant: batches are checked */
    int64_t offset;     /* bytes written */
    int64_t rg_rows;    /* rows in the row group being built */
    int64_t num_rows;
    /* finished row groups */
    struct basalt_arena arena;
    struct basalt_parquet_row_group *groups;
    struct basalt_parquet_column_chunk **group_columns; /* groups[i].columns, writable */
    size_t num_groups, cap_groups;
    struct basalt_buffer user_kv; /* copy of options.key_value_metadata */
    /* the page index, written before the footer */
    struct basalt_buffer column_index;
    struct basalt_buffer offset_index;
    struct basalt_buffer bloom;   /* a row group's filters, written after its chunks */
    struct basalt_parquet_wcrypto *crypto; /* NULL: a plaintext file */
};

void basalt_parquet_writer_options_init(struct basalt_parquet_writer_options *options)
{
    memset(options, 0, sizeof *options);
    options->codec = BASALT_CODEC_ZSTD;
    options->codec_level = BASALT_CODEC_LEVEL_DEFAULT;
    options->row_group_rows = 1 << 20;
    options->row_group_bytes = INT64_C(128) << 20;
    options->page_bytes = 1 << 20;
    options->page_rows = 20000;
    options->dictionary = true;
    options->dictionary_max_bytes = 1 << 20;
    options->page_version = 1;
    options->max_statistics_size = 64;
    options->page_index = true;
    options->bloom_fpp = 0.01;
}

int32_t basalt_parquet_writer_codec_id(enum basalt_codec_kind kind)
{
    switch (kind) {
    case BASALT_CODEC_UNCOMPRESSED:
        return BASALT_PARQUET_COMPRESSION_CODEC_UNCOMPRESSED;
    case BASALT_CODEC_SNAPPY:
        return BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY;
    case BASALT_CODEC_GZIP:
        return BASALT_PARQUET_COMPRESSION_CODEC_GZIP;
    case BASALT_CODEC_BROTLI:
        return BASALT_PARQUET_COMPRESSION_CODEC_BROTLI;
    case BASALT_CODEC_LZ4_HADOOP:
        return BASALT_PARQUET_COMPRESSION_CODEC_LZ4;
    case BASALT_CODEC_ZSTD:
        return BASALT_PARQUET_COMPRESSION_CODEC_ZSTD;
    case BASALT_CODEC_LZ4_RAW:
        return BASALT_PARQUET_COMPRESSION_CODEC_LZ4_RAW;
    default:
        return -1;
    }
}

static bool encoding_fits(const struct basalt_parquet_wcolumn *col, int32_t enc)
{
    int32_t t = col->physical;
    switch (enc) {
    case BASALT_PARQUET_ENCODING_PLAIN:
        return true;
    case BASALT_PARQUET_ENCODING_RLE_DICTIONARY:
        return t != BASALT_PARQUET_TYPE_BOOLEAN;
    case BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED:
        return t == BASALT_PARQUET_TYPE_INT32 || t == BASALT_PARQUET_TYPE_INT64;
    case BASALT_PARQUET_ENCODING_DELTA_LENGTH_BYTE_ARRAY:
        return t == BASALT_PARQUET_TYPE_BYTE_ARRAY;
    case BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY:
        return t == BASALT_PARQUET_TYPE_BYTE_ARRAY || t == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY;
    case BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT:
        return t != BASALT_PARQUET_TYPE_BOOLEAN && t != BASALT_PARQUET_TYPE_BYTE_ARRAY;
    default:
        return false;
    }
}

static basalt_status check_options(const struct basalt_parquet_writer_options *o,
                                   struct basalt_error *err)
{
    if (basalt_parquet_writer_codec_id(o->codec) < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "codec %s has no Parquet codec",
                                basalt_codec_name(o->codec));
    if (o->row_group_rows < 0 || o->row_group_bytes < 0 ||
        (o->row_group_rows == 0 && o->row_group_bytes == 0))
        return basalt_error_set(err, BASALT_INVALID_ARG, "bad row group size");
    if (o->page_bytes <= 0 || o->page_rows <= 0 || o->page_rows > INT32_MAX)
        return basalt_error_set(err, BASALT_INVALID_ARG, "bad page size");
    if (o->dictionary_max_bytes <= 0 || o->dictionary_max_bytes > INT32_MAX)
        return basalt_error_set(err, BASALT_INVALID_ARG, "bad dictionary size limit");
    if (o->page_version != 1 && o->page_version != 2)
        return basalt_error_set(err, BASALT_INVALID_ARG, "page version must be 1 or 2");
    if (o->num_column_encodings > 0 && !o->column_encodings)
        return basalt_error_set(err, BASALT_INVALID_ARG, "column encodings missing");
    if (o->num_bloom_columns > 0 && !o->bloom_columns)
        return basalt_error_set(err, BASALT_INVALID_ARG, "bloom columns missing");
    if (!(o->bloom_fpp > 0.0 && o->bloom_fpp < 1.0))
        return basalt_error_set(err, BASALT_INVALID_ARG, "bloom_fpp must be in (0, 1)");
    return BASALT_OK;
}

static basalt_status fail(struct basalt_parquet_writer *w, basalt_status st)
{
    if (st != BASALT_OK)
        w->failed = true;
    return st;
}

basalt_status basalt_parquet_writer_open(struct basalt_output *output, bool take_output,
                                         const struct ArrowSchema *schema,
                                         const struct basalt_parquet_writer_options *options,
                                         struct basalt_parquet_writer **out,
                                         struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!output || !schema || !out || !schema->release) {
        if (take_output)
            basalt_output_close(output);
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet writer: NULL argument");
    }
    struct basalt_parquet_writer *w = basalt_calloc(1, sizeof *w);
    if (!w) {
        if (take_output)
            basalt_output_close(output);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    w->out = output;
    w->own_output = take_output;
    basalt_arena_init(&w->arena, 16384);
    basalt_buffer_init(&w->user_kv);
    basalt_buffer_init(&w->column_index);
    basalt_buffer_init(&w->offset_index);
    basalt_buffer_init(&w->bloom);
    if (options)
        w->options = *options;
    else
        basalt_parquet_writer_options_init(&w->options);
    w->options.column_encodings = NULL;
    w->options.num_column_encodings = 0;
    w->options.key_value_metadata = NULL;
    w->options.bloom_columns = NULL;
    w->options.num_bloom_columns = 0;
    w->options.encryption = NULL;
    basalt_status st = check_options(options ? options : &w->options, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_validate(schema, err);
    if (st == BASALT_OK && strcmp(schema->format, "+s") != 0)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "parquet writer: schema is not a struct");
    if (st == BASALT_OK && schema->n_children > INT32_MAX / 2)
        st = basalt_error_set(err, BASALT_LIMIT, "parquet writer: too many columns");
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(schema, &w->schema, err);
    if (st == BASALT_OK)
        w->has_variant = basalt_parquet_wvariant_present(schema);
    if (st == BASALT_OK && options && options->key_value_metadata) {
        size_t size;
        st = basalt_arrow_metadata_size(options->key_value_metadata, &size, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&w->user_kv, options->key_value_metadata, size, err);
    }
    if (st == BASALT_OK && (w->options.num_workers < 0 || w->options.num_workers > 1024))
        st = basalt_error_set(err, BASALT_INVALID_ARG, "parquet writer: bad num_workers");
    if (st != BASALT_OK) {
        basalt_parquet_writer_close(w);
        return st;
    }
    w->pool = w->options.pool;
    w->workers = basalt_pool_workers(w->pool);
    if (w->options.num_workers > 0 && w->options.num_workers < w->workers)
        w->workers = w->options.num_workers;
    w->codecs = basalt_calloc((size_t)w->workers, sizeof *w->codecs);
    w->ctx = basalt_calloc((size_t)w->workers, sizeof *w->ctx);
    if (!w->codecs || !w->ctx) {
        basalt_parquet_writer_close(w);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int k = 0; k < w->workers; k++) {
        st = basalt_codec_new(w->options.codec, w->options.codec_level, &w->codecs[k], err);
        if (st != BASALT_OK) {
            basalt_parquet_writer_close(w);
            return st;
        }
        basalt_parquet_wctx_init(&w->ctx[k], &w->options, w->codecs[k]);
    }
    int32_t n = 0;
    st = basalt_parquet_wschema_build(schema, &w->arena, &w->elements, &w->num_elements, &w->cols,
                                      &n, err);
    w->ncols = n;
    for (int k = 0; k < w->workers; k++)
        w->ctx[k].num_columns = n;
    w->chunks = basalt_calloc((size_t)n + 1, sizeof *w->chunks);
    w->col_status = basalt_calloc((size_t)n + 1, sizeof *w->col_status);
    w->col_err = basalt_calloc((size_t)n + 1, sizeof *w->col_err);
    w->dict_max_len = basalt_calloc((size_t)n + 1, sizeof *w->dict_max_len);
    if (st == BASALT_OK && (!w->chunks || !w->col_status || !w->col_err || !w->dict_max_len))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t i = 0; w->chunks && i < n; i++)
        basalt_parquet_wchunk_init(&w->chunks[i], &w->cols[i]);
    if (st != BASALT_OK) {
        basalt_parquet_writer_close(w);
        return st;
    }
    for (size_t k = 0; st == BASALT_OK && options && k < options->num_column_encodings; k++) {
        const struct basalt_parquet_writer_column_encoding *ce = &options->column_encodings[k];
        int32_t i = 0;
        while (i < n && (!ce->column || strcmp(ce->column, w->cols[i].name) != 0))
            i++;
        if (i == n)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "parquet writer: column '%s' not found",
                                  ce->column ? ce->column : "(null)");
        else if (!encoding_fits(&w->cols[i], ce->encoding))
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "parquet writer: column '%s': encoding %d does not fit its type",
                                  ce->column, (int)ce->encoding);
        else
            w->cols[i].encoding = ce->encoding;
    }
    for (size_t k = 0; st == BASALT_OK && options && k < options->num_bloom_columns; k++) {
        const char *name = options->bloom_columns ? options->bloom_columns[k] : NULL;
        int32_t i = 0;
        while (i < n && (!name || strcmp(name, w->cols[i].name) != 0))
            i++;
        if (i == n)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "parquet writer: column '%s' not found",
                                  name ? name : "(null)");
        else if (w->cols[i].physical == BASALT_PARQUET_TYPE_BOOLEAN)
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "parquet writer: column '%s': no bloom filter for booleans",
                                  name);
        else
            w->cols[i].bloom = true;
    }
    if (st == BASALT_OK && options && options->encryption)
        st = basalt_parquet_wcrypto_new(options->encryption, w->cols, n, &w->crypto, err);
    /* An encrypted footer announces itself at both ends. */
    bool pare = w->crypto && !w->crypto->plaintext_footer;
    if (st == BASALT_OK)
        st = basalt_output_write(w->out, pare ? "PARE" : "PAR1", 4, err);
    if (st != BASALT_OK) {
        basalt_parquet_writer_close(w);
        return st;
    }
    w->offset = 4;
    *out = w;
    return BASALT_OK;
}

basalt_status basalt_parquet_writer_open_file(const char *path, const struct ArrowSchema *schema,
                                              const struct basalt_parquet_writer_options *options,
                                              struct basalt_parquet_writer **out,
                                              struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!path)
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet writer: NULL path");
    struct basalt_output *o;
    basalt_status st = basalt_output_open_file(path, &o, err);
    if (st != BASALT_OK)
        return st;
    return basalt_parquet_writer_open(o, true, schema, options, out, err);
}

/* Rows are appended to the chunks in slices this long, and row groups are
 * cut by bytes at slice ends only, so the file is the same for any number
 * of workers. Slices are encoded in runs, each column's slices of a run in
 * one task on the pool: a run ends where a cut could fall (run_rows). */
#define SLICE_ROWS 4096

struct encode_task {
    struct basalt_parquet_writer *w;
    const struct ArrowArray *batch;
    int64_t start, count; /* rows of the batch; count 0: finish the pending page */
};

static basalt_status append_run(struct basalt_parquet_writer *w, int32_t i,
                                const struct encode_task *t, int worker, struct basalt_error *err)
{
    const struct ArrowArray *array = t->batch->children[w->cols[i].top];
    for (int64_t done = 0; done < t->count; done += SLICE_ROWS) {
        int64_t n = t->count - done < SLICE_ROWS ? t->count - done : SLICE_ROWS;
        basalt_status st = basalt_parquet_wchunk_append(&w->chunks[i], &w->cols[i], array,
                                                        t->batch->offset + t->start + done, n,
                                                        &w->ctx[worker], err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void encode_column(void *arg, int64_t begin, int64_t end, int worker)
{
    struct encode_task *t = arg;
    struct basalt_parquet_writer *w = t->w;
    for (int64_t i = begin; i < end; i++) {
        struct basalt_error *e = &w->col_err[i];
        basalt_status st;
        if (t->count > 0)
            st = append_run(w, (int32_t)i, t, worker, e);
        else
            st = basalt_parquet_wchunk_flush_page(&w->chunks[i], &w->cols[i], &w->ctx[worker],
                                                  true, e);
        w->col_status[i] = st;
    }
}

/* Runs the task over every column; the first failing column, in column
 * order, gives the status. */
static basalt_status encode_columns(struct basalt_parquet_writer *w, struct encode_task *t,
                                    struct basalt_error *err)
{
    for (int32_t i = 0; i < w->ncols; i++) {
        w->col_status[i] = BASALT_OK;
        basalt_error_init(&w->col_err[i]);
    }
    basalt_pool_parallel_for(w->pool, w->workers, w->ncols, 1, encode_column, t);
    for (int32_t i = 0; i < w->ncols; i++) {
        if (w->col_status[i] != BASALT_OK) {
            if (err)
                *err = w->col_err[i];
            return basalt_error_context(err, w->col_status[i], "column '%s'", w->cols[i].name);
        }
    }
    return BASALT_OK;
}

static basalt_status flush_row_group(struct basalt_parquet_writer *w, struct basalt_error *err)
{
    if (w->rg_rows == 0)
        return BASALT_OK;
    if (w->num_groups == w->cap_groups) {
        size_t cap = w->cap_groups ? w->cap_groups * 2 : 8;
        struct basalt_parquet_row_group *g = basalt_realloc(w->groups, cap * sizeof *g);
        if (!g)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        w->groups = g;
        struct basalt_parquet_column_chunk **gc =
            basalt_realloc(w->group_columns, cap * sizeof *gc);
        if (!gc)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        w->group_columns = gc;
        w->cap_groups = cap;
    }
    if (w->num_groups >= INT16_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "more than 32767 row groups");
    struct basalt_parquet_column_chunk *cc =
        basalt_arena_alloc(&w->arena, (size_t)w->ncols * sizeof *cc + 1, 8);
    if (!cc)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct encode_task t = {w, NULL, 0, 0};
    basalt_status fst = encode_columns(w, &t, err);
    if (fst != BASALT_OK)
        return basalt_error_context(err, fst, "row group %zu", w->num_groups);
    int64_t start = w->offset, total_bytes = 0;
    for (int32_t i = 0; i < w->ncols; i++) {
        basalt_status st = basalt_parquet_wchunk_write(&w->chunks[i], &w->cols[i], &w->ctx[0], w->out,
                                                       &w->offset, &w->arena,
                                                       w->options.page_index ? &w->column_index
                                                                             : NULL,
                                                       &w->offset_index, &w->bloom, &cc[i],
                                                       err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "row group %zu: column '%s'", w->num_groups,
                                        w->cols[i].name);
        total_bytes += cc[i].meta_data.total_uncompressed_size;
    }
    int64_t chunks_end = w->offset;
    if (w->bloom.size) {
        for (int32_t i = 0; i < w->ncols; i++)
            if (cc[i].meta_data.has_bloom_filter_offset)
                cc[i].meta_data.bloom_filter_offset += w->offset;
        basalt_status st = basalt_output_write(w->out, w->bloom.data, w->bloom.size, err);
        if (st != BASALT_OK)
            return st;
        w->offset += (int64_t)w->bloom.size;
        w->bloom.size = 0;
    }
    for (int32_t i = 0; w->crypto && i < w->ncols; i++) {
        basalt_status st = basalt_parquet_wcrypto_chunk(w->crypto, &w->cols[i],
                                                        (int32_t)w->num_groups, &w->arena, &cc[i],
                                                        err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "row group %zu: column '%s'", w->num_groups,
                                        w->cols[i].name);
    }
    struct basalt_parquet_row_group *g = &w->groups[w->num_groups];
    memset(g, 0, sizeof *g);
    g->columns = cc;
    w->group_columns[w->num_groups] = cc;
    g->num_columns = (size_t)w->ncols;
    g->num_rows = w->rg_rows;
    g->total_byte_size = total_bytes;
    g->has_file_offset = true;
    g->file_offset = start;
    g->has_total_compressed_size = true;
    g->total_compressed_size = chunks_end - start;
    g->has_ordinal = true;
    g->ordinal = (int16_t)w->num_groups;
    w->num_groups++;
    w->rg_rows = 0;
    for (int k = 0; k < w->workers; k++)
        w->ctx[k].row_group = (int32_t)w->num_groups;
    return BASALT_OK;
}

static int64_t buffered_bytes(const struct basalt_parquet_writer *w)
{
    int64_t b = 0;
    for (int32_t i = 0; i < w->ncols; i++)
        b += basalt_parquet_wchunk_bytes(&w->chunks[i]);
    return b;
}

/* The rows from `row` on (at most `avail`) to encode as one run: whole
 * slices while a bound on the bytes they add keeps every slice end but the
 * run's last below the row-group byte cut (the last one is checked after
 * the run as usual), so the file is the one slice-by-slice encoding gives.
 * At least one slice; the run decision depends on the data only. */
static int64_t run_rows(const struct basalt_parquet_writer *w, const struct ArrowArray *batch,
                        int64_t row, int64_t avail)
{
    const struct basalt_parquet_writer_options *o = &w->options;
    if (o->simple_paths) /* the reference: slice by slice */
        return avail < SLICE_ROWS ? avail : SLICE_ROWS;
    if (o->row_group_bytes <= 0)
        return avail;
    int64_t bytes = 0;
    for (int32_t i = 0; i < w->ncols; i++)
        bytes += basalt_parquet_wchunk_bytes_bound(&w->chunks[i]);
    int64_t rows = 0;
    while (rows < avail) {
        int64_t n = avail - rows < SLICE_ROWS ? avail - rows : SLICE_ROWS;
        for (int32_t i = 0; i < w->ncols && bytes < o->row_group_bytes; i++) {
            int64_t g = basalt_parquet_wcolumn_growth_bound(
                &w->cols[i], batch->children[w->cols[i].top], batch->offset + row + rows, n,
                w->dict_max_len[i], o);
            bytes = g < 0 || g >= INT64_MAX - bytes ? INT64_MAX : bytes + g;
        }
        rows += n;
        if (bytes >= o->row_group_bytes)
            break; /* a cut could fall at this slice's end: the run's last */
    }
    return rows;
}

static basalt_status write_batch(struct basalt_parquet_writer *w, const struct ArrowArray *batch,
                                 struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_validate(&w->schema, batch,
                                                   BASALT_ARROW_VALIDATE_DEFAULT, err);
    if (st != BASALT_OK)
        return st;
    if (batch->null_count != 0 && batch->buffers[0] &&
        basalt_bitmap_count(batch->buffers[0], batch->offset, batch->length) != batch->length)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet writer: a record batch with null rows");
    if (w->has_variant) {
        st = basalt_parquet_wvariant_check(&w->schema, batch, err);
        if (st != BASALT_OK)
            return st;
    }
    const struct basalt_parquet_writer_options *o = &w->options;
    for (int32_t i = 0; o->row_group_bytes > 0 && i < w->ncols; i++)
        w->dict_max_len[i] =
            basalt_parquet_wcolumn_dict_max_len(&w->cols[i], batch->children[w->cols[i].top]);
    int64_t row = 0;
    while (row < batch->length) {
        int64_t n = batch->length - row;
        if (o->row_group_rows > 0 && n > o->row_group_rows - w->rg_rows)
            n = o->row_group_rows - w->rg_rows;
        n = run_rows(w, batch, row, n);
        if (n > SLICE_ROWS)
            w->ctx[0].counters.slice_runs++;
        struct encode_task t = {w, batch, row, n};
        st = encode_columns(w, &t, err);
        if (st != BASALT_OK)
            return st;
        row += n;
        w->rg_rows += n;
        w->num_rows += n;
        if ((o->row_group_rows > 0 && w->rg_rows >= o->row_group_rows) ||
            (o->row_group_bytes > 0 && buffered_bytes(w) >= o->row_group_bytes)) {
            st = flush_row_group(w, err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_writer_write(struct basalt_parquet_writer *w,
                                          const struct ArrowArray *batch,
                                          struct basalt_error *err)
{
    if (!w || !batch || !batch->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet writer: NULL or released batch");
    if (w->failed || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet writer: already failed or finished");
    basalt_status st = write_batch(w, batch, err);
    if (st != BASALT_OK)
        return fail(w, basalt_error_context(err, st, "%s", w->out->name ? w->out->name : "parquet"));
    return BASALT_OK;
}

static basalt_status stream_status(struct ArrowArrayStream *stream, int rc,
                                   struct basalt_error *err)
{
    const char *msg = stream->get_last_error ? stream->get_last_error(stream) : NULL;
    basalt_status st = rc == ENOMEM ? BASALT_NOMEM : rc == EINVAL ? BASALT_INVALID_ARG
                       : (rc == ENOSYS || rc == ENOTSUP) ? BASALT_UNSUPPORTED : BASALT_IO;
    return basalt_error_set(err, st, "stream error %d: %s", rc, msg ? msg : "");
}

basalt_status basalt_parquet_writer_write_stream(struct basalt_parquet_writer *w,
                                                 struct ArrowArrayStream *stream,
                                                 struct basalt_error *err)
{
    if (!w || !stream || !stream->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet writer: NULL or released stream");
    if (w->failed || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet writer: already failed or finished");
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    int rc = stream->get_schema(stream, &schema);
    if (rc != 0)
        return fail(w, stream_status(stream, rc, err));
    bool same = schema.n_children == w->ncols;
    basalt_arrow_schema_release(&schema);
    if (!same)
        return fail(w, basalt_error_set(err, BASALT_INVALID_ARG,
                                        "parquet writer: stream schema has other columns"));
    for (;;) {
        struct ArrowArray batch;
        memset(&batch, 0, sizeof batch);
        rc = stream->get_next(stream, &batch);
        if (rc != 0)
            return fail(w, stream_status(stream, rc, err));
        if (!batch.release)
            return BASALT_OK;
        basalt_status st = basalt_parquet_writer_write(w, &batch, err);
        basalt_arrow_array_release(&batch);
        if (st != BASALT_OK)
            return st;
    }
}

static basalt_status build_footer(struct basalt_parquet_writer *w, struct basalt_buffer *footer,
                                  struct basalt_error *err)
{
    struct basalt_parquet_file_metadata md;
    memset(&md, 0, sizeof md);
    md.version = 2;
    int32_t *orders = basalt_arena_alloc(&w->arena, ((size_t)w->ncols + 1) * sizeof *orders, 4);
    if (!orders)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t i = 0; i < w->ncols; i++)
        orders[i] = BASALT_PARQUET_COLUMN_ORDER_TYPE_ORDER;
    md.schema = w->elements;
    md.num_schema = w->num_elements;
    md.num_rows = w->num_rows;
    md.row_groups = w->groups;
    md.num_row_groups = w->num_groups;
    md.has_created_by = true;
    md.created_by.data = "basalt version " BASALT_VERSION_STRING;
    md.created_by.len = strlen(md.created_by.data);
    md.has_column_orders = true;
    md.column_orders = orders;
    md.num_column_orders = (size_t)w->ncols;

    /* key-value metadata: the caller's pairs, then ARROW:schema */
    size_t nkv = 0, cap = 1;
    struct basalt_arrow_metadata_reader r;
    struct basalt_arrow_metadata_item item;
    basalt_status st = basalt_arrow_metadata_reader_init(
        &r, w->user_kv.size ? (const char *)w->user_kv.data : NULL, err);
    if (st != BASALT_OK)
        return st;
    while (basalt_arrow_metadata_reader_next(&r, &item))
        cap++;
    struct basalt_parquet_key_value *kv = basalt_arena_alloc(&w->arena, cap * sizeof *kv, 8);
    if (!kv)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(kv, 0, cap * sizeof *kv);
    basalt_arrow_metadata_reader_init(&r, w->user_kv.size ? (const char *)w->user_kv.data : NULL,
                                      NULL);
    while (basalt_arrow_metadata_reader_next(&r, &item)) {
        kv[nkv].key.data = item.key;
        kv[nkv].key.len = item.key_len;
        kv[nkv].has_value = true;
        kv[nkv].value.data = item.value;
        kv[nkv].value.len = item.value_len;
        nkv++;
    }
    struct basalt_buffer b64;
    basalt_buffer_init(&b64);
    if (!w->options.skip_arrow_schema) {
        st = basalt_arrow_ipc_schema_encode_base64(&w->schema, &b64, err);
        if (st != BASALT_OK) {
            basalt_buffer_reset(&b64);
            return st;
        }
        kv[nkv].key.data = "ARROW:schema";
        kv[nkv].key.len = 12;
        kv[nkv].has_value = true;
        kv[nkv].value.data = (const char *)b64.data;
        kv[nkv].value.len = b64.size;
        nkv++;
    }
    if (nkv) {
        md.has_key_value_metadata = true;
        md.key_value_metadata = kv;
        md.num_key_value_metadata = nkv;
    }
    basalt_parquet_wcrypto_footer_fields(w->crypto, &md);
    st = basalt_thrift_encode_file_metadata(&md, footer, err);
    if (st == BASALT_OK && w->crypto)
        st = basalt_parquet_wcrypto_footer(w->crypto, footer, err);
    basalt_buffer_reset(&b64);
    return st;
}

/* Writes the page index and points the column chunks at it. */
static basalt_status write_page_index(struct basalt_parquet_writer *w, struct basalt_error *err)
{
    if (!w->options.page_index)
        return BASALT_OK;
    int64_t ci_base = w->offset;
    int64_t oi_base = ci_base + (int64_t)w->column_index.size;
    for (size_t g = 0; g < w->num_groups; g++) {
        struct basalt_parquet_column_chunk *cc = w->group_columns[g];
        for (int32_t i = 0; i < w->ncols; i++) {
            if (cc[i].has_column_index_offset)
                cc[i].column_index_offset += ci_base;
            if (cc[i].has_offset_index_offset)
                cc[i].offset_index_offset += oi_base;
        }
    }
    basalt_status st = basalt_output_write(w->out, w->column_index.data, w->column_index.size, err);
    if (st == BASALT_OK)
        st = basalt_output_write(w->out, w->offset_index.data, w->offset_index.size, err);
    if (st == BASALT_OK)
        w->offset = oi_base + (int64_t)w->offset_index.size;
    return st;
}

static basalt_status finish(struct basalt_parquet_writer *w, struct basalt_error *err)
{
    basalt_status st = flush_row_group(w, err);
    if (st == BASALT_OK)
        st = write_page_index(w, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer footer;
    basalt_buffer_init(&footer);
    st = build_footer(w, &footer, err);
    if (st == BASALT_OK && footer.size > UINT32_MAX)
        st = basalt_error_set(err, BASALT_LIMIT, "footer over 4 GiB");
    if (st == BASALT_OK) {
        uint32_t len = (uint32_t)footer.size;
        uint8_t tail[8];
        memcpy(tail, &len, 4);
        memcpy(tail + 4, w->crypto && !w->crypto->plaintext_footer ? "PARE" : "PAR1", 4);
        st = basalt_buffer_append(&footer, tail, 8, err);
    }
    if (st == BASALT_OK)
        st = basalt_output_write(w->out, footer.data, footer.size, err);
    if (st == BASALT_OK)
        w->offset += (int64_t)footer.size;
    basalt_buffer_reset(&footer);
    if (st == BASALT_OK && w->own_output)
        st = basalt_output_commit(w->out, err);
    return st;
}

basalt_status basalt_parquet_writer_finish(struct basalt_parquet_writer *w,
                                           struct basalt_error *err)
{
    if (!w)
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet writer: NULL writer");
    if (w->failed || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet writer: already failed or finished");
    basalt_status st = finish(w, err);
    if (st != BASALT_OK)
        return fail(w, basalt_error_context(err, st, "%s", w->out->name ? w->out->name : "parquet"));
    w->finished = true;
    return BASALT_OK;
}

void basalt_parquet_writer_close(struct basalt_parquet_writer *w)
{
    if (!w)
        return;
    for (int32_t i = 0; i < w->ncols; i++) {
        if (w->chunks)
            basalt_parquet_wchunk_reset(&w->chunks[i]);
        basalt_parquet_wcolumn_reset(&w->cols[i]);
    }
    basalt_free(w->elements);
    basalt_free(w->chunks);
    basalt_free(w->cols);
    for (int k = 0; w->ctx && k < w->workers; k++)
        basalt_parquet_wctx_reset(&w->ctx[k]);
    for (int k = 0; w->codecs && k < w->workers; k++)
        basalt_codec_free(w->codecs[k]);
    basalt_free(w->ctx);
    basalt_free(w->codecs);
    basalt_free(w->col_status);
    basalt_free(w->col_err);
    basalt_free(w->dict_max_len);
    basalt_arrow_schema_release(&w->schema);
    basalt_arena_reset(&w->arena);
    basalt_free(w->groups);
    basalt_free(w->group_columns);
    basalt_buffer_reset(&w->user_kv);
    basalt_buffer_reset(&w->column_index);
    basalt_buffer_reset(&w->offset_index);
    basalt_buffer_reset(&w->bloom);
    basalt_parquet_wcrypto_free(w->crypto);
    if (w->own_output)
        basalt_output_close(w->out);
    basalt_free(w);
}

int64_t basalt_parquet_writer_num_rows(const struct basalt_parquet_writer *w)
{
    return w ? w->num_rows : 0;
}

int32_t basalt_parquet_writer_num_row_groups(const struct basalt_parquet_writer *w)
{
    return w ? (int32_t)w->num_groups : 0;
}

int64_t basalt_parquet_writer_bytes(const struct basalt_parquet_writer *w)
{
    if (!w)
        return 0;
    return w->finished ? w->offset : w->offset + buffered_bytes(w);
}

const struct basalt_parquet_row_group *basalt_parquet_writer_row_groups(
    const struct basalt_parquet_writer *w, size_t *n)
{
    *n = w ? w->num_groups : 0;
    return w ? w->groups : NULL;
}

void basalt_parquet_writer_counters(const struct basalt_parquet_writer *w,
                                    struct basalt_parquet_wcounters *out)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; w && w->ctx && k < w->workers; k++) {
        out->dict_pages += w->ctx[k].counters.dict_pages;
        out->dense_pages += w->ctx[k].counters.dense_pages;
        out->simple_pages += w->ctx[k].counters.simple_pages;
        out->in_place_pages += w->ctx[k].counters.in_place_pages;
        out->level_runs += w->ctx[k].counters.level_runs;
        out->rle_pages += w->ctx[k].counters.rle_pages;
        out->list_walks += w->ctx[k].counters.list_walks;
        out->leaf_views += w->ctx[k].counters.leaf_views;
        out->slice_runs += w->ctx[k].counters.slice_runs;
        out->level_hists += w->ctx[k].counters.level_hists;
    }
}
