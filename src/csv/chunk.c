/* The chunk parser: whole records of one chunk into Arrow batches of at most
 * batch_size rows. Runs on a pool worker; touches nothing shared but the
 * read-only configuration and its own result. */
#include <stdio.h>

#include "csv_internal.h"

/* One column of the batch being built. */
struct colbuf {
    enum basalt_csv_type type;
    int width;            /* bytes per value; 0 for bool (bits) and strings */
    uint8_t *values;      /* values, or int32 offsets for strings */
    uint8_t *valid;       /* all ones until a null clears a bit; NULL without nulls */
    int64_t nulls;
    uint8_t *data;        /* string bytes */
    size_t data_len, data_cap;
};

struct chunk {
    const struct csv_parse_config *cfg;
    struct csv_chunk_result *res;
    struct colbuf *cols;
    struct csv_field *fields;
    uint32_t field_cap;
    int64_t rows, cap;    /* rows in the batch being built, its capacity */
    int64_t batches_cap;
    uint8_t *scratch;     /* unescaped text of quoted non-string fields */
    size_t scratch_cap;
    const uint8_t *end;
    const uint8_t *pos;   /* start of the record being converted */
};

static int type_width(enum basalt_csv_type t)
{
    switch (t) {
    case BASALT_CSV_TYPE_INT32:
    case BASALT_CSV_TYPE_FLOAT:
    case BASALT_CSV_TYPE_DATE: return 4;
    case BASALT_CSV_TYPE_INT64:
    case BASALT_CSV_TYPE_DOUBLE:
    case BASALT_CSV_TYPE_TIMESTAMP:
    case BASALT_CSV_TYPE_TIMESTAMPTZ:
    case BASALT_CSV_TYPE_TIME: return 8;
    case BASALT_CSV_TYPE_DECIMAL: return 16;
    default: return 0;
    }
}

static void *alloc_buf(size_t size)
{
    size_t rounded = (size + 63) & ~(size_t)63;
    return basalt_aligned_alloc(64, rounded ? rounded : 64);
}

static void colbuf_free(struct colbuf *b)
{
    basalt_free(b->values);
    basalt_free(b->valid);
    basalt_free(b->data);
    b->values = b->valid = b->data = NULL;
    b->nulls = 0;
    b->data_len = b->data_cap = 0;
}

static size_t values_bytes(const struct colbuf *b, int64_t cap)
{
    if (b->type == BASALT_CSV_TYPE_BOOL)
        return (size_t)((cap + 7) / 8);
    if (b->type == BASALT_CSV_TYPE_STRING)
        return (size_t)(cap + 1) * 4;
    return (size_t)cap * (size_t)b->width;
}

/* Fresh buffers for a batch of `cap` rows. */
static bool batch_start(struct chunk *c, int64_t cap)
{
    c->rows = 0;
    c->cap = cap;
    for (int32_t i = 0; i < c->cfg->n_columns; i++) {
        struct colbuf *b = &c->cols[i];
        size_t vb = values_bytes(b, cap);
        b->values = alloc_buf(vb);
        if (!b->values)
            return false;
        if (b->type == BASALT_CSV_TYPE_BOOL)
            memset(b->values, 0, vb);
        if (b->type == BASALT_CSV_TYPE_STRING) {
            ((int32_t *)b->values)[0] = 0;
            size_t guess = (size_t)(c->cfg->row_bytes / c->cfg->n_columns + 2) * (size_t)cap;
            b->data_cap = guess < 256 ? 256 : guess;
            b->data = alloc_buf(b->data_cap);
            if (!b->data)
                return false;
            b->data_len = 0;
        }
    }
    return true;
}

/* Grows every column of the batch to `cap` rows (keeping what is there). */
static bool batch_grow(struct chunk *c, int64_t cap)
{
    for (int32_t i = 0; i < c->cfg->n_columns; i++) {
        struct colbuf *b = &c->cols[i];
        size_t old = values_bytes(b, c->cap), vb = values_bytes(b, cap);
        uint8_t *v = alloc_buf(vb);
        if (!v)
            return false;
        memcpy(v, b->values, old);
        if (b->type == BASALT_CSV_TYPE_BOOL)
            memset(v + old, 0, vb - old);
        basalt_free(b->values);
        b->values = v;
        if (b->valid) {
            size_t ob = (size_t)(c->cap + 7) / 8, nb = (size_t)(cap + 7) / 8;
            uint8_t *m = alloc_buf(nb);
            if (!m)
                return false;
            memcpy(m, b->valid, ob);
            memset(m + ob, 0xff, nb - ob);
            basalt_free(b->valid);
            b->valid = m;
        }
    }
    c->cap = cap;
    return true;
}

static bool data_reserve(struct colbuf *b, size_t more)
{
    if (b->data_len + more <= b->data_cap)
        return true;
    size_t cap = b->data_cap * 2;
    if (cap < b->data_len + more)
        cap = b->data_len + more;
    uint8_t *d = alloc_buf(cap);
    if (!d)
        return false;
    memcpy(d, b->data, b->data_len);
    basalt_free(b->data);
    b->data = d;
    b->data_cap = cap;
    return true;
}

static bool set_null(struct chunk *c, struct colbuf *b, int64_t row)
{
    if (!b->valid) {
        size_t nb = (size_t)(c->cap + 7) / 8;
        b->valid = alloc_buf(nb);
        if (!b->valid)
            return false;
        memset(b->valid, 0xff, (nb + 63) & ~(size_t)63);
    }
    b->valid[row >> 3] &= (uint8_t) ~(1u << (row & 7));
    b->nulls++;
    switch (b->type) {
    case BASALT_CSV_TYPE_BOOL: break;
    case BASALT_CSV_TYPE_STRING:
        ((int32_t *)b->values)[row + 1] = (int32_t)b->data_len;
        break;
    default: memset(b->values + (size_t)row * (size_t)b->width, 0, (size_t)b->width); break;
    }
    return true;
}

static basalt_status nomem(struct chunk *c)
{
    struct csv_chunk_error *e = &c->res->error;
    e->status = BASALT_NOMEM;
    e->column = -1;
    snprintf(e->message, sizeof e->message, "out of memory");
    return BASALT_NOMEM;
}

/* Hands the batch being built to the result. */
static basalt_status batch_finish(struct chunk *c)
{
    struct basalt_error err;
    const struct csv_parse_config *cfg = c->cfg;
    struct ArrowArray arr;
    if (basalt_arrow_array_init(&arr, 1, cfg->n_columns, &err) != BASALT_OK)
        return nomem(c);
    arr.length = c->rows;
    for (int32_t i = 0; i < cfg->n_columns; i++) {
        struct colbuf *b = &c->cols[i];
        struct ArrowArray *ch = arr.children[i];
        bool str = b->type == BASALT_CSV_TYPE_STRING;
        if (basalt_arrow_array_init(ch, str ? 3 : 2, 0, &err) != BASALT_OK) {
            basalt_arrow_array_release(&arr);
            return nomem(c);
        }
        ch->length = c->rows;
        ch->null_count = b->nulls;
        if (b->nulls == 0) {
            basalt_free(b->valid);
            b->valid = NULL;
        }
        basalt_arrow_array_set_buffer(ch, 0, b->valid, NULL);
        basalt_arrow_array_set_buffer(ch, 1, b->values, NULL);
        if (str)
            basalt_arrow_array_set_buffer(ch, 2, b->data, NULL);
        b->valid = b->values = b->data = NULL;
        b->nulls = 0;
        b->data_len = b->data_cap = 0;
    }
    struct csv_chunk_result *r = c->res;
    if (r->n_batches == c->batches_cap) {
        int64_t cap = c->batches_cap ? c->batches_cap * 2 : 4;
        struct ArrowArray *nb = basalt_realloc(r->batches, (size_t)cap * sizeof *nb);
        if (!nb) {
            basalt_arrow_array_release(&arr);
            return nomem(c);
        }
        r->batches = nb;
        c->batches_cap = cap;
    }
    r->batches[r->n_batches++] = arr;
    r->rows += c->rows;
    c->rows = 0;
    return BASALT_OK;
}

static basalt_status fail(struct chunk *c, basalt_status st, int32_t column, const char *fmt, ...)
    BASALT_PRINTF(4, 5);

static basalt_status fail(struct chunk *c, basalt_status st, int32_t column, const char *fmt, ...)
{
    struct csv_chunk_error *e = &c->res->error;
    e->status = st;
    e->line = c->res->newlines;
    e->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return st;
}

/* The text of a field for a message: at most 40 bytes, non-printables as '?'. */
static void field_excerpt(const uint8_t *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < cap; i++) {
        if (k >= 40) {
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
        out[k++] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
    }
    out[k] = 0;
}

static bool is_null(const struct csv_parse_config *cfg, const struct csv_field *f)
{
    if (f->quoted)
        return false;
    if (f->len == 0)
        return cfg->null_empty;
    for (size_t i = 0; i < cfg->n_nulls; i++)
        if (cfg->null_lens[i] == f->len && memcmp(cfg->nulls[i], f->ptr, f->len) == 0)
            return true;
    return false;
}

static const char *type_word(enum basalt_csv_type t)
{
    switch (t) {
    case BASALT_CSV_TYPE_BOOL: return "a boolean";
    case BASALT_CSV_TYPE_INT32: return "an int32";
    case BASALT_CSV_TYPE_INT64: return "an int64";
    case BASALT_CSV_TYPE_FLOAT: return "a float";
    case BASALT_CSV_TYPE_DOUBLE: return "a double";
    case BASALT_CSV_TYPE_DECIMAL: return "a decimal of this precision";
    case BASALT_CSV_TYPE_DATE: return "a date (YYYY-MM-DD)";
    case BASALT_CSV_TYPE_TIMESTAMP:
    case BASALT_CSV_TYPE_TIMESTAMPTZ: return "a timestamp (YYYY-MM-DD HH:MM:SS)";
    case BASALT_CSV_TYPE_TIME: return "a time (HH:MM:SS)";
    default: return "valid UTF-8";
    }
}

static basalt_status bad_value(struct chunk *c, int32_t col, const uint8_t *s, size_t n)
{
    char ex[64];
    field_excerpt(s, n, ex, sizeof ex);
    const struct csv_column *cc = &c->cfg->columns[col];
    return fail(c, BASALT_CORRUPT, col, "value '%s' is not %s%s", ex, type_word(cc->type.type),
                cc->type.type == BASALT_CSV_TYPE_STRING
                    ? ""
                    : " (give the column's type, or sniff more records, to read it)");
}

/* Converts field `f` into row `row` of column `col`. */
static inline basalt_status put(struct chunk *c, int32_t col, const struct csv_field *f,
                                int64_t row)
{
    struct colbuf *b = &c->cols[col];
    const struct csv_parse_config *cfg = c->cfg;
    if (is_null(cfg, f))
        return set_null(c, b, row) ? BASALT_OK : nomem(c);
    const uint8_t *s = f->ptr;
    size_t n = f->len;
    if (b->type == BASALT_CSV_TYPE_STRING) {
        if (!data_reserve(b, n))
            return nomem(c);
        uint8_t *dst = b->data + b->data_len;
        if (f->escaped)
            n = basalt_csv_unescape(&cfg->dialect, f, dst);
        else
            memcpy(dst, s, n);
        if (!basalt_csv_utf8_valid(dst, n))
            return fail(c, BASALT_CORRUPT, col, "invalid UTF-8");
        b->data_len += n;
        if (b->data_len > INT32_MAX)
            return fail(c, BASALT_LIMIT, col, "more than 2 GiB of text in one batch");
        ((int32_t *)b->values)[row + 1] = (int32_t)b->data_len;
        return BASALT_OK;
    }
    if (f->escaped) {
        if (c->scratch_cap < n) {
            basalt_free(c->scratch);
            c->scratch = basalt_malloc(n);
            c->scratch_cap = c->scratch ? n : 0;
            if (!c->scratch)
                return nomem(c);
        }
        n = basalt_csv_unescape(&cfg->dialect, f, c->scratch);
        s = c->scratch;
    }
    uint8_t *v = b->values;
    switch (b->type) {
    case BASALT_CSV_TYPE_INT64: {
        int64_t x;
        if (!basalt_csv_parse_int64(s, n, false, &x))
            return bad_value(c, col, s, n);
        ((int64_t *)v)[row] = x;
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_DOUBLE: {
        double x;
        if (!basalt_csv_parse_double(s, n, false, &x))
            return bad_value(c, col, s, n);
        ((double *)v)[row] = x;
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_BOOL: {
        bool x;
        if (!basalt_csv_parse_bool(s, n, &x))
            return bad_value(c, col, s, n);
        if (x)
            v[row >> 3] |= (uint8_t)(1u << (row & 7));
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_INT32: {
        int64_t x;
        if (!basalt_csv_parse_int64(s, n, false, &x) || x < INT32_MIN || x > INT32_MAX)
            return bad_value(c, col, s, n);
        ((int32_t *)v)[row] = (int32_t)x;
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_FLOAT: {
        double x;
        if (!basalt_csv_parse_double(s, n, false, &x))
            return bad_value(c, col, s, n);
        ((float *)v)[row] = (float)x;
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_DATE: {
        int32_t x;
        if (!basalt_csv_parse_date(s, n, &x))
            return bad_value(c, col, s, n);
        ((int32_t *)v)[row] = x;
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_TIMESTAMP:
    case BASALT_CSV_TYPE_TIMESTAMPTZ: {
        int64_t x;
        bool zone;
        /* A zone in a timestamp column would change the value's meaning. */
        if (!basalt_csv_parse_timestamp(s, n, &x, &zone) ||
            (zone && b->type == BASALT_CSV_TYPE_TIMESTAMP))
            return bad_value(c, col, s, n);
        ((int64_t *)v)[row] = x;
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_TIME: {
        int64_t x;
        if (!basalt_csv_parse_time(s, n, &x))
            return bad_value(c, col, s, n);
        ((int64_t *)v)[row] = x;
        return BASALT_OK;
    }
    case BASALT_CSV_TYPE_DECIMAL: {
        __int128 x;
        const struct csv_column *cc = &cfg->columns[col];
        if (!basalt_csv_parse_decimal(s, n, cc->type.precision, cc->type.scale, &x))
            return bad_value(c, col, s, n);
        memcpy(v + (size_t)row * 16, &x, 16);
        return BASALT_OK;
    }
    default: return fail(c, BASALT_INTERNAL, col, "unknown column type");
    }
}

void basalt_csv_parse_chunk(const struct csv_parse_config *cfg, const uint8_t *begin,
                     const uint8_t *limit, const uint8_t *end, struct csv_chunk_result *result,
                     const uint8_t **stop)
{
    memset(result, 0, sizeof *result);
    *stop = begin;
    if (begin >= limit)
        return;
    struct chunk c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.res = result;
    c.end = end;
    int32_t ncols = cfg->n_columns;
    c.field_cap = (uint32_t)ncols;
    c.cols = basalt_calloc((size_t)ncols, sizeof *c.cols);
    c.fields = basalt_malloc((size_t)ncols * sizeof *c.fields);
    if (!c.cols || !c.fields) {
        nomem(&c);
        goto done;
    }
    for (int32_t i = 0; i < ncols; i++) {
        c.cols[i].type = cfg->columns[i].type.type;
        c.cols[i].width = type_width(c.cols[i].type);
    }
    /* Rows expected in the chunk, from the sample's record size. */
    double expect =
        (double)(limit - begin) / (cfg->row_bytes > 1 ? cfg->row_bytes : 1) * 1.05 + 16;
    int64_t first_cap = expect < (double)cfg->batch_size ? (int64_t)expect : cfg->batch_size;
    if (!batch_start(&c, first_cap)) {
        nomem(&c);
        goto done;
    }
    const struct csv_dialect *d = &cfg->dialect;
    const uint8_t *p = begin;
    while (p < limit) {
        if (d->has_comment && *p == d->comment) {
            basalt_csv_skip_line(&p, end);
            result->newlines++;
            continue;
        }
        struct csv_record rec;
        const uint8_t *start = p;
        /* The bytes come cold from the page cache: ask for them ahead. */
        __builtin_prefetch(p + 1024);
        enum csv_tok t = basalt_csv_tokenize(d, &p, end, c.fields, c.field_cap, &rec);
        if (t != CSV_TOK_OK) {
            fail(&c, BASALT_CORRUPT, (int32_t)rec.n_fields < ncols ? (int32_t)rec.n_fields : -1,
                 "%s", basalt_csv_tok_message(t));
            goto done;
        }
        if ((size_t)(p - start) > cfg->max_line_size) {
            fail(&c, BASALT_LIMIT, -1, "record of %zu bytes exceeds the maximum line size %zu",
                 (size_t)(p - start), cfg->max_line_size);
            goto done;
        }
        if (rec.blank && ncols > 1) {
            result->newlines++;
            continue;
        }
        if (rec.blank) {
            rec.n_fields = 1;
            c.fields[0].ptr = start;
            c.fields[0].len = 0;
            c.fields[0].quoted = c.fields[0].escaped = false;
        }
        if (rec.n_fields != (uint32_t)ncols &&
            (rec.n_fields > (uint32_t)ncols || !cfg->fill_ragged)) {
            fail(&c, BASALT_CORRUPT, -1, "expected %d fields, found %u", ncols, rec.n_fields);
            goto done;
        }
        if (c.rows == c.cap) {
            if (c.cap < cfg->batch_size) {
                int64_t cap = c.cap * 2 > cfg->batch_size ? cfg->batch_size : c.cap * 2;
                if (!batch_grow(&c, cap)) {
                    nomem(&c);
                    goto done;
                }
            } else {
                if (batch_finish(&c) != BASALT_OK)
                    goto done;
                double left =
                    (double)(limit - start) / (cfg->row_bytes > 1 ? cfg->row_bytes : 1);
                int64_t cap = left * 1.05 + 16 < (double)cfg->batch_size
                                  ? (int64_t)(left * 1.05 + 16)
                                  : cfg->batch_size;
                if (!batch_start(&c, cap)) {
                    nomem(&c);
                    goto done;
                }
            }
        }
        int64_t row = c.rows;
        uint32_t nf = rec.n_fields;
        for (int32_t i = 0; i < ncols; i++) {
            basalt_status st;
            if ((uint32_t)i < nf)
                st = put(&c, i, &c.fields[i], row);
            else
                st = set_null(&c, &c.cols[i], row) ? BASALT_OK : nomem(&c);
            if (st != BASALT_OK)
                goto done;
        }
        c.rows++;
        result->newlines += rec.newlines;
    }
    if (c.rows > 0)
        batch_finish(&c);
    *stop = p;
done:
    if (c.cols)
        for (int32_t i = 0; i < ncols; i++)
            colbuf_free(&c.cols[i]);
    basalt_free(c.cols);
    basalt_free(c.fields);
    basalt_free(c.scratch);
}

void basalt_csv_chunk_result_reset(struct csv_chunk_result *r)
{
    for (int64_t i = 0; i < r->n_batches; i++)
        basalt_arrow_array_release(&r->batches[i]);
    basalt_free(r->batches);
    memset(r, 0, sizeof *r);
}
