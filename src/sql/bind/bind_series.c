/* range(stop), range(start, stop[, step]) and generate_series (the same
 * with stop included) in FROM, as DuckDB has them: BIGINT arguments, or
 * TIMESTAMP start and stop with an INTERVAL step (DATE and TIMESTAMP_NS
 * arguments taken as TIMESTAMP; WITH TIME ZONE when both are). Arguments
 * are constant expressions; a NULL one gives no rows. The column is named
 * after the function. */
#include <string.h>

#include "bind/bind_internal.h"

bool basalt_sql_is_series(const char *function)
{
    return strcmp(function, "range") == 0 || strcmp(function, "generate_series") == 0;
}

static bool is_time(enum basalt_query_type_id id)
{
    return id == BASALT_QUERY_TYPE_TIMESTAMP || id == BASALT_QUERY_TYPE_DATE;
}

/* The type the arguments take: TIMESTAMP for (time, time, INTERVAL), else
 * BIGINT. */
static basalt_status series_type(struct binder *B, const struct basalt_sql_call *c,
                                 const struct basalt_query_value *v, int32_t pos,
                                 struct basalt_query_type *out, struct basalt_error *err)
{
    const char *fn = c->name.name;
    bool any_time = false, tz = true;
    for (int i = 0; i < c->n_args; i++) {
        enum basalt_query_type_id id = v[i].type.id;
        any_time |= is_time(id) || id == BASALT_QUERY_TYPE_INTERVAL;
        if (i < 2 && id != BASALT_QUERY_TYPE_NULL)
            tz &= id == BASALT_QUERY_TYPE_TIMESTAMP && v[i].type.tz;
    }
    if (!any_time) {
        /* integers (or text that reads as one); not 1.5, as DuckDB */
        for (int i = 0; i < c->n_args; i++) {
            enum basalt_query_type_id id = v[i].type.id;
            /* -9223372036854775808 is DECIMAL(38,0) here, as large
             * integer literals are */
            bool whole = id != BASALT_QUERY_TYPE_DECIMAL || v[i].type.scale == 0;
            if (id == BASALT_QUERY_TYPE_BOOL || id == BASALT_QUERY_TYPE_FLOAT ||
                id == BASALT_QUERY_TYPE_DOUBLE || !whole || id == BASALT_QUERY_TYPE_BINARY) {
                char tn[64];
                return basalt_sql_err(B, BASALT_INVALID_ARG, c->args[i]->pos, err,
                                      "%s takes BIGINT arguments, not %s", fn,
                                      basalt_query_type_name(v[i].type, tn, sizeof tn));
            }
        }
        *out = basalt_query_type_make(BASALT_QUERY_TYPE_INT64);
        return BASALT_OK;
    }
    bool ok = c->n_args == 3;
    for (int i = 0; ok && i < 3; i++) {
        enum basalt_query_type_id id = v[i].type.id;
        ok = id == BASALT_QUERY_TYPE_NULL ||
             (i < 2 ? is_time(id) : id == BASALT_QUERY_TYPE_INTERVAL);
    }
    if (!ok)
        return basalt_sql_err(B, BASALT_INVALID_ARG, pos, err,
                              "%s takes BIGINT arguments, or a TIMESTAMP start and stop and an "
                              "INTERVAL step",
                              fn);
    *out = basalt_query_type_timestamp(false, tz);
    return BASALT_OK;
}

basalt_status basalt_sql_bind_series(struct binder *B, const struct basalt_sql_call *c,
                                     int32_t pos, struct basalt_qplan **out,
                                     struct basalt_error *err)
{
    const char *fn = c->name.name;
    if (c->n_args < 1 || c->n_args > 3)
        return basalt_sql_err(B, BASALT_INVALID_ARG, pos, err,
                              "%s takes 1 to 3 arguments (stop; start, stop; start, stop, step)",
                              fn);
    for (int i = 0; c->arg_names != NULL && i < c->n_args; i++)
        if (c->arg_names[i] != NULL)
            return basalt_sql_err(B, BASALT_INVALID_ARG, c->args[i]->pos, err,
                                  "%s has no named arguments", fn);
    struct basalt_query_value v[3];
    basalt_status st = BASALT_OK;
    for (int i = 0; i < c->n_args && st == BASALT_OK; i++)
        st = basalt_sql_constant(B, c->args[i], NULL, fn, &v[i], err);
    struct basalt_qplan_series s;
    memset(&s, 0, sizeof s);
    if (st == BASALT_OK)
        st = series_type(B, c, v, pos, &s.type, err);
    /* cast to the series' type, as the function's signature would */
    struct basalt_query_type interval = basalt_query_type_make(BASALT_QUERY_TYPE_INTERVAL);
    bool time = s.type.id == BASALT_QUERY_TYPE_TIMESTAMP;
    for (int i = 0; i < c->n_args && st == BASALT_OK; i++) {
        st = basalt_sql_constant(B, c->args[i], time && i == 2 ? &interval : &s.type, fn, &v[i],
                                 err);
        s.empty |= v[i].is_null || v[i].type.id == BASALT_QUERY_TYPE_NULL;
    }
    if (st != BASALT_OK)
        return st;
    s.inclusive = strcmp(fn, "generate_series") == 0;
    s.step = 1;
    if (c->n_args == 1) {
        s.stop = v[0].v.i;
    } else {
        s.start = v[0].v.i;
        s.stop = v[1].v.i;
    }
    if (c->n_args == 3 && time) {
        s.interval.months = v[2].v.interval.months;
        s.interval.days = v[2].v.interval.days;
        s.interval.nanos = v[2].v.interval.nanos;
    } else if (c->n_args == 3) {
        s.step = v[2].v.i;
    }
    st = basalt_qplan_series(B->ctx, &s, fn, out, err);
    if (st != BASALT_OK)
        return basalt_sql_err(B, st, pos, err, "%s: %s", fn, err ? err->message : "");
    return BASALT_OK;
}
