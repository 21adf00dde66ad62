/* RANGE frames with offsets: which rows' ORDER BY values lie within the
 * offset of the current row's. As DuckDB does, each row's bound is the
 * value key - offset or key + offset (PRECEDING subtracts under ASC and
 * adds under DESC), computed by the expressions (so DATE and TIMESTAMP keys
 * move by an INTERVAL with calendar months, DECIMAL offsets keep their
 * scale, integer keys overflow as key + offset does); the key and the
 * bounds are cast to their common type (a DATE key to TIMESTAMP for an
 * INTERVAL of hours) and viewed as comparable words. window_frame.c then
 * searches the sorted key for each row's bounds. The offsets are constants,
 * so the bounds are sorted as the key is: both searches move forward. */
#include <math.h>
#include <string.h>

#include "window/window_impl.h"

static bool offset_bound(enum basalt_qplan_frame_bound b)
{
    return b == BASALT_QPLAN_PRECEDING || b == BASALT_QPLAN_FOLLOWING;
}

static bool range_key_type(enum basalt_query_type_id id)
{
    return basalt_qtype_is_numeric(id) || id == BASALT_QUERY_TYPE_DATE ||
           id == BASALT_QUERY_TYPE_TIMESTAMP;
}

/* The offset of a bound as a value: start_value / end_value, or the
 * integer offset when the value is unset. */
static struct basalt_query_value offset_value(const struct basalt_qplan_window_call *c, bool end)
{
    struct basalt_query_value v = end ? c->end_value : c->start_value;
    if (v.type.id == BASALT_QUERY_TYPE_NULL && !v.is_null) {
        memset(&v, 0, sizeof v);
        v.type.id = BASALT_QUERY_TYPE_INT64;
        v.v.i = end ? c->end_offset : c->start_offset;
    }
    return v;
}

static basalt_status check_offset(const struct basalt_query_value *v, const char *which,
                                  struct basalt_error *err)
{
    if (v->is_null || v->type.id == BASALT_QUERY_TYPE_NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "RANGE %s offset cannot be NULL", which);
    bool neg = false;
    switch (v->type.id) {
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64: neg = v->v.i < 0; break;
    case BASALT_QUERY_TYPE_UINT8:
    case BASALT_QUERY_TYPE_UINT16:
    case BASALT_QUERY_TYPE_UINT32:
    case BASALT_QUERY_TYPE_UINT64: break;
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE: neg = v->v.f < 0 || isnan(v->v.f); break;
    case BASALT_QUERY_TYPE_DECIMAL: neg = v->v.dec.hi < 0; break;
    case BASALT_QUERY_TYPE_INTERVAL:
        neg = v->v.interval.months < 0 || v->v.interval.days < 0 || v->v.interval.nanos < 0;
        break;
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "RANGE %s offset must be a number or an INTERVAL", which);
    }
    bool fl = v->type.id == BASALT_QUERY_TYPE_FLOAT || v->type.id == BASALT_QUERY_TYPE_DOUBLE;
    if (neg)
        return basalt_error_set(err, BASALT_INVALID_ARG, "RANGE %s offset must not be %s", which,
                                v->type.id == BASALT_QUERY_TYPE_INTERVAL ? "negative (in any part)"
                                : fl                                     ? "negative or NaN"
                                                                         : "negative");
    return BASALT_OK;
}

static const char *type_text(const struct ArrowSchema *f, char *buf, size_t cap)
{
    struct basalt_query_type t;
    if (basalt_query_type_from_format(f->format, &t, NULL) != BASALT_OK)
        return f->format;
    return basalt_query_type_name(t, buf, cap);
}

/* exprs[0] the key, then the start's bound and the end's (those with an
 * offset), all cast to one type; *n their count. */
static basalt_status build(struct basalt_qexpr_builder *b, const struct ArrowSchema *schema,
                           int key_col, bool desc, const struct basalt_qplan_window_call *c,
                           struct basalt_qexpr **exprs, int *n, struct basalt_error *err)
{
    *n = 0;
    struct basalt_qexpr *key;
    basalt_status st = basalt_qexpr_column(b, key_col, &key, err);
    if (st != BASALT_OK)
        return st;
    exprs[(*n)++] = key;
    for (int end = 0; end < 2; end++) {
        enum basalt_qplan_frame_bound bd = end ? c->end : c->start;
        if (!offset_bound(bd))
            continue;
        struct basalt_query_value v = offset_value(c, end);
        st = check_offset(&v, end ? "end" : "start", err);
        struct basalt_qexpr *off = NULL, *bound = NULL;
        if (st == BASALT_OK)
            st = basalt_qexpr_literal(b, &v, &off, err);
        /* PRECEDING: smaller keys ascending, larger ones descending. */
        const char *op = (bd == BASALT_QPLAN_PRECEDING) != desc ? "-" : "+";
        struct basalt_qexpr *args[2] = {key, off};
        if (st == BASALT_OK) {
            struct basalt_error e2;
            basalt_error_init(&e2);
            st = basalt_qexpr_call(b, op, args, 2, &bound, &e2);
            if (st == BASALT_NOMEM)
                return basalt_error_set(err, st, "out of memory");
            if (st != BASALT_OK) {
                char kt[64], ot[64];
                return basalt_error_set(err, BASALT_UNSUPPORTED,
                                        "a RANGE offset of type %s cannot move an ORDER BY key of "
                                        "type %s",
                                        basalt_query_type_name(v.type, ot, sizeof ot),
                                        type_text(schema->children[key_col], kt, sizeof kt));
            }
        }
        if (st != BASALT_OK)
            return st;
        exprs[(*n)++] = bound;
    }
    /* One type for the key and the bounds: a DATE key meets a TIMESTAMP bound. */
    struct basalt_qexpr *common;
    st = basalt_qexpr_coalesce(b, exprs, *n, &common, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_query_type t = basalt_qexpr_type(common);
    if (!range_key_type(t.id)) {
        char tt[64];
        return basalt_error_set(err, BASALT_UNSUPPORTED, "RANGE offsets: bounds of type %s",
                                basalt_query_type_name(t, tt, sizeof tt));
    }
    for (int i = 0; i < *n && st == BASALT_OK; i++)
        if (!basalt_query_type_equal(basalt_qexpr_type(exprs[i]), t))
            st = basalt_qexpr_cast(b, exprs[i], t, false, &exprs[i], err);
    return st;
}

basalt_status basalt_qw_range_check(const struct ArrowSchema *schema,
                                    const struct basalt_qplan_sort_key *order, int n_order,
                                    const struct basalt_qplan_window_call *c,
                                    struct basalt_error *err)
{
    if (n_order != 1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "RANGE frames with an offset need exactly one ORDER BY key (the "
                                "window has %d)",
                                n_order);
    int col = order[0].column;
    struct basalt_query_type t;
    char kt[64];
    if (col < 0 || col >= schema->n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: order column %d out of range", col);
    if (basalt_query_type_from_format(schema->children[col]->format, &t, NULL) != BASALT_OK ||
        !range_key_type(t.id))
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "RANGE frames with an offset need a numeric, DATE or TIMESTAMP "
                                "ORDER BY key, not %s",
                                type_text(schema->children[col], kt, sizeof kt));
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qexpr_builder_new(schema, &b, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr *exprs[3];
    int n;
    st = build(b, schema, col, order[0].descending, c, exprs, &n, err);
    basalt_qexpr_builder_free(b);
    return st;
}

/* ------------------------------------------------------------------ views */

struct range_job {
    struct qw_run *r;
    const struct basalt_query_program *prog;
    struct basalt_query_state **states; /* per worker */
    struct basalt_query_type t;
    struct qw_view *views[3];
    int n;
    basalt_status *st;         /* per batch */
    struct basalt_error *errs; /* per batch */
};

static void range_batches(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct range_job *j = ctx;
    const struct qw_input *in = &j->r->in;
    for (int64_t b = begin; b < end; b++) {
        struct ArrowArray out[3];
        j->st[b] = basalt_query_eval(j->prog, j->states[worker], &in->batches[b], out, &j->errs[b]);
        if (j->st[b] != BASALT_OK)
            continue;
        for (int i = 0; i < j->n; i++) {
            basalt_qw_view_fill(j->views[i], j->t, QWP_KEY, &out[i], in->start[b]);
            basalt_arrow_array_release(&out[i]);
        }
    }
}

basalt_status basalt_qw_range_views(struct qw_run *r, struct qw_call *k, int order_col, bool desc,
                                    struct basalt_pool *pool, struct basalt_error *err)
{
    const struct basalt_qplan_window_call *c = k->c;
    k->ranged = true;
    k->desc = desc;
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qexpr_builder_new(r->in.schema, &b, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr *exprs[3];
    int n = 0;
    struct basalt_query_program *prog = NULL;
    st = build(b, r->in.schema, order_col, desc, c, exprs, &n, err);
    if (st == BASALT_OK)
        st = basalt_query_compile(b, exprs, n, NULL, &prog, err);
    struct range_job j;
    memset(&j, 0, sizeof j);
    j.r = r;
    j.prog = prog;
    j.n = n;
    if (st == BASALT_OK)
        j.t = basalt_query_program_type(prog, 0);
    /* views[0] the key; then the start's bound and the end's, as built */
    j.views[0] = &k->rkey;
    int at = 1;
    if (offset_bound(c->start))
        j.views[at++] = &k->rlo;
    if (offset_bound(c->end))
        j.views[at++] = &k->rhi;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_qw_view_new(j.t, QWP_KEY, r->in.n, true, j.views[i], err);
    int workers = r->workers;
    j.states = basalt_calloc((size_t)workers, sizeof *j.states);
    j.st = basalt_calloc((size_t)r->in.n_batches + 1, sizeof *j.st);
    j.errs = basalt_calloc((size_t)r->in.n_batches + 1, sizeof *j.errs);
    if (st == BASALT_OK && (j.states == NULL || j.st == NULL || j.errs == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int w = 0; w < workers && st == BASALT_OK; w++)
        st = basalt_query_state_new(prog, &j.states[w], err);
    if (st == BASALT_OK && r->in.n_batches > 0) {
        basalt_pool_parallel_for(pool, workers, r->in.n_batches, 1, range_batches, &j);
        for (int64_t i = 0; i < r->in.n_batches && st == BASALT_OK; i++)
            if (j.st[i] != BASALT_OK) {
                st = j.st[i];
                if (err != NULL)
                    *err = j.errs[i];
                basalt_error_context(err, st, "window '%s': RANGE bound",
                                     c->name ? c->name : "");
            }
    }
    for (int w = 0; j.states != NULL && w < workers; w++)
        basalt_query_state_free(j.states[w]);
    basalt_free(j.states);
    basalt_free(j.st);
    basalt_free(j.errs);
    basalt_query_program_free(prog);
    basalt_qexpr_builder_free(b);
    return st;
}
