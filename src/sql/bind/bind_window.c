/* Window functions: the calls with OVER in the select list, ORDER BY and
 * QUALIFY, grouped by their window (PARTITION BY and ORDER BY); for each
 * window a projection computes its keys and arguments and a window node
 * (include/basalt/query_plan.h) adds one column per call. The calls then
 * read those columns (their text mapped to the column's gid). Windows are
 * evaluated after GROUP BY and HAVING, as SQL orders them. */
#include <stdio.h>
#include <string.h>

#include "bind/bind_internal.h"

struct wcall {
    const struct basalt_sql_expr *call;
    const char *text;
    struct basalt_sql_window w; /* resolved through named windows */
    const char *window_text;    /* what groups calls into one node */
};

struct wcalls {
    struct wcall *items;
    int n, cap;
};

static basalt_status collect(struct binder *B, const struct basalt_sql_expr *e, struct wcalls *W,
                             struct basalt_error *err);

bool basalt_sql_has_window(struct binder *B, const struct basalt_sql_expr *e)
{
    struct wcalls W = {NULL, 0, 0};
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    /* a failure to collect (no memory) answers yes: the caller refuses */
    bool any = collect(B, e, &W, &ignore) != BASALT_OK || W.n > 0;
    basalt_free(W.items);
    return any;
}

static basalt_status collect_all(struct binder *B, struct basalt_sql_expr *const *es, int n,
                                 struct wcalls *W, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = collect(B, es[i], W, err);
    return st;
}

static basalt_status collect(struct binder *B, const struct basalt_sql_expr *e, struct wcalls *W,
                             struct basalt_error *err)
{
    if (e == NULL)
        return BASALT_OK;
    switch (e->kind) {
    case BASALT_SQL_EXPR_FUNCTION:
        if (e->u.call.over != NULL) {
            const char *text = basalt_sql_text(B, e);
            if (text == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            for (int i = 0; i < W->n; i++)
                if (strcmp(W->items[i].text, text) == 0)
                    return BASALT_OK;
            if (W->n == W->cap) {
                int cap = W->cap ? W->cap * 2 : 8;
                struct wcall *p = basalt_realloc(W->items, (size_t)cap * sizeof *p);
                if (p == NULL)
                    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
                W->items = p;
                W->cap = cap;
            }
            memset(&W->items[W->n], 0, sizeof W->items[W->n]);
            W->items[W->n].call = e;
            W->items[W->n++].text = text;
            return BASALT_OK;
        }
        return collect_all(B, e->u.call.args, e->u.call.n_args, W, err);
    case BASALT_SQL_EXPR_UNARY: return collect(B, e->u.unary.arg, W, err);
    case BASALT_SQL_EXPR_BINARY: {
        basalt_status st = collect(B, e->u.binary.left, W, err);
        return st == BASALT_OK ? collect(B, e->u.binary.right, W, err) : st;
    }
    case BASALT_SQL_EXPR_IS: return collect(B, e->u.is.arg, W, err);
    case BASALT_SQL_EXPR_BETWEEN: {
        basalt_status st = collect(B, e->u.between.arg, W, err);
        if (st == BASALT_OK)
            st = collect(B, e->u.between.low, W, err);
        return st == BASALT_OK ? collect(B, e->u.between.high, W, err) : st;
    }
    case BASALT_SQL_EXPR_CASE: {
        basalt_status st = collect(B, e->u.case_.operand, W, err);
        if (st == BASALT_OK)
            st = collect_all(B, e->u.case_.when, e->u.case_.n_when, W, err);
        if (st == BASALT_OK)
            st = collect_all(B, e->u.case_.then, e->u.case_.n_when, W, err);
        return st == BASALT_OK ? collect(B, e->u.case_.otherwise, W, err) : st;
    }
    case BASALT_SQL_EXPR_CAST: return collect(B, e->u.cast.arg, W, err);
    default: return BASALT_OK;
    }
}

/* OVER w / OVER (w ORDER BY ...): the named window's parts under the call's. */
static basalt_status resolve_window(struct binder *B, const struct basalt_sql_select *s,
                                    const struct basalt_sql_window *w, struct basalt_sql_window *out,
                                    int depth, struct basalt_error *err);

basalt_status basalt_sql_resolve_window(struct binder *B, const struct basalt_sql_select *s,
                                        const struct basalt_sql_window *w,
                                        struct basalt_sql_window *out, struct basalt_error *err)
{
    return resolve_window(B, s, w, out, 0, err);
}

static basalt_status resolve_window(struct binder *B, const struct basalt_sql_select *s,
                                    const struct basalt_sql_window *w, struct basalt_sql_window *out,
                                    int depth, struct basalt_error *err)
{
    *out = *w;
    if (w->ref.name == NULL)
        return BASALT_OK;
    if (depth > 16)
        return basalt_sql_err(B, BASALT_INVALID_ARG, w->pos, err, "windows refer to each other");
    for (int i = 0; i < s->n_windows; i++) {
        if (strcmp(s->windows[i].name.name, w->ref.name) != 0)
            continue;
        struct basalt_sql_window base;
        basalt_status st = resolve_window(B, s, s->windows[i].window, &base, depth + 1, err);
        if (st != BASALT_OK)
            return st;
        if (out->n_partition == 0) {
            out->n_partition = base.n_partition;
            out->partition = base.partition;
        }
        if (out->n_order == 0) {
            out->n_order = base.n_order;
            out->order = base.order;
        }
        if (out->frame == BASALT_SQL_FRAME_NONE) {
            out->frame = base.frame;
            out->start = base.start;
            out->end = base.end;
            out->exclude = base.exclude;
        }
        out->ref.name = NULL;
        return BASALT_OK;
    }
    return basalt_sql_err(B, BASALT_NOT_FOUND, w->pos, err, "window \"%s\" not found",
                          w->ref.name);
}

static const char *window_key(struct binder *B, const struct basalt_sql_window *w)
{
    char buf[4096];
    size_t n = 0;
    for (int i = 0; i < w->n_partition && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "P%s;", basalt_sql_text(B, w->partition[i]));
    for (int i = 0; i < w->n_order && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "O%s %d %d;", basalt_sql_text(B, w->order[i].expr),
                              (int)w->order[i].dir, (int)w->order[i].nulls);
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    return basalt_arena_strndup(&B->arena, buf, n);
}

static basalt_status fn_of(struct binder *B, const struct basalt_sql_expr *e,
                           enum basalt_qplan_window_fn *fn, int *n_args, struct basalt_error *err)
{
    static const struct {
        const char *name;
        enum basalt_qplan_window_fn fn;
        int min_args, max_args;
    } fns[] = {
        {"row_number", BASALT_QPLAN_WIN_ROW_NUMBER, 0, 0},
        {"rank", BASALT_QPLAN_WIN_RANK, 0, 0},
        {"dense_rank", BASALT_QPLAN_WIN_DENSE_RANK, 0, 0},
        {"percent_rank", BASALT_QPLAN_WIN_PERCENT_RANK, 0, 0},
        {"cume_dist", BASALT_QPLAN_WIN_CUME_DIST, 0, 0},
        {"ntile", BASALT_QPLAN_WIN_NTILE, 1, 1},
        {"lag", BASALT_QPLAN_WIN_LAG, 1, 3},
        {"lead", BASALT_QPLAN_WIN_LEAD, 1, 3},
        {"first_value", BASALT_QPLAN_WIN_FIRST_VALUE, 1, 1},
        {"last_value", BASALT_QPLAN_WIN_LAST_VALUE, 1, 1},
        {"nth_value", BASALT_QPLAN_WIN_NTH_VALUE, 2, 2},
        {"count", BASALT_QPLAN_WIN_COUNT, 1, 1},
        {"sum", BASALT_QPLAN_WIN_SUM, 1, 1},
        {"avg", BASALT_QPLAN_WIN_AVG, 1, 1},
        {"mean", BASALT_QPLAN_WIN_AVG, 1, 1},
        {"min", BASALT_QPLAN_WIN_MIN, 1, 1},
        {"max", BASALT_QPLAN_WIN_MAX, 1, 1},
    };
    const struct basalt_sql_call *c = &e->u.call;
    if ((strcmp(c->name.name, "count") == 0 && c->star) || strcmp(c->name.name, "count_star") == 0) {
        *fn = BASALT_QPLAN_WIN_COUNT_STAR;
        *n_args = 0;
        return BASALT_OK;
    }
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        if (strcmp(fns[i].name, c->name.name) != 0)
            continue;
        if (c->n_args < fns[i].min_args || c->n_args > fns[i].max_args)
            return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                                  "%s takes %d to %d arguments", fns[i].name, fns[i].min_args,
                                  fns[i].max_args);
        if (c->distinct || c->filter != NULL || c->n_order > 0)
            return basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, err,
                                  "DISTINCT, FILTER and ORDER BY in window calls are not supported");
        *fn = fns[i].fn;
        *n_args = c->n_args;
        return BASALT_OK;
    }
    if (basalt_sql_is_aggregate(c->name.name))
        return basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, err,
                              "%s is not supported as a window function (of the aggregates, "
                              "only count, sum, avg, min and max are)",
                              c->name.name);
    return basalt_sql_err(B, BASALT_UNSUPPORTED, e->pos, err,
                          "%s is not supported as a window function", c->name.name);
}

static basalt_status const_int(struct binder *B, const struct basalt_sql_expr *e, int64_t *out,
                               struct basalt_error *err)
{
    if (e == NULL || e->kind != BASALT_SQL_EXPR_INTEGER || !e->u.lit.fits || e->u.lit.i64 < 0)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e ? e->pos : -1, err,
                              "a window offset must be a non-negative integer constant");
    *out = e->u.lit.i64;
    return BASALT_OK;
}

static enum basalt_qplan_frame_bound bound_of(enum basalt_sql_bound_kind k)
{
    switch (k) {
    case BASALT_SQL_BOUND_UNBOUNDED_PRECEDING: return BASALT_QPLAN_UNBOUNDED_PRECEDING;
    case BASALT_SQL_BOUND_PRECEDING: return BASALT_QPLAN_PRECEDING;
    case BASALT_SQL_BOUND_CURRENT_ROW: return BASALT_QPLAN_CURRENT_ROW;
    case BASALT_SQL_BOUND_FOLLOWING: return BASALT_QPLAN_FOLLOWING;
    default: return BASALT_QPLAN_UNBOUNDED_FOLLOWING;
    }
}

static enum basalt_qplan_frame_exclude exclude_of(enum basalt_sql_frame_exclude x)
{
    switch (x) {
    case BASALT_SQL_EXCLUDE_CURRENT_ROW: return BASALT_QPLAN_EXCLUDE_CURRENT_ROW;
    case BASALT_SQL_EXCLUDE_GROUP: return BASALT_QPLAN_EXCLUDE_GROUP;
    case BASALT_SQL_EXCLUDE_TIES: return BASALT_QPLAN_EXCLUDE_TIES;
    default: return BASALT_QPLAN_EXCLUDE_NO_OTHERS;
    }
}

static bool unsigned_type(enum basalt_query_type_id id)
{
    return id == BASALT_QUERY_TYPE_UINT8 || id == BASALT_QUERY_TYPE_UINT16 ||
           id == BASALT_QUERY_TYPE_UINT32 || id == BASALT_QUERY_TYPE_UINT64;
}

/* The ORDER BY keys a RANGE offset moves: numbers, dates and times. */
static bool range_key(enum basalt_query_type_id id)
{
    switch (id) {
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE:
    case BASALT_QUERY_TYPE_DECIMAL:
    case BASALT_QUERY_TYPE_DATE:
    case BASALT_QUERY_TYPE_TIMESTAMP: return true;
    default: return unsigned_type(id);
    }
}

/* A RANGE frame's offset: a constant, not NULL, not negative, that moves
 * the ORDER BY key (lowered as `key`), as DuckDB takes it; checked here to
 * name its place in the query (the window node checks it again). */
static basalt_status range_offset(struct blower *L, const struct basalt_sql_expr *off,
                                  struct basalt_qexpr *key, struct basalt_query_value *out,
                                  struct basalt_error *err)
{
    struct binder *B = L->B;
    struct basalt_qexpr *e;
    basalt_status st = basalt_sql_lower(L, off, &e, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_type kt = basalt_qexpr_type(key), et = basalt_qexpr_type(e);
    /* A string is read as the key's type, or an INTERVAL for a date or time. */
    if (et.id == BASALT_QUERY_TYPE_STRING) {
        struct basalt_query_type to = kt;
        if (kt.id == BASALT_QUERY_TYPE_DATE || kt.id == BASALT_QUERY_TYPE_TIMESTAMP)
            to.id = BASALT_QUERY_TYPE_INTERVAL;
        st = basalt_qexpr_cast(L->b, e, to, false, &e, err);
        if (st != BASALT_OK)
            return basalt_sql_err(B, st, off->pos, err, "RANGE offset: %s", err ? err->message : "");
    }
    struct basalt_query_value v;
    char tn[64], kn[64];
    if (!basalt_qexpr_constant(e, &v) && et.id == BASALT_QUERY_TYPE_STRING)
        return basalt_sql_err(B, BASALT_INVALID_ARG, off->pos, err,
                              "a RANGE offset: the string does not convert to %s",
                              basalt_query_type_name(basalt_qexpr_type(e), tn, sizeof tn));
    if (!basalt_qexpr_constant(e, &v))
        return basalt_sql_err(B, BASALT_INVALID_ARG, off->pos, err,
                              "a RANGE offset must be a constant");
    if (v.is_null || v.type.id == BASALT_QUERY_TYPE_NULL)
        return basalt_sql_err(B, BASALT_INVALID_ARG, off->pos, err,
                              "a RANGE offset cannot be NULL");
    bool neg = false, number = true;
    switch (v.type.id) {
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64: neg = v.v.i < 0; break;
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE: neg = !(v.v.f >= 0); break; /* NaN too */
    case BASALT_QUERY_TYPE_DECIMAL: neg = v.v.dec.hi < 0; break;
    case BASALT_QUERY_TYPE_INTERVAL:
        neg = v.v.interval.months < 0 || v.v.interval.days < 0 || v.v.interval.nanos < 0;
        break;
    default: number = unsigned_type(v.type.id); break;
    }
    if (!number)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, off->pos, err,
                              "a RANGE offset must be a number or an INTERVAL, not %s",
                              basalt_query_type_name(v.type, tn, sizeof tn));
    if (neg)
        return basalt_sql_err(B, BASALT_INVALID_ARG, off->pos, err,
                              "a RANGE offset cannot be negative%s",
                              v.type.id == BASALT_QUERY_TYPE_INTERVAL ? " (in any part)"
                              : v.type.id == BASALT_QUERY_TYPE_FLOAT ||
                                      v.type.id == BASALT_QUERY_TYPE_DOUBLE
                                  ? " or NaN"
                                  : "");
    /* The key must move by it (DATE - INTERVAL, not DATE - DOUBLE). */
    struct basalt_qexpr *args[2] = {key, e}, *moved;
    struct basalt_error e2;
    basalt_error_init(&e2);
    st = basalt_qexpr_call(L->b, "-", args, 2, &moved, &e2);
    if (st == BASALT_NOMEM)
        return basalt_error_set(err, st, "out of memory");
    if (st != BASALT_OK)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, off->pos, err,
                              "a RANGE offset of type %s cannot move an ORDER BY key of type %s",
                              basalt_query_type_name(v.type, tn, sizeof tn),
                              basalt_query_type_name(kt, kn, sizeof kn));
    *out = v;
    return BASALT_OK;
}

/* Projection helper: the columns of rel plus `extra` computed expressions
 * (their gids appended). */
struct extra {
    struct basalt_qexpr **exprs;
    int n, cap;
};

/* *col: e's column. A key or argument that is one of rel's columns is that
 * column, not a copy of it: a window holds every column of its input (a
 * partition held whole, the survivors of a top-K per partition). */
static basalt_status add_extra(struct extra *x, struct basalt_qexpr *e, int base, int *col,
                               struct basalt_error *err)
{
    int32_t c = basalt_qexpr_column_index(e);
    if (c >= 0 && c < base) {
        *col = c;
        return BASALT_OK;
    }
    if (x->n == x->cap) {
        int cap = x->cap ? x->cap * 2 : 16;
        struct basalt_qexpr **p = basalt_realloc(x->exprs, (size_t)cap * sizeof *p);
        if (p == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        x->exprs = p;
        x->cap = cap;
    }
    x->exprs[x->n] = e;
    *col = base + x->n++;
    return BASALT_OK;
}

/* One window: its calls (indices into W) over rel. */
static basalt_status bind_one(struct binder *B, const struct bscope *scope, struct brel *rel,
                              const struct brepl *repl, int n_repl, struct wcalls *W,
                              const int *members, int n_members, struct brepl *out_repl,
                              int *n_out_repl, struct basalt_error *err)
{
    const struct basalt_sql_window *w = &W->items[members[0]].w;
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, rel->node, &b, err);
    struct blower L = {B, scope, rel, b, repl, n_repl, "a window"};
    struct extra x;
    memset(&x, 0, sizeof x);
    int base = rel->n;
    int *part = basalt_calloc((size_t)w->n_partition + 1, sizeof *part);
    struct basalt_qplan_sort_key *order = basalt_calloc((size_t)w->n_order + 1, sizeof *order);
    struct basalt_qplan_window_call *calls = basalt_calloc((size_t)n_members + 1, sizeof *calls);
    if (st == BASALT_OK && (part == NULL || order == NULL || calls == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < w->n_partition && st == BASALT_OK; i++) {
        struct basalt_qexpr *e;
        st = basalt_sql_lower(&L, w->partition[i], &e, err);
        if (st == BASALT_OK)
            st = add_extra(&x, e, base, &part[i], err);
    }
    struct basalt_qexpr *first_order_key = NULL;
    for (int i = 0; i < w->n_order && st == BASALT_OK; i++) {
        struct basalt_qexpr *e;
        st = basalt_sql_lower(&L, w->order[i].expr, &e, err);
        if (st == BASALT_OK && i == 0)
            first_order_key = e;
        if (st == BASALT_OK)
            st = add_extra(&x, e, base, &order[i].column, err);
        order[i].descending = w->order[i].dir == BASALT_SQL_ORDER_DESC;
        order[i].nulls_first = w->order[i].nulls == BASALT_SQL_NULLS_FIRST;
    }
    for (int k = 0; k < n_members && st == BASALT_OK; k++) {
        const struct wcall *wc = &W->items[members[k]];
        const struct basalt_sql_call *c = &wc->call->u.call;
        struct basalt_qplan_window_call *out = &calls[k];
        int n_args = 0;
        st = fn_of(B, wc->call, &out->fn, &n_args, err);
        out->arg = -1;
        out->default_arg = -1;
        out->offset = 1;
        out->name = wc->text;
        bool value_arg = out->fn != BASALT_QPLAN_WIN_NTILE;
        struct basalt_qexpr *value = NULL;
        if (st == BASALT_OK && n_args >= 1 && value_arg) {
            st = basalt_sql_lower(&L, c->args[0], &value, err);
            if (st == BASALT_OK)
                st = add_extra(&x, value, base, &out->arg, err);
        }
        if (st == BASALT_OK && out->fn == BASALT_QPLAN_WIN_NTILE)
            st = const_int(B, c->args[0], &out->offset, err);
        if (st == BASALT_OK && out->fn == BASALT_QPLAN_WIN_NTH_VALUE)
            st = const_int(B, c->args[1], &out->offset, err);
        if (st == BASALT_OK && (out->fn == BASALT_QPLAN_WIN_LAG || out->fn == BASALT_QPLAN_WIN_LEAD)) {
            if (n_args >= 2)
                st = const_int(B, c->args[1], &out->offset, err);
            if (st == BASALT_OK && n_args >= 3) {
                struct basalt_qexpr *d;
                st = basalt_sql_lower(&L, c->args[2], &d, err);
                /* the default takes the value's type */
                struct basalt_query_type vt = basalt_qexpr_type(value);
                if (st == BASALT_OK && !basalt_query_type_equal(basalt_qexpr_type(d), vt))
                    st = basalt_qexpr_cast(b, d, vt, false, &d, err);
                if (st == BASALT_OK)
                    st = add_extra(&x, d, base, &out->default_arg, err);
            }
        }
        out->has_frame = wc->w.frame != BASALT_SQL_FRAME_NONE;
        if (st == BASALT_OK && out->has_frame) {
            out->rows = wc->w.frame == BASALT_SQL_FRAME_ROWS;
            out->groups = wc->w.frame == BASALT_SQL_FRAME_GROUPS;
            out->start = bound_of(wc->w.start.kind);
            out->end = bound_of(wc->w.end.kind);
            out->exclude = exclude_of(wc->w.exclude);
            bool ranged = wc->w.frame == BASALT_SQL_FRAME_RANGE &&
                          (wc->w.start.offset != NULL || wc->w.end.offset != NULL);
            if (ranged && w->n_order != 1) {
                st = basalt_sql_err(B, BASALT_INVALID_ARG, wc->w.pos, err,
                                    "RANGE frames with an offset need exactly one ORDER BY key "
                                    "(the window has %d)",
                                    w->n_order);
            } else if (ranged) {
                struct basalt_qexpr *key = first_order_key;
                struct basalt_query_type kt = basalt_qexpr_type(key);
                char kn[64];
                if (!range_key(kt.id))
                    st = basalt_sql_err(B, BASALT_UNSUPPORTED, w->order[0].expr->pos, err,
                                        "RANGE frames with an offset need a numeric, DATE or "
                                        "TIMESTAMP ORDER BY key, not %s",
                                        basalt_query_type_name(kt, kn, sizeof kn));
                if (st == BASALT_OK && wc->w.start.offset != NULL)
                    st = range_offset(&L, wc->w.start.offset, key, &out->start_value, err);
                if (st == BASALT_OK && wc->w.end.offset != NULL)
                    st = range_offset(&L, wc->w.end.offset, key, &out->end_value, err);
            } else {
                if (st == BASALT_OK && wc->w.start.offset != NULL)
                    st = const_int(B, wc->w.start.offset, &out->start_offset, err);
                if (st == BASALT_OK && wc->w.end.offset != NULL)
                    st = const_int(B, wc->w.end.offset, &out->end_offset, err);
            }
        }
    }
    /* the projection: rel's columns, then the keys and arguments */
    struct basalt_qexpr **exprs = NULL;
    int32_t *gids = NULL;
    if (st == BASALT_OK) {
        exprs = basalt_calloc((size_t)(base + x.n) + 1, sizeof *exprs);
        gids = basalt_arena_alloc(&B->arena, sizeof *gids * (size_t)(base + x.n + n_members + 1), 8);
        if (exprs == NULL || gids == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int i = 0; i < base && st == BASALT_OK; i++) {
        st = basalt_qexpr_column(b, i, &exprs[i], err);
        gids[i] = rel->gids[i];
    }
    for (int i = 0; i < x.n && st == BASALT_OK; i++) {
        exprs[base + i] = x.exprs[i];
        gids[base + i] = basalt_sql_gid(B);
    }
    struct basalt_qplan *p = NULL, *win = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, rel->node, exprs, NULL, base + x.n, &p, err);
    if (st == BASALT_OK)
        st = basalt_qplan_window(B->ctx, p, part, w->n_partition, order, w->n_order, calls,
                                 n_members, &win, err);
    if (st == BASALT_OK) {
        for (int k = 0; k < n_members; k++) {
            gids[base + x.n + k] = basalt_sql_gid(B);
            out_repl[(*n_out_repl)++] = (struct brepl){W->items[members[k]].text, gids[base + x.n + k], false, NULL, 0, NULL};
        }
        rel->node = win;
        rel->gids = gids;
        rel->n = base + x.n + n_members;
    }
    basalt_free(exprs);
    basalt_free(x.exprs);
    basalt_free(part);
    basalt_free(order);
    basalt_free(calls);
    return st;
}

basalt_status basalt_sql_bind_windows(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select *s,
                                      const struct basalt_sql_expr *const *exprs, int n,
                                      struct brel *rel, struct brepl **repl, int *n_repl,
                                      struct basalt_error *err)
{
    struct wcalls W;
    memset(&W, 0, sizeof W);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = collect(B, exprs[i], &W, err);
    if (st != BASALT_OK || W.n == 0) {
        basalt_free(W.items);
        return st;
    }
    for (int i = 0; i < W.n && st == BASALT_OK; i++) {
        st = resolve_window(B, s, W.items[i].call->u.call.over, &W.items[i].w, 0, err);
        if (st == BASALT_OK)
            W.items[i].window_text = window_key(B, &W.items[i].w);
    }
    /* room for the window columns in the replacement list */
    struct brepl *r = basalt_realloc(*repl, sizeof *r * (size_t)(*n_repl + W.n + 1));
    if (st == BASALT_OK && r == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (r != NULL)
        *repl = r;
    int *members = basalt_calloc((size_t)W.n + 1, sizeof *members);
    bool *done = basalt_calloc((size_t)W.n + 1, sizeof *done);
    if (st == BASALT_OK && (members == NULL || done == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < W.n && st == BASALT_OK; i++) {
        if (done[i])
            continue;
        int m = 0;
        for (int k = i; k < W.n; k++)
            if (!done[k] && strcmp(W.items[k].window_text, W.items[i].window_text) == 0) {
                members[m++] = k;
                done[k] = true;
            }
        int before = *n_repl;
        st = bind_one(B, scope, rel, *repl, before, &W, members, m, *repl, n_repl, err);
    }
    basalt_free(members);
    basalt_free(done);
    basalt_free(W.items);
    return st;
}
