/* The sniffer: dialect, header and column types from the first records. */
#include <stdio.h>

#include "csv_internal.h"
#include "csv_reader.h"

/* Type candidates of the sniffer, as bits. */
enum {
    FIT_BOOL = 1 << 0,
    FIT_INT64 = 1 << 1,
    FIT_DOUBLE = 1 << 2,
    FIT_DATE = 1 << 3,
    FIT_TIMESTAMP = 1 << 4,
    FIT_TIMESTAMPTZ = 1 << 5,
    FIT_TIME = 1 << 6,
    FIT_ALL = (1 << 7) - 1
};

/* Which types a non-null value fits, among the candidates still open. */
static unsigned fits(const uint8_t *s, size_t n, unsigned open)
{
    unsigned out = 0;
    if (n == 0)
        return 0;
    uint8_t c = s[0];
    if ((open & FIT_BOOL) && (c == 't' || c == 'T' || c == 'f' || c == 'F')) {
        bool b;
        if (basalt_csv_parse_bool(s, n, &b))
            return FIT_BOOL;
    }
    if (open & (FIT_INT64 | FIT_DOUBLE)) {
        int64_t i;
        double d;
        if ((open & FIT_INT64) && basalt_csv_parse_int64(s, n, true, &i))
            return FIT_INT64 | FIT_DOUBLE;
        if ((open & FIT_DOUBLE) && basalt_csv_parse_double(s, n, true, &d))
            return FIT_DOUBLE;
    }
    if ((open & (FIT_DATE | FIT_TIMESTAMP | FIT_TIMESTAMPTZ)) && n >= 10) {
        int32_t days;
        int64_t us;
        bool zone;
        if (n == 10 && basalt_csv_parse_date(s, n, &days))
            out |= FIT_DATE;
        else if (basalt_csv_parse_timestamp(s, n, &us, &zone))
            out |= zone ? FIT_TIMESTAMPTZ : (FIT_TIMESTAMP | FIT_TIMESTAMPTZ);
    }
    int64_t us;
    if ((open & FIT_TIME) && n >= 5 && basalt_csv_parse_time(s, n, &us))
        out |= FIT_TIME;
    return out;
}

static enum basalt_csv_type type_of_mask(unsigned mask, bool any)
{
    if (!any)
        return BASALT_CSV_TYPE_STRING;
    if (mask & FIT_BOOL)
        return BASALT_CSV_TYPE_BOOL;
    if (mask & FIT_INT64)
        return BASALT_CSV_TYPE_INT64;
    if (mask & FIT_DOUBLE)
        return BASALT_CSV_TYPE_DOUBLE;
    if (mask & FIT_DATE)
        return BASALT_CSV_TYPE_DATE;
    if (mask & FIT_TIMESTAMP)
        return BASALT_CSV_TYPE_TIMESTAMP;
    if (mask & FIT_TIMESTAMPTZ)
        return BASALT_CSV_TYPE_TIMESTAMPTZ;
    if (mask & FIT_TIME)
        return BASALT_CSV_TYPE_TIME;
    return BASALT_CSV_TYPE_STRING;
}

/* Skips comment lines and, when `blank` is set, blank lines. */
static void skip_noise(const struct csv_dialect *d, const uint8_t **pp, const uint8_t *end,
                       int64_t *line)
{
    while (*pp < end) {
        const uint8_t *p = *pp;
        if ((d->has_comment && *p == d->comment) || *p == '\n' ||
            (*p == '\r' && p + 1 < end && p[1] == '\n')) {
            basalt_csv_skip_line(pp, end);
            (*line)++;
            continue;
        }
        break;
    }
}

/* ------------------------------------------------------------------ dialect */

struct dialect_score {
    bool ok;
    uint32_t fields;     /* the most frequent number of fields */
    uint32_t consistent; /* records with that many */
    uint32_t total;      /* records looked at */
};

static struct dialect_score score_dialect(const struct csv_dialect *d, const uint8_t *p,
                                          const uint8_t *end, bool truncated)
{
    struct dialect_score s = {true, 0, 0, 0};
    struct csv_record rec;
    int64_t line = 0;
    uint32_t counts[100], freq[100];
    int distinct = 0;
    for (int n = 0; n < 100 && p < end; n++) {
        skip_noise(d, &p, end, &line);
        if (p >= end)
            break;
        enum csv_tok t = basalt_csv_tokenize(d, &p, end, NULL, 0, &rec);
        if (t == CSV_TOK_UNTERMINATED && truncated)
            break;
        if (t != CSV_TOK_OK) {
            s.ok = false;
            return s;
        }
        if (truncated && !rec.terminated)
            break; /* a record cut by the end of the sample */
        int k = 0;
        while (k < distinct && counts[k] != rec.n_fields)
            k++;
        if (k == distinct) {
            counts[distinct] = rec.n_fields;
            freq[distinct++] = 0;
        }
        freq[k]++;
        s.total++;
    }
    for (int k = 0; k < distinct; k++) {
        if (freq[k] > s.consistent || (freq[k] == s.consistent && counts[k] > s.fields)) {
            s.consistent = freq[k];
            s.fields = counts[k];
        }
    }
    return s;
}

/* A delimiter that splits records beats one that never does; then the
 * larger share of records with the same number of fields; then more fields;
 * then the earlier candidate. */
static bool better(const struct dialect_score *a, const struct dialect_score *b)
{
    if (!b->ok)
        return a->ok;
    if (!a->ok)
        return false;
    if ((a->fields > 1) != (b->fields > 1))
        return a->fields > 1;
    uint64_t sa = (uint64_t)a->consistent * (b->total ? b->total : 1);
    uint64_t sb = (uint64_t)b->consistent * (a->total ? a->total : 1);
    if (sa != sb)
        return sa > sb;
    return a->fields > b->fields;
}

void basalt_csv_sniff_dialect(const struct basalt_csv_read_options *o, const uint8_t *p,
                       const uint8_t *end, uint8_t *delim, uint8_t *quote)
{
    static const uint8_t delims[] = {',', ';', '\t', '|'};
    static const uint8_t quotes[] = {'"', '\''};
    bool truncated = (size_t)(end - p) > 65536;
    const uint8_t *stop = truncated ? p + 65536 : end;
    struct dialect_score best = {false, 0, 0, 0};
    uint8_t best_d = o->delimiter ? (uint8_t)o->delimiter : ',';
    uint8_t best_q = o->quote ? (uint8_t)o->quote : '"';
    for (size_t i = 0; i < sizeof delims; i++) {
        if (o->delimiter && delims[i] != (uint8_t)o->delimiter)
            continue;
        /* The quote for this delimiter: " unless ' splits the records more
         * consistently (a share, so that a quote that cuts records in two
         * does not win by their number). */
        struct dialect_score mine = {false, 0, 0, 0};
        uint8_t mine_q = '"';
        for (size_t j = 0; j < sizeof quotes; j++) {
            if (o->no_quote && j > 0)
                break;
            if (o->quote && quotes[j] != (uint8_t)o->quote)
                continue;
            struct csv_dialect d;
            basalt_csv_dialect_init(&d, delims[i], !o->no_quote, quotes[j],
                             o->escape == BASALT_CSV_ESCAPE_BACKSLASH, o->comment != 0,
                             (uint8_t)o->comment);
            struct dialect_score s = score_dialect(&d, p, stop, truncated);
            bool take = !mine.ok && s.ok;
            if (mine.ok && s.ok)
                take = (uint64_t)s.consistent * mine.total > (uint64_t)mine.consistent * s.total;
            if (take) {
                mine = s;
                mine_q = quotes[j];
            }
        }
        if (better(&mine, &best)) {
            best = mine;
            best_d = delims[i];
            best_q = mine_q;
        }
    }
    *delim = best_d;
    *quote = best_q;
}

/* ------------------------------------------------------------------ types */

/* Tokenizes the first record and the sample after it, and decides the
 * header and the types. */
basalt_status basalt_csv_sniff_schema(struct basalt_csv_reader *r,
                                      const struct basalt_csv_read_options *o,
                               const uint8_t **pp, int64_t *line, struct basalt_error *err)
{
    const struct csv_dialect *d = &r->cfg.dialect;
    const uint8_t *p = *pp, *end = r->data + r->size;
    skip_noise(d, &p, end, line);
    if (p >= end) {
        /* No record at all: no columns, no rows. */
        r->n_columns = 0;
        r->header_begin = r->data_begin = (size_t)(p - r->data);
        r->dialect.header = o->header == BASALT_CSV_HEADER_YES;
        r->dialect.data_line = *line;
        *pp = p;
        return BASALT_OK;
    }
    /* The first record fixes the number of columns. */
    struct csv_record rec;
    const uint8_t *first = p;
    int64_t first_line = *line;
    enum csv_tok t = basalt_csv_tokenize(d, &p, end, NULL, 0, &rec);
    if (t != CSV_TOK_OK)
        return basalt_error_set(err, BASALT_CORRUPT, "line %lld: %s", (long long)first_line,
                                basalt_csv_tok_message(t));
    if (rec.n_fields > 100000)
        return basalt_error_set(err, BASALT_LIMIT, "line %lld: %u fields, more than 100000",
                                (long long)first_line, rec.n_fields);
    uint32_t ncols = rec.n_fields;
    r->columns = basalt_calloc(ncols, sizeof *r->columns);
    struct csv_field *fields = basalt_malloc((size_t)ncols * sizeof *fields);
    struct csv_field *head = basalt_malloc((size_t)ncols * sizeof *head);
    unsigned *mask = basalt_malloc((size_t)ncols * sizeof *mask);
    bool *any = basalt_calloc(ncols, sizeof *any);
    basalt_status st = BASALT_OK;
    if (!r->columns || !fields || !head || !mask || !any) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        goto out;
    }
    r->n_columns = (int32_t)ncols;
    {
        const uint8_t *q = first;
        basalt_csv_tokenize(d, &q, end, head, ncols, &rec);
    }
    for (uint32_t c = 0; c < ncols; c++)
        mask[c] = FIT_ALL;
    int64_t sampled = 0, sample_bytes = 0;
    int64_t limit = o->sample_rows < 0 ? INT64_MAX : o->sample_rows;
    int64_t l = *line + rec.newlines;
    const uint8_t *q = p;
    while (q < end && sampled < limit) {
        skip_noise(d, &q, end, &l);
        if (q >= end)
            break;
        const uint8_t *start = q;
        t = basalt_csv_tokenize(d, &q, end, fields, ncols, &rec);
        if (t != CSV_TOK_OK)
            break; /* the parser reports it, naming the column */
        sampled++;
        sample_bytes += q - start;
        uint32_t nf = rec.n_fields < ncols ? rec.n_fields : ncols;
        for (uint32_t c = 0; c < nf; c++) {
            const struct csv_field *f = &fields[c];
            if (!f->quoted && f->len == 0 && r->cfg.null_empty)
                continue;
            if (!f->quoted && r->cfg.n_nulls) {
                bool null = false;
                for (size_t k = 0; k < r->cfg.n_nulls && !null; k++)
                    null = r->cfg.null_lens[k] == f->len &&
                           memcmp(r->cfg.nulls[k], f->ptr, f->len) == 0;
                if (null)
                    continue;
            }
            any[c] = true;
            if (mask[c] && !f->escaped)
                mask[c] &= fits(f->ptr, f->len, mask[c]);
            else
                mask[c] = 0;
        }
        l += rec.newlines;
    }
    r->stats.sample_rows = sampled;
    r->cfg.row_bytes = sampled ? (double)sample_bytes / (double)sampled : 64.0;

    /* Header: some typed column whose first value does not fit its type,
     * or nothing but strings (or no other record at all). */
    bool header;
    if (o->header != BASALT_CSV_HEADER_AUTO) {
        header = o->header == BASALT_CSV_HEADER_YES;
    } else {
        bool typed = false, contradicts = false;
        for (uint32_t c = 0; c < ncols; c++) {
            enum basalt_csv_type ty = type_of_mask(mask[c], any[c]);
            if (ty == BASALT_CSV_TYPE_STRING)
                continue;
            typed = true;
            const struct csv_field *f = &head[c];
            if (!f->quoted && f->len == 0)
                continue;
            if (f->escaped || !(fits(f->ptr, f->len, mask[c]) & mask[c]))
                contradicts = true;
        }
        header = !typed || contradicts || sampled == 0;
    }
    if (!header) {
        /* The first record is data: it takes part in the types. */
        for (uint32_t c = 0; c < ncols; c++) {
            const struct csv_field *f = &head[c];
            if (!f->quoted && f->len == 0 && r->cfg.null_empty)
                continue;
            any[c] = true;
            if (mask[c] && !f->escaped)
                mask[c] &= fits(f->ptr, f->len, mask[c]);
            else
                mask[c] = 0;
        }
    }
    for (uint32_t c = 0; c < ncols; c++) {
        r->columns[c].type.type = type_of_mask(mask[c], any[c]);
    }
    r->dialect.header = header;
    /* Names. */
    int width = 1;
    for (uint32_t n = ncols > 0 ? ncols - 1 : 0; n >= 10; n /= 10)
        width++;
    for (uint32_t c = 0; c < ncols; c++) {
        char buf[64];
        const struct csv_field *f = &head[c];
        char *name = NULL;
        if (header && f->len > 0) {
            name = basalt_malloc((size_t)f->len + 1);
            if (name) {
                size_t n = f->escaped ? basalt_csv_unescape(d, f, (uint8_t *)name) : f->len;
                if (!f->escaped)
                    memcpy(name, f->ptr, n);
                name[n] = 0;
                if (!basalt_csv_utf8_valid((const uint8_t *)name, n) || strlen(name) != n) {
                    basalt_free(name);
                    st = basalt_error_set(err, BASALT_CORRUPT,
                                          "line %lld: header field %u is not valid UTF-8 text",
                                          (long long)first_line, c + 1);
                    goto out;
                }
            }
        } else {
            snprintf(buf, sizeof buf, "column%0*u", width & 15, c);
            name = basalt_strdup(buf);
        }
        if (!name) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            goto out;
        }
        r->columns[c].name = name;
    }
    r->header_begin = (size_t)(first - r->data);
    if (header) {
        r->data_begin = (size_t)(p - r->data);
        /* the line after the header record */
        const uint8_t *hq = first;
        basalt_csv_tokenize(d, &hq, end, NULL, 0, &rec);
        r->dialect.data_line = first_line + rec.newlines;
    } else {
        r->data_begin = (size_t)(first - r->data);
        r->dialect.data_line = first_line;
    }
    *pp = r->data + r->data_begin;
out:
    basalt_free(fields);
    basalt_free(head);
    basalt_free(mask);
    basalt_free(any);
    return st;
}
