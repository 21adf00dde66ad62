/* A wide Parquet footer: 1,000 columns (int64, double and string in turn) in
 * 50 row groups of 4 rows, so that the file is mostly its footer (50,000
 * column chunks with statistics, plus their page indexes).
 *
 *   parquet/footer/write_1000x50  one iteration writes the file into memory
 *                                 (open, one batch, finish): with 4 rows a
 *                                 chunk, the per-chunk metadata and the footer
 *                                 encoding are most of the work
 *   parquet/footer/read_1000x50   one iteration opens the file from memory
 *                                 (reads and decodes the footer, builds the
 *                                 schema) and closes it; throughput is of
 *                                 the footer bytes
 *
 * Setup builds the Arrow batch and writes the file once, and checks the
 * layout of what it reads back (50 row groups, 1,000 columns, 200 rows). */
#include <stdio.h>
#include <string.h>

#include "basalt/bench.h"
#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"

basalt_status bench_parquet_footer_register(struct basalt_bench *bench, struct basalt_error *err);

#define PQF_COLS 1000
#define PQF_GROUPS 50
#define PQF_GROUP_ROWS 4

struct pqf_bench {
    bool write;            /* which of the two benchmarks */
    struct ArrowSchema schema;
    struct ArrowArray array;
    uint8_t *file;
    size_t file_len;
};

static uint64_t pqf_mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 29);
}

static basalt_status pqf_table(struct pqf_bench *b, struct basalt_error *err)
{
    static struct basalt_arrow_builder *kids[PQF_COLS];
    static const char *const formats[] = {"l", "g", "u"};
    struct basalt_arrow_builder *root = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    for (int c = 0; c < PQF_COLS && st == BASALT_OK; c++) {
        char name[16];
        snprintf(name, sizeof name, "c%04d", c);
        st = basalt_arrow_builder_add_child(root, formats[c % 3], name, ARROW_FLAG_NULLABLE,
                                            &kids[c], err);
    }
    for (int r = 0; r < PQF_GROUPS * PQF_GROUP_ROWS && st == BASALT_OK; r++) {
        for (int c = 0; c < PQF_COLS && st == BASALT_OK; c++) {
            uint64_t x = pqf_mix((uint64_t)r * 1000003u + (uint64_t)c);
            char buf[32];
            if (x % 13 == 0)
                st = basalt_arrow_builder_append_null(kids[c], err);
            else if (c % 3 == 0)
                st = basalt_arrow_builder_append_int(kids[c], (int64_t)x, err);
            else if (c % 3 == 1)
                st = basalt_arrow_builder_append_double(kids[c], (double)(int64_t)x / 1e9, err);
            else
                st = basalt_arrow_builder_append_bytes(
                    kids[c], buf, snprintf(buf, sizeof buf, "v%llx", (unsigned long long)x), err);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &b->schema, &b->array, err);
    basalt_arrow_builder_free(root);
    return st;
}

/* Writes the batch into memory; with `keep` the bytes go to b->file. */
static basalt_status pqf_write(struct pqf_bench *b, bool keep, struct basalt_error *err)
{
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = PQF_GROUP_ROWS;
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    basalt_status st = basalt_output_open_memory("wide.parquet", &out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_open(out, false, &b->schema, &o, &w, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_write(w, &b->array, err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    if (st == BASALT_OK && keep)
        b->file = basalt_output_memory_take(out, &b->file_len);
    basalt_parquet_writer_close(w);
    basalt_output_close(out);
    return st;
}

static basalt_status pqf_read(const struct pqf_bench *b, bool check, struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    struct basalt_parquet_reader *r = NULL;
    basalt_status st = basalt_input_open_memory(b->file, b->file_len, "wide.parquet", &in, err);
    if (st == BASALT_OK)
        st = basalt_parquet_reader_open(in, true, NULL, &r, err);
    if (st == BASALT_OK && check &&
        (basalt_parquet_reader_num_row_groups(r) != PQF_GROUPS ||
         basalt_parquet_reader_num_columns(r) != PQF_COLS ||
         basalt_parquet_reader_num_rows(r) != PQF_GROUPS * PQF_GROUP_ROWS))
        st = basalt_error_set(err, BASALT_CORRUPT,
                              "wide.parquet: %d row groups, %d columns, %lld rows; expected "
                              "%d, %d, %d",
                              (int)basalt_parquet_reader_num_row_groups(r),
                              (int)basalt_parquet_reader_num_columns(r),
                              (long long)basalt_parquet_reader_num_rows(r), PQF_GROUPS, PQF_COLS,
                              PQF_GROUPS * PQF_GROUP_ROWS);
    basalt_parquet_reader_close(r);
    return st;
}

static basalt_status pqf_setup(void *ctx, struct basalt_error *err)
{
    struct pqf_bench *b = ctx;
    basalt_status st = pqf_table(b, err);
    if (st == BASALT_OK)
        st = pqf_write(b, true, err);
    if (st == BASALT_OK)
        st = pqf_read(b, true, err);
    return st;
}

static void pqf_teardown(void *ctx)
{
    struct pqf_bench *b = ctx;
    basalt_free(b->file);
    b->file = NULL;
    b->file_len = 0;
    if (b->array.release)
        basalt_arrow_array_release(&b->array);
    if (b->schema.release)
        basalt_arrow_schema_release(&b->schema);
}

static basalt_status pqf_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct pqf_bench *b = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = b->write ? pqf_write(b, false, err) : pqf_read(b, false, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void pqf_release(void *ctx)
{
    basalt_free(ctx);
}

basalt_status bench_parquet_footer_register(struct basalt_bench *bench, struct basalt_error *err)
{
    static const char *const names[] = {"parquet/footer/write_1000x50",
                                        "parquet/footer/read_1000x50"};
    for (int k = 0; k < 2; k++) {
        struct pqf_bench *b = basalt_calloc(1, sizeof *b);
        if (!b)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        b->write = k == 0;
        struct basalt_bench_case c = {
            .name = names[k],
            .peer = "basalt",
            .run = pqf_run,
            .setup = pqf_setup,
            .teardown = pqf_teardown,
            .release = pqf_release,
            .ctx = b,
            /* column chunks written or decoded per iteration */
            .items_per_iter = (double)PQF_COLS * PQF_GROUPS,
            .threads = 1,
        };
        basalt_status st = basalt_bench_add(bench, &c, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
