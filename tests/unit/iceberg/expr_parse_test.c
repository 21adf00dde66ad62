/* The filter language: accepted inputs and their trees, rejected inputs with
 * their byte offsets, canonical text and round trips, builders, NOT push-down. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "expr_internal.h"
#include "test.h"

static struct basalt_iceberg_expr *parse_ok(struct basalt_arena *arena, const char *text)
{
    struct basalt_iceberg_expr *e = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_iceberg_expr_parse(text, arena, &e, &err) != BASALT_OK) {
        fprintf(stderr, "parse '%s': %s\n", text, err.message);
        return NULL;
    }
    return e;
}

TEST(expr_parse_predicates)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *e;

    e = parse_ok(&arena, "a > 5");
    CHECK(e && e->op == BASALT_ICEBERG_OP_GT && e->n_literals == 1);
    CHECK_STR(e->name, "a");
    CHECK_EQ(e->field_id, 0);
    CHECK(e->literals[0].type == BASALT_ICEBERG_TYPE_LONG && e->literals[0].u.i64 == 5);

    e = parse_ok(&arena, "5 < a"); /* the literal on the left flips the operator */
    CHECK(e && e->op == BASALT_ICEBERG_OP_GT && e->literals[0].u.i64 == 5);
    e = parse_ok(&arena, "-7 >= a");
    CHECK(e && e->op == BASALT_ICEBERG_OP_LT_EQ && e->literals[0].u.i64 == -7);

    static const struct {
        const char *text;
        enum basalt_iceberg_op op;
    } ops[] = {{"a = 1", BASALT_ICEBERG_OP_EQ},     {"a == 1", BASALT_ICEBERG_OP_EQ},
               {"a != 1", BASALT_ICEBERG_OP_NOT_EQ}, {"a <> 1", BASALT_ICEBERG_OP_NOT_EQ},
               {"a < 1", BASALT_ICEBERG_OP_LT},      {"a <= 1", BASALT_ICEBERG_OP_LT_EQ},
               {"a > 1", BASALT_ICEBERG_OP_GT},      {"a >= 1", BASALT_ICEBERG_OP_GT_EQ},
               {"a IS NULL", BASALT_ICEBERG_OP_IS_NULL}, {"a is not null", BASALT_ICEBERG_OP_NOT_NULL},
               {"a IS NaN", BASALT_ICEBERG_OP_IS_NAN}, {"a Is Not NAN", BASALT_ICEBERG_OP_NOT_NAN},
               {"a IN (1)", BASALT_ICEBERG_OP_IN},   {"a not in (1)", BASALT_ICEBERG_OP_NOT_IN},
               {"a STARTS WITH 'x'", BASALT_ICEBERG_OP_STARTS_WITH},
               {"a NOT STARTS WITH 'x'", BASALT_ICEBERG_OP_NOT_STARTS_WITH},
               {"a LIKE 'x%'", BASALT_ICEBERG_OP_STARTS_WITH},
               {"a not like 'x%'", BASALT_ICEBERG_OP_NOT_STARTS_WITH}};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        e = parse_ok(&arena, ops[i].text);
        CHECK_MSG(e && e->op == ops[i].op, "'%s'", ops[i].text);
        CHECK_STR(e->name, "a");
    }

    e = parse_ok(&arena, "\"Breed Name\" = 'Lab''s'");
    CHECK(e && e->op == BASALT_ICEBERG_OP_EQ);
    CHECK_STR(e->name, "Breed Name");
    CHECK(e->literals[0].type == BASALT_ICEBERG_TYPE_STRING && e->literals[0].u.bytes.len == 5);
    CHECK_MEM(e->literals[0].u.bytes.data, "Lab's", 5);

    e = parse_ok(&arena, "addr.geo.lat IS NULL");
    CHECK(e);
    CHECK_STR(e->name, "addr.geo.lat");
    e = parse_ok(&arena, "\"x\".\"y \"\"z\"\"\" IS NOT NULL");
    CHECK(e);
    CHECK_STR(e->name, "x.y \"z\"");

    e = parse_ok(&arena, "s LIKE 'ab%'");
    CHECK(e && e->literals[0].u.bytes.len == 2);
    CHECK_MEM(e->literals[0].u.bytes.data, "ab", 2);

    e = parse_ok(&arena, "x IN (1, 'b', 2.5, TRUE)");
    CHECK(e && e->op == BASALT_ICEBERG_OP_IN && e->n_literals == 4);
    CHECK(e->literals[1].type == BASALT_ICEBERG_TYPE_STRING);
    CHECK(e->literals[2].type == BASALT_ICEBERG_TYPE_DECIMAL);
    CHECK(e->literals[3].type == BASALT_ICEBERG_TYPE_BOOLEAN && e->literals[3].u.b);
    e = parse_ok(&arena, "x IN ()");
    CHECK(e && e->op == BASALT_ICEBERG_OP_IN && e->n_literals == 0);
    basalt_arena_reset(&arena);
}

TEST(expr_parse_literals)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *e;
    e = parse_ok(&arena, "d = 12.50");
    CHECK(e && e->literals[0].type == BASALT_ICEBERG_TYPE_DECIMAL);
    CHECK_EQ(e->literals[0].scale, 2);
    CHECK_UEQ(e->literals[0].u.dec.lo, 1250);
    CHECK_EQ(e->literals[0].u.dec.hi, 0);
    e = parse_ok(&arena, "d = -0.05");
    CHECK(e && e->literals[0].scale == 2 && (int64_t)e->literals[0].u.dec.lo == -5 &&
          e->literals[0].u.dec.hi == -1);
    e = parse_ok(&arena, "d = 12.");
    CHECK(e && e->literals[0].type == BASALT_ICEBERG_TYPE_DECIMAL && e->literals[0].scale == 0 &&
          e->literals[0].u.dec.lo == 12);
    /* 38 significant digits fit; leading zeros do not count */
    e = parse_ok(&arena, "d = 0099999999999999999999999999999999999999.");
    CHECK(e && e->literals[0].u.dec.hi == 0x4b3b4ca85a86c47aLL && e->literals[0].u.dec.lo ==
          0x098a223fffffffffULL);
    e = parse_ok(&arena, "x = 1e3");
    CHECK(e && e->literals[0].type == BASALT_ICEBERG_TYPE_DOUBLE && e->literals[0].u.f64 == 1000.0);
    e = parse_ok(&arena, "x = -1.5E-2");
    CHECK(e && e->literals[0].u.f64 == -0.015);
    e = parse_ok(&arena, "x = 9223372036854775807");
    CHECK(e && e->literals[0].u.i64 == INT64_MAX);
    e = parse_ok(&arena, "x = -9223372036854775808");
    CHECK(e && e->literals[0].u.i64 == INT64_MIN);
    e = parse_ok(&arena, "b = TRUE");
    CHECK(e && e->literals[0].type == BASALT_ICEBERG_TYPE_BOOLEAN && e->literals[0].u.b);
    e = parse_ok(&arena, "false <> b");
    CHECK(e && e->op == BASALT_ICEBERG_OP_NOT_EQ && !e->literals[0].u.b);
    CHECK_STR(e->name, "b");
    e = parse_ok(&arena, "s = ''");
    CHECK(e && e->literals[0].type == BASALT_ICEBERG_TYPE_STRING && e->literals[0].u.bytes.len == 0);
    basalt_arena_reset(&arena);
}

TEST(expr_parse_structure)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *e;
    e = parse_ok(&arena, "a = 1 OR b = 2 AND c = 3");
    CHECK(e && e->op == BASALT_ICEBERG_OP_OR && e->right->op == BASALT_ICEBERG_OP_AND);
    CHECK_STR(e->left->name, "a");
    e = parse_ok(&arena, "NOT a = 1 AND b = 2");
    CHECK(e && e->op == BASALT_ICEBERG_OP_AND && e->left->op == BASALT_ICEBERG_OP_NOT);
    CHECK(e->left->left->op == BASALT_ICEBERG_OP_EQ);
    e = parse_ok(&arena, "(a = 1 OR b = 2) and c = 3");
    CHECK(e && e->op == BASALT_ICEBERG_OP_AND && e->left->op == BASALT_ICEBERG_OP_OR);
    e = parse_ok(&arena, "a = 1 AND b = 2 AND c = 3"); /* left-associative */
    CHECK(e && e->op == BASALT_ICEBERG_OP_AND && e->left->op == BASALT_ICEBERG_OP_AND);
    CHECK_STR(e->right->name, "c");
    e = parse_ok(&arena, "TRUE");
    CHECK(e && e->op == BASALT_ICEBERG_OP_TRUE);
    e = parse_ok(&arena, "NOT FALSE OR TRUE");
    CHECK(e && e->op == BASALT_ICEBERG_OP_OR && e->left->op == BASALT_ICEBERG_OP_NOT &&
          e->left->left->op == BASALT_ICEBERG_OP_FALSE && e->right->op == BASALT_ICEBERG_OP_TRUE);
    e = parse_ok(&arena, "  \t\n(((a IS NULL)))  ");
    CHECK(e && e->op == BASALT_ICEBERG_OP_IS_NULL);
    basalt_arena_reset(&arena);
}

TEST(expr_parse_errors)
{
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        {"", "filter: expected an expression at byte 0"},
        {"   ", "filter: expected an expression at byte 3"},
        {"a >", "filter: expected a literal at byte 3"},
        {"a > 5 b", "filter: expected AND, OR or the end at byte 6"},
        {"(a = 1", "filter: expected ')' at byte 6"},
        {"a = 1)", "filter: unbalanced ')' at byte 5"},
        {"a = NULL", "filter: NULL is only allowed in IS NULL / IS NOT NULL at byte 4"},
        {"NULL = a", "filter: NULL is only allowed in IS NULL / IS NOT NULL at byte 0"},
        {"a IS 5", "filter: expected NULL, NOT or NAN after IS at byte 5"},
        {"a IS NOT 5", "filter: expected NULL or NAN after IS NOT at byte 9"},
        {"a = 'abc", "filter: unterminated string starting at byte 4"},
        {"\"ab = 1", "filter: unterminated quoted name starting at byte 0"},
        {"s LIKE '%ab'", "filter: LIKE takes only a 'prefix%' pattern at byte 7"},
        {"s LIKE 'a_b%'", "filter: LIKE takes only a 'prefix%' pattern at byte 7"},
        {"s LIKE 'ab'", "filter: LIKE takes only a 'prefix%' pattern at byte 7"},
        {"s LIKE 5", "filter: expected a string after LIKE at byte 7"},
        {"a = 1 AND", "filter: expected a column name, a literal, NOT, TRUE, FALSE or '(' at byte 9"},
        {"a # 1", "filter: unexpected character at byte 2"},
        {"a ! 1", "filter: expected '!=' (unexpected character '!') at byte 2"},
        {"x = 99999999999999999999", "filter: integer out of the range of a long at byte 4"},
        {"x = 9223372036854775808", "filter: integer out of the range of a long at byte 4"},
        {"x = 1.000000000000000000000000000000000000001",
         "filter: decimal of more than 38 digits at byte 4"},
        {"x IN (1, 2", "filter: expected ',' or ')' in the IN list at byte 10"},
        {"x IN 1", "filter: expected '(' after IN at byte 5"},
        {"x IN (1,)", "filter: expected a literal at byte 8"},
        {"and = 1", "filter: expected a column name, a literal, NOT, TRUE, FALSE or '(' at byte 0"},
        {"a.b. = 1", "filter: expected a column name at byte 5"},
        {"a.in = 1", "filter: expected a column name at byte 2"},
        {"5 = 6", "filter: expected a column name at byte 4"},
        {"5 IS NULL", "filter: expected a comparison operator after the literal at byte 2"},
        {"s STARTS 'a'", "filter: expected WITH after STARTS at byte 9"},
        {"s STARTS WITH 5", "filter: expected a string after STARTS WITH at byte 14"},
        {"a NOT 5", "filter: expected IN, STARTS WITH or LIKE after NOT at byte 6"},
        {"a b", "filter: expected a comparison, IS, IN, NOT, STARTS WITH or LIKE after the column at byte 2"},
        {"a = b", "filter: expected a literal at byte 4"},
        {"a = 5x", "filter: expected AND, OR or the end at byte 5"},
        {"-a = 1", "filter: unexpected character at byte 0"},
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct basalt_iceberg_expr *e = (struct basalt_iceberg_expr *)&arena;
        struct basalt_error err;
        basalt_error_init(&err);
        CHECK_STATUS(basalt_iceberg_expr_parse(cases[i].text, &arena, &e, &err),
                     BASALT_INVALID_ARG, &err);
        CHECK(e == NULL);
        CHECK_MSG(strcmp(err.message, cases[i].message) == 0, "'%s': got \"%s\", want \"%s\"",
                  cases[i].text, err.message, cases[i].message);
    }
    basalt_arena_reset(&arena);
}

/* "NOT " n times, then a predicate; or n '(' ... ')'; or a chain of n ANDs. */
static char *nested(const char *open, const char *mid, const char *close, int n)
{
    size_t lo = strlen(open), lm = strlen(mid), lc = strlen(close);
    char *s = malloc((lo + lc) * (size_t)n + lm + 1), *p = s;
    for (int i = 0; i < n; i++, p += lo)
        memcpy(p, open, lo);
    memcpy(p, mid, lm);
    p += lm;
    for (int i = 0; i < n; i++, p += lc)
        memcpy(p, close, lc);
    *p = '\0';
    return s;
}

TEST(expr_parse_depth_limit)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *e;
    int max = BASALT_ICEBERG_EXPR_MAX_DEPTH;
    struct {
        const char *open, *close;
    } shapes[] = {{"NOT ", ""}, {"(", ")"}, {"a = 1 AND ", ""}};
    for (size_t k = 0; k < 3; k++) {
        /* A chain of ANDs is one level deeper than its count; NOT and '(' count alike. */
        int ok_n = k == 2 ? max - 1 : max - 1;
        char *good = nested(shapes[k].open, "a = 1", shapes[k].close, ok_n);
        char *bad = nested(shapes[k].open, "a = 1", shapes[k].close, max + 1);
        basalt_status s1 = basalt_iceberg_expr_parse(good, &arena, &e, NULL);
        basalt_status s2 = basalt_iceberg_expr_parse(bad, &arena, &e, NULL);
        free(good);
        free(bad);
        CHECK_MSG(s1 == BASALT_OK, "shape %zu: %s", k, basalt_status_name(s1));
        CHECK_MSG(s2 == BASALT_LIMIT, "shape %zu: %s", k, basalt_status_name(s2));
    }
    basalt_arena_reset(&arena);
}

TEST(expr_to_string_round_trip)
{
    static const struct {
        const char *in, *canonical;
    } cases[] = {
        {"a > 5", "a > 5"},
        {"5 < a", "a > 5"},
        {"a <> 1", "a != 1"},
        {"a == 1", "a = 1"},
        {"\"Breed Name\" = 'Lab''s'", "\"Breed Name\" = 'Lab''s'"},
        {"\"and\" = 1", "\"and\" = 1"},
        {"\"a.b\" = 1", "a.b = 1"},
        {"\"x\".\"1y\" IS NULL", "\"x.1y\" IS NULL"},
        {"a = 1 AND b = 2 AND c = 3", "a = 1 AND b = 2 AND c = 3"},
        {"a = 1 AND (b = 2 AND c = 3)", "a = 1 AND (b = 2 AND c = 3)"},
        {"a = 1 OR b = 2 AND c = 3", "a = 1 OR b = 2 AND c = 3"},
        {"(a = 1 OR b = 2) AND NOT (c = 3 OR d IS NULL)",
         "(a = 1 OR b = 2) AND NOT (c = 3 OR d IS NULL)"},
        {"not not a is nan", "NOT NOT a IS NAN"},
        {"x = 1e3", "x = 1e+03"},
        {"x = 0.1e0", "x = 1e-01"},
        {"x = -2.5e-300", "x = -2.5e-300"},
        {"d = 12.50", "d = 12.50"},
        {"d = -0.05", "d = -0.05"},
        {"d = 12.", "d = 12."},
        {"x in (3,1,2)", "x IN (3, 1, 2)"},
        {"x NOT IN ('a', TRUE)", "x NOT IN ('a', TRUE)"},
        {"x IN ()", "x IN ()"},
        {"s like 'ab%'", "s STARTS WITH 'ab'"},
        {"s not starts with ''", "s NOT STARTS WITH ''"},
        {"TRUE", "TRUE"},
        {"NOT (FALSE)", "NOT FALSE"},
        {"b = true", "b = TRUE"},
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct basalt_iceberg_expr *e = parse_ok(&arena, cases[i].in), *again;
        CHECK_MSG(e, "'%s'", cases[i].in);
        char buf[256];
        CHECK_OK(basalt_iceberg_expr_to_string(e, buf, sizeof(buf)), NULL);
        CHECK_MSG(strcmp(buf, cases[i].canonical) == 0, "'%s' -> '%s', want '%s'", cases[i].in,
                  buf, cases[i].canonical);
        again = parse_ok(&arena, buf);
        CHECK_MSG(again && basalt_iceberg_expr_equal(e, again), "'%s' does not round-trip", buf);
    }
    /* LIMIT with a truncated prefix. */
    struct basalt_iceberg_expr *e = parse_ok(&arena, "abc = 12345");
    char small[6];
    CHECK_STATUS(basalt_iceberg_expr_to_string(e, small, sizeof(small)), BASALT_LIMIT, NULL);
    CHECK_STR(small, "abc =");
    char exact[12];
    CHECK_OK(basalt_iceberg_expr_to_string(e, exact, sizeof(exact)), NULL);
    CHECK_STATUS(basalt_iceberg_expr_to_string(e, exact, 11), BASALT_LIMIT, NULL);
    basalt_arena_reset(&arena);
}

TEST(expr_equal_distinguishes)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    const char *texts[] = {"a = 1", "a = 2", "b = 1", "a != 1", "a = 1.", "a = 1e0", "a = '1'",
                           "a = 1 AND b = 1", "b = 1 AND a = 1", "a = 1 OR b = 1", "NOT a = 1",
                           "a IN (1)", "a IN (1, 2)", "x = 0e0", "x = -0e0", "d = 1.0", "d = 1.00"};
    size_t n = sizeof(texts) / sizeof(texts[0]);
    struct basalt_iceberg_expr *e[32];
    for (size_t i = 0; i < n; i++) {
        e[i] = parse_ok(&arena, texts[i]);
        CHECK(e[i]);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            CHECK_MSG(basalt_iceberg_expr_equal(e[i], e[j]) == (i == j), "'%s' vs '%s'", texts[i],
                      texts[j]);
    CHECK(basalt_iceberg_expr_equal(NULL, NULL));
    CHECK(!basalt_iceberg_expr_equal(e[0], NULL));
    basalt_arena_reset(&arena);
}

TEST(expr_builders_fold)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_value five = {.type = BASALT_ICEBERG_TYPE_LONG, .u.i64 = 5};
    struct basalt_iceberg_expr *p = basalt_iceberg_expr_literal(&arena, BASALT_ICEBERG_OP_LT, "a", &five);
    struct basalt_iceberg_expr *t = basalt_iceberg_expr_true(&arena);
    struct basalt_iceberg_expr *f = basalt_iceberg_expr_false(&arena);
    CHECK(p && t && f);
    CHECK(basalt_iceberg_expr_and(&arena, p, t) == p);
    CHECK(basalt_iceberg_expr_and(&arena, t, p) == p);
    CHECK(basalt_iceberg_expr_and(&arena, p, f) == f);
    CHECK(basalt_iceberg_expr_or(&arena, p, t) == t);
    CHECK(basalt_iceberg_expr_or(&arena, f, p) == p);
    CHECK(basalt_iceberg_expr_not(&arena, t)->op == BASALT_ICEBERG_OP_FALSE);
    struct basalt_iceberg_expr *np = basalt_iceberg_expr_not(&arena, p);
    CHECK(np->op == BASALT_ICEBERG_OP_NOT && basalt_iceberg_expr_not(&arena, np) == p);
    CHECK(basalt_iceberg_expr_and(&arena, p, NULL) == NULL);
    CHECK(basalt_iceberg_expr_literal(&arena, BASALT_ICEBERG_OP_IN, "a", &five) == NULL);
    CHECK(basalt_iceberg_expr_unary(&arena, BASALT_ICEBERG_OP_LT, "a") == NULL);
    CHECK(basalt_iceberg_expr_set(&arena, BASALT_ICEBERG_OP_EQ, "a", &five, 1) == NULL);

    /* Literal bytes are copied. */
    char text[] = "abc";
    struct basalt_iceberg_value s = {.type = BASALT_ICEBERG_TYPE_STRING};
    s.u.bytes.data = (const uint8_t *)text;
    s.u.bytes.len = 3;
    struct basalt_iceberg_expr *sw =
        basalt_iceberg_expr_literal(&arena, BASALT_ICEBERG_OP_STARTS_WITH, "s", &s);
    text[0] = 'X';
    CHECK(sw && sw->literals[0].u.bytes.data[0] == 'a');
    char buf[64];
    CHECK_OK(basalt_iceberg_expr_to_string(sw, buf, sizeof(buf)), NULL);
    CHECK_STR(buf, "s STARTS WITH 'abc'");

    CHECK(basalt_iceberg_op_negate(BASALT_ICEBERG_OP_LT) == BASALT_ICEBERG_OP_GT_EQ);
    CHECK(basalt_iceberg_op_negate(BASALT_ICEBERG_OP_NOT_STARTS_WITH) == BASALT_ICEBERG_OP_STARTS_WITH);
    CHECK(basalt_iceberg_op_flip(BASALT_ICEBERG_OP_LT_EQ) == BASALT_ICEBERG_OP_GT_EQ);
    CHECK(basalt_iceberg_op_flip(BASALT_ICEBERG_OP_EQ) == BASALT_ICEBERG_OP_EQ);
    CHECK_STR(basalt_iceberg_op_name(BASALT_ICEBERG_OP_NOT_IN), "NOT_IN");
    for (int op = BASALT_ICEBERG_OP_TRUE; op <= BASALT_ICEBERG_OP_NOT_IN; op++)
        CHECK((int)basalt_iceberg_op_negate(basalt_iceberg_op_negate((enum basalt_iceberg_op)op)) == op);
    basalt_arena_reset(&arena);
}

TEST(expr_rewrite_not)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"NOT (a < 5 AND NOT b IN (1, 2))", "a >= 5 OR b IN (1, 2)"},
        {"NOT (a IS NULL OR f IS NAN)", "a IS NOT NULL AND f IS NOT NAN"},
        {"NOT NOT s STARTS WITH 'x'", "s STARTS WITH 'x'"},
        {"NOT s STARTS WITH 'x'", "s NOT STARTS WITH 'x'"},
        {"NOT (a = 1 OR NOT (b != 2 AND c <= 3))", "a != 1 AND (b != 2 AND c <= 3)"},
        {"NOT TRUE", "FALSE"},
        {"NOT (a > 1 AND TRUE)", "a <= 1 OR FALSE"},
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct basalt_iceberg_expr *e = parse_ok(&arena, cases[i].in);
        CHECK(e);
        struct basalt_iceberg_expr *r = basalt_iceberg_expr_rewrite_not(&arena, e);
        CHECK(r);
        char buf[256];
        CHECK_OK(basalt_iceberg_expr_to_string(r, buf, sizeof(buf)), NULL);
        CHECK_MSG(strcmp(buf, cases[i].out) == 0, "'%s' -> '%s', want '%s'", cases[i].in, buf,
                  cases[i].out);
    }
    basalt_arena_reset(&arena);
}
