/* sql internals: tokens, the parser's state and the helpers its files
 * share. */
#ifndef BASALT_SQL_INTERNAL_H
#define BASALT_SQL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sql_ast.h"

/* ------------------------------------------------------------------ script */

struct basalt_sql_script {
    struct basalt_arena arena;
    size_t n_statements;
    struct basalt_sql_statement **statements;
};

/* ------------------------------------------------------------------ tokens */

enum sql_tok {
    TK_EOF = 0,
    TK_WORD,     /* an unquoted identifier or keyword */
    TK_QIDENT,   /* "quoted identifier" */
    TK_STRING,   /* 'string' */
    TK_INTEGER,  /* digits */
    TK_NUMBER,   /* digits with '.' or an exponent */
    TK_LPAREN,
    TK_RPAREN,
    TK_LBRACKET,
    TK_RBRACKET,
    TK_COMMA,
    TK_DOT,
    TK_SEMI,
    TK_PLUS,
    TK_MINUS,
    TK_STAR,
    TK_SLASH,
    TK_SLASHSLASH, /* // */
    TK_PERCENT,
    TK_CONCAT,     /* || */
    TK_EQ,         /* = */
    TK_EQEQ,       /* == */
    TK_NE,         /* <> */
    TK_BANGEQ,     /* != */
    TK_LT,
    TK_LE,
    TK_GT,
    TK_GE,
    TK_CAST,       /* :: */
    TK_ARROW,      /* => */
    TK_COLONEQ,    /* := */
    TK_COLON,      /* : (lambda c: body) */
    TK_OP,         /* any other run of operator characters: ** ^ & | << >> ~ ~~ !~~* ^@ ... */
};

struct sql_token {
    enum sql_tok kind;
    int32_t pos; /* byte offset of the token's first byte */
    int32_t len; /* bytes of source text, quotes included */
};

/* Splits text into tokens (comments and white space dropped), ending with
 * one TK_EOF at offset len. *out is basalt_malloc'd. Returns OK,
 * INVALID_ARG (unterminated string, identifier or comment, a byte that
 * starts no token), NOMEM. len must be <= BASALT_SQL_MAX_TEXT. */
basalt_status basalt_sql_lex(const char *text, size_t len, struct sql_token **out, size_t *n_out,
                             struct basalt_error *err);

/* ------------------------------------------------------------------ parser */

struct sql_parser {
    const char *text;
    size_t len;
    const struct sql_token *toks;
    size_t n_toks;
    size_t at; /* current token */
    struct basalt_arena *arena;
    struct basalt_error *err;
    int depth;            /* recursion depth, bounded by BASALT_SQL_MAX_DEPTH */
    basalt_status status; /* the first error; OK while parsing goes well */
};

/* Token access. */
static inline const struct sql_token *sqlp_peek(const struct sql_parser *p, size_t ahead)
{
    size_t i = p->at + ahead;
    return &p->toks[i < p->n_toks ? i : p->n_toks - 1];
}
static inline const struct sql_token *sqlp_cur(const struct sql_parser *p) { return sqlp_peek(p, 0); }
static inline void sqlp_advance(struct sql_parser *p)
{
    if (p->at + 1 < p->n_toks)
        p->at++;
}
static inline bool sqlp_is(const struct sql_parser *p, enum sql_tok kind) { return sqlp_cur(p)->kind == kind; }
bool basalt_sqlp_accept(struct sql_parser *p, enum sql_tok kind);

/* Keywords: unquoted words compared case-insensitively with `kw` (lower
 * case). */
bool basalt_sqlp_word_is(const struct sql_parser *p, const struct sql_token *t, const char *kw);
static inline bool sqlp_kw(const struct sql_parser *p, const char *kw)
{
    return basalt_sqlp_word_is(p, sqlp_cur(p), kw);
}
static inline bool sqlp_kw_at(const struct sql_parser *p, size_t ahead, const char *kw)
{
    return basalt_sqlp_word_is(p, sqlp_peek(p, ahead), kw);
}
bool basalt_sqlp_accept_kw(struct sql_parser *p, const char *kw);
/* Reserved words cannot name columns or tables unless quoted. `as_function`
 * asks about use as a function name, where a few more are allowed (left,
 * right). */
bool basalt_sqlp_reserved(const struct sql_parser *p, const struct sql_token *t, bool as_function);

/* Errors. Each records the first error in p and returns NULL/false so
 * callers can `return basalt_sqlp_syntax(p), NULL;`. */
void basalt_sqlp_fail(struct sql_parser *p, basalt_status status, int32_t pos, const char *fmt, ...)
    BASALT_PRINTF(4, 5);
/* "syntax error at or near "tok"" at the current token, or "unexpected end
 * of query". */
void basalt_sqlp_syntax(struct sql_parser *p);
bool basalt_sqlp_expect(struct sql_parser *p, enum sql_tok kind);
bool basalt_sqlp_expect_kw(struct sql_parser *p, const char *kw);
void basalt_sqlp_nomem(struct sql_parser *p);
/* Recursion guard: enter returns false (LIMIT recorded) when too deep. */
bool basalt_sqlp_enter(struct sql_parser *p);
static inline void sqlp_leave(struct sql_parser *p) { p->depth--; }
/* Records LIMIT when a node's height passes BASALT_SQL_MAX_DEPTH. */
bool basalt_sqlp_check_height(struct sql_parser *p, int32_t height, int32_t pos);

/* Arena allocation (zeroed); NULL with NOMEM recorded. */
void *basalt_sqlp_alloc(struct sql_parser *p, size_t size);
/* A growing pointer array in the arena; items is the finished array (NULL
 * when empty). */
struct sqlp_list {
    void **items;
    int32_t n, cap;
};
bool basalt_sqlp_list_push(struct sql_parser *p, struct sqlp_list *l, void *item);

/* Token text: the decoded value of a string / quoted identifier, an
 * unquoted word lower-cased, or raw digits. NULL with NOMEM recorded. */
char *basalt_sqlp_token_text(struct sql_parser *p, const struct sql_token *t);
/* An identifier (word or quoted) at the current token; a reserved word is a
 * syntax error. */
bool basalt_sqlp_ident(struct sql_parser *p, struct basalt_sql_ident *out);
static inline bool sqlp_at_ident(const struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    return t->kind == TK_QIDENT || (t->kind == TK_WORD && !basalt_sqlp_reserved(p, t, false));
}
/* 1..3 dot-separated identifiers. */
bool basalt_sqlp_name(struct sql_parser *p, struct basalt_sql_name *out);
/* (a, b, c) */
bool basalt_sqlp_ident_list(struct sql_parser *p, int32_t *n, struct basalt_sql_ident **out);
/* A type name with its parameters. */
bool basalt_sqlp_type(struct sql_parser *p, struct basalt_sql_type *out);
/* True when the current token is a type keyword that makes `TYPE 'text'` a
 * typed literal (DATE, TIMESTAMP, TIME, TIMESTAMPTZ...). */
bool basalt_sqlp_at_typed_literal(const struct sql_parser *p);

/* Grammar entry points across files. */
struct basalt_sql_expr *basalt_sqlp_expr(struct sql_parser *p);
/* An operand that binds tighter than comparisons and predicates (window
 * frame offsets). */
struct basalt_sql_expr *basalt_sqlp_operand(struct sql_parser *p);
struct basalt_sql_expr *basalt_sqlp_primary(struct sql_parser *p);
/* A call after its name: arguments, FILTER, OVER. */
struct basalt_sql_expr *basalt_sqlp_function_call(struct sql_parser *p, struct basalt_sql_ident name);
/* An expression list up to (not including) a token that ends it. */
bool basalt_sqlp_expr_list(struct sql_parser *p, int32_t *n, struct basalt_sql_expr ***out);
/* Function arguments after '(' through ')': positional, named, DISTINCT,
 * *, ORDER BY. */
bool basalt_sqlp_call_args(struct sql_parser *p, struct basalt_sql_call *call, bool table_function);
bool basalt_sqlp_order_list(struct sql_parser *p, int32_t *n, struct basalt_sql_order_item **out,
                            bool *all);
struct basalt_sql_window *basalt_sqlp_window_body(struct sql_parser *p);
struct basalt_sql_query *basalt_sqlp_query(struct sql_parser *p);
/* Continues a query whose first operand, a parenthesised query, has been
 * read: set operations, ORDER BY, LIMIT. */
struct basalt_sql_query *basalt_sqlp_query_rest(struct sql_parser *p, struct basalt_sql_query *first);
/* True when the current token starts a query (SELECT, WITH, VALUES). */
bool basalt_sqlp_at_query(const struct sql_parser *p);
/* GROUP BY's list after GROUP BY (parser_group.c): keys and grouping sets. */
bool basalt_sqlp_group_by(struct sql_parser *p, struct basalt_sql_select *s);
/* True when the current token continues a query after an operand (UNION,
 * INTERSECT, EXCEPT, ORDER, LIMIT, OFFSET). */
bool basalt_sqlp_at_query_rest(const struct sql_parser *p);
struct basalt_sql_from *basalt_sqlp_from(struct sql_parser *p);
/* Continues an expression whose primary has been read (a parenthesised
 * subquery): postfix operators, then binary operators. */
struct basalt_sql_expr *basalt_sqlp_expr_rest(struct sql_parser *p, struct basalt_sql_expr *primary);
struct basalt_sql_expr *basalt_sqlp_new_expr(struct sql_parser *p, enum basalt_sql_expr_kind kind,
                                            int32_t pos);
/* Sets e->height from its children (and checks the limit). */
bool basalt_sqlp_expr_height(struct sql_parser *p, struct basalt_sql_expr *e);
int32_t basalt_sqlp_query_height(const struct basalt_sql_query *q);
/* `x op ANY|SOME|ALL (query)` at the quantifier, `op` and x read, as the
 * expression it means (parser_quantified.c). */
struct basalt_sql_expr *basalt_sqlp_quantified(struct sql_parser *p, enum basalt_sql_binary_op op,
                                               struct basalt_sql_expr *x, int32_t pos);

/* ------------------------------------------------------------------ format */

/* An snprintf-like writer: counts everything, stores what fits. */
struct sql_out {
    char *buf;
    size_t cap;
    size_t len;
};
void basalt_sqlf_put(struct sql_out *o, const char *s);
void basalt_sqlf_putn(struct sql_out *o, const char *s, size_t n);
void basalt_sqlf_printf(struct sql_out *o, const char *fmt, ...) BASALT_PRINTF(2, 3);
void basalt_sqlf_ident(struct sql_out *o, const struct basalt_sql_ident *id);
void basalt_sqlf_name(struct sql_out *o, const struct basalt_sql_name *n);
void basalt_sqlf_string(struct sql_out *o, const char *s);
/* A bare word when it is one ([a-z_][a-z0-9_]*), quoted otherwise. */
void basalt_sqlf_word(struct sql_out *o, const char *s);
void basalt_sqlf_type(struct sql_out *o, const struct basalt_sql_type *t);
void basalt_sqlf_expr(struct sql_out *o, const struct basalt_sql_expr *e);
void basalt_sqlf_order(struct sql_out *o, const struct basalt_sql_order_item *items, int32_t n, bool all);
void basalt_sqlf_window(struct sql_out *o, const struct basalt_sql_window *w);
void basalt_sqlf_call(struct sql_out *o, const struct basalt_sql_call *c);
void basalt_sqlf_query(struct sql_out *o, const struct basalt_sql_query *q);
void basalt_sqlf_from(struct sql_out *o, const struct basalt_sql_from *f);
void basalt_sqlf_statement(struct sql_out *o, const struct basalt_sql_statement *s);
void basalt_sqlf_finish(struct sql_out *o);

#endif
