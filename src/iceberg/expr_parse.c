/* The filter language (grammar in iceberg_expr.h): a lexer and a recursive
 * descent parser building unbound expressions without folding, so that
 * to_string and parse round-trip node for node. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

enum tok_kind {
    TOK_END,
    TOK_IDENT,   /* bare identifier that is not a keyword */
    TOK_QUOTED,  /* "quoted identifier" */
    TOK_NUMBER,
    TOK_STRING,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_COMMA,
    TOK_DOT,
    TOK_CMP,     /* cmp holds the operator */
    TOK_AND,
    TOK_OR,
    TOK_NOT,
    TOK_IN,
    TOK_IS,
    TOK_NULL,
    TOK_NAN,
    TOK_STARTS,
    TOK_WITH,
    TOK_LIKE,
    TOK_TRUE,
    TOK_FALSE
};

struct token {
    enum tok_kind kind;
    size_t start, len;
    enum basalt_iceberg_op cmp;
};

struct parser {
    const char *text;
    size_t pos;
    struct token tok;
    struct basalt_arena *arena;
    struct basalt_error *err;
    int nest;
};

static const struct {
    const char *word;
    enum tok_kind kind;
} keywords[] = {
    {"AND", TOK_AND},   {"OR", TOK_OR},         {"NOT", TOK_NOT},     {"IN", TOK_IN},
    {"IS", TOK_IS},     {"NULL", TOK_NULL},     {"NAN", TOK_NAN},     {"STARTS", TOK_STARTS},
    {"WITH", TOK_WITH}, {"LIKE", TOK_LIKE},     {"TRUE", TOK_TRUE},   {"FALSE", TOK_FALSE},
};

static bool ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static char upper(char c) { return (c >= 'a' && c <= 'z') ? (char)(c - 32) : c; }

/* The keyword a bare word is, or TOK_IDENT. Shared with the printer through
 * the same table (a bare name must not be one). */
static enum tok_kind keyword(const char *s, size_t len)
{
    for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++) {
        const char *w = keywords[k].word;
        if (strlen(w) != len)
            continue;
        size_t i = 0;
        while (i < len && upper(s[i]) == w[i])
            i++;
        if (i == len)
            return keywords[k].kind;
    }
    return TOK_IDENT;
}

static basalt_status syntax(struct parser *p, size_t at, const char *what)
{
    return basalt_error_set(p->err, BASALT_INVALID_ARG, "filter: %s at byte %zu", what, at);
}

static basalt_status next(struct parser *p)
{
    const char *s = p->text;
    size_t i = p->pos;
    while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
        i++;
    struct token t = {TOK_END, i, 0, BASALT_ICEBERG_OP_EQ};
    char c = s[i];
    if (c == '\0') {
        t.kind = TOK_END;
    } else if (ident_start(c)) {
        size_t j = i;
        while (ident_char(s[j]))
            j++;
        t.len = j - i;
        t.kind = keyword(s + i, t.len);
    } else if (c == '"' || c == '\'') {
        size_t j = i + 1;
        for (;;) {
            if (s[j] == '\0')
                return syntax(p, i, c == '"' ? "unterminated quoted name starting"
                                             : "unterminated string starting");
            if (s[j] == c) {
                if (s[j + 1] == c) {
                    j += 2;
                    continue;
                }
                break;
            }
            j++;
        }
        t.len = j + 1 - i;
        t.kind = c == '"' ? TOK_QUOTED : TOK_STRING;
    } else if (is_digit(c) || ((c == '-' || c == '+') && is_digit(s[i + 1]))) {
        size_t j = i + 1;
        while (is_digit(s[j]))
            j++;
        if (s[j] == '.') {
            j++;
            while (is_digit(s[j]))
                j++;
        }
        if ((s[j] == 'e' || s[j] == 'E') &&
            (is_digit(s[j + 1]) || ((s[j + 1] == '-' || s[j + 1] == '+') && is_digit(s[j + 2])))) {
            j += 2;
            while (is_digit(s[j]))
                j++;
        }
        t.len = j - i;
        t.kind = TOK_NUMBER;
    } else {
        t.len = 1;
        switch (c) {
        case '(': t.kind = TOK_LPAREN; break;
        case ')': t.kind = TOK_RPAREN; break;
        case ',': t.kind = TOK_COMMA; break;
        case '.': t.kind = TOK_DOT; break;
        case '=':
            t.kind = TOK_CMP;
            t.cmp = BASALT_ICEBERG_OP_EQ;
            if (s[i + 1] == '=')
                t.len = 2;
            break;
        case '!':
            if (s[i + 1] != '=')
                return syntax(p, i, "expected '!=' (unexpected character '!')");
            t.kind = TOK_CMP;
            t.cmp = BASALT_ICEBERG_OP_NOT_EQ;
            t.len = 2;
            break;
        case '<':
            t.kind = TOK_CMP;
            t.cmp = BASALT_ICEBERG_OP_LT;
            if (s[i + 1] == '=') {
                t.cmp = BASALT_ICEBERG_OP_LT_EQ;
                t.len = 2;
            } else if (s[i + 1] == '>') {
                t.cmp = BASALT_ICEBERG_OP_NOT_EQ;
                t.len = 2;
            }
            break;
        case '>':
            t.kind = TOK_CMP;
            t.cmp = BASALT_ICEBERG_OP_GT;
            if (s[i + 1] == '=') {
                t.cmp = BASALT_ICEBERG_OP_GT_EQ;
                t.len = 2;
            }
            break;
        default:
            return syntax(p, i, "unexpected character");
        }
    }
    p->tok = t;
    p->pos = i + t.len;
    return BASALT_OK;
}

#define TRY(x)                                                                              \
    do {                                                                                    \
        basalt_status st_ = (x);                                                            \
        if (st_ != BASALT_OK)                                                               \
            return st_;                                                                     \
    } while (0)

static basalt_status nomem(struct parser *p)
{
    return basalt_error_set(p->err, BASALT_NOMEM, "filter: out of memory");
}

/* Appends the unquoted text of a quoted token (doubled quotes collapsed). */
static size_t unquote(const char *s, size_t len, char *out)
{
    char q = s[0];
    size_t n = 0;
    for (size_t i = 1; i + 1 < len; i++) {
        out[n++] = s[i];
        if (s[i] == q)
            i++;
    }
    return n;
}

/* column := part {'.' part}; the dotted name into the arena. */
static basalt_status parse_column(struct parser *p, const char **name)
{
    size_t cap = 0;
    char *buf = NULL;
    size_t n = 0;
    for (;;) {
        if (p->tok.kind != TOK_IDENT && p->tok.kind != TOK_QUOTED)
            return syntax(p, p->tok.start, "expected a column name");
        size_t need = n + p->tok.len + 1;
        if (need > cap) {
            size_t ncap = need * 2 + 16;
            char *nb = basalt_arena_alloc(p->arena, ncap, 1);
            if (!nb)
                return nomem(p);
            if (n)
                memcpy(nb, buf, n);
            buf = nb;
            cap = ncap;
        }
        if (p->tok.kind == TOK_IDENT) {
            memcpy(buf + n, p->text + p->tok.start, p->tok.len);
            n += p->tok.len;
        } else {
            n += unquote(p->text + p->tok.start, p->tok.len, buf + n);
        }
        TRY(next(p));
        if (p->tok.kind != TOK_DOT)
            break;
        buf[n++] = '.';
        TRY(next(p));
    }
    buf[n] = '\0';
    *name = buf;
    return BASALT_OK;
}

static basalt_status parse_number(struct parser *p, struct basalt_iceberg_value *v)
{
    const char *s = p->text + p->tok.start;
    size_t len = p->tok.len;
    bool point = false, exp = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.')
            point = true;
        if (s[i] == 'e' || s[i] == 'E')
            exp = true;
    }
    memset(v, 0, sizeof(*v));
    char tmp[512];
    if (exp) {
        if (len >= sizeof(tmp))
            return syntax(p, p->tok.start, "number too long");
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        v->type = BASALT_ICEBERG_TYPE_DOUBLE;
        v->u.f64 = strtod(tmp, NULL);
        return BASALT_OK;
    }
    size_t i = 0;
    bool neg = false;
    if (s[i] == '-' || s[i] == '+')
        neg = s[i++] == '-';
    if (!point) {
        uint64_t mag = 0;
        for (; i < len; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (mag > (UINT64_MAX - d) / 10)
                return syntax(p, p->tok.start, "integer out of the range of a long");
            mag = mag * 10 + d;
        }
        if (mag > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
            return syntax(p, p->tok.start, "integer out of the range of a long");
        v->type = BASALT_ICEBERG_TYPE_LONG;
        v->u.i64 = neg ? (int64_t)(0 - mag) : (int64_t)mag;
        return BASALT_OK;
    }
    struct basalt_iceberg_decimal d = {0, 0};
    int significant = 0, scale = 0;
    bool after = false;
    for (; i < len; i++) {
        if (s[i] == '.') {
            after = true;
            continue;
        }
        if (after)
            scale++;
        if (significant == 0 && s[i] == '0' && !after)
            continue;
        if (++significant > BASALT_ICEBERG_DECIMAL_MAX_DIGITS)
            return syntax(p, p->tok.start, "decimal of more than 38 digits");
        basalt_iceberg_dec_mul_add(&d, 10, (uint32_t)(s[i] - '0'));
    }
    v->type = BASALT_ICEBERG_TYPE_DECIMAL;
    v->scale = scale;
    v->u.dec = neg ? basalt_iceberg_dec_neg(d) : d;
    return BASALT_OK;
}

static basalt_status parse_literal(struct parser *p, struct basalt_iceberg_value *v)
{
    memset(v, 0, sizeof(*v));
    switch (p->tok.kind) {
    case TOK_NUMBER:
        TRY(parse_number(p, v));
        break;
    case TOK_TRUE:
    case TOK_FALSE:
        v->type = BASALT_ICEBERG_TYPE_BOOLEAN;
        v->u.b = p->tok.kind == TOK_TRUE;
        break;
    case TOK_STRING: {
        char *buf = basalt_arena_alloc(p->arena, p->tok.len, 1);
        if (!buf)
            return nomem(p);
        size_t n = unquote(p->text + p->tok.start, p->tok.len, buf);
        buf[n] = '\0';
        v->type = BASALT_ICEBERG_TYPE_STRING;
        v->u.bytes.data = (const uint8_t *)buf;
        v->u.bytes.len = n;
        break;
    }
    case TOK_NULL:
        return syntax(p, p->tok.start, "NULL is only allowed in IS NULL / IS NOT NULL");
    default:
        return syntax(p, p->tok.start, "expected a literal");
    }
    return next(p);
}

static basalt_status expect(struct parser *p, enum tok_kind kind, const char *what)
{
    if (p->tok.kind != kind)
        return syntax(p, p->tok.start, what);
    return next(p);
}

static basalt_status make_pred(struct parser *p, enum basalt_iceberg_op op, const char *name,
                               struct basalt_iceberg_value *lits, uint32_t n,
                               struct basalt_iceberg_expr **out)
{
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_node(p->arena, op);
    if (!e)
        return nomem(p);
    e->name = name;
    e->literals = lits;
    e->n_literals = n;
    *out = e;
    return BASALT_OK;
}

static basalt_status one_literal(struct parser *p, struct basalt_iceberg_value **out)
{
    *out = basalt_arena_alloc(p->arena, sizeof(**out), _Alignof(struct basalt_iceberg_value));
    if (!*out)
        return nomem(p);
    return parse_literal(p, *out);
}

static basalt_status parse_in_list(struct parser *p, struct basalt_iceberg_value **lits,
                                   uint32_t *n)
{
    TRY(expect(p, TOK_LPAREN, "expected '(' after IN"));
    uint32_t count = 0, cap = 0;
    struct basalt_iceberg_value *v = NULL;
    if (p->tok.kind != TOK_RPAREN) {
        for (;;) {
            if (count == cap) {
                uint32_t ncap = cap ? cap * 2 : 4;
                struct basalt_iceberg_value *nv = basalt_arena_alloc(
                    p->arena, sizeof(*nv) * ncap, _Alignof(struct basalt_iceberg_value));
                if (!nv)
                    return nomem(p);
                if (count)
                    memcpy(nv, v, sizeof(*nv) * count);
                v = nv;
                cap = ncap;
            }
            TRY(parse_literal(p, &v[count]));
            count++;
            if (p->tok.kind != TOK_COMMA)
                break;
            TRY(next(p));
        }
    }
    TRY(expect(p, TOK_RPAREN, "expected ',' or ')' in the IN list"));
    *lits = v;
    *n = count;
    return BASALT_OK;
}

/* LIKE 'prefix%' -> the prefix; anything else is refused. */
static basalt_status like_prefix(struct parser *p, struct basalt_iceberg_value *v, size_t at)
{
    const uint8_t *s = v->u.bytes.data;
    size_t len = v->u.bytes.len;
    if (len == 0 || s[len - 1] != '%')
        return syntax(p, at, "LIKE takes only a 'prefix%' pattern");
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '%' || s[i] == '_')
            return syntax(p, at, "LIKE takes only a 'prefix%' pattern");
    v->u.bytes.len = len - 1;
    return BASALT_OK;
}

static basalt_status parse_after_column(struct parser *p, const char *name,
                                        struct basalt_iceberg_expr **out)
{
    struct basalt_iceberg_value *lits = NULL;
    uint32_t n = 0;
    bool negated = false;
    switch (p->tok.kind) {
    case TOK_IS: {
        TRY(next(p));
        if (p->tok.kind == TOK_NOT) {
            negated = true;
            TRY(next(p));
        }
        if (p->tok.kind == TOK_NULL) {
            TRY(next(p));
            return make_pred(p, negated ? BASALT_ICEBERG_OP_NOT_NULL : BASALT_ICEBERG_OP_IS_NULL,
                             name, NULL, 0, out);
        }
        if (p->tok.kind == TOK_NAN) {
            TRY(next(p));
            return make_pred(p, negated ? BASALT_ICEBERG_OP_NOT_NAN : BASALT_ICEBERG_OP_IS_NAN,
                             name, NULL, 0, out);
        }
        return syntax(p, p->tok.start, negated ? "expected NULL or NAN after IS NOT"
                                               : "expected NULL, NOT or NAN after IS");
    }
    case TOK_CMP: {
        enum basalt_iceberg_op op = p->tok.cmp;
        TRY(next(p));
        TRY(one_literal(p, &lits));
        return make_pred(p, op, name, lits, 1, out);
    }
    case TOK_NOT:
        negated = true;
        TRY(next(p));
        if (p->tok.kind != TOK_IN && p->tok.kind != TOK_STARTS && p->tok.kind != TOK_LIKE)
            return syntax(p, p->tok.start, "expected IN, STARTS WITH or LIKE after NOT");
        break;
    default:
        break;
    }
    switch (p->tok.kind) {
    case TOK_IN:
        TRY(next(p));
        TRY(parse_in_list(p, &lits, &n));
        return make_pred(p, negated ? BASALT_ICEBERG_OP_NOT_IN : BASALT_ICEBERG_OP_IN, name, lits,
                         n, out);
    case TOK_STARTS:
        TRY(next(p));
        TRY(expect(p, TOK_WITH, "expected WITH after STARTS"));
        if (p->tok.kind != TOK_STRING)
            return syntax(p, p->tok.start, "expected a string after STARTS WITH");
        TRY(one_literal(p, &lits));
        return make_pred(p,
                         negated ? BASALT_ICEBERG_OP_NOT_STARTS_WITH : BASALT_ICEBERG_OP_STARTS_WITH,
                         name, lits, 1, out);
    case TOK_LIKE: {
        TRY(next(p));
        size_t at = p->tok.start;
        if (p->tok.kind != TOK_STRING)
            return syntax(p, at, "expected a string after LIKE");
        TRY(one_literal(p, &lits));
        TRY(like_prefix(p, lits, at));
        return make_pred(p,
                         negated ? BASALT_ICEBERG_OP_NOT_STARTS_WITH : BASALT_ICEBERG_OP_STARTS_WITH,
                         name, lits, 1, out);
    }
    default:
        return syntax(p, p->tok.start,
                      "expected a comparison, IS, IN, NOT, STARTS WITH or LIKE after the column");
    }
}

static basalt_status parse_or(struct parser *p, struct basalt_iceberg_expr **out, int *depth);

static basalt_status parse_primary(struct parser *p, struct basalt_iceberg_expr **out, int *depth)
{
    *depth = 1;
    switch (p->tok.kind) {
    case TOK_LPAREN: {
        size_t open = p->tok.start;
        if (++p->nest > BASALT_ICEBERG_EXPR_MAX_DEPTH)
            return basalt_error_set(p->err, BASALT_LIMIT,
                                    "filter: nesting deeper than %d at byte %zu",
                                    BASALT_ICEBERG_EXPR_MAX_DEPTH, open);
        TRY(next(p));
        TRY(parse_or(p, out, depth));
        p->nest--;
        return expect(p, TOK_RPAREN, "expected ')'");
    }
    case TOK_TRUE:
    case TOK_FALSE: {
        /* A constant, unless a comparison follows: then it is a literal. */
        struct parser save = *p;
        enum tok_kind k = p->tok.kind;
        TRY(next(p));
        if (p->tok.kind != TOK_CMP) {
            *out = basalt_iceberg_expr_node(p->arena, k == TOK_TRUE ? BASALT_ICEBERG_OP_TRUE
                                                                    : BASALT_ICEBERG_OP_FALSE);
            return *out ? BASALT_OK : nomem(p);
        }
        *p = save;
    }
        /* fall through */
    case TOK_NUMBER:
    case TOK_STRING: {
        struct basalt_iceberg_value *lit;
        TRY(one_literal(p, &lit));
        if (p->tok.kind != TOK_CMP)
            return syntax(p, p->tok.start, "expected a comparison operator after the literal");
        enum basalt_iceberg_op op = basalt_iceberg_op_flip(p->tok.cmp);
        TRY(next(p));
        const char *name;
        TRY(parse_column(p, &name));
        return make_pred(p, op, name, lit, 1, out);
    }
    case TOK_IDENT:
    case TOK_QUOTED: {
        const char *name;
        TRY(parse_column(p, &name));
        return parse_after_column(p, name, out);
    }
    case TOK_NULL:
        return syntax(p, p->tok.start, "NULL is only allowed in IS NULL / IS NOT NULL");
    default:
        return syntax(p, p->tok.start, "expected a column name, a literal, NOT, TRUE, FALSE or '('");
    }
}

static basalt_status parse_not(struct parser *p, struct basalt_iceberg_expr **out, int *depth)
{
    if (p->tok.kind != TOK_NOT)
        return parse_primary(p, out, depth);
    size_t at = p->tok.start;
    if (++p->nest > BASALT_ICEBERG_EXPR_MAX_DEPTH)
        return basalt_error_set(p->err, BASALT_LIMIT, "filter: nesting deeper than %d at byte %zu",
                                BASALT_ICEBERG_EXPR_MAX_DEPTH, at);
    TRY(next(p));
    struct basalt_iceberg_expr *child;
    TRY(parse_not(p, &child, depth));
    p->nest--;
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_node(p->arena, BASALT_ICEBERG_OP_NOT);
    if (!e)
        return nomem(p);
    e->left = child;
    *out = e;
    if (++*depth > BASALT_ICEBERG_EXPR_MAX_DEPTH)
        return basalt_error_set(p->err, BASALT_LIMIT, "filter: deeper than %d at byte %zu",
                                BASALT_ICEBERG_EXPR_MAX_DEPTH, at);
    return BASALT_OK;
}

static basalt_status parse_binary(struct parser *p, bool is_or, struct basalt_iceberg_expr **out,
                                  int *depth)
{
    TRY(is_or ? parse_binary(p, false, out, depth) : parse_not(p, out, depth));
    enum tok_kind kind = is_or ? TOK_OR : TOK_AND;
    while (p->tok.kind == kind) {
        size_t at = p->tok.start;
        TRY(next(p));
        struct basalt_iceberg_expr *right;
        int rdepth;
        TRY(is_or ? parse_binary(p, false, &right, &rdepth) : parse_not(p, &right, &rdepth));
        struct basalt_iceberg_expr *e =
            basalt_iceberg_expr_node(p->arena, is_or ? BASALT_ICEBERG_OP_OR : BASALT_ICEBERG_OP_AND);
        if (!e)
            return nomem(p);
        e->left = *out;
        e->right = right;
        *out = e;
        *depth = (*depth > rdepth ? *depth : rdepth) + 1;
        if (*depth > BASALT_ICEBERG_EXPR_MAX_DEPTH)
            return basalt_error_set(p->err, BASALT_LIMIT, "filter: deeper than %d at byte %zu",
                                    BASALT_ICEBERG_EXPR_MAX_DEPTH, at);
    }
    return BASALT_OK;
}

static basalt_status parse_or(struct parser *p, struct basalt_iceberg_expr **out, int *depth)
{
    return parse_binary(p, true, out, depth);
}

basalt_status basalt_iceberg_expr_parse(const char *text, struct basalt_arena *arena,
                                        struct basalt_iceberg_expr **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!text || !arena || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "expr_parse: NULL argument");
    struct parser p;
    memset(&p, 0, sizeof(p));
    p.text = text;
    p.arena = arena;
    p.err = err;
    TRY(next(&p));
    if (p.tok.kind == TOK_END)
        return syntax(&p, p.tok.start, "expected an expression");
    struct basalt_iceberg_expr *e;
    int depth;
    TRY(parse_or(&p, &e, &depth));
    if (p.tok.kind != TOK_END)
        return syntax(&p, p.tok.start,
                      p.tok.kind == TOK_RPAREN ? "unbalanced ')'" : "expected AND, OR or the end");
    *out = e;
    return BASALT_OK;
}
