/* FROM: tables (with time travel), files, table functions, subqueries,
 * VALUES, and joins. `a, b JOIN c` is `a` crossed with `b JOIN c`: the
 * comma binds looser than JOIN, as in PostgreSQL. */
#include <string.h>

#include "sql_internal.h"

static int32_t hmax(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t eh(const struct basalt_sql_expr *e) { return e ? e->height : 0; }

static bool from_height(struct sql_parser *p, struct basalt_sql_from *f)
{
    int32_t h = 0;
    switch (f->kind) {
    case BASALT_SQL_FROM_TABLE: h = eh(f->u.table.as_of); break;
    case BASALT_SQL_FROM_FILE: break;
    case BASALT_SQL_FROM_FUNCTION:
        for (int32_t i = 0; i < f->u.call.n_args; i++)
            h = hmax(h, eh(f->u.call.args[i]));
        break;
    case BASALT_SQL_FROM_SUBQUERY: h = basalt_sqlp_query_height(f->u.subquery); break;
    case BASALT_SQL_FROM_JOIN:
        h = hmax(hmax(f->u.join.left->height, f->u.join.right->height), eh(f->u.join.on));
        break;
    }
    f->height = h + 1;
    return basalt_sqlp_check_height(p, f->height, f->pos);
}

static struct basalt_sql_from *new_from(struct sql_parser *p, enum basalt_sql_from_kind kind, int32_t pos)
{
    struct basalt_sql_from *f = basalt_sqlp_alloc(p, sizeof(*f));
    if (f) {
        f->kind = kind;
        f->pos = pos;
        f->height = 1;
    }
    return f;
}

/* [AS] alias [(c1, c2)] */
static bool table_alias(struct sql_parser *p, struct basalt_sql_from *f)
{
    bool as = basalt_sqlp_accept_kw(p, "as");
    if (!as && !sqlp_at_ident(p))
        return true;
    if (!basalt_sqlp_ident(p, &f->alias))
        return false;
    if (sqlp_is(p, TK_LPAREN))
        return basalt_sqlp_ident_list(p, &f->n_column_aliases, &f->column_aliases);
    return true;
}

static struct basalt_sql_from *subquery_item(struct sql_parser *p, struct basalt_sql_query *q, int32_t pos)
{
    struct basalt_sql_from *f = new_from(p, BASALT_SQL_FROM_SUBQUERY, pos);
    if (!f)
        return NULL;
    f->u.subquery = q;
    return table_alias(p, f) && from_height(p, f) ? f : NULL;
}

static struct basalt_sql_from *joins(struct sql_parser *p, struct basalt_sql_from *left);
static struct basalt_sql_from *item(struct sql_parser *p);

/* A parenthesised FROM item from the '(': a query (derived table) or a
 * join. Exactly one of *qout and the result is set on success; as with
 * expressions, nested parentheses are read one level at a time. */
static struct basalt_sql_from *paren(struct sql_parser *p, struct basalt_sql_query **qout)
{
    *qout = NULL;
    if (!basalt_sqlp_enter(p))
        return NULL;
    struct basalt_sql_from *f = NULL;
    sqlp_advance(p);
    if (basalt_sqlp_at_query(p)) {
        struct basalt_sql_query *q = basalt_sqlp_query(p);
        if (q && basalt_sqlp_expect(p, TK_RPAREN))
            *qout = q;
    } else if (sqlp_is(p, TK_LPAREN)) {
        int32_t pos = sqlp_cur(p)->pos;
        struct basalt_sql_query *inner_q;
        struct basalt_sql_from *inner = paren(p, &inner_q);
        if (inner_q && basalt_sqlp_at_query_rest(p)) {
            struct basalt_sql_query *q = basalt_sqlp_query_rest(p, inner_q);
            if (q && basalt_sqlp_expect(p, TK_RPAREN))
                *qout = q;
        } else if (inner_q && sqlp_is(p, TK_RPAREN)) {
            sqlp_advance(p);
            *qout = inner_q;
        } else if (inner_q || inner) {
            if (inner_q)
                inner = subquery_item(p, inner_q, pos);
            if (inner && (f = joins(p, inner)) && !basalt_sqlp_expect(p, TK_RPAREN))
                f = NULL;
        }
    } else if ((f = joins(p, item(p))) && !basalt_sqlp_expect(p, TK_RPAREN)) {
        f = NULL;
    }
    sqlp_leave(p);
    return p->status == BASALT_OK ? f : NULL;
}

/* A table function or a table name, with time travel. */
static struct basalt_sql_from *named_item(struct sql_parser *p)
{
    int32_t pos = sqlp_cur(p)->pos;
    struct basalt_sql_from *f;
    if (sqlp_peek(p, 1)->kind == TK_LPAREN) {
        if (!(f = new_from(p, BASALT_SQL_FROM_FUNCTION, pos)) || !basalt_sqlp_ident(p, &f->u.call.name) ||
            !basalt_sqlp_call_args(p, &f->u.call, true))
            return NULL;
    } else {
        if (!(f = new_from(p, BASALT_SQL_FROM_TABLE, pos)) || !basalt_sqlp_name(p, &f->u.table.name))
            return NULL;
        if (sqlp_is(p, TK_LPAREN)) {
            basalt_sqlp_fail(p, BASALT_UNSUPPORTED, pos, "qualified table function names are not supported");
            return NULL;
        }
        if (sqlp_kw(p, "for") && (sqlp_kw_at(p, 1, "version") || sqlp_kw_at(p, 1, "timestamp")) &&
            sqlp_kw_at(p, 2, "as") && sqlp_kw_at(p, 3, "of")) {
            f->u.table.travel = sqlp_kw_at(p, 1, "version") ? BASALT_SQL_TRAVEL_VERSION : BASALT_SQL_TRAVEL_TIMESTAMP;
            for (int i = 0; i < 4; i++)
                sqlp_advance(p);
            if (!(f->u.table.as_of = basalt_sqlp_expr(p)))
                return NULL;
        } else if (sqlp_kw(p, "for")) {
            basalt_sqlp_syntax(p);
            return NULL;
        }
    }
    return table_alias(p, f) && from_height(p, f) ? f : NULL;
}

/* One FROM item without joins. */
static struct basalt_sql_from *item(struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    if (t->kind == TK_LPAREN) {
        struct basalt_sql_query *q;
        struct basalt_sql_from *f = paren(p, &q);
        return q ? subquery_item(p, q, t->pos) : f;
    }
    if (t->kind == TK_STRING) {
        struct basalt_sql_from *f = new_from(p, BASALT_SQL_FROM_FILE, t->pos);
        if (!f || !(f->u.file = basalt_sqlp_token_text(p, t)))
            return NULL;
        sqlp_advance(p);
        return table_alias(p, f) && from_height(p, f) ? f : NULL;
    }
    if (sqlp_kw(p, "lateral")) {
        /* LATERAL (query): the binder lets it read the items before it */
        if (sqlp_peek(p, 1)->kind != TK_LPAREN) {
            basalt_sqlp_fail(p, BASALT_UNSUPPORTED, t->pos, "LATERAL takes a subquery here");
            return NULL;
        }
        sqlp_advance(p);
        int32_t pos = sqlp_cur(p)->pos;
        struct basalt_sql_query *q;
        struct basalt_sql_from *f = paren(p, &q);
        if (f != NULL) {
            basalt_sqlp_fail(p, BASALT_UNSUPPORTED, pos, "LATERAL takes a subquery here");
            return NULL;
        }
        if (q == NULL || (f = subquery_item(p, q, pos)) == NULL)
            return NULL;
        f->lateral = true;
        return f;
    }
    return named_item(p);
}

/* The join keyword at the current token: its kind, or -1 when none. */
static int join_kind(struct sql_parser *p)
{
    static const struct {
        const char *word;
        enum basalt_sql_join_kind kind;
    } words[] = {
        {"join", BASALT_SQL_JOIN_INNER},  {"inner", BASALT_SQL_JOIN_INNER}, {"left", BASALT_SQL_JOIN_LEFT},
        {"right", BASALT_SQL_JOIN_RIGHT}, {"full", BASALT_SQL_JOIN_FULL},   {"cross", BASALT_SQL_JOIN_CROSS},
        {"semi", BASALT_SQL_JOIN_SEMI},   {"anti", BASALT_SQL_JOIN_ANTI},
    };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (sqlp_kw(p, words[i].word))
            return (int)words[i].kind;
    return -1;
}

static struct basalt_sql_from *joins(struct sql_parser *p, struct basalt_sql_from *left)
{
    while (left) {
        int32_t pos = sqlp_cur(p)->pos;
        bool join_next = sqlp_kw_at(p, 1, "join") || sqlp_kw_at(p, 1, "inner") ||
                         sqlp_kw_at(p, 1, "left") || sqlp_kw_at(p, 1, "right") ||
                         sqlp_kw_at(p, 1, "full");
        if (sqlp_kw(p, "asof") || sqlp_kw(p, "positional")) {
            if (join_next) {
                basalt_sqlp_fail(p, BASALT_UNSUPPORTED, pos, "%s JOIN is not supported",
                                 sqlp_kw(p, "asof") ? "ASOF" : "POSITIONAL");
                return NULL;
            }
            break;
        }
        bool natural = sqlp_kw(p, "natural") && join_next;
        if (natural)
            sqlp_advance(p);
        int kind = join_kind(p);
        if (kind < 0)
            break;
        bool plain = sqlp_kw(p, "join");
        sqlp_advance(p);
        if (!plain) {
            if (kind == BASALT_SQL_JOIN_LEFT || kind == BASALT_SQL_JOIN_RIGHT || kind == BASALT_SQL_JOIN_FULL)
                basalt_sqlp_accept_kw(p, "outer");
            if (!basalt_sqlp_expect_kw(p, "join"))
                return NULL;
        }
        struct basalt_sql_from *j = new_from(p, BASALT_SQL_FROM_JOIN, pos);
        if (!j)
            return NULL;
        j->u.join.kind = (enum basalt_sql_join_kind)kind;
        j->u.join.left = left;
        if (!(j->u.join.right = item(p)))
            return NULL;
        j->u.join.natural = natural;
        if (kind != BASALT_SQL_JOIN_CROSS && !natural) {
            if (basalt_sqlp_accept_kw(p, "on")) {
                if (!(j->u.join.on = basalt_sqlp_expr(p)))
                    return NULL;
            } else if (basalt_sqlp_accept_kw(p, "using")) {
                if (!basalt_sqlp_ident_list(p, &j->u.join.n_using, &j->u.join.using_))
                    return NULL;
            } else {
                basalt_sqlp_syntax(p);
                return NULL;
            }
        }
        if (!from_height(p, j))
            return NULL;
        left = j;
    }
    return left;
}

struct basalt_sql_from *basalt_sqlp_from(struct sql_parser *p)
{
    struct basalt_sql_from *left = joins(p, item(p));
    while (left && sqlp_is(p, TK_COMMA)) {
        struct basalt_sql_from *j = new_from(p, BASALT_SQL_FROM_JOIN, sqlp_cur(p)->pos);
        sqlp_advance(p);
        if (!j)
            return NULL;
        j->u.join.kind = BASALT_SQL_JOIN_CROSS;
        j->u.join.left = left;
        if (!(j->u.join.right = joins(p, item(p))) || !from_height(p, j))
            return NULL;
        left = j;
    }
    return left;
}
