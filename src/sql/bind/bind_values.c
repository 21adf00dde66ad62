/* Values read back from results: what an uncorrelated subquery gives to the
 * query around it (a constant, or the list of an IN). */
#include <string.h>

#include "bind/bind_internal.h"

basalt_status basalt_sql_value_at(const struct ArrowArray *col, struct basalt_query_type t,
                                  int64_t k, struct basalt_query_value *v,
                                  struct basalt_error *err)
{
    const void *data = col->buffers[1];
    v->type = t;
    v->is_null = false;
    switch (t.id) {
    case BASALT_QUERY_TYPE_BOOL:
        v->v.b = (((const uint8_t *)data)[k >> 3] >> (k & 7)) & 1;
        break;
    case BASALT_QUERY_TYPE_INT8: v->v.i = ((const int8_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_INT16: v->v.i = ((const int16_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_DATE: v->v.i = ((const int32_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: v->v.i = ((const int64_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_UINT8: v->v.u = ((const uint8_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_UINT16: v->v.u = ((const uint16_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_UINT32: v->v.u = ((const uint32_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_UINT64: v->v.u = ((const uint64_t *)data)[k]; break;
    case BASALT_QUERY_TYPE_FLOAT: v->v.f = ((const float *)data)[k]; break;
    case BASALT_QUERY_TYPE_DOUBLE: v->v.f = ((const double *)data)[k]; break;
    case BASALT_QUERY_TYPE_DECIMAL:
        memcpy(&v->v.dec.lo, (const uint8_t *)data + 16 * k, 8);
        memcpy(&v->v.dec.hi, (const uint8_t *)data + 16 * k + 8, 8);
        break;
    case BASALT_QUERY_TYPE_INTERVAL:
        memcpy(&v->v.interval.months, (const uint8_t *)data + 16 * k, 4);
        memcpy(&v->v.interval.days, (const uint8_t *)data + 16 * k + 4, 4);
        memcpy(&v->v.interval.nanos, (const uint8_t *)data + 16 * k + 8, 8);
        break;
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: {
        int64_t a, b;
        if (t.large) {
            a = ((const int64_t *)data)[k];
            b = ((const int64_t *)data)[k + 1];
        } else {
            a = ((const int32_t *)data)[k];
            b = ((const int32_t *)data)[k + 1];
        }
        v->v.str.ptr = (const char *)col->buffers[2] + a;
        v->v.str.len = (size_t)(b - a);
        break;
    }
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "a subquery value of this type");
    }
    return BASALT_OK;
}

basalt_status basalt_sql_in_rows(struct blower *L, const struct basalt_sql_expr *e,
                                 const struct basalt_arrow_batches *rows,
                                 struct basalt_qexpr **out, struct basalt_error *err)
{
    if (rows->schema.n_children != 1)
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "Subquery returns %d columns - expected 1",
                              (int)rows->schema.n_children);
    struct basalt_qexpr *x;
    basalt_status st = basalt_sql_lower(L, e->u.in_query.arg, &x, err);
    if (st != BASALT_OK)
        return st;
    int64_t total = 0;
    for (int64_t i = 0; i < rows->n; i++)
        total += rows->arrays[i].length;
    if (total > 1000000)
        return basalt_sql_err(L->B, BASALT_LIMIT, e->pos, err,
                              "the subquery of IN returned %lld rows (at most 1000000)",
                              (long long)total);
    if (total == 0)
        return basalt_qexpr_bool(L->b, e->u.in_query.negated, out, err);
    struct basalt_query_type t;
    st = basalt_query_type_from_format(rows->schema.children[0]->format, &t, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr **list = basalt_calloc((size_t)total, sizeof *list);
    if (list == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t n = 0;
    for (int64_t i = 0; i < rows->n && st == BASALT_OK; i++) {
        const struct ArrowArray *b = &rows->arrays[i];
        const struct ArrowArray *col = b->children[0];
        const uint8_t *valid = col->buffers[0];
        for (int64_t r = 0; r < b->length && st == BASALT_OK; r++) {
            int64_t k = col->offset + b->offset + r;
            struct basalt_query_value v;
            memset(&v, 0, sizeof v);
            v.type = t;
            v.is_null = valid != NULL && !((valid[k >> 3] >> (k & 7)) & 1);
            if (!v.is_null)
                st = basalt_sql_value_at(col, t, k, &v, err);
            if (st == BASALT_OK)
                st = basalt_qexpr_literal(L->b, &v, &list[n++], err);
        }
    }
    if (st == BASALT_OK)
        st = basalt_qexpr_in(L->b, x, list, (int)n, e->u.in_query.negated, out, err);
    basalt_free(list);
    return st;
}
