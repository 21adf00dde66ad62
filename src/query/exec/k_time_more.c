/* More date and time kernels, as DuckDB computes them: date_diff (part
 * boundaries crossed) and date_sub (whole parts elapsed), make_date,
 * make_timestamp, last_day, epoch_ms both ways, to_timestamp, strptime. UTC,
 * proleptic Gregorian; timestamp arguments in microseconds. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

#define US_PER_SEC INT64_C(1000000)
#define US_PER_MINUTE (60 * US_PER_SEC)
#define US_PER_HOUR (3600 * US_PER_SEC)
#define US_PER_DAY (86400 * US_PER_SEC)
/* DuckDB's DATE range: INT32_MAX days and its negation are the infinities. */
#define DATE_MAX_DAYS (INT32_MAX - 1)

static int month_days(int64_t y, int m)
{
    static const int md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : md[m - 1];
}

/* The result's validity: AND of all the arguments'. */
static void valid_all(const struct qstep *st, struct qexec *x)
{
    basalt_qvalid_and(x, &OUT, &A(0), st->n_args > 1 ? &A(1) : NULL);
    for (int k = 2; k < st->n_args; k++) {
        const uint64_t *v = A(k).valid;
        if (!v)
            continue;
        if (!OUT.valid)
            memcpy(OUT.vbuf, v, QWORDS * 8);
        else
            for (int w = 0; w < QWORDS; w++)
                OUT.vbuf[w] &= v[w];
        OUT.valid = OUT.vbuf;
    }
}

/* ------------------------------------------------------------------ date_diff, date_sub */

struct fields {
    int64_t days, y, tod; /* tod: microseconds into the day */
    int m, d;
};

static struct fields fields_of(int64_t ts)
{
    struct fields f;
    f.days = basalt_qfloordiv(ts, US_PER_DAY);
    f.tod = ts - f.days * US_PER_DAY;
    basalt_qcivil_from_days(f.days, &f.y, &f.m, &f.d);
    return f;
}

/* date_diff: the part boundaries crossed from a to b (T-SQL's DATEDIFF, as
 * DuckDB has it): calendar parts compare the fields (decades and up divide
 * the years truncating), a week is whole 7-day spans of the days between,
 * time parts floor both ends to the unit. False on overflow. */
static bool diff_part(enum qpart part, int64_t a, int64_t b, int64_t *r)
{
    struct fields s = fields_of(a), e = fields_of(b);
    int64_t unit;
    switch (part) {
    case QP_YEAR: *r = e.y - s.y; return true;
    case QP_QUARTER: *r = (e.y * 12 + e.m - 1) / 3 - (s.y * 12 + s.m - 1) / 3; return true;
    case QP_MONTH: *r = (e.y - s.y) * 12 + e.m - s.m; return true;
    case QP_WEEK: *r = (e.days - s.days) / 7; return true;
    case QP_DECADE: *r = e.y / 10 - s.y / 10; return true;
    case QP_CENTURY: *r = e.y / 100 - s.y / 100; return true;
    case QP_MILLENNIUM: *r = e.y / 1000 - s.y / 1000; return true;
    case QP_MICROSECOND: return !__builtin_sub_overflow(b, a, r);
    case QP_MILLISECOND: unit = 1000; break;
    case QP_SECOND: case QP_EPOCH: unit = US_PER_SEC; break;
    case QP_MINUTE: unit = US_PER_MINUTE; break;
    case QP_HOUR: unit = US_PER_HOUR; break;
    default: unit = US_PER_DAY; break; /* DAY, DOW, ISODOW, DOY */
    }
    *r = basalt_qfloordiv(b, unit) - basalt_qfloordiv(a, unit);
    return true;
}

/* Whole months from a to b (DuckDB's DateSub::MonthOperator): the month
 * difference less one when b's day and time of day come before a's, where
 * b on its month's last day counts as reaching any later day of a. */
static int64_t sub_months(int64_t a, int64_t b)
{
    if (a > b)
        return -sub_months(b, a);
    struct fields s = fields_of(a), e = fields_of(b);
    int end_days = month_days(e.y, e.m);
    if (e.d == end_days && s.d > end_days)
        s.d = end_days;
    bool short_of = e.d < s.d || (e.d == s.d && e.tod < s.tod);
    return (e.y - s.y) * 12 + e.m - s.m - short_of;
}

/* date_sub: the whole parts elapsed from a to b, truncated toward zero.
 * False on overflow. */
static bool sub_part(enum qpart part, int64_t a, int64_t b, int64_t *r)
{
    int64_t d, unit;
    switch (part) {
    case QP_YEAR: *r = sub_months(a, b) / 12; return true;
    case QP_QUARTER: *r = sub_months(a, b) / 3; return true;
    case QP_MONTH: *r = sub_months(a, b); return true;
    case QP_DECADE: *r = sub_months(a, b) / 120; return true;
    case QP_CENTURY: *r = sub_months(a, b) / 1200; return true;
    case QP_MILLENNIUM: *r = sub_months(a, b) / 12000; return true;
    case QP_WEEK: unit = 7 * US_PER_DAY; break;
    case QP_HOUR: unit = US_PER_HOUR; break;
    case QP_MINUTE: unit = US_PER_MINUTE; break;
    case QP_SECOND: case QP_EPOCH: unit = US_PER_SEC; break;
    case QP_MILLISECOND: unit = 1000; break;
    case QP_MICROSECOND: unit = 1; break;
    default: unit = US_PER_DAY; break; /* DAY, DOW, ISODOW, DOY */
    }
    if (__builtin_sub_overflow(b, a, &d))
        return false;
    *r = d / unit;
    return true;
}

static basalt_status k_date_diff(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data, *b = A(1).data;
    int64_t *o = OUT.dbuf;
    bool sub = st->op == QOP_DATE_SUB_PART;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        bool ok = sub ? sub_part((enum qpart)st->aux, a[i], b[i], &o[i])
                      : diff_part((enum qpart)st->aux, a[i], b[i], &o[i]);
        if (!ok && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_LIMIT,
                                      "Overflow in subtraction of INT64 (%lld - %lld)!",
                                      (long long)b[i], (long long)a[i]);
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ make_date, make_timestamp */

/* An INTEGER field of DuckDB's make_date/make_timestamp; false with the
 * cast's message in why. */
static bool int32_field(int64_t v, char *why, size_t cap)
{
    if (v >= INT32_MIN && v <= INT32_MAX)
        return true;
    snprintf(why, cap,
             "Type INT64 with value %lld can't be cast because the value is out of range for the "
             "destination type INT32",
             (long long)v);
    return false;
}

/* DuckDB's Date::FromDate over BIGINT fields: days since the epoch of a
 * valid calendar day in the DATE range; false with the message in why. */
static bool civil_day(int64_t y, int64_t m, int64_t d, int64_t *days, char *why, size_t cap)
{
    if (!int32_field(y, why, cap) || !int32_field(m, why, cap) || !int32_field(d, why, cap))
        return false;
    bool ok = m >= 1 && m <= 12 && d >= 1 && d <= month_days(y, (int)m);
    if (ok) {
        *days = basalt_qdays_from_civil(y, (int)m, (int)d);
        ok = *days >= -DATE_MAX_DAYS && *days <= DATE_MAX_DAYS;
    }
    if (!ok)
        snprintf(why, cap, "Date out of range: %lld-%lld-%lld", (long long)y, (long long)m,
                 (long long)d);
    return ok;
}

static basalt_status k_make_date(const struct qstep *st, struct qexec *x)
{
    const int64_t *y = A(0).data, *m = A(1).data, *d = A(2).data;
    int32_t *o = OUT.dbuf;
    valid_all(st, x);
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        char why[160];
        int64_t days = 0;
        bool ok = civil_day(y[i], m[i], d[i], &days, why, sizeof why);
        if (!ok && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "%s", why);
        o[i] = (int32_t)days;
    }
    return BASALT_OK;
}

/* The time of day of DuckDB's make_timestamp in microseconds: hour and
 * minute as INTEGERs; seconds truncated when in [0, 60], else rounded (an
 * INTEGER cast), the rest rounded to microseconds; 24:00:00, a second 60
 * and a million microseconds are let through as DuckDB does. */
static bool time_of_day(int64_t h, int64_t mi, double s, int64_t *out, char *why, size_t cap)
{
    if (!int32_field(h, why, cap) || !int32_field(mi, why, cap))
        return false;
    double whole = s < 0 || s > 60 ? nearbyint(s) : trunc(s);
    if (!(whole >= INT32_MIN && whole <= INT32_MAX)) {
        snprintf(why, cap, "Time out of range: %lld:%lld:%g", (long long)h, (long long)mi, s);
        return false;
    }
    int64_t sec = (int64_t)whole, us = (int64_t)round((s - whole) * 1e6);
    bool ok = h == 24 ? mi == 0 && sec == 0 && us == 0 : h >= 0 && h < 24;
    ok = ok && mi >= 0 && mi < 60 && sec >= 0 && sec <= 60 && us >= 0 && us <= US_PER_SEC;
    if (!ok) {
        snprintf(why, cap, "Time out of range: %lld:%lld:%lld.%lld", (long long)h, (long long)mi,
                 (long long)sec, (long long)us);
        return false;
    }
    *out = ((h * 60 + mi) * 60 + sec) * US_PER_SEC + us;
    return true;
}

static basalt_status k_make_timestamp(const struct qstep *st, struct qexec *x)
{
    const int64_t *y = A(0).data, *mo = A(1).data, *d = A(2).data, *h = A(3).data, *mi = A(4).data;
    const double *s = A(5).data;
    int64_t *o = OUT.dbuf;
    valid_all(st, x);
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        char why[160];
        int64_t days = 0, tod = 0;
        bool ok = civil_day(y[i], mo[i], d[i], &days, why, sizeof why) &&
                  time_of_day(h[i], mi[i], s[i], &tod, why, sizeof why);
        if (ok && (__builtin_mul_overflow(days, US_PER_DAY, &o[i]) ||
                   __builtin_add_overflow(o[i], tod, &o[i]))) {
            snprintf(why, sizeof why, "Date and time not in timestamp range");
            ok = false;
        }
        if (!ok && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "%s", why);
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ last_day, epochs */

static basalt_status k_last_day(const struct qstep *st, struct qexec *x)
{
    const int32_t *a = A(0).data;
    int32_t *o = OUT.dbuf;
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        int64_t y;
        int m, d;
        basalt_qcivil_from_days(a[i], &y, &m, &d);
        o[i] = (int32_t)basalt_qdays_from_civil(y, m, month_days(y, m));
    }
    return BASALT_OK;
}

/* epoch_ms(ts): milliseconds since the epoch, truncated toward zero. */
static basalt_status k_epoch_ms(const struct qstep *st, struct qexec *x)
{
    const int64_t *a = A(0).data;
    int64_t *o = OUT.dbuf, per_ms = st->in_type.nanos ? 1000000 : 1000;
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < x->n; i++)
        o[i] = a[i] / per_ms;
    return BASALT_OK;
}

/* to_timestamp(seconds): rounded to microseconds half to even (DuckDB's cast
 * of a DOUBLE to BIGINT); epoch_ms(n) and make_timestamp(n): n times aux
 * microseconds. */
static basalt_status k_from_epoch(const struct qstep *st, struct qexec *x)
{
    int64_t *o = OUT.dbuf;
    OUT.valid = A(0).valid;
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        bool ok;
        if (st->in_type.id == BASALT_QUERY_TYPE_DOUBLE) {
            double us = nearbyint(((const double *)A(0).data)[i] * 1e6);
            ok = us >= -0x1p63 && us < 0x1p63;
            o[i] = ok ? (int64_t)us : 0;
        } else {
            ok = !__builtin_mul_overflow(((const int64_t *)A(0).data)[i], (int64_t)st->aux, &o[i]);
        }
        if (!ok && qrow_valid(OUT.valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "%s",
                                      st->in_type.id == BASALT_QUERY_TYPE_DOUBLE
                                          ? "Epoch seconds out of range for TIMESTAMP WITH TIME ZONE"
                                          : "Could not convert Timestamp(MS) to Timestamp(US)");
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ strptime */

static const char *const day_names[] = {"Sunday", "Monday", "Tuesday", "Wednesday",
                                        "Thursday", "Friday", "Saturday"};
static const char *const month_names[] = {"January", "February", "March",     "April",
                                          "May",     "June",     "July",      "August",
                                          "September", "October", "November", "December"};

static bool is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Digits a numeric specifier reads at most (DuckDB's widths), 0 for the
 * others. */
static int spec_width(char c)
{
    switch (c) {
    case 'd': case 'm': case 'y': case 'H': case 'I': case 'M': case 'S': return 2;
    case 'g': return 3;
    case 'Y': return 4;
    case 'f': return 6;
    case 'n': return 9;
    default: return 0;
    }
}

bool basalt_qstrptime_format(const char *f, size_t n, bool *nanos, bool *tz, char *bad)
{
    *nanos = *tz = false;
    *bad = 0;
    for (size_t j = 0; j < n; j++) {
        if (f[j] != '%')
            continue;
        if (++j == n)
            return false;
        char c = f[j] == '-' && j + 1 < n && f[j + 1] && strchr("dmyHIMS", f[j + 1]) ? f[++j] : f[j];
        *nanos |= c == 'n';
        *tz |= c == 'z';
        if (!spec_width(c) && (!c || !strchr("aAbBhpz%", c))) {
            *bad = c ? c : '?';
            return false;
        }
    }
    *nanos &= !*tz; /* a zone makes it TIMESTAMP WITH TIME ZONE, in microseconds */
    return n > 0;
}

/* The fields strptime reads; DuckDB's defaults are 1900-01-01 00:00:00. */
struct parsed {
    int64_t y, mo, d, h, mi, s, ns;
    int64_t offset_min; /* %z */
    int ampm;           /* 0 none, 1 AM, 2 PM */
};

/* A case-insensitive match at *pos of one of the k names, whole or their
 * first three letters (abbrev): its index, *pos moved past it; -1 if none. */
static int match_name(const char *s, int64_t n, int64_t *pos, const char *const *names, int k,
                      bool abbrev)
{
    for (int i = 0; i < k; i++) {
        int64_t len = abbrev ? 3 : (int64_t)strlen(names[i]);
        if (*pos + len <= n && strncasecmp(s + *pos, names[i], (size_t)len) == 0) {
            *pos += len;
            return i;
        }
    }
    return -1;
}

/* +HH, +HHMM or +HH:MM (DuckDB's Timestamp::TryParseUTCOffset, which also
 * takes the colon alone after the hours). */
static bool utc_offset(const char *s, int64_t n, int64_t *pos, int64_t *minutes)
{
    int64_t p = *pos;
    if (p + 3 > n || (s[p] != '+' && s[p] != '-') || !is_digit(s[p + 1]) || !is_digit(s[p + 2]))
        return false;
    int64_t v = ((s[p + 1] - '0') * 10 + s[p + 2] - '0') * 60;
    p += 3;
    if (p < n && s[p] == ':')
        p++;
    if (p + 2 <= n && is_digit(s[p]) && is_digit(s[p + 1])) {
        v += (s[p] - '0') * 10 + s[p + 1] - '0';
        p += 2;
    }
    *minutes = s[*pos] == '-' ? -v : v;
    *pos = p;
    return true;
}

/* One numeric specifier at *pos into *r: 1 to width digits, its range
 * checked; the fractions scaled to nanoseconds. */
static bool number(char c, const char *s, int64_t n, int64_t *pos, int64_t *r)
{
    int width = spec_width(c), k = 0;
    int64_t v = 0;
    while (k < width && *pos < n && is_digit(s[*pos])) {
        v = v * 10 + s[(*pos)++] - '0';
        k++;
    }
    if (k == 0)
        return false;
    switch (c) {
    case 'd': return (*r = v) >= 1 && v <= 31;
    case 'm': return (*r = v) >= 1 && v <= 12;
    case 'y': *r = v >= 69 ? 1900 + v : 2000 + v; return true;
    case 'H': return (*r = v) < 24;
    case 'I': return (*r = v) >= 1 && v <= 12;
    case 'M': case 'S': return (*r = v) < 60;
    case 'Y': *r = v; return true;
    default: /* f g n: a fraction of a second, to nanoseconds */
        for (; k < 9; k++)
            v *= 10;
        *r = v;
        return true;
    }
}

/* DuckDB's StrpTimeFormat::Parse for the specifiers above: leading and
 * trailing whitespace skipped, a run of spaces in the format matching a
 * run of at least one in the string, names case-insensitive. */
static bool sp_parse(const char *s, int64_t n, const char *f, int64_t fn, struct parsed *p)
{
    int64_t pos = 0;
    while (n > 0 && is_space(*s)) {
        s++;
        n--;
    }
    for (int64_t j = 0; j < fn; j++) {
        char c = f[j];
        if (is_space(c)) {
            if (pos >= n || !is_space(s[pos]))
                return false;
            while (pos < n && is_space(s[pos]))
                pos++;
            while (j + 1 < fn && is_space(f[j + 1]))
                j++;
            continue;
        }
        if (c != '%' || f[++j] == '%') {
            if (pos >= n || s[pos++] != f[j])
                return false;
            continue;
        }
        c = f[j] == '-' ? f[++j] : f[j];
        bool ok = true;
        switch (c) {
        case 'Y': case 'y': ok = number(c, s, n, &pos, &p->y); break;
        case 'm': ok = number(c, s, n, &pos, &p->mo); break;
        case 'd': ok = number(c, s, n, &pos, &p->d); break;
        case 'H': case 'I': ok = number(c, s, n, &pos, &p->h); break;
        case 'M': ok = number(c, s, n, &pos, &p->mi); break;
        case 'S': ok = number(c, s, n, &pos, &p->s); break;
        case 'f': case 'g': case 'n': ok = number(c, s, n, &pos, &p->ns); break;
        case 'a': case 'A': ok = match_name(s, n, &pos, day_names, 7, c == 'a') >= 0; break;
        case 'b': case 'h': case 'B': {
            int k = match_name(s, n, &pos, month_names, 12, c != 'B');
            ok = k >= 0;
            p->mo = k + 1;
            break;
        }
        case 'p': {
            char ap = pos + 2 <= n ? s[pos] | 0x20 : 0; /* ASCII lower case */
            ok = ap && (s[pos + 1] | 0x20) == 'm' && (ap == 'a' || ap == 'p');
            p->ampm = ap == 'p' ? 2 : 1;
            pos += 2;
            break;
        }
        default: ok = utc_offset(s, n, &pos, &p->offset_min); break; /* z */
        }
        if (!ok)
            return false;
    }
    while (pos < n && is_space(s[pos]))
        pos++;
    if (pos != n || (p->ampm && p->h > 12))
        return false;
    if (p->ampm)
        p->h = p->h % 12 + (p->ampm == 2 ? 12 : 0);
    return true;
}

/* strptime of one string into *out (nanoseconds with ns); false with the
 * message in why. */
static bool sp_value(struct qstr s, struct qstr f, bool ns, int64_t *out, char *why, size_t cap)
{
    struct parsed p = {1900, 1, 1, 0, 0, 0, 0, 0, 0};
    int64_t days;
    if (!sp_parse(s.ptr, s.len, f.ptr, f.len, &p)) {
        snprintf(why, cap, "Could not parse string \"%.*s\" according to format specifier \"%.*s\"",
                 (int)s.len, s.ptr, (int)f.len, f.ptr);
        return false;
    }
    if (!civil_day(p.y, p.mo, p.d, &days, why, cap))
        return false;
    /* the fraction rounds to microseconds unless the result holds nanoseconds */
    int64_t secs = (p.h * 60 + p.mi - p.offset_min) * 60 + p.s;
    int64_t tod = ns ? secs * 1000000000 + p.ns : secs * US_PER_SEC + (p.ns + 500) / 1000;
    if (__builtin_mul_overflow(days, ns ? US_PER_DAY * 1000 : US_PER_DAY, out) ||
        __builtin_add_overflow(*out, tod, out)) {
        snprintf(why, cap, "Date out of nanosecond range: %lld-%lld-%lld", (long long)p.y,
                 (long long)p.mo, (long long)p.d);
        return false;
    }
    return true;
}

/* strptime; with aux 1 try_strptime, whose failures are NULL. */
static basalt_status k_strptime(const struct qstep *st, struct qexec *x)
{
    const struct qstr *s = A(0).data, *f = A(1).data;
    int64_t *o = OUT.dbuf;
    bool try_ = st->aux == 1;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    if (try_ && !OUT.valid) {
        memset(OUT.vbuf, 0xff, QWORDS * 8);
        OUT.valid = OUT.vbuf;
    }
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        char why[BASALT_ERROR_MESSAGE_MAX / 2];
        o[i] = 0;
        if (!qrow_valid(OUT.valid, i) ||
            sp_value(s[i], f[i], st->type.nanos, &o[i], why, sizeof why))
            continue;
        if (try_)
            qbit_set(OUT.vbuf, i, false);
        else if (qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "%s", why);
    }
    return BASALT_OK;
}

bool basalt_qk_time_more_select(struct qstep *st)
{
    switch (st->op) {
    case QOP_DATE_DIFF: st->fn = k_date_diff; st->kname = "date_diff"; return true;
    case QOP_DATE_SUB_PART: st->fn = k_date_diff; st->kname = "date_sub"; return true;
    case QOP_MAKE_DATE: st->fn = k_make_date; st->kname = "make_date"; return true;
    case QOP_MAKE_TIMESTAMP: st->fn = k_make_timestamp; st->kname = "make_timestamp"; return true;
    case QOP_LAST_DAY: st->fn = k_last_day; st->kname = "last_day"; return true;
    case QOP_EPOCH_MS: st->fn = k_epoch_ms; st->kname = "epoch_ms"; return true;
    case QOP_FROM_EPOCH: st->fn = k_from_epoch; st->kname = "from_epoch"; return true;
    case QOP_STRPTIME: st->fn = k_strptime; st->kname = "strptime"; return true;
    default: return false;
    }
}
