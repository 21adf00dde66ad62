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
    struct ArrowArrayStream stream;       /* the ticket's rows */
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

static basalt_status get_finish(void *vcall, struct basalt_error *err)
{
    struct get_call *c = vcall;
    if (!c->ticket)
        return basalt_error_set(err, BASALT_INVALID_ARG, "DoGet without a ticket");
    basalt_status st =
        basalt_flight_ticket_stream(c->srv, c->ticket, c->ticket_len, NULL, &c->stream, err);
    struct ArrowSchema schema = {0};
    if (st == BASALT_OK && c->stream.get_schema(&c->stream, &schema) != 0)
        st = basalt_error_set(err, BASALT_INTERNAL, "%s", c->stream.get_last_error(&c->stream));
    struct basalt_ipc_write_options wo;
    basalt_ipc_write_options_init(&wo);
    wo.compression = c->srv->o.compression;
    if (st == BASALT_OK)
        st = basalt_ipc_encoder_new(&schema, &wo, &c->encoder, err);
    if (schema.release)
        schema.release(&schema);
    return st;
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
            if (c->stream.get_next(&c->stream, &c->batch) != 0)
                return basalt_error_set(err, BASALT_IO, "%s",
                                        c->stream.get_last_error(&c->stream));
            if (!c->batch.release) {
                *done = true;
                return BASALT_OK;
            }
            basalt_status st = basalt_ipc_encoder_batch(c->encoder, &c->batch, &c->msgs,
                                                        &c->n_msgs, err);
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
