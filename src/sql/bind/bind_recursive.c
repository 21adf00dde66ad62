/* WITH RECURSIVE t AS (anchor UNION [ALL] step): the anchor runs once; then
 * the step runs with t naming the rows the last run gave (the anchor's the
 * first time), and its rows join the result, until a run gives none. Under
 * UNION (without ALL) the anchor is deduplicated and each step keeps only
 * rows the result does not hold yet (`step EXCEPT SELECT * FROM <result>`),
 * which is also what ends a walk around a cycle. The step's columns take
 * the anchor's types. As in DuckDB a step that never runs dry would run
 * forever; here it stops with LIMIT after RECURSION_STEPS runs (each run's
 * plan stays in the query's context until the query ends: about 50 KB a
 * step, so the cap also bounds that). */
#include <string.h>

#include "bind/bind_internal.h"

enum { RECURSION_STEPS = 10000 };

/* What the step's scope entries name: the CTE (last run's rows) and, under
 * UNION, the whole result so far. A space keeps the second from any name a
 * query can write. */
static const char RESULT_NAME[] = "recursive result";

static void *node(struct binder *B, size_t size)
{
    void *p = basalt_arena_alloc(&B->arena, size, 8);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

/* SELECT [DISTINCT] * FROM <from>, at pos. */
static struct basalt_sql_query *select_star(struct binder *B, struct basalt_sql_from *from,
                                            bool distinct, int32_t pos)
{
    struct basalt_sql_query *q = node(B, sizeof *q);
    struct basalt_sql_select_item *item = node(B, sizeof *item);
    struct basalt_sql_expr *star = node(B, sizeof *star);
    if (q == NULL || item == NULL || star == NULL || from == NULL)
        return NULL;
    star->kind = BASALT_SQL_EXPR_STAR;
    star->pos = pos;
    star->height = 1;
    item->expr = star;
    q->kind = BASALT_SQL_QUERY_SELECT;
    q->pos = pos;
    q->height = from->height + 1;
    q->u.select.distinct = distinct;
    q->u.select.n_items = 1;
    q->u.select.items = item;
    q->u.select.from = from;
    return q;
}

static struct basalt_sql_from *from_table(struct binder *B, const char *name, int32_t pos)
{
    struct basalt_sql_from *f = node(B, sizeof *f);
    if (f == NULL)
        return NULL;
    f->kind = BASALT_SQL_FROM_TABLE;
    f->pos = pos;
    f->height = 1;
    f->u.table.name.n_parts = 1;
    f->u.table.name.parts[0].name = name;
    return f;
}

static struct basalt_sql_from *from_subquery(struct binder *B, struct basalt_sql_query *q)
{
    struct basalt_sql_from *f = node(B, sizeof *f);
    if (f == NULL)
        return NULL;
    f->kind = BASALT_SQL_FROM_SUBQUERY;
    f->pos = q->pos;
    f->height = q->height + 1;
    f->u.subquery = q;
    return f;
}

/* step EXCEPT SELECT * FROM <result so far>: the new rows, once each. */
static struct basalt_sql_query *new_rows_only(struct binder *B, struct basalt_sql_query *step)
{
    struct basalt_sql_query *held =
        select_star(B, from_table(B, RESULT_NAME, step->pos), false, step->pos);
    struct basalt_sql_query *q = node(B, sizeof *q);
    if (held == NULL || q == NULL)
        return NULL;
    q->kind = BASALT_SQL_QUERY_SET_OP;
    q->pos = step->pos;
    q->height = (step->height > held->height ? step->height : held->height) + 1;
    q->u.set_op.op = BASALT_SQL_SET_EXCEPT;
    q->u.set_op.left = step;
    q->u.set_op.right = held;
    return q;
}

/* Runs q (bound with the scope as it is) into *out, its columns cast to
 * `types` (the anchor's) when given. */
static basalt_status run(struct binder *B, const struct basalt_sql_query *q,
                         const struct ArrowSchema *types, const char ***names,
                         struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct brel rel;
    const char **own = NULL;
    basalt_status st = basalt_sql_bind_query(B, q, &rel, names != NULL ? names : &own, err);
    const struct ArrowSchema *s = st == BASALT_OK ? basalt_qplan_schema(rel.node) : NULL;
    if (st == BASALT_OK && types != NULL && s->n_children != types->n_children)
        st = basalt_sql_err(B, BASALT_INVALID_ARG, q->pos, err,
                            "the recursive step gives %lld columns, the anchor %lld",
                            (long long)s->n_children, (long long)types->n_children);
    bool cast = false;
    for (int64_t i = 0; st == BASALT_OK && types != NULL && i < s->n_children; i++)
        cast |= strcmp(s->children[i]->format, types->children[i]->format) != 0;
    struct basalt_qplan *plan = st == BASALT_OK ? rel.node : NULL;
    if (cast) {
        struct basalt_qexpr_builder *b;
        int n = (int)s->n_children;
        struct basalt_qexpr **exprs = basalt_calloc((size_t)n, sizeof *exprs);
        const char **cols = basalt_calloc((size_t)n, sizeof *cols);
        st = exprs && cols ? basalt_qplan_builder(B->ctx, rel.node, &b, err)
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < n && st == BASALT_OK; i++) {
            struct basalt_query_type t;
            st = basalt_query_type_from_format(types->children[i]->format, &t, err);
            if (st == BASALT_OK)
                st = basalt_qexpr_column(b, i, &exprs[i], err);
            if (st == BASALT_OK)
                st = basalt_qexpr_cast(b, exprs[i], t, false, &exprs[i], err);
            cols[i] = types->children[i]->name;
        }
        if (st == BASALT_OK)
            st = basalt_qplan_project(B->ctx, rel.node, exprs, cols, n, &plan, err);
        basalt_free(exprs);
        basalt_free(cols);
    }
    if (st == BASALT_OK)
        st = basalt_qplan_execute(B->ctx, plan, out, err);
    return st;
}

static int64_t rows_of(const struct basalt_arrow_batches *b)
{
    int64_t n = 0;
    for (int64_t i = 0; i < b->n; i++)
        n += b->arrays[i].length;
    return n;
}

/* Pushes a scope entry naming `rows`; the caller pops it (B->n_ctes--). */
static basalt_status push_rows(struct binder *B, const struct basalt_sql_cte *as,
                               const struct basalt_arrow_batches *rows, const char **names,
                               struct basalt_error *err)
{
    if (B->n_ctes == B->cap_ctes) {
        int cap = B->cap_ctes ? B->cap_ctes * 2 : 8;
        struct bcte_scope *c = basalt_realloc(B->ctes, (size_t)cap * sizeof *c);
        if (c == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        B->ctes = c;
        B->cap_ctes = cap;
    }
    B->ctes[B->n_ctes++] = (struct bcte_scope){as, false, rows, names};
    return BASALT_OK;
}

/* Appends views of `from`'s batches to `to` (same schema). */
static basalt_status append_views(struct basalt_arrow_batches *to,
                                  const struct basalt_arrow_batches *from,
                                  struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < from->n && st == BASALT_OK; i++) {
        struct ArrowArray v;
        st = basalt_arrow_array_view(&from->arrays[i], &v, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(to, &v, err);
    }
    return st;
}

basalt_status basalt_sql_recursive_rows(struct binder *B, const struct basalt_sql_cte *cte,
                                        struct basalt_arrow_batches *rows, const char ***names,
                                        struct basalt_error *err)
{
    const struct basalt_sql_query *q = cte->query;
    const char *name = cte->name.name;
    if (q->kind != BASALT_SQL_QUERY_SET_OP || q->u.set_op.op != BASALT_SQL_SET_UNION ||
        q->n_order > 0 || q->order_all || q->limit != NULL || q->offset != NULL)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, q->pos, err,
                              "recursive CTE \"%s\": its query must be anchor UNION [ALL] step",
                              name);
    struct basalt_sql_query *anchor = q->u.set_op.left, *step = q->u.set_op.right;
    if (basalt_sql_query_uses(anchor, name) > 0)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, anchor->pos, err,
                              "recursive CTE \"%s\": its anchor (before UNION) must not read it",
                              name);
    bool distinct = !q->u.set_op.all;
    const struct basalt_sql_query *first =
        distinct ? select_star(B, from_subquery(B, anchor), true, anchor->pos) : anchor;
    const struct basalt_sql_query *next = distinct ? new_rows_only(B, step) : step;
    struct basalt_sql_cte *held = node(B, sizeof *held);
    if (first == NULL || next == NULL || held == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    held->name.name = RESULT_NAME;

    basalt_status st = run(B, first, NULL, names, rows, err);
    for (int i = 0; st == BASALT_OK && i < cte->n_columns && i < rows->schema.n_children; i++)
        (*names)[i] = cte->columns[i].name;
    /* the last run's rows: views of the result's batches from `last` on */
    struct basalt_arrow_batches work;
    basalt_arrow_batches_init(&work);
    int64_t last = 0;
    for (int steps = 0; st == BASALT_OK; steps++) {
        basalt_arrow_batches_reset(&work);
        st = basalt_arrow_schema_copy(&rows->schema, &work.schema, err);
        struct basalt_arrow_batches tail = *rows;
        tail.arrays += last;
        tail.n -= last;
        if (st == BASALT_OK)
            st = append_views(&work, &tail, err);
        if (st != BASALT_OK || rows_of(&work) == 0)
            break;
        if (steps == RECURSION_STEPS) {
            st = basalt_sql_err(B, BASALT_LIMIT, q->pos, err,
                                "recursive CTE \"%s\" still gives rows after %d steps", name,
                                RECURSION_STEPS);
            break;
        }
        int n_ctes = B->n_ctes;
        st = push_rows(B, cte, &work, *names, err);
        if (st == BASALT_OK && distinct)
            st = push_rows(B, held, rows, *names, err);
        struct basalt_arrow_batches got;
        basalt_arrow_batches_init(&got);
        if (st == BASALT_OK)
            st = run(B, next, &rows->schema, NULL, &got, err);
        B->n_ctes = n_ctes;
        last = rows->n;
        for (int64_t i = 0; st == BASALT_OK && i < got.n; i++)
            st = basalt_arrow_batches_append(rows, &got.arrays[i], err);
        basalt_arrow_batches_reset(&got);
    }
    basalt_arrow_batches_reset(&work);
    return st;
}
