/* Statements and scripts: queries, EXPLAIN, COPY, CREATE TABLE [AS],
 * INSERT, DESCRIBE, SHOW TABLES, SET, DROP TABLE. */
#include <string.h>

#include "sql_internal.h"

static struct basalt_sql_statement *new_stmt(struct sql_parser *p, enum basalt_sql_statement_kind kind,
                                             int32_t pos)
{
    struct basalt_sql_statement *s = basalt_sqlp_alloc(p, sizeof(*s));
    if (s) {
        s->kind = kind;
        s->pos = pos;
    }
    return s;
}

static bool at_query_or_paren(const struct sql_parser *p)
{
    return basalt_sqlp_at_query(p) || sqlp_is(p, TK_LPAREN);
}

/* An option or setting value: a bare word is a string, as DuckDB reads
 * `FORMAT parquet`; anything else is an expression. */
static struct basalt_sql_expr *setting_value(struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    if (t->kind == TK_WORD && !sqlp_kw(p, "true") && !sqlp_kw(p, "false") && !sqlp_kw(p, "null") &&
        sqlp_peek(p, 1)->kind != TK_LPAREN && sqlp_peek(p, 1)->kind != TK_DOT) {
        struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_STRING, t->pos);
        if (!e || !(e->u.lit.text = basalt_sqlp_token_text(p, t)))
            return NULL;
        sqlp_advance(p);
        return e;
    }
    return basalt_sqlp_expr(p);
}

static bool copy_options(struct sql_parser *p, struct basalt_sql_statement *s)
{
    if (!basalt_sqlp_accept(p, TK_LPAREN))
        return true;
    struct sqlp_list l = {0};
    do {
        const struct sql_token *t = sqlp_cur(p);
        struct basalt_sql_option *o = basalt_sqlp_alloc(p, sizeof(*o));
        if (!o)
            return false;
        if (t->kind != TK_WORD && t->kind != TK_QIDENT) {
            basalt_sqlp_syntax(p);
            return false;
        }
        o->pos = t->pos;
        if (!(o->name = basalt_sqlp_token_text(p, t)))
            return false;
        sqlp_advance(p);
        basalt_sqlp_accept(p, TK_EQ);
        if (!sqlp_is(p, TK_COMMA) && !sqlp_is(p, TK_RPAREN) && !(o->value = setting_value(p)))
            return false;
        if (!basalt_sqlp_list_push(p, &l, o))
            return false;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    if (!(s->options = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*s->options))))
        return false;
    for (int32_t i = 0; i < l.n; i++)
        s->options[i] = *(struct basalt_sql_option *)l.items[i];
    s->n_options = l.n;
    return true;
}

static struct basalt_sql_statement *copy_stmt(struct sql_parser *p, int32_t pos)
{
    struct basalt_sql_statement *s = new_stmt(p, BASALT_SQL_STMT_COPY, pos);
    if (!s)
        return NULL;
    if (basalt_sqlp_accept(p, TK_LPAREN)) {
        if (!(s->query = basalt_sqlp_query(p)) || !basalt_sqlp_expect(p, TK_RPAREN))
            return NULL;
    } else if (!basalt_sqlp_name(p, &s->name)) {
        return NULL;
    }
    if (sqlp_kw(p, "from")) {
        basalt_sqlp_fail(p, BASALT_UNSUPPORTED, sqlp_cur(p)->pos, "COPY ... FROM is not supported");
        return NULL;
    }
    if (!basalt_sqlp_expect_kw(p, "to"))
        return NULL;
    if (!sqlp_is(p, TK_STRING)) {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    if (!(s->copy_to = basalt_sqlp_token_text(p, sqlp_cur(p))))
        return NULL;
    sqlp_advance(p);
    return copy_options(p, s) ? s : NULL;
}

static bool column_defs(struct sql_parser *p, struct basalt_sql_statement *s)
{
    struct sqlp_list l = {0};
    sqlp_advance(p); /* ( */
    do {
        struct basalt_sql_column_def *c = basalt_sqlp_alloc(p, sizeof(*c));
        if (!c || !basalt_sqlp_ident(p, &c->name) || !basalt_sqlp_type(p, &c->type))
            return false;
        for (;;) {
            if (sqlp_kw(p, "not") && sqlp_kw_at(p, 1, "null")) {
                sqlp_advance(p);
                sqlp_advance(p);
                c->not_null = true;
            } else if (basalt_sqlp_accept_kw(p, "null")) {
                c->not_null = false;
            } else {
                break;
            }
        }
        if (!basalt_sqlp_list_push(p, &l, c))
            return false;
    } while (basalt_sqlp_accept(p, TK_COMMA));
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    if (!(s->columns = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*s->columns))))
        return false;
    for (int32_t i = 0; i < l.n; i++)
        s->columns[i] = *(struct basalt_sql_column_def *)l.items[i];
    s->n_columns = l.n;
    return true;
}

static struct basalt_sql_statement *create_stmt(struct sql_parser *p, int32_t pos)
{
    struct basalt_sql_statement *s = new_stmt(p, BASALT_SQL_STMT_CREATE_TABLE, pos);
    if (!s)
        return NULL;
    if (sqlp_kw(p, "or")) {
        sqlp_advance(p);
        if (!basalt_sqlp_expect_kw(p, "replace"))
            return NULL;
        s->or_replace = true;
    }
    if (!sqlp_kw(p, "table")) {
        if (sqlp_kw(p, "view") || sqlp_kw(p, "schema") || sqlp_kw(p, "temp") || sqlp_kw(p, "temporary") ||
            sqlp_kw(p, "index") || sqlp_kw(p, "macro") || sqlp_kw(p, "sequence")) {
            basalt_sqlp_fail(p, BASALT_UNSUPPORTED, sqlp_cur(p)->pos, "only CREATE TABLE is supported");
            return NULL;
        }
        basalt_sqlp_syntax(p);
        return NULL;
    }
    sqlp_advance(p);
    if (sqlp_kw(p, "if") && sqlp_kw_at(p, 1, "not") && sqlp_kw_at(p, 2, "exists")) {
        for (int i = 0; i < 3; i++)
            sqlp_advance(p);
        s->if_not_exists = true;
    }
    if (!basalt_sqlp_name(p, &s->name))
        return NULL;
    if (basalt_sqlp_accept_kw(p, "as")) {
        s->kind = BASALT_SQL_STMT_CREATE_TABLE_AS;
        return (s->query = basalt_sqlp_query(p)) ? s : NULL;
    }
    if (!sqlp_is(p, TK_LPAREN)) {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    return column_defs(p, s) ? s : NULL;
}

static struct basalt_sql_statement *insert_stmt(struct sql_parser *p, int32_t pos)
{
    struct basalt_sql_statement *s = new_stmt(p, BASALT_SQL_STMT_INSERT, pos);
    if (!s || !basalt_sqlp_expect_kw(p, "into") || !basalt_sqlp_name(p, &s->name))
        return NULL;
    /* INSERT INTO t (a, b) ... vs INSERT INTO t (SELECT ...) */
    if (sqlp_is(p, TK_LPAREN) && sqlp_peek(p, 1)->kind != TK_LPAREN && !basalt_sqlp_word_is(p, sqlp_peek(p, 1), "select") &&
        !basalt_sqlp_word_is(p, sqlp_peek(p, 1), "with") && !basalt_sqlp_word_is(p, sqlp_peek(p, 1), "values") &&
        !basalt_sqlp_ident_list(p, &s->n_insert_columns, &s->insert_columns))
        return NULL;
    if (!at_query_or_paren(p)) {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    return (s->query = basalt_sqlp_query(p)) ? s : NULL;
}

static struct basalt_sql_statement *set_stmt(struct sql_parser *p, int32_t pos)
{
    struct basalt_sql_statement *s = new_stmt(p, BASALT_SQL_STMT_SET, pos);
    if (!s)
        return NULL;
    if (sqlp_kw(p, "session") || sqlp_kw(p, "global") || sqlp_kw(p, "local")) {
        if (!sqlp_kw(p, "session")) {
            basalt_sqlp_fail(p, BASALT_UNSUPPORTED, sqlp_cur(p)->pos, "only session settings are supported");
            return NULL;
        }
        sqlp_advance(p);
    }
    if (!basalt_sqlp_ident(p, &s->set_name))
        return NULL;
    if (!basalt_sqlp_accept(p, TK_EQ) && !basalt_sqlp_expect_kw(p, "to"))
        return NULL;
    return (s->set_value = setting_value(p)) ? s : NULL;
}

static struct basalt_sql_statement *statement(struct sql_parser *p)
{
    int32_t pos = sqlp_cur(p)->pos;
    struct basalt_sql_statement *s;
    if (at_query_or_paren(p)) {
        if (!(s = new_stmt(p, BASALT_SQL_STMT_QUERY, pos)))
            return NULL;
        return (s->query = basalt_sqlp_query(p)) ? s : NULL;
    }
    if (basalt_sqlp_accept_kw(p, "explain")) {
        if (!(s = new_stmt(p, BASALT_SQL_STMT_EXPLAIN, pos)))
            return NULL;
        s->analyze = basalt_sqlp_accept_kw(p, "analyze");
        if (!at_query_or_paren(p)) {
            basalt_sqlp_syntax(p);
            return NULL;
        }
        return (s->query = basalt_sqlp_query(p)) ? s : NULL;
    }
    if (basalt_sqlp_accept_kw(p, "copy"))
        return copy_stmt(p, pos);
    if (basalt_sqlp_accept_kw(p, "create"))
        return create_stmt(p, pos);
    if (basalt_sqlp_accept_kw(p, "insert"))
        return insert_stmt(p, pos);
    if (basalt_sqlp_accept_kw(p, "set"))
        return set_stmt(p, pos);
    if (basalt_sqlp_accept_kw(p, "describe") || basalt_sqlp_accept_kw(p, "show")) {
        bool show = basalt_sqlp_word_is(p, &p->toks[p->at - 1], "show");
        if (show && sqlp_kw(p, "tables")) {
            sqlp_advance(p);
            return new_stmt(p, BASALT_SQL_STMT_SHOW_TABLES, pos);
        }
        if (!(s = new_stmt(p, BASALT_SQL_STMT_DESCRIBE, pos)))
            return NULL;
        if (at_query_or_paren(p))
            return (s->query = basalt_sqlp_query(p)) ? s : NULL;
        return basalt_sqlp_name(p, &s->name) ? s : NULL;
    }
    if (basalt_sqlp_accept_kw(p, "drop")) {
        if (!(s = new_stmt(p, BASALT_SQL_STMT_DROP_TABLE, pos)) || !basalt_sqlp_expect_kw(p, "table"))
            return NULL;
        if (sqlp_kw(p, "if") && sqlp_kw_at(p, 1, "exists")) {
            sqlp_advance(p);
            sqlp_advance(p);
            s->if_exists = true;
        }
        return basalt_sqlp_name(p, &s->name) ? s : NULL;
    }
    basalt_sqlp_syntax(p);
    return NULL;
}

/* ------------------------------------------------------------------ script */

basalt_status basalt_sql_parse(const char *text, size_t len, struct basalt_sql_script **out,
                               struct basalt_error *err)
{
    *out = NULL;
    if (!text && len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL query text");
    if (len > BASALT_SQL_MAX_TEXT)
        return basalt_error_set(err, BASALT_LIMIT, "query text is %zu bytes, more than the %zu byte limit",
                                len, BASALT_SQL_MAX_TEXT);
    struct sql_token *toks;
    size_t n_toks;
    basalt_status st = basalt_sql_lex(text ? text : "", len, &toks, &n_toks, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_sql_script *script = basalt_calloc(1, sizeof(*script));
    if (!script) {
        basalt_free(toks);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory parsing SQL");
    }
    basalt_arena_init(&script->arena, 0);
    struct sql_parser p = {.text = text ? text : "", .len = len, .toks = toks, .n_toks = n_toks,
                           .arena = &script->arena, .err = err};
    struct sqlp_list stmts = {0};
    for (;;) {
        while (basalt_sqlp_accept(&p, TK_SEMI))
            ;
        if (sqlp_is(&p, TK_EOF))
            break;
        struct basalt_sql_statement *s = statement(&p);
        if (!s && p.status == BASALT_OK)
            basalt_sqlp_syntax(&p); /* every failing path records why; this is a backstop */
        if (!s || !basalt_sqlp_list_push(&p, &stmts, s))
            break;
        if (!sqlp_is(&p, TK_EOF) && !sqlp_is(&p, TK_SEMI)) {
            basalt_sqlp_syntax(&p);
            break;
        }
    }
    basalt_free(toks);
    if (p.status != BASALT_OK) {
        basalt_sql_script_free(script);
        return p.status;
    }
    script->n_statements = (size_t)stmts.n;
    script->statements = (struct basalt_sql_statement **)stmts.items;
    *out = script;
    return BASALT_OK;
}

void basalt_sql_script_free(struct basalt_sql_script *s)
{
    if (!s)
        return;
    basalt_arena_reset(&s->arena);
    basalt_free(s);
}

size_t basalt_sql_script_count(const struct basalt_sql_script *s) { return s ? s->n_statements : 0; }

const struct basalt_sql_statement *basalt_sql_script_statement(const struct basalt_sql_script *s, size_t i)
{
    return s && i < s->n_statements ? s->statements[i] : NULL;
}
