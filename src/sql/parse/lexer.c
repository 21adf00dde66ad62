/* The SQL lexer: the whole text becomes a token array up front so the parser
 * can look ahead freely (it needs a few tokens to tell a subquery from a
 * parenthesised expression). Tokens keep offsets only; their text is
 * decoded when the parser needs it. */
#include <string.h>

#include "sql_internal.h"

static bool is_word_start(unsigned char c)
{
    /* Bytes >= 0x80 are UTF-8 letters as far as identifiers go, as in
     * PostgreSQL. */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool is_word_char(unsigned char c)
{
    return is_word_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

struct lexer {
    const char *text;
    size_t len;
    struct sql_token *toks;
    size_t n, cap;
    struct basalt_error *err;
};

static basalt_status push(struct lexer *lx, enum sql_tok kind, size_t pos, size_t len)
{
    if (lx->n == lx->cap) {
        size_t cap = lx->cap ? lx->cap * 2 : 64;
        struct sql_token *t = basalt_realloc(lx->toks, cap * sizeof(*t));
        if (!t)
            return basalt_error_set(lx->err, BASALT_NOMEM, "out of memory lexing SQL");
        lx->toks = t;
        lx->cap = cap;
    }
    lx->toks[lx->n++] = (struct sql_token){.kind = kind, .pos = (int32_t)pos, .len = (int32_t)len};
    return BASALT_OK;
}

/* Skips white space and comments from i; returns the next offset or an
 * error for an unterminated block comment. Block comments nest, as in
 * PostgreSQL. */
static basalt_status skip_space(struct lexer *lx, size_t *i)
{
    const char *s = lx->text;
    size_t n = lx->len, at = *i;
    for (;;) {
        while (at < n && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r' ||
                          s[at] == '\f' || s[at] == '\v'))
            at++;
        if (at + 1 < n && s[at] == '-' && s[at + 1] == '-') {
            while (at < n && s[at] != '\n')
                at++;
            continue;
        }
        if (at + 1 < n && s[at] == '/' && s[at + 1] == '*') {
            size_t start = at, depth = 0;
            while (at < n) {
                if (at + 1 < n && s[at] == '/' && s[at + 1] == '*') {
                    depth++;
                    at += 2;
                } else if (at + 1 < n && s[at] == '*' && s[at + 1] == '/') {
                    at += 2;
                    if (--depth == 0)
                        break;
                } else {
                    at++;
                }
            }
            if (depth != 0)
                return basalt_error_set(lx->err, BASALT_INVALID_ARG,
                                        "unterminated /* comment (at position %zu)", start);
            continue;
        }
        *i = at;
        return BASALT_OK;
    }
}

/* A quoted run ending at the closing quote, a doubled quote standing for
 * one. Returns the offset after the closing quote, or 0 when unterminated. */
static size_t quoted_end(const char *s, size_t n, size_t start, char q)
{
    size_t at = start + 1;
    while (at < n) {
        if (s[at] == q) {
            if (at + 1 < n && s[at + 1] == q) {
                at += 2;
                continue;
            }
            return at + 1;
        }
        at++;
    }
    return 0;
}

/* Digits [. digits] [e [+-] digits], or . digits ... */
static size_t number_end(const char *s, size_t n, size_t at, bool *is_integer)
{
    *is_integer = true;
    while (at < n && is_digit((unsigned char)s[at]))
        at++;
    if (at < n && s[at] == '.') {
        /* `1..2` is not SQL; `t.1` never reaches here. A '.' after digits
         * belongs to the number. */
        *is_integer = false;
        at++;
        while (at < n && is_digit((unsigned char)s[at]))
            at++;
    }
    if (at < n && (s[at] == 'e' || s[at] == 'E')) {
        size_t e = at + 1;
        if (e < n && (s[e] == '+' || s[e] == '-'))
            e++;
        if (e < n && is_digit((unsigned char)s[e])) {
            *is_integer = false;
            at = e;
            while (at < n && is_digit((unsigned char)s[at]))
                at++;
        }
    }
    return at;
}

/* PostgreSQL's (and so DuckDB's) operator characters: a run of them is one
 * operator token, so `1|-1` is the operator `|-` (an error), not `|` and
 * `-1`. */
static bool is_op_char(unsigned char c) { return c && strchr("~!@#^&|`?+-*/%<>=", c) != NULL; }

/* The end of the operator starting at `at`, by PostgreSQL's rules: the run
 * stops before a comment start (`--`, `/ *`), and a run of two or more that
 * ends in + or - loses those trailing signs unless it holds one of
 * ~ ! @ # ^ & | ` ? %, so that `a<-1` is `a < -1` and `2**-1` is `2 ** -1`
 * while `2^-1` is the operator `^-`. */
static size_t operator_end(const char *s, size_t n, size_t at)
{
    size_t end = at;
    while (end < n && is_op_char((unsigned char)s[end])) {
        if (end > at && end + 1 < n &&
            ((s[end] == '-' && s[end + 1] == '-') || (s[end] == '/' && s[end + 1] == '*')))
            break;
        end++;
    }
    size_t len = end - at;
    if (len > 1 && (s[end - 1] == '+' || s[end - 1] == '-')) {
        bool keep = false;
        for (size_t k = at; k < end && !keep; k++)
            keep = strchr("~!@#^&|`?%", s[k]) != NULL;
        while (!keep && len > 1 && (s[at + len - 1] == '+' || s[at + len - 1] == '-'))
            len--;
    }
    return at + len;
}

/* The token of an operator's text: the ones the grammar names, else TK_OP. */
static enum sql_tok operator_kind(const char *t, size_t len)
{
    static const struct {
        const char *text;
        enum sql_tok kind;
    } named[] = {
        {"+", TK_PLUS},       {"-", TK_MINUS},   {"*", TK_STAR},   {"/", TK_SLASH},
        {"%", TK_PERCENT},    {"<", TK_LT},      {">", TK_GT},     {"=", TK_EQ},
        {"//", TK_SLASHSLASH}, {"||", TK_CONCAT}, {"==", TK_EQEQ},  {"=>", TK_ARROW},
        {"!=", TK_BANGEQ},    {"<=", TK_LE},     {"<>", TK_NE},    {">=", TK_GE},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strlen(named[i].text) == len && memcmp(named[i].text, t, len) == 0)
            return named[i].kind;
    return TK_OP;
}

static basalt_status lex_one(struct lexer *lx, size_t *i)
{
    const char *s = lx->text;
    size_t n = lx->len, at = *i;
    unsigned char c = (unsigned char)s[at];
    unsigned char d = at + 1 < n ? (unsigned char)s[at + 1] : 0;
    enum sql_tok kind;
    size_t end = at + 1;

    if (is_word_start(c)) {
        while (end < n && is_word_char((unsigned char)s[end]))
            end++;
        kind = TK_WORD;
    } else if (is_digit(c) || (c == '.' && is_digit(d))) {
        bool integer;
        end = number_end(s, n, at, &integer);
        /* 12abc: PostgreSQL lexes a number then a word; DuckDB reports an
         * error. A trailing identifier character is an error here. */
        if (end < n && is_word_start((unsigned char)s[end]))
            return basalt_error_set(lx->err, BASALT_INVALID_ARG,
                                    "syntax error at or near \"%.*s\" (at position %zu)",
                                    (int)(end + 1 - at), s + at, at);
        kind = integer ? TK_INTEGER : TK_NUMBER;
    } else if (c == '\'' || c == '"') {
        end = quoted_end(s, n, at, (char)c);
        if (end == 0)
            return basalt_error_set(lx->err, BASALT_INVALID_ARG,
                                    c == '\'' ? "unterminated quoted string (at position %zu)"
                                              : "unterminated quoted identifier (at position %zu)",
                                    at);
        /* The tree keeps NUL-terminated strings, so a NUL cannot be in
         * one (PostgreSQL refuses it too). */
        const char *nul = memchr(s + at, '\0', end - at);
        if (nul)
            return basalt_error_set(lx->err, BASALT_INVALID_ARG,
                                    "NUL byte in a quoted string or identifier (at position %zu)",
                                    (size_t)(nul - s));
        if (c == '"' && end == at + 2)
            return basalt_error_set(lx->err, BASALT_INVALID_ARG,
                                    "zero-length delimited identifier (at position %zu)", at);
        kind = c == '\'' ? TK_STRING : TK_QIDENT;
    } else {
        switch (c) {
        case '(': kind = TK_LPAREN; break;
        case ')': kind = TK_RPAREN; break;
        case '[': kind = TK_LBRACKET; break;
        case ']': kind = TK_RBRACKET; break;
        case ',': kind = TK_COMMA; break;
        case '.': kind = TK_DOT; break;
        case ';': kind = TK_SEMI; break;
        case ':':
            if (d == ':')
                kind = TK_CAST;
            else if (d == '=')
                kind = TK_COLONEQ;
            else
                kind = TK_COLON;
            end = kind == TK_COLON ? at + 1 : at + 2;
            break;
        default:
            if (!is_op_char(c))
                goto bad;
            end = operator_end(s, n, at);
            kind = operator_kind(s + at, end - at);
        }
    }
    *i = end;
    return push(lx, kind, at, end - at);
bad:
    if (c < 0x20 || c == 0x7f)
        return basalt_error_set(lx->err, BASALT_INVALID_ARG,
                                "syntax error at or near byte 0x%02x (at position %zu)", c, at);
    return basalt_error_set(lx->err, BASALT_INVALID_ARG,
                            "syntax error at or near \"%c\" (at position %zu)", c, at);
}

basalt_status basalt_sql_lex(const char *text, size_t len, struct sql_token **out, size_t *n_out,
                             struct basalt_error *err)
{
    struct lexer lx = {.text = text, .len = len, .err = err};
    size_t i = 0;
    basalt_status st = BASALT_OK;
    for (;;) {
        st = skip_space(&lx, &i);
        if (st != BASALT_OK)
            break;
        if (i >= len) {
            st = push(&lx, TK_EOF, len, 0);
            break;
        }
        st = lex_one(&lx, &i);
        if (st != BASALT_OK)
            break;
    }
    if (st != BASALT_OK) {
        basalt_free(lx.toks);
        return st;
    }
    *out = lx.toks;
    *n_out = lx.n;
    return BASALT_OK;
}
