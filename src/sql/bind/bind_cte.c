/* Common table expressions: the WITH names in scope while a query binds,
 * and the ones computed once.
 *
 * A CTE is planned again at each reference, so that filters and column
 * pruning reach into it, unless it is written AS MATERIALIZED or it is
 * referenced twice or more and its query aggregates (GROUP BY, DISTINCT or
 * aggregate calls: its rows are few next to what it reads). Then it runs
 * the first time it is referenced, and every reference reads its rows
 * (shared views under a VALUES "CTE name") instead of repeating the work:
 * TPC-H Q15 aggregates its revenue once, not twice. AS NOT MATERIALIZED
 * always plans it again. DuckDB decides the same way. A CTE's query cannot
 * read an outer query's columns (subqueries with a WITH are not
 * decorrelated), so running it on its own is always possible. */
#include <stdio.h>
#include <string.h>

#include "bind/bind_internal.h"

/* The rows of a CTE computed once. */
struct bcte_rows {
    const struct basalt_sql_cte *cte;
    struct ArrowSchema schema;
    struct basalt_arrow_shared **batches;
    int64_t n_batches;
    int64_t n_rows;
    const char **names; /* in the binder's arena */
};

/* ------------------------------------------------------------ references */

static int uses_in_query(const struct basalt_sql_query *q, const char *name);

static int uses_in_expr(const struct basalt_sql_expr *e, const char *name)
{
    if (e == NULL)
        return 0;
    int n = 0;
    switch (e->kind) {
    case BASALT_SQL_EXPR_INTERVAL: return uses_in_expr(e->u.interval.value, name);
    case BASALT_SQL_EXPR_UNARY: return uses_in_expr(e->u.unary.arg, name);
    case BASALT_SQL_EXPR_BINARY:
        return uses_in_expr(e->u.binary.left, name) + uses_in_expr(e->u.binary.right, name);
    case BASALT_SQL_EXPR_IS: return uses_in_expr(e->u.is.arg, name);
    case BASALT_SQL_EXPR_BETWEEN:
        return uses_in_expr(e->u.between.arg, name) + uses_in_expr(e->u.between.low, name) +
               uses_in_expr(e->u.between.high, name);
    case BASALT_SQL_EXPR_IN_LIST:
        n = uses_in_expr(e->u.in_list.arg, name);
        for (int i = 0; i < e->u.in_list.n_items; i++)
            n += uses_in_expr(e->u.in_list.items[i], name);
        return n;
    case BASALT_SQL_EXPR_IN_QUERY:
        return uses_in_expr(e->u.in_query.arg, name) + uses_in_query(e->u.in_query.query, name);
    case BASALT_SQL_EXPR_LIKE:
        return uses_in_expr(e->u.like.arg, name) + uses_in_expr(e->u.like.pattern, name) +
               uses_in_expr(e->u.like.escape, name);
    case BASALT_SQL_EXPR_CASE:
        n = uses_in_expr(e->u.case_.operand, name) + uses_in_expr(e->u.case_.otherwise, name);
        for (int i = 0; i < e->u.case_.n_when; i++)
            n += uses_in_expr(e->u.case_.when[i], name) + uses_in_expr(e->u.case_.then[i], name);
        return n;
    case BASALT_SQL_EXPR_CAST: return uses_in_expr(e->u.cast.arg, name);
    case BASALT_SQL_EXPR_EXTRACT: return uses_in_expr(e->u.extract.arg, name);
    case BASALT_SQL_EXPR_FUNCTION:
        n = uses_in_expr(e->u.call.filter, name);
        for (int i = 0; i < e->u.call.n_args; i++)
            n += uses_in_expr(e->u.call.args[i], name);
        for (int i = 0; i < e->u.call.n_order; i++)
            n += uses_in_expr(e->u.call.order[i].expr, name);
        return n;
    case BASALT_SQL_EXPR_SUBQUERY:
    case BASALT_SQL_EXPR_EXISTS: return uses_in_query(e->u.subquery, name);
    case BASALT_SQL_EXPR_LIST:
        for (int i = 0; i < e->u.list.n_items; i++)
            n += uses_in_expr(e->u.list.items[i], name);
        return n;
    default: return 0;
    }
}

static int uses_in_from(const struct basalt_sql_from *f, const char *name)
{
    if (f == NULL)
        return 0;
    switch (f->kind) {
    case BASALT_SQL_FROM_TABLE:
        return f->u.table.name.n_parts == 1 && strcmp(f->u.table.name.parts[0].name, name) == 0;
    case BASALT_SQL_FROM_SUBQUERY: return uses_in_query(f->u.subquery, name);
    case BASALT_SQL_FROM_JOIN:
        return uses_in_from(f->u.join.left, name) + uses_in_from(f->u.join.right, name) +
               uses_in_expr(f->u.join.on, name);
    default: return 0;
    }
}

/* References to `name` in q without its WITH. */
static int uses_in_body(const struct basalt_sql_query *q, const char *name)
{
    int n = 0;
    switch (q->kind) {
    case BASALT_SQL_QUERY_SELECT: {
        const struct basalt_sql_select *s = &q->u.select;
        n = uses_in_from(s->from, name) + uses_in_expr(s->where, name) +
            uses_in_expr(s->having, name) + uses_in_expr(s->qualify, name);
        for (int i = 0; i < s->n_items; i++)
            n += uses_in_expr(s->items[i].expr, name);
        for (int i = 0; i < s->n_group; i++)
            n += uses_in_expr(s->group[i], name);
        break;
    }
    case BASALT_SQL_QUERY_SET_OP:
        n = uses_in_query(q->u.set_op.left, name) + uses_in_query(q->u.set_op.right, name);
        break;
    default: break;
    }
    for (int i = 0; i < q->n_order; i++)
        n += uses_in_expr(q->order[i].expr, name);
    return n;
}

/* References to `name` in q, its WITH included; a CTE of q with the same
 * name hides the outer one from there on. */
static int uses_in_query(const struct basalt_sql_query *q, const char *name)
{
    if (q == NULL)
        return 0;
    int n = 0;
    for (int i = 0; i < q->n_ctes; i++) {
        n += uses_in_query(q->ctes[i].query, name);
        if (strcmp(q->ctes[i].name.name, name) == 0)
            return n;
    }
    return n + uses_in_body(q, name);
}

/* References to q's CTE k: in the CTEs after it and in q's body. */
int basalt_sql_query_uses(const struct basalt_sql_query *q, const char *name)
{
    return uses_in_query(q, name);
}

static bool reads_itself(const struct basalt_sql_cte *c)
{
    return c->recursive && uses_in_query(c->query, c->name.name) > 0;
}

static int cte_uses(const struct basalt_sql_query *q, int k)
{
    const char *name = q->ctes[k].name.name;
    int n = 0;
    for (int i = k + 1; i < q->n_ctes; i++) {
        n += uses_in_query(q->ctes[i].query, name);
        if (strcmp(q->ctes[i].name.name, name) == 0)
            return n;
    }
    return n + uses_in_body(q, name);
}

/* Whether a CTE's rows are expected to be few next to what it reads. */
static bool aggregates(struct binder *B, const struct basalt_sql_query *q)
{
    if (q->kind != BASALT_SQL_QUERY_SELECT)
        return false;
    const struct basalt_sql_select *s = &q->u.select;
    if (s->distinct || s->n_distinct_on > 0 || s->group_all || s->n_group > 0 || s->n_grouping > 0)
        return true;
    for (int i = 0; i < s->n_items; i++)
        if (basalt_sql_has_aggregate(B, s->items[i].expr))
            return true;
    return false;
}

static bool computed_once(struct binder *B, const struct basalt_sql_query *q, int k)
{
    const struct basalt_sql_cte *c = &q->ctes[k];
    if (reads_itself(c))
        return true; /* its rows come from running it step by step */
    switch (c->materialize) {
    case BASALT_SQL_CTE_MATERIALIZED: return true;
    case BASALT_SQL_CTE_NOT_MATERIALIZED: return false;
    default: return cte_uses(q, k) >= 2 && aggregates(B, c->query);
    }
}

/* ------------------------------------------------------------------ scope */

basalt_status basalt_sql_ctes_push(struct binder *B, const struct basalt_sql_query *q,
                                   struct basalt_error *err)
{
    for (int i = 0; i < q->n_ctes; i++) {
        if (B->n_ctes == B->cap_ctes) {
            int cap = B->cap_ctes ? B->cap_ctes * 2 : 8;
            struct bcte_scope *c = basalt_realloc(B->ctes, (size_t)cap * sizeof *c);
            if (c == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            B->ctes = c;
            B->cap_ctes = cap;
        }
        B->ctes[B->n_ctes++] = (struct bcte_scope){&q->ctes[i], computed_once(B, q, i), NULL, NULL};
    }
    return BASALT_OK;
}

int basalt_sql_cte_find(const struct binder *B, const struct basalt_sql_name *n)
{
    if (n->n_parts != 1)
        return -1;
    for (int i = B->n_ctes - 1; i >= 0; i--)
        if (strcmp(B->ctes[i].cte->name.name, n->parts[0].name) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------- computed once */

static void rows_reset(struct bcte_rows *r)
{
    for (int64_t i = 0; i < r->n_batches; i++)
        basalt_arrow_shared_release(r->batches[i]);
    basalt_free(r->batches);
    basalt_arrow_schema_release(&r->schema);
    memset(r, 0, sizeof *r);
}

void basalt_sql_ctes_reset(struct binder *B)
{
    for (int i = 0; i < B->n_cte_rows; i++)
        rows_reset(&B->cte_rows[i]);
    basalt_free(B->cte_rows);
    basalt_free(B->ctes);
    B->cte_rows = NULL;
    B->ctes = NULL;
    B->n_cte_rows = B->cap_cte_rows = B->n_ctes = B->cap_ctes = 0;
}

/* Runs the CTE and keeps its rows as shared arrays. */
static basalt_status compute(struct binder *B, const struct basalt_sql_cte *cte,
                             struct bcte_rows *r, struct basalt_error *err)
{
    memset(r, 0, sizeof *r);
    r->cte = cte;
    struct brel rel;
    struct basalt_arrow_batches rows;
    basalt_arrow_batches_init(&rows);
    basalt_status st;
    if (reads_itself(cte)) {
        st = basalt_sql_recursive_rows(B, cte, &rows, &r->names, err);
    } else {
        st = basalt_sql_bind_query(B, cte->query, &rel, &r->names, err);
        if (st == BASALT_OK)
            st = basalt_qplan_execute(B->ctx, rel.node, &rows, err);
    }
    if (st == BASALT_OK && rows.n > 0) {
        r->batches = basalt_calloc((size_t)rows.n, sizeof *r->batches);
        if (r->batches == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int64_t i = 0; st == BASALT_OK && i < rows.n; i++) {
        r->n_rows += rows.arrays[i].length;
        st = basalt_arrow_shared_new(&rows.arrays[i], &r->batches[i], err);
        if (st == BASALT_OK)
            r->n_batches++;
    }
    if (st == BASALT_OK)
        basalt_arrow_schema_move(&rows.schema, &r->schema);
    basalt_arrow_batches_reset(&rows);
    for (int i = 0; st == BASALT_OK && i < cte->n_columns && r->names && i < r->schema.n_children; i++)
        r->names[i] = cte->columns[i].name;
    if (st != BASALT_OK)
        rows_reset(r);
    return st;
}

static basalt_status computed(struct binder *B, const struct basalt_sql_cte *cte,
                              const struct bcte_rows **out, struct basalt_error *err)
{
    for (int i = 0; i < B->n_cte_rows; i++)
        if (B->cte_rows[i].cte == cte) {
            *out = &B->cte_rows[i];
            return BASALT_OK;
        }
    struct bcte_rows r;
    basalt_status st = compute(B, cte, &r, err);
    if (st != BASALT_OK)
        return st;
    if (B->n_cte_rows == B->cap_cte_rows) {
        int cap = B->cap_cte_rows ? B->cap_cte_rows * 2 : 4;
        struct bcte_rows *c = basalt_realloc(B->cte_rows, (size_t)cap * sizeof *c);
        if (c == NULL) {
            rows_reset(&r);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        B->cte_rows = c;
        B->cap_cte_rows = cap;
    }
    B->cte_rows[B->n_cte_rows] = r;
    *out = &B->cte_rows[B->n_cte_rows++];
    return BASALT_OK;
}

/* A VALUES node over views of a recursive CTE's rows of the step being
 * computed (they outlive the step's run). */
static basalt_status read_step_rows(struct binder *B, const struct bcte_scope *c, struct brel *rel,
                                    struct basalt_error *err)
{
    struct basalt_arrow_batches views;
    basalt_arrow_batches_init(&views);
    basalt_status st = basalt_arrow_schema_copy(&c->rows->schema, &views.schema, err);
    for (int64_t i = 0; st == BASALT_OK && i < c->rows->n; i++) {
        struct ArrowArray v;
        st = basalt_arrow_array_view(&c->rows->arrays[i], &v, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(&views, &v, err);
    }
    struct basalt_qplan *node = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_values(B->ctx, &views, &node, err);
    basalt_arrow_batches_reset(&views);
    if (st == BASALT_OK)
        st = basalt_sql_rel_new(B, node, rel, err);
    return st;
}

/* A VALUES node over views of the computed rows. */
static basalt_status read_rows(struct binder *B, const struct bcte_rows *r, struct brel *rel,
                               struct basalt_error *err)
{
    struct basalt_arrow_batches views;
    basalt_arrow_batches_init(&views);
    basalt_status st = basalt_arrow_schema_copy(&r->schema, &views.schema, err);
    for (int64_t i = 0; st == BASALT_OK && i < r->n_batches; i++) {
        struct ArrowArray v;
        st = basalt_arrow_shared_view(r->batches[i], &v, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(&views, &v, err);
    }
    struct basalt_qplan *node = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_values(B->ctx, &views, &node, err);
    basalt_arrow_batches_reset(&views);
    char label[160];
    snprintf(label, sizeof label, "CTE %s", r->cte->name.name);
    if (st == BASALT_OK)
        st = basalt_qplan_values_label(node, label, err);
    if (st == BASALT_OK)
        st = basalt_sql_rel_new(B, node, rel, err);
    if (st == BASALT_OK) {
        rel->rows = (double)r->n_rows;
        rel->table_rows = true; /* counted, not guessed */
    }
    return st;
}

basalt_status basalt_sql_cte_bind(struct binder *B, int k, struct brel *rel, const char ***names,
                                  struct basalt_error *err)
{
    const struct basalt_sql_cte *cte = B->ctes[k].cte;
    if (B->ctes[k].rows != NULL) {
        *names = B->ctes[k].names;
        return read_step_rows(B, &B->ctes[k], rel, err);
    }
    if (!B->ctes[k].once) {
        basalt_status st = basalt_sql_bind_query(B, cte->query, rel, names, err);
        for (int i = 0; st == BASALT_OK && i < cte->n_columns && i < rel->n; i++)
            (*names)[i] = cte->columns[i].name;
        return st;
    }
    /* The CTE binds with the CTEs visible where it is defined, those before
     * it, whatever the scope of this first reference: its own WITH then
     * lands on the entries from k on, which are kept aside meanwhile. */
    int saved = B->n_ctes, n_hidden = B->n_ctes - k;
    struct bcte_scope *hidden = basalt_calloc((size_t)n_hidden, sizeof *hidden);
    if (hidden == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(hidden, B->ctes + k, (size_t)n_hidden * sizeof *hidden);
    B->n_ctes = k;
    const struct bcte_rows *r = NULL;
    basalt_status st = computed(B, cte, &r, err);
    memcpy(B->ctes + k, hidden, (size_t)n_hidden * sizeof *hidden);
    B->n_ctes = saved;
    basalt_free(hidden);
    if (st == BASALT_OK)
        st = read_rows(B, r, rel, err);
    if (st == BASALT_OK)
        *names = r->names;
    return st;
}
