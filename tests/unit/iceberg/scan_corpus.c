/* Scans of corpus tables through the API: output identical for 1, 2 and 4
 * workers and batch sizes 1, 7 and 65536; deletes; metadata columns against
 * the partition layout of EXPECTED.md; count; errors; allocation failures. */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_scan.h"
#include "scan_internal.h"
#include "test.h"

/* Appends a canonical text of element i of (s, a). */
static basalt_status render(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                            struct basalt_buffer *out)
{
    char tmp[96];
    int64_t j = a->offset + i;
    if (a->buffers != NULL && a->n_buffers > 0 && a->buffers[0] != NULL && !basalt_bitmap_get(a->buffers[0], j))
        return basalt_buffer_append(out, "N", 1, NULL);
    const char *f = s->format;
    int n = 0;
    if (strcmp(f, "+s") == 0) {
        basalt_status st = basalt_buffer_append(out, "{", 1, NULL);
        for (int64_t c = 0; c < s->n_children && st == BASALT_OK; c++) {
            st = render(s->children[c], a->children[c], j, out);
            if (st == BASALT_OK)
                st = basalt_buffer_append(out, ",", 1, NULL);
        }
        return st == BASALT_OK ? basalt_buffer_append(out, "}", 1, NULL) : st;
    }
    if (strcmp(f, "n") == 0)
        return basalt_buffer_append(out, "N", 1, NULL);
    if (strcmp(f, "b") == 0)
        n = snprintf(tmp, sizeof tmp, "%d", basalt_bitmap_get(a->buffers[1], j) ? 1 : 0);
    else if (strcmp(f, "i") == 0 || strcmp(f, "tdD") == 0)
        n = snprintf(tmp, sizeof tmp, "%" PRId32, ((const int32_t *)a->buffers[1])[j]);
    else if (strcmp(f, "l") == 0 || strncmp(f, "ts", 2) == 0 || strcmp(f, "ttu") == 0)
        n = snprintf(tmp, sizeof tmp, "%" PRId64, ((const int64_t *)a->buffers[1])[j]);
    else if (strcmp(f, "g") == 0)
        n = snprintf(tmp, sizeof tmp, "%.17g", ((const double *)a->buffers[1])[j]);
    else if (strcmp(f, "f") == 0)
        n = snprintf(tmp, sizeof tmp, "%.9g", (double)((const float *)a->buffers[1])[j]);
    else if (strncmp(f, "d:", 2) == 0)
        n = snprintf(tmp, sizeof tmp, "%" PRId64 ":%" PRIu64, ((const int64_t *)a->buffers[1])[2 * j + 1],
                     ((const uint64_t *)a->buffers[1])[2 * j]);
    else if (strcmp(f, "u") == 0 || strcmp(f, "z") == 0) {
        const int32_t *o = a->buffers[1];
        basalt_status st = basalt_buffer_append(out, "'", 1, NULL);
        if (st == BASALT_OK)
            st = basalt_buffer_append(out, (const char *)a->buffers[2] + o[j], (size_t)(o[j + 1] - o[j]), NULL);
        return st == BASALT_OK ? basalt_buffer_append(out, "'", 1, NULL) : st;
    } else
        n = snprintf(tmp, sizeof tmp, "?%s", f);
    return basalt_buffer_append(out, tmp, (size_t)n, NULL);
}

struct result {
    struct basalt_buffer rows;     /* one line per row */
    struct basalt_buffer batches;  /* batch lengths */
    int64_t n_rows;
};

static void result_reset(struct result *r)
{
    basalt_buffer_reset(&r->rows);
    basalt_buffer_reset(&r->batches);
}

static basalt_status run_scan(const struct basalt_iceberg_table *table,
                              const struct basalt_iceberg_scan_options *o, struct result *r,
                              struct basalt_error *err)
{
    basalt_buffer_init(&r->rows);
    basalt_buffer_init(&r->batches);
    r->n_rows = 0;
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    stream.release = NULL;
    schema.release = NULL;
    basalt_status st = basalt_iceberg_scan_new(table, o, &scan, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_stream(scan, &stream, err);
    if (st == BASALT_OK) {
        int rc = stream.get_schema(&stream, &schema);
        if (rc != 0)
            st = basalt_error_set(err, rc == ENOMEM ? BASALT_NOMEM : BASALT_IO, "get_schema: %s",
                                  stream.get_last_error(&stream));
    }
    while (st == BASALT_OK) {
        struct ArrowArray b;
        int rc = stream.get_next(&stream, &b);
        if (rc != 0) {
            st = rc == ENOMEM ? BASALT_NOMEM : BASALT_IO;
            basalt_error_set(err, st, "get_next: %s", stream.get_last_error(&stream));
            break;
        }
        if (b.release == NULL)
            break;
        char tmp[32];
        int n = snprintf(tmp, sizeof tmp, "%" PRId64 " ", b.length);
        st = basalt_buffer_append(&r->batches, tmp, (size_t)n, err);
        if (b.length == 0)
            st = basalt_error_set(err, BASALT_INTERNAL, "empty batch");
        for (int64_t i = 0; i < b.length && st == BASALT_OK; i++) {
            st = render(&schema, &b, i, &r->rows);
            if (st == BASALT_OK)
                st = basalt_buffer_append(&r->rows, "\n", 1, err);
            r->n_rows++;
        }
        basalt_arrow_array_release(&b);
    }
    basalt_arrow_schema_release(&schema);
    basalt_arrow_stream_release(&stream);
    basalt_iceberg_scan_free(scan);
    if (st != BASALT_OK)
        result_reset(r);
    return st;
}

static bool same(const struct basalt_buffer *a, const struct basalt_buffer *b)
{
    return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* Every (workers, batch size) pair gives the same rows; for one batch size
 * the same batches whatever the workers. Returns the row count, -1 on failure. */
static int64_t check_matrix(const char *table_path, const char *where, const char *const *columns,
                            size_t n_columns)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    if (basalt_iceberg_table_load(bt_testdata_path(table_path), NULL, &table, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "load %s: %s", table_path, err.message);
        return -1;
    }
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_expr *filter = NULL;
    if (where != NULL && basalt_iceberg_expr_parse(where, &arena, &filter, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "parse: %s", err.message);
        basalt_arena_reset(&arena);
        basalt_iceberg_table_free(table);
        return -1;
    }
    struct basalt_pool *pool = NULL;
    basalt_pool_new(3, &pool, NULL);
    static const int workers[] = {1, 2, 4};
    static const int64_t sizes[] = {1, 7, 65536};
    struct result first, base;
    memset(&first, 0, sizeof first);
    memset(&base, 0, sizeof base);
    int64_t rows = -1;
    bool ok = true;
    for (size_t b = 0; b < 3 && ok; b++) {
        for (size_t w = 0; w < 3 && ok; w++) {
            struct basalt_iceberg_scan_options o;
            basalt_iceberg_scan_options_init(&o);
            o.filter = filter;
            o.columns = columns;
            o.n_columns = n_columns;
            o.batch_size = sizes[b];
            o.pool = workers[w] > 1 ? pool : NULL;
            o.num_workers = workers[w];
            struct result r;
            if (run_scan(table, &o, &r, &err) != BASALT_OK) {
                bt_fail(__FILE__, __LINE__, "%s: %s", table_path, err.message);
                ok = false;
                break;
            }
            if (b == 0 && w == 0) {
                rows = r.n_rows;
                first.rows = r.rows;
                basalt_buffer_init(&r.rows);
            } else if (!same(&r.rows, &first.rows)) {
                bt_fail(__FILE__, __LINE__, "%s: rows differ for %d workers, batch size %" PRId64,
                        table_path, workers[w], sizes[b]);
                ok = false;
            }
            if (w == 0) {
                basalt_buffer_reset(&base.batches);
                base.batches = r.batches;
                basalt_buffer_init(&r.batches);
            } else if (!same(&r.batches, &base.batches)) {
                bt_fail(__FILE__, __LINE__, "%s: batches differ for %d workers, batch size %" PRId64,
                        table_path, workers[w], sizes[b]);
                ok = false;
            }
            result_reset(&r);
        }
    }
    result_reset(&first);
    result_reset(&base);
    basalt_pool_free(pool);
    basalt_arena_reset(&arena);
    basalt_iceberg_table_free(table);
    return ok ? rows : -1;
}

TEST(scan_workers_and_batch_sizes_lineitem)
{
    static const char *const cols[] = {"l_orderkey", "l_quantity", "l_shipmode", "_file", "_pos"};
    /* MAIL 144 + RAIL 130 + REG AIR 157 + SHIP 158 + TRUCK 132 rows with quantity < 10 */
    int64_t n = check_matrix("iceberg/glaredb/iceberg/tables-v2/lineitem_partitioned",
                             "l_shipmode >= 'MAIL' AND l_quantity < 10", cols, 5);
    CHECK(n > 0);
    n = check_matrix("iceberg/glaredb/iceberg/tables-v1/lineitem_partitioned", NULL, NULL, 0);
    CHECK_EQ(n, 1000);
}

TEST(scan_workers_and_batch_sizes_deletes)
{
    /* java/bunnies v5: 21 + 1 rows, 6 position deletes, 1 equality delete */
    int64_t n = check_matrix("iceberg/icebird/hyperparam-iceberg/java/bunnies", NULL, NULL, 0);
    CHECK_EQ(n, 15);
    static const char *const cols[] = {"Temperament", "_pos"};
    n = check_matrix("iceberg/icebird/hyperparam-iceberg/java/bunnies", "\"Breed Name\" >= 'H'", cols, 2);
    CHECK(n > 0);
    n = check_matrix("iceberg/icebird/hyperparam-iceberg/spark/bunnies", NULL, NULL, 0);
    CHECK_EQ(n, 20);
}

TEST(scan_metadata_columns)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(
                 bt_testdata_path("iceberg/icebird/hyperparam-iceberg/spark/rename_column"), NULL,
                 &table, &err),
             &err);
    static const char *const cols[] = {"id", "_pos", "_spec_id", "_partition", "event_date"};
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.columns = cols;
    o.n_columns = 5;
    struct result r;
    basalt_status st = run_scan(table, &o, &r, &err);
    basalt_iceberg_table_free(table);
    CHECK_OK(st, &err);
    /* files id_bucket=3/date=null (id 3), id_bucket=2/2022-01-02 (id 4),
     * id_bucket=0/2022-01-01 (ids 1, 2); 2022-01-01 is day 18993 */
    const char *want = "{3,0,0,{3,N,},N,}\n"
                       "{4,0,0,{2,18994,},18994,}\n"
                       "{1,0,0,{0,18993,},18993,}\n"
                       "{2,1,0,{0,18993,},18993,}\n";
    basalt_buffer_append(&r.rows, "", 1, NULL);
    CHECK_STR((const char *)r.rows.data, want);
    result_reset(&r);
}

TEST(scan_count_and_plan)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(
                 bt_testdata_path("iceberg/icebird/hyperparam-iceberg/java/bunnies/metadata/v5.metadata.json"),
                 NULL, &table, &err),
             &err);
    struct basalt_iceberg_scan *scan = NULL;
    CHECK_OK(basalt_iceberg_scan_new(table, NULL, &scan, &err), &err);
    const struct basalt_iceberg_plan *plan;
    basalt_status st = basalt_iceberg_scan_plan(scan, &plan, &err);
    int64_t count = -1;
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_count(scan, &count, &err);
    uint32_t n_tasks = st == BASALT_OK ? plan->n_tasks : 0, dels = st == BASALT_OK ? plan->delete_files : 0;
    uint32_t first_deletes = n_tasks == 2 ? plan->tasks[1].n_deletes : 99;
    uint32_t second_deletes = n_tasks == 2 ? plan->tasks[0].n_deletes : 99;
    basalt_iceberg_scan_free(scan);

    /* time travel to a snapshot that does not exist */
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.has_snapshot_id = true;
    o.snapshot_id = 1234;
    struct basalt_error err2;
    basalt_status st2 = basalt_iceberg_scan_new(table, &o, &scan, &err2);
    o.ref = "main";
    struct basalt_error err3;
    basalt_status st3 = basalt_iceberg_scan_new(table, &o, &scan, &err3);
    basalt_iceberg_table_free(table);
    CHECK_OK(st, &err);
    CHECK_EQ(count, 15);
    CHECK_EQ(n_tasks, 2);
    CHECK_EQ(dels, 2);
    /* the seq-1 file gets the position (seq 2) and equality (seq 3) deletes,
     * the seq-3 file neither */
    CHECK_EQ(first_deletes, 2);
    CHECK_EQ(second_deletes, 0);
    CHECK_EQ(st2, BASALT_NOT_FOUND);
    CHECK_STR(err2.message, "snapshot 1234 not found");
    CHECK_EQ(st3, BASALT_INVALID_ARG);
}

TEST(scan_schema_has_field_ids)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(bt_testdata_path("iceberg/polars/iceberg-table/metadata/v2.metadata.json"),
                                       NULL, &table, &err),
             &err);
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowSchema s;
    s.release = NULL;
    basalt_status st = basalt_iceberg_scan_new(table, NULL, &scan, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_schema(scan, &s, &err);
    basalt_iceberg_scan_free(scan);
    basalt_iceberg_table_free(table);
    CHECK_OK(st, &err);
    CHECK_EQ(s.n_children, 3);
    CHECK_STR(s.children[2]->name, "ts");
    CHECK_STR(s.children[2]->format, "tsu:");
    const char *v;
    size_t len;
    CHECK_OK(basalt_arrow_metadata_get(s.children[2]->metadata, "PARQUET:field_id", &v, &len, &err), &err);
    CHECK_EQ(len, 1);
    CHECK(v[0] == '3');
    basalt_arrow_schema_release(&s);
}

struct sweep_ctx {
    const struct basalt_iceberg_table *table;
    const struct basalt_iceberg_expr *filter;
};

static basalt_status sweep_attempt(void *vctx)
{
    struct sweep_ctx *ctx = vctx;
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.filter = ctx->filter;
    struct result r;
    basalt_status st = run_scan(ctx->table, &o, &r, NULL);
    if (st == BASALT_OK)
        result_reset(&r);
    return st;
}

TEST(scan_alloc_failures)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(bt_testdata_path("iceberg/polars/iceberg-table/metadata/v2.metadata.json"),
                                       NULL, &table, &err),
             &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_expr *filter = NULL;
    basalt_status st = basalt_iceberg_expr_parse("id > 1", &arena, &filter, &err);
    struct sweep_ctx ctx = {table, filter};
    if (st == BASALT_OK)
        CHECK_ALLOC_SWEEP(sweep_attempt, &ctx);
    basalt_arena_reset(&arena);
    basalt_iceberg_table_free(table);
    CHECK_OK(st, &err);
}

static basalt_status count_attempt(void *vctx)
{
    struct sweep_ctx *ctx = vctx;
    struct basalt_iceberg_scan *scan = NULL;
    int64_t n = 0;
    basalt_status st = basalt_iceberg_scan_new(ctx->table, NULL, &scan, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_count(scan, &n, NULL);
    basalt_iceberg_scan_free(scan);
    if (st == BASALT_OK && n != 15)
        st = BASALT_INTERNAL;
    return st;
}

TEST(scan_alloc_failures_deletes)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(bt_testdata_path("iceberg/icebird/hyperparam-iceberg/java/bunnies"),
                                       NULL, &table, &err),
             &err);
    struct sweep_ctx ctx = {table, NULL};
    int64_t a = bt_alloc_failure_sweep(__FILE__, __LINE__, sweep_attempt, &ctx);
    int64_t b = a < 0 ? -1 : bt_alloc_failure_sweep(__FILE__, __LINE__, count_attempt, &ctx);
    basalt_iceberg_table_free(table);
    CHECK(a > 0);
    CHECK(b > 0);
}

/* count reads no data file when no residual and no delete applies, and
 * reads when one does (a negative control for the fast path). */
TEST(scan_count_from_manifests)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(
                 bt_testdata_path("iceberg/glaredb/iceberg/tables-v2/lineitem_partitioned"), NULL,
                 &table, &err),
             &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_expr *by_partition = NULL, *by_value = NULL;
    basalt_status st = basalt_iceberg_expr_parse("l_shipmode = 'RAIL'", &arena, &by_partition, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_expr_parse("l_linenumber = 1", &arena, &by_value, &err);
    const struct basalt_iceberg_expr *filters[3] = {NULL, by_partition, by_value};
    int64_t counts[3] = {-1, -1, -1}, opened[3] = {-1, -1, -1};
    for (int i = 0; i < 3 && st == BASALT_OK; i++) {
        struct basalt_iceberg_scan_options o;
        basalt_iceberg_scan_options_init(&o);
        o.filter = filters[i];
        struct basalt_iceberg_scan *scan = NULL;
        st = basalt_iceberg_scan_new(table, &o, &scan, &err);
        if (st == BASALT_OK)
            st = basalt_iceberg_scan_count(scan, &counts[i], &err);
        if (scan != NULL)
            opened[i] = atomic_load(&scan->files_opened);
        basalt_iceberg_scan_free(scan);
    }
    basalt_arena_reset(&arena);
    basalt_iceberg_table_free(table);
    CHECK_OK(st, &err);
    CHECK_EQ(counts[0], 1000);
    CHECK_EQ(opened[0], 0);
    CHECK_EQ(counts[1], 130); /* RAIL: the residual is TRUE in its partition */
    CHECK_EQ(opened[1], 0);
    CHECK(counts[2] > 0 && counts[2] < 1000);
    CHECK_EQ(opened[2], 7);
}

/* The residual's conjuncts reach the Parquet reader, except when row
 * positions matter (_pos, position deletes) or pruning is off; the rows are
 * the same either way. */
TEST(scan_pushdown_fires)
{
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(bt_testdata_path("iceberg/glaredb/iceberg/tables-v2/lineitem_simple"),
                                       NULL, &table, &err),
             &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_expr *filter = NULL;
    basalt_status st = basalt_iceberg_expr_parse(
        "l_quantity < 10 AND l_shipdate >= '1995-01-01' AND l_returnflag = 'R' AND l_comment IS NOT NULL",
        &arena, &filter, &err);
    static const char *const plain[] = {"l_orderkey", "l_linenumber"};
    static const char *const with_pos[] = {"l_orderkey", "l_linenumber", "_pos"};
    int64_t pushed[3] = {-1, -1, -1};
    struct result r[3];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 3 && st == BASALT_OK; i++) {
        struct basalt_iceberg_scan_options o;
        basalt_iceberg_scan_options_init(&o);
        o.filter = filter;
        o.columns = i == 1 ? with_pos : plain;
        o.n_columns = i == 1 ? 3 : 2;
        o.prune = i != 2;
        struct basalt_iceberg_scan *scan = NULL;
        st = basalt_iceberg_scan_new(table, &o, &scan, &err);
        struct ArrowArrayStream stream;
        stream.release = NULL;
        if (st == BASALT_OK)
            st = basalt_iceberg_scan_stream(scan, &stream, &err);
        basalt_buffer_init(&r[i].rows);
        basalt_buffer_init(&r[i].batches);
        while (st == BASALT_OK) {
            struct ArrowArray b;
            struct ArrowSchema s;
            if (stream.get_next(&stream, &b) != 0) {
                st = basalt_error_set(&err, BASALT_IO, "%s", stream.get_last_error(&stream));
                break;
            }
            if (b.release == NULL)
                break;
            if (stream.get_schema(&stream, &s) == 0) {
                for (int64_t k = 0; k < b.length && st == BASALT_OK; k++) {
                    /* the first two columns only, to compare the scans */
                    st = render(s.children[0], b.children[0], k, &r[i].rows);
                    if (st == BASALT_OK)
                        st = render(s.children[1], b.children[1], k, &r[i].rows);
                    basalt_buffer_append(&r[i].rows, "\n", 1, NULL);
                }
                basalt_arrow_schema_release(&s);
            }
            basalt_arrow_array_release(&b);
        }
        basalt_arrow_stream_release(&stream);
        if (scan != NULL)
            pushed[i] = atomic_load(&scan->predicates_pushed);
        basalt_iceberg_scan_free(scan);
    }
    bool same01 = same(&r[0].rows, &r[1].rows), same02 = same(&r[0].rows, &r[2].rows);
    size_t n0 = r[0].rows.size;
    for (int i = 0; i < 3; i++)
        result_reset(&r[i]);
    basalt_arena_reset(&arena);
    basalt_iceberg_table_free(table);
    CHECK_OK(st, &err);
    /* l_quantity is a decimal, which the Parquet reader does not prune on */
    CHECK_EQ(pushed[0], 3);
    CHECK_EQ(pushed[1], 0);
    CHECK_EQ(pushed[2], 0);
    CHECK(n0 > 0);
    CHECK(same01);
    CHECK(same02);
}

/* A table of one Avro data file (python3-avro, tests/iceberg/make_avro_data.py)
 * with Avro position and equality deletes: every allocation failure while
 * scanning it with a filter is a clean NOMEM. */
TEST(scan_alloc_failures_avro)
{
    if (system("/usr/bin/python3 -c 'import avro' 2>/dev/null") != 0) {
        bt_fail(__FILE__, __LINE__, "python3-avro is missing");
        return;
    }
    char dir[] = "/tmp/basalt-avro-table-XXXXXX";
    CHECK(mkdtemp(dir));
    char cmd[4096];
    const char *mk = BASALT_TEST_SOURCE_DIR "/tests/iceberg/make_avro_data.py";
    snprintf(cmd, sizeof cmd,
             "cd %s && /usr/bin/python3 %s data data.avro && "
             "/usr/bin/python3 %s posdel s3a://hyperparam-iceberg/java/bunnies/data/data.avro pos.avro 1 4 && "
             "/usr/bin/python3 %s eqdel eq.avro 6 && "
             "printf '{\"schema\": %%s, \"files\": [{\"src\": \"data.avro\", \"format\": \"AVRO\", \"rows\": 8},"
             " {\"src\": \"pos.avro\", \"format\": \"AVRO\", \"content\": 1, \"rows\": 2},"
             " {\"src\": \"eq.avro\", \"format\": \"AVRO\", \"content\": 2, \"rows\": 1, \"equality_ids\": [1]}]}'"
             " \"$(/usr/bin/python3 %s schema)\" > spec.json && "
             "/usr/bin/python3 %s/tests/iceberg/make_table.py spec spec.json t",
             dir, mk, mk, mk, mk, BASALT_TEST_SOURCE_DIR);
    CHECK_MSG(system(cmd) == 0, "python failed: %s", cmd);
    char path[512];
    snprintf(path, sizeof path, "%s/t", dir);
    struct basalt_error err;
    struct basalt_iceberg_table *table = NULL;
    CHECK_OK(basalt_iceberg_table_load(path, NULL, &table, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_expr *filter = NULL;
    basalt_status st = basalt_iceberg_expr_parse("qty > 0", &arena, &filter, &err);
    struct sweep_ctx ctx = {table, filter};
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.filter = filter;
    struct result r;
    if (st == BASALT_OK)
        st = run_scan(table, &o, &r, &err);
    /* qty > 0 keeps ids 0, 3, 4, 5, 6; the deletes take 4 and 6 */
    int64_t rows = st == BASALT_OK ? r.n_rows : -1;
    if (st == BASALT_OK)
        result_reset(&r);
    int64_t tries = st == BASALT_OK ? bt_alloc_failure_sweep(__FILE__, __LINE__, sweep_attempt, &ctx) : -1;
    basalt_arena_reset(&arena);
    basalt_iceberg_table_free(table);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        bt_fail(__FILE__, __LINE__, "%s failed", cmd);
    CHECK_OK(st, &err);
    CHECK_EQ(rows, 3);
    CHECK(tries > 0);
}
