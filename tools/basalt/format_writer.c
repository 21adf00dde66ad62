/* Row writers: an aligned table, CSV (RFC 4180) and JSON lines. */
#include <string.h>

#include "format.h"

/* Rows a table keeps to size its columns before it starts printing; wider
 * cells after them simply push the line out. */
#define TABLE_SAMPLE_ROWS 1000

struct cell {
    size_t at, len;
    bool null;
};

struct cli_format_writer {
    FILE *out;
    enum cli_format_kind kind;
    const struct ArrowSchema *schema;
    int32_t *cols;
    int32_t n_cols;
    bool *numeric;
    size_t *width;
    bool header_done;
    struct basalt_buffer text;   /* kept table cells */
    struct cell *cells;          /* kept_rows * n_cols */
    int64_t kept_rows, cap_rows;
    struct basalt_buffer line;
    struct basalt_buffer cell;
};

static const char *col_name(const struct cli_format_writer *w, int32_t c)
{
    const char *n = w->schema->children[w->cols[c]]->name;
    return n ? n : "";
}

basalt_status cli_format_writer_new(FILE *out, enum cli_format_kind kind,
                                    const struct ArrowSchema *schema, const int32_t *columns,
                                    int32_t n_columns, struct cli_format_writer **writer,
                                    struct basalt_error *err)
{
    *writer = NULL;
    struct cli_format_writer *w = basalt_calloc(1, sizeof *w);
    if (!w)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a writer");
    int32_t n = columns ? n_columns : (int32_t)schema->n_children;
    w->out = out;
    w->kind = kind;
    w->schema = schema;
    w->n_cols = n;
    w->cols = basalt_calloc((size_t)n + 1, sizeof *w->cols);
    w->numeric = basalt_calloc((size_t)n + 1, sizeof *w->numeric);
    w->width = basalt_calloc((size_t)n + 1, sizeof *w->width);
    basalt_buffer_init(&w->text);
    basalt_buffer_init(&w->line);
    basalt_buffer_init(&w->cell);
    if (!w->cols || !w->numeric || !w->width) {
        cli_format_writer_free(w);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a writer");
    }
    for (int32_t c = 0; c < n; c++) {
        w->cols[c] = columns ? columns[c] : c;
        w->numeric[c] = cli_format_numeric(schema->children[w->cols[c]]);
    }
    *writer = w;
    return BASALT_OK;
}

void cli_format_writer_free(struct cli_format_writer *w)
{
    if (!w)
        return;
    basalt_free(w->cols);
    basalt_free(w->numeric);
    basalt_free(w->width);
    basalt_free(w->cells);
    basalt_buffer_reset(&w->text);
    basalt_buffer_reset(&w->line);
    basalt_buffer_reset(&w->cell);
    basalt_free(w);
}

static basalt_status emit(struct cli_format_writer *w, struct basalt_error *err)
{
    if (w->line.size && fwrite(w->line.data, 1, w->line.size, w->out) != w->line.size)
        return basalt_error_set(err, BASALT_IO, "write failed");
    w->line.size = 0;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ table */

/* Characters shown, counting UTF-8 sequences once. */
static size_t display_width(const uint8_t *p, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += (p[i] & 0xc0) != 0x80;
    return w;
}

/* A cell with control characters made visible, so rows stay on one line. */
static basalt_status table_cell_text(struct basalt_buffer *dst, const uint8_t *p, size_t n,
                                     struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    size_t run = 0;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        const char *esc = p[i] == '\n' ? "\\n" : p[i] == '\t' ? "\\t" : p[i] == '\r' ? "\\r" : NULL;
        if (!esc)
            continue;
        st = basalt_buffer_append(dst, p + run, i - run, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(dst, esc, 2, err);
        run = i + 1;
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(dst, p + run, n - run, err);
    return st;
}

static basalt_status pad(struct basalt_buffer *b, size_t n, struct basalt_error *err)
{
    static const char spaces[] = "                                ";
    basalt_status st = BASALT_OK;
    while (n > 0 && st == BASALT_OK) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        st = basalt_buffer_append(b, spaces, k, err);
        n -= k;
    }
    return st;
}

static basalt_status table_line(struct cli_format_writer *w, const uint8_t *const *texts,
                                const size_t *lens, bool header, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    size_t trailing = 0; /* padding owed before the next cell */
    for (int32_t c = 0; c < w->n_cols && st == BASALT_OK; c++) {
        size_t shown = display_width(texts[c], lens[c]);
        size_t room = w->width[c] > shown ? w->width[c] - shown : 0;
        if (c > 0)
            st = pad(&w->line, trailing + 2, err);
        trailing = 0;
        if (st == BASALT_OK && w->numeric[c] && !header)
            st = pad(&w->line, room, err);
        else
            trailing = room;
        if (st == BASALT_OK)
            st = basalt_buffer_append(&w->line, texts[c], lens[c], err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&w->line, "\n", 1, err);
    return st == BASALT_OK ? emit(w, err) : st;
}

static basalt_status table_header(struct cli_format_writer *w, struct basalt_error *err)
{
    const uint8_t **texts = basalt_calloc((size_t)w->n_cols + 1, sizeof *texts);
    size_t *lens = basalt_calloc((size_t)w->n_cols + 1, sizeof *lens);
    struct basalt_buffer dashes;
    basalt_buffer_init(&dashes);
    basalt_status st = BASALT_OK;
    if (!texts || !lens)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a table");
    size_t widest = 0;
    for (int32_t c = 0; c < w->n_cols && st == BASALT_OK; c++) {
        const char *name = col_name(w, c);
        texts[c] = (const uint8_t *)name;
        lens[c] = strlen(name);
        widest = w->width[c] > widest ? w->width[c] : widest;
    }
    if (st == BASALT_OK)
        st = table_line(w, texts, lens, true, err);
    if (st == BASALT_OK)
        st = basalt_buffer_resize(&dashes, widest + 1, err);
    if (st == BASALT_OK) {
        memset(dashes.data, '-', widest + 1);
        for (int32_t c = 0; c < w->n_cols; c++) {
            texts[c] = dashes.data;
            lens[c] = w->width[c];
        }
        st = table_line(w, texts, lens, true, err);
    }
    basalt_buffer_reset(&dashes);
    basalt_free(texts);
    basalt_free(lens);
    w->header_done = true;
    return st;
}

/* Prints the kept rows (sizing the columns first if the header is not out). */
static basalt_status table_flush(struct cli_format_writer *w, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (!w->header_done) {
        for (int32_t c = 0; c < w->n_cols; c++) {
            const char *name = col_name(w, c);
            w->width[c] = display_width((const uint8_t *)name, strlen(name));
            for (int64_t r = 0; r < w->kept_rows; r++) {
                const struct cell *x = &w->cells[r * w->n_cols + c];
                size_t shown = display_width(w->text.data + x->at, x->len);
                if (shown > w->width[c])
                    w->width[c] = shown;
            }
        }
        st = table_header(w, err);
    }
    const uint8_t **texts = basalt_calloc((size_t)w->n_cols + 1, sizeof *texts);
    size_t *lens = basalt_calloc((size_t)w->n_cols + 1, sizeof *lens);
    if (st == BASALT_OK && (!texts || !lens))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a table");
    for (int64_t r = 0; r < w->kept_rows && st == BASALT_OK; r++) {
        for (int32_t c = 0; c < w->n_cols; c++) {
            const struct cell *x = &w->cells[r * w->n_cols + c];
            texts[c] = w->text.data + x->at;
            lens[c] = x->len;
        }
        st = table_line(w, texts, lens, false, err);
    }
    basalt_free(texts);
    basalt_free(lens);
    w->kept_rows = 0;
    w->text.size = 0;
    return st;
}

static basalt_status table_row(struct cli_format_writer *w, const struct ArrowArray *batch,
                               int64_t row, struct basalt_error *err)
{
    if (w->kept_rows == w->cap_rows) {
        int64_t cap = w->cap_rows ? w->cap_rows * 2 : 64;
        struct cell *c = basalt_realloc(w->cells, sizeof *c * (size_t)(cap * w->n_cols + 1));
        if (!c)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a table");
        w->cells = c;
        w->cap_rows = cap;
    }
    basalt_status st = BASALT_OK;
    for (int32_t c = 0; c < w->n_cols && st == BASALT_OK; c++) {
        int32_t k = w->cols[c];
        w->cell.size = 0;
        bool null = false;
        st = cli_format_cell_value(w->schema->children[k], batch->children[k],
                                   batch->offset + row, &w->cell, &null, err);
        struct cell *x = &w->cells[w->kept_rows * w->n_cols + c];
        x->at = w->text.size;
        x->null = null;
        if (st == BASALT_OK) {
            if (null)
                st = basalt_buffer_append(&w->text, "NULL", 4, err);
            else
                st = table_cell_text(&w->text, w->cell.data, w->cell.size, err);
        }
        x->len = w->text.size - x->at;
    }
    if (st != BASALT_OK)
        return st;
    w->kept_rows++;
    if (w->kept_rows >= TABLE_SAMPLE_ROWS || w->header_done)
        return table_flush(w, err);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ CSV */

static basalt_status csv_field(struct basalt_buffer *b, const uint8_t *p, size_t n, bool quote_empty,
                               struct basalt_error *err)
{
    bool quote = quote_empty && n == 0;
    for (size_t i = 0; i < n && !quote; i++)
        quote = p[i] == ',' || p[i] == '"' || p[i] == '\n' || p[i] == '\r';
    if (!quote)
        return basalt_buffer_append(b, p, n, err);
    basalt_status st = basalt_buffer_append(b, "\"", 1, err);
    size_t run = 0;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        if (p[i] != '"')
            continue;
        st = basalt_buffer_append(b, p + run, i + 1 - run, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(b, "\"", 1, err);
        run = i + 1;
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, p + run, n - run, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, "\"", 1, err);
    return st;
}

static basalt_status csv_header(struct cli_format_writer *w, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int32_t c = 0; c < w->n_cols && st == BASALT_OK; c++) {
        if (c)
            st = basalt_buffer_append(&w->line, ",", 1, err);
        const char *name = col_name(w, c);
        if (st == BASALT_OK)
            st = csv_field(&w->line, (const uint8_t *)name, strlen(name), false, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&w->line, "\n", 1, err);
    w->header_done = true;
    return st == BASALT_OK ? emit(w, err) : st;
}

static basalt_status csv_row(struct cli_format_writer *w, const struct ArrowArray *batch,
                             int64_t row, struct basalt_error *err)
{
    basalt_status st = w->header_done ? BASALT_OK : csv_header(w, err);
    for (int32_t c = 0; c < w->n_cols && st == BASALT_OK; c++) {
        if (c)
            st = basalt_buffer_append(&w->line, ",", 1, err);
        int32_t k = w->cols[c];
        w->cell.size = 0;
        bool null = false;
        if (st == BASALT_OK)
            st = cli_format_cell_value(w->schema->children[k], batch->children[k],
                                       batch->offset + row, &w->cell, &null, err);
        /* An empty string is "" so that it differs from a null. */
        if (st == BASALT_OK && !null)
            st = csv_field(&w->line, w->cell.data, w->cell.size, true, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&w->line, "\n", 1, err);
    return st == BASALT_OK ? emit(w, err) : st;
}

/* ------------------------------------------------------------------ JSON */

static basalt_status json_row(struct cli_format_writer *w, const struct ArrowArray *batch,
                              int64_t row, struct basalt_error *err)
{
    basalt_status st = basalt_buffer_append(&w->line, "{", 1, err);
    for (int32_t c = 0; c < w->n_cols && st == BASALT_OK; c++) {
        int32_t k = w->cols[c];
        if (c)
            st = basalt_buffer_append(&w->line, ",", 1, err);
        const char *name = col_name(w, c);
        if (st == BASALT_OK)
            st = cli_format_json_string(&w->line, (const uint8_t *)name, strlen(name), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&w->line, ":", 1, err);
        if (st == BASALT_OK)
            st = cli_format_json_value(w->schema->children[k], batch->children[k],
                                       batch->offset + row, &w->line, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&w->line, "}\n", 2, err);
    return st == BASALT_OK ? emit(w, err) : st;
}

/* ------------------------------------------------------------------ dispatch */

basalt_status cli_format_writer_row(struct cli_format_writer *w, const struct ArrowArray *batch,
                                    int64_t row, struct basalt_error *err)
{
    w->line.size = 0;
    switch (w->kind) {
    case CLI_FORMAT_CSV: return csv_row(w, batch, row, err);
    case CLI_FORMAT_JSON: return json_row(w, batch, row, err);
    default: return table_row(w, batch, row, err);
    }
}

basalt_status cli_format_writer_finish(struct cli_format_writer *w, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    w->line.size = 0;
    if (w->kind == CLI_FORMAT_TABLE && (w->kept_rows > 0 || !w->header_done))
        st = table_flush(w, err);
    else if (w->kind == CLI_FORMAT_CSV && !w->header_done)
        st = csv_header(w, err);
    if (st == BASALT_OK && fflush(w->out) != 0)
        st = basalt_error_set(err, BASALT_IO, "write failed");
    return st;
}
