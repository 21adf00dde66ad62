/* x [NOT] IN (SELECT c FROM f WHERE w) whose subquery reads the query
 * around it. Uncorrelated, such a subquery runs once into a list or
 * becomes a SEMI join (bind_subquery.c), neither of which can see an
 * outer row. Correlated, it is bound in the form of a correlated scalar
 * subquery, which is decorrelated into a grouped join as the others are:
 *
 *   (SELECT CASE WHEN count(*) = 0 THEN false
 *                WHEN bool_or(c = x) THEN true
 *                WHEN count(c = x) < count(*) THEN NULL
 *                ELSE false END
 *    FROM f WHERE w)
 *
 * which is IN's three-valued answer: false over no rows, true when a row
 * equals x, NULL when none does but a comparison was NULL (a NULL c, or a
 * NULL x over rows), false otherwise. NOT IN is NOT of it, as in DuckDB.
 * A whole WHERE conjunct `x IN` is EXISTS (... WHERE w AND c = x) instead:
 * a SEMI join with c = x among its keys.
 *
 * x moves inside the subquery, so its columns are written qualified by
 * their outer table; the rewrite is not made when a column of x has no
 * table name or one the subquery's FROM also has (it would read the
 * inner column), when x holds an aggregate, a window or a subquery, or
 * when the subquery is not a plain SELECT of one item without aggregates
 * or windows (GROUP BY, HAVING, QUALIFY, LIMIT, OFFSET, DISTINCT ON, set
 * operations, WITH): those are
 * refused with UNSUPPORTED. DISTINCT and ORDER BY change nothing for IN
 * and are dropped. */
#include <string.h>

#include "bind/bind_internal.h"

struct in_rewrite {
    struct binder *B;
    const struct bscope *outer;
    basalt_status st;
    struct basalt_error *err;
};

/* A plain SELECT of one item, nothing in it that IN would not see through. */
static bool plain_select(struct binder *B, const struct basalt_sql_query *q)
{
    if (q->kind != BASALT_SQL_QUERY_SELECT || q->n_ctes > 0 || q->limit != NULL ||
        q->offset != NULL)
        return false;
    const struct basalt_sql_select *s = &q->u.select;
    const struct basalt_sql_expr *item = s->n_items == 1 ? s->items[0].expr : NULL;
    return item != NULL && item->kind != BASALT_SQL_EXPR_STAR && s->from != NULL &&
           s->n_distinct_on == 0 && s->n_group == 0 && s->n_grouping == 0 && !s->group_all &&
           s->having == NULL && s->qualify == NULL && !basalt_sql_has_aggregate(B, item) &&
           !basalt_sql_has_window(B, item);
}

struct qualify {
    struct binder *B;
    const struct bscope *outer, *inner;
    bool failed;
};

/* A column of x as `table.name` of its outer relation. */
static enum basalt_sql_replace qualify_column(void *vctx, const struct basalt_sql_expr *e,
                                              struct basalt_sql_expr **with)
{
    struct qualify *Q = vctx;
    if (e->kind != BASALT_SQL_EXPR_COLUMN)
        return BASALT_SQL_DESCEND;
    const struct bcol *c = NULL;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_resolve(Q->B, Q->outer, &e->u.column, e->pos, &c, &ignore) != BASALT_OK ||
        c < Q->outer->cols || c >= Q->outer->cols + Q->outer->n || c->table == NULL) {
        Q->failed = true;
        return BASALT_SQL_KEEP;
    }
    struct basalt_sql_expr *q = basalt_sql_ast_column(Q->B, c->table, c->name, e->pos);
    const struct bcol *shadow = NULL;
    if (q == NULL ||
        basalt_sql_resolve(Q->B, Q->inner, &q->u.column, e->pos, &shadow, &ignore) == BASALT_OK) {
        Q->failed = true;
        return BASALT_SQL_KEEP;
    }
    *with = q;
    return BASALT_SQL_REPLACE;
}

static struct basalt_sql_expr *node(struct binder *B, enum basalt_sql_expr_kind kind, int32_t pos,
                                    int32_t height)
{
    struct basalt_sql_expr *e = basalt_arena_alloc(&B->arena, sizeof *e, 8);
    if (e != NULL) {
        memset(e, 0, sizeof *e);
        e->kind = kind;
        e->pos = pos;
        e->height = height;
    }
    return e;
}

/* The CASE over the subquery's rows that answers `x IN`, eq being c = x. */
static struct basalt_sql_expr *answer(struct binder *B, struct basalt_sql_expr *eq, int32_t pos)
{
    struct basalt_sql_expr **when = basalt_arena_alloc(&B->arena, 3 * sizeof *when, 8);
    struct basalt_sql_expr **then = basalt_arena_alloc(&B->arena, 3 * sizeof *then, 8);
    struct basalt_sql_expr *e = node(B, BASALT_SQL_EXPR_CASE, pos, 0);
    if (when == NULL || then == NULL || e == NULL)
        return NULL;
    when[0] = basalt_sql_ast_binary(B, BASALT_SQL_BINARY_EQ, basalt_sql_ast_call(B, "count", NULL),
                                    basalt_sql_ast_integer(B, 0, pos));
    when[1] = basalt_sql_ast_call(B, "bool_or", eq);
    when[2] = basalt_sql_ast_binary(B, BASALT_SQL_BINARY_LT, basalt_sql_ast_call(B, "count", eq),
                                    basalt_sql_ast_call(B, "count", NULL));
    then[0] = basalt_sql_ast_bool(B, false, pos);
    then[1] = basalt_sql_ast_bool(B, true, pos);
    then[2] = node(B, BASALT_SQL_EXPR_NULL, pos, 1);
    e->u.case_.n_when = 3;
    e->u.case_.when = when;
    e->u.case_.then = then;
    e->u.case_.otherwise = basalt_sql_ast_bool(B, false, pos);
    int32_t h = 0;
    for (int i = 0; i < 3; i++) {
        if (when[i] == NULL || then[i] == NULL)
            return NULL;
        if (when[i]->height > h)
            h = when[i]->height;
    }
    if (e->u.case_.otherwise == NULL)
        return NULL;
    e->height = h + 1;
    return e;
}

/* The rewritten form of IN node e, or NULL when its subquery does not
 * read the outer query (or R->st says why it cannot be rewritten). As a
 * whole WHERE conjunct (`as_condition`, not negated) it is
 * EXISTS (SELECT ... FROM f WHERE w AND c = x): the rows it keeps are the
 * same (a NULL and a false IN both drop the row), and c = x is one more
 * key of the SEMI join that EXISTS becomes. */
static struct basalt_sql_expr *rewritten(struct in_rewrite *R, const struct basalt_sql_expr *e,
                                         bool as_condition)
{
    struct binder *B = R->B;
    const struct basalt_sql_query *q = e->u.in_query.query;
    struct bsplit s;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_split_subquery(B, R->outer, q, &s, &ignore) != BASALT_OK) {
        basalt_sql_split_reset(&s);
        return NULL; /* it fails, with its own message, where it is bound */
    }
    bool correlated = s.n_corr > 0 || (s.in.n > 0 && basalt_sql_reads_outer_beyond_where(
                                                         B, &s.in, R->outer, q));
    struct basalt_sql_expr *out = NULL;
    const struct basalt_sql_expr *x = e->u.in_query.arg;
    if (correlated) {
        struct qualify Q = {B, R->outer, &s.in, false};
        const struct basalt_sql_expr *qx = NULL;
        bool simple_x = !basalt_sql_has_aggregate(B, x) && !basalt_sql_has_window(B, x) &&
                        !basalt_sql_has_subquery(x);
        if (simple_x)
            R->st = basalt_sql_ast_replace(B, x, qualify_column, &Q, &qx, R->err);
        if (R->st == BASALT_OK && (!simple_x || Q.failed || !plain_select(B, q)))
            R->st = basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, R->err,
                                   "a correlated IN subquery is supported as a plain SELECT of "
                                   "one item (no GROUP BY, HAVING, LIMIT or set operation) "
                                   "tested against an expression of the outer query's own "
                                   "named tables");
        bool exists = as_condition && !e->u.in_query.negated;
        struct basalt_sql_expr *c = q->u.select.items[0].expr;
        struct basalt_sql_expr *eq =
            R->st == BASALT_OK ? basalt_sql_ast_binary(B, BASALT_SQL_BINARY_EQ, c,
                                                       basalt_sql_ast_shared(qx))
                               : NULL;
        struct basalt_sql_expr *value = eq && !exists ? answer(B, eq, e->pos) : eq;
        struct basalt_sql_expr *where =
            value && exists && q->u.select.where
                ? basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, q->u.select.where, eq)
                : eq;
        struct basalt_sql_query *nq =
            value && where ? basalt_arena_alloc(&B->arena, sizeof *nq, 8) : NULL;
        struct basalt_sql_select_item *item =
            nq ? basalt_arena_alloc(&B->arena, sizeof *item, 8) : NULL;
        struct basalt_sql_expr *sub =
            item ? node(B, exists ? BASALT_SQL_EXPR_EXISTS : BASALT_SQL_EXPR_SUBQUERY, e->pos, 0)
                 : NULL;
        if (sub != NULL) {
            *nq = *q;
            nq->n_order = 0;
            nq->order = NULL;
            nq->order_all = false;
            nq->u.select.distinct = false;
            memset(item, 0, sizeof *item);
            item->expr = exists ? c : value;
            nq->u.select.items = item;
            if (exists)
                nq->u.select.where = where;
            int32_t h = (exists ? where : value)->height + 2;
            if (nq->height < h)
                nq->height = h;
            sub->u.subquery = nq;
            sub->height = nq->height + 1;
            out = sub;
            if (e->u.in_query.negated) {
                out = node(B, BASALT_SQL_EXPR_UNARY, e->pos, sub->height + 1);
                if (out != NULL) {
                    out->u.unary.op = BASALT_SQL_UNARY_NOT;
                    out->u.unary.arg = sub;
                }
            }
        }
        if (R->st == BASALT_OK && out == NULL)
            R->st = basalt_error_set(R->err, BASALT_NOMEM, "out of memory");
    }
    basalt_sql_split_reset(&s);
    return R->st == BASALT_OK ? out : NULL;
}

static enum basalt_sql_replace each_in(void *vctx, const struct basalt_sql_expr *e,
                                       struct basalt_sql_expr **with)
{
    struct in_rewrite *R = vctx;
    if (R->st != BASALT_OK)
        return BASALT_SQL_KEEP;
    if (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS)
        return BASALT_SQL_KEEP; /* its own query rewrites its own */
    if (e->kind != BASALT_SQL_EXPR_IN_QUERY)
        return BASALT_SQL_DESCEND;
    struct basalt_sql_expr *r = rewritten(R, e, false);
    if (r == NULL)
        return BASALT_SQL_DESCEND; /* x may hold one too */
    *with = r;
    return BASALT_SQL_REPLACE;
}

/* A WHERE: its top-level conjuncts that are IN as EXISTS, the rest as
 * values. */
static basalt_status rewrite_where(struct in_rewrite *R, struct basalt_sql_expr *e,
                                   struct basalt_sql_expr **out);

static basalt_status rewrite(struct in_rewrite *R, struct basalt_sql_expr *e,
                             struct basalt_sql_expr **out)
{
    const struct basalt_sql_expr *r = e;
    if (e != NULL && R->st == BASALT_OK) {
        basalt_status st = basalt_sql_ast_replace(R->B, e, each_in, R, &r, R->err);
        if (R->st == BASALT_OK)
            R->st = st;
    }
    *out = basalt_sql_ast_shared(r);
    return R->st;
}

static basalt_status rewrite_where(struct in_rewrite *R, struct basalt_sql_expr *e,
                                   struct basalt_sql_expr **out)
{
    *out = e;
    if (e == NULL || R->st != BASALT_OK)
        return R->st;
    if (e->kind == BASALT_SQL_EXPR_BINARY && e->u.binary.op == BASALT_SQL_BINARY_AND) {
        struct basalt_sql_expr *l, *r;
        if (rewrite_where(R, e->u.binary.left, &l) == BASALT_OK &&
            rewrite_where(R, e->u.binary.right, &r) == BASALT_OK &&
            (l != e->u.binary.left || r != e->u.binary.right)) {
            *out = basalt_sql_ast_binary(R->B, BASALT_SQL_BINARY_AND, l, r);
            if (*out == NULL)
                R->st = basalt_error_set(R->err, BASALT_NOMEM, "out of memory");
        }
        return R->st;
    }
    if (e->kind == BASALT_SQL_EXPR_IN_QUERY && !e->u.in_query.negated) {
        struct basalt_sql_expr *r = rewritten(R, e, true);
        if (r != NULL)
            *out = r;
        if (r != NULL || R->st != BASALT_OK)
            return R->st;
    }
    return rewrite(R, e, out);
}

basalt_status basalt_sql_correlated_in(struct binder *B, const struct bscope *scope,
                                       const struct basalt_sql_select **s,
                                       struct basalt_error *err)
{
    const struct basalt_sql_select *in = *s;
    struct in_rewrite R = {B, scope, BASALT_OK, err};
    struct basalt_sql_select copy = *in;
    struct basalt_sql_select_item *items =
        basalt_arena_alloc(&B->arena, sizeof *items * (size_t)(in->n_items + 1), 8);
    if (items == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    bool changed = false;
    for (int i = 0; i < in->n_items && R.st == BASALT_OK; i++) {
        items[i] = in->items[i];
        if (in->items[i].expr->kind == BASALT_SQL_EXPR_STAR ||
            rewrite(&R, in->items[i].expr, &items[i].expr) != BASALT_OK ||
            items[i].expr == in->items[i].expr)
            continue;
        changed = true;
        /* named as written, not by the rewritten form's text */
        if (items[i].alias.name == NULL) {
            items[i].alias.name = basalt_sql_text(B, in->items[i].expr);
            items[i].alias.quoted = true;
            items[i].alias.pos = in->items[i].expr->pos;
        }
    }
    if (R.st == BASALT_OK && rewrite_where(&R, in->where, &copy.where) == BASALT_OK &&
        rewrite(&R, in->having, &copy.having) == BASALT_OK)
        changed |= copy.where != in->where || copy.having != in->having;
    if (R.st != BASALT_OK || !changed)
        return R.st;
    struct basalt_sql_select *out = basalt_arena_alloc(&B->arena, sizeof *out, 8);
    if (out == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    copy.items = items;
    *out = copy;
    *s = out;
    return BASALT_OK;
}
