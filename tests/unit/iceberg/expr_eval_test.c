/* eval_batch against a row-by-row reference evaluator written here (its own
 * comparisons, three-valued logic), over random batches built with the Arrow
 * builders (every type, nulls, NaN and -0.0, a dictionary column, a nested
 * struct, sliced batches) and random filters of every operator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "test.h"

enum { MAX_ROWS = 300, STRLEN = 8 };

enum kind { K_INT, K_FLOAT, K_DEC, K_BYTES, K_BOOL };

struct column {
    const char *format;
    int32_t field_id;
    enum basalt_iceberg_type_id type;
    enum kind kind;
    int width;        /* fixed / uuid bytes */
    bool dictionary;  /* string values through a dictionary */
    bool in_struct;   /* the child of the struct column */
};

static const struct column columns[] = {
    {"l", 1, BASALT_ICEBERG_TYPE_LONG, K_INT, 0, false, false},
    {"i", 2, BASALT_ICEBERG_TYPE_INT, K_INT, 0, false, false},
    {"g", 3, BASALT_ICEBERG_TYPE_DOUBLE, K_FLOAT, 0, false, false},
    {"f", 4, BASALT_ICEBERG_TYPE_FLOAT, K_FLOAT, 0, false, false},
    {"u", 5, BASALT_ICEBERG_TYPE_STRING, K_BYTES, 0, false, false},
    {"z", 6, BASALT_ICEBERG_TYPE_BINARY, K_BYTES, 0, false, false},
    {"w:4", 7, BASALT_ICEBERG_TYPE_FIXED, K_BYTES, 4, false, false},
    {"d:9,2", 8, BASALT_ICEBERG_TYPE_DECIMAL, K_DEC, 0, false, false},
    {"tdD", 9, BASALT_ICEBERG_TYPE_DATE, K_INT, 0, false, false},
    {"ttu", 10, BASALT_ICEBERG_TYPE_TIME, K_INT, 0, false, false},
    {"tsu:", 11, BASALT_ICEBERG_TYPE_TIMESTAMP, K_INT, 0, false, false},
    {"tsu:UTC", 12, BASALT_ICEBERG_TYPE_TIMESTAMPTZ, K_INT, 0, false, false},
    {"tsn:", 13, BASALT_ICEBERG_TYPE_TIMESTAMP_NS, K_INT, 0, false, false},
    {"b", 14, BASALT_ICEBERG_TYPE_BOOLEAN, K_BOOL, 0, false, false},
    {"U", 15, BASALT_ICEBERG_TYPE_STRING, K_BYTES, 0, false, false},
    {"i", 16, BASALT_ICEBERG_TYPE_STRING, K_BYTES, 0, true, false},
    {"w:16", 17, BASALT_ICEBERG_TYPE_UUID, K_BYTES, 16, false, false},
    {"i", 19, BASALT_ICEBERG_TYPE_INT, K_INT, 0, false, true},
    {"f", 20, BASALT_ICEBERG_TYPE_DOUBLE, K_FLOAT, 0, false, false},
    {"i", 21, BASALT_ICEBERG_TYPE_LONG, K_INT, 0, false, false},
    {"d:9,2,64", 22, BASALT_ICEBERG_TYPE_DECIMAL, K_DEC, 0, false, false},
};
enum { NCOLS = sizeof(columns) / sizeof(columns[0]), STRUCT_ID = 18 };

static char names[NCOLS][8];

/* ------------------------------------------------------------ the table */

struct cell {
    bool null;
    int64_t i;          /* K_INT, K_BOOL, K_DEC (unscaled) */
    double f;           /* K_FLOAT (float columns hold floats) */
    uint8_t bytes[STRLEN + 16];
    size_t len;
};

struct table {
    int64_t n;
    struct cell cells[NCOLS][MAX_ROWS];
    bool struct_null[MAX_ROWS];
};

static const char *const alphabet_strings[] = {"", "a", "b", "aa", "ab", "ba", "bb", "aaa",
                                               "aab", "aba", "abb", "baa", "bab", "bba", "bbb",
                                               "abab", "\xc3\xa9", "a'b", "\x80"};
enum { NSTR = sizeof(alphabet_strings) / sizeof(alphabet_strings[0]) };

static const char *const fixed4[] = {"abcd", "abce", "zzzz", "\x80\x81\x82\x83", "aaaa"};
static const char *const uuids[] = {"f79c3e09-677c-4bbd-a479-3f349cb785e7",
                                    "00000000-0000-0000-0000-000000000000",
                                    "ffffffff-ffff-ffff-ffff-ffffffffffff",
                                    "80000000-0000-0000-0000-000000000001"};
static const uint8_t uuid_bytes[4][16] = {
    {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7},
    {0},
    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
    {0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};

/* Times, timestamps: value and its literal text (python3 datetime). */
static const struct {
    int64_t v;
    const char *text;
} times[] = {{0, "00:00:00"}, {1, "00:00:00.000001"}, {3600000000, "01:00:00"},
             {86399999999, "23:59:59.999999"}},
  stamps[] = {{0, "1970-01-01T00:00:00"}, {1677698700123456, "2023-03-01T19:25:00.123456"},
              {-1, "1969-12-31T23:59:59.999999"}, {1677698700000000, "2023-03-01 19:25"}},
  stamps_tz[] = {{0, "1970-01-01T00:00:00Z"}, {1677698700123456, "2023-03-01T20:25:00.123456+01:00"},
                 {-1, "1969-12-31T23:59:59.999999Z"}, {1677698700000000, "2023-03-01T19:25:00Z"}},
  stamps_ns[] = {{0, "1970-01-01T00:00:00"}, {1677698700123456789, "2023-03-01T19:25:00.123456789"},
                 {-1, "1969-12-31T23:59:59.999999999"}};

static const double specials[] = {-INFINITY, -1.5, -0.0, 0.0, 1.5, INFINITY, 2.0};
static const char *const special_text[] = {"-1e999", "-1.5e0", "-0e0", "0e0", "1.5", "1e999", "2"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void random_value(struct bt_rng *rng, const struct column *c, struct cell *cell)
{
    memset(cell, 0, sizeof(*cell));
    switch (c->type) {
    case BASALT_ICEBERG_TYPE_LONG:
        if (strcmp(c->format, "l") == 0) {
            cell->i = bt_rng_below(rng, 20) == 0 ? (bt_rng_below(rng, 2) ? INT64_MAX : INT64_MIN)
                                                  : (int64_t)bt_rng_below(rng, 81) - 40;
            break;
        }
        /* fall through */
    case BASALT_ICEBERG_TYPE_INT:
        cell->i = bt_rng_below(rng, 20) == 0 ? (bt_rng_below(rng, 2) ? INT32_MAX : INT32_MIN)
                                              : (int64_t)bt_rng_below(rng, 81) - 40;
        break;
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        uint64_t r = bt_rng_below(rng, 12);
        if (r < N_OF(specials))
            cell->f = specials[r];
        else if (r == 7)
            cell->f = fabs(NAN);
        else if (r == 8)
            cell->f = -fabs(NAN);
        else
            cell->f = (double)((int64_t)bt_rng_below(rng, 41) - 20);
        if (strcmp(c->format, "f") == 0)
            cell->f = (float)cell->f;
        break;
    }
    case BASALT_ICEBERG_TYPE_DECIMAL:
        cell->i = bt_rng_below(rng, 10) == 0 ? (bt_rng_below(rng, 2) ? 999999999 : -999999999)
                                              : (int64_t)bt_rng_below(rng, 81) - 40;
        break;
    case BASALT_ICEBERG_TYPE_DATE:
        cell->i = 19417 + (int64_t)bt_rng_below(rng, 31); /* 2023-03-01 .. 2023-03-31 */
        break;
    case BASALT_ICEBERG_TYPE_TIME: cell->i = times[bt_rng_below(rng, N_OF(times))].v; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ: cell->i = stamps[bt_rng_below(rng, N_OF(stamps))].v; break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS: cell->i = stamps_ns[bt_rng_below(rng, N_OF(stamps_ns))].v; break;
    case BASALT_ICEBERG_TYPE_BOOLEAN: cell->i = (int64_t)bt_rng_below(rng, 2); break;
    case BASALT_ICEBERG_TYPE_FIXED: {
        const char *s = fixed4[bt_rng_below(rng, N_OF(fixed4))];
        memcpy(cell->bytes, s, 4);
        cell->len = 4;
        break;
    }
    case BASALT_ICEBERG_TYPE_UUID:
        memcpy(cell->bytes, uuid_bytes[bt_rng_below(rng, 4)], 16);
        cell->len = 16;
        break;
    default: {
        const char *s = alphabet_strings[bt_rng_below(rng, NSTR)];
        cell->len = strlen(s);
        memcpy(cell->bytes, s, cell->len);
        break;
    }
    }
}

/* A literal in the filter language for a random value of the column (and,
 * for integers, sometimes one outside the column's range). */
static void random_literal(struct bt_rng *rng, const struct column *c, char *out, size_t cap)
{
    switch (c->type) {
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_INT:
        if (bt_rng_below(rng, 15) == 0)
            snprintf(out, cap, "%s", bt_rng_below(rng, 2) ? "10000000000" : "-10000000000");
        else
            snprintf(out, cap, "%d", (int)bt_rng_below(rng, 81) - 40);
        return;
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        uint64_t r = bt_rng_below(rng, 10);
        if (r < N_OF(specials))
            snprintf(out, cap, "%s", special_text[r]);
        else
            snprintf(out, cap, "%d", (int)bt_rng_below(rng, 41) - 20);
        return;
    }
    case BASALT_ICEBERG_TYPE_DECIMAL: {
        int v = (int)bt_rng_below(rng, 81) - 40;
        if (bt_rng_below(rng, 10) == 0)
            v = bt_rng_below(rng, 2) ? 999999999 : -999999999;
        snprintf(out, cap, "%s%d.%02d", v < 0 ? "-" : "", abs(v) / 100, abs(v) % 100);
        return;
    }
    case BASALT_ICEBERG_TYPE_DATE:
        snprintf(out, cap, "'2023-03-%02d'", 1 + (int)bt_rng_below(rng, 31));
        return;
    case BASALT_ICEBERG_TYPE_TIME: snprintf(out, cap, "'%s'", times[bt_rng_below(rng, N_OF(times))].text); return;
    case BASALT_ICEBERG_TYPE_TIMESTAMP: snprintf(out, cap, "'%s'", stamps[bt_rng_below(rng, N_OF(stamps))].text); return;
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ: snprintf(out, cap, "'%s'", stamps_tz[bt_rng_below(rng, N_OF(stamps_tz))].text); return;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS: snprintf(out, cap, "'%s'", stamps_ns[bt_rng_below(rng, N_OF(stamps_ns))].text); return;
    case BASALT_ICEBERG_TYPE_BOOLEAN: snprintf(out, cap, "%s", bt_rng_below(rng, 2) ? "TRUE" : "FALSE"); return;
    case BASALT_ICEBERG_TYPE_FIXED: snprintf(out, cap, "'%s'", fixed4[bt_rng_below(rng, N_OF(fixed4))]); return;
    case BASALT_ICEBERG_TYPE_UUID: snprintf(out, cap, "'%s'", uuids[bt_rng_below(rng, 4)]); return;
    default: {
        const char *s = alphabet_strings[bt_rng_below(rng, NSTR)];
        size_t n = 0;
        out[n++] = '\'';
        for (; *s; s++) {
            out[n++] = *s;
            if (*s == '\'')
                out[n++] = '\'';
        }
        out[n++] = '\'';
        out[n] = '\0';
        return;
    }
    }
}

static basalt_status set_field_id(struct basalt_arrow_builder *b, int32_t id)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    char text[16];
    snprintf(text, sizeof(text), "%d", (int)id);
    basalt_status st = basalt_arrow_metadata_append(&buf, "PARQUET:field_id", 16, text, strlen(text), NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_set_metadata(b, (const char *)buf.data, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

#define TRY(x)                                                                              \
    do {                                                                                    \
        basalt_status st_ = (x);                                                            \
        if (st_ != BASALT_OK) {                                                             \
            fprintf(stderr, "  build: %s failed at line %d\n", #x, __LINE__);              \
            goto done;                                                                      \
        }                                                                                   \
    } while (0)

static basalt_status append(struct basalt_arrow_builder *b, const struct column *c,
                            const struct cell *cell)
{
    if (cell->null)
        return basalt_arrow_builder_append_null(b, NULL);
    switch (c->kind) {
    case K_INT:
    case K_DEC: return basalt_arrow_builder_append_int(b, cell->i, NULL);
    case K_FLOAT: return basalt_arrow_builder_append_double(b, cell->f, NULL);
    case K_BOOL: return basalt_arrow_builder_append_bool(b, cell->i != 0, NULL);
    default: return basalt_arrow_builder_append_bytes(b, cell->bytes, (int64_t)cell->len, NULL);
    }
}

/* Fills the table at random and builds the batch. */
static basalt_status build(struct bt_rng *rng, struct table *t, int64_t n, struct ArrowSchema *schema,
                           struct ArrowArray *array)
{
    basalt_status st = BASALT_NOMEM;
    struct basalt_arrow_builder *root = NULL, *child[NCOLS], *strct = NULL, *dict = NULL;
    t->n = n;
    TRY(st = basalt_arrow_builder_new("+s", "", 0, &root, NULL));
    for (int k = 0; k < NCOLS; k++) {
        const struct column *c = &columns[k];
        snprintf(names[k], sizeof(names[k]), "c%d", (int)c->field_id);
        struct basalt_arrow_builder *parent = root;
        if (c->in_struct) {
            TRY(st = basalt_arrow_builder_add_child(root, "+s", "s", ARROW_FLAG_NULLABLE, &strct, NULL));
            TRY(st = set_field_id(strct, STRUCT_ID));
            parent = strct;
        }
        TRY(st = basalt_arrow_builder_add_child(parent, c->format, names[k], ARROW_FLAG_NULLABLE,
                                                &child[k], NULL));
        TRY(st = set_field_id(child[k], c->field_id));
        if (c->dictionary) {
            TRY(st = basalt_arrow_builder_add_dictionary(child[k], "u", &dict, NULL));
            for (int s = 0; s < NSTR; s++)
                TRY(st = basalt_arrow_builder_append_string(dict, alphabet_strings[s], NULL));
            TRY(st = basalt_arrow_builder_append_null(dict, NULL)); /* index NSTR: a null value */
        }
    }
    for (int64_t r = 0; r < n; r++) {
        t->struct_null[r] = bt_rng_below(rng, 8) == 0;
        for (int k = 0; k < NCOLS; k++) {
            const struct column *c = &columns[k];
            struct cell *cell = &t->cells[k][r];
            random_value(rng, c, cell);
            cell->null = bt_rng_below(rng, 6) == 0;
            if (c->in_struct) {
                if (t->struct_null[r]) {
                    cell->null = true; /* filled by the struct's null */
                    continue;
                }
                TRY(st = append(child[k], c, cell));
                TRY(st = basalt_arrow_builder_end_element(strct, NULL));
            } else if (c->dictionary) {
                int64_t idx = (int64_t)bt_rng_below(rng, NSTR + 1);
                if (cell->null) {
                    TRY(st = basalt_arrow_builder_append_null(child[k], NULL));
                } else {
                    TRY(st = basalt_arrow_builder_append_int(child[k], idx, NULL));
                    if (idx == NSTR) {
                        cell->null = true;
                    } else {
                        cell->len = strlen(alphabet_strings[idx]);
                        memcpy(cell->bytes, alphabet_strings[idx], cell->len);
                    }
                }
            } else {
                TRY(st = append(child[k], c, cell));
            }
        }
        for (int k = 0; k < NCOLS; k++)
            if (columns[k].in_struct && t->struct_null[r])
                TRY(st = basalt_arrow_builder_append_null(strct, NULL));
        TRY(st = basalt_arrow_builder_end_element(root, NULL));
    }
    st = basalt_arrow_builder_finish(root, schema, array, NULL);
done:
    basalt_arrow_builder_free(root);
    return st;
}

/* ------------------------------------------------------------ the reference */

static const struct column *column_of(int32_t id, int *index)
{
    for (int k = 0; k < NCOLS; k++)
        if (columns[k].field_id == id) {
            *index = k;
            return &columns[k];
        }
    return NULL;
}

/* The spec's order written independently: -NaN < -inf < ... < -0 < 0 < ... < inf < NaN
 * (NaNs never get here: ref_eval applies IEEE 754's rule to them first). */
static int ref_cmp_double(double a, double b)
{
    int ra = isnan(a) ? (signbit(a) ? 0 : 2) : 1, rb = isnan(b) ? (signbit(b) ? 0 : 2) : 1;
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra != 1)
        return 0;
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    return (int)(signbit(b) != 0) - (int)(signbit(a) != 0);
}

static int ref_cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    for (size_t i = 0; i < an && i < bn; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

static int ref_cmp(const struct column *c, const struct cell *cell, const struct basalt_iceberg_value *lit)
{
    switch (c->kind) {
    case K_FLOAT:
        return ref_cmp_double(cell->f, lit->type == BASALT_ICEBERG_TYPE_FLOAT ? lit->u.f32 : lit->u.f64);
    case K_DEC: {
        /* lit's unscaled value fits int64 in these tests */
        int64_t l = (int64_t)lit->u.dec.lo;
        return cell->i < l ? -1 : cell->i > l;
    }
    case K_BYTES: return ref_cmp_bytes(cell->bytes, cell->len, lit->u.bytes.data, lit->u.bytes.len);
    case K_BOOL: return (int)cell->i - (int)lit->u.b;
    default: {
        int64_t l = (lit->type == BASALT_ICEBERG_TYPE_INT || lit->type == BASALT_ICEBERG_TYPE_DATE)
                        ? lit->u.i32 : lit->u.i64;
        return cell->i < l ? -1 : cell->i > l;
    }
    }
}

enum { F = 0, T = 1, U = 2 };

static int ref_eval(const struct basalt_iceberg_expr *e, const struct table *t, int64_t r)
{
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE: return T;
    case BASALT_ICEBERG_OP_FALSE: return F;
    case BASALT_ICEBERG_OP_NOT: {
        int x = ref_eval(e->left, t, r);
        return x == U ? U : !x;
    }
    case BASALT_ICEBERG_OP_AND: {
        int a = ref_eval(e->left, t, r), b = ref_eval(e->right, t, r);
        return (a == F || b == F) ? F : (a == U || b == U) ? U : T;
    }
    case BASALT_ICEBERG_OP_OR: {
        int a = ref_eval(e->left, t, r), b = ref_eval(e->right, t, r);
        return (a == T || b == T) ? T : (a == U || b == U) ? U : F;
    }
    default: break;
    }
    int k = 0;
    const struct column *c = column_of(e->field_id, &k);
    const struct cell *cell = &t->cells[k][r];
    bool null = cell->null;
    switch (e->op) {
    case BASALT_ICEBERG_OP_IS_NULL: return null ? T : F;
    case BASALT_ICEBERG_OP_NOT_NULL: return null ? F : T;
    default: break;
    }
    if (null)
        return U;
    /* IEEE 754 for NaN: only != (and NOT IN) holds. */
    if (c->kind == K_FLOAT && e->n_literals && e->op != BASALT_ICEBERG_OP_IN &&
        e->op != BASALT_ICEBERG_OP_NOT_IN) {
        const struct basalt_iceberg_value *l = &e->literals[0];
        double lv = l->type == BASALT_ICEBERG_TYPE_FLOAT ? l->u.f32 : l->u.f64;
        if (isnan(cell->f) || isnan(lv))
            return e->op == BASALT_ICEBERG_OP_NOT_EQ ? T : F;
    }
    if (c->kind == K_FLOAT && isnan(cell->f) &&
        (e->op == BASALT_ICEBERG_OP_IN || e->op == BASALT_ICEBERG_OP_NOT_IN))
        return e->op == BASALT_ICEBERG_OP_NOT_IN ? T : F;
    int cmp0 = e->n_literals ? ref_cmp(c, cell, &e->literals[0]) : 0;
    switch (e->op) {
    case BASALT_ICEBERG_OP_IS_NAN: return isnan(cell->f) ? T : F;
    case BASALT_ICEBERG_OP_NOT_NAN: return isnan(cell->f) ? F : T;
    case BASALT_ICEBERG_OP_LT: return cmp0 < 0;
    case BASALT_ICEBERG_OP_LT_EQ: return cmp0 <= 0;
    case BASALT_ICEBERG_OP_GT: return cmp0 > 0;
    case BASALT_ICEBERG_OP_GT_EQ: return cmp0 >= 0;
    case BASALT_ICEBERG_OP_EQ: return cmp0 == 0;
    case BASALT_ICEBERG_OP_NOT_EQ: return cmp0 != 0;
    case BASALT_ICEBERG_OP_STARTS_WITH:
    case BASALT_ICEBERG_OP_NOT_STARTS_WITH: {
        const struct basalt_iceberg_value *p = &e->literals[0];
        bool sw = cell->len >= p->u.bytes.len && memcmp(cell->bytes, p->u.bytes.data, p->u.bytes.len) == 0;
        return (e->op == BASALT_ICEBERG_OP_STARTS_WITH) == sw ? T : F;
    }
    case BASALT_ICEBERG_OP_IN:
    case BASALT_ICEBERG_OP_NOT_IN: {
        bool hit = false;
        for (uint32_t i = 0; i < e->n_literals; i++)
            if (ref_cmp(c, cell, &e->literals[i]) == 0)
                hit = true;
        return (e->op == BASALT_ICEBERG_OP_IN) == hit ? T : F;
    }
    default: return U;
    }
}

/* ------------------------------------------------------------ filters */

static void random_filter(struct bt_rng *rng, int depth, char *out, size_t cap)
{
    uint64_t shape = depth >= 3 ? 9 : bt_rng_below(rng, 10);
    if (shape < 2 || shape == 2) {
        char a[8192], b[8192];
        random_filter(rng, depth + 1, a, sizeof(a));
        if (shape == 2) {
            snprintf(out, cap, "NOT (%s)", a);
            return;
        }
        random_filter(rng, depth + 1, b, sizeof(b));
        snprintf(out, cap, "(%s) %s (%s)", a, shape == 0 ? "AND" : "OR", b);
        return;
    }
    const struct column *c = &columns[bt_rng_below(rng, NCOLS)];
    char name[16], lit[64];
    snprintf(name, sizeof(name), c->in_struct ? "s.c%d" : "c%d", (int)c->field_id);
    bool is_float = c->kind == K_FLOAT;
    bool is_string = c->type == BASALT_ICEBERG_TYPE_STRING;
    for (;;) {
        switch (bt_rng_below(rng, 14)) {
        case 0: snprintf(out, cap, "%s IS NULL", name); return;
        case 1: snprintf(out, cap, "%s IS NOT NULL", name); return;
        case 2:
        case 3:
            if (!is_float)
                continue;
            snprintf(out, cap, "%s IS %sNAN", name, bt_rng_below(rng, 2) ? "NOT " : "");
            return;
        case 4:
        case 5:
            if (!is_string)
                continue;
            random_literal(rng, c, lit, sizeof(lit));
            snprintf(out, cap, "%s %sSTARTS WITH %s", name, bt_rng_below(rng, 2) ? "NOT " : "", lit);
            return;
        case 6:
        case 7: {
            int n = bt_rng_below(rng, 3) == 0 ? 20 + (int)bt_rng_below(rng, 40) : (int)bt_rng_below(rng, 6);
            size_t len = (size_t)snprintf(out, cap, "%s %sIN (", name, bt_rng_below(rng, 2) ? "NOT " : "");
            for (int i = 0; i < n; i++) {
                random_literal(rng, c, lit, sizeof(lit));
                len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ", " : "", lit);
            }
            snprintf(out + len, cap - len, ")");
            return;
        }
        default: {
            static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">="};
            random_literal(rng, c, lit, sizeof(lit));
            if (bt_rng_below(rng, 4) == 0)
                snprintf(out, cap, "%s %s %s", lit, ops[bt_rng_below(rng, 6)], name);
            else
                snprintf(out, cap, "%s %s %s", name, ops[bt_rng_below(rng, 6)], lit);
            return;
        }
        }
    }
}

static struct basalt_iceberg_field struct_fields[1];
static struct basalt_iceberg_field schema_fields[NCOLS];

static void make_schema(struct basalt_iceberg_schema *s)
{
    int n = 0;
    for (int k = 0; k < NCOLS; k++) {
        const struct column *c = &columns[k];
        struct basalt_iceberg_field f;
        memset(&f, 0, sizeof(f));
        f.id = c->field_id;
        f.name = names[k];
        f.type.id = c->type;
        f.type.precision = 9;
        f.type.scale = 2;
        f.type.length = c->width;
        if (c->in_struct) {
            struct_fields[0] = f;
            memset(&f, 0, sizeof(f));
            f.id = STRUCT_ID;
            f.name = "s";
            f.type.id = BASALT_ICEBERG_TYPE_STRUCT;
            f.type.fields = struct_fields;
            f.type.n_fields = 1;
        }
        schema_fields[n++] = f;
    }
    memset(s, 0, sizeof(*s));
    s->root.id = BASALT_ICEBERG_TYPE_STRUCT;
    s->root.fields = schema_fields;
    s->root.n_fields = (uint32_t)n;
}

static int count_big_sets(const struct basalt_iceberg_expr *e)
{
    if (!e)
        return 0;
    if (e->op == BASALT_ICEBERG_OP_AND || e->op == BASALT_ICEBERG_OP_OR)
        return count_big_sets(e->left) + count_big_sets(e->right);
    return (e->op == BASALT_ICEBERG_OP_IN || e->op == BASALT_ICEBERG_OP_NOT_IN) && e->n_literals >= 16;
}

TEST(expr_eval_random_against_reference)
{
    static struct table table;
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    struct basalt_iceberg_schema schema;
    int64_t trues = 0, falses = 0, big_sets = 0, filters = 0;
    for (int batch = 0; batch < 12; batch++) {
        int64_t n = batch == 0 ? 1 : batch == 1 ? 64 : batch == 2 ? 65 : (int64_t)bt_rng_below(&rng, MAX_ROWS + 1);
        struct ArrowSchema as;
        struct ArrowArray aa;
        CHECK_OK(build(&rng, &table, n, &as, &aa), NULL);
        make_schema(&schema);
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        uint8_t match[MAX_ROWS / 8 + 2];
        for (int q = 0; q < 150; q++) {
            static char text[1 << 15];
            random_filter(&rng, 0, text, sizeof(text));
            struct basalt_iceberg_expr *e, *b;
            struct basalt_error err;
            basalt_status st = basalt_iceberg_expr_parse(text, &arena, &e, &err);
            if (st == BASALT_OK)
                st = basalt_iceberg_expr_bind(e, &schema, true, &arena, &b, &err);
            CHECK_MSG(st == BASALT_OK, "'%s': %s", text, err.message);
            big_sets += count_big_sets(b);
            filters++;
            /* NOT over the bound tree exercises the validity bitmaps. */
            if (bt_rng_below(&rng, 3) == 0) {
                b = basalt_iceberg_expr_not(&arena, b);
                CHECK(b);
            }
            /* The whole batch, and the batch sliced at an offset. */
            for (int slice = 0; slice < 2; slice++) {
                struct ArrowArray view = aa;
                int64_t off = slice && n > 0 ? (int64_t)bt_rng_below(&rng, (uint64_t)n) : 0;
                view.offset = off;
                view.length = n - off;
                memset(match, 0xa5, sizeof(match));
                CHECK_OK(basalt_iceberg_expr_eval_batch(b, &as, &view, match, &err), &err);
                for (int64_t r = 0; r < n - off; r++) {
                    int want = ref_eval(b, &table, r + off);
                    bool got = (match[r / 8] >> (r % 8)) & 1;
                    CHECK_MSG(got == (want == T), "'%s' row %lld (offset %lld): got %d, want %d",
                              text, (long long)(r + off), (long long)off, got, want);
                    if (want == T)
                        trues++;
                    else
                        falses++;
                }
                if ((n - off) % 8)
                    CHECK_EQ(match[(n - off) / 8] >> ((n - off) % 8), 0);
            }
        }
        basalt_arena_reset(&arena);
        basalt_arrow_array_release(&aa);
        basalt_arrow_schema_release(&as);
    }
    /* The test means something: both outcomes happen, and hash sets were used. */
    CHECK(trues > 1000 && falses > 1000);
    CHECK_MSG(big_sets > 20, "only %lld sets of 16+ literals", (long long)big_sets);
    CHECK(filters == 12 * 150);
}

/* A hand-made batch: three-valued logic spelled out. */
TEST(expr_eval_three_valued)
{
    struct basalt_arrow_builder *root, *c;
    struct ArrowSchema as;
    struct ArrowArray aa;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(root, "i", "x", ARROW_FLAG_NULLABLE, &c, NULL), NULL);
    CHECK_OK(set_field_id(c, 1), NULL);
    int64_t vals[3] = {1, 0, 3};
    for (int r = 0; r < 3; r++) {
        if (r == 1)
            CHECK_OK(basalt_arrow_builder_append_null(c, NULL), NULL);
        else
            CHECK_OK(basalt_arrow_builder_append_int(c, vals[r], NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(root, NULL), NULL);
    }
    CHECK_OK(basalt_arrow_builder_finish(root, &as, &aa, NULL), NULL);
    basalt_arrow_builder_free(root);
    struct basalt_iceberg_field fld = {.id = 1, .name = "x", .type = {.id = BASALT_ICEBERG_TYPE_INT}};
    struct basalt_iceberg_schema s = {.root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = &fld, .n_fields = 1}};
    static const struct {
        const char *text;
        uint8_t bits; /* rows 0..2 */
    } cases[] = {
        {"x = 1", 0x1},           {"NOT x = 1", 0x4},         {"x != 1", 0x4},
        {"x IS NULL", 0x2},       {"x IS NOT NULL", 0x5},     {"x = 1 OR x IS NULL", 0x3},
        {"x != 1 OR x = 1", 0x5}, {"NOT (x > 1 AND x < 5)", 0x1}, {"x IN (1, 3)", 0x5},
        {"x NOT IN (1)", 0x4},    {"TRUE", 0x7},              {"FALSE", 0x0},
        {"x < 10000000000", 0x5}, {"NOT (x = 1 OR x IS NULL)", 0x4},
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct basalt_iceberg_expr *e, *b;
        CHECK_OK(basalt_iceberg_expr_parse(cases[i].text, &arena, &e, NULL), NULL);
        CHECK_OK(basalt_iceberg_expr_bind(e, &s, true, &arena, &b, NULL), NULL);
        uint8_t m = 0xff;
        CHECK_OK(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, NULL), NULL);
        CHECK_MSG(m == cases[i].bits, "'%s': 0x%x, want 0x%x", cases[i].text, m, cases[i].bits);
    }

    /* Errors: unbound, unknown field id, a type the column does not have. */
    struct basalt_iceberg_expr *e, *b;
    struct basalt_error err;
    uint8_t m;
    CHECK_OK(basalt_iceberg_expr_parse("x = 1", &arena, &e, NULL), NULL);
    CHECK_STATUS(basalt_iceberg_expr_eval_batch(e, &as, &aa, &m, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(basalt_iceberg_expr_bind(e, &s, true, &arena, &b, NULL), NULL);
    b->field_id = 9;
    CHECK_STATUS(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, &err), BASALT_NOT_FOUND, &err);
    struct basalt_iceberg_field sfld = {.id = 1, .name = "x", .type = {.id = BASALT_ICEBERG_TYPE_STRING}};
    struct basalt_iceberg_schema s2 = {.root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = &sfld, .n_fields = 1}};
    CHECK_OK(basalt_iceberg_expr_parse("x = 'a'", &arena, &e, NULL), NULL);
    CHECK_OK(basalt_iceberg_expr_bind(e, &s2, true, &arena, &b, NULL), NULL);
    CHECK_STATUS(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, &err), BASALT_INVALID_ARG, &err);
    /* IS NULL needs no values, so it works on any column type. */
    CHECK_OK(basalt_iceberg_expr_parse("x IS NULL", &arena, &e, NULL), NULL);
    CHECK_OK(basalt_iceberg_expr_bind(e, &s2, true, &arena, &b, NULL), NULL);
    CHECK_OK(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, &err), &err);
    CHECK_EQ(m & 7, 2);
    /* Short children are refused. */
    aa.children[0]->length = 2;
    CHECK_STATUS(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, &err), BASALT_CORRUPT, &err);
    aa.children[0]->length = 3;
    basalt_arena_reset(&arena);
    basalt_arrow_array_release(&aa);
    basalt_arrow_schema_release(&as);
}

TEST(expr_eval_dictionary_index_out_of_range)
{
    struct basalt_arrow_builder *root, *c, *dict;
    struct ArrowSchema as;
    struct ArrowArray aa;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(root, "s", "x", ARROW_FLAG_NULLABLE, &c, NULL), NULL);
    CHECK_OK(set_field_id(c, 1), NULL);
    CHECK_OK(basalt_arrow_builder_add_dictionary(c, "u", &dict, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_string(dict, "a", NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_string(dict, "b", NULL), NULL);
    int64_t idx[3] = {1, 0, 1};
    for (int r = 0; r < 3; r++) {
        CHECK_OK(basalt_arrow_builder_append_int(c, idx[r], NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(root, NULL), NULL);
    }
    CHECK_OK(basalt_arrow_builder_finish(root, &as, &aa, NULL), NULL);
    basalt_arrow_builder_free(root);
    struct basalt_iceberg_field fld = {.id = 1, .name = "x", .type = {.id = BASALT_ICEBERG_TYPE_STRING}};
    struct basalt_iceberg_schema s = {.root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = &fld, .n_fields = 1}};
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *e, *b;
    CHECK_OK(basalt_iceberg_expr_parse("x = 'b'", &arena, &e, NULL), NULL);
    CHECK_OK(basalt_iceberg_expr_bind(e, &s, true, &arena, &b, NULL), NULL);
    uint8_t m = 0;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, &err), &err);
    CHECK_EQ(m, 0x5);
    int16_t *indices = (int16_t *)(uintptr_t)aa.children[0]->buffers[1];
    indices[2] = 2;
    CHECK_STATUS(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, &err), BASALT_CORRUPT, &err);
    indices[2] = -1;
    CHECK_STATUS(basalt_iceberg_expr_eval_batch(b, &as, &aa, &m, &err), BASALT_CORRUPT, &err);
    basalt_arena_reset(&arena);
    basalt_arrow_array_release(&aa);
    basalt_arrow_schema_release(&as);
}

struct eval_sweep {
    const struct basalt_iceberg_expr *bound;
    const struct ArrowSchema *schema;
    const struct ArrowArray *array;
};

static basalt_status eval_attempt(void *ctx)
{
    const struct eval_sweep *s = ctx;
    uint8_t match[MAX_ROWS / 8 + 1];
    return basalt_iceberg_expr_eval_batch(s->bound, s->schema, s->array, match, NULL);
}

TEST(expr_eval_alloc_sweep)
{
    static struct table table;
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    struct ArrowSchema as;
    struct ArrowArray aa;
    CHECK_OK(build(&rng, &table, 200, &as, &aa), NULL);
    struct basalt_iceberg_schema schema;
    make_schema(&schema);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *e, *b;
    /* AND/OR scratch, a hashed IN set, a dictionary column, a nested field */
    const char *text =
        "(c1 IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18) OR c16 = 'ab') "
        "AND NOT (s.c19 > 3 OR c5 IN ('a', 'b', 'aa', 'ab', 'ba', 'bb', 'aaa', 'aab', 'aba', "
        "'abb', 'baa', 'bab', 'bba', 'bbb', 'abab', '')) AND c8 IN (0.05, 0.10, 0.15, 0.20, "
        "0.25, 0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85)";
    CHECK_OK(basalt_iceberg_expr_parse(text, &arena, &e, NULL), NULL);
    CHECK_OK(basalt_iceberg_expr_bind(e, &schema, true, &arena, &b, NULL), NULL);
    struct eval_sweep ctx = {b, &as, &aa};
    /* Every allocation is failed once; there are several to fail. */
    int64_t attempts = bt_alloc_failure_sweep(__FILE__, __LINE__, eval_attempt, &ctx);
    CHECK_MSG(attempts > 5, "%lld attempts", (long long)attempts);
    basalt_arena_reset(&arena);
    basalt_arrow_array_release(&aa);
    basalt_arrow_schema_release(&as);
}
