/* The ARG_MIN family's states: x of the row with the smallest (ARG_MIN)
 * or largest (ARG_MAX) order value, which is y of arg_min(x, y) or the
 * order key of first/last/any_value(x ORDER BY ...) (agg.h). DuckDB keeps
 * the first such row it meets, so its answer among rows tied on the order
 * value depends on the order they arrive in; here a tie goes to the
 * smallest x (by the MIN/MAX comparator; a NULL x, which only the _NULL
 * kinds keep, after every value), so the answer is the same for any number
 * of workers and any split of the input. */
#include <string.h>

#include "agg/agg_internal.h"

/* Whether a row with order value k and x value v (NULL: x is NULL) goes
 * before the row state s holds. */
static bool arg_better(const struct qagg_callinfo *ci, const struct qagg_arg *s,
                       const union qagg_cell *k, const union qagg_cell *v)
{
    if (s->key.has == QAGG_MM_NONE)
        return true;
    union qagg_cell cur = basalt_qagg_minmax_value(&s->key);
    int c = basalt_qagg_cell_cmp(ci->in2_phys, k, &cur);
    if (c != 0)
        return ci->is_max ? c > 0 : c < 0;
    if (v == NULL)
        return false;
    if (s->x_null)
        return true;
    union qagg_cell x = basalt_qagg_minmax_value(&s->val);
    return basalt_qagg_cell_cmp(ci->in_phys, v, &x) < 0;
}

static basalt_status arg_put(const struct qagg_callinfo *ci, struct qagg_arg *s,
                             const union qagg_cell *k, const union qagg_cell *v,
                             struct basalt_error *err)
{
    if (!arg_better(ci, s, k, v))
        return BASALT_OK;
    basalt_status st = basalt_qagg_minmax_set(&s->key, ci->in2_phys, k, err);
    if (st != BASALT_OK)
        return st;
    s->x_null = v == NULL;
    return v == NULL ? BASALT_OK : basalt_qagg_minmax_set(&s->val, ci->in_phys, v, err);
}

basalt_status basalt_qagg_arg_update(const struct qagg_callinfo *ci, struct qagg_arg *states,
                                     const struct qagg_col *arg, const struct qagg_col *key,
                                     const uint32_t *gids, int64_t n, struct basalt_error *err)
{
    union qagg_cell k, v;
    for (int64_t i = 0; i < n; i++) {
        if (!basalt_qagg_valid(key, i))
            continue; /* a NULL y, or a row the FILTER leaves out */
        bool x_null = !basalt_qagg_valid(arg, i);
        if (x_null && !ci->arg_keeps_null)
            continue;
        basalt_qagg_cell_get(key, ci->in2_phys, i, &k);
        if (!x_null)
            basalt_qagg_cell_get(arg, ci->in_phys, i, &v);
        basalt_status st = arg_put(ci, &states[gids[i]], &k, x_null ? NULL : &v, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

basalt_status basalt_qagg_arg_combine(const struct qagg_callinfo *ci, struct qagg_arg *d,
                                      const struct qagg_arg *s, struct basalt_error *err)
{
    if (s->key.has == QAGG_MM_NONE)
        return BASALT_OK;
    union qagg_cell k = basalt_qagg_minmax_value(&s->key);
    union qagg_cell v = basalt_qagg_minmax_value(&s->val);
    return arg_put(ci, d, &k, s->x_null ? NULL : &v, err);
}

void basalt_qagg_arg_free(struct qagg_arg *s)
{
    basalt_qagg_minmax_clear(&s->key);
    basalt_qagg_minmax_clear(&s->val);
    s->x_null = false;
}
