/* Expressions: precedence climbing over PostgreSQL's (and so DuckDB's)
 * operator table, loosest first:
 *
 *   1 OR   2 AND   3 NOT (prefix)   4 IS, ISNULL, NOTNULL
 *   5 = == <> != < <= > >=  (non-associative)
 *   6 [NOT] BETWEEN, IN, LIKE, ILIKE  (non-associative)
 *   7 ||   8 + -   9 * / // %   10 unary - +   11 ::
 *
 * Primaries: literals, names, calls, CASE, CAST, EXTRACT, INTERVAL, typed
 * literals, lists, subqueries and parenthesised expressions. */
#include <string.h>

#include "sql_internal.h"

enum {
    PREC_OR = 1,
    PREC_AND,
    PREC_NOT,
    PREC_IS,
    PREC_CMP,
    PREC_PRED,
    PREC_OTHER,
    PREC_ADD,
    PREC_MUL,
};

static struct basalt_sql_expr *parse_binary(struct sql_parser *p, int min_prec,
                                            struct basalt_sql_expr *left);

struct basalt_sql_expr *basalt_sqlp_new_expr(struct sql_parser *p, enum basalt_sql_expr_kind kind,
                                            int32_t pos)
{
    struct basalt_sql_expr *e = basalt_sqlp_alloc(p, sizeof(*e));
    if (e) {
        e->kind = kind;
        e->pos = pos;
        e->height = 1;
    }
    return e;
}

/* ------------------------------------------------------------------ heights */

static int32_t hmax(int32_t a, int32_t b) { return a > b ? a : b; }

static int32_t eh(const struct basalt_sql_expr *e) { return e ? e->height : 0; }

static int32_t list_h(struct basalt_sql_expr *const *items, int32_t n)
{
    int32_t h = 0;
    for (int32_t i = 0; i < n; i++)
        h = hmax(h, eh(items[i]));
    return h;
}

static int32_t order_h(const struct basalt_sql_order_item *items, int32_t n)
{
    int32_t h = 0;
    for (int32_t i = 0; i < n; i++)
        h = hmax(h, eh(items[i].expr));
    return h;
}

static int32_t window_h(const struct basalt_sql_window *w)
{
    if (!w)
        return 0;
    return 1 + hmax(hmax(list_h(w->partition, w->n_partition), order_h(w->order, w->n_order)),
                    hmax(eh(w->start.offset), eh(w->end.offset)));
}

static int32_t call_h(const struct basalt_sql_call *c)
{
    return hmax(hmax(list_h(c->args, c->n_args), order_h(c->order, c->n_order)),
                hmax(eh(c->filter), window_h(c->over)));
}

bool basalt_sqlp_expr_height(struct sql_parser *p, struct basalt_sql_expr *e)
{
    int32_t h = 0;
    switch (e->kind) {
    case BASALT_SQL_EXPR_INTERVAL: h = eh(e->u.interval.value); break;
    case BASALT_SQL_EXPR_UNARY: h = eh(e->u.unary.arg); break;
    case BASALT_SQL_EXPR_BINARY: h = hmax(eh(e->u.binary.left), eh(e->u.binary.right)); break;
    case BASALT_SQL_EXPR_IS: h = eh(e->u.is.arg); break;
    case BASALT_SQL_EXPR_BETWEEN:
        h = hmax(eh(e->u.between.arg), hmax(eh(e->u.between.low), eh(e->u.between.high)));
        break;
    case BASALT_SQL_EXPR_IN_LIST:
        h = hmax(eh(e->u.in_list.arg), list_h(e->u.in_list.items, e->u.in_list.n_items));
        break;
    case BASALT_SQL_EXPR_IN_QUERY:
        h = hmax(eh(e->u.in_query.arg), basalt_sqlp_query_height(e->u.in_query.query));
        break;
    case BASALT_SQL_EXPR_LIKE:
        h = hmax(eh(e->u.like.arg), hmax(eh(e->u.like.pattern), eh(e->u.like.escape)));
        break;
    case BASALT_SQL_EXPR_CASE:
        h = hmax(eh(e->u.case_.operand), eh(e->u.case_.otherwise));
        h = hmax(h, hmax(list_h(e->u.case_.when, e->u.case_.n_when),
                         list_h(e->u.case_.then, e->u.case_.n_when)));
        break;
    case BASALT_SQL_EXPR_CAST: h = eh(e->u.cast.arg); break;
    case BASALT_SQL_EXPR_EXTRACT: h = eh(e->u.extract.arg); break;
    case BASALT_SQL_EXPR_FUNCTION: h = call_h(&e->u.call); break;
    case BASALT_SQL_EXPR_SUBQUERY:
    case BASALT_SQL_EXPR_EXISTS: h = basalt_sqlp_query_height(e->u.subquery); break;
    case BASALT_SQL_EXPR_LIST: h = list_h(e->u.list.items, e->u.list.n_items); break;
    default: break;
    }
    e->height = h + 1;
    return basalt_sqlp_check_height(p, e->height, e->pos);
}

static struct basalt_sql_expr *done(struct sql_parser *p, struct basalt_sql_expr *e)
{
    return e && basalt_sqlp_expr_height(p, e) ? e : NULL;
}

/* ------------------------------------------------------------------ lists */

bool basalt_sqlp_expr_list(struct sql_parser *p, int32_t *n, struct basalt_sql_expr ***out)
{
    struct sqlp_list l = {0};
    for (;;) {
        struct basalt_sql_expr *e = basalt_sqlp_expr(p);
        if (!e || !basalt_sqlp_list_push(p, &l, e))
            return false;
        if (!basalt_sqlp_accept(p, TK_COMMA))
            break;
    }
    *n = l.n;
    *out = (struct basalt_sql_expr **)l.items;
    return true;
}

bool basalt_sqlp_order_list(struct sql_parser *p, int32_t *n, struct basalt_sql_order_item **out,
                            bool *all)
{
    if (all)
        *all = false;
    struct sqlp_list l = {0};
    bool order_all = all && sqlp_kw(p, "all");
    for (;;) {
        struct basalt_sql_order_item *it = basalt_sqlp_alloc(p, sizeof(*it));
        if (!it)
            return false;
        if (order_all) {
            sqlp_advance(p);
            *all = true;
        } else if (!(it->expr = basalt_sqlp_expr(p))) {
            return false;
        }
        if (basalt_sqlp_accept_kw(p, "asc"))
            it->dir = BASALT_SQL_ORDER_ASC;
        else if (basalt_sqlp_accept_kw(p, "desc"))
            it->dir = BASALT_SQL_ORDER_DESC;
        if (sqlp_kw(p, "nulls") && (sqlp_kw_at(p, 1, "first") || sqlp_kw_at(p, 1, "last"))) {
            sqlp_advance(p);
            it->nulls = sqlp_kw(p, "first") ? BASALT_SQL_NULLS_FIRST : BASALT_SQL_NULLS_LAST;
            sqlp_advance(p);
        }
        if (!basalt_sqlp_list_push(p, &l, it))
            return false;
        if (order_all || !basalt_sqlp_accept(p, TK_COMMA))
            break;
    }
    struct basalt_sql_order_item *arr = basalt_sqlp_alloc(p, (size_t)l.n * sizeof(*arr));
    if (!arr)
        return false;
    for (int32_t i = 0; i < l.n; i++)
        arr[i] = *(struct basalt_sql_order_item *)l.items[i];
    *n = l.n;
    *out = arr;
    return true;
}

/* ------------------------------------------------------------------ windows */

static bool frame_bound(struct sql_parser *p, struct basalt_sql_frame_bound *b)
{
    if (sqlp_kw(p, "unbounded")) {
        sqlp_advance(p);
        if (basalt_sqlp_accept_kw(p, "preceding"))
            b->kind = BASALT_SQL_BOUND_UNBOUNDED_PRECEDING;
        else if (basalt_sqlp_expect_kw(p, "following"))
            b->kind = BASALT_SQL_BOUND_UNBOUNDED_FOLLOWING;
        else
            return false;
        return true;
    }
    if (sqlp_kw(p, "current")) {
        sqlp_advance(p);
        b->kind = BASALT_SQL_BOUND_CURRENT_ROW;
        return basalt_sqlp_expect_kw(p, "row");
    }
    /* An offset binds tighter than the AND of BETWEEN. */
    if (!(b->offset = parse_binary(p, PREC_OTHER, NULL)))
        return false;
    if (basalt_sqlp_accept_kw(p, "preceding"))
        b->kind = BASALT_SQL_BOUND_PRECEDING;
    else if (basalt_sqlp_expect_kw(p, "following"))
        b->kind = BASALT_SQL_BOUND_FOLLOWING;
    else
        return false;
    return true;
}

/* The inside of OVER ( ... ) or WINDOW w AS ( ... ), from the '('. */
struct basalt_sql_window *basalt_sqlp_window_body(struct sql_parser *p)
{
    struct basalt_sql_window *w = basalt_sqlp_alloc(p, sizeof(*w));
    if (!w)
        return NULL;
    w->pos = sqlp_cur(p)->pos;
    w->parenthesised = true;
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return NULL;
    if (sqlp_at_ident(p) && !sqlp_kw(p, "partition") && !sqlp_kw(p, "order") &&
        !sqlp_kw(p, "rows") && !sqlp_kw(p, "range") && !sqlp_kw(p, "groups") &&
        !basalt_sqlp_ident(p, &w->ref))
        return NULL;
    if (sqlp_kw(p, "partition")) {
        sqlp_advance(p);
        if (!basalt_sqlp_expect_kw(p, "by") || !basalt_sqlp_expr_list(p, &w->n_partition, &w->partition))
            return NULL;
    }
    if (sqlp_kw(p, "order")) {
        sqlp_advance(p);
        if (!basalt_sqlp_expect_kw(p, "by") || !basalt_sqlp_order_list(p, &w->n_order, &w->order, NULL))
            return NULL;
    }
    if (sqlp_kw(p, "rows") || sqlp_kw(p, "range") || sqlp_kw(p, "groups")) {
        w->frame = sqlp_kw(p, "rows")    ? BASALT_SQL_FRAME_ROWS
                   : sqlp_kw(p, "range") ? BASALT_SQL_FRAME_RANGE
                                         : BASALT_SQL_FRAME_GROUPS;
        sqlp_advance(p);
        if (basalt_sqlp_accept_kw(p, "between")) {
            if (!frame_bound(p, &w->start) || !basalt_sqlp_expect_kw(p, "and") ||
                !frame_bound(p, &w->end))
                return NULL;
        } else {
            if (!frame_bound(p, &w->start))
                return NULL;
            w->end.kind = BASALT_SQL_BOUND_CURRENT_ROW;
        }
        if (w->start.kind == BASALT_SQL_BOUND_UNBOUNDED_FOLLOWING ||
            w->end.kind == BASALT_SQL_BOUND_UNBOUNDED_PRECEDING) {
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, w->pos, "frame bounds are reversed");
            return NULL;
        }
    }
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return NULL;
    return basalt_sqlp_check_height(p, window_h(w), w->pos) ? w : NULL;
}

/* ------------------------------------------------------------------ calls */

static bool at_named_arg(const struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p), *n = sqlp_peek(p, 1);
    return (t->kind == TK_WORD || t->kind == TK_QIDENT) && (n->kind == TK_ARROW || n->kind == TK_COLONEQ);
}

bool basalt_sqlp_call_args(struct sql_parser *p, struct basalt_sql_call *call, bool table_function)
{
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return false;
    if (basalt_sqlp_accept(p, TK_RPAREN))
        return true;
    if (!table_function && sqlp_is(p, TK_STAR) && sqlp_peek(p, 1)->kind == TK_RPAREN) {
        sqlp_advance(p);
        sqlp_advance(p);
        call->star = true;
        return true;
    }
    if (!table_function) {
        if (basalt_sqlp_accept_kw(p, "distinct"))
            call->distinct = true;
        else
            basalt_sqlp_accept_kw(p, "all");
    }
    struct sqlp_list args = {0}, names = {0};
    bool any_named = false;
    for (;;) {
        const char *name = NULL;
        if (at_named_arg(p)) {
            if (!(name = basalt_sqlp_token_text(p, sqlp_cur(p))))
                return false;
            sqlp_advance(p);
            sqlp_advance(p);
            any_named = true;
        }
        struct basalt_sql_expr *e = basalt_sqlp_expr(p);
        if (!e || !basalt_sqlp_list_push(p, &args, e) ||
            !basalt_sqlp_list_push(p, &names, (void *)(uintptr_t)name))
            return false;
        if (!basalt_sqlp_accept(p, TK_COMMA))
            break;
    }
    call->n_args = args.n;
    call->args = (struct basalt_sql_expr **)args.items;
    call->arg_names = any_named ? (const char **)names.items : NULL;
    if (!table_function && sqlp_kw(p, "order") && sqlp_kw_at(p, 1, "by")) {
        sqlp_advance(p);
        sqlp_advance(p);
        if (!basalt_sqlp_order_list(p, &call->n_order, &call->order, NULL))
            return false;
    }
    return basalt_sqlp_expect(p, TK_RPAREN);
}

/* SUBSTRING(x FROM a [FOR b]) as substring(x, a[, b]); plain positional
 * arguments otherwise. The first argument is read once either way (reading
 * it again would cost 2^depth on nested calls). */
static bool substring_args(struct sql_parser *p, struct basalt_sql_call *call)
{
    size_t save = p->at;
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return false;
    if (sqlp_is(p, TK_RPAREN) || sqlp_is(p, TK_STAR) || sqlp_kw(p, "distinct") || sqlp_kw(p, "all") ||
        at_named_arg(p)) {
        p->at = save; /* nothing read yet */
        return basalt_sqlp_call_args(p, call, false);
    }
    struct sqlp_list args = {0};
    struct basalt_sql_expr *x = basalt_sqlp_expr(p);
    if (!x || !basalt_sqlp_list_push(p, &args, x))
        return false;
    if (basalt_sqlp_accept_kw(p, "from")) {
        struct basalt_sql_expr *a = basalt_sqlp_expr(p);
        if (!a || !basalt_sqlp_list_push(p, &args, a))
            return false;
        if (basalt_sqlp_accept_kw(p, "for")) {
            struct basalt_sql_expr *b = basalt_sqlp_expr(p);
            if (!b || !basalt_sqlp_list_push(p, &args, b))
                return false;
        }
    } else {
        while (basalt_sqlp_accept(p, TK_COMMA)) {
            struct basalt_sql_expr *a = basalt_sqlp_expr(p);
            if (!a || !basalt_sqlp_list_push(p, &args, a))
                return false;
        }
    }
    call->n_args = args.n;
    call->args = (struct basalt_sql_expr **)args.items;
    return basalt_sqlp_expect(p, TK_RPAREN);
}

static struct basalt_sql_expr *function_call(struct sql_parser *p, struct basalt_sql_ident name)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_FUNCTION, name.pos);
    if (!e)
        return NULL;
    struct basalt_sql_call *c = &e->u.call;
    c->name = name;
    bool ok = !name.quoted && strcmp(name.name, "substring") == 0 ? substring_args(p, c)
                                                                  : basalt_sqlp_call_args(p, c, false);
    if (!ok)
        return NULL;
    if (sqlp_kw(p, "filter") && sqlp_peek(p, 1)->kind == TK_LPAREN) {
        sqlp_advance(p);
        sqlp_advance(p);
        if (!basalt_sqlp_expect_kw(p, "where") || !(c->filter = basalt_sqlp_expr(p)) ||
            !basalt_sqlp_expect(p, TK_RPAREN))
            return NULL;
    }
    if (sqlp_kw(p, "over")) {
        sqlp_advance(p);
        if (sqlp_is(p, TK_LPAREN)) {
            if (!(c->over = basalt_sqlp_window_body(p)))
                return NULL;
        } else {
            if (!(c->over = basalt_sqlp_alloc(p, sizeof(*c->over))))
                return NULL;
            c->over->pos = sqlp_cur(p)->pos;
            if (!basalt_sqlp_ident(p, &c->over->ref))
                return NULL;
        }
    }
    return done(p, e);
}

/* ------------------------------------------------------------------ primaries */

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

/* * [EXCLUDE (a, b) | EXCLUDE a] after the qualifier, if any. */
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
        if (sqlp_is(p, TK_LPAREN)) {
            if (!basalt_sqlp_ident_list(p, &e->u.star.n_exclude, &e->u.star.exclude))
                return NULL;
        } else {
            e->u.star.n_exclude = 1;
            if (!(e->u.star.exclude = basalt_sqlp_alloc(p, sizeof(*e->u.star.exclude))) ||
                !basalt_sqlp_ident(p, e->u.star.exclude))
                return NULL;
        }
    }
    return e;
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
        return function_call(p, name);
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

static struct basalt_sql_expr *primary(struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    struct basalt_sql_expr *e;
    switch (t->kind) {
    case TK_INTEGER: return literal_text(p, BASALT_SQL_EXPR_INTEGER);
    case TK_NUMBER: return literal_text(p, BASALT_SQL_EXPR_NUMBER);
    case TK_STRING: return literal_text(p, BASALT_SQL_EXPR_STRING);
    case TK_LBRACKET: return list_literal(p);
    case TK_STAR: return star_expr(p, t->pos, NULL);
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

/* ------------------------------------------------------------------ operators */

static struct basalt_sql_expr *postfix(struct sql_parser *p, struct basalt_sql_expr *e)
{
    while (e && sqlp_is(p, TK_CAST)) {
        struct basalt_sql_expr *c = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_CAST, sqlp_cur(p)->pos);
        sqlp_advance(p);
        if (!c || !basalt_sqlp_type(p, &c->u.cast.type))
            return NULL;
        c->u.cast.arg = e;
        e = done(p, c);
    }
    return e;
}

static struct basalt_sql_expr *unary(struct sql_parser *p)
{
    const struct sql_token *t = sqlp_cur(p);
    if (t->kind != TK_MINUS && t->kind != TK_PLUS)
        return postfix(p, primary(p));
    if (!basalt_sqlp_enter(p))
        return NULL;
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_UNARY, t->pos);
    sqlp_advance(p);
    if (e) {
        e->u.unary.op = t->kind == TK_MINUS ? BASALT_SQL_UNARY_MINUS : BASALT_SQL_UNARY_PLUS;
        e->u.unary.arg = unary(p);
        e = e->u.unary.arg ? done(p, e) : NULL;
    }
    sqlp_leave(p);
    return e;
}

struct binop {
    enum sql_tok tok;
    int prec;
    enum basalt_sql_binary_op op;
};

static const struct binop binops[] = {
    {TK_CONCAT, PREC_OTHER, BASALT_SQL_BINARY_CONCAT}, {TK_PLUS, PREC_ADD, BASALT_SQL_BINARY_ADD},
    {TK_MINUS, PREC_ADD, BASALT_SQL_BINARY_SUB},       {TK_STAR, PREC_MUL, BASALT_SQL_BINARY_MUL},
    {TK_SLASH, PREC_MUL, BASALT_SQL_BINARY_DIV},       {TK_SLASHSLASH, PREC_MUL, BASALT_SQL_BINARY_INTDIV},
    {TK_PERCENT, PREC_MUL, BASALT_SQL_BINARY_MOD},     {TK_EQ, PREC_CMP, BASALT_SQL_BINARY_EQ},
    {TK_EQEQ, PREC_CMP, BASALT_SQL_BINARY_EQ},         {TK_NE, PREC_CMP, BASALT_SQL_BINARY_NE},
    {TK_BANGEQ, PREC_CMP, BASALT_SQL_BINARY_NE},       {TK_LT, PREC_CMP, BASALT_SQL_BINARY_LT},
    {TK_LE, PREC_CMP, BASALT_SQL_BINARY_LE},           {TK_GT, PREC_CMP, BASALT_SQL_BINARY_GT},
    {TK_GE, PREC_CMP, BASALT_SQL_BINARY_GE},
};

/* The precedence of the operator at the current token, 0 when none. */
static int peek_prec(const struct sql_parser *p, const struct binop **op)
{
    *op = NULL;
    const struct sql_token *t = sqlp_cur(p);
    for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
        if (binops[i].tok == t->kind) {
            *op = &binops[i];
            return binops[i].prec;
        }
    if (t->kind != TK_WORD)
        return 0;
    if (sqlp_kw(p, "or"))
        return PREC_OR;
    if (sqlp_kw(p, "and"))
        return PREC_AND;
    if (sqlp_kw(p, "is") || sqlp_kw(p, "isnull") || sqlp_kw(p, "notnull"))
        return PREC_IS;
    size_t k = sqlp_kw(p, "not") ? 1 : 0;
    if (sqlp_kw_at(p, k, "between") || sqlp_kw_at(p, k, "in") || sqlp_kw_at(p, k, "like") ||
        sqlp_kw_at(p, k, "ilike"))
        return PREC_PRED;
    return 0;
}

static struct basalt_sql_expr *binary_node(struct sql_parser *p, enum basalt_sql_binary_op op,
                                           struct basalt_sql_expr *l, struct basalt_sql_expr *r,
                                           int32_t pos)
{
    if (!l || !r)
        return NULL;
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_BINARY, pos);
    if (!e)
        return NULL;
    e->u.binary.op = op;
    e->u.binary.left = l;
    e->u.binary.right = r;
    return done(p, e);
}

/* IS [NOT] NULL | TRUE | FALSE | DISTINCT FROM x, ISNULL, NOTNULL */
static struct basalt_sql_expr *is_expr(struct sql_parser *p, struct basalt_sql_expr *left)
{
    int32_t pos = sqlp_cur(p)->pos;
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_IS, pos);
    if (!e)
        return NULL;
    e->u.is.arg = left;
    if (sqlp_kw(p, "isnull") || sqlp_kw(p, "notnull")) {
        e->u.is.what = BASALT_SQL_IS_NULL;
        e->u.is.negated = sqlp_kw(p, "notnull");
        sqlp_advance(p);
        return done(p, e);
    }
    sqlp_advance(p);
    bool negated = basalt_sqlp_accept_kw(p, "not");
    if (basalt_sqlp_accept_kw(p, "distinct")) {
        if (!basalt_sqlp_expect_kw(p, "from"))
            return NULL;
        return binary_node(p, negated ? BASALT_SQL_BINARY_IS_NOT_DISTINCT : BASALT_SQL_BINARY_IS_DISTINCT,
                           left, parse_binary(p, PREC_CMP, NULL), pos);
    }
    if (sqlp_kw(p, "null"))
        e->u.is.what = BASALT_SQL_IS_NULL;
    else if (sqlp_kw(p, "true"))
        e->u.is.what = BASALT_SQL_IS_TRUE;
    else if (sqlp_kw(p, "false"))
        e->u.is.what = BASALT_SQL_IS_FALSE;
    else {
        basalt_sqlp_syntax(p);
        return NULL;
    }
    sqlp_advance(p);
    e->u.is.negated = negated;
    return done(p, e);
}

/* [NOT] BETWEEN | IN | LIKE | ILIKE after `left`. */
static struct basalt_sql_expr *predicate(struct sql_parser *p, struct basalt_sql_expr *left)
{
    int32_t pos = sqlp_cur(p)->pos;
    bool negated = basalt_sqlp_accept_kw(p, "not");
    struct basalt_sql_expr *e;
    if (basalt_sqlp_accept_kw(p, "between")) {
        if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_BETWEEN, pos)))
            return NULL;
        e->u.between.arg = left;
        e->u.between.negated = negated;
        if (!(e->u.between.low = parse_binary(p, PREC_OTHER, NULL)) || !basalt_sqlp_expect_kw(p, "and") ||
            !(e->u.between.high = parse_binary(p, PREC_OTHER, NULL)))
            return NULL;
        return done(p, e);
    }
    if (basalt_sqlp_accept_kw(p, "in")) {
        if (!basalt_sqlp_expect(p, TK_LPAREN))
            return NULL;
        if (basalt_sqlp_at_query(p)) {
            if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_IN_QUERY, pos)))
                return NULL;
            e->u.in_query.arg = left;
            e->u.in_query.negated = negated;
            if (!(e->u.in_query.query = basalt_sqlp_query(p)) || !basalt_sqlp_expect(p, TK_RPAREN))
                return NULL;
            return done(p, e);
        }
        struct sqlp_list l = {0};
        struct basalt_sql_expr *first = basalt_sqlp_expr(p);
        if (!first)
            return NULL;
        /* x IN ((SELECT ..) UNION (SELECT ..)), x IN ((SELECT ..)): a query
         * that starts with a parenthesised operand. */
        if (first->kind == BASALT_SQL_EXPR_SUBQUERY &&
            (basalt_sqlp_at_query_rest(p) || sqlp_is(p, TK_RPAREN))) {
            if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_IN_QUERY, pos)))
                return NULL;
            e->u.in_query.arg = left;
            e->u.in_query.negated = negated;
            e->u.in_query.query = first->u.subquery;
            if (basalt_sqlp_at_query_rest(p) &&
                !(e->u.in_query.query = basalt_sqlp_query_rest(p, first->u.subquery)))
                return NULL;
            if (!basalt_sqlp_expect(p, TK_RPAREN))
                return NULL;
            return done(p, e);
        }
        if (!basalt_sqlp_list_push(p, &l, first))
            return NULL;
        while (basalt_sqlp_accept(p, TK_COMMA)) {
            struct basalt_sql_expr *item = basalt_sqlp_expr(p);
            if (!item || !basalt_sqlp_list_push(p, &l, item))
                return NULL;
        }
        if (!basalt_sqlp_expect(p, TK_RPAREN))
            return NULL;
        int32_t n = l.n;
        struct basalt_sql_expr **items = (struct basalt_sql_expr **)l.items;
        if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_IN_LIST, pos)))
            return NULL;
        e->u.in_list.arg = left;
        e->u.in_list.negated = negated;
        e->u.in_list.n_items = n;
        e->u.in_list.items = items;
        return done(p, e);
    }
    if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_LIKE, pos)))
        return NULL;
    e->u.like.ilike = sqlp_kw(p, "ilike");
    sqlp_advance(p); /* LIKE or ILIKE, as peek_prec saw */
    e->u.like.arg = left;
    e->u.like.negated = negated;
    if (!(e->u.like.pattern = parse_binary(p, PREC_OTHER, NULL)))
        return NULL;
    if (basalt_sqlp_accept_kw(p, "escape") && !(e->u.like.escape = parse_binary(p, PREC_OTHER, NULL)))
        return NULL;
    return done(p, e);
}

/* Prefix NOT (precedence 3) and the unary operators below it. */
static struct basalt_sql_expr *prefix(struct sql_parser *p)
{
    if (!sqlp_kw(p, "not"))
        return unary(p);
    /* The recursion goes through parse_binary, which counts the depth. */
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_UNARY, sqlp_cur(p)->pos);
    sqlp_advance(p);
    if (!e)
        return NULL;
    e->u.unary.op = BASALT_SQL_UNARY_NOT;
    e->u.unary.arg = parse_binary(p, PREC_NOT, NULL);
    return e->u.unary.arg ? done(p, e) : NULL;
}

/* Operators of precedence >= min_prec after `left` (read here when NULL). */
static struct basalt_sql_expr *parse_binary(struct sql_parser *p, int min_prec, struct basalt_sql_expr *left)
{
    if (!basalt_sqlp_enter(p))
        return NULL;
    if (!left)
        left = prefix(p);
    int last = 0;
    while (left) {
        const struct binop *op;
        int prec = peek_prec(p, &op);
        if (prec == 0 || prec < min_prec)
            break;
        /* Comparisons and predicates do not chain: `a = b = c` is an error,
         * as in PostgreSQL. */
        if ((prec == PREC_CMP || prec == PREC_PRED) && prec == last) {
            basalt_sqlp_syntax(p);
            left = NULL;
            break;
        }
        last = prec;
        int32_t pos = sqlp_cur(p)->pos;
        if (prec == PREC_IS) {
            left = is_expr(p, left);
        } else if (prec == PREC_PRED) {
            left = predicate(p, left);
        } else if (prec == PREC_OR || prec == PREC_AND) {
            sqlp_advance(p);
            left = binary_node(p, prec == PREC_OR ? BASALT_SQL_BINARY_OR : BASALT_SQL_BINARY_AND,
                               left, parse_binary(p, prec + 1, NULL), pos);
        } else {
            sqlp_advance(p);
            left = binary_node(p, op->op, left, parse_binary(p, prec + 1, NULL), pos);
        }
    }
    sqlp_leave(p);
    return p->status == BASALT_OK ? left : NULL;
}

struct basalt_sql_expr *basalt_sqlp_expr(struct sql_parser *p) { return parse_binary(p, PREC_OR, NULL); }

struct basalt_sql_expr *basalt_sqlp_expr_rest(struct sql_parser *p, struct basalt_sql_expr *primary_)
{
    struct basalt_sql_expr *e = postfix(p, primary_);
    return e ? parse_binary(p, PREC_OR, e) : NULL;
}
