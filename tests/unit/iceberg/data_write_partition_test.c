/* The data writer on partitioned tables: paths and tuples of identity,
 * bucket, year/month/day/hour and truncate partitions against hand-written
 * expectations (bucket values from the spec's Appendix B hashes), rows
 * fanned out to one file per partition and read back, files rolled within a
 * partition, the clustered fast path, and DuckDB reading the files. */
#include <inttypes.h>
#include <math.h>

#include "basalt/hash.h"
#include "data_write_internal.h"
#include "data_write_util.h"

static const char pschema[] =
    "{\"type\":\"struct\",\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"region\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":4,\"name\":\"dt\",\"required\":false,\"type\":\"date\"},"
    "{\"id\":5,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":6,\"name\":\"price\",\"required\":false,\"type\":\"double\"}]}";

/* 2024-03-05T10:15:30Z, 2024-03-31T23:59:59Z, 2024-04-01T00:00:00Z */
#define TS_MAR5 INT64_C(1709633730000000)
#define TS_MAR31 INT64_C(1711929599000000)
#define TS_APR1 INT64_C(1711929600000000)
#define NO_TS INT64_MIN
#define NO_DT INT32_MIN

struct prow {
    int64_t id;
    const char *region;
    int64_t ts;
    int32_t dt;
    const char *name;
    double price;
};

static basalt_status pbatch(const struct prow *rows, int64_t n, struct ArrowArray *out)
{
    struct basalt_arrow_builder *root, *c[6];
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    if (st != BASALT_OK)
        return st;
    static const char *const formats[6] = {"l", "u", "tsu:UTC", "tdD", "u", "g"};
    for (int i = 0; i < 6; i++)
        basalt_arrow_builder_add_child(root, formats[i], "c", i ? ARROW_FLAG_NULLABLE : 0, &c[i],
                                       NULL);
    for (int64_t k = 0; k < n; k++) {
        const struct prow *r = &rows[k];
        basalt_arrow_builder_append_int(c[0], r->id, NULL);
        if (r->region)
            basalt_arrow_builder_append_string(c[1], r->region, NULL);
        else
            basalt_arrow_builder_append_null(c[1], NULL);
        if (r->ts != NO_TS)
            basalt_arrow_builder_append_int(c[2], r->ts, NULL);
        else
            basalt_arrow_builder_append_null(c[2], NULL);
        if (r->dt != NO_DT)
            basalt_arrow_builder_append_int(c[3], r->dt, NULL);
        else
            basalt_arrow_builder_append_null(c[3], NULL);
        if (r->name)
            basalt_arrow_builder_append_string(c[4], r->name, NULL);
        else
            basalt_arrow_builder_append_null(c[4], NULL);
        basalt_arrow_builder_append_double(c[5], r->price, NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct ArrowSchema s;
    st = basalt_arrow_builder_finish(root, &s, out, NULL);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&s);
    basalt_arrow_builder_free(root);
    return st;
}

struct ptable {
    char dir[64];
    char data[128];
    struct basalt_arena arena;
    struct basalt_iceberg_schema schema;
    struct basalt_iceberg_partition_spec spec;
    struct basalt_iceberg_data_writer *w;
};

static bool ptable_open(struct ptable *t, struct basalt_iceberg_partition_field *fields,
                        uint32_t n, const struct basalt_iceberg_kv *props, uint32_t n_props,
                        struct basalt_error *err)
{
    if (!dwt_tmpdir(t->dir))
        return false;
    basalt_arena_init(&t->arena, 4096);
    dwt_schema(pschema, &t->arena, &t->schema);
    t->spec.spec_id = 1;
    t->spec.fields = fields;
    t->spec.n_fields = n;
    struct basalt_iceberg_data_writer_options o;
    dwt_options(&o, &t->schema, &t->spec, t->data, sizeof t->data, t->dir);
    o.properties = props;
    o.n_properties = n_props;
    return basalt_iceberg_data_writer_new(&o, &t->w, err) == BASALT_OK;
}

static void ptable_close(struct ptable *t)
{
    basalt_iceberg_data_writer_free(t->w);
    dwt_rmrf(t->dir);
    basalt_arena_reset(&t->arena);
}

static basalt_status pt_write(struct ptable *t, const struct prow *rows, int64_t n,
                            struct basalt_error *err)
{
    struct ArrowArray batch;
    basalt_status st = pbatch(rows, n, &batch);
    if (st != BASALT_OK)
        return st;
    st = basalt_iceberg_data_writer_write(t->w, &batch, err);
    basalt_arrow_array_release(&batch);
    return st;
}

static bool value_is_int(const struct basalt_iceberg_value *v, enum basalt_iceberg_type_id type,
                         int32_t want)
{
    return v->type == type && !v->is_null && v->u.i32 == want;
}

static bool value_is_str(const struct basalt_iceberg_value *v, const char *want)
{
    if (v->type != BASALT_ICEBERG_TYPE_STRING)
        return false;
    if (!want)
        return v->is_null;
    return !v->is_null && v->u.bytes.len == strlen(want) &&
           memcmp(v->u.bytes.data, want, v->u.bytes.len) == 0;
}

/* The ids of a file's rows, in order, into ids (cap entries); the count. */
static int64_t file_ids(const char *path, int64_t *ids, int64_t cap)
{
    struct basalt_arrow_batches b;
    if (dwt_read(path, &b, NULL) != BASALT_OK)
        return -1;
    int64_t n = 0;
    for (int64_t k = 0; k < b.n; k++) {
        const struct ArrowArray *c = b.arrays[k].children[0];
        for (int64_t i = 0; i < c->length && n < cap; i++)
            ids[n++] = ((const int64_t *)c->buffers[1])[c->offset + i];
    }
    basalt_arrow_batches_reset(&b);
    return n;
}

/* Hours since the epoch of TS_MAR5 (1709633730 s / 3600, floored). */
#define HOUR_MAR5 474898

TEST(data_writer_partition_paths_and_tuples)
{
    /* bucket[16] of 34 is 3: Appendix B hashes 34L to 2017239379 */
    CHECK_EQ(2017239379 % 16, 3);
    struct basalt_iceberg_partition_field pf[3] = {
        dwt_pfield(1, 1000, "id_bucket", "bucket[16]"),
        dwt_pfield(3, 1001, "ts_month", "month"),
        dwt_pfield(2, 1002, "region", "identity"),
    };
    struct ptable t;
    struct basalt_error err;
    CHECK_MSG(ptable_open(&t, pf, 3, NULL, 0, &err), "%s", err.message);
    const struct prow rows[] = {
        {34, "a b/c", TS_MAR5, 0, "x", 1.0},
        {34, "a b/c", TS_MAR31, 0, "x", 2.0},
        {34, NULL, TS_APR1, 0, "x", 3.0},
        {34, "a b/c", TS_MAR5 + 1, 0, "x", 4.0}, /* back to the first partition */
    };
    CHECK_OK(pt_write(&t, rows, 4, &err), &err);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(t.w, &files, &n, &err), &err);
    CHECK_EQ(n, 2);
    char want[256];
    snprintf(want, sizeof want, "%s/data/id_bucket=3/ts_month=2024-03/region=a+b%%2Fc/00000-0-test-00001.parquet",
             t.dir);
    CHECK_STR(files[0].file_path, want);
    snprintf(want, sizeof want, "%s/data/id_bucket=3/ts_month=2024-04/region=null/00000-0-test-00002.parquet",
             t.dir);
    CHECK_STR(files[1].file_path, want);
    CHECK_EQ(files[0].n_partition, 3);
    CHECK(value_is_int(&files[0].partition[0], BASALT_ICEBERG_TYPE_INT, 3));
    CHECK(value_is_int(&files[0].partition[1], BASALT_ICEBERG_TYPE_INT, (2024 - 1970) * 12 + 2));
    CHECK(value_is_str(&files[0].partition[2], "a b/c"));
    CHECK(value_is_int(&files[1].partition[1], BASALT_ICEBERG_TYPE_INT, (2024 - 1970) * 12 + 3));
    CHECK(value_is_str(&files[1].partition[2], NULL));
    CHECK_EQ(files[0].record_count, 3);
    CHECK_EQ(files[1].record_count, 1);
    /* the first file holds rows 0, 1 and 3, in that order: their prices */
    struct basalt_arrow_batches b;
    CHECK_OK(dwt_read(files[0].file_path, &b, &err), &err);
    CHECK_EQ(b.n, 1);
    const double *price = b.arrays[0].children[5]->buffers[1];
    CHECK(price[0] == 1.0 && price[1] == 2.0 && price[2] == 4.0);
    basalt_arrow_batches_reset(&b);
    /* the metrics are the file's own */
    uint8_t lo[8], hi[8];
    int64_t v = TS_MAR5;
    memcpy(lo, &v, 8);
    v = TS_MAR31;
    memcpy(hi, &v, 8);
    const struct basalt_iceberg_metric_bytes *L = dwt_bytes(files[0].lower_bounds, files[0].n_lower_bounds, 3);
    const struct basalt_iceberg_metric_bytes *U = dwt_bytes(files[0].upper_bounds, files[0].n_upper_bounds, 3);
    CHECK(L && L->len == 8 && memcmp(L->data, lo, 8) == 0);
    CHECK(U && U->len == 8 && memcmp(U->data, hi, 8) == 0);
    ptable_close(&t);
}

TEST(data_writer_partition_day_hour_truncate_bucket_string)
{
    /* bucket[16] of "iceberg" is 9: Appendix B hashes it to 1210000089 */
    CHECK_EQ(1210000089 % 16, 9);
    struct basalt_iceberg_partition_field pf[5] = {
        dwt_pfield(4, 1000, "dt_day", "day"),
        dwt_pfield(3, 1001, "ts_hour", "hour"),
        dwt_pfield(5, 1002, "name_trunc", "truncate[3]"),
        dwt_pfield(5, 1003, "name_bucket", "bucket[16]"),
        dwt_pfield(3, 1004, "ts_year", "year"),
    };
    struct ptable t;
    struct basalt_error err;
    CHECK_MSG(ptable_open(&t, pf, 5, NULL, 0, &err), "%s", err.message);
    const struct prow rows[] = {
        {1, "r", TS_MAR5, 19787, "iceberg", 1.0},
        /* before the epoch: 1969-12-31 is day -1, 23:00 that day hour -1 */
        {2, "r", -INT64_C(3600000000), -1, NULL, 2.0},
        {3, "r", TS_MAR5 + 1000, 19787, "ice cream", 3.0}, /* other bucket, same trunc */
    };
    CHECK_OK(pt_write(&t, rows, 3, &err), &err);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(t.w, &files, &n, &err), &err);
    CHECK_EQ(n, 3);
    const char *tail = files[0].file_path + strlen(t.dir);
    CHECK_STR(tail, "/data/dt_day=2024-03-05/ts_hour=2024-03-05-10/name_trunc=ice/name_bucket=9/"
                    "ts_year=2024/00000-0-test-00001.parquet");
    tail = files[1].file_path + strlen(t.dir);
    CHECK_STR(tail, "/data/dt_day=1969-12-31/ts_hour=1969-12-31-23/name_trunc=null/"
                    "name_bucket=null/ts_year=1969/00000-0-test-00002.parquet");
    CHECK(value_is_int(&files[0].partition[0], BASALT_ICEBERG_TYPE_DATE, 19787));
    CHECK(value_is_int(&files[0].partition[1], BASALT_ICEBERG_TYPE_INT, HOUR_MAR5));
    CHECK(value_is_str(&files[0].partition[2], "ice"));
    CHECK(value_is_int(&files[0].partition[3], BASALT_ICEBERG_TYPE_INT, 9));
    CHECK(value_is_int(&files[0].partition[4], BASALT_ICEBERG_TYPE_INT, 2024 - 1970));
    CHECK(value_is_int(&files[1].partition[0], BASALT_ICEBERG_TYPE_DATE, -1));
    CHECK(value_is_int(&files[1].partition[1], BASALT_ICEBERG_TYPE_INT, -1));
    CHECK(value_is_str(&files[1].partition[2], NULL));
    CHECK(files[1].partition[3].is_null && files[1].partition[3].type == BASALT_ICEBERG_TYPE_INT);
    CHECK(value_is_int(&files[1].partition[4], BASALT_ICEBERG_TYPE_INT, -1));
    CHECK(value_is_str(&files[2].partition[2], "ice"));
    CHECK(!value_is_int(&files[2].partition[3], BASALT_ICEBERG_TYPE_INT, 9));
    ptable_close(&t);
}

/* bucket[4] of a long, as the spec defines it (the hash module's Murmur3
 * of the 8-byte little-endian value, checked against Appendix B first). */
static int32_t bucket4(int64_t id)
{
    return (int32_t)((basalt_hash_murmur3_32_i64(id) & INT32_MAX) % 4);
}

TEST(data_writer_fans_out_and_rolls_per_partition)
{
    CHECK_EQ((int32_t)basalt_hash_murmur3_32_i64(34), 2017239379);
    struct basalt_iceberg_partition_field pf[1] = {dwt_pfield(1, 1000, "id_bucket", "bucket[4]")};
    static const struct basalt_iceberg_kv props[] = {
        {"write.target-file-size-bytes", "6000"},
        {"write.parquet.compression-codec", "snappy"},
    };
    struct ptable t;
    struct basalt_error err;
    CHECK_MSG(ptable_open(&t, pf, 1, props, 2, &err), "%s", err.message);
    enum { N = 3000 };
    static struct prow rows[N];
    static char names[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "name%d", i);
        rows[i] = (struct prow){i, i % 7 ? "eu" : NULL, TS_MAR5 + i, 19787, names[i], i * 0.5};
    }
    /* batches of interleaved partitions */
    for (int first = 0; first < N; first += 700)
        CHECK_OK(pt_write(&t, rows + first, first + 700 <= N ? 700 : N - first, &err), &err);
    CHECK_EQ(t.w->counters.routed_rows, N);
    CHECK_EQ(t.w->counters.gathered_rows, N);
    CHECK_EQ(t.w->counters.direct_batches, 0);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(t.w, &files, &n, &err), &err);
    CHECK_MSG(n > 8, "%u files", n);
    static bool seen[N];
    memset(seen, 0, sizeof seen);
    int64_t last_id[4] = {-1, -1, -1, -1};
    int files_of[4] = {0};
    static int64_t ids[N];
    for (uint32_t i = 0; i < n; i++) {
        const struct basalt_iceberg_data_file *f = &files[i];
        CHECK(f->n_partition == 1 && f->partition[0].type == BASALT_ICEBERG_TYPE_INT);
        int32_t bucket = f->partition[0].u.i32;
        CHECK(bucket >= 0 && bucket < 4);
        char want[128];
        snprintf(want, sizeof want, "/data/id_bucket=%d/00000-0-test-%05u.parquet", bucket, i + 1);
        CHECK_STR(f->file_path + strlen(t.dir), want);
        int64_t m = file_ids(f->file_path, ids, N);
        CHECK_EQ(m, f->record_count);
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int64_t k = 0; k < m; k++) {
            CHECK_MSG(bucket4(ids[k]) == bucket, "id %lld in bucket %d", (long long)ids[k], bucket);
            CHECK(!seen[ids[k]]);
            seen[ids[k]] = true;
            /* a partition's rows stay in order, across its files too */
            CHECK(ids[k] > last_id[bucket]);
            last_id[bucket] = ids[k];
            lo = ids[k] < lo ? ids[k] : lo;
            hi = ids[k] > hi ? ids[k] : hi;
        }
        files_of[bucket]++;
        const struct basalt_iceberg_metric_bytes *L = dwt_bytes(f->lower_bounds, f->n_lower_bounds, 1);
        const struct basalt_iceberg_metric_bytes *U = dwt_bytes(f->upper_bounds, f->n_upper_bounds, 1);
        CHECK(L && L->len == 8 && memcmp(L->data, &lo, 8) == 0);
        CHECK(U && U->len == 8 && memcmp(U->data, &hi, 8) == 0);
    }
    for (int i = 0; i < N; i++)
        CHECK_MSG(seen[i], "row %d missing", i);
    for (int b = 0; b < 4; b++)
        CHECK_MSG(files_of[b] >= 2, "bucket %d: %d files", b, files_of[b]);
    ptable_close(&t);
}

TEST(data_writer_clustered_batches_are_not_gathered)
{
    struct basalt_iceberg_partition_field pf[1] = {dwt_pfield(4, 1000, "dt", "identity")};
    struct ptable t;
    struct basalt_error err;
    CHECK_MSG(ptable_open(&t, pf, 1, NULL, 0, &err), "%s", err.message);
    struct prow rows[100];
    for (int i = 0; i < 100; i++)
        rows[i] = (struct prow){i, "eu", TS_MAR5, i < 60 ? 19787 : 19788, "n", 1.0};
    /* one partition per batch: written as it came */
    CHECK_OK(pt_write(&t, rows, 60, &err), &err);
    CHECK_OK(pt_write(&t, rows + 60, 40, &err), &err);
    CHECK_EQ(t.w->counters.direct_batches, 2);
    CHECK_EQ(t.w->counters.gathered_rows, 0);
    /* two in one batch: gathered */
    CHECK_OK(pt_write(&t, rows + 50, 20, &err), &err);
    CHECK_EQ(t.w->counters.gathered_rows, 20);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(t.w, &files, &n, &err), &err);
    CHECK_EQ(n, 2);
    CHECK_EQ(files[0].record_count, 70);
    CHECK_EQ(files[1].record_count, 50);
    CHECK(strstr(files[0].file_path, "/dt=2024-03-05/") != NULL);
    CHECK(strstr(files[1].file_path, "/dt=2024-03-06/") != NULL);
    ptable_close(&t);

    /* unpartitioned: never routed */
    CHECK_MSG(ptable_open(&t, pf, 0, NULL, 0, &err), "%s", err.message);
    CHECK_OK(pt_write(&t, rows, 100, &err), &err);
    CHECK_EQ(t.w->counters.routed_rows, 0);
    CHECK_EQ(t.w->counters.direct_batches, 1);
    ptable_close(&t);
}

/* ------------------------------------------------------------ DuckDB */

static bool have_duckdb(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-api/package.json",
             BASALT_TEST_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f && system("command -v node >/dev/null 2>&1") == 0;
}

/* DuckDB reads every file of a partitioned table (hive partitioning off:
 * the values are in the files) and sums what the rows hold. */
TEST(data_writer_partitioned_files_read_by_duckdb)
{
    if (!have_duckdb()) {
        const char *required = getenv("BASALT_REQUIRE_PEERS");
        CHECK_MSG(!required || strcmp(required, "1") != 0,
                  "node or node_modules/@duckdb/node-api missing (run scripts/setup)");
        printf("SKIP data_writer_partitioned_files_read_by_duckdb: node or "
               "node_modules/@duckdb/node-api missing\n");
        return;
    }
    struct basalt_iceberg_partition_field pf[2] = {dwt_pfield(1, 1000, "id_bucket", "bucket[4]"),
                                                   dwt_pfield(2, 1001, "region_p", "identity")};
    struct ptable t;
    struct basalt_error err;
    CHECK_MSG(ptable_open(&t, pf, 2, NULL, 0, &err), "%s", err.message);
    enum { N = 2000 };
    static struct prow rows[N];
    int64_t sum_id = 0, regions = 0;
    double sum_price = 0;
    for (int i = 0; i < N; i++) {
        static const char *const region[3] = {"eu", "us west", NULL};
        rows[i] = (struct prow){i * 3, region[i % 3], TS_MAR5 + i, 19787, "n", i * 0.25};
        sum_id += i * 3;
        regions += i % 3 != 2;
        sum_price += i * 0.25;
    }
    CHECK_OK(pt_write(&t, rows, N, &err), &err);
    const struct basalt_iceberg_data_file *files;
    uint32_t n;
    CHECK_OK(basalt_iceberg_data_writer_finish(t.w, &files, &n, &err), &err);
    CHECK_EQ(n, 12);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && node tests/parquet/duckdb_query.mjs - \"SELECT count(*), sum(id), "
             "count(region), CAST(sum(price) * 4 AS BIGINT), count(DISTINCT filename) FROM read_parquet('%s/data/*/*/*.parquet', "
             "hive_partitioning=false, filename=true)\"",
             BASALT_TEST_SOURCE_DIR, t.dir);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    char out[256] = "";
    size_t len = fread(out, 1, sizeof out - 1, p);
    out[len] = '\0';
    CHECK_EQ(pclose(p), 0);
    char want[256];
    snprintf(want, sizeof want, "%d %" PRId64 " %" PRId64 " %" PRId64 " %u\n", N, sum_id,
             regions, (int64_t)(sum_price * 4), n);
    CHECK_MSG(strcmp(out, want) == 0, "DuckDB: '%s', expected '%s'", out, want);
    ptable_close(&t);
}

/* ------------------------------------------------------------ workers */

/* Writes rows with `pool`; the files' bytes concatenated into `out`. */
static basalt_status write_with_pool(struct basalt_pool *pool, const struct prow *rows, int64_t n,
                                     struct basalt_buffer *out, uint32_t *n_files,
                                     struct basalt_error *err)
{
    struct basalt_iceberg_partition_field pf[1] = {dwt_pfield(1, 1000, "id_bucket", "bucket[8]")};
    struct ptable t;
    if (!dwt_tmpdir(t.dir))
        return BASALT_IO;
    basalt_arena_init(&t.arena, 4096);
    dwt_schema(pschema, &t.arena, &t.schema);
    t.spec = (struct basalt_iceberg_partition_spec){1, pf, 1};
    struct basalt_iceberg_data_writer_options o;
    dwt_options(&o, &t.schema, &t.spec, t.data, sizeof t.data, t.dir);
    static const struct basalt_iceberg_kv props[] = {{"write.target-file-size-bytes", "8000"}};
    o.properties = props;
    o.n_properties = 1;
    o.pool = pool;
    basalt_status st = basalt_iceberg_data_writer_new(&o, &t.w, err);
    for (int64_t first = 0; st == BASALT_OK && first < n; first += 500)
        st = pt_write(&t, rows + first, n - first < 500 ? n - first : 500, err);
    const struct basalt_iceberg_data_file *files;
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(t.w, &files, n_files, err);
    for (uint32_t i = 0; st == BASALT_OK && i < *n_files; i++) {
        size_t len;
        uint8_t *data = bt_read_file(files[i].file_path, &len);
        if (!data)
            return BASALT_IO;
        st = basalt_buffer_append(out, files[i].file_path + strlen(t.dir),
                                  strlen(files[i].file_path + strlen(t.dir)), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(out, data, len, err);
        basalt_free(data);
    }
    ptable_close(&t);
    return st;
}

TEST(data_writer_files_are_the_same_for_any_number_of_workers)
{
    enum { N = 3000 };
    static struct prow rows[N];
    static char names[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "v%d", i * 7919 % 1000);
        rows[i] = (struct prow){i, i % 3 ? "eu" : "us", TS_MAR5 + i * 1000, 19787 + i % 5, names[i],
                                i * 0.125};
    }
    struct basalt_buffer one, many;
    basalt_buffer_init(&one);
    basalt_buffer_init(&many);
    struct basalt_error err;
    uint32_t n1 = 0, n2 = 0;
    CHECK_OK(write_with_pool(NULL, rows, N, &one, &n1, &err), &err);
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    basalt_status st = write_with_pool(pool, rows, N, &many, &n2, &err);
    basalt_pool_free(pool);
    CHECK_OK(st, &err);
    CHECK(n1 > 8);
    CHECK_EQ(n1, n2);
    CHECK(one.size == many.size && memcmp(one.data, many.data, one.size) == 0);
    basalt_buffer_reset(&one);
    basalt_buffer_reset(&many);
}
