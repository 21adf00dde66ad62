/* Projection of bound predicates onto partition specs: a table of
 * (transform, predicate) -> inclusive and strict projections written by hand
 * from the spec's scan-planning rules and the reference implementation's
 * projection tests (TestTruncatesProjection, TestDatesProjection,
 * TestTimestampsProjection, TestBucketingProjection, TestStartsWith), with
 * literals worked out in Python (datetime, an independent Murmur3). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_transform.h"
#include "test.h"

/* ------------------------------------------------------------- the table */

enum {
    F_I = 1, /* int */
    F_L,     /* long */
    F_D,     /* date */
    F_TS,    /* timestamp */
    F_S,     /* string */
    F_DEC,   /* decimal(9,2) */
    F_BIN,   /* binary */
    F_F,     /* double */
    F_TSN,   /* timestamp_ns */
};

static struct basalt_iceberg_field pt_fields[] = {
    {.id = F_I, .name = "i", .type = {.id = BASALT_ICEBERG_TYPE_INT}},
    {.id = F_L, .name = "l", .type = {.id = BASALT_ICEBERG_TYPE_LONG}},
    {.id = F_D, .name = "d", .type = {.id = BASALT_ICEBERG_TYPE_DATE}},
    {.id = F_TS, .name = "ts", .type = {.id = BASALT_ICEBERG_TYPE_TIMESTAMP}},
    {.id = F_S, .name = "s", .type = {.id = BASALT_ICEBERG_TYPE_STRING}},
    {.id = F_DEC,
     .name = "dec",
     .type = {.id = BASALT_ICEBERG_TYPE_DECIMAL, .precision = 9, .scale = 2}},
    {.id = F_BIN, .name = "bin", .type = {.id = BASALT_ICEBERG_TYPE_BINARY}},
    {.id = F_F, .name = "f", .type = {.id = BASALT_ICEBERG_TYPE_DOUBLE}},
    {.id = F_TSN, .name = "tsn", .type = {.id = BASALT_ICEBERG_TYPE_TIMESTAMP_NS}},
};

static struct basalt_iceberg_schema pt_schema = {
    .root = {.id = BASALT_ICEBERG_TYPE_STRUCT,
             .fields = pt_fields,
             .n_fields = sizeof pt_fields / sizeof pt_fields[0]}};

static const struct basalt_iceberg_type *field_type(int32_t id)
{
    return &pt_fields[id - 1].type;
}

/* A literal of the field's type: numbers (decimals unscaled) or text. */
static struct basalt_iceberg_value lit_of(int32_t field, int64_t n, const char *text)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = field_type(field)->id;
    switch (v.type) {
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        v.u.i32 = (int32_t)n;
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        v.scale = field_type(field)->scale;
        v.u.dec.lo = (uint64_t)n;
        v.u.dec.hi = n < 0 ? -1 : 0;
        break;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        v.u.f64 = (double)n;
        break;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
        v.u.bytes.data = (const uint8_t *)text;
        v.u.bytes.len = strlen(text);
        break;
    default:
        v.u.i64 = n;
        break;
    }
    return v;
}

static struct basalt_iceberg_expr *mk_pred(struct basalt_arena *a, enum basalt_iceberg_op op,
                                           int32_t field, uint32_t n, const int64_t *nums,
                                           const char *const *texts)
{
    struct basalt_iceberg_expr *e = basalt_arena_alloc(a, sizeof *e, 8);
    memset(e, 0, sizeof *e);
    e->op = op;
    e->field_id = field;
    e->name = pt_fields[field - 1].name;
    e->type = field_type(field);
    if (n) {
        e->literals = basalt_arena_alloc(a, n * sizeof *e->literals, 8);
        for (uint32_t i = 0; i < n; i++)
            e->literals[i] = lit_of(field, nums ? nums[i] : 0, texts ? texts[i] : NULL);
        e->n_literals = n;
    }
    return e;
}

/* ------------------------------------------------------------- printing */

struct sbuf {
    char buf[512];
    size_t len;
};

static void put(struct sbuf *b, const char *fmt, ...) BASALT_PRINTF(2, 3);
static void put(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->buf + b->len, sizeof b->buf - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n < sizeof b->buf - b->len ? (size_t)n : sizeof b->buf - b->len - 1;
}

static void put_value(struct sbuf *b, const struct basalt_iceberg_value *v)
{
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        put(b, "%d", (int)v->u.i32);
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL: {
        int64_t u = (int64_t)v->u.dec.lo;
        int64_t p = 1;
        for (int i = 0; i < v->scale; i++)
            p *= 10;
        put(b, "%s%lld.%0*lld", u < 0 ? "-" : "", (long long)(llabs(u) / p), (int)v->scale,
            (long long)(llabs(u) % p));
        break;
    }
    case BASALT_ICEBERG_TYPE_STRING:
        put(b, "'%.*s'", (int)v->u.bytes.len, (const char *)v->u.bytes.data);
        break;
    case BASALT_ICEBERG_TYPE_BINARY:
        put(b, "x'");
        for (size_t i = 0; i < v->u.bytes.len; i++)
            put(b, "%02x", v->u.bytes.data[i]);
        put(b, "'");
        break;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        put(b, "%g", v->u.f64);
        break;
    default:
        put(b, "%lld", (long long)v->u.i64);
        break;
    }
}

static void put_expr(struct sbuf *b, const struct basalt_iceberg_expr *e)
{
    static const char *ops[] = {
        [BASALT_ICEBERG_OP_IS_NULL] = "is null",
        [BASALT_ICEBERG_OP_NOT_NULL] = "not null",
        [BASALT_ICEBERG_OP_IS_NAN] = "is nan",
        [BASALT_ICEBERG_OP_NOT_NAN] = "not nan",
        [BASALT_ICEBERG_OP_LT] = "<",
        [BASALT_ICEBERG_OP_LT_EQ] = "<=",
        [BASALT_ICEBERG_OP_GT] = ">",
        [BASALT_ICEBERG_OP_GT_EQ] = ">=",
        [BASALT_ICEBERG_OP_EQ] = "=",
        [BASALT_ICEBERG_OP_NOT_EQ] = "!=",
        [BASALT_ICEBERG_OP_STARTS_WITH] = "starts with",
        [BASALT_ICEBERG_OP_NOT_STARTS_WITH] = "not starts with",
        [BASALT_ICEBERG_OP_IN] = "in",
        [BASALT_ICEBERG_OP_NOT_IN] = "not in",
    };
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
        put(b, "true");
        return;
    case BASALT_ICEBERG_OP_FALSE:
        put(b, "false");
        return;
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR:
        put(b, "(");
        put_expr(b, e->left);
        put(b, e->op == BASALT_ICEBERG_OP_AND ? " and " : " or ");
        put_expr(b, e->right);
        put(b, ")");
        return;
    case BASALT_ICEBERG_OP_NOT:
        put(b, "not ");
        put_expr(b, e->left);
        return;
    default:
        break;
    }
    put(b, "%s %s", e->name, ops[e->op]);
    if (e->op == BASALT_ICEBERG_OP_IN || e->op == BASALT_ICEBERG_OP_NOT_IN) {
        put(b, " (");
        for (uint32_t i = 0; i < e->n_literals; i++) {
            if (i)
                put(b, ", ");
            put_value(b, &e->literals[i]);
        }
        put(b, ")");
    } else if (e->n_literals) {
        put(b, " ");
        put_value(b, &e->literals[0]);
    }
}

static const char *show(const struct basalt_iceberg_expr *e, struct sbuf *b)
{
    b->len = 0;
    b->buf[0] = 0;
    put_expr(b, e);
    return b->buf;
}

/* ------------------------------------------------------------- the cases */

struct pcase {
    const char *transform;
    int32_t field;
    enum basalt_iceberg_op op;
    uint32_t n;
    int64_t nums[3];
    const char *texts[3];
    const char *inclusive;
    const char *strict;
};

#define OP(x) BASALT_ICEBERG_OP_##x
#define NUMS(...)                                                                                  \
    {__VA_ARGS__},                                                                                 \
    {                                                                                              \
        NULL                                                                                       \
    }
#define TEXTS(...)                                                                                 \
    {0},                                                                                           \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }
#define NONE                                                                                       \
    {0},                                                                                           \
    {                                                                                              \
        NULL                                                                                       \
    }

static const struct pcase cases[] = {
    /* truncate[10] on int: open bounds step to closed ones before truncating */
    {"truncate[10]", F_I, OP(LT), 1, NUMS(100), "p <= 90", "p < 100"},
    {"truncate[10]", F_I, OP(LT_EQ), 1, NUMS(100), "p <= 100", "p < 100"},
    {"truncate[10]", F_I, OP(GT), 1, NUMS(100), "p >= 100", "p > 100"},
    {"truncate[10]", F_I, OP(GT_EQ), 1, NUMS(100), "p >= 100", "p > 90"},
    {"truncate[10]", F_I, OP(EQ), 1, NUMS(100), "p = 100", "false"},
    {"truncate[10]", F_I, OP(NOT_EQ), 1, NUMS(100), "true", "p != 100"},
    {"truncate[10]", F_I, OP(IN), 3, NUMS(99, 100, 101), "p in (90, 100)", "false"},
    {"truncate[10]", F_I, OP(NOT_IN), 3, NUMS(99, 100, 101), "true", "p not in (90, 100)"},
    {"truncate[10]", F_I, OP(IS_NULL), 0, NONE, "p is null", "p is null"},
    {"truncate[10]", F_I, OP(NOT_NULL), 0, NONE, "p not null", "p not null"},
    {"truncate[10]", F_I, OP(LT), 1, NUMS(-1), "p <= -10", "p < -10"},
    {"truncate[10]", F_I, OP(GT_EQ), 1, NUMS(-1), "p >= -10", "p > -10"},
    {"truncate[10]", F_I, OP(LT_EQ), 1, NUMS(-11), "p <= -20", "p < -10"},
    /* truncating INT32_MIN wraps (as in the reference implementation): no
     * strict projection rather than a wrong one */
    {"truncate[10]", F_I, OP(LT), 1, NUMS(INT32_MIN), "false", "false"},
    {"truncate[10]", F_I, OP(LT_EQ), 1, NUMS(INT32_MIN), "true", "false"},
    {"truncate[10]", F_I, OP(LT_EQ), 1, NUMS(INT32_MAX), "p <= 2147483640", "p not null"},
    {"truncate[10]", F_L, OP(LT), 1, NUMS(100), "p <= 90", "p < 100"},
    {"truncate[10]", F_L, OP(GT), 1, NUMS(-100), "p >= -100", "p > -100"},
    /* truncate of decimal(9,2), W = 10 (0.10): 12.34 */
    {"truncate[10]", F_DEC, OP(LT), 1, NUMS(1234), "p <= 12.30", "p < 12.30"},
    {"truncate[10]", F_DEC, OP(LT_EQ), 1, NUMS(1234), "p <= 12.30", "p < 12.30"},
    {"truncate[10]", F_DEC, OP(GT), 1, NUMS(1234), "p >= 12.30", "p > 12.30"},
    {"truncate[10]", F_DEC, OP(GT_EQ), 1, NUMS(1230), "p >= 12.30", "p > 12.20"},
    {"truncate[10]", F_DEC, OP(LT), 1, NUMS(1230), "p <= 12.20", "p < 12.30"},
    {"truncate[10]", F_DEC, OP(EQ), 1, NUMS(1234), "p = 12.30", "false"},
    {"truncate[10]", F_DEC, OP(NOT_EQ), 1, NUMS(1234), "true", "p != 12.30"},
    {"truncate[10]", F_DEC, OP(LT), 1, NUMS(-5), "p <= -0.10", "p < -0.10"},
    /* truncate[5] on strings: bounds truncate, never step */
    {"truncate[5]", F_S, OP(LT), 1, TEXTS("abcdefg"), "p <= 'abcde'", "p < 'abcde'"},
    {"truncate[5]", F_S, OP(LT_EQ), 1, TEXTS("abcdefg"), "p <= 'abcde'", "p < 'abcde'"},
    {"truncate[5]", F_S, OP(GT), 1, TEXTS("abcdefg"), "p >= 'abcde'", "p > 'abcde'"},
    {"truncate[5]", F_S, OP(GT_EQ), 1, TEXTS("abcdefg"), "p >= 'abcde'", "p > 'abcde'"},
    {"truncate[5]", F_S, OP(EQ), 1, TEXTS("abcdefg"), "p = 'abcde'", "false"},
    {"truncate[5]", F_S, OP(NOT_EQ), 1, TEXTS("abcdefg"), "true", "p != 'abcde'"},
    {"truncate[5]", F_S, OP(LT), 1, TEXTS("abc"), "p <= 'abc'", "p < 'abc'"},
    {"truncate[5]", F_S, OP(IN), 3, TEXTS("abcdefg", "abcdehij", "x"), "p in ('abcde', 'x')",
     "false"},
    {"truncate[5]", F_S, OP(NOT_IN), 3, TEXTS("abcdefg", "abcdehij", "x"), "true",
     "p not in ('abcde', 'x')"},
    {"truncate[5]", F_S, OP(STARTS_WITH), 1, TEXTS("ab"), "p starts with 'ab'",
     "p starts with 'ab'"},
    {"truncate[5]", F_S, OP(STARTS_WITH), 1, TEXTS("abcde"), "p = 'abcde'", "p = 'abcde'"},
    {"truncate[5]", F_S, OP(STARTS_WITH), 1, TEXTS("abcdefg"), "p = 'abcde'", "false"},
    {"truncate[5]", F_S, OP(NOT_STARTS_WITH), 1, TEXTS("ab"), "p not starts with 'ab'",
     "p not starts with 'ab'"},
    {"truncate[5]", F_S, OP(NOT_STARTS_WITH), 1, TEXTS("abcde"), "p != 'abcde'", "p != 'abcde'"},
    {"truncate[5]", F_S, OP(NOT_STARTS_WITH), 1, TEXTS("abcdefg"), "true",
     "p not starts with 'abcde'"},
    /* a prefix counts code points: 5 of them in 7 bytes */
    {"truncate[5]", F_S, OP(STARTS_WITH), 1,
     TEXTS("ab\xc3\xa9"
           "cd"),
     "p = 'ab\xc3\xa9"
     "cd'",
     "p = 'ab\xc3\xa9"
     "cd'"},
    {"truncate[2]", F_BIN, OP(LT), 1, TEXTS("\x01\x02\x03"), "p <= x'0102'", "p < x'0102'"},
    /* bucket[16]: buckets 34 -> 3, 99 -> 9, 100 -> 0, 101 -> 4, 'abc' -> 10 */
    {"bucket[16]", F_I, OP(EQ), 1, NUMS(34), "p = 3", "false"},
    {"bucket[16]", F_I, OP(NOT_EQ), 1, NUMS(34), "true", "p != 3"},
    {"bucket[16]", F_I, OP(IN), 3, NUMS(99, 100, 101), "p in (0, 4, 9)", "false"},
    {"bucket[16]", F_I, OP(NOT_IN), 3, NUMS(99, 100, 101), "true", "p not in (0, 4, 9)"},
    {"bucket[16]", F_I, OP(LT), 1, NUMS(34), "true", "false"},
    {"bucket[16]", F_I, OP(GT_EQ), 1, NUMS(34), "true", "false"},
    {"bucket[16]", F_I, OP(IS_NULL), 0, NONE, "p is null", "p is null"},
    {"bucket[16]", F_I, OP(NOT_NULL), 0, NONE, "p not null", "p not null"},
    {"bucket[16]", F_L, OP(EQ), 1, NUMS(34), "p = 3", "false"},
    {"bucket[16]", F_S, OP(EQ), 1, TEXTS("abc"), "p = 10", "false"},
    {"bucket[16]", F_S, OP(STARTS_WITH), 1, TEXTS("abc"), "true", "false"},
    /* identity keeps the predicate */
    {"identity", F_I, OP(LT), 1, NUMS(100), "p < 100", "p < 100"},
    {"identity", F_I, OP(NOT_IN), 2, NUMS(1, 2), "p not in (1, 2)", "p not in (1, 2)"},
    {"identity", F_S, OP(STARTS_WITH), 1, TEXTS("ab"), "p starts with 'ab'", "p starts with 'ab'"},
    {"identity", F_F, OP(IS_NAN), 0, NONE, "p is nan", "p is nan"},
    {"identity", F_F, OP(NOT_NAN), 0, NONE, "p not nan", "p not nan"},
    /* void and unknown transforms project nothing */
    {"void", F_I, OP(EQ), 1, NUMS(1), "true", "false"},
    {"void", F_I, OP(IS_NULL), 0, NONE, "true", "false"},
    {"zorder", F_I, OP(EQ), 1, NUMS(1), "true", "false"},
    {"zorder", F_I, OP(NOT_NULL), 0, NONE, "true", "false"},
    /* day of a date (2017-01-01 = day 17167) */
    {"day", F_D, OP(LT), 1, NUMS(17167), "p <= 17166", "p < 17167"},
    {"day", F_D, OP(GT), 1, NUMS(17167), "p >= 17168", "p > 17167"},
    {"day", F_D, OP(EQ), 1, NUMS(17167), "p = 17167", "false"},
    {"day", F_D, OP(NOT_EQ), 1, NUMS(17167), "true", "p != 17167"},
    /* month of 1969-12-31 (day -1, month -1): old writers stored -1 as 0 */
    {"month", F_D, OP(EQ), 1, NUMS(-1), "p in (-1, 0)", "false"},
    {"month", F_D, OP(LT), 1, NUMS(-1), "p <= 0", "p < -1"},
    {"month", F_D, OP(LT_EQ), 1, NUMS(-1), "p <= 0", "p < 0"},
    {"month", F_D, OP(GT), 1, NUMS(-1), "p >= 0", "p > 0"},
    {"month", F_D, OP(GT_EQ), 1, NUMS(-1), "p >= -1", "p > 0"},
    {"month", F_D, OP(NOT_EQ), 1, NUMS(-1), "true", "p not in (-1, 0)"},
    /* 1969-12-31, 1970-01-01, 1969-11-22: months -1, 0, -2 */
    {"month", F_D, OP(IN), 3, NUMS(-1, 0, -40), "p in (-2, -1, 0)", "false"},
    {"month", F_D, OP(NOT_IN), 3, NUMS(-1, 0, -40), "true", "p not in (-2, -1, 0)"},
    /* 1969-10-15, 1970-03-01: months -3 (and -2 as old writers stored it), 2 */
    {"month", F_D, OP(IN), 2, NUMS(-78, 59), "p in (-3, -2, 2)", "false"},
    {"month", F_D, OP(NOT_IN), 2, NUMS(-78, 59), "true", "p not in (-3, -2, 2)"},
    {"year", F_D, OP(GT), 1, NUMS(17486), "p >= 47", "p > 47"},
    /* year of 1969-01-01T00:00:00 (-31536000000000 us); one us before is 1968 */
    {"year", F_TS, OP(GT_EQ), 1, NUMS(-31536000000000), "p >= -1", "p > -1"},
    {"year", F_TS, OP(LT), 1, NUMS(-31536000000000), "p <= -1", "p < -1"},
    {"year", F_TS, OP(EQ), 1, NUMS(-31536000000000), "p in (-1, 0)", "false"},
    /* hour of 2017-11-16T22:31:08 = 419686 */
    {"hour", F_TS, OP(LT), 1, NUMS(1510871468000000), "p <= 419686", "p < 419686"},
    {"hour", F_TS, OP(GT), 1, NUMS(1510871468000000), "p >= 419686", "p > 419686"},
    {"hour", F_TS, OP(EQ), 1, NUMS(1510871468000000), "p = 419686", "false"},
    {"hour", F_TS, OP(IN), 2, NUMS(1510871468000000, 1510871468000001), "p = 419686", "false"},
    {"day", F_TS, OP(LT_EQ), 1, NUMS(1510871468000000), "p <= 17486", "p < 17486"},
    {"day", F_TSN, OP(EQ), 1, NUMS(-1), "p in (-1, 0)", "false"},
    {"day", F_TSN, OP(GT_EQ), 1, NUMS(0), "p >= 0", "p > 0"},
    {"day", F_TSN, OP(GT), 1, NUMS(86400000000000), "p >= 1", "p > 1"},
};

TEST(iceberg_project_table)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct pcase *c = &cases[i];
        struct basalt_arena arena;
        basalt_arena_init(&arena, 4096);
        struct basalt_iceberg_partition_field pf = {
            .source_id = c->field, .field_id = 1000, .name = "p"};
        CHECK_OK(basalt_iceberg_transform_parse(c->transform, &pf.transform, NULL), NULL);
        struct basalt_iceberg_partition_spec spec = {.spec_id = 0, .fields = &pf, .n_fields = 1};
        struct basalt_iceberg_expr *pred =
            mk_pred(&arena, c->op, c->field, c->n, c->nums, c->texts);
        struct basalt_iceberg_expr *incl = NULL, *strict = NULL;
        struct basalt_error err;
        CHECK_OK(basalt_iceberg_project_inclusive(pred, &pt_schema, &spec, &arena, &incl, &err),
                 &err);
        CHECK_OK(basalt_iceberg_project_strict(pred, &pt_schema, &spec, &arena, &strict, &err),
                 &err);
        struct sbuf b;
        if (strcmp(show(incl, &b), c->inclusive) != 0) {
            bt_fail(__FILE__, __LINE__, "case %zu (%s on %d): inclusive '%s', expected '%s'", i,
                    c->transform, (int)c->field, b.buf, c->inclusive);
            failures++;
        }
        if (strcmp(show(strict, &b), c->strict) != 0) {
            bt_fail(__FILE__, __LINE__, "case %zu (%s on %d): strict '%s', expected '%s'", i,
                    c->transform, (int)c->field, b.buf, c->strict);
            failures++;
        }
        basalt_arena_reset(&arena);
    }
    CHECK_EQ(failures, 0);
}

/* The projected predicates carry the partition field's id and result type. */
TEST(iceberg_project_result_types)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_partition_field pf[2] = {
        {.source_id = F_TS, .field_id = 1000, .name = "ts_day"},
        {.source_id = F_TS, .field_id = 1001, .name = "ts_hour"},
    };
    CHECK_OK(basalt_iceberg_transform_parse("day", &pf[0].transform, NULL), NULL);
    CHECK_OK(basalt_iceberg_transform_parse("hour", &pf[1].transform, NULL), NULL);
    struct basalt_iceberg_partition_spec spec = {.spec_id = 3, .fields = pf, .n_fields = 2};
    int64_t ts = INT64_C(1510871468000000);
    struct basalt_iceberg_expr *pred = mk_pred(&arena, OP(GT), F_TS, 1, &ts, NULL);
    struct basalt_iceberg_expr *incl, *strict;
    CHECK_OK(basalt_iceberg_project_inclusive(pred, &pt_schema, &spec, &arena, &incl, NULL), NULL);
    CHECK_OK(basalt_iceberg_project_strict(pred, &pt_schema, &spec, &arena, &strict, NULL), NULL);
    struct sbuf b;
    /* each inclusive projection alone admits every match: AND; each strict
     * one alone guarantees the predicate: OR */
    CHECK_STR(show(incl, &b), "(ts_day >= 17486 and ts_hour >= 419686)");
    CHECK_STR(show(strict, &b), "(ts_day > 17486 or ts_hour > 419686)");
    CHECK(incl->op == OP(AND));
    CHECK_EQ(incl->left->field_id, 1000);
    CHECK(incl->left->type->id == BASALT_ICEBERG_TYPE_DATE);
    CHECK(incl->left->literals[0].type == BASALT_ICEBERG_TYPE_DATE);
    CHECK_EQ(incl->right->field_id, 1001);
    CHECK(incl->right->type->id == BASALT_ICEBERG_TYPE_INT);
    /* the result owns its literal bytes */
    struct basalt_iceberg_partition_field sf = {
        .source_id = F_S, .field_id = 1002, .name = "s_trunc"};
    CHECK_OK(basalt_iceberg_transform_parse("truncate[2]", &sf.transform, NULL), NULL);
    struct basalt_iceberg_partition_spec sspec = {.fields = &sf, .n_fields = 1};
    char text[8] = "hello";
    const char *texts[1] = {text};
    pred = mk_pred(&arena, OP(EQ), F_S, 1, NULL, texts);
    CHECK_OK(basalt_iceberg_project_inclusive(pred, &pt_schema, &sspec, &arena, &incl, NULL), NULL);
    text[0] = 'j';
    CHECK_STR(show(incl, &b), "s_trunc = 'he'");
    CHECK(incl->type->id == BASALT_ICEBERG_TYPE_STRING);
    basalt_arena_reset(&arena);
}

TEST(iceberg_project_expressions)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_partition_field pf = {.source_id = F_I, .field_id = 1000, .name = "p"};
    CHECK_OK(basalt_iceberg_transform_parse("truncate[10]", &pf.transform, NULL), NULL);
    struct basalt_iceberg_partition_spec spec = {.fields = &pf, .n_fields = 1};
    int64_t hundred = 100;
    const char *x[1] = {"x"};
    struct basalt_iceberg_expr *lt = mk_pred(&arena, OP(LT), F_I, 1, &hundred, NULL);
    struct basalt_iceberg_expr *seq = mk_pred(&arena, OP(EQ), F_S, 1, NULL, x);
    struct basalt_iceberg_expr *out;
    struct sbuf b;
    /* an unpartitioned column projects to TRUE (inclusive) / FALSE (strict) */
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_and(&arena, lt, seq);
    CHECK_OK(basalt_iceberg_project_inclusive(e, &pt_schema, &spec, &arena, &out, NULL), NULL);
    CHECK_STR(show(out, &b), "p <= 90");
    CHECK_OK(basalt_iceberg_project_strict(e, &pt_schema, &spec, &arena, &out, NULL), NULL);
    CHECK_STR(show(out, &b), "false");
    e = basalt_iceberg_expr_or(&arena, lt, seq);
    CHECK_OK(basalt_iceberg_project_inclusive(e, &pt_schema, &spec, &arena, &out, NULL), NULL);
    CHECK_STR(show(out, &b), "true");
    CHECK_OK(basalt_iceberg_project_strict(e, &pt_schema, &spec, &arena, &out, NULL), NULL);
    CHECK_STR(show(out, &b), "p < 100");
    /* NOT is pushed down first: NOT (i >= 100) is i < 100 */
    struct basalt_iceberg_expr *ge = mk_pred(&arena, OP(GT_EQ), F_I, 1, &hundred, NULL);
    e = basalt_iceberg_expr_not(&arena, ge);
    CHECK_OK(basalt_iceberg_project_inclusive(e, &pt_schema, &spec, &arena, &out, NULL), NULL);
    CHECK_STR(show(out, &b), "p <= 90");
    CHECK_OK(basalt_iceberg_project_strict(e, &pt_schema, &spec, &arena, &out, NULL), NULL);
    CHECK_STR(show(out, &b), "p < 100");
    /* constants stay */
    e = basalt_iceberg_expr_true(&arena);
    CHECK_OK(basalt_iceberg_project_strict(e, &pt_schema, &spec, &arena, &out, NULL), NULL);
    CHECK_STR(show(out, &b), "true");
    /* an unbound predicate is refused */
    lt->field_id = 0;
    struct basalt_error err;
    CHECK_STATUS(basalt_iceberg_project_inclusive(lt, &pt_schema, &spec, &arena, &out, &err),
                 BASALT_INVALID_ARG, &err);
    basalt_arena_reset(&arena);
}

struct sweep_ctx {
    const struct basalt_iceberg_expr *expr;
    const struct basalt_iceberg_partition_spec *spec;
    bool strict;
};

static basalt_status project_attempt(void *ctx)
{
    const struct sweep_ctx *s = ctx;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 64);
    struct basalt_iceberg_expr *out = NULL;
    basalt_status st =
        s->strict
            ? basalt_iceberg_project_strict(s->expr, &pt_schema, s->spec, &arena, &out, NULL)
            : basalt_iceberg_project_inclusive(s->expr, &pt_schema, s->spec, &arena, &out, NULL);
    if (st == BASALT_OK && !out)
        st = BASALT_INTERNAL;
    basalt_arena_reset(&arena);
    return st;
}

/* Fail the n-th allocation, n = 1, 2, ...: NOMEM and nothing leaked, or OK. */
TEST(iceberg_project_alloc_failures)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_partition_field pf[2] = {
        {.source_id = F_D, .field_id = 1000, .name = "d_month"},
        {.source_id = F_S, .field_id = 1001, .name = "s_trunc"},
    };
    CHECK_OK(basalt_iceberg_transform_parse("month", &pf[0].transform, NULL), NULL);
    CHECK_OK(basalt_iceberg_transform_parse("truncate[3]", &pf[1].transform, NULL), NULL);
    struct basalt_iceberg_partition_spec spec = {.fields = pf, .n_fields = 2};
    int64_t days[3] = {-1, 0, -40};
    const char *texts[3] = {"abcdef", "x", "zz"};
    struct basalt_iceberg_expr *a = mk_pred(&arena, OP(IN), F_D, 3, days, NULL);
    struct basalt_iceberg_expr *b = mk_pred(&arena, OP(NOT_IN), F_S, 3, NULL, texts);
    struct basalt_iceberg_expr *c = mk_pred(&arena, OP(STARTS_WITH), F_S, 1, NULL, texts);
    struct basalt_iceberg_expr *e =
        basalt_iceberg_expr_and(&arena, basalt_iceberg_expr_or(&arena, a, b), c);
    CHECK(e != NULL);
    struct sweep_ctx s = {e, &spec, false};
    CHECK_ALLOC_SWEEP(project_attempt, &s);
    s.strict = true;
    CHECK_ALLOC_SWEEP(project_attempt, &s);
    basalt_arena_reset(&arena);
}
