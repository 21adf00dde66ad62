/* The ArrowArrayStream of a scan. With one worker (or one task) the tasks
 * are read one after the other, the pool working inside each file; with more,
 * the tasks are read in waves of one task per worker, each collected whole,
 * then handed out in task order, so the output never depends on timing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scan_internal.h"

struct wave_slot {
    struct basalt_arrow_batches batches;
    basalt_status status;
    struct basalt_error err;
};

struct stream_priv {
    struct basalt_iceberg_scan *scan;
    uint32_t next_task;
    int workers;
    struct basalt_iceberg_task_reader *reader;
    struct wave_slot *slots;
    uint32_t wave_n, slot_i;
    int64_t batch_i;
    basalt_status failed;
    char message[BASALT_ERROR_MESSAGE_MAX + 32];
};

static int errno_of(basalt_status st)
{
    switch (st) {
    case BASALT_OK: return 0;
    case BASALT_CORRUPT:
    case BASALT_IO: return EIO;
    case BASALT_UNSUPPORTED: return ENOSYS;
    case BASALT_NOMEM: return ENOMEM;
    case BASALT_LIMIT: return ERANGE;
    default: return EINVAL;
    }
}

static int fail(struct stream_priv *p, basalt_status st, const struct basalt_error *err)
{
    p->failed = st;
    snprintf(p->message, sizeof p->message, "%s: %s", basalt_status_name(st), err ? err->message : "");
    return errno_of(st);
}

static int get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct stream_priv *p = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_arrow_schema_copy(&p->scan->read_layout.out_arrow, out, &err);
    return st == BASALT_OK ? 0 : fail(p, st, &err);
}

struct wave_ctx {
    struct basalt_iceberg_scan *scan;
    struct wave_slot *slots;
    uint32_t first;
};

static void read_wave(void *vctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct wave_ctx *ctx = vctx;
    for (int64_t i = begin; i < end; i++) {
        struct wave_slot *slot = &ctx->slots[i];
        const struct basalt_iceberg_file_task *task = &ctx->scan->plan.tasks[ctx->first + i];
        struct basalt_iceberg_task_reader *r = NULL;
        basalt_error_init(&slot->err);
        slot->status = basalt_iceberg_task_reader_open(ctx->scan, task, &ctx->scan->read_layout, NULL, 1,
                                                       &r, &slot->err);
        while (slot->status == BASALT_OK) {
            struct ArrowArray batch;
            slot->status = basalt_iceberg_task_reader_next(r, &batch, &slot->err);
            if (slot->status != BASALT_OK || batch.release == NULL)
                break;
            slot->status = basalt_arrow_batches_append(&slot->batches, &batch, &slot->err);
        }
        basalt_iceberg_task_reader_close(r);
    }
}

static void reset_wave(struct stream_priv *p)
{
    for (uint32_t i = 0; i < p->wave_n; i++)
        basalt_arrow_batches_reset(&p->slots[i].batches);
    p->wave_n = 0;
    p->slot_i = 0;
    p->batch_i = 0;
}

static int next_wave(struct stream_priv *p, struct ArrowArray *out)
{
    struct basalt_iceberg_scan *scan = p->scan;
    for (;;) {
        while (p->slot_i < p->wave_n) {
            struct wave_slot *slot = &p->slots[p->slot_i];
            if (p->batch_i < slot->batches.n) {
                basalt_arrow_array_move(&slot->batches.arrays[p->batch_i++], out);
                return 0;
            }
            if (slot->status != BASALT_OK)
                return fail(p, slot->status, &slot->err);
            p->slot_i++;
            p->batch_i = 0;
        }
        reset_wave(p);
        if (p->next_task >= scan->plan.n_tasks) {
            out->release = NULL;
            return 0;
        }
        uint32_t n = scan->plan.n_tasks - p->next_task;
        if (n > (uint32_t)p->workers)
            n = (uint32_t)p->workers;
        for (uint32_t i = 0; i < n; i++) {
            basalt_arrow_batches_init(&p->slots[i].batches);
            p->slots[i].status = BASALT_OK;
        }
        struct wave_ctx ctx = {scan, p->slots, p->next_task};
        p->wave_n = n;
        basalt_pool_parallel_for(scan->options.pool, scan->options.num_workers, n, 1, read_wave, &ctx);
        p->next_task += n;
    }
}

static int next_serial(struct stream_priv *p, struct ArrowArray *out)
{
    struct basalt_iceberg_scan *scan = p->scan;
    struct basalt_error err;
    basalt_error_init(&err);
    for (;;) {
        if (p->reader == NULL) {
            if (p->next_task >= scan->plan.n_tasks) {
                out->release = NULL;
                return 0;
            }
            basalt_status st = basalt_iceberg_task_reader_open(scan, &scan->plan.tasks[p->next_task++],
                                                               &scan->read_layout, scan->options.pool,
                                                               scan->options.num_workers, &p->reader, &err);
            if (st != BASALT_OK)
                return fail(p, st, &err);
        }
        basalt_status st = basalt_iceberg_task_reader_next(p->reader, out, &err);
        if (st != BASALT_OK)
            return fail(p, st, &err);
        if (out->release != NULL)
            return 0;
        basalt_iceberg_task_reader_close(p->reader);
        p->reader = NULL;
    }
}

static int get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct stream_priv *p = s->private_data;
    out->release = NULL;
    if (p->failed != BASALT_OK)
        return errno_of(p->failed);
    return p->slots != NULL ? next_wave(p, out) : next_serial(p, out);
}

basalt_status basalt_iceberg_scan_stream_status(const struct ArrowArrayStream *stream)
{
    const struct stream_priv *p = stream->private_data;
    return p && p->failed != BASALT_OK ? p->failed : BASALT_IO;
}

static const char *get_last_error(struct ArrowArrayStream *s)
{
    struct stream_priv *p = s->private_data;
    return p->failed != BASALT_OK ? p->message : NULL;
}

static void release(struct ArrowArrayStream *s)
{
    struct stream_priv *p = s->private_data;
    if (p != NULL) {
        reset_wave(p);
        basalt_iceberg_task_reader_close(p->reader);
        basalt_free(p->slots);
        p->scan->streaming = false;
        basalt_free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

BASALT_EXPORT basalt_status basalt_iceberg_scan_stream(struct basalt_iceberg_scan *scan,
                                                       struct ArrowArrayStream *out,
                                                       struct basalt_error *err)
{
    if (scan == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL scan or out");
    out->release = NULL;
    if (scan->streaming)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a stream of this scan is still open");
    basalt_status st = basalt_iceberg_scan_prepare(scan, false, err);
    if (st != BASALT_OK)
        return st;
    struct stream_priv *p = basalt_calloc(1, sizeof *p);
    if (p == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    p->scan = scan;
    int workers = basalt_pool_workers(scan->options.pool);
    if (scan->options.num_workers > 0 && scan->options.num_workers < workers)
        workers = scan->options.num_workers;
    p->workers = workers;
    if (workers > 1 && scan->plan.n_tasks > 1) {
        p->slots = basalt_calloc((size_t)workers, sizeof *p->slots);
        if (p->slots == NULL) {
            basalt_free(p);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
    }
    scan->streaming = true;
    out->get_schema = get_schema;
    out->get_next = get_next;
    out->get_last_error = get_last_error;
    out->release = release;
    out->private_data = p;
    return BASALT_OK;
}

basalt_status basalt_iceberg_scan_prepare_tasks(struct basalt_iceberg_scan *scan,
                                                const struct basalt_iceberg_plan **plan,
                                                struct basalt_error *err)
{
    if (scan == NULL || plan == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL scan or plan");
    *plan = NULL;
    basalt_status st = basalt_iceberg_scan_prepare(scan, false, err);
    if (st == BASALT_OK) {
        *plan = &scan->plan;
        if (scan->ahead == NULL)
            basalt_iceberg_read_ahead_start(scan);
    }
    return st;
}

basalt_status basalt_iceberg_scan_read_task(struct basalt_iceberg_scan *scan, uint32_t task,
                                            struct basalt_arrow_batches *out,
                                            struct basalt_error *err)
{
    if (scan == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL scan or out");
    if (task >= scan->plan.n_tasks)
        return basalt_error_set(err, BASALT_INVALID_ARG, "task %u out of range (%u tasks)", task,
                                scan->plan.n_tasks);
    struct basalt_iceberg_task_reader *r = NULL;
    basalt_iceberg_read_ahead_take(scan, task, &r);
    basalt_status st = BASALT_OK;
    if (r == NULL)
        st = basalt_iceberg_task_reader_open(scan, &scan->plan.tasks[task], &scan->read_layout,
                                             NULL, 1, &r, err);
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        st = basalt_iceberg_task_reader_next(r, &batch, err);
        if (st != BASALT_OK || batch.release == NULL)
            break;
        st = basalt_arrow_batches_append(out, &batch, err);
    }
    basalt_iceberg_task_reader_close(r);
    return st;
}

/* ------------------------------------------------------------ one task */

struct task_stream {
    struct basalt_iceberg_scan *scan;
    struct basalt_iceberg_task_reader *reader;
    basalt_status failed;
    char message[BASALT_ERROR_MESSAGE_MAX + 32];
};

static int task_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct task_stream *p = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_arrow_schema_copy(&p->scan->read_layout.out_arrow, out, &err);
    if (st != BASALT_OK) {
        snprintf(p->message, sizeof p->message, "%s: %s", basalt_status_name(st), err.message);
        return errno_of(st);
    }
    return 0;
}

static int task_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct task_stream *p = s->private_data;
    out->release = NULL;
    if (p->failed != BASALT_OK)
        return errno_of(p->failed);
    if (p->reader == NULL)
        return 0;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_iceberg_task_reader_next(p->reader, out, &err);
    if (st != BASALT_OK) {
        p->failed = st;
        snprintf(p->message, sizeof p->message, "%s: %s", basalt_status_name(st), err.message);
        return errno_of(st);
    }
    if (out->release == NULL) {
        basalt_iceberg_task_reader_close(p->reader);
        p->reader = NULL;
    }
    return 0;
}

static const char *task_last_error(struct ArrowArrayStream *s)
{
    struct task_stream *p = s->private_data;
    return p->message[0] ? p->message : NULL;
}

static void task_release(struct ArrowArrayStream *s)
{
    struct task_stream *p = s->private_data;
    if (p != NULL) {
        basalt_iceberg_task_reader_close(p->reader);
        basalt_free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

basalt_status basalt_iceberg_scan_task_stream(struct basalt_iceberg_scan *scan, uint32_t task,
                                              struct ArrowArrayStream *out,
                                              struct basalt_error *err)
{
    return basalt_iceberg_scan_task_stream_into(scan, task, NULL, out, err);
}

basalt_status basalt_iceberg_scan_task_stream_into(struct basalt_iceberg_scan *scan, uint32_t task,
                                                   const struct basalt_arrow_allocator *allocator,
                                                   struct ArrowArrayStream *out,
                                                   struct basalt_error *err)
{
    if (scan == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL scan or out");
    out->release = NULL;
    if (task >= scan->plan.n_tasks)
        return basalt_error_set(err, BASALT_INVALID_ARG, "task %u out of range (%u tasks)", task,
                                scan->plan.n_tasks);
    struct task_stream *p = basalt_calloc(1, sizeof *p);
    if (p == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    p->scan = scan;
    basalt_iceberg_read_ahead_take(scan, task, &p->reader);
    basalt_status st = BASALT_OK;
    if (p->reader == NULL)
        st = basalt_iceberg_task_reader_open_into(scan, &scan->plan.tasks[task],
                                                  &scan->read_layout, scan->options.pool,
                                                  scan->options.num_workers, allocator,
                                                  &p->reader, err);
    if (st != BASALT_OK) {
        basalt_free(p);
        return st;
    }
    out->get_schema = task_get_schema;
    out->get_next = task_get_next;
    out->get_last_error = task_last_error;
    out->release = task_release;
    out->private_data = p;
    return BASALT_OK;
}
