/* CAST kernels. Numeric casts go through a wide intermediate (a 128-bit
 * integer with the source scale, or a double) in two loops, each chosen by
 * type outside the loop; text casts format or parse per value with DuckDB's
 * formats. TRY_CAST turns a failure into NULL. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "query_internal.h"

#define A0 (x->vec[st->args[0]])
#define OUT (x->vec[st->out])

/* Makes OUT.vbuf a writable copy of the input's validity. */
static void own_valid(struct qexec *x, const struct qstep *st)
{
    if (A0.valid)
        memcpy(OUT.vbuf, A0.valid, QWORDS * 8);
    else
        memset(OUT.vbuf, 0xff, QWORDS * 8);
    OUT.valid = OUT.vbuf;
}

/* A failed row: NULL under TRY_CAST, an error otherwise (if it counts). */
static bool failed(const struct qstep *st, struct qexec *x, int i, basalt_status *rs,
                   const char *msg)
{
    qbit_set(OUT.vbuf, i, false);
    if (st->flag || !qcounts(x, st, i))
        return false;
    *rs = basalt_qexec_error(x, st, BASALT_INVALID_ARG, "Conversion Error: %s", msg);
    return true;
}

static bool is_intlike(enum basalt_query_type_id id)
{
    return basalt_qtype_is_int(id) || id == BASALT_QUERY_TYPE_BOOL || id == BASALT_QUERY_TYPE_DECIMAL;
}

static void int_range(enum basalt_query_type_id id, qi128 *lo, qi128 *hi)
{
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case BASALT_QUERY_TYPE_INT16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case BASALT_QUERY_TYPE_INT32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case BASALT_QUERY_TYPE_INT64: *lo = INT64_MIN; *hi = INT64_MAX; break;
    case BASALT_QUERY_TYPE_UINT8: *lo = 0; *hi = UINT8_MAX; break;
    case BASALT_QUERY_TYPE_UINT16: *lo = 0; *hi = UINT16_MAX; break;
    case BASALT_QUERY_TYPE_UINT32: *lo = 0; *hi = UINT32_MAX; break;
    default: *lo = 0; *hi = UINT64_MAX; break;
    }
}

static void store_int(void *o, enum basalt_query_type_id id, int i, qi128 v)
{
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: case BASALT_QUERY_TYPE_UINT8: ((int8_t *)o)[i] = (int8_t)v; break;
    case BASALT_QUERY_TYPE_INT16: case BASALT_QUERY_TYPE_UINT16: ((int16_t *)o)[i] = (int16_t)v; break;
    case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_UINT32: ((int32_t *)o)[i] = (int32_t)v; break;
    default: ((int64_t *)o)[i] = (int64_t)v; break;
    }
}

static basalt_status cast_numeric(const struct qstep *st, struct qexec *x)
{
    static _Thread_local qi128 iv[QVEC];
    static _Thread_local double dv[QVEC];
    enum basalt_query_type_id s = st->in_type.id, d = st->type.id;
    const void *a = A0.data;
    int n = x->n;
    bool src_int = is_intlike(s);
    int ss = s == BASALT_QUERY_TYPE_DECIMAL ? st->in_type.scale : 0;
    switch (s) {
    case BASALT_QUERY_TYPE_BOOL: for (int i = 0; i < n; i++) iv[i] = qbit(a, i); break;
    case BASALT_QUERY_TYPE_INT8: for (int i = 0; i < n; i++) iv[i] = ((const int8_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_INT16: for (int i = 0; i < n; i++) iv[i] = ((const int16_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_INT32: for (int i = 0; i < n; i++) iv[i] = ((const int32_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_INT64: for (int i = 0; i < n; i++) iv[i] = ((const int64_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_UINT8: for (int i = 0; i < n; i++) iv[i] = ((const uint8_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_UINT16: for (int i = 0; i < n; i++) iv[i] = ((const uint16_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_UINT32: for (int i = 0; i < n; i++) iv[i] = ((const uint32_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_UINT64: for (int i = 0; i < n; i++) iv[i] = ((const uint64_t *)a)[i]; break;
    case BASALT_QUERY_TYPE_DECIMAL: memcpy(iv, a, sizeof(qi128) * (size_t)n); break;
    case BASALT_QUERY_TYPE_FLOAT: for (int i = 0; i < n; i++) dv[i] = ((const float *)a)[i]; break;
    default: memcpy(dv, a, sizeof(double) * (size_t)n); break;
    }
    own_valid(x, st);
    OUT.data = OUT.dbuf;
    void *o = OUT.dbuf;
    basalt_status rs = BASALT_OK;
    char msg[200], sname[48], dname[48];
    basalt_query_type_name(st->in_type, sname, sizeof sname);
    basalt_query_type_name(st->type, dname, sizeof dname);
    if (d == BASALT_QUERY_TYPE_FLOAT || d == BASALT_QUERY_TYPE_DOUBLE) {
        double div = (double)basalt_qpow10(ss);
        for (int i = 0; i < n; i++) {
            double v = src_int ? (ss ? (double)iv[i] / div : (double)iv[i]) : dv[i];
            if (d == BASALT_QUERY_TYPE_FLOAT)
                ((float *)o)[i] = (float)v;
            else
                ((double *)o)[i] = v;
        }
        return BASALT_OK;
    }
    if (d == BASALT_QUERY_TYPE_BOOL) {
        memset(o, 0, QWORDS * 8);
        for (int i = 0; i < n; i++)
            if (src_int ? iv[i] != 0 : dv[i] != 0)
                qbit_set(o, i, true);
        return BASALT_OK;
    }
    int ds = d == BASALT_QUERY_TYPE_DECIMAL ? st->type.scale : 0;
    qi128 lo, hi;
    if (d == BASALT_QUERY_TYPE_DECIMAL) {
        hi = basalt_qpow10(st->type.precision) - 1;
        lo = -hi;
    } else
        int_range(d, &lo, &hi);
    for (int i = 0; i < n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        qi128 r;
        bool ok = true;
        if (src_int) {
            qi128 v = iv[i];
            if (ds >= ss) {
                qi128 f = basalt_qpow10(ds - ss);
                ok = !__builtin_mul_overflow(v, f, &r);
            } else {
                qi128 f = basalt_qpow10(ss - ds), q = v / f, rem = v % f;
                r = q + (rem * 2 >= f) - (rem * 2 <= -f);
            }
        } else {
            double v = dv[i] * (double)basalt_qpow10(ds);
            v = d == BASALT_QUERY_TYPE_DECIMAL ? round(v) : nearbyint(v);
            ok = isfinite(v) && v > -1.8e38 && v < 1.8e38;
            r = ok ? (qi128)v : 0;
        }
        if (!ok || r < lo || r > hi) {
            if (src_int && !ss) {
                char num[48];
                basalt_qformat_int128(iv[i], num, sizeof num);
                snprintf(msg, sizeof msg,
                         "Type %s with value %s can't be cast because the value is out of range "
                         "for the destination type %s",
                         basalt_qtype_phys_name(s), num, d == BASALT_QUERY_TYPE_DECIMAL ? dname : basalt_qtype_phys_name(d));
            } else
                snprintf(msg, sizeof msg, "Could not cast value of type %s to %s: out of range",
                         sname, dname);
            if (failed(st, x, i, &rs, msg))
                return rs;
            continue;
        }
        if (d == BASALT_QUERY_TYPE_DECIMAL)
            ((qi128 *)o)[i] = r;
        else
            store_int(o, d, i, r);
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------------- to text */

static basalt_status cast_to_string(const struct qstep *st, struct qexec *x)
{
    const void *a = A0.data;
    struct qstr *o = OUT.dbuf;
    OUT.valid = A0.valid;
    OUT.data = o;
    char buf[128];
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i)) {
            o[i].ptr = "";
            o[i].len = 0;
            continue;
        }
        size_t len;
        switch (st->in_type.id) {
        case BASALT_QUERY_TYPE_STRING: case BASALT_QUERY_TYPE_BINARY:
            o[i] = ((const struct qstr *)a)[i];
            continue;
        case BASALT_QUERY_TYPE_BOOL: len = (size_t)snprintf(buf, sizeof buf, qbit(a, i) ? "true" : "false"); break;
        default:
            len = basalt_qformat_value(st->in_type,
                                       (const uint8_t *)a + (size_t)i * (size_t)basalt_qtype_width(st->in_type),
                                       buf, sizeof buf);
        }
        char *p = basalt_qstr_alloc(x, len);
        if (!p)
            return BASALT_NOMEM;
        memcpy(p, buf, len);
        o[i].ptr = p;
        o[i].len = (int64_t)len;
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------------- from text */

static basalt_status cast_from_string(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A0.data;
    void *o = OUT.dbuf;
    enum basalt_query_type_id d = st->type.id;
    own_valid(x, st);
    OUT.data = o;
    if (d == BASALT_QUERY_TYPE_BOOL)
        memset(o, 0, QWORDS * 8);
    basalt_status rs = BASALT_OK;
    char dname[48];
    basalt_query_type_name(st->type, dname, sizeof dname);
    for (int i = 0; i < x->n; i++) {
        if (!qbit(OUT.vbuf, i))
            continue;
        const char *s = a[i].ptr;
        size_t n = (size_t)a[i].len;
        bool ok = true;
        if (basalt_qtype_is_int(d)) {
            int64_t v;
            qi128 lo, hi;
            int_range(d, &lo, &hi);
            ok = basalt_qparse_int(s, n, &v) && v >= lo && v <= hi;
            if (ok)
                store_int(o, d, i, v);
            else if (d == BASALT_QUERY_TYPE_UINT64) {
                ok = false;
            }
        } else if (d == BASALT_QUERY_TYPE_DOUBLE || d == BASALT_QUERY_TYPE_FLOAT) {
            double v;
            ok = basalt_qparse_double(s, n, &v);
            if (d == BASALT_QUERY_TYPE_FLOAT)
                ((float *)o)[i] = (float)v;
            else
                ((double *)o)[i] = v;
        } else if (d == BASALT_QUERY_TYPE_DECIMAL) {
            ok = basalt_qparse_decimal(s, n, st->type.precision, st->type.scale, &((qi128 *)o)[i]);
        } else if (d == BASALT_QUERY_TYPE_DATE) {
            ok = basalt_qparse_date(s, n, &((int32_t *)o)[i]);
        } else if (d == BASALT_QUERY_TYPE_TIMESTAMP) {
            int64_t *v = &((int64_t *)o)[i];
            ok = basalt_qparse_timestamp(s, n, st->type.nanos, v);
            if (ok && st->type.coarse) /* read in us, rounded as DuckDB */
                *v = basalt_qround_div(*v, 1000000 / basalt_qts_per_second(st->type));
        } else if (d == BASALT_QUERY_TYPE_TIME) {
            ok = basalt_qparse_time(s, n, &((int64_t *)o)[i]);
            if (!ok) {
                char msg[256];
                snprintf(msg, sizeof msg,
                         "time field value out of range: \"%.*s\", expected format is "
                         "([YYYY-MM-DD ]HH:MM:SS[.MS])",
                         (int)(n > 100 ? 100 : n), s);
                if (failed(st, x, i, &rs, msg))
                    return rs;
                continue;
            }
        } else if (d == BASALT_QUERY_TYPE_BOOL) {
            if ((n == 4 && strncasecmp(s, "true", 4) == 0) || (n == 1 && (s[0] == 't' || s[0] == 'T' || s[0] == '1')))
                qbit_set(o, i, true);
            else if (!((n == 5 && strncasecmp(s, "false", 5) == 0) ||
                       (n == 1 && (s[0] == 'f' || s[0] == 'F' || s[0] == '0'))))
                ok = false;
        } else if (d == BASALT_QUERY_TYPE_BINARY || d == BASALT_QUERY_TYPE_STRING) {
            ((struct qstr *)o)[i] = a[i];
        }
        if (!ok) {
            char msg[256];
            snprintf(msg, sizeof msg, "Could not convert string '%.*s' to %s",
                     (int)(n > 100 ? 100 : n), s,
                     basalt_qtype_is_numeric(d) && d != BASALT_QUERY_TYPE_DECIMAL ? basalt_qtype_phys_name(d) : dname);
            if (failed(st, x, i, &rs, msg))
                return rs;
        }
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------------- temporal */

/* Ticks of a second of a DATE, TIMESTAMP or TIME column, and of a day. */
static int64_t per_second(struct basalt_query_type t)
{
    return t.id == BASALT_QUERY_TYPE_TIMESTAMP ? basalt_qts_per_second(t) : 1000000;
}

/* DATE, TIMESTAMP of any unit and TIME among themselves: a DATE is its
 * midnight, a TIMESTAMP's time of day is its TIME; a finer unit multiplies
 * (and can overflow), a coarser one divides, rounding half away from zero
 * into seconds or milliseconds as DuckDB does and down otherwise. */
static basalt_status cast_temporal(const struct qstep *st, struct qexec *x)
{
    enum basalt_query_type_id s = st->in_type.id, d = st->type.id;
    int n = x->n;
    OUT.valid = A0.valid;
    OUT.data = OUT.dbuf;
    int64_t from = per_second(st->in_type), to = per_second(st->type);
    if (s == BASALT_QUERY_TYPE_DATE) { /* to TIMESTAMP */
        const int32_t *a = A0.data;
        int64_t *o = OUT.dbuf, f = 86400 * to;
        for (int i = 0; i < n; i++)
            o[i] = a[i] * f;
        return BASALT_OK;
    }
    const int64_t *a = A0.data;
    int64_t per_day = 86400 * from;
    if (d == BASALT_QUERY_TYPE_DATE) {
        int32_t *o = OUT.dbuf;
        for (int i = 0; i < n; i++)
            o[i] = (int32_t)basalt_qfloordiv(a[i], per_day);
        return BASALT_OK;
    }
    int64_t *o = OUT.dbuf;
    if (d == BASALT_QUERY_TYPE_TIME) {
        for (int i = 0; i < n; i++) {
            int64_t t = a[i] - basalt_qfloordiv(a[i], per_day) * per_day;
            o[i] = from >= 1000000 ? t / (from / 1000000) : t * (1000000 / from);
        }
        return BASALT_OK;
    }
    if (from == to)
        memcpy(o, a, 8 * (size_t)n);
    else if (to > from) {
        own_valid(x, st);
        basalt_status rs = BASALT_OK;
        char msg[80], name[48];
        snprintf(msg, sizeof msg, "timestamp out of range for %s",
                 basalt_query_type_name(st->type, name, sizeof name));
        for (int i = 0; i < n; i++)
            if (__builtin_mul_overflow(a[i], to / from, &o[i]) && qbit(OUT.vbuf, i) &&
                failed(st, x, i, &rs, msg))
                return rs;
    } else if (st->type.coarse)
        for (int i = 0; i < n; i++)
            o[i] = basalt_qround_div(a[i], from / to);
    else
        for (int i = 0; i < n; i++)
            o[i] = basalt_qfloordiv(a[i], from / to);
    return BASALT_OK;
}

/* A column of type NULL (`SELECT NULL` under a set operation, say) as any
 * type: every row NULL. A constant NULL is folded by the builder. */
static basalt_status cast_from_null(const struct qstep *st, struct qexec *x)
{
    memset(OUT.vbuf, 0, QWORDS * 8);
    OUT.valid = OUT.vbuf;
    OUT.data = OUT.dbuf;
    return BASALT_OK;
}

bool basalt_qk_cast_select(struct qstep *st, struct basalt_arena *arena)
{
    enum basalt_query_type_id s = st->in_type.id, d = st->type.id;
    st->kname = "cast";
    if (s == BASALT_QUERY_TYPE_LIST || d == BASALT_QUERY_TYPE_LIST) {
        if (s == BASALT_QUERY_TYPE_NULL) {
            st->fn = cast_from_null;
            st->kname = "cast_from_null";
            return true;
        }
        return basalt_qk_list_cast_select(st, arena);
    }
    if (s == BASALT_QUERY_TYPE_NULL) {
        st->fn = cast_from_null;
        st->kname = "cast_from_null";
        return true;
    }
    if (d == BASALT_QUERY_TYPE_STRING) {
        st->fn = cast_to_string;
        st->kname = "cast_to_varchar";
        return true;
    }
    if (s == BASALT_QUERY_TYPE_STRING || (s == BASALT_QUERY_TYPE_BINARY && d == BASALT_QUERY_TYPE_STRING)) {
        st->fn = cast_from_string;
        st->kname = "cast_from_varchar";
        return true;
    }
    if ((basalt_qtype_is_numeric(s) || s == BASALT_QUERY_TYPE_BOOL) &&
        (basalt_qtype_is_numeric(d) || d == BASALT_QUERY_TYPE_BOOL)) {
        st->fn = cast_numeric;
        st->kname = "cast_numeric";
        return true;
    }
    if ((s == BASALT_QUERY_TYPE_DATE || s == BASALT_QUERY_TYPE_TIMESTAMP ||
         s == BASALT_QUERY_TYPE_TIME) &&
        (d == BASALT_QUERY_TYPE_DATE || d == BASALT_QUERY_TYPE_TIMESTAMP ||
         d == BASALT_QUERY_TYPE_TIME)) {
        st->fn = cast_temporal;
        st->kname = "cast_temporal";
        return true;
    }
    return false;
}
