/* What a window call may be, checked when the plan node is built, and its
 * result field (DuckDB's result types). */
#include <string.h>

#include "agg/agg.h"
#include "window/window_impl.h"

static const char *fn_name(enum basalt_qplan_window_fn f)
{
    static const char *names[] = {"row_number", "rank", "dense_rank", "percent_rank",
                                  "cume_dist", "ntile", "lag", "lead", "first_value",
                                  "last_value", "nth_value", "count_star", "count", "sum",
                                  "avg", "min", "max"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

static bool orderable(enum basalt_query_type_id id)
{
    switch (id) {
    case BASALT_QUERY_TYPE_BOOL:
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_UINT8:
    case BASALT_QUERY_TYPE_UINT16:
    case BASALT_QUERY_TYPE_UINT32:
    case BASALT_QUERY_TYPE_UINT64:
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE:
    case BASALT_QUERY_TYPE_DECIMAL:
    case BASALT_QUERY_TYPE_DATE:
    case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME:
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY:
        return true;
    default:
        return false;
    }
}

basalt_status basalt_qwin_check_key(const struct ArrowSchema *field, struct basalt_error *err)
{
    struct basalt_query_type t;
    /* INTERVAL keys: normalised in the views (window_view.c) and the sort */
    if (basalt_query_type_from_format(field->format, &t, NULL) != BASALT_OK ||
        !(orderable(t.id) || t.id == BASALT_QUERY_TYPE_INTERVAL))
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "window: cannot partition or order by '%s' of format '%s'",
                                field->name ? field->name : "", field->format);
    return BASALT_OK;
}

static basalt_status check_frame(const struct ArrowSchema *schema,
                                 const struct basalt_qplan_sort_key *order, int n_order,
                                 const struct basalt_qplan_window_call *c,
                                 struct basalt_error *err)
{
    if (!c->has_frame)
        return BASALT_OK;
    enum basalt_qplan_frame_bound s = c->start, e = c->end;
    if ((unsigned)s > BASALT_QPLAN_UNBOUNDED_FOLLOWING || (unsigned)e > BASALT_QPLAN_UNBOUNDED_FOLLOWING)
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: bad frame bound");
    if ((unsigned)c->exclude > BASALT_QPLAN_EXCLUDE_TIES)
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: bad EXCLUDE");
    if (s == BASALT_QPLAN_UNBOUNDED_FOLLOWING)
        return basalt_error_set(err, BASALT_INVALID_ARG, "frame start cannot be UNBOUNDED FOLLOWING");
    if (e == BASALT_QPLAN_UNBOUNDED_PRECEDING)
        return basalt_error_set(err, BASALT_INVALID_ARG, "frame end cannot be UNBOUNDED PRECEDING");
    if (s == BASALT_QPLAN_CURRENT_ROW && e == BASALT_QPLAN_PRECEDING)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "frame starting from current row cannot have preceding rows");
    if (s == BASALT_QPLAN_FOLLOWING && (e == BASALT_QPLAN_PRECEDING || e == BASALT_QPLAN_CURRENT_ROW))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "frame starting from following row cannot have preceding rows");
    bool so = s == BASALT_QPLAN_PRECEDING || s == BASALT_QPLAN_FOLLOWING;
    bool eo = e == BASALT_QPLAN_PRECEDING || e == BASALT_QPLAN_FOLLOWING;
    if (!c->rows && c->groups && ((so && c->start_offset < 0) || (eo && c->end_offset < 0)))
        return basalt_error_set(err, BASALT_INVALID_ARG, "GROUPS %s offset must not be negative",
                                so && c->start_offset < 0 ? "start" : "end");
    if (basalt_qw_frame_ranged(c))
        return basalt_qw_range_check(schema, order, n_order, c, err);
    return BASALT_OK;
}

static basalt_status column(const struct ArrowSchema *schema, int col, const char *what,
                            enum basalt_qplan_window_fn f, struct basalt_error *err)
{
    if (col < 0 || col >= schema->n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: %s: %s column %d out of range",
                                fn_name(f), what, col);
    return BASALT_OK;
}

basalt_status basalt_qwin_check_call(const struct ArrowSchema *schema,
                                     const struct basalt_qplan_sort_key *order, int n_order,
                                     const struct basalt_qplan_window_call *c, const char *name,
                                     struct ArrowSchema *field, struct basalt_error *err)
{
    field->release = NULL;
    enum basalt_qplan_window_fn f = c->fn;
    if ((unsigned)f > BASALT_QPLAN_WIN_MAX)
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: unknown function %d", (int)f);
    basalt_status st = check_frame(schema, order, n_order, c, err);
    if (st != BASALT_OK)
        return st;
    const char *fmt = NULL;
    bool nullable = true;
    struct basalt_query_type t = {0};
    switch (f) {
    case BASALT_QPLAN_WIN_NTILE:
        if (c->offset < 1)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "Argument for ntile must be greater than zero");
        /* fall through */
    case BASALT_QPLAN_WIN_ROW_NUMBER:
    case BASALT_QPLAN_WIN_RANK:
    case BASALT_QPLAN_WIN_DENSE_RANK:
    case BASALT_QPLAN_WIN_COUNT_STAR:
        fmt = "l";
        nullable = false;
        break;
    case BASALT_QPLAN_WIN_PERCENT_RANK:
    case BASALT_QPLAN_WIN_CUME_DIST:
        fmt = "g";
        nullable = false;
        break;
    default:
        break;
    }
    if (fmt != NULL)
        return basalt_arrow_schema_init(field, fmt, name, nullable ? ARROW_FLAG_NULLABLE : 0, 0,
                                        err);
    st = column(schema, c->arg, "argument", f, err);
    if (st != BASALT_OK)
        return st;
    const struct ArrowSchema *arg = schema->children[c->arg];
    if (f == BASALT_QPLAN_WIN_COUNT)
        return basalt_arrow_schema_init(field, "l", name, 0, 0, err);
    if (f == BASALT_QPLAN_WIN_SUM || f == BASALT_QPLAN_WIN_AVG) {
        struct basalt_qagg_call q;
        memset(&q, 0, sizeof q);
        q.kind = f == BASALT_QPLAN_WIN_SUM ? BASALT_QAGG_SUM : BASALT_QAGG_AVG;
        st = basalt_query_type_from_format(arg->format, &q.input, err);
        if (st == BASALT_OK && !(basalt_qtype_is_numeric(q.input.id) || q.input.id == BASALT_QUERY_TYPE_BOOL))
            st = basalt_error_set(err, BASALT_UNSUPPORTED, "no window function %s(%s)",
                                  fn_name(f), arg->format);
        if (st == BASALT_OK && f == BASALT_QPLAN_WIN_AVG && q.input.id == BASALT_QUERY_TYPE_BOOL)
            st = basalt_error_set(err, BASALT_UNSUPPORTED, "no window function avg(BOOLEAN)");
        if (st == BASALT_OK)
            st = basalt_qagg_result_type(&q, &t, err);
        char buf[64];
        if (st == BASALT_OK)
            st = basalt_query_type_format(t, buf, sizeof buf, err);
        if (st == BASALT_OK)
            st = basalt_arrow_schema_init(field, buf, name, ARROW_FLAG_NULLABLE, 0, err);
        return st;
    }
    if (f == BASALT_QPLAN_WIN_MIN || f == BASALT_QPLAN_WIN_MAX) {
        if (basalt_query_type_from_format(arg->format, &t, NULL) != BASALT_OK || !orderable(t.id))
            return basalt_error_set(err, BASALT_UNSUPPORTED, "no window function %s(%s)",
                                    fn_name(f), arg->format);
    }
    if ((f == BASALT_QPLAN_WIN_LAG || f == BASALT_QPLAN_WIN_LEAD) && c->default_arg >= 0) {
        st = column(schema, c->default_arg, "default", f, err);
        if (st != BASALT_OK)
            return st;
        if (strcmp(schema->children[c->default_arg]->format, arg->format) != 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "window: %s: default of format '%s', argument '%s'",
                                    fn_name(f), schema->children[c->default_arg]->format,
                                    arg->format);
    }
    st = basalt_arrow_schema_copy_renamed(arg, name, field, err);
    if (st == BASALT_OK)
        field->flags |= ARROW_FLAG_NULLABLE;
    return st;
}
