/* The inclusive metrics evaluator: may a data file hold a row matching a
 * bound row filter, judged by its column metrics (the reference
 * implementation's InclusiveMetricsEvaluator rules).
 *
 * Bounds are lower/upper bounds of the non-null, non-NaN values; they may be
 * truncated (strings, binary), so only ordering, never equality with a bound,
 * is concluded from them: != and NOT IN never prune. A NaN bound (some writers
 * of ORC files) is taken as unknown. Metrics of fields inside lists and maps
 * count elements, not rows, and are never used. */
#include <string.h>

#include "transform_internal.h"

#define MIGHT true
#define CANNOT false

struct metrics_ctx {
    const struct basalt_iceberg_schema *schema;
    const struct basalt_iceberg_data_file *file;
};

static const struct basalt_iceberg_metric_long *
find_long(const struct basalt_iceberg_metric_long *m, uint32_t n, int32_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m[mid].field_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < n && m[lo].field_id == id) ? &m[lo] : NULL;
}

static const struct basalt_iceberg_metric_bytes *
find_bytes(const struct basalt_iceberg_metric_bytes *m, uint32_t n, int32_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m[mid].field_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < n && m[lo].field_id == id) ? &m[lo] : NULL;
}

struct column {
    const struct basalt_iceberg_metric_long *values, *nulls, *nans;
    const struct basalt_iceberg_metric_bytes *lower_raw, *upper_raw;
    struct basalt_iceberg_value lower, upper;
    bool has_lower, has_upper;
};

static bool decode(const struct basalt_iceberg_type *type,
                   const struct basalt_iceberg_metric_bytes *raw, struct basalt_iceberg_value *out)
{
    if (!raw || !type)
        return false;
    if (basalt_iceberg_value_from_bytes(type, raw->data, raw->len, out, NULL) != BASALT_OK)
        return false;
    return !out->is_null;
}

static void column_load(const struct basalt_iceberg_data_file *f,
                        const struct basalt_iceberg_type *type, int32_t id, struct column *c)
{
    memset(c, 0, sizeof *c);
    c->values = find_long(f->value_counts, f->n_value_counts, id);
    c->nulls = find_long(f->null_value_counts, f->n_null_value_counts, id);
    c->nans = find_long(f->nan_value_counts, f->n_nan_value_counts, id);
    c->lower_raw = find_bytes(f->lower_bounds, f->n_lower_bounds, id);
    c->upper_raw = find_bytes(f->upper_bounds, f->n_upper_bounds, id);
    c->has_lower = decode(type, c->lower_raw, &c->lower);
    c->has_upper = decode(type, c->upper_raw, &c->upper);
}

static bool nulls_only(const struct column *c)
{
    return c->values && c->nulls && c->values->value - c->nulls->value == 0;
}

static bool nans_only(const struct column *c)
{
    return c->nans && c->values && c->nans->value == c->values->value;
}

static bool may_contain_null(const struct column *c)
{
    return !c->nulls || c->nulls->value != 0;
}

/* Raw bound bytes against a prefix, the bound cut to the prefix's length. */
static int prefix_cmp(const uint8_t *b, size_t blen, const struct basalt_iceberg_value *prefix)
{
    size_t n = blen < prefix->u.bytes.len ? blen : prefix->u.bytes.len;
    int c = n ? memcmp(b, prefix->u.bytes.data, n) : 0;
    if (c != 0)
        return c;
    return n < prefix->u.bytes.len ? -1 : 0;
}

static bool pred_may_match(const struct metrics_ctx *m, const struct basalt_iceberg_expr *e)
{
    bool repeated = false;
    const struct basalt_iceberg_type *ftype =
        basalt_iceberg_tx_field_type(m->schema, e->field_id, &repeated);
    const struct basalt_iceberg_type *type = e->type ? e->type : ftype;
    if (repeated || !type)
        return MIGHT;
    struct column c;
    column_load(m->file, type, e->field_id, &c);
    const struct basalt_iceberg_value *lit = e->n_literals ? &e->literals[0] : NULL;
    bool ok;
    int r;
    switch (e->op) {
    case BASALT_ICEBERG_OP_IS_NULL:
        return (c.nulls && c.nulls->value == 0) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_NOT_NULL:
        return nulls_only(&c) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_IS_NAN:
        if (c.nans && c.nans->value == 0)
            return CANNOT;
        return nulls_only(&c) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_NOT_NAN:
        return nans_only(&c) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_LT:
    case BASALT_ICEBERG_OP_LT_EQ:
        if (nulls_only(&c) || nans_only(&c))
            return CANNOT;
        if (!lit || !c.has_lower || basalt_iceberg_tx_is_nan(&c.lower))
            return MIGHT;
        r = basalt_iceberg_tx_compare(&c.lower, lit, &ok);
        if (!ok)
            return MIGHT;
        return (e->op == BASALT_ICEBERG_OP_LT ? r >= 0 : r > 0) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_GT:
    case BASALT_ICEBERG_OP_GT_EQ:
        if (nulls_only(&c) || nans_only(&c))
            return CANNOT;
        if (!lit || !c.has_upper || basalt_iceberg_tx_is_nan(&c.upper))
            return MIGHT;
        r = basalt_iceberg_tx_compare(&c.upper, lit, &ok);
        if (!ok)
            return MIGHT;
        return (e->op == BASALT_ICEBERG_OP_GT ? r <= 0 : r < 0) ? CANNOT : MIGHT;
    case BASALT_ICEBERG_OP_EQ:
        if (nulls_only(&c) || nans_only(&c))
            return CANNOT;
        if (!lit)
            return MIGHT;
        if (c.has_lower) {
            if (basalt_iceberg_tx_is_nan(&c.lower))
                return MIGHT;
            r = basalt_iceberg_tx_compare(&c.lower, lit, &ok);
            if (ok && r > 0)
                return CANNOT;
        }
        if (c.has_upper && !basalt_iceberg_tx_is_nan(&c.upper)) {
            r = basalt_iceberg_tx_compare(&c.upper, lit, &ok);
            if (ok && r < 0)
                return CANNOT;
        }
        return MIGHT;
    case BASALT_ICEBERG_OP_IN: {
        if (nulls_only(&c) || nans_only(&c))
            return CANNOT;
        if ((c.has_lower && basalt_iceberg_tx_is_nan(&c.lower)))
            return MIGHT;
        bool use_hi = c.has_upper && !basalt_iceberg_tx_is_nan(&c.upper);
        for (uint32_t i = 0; i < e->n_literals; i++) {
            if (c.has_lower) {
                r = basalt_iceberg_tx_compare(&e->literals[i], &c.lower, &ok);
                if (!ok)
                    return MIGHT;
                if (r < 0)
                    continue;
            }
            if (use_hi) {
                r = basalt_iceberg_tx_compare(&e->literals[i], &c.upper, &ok);
                if (!ok)
                    return MIGHT;
                if (r > 0)
                    continue;
            }
            return MIGHT;
        }
        return CANNOT;
    }
    case BASALT_ICEBERG_OP_STARTS_WITH:
        if (nulls_only(&c))
            return CANNOT;
        if (!lit || lit->is_null || lit->type != BASALT_ICEBERG_TYPE_STRING)
            return MIGHT;
        if (c.lower_raw && prefix_cmp(c.lower_raw->data, c.lower_raw->len, lit) > 0)
            return CANNOT;
        if (c.upper_raw && prefix_cmp(c.upper_raw->data, c.upper_raw->len, lit) < 0)
            return CANNOT;
        return MIGHT;
    case BASALT_ICEBERG_OP_NOT_STARTS_WITH:
        if (may_contain_null(&c) || !lit || lit->is_null || lit->type != BASALT_ICEBERG_TYPE_STRING)
            return MIGHT;
        /* matches unless both bounds, hence every value, start with the prefix */
        if (c.lower_raw && c.upper_raw && c.lower_raw->len >= lit->u.bytes.len &&
            c.upper_raw->len >= lit->u.bytes.len &&
            prefix_cmp(c.lower_raw->data, c.lower_raw->len, lit) == 0 &&
            prefix_cmp(c.upper_raw->data, c.upper_raw->len, lit) == 0)
            return CANNOT;
        return MIGHT;
    default: /* NOT_EQ, NOT_IN */
        return MIGHT;
    }
}

static bool metrics_eval(const struct metrics_ctx *m, const struct basalt_iceberg_expr *e)
{
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
        return MIGHT;
    case BASALT_ICEBERG_OP_FALSE:
        return CANNOT;
    case BASALT_ICEBERG_OP_AND:
        return metrics_eval(m, e->left) && metrics_eval(m, e->right);
    case BASALT_ICEBERG_OP_OR:
        return metrics_eval(m, e->left) || metrics_eval(m, e->right);
    case BASALT_ICEBERG_OP_NOT:
        return MIGHT; /* a may-match answer cannot be negated */
    default:
        return pred_may_match(m, e);
    }
}

bool basalt_iceberg_metrics_may_match(const struct basalt_iceberg_expr *bound,
                                      const struct basalt_iceberg_schema *schema,
                                      const struct basalt_iceberg_data_file *file)
{
    if (!bound || !file)
        return MIGHT;
    if (file->record_count == 0)
        return CANNOT;
    if (file->record_count < 0) /* unknown (imported files) */
        return MIGHT;
    struct metrics_ctx m = {schema, file};
    return metrics_eval(&m, bound);
}
