/* The data writer's column metrics against values the tests compute from
 * the rows they wrote: counts (nested leaves too), NaN counts, bounds in
 * the single-value serialization, truncation of strings and binaries as
 * the Java writer truncates them, and the metrics modes. */
#include <math.h>

#include "data_write_rows.h"
#include "data_write_util.h"

/* ------------------------------------------------------------ helpers */

struct run {
    char dir[64];
    char data[128];
    struct basalt_arena arena;
    struct basalt_iceberg_schema schema;
    struct basalt_iceberg_data_writer *w;
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
};

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The minimal big-endian two's complement of v (Java's BigInteger.toByteArray). */
static size_t min_be(int64_t v, uint8_t *out)
{
    uint8_t be[8];
    for (int i = 0; i < 8; i++)
        be[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
    int s = 0;
    while (s < 7 && ((be[s] == 0x00 && !(be[s + 1] & 0x80)) || (be[s] == 0xff && (be[s + 1] & 0x80))))
        s++;
    memcpy(out, be + s, (size_t)(8 - s));
    return (size_t)(8 - s);
}

static bool bound_is(const struct basalt_iceberg_metric_bytes *m, uint32_t n, int32_t id,
                     const void *want, size_t len)
{
    const struct basalt_iceberg_metric_bytes *b = dwt_bytes(m, n, id);
    return b && b->len == len && memcmp(b->data, want, len) == 0;
}

static bool count_is(const struct basalt_iceberg_metric_long *m, uint32_t n, int32_t id,
                     int64_t want)
{
    const struct basalt_iceberg_metric_long *c = dwt_long(m, n, id);
    return c && c->value == want;
}

/* Writes `batches` with `props` and finishes; r->files holds the result. */
static basalt_status run_write(struct run *r, const char *schema_json,
                               const struct basalt_iceberg_kv *props, uint32_t n_props,
                               const struct ArrowArray *batches, int n_batches,
                               struct basalt_error *err)
{
    if (!dwt_tmpdir(r->dir))
        return BASALT_IO;
    basalt_arena_init(&r->arena, 4096);
    dwt_schema(schema_json, &r->arena, &r->schema);
    struct basalt_iceberg_data_writer_options o;
    dwt_options(&o, &r->schema, NULL, r->data, sizeof r->data, r->dir);
    o.properties = props;
    o.n_properties = n_props;
    basalt_status st = basalt_iceberg_data_writer_new(&o, &r->w, err);
    for (int i = 0; st == BASALT_OK && i < n_batches; i++)
        st = basalt_iceberg_data_writer_write(r->w, &batches[i], err);
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(r->w, &r->files, &r->n, err);
    return st;
}

static void run_reset(struct run *r)
{
    basalt_iceberg_data_writer_free(r->w);
    r->w = NULL;
    dwt_rmrf(r->dir);
    basalt_arena_reset(&r->arena);
}

/* ------------------------------------------------------------ every column */

struct expect {
    int64_t levels, nulls, nans;
    bool has;
    double dmin, dmax;      /* numbers */
    int64_t imin, imax;
    char smin[16], smax[16];
};

static void fold_i(struct expect *e, int64_t v)
{
    if (!e->has || v < e->imin)
        e->imin = v;
    if (!e->has || v > e->imax)
        e->imax = v;
    e->has = true;
}

static void fold_d(struct expect *e, double v)
{
    if (isnan(v)) {
        e->nans++;
        return;
    }
    if (!e->has || v < e->dmin)
        e->dmin = v;
    if (!e->has || v > e->dmax)
        e->dmax = v;
    e->has = true;
}

static void fold_s(struct expect *e, const char *s)
{
    if (!e->has || strcmp(s, e->smin) < 0)
        snprintf(e->smin, sizeof e->smin, "%s", s);
    if (!e->has || strcmp(s, e->smax) > 0)
        snprintf(e->smax, sizeof e->smax, "%s", s);
    e->has = true;
}

/* What rows [0, n) hold per field id (indexed by id). */
static void expected(int64_t n, struct expect *e)
{
    memset(e, 0, 18 * sizeof *e);
    for (int64_t r = 0; r < n; r++) {
        struct dwr_row x;
        dwr_make_row(r, &x);
        e[1].levels++, fold_i(&e[1], x.id);
        e[2].levels++;
        if (x.name)
            fold_s(&e[2], x.name);
        else
            e[2].nulls++;
        e[3].levels++;
        if (x.price_null)
            e[3].nulls++;
        else
            fold_d(&e[3], x.price);
        e[4].levels++;
        if (x.qty_null)
            e[4].nulls++;
        else
            fold_i(&e[4], x.qty);
        e[5].levels++, fold_i(&e[5], x.ts);
        /* a null or empty list is one level holding no value */
        if (x.tags_null || x.ntags == 0) {
            e[10].levels++, e[10].nulls++;
        } else {
            for (int j = 0; j < x.ntags; j++)
                e[10].levels++, e[10].nulls += x.tag_null[j];
        }
        e[11].levels++, e[12].levels++;
        if (x.addr_null) {
            e[11].nulls++, e[12].nulls++;
        } else {
            if (x.city)
                fold_s(&e[11], x.city);
            else
                e[11].nulls++;
            fold_i(&e[12], x.zip);
        }
        e[8].levels++, fold_i(&e[8], x.flag);
        e[9].levels++;
        if (x.amount_null)
            e[9].nulls++;
        else
            fold_i(&e[9], x.amount);
        e[13].levels++, fold_i(&e[13], x.day);
        if (x.nm == 0) {
            e[15].levels++, e[15].nulls++;
            e[16].levels++, e[16].nulls++;
        } else {
            for (int j = 0; j < x.nm; j++) {
                e[15].levels++;
                e[16].levels++, e[16].nulls += x.value_null[j];
            }
        }
        e[17].levels++;
        if (x.score_null)
            e[17].nulls++;
        else
            fold_d(&e[17], x.score);
    }
}

static void check_file_metrics(const struct basalt_iceberg_data_file *f, int64_t rows)
{
    struct expect e[18];
    expected(rows, e);
    static const int32_t leaves[] = {1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 15, 16, 17};
    CHECK_EQ(f->n_column_sizes, 14);
    CHECK_EQ(f->n_value_counts, 14);
    CHECK_EQ(f->n_null_value_counts, 14);
    CHECK(dwt_sorted_long(f->column_sizes, f->n_column_sizes));
    CHECK(dwt_sorted_long(f->value_counts, f->n_value_counts));
    CHECK(dwt_sorted_long(f->null_value_counts, f->n_null_value_counts));
    CHECK(dwt_sorted_bytes(f->lower_bounds, f->n_lower_bounds));
    CHECK(dwt_sorted_bytes(f->upper_bounds, f->n_upper_bounds));
    int64_t sizes = 0;
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        int32_t id = leaves[i];
        const struct basalt_iceberg_metric_long *cs = dwt_long(f->column_sizes, f->n_column_sizes, id);
        CHECK_MSG(cs && cs->value > 0, "column size of %d", id);
        sizes += cs->value;
        CHECK_MSG(count_is(f->value_counts, f->n_value_counts, id, e[id].levels),
                  "value count of %d: %lld expected", id, (long long)e[id].levels);
        CHECK_MSG(count_is(f->null_value_counts, f->n_null_value_counts, id, e[id].nulls),
                  "null count of %d: %lld expected", id, (long long)e[id].nulls);
    }
    CHECK(sizes < f->file_size_in_bytes);
    /* NaN counts: the float and the double */
    CHECK_EQ(f->n_nan_value_counts, 2);
    CHECK(count_is(f->nan_value_counts, f->n_nan_value_counts, 3, e[3].nans));
    CHECK(count_is(f->nan_value_counts, f->n_nan_value_counts, 17, e[17].nans));
    CHECK(e[3].nans > 0 && e[17].nans > 0);
    /* bounds: primitives through structs only (not 10, 15, 16) */
    CHECK_EQ(f->n_lower_bounds, 11);
    CHECK_EQ(f->n_upper_bounds, 11);
    const struct basalt_iceberg_metric_bytes *L = f->lower_bounds, *U = f->upper_bounds;
    uint32_t nl = f->n_lower_bounds, nu = f->n_upper_bounds;
    uint8_t b[16];
    size_t len;
#define LONG_BOUNDS(id)                                                                           \
    do {                                                                                          \
        le64(b, (uint64_t)e[id].imin);                                                            \
        CHECK_MSG(bound_is(L, nl, id, b, 8), "lower bound of %d", id);                           \
        le64(b, (uint64_t)e[id].imax);                                                            \
        CHECK_MSG(bound_is(U, nu, id, b, 8), "upper bound of %d", id);                           \
    } while (0)
#define INT_BOUNDS(id)                                                                            \
    do {                                                                                          \
        le32(b, (uint32_t)e[id].imin);                                                            \
        CHECK_MSG(bound_is(L, nl, id, b, 4), "lower bound of %d", id);                           \
        le32(b, (uint32_t)e[id].imax);                                                            \
        CHECK_MSG(bound_is(U, nu, id, b, 4), "upper bound of %d", id);                           \
    } while (0)
#define STR_BOUNDS(id)                                                                            \
    do {                                                                                          \
        CHECK_MSG(bound_is(L, nl, id, e[id].smin, strlen(e[id].smin)), "lower bound of %d", id); \
        CHECK_MSG(bound_is(U, nu, id, e[id].smax, strlen(e[id].smax)), "upper bound of %d", id); \
    } while (0)
    LONG_BOUNDS(1);
    STR_BOUNDS(2);
    INT_BOUNDS(4);
    LONG_BOUNDS(5);
    STR_BOUNDS(11);
    INT_BOUNDS(12);
    INT_BOUNDS(13);
    CHECK(bound_is(L, nl, 8, "\0", 1) && bound_is(U, nu, 8, "\1", 1));
    double d = e[3].dmin;
    memcpy(b, &d, 8);
    CHECK(bound_is(L, nl, 3, b, 8));
    d = e[3].dmax;
    memcpy(b, &d, 8);
    CHECK(bound_is(U, nu, 3, b, 8));
    float fl = (float)e[17].dmin;
    memcpy(b, &fl, 4);
    CHECK(bound_is(L, nl, 17, b, 4));
    fl = (float)e[17].dmax;
    memcpy(b, &fl, 4);
    CHECK(bound_is(U, nu, 17, b, 4));
    len = min_be(e[9].imin, b);
    CHECK_MSG(bound_is(L, nl, 9, b, len), "decimal lower bound");
    len = min_be(e[9].imax, b);
    CHECK_MSG(bound_is(U, nu, 9, b, len), "decimal upper bound");
#undef LONG_BOUNDS
#undef INT_BOUNDS
#undef STR_BOUNDS
}

TEST(data_writer_metrics_match_the_rows)
{
    /* one row group, then many: bounds fold over row groups */
    static const struct basalt_iceberg_kv small[] = {
        {"write.parquet.row-group-size-bytes", "3000"}};
    for (int pass = 0; pass < 2; pass++) {
        struct run r;
        memset(&r, 0, sizeof r);
        struct basalt_arena a;
        basalt_arena_init(&a, 4096);
        struct basalt_iceberg_schema schema;
        dwt_schema(dwr_schema_json, &a, &schema);
        struct ArrowArray batches[2];
        CHECK_OK(dwr_batch(&schema, NULL, 0, 300, &batches[0]), NULL);
        CHECK_OK(dwr_batch(&schema, NULL, 300, 300, &batches[1]), NULL);
        struct basalt_error err;
        basalt_status st = run_write(&r, dwr_schema_json, pass ? small : NULL, pass ? 1 : 0,
                                     batches, 2, &err);
        basalt_arrow_array_release(&batches[0]);
        basalt_arrow_array_release(&batches[1]);
        basalt_arena_reset(&a);
        CHECK_OK(st, &err);
        CHECK_EQ(r.n, 1);
        const struct basalt_iceberg_data_file *f = &r.files[0];
        if (pass) {
            CHECK_MSG(f->n_split_offsets > 2, "%u row groups", f->n_split_offsets);
            for (uint32_t g = 1; g < f->n_split_offsets; g++)
                CHECK(f->split_offsets[g] > f->split_offsets[g - 1]);
        }
        check_file_metrics(f, 600);
        run_reset(&r);
        if (bt_failed())
            return;
    }
}

/* ------------------------------------------------------------ NaN */

TEST(data_writer_nan_counts_and_bounds_without_nan)
{
    static const char schema[] =
        "{\"type\":\"struct\",\"fields\":["
        "{\"id\":1,\"name\":\"d\",\"required\":false,\"type\":\"double\"},"
        "{\"id\":2,\"name\":\"f\",\"required\":false,\"type\":\"float\"},"
        "{\"id\":3,\"name\":\"l\",\"required\":false,\"type\":{\"type\":\"list\","
        "\"element-id\":4,\"element\":\"double\",\"element-required\":false}}]}";
    struct basalt_arrow_builder *root, *d, *f, *l, *el;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    basalt_arrow_builder_add_child(root, "g", "d", ARROW_FLAG_NULLABLE, &d, NULL);
    basalt_arrow_builder_add_child(root, "f", "f", ARROW_FLAG_NULLABLE, &f, NULL);
    basalt_arrow_builder_add_child(root, "+l", "l", ARROW_FLAG_NULLABLE, &l, NULL);
    basalt_arrow_builder_add_child(l, "g", "element", ARROW_FLAG_NULLABLE, &el, NULL);
    /* d: NaN 1.5 null -2.0 NaN; f: NaN null NaN NaN null;
     * l: [NaN, 1], [NaN] (made null below: its NaN is no value), [], [NaN, null], null */
    static const double dv[] = {NAN, 1.5, 0, -2.0, NAN};
    for (int r = 0; r < 5; r++) {
        if (r == 2)
            basalt_arrow_builder_append_null(d, NULL);
        else
            basalt_arrow_builder_append_double(d, dv[r], NULL);
        if (r == 1 || r == 4)
            basalt_arrow_builder_append_null(f, NULL);
        else
            basalt_arrow_builder_append_double(f, NAN, NULL);
        if (r == 4) {
            basalt_arrow_builder_append_null(l, NULL);
        } else {
            if (r != 2)
                basalt_arrow_builder_append_double(el, NAN, NULL);
            if (r == 0)
                basalt_arrow_builder_append_double(el, 1, NULL);
            if (r == 3)
                basalt_arrow_builder_append_null(el, NULL);
            basalt_arrow_builder_end_element(l, NULL);
        }
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct ArrowSchema s;
    struct ArrowArray batch;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &batch, &err), &err);
    basalt_arrow_schema_release(&s);
    basalt_arrow_builder_free(root);
    basalt_bitmap_set((uint8_t *)(uintptr_t)batch.children[2]->buffers[0], 1, false);
    batch.children[2]->null_count++;
    struct run r;
    memset(&r, 0, sizeof r);
    basalt_status st = run_write(&r, schema, NULL, 0, &batch, 1, &err);
    basalt_arrow_array_release(&batch);
    CHECK_OK(st, &err);
    const struct basalt_iceberg_data_file *df = &r.files[0];
    CHECK(count_is(df->nan_value_counts, df->n_nan_value_counts, 1, 2));
    CHECK(count_is(df->nan_value_counts, df->n_nan_value_counts, 2, 3));
    CHECK(count_is(df->nan_value_counts, df->n_nan_value_counts, 4, 2));
    CHECK(count_is(df->null_value_counts, df->n_null_value_counts, 1, 1));
    CHECK(count_is(df->null_value_counts, df->n_null_value_counts, 2, 2));
    /* l's levels: 2 + 1 (null list) + 1 (empty) + 2 + 1 (null list) */
    CHECK(count_is(df->value_counts, df->n_value_counts, 4, 7));
    CHECK(count_is(df->null_value_counts, df->n_null_value_counts, 4, 4));
    double lo = -2.0, hi = 1.5;
    CHECK(bound_is(df->lower_bounds, df->n_lower_bounds, 1, &lo, 8));
    CHECK(bound_is(df->upper_bounds, df->n_upper_bounds, 1, &hi, 8));
    /* only NaN: no bounds; inside a list: never */
    CHECK(dwt_bytes(df->lower_bounds, df->n_lower_bounds, 2) == NULL);
    CHECK(dwt_bytes(df->upper_bounds, df->n_upper_bounds, 2) == NULL);
    CHECK(dwt_bytes(df->lower_bounds, df->n_lower_bounds, 4) == NULL);
    run_reset(&r);
}

/* ------------------------------------------------------------ truncation */

struct bounds {
    bool has_lower, has_upper;
    uint8_t lower[80000], upper[80000];
    size_t lower_len, upper_len;
};

/* One column `v` of `type` holding values[0, n), its mode `mode` (NULL: the
 * default): the bounds written. */
static basalt_status bounds_of(const char *type, const char *mode, const char *const *values,
                               const size_t *lens, int n, struct bounds *out,
                               struct basalt_error *err)
{
    char schema[256];
    snprintf(schema, sizeof schema,
             "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"v\",\"required\":false,"
             "\"type\":\"%s\"}]}",
             type);
    struct basalt_arrow_builder *root, *v;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_builder_add_child(root, strcmp(type, "string") == 0 ? "u" : "z", "v",
                                   ARROW_FLAG_NULLABLE, &v, NULL);
    for (int i = 0; i < n; i++) {
        basalt_arrow_builder_append_bytes(v, values[i], (int64_t)(lens ? lens[i] : strlen(values[i])),
                                          NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct ArrowSchema s;
    struct ArrowArray batch;
    st = basalt_arrow_builder_finish(root, &s, &batch, err);
    basalt_arrow_builder_free(root);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_schema_release(&s);
    struct basalt_iceberg_kv kv = {"write.metadata.metrics.column.v", mode};
    struct run r;
    memset(&r, 0, sizeof r);
    st = run_write(&r, schema, &kv, mode ? 1 : 0, &batch, 1, err);
    basalt_arrow_array_release(&batch);
    if (st == BASALT_OK) {
        const struct basalt_iceberg_data_file *f = &r.files[0];
        const struct basalt_iceberg_metric_bytes *lo = dwt_bytes(f->lower_bounds, f->n_lower_bounds, 1);
        const struct basalt_iceberg_metric_bytes *hi = dwt_bytes(f->upper_bounds, f->n_upper_bounds, 1);
        out->has_lower = lo != NULL;
        out->has_upper = hi != NULL;
        if (lo) {
            out->lower_len = lo->len;
            memcpy(out->lower, lo->data, lo->len);
        }
        if (hi) {
            out->upper_len = hi->len;
            memcpy(out->upper, hi->data, hi->len);
        }
    }
    run_reset(&r);
    return st;
}

/* `n` copies of the UTF-8 text `unit`, then `tail`. */
static size_t repeat(char *out, const char *unit, int n, const char *tail)
{
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        memcpy(out + len, unit, strlen(unit));
        len += strlen(unit);
    }
    memcpy(out + len, tail, strlen(tail) + 1);
    return len + strlen(tail);
}

#define CHECK_BOUND(has, got, got_len, want, want_len)                                            \
    do {                                                                                          \
        CHECK_MSG(has, "bound missing");                                                          \
        CHECK_MSG((got_len) == (want_len) && memcmp(got, want, want_len) == 0,                    \
                  "bound of %zu bytes, %zu expected", (size_t)(got_len), (size_t)(want_len));    \
    } while (0)

TEST(data_writer_truncates_string_bounds)
{
    static struct bounds b;
    struct basalt_error err;
    char v1[256], v2[256], want[256];
    const char *vals[2] = {v1, v2};
    size_t wlen;

    /* 19 x U+00E9: 16 code points kept (32 bytes); the upper bound's last
     * one incremented to U+00EA */
    repeat(v1, "\xc3\xa9", 19, "");
    CHECK_OK(bounds_of("string", NULL, vals, NULL, 1, &b, &err), &err);
    wlen = repeat(want, "\xc3\xa9", 16, "");
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, want, wlen);
    wlen = repeat(want, "\xc3\xa9", 15, "\xc3\xaa");
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, want, wlen);

    /* 17 x U+10FFFF: no code point can be incremented, no upper bound */
    repeat(v1, "\xf4\x8f\xbf\xbf", 17, "");
    CHECK_OK(bounds_of("string", NULL, vals, NULL, 1, &b, &err), &err);
    wlen = repeat(want, "\xf4\x8f\xbf\xbf", 16, "");
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, want, wlen);
    CHECK(!b.has_upper);

    /* "a" + 17 x U+10FFFF: the increment goes back to the "a" */
    repeat(v1, "a", 1, "");
    repeat(v1 + 1, "\xf4\x8f\xbf\xbf", 17, "");
    CHECK_OK(bounds_of("string", NULL, vals, NULL, 1, &b, &err), &err);
    wlen = repeat(want, "a", 1, "");
    wlen += repeat(want + 1, "\xf4\x8f\xbf\xbf", 15, "");
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, want, wlen);
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, "b", (size_t)1);

    /* 17 x U+D7FF: the increment skips the surrogates to U+E000 */
    repeat(v1, "\xed\x9f\xbf", 17, "");
    CHECK_OK(bounds_of("string", NULL, vals, NULL, 1, &b, &err), &err);
    wlen = repeat(want, "\xed\x9f\xbf", 15, "\xee\x80\x80");
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, want, wlen);

    /* short values: the values themselves */
    strcpy(v1, "abd");
    strcpy(v2, "abc");
    CHECK_OK(bounds_of("string", NULL, vals, NULL, 2, &b, &err), &err);
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, "abc", (size_t)3);
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, "abd", (size_t)3);

    /* values longer than Parquet keeps in its statistics (it cuts them
     * itself): the same bounds as from the whole values */
    repeat(v1, "q", 100, "");
    repeat(v2, "m", 99, "z");
    CHECK_OK(bounds_of("string", NULL, vals, NULL, 2, &b, &err), &err);
    wlen = repeat(want, "m", 16, "");
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, want, wlen);
    wlen = repeat(want, "q", 15, "r");
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, want, wlen);

    /* truncate(2) and full */
    strcpy(v1, "hello");
    strcpy(v2, "world");
    CHECK_OK(bounds_of("string", "truncate(2)", vals, NULL, 2, &b, &err), &err);
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, "he", (size_t)2);
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, "wp", (size_t)2);
    repeat(v1, "x", 40, "");
    repeat(v2, "w", 40, "");
    CHECK_OK(bounds_of("string", "full", vals, NULL, 2, &b, &err), &err);
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, v2, (size_t)40);
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, v1, (size_t)40);
    /* counts: no bounds */
    CHECK_OK(bounds_of("string", "counts", vals, NULL, 2, &b, &err), &err);
    CHECK(!b.has_lower && !b.has_upper);
}

TEST(data_writer_truncates_binary_bounds)
{
    static struct bounds b;
    struct basalt_error err;
    uint8_t v1[32], v2[32];
    const char *vals[2] = {(const char *)v1, (const char *)v2};
    size_t lens[2] = {20, 20};
    /* 01 ff x19: 16 bytes kept; the upper bound 02 (ff bytes roll over) */
    v1[0] = 0x01;
    memset(v1 + 1, 0xff, 19);
    CHECK_OK(bounds_of("binary", NULL, vals, lens, 1, &b, &err), &err);
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, v1, (size_t)16);
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, "\x02", (size_t)1);
    /* ff x20: no upper bound */
    memset(v1, 0xff, 20);
    CHECK_OK(bounds_of("binary", NULL, vals, lens, 1, &b, &err), &err);
    CHECK(b.has_lower && b.lower_len == 16);
    CHECK(!b.has_upper);
    /* 00..13 and 05 x20: lower 00..0f, upper 05 x15 06 */
    for (int i = 0; i < 20; i++)
        v1[i] = (uint8_t)i;
    memset(v2, 0x05, 20);
    CHECK_OK(bounds_of("binary", NULL, vals, lens, 2, &b, &err), &err);
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, v1, (size_t)16);
    uint8_t want[16];
    memset(want, 0x05, 15);
    want[15] = 0x06;
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, want, (size_t)16);
    /* short: as they are */
    lens[0] = lens[1] = 3;
    CHECK_OK(bounds_of("binary", NULL, vals, lens, 2, &b, &err), &err);
    CHECK_BOUND(b.has_lower, b.lower, b.lower_len, v1, (size_t)3);
    CHECK_BOUND(b.has_upper, b.upper, b.upper_len, v2, (size_t)3);
}

TEST(data_writer_full_bounds_of_values_parquet_cuts)
{
    /* longer than the 64 KiB Parquet is asked to keep: still bounds */
    static char big[70001];
    static struct bounds b;
    struct basalt_error err;
    memset(big, 'k', 70000);
    big[70000] = '\0';
    const char *vals[1] = {big};
    CHECK_OK(bounds_of("string", "full", vals, NULL, 1, &b, &err), &err);
    CHECK(b.has_lower && b.lower_len <= 70000 && memcmp(b.lower, big, b.lower_len) == 0);
    CHECK(b.has_upper && b.upper_len < 70000);
    CHECK(memcmp(b.upper, big, b.upper_len) > 0); /* above the value */
}

/* ------------------------------------------------------------ modes */

static basalt_status longs_batch(int n_cols, struct ArrowArray *out)
{
    struct basalt_arrow_builder *root;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    if (st != BASALT_OK)
        return st;
    for (int c = 0; c < n_cols; c++) {
        struct basalt_arrow_builder *b;
        basalt_arrow_builder_add_child(root, "l", "c", ARROW_FLAG_NULLABLE, &b, NULL);
    }
    for (int r = 0; r < 4; r++) {
        for (int c = 0; c < n_cols; c++)
            basalt_arrow_builder_append_int(basalt_arrow_builder_child(root, c), r * 10 + c, NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct ArrowSchema sch;
    st = basalt_arrow_builder_finish(root, &sch, out, NULL);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&sch);
    basalt_arrow_builder_free(root);
    return st;
}

static const char four_longs[] =
    "{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":3,\"name\":\"c\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":4,\"name\":\"d\",\"required\":false,\"type\":\"long\"}]}";

/* 'n' none, 'c' counts, 'b' bounds: what each of ids 1..4 got. */
static void metric_kinds(const struct basalt_iceberg_data_file *f, char out[5])
{
    for (int32_t id = 1; id <= 4; id++) {
        bool size = dwt_long(f->column_sizes, f->n_column_sizes, id) != NULL;
        bool counts = dwt_long(f->value_counts, f->n_value_counts, id) != NULL &&
                      dwt_long(f->null_value_counts, f->n_null_value_counts, id) != NULL;
        bool lower = dwt_bytes(f->lower_bounds, f->n_lower_bounds, id) != NULL;
        bool upper = dwt_bytes(f->upper_bounds, f->n_upper_bounds, id) != NULL;
        char k = '?';
        if (!size && !counts && !lower && !upper)
            k = 'n';
        else if (size && counts && !lower && !upper)
            k = 'c';
        else if (size && counts && lower && upper)
            k = 'b';
        out[id - 1] = k;
    }
    out[4] = '\0';
}

TEST(data_writer_metrics_modes)
{
    static const struct {
        struct basalt_iceberg_kv props[4];
        uint32_t n;
        const char *kinds;
    } cases[] = {
        {{{NULL, NULL}}, 0, "bbbb"},
        /* a default for all, overridden per column; a bad mode falls back */
        {{{"write.metadata.metrics.default", "counts"},
          {"write.metadata.metrics.column.b", "full"},
          {"write.metadata.metrics.column.c", "none"},
          {"write.metadata.metrics.column.d", "truncate(0)"}},
         4, "cbnc"},
        {{{"write.metadata.metrics.default", "NONE"},
          {"write.metadata.metrics.column.a", "Truncate(4)"}},
         2, "bnnn"},
        /* wide tables: columns past the limit get none unless set */
        {{{"write.metadata.metrics.max-inferred-column-defaults", "2"}}, 1, "bbnn"},
        {{{"write.metadata.metrics.max-inferred-column-defaults", "2"},
          {"write.metadata.metrics.column.d", "counts"},
          {"write.metadata.metrics.column.c", "bogus"}},
         3, "bbnc"},
        {{{"write.metadata.metrics.max-inferred-column-defaults", "2"},
          {"write.metadata.metrics.default", "full"}},
         2, "bbbb"},
        {{{"write.metadata.metrics.max-inferred-column-defaults", "4"}}, 1, "bbbb"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ArrowArray batch;
        CHECK_OK(longs_batch(4, &batch), NULL);
        struct run r;
        memset(&r, 0, sizeof r);
        struct basalt_error err;
        basalt_status st = run_write(&r, four_longs, cases[i].props, cases[i].n, &batch, 1, &err);
        basalt_arrow_array_release(&batch);
        CHECK_OK(st, &err);
        char kinds[5];
        metric_kinds(&r.files[0], kinds);
        run_reset(&r);
        CHECK_MSG(strcmp(kinds, cases[i].kinds) == 0, "case %zu: %s, %s expected", i, kinds,
                  cases[i].kinds);
    }
}

TEST(data_writer_metrics_mode_of_nested_columns)
{
    /* modes are looked up by a leaf's full name */
    static const char schema[] =
        "{\"type\":\"struct\",\"fields\":["
        "{\"id\":1,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
        "{\"id\":2,\"name\":\"x\",\"required\":false,\"type\":\"long\"},"
        "{\"id\":3,\"name\":\"y\",\"required\":false,\"type\":\"long\"}]}}]}";
    struct basalt_arrow_builder *root, *s, *x, *y;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, NULL), NULL);
    basalt_arrow_builder_add_child(root, "+s", "s", ARROW_FLAG_NULLABLE, &s, NULL);
    basalt_arrow_builder_add_child(s, "l", "x", ARROW_FLAG_NULLABLE, &x, NULL);
    basalt_arrow_builder_add_child(s, "l", "y", ARROW_FLAG_NULLABLE, &y, NULL);
    for (int r = 0; r < 3; r++) {
        basalt_arrow_builder_append_int(x, r, NULL);
        basalt_arrow_builder_append_int(y, -r, NULL);
        basalt_arrow_builder_end_element(s, NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct ArrowSchema sch;
    struct ArrowArray batch;
    CHECK_OK(basalt_arrow_builder_finish(root, &sch, &batch, NULL), NULL);
    basalt_arrow_schema_release(&sch);
    basalt_arrow_builder_free(root);
    static const struct basalt_iceberg_kv props[] = {
        {"write.metadata.metrics.column.s.x", "none"},
        {"write.metadata.metrics.column.s", "counts"}, /* not a leaf: no effect */
    };
    struct run r;
    memset(&r, 0, sizeof r);
    struct basalt_error err;
    basalt_status st = run_write(&r, schema, props, 2, &batch, 1, &err);
    basalt_arrow_array_release(&batch);
    CHECK_OK(st, &err);
    const struct basalt_iceberg_data_file *f = &r.files[0];
    CHECK(dwt_long(f->value_counts, f->n_value_counts, 2) == NULL);
    CHECK(dwt_long(f->column_sizes, f->n_column_sizes, 2) == NULL);
    uint8_t lo[8], hi[8];
    le64(lo, (uint64_t)-2);
    le64(hi, 0);
    CHECK(bound_is(f->lower_bounds, f->n_lower_bounds, 3, lo, 8));
    CHECK(bound_is(f->upper_bounds, f->n_upper_bounds, 3, hi, 8));
    run_reset(&r);
}
