/* A FROM and WHERE computed once for a query and the uncorrelated scalar
 * subquery that repeats them:
 *
 *   SELECT k, sum(v) FROM a, b WHERE c GROUP BY k
 *   HAVING sum(v) > (SELECT sum(v) * 0.01 FROM a, b WHERE c)
 *
 * (a share of the total, TPC-H Q11) binds as
 *
 *   WITH __shared AS MATERIALIZED (SELECT k AS __s0, v AS __s1 FROM a, b WHERE c)
 *   SELECT __s0, sum(__s1) FROM __shared GROUP BY __s0
 *   HAVING sum(__s1) > (SELECT sum(__s1) * 0.01 FROM __shared)
 *
 * so the joins and filters run once (bind_cte.c keeps their rows). The two
 * FROM and WHERE clauses must print the same (sql_format), with a join or a
 * WHERE to save; every column either query reads is one of the CTE's, found
 * through the FROM's scope; names that are no column (aliases) stay.
 * Output names are kept. Not with `*`, windows or QUALIFY; when the
 * rewritten query does not bind, the query binds as written. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bind/bind_internal.h"

enum { MAX_COLUMNS = 256 };

/* "SELECT 1 FROM <from> WHERE <where>" as sql_format prints it. */
static char *from_where(struct binder *B, const struct basalt_sql_select *s)
{
    struct basalt_sql_select_item item;
    memset(&item, 0, sizeof item);
    item.expr = basalt_sql_ast_integer(B, 1, 0);
    if (item.expr == NULL)
        return NULL;
    struct basalt_sql_query q;
    memset(&q, 0, sizeof q);
    q.kind = BASALT_SQL_QUERY_SELECT;
    q.u.select.n_items = 1;
    q.u.select.items = &item;
    q.u.select.from = s->from;
    q.u.select.where = s->where;
    size_t n = basalt_sql_query_format(&q, NULL, 0);
    char *text = basalt_arena_alloc(&B->arena, n + 1, 1);
    if (text != NULL)
        basalt_sql_query_format(&q, text, n + 1);
    return text;
}

/* ------------------------------------------------------------ the subquery */

struct finding {
    struct binder *B;
    const struct basalt_sql_select *s;
    const char *text; /* s's FROM and WHERE, printed at the first subquery */
    const struct basalt_sql_expr *sub;
    bool no;
};

static enum basalt_sql_replace find_sub(void *ctx, const struct basalt_sql_expr *e,
                                        struct basalt_sql_expr **out)
{
    struct finding *F = ctx;
    (void)out;
    if (e->kind == BASALT_SQL_EXPR_STAR || (e->kind == BASALT_SQL_EXPR_FUNCTION && e->u.call.over)) {
        F->no = true;
        return BASALT_SQL_KEEP;
    }
    if (e->kind != BASALT_SQL_EXPR_SUBQUERY || F->sub != NULL)
        return BASALT_SQL_DESCEND;
    const struct basalt_sql_query *q = e->u.subquery;
    if (q->kind != BASALT_SQL_QUERY_SELECT || q->n_ctes > 0 || q->u.select.from == NULL ||
        q->u.select.qualify != NULL || q->u.select.n_windows > 0)
        return BASALT_SQL_KEEP;
    if (F->text == NULL && (F->text = from_where(F->B, F->s)) == NULL) {
        F->no = true;
        return BASALT_SQL_KEEP;
    }
    const char *text = from_where(F->B, &q->u.select);
    if (text != NULL && strcmp(text, F->text) == 0)
        F->sub = e;
    return BASALT_SQL_KEEP;
}

/* ------------------------------------------------------------ the columns */

struct columns {
    struct binder *B;
    const struct bscope *scope;
    int32_t gid[MAX_COLUMNS];
    const struct basalt_sql_expr *ref[MAX_COLUMNS]; /* as first written */
    struct basalt_sql_expr *col[MAX_COLUMNS];       /* __sK */
    int n;
    const struct basalt_sql_expr *sub, *sub_with; /* the subquery, and its rewrite */
    /* HAVING and ORDER BY: a bare name that is an alias of these items
     * stays, the alias winning there (bind_alias.c, order_by). */
    const struct basalt_sql_select *aliases;
    bool no;
};

static bool is_alias(const struct basalt_sql_select *s, const struct basalt_sql_expr *e)
{
    if (s == NULL || e->u.column.n_parts != 1)
        return false;
    for (int i = 0; i < s->n_items; i++)
        if (s->items[i].alias.name != NULL &&
            strcasecmp(s->items[i].alias.name, e->u.column.parts[0].name) == 0)
            return true;
    return false;
}

static struct basalt_sql_expr *shared_column(struct columns *C, int k, int32_t pos)
{
    char name[16];
    snprintf(name, sizeof name, "__s%d", k);
    const char *copy = basalt_arena_strndup(&C->B->arena, name, strlen(name));
    return copy != NULL ? basalt_sql_ast_column(C->B, NULL, copy, pos) : NULL;
}

static enum basalt_sql_replace to_shared(void *ctx, const struct basalt_sql_expr *e,
                                         struct basalt_sql_expr **out)
{
    struct columns *C = ctx;
    if (e == C->sub) {
        *out = basalt_sql_ast_shared(C->sub_with);
        return BASALT_SQL_REPLACE;
    }
    if (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS ||
        e->kind == BASALT_SQL_EXPR_IN_QUERY) {
        C->no = true; /* another subquery may read the FROM's columns */
        return BASALT_SQL_KEEP;
    }
    if (e->kind != BASALT_SQL_EXPR_COLUMN)
        return BASALT_SQL_DESCEND;
    if (is_alias(C->aliases, e))
        return BASALT_SQL_KEEP;
    const struct bcol *c;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_resolve(C->B, C->scope, &e->u.column, e->pos, &c, &ignore) != BASALT_OK ||
        c < C->scope->cols || c >= C->scope->cols + C->scope->n)
        return BASALT_SQL_KEEP; /* an alias, bound later */
    int k = 0;
    while (k < C->n && C->gid[k] != c->gid)
        k++;
    if (k == C->n) {
        if (C->n == MAX_COLUMNS || (C->col[k] = shared_column(C, k, e->pos)) == NULL) {
            C->no = true;
            return BASALT_SQL_KEEP;
        }
        C->gid[k] = c->gid;
        C->ref[k] = e;
        C->n++;
    }
    *out = C->col[k];
    return BASALT_SQL_REPLACE;
}

/* The select's items, GROUP BY, HAVING and its query's ORDER BY over the
 * shared columns, into `to` (a copy of q). */
static bool rewrite_select(struct columns *C, const struct basalt_sql_query *q,
                           struct basalt_sql_query *to)
{
    const struct basalt_sql_select *s = &q->u.select;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    struct basalt_arena *arena = &C->B->arena;
    struct basalt_sql_select_item *items = basalt_arena_alloc(arena, sizeof *items * (size_t)(s->n_items + 1), 8);
    struct basalt_sql_expr **group = basalt_arena_alloc(arena, sizeof *group * (size_t)(s->n_group + 1), 8);
    struct basalt_sql_order_item *order = basalt_arena_alloc(arena, sizeof *order * (size_t)(q->n_order + 1), 8);
    if (items == NULL || group == NULL || order == NULL)
        return false;
    const struct basalt_sql_expr *x;
    for (int i = 0; i < s->n_items; i++) {
        items[i] = s->items[i];
        items[i].alias.name = basalt_sql_item_name(C->B, &s->items[i]);
        if (items[i].alias.name == NULL ||
            basalt_sql_ast_replace(C->B, s->items[i].expr, to_shared, C, &x, &ignore) != BASALT_OK)
            return false;
        items[i].expr = basalt_sql_ast_shared(x);
    }
    for (int i = 0; i < s->n_group; i++) {
        if (basalt_sql_ast_replace(C->B, s->group[i], to_shared, C, &x, &ignore) != BASALT_OK)
            return false;
        group[i] = basalt_sql_ast_shared(x);
    }
    const struct basalt_sql_expr *having = NULL;
    C->aliases = s;
    if (s->having != NULL &&
        basalt_sql_ast_replace(C->B, s->having, to_shared, C, &having, &ignore) != BASALT_OK)
        return false;
    for (int i = 0; i < q->n_order; i++) {
        order[i] = q->order[i];
        if (q->order[i].expr != NULL) {
            if (basalt_sql_ast_replace(C->B, q->order[i].expr, to_shared, C, &x, &ignore) != BASALT_OK)
                return false;
            order[i].expr = basalt_sql_ast_shared(x);
        }
    }
    C->aliases = NULL;
    *to = *q;
    to->order = order;
    to->u.select.items = items;
    to->u.select.group = group;
    to->u.select.having = basalt_sql_ast_shared(having);
    to->u.select.where = NULL;
    return !C->no;
}

static struct basalt_sql_from *from_shared(struct binder *B, const struct basalt_sql_from *like)
{
    struct basalt_sql_from *f = basalt_arena_alloc(&B->arena, sizeof *f, 8);
    if (f == NULL)
        return NULL;
    memset(f, 0, sizeof *f);
    f->kind = BASALT_SQL_FROM_TABLE;
    f->pos = like->pos;
    f->height = 1;
    f->u.table.name.n_parts = 1;
    f->u.table.name.parts[0].name = "__shared";
    return f;
}

const struct basalt_sql_query *basalt_sql_share_from(struct binder *B,
                                                     const struct basalt_sql_query *q)
{
    const struct basalt_sql_select *s = &q->u.select;
    if (q->kind != BASALT_SQL_QUERY_SELECT || s->from == NULL || s->qualify != NULL ||
        s->n_windows > 0 || (s->where == NULL && s->from->kind != BASALT_SQL_FROM_JOIN))
        return NULL;
    struct finding F = {B, s, NULL, NULL, false};
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    const struct basalt_sql_expr *same;
    for (int i = 0; i < s->n_items && !F.no; i++)
        if (basalt_sql_ast_replace(B, s->items[i].expr, find_sub, &F, &same, &ignore) != BASALT_OK)
            return NULL;
    if (s->having != NULL && !F.no &&
        basalt_sql_ast_replace(B, s->having, find_sub, &F, &same, &ignore) != BASALT_OK)
        return NULL;
    if (F.no || F.sub == NULL)
        return NULL;

    /* The FROM's scope, to know which names are columns. */
    struct bscope scope;
    memset(&scope, 0, sizeof scope);
    struct bfrom from;
    memset(&from, 0, sizeof from);
    const struct basalt_sql_query *out = NULL;
    struct columns *C = basalt_calloc(1, sizeof *C);
    struct basalt_sql_query *sub = basalt_arena_alloc(&B->arena, sizeof *sub, 8);
    struct basalt_sql_query *outer = basalt_arena_alloc(&B->arena, sizeof *outer, 8);
    struct basalt_sql_query *cte_q = basalt_arena_alloc(&B->arena, sizeof *cte_q, 8);
    struct basalt_sql_cte *cte = basalt_arena_alloc(&B->arena, sizeof *cte, 8);
    struct basalt_sql_expr *sub_e = basalt_arena_alloc(&B->arena, sizeof *sub_e, 8);
    if (C == NULL || sub == NULL || outer == NULL || cte_q == NULL || cte == NULL || sub_e == NULL ||
        basalt_sql_bind_from(B, s->from, &scope, &from, &ignore) != BASALT_OK)
        goto done;
    C->B = B;
    C->scope = &scope;
    /* the subquery first, over the shared columns, then the outer query
     * with the subquery's node swapped for it */
    if (!rewrite_select(C, F.sub->u.subquery, sub))
        goto done;
    sub->u.select.from = from_shared(B, s->from);
    *sub_e = *F.sub;
    sub_e->u.subquery = sub;
    C->sub = F.sub;
    C->sub_with = sub_e;
    if (!rewrite_select(C, q, outer) || (outer->u.select.from = from_shared(B, s->from)) == NULL)
        goto done;
    /* WITH __shared AS MATERIALIZED (SELECT ref AS __sK ... FROM ... WHERE ...) */
    int n = C->n > 0 ? C->n : 1;
    struct basalt_sql_select_item *items = basalt_arena_alloc(&B->arena, sizeof *items * (size_t)n, 8);
    if (items == NULL)
        goto done;
    memset(items, 0, sizeof *items * (size_t)n);
    for (int k = 0; k < C->n; k++) {
        items[k].expr = basalt_sql_ast_shared(C->ref[k]);
        items[k].alias.name = C->col[k]->u.column.parts[0].name;
    }
    if (C->n == 0) { /* no column is read: the rows alone */
        if ((items[0].expr = basalt_sql_ast_integer(B, 1, q->pos)) == NULL)
            goto done;
        items[0].alias.name = "__s0";
    }
    memset(cte_q, 0, sizeof *cte_q);
    cte_q->kind = BASALT_SQL_QUERY_SELECT;
    cte_q->pos = q->pos;
    cte_q->height = q->height;
    cte_q->u.select.n_items = n;
    cte_q->u.select.items = items;
    cte_q->u.select.from = s->from;
    cte_q->u.select.where = s->where;
    memset(cte, 0, sizeof *cte);
    cte->name.name = "__shared";
    cte->query = cte_q;
    cte->materialize = BASALT_SQL_CTE_MATERIALIZED;
    outer->n_ctes = 1;
    outer->ctes = cte;
    out = outer;
done:
    basalt_sql_scope_reset(&scope);
    basalt_sql_from_reset(&from);
    basalt_free(C);
    return out;
}
