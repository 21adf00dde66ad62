/* Correlated subqueries in WHERE, turned into joins after the FROM is
 * planned:
 *   - EXISTS (SELECT ... WHERE inner = outer AND ...) is a SEMI join of the
 *     outer rows with the subquery's FROM on its correlated conditions
 *     (equalities as keys, the rest inside the join); NOT EXISTS an ANTI
 *     join;
 *   - a scalar subquery `(SELECT agg(...) FROM ... WHERE inner = outer ...)`
 *     is its aggregate grouped by the inner sides of the correlated
 *     equalities, LEFT joined on their outer sides; the subquery then reads
 *     that column (B->repl). A group with no rows gives NULL, which is the
 *     subquery's value for every aggregate but COUNT (documented);
 *   - `(SELECT v FROM ... WHERE inner = outer)`, one value a row, is
 *     any_value(v) and count(*) grouped the same way, and fails where it
 *     is read for an outer row whose key has more than one row (DuckDB's
 *     error);
 *   - `(SELECT v FROM ... WHERE inner = outer ORDER BY o LIMIT 1 OFFSET m)`
 *     is the (m+1)-th row of each key's rows in that order (QUALIFY
 *     row_number() OVER (PARTITION BY inner keys ORDER BY o)), LEFT joined
 *     the same way;
 *   - an EXISTS that is not a condition of its own (in CASE, under OR, in
 *     the SELECT list) is TRUE grouped the same way, FALSE where the LEFT
 *     join finds no group;
 *   - with GROUP BY or HAVING of its own, a scalar subquery or EXISTS is
 *     grouped per key in two steps (bind_subquery_grouped.c) and read as
 *     the one-value case;
 *   - one that reads the outer query only inside a subquery of its FROM
 *     has that subquery keyed first (bind_subquery_from.c);
 *   - one correlated by other than equalities, or reading the outer query
 *     outside its WHERE, is keyed by D, the distinct outer values it reads
 *     (bind_subquery_nonequal.c), and joined back on them.
 * The subquery's own conditions stay inside it. Subqueries that turn out
 * not to read the outer query are left to run once (bind_expr.c). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bind/bind_internal.h"

typedef void (*column_fn)(void *ctx, const struct basalt_sql_expr *column);

/* Calls fn on every column reference of e, not descending into subqueries. */
static void walk(const struct basalt_sql_expr *e, column_fn fn, void *ctx)
{
    if (e == NULL)
        return;
    switch (e->kind) {
    case BASALT_SQL_EXPR_COLUMN: fn(ctx, e); return;
    case BASALT_SQL_EXPR_UNARY: walk(e->u.unary.arg, fn, ctx); return;
    case BASALT_SQL_EXPR_BINARY:
        walk(e->u.binary.left, fn, ctx);
        walk(e->u.binary.right, fn, ctx);
        return;
    case BASALT_SQL_EXPR_IS: walk(e->u.is.arg, fn, ctx); return;
    case BASALT_SQL_EXPR_BETWEEN:
        walk(e->u.between.arg, fn, ctx);
        walk(e->u.between.low, fn, ctx);
        walk(e->u.between.high, fn, ctx);
        return;
    case BASALT_SQL_EXPR_IN_LIST:
        walk(e->u.in_list.arg, fn, ctx);
        for (int i = 0; i < e->u.in_list.n_items; i++)
            walk(e->u.in_list.items[i], fn, ctx);
        return;
    case BASALT_SQL_EXPR_IN_QUERY: walk(e->u.in_query.arg, fn, ctx); return;
    case BASALT_SQL_EXPR_LIKE:
        walk(e->u.like.arg, fn, ctx);
        walk(e->u.like.pattern, fn, ctx);
        walk(e->u.like.escape, fn, ctx);
        return;
    case BASALT_SQL_EXPR_CASE:
        walk(e->u.case_.operand, fn, ctx);
        for (int i = 0; i < e->u.case_.n_when; i++) {
            walk(e->u.case_.when[i], fn, ctx);
            walk(e->u.case_.then[i], fn, ctx);
        }
        walk(e->u.case_.otherwise, fn, ctx);
        return;
    case BASALT_SQL_EXPR_CAST: walk(e->u.cast.arg, fn, ctx); return;
    case BASALT_SQL_EXPR_EXTRACT: walk(e->u.extract.arg, fn, ctx); return;
    case BASALT_SQL_EXPR_FUNCTION:
        for (int i = 0; i < e->u.call.n_args; i++)
            walk(e->u.call.args[i], fn, ctx);
        return;
    default: return;
    }
}

/* Appends e's subqueries outside nested subqueries (and outside aggregate
 * calls when `skip_aggregates`) to out (up to cap), in order; returns how
 * many there are. A correlated one inside CASE, a function call or an IN
 * list is joined in as the others are: it is then computed for every row,
 * which is harmless for the aggregates and EXISTS that decorrelate (none of
 * them fails). */
static int subqueries(const struct basalt_sql_expr *e, bool skip_aggregates,
                      const struct basalt_sql_expr **out, int cap);

static int subqueries_of(const struct basalt_sql_expr *const *list, int n, bool skip_aggregates,
                         const struct basalt_sql_expr **out, int cap)
{
    int found = 0;
    for (int i = 0; i < n; i++)
        found += subqueries(list[i], skip_aggregates, out + found, cap > found ? cap - found : 0);
    return found;
}

static int subqueries(const struct basalt_sql_expr *e, bool skip_aggregates,
                      const struct basalt_sql_expr **out, int cap)
{
    if (e == NULL)
        return 0;
    if (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS) {
        if (cap > 0)
            out[0] = e;
        return 1;
    }
    switch (e->kind) {
    case BASALT_SQL_EXPR_UNARY: return subqueries(e->u.unary.arg, skip_aggregates, out, cap);
    case BASALT_SQL_EXPR_BINARY: {
        const struct basalt_sql_expr *both[2] = {e->u.binary.left, e->u.binary.right};
        return subqueries_of(both, 2, skip_aggregates, out, cap);
    }
    case BASALT_SQL_EXPR_BETWEEN: {
        const struct basalt_sql_expr *three[3] = {e->u.between.arg, e->u.between.low, e->u.between.high};
        return subqueries_of(three, 3, skip_aggregates, out, cap);
    }
    case BASALT_SQL_EXPR_LIKE: {
        const struct basalt_sql_expr *three[3] = {e->u.like.arg, e->u.like.pattern, e->u.like.escape};
        return subqueries_of(three, 3, skip_aggregates, out, cap);
    }
    case BASALT_SQL_EXPR_IN_LIST: {
        int n = subqueries(e->u.in_list.arg, skip_aggregates, out, cap);
        return n + subqueries_of((const struct basalt_sql_expr *const *)e->u.in_list.items,
                                 e->u.in_list.n_items, skip_aggregates, out + n, cap > n ? cap - n : 0);
    }
    case BASALT_SQL_EXPR_CASE: {
        int n = subqueries(e->u.case_.operand, skip_aggregates, out, cap);
        for (int i = 0; i < e->u.case_.n_when; i++) {
            const struct basalt_sql_expr *arm[2] = {e->u.case_.when[i], e->u.case_.then[i]};
            n += subqueries_of(arm, 2, skip_aggregates, out + n, cap > n ? cap - n : 0);
        }
        return n + subqueries(e->u.case_.otherwise, skip_aggregates, out + n, cap > n ? cap - n : 0);
    }
    case BASALT_SQL_EXPR_FUNCTION:
    {
        if (skip_aggregates && e->u.call.over == NULL && basalt_sql_is_aggregate(e->u.call.name.name))
            return 0;
        int n = subqueries_of((const struct basalt_sql_expr *const *)e->u.call.args, e->u.call.n_args,
                              skip_aggregates, out, cap);
        return n + subqueries(e->u.call.filter, skip_aggregates, out + n, cap > n ? cap - n : 0);
    }
    case BASALT_SQL_EXPR_CAST: return subqueries(e->u.cast.arg, skip_aggregates, out, cap);
    case BASALT_SQL_EXPR_EXTRACT: return subqueries(e->u.extract.arg, skip_aggregates, out, cap);
    case BASALT_SQL_EXPR_IS: return subqueries(e->u.is.arg, skip_aggregates, out, cap);
    default: return 0;
    }
}

bool basalt_sql_has_subquery(const struct basalt_sql_expr *e)
{
    const struct basalt_sql_expr *found[1];
    return subqueries(e, false, found, 1) > 0 || (e->kind == BASALT_SQL_EXPR_IN_QUERY && !e->u.in_query.negated);
}

struct outside {
    struct binder *B;
    const struct bscope *inner, *outer;
    bool any;
    /* ORDER BY, GROUP BY and HAVING: a name of one of these items is
     * the item, not an outer column (NULL: none) */
    const struct basalt_sql_select *aliases;
};

bool basalt_sql_names_item(const struct basalt_sql_select *sel, const struct basalt_sql_expr *c)
{
    if (sel == NULL || c->u.column.n_parts != 1)
        return false;
    for (int i = 0; i < sel->n_items; i++)
        if (sel->items[i].alias.name != NULL &&
            strcasecmp(sel->items[i].alias.name, c->u.column.parts[0].name) == 0)
            return true;
    return false;
}

static void check_outside(void *vctx, const struct basalt_sql_expr *c)
{
    struct outside *o = vctx;
    const struct bcol *col;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_names_item(o->aliases, c))
        return;
    if (basalt_sql_resolve(o->B, o->inner, &c->u.column, c->pos, &col, &ignore) == BASALT_OK)
        return;
    if (basalt_sql_resolve(o->B, o->outer, &c->u.column, c->pos, &col, &ignore) == BASALT_OK)
        o->any = true;
}

bool basalt_sql_reads_outer(struct binder *B, const struct bscope *in, const struct bscope *outer,
                            const struct basalt_sql_expr *e)
{
    struct outside o = {B, in, outer, false, NULL};
    walk(e, check_outside, &o);
    return o.any;
}

static bool reads_outer_in(struct binder *B, const struct bscope *in, const struct bscope *outer,
                           const struct basalt_sql_select *aliases, const struct basalt_sql_expr *e)
{
    if (e == NULL || e->kind == BASALT_SQL_EXPR_STAR)
        return false;
    struct outside o = {B, in, outer, false, aliases};
    walk(e, check_outside, &o);
    return o.any;
}

bool basalt_sql_reads_outer_beyond_where(struct binder *B, const struct bscope *in,
                                         const struct bscope *outer, const struct basalt_sql_query *q)
{
    if (q->kind != BASALT_SQL_QUERY_SELECT)
        return false;
    const struct basalt_sql_select *sel = &q->u.select;
    bool reads = reads_outer_in(B, in, outer, sel, sel->having);
    for (int i = 0; i < sel->n_items && !reads; i++)
        reads = reads_outer_in(B, in, outer, NULL, sel->items[i].expr);
    for (int i = 0; i < sel->n_group && !reads; i++)
        reads = reads_outer_in(B, in, outer, sel, sel->group[i]);
    for (int i = 0; i < q->n_order && !reads; i++)
        reads = reads_outer_in(B, in, outer, sel, q->order[i].expr);
    return reads;
}

struct unknown {
    struct binder *B;
    const struct bscope *inner, *outer;
    const struct basalt_sql_expr *first;
};

static void find_unknown(void *vctx, const struct basalt_sql_expr *c)
{
    struct unknown *u = vctx;
    const struct bcol *col;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (u->first == NULL &&
        basalt_sql_resolve(u->B, u->inner, &c->u.column, c->pos, &col, &ignore) != BASALT_OK &&
        basalt_sql_resolve(u->B, u->outer, &c->u.column, c->pos, &col, &ignore) != BASALT_OK)
        u->first = c;
}

basalt_status basalt_sql_known_columns(struct binder *B, const struct bscope *in,
                                       const struct bscope *outer, const struct basalt_sql_expr *e,
                                       struct basalt_error *err)
{
    struct unknown u = {B, in, outer, NULL};
    walk(e, find_unknown, &u);
    if (u.first == NULL)
        return BASALT_OK;
    const struct bcol *col;
    return basalt_sql_resolve(B, in, &u.first->u.column, u.first->pos, &col, err);
}

void basalt_sql_split_reset(struct bsplit *s)
{
    basalt_sql_scope_reset(&s->in);
    basalt_sql_from_reset(&s->F);
    basalt_sql_from_reset(&s->where);
    basalt_free(s->inner);
    basalt_free(s->corr);
}

basalt_status basalt_sql_split_subquery(struct binder *B, const struct bscope *outer,
                                        const struct basalt_sql_query *q, struct bsplit *s,
                                    struct basalt_error *err)
{
    memset(s, 0, sizeof *s);
    if (q->kind != BASALT_SQL_QUERY_SELECT || q->u.select.from == NULL || q->n_ctes > 0)
        return BASALT_OK;
    basalt_status st = basalt_sql_bind_from(B, q->u.select.from, &s->in, &s->F, err);
    if (st == BASALT_OK)
        st = basalt_sql_conjuncts(&s->where, q->u.select.where, err);
    int n = s->where.nc;
    s->inner = basalt_calloc((size_t)n + 1, sizeof *s->inner);
    s->corr = basalt_calloc((size_t)n + 1, sizeof *s->corr);
    if (st == BASALT_OK && (s->inner == NULL || s->corr == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        struct outside o = {B, &s->in, outer, false, NULL};
        walk(s->where.conj[i], check_outside, &o);
        if (o.any)
            s->corr[s->n_corr++] = s->where.conj[i];
        else
            s->inner[s->n_inner++] = s->where.conj[i];
    }
    return st;
}

/* A scope of the outer columns (relation 0) in front of which `in` (its
 * columns relation 1, NULL: none) shadows them. */
static basalt_status combined(const struct bscope *outer, const struct bscope *in,
                              struct bscope *o_copy, struct bscope *c, struct basalt_error *err)
{
    memset(o_copy, 0, sizeof *o_copy);
    memset(c, 0, sizeof *c);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < outer->n && st == BASALT_OK; i++)
        st = basalt_sql_scope_add(o_copy, outer->cols[i].table, outer->cols[i].name,
                                  outer->cols[i].gid, 0, err);
    for (int i = 0; in != NULL && i < in->n && st == BASALT_OK; i++)
        st = basalt_sql_scope_add(c, in->cols[i].table, in->cols[i].name, in->cols[i].gid, 1, err);
    c->outer = o_copy;
    return st;
}

static basalt_status add_repl(struct binder *B, const char *text, int32_t gid,
                              bool zero_if_null, const struct basalt_query_value *empty,
                              int32_t key_gid, const struct basalt_sql_expr *empty_expr,
                              struct basalt_error *err)
{
    if (B->n_repl == B->cap_repl) {
        int cap = B->cap_repl ? B->cap_repl * 2 : 8;
        struct brepl *r = basalt_realloc(B->repl, (size_t)cap * sizeof *r);
        if (r == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        B->repl = r;
        B->cap_repl = cap;
    }
    B->repl[B->n_repl++] = (struct brepl){text, gid, zero_if_null, empty, key_gid, empty_expr};
    return BASALT_OK;
}

static basalt_status add_many(struct binder *B, int32_t value_gid, int32_t rows_gid,
                              struct basalt_error *err)
{
    if (B->n_many == B->cap_many) {
        int cap = B->cap_many ? B->cap_many * 2 : 4;
        struct bmany *m = basalt_realloc(B->many, (size_t)cap * sizeof *m);
        if (m == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        B->many = m;
        B->cap_many = cap;
    }
    B->many[B->n_many++] = (struct bmany){value_gid, rows_gid};
    return BASALT_OK;
}

static basalt_status exists_join(struct binder *B, const struct bscope *outer, struct brel *rel,
                                 struct bsplit *s, bool negated, struct basalt_error *err)
{
    struct brel inner;
    basalt_status st = basalt_sql_plan_joins(B, &s->in, s->F.rels, s->F.n, s->inner, s->n_inner,
                                             &inner, err);
    struct bscope o_copy, c;
    if (st == BASALT_OK)
        st = combined(outer, &s->in, &o_copy, &c, err);
    bool *used = basalt_calloc((size_t)s->n_corr + 1, sizeof *used);
    if (st == BASALT_OK && used == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct brel out;
    if (st == BASALT_OK)
        st = basalt_sql_join_pair(B, &c, negated ? BASALT_QPLAN_JOIN_ANTI : BASALT_QPLAN_JOIN_SEMI,
                                  rel, 1, &inner, 2, s->corr, s->n_corr, used, &out, err);
    if (st == BASALT_OK)
        *rel = out;
    basalt_free(used);
    basalt_sql_scope_reset(&o_copy);
    basalt_sql_scope_reset(&c);
    return st;
}

/* Whether e is `a = b` with one side over the subquery's tables only and
 * the other over the outer query's only. */
bool basalt_sql_correlation_key(struct binder *B, const struct bscope *in,
                                const struct bscope *outer, const struct basalt_sql_expr *e,
                                const struct basalt_sql_expr **o, const struct basalt_sql_expr **i)
{
    if (e->kind != BASALT_SQL_EXPR_BINARY || e->u.binary.op != BASALT_SQL_BINARY_EQ)
        return false;
    for (int side = 0; side < 2; side++) {
        const struct basalt_sql_expr *a = side ? e->u.binary.right : e->u.binary.left;
        const struct basalt_sql_expr *b = side ? e->u.binary.left : e->u.binary.right;
        struct outside oa = {B, in, outer, false, NULL}, ob = {B, in, outer, false, NULL};
        walk(a, check_outside, &oa);
        walk(b, check_outside, &ob);
        /* a reads the outer query, b only the subquery's tables */
        struct bscope none;
        memset(&none, 0, sizeof none);
        struct outside b_in_outer = {B, &none, in, false, NULL};
        walk(b, check_outside, &b_in_outer);
        if (oa.any && !ob.any && b_in_outer.any) {
            *o = a;
            *i = b;
            return true;
        }
    }
    return false;
}

bool basalt_sql_literal_int(const struct basalt_sql_expr *e, int64_t *out)
{
    if (e == NULL || e->kind != BASALT_SQL_EXPR_INTEGER || !e->u.lit.fits || e->u.lit.i64 < 0)
        return false;
    *out = e->u.lit.i64;
    return true;
}

/* For a correlated scalar subquery with LIMIT: *nth = m + 1 when it picks
 * one value row, `ORDER BY ... LIMIT 1 OFFSET m` (the (m+1)-th row of each
 * key's rows); 0 when the LIMIT changes nothing (an aggregate without
 * GROUP BY makes one row, LIMIT 1 or more keeps it). Other limits would
 * leave several rows, which DuckDB fails on when they occur: UNSUPPORTED. */
static basalt_status limited_row(struct binder *B, const struct basalt_sql_query *q, int64_t *nth,
                                 struct basalt_error *err)
{
    *nth = 0;
    const struct basalt_sql_select *sel = &q->u.select;
    if (q->limit == NULL || sel->n_items != 1 || sel->n_group > 0 || sel->group_all)
        return BASALT_OK;
    int64_t limit = -1, offset = 0;
    bool constant = basalt_sql_literal_int(q->limit, &limit) && (q->offset == NULL || basalt_sql_literal_int(q->offset, &offset));
    if (basalt_sql_has_aggregate(B, sel->items[0].expr)) {
        if (constant && limit >= 1 && offset == 0)
            return BASALT_OK;
    } else if (constant && limit == 1 && !q->order_all) {
        *nth = offset + 1;
        return BASALT_OK;
    }
    return basalt_sql_err(B, BASALT_UNSUPPORTED, q->limit->pos, err,
                          "a correlated subquery takes LIMIT 1 (with a constant OFFSET) here");
}

/* row_number() OVER (PARTITION BY the inner keys ORDER BY the subquery's
 * order) = nth. */
static struct basalt_sql_expr *nth_of_key(struct binder *B, const struct basalt_sql_query *q,
                                          struct basalt_sql_expr **keys, int n_keys, int64_t nth)
{
    struct basalt_sql_expr *rn = basalt_sql_ast_row_number(
        B, keys, n_keys, basalt_sql_ast_item_order(B, q), q->n_order, q->pos);
    return basalt_sql_ast_binary(B, BASALT_SQL_BINARY_EQ, rn, basalt_sql_ast_integer(B, nth, q->pos));
}

/* A correlated scalar subquery, or an EXISTS read as a value (in CASE, an
 * OR, the SELECT list): the subquery grouped by its correlation keys, LEFT
 * joined on them; for EXISTS the grouped query's value is TRUE, and FALSE
 * where no group has the key. */
/* A column of the outer query that rel lacks: after grouping, one that is
 * not a group key. */
struct missing {
    struct binder *B;
    const struct bscope *outer;
    const struct brel *rel;
    const struct basalt_sql_expr *first;
};

static void find_missing(void *vctx, const struct basalt_sql_expr *c)
{
    struct missing *m = vctx;
    const struct bcol *col;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (m->first != NULL ||
        basalt_sql_resolve(m->B, m->outer, &c->u.column, c->pos, &col, &ignore) != BASALT_OK)
        return;
    for (int k = 0; k < m->rel->n; k++)
        if (m->rel->gids[k] == col->gid)
            return;
    m->first = c;
}

static basalt_status scalar_join(struct binder *B, const struct bscope *outer,
                                 const struct bouter *from, struct brel *rel,
                                 const struct basalt_sql_expr *sub, const struct basalt_sql_query *q,
                                 struct bsplit *s, struct basalt_error *err)
{
    const struct basalt_sql_select *sel = &q->u.select;
    bool exists = sub->kind == BASALT_SQL_EXPR_EXISTS;
    /* its own GROUP BY or HAVING: per key in two steps
     * (bind_subquery_grouped.c) */
    bool grouped = sel->n_group > 0 || sel->having != NULL;
    if (sel->n_grouping > 0 || sel->group_all || (grouped && sel->qualify != NULL))
        return basalt_sql_err(B, BASALT_UNSUPPORTED, sub->pos, err,
                              "a correlated subquery with grouping sets, GROUP BY ALL or QUALIFY "
                              "is not supported yet");
    /* a GROUP BY ordinal names one of its own items (the keys go in front
     * later) */
    for (int i = 0; grouped && i < sel->n_group; i++) {
        const struct basalt_sql_expr *x = sel->group[i];
        if (i < sel->n_group && x->kind == BASALT_SQL_EXPR_INTEGER &&
            (!x->u.lit.fits || x->u.lit.i64 < 1 || x->u.lit.i64 > sel->n_items))
            return basalt_sql_err(B, BASALT_INVALID_ARG, x->pos, err,
                                  "GROUP BY term out of range - should be between 1 and %d",
                                  (int)sel->n_items);
    }
    /* with GROUP BY, `ORDER BY o LIMIT 1 OFFSET m` picks the (m+1)-th of
     * each key's groups */
    int64_t nth = 0, limit = 0, offset = 0;
    if (grouped && !exists && q->limit != NULL && basalt_sql_literal_int(q->limit, &limit) &&
        limit == 1 && (q->offset == NULL || basalt_sql_literal_int(q->offset, &offset)) &&
        !q->order_all)
        nth = offset + 1;
    /* an EXISTS needs one row: a LIMIT of 1 or more changes nothing */
    bool any_row = exists && q->offset == NULL && basalt_sql_literal_int(q->limit, &limit) && limit > 0;
    if ((exists || grouped) && q->limit != NULL && nth == 0 && !any_row)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, q->limit->pos, err,
                              "a correlated subquery with GROUP BY or HAVING takes LIMIT 1 (with "
                              "a constant OFFSET) here; an EXISTS read as a value a LIMIT of 1 or "
                              "more, without OFFSET");
    basalt_status st = exists || grouped ? BASALT_OK : limited_row(B, q, &nth, err);
    if (st != BASALT_OK)
        return st;
    bool ordered = nth > 0 && !grouped; /* ORDER BY and LIMIT pick the row; else they change nothing */
    if (!exists && (sel->n_items != 1 || (q->n_order > 0 && !ordered && !grouped && q->limit == NULL)))
        return basalt_sql_err(B, BASALT_UNSUPPORTED, sub->pos, err,
                              "this correlated subquery is not supported yet (one value, without "
                              "ORDER BY unless LIMIT 1 picks the row)");
    /* one value a row without LIMIT: any of its key's rows (or groups),
     * and how many there are (more than one fails where it is read:
     * bind_expr.c) */
    bool single = !exists && nth == 0 && (grouped || !basalt_sql_has_aggregate(B, sel->items[0].expr));
    /* correlated by other than equalities: over D, the distinct values of
     * the outer columns it reads, keyed by D's columns
     * (bind_subquery_nonequal.c) */
    bool nonequal = basalt_sql_reads_outer_beyond_where(B, &s->in, outer, q);
    for (int k = 0; k < s->n_corr && !nonequal; k++) {
        const struct basalt_sql_expr *o, *i;
        nonequal = !basalt_sql_correlation_key(B, &s->in, outer, s->corr[k], &o, &i);
    }
    struct bnonequal ne;
    memset(&ne, 0, sizeof ne);
    const struct basalt_sql_expr *written_item = exists ? NULL : sel->items[0].expr;
    if (nonequal) {
        for (int k = 0; k < s->n_corr && st == BASALT_OK; k++)
            st = basalt_sql_known_columns(B, &s->in, outer, s->corr[k], err);
        if (st == BASALT_OK)
            st = basalt_sql_nonequal(B, outer, from, q, s, &ne, err);
        if (st != BASALT_OK)
            return st;
        q = ne.query;
        sel = &q->u.select;
    }
    /* a column that is never NULL where a key has rows, read for the value
     * over no rows: D's columns may be NULL themselves */
    bool marked = nonequal && !exists && !single && !grouped && !ordered;
    int n = nonequal ? ne.n : s->n_corr;
    const struct basalt_sql_expr **outer_side = basalt_calloc((size_t)n + 1, sizeof *outer_side);
    struct basalt_sql_select_item *items = basalt_arena_alloc(&B->arena, sizeof *items * (size_t)(n + 3), 8);
    struct basalt_sql_expr **group = basalt_arena_alloc(&B->arena, sizeof *group * (size_t)(n + 1), 8);
    if (outer_side == NULL || items == NULL || group == NULL) {
        basalt_free(outer_side);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    char alias[32];
    snprintf(alias, sizeof alias, "__sq%d", (int)B->next_gid);
    const char *table = basalt_arena_strndup(&B->arena, alias, strlen(alias));
    for (int k = 0; k < n && st == BASALT_OK; k++) {
        const struct basalt_sql_expr *o, *i;
        if (nonequal) {
            o = ne.outer_side[k];
            i = ne.inner_side[k];
        } else if (!basalt_sql_correlation_key(B, &s->in, outer, s->corr[k], &o, &i)) {
            st = basalt_sql_known_columns(B, &s->in, outer, s->corr[k], err);
            if (st == BASALT_OK)
                st = basalt_sql_err(B, BASALT_UNSUPPORTED, s->corr[k]->pos, err,
                                exists ? "a correlated EXISTS must be correlated by equalities "
                                         "where it is not a condition of its own"
                                       : "a correlated scalar subquery must be correlated by "
                                         "equalities");
            break;
        }
        struct missing m = {B, outer, rel, NULL};
        walk(o, find_missing, &m);
        if (m.first != NULL) {
            const struct basalt_sql_ident *parts = m.first->u.column.parts;
            st = basalt_sql_err(B, BASALT_INVALID_ARG, m.first->pos, err,
                                "column \"%s\" must appear in the GROUP BY clause or be used in "
                                "an aggregate function",
                                parts[m.first->u.column.n_parts - 1].name);
            break;
        }
        outer_side[k] = o;
        group[k] = basalt_sql_ast_shared(i);
        char name[32];
        snprintf(name, sizeof name, "__k%d", k);
        items[k].expr = basalt_sql_ast_shared(i);
        items[k].alias.name = basalt_arena_strndup(&B->arena, name, strlen(name));
    }
    if (st != BASALT_OK) {
        basalt_free(outer_side);
        return st;
    }
    items[n].expr = exists ? basalt_sql_ast_bool(B, true, sub->pos) : sel->items[0].expr;
    items[n].alias.name = "__v";
    if (single) {
        items[n].expr = basalt_sql_ast_call(B, "any_value", sel->items[0].expr);
        items[n + 1].expr = basalt_sql_ast_call(B, "count", NULL);
        items[n + 1].alias.name = "__rows";
    }
    if (marked) {
        items[n + 1].expr = basalt_sql_ast_call(B, "count", NULL);
        items[n + 1].alias.name = "__m";
    }
    if (items[n].expr == NULL || ((single || marked) && items[n + 1].expr == NULL)) {
        basalt_free(outer_side);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    /* SELECT inner keys, value FROM (its FROM) WHERE (its own conditions)
     * GROUP BY inner keys */
    struct basalt_sql_query *g = basalt_arena_alloc(&B->arena, sizeof *g, 8);
    if (g == NULL) {
        basalt_free(outer_side);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    memset(g, 0, sizeof *g);
    g->kind = BASALT_SQL_QUERY_SELECT;
    g->pos = q->pos;
    g->height = q->height;
    g->u.select.n_items = n + 1 + single + marked;
    g->u.select.items = items;
    g->u.select.from = sel->from;
    struct basalt_sql_expr *where = nonequal ? ne.where : NULL;
    for (int k = 0; k < s->n_inner && !nonequal; k++)
        where = where == NULL ? basalt_sql_ast_shared(s->inner[k])
                              : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, where,
                                                      basalt_sql_ast_shared(s->inner[k]));
    g->u.select.where = where;
    if (grouped) {
        int n_items;
        g = basalt_sql_grouped_per_key(B, q, items, n, where, exists, nth, &n_items);
        if (g == NULL) {
            basalt_free(outer_side);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        items = g->u.select.items;
    } else if (ordered) {
        g->u.select.qualify = nth_of_key(B, q, group, n, nth);
        if (g->u.select.qualify == NULL) {
            basalt_free(outer_side);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
    } else {
        g->u.select.n_group = n;
        g->u.select.group = group;
    }
    struct brel keyed;
    const char **names;
    st = basalt_sql_bind_query(B, g, &keyed, &names, err);
    /* Only the groups the outer rows can reach, when a filtered outer table
     * says which (bind_narrow.c); as it was if that does not bind. */
    struct basalt_sql_expr *narrow =
        st == BASALT_OK && !grouped && !nonequal
            ? basalt_sql_narrowing(B, outer, from, outer_side, group, n, &keyed)
                                    : NULL;
    if (narrow != NULL) {
        g->u.select.where = where == NULL ? narrow
                                          : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, where, narrow);
        struct brel narrowed;
        const char **narrowed_names;
        struct basalt_error ignore;
        basalt_error_init(&ignore);
        if (g->u.select.where != NULL &&
            basalt_sql_bind_query(B, g, &narrowed, &narrowed_names, &ignore) == BASALT_OK) {
            keyed = narrowed;
            names = narrowed_names;
        }
    }
    /* join on outer = __sqN.__kk */
    struct bscope o_copy, sq, none;
    memset(&none, 0, sizeof none);
    memset(&o_copy, 0, sizeof o_copy); /* reset below also when binding failed */
    memset(&sq, 0, sizeof sq);
    if (st == BASALT_OK)
        st = combined(outer, &none, &o_copy, &sq, err);
    for (int k = 0; k <= n && st == BASALT_OK; k++)
        st = basalt_sql_scope_add(&sq, table, k < n ? items[k].alias.name : "__v", keyed.gids[k], 1,
                                  err);
    const struct basalt_sql_expr **conds = basalt_calloc((size_t)n + 1, sizeof *conds);
    bool *used = basalt_calloc((size_t)n + 1, sizeof *used);
    if (st == BASALT_OK && (conds == NULL || used == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int k = 0; k < n && st == BASALT_OK; k++) {
        /* D's NULLs are values with rows of their own */
        conds[k] = basalt_sql_ast_binary(
            B, nonequal ? BASALT_SQL_BINARY_IS_NOT_DISTINCT : BASALT_SQL_BINARY_EQ,
            basalt_sql_ast_shared(outer_side[k]),
            basalt_sql_ast_column(B, table, items[k].alias.name, outer_side[k]->pos));
        if (conds[k] == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    struct brel out;
    if (st == BASALT_OK)
        st = basalt_sql_join_pair(B, &sq, BASALT_QPLAN_JOIN_LEFT, rel, 1, &keyed, 2, conds, n,
                                  used, &out, err);
    if (st == BASALT_OK) {
        *rel = out;
        /* the LEFT join leaves NULL where no row has the key: right for
         * most aggregates, not for COUNT (0 there) or an expression over
         * one (`count(*) + 1`), read as their value over no rows where the
         * key column is NULL (bind_empty_value.c); EXISTS is FALSE */
        const struct basalt_sql_expr *x = items[n].expr;
        struct basalt_query_value *empty = NULL;
        struct basalt_query_type t;
        const struct ArrowSchema *schema = basalt_qplan_schema(keyed.node);
        if (!exists && !single && !grouped && n > 0 &&
            basalt_query_type_from_format(schema->children[n]->format, &t, NULL) == BASALT_OK &&
            (empty = basalt_arena_alloc(&B->arena, sizeof *empty, 8)) != NULL &&
            !basalt_sql_empty_value(B, x, t, empty))
            empty = NULL;
        /* an item that reads the outer query as well has that value over
         * no rows for each outer row: not a constant */
        const struct basalt_sql_expr *empty_expr =
            marked && empty == NULL && basalt_sql_reads_outer(B, &s->in, outer, written_item)
                ? basalt_sql_empty_expr(B, written_item)
                : NULL;
        bool count = x->kind == BASALT_SQL_EXPR_FUNCTION && x->u.call.over == NULL &&
                     strcmp(x->u.call.name.name, "count") == 0 && empty == NULL;
        st = add_repl(B, basalt_sql_text(B, sub), keyed.gids[n], count || exists, empty,
                      keyed.gids[marked ? n + 1 : 0], empty_expr, err);
        if (st == BASALT_OK && single)
            st = add_many(B, keyed.gids[n], keyed.gids[n + 1], err);
    }
    basalt_free(conds);
    basalt_free(used);
    basalt_free(outer_side);
    basalt_sql_scope_reset(&o_copy);
    basalt_sql_scope_reset(&sq);
    return st;
}

/* x IN (SELECT c ...) as a whole WHERE condition: a SEMI join of rel (its
 * columns those of `scope` whose relation is in rel_mask) with the
 * subquery's rows on x = c: a hash join, where a list of values would test
 * each row against every value. The subquery is bound alone, as it was when
 * it ran once into a list: it reads no outer column. NOT IN stays a list,
 * its NULL rules not being a join's. */
basalt_status basalt_sql_in_join(struct binder *B, const struct bscope *scope, struct brel *rel,
                                 uint64_t rel_mask, const struct basalt_sql_expr *e,
                                 struct basalt_error *err)
{
    enum { SUB = 63 }; /* the subquery's relation: a bit no FROM list reaches */
    struct brel sub;
    const char **names;
    basalt_status st = basalt_sql_bind_query(B, e->u.in_query.query, &sub, &names, err);
    if (st != BASALT_OK)
        return st;
    if (sub.n != 1)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                              "Subquery returns %d columns - expected 1", (int)sub.n);
    char alias[32];
    snprintf(alias, sizeof alias, "__in%d", (int)B->next_gid);
    const char *table = basalt_arena_strndup(&B->arena, alias, strlen(alias));
    const struct basalt_sql_expr *cond =
        table == NULL ? NULL
                      : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_EQ,
                                              basalt_sql_ast_shared(e->u.in_query.arg),
                                              basalt_sql_ast_column(B, table, "__v", e->pos));
    if (cond == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct bscope c;
    memset(&c, 0, sizeof c);
    c.outer = scope->outer;
    for (int i = 0; i < scope->n && st == BASALT_OK; i++) {
        const struct bcol *col = &scope->cols[i];
        st = basalt_sql_scope_add(&c, col->table, col->name, col->gid, col->rel, err);
        if (st == BASALT_OK)
            c.cols[c.n - 1].hidden = col->hidden;
    }
    if (st == BASALT_OK)
        st = basalt_sql_scope_add(&c, table, "__v", sub.gids[0], SUB, err);
    bool used = false;
    struct brel out;
    if (st == BASALT_OK)
        st = basalt_sql_join_pair(B, &c, BASALT_QPLAN_JOIN_SEMI, rel, rel_mask, &sub,
                                  (uint64_t)1 << SUB, &cond, 1, &used, &out, err);
    if (st == BASALT_OK)
        *rel = out;
    basalt_sql_scope_reset(&c);
    return st;
}

static bool is_group_key(struct binder *B, const struct basalt_sql_expr *e,
                         const struct brepl *keys, int n_keys)
{
    const char *text = n_keys > 0 ? basalt_sql_text(B, e) : NULL;
    for (int i = 0; text != NULL && i < n_keys; i++)
        if (strcmp(keys[i].text, text) == 0)
            return true;
    return false;
}

/* Whether the same subquery is a column of rel already (written twice, as
 * in the SELECT list and ORDER BY): its value for a row is the same. */
static bool joined_already(struct binder *B, const struct brel *rel, const struct basalt_sql_expr *e)
{
    const char *text = B->n_repl > 0 ? basalt_sql_text(B, e) : NULL;
    for (int i = 0; text != NULL && i < B->n_repl; i++)
        if (strcmp(B->repl[i].text, text) == 0)
            for (int k = 0; k < rel->n; k++)
                if (rel->gids[k] == B->repl[i].gid)
                    return true;
    return false;
}

/* Whether q's SELECT list aggregates without GROUP BY: one row always. */
bool basalt_sql_aggregates_once(struct binder *B, const struct basalt_sql_query *q)
{
    const struct basalt_sql_select *sel = &q->u.select;
    if (sel->n_group > 0 || sel->n_grouping > 0 || sel->group_all)
        return false;
    for (int i = 0; i < sel->n_items; i++)
        if (sel->items[i].expr->kind != BASALT_SQL_EXPR_STAR &&
            basalt_sql_has_aggregate(B, sel->items[i].expr))
            return true;
    return false;
}

bool basalt_sql_exists_always(struct binder *B, const struct basalt_sql_expr *e)
{
    if (e->kind != BASALT_SQL_EXPR_EXISTS || e->u.subquery->kind != BASALT_SQL_QUERY_SELECT)
        return false;
    const struct basalt_sql_query *q = e->u.subquery;
    int64_t limit = 1;
    return basalt_sql_aggregates_once(B, q) && q->u.select.having == NULL &&
           q->u.select.qualify == NULL && q->offset == NULL &&
           (q->limit == NULL || (basalt_sql_literal_int(q->limit, &limit) && limit > 0));
}

basalt_status basalt_sql_decorrelate(struct binder *B, const struct bscope *outer,
                                     const struct bouter *from, struct brel *rel,
                                     const struct basalt_sql_expr *e,
                                     const struct brepl *keys, int n_keys, bool *done,
                                     struct basalt_error *err)
{
    bool condition = done != NULL;
    if (condition)
        *done = false;
    if (condition && e->kind == BASALT_SQL_EXPR_IN_QUERY && !e->u.in_query.negated) {
        /* over several relations of the FROM list: onto their join */
        basalt_status st = basalt_sql_in_join(B, outer, rel, ~((uint64_t)1 << 63), e, err);
        *done = st == BASALT_OK;
        return st;
    }
    /* [NOT] EXISTS as the whole conjunct */
    bool negated = false;
    const struct basalt_sql_expr *x = e;
    if (x->kind == BASALT_SQL_EXPR_UNARY && x->u.unary.op == BASALT_SQL_UNARY_NOT &&
        x->u.unary.arg->kind == BASALT_SQL_EXPR_EXISTS) {
        negated = true;
        x = x->u.unary.arg;
    }
    const struct basalt_sql_expr *subs[16];
    int n = subqueries(e, keys != NULL, subs, 16);
    if (n > 16)
        return basalt_sql_err(B, BASALT_LIMIT, e->pos, err, "more than 16 subqueries in one condition");
    basalt_status st = BASALT_OK;
    for (int k = 0; k < n && st == BASALT_OK; k++) {
        if (is_group_key(B, subs[k], keys, n_keys) || joined_already(B, rel, subs[k]))
            continue;
        struct bsplit s;
        if (basalt_sql_exists_always(B, subs[k]))
            continue; /* TRUE, whatever it reads (bind_expr.c) */
        const struct basalt_sql_query *q = subs[k]->u.subquery;
        st = basalt_sql_split_subquery(B, outer, q, &s, err);
        if (st == BASALT_NOT_FOUND) {
            /* a subquery of its FROM may be what reads the outer query
             * (bind_subquery_from.c); the column stays not found if not */
            const struct basalt_sql_query *lifted;
            struct basalt_error first;
            basalt_error_init(&first);
            if (err != NULL)
                first = *err;
            st = basalt_sql_lift_from_correlation(B, outer, q, &lifted, err);
            if (st == BASALT_OK && lifted == q) {
                if (err != NULL)
                    *err = first;
                st = BASALT_NOT_FOUND;
            } else if (st == BASALT_OK) {
                basalt_sql_split_reset(&s);
                q = lifted;
                st = basalt_sql_split_subquery(B, outer, q, &s, err);
            }
        }
        if (st == BASALT_OK && s.n_corr > 0 && subs[k]->kind == BASALT_SQL_EXPR_EXISTS &&
            basalt_sql_aggregates_once(B, q) &&
            (q->u.select.qualify != NULL || q->limit != NULL || q->offset != NULL))
            st = basalt_sql_err(B, BASALT_UNSUPPORTED, subs[k]->pos, err,
                                "a correlated EXISTS over an aggregate without GROUP BY, with "
                                "QUALIFY, LIMIT or OFFSET, is not supported");
        /* an EXISTS with GROUP BY or HAVING asks for a group, not a row of
         * its FROM: a value even where it is a condition of its own; so
         * does one whose LIMIT or OFFSET matters (refused there) */
        int64_t limit = 1;
        bool groups = q->kind == BASALT_SQL_QUERY_SELECT &&
                      (q->u.select.n_group > 0 || q->u.select.having != NULL || q->offset != NULL ||
                       (q->limit != NULL && (!basalt_sql_literal_int(q->limit, &limit) || limit == 0)));
        /* a SEMI or ANTI join needs an equality for its keys; without one
         * the EXISTS is a value over the outer values
         * (bind_subquery_nonequal.c), which the condition then reads */
        bool keyed = false;
        for (int c = 0; c < s.n_corr && !keyed; c++) {
            const struct basalt_sql_expr *o, *i;
            keyed = basalt_sql_correlation_key(B, &s.in, outer, s.corr[c], &o, &i);
        }
        /* correlated in its WHERE, or reading the outer query only in its
         * select list, ORDER BY, GROUP BY or HAVING */
        bool correlated = st == BASALT_OK &&
                          (s.n_corr > 0 || (s.in.n > 0 && basalt_sql_reads_outer_beyond_where(B, &s.in, outer, q)));
        if (correlated) {
            if (condition && subs[k] == x && x->kind == BASALT_SQL_EXPR_EXISTS && !groups && keyed) {
                st = exists_join(B, outer, rel, &s, negated, err);
                *done = st == BASALT_OK;
            } else {
                st = scalar_join(B, outer, from, rel, subs[k], q, &s, err);
            }
        }
        basalt_sql_split_reset(&s);
    }
    return st;
}
