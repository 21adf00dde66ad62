/* Projection of one bound predicate through one partition field, after the
 * reference implementation's ProjectionUtil: ordered transforms (truncate of
 * numbers, the time transforms) step open bounds to closed ones before
 * transforming, strings and binaries truncate the bound, bucket keeps only
 * equality (inclusive) and inequality (strict), and the time transforms widen
 * for the pre-1970 values old writers stored one unit high. */
#include <stdlib.h>
#include <string.h>

#include "transform_internal.h"

struct basalt_iceberg_expr *basalt_iceberg_tx_node(struct basalt_arena *arena,
                                                   enum basalt_iceberg_op op)
{
    struct basalt_iceberg_expr *e =
        basalt_arena_alloc(arena, sizeof *e, _Alignof(struct basalt_iceberg_expr));
    if (!e)
        return NULL;
    memset(e, 0, sizeof *e);
    e->op = op;
    return e;
}

/* What one projection builds: the predicate's output side. */
struct proj {
    struct basalt_arena *arena;
    const struct basalt_iceberg_partition_field *field;
    const struct basalt_iceberg_type *source;
    struct basalt_iceberg_type *rtype; /* in the arena */
    basalt_status status;
};

static bool is_time_transform(enum basalt_iceberg_transform_kind k)
{
    return k == BASALT_ICEBERG_TRANSFORM_YEAR || k == BASALT_ICEBERG_TRANSFORM_MONTH ||
           k == BASALT_ICEBERG_TRANSFORM_DAY || k == BASALT_ICEBERG_TRANSFORM_HOUR;
}

/* A predicate on the partition field with copies of `lits` (bytes included). */
static struct basalt_iceberg_expr *make_pred(struct proj *p, enum basalt_iceberg_op op,
                                             const struct basalt_iceberg_value *lits, uint32_t n)
{
    struct basalt_iceberg_expr *e = basalt_iceberg_tx_node(p->arena, op);
    if (!e)
        goto nomem;
    const char *name = p->field->name ? p->field->name : "";
    e->name = basalt_arena_strndup(p->arena, name, strlen(name));
    if (!e->name)
        goto nomem;
    e->field_id = p->field->field_id;
    e->type = p->rtype;
    if (n > 0) {
        e->literals = basalt_arena_alloc(p->arena, (size_t)n * sizeof *lits,
                                         _Alignof(struct basalt_iceberg_value));
        if (!e->literals)
            goto nomem;
        for (uint32_t i = 0; i < n; i++) {
            e->literals[i] = lits[i];
            switch (lits[i].type) {
            case BASALT_ICEBERG_TYPE_STRING:
            case BASALT_ICEBERG_TYPE_BINARY:
            case BASALT_ICEBERG_TYPE_FIXED:
            case BASALT_ICEBERG_TYPE_UUID:
                if (lits[i].is_null)
                    break;
                {
                    uint8_t *copy = basalt_arena_alloc(p->arena, lits[i].u.bytes.len + 1, 1);
                    if (!copy)
                        goto nomem;
                    if (lits[i].u.bytes.len)
                        memcpy(copy, lits[i].u.bytes.data, lits[i].u.bytes.len);
                    copy[lits[i].u.bytes.len] = 0;
                    e->literals[i].u.bytes.data = copy;
                }
                break;
            default:
                break;
            }
        }
        e->n_literals = n;
    }
    return e;
nomem:
    p->status = BASALT_NOMEM;
    return NULL;
}

static struct basalt_iceberg_expr *make_const(struct proj *p, bool value)
{
    struct basalt_iceberg_expr *e =
        basalt_iceberg_tx_node(p->arena, value ? BASALT_ICEBERG_OP_TRUE : BASALT_ICEBERG_OP_FALSE);
    if (!e)
        p->status = BASALT_NOMEM;
    return e;
}

/* The transformed literal; false when the transform fails or, for truncate
 * near the smallest value of the type, wraps around (the reference
 * implementation's arithmetic), which breaks the order projection relies on. */
static bool apply(struct proj *p, const struct basalt_iceberg_value *in,
                  struct basalt_iceberg_value *out)
{
    if (basalt_iceberg_transform_apply(&p->field->transform, p->source, in, out, NULL) != BASALT_OK)
        return false;
    if (p->field->transform.kind == BASALT_ICEBERG_TRANSFORM_TRUNCATE &&
        (in->type == BASALT_ICEBERG_TYPE_INT || in->type == BASALT_ICEBERG_TYPE_LONG ||
         in->type == BASALT_ICEBERG_TYPE_DECIMAL) &&
        basalt_iceberg_value_compare(out, in) > 0)
        return false;
    return true;
}

/* v + delta (delta = +-1) in the unit of v's type; false past the type's range. */
static bool step(const struct basalt_iceberg_value *v, int delta, struct basalt_iceberg_value *out)
{
    *out = *v;
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        if ((delta > 0 && v->u.i32 == INT32_MAX) || (delta < 0 && v->u.i32 == INT32_MIN))
            return false;
        out->u.i32 = v->u.i32 + delta;
        return true;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        if ((delta > 0 && v->u.i64 == INT64_MAX) || (delta < 0 && v->u.i64 == INT64_MIN))
            return false;
        out->u.i64 = v->u.i64 + delta;
        return true;
    case BASALT_ICEBERG_TYPE_DECIMAL: {
        struct basalt_iceberg_decimal d = v->u.dec;
        if (delta > 0) {
            if (d.hi == INT64_MAX && d.lo == UINT64_MAX)
                return false;
            d.lo++;
            if (d.lo == 0)
                d.hi++;
        } else {
            if (d.hi == INT64_MIN && d.lo == 0)
                return false;
            if (d.lo == 0)
                d.hi--;
            d.lo--;
        }
        out->u.dec = d;
        return true;
    }
    default:
        return false;
    }
}

static int cmp_values(const void *a, const void *b)
{
    return basalt_iceberg_value_compare(a, b);
}

/* Sorts and de-duplicates a literal set in place; returns the new count. */
static uint32_t sort_unique(struct basalt_iceberg_value *v, uint32_t n)
{
    if (n < 2)
        return n;
    qsort(v, n, sizeof *v, cmp_values);
    uint32_t k = 1;
    for (uint32_t i = 1; i < n; i++)
        if (basalt_iceberg_value_compare(&v[k - 1], &v[i]) != 0)
            v[k++] = v[i];
    return k;
}

/* Transforms every literal of a set predicate; with `time_fix`, adds v + 1
 * beside each negative v (old writers stored pre-1970 values one unit high). */
static struct basalt_iceberg_expr *project_set(struct proj *p,
                                               const struct basalt_iceberg_expr *pred,
                                               enum basalt_iceberg_op op, bool time_fix)
{
    uint32_t n = pred->n_literals;
    size_t cap = (size_t)n * (time_fix ? 2 : 1);
    struct basalt_iceberg_value *tmp = NULL;
    if (cap) {
        tmp =
            basalt_arena_alloc(p->arena, cap * sizeof *tmp, _Alignof(struct basalt_iceberg_value));
        if (!tmp) {
            p->status = BASALT_NOMEM;
            return NULL;
        }
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!apply(p, &pred->literals[i], &tmp[k]))
            return NULL;
        k++;
        if (time_fix && tmp[k - 1].u.i32 < 0) {
            tmp[k] = tmp[k - 1];
            tmp[k].u.i32++;
            k++;
        }
    }
    k = sort_unique(tmp, k);
    if (k == 1) /* as binding writes a one-literal set */
        op = op == BASALT_ICEBERG_OP_IN ? BASALT_ICEBERG_OP_EQ : BASALT_ICEBERG_OP_NOT_EQ;
    return make_pred(p, op, tmp, k);
}

/* A predicate with one literal; with `time_fix` and a negative literal, the
 * pre-1970 widening of the reference implementation's fixInclusive/
 * StrictTimeProjection. */
static struct basalt_iceberg_expr *project_one(struct proj *p, enum basalt_iceberg_op op,
                                               const struct basalt_iceberg_value *lit,
                                               bool time_fix, bool strict)
{
    struct basalt_iceberg_value t;
    if (!apply(p, lit, &t))
        return NULL;
    if (time_fix) {
        int32_t v = t.u.i32;
        struct basalt_iceberg_value pair[2] = {t, t};
        pair[1].u.i32 = v + 1;
        if (!strict) {
            if ((op == BASALT_ICEBERG_OP_LT || op == BASALT_ICEBERG_OP_LT_EQ) && v < 0)
                return make_pred(p, op, &pair[1], 1);
            if (op == BASALT_ICEBERG_OP_EQ && v < 0)
                return make_pred(p, BASALT_ICEBERG_OP_IN, pair, 2);
        } else {
            if ((op == BASALT_ICEBERG_OP_GT || op == BASALT_ICEBERG_OP_GT_EQ) && v <= 0)
                return make_pred(p, op, &pair[1], 1);
            if (op == BASALT_ICEBERG_OP_NOT_EQ && v < 0)
                return make_pred(p, BASALT_ICEBERG_OP_NOT_IN, pair, 2);
        }
    }
    return make_pred(p, op, &t, 1);
}

/* truncate of int/long/decimal and the time transforms. */
static struct basalt_iceberg_expr *
project_ordered(struct proj *p, const struct basalt_iceberg_expr *pred, bool strict)
{
    bool fix = is_time_transform(p->field->transform.kind);
    const struct basalt_iceberg_value *lit = pred->n_literals ? &pred->literals[0] : NULL;
    struct basalt_iceberg_value adj;
    if (!strict) {
        switch (pred->op) {
        case BASALT_ICEBERG_OP_LT:
            if (!step(lit, -1, &adj))
                return make_const(p, false); /* below the smallest value */
            return project_one(p, BASALT_ICEBERG_OP_LT_EQ, &adj, fix, false);
        case BASALT_ICEBERG_OP_LT_EQ:
            return project_one(p, BASALT_ICEBERG_OP_LT_EQ, lit, fix, false);
        case BASALT_ICEBERG_OP_GT:
            if (!step(lit, 1, &adj))
                return make_const(p, false);
            return project_one(p, BASALT_ICEBERG_OP_GT_EQ, &adj, fix, false);
        case BASALT_ICEBERG_OP_GT_EQ:
            return project_one(p, BASALT_ICEBERG_OP_GT_EQ, lit, fix, false);
        case BASALT_ICEBERG_OP_EQ:
            return project_one(p, BASALT_ICEBERG_OP_EQ, lit, fix, false);
        case BASALT_ICEBERG_OP_IN:
            return project_set(p, pred, BASALT_ICEBERG_OP_IN, fix);
        default:
            return NULL;
        }
    }
    switch (pred->op) {
    case BASALT_ICEBERG_OP_LT:
        return project_one(p, BASALT_ICEBERG_OP_LT, lit, fix, true);
    case BASALT_ICEBERG_OP_LT_EQ:
        if (!step(lit, 1, &adj)) /* every non-null value qualifies */
            return make_pred(p, BASALT_ICEBERG_OP_NOT_NULL, NULL, 0);
        return project_one(p, BASALT_ICEBERG_OP_LT, &adj, fix, true);
    case BASALT_ICEBERG_OP_GT:
        return project_one(p, BASALT_ICEBERG_OP_GT, lit, fix, true);
    case BASALT_ICEBERG_OP_GT_EQ:
        if (!step(lit, -1, &adj))
            return make_pred(p, BASALT_ICEBERG_OP_NOT_NULL, NULL, 0);
        return project_one(p, BASALT_ICEBERG_OP_GT, &adj, fix, true);
    case BASALT_ICEBERG_OP_NOT_EQ:
        return project_one(p, BASALT_ICEBERG_OP_NOT_EQ, lit, fix, true);
    case BASALT_ICEBERG_OP_NOT_IN:
        return project_set(p, pred, BASALT_ICEBERG_OP_NOT_IN, fix);
    default:
        return NULL;
    }
}

static int64_t utf8_points(const struct basalt_iceberg_value *v)
{
    int64_t n = 0;
    for (size_t i = 0; i < v->u.bytes.len; i++)
        n += (v->u.bytes.data[i] & 0xc0) != 0x80;
    return n;
}

/* truncate of strings and binaries: the bound is truncated, never stepped. */
static struct basalt_iceberg_expr *
project_array(struct proj *p, const struct basalt_iceberg_expr *pred, bool strict)
{
    const struct basalt_iceberg_value *lit = pred->n_literals ? &pred->literals[0] : NULL;
    int64_t w = p->field->transform.param;
    if (pred->op == BASALT_ICEBERG_OP_STARTS_WITH ||
        pred->op == BASALT_ICEBERG_OP_NOT_STARTS_WITH) {
        if (lit->type != BASALT_ICEBERG_TYPE_STRING)
            return NULL;
        bool neg = pred->op == BASALT_ICEBERG_OP_NOT_STARTS_WITH;
        int64_t k = utf8_points(lit);
        /* A prefix shorter than W survives truncation; one of exactly W code
         * points is the whole partition value. */
        if (k < w)
            return make_pred(p, pred->op, lit, 1);
        if (k == w)
            return make_pred(p, neg ? BASALT_ICEBERG_OP_NOT_EQ : BASALT_ICEBERG_OP_EQ, lit, 1);
        if (!neg && !strict)
            return project_one(p, BASALT_ICEBERG_OP_EQ, lit, false, false);
        if (neg && strict)
            return project_one(p, BASALT_ICEBERG_OP_NOT_STARTS_WITH, lit, false, true);
        return NULL;
    }
    if (!strict) {
        switch (pred->op) {
        case BASALT_ICEBERG_OP_LT:
        case BASALT_ICEBERG_OP_LT_EQ:
            return project_one(p, BASALT_ICEBERG_OP_LT_EQ, lit, false, false);
        case BASALT_ICEBERG_OP_GT:
        case BASALT_ICEBERG_OP_GT_EQ:
            return project_one(p, BASALT_ICEBERG_OP_GT_EQ, lit, false, false);
        case BASALT_ICEBERG_OP_EQ:
            return project_one(p, BASALT_ICEBERG_OP_EQ, lit, false, false);
        case BASALT_ICEBERG_OP_IN:
            return project_set(p, pred, BASALT_ICEBERG_OP_IN, false);
        default:
            return NULL;
        }
    }
    switch (pred->op) {
    case BASALT_ICEBERG_OP_LT:
    case BASALT_ICEBERG_OP_LT_EQ:
        return project_one(p, BASALT_ICEBERG_OP_LT, lit, false, true);
    case BASALT_ICEBERG_OP_GT:
    case BASALT_ICEBERG_OP_GT_EQ:
        return project_one(p, BASALT_ICEBERG_OP_GT, lit, false, true);
    case BASALT_ICEBERG_OP_NOT_EQ:
        return project_one(p, BASALT_ICEBERG_OP_NOT_EQ, lit, false, true);
    case BASALT_ICEBERG_OP_NOT_IN:
        return project_set(p, pred, BASALT_ICEBERG_OP_NOT_IN, false);
    default:
        return NULL;
    }
}

static bool op_has_literal(enum basalt_iceberg_op op)
{
    return op >= BASALT_ICEBERG_OP_LT && op <= BASALT_ICEBERG_OP_NOT_STARTS_WITH;
}

struct basalt_iceberg_expr *
basalt_iceberg_tx_project_pred(const struct basalt_iceberg_expr *pred,
                               const struct basalt_iceberg_partition_field *field,
                               const struct basalt_iceberg_type *source, bool strict,
                               struct basalt_arena *arena, basalt_status *status)
{
    *status = BASALT_OK;
    enum basalt_iceberg_transform_kind kind = field->transform.kind;
    if (kind == BASALT_ICEBERG_TRANSFORM_VOID || kind == BASALT_ICEBERG_TRANSFORM_UNKNOWN ||
        !source || !basalt_iceberg_transform_can_apply(&field->transform, source))
        return NULL;
    if (op_has_literal(pred->op) && pred->n_literals < 1)
        return NULL;
    /* Literals must be of the source type for the transform to apply. */
    for (uint32_t i = 0; i < pred->n_literals; i++)
        if (pred->literals[i].is_null || pred->literals[i].type != source->id)
            return NULL;

    struct proj p = {.arena = arena, .field = field, .source = source, .status = BASALT_OK};
    p.rtype = basalt_arena_alloc(arena, sizeof *p.rtype, _Alignof(struct basalt_iceberg_type));
    if (!p.rtype) {
        *status = BASALT_NOMEM;
        return NULL;
    }
    if (basalt_iceberg_transform_result_type(&field->transform, source, p.rtype, NULL) != BASALT_OK)
        return NULL;

    struct basalt_iceberg_expr *out = NULL;
    switch (pred->op) {
    case BASALT_ICEBERG_OP_IS_NULL:
    case BASALT_ICEBERG_OP_NOT_NULL:
        /* every transform but void maps null to null and only null to null */
        out = make_pred(&p, pred->op, NULL, 0);
        break;
    case BASALT_ICEBERG_OP_IS_NAN:
    case BASALT_ICEBERG_OP_NOT_NAN:
        if (kind == BASALT_ICEBERG_TRANSFORM_IDENTITY)
            out = make_pred(&p, pred->op, NULL, 0);
        break;
    default:
        switch (kind) {
        case BASALT_ICEBERG_TRANSFORM_IDENTITY:
            out = make_pred(&p, pred->op, pred->literals, pred->n_literals);
            break;
        case BASALT_ICEBERG_TRANSFORM_BUCKET:
            if (!strict && pred->op == BASALT_ICEBERG_OP_EQ)
                out = project_one(&p, BASALT_ICEBERG_OP_EQ, &pred->literals[0], false, false);
            else if (!strict && pred->op == BASALT_ICEBERG_OP_IN)
                out = project_set(&p, pred, BASALT_ICEBERG_OP_IN, false);
            else if (strict && pred->op == BASALT_ICEBERG_OP_NOT_EQ)
                out = project_one(&p, BASALT_ICEBERG_OP_NOT_EQ, &pred->literals[0], false, true);
            else if (strict && pred->op == BASALT_ICEBERG_OP_NOT_IN)
                out = project_set(&p, pred, BASALT_ICEBERG_OP_NOT_IN, false);
            break;
        case BASALT_ICEBERG_TRANSFORM_TRUNCATE:
            if (source->id == BASALT_ICEBERG_TYPE_STRING ||
                source->id == BASALT_ICEBERG_TYPE_BINARY)
                out = project_array(&p, pred, strict);
            else
                out = project_ordered(&p, pred, strict);
            break;
        default: /* year, month, day, hour */
            out = project_ordered(&p, pred, strict);
            break;
        }
        break;
    }
    *status = p.status;
    return p.status == BASALT_OK ? out : NULL;
}
