/* INTERVAL times and divided by numbers, and the to_years ... to_microseconds
 * constructors, as DuckDB computes them.
 *
 * An integer multiplies each field, with DuckDB's overflow errors. A DOUBLE
 * (a factor or a divisor) scales each field and carries fractions down: a
 * fraction of a month becomes days at 30 a month (rounded to a millionth
 * of a day, which DuckDB's figures show), a fraction of a day microseconds;
 * that and the scaled microseconds round half to even, each on its own. Dividing by 0 is NULL. Values are
 * month_day_nano here where DuckDB keeps microseconds: to_hours and the
 * like reach INT64's limit in nanoseconds (about 292 years) first. */
#include <math.h>
#include <string.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

#define MICROS_PER_DAY 86400000000.0

/* The validity of a result that can also be NULL where `nulls` says. */
static uint64_t *own_validity(struct qexec *x, const struct qstep *st)
{
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    if (!OUT.valid)
        memset(OUT.vbuf, 0xff, QWORDS * 8);
    else if (OUT.valid != OUT.vbuf)
        memcpy(OUT.vbuf, OUT.valid, QWORDS * 8);
    OUT.valid = OUT.vbuf;
    return OUT.vbuf;
}

static basalt_status k_mul_int(const struct qstep *st, struct qexec *x)
{
    const struct qinterval *a = A(0).data;
    const int64_t *b = A(1).data;
    struct qinterval *o = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        int64_t months, days, micros;
        bool bad32 = __builtin_mul_overflow((int64_t)a[i].months, b[i], &months) ||
                     months != (int32_t)months;
        const char *what = "INT32";
        int64_t lhs = a[i].months;
        if (!bad32 && (__builtin_mul_overflow((int64_t)a[i].days, b[i], &days) ||
                       days != (int32_t)days)) {
            bad32 = true;
            lhs = a[i].days;
        }
        /* nanoseconds scale whole; DuckDB's overflow is of the microseconds */
        int64_t nanos = 0;
        bool bad = bad32 || __builtin_mul_overflow(a[i].nanos / 1000, b[i], &micros) ||
                   __builtin_mul_overflow(a[i].nanos, b[i], &nanos);
        if (bad && !bad32) {
            what = "INT64";
            lhs = a[i].nanos / 1000;
        }
        if (bad) {
            if (qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT,
                                          "Overflow in multiplication of %s (%lld * %lld)!", what,
                                          (long long)lhs, (long long)b[i]);
            o[i] = (struct qinterval){0, 0, 0};
            continue;
        }
        o[i].months = (int32_t)months;
        o[i].days = (int32_t)days;
        o[i].nanos = nanos;
    }
    return BASALT_OK;
}

/* a scaled by f (multiplied, or divided when `divide`): false when a field
 * leaves its range. */
static bool scale(struct qinterval a, double f, bool divide, struct qinterval *out)
{
    double months = divide ? a.months / f : a.months * f;
    double whole_months = trunc(months);
    double days = nearbyint((months - whole_months) * 30 * 1e6) / 1e6;
    days += divide ? a.days / f : a.days * f;
    double whole_days = trunc(days);
    /* the day's fraction and the scaled time round apart, as DuckDB's do */
    double micros = nearbyint(divide ? (double)a.nanos / 1000 / f : (double)a.nanos / 1000 * f) +
                    nearbyint((days - whole_days) * MICROS_PER_DAY);
    if (!(whole_months >= INT32_MIN && whole_months <= INT32_MAX && whole_days >= INT32_MIN &&
          whole_days <= INT32_MAX && micros >= -0x1p63 / 1000 && micros < 0x1p63 / 1000))
        return false; /* NaN fails here too */
    out->months = (int32_t)whole_months;
    out->days = (int32_t)whole_days;
    out->nanos = (int64_t)micros * 1000;
    return true;
}

static basalt_status k_scale(const struct qstep *st, struct qexec *x)
{
    const struct qinterval *a = A(0).data;
    const double *b = A(1).data;
    struct qinterval *o = OUT.dbuf;
    bool divide = st->op == QOP_INTERVAL_DIV_F;
    uint64_t *valid = NULL;
    if (divide)
        valid = own_validity(x, st);
    else
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        if (divide && b[i] == 0) {
            qbit_set(valid, i, false);
            o[i] = (struct qinterval){0, 0, 0};
            continue;
        }
        if (!scale(a[i], b[i], divide, &o[i])) {
            if (qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT,
                                          "Overflow in %s of INTERVAL.",
                                          divide ? "division" : "multiplication");
            o[i] = (struct qinterval){0, 0, 0};
        }
    }
    return BASALT_OK;
}

/* to_<unit>(n): aux is the unit (enum qpart). Month and day units take
 * INTEGERs (checked here, as DuckDB's cast of a BIGINT to INTEGER), hours,
 * minutes and microseconds BIGINTs, seconds and milliseconds DOUBLEs. */
static basalt_status k_to_interval(const struct qstep *st, struct qexec *x)
{
    struct qinterval *o = OUT.dbuf;
    OUT.valid = A(0).valid;
    OUT.data = o;
    enum qpart unit = (enum qpart)st->aux;
    for (int i = 0; i < x->n; i++) {
        struct qinterval v = {0, 0, 0};
        bool ok = true, cast_ok = true;
        int64_t n = 0;
        if (unit == QP_SECOND || unit == QP_MILLISECOND) {
            double d = ((const double *)A(0).data)[i];
            double us = nearbyint(d * (unit == QP_SECOND ? 1e6 : 1e3));
            ok = us >= -0x1p63 / 1000 && us < 0x1p63 / 1000;
            if (ok)
                v.nanos = (int64_t)us * 1000;
            else if (qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT,
                                          "Interval value %f %s out of range", d,
                                          unit == QP_SECOND ? "seconds" : "milliseconds");
            o[i] = v;
            continue;
        }
        n = ((const int64_t *)A(0).data)[i];
        int64_t per, r;
        switch (unit) {
        case QP_HOUR: per = INT64_C(3600000000000); goto nanos;
        case QP_MINUTE: per = INT64_C(60000000000); goto nanos;
        case QP_MICROSECOND: per = 1000;
        nanos:
            ok = !__builtin_mul_overflow(n, per, &v.nanos);
            break;
        default:
            cast_ok = n == (int32_t)n;
            per = unit == QP_YEAR       ? 12
                  : unit == QP_QUARTER  ? 3
                  : unit == QP_DECADE   ? 120
                  : unit == QP_CENTURY  ? 1200
                  : unit == QP_MILLENNIUM ? 12000
                  : unit == QP_WEEK     ? 7
                                        : 1;
            ok = cast_ok && !__builtin_mul_overflow(n, per, &r) && r == (int32_t)r;
            if (ok && (unit == QP_DAY || unit == QP_WEEK))
                v.days = (int32_t)r;
            else if (ok)
                v.months = (int32_t)r;
        }
        if (!ok && qrow_valid(OUT.valid, i) && qcounts(x, st, i)) {
            if (!cast_ok)
                return basalt_qexec_error(x, st, BASALT_INVALID_ARG,
                                          "Type INT64 with value %lld can't be cast because the "
                                          "value is out of range for the destination type INT32",
                                          (long long)n);
            static const char *const names[] = {
                [QP_YEAR] = "years",   [QP_QUARTER] = "quarters", [QP_MONTH] = "months",
                [QP_WEEK] = "weeks",   [QP_DAY] = "days",         [QP_HOUR] = "hours",
                [QP_MINUTE] = "minutes", [QP_MICROSECOND] = "microseconds",
                [QP_DECADE] = "decades", [QP_CENTURY] = "centuries", [QP_MILLENNIUM] = "millennia"};
            return basalt_qexec_error(x, st, BASALT_LIMIT, "Interval value %lld %s out of range",
                                      (long long)n, names[unit]);
        }
        o[i] = ok ? v : (struct qinterval){0, 0, 0};
    }
    return BASALT_OK;
}

bool basalt_qk_interval_select(struct qstep *st)
{
    switch (st->op) {
    case QOP_INTERVAL_MUL: st->fn = k_mul_int; st->kname = "interval_mul"; return true;
    case QOP_INTERVAL_MUL_F: st->fn = k_scale; st->kname = "interval_mul_double"; return true;
    case QOP_INTERVAL_DIV_F: st->fn = k_scale; st->kname = "interval_div_double"; return true;
    case QOP_TO_INTERVAL: st->fn = k_to_interval; st->kname = "to_interval"; return true;
    default: return false;
    }
}
