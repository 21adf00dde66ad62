/* TIME kernels (microseconds since midnight, 0..24:00:00), as DuckDB
 * computes them: TIME +/- INTERVAL wraps around midnight and ignores the
 * interval's months and days; DATE + TIME is a TIMESTAMP; the parts of a
 * time of day; make_time(h, m, s). */
#include <math.h>
#include <stdio.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

/* TIME + INTERVAL (aux -1 for -): the interval's time part in whole
 * microseconds, the sum taken modulo a day. */
static basalt_status k_time_interval(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data;
    const struct qinterval *b = A(1).data;
    int64_t *o = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        int64_t d = (b[i].nanos / 1000) % BASALT_QTIME_DAY;
        int64_t v = (a[i] + (st->aux < 0 ? -d : d)) % BASALT_QTIME_DAY;
        o[i] = v < 0 ? v + BASALT_QTIME_DAY : v;
    }
    return BASALT_OK;
}

/* DATE + TIME: the date's midnight plus the time, in microseconds. */
static basalt_status k_date_add_time(const struct qstep *st, struct qexec *x)
{
    const int32_t *d = A(0).data;
    const int64_t *t = A(1).data;
    int64_t *o = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        bool ovf = __builtin_mul_overflow((int64_t)d[i], BASALT_QTIME_DAY, &o[i]) ||
                   __builtin_add_overflow(o[i], t[i], &o[i]);
        if (ovf && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_LIMIT, "Date and time not in timestamp range");
    }
    return BASALT_OK;
}

/* hour, minute, second, millisecond, microsecond (BIGINT) and epoch
 * (DOUBLE seconds) of a TIME; the binder admits no other part. */
static basalt_status k_time_part(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data;
    int64_t *o = OUT.dbuf;
    double *f = OUT.dbuf;
    OUT.valid = A(0).valid;
    OUT.data = OUT.dbuf;
    for (int i = 0; i < x->n; i++) {
        int64_t us = a[i], in_minute = us % 60000000;
        switch ((enum qpart)st->aux) {
        case QP_HOUR: o[i] = us / 3600000000; break;
        case QP_MINUTE: o[i] = us / 60000000 % 60; break;
        case QP_SECOND: o[i] = in_minute / 1000000; break;
        case QP_MILLISECOND: o[i] = in_minute / 1000; break;
        case QP_MICROSECOND: o[i] = in_minute; break;
        default: f[i] = (double)us / 1e6; break; /* EPOCH */
        }
    }
    return BASALT_OK;
}

/* make_time(hour BIGINT, minute BIGINT, seconds DOUBLE): DuckDB's checks,
 * a second of 60 and 24:00:00 allowed, the fraction rounded to
 * microseconds (59.9999999 carries into the next minute). */
static basalt_status k_make_time(const struct qstep *st, struct qexec *x)
{
    const int64_t *h = A(0).data, *m = A(1).data;
    const double *s = A(2).data;
    int64_t *o = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    if (A(2).valid) {
        if (!OUT.valid) {
            for (int w = 0; w < QWORDS; w++)
                OUT.vbuf[w] = A(2).valid[w];
        } else {
            for (int w = 0; w < QWORDS; w++)
                OUT.vbuf[w] = OUT.valid[w] & A(2).valid[w];
        }
        OUT.valid = OUT.vbuf;
    }
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        double sec = s[i];
        bool ok = isfinite(sec) && sec > -2147483648.0 && sec < 2147483648.0;
        int64_t whole = ok ? (int64_t)sec : 0;
        int64_t micros = ok ? (int64_t)llround((sec - (double)whole) * 1e6) : 0;
        if (ok) {
            if (h[i] < 0 || h[i] >= 24)
                ok = h[i] == 24 && m[i] == 0 && whole == 0 && micros == 0;
            else
                ok = m[i] >= 0 && m[i] < 60 && whole >= 0 && whole <= 60 && micros >= 0 &&
                     micros <= 1000000;
        }
        if (!ok) {
            o[i] = 0;
            if (qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_INVALID_ARG,
                                          "Conversion Error: Time out of range: %lld:%lld:%lld.%lld",
                                          (long long)h[i], (long long)m[i], (long long)whole,
                                          (long long)micros);
            continue;
        }
        o[i] = ((h[i] * 60 + m[i]) * 60 + whole) * 1000000 + micros;
    }
    return BASALT_OK;
}

bool basalt_qk_time_of_day_select(struct qstep *st)
{
    switch (st->op) {
    case QOP_TIME_ADD_INTERVAL: st->fn = k_time_interval; st->kname = "time_interval"; return true;
    case QOP_DATE_ADD_TIME: st->fn = k_date_add_time; st->kname = "date_add_time"; return true;
    case QOP_TIME_PART: st->fn = k_time_part; st->kname = "time_part"; return true;
    case QOP_MAKE_TIME: st->fn = k_make_time; st->kname = "make_time"; return true;
    default: return false;
    }
}
