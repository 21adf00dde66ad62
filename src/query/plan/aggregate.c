/* The aggregation node: keys and aggregate calls over its input, result
 * types as DuckDB's (agg/agg.h). */
#include <stdio.h>
#include <string.h>

#include "agg/agg.h"
#include "plan/plan_internal.h"

static enum basalt_qagg_kind kind_of(enum basalt_qplan_agg k)
{
    /* The two enums list the aggregates in the same order. */
    return (enum basalt_qagg_kind)k;
}

basalt_status basalt_qplan_agg_call_of(const struct qagg_call *c, struct basalt_qagg_call *out)
{
    memset(out, 0, sizeof *out);
    out->kind = kind_of(c->call.kind);
    out->distinct = c->call.distinct;
    if (c->call.arg != NULL)
        out->input = basalt_qexpr_type(c->call.arg);
    out->ordered = c->call.n_order > 0;
    if (out->ordered)
        out->input2 = basalt_query_type_make(BASALT_QUERY_TYPE_BINARY); /* the order key */
    else if (c->call.arg2 != NULL && basalt_qagg_call_two_args(out))
        out->input2 = basalt_qexpr_type(c->call.arg2);
    out->quantile = c->call.quantile;
    out->separator = c->call.separator;
    return BASALT_OK;
}

basalt_status basalt_qplan_aggregate(struct basalt_qctx *ctx, struct basalt_qplan *child,
                                     struct basalt_qexpr *const *keys,
                                     const char *const *key_names, int n_keys,
                                     const struct basalt_qplan_agg_call *calls, int n_calls,
                                     struct basalt_qplan **out, struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || child == NULL || n_keys < 0 || n_calls < 0 ||
        (n_keys > 0 && keys == NULL) || (n_calls > 0 && calls == NULL))
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: NULL argument");
    basalt_status refused = basalt_qexpr_refuse_opaque(keys, n_keys, err);
    if (refused == BASALT_OK)
        refused = basalt_qexpr_refuse_list(keys, n_keys, "a grouping key", err);
    int n_order = 0;
    for (int i = 0; i < n_calls && refused == BASALT_OK; i++) {
        struct basalt_qexpr *args[3] = {calls[i].arg, calls[i].arg2, calls[i].filter};
        refused = basalt_qexpr_refuse_opaque(args, 3, err);
        if (refused == BASALT_OK)
            refused = basalt_qexpr_refuse_list(args, 3, "an aggregate's argument", err);
        if (calls[i].n_order < 0 || (calls[i].n_order > 0 && calls[i].order == NULL))
            return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate %d: bad ORDER BY", i);
        for (int k = 0; k < calls[i].n_order && refused == BASALT_OK; k++)
            refused = basalt_qexpr_refuse_opaque(&calls[i].order[k].expr, 1, err);
        for (int k = 0; k < calls[i].n_order && refused == BASALT_OK; k++)
            refused = basalt_qexpr_refuse_list(&calls[i].order[k].expr, 1, "an ORDER BY key", err);
        n_order += calls[i].n_order;
    }
    if (refused != BASALT_OK)
        return refused;
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_AGGREGATE, &node, err);
    if (st != BASALT_OK)
        return st;
    node->child[0] = child;
    node->exprs = basalt_calloc((size_t)n_keys + 1, sizeof *node->exprs);
    node->calls = basalt_calloc((size_t)n_calls + 1, sizeof *node->calls);
    node->agg_order = basalt_calloc((size_t)n_order + 1, sizeof *node->agg_order);
    if (node->exprs == NULL || node->calls == NULL || node->agg_order == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n_keys; i++) {
        if (keys[i] == NULL)
            return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: NULL key");
        node->exprs[i] = keys[i];
    }
    node->n_exprs = n_keys;
    node->n_calls = n_calls;
    st = basalt_arrow_schema_init(&node->schema, "+s", NULL, 0, n_keys + n_calls, err);
    for (int i = 0; i < n_keys && st == BASALT_OK; i++) {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "k%d", i);
        const char *name = key_names && key_names[i] ? key_names[i] : fallback;
        st = basalt_qplan_type_field(basalt_qexpr_type(keys[i]), name, true,
                                     node->schema.children[i], err);
    }
    for (int i = 0; i < n_calls && st == BASALT_OK; i++) {
        struct qagg_call *c = &node->calls[i];
        c->call = calls[i];
        enum basalt_qagg_kind k = kind_of(c->call.kind);
        bool ordered = c->call.n_order > 0;
        if (c->call.kind != BASALT_QPLAN_COUNT_STAR && c->call.arg == NULL)
            return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate %d: no argument", i);
        if (ordered && !basalt_qagg_kind_arg(k) && k != BASALT_QAGG_STRING_AGG &&
            k != BASALT_QAGG_ARRAY_AGG)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "aggregate %d: ORDER BY only in the ARG_MIN family, "
                                    "STRING_AGG and ARRAY_AGG",
                                    i);
        if (!ordered)
            c->call.filter = NULL; /* the argument carries it (CASE) */
        if ((basalt_qagg_kind_binary(k) || (basalt_qagg_kind_arg(k) && !ordered)) &&
            c->call.arg2 == NULL)
            return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate %d: no second argument",
                                    i);
        if (!basalt_qagg_kind_binary(k) && !(basalt_qagg_kind_arg(k) && !ordered))
            c->call.arg2 = NULL;
        struct basalt_qplan_agg_order *mine = node->agg_order + node->n_agg_order;
        for (int j = 0; j < c->call.n_order; j++) {
            if (c->call.order[j].expr == NULL)
                return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate %d: no ORDER BY key",
                                        i);
            mine[j] = c->call.order[j];
        }
        node->n_agg_order += c->call.n_order;
        c->call.order = ordered ? mine : NULL;
        struct basalt_qagg_call q;
        basalt_qplan_agg_call_of(c, &q);
        st = basalt_qagg_result_type(&q, &c->result, err);
        char fallback[32];
        snprintf(fallback, sizeof fallback, "a%d", i);
        const char *name = calls[i].name ? calls[i].name : fallback;
        bool never_null = c->call.kind == BASALT_QPLAN_COUNT_STAR ||
                          c->call.kind == BASALT_QPLAN_COUNT ||
                          c->call.kind == BASALT_QPLAN_REGR_COUNT;
        if (st == BASALT_OK)
            st = basalt_qplan_type_field(c->result, name, !never_null,
                                         node->schema.children[n_keys + i], err);
    }
    if (st == BASALT_OK)
        *out = node;
    return st;
}
