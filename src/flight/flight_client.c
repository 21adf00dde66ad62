/* The Flight client: every method over the gRPC client transport, DoGet as
 * an ArrowArrayStream whose batches point into the received messages. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flight_internal.h"

struct basalt_flight_client {
    struct grpc_client *grpc;
    bool streaming; /* a DoGet stream holds the connection */
};

void basalt_flight_client_options_init(struct basalt_flight_client_options *o)
{
    memset(o, 0, sizeof *o);
}

basalt_status basalt_flight_client_connect(const char *uri,
                                           const struct basalt_flight_client_options *options,
                                           struct basalt_flight_client **out,
                                           struct basalt_error *err)
{
    if (!out || !uri)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: NULL uri or out");
    *out = NULL;
    struct basalt_flight_client_options o;
    if (options)
        o = *options;
    else
        basalt_flight_client_options_init(&o);
    const char *token = o.token;
    const char *hp = uri;
    bool tls = false;
    if (!strncmp(uri, "grpc://", 7))
        hp = uri + 7;
    else if (!strncmp(uri, "grpc+tcp://", 11))
        hp = uri + 11;
    else if (!strncmp(uri, "grpc+tls://", 11)) {
        hp = uri + 11;
        tls = true;
    } else if (strstr(uri, "://"))
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: '%s': grpc://, grpc+tcp:// or "
                                "grpc+tls:// locations", uri);
    const char *colon = strrchr(hp, ':');
    char host[256];
    if (!colon || (size_t)(colon - hp) >= sizeof host || colon == hp)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: '%s' is not host:port", uri);
    memcpy(host, hp, (size_t)(colon - hp));
    host[colon - hp] = 0;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end != 0 && *end != '/')
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: '%s' has no port", uri);
    if (port <= 0 || port > 65535)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: port %ld", port);
    char auth[1100] = "";
    if (token)
        snprintf(auth, sizeof auth, "Bearer %s", token);
    struct basalt_flight_client *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = basalt_grpc_client_connect(host, (int)port, tls, o.ca_file,
                                                  token ? auth : NULL, o.max_message,
                                                  o.timeout_ms, &c->grpc, err);
    if (st != BASALT_OK) {
        basalt_free(c);
        return st;
    }
    *out = c;
    return BASALT_OK;
}

void basalt_flight_client_close(struct basalt_flight_client *c)
{
    if (!c)
        return;
    basalt_grpc_client_close(c->grpc);
    basalt_free(c);
}

typedef basalt_status (*response_fn)(void *ctx, const uint8_t *data, size_t len,
                                     struct basalt_error *err);

/* A call with one request message; each response message goes to `fn`. */
static basalt_status call(struct basalt_flight_client *c, const char *method,
                          const ProtobufCMessage *req, response_fn fn, void *ctx,
                          struct basalt_error *err)
{
    if (c->streaming)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: a DoGet stream is still open");
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_buffer_resize(&buf, protobuf_c_message_get_packed_size(req), err);
    struct grpc_client_call *gc = NULL;
    if (st == BASALT_OK) {
        protobuf_c_message_pack(req, buf.data);
        st = basalt_grpc_call_start(c->grpc, method, &gc, err);
    }
    struct basalt_ipc_piece piece = {buf.data, buf.size};
    if (st == BASALT_OK)
        st = basalt_grpc_call_send(gc, &piece, 1, true, err);
    while (st == BASALT_OK) {
        uint8_t *data;
        size_t len;
        st = basalt_grpc_call_next(gc, &data, &len, err);
        if (st != BASALT_OK || !data)
            break;
        st = fn(ctx, data, len, err);
        basalt_free(data);
    }
    basalt_grpc_call_free(gc);
    basalt_buffer_reset(&buf);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", method);
    return BASALT_OK;
}

static char *dup_bytes(const void *p, size_t n)
{
    char *d = basalt_malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
}

/* ------------------------------------------------------------ handshake */

static basalt_status on_handshake(void *ctx, const uint8_t *data, size_t len,
                                  struct basalt_error *err)
{
    char **out = ctx;
    BasaltFlightWire__HandshakeResponse *r =
        basalt_flight_wire__handshake_response__unpack(NULL, len, data);
    if (!r)
        return basalt_error_set(err, BASALT_CORRUPT, "flight: a HandshakeResponse does not decode");
    basalt_free(*out);
    *out = dup_bytes(r->payload.data, r->payload.len);
    basalt_flight_wire__handshake_response__free_unpacked(r, NULL);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status basalt_flight_client_handshake(struct basalt_flight_client *c, const char *payload,
                                             char **response, struct basalt_error *err)
{
    *response = NULL;
    BasaltFlightWire__HandshakeRequest h = BASALT_FLIGHT_WIRE__HANDSHAKE_REQUEST__INIT;
    h.protocol_version = 0;
    h.payload.data = (uint8_t *)(uintptr_t)(payload ? payload : "");
    h.payload.len = payload ? strlen(payload) : 0;
    return call(c, "Handshake", &h.base, on_handshake, response, err);
}

/* ------------------------------------------------------------ infos */

void basalt_flight_info_reset(struct basalt_flight_info *info)
{
    if (!info)
        return;
    for (size_t i = 0; i < info->n_path; i++)
        basalt_free(info->path[i]);
    basalt_free(info->path);
    basalt_free(info->cmd);
    if (info->schema.release)
        info->schema.release(&info->schema);
    for (size_t i = 0; i < info->n_endpoints; i++) {
        basalt_free(info->endpoints[i].ticket);
        basalt_free(info->endpoints[i].location);
    }
    basalt_free(info->endpoints);
    memset(info, 0, sizeof *info);
}

static basalt_status info_from(const BasaltFlightWire__FlightInfo *fi,
                               struct basalt_flight_info *out, struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    out->total_records = fi->total_records;
    out->total_bytes = fi->total_bytes;
    out->ordered = fi->ordered;
    basalt_status st = BASALT_OK;
    if (fi->schema.len > 0)
        st = basalt_flight_schema_parse(fi->schema.data, fi->schema.len, &out->schema, err);
    const flight_descriptor_msg *d = fi->flight_descriptor;
    if (st == BASALT_OK && d) {
        if (d->n_path) {
            out->path = basalt_calloc(d->n_path, sizeof *out->path);
            if (!out->path)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            for (size_t i = 0; st == BASALT_OK && i < d->n_path; i++, out->n_path++)
                if (!(out->path[i] = dup_bytes(d->path[i], strlen(d->path[i]))))
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        if (st == BASALT_OK && d->cmd.len) {
            out->cmd = dup_bytes(d->cmd.data, d->cmd.len);
            out->cmd_len = d->cmd.len;
        }
    }
    if (st == BASALT_OK && fi->n_endpoint) {
        out->endpoints = basalt_calloc(fi->n_endpoint, sizeof *out->endpoints);
        if (!out->endpoints)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (size_t i = 0; st == BASALT_OK && i < fi->n_endpoint; i++, out->n_endpoints++) {
            const BasaltFlightWire__FlightEndpoint *e = fi->endpoint[i];
            struct basalt_flight_endpoint *o = &out->endpoints[i];
            if (e->ticket) {
                o->ticket = (uint8_t *)dup_bytes(e->ticket->ticket.data, e->ticket->ticket.len);
                o->ticket_len = e->ticket->ticket.len;
            }
            if (e->n_location && e->location[0]->uri)
                o->location = dup_bytes(e->location[0]->uri, strlen(e->location[0]->uri));
        }
    }
    if (st != BASALT_OK)
        basalt_flight_info_reset(out);
    return st;
}

static void descriptor_to_msg(const struct basalt_flight_descriptor *d, flight_descriptor_msg *m)
{
    basalt_flight_wire__flight_descriptor__init(m);
    if (d->n_path) {
        m->type = BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__PATH;
        m->n_path = d->n_path;
        m->path = (char **)(uintptr_t)d->path;
    } else {
        m->type = BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__CMD;
        m->cmd.data = (uint8_t *)(uintptr_t)d->cmd;
        m->cmd.len = d->cmd ? (d->cmd_len ? d->cmd_len : strlen(d->cmd)) : 0;
    }
}

struct infos {
    struct basalt_flight_info *items;
    size_t n;
};

static basalt_status on_info(void *ctx, const uint8_t *data, size_t len,
                             struct basalt_error *err)
{
    struct infos *in = ctx;
    BasaltFlightWire__FlightInfo *fi =
        basalt_flight_wire__flight_info__unpack(NULL, len, data);
    if (!fi)
        return basalt_error_set(err, BASALT_CORRUPT, "flight: a FlightInfo does not decode");
    struct basalt_flight_info *items = basalt_realloc(in->items, (in->n + 1) * sizeof *items);
    basalt_status st = BASALT_OK;
    if (!items)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    else {
        in->items = items;
        st = info_from(fi, &items[in->n], err);
        if (st == BASALT_OK)
            in->n++;
    }
    basalt_flight_wire__flight_info__free_unpacked(fi, NULL);
    return st;
}

static void infos_free(struct infos *in)
{
    for (size_t i = 0; i < in->n; i++)
        basalt_flight_info_reset(&in->items[i]);
    basalt_free(in->items);
}

basalt_status basalt_flight_client_get_info(struct basalt_flight_client *c,
                                            const struct basalt_flight_descriptor *descriptor,
                                            struct basalt_flight_info *out,
                                            struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    flight_descriptor_msg d;
    descriptor_to_msg(descriptor, &d);
    struct infos in = {0};
    basalt_status st = call(c, "GetFlightInfo", &d.base, on_info, &in, err);
    if (st == BASALT_OK && in.n != 1)
        st = basalt_error_set(err, BASALT_CORRUPT, "flight: GetFlightInfo answered %zu infos",
                              in.n);
    if (st == BASALT_OK) {
        *out = in.items[0];
        in.n = 0;
    }
    infos_free(&in);
    return st;
}

basalt_status basalt_flight_client_list(struct basalt_flight_client *c, const char *criteria,
                                        struct basalt_flight_info **out, size_t *n,
                                        struct basalt_error *err)
{
    *out = NULL;
    *n = 0;
    BasaltFlightWire__Criteria cr = BASALT_FLIGHT_WIRE__CRITERIA__INIT;
    cr.expression.data = (uint8_t *)(uintptr_t)(criteria ? criteria : "");
    cr.expression.len = criteria ? strlen(criteria) : 0;
    struct infos in = {0};
    basalt_status st = call(c, "ListFlights", &cr.base, on_info, &in, err);
    if (st != BASALT_OK) {
        infos_free(&in);
        return st;
    }
    *out = in.items;
    *n = in.n;
    return BASALT_OK;
}

static basalt_status on_schema(void *ctx, const uint8_t *data, size_t len,
                               struct basalt_error *err)
{
    struct ArrowSchema *out = ctx;
    BasaltFlightWire__SchemaResult *r =
        basalt_flight_wire__schema_result__unpack(NULL, len, data);
    if (!r)
        return basalt_error_set(err, BASALT_CORRUPT, "flight: a SchemaResult does not decode");
    if (out->release)
        out->release(out);
    basalt_status st = basalt_flight_schema_parse(r->schema.data, r->schema.len, out, err);
    basalt_flight_wire__schema_result__free_unpacked(r, NULL);
    return st;
}

basalt_status basalt_flight_client_get_schema(struct basalt_flight_client *c,
                                              const struct basalt_flight_descriptor *descriptor,
                                              struct ArrowSchema *out, struct basalt_error *err)
{
    out->release = NULL;
    flight_descriptor_msg d;
    descriptor_to_msg(descriptor, &d);
    basalt_status st = call(c, "GetSchema", &d.base, on_schema, out, err);
    if (st == BASALT_OK && !out->release)
        st = basalt_error_set(err, BASALT_CORRUPT, "flight: GetSchema answered no schema");
    return st;
}

/* ------------------------------------------------------------ actions */

static basalt_status on_result(void *ctx, const uint8_t *data, size_t len,
                               struct basalt_error *err)
{
    struct basalt_buffer *b = ctx;
    BasaltFlightWire__Result *r = basalt_flight_wire__result__unpack(NULL, len, data);
    if (!r)
        return basalt_error_set(err, BASALT_CORRUPT, "flight: a Result does not decode");
    basalt_status st = basalt_buffer_append(b, r->body.data, r->body.len, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, "\n", 1, err);
    basalt_flight_wire__result__free_unpacked(r, NULL);
    return st;
}

static basalt_status on_action_type(void *ctx, const uint8_t *data, size_t len,
                                    struct basalt_error *err)
{
    struct basalt_buffer *b = ctx;
    BasaltFlightWire__ActionType *t =
        basalt_flight_wire__action_type__unpack(NULL, len, data);
    if (!t)
        return basalt_error_set(err, BASALT_CORRUPT, "flight: an ActionType does not decode");
    basalt_status st = basalt_buffer_append(b, t->type, strlen(t->type), err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, ": ", 2, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, t->description, strlen(t->description), err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, "\n", 1, err);
    basalt_flight_wire__action_type__free_unpacked(t, NULL);
    return st;
}

static basalt_status text_result(basalt_status st, struct basalt_buffer *b, char **result,
                                 struct basalt_error *err)
{
    if (st == BASALT_OK && !(*result = dup_bytes(b->data, b->size)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_buffer_reset(b);
    return st;
}

basalt_status basalt_flight_client_do_action(struct basalt_flight_client *c, const char *type,
                                             const char *body, char **result,
                                             struct basalt_error *err)
{
    *result = NULL;
    BasaltFlightWire__Action a;
    basalt_flight_wire__action__init(&a); /* (the INIT macro casts away const) */
    a.type = (char *)(uintptr_t)type;
    a.body.data = (uint8_t *)(uintptr_t)(body ? body : "");
    a.body.len = body ? strlen(body) : 0;
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = call(c, "DoAction", &a.base, on_result, &b, err);
    return text_result(st, &b, result, err);
}

basalt_status basalt_flight_client_list_actions(struct basalt_flight_client *c, char **result,
                                                struct basalt_error *err)
{
    *result = NULL;
    BasaltFlightWire__Empty e = BASALT_FLIGHT_WIRE__EMPTY__INIT;
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = call(c, "ListActions", &e.base, on_action_type, &b, err);
    return text_result(st, &b, result, err);
}

/* ------------------------------------------------------------ DoGet */

struct get_stream {
    struct basalt_flight_client *client;
    struct grpc_client_call *call;
    struct basalt_ipc_reader *reader;
    bool ended;
    char message[BASALT_ERROR_MESSAGE_MAX];
};

static int errno_of(basalt_status st)
{
    return st == BASALT_NOMEM ? ENOMEM : st == BASALT_CORRUPT ? EINVAL : EIO;
}

/* A received message in the IPC reader's hands: batches point into its
 * allocation, freed with the unpacked fields when the last is released. */
struct received {
    uint8_t *block;
    flight_data_msg *fd;
};

static void received_free(void *ctx)
{
    struct received *r = ctx;
    protobuf_c_message_free_unpacked(&r->fd->base, NULL);
    basalt_free(r->block);
    basalt_free(r);
}

/* Gives a received FlightData (`data` inside `block`, taken) to the reader,
 * its body where it was received. */
static basalt_status push_received(struct basalt_ipc_reader *reader, uint8_t *block,
                                   const uint8_t *data, size_t len, struct ArrowArray *out,
                                   struct basalt_error *err)
{
    struct received *r = basalt_malloc(sizeof *r);
    if (!r) {
        basalt_free(block);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    r->block = block;
    const uint8_t *body;
    size_t body_len;
    basalt_status st = basalt_flight_data_view(data, len, &r->fd, &body, &body_len, err);
    if (st != BASALT_OK) {
        basalt_free(block);
        basalt_free(r);
        return st;
    }
    return basalt_ipc_reader_push_message(reader, r->fd->data_header.data, r->fd->data_header.len,
                                          body, body_len, received_free, r, out, err);
}

/* Reads messages until a record batch (or the end). */
static basalt_status pull(struct get_stream *g, struct ArrowArray *out, struct basalt_error *err)
{
    out->release = NULL;
    while (!g->ended) {
        uint8_t *block, *data;
        size_t len;
        basalt_status st = basalt_grpc_call_next_placed(g->call, &block, &data, &len, err);
        if (st != BASALT_OK)
            return st;
        if (!data) {
            g->ended = true;
            if (!g->reader)
                return basalt_error_set(err, BASALT_CORRUPT, "flight: DoGet sent no schema");
            break;
        }
        st = push_received(g->reader, block, data, len, out, err);
        if (st != BASALT_OK || out->release)
            return st;
    }
    return BASALT_OK;
}

static int gs_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct get_stream *g = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = pull(g, out, &err);
    if (st != BASALT_OK) {
        snprintf(g->message, sizeof g->message, "%s", err.message);
        return errno_of(st);
    }
    return 0;
}

static int gs_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct get_stream *g = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_ipc_reader_schema(g->reader, out, &err) != BASALT_OK) {
        snprintf(g->message, sizeof g->message, "%s", err.message);
        return ENOMEM;
    }
    return 0;
}

static const char *gs_last_error(struct ArrowArrayStream *s)
{
    struct get_stream *g = s->private_data;
    return g->message[0] ? g->message : NULL;
}

static void gs_release(struct ArrowArrayStream *s)
{
    struct get_stream *g = s->private_data;
    if (g) {
        basalt_grpc_call_free(g->call);
        basalt_ipc_reader_close(g->reader);
        g->client->streaming = false;
        basalt_free(g);
    }
    s->release = NULL;
    s->private_data = NULL;
}

basalt_status basalt_flight_client_get_stats(const struct ArrowArrayStream *s,
                                            struct basalt_ipc_read_stats *out,
                                            struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!s || s->release != gs_release || !s->private_data)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: not a DoGet stream");
    const struct get_stream *g = s->private_data;
    if (g->reader)
        basalt_ipc_reader_stats(g->reader, out);
    return BASALT_OK;
}

basalt_status basalt_flight_client_do_get(struct basalt_flight_client *c, const uint8_t *ticket,
                                          size_t ticket_len, struct ArrowArrayStream *out,
                                          struct basalt_error *err)
{
    out->release = NULL;
    if (c->streaming)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: a DoGet stream is still open");
    BasaltFlightWire__Ticket t = BASALT_FLIGHT_WIRE__TICKET__INIT;
    t.ticket.data = (uint8_t *)(uintptr_t)ticket;
    t.ticket.len = ticket_len;
    struct get_stream *g = basalt_calloc(1, sizeof *g);
    if (!g)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    g->client = c;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_ipc_reader_new_messages("flight DoGet", NULL, &g->reader, err);
    if (st == BASALT_OK)
        st = basalt_buffer_resize(&buf, protobuf_c_message_get_packed_size(&t.base), err);
    if (st == BASALT_OK) {
        protobuf_c_message_pack(&t.base, buf.data);
        st = basalt_grpc_call_start(c->grpc, "DoGet", &g->call, err);
    }
    if (st == BASALT_OK)
        basalt_grpc_call_set_placement(g->call, basalt_flight_data_place);
    struct basalt_ipc_piece piece = {buf.data, buf.size};
    if (st == BASALT_OK)
        st = basalt_grpc_call_send(g->call, &piece, 1, true, err);
    /* The schema message comes first: read it now, so that get_schema
     * works and a refused ticket fails here. */
    struct ArrowArray first;
    first.release = NULL;
    if (st == BASALT_OK) {
        uint8_t *block, *data;
        size_t len;
        st = basalt_grpc_call_next_placed(g->call, &block, &data, &len, err);
        if (st == BASALT_OK && !data)
            st = basalt_error_set(err, BASALT_CORRUPT, "flight: DoGet sent no schema");
        if (st == BASALT_OK)
            st = push_received(g->reader, block, data, len, &first, err);
        if (st == BASALT_OK && first.release) {
            first.release(&first);
            st = basalt_error_set(err, BASALT_CORRUPT, "flight: DoGet did not start with a schema");
        }
    }
    basalt_buffer_reset(&buf);
    if (st != BASALT_OK) {
        basalt_grpc_call_free(g->call);
        basalt_ipc_reader_close(g->reader);
        basalt_free(g);
        return basalt_error_context(err, st, "DoGet");
    }
    c->streaming = true;
    out->get_schema = gs_get_schema;
    out->get_next = gs_get_next;
    out->get_last_error = gs_last_error;
    out->release = gs_release;
    out->private_data = g;
    return BASALT_OK;
}

/* ------------------------------------------------------------ DoPut */

static basalt_status send_frame(struct grpc_client_call *gc, const struct basalt_ipc_message *m,
                                const flight_descriptor_msg *d, struct basalt_error *err)
{
    flight_data_msg fd = BASALT_FLIGHT_WIRE__FLIGHT_DATA__INIT;
    fd.flight_descriptor = (flight_descriptor_msg *)(uintptr_t)d;
    fd.data_header.data = (uint8_t *)(uintptr_t)m->metadata;
    fd.data_header.len = m->metadata_len;
    /* The body is gathered: requests are copied into the call's queue. */
    struct basalt_buffer body;
    basalt_buffer_init(&body);
    basalt_status st = BASALT_OK;
    for (size_t i = 0; st == BASALT_OK && i < m->n_body; i++)
        st = basalt_buffer_append(&body, m->body[i].data, m->body[i].len, err);
    fd.data_body.data = body.data;
    fd.data_body.len = body.size;
    struct basalt_buffer packed;
    basalt_buffer_init(&packed);
    if (st == BASALT_OK)
        st = basalt_buffer_resize(&packed, protobuf_c_message_get_packed_size(&fd.base), err);
    if (st == BASALT_OK) {
        protobuf_c_message_pack(&fd.base, packed.data);
        struct basalt_ipc_piece piece = {packed.data, packed.size};
        st = basalt_grpc_call_send(gc, &piece, 1, false, err);
    }
    basalt_buffer_reset(&body);
    basalt_buffer_reset(&packed);
    return st;
}

basalt_status basalt_flight_client_do_put(struct basalt_flight_client *c,
                                          const struct basalt_flight_descriptor *descriptor,
                                          struct ArrowArrayStream *stream, char **result,
                                          struct basalt_error *err)
{
    if (result)
        *result = NULL;
    struct ArrowSchema schema;
    schema.release = NULL;
    struct basalt_ipc_encoder *enc = NULL;
    struct grpc_client_call *gc = NULL;
    /* The caller's stream may come from anywhere: validated as it is read. */
    struct ArrowArrayStream checked;
    basalt_status st = basalt_arrow_stream_import(stream, BASALT_ARROW_VALIDATE_FULL, &checked,
                                                  err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "DoPut");
    stream = &checked;
    if (c->streaming)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "flight: a DoGet stream is still open");
    else if (stream->get_schema(stream, &schema) != 0)
        st = basalt_error_set(err, BASALT_IO, "flight: DoPut: the stream's schema: %s",
                              stream->get_last_error(stream) ? stream->get_last_error(stream)
                                                             : "(no message)");
    if (st == BASALT_OK)
        st = basalt_ipc_encoder_new(&schema, NULL, &enc, err);
    if (st == BASALT_OK)
        st = basalt_grpc_call_start(c->grpc, "DoPut", &gc, err);
    flight_descriptor_msg d;
    descriptor_to_msg(descriptor, &d);
    if (st == BASALT_OK) {
        struct basalt_ipc_message sm;
        basalt_ipc_encoder_schema(enc, &sm);
        st = send_frame(gc, &sm, &d, err);
    }
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        batch.release = NULL;
        if (stream->get_next(stream, &batch) != 0) {
            const char *m = stream->get_last_error(stream);
            st = basalt_error_set(err, BASALT_IO, "flight: DoPut: the stream: %s",
                                  m ? m : "(no message)");
            break;
        }
        if (!batch.release)
            break;
        const struct basalt_ipc_message *msgs;
        size_t n;
        st = basalt_ipc_encoder_batch(enc, &batch, &msgs, &n, err);
        for (size_t i = 0; st == BASALT_OK && i < n; i++)
            st = send_frame(gc, &msgs[i], NULL, err);
        batch.release(&batch);
    }
    if (st == BASALT_OK)
        st = basalt_grpc_call_close_send(gc, err);
    /* The PutResult, then the status. */
    while (st == BASALT_OK) {
        uint8_t *data;
        size_t len;
        st = basalt_grpc_call_next(gc, &data, &len, err);
        if (st != BASALT_OK || !data)
            break;
        BasaltFlightWire__PutResult *r =
            basalt_flight_wire__put_result__unpack(NULL, len, data);
        basalt_free(data);
        if (!r) {
            st = basalt_error_set(err, BASALT_CORRUPT, "flight: a PutResult does not decode");
            break;
        }
        if (result) {
            basalt_free(*result);
            *result = dup_bytes(r->app_metadata.data, r->app_metadata.len);
        }
        basalt_flight_wire__put_result__free_unpacked(r, NULL);
    }
    basalt_grpc_call_free(gc);
    basalt_ipc_encoder_free(enc);
    if (schema.release)
        schema.release(&schema);
    if (stream->release)
        stream->release(stream);
    if (st != BASALT_OK) {
        if (result) {
            basalt_free(*result);
            *result = NULL;
        }
        return basalt_error_context(err, st, "DoPut");
    }
    return BASALT_OK;
}
