/* The manifest evaluator: may a manifest hold files matching a projected
 * partition filter, judged by the partition field summaries of its manifest
 * list entry (the reference implementation's ManifestEvaluator rules).
 * Summary bounds never include NaN; a missing lower bound means every value
 * is null (or NaN). */
#include <string.h>

#include "transform_internal.h"

#define MIGHT true
#define CANNOT false

static int spec_index(const struct basalt_iceberg_partition_spec *spec, int32_t field_id)
{
    for (uint32_t i = 0; spec && i < spec->n_fields; i++)
        if (spec->fields[i].field_id == field_id)
            return (int)i;
    return -1;
}

static bool is_float(enum basalt_iceberg_type_id id)
{
    return id == BASALT_ICEBERG_TYPE_FLOAT || id == BASALT_ICEBERG_TYPE_DOUBLE;
}

static bool all_null(const struct basalt_iceberg_field_summary *s, enum basalt_iceberg_type_id type)
{
    bool r = s->contains_null && !s->has_lower_bound;
    /* float columns without a lower bound may hold only NaN */
    if (r && is_float(type))
        r = s->has_contains_nan && !s->contains_nan;
    return r;
}

/* Compares two values; *ok false when they cannot be. */
static int cmp(const struct basalt_iceberg_value *a, const struct basalt_iceberg_value *b, bool *ok)
{
    return basalt_iceberg_tx_compare(a, b, ok);
}

/* The first min(len(bound), len(prefix)) bytes of bound against prefix. */
static int prefix_cmp(const struct basalt_iceberg_value *bound,
                      const struct basalt_iceberg_value *prefix)
{
    size_t n = bound->u.bytes.len < prefix->u.bytes.len ? bound->u.bytes.len : prefix->u.bytes.len;
    int c = n ? memcmp(bound->u.bytes.data, prefix->u.bytes.data, n) : 0;
    if (c != 0)
        return c;
    return n < prefix->u.bytes.len ? -1 : 0;
}

static bool is_bytes(const struct basalt_iceberg_value *v)
{
    return !v->is_null &&
           (v->type == BASALT_ICEBERG_TYPE_STRING || v->type == BASALT_ICEBERG_TYPE_BINARY);
}

static bool pred_may_match(const struct basalt_iceberg_expr *e,
                           const struct basalt_iceberg_field_summary *s)
{
    enum basalt_iceberg_type_id type = e->type ? e->type->id : BASALT_ICEBERG_TYPE_NONE;
    const struct basalt_iceberg_value *lo = s->has_lower_bound ? &s->lower_bound : NULL;
    const struct basalt_iceberg_value *hi = s->has_upper_bound ? &s->upper_bound : NULL;
    if (lo && lo->is_null)
        lo = NULL;
    if (hi && hi->is_null)
        hi = NULL;
    const struct basalt_iceberg_value *lit = e->n_literals ? &e->literals[0] : NULL;
    bool ok = true;
    int c;
    switch (e->op) {
    case BASALT_ICEBERG_OP_IS_NULL:
        return s->contains_null ? MIGHT : CANNOT;
    case BASALT_ICEBERG_OP_NOT_NULL:
        return all_null(s, type) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_IS_NAN:
        return (s->has_contains_nan && !s->contains_nan) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_NOT_NAN:
        /* only NaN: NaN present, no null, no bound */
        return (s->has_contains_nan && s->contains_nan && !s->contains_null && !lo) ? CANNOT
                                                                                    : MIGHT;
    case BASALT_ICEBERG_OP_LT:
    case BASALT_ICEBERG_OP_LT_EQ:
        if (!lit)
            return MIGHT;
        if (!lo)
            return CANNOT; /* all null */
        c = cmp(lo, lit, &ok);
        if (!ok)
            return MIGHT;
        return (e->op == BASALT_ICEBERG_OP_LT ? c >= 0 : c > 0) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_GT:
    case BASALT_ICEBERG_OP_GT_EQ:
        if (!lit)
            return MIGHT;
        if (!hi)
            return CANNOT;
        c = cmp(hi, lit, &ok);
        if (!ok)
            return MIGHT;
        return (e->op == BASALT_ICEBERG_OP_GT ? c <= 0 : c < 0) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_EQ:
        if (!lit)
            return MIGHT;
        if (!lo)
            return CANNOT;
        c = cmp(lo, lit, &ok);
        if (ok && c > 0)
            return CANNOT;
        if (hi) {
            c = cmp(hi, lit, &ok);
            if (ok && c < 0)
                return CANNOT;
        }
        return MIGHT;
    case BASALT_ICEBERG_OP_IN: {
        if (!lo)
            return CANNOT;
        /* some literal must lie in [lower, upper] */
        for (uint32_t i = 0; i < e->n_literals; i++) {
            c = cmp(&e->literals[i], lo, &ok);
            if (!ok)
                return MIGHT;
            if (c < 0)
                continue;
            if (hi) {
                c = cmp(&e->literals[i], hi, &ok);
                if (!ok)
                    return MIGHT;
                if (c > 0)
                    continue;
            }
            return MIGHT;
        }
        return CANNOT;
    }
    case BASALT_ICEBERG_OP_STARTS_WITH:
        if (!lit || !is_bytes(lit))
            return MIGHT;
        if (!lo || !hi)
            return CANNOT;
        if (!is_bytes(lo) || !is_bytes(hi))
            return MIGHT;
        if (prefix_cmp(lo, lit) > 0 || prefix_cmp(hi, lit) < 0)
            return CANNOT;
        return MIGHT;
    case BASALT_ICEBERG_OP_NOT_STARTS_WITH:
        if (!lit || !is_bytes(lit) || s->contains_null || !lo || !hi || !is_bytes(lo) ||
            !is_bytes(hi))
            return MIGHT;
        /* every value lies between two bounds that both start with the prefix */
        if (lo->u.bytes.len >= lit->u.bytes.len && hi->u.bytes.len >= lit->u.bytes.len &&
            prefix_cmp(lo, lit) == 0 && prefix_cmp(hi, lit) == 0)
            return CANNOT;
        return MIGHT;
    default: /* NOT_EQ, NOT_IN: bounds say nothing */
        return MIGHT;
    }
}

static bool manifest_eval(const struct basalt_iceberg_expr *e,
                          const struct basalt_iceberg_partition_spec *spec,
                          const struct basalt_iceberg_manifest_file *m)
{
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
        return MIGHT;
    case BASALT_ICEBERG_OP_FALSE:
        return CANNOT;
    case BASALT_ICEBERG_OP_AND:
        return manifest_eval(e->left, spec, m) && manifest_eval(e->right, spec, m);
    case BASALT_ICEBERG_OP_OR:
        return manifest_eval(e->left, spec, m) || manifest_eval(e->right, spec, m);
    case BASALT_ICEBERG_OP_NOT:
        return MIGHT; /* a may-match answer cannot be negated */
    default: {
        int idx = spec_index(spec, e->field_id);
        if (idx < 0 || (uint32_t)idx >= m->n_partitions)
            return MIGHT;
        return pred_may_match(e, &m->partitions[idx]);
    }
    }
}

bool basalt_iceberg_manifest_may_match(const struct basalt_iceberg_expr *partition_expr,
                                       const struct basalt_iceberg_partition_spec *spec,
                                       const struct basalt_iceberg_manifest_file *manifest)
{
    if (!partition_expr || !manifest)
        return MIGHT;
    if (partition_expr->op == BASALT_ICEBERG_OP_FALSE)
        return CANNOT;
    if (!manifest->partitions || !spec || manifest->n_partitions != spec->n_fields)
        return MIGHT;
    return manifest_eval(partition_expr, spec, manifest);
}
