/* Resolvers for TIME (DuckDB's rules): TIME +/- INTERVAL and INTERVAL + TIME
 * are TIME; DATE + TIME and TIME + DATE a TIMESTAMP; TIME - TIME has no
 * overload; date_part/extract of hour, minute, second, millisecond,
 * microsecond and epoch; date_diff/date_sub of two TIMEs in those parts;
 * make_time(BIGINT, BIGINT, DOUBLE). Kernels in exec/k_time_of_day.c. */
#include <string.h>

#include "query_internal.h"

#define T(id) basalt_query_type_make(BASALT_QUERY_TYPE_##id)

static bool is(const struct basalt_qexpr *e, enum basalt_query_type_id id)
{
    return e->type.id == id;
}

basalt_status basalt_qbind_time_arith(struct basalt_qexpr_builder *b, const char *name,
                                      enum qop op, struct basalt_qexpr **args, bool *handled,
                                      struct basalt_qexpr **out, struct basalt_error *err)
{
    *handled = false;
    bool add = op == QOP_ADD, sub = op == QOP_SUB;
    struct basalt_qexpr *a = args[0], *c = args[1], *pair[2];
    struct basalt_query_type types[2];
    if ((add || sub) && is(a, BASALT_QUERY_TYPE_TIME) && is(c, BASALT_QUERY_TYPE_INTERVAL)) {
        pair[0] = a;
        pair[1] = c;
    } else if (add && is(a, BASALT_QUERY_TYPE_INTERVAL) && is(c, BASALT_QUERY_TYPE_TIME)) {
        pair[0] = c;
        pair[1] = a;
    } else if (add && ((is(a, BASALT_QUERY_TYPE_DATE) && is(c, BASALT_QUERY_TYPE_TIME)) ||
                       (is(a, BASALT_QUERY_TYPE_TIME) && is(c, BASALT_QUERY_TYPE_DATE)))) {
        *handled = true;
        pair[0] = is(a, BASALT_QUERY_TYPE_DATE) ? a : c;
        pair[1] = is(a, BASALT_QUERY_TYPE_DATE) ? c : a;
        types[0] = T(DATE);
        types[1] = T(TIME);
        return basalt_qbind_call(b, name, QOP_DATE_ADD_TIME, pair, 2, types,
                                 basalt_query_type_timestamp(false, false), false, out, err);
    } else {
        return BASALT_OK;
    }
    *handled = true;
    types[0] = T(TIME);
    types[1] = T(INTERVAL);
    return basalt_qbind_call_aux(b, name, QOP_TIME_ADD_INTERVAL, pair, 2, types, T(TIME),
                                 sub ? -1 : 1, false, out, err);
}

basalt_status basalt_qbind_time_part(struct basalt_qexpr_builder *b, const char *name, int part,
                                     struct basalt_qexpr *arg, struct basalt_qexpr **out,
                                     struct basalt_error *err)
{
    switch ((enum qpart)part) {
    case QP_HOUR: case QP_MINUTE: case QP_SECOND: case QP_MILLISECOND: case QP_MICROSECOND:
    case QP_EPOCH:
        break;
    default:
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err,
                                  "'%s': a TIME has no such part (hour, minute, second, "
                                  "millisecond, microsecond, epoch)",
                                  name);
    }
    struct basalt_query_type in = T(TIME);
    return basalt_qbind_call_aux(b, name, QOP_TIME_PART, &arg, 1, &in,
                                 part == QP_EPOCH ? T(DOUBLE) : T(INT64), part, false, out, err);
}

basalt_status basalt_qbind_time_at_epoch(struct basalt_qexpr_builder *b, const char *name,
                                         int part, struct basalt_qexpr **arg,
                                         struct basalt_error *err)
{
    switch ((enum qpart)part) {
    case QP_HOUR: case QP_MINUTE: case QP_SECOND: case QP_MILLISECOND: case QP_MICROSECOND:
    case QP_EPOCH:
        break;
    default:
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err,
                                  "'%s': a TIME has no such part (hour, minute, second, "
                                  "millisecond, microsecond, epoch)",
                                  name);
    }
    if ((*arg)->type.id != BASALT_QUERY_TYPE_TIME)
        return BASALT_OK;
    struct basalt_query_value day;
    memset(&day, 0, sizeof day);
    day.type = T(DATE);
    struct basalt_qexpr *pair[2] = {NULL, *arg};
    basalt_status st = basalt_qexpr_literal(b, &day, &pair[0], err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_type types[2] = {T(DATE), T(TIME)};
    return basalt_qbind_call(b, "+", QOP_DATE_ADD_TIME, pair, 2, types,
                             basalt_query_type_timestamp(false, false), false, arg, err);
}

static bool bigint_like(const struct basalt_qexpr *e)
{
    enum basalt_query_type_id id = e->type.id;
    return id == BASALT_QUERY_TYPE_NULL || (basalt_qtype_is_int(id) && id != BASALT_QUERY_TYPE_UINT64);
}

static basalt_status r_make_time(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                 struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    enum basalt_query_type_id s = args[2]->type.id;
    /* the seconds take anything DuckDB casts to DOUBLE implicitly */
    if (!bigint_like(args[0]) || !bigint_like(args[1]) ||
        !(basalt_qtype_is_numeric(s) || s == BASALT_QUERY_TYPE_NULL || s == BASALT_QUERY_TYPE_STRING))
        return basalt_qbind_no_overload(b, name, args, n, err);
    struct basalt_query_type types[3] = {T(INT64), T(INT64), T(DOUBLE)};
    return basalt_qbind_call(b, name, op, args, 3, types, T(TIME), false, out, err);
}

const struct qfunc_ext basalt_qfuncs_time[] = {
    {"make_time", QOP_MAKE_TIME, r_make_time, 3, 3},
};
const size_t basalt_qfuncs_time_n = sizeof basalt_qfuncs_time / sizeof basalt_qfuncs_time[0];
