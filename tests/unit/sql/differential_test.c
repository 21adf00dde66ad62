/* The parser's operator precedence against DuckDB's own parser: random
 * expressions with few parentheses (tests/sql/duckdb_parse.mjs) must give
 * the tree DuckDB's json_serialize_sql gives, or a syntax error on both
 * sides. Trees are compared in a neutral prefix form; the normaliser below
 * applies what DuckDB's transformer does to the tree (AND/OR flattened, NOT
 * over a comparison flipped, NOT over IN made NOT IN). Run by ctest's
 * differential.sql_parse (BASALT_SQL_EXPRS, BASALT_RANDOM_SEED). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql_internal.h"
#include "test.h"

struct nbuf {
    char *s;
    size_t len, cap;
};

static void nput(struct nbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

static char *norm(const struct basalt_sql_expr *e);

/* op(a, b, ...) with the children's texts; a child that is itself an
 * `and(`/`or(` list of the same op is spliced in (DuckDB flattens). */
static char *node(const char *op, char **kids, int n, bool flatten)
{
    struct nbuf b = {0};
    nput(&b, op);
    nput(&b, "(");
    size_t oplen = strlen(op);
    for (int i = 0; i < n; i++) {
        if (i)
            nput(&b, ", ");
        if (flatten && strncmp(kids[i], op, oplen) == 0 && kids[i][oplen] == '(') {
            kids[i][strlen(kids[i]) - 1] = '\0';
            nput(&b, kids[i] + oplen + 1);
        } else {
            nput(&b, kids[i]);
        }
        free(kids[i]);
    }
    nput(&b, ")");
    return b.s;
}

static char *node1(const char *op, const struct basalt_sql_expr *a)
{
    char *k[1] = {norm(a)};
    return node(op, k, 1, false);
}

/* NOT over a normalised child, as DuckDB's transformer does it. */
static char *negate(char *kid)
{
    static const char *const flips[][2] = {
        {"=(", "<>("}, {"<>(", "=("}, {"<(", ">=("}, {">=(", "<("}, {">(", "<=("}, {"<=(", ">("},
        {"distinct(", "notdistinct("}, {"notdistinct(", "distinct("}, {"in(", "notin("},
    };
    for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
        size_t n = strlen(flips[i][0]);
        if (strncmp(kid, flips[i][0], n) == 0) {
            struct nbuf b = {0};
            nput(&b, flips[i][1]);
            nput(&b, kid + n);
            free(kid);
            return b.s;
        }
    }
    char *k[1] = {kid};
    return node("not", k, 1, false);
}

static const char *const binop_names[] = {
    [BASALT_SQL_BINARY_ADD] = "+",      [BASALT_SQL_BINARY_SUB] = "-",   [BASALT_SQL_BINARY_MUL] = "*",
    [BASALT_SQL_BINARY_DIV] = "/",      [BASALT_SQL_BINARY_INTDIV] = "//", [BASALT_SQL_BINARY_MOD] = "%",
    [BASALT_SQL_BINARY_CONCAT] = "||",  [BASALT_SQL_BINARY_EQ] = "=",    [BASALT_SQL_BINARY_NE] = "<>",
    [BASALT_SQL_BINARY_LT] = "<",       [BASALT_SQL_BINARY_LE] = "<=",   [BASALT_SQL_BINARY_GT] = ">",
    [BASALT_SQL_BINARY_GE] = ">=",      [BASALT_SQL_BINARY_AND] = "and", [BASALT_SQL_BINARY_OR] = "or",
    [BASALT_SQL_BINARY_IS_DISTINCT] = "distinct", [BASALT_SQL_BINARY_IS_NOT_DISTINCT] = "notdistinct",
    [BASALT_SQL_BINARY_POW] = "**",     [BASALT_SQL_BINARY_CARET] = "^", [BASALT_SQL_BINARY_BIT_AND] = "&",
    [BASALT_SQL_BINARY_BIT_OR] = "|",   [BASALT_SQL_BINARY_SHIFT_LEFT] = "<<",
    [BASALT_SQL_BINARY_SHIFT_RIGHT] = ">>", [BASALT_SQL_BINARY_STARTS_WITH] = "^@",
    /* DuckDB's transformer: ~ is regexp_full_match, !~ NOT over it */
    [BASALT_SQL_BINARY_REGEX] = "regexp_full_match", [BASALT_SQL_BINARY_NOT_REGEX] = "regexp_full_match",
    [BASALT_SQL_BINARY_LIKE] = "like",  [BASALT_SQL_BINARY_NOT_LIKE] = "notlike",
    [BASALT_SQL_BINARY_ILIKE] = "ilike", [BASALT_SQL_BINARY_NOT_ILIKE] = "notilike",
};

static char *norm(const struct basalt_sql_expr *e)
{
    char *k[8];
    switch (e->kind) {
    case BASALT_SQL_EXPR_COLUMN: {
        struct nbuf b = {0};
        for (int32_t i = 0; i < e->u.column.n_parts; i++) {
            if (i)
                nput(&b, ".");
            nput(&b, e->u.column.parts[i].name);
        }
        return b.s;
    }
    case BASALT_SQL_EXPR_UNARY:
        if (e->u.unary.op == BASALT_SQL_UNARY_NOT)
            return negate(norm(e->u.unary.arg));
        return node1(e->u.unary.op == BASALT_SQL_UNARY_MINUS     ? "-"
                     : e->u.unary.op == BASALT_SQL_UNARY_BIT_NOT ? "~"
                                                                 : "+",
                     e->u.unary.arg);
    case BASALT_SQL_EXPR_BINARY: {
        k[0] = norm(e->u.binary.left);
        k[1] = norm(e->u.binary.right);
        bool conj = e->u.binary.op == BASALT_SQL_BINARY_AND || e->u.binary.op == BASALT_SQL_BINARY_OR;
        char *b = node(binop_names[e->u.binary.op], k, 2, conj);
        return e->u.binary.op == BASALT_SQL_BINARY_NOT_REGEX ? negate(b) : b;
    }
    case BASALT_SQL_EXPR_IS:
        return node1(e->u.is.negated ? "isnotnull" : "isnull", e->u.is.arg);
    case BASALT_SQL_EXPR_CAST: return node1("cast", e->u.cast.arg);
    case BASALT_SQL_EXPR_BETWEEN: {
        k[0] = norm(e->u.between.arg);
        k[1] = norm(e->u.between.low);
        k[2] = norm(e->u.between.high);
        char *b = node("between", k, 3, false);
        return e->u.between.negated ? negate(b) : b;
    }
    case BASALT_SQL_EXPR_IN_LIST: {
        int n = 0;
        k[n++] = norm(e->u.in_list.arg);
        for (int32_t i = 0; i < e->u.in_list.n_items && n < 8; i++)
            k[n++] = norm(e->u.in_list.items[i]);
        return node(e->u.in_list.negated ? "notin" : "in", k, n, false);
    }
    case BASALT_SQL_EXPR_LIKE: {
        k[0] = norm(e->u.like.arg);
        k[1] = norm(e->u.like.pattern);
        if (e->u.like.similar) {
            char *m = node("regexp_full_match", k, 2, false);
            return e->u.like.negated ? negate(m) : m;
        }
        const char *op = e->u.like.ilike ? (e->u.like.negated ? "notilike" : "ilike")
                                         : (e->u.like.negated ? "notlike" : "like");
        return node(op, k, 2, false);
    }
    default: {
        struct nbuf b = {0};
        nput(&b, "?unexpected");
        return b.s;
    }
    }
}

static bool have_node(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-api/package.json", BASALT_TEST_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f && system("command -v node >/dev/null 2>&1") == 0;
}

TEST(sql_duckdb_differential)
{
    const char *on = getenv("BASALT_SQL_DIFFERENTIAL");
    if (!on || strcmp(on, "1") != 0) {
        printf("SKIP sql_duckdb_differential: run by ctest's differential.sql_parse\n");
        return;
    }
    if (!have_node()) {
        const char *req = getenv("BASALT_REQUIRE_PEERS");
        CHECK_MSG(!req || strcmp(req, "1") != 0, "node or node_modules/@duckdb/node-api missing");
        printf("SKIP sql_duckdb_differential: node or @duckdb/node-api missing\n");
        return;
    }
    const char *se = getenv("BASALT_RANDOM_SEED"), *ne = getenv("BASALT_SQL_EXPRS");
    unsigned long long seed = se ? strtoull(se, NULL, 10) : 1;
    int total = ne ? atoi(ne) : 3000;
    char path[] = "/tmp/basalt-sqldiff-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "node '%s/tests/sql/duckdb_parse.mjs' %llu %d '%s'", BASALT_TEST_SOURCE_DIR, seed,
             total, path);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    FILE *in = fopen(path, "r");
    CHECK(in);
    char *line = NULL;
    size_t cap = 0;
    int n = 0, trees = 0, errors = 0, mismatches = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, in)) > 0) {
        if (line[got - 1] == '\n')
            line[--got] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        const char *expected = tab + 1;
        n++;
        size_t len = strlen(line) + 8;
        char *sql = malloc(len);
        snprintf(sql, len, "SELECT %s", line);
        struct basalt_sql_script *s = NULL;
        struct basalt_error err;
        basalt_status st = basalt_sql_parse(sql, strlen(sql), &s, &err);
        char *ours = NULL;
        if (st == BASALT_OK) {
            const struct basalt_sql_statement *stmt = basalt_sql_script_statement(s, 0);
            ours = norm(stmt->query->u.select.items[0].expr);
        }
        bool same = st == BASALT_OK ? strcmp(ours, expected) == 0 : strcmp(expected, "ERROR") == 0;
        if (same) {
            trees += st == BASALT_OK;
            errors += st != BASALT_OK;
        } else if (++mismatches <= 10) {
            fprintf(stderr, "  %s\n    duckdb: %s\n    basalt: %s\n", line, expected, ours ? ours : err.message);
        }
        free(ours);
        free(sql);
        basalt_sql_script_free(s);
    }
    free(line);
    fclose(in);
    remove(path);
    printf("  sql parse differential: seed %llu, %d expressions, %d same trees, %d syntax errors on both "
           "sides, %d mismatches\n",
           seed, n, trees, errors, mismatches);
    CHECK_EQ(n, total);
    CHECK_EQ(mismatches, 0);
}
