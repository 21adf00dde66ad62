/* DoGet: a ticket's batches streamed as FlightData. The schema message goes
 * first; then each batch the scan decodes is encoded without copying its
 * buffers (basalt_ipc_encoder) and framed as FlightData whose body pieces
 * point into the batch, which is held until the transport has written it. */
#include <stdio.h>
#include <string.h>

#include "flight_internal.h"

struct get_call {
    struct basalt_flight_server *srv;
    uint8_t *ticket;
    size_t ticket_len;
    struct flight_request req;
    struct flight_cached_scan *cached;
    const struct flight_scan *scan;
    struct ArrowArrayStream stream;       /* the task being read */
    bool whole;                           /* every task in turn */
    uint32_t next_task;
    struct basalt_ipc_encoder *encoder;
    bool schema_sent;
    struct ArrowArray batch;              /* held while its messages are sent */
    const struct basalt_ipc_message *msgs;
    size_t n_msgs, msg_i;
    struct flight_frame frame;
};

static basalt_status get_message(void *vcall, const uint8_t *data, size_t len,
                                 struct basalt_error *err)
{
    struct get_call *c = vcall;
    if (c->ticket)
        return basalt_error_set(err, BASALT_INVALID_ARG, "DoGet takes one ticket");
    BasaltFlightWire__Ticket *t = basalt_flight_wire__ticket__unpack(NULL, len, data);
    if (!t)
        return basalt_error_set(err, BASALT_INVALID_ARG, "DoGet: the Ticket does not decode");
    c->ticket = basalt_malloc(t->ticket.len + 1);
    if (c->ticket) {
        memcpy(c->ticket, t->ticket.data, t->ticket.len);
        c->ticket_len = t->ticket.len;
    }
    basalt_flight_wire__ticket__free_unpacked(t, NULL);
    return c->ticket ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

/* The task a ticket names, found again in the re-planned scan. */
static basalt_status find_task(struct get_call *c, uint32_t *task, struct basalt_error *err)
{
    const struct basalt_iceberg_plan *plan;
    basalt_status st = basalt_iceberg_scan_prepare_tasks(c->scan->scan, &plan, err);
    if (st != BASALT_OK)
        return st;
    for (uint32_t i = 0; i < plan->n_tasks; i++) {
        const struct basalt_iceberg_file_task *t = &plan->tasks[i];
        if (t->start == c->req.start && t->length == c->req.length &&
            strcmp(t->file->file_path, c->req.file) == 0) {
            *task = i;
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "the ticket's task (%s at %lld) is not in "
                            "snapshot %lld of '%s'", c->req.file, (long long)c->req.start,
                            (long long)c->scan->snapshot_id, c->req.table);
}

static basalt_status get_finish(void *vcall, struct basalt_error *err)
{
    struct get_call *c = vcall;
    if (!c->ticket)
        return basalt_error_set(err, BASALT_INVALID_ARG, "DoGet without a ticket");
    basalt_status st = basalt_flight_request_from_ticket(c->ticket, c->ticket_len, &c->req, err);
    if (st == BASALT_OK)
        st = basalt_flight_scan_acquire(c->srv, &c->req, &c->cached, err);
    if (st == BASALT_OK)
        c->scan = basalt_flight_cached_scan(c->cached);
    if (st == BASALT_OK && c->req.has_task) {
        uint32_t task = 0;
        st = find_task(c, &task, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_scan_task_stream(c->scan->scan, task, &c->stream, err);
    } else if (st == BASALT_OK) {
        /* The whole table: every task in order, on this call's thread. */
        c->whole = true;
    }
    struct ArrowSchema schema = {0};
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_schema(c->scan->scan, &schema, err);
    struct basalt_ipc_write_options wo;
    basalt_ipc_write_options_init(&wo);
    wo.compression = c->srv->o.compression;
    if (st == BASALT_OK)
        st = basalt_ipc_encoder_new(&schema, &wo, &c->encoder, err);
    if (schema.release)
        schema.release(&schema);
    return st;
}

/* The next batch of the ticket's task, or of the whole table's tasks in
 * order; released at the end. */
static basalt_status next_batch(struct get_call *c, struct ArrowArray *out,
                                struct basalt_error *err)
{
    out->release = NULL;
    for (;;) {
        if (c->stream.release) {
            if (c->stream.get_next(&c->stream, out) != 0) {
                const char *m = c->stream.get_last_error(&c->stream);
                return basalt_error_set(err, BASALT_IO, "%s", m ? m : "scan failed");
            }
            if (out->release)
                return BASALT_OK;
            c->stream.release(&c->stream);
        }
        const struct basalt_iceberg_plan *plan;
        basalt_status st = basalt_iceberg_scan_prepare_tasks(c->scan->scan, &plan, err);
        if (st != BASALT_OK || !c->whole || c->next_task >= plan->n_tasks)
            return st;
        st = basalt_iceberg_scan_task_stream(c->scan->scan, c->next_task++, &c->stream, err);
        if (st != BASALT_OK)
            return st;
    }
}

static basalt_status get_next(void *vcall, struct grpc_message_out *out, bool *done,
                              struct basalt_error *err)
{
    struct get_call *c = vcall;
    struct basalt_ipc_message schema_msg;
    const struct basalt_ipc_message *msg = NULL;
    if (!c->schema_sent) {
        basalt_ipc_encoder_schema(c->encoder, &schema_msg);
        msg = &schema_msg;
        c->schema_sent = true;
    } else {
        while (c->msg_i == c->n_msgs) {
            /* The previous batch is written: let it go, decode the next. */
            if (c->batch.release)
                c->batch.release(&c->batch);
            c->msgs = NULL;
            c->n_msgs = c->msg_i = 0;
            basalt_status st = next_batch(c, &c->batch, err);
            if (st != BASALT_OK)
                return st;
            if (!c->batch.release) {
                *done = true;
                return BASALT_OK;
            }
            st = basalt_ipc_encoder_batch(c->encoder, &c->batch, &c->msgs, &c->n_msgs, err);
            if (st != BASALT_OK)
                return st;
        }
        msg = &c->msgs[c->msg_i++];
    }
    basalt_status st = basalt_flight_data_pack(msg, NULL, &c->frame, err);
    if (st != BASALT_OK)
        return st;
    out->pieces = c->frame.pieces;
    out->n_pieces = c->frame.n_pieces;
    out->len = c->frame.len;
    return BASALT_OK;
}

static void get_free(void *vcall)
{
    struct get_call *c = vcall;
    if (c->batch.release)
        c->batch.release(&c->batch);
    if (c->stream.release)
        c->stream.release(&c->stream);
    basalt_ipc_encoder_free(c->encoder);
    basalt_flight_scan_release(c->srv, c->cached);
    basalt_flight_request_reset(&c->req);
    basalt_flight_frame_reset(&c->frame);
    basalt_free(c->ticket);
    basalt_free(c);
}

static const struct grpc_call_ops get_ops = {get_message, get_finish, get_next, get_free};

basalt_status basalt_flight_get_begin(struct basalt_flight_server *srv, void **call,
                                      const struct grpc_call_ops **ops, struct basalt_error *err)
{
    struct get_call *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    c->srv = srv;
    *call = c;
    *ops = &get_ops;
    return BASALT_OK;
}
