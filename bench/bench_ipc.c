/* Arrow IPC reads: one file, mapped versus copied.
 *
 * The workload of the IPC performance bar: an IPC file of one double column
 * (BASALT_BENCH_IPC_ROWS rows, default 8,000,000: 64 MB) in batches of
 * 1,048,576 rows. bench/ipc_read.sh writes it with apache-arrow (JS) and
 * passes it in BASALT_BENCH_IPC_FILE; without it, setup writes the same
 * shape with basalt's writer into the temporary directory.
 *
 * One iteration reads every batch and sums the column (so every value is
 * touched), then releases the batches, on one thread. Legs
 * (baseline first):
 *   ipc/read/mapped   basalt, the file mapped: buffers point into the mapping
 *   ipc/read/copied   basalt, pread into memory the reader owns
 * The mapped leg is checked to be zero-copy (the reader's counters) and both
 * legs' sums against the one computed when the data was generated (or, for
 * a peer's file, against each other). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/bench.h"
#include "basalt/ipc.h"

basalt_status bench_ipc_register(struct basalt_bench *bench, struct basalt_error *err);

struct ipc_fixture {
    int refs;
    char path[512];
    bool made; /* written here, removed at the end */
    bool ready;
    int64_t rows;
    double sum;
    bool have_sum;
};

struct ipc_case {
    struct ipc_fixture *fx;
    bool mapped;
    bool reuse_reader;
    /* Kept open across iterations: each one reads every batch through the
     * footer again (the mapping, or nothing, stays from the last). */
    struct basalt_ipc_reader *open;
};

static basalt_status make_file(struct ipc_fixture *fx, struct basalt_error *err)
{
    const char *env = getenv("BASALT_BENCH_IPC_FILE");
    if (env && *env) {
        snprintf(fx->path, sizeof fx->path, "%s", env);
        return BASALT_OK;
    }
    const char *rows = getenv("BASALT_BENCH_IPC_ROWS");
    fx->rows = rows ? atoll(rows) : 8000000;
    const char *tmp = getenv("TMPDIR");
    snprintf(fx->path, sizeof fx->path, "%s/basalt-bench-ipc-%d.arrow", tmp ? tmp : "/tmp",
             (int)getpid());
    struct ArrowSchema schema;
    basalt_status st = basalt_arrow_schema_init(&schema, "+s", "", 0, 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(schema.children[0], "g", "x", ARROW_FLAG_NULLABLE, 0, err);
    struct basalt_output *out = NULL;
    struct basalt_ipc_writer *w = NULL;
    struct basalt_ipc_write_options o;
    basalt_ipc_write_options_init(&o);
    o.format = BASALT_IPC_FORMAT_FILE;
    if (st == BASALT_OK)
        st = basalt_output_open_file(fx->path, &out, err);
    if (st == BASALT_OK)
        st = basalt_ipc_writer_open(out, &schema, &o, &w, err);
    const int64_t batch_rows = 1 << 20;
    double sum = 0;
    for (int64_t at = 0; st == BASALT_OK && at < fx->rows; at += batch_rows) {
        int64_t n = fx->rows - at < batch_rows ? fx->rows - at : batch_rows;
        struct ArrowArray batch;
        st = basalt_arrow_array_init(&batch, 1, 1, err);
        if (st != BASALT_OK)
            break;
        batch.length = n;
        double *v = NULL;
        st = basalt_arrow_array_init(batch.children[0], 2, 0, err);
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(batch.children[0], 1, (size_t)n * 8,
                                                    (void **)&v, err);
        if (st == BASALT_OK) {
            batch.children[0]->length = n;
            for (int64_t i = 0; i < n; i++) {
                v[i] = (double)((at + i) % 1000) * 0.25;
                sum += v[i];
            }
            st = basalt_ipc_writer_write(w, &batch, err);
        }
        basalt_arrow_array_release(&batch);
    }
    if (st == BASALT_OK)
        st = basalt_ipc_writer_finish(w, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_ipc_writer_free(w);
    basalt_output_close(out);
    basalt_arrow_schema_release(&schema);
    fx->made = true;
    fx->sum = sum;
    fx->have_sum = true;
    return st;
}

static basalt_status read_open(struct ipc_case *c, double *sum, struct basalt_error *err)
{
    double s = 0;
    int64_t n = basalt_ipc_reader_num_batches(c->open);
    for (int64_t k = 0; k < n; k++) {
        struct ArrowArray b;
        basalt_status st = basalt_ipc_reader_read_batch(c->open, k, &b, err);
        if (st != BASALT_OK)
            return st;
        const struct ArrowArray *col = b.children[0];
        const double *v = (const double *)col->buffers[1] + col->offset;
        for (int64_t i = 0; i < col->length; i++)
            s += v[i];
        basalt_arrow_array_release(&b);
    }
    *sum = s;
    return BASALT_OK;
}

static basalt_status read_all(const struct ipc_case *c, double *sum, int64_t *rows,
                              struct basalt_ipc_read_stats *stats, struct basalt_error *err)
{
    struct basalt_ipc_read_options o;
    basalt_ipc_read_options_init(&o);
    o.use_mmap = c->mapped;
    struct basalt_ipc_reader *r;
    basalt_status st = basalt_ipc_reader_open_file(c->fx->path, &o, &r, err);
    if (st != BASALT_OK)
        return st;
    double s = 0;
    int64_t n = 0;
    for (;;) {
        struct ArrowArray b;
        st = basalt_ipc_reader_next(r, &b, err);
        if (st != BASALT_OK || !b.release)
            break;
        const struct ArrowArray *col = b.children[0];
        const double *v = (const double *)col->buffers[1] + col->offset;
        for (int64_t i = 0; i < col->length; i++)
            s += v[i];
        n += col->length;
        basalt_arrow_array_release(&b);
    }
    if (stats)
        basalt_ipc_reader_stats(r, stats);
    basalt_ipc_reader_close(r);
    *sum = s;
    *rows = n;
    return st;
}

static basalt_status ipc_setup(void *ctx, struct basalt_error *err)
{
    struct ipc_case *c = ctx;
    struct ipc_fixture *fx = c->fx;
    if (!fx->ready) {
        basalt_status st = make_file(fx, err);
        if (st != BASALT_OK)
            return st;
        fx->ready = true;
    }
    double sum;
    int64_t rows;
    struct basalt_ipc_read_stats stats;
    basalt_status st = read_all(c, &sum, &rows, &stats, err);
    if (st != BASALT_OK)
        return st;
    if (c->mapped && (stats.buffers_zero_copy == 0 || stats.buffers_copied != 0))
        return basalt_error_set(err, BASALT_INTERNAL,
                                "ipc bench: the mapped read is not zero-copy (%lld copied)",
                                (long long)stats.buffers_copied);
    if (!fx->have_sum) {
        fx->sum = sum;
        fx->rows = rows;
        fx->have_sum = true;
    }
    if (sum != fx->sum || rows != fx->rows)
        return basalt_error_set(err, BASALT_INTERNAL, "ipc bench: sum %.17g over %lld rows, "
                                                      "expected %.17g over %lld",
                                sum, (long long)rows, fx->sum, (long long)fx->rows);
    if (c->reuse_reader) {
        struct basalt_ipc_read_options o;
        basalt_ipc_read_options_init(&o);
        o.use_mmap = c->mapped;
        st = basalt_ipc_reader_open_file(fx->path, &o, &c->open, err);
    }
    return st;
}

static void ipc_teardown(void *ctx)
{
    struct ipc_case *c = ctx;
    basalt_ipc_reader_close(c->open);
    c->open = NULL;
}

static basalt_status ipc_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct ipc_case *c = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        double sum;
        int64_t rows;
        basalt_status st = c->open ? read_open(c, &sum, err) : read_all(c, &sum, &rows, NULL, err);
        if (st != BASALT_OK)
            return st;
        if (sum != c->fx->sum)
            return basalt_error_set(err, BASALT_INTERNAL, "ipc bench: wrong sum");
    }
    return BASALT_OK;
}

static void ipc_release(void *ctx)
{
    struct ipc_case *c = ctx;
    if (--c->fx->refs == 0) {
        if (c->fx->made)
            unlink(c->fx->path);
        basalt_free(c->fx);
    }
    basalt_free(c);
}

basalt_status bench_ipc_register(struct basalt_bench *bench, struct basalt_error *err)
{
    struct ipc_fixture *fx = basalt_calloc(1, sizeof *fx);
    if (!fx)
        return basalt_error_set(err, BASALT_NOMEM, "ipc bench: out of memory");
    fx->refs = 1;
    const char *rows = getenv("BASALT_BENCH_IPC_ROWS");
    double n = rows ? atof(rows) : 8000000.0;
    basalt_status st = BASALT_OK;
    static const char *const names[4] = {"ipc/read/mapped", "ipc/read/copied",
                                         "ipc/read/mapped-open", "ipc/read/copied-open"};
    static const char *const peers[4] = {
        "basalt mmap per read (zero-copy)", "basalt pread per read (copied)",
        "basalt mmap, reader kept open", "basalt pread, reader kept open"};
    for (int k = 0; k < 4 && st == BASALT_OK; k++) {
        struct ipc_case *c = basalt_calloc(1, sizeof *c);
        if (!c) {
            st = basalt_error_set(err, BASALT_NOMEM, "ipc bench: out of memory");
            break;
        }
        c->fx = fx;
        c->mapped = k % 2 == 0;
        c->reuse_reader = k >= 2;
        fx->refs++;
        struct basalt_bench_case bc = {
            .name = names[k],
            .group = k < 2 ? "ipc read, open per read" : "ipc read, reader kept open",
            .peer = peers[k],
            .run = ipc_run,
            .setup = ipc_setup,
            .teardown = ipc_teardown,
            .release = ipc_release,
            .ctx = c,
            .bytes_per_iter = n * 8,
            .items_per_iter = n,
            .threads = 1,
        };
        st = basalt_bench_add(bench, &bc, err);
    }
    if (--fx->refs == 0)
        basalt_free(fx);
    return st;
}
