/* Windows whose rows are wanted only up to a row number: a filter with a
 * conjunct `rn <= K` (or rn < K, rn = K, and the same turned around; K an
 * integer constant) where rn is, through the projections and filters that
 * pass it on, a ROW_NUMBER of a window all of whose calls are ROW_NUMBER,
 * RANK or DENSE_RANK. On a row those calls depend only on the rows before
 * it in its partition, which have smaller row numbers, so dropping the rows
 * past K changes no value that the filter lets through. The window is
 * marked with the limit (plan/run_window_limit.c prunes its input as it
 * comes: "the top K per group" in about K rows of memory per group). */
#include "plan/plan_internal.h"
#include "query_internal.h"

/* The window producing column *col of n's output, the column mapped to the
 * window's own output; NULL when another operator comes first. */
static struct basalt_qplan *window_below(struct basalt_qplan *n, int32_t *col)
{
    for (;;) {
        if (n->kind == QPLAN_WINDOW)
            return n;
        if (n->kind == QPLAN_PROJECT) {
            if (*col < 0 || *col >= n->n_exprs)
                return NULL;
            int32_t c = basalt_qexpr_column_index(n->exprs[*col]);
            if (c < 0)
                return NULL;
            *col = c;
        } else if (n->kind == QPLAN_FILTER) {
            if (n->filter_keep != NULL) {
                if (*col < 0 || *col >= n->n_filter_keep)
                    return NULL;
                *col = n->filter_keep[*col];
            }
        } else {
            return NULL;
        }
        n = n->child[0];
    }
}

static bool prefix_calls_only(const struct basalt_qplan *w)
{
    for (int i = 0; i < w->n_wcalls; i++)
        if (w->wcalls[i].fn != BASALT_QPLAN_WIN_ROW_NUMBER &&
            w->wcalls[i].fn != BASALT_QPLAN_WIN_RANK &&
            w->wcalls[i].fn != BASALT_QPLAN_WIN_DENSE_RANK)
            return false;
    return true;
}

static bool integer_constant(const struct basalt_qexpr *e, int64_t *k)
{
    struct basalt_query_value v;
    if (!basalt_qexpr_constant(e, &v) || v.is_null)
        return false;
    switch (v.type.id) {
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64:
        *k = v.v.i;
        return true;
    default:
        return false;
    }
}

/* The limit a comparison of a row number with k sets (false: none). */
static bool limit_of(enum qop op, bool column_left, int64_t k, int64_t *limit)
{
    if (!column_left) /* k OP rn is rn OP' k */
        op = op == QOP_LE ? QOP_GE : op == QOP_GE ? QOP_LE : op == QOP_LT ? QOP_GT
                                                        : op == QOP_GT ? QOP_LT
                                                                       : op;
    if (op == QOP_LE || op == QOP_EQ)
        *limit = k;
    else if (op == QOP_LT)
        *limit = k - 1;
    else
        return false;
    if (*limit < 0)
        *limit = 0; /* row numbers start at 1: nothing passes */
    return true;
}

static void conjunct(struct basalt_qplan *filter, const struct basalt_qexpr *e)
{
    if (e->kind == QN_AND) {
        for (int i = 0; i < e->n_args; i++)
            conjunct(filter, e->args[i]);
        return;
    }
    if (e->kind != QN_CALL || e->n_args != 2 ||
        (e->op != QOP_LE && e->op != QOP_LT && e->op != QOP_EQ && e->op != QOP_GE &&
         e->op != QOP_GT))
        return;
    int64_t k = 0, limit = 0;
    int32_t col = basalt_qexpr_column_index(e->args[0]);
    bool column_left = col >= 0;
    if (column_left ? !integer_constant(e->args[1], &k)
                    : (col = basalt_qexpr_column_index(e->args[1])) < 0 ||
                          !integer_constant(e->args[0], &k))
        return;
    if (!limit_of(e->op, column_left, k, &limit))
        return;
    struct basalt_qplan *w = window_below(filter->child[0], &col);
    if (w == NULL || !prefix_calls_only(w))
        return;
    int64_t n_in = w->schema.n_children - w->n_wcalls;
    if (col < n_in || w->wcalls[col - n_in].fn != BASALT_QPLAN_WIN_ROW_NUMBER)
        return;
    if (!w->has_row_limit || limit < w->row_limit) {
        w->has_row_limit = true;
        w->row_limit = limit;
    }
}

void basalt_qplan_window_limits(struct basalt_qplan *n)
{
    for (int i = 0; i < 2; i++)
        if (n->child[i] != NULL)
            basalt_qplan_window_limits(n->child[i]);
    for (int i = 0; i < n->n_children; i++)
        basalt_qplan_window_limits(n->children[i]);
    if (n->kind == QPLAN_FILTER && n->pred != NULL)
        conjunct(n, n->pred);
}
