/* LATERAL (query) in FROM: a subquery that reads the FROM items before it.
 * Correlated by equalities in its WHERE (inner side = outer side), it is
 * planned once for all outer rows, keyed by the inner sides:
 *
 *   FROM t, LATERAL (SELECT b FROM u WHERE u.k = t.k AND u.x > 0
 *                    ORDER BY b DESC LIMIT 2) AS l
 *
 * binds as
 *
 *   FROM t, (SELECT u.k AS __lateral0, b FROM u WHERE u.x > 0
 *            QUALIFY row_number() OVER (PARTITION BY u.k ORDER BY b DESC) <= 2) AS l
 *   WHERE t.k = l.__lateral0
 *
 * the key columns kept out of `*` and unqualified names. GROUP BY takes the
 * keys in front, DISTINCT is per key (the keys are columns of it), LIMIT
 * and OFFSET count each key's rows. In `LEFT JOIN LATERAL (...) ON c` the
 * equalities join the ON (bind_from.c). The rows of an outer row whose key
 * is NULL meet no inner row, as `inner = NULL` holds for none.
 *
 * An aggregate without GROUP BY has one row for every outer row, also one
 * whose key no inner row has: it is grouped by the keys and LEFT joined
 * after the other relations of the FROM list (bind_join.c), its items
 * their values over no rows where that join found nothing (COUNT 0,
 * basalt_sql_empty_rows).
 *
 * Refused (UNSUPPORTED): correlation by other than equalities; an outer
 * column anywhere but the WHERE; an aggregate without GROUP BY with HAVING,
 * LIMIT 0 or OFFSET; window functions, QUALIFY, DISTINCT ON, GROUP BY ALL,
 * grouping sets; DISTINCT with LIMIT; a LIMIT or OFFSET that is not an
 * integer. A LATERAL that reads no outer column is an ordinary subquery. */
#include <stdio.h>
#include <string.h>

#include "bind/bind_internal.h"

static void *node(struct binder *B, size_t size)
{
    void *p = basalt_arena_alloc(&B->arena, size, 8);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

static basalt_status refuse(struct binder *B, int32_t pos, const char *what,
                            struct basalt_error *err)
{
    return basalt_sql_err(B, BASALT_UNSUPPORTED, pos, err, "LATERAL with %s is not supported", what);
}

/* Every clause but WHERE must read the subquery's own tables only. */
static basalt_status inner_only(struct binder *B, const struct bsplit *s, const struct bscope *outer,
                                const struct basalt_sql_expr *e, const char *clause,
                                struct basalt_error *err)
{
    if (e == NULL || !basalt_sql_reads_outer(B, &s->in, outer, e))
        return BASALT_OK;
    return basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, err,
                          "LATERAL: its %s reads a column of the FROM items before it, which "
                          "only its WHERE may (in equalities)",
                          clause);
}

static basalt_status check(struct binder *B, const struct basalt_sql_query *q, const struct bsplit *s,
                           const struct bscope *outer, struct basalt_error *err)
{
    const struct basalt_sql_select *sel = &q->u.select;
    if (sel->group_all || sel->n_grouping > 0)
        return refuse(B, q->pos, "GROUP BY ALL or grouping sets", err);
    if (sel->qualify != NULL || sel->n_windows > 0)
        return refuse(B, q->pos, "QUALIFY or WINDOW", err);
    if (sel->n_distinct_on > 0)
        return refuse(B, q->pos, "DISTINCT ON", err);
    if (sel->distinct && q->limit != NULL)
        return refuse(B, q->pos, "DISTINCT and LIMIT", err);
    if (q->order_all)
        return refuse(B, q->pos, "ORDER BY ALL", err);
    if (sel->having != NULL && sel->n_group == 0)
        return refuse(B, q->pos, "HAVING without GROUP BY", err);
    int64_t once_limit = 1;
    if (basalt_sql_aggregates_once(B, q) &&
        ((q->limit != NULL && (!basalt_sql_literal_int(q->limit, &once_limit) || once_limit < 1)) ||
         q->offset != NULL))
        return refuse(B, q->pos, "an aggregate without GROUP BY and a LIMIT 0 or OFFSET", err);
    int64_t v;
    if ((q->limit != NULL && !basalt_sql_literal_int(q->limit, &v)) ||
        (q->offset != NULL && !basalt_sql_literal_int(q->offset, &v)))
        return refuse(B, q->pos, "a LIMIT or OFFSET that is not an integer", err);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < sel->n_items && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *e = sel->items[i].expr;
        if (e->kind == BASALT_SQL_EXPR_STAR)
            continue;
        if (basalt_sql_has_window(B, e))
            return refuse(B, e->pos, "window functions", err);
        st = inner_only(B, s, outer, e, "select list", err);
    }
    for (int i = 0; i < sel->n_group && st == BASALT_OK; i++)
        st = inner_only(B, s, outer, sel->group[i], "GROUP BY", err);
    if (st == BASALT_OK)
        st = inner_only(B, s, outer, sel->having, "HAVING", err);
    for (int i = 0; i < q->n_order && st == BASALT_OK; i++)
        st = inner_only(B, s, outer, q->order[i].expr, "ORDER BY", err);
    return st;
}

/* offset < row_number() OVER (PARTITION BY keys ORDER BY q's order) <=
 * offset + limit. */
static struct basalt_sql_expr *per_key_limit(struct binder *B, const struct basalt_sql_query *q,
                                             struct basalt_sql_expr **keys, int n_keys)
{
    int64_t limit = 0, offset = 0;
    basalt_sql_literal_int(q->limit, &limit);
    if (q->offset != NULL)
        basalt_sql_literal_int(q->offset, &offset);
    struct basalt_sql_expr *rn = basalt_sql_ast_row_number(
        B, keys, n_keys, basalt_sql_ast_item_order(B, q), q->n_order, q->pos);
    struct basalt_sql_expr *upto = basalt_sql_ast_binary(
        B, BASALT_SQL_BINARY_LE, rn, basalt_sql_ast_integer(B, offset + limit, q->pos));
    if (offset == 0 || upto == NULL)
        return upto;
    return basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND,
                                 basalt_sql_ast_binary(B, BASALT_SQL_BINARY_GT, rn,
                                                       basalt_sql_ast_integer(B, offset, q->pos)),
                                 upto);
}

/* The query keyed by the inner sides `inner` (n of them), as above. */
static struct basalt_sql_query *keyed(struct binder *B, const struct basalt_sql_query *q,
                                      const struct bsplit *s, struct basalt_sql_expr **inner, int n)
{
    const struct basalt_sql_select *sel = &q->u.select;
    struct basalt_sql_query *g = node(B, sizeof *g);
    struct basalt_sql_select_item *items = node(B, sizeof *items * (size_t)(n + sel->n_items));
    struct basalt_sql_expr **group = node(B, sizeof *group * (size_t)(n + sel->n_group + 1));
    if (g == NULL || items == NULL || group == NULL)
        return NULL;
    for (int k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "__lateral%d", k);
        items[k].expr = inner[k];
        items[k].alias.name = basalt_arena_strndup(&B->arena, name, strlen(name));
        if (items[k].alias.name == NULL)
            return NULL;
        group[k] = inner[k];
    }
    memcpy(items + n, sel->items, sizeof *items * (size_t)sel->n_items);
    for (int i = 0; i < sel->n_group; i++)
        group[n + i] = sel->group[i];
    struct basalt_sql_expr *where = NULL;
    for (int k = 0; k < s->n_inner; k++) {
        struct basalt_sql_expr *c = basalt_sql_ast_shared(s->inner[k]);
        where = where == NULL ? c : basalt_sql_ast_binary(B, BASALT_SQL_BINARY_AND, where, c);
        if (where == NULL)
            return NULL;
    }
    g->kind = BASALT_SQL_QUERY_SELECT;
    g->pos = q->pos;
    g->height = q->height + 2;
    g->u.select = *sel;
    g->u.select.n_items = n + sel->n_items;
    g->u.select.items = items;
    g->u.select.where = where;
    if (sel->n_group > 0 || basalt_sql_aggregates_once(B, q)) {
        g->u.select.n_group = n + sel->n_group;
        g->u.select.group = group;
    }
    /* one row a key: a LIMIT of 1 or more keeps it */
    if (q->limit != NULL && !basalt_sql_aggregates_once(B, q) &&
        (g->u.select.qualify = per_key_limit(B, q, inner, n)) == NULL)
        return NULL;
    return g;
}

/* Marks rel (the keyed query of q, n keys in front) to be LEFT joined on
 * `on`, with the values its items have over no rows where that join finds
 * none (COUNT 0, `count(*) + 1` 1; NULL needs nothing). */
static basalt_status empty_values(struct binder *B, const struct basalt_sql_query *q,
                                  struct brel *rel, int n, const struct basalt_sql_expr **on,
                                  struct basalt_error *err)
{
    const struct basalt_sql_select *sel = &q->u.select;
    struct bempty *empty = node(B, sizeof *empty * (size_t)(sel->n_items + 1));
    if (empty == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    const struct ArrowSchema *schema = basalt_qplan_schema(rel->node);
    int n_empty = 0;
    for (int i = 0; i < sel->n_items && n + i < rel->n; i++) {
        struct basalt_query_type t;
        if (sel->items[i].expr->kind == BASALT_SQL_EXPR_STAR ||
            basalt_query_type_from_format(schema->children[n + i]->format, &t, NULL) != BASALT_OK)
            continue;
        empty[n_empty].gid = rel->gids[n + i];
        if (basalt_sql_empty_value(B, sel->items[i].expr, t, &empty[n_empty].value))
            n_empty++;
    }
    rel->left_on = on;
    rel->n_left_on = n;
    rel->empty = empty;
    rel->n_empty = n_empty;
    rel->key_gid = rel->gids[0];
    return BASALT_OK;
}

basalt_status basalt_sql_empty_rows(struct binder *B, struct brel *rel, int32_t key_gid,
                                    const struct bempty *empty, int n_empty,
                                    struct basalt_error *err)
{
    if (n_empty == 0)
        return BASALT_OK;
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, rel->node, &b, err);
    struct basalt_qexpr **exprs = basalt_calloc((size_t)rel->n + 1, sizeof *exprs);
    const char **names = basalt_calloc((size_t)rel->n + 1, sizeof *names);
    if (st == BASALT_OK && (exprs == NULL || names == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int key = -1;
    for (int i = 0; i < rel->n; i++)
        if (rel->gids[i] == key_gid)
            key = i;
    if (st == BASALT_OK && key < 0)
        st = basalt_error_set(err, BASALT_INTERNAL, "LATERAL key column not in its join");
    const struct ArrowSchema *in = st == BASALT_OK ? basalt_qplan_schema(rel->node) : NULL;
    for (int i = 0; i < rel->n && st == BASALT_OK; i++) {
        names[i] = in->children[i]->name;
        st = basalt_qexpr_column(b, i, &exprs[i], err);
        for (int k = 0; k < n_empty && st == BASALT_OK; k++)
            if (rel->gids[i] == empty[k].gid) {
                struct basalt_qexpr *kc;
                st = basalt_qexpr_column(b, key, &kc, err);
                if (st == BASALT_OK)
                    st = basalt_sql_empty_or(b, kc, &empty[k].value, exprs[i], &exprs[i], err);
                break;
            }
    }
    struct basalt_qplan *p = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, rel->node, exprs, names, rel->n, &p, err);
    if (st == BASALT_OK)
        rel->node = p;
    basalt_free(exprs);
    basalt_free(names);
    return st;
}

basalt_status basalt_sql_lateral_keyed(struct binder *B, const struct basalt_sql_query *q,
                                       const struct bscope *scope, struct basalt_sql_query **g,
                                       const struct basalt_sql_expr ***outer_sides, int *n_keys,
                                       struct basalt_error *err)
{
    *g = NULL;
    *outer_sides = NULL;
    *n_keys = 0;
    struct bsplit s;
    basalt_status st = basalt_sql_split_subquery(B, scope, q, &s, err);
    int n = s.n_corr;
    struct basalt_sql_expr **inner = NULL;
    const struct basalt_sql_expr **outer_side = NULL;
    if (st == BASALT_OK && n > 0) {
        st = check(B, q, &s, scope, err);
        inner = node(B, sizeof *inner * (size_t)n);
        outer_side = node(B, sizeof *outer_side * (size_t)n);
        if (st == BASALT_OK && (inner == NULL || outer_side == NULL))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int k = 0; k < n && st == BASALT_OK; k++) {
        const struct basalt_sql_expr *o, *i;
        if (!basalt_sql_correlation_key(B, &s.in, scope, s.corr[k], &o, &i)) {
            st = basalt_sql_known_columns(B, &s.in, scope, s.corr[k], err);
            if (st == BASALT_OK)
                st = basalt_sql_err(B, BASALT_UNSUPPORTED, s.corr[k]->pos, err,
                                    "LATERAL must be correlated by equalities (inner = outer)");
        }
        else {
            inner[k] = basalt_sql_ast_shared(i);
            outer_side[k] = o;
        }
    }
    if (st == BASALT_OK && n > 0 && (*g = keyed(B, q, &s, inner, n)) == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_sql_split_reset(&s);
    if (st == BASALT_OK) {
        *outer_sides = outer_side;
        *n_keys = n;
    }
    return st;
}

basalt_status basalt_sql_bind_lateral(struct binder *B, const struct basalt_sql_from *f,
                                      const char *alias, struct bscope *scope, struct bfrom *F,
                                      bool *done, struct basalt_error *err)
{
    *done = false;
    const struct basalt_sql_query *q = f->u.subquery;
    struct basalt_sql_query *g;
    const struct basalt_sql_expr **outer_side;
    int n;
    basalt_status st = basalt_sql_lateral_keyed(B, q, scope, &g, &outer_side, &n, err);
    if (st != BASALT_OK || n == 0)
        return st; /* no outer column: the caller binds an ordinary subquery */
    struct brel rel;
    const char **names;
    st = basalt_sql_bind_query(B, g, &rel, &names, err);
    if (st != BASALT_OK)
        return st;
    if (f->n_column_aliases > rel.n - n)
        return basalt_sql_err(B, BASALT_INVALID_ARG, f->pos, err, "%d column aliases for %d columns",
                              (int)f->n_column_aliases, rel.n - n);
    int index = F->n;
    for (int c = 0; c < rel.n && st == BASALT_OK; c++) {
        int a = c - n; /* the item's position among those written */
        const char *name = a >= 0 && a < f->n_column_aliases ? f->column_aliases[a].name : names[c];
        st = basalt_sql_scope_add(scope, alias, name, rel.gids[c], index, err);
        if (st == BASALT_OK && c < n)
            scope->cols[scope->n - 1].hidden = scope->cols[scope->n - 1].internal = true;
    }
    rel.leaf = NULL;
    rel.left_on = NULL;
    rel.n_left_on = 0;
    rel.empty = NULL;
    rel.n_empty = 0;
    /* outer side = l.__lateralk, a condition of the FROM */
    const struct basalt_sql_expr **on = node(B, sizeof *on * (size_t)n);
    if (st == BASALT_OK && on == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int k = 0; k < n && st == BASALT_OK; k++) {
        struct basalt_sql_expr *c = basalt_sql_ast_binary(
            B, BASALT_SQL_BINARY_EQ, basalt_sql_ast_shared(outer_side[k]),
            basalt_sql_ast_column(B, alias, names[k], outer_side[k]->pos));
        on[k] = c;
        st = c == NULL ? basalt_error_set(err, BASALT_NOMEM, "out of memory")
                       : basalt_sql_conjuncts(F, c, err);
    }
    /* An aggregate without GROUP BY has a row for every outer row: LEFT
     * joined, its COUNTs 0 where no inner row has the key. */
    if (st == BASALT_OK && basalt_sql_aggregates_once(B, q))
        st = empty_values(B, q, &rel, n, on, err);
    if (st == BASALT_OK)
        st = basalt_sql_from_add(F, &rel, err);
    *done = st == BASALT_OK;
    return st;
}
