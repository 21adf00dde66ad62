/* Running a program: per-thread state (one vector per slot, constants
 * broadcast once), the loop over vectors, results gathered into Arrow
 * arrays, selection of a predicate's TRUE rows, and constant folding. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "query_internal.h"

basalt_status basalt_qexec_error(struct qexec *x, const struct qstep *st, basalt_status status,
                          const char *fmt, ...)
{
    char msg[BASALT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (st && st->pos >= 0)
        return basalt_error_set(x->err, status, "%s (at position %d)", msg, st->pos);
    return basalt_error_set(x->err, status, "%s", msg);
}

void basalt_qvalid_and(struct qexec *x, struct qvec *out, const struct qvec *a, const struct qvec *b)
{
    (void)x;
    if (!a->valid && (!b || !b->valid)) {
        out->valid = NULL;
        return;
    }
    if (!b || !b->valid) {
        memcpy(out->vbuf, a->valid, QWORDS * 8);
    } else if (!a->valid) {
        memcpy(out->vbuf, b->valid, QWORDS * 8);
    } else {
        for (int k = 0; k < QWORDS; k++)
            out->vbuf[k] = a->valid[k] & b->valid[k];
    }
    out->valid = out->vbuf;
}

char *basalt_qstr_alloc(struct qexec *x, size_t len)
{
    char *p = basalt_arena_alloc(&x->s->strings, len ? len : 1, 1);
    if (!p)
        basalt_error_set(x->err, BASALT_NOMEM, "out of memory");
    return p;
}

basalt_status basalt_query_state_new(const struct basalt_query_program *p,
                                     struct basalt_query_state **out, struct basalt_error *err)
{
    if (!p || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    *out = NULL;
    struct basalt_query_state *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    s->p = p;
    basalt_arena_init(&s->strings, 65536);
    s->vec = basalt_calloc((size_t)p->n_slots + 1, sizeof *s->vec);
    s->cols = basalt_calloc((size_t)p->n_columns + 1, sizeof *s->cols);
    if (!s->vec || !s->cols)
        goto nomem;
    for (int32_t i = 0; i < p->n_slots; i++) {
        const struct qslot *sl = &p->slots[i];
        struct qvec *v = &s->vec[i];
        int w = basalt_qtype_width(sl->type);
        size_t bytes = w ? (size_t)w * QVEC : QWORDS * 8;
        v->dbuf = basalt_aligned_alloc(64, bytes);
        v->vbuf = basalt_aligned_alloc(64, QWORDS * 8);
        if (!v->dbuf || !v->vbuf)
            goto nomem;
        memset(v->dbuf, 0, bytes);
        memset(v->vbuf, 0, QWORDS * 8);
        v->data = v->dbuf;
        v->valid = NULL;
        if (!sl->is_const)
            continue;
        if (sl->const_null) {
            v->valid = v->vbuf; /* all zero */
            continue;
        }
        const struct basalt_query_value *c = &sl->value;
        for (int r = 0; r < QVEC; r++) {
            char *d = (char *)v->dbuf + (size_t)r * (size_t)w;
            switch (sl->type.id) {
            case BASALT_QUERY_TYPE_BOOL:
                if (c->v.b)
                    qbit_set(v->dbuf, r, true);
                break;
            case BASALT_QUERY_TYPE_INT8: case BASALT_QUERY_TYPE_UINT8: *(int8_t *)d = (int8_t)c->v.i; break;
            case BASALT_QUERY_TYPE_INT16: case BASALT_QUERY_TYPE_UINT16: *(int16_t *)d = (int16_t)c->v.i; break;
            case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_UINT32: case BASALT_QUERY_TYPE_DATE:
                *(int32_t *)d = (int32_t)c->v.i;
                break;
            case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_UINT64: case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME:
                *(int64_t *)d = c->v.i;
                break;
            case BASALT_QUERY_TYPE_FLOAT: *(float *)d = (float)c->v.f; break;
            case BASALT_QUERY_TYPE_DOUBLE: *(double *)d = c->v.f; break;
            case BASALT_QUERY_TYPE_DECIMAL: {
                qi128 x = (qi128)(((unsigned __int128)(uint64_t)c->v.dec.hi << 64) | c->v.dec.lo);
                memcpy(d, &x, 16);
                break;
            }
            case BASALT_QUERY_TYPE_INTERVAL: {
                struct qinterval iv = {c->v.interval.months, c->v.interval.days, c->v.interval.nanos};
                memcpy(d, &iv, 16);
                break;
            }
            case BASALT_QUERY_TYPE_STRING: case BASALT_QUERY_TYPE_BINARY:
            case BASALT_QUERY_TYPE_LIST: {
                struct qstr q = {c->v.str.ptr, (int64_t)c->v.str.len};
                memcpy(d, &q, 16);
                break;
            }
            default: break;
            }
        }
    }
    *out = s;
    return BASALT_OK;
nomem:
    basalt_query_state_free(s);
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

void basalt_query_state_free(struct basalt_query_state *s)
{
    if (!s)
        return;
    if (s->vec)
        for (int32_t i = 0; i < s->p->n_slots; i++) {
            basalt_free(s->vec[i].dbuf);
            basalt_free(s->vec[i].vbuf);
        }
    basalt_free(s->vec);
    basalt_free(s->cols);
    basalt_arena_reset(&s->strings);
    basalt_free(s);
}

void basalt_query_state_stats(const struct basalt_query_state *s, struct basalt_query_stats *stats)
{
    *stats = s->stats;
}

static basalt_status bind_batch(struct basalt_query_state *s, const struct ArrowArray *batch,
                                struct basalt_error *err)
{
    const struct basalt_query_program *p = s->p;
    if (!batch || !batch->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL or released batch");
    if (batch->n_children != p->n_columns)
        return basalt_error_set(err, BASALT_INVALID_ARG, "batch has %lld columns, expected %d",
                                (long long)batch->n_children, p->n_columns);
    for (int32_t i = 0; i < p->n_columns; i++) {
        const struct ArrowArray *a = batch->children[i];
        struct qcolumn *c = &s->cols[i];
        c->array = a;
        c->offset = a->offset + batch->offset;
        if (a->length < batch->length)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column %d shorter than the batch", i);
        enum basalt_query_type_id id = p->column_types[i].id;
        /* columns of types expressions cannot use (nested ones: a JSON scan
         * has them) are never read, whatever their buffers */
        int64_t need = id == BASALT_QUERY_TYPE_NULL || id == BASALT_QUERY_TYPE_COUNT ? 0
                       : (id == BASALT_QUERY_TYPE_STRING || id == BASALT_QUERY_TYPE_BINARY) ? 3
                                                                                          : 2;
        if (id == BASALT_QUERY_TYPE_LIST && a->n_children != 1)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column %d: a list without a child", i);
        if (a->n_buffers < need)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column %d: %lld buffers", i,
                                    (long long)a->n_buffers);
        c->validity = need ? a->buffers[0] : NULL;
        c->values = need >= 2 ? a->buffers[1] : NULL;
        c->data = need >= 3 ? a->buffers[2] : NULL;
    }
    return BASALT_OK;
}

/* Runs every step over rows [start, start + n) of the bound batch. */
static basalt_status run_vector(struct basalt_query_state *s, int64_t start, int n,
                                struct basalt_error *err)
{
    const struct basalt_query_program *p = s->p;
    struct qexec x = {s, s->vec, s->cols, start, n, err};
    if (p->has_strings)
        basalt_arena_reset(&s->strings);
    s->stats.vectors++;
    for (int32_t i = 0; i < p->n_steps; i++) {
        const struct qstep *st = &p->steps[i];
        basalt_status r = st->fn(st, &x);
        if (r != BASALT_OK)
            return r;
        if (st->n_instr)
            s->stats.fused_vectors++;
        else
            s->stats.kernel_calls++;
    }
    return BASALT_OK;
}

/* An output array being filled vector by vector. */
struct outcol {
    struct basalt_query_type type;
    int width;
    uint8_t *values;
    uint8_t *validity;
    struct basalt_buffer data; /* strings */
    void *offsets;
    struct qlist_out *list; /* LIST: the elements */
};

static void outcol_free(struct outcol *o)
{
    if (o->list) {
        basalt_qlist_out_free(o->list);
        basalt_free(o->list);
        o->list = NULL;
    }
    basalt_free(o->values);
    basalt_free(o->validity);
    basalt_free(o->offsets);
    basalt_buffer_reset(&o->data);
}

static basalt_status outcol_init(struct outcol *o, struct basalt_query_type t, int64_t len,
                                 struct basalt_error *err)
{
    memset(o, 0, sizeof *o);
    o->type = t;
    basalt_buffer_init(&o->data);
    size_t vbytes = ((size_t)basalt_bitmap_bytes(len) + 63) & ~(size_t)63;
    o->validity = basalt_aligned_alloc(64, vbytes ? vbytes : 64);
    if (!o->validity)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(o->validity, 0, vbytes ? vbytes : 64);
    if (t.id == BASALT_QUERY_TYPE_NULL)
        return BASALT_OK;
    size_t bytes;
    if (t.id == BASALT_QUERY_TYPE_BOOL)
        bytes = vbytes;
    else if (t.id == BASALT_QUERY_TYPE_STRING || t.id == BASALT_QUERY_TYPE_BINARY ||
             t.id == BASALT_QUERY_TYPE_LIST) {
        bool large = t.large && t.id != BASALT_QUERY_TYPE_LIST;
        if (t.id == BASALT_QUERY_TYPE_LIST) {
            o->list = basalt_malloc(sizeof *o->list);
            if (!o->list)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            basalt_qlist_out_init(o->list, t);
        }
        size_t ob = (size_t)(len + 1) * (large ? 8 : 4);
        o->offsets = basalt_aligned_alloc(64, (ob + 63) & ~(size_t)63);
        if (!o->offsets)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        memset(o->offsets, 0, (ob + 63) & ~(size_t)63);
        return BASALT_OK;
    } else {
        o->width = basalt_qtype_width(t);
        bytes = (size_t)len * (size_t)o->width;
    }
    bytes = (bytes + 63) & ~(size_t)63;
    o->values = basalt_aligned_alloc(64, bytes ? bytes : 64);
    if (!o->values)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(o->values, 0, bytes ? bytes : 64);
    return BASALT_OK;
}

static basalt_status outcol_put(struct outcol *o, const struct qvec *v, int64_t start, int n,
                                struct basalt_error *err)
{
    /* start is a multiple of the vector size: whole bytes of the bitmaps */
    if (v->valid)
        memcpy(o->validity + start / 8, v->valid, (size_t)(n + 7) / 8);
    else
        memset(o->validity + start / 8, 0xff, (size_t)(n + 7) / 8);
    switch (o->type.id) {
    case BASALT_QUERY_TYPE_NULL:
        memset(o->validity + start / 8, 0, (size_t)(n + 7) / 8);
        return BASALT_OK;
    case BASALT_QUERY_TYPE_BOOL:
        memcpy(o->values + start / 8, v->data, (size_t)(n + 7) / 8);
        return BASALT_OK;
    case BASALT_QUERY_TYPE_LIST: {
        const struct qstr *q = v->data;
        int32_t *off = o->offsets;
        for (int i = 0; i < n; i++) {
            int32_t end = off[start + i];
            if (qrow_valid(v->valid, i)) {
                basalt_status st = basalt_qlist_out_put(o->list, q[i], &end, err);
                if (st != BASALT_OK)
                    return st;
            }
            off[start + i + 1] = end;
        }
        return BASALT_OK;
    }
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: {
        const struct qstr *q = v->data;
        for (int i = 0; i < n; i++) {
            if (qrow_valid(v->valid, i) && q[i].len) {
                basalt_status st = basalt_buffer_append(&o->data, q[i].ptr, (size_t)q[i].len, err);
                if (st != BASALT_OK)
                    return st;
            }
            int64_t end = (int64_t)o->data.size;
            if (o->type.large)
                ((int64_t *)o->offsets)[start + i + 1] = end;
            else {
                if (end > INT32_MAX)
                    return basalt_error_set(err, BASALT_LIMIT,
                                            "string output over 2 GiB: use large_utf8");
                ((int32_t *)o->offsets)[start + i + 1] = (int32_t)end;
            }
        }
        return BASALT_OK;
    }
    default:
        memcpy(o->values + (size_t)start * (size_t)o->width, v->data, (size_t)n * (size_t)o->width);
        return BASALT_OK;
    }
}

static basalt_status outcol_finish(struct outcol *o, int64_t len, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    bool is_null = o->type.id == BASALT_QUERY_TYPE_NULL;
    bool var = o->type.id == BASALT_QUERY_TYPE_STRING || o->type.id == BASALT_QUERY_TYPE_BINARY;
    bool list = o->type.id == BASALT_QUERY_TYPE_LIST;
    basalt_status st = basalt_arrow_array_init(out, is_null ? 0 : var ? 3 : 2, list, err);
    if (st != BASALT_OK)
        return st;
    out->length = len;
    if (is_null) {
        out->null_count = len;
        basalt_free(o->validity);
        o->validity = NULL;
        return BASALT_OK;
    }
    int64_t valid = basalt_bitmap_count(o->validity, 0, len);
    out->null_count = len - valid;
    if (out->null_count == 0) {
        basalt_free(o->validity);
        o->validity = NULL;
    } else {
        basalt_arrow_array_set_buffer(out, 0, o->validity, NULL);
        o->validity = NULL;
    }
    if (list) {
        basalt_arrow_array_set_buffer(out, 1, o->offsets, NULL);
        o->offsets = NULL;
        st = basalt_qlist_out_finish(o->list, out->children[0], err);
        if (st != BASALT_OK)
            basalt_arrow_array_release(out);
        return st;
    }
    if (var) {
        basalt_arrow_array_set_buffer(out, 1, o->offsets, NULL);
        o->offsets = NULL;
        void *d;
        st = basalt_arrow_array_allocate_buffer(out, 2, o->data.size ? o->data.size : 1, &d, err);
        if (st != BASALT_OK) {
            basalt_arrow_array_release(out);
            return st;
        }
        if (o->data.size)
            memcpy(d, o->data.data, o->data.size);
        basalt_buffer_reset(&o->data);
    } else {
        basalt_arrow_array_set_buffer(out, 1, o->values, NULL);
        o->values = NULL;
    }
    return BASALT_OK;
}

basalt_status basalt_query_eval(const struct basalt_query_program *p, struct basalt_query_state *s,
                                const struct ArrowArray *batch, struct ArrowArray *out,
                                struct basalt_error *err)
{
    if (!p || !s || !out || s->p != p)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument or foreign state");
    basalt_status st = bind_batch(s, batch, err);
    if (st != BASALT_OK)
        return st;
    int64_t len = batch->length;
    struct outcol cols[16], *oc = cols;
    if (p->n_out > 16) {
        oc = basalt_calloc((size_t)p->n_out, sizeof *oc);
        if (!oc)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int made = 0;
    for (; made < p->n_out; made++) {
        st = outcol_init(&oc[made], p->out_types[made], len, err);
        if (st != BASALT_OK) {
            made++;
            goto fail;
        }
    }
    for (int64_t start = 0; start < len; start += QVEC) {
        int n = (int)(len - start < QVEC ? len - start : QVEC);
        st = run_vector(s, start, n, err);
        for (int i = 0; i < p->n_out && st == BASALT_OK; i++)
            st = outcol_put(&oc[i], &s->vec[p->out_slots[i]], start, n, err);
        if (st != BASALT_OK)
            goto fail;
    }
    int done = 0;
    for (; done < p->n_out; done++) {
        st = outcol_finish(&oc[done], len, &out[done], err);
        if (st != BASALT_OK) {
            for (int i = 0; i < done; i++)
                basalt_arrow_array_release(&out[i]);
            goto fail;
        }
    }
    for (int i = 0; i < p->n_out; i++)
        outcol_free(&oc[i]);
    if (oc != cols)
        basalt_free(oc);
    return BASALT_OK;
fail:
    for (int i = 0; i < made; i++)
        outcol_free(&oc[i]);
    if (oc != cols)
        basalt_free(oc);
    return st;
}

basalt_status basalt_query_select(const struct basalt_query_program *p,
                                  struct basalt_query_state *s, const struct ArrowArray *batch,
                                  int64_t *sel, int64_t *n_selected, struct basalt_error *err)
{
    if (!p || !s || !sel || !n_selected || s->p != p)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument or foreign state");
    *n_selected = 0;
    if (p->out_types[0].id != BASALT_QUERY_TYPE_BOOL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the predicate is not BOOLEAN");
    basalt_status st = bind_batch(s, batch, err);
    if (st != BASALT_OK)
        return st;
    int64_t k = 0, len = batch->length;
    const struct qvec *v = &s->vec[p->out_slots[0]];
    for (int64_t start = 0; start < len; start += QVEC) {
        int n = (int)(len - start < QVEC ? len - start : QVEC);
        st = run_vector(s, start, n, err);
        if (st != BASALT_OK)
            return st;
        const uint64_t *d = v->data;
        int nw = (n + 63) / 64;
        for (int w = 0; w < nw; w++) {
            uint64_t bits = d[w] & (v->valid ? v->valid[w] : ~(uint64_t)0);
            if (w == nw - 1 && (n & 63))
                bits &= ((uint64_t)1 << (n & 63)) - 1;
            int64_t base = start + (int64_t)w * 64;
            while (bits) {
                sel[k++] = base + __builtin_ctzll(bits);
                bits &= bits - 1;
            }
        }
    }
    *n_selected = k;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ folding */

basalt_status basalt_qfold(struct basalt_qexpr_builder *b, struct basalt_qexpr *e,
                    struct basalt_query_value *out, struct basalt_error *err)
{
    struct basalt_query_program *p = NULL;
    struct basalt_query_state *s = NULL;
    struct ArrowArray res = {0};
    struct basalt_query_compile_options o;
    basalt_query_compile_options_init(&o);
    int32_t saved = b->n_columns;
    b->n_columns = 0;
    basalt_status st = basalt_query_compile(b, &e, 1, &o, &p, err);
    b->n_columns = saved;
    if (st == BASALT_OK)
        st = basalt_query_state_new(p, &s, err);
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    const void *bufs[1] = {NULL};
    batch.length = 1;
    batch.n_buffers = 1;
    batch.buffers = bufs;
    batch.release = (void (*)(struct ArrowArray *))1; /* never called: borrowed view */
    if (st == BASALT_OK)
        st = basalt_query_eval(p, s, &batch, &res, err);
    if (st == BASALT_OK) {
        memset(out, 0, sizeof *out);
        out->type = e->type;
        out->is_null = res.null_count > 0 || e->type.id == BASALT_QUERY_TYPE_NULL;
        if (!out->is_null) {
            const void *v = res.buffers[1];
            switch (e->type.id) {
            case BASALT_QUERY_TYPE_BOOL: out->v.b = ((const uint8_t *)v)[0] & 1; break;
            case BASALT_QUERY_TYPE_INT8: out->v.i = *(const int8_t *)v; break;
            case BASALT_QUERY_TYPE_INT16: out->v.i = *(const int16_t *)v; break;
            case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_DATE: out->v.i = *(const int32_t *)v; break;
            case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: out->v.i = *(const int64_t *)v; break;
            case BASALT_QUERY_TYPE_UINT8: out->v.u = *(const uint8_t *)v; break;
            case BASALT_QUERY_TYPE_UINT16: out->v.u = *(const uint16_t *)v; break;
            case BASALT_QUERY_TYPE_UINT32: out->v.u = *(const uint32_t *)v; break;
            case BASALT_QUERY_TYPE_UINT64: out->v.u = *(const uint64_t *)v; break;
            case BASALT_QUERY_TYPE_FLOAT: out->v.f = *(const float *)v; break;
            case BASALT_QUERY_TYPE_DOUBLE: out->v.f = *(const double *)v; break;
            case BASALT_QUERY_TYPE_DECIMAL: memcpy(&out->v.dec, v, 16); break;
            case BASALT_QUERY_TYPE_INTERVAL: memcpy(&out->v.interval, v, 16); break;
            case BASALT_QUERY_TYPE_STRING: case BASALT_QUERY_TYPE_BINARY: {
                int64_t a = e->type.large ? ((const int64_t *)v)[0] : ((const int32_t *)v)[0];
                int64_t z = e->type.large ? ((const int64_t *)v)[1] : ((const int32_t *)v)[1];
                char *c = basalt_arena_alloc(&b->arena, (size_t)(z - a) + 1, 1);
                if (!c) {
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    break;
                }
                memcpy(c, (const char *)res.buffers[2] + a, (size_t)(z - a));
                c[z - a] = 0;
                out->v.str.ptr = c;
                out->v.str.len = (size_t)(z - a);
                break;
            }
            default: break;
            }
        }
    }
    basalt_arrow_array_release(&res);
    basalt_query_state_free(s);
    basalt_query_program_free(p);
    return st;
}
