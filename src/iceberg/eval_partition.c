/* Evaluation on partition tuples: exact matching of a projected filter, and
 * residuals (the reference implementation's ResidualEvaluator). */
#include <string.h>

#include "transform_internal.h"

static int spec_index(const struct basalt_iceberg_partition_spec *spec, int32_t field_id)
{
    for (uint32_t i = 0; spec && i < spec->n_fields; i++)
        if (spec->fields[i].field_id == field_id)
            return (int)i;
    return -1;
}

/* 1 match, 0 no match, -1 cannot tell. */
static int partition_eval(const struct basalt_iceberg_expr *e,
                          const struct basalt_iceberg_partition_spec *spec,
                          const struct basalt_iceberg_value *tuple, uint32_t n)
{
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
        return 1;
    case BASALT_ICEBERG_OP_FALSE:
        return 0;
    case BASALT_ICEBERG_OP_AND: {
        int l = partition_eval(e->left, spec, tuple, n);
        if (l == 0)
            return 0;
        int r = partition_eval(e->right, spec, tuple, n);
        if (r == 0)
            return 0;
        return (l == 1 && r == 1) ? 1 : -1;
    }
    case BASALT_ICEBERG_OP_OR: {
        int l = partition_eval(e->left, spec, tuple, n);
        if (l == 1)
            return 1;
        int r = partition_eval(e->right, spec, tuple, n);
        if (r == 1)
            return 1;
        return (l == 0 && r == 0) ? 0 : -1;
    }
    case BASALT_ICEBERG_OP_NOT: {
        int v = partition_eval(e->left, spec, tuple, n);
        return v < 0 ? -1 : !v;
    }
    default: {
        int idx = spec_index(spec, e->field_id);
        if (idx < 0 || (uint32_t)idx >= n)
            return -1;
        return basalt_iceberg_tx_pred_eval(e, &tuple[idx]);
    }
    }
}

bool basalt_iceberg_partition_matches(const struct basalt_iceberg_expr *partition_expr,
                                      const struct basalt_iceberg_partition_spec *spec,
                                      const struct basalt_iceberg_value *tuple, uint32_t n)
{
    if (!partition_expr)
        return true;
    if (!tuple)
        n = 0;
    return partition_eval(partition_expr, spec, tuple, n) != 0;
}

/* ------------------------------------------------------------------ residual */

struct residual_ctx {
    const struct basalt_iceberg_schema *schema;
    const struct basalt_iceberg_partition_spec *spec;
    const struct basalt_iceberg_value *tuple;
    uint32_t n;
    struct basalt_arena *arena;  /* the result */
    struct basalt_arena scratch; /* projections, dropped on return */
    struct basalt_error *err;
};

static basalt_status nomem(struct residual_ctx *c)
{
    return basalt_error_set(c->err, BASALT_NOMEM, "residual: out of memory");
}

static struct basalt_iceberg_expr *copy_node(struct basalt_arena *arena,
                                             const struct basalt_iceberg_expr *e)
{
    struct basalt_iceberg_expr *copy = basalt_iceberg_tx_node(arena, e->op);
    if (copy)
        *copy = *e;
    return copy;
}

static basalt_status residual_pred(struct residual_ctx *c, const struct basalt_iceberg_expr *pred,
                                   struct basalt_iceberg_expr **out)
{
    if (pred->field_id == 0)
        return basalt_error_set(c->err, BASALT_INVALID_ARG,
                                "residual: predicate on '%s' is not bound",
                                pred->name ? pred->name : "?");
    const struct basalt_iceberg_type *source = pred->type;
    if (!source)
        source = basalt_iceberg_tx_field_type(c->schema, pred->field_id, NULL);
    for (uint32_t i = 0; c->spec && i < c->spec->n_fields && i < c->n; i++) {
        const struct basalt_iceberg_partition_field *f = &c->spec->fields[i];
        if (f->source_id != pred->field_id)
            continue;
        basalt_status st;
        /* Strictly satisfied by the partition: every row of the file matches. */
        struct basalt_iceberg_expr *p =
            basalt_iceberg_tx_project_pred(pred, f, source, true, &c->scratch, &st);
        if (st != BASALT_OK)
            return nomem(c);
        if (p && basalt_iceberg_tx_pred_eval(p, &c->tuple[i]) == 1) {
            *out = basalt_iceberg_expr_true(c->arena);
            return *out ? BASALT_OK : nomem(c);
        }
        /* Inclusive projection failed: no row of the file matches. */
        p = basalt_iceberg_tx_project_pred(pred, f, source, false, &c->scratch, &st);
        if (st != BASALT_OK)
            return nomem(c);
        if (p && basalt_iceberg_tx_pred_eval(p, &c->tuple[i]) == 0) {
            *out = basalt_iceberg_expr_false(c->arena);
            return *out ? BASALT_OK : nomem(c);
        }
    }
    *out = copy_node(c->arena, pred);
    return *out ? BASALT_OK : nomem(c);
}

static basalt_status residual(struct residual_ctx *c, const struct basalt_iceberg_expr *e,
                              struct basalt_iceberg_expr **out)
{
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
    case BASALT_ICEBERG_OP_FALSE:
        *out = copy_node(c->arena, e);
        return *out ? BASALT_OK : nomem(c);
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR: {
        if (!e->left || !e->right)
            return basalt_error_set(c->err, BASALT_INVALID_ARG, "residual: malformed expression");
        struct basalt_iceberg_expr *l, *r;
        basalt_status st = residual(c, e->left, &l);
        if (st == BASALT_OK)
            st = residual(c, e->right, &r);
        if (st != BASALT_OK)
            return st;
        *out = e->op == BASALT_ICEBERG_OP_AND ? basalt_iceberg_expr_and(c->arena, l, r)
                                              : basalt_iceberg_expr_or(c->arena, l, r);
        return *out ? BASALT_OK : nomem(c);
    }
    case BASALT_ICEBERG_OP_NOT:
        return basalt_error_set(c->err, BASALT_INTERNAL, "residual: NOT left after rewrite");
    default:
        return residual_pred(c, e, out);
    }
}

basalt_status basalt_iceberg_residual(const struct basalt_iceberg_expr *bound,
                                      const struct basalt_iceberg_schema *schema,
                                      const struct basalt_iceberg_partition_spec *spec,
                                      const struct basalt_iceberg_value *tuple, uint32_t n,
                                      struct basalt_arena *arena, struct basalt_iceberg_expr **out,
                                      struct basalt_error *err)
{
    if (!bound || !arena || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "residual: NULL argument");
    *out = NULL;
    struct residual_ctx c = {.schema = schema,
                             .spec = spec,
                             .tuple = tuple,
                             .n = tuple ? n : 0,
                             .arena = arena,
                             .err = err};
    basalt_arena_init(&c.scratch, 1024);
    basalt_status st = BASALT_OK;
    if (basalt_iceberg_tx_has_not(bound)) {
        /* into the result's arena: predicates left in the result point into it */
        bound = basalt_iceberg_expr_rewrite_not(arena, bound);
        if (!bound)
            st = nomem(&c);
    }
    if (st == BASALT_OK)
        st = residual(&c, bound, out);
    basalt_arena_reset(&c.scratch);
    if (st != BASALT_OK)
        *out = NULL;
    return st;
}
