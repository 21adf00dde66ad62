/* The evaluators: inclusive metrics (cases after the reference
 * implementation's TestInclusiveMetricsEvaluator), manifest summaries (after
 * TestManifestEvaluator), exact partition matching and residuals (after
 * TestResidualEvaluator). Bounds are serialised by hand per spec Appendix D. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_transform.h"
#include "test.h"

#define OP(x) BASALT_ICEBERG_OP_##x
#define T(x) BASALT_ICEBERG_TYPE_##x

/* ------------------------------------------------------------- schema */

enum {
    ID = 1,
    NO_STATS,
    REQUIRED,
    ALL_NULLS,
    SOME_NULLS,
    NO_NULLS,
    ALL_NANS,
    SOME_NANS,
    NO_NANS,
    ALL_NULLS_DOUBLE,
    ALL_NANS_V1_STATS,
    NAN_AND_NULL_ONLY,
    NO_NAN_STATS,
    SOME_EMPTY,
    INTS /* list */,
    INTS_ELEMENT,
    ST /* struct */,
    ST_X,
    DATEINT,
    HOUR,
    TS,
    S,
};

static struct basalt_iceberg_field ev_list_element[] = {
    {.id = INTS_ELEMENT, .name = "element", .type = {.id = T(INT)}},
};
static struct basalt_iceberg_field ev_struct_fields[] = {
    {.id = ST_X, .name = "x", .type = {.id = T(INT)}},
};

static struct basalt_iceberg_field ev_fields[] = {
    {.id = ID, .name = "id", .required = true, .type = {.id = T(INT)}},
    {.id = NO_STATS, .name = "no_stats", .type = {.id = T(INT)}},
    {.id = REQUIRED, .name = "required", .required = true, .type = {.id = T(STRING)}},
    {.id = ALL_NULLS, .name = "all_nulls", .type = {.id = T(STRING)}},
    {.id = SOME_NULLS, .name = "some_nulls", .type = {.id = T(STRING)}},
    {.id = NO_NULLS, .name = "no_nulls", .type = {.id = T(STRING)}},
    {.id = ALL_NANS, .name = "all_nans", .type = {.id = T(DOUBLE)}},
    {.id = SOME_NANS, .name = "some_nans", .type = {.id = T(FLOAT)}},
    {.id = NO_NANS, .name = "no_nans", .type = {.id = T(FLOAT)}},
    {.id = ALL_NULLS_DOUBLE, .name = "all_nulls_double", .type = {.id = T(DOUBLE)}},
    {.id = ALL_NANS_V1_STATS, .name = "all_nans_v1_stats", .type = {.id = T(FLOAT)}},
    {.id = NAN_AND_NULL_ONLY, .name = "nan_and_null_only", .type = {.id = T(DOUBLE)}},
    {.id = NO_NAN_STATS, .name = "no_nan_stats", .type = {.id = T(DOUBLE)}},
    {.id = SOME_EMPTY, .name = "some_empty", .type = {.id = T(STRING)}},
    {.id = INTS, .name = "ints", .type = {.id = T(LIST), .fields = ev_list_element, .n_fields = 1}},
    {.id = ST, .name = "st", .type = {.id = T(STRUCT), .fields = ev_struct_fields, .n_fields = 1}},
    {.id = DATEINT, .name = "dateint", .type = {.id = T(INT)}},
    {.id = HOUR, .name = "hour", .type = {.id = T(INT)}},
    {.id = TS, .name = "ts", .type = {.id = T(TIMESTAMP)}},
    {.id = S, .name = "s", .type = {.id = T(STRING)}},
};

static struct basalt_iceberg_schema ev_schema = {
    .root = {
        .id = T(STRUCT), .fields = ev_fields, .n_fields = sizeof ev_fields / sizeof ev_fields[0]}};

static const struct basalt_iceberg_type *type_of(int32_t id)
{
    if (id == INTS_ELEMENT)
        return &ev_list_element[0].type;
    if (id == ST_X)
        return &ev_struct_fields[0].type;
    for (size_t i = 0; i < sizeof ev_fields / sizeof ev_fields[0]; i++)
        if (ev_fields[i].id == id)
            return &ev_fields[i].type;
    return NULL;
}

/* ------------------------------------------------------------- literals */

static struct basalt_iceberg_value num(enum basalt_iceberg_type_id type, double x)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    switch (type) {
    case T(INT):
    case T(DATE):
        v.u.i32 = (int32_t)x;
        break;
    case T(FLOAT):
        v.u.f32 = (float)x;
        break;
    case T(DOUBLE):
        v.u.f64 = x;
        break;
    default:
        v.u.i64 = (int64_t)x;
        break;
    }
    return v;
}

static struct basalt_iceberg_value str(const char *s)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = T(STRING);
    v.u.bytes.data = (const uint8_t *)s;
    v.u.bytes.len = strlen(s);
    return v;
}

static struct basalt_arena ev_arena;

/* A bound predicate on field `id` with literals of its type. */
static struct basalt_iceberg_expr *pred_v(enum basalt_iceberg_op op, int32_t id,
                                          const struct basalt_iceberg_value *lits, uint32_t n)
{
    struct basalt_iceberg_expr *e = basalt_arena_alloc(&ev_arena, sizeof *e, 8);
    memset(e, 0, sizeof *e);
    e->op = op;
    e->field_id = id;
    e->name = "col";
    e->type = type_of(id);
    if (n) {
        e->literals = basalt_arena_alloc(&ev_arena, n * sizeof *lits, 8);
        memcpy(e->literals, lits, n * sizeof *lits);
        e->n_literals = n;
    }
    return e;
}

static struct basalt_iceberg_expr *pn(enum basalt_iceberg_op op, int32_t id, double x)
{
    struct basalt_iceberg_value v = num(type_of(id)->id, x);
    return pred_v(op, id, &v, 1);
}

static struct basalt_iceberg_expr *ps(enum basalt_iceberg_op op, int32_t id, const char *s)
{
    struct basalt_iceberg_value v = str(s);
    return pred_v(op, id, &v, 1);
}

static struct basalt_iceberg_expr *pu(enum basalt_iceberg_op op, int32_t id)
{
    return pred_v(op, id, NULL, 0);
}

static struct basalt_iceberg_expr *pin(enum basalt_iceberg_op op, int32_t id, double a, double b)
{
    struct basalt_iceberg_value v[2] = {num(type_of(id)->id, a), num(type_of(id)->id, b)};
    return pred_v(op, id, v, 2);
}

/* ------------------------------------------------------------- metrics */

/* Appendix D: int/float little-endian 4 bytes, double 8, strings as UTF-8. */
static uint8_t le_30[4] = {30, 0, 0, 0}, le_79[4] = {79, 0, 0, 0};
static uint8_t le_100[4] = {100, 0, 0, 0}, le_200[4] = {200, 0, 0, 0};
static uint8_t le_10[4] = {10, 0, 0, 0}, le_20[4] = {20, 0, 0, 0};
static uint8_t f32_nan[4] = {0x00, 0x00, 0xc0, 0x7f};
static uint8_t f64_1[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}; /* 1.0 */
static uint8_t f64_5[8] = {0, 0, 0, 0, 0, 0, 0x14, 0x40}; /* 5.0 */
static uint8_t short_int[3] = {1, 2, 3};                  /* not a valid int bound */

static struct basalt_iceberg_metric_long ev_values[] = {
    {ALL_NULLS, 50},
    {SOME_NULLS, 50},
    {NO_NULLS, 50},
    {ALL_NANS, 50},
    {SOME_NANS, 50},
    {NO_NANS, 50},
    {ALL_NULLS_DOUBLE, 50},
    {ALL_NANS_V1_STATS, 50},
    {NAN_AND_NULL_ONLY, 50},
    {NO_NAN_STATS, 50},
    {SOME_EMPTY, 50},
    {INTS_ELEMENT, 200},
    {ST_X, 50},
};
static struct basalt_iceberg_metric_long ev_nulls[] = {
    {ALL_NULLS, 50},        {SOME_NULLS, 10}, {NO_NULLS, 0},          {ALL_NANS, 0},
    {SOME_NANS, 0},         {NO_NANS, 0},     {ALL_NULLS_DOUBLE, 50}, {ALL_NANS_V1_STATS, 0},
    {NAN_AND_NULL_ONLY, 1}, {SOME_EMPTY, 0},  {INTS_ELEMENT, 0},      {ST_X, 0},
};
static struct basalt_iceberg_metric_long ev_nans[] = {
    {ALL_NANS, 50},
    {SOME_NANS, 10},
    {NO_NANS, 0},
    {NAN_AND_NULL_ONLY, 49},
};
static struct basalt_iceberg_metric_bytes ev_lower[] = {
    {ID, le_30, 4},
    {NO_NULLS, (const uint8_t *)"abc", 3},
    {ALL_NANS_V1_STATS, f32_nan, 4},
    {NO_NAN_STATS, f64_1, 8},
    {SOME_EMPTY, (const uint8_t *)"", 0},
    {INTS_ELEMENT, le_100, 4},
    {ST_X, le_10, 4},
    {DATEINT, short_int, 3},
};
static struct basalt_iceberg_metric_bytes ev_upper[] = {
    {ID, le_79, 4},
    {NO_NULLS, (const uint8_t *)"abz", 3},
    {ALL_NANS_V1_STATS, f32_nan, 4},
    {NO_NAN_STATS, f64_5, 8},
    {SOME_EMPTY, (const uint8_t *)"house", 5},
    {INTS_ELEMENT, le_200, 4},
    {ST_X, le_20, 4},
    {DATEINT, short_int, 3},
};

static struct basalt_iceberg_data_file ev_file(int64_t records)
{
    struct basalt_iceberg_data_file f;
    memset(&f, 0, sizeof f);
    f.file_path = "file.parquet";
    f.record_count = records;
    f.value_counts = ev_values;
    f.n_value_counts = sizeof ev_values / sizeof ev_values[0];
    f.null_value_counts = ev_nulls;
    f.n_null_value_counts = sizeof ev_nulls / sizeof ev_nulls[0];
    f.nan_value_counts = ev_nans;
    f.n_nan_value_counts = sizeof ev_nans / sizeof ev_nans[0];
    f.lower_bounds = ev_lower;
    f.n_lower_bounds = sizeof ev_lower / sizeof ev_lower[0];
    f.upper_bounds = ev_upper;
    f.n_upper_bounds = sizeof ev_upper / sizeof ev_upper[0];
    return f;
}

struct mcase {
    struct basalt_iceberg_expr *e;
    bool want;
    int line;
};

#define M(expr, want)                                                                              \
    {                                                                                              \
        (expr), (want), __LINE__                                                                   \
    }

TEST(iceberg_metrics_evaluator)
{
    basalt_arena_init(&ev_arena, 4096);
    struct basalt_iceberg_data_file file = ev_file(50);
    const struct mcase cases[] = {
        /* all nulls / no nulls */
        M(pu(OP(NOT_NULL), ALL_NULLS), false),
        M(pu(OP(NOT_NULL), SOME_NULLS), true),
        M(pu(OP(NOT_NULL), NO_NULLS), true),
        M(ps(OP(STARTS_WITH), ALL_NULLS, "a"), false),
        M(ps(OP(NOT_STARTS_WITH), ALL_NULLS, "a"), true),
        M(ps(OP(LT), ALL_NULLS, "a"), false),
        M(ps(OP(EQ), ALL_NULLS, "a"), false),
        M(pu(OP(IS_NULL), ALL_NULLS), true),
        M(pu(OP(IS_NULL), SOME_NULLS), true),
        M(pu(OP(IS_NULL), NO_NULLS), false),
        /* NaN counts */
        M(pu(OP(IS_NAN), ALL_NANS), true),
        M(pu(OP(IS_NAN), SOME_NANS), true),
        M(pu(OP(IS_NAN), NO_NANS), false),
        M(pu(OP(IS_NAN), ALL_NULLS_DOUBLE), false),
        M(pu(OP(IS_NAN), NO_NAN_STATS), true),
        M(pu(OP(IS_NAN), ALL_NANS_V1_STATS), true),
        M(pu(OP(IS_NAN), NAN_AND_NULL_ONLY), true),
        M(pu(OP(NOT_NAN), ALL_NANS), false),
        M(pu(OP(NOT_NAN), SOME_NANS), true),
        M(pu(OP(NOT_NAN), NO_NANS), true),
        M(pu(OP(NOT_NAN), ALL_NULLS_DOUBLE), true),
        M(pu(OP(NOT_NAN), NO_NAN_STATS), true),
        M(pu(OP(NOT_NAN), ALL_NANS_V1_STATS), true),
        M(pu(OP(NOT_NAN), NAN_AND_NULL_ONLY), true),
        /* comparisons on an all-NaN column match nothing; NaN bounds say nothing */
        M(pn(OP(LT), ALL_NANS, 1), false),
        M(pn(OP(GT), ALL_NANS, 1), false),
        M(pn(OP(EQ), ALL_NANS, 1), false),
        M(pin(OP(IN), ALL_NANS, 1, 2), false),
        M(pn(OP(NOT_EQ), ALL_NANS, 1), true),
        M(pn(OP(LT), ALL_NANS_V1_STATS, 1), true),
        M(pn(OP(GT), ALL_NANS_V1_STATS, 1), true),
        M(pn(OP(EQ), ALL_NANS_V1_STATS, 1), true),
        M(pin(OP(IN), ALL_NANS_V1_STATS, 1, 2), true),
        M(pn(OP(LT), NO_NAN_STATS, 1), false),
        M(pn(OP(LT), NO_NAN_STATS, 1.5), true),
        M(pn(OP(GT), NO_NAN_STATS, 5), false),
        M(pn(OP(GT_EQ), NO_NAN_STATS, 5), true),
        /* no statistics at all */
        M(pn(OP(LT), NO_STATS, 5), true),
        M(pn(OP(EQ), NO_STATS, 5), true),
        M(pu(OP(IS_NULL), NO_STATS), true),
        M(pu(OP(NOT_NULL), NO_STATS), true),
        M(pin(OP(IN), NO_STATS, 1, 2), true),
        /* integer bounds [30, 79] */
        M(pn(OP(LT), ID, 5), false),
        M(pn(OP(LT), ID, 30), false),
        M(pn(OP(LT), ID, 31), true),
        M(pn(OP(LT), ID, 79), true),
        M(pn(OP(LT_EQ), ID, 5), false),
        M(pn(OP(LT_EQ), ID, 29), false),
        M(pn(OP(LT_EQ), ID, 30), true),
        M(pn(OP(LT_EQ), ID, 79), true),
        M(pn(OP(GT), ID, 85), false),
        M(pn(OP(GT), ID, 79), false),
        M(pn(OP(GT), ID, 78), true),
        M(pn(OP(GT), ID, 75), true),
        M(pn(OP(GT_EQ), ID, 85), false),
        M(pn(OP(GT_EQ), ID, 80), false),
        M(pn(OP(GT_EQ), ID, 79), true),
        M(pn(OP(GT_EQ), ID, 75), true),
        M(pn(OP(EQ), ID, 5), false),
        M(pn(OP(EQ), ID, 29), false),
        M(pn(OP(EQ), ID, 30), true),
        M(pn(OP(EQ), ID, 75), true),
        M(pn(OP(EQ), ID, 79), true),
        M(pn(OP(EQ), ID, 80), false),
        M(pn(OP(EQ), ID, 85), false),
        /* != and NOT IN never prune on bounds */
        M(pn(OP(NOT_EQ), ID, 5), true),
        M(pn(OP(NOT_EQ), ID, 30), true),
        M(pn(OP(NOT_EQ), ID, 85), true),
        M(pin(OP(NOT_IN), ID, 5, 6), true),
        M(pin(OP(NOT_IN), ID, 30, 79), true),
        /* IN narrows its literals to [lower, upper] */
        M(pin(OP(IN), ID, 5, 6), false),
        M(pin(OP(IN), ID, 29, 30), true),
        M(pin(OP(IN), ID, 75, 76), true),
        M(pin(OP(IN), ID, 79, 80), true),
        M(pin(OP(IN), ID, 80, 81), false),
        /* STARTS WITH against bounds ["abc", "abz"] */
        M(ps(OP(STARTS_WITH), NO_NULLS, "ab"), true),
        M(ps(OP(STARTS_WITH), NO_NULLS, "abd"), true),
        M(ps(OP(STARTS_WITH), NO_NULLS, "abca"), true),
        M(ps(OP(STARTS_WITH), NO_NULLS, "aa"), false),
        M(ps(OP(STARTS_WITH), NO_NULLS, "ac"), false),
        M(ps(OP(STARTS_WITH), NO_NULLS, "b"), false),
        M(ps(OP(STARTS_WITH), SOME_EMPTY, "a"), true),
        M(ps(OP(STARTS_WITH), SOME_EMPTY, "house"), true),
        M(ps(OP(STARTS_WITH), SOME_EMPTY, "i"), false),
        M(ps(OP(NOT_STARTS_WITH), NO_NULLS, "ab"), false),
        M(ps(OP(NOT_STARTS_WITH), NO_NULLS, "a"), false),
        M(ps(OP(NOT_STARTS_WITH), NO_NULLS, "abc"), true),
        M(ps(OP(NOT_STARTS_WITH), NO_NULLS, "abcd"), true),
        M(ps(OP(NOT_STARTS_WITH), SOME_NULLS, "a"), true),
        /* metrics of list elements are never used; struct fields are */
        M(pn(OP(EQ), INTS_ELEMENT, 5), true),
        M(pn(OP(LT), INTS_ELEMENT, 50), true),
        M(pu(OP(IS_NULL), INTS_ELEMENT), true),
        M(pn(OP(EQ), ST_X, 5), false),
        M(pn(OP(EQ), ST_X, 15), true),
        M(pn(OP(GT), ST_X, 20), false),
        /* a bound that does not decode is ignored */
        M(pn(OP(EQ), DATEINT, 5), true),
        /* AND / OR */
        M(basalt_iceberg_expr_and(&ev_arena, pn(OP(LT), ID, 5), pn(OP(EQ), ID, 50)), false),
        M(basalt_iceberg_expr_or(&ev_arena, pn(OP(LT), ID, 5), pn(OP(EQ), ID, 50)), true),
        M(basalt_iceberg_expr_or(&ev_arena, pn(OP(LT), ID, 5), pu(OP(NOT_NULL), ALL_NULLS)), false),
        M(basalt_iceberg_expr_true(&ev_arena), true),
        M(basalt_iceberg_expr_false(&ev_arena), false),
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool got = basalt_iceberg_metrics_may_match(cases[i].e, &ev_schema, &file);
        if (got != cases[i].want) {
            bt_fail(__FILE__, cases[i].line, "metrics case: got %d", (int)got);
            failures++;
        }
    }
    /* an empty file matches nothing; an unknown count (-1) anything */
    struct basalt_iceberg_data_file empty = ev_file(0), unknown = ev_file(-1);
    CHECK(!basalt_iceberg_metrics_may_match(pn(OP(NOT_EQ), ID, 5), &ev_schema, &empty));
    CHECK(!basalt_iceberg_metrics_may_match(pu(OP(IS_NULL), ALL_NULLS), &ev_schema, &empty));
    CHECK(basalt_iceberg_metrics_may_match(pu(OP(NOT_NULL), ALL_NULLS), &ev_schema, &unknown));
    /* no metrics at all */
    struct basalt_iceberg_data_file bare;
    memset(&bare, 0, sizeof bare);
    bare.record_count = 10;
    CHECK(basalt_iceberg_metrics_may_match(pn(OP(EQ), ID, 5), &ev_schema, &bare));
    CHECK(basalt_iceberg_metrics_may_match(pu(OP(NOT_NULL), ALL_NULLS), &ev_schema, &bare));
    basalt_arena_reset(&ev_arena);
    CHECK_EQ(failures, 0);
}

/* ------------------------------------------------------------- manifests */

enum { P_INT = 1000, P_ALL_NULL, P_SOME_NULL, P_DOUBLE, P_ALL_NAN, P_NAN_UNKNOWN, P_STR };

static struct basalt_iceberg_type ev_ptypes[7] = {
    {.id = T(INT)},    {.id = T(STRING)}, {.id = T(STRING)}, {.id = T(DOUBLE)},
    {.id = T(DOUBLE)}, {.id = T(DOUBLE)}, {.id = T(STRING)},
};

/* A predicate on a partition field (after projection). */
static struct basalt_iceberg_expr *ppv(enum basalt_iceberg_op op, int32_t pfield,
                                       const struct basalt_iceberg_value *lits, uint32_t n)
{
    struct basalt_iceberg_expr *e = pred_v(op, ID, lits, n);
    e->field_id = pfield;
    e->type = &ev_ptypes[pfield - P_INT];
    return e;
}

static struct basalt_iceberg_expr *ppn(enum basalt_iceberg_op op, int32_t pfield, double x)
{
    struct basalt_iceberg_value v = num(ev_ptypes[pfield - P_INT].id, x);
    return ppv(op, pfield, &v, 1);
}

static struct basalt_iceberg_expr *pps(enum basalt_iceberg_op op, int32_t pfield, const char *s)
{
    struct basalt_iceberg_value v = str(s);
    return ppv(op, pfield, &v, 1);
}

static struct basalt_iceberg_expr *ppin(enum basalt_iceberg_op op, int32_t pfield, double a,
                                        double b)
{
    struct basalt_iceberg_value v[2] = {num(ev_ptypes[pfield - P_INT].id, a),
                                        num(ev_ptypes[pfield - P_INT].id, b)};
    return ppv(op, pfield, v, 2);
}

TEST(iceberg_manifest_evaluator)
{
    basalt_arena_init(&ev_arena, 4096);
    struct basalt_iceberg_partition_field pf[7];
    memset(pf, 0, sizeof pf);
    for (int i = 0; i < 7; i++) {
        pf[i].field_id = P_INT + i;
        pf[i].source_id = 100 + i;
        pf[i].name = "p";
        basalt_iceberg_transform_parse("identity", &pf[i].transform, NULL);
    }
    struct basalt_iceberg_partition_spec spec = {.fields = pf, .n_fields = 7};
    struct basalt_iceberg_field_summary sums[7];
    memset(sums, 0, sizeof sums);
    sums[0].has_lower_bound = sums[0].has_upper_bound = true;
    sums[0].lower_bound = num(T(INT), 30);
    sums[0].upper_bound = num(T(INT), 79);
    sums[1].contains_null = true;
    sums[2].contains_null = true;
    sums[2].has_lower_bound = sums[2].has_upper_bound = true;
    sums[2].lower_bound = str("a");
    sums[2].upper_bound = str("z");
    sums[3].has_contains_nan = true;
    sums[3].has_lower_bound = sums[3].has_upper_bound = true;
    sums[3].lower_bound = num(T(DOUBLE), 1);
    sums[3].upper_bound = num(T(DOUBLE), 2);
    sums[4].has_contains_nan = sums[4].contains_nan = true;
    sums[5].contains_null = true;
    sums[6].has_lower_bound = sums[6].has_upper_bound = true;
    sums[6].lower_bound = str("abc");
    sums[6].upper_bound = str("abz");
    struct basalt_iceberg_manifest_file m;
    memset(&m, 0, sizeof m);
    m.manifest_path = "m.avro";
    m.partitions = sums;
    m.n_partitions = 7;
    const struct mcase cases[] = {
        M(ppv(OP(IS_NULL), P_INT, NULL, 0), false),
        M(ppv(OP(IS_NULL), P_ALL_NULL, NULL, 0), true),
        M(ppv(OP(NOT_NULL), P_ALL_NULL, NULL, 0), false),
        M(ppv(OP(NOT_NULL), P_SOME_NULL, NULL, 0), true),
        M(ppv(OP(NOT_NULL), P_ALL_NAN, NULL, 0), true),
        /* no bound and NaN presence unknown: the values may be NaN */
        M(ppv(OP(NOT_NULL), P_NAN_UNKNOWN, NULL, 0), true),
        M(ppv(OP(IS_NAN), P_DOUBLE, NULL, 0), false),
        M(ppv(OP(IS_NAN), P_ALL_NAN, NULL, 0), true),
        M(ppv(OP(IS_NAN), P_NAN_UNKNOWN, NULL, 0), true),
        M(ppv(OP(NOT_NAN), P_ALL_NAN, NULL, 0), false),
        M(ppv(OP(NOT_NAN), P_DOUBLE, NULL, 0), true),
        M(ppn(OP(LT), P_INT, 30), false),
        M(ppn(OP(LT), P_INT, 31), true),
        M(ppn(OP(LT_EQ), P_INT, 29), false),
        M(ppn(OP(LT_EQ), P_INT, 30), true),
        M(ppn(OP(GT), P_INT, 79), false),
        M(ppn(OP(GT), P_INT, 78), true),
        M(ppn(OP(GT_EQ), P_INT, 80), false),
        M(ppn(OP(GT_EQ), P_INT, 79), true),
        M(ppn(OP(EQ), P_INT, 29), false),
        M(ppn(OP(EQ), P_INT, 80), false),
        M(ppn(OP(EQ), P_INT, 50), true),
        M(ppn(OP(NOT_EQ), P_INT, 50), true),
        M(ppin(OP(IN), P_INT, 5, 6), false),
        M(ppin(OP(IN), P_INT, 29, 30), true),
        M(ppin(OP(IN), P_INT, 80, 81), false),
        M(ppin(OP(IN), P_INT, 5, 81), false),
        M(ppin(OP(NOT_IN), P_INT, 30, 79), true),
        M(pps(OP(LT), P_ALL_NULL, "a"), false),
        M(pps(OP(EQ), P_ALL_NULL, "a"), false),
        M(pps(OP(STARTS_WITH), P_STR, "ab"), true),
        M(pps(OP(STARTS_WITH), P_STR, "abd"), true),
        M(pps(OP(STARTS_WITH), P_STR, "aa"), false),
        M(pps(OP(STARTS_WITH), P_STR, "ac"), false),
        M(pps(OP(STARTS_WITH), P_ALL_NULL, "a"), false),
        M(pps(OP(NOT_STARTS_WITH), P_STR, "ab"), false),
        M(pps(OP(NOT_STARTS_WITH), P_STR, "abc"), true),
        M(pps(OP(NOT_STARTS_WITH), P_SOME_NULL, "a"), true),
        M(ppn(OP(LT), P_DOUBLE, 1), false),
        M(ppn(OP(GT), P_DOUBLE, 1.5), true),
        M(basalt_iceberg_expr_and(&ev_arena, ppn(OP(LT), P_INT, 31), pps(OP(EQ), P_ALL_NULL, "x")),
          false),
        M(basalt_iceberg_expr_or(&ev_arena, ppn(OP(LT), P_INT, 3), pps(OP(GT), P_SOME_NULL, "y")),
          true),
        M(basalt_iceberg_expr_false(&ev_arena), false),
        M(basalt_iceberg_expr_true(&ev_arena), true),
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool got = basalt_iceberg_manifest_may_match(cases[i].e, &spec, &m);
        if (got != cases[i].want) {
            bt_fail(__FILE__, cases[i].line, "manifest case: got %d", (int)got);
            failures++;
        }
    }
    /* summaries missing, or not lining up with the spec: no pruning */
    struct basalt_iceberg_expr *never = ppn(OP(LT), P_INT, 30);
    CHECK(!basalt_iceberg_manifest_may_match(never, &spec, &m));
    m.n_partitions = 6;
    CHECK(basalt_iceberg_manifest_may_match(never, &spec, &m));
    m.partitions = NULL;
    m.n_partitions = 0;
    CHECK(basalt_iceberg_manifest_may_match(never, &spec, &m));
    CHECK(!basalt_iceberg_manifest_may_match(basalt_iceberg_expr_false(&ev_arena), &spec, &m));
    basalt_arena_reset(&ev_arena);
    CHECK_EQ(failures, 0);
}

/* ------------------------------------------------------------- partitions */

TEST(iceberg_partition_matches)
{
    basalt_arena_init(&ev_arena, 4096);
    struct basalt_iceberg_partition_field pf[3];
    memset(pf, 0, sizeof pf);
    for (int i = 0; i < 3; i++) {
        pf[i].field_id = P_INT + i;
        pf[i].source_id = 100 + i;
        pf[i].name = "p";
        basalt_iceberg_transform_parse("identity", &pf[i].transform, NULL);
    }
    struct basalt_iceberg_partition_spec spec = {.fields = pf, .n_fields = 3};
    struct basalt_iceberg_value tuple[3] = {num(T(INT), 42), str("x"), str("abc")};
    tuple[1].is_null = true;
    CHECK(basalt_iceberg_partition_matches(ppn(OP(EQ), P_INT, 42), &spec, tuple, 3));
    CHECK(!basalt_iceberg_partition_matches(ppn(OP(EQ), P_INT, 41), &spec, tuple, 3));
    CHECK(basalt_iceberg_partition_matches(ppn(OP(GT_EQ), P_INT, 42), &spec, tuple, 3));
    CHECK(!basalt_iceberg_partition_matches(ppn(OP(GT), P_INT, 42), &spec, tuple, 3));
    CHECK(basalt_iceberg_partition_matches(ppin(OP(IN), P_INT, 1, 42), &spec, tuple, 3));
    CHECK(!basalt_iceberg_partition_matches(ppin(OP(NOT_IN), P_INT, 1, 42), &spec, tuple, 3));
    CHECK(basalt_iceberg_partition_matches(ppv(OP(IS_NULL), P_ALL_NULL, NULL, 0), &spec, tuple, 3));
    CHECK(
        !basalt_iceberg_partition_matches(ppv(OP(NOT_NULL), P_ALL_NULL, NULL, 0), &spec, tuple, 3));
    /* a null satisfies no comparison, not even != */
    CHECK(!basalt_iceberg_partition_matches(pps(OP(NOT_EQ), P_ALL_NULL, "y"), &spec, tuple, 3));
    CHECK(!basalt_iceberg_partition_matches(pps(OP(EQ), P_ALL_NULL, "y"), &spec, tuple, 3));
    CHECK(
        basalt_iceberg_partition_matches(pps(OP(STARTS_WITH), P_SOME_NULL, "ab"), &spec, tuple, 3));
    CHECK(!basalt_iceberg_partition_matches(pps(OP(STARTS_WITH), P_SOME_NULL, "abcd"), &spec, tuple,
                                            3));
    CHECK(basalt_iceberg_partition_matches(pps(OP(NOT_STARTS_WITH), P_SOME_NULL, "b"), &spec, tuple,
                                           3));
    CHECK(basalt_iceberg_partition_matches(
        basalt_iceberg_expr_or(&ev_arena, ppn(OP(EQ), P_INT, 1), pps(OP(EQ), P_SOME_NULL, "abc")),
        &spec, tuple, 3));
    CHECK(!basalt_iceberg_partition_matches(
        basalt_iceberg_expr_and(&ev_arena, ppn(OP(EQ), P_INT, 42), pps(OP(EQ), P_SOME_NULL, "abd")),
        &spec, tuple, 3));
    /* a date literal against an int partition value (day results) */
    struct basalt_iceberg_value d = num(T(DATE), 42);
    CHECK(basalt_iceberg_partition_matches(ppv(OP(EQ), P_INT, &d, 1), &spec, tuple, 3));
    /* fields the tuple does not reach, or values that do not compare: may match */
    CHECK(basalt_iceberg_partition_matches(pps(OP(EQ), P_SOME_NULL, "zzz"), &spec, tuple, 2));
    CHECK(basalt_iceberg_partition_matches(pps(OP(EQ), P_INT, "zzz"), &spec, tuple, 3));
    basalt_arena_reset(&ev_arena);
}

/* ------------------------------------------------------------- residuals */

static void put_residual(const struct basalt_iceberg_expr *e, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    switch (e->op) {
    case OP(TRUE):
        snprintf(buf + len, cap - len, "true");
        return;
    case OP(FALSE):
        snprintf(buf + len, cap - len, "false");
        return;
    case OP(AND):
    case OP(OR):
        snprintf(buf + len, cap - len, "(");
        put_residual(e->left, buf, cap);
        len = strlen(buf);
        snprintf(buf + len, cap - len, e->op == OP(AND) ? " and " : " or ");
        put_residual(e->right, buf, cap);
        len = strlen(buf);
        snprintf(buf + len, cap - len, ")");
        return;
    default: {
        static const char *ops[] = {[OP(LT)] = "<",
                                    [OP(LT_EQ)] = "<=",
                                    [OP(GT)] = ">",
                                    [OP(GT_EQ)] = ">=",
                                    [OP(EQ)] = "=",
                                    [OP(NOT_EQ)] = "!=",
                                    [OP(IN)] = "in",
                                    [OP(NOT_IN)] = "not in",
                                    [OP(IS_NULL)] = "is null",
                                    [OP(NOT_NULL)] = "not null"};
        const char *op =
            (size_t)e->op < sizeof ops / sizeof ops[0] && ops[e->op] ? ops[e->op] : "?";
        snprintf(buf + len, cap - len, "%d %s", (int)e->field_id, op);
        for (uint32_t i = 0; i < e->n_literals; i++) {
            len = strlen(buf);
            const struct basalt_iceberg_value *v = &e->literals[i];
            long long x = (v->type == T(INT) || v->type == T(DATE)) ? v->u.i32 : v->u.i64;
            snprintf(buf + len, cap - len, " %lld", x);
        }
    }
    }
}

static const char *residual_text(const struct basalt_iceberg_expr *bound,
                                 const struct basalt_iceberg_partition_spec *spec,
                                 const struct basalt_iceberg_value *tuple, uint32_t n)
{
    static char buf[512];
    buf[0] = 0;
    struct basalt_iceberg_expr *out = NULL;
    static struct basalt_error err;
    if (basalt_iceberg_residual(bound, &ev_schema, spec, tuple, n, &ev_arena, &out, &err) !=
        BASALT_OK)
        return err.message;
    put_residual(out, buf, sizeof buf);
    return buf;
}

TEST(iceberg_residuals_identity)
{
    basalt_arena_init(&ev_arena, 4096);
    struct basalt_iceberg_partition_field pf = {
        .source_id = DATEINT, .field_id = 1000, .name = "dateint"};
    CHECK_OK(basalt_iceberg_transform_parse("identity", &pf.transform, NULL), NULL);
    struct basalt_iceberg_partition_spec spec = {.fields = &pf, .n_fields = 1};
    /* TestResidualEvaluator.testIdentityTransformResiduals */
    struct basalt_arena *a = &ev_arena;
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_or(
        a,
        basalt_iceberg_expr_or(
            a,
            basalt_iceberg_expr_and(a, pn(OP(LT), DATEINT, 20170815),
                                    pn(OP(GT), DATEINT, 20170801)),
            basalt_iceberg_expr_and(a, pn(OP(EQ), DATEINT, 20170815), pn(OP(LT), HOUR, 12))),
        basalt_iceberg_expr_and(a, pn(OP(EQ), DATEINT, 20170801), pn(OP(GT), HOUR, 11)));
    struct basalt_iceberg_value t = num(T(INT), 20170815);
    char hour_lt[32], hour_gt[32];
    snprintf(hour_lt, sizeof hour_lt, "%d < 12", HOUR);
    snprintf(hour_gt, sizeof hour_gt, "%d > 11", HOUR);
    CHECK_STR(residual_text(e, &spec, &t, 1), hour_lt);
    t = num(T(INT), 20170801);
    CHECK_STR(residual_text(e, &spec, &t, 1), hour_gt);
    t = num(T(INT), 20170812);
    CHECK_STR(residual_text(e, &spec, &t, 1), "true");
    t = num(T(INT), 20170817);
    CHECK_STR(residual_text(e, &spec, &t, 1), "false");
    /* an unpartitioned spec leaves the expression as it is */
    struct basalt_iceberg_partition_spec none = {.fields = NULL, .n_fields = 0};
    struct basalt_iceberg_expr *two =
        basalt_iceberg_expr_and(a, pn(OP(LT), DATEINT, 5), pn(OP(GT), HOUR, 11));
    char want[64];
    snprintf(want, sizeof want, "(%d < 5 and %d > 11)", DATEINT, HOUR);
    CHECK_STR(residual_text(two, &none, NULL, 0), want);
    /* a null partition value: IS NULL is decided, comparisons are false */
    t.is_null = true;
    CHECK_STR(residual_text(pu(OP(IS_NULL), DATEINT), &spec, &t, 1), "true");
    CHECK_STR(residual_text(pu(OP(NOT_NULL), DATEINT), &spec, &t, 1), "false");
    CHECK_STR(residual_text(pn(OP(EQ), DATEINT, 5), &spec, &t, 1), "false");
    basalt_arena_reset(&ev_arena);
}

TEST(iceberg_residuals_transforms)
{
    basalt_arena_init(&ev_arena, 4096);
    struct basalt_iceberg_partition_field pf[2] = {
        {.source_id = TS, .field_id = 1000, .name = "ts_day"},
        {.source_id = ID, .field_id = 1001, .name = "id_bucket"},
    };
    CHECK_OK(basalt_iceberg_transform_parse("day", &pf[0].transform, NULL), NULL);
    CHECK_OK(basalt_iceberg_transform_parse("bucket[16]", &pf[1].transform, NULL), NULL);
    struct basalt_iceberg_partition_spec spec = {.fields = pf, .n_fields = 2};
    /* 2017-11-16T00:00:00 = 1510790400000000 us, day 17486;
     * 2017-11-16T22:31:08 = 1510871468000000 us */
    struct basalt_iceberg_value tuple[2] = {num(T(DATE), 17486), num(T(INT), 3)};
    char keep[64];
    snprintf(keep, sizeof keep, "%d > 1510871468000000", TS);
    /* every row of day 17486 is >= its midnight */
    CHECK_STR(residual_text(pn(OP(GT_EQ), TS, 1510790400000000.0), &spec, tuple, 2), "true");
    /* some rows of the day may be later than 22:31:08, some not */
    CHECK_STR(residual_text(pn(OP(GT), TS, 1510871468000000.0), &spec, tuple, 2), keep);
    /* no row of day 17485 is */
    tuple[0] = num(T(DATE), 17485);
    CHECK_STR(residual_text(pn(OP(GT), TS, 1510871468000000.0), &spec, tuple, 2), "false");
    /* bucket 3 holds 34 (and others): = 34 stays, = 100 (bucket 0) is ruled out,
     * != 100 holds for every row of bucket 3 */
    char eq34[32];
    snprintf(eq34, sizeof eq34, "%d = 34", ID);
    CHECK_STR(residual_text(pn(OP(EQ), ID, 34), &spec, tuple, 2), eq34);
    CHECK_STR(residual_text(pn(OP(EQ), ID, 100), &spec, tuple, 2), "false");
    CHECK_STR(residual_text(pn(OP(NOT_EQ), ID, 100), &spec, tuple, 2), "true");
    CHECK_STR(residual_text(pin(OP(NOT_IN), ID, 99, 100), &spec, tuple, 2), "true");
    /* conjuncts fold */
    struct basalt_iceberg_expr *e =
        basalt_iceberg_expr_and(&ev_arena, pn(OP(NOT_EQ), ID, 100), pn(OP(EQ), ID, 34));
    CHECK_STR(residual_text(e, &spec, tuple, 2), eq34);
    /* an unbound predicate is refused */
    struct basalt_iceberg_expr *unbound = pn(OP(EQ), ID, 1);
    unbound->field_id = 0;
    struct basalt_iceberg_expr *out;
    CHECK_STATUS(
        basalt_iceberg_residual(unbound, &ev_schema, &spec, tuple, 2, &ev_arena, &out, NULL),
        BASALT_INVALID_ARG, NULL);
    basalt_arena_reset(&ev_arena);
}

struct residual_sweep {
    const struct basalt_iceberg_expr *e;
    const struct basalt_iceberg_partition_spec *spec;
    const struct basalt_iceberg_value *tuple;
};

static basalt_status residual_attempt(void *ctx)
{
    const struct residual_sweep *s = ctx;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 64);
    struct basalt_iceberg_expr *out = NULL;
    basalt_status st =
        basalt_iceberg_residual(s->e, &ev_schema, s->spec, s->tuple, 2, &arena, &out, NULL);
    if (st == BASALT_OK && (!out || out->op != OP(AND)))
        st = BASALT_INTERNAL;
    basalt_arena_reset(&arena);
    return st;
}

TEST(iceberg_residuals_not_and_alloc_failures)
{
    basalt_arena_init(&ev_arena, 4096);
    struct basalt_iceberg_partition_field pf[2] = {
        {.source_id = DATEINT, .field_id = 1000, .name = "dateint"},
        {.source_id = S, .field_id = 1001, .name = "s_trunc"},
    };
    CHECK_OK(basalt_iceberg_transform_parse("identity", &pf[0].transform, NULL), NULL);
    CHECK_OK(basalt_iceberg_transform_parse("truncate[2]", &pf[1].transform, NULL), NULL);
    struct basalt_iceberg_partition_spec spec = {.fields = pf, .n_fields = 2};
    struct basalt_iceberg_value tuple[2] = {num(T(INT), 20170801), str("ab")};
    /* NOT is pushed down: NOT (dateint >= 20170815) holds for 20170801 */
    struct basalt_iceberg_expr *e =
        basalt_iceberg_expr_not(&ev_arena, pn(OP(GT_EQ), DATEINT, 20170815));
    CHECK_STR(residual_text(e, &spec, tuple, 2), "true");
    /* partition 'ab' of truncate[2]: s > 'b' holds for no row, s < 'b' for all */
    CHECK_STR(residual_text(ps(OP(GT), S, "b"), &spec, tuple, 2), "false");
    CHECK_STR(residual_text(ps(OP(LT), S, "b"), &spec, tuple, 2), "true");
    struct basalt_iceberg_expr *two =
        basalt_iceberg_expr_and(&ev_arena, ps(OP(EQ), S, "abc"), pn(OP(GT), HOUR, 3));
    struct residual_sweep s = {two, &spec, tuple};
    CHECK_ALLOC_SWEEP(residual_attempt, &s);
    basalt_arena_reset(&ev_arena);
}
