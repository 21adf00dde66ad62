/* Binding filters to a schema built here by hand: lookup, literal conversion,
 * folding, errors, bound text round trips, and an allocation sweep. */
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "expr_internal.h"
#include "test.h"

#define F(fid, fname, req, tid) {.id = fid, .name = fname, .required = req, .type = {.id = tid}}

static struct basalt_iceberg_field addr_fields[] = {
    F(19, "city", false, BASALT_ICEBERG_TYPE_STRING),
    F(20, "zip", true, BASALT_ICEBERG_TYPE_INT),
};
static struct basalt_iceberg_field tag_element[] = {F(22, "element", false, BASALT_ICEBERG_TYPE_STRING)};

static struct basalt_iceberg_field fields[] = {
    F(1, "id", true, BASALT_ICEBERG_TYPE_LONG),
    F(2, "name", false, BASALT_ICEBERG_TYPE_STRING),
    F(3, "Breed Name", false, BASALT_ICEBERG_TYPE_STRING),
    {.id = 4, .name = "price", .type = {.id = BASALT_ICEBERG_TYPE_DECIMAL, .precision = 9, .scale = 2}},
    F(5, "f", false, BASALT_ICEBERG_TYPE_FLOAT),
    F(6, "d", false, BASALT_ICEBERG_TYPE_DOUBLE),
    F(7, "day", false, BASALT_ICEBERG_TYPE_DATE),
    F(8, "t", false, BASALT_ICEBERG_TYPE_TIME),
    F(9, "ts", false, BASALT_ICEBERG_TYPE_TIMESTAMP),
    F(10, "tstz", false, BASALT_ICEBERG_TYPE_TIMESTAMPTZ),
    F(11, "tsn", false, BASALT_ICEBERG_TYPE_TIMESTAMP_NS),
    F(12, "tstzn", false, BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS),
    F(13, "u", false, BASALT_ICEBERG_TYPE_UUID),
    {.id = 14, .name = "fx", .type = {.id = BASALT_ICEBERG_TYPE_FIXED, .length = 4}},
    F(15, "bin", false, BASALT_ICEBERG_TYPE_BINARY),
    F(16, "flag", false, BASALT_ICEBERG_TYPE_BOOLEAN),
    F(17, "i", false, BASALT_ICEBERG_TYPE_INT),
    {.id = 18, .name = "addr", .type = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = addr_fields, .n_fields = 2}},
    {.id = 21, .name = "tags", .type = {.id = BASALT_ICEBERG_TYPE_LIST, .fields = tag_element, .n_fields = 1}},
    F(23, "Mixed", false, BASALT_ICEBERG_TYPE_INT),
    F(24, "mixed", false, BASALT_ICEBERG_TYPE_INT),
    F(25, "nothing", false, BASALT_ICEBERG_TYPE_UNKNOWN),
    F(26, "v", false, BASALT_ICEBERG_TYPE_VARIANT),
    F(27, "Upper", true, BASALT_ICEBERG_TYPE_INT),
};

static const struct basalt_iceberg_schema schema = {
    .schema_id = 0,
    .root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = fields,
             .n_fields = sizeof(fields) / sizeof(fields[0])},
};

static basalt_status bind_text(struct basalt_arena *arena, const char *text, bool cs,
                               struct basalt_iceberg_expr **out, struct basalt_error *err)
{
    struct basalt_iceberg_expr *e;
    basalt_status st = basalt_iceberg_expr_parse(text, arena, &e, err);
    if (st != BASALT_OK)
        return st;
    return basalt_iceberg_expr_bind(e, &schema, cs, arena, out, err);
}

/* Binds and checks the canonical text of the result. */
static int bound_is(struct basalt_arena *arena, const char *text, const char *want)
{
    struct basalt_iceberg_expr *b;
    struct basalt_error err;
    basalt_error_init(&err);
    if (bind_text(arena, text, true, &b, &err) != BASALT_OK) {
        fprintf(stderr, "  bind '%s': %s\n", text, err.message);
        return 0;
    }
    char buf[512];
    if (basalt_iceberg_expr_to_string(b, buf, sizeof(buf)) != BASALT_OK || strcmp(buf, want) != 0) {
        fprintf(stderr, "  bind '%s' -> '%s', want '%s'\n", text, buf, want);
        return 0;
    }
    return 1;
}

TEST(expr_bind_predicates)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *b;
    struct basalt_error err;
    CHECK_OK(bind_text(&arena, "id > 5", true, &b, &err), &err);
    CHECK(b->op == BASALT_ICEBERG_OP_GT && b->field_id == 1 && b->type == &fields[0].type);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_LONG && b->literals[0].u.i64 == 5);
    CHECK_STR(b->name, "id");

    CHECK_OK(bind_text(&arena, "addr.city = 'Oslo'", true, &b, &err), &err);
    CHECK(b->field_id == 19 && b->type == &addr_fields[0].type);
    CHECK_STR(b->name, "addr.city");
    CHECK_OK(bind_text(&arena, "ADDR.City = 'Oslo'", false, &b, &err), &err);
    CHECK(b->field_id == 19);
    CHECK_STR(b->name, "addr.city");
    CHECK_STATUS(bind_text(&arena, "ADDR.City = 'Oslo'", true, &b, &err), BASALT_NOT_FOUND, &err);
    CHECK_STR(err.message, "column 'ADDR.City' not found");
    CHECK_OK(bind_text(&arena, "\"Breed Name\" = 'Lab'", true, &b, &err), &err);
    CHECK(b->field_id == 3);
    CHECK_OK(bind_text(&arena, "mixed = 1", true, &b, &err), &err);
    CHECK(b->field_id == 24);
    CHECK_OK(bind_text(&arena, "Mixed = 1", false, &b, &err), &err); /* exact case wins */
    CHECK(b->field_id == 23);
    CHECK_STATUS(bind_text(&arena, "MIXED = 1", false, &b, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(bind_text(&arena, "MIXED = 1", true, &b, &err), BASALT_NOT_FOUND, &err);
    CHECK_OK(bind_text(&arena, "upper = 1", false, &b, &err), &err);
    CHECK(b->field_id == 27);
    CHECK_STR(b->name, "Upper");
    CHECK_STATUS(bind_text(&arena, "nope = 1", true, &b, &err), BASALT_NOT_FOUND, &err);
    CHECK(strstr(err.message, "'nope'") != NULL);
    CHECK_STATUS(bind_text(&arena, "addr.nope = 1", true, &b, &err), BASALT_NOT_FOUND, &err);

    /* Typed literals from strings. */
    CHECK(bound_is(&arena, "day = '2023-03-01'", "day = '2023-03-01'"));
    CHECK_OK(bind_text(&arena, "day = '2023-03-01'", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_DATE && b->literals[0].u.i32 == 19417);
    CHECK_OK(bind_text(&arena, "t < '19:25:00.000001'", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_TIME && b->literals[0].u.i64 == 69900000001LL);
    CHECK_OK(bind_text(&arena, "ts >= '2023-03-01 19:25'", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_TIMESTAMP &&
          b->literals[0].u.i64 == 1677698700000000LL);
    CHECK_OK(bind_text(&arena, "tstz = '2023-03-01T19:25:00+05:30'", true, &b, &err), &err);
    CHECK(b->literals[0].u.i64 == 1677678900000000LL);
    CHECK_OK(bind_text(&arena, "tsn = '2023-03-01T19:25:00.123456789'", true, &b, &err), &err);
    CHECK(b->literals[0].u.i64 == 1677698700123456789LL);
    CHECK_OK(bind_text(&arena, "tstzn = '2023-03-01T19:25:00Z'", true, &b, &err), &err);
    CHECK(b->literals[0].u.i64 == 1677698700000000000LL);
    CHECK_OK(bind_text(&arena, "u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7'", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_UUID && b->literals[0].u.bytes.len == 16 &&
          b->literals[0].u.bytes.data[0] == 0xf7 && b->literals[0].u.bytes.data[15] == 0xe7);
    CHECK_OK(bind_text(&arena, "fx = 'abcd'", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_FIXED && b->literals[0].u.bytes.len == 4);
    CHECK_OK(bind_text(&arena, "bin > 'ab'", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_BINARY);
    CHECK_OK(bind_text(&arena, "price = 12.5", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_DECIMAL && b->literals[0].scale == 2 &&
          b->literals[0].u.dec.lo == 1250);
    CHECK_OK(bind_text(&arena, "price = '12.50'", true, &b, &err), &err);
    CHECK(b->literals[0].u.dec.lo == 1250);
    CHECK_OK(bind_text(&arena, "price = 12", true, &b, &err), &err);
    CHECK(b->literals[0].u.dec.lo == 1200);
    CHECK_OK(bind_text(&arena, "f < 0.1", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_FLOAT && b->literals[0].u.f32 == 0.1f);
    CHECK_OK(bind_text(&arena, "d = 12.50", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_DOUBLE && b->literals[0].u.f64 == 12.5);
    CHECK_OK(bind_text(&arena, "i = 7", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_INT && b->literals[0].u.i32 == 7);
    CHECK_OK(bind_text(&arena, "flag = TRUE", true, &b, &err), &err);
    CHECK(b->literals[0].type == BASALT_ICEBERG_TYPE_BOOLEAN && b->literals[0].u.b);
    CHECK_OK(bind_text(&arena, "name STARTS WITH 'ab'", true, &b, &err), &err);
    CHECK(b->op == BASALT_ICEBERG_OP_STARTS_WITH && b->field_id == 2);
    CHECK_OK(bind_text(&arena, "d IS NAN", true, &b, &err), &err);
    CHECK(b->op == BASALT_ICEBERG_OP_IS_NAN && b->field_id == 6);
    basalt_arena_reset(&arena);
}

TEST(expr_bind_errors)
{
    static const struct {
        const char *text;
        basalt_status status;
    } cases[] = {
        {"id IS NAN", BASALT_INVALID_ARG},          {"name IS NOT NAN", BASALT_INVALID_ARG},
        {"id STARTS WITH '1'", BASALT_INVALID_ARG}, {"bin STARTS WITH 'a'", BASALT_INVALID_ARG},
        {"addr = 1", BASALT_INVALID_ARG},           {"addr IS NULL", BASALT_INVALID_ARG},
        {"tags IS NOT NULL", BASALT_INVALID_ARG},   {"v = 1", BASALT_INVALID_ARG},
        {"day = '2023-02-29'", BASALT_INVALID_ARG}, {"day = 5", BASALT_INVALID_ARG},
        {"ts = '2023-03-01T19:25:00Z'", BASALT_INVALID_ARG},
        {"fx = 'abc'", BASALT_INVALID_ARG},         {"flag = 1", BASALT_INVALID_ARG},
        {"price = 12.345", BASALT_INVALID_ARG},     {"id = 'x'", BASALT_INVALID_ARG},
        {"id = 2.5", BASALT_INVALID_ARG},           {"name = 5", BASALT_INVALID_ARG},
        {"u = 'nope'", BASALT_INVALID_ARG},         {"i IN (1, 'x')", BASALT_INVALID_ARG},
        {"addr.zip.x = 1", BASALT_NOT_FOUND},       {"tags.element = 'a'", BASALT_NOT_FOUND},
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct basalt_iceberg_expr *b = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = bind_text(&arena, cases[i].text, true, &b, &err);
        CHECK_MSG(st == cases[i].status, "'%s': %s (%s)", cases[i].text, basalt_status_name(st),
                  err.message);
        CHECK(b == NULL);
        CHECK(err.message[0] != '\0');
    }
    /* A bound expression does not bind again; NaN literals are refused. */
    struct basalt_iceberg_expr *b, *again;
    CHECK_OK(bind_text(&arena, "id > 5", true, &b, NULL), NULL);
    CHECK_STATUS(basalt_iceberg_expr_bind(b, &schema, true, &arena, &again, NULL), BASALT_INVALID_ARG, NULL);
    struct basalt_iceberg_value nan = {.type = BASALT_ICEBERG_TYPE_DOUBLE};
    nan.u.f64 = __builtin_nan("");
    struct basalt_iceberg_expr *e = basalt_iceberg_expr_literal(&arena, BASALT_ICEBERG_OP_EQ, "d", &nan);
    CHECK_STATUS(basalt_iceberg_expr_bind(e, &schema, true, &arena, &again, NULL), BASALT_INVALID_ARG, NULL);
    basalt_arena_reset(&arena);
}

TEST(expr_bind_folds)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        /* the schema decides nullness */
        {"id IS NULL", "FALSE"},
        {"id IS NOT NULL", "TRUE"},
        {"NOT id IS NULL", "TRUE"},
        {"addr.zip IS NULL", "FALSE"},
        {"nothing IS NULL", "TRUE"},
        {"nothing IS NOT NULL", "FALSE"},
        {"name IS NULL", "name IS NULL"},
        /* literals outside the type's range (Java's aboveMax / belowMin) */
        {"i < 10000000000", "i IS NOT NULL"},
        {"i <= 10000000000", "i IS NOT NULL"},
        {"i > 10000000000", "FALSE"},
        {"i >= -10000000000", "i IS NOT NULL"},
        {"i < -10000000000", "FALSE"},
        {"i = 10000000000", "FALSE"},
        {"i != 10000000000", "i IS NOT NULL"},
        {"i < 1e12", "i IS NOT NULL"},
        {"10000000000 > i", "i IS NOT NULL"},
        {"addr.zip < 10000000000", "TRUE"},
        {"id < 1e30", "TRUE"},
        {"id > 1e30", "FALSE"},
        {"f > 1e39", "FALSE"},
        {"f > -1e39", "f IS NOT NULL"},
        {"price < 12345678.90", "price IS NOT NULL"},
        {"price = -12345678.90", "FALSE"},
        /* sets: converted, sorted, de-duplicated */
        {"i IN (3, 1, 2, 3, 10000000000)", "i IN (1, 2, 3)"},
        {"i IN (10000000000)", "FALSE"},
        {"i NOT IN (10000000000)", "i IS NOT NULL"},
        {"i IN (5)", "i = 5"},
        {"i NOT IN (5, 5)", "i != 5"},
        {"i IN ()", "FALSE"},
        {"name IN ('b', 'a', 'b')", "name IN ('a', 'b')"},
        {"d IN (1.5, 1e0, 1)", "d IN (1e+00, 1.5e+00)"},
        {"day IN ('2023-03-02', '2023-03-01')", "day IN ('2023-03-01', '2023-03-02')"},
        /* NOT pushed down, AND/OR folded */
        {"NOT (id > 5 AND name = 'x')", "id <= 5 OR name != 'x'"},
        {"NOT (i IN (1, 2) OR f IS NAN)", "i NOT IN (1, 2) AND f IS NOT NAN"},
        {"NOT name NOT STARTS WITH 'a'", "name STARTS WITH 'a'"},
        {"id > 5 AND id IS NULL", "FALSE"},
        {"id > 5 OR id IS NOT NULL", "TRUE"},
        {"NOT (id IS NULL OR name = 'x')", "name != 'x'"},
        {"NOT TRUE OR i = 1", "i = 1"},
        /* bound text of typed literals */
        {"ts = '2023-03-01 19:25:00.5'", "ts = '2023-03-01T19:25:00.500000'"},
        {"tstz = '2023-03-01T19:25:00+01:00'", "tstz = '2023-03-01T18:25:00Z'"},
        {"u = 'F79C3E09-677C-4BBD-A479-3F349CB785E7'", "u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7'"},
        {"price > 3", "price > 3.00"},
        {"f = 0.1", "f = 1e-01"},
        {"\"Breed Name\" < 'M'", "\"Breed Name\" < 'M'"},
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK(bound_is(&arena, cases[i].in, cases[i].out));
    basalt_arena_reset(&arena);
}

TEST(expr_bind_text_round_trip)
{
    /* to_string of a bound expression parses and binds back to an equal tree. */
    const char *texts[] = {
        "id > 5 AND (name = 'x' OR \"Breed Name\" STARTS WITH 'L')",
        "day = '2023-03-01' OR t < '19:25:00.000001' OR ts >= '2023-03-01 19:25'",
        "tstz = '2023-03-01T19:25:00+05:30' AND tsn = '2023-03-01T19:25:00.123456789'",
        "tstzn > '1969-12-31T23:59:59.999999999Z'",
        "u IN ('f79c3e09-677c-4bbd-a479-3f349cb785e7', '00000000-0000-0000-0000-000000000000')",
        "fx = 'abcd' AND bin != 'xy' AND flag = FALSE",
        "price IN (12.5, -0.05, 3) AND f < 0.1 AND d >= -2.5e-300",
        "NOT (i IN (1, 2, 3) AND addr.city IS NULL) OR d IS NAN",
        "f != -0e0 AND d > 1e308",
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        struct basalt_iceberg_expr *b, *p, *b2;
        struct basalt_error err;
        CHECK_OK(bind_text(&arena, texts[i], true, &b, &err), &err);
        char buf[1024];
        CHECK_OK(basalt_iceberg_expr_to_string(b, buf, sizeof(buf)), NULL);
        CHECK_OK(basalt_iceberg_expr_parse(buf, &arena, &p, &err), &err);
        CHECK_OK(basalt_iceberg_expr_bind(p, &schema, true, &arena, &b2, &err), &err);
        CHECK_MSG(basalt_iceberg_expr_equal(b, b2), "'%s' -> '%s' binds differently", texts[i], buf);
        CHECK(b->op != BASALT_ICEBERG_OP_NOT);
    }
    basalt_arena_reset(&arena);
}

struct sweep_ctx {
    const char *text;
};

static basalt_status parse_bind_attempt(void *ctx)
{
    const struct sweep_ctx *c = ctx;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 256); /* small blocks: many allocations */
    struct basalt_iceberg_expr *e, *b;
    basalt_status st = basalt_iceberg_expr_parse(c->text, &arena, &e, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_expr_bind(e, &schema, false, &arena, &b, NULL);
    char buf[1024];
    if (st == BASALT_OK && basalt_iceberg_expr_to_string(b, buf, sizeof(buf)) != BASALT_OK)
        st = BASALT_INTERNAL;
    basalt_arena_reset(&arena);
    return st;
}

TEST(expr_parse_bind_alloc_sweep)
{
    struct sweep_ctx ctx = {
        "NOT (id > 5 AND (name IN ('a', 'b', 'c', 'd') OR \"Breed Name\" LIKE 'La%')) OR "
        "addr.city = 'Oslo' AND u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7' AND "
        "price IN (1.25, 2.5, 3) AND day >= '2023-03-01' AND f IS NOT NAN AND i NOT IN (1, 2, 3)"};
    /* Every allocation is failed once; there are several to fail. */
    int64_t attempts = bt_alloc_failure_sweep(__FILE__, __LINE__, parse_bind_attempt, &ctx);
    CHECK_MSG(attempts > 5, "%lld attempts", (long long)attempts);
}
