/* Resolvers of INTERVAL with numbers, as DuckDB types them: INTERVAL * an
 * integer (either side) multiplies each field; INTERVAL * and / any other
 * number go through DOUBLE (`/` NULL for 0); and DuckDB's constructors
 * to_years ... to_microseconds (INTEGER for month and day units, BIGINT
 * for hours, minutes and microseconds, DOUBLE for seconds and
 * milliseconds). Kernels in exec/k_interval.c. */
#include <strings.h>

#include "query_internal.h"

static struct basalt_query_type qt(enum basalt_query_type_id id)
{
    return basalt_query_type_make(id);
}

/* An integer that casts to BIGINT (UBIGINT does not, as in DuckDB). */
static bool bigint_like(const struct basalt_qexpr *e)
{
    enum basalt_query_type_id id = e->type.id;
    return id == BASALT_QUERY_TYPE_NULL || (basalt_qtype_is_int(id) && id != BASALT_QUERY_TYPE_UINT64);
}

static bool numeric(const struct basalt_qexpr *e)
{
    return e->type.id == BASALT_QUERY_TYPE_NULL ||
           (basalt_qtype_is_numeric(e->type.id) && e->type.id != BASALT_QUERY_TYPE_UINT64);
}

basalt_status basalt_qbind_interval_arith(struct basalt_qexpr_builder *b, const char *name,
                                          enum qop op, struct basalt_qexpr **args,
                                          struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_qexpr *ordered[2] = {args[0], args[1]};
    bool left = args[0]->type.id == BASALT_QUERY_TYPE_INTERVAL;
    if (!left && op == QOP_MUL) { /* n * INTERVAL */
        ordered[0] = args[1];
        ordered[1] = args[0];
    }
    if (ordered[0]->type.id != BASALT_QUERY_TYPE_INTERVAL || (op != QOP_MUL && op != QOP_DIV) ||
        !numeric(ordered[1]))
        return basalt_qbind_no_overload(b, name, args, 2, err);
    struct basalt_query_type types[2] = {qt(BASALT_QUERY_TYPE_INTERVAL), qt(BASALT_QUERY_TYPE_INT64)};
    if (op == QOP_MUL && bigint_like(ordered[1]))
        return basalt_qbind_call(b, name, QOP_INTERVAL_MUL, ordered, 2, types, types[0], false,
                                 out, err);
    types[1] = qt(BASALT_QUERY_TYPE_DOUBLE);
    return basalt_qbind_call(b, name, op == QOP_MUL ? QOP_INTERVAL_MUL_F : QOP_INTERVAL_DIV_F,
                             ordered, 2, types, types[0], op == QOP_DIV, out, err);
}

static const struct {
    const char *name;
    enum qpart unit;
} units[] = {{"to_years", QP_YEAR},           {"to_quarters", QP_QUARTER},
             {"to_months", QP_MONTH},         {"to_weeks", QP_WEEK},
             {"to_days", QP_DAY},             {"to_hours", QP_HOUR},
             {"to_minutes", QP_MINUTE},       {"to_seconds", QP_SECOND},
             {"to_milliseconds", QP_MILLISECOND}, {"to_microseconds", QP_MICROSECOND},
             {"to_decades", QP_DECADE},       {"to_centuries", QP_CENTURY},
             {"to_millennia", QP_MILLENNIUM}};

static basalt_status r_to_interval(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                   struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                   struct basalt_error *err)
{
    enum qpart unit = QP_DAY;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(units[i].name, name) == 0)
            unit = units[i].unit;
    bool fractional = unit == QP_SECOND || unit == QP_MILLISECOND;
    if (fractional ? !numeric(args[0]) : !bigint_like(args[0]))
        return basalt_qbind_no_overload(b, name, args, n, err);
    struct basalt_query_type t = qt(fractional ? BASALT_QUERY_TYPE_DOUBLE : BASALT_QUERY_TYPE_INT64);
    return basalt_qbind_call_aux(b, name, op, args, 1, &t, qt(BASALT_QUERY_TYPE_INTERVAL),
                                 (int32_t)unit, false, out, err);
}

const struct qfunc_ext basalt_qfuncs_interval[] = {
    {"to_years", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_quarters", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_months", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_weeks", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_days", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_hours", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_minutes", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_seconds", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_milliseconds", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_microseconds", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_decades", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_centuries", QOP_TO_INTERVAL, r_to_interval, 1, 1},
    {"to_millennia", QOP_TO_INTERVAL, r_to_interval, 1, 1},
};
const size_t basalt_qfuncs_interval_n =
    sizeof basalt_qfuncs_interval / sizeof basalt_qfuncs_interval[0];
