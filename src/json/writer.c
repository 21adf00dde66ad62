/* The JSON-lines writer: one object per row, values as render.c renders
 * them, gathered in a buffer and written to the output in large pieces. */
#include "json_internal.h"

struct basalt_json_writer {
    struct basalt_output *out;
    bool own_output;
    struct ArrowSchema schema;
    char **keys;          /* "\"name\":" of each column, JSON-escaped */
    size_t *key_lens;
    int64_t n_columns;
    struct basalt_buffer buf;
    size_t buffer_size;
    int64_t rows;
    bool failed, finished;
};

void basalt_json_write_options_init(struct basalt_json_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->buffer_size = 1u << 20;
}

/* Whether the writer can render every value of `s` (checked once at open,
 * so a batch never fails half-written over a type). */
static basalt_status check_type(const struct ArrowSchema *s, int depth, struct basalt_error *err)
{
    if (depth > 64)
        return basalt_error_set(err, BASALT_LIMIT, "columns nested deeper than 64 levels");
    if (s->dictionary)
        return check_type(s->dictionary, depth + 1, err);
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    switch (t.id) {
    case BASALT_ARROW_TYPE_SPARSE_UNION:
    case BASALT_ARROW_TYPE_DENSE_UNION:
    case BASALT_ARROW_TYPE_RUN_END_ENCODED:
    case BASALT_ARROW_TYPE_BINARY_VIEW:
    case BASALT_ARROW_TYPE_STRING_VIEW:
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW:
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column '%.100s': no JSON form for Arrow type '%.40s'",
                                s->name ? s->name : "", s->format);
    default: break;
    }
    for (int64_t i = 0; i < s->n_children; i++)
        if ((st = check_type(s->children[i], depth + 1, err)) != BASALT_OK)
            return st;
    return BASALT_OK;
}

basalt_status basalt_json_writer_open(struct basalt_output *output, bool take_output,
                                      const struct ArrowSchema *schema,
                                      const struct basalt_json_write_options *options,
                                      struct basalt_json_writer **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    struct basalt_json_write_options defaults;
    if (!options) {
        basalt_json_write_options_init(&defaults);
        options = &defaults;
    }
    basalt_status st = BASALT_OK;
    if (!output || !schema || !out || !schema->format || strcmp(schema->format, "+s") != 0)
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "json writer: NULL argument or a schema that is not a struct");
    for (int64_t i = 0; st == BASALT_OK && i < schema->n_children; i++)
        st = check_type(schema->children[i], 1, err);
    struct basalt_json_writer *w = NULL;
    if (st == BASALT_OK && !(w = basalt_calloc(1, sizeof *w)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK) {
        if (take_output)
            basalt_output_close(output);
        return st;
    }
    w->out = output;
    w->own_output = take_output;
    w->buffer_size = options->buffer_size ? options->buffer_size : 1u << 20;
    basalt_buffer_init(&w->buf);
    w->n_columns = schema->n_children;
    st = basalt_arrow_schema_copy(schema, &w->schema, err);
    if (st == BASALT_OK) {
        w->keys = basalt_calloc((size_t)w->n_columns + 1, sizeof *w->keys);
        w->key_lens = basalt_calloc((size_t)w->n_columns + 1, sizeof *w->key_lens);
        if (!w->keys || !w->key_lens)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int64_t c = 0; st == BASALT_OK && c < w->n_columns; c++) {
        struct basalt_buffer k;
        basalt_buffer_init(&k);
        const char *name = schema->children[c]->name ? schema->children[c]->name : "";
        st = basalt_buffer_append(&k, c ? "," : "{", 1, err);
        if (st == BASALT_OK)
            st = basalt_json_append_string(&k, (const uint8_t *)name, strlen(name), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&k, ":", 1, err);
        w->key_lens[c] = k.size;
        w->keys[c] = (char *)basalt_buffer_take(&k);
        if (st == BASALT_OK && !w->keys[c])
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st != BASALT_OK) {
        basalt_json_writer_close(w);
        return st;
    }
    *out = w;
    return BASALT_OK;
}

static basalt_status drain(struct basalt_json_writer *w, struct basalt_error *err)
{
    if (w->buf.size == 0)
        return BASALT_OK;
    basalt_status st = basalt_output_write(w->out, w->buf.data, w->buf.size, err);
    w->buf.size = 0;
    return st;
}

basalt_status basalt_json_writer_write(struct basalt_json_writer *w, const struct ArrowArray *batch,
                                       struct basalt_error *err)
{
    if (!w || !batch || w->failed || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "json writer: NULL argument, or a writer that failed or finished");
    if (!batch->release || batch->n_children != w->n_columns)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "json writer: a batch of %lld columns for %lld",
                                (long long)batch->n_children, (long long)w->n_columns);
    basalt_status st = BASALT_OK;
    const uint8_t *valid = batch->n_buffers > 0 ? batch->buffers[0] : NULL;
    for (int64_t r = 0; r < batch->length && st == BASALT_OK; r++) {
        /* a null row of the batch struct is a row of nulls */
        bool null_row = valid && !basalt_bitmap_get(valid, batch->offset + r);
        for (int64_t c = 0; c < w->n_columns && st == BASALT_OK; c++) {
            st = basalt_buffer_append(&w->buf, w->keys[c], w->key_lens[c], err);
            if (st != BASALT_OK)
                break;
            if (null_row)
                st = basalt_buffer_append(&w->buf, "null", 4, err);
            else
                st = basalt_json_render_value(w->schema.children[c], batch->children[c],
                                              batch->offset + r, &w->buf, err);
        }
        if (st == BASALT_OK)
            st = basalt_buffer_append(&w->buf, w->n_columns ? "}\n" : "{}\n",
                                      w->n_columns ? 2 : 3, err);
        if (st == BASALT_OK && w->buf.size >= w->buffer_size)
            st = drain(w, err);
        if (st == BASALT_OK)
            w->rows++;
    }
    if (st != BASALT_OK)
        w->failed = true;
    return st;
}

basalt_status basalt_json_writer_finish(struct basalt_json_writer *w, struct basalt_error *err)
{
    if (!w || w->failed || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "json writer: NULL, or a writer that failed or finished");
    basalt_status st = drain(w, err);
    if (st == BASALT_OK && w->own_output)
        st = basalt_output_commit(w->out, err);
    if (st != BASALT_OK)
        w->failed = true;
    else
        w->finished = true;
    return st;
}

void basalt_json_writer_close(struct basalt_json_writer *w)
{
    if (!w)
        return;
    if (w->own_output)
        basalt_output_close(w->out);
    for (int64_t c = 0; w->keys && c < w->n_columns; c++)
        basalt_free(w->keys[c]);
    basalt_free(w->keys);
    basalt_free(w->key_lens);
    basalt_arrow_schema_release(&w->schema);
    basalt_buffer_reset(&w->buf);
    basalt_free(w);
}

int64_t basalt_json_writer_num_rows(const struct basalt_json_writer *w)
{
    return w ? w->rows : 0;
}
