/* `--where` predicates: `col op literal [AND ...]` parsed, bound to a schema
 * (the literal converted to the column's value domain) and evaluated on the
 * rows of Arrow batches. */
#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

enum vclass { VC_NONE = 0, VC_INT, VC_UINT, VC_FLOAT, VC_BYTES, VC_BOOL, VC_DECIMAL };

void cli_where_reset(struct cli_where *w)
{
    for (int32_t i = 0; i < w->n; i++) {
        basalt_free(w->terms[i].column);
        basalt_free(w->terms[i].text);
    }
    basalt_free(w->terms);
    w->terms = NULL;
    w->n = 0;
}

/* ------------------------------------------------------------------ parsing */

struct lexer {
    const char *p;
};

static void skip_space(struct lexer *lx)
{
    while (isspace((unsigned char)*lx->p))
        lx->p++;
}

static bool keyword(struct lexer *lx, const char *kw)
{
    skip_space(lx);
    size_t n = strlen(kw);
    if (strncasecmp(lx->p, kw, n) != 0)
        return false;
    char next = lx->p[n];
    if (isalnum((unsigned char)next) || next == '_')
        return false;
    lx->p += n;
    return true;
}

static char *dup_range(const char *b, size_t n)
{
    char *s = basalt_malloc(n + 1);
    if (s) {
        memcpy(s, b, n);
        s[n] = '\0';
    }
    return s;
}

static basalt_status parse_column(struct lexer *lx, char **out, struct basalt_error *err)
{
    skip_space(lx);
    const char *b = lx->p;
    if (*b == '"') {
        const char *e = strchr(b + 1, '"');
        if (!e)
            return basalt_error_set(err, BASALT_INVALID_ARG, "--where: unterminated \"column\"");
        *out = dup_range(b + 1, (size_t)(e - b - 1));
        lx->p = e + 1;
    } else {
        while (isalnum((unsigned char)*lx->p) || *lx->p == '_' || *lx->p == '.' || *lx->p == '$')
            lx->p++;
        if (lx->p == b)
            return basalt_error_set(err, BASALT_INVALID_ARG, "--where: expected a column at '%s'",
                                    b);
        *out = dup_range(b, (size_t)(lx->p - b));
    }
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static basalt_status parse_op(struct lexer *lx, enum cli_where_op *op, struct basalt_error *err)
{
    skip_space(lx);
    static const struct {
        const char *text;
        enum cli_where_op op;
    } ops[] = {{"<=", CLI_WHERE_LE}, {">=", CLI_WHERE_GE}, {"!=", CLI_WHERE_NE},
               {"<>", CLI_WHERE_NE}, {"==", CLI_WHERE_EQ}, {"=", CLI_WHERE_EQ},
               {"<", CLI_WHERE_LT},  {">", CLI_WHERE_GT}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i].text);
        if (strncmp(lx->p, ops[i].text, n) == 0) {
            lx->p += n;
            *op = ops[i].op;
            return BASALT_OK;
        }
    }
    if (keyword(lx, "IS")) {
        bool not = keyword(lx, "NOT");
        if (!keyword(lx, "NULL"))
            return basalt_error_set(err, BASALT_INVALID_ARG, "--where: expected NULL after IS%s",
                                    not ? " NOT" : "");
        *op = not ? CLI_WHERE_IS_NOT_NULL : CLI_WHERE_IS_NULL;
        return BASALT_OK;
    }
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "--where: expected an operator (= != < <= > >= IS NULL) at '%s'",
                            lx->p);
}

static basalt_status parse_literal(struct lexer *lx, struct cli_where_term *t,
                                   struct basalt_error *err)
{
    skip_space(lx);
    const char *b = lx->p;
    if (*b == '\'') {
        struct basalt_buffer s;
        basalt_buffer_init(&s);
        const char *p = b + 1;
        basalt_status st = BASALT_OK;
        for (;;) {
            if (!*p) {
                basalt_buffer_reset(&s);
                return basalt_error_set(err, BASALT_INVALID_ARG, "--where: unterminated string");
            }
            if (*p == '\'') {
                if (p[1] != '\'')
                    break;
                p++;
            }
            st = basalt_buffer_append(&s, p, 1, err);
            if (st != BASALT_OK) {
                basalt_buffer_reset(&s);
                return st;
            }
            p++;
        }
        t->text = dup_range(s.data ? (const char *)s.data : "", s.size);
        basalt_buffer_reset(&s);
        lx->p = p + 1;
        t->kind = CLI_WHERE_LIT_STRING;
        return t->text ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (keyword(lx, "true") || keyword(lx, "false")) {
        t->kind = CLI_WHERE_LIT_BOOL;
        t->b = tolower((unsigned char)b[0]) == 't';
        t->text = dup_range(b, (size_t)(lx->p - b));
        return t->text ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    const char *p = b;
    if (*p == '-' || *p == '+')
        p++;
    while (isalnum((unsigned char)*p) || *p == '.' ||
           ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E')))
        p++;
    if (p == b || !(isdigit((unsigned char)b[0]) || isdigit((unsigned char)b[1]) || b[1] == '.'))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "--where: expected a literal (number, 'string', true, false) at "
                                "'%s'",
                                b);
    t->kind = CLI_WHERE_LIT_NUMBER;
    t->text = dup_range(b, (size_t)(p - b));
    lx->p = p;
    return t->text ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status cli_where_parse(const char *text, struct cli_where *out, struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    struct lexer lx = {text};
    int32_t cap = 0;
    basalt_status st = BASALT_OK;
    do {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 4;
            struct cli_where_term *t = basalt_realloc(out->terms, sizeof *t * (size_t)cap);
            if (!t) {
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                break;
            }
            out->terms = t;
        }
        struct cli_where_term *t = &out->terms[out->n];
        memset(t, 0, sizeof *t);
        out->n++;
        st = parse_column(&lx, &t->column, err);
        if (st == BASALT_OK)
            st = parse_op(&lx, &t->op, err);
        if (st == BASALT_OK && t->op != CLI_WHERE_IS_NULL && t->op != CLI_WHERE_IS_NOT_NULL)
            st = parse_literal(&lx, t, err);
    } while (st == BASALT_OK && keyword(&lx, "AND"));
    skip_space(&lx);
    if (st == BASALT_OK && *lx.p)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "--where: unexpected '%s' (terms are "
                              "joined with AND)", lx.p);
    if (st != BASALT_OK)
        cli_where_reset(out);
    return st;
}

/* ------------------------------------------------------------------ literals */

static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* 'YYYY-MM-DD' at the start of s; *used is its length. */
static bool parse_date(const char *s, int64_t *days, size_t *used)
{
    int y, m, d, n = 0;
    if (sscanf(s, "%d-%d-%d%n", &y, &m, &d, &n) != 3 || m < 1 || m > 12 || d < 1 || d > 31)
        return false;
    *days = days_from_civil(y, (unsigned)m, (unsigned)d);
    *used = (size_t)n;
    return true;
}

static const int64_t per_second[] = {1, 1000, 1000000, 1000000000};

/* 'HH:MM[:SS[.fraction]]' in `unit` ticks; *inexact when the fraction is
 * finer than the unit. */
static bool parse_clock(const char *s, int unit, int64_t *out, bool *inexact, size_t *used)
{
    int h, mi, sec = 0, n = 0;
    if (sscanf(s, "%d:%d%n", &h, &mi, &n) != 2 || h < 0 || mi < 0 || mi > 59)
        return false;
    const char *p = s + n;
    if (*p == ':') {
        int k = 0;
        if (sscanf(p + 1, "%d%n", &sec, &k) != 1 || sec < 0 || sec > 60)
            return false;
        p += 1 + k;
    }
    int64_t ticks = ((int64_t)h * 3600 + mi * 60 + sec) * per_second[unit];
    if (*p == '.') {
        p++;
        int64_t scale = per_second[unit];
        while (isdigit((unsigned char)*p)) {
            scale /= 10;
            if (scale > 0)
                ticks += (*p - '0') * scale;
            else if (*p != '0')
                *inexact = true;
            p++;
        }
    }
    *out = ticks;
    *used = (size_t)(p - s);
    return true;
}

static bool parse_timestamp(const char *s, int unit, int64_t *out, bool *inexact)
{
    int64_t days;
    size_t n = 0;
    if (!parse_date(s, &days, &n))
        return false;
    const char *p = s + n;
    int64_t ticks = 0;
    if (*p == 'T' || *p == ' ') {
        size_t k = 0;
        if (!parse_clock(p + 1, unit, &ticks, inexact, &k))
            return false;
        p += 1 + k;
    }
    if (*p == 'Z')
        p++;
    if (*p)
        return false;
    *out = days * 86400 * per_second[unit] + ticks;
    return true;
}

/* A decimal literal as an unscaled value at `scale`, floored, with
 * *inexact set when digits were dropped. */
static bool parse_decimal(const char *s, int scale, __int128 *out, bool *inexact)
{
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    __int128 v = 0;
    int digits = 0, frac = 0;
    bool point = false, dropped = false;
    for (; *s; s++) {
        if (*s == '.' && !point) {
            point = true;
            continue;
        }
        if (!isdigit((unsigned char)*s))
            return false;
        if (point && frac >= scale) {
            dropped |= *s != '0';
            continue;
        }
        if (++digits > 38)
            return false;
        v = v * 10 + (*s - '0');
        frac += point;
    }
    if (digits == 0)
        return false;
    for (; frac < scale; frac++) {
        if (++digits > 38)
            return false;
        v *= 10;
    }
    if (neg) {
        v = -v;
        if (dropped)
            v -= 1; /* floor */
    }
    *out = v;
    *inexact = dropped;
    return true;
}

/* ------------------------------------------------------------------ binding */

static const struct ArrowSchema *value_type(const struct ArrowSchema *s)
{
    return s->dictionary ? s->dictionary : s;
}

static basalt_status bind_literal(struct cli_where_term *t, struct basalt_error *err)
{
    const struct ArrowSchema *vt = value_type(t->type);
    struct basalt_arrow_type at;
    basalt_status st = basalt_arrow_type_parse(vt->format, &at, err);
    if (st != BASALT_OK)
        return st;
    bool null_test = t->op == CLI_WHERE_IS_NULL || t->op == CLI_WHERE_IS_NOT_NULL;
    int unit = (int)at.unit;
    bool num = t->kind == CLI_WHERE_LIT_NUMBER, str = t->kind == CLI_WHERE_LIT_STRING;
    switch (at.id) {
    case BASALT_ARROW_TYPE_INT8:
    case BASALT_ARROW_TYPE_INT16:
    case BASALT_ARROW_TYPE_INT32:
    case BASALT_ARROW_TYPE_INT64:
    case BASALT_ARROW_TYPE_DURATION:
        t->value_class = VC_INT;
        if (!null_test && !(num && parse_int(t->text, &t->i)))
            goto mismatch;
        return BASALT_OK;
    case BASALT_ARROW_TYPE_UINT8:
    case BASALT_ARROW_TYPE_UINT16:
    case BASALT_ARROW_TYPE_UINT32:
    case BASALT_ARROW_TYPE_UINT64:
        t->value_class = VC_UINT;
        if (null_test)
            return BASALT_OK;
        if (num && t->text[0] == '-') {
            if (!parse_int(t->text, &t->i))
                goto mismatch;
            t->inexact = true; /* below every value: marked with i < 0 */
            return BASALT_OK;
        }
        if (num) {
            char *end;
            errno = 0;
            t->u = strtoull(t->text, &end, 10);
            if (!errno && end != t->text && !*end)
                return BASALT_OK;
        }
        goto mismatch;
    case BASALT_ARROW_TYPE_HALF_FLOAT:
    case BASALT_ARROW_TYPE_FLOAT:
    case BASALT_ARROW_TYPE_DOUBLE:
        t->value_class = VC_FLOAT;
        if (null_test)
            return BASALT_OK;
        if (num || (str && (strcmp(t->text, "NaN") == 0 || strcmp(t->text, "Infinity") == 0 ||
                            strcmp(t->text, "-Infinity") == 0))) {
            char *end;
            t->d = strcmp(t->text, "Infinity") == 0    ? INFINITY
                   : strcmp(t->text, "-Infinity") == 0 ? -INFINITY
                   : strcmp(t->text, "NaN") == 0       ? NAN
                                                       : strtod(t->text, &end);
            if (!num || !*end)
                return BASALT_OK;
        }
        goto mismatch;
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
        t->value_class = VC_BYTES;
        if (!null_test && !str)
            goto mismatch;
        return BASALT_OK;
    case BASALT_ARROW_TYPE_BOOL:
        t->value_class = VC_BOOL;
        if (!null_test && t->kind != CLI_WHERE_LIT_BOOL)
            goto mismatch;
        return BASALT_OK;
    case BASALT_ARROW_TYPE_DATE32:
    case BASALT_ARROW_TYPE_DATE64: {
        t->value_class = VC_INT;
        if (null_test)
            return BASALT_OK;
        int64_t days;
        size_t n = 0;
        if (str && parse_date(t->text, &days, &n) && !t->text[n]) {
            t->i = at.id == BASALT_ARROW_TYPE_DATE64 ? days * 86400000 : days;
            return BASALT_OK;
        }
        goto mismatch;
    }
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_TIME64: {
        t->value_class = VC_INT;
        size_t n = 0;
        if (null_test || (str && parse_clock(t->text, unit, &t->i, &t->inexact, &n) && !t->text[n]))
            return BASALT_OK;
        goto mismatch;
    }
    case BASALT_ARROW_TYPE_TIMESTAMP:
        t->value_class = VC_INT;
        if (null_test || (str && parse_timestamp(t->text, unit, &t->i, &t->inexact)))
            return BASALT_OK;
        goto mismatch;
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256:
        t->value_class = VC_DECIMAL;
        if (null_test || (num && parse_decimal(t->text, at.scale, &t->wide, &t->inexact)))
            return BASALT_OK;
        goto mismatch;
    default:
        if (null_test) {
            t->value_class = VC_NONE;
            return BASALT_OK;
        }
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "--where: column '%s' (type '%s') cannot be compared", t->column,
                                vt->format);
    }
mismatch:
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "--where: %s%s%s does not fit column '%s' of type '%s'",
                            str ? "'" : "", t->text ? t->text : "", str ? "'" : "", t->column,
                            vt->format);
}

/* Lists, large lists, fixed-size lists and maps: values with elements. */
static bool is_list_like(const struct ArrowSchema *s)
{
    const char *f = s->format;
    return !s->dictionary && s->n_children == 1 &&
           (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0 ||
            strncmp(f, "+w:", 3) == 0);
}

static int32_t child_named(const struct ArrowSchema *s, const char *name, size_t len)
{
    for (int64_t i = 0; i < s->n_children; i++) {
        const char *n = s->children[i]->name;
        if (n && strlen(n) == len && memcmp(n, name, len) == 0)
            return (int32_t)i;
    }
    return -1;
}

basalt_status cli_where_bind(struct cli_where *w, const struct ArrowSchema *schema,
                             struct basalt_error *err)
{
    for (int32_t k = 0; k < w->n; k++) {
        struct cli_where_term *t = &w->terms[k];
        t->depth = 0;
        /* A whole top-level name first (names may hold dots), else a path. */
        int32_t top = child_named(schema, t->column, strlen(t->column));
        const char *rest = NULL;
        if (top < 0) {
            const char *dot = strchr(t->column, '.');
            top = child_named(schema, t->column, dot ? (size_t)(dot - t->column) : strlen(t->column));
            rest = dot ? dot + 1 : NULL;
        }
        if (top < 0)
            return basalt_error_set(err, BASALT_NOT_FOUND, "--where: column '%s' not found",
                                    t->column);
        t->top = top;
        const struct ArrowSchema *s = schema->children[top];
        while (rest) {
            bool each = is_list_like(s);
            if ((!each && strcmp(s->format, "+s") != 0) || t->depth >= 16)
                return basalt_error_set(err, BASALT_NOT_FOUND,
                                        "--where: column '%s' not found (paths go through "
                                        "structs, lists and maps)",
                                        t->column);
            const char *dot = strchr(rest, '.');
            size_t len = dot ? (size_t)(dot - rest) : strlen(rest);
            int32_t c = child_named(s, rest, len);
            if (c < 0 && each && dot) {
                /* The Parquet form names the repeated group before the
                 * element ("l.list.element"). */
                const char *next = dot + 1, *dot2 = strchr(next, '.');
                c = child_named(s, next, dot2 ? (size_t)(dot2 - next) : strlen(next));
                if (c >= 0)
                    dot = dot2;
            }
            if (c < 0)
                return basalt_error_set(err, BASALT_NOT_FOUND, "--where: column '%s' not found",
                                        t->column);
            t->each[t->depth] = each;
            t->node[t->depth] = s;
            t->path[t->depth++] = c;
            s = s->children[c];
            rest = dot ? dot + 1 : NULL;
        }
        t->type = s;
        basalt_status st = bind_literal(t, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ evaluation */

static bool valid_at(const struct ArrowArray *a, int64_t j)
{
    if (a->n_buffers == 0)
        return false;
    const uint8_t *v = a->buffers[0];
    return !v || basalt_bitmap_get(v, j);
}

static int sign128(__int128 a, __int128 b)
{
    return (a > b) - (a < b);
}

/* Sign of (value - literal) for the value at physical index j of a (values
 * array, dictionary already resolved); *nan when the value is NaN. */
static int compare(const struct cli_where_term *t, const struct ArrowSchema *s,
                   const struct ArrowArray *a, int64_t j, bool *nan)
{
    struct basalt_arrow_type at;
    *nan = false;
    if (basalt_arrow_type_parse(s->format, &at, NULL) != BASALT_OK)
        return 0;
    const void *v = a->buffers[1];
    switch (t->value_class) {
    case VC_INT: {
        int64_t x;
        switch (at.bit_width) {
        case 8: x = ((const int8_t *)v)[j]; break;
        case 16: x = ((const int16_t *)v)[j]; break;
        case 32: x = ((const int32_t *)v)[j]; break;
        default: x = ((const int64_t *)v)[j]; break;
        }
        if (t->inexact) /* the literal lies just above t->i */
            return x <= t->i ? -1 : 1;
        return (x > t->i) - (x < t->i);
    }
    case VC_UINT: {
        uint64_t x;
        switch (at.bit_width) {
        case 8: x = ((const uint8_t *)v)[j]; break;
        case 16: x = ((const uint16_t *)v)[j]; break;
        case 32: x = ((const uint32_t *)v)[j]; break;
        default: x = ((const uint64_t *)v)[j]; break;
        }
        if (t->inexact)
            return 1; /* a negative literal */
        return (x > t->u) - (x < t->u);
    }
    case VC_FLOAT: {
        double x;
        if (at.id == BASALT_ARROW_TYPE_HALF_FLOAT) {
            uint16_t h = ((const uint16_t *)v)[j];
            int e = (h >> 10) & 0x1f, f = h & 0x3ff;
            x = e == 0 ? ldexp(f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp(f | 0x400, e - 25);
            if (h & 0x8000)
                x = -x;
        } else if (at.id == BASALT_ARROW_TYPE_FLOAT) {
            x = ((const float *)v)[j];
        } else {
            x = ((const double *)v)[j];
        }
        if (isnan(x) || isnan(t->d)) {
            *nan = true;
            return 0;
        }
        return (x > t->d) - (x < t->d);
    }
    case VC_BYTES: {
        const uint8_t *p;
        int64_t n;
        if (at.id == BASALT_ARROW_TYPE_FIXED_SIZE_BINARY) {
            n = at.fixed_size;
            p = (const uint8_t *)v + j * n;
        } else if (at.id == BASALT_ARROW_TYPE_LARGE_STRING ||
                   at.id == BASALT_ARROW_TYPE_LARGE_BINARY) {
            const int64_t *o = v;
            p = (const uint8_t *)a->buffers[2] + o[j];
            n = o[j + 1] - o[j];
        } else {
            const int32_t *o = v;
            p = (const uint8_t *)a->buffers[2] + o[j];
            n = o[j + 1] - o[j];
        }
        size_t len = strlen(t->text), m = (size_t)n < len ? (size_t)n : len;
        int c = m ? memcmp(p, t->text, m) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return ((size_t)n > len) - ((size_t)n < len);
    }
    case VC_BOOL: {
        int x = basalt_bitmap_get(v, j);
        return (x > t->b) - (x < t->b);
    }
    case VC_DECIMAL: {
        int w = (int)(at.bit_width / 8);
        const uint8_t *p = (const uint8_t *)v + (int64_t)j * w;
        __int128 x = 0;
        int n = w < 16 ? w : 16;
        for (int k = n - 1; k >= 0; k--)
            x = (x << 8) | p[k];
        if (n < 16 && (p[n - 1] & 0x80)) /* sign-extend */
            x -= (__int128)1 << (8 * n);
        /* decimal256 beyond 128 bits: its sign says which side it is on. */
        bool neg = (p[w - 1] & 0x80) != 0;
        for (int k = 16; k < w; k++)
            if (p[k] != (neg ? 0xff : 0x00) || ((p[15] & 0x80) != 0) != neg)
                return neg ? -1 : 1;
        if (t->inexact)
            return x <= t->wide ? -1 : 1;
        return sign128(x, t->wide);
    }
    default:
        return 0;
    }
}

/* The term on value i (logical: before a->offset) of `a`, the array reached
 * at depth `d` of the term's path; `null` when a struct on the way is. */
static bool value_match(const struct cli_where_term *t, const struct ArrowArray *a, int64_t i,
                        int32_t d, bool null)
{
    int64_t j = a->offset + i;
    if (d < t->depth) {
        if (!null && !valid_at(a, j))
            null = true;
        if (!t->each[d])
            return value_match(t, a->children[t->path[d]], j, d + 1, null);
        /* ANY over the elements; a null list has none. */
        if (null)
            return false;
        const struct ArrowSchema *s = t->node[d];
        int64_t b, e;
        if (s->format[1] == 'w') {
            int64_t n = atoll(s->format + 3);
            b = j * n;
            e = b + n;
        } else if (s->format[1] == 'L') {
            b = ((const int64_t *)a->buffers[1])[j];
            e = ((const int64_t *)a->buffers[1])[j + 1];
        } else {
            b = ((const int32_t *)a->buffers[1])[j];
            e = ((const int32_t *)a->buffers[1])[j + 1];
        }
        for (int64_t k = b; k < e; k++)
            if (value_match(t, a->children[0], k, d + 1, false))
                return true;
        return false;
    }
    const struct ArrowSchema *s = t->type;
    if (!null && !valid_at(a, j))
        null = true;
    if (t->op == CLI_WHERE_IS_NULL || t->op == CLI_WHERE_IS_NOT_NULL)
        return null == (t->op == CLI_WHERE_IS_NULL);
    if (null)
        return false;
    if (s->dictionary) {
        const void *ix = a->buffers[1];
        int64_t k = s->format[0] == 'l' ? ((const int64_t *)ix)[j]
                    : s->format[0] == 's' ? ((const int16_t *)ix)[j]
                    : s->format[0] == 'c' ? ((const int8_t *)ix)[j]
                                          : ((const int32_t *)ix)[j];
        a = a->dictionary;
        s = s->dictionary;
        j = a->offset + k;
        if (!valid_at(a, j))
            return false;
    }
    bool nan = false;
    int c = compare(t, s, a, j, &nan);
    if (nan)
        return t->op == CLI_WHERE_NE;
    switch (t->op) {
    case CLI_WHERE_EQ: return c == 0 && !(t->inexact && t->value_class != VC_UINT);
    case CLI_WHERE_NE: return c != 0;
    case CLI_WHERE_LT: return c < 0;
    case CLI_WHERE_LE: return c <= 0;
    case CLI_WHERE_GT: return c > 0;
    case CLI_WHERE_GE: return c >= 0;
    default: return false;
    }
}

bool cli_where_match(const struct cli_where *w, const struct ArrowArray *batch, int64_t row)
{
    for (int32_t k = 0; k < w->n; k++)
        if (!value_match(&w->terms[k], batch->children[w->terms[k].top], batch->offset + row, 0,
                         false))
            return false;
    return true;
}

int cli_where_stored_literal(const struct cli_where_term *t, int64_t *i, uint64_t *u, double *d)
{
    if (t->op == CLI_WHERE_IS_NULL || t->op == CLI_WHERE_IS_NOT_NULL)
        return 0;
    switch (t->value_class) {
    case VC_INT:
        if (t->inexact)
            return -1;
        *i = t->i;
        return 1;
    case VC_UINT:
        if (t->inexact) {
            *i = t->i;
            return 1;
        }
        *u = t->u;
        return 2;
    case VC_FLOAT: *d = t->d; return 3;
    case VC_BYTES: return 4;
    case VC_BOOL: return 5;
    default: return -1;
    }
}
