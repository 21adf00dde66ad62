/* A correlated subquery whose correlation is not only equalities between
 * inner and outer expressions, planned once for all outer rows:
 *
 *   SELECT id, (SELECT count(*) FROM u WHERE u.x > t.x) FROM t
 *
 * is computed for D, the distinct values of the outer columns it reads,
 * and joined back to the outer rows on them:
 *
 *   D  = SELECT DISTINCT t.x AS __k0 FROM (t's FROM) WHERE (t's own conditions)
 *   __sq = SELECT __d.__k0, count(*) AS __v, count(*) AS __m
 *          FROM D AS __d, u WHERE u.x > __d.__k0 GROUP BY __d.__k0
 *   t LEFT JOIN __sq ON t.x IS NOT DISTINCT FROM __sq.__k0
 *
 * Every outer column the subquery reads (in WHERE, its select list, ORDER
 * BY) becomes a column of D, so the subquery reads D instead of the outer
 * query and is keyed by D's columns as a subquery correlated by equalities
 * is keyed by their inner sides (bind_subquery.c does the rest: grouping,
 * the LEFT join, the value over no rows, the one-row check). Its own
 * conditions and the correlated ones are all its WHERE over D joined with
 * its FROM: equalities among them are that join's keys, the rest its
 * filter (a cross join with a filter when there is no equality, quadratic
 * as in DuckDB, but once per distinct outer value). NULL outer values are
 * values of D like others (a condition such as `u.x > t.x OR u.y > 0`
 * still holds for some rows there), hence the join back with IS NOT
 * DISTINCT FROM, two hash keys per column (bind_join.c).
 *
 * D binds the outer FROM again with the outer WHERE's conjuncts that read
 * only its columns and hold no subquery (nor a LATERAL's keys, which the
 * FROM joins on itself): at least the values of the outer rows that reach
 * the subquery (those that pass the rest are a subset), which is all the
 * join back needs. The FROM is read twice, as the
 * narrowing of bind_narrow.c reads a table twice. */
#include <stdio.h>
#include <string.h>

#include "bind/bind_internal.h"

enum { MAX_OUTER_COLUMNS = 64 };

static void *node(struct binder *B, size_t size)
{
    void *p = basalt_arena_alloc(&B->arena, size, 8);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

/* The outer columns met so far and the alias of D. */
struct gather {
    struct binder *B;
    const struct bscope *inner, *outer;
    const char *alias;
    int32_t gids[MAX_OUTER_COLUMNS];
    const struct basalt_sql_expr *first[MAX_OUTER_COLUMNS];
    int n;
    bool too_many;
    /* while rewriting ORDER BY, GROUP BY and HAVING: names of its items
     * are the items (NULL elsewhere) */
    const struct basalt_sql_select *aliases;
};

/* The column of the outer query's own scope that c names (not the
 * subquery's, which shadows it), or NULL. */
static const struct bcol *outer_column(struct binder *B, const struct bscope *inner,
                                       const struct bscope *outer, const struct basalt_sql_expr *c)
{
    const struct bcol *col;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (inner != NULL && basalt_sql_resolve(B, inner, &c->u.column, c->pos, &col, &ignore) == BASALT_OK)
        return NULL;
    if (basalt_sql_resolve(B, outer, &c->u.column, c->pos, &col, &ignore) != BASALT_OK ||
        col < outer->cols || col >= outer->cols + outer->n)
        return NULL;
    return col;
}

/* An outer column becomes D's column __kX (the same X for every way it is
 * written); the subquery's own columns stay. */
static enum basalt_sql_replace to_d(void *ctx, const struct basalt_sql_expr *e,
                                    struct basalt_sql_expr **out)
{
    struct gather *g = ctx;
    if (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS ||
        e->kind == BASALT_SQL_EXPR_IN_QUERY)
        return BASALT_SQL_KEEP;
    if (e->kind != BASALT_SQL_EXPR_COLUMN)
        return BASALT_SQL_DESCEND;
    if (basalt_sql_names_item(g->aliases, e))
        return BASALT_SQL_KEEP;
    const struct bcol *col = outer_column(g->B, g->inner, g->outer, e);
    if (col == NULL)
        return BASALT_SQL_KEEP;
    int x = 0;
    while (x < g->n && g->gids[x] != col->gid)
        x++;
    if (x == g->n) {
        if (g->n == MAX_OUTER_COLUMNS) {
            g->too_many = true;
            return BASALT_SQL_KEEP;
        }
        g->gids[g->n] = col->gid;
        g->first[g->n++] = e;
    }
    char name[32];
    snprintf(name, sizeof name, "__k%d", x);
    const char *copy = basalt_arena_strndup(&g->B->arena, name, strlen(name));
    *out = copy == NULL ? NULL : basalt_sql_ast_column(g->B, g->alias, copy, e->pos);
    return *out != NULL ? BASALT_SQL_REPLACE : BASALT_SQL_KEEP;
}

static basalt_status over_d(struct gather *g, const struct basalt_sql_expr *e,
                            struct basalt_sql_expr **out, struct basalt_error *err)
{
    const struct basalt_sql_expr *r = NULL;
    basalt_status st = e == NULL ? BASALT_OK : basalt_sql_ast_replace(g->B, e, to_d, g, &r, err);
    *out = basalt_sql_ast_shared(r);
    return st;
}

/* Whether every column e reads is one of the outer query's own (checked
 * through the same walk, replacing nothing). */
struct own_only {
    struct binder *B;
    const struct bscope *outer;
    bool own;
};

static enum basalt_sql_replace check_own(void *ctx, const struct basalt_sql_expr *e,
                                         struct basalt_sql_expr **out)
{
    (void)out;
    struct own_only *o = ctx;
    if (e->kind != BASALT_SQL_EXPR_COLUMN)
        return BASALT_SQL_DESCEND;
    /* a LATERAL's key is joined on by the FROM itself, as an outer join
     * where it is over an aggregate: not a condition to filter on */
    const struct bcol *col = outer_column(o->B, NULL, o->outer, e);
    if (col == NULL || col->internal)
        o->own = false;
    return BASALT_SQL_KEEP;
}

/* SELECT DISTINCT <the outer columns> AS __k0... FROM <the outer FROM>
 * WHERE <its conjuncts over its own columns, without subqueries>. */
static basalt_status distinct_outer(struct binder *B, const struct bscope *outer,
                                    const struct bouter *from, const struct gather *g, int32_t pos,
                                    struct basalt_sql_query **out, struct basalt_error *err)
{
    struct basalt_sql_query *d = node(B, sizeof *d);
    struct basalt_sql_select_item *items = node(B, sizeof *items * (size_t)g->n);
    if (d == NULL || items == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int x = 0; x < g->n; x++) {
        char name[32];
        snprintf(name, sizeof name, "__k%d", x);
        items[x].expr = basalt_sql_ast_shared(g->first[x]);
        items[x].alias.name = basalt_arena_strndup(&B->arena, name, strlen(name));
        if (items[x].alias.name == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    struct basalt_sql_expr *where = NULL;
    int32_t height = from->whole->height;
    for (int i = 0; i < from->nc; i++) {
        const struct basalt_sql_expr *c = from->conj[i];
        if (basalt_sql_has_subquery(c) || c->kind == BASALT_SQL_EXPR_IN_QUERY)
            continue;
        struct own_only o = {B, outer, true};
        const struct basalt_sql_expr *same;
        basalt_status st = basalt_sql_ast_replace(B, c, check_own, &o, &same, err);
        if (st != BASALT_OK)
            return st;
        if (!o.own)
            continue;
        where = where == NULL ? basalt_sql_ast_shared(c)
                              : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, where,
                                                      basalt_sql_ast_shared(c));
        if (where == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (where->height > height)
            height = where->height;
    }
    d->kind = BASALT_SQL_QUERY_SELECT;
    d->pos = pos;
    d->height = height + 2;
    d->u.select.distinct = true;
    d->u.select.n_items = g->n;
    d->u.select.items = items;
    d->u.select.from = (struct basalt_sql_from *)(uintptr_t)from->whole;
    d->u.select.where = where;
    *out = d;
    return BASALT_OK;
}

static int32_t max_height(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

basalt_status basalt_sql_nonequal(struct binder *B, const struct bscope *outer,
                                  const struct bouter *from, const struct basalt_sql_query *q,
                                  const struct bsplit *s, struct bnonequal *out,
                                  struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    const struct basalt_sql_select *sel = &q->u.select;
    char alias[32];
    snprintf(alias, sizeof alias, "__d%d", (int)B->next_gid);
    struct gather *g = node(B, sizeof *g);
    if (g == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    g->B = B;
    g->inner = &s->in;
    g->outer = outer;
    g->alias = basalt_arena_strndup(&B->arena, alias, strlen(alias));
    /* the subquery over D: WHERE (its own conditions, then the correlated
     * ones), select list and ORDER BY read D's columns */
    struct basalt_sql_query *r = node(B, sizeof *r);
    struct basalt_sql_select_item *items = node(B, sizeof *items * (size_t)(sel->n_items + 1));
    struct basalt_sql_order_item *order = node(B, sizeof *order * (size_t)(q->n_order + 1));
    if (g->alias == NULL || r == NULL || items == NULL || order == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    struct basalt_sql_expr *where = NULL;
    for (int k = 0; k < s->n_inner + s->n_corr && st == BASALT_OK; k++) {
        struct basalt_sql_expr *c;
        st = over_d(g, k < s->n_inner ? s->inner[k] : s->corr[k - s->n_inner], &c, err);
        if (st == BASALT_OK)
            where = where == NULL ? c : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, where, c);
        if (st == BASALT_OK && where == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int i = 0; i < sel->n_items && st == BASALT_OK; i++) {
        items[i] = sel->items[i];
        if (items[i].expr->kind != BASALT_SQL_EXPR_STAR)
            st = over_d(g, sel->items[i].expr, &items[i].expr, err);
    }
    g->aliases = sel;
    for (int i = 0; i < q->n_order && st == BASALT_OK; i++) {
        order[i] = q->order[i];
        st = over_d(g, q->order[i].expr, &order[i].expr, err);
    }
    /* D's columns are keys in front of its own GROUP BY
     * (bind_subquery_grouped.c): its GROUP BY and HAVING may read them */
    struct basalt_sql_expr **group = node(B, sizeof *group * (size_t)(sel->n_group + 1));
    struct basalt_sql_expr *having = NULL;
    if (group == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < sel->n_group && st == BASALT_OK; i++)
        st = over_d(g, sel->group[i], &group[i], err);
    if (st == BASALT_OK)
        st = over_d(g, sel->having, &having, err);
    if (st != BASALT_OK)
        return st;
    if (g->too_many)
        return basalt_sql_err(B, BASALT_LIMIT, q->pos, err,
                              "a correlated subquery reads more than %d columns of its outer query",
                              MAX_OUTER_COLUMNS);
    if (g->n == 0 || from == NULL || from->whole == NULL)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, q->pos, err,
                              "a subquery correlated by other than equalities with a query "
                              "further out is not supported");
    struct basalt_sql_query *d = NULL;
    st = distinct_outer(B, outer, from, g, q->pos, &d, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_sql_from *d_item = node(B, sizeof *d_item), *both = node(B, sizeof *both);
    out->outer_side = node(B, sizeof *out->outer_side * (size_t)g->n);
    out->inner_side = node(B, sizeof *out->inner_side * (size_t)g->n);
    if (d_item == NULL || both == NULL || out->outer_side == NULL || out->inner_side == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    d_item->kind = BASALT_SQL_FROM_SUBQUERY;
    d_item->pos = q->pos;
    d_item->height = d->height + 1;
    d_item->u.subquery = d;
    d_item->alias.name = g->alias;
    /* D first: its columns are the keys, the subquery's FROM as written */
    both->kind = BASALT_SQL_FROM_JOIN;
    both->pos = q->pos;
    both->height = max_height(d_item->height, sel->from->height) + 1;
    both->u.join.kind = BASALT_SQL_JOIN_CROSS;
    both->u.join.left = d_item;
    both->u.join.right = sel->from;
    *r = *q;
    r->u.select.from = both;
    r->u.select.where = where;
    r->u.select.items = items;
    r->u.select.group = sel->n_group > 0 ? group : sel->group;
    r->u.select.having = having;
    r->order = q->n_order > 0 ? order : q->order;
    r->height = max_height(q->height, both->height + 1);
    if (where != NULL)
        r->height = max_height(r->height, where->height + 1);
    for (int x = 0; x < g->n; x++) {
        char name[32];
        snprintf(name, sizeof name, "__k%d", x);
        const char *copy = basalt_arena_strndup(&B->arena, name, strlen(name));
        out->outer_side[x] = g->first[x];
        out->inner_side[x] = copy == NULL ? NULL : basalt_sql_ast_column(B, g->alias, copy, q->pos);
        if (out->inner_side[x] == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    out->n = g->n;
    out->query = r;
    out->where = where;
    return BASALT_OK;
}
