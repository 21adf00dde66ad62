/* The CSV writer: Arrow record batches to RFC 4180 text on an output. */
#include <stdio.h>

#include "csv_internal.h"

struct wcol {
    struct basalt_arrow_type type;   /* the value type (of the dictionary, when there is one) */
    char *format;                    /* owned copies: type's views point into them */
    char *value_format;
    bool dict;
    struct basalt_arrow_type index_type;
};

struct basalt_csv_writer {
    struct basalt_output *out;
    bool own;
    char delim, quote;
    bool crlf;
    char *null;
    size_t null_len;
    size_t buffer_size;
    int32_t n_columns;
    struct wcol *cols;
    struct basalt_buffer buf;
    int64_t rows;
    bool failed, finished;
};

void basalt_csv_write_options_init(struct basalt_csv_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->delimiter = ',';
    o->quote = '"';
    o->header = true;
    o->null = "";
    o->buffer_size = 1u << 20;
}

static bool writable(enum basalt_arrow_type_id id)
{
    switch (id) {
    case BASALT_ARROW_TYPE_NULL:
    case BASALT_ARROW_TYPE_BOOL:
    case BASALT_ARROW_TYPE_INT8:
    case BASALT_ARROW_TYPE_UINT8:
    case BASALT_ARROW_TYPE_INT16:
    case BASALT_ARROW_TYPE_UINT16:
    case BASALT_ARROW_TYPE_INT32:
    case BASALT_ARROW_TYPE_UINT32:
    case BASALT_ARROW_TYPE_INT64:
    case BASALT_ARROW_TYPE_UINT64:
    case BASALT_ARROW_TYPE_FLOAT:
    case BASALT_ARROW_TYPE_DOUBLE:
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DATE32:
    case BASALT_ARROW_TYPE_DATE64:
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_TIME64:
    case BASALT_ARROW_TYPE_TIMESTAMP: return true;
    default: return false;
    }
}

static basalt_status flush(struct basalt_csv_writer *w, struct basalt_error *err)
{
    if (w->buf.size == 0)
        return BASALT_OK;
    basalt_status st = basalt_output_write(w->out, w->buf.data, w->buf.size, err);
    w->buf.size = 0;
    return st;
}

static inline basalt_status put_bytes(struct basalt_csv_writer *w, const void *p, size_t n,
                                      struct basalt_error *err)
{
    if (w->buf.capacity - w->buf.size < n) {
        basalt_status st = basalt_buffer_reserve(&w->buf, n, err);
        if (st != BASALT_OK)
            return st;
    }
    memcpy(w->buf.data + w->buf.size, p, n);
    w->buf.size += n;
    return BASALT_OK;
}

/* Writes text, quoted when it must be. */
static basalt_status put_text(struct basalt_csv_writer *w, const uint8_t *s, size_t n,
                              struct basalt_error *err)
{
    bool need = n == w->null_len && memcmp(s, w->null, n) == 0;
    if (n && (s[0] == ' ' || s[n - 1] == ' '))
        need = true;
    size_t quotes = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == (uint8_t)w->delim || c == '\n' || c == '\r')
            need = true;
        else if (c == (uint8_t)w->quote)
            quotes++;
    }
    if (!need && !quotes)
        return put_bytes(w, s, n, err);
    basalt_status st = basalt_buffer_reserve(&w->buf, n + quotes + 2, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *o = w->buf.data + w->buf.size;
    *o++ = (uint8_t)w->quote;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == (uint8_t)w->quote)
            *o++ = (uint8_t)w->quote;
        *o++ = s[i];
    }
    *o++ = (uint8_t)w->quote;
    w->buf.size = (size_t)(o - w->buf.data);
    return BASALT_OK;
}

static size_t fmt_u64(uint64_t v, char *out)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static size_t fmt_i64(int64_t v, char *out)
{
    if (v < 0) {
        out[0] = '-';
        return 1 + fmt_u64(0 - (uint64_t)v, out + 1);
    }
    return fmt_u64((uint64_t)v, out);
}

/* The shortest text that reads back as d, laid out as "%.15g" (or "%.16g",
 * "%.17g" where it needs more digits) lays it out; "nan", "inf", "-inf";
 * integral values get ".0" (so they read back as floating point). Writes
 * up to BASALT_FLOAT_TEXT_MAX + 1 bytes, no NUL. */
static size_t fmt_double(double d, char *out)
{
    size_t n = basalt_double_format_g(d, 15, out);
    bool integral = true;
    for (size_t i = 0; i < n && integral; i++)
        integral = out[i] == '-' || (out[i] >= '0' && out[i] <= '9');
    if (integral) {
        memcpy(out + n, ".0", 2);
        n += 2;
    }
    return n;
}

static size_t fmt_decimal(__int128 v, int32_t scale, char *out)
{
    char digits[48];
    size_t n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while ((int32_t)n <= scale)
        digits[n++] = '0';
    size_t k = 0;
    if (neg)
        out[k++] = '-';
    for (size_t i = n; i-- > 0;) {
        out[k++] = digits[i];
        if (scale > 0 && i == (size_t)scale)
            out[k++] = '.';
    }
    return k;
}

static size_t fmt_date(int64_t days, char *out)
{
    int64_t y;
    unsigned m, d;
    basalt_csv_civil_from_days(days, &y, &m, &d);
    if (y >= 0 && y <= 9999)
        return (size_t)sprintf(out, "%04d-%02u-%02u", (int)y, m, d);
    return (size_t)sprintf(out, "%lld-%02u-%02u", (long long)y, m, d);
}

/* HH:MM:SS[.fraction] of `sub` units past the second, `digits` digits,
 * trailing zeros dropped. */
static size_t fmt_clock(int64_t secs, int64_t sub, int digits, char *out)
{
    size_t n = (size_t)sprintf(out, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
                               (int)(secs % 60));
    if (sub && digits) {
        char frac[12];
        snprintf(frac, sizeof frac, "%0*lld", digits, (long long)sub);
        int len = digits;
        while (len > 0 && frac[len - 1] == '0')
            len--;
        out[n++] = '.';
        memcpy(out + n, frac, (size_t)len);
        n += (size_t)len;
    }
    return n;
}

static void unit_scale(enum basalt_arrow_time_unit u, int64_t *per_sec, int *digits)
{
    switch (u) {
    case BASALT_ARROW_TIME_UNIT_SECOND: *per_sec = 1; *digits = 0; break;
    case BASALT_ARROW_TIME_UNIT_MILLI: *per_sec = 1000; *digits = 3; break;
    case BASALT_ARROW_TIME_UNIT_MICRO: *per_sec = 1000000; *digits = 6; break;
    default: *per_sec = 1000000000; *digits = 9; break;
    }
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Writes value i (logical, offset applied by the caller) of array `a`. */
static basalt_status put_value(struct basalt_csv_writer *w, const struct basalt_arrow_type *t,
                               const struct ArrowArray *a, int64_t i, struct basalt_error *err)
{
    char tmp[96];
    size_t n = 0;
    const void *v = a->buffers[1];
    switch (t->id) {
    case BASALT_ARROW_TYPE_NULL: return BASALT_OK;
    case BASALT_ARROW_TYPE_BOOL: {
        bool b = basalt_bitmap_get(v, i);
        return put_bytes(w, b ? "true" : "false", b ? 4 : 5, err);
    }
    case BASALT_ARROW_TYPE_INT8: n = fmt_i64(((const int8_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_UINT8: n = fmt_u64(((const uint8_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_INT16: n = fmt_i64(((const int16_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_UINT16: n = fmt_u64(((const uint16_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_INT32: n = fmt_i64(((const int32_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_UINT32: n = fmt_u64(((const uint32_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_INT64: n = fmt_i64(((const int64_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_UINT64: n = fmt_u64(((const uint64_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_FLOAT: n = fmt_double(((const float *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_DOUBLE: n = fmt_double(((const double *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_DECIMAL32:
        n = fmt_decimal(((const int32_t *)v)[i], t->scale, tmp);
        break;
    case BASALT_ARROW_TYPE_DECIMAL64:
        n = fmt_decimal(((const int64_t *)v)[i], t->scale, tmp);
        break;
    case BASALT_ARROW_TYPE_DECIMAL128: {
        __int128 x;
        memcpy(&x, (const uint8_t *)v + (size_t)i * 16, 16);
        n = fmt_decimal(x, t->scale, tmp);
        break;
    }
    case BASALT_ARROW_TYPE_DATE32: n = fmt_date(((const int32_t *)v)[i], tmp); break;
    case BASALT_ARROW_TYPE_DATE64:
        n = fmt_date(floor_div(((const int64_t *)v)[i], 86400000), tmp);
        break;
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_TIME64: {
        int64_t per, x = t->id == BASALT_ARROW_TYPE_TIME32 ? ((const int32_t *)v)[i]
                                                           : ((const int64_t *)v)[i];
        int digits;
        unit_scale(t->unit, &per, &digits);
        int64_t secs = floor_div(x, per);
        n = fmt_clock(secs % 86400, x - secs * per, digits, tmp);
        break;
    }
    case BASALT_ARROW_TYPE_TIMESTAMP: {
        int64_t per, x = ((const int64_t *)v)[i];
        int digits;
        unit_scale(t->unit, &per, &digits);
        int64_t secs = floor_div(x, per);
        int64_t days = floor_div(secs, 86400);
        n = fmt_date(days, tmp);
        tmp[n++] = ' ';
        n += fmt_clock(secs - days * 86400, x - secs * per, digits, tmp + n);
        if (t->timezone && *t->timezone) {
            memcpy(tmp + n, "+00", 3);
            n += 3;
        }
        break;
    }
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_BINARY: {
        const int32_t *off = v;
        if (off[i + 1] < off[i])
            return basalt_error_set(err, BASALT_CORRUPT, "offsets run backwards");
        return put_text(w, (const uint8_t *)a->buffers[2] + off[i], (size_t)(off[i + 1] - off[i]),
                        err);
    }
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY: {
        const int64_t *off = v;
        if (off[i + 1] < off[i])
            return basalt_error_set(err, BASALT_CORRUPT, "offsets run backwards");
        return put_text(w, (const uint8_t *)a->buffers[2] + off[i], (size_t)(off[i + 1] - off[i]),
                        err);
    }
    default: return basalt_error_set(err, BASALT_UNSUPPORTED, "no CSV form");
    }
    return put_bytes(w, tmp, n, err);
}

static void free_cols(struct basalt_csv_writer *w)
{
    for (int32_t c = 0; w->cols && c < w->n_columns; c++) {
        basalt_free(w->cols[c].format);
        basalt_free(w->cols[c].value_format);
    }
    basalt_free(w->cols);
    w->cols = NULL;
}

static basalt_status open_columns(struct basalt_csv_writer *w, const struct ArrowSchema *schema,
                                  struct basalt_error *err)
{
    w->n_columns = (int32_t)schema->n_children;
    w->cols = basalt_calloc((size_t)(w->n_columns ? w->n_columns : 1), sizeof *w->cols);
    if (!w->cols)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t c = 0; c < w->n_columns; c++) {
        const struct ArrowSchema *f = schema->children[c];
        struct wcol *col = &w->cols[c];
        const char *name = f->name ? f->name : "";
        col->format = basalt_strdup(f->format);
        if (!col->format)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_status st = basalt_arrow_type_parse(col->format, &col->type, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "column '%s'", name);
        if (f->dictionary) {
            col->dict = true;
            col->index_type = col->type;
            col->value_format = basalt_strdup(f->dictionary->format);
            if (!col->value_format)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            st = basalt_arrow_type_parse(col->value_format, &col->type, err);
            if (st != BASALT_OK)
                return basalt_error_context(err, st, "column '%s'", name);
        }
        if (!writable(col->type.id))
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "column '%s': type %s has no CSV form", name,
                                    basalt_arrow_type_name(col->type.id));
    }
    return BASALT_OK;
}

basalt_status basalt_csv_writer_open(struct basalt_output *output, bool take_output,
                                     const struct ArrowSchema *schema,
                                     const struct basalt_csv_write_options *options,
                                     struct basalt_csv_writer **out, struct basalt_error *err)
{
    struct basalt_csv_write_options defaults;
    if (!options) {
        basalt_csv_write_options_init(&defaults);
        options = &defaults;
    }
    if (out)
        *out = NULL;
    basalt_status st = BASALT_OK;
    if (!output || !out || !schema || !schema->release || strcmp(schema->format, "+s") != 0)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "csv writer: a struct schema is needed");
    else if (options->delimiter == options->quote || options->delimiter == '\n' ||
             options->delimiter == '\r' || options->quote == '\n' || options->quote == '\r' ||
             !options->delimiter || !options->quote)
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "csv writer: delimiter and quote must differ and not be line breaks");
    struct basalt_csv_writer *w = NULL;
    if (st == BASALT_OK && !(w = basalt_calloc(1, sizeof *w)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK) {
        if (take_output)
            basalt_output_close(output);
        return st;
    }
    w->out = output;
    w->own = take_output;
    w->delim = options->delimiter;
    w->quote = options->quote;
    w->crlf = options->crlf;
    w->buffer_size = options->buffer_size ? options->buffer_size : 1u << 20;
    basalt_buffer_init(&w->buf);
    w->null = basalt_strdup(options->null ? options->null : "");
    if (!w->null)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    else
        w->null_len = strlen(w->null);
    if (st == BASALT_OK)
        st = open_columns(w, schema, err);
    if (st == BASALT_OK)
        st = basalt_buffer_reserve(&w->buf, w->buffer_size + 4096, err);
    if (st == BASALT_OK && options->header && w->n_columns > 0) {
        for (int32_t c = 0; st == BASALT_OK && c < w->n_columns; c++) {
            const char *name = schema->children[c]->name ? schema->children[c]->name : "";
            if (c)
                st = put_bytes(w, &w->delim, 1, err);
            if (st == BASALT_OK)
                st = put_text(w, (const uint8_t *)name, strlen(name), err);
        }
        if (st == BASALT_OK)
            st = put_bytes(w, w->crlf ? "\r\n" : "\n", w->crlf ? 2 : 1, err);
    }
    if (st != BASALT_OK) {
        basalt_csv_writer_close(w);
        return st;
    }
    *out = w;
    return BASALT_OK;
}

basalt_status basalt_csv_writer_write(struct basalt_csv_writer *w, const struct ArrowArray *batch,
                                      struct basalt_error *err)
{
    if (!w || !batch || !batch->release || w->failed || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "csv writer: no batch, or a writer that failed or finished");
    if (batch->n_children != w->n_columns) {
        w->failed = true;
        return basalt_error_set(err, BASALT_CORRUPT, "csv writer: batch has %lld columns, not %d",
                                (long long)batch->n_children, (int)w->n_columns);
    }
    for (int32_t c = 0; c < w->n_columns; c++) {
        const struct ArrowArray *ch = batch->children[c];
        if (!ch || ch->length < batch->offset + batch->length ||
            (w->cols[c].type.id != BASALT_ARROW_TYPE_NULL && ch->n_buffers < 2) ||
            (w->cols[c].dict && !ch->dictionary)) {
            w->failed = true;
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "csv writer: column %d does not fit the schema", (int)c + 1);
        }
    }
    const char *eol = w->crlf ? "\r\n" : "\n";
    basalt_status st = BASALT_OK;
    for (int64_t r = 0; st == BASALT_OK && r < batch->length; r++) {
        int64_t row = batch->offset + r;
        for (int32_t c = 0; st == BASALT_OK && c < w->n_columns; c++) {
            const struct ArrowArray *ch = batch->children[c];
            const struct wcol *col = &w->cols[c];
            if (c)
                st = put_bytes(w, &w->delim, 1, err);
            int64_t i = ch->offset + row;
            const uint8_t *valid = ch->n_buffers > 0 ? ch->buffers[0] : NULL;
            if (st != BASALT_OK)
                break;
            if (col->type.id == BASALT_ARROW_TYPE_NULL ||
                (valid && ch->null_count != 0 && !basalt_bitmap_get(valid, i))) {
                st = put_bytes(w, w->null, w->null_len, err);
                continue;
            }
            if (col->dict) {
                const struct ArrowArray *d = ch->dictionary;
                int64_t k = basalt_arrow_dictionary_index(col->index_type.id, ch->buffers[1], i);
                if (k < 0 || k >= d->length) {
                    st = basalt_error_set(err, BASALT_CORRUPT, "dictionary index out of range");
                    break;
                }
                const uint8_t *dv = d->n_buffers > 0 ? d->buffers[0] : NULL;
                if (dv && d->null_count != 0 && !basalt_bitmap_get(dv, d->offset + k))
                    st = put_bytes(w, w->null, w->null_len, err);
                else
                    st = put_value(w, &col->type, d, d->offset + k, err);
            } else {
                st = put_value(w, &col->type, ch, i, err);
            }
        }
        if (st == BASALT_OK)
            st = put_bytes(w, eol, w->crlf ? 2 : 1, err);
        if (st == BASALT_OK && w->buf.size >= w->buffer_size)
            st = flush(w, err);
    }
    if (st != BASALT_OK) {
        w->failed = true;
        return st;
    }
    w->rows += batch->length;
    return BASALT_OK;
}

basalt_status basalt_csv_writer_finish(struct basalt_csv_writer *w, struct basalt_error *err)
{
    if (!w || w->failed || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG, "csv writer: failed or finished");
    basalt_status st = flush(w, err);
    if (st == BASALT_OK && w->own)
        st = basalt_output_commit(w->out, err);
    if (st != BASALT_OK)
        w->failed = true;
    else
        w->finished = true;
    return st;
}

void basalt_csv_writer_close(struct basalt_csv_writer *w)
{
    if (!w)
        return;
    if (w->own)
        basalt_output_close(w->out);
    free_cols(w);
    basalt_buffer_reset(&w->buf);
    basalt_free(w->null);
    basalt_free(w);
}

int64_t basalt_csv_writer_num_rows(const struct basalt_csv_writer *w)
{
    return w ? w->rows : 0;
}
