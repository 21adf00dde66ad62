/* Date and time kernels: date_part, date_trunc, strftime, and interval
 * arithmetic on the proleptic Gregorian calendar in UTC. */
#include <stdio.h>
#include <string.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

struct civil {
    int64_t days, y;
    int m, d;
    int64_t sub; /* time of day in the unit */
};

static struct civil split(int64_t v, int64_t per_day)
{
    struct civil c;
    c.days = basalt_qfloordiv(v, per_day);
    c.sub = v - c.days * per_day;
    basalt_qcivil_from_days(c.days, &c.y, &c.m, &c.d);
    return c;
}

static int64_t doy(const struct civil *c)
{
    return c->days - basalt_qdays_from_civil(c->y, 1, 1) + 1;
}

static int isodow(int64_t days)
{
    int64_t w = (days + 3) % 7; /* 1970-01-01 was a Thursday */
    if (w < 0)
        w += 7;
    return (int)w + 1; /* Monday 1 .. Sunday 7 */
}

static int64_t iso_week(int64_t days)
{
    int64_t thu = days - (isodow(days) - 1) + 3;
    int64_t y;
    int m, d;
    basalt_qcivil_from_days(thu, &y, &m, &d);
    return (thu - basalt_qdays_from_civil(y, 1, 1)) / 7 + 1;
}

static basalt_status k_date_part(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data;
    bool ns = st->in_type.nanos;
    int64_t per_sec = ns ? 1000000000 : 1000000, per_day = 86400 * per_sec;
    OUT.valid = A(0).valid;
    OUT.data = OUT.dbuf;
    int64_t *o = OUT.dbuf;
    double *f = OUT.dbuf;
    for (int i = 0; i < x->n; i++) {
        struct civil c = split(a[i], per_day);
        int64_t secs = c.sub / per_sec, frac = c.sub % per_sec;
        int64_t r;
        switch ((enum qpart)st->aux) {
        case QP_YEAR: r = c.y; break;
        case QP_QUARTER: r = (c.m - 1) / 3 + 1; break;
        case QP_MONTH: r = c.m; break;
        case QP_WEEK: r = iso_week(c.days); break;
        case QP_DAY: r = c.d; break;
        case QP_HOUR: r = secs / 3600; break;
        case QP_MINUTE: r = secs / 60 % 60; break;
        case QP_SECOND: r = secs % 60; break;
        case QP_MILLISECOND: r = (secs % 60) * 1000 + frac / (per_sec / 1000); break;
        case QP_MICROSECOND: r = (secs % 60) * 1000000 + frac / (per_sec / 1000000); break;
        case QP_DOW: r = isodow(c.days) % 7; break;
        case QP_ISODOW: r = isodow(c.days); break;
        case QP_DOY: r = doy(&c); break;
        case QP_DECADE: r = basalt_qfloordiv(c.y, 10); break;
        case QP_CENTURY: r = c.y > 0 ? (c.y - 1) / 100 + 1 : -((-c.y) / 100 + 1); break;
        case QP_MILLENNIUM: r = c.y > 0 ? (c.y - 1) / 1000 + 1 : -((-c.y) / 1000 + 1); break;
        default: /* EPOCH */
            f[i] = (double)(a[i] / per_sec) + (double)(a[i] % per_sec) / (double)per_sec;
            continue;
        }
        o[i] = r;
    }
    return BASALT_OK;
}

static basalt_status k_date_trunc(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data;
    bool ns = st->in_type.nanos;
    int64_t per_sec = ns ? 1000000000 : 1000000, per_day = 86400 * per_sec;
    OUT.valid = A(0).valid;
    OUT.data = OUT.dbuf;
    int64_t *o = OUT.dbuf;
    for (int i = 0; i < x->n; i++) {
        struct civil c = split(a[i], per_day);
        int64_t day0 = c.days * per_day, unit;
        switch ((enum qpart)st->aux) {
        case QP_MILLENNIUM: o[i] = basalt_qdays_from_civil(((c.y - 1) / 1000) * 1000 + 1, 1, 1) * per_day; continue;
        case QP_CENTURY: o[i] = basalt_qdays_from_civil(((c.y - 1) / 100) * 100 + 1, 1, 1) * per_day; continue;
        case QP_DECADE: o[i] = basalt_qdays_from_civil(basalt_qfloordiv(c.y, 10) * 10, 1, 1) * per_day; continue;
        case QP_YEAR: o[i] = basalt_qdays_from_civil(c.y, 1, 1) * per_day; continue;
        case QP_QUARTER: o[i] = basalt_qdays_from_civil(c.y, (c.m - 1) / 3 * 3 + 1, 1) * per_day; continue;
        case QP_MONTH: o[i] = basalt_qdays_from_civil(c.y, c.m, 1) * per_day; continue;
        case QP_WEEK: o[i] = (c.days - (isodow(c.days) - 1)) * per_day; continue;
        case QP_DAY: o[i] = day0; continue;
        case QP_HOUR: unit = 3600 * per_sec; break;
        case QP_MINUTE: unit = 60 * per_sec; break;
        case QP_SECOND: unit = per_sec; break;
        case QP_MILLISECOND: unit = per_sec / 1000; break;
        default: unit = per_sec / 1000000; break;
        }
        o[i] = day0 + c.sub / unit * unit;
    }
    return BASALT_OK;
}

static const char *const wday_names[] = {"Monday", "Tuesday", "Wednesday", "Thursday",
                                         "Friday", "Saturday", "Sunday"};
static const char *const month_names[] = {"January", "February", "March",     "April",
                                          "May",     "June",     "July",      "August",
                                          "September", "October", "November", "December"};

static basalt_status k_strftime(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data;
    const struct qstr *fmt = A(1).data;
    bool ns = st->in_type.nanos;
    int64_t per_sec = ns ? 1000000000 : 1000000, per_day = 86400 * per_sec;
    struct qvec *o = &OUT;
    struct qstr *r = o->dbuf;
    basalt_qvalid_and(x, o, &A(0), &A(1));
    o->data = r;
    char buf[512];
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(o->valid, i)) {
            r[i].ptr = "";
            r[i].len = 0;
            continue;
        }
        struct civil c = split(a[i], per_day);
        int64_t secs = c.sub / per_sec, frac = c.sub % per_sec;
        int64_t h = secs / 3600, mi = secs / 60 % 60, s = secs % 60;
        size_t k = 0;
        const char *f = fmt[i].ptr;
        for (int64_t j = 0; j < fmt[i].len && k < sizeof buf - 40; j++) {
            if (f[j] != '%' || j + 1 == fmt[i].len) {
                buf[k++] = f[j];
                continue;
            }
            char spec = f[++j];
            int wd = isodow(c.days);
            switch (spec) {
            case 'Y': k += (size_t)sprintf(buf + k, "%lld", (long long)c.y); break;
            case 'y': k += (size_t)sprintf(buf + k, "%02lld", (long long)(c.y % 100)); break;
            case 'm': k += (size_t)sprintf(buf + k, "%02d", c.m); break;
            case 'd': k += (size_t)sprintf(buf + k, "%02d", c.d); break;
            case '-': /* %-d %-m */
                if (j + 1 < fmt[i].len) {
                    char g = f[++j];
                    k += (size_t)sprintf(buf + k, "%lld", (long long)(g == 'd' ? c.d : g == 'm' ? c.m
                                                                : g == 'H' ? h : g == 'M' ? mi : s));
                }
                break;
            case 'H': k += (size_t)sprintf(buf + k, "%02lld", (long long)h); break;
            case 'I': k += (size_t)sprintf(buf + k, "%02lld", (long long)(h % 12 == 0 ? 12 : h % 12)); break;
            case 'p': k += (size_t)sprintf(buf + k, "%s", h < 12 ? "AM" : "PM"); break;
            case 'M': k += (size_t)sprintf(buf + k, "%02lld", (long long)mi); break;
            case 'S': k += (size_t)sprintf(buf + k, "%02lld", (long long)s); break;
            case 'f': k += (size_t)sprintf(buf + k, "%06lld", (long long)(frac / (per_sec / 1000000))); break;
            case 'n': k += (size_t)sprintf(buf + k, "%09lld", (long long)(frac * (1000000000 / per_sec))); break;
            case 'j': k += (size_t)sprintf(buf + k, "%03lld", (long long)doy(&c)); break;
            case 'a': k += (size_t)sprintf(buf + k, "%.3s", wday_names[wd - 1]); break;
            case 'A': k += (size_t)sprintf(buf + k, "%s", wday_names[wd - 1]); break;
            case 'w': k += (size_t)sprintf(buf + k, "%d", wd % 7); break;
            case 'u': k += (size_t)sprintf(buf + k, "%d", wd); break;
            case 'b': k += (size_t)sprintf(buf + k, "%.3s", month_names[c.m - 1]); break;
            case 'B': k += (size_t)sprintf(buf + k, "%s", month_names[c.m - 1]); break;
            case 'V': k += (size_t)sprintf(buf + k, "%02lld", (long long)iso_week(c.days)); break;
            case '%': buf[k++] = '%'; break;
            default:
                return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "strftime: unsupported specifier '%%%c'", spec);
            }
        }
        char *p = basalt_qstr_alloc(x, k);
        if (!p)
            return BASALT_NOMEM;
        memcpy(p, buf, k);
        r[i].ptr = p;
        r[i].len = (int64_t)k;
    }
    return BASALT_OK;
}

static int month_days(int64_t y, int m)
{
    static const int md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : md[m - 1];
}

bool basalt_qts_add_interval(int64_t v, int64_t months, int64_t days, int64_t nanos, bool ns,
                             int64_t *out)
{
    int64_t per_sec = ns ? 1000000000 : 1000000, per_day = 86400 * per_sec;
    if (months) {
        struct civil c = split(v, per_day);
        int64_t mm = c.y * 12 + (c.m - 1) + months;
        int64_t y = basalt_qfloordiv(mm, 12);
        int m = (int)(mm - y * 12) + 1;
        int d = c.d > month_days(y, m) ? month_days(y, m) : c.d;
        v = basalt_qdays_from_civil(y, m, d) * per_day + c.sub;
    }
    int64_t day_units;
    bool ovf = __builtin_mul_overflow(days, per_day, &day_units);
    ovf |= __builtin_add_overflow(v, day_units, &v);
    ovf |= __builtin_add_overflow(v, ns ? nanos : nanos / 1000, &v);
    *out = v;
    return !ovf;
}

static basalt_status k_ts_interval(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data;
    const struct qinterval *b = A(1).data;
    bool ns = st->type.nanos, sub = st->op == QOP_TS_SUB_INTERVAL;
    int64_t *o = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        int64_t months = sub ? -(int64_t)b[i].months : b[i].months;
        int64_t days = sub ? -(int64_t)b[i].days : b[i].days;
        int64_t nanos = sub ? -b[i].nanos : b[i].nanos;
        bool ok = basalt_qts_add_interval(a[i], months, days, nanos, ns, &o[i]);
        if (!ok && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_LIMIT, "Timestamp out of range");
    }
    return BASALT_OK;
}

static basalt_status k_ts_sub(const struct qstep *st, struct qexec *x)
{
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = OUT.dbuf;
    if (st->op == QOP_DATE_SUB_DATE) {
        const int32_t *a = A(0).data, *b = A(1).data;
        int64_t *o = OUT.dbuf;
        for (int i = 0; i < x->n; i++)
            o[i] = (int64_t)a[i] - b[i];
        return BASALT_OK;
    }
    if (st->op == QOP_DATE_ADD_DAYS || st->op == QOP_DATE_SUB_DAYS) {
        const int32_t *a = A(0).data;
        const int64_t *b = A(1).data;
        int32_t *o = OUT.dbuf;
        for (int i = 0; i < x->n; i++) {
            int64_t d = st->op == QOP_DATE_ADD_DAYS ? (int64_t)a[i] + b[i] : (int64_t)a[i] - b[i];
            bool ovf = (st->op == QOP_DATE_ADD_DAYS ? b[i] > INT32_MAX || b[i] < INT32_MIN
                                                    : b[i] > INT32_MAX || b[i] < -INT32_MAX) ||
                       d > INT32_MAX || d < INT32_MIN;
            if (ovf && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT, "Date out of range");
            o[i] = ovf ? 0 : (int32_t)d;
        }
        return BASALT_OK;
    }
    if (st->op == QOP_INTERVAL_ADD || st->op == QOP_INTERVAL_SUB) {
        const struct qinterval *a = A(0).data, *b = A(1).data;
        struct qinterval *o = OUT.dbuf;
        int sg = st->op == QOP_INTERVAL_SUB ? -1 : 1;
        for (int i = 0; i < x->n; i++) {
            o[i].months = a[i].months + sg * b[i].months;
            o[i].days = a[i].days + sg * b[i].days;
            o[i].nanos = a[i].nanos + sg * b[i].nanos;
        }
        return BASALT_OK;
    }
    const int64_t *a = A(0).data, *b = A(1).data;
    bool ns = st->in_type.nanos;
    int64_t per_day = ns ? INT64_C(86400000000000) : INT64_C(86400000000);
    struct qinterval *o = OUT.dbuf;
    for (int i = 0; i < x->n; i++) {
        int64_t d;
        if (__builtin_sub_overflow(a[i], b[i], &d)) {
            if (qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT, "Overflow in subtraction of timestamps");
            d = 0;
        }
        o[i].months = 0;
        o[i].days = (int32_t)(d / per_day);
        o[i].nanos = (d % per_day) * (ns ? 1 : 1000);
    }
    return BASALT_OK;
}

bool basalt_qk_time_select(struct qstep *st)
{
    if (basalt_qk_time_more_select(st) || basalt_qk_time_of_day_select(st))
        return true;
    switch (st->op) {
    case QOP_DATE_PART: st->fn = k_date_part; st->kname = "date_part"; return true;
    case QOP_DATE_TRUNC: st->fn = k_date_trunc; st->kname = "date_trunc"; return true;
    case QOP_STRFTIME: st->fn = k_strftime; st->kname = "strftime"; return true;
    case QOP_TS_ADD_INTERVAL: case QOP_TS_SUB_INTERVAL:
        st->fn = k_ts_interval;
        st->kname = "timestamp_interval";
        return true;
    default:
        st->fn = k_ts_sub;
        st->kname = "temporal_sub";
        return true;
    }
}
