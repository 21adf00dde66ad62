/* Planning a FROM list with its conditions: conjuncts over one relation
 * become filters on it (and so reach the scans' pruning); the relations are
 * then joined greedily, starting from the largest (the probe side, which
 * streams) unless another start is expected to pass far fewer rows through
 * the joins, and adding at each step the relation connected to what is
 * joined so far by an equality whose join is expected to be the smallest;
 * each join builds its smaller side. The equalities become the join's keys
 * and what else the joined relations cover becomes a filter above it. */
#include <string.h>

#include "bind/bind_internal.h"

static void refs(struct binder *B, const struct bscope *s, const struct basalt_sql_expr *e,
                 uint64_t *mask, bool *unresolved)
{
    if (e == NULL)
        return;
    switch (e->kind) {
    case BASALT_SQL_EXPR_COLUMN: {
        const struct bcol *c;
        struct basalt_error ignore;
        basalt_error_init(&ignore);
        if (basalt_sql_resolve(B, s, &e->u.column, e->pos, &c, &ignore) == BASALT_OK)
            *mask |= (uint64_t)1 << (c->rel & 63);
        else
            *unresolved = true;
        return;
    }
    case BASALT_SQL_EXPR_UNARY: refs(B, s, e->u.unary.arg, mask, unresolved); return;
    case BASALT_SQL_EXPR_BINARY:
        refs(B, s, e->u.binary.left, mask, unresolved);
        refs(B, s, e->u.binary.right, mask, unresolved);
        return;
    case BASALT_SQL_EXPR_IS: refs(B, s, e->u.is.arg, mask, unresolved); return;
    case BASALT_SQL_EXPR_BETWEEN:
        refs(B, s, e->u.between.arg, mask, unresolved);
        refs(B, s, e->u.between.low, mask, unresolved);
        refs(B, s, e->u.between.high, mask, unresolved);
        return;
    case BASALT_SQL_EXPR_IN_LIST:
        refs(B, s, e->u.in_list.arg, mask, unresolved);
        for (int i = 0; i < e->u.in_list.n_items; i++)
            refs(B, s, e->u.in_list.items[i], mask, unresolved);
        return;
    case BASALT_SQL_EXPR_IN_QUERY: refs(B, s, e->u.in_query.arg, mask, unresolved); return;
    case BASALT_SQL_EXPR_LIKE:
        refs(B, s, e->u.like.arg, mask, unresolved);
        refs(B, s, e->u.like.pattern, mask, unresolved);
        refs(B, s, e->u.like.escape, mask, unresolved);
        return;
    case BASALT_SQL_EXPR_CASE:
        refs(B, s, e->u.case_.operand, mask, unresolved);
        for (int i = 0; i < e->u.case_.n_when; i++) {
            refs(B, s, e->u.case_.when[i], mask, unresolved);
            refs(B, s, e->u.case_.then[i], mask, unresolved);
        }
        refs(B, s, e->u.case_.otherwise, mask, unresolved);
        return;
    case BASALT_SQL_EXPR_CAST: refs(B, s, e->u.cast.arg, mask, unresolved); return;
    case BASALT_SQL_EXPR_EXTRACT: refs(B, s, e->u.extract.arg, mask, unresolved); return;
    case BASALT_SQL_EXPR_FUNCTION:
        for (int i = 0; i < e->u.call.n_args; i++)
            refs(B, s, e->u.call.args[i], mask, unresolved);
        return;
    default: return;
    }
}

uint64_t basalt_sql_refs(struct binder *B, const struct bscope *s, const struct basalt_sql_expr *e)
{
    uint64_t mask = 0;
    bool unresolved = false;
    refs(B, s, e, &mask, &unresolved);
    return mask;
}

basalt_status basalt_sql_filter(struct binder *B, const struct bscope *scope, struct brel *rel,
                                const struct basalt_sql_expr *const *conj, int n,
                                const char *clause, struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, rel->node, &b, err);
    if (st != BASALT_OK)
        return st;
    struct blower L = {B, scope, rel, b, NULL, 0, clause};
    struct basalt_qexpr **parts = basalt_calloc((size_t)n, sizeof *parts);
    if (parts == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_sql_lower(&L, conj[i], &parts[i], err);
    struct basalt_qexpr *pred = parts[0];
    if (st == BASALT_OK && n > 1)
        st = basalt_qexpr_and(b, parts, n, &pred, err);
    struct basalt_qplan *f;
    if (st == BASALT_OK)
        st = basalt_qplan_filter(B->ctx, rel->node, pred, &f, err);
    if (st == BASALT_OK) {
        /* A quarter for the first condition, half for each further one
         * (they are often correlated: a range is two). TPC-H Q12's five
         * conditions on lineitem make it the smaller side of its join. */
        rel->node = f;
        rel->rows *= 0.25;
        for (int i = 1; i < n; i++)
            rel->rows *= 0.5;
    }
    basalt_free(parts);
    return st;
}

/* What a join key column holds of its expression: the value itself, or,
 * for `a IS NOT DISTINCT FROM b`, two keys that are never NULL (a NULL key
 * matches nothing): whether it is NULL, and the value with NULL replaced
 * by the type's zero (the flag tells the two apart), as INTERSECT's keys. */
enum key_form { KEY_VALUE, KEY_IS_NULL, KEY_OR_ZERO };

/* The index of a column holding `e` lowered over rel (cast, then in the
 * given form): a column reference is its column; anything else is computed
 * by a projection added on top. */
static basalt_status key_column(struct binder *B, const struct bscope *scope, struct brel *rel,
                                const struct basalt_sql_expr *e, struct basalt_query_type *cast,
                                enum key_form form, int *out, struct basalt_error *err)
{
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, rel->node, &b, err);
    struct blower L = {B, scope, rel, b, NULL, 0, "JOIN"};
    struct basalt_qexpr *x = NULL;
    if (st == BASALT_OK)
        st = basalt_sql_lower(&L, e, &x, err);
    if (st == BASALT_OK && cast != NULL)
        st = basalt_qexpr_cast(b, x, *cast, false, &x, err);
    if (st == BASALT_OK && form == KEY_IS_NULL)
        st = basalt_qexpr_is_null(b, x, false, &x, err);
    if (st == BASALT_OK && form == KEY_OR_ZERO)
        st = basalt_sql_zero_if_null(b, x, &x, err);
    if (st != BASALT_OK)
        return st;
    if (basalt_qexpr_column_index(x) >= 0) {
        *out = basalt_qexpr_column_index(x);
        return BASALT_OK;
    }
    int n = rel->n;
    struct basalt_qexpr **exprs = basalt_calloc((size_t)n + 1, sizeof *exprs);
    int32_t *gids = basalt_arena_alloc(&B->arena, sizeof *gids * (size_t)(n + 1), 8);
    if (exprs == NULL || gids == NULL) {
        basalt_free(exprs);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        st = basalt_qexpr_column(b, i, &exprs[i], err);
        gids[i] = rel->gids[i];
    }
    exprs[n] = x;
    gids[n] = basalt_sql_gid(B);
    struct basalt_qplan *p;
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, rel->node, exprs, NULL, n + 1, &p, err);
    basalt_free(exprs);
    if (st != BASALT_OK)
        return st;
    /* keep the names of the columns passed through */
    rel->node = p;
    rel->gids = gids;
    rel->n = n + 1;
    *out = n;
    return BASALT_OK;
}

/* Whether e is `a = b` with a over relations in `lhs` only and b over `rhs`
 * only (or the reverse): then *l and *r are those sides. */
static bool equi_op(struct binder *B, const struct bscope *s, const struct basalt_sql_expr *e,
                    enum basalt_sql_binary_op op, uint64_t lhs, uint64_t rhs,
                    const struct basalt_sql_expr **l, const struct basalt_sql_expr **r)
{
    if (e->kind != BASALT_SQL_EXPR_BINARY || e->u.binary.op != op)
        return false;
    uint64_t a = basalt_sql_refs(B, s, e->u.binary.left), b = basalt_sql_refs(B, s, e->u.binary.right);
    if (a == 0 || b == 0)
        return false;
    if ((a & ~lhs) == 0 && (b & ~rhs) == 0) {
        *l = e->u.binary.left;
        *r = e->u.binary.right;
        return true;
    }
    if ((b & ~lhs) == 0 && (a & ~rhs) == 0) {
        *l = e->u.binary.right;
        *r = e->u.binary.left;
        return true;
    }
    return false;
}

static bool equi(struct binder *B, const struct bscope *s, const struct basalt_sql_expr *e,
                 uint64_t lhs, uint64_t rhs, const struct basalt_sql_expr **l,
                 const struct basalt_sql_expr **r)
{
    return equi_op(B, s, e, BASALT_SQL_BINARY_EQ, lhs, rhs, l, r);
}

static int type_rank(struct basalt_query_type t)
{
    switch (t.id) {
    case BASALT_QUERY_TYPE_INT8: return 1;
    case BASALT_QUERY_TYPE_INT16: return 2;
    case BASALT_QUERY_TYPE_INT32: return 3;
    case BASALT_QUERY_TYPE_INT64: return 4;
    case BASALT_QUERY_TYPE_DECIMAL: return 5 + t.precision;
    case BASALT_QUERY_TYPE_FLOAT: return 50;
    case BASALT_QUERY_TYPE_DOUBLE: return 51;
    /* seconds below milliseconds below the finer units, as DuckDB's
     * TIMESTAMP_S and TIMESTAMP_MS meet TIMESTAMP in TIMESTAMP */
    case BASALT_QUERY_TYPE_TIMESTAMP:
        return t.coarse == BASALT_QUERY_TS_SECONDS ? 61 : t.coarse == BASALT_QUERY_TS_MILLIS ? 62 : 63;
    case BASALT_QUERY_TYPE_DATE: return 60;
    default: return 0;
    }
}

bool basalt_sql_wider(struct basalt_query_type a, struct basalt_query_type b)
{
    return type_rank(a) > type_rank(b);
}

static const char *format_of(const struct brel *rel, int col)
{
    return basalt_qplan_schema(rel->node)->children[col]->format;
}

/* The key columns of l (over left) and r (over right) in the given form;
 * keys of different types meet in the wider one. */
static basalt_status key_pair(struct binder *B, const struct bscope *scope, struct brel *left,
                              const struct basalt_sql_expr *l, struct brel *right,
                              const struct basalt_sql_expr *r, enum key_form form, int *lk,
                              int *rk, struct basalt_error *err)
{
    basalt_status st = key_column(B, scope, left, l, NULL, form, lk, err);
    if (st == BASALT_OK)
        st = key_column(B, scope, right, r, NULL, form, rk, err);
    if (st != BASALT_OK || strcmp(format_of(left, *lk), format_of(right, *rk)) == 0)
        return st;
    struct basalt_query_type lt, rt;
    st = basalt_query_type_from_format(format_of(left, *lk), &lt, err);
    if (st == BASALT_OK)
        st = basalt_query_type_from_format(format_of(right, *rk), &rt, err);
    if (st != BASALT_OK)
        return st;
    if (basalt_sql_wider(rt, lt))
        return key_column(B, scope, left, l, &rt, form, lk, err);
    return key_column(B, scope, right, r, &lt, form, rk, err);
}

/* `l IS NOT DISTINCT FROM r` as two pairs of keys that are never NULL
 * (key_form), so that NULL meets NULL in a hash join: a decorrelated
 * subquery's value is joined back this way to the outer rows whose columns
 * are NULL (bind_subquery_nonequal.c). *keyed false (nothing added) when
 * the values cannot be join keys. */
static basalt_status null_safe_keys(struct binder *B, const struct bscope *scope,
                                    struct brel *left, const struct basalt_sql_expr *l,
                                    struct brel *right, const struct basalt_sql_expr *r, int *lk,
                                    int *rk, bool *keyed, struct basalt_error *err)
{
    *keyed = false;
    /* the plain keys first, for their type (a column costs nothing) */
    basalt_status st = key_pair(B, scope, left, l, right, r, KEY_VALUE, lk, rk, err);
    struct basalt_query_type t;
    if (st == BASALT_OK)
        st = basalt_query_type_from_format(format_of(left, *lk), &t, err);
    if (st != BASALT_OK)
        return st;
    if (t.id == BASALT_QUERY_TYPE_INTERVAL)
        return BASALT_OK;
    st = key_pair(B, scope, left, l, right, r, KEY_IS_NULL, &lk[0], &rk[0], err);
    if (st == BASALT_OK)
        st = key_pair(B, scope, left, l, right, r, KEY_OR_ZERO, &lk[1], &rk[1], err);
    *keyed = st == BASALT_OK;
    return st;
}

/* An outer, semi or anti join's condition that reads only the side whose
 * rows are not kept for lack of a match (the right of LEFT, SEMI and ANTI,
 * the left of RIGHT) filters that side before the join: a row failing it
 * can match nothing either way. Filtered early, it reaches the scan and no
 * column it reads is carried through the join (TPC-H Q13's o_comment). A
 * FULL join keeps both sides, so nothing moves. */
static basalt_status push_to_inner_side(struct binder *B, const struct bscope *scope,
                                        enum basalt_qplan_join_type type, struct brel *left,
                                        uint64_t lmask, struct brel *right, uint64_t rmask,
                                        const struct basalt_sql_expr *const *conj, int n,
                                        bool *used, struct basalt_error *err)
{
    struct brel *inner = NULL;
    uint64_t inner_mask = 0;
    if (type == BASALT_QPLAN_JOIN_LEFT || type == BASALT_QPLAN_JOIN_SEMI ||
        type == BASALT_QPLAN_JOIN_ANTI) {
        inner = right;
        inner_mask = rmask;
    } else if (type == BASALT_QPLAN_JOIN_RIGHT) {
        inner = left;
        inner_mask = lmask;
    }
    if (inner == NULL || n == 0)
        return BASALT_OK;
    const struct basalt_sql_expr **moved = basalt_calloc((size_t)n, sizeof *moved);
    if (moved == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (used[i])
            continue;
        uint64_t m = basalt_sql_refs(B, scope, conj[i]);
        if (m != 0 && (m & ~inner_mask) == 0) {
            used[i] = true;
            moved[k++] = conj[i];
        }
    }
    basalt_status st = basalt_sql_filter(B, scope, inner, moved, k, "ON", err);
    basalt_free(moved);
    return st;
}

/* Whether e lowers over a join's two sides alone, as a join's residual:
 * no subquery (lowering one joins it onto the relation), nothing that only
 * a select list or an aggregate takes (the filter after the join reports
 * those as before). */
static bool lowers_in_join(const struct basalt_sql_expr *e)
{
    if (e == NULL)
        return true;
    switch (e->kind) {
    case BASALT_SQL_EXPR_SUBQUERY:
    case BASALT_SQL_EXPR_EXISTS:
    case BASALT_SQL_EXPR_IN_QUERY:
    case BASALT_SQL_EXPR_STAR:
    case BASALT_SQL_EXPR_LIST:
    case BASALT_SQL_EXPR_LAMBDA: return false;
    case BASALT_SQL_EXPR_UNARY: return lowers_in_join(e->u.unary.arg);
    case BASALT_SQL_EXPR_BINARY:
        return lowers_in_join(e->u.binary.left) && lowers_in_join(e->u.binary.right);
    case BASALT_SQL_EXPR_IS: return lowers_in_join(e->u.is.arg);
    case BASALT_SQL_EXPR_BETWEEN:
        return lowers_in_join(e->u.between.arg) && lowers_in_join(e->u.between.low) &&
               lowers_in_join(e->u.between.high);
    case BASALT_SQL_EXPR_IN_LIST:
        for (int i = 0; i < e->u.in_list.n_items; i++)
            if (!lowers_in_join(e->u.in_list.items[i]))
                return false;
        return lowers_in_join(e->u.in_list.arg);
    case BASALT_SQL_EXPR_LIKE:
        return lowers_in_join(e->u.like.arg) && lowers_in_join(e->u.like.pattern) &&
               lowers_in_join(e->u.like.escape);
    case BASALT_SQL_EXPR_CASE:
        for (int i = 0; i < e->u.case_.n_when; i++)
            if (!lowers_in_join(e->u.case_.when[i]) || !lowers_in_join(e->u.case_.then[i]))
                return false;
        return lowers_in_join(e->u.case_.operand) && lowers_in_join(e->u.case_.otherwise);
    case BASALT_SQL_EXPR_CAST: return lowers_in_join(e->u.cast.arg);
    case BASALT_SQL_EXPR_EXTRACT: return lowers_in_join(e->u.extract.arg);
    case BASALT_SQL_EXPR_FUNCTION: {
        const struct basalt_sql_call *c = &e->u.call;
        if (c->distinct || c->star || c->unpack || c->n_order > 0 || c->filter != NULL ||
            c->over != NULL || c->arg_names != NULL || c->name.name == NULL ||
            basalt_sql_is_aggregate(c->name.name))
            return false;
        for (int i = 0; i < c->n_args; i++)
            if (!lowers_in_join(c->args[i]))
                return false;
        return true;
    }
    default: return true; /* literals, columns */
    }
}

/* Moves the conditions of an inner join that lower over its sides alone to
 * the front of cond[0, n) (each part in its order); returns how many. */
static int inside_first(const struct basalt_sql_expr **cond, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!lowers_in_join(cond[i]))
            continue;
        const struct basalt_sql_expr *e = cond[i];
        memmove(cond + k + 1, cond + k, sizeof *cond * (size_t)(i - k));
        cond[k++] = e;
    }
    return k;
}

/* The conditions of an inner join that run after it, a filter on its
 * output; `after_inside`: others ran inside it, and took the first
 * condition's quarter of the estimate already. */
static basalt_status after_filter(struct binder *B, const struct bscope *scope, struct brel *rel,
                                  const struct basalt_sql_expr *const *cond, int n,
                                  bool after_inside, struct basalt_error *err)
{
    basalt_status st = basalt_sql_filter(B, scope, rel, cond, n, "WHERE", err);
    if (st == BASALT_OK && after_inside)
        rel->rows *= 2; /* half for each, not a quarter for the first */
    return st;
}

basalt_status basalt_sql_join_pair(struct binder *B, const struct bscope *scope,
                                   enum basalt_qplan_join_type type, struct brel *left,
                                   uint64_t lmask, struct brel *right, uint64_t rmask,
                                   const struct basalt_sql_expr *const *conj, int n, bool *used,
                                   struct brel *out, struct basalt_error *err)
{
    /* two keys for each IS NOT DISTINCT FROM */
    int *lk = basalt_calloc(2 * (size_t)n + 1, sizeof *lk), *rk = basalt_calloc(2 * (size_t)n + 1, sizeof *rk);
    const struct basalt_sql_expr **residual = basalt_calloc((size_t)n + 1, sizeof *residual);
    basalt_status st = lk && rk && residual ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int nk = 0, nr = 0;
    if (type == BASALT_QPLAN_JOIN_LEFT || type == BASALT_QPLAN_JOIN_RIGHT ||
        type == BASALT_QPLAN_JOIN_INNER) {
        /* The hash table is built from the right input: a join whose right
         * side is expected to be much the larger turns around (A LEFT JOIN
         * B is B RIGHT JOIN A; an inner join is symmetric), so the smaller
         * side is built and the larger probes. Columns are found by their
         * ids, so the swapped column order changes nothing above. (TPC-H
         * Q13: customer LEFT JOIN 1.5M orders builds the 150,000 customers;
         * Q11: Germany's 400 suppliers are built, 800,000 part-suppliers
         * probe.) */
        if (right->rows > 2 * left->rows) {
            struct brel *t = left;
            left = right;
            right = t;
            uint64_t m = lmask;
            lmask = rmask;
            rmask = m;
            if (type != BASALT_QPLAN_JOIN_INNER)
                type = type == BASALT_QPLAN_JOIN_LEFT ? BASALT_QPLAN_JOIN_RIGHT
                                                      : BASALT_QPLAN_JOIN_LEFT;
        }
    }
    if (st == BASALT_OK)
        st = push_to_inner_side(B, scope, type, left, lmask, right, rmask, conj, n, used, err);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        if (used[i])
            continue;
        uint64_t m = basalt_sql_refs(B, scope, conj[i]);
        if ((m & ~(lmask | rmask)) != 0)
            continue;
        const struct basalt_sql_expr *l, *r;
        used[i] = true;
        if (type != BASALT_QPLAN_JOIN_CROSS && equi(B, scope, conj[i], lmask, rmask, &l, &r)) {
            st = key_pair(B, scope, left, l, right, r, KEY_VALUE, &lk[nk], &rk[nk], err);
            nk++;
        } else if (type != BASALT_QPLAN_JOIN_CROSS &&
                   equi_op(B, scope, conj[i], BASALT_SQL_BINARY_IS_NOT_DISTINCT, lmask, rmask, &l,
                           &r)) {
            /* two keys, unless the type is no join key (INTERVAL) */
            bool keyed = false;
            st = null_safe_keys(B, scope, left, l, right, r, lk + nk, rk + nk, &keyed, err);
            if (keyed)
                nk += 2;
            else
                residual[nr++] = conj[i];
        } else {
            residual[nr++] = conj[i];
        }
    }
    if (st == BASALT_OK && nk == 0 && type == BASALT_QPLAN_JOIN_INNER)
        type = BASALT_QPLAN_JOIN_CROSS;
    if (st == BASALT_OK && nk == 0 && type != BASALT_QPLAN_JOIN_CROSS)
        st = basalt_error_set(err, BASALT_UNSUPPORTED,
                              "outer, semi and anti joins need an equality condition");
    struct brel both;
    memset(&both, 0, sizeof both); /* table_rows false: a join's size is a guess */
    struct basalt_qexpr *res = NULL;
    bool outer = type != BASALT_QPLAN_JOIN_INNER && type != BASALT_QPLAN_JOIN_CROSS;
    /* An outer join's extra conditions decide matches; an inner join's
     * drop pairs, and run inside it too, so that the pairs they drop are
     * never gathered whole (those with subqueries, which add to the plan
     * of a relation, filter the join's output instead): residual[0, n_in)
     * go inside, the rest after. */
    int n_in = nr;
    if (!outer)
        n_in = inside_first(residual, nr);
    if (st == BASALT_OK && n_in > 0) {
        struct basalt_qexpr_builder *jb;
        st = basalt_qplan_join_builder(B->ctx, left->node, right->node, &jb, err);
        struct brel view;
        memset(&view, 0, sizeof view);
        view.n = left->n + right->n;
        view.gids = basalt_arena_alloc(&B->arena, sizeof *view.gids * (size_t)(view.n + 1), 8);
        if (st == BASALT_OK && view.gids == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (st == BASALT_OK) {
            memcpy(view.gids, left->gids, sizeof *view.gids * (size_t)left->n);
            memcpy(view.gids + left->n, right->gids, sizeof *view.gids * (size_t)right->n);
        }
        /* an inner join's conditions may come from WHERE: errors name it as
         * the filter they replace did */
        struct blower L = {B, scope, &view, jb, NULL, 0, outer ? "ON" : "WHERE"};
        struct basalt_qexpr **parts = basalt_calloc((size_t)n_in, sizeof *parts);
        if (st == BASALT_OK && parts == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < n_in && st == BASALT_OK; i++)
            st = basalt_sql_lower(&L, residual[i], &parts[i], err);
        res = parts ? parts[0] : NULL;
        if (st == BASALT_OK && n_in > 1)
            st = basalt_qexpr_and(jb, parts, n_in, &res, err);
        basalt_free(parts);
    }
    struct basalt_qplan *j = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_join(B->ctx, type, left->node, right->node, lk, rk, nk, res, &j, err);
    /* A SEMI or ANTI join whose right side, a table (filtered at most), is
     * expected to be over twice its left builds on the left and lets the
     * right probe (TPC-H Q22: 19,000 customers built, 1.5M orders probing,
     * instead of the other way). Not after an aggregate or a join, whose
     * sizes are guesses: Q18's 57 orders of over 300 items were taken for
     * millions, and its 1.5M orders built. */
    if (st == BASALT_OK && nk > 0 && res == NULL && right->table_rows &&
        right->rows > 2 * left->rows &&
        (type == BASALT_QPLAN_JOIN_SEMI || type == BASALT_QPLAN_JOIN_ANTI))
        st = basalt_qplan_join_build_left(j, err);
    if (st == BASALT_OK) {
        bool right_cols = type != BASALT_QPLAN_JOIN_SEMI && type != BASALT_QPLAN_JOIN_ANTI;
        both.node = j;
        both.n = left->n + (right_cols ? right->n : 0);
        both.gids = basalt_arena_alloc(&B->arena, sizeof *both.gids * (size_t)(both.n + 1), 8);
        if (both.gids == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK) {
        memcpy(both.gids, left->gids, sizeof *both.gids * (size_t)left->n);
        if (both.n > left->n)
            memcpy(both.gids + left->n, right->gids, sizeof *both.gids * (size_t)right->n);
        both.rows = nk > 0 ? (left->rows > right->rows ? left->rows : right->rows)
                           : left->rows * right->rows;
        if (type == BASALT_QPLAN_JOIN_SEMI || type == BASALT_QPLAN_JOIN_ANTI)
            both.rows = left->rows;
        /* the estimate of the filter the conditions were before: a quarter
         * for the first, half for each further one */
        if (!outer && n_in > 0)
            both.rows *= 0.25;
        for (int i = 1; i < n_in && !outer; i++)
            both.rows *= 0.5;
        *out = both;
        /* Conditions of an inner join that cannot run inside it filter its
         * output (the estimate goes on from the rows above). */
        if (nr > n_in && !outer)
            st = after_filter(B, scope, out, residual + n_in, nr - n_in, n_in > 0, err);
    }
    basalt_free(lk);
    basalt_free(rk);
    basalt_free(residual);
    return st;
}

/* The distinct values of a join key side: the column's bound when it is a
 * base column with one, else the rows of its side (a key). */
static double key_ndv(struct binder *B, const struct bscope *scope, const struct basalt_sql_expr *e,
                      double side_rows)
{
    if (e->kind != BASALT_SQL_EXPR_COLUMN)
        return side_rows;
    const struct bcol *c;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_resolve(B, scope, &e->u.column, e->pos, &c, &ignore) != BASALT_OK)
        return side_rows;
    int64_t n = basalt_sql_ndv(B, c->gid);
    return n > 0 && (double)n < side_rows ? (double)n : side_rows;
}

/* |L join R| for one equality, as |L| |R| / max(ndv(l), ndv(r)). */
static double join_estimate(struct binder *B, const struct bscope *scope, double lrows,
                            double rrows, const struct basalt_sql_expr *l,
                            const struct basalt_sql_expr *r)
{
    double dl = key_ndv(B, scope, l, lrows), dr = key_ndv(B, scope, r, rrows);
    double d = dl > dr ? dl : dr;
    return lrows * rrows / (d > 1 ? d : 1);
}

/* The relation to join next to `in` (acc_rows rows): the connected one
 * whose join is expected to give the fewest rows (a join on a key of either
 * side keeps about the size of the other; on a column of few values it
 * multiplies), else the smallest product. *rows: the estimate. */
static int next_relation(struct binder *B, const struct bscope *scope, const struct brel *rels,
                         int n_rels, const struct basalt_sql_expr *const *conj, int n_conj,
                         const bool *used, uint64_t in, uint64_t skip, double acc_rows,
                         double *rows_out)
{
    int best = -1;
    bool best_connected = false;
    double best_rows = 0;
    for (int r = 0; r < n_rels; r++) {
        if ((in | skip) & ((uint64_t)1 << r))
            continue;
        double rows = -1;
        for (int i = 0; i < n_conj; i++) {
            const struct basalt_sql_expr *l, *rr;
            if (used[i] || !equi(B, scope, conj[i], in, (uint64_t)1 << r, &l, &rr))
                continue;
            double e = join_estimate(B, scope, acc_rows, rels[r].rows, l, rr);
            if (rows < 0 || e < rows)
                rows = e;
        }
        bool connected = rows >= 0;
        if (!connected)
            rows = acc_rows * rels[r].rows;
        if (best < 0 || (connected && !best_connected) ||
            (connected == best_connected && rows < best_rows)) {
            best = r;
            best_connected = connected;
            best_rows = rows;
        }
    }
    *rows_out = best_rows > 1 ? best_rows : 1;
    return best;
}

/* The rows every join of the greedy order from `start` is expected to give,
 * summed: what the joins build, probe and pass up. */
static double order_cost(struct binder *B, const struct bscope *scope, const struct brel *rels,
                         int n_rels, const struct basalt_sql_expr *const *conj, int n_conj,
                         const bool *used, uint64_t skip, int start)
{
    uint64_t in = (uint64_t)1 << start;
    double rows = rels[start].rows, cost = 0;
    for (int k = 1 + __builtin_popcountll(skip); k < n_rels; k++) {
        int r = next_relation(B, scope, rels, n_rels, conj, n_conj, used, in, skip, rows, &rows);
        in |= (uint64_t)1 << r;
        cost += rows;
    }
    return cost;
}

/* A LATERAL over an aggregate without GROUP BY, LEFT joined onto acc (the
 * relations `in`) on its correlation equalities only; the FROM's other
 * conditions that read it stay unused, to filter the result. */
static basalt_status left_join_late(struct binder *B, const struct bscope *scope, struct brel *acc,
                                    uint64_t *in, struct brel *late, int r,
                                    const struct basalt_sql_expr *const *conj, int n_conj,
                                    bool *used, struct basalt_error *err)
{
    bool *on_used = basalt_calloc((size_t)late->n_left_on + 1, sizeof *on_used);
    if (on_used == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct brel joined;
    basalt_status st = basalt_sql_join_pair(B, scope, BASALT_QPLAN_JOIN_LEFT, acc, *in, late,
                                            (uint64_t)1 << r, late->left_on, late->n_left_on,
                                            on_used, &joined, err);
    basalt_free(on_used);
    for (int i = 0; i < n_conj; i++)
        for (int k = 0; k < late->n_left_on; k++)
            used[i] |= conj[i] == late->left_on[k];
    if (st == BASALT_OK) {
        joined.rows = acc->rows;
        st = basalt_sql_empty_rows(B, &joined, late->key_gid, late->empty, late->n_empty, err);
    }
    if (st == BASALT_OK)
        *acc = joined;
    *in |= (uint64_t)1 << r;
    return st;
}

/* Relations in a FROM list beyond which only the largest is tried as the
 * start of the greedy order (each try costs n^2 estimates). */
#define JOIN_START_TRIES 12
/* Another start is tried when the largest relation has at least this many
 * times its rows. */
#define JOIN_START_SMALL 16

basalt_status basalt_sql_plan_joins(struct binder *B, const struct bscope *scope,
                                    struct brel *rels, int n_rels,
                                    const struct basalt_sql_expr *const *conj, int n_conj,
                                    struct brel *out, struct basalt_error *err)
{
    bool *used = basalt_calloc((size_t)n_conj + 1, sizeof *used);
    uint64_t *masks = basalt_calloc((size_t)n_conj + 1, sizeof *masks);
    const struct basalt_sql_expr **one = basalt_calloc((size_t)n_conj + 1, sizeof *one);
    basalt_status st = used && masks && one ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK && n_rels > 64)
        st = basalt_error_set(err, BASALT_LIMIT, "more than 64 tables in one FROM");
    for (int i = 0; i < n_conj && st == BASALT_OK; i++)
        masks[i] = basalt_sql_refs(B, scope, conj[i]);
    /* LATERALs LEFT joined after the others (when there are others): a
     * condition on them alone filters after that join, not before. */
    uint64_t late = 0;
    for (int r = 0; r < n_rels && r < 64; r++)
        if (rels[r].left_on != NULL)
            late |= (uint64_t)1 << r;
    uint64_t all = n_rels == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n_rels) - 1);
    if (late == all)
        late = 0;
    /* Filters on single relations first. */
    for (int r = 0; r < n_rels && st == BASALT_OK; r++) {
        if (late & ((uint64_t)1 << r))
            continue;
        int k = 0;
        for (int i = 0; i < n_conj; i++)
            if (!used[i] && masks[i] == ((uint64_t)1 << r)) {
                one[k++] = conj[i];
                used[i] = true;
            }
        st = basalt_sql_filter(B, scope, &rels[r], one, k, "WHERE", err);
    }
    /* The start: the largest relation (the probe side, which streams),
     * unless starting elsewhere is expected to pass at most half the rows
     * through the joins (TPC-H Q11: the one German nation, then its
     * suppliers, then their part-suppliers, instead of every part-supplier
     * joined to its supplier first); join_pair then builds the smaller
     * side. */
    int cur = -1;
    for (int r = 0; r < n_rels; r++)
        if (!(late & ((uint64_t)1 << r)) && (cur < 0 || rels[r].rows > rels[cur].rows))
            cur = r;
    if (cur < 0)
        cur = 0;
    if (st == BASALT_OK && n_rels > 2 && n_rels <= JOIN_START_TRIES) {
        int largest = cur;
        double best = order_cost(B, scope, rels, n_rels, conj, n_conj, used, late, cur);
        for (int r = 0; r < n_rels; r++) {
            if (late & ((uint64_t)1 << r))
                continue;
            /* Only small starts: from one of medium size the estimates
             * (bounds of distinct values) can hide that its first join
             * keeps a large relation whole (TPC-H Q9 from its 1.5M orders
             * joined 6M lineitems before the 1/20 of parts that match). */
            if (r == cur || rels[r].rows * JOIN_START_SMALL > rels[largest].rows)
                continue;
            double c = order_cost(B, scope, rels, n_rels, conj, n_conj, used, late, r);
            if (c <= best / 2) {
                best = c;
                cur = r;
            }
        }
    }
    struct brel acc = rels[cur];
    uint64_t in = (uint64_t)1 << cur;
    while (st == BASALT_OK && (in | late) != all) {
        double rows;
        int best = next_relation(B, scope, rels, n_rels, conj, n_conj, used, in, late, acc.rows, &rows);
        st = basalt_sql_join_pair(B, scope, BASALT_QPLAN_JOIN_INNER, &acc, in, &rels[best],
                                  (uint64_t)1 << best, conj, n_conj, used, &acc, err);
        if (st == BASALT_OK)
            acc.rows = rows;
        in |= (uint64_t)1 << best;
    }
    for (int r = 0; r < n_rels && st == BASALT_OK; r++)
        if (late & ((uint64_t)1 << r))
            st = left_join_late(B, scope, &acc, &in, &rels[r], r, conj, n_conj, used, err);
    /* What is left (constant conditions) filters the result. */
    int k = 0;
    for (int i = 0; i < n_conj && st == BASALT_OK; i++)
        if (!used[i])
            one[k++] = conj[i];
    if (st == BASALT_OK)
        st = basalt_sql_filter(B, scope, &acc, one, k, "WHERE", err);
    /* a LATERAL alone here is LEFT joined by the FROM around it (LEFT
     * JOIN LATERAL), which reads its `empty`; nothing is late above */
    acc.left_on = NULL;
    acc.n_left_on = 0;
    if (st == BASALT_OK)
        *out = acc;
    basalt_free(used);
    basalt_free(masks);
    basalt_free(one);
    return st;
}
