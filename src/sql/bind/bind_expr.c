/* Lowering SQL expressions onto a plan node: names resolve through the
 * scope to gids and gids to the node's columns; literals take DuckDB's
 * types; a string literal compared with (or combined with) a typed value is
 * cast to that type, as DuckDB's string literals are; uncorrelated
 * subqueries run once and become constants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"

static basalt_status lower(struct blower *L, const struct basalt_sql_expr *e,
                           struct basalt_qexpr **out, struct basalt_error *err);

basalt_status basalt_sql_type_of(struct binder *B, const struct basalt_sql_type *t,
                                 struct basalt_query_type *out, struct basalt_error *err)
{
    switch (t->id) {
    case BASALT_SQL_TYPE_BOOLEAN: *out = basalt_query_type_make(BASALT_QUERY_TYPE_BOOL); break;
    case BASALT_SQL_TYPE_TINYINT: *out = basalt_query_type_make(BASALT_QUERY_TYPE_INT8); break;
    case BASALT_SQL_TYPE_SMALLINT: *out = basalt_query_type_make(BASALT_QUERY_TYPE_INT16); break;
    case BASALT_SQL_TYPE_INTEGER: *out = basalt_query_type_make(BASALT_QUERY_TYPE_INT32); break;
    case BASALT_SQL_TYPE_BIGINT: *out = basalt_query_type_make(BASALT_QUERY_TYPE_INT64); break;
    case BASALT_SQL_TYPE_UTINYINT: *out = basalt_query_type_make(BASALT_QUERY_TYPE_UINT8); break;
    case BASALT_SQL_TYPE_USMALLINT: *out = basalt_query_type_make(BASALT_QUERY_TYPE_UINT16); break;
    case BASALT_SQL_TYPE_UINTEGER: *out = basalt_query_type_make(BASALT_QUERY_TYPE_UINT32); break;
    case BASALT_SQL_TYPE_UBIGINT: *out = basalt_query_type_make(BASALT_QUERY_TYPE_UINT64); break;
    case BASALT_SQL_TYPE_FLOAT: *out = basalt_query_type_make(BASALT_QUERY_TYPE_FLOAT); break;
    case BASALT_SQL_TYPE_DOUBLE: *out = basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE); break;
    case BASALT_SQL_TYPE_DECIMAL: {
        int p = t->n_params >= 1 ? (int)t->params[0] : 18;
        int s = t->n_params >= 2 ? (int)t->params[1] : (t->n_params == 1 ? 0 : 3);
        if (p < 1 || p > 38 || s < 0 || s > p)
            return basalt_sql_err(B, BASALT_INVALID_ARG, t->pos, err,
                                  "DECIMAL(%d,%d) is out of range", p, s);
        *out = basalt_query_type_decimal(p, s);
        break;
    }
    case BASALT_SQL_TYPE_VARCHAR: *out = basalt_query_type_make(BASALT_QUERY_TYPE_STRING); break;
    case BASALT_SQL_TYPE_BLOB: *out = basalt_query_type_make(BASALT_QUERY_TYPE_BINARY); break;
    case BASALT_SQL_TYPE_DATE: *out = basalt_query_type_make(BASALT_QUERY_TYPE_DATE); break;
    case BASALT_SQL_TYPE_TIMESTAMP: *out = basalt_query_type_timestamp(false, false); break;
    case BASALT_SQL_TYPE_TIMESTAMP_NS: *out = basalt_query_type_timestamp(true, false); break;
    case BASALT_SQL_TYPE_TIMESTAMPTZ: *out = basalt_query_type_timestamp(false, true); break;
    case BASALT_SQL_TYPE_TIMESTAMP_S:
        *out = basalt_query_type_timestamp_coarse(BASALT_QUERY_TS_SECONDS);
        break;
    case BASALT_SQL_TYPE_TIMESTAMP_MS:
        *out = basalt_query_type_timestamp_coarse(BASALT_QUERY_TS_MILLIS);
        break;
    case BASALT_SQL_TYPE_TIME: *out = basalt_query_type_make(BASALT_QUERY_TYPE_TIME); break;
    case BASALT_SQL_TYPE_INTERVAL: *out = basalt_query_type_make(BASALT_QUERY_TYPE_INTERVAL); break;
    default:
        return basalt_sql_err(B, BASALT_UNSUPPORTED, t->pos, err, "type %s is not supported",
                              t->name ? t->name : "?");
    }
    if (t->list)
        *out = basalt_query_type_list(*out);
    return BASALT_OK;
}

/* DuckDB's type of an integer literal: INTEGER when it fits, else BIGINT,
 * else a DECIMAL(38,0) (DuckDB's HUGEINT). */
static basalt_status lower_integer(struct blower *L, const struct basalt_sql_expr *e,
                                   struct basalt_qexpr **out, struct basalt_error *err)
{
    if (e->u.lit.fits) {
        int64_t v = e->u.lit.i64;
        enum basalt_query_type_id id =
            v >= INT32_MIN && v <= INT32_MAX ? BASALT_QUERY_TYPE_INT32 : BASALT_QUERY_TYPE_INT64;
        return basalt_qexpr_int(L->b, id, v, out, err);
    }
    struct basalt_qexpr *s;
    basalt_status st = basalt_qexpr_string(L->b, e->u.lit.text, strlen(e->u.lit.text), &s, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_cast(L->b, s, basalt_query_type_decimal(38, 0), false, out, err);
    return st;
}

/* 1.50 is DECIMAL(3,2) in DuckDB; 1e3 and numbers too long for a decimal
 * are DOUBLE. */
static basalt_status lower_number(struct blower *L, const struct basalt_sql_expr *e,
                                  struct basalt_qexpr **out, struct basalt_error *err)
{
    const char *t = e->u.lit.text;
    const char *dot = strchr(t, '.');
    bool expo = strpbrk(t, "eE") != NULL;
    struct basalt_qexpr *s;
    basalt_status st = basalt_qexpr_string(L->b, t, strlen(t), &s, err);
    if (st != BASALT_OK)
        return st;
    if (dot != NULL && !expo) {
        int int_digits = 0, frac = 0;
        bool lead = true;
        for (const char *p = t; p < dot; p++) {
            if (*p == '0' && lead)
                continue;
            lead = false;
            int_digits++;
        }
        for (const char *p = dot + 1; *p; p++)
            frac++;
        int prec = int_digits + frac;
        if (prec < frac + 1)
            prec = frac + 1;
        if (prec <= 38)
            return basalt_qexpr_cast(L->b, s, basalt_query_type_decimal(prec, frac), false, out,
                                     err);
    }
    return basalt_qexpr_cast(L->b, s, basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE), false,
                             out, err);
}

/* INTERVAL 3 DAY, INTERVAL '3' MONTH, INTERVAL '1 day 2 hours'. */
static bool unit_of(const char *w, enum basalt_sql_interval_unit *u)
{
    static const struct {
        const char *name;
        enum basalt_sql_interval_unit unit;
    } units[] = {{"year", BASALT_SQL_UNIT_YEAR},       {"quarter", BASALT_SQL_UNIT_QUARTER},
                 {"month", BASALT_SQL_UNIT_MONTH},     {"week", BASALT_SQL_UNIT_WEEK},
                 {"day", BASALT_SQL_UNIT_DAY},         {"hour", BASALT_SQL_UNIT_HOUR},
                 {"minute", BASALT_SQL_UNIT_MINUTE},   {"second", BASALT_SQL_UNIT_SECOND},
                 {"millisecond", BASALT_SQL_UNIT_MILLISECOND},
                 {"microsecond", BASALT_SQL_UNIT_MICROSECOND}};
    size_t n = strlen(w);
    if (n > 1 && (w[n - 1] == 's' || w[n - 1] == 'S'))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && strncasecmp(w, units[i].name, n) == 0) {
            *u = units[i].unit;
            return true;
        }
    return false;
}

static void add_unit(struct basalt_query_value *v, enum basalt_sql_interval_unit u, int64_t n)
{
    switch (u) {
    case BASALT_SQL_UNIT_YEAR: v->v.interval.months += (int32_t)(12 * n); break;
    case BASALT_SQL_UNIT_QUARTER: v->v.interval.months += (int32_t)(3 * n); break;
    case BASALT_SQL_UNIT_MONTH: v->v.interval.months += (int32_t)n; break;
    case BASALT_SQL_UNIT_WEEK: v->v.interval.days += (int32_t)(7 * n); break;
    case BASALT_SQL_UNIT_DAY: v->v.interval.days += (int32_t)n; break;
    case BASALT_SQL_UNIT_HOUR: v->v.interval.nanos += n * 3600000000000LL; break;
    case BASALT_SQL_UNIT_MINUTE: v->v.interval.nanos += n * 60000000000LL; break;
    case BASALT_SQL_UNIT_SECOND: v->v.interval.nanos += n * 1000000000LL; break;
    case BASALT_SQL_UNIT_MILLISECOND: v->v.interval.nanos += n * 1000000LL; break;
    case BASALT_SQL_UNIT_MICROSECOND: v->v.interval.nanos += n * 1000LL; break;
    default: break;
    }
}

/* INTERVAL (expr) UNIT, as DuckDB rewrites it: the value taken as a DOUBLE,
 * truncated and cast to INTEGER (month and day units) or BIGINT (hours,
 * minutes, microseconds) for to_<unit>, or as it is for to_seconds and
 * to_milliseconds. */
static basalt_status lower_interval_of(struct blower *L, const struct basalt_sql_expr *e,
                                       struct basalt_qexpr **out, struct basalt_error *err)
{
    static const struct {
        const char *fn;
        enum basalt_query_type_id id; /* what the truncated value is cast to; NULL: DOUBLE */
    } by_unit[] = {
        [BASALT_SQL_UNIT_YEAR] = {"to_years", BASALT_QUERY_TYPE_INT32},
        [BASALT_SQL_UNIT_QUARTER] = {"to_quarters", BASALT_QUERY_TYPE_INT32},
        [BASALT_SQL_UNIT_MONTH] = {"to_months", BASALT_QUERY_TYPE_INT32},
        [BASALT_SQL_UNIT_WEEK] = {"to_weeks", BASALT_QUERY_TYPE_INT32},
        [BASALT_SQL_UNIT_DAY] = {"to_days", BASALT_QUERY_TYPE_INT32},
        [BASALT_SQL_UNIT_HOUR] = {"to_hours", BASALT_QUERY_TYPE_INT64},
        [BASALT_SQL_UNIT_MINUTE] = {"to_minutes", BASALT_QUERY_TYPE_INT64},
        [BASALT_SQL_UNIT_SECOND] = {"to_seconds", BASALT_QUERY_TYPE_NULL},
        [BASALT_SQL_UNIT_MILLISECOND] = {"to_milliseconds", BASALT_QUERY_TYPE_NULL},
        [BASALT_SQL_UNIT_MICROSECOND] = {"to_microseconds", BASALT_QUERY_TYPE_INT64},
    };
    enum basalt_sql_interval_unit u = e->u.interval.unit;
    if (u <= BASALT_SQL_UNIT_NONE || (size_t)u >= sizeof by_unit / sizeof by_unit[0] ||
        !by_unit[u].fn)
        return basalt_sql_err(L->B, BASALT_UNSUPPORTED, e->pos, err,
                              "INTERVAL (expression) needs a unit (INTERVAL (n) DAY)");
    struct basalt_qexpr *value = NULL, *as_double = NULL, *whole = NULL, *arg = NULL;
    basalt_status st = lower(L, e->u.interval.value, &value, err);
    basalt_qexpr_builder_set_position(L->b, e->pos);
    if (st == BASALT_OK)
        st = basalt_qexpr_cast(L->b, value, basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE),
                               false, &as_double, err);
    arg = as_double;
    if (st == BASALT_OK && by_unit[u].id != BASALT_QUERY_TYPE_NULL) {
        st = basalt_qexpr_call(L->b, "trunc", &as_double, 1, &whole, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_cast(L->b, whole, basalt_query_type_make(by_unit[u].id), false, &arg,
                                   err);
    }
    if (st == BASALT_OK)
        st = basalt_qexpr_call(L->b, by_unit[u].fn, &arg, 1, out, err);
    return st;
}

static basalt_status lower_interval(struct blower *L, const struct basalt_sql_expr *e,
                                    struct basalt_qexpr **out, struct basalt_error *err)
{
    const struct basalt_sql_expr *val = e->u.interval.value;
    if (val->kind != BASALT_SQL_EXPR_STRING && val->kind != BASALT_SQL_EXPR_INTEGER)
        return lower_interval_of(L, e, out, err);
    struct basalt_query_value v;
    memset(&v, 0, sizeof v);
    v.type = basalt_query_type_make(BASALT_QUERY_TYPE_INTERVAL);
    const char *p = val->u.lit.text;
    bool any = false;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char *end;
        long long n = strtoll(p, &end, 10);
        if (end == p)
            return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                                  "invalid interval '%s'", val->u.lit.text);
        p = end;
        while (*p == ' ')
            p++;
        char word[32];
        size_t k = 0;
        while (*p && *p != ' ' && k < sizeof word - 1)
            word[k++] = *p++;
        word[k] = '\0';
        enum basalt_sql_interval_unit u = e->u.interval.unit;
        if (k > 0 && !unit_of(word, &u))
            return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                                  "invalid interval unit '%s'", word);
        if (u == BASALT_SQL_UNIT_NONE)
            return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                                  "interval '%s' has no unit", val->u.lit.text);
        add_unit(&v, u, n);
        any = true;
    }
    if (!any)
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err, "empty interval");
    return basalt_qexpr_literal(L->b, &v, out, err);
}

static bool is_string_literal(const struct basalt_sql_expr *e)
{
    return e->kind == BASALT_SQL_EXPR_STRING;
}

/* DuckDB's string literals take the type of what they meet. */
static basalt_status adapt_literal(struct blower *L, const struct basalt_sql_expr *ea,
                                   struct basalt_qexpr **a, struct basalt_qexpr *other,
                                   struct basalt_error *err)
{
    struct basalt_query_type t = basalt_qexpr_type(other);
    if (!is_string_literal(ea) || t.id == BASALT_QUERY_TYPE_STRING ||
        t.id == BASALT_QUERY_TYPE_NULL)
        return BASALT_OK;
    return basalt_qexpr_cast(L->b, *a, t, false, a, err);
}

/* Both operands lowered; with `adapt`, a string literal takes the other
 * side's type. */
static basalt_status lower_operands(struct blower *L, const struct basalt_sql_expr *l,
                                    const struct basalt_sql_expr *r, bool adapt,
                                    struct basalt_qexpr **a, struct basalt_qexpr **b,
                                    struct basalt_error *err)
{
    basalt_status st = lower(L, l, a, err);
    if (st == BASALT_OK)
        st = lower(L, r, b, err);
    if (st == BASALT_OK && adapt)
        st = adapt_literal(L, l, a, *b, err);
    if (st == BASALT_OK && adapt)
        st = adapt_literal(L, r, b, *a, err);
    return st;
}

static basalt_status call2(struct blower *L, const char *name, const struct basalt_sql_expr *l,
                           const struct basalt_sql_expr *r, struct basalt_qexpr **out,
                           struct basalt_error *err)
{
    struct basalt_qexpr *a, *b;
    /* 'x' || 10 is 'x10': concatenation turns the other side into text,
     * never the literal into a number. */
    basalt_status st = lower_operands(L, l, r, strcmp(name, "||") != 0, &a, &b, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr *args[2] = {a, b};
    return basalt_qexpr_call(L->b, name, args, 2, out, err);
}

/* Whether v fits integer type t. */
static bool int_fits(int64_t v, enum basalt_query_type_id t)
{
    switch (t) {
    case BASALT_QUERY_TYPE_INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case BASALT_QUERY_TYPE_INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case BASALT_QUERY_TYPE_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case BASALT_QUERY_TYPE_INT64: return true;
    case BASALT_QUERY_TYPE_UINT8: return v >= 0 && v <= UINT8_MAX;
    case BASALT_QUERY_TYPE_UINT16: return v >= 0 && v <= UINT16_MAX;
    case BASALT_QUERY_TYPE_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case BASALT_QUERY_TYPE_UINT64: return v >= 0;
    default: return false;
    }
}

/* & | << >>: DuckDB defines them for pairs of one integer type, and an
 * integer literal that the other operand's type holds takes that type
 * (`3::TINYINT << 6` is TINYINT and overflows; `n << 27` stays INTEGER). */
static basalt_status bitwise_call(struct blower *L, const char *name, const struct basalt_sql_expr *l,
                                  const struct basalt_sql_expr *r, struct basalt_qexpr **out,
                                  struct basalt_error *err)
{
    struct basalt_qexpr *a, *b;
    basalt_status st = lower_operands(L, l, r, true, &a, &b, err);
    const struct basalt_sql_expr *side[2] = {l, r};
    struct basalt_qexpr **val[2] = {&a, &b};
    for (int k = 0; k < 2 && st == BASALT_OK; k++) {
        const struct basalt_sql_expr *lit = side[k];
        bool neg = lit->kind == BASALT_SQL_EXPR_UNARY && lit->u.unary.op == BASALT_SQL_UNARY_MINUS;
        if (neg)
            lit = lit->u.unary.arg;
        const struct basalt_sql_expr *other = side[1 - k];
        bool other_literal = other->kind == BASALT_SQL_EXPR_INTEGER ||
                             (other->kind == BASALT_SQL_EXPR_UNARY &&
                              other->u.unary.arg->kind == BASALT_SQL_EXPR_INTEGER);
        if (lit->kind != BASALT_SQL_EXPR_INTEGER || !lit->u.lit.fits || other_literal)
            continue;
        enum basalt_query_type_id t = basalt_qexpr_type(*val[1 - k]).id;
        if (int_fits(neg ? -lit->u.lit.i64 : lit->u.lit.i64, t))
            st = basalt_qexpr_cast(L->b, *val[k], basalt_qexpr_type(*val[1 - k]), false, val[k], err);
    }
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr *args[2] = {a, b};
    basalt_qexpr_builder_set_position(L->b, l->pos);
    return basalt_qexpr_call(L->b, name, args, 2, out, err);
}

/* DuckDB's other operators, each a function: ** and ^ are pow (DOUBLE),
 * & | << >> the bitwise functions, ^@ starts_with, ~ regexp_full_match
 * (!~ its negation), ~~ !~~ ~~* !~~* LIKE, NOT LIKE, ILIKE, NOT ILIKE. */
static basalt_status lower_operator(struct blower *L, const struct basalt_sql_expr *e,
                                    struct basalt_qexpr **out, struct basalt_error *err)
{
    static const struct {
        enum basalt_sql_binary_op op;
        const char *function;
        bool negated;
    } ops[] = {
        {BASALT_SQL_BINARY_POW, "pow", false},
        {BASALT_SQL_BINARY_CARET, "pow", false},
        {BASALT_SQL_BINARY_BIT_AND, "&", false},
        {BASALT_SQL_BINARY_BIT_OR, "|", false},
        {BASALT_SQL_BINARY_SHIFT_LEFT, "<<", false},
        {BASALT_SQL_BINARY_SHIFT_RIGHT, ">>", false},
        {BASALT_SQL_BINARY_STARTS_WITH, "starts_with", false},
        {BASALT_SQL_BINARY_REGEX, "regexp_full_match", false},
        {BASALT_SQL_BINARY_NOT_REGEX, "regexp_full_match", true},
        {BASALT_SQL_BINARY_LIKE, "like", false},
        {BASALT_SQL_BINARY_NOT_LIKE, "not_like", false},
        {BASALT_SQL_BINARY_ILIKE, "ilike", false},
        {BASALT_SQL_BINARY_NOT_ILIKE, "not_ilike", false},
    };
    size_t k = 0;
    while (k + 1 < sizeof ops / sizeof ops[0] && ops[k].op != e->u.binary.op)
        k++;
    struct basalt_qexpr *x;
    basalt_status st;
    if (e->u.binary.op >= BASALT_SQL_BINARY_BIT_AND && e->u.binary.op <= BASALT_SQL_BINARY_SHIFT_RIGHT)
        st = bitwise_call(L, ops[k].function, e->u.binary.left, e->u.binary.right, &x, err);
    else
        st = call2(L, ops[k].function, e->u.binary.left, e->u.binary.right, &x, err);
    if (st == BASALT_OK && ops[k].negated)
        return basalt_qexpr_not(L->b, x, out, err);
    *out = x;
    return st;
}

static basalt_status lower_binary(struct blower *L, const struct basalt_sql_expr *e,
                                  struct basalt_qexpr **out, struct basalt_error *err)
{
    static const char *const names[] = {"+", "-", "*", "/", "//", "%", "||", "=", "<>",
                                        "<", "<=", ">", ">="};
    enum basalt_sql_binary_op op = e->u.binary.op;
    if (op <= BASALT_SQL_BINARY_GE)
        return call2(L, names[op], e->u.binary.left, e->u.binary.right, out, err);
    if (op >= BASALT_SQL_BINARY_POW)
        return lower_operator(L, e, out, err);
    struct basalt_qexpr *a, *b;
    basalt_status st = lower(L, e->u.binary.left, &a, err);
    if (st == BASALT_OK)
        st = lower(L, e->u.binary.right, &b, err);
    if (st == BASALT_OK && (op == BASALT_SQL_BINARY_IS_DISTINCT || op == BASALT_SQL_BINARY_IS_NOT_DISTINCT)) {
        st = adapt_literal(L, e->u.binary.left, &a, b, err);
        if (st == BASALT_OK)
            st = adapt_literal(L, e->u.binary.right, &b, a, err);
    }
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr *args[2] = {a, b};
    switch (op) {
    case BASALT_SQL_BINARY_AND: return basalt_qexpr_and(L->b, args, 2, out, err);
    case BASALT_SQL_BINARY_OR: return basalt_qexpr_or(L->b, args, 2, out, err);
    case BASALT_SQL_BINARY_IS_DISTINCT: return basalt_qexpr_is_distinct(L->b, a, b, false, out, err);
    default: return basalt_qexpr_is_distinct(L->b, a, b, true, out, err);
    }
}

static basalt_status lower_is(struct blower *L, const struct basalt_sql_expr *e,
                              struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_qexpr *x;
    basalt_status st = lower(L, e->u.is.arg, &x, err);
    if (st != BASALT_OK)
        return st;
    if (e->u.is.what == BASALT_SQL_IS_NULL)
        return basalt_qexpr_is_null(L->b, x, e->u.is.negated, out, err);
    /* x IS TRUE: x IS NOT DISTINCT FROM TRUE (never NULL). */
    struct basalt_qexpr *k;
    st = basalt_qexpr_bool(L->b, e->u.is.what == BASALT_SQL_IS_TRUE, &k, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_is_distinct(L->b, x, k, !e->u.is.negated, out, err);
    return st;
}

static basalt_status lower_list(struct blower *L, const struct basalt_sql_expr *const *items,
                                int n, struct basalt_qexpr *x, struct basalt_qexpr **list,
                                struct basalt_error *err)
{
    for (int i = 0; i < n; i++) {
        basalt_status st = lower(L, items[i], &list[i], err);
        if (st == BASALT_OK)
            st = adapt_literal(L, items[i], &list[i], x, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status lower_in_list(struct blower *L, const struct basalt_sql_expr *e,
                                   struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_qexpr *x;
    basalt_status st = lower(L, e->u.in_list.arg, &x, err);
    if (st != BASALT_OK)
        return st;
    int n = e->u.in_list.n_items;
    struct basalt_qexpr **list = basalt_calloc((size_t)n + 1, sizeof *list);
    if (list == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    st = lower_list(L, (const struct basalt_sql_expr *const *)e->u.in_list.items, n, x, list, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_in(L->b, x, list, n, e->u.in_list.negated, out, err);
    basalt_free(list);
    return st;
}

static basalt_status lower_between(struct blower *L, const struct basalt_sql_expr *e,
                                   struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_qexpr *x, *bounds[2];
    basalt_status st = lower(L, e->u.between.arg, &x, err);
    const struct basalt_sql_expr *be[2] = {e->u.between.low, e->u.between.high};
    if (st == BASALT_OK)
        st = lower_list(L, be, 2, x, bounds, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_between(L->b, x, bounds[0], bounds[1], e->u.between.negated, out, err);
    return st;
}

static basalt_status lower_like(struct blower *L, const struct basalt_sql_expr *e,
                                struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_qexpr *args[3];
    int n = 2;
    basalt_status st = lower(L, e->u.like.arg, &args[0], err);
    if (st == BASALT_OK)
        st = lower(L, e->u.like.pattern, &args[1], err);
    if (st == BASALT_OK && e->u.like.escape != NULL) {
        st = lower(L, e->u.like.escape, &args[2], err);
        n = 3;
    }
    if (st != BASALT_OK)
        return st;
    if (e->u.like.similar) {
        /* DuckDB's SIMILAR TO is regexp_full_match over the pattern as written */
        struct basalt_qexpr *m;
        if (n == 3)
            return basalt_sql_err(L->B, BASALT_UNSUPPORTED, e->pos, err,
                                  "Custom escape in SIMILAR TO is not supported");
        st = basalt_qexpr_call(L->b, "regexp_full_match", args, 2, &m, err);
        if (st == BASALT_OK && e->u.like.negated)
            return basalt_qexpr_not(L->b, m, out, err);
        *out = m;
        return st;
    }
    const char *name = e->u.like.ilike ? (e->u.like.negated ? "not_ilike" : "ilike")
                                       : (e->u.like.negated ? "not_like" : "like");
    return basalt_qexpr_call(L->b, name, args, n, out, err);
}

/* A WHEN condition that is not BOOLEAN is cast to it, as DuckDB does: an
 * integer or a number is true when not 0, a string by the cast's rules
 * ('true', 't', '1' ...; others fail). */
static basalt_status when_condition(struct blower *L, const struct basalt_sql_expr *w,
                                    struct basalt_qexpr **x, struct basalt_error *err)
{
    struct basalt_query_type t = basalt_qexpr_type(*x);
    if (t.id == BASALT_QUERY_TYPE_BOOL || t.id == BASALT_QUERY_TYPE_NULL)
        return BASALT_OK;
    basalt_qexpr_builder_set_position(L->b, w->pos);
    if (t.id == BASALT_QUERY_TYPE_FLOAT || t.id == BASALT_QUERY_TYPE_DOUBLE ||
        t.id == BASALT_QUERY_TYPE_DECIMAL) {
        struct basalt_qexpr *zero, *pair[2];
        basalt_status st = basalt_qexpr_int(L->b, BASALT_QUERY_TYPE_INT32, 0, &zero, err);
        pair[0] = *x;
        pair[1] = zero;
        return st == BASALT_OK ? basalt_qexpr_call(L->b, "<>", pair, 2, x, err) : st;
    }
    return basalt_qexpr_cast(L->b, *x, basalt_query_type_make(BASALT_QUERY_TYPE_BOOL), false, x, err);
}

static basalt_status lower_case(struct blower *L, const struct basalt_sql_expr *e,
                                struct basalt_qexpr **out, struct basalt_error *err)
{
    int n = e->u.case_.n_when;
    struct basalt_qexpr **whens = basalt_calloc((size_t)n + 1, sizeof *whens);
    struct basalt_qexpr **thens = basalt_calloc((size_t)n + 1, sizeof *thens);
    basalt_status st = whens && thens ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        if (e->u.case_.operand != NULL)
            st = call2(L, "=", e->u.case_.operand, e->u.case_.when[i], &whens[i], err);
        else
            st = lower(L, e->u.case_.when[i], &whens[i], err);
        if (st == BASALT_OK)
            st = when_condition(L, e->u.case_.when[i], &whens[i], err);
        if (st == BASALT_OK)
            st = lower(L, e->u.case_.then[i], &thens[i], err);
    }
    struct basalt_qexpr *otherwise = NULL;
    if (st == BASALT_OK && e->u.case_.otherwise != NULL)
        st = lower(L, e->u.case_.otherwise, &otherwise, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_case(L->b, whens, thens, n, otherwise, out, err);
    basalt_free(whens);
    basalt_free(thens);
    return st;
}

static basalt_status lower_function(struct blower *L, const struct basalt_sql_expr *e,
                                    struct basalt_qexpr **out, struct basalt_error *err)
{
    const struct basalt_sql_call *c = &e->u.call;
    const char *name = c->name.name;
    if (c->over != NULL)
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "window functions are not allowed in %s", L->clause);
    if (basalt_sql_is_aggregate(name))
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "aggregate function calls are not allowed in %s", L->clause);
    /* the select list's unnest calls are columns by now (bind_unnest.c) */
    if (strcmp(name, "unnest") == 0)
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "UNNEST not supported here");
    if (basalt_sql_is_grouping_call(e)) /* a column of a grouped result alone */
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "GROUPING() is allowed only in the select list, HAVING, "
                              "QUALIFY and ORDER BY of a query with GROUP BY (not in %s)",
                              L->clause);
    /* bind_star.c expands COLUMNS(...) in the select list, WHERE and
     * ORDER BY; elsewhere it is DuckDB's error */
    if (strcmp(name, "columns") == 0 && !c->name.quoted)
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "STAR expression is not supported here");
    int n = c->n_args;
    struct basalt_qexpr **args = basalt_calloc((size_t)n + 1, sizeof *args);
    if (args == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = lower(L, c->args[i], &args[i], err);
    if (st == BASALT_OK) {
        basalt_qexpr_builder_set_position(L->b, e->pos);
        if (strcmp(name, "coalesce") == 0)
            st = basalt_qexpr_coalesce(L->b, args, n, out, err);
        else if (strcmp(name, "nullif") == 0 && n == 2)
            st = basalt_qexpr_nullif(L->b, args[0], args[1], out, err);
        else if (strcmp(name, "ifnull") == 0 && n == 2)
            st = basalt_qexpr_coalesce(L->b, args, 2, out, err);
        else if (strcmp(name, "typeof") == 0 && n == 1) {
            char t[96];
            basalt_query_type_name(basalt_qexpr_type(args[0]), t, sizeof t);
            st = basalt_qexpr_string(L->b, t, strlen(t), out, err);
        }
        else
            st = basalt_qexpr_call(L->b, name, args, n, out, err);
    }
    basalt_free(args);
    return st;
}

/* An uncorrelated subquery runs once; its single value is a constant. */
static basalt_status lower_subquery(struct blower *L, const struct basalt_sql_expr *e,
                                    struct basalt_qexpr **out, struct basalt_error *err)
{
    if (basalt_sql_exists_always(L->B, e))
        return basalt_qexpr_bool(L->b, true, out, err);
    struct basalt_arrow_batches rows;
    basalt_arrow_batches_init(&rows);
    basalt_status st = basalt_sql_run_now(L->B, e->u.subquery, &rows, err);
    if (st != BASALT_OK)
        return st;
    int64_t total = 0;
    for (int64_t i = 0; i < rows.n; i++)
        total += rows.arrays[i].length;
    if (e->kind == BASALT_SQL_EXPR_EXISTS) {
        basalt_arrow_batches_reset(&rows);
        return basalt_qexpr_bool(L->b, total > 0, out, err);
    }
    if (rows.schema.n_children != 1) {
        int n_columns = (int)rows.schema.n_children;
        basalt_arrow_batches_reset(&rows);
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "Subquery returns %d columns - expected 1", n_columns);
    }
    if (total > 1) {
        basalt_arrow_batches_reset(&rows);
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                              "More than one row returned by a subquery used as an expression - "
                              "scalar subqueries can only return a single row.");
    }
    struct basalt_query_type t;
    st = basalt_query_type_from_format(rows.schema.children[0]->format, &t, NULL);
    if (st != BASALT_OK) {
        /* (a list: a constant holds no list yet) */
        char what[64];
        snprintf(what, sizeof what, "%s", rows.schema.children[0]->format);
        basalt_arrow_batches_reset(&rows);
        return basalt_sql_err(L->B, BASALT_UNSUPPORTED, e->pos, err,
                              "a scalar subquery of Arrow type '%s' is not supported yet", what);
    }
    struct basalt_query_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.is_null = true;
    if (st == BASALT_OK && total == 1) {
        const struct ArrowArray *b = NULL;
        for (int64_t i = 0; i < rows.n; i++)
            if (rows.arrays[i].length > 0)
                b = &rows.arrays[i];
        const struct ArrowArray *col = b->children[0];
        int64_t k = col->offset + b->offset;
        const uint8_t *valid = col->buffers[0];
        v.is_null = valid != NULL && !((valid[k >> 3] >> (k & 7)) & 1);
        if (!v.is_null)
            st = basalt_sql_value_at(col, t, k, &v, err);
    }
    if (st == BASALT_OK)
        st = basalt_qexpr_literal(L->b, &v, out, err); /* copies strings */
    basalt_arrow_batches_reset(&rows);
    return st;
}

basalt_status basalt_sql_zero_if_null(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                                      struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_query_value zero;
    memset(&zero, 0, sizeof zero);
    zero.type = basalt_qexpr_type(x);
    if (zero.type.id == BASALT_QUERY_TYPE_STRING || zero.type.id == BASALT_QUERY_TYPE_BINARY)
        zero.v.str.ptr = "";
    struct basalt_qexpr *pair[2] = {x, NULL};
    basalt_status st = basalt_qexpr_literal(b, &zero, &pair[1], err);
    if (st == BASALT_OK)
        st = basalt_qexpr_coalesce(b, pair, 2, out, err);
    return st;
}

/* A correlated subquery of one value a row, read as `value`: CASE WHEN
 * its key's row count > 1 THEN DuckDB's error ELSE the value END, so that
 * only an outer row that meets several rows fails. */
static basalt_status at_most_one(struct blower *L, const struct basalt_sql_expr *e,
                                 int32_t rows_gid, struct basalt_qexpr *value,
                                 struct basalt_qexpr **out, struct basalt_error *err)
{
    int r = 0;
    while (r < L->target->n && L->target->gids[r] != rows_gid)
        r++;
    if (r == L->target->n)
        return basalt_sql_err(L->B, BASALT_UNSUPPORTED, e->pos, err,
                              "this correlated subquery (one value, no aggregate) is not "
                              "supported here: only where its rows are read before grouping");
    struct basalt_qexpr *rows, *one, *many, *fail;
    basalt_status st = basalt_qexpr_column(L->b, r, &rows, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_int(L->b, BASALT_QUERY_TYPE_INT64, 1, &one, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_call(L->b, ">", (struct basalt_qexpr *[]){rows, one}, 2, &many, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_error(L->b,
                                "More than one row returned by a subquery used as an expression - "
                                "scalar subqueries can only return a single row.",
                                basalt_qexpr_type(value), &fail, err);
    return st == BASALT_OK ? basalt_qexpr_case(L->b, &many, &fail, 1, value, out, err) : st;
}

/* Column k standing for a correlated subquery; a COUNT's NULL (no row with
 * the key) is 0; one value a row is checked to be one. */
static basalt_status repl_column(struct blower *L, const struct basalt_sql_expr *e, int k,
                                 const struct brepl *r, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    struct basalt_qexpr *c;
    bool zero_if_null = r->zero_if_null;
    basalt_status st = basalt_qexpr_column(L->b, k, &c, err);
    for (int i = 0; st == BASALT_OK && i < L->B->n_many; i++)
        if (L->B->many[i].value_gid == L->target->gids[k])
            return at_most_one(L, e, L->B->many[i].rows_gid, c, out, err);
    /* an item reading the outer query too: its value over no rows, in the
     * column's type, computed from this row's outer columns */
    for (int j = 0; st == BASALT_OK && r->empty_expr != NULL && j < L->target->n; j++)
        if (L->target->gids[j] == r->key_gid) {
            struct basalt_qexpr *key, *unmatched, *none;
            st = basalt_qexpr_column(L->b, j, &key, err);
            if (st == BASALT_OK)
                st = basalt_qexpr_is_null(L->b, key, false, &unmatched, err);
            if (st == BASALT_OK)
                st = lower(L, r->empty_expr, &none, err);
            if (st == BASALT_OK)
                st = basalt_qexpr_cast(L->b, none, basalt_qexpr_type(c), false, &none, err);
            return st == BASALT_OK ? basalt_qexpr_case(L->b, &unmatched, &none, 1, c, out, err) : st;
        }
    /* an aggregate's value over no rows where no group had the key */
    for (int j = 0; st == BASALT_OK && r->empty != NULL && j < L->target->n; j++)
        if (L->target->gids[j] == r->key_gid) {
            struct basalt_qexpr *key;
            st = basalt_qexpr_column(L->b, j, &key, err);
            return st == BASALT_OK ? basalt_sql_empty_or(L->b, key, r->empty, c, out, err) : st;
        }
    if (st != BASALT_OK || !zero_if_null) {
        *out = c;
        return st;
    }
    return basalt_sql_zero_if_null(L->b, c, out, err);
}

static basalt_status lower(struct blower *L, const struct basalt_sql_expr *e,
                           struct basalt_qexpr **out, struct basalt_error *err)
{
    *out = NULL;
    /* Correlated subqueries joined in are columns. */
    if (L->B->n_repl > 0 && (e->kind == BASALT_SQL_EXPR_SUBQUERY || e->kind == BASALT_SQL_EXPR_EXISTS)) {
        const char *text = basalt_sql_text(L->B, e);
        for (int i = 0; text != NULL && i < L->B->n_repl; i++)
            if (strcmp(L->B->repl[i].text, text) == 0)
                for (int k = 0; k < L->target->n; k++)
                    if (L->target->gids[k] == L->B->repl[i].gid)
                        return repl_column(L, e, k, &L->B->repl[i], out, err);
    }
    /* After aggregation, group keys and aggregates are columns. */
    if (L->n_repl > 0 && e->kind != BASALT_SQL_EXPR_INTEGER && e->kind != BASALT_SQL_EXPR_STRING &&
        e->kind != BASALT_SQL_EXPR_NUMBER) {
        const char *text = basalt_sql_text(L->B, e);
        if (text == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (int i = 0; i < L->n_repl; i++)
            if (strcmp(L->repl[i].text, text) == 0)
                for (int k = 0; k < L->target->n; k++)
                    if (L->target->gids[k] == L->repl[i].gid)
                        return basalt_qexpr_column(L->b, k, out, err);
    }
    basalt_qexpr_builder_set_position(L->b, e->pos);
    switch (e->kind) {
    case BASALT_SQL_EXPR_INTEGER: return lower_integer(L, e, out, err);
    case BASALT_SQL_EXPR_NUMBER: return lower_number(L, e, out, err);
    case BASALT_SQL_EXPR_STRING:
        return basalt_qexpr_string(L->b, e->u.lit.text, strlen(e->u.lit.text), out, err);
    case BASALT_SQL_EXPR_BOOL: return basalt_qexpr_bool(L->b, e->u.lit.b, out, err);
    case BASALT_SQL_EXPR_NULL:
        return basalt_qexpr_null(L->b, basalt_query_type_make(BASALT_QUERY_TYPE_NULL), out, err);
    case BASALT_SQL_EXPR_TYPED_LITERAL: {
        struct basalt_query_type t;
        struct basalt_qexpr *s;
        basalt_status st = basalt_sql_type_of(L->B, &e->u.typed.type, &t, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_string(L->b, e->u.typed.text, strlen(e->u.typed.text), &s, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_cast(L->b, s, t, false, out, err);
        return st;
    }
    case BASALT_SQL_EXPR_INTERVAL: return lower_interval(L, e, out, err);
    case BASALT_SQL_EXPR_COLUMN: {
        const struct bcol *c;
        basalt_status st = basalt_sql_resolve(L->B, L->scope, &e->u.column, e->pos, &c, err);
        if (st != BASALT_OK)
            return st;
        for (int k = 0; k < L->target->n; k++)
            if (L->target->gids[k] == c->gid)
                return basalt_qexpr_column(L->b, k, out, err);
        if (L->n_repl > 0)
            return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err,
                                  "column \"%s\" must appear in the GROUP BY clause or be used "
                                  "in an aggregate function",
                                  c->name);
        return basalt_sql_err(L->B, BASALT_INTERNAL, e->pos, err,
                              "column \"%s\" is not available here", c->name);
    }
    case BASALT_SQL_EXPR_STAR:
        return basalt_sql_err(L->B, BASALT_INVALID_ARG, e->pos, err, "* is not allowed here");
    case BASALT_SQL_EXPR_UNARY: {
        struct basalt_qexpr *x;
        basalt_status st = lower(L, e->u.unary.arg, &x, err);
        if (st != BASALT_OK || e->u.unary.op == BASALT_SQL_UNARY_PLUS) {
            *out = x;
            return st;
        }
        if (e->u.unary.op == BASALT_SQL_UNARY_NOT)
            return basalt_qexpr_not(L->b, x, out, err);
        basalt_qexpr_builder_set_position(L->b, e->pos);
        return basalt_qexpr_call(L->b, e->u.unary.op == BASALT_SQL_UNARY_BIT_NOT ? "~" : "-", &x, 1,
                                 out, err);
    }
    case BASALT_SQL_EXPR_BINARY: return lower_binary(L, e, out, err);
    case BASALT_SQL_EXPR_IS: return lower_is(L, e, out, err);
    case BASALT_SQL_EXPR_BETWEEN: return lower_between(L, e, out, err);
    case BASALT_SQL_EXPR_IN_LIST: return lower_in_list(L, e, out, err);
    case BASALT_SQL_EXPR_LIKE: return lower_like(L, e, out, err);
    case BASALT_SQL_EXPR_CASE: return lower_case(L, e, out, err);
    case BASALT_SQL_EXPR_CAST: {
        struct basalt_query_type t;
        struct basalt_qexpr *x;
        basalt_status st = basalt_sql_type_of(L->B, &e->u.cast.type, &t, err);
        if (st == BASALT_OK)
            st = lower(L, e->u.cast.arg, &x, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_cast(L->b, x, t, e->u.cast.try_cast, out, err);
        return st;
    }
    case BASALT_SQL_EXPR_EXTRACT: {
        struct basalt_qexpr *args[2];
        basalt_status st = basalt_qexpr_string(L->b, e->u.extract.part, strlen(e->u.extract.part),
                                               &args[0], err);
        if (st == BASALT_OK)
            st = lower(L, e->u.extract.arg, &args[1], err);
        if (st == BASALT_OK)
            st = basalt_qexpr_call(L->b, "date_part", args, 2, out, err);
        return st;
    }
    case BASALT_SQL_EXPR_FUNCTION: return lower_function(L, e, out, err);
    case BASALT_SQL_EXPR_SUBQUERY:
    case BASALT_SQL_EXPR_EXISTS: return lower_subquery(L, e, out, err);
    case BASALT_SQL_EXPR_IN_QUERY: {
        /* x IN (subquery): the subquery runs once into a list. */
        struct basalt_arrow_batches rows;
        basalt_arrow_batches_init(&rows);
        basalt_status st = basalt_sql_run_now(L->B, e->u.in_query.query, &rows, err);
        if (st == BASALT_OK)
            st = basalt_sql_in_rows(L, e, &rows, out, err);
        basalt_arrow_batches_reset(&rows);
        return st;
    }
    case BASALT_SQL_EXPR_LIST: {
        /* [a, b, c] is list_value(a, b, c) */
        int n = e->u.list.n_items;
        struct basalt_qexpr **items = basalt_calloc((size_t)n + 1, sizeof *items);
        if (items == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_status st = BASALT_OK;
        for (int i = 0; i < n && st == BASALT_OK; i++)
            st = lower(L, e->u.list.items[i], &items[i], err);
        basalt_qexpr_builder_set_position(L->b, e->pos);
        if (st == BASALT_OK)
            st = basalt_qexpr_call(L->b, "list_value", items, n, out, err);
        basalt_free(items);
        return st;
    }
    case BASALT_SQL_EXPR_LAMBDA:
        return basalt_sql_err(L->B, BASALT_UNSUPPORTED, e->pos, err,
                              "lambda expressions are only supported as the argument of COLUMNS");
    }
    return basalt_sql_err(L->B, BASALT_INTERNAL, e->pos, err, "unknown expression");
}

basalt_status basalt_sql_lower(struct blower *L, const struct basalt_sql_expr *e,
                               struct basalt_qexpr **out, struct basalt_error *err)
{
    return lower(L, e, out, err);
}
