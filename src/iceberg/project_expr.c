/* Projection of a whole bound row filter onto a partition spec (the
 * reference implementation's Projections): each predicate projects through
 * every partition field of its column; inclusive projections of one
 * predicate are ANDed (each alone admits every matching partition), strict
 * ones ORed (each alone guarantees the predicate). */
#include "transform_internal.h"

bool basalt_iceberg_tx_has_not(const struct basalt_iceberg_expr *e)
{
    if (!e)
        return false;
    if (e->op == BASALT_ICEBERG_OP_NOT)
        return true;
    if (e->op == BASALT_ICEBERG_OP_AND || e->op == BASALT_ICEBERG_OP_OR)
        return basalt_iceberg_tx_has_not(e->left) || basalt_iceberg_tx_has_not(e->right);
    return false;
}

struct project_ctx {
    const struct basalt_iceberg_schema *schema;
    const struct basalt_iceberg_partition_spec *spec;
    struct basalt_arena *arena;
    bool strict;
    struct basalt_error *err;
};

static basalt_status nomem(struct project_ctx *c)
{
    return basalt_error_set(c->err, BASALT_NOMEM, "projection: out of memory");
}

static basalt_status project_pred(struct project_ctx *c, const struct basalt_iceberg_expr *pred,
                                  struct basalt_iceberg_expr **out)
{
    if (pred->field_id == 0)
        return basalt_error_set(c->err, BASALT_INVALID_ARG,
                                "projection: predicate on '%s' is not bound",
                                pred->name ? pred->name : "?");
    const struct basalt_iceberg_type *source = pred->type;
    if (!source)
        source = basalt_iceberg_tx_field_type(c->schema, pred->field_id, NULL);
    struct basalt_iceberg_expr *acc = NULL;
    for (uint32_t i = 0; c->spec && i < c->spec->n_fields; i++) {
        const struct basalt_iceberg_partition_field *f = &c->spec->fields[i];
        if (f->source_id != pred->field_id)
            continue;
        basalt_status st;
        struct basalt_iceberg_expr *p =
            basalt_iceberg_tx_project_pred(pred, f, source, c->strict, c->arena, &st);
        if (st != BASALT_OK)
            return nomem(c);
        if (!p)
            continue;
        if (!acc) {
            acc = p;
        } else {
            acc = c->strict ? basalt_iceberg_expr_or(c->arena, acc, p)
                            : basalt_iceberg_expr_and(c->arena, acc, p);
            if (!acc)
                return nomem(c);
        }
    }
    if (!acc) {
        acc = c->strict ? basalt_iceberg_expr_false(c->arena) : basalt_iceberg_expr_true(c->arena);
        if (!acc)
            return nomem(c);
    }
    *out = acc;
    return BASALT_OK;
}

static basalt_status project(struct project_ctx *c, const struct basalt_iceberg_expr *e,
                             struct basalt_iceberg_expr **out)
{
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
        *out = basalt_iceberg_expr_true(c->arena);
        return *out ? BASALT_OK : nomem(c);
    case BASALT_ICEBERG_OP_FALSE:
        *out = basalt_iceberg_expr_false(c->arena);
        return *out ? BASALT_OK : nomem(c);
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR: {
        if (!e->left || !e->right)
            return basalt_error_set(c->err, BASALT_INVALID_ARG, "projection: malformed expression");
        struct basalt_iceberg_expr *l, *r;
        basalt_status st = project(c, e->left, &l);
        if (st == BASALT_OK)
            st = project(c, e->right, &r);
        if (st != BASALT_OK)
            return st;
        *out = e->op == BASALT_ICEBERG_OP_AND ? basalt_iceberg_expr_and(c->arena, l, r)
                                              : basalt_iceberg_expr_or(c->arena, l, r);
        return *out ? BASALT_OK : nomem(c);
    }
    case BASALT_ICEBERG_OP_NOT:
        return basalt_error_set(c->err, BASALT_INTERNAL, "projection: NOT left after rewrite");
    default:
        return project_pred(c, e, out);
    }
}

static basalt_status project_entry(const struct basalt_iceberg_expr *bound,
                                   const struct basalt_iceberg_schema *schema,
                                   const struct basalt_iceberg_partition_spec *spec,
                                   struct basalt_arena *arena, bool strict,
                                   struct basalt_iceberg_expr **out, struct basalt_error *err)
{
    if (!bound || !arena || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "projection: NULL argument");
    *out = NULL;
    struct project_ctx c = {schema, spec, arena, strict, err};
    if (basalt_iceberg_tx_has_not(bound)) {
        bound = basalt_iceberg_expr_rewrite_not(arena, bound);
        if (!bound)
            return nomem(&c);
    }
    return project(&c, bound, out);
}

basalt_status basalt_iceberg_project_inclusive(const struct basalt_iceberg_expr *bound,
                                               const struct basalt_iceberg_schema *schema,
                                               const struct basalt_iceberg_partition_spec *spec,
                                               struct basalt_arena *arena,
                                               struct basalt_iceberg_expr **out,
                                               struct basalt_error *err)
{
    return project_entry(bound, schema, spec, arena, false, out, err);
}

basalt_status basalt_iceberg_project_strict(const struct basalt_iceberg_expr *bound,
                                            const struct basalt_iceberg_schema *schema,
                                            const struct basalt_iceberg_partition_spec *spec,
                                            struct basalt_arena *arena,
                                            struct basalt_iceberg_expr **out,
                                            struct basalt_error *err)
{
    return project_entry(bound, schema, spec, arena, true, out, err);
}
