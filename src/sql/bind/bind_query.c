/* Queries: SELECT (FROM and WHERE planned by bind_join.c, then GROUP BY and
 * aggregates, HAVING, the select list, DISTINCT, ORDER BY, LIMIT), set
 * operations, VALUES and WITH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"

/* ------------------------------------------------------------------ aggregates */

struct aggs {
    const struct basalt_sql_expr **calls;
    const char **texts;
    int n, cap;
};

static basalt_status collect_aggs(struct binder *B, const struct basalt_sql_expr *e,
                                  struct aggs *A, struct basalt_error *err);

static basalt_status collect_list(struct binder *B, struct basalt_sql_expr *const *es, int n,
                                  struct aggs *A, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = collect_aggs(B, es[i], A, err);
    return st;
}

static basalt_status collect_aggs(struct binder *B, const struct basalt_sql_expr *e,
                                  struct aggs *A, struct basalt_error *err)
{
    if (e == NULL)
        return BASALT_OK;
    switch (e->kind) {
    case BASALT_SQL_EXPR_FUNCTION:
        if (e->u.call.over == NULL && basalt_sql_is_aggregate(e->u.call.name.name)) {
            const char *text = basalt_sql_text(B, e);
            if (text == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            for (int i = 0; i < A->n; i++)
                if (strcmp(A->texts[i], text) == 0)
                    return BASALT_OK;
            if (A->n == A->cap) {
                int cap = A->cap ? A->cap * 2 : 8;
                const struct basalt_sql_expr **c = basalt_realloc(A->calls, (size_t)cap * sizeof *c);
                if (c == NULL)
                    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
                A->calls = c;
                const char **t = basalt_realloc(A->texts, (size_t)cap * sizeof *t);
                if (t == NULL)
                    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
                A->texts = t;
                A->cap = cap;
            }
            A->calls[A->n] = e;
            A->texts[A->n++] = text;
            return BASALT_OK;
        }
        return collect_list(B, e->u.call.args, e->u.call.n_args, A, err);
    case BASALT_SQL_EXPR_UNARY: return collect_aggs(B, e->u.unary.arg, A, err);
    case BASALT_SQL_EXPR_BINARY: {
        basalt_status st = collect_aggs(B, e->u.binary.left, A, err);
        return st == BASALT_OK ? collect_aggs(B, e->u.binary.right, A, err) : st;
    }
    case BASALT_SQL_EXPR_IS: return collect_aggs(B, e->u.is.arg, A, err);
    case BASALT_SQL_EXPR_BETWEEN: {
        basalt_status st = collect_aggs(B, e->u.between.arg, A, err);
        if (st == BASALT_OK)
            st = collect_aggs(B, e->u.between.low, A, err);
        return st == BASALT_OK ? collect_aggs(B, e->u.between.high, A, err) : st;
    }
    case BASALT_SQL_EXPR_IN_LIST: {
        basalt_status st = collect_aggs(B, e->u.in_list.arg, A, err);
        return st == BASALT_OK ? collect_list(B, e->u.in_list.items, e->u.in_list.n_items, A, err) : st;
    }
    case BASALT_SQL_EXPR_LIKE: {
        basalt_status st = collect_aggs(B, e->u.like.arg, A, err);
        return st == BASALT_OK ? collect_aggs(B, e->u.like.pattern, A, err) : st;
    }
    case BASALT_SQL_EXPR_CASE: {
        basalt_status st = collect_aggs(B, e->u.case_.operand, A, err);
        if (st == BASALT_OK)
            st = collect_list(B, e->u.case_.when, e->u.case_.n_when, A, err);
        if (st == BASALT_OK)
            st = collect_list(B, e->u.case_.then, e->u.case_.n_when, A, err);
        return st == BASALT_OK ? collect_aggs(B, e->u.case_.otherwise, A, err) : st;
    }
    case BASALT_SQL_EXPR_CAST: return collect_aggs(B, e->u.cast.arg, A, err);
    case BASALT_SQL_EXPR_EXTRACT: return collect_aggs(B, e->u.extract.arg, A, err);
    default: return BASALT_OK;
    }
}

/* Whether call c (as agg_kind made it) reads its second SQL argument as a
 * value: the two-argument aggregates, and arg_min(x, y) and the rest of
 * its family when no ORDER BY stands in for y. */
static bool agg_second_value(const struct basalt_qplan_agg_call *c)
{
    bool arg = c->kind >= BASALT_QPLAN_ARG_MIN && c->kind <= BASALT_QPLAN_ARG_MAX_NULL;
    return (c->kind >= BASALT_QPLAN_CORR && c->kind <= BASALT_QPLAN_REGR_SXY) ||
           (arg && c->n_order == 0);
}

/* The ORDER BY keys of aggregate call e into c (c->n_order of them). */
static basalt_status lower_agg_order(struct blower *L, const struct basalt_sql_expr *e,
                                     struct basalt_qplan_agg_call *c, struct basalt_error *err)
{
    const struct basalt_sql_call *k = &e->u.call;
    struct basalt_qplan_agg_order *o =
        basalt_arena_alloc(&L->B->arena, sizeof *o * (size_t)c->n_order, 8);
    if (o == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    for (int i = 0; i < c->n_order && st == BASALT_OK; i++) {
        memset(&o[i], 0, sizeof o[i]);
        if (k->order[i].expr == NULL)
            return basalt_sql_err(L->B, BASALT_UNSUPPORTED, e->pos, err,
                                  "ORDER BY ALL inside an aggregate is not supported");
        st = basalt_sql_lower(L, k->order[i].expr, &o[i].expr, err);
        o[i].desc = k->order[i].dir == BASALT_SQL_ORDER_DESC;
        o[i].nulls_first = k->order[i].nulls == BASALT_SQL_NULLS_FIRST;
    }
    c->order = o;
    return st;
}

/* array_agg's order ends with its value (ascending, NULLs last): without
 * ORDER BY its elements come in the order of their values, and rows tied on
 * the ORDER BY keys in the order of theirs, whatever the number of workers
 * and the order the rows arrive in (DuckDB: arrival order). */
static basalt_status append_value_order(struct blower *L, struct basalt_qplan_agg_call *c,
                                        struct basalt_error *err)
{
    struct basalt_qplan_agg_order *o =
        basalt_arena_alloc(&L->B->arena, sizeof *o * (size_t)(c->n_order + 1), 8);
    if (o == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < c->n_order; i++)
        o[i] = c->order[i];
    memset(&o[c->n_order], 0, sizeof o[c->n_order]);
    o[c->n_order].expr = c->arg;
    c->order = o;
    c->n_order++;
    return BASALT_OK;
}

/* The kind of aggregate call e, its constant arguments (separator,
 * quantile) and how many ORDER BY keys it keeps (c->n_order; the caller
 * lowers them). */
static basalt_status agg_kind(struct binder *B, const struct basalt_sql_expr *e,
                              struct basalt_qplan_agg_call *c, struct basalt_error *err)
{
    const struct basalt_sql_call *k = &e->u.call;
    const char *n = k->name.name;
    memset(c, 0, sizeof *c);
    c->distinct = k->distinct;
    for (int32_t i = 0; i < k->n_order; i++)
        if (k->order[i].expr != NULL && basalt_sql_non_integer_literal(k->order[i].expr))
            return basalt_sql_err(B, BASALT_INVALID_ARG, k->order[i].expr->pos, err,
                                  "ORDER BY non-integer literal has no effect");
    int want = 1;
    /* first, last and any_value with ORDER BY: the first or last row in
     * that order (first and last take its x even when NULL, any_value the
     * first non-NULL x); without, basalt's order-free rules: the smallest
     * and the largest non-NULL value. */
    bool by_order = false;
    if ((strcmp(n, "count") == 0 && k->star) || strcmp(n, "count_star") == 0) {
        c->kind = BASALT_QPLAN_COUNT_STAR;
        want = 0;
    } else if (strcmp(n, "count") == 0) c->kind = BASALT_QPLAN_COUNT;
    else if (strcmp(n, "sum") == 0) c->kind = BASALT_QPLAN_SUM;
    else if (strcmp(n, "count_if") == 0 || strcmp(n, "countif") == 0)
        c->kind = BASALT_QPLAN_SUM; /* of a BOOLEAN (the caller checks): DuckDB's HUGEINT */
    else if (strcmp(n, "avg") == 0 || strcmp(n, "mean") == 0) c->kind = BASALT_QPLAN_AVG;
    else if (strcmp(n, "min") == 0) c->kind = BASALT_QPLAN_MIN;
    else if (strcmp(n, "max") == 0) c->kind = BASALT_QPLAN_MAX;
    else if (strcmp(n, "any_value") == 0) {
        c->kind = k->n_order > 0 ? BASALT_QPLAN_ARG_MIN : BASALT_QPLAN_ANY_VALUE;
        by_order = true;
    } else if (strcmp(n, "first") == 0) {
        c->kind = k->n_order > 0 ? BASALT_QPLAN_ARG_MIN_NULL : BASALT_QPLAN_ANY_VALUE;
        by_order = true;
    } else if (strcmp(n, "last") == 0) {
        c->kind = k->n_order > 0 ? BASALT_QPLAN_ARG_MAX_NULL : BASALT_QPLAN_MAX;
        by_order = true;
    }
    else if (strcmp(n, "stddev") == 0 || strcmp(n, "stddev_samp") == 0) c->kind = BASALT_QPLAN_STDDEV_SAMP;
    else if (strcmp(n, "stddev_pop") == 0) c->kind = BASALT_QPLAN_STDDEV_POP;
    else if (strcmp(n, "variance") == 0 || strcmp(n, "var_samp") == 0) c->kind = BASALT_QPLAN_VAR_SAMP;
    else if (strcmp(n, "var_pop") == 0) c->kind = BASALT_QPLAN_VAR_POP;
    else if (strcmp(n, "median") == 0) c->kind = BASALT_QPLAN_MEDIAN;
    else if (strcmp(n, "quantile") == 0 || strcmp(n, "quantile_cont") == 0) {
        c->kind = BASALT_QPLAN_QUANTILE_CONT;
        want = 2;
    } else if (strcmp(n, "quantile_disc") == 0) {
        c->kind = BASALT_QPLAN_QUANTILE_DISC;
        want = 2;
    } else if (strcmp(n, "string_agg") == 0 || strcmp(n, "group_concat") == 0 ||
               strcmp(n, "listagg") == 0) {
        c->kind = BASALT_QPLAN_STRING_AGG;
        want = k->n_args >= 2 ? 2 : 1;
    } else if (strcmp(n, "bool_and") == 0 || strcmp(n, "every") == 0) c->kind = BASALT_QPLAN_BOOL_AND;
    else if (strcmp(n, "bool_or") == 0) c->kind = BASALT_QPLAN_BOOL_OR;
    else if (strcmp(n, "product") == 0) c->kind = BASALT_QPLAN_PRODUCT;
    else if (strcmp(n, "bit_and") == 0) c->kind = BASALT_QPLAN_BIT_AND;
    else if (strcmp(n, "bit_or") == 0) c->kind = BASALT_QPLAN_BIT_OR;
    else if (strcmp(n, "bit_xor") == 0) c->kind = BASALT_QPLAN_BIT_XOR;
    else if (strcmp(n, "mode") == 0) c->kind = BASALT_QPLAN_MODE;
    else if (strcmp(n, "array_agg") == 0 || strcmp(n, "list") == 0)
        c->kind = BASALT_QPLAN_ARRAY_AGG;
    else {
        /* The two-argument aggregates, f(y, x) and arg_min(x, y) */
        static const struct {
            const char *name;
            enum basalt_qplan_agg kind;
        } two[] = {
            {"corr", BASALT_QPLAN_CORR}, {"covar_pop", BASALT_QPLAN_COVAR_POP},
            {"covar_samp", BASALT_QPLAN_COVAR_SAMP}, {"regr_slope", BASALT_QPLAN_REGR_SLOPE},
            {"regr_intercept", BASALT_QPLAN_REGR_INTERCEPT}, {"regr_r2", BASALT_QPLAN_REGR_R2},
            {"regr_count", BASALT_QPLAN_REGR_COUNT}, {"regr_avgx", BASALT_QPLAN_REGR_AVGX},
            {"regr_avgy", BASALT_QPLAN_REGR_AVGY}, {"regr_sxx", BASALT_QPLAN_REGR_SXX},
            {"regr_syy", BASALT_QPLAN_REGR_SYY}, {"regr_sxy", BASALT_QPLAN_REGR_SXY},
            {"arg_min", BASALT_QPLAN_ARG_MIN}, {"argmin", BASALT_QPLAN_ARG_MIN},
            {"min_by", BASALT_QPLAN_ARG_MIN}, {"arg_max", BASALT_QPLAN_ARG_MAX},
            {"argmax", BASALT_QPLAN_ARG_MAX}, {"max_by", BASALT_QPLAN_ARG_MAX},
            {"arg_min_null", BASALT_QPLAN_ARG_MIN_NULL},
            {"arg_max_null", BASALT_QPLAN_ARG_MAX_NULL},
        };
        size_t i = 0;
        while (i < sizeof two / sizeof two[0] && strcmp(n, two[i].name) != 0)
            i++;
        if (i == sizeof two / sizeof two[0])
            return basalt_sql_err(B, BASALT_INTERNAL, e->pos, err, "%s is not an aggregate", n);
        c->kind = two[i].kind;
        want = 2; /* both are values, lowered by the caller */
        if (k->distinct && c->kind < BASALT_QPLAN_ARG_MIN)
            return basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, err,
                                  "%s(DISTINCT ...) is not supported", n);
    }
    if (k->n_args != want)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                              "%s takes %d argument%s", n, want, want == 1 ? "" : "s");
    if (want == 2 && (c->kind == BASALT_QPLAN_STRING_AGG || c->kind == BASALT_QPLAN_QUANTILE_CONT ||
                      c->kind == BASALT_QPLAN_QUANTILE_DISC)) {
        const struct basalt_sql_expr *p = k->args[1];
        if (c->kind == BASALT_QPLAN_STRING_AGG) {
            if (p->kind != BASALT_SQL_EXPR_STRING)
                return basalt_sql_err(B, BASALT_INVALID_ARG, p->pos, err,
                                      "the separator of %s must be a constant string", n);
            c->separator = p->u.lit.text;
        } else {
            if (p->kind != BASALT_SQL_EXPR_NUMBER && p->kind != BASALT_SQL_EXPR_INTEGER)
                return basalt_sql_err(B, BASALT_INVALID_ARG, p->pos, err,
                                      "the quantile of %s must be a constant", n);
            c->quantile = strtod(p->u.lit.text, NULL);
            if (c->quantile < 0 || c->quantile > 1)
                return basalt_sql_err(B, BASALT_INVALID_ARG, p->pos, err,
                                      "the quantile must be between 0 and 1");
        }
    }
    /* DuckDB: with DISTINCT, the ORDER BY may only name the arguments. */
    for (int i = 0; k->distinct && i < k->n_order; i++) {
        const char *o = basalt_sql_text(B, k->order[i].expr);
        bool named = false;
        for (int a = 0; a < k->n_args && !named; a++)
            named = o != NULL && strcmp(o, basalt_sql_text(B, k->args[a])) == 0;
        if (!named)
            return basalt_sql_err(B, BASALT_INVALID_ARG, k->order[i].expr->pos, err,
                                  "In a DISTINCT aggregate, ORDER BY expressions must appear in "
                                  "the argument list");
    }
    /* ORDER BY decides first/last/any_value and STRING_AGG (the order of
     * its pieces); the others' results do not depend on the order of their
     * input (a DOUBLE sum is added in double-double, agg/agg.h). */
    if (by_order || c->kind == BASALT_QPLAN_STRING_AGG || c->kind == BASALT_QPLAN_ARRAY_AGG)
        c->n_order = k->n_order;
    /* string_agg(x ORDER BY x) is its order already (byte order; a NULL
     * piece is skipped) */
    if (c->kind == BASALT_QPLAN_STRING_AGG && k->n_order == 1 &&
        k->order[0].dir != BASALT_SQL_ORDER_DESC &&
        strcmp(basalt_sql_text(B, k->order[0].expr), basalt_sql_text(B, k->args[0])) == 0)
        c->n_order = 0;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ helpers */

static basalt_status project(struct binder *B, struct brel *rel, struct basalt_qexpr **exprs,
                             const char **names, int n, struct brel *out, int32_t *gids,
                             struct basalt_error *err)
{
    struct basalt_qplan *p;
    basalt_status st = basalt_qplan_project(B->ctx, rel->node, exprs, names, n, &p, err);
    if (st != BASALT_OK)
        return st;
    double rows = rel->rows;
    bool table_rows = rel->table_rows;
    memset(out, 0, sizeof *out);
    out->node = p;
    out->n = n;
    out->gids = gids;
    out->rows = rows;
    out->table_rows = table_rows;
    return BASALT_OK;
}

const char *basalt_sql_item_name(struct binder *B, const struct basalt_sql_select_item *it)
{
    if (it->alias.name != NULL)
        return it->alias.name;
    if (it->expr->kind == BASALT_SQL_EXPR_COLUMN)
        return it->expr->u.column.parts[it->expr->u.column.n_parts - 1].name;
    const char *text = basalt_sql_text(B, it->expr);
    /* DuckDB names count(*) count_star(), FILTER and OVER included */
    if (it->expr->kind == BASALT_SQL_EXPR_FUNCTION && it->expr->u.call.star && text != NULL &&
        strncmp(text, "count(*)", 8) == 0) {
        size_t n = strlen(text + 8);
        char *named = basalt_arena_alloc(&B->arena, n + 13, 1);
        if (named != NULL) {
            memcpy(named, "count_star()", 12);
            memcpy(named + 12, text + 8, n + 1);
            return named;
        }
    }
    return text;
}

/* LIMIT and OFFSET: a constant BIGINT (`10`, `2 * 5`, `'3'`, a scalar
 * subquery; 2.5 rounds), not negative; NULL leaves *out as it was (no
 * limit, no offset), as DuckDB. */
static basalt_status const_int(struct binder *B, const struct basalt_sql_expr *e, const char *what,
                               int64_t *out, struct basalt_error *err)
{
    if (e->kind == BASALT_SQL_EXPR_INTEGER && e->u.lit.fits && e->u.lit.i64 >= 0) {
        *out = e->u.lit.i64;
        return BASALT_OK;
    }
    struct basalt_query_type bigint = basalt_query_type_make(BASALT_QUERY_TYPE_INT64);
    struct basalt_query_value v;
    basalt_status st = basalt_sql_constant(B, e, &bigint, what, &v, err);
    if (st != BASALT_OK || v.is_null || v.type.id == BASALT_QUERY_TYPE_NULL)
        return st;
    if (v.v.i < 0)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err, "%s cannot be negative", what);
    *out = v.v.i;
    return BASALT_OK;
}

/* ORDER BY and LIMIT over a relation whose output columns have names (set
 * operations, VALUES): items are ordinals or output names. */
static basalt_status order_limit(struct binder *B, const struct basalt_sql_query *q,
                                 struct brel *rel, const char *const *names, int n_visible,
                                 const int *order_cols, struct basalt_error *err)
{
    int64_t limit = -1, offset = 0;
    basalt_status st = BASALT_OK;
    if (q->limit != NULL)
        st = const_int(B, q->limit, "LIMIT", &limit, err);
    if (st == BASALT_OK && q->offset != NULL)
        st = const_int(B, q->offset, "OFFSET", &offset, err);
    if (st != BASALT_OK)
        return st;
    int n_keys = q->order_all ? n_visible : q->n_order;
    struct basalt_qplan *node = rel->node;
    if (n_keys > 0) {
        struct basalt_qplan_sort_key *keys = basalt_calloc((size_t)n_keys, sizeof *keys);
        if (keys == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < n_keys && st == BASALT_OK; i++) {
            const struct basalt_sql_order_item *it = &q->order[q->order_all ? 0 : i];
            keys[i].column = q->order_all ? i : order_cols[i];
            keys[i].descending = it->dir == BASALT_SQL_ORDER_DESC;
            keys[i].nulls_first = it->nulls == BASALT_SQL_NULLS_FIRST;
        }
        (void)names;
        if (st == BASALT_OK)
            st = basalt_qplan_sort(B->ctx, node, keys, n_keys, limit, offset, &node, err);
        basalt_free(keys);
    } else if (limit >= 0 || offset > 0) {
        st = basalt_qplan_limit(B->ctx, node, limit, offset, &node, err);
    }
    rel->node = node;
    return st;
}

/* An ORDER BY item of a set operation or VALUES: ordinal or output name. */
static basalt_status order_by_name(struct binder *B, const struct basalt_sql_order_item *it,
                                   const char *const *names, int n, int *out,
                                   struct basalt_error *err)
{
    const struct basalt_sql_expr *e = it->expr;
    if (e->kind == BASALT_SQL_EXPR_INTEGER && e->u.lit.fits) {
        if (e->u.lit.i64 < 1 || e->u.lit.i64 > n)
            return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                                  "ORDER term out of range - should be between 1 and %d", n);
        *out = (int)e->u.lit.i64 - 1;
        return BASALT_OK;
    }
    if (e->kind == BASALT_SQL_EXPR_COLUMN && e->u.column.n_parts == 1)
        for (int i = 0; i < n; i++)
            if (names[i] && strcasecmp(names[i], e->u.column.parts[0].name) == 0) {
                *out = i;
                return BASALT_OK;
            }
    return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                          "ORDER BY of a set operation must name an output column");
}

static basalt_status distinct(struct binder *B, struct brel *rel, const char **names, int n,
                              struct basalt_error *err)
{
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, rel->node, &b, err);
    struct basalt_qexpr **keys = basalt_calloc((size_t)n + 1, sizeof *keys);
    if (keys == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_qexpr_column(b, i, &keys[i], err);
    struct basalt_qplan *agg;
    if (st == BASALT_OK)
        st = basalt_qplan_aggregate(B->ctx, rel->node, keys, names, n, NULL, 0, &agg, err);
    basalt_free(keys);
    if (st == BASALT_OK) {
        rel->node = agg;
        rel->table_rows = false; /* DISTINCT: a guess */
    }
    return st;
}

/* ------------------------------------------------------------------ SELECT */

bool basalt_sql_has_aggregate(struct binder *B, const struct basalt_sql_expr *e)
{
    struct aggs A;
    memset(&A, 0, sizeof A);
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    collect_aggs(B, e, &A, &ignore);
    bool any = A.n > 0;
    basalt_free(A.calls);
    basalt_free(A.texts);
    return any;
}

/* GROUP BY 2, GROUP BY alias: the select item they name. */
static const struct basalt_sql_expr *group_expr(struct binder *B, const struct basalt_sql_select *s,
                                                const struct bscope *scope,
                                                const struct basalt_sql_expr *g)
{
    if (g->kind == BASALT_SQL_EXPR_INTEGER && g->u.lit.fits && g->u.lit.i64 >= 1 &&
        g->u.lit.i64 <= s->n_items)
        return s->items[g->u.lit.i64 - 1].expr;
    if (g->kind == BASALT_SQL_EXPR_COLUMN && g->u.column.n_parts == 1) {
        const struct bcol *c;
        struct basalt_error ignore;
        basalt_error_init(&ignore);
        if (basalt_sql_resolve(B, scope, &g->u.column, g->pos, &c, &ignore) == BASALT_OK)
            return g;
        for (int i = 0; i < s->n_items; i++)
            if (s->items[i].alias.name && strcmp(s->items[i].alias.name, g->u.column.parts[0].name) == 0)
                return s->items[i].expr;
    }
    return g;
}

/* The scope column e (a column reference) names, or NULL. */
static const struct bcol *resolved(struct binder *B, const struct bscope *scope,
                                   const struct basalt_sql_expr *e)
{
    const struct bcol *c = NULL;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (e->kind != BASALT_SQL_EXPR_COLUMN ||
        basalt_sql_resolve(B, scope, &e->u.column, e->pos, &c, &ignore) != BASALT_OK)
        return NULL;
    return c;
}

struct outcol {
    const struct basalt_sql_expr *expr; /* NULL: a scope column (star) */
    const struct bcol *col;
    const char *name;
};

/* Binds `rewritten` (NULL: none) for the query it stands for; false, and
 * nothing recorded, when it does not bind: the query is then bound as
 * written, with its own errors. */
static bool bound_instead(struct binder *B, const struct basalt_sql_query *rewritten,
                          struct brel *out, const char ***names)
{
    if (rewritten == NULL)
        return false;
    int n_repl = B->n_repl;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_bind_query(B, rewritten, out, names, &ignore) == BASALT_OK)
        return true;
    B->n_repl = n_repl;
    return false;
}

static basalt_status bind_select(struct binder *B, const struct basalt_sql_query *q,
                                 struct brel *out, const char ***out_names,
                                 struct basalt_error *err)
{
    /* Rewritten forms bound in q's place when they bind: DISTINCT
     * aggregates without GROUP BY in two grouped steps (bind_distinct.c), a
     * FROM and WHERE that a scalar subquery repeats computed once
     * (bind_share.c). */
    if (q->u.select.n_distinct_on > 0) {
        const struct basalt_sql_query *r;
        basalt_status st = basalt_sql_distinct_on(B, q, &r, err);
        return st == BASALT_OK ? bind_select(B, r, out, out_names, err) : st;
    }
    if (bound_instead(B, basalt_sql_split_distinct(B, q), out, out_names) ||
        bound_instead(B, basalt_sql_share_from(B, q), out, out_names))
        return BASALT_OK;
    const struct basalt_sql_select *s = &q->u.select;
    struct bscope scope;
    memset(&scope, 0, sizeof scope);
    struct bfrom F;
    memset(&F, 0, sizeof F);
    struct aggs A;
    memset(&A, 0, sizeof A);
    struct outcol *cols = NULL;
    struct basalt_qexpr **exprs = NULL;
    const char **names = NULL;
    int32_t *gids = NULL;
    struct brepl *repl = NULL;
    int n_repl = 0;
    basalt_status st = BASALT_OK;
    struct brel rel;
    memset(&rel, 0, sizeof rel);

    /* FROM and WHERE */
    if (s->from != NULL) {
        st = basalt_sql_bind_from(B, s->from, &scope, &F, err);
    } else {
        struct basalt_qplan *one;
        st = basalt_sql_one_row(B, &one, err);
        struct brel r1;
        if (st == BASALT_OK)
            st = basalt_sql_rel_new(B, one, &r1, err);
        r1.rows = 1;
        if (st == BASALT_OK)
            st = basalt_sql_from_add(&F, &r1, err);
    }
    /* * REPLACE and COLUMNS(...) over the FROM's columns (bind_star.c) */
    if (st == BASALT_OK)
        st = basalt_sql_expand_stars(B, &scope, &s, err);
    /* x IN (a subquery reading this query) as a correlated scalar
     * subquery (bind_in_correlated.c) */
    if (st == BASALT_OK)
        st = basalt_sql_correlated_in(B, &scope, &s, err);
    if (st == BASALT_OK)
        st = basalt_sql_expand_order_columns(B, &scope, &q, err);
    /* Aliases of the select list that name no column (bind_alias.c). */
    const struct basalt_sql_expr *where = NULL, *having = NULL, *qualify = NULL;
    if (st == BASALT_OK && s->where != NULL)
        st = basalt_sql_with_aliases(B, &scope, s, false, s->where, &where, err);
    if (st == BASALT_OK && s->having != NULL)
        st = basalt_sql_with_aliases(B, &scope, s, true, s->having, &having, err);
    if (st == BASALT_OK && s->qualify != NULL)
        st = basalt_sql_with_aliases(B, &scope, s, false, s->qualify, &qualify, err);
    /* ... and inside the window calls of ORDER BY */
    struct basalt_sql_order_item *order = NULL;
    for (int i = 0; i < q->n_order && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *o = q->order[i].expr;
        if (o != NULL)
            st = basalt_sql_with_window_aliases(B, &scope, s, q->order[i].expr, &o, err);
        if (st != BASALT_OK || o == q->order[i].expr)
            continue;
        if (order == NULL) {
            struct basalt_sql_query *copy = basalt_arena_alloc(&B->arena, sizeof *copy, 8);
            order = basalt_arena_alloc(&B->arena, sizeof *order * (size_t)q->n_order, 8);
            if (copy == NULL || order == NULL) {
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                break;
            }
            memcpy(order, q->order, sizeof *order * (size_t)q->n_order);
            *copy = *q;
            copy->order = order;
            q = copy;
        }
        order[i].expr = basalt_sql_ast_shared(o);
    }
    if (st == BASALT_OK && where != NULL) {
        if (basalt_sql_has_aggregate(B, where))
            st = basalt_sql_err(B, BASALT_INVALID_ARG, where->pos, err,
                                "aggregate functions are not allowed in WHERE");
        if (st == BASALT_OK)
            st = basalt_sql_conjuncts(&F, where, err);
    }
    if (st == BASALT_OK)
        st = basalt_sql_factor_ors(B, &scope, &F, err);
    /* Conditions holding subqueries wait for the joins: correlated ones
     * become joins themselves (bind_subquery.c). */
    const struct basalt_sql_expr **deferred = basalt_calloc((size_t)F.nc + 1, sizeof *deferred);
    const struct basalt_sql_expr **written = basalt_calloc((size_t)F.nc + 1, sizeof *written);
    const struct basalt_sql_from **leaves = basalt_calloc((size_t)F.n + 1, sizeof *leaves);
    int n_deferred = 0;
    if (st == BASALT_OK && (deferred == NULL || written == NULL || leaves == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct bouter from = {leaves, st == BASALT_OK ? F.n : 0, written, st == BASALT_OK ? F.nc : 0,
                          s->from};
    for (int i = 0; i < from.nc; i++)
        written[i] = F.conj[i];
    for (int i = 0; i < from.n; i++)
        leaves[i] = F.rels[i].leaf;
    if (st == BASALT_OK) {
        int k = 0;
        for (int i = 0; i < F.nc && st == BASALT_OK; i++) {
            const struct basalt_sql_expr *c = F.conj[i];
            /* x IN (subquery) with x over one relation: semi-joined onto it
             * before the joins, so it cuts their input as a filter would */
            uint64_t m = c->kind == BASALT_SQL_EXPR_IN_QUERY && !c->u.in_query.negated
                             ? basalt_sql_refs(B, &scope, c->u.in_query.arg)
                             : 0;
            int r = m != 0 && (m & (m - 1)) == 0 ? __builtin_ctzll(m) : -1;
            /* (not onto a LATERAL LEFT joined later: after that join) */
            if (r >= 0 && r < F.n && F.rels[r].left_on == NULL)
                st = basalt_sql_in_join(B, &scope, &F.rels[r], m, c, err);
            else if (basalt_sql_has_subquery(c))
                deferred[n_deferred++] = c;
            else
                F.conj[k++] = c;
        }
        F.nc = k;
    }
    if (st == BASALT_OK)
        st = basalt_sql_plan_joins(B, &scope, F.rels, F.n, F.conj, F.nc, &rel, err);
    for (int i = 0; i < n_deferred && st == BASALT_OK; i++) {
        bool done = false;
        st = basalt_sql_decorrelate(B, &scope, &from, &rel, deferred[i], NULL, 0, &done, err);
        if (st == BASALT_OK && !done)
            st = basalt_sql_filter(B, &scope, &rel, &deferred[i], 1, "WHERE", err);
    }
    basalt_free(deferred);
    /* Correlated scalar subqueries of the SELECT list are joined in as
     * columns, as in WHERE (bind_subquery.c); uncorrelated ones run once.
     * In a grouped query those inside aggregate calls are joined in here,
     * for every row; the others after grouping, where the columns they read
     * are the group keys. */
    bool grouping = s->n_group > 0 || s->n_grouping > 0 || s->group_all || having != NULL;
    for (int i = 0; i < s->n_items && !grouping; i++)
        grouping = s->items[i].expr->kind != BASALT_SQL_EXPR_STAR &&
                   basalt_sql_has_aggregate(B, s->items[i].expr);
    for (int i = 0; i < s->n_items && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *x = s->items[i].expr;
        if (x->kind == BASALT_SQL_EXPR_STAR || x->kind == BASALT_SQL_EXPR_IN_QUERY ||
            !basalt_sql_has_subquery(x))
            continue;
        if (!grouping) {
            st = basalt_sql_decorrelate(B, &scope, &from, &rel, x, NULL, 0, NULL, err);
            continue;
        }
        /* GROUP BY ALL groups by the items without aggregates: a subquery
         * there is a key, a column before grouping */
        if (s->group_all && !basalt_sql_has_aggregate(B, x)) {
            st = basalt_sql_decorrelate(B, &scope, &from, &rel, x, NULL, 0, NULL, err);
            continue;
        }
        struct aggs in_item;
        memset(&in_item, 0, sizeof in_item);
        st = collect_aggs(B, x, &in_item, err);
        for (int k = 0; k < in_item.n && st == BASALT_OK; k++)
            st = basalt_sql_decorrelate(B, &scope, &from, &rel, in_item.calls[k], NULL, 0, NULL,
                                        err);
        basalt_free(in_item.calls);
        basalt_free(in_item.texts);
    }
    /* So are those of ORDER BY, read as hidden columns of the select list
     * (after grouping: below). */
    for (int i = 0; i < q->n_order && st == BASALT_OK && !grouping; i++) {
        const struct basalt_sql_expr *x = q->order[i].expr;
        if (x != NULL && x->kind != BASALT_SQL_EXPR_IN_QUERY && basalt_sql_has_subquery(x))
            st = basalt_sql_decorrelate(B, &scope, &from, &rel, x, NULL, 0, NULL, err);
    }
    /* GROUP BY n names the n-th select item: another number is an error,
     * as DuckDB's (not a constant key). */
    for (int i = 0; i < s->n_group && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *g = s->group[i];
        if (g->kind == BASALT_SQL_EXPR_INTEGER && (!g->u.lit.fits || g->u.lit.i64 < 1 ||
                                                   g->u.lit.i64 > s->n_items))
            st = basalt_sql_err(B, BASALT_INVALID_ARG, g->pos, err,
                                "GROUP BY term out of range - should be between 1 and %d",
                                (int)s->n_items);
    }
    /* A group key that is a correlated subquery is a column before grouping. */
    for (int i = 0; i < s->n_group && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *g = group_expr(B, s, &scope, s->group[i]);
        if (g->kind != BASALT_SQL_EXPR_IN_QUERY && basalt_sql_has_subquery(g))
            st = basalt_sql_decorrelate(B, &scope, &from, &rel, g, NULL, 0, NULL, err);
    }

    /* The output columns, stars expanded. */
    int n_out = 0, cap_out = 0;
    for (int i = 0; i < s->n_items && st == BASALT_OK; i++) {
        const struct basalt_sql_select_item *it = &s->items[i];
        if (it->expr->kind != BASALT_SQL_EXPR_STAR) {
            if (n_out == cap_out) {
                cap_out = cap_out ? cap_out * 2 : 16;
                cols = basalt_realloc(cols, (size_t)cap_out * sizeof *cols);
                if (cols == NULL) {
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    break;
                }
            }
            /* Named as written; bound with the aliases before it. */
            const struct basalt_sql_expr *x = it->expr;
            if (i > 0)
                st = basalt_sql_with_lateral_aliases(B, &scope, s, i, &x, err);
            cols[n_out++] = (struct outcol){x, NULL, basalt_sql_item_name(B, it)};
            continue;
        }
        const struct basalt_sql_name *qual = &it->expr->u.star.qualifier;
        int before = n_out;
        for (int c = 0; c < scope.n && st == BASALT_OK; c++) {
            const struct bcol *bc = &scope.cols[c];
            if (bc->name == NULL || bc->name[0] == '\0' || bc->internal ||
                (bc->hidden && qual->n_parts == 0))
                continue;
            if (qual->n_parts > 0 &&
                (bc->table == NULL || strcasecmp(bc->table, qual->parts[qual->n_parts - 1].name) != 0))
                continue;
            if (basalt_sql_star_excludes(it->expr, bc))
                continue;
            if (n_out == cap_out) {
                cap_out = cap_out ? cap_out * 2 : 16;
                cols = basalt_realloc(cols, (size_t)cap_out * sizeof *cols);
                if (cols == NULL) {
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    break;
                }
            }
            cols[n_out++] = (struct outcol){NULL, bc, bc->name};
        }
        if (st == BASALT_OK && n_out == before)
            st = basalt_sql_err(B, BASALT_INVALID_ARG, it->expr->pos, err,
                                "* matches no columns");
    }

    /* GROUP BY and aggregates */
    for (int i = 0; i < n_out && st == BASALT_OK; i++)
        if (cols[i].expr)
            st = collect_aggs(B, cols[i].expr, &A, err);
    if (st == BASALT_OK)
        st = collect_aggs(B, having, &A, err);
    for (int i = 0; i < q->n_order && st == BASALT_OK; i++)
        if (q->order[i].expr)
            st = collect_aggs(B, q->order[i].expr, &A, err);
    bool grouped = s->n_group > 0 || s->group_all || s->n_grouping > 0 || A.n > 0;
    struct bgrouping G;
    memset(&G, 0, sizeof G);
    if (st == BASALT_OK && grouped) {
        int nk = 0;
        const struct basalt_sql_expr **gk = basalt_calloc((size_t)(s->n_group + n_out) + 1, sizeof *gk);
        if (gk == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; st == BASALT_OK && i < s->n_group; i++)
            gk[nk++] = group_expr(B, s, &scope, s->group[i]);
        for (int i = 0; st == BASALT_OK && s->group_all && i < n_out; i++)
            if (cols[i].expr && !basalt_sql_has_aggregate(B, cols[i].expr))
                gk[nk++] = cols[i].expr;
        /* Grouping sets and GROUPING() calls (bind_grouping.c) */
        const struct basalt_sql_expr **uses =
            basalt_calloc((size_t)(n_out + 2 + q->n_order) + 1, sizeof *uses);
        int n_uses = 0;
        if (st == BASALT_OK && uses == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; st == BASALT_OK && i < n_out; i++)
            uses[n_uses++] = cols[i].expr;
        for (int i = 0; st == BASALT_OK && i < q->n_order; i++)
            uses[n_uses++] = q->order[i].expr;
        if (st == BASALT_OK) {
            uses[n_uses++] = having;
            uses[n_uses++] = qualify;
            st = basalt_sql_grouping_prepare(B, s, &scope, gk, &nk, uses, n_uses, &G, err);
        }
        basalt_free(uses);
        struct basalt_qexpr_builder *b = NULL;
        if (st == BASALT_OK)
            st = basalt_qplan_builder(B->ctx, rel.node, &b, err);
        struct blower L = {B, &scope, &rel, b, NULL, 0, "GROUP BY"};
        struct basalt_qexpr **keys = basalt_calloc((size_t)nk + 1, sizeof *keys);
        const char **knames = basalt_calloc((size_t)nk + 1, sizeof *knames);
        struct basalt_qplan_agg_call *calls = basalt_calloc((size_t)A.n + 1, sizeof *calls);
        repl = basalt_calloc((size_t)(nk + A.n + G.n_calls) + 1, sizeof *repl);
        int32_t *agids = basalt_arena_alloc(&B->arena, sizeof(int32_t) * (size_t)(nk + A.n + G.n_calls + 1), 8);
        if (st == BASALT_OK && (!keys || !knames || !calls || !repl || !agids))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < nk && st == BASALT_OK; i++) {
            if (basalt_sql_has_aggregate(B, gk[i]))
                st = basalt_sql_err(B, BASALT_INVALID_ARG, gk[i]->pos, err,
                                    "aggregate functions are not allowed in GROUP BY");
            if (st == BASALT_OK)
                st = basalt_sql_lower(&L, gk[i], &keys[i], err);
            knames[i] = basalt_sql_text(B, gk[i]);
            agids[i] = basalt_sql_gid(B);
            repl[n_repl++] = (struct brepl){knames[i], agids[i], false, NULL, 0, NULL};
        }
        L.clause = "an aggregate";
        for (int i = 0; i < A.n && st == BASALT_OK; i++) {
            st = agg_kind(B, A.calls[i], &calls[i], err);
            bool two = agg_second_value(&calls[i]);
            const struct basalt_sql_call *ac = &A.calls[i]->u.call;
            if (st == BASALT_OK && calls[i].kind != BASALT_QPLAN_COUNT_STAR) {
                bool nested = basalt_sql_has_aggregate(B, ac->args[0]) ||
                              (two && basalt_sql_has_aggregate(B, ac->args[1]));
                for (int k = 0; k < calls[i].n_order; k++)
                    nested |= basalt_sql_has_aggregate(B, ac->order[k].expr);
                if (nested)
                    st = basalt_sql_err(B, BASALT_INVALID_ARG, A.calls[i]->pos, err,
                                        "aggregate function calls cannot be nested");
                if (st == BASALT_OK)
                    st = basalt_sql_lower(&L, ac->args[0], &calls[i].arg, err);
                if (st == BASALT_OK && two)
                    st = basalt_sql_lower(&L, ac->args[1], &calls[i].arg2, err);
            }
            if (st == BASALT_OK && calls[i].n_order > 0)
                st = lower_agg_order(&L, A.calls[i], &calls[i], err);
            if (st == BASALT_OK && calls[i].kind == BASALT_QPLAN_ARRAY_AGG)
                st = append_value_order(&L, &calls[i], err);
            /* count_if(b) is the sum of the BOOLEAN b, as DuckDB's (HUGEINT,
             * NULL over no value) */
            if (st == BASALT_OK && calls[i].kind == BASALT_QPLAN_SUM &&
                strcmp(ac->name.name, "sum") != 0 &&
                basalt_qexpr_type(calls[i].arg).id != BASALT_QUERY_TYPE_BOOL) {
                char tn[64];
                basalt_query_type_name(basalt_qexpr_type(calls[i].arg), tn, sizeof tn);
                st = basalt_sql_err(B, BASALT_INVALID_ARG, A.calls[i]->pos, err,
                                    "%s takes a BOOLEAN, not %s", ac->name.name, tn);
            }
            /* agg(x) FILTER (WHERE p) is agg(CASE WHEN p THEN x END); with two
             * arguments the first alone is enough, a pair with a NULL being
             * skipped. */
            if (st == BASALT_OK && A.calls[i]->u.call.filter != NULL) {
                struct basalt_qexpr *p = NULL, *x = calls[i].arg;
                L.clause = "FILTER";
                st = basalt_sql_lower(&L, A.calls[i]->u.call.filter, &p, err);
                if (st == BASALT_OK && x == NULL) {
                    calls[i].kind = BASALT_QPLAN_COUNT;
                    st = basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT32, 1, &x, err);
                }
                if (st == BASALT_OK)
                    st = basalt_qexpr_case(b, &p, &x, 1, NULL, &calls[i].arg, err);
                /* an ordered call takes rows by its order key: the FILTER
                 * leaves rows out there (a NULL x is a value to first) */
                if (st == BASALT_OK && calls[i].n_order > 0)
                    calls[i].filter = p;
                L.clause = "an aggregate";
            }
            calls[i].name = A.texts[i];
            agids[nk + i] = basalt_sql_gid(B);
            repl[n_repl++] = (struct brepl){A.texts[i], agids[nk + i], false, NULL, 0, NULL};
        }
        /* A group key that is a column is that column afterwards too (after
         * the aggregates' arguments, which read the column before grouping). */
        for (int i = 0; i < nk && st == BASALT_OK; i++) {
            if (gk[i]->kind != BASALT_SQL_EXPR_COLUMN)
                continue;
            const struct bcol *c;
            if (basalt_sql_resolve(B, &scope, &gk[i]->u.column, gk[i]->pos, &c, err) != BASALT_OK)
                continue;
            int32_t old_gid = c->gid;
            for (int k = 0; k < scope.n; k++)
                if (scope.cols[k].gid == old_gid)
                    scope.cols[k].gid = agids[i];
        }
        struct basalt_qplan *agg = NULL;
        if (st == BASALT_OK && G.active)
            st = basalt_sql_grouping_aggregate(B, &G, rel.node, keys, knames, nk, calls, A.n, &agg,
                                               err);
        else if (st == BASALT_OK)
            st = basalt_qplan_aggregate(B->ctx, rel.node, keys, knames, nk, calls, A.n, &agg, err);
        for (int c = 0; c < G.n_calls && st == BASALT_OK; c++) {
            agids[nk + A.n + c] = basalt_sql_gid(B);
            repl[n_repl++] = (struct brepl){G.texts[c], agids[nk + A.n + c], false, NULL, 0, NULL};
        }
        if (st == BASALT_OK) {
            rel.node = agg;
            rel.gids = agids;
            rel.n = nk + A.n + G.n_calls;
            rel.table_rows = false; /* its groups are a guess */
        }
        basalt_free(gk);
        basalt_free(keys);
        basalt_free(knames);
        basalt_free(calls);
        /* Correlated subqueries outside the aggregates, over the groups
         * (repl's first nk entries are the group keys). */
        for (int i = 0; i <= s->n_items + q->n_order && st == BASALT_OK; i++) {
            const struct basalt_sql_expr *x = i < s->n_items    ? s->items[i].expr
                                              : i == s->n_items ? having
                                                                : q->order[i - s->n_items - 1].expr;
            if (x != NULL && x->kind != BASALT_SQL_EXPR_STAR && x->kind != BASALT_SQL_EXPR_IN_QUERY)
                st = basalt_sql_decorrelate(B, &scope, &from, &rel, x, repl, nk, NULL, err);
        }
        if (st == BASALT_OK && having != NULL) {
            struct basalt_qexpr_builder *hb;
            st = basalt_qplan_builder(B->ctx, rel.node, &hb, err);
            struct blower H = {B, &scope, &rel, hb, repl, n_repl, "HAVING"};
            struct basalt_qexpr *pred = NULL;
            if (st == BASALT_OK)
                st = basalt_sql_lower(&H, having, &pred, err);
            if (st == BASALT_OK)
                st = basalt_qplan_filter(B->ctx, rel.node, pred, &rel.node, err);
        }
    } else if (st == BASALT_OK && having != NULL) {
        st = basalt_sql_err(B, BASALT_INVALID_ARG, having->pos, err,
                            "HAVING needs GROUP BY or an aggregate");
    }

    /* Window functions, after grouping; then QUALIFY filters on them. */
    if (st == BASALT_OK) {
        int nw = 0;
        const struct basalt_sql_expr **wexprs =
            basalt_calloc((size_t)(n_out + q->n_order) + 2, sizeof *wexprs);
        if (wexprs == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; st == BASALT_OK && i < n_out; i++)
            if (cols[i].expr != NULL)
                wexprs[nw++] = cols[i].expr;
        for (int i = 0; st == BASALT_OK && i < q->n_order; i++)
            if (q->order[i].expr != NULL)
                wexprs[nw++] = q->order[i].expr;
        if (st == BASALT_OK && qualify != NULL)
            wexprs[nw++] = qualify;
        if (st == BASALT_OK)
            st = basalt_sql_bind_windows(B, &scope, s, wexprs, nw, &rel, &repl, &n_repl, err);
        basalt_free(wexprs);
    }
    if (st == BASALT_OK && qualify != NULL) {
        struct basalt_qexpr_builder *qb;
        st = basalt_qplan_builder(B->ctx, rel.node, &qb, err);
        struct blower Q = {B, &scope, &rel, qb, repl, n_repl, "QUALIFY"};
        struct basalt_qexpr *pred = NULL;
        if (st == BASALT_OK)
            st = basalt_sql_lower(&Q, qualify, &pred, err);
        if (st == BASALT_OK)
            st = basalt_qplan_filter(B->ctx, rel.node, pred, &rel.node, err);
    }

    /* unnest(l) in the select list: a row per element, after all of the
     * above */
    if (st == BASALT_OK) {
        int nu = 0;
        const struct basalt_sql_expr **uexprs = basalt_calloc((size_t)n_out + 1, sizeof *uexprs);
        if (uexprs == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; st == BASALT_OK && i < n_out; i++)
            if (cols[i].expr != NULL)
                uexprs[nu++] = cols[i].expr;
        if (st == BASALT_OK)
            st = basalt_sql_bind_unnests(B, &scope, uexprs, nu, &rel, &repl, &n_repl, err);
        basalt_free(uexprs);
    }

    /* ORDER BY items that are not output columns become hidden columns. */
    int n_keys = q->order_all ? n_out : q->n_order;
    int *order_cols = basalt_calloc((size_t)n_keys + 1, sizeof *order_cols);
    const struct basalt_sql_expr **hidden = basalt_calloc((size_t)n_keys + 1, sizeof *hidden);
    int n_hidden = 0;
    if (st == BASALT_OK && (order_cols == NULL || hidden == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n_keys && st == BASALT_OK && !q->order_all; i++) {
        const struct basalt_sql_expr *e = q->order[i].expr;
        order_cols[i] = -1;
        if (e->kind == BASALT_SQL_EXPR_INTEGER && e->u.lit.fits) {
            if (e->u.lit.i64 < 1 || e->u.lit.i64 > n_out)
                st = basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                                    "ORDER term out of range - should be between 1 and %d", n_out);
            else
                order_cols[i] = (int)e->u.lit.i64 - 1;
            continue;
        }
        if (e->kind == BASALT_SQL_EXPR_COLUMN && e->u.column.n_parts == 1)
            for (int k = 0; k < n_out && order_cols[i] < 0; k++)
                if (cols[k].expr != NULL && s->items != NULL && cols[k].name &&
                    strcasecmp(cols[k].name, e->u.column.parts[0].name) == 0)
                    order_cols[i] = k;
        const char *text = basalt_sql_text(B, e);
        for (int k = 0; k < n_out && order_cols[i] < 0; k++)
            if (cols[k].expr != NULL && strcmp(basalt_sql_text(B, cols[k].expr), text) == 0)
                order_cols[i] = k;
        /* a column written otherwise (`t.n` for the item `n`, as COLUMNS
         * writes its copies) is the output column it resolves to */
        const struct bcol *oc = NULL;
        if (order_cols[i] < 0 && e->kind == BASALT_SQL_EXPR_COLUMN)
            oc = resolved(B, &scope, e);
        for (int k = 0; k < n_out && oc != NULL && order_cols[i] < 0; k++)
            if (cols[k].expr != NULL ? resolved(B, &scope, cols[k].expr) == oc : cols[k].col == oc)
                order_cols[i] = k;
        if (order_cols[i] < 0) {
            if (s->distinct)
                st = basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                                    "for SELECT DISTINCT, ORDER BY expressions must appear in the "
                                    "select list");
            order_cols[i] = n_out + n_hidden;
            hidden[n_hidden++] = e;
        }
    }
    for (int i = 0; q->order_all && i < n_keys; i++)
        order_cols[i] = i;

    /* The select list (and hidden ORDER BY columns) */
    int n_all = n_out + n_hidden;
    exprs = basalt_calloc((size_t)n_all + 1, sizeof *exprs);
    names = basalt_arena_alloc(&B->arena, sizeof *names * (size_t)(n_all + 1), 8);
    gids = basalt_arena_alloc(&B->arena, sizeof *gids * (size_t)(n_all + 1), 8);
    if (st == BASALT_OK && (exprs == NULL || names == NULL || gids == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_qexpr_builder *pb = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, rel.node, &pb, err);
    struct blower P = {B, &scope, &rel, pb, repl, n_repl, "SELECT"};
    for (int i = 0; i < n_all && st == BASALT_OK; i++) {
        gids[i] = basalt_sql_gid(B);
        if (i < n_out && cols[i].expr == NULL) {
            names[i] = cols[i].name;
            int idx = -1;
            for (int k = 0; k < rel.n; k++)
                if (rel.gids[k] == cols[i].col->gid)
                    idx = k;
            if (idx < 0)
                st = basalt_sql_err(B, BASALT_INVALID_ARG, q->pos, err,
                                    "column \"%s\" must appear in the GROUP BY clause or be used "
                                    "in an aggregate function",
                                    cols[i].name);
            else
                st = basalt_qexpr_column(pb, idx, &exprs[i], err);
            continue;
        }
        const struct basalt_sql_expr *e = i < n_out ? cols[i].expr : hidden[i - n_out];
        names[i] = i < n_out ? cols[i].name : "";
        st = basalt_sql_lower(&P, e, &exprs[i], err);
    }
    struct brel projected;
    if (st == BASALT_OK)
        st = project(B, &rel, exprs, names, n_all, &projected, gids, err);
    if (st == BASALT_OK && s->distinct)
        st = distinct(B, &projected, names, n_all, err);
    if (st == BASALT_OK)
        st = order_limit(B, q, &projected, names, n_out, order_cols, err);
    /* drop the hidden columns */
    if (st == BASALT_OK && n_hidden > 0) {
        struct basalt_qexpr_builder *db;
        st = basalt_qplan_builder(B->ctx, projected.node, &db, err);
        for (int i = 0; i < n_out && st == BASALT_OK; i++)
            st = basalt_qexpr_column(db, i, &exprs[i], err);
        struct brel trimmed;
        if (st == BASALT_OK)
            st = project(B, &projected, exprs, names, n_out, &trimmed, gids, err);
        if (st == BASALT_OK)
            projected = trimmed;
    }
    if (st == BASALT_OK) {
        *out = projected;
        *out_names = names;
    }
    basalt_free(order_cols);
    basalt_free(hidden);
    basalt_free(exprs);
    basalt_free(cols);
    basalt_free(repl);
    basalt_sql_grouping_reset(&G);
    basalt_free(A.calls);
    basalt_free(A.texts);
    basalt_free(written);
    basalt_free(leaves);
    basalt_sql_from_reset(&F);
    basalt_sql_scope_reset(&scope);
    return st;
}

/* ------------------------------------------------------------------ VALUES, set operations */

static basalt_status bind_values(struct binder *B, const struct basalt_sql_query *q,
                                 struct brel *out, const char ***out_names,
                                 struct basalt_error *err)
{
    int nr = q->u.values.n_rows, nc = q->u.values.n_columns;
    struct basalt_qplan **rows = basalt_calloc((size_t)nr + 1, sizeof *rows);
    struct basalt_qplan **ones = basalt_calloc((size_t)nr + 1, sizeof *ones);
    struct basalt_qexpr_builder **builders = basalt_calloc((size_t)nr + 1, sizeof *builders);
    struct basalt_qexpr **exprs = basalt_calloc((size_t)nr * (size_t)nc + 1, sizeof *exprs);
    struct basalt_query_type *types = basalt_calloc((size_t)nc + 1, sizeof *types);
    const char **names = basalt_arena_alloc(&B->arena, sizeof *names * (size_t)(nc + 1), 8);
    basalt_status st = rows && ones && builders && exprs && types && names
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int c = 0; c < nc && names; c++) {
        char buf[32];
        snprintf(buf, sizeof buf, "col%d", c);
        names[c] = basalt_arena_strndup(&B->arena, buf, strlen(buf));
    }
    struct bscope empty;
    memset(&empty, 0, sizeof empty);
    /* Each row over a one-row relation; the columns take the widest type
     * of their rows (a NULL takes any), as DuckDB's VALUES does. */
    for (int r = 0; r < nr && st == BASALT_OK; r++) {
        st = basalt_sql_one_row(B, &ones[r], err);
        struct brel r1;
        if (st == BASALT_OK)
            st = basalt_sql_rel_new(B, ones[r], &r1, err);
        if (st == BASALT_OK)
            st = basalt_qplan_builder(B->ctx, ones[r], &builders[r], err);
        struct blower L = {B, &empty, &r1, builders[r], NULL, 0, "VALUES"};
        for (int c = 0; c < nc && st == BASALT_OK; c++) {
            struct basalt_qexpr **e = &exprs[(size_t)r * (size_t)nc + (size_t)c];
            st = basalt_sql_lower(&L, q->u.values.rows[r][c], e, err);
            if (st != BASALT_OK)
                break;
            struct basalt_query_type t = basalt_qexpr_type(*e);
            if (r == 0 || types[c].id == BASALT_QUERY_TYPE_NULL ||
                (t.id != BASALT_QUERY_TYPE_NULL && basalt_sql_wider(t, types[c])))
                types[c] = t;
        }
    }
    for (int r = 0; r < nr && st == BASALT_OK; r++) {
        struct basalt_qexpr **row = &exprs[(size_t)r * (size_t)nc];
        for (int c = 0; c < nc && st == BASALT_OK; c++)
            if (!basalt_query_type_equal(basalt_qexpr_type(row[c]), types[c]) &&
                types[c].id != BASALT_QUERY_TYPE_NULL)
                st = basalt_qexpr_cast(builders[r], row[c], types[c], false, &row[c], err);
        if (st == BASALT_OK)
            st = basalt_qplan_project(B->ctx, ones[r], row, names, nc, &rows[r], err);
    }
    struct basalt_qplan *u = NULL;
    if (st == BASALT_OK)
        st = nr == 1 ? (u = rows[0], BASALT_OK) : basalt_qplan_union_all(B->ctx, rows, nr, &u, err);
    if (st == BASALT_OK)
        st = basalt_sql_rel_new(B, u, out, err);
    int *order_cols = basalt_calloc((size_t)q->n_order + 1, sizeof *order_cols);
    for (int i = 0; st == BASALT_OK && i < q->n_order && !q->order_all; i++)
        st = order_by_name(B, &q->order[i], names, nc, &order_cols[i], err);
    if (st == BASALT_OK)
        st = order_limit(B, q, out, names, nc, order_cols, err);
    basalt_free(order_cols);
    basalt_free(rows);
    basalt_free(ones);
    basalt_free(builders);
    basalt_free(exprs);
    basalt_free(types);
    if (st == BASALT_OK)
        *out_names = names;
    return st;
}

/* Casts one side of a set operation to `t` where its column differs. */
static basalt_status cast_side(struct binder *B, struct brel *side, const char **names,
                               const struct basalt_query_type *t, const bool *cast,
                               struct basalt_error *err)
{
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, side->node, &b, err);
    struct basalt_qexpr **exprs = basalt_calloc((size_t)side->n + 1, sizeof *exprs);
    if (st == BASALT_OK && exprs == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < side->n && st == BASALT_OK; i++) {
        st = basalt_qexpr_column(b, i, &exprs[i], err);
        if (st == BASALT_OK && cast[i])
            st = basalt_qexpr_cast(b, exprs[i], t[i], false, &exprs[i], err);
    }
    struct brel out;
    if (st == BASALT_OK)
        st = project(B, side, exprs, names, side->n, &out, side->gids, err);
    if (st == BASALT_OK)
        *side = out;
    basalt_free(exprs);
    return st;
}

/* The DECIMAL holding every value of both: the larger integer digits and
 * the larger scale. False past 38 digits. */
static bool decimal_holding_both(struct basalt_query_type a, struct basalt_query_type b,
                                 struct basalt_query_type *out)
{
    int scale = a.scale > b.scale ? a.scale : b.scale;
    int ia = a.precision - a.scale, ib = b.precision - b.scale;
    int digits = (ia > ib ? ia : ib) + scale;
    if (digits > 38)
        return false;
    *out = basalt_query_type_decimal(digits, scale);
    return true;
}

/* Both sides of a set operation in the same column types: the wider of
 * each pair, as DuckDB's implicit casts pick. */
static basalt_status common_types(struct binder *B, const struct basalt_sql_query *q,
                                  struct brel *l, struct brel *r, const char **names,
                                  struct basalt_error *err)
{
    int n = l->n;
    struct basalt_query_type *t = basalt_calloc((size_t)n + 1, sizeof *t);
    bool *cl = basalt_calloc((size_t)n + 1, sizeof *cl), *cr = basalt_calloc((size_t)n + 1, sizeof *cr);
    basalt_status st = t && cl && cr ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    bool any_l = false, any_r = false;
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        const char *fl = basalt_qplan_schema(l->node)->children[i]->format;
        const char *fr = basalt_qplan_schema(r->node)->children[i]->format;
        if (strcmp(fl, fr) == 0)
            continue;
        struct basalt_query_type tl, tr;
        st = basalt_query_type_from_format(fl, &tl, err);
        if (st == BASALT_OK)
            st = basalt_query_type_from_format(fr, &tr, err);
        if (st != BASALT_OK)
            break;
        if (tl.id == BASALT_QUERY_TYPE_NULL || basalt_sql_wider(tr, tl)) {
            t[i] = tr;
            cl[i] = any_l = true;
        } else if (tr.id == BASALT_QUERY_TYPE_NULL || basalt_sql_wider(tl, tr)) {
            t[i] = tl;
            cr[i] = any_r = true;
        } else if (tl.id == BASALT_QUERY_TYPE_DECIMAL && tr.id == BASALT_QUERY_TYPE_DECIMAL &&
                   decimal_holding_both(tl, tr, &t[i])) {
            /* DECIMAL(13,0) beside DECIMAL(13,4): DECIMAL(17,4), as DuckDB */
            cl[i] = cr[i] = any_l = any_r = true;
        } else {
            char a[64], b[64];
            st = basalt_sql_err(B, BASALT_INVALID_ARG, q->pos, err,
                                "set operation column %d: types %s and %s do not mix", i + 1,
                                basalt_query_type_name(tl, a, sizeof a),
                                basalt_query_type_name(tr, b, sizeof b));
        }
    }
    if (st == BASALT_OK && any_l)
        st = cast_side(B, l, names, t, cl, err);
    if (st == BASALT_OK && any_r)
        st = cast_side(B, r, names, t, cr, err);
    basalt_free(t);
    basalt_free(cl);
    basalt_free(cr);
    return st;
}

/* INTERSECT and EXCEPT compare rows as IS NOT DISTINCT FROM: NULL meets
 * NULL, where a join key never does. Each side gets, after its n columns,
 * two keys per column that are never NULL: `c IS NULL` and `c` with NULL
 * replaced by the type's zero (the flag tells the two apart). */
static basalt_status with_null_safe_keys(struct binder *B, struct basalt_qplan *in, int n,
                                         struct basalt_qplan **out, struct basalt_error *err)
{
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, in, &b, err);
    struct basalt_qexpr **exprs = basalt_calloc((size_t)(3 * n) + 1, sizeof *exprs);
    const char **names = basalt_calloc((size_t)(3 * n) + 1, sizeof *names);
    if (st == BASALT_OK && (exprs == NULL || names == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        struct basalt_qexpr *c;
        st = basalt_qexpr_column(b, i, &c, err);
        exprs[i] = c;
        names[i] = basalt_qplan_schema(in)->children[i]->name;
        if (st == BASALT_OK)
            st = basalt_qexpr_is_null(b, c, false, &exprs[n + 2 * i], err);
        if (st == BASALT_OK)
            st = basalt_sql_zero_if_null(b, c, &exprs[n + 2 * i + 1], err);
        names[n + 2 * i] = "__null";
        names[n + 2 * i + 1] = "__key";
    }
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, in, exprs, names, 3 * n, out, err);
    basalt_free(exprs);
    basalt_free(names);
    return st;
}

/* INTERSECT ALL and EXCEPT ALL count duplicates: a row that the left has
 * cl times and the right cr times comes out min(cl, cr) times under
 * INTERSECT ALL and max(cl - cr, 0) times under EXCEPT ALL. Each side's rows
 * are numbered within their group of equal rows (ROW_NUMBER over the
 * partition of the null-safe keys, a column after them); the semi or anti
 * join on the keys and that number then keeps the left's first cr
 * occurrences of a row, or those past them. */
static basalt_status with_occurrence(struct binder *B, struct basalt_qplan *in, int n,
                                     struct basalt_qplan **out, struct basalt_error *err)
{
    int *part = basalt_calloc((size_t)(2 * n) + 1, sizeof *part);
    if (part == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < 2 * n; i++)
        part[i] = n + i;
    struct basalt_qplan_window_call rn;
    memset(&rn, 0, sizeof rn);
    rn.fn = BASALT_QPLAN_WIN_ROW_NUMBER;
    rn.arg = -1;
    rn.default_arg = -1;
    rn.name = "__occurrence";
    basalt_status st = basalt_qplan_window(B->ctx, in, part, 2 * n, NULL, 0, &rn, 1, out, err);
    basalt_free(part);
    return st;
}

static basalt_status bind_set_op(struct binder *B, const struct basalt_sql_query *q,
                                 struct brel *out, const char ***out_names,
                                 struct basalt_error *err)
{
    struct brel l, r;
    const char **ln, **rn;
    basalt_status st = basalt_sql_bind_query(B, q->u.set_op.left, &l, &ln, err);
    if (st == BASALT_OK)
        st = basalt_sql_bind_query(B, q->u.set_op.right, &r, &rn, err);
    if (st != BASALT_OK)
        return st;
    if (l.n != r.n)
        return basalt_sql_err(B, BASALT_INVALID_ARG, q->pos, err,
                              "set operation inputs have %d and %d columns", l.n, r.n);
    st = common_types(B, q, &l, &r, ln, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qplan *node = NULL;
    if (q->u.set_op.op == BASALT_SQL_SET_UNION) {
        struct basalt_qplan *kids[2] = {l.node, r.node};
        st = basalt_qplan_union_all(B->ctx, kids, 2, &node, err);
    } else {
        int n = l.n;
        bool all = q->u.set_op.all;
        /* the null-safe keys, and under ALL the occurrence number after them */
        int n_keys = 2 * n + all;
        if (n_keys > 64)
            return basalt_sql_err(B, BASALT_LIMIT, q->pos, err,
                                  "set operation over %d columns: at most %d", n,
                                  all ? 31 : 32);
        int *keys = basalt_calloc((size_t)n_keys + 1, sizeof *keys);
        if (keys == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < n_keys; i++)
            keys[i] = n + i;
        enum basalt_qplan_join_type t = q->u.set_op.op == BASALT_SQL_SET_INTERSECT
                                            ? BASALT_QPLAN_JOIN_SEMI
                                            : BASALT_QPLAN_JOIN_ANTI;
        struct basalt_qplan *ls = NULL, *rs = NULL, *joined = NULL;
        if (st == BASALT_OK)
            st = with_null_safe_keys(B, l.node, n, &ls, err);
        if (st == BASALT_OK)
            st = with_null_safe_keys(B, r.node, n, &rs, err);
        if (st == BASALT_OK && all)
            st = with_occurrence(B, ls, n, &ls, err);
        if (st == BASALT_OK && all)
            st = with_occurrence(B, rs, n, &rs, err);
        if (st == BASALT_OK)
            st = basalt_qplan_join(B->ctx, t, ls, rs, keys, keys, n_keys, NULL, &joined, err);
        /* back to the n columns (a semi or anti join keeps the left's) */
        struct basalt_qexpr_builder *b = NULL;
        struct basalt_qexpr **cols = basalt_calloc((size_t)n + 1, sizeof *cols);
        const char **names = basalt_calloc((size_t)n + 1, sizeof *names);
        if (st == BASALT_OK && (cols == NULL || names == NULL))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (st == BASALT_OK)
            st = basalt_qplan_builder(B->ctx, joined, &b, err);
        for (int i = 0; i < n && st == BASALT_OK; i++) {
            names[i] = basalt_qplan_schema(joined)->children[i]->name;
            st = basalt_qexpr_column(b, i, &cols[i], err);
        }
        if (st == BASALT_OK)
            st = basalt_qplan_project(B->ctx, joined, cols, names, n, &node, err);
        basalt_free(cols);
        basalt_free(names);
        basalt_free(keys);
    }
    if (st == BASALT_OK)
        st = basalt_sql_rel_new(B, node, out, err);
    if (st == BASALT_OK && !q->u.set_op.all)
        st = distinct(B, out, ln, out->n, err);
    int *order_cols = basalt_calloc((size_t)q->n_order + 1, sizeof *order_cols);
    for (int i = 0; st == BASALT_OK && i < q->n_order && !q->order_all; i++)
        st = order_by_name(B, &q->order[i], ln, out->n, &order_cols[i], err);
    if (st == BASALT_OK)
        st = order_limit(B, q, out, ln, out->n, order_cols, err);
    basalt_free(order_cols);
    if (st == BASALT_OK)
        *out_names = ln;
    return st;
}

basalt_status basalt_sql_bind_query(struct binder *B, const struct basalt_sql_query *q,
                                    struct brel *out, const char ***names,
                                    struct basalt_error *err)
{
    int ctes_before = B->n_ctes;
    basalt_status st = basalt_sql_fold_ordinals(B, q, &q, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_sql_ctes_push(B, q, err);
    if (st != BASALT_OK) {
        B->n_ctes = ctes_before;
        return st;
    }
    switch (q->kind) {
    case BASALT_SQL_QUERY_SELECT: st = bind_select(B, q, out, names, err); break;
    case BASALT_SQL_QUERY_VALUES: st = bind_values(B, q, out, names, err); break;
    default: st = bind_set_op(B, q, out, names, err); break;
    }
    B->n_ctes = ctes_before;
    return st;
}
