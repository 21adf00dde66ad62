/* Expressions: precedence climbing over PostgreSQL's (and so DuckDB's)
 * operator table, loosest first:
 *
 *   1 OR   2 AND   3 NOT (prefix)   4 IS, ISNULL, NOTNULL
 *   5 = <> != < <= > >=  (non-associative)
 *   6 [NOT] BETWEEN, IN, LIKE, ILIKE, SIMILAR TO  (non-associative)
 *   7 || == and the other operators DuckDB's grammar calls generic:
 *     & | << >> ^@ ~ !~ ~~ !~~ ~~* !~~* (left-associative, one level, so
 *     `1 | 2 & 3` is `(1 | 2) & 3`)
 *   8 + -   9 * / // %   10 ** ^ (power, left-associative)
 *   11 unary - +   12 ::
 *
 * Prefix `~` (bitwise NOT) is a generic operator too: its operand binds
 * tighter than level 7, so `~ 1 + 1` is `~(1 + 1)` and `~1 || 'a'` is
 * `(~1) || 'a'`.
 * `==` is not SQL's `=` to the grammar: DuckDB reads it as a generic
 * operator, which binds like `||` (`a == b LIKE c` is `(a == b) LIKE c`);
 * it means equality. The primaries are in parser_primary.c, calls and
 * windows in parser_call.c. */
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
    PREC_POW,
};

static struct basalt_sql_expr *parse_binary(struct sql_parser *p, int min_prec,
                                            struct basalt_sql_expr *left, bool restricted);

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
    case BASALT_SQL_EXPR_LAMBDA: h = eh(e->u.lambda.body); break;
    case BASALT_SQL_EXPR_STAR:
        for (int32_t i = 0; i < e->u.star.n_replace; i++)
            h = hmax(h, eh(e->u.star.replace[i].expr));
        break;
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


/* ------------------------------------------------------------------ operators */

/* l[i]: list_extract(l, i), as DuckDB binds it. Slices (`l[a:b]`) are
 * not parsed yet. */
static struct basalt_sql_expr *subscript(struct sql_parser *p, struct basalt_sql_expr *e)
{
    int32_t pos = sqlp_cur(p)->pos;
    sqlp_advance(p);
    struct basalt_sql_expr *i = basalt_sqlp_expr(p);
    if (!i || !basalt_sqlp_expect(p, TK_RBRACKET))
        return NULL;
    struct basalt_sql_expr *c = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_FUNCTION, pos);
    struct basalt_sql_expr **args = basalt_sqlp_alloc(p, 2 * sizeof *args);
    if (!c || !args)
        return NULL;
    args[0] = e;
    args[1] = i;
    c->u.call.name.name = "list_extract";
    c->u.call.name.pos = pos;
    c->u.call.n_args = 2;
    c->u.call.args = args;
    return done(p, c);
}

static struct basalt_sql_expr *postfix(struct sql_parser *p, struct basalt_sql_expr *e)
{
    while (e && (sqlp_is(p, TK_CAST) || sqlp_is(p, TK_LBRACKET))) {
        if (sqlp_is(p, TK_LBRACKET)) {
            e = subscript(p, e);
            continue;
        }
        struct basalt_sql_expr *c = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_CAST, sqlp_cur(p)->pos);
        sqlp_advance(p);
        if (!c || !basalt_sqlp_type(p, &c->u.cast.type))
            return NULL;
        c->u.cast.arg = e;
        e = done(p, c);
    }
    return e;
}

static struct basalt_sql_expr *prefix(struct sql_parser *p, bool restricted);

/* Whether token t is the operator `text`. */
static bool op_is(const struct sql_parser *p, const struct sql_token *t, const char *text)
{
    size_t n = strlen(text);
    return (size_t)t->len == n && memcmp(p->text + t->pos, text, n) == 0;
}

/* Prefix ~: a generic operator in DuckDB's grammar, so its operand takes
 * everything that binds tighter than `||` (`~ 1 + 1` is `~(1 + 1)`). */
static struct basalt_sql_expr *bit_not(struct sql_parser *p, bool restricted)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_UNARY, sqlp_cur(p)->pos);
    sqlp_advance(p);
    if (!e)
        return NULL;
    e->u.unary.op = BASALT_SQL_UNARY_BIT_NOT;
    e->u.unary.arg = parse_binary(p, PREC_ADD, NULL, restricted);
    return e->u.unary.arg ? done(p, e) : NULL;
}

/* Unary - and +. Their operand may start with NOT (`- NOT a = b` is
 * `-(NOT (a = b))`, as PostgreSQL's grammar has it), except in a restricted
 * expression. */
static struct basalt_sql_expr *unary(struct sql_parser *p, bool restricted)
{
    const struct sql_token *t = sqlp_cur(p);
    if (t->kind == TK_OP && op_is(p, t, "~"))
        return bit_not(p, restricted);
    if (t->kind != TK_MINUS && t->kind != TK_PLUS)
        return postfix(p, basalt_sqlp_primary(p));
    if (!basalt_sqlp_enter(p))
        return NULL;
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_UNARY, t->pos);
    sqlp_advance(p);
    if (e) {
        e->u.unary.op = t->kind == TK_MINUS ? BASALT_SQL_UNARY_MINUS : BASALT_SQL_UNARY_PLUS;
        e->u.unary.arg = prefix(p, restricted);
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

/* The TK_OP operators the grammar knows, by their text. */
static const struct binop generic_ops[] = {
    {TK_OP, PREC_POW, BASALT_SQL_BINARY_POW},          {TK_OP, PREC_POW, BASALT_SQL_BINARY_CARET},
    {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_BIT_AND},     {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_BIT_OR},
    {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_SHIFT_LEFT},  {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_SHIFT_RIGHT},
    {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_STARTS_WITH}, {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_REGEX},
    {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_NOT_REGEX},   {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_LIKE},
    {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_NOT_LIKE},    {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_ILIKE},
    {TK_OP, PREC_OTHER, BASALT_SQL_BINARY_NOT_ILIKE},
};

static const struct binop binops[] = {
    {TK_CONCAT, PREC_OTHER, BASALT_SQL_BINARY_CONCAT}, {TK_PLUS, PREC_ADD, BASALT_SQL_BINARY_ADD},
    {TK_MINUS, PREC_ADD, BASALT_SQL_BINARY_SUB},       {TK_STAR, PREC_MUL, BASALT_SQL_BINARY_MUL},
    {TK_SLASH, PREC_MUL, BASALT_SQL_BINARY_DIV},       {TK_SLASHSLASH, PREC_MUL, BASALT_SQL_BINARY_INTDIV},
    {TK_PERCENT, PREC_MUL, BASALT_SQL_BINARY_MOD},     {TK_EQ, PREC_CMP, BASALT_SQL_BINARY_EQ},
    {TK_EQEQ, PREC_OTHER, BASALT_SQL_BINARY_EQ},         {TK_NE, PREC_CMP, BASALT_SQL_BINARY_NE},
    {TK_BANGEQ, PREC_CMP, BASALT_SQL_BINARY_NE},       {TK_LT, PREC_CMP, BASALT_SQL_BINARY_LT},
    {TK_LE, PREC_CMP, BASALT_SQL_BINARY_LE},           {TK_GT, PREC_CMP, BASALT_SQL_BINARY_GT},
    {TK_GE, PREC_CMP, BASALT_SQL_BINARY_GE},
};

/* The precedence of the operator at the current token, 0 when none. In a
 * restricted expression (PostgreSQL's b_expr: a BETWEEN lower bound) only
 * arithmetic, ||, comparisons and IS [NOT] DISTINCT FROM count. */
static int peek_prec(const struct sql_parser *p, const struct binop **op, bool restricted)
{
    *op = NULL;
    const struct sql_token *t = sqlp_cur(p);
    if (t->kind == TK_OP) {
        /* An operator DuckDB's grammar reads but no function serves
         * (`|-`, `@`) fails where it is applied (parse_binary). */
        for (size_t i = 0; i < sizeof generic_ops / sizeof generic_ops[0]; i++)
            if (op_is(p, t, basalt_sql_operator_text(generic_ops[i].op))) {
                *op = &generic_ops[i];
                return generic_ops[i].prec;
            }
        return PREC_OTHER;
    }
    for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
        if (binops[i].tok == t->kind) {
            *op = &binops[i];
            return binops[i].prec;
        }
    if (t->kind != TK_WORD)
        return 0;
    if (restricted) {
        size_t k = sqlp_kw_at(p, 1, "not") ? 2 : 1;
        return sqlp_kw(p, "is") && sqlp_kw_at(p, k, "distinct") ? PREC_IS : 0;
    }
    if (sqlp_kw(p, "or"))
        return PREC_OR;
    if (sqlp_kw(p, "and"))
        return PREC_AND;
    if (sqlp_kw(p, "is") || sqlp_kw(p, "isnull") || sqlp_kw(p, "notnull"))
        return PREC_IS;
    size_t k = sqlp_kw(p, "not") ? 1 : 0;
    if (sqlp_kw_at(p, k, "between") || sqlp_kw_at(p, k, "in") || sqlp_kw_at(p, k, "like") ||
        sqlp_kw_at(p, k, "ilike") || (sqlp_kw_at(p, k, "similar") && sqlp_kw_at(p, k + 1, "to")))
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

/* IS [NOT] NULL | TRUE | FALSE | DISTINCT FROM x, ISNULL, NOTNULL. *infix
 * tells the caller whether a right operand was read (DISTINCT FROM). */
static struct basalt_sql_expr *is_expr(struct sql_parser *p, struct basalt_sql_expr *left, bool restricted,
                                       bool *infix)
{
    int32_t pos = sqlp_cur(p)->pos;
    *infix = false;
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
        *infix = true;
        return binary_node(p, negated ? BASALT_SQL_BINARY_IS_NOT_DISTINCT : BASALT_SQL_BINARY_IS_DISTINCT,
                           left, parse_binary(p, PREC_CMP, NULL, restricted), pos);
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

/* x [NOT] IN (list | query), after the IN. */
static struct basalt_sql_expr *in_expr(struct sql_parser *p, struct basalt_sql_expr *left, bool negated,
                                       int32_t pos)
{
    struct basalt_sql_expr *e;
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return NULL;
    struct basalt_sql_query *q = NULL;
    struct sqlp_list l = {0};
    if (basalt_sqlp_at_query(p)) {
        if (!(q = basalt_sqlp_query(p)))
            return NULL;
    } else {
        struct basalt_sql_expr *first = basalt_sqlp_expr(p);
        if (!first)
            return NULL;
        /* x IN ((SELECT ..) UNION (SELECT ..)), x IN ((SELECT ..)): a query
         * that starts with a parenthesised operand. */
        if (first->kind == BASALT_SQL_EXPR_SUBQUERY &&
            (basalt_sqlp_at_query_rest(p) || sqlp_is(p, TK_RPAREN))) {
            q = first->u.subquery;
            if (basalt_sqlp_at_query_rest(p) && !(q = basalt_sqlp_query_rest(p, q)))
                return NULL;
        } else if (!basalt_sqlp_list_push(p, &l, first)) {
            return NULL;
        }
        while (!q && basalt_sqlp_accept(p, TK_COMMA)) {
            struct basalt_sql_expr *item = basalt_sqlp_expr(p);
            if (!item || !basalt_sqlp_list_push(p, &l, item))
                return NULL;
        }
    }
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return NULL;
    if (q) {
        if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_IN_QUERY, pos)))
            return NULL;
        e->u.in_query.arg = left;
        e->u.in_query.negated = negated;
        e->u.in_query.query = q;
        return done(p, e);
    }
    if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_IN_LIST, pos)))
        return NULL;
    e->u.in_list.arg = left;
    e->u.in_list.negated = negated;
    e->u.in_list.n_items = l.n;
    e->u.in_list.items = (struct basalt_sql_expr **)l.items;
    return done(p, e);
}

/* [NOT] BETWEEN | IN | LIKE | ILIKE | SIMILAR TO after `left`. *infix as for is_expr:
 * IN has no right operand. */
static struct basalt_sql_expr *predicate(struct sql_parser *p, struct basalt_sql_expr *left, bool *infix)
{
    int32_t pos = sqlp_cur(p)->pos;
    bool negated = basalt_sqlp_accept_kw(p, "not");
    struct basalt_sql_expr *e;
    *infix = true;
    if (basalt_sqlp_accept_kw(p, "between")) {
        if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_BETWEEN, pos)))
            return NULL;
        e->u.between.arg = left;
        e->u.between.negated = negated;
        /* The lower bound stops at AND: no AND, OR, NOT, IS NULL, IN, LIKE
         * or BETWEEN in it unless parenthesised; the upper bound binds as
         * tightly as BETWEEN itself. */
        if (!(e->u.between.low = parse_binary(p, PREC_OR, NULL, true)) || !basalt_sqlp_expect_kw(p, "and") ||
            !(e->u.between.high = parse_binary(p, PREC_OTHER, NULL, false)))
            return NULL;
        return done(p, e);
    }
    if (basalt_sqlp_accept_kw(p, "in")) {
        *infix = false;
        return in_expr(p, left, negated, pos);
    }
    if (!(e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_LIKE, pos)))
        return NULL;
    e->u.like.ilike = sqlp_kw(p, "ilike");
    e->u.like.similar = sqlp_kw(p, "similar");
    sqlp_advance(p); /* LIKE, ILIKE or SIMILAR, as peek_prec saw */
    if (e->u.like.similar)
        sqlp_advance(p); /* TO */
    e->u.like.arg = left;
    e->u.like.negated = negated;
    if (!(e->u.like.pattern = parse_binary(p, PREC_OTHER, NULL, false)))
        return NULL;
    if (basalt_sqlp_accept_kw(p, "escape") && !(e->u.like.escape = parse_binary(p, PREC_OTHER, NULL, false)))
        return NULL;
    return done(p, e);
}

/* Prefix NOT (precedence 3) and the unary operators below it. */
static struct basalt_sql_expr *prefix(struct sql_parser *p, bool restricted)
{
    if (restricted || !sqlp_kw(p, "not"))
        return unary(p, restricted);
    /* The recursion goes through parse_binary, which counts the depth. */
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_UNARY, sqlp_cur(p)->pos);
    sqlp_advance(p);
    if (!e)
        return NULL;
    e->u.unary.op = BASALT_SQL_UNARY_NOT;
    e->u.unary.arg = parse_binary(p, PREC_NOT, NULL, false);
    return e->u.unary.arg ? done(p, e) : NULL;
}

/* Operators of precedence >= min_prec after `left` (read here when NULL).
 *
 * As in PostgreSQL's grammar, comparisons, LIKE/ILIKE/BETWEEN and IS
 * DISTINCT FROM do not associate: once one of them has read its right
 * operand, another operator of the same level is an error (`a = b = c`,
 * `a LIKE b LIKE c`). The postfix forms (IN (...), IS NULL, ISNULL) end
 * their expression instead, so `a IN (b) IN (c)` and `a IS NULL IS NULL`
 * chain, and a `::` after them casts the whole of it. */
static struct basalt_sql_expr *parse_binary(struct sql_parser *p, int min_prec, struct basalt_sql_expr *left,
                                            bool restricted)
{
    if (!basalt_sqlp_enter(p))
        return NULL;
    if (!left)
        left = prefix(p, restricted);
    int nonassoc = 0; /* the level whose next operator is an error */
    while (left) {
        const struct binop *op;
        int prec = peek_prec(p, &op, restricted);
        if (prec == 0 || prec < min_prec)
            break;
        if (prec == nonassoc) {
            basalt_sqlp_syntax(p);
            left = NULL;
            break;
        }
        int32_t pos = sqlp_cur(p)->pos;
        bool infix = true;
        if (prec == PREC_IS) {
            left = is_expr(p, left, restricted, &infix);
        } else if (prec == PREC_PRED) {
            left = predicate(p, left, &infix);
        } else if (prec == PREC_OR || prec == PREC_AND) {
            sqlp_advance(p);
            left = binary_node(p, prec == PREC_OR ? BASALT_SQL_BINARY_OR : BASALT_SQL_BINARY_AND,
                               left, parse_binary(p, prec + 1, NULL, false), pos);
        } else if (op == NULL) {
            const struct sql_token *t = sqlp_cur(p);
            basalt_sqlp_fail(p, BASALT_INVALID_ARG, t->pos, "operator %.*s does not exist",
                             (int)t->len, p->text + t->pos);
            left = NULL;
            break;
        } else {
            sqlp_advance(p);
            /* DuckDB's grammar still has postfix operators, so a generic
             * operator (|| ==) followed by NOT ends as `a ||` and the word
             * after NOT is an error there. */
            if (prec == PREC_OTHER && sqlp_kw(p, "not")) {
                sqlp_advance(p);
                basalt_sqlp_syntax(p);
                left = NULL;
                break;
            }
            if (prec == PREC_CMP &&
                (sqlp_kw(p, "any") || sqlp_kw(p, "some") || sqlp_kw(p, "all")) &&
                sqlp_peek(p, 1)->kind == TK_LPAREN)
                left = basalt_sqlp_quantified(p, op->op, left, pos);
            else
                left = binary_node(p, op->op, left, parse_binary(p, prec + 1, NULL, restricted), pos);
        }
        if (!infix)
            left = postfix(p, left);
        nonassoc = infix && (prec == PREC_CMP || prec == PREC_PRED || prec == PREC_IS) ? prec : 0;
    }
    sqlp_leave(p);
    return p->status == BASALT_OK ? left : NULL;
}

struct basalt_sql_expr *basalt_sqlp_expr(struct sql_parser *p) { return parse_binary(p, PREC_OR, NULL, false); }

struct basalt_sql_expr *basalt_sqlp_operand(struct sql_parser *p) { return parse_binary(p, PREC_OTHER, NULL, false); }

struct basalt_sql_expr *basalt_sqlp_expr_rest(struct sql_parser *p, struct basalt_sql_expr *primary_)
{
    struct basalt_sql_expr *e = postfix(p, primary_);
    return e ? parse_binary(p, PREC_OR, e, false) : NULL;
}
