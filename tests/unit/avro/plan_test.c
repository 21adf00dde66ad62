/* Compiled plans: every column of random schemas against the generic
 * decoder, layouts, the fast paths, projection and the errors. */
#include <math.h>

#include "avro_plan.h"
#include "plan_check.h"
#include "random_gen.h"
#include "test.h"

struct column_buffers {
    uint8_t *values[MAX_COLS];
    uint8_t *present[MAX_COLS];
    struct basalt_avro_dest dests[MAX_COLS];
};

TEST(plan_random_schemas_match_generic_decoding)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 20260417);
    int schemas = 0, columns_checked = 0;
    for (int round = 0; round < 150; round++) {
        struct basalt_buffer json;
        basalt_buffer_init(&json);
        rg_schema_json(&rng, 3, &json);
        struct basalt_avro_schema *s;
        struct basalt_error err;
        basalt_status st = basalt_avro_schema_parse((const char *)json.data, json.size, NULL, &s, &err);
        if (st != BASALT_OK) {
            bt_fail(__FILE__, __LINE__, "schema %.*s: %s", (int)json.size, json.data, err.message);
            basalt_buffer_reset(&json);
            return;
        }
        basalt_buffer_reset(&json);
        schemas++;
        const struct basalt_avro_node *root = basalt_avro_schema_root(s);
        /* Records, encoded back to back. */
        const int64_t n = 40;
        struct basalt_arena arena;
        basalt_arena_init(&arena, 16384);
        struct basalt_avro_value *values = basalt_arena_alloc(&arena, sizeof *values * n, 8);
        struct basalt_buffer data;
        basalt_buffer_init(&data);
        for (int64_t i = 0; i < n; i++) {
            rg_value(&rng, root, &arena, 4, &values[i]);
            CHECK_OK(basalt_avro_value_encode(&values[i], &data, &err), &err);
        }
        static struct leaf leaves[MAX_COLS];
        size_t nleaves = 0;
        pc_collect_leaves(root, "", leaves, &nleaves, 0);
        /* Everything, then a random subset (projection). */
        for (int subset = 0; subset < 2; subset++) {
            struct basalt_avro_column cols[MAX_COLS];
            size_t ncols = 0;
            for (size_t i = 0; i < nleaves; i++) {
                if (subset && bt_rng_below(&rng, 3) != 0)
                    continue;
                /* a column may not be a prefix of another */
                bool overlaps = false;
                for (size_t j = 0; j < ncols; j++) {
                    size_t a = strlen(cols[j].path), b = strlen(leaves[i].path);
                    size_t m = a < b ? a : b;
                    if (strncmp(cols[j].path, leaves[i].path, m) == 0 &&
                        (a == b || (a < b ? leaves[i].path[a] : cols[j].path[b]) == '.'))
                        overlaps = true;
                }
                if (overlaps)
                    continue;
                /* A random slot type where the column's type allows it
                 * (widening to INT64 or DOUBLE, or RAW), else AUTO. */
                static const enum basalt_avro_slot_type pick[] = {
                    BASALT_AVRO_SLOT_AUTO, BASALT_AVRO_SLOT_AUTO, BASALT_AVRO_SLOT_RAW,
                    BASALT_AVRO_SLOT_INT64, BASALT_AVRO_SLOT_DOUBLE};
                struct basalt_avro_column c = {leaves[i].path, pick[bt_rng_below(&rng, 5)]};
                struct basalt_avro_plan *probe = NULL;
                if (basalt_avro_plan_new(s, NULL, &c, 1, &probe, NULL) != BASALT_OK)
                    c.type = BASALT_AVRO_SLOT_AUTO;
                basalt_avro_plan_free(probe);
                cols[ncols++] = c;
            }
            struct basalt_avro_plan *plan;
            CHECK_OK(basalt_avro_plan_new(s, NULL, cols, ncols, &plan, &err), &err);
            struct column_buffers *cb = basalt_calloc(1, sizeof *cb);
            for (size_t k = 0; k < ncols; k++) {
                cb->values[k] = basalt_calloc((size_t)n, 16);
                cb->present[k] = basalt_calloc((size_t)n, 1);
                memset(cb->values[k], 0xa5, (size_t)n * 16);
                memset(cb->present[k], 0xa5, (size_t)n);
                cb->dests[k].values = cb->values[k];
                cb->dests[k].present = cb->present[k];
            }
            size_t used = 0;
            st = basalt_avro_plan_decode(plan, data.data, data.size, n, cb->dests, NULL, &used, &err);
            bool ok = st == BASALT_OK && used == data.size;
            char why[128] = "";
            for (size_t k = 0; ok && k < ncols; k++) {
                size_t size = basalt_avro_slot_size(basalt_avro_plan_column_type(plan, k));
                for (int64_t i = 0; ok && i < n; i++) {
                    const struct basalt_avro_value *v = pc_value_at(&values[i], cols[k].path);
                    if (!pc_slot_matches(plan, k, v, cb->values[k] + (size_t)i * size,
                                      cb->present[k][i], why, sizeof why)) {
                        bt_fail(__FILE__, __LINE__, "round %d column '%s' record %lld: %s", round,
                                cols[k].path, (long long)i, why);
                        ok = false;
                    }
                }
                columns_checked++;
            }
            if (st != BASALT_OK)
                bt_fail(__FILE__, __LINE__, "round %d: %s", round, err.message);
            for (size_t k = 0; k < ncols; k++) {
                basalt_free(cb->values[k]);
                basalt_free(cb->present[k]);
            }
            basalt_free(cb);
            basalt_avro_plan_free(plan);
            if (!ok) {
                basalt_buffer_reset(&data);
                basalt_arena_reset(&arena);
                basalt_avro_schema_free(s);
                return;
            }
        }
        basalt_buffer_reset(&data);
        basalt_arena_reset(&arena);
        basalt_avro_schema_free(s);
    }
    CHECK_EQ(schemas, 150);
    CHECK_MSG(columns_checked > 600, "only %d columns checked", columns_checked);
}

static const char *manifest =
    "{\"type\":\"record\",\"name\":\"M\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"},"
    "{\"name\":\"b\",\"type\":\"long\"},{\"name\":\"path\",\"type\":\"string\"},"
    "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"opt\",\"type\":[\"null\",\"long\"]}]}";

static size_t count_ops(const struct basalt_avro_plan *plan, uint8_t code)
{
    size_t n = 0;
    for (uint32_t i = 0; i < plan->op_count; i++)
        n += plan->ops[i].code == code;
    return n;
}

/* The optional-long fast path is compiled where it applies (and the general
 * union dispatch where it does not), and both decode the same. */
TEST(plan_optional_long_fast_path_fires)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest, strlen(manifest), NULL, &s, &err), &err);
    struct basalt_avro_column fast[] = {{"opt", BASALT_AVRO_SLOT_INT64}};
    struct basalt_avro_column slow[] = {{"opt", BASALT_AVRO_SLOT_DOUBLE}};
    struct basalt_avro_plan *pf, *ps;
    CHECK_OK(basalt_avro_plan_new(s, NULL, fast, 1, &pf, &err), &err);
    CHECK_OK(basalt_avro_plan_new(s, NULL, slow, 1, &ps, &err), &err);
    CHECK_EQ(count_ops(pf, AVRO_OP_OPT_LONG_I64), 1);
    CHECK_EQ(count_ops(pf, AVRO_OP_UNION), 0);
    CHECK_EQ(count_ops(ps, AVRO_OP_OPT_LONG_I64), 0);
    CHECK_EQ(count_ops(ps, AVRO_OP_UNION), 1);
    /* Unselected fields are skipped: a, b as varints, path as bytes, d by size. */
    CHECK_EQ(count_ops(pf, AVRO_OP_SKIP_VARINT), 2);
    CHECK_EQ(count_ops(pf, AVRO_OP_SKIP_BYTES), 1);
    CHECK_EQ(count_ops(pf, AVRO_OP_SKIP_N), 1);
    /* {a: 1, b: 2, path: "x", d: 0.5, opt: null}, {..., opt: -3}, bad branch */
    static const uint8_t data[] = {0x02, 0x04, 0x02, 'x', 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0x00,
                                   0x02, 0x04, 0x02, 'x', 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0x02, 0x05,
                                   0x02, 0x04, 0x02, 'x', 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0x04, 0x05};
    int64_t v[3];
    double dv[3];
    uint8_t present[3];
    struct basalt_avro_dest d = {.values = v, .present = present};
    struct basalt_avro_dest dd = {.values = dv, .present = present};
    CHECK_OK(basalt_avro_plan_decode(pf, data, 27, 2, &d, NULL, NULL, &err), &err);
    CHECK(present[0] == 0 && v[0] == 0 && present[1] == 1 && v[1] == -3);
    CHECK_OK(basalt_avro_plan_decode(ps, data, 27, 2, &dd, NULL, NULL, &err), &err);
    CHECK(present[0] == 0 && dv[0] == 0 && present[1] == 1 && dv[1] == -3.0);
    CHECK_STATUS(basalt_avro_plan_decode(pf, data, sizeof data, 3, &d, NULL, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "record 2") != NULL);
    CHECK_STATUS(basalt_avro_plan_decode(ps, data, sizeof data, 3, &dd, NULL, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "record 2: union branch 2 out of range") != NULL);
    basalt_avro_plan_free(pf);
    basalt_avro_plan_free(ps);
    basalt_avro_schema_free(s);
}

/* A struct per record (array of structs) and separate arrays give the same. */
TEST(plan_struct_per_record_layout)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest, strlen(manifest), NULL, &s, &err), &err);
    struct basalt_avro_column cols[] = {{"path", BASALT_AVRO_SLOT_AUTO},
                                        {"opt", BASALT_AVRO_SLOT_AUTO},
                                        {"a", BASALT_AVRO_SLOT_DOUBLE}};
    struct basalt_avro_plan *plan;
    CHECK_OK(basalt_avro_plan_new(s, NULL, cols, 3, &plan, &err), &err);
    CHECK_EQ(basalt_avro_plan_column_type(plan, 0), BASALT_AVRO_SLOT_BYTES);
    CHECK_EQ(basalt_avro_plan_column_type(plan, 1), BASALT_AVRO_SLOT_INT64);
    CHECK_EQ(basalt_avro_plan_column_type(plan, 2), BASALT_AVRO_SLOT_DOUBLE);
    static const uint8_t data[] = {0x02, 0x04, 0x02, 'x', 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0x00,
                                   0x03, 0x04, 0x04, 'y', 'z', 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0x02,
                                   0x05};
    struct row {
        struct basalt_avro_bytes path;
        int64_t opt;
        double a;
        uint8_t has_opt;
    } rows[2];
    memset(rows, 0xff, sizeof rows);
    struct basalt_avro_dest d[3] = {
        {&rows[0].path, sizeof(struct row), NULL, 0},
        {&rows[0].opt, sizeof(struct row), &rows[0].has_opt, sizeof(struct row)},
        {&rows[0].a, sizeof(struct row), NULL, 0}};
    size_t used;
    CHECK_OK(basalt_avro_plan_decode(plan, data, sizeof data, 2, d, NULL, &used, &err), &err);
    CHECK_EQ(used, sizeof data);
    CHECK(rows[0].path.size == 1 && rows[0].path.data == data + 3);
    CHECK(rows[1].path.size == 2 && memcmp(rows[1].path.data, "yz", 2) == 0);
    CHECK(rows[0].has_opt == 0 && rows[0].opt == 0);
    CHECK(rows[1].has_opt == 1 && rows[1].opt == -3);
    CHECK(rows[0].a == 1.0 && rows[1].a == -2.0);
    /* a destination missing */
    d[1].values = NULL;
    CHECK_STATUS(basalt_avro_plan_decode(plan, data, sizeof data, 2, d, NULL, &used, &err),
                 BASALT_INVALID_ARG, &err);
    basalt_avro_plan_free(plan);
    basalt_avro_schema_free(s);
}

TEST(plan_column_errors)
{
    const char *schema =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"},"
        "{\"name\":\"r\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"S\",\"fields\":["
        "{\"name\":\"x\",\"type\":\"string\"}]}]},"
        "{\"name\":\"u\",\"type\":[\"int\",\"string\"]},"
        "{\"name\":\"l\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}]}";
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(schema, strlen(schema), NULL, &s, &err), &err);
    static const struct {
        struct basalt_avro_column cols[2];
        size_t n;
        const char *message;
    } cases[] = {
        {{{"zz", 0}}, 1, "has no field 'zz'"},
        {{{"a.b", 0}}, 1, "'a' is not a record"},
        {{{"r.y", 0}}, 1, "has no field 'y'"},
        {{{"a", BASALT_AVRO_SLOT_BYTES}}, 1, "cannot be stored"},
        {{{"a", BASALT_AVRO_SLOT_INT32}}, 1, "cannot be stored"},
        {{{"u", BASALT_AVRO_SLOT_INT64}}, 1, "cannot be stored"},
        {{{"l", BASALT_AVRO_SLOT_INT32}}, 1, "cannot be stored"},
        {{{"r", 0}, {"r.x", 0}}, 2, "overlaps"},
        {{{"r.x", 0}, {"r", 0}}, 2, "overlaps"},
        {{{"a", 0}, {"a", 0}}, 2, "twice"},
        {{{"a", (enum basalt_avro_slot_type)42}}, 1, "unknown slot type"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_avro_plan *plan = NULL;
        basalt_error_init(&err);
        basalt_status st = basalt_avro_plan_new(s, NULL, cases[i].cols, cases[i].n, &plan, &err);
        CHECK_MSG(st == BASALT_INVALID_ARG, "case %zu: %s", i, basalt_status_name(st));
        CHECK_MSG(strstr(err.message, cases[i].message) != NULL, "case %zu: '%s' lacks '%s'", i,
                  err.message, cases[i].message);
        CHECK(plan == NULL);
    }
    /* AUTO picks RAW for unions of several types and arrays. */
    struct basalt_avro_column ok[] = {{"u", 0}, {"l", 0}, {"r.x", 0}};
    struct basalt_avro_plan *plan;
    CHECK_OK(basalt_avro_plan_new(s, NULL, ok, 3, &plan, &err), &err);
    CHECK_EQ(basalt_avro_plan_column_type(plan, 0), BASALT_AVRO_SLOT_RAW);
    CHECK_EQ(basalt_avro_plan_column_type(plan, 1), BASALT_AVRO_SLOT_RAW);
    CHECK_EQ(basalt_avro_plan_column_type(plan, 2), BASALT_AVRO_SLOT_BYTES);
    CHECK(basalt_avro_plan_column_node(plan, 2)->type == BASALT_AVRO_STRING);
    basalt_avro_plan_free(plan);
    basalt_avro_schema_free(s);
}

/* A non-record root is read whole with the path "". */
TEST(plan_whole_datum)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse("[\"null\",\"int\"]", 14, NULL, &s, &err), &err);
    struct basalt_avro_column col = {"", BASALT_AVRO_SLOT_AUTO};
    struct basalt_avro_plan *plan;
    CHECK_OK(basalt_avro_plan_new(s, NULL, &col, 1, &plan, &err), &err);
    CHECK_EQ(basalt_avro_plan_column_type(plan, 0), BASALT_AVRO_SLOT_INT32);
    static const uint8_t data[] = {0x00, 0x02, 0x54};
    int32_t v[2];
    uint8_t p[2];
    struct basalt_avro_dest d = {.values = v, .present = p};
    CHECK_OK(basalt_avro_plan_decode(plan, data, 3, 2, &d, NULL, NULL, &err), &err);
    CHECK(p[0] == 0 && p[1] == 1 && v[1] == 42);
    basalt_avro_plan_free(plan);
    basalt_avro_schema_free(s);
}

static basalt_status plan_attempt(void *ctx)
{
    struct basalt_avro_schema *s = ctx;
    struct basalt_avro_column cols[] = {{"opt", 0}, {"path", 0}};
    struct basalt_avro_plan *plan = NULL;
    basalt_status st = basalt_avro_plan_new(s, s, cols, 2, &plan, NULL);
    basalt_avro_plan_free(plan);
    return st;
}

TEST(plan_allocation_failures)
{
    struct basalt_avro_schema *s;
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(manifest, strlen(manifest), NULL, &s, &err), &err);
    CHECK_ALLOC_SWEEP(plan_attempt, s);
    basalt_avro_schema_free(s);
}

TEST(plan_cache_parses_and_compiles_once)
{
    struct basalt_avro_plan_cache *cache;
    struct basalt_error err;
    CHECK_OK(basalt_avro_plan_cache_new(&cache, &err), &err);
    const struct basalt_avro_schema *s1, *s2;
    CHECK_OK(basalt_avro_plan_cache_schema(cache, manifest, strlen(manifest), NULL, &s1, &err), &err);
    CHECK_OK(basalt_avro_plan_cache_schema(cache, manifest, strlen(manifest), NULL, &s2, &err), &err);
    CHECK(s1 == s2);
    struct basalt_avro_column cols[] = {{"a", 0}, {"path", 0}};
    struct basalt_avro_column other[] = {{"a", 0}, {"path", BASALT_AVRO_SLOT_RAW}};
    struct basalt_avro_plan *p1, *p2, *p3;
    CHECK_OK(basalt_avro_plan_cache_plan(cache, s1, NULL, cols, 2, &p1, &err), &err);
    CHECK_OK(basalt_avro_plan_cache_plan(cache, s1, NULL, cols, 2, &p2, &err), &err);
    CHECK_OK(basalt_avro_plan_cache_plan(cache, s1, NULL, other, 2, &p3, &err), &err);
    CHECK(p1 == p2);
    CHECK(p1 != p3);
    uint64_t hits, misses;
    basalt_avro_plan_cache_stats(cache, &hits, &misses);
    CHECK_EQ(hits, 2);
    CHECK_EQ(misses, 3);
    /* A container reader parses its schema through the cache. */
    struct basalt_avro_schema *own;
    CHECK_OK(basalt_avro_schema_parse(manifest, strlen(manifest), NULL, &own, &err), &err);
    struct basalt_buffer file;
    basalt_buffer_init(&file);
    struct basalt_avro_writer *w;
    CHECK_OK(basalt_avro_writer_new(own, NULL, basalt_avro_write_to_buffer, &file, &w, &err), &err);
    CHECK_OK(basalt_avro_writer_close(w, &err), &err);
    struct basalt_avro_reader_options opt;
    basalt_avro_reader_options_init(&opt);
    opt.cache = cache;
    struct basalt_avro_reader *r1, *r2;
    CHECK_OK(basalt_avro_reader_new(file.data, file.size, &opt, &r1, &err), &err);
    CHECK_OK(basalt_avro_reader_new(file.data, file.size, &opt, &r2, &err), &err);
    CHECK(basalt_avro_reader_schema(r1) == basalt_avro_reader_schema(r2));
    basalt_avro_reader_free(r1);
    basalt_avro_reader_free(r2);
    basalt_buffer_reset(&file);
    basalt_avro_schema_free(own);
    basalt_avro_plan_free(p1);
    basalt_avro_plan_free(p2);
    basalt_avro_plan_free(p3);
    basalt_avro_plan_cache_free(cache);
}
