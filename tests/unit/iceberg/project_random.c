/* Randomised soundness of projection and the evaluators (seeded).
 *
 * For random values, a random predicate and a random transform, with an
 * evaluator written here independently of the library:
 *   - a row that satisfies the predicate has a partition value that satisfies
 *     the inclusive projection;
 *   - a partition value that satisfies the strict projection only holds rows
 *     that satisfy the predicate;
 *   - the residual for the row's partition is TRUE only for matching rows,
 *     FALSE only for rows that do not match;
 *   - a file (metrics: counts and Appendix D bounds) or manifest (partition
 *     summaries) holding a matching row is never pruned. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_transform.h"
#include "test.h"

#define OP(x) BASALT_ICEBERG_OP_##x
#define T(x) BASALT_ICEBERG_TYPE_##x

/* ---------------------------------------------------------------- values */

static const enum basalt_iceberg_type_id rs_types[] = {
    T(INT),    T(LONG),   T(DECIMAL), T(DATE), T(TIMESTAMP), T(TIMESTAMPTZ_NS),
    T(STRING), T(BINARY), T(TIME),    T(UUID), T(FIXED),
};

struct rs_value {
    struct basalt_iceberg_value v;
    uint8_t bytes[32];
};

static int64_t pick(struct bt_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)bt_rng_below(r, (uint64_t)(hi - lo + 1));
}

/* Integers near a centre, with steps of the time units, so values straddle
 * the boundaries of truncation widths, hours, days, months and years. */
static int64_t near(struct bt_rng *r, int64_t centre, int64_t unit)
{
    switch (bt_rng_below(r, 4)) {
    case 0:
        return centre + pick(r, -3, 3);
    case 1:
        return centre + pick(r, -40, 40) * unit + pick(r, -1, 1);
    case 2:
        return centre + pick(r, -400, 400) * unit;
    default:
        return centre + pick(r, -20000, 20000) * (unit / 7 + 1);
    }
}

static int64_t unit_of(enum basalt_iceberg_type_id t)
{
    switch (t) {
    case T(TIMESTAMP):
        return INT64_C(3600000000);
    case T(TIMESTAMPTZ_NS):
        return INT64_C(3600000000000);
    case T(DATE):
        return 30;
    default:
        return 10;
    }
}

static void gen_bytes(struct bt_rng *r, struct rs_value *out, const struct rs_value *like)
{
    /* code points of 1, 2 and 4 bytes so truncation by code points matters */
    static const char *const pieces[] = {"a", "b", "c", "\xc3\xa9", "\xf0\x9f\x98\x80"};
    size_t len = 0;
    if (like && bt_rng_below(r, 2)) {
        /* a prefix of the other value, maybe extended */
        len = (size_t)bt_rng_below(r, like->v.u.bytes.len + 1);
        /* strings stay valid UTF-8: cut at a code point */
        while (out->v.type == T(STRING) && len < like->v.u.bytes.len &&
               (like->v.u.bytes.data[len] & 0xc0) == 0x80)
            len--;
        memcpy(out->bytes, like->v.u.bytes.data, len);
    }
    size_t extra = (size_t)bt_rng_below(r, 5);
    for (size_t i = 0; i < extra; i++) {
        const char *p = pieces[bt_rng_below(r, 5)];
        size_t n = strlen(p);
        if (len + n > sizeof out->bytes)
            break;
        memcpy(out->bytes + len, p, n);
        len += n;
    }
    out->v.u.bytes.data = out->bytes;
    out->v.u.bytes.len = len;
}

static void gen_value(struct bt_rng *r, enum basalt_iceberg_type_id type,
                      const struct rs_value *centre, struct rs_value *out)
{
    memset(out, 0, sizeof *out);
    out->v.type = type;
    switch (type) {
    case T(INT):
    case T(DATE):
        out->v.u.i32 =
            (int32_t)near(r, centre ? centre->v.u.i32 : pick(r, -1000, 1000), unit_of(type));
        break;
    case T(DECIMAL): {
        int64_t c = centre ? (int64_t)centre->v.u.dec.lo : pick(r, -100000, 100000);
        int64_t x = near(r, c, 10);
        out->v.scale = 2;
        out->v.u.dec.lo = (uint64_t)x;
        out->v.u.dec.hi = x < 0 ? -1 : 0;
        break;
    }
    case T(STRING):
    case T(BINARY):
        gen_bytes(r, out, centre);
        break;
    case T(UUID):
    case T(FIXED): {
        /* fixed width: 16 or 4 bytes over a small alphabet, often the centre's */
        size_t n = type == T(UUID) ? 16 : 4;
        for (size_t i = 0; i < n; i++)
            out->bytes[i] = (centre && bt_rng_below(r, 4)) ? centre->bytes[i]
                                                           : (uint8_t)(0x7e + bt_rng_below(r, 4));
        out->v.u.bytes.data = out->bytes;
        out->v.u.bytes.len = n;
        break;
    }
    case T(TIME):
        out->v.u.i64 = centre ? centre->v.u.i64 + pick(r, -2, 2) : pick(r, 0, 86399999999);
        break;
    default: {
        int64_t u = unit_of(type);
        int64_t c = centre ? centre->v.u.i64 : pick(r, -3 * 8766, 3 * 8766) * u;
        out->v.u.i64 = near(r, c, u);
        break;
    }
    }
}

/* ---------------------------------------------------------------- oracle */

static int i128_cmp(struct basalt_iceberg_decimal a, struct basalt_iceberg_decimal b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    return a.lo < b.lo ? -1 : a.lo > b.lo;
}

static int64_t as_int(const struct basalt_iceberg_value *v)
{
    return (v->type == T(INT) || v->type == T(DATE)) ? v->u.i32 : v->u.i64;
}

static int oracle_cmp(const struct basalt_iceberg_value *a, const struct basalt_iceberg_value *b)
{
    switch (a->type) {
    case T(DECIMAL):
        return i128_cmp(a->u.dec, b->u.dec);
    case T(STRING):
    case T(BINARY):
    case T(UUID):
    case T(FIXED): {
        size_t n = a->u.bytes.len < b->u.bytes.len ? a->u.bytes.len : b->u.bytes.len;
        int c = n ? memcmp(a->u.bytes.data, b->u.bytes.data, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return (a->u.bytes.len > b->u.bytes.len) - (a->u.bytes.len < b->u.bytes.len);
    }
    default: {
        int64_t x = as_int(a), y = as_int(b);
        return (x > y) - (x < y);
    }
    }
}

/* SQL semantics: null satisfies only IS NULL. */
static bool oracle_pred(const struct basalt_iceberg_expr *e, const struct basalt_iceberg_value *v)
{
    if (e->op == OP(IS_NULL))
        return v->is_null;
    if (e->op == OP(NOT_NULL))
        return !v->is_null;
    if (v->is_null)
        return false;
    const struct basalt_iceberg_value *l = &e->literals[0];
    switch (e->op) {
    case OP(LT):
        return oracle_cmp(v, l) < 0;
    case OP(LT_EQ):
        return oracle_cmp(v, l) <= 0;
    case OP(GT):
        return oracle_cmp(v, l) > 0;
    case OP(GT_EQ):
        return oracle_cmp(v, l) >= 0;
    case OP(EQ):
        return oracle_cmp(v, l) == 0;
    case OP(NOT_EQ):
        return oracle_cmp(v, l) != 0;
    case OP(STARTS_WITH):
    case OP(NOT_STARTS_WITH): {
        bool sw =
            v->u.bytes.len >= l->u.bytes.len &&
            (l->u.bytes.len == 0 || memcmp(v->u.bytes.data, l->u.bytes.data, l->u.bytes.len) == 0);
        return e->op == OP(STARTS_WITH) ? sw : !sw;
    }
    case OP(IN):
    case OP(NOT_IN): {
        bool found = false;
        for (uint32_t i = 0; i < e->n_literals; i++)
            found |= oracle_cmp(v, &e->literals[i]) == 0;
        return e->op == OP(IN) ? found : !found;
    }
    default:
        return false;
    }
}

static bool oracle_expr(const struct basalt_iceberg_expr *e, const struct basalt_iceberg_value *v)
{
    switch (e->op) {
    case OP(TRUE):
        return true;
    case OP(FALSE):
        return false;
    case OP(AND):
        return oracle_expr(e->left, v) && oracle_expr(e->right, v);
    case OP(OR):
        return oracle_expr(e->left, v) || oracle_expr(e->right, v);
    default:
        return oracle_pred(e, v);
    }
}

/* ------------------------------------------------- Appendix D serialisation */

static size_t serialise(const struct basalt_iceberg_value *v, uint8_t *out)
{
    switch (v->type) {
    case T(INT):
    case T(DATE): {
        uint32_t x = (uint32_t)v->u.i32;
        for (int i = 0; i < 4; i++)
            out[i] = (uint8_t)(x >> (8 * i));
        return 4;
    }
    case T(DECIMAL): {
        /* big-endian two's complement, shortest */
        int64_t x = (int64_t)v->u.dec.lo;
        uint8_t be[8];
        for (int i = 0; i < 8; i++)
            be[i] = (uint8_t)((uint64_t)x >> (56 - 8 * i));
        int s = 0;
        while (s < 7 &&
               ((be[s] == 0 && !(be[s + 1] & 0x80)) || (be[s] == 0xff && (be[s + 1] & 0x80))))
            s++;
        memcpy(out, be + s, (size_t)(8 - s));
        return (size_t)(8 - s);
    }
    case T(STRING):
    case T(BINARY):
    case T(UUID):
    case T(FIXED):
        memcpy(out, v->u.bytes.data, v->u.bytes.len);
        return v->u.bytes.len;
    default: {
        uint64_t x = (uint64_t)v->u.i64;
        for (int i = 0; i < 8; i++)
            out[i] = (uint8_t)(x >> (8 * i));
        return 8;
    }
    }
}

/* ---------------------------------------------------------------- the test */

static const char *pick_transform(struct bt_rng *r, enum basalt_iceberg_type_id t, char *buf,
                                  size_t cap)
{
    const char *options[8];
    int n = 0;
    options[n++] = "identity";
    options[n++] = "bucket";
    options[n++] = "void";
    switch (t) {
    case T(INT):
    case T(LONG):
    case T(DECIMAL):
    case T(STRING):
    case T(BINARY):
        options[n++] = "truncate";
        options[n++] = "truncate";
        break;
    case T(DATE):
        options[n++] = "year";
        options[n++] = "month";
        options[n++] = "day";
        break;
    case T(TIME):
    case T(UUID):
    case T(FIXED):
        break;
    default:
        options[n++] = "year";
        options[n++] = "month";
        options[n++] = "day";
        options[n++] = "hour";
        break;
    }
    const char *o = options[bt_rng_below(r, (uint64_t)n)];
    if (strcmp(o, "bucket") == 0)
        snprintf(buf, cap, "bucket[%d]", (int)pick(r, 1, 20));
    else if (strcmp(o, "truncate") == 0)
        snprintf(buf, cap, "truncate[%d]", (int)pick(r, 1, 12));
    else
        snprintf(buf, cap, "%s", o);
    return buf;
}

#define ROWS 6

TEST(iceberg_projection_soundness_random)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 20261130);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1 << 16);
    long long checked = 0, row_matches = 0, strict_hits = 0, pruned = 0;
    for (int iter = 0; iter < 20000; iter++) {
        basalt_arena_reset(&arena);
        enum basalt_iceberg_type_id type =
            rs_types[bt_rng_below(&rng, sizeof rs_types / sizeof rs_types[0])];
        struct basalt_iceberg_field field;
        memset(&field, 0, sizeof field);
        field.id = 7;
        field.name = "c";
        field.type.id = type;
        if (type == T(DECIMAL)) {
            field.type.precision = 9;
            field.type.scale = 2;
        }
        if (type == T(FIXED))
            field.type.length = 4;
        struct basalt_iceberg_schema schema;
        memset(&schema, 0, sizeof schema);
        schema.root.id = T(STRUCT);
        schema.root.fields = &field;
        schema.root.n_fields = 1;

        char tbuf[32];
        struct basalt_iceberg_partition_field pf = {.source_id = 7, .field_id = 1000, .name = "p"};
        CHECK_OK(basalt_iceberg_transform_parse(pick_transform(&rng, type, tbuf, sizeof tbuf),
                                                &pf.transform, NULL),
                 NULL);
        pf.transform.text = NULL; /* tbuf is reused */
        struct basalt_iceberg_partition_spec spec = {.fields = &pf, .n_fields = 1};

        /* the predicate */
        static const enum basalt_iceberg_op num_ops[] = {
            OP(LT),     OP(LT_EQ), OP(GT),     OP(GT_EQ),   OP(EQ),
            OP(NOT_EQ), OP(IN),    OP(NOT_IN), OP(IS_NULL), OP(NOT_NULL)};
        static const enum basalt_iceberg_op str_ops[] = {
            OP(LT),          OP(LT_EQ),          OP(GT),          OP(GT_EQ),
            OP(EQ),          OP(NOT_EQ),         OP(IN),          OP(NOT_IN),
            OP(IS_NULL),     OP(NOT_NULL),       OP(STARTS_WITH), OP(NOT_STARTS_WITH),
            OP(STARTS_WITH), OP(NOT_STARTS_WITH)};
        enum basalt_iceberg_op op =
            type == T(STRING) ? str_ops[bt_rng_below(&rng, sizeof str_ops / sizeof str_ops[0])]
                              : num_ops[bt_rng_below(&rng, sizeof num_ops / sizeof num_ops[0])];
        struct rs_value lits[4];
        uint32_t n_lits = 0;
        if (op == OP(IN) || op == OP(NOT_IN))
            n_lits = (uint32_t)pick(&rng, 1, 4);
        else if (op != OP(IS_NULL) && op != OP(NOT_NULL))
            n_lits = 1;
        gen_value(&rng, type, NULL, &lits[0]);
        for (uint32_t i = 1; i < n_lits; i++)
            gen_value(&rng, type, &lits[0], &lits[i]);
        struct basalt_iceberg_value litv[4];
        for (uint32_t i = 0; i < n_lits; i++)
            litv[i] = lits[i].v;
        struct basalt_iceberg_expr pred;
        memset(&pred, 0, sizeof pred);
        pred.op = op;
        pred.name = "c";
        pred.field_id = 7;
        pred.type = &field.type;
        pred.literals = litv;
        pred.n_literals = n_lits;

        struct basalt_iceberg_expr *incl = NULL, *strict = NULL;
        struct basalt_error err;
        CHECK_OK(basalt_iceberg_project_inclusive(&pred, &schema, &spec, &arena, &incl, &err),
                 &err);
        CHECK_OK(basalt_iceberg_project_strict(&pred, &schema, &spec, &arena, &strict, &err), &err);

        /* rows near the literal, some null */
        struct rs_value rows[ROWS];
        struct basalt_iceberg_value parts[ROWS];
        bool any_match = false;
        for (int k = 0; k < ROWS; k++) {
            gen_value(&rng, type, n_lits ? &lits[bt_rng_below(&rng, n_lits)] : NULL, &rows[k]);
            rows[k].v.is_null = bt_rng_below(&rng, 8) == 0;
            CHECK_OK(basalt_iceberg_transform_apply(&pf.transform, &field.type, &rows[k].v,
                                                    &parts[k], &err),
                     &err);
            bool match = oracle_pred(&pred, &rows[k].v);
            any_match |= match;
            bool in_incl = oracle_expr(incl, &parts[k]);
            bool in_strict = oracle_expr(strict, &parts[k]);
            CHECK_MSG(!match || in_incl,
                      "iter %d (%s, op %d): matching row outside the inclusive projection", iter,
                      tbuf, (int)op);
            CHECK_MSG(!in_strict || match,
                      "iter %d (%s, op %d): strict projection admits a non-matching row", iter,
                      tbuf, (int)op);
            /* the library's partition evaluation agrees with the oracle */
            CHECK_MSG(basalt_iceberg_partition_matches(incl, &spec, &parts[k], 1) == in_incl,
                      "iter %d: partition_matches(inclusive)", iter);
            CHECK_MSG(basalt_iceberg_partition_matches(strict, &spec, &parts[k], 1) == in_strict,
                      "iter %d: partition_matches(strict)", iter);
            /* residual for this row's partition */
            struct basalt_iceberg_expr *res = NULL;
            CHECK_OK(
                basalt_iceberg_residual(&pred, &schema, &spec, &parts[k], 1, &arena, &res, &err),
                &err);
            if (res->op == OP(TRUE))
                CHECK_MSG(match, "iter %d (%s, op %d): residual TRUE for a non-matching row", iter,
                          tbuf, (int)op);
            else if (res->op == OP(FALSE))
                CHECK_MSG(!match, "iter %d (%s, op %d): residual FALSE for a matching row", iter,
                          tbuf, (int)op);
            else
                CHECK(res->op == op && res->field_id == 7);
            checked++;
            row_matches += match;
            strict_hits += in_strict;
        }

        /* a file of these rows: exact counts and bounds */
        struct basalt_iceberg_metric_long vc = {7, ROWS}, nc = {7, 0};
        uint8_t lo_buf[32], hi_buf[32];
        struct basalt_iceberg_metric_bytes lo = {7, lo_buf, 0}, hi = {7, hi_buf, 0};
        const struct basalt_iceberg_value *minv = NULL, *maxv = NULL;
        for (int k = 0; k < ROWS; k++) {
            if (rows[k].v.is_null) {
                nc.value++;
                continue;
            }
            if (!minv || oracle_cmp(&rows[k].v, minv) < 0)
                minv = &rows[k].v;
            if (!maxv || oracle_cmp(&rows[k].v, maxv) > 0)
                maxv = &rows[k].v;
        }
        struct basalt_iceberg_data_file file;
        memset(&file, 0, sizeof file);
        file.record_count = ROWS;
        file.value_counts = &vc;
        file.n_value_counts = 1;
        file.null_value_counts = &nc;
        file.n_null_value_counts = 1;
        if (minv) {
            lo.len = serialise(minv, lo_buf);
            hi.len = serialise(maxv, hi_buf);
            file.lower_bounds = &lo;
            file.n_lower_bounds = 1;
            file.upper_bounds = &hi;
            file.n_upper_bounds = 1;
            if ((type == T(STRING) || type == T(BINARY)) && bt_rng_below(&rng, 2)) {
                /* truncated bounds as writers store them: a prefix of the
                 * minimum, and a prefix of the maximum with its last byte
                 * incremented (none when every byte is 0xff) */
                size_t cut = (size_t)bt_rng_below(&rng, 4);
                if (lo.len > cut)
                    lo.len = cut;
                if (hi.len > cut) {
                    size_t n = cut;
                    while (n > 0 && hi_buf[n - 1] == 0xff)
                        n--;
                    if (n == 0) {
                        file.n_upper_bounds = 0;
                    } else {
                        hi_buf[n - 1]++;
                        hi.len = n;
                    }
                }
            }
        }
        bool file_may = basalt_iceberg_metrics_may_match(&pred, &schema, &file);
        CHECK_MSG(!any_match || file_may,
                  "iter %d (op %d): metrics pruned a file with a matching row", iter, (int)op);
        pruned += !file_may;

        /* a manifest of these partitions */
        struct basalt_iceberg_field_summary sum;
        memset(&sum, 0, sizeof sum);
        const struct basalt_iceberg_value *pmin = NULL, *pmax = NULL;
        for (int k = 0; k < ROWS; k++) {
            if (parts[k].is_null) {
                sum.contains_null = true;
                continue;
            }
            if (!pmin || oracle_cmp(&parts[k], pmin) < 0)
                pmin = &parts[k];
            if (!pmax || oracle_cmp(&parts[k], pmax) > 0)
                pmax = &parts[k];
        }
        if (pmin) {
            sum.has_lower_bound = sum.has_upper_bound = true;
            sum.lower_bound = *pmin;
            sum.upper_bound = *pmax;
        }
        struct basalt_iceberg_manifest_file mf;
        memset(&mf, 0, sizeof mf);
        mf.partitions = &sum;
        mf.n_partitions = 1;
        CHECK_MSG(!any_match || basalt_iceberg_manifest_may_match(incl, &spec, &mf),
                  "iter %d (%s, op %d): manifest with a matching row pruned", iter, tbuf, (int)op);
    }
    basalt_arena_reset(&arena);
    /* the test exercised both outcomes */
    CHECK(checked == 20000 * ROWS);
    CHECK(row_matches > checked / 10);
    CHECK(strict_hits > checked / 20);
    CHECK(pruned > 1000);
}
