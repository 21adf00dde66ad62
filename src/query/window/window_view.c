/* Flat views of the sorted input's columns, and the boundary marks computed
 * from them. Views are filled batch by batch in parallel (each batch writes
 * its own rows). */
#include <math.h>
#include <string.h>

#include "window/window_impl.h"

static uint64_t float_word(double d, bool single, enum qw_purpose p)
{
    if (single)
        d = (double)(float)d;
    if (isnan(d))
        return UINT64_MAX; /* one NaN, above every number */
    if (d == 0 && p == QWP_KEY)
        d = 0.0; /* -0.0 equals 0.0 */
    uint64_t u;
    memcpy(&u, &d, 8);
    /* sign-magnitude to an unsigned order: negatives inverted */
    return (u >> 63) ? ~u : (u | (UINT64_C(1) << 63));
}

struct view_job {
    const struct qw_input *in;
    int col;
    enum qw_purpose p;
    struct basalt_query_type t;
    struct qw_view *v;
};

void basalt_qw_view_fill(struct qw_view *v, struct basalt_query_type t, enum qw_purpose p,
                         const struct ArrowArray *a, int64_t base)
{
    int64_t n = a->length, off = a->offset;
    const uint8_t *vb = a->null_count != 0 ? a->buffers[0] : NULL;
    if (v->valid != NULL)
        for (int64_t i = 0; i < n; i++)
            v->valid[base + i] = vb == NULL || basalt_bitmap_get(vb, off + i);
    if (v->data == NULL)
        return;
    const void *d = a->buffers[1];
    int64_t *i64 = v->data;
    uint64_t *u64 = v->data;
    double *f64 = v->data;
    qi128 *dec = v->data;
    struct qstr *str = v->data;
    i64 += base;
    u64 += base;
    f64 += base;
    dec += base;
    str += base;
    switch (t.id) {
    case BASALT_QUERY_TYPE_BOOL:
        for (int64_t i = 0; i < n; i++)
            i64[i] = basalt_bitmap_get(d, off + i);
        break;
    case BASALT_QUERY_TYPE_INT8:
        for (int64_t i = 0; i < n; i++)
            i64[i] = ((const int8_t *)d)[off + i];
        break;
    case BASALT_QUERY_TYPE_INT16:
        for (int64_t i = 0; i < n; i++)
            i64[i] = ((const int16_t *)d)[off + i];
        break;
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_DATE:
        for (int64_t i = 0; i < n; i++)
            i64[i] = ((const int32_t *)d)[off + i];
        break;
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME:
        memcpy(i64, (const int64_t *)d + off, (size_t)n * 8);
        break;
    case BASALT_QUERY_TYPE_UINT8:
        for (int64_t i = 0; i < n; i++)
            u64[i] = ((const uint8_t *)d)[off + i];
        break;
    case BASALT_QUERY_TYPE_UINT16:
        for (int64_t i = 0; i < n; i++)
            u64[i] = ((const uint16_t *)d)[off + i];
        break;
    case BASALT_QUERY_TYPE_UINT32:
        for (int64_t i = 0; i < n; i++)
            u64[i] = ((const uint32_t *)d)[off + i];
        break;
    case BASALT_QUERY_TYPE_UINT64:
        memcpy(u64, (const uint64_t *)d + off, (size_t)n * 8);
        break;
    case BASALT_QUERY_TYPE_FLOAT:
        for (int64_t i = 0; i < n; i++) {
            double x = ((const float *)d)[off + i];
            if (p == QWP_NUM)
                f64[i] = x;
            else
                u64[i] = float_word(x, true, p);
        }
        break;
    case BASALT_QUERY_TYPE_DOUBLE:
        if (p == QWP_NUM) {
            memcpy(f64, (const double *)d + off, (size_t)n * 8);
            break;
        }
        for (int64_t i = 0; i < n; i++)
            u64[i] = float_word(((const double *)d)[off + i], false, p);
        break;
    case BASALT_QUERY_TYPE_DECIMAL:
        for (int64_t i = 0; i < n; i++) {
            uint64_t w[2];
            memcpy(w, (const uint8_t *)d + (off + i) * 16, 16);
            dec[i] = (qi128)(((unsigned __int128)w[1] << 64) | w[0]);
        }
        break;
    case BASALT_QUERY_TYPE_INTERVAL:
        /* Normalised (months, days < 30, nanoseconds < a day) packed so
         * that the 128-bit keys order and compare as the triples do, as
         * DuckDB orders intervals (1 month equals 30 days). */
        for (int64_t i = 0; i < n; i++) {
            struct qinterval iv;
            memcpy(&iv, (const uint8_t *)d + (off + i) * 16, 16);
            basalt_qinterval_normalize(&iv);
            uint64_t low = (uint64_t)(iv.days + 30) << 48 | (uint64_t)(iv.nanos + (INT64_C(1) << 47));
            dec[i] = (qi128)iv.months * ((qi128)1 << 64) + (qi128)low; /* no shift of a negative */
        }
        break;
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: {
        const char *data = a->buffers[2];
        if (t.large) {
            const int64_t *o = d;
            for (int64_t i = 0; i < n; i++) {
                str[i].ptr = data + o[off + i];
                str[i].len = o[off + i + 1] - o[off + i];
            }
        } else {
            const int32_t *o = d;
            for (int64_t i = 0; i < n; i++) {
                str[i].ptr = data + o[off + i];
                str[i].len = o[off + i + 1] - o[off + i];
            }
        }
        break;
    }
    default:
        break;
    }
}

static void fill_range(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    const struct view_job *j = ctx;
    for (int64_t b = begin; b < end; b++)
        basalt_qw_view_fill(j->v, j->t, j->p, j->in->batches[b].children[j->col],
                            j->in->start[b]);
}

basalt_status basalt_qw_view_new(struct basalt_query_type t, enum qw_purpose p, int64_t n,
                                 bool nulls, struct qw_view *out, struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    size_t width = 8;
    switch (p == QWP_VALID ? BASALT_QUERY_TYPE_INT64 : t.id) {
    case BASALT_QUERY_TYPE_UINT8:
    case BASALT_QUERY_TYPE_UINT16:
    case BASALT_QUERY_TYPE_UINT32:
    case BASALT_QUERY_TYPE_UINT64:
        out->kind = QWV_U64;
        break;
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE:
        out->kind = p == QWP_NUM ? QWV_F64 : QWV_U64;
        break;
    case BASALT_QUERY_TYPE_DECIMAL:
    case BASALT_QUERY_TYPE_INTERVAL:
        out->kind = QWV_DEC;
        out->scale = t.id == BASALT_QUERY_TYPE_DECIMAL ? t.scale : 0;
        width = 16;
        break;
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY:
        out->kind = QWV_STR;
        width = sizeof(struct qstr);
        break;
    case BASALT_QUERY_TYPE_BOOL:
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_DATE:
    case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME:
        out->kind = QWV_I64;
        break;
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "window: no view of type %d", (int)t.id);
    }
    if (p != QWP_VALID)
        out->data = basalt_aligned_alloc(64, (size_t)(n + 1) * width);
    if (nulls)
        out->valid = basalt_malloc((size_t)n + 1);
    if ((p != QWP_VALID && out->data == NULL) || (nulls && out->valid == NULL)) {
        basalt_qw_view_free(out);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

basalt_status basalt_qw_view(const struct qw_input *in, int col, enum qw_purpose p,
                             struct basalt_pool *pool, int workers, struct qw_view *out,
                             struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    struct view_job j = {in, col, p, {0}, out};
    basalt_status st = BASALT_OK;
    if (p != QWP_VALID)
        st = basalt_query_type_from_format(in->schema->children[col]->format, &j.t, err);
    if (st != BASALT_OK)
        return st;
    bool nulls = false;
    for (int64_t b = 0; b < in->n_batches && !nulls; b++) {
        const struct ArrowArray *a = in->batches[b].children[col];
        nulls = a->null_count != 0 && a->buffers[0] != NULL;
    }
    st = basalt_qw_view_new(j.t, p, in->n, nulls, out, NULL);
    if (st == BASALT_UNSUPPORTED)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "window: column '%s' of format '%s'",
                                in->schema->children[col]->name ? in->schema->children[col]->name : "",
                                in->schema->children[col]->format);
    if (st != BASALT_OK)
        return basalt_error_set(err, st, "out of memory");
    if (out->data != NULL || out->valid != NULL)
        basalt_pool_parallel_for(pool, workers, in->n_batches, 1, fill_range, &j);
    return BASALT_OK;
}

void basalt_qw_view_free(struct qw_view *v)
{
    basalt_free(v->data);
    basalt_free(v->valid);
    v->data = NULL;
    v->valid = NULL;
}

/* Row i differs from row i-1: validity first (a NULL row's value slot holds
 * anything), then the values. */
#define MARK_LOOP(DIFF)                                                           \
    do {                                                                          \
        if (ok == NULL) {                                                         \
            for (int64_t i = lo; i < hi; i++)                                     \
                if (DIFF)                                                         \
                    bnd[i] |= mark;                                               \
        } else {                                                                  \
            for (int64_t i = lo; i < hi; i++)                                     \
                if (ok[i] != ok[i - 1] || (ok[i] && (DIFF)))                      \
                    bnd[i] |= mark;                                               \
        }                                                                         \
    } while (0)

void basalt_qw_mark(const struct qw_view *v, uint8_t mark, int64_t lo, int64_t hi, uint8_t *bnd)
{
    const uint8_t *ok = v->valid;
    switch (v->kind) {
    case QWV_I64:
    case QWV_U64:
    case QWV_F64: { /* keys hold floats as words (QWP_KEY), never as doubles */
        const uint64_t *x = v->data;
        MARK_LOOP(x[i] != x[i - 1]);
        break;
    }
    case QWV_DEC: {
        const qi128 *x = v->data;
        MARK_LOOP(x[i] != x[i - 1]);
        break;
    }
    case QWV_STR: {
        const struct qstr *x = v->data;
        MARK_LOOP(x[i].len != x[i - 1].len ||
                  (x[i].len > 0 && memcmp(x[i].ptr, x[i - 1].ptr, (size_t)x[i].len) != 0));
        break;
    }
    }
}
