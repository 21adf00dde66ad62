/* Canonical text of expressions, in the filter language parse() reads. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "expr_internal.h"

struct writer {
    char *buf;
    size_t cap, len;
};

static void put(struct writer *w, const char *s, size_t n)
{
    if (w->len < w->cap) {
        size_t room = w->cap - w->len;
        memcpy(w->buf + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

static void puts_(struct writer *w, const char *s) { put(w, s, strlen(s)); }

static bool bare_part(const char *s, size_t n)
{
    static const char *const words[] = {"AND",  "OR",     "NOT",  "IN",   "IS",   "NULL",
                                        "NAN",  "STARTS", "WITH", "LIKE", "TRUE", "FALSE"};
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
        if (strlen(words[k]) != n)
            continue;
        size_t i = 0;
        while (i < n && (s[i] & ~0x20) == words[k][i])
            i++;
        if (i == n)
            return false;
    }
    return true;
}

static void quoted(struct writer *w, const char *s, size_t n, char q)
{
    put(w, &q, 1);
    for (size_t i = 0; i < n; i++) {
        put(w, s + i, 1);
        if (s[i] == q)
            put(w, &q, 1);
    }
    put(w, &q, 1);
}

static void name(struct writer *w, const char *s)
{
    size_t n = strlen(s);
    bool bare = true;
    for (size_t i = 0, start = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!bare_part(s + start, i - start))
                bare = false;
            start = i + 1;
        }
    }
    if (bare)
        put(w, s, n);
    else
        quoted(w, s, n, '"');
}

/* A double with an exponent (so it reads back as a double), in the fewest
 * digits that read back to the same value as `single` or double precision. */
static void floating(struct writer *w, double v, bool single)
{
    char text[64];
    if (isnan(v)) {
        puts_(w, "'NaN'");
        return;
    }
    if (isinf(v)) {
        puts_(w, v < 0 ? "-1e999" : "1e999");
        return;
    }
    char digits[17];
    int x = 0;
    int nd = single ? basalt_float_shortest((float)v, digits, &x)
                    : basalt_double_shortest(v, digits, &x);
    /* as "%.*e" prints it: d[.ddd]e+XX */
    int n = 0;
    if (signbit(v))
        text[n++] = '-';
    text[n++] = digits[0];
    if (nd > 1) {
        text[n++] = '.';
        memcpy(text + n, digits + 1, (size_t)(nd - 1));
        n += nd - 1;
    }
    n += snprintf(text + n, sizeof(text) - (size_t)n, "e%c%02d", x < 0 ? '-' : '+',
                  x < 0 ? -x : x);
    /* parse() reads it as a double that binding casts to float: for the one
     * float in 2^31 that this loses (see value_string.c), more digits */
    for (int p = 0; single && !basalt_iceberg_float_text_reads_back(text, (float)v) && p < 9; p++)
        n = snprintf(text, sizeof(text), "%.*e", p, v);
    put(w, text, (size_t)n);
}

static void literal(struct writer *w, const struct basalt_iceberg_value *v)
{
    char text[160];
    if (v->is_null) {
        puts_(w, "NULL");
        return;
    }
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        puts_(w, v->u.b ? "TRUE" : "FALSE");
        return;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_DECIMAL:
        basalt_iceberg_value_to_string(v, text, sizeof(text));
        puts_(w, text);
        if (v->type == BASALT_ICEBERG_TYPE_DECIMAL && v->scale <= 0)
            puts_(w, ".");
        return;
    case BASALT_ICEBERG_TYPE_FLOAT:
        floating(w, v->u.f32, true);
        return;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        floating(w, v->u.f64, false);
        return;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_FIXED:
        quoted(w, (const char *)v->u.bytes.data, v->u.bytes.len, '\'');
        return;
    default:
        if (basalt_iceberg_value_to_string(v, text, sizeof(text)) != BASALT_OK)
            text[0] = '\0';
        quoted(w, text, strlen(text), '\'');
        return;
    }
}

static int precedence(enum basalt_iceberg_op op)
{
    switch (op) {
    case BASALT_ICEBERG_OP_OR: return 1;
    case BASALT_ICEBERG_OP_AND: return 2;
    case BASALT_ICEBERG_OP_NOT: return 3;
    default: return 4;
    }
}

static bool print(struct writer *w, const struct basalt_iceberg_expr *e);

static bool child(struct writer *w, const struct basalt_iceberg_expr *e, bool parens)
{
    if (!e)
        return false;
    if (parens)
        puts_(w, "(");
    bool ok = print(w, e);
    if (parens)
        puts_(w, ")");
    return ok;
}

static bool print(struct writer *w, const struct basalt_iceberg_expr *e)
{
    static const char *const cmp[] = {"<", "<=", ">", ">=", "=", "!="};
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
        puts_(w, "TRUE");
        return true;
    case BASALT_ICEBERG_OP_FALSE:
        puts_(w, "FALSE");
        return true;
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR: {
        int p = precedence(e->op);
        if (!e->left || !e->right || !child(w, e->left, precedence(e->left->op) < p))
            return false;
        puts_(w, e->op == BASALT_ICEBERG_OP_AND ? " AND " : " OR ");
        return child(w, e->right, precedence(e->right->op) <= p);
    }
    case BASALT_ICEBERG_OP_NOT:
        puts_(w, "NOT ");
        return e->left && child(w, e->left, precedence(e->left->op) < 3);
    default:
        break;
    }
    if (!e->name)
        return false;
    name(w, e->name);
    switch (e->op) {
    case BASALT_ICEBERG_OP_IS_NULL: puts_(w, " IS NULL"); return true;
    case BASALT_ICEBERG_OP_NOT_NULL: puts_(w, " IS NOT NULL"); return true;
    case BASALT_ICEBERG_OP_IS_NAN: puts_(w, " IS NAN"); return true;
    case BASALT_ICEBERG_OP_NOT_NAN: puts_(w, " IS NOT NAN"); return true;
    case BASALT_ICEBERG_OP_IN:
    case BASALT_ICEBERG_OP_NOT_IN:
        puts_(w, e->op == BASALT_ICEBERG_OP_IN ? " IN (" : " NOT IN (");
        for (uint32_t i = 0; i < e->n_literals; i++) {
            if (i)
                puts_(w, ", ");
            literal(w, &e->literals[i]);
        }
        puts_(w, ")");
        return true;
    case BASALT_ICEBERG_OP_STARTS_WITH:
    case BASALT_ICEBERG_OP_NOT_STARTS_WITH:
        if (e->n_literals != 1)
            return false;
        puts_(w, e->op == BASALT_ICEBERG_OP_STARTS_WITH ? " STARTS WITH " : " NOT STARTS WITH ");
        literal(w, &e->literals[0]);
        return true;
    default:
        if (e->op < BASALT_ICEBERG_OP_LT || e->op > BASALT_ICEBERG_OP_NOT_EQ || e->n_literals != 1)
            return false;
        puts_(w, " ");
        puts_(w, cmp[e->op - BASALT_ICEBERG_OP_LT]);
        puts_(w, " ");
        literal(w, &e->literals[0]);
        return true;
    }
}

basalt_status basalt_iceberg_expr_to_string(const struct basalt_iceberg_expr *expr, char *buf,
                                            size_t cap)
{
    if (!expr || (!buf && cap))
        return BASALT_INVALID_ARG;
    struct writer w = {buf, cap, 0};
    if (!print(&w, expr))
        return BASALT_INVALID_ARG;
    if (w.len >= cap) {
        if (cap > 0)
            buf[cap - 1] = '\0';
        return BASALT_LIMIT;
    }
    buf[w.len] = '\0';
    return BASALT_OK;
}
