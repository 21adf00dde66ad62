/* DISTINCT aggregates without GROUP BY, in two grouped steps.
 *
 *   SELECT count(DISTINCT x), sum(y) FROM t WHERE c
 *
 * is bound as
 *
 *   SELECT count(__d), sum(__p1)
 *   FROM (SELECT x AS __d, sum(y) AS __p1 FROM t WHERE c GROUP BY x) __dq
 *
 * The inner GROUP BY is the hash aggregation, partitioned and parallel and
 * spilling under the memory limit, where a DISTINCT aggregate of one group
 * would keep every value of the whole input in memory (and fail past the
 * limit). Each distinct value is one inner row, so the DISTINCT aggregates
 * become plain ones over __d; the other aggregates are computed per inner
 * group and combined: count(*) and count(y) as the sum of the counts (0
 * over no rows, BIGINT as before), sum, min and max as themselves. It
 * applies when every DISTINCT aggregate (count, sum, avg, min, max) reads
 * the same argument, the others are among those, none has FILTER or ORDER
 * BY, and no subquery or window function is involved; output names are
 * kept. DuckDB answers the same way. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bind/bind_internal.h"

enum { MAX_CALLS = 64 };

struct calls {
    struct binder *B;
    const struct basalt_sql_expr *call[MAX_CALLS];
    const char *text[MAX_CALLS];
    int n;
    const char *distinct_text; /* the DISTINCT argument's */
    const struct basalt_sql_expr *distinct_arg;
    bool ok;
};

static bool named(const struct basalt_sql_expr *e, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strcasecmp(e->u.call.name.name, names[i]) == 0)
            return true;
    return false;
}

static const char *const split_distinct[] = {"count", "sum", "avg", "min", "max", NULL};
static const char *const split_plain[] = {"count", "sum", "min", "max", NULL};

static enum basalt_sql_replace collect(void *ctx, const struct basalt_sql_expr *e,
                                       struct basalt_sql_expr **out)
{
    struct calls *C = ctx;
    (void)out;
    if (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS ||
        e->kind == BASALT_SQL_EXPR_IN_QUERY || e->kind == BASALT_SQL_EXPR_STAR) {
        C->ok = false;
        return BASALT_SQL_KEEP;
    }
    if (e->kind != BASALT_SQL_EXPR_FUNCTION)
        return BASALT_SQL_DESCEND;
    const struct basalt_sql_call *c = &e->u.call;
    if (c->over != NULL) {
        C->ok = false;
        return BASALT_SQL_KEEP;
    }
    if (!basalt_sql_is_aggregate(c->name.name))
        return BASALT_SQL_DESCEND;
    if (c->filter != NULL || c->n_order > 0 || (!c->star && c->n_args != 1) ||
        !named(e, c->distinct ? split_distinct : split_plain)) {
        C->ok = false;
        return BASALT_SQL_KEEP;
    }
    const char *text = basalt_sql_text(C->B, e);
    if (text == NULL) {
        C->ok = false;
        return BASALT_SQL_KEEP;
    }
    if (c->distinct) {
        const char *arg = basalt_sql_text(C->B, c->args[0]);
        if (arg == NULL || (C->distinct_text != NULL && strcmp(arg, C->distinct_text) != 0)) {
            C->ok = false;
            return BASALT_SQL_KEEP;
        }
        C->distinct_text = arg;
        C->distinct_arg = c->args[0];
    }
    for (int i = 0; i < C->n; i++)
        if (strcmp(C->text[i], text) == 0)
            return BASALT_SQL_KEEP;
    if (C->n == MAX_CALLS) {
        C->ok = false;
        return BASALT_SQL_KEEP;
    }
    C->call[C->n] = e;
    C->text[C->n++] = text;
    return BASALT_SQL_KEEP;
}

/* ------------------------------------------------------------ new nodes */

static void *node(struct binder *B, size_t size)
{
    void *p = basalt_arena_alloc(&B->arena, size, 8);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

/* __pK: the inner column of collected call k. */
static const char *partial_name(struct binder *B, int k)
{
    char buf[32];
    snprintf(buf, sizeof buf, "__p%d", k);
    return basalt_arena_strndup(&B->arena, buf, strlen(buf));
}

/* name(arg) with call's position; distinct cleared. */
static struct basalt_sql_expr *call1(struct binder *B, const struct basalt_sql_expr *like,
                                     const char *name, struct basalt_sql_expr *arg)
{
    struct basalt_sql_expr *e = node(B, sizeof *e);
    struct basalt_sql_expr **args = node(B, sizeof *args * 2);
    if (e == NULL || args == NULL || arg == NULL)
        return NULL;
    e->kind = BASALT_SQL_EXPR_FUNCTION;
    e->pos = like->pos;
    e->height = arg->height + 1;
    e->u.call.name.name = name;
    e->u.call.n_args = 1;
    e->u.call.args = args;
    args[0] = arg;
    return e;
}

/* coalesce(CAST(sum(p) AS BIGINT), 0): a count from counts per group. */
static struct basalt_sql_expr *count_of_counts(struct binder *B, const struct basalt_sql_expr *like,
                                               struct basalt_sql_expr *p)
{
    struct basalt_sql_expr *sum = call1(B, like, "sum", p);
    struct basalt_sql_expr *cast = node(B, sizeof *cast), *zero = basalt_sql_ast_integer(B, 0, like->pos);
    struct basalt_sql_expr *co = node(B, sizeof *co);
    struct basalt_sql_expr **args = node(B, sizeof *args * 2);
    if (sum == NULL || cast == NULL || zero == NULL || co == NULL || args == NULL)
        return NULL;
    cast->kind = BASALT_SQL_EXPR_CAST;
    cast->pos = like->pos;
    cast->height = sum->height + 1;
    cast->u.cast.arg = sum;
    cast->u.cast.type.id = BASALT_SQL_TYPE_BIGINT;
    cast->u.cast.type.name = "BIGINT";
    co->kind = BASALT_SQL_EXPR_FUNCTION;
    co->pos = like->pos;
    co->height = cast->height + 1;
    co->u.call.name.name = "coalesce";
    co->u.call.n_args = 2;
    co->u.call.args = args;
    args[0] = cast;
    args[1] = zero;
    return co;
}

/* What each collected call becomes over the inner query's columns. */
struct outer_calls {
    struct calls *C;
    struct basalt_sql_expr *with[MAX_CALLS];
};

static enum basalt_sql_replace to_outer(void *ctx, const struct basalt_sql_expr *e,
                                        struct basalt_sql_expr **out)
{
    struct outer_calls *O = ctx;
    if (e->kind != BASALT_SQL_EXPR_FUNCTION || e->u.call.over != NULL ||
        !basalt_sql_is_aggregate(e->u.call.name.name))
        return BASALT_SQL_DESCEND;
    const char *text = basalt_sql_text(O->C->B, e);
    for (int i = 0; text != NULL && i < O->C->n; i++)
        if (strcmp(O->C->text[i], text) == 0) {
            *out = O->with[i];
            return BASALT_SQL_REPLACE;
        }
    return BASALT_SQL_KEEP; /* not reached: every call was collected */
}

/* The split query, or NULL when q is not one to split (or out of memory:
 * then q binds as it is). */
const struct basalt_sql_query *basalt_sql_split_distinct(struct binder *B,
                                                         const struct basalt_sql_query *q)
{
    if (q->kind != BASALT_SQL_QUERY_SELECT)
        return NULL;
    const struct basalt_sql_select *s = &q->u.select;
    if (s->from == NULL || s->n_group > 0 || s->n_grouping > 0 || s->group_all || s->qualify != NULL ||
        s->n_windows > 0)
        return NULL;
    struct calls C;
    memset(&C, 0, sizeof C);
    C.B = B;
    C.ok = true;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    const struct basalt_sql_expr *same;
    for (int i = 0; i < s->n_items && C.ok; i++)
        if (basalt_sql_ast_replace(B, s->items[i].expr, collect, &C, &same, &ignore) != BASALT_OK)
            return NULL;
    if (C.ok && s->having != NULL &&
        basalt_sql_ast_replace(B, s->having, collect, &C, &same, &ignore) != BASALT_OK)
        return NULL;
    for (int i = 0; i < q->n_order && C.ok; i++)
        if (q->order[i].expr != NULL &&
            basalt_sql_ast_replace(B, q->order[i].expr, collect, &C, &same, &ignore) != BASALT_OK)
            return NULL;
    if (!C.ok || C.distinct_arg == NULL)
        return NULL;

    /* SELECT arg AS __d, plain calls AS __pK FROM ... WHERE ... GROUP BY arg */
    struct basalt_sql_select_item *in_items = node(B, sizeof *in_items * (size_t)(C.n + 1));
    struct basalt_sql_expr **group = node(B, sizeof *group);
    struct basalt_sql_query *in = node(B, sizeof *in);
    struct basalt_sql_from *from = node(B, sizeof *from);
    struct basalt_sql_query *out = node(B, sizeof *out);
    struct outer_calls O;
    memset(&O, 0, sizeof O);
    O.C = &C;
    if (in_items == NULL || group == NULL || in == NULL || from == NULL || out == NULL)
        return NULL;
    int n_in = 0;
    in_items[n_in].expr = basalt_sql_ast_shared(C.distinct_arg);
    in_items[n_in++].alias.name = "__d";
    for (int i = 0; i < C.n; i++) {
        const struct basalt_sql_expr *c = C.call[i];
        const char *fn = c->u.call.name.name;
        if (c->u.call.distinct) {
            O.with[i] = call1(B, c, fn, basalt_sql_ast_column(B, NULL, "__d", c->pos));
        } else {
            const char *p = partial_name(B, i);
            in_items[n_in].expr = basalt_sql_ast_shared(c);
            in_items[n_in++].alias.name = p;
            O.with[i] = strcasecmp(fn, "count") == 0 ? count_of_counts(B, c, basalt_sql_ast_column(B, NULL, p, c->pos))
                                                     : call1(B, c, fn, basalt_sql_ast_column(B, NULL, p, c->pos));
        }
        if (O.with[i] == NULL)
            return NULL;
    }
    group[0] = basalt_sql_ast_shared(C.distinct_arg);
    in->kind = BASALT_SQL_QUERY_SELECT;
    in->pos = q->pos;
    in->height = q->height + 1;
    in->u.select.n_items = n_in;
    in->u.select.items = in_items;
    in->u.select.from = s->from;
    in->u.select.where = s->where;
    in->u.select.n_group = 1;
    in->u.select.group = group;
    from->kind = BASALT_SQL_FROM_SUBQUERY;
    from->pos = s->from->pos;
    from->height = in->height + 1;
    from->u.subquery = in;
    from->alias.name = "__dq";

    /* The select list, HAVING and ORDER BY over it, names kept. */
    struct basalt_sql_select_item *items = node(B, sizeof *items * (size_t)s->n_items);
    struct basalt_sql_order_item *order = node(B, sizeof *order * (size_t)(q->n_order + 1));
    if (items == NULL || order == NULL)
        return NULL;
    for (int i = 0; i < s->n_items; i++) {
        const struct basalt_sql_expr *x;
        if (basalt_sql_ast_replace(B, s->items[i].expr, to_outer, &O, &x, &ignore) != BASALT_OK)
            return NULL;
        items[i].expr = basalt_sql_ast_shared(x);
        items[i].alias = s->items[i].alias;
        items[i].alias.name = basalt_sql_item_name(B, &s->items[i]);
        if (items[i].alias.name == NULL)
            return NULL;
    }
    const struct basalt_sql_expr *having = NULL;
    if (s->having != NULL &&
        basalt_sql_ast_replace(B, s->having, to_outer, &O, &having, &ignore) != BASALT_OK)
        return NULL;
    for (int i = 0; i < q->n_order; i++) {
        order[i] = q->order[i];
        if (q->order[i].expr != NULL) {
            const struct basalt_sql_expr *x;
            if (basalt_sql_ast_replace(B, q->order[i].expr, to_outer, &O, &x, &ignore) != BASALT_OK)
                return NULL;
            order[i].expr = basalt_sql_ast_shared(x);
        }
    }
    *out = *q;
    out->n_ctes = 0; /* in scope already */
    out->ctes = NULL;
    out->order = order;
    out->u.select = *s;
    out->u.select.items = items;
    out->u.select.from = from;
    out->u.select.where = NULL;
    out->u.select.having = basalt_sql_ast_shared(having);
    return out;
}
