/* Rendering one Arrow value as JSON or as a table/CSV cell (see format.h for
 * the forms). Numbers and strings are formatted by the library's JSON module
 * (basalt_json_format_double, basalt_json_format_half,
 * basalt_json_append_string); the value walk stays here for the cell form
 * and Parquet variants, and tests/cli/json_duckdb.sh checks that it prints
 * what the library's writer writes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

bool cli_format_parse(const char *name, enum cli_format_kind *out)
{
    if (strcmp(name, "table") == 0)
        *out = CLI_FORMAT_TABLE;
    else if (strcmp(name, "csv") == 0)
        *out = CLI_FORMAT_CSV;
    else if (strcmp(name, "json") == 0)
        *out = CLI_FORMAT_JSON;
    else
        return false;
    return true;
}

/* ------------------------------------------------------------------ numbers */

void cli_format_double(double d, bool single, char *buf)
{
    basalt_json_format_double(d, single, buf);
}

/* ------------------------------------------------------------------ text helpers */

static basalt_status put(struct basalt_buffer *out, const void *p, size_t n,
                         struct basalt_error *err)
{
    return basalt_buffer_append(out, p, n, err);
}

static basalt_status puts_(struct basalt_buffer *out, const char *s, struct basalt_error *err)
{
    return put(out, s, strlen(s), err);
}

basalt_status cli_format_json_string(struct basalt_buffer *out, const uint8_t *p, size_t n,
                                    struct basalt_error *err)
{
    return basalt_json_append_string(out, p, n, err);
}

static basalt_status base64(struct basalt_buffer *out, const uint8_t *p, int64_t n,
                            struct basalt_error *err)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    basalt_status st = basalt_buffer_reserve(out, (size_t)(n + 2) / 3 * 4 + 1, err);
    for (int64_t i = 0; i < n && st == BASALT_OK; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {alphabet[v >> 18], alphabet[(v >> 12) & 63],
                     i + 1 < n ? alphabet[(v >> 6) & 63] : '=', i + 2 < n ? alphabet[v & 63] : '='};
        st = put(out, q, 4, err);
    }
    return st;
}

/* Proleptic Gregorian date of a day count (days since 1970-01-01). */
static void civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static int format_date(int64_t days, char *buf)
{
    int64_t y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    if (y >= 0 && y <= 9999)
        return sprintf(buf, "%04lld-%02u-%02u", (long long)y, m, d);
    /* ISO 8601 expanded years, as JavaScript's toISOString writes them. */
    return sprintf(buf, "%c%06lld-%02u-%02u", y < 0 ? '-' : '+', (long long)(y < 0 ? -y : y), m,
                   d);
}

static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        q--;
        r += b;
    }
    *rem = r;
    return q;
}

static const int64_t ticks_per_second[] = {1, 1000, 1000000, 1000000000};
static const int frac_digits[] = {0, 3, 6, 9};

static int format_clock(int64_t secs_of_day, int64_t frac, int unit, char *buf)
{
    int n = sprintf(buf, "%02lld:%02lld:%02lld", (long long)(secs_of_day / 3600),
                    (long long)(secs_of_day / 60 % 60), (long long)(secs_of_day % 60));
    if (frac_digits[unit])
        n += sprintf(buf + n, ".%0*lld", frac_digits[unit], (long long)frac);
    return n;
}

static int format_timestamp(int64_t v, int unit, bool zoned, char *buf)
{
    int64_t frac, sod;
    int64_t secs = floor_div(v, ticks_per_second[unit], &frac);
    int64_t days = floor_div(secs, 86400, &sod);
    int n = format_date(days, buf);
    buf[n++] = 'T';
    n += format_clock(sod, frac, unit, buf + n);
    if (zoned)
        buf[n++] = 'Z';
    buf[n] = '\0';
    return n;
}

static int format_time(int64_t v, int unit, char *buf)
{
    int64_t frac;
    int64_t secs = floor_div(v, ticks_per_second[unit], &frac);
    if (secs < 0)
        return sprintf(buf, "%lld", (long long)v);
    return format_clock(secs, frac, unit, buf);
}

/* Exact decimal text of a little-endian two's complement integer of
 * `bytes` bytes with `scale` fraction digits. */
static basalt_status put_decimal(struct basalt_buffer *out, const uint8_t *p, int bytes, int scale,
                                 struct basalt_error *err)
{
    if (scale > 90 || scale < -90 || bytes > 32)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "decimal scale %d out of range", scale);
    uint8_t mag[32];
    memcpy(mag, p, (size_t)bytes);
    bool neg = (mag[bytes - 1] & 0x80) != 0;
    if (neg) {
        int carry = 1;
        for (int k = 0; k < bytes; k++) {
            int v = (uint8_t)~mag[k] + carry;
            mag[k] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    char digits[100];
    int nd = 0;
    for (;;) {
        bool zero = true;
        int rem = 0;
        for (int k = bytes - 1; k >= 0; k--) {
            int cur = rem * 256 + mag[k];
            mag[k] = (uint8_t)(cur / 10);
            rem = cur % 10;
            if (mag[k])
                zero = false;
        }
        digits[nd++] = (char)('0' + rem);
        if (zero)
            break;
    }
    char text[200];
    int w = 0;
    if (neg)
        text[w++] = '-';
    if (scale <= 0) {
        bool zero = nd == 1 && digits[0] == '0';
        while (nd > 0)
            text[w++] = digits[--nd];
        for (int i = 0; !zero && i < -scale && w < (int)sizeof text - 1; i++)
            text[w++] = '0';
    } else {
        int int_digits = nd > scale ? nd - scale : 0;
        if (int_digits == 0)
            text[w++] = '0';
        for (int i = 0; i < int_digits; i++)
            text[w++] = digits[--nd];
        text[w++] = '.';
        for (int i = nd; i < scale; i++)
            text[w++] = '0';
        while (nd > 0)
            text[w++] = digits[--nd];
    }
    return put(out, text, (size_t)w, err);
}

/* ------------------------------------------------------------------ values */

static bool is_valid(const struct ArrowArray *a, int64_t j)
{
    if (a->n_buffers == 0)
        return false; /* the null type has no validity and no values */
    const uint8_t *v = a->buffers[0];
    return !v || basalt_bitmap_get(v, j);
}

static int64_t dict_index(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t j)
{
    const void *ix = a->buffers[1];
    switch (s->format[0]) {
    case 'c': return ((const int8_t *)ix)[j];
    case 'C': return ((const uint8_t *)ix)[j];
    case 's': return ((const int16_t *)ix)[j];
    case 'S': return ((const uint16_t *)ix)[j];
    case 'I': return ((const uint32_t *)ix)[j];
    case 'l': return ((const int64_t *)ix)[j];
    case 'L': return (int64_t)((const uint64_t *)ix)[j];
    default: return ((const int32_t *)ix)[j];
    }
}

/* A column of the arrow.uuid extension type (fixed_size_binary(16) whose
 * field metadata names it). */
static bool is_uuid(const struct ArrowSchema *s)
{
    static const char name[] = "arrow.uuid";
    const char *value;
    size_t len;
    return s->metadata &&
           basalt_arrow_metadata_get(s->metadata, "ARROW:extension:name", &value, &len, NULL) ==
               BASALT_OK &&
           len == sizeof name - 1 && memcmp(value, name, sizeof name - 1) == 0;
}

/* The canonical 8-4-4-4-12 lowercase form (RFC 9562), 37 bytes with the NUL. */
static void format_uuid(const uint8_t *p, char *buf)
{
    static const char hex[] = "0123456789abcdef";
    char *w = buf;
    for (int k = 0; k < 16; k++) {
        if (k == 4 || k == 6 || k == 8 || k == 10)
            *w++ = '-';
        *w++ = hex[p[k] >> 4];
        *w++ = hex[p[k] & 15];
    }
    *w = '\0';
}

enum render { RENDER_JSON, RENDER_CELL };

static basalt_status render(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                            enum render mode, struct basalt_buffer *out, struct basalt_error *err);

/* DuckDB quotes an element's text inside a list's when it is empty, NULL
 * in any case, has a space at either end, or holds one of , : " ' [ ] { } ( )
 * =; inside the quotes ' and \ take a backslash. */
static bool list_text_needs_quotes(const uint8_t *p, size_t n)
{
    if (n == 0 || p[0] == ' ' || p[n - 1] == ' ')
        return true;
    if (n == 4 && (p[0] | 32) == 'n' && (p[1] | 32) == 'u' && (p[2] | 32) == 'l' &&
        (p[3] | 32) == 'l')
        return true;
    for (size_t i = 0; i < n; i++)
        if (p[i] && strchr(",:\"'[]{}()=", p[i]))
            return true;
    return false;
}

/* A double as DuckDB casts it to text (Python's repr): the shortest
 * digits that read back, in fixed notation for exponents -4..15 with at
 * least one decimal ("2.0"), else d.ddde+XX; nan, inf, -inf. */
static void repr_double(double d, bool single, char *buf, size_t cap)
{
    if (d != d) {
        snprintf(buf, cap, "%s", signbit(d) ? "-nan" : "nan");
        return;
    }
    if (isinf(d)) {
        snprintf(buf, cap, "%s", d < 0 ? "-inf" : "inf");
        return;
    }
    char e[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, d);
        if (single ? (float)strtod(e, NULL) == (float)d : strtod(e, NULL) == d)
            break;
    }
    /* e: [-]D[.DDD]e[+-]XX */
    char *x = strchr(e, 'e');
    int exp = atoi(x + 1);
    *x = '\0';
    bool neg = e[0] == '-';
    char digits[24];
    size_t nd = 0;
    for (const char *c = e + neg; *c; c++)
        if (*c != '.')
            digits[nd++] = *c;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    if (exp < -4 || exp >= 16) {
        buf[k++] = digits[0];
        if (nd > 1) {
            buf[k++] = '.';
            memcpy(buf + k, digits + 1, nd - 1);
            k += nd - 1;
        }
        snprintf(buf + k, cap - k, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return;
    }
    if (exp < 0) {
        buf[k++] = '0';
        buf[k++] = '.';
        for (int z = 0; z < -exp - 1; z++)
            buf[k++] = '0';
        memcpy(buf + k, digits, nd);
        k += nd;
    } else {
        for (int i = 0; i <= exp; i++)
            buf[k++] = (size_t)i < nd ? digits[i] : '0';
        buf[k++] = '.';
        if ((size_t)exp + 1 < nd) {
            memcpy(buf + k, digits + exp + 1, nd - (size_t)exp - 1);
            k += nd - (size_t)exp - 1;
        } else {
            buf[k++] = '0';
        }
    }
    buf[k] = '\0';
}

/* An interval as DuckDB's text: "1 year 2 months 3 days 04:05:06.5". */
static void interval_text(int32_t months, int32_t days, int64_t nanos, char *buf, size_t cap)
{
    size_t k = 0;
    int32_t years = months / 12, mo = months % 12;
    if (years)
        k += (size_t)snprintf(buf + k, cap - k, "%d year%s", years, years == 1 || years == -1 ? "" : "s");
    if (mo)
        k += (size_t)snprintf(buf + k, cap - k, "%s%d month%s", k ? " " : "", mo,
                              mo == 1 || mo == -1 ? "" : "s");
    if (days)
        k += (size_t)snprintf(buf + k, cap - k, "%s%d day%s", k ? " " : "", days,
                              days == 1 || days == -1 ? "" : "s");
    int64_t us = nanos / 1000;
    if (us || k == 0) {
        bool neg = us < 0;
        uint64_t u = neg ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
        uint64_t h = u / 3600000000ULL, m = u / 60000000ULL % 60, s = u / 1000000ULL % 60,
                 f = u % 1000000ULL;
        k += (size_t)snprintf(buf + k, cap - k, "%s%s%02llu:%02llu:%02llu", k ? " " : "",
                              neg ? "-" : "", (unsigned long long)h, (unsigned long long)m,
                              (unsigned long long)s);
        if (f) {
            char fr[8];
            snprintf(fr, sizeof fr, "%06llu", (unsigned long long)f);
            size_t n = 6;
            while (fr[n - 1] == '0')
                n--;
            fr[n] = '\0';
            snprintf(buf + k, cap - k, ".%s", fr);
        }
    }
}


/* "10:00:00.500000" -> "10:00:00.5", "10:00:00.000" -> "10:00:00": DuckDB's
 * text of times and timestamps inside lists. */
static void drop_fraction_zeros(char *buf)
{
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        n--;
    if (buf + n - 1 == dot)
        n--;
    buf[n] = '\0';
}

/* Element k of a list's child as DuckDB's VARCHAR cast writes it, where
 * that differs from a cell's text (floats, timestamps, intervals). */
static basalt_status list_elem_text(const struct ArrowSchema *s, const struct ArrowArray *a,
                                    int64_t k, struct basalt_buffer *out, struct basalt_error *err)
{
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    int64_t j = a->offset + k;
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    char buf[96];
    switch (s->dictionary ? BASALT_ARROW_TYPE_NULL : t.id) {
    case BASALT_ARROW_TYPE_FLOAT:
        repr_double(((const float *)v)[j], true, buf, sizeof buf);
        return puts_(out, buf, err);
    case BASALT_ARROW_TYPE_DOUBLE:
        repr_double(((const double *)v)[j], false, buf, sizeof buf);
        return puts_(out, buf, err);
    case BASALT_ARROW_TYPE_TIMESTAMP: {
        /* the cell's ISO text with a space, the fraction's trailing zeros
         * dropped, and +00 for UTC */
        bool zoned = t.timezone && t.timezone[0];
        format_timestamp(((const int64_t *)v)[j], (int)t.unit, false, buf);
        char *T = strchr(buf, 'T');
        if (T)
            *T = ' ';
        drop_fraction_zeros(buf);
        if (zoned)
            strcat(buf, "+00");
        return puts_(out, buf, err);
    }
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_TIME64:
        format_time(t.id == BASALT_ARROW_TYPE_TIME32 ? ((const int32_t *)v)[j]
                                                     : ((const int64_t *)v)[j],
                    (int)t.unit, buf);
        drop_fraction_zeros(buf);
        return puts_(out, buf, err);
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO: {
        const uint8_t *p = (const uint8_t *)v + 16 * j;
        int32_t mo, dd;
        int64_t ns;
        memcpy(&mo, p, 4);
        memcpy(&dd, p + 4, 4);
        memcpy(&ns, p + 8, 8);
        interval_text(mo, dd, ns, buf, sizeof buf);
        return puts_(out, buf, err);
    }
    default:
        return render(s, a, k, RENDER_CELL, out, err);
    }
}

/* A list of scalars in a table or CSV cell: DuckDB's text, [1, 2, NULL]. */
static basalt_status render_list_text(const struct ArrowSchema *s, const struct ArrowArray *a,
                                      int64_t b, int64_t e, struct basalt_buffer *out,
                                      struct basalt_error *err)
{
    struct basalt_buffer cell;
    basalt_buffer_init(&cell);
    basalt_status st = puts_(out, "[", err);
    for (int64_t k = b; k < e && st == BASALT_OK; k++) {
        if (k > b)
            st = puts_(out, ", ", err);
        if (st != BASALT_OK)
            break;
        if (!is_valid(a->children[0], a->children[0]->offset + k)) {
            st = puts_(out, "NULL", err);
            continue;
        }
        cell.size = 0;
        st = list_elem_text(s->children[0], a->children[0], k, &cell, err);
        if (st != BASALT_OK)
            break;
        if (!list_text_needs_quotes(cell.data, cell.size)) {
            st = put(out, cell.data, cell.size, err);
            continue;
        }
        st = puts_(out, "'", err);
        for (size_t c = 0; c < cell.size && st == BASALT_OK; c++) {
            if (cell.data[c] == '\'' || cell.data[c] == '\\')
                st = puts_(out, "\\", err);
            if (st == BASALT_OK)
                st = put(out, cell.data + c, 1, err);
        }
        if (st == BASALT_OK)
            st = puts_(out, "'", err);
    }
    basalt_buffer_reset(&cell);
    return st == BASALT_OK ? puts_(out, "]", err) : st;
}

/* Values of nested types render as JSON in both modes, but for lists of
 * scalars in cells, which render as DuckDB's text. */
static basalt_status render_nested(const struct ArrowSchema *s, const struct ArrowArray *a,
                                   const struct basalt_arrow_type *t, int64_t j, enum render mode,
                                   struct basalt_buffer *out, struct basalt_error *err)
{
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    basalt_status st = BASALT_OK;
    switch (t->id) {
    case BASALT_ARROW_TYPE_STRUCT:
        st = puts_(out, "{", err);
        for (int64_t c = 0; c < s->n_children && st == BASALT_OK; c++) {
            if (c)
                st = puts_(out, ",", err);
            const char *name = s->children[c]->name ? s->children[c]->name : "";
            if (st == BASALT_OK)
                st = cli_format_json_string(out, (const uint8_t *)name, strlen(name), err);
            if (st == BASALT_OK)
                st = puts_(out, ":", err);
            if (st == BASALT_OK)
                st = render(s->children[c], a->children[c], j, RENDER_JSON, out, err);
        }
        return st == BASALT_OK ? puts_(out, "}", err) : st;
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP:
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST: {
        int64_t b, e;
        if (t->id == BASALT_ARROW_TYPE_FIXED_SIZE_LIST) {
            b = j * t->fixed_size;
            e = b + t->fixed_size;
        } else if (t->id == BASALT_ARROW_TYPE_LARGE_LIST) {
            b = ((const int64_t *)v)[j];
            e = ((const int64_t *)v)[j + 1];
        } else {
            b = ((const int32_t *)v)[j];
            e = ((const int32_t *)v)[j + 1];
        }
        if (e < b || b < 0 || (a->n_children > 0 && e > a->children[0]->length))
            return basalt_error_set(err, BASALT_CORRUPT, "list offsets out of range");
        if (mode == RENDER_CELL && t->id != BASALT_ARROW_TYPE_MAP && a->n_children == 1 &&
            s->n_children == 1 && s->children[0]->format[0] != '+')
            return render_list_text(s, a, b, e, out, err);
        st = puts_(out, "[", err);
        for (int64_t k = b; k < e && st == BASALT_OK; k++) {
            if (k > b)
                st = puts_(out, ",", err);
            if (st != BASALT_OK)
                break;
            if (t->id == BASALT_ARROW_TYPE_MAP) {
                const struct ArrowSchema *es = s->children[0];
                const struct ArrowArray *ea = a->children[0];
                if (es->n_children < 2)
                    return basalt_error_set(err, BASALT_CORRUPT, "map entries without key/value");
                st = puts_(out, "{\"key\":", err);
                if (st == BASALT_OK)
                    st = render(es->children[0], ea->children[0], ea->offset + k, RENDER_JSON, out,
                                err);
                if (st == BASALT_OK)
                    st = puts_(out, ",\"value\":", err);
                if (st == BASALT_OK)
                    st = render(es->children[1], ea->children[1], ea->offset + k, RENDER_JSON, out,
                                err);
                if (st == BASALT_OK)
                    st = puts_(out, "}", err);
            } else {
                st = render(s->children[0], a->children[0], k, RENDER_JSON, out, err);
            }
        }
        return st == BASALT_OK ? puts_(out, "]", err) : st;
    }
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "no rendering for Arrow type '%s'",
                                s->format);
    }
}

/* The bytes of element j (counted with the offset) of a binary or large
 * binary array; false when the offsets are out of order. */
static bool binary_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t j,
                      const uint8_t **p, size_t *n)
{
    int64_t b, e;
    if (s->format[0] == 'Z' || s->format[0] == 'U') {
        b = ((const int64_t *)a->buffers[1])[j];
        e = ((const int64_t *)a->buffers[1])[j + 1];
    } else {
        b = ((const int32_t *)a->buffers[1])[j];
        e = ((const int32_t *)a->buffers[1])[j + 1];
    }
    if (e < b || b < 0)
        return false;
    *p = (const uint8_t *)a->buffers[2] + b;
    *n = (size_t)(e - b);
    return true;
}

static bool is_variant(const struct ArrowSchema *s)
{
    const char *v;
    size_t n;
    return strcmp(s->format, "+s") == 0 && s->metadata &&
           basalt_arrow_metadata_get(s->metadata, "ARROW:extension:name", &v, &n, NULL) ==
               BASALT_OK &&
           n == 15 && memcmp(v, "parquet.variant", 15) == 0;
}

/* A parquet.variant struct (element j, its validity checked): the JSON text
 * of its metadata and value, in both modes. */
static basalt_status render_variant(const struct ArrowSchema *s, const struct ArrowArray *a,
                                    int64_t j, struct basalt_buffer *out,
                                    struct basalt_error *err)
{
    int64_t m = -1, v = -1;
    for (int64_t c = 0; c < s->n_children; c++) {
        const char *name = s->children[c]->name ? s->children[c]->name : "";
        const char *f = s->children[c]->format;
        bool binary = strcmp(f, "z") == 0 || strcmp(f, "Z") == 0;
        if (binary && strcmp(name, "metadata") == 0)
            m = c;
        else if (binary && strcmp(name, "value") == 0)
            v = c;
    }
    if (m < 0 || v < 0 || a->n_children != s->n_children)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "a parquet.variant without binary metadata and value");
    const struct ArrowArray *ma = a->children[m], *va = a->children[v];
    if (!is_valid(va, va->offset + j))
        return puts_(out, "null", err);
    const uint8_t *mp, *vp;
    size_t mn, vn;
    if (!is_valid(ma, ma->offset + j) ||
        !binary_at(s->children[m], ma, ma->offset + j, &mp, &mn) ||
        !binary_at(s->children[v], va, va->offset + j, &vp, &vn))
        return basalt_error_set(err, BASALT_CORRUPT, "variant metadata or value out of order");
    return basalt_parquet_variant_to_json(mp, mn, vp, vn, out, err);
}

/* Element i of a (logical, before a->offset). */
static basalt_status render(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                            enum render mode, struct basalt_buffer *out, struct basalt_error *err)
{
    int64_t j = a->offset + i;
    if (!is_valid(a, j))
        return puts_(out, mode == RENDER_JSON ? "null" : "", err);
    if (is_variant(s))
        return render_variant(s, a, j, out, err);
    if (s->dictionary) {
        if (!a->dictionary)
            return basalt_error_set(err, BASALT_CORRUPT, "dictionary array without a dictionary");
        int64_t k = dict_index(s, a, j);
        if (k < 0 || k >= a->dictionary->length)
            return basalt_error_set(err, BASALT_CORRUPT, "dictionary index %lld out of range",
                                    (long long)k);
        return render(s->dictionary, a->dictionary, k, mode, out, err);
    }
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    char buf[96];
    bool quote = mode == RENDER_JSON;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL:
        return puts_(out, mode == RENDER_JSON ? "null" : "", err);
    case BASALT_ARROW_TYPE_BOOL:
        return puts_(out, basalt_bitmap_get(v, j) ? "true" : "false", err);
    case BASALT_ARROW_TYPE_INT8: snprintf(buf, sizeof buf, "%d", ((const int8_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_UINT8: snprintf(buf, sizeof buf, "%u", ((const uint8_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_INT16: snprintf(buf, sizeof buf, "%d", ((const int16_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_UINT16:
        snprintf(buf, sizeof buf, "%u", ((const uint16_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_INT32: snprintf(buf, sizeof buf, "%d", ((const int32_t *)v)[j]); break;
    case BASALT_ARROW_TYPE_UINT32:
        snprintf(buf, sizeof buf, "%u", ((const uint32_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_INT64:
    case BASALT_ARROW_TYPE_DURATION:
        snprintf(buf, sizeof buf, "%lld", (long long)((const int64_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_UINT64:
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)((const uint64_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_HALF_FLOAT:
    case BASALT_ARROW_TYPE_FLOAT:
    case BASALT_ARROW_TYPE_DOUBLE: {
        if (t.id == BASALT_ARROW_TYPE_HALF_FLOAT)
            basalt_json_format_half(((const uint16_t *)v)[j], buf);
        else
            cli_format_double(t.id == BASALT_ARROW_TYPE_FLOAT ? ((const float *)v)[j]
                                                              : ((const double *)v)[j],
                              t.id == BASALT_ARROW_TYPE_FLOAT, buf);
        bool special = buf[0] == 'N' || buf[0] == 'I' || (buf[0] == '-' && buf[1] == 'I');
        if (quote && special)
            return cli_format_json_string(out, (const uint8_t *)buf, strlen(buf), err);
        break;
    }
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_BINARY: {
        int64_t b, e;
        if (t.id == BASALT_ARROW_TYPE_LARGE_STRING || t.id == BASALT_ARROW_TYPE_LARGE_BINARY) {
            b = ((const int64_t *)v)[j];
            e = ((const int64_t *)v)[j + 1];
        } else {
            b = ((const int32_t *)v)[j];
            e = ((const int32_t *)v)[j + 1];
        }
        if (e < b || b < 0)
            return basalt_error_set(err, BASALT_CORRUPT, "string offsets out of order");
        const uint8_t *p = (const uint8_t *)a->buffers[2] + b;
        bool text = t.id == BASALT_ARROW_TYPE_STRING || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
        if (!text) {
            if (quote)
                st = puts_(out, "\"", err);
            if (st == BASALT_OK)
                st = base64(out, p, e - b, err);
            if (st == BASALT_OK && quote)
                st = puts_(out, "\"", err);
            return st;
        }
        return quote ? cli_format_json_string(out, p, (size_t)(e - b), err)
                     : put(out, p, (size_t)(e - b), err);
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY: {
        int64_t w = t.fixed_size;
        if (w == 16 && is_uuid(s)) {
            format_uuid((const uint8_t *)v + j * 16, buf);
            goto quoted;
        }
        if (quote)
            st = puts_(out, "\"", err);
        if (st == BASALT_OK)
            st = base64(out, (const uint8_t *)v + j * w, w, err);
        if (st == BASALT_OK && quote)
            st = puts_(out, "\"", err);
        return st;
    }
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256: {
        int w = (int)(t.bit_width / 8);
        if (quote)
            st = puts_(out, "\"", err);
        if (st == BASALT_OK)
            st = put_decimal(out, (const uint8_t *)v + j * w, w, t.scale, err);
        if (st == BASALT_OK && quote)
            st = puts_(out, "\"", err);
        return st;
    }
    case BASALT_ARROW_TYPE_DATE32:
        format_date(((const int32_t *)v)[j], buf);
        goto quoted;
    case BASALT_ARROW_TYPE_DATE64: {
        int64_t rem;
        format_date(floor_div(((const int64_t *)v)[j], 86400000, &rem), buf);
        goto quoted;
    }
    case BASALT_ARROW_TYPE_TIME32:
        format_time(((const int32_t *)v)[j], (int)t.unit, buf);
        goto quoted;
    case BASALT_ARROW_TYPE_TIME64:
        format_time(((const int64_t *)v)[j], (int)t.unit, buf);
        goto quoted;
    case BASALT_ARROW_TYPE_TIMESTAMP:
        format_timestamp(((const int64_t *)v)[j], (int)t.unit, t.timezone && t.timezone[0], buf);
        goto quoted;
    case BASALT_ARROW_TYPE_INTERVAL_MONTHS:
        snprintf(buf, sizeof buf, "%d", ((const int32_t *)v)[j]);
        break;
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME: {
        const int32_t *p = (const int32_t *)v + 2 * j;
        snprintf(buf, sizeof buf, "{\"days\":%d,\"milliseconds\":%d}", p[0], p[1]);
        break;
    }
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO: {
        const uint8_t *p = (const uint8_t *)v + 16 * j;
        int32_t mo, dd;
        int64_t ns;
        memcpy(&mo, p, 4);
        memcpy(&dd, p + 4, 4);
        memcpy(&ns, p + 8, 8);
        snprintf(buf, sizeof buf, "{\"months\":%d,\"days\":%d,\"nanoseconds\":%lld}", mo, dd,
                 (long long)ns);
        break;
    }
    default:
        return render_nested(s, a, &t, j, mode, out, err);
    }
    return puts_(out, buf, err);
quoted:
    if (!quote)
        return puts_(out, buf, err);
    return cli_format_json_string(out, (const uint8_t *)buf, strlen(buf), err);
}

basalt_status cli_format_json_value(const struct ArrowSchema *s, const struct ArrowArray *a,
                                    int64_t i, struct basalt_buffer *out, struct basalt_error *err)
{
    return render(s, a, i, RENDER_JSON, out, err);
}

static bool numeric_type(const struct ArrowSchema *s)
{
    const struct ArrowSchema *v = s->dictionary ? s->dictionary : s;
    struct basalt_arrow_type t;
    if (basalt_arrow_type_parse(v->format, &t, NULL) != BASALT_OK)
        return false;
    return (t.id >= BASALT_ARROW_TYPE_INT8 && t.id <= BASALT_ARROW_TYPE_DOUBLE) ||
           (t.id >= BASALT_ARROW_TYPE_DECIMAL32 && t.id <= BASALT_ARROW_TYPE_DECIMAL256) ||
           t.id == BASALT_ARROW_TYPE_DURATION;
}

basalt_status cli_format_cell_value(const struct ArrowSchema *s, const struct ArrowArray *a,
                                    int64_t i, struct basalt_buffer *out, bool *is_null,
                                    struct basalt_error *err)
{
    *is_null = !is_valid(a, a->offset + i);
    if (*is_null)
        return BASALT_OK;
    return render(s, a, i, RENDER_CELL, out, err);
}

bool cli_format_numeric(const struct ArrowSchema *s)
{
    return numeric_type(s);
}

/* ------------------------------------------------------------------ sizes */

int64_t cli_format_array_bytes(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    if (!a || !a->release)
        return 0;
    int64_t n = a->offset + a->length, bytes = 0;
    if (a->n_buffers > 0 && a->buffers[0])
        bytes += basalt_bitmap_bytes(n);
    if (s->dictionary) {
        struct basalt_arrow_type t;
        if (basalt_arrow_type_parse(s->format, &t, NULL) == BASALT_OK)
            bytes += n * (t.bit_width / 8);
        return bytes + cli_format_array_bytes(s->dictionary, a->dictionary);
    }
    struct basalt_arrow_type t;
    if (basalt_arrow_type_parse(s->format, &t, NULL) != BASALT_OK)
        return bytes;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL: return 0;
    case BASALT_ARROW_TYPE_BOOL: return bytes + basalt_bitmap_bytes(n);
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_BINARY:
        return bytes + (n + 1) * 4 + (a->buffers[1] ? ((const int32_t *)a->buffers[1])[n] : 0);
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
        return bytes + (n + 1) * 8 + (a->buffers[1] ? ((const int64_t *)a->buffers[1])[n] : 0);
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_MAP:
        bytes += (n + 1) * 4;
        break;
    case BASALT_ARROW_TYPE_LARGE_LIST:
        bytes += (n + 1) * 8;
        break;
    default:
        bytes += n * (t.bit_width / 8);
        break;
    }
    for (int64_t c = 0; c < a->n_children && c < s->n_children; c++)
        bytes += cli_format_array_bytes(s->children[c], a->children[c]);
    return bytes;
}

/* ------------------------------------------------------------------ scalars */

basalt_status cli_format_json_scalar(const char *format, const void *value, size_t len,
                                     struct basalt_buffer *out, struct basalt_error *err)
{
    /* a one-element array over the caller's bytes, rendered as any column */
    int32_t offsets[2] = {0, (int32_t)len};
    const void *buffers[3] = {NULL, value, value};
    bool binary = format[0] == 'u' || format[0] == 'z';
    if (binary) {
        if (len > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "value of %zu bytes", len);
        buffers[1] = offsets;
    }
    struct ArrowSchema s = {.format = format, .name = ""};
    struct ArrowArray a = {.length = 1, .n_buffers = binary ? 3 : 2, .buffers = buffers};
    return render(&s, &a, 0, RENDER_JSON, out, err);
}
