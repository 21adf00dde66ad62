/* Constant expressions where a clause needs a value at bind time (LIMIT,
 * OFFSET, the arguments of range): the expression is lowered over one row
 * without columns, so `2 * 5`, `'3'` or `(SELECT max(n) FROM t)` fold to a
 * value, and a column name fails as not found. */
#include <string.h>

#include "bind/bind_internal.h"

basalt_status basalt_sql_constant(struct binder *B, const struct basalt_sql_expr *e,
                                  const struct basalt_query_type *to, const char *what,
                                  struct basalt_query_value *out, struct basalt_error *err)
{
    struct basalt_qplan *one;
    struct brel rel;
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_sql_one_row(B, &one, err);
    if (st == BASALT_OK)
        st = basalt_sql_rel_new(B, one, &rel, err);
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, one, &b, err);
    if (st != BASALT_OK)
        return st;
    struct bscope empty;
    memset(&empty, 0, sizeof empty);
    struct blower L = {B, &empty, &rel, b, NULL, 0, what};
    struct basalt_qexpr *x;
    st = basalt_sql_lower(&L, e, &x, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_type t = basalt_qexpr_type(x);
    if (to != NULL && t.id != BASALT_QUERY_TYPE_NULL && !basalt_query_type_equal(t, *to)) {
        char from[64], want[64];
        st = basalt_qexpr_cast(b, x, *to, false, &x, err);
        if (st != BASALT_OK)
            return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err, "%s takes %s, not %s", what,
                                  basalt_query_type_name(*to, want, sizeof want),
                                  basalt_query_type_name(t, from, sizeof from));
    }
    if (!basalt_qexpr_constant(x, out)) {
        char want[64];
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err, "%s must be a constant%s%s",
                              what, to != NULL ? " " : "",
                              to != NULL ? basalt_query_type_name(*to, want, sizeof want) : "");
    }
    return BASALT_OK;
}
