/* DuckDB's select-list forms over the FROM's columns, rewritten into plain
 * items before the select list binds:
 *
 *   * EXCLUDE (a, b)       a name the star does not cover is an error (the
 *                          star itself expands in bind_query.c)
 *   * REPLACE (x AS a)     one item per column, a replaced by x and named a
 *   * RENAME (a AS b)      one item per column, a named b (t.a: a of t only;
 *                          a name the star does not cover is ignored)
 *   COLUMNS('regex')       one item per column whose name the regex (RE2,
 *   COLUMNS(*)             case-sensitive) matches, or every column; inside
 *   COLUMNS(['a', 'b'])    an expression (max(COLUMNS('^x'))) one copy of it
 *   COLUMNS(c -> c LIKE 'x%')  (the lambda: the names it is true of)
 *   COLUMNS(* EXCLUDE (a)), COLUMNS(t.*)  (the names the star covers)
 *                          per column, named by the column (or the item's
 *                          alias); in WHERE the copies are ANDed, in
 *                          ORDER BY each is a key (bind_expr.c refuses
 *                          COLUMNS elsewhere, as DuckDB does).
 *
 * The copies reference their columns by `table.name` where the column has
 * a table, so the rest of binding sees ordinary column references. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "basalt/query.h"
#include "bind/bind_internal.h"

/* Whether the star `st` (STAR node) covers scope column c, as bind_query.c
 * expands it: named, not a hidden USING column unless qualified, of the
 * star's table if qualified. */
static bool star_covers(const struct basalt_sql_expr *st, const struct bcol *c)
{
    const struct basalt_sql_name *q = &st->u.star.qualifier;
    if (c->name == NULL || c->name[0] == '\0' || c->internal || (c->hidden && q->n_parts == 0))
        return false;
    return q->n_parts == 0 ||
           (c->table != NULL && strcasecmp(c->table, q->parts[q->n_parts - 1].name) == 0);
}

/* The new name RENAME gives scope column c, or NULL. A column it does not
 * cover is no error (DuckDB ignores it); a qualified one must name c's
 * table. */
static bool names_column(const struct basalt_sql_name *n, const struct bcol *c);

static const struct basalt_sql_ident *renamed(const struct basalt_sql_expr *st, const struct bcol *c)
{
    for (int32_t r = 0; r < st->u.star.n_rename; r++)
        if (names_column(&st->u.star.rename[r].column, c))
            return &st->u.star.rename[r].alias;
    return NULL;
}

/* Whether `n` (an EXCLUDE or RENAME entry: `a`, `t.a`) names scope column c. */
static bool names_column(const struct basalt_sql_name *n, const struct bcol *c)
{
    if (c->name == NULL || n->n_parts > 2 || strcasecmp(n->parts[n->n_parts - 1].name, c->name) != 0)
        return false;
    return n->n_parts == 1 || (c->table != NULL && strcasecmp(n->parts[0].name, c->table) == 0);
}

bool basalt_sql_star_excludes(const struct basalt_sql_expr *star, const struct bcol *c)
{
    for (int32_t x = 0; x < star->u.star.n_exclude; x++)
        if (names_column(&star->u.star.exclude[x], c))
            return true;
    return false;
}

static bool excluded(const struct basalt_sql_expr *st, const struct bcol *c)
{
    return basalt_sql_star_excludes(st, c);
}

/* A dotted name as written (`t.a`), for messages. */
static const char *name_text(struct binder *B, const struct basalt_sql_name *n)
{
    char buf[512];
    size_t len = 0;
    for (int32_t i = 0; i < n->n_parts && len < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "." : "", n->parts[i].name);
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    const char *t = basalt_arena_strndup(&B->arena, buf, len);
    return t ? t : "";
}

/* Every EXCLUDE and REPLACE name must be a column the star covers (a
 * qualified EXCLUDE name: a column of that table, the hidden side of a
 * USING too, as DuckDB takes it). */
static basalt_status check_names(struct binder *B, const struct bscope *scope,
                                 const struct basalt_sql_expr *st, struct basalt_error *err)
{
    for (int32_t k = 0; k < st->u.star.n_exclude; k++) {
        const struct basalt_sql_name *n = &st->u.star.exclude[k];
        bool found = false;
        for (int c = 0; c < scope->n && !found; c++) {
            const struct bcol *bc = &scope->cols[c];
            found = names_column(n, bc) && (star_covers(st, bc) || (n->n_parts == 2 && !bc->internal));
        }
        const struct basalt_sql_name *q = &st->u.star.qualifier;
        if (found && q->n_parts > 0 && n->n_parts == 2 &&
            strcasecmp(n->parts[0].name, q->parts[q->n_parts - 1].name) != 0)
            return basalt_sql_err(B, BASALT_INVALID_ARG, n->parts[0].pos, err,
                                  "Column \"%s\" in EXCLUDE list not found in %s", name_text(B, n),
                                  q->parts[q->n_parts - 1].name);
        if (!found)
            return basalt_sql_err(B, BASALT_INVALID_ARG, n->parts[0].pos, err,
                                  "Column \"%s\" in EXCLUDE list not found in FROM clause",
                                  name_text(B, n));
    }
    for (int32_t k = 0; k < st->u.star.n_replace; k++) {
        const struct basalt_sql_ident *id = &st->u.star.replace[k].alias;
        bool found = false;
        for (int c = 0; c < scope->n && !found; c++)
            found = star_covers(st, &scope->cols[c]) && strcasecmp(scope->cols[c].name, id->name) == 0;
        if (!found)
            return basalt_sql_err(B, BASALT_INVALID_ARG, id->pos, err,
                                  "Column \"%s\" in REPLACE list not found in FROM clause", id->name);
    }
    return BASALT_OK;
}

static bool is_columns_call(const struct basalt_sql_expr *e)
{
    return e->kind == BASALT_SQL_EXPR_FUNCTION && strcmp(e->u.call.name.name, "columns") == 0 &&
           !e->u.call.name.quoted && e->u.call.over == NULL;
}

/* COLUMNS(...) that copies the expression around it (not *COLUMNS). */
static bool is_columns(const struct basalt_sql_expr *e)
{
    return is_columns_call(e) && !e->u.call.unpack;
}

static bool is_unpack(const struct basalt_sql_expr *e)
{
    return is_columns_call(e) && e->u.call.unpack;
}

/* The first COLUMNS call in e (subqueries not entered), or NULL. */
static const struct basalt_sql_expr *find_columns(const struct basalt_sql_expr *e);

static const struct basalt_sql_expr *first_of(struct basalt_sql_expr *const *es, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        const struct basalt_sql_expr *c = es[i] ? find_columns(es[i]) : NULL;
        if (c)
            return c;
    }
    return NULL;
}

static const struct basalt_sql_expr *find_columns(const struct basalt_sql_expr *e)
{
    if (is_columns(e))
        return e;
    switch (e->kind) {
    case BASALT_SQL_EXPR_UNARY: return find_columns(e->u.unary.arg);
    case BASALT_SQL_EXPR_BINARY: {
        struct basalt_sql_expr *lr[2] = {e->u.binary.left, e->u.binary.right};
        return first_of(lr, 2);
    }
    case BASALT_SQL_EXPR_IS: return find_columns(e->u.is.arg);
    case BASALT_SQL_EXPR_BETWEEN: {
        struct basalt_sql_expr *x[3] = {e->u.between.arg, e->u.between.low, e->u.between.high};
        return first_of(x, 3);
    }
    case BASALT_SQL_EXPR_IN_LIST: {
        const struct basalt_sql_expr *c = find_columns(e->u.in_list.arg);
        return c ? c : first_of(e->u.in_list.items, e->u.in_list.n_items);
    }
    case BASALT_SQL_EXPR_IN_QUERY: return find_columns(e->u.in_query.arg);
    case BASALT_SQL_EXPR_LIKE: {
        struct basalt_sql_expr *x[3] = {e->u.like.arg, e->u.like.pattern, e->u.like.escape};
        return first_of(x, 3);
    }
    case BASALT_SQL_EXPR_CASE: {
        struct basalt_sql_expr *x[2] = {e->u.case_.operand, e->u.case_.otherwise};
        const struct basalt_sql_expr *c = first_of(x, 2);
        if (!c)
            c = first_of(e->u.case_.when, e->u.case_.n_when);
        return c ? c : first_of(e->u.case_.then, e->u.case_.n_when);
    }
    case BASALT_SQL_EXPR_CAST: return find_columns(e->u.cast.arg);
    case BASALT_SQL_EXPR_EXTRACT: return find_columns(e->u.extract.arg);
    case BASALT_SQL_EXPR_FUNCTION: {
        /* the arguments, FILTER, ORDER BY and the window's keys */
        const struct basalt_sql_call *c = &e->u.call;
        const struct basalt_sql_expr *x = first_of(c->args, c->n_args);
        if (x == NULL && c->filter != NULL)
            x = find_columns(c->filter);
        for (int32_t i = 0; x == NULL && i < c->n_order; i++)
            x = find_columns(c->order[i].expr);
        if (x == NULL && c->over != NULL)
            x = first_of(c->over->partition, c->over->n_partition);
        for (int32_t i = 0; x == NULL && c->over != NULL && i < c->over->n_order; i++)
            x = find_columns(c->over->order[i].expr);
        return x;
    }
    default: return NULL;
    }
}

/* Replaces a lambda's parameter by the column name being tried. */
struct param_subst {
    const char *param;
    struct basalt_sql_expr *name;
};

static enum basalt_sql_replace param_to_name(void *ctx, const struct basalt_sql_expr *e,
                                             struct basalt_sql_expr **out)
{
    const struct param_subst *P = ctx;
    if (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS ||
        e->kind == BASALT_SQL_EXPR_IN_QUERY)
        return BASALT_SQL_KEEP;
    if (e->kind != BASALT_SQL_EXPR_COLUMN || e->u.column.n_parts != 1 ||
        strcasecmp(e->u.column.parts[0].name, P->param) != 0)
        return BASALT_SQL_DESCEND;
    *out = P->name;
    return BASALT_SQL_REPLACE;
}

/* Whether COLUMNS(param -> body) takes the column `name`: the body, with
 * the parameter the name as a VARCHAR, is a constant cast to BOOLEAN
 * (DuckDB's list_filter over the names; NULL is false). */
static basalt_status lambda_takes(struct binder *B, const struct basalt_sql_expr *lambda,
                                  const char *name, bool *takes, struct basalt_error *err)
{
    struct basalt_sql_expr *lit = basalt_arena_alloc(&B->arena, sizeof *lit, 8);
    if (lit == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(lit, 0, sizeof *lit);
    lit->kind = BASALT_SQL_EXPR_STRING;
    lit->pos = lambda->pos;
    lit->height = 1;
    lit->u.lit.text = name;
    struct param_subst P = {lambda->u.lambda.param.name, lit};
    const struct basalt_sql_expr *body;
    basalt_status st = basalt_sql_ast_replace(B, lambda->u.lambda.body, param_to_name, &P, &body, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_type boolean = {.id = BASALT_QUERY_TYPE_BOOL};
    struct basalt_query_value v;
    st = basalt_sql_constant(B, body, &boolean, "COLUMNS", &v, err);
    if (st == BASALT_OK)
        *takes = !v.is_null && v.type.id == BASALT_QUERY_TYPE_BOOL && v.v.b;
    return st;
}

/* The scope columns a COLUMNS call selects, in order; an error when it
 * selects none or its argument is not a pattern, a list of names, a
 * lambda over the names or a star. */
static basalt_status columns_of(struct binder *B, const struct bscope *scope,
                                const struct basalt_sql_expr *call, const struct bcol ***out, int *n_out,
                                struct basalt_error *err)
{
    const struct basalt_sql_call *c = &call->u.call;
    const struct basalt_sql_expr *arg = c->n_args == 1 ? c->args[0] : NULL;
    bool all = c->star && c->n_args == 0;
    bool list = arg && arg->kind == BASALT_SQL_EXPR_LIST;
    bool lambda = arg && arg->kind == BASALT_SQL_EXPR_LAMBDA;
    bool star = arg && arg->kind == BASALT_SQL_EXPR_STAR;
    for (int32_t i = 0; list && i < arg->u.list.n_items; i++)
        list = arg->u.list.items[i]->kind == BASALT_SQL_EXPR_STRING;
    if (lambda && basalt_sql_has_subquery(arg->u.lambda.body))
        return basalt_sql_err(B, BASALT_INVALID_ARG, arg->pos, err,
                              "Table function cannot contain subqueries");
    if (star) {
        basalt_status cst = check_names(B, scope, arg, err);
        if (cst != BASALT_OK)
            return cst;
    }
    if (!all && !list && !lambda && !star && (arg == NULL || arg->kind != BASALT_SQL_EXPR_STRING))
        return basalt_sql_err(B, BASALT_INVALID_ARG, call->pos, err,
                              "COLUMNS expects either a VARCHAR argument (regex) or a LIST of "
                              "VARCHAR (list of columns)");
    const struct bcol **cols = basalt_arena_alloc(&B->arena, sizeof *cols * (size_t)(scope->n + 1), 8);
    if (cols == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int n = 0;
    basalt_status st = BASALT_OK;
    if (list) {
        /* the named columns, in the FROM's order (DuckDB's) */
        for (int32_t i = 0; i < arg->u.list.n_items && st == BASALT_OK; i++) {
            const char *name = arg->u.list.items[i]->u.lit.text;
            bool found = false;
            for (int k = 0; k < scope->n && !found; k++)
                found = !scope->cols[k].hidden && scope->cols[k].name != NULL &&
                        strcasecmp(scope->cols[k].name, name) == 0;
            if (!found)
                st = basalt_sql_err(B, BASALT_NOT_FOUND, arg->u.list.items[i]->pos, err,
                                    "column \"%s\" not found", name);
        }
        for (int k = 0; k < scope->n && st == BASALT_OK; k++) {
            const struct bcol *bc = &scope->cols[k];
            bool named = false;
            for (int32_t i = 0; i < arg->u.list.n_items && !named && !bc->hidden && bc->name; i++)
                named = strcasecmp(bc->name, arg->u.list.items[i]->u.lit.text) == 0;
            if (named)
                cols[n++] = bc;
        }
    } else {
        for (int k = 0; k < scope->n && st == BASALT_OK; k++) {
            const struct bcol *bc = &scope->cols[k];
            if (bc->name == NULL || bc->name[0] == '\0' || bc->hidden)
                continue;
            bool match = all || (star && star_covers(arg, bc) && !excluded(arg, bc));
            if (lambda) {
                st = lambda_takes(B, arg, bc->name, &match, err);
                if (st != BASALT_OK)
                    return st;
            } else if (!all && !star) {
                const char *re = arg->u.lit.text;
                struct basalt_error rerr;
                basalt_error_init(&rerr);
                st = basalt_query_regex_search(re, strlen(re), bc->name, strlen(bc->name), &match, &rerr);
                if (st != BASALT_OK)
                    return basalt_sql_err(B, st, arg->pos, err, "%s", rerr.message);
            }
            if (match)
                cols[n++] = bc;
        }
        if (st == BASALT_OK && n == 0 && (lambda || star))
            st = basalt_sql_err(B, BASALT_INVALID_ARG, call->pos, err,
                                "Star expression \"%s\" resulted in an empty set of columns",
                                basalt_sql_text(B, call));
        else if (st == BASALT_OK && n == 0)
            st = basalt_sql_err(B, BASALT_INVALID_ARG, call->pos, err,
                                "No matching columns found that match regex \"%s\"",
                                all ? "*" : arg->u.lit.text);
    }
    *out = cols;
    *n_out = n;
    return st;
}

/* Replaces the COLUMNS calls whose text is `text` by a column. */
struct subst {
    struct binder *B;
    const char *text;
    struct basalt_sql_expr *column;
    bool other; /* a COLUMNS call of another text was seen */
    bool nomem;
};

static enum basalt_sql_replace substitute(void *ctx, const struct basalt_sql_expr *e,
                                          struct basalt_sql_expr **out);

/* *x with its COLUMNS calls replaced (a field of a copy); whether it
 * changed. */
static bool substituted(struct subst *S, struct basalt_sql_expr **x, bool *nomem)
{
    const struct basalt_sql_expr *r = *x;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (*x != NULL && basalt_sql_ast_replace(S->B, *x, substitute, S, &r, &ignore) != BASALT_OK)
        *nomem = true;
    if (r == *x)
        return false;
    *x = basalt_sql_ast_shared(r);
    return true;
}

/* A call whose FILTER, ORDER BY or window holds COLUMNS (the generic walk
 * reads only arguments): rewritten here, over copies of those parts. */
static enum basalt_sql_replace call_parts(struct subst *S, const struct basalt_sql_expr *e,
                                          struct basalt_sql_expr **out)
{
    const struct basalt_sql_call *c = &e->u.call;
    struct basalt_sql_expr *copy = basalt_arena_alloc(&S->B->arena, sizeof *copy, 8);
    struct basalt_sql_expr **args = basalt_arena_alloc(&S->B->arena, sizeof *args * ((size_t)c->n_args + 1), 8);
    struct basalt_sql_order_item *order =
        basalt_arena_alloc(&S->B->arena, sizeof *order * ((size_t)c->n_order + 1), 8);
    struct basalt_sql_window *w = basalt_arena_alloc(&S->B->arena, sizeof *w, 8);
    int32_t np = c->over ? c->over->n_partition : 0, no = c->over ? c->over->n_order : 0;
    struct basalt_sql_expr **part = basalt_arena_alloc(&S->B->arena, sizeof *part * ((size_t)np + 1), 8);
    struct basalt_sql_order_item *worder =
        basalt_arena_alloc(&S->B->arena, sizeof *worder * ((size_t)no + 1), 8);
    bool nomem = !copy || !args || !order || !w || !part || !worder, changed = false;
    if (nomem) {
        S->nomem = true;
        return BASALT_SQL_KEEP;
    }
    *copy = *e;
    for (int32_t i = 0; i < c->n_args; i++) {
        args[i] = c->args[i];
        changed |= substituted(S, &args[i], &nomem);
    }
    copy->u.call.args = c->n_args > 0 ? args : NULL;
    changed |= substituted(S, &copy->u.call.filter, &nomem);
    for (int32_t i = 0; i < c->n_order; i++) {
        order[i] = c->order[i];
        changed |= substituted(S, &order[i].expr, &nomem);
    }
    copy->u.call.order = c->n_order > 0 ? order : NULL;
    if (c->over != NULL) {
        *w = *c->over;
        for (int32_t i = 0; i < np; i++) {
            part[i] = c->over->partition[i];
            changed |= substituted(S, &part[i], &nomem);
        }
        for (int32_t i = 0; i < no; i++) {
            worder[i] = c->over->order[i];
            changed |= substituted(S, &worder[i].expr, &nomem);
        }
        w->partition = np > 0 ? part : NULL;
        w->order = no > 0 ? worder : NULL;
        copy->u.call.over = w;
    }
    S->nomem |= nomem;
    if (!changed)
        return BASALT_SQL_KEEP;
    *out = copy;
    return BASALT_SQL_REPLACE;
}

static enum basalt_sql_replace substitute(void *ctx, const struct basalt_sql_expr *e,
                                          struct basalt_sql_expr **out)
{
    struct subst *S = ctx;
    if (e->kind == BASALT_SQL_EXPR_FUNCTION && !is_columns(e) &&
        (e->u.call.filter != NULL || e->u.call.n_order > 0 || e->u.call.over != NULL))
        return call_parts(S, e, out);
    if (!is_columns(e))
        return BASALT_SQL_DESCEND;
    const char *t = basalt_sql_text(S->B, e);
    if (t == NULL || strcmp(t, S->text) != 0) {
        S->other = true;
        return BASALT_SQL_KEEP;
    }
    *out = S->column;
    return BASALT_SQL_REPLACE;
}

static struct basalt_sql_expr *column_ref(struct binder *B, const struct bcol *c, int32_t pos)
{
    return basalt_sql_ast_column(B, c->table, c->name, pos);
}

/* The star a COLUMNS call takes (`COLUMNS(* EXCLUDE ... REPLACE ... RENAME
 * ...)`), or NULL. */
static const struct basalt_sql_expr *columns_star(const struct basalt_sql_expr *call)
{
    const struct basalt_sql_call *c = &call->u.call;
    return c->n_args == 1 && c->args[0]->kind == BASALT_SQL_EXPR_STAR ? c->args[0] : NULL;
}

/* The name of a COLUMNS item for column c: RENAME's when the item is the
 * call itself (DuckDB ignores it inside an expression), else the column's. */
static const char *columns_item_name(const struct basalt_sql_expr *item,
                                     const struct basalt_sql_expr *call, const struct bcol *c)
{
    const struct basalt_sql_expr *star = item == call ? columns_star(call) : NULL;
    const struct basalt_sql_ident *to = star != NULL ? renamed(star, c) : NULL;
    return to != NULL ? to->name : c->name;
}

/* e with its COLUMNS call (`call`) expanded: copies[i] for column i, a
 * column REPLACE names standing as its expression. */
static basalt_status expand_expr(struct binder *B, const struct bscope *scope,
                                 const struct basalt_sql_expr *e, const struct basalt_sql_expr *call,
                                 const struct basalt_sql_expr ***copies, const struct bcol ***cols,
                                 int *n, struct basalt_error *err)
{
    basalt_status st = columns_of(B, scope, call, cols, n, err);
    if (st != BASALT_OK)
        return st;
    *copies = basalt_arena_alloc(&B->arena, sizeof **copies * (size_t)(*n + 1), 8);
    const char *text = basalt_sql_text(B, call);
    if (*copies == NULL || text == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    const struct basalt_sql_expr *star = columns_star(call);
    for (int i = 0; i < *n && st == BASALT_OK; i++) {
        /* COLUMNS(* REPLACE (x AS a)): x stands for column a */
        const struct basalt_sql_expr *x = NULL;
        for (int32_t r = 0; star != NULL && r < star->u.star.n_replace && x == NULL; r++)
            if (strcasecmp(star->u.star.replace[r].alias.name, (*cols)[i]->name) == 0)
                x = star->u.star.replace[r].expr;
        struct subst S = {B, text,
                          x != NULL ? basalt_sql_ast_shared(x) : column_ref(B, (*cols)[i], call->pos),
                          false, false};
        if (S.column == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        st = basalt_sql_ast_replace(B, e, substitute, &S, &(*copies)[i], err);
        if (st == BASALT_OK && S.nomem)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (st == BASALT_OK && S.other)
            st = basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, err,
                                "Multiple different STAR/COLUMNS in the same expression are not "
                                "supported");
    }
    return st;
}

struct items {
    struct basalt_sql_select_item *v;
    int n, cap;
};

static basalt_status push(struct binder *B, struct items *l, const struct basalt_sql_expr *e,
                          const char *alias, int32_t pos, struct basalt_error *err)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        struct basalt_sql_select_item *v = basalt_arena_alloc(&B->arena, sizeof *v * (size_t)cap, 8);
        if (v == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (l->n)
            memcpy(v, l->v, sizeof *v * (size_t)l->n);
        l->v = v;
        l->cap = cap;
    }
    struct basalt_sql_select_item *it = &l->v[l->n++];
    memset(it, 0, sizeof *it);
    it->expr = basalt_sql_ast_shared(e);
    it->alias.name = alias;
    it->alias.pos = pos;
    return BASALT_OK;
}

/* * REPLACE (...) and * RENAME (...): one item per covered column. */
static basalt_status expand_replace(struct binder *B, const struct bscope *scope,
                                    const struct basalt_sql_expr *star, struct items *l,
                                    struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    int before = l->n;
    for (int c = 0; c < scope->n && st == BASALT_OK; c++) {
        const struct bcol *bc = &scope->cols[c];
        if (!star_covers(star, bc) || excluded(star, bc))
            continue;
        const struct basalt_sql_expr *x = NULL;
        for (int32_t r = 0; r < star->u.star.n_replace && x == NULL; r++)
            if (strcasecmp(star->u.star.replace[r].alias.name, bc->name) == 0)
                x = star->u.star.replace[r].expr;
        if (x == NULL && (x = column_ref(B, bc, star->pos)) == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        const struct basalt_sql_ident *to = renamed(star, bc);
        st = push(B, l, x, to ? to->name : bc->name, to ? to->pos : star->pos, err);
    }
    if (st == BASALT_OK && l->n == before)
        st = basalt_sql_err(B, BASALT_INVALID_ARG, star->pos, err, "* matches no columns");
    return st;
}

/* *COLUMNS(...) as an argument of a call: the call takes one argument per
 * column in its place (`coalesce(*COLUMNS('^x'), 0)`). Anywhere else it is
 * an error, as is a plain COLUMNS beside it or a second *COLUMNS of another
 * text in the expression. */
struct unpacking {
    struct binder *B;
    const struct bscope *scope;
    const char *text; /* the *COLUMNS call's text, once one is seen */
    basalt_status st;
    struct basalt_error *err;
};

static enum basalt_sql_replace unpack_args(void *ctx, const struct basalt_sql_expr *e,
                                           struct basalt_sql_expr **out)
{
    struct unpacking *U = ctx;
    if (U->st != BASALT_OK)
        return BASALT_SQL_KEEP;
    if (is_unpack(e)) { /* reached as no call's argument */
        U->st = basalt_sql_err(U->B, BASALT_INVALID_ARG, e->pos, U->err,
                               "*COLUMNS(...) is allowed only as an argument of a function");
        return BASALT_SQL_KEEP;
    }
    if (e->kind != BASALT_SQL_EXPR_FUNCTION || is_columns_call(e))
        return BASALT_SQL_DESCEND;
    const struct basalt_sql_call *c = &e->u.call;
    bool any = false;
    for (int32_t i = 0; i < c->n_args && !any; i++)
        any = is_unpack(c->args[i]);
    if (!any)
        return BASALT_SQL_DESCEND;
    int32_t n = 0, cap = c->n_args + 8;
    struct basalt_sql_expr **args = basalt_arena_alloc(&U->B->arena, sizeof *args * (size_t)cap, 8);
    const char **names = basalt_arena_alloc(&U->B->arena, sizeof *names * (size_t)cap, 8);
    struct basalt_sql_expr *copy = basalt_arena_alloc(&U->B->arena, sizeof *copy, 8);
    if (args == NULL || names == NULL || copy == NULL) {
        U->st = basalt_error_set(U->err, BASALT_NOMEM, "out of memory");
        return BASALT_SQL_KEEP;
    }
    for (int32_t i = 0; i < c->n_args && U->st == BASALT_OK; i++) {
        const struct basalt_sql_expr *a = c->args[i];
        const struct bcol **cols = NULL;
        int k = 1;
        if (is_unpack(a)) {
            const char *text = basalt_sql_text(U->B, a);
            if (U->text != NULL && text != NULL && strcmp(U->text, text) != 0)
                U->st = basalt_sql_err(U->B, BASALT_UNSUPPORTED, a->pos, U->err,
                                       "Multiple different STAR/COLUMNS in the same expression "
                                       "are not supported");
            U->text = text;
            if (U->st == BASALT_OK)
                U->st = columns_of(U->B, U->scope, a, &cols, &k, U->err);
        } else if (U->st == BASALT_OK) {
            U->st = basalt_sql_ast_replace(U->B, a, unpack_args, U, &a, U->err);
        }
        if (U->st == BASALT_OK && n + k > cap) {
            int32_t grown = (n + k) * 2;
            struct basalt_sql_expr **a2 = basalt_arena_alloc(&U->B->arena, sizeof *a2 * (size_t)grown, 8);
            const char **n2 = basalt_arena_alloc(&U->B->arena, sizeof *n2 * (size_t)grown, 8);
            if (a2 == NULL || n2 == NULL) {
                U->st = basalt_error_set(U->err, BASALT_NOMEM, "out of memory");
                break;
            }
            memcpy(a2, args, sizeof *args * (size_t)n);
            memcpy(n2, names, sizeof *names * (size_t)n);
            args = a2;
            names = n2;
            cap = grown;
        }
        for (int j = 0; j < k && U->st == BASALT_OK; j++) {
            names[n] = cols == NULL && c->arg_names ? c->arg_names[i] : NULL;
            args[n] = cols == NULL ? basalt_sql_ast_shared(a) : column_ref(U->B, cols[j], a->pos);
            if (args[n++] == NULL)
                U->st = basalt_error_set(U->err, BASALT_NOMEM, "out of memory");
        }
    }
    if (U->st != BASALT_OK)
        return BASALT_SQL_KEEP;
    *copy = *e;
    copy->u.call.args = args;
    copy->u.call.n_args = n;
    copy->u.call.arg_names = c->arg_names ? names : NULL;
    *out = copy;
    return BASALT_SQL_REPLACE;
}

/* e with its *COLUMNS(...) unpacked; e itself when it holds none. */
static basalt_status unpack(struct binder *B, const struct bscope *scope,
                            const struct basalt_sql_expr *e, const struct basalt_sql_expr **out,
                            struct basalt_error *err)
{
    *out = e;
    if (e == NULL)
        return BASALT_OK;
    if (is_unpack(e))
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                              "*COLUMNS not allowed at the root level, use COLUMNS instead");
    struct unpacking U = {B, scope, NULL, BASALT_OK, err};
    basalt_status st = basalt_sql_ast_replace(B, e, unpack_args, &U, out, err);
    if (st == BASALT_OK)
        st = U.st;
    if (st == BASALT_OK && U.text != NULL && find_columns(*out) != NULL)
        st = basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err, "STAR expression is not supported here");
    return st;
}

/* WHERE with COLUMNS: each conjunct of its top AND expanded on its own
 * (so `COLUMNS('a') > 0 AND COLUMNS('b') > 0` holds two different calls,
 * as in DuckDB), its copies ANDed. */
static basalt_status expand_where(struct binder *B, const struct bscope *scope,
                                  const struct basalt_sql_expr *e, struct basalt_sql_expr **out,
                                  struct basalt_error *err)
{
    if (e->kind == BASALT_SQL_EXPR_BINARY && e->u.binary.op == BASALT_SQL_BINARY_AND) {
        struct basalt_sql_expr *l = NULL, *r = NULL;
        basalt_status st = expand_where(B, scope, e->u.binary.left, &l, err);
        if (st == BASALT_OK)
            st = expand_where(B, scope, e->u.binary.right, &r, err);
        if (st == BASALT_OK && (*out = basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, l, r)) == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        return st;
    }
    const struct basalt_sql_expr *call = find_columns(e);
    if (call == NULL) {
        *out = basalt_sql_ast_shared(e);
        return BASALT_OK;
    }
    const struct basalt_sql_expr **copies;
    const struct bcol **cols;
    int n = 0;
    basalt_status st = expand_expr(B, scope, e, call, &copies, &cols, &n, err);
    struct basalt_sql_expr *all = n > 0 && st == BASALT_OK ? basalt_sql_ast_shared(copies[0]) : NULL;
    for (int k = 1; k < n && st == BASALT_OK && all != NULL; k++)
        all = basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, all, basalt_sql_ast_shared(copies[k]));
    if (st == BASALT_OK && all == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *out = all;
    return st;
}

basalt_status basalt_sql_expand_order_columns(struct binder *B, const struct bscope *scope,
                                              const struct basalt_sql_query **q,
                                              struct basalt_error *err)
{
    const struct basalt_sql_query *in = *q;
    bool any = false;
    const struct basalt_sql_expr **unpacked =
        basalt_arena_alloc(&B->arena, sizeof *unpacked * ((size_t)in->n_order + 1), 8);
    if (unpacked == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    for (int32_t i = 0; i < in->n_order && st == BASALT_OK; i++) {
        st = unpack(B, scope, in->order[i].expr, &unpacked[i], err);
        any |= unpacked[i] != in->order[i].expr ||
               (unpacked[i] != NULL && find_columns(unpacked[i]) != NULL);
    }
    if (st != BASALT_OK || !any)
        return st;
    struct basalt_sql_order_item *order = NULL;
    int n = 0, cap = 0;
    for (int32_t i = 0; i < in->n_order && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *x = unpacked[i], *call;
        const struct basalt_sql_expr **copies = &x;
        const struct bcol **cols;
        int k = 1;
        if (x != NULL && (call = find_columns(x)) != NULL)
            st = expand_expr(B, scope, x, call, &copies, &cols, &k, err);
        if (st == BASALT_OK && n + k > cap) {
            int grown = (n + k) * 2;
            struct basalt_sql_order_item *o = basalt_arena_alloc(&B->arena, sizeof *o * (size_t)grown, 8);
            if (o == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            if (n > 0)
                memcpy(o, order, sizeof *o * (size_t)n);
            order = o;
            cap = grown;
        }
        for (int c = 0; c < k && st == BASALT_OK; c++) {
            order[n] = in->order[i];
            order[n++].expr = basalt_sql_ast_shared(copies[c]);
        }
    }
    if (st != BASALT_OK)
        return st;
    struct basalt_sql_query *out = basalt_arena_alloc(&B->arena, sizeof *out, 8);
    if (out == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *out = *in;
    out->order = order;
    out->n_order = n;
    *q = out;
    return BASALT_OK;
}

/* DISTINCT ON (COLUMNS(...)): the row_number that bind_distinct_on.c put
 * in QUALIFY has those items in its PARTITION BY, each expanded here into
 * one per column (in a window of the query's own, DuckDB refuses them). */
struct partitions {
    struct binder *B;
    const struct bscope *scope;
    basalt_status st;
    struct basalt_error *err;
    bool any;
};

static enum basalt_sql_replace expand_partition(void *ctx, const struct basalt_sql_expr *e,
                                                struct basalt_sql_expr **out)
{
    struct partitions *P = ctx;
    if (e->kind != BASALT_SQL_EXPR_FUNCTION || e->u.call.over == NULL || P->st != BASALT_OK)
        return BASALT_SQL_DESCEND;
    const struct basalt_sql_window *w = e->u.call.over;
    if (!w->expand_columns || first_of(w->partition, w->n_partition) == NULL)
        return BASALT_SQL_DESCEND;
    struct basalt_sql_expr **part = NULL;
    int n = 0, cap = 0;
    for (int32_t i = 0; i < w->n_partition && P->st == BASALT_OK; i++) {
        const struct basalt_sql_expr *x = w->partition[i], *call = find_columns(x);
        const struct basalt_sql_expr **copies = &x;
        const struct bcol **cols;
        int k = 1;
        if (call != NULL)
            P->st = expand_expr(P->B, P->scope, x, call, &copies, &cols, &k, P->err);
        if (P->st == BASALT_OK && n + k > cap) {
            cap = (n + k) * 2;
            struct basalt_sql_expr **grown = basalt_arena_alloc(&P->B->arena, sizeof *grown * (size_t)cap, 8);
            if (grown == NULL) {
                P->st = basalt_error_set(P->err, BASALT_NOMEM, "out of memory");
                break;
            }
            if (n > 0)
                memcpy(grown, part, sizeof *grown * (size_t)n);
            part = grown;
        }
        for (int c = 0; c < k && P->st == BASALT_OK; c++)
            part[n++] = basalt_sql_ast_shared(copies[c]);
    }
    struct basalt_sql_window *nw = basalt_arena_alloc(&P->B->arena, sizeof *nw, 8);
    struct basalt_sql_expr *copy = basalt_arena_alloc(&P->B->arena, sizeof *copy, 8);
    if (P->st == BASALT_OK && (nw == NULL || copy == NULL))
        P->st = basalt_error_set(P->err, BASALT_NOMEM, "out of memory");
    if (P->st != BASALT_OK)
        return BASALT_SQL_KEEP;
    *nw = *w;
    nw->partition = part;
    nw->n_partition = n;
    *copy = *e;
    copy->u.call.over = nw;
    *out = copy;
    P->any = true;
    return BASALT_SQL_REPLACE;
}

basalt_status basalt_sql_expand_stars(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select **s, struct basalt_error *err)
{
    const struct basalt_sql_select *in = *s;
    /* *COLUMNS first: the select list and WHERE with it unpacked */
    const struct basalt_sql_expr *where = NULL;
    struct basalt_sql_select_item *items =
        basalt_arena_alloc(&B->arena, sizeof *items * ((size_t)in->n_items + 1), 8);
    if (items == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = unpack(B, scope, in->where, &where, err);
    bool unpacked = where != in->where;
    for (int i = 0; i < in->n_items && st == BASALT_OK; i++) {
        items[i] = in->items[i];
        const struct basalt_sql_expr *x = in->items[i].expr;
        if (x->kind != BASALT_SQL_EXPR_STAR)
            st = unpack(B, scope, in->items[i].expr, &x, err);
        unpacked |= x != in->items[i].expr;
        items[i].expr = basalt_sql_ast_shared(x);
    }
    if (st != BASALT_OK)
        return st;
    if (unpacked) {
        struct basalt_sql_select *u = basalt_arena_alloc(&B->arena, sizeof *u, 8);
        if (u == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        *u = *in;
        u->items = items;
        u->where = basalt_sql_ast_shared(where);
        in = u;
        *s = u;
    }
    if (in->qualify != NULL) {
        struct partitions P = {B, scope, BASALT_OK, err, false};
        const struct basalt_sql_expr *q = NULL;
        st = basalt_sql_ast_replace(B, in->qualify, expand_partition, &P, &q, err);
        if (st == BASALT_OK)
            st = P.st;
        if (st != BASALT_OK)
            return st;
        if (P.any) {
            struct basalt_sql_select *u = basalt_arena_alloc(&B->arena, sizeof *u, 8);
            if (u == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            *u = *in;
            u->qualify = basalt_sql_ast_shared(q);
            in = u;
            *s = u;
        }
    }
    bool rewrite = in->where != NULL && find_columns(in->where) != NULL;
    for (int i = 0; i < in->n_items && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *x = in->items[i].expr;
        if (x->kind == BASALT_SQL_EXPR_STAR) {
            st = check_names(B, scope, x, err);
            rewrite |= x->u.star.n_replace > 0 || x->u.star.n_rename > 0;
        } else {
            rewrite |= find_columns(x) != NULL;
        }
    }
    if (st != BASALT_OK || !rewrite)
        return st;
    struct basalt_sql_select *out = basalt_arena_alloc(&B->arena, sizeof *out, 8);
    if (out == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *out = *in;
    struct items l = {0};
    for (int i = 0; i < in->n_items && st == BASALT_OK; i++) {
        const struct basalt_sql_select_item *it = &in->items[i];
        const struct basalt_sql_expr *x = it->expr, *call;
        if (x->kind == BASALT_SQL_EXPR_STAR && (x->u.star.n_replace > 0 || x->u.star.n_rename > 0)) {
            st = expand_replace(B, scope, x, &l, err);
        } else if (x->kind != BASALT_SQL_EXPR_STAR && (call = find_columns(x)) != NULL) {
            const struct basalt_sql_expr **copies;
            const struct bcol **cols;
            int n = 0;
            st = expand_expr(B, scope, x, call, &copies, &cols, &n, err);
            for (int k = 0; k < n && st == BASALT_OK; k++)
                st = push(B, &l, copies[k],
                          it->alias.name ? it->alias.name : columns_item_name(x, call, cols[k]),
                          it->alias.name ? it->alias.pos : x->pos, err);
        } else {
            st = push(B, &l, x, it->alias.name, it->alias.pos, err);
            if (st == BASALT_OK)
                l.v[l.n - 1].alias = it->alias;
        }
    }
    if (st == BASALT_OK && in->where != NULL && find_columns(in->where) != NULL) {
        struct basalt_sql_expr *all = NULL;
        st = expand_where(B, scope, in->where, &all, err);
        out->where = all;
    }
    if (st != BASALT_OK)
        return st;
    out->items = l.v;
    out->n_items = l.n;
    *s = out;
    return BASALT_OK;
}
