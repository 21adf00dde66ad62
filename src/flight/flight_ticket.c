/* A ticket's rows as an ArrowArrayStream: the task it names (found again in
 * the planned scan the server keeps for its snapshot), or every task of the
 * table in order for a ticket without a file. What DoGet frames as
 * FlightData and what the shared-memory producer writes into a segment. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "flight_internal.h"

struct ticket_stream {
    struct basalt_flight_server *srv;
    struct flight_request req;
    struct flight_cached_scan *cached;
    const struct flight_scan *scan;
    struct ArrowArrayStream task;   /* the task being read */
    bool whole;                     /* every task in turn */
    uint32_t next_task;
    const struct basalt_arrow_allocator *allocator; /* decoded values' memory; NULL: heap */
    char message[BASALT_ERROR_MESSAGE_MAX + 32];
};

/* The task a ticket names, found again in the planned scan. */
static basalt_status find_task(struct ticket_stream *t, uint32_t *task, struct basalt_error *err)
{
    const struct basalt_iceberg_plan *plan;
    basalt_status st = basalt_iceberg_scan_prepare_tasks(t->scan->scan, &plan, err);
    if (st != BASALT_OK)
        return st;
    for (uint32_t i = 0; i < plan->n_tasks; i++) {
        const struct basalt_iceberg_file_task *k = &plan->tasks[i];
        if (k->start == t->req.start && k->length == t->req.length &&
            strcmp(k->file->file_path, t->req.file) == 0) {
            *task = i;
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "the ticket's task (%s at %lld) is not in "
                            "snapshot %lld of '%s'", t->req.file, (long long)t->req.start,
                            (long long)t->scan->snapshot_id, t->req.table);
}

static int fail(struct ticket_stream *t, basalt_status st, const char *message)
{
    snprintf(t->message, sizeof t->message, "%s", message);
    return st == BASALT_NOMEM ? ENOMEM : st == BASALT_CORRUPT ? EINVAL : EIO;
}

static int ts_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct ticket_stream *t = s->private_data;
    out->release = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    for (;;) {
        if (t->task.release) {
            if (t->task.get_next(&t->task, out) != 0) {
                const char *m = t->task.get_last_error(&t->task);
                return fail(t, BASALT_IO, m ? m : "scan failed");
            }
            if (out->release)
                return 0;
            t->task.release(&t->task);
        }
        const struct basalt_iceberg_plan *plan;
        basalt_status st = basalt_iceberg_scan_prepare_tasks(t->scan->scan, &plan, &err);
        if (st != BASALT_OK)
            return fail(t, st, err.message);
        if (!t->whole || t->next_task >= plan->n_tasks)
            return 0;
        st = basalt_iceberg_scan_task_stream_into(t->scan->scan, t->next_task++, t->allocator,
                                                  &t->task, &err);
        if (st != BASALT_OK)
            return fail(t, st, err.message);
    }
}

static int ts_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct ticket_stream *t = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_iceberg_scan_schema(t->scan->scan, out, &err);
    return st == BASALT_OK ? 0 : fail(t, st, err.message);
}

static const char *ts_error(struct ArrowArrayStream *s)
{
    struct ticket_stream *t = s->private_data;
    return t->message[0] ? t->message : NULL;
}

static void ts_release(struct ArrowArrayStream *s)
{
    struct ticket_stream *t = s->private_data;
    if (t) {
        if (t->task.release)
            t->task.release(&t->task);
        basalt_flight_scan_release(t->srv, t->cached);
        basalt_flight_request_reset(&t->req);
        basalt_free(t);
    }
    s->release = NULL;
    s->private_data = NULL;
}

basalt_status basalt_flight_ticket_stream(struct basalt_flight_server *srv, const uint8_t *ticket,
                                          size_t len, const struct basalt_arrow_allocator *allocator,
                                          struct ArrowArrayStream *out, struct basalt_error *err)
{
    out->release = NULL;
    struct ticket_stream *t = basalt_calloc(1, sizeof *t);
    if (!t)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    t->srv = srv;
    t->allocator = allocator;
    basalt_status st = basalt_flight_request_from_ticket(ticket, len, &t->req, err);
    if (st == BASALT_OK)
        st = basalt_flight_scan_acquire(srv, &t->req, &t->cached, err);
    if (st == BASALT_OK) {
        t->scan = basalt_flight_cached_scan(t->cached);
        if (t->req.has_task) {
            uint32_t task = 0;
            st = find_task(t, &task, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_scan_task_stream_into(t->scan->scan, task, allocator,
                                                          &t->task, err);
        } else {
            t->whole = true;
        }
    }
    struct ArrowArrayStream s = {ts_schema, ts_next, ts_error, ts_release, t};
    if (st != BASALT_OK) {
        ts_release(&s);
        return st;
    }
    *out = s;
    return BASALT_OK;
}
