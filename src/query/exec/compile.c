/* The compiler: lowers expression trees into a flat list of steps, each a
 * kernel chosen once for its operation, types and operands, over numbered
 * slots that hold one vector of values and validity. CASE branches and
 * COALESCE arguments run under a mask slot so their errors count only on the
 * rows that reach them. Arithmetic and comparison subtrees over numeric
 * columns become one fused step (k_fused.c). */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "query_internal.h"

#define T(id) basalt_query_type_make(BASALT_QUERY_TYPE_##id)

struct lower {
    struct basalt_query_program *p;
    int32_t cap_slots, cap_steps;
    int32_t *col_slot; /* column -> slot of its load, -1 */
    /* Calls and casts computed for every row, by node: a node the tree
     * holds twice (x IN (a, b) compares the one x with each item) is
     * computed once. */
    struct qnode_map done; /* node -> slot */
    bool fuse;
    struct basalt_error *err;
};

void basalt_query_compile_options_init(struct basalt_query_compile_options *o)
{
    memset(o, 0, sizeof *o);
    o->fuse = true;
}

static int32_t new_slot(struct lower *L, struct basalt_query_type t)
{
    struct basalt_query_program *p = L->p;
    if (p->n_slots == L->cap_slots) {
        int32_t cap = L->cap_slots ? L->cap_slots * 2 : 16;
        struct qslot *s = basalt_arena_alloc(&p->arena, sizeof *s * (size_t)cap, 16);
        if (!s)
            return -1;
        if (p->n_slots)
            memcpy(s, p->slots, sizeof *s * (size_t)p->n_slots);
        p->slots = s;
        L->cap_slots = cap;
    }
    memset(&p->slots[p->n_slots], 0, sizeof p->slots[0]);
    p->slots[p->n_slots].type = t;
    if (t.id == BASALT_QUERY_TYPE_STRING || t.id == BASALT_QUERY_TYPE_BINARY ||
        t.id == BASALT_QUERY_TYPE_LIST)
        p->has_strings = true;
    return p->n_slots++;
}

static struct qstep *new_step(struct lower *L, struct basalt_query_type t, int32_t mask,
                              int32_t pos)
{
    struct basalt_query_program *p = L->p;
    if (p->n_steps == L->cap_steps) {
        int32_t cap = L->cap_steps ? L->cap_steps * 2 : 16;
        struct qstep *s = basalt_arena_alloc(&p->arena, sizeof *s * (size_t)cap, 16);
        if (!s)
            return NULL;
        if (p->n_steps)
            memcpy(s, p->steps, sizeof *s * (size_t)p->n_steps);
        p->steps = s;
        L->cap_steps = cap;
    }
    int32_t out = new_slot(L, t);
    if (out < 0)
        return NULL;
    struct qstep *st = &p->steps[p->n_steps++];
    memset(st, 0, sizeof *st);
    st->out = out;
    st->type = t;
    st->mask = mask;
    st->pos = pos;
    return st;
}

/* ------------------------------------------------------------------ structural kernels */

static basalt_status k_column(const struct qstep *st, struct qexec *x)
{
    const struct qcolumn *c = &x->cols[st->column];
    struct qvec *o = &x->vec[st->out];
    int64_t at = c->offset + x->start;
    int n = x->n;
    if (c->validity && c->array->null_count != 0) {
        basalt_bitmap_copy((uint8_t *)o->vbuf, 0, c->validity, at, n);
        o->valid = o->vbuf;
    } else {
        o->valid = NULL;
    }
    switch (st->type.id) {
    case BASALT_QUERY_TYPE_NULL:
        memset(o->vbuf, 0, QWORDS * 8);
        o->valid = o->vbuf;
        break;
    case BASALT_QUERY_TYPE_BOOL:
        basalt_bitmap_copy((uint8_t *)o->dbuf, 0, c->values, at, n);
        o->data = o->dbuf;
        break;
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: {
        struct qstr *v = o->dbuf;
        const char *data = c->data;
        if (st->type.large) {
            const int64_t *off = (const int64_t *)c->values + at;
            for (int i = 0; i < n; i++) {
                v[i].ptr = data + off[i];
                v[i].len = off[i + 1] - off[i];
            }
        } else {
            const int32_t *off = (const int32_t *)c->values + at;
            for (int i = 0; i < n; i++) {
                v[i].ptr = data + off[i];
                v[i].len = off[i + 1] - off[i];
            }
        }
        o->data = o->dbuf;
        break;
    }
    default:
        o->data = ((const char *)c->values + at * basalt_qtype_width(st->type));
    }
    return BASALT_OK;
}

/* out = (rows of mask slot, all if none) AND (arg 0 is TRUE); with st->flag
 * AND NOT; with aux 1: AND (arg 0 is NULL) for COALESCE. */
static basalt_status k_mask(const struct qstep *st, struct qexec *x)
{
    struct qvec *o = &x->vec[st->out];
    const struct qvec *w = &x->vec[st->args[0]];
    const struct qvec *m = st->args[1] >= 0 ? &x->vec[st->args[1]] : NULL;
    uint64_t *d = o->dbuf;
    int nw = (x->n + 63) / 64;
    for (int k = 0; k < nw; k++) {
        uint64_t t;
        if (st->aux == 1)
            t = w->valid ? ~w->valid[k] : 0;
        else {
            t = ((const uint64_t *)w->data)[k] & (w->valid ? w->valid[k] : ~(uint64_t)0);
            if (st->flag)
                t = ~t;
        }
        if (m)
            t &= ((const uint64_t *)m->data)[k] & (m->valid ? m->valid[k] : ~(uint64_t)0);
        d[k] = t;
    }
    o->data = d;
    o->valid = NULL;
    return BASALT_OK;
}

/* CASE: args sel0, then0, sel1, then1, ..., else */
static basalt_status k_case(const struct qstep *st, struct qexec *x)
{
    struct qvec *o = &x->vec[st->out];
    int w = basalt_qtype_width(st->type), nb = (st->n_args - 1) / 2, n = x->n;
    const struct qvec *el = &x->vec[st->args[st->n_args - 1]];
    uint64_t *valid = o->vbuf;
    bool is_bool = st->type.id == BASALT_QUERY_TYPE_BOOL || st->type.id == BASALT_QUERY_TYPE_NULL;
    if (is_bool)
        memset(o->dbuf, 0, QWORDS * 8);
    for (int i = 0; i < n; i++) {
        const struct qvec *src = el;
        for (int k = 0; k < nb; k++)
            if (qbit((const uint64_t *)x->vec[st->args[2 * k]].data, i)) {
                src = &x->vec[st->args[2 * k + 1]];
                break;
            }
        bool v = qrow_valid(src->valid, i);
        qbit_set(valid, i, v);
        if (is_bool) {
            if (v && st->type.id == BASALT_QUERY_TYPE_BOOL)
                qbit_set(o->dbuf, i, qbit(src->data, i));
        } else {
            memcpy((char *)o->dbuf + (size_t)i * w, (const char *)src->data + (size_t)i * w,
                   (size_t)w);
        }
    }
    o->data = o->dbuf;
    o->valid = valid;
    return BASALT_OK;
}

static basalt_status k_coalesce(const struct qstep *st, struct qexec *x)
{
    struct qvec *o = &x->vec[st->out];
    int w = basalt_qtype_width(st->type), n = x->n;
    bool is_bool = st->type.id == BASALT_QUERY_TYPE_BOOL || st->type.id == BASALT_QUERY_TYPE_NULL;
    if (is_bool)
        memset(o->dbuf, 0, QWORDS * 8);
    for (int i = 0; i < n; i++) {
        const struct qvec *src = NULL;
        for (int k = 0; k < st->n_args && !src; k++)
            if (qrow_valid(x->vec[st->args[k]].valid, i))
                src = &x->vec[st->args[k]];
        qbit_set(o->vbuf, i, src != NULL);
        if (!src)
            continue;
        if (is_bool) {
            if (st->type.id == BASALT_QUERY_TYPE_BOOL)
                qbit_set(o->dbuf, i, qbit(src->data, i));
        } else {
            memcpy((char *)o->dbuf + (size_t)i * w, (const char *)src->data + (size_t)i * w,
                   (size_t)w);
        }
    }
    o->data = o->dbuf;
    o->valid = o->vbuf;
    return BASALT_OK;
}

/* Kleene AND / OR, a word at a time. */
static basalt_status k_and_or(const struct qstep *st, struct qexec *x)
{
    struct qvec *o = &x->vec[st->out];
    const struct qvec *a = &x->vec[st->args[0]], *b = &x->vec[st->args[1]];
    const uint64_t *av = a->data, *bv = b->data;
    uint64_t *d = o->dbuf, *v = o->vbuf;
    int nw = (x->n + 63) / 64;
    bool all_valid = !a->valid && !b->valid;
    for (int k = 0; k < nw; k++) {
        uint64_t va = a->valid ? a->valid[k] : ~(uint64_t)0;
        uint64_t vb = b->valid ? b->valid[k] : ~(uint64_t)0;
        uint64_t x1 = av[k] & va, x2 = bv[k] & vb; /* known true */
        if (st->op == QOP_EQ) {                    /* AND */
            uint64_t f1 = ~av[k] & va, f2 = ~bv[k] & vb; /* known false */
            d[k] = x1 & x2;
            v[k] = (va & vb) | f1 | f2;
        } else { /* OR */
            d[k] = x1 | x2;
            v[k] = (va & vb) | x1 | x2;
        }
    }
    o->data = d;
    o->valid = all_valid ? NULL : v;
    return BASALT_OK;
}

static basalt_status k_not(const struct qstep *st, struct qexec *x)
{
    struct qvec *o = &x->vec[st->out];
    const struct qvec *a = &x->vec[st->args[0]];
    const uint64_t *av = a->data;
    uint64_t *d = o->dbuf;
    int nw = (x->n + 63) / 64;
    for (int k = 0; k < nw; k++)
        d[k] = ~av[k];
    o->data = d;
    o->valid = a->valid;
    return BASALT_OK;
}

static basalt_status k_is_null(const struct qstep *st, struct qexec *x)
{
    struct qvec *o = &x->vec[st->out];
    const struct qvec *a = &x->vec[st->args[0]];
    uint64_t *d = o->dbuf;
    int nw = (x->n + 63) / 64;
    for (int k = 0; k < nw; k++) {
        uint64_t valid = a->valid ? a->valid[k] : ~(uint64_t)0;
        d[k] = st->flag ? valid : ~valid;
    }
    o->data = d;
    o->valid = NULL;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ lowering */

static int32_t lower(struct lower *L, const struct basalt_qexpr *e, int32_t mask);

static int32_t fail(struct lower *L, basalt_status st, const char *what)
{
    basalt_error_set(L->err, st, "%s", what);
    return -1;
}

#define NEED(cond)                                                                                \
    do {                                                                                          \
        if (!(cond))                                                                              \
            return fail(L, BASALT_NOMEM, "out of memory");                                        \
    } while (0)

static int32_t const_slot(struct lower *L, const struct basalt_qexpr *e)
{
    int32_t s = new_slot(L, e->type);
    NEED(s >= 0);
    struct qslot *sl = &L->p->slots[s];
    sl->is_const = true;
    sl->const_null = e->value.is_null || e->type.id == BASALT_QUERY_TYPE_NULL;
    sl->value = e->value;
    if (!sl->const_null &&
        (e->type.id == BASALT_QUERY_TYPE_STRING || e->type.id == BASALT_QUERY_TYPE_BINARY ||
         e->type.id == BASALT_QUERY_TYPE_LIST)) {
        char *c = basalt_arena_alloc(&L->p->arena, e->value.v.str.len + 1, 1);
        NEED(c);
        if (e->value.v.str.len)
            memcpy(c, e->value.v.str.ptr, e->value.v.str.len);
        c[e->value.v.str.len] = 0;
        sl->value.v.str.ptr = c;
    }
    return s;
}

/* A fusable subtree: DOUBLE + - * / over DOUBLE columns, FLOAT/INT32/INT64
 * columns cast to DOUBLE, and non-null DOUBLE constants. */
static bool fusable(const struct basalt_qexpr *e, int depth)
{
    if (depth > 12)
        return false;
    if (e->type.id != BASALT_QUERY_TYPE_DOUBLE)
        return false;
    switch (e->kind) {
    case QN_COLUMN:
        return true;
    case QN_CONST:
        return !e->value.is_null;
    case QN_CAST: {
        const struct basalt_qexpr *a = e->args[0];
        return a->kind == QN_COLUMN && (a->type.id == BASALT_QUERY_TYPE_FLOAT ||
                                        a->type.id == BASALT_QUERY_TYPE_INT32 ||
                                        a->type.id == BASALT_QUERY_TYPE_INT64);
    }
    case QN_CALL:
        if (e->op != QOP_ADD && e->op != QOP_SUB && e->op != QOP_MUL && e->op != QOP_DIV)
            return false;
        return fusable(e->args[0], depth + 1) && fusable(e->args[1], depth + 1);
    default:
        return false;
    }
}

static bool fusable_root(const struct basalt_qexpr *e)
{
    if (e->kind != QN_CALL)
        return false;
    if (e->op >= QOP_EQ && e->op <= QOP_GE)
        return fusable(e->args[0], 0) && fusable(e->args[1], 0) &&
               (e->args[0]->kind != QN_CONST || e->args[1]->kind != QN_CONST);
    return (e->op == QOP_ADD || e->op == QOP_SUB || e->op == QOP_MUL || e->op == QOP_DIV) &&
           fusable(e, 0);
}

struct fuse_ctx {
    struct qfinstr ins[64];
    int n;
    int regs;
    struct qstep *st;
};

static int fuse_emit(struct fuse_ctx *F, const struct basalt_qexpr *e)
{
    if (F->n >= 60 || F->regs >= 32)
        return -1;
    struct qfinstr *in;
    switch (e->kind) {
    case QN_COLUMN:
    case QN_CAST: {
        const struct basalt_qexpr *c = e->kind == QN_CAST ? e->args[0] : e;
        in = &F->ins[F->n++];
        memset(in, 0, sizeof *in);
        in->op = QF_LOAD;
        in->column = c->column;
        in->src = c->type.id;
        in->dst = (int8_t)F->regs++;
        bool seen = false;
        for (int i = 0; i < F->st->n_loads; i++)
            seen |= F->st->loads[i] == c->column;
        if (!seen) {
            if (F->st->n_loads >= QMAX_ARGS)
                return -1;
            F->st->loads[F->st->n_loads++] = c->column;
        }
        return in->dst;
    }
    case QN_CONST:
        in = &F->ins[F->n++];
        memset(in, 0, sizeof *in);
        in->op = QF_CONST;
        in->k = e->value.v.f;
        in->dst = (int8_t)F->regs++;
        return in->dst;
    default: {
        int a = fuse_emit(F, e->args[0]);
        int b = a < 0 ? -1 : fuse_emit(F, e->args[1]);
        if (b < 0 || F->n >= 60)
            return -1;
        in = &F->ins[F->n++];
        memset(in, 0, sizeof *in);
        static const enum qfop map[] = {[QOP_ADD] = QF_ADD, [QOP_SUB] = QF_SUB, [QOP_MUL] = QF_MUL,
                                        [QOP_DIV] = QF_DIV, [QOP_EQ] = QF_EQ,   [QOP_NE] = QF_NE,
                                        [QOP_LT] = QF_LT,   [QOP_LE] = QF_LE,   [QOP_GT] = QF_GT,
                                        [QOP_GE] = QF_GE};
        in->op = map[e->op];
        in->a = (int8_t)a;
        in->b = (int8_t)b;
        in->dst = (int8_t)a; /* reuse the left register */
        return a;
    }
    }
}

static int32_t lower_fused(struct lower *L, const struct basalt_qexpr *e, int32_t mask)
{
    struct qstep *st = new_step(L, e->type, mask, e->pos);
    NEED(st);
    struct fuse_ctx F;
    memset(&F, 0, sizeof F);
    F.st = st;
    int r = fuse_emit(&F, e);
    if (r < 0) {
        /* too big: undo and lower unfused */
        L->p->n_steps--;
        return -2;
    }
    st->instr = basalt_arena_alloc(&L->p->arena, sizeof *st->instr * (size_t)F.n, 8);
    NEED(st->instr);
    memcpy(st->instr, F.ins, sizeof *st->instr * (size_t)F.n);
    st->n_instr = F.n;
    st->n_regs = (int8_t)F.regs;
    st->result_reg = (int8_t)r;
    st->fn = basalt_qk_fused;
    st->kname = "fused";
    return st->out;
}

static int32_t lower_call(struct lower *L, const struct basalt_qexpr *e, int32_t mask)
{
    int32_t args[QMAX_ARGS];
    for (int i = 0; i < e->n_args; i++) {
        args[i] = lower(L, e->args[i], mask);
        if (args[i] < 0)
            return -1;
    }
    struct qstep *st = new_step(L, e->type, mask, e->pos);
    NEED(st);
    st->n_args = e->n_args;
    memcpy(st->args, args, sizeof(int32_t) * (size_t)e->n_args);
    st->op = e->op;
    st->aux = e->aux;
    st->flag = e->negate;
    if (e->n_args > 0) {
        st->in_type = e->args[0]->type;
        st->a_const = L->p->slots[args[0]].is_const;
    }
    if (e->n_args > 1) {
        st->in_type2 = e->args[1]->type;
        st->b_const = L->p->slots[args[1]].is_const;
    }
    bool ok;
    switch (e->op) {
    case QOP_EQ: case QOP_NE: case QOP_LT: case QOP_LE: case QOP_GT: case QOP_GE:
        ok = basalt_qk_compare_select(st);
        break;
    case QOP_ADD: case QOP_SUB: case QOP_MUL: case QOP_DIV: case QOP_IDIV: case QOP_MOD:
    case QOP_NEG:
        ok = basalt_qk_arith_select(st);
        break;
    case QOP_ABS: case QOP_ROUND: case QOP_FLOOR: case QOP_CEIL: case QOP_TRUNC: case QOP_SQRT:
    case QOP_LN: case QOP_LOG10: case QOP_EXP: case QOP_POW: case QOP_SIGN:
    case QOP_LOG2: case QOP_CBRT: case QOP_DEGREES: case QOP_RADIANS: case QOP_SIN: case QOP_COS:
    case QOP_TAN: case QOP_ASIN: case QOP_ACOS: case QOP_ATAN: case QOP_ATAN2: case QOP_LOG_BASE:
    case QOP_EVEN: case QOP_ISNAN: case QOP_ISINF: case QOP_ISFINITE: case QOP_GCD: case QOP_LCM:
    case QOP_BIT_COUNT: case QOP_XOR: case QOP_GREATEST: case QOP_LEAST:
        ok = basalt_qk_math_select(st);
        break;
    case QOP_BIT_AND: case QOP_BIT_OR: case QOP_SHIFT_LEFT: case QOP_SHIFT_RIGHT: case QOP_BIT_NOT:
        ok = basalt_qk_bitwise_select(st);
        break;
    case QOP_DATE_PART: case QOP_DATE_TRUNC: case QOP_STRFTIME: case QOP_TS_ADD_INTERVAL:
    case QOP_TS_SUB_INTERVAL: case QOP_TS_SUB_TS: case QOP_DATE_SUB_DATE: case QOP_DATE_ADD_DAYS:
    case QOP_DATE_SUB_DAYS: case QOP_INTERVAL_ADD:
    case QOP_INTERVAL_SUB: case QOP_DATE_DIFF: case QOP_DATE_SUB_PART: case QOP_MAKE_DATE:
    case QOP_MAKE_TIMESTAMP: case QOP_LAST_DAY: case QOP_EPOCH_MS: case QOP_FROM_EPOCH:
    case QOP_STRPTIME: case QOP_TIME_ADD_INTERVAL: case QOP_DATE_ADD_TIME: case QOP_TIME_PART:
    case QOP_MAKE_TIME:
        ok = basalt_qk_time_select(st);
        break;
    case QOP_ERROR:
        ok = basalt_qk_error_select(st);
        break;
    case QOP_INTERVAL_MUL: case QOP_INTERVAL_MUL_F: case QOP_INTERVAL_DIV_F: case QOP_TO_INTERVAL:
        ok = basalt_qk_interval_select(st);
        break;
    case QOP_LIST_VALUE: case QOP_LIST_LEN: case QOP_LIST_EXTRACT: case QOP_LIST_CONTAINS:
    case QOP_STRING_SPLIT: case QOP_LIST_SORT: case QOP_LIST_DISTINCT: case QOP_LIST_CMP:
        ok = basalt_qk_list_select(st);
        break;
    default:
        ok = basalt_qk_string_select(st, &L->p->arena, L->p->slots);
    }
    if (!ok) {
        char t[48];
        basalt_error_set(L->err, BASALT_UNSUPPORTED, "no kernel for '%s' on %s",
                         e->name ? e->name : "?", basalt_query_type_name(st->in_type, t, sizeof t));
        return -1;
    }
    return st->out;
}

static int32_t lower_node(struct lower *L, const struct basalt_qexpr *e, int32_t mask);

/* A node computed under no mask has its value on every row, so any later
 * use of the same node reads that slot, masked or not (slots are written
 * once). Under a mask it is computed again. */
static int32_t lower(struct lower *L, const struct basalt_qexpr *e, int32_t mask)
{
    bool costly = e->kind == QN_CALL || e->kind == QN_CAST;
    uintptr_t slot;
    if (costly && basalt_qnode_map_find(&L->done, e, &slot))
        return (int32_t)slot;
    int32_t r = lower_node(L, e, mask);
    if (r < 0 || !costly || mask >= 0)
        return r;
    if (!basalt_qnode_map_put(&L->done, e, (uintptr_t)r))
        return fail(L, BASALT_NOMEM, "out of memory");
    return r;
}

static int32_t lower_node(struct lower *L, const struct basalt_qexpr *e, int32_t mask)
{
    struct qstep *st;
    int32_t a, b;
    switch (e->kind) {
    case QN_CONST:
        return const_slot(L, e);
    case QN_COLUMN:
        if (L->col_slot[e->column] >= 0)
            return L->col_slot[e->column];
        st = new_step(L, e->type, -1, e->pos);
        NEED(st);
        st->fn = e->type.id == BASALT_QUERY_TYPE_LIST ? basalt_qk_list_column : k_column;
        st->kname = e->type.id == BASALT_QUERY_TYPE_LIST ? "list_column" : "column";
        st->column = e->column;
        L->col_slot[e->column] = st->out;
        return st->out;
    case QN_CALL:
        if (L->fuse && fusable_root(e)) {
            int32_t r = lower_fused(L, e, mask);
            if (r != -2)
                return r;
        }
        return lower_call(L, e, mask);
    case QN_CAST:
        if (L->fuse && fusable_root(e)) {
            int32_t r = lower_fused(L, e, mask);
            if (r != -2)
                return r;
        }
        a = lower(L, e->args[0], mask);
        if (a < 0)
            return -1;
        st = new_step(L, e->type, mask, e->pos);
        NEED(st);
        st->n_args = 1;
        st->args[0] = a;
        st->in_type = e->args[0]->type;
        st->flag = e->try_cast;
        if (!basalt_qk_cast_select(st, &L->p->arena)) {
            char f[48], t[48];
            basalt_error_set(L->err, BASALT_UNSUPPORTED, "no kernel to cast %s to %s",
                             basalt_query_type_name(st->in_type, f, sizeof f),
                             basalt_query_type_name(e->type, t, sizeof t));
            return -1;
        }
        return st->out;
    case QN_AND:
    case QN_OR:
        a = lower(L, e->args[0], mask);
        b = a < 0 ? -1 : lower(L, e->args[1], mask);
        if (b < 0)
            return -1;
        st = new_step(L, e->type, mask, e->pos);
        NEED(st);
        st->n_args = 2;
        st->args[0] = a;
        st->args[1] = b;
        st->op = e->kind == QN_AND ? QOP_EQ : QOP_NE;
        st->fn = k_and_or;
        st->kname = e->kind == QN_AND ? "and" : "or";
        return st->out;
    case QN_IN_SET:
        a = lower(L, e->args[0], mask);
        if (a < 0)
            return -1;
        st = new_step(L, e->type, mask, e->pos);
        NEED(st);
        st->n_args = 1;
        st->args[0] = a;
        NEED(basalt_qk_in_set_select(st, &L->p->arena, e));
        return st->out;
    case QN_NOT:
    case QN_IS_NULL:
        a = lower(L, e->args[0], mask);
        if (a < 0)
            return -1;
        st = new_step(L, e->type, mask, e->pos);
        NEED(st);
        st->n_args = 1;
        st->args[0] = a;
        st->flag = e->negate;
        st->fn = e->kind == QN_NOT ? k_not : k_is_null;
        st->kname = e->kind == QN_NOT ? "not" : (e->negate ? "is_not_null" : "is_null");
        return st->out;
    case QN_DISTINCT:
        a = lower(L, e->args[0], mask);
        b = a < 0 ? -1 : lower(L, e->args[1], mask);
        if (b < 0)
            return -1;
        st = new_step(L, e->type, mask, e->pos);
        NEED(st);
        st->n_args = 2;
        st->args[0] = a;
        st->args[1] = b;
        st->in_type = e->args[0]->type;
        st->flag = e->negate;
        st->op = QOP_NE;
        if (!basalt_qk_compare_select(st))
            return fail(L, BASALT_UNSUPPORTED, "no kernel for IS DISTINCT FROM");
        st->inner = st->fn; /* the comparison; basalt_qk_distinct fixes up NULLs */
        st->fn = basalt_qk_distinct;
        st->kname = e->negate ? "is_not_distinct" : "is_distinct";
        return st->out;
    case QN_CASE: {
        int nb = (e->n_args - 1) / 2;
        int32_t args[QMAX_ARGS];
        if (2 * nb + 1 > QMAX_ARGS)
            return fail(L, BASALT_LIMIT, "CASE with more than 7 branches is not compiled yet");
        int32_t rest = mask;
        for (int k = 0; k < nb; k++) {
            int32_t w = lower(L, e->args[2 * k], rest);
            if (w < 0)
                return -1;
            st = new_step(L, T(BOOL), -1, e->pos);
            NEED(st);
            st->fn = k_mask;
            st->kname = "mask";
            st->args[0] = w;
            st->args[1] = rest;
            int32_t sel = st->out;
            int32_t then = lower(L, e->args[2 * k + 1], sel);
            if (then < 0)
                return -1;
            st = new_step(L, T(BOOL), -1, e->pos);
            NEED(st);
            st->fn = k_mask;
            st->kname = "mask_not";
            st->flag = true;
            st->args[0] = w;
            st->args[1] = rest;
            rest = st->out;
            args[2 * k] = sel;
            args[2 * k + 1] = then;
        }
        int32_t el = lower(L, e->args[2 * nb], rest);
        if (el < 0)
            return -1;
        args[2 * nb] = el;
        st = new_step(L, e->type, mask, e->pos);
        NEED(st);
        st->n_args = 2 * nb + 1;
        memcpy(st->args, args, sizeof(int32_t) * (size_t)st->n_args);
        st->fn = k_case;
        st->kname = "case";
        return st->out;
    }
    case QN_COALESCE: {
        int32_t args[QMAX_ARGS];
        if (e->n_args > QMAX_ARGS)
            return fail(L, BASALT_LIMIT, "COALESCE with more than 16 arguments");
        int32_t rest = mask;
        for (int k = 0; k < e->n_args; k++) {
            args[k] = lower(L, e->args[k], rest);
            if (args[k] < 0)
                return -1;
            if (k + 1 < e->n_args) {
                st = new_step(L, T(BOOL), -1, e->pos);
                NEED(st);
                st->fn = k_mask;
                st->kname = "mask_null";
                st->aux = 1;
                st->args[0] = args[k];
                st->args[1] = rest;
                rest = st->out;
            }
        }
        st = new_step(L, e->type, mask, e->pos);
        NEED(st);
        st->n_args = e->n_args;
        memcpy(st->args, args, sizeof(int32_t) * (size_t)e->n_args);
        st->fn = k_coalesce;
        st->kname = "coalesce";
        return st->out;
    }
    }
    return fail(L, BASALT_INTERNAL, "unknown node");
}

basalt_status basalt_query_compile(struct basalt_qexpr_builder *b,
                                   struct basalt_qexpr *const *exprs, int n,
                                   const struct basalt_query_compile_options *opts,
                                   struct basalt_query_program **out, struct basalt_error *err)
{
    if (!b || !out || n < 1 || !exprs)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    *out = NULL;
    /* (an opaque column is passed through, never computed: a projection
     * that names it twice lands here) */
    basalt_status refused = basalt_qexpr_refuse_opaque(exprs, n, err);
    if (refused != BASALT_OK)
        return refused;
    struct basalt_query_program *p = basalt_calloc(1, sizeof *p);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_arena_init(&p->arena, 16384);
    struct lower L;
    memset(&L, 0, sizeof L);
    L.p = p;
    L.fuse = opts ? opts->fuse : true;
    L.err = err;
    p->n_columns = b->n_columns;
    p->n_out = n;
    p->column_types = basalt_arena_alloc(&p->arena, sizeof *p->column_types * (size_t)(b->n_columns + 1), 8);
    L.col_slot = basalt_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(b->n_columns + 1), 8);
    p->out_slots = basalt_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)n, 8);
    p->out_types = basalt_arena_alloc(&p->arena, sizeof *p->out_types * (size_t)n, 8);
    if (!p->column_types || !L.col_slot || !p->out_slots || !p->out_types) {
        basalt_query_program_free(p);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < b->n_columns; i++) {
        p->column_types[i] = b->column_types[i];
        L.col_slot[i] = -1;
    }
    for (int i = 0; i < n; i++) {
        if (!exprs[i]) {
            basalt_qnode_map_free(&L.done);
            basalt_query_program_free(p);
            return basalt_error_set(err, BASALT_INVALID_ARG, "NULL expression %d", i);
        }
        /* each output its own slot, even for the same node twice */
        int32_t s = lower_node(&L, exprs[i], -1);
        if (s < 0) {
            basalt_qnode_map_free(&L.done);
            basalt_query_program_free(p);
            return err ? err->status : BASALT_INTERNAL;
        }
        p->out_slots[i] = s;
        p->out_types[i] = exprs[i]->type;
    }
    basalt_qnode_map_free(&L.done);
    *out = p;
    return BASALT_OK;
}

void basalt_query_program_free(struct basalt_query_program *p)
{
    if (!p)
        return;
    for (int32_t i = 0; i < p->n_steps; i++)
        if (p->steps[i].regex)
            regfree(p->steps[i].data);
    basalt_arena_reset(&p->arena);
    basalt_free(p);
}

int basalt_query_program_outputs(const struct basalt_query_program *p) { return p->n_out; }

struct basalt_query_type basalt_query_program_type(const struct basalt_query_program *p, int i)
{
    return p->out_types[i];
}

size_t basalt_query_program_explain(const struct basalt_query_program *p, char *buf, size_t cap)
{
    size_t k = 0;
    char tmp[256];
#define PUT(...)                                                                                  \
    do {                                                                                          \
        int n_ = snprintf(tmp, sizeof tmp, __VA_ARGS__);                                          \
        if (n_ > 0) {                                                                             \
            if (k < cap)                                                                          \
                snprintf(buf + k, cap - k, "%s", tmp);                                            \
            k += (size_t)n_;                                                                      \
        }                                                                                         \
    } while (0)
    if (cap)
        buf[0] = 0;
    for (int32_t i = 0; i < p->n_slots; i++)
        if (p->slots[i].is_const) {
            char v[64], t[48];
            basalt_query_value_format(&p->slots[i].value, v, sizeof v);
            PUT("s%d = const %s %s\n", i, basalt_query_type_name(p->slots[i].type, t, sizeof t),
                p->slots[i].const_null ? "NULL" : v);
        }
    static const char *const fops[] = {"load", "const", "add", "sub", "mul", "div", "eq", "ne",
                                       "lt",   "le",    "gt",  "ge"};
    for (int32_t i = 0; i < p->n_steps; i++) {
        const struct qstep *st = &p->steps[i];
        char t[48];
        PUT("s%d = %s %s", st->out, st->kname ? st->kname : "?",
            basalt_query_type_name(st->type, t, sizeof t));
        if (st->fn == k_column)
            PUT(" column %d", st->column);
        for (int a = 0; a < st->n_args; a++)
            PUT(" s%d", st->args[a]);
        if (st->mask >= 0)
            PUT(" [mask s%d]", st->mask);
        PUT("\n");
        for (int j = 0; j < st->n_instr; j++) {
            const struct qfinstr *in = &st->instr[j];
            if (in->op == QF_LOAD)
                PUT("    r%d = load column %d (%s)\n", in->dst, in->column,
                    basalt_query_type_name(basalt_query_type_make(in->src), t, sizeof t));
            else if (in->op == QF_CONST)
                PUT("    r%d = %.17g\n", in->dst, in->k);
            else
                PUT("    r%d = %s r%d r%d\n", in->dst, fops[in->op], in->a, in->b);
        }
    }
    for (int i = 0; i < p->n_out; i++)
        PUT("output %d = s%d\n", i, p->out_slots[i]);
#undef PUT
    return k;
}
