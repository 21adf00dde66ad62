/* Function calls and windows: arguments (positional, named, DISTINCT, *,
 * ORDER BY), FILTER, OVER (PARTITION BY, ORDER BY, frames and EXCLUDE), and the
 * SUBSTRING(x FROM a FOR b) form. */
#include <string.h>

#include "sql_internal.h"

static struct basalt_sql_expr *done(struct sql_parser *p, struct basalt_sql_expr *e)
{
    return e && basalt_sqlp_expr_height(p, e) ? e : NULL;
}

static int32_t window_h(const struct basalt_sql_window *w)
{
    int32_t h = 0;
    for (int32_t i = 0; i < w->n_partition; i++)
        h = h > w->partition[i]->height ? h : w->partition[i]->height;
    for (int32_t i = 0; i < w->n_order; i++)
        if (w->order[i].expr && w->order[i].expr->height > h)
            h = w->order[i].expr->height;
    if (w->start.offset && w->start.offset->height > h)
        h = w->start.offset->height;
    if (w->end.offset && w->end.offset->height > h)
        h = w->end.offset->height;
    return h + 1;
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
    if (!(b->offset = basalt_sqlp_operand(p)))
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
        if (sqlp_kw(p, "exclude")) {
            sqlp_advance(p);
            if (basalt_sqlp_accept_kw(p, "current")) {
                if (!basalt_sqlp_expect_kw(p, "row"))
                    return NULL;
                w->exclude = BASALT_SQL_EXCLUDE_CURRENT_ROW;
            } else if (basalt_sqlp_accept_kw(p, "group")) {
                w->exclude = BASALT_SQL_EXCLUDE_GROUP;
            } else if (basalt_sqlp_accept_kw(p, "ties")) {
                w->exclude = BASALT_SQL_EXCLUDE_TIES;
            } else if (basalt_sqlp_accept_kw(p, "no")) {
                if (!basalt_sqlp_expect_kw(p, "others"))
                    return NULL;
            } else {
                basalt_sqlp_fail(p, BASALT_INVALID_ARG, sqlp_cur(p)->pos,
                                 "EXCLUDE takes CURRENT ROW, GROUP, TIES or NO OTHERS");
                return NULL;
            }
        }
    }
    if (!basalt_sqlp_expect(p, TK_RPAREN))
        return NULL;
    return basalt_sqlp_check_height(p, window_h(w), w->pos) ? w : NULL;
}

/* ------------------------------------------------------------------ calls */

/* `name => value` or `name := value`; in a table function's arguments also
 * `name = value`, as DuckDB reads them (`read_csv('f.csv', delim = ';')`):
 * its arguments are the file and options, never a comparison. */
static bool at_named_arg(const struct sql_parser *p, bool table_function)
{
    const struct sql_token *t = sqlp_cur(p), *n = sqlp_peek(p, 1);
    return (t->kind == TK_WORD || t->kind == TK_QIDENT) &&
           (n->kind == TK_ARROW || n->kind == TK_COLONEQ || (table_function && n->kind == TK_EQ));
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
        if (at_named_arg(p, table_function)) {
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
    if (any_named) {
        const char **arg_names = basalt_sqlp_alloc(p, (size_t)names.n * sizeof(*arg_names));
        if (!arg_names)
            return false;
        for (int32_t i = 0; i < names.n; i++)
            arg_names[i] = names.items[i];
        call->arg_names = arg_names;
    }
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
/* position(needle IN haystack): the call position(haystack, needle), as
 * DuckDB's two-argument position takes them (strpos). Without IN, plain
 * arguments. */
static bool position_args(struct sql_parser *p, struct basalt_sql_call *call)
{
    size_t save = p->at;
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return false;
    struct basalt_sql_expr *needle = NULL, *haystack = NULL;
    if (!sqlp_is(p, TK_RPAREN) && !at_named_arg(p, false))
        needle = basalt_sqlp_operand(p);
    if (needle == NULL || !basalt_sqlp_accept_kw(p, "in")) {
        if (p->status != BASALT_OK)
            return false;
        p->at = save;
        return basalt_sqlp_call_args(p, call, false);
    }
    struct basalt_sql_expr **args = basalt_sqlp_alloc(p, 2 * sizeof *args);
    if (!args || !(haystack = basalt_sqlp_expr(p)) || !basalt_sqlp_expect(p, TK_RPAREN))
        return false;
    args[0] = haystack;
    args[1] = needle;
    call->n_args = 2;
    call->args = args;
    return true;
}

static bool substring_args(struct sql_parser *p, struct basalt_sql_call *call)
{
    size_t save = p->at;
    if (!basalt_sqlp_expect(p, TK_LPAREN))
        return false;
    if (sqlp_is(p, TK_RPAREN) || sqlp_is(p, TK_STAR) || sqlp_kw(p, "distinct") || sqlp_kw(p, "all") ||
        at_named_arg(p, false)) {
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

/* COLUMNS(c -> body) and COLUMNS(lambda c: body): the one argument a
 * lambda; false with nothing read when the arguments are not one. */
static bool columns_lambda(struct sql_parser *p, struct basalt_sql_call *call)
{
    const struct sql_token *op = sqlp_peek(p, 2);
    bool arrow = (sqlp_peek(p, 1)->kind == TK_WORD || sqlp_peek(p, 1)->kind == TK_QIDENT) &&
                 op->kind == TK_OP && op->len == 2 && memcmp(p->text + op->pos, "->", 2) == 0;
    bool keyword = sqlp_kw_at(p, 1, "lambda") && sqlp_peek(p, 3)->kind == TK_COLON;
    if (!sqlp_is(p, TK_LPAREN) || (!arrow && !keyword))
        return false;
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_LAMBDA, sqlp_peek(p, 1)->pos);
    struct basalt_sql_expr **args = basalt_sqlp_alloc(p, sizeof *args);
    if (e == NULL || args == NULL)
        return true;
    sqlp_advance(p); /* ( */
    if (keyword)
        sqlp_advance(p);
    if (!basalt_sqlp_ident(p, &e->u.lambda.param))
        return true;
    sqlp_advance(p); /* -> or : */
    if (!(e->u.lambda.body = basalt_sqlp_expr(p)) || !basalt_sqlp_expect(p, TK_RPAREN))
        return true;
    e->height = e->u.lambda.body->height + 1;
    args[0] = e;
    call->args = args;
    call->n_args = 1;
    return true;
}

struct basalt_sql_expr *basalt_sqlp_function_call(struct sql_parser *p, struct basalt_sql_ident name)
{
    struct basalt_sql_expr *e = basalt_sqlp_new_expr(p, BASALT_SQL_EXPR_FUNCTION, name.pos);
    if (!e)
        return NULL;
    struct basalt_sql_call *c = &e->u.call;
    c->name = name;
    bool lambda = !name.quoted && strcmp(name.name, "columns") == 0 && columns_lambda(p, c);
    if (lambda && p->status != BASALT_OK)
        return NULL;
    bool ok = lambda ? true
              : !name.quoted && strcmp(name.name, "substring") == 0 ? substring_args(p, c)
              : !name.quoted && strcmp(name.name, "position") == 0  ? position_args(p, c)
                                                                    : basalt_sqlp_call_args(p, c, false);
    if (!ok)
        return NULL;
    if (sqlp_kw(p, "filter") && sqlp_peek(p, 1)->kind == TK_LPAREN) {
        sqlp_advance(p);
        sqlp_advance(p);
        basalt_sqlp_accept_kw(p, "where"); /* DuckDB's FILTER (cond) leaves it out */
        if (!(c->filter = basalt_sqlp_expr(p)) ||
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
