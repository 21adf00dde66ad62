/* Exact evaluation of one predicate on one value (partition values). */
#include <math.h>
#include <string.h>

#include "transform_internal.h"

static int type_family(enum basalt_iceberg_type_id id)
{
    switch (id) {
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return 1;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        return 2;
    default:
        return 0;
    }
}

int basalt_iceberg_tx_compare(const struct basalt_iceberg_value *a,
                              const struct basalt_iceberg_value *b, bool *ok)
{
    *ok = true;
    if (a->type == b->type)
        return basalt_iceberg_value_compare(a, b);
    /* int and date partition values are interchangeable (day results are
     * written as either), and so are int and long after promotion. */
    int fa = type_family(a->type), fb = type_family(b->type);
    bool same_kind = (fa == fb) ||
                     (a->type == BASALT_ICEBERG_TYPE_INT && b->type == BASALT_ICEBERG_TYPE_LONG) ||
                     (a->type == BASALT_ICEBERG_TYPE_LONG && b->type == BASALT_ICEBERG_TYPE_INT);
    if (fa == 0 || fb == 0 || !same_kind) {
        *ok = false;
        return 0;
    }
    int64_t x = fa == 1 ? a->u.i32 : a->u.i64;
    int64_t y = fb == 1 ? b->u.i32 : b->u.i64;
    return (x > y) - (x < y);
}

bool basalt_iceberg_tx_is_nan(const struct basalt_iceberg_value *v)
{
    if (!v || v->is_null)
        return false;
    if (v->type == BASALT_ICEBERG_TYPE_FLOAT)
        return isnan(v->u.f32);
    if (v->type == BASALT_ICEBERG_TYPE_DOUBLE)
        return isnan(v->u.f64);
    return false;
}

static bool has_prefix(const struct basalt_iceberg_value *v,
                       const struct basalt_iceberg_value *prefix)
{
    return v->u.bytes.len >= prefix->u.bytes.len &&
           (prefix->u.bytes.len == 0 ||
            memcmp(v->u.bytes.data, prefix->u.bytes.data, prefix->u.bytes.len) == 0);
}

static bool is_bytes_type(enum basalt_iceberg_type_id id)
{
    return id == BASALT_ICEBERG_TYPE_STRING || id == BASALT_ICEBERG_TYPE_BINARY ||
           id == BASALT_ICEBERG_TYPE_FIXED || id == BASALT_ICEBERG_TYPE_UUID;
}

int basalt_iceberg_tx_pred_eval(const struct basalt_iceberg_expr *pred,
                                const struct basalt_iceberg_value *v)
{
    switch (pred->op) {
    case BASALT_ICEBERG_OP_TRUE:
        return 1;
    case BASALT_ICEBERG_OP_FALSE:
        return 0;
    case BASALT_ICEBERG_OP_IS_NULL:
        return !v || v->is_null;
    case BASALT_ICEBERG_OP_NOT_NULL:
        return v && !v->is_null;
    default:
        break;
    }
    if (!v || v->is_null)
        return 0;
    switch (pred->op) {
    case BASALT_ICEBERG_OP_IS_NAN:
        return basalt_iceberg_tx_is_nan(v);
    case BASALT_ICEBERG_OP_NOT_NAN:
        return !basalt_iceberg_tx_is_nan(v);
    case BASALT_ICEBERG_OP_IN:
    case BASALT_ICEBERG_OP_NOT_IN: {
        bool found = false;
        for (uint32_t i = 0; i < pred->n_literals && !found; i++) {
            bool ok;
            int c = basalt_iceberg_tx_compare(v, &pred->literals[i], &ok);
            if (!ok)
                return -1;
            found = c == 0;
        }
        return (pred->op == BASALT_ICEBERG_OP_IN) == found;
    }
    default:
        break;
    }
    if (pred->n_literals < 1)
        return -1;
    const struct basalt_iceberg_value *lit = &pred->literals[0];
    if (pred->op == BASALT_ICEBERG_OP_STARTS_WITH ||
        pred->op == BASALT_ICEBERG_OP_NOT_STARTS_WITH) {
        if (!is_bytes_type(v->type) || !is_bytes_type(lit->type))
            return -1;
        return has_prefix(v, lit) == (pred->op == BASALT_ICEBERG_OP_STARTS_WITH);
    }
    bool ok;
    int c = basalt_iceberg_tx_compare(v, lit, &ok);
    if (!ok)
        return -1;
    switch (pred->op) {
    case BASALT_ICEBERG_OP_LT:
        return c < 0;
    case BASALT_ICEBERG_OP_LT_EQ:
        return c <= 0;
    case BASALT_ICEBERG_OP_GT:
        return c > 0;
    case BASALT_ICEBERG_OP_GT_EQ:
        return c >= 0;
    case BASALT_ICEBERG_OP_EQ:
        return c == 0;
    case BASALT_ICEBERG_OP_NOT_EQ:
        return c != 0;
    default:
        return -1;
    }
}
