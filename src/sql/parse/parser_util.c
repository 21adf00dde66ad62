/* What every part of the parser shares: token tests, keywords, errors,
 * arena allocation, growable lists, identifiers and names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

bool basalt_sqlp_word_is(const struct sql_parser *p, const struct sql_token *t, const char *kw)
{
    if (t->kind != TK_WORD)
        return false;
    const char *s = p->text + t->pos;
    for (int32_t i = 0; i < t->len; i++)
        if (kw[i] == '\0' || lower(s[i]) != kw[i])
            return false;
    return kw[t->len] == '\0';
}

bool basalt_sqlp_accept(struct sql_parser *p, enum sql_tok kind)
{
    if (!sqlp_is(p, kind))
        return false;
    sqlp_advance(p);
    return true;
}

bool basalt_sqlp_accept_kw(struct sql_parser *p, const char *kw)
{
    if (!sqlp_kw(p, kw))
        return false;
    sqlp_advance(p);
    return true;
}

/* Words that start or continue clauses, or are operators: PostgreSQL's
 * reserved words plus the ones DuckDB's clauses need (qualify, semi,
 * anti). Sorted for bsearch. */
static const char *const reserved[] = {
    "all",      "and",        "anti",      "any",     "as",        "asc",       "between",
    "both",     "case",       "cast",      "check",   "collate",   "constraint", "create",
    "cross",    "default",    "desc",      "distinct", "do",       "else",      "end",
    "except",   "exists",     "false",     "fetch",   "for",       "foreign",   "from",
    "full",     "grant",      "group",     "having",  "ilike",     "in",        "inner",
    "intersect", "into",      "is",        "isnull",  "join",      "lateral",   "leading",
    "left",     "like",       "limit",     "natural", "not",       "notnull",   "null",
    "offset",   "on",         "only",      "or",      "order",     "outer",     "placing",
    "primary",  "qualify",    "references", "returning", "right",  "select",    "semi",
    "some",     "symmetric",  "table",     "then",    "to",        "trailing",  "true",
    "union",    "unique",     "using",     "values",   "variadic", "when",      "where",
    "window",
    "with",
};

static int word_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(const char *const *)elem);
}

bool basalt_sqlp_reserved(const struct sql_parser *p, const struct sql_token *t, bool as_function)
{
    if (t->kind != TK_WORD || t->len > 16)
        return false;
    char w[17];
    for (int32_t i = 0; i < t->len; i++)
        w[i] = lower(p->text[t->pos + i]);
    w[t->len] = '\0';
    if (!bsearch(w, reserved, sizeof(reserved) / sizeof(reserved[0]), sizeof(reserved[0]), word_cmp))
        return false;
    /* left(s, n) and right(s, n) are functions as well as join words. */
    return !(as_function && (strcmp(w, "left") == 0 || strcmp(w, "right") == 0));
}

/* ------------------------------------------------------------------ errors */

void basalt_sqlp_fail(struct sql_parser *p, basalt_status status, int32_t pos, const char *fmt, ...)
{
    if (p->status != BASALT_OK)
        return;
    p->status = status;
    char msg[BASALT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    basalt_error_set(p->err, status, "%s (at position %d)", msg, (int)pos);
}

void basalt_sqlp_syntax(struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    if (t->kind == TK_EOF) {
        basalt_sqlp_fail(p, BASALT_INVALID_ARG, t->pos, "unexpected end of query");
        return;
    }
    int n = t->len > 64 ? 64 : (int)t->len;
    basalt_sqlp_fail(p, BASALT_INVALID_ARG, t->pos, "syntax error at or near \"%.*s%s\"", n,
                     p->text + t->pos, t->len > 64 ? "..." : "");
}

bool basalt_sqlp_expect(struct sql_parser *p, enum sql_tok kind)
{
    if (basalt_sqlp_accept(p, kind))
        return true;
    basalt_sqlp_syntax(p);
    return false;
}

bool basalt_sqlp_expect_kw(struct sql_parser *p, const char *kw)
{
    if (basalt_sqlp_accept_kw(p, kw))
        return true;
    basalt_sqlp_syntax(p);
    return false;
}

void basalt_sqlp_nomem(struct sql_parser *p)
{
    if (p->status != BASALT_OK)
        return;
    p->status = BASALT_NOMEM;
    basalt_error_set(p->err, BASALT_NOMEM, "out of memory parsing SQL");
}

bool basalt_sqlp_enter(struct sql_parser *p)
{
    if (p->depth >= BASALT_SQL_MAX_DEPTH) {
        basalt_sqlp_fail(p, BASALT_LIMIT, sqlp_cur(p)->pos,
                         "query nested deeper than %d levels", BASALT_SQL_MAX_DEPTH);
        return false;
    }
    p->depth++;
    return true;
}

bool basalt_sqlp_check_height(struct sql_parser *p, int32_t height, int32_t pos)
{
    if (height <= BASALT_SQL_MAX_DEPTH)
        return true;
    basalt_sqlp_fail(p, BASALT_LIMIT, pos, "query nested deeper than %d levels",
                     BASALT_SQL_MAX_DEPTH);
    return false;
}

/* ------------------------------------------------------------------ memory */

void *basalt_sqlp_alloc(struct sql_parser *p, size_t size)
{
    void *m = basalt_arena_alloc(p->arena, size ? size : 1, 8);
    if (!m) {
        basalt_sqlp_nomem(p);
        return NULL;
    }
    memset(m, 0, size ? size : 1);
    return m;
}

/* Lists grow inside the arena (the abandoned smaller arrays stay there
 * until the script is freed, at most as much again), so an error anywhere
 * leaves nothing to clean up. */
bool basalt_sqlp_list_push(struct sql_parser *p, struct sqlp_list *l, void *item)
{
    if (l->n == l->cap) {
        if (l->cap > INT32_MAX / 4) {
            basalt_sqlp_fail(p, BASALT_LIMIT, sqlp_cur(p)->pos, "list too long");
            return false;
        }
        int32_t cap = l->cap ? l->cap * 2 : 4;
        void **items = basalt_sqlp_alloc(p, (size_t)cap * sizeof(void *));
        if (!items)
            return false;
        if (l->n)
            memcpy(items, l->items, (size_t)l->n * sizeof(void *));
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = item;
    return true;
}

/* ------------------------------------------------------------------ text */

char *basalt_sqlp_token_text(struct sql_parser *p, const struct sql_token *t)
{
    const char *s = p->text + t->pos;
    size_t n = (size_t)t->len;
    char *out;
    if (t->kind == TK_STRING || t->kind == TK_QIDENT) {
        char q = s[0];
        out = basalt_arena_alloc(p->arena, n, 1); /* the value is shorter than its quotes */
        if (!out) {
            basalt_sqlp_nomem(p);
            return NULL;
        }
        size_t k = 0;
        for (size_t i = 1; i + 1 < n; i++) {
            out[k++] = s[i];
            if (s[i] == q)
                i++; /* a doubled quote */
        }
        out[k] = '\0';
        return out;
    }
    out = basalt_arena_strndup(p->arena, s, n);
    if (!out) {
        basalt_sqlp_nomem(p);
        return NULL;
    }
    if (t->kind == TK_WORD)
        for (size_t i = 0; i < n; i++)
            out[i] = lower(out[i]);
    return out;
}

bool basalt_sqlp_ident(struct sql_parser *p, struct basalt_sql_ident *out)
{
    const struct sql_token *t = sqlp_cur(p);
    if (!sqlp_at_ident(p)) {
        basalt_sqlp_syntax(p);
        return false;
    }
    out->name = basalt_sqlp_token_text(p, t);
    out->quoted = t->kind == TK_QIDENT;
    out->pos = t->pos;
    if (!out->name)
        return false;
    sqlp_advance(p);
    return true;
}

bool basalt_sqlp_name(struct sql_parser *p, struct basalt_sql_name *out)
{
    memset(out, 0, sizeof(*out));
    for (;;) {
        if (out->n_parts == BASALT_SQL_TABLE_NAME_PARTS) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, sqlp_cur(p)->pos,
                             "name has more than %d parts", BASALT_SQL_TABLE_NAME_PARTS);
            return false;
        }
        if (!basalt_sqlp_ident(p, &out->parts[out->n_parts]))
            return false;
        out->n_parts++;
        if (!sqlp_is(p, TK_DOT))
            return true;
        sqlp_advance(p);
    }
}

bool basalt_sqlp_ident_list(struct sql_parser *p, int32_t *n, struct basalt_sql_ident **out)
{
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return false;
    struct sqlp_list l = {0};
    for (;;) {
        struct basalt_sql_ident *id = basalt_sqlp_alloc(p, sizeof(*id));
        if (!id || !basalt_sqlp_ident(p, id) || !basalt_sqlp_list_push(p, &l, id))
            return false;
        if (!basalt_sqlp_accept(p, TK_COMMA))
            break;
    }
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    struct basalt_sql_ident *arr = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*arr));
    if (!arr)
        return false;
    for (int32_t i = 0; i < l.n; i++)
        arr[i] = *(struct basalt_sql_ident *)l.items[i];
    *n = l.n;
    *out = arr;
    return true;
}
