/* Primaries: literals, typed literals, INTERVAL, names and stars, CASE,
 * CAST, EXTRACT, EXISTS, lists, subqueries and parenthesised expressions. */
#include <string.h>
#include <strings.h>

#include "sql_internal.h"

static struct basalt_sql_expr *done(struct sql_parser *p, struct basalt_sql_expr *e)
{
    return e && basalt_sqlp_expr_height(p, e) ? e : NULL;
}

static struct basalt_sql_expr *literal_text(struct sql_parser *p, enum basalt_sql_expr_kind kind)
{
    const struct sql_token *t = sqlp_cur(p);
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, kind, t->pos);
    if (!e || !(e->u.lit.text = basalt_sqlp_token_text(p, t)))
        return NULL;
    if (kind == BASALT_SQL_EXPR_INTEGER) {
        uint64_t v = 0;
        bool fits = true;
        for (int32_t i = 0; i < t->len && fits; i++) {
            unsigned d = (unsigned)(p->text[t->pos + i] - '0');
            if (v > ((uint64_t)INT64_MAX - d) / 10)
                fits = false;
            else
                v = v * 10 + d;
        }
        e->u.lit.fits = fits;
        e->u.lit.i64 = fits ? (int64_t)v : 0;
    }
    sqlp_advance(p);
    return e;
}

static struct basalt_sql_expr *case_expr(struct sql_parser *p)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_CASE, sqlp_cur(p)->pos);
    if (!e)
        return NULL;
    sqlp_advance(p);
    if (!sqlp_kw(p, "when") && !(e->u.case_.operand = basalt_sqlp_expr(p)))
        return NULL;
    struct sqlp_list whens = {0}, thens = {0};
    if (!sqlp_kw(p, "when")) {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    while (basalt_sqlp_accept_kw(p, "when")) {
        struct basalt_sql_expr *w = basalt_sqlp_expr(p), *t;
        if (!w || !basalt_sqlp_expect_kw(p, "then") || !(t = basalt_sqlp_expr(p)) ||
            !basalt_sqlp_list_push(p, &whens, w) || !basalt_sqlp_list_push(p, &thens, t))
            return NULL;
    }
    e->u.case_.n_when = whens.n;
    e->u.case_.when = (struct basalt_sql_expr **)whens.items;
    e->u.case_.then = (struct basalt_sql_expr **)thens.items;
    if (basalt_sqlp_accept_kw(p, "else") && !(e->u.case_.otherwise = basalt_sqlp_expr(p)))
        return NULL;
    if (!basalt_sqlp_expect_kw(p, "end"))
        return NULL;
    return done(p, e);
}

static struct basalt_sql_expr *cast_expr(struct sql_parser *p)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_CAST, sqlp_cur(p)->pos);
    if (!e)
        return NULL;
    e->u.cast.try_cast = sqlp_kw(p, "try_cast");
    sqlp_advance(p);
    if (!basalt_sqlp_expect(p, TK_LPAREN) || !(e->u.cast.arg = basalt_sqlp_expr(p)) ||
        !basalt_sqlp_expect_kw(p, "as") || !basalt_sqlp_type(p, &e->u.cast.type) ||
        !basalt_sqlp_expect(p, TK_RPAREN))
        return NULL;
    return done(p, e);
}

static struct basalt_sql_expr *extract_expr(struct sql_parser *p)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_EXTRACT, sqlp_cur(p)->pos);
    if (!e)
        return NULL;
    sqlp_advance(p);
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return NULL;
    const struct sql_token *t = sqlp_cur(p);
    if (t->kind != TK_WORD && t->kind != TK_STRING && t->kind != TK_QIDENT) {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    char *part = basalt_sqlp_token_text(p, t);
    if (!part)
        return NULL;
    for (char *c = part; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    e->u.extract.part = part;
    sqlp_advance(p);
    if (!basalt_sqlp_expect_kw(p, "from") || !(e->u.extract.arg = basalt_sqlp_expr(p)) ||
        !basalt_sqlp_expect(p, TK_RPAREN))
        return NULL;
    return done(p, e);
}

struct unit_word {
    const char *word;
    enum basalt_sql_interval_unit unit;
};

static const struct unit_word units[] = {
    {"year", BASALT_SQL_UNIT_YEAR},         {"years", BASALT_SQL_UNIT_YEAR},
    {"quarter", BASALT_SQL_UNIT_QUARTER},   {"quarters", BASALT_SQL_UNIT_QUARTER},
    {"month", BASALT_SQL_UNIT_MONTH},       {"months", BASALT_SQL_UNIT_MONTH},
    {"week", BASALT_SQL_UNIT_WEEK},         {"weeks", BASALT_SQL_UNIT_WEEK},
    {"day", BASALT_SQL_UNIT_DAY},           {"days", BASALT_SQL_UNIT_DAY},
    {"hour", BASALT_SQL_UNIT_HOUR},         {"hours", BASALT_SQL_UNIT_HOUR},
    {"minute", BASALT_SQL_UNIT_MINUTE},     {"minutes", BASALT_SQL_UNIT_MINUTE},
    {"second", BASALT_SQL_UNIT_SECOND},     {"seconds", BASALT_SQL_UNIT_SECOND},
    {"millisecond", BASALT_SQL_UNIT_MILLISECOND}, {"milliseconds", BASALT_SQL_UNIT_MILLISECOND},
    {"microsecond", BASALT_SQL_UNIT_MICROSECOND}, {"microseconds", BASALT_SQL_UNIT_MICROSECOND},
};

static enum basalt_sql_interval_unit interval_unit(struct sql_parser *p)
{
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (sqlp_kw(p, units[i].word)) {
            sqlp_advance(p);
            return units[i].unit;
        }
    return BASALT_SQL_UNIT_NONE;
}

static bool at_interval(const struct sql_parser *p)
{
    enum sql_tok k = sqlp_peek(p, 1)->kind;
    return sqlp_kw(p, "interval") &&
           (k == TK_STRING || k == TK_INTEGER || k == TK_NUMBER || k == TK_LPAREN);
}

static struct basalt_sql_expr *interval_expr(struct sql_parser *p)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_INTERVAL, sqlp_cur(p)->pos);
    if (!e)
        return NULL;
    sqlp_advance(p);
    enum sql_tok k = sqlp_cur(p)->kind;
    if (k == TK_STRING)
        e->u.interval.value = literal_text(p, BASALT_SQL_EXPR_STRING);
    else if (k == TK_INTEGER)
        e->u.interval.value = literal_text(p, BASALT_SQL_EXPR_INTEGER);
    else if (k == TK_NUMBER)
        e->u.interval.value = literal_text(p, BASALT_SQL_EXPR_NUMBER);
    else if (basalt_sqlp_expect(p, TK_LPAREN)) {
        if ((e->u.interval.value = basalt_sqlp_expr(p)) && !basalt_sqlp_expect(p, TK_RPAREN))
            return NULL;
    }
    if (!e->u.interval.value)
        return NULL;
    e->u.interval.unit = interval_unit(p);
    if (e->u.interval.unit == BASALT_SQL_UNIT_NONE && k != TK_STRING) {
        basalt_sqlp_fail(p, BASALT_INVALID_ARG, sqlp_cur(p)->pos,
                         "INTERVAL needs a unit (DAY, MONTH, ...)");
        return NULL;
    }
    return done(p, e);
}

static struct basalt_sql_expr *typed_literal(struct sql_parser *p)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_TYPED_LITERAL, sqlp_cur(p)->pos);
    if (!e || !basalt_sqlp_type(p, &e->u.typed.type))
        return NULL;
    if (!sqlp_is(p, TK_STRING)) {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    if (!(e->u.typed.text = basalt_sqlp_token_text(p, sqlp_cur(p))))
        return NULL;
    sqlp_advance(p);
    return e;
}

static struct basalt_sql_expr *list_literal(struct sql_parser *p)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_LIST, sqlp_cur(p)->pos);
    if (!e)
        return NULL;
    sqlp_advance(p);
    if (!sqlp_is(p, TK_RBRACKET) && !basalt_sqlp_expr_list(p, &e->u.list.n_items, &e->u.list.items))
        return NULL;
    if (!basalt_sqlp_expect(p, TK_RBRACKET))
        return NULL;
    return done(p, e);
}

/* A name twice in a REPLACE list is an error, as in DuckDB (names compare
 * case-insensitively). */
static bool no_duplicate(struct sql_parser *p, const struct basalt_sql_ident *id,
                         const struct basalt_sql_ident *before, int32_t n, const char *list)
{
    for (int32_t i = 0; i < n; i++)
        if (strcasecmp(before[i].name, id->name) == 0) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, id->pos, "Duplicate entry \"%s\" in %s list",
                             id->name, list);
            return false;
        }
    return true;
}

/* REPLACE (expr AS name, ...) after a star. */
static bool star_replace(struct sql_parser *p, struct basalt_sql_expr *e)
{
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return false;
    struct sqlp_list l = {0};
    do {
        struct basalt_sql_select_item *it = basalt_sqlp_alloc(p, sizeof(*it));
        if (!it || !(it->expr = basalt_sqlp_expr(p)) || !basalt_sqlp_expect_kw(p, "as") ||
            !basalt_sqlp_ident(p, &it->alias) || !basalt_sqlp_list_push(p, &l, it))
            return false;
        for (int32_t i = 0; i + 1 < l.n; i++)
            if (!no_duplicate(p, &it->alias, &((struct basalt_sql_select_item *)l.items[i])->alias, 1,
                              "REPLACE"))
                return false;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    e->u.star.replace = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*e->u.star.replace));
    if (!e->u.star.replace)
        return false;
    for (int32_t i = 0; i < l.n; i++)
        e->u.star.replace[i] = *(struct basalt_sql_select_item *)l.items[i];
    e->u.star.n_replace = l.n;
    return true;
}

/* The written text of a RENAME entry's column (`a.x`), for messages. */
static const char *rename_text(struct sql_parser *p, const struct basalt_sql_name *n)
{
    size_t len = 0;
    for (int32_t i = 0; i < n->n_parts; i++)
        len += strlen(n->parts[i].name) + 1;
    char *t = basalt_sqlp_alloc(p, len + 1);
    if (t == NULL)
        return "";
    t[0] = '\0';
    for (int32_t i = 0; i < n->n_parts; i++) {
        if (i > 0)
            strcat(t, ".");
        strcat(t, n->parts[i].name);
    }
    return t;
}

/* Whether two RENAME columns are the same, as DuckDB compares them: by
 * name, and by qualifier too when both have one. */
static bool same_rename_column(const struct basalt_sql_name *a, const struct basalt_sql_name *b)
{
    if (strcasecmp(a->parts[a->n_parts - 1].name, b->parts[b->n_parts - 1].name) != 0)
        return false;
    if (a->n_parts == 1 || b->n_parts == 1 || a->n_parts != b->n_parts)
        return a->n_parts == 1 || b->n_parts == 1;
    for (int32_t i = 0; i + 1 < a->n_parts; i++)
        if (strcasecmp(a->parts[i].name, b->parts[i].name) != 0)
            return false;
    return true;
}

/* A column of EXCLUDE or RENAME: `a`, `t.a`, or a string ('a'). */
static bool star_column(struct sql_parser *p, struct basalt_sql_name *n)
{
    memset(n, 0, sizeof *n);
    if (!sqlp_is(p, TK_STRING))
        return basalt_sqlp_name(p, n);
    const struct sql_token *t = sqlp_cur(p);
    n->n_parts = 1;
    n->parts[0].pos = t->pos;
    n->parts[0].quoted = true;
    if (!(n->parts[0].name = basalt_sqlp_token_text(p, t)))
        return false;
    sqlp_advance(p);
    return true;
}

/* One `col AS name` of RENAME. */
static bool rename_entry(struct sql_parser *p, struct basalt_sql_rename *r)
{
    memset(r, 0, sizeof *r);
    return star_column(p, &r->column) && basalt_sqlp_expect_kw(p, "as") &&
           basalt_sqlp_ident(p, &r->alias);
}

/* EXCLUDE (a, t.b, 'c') or EXCLUDE a: no column twice (compared as
 * RENAME's are). */
static bool star_exclude(struct sql_parser *p, struct basalt_sql_expr *e)
{
    bool parens = basalt_sqlp_accept(p, TK_LPAREN);
    struct sqlp_list l = {0};
    do {
        if (parens && sqlp_is(p, TK_RPAREN) && l.n > 0)
            break; /* a trailing comma */
        struct basalt_sql_name *n = basalt_sqlp_alloc(p, sizeof *n);
        if (!n || !star_column(p, n) || !basalt_sqlp_list_push(p, &l, n))
            return false;
        for (int32_t i = 0; i + 1 < l.n; i++)
            if (same_rename_column((struct basalt_sql_name *)l.items[i], n)) {
                basalt_sqlp_fail(p, BASALT_INVALID_ARG, n->parts[0].pos,
                                 "Duplicate entry \"%s\" in EXCLUDE list", rename_text(p, n));
                return false;
            }
    } while (parens && basalt_sqlp_accept(p, TK_COMMA));
    if (parens && !basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    e->u.star.exclude = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*e->u.star.exclude));
    if (!e->u.star.exclude)
        return false;
    for (int32_t i = 0; i < l.n; i++)
        e->u.star.exclude[i] = *(struct basalt_sql_name *)l.items[i];
    e->u.star.n_exclude = l.n;
    return true;
}

/* RENAME (a AS b, ...) or RENAME a AS b after a star: no column twice, and
 * none excluded or replaced (DuckDB's messages, the first of them naming
 * the EXCLUDE list as DuckDB's does). */
static bool star_rename(struct sql_parser *p, struct basalt_sql_expr *e)
{
    bool parens = basalt_sqlp_accept(p, TK_LPAREN);
    struct sqlp_list l = {0};
    do {
        if (parens && sqlp_is(p, TK_RPAREN) && l.n > 0)
            break; /* a trailing comma */
        struct basalt_sql_rename *r = basalt_sqlp_alloc(p, sizeof *r);
        if (!r || !rename_entry(p, r) || !basalt_sqlp_list_push(p, &l, r))
            return false;
        const char *text = NULL;
        for (int32_t i = 0; i + 1 < l.n && text == NULL; i++)
            if (same_rename_column(&((struct basalt_sql_rename *)l.items[i])->column, &r->column))
                text = rename_text(p, &r->column);
        if (text != NULL) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, r->column.parts[0].pos,
                             "Duplicate entry \"%s\" in EXCLUDE list", text);
            return false;
        }
        const char *col = r->column.parts[r->column.n_parts - 1].name;
        const char *list = NULL;
        for (int32_t i = 0; i < e->u.star.n_exclude && list == NULL; i++)
            if (same_rename_column(&e->u.star.exclude[i], &r->column))
                list = "EXCLUDE";
        for (int32_t i = 0; i < e->u.star.n_replace && list == NULL; i++)
            if (strcasecmp(e->u.star.replace[i].alias.name, col) == 0)
                list = "REPLACE";
        if (list != NULL) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, r->column.parts[0].pos,
                             "Column \"%s\" cannot occur in both %s and RENAME list",
                             rename_text(p, &r->column), list);
            return false;
        }
    } while (parens && basalt_sqlp_accept(p, TK_COMMA));
    if (parens && !basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    e->u.star.rename = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*e->u.star.rename));
    if (!e->u.star.rename)
        return false;
    for (int32_t i = 0; i < l.n; i++)
        e->u.star.rename[i] = *(struct basalt_sql_rename *)l.items[i];
    e->u.star.n_rename = l.n;
    return true;
}

/* * [EXCLUDE (a, b) | EXCLUDE a] [REPLACE (x AS a, ...)] [RENAME (a AS b,
 * ...) | RENAME a AS b] after the qualifier, if any, in that order as in
 * DuckDB. */
static struct basalt_sql_expr *star_expr(struct sql_parser *p, int32_t pos, const struct basalt_sql_name *q)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_STAR, pos);
    if (!e)
        return NULL;
    if (q)
        e->u.star.qualifier = *q;
    sqlp_advance(p); /* the * */
    if (sqlp_kw(p, "exclude")) {
        sqlp_advance(p);
        if (!star_exclude(p, e))
            return NULL;
    }
    if (sqlp_kw(p, "replace") && sqlp_peek(p, 1)->kind == TK_LPAREN) {
        sqlp_advance(p);
        if (!star_replace(p, e))
            return NULL;
    }
    if (sqlp_kw(p, "rename")) {
        sqlp_advance(p);
        if (!star_rename(p, e))
            return NULL;
    }
    return done(p, e);
}

/* A column reference, t.*, or a call. */
static struct basalt_sql_expr *name_expr(struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    bool call = sqlp_peek(p, 1)->kind == TK_LPAREN;
    if (t->kind == TK_WORD && basalt_sqlp_reserved(p, t, call)) {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    if (call) {
        struct basalt_sql_ident name = {.pos = t->pos, .quoted = t->kind == TK_QIDENT};
        if (!(name.name = basalt_sqlp_token_text(p, t)))
            return NULL;
        sqlp_advance(p);
        return basalt_sqlp_function_call(p, name);
    }
    struct basalt_sql_name n = {0};
    for (;;) {
        if (n.n_parts == BASALT_SQL_NAME_PARTS) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, sqlp_cur(p)->pos,
                             "name has more than %d parts", BASALT_SQL_NAME_PARTS);
            return NULL;
        }
        if (!basalt_sqlp_ident(p, &n.parts[n.n_parts]))
            return NULL;
        n.n_parts++;
        if (!sqlp_is(p, TK_DOT))
            break;
        sqlp_advance(p);
        if (sqlp_is(p, TK_STAR)) {
            if (n.n_parts > 2) {
                basalt_sqlp_syntax(p);
                return NULL;
            }
            return star_expr(p, t->pos, &n);
        }
    }
    if (sqlp_is(p, TK_LPAREN)) {
        basalt_sqlp_fail(p, BASALT_UNSUPPORTED, t->pos, "qualified function names are not supported");
        return NULL;
    }
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_COLUMN, t->pos);
    if (e)
        e->u.column = n;
    return e;
}

/* A parenthesised expression or query from the '('. Nested parentheses are
 * read one level at a time: `((SELECT 1) UNION (SELECT 2))` is a query,
 * `((SELECT 1) + 1)` an expression over a scalar subquery. Exactly one of
 * *qout and the result is set on success. */
static struct basalt_sql_expr *paren(struct sql_parser *p, struct basalt_sql_query **qout)
{
    *qout = NULL;
    if (!basalt_sqlp_enter(p))
        return NULL;
    struct basalt_sql_expr *e = NULL;
    int32_t pos = sqlp_cur(p)->pos;
    sqlp_advance(p);
    if (basalt_sqlp_at_query(p)) {
        struct basalt_sql_query *q = basalt_sqlp_query(p);
        if (q && basalt_sqlp_expect(p, TK_RPAREN))
            *qout = q;
    } else if (sqlp_is(p, TK_LPAREN)) {
        struct basalt_sql_query *inner_q;
        struct basalt_sql_expr *inner = paren(p, &inner_q);
        if (inner_q && basalt_sqlp_at_query_rest(p)) {
            struct basalt_sql_query *q = basalt_sqlp_query_rest(p, inner_q);
            if (q && basalt_sqlp_expect(p, TK_RPAREN))
                *qout = q;
        } else if (inner_q && sqlp_is(p, TK_RPAREN)) {
            sqlp_advance(p);
            *qout = inner_q;
        } else if (inner_q || inner) {
            if (inner_q && (inner = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_SUBQUERY, pos + 1))) {
                inner->u.subquery = inner_q;
                inner = done(p, inner);
            }
            if (inner && (e = basalt_sqlp_expr_rest(p, inner)) && !basalt_sqlp_expect(p, TK_RPAREN))
                e = NULL;
        }
    } else if ((e = basalt_sqlp_expr(p)) && !basalt_sqlp_expect(p, TK_RPAREN)) {
        e = NULL;
    }
    sqlp_leave(p);
    return p->status == BASALT_OK ? e : NULL;
}

struct basalt_sql_expr *basalt_sqlp_primary(struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    struct basalt_sql_expr *e;
    switch (t->kind) {
    case TK_INTEGER: return literal_text(p, BASALT_SQL_EXPR_INTEGER);
    case TK_NUMBER: return literal_text(p, BASALT_SQL_EXPR_NUMBER);
    case TK_STRING: return literal_text(p, BASALT_SQL_EXPR_STRING);
    case TK_LBRACKET: return list_literal(p);
    case TK_STAR:
        /* *COLUMNS(...): unpacked into the arguments of the call around it */
        if (sqlp_kw_at(p, 1, "columns") && sqlp_peek(p, 2)->kind == TK_LPAREN) {
            sqlp_advance(p);
            e = name_expr(p);
            if (e != NULL && e->kind == BASALT_SQL_EXPR_FUNCTION)
                e->u.call.unpack = true;
            return e;
        }
        return star_expr(p, t->pos, NULL);
    case TK_LPAREN: {
        struct basalt_sql_query *q;
        e = paren(p, &q);
        if (!q)
            return e;
        if ((e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_SUBQUERY, t->pos)))
            e->u.subquery = q;
        return done(p, e);
    }
    case TK_QIDENT: return name_expr(p);
    case TK_WORD: break;
    default: basalt_sqlp_syntax(p); return NULL;
    }
    if (sqlp_kw(p, "true") || sqlp_kw(p, "false")) {
        if ((e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_BOOL, t->pos)))
            e->u.lit.b = sqlp_kw(p, "true");
        sqlp_advance(p);
        return e;
    }
    if (sqlp_kw(p, "null")) {
        sqlp_advance(p);
        return basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_NULL, t->pos);
    }
    if (sqlp_kw(p, "case"))
        return case_expr(p);
    if ((sqlp_kw(p, "cast") || sqlp_kw(p, "try_cast")) && sqlp_peek(p, 1)->kind == TK_LPAREN)
        return cast_expr(p);
    if (sqlp_kw(p, "exists") && sqlp_peek(p, 1)->kind == TK_LPAREN) {
        if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_EXISTS, t->pos)))
            return NULL;
        sqlp_advance(p);
        if (!basalt_sqlp_expect(p, TK_LPAREN) || !(e->u.subquery = basalt_sqlp_query(p)) ||
            !basalt_sqlp_expect(p, TK_RPAREN))
            return NULL;
        return done(p, e);
    }
    if (sqlp_kw(p, "extract") && sqlp_peek(p, 1)->kind == TK_LPAREN)
        return extract_expr(p);
    if (at_interval(p))
        return interval_expr(p);
    if (basalt_sqlp_at_typed_literal(p))
        return typed_literal(p);
    return name_expr(p);
}
