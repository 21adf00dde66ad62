/* The Flight server: the methods dispatched, authentication, and the calls
 * whose responses are computed whole (Handshake, ListFlights,
 * GetFlightInfo, GetSchema, DoAction, ListActions). DoGet and DoPut stream
 * (flight_get.c, flight_put.c). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flight_internal.h"

enum method {
    M_HANDSHAKE,
    M_LIST_FLIGHTS,
    M_GET_FLIGHT_INFO,
    M_GET_SCHEMA,
    M_DO_ACTION,
    M_LIST_ACTIONS
};

static const struct {
    const char *type, *description;
} actions[] = {
    {"tables", "every table of the catalog, one identifier per result"},
    {"plan", "the scan plan of a CMD-style JSON request {\"table\", \"columns\", \"filter\", "
             "\"snapshot\"}: files, tasks, rows and bytes, as JSON"},
    {"shm", "where a consumer on this machine reads tickets through shared memory: "
            "{\"socket\": PATH}, for basalt_flight_shm_open with a ticket of GetFlightInfo"},
};

/* A call whose response messages are computed in finish(). */
struct unary_call {
    struct basalt_flight_server *srv;
    enum method m;
    uint8_t *req;
    size_t req_len;
    int n_req;
    struct basalt_buffer *outs;
    size_t n_outs, cap_outs, out_i;
    struct basalt_ipc_piece piece;
};

void basalt_flight_server_options_init(struct basalt_flight_server_options *o)
{
    memset(o, 0, sizeof *o);
    o->host = "127.0.0.1";
    o->max_message = 64u << 20;
    o->max_streams = 100;
    o->max_connections = 256;
    o->compression = BASALT_CODEC_UNCOMPRESSED;
}

/* Appends one packed response message. */
static basalt_status add_out(struct unary_call *c, const ProtobufCMessage *msg,
                             struct basalt_error *err)
{
    if (c->n_outs == c->cap_outs) {
        size_t cap = c->cap_outs ? 2 * c->cap_outs : 4;
        struct basalt_buffer *o = basalt_realloc(c->outs, cap * sizeof *o);
        if (!o)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        c->outs = o;
        c->cap_outs = cap;
    }
    struct basalt_buffer *b = &c->outs[c->n_outs];
    basalt_buffer_init(b);
    basalt_status st = basalt_buffer_resize(b, protobuf_c_message_get_packed_size(msg), err);
    if (st != BASALT_OK)
        return st;
    protobuf_c_message_pack(msg, b->data);
    c->n_outs++;
    return BASALT_OK;
}

static basalt_status add_result(struct unary_call *c, const char *text, size_t len,
                                struct basalt_error *err)
{
    BasaltFlightWire__Result r = BASALT_FLIGHT_WIRE__RESULT__INIT;
    r.body.data = (uint8_t *)(uintptr_t)text;
    r.body.len = len;
    return add_out(c, &r.base, err);
}

/* ------------------------------------------------------------ FlightInfo */

/* A snapshot's "total-records" summary entry; -1 when it has none. */
static int64_t snapshot_records(const struct basalt_iceberg_table *t, int64_t snapshot_id)
{
    const struct basalt_iceberg_snapshot *snap =
        snapshot_id == -1 ? NULL : basalt_iceberg_metadata_snapshot(t->metadata, snapshot_id);
    for (uint32_t i = 0; snap && i < snap->n_summary; i++)
        if (!strcmp(snap->summary[i].key, "total-records"))
            return strtoll(snap->summary[i].value, NULL, 10);
    return snap ? -1 : 0;
}

/* The FlightInfo of a table (`with_endpoints`: planned, one endpoint per
 * task) for the descriptor `d`. */
static basalt_status flight_info(struct basalt_flight_server *srv, const struct flight_request *req,
                                 const flight_descriptor_msg *d, bool with_endpoints,
                                 struct unary_call *c, struct basalt_error *err)
{
    /* Endpoints need the plan, which the DoGets then share; a listing
     * needs only the schema. */
    struct flight_cached_scan *cached = NULL;
    struct flight_scan own;
    basalt_status st = with_endpoints ? basalt_flight_scan_acquire(srv, req, &cached, err)
                                      : basalt_flight_scan_open(srv, req, &own, err);
    if (st != BASALT_OK)
        return st;
    const struct flight_scan s = cached ? *basalt_flight_cached_scan(cached) : own;
    struct basalt_buffer schema_bytes;
    basalt_buffer_init(&schema_bytes);
    st = basalt_flight_schema_bytes(s.scan, &schema_bytes, err);
    BasaltFlightWire__FlightInfo info = BASALT_FLIGHT_WIRE__FLIGHT_INFO__INIT;
    info.schema.data = schema_bytes.data;
    info.schema.len = schema_bytes.size;
    info.flight_descriptor = (flight_descriptor_msg *)(uintptr_t)d;
    info.total_records = -1;
    info.total_bytes = -1;
    const struct basalt_iceberg_plan *plan = NULL;
    BasaltFlightWire__FlightEndpoint *eps = NULL, **epp = NULL;
    BasaltFlightWire__Ticket *tickets = NULL;
    BasaltFlightWire__Location loc, *locp = &loc;
    basalt_flight_wire__location__init(&loc);
    loc.uri = srv->location;
    if (st == BASALT_OK && with_endpoints)
        st = basalt_iceberg_scan_prepare_tasks(s.scan, &plan, err); /* planned: no I/O */
    if (st == BASALT_OK && plan) {
        uint32_t n = plan->n_tasks;
        eps = basalt_calloc(n ? n : 1, sizeof *eps);
        epp = basalt_calloc(n ? n : 1, sizeof *epp);
        tickets = basalt_calloc(n ? n : 1, sizeof *tickets);
        if (!eps || !epp || !tickets)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        int64_t records = 0, bytes = 0;
        bool exact = true;
        for (uint32_t i = 0; st == BASALT_OK && i < n; i++) {
            const struct basalt_iceberg_file_task *t = &plan->tasks[i];
            char *ticket = NULL;
            size_t tlen = 0;
            st = basalt_flight_ticket_make(req, s.snapshot_id, t, &ticket, &tlen, err);
            basalt_flight_wire__ticket__init(&tickets[i]);
            tickets[i].ticket.data = (uint8_t *)ticket;
            tickets[i].ticket.len = tlen;
            basalt_flight_wire__flight_endpoint__init(&eps[i]);
            eps[i].ticket = &tickets[i];
            if (srv->location) {
                eps[i].n_location = 1;
                eps[i].location = &locp;
            }
            epp[i] = &eps[i];
            /* Rows are exact when nothing filters the file's rows; a file
             * split into several tasks counts once. */
            exact = exact && t->n_deletes == 0 && t->residual->op == BASALT_ICEBERG_OP_TRUE;
            if (i == 0 || plan->tasks[i - 1].file != t->file)
                records += t->file->record_count;
            bytes += t->length;
        }
        info.n_endpoint = n;
        info.endpoint = epp;
        info.total_records = exact ? records : -1;
        info.total_bytes = bytes;
        info.ordered = false;
    }
    if (st == BASALT_OK && !plan)
        info.total_records = snapshot_records(s.table, s.snapshot_id);
    if (st == BASALT_OK)
        st = add_out(c, &info.base, err);
    for (uint32_t i = 0; plan && tickets && i < plan->n_tasks; i++)
        basalt_free(tickets[i].ticket.data);
    basalt_free(tickets);
    basalt_free(eps);
    basalt_free(epp);
    basalt_buffer_reset(&schema_bytes);
    if (cached)
        basalt_flight_scan_release(srv, cached);
    else
        basalt_flight_scan_close(&own);
    return st;
}

static basalt_status do_get_flight_info(struct unary_call *c, bool schema_only,
                                        struct basalt_error *err)
{
    flight_descriptor_msg *d = basalt_flight_wire__flight_descriptor__unpack(NULL, c->req_len,
                                                                                c->req);
    if (!d)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the FlightDescriptor does not decode");
    struct flight_request req;
    basalt_status st = basalt_flight_request_from_descriptor(d, &req, err);
    if (st == BASALT_OK && schema_only) {
        struct flight_scan s;
        st = basalt_flight_scan_open(c->srv, &req, &s, err);
        struct basalt_buffer bytes;
        basalt_buffer_init(&bytes);
        if (st == BASALT_OK)
            st = basalt_flight_schema_bytes(s.scan, &bytes, err);
        if (st == BASALT_OK) {
            BasaltFlightWire__SchemaResult r = BASALT_FLIGHT_WIRE__SCHEMA_RESULT__INIT;
            r.schema.data = bytes.data;
            r.schema.len = bytes.size;
            st = add_out(c, &r.base, err);
        }
        basalt_buffer_reset(&bytes);
        if (s.scan || s.table)
            basalt_flight_scan_close(&s);
    } else if (st == BASALT_OK) {
        st = flight_info(c->srv, &req, d, true, c, err);
    }
    basalt_flight_request_reset(&req);
    basalt_flight_wire__flight_descriptor__free_unpacked(d, NULL);
    return st;
}

/* Every table identifier of the catalog, namespaces walked depth first. */
static basalt_status list_tables(struct basalt_catalog *cat, const char *parent, int depth,
                                 char ***tables, size_t *n, struct basalt_error *err)
{
    if (depth > 16)
        return BASALT_OK;
    char **nss = NULL;
    size_t n_ns = 0;
    basalt_status st = basalt_catalog_list_namespaces(cat, parent, &nss, &n_ns, err);
    for (size_t i = 0; st == BASALT_OK && i < n_ns; i++) {
        char **t = NULL;
        size_t nt = 0;
        st = basalt_catalog_list_tables(cat, nss[i], &t, &nt, err);
        if (st == BASALT_OK && nt > 0) {
            char **grown = basalt_realloc(*tables, (*n + nt) * sizeof **tables);
            if (!grown) {
                basalt_string_list_free(t, nt);
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                break;
            }
            *tables = grown;
            memcpy(*tables + *n, t, nt * sizeof *t);
            *n += nt;
            basalt_free(t);
        }
        if (st == BASALT_OK)
            st = list_tables(cat, nss[i], depth + 1, tables, n, err);
    }
    basalt_string_list_free(nss, n_ns);
    return st;
}

static basalt_status catalog_tables(struct basalt_flight_server *srv, char ***tables, size_t *n,
                                    struct basalt_error *err)
{
    *tables = NULL;
    *n = 0;
    pthread_mutex_lock(&srv->catalog_lock);
    basalt_status st = list_tables(srv->catalog, NULL, 0, tables, n, err);
    pthread_mutex_unlock(&srv->catalog_lock);
    return st;
}

static basalt_status do_list_flights(struct unary_call *c, struct basalt_error *err)
{
    char **tables = NULL;
    size_t n = 0;
    basalt_status st = catalog_tables(c->srv, &tables, &n, err);
    for (size_t i = 0; st == BASALT_OK && i < n; i++) {
        /* PATH descriptor: the namespace levels, then the name. */
        char *parts[32];
        size_t np = 0;
        char *copy = tables[i];
        for (char *p = copy; np < 32;) {
            parts[np++] = p;
            char *dot = strchr(p, '.');
            if (!dot)
                break;
            *dot = 0;
            p = dot + 1;
        }
        flight_descriptor_msg d = BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__INIT;
        d.type = BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__PATH;
        d.n_path = np;
        d.path = parts;
        struct flight_request req;
        st = basalt_flight_request_from_descriptor(&d, &req, err);
        if (st == BASALT_OK)
            st = flight_info(c->srv, &req, &d, false, c, err);
        basalt_flight_request_reset(&req);
    }
    basalt_string_list_free(tables, n);
    return st;
}

static basalt_status do_action(struct unary_call *c, struct basalt_error *err)
{
    BasaltFlightWire__Action *a =
        basalt_flight_wire__action__unpack(NULL, c->req_len, c->req);
    if (!a)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the Action does not decode");
    basalt_status st = BASALT_OK;
    if (!strcmp(a->type, "tables")) {
        char **tables = NULL;
        size_t n = 0;
        st = catalog_tables(c->srv, &tables, &n, err);
        for (size_t i = 0; st == BASALT_OK && i < n; i++)
            st = add_result(c, tables[i], strlen(tables[i]), err);
        basalt_string_list_free(tables, n);
    } else if (!strcmp(a->type, "plan")) {
        flight_descriptor_msg d = BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__INIT;
        d.type = BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__CMD;
        d.cmd = a->body;
        struct flight_request req;
        struct flight_scan s;
        const struct basalt_iceberg_plan *plan = NULL;
        st = basalt_flight_request_from_descriptor(&d, &req, err);
        if (st == BASALT_OK) {
            st = basalt_flight_scan_open(c->srv, &req, &s, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_scan_prepare_tasks(s.scan, &plan, err);
            if (st == BASALT_OK) {
                char text[512];
                int len = snprintf(text, sizeof text,
                                   "{\"snapshot\":%lld,\"tasks\":%u,\"data_files\":%u,"
                                   "\"files_skipped_by_partition\":%u,"
                                   "\"files_skipped_by_metrics\":%u,\"delete_files\":%u,"
                                   "\"manifests\":%u,\"manifests_skipped\":%u}",
                                   (long long)s.snapshot_id, plan->n_tasks, plan->data_files_total,
                                   plan->files_skipped_by_partition, plan->files_skipped_by_metrics,
                                   plan->delete_files, plan->manifests_total,
                                   plan->manifests_skipped);
                st = add_result(c, text, (size_t)len, err);
            }
            if (s.table)
                basalt_flight_scan_close(&s);
            basalt_flight_request_reset(&req);
        }
    } else if (!strcmp(a->type, "shm")) {
        if (!c->srv->shm_socket) {
            st = basalt_error_set(err, BASALT_UNSUPPORTED, "this server does not serve shared "
                                  "memory (flight serve --shm-socket PATH)");
        } else {
            json_t *o = json_pack("{s:s}", "socket", c->srv->shm_socket);
            char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
            json_decref(o);
            st = text ? add_result(c, text, strlen(text), err)
                      : basalt_error_set(err, BASALT_NOMEM, "out of memory");
            free(text);
        }
    } else {
        st = basalt_error_set(err, BASALT_UNSUPPORTED, "no action '%.64s' (ListActions lists them)",
                              a->type);
    }
    basalt_flight_wire__action__free_unpacked(a, NULL);
    return st;
}

static basalt_status do_list_actions(struct unary_call *c, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (size_t i = 0; st == BASALT_OK && i < sizeof actions / sizeof actions[0]; i++) {
        BasaltFlightWire__ActionType t;
        basalt_flight_wire__action_type__init(&t);
        t.type = (char *)(uintptr_t)actions[i].type;
        t.description = (char *)(uintptr_t)actions[i].description;
        st = add_out(c, &t.base, err);
    }
    return st;
}

/* Handshake: the token for a payload equal to it, or for a BasicAuth
 * whose password is it; with no token configured, anything passes. */
static basalt_status do_handshake(struct unary_call *c, struct basalt_error *err)
{
    BasaltFlightWire__HandshakeRequest *h =
        basalt_flight_wire__handshake_request__unpack(NULL, c->req_len, c->req);
    if (!h)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the HandshakeRequest does not decode");
    const char *token = c->srv->token;
    bool ok = !token;
    if (token && h->payload.len == strlen(token) && !memcmp(h->payload.data, token, h->payload.len))
        ok = true;
    if (token && !ok) {
        BasaltFlightWire__BasicAuth *b =
            basalt_flight_wire__basic_auth__unpack(NULL, h->payload.len, h->payload.data);
        ok = b && b->password && !strcmp(b->password, token);
        if (b)
            basalt_flight_wire__basic_auth__free_unpacked(b, NULL);
    }
    basalt_status st = BASALT_OK;
    if (!ok) {
        st = basalt_error_set(err, BASALT_AUTH, "handshake refused: wrong token");
    } else {
        BasaltFlightWire__HandshakeResponse r =
            BASALT_FLIGHT_WIRE__HANDSHAKE_RESPONSE__INIT;
        r.protocol_version = h->protocol_version;
        r.payload.data = (uint8_t *)(uintptr_t)(token ? token : "");
        r.payload.len = token ? strlen(token) : 0;
        st = add_out(c, &r.base, err);
    }
    basalt_flight_wire__handshake_request__free_unpacked(h, NULL);
    return st;
}

/* ------------------------------------------------------------ unary calls */

static basalt_status unary_message(void *vcall, const uint8_t *data, size_t len,
                                   struct basalt_error *err)
{
    struct unary_call *c = vcall;
    /* Handshake is a stream: the last request message counts. */
    if (c->n_req++ > 0 && c->m != M_HANDSHAKE)
        return basalt_error_set(err, BASALT_INVALID_ARG, "one request message expected");
    basalt_free(c->req);
    c->req = basalt_malloc(len ? len : 1);
    if (!c->req)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(c->req, data, len);
    c->req_len = len;
    return BASALT_OK;
}

static basalt_status unary_finish(void *vcall, struct basalt_error *err)
{
    struct unary_call *c = vcall;
    if (c->n_req == 0 && c->m != M_LIST_ACTIONS && c->m != M_LIST_FLIGHTS)
        return basalt_error_set(err, BASALT_INVALID_ARG, "no request message");
    switch (c->m) {
    case M_HANDSHAKE: return do_handshake(c, err);
    case M_LIST_FLIGHTS: return do_list_flights(c, err);
    case M_GET_FLIGHT_INFO: return do_get_flight_info(c, false, err);
    case M_GET_SCHEMA: return do_get_flight_info(c, true, err);
    case M_DO_ACTION: return do_action(c, err);
    case M_LIST_ACTIONS: return do_list_actions(c, err);
    }
    return BASALT_INTERNAL;
}

static basalt_status unary_next(void *vcall, struct grpc_message_out *out, bool *done,
                                struct basalt_error *err)
{
    (void)err;
    struct unary_call *c = vcall;
    if (c->out_i == c->n_outs) {
        *done = true;
        return BASALT_OK;
    }
    struct basalt_buffer *b = &c->outs[c->out_i++];
    c->piece = (struct basalt_ipc_piece){b->data, b->size};
    out->pieces = &c->piece;
    out->n_pieces = 1;
    out->len = b->size;
    return BASALT_OK;
}

static void unary_free(void *vcall)
{
    struct unary_call *c = vcall;
    for (size_t i = 0; i < c->n_outs; i++)
        basalt_buffer_reset(&c->outs[i]);
    basalt_free(c->outs);
    basalt_free(c->req);
    basalt_free(c);
}

static const struct grpc_call_ops unary_ops = {unary_message, unary_finish, unary_next,
                                               unary_free};

static basalt_status begin(void *service, const char *method, const char *authorization,
                           void **call, const struct grpc_call_ops **ops,
                           struct basalt_error *err)
{
    struct basalt_flight_server *srv = service;
    static const struct {
        const char *name;
        int m; /* an enum method, or -1 DoGet, -2 DoPut */
    } methods[] = {{"Handshake", M_HANDSHAKE},     {"ListFlights", M_LIST_FLIGHTS},
                   {"GetFlightInfo", M_GET_FLIGHT_INFO}, {"GetSchema", M_GET_SCHEMA},
                   {"DoAction", M_DO_ACTION},       {"ListActions", M_LIST_ACTIONS},
                   {"DoGet", -1},                   {"DoPut", -2}};
    int m = -100;
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (!strcmp(methods[i].name, method))
            m = methods[i].m;
    if (m == -100)
        return basalt_error_set(err, BASALT_NOT_FOUND, "method %.40s is not implemented", method);
    if (srv->token && m != M_HANDSHAKE) {
        size_t tl = strlen(srv->token);
        if (strncmp(authorization, "Bearer ", 7) != 0 || strlen(authorization + 7) != tl ||
            memcmp(authorization + 7, srv->token, tl) != 0)
            return basalt_error_set(err, BASALT_AUTH, "%s: missing or wrong bearer token",
                                    method);
    }
    if (m == -1)
        return basalt_flight_get_begin(srv, call, ops, err);
    if (m == -2)
        return basalt_flight_put_begin(srv, call, ops, err);
    struct unary_call *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    c->srv = srv;
    c->m = (enum method)m;
    *call = c;
    *ops = &unary_ops;
    return BASALT_OK;
}

/* ------------------------------------------------------------ lifecycle */

static char *dup_str(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = basalt_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The shared-memory producer's tickets are Flight tickets, their Parquet
 * columns decoded straight into the producer's memory file. */
static basalt_status shm_open(void *ctx, const void *ticket, size_t len,
                              const struct basalt_arrow_allocator *allocator,
                              struct ArrowArrayStream *out, struct basalt_error *err)
{
    return basalt_flight_ticket_stream(ctx, ticket, len, allocator, out, err);
}

static void shm_log(void *ctx, basalt_status st, const char *message)
{
    (void)ctx;
    fprintf(stderr, "flight: shm: %s: %s\n", basalt_status_name(st), message);
}

static basalt_status start_shm(struct basalt_flight_server *srv, struct basalt_error *err)
{
    struct basalt_flight_shm_server_options so;
    basalt_flight_shm_server_options_init(&so);
    so.decode_in_place = srv->o.shm_decode_in_place;
    if (srv->o.verbose)
        so.log = shm_log;
    srv->shm_socket = dup_str(srv->o.shm_socket);
    if (!srv->shm_socket)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st =
        basalt_flight_shm_server_new(srv->shm_socket, shm_open, srv, &so, &srv->shm, err);
    if (st == BASALT_OK)
        st = basalt_flight_shm_server_start(srv->shm, err);
    return st;
}

basalt_status basalt_flight_server_start(struct basalt_catalog *catalog,
                                         const struct basalt_flight_server_options *options,
                                         struct basalt_flight_server **out,
                                         struct basalt_error *err)
{
    if (!out || !catalog)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight server: NULL catalog or out");
    *out = NULL;
    struct basalt_flight_server *srv = basalt_calloc(1, sizeof *srv);
    if (!srv)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (options)
        srv->o = *options;
    else
        basalt_flight_server_options_init(&srv->o);
    srv->catalog = catalog;
    srv->token = dup_str(srv->o.token);
    srv->location = dup_str(srv->o.location);
    pthread_mutex_init(&srv->catalog_lock, NULL);
    pthread_mutex_init(&srv->scans_lock, NULL);
    struct grpc_server_config gc = {srv->o.host,          srv->o.port,
                                    srv->o.max_message,   srv->o.max_streams,
                                    srv->o.max_connections, srv->o.verbose,
                                    srv->o.tls_cert_file, srv->o.tls_key_file};
    basalt_status st = srv->o.shm_socket ? start_shm(srv, err) : BASALT_OK;
    if (st == BASALT_OK)
        st = basalt_grpc_server_start(&gc, begin, srv, &srv->grpc, err);
    if (st != BASALT_OK) {
        basalt_flight_server_stop(srv);
        return st;
    }
    *out = srv;
    return BASALT_OK;
}

int basalt_flight_server_port(const struct basalt_flight_server *srv)
{
    return srv && srv->grpc ? basalt_grpc_server_port(srv->grpc) : -1;
}

void basalt_flight_server_shm_stats(const struct basalt_flight_server *srv,
                                    struct basalt_flight_shm_server_stats *out)
{
    memset(out, 0, sizeof *out);
    if (srv && srv->shm)
        basalt_flight_shm_server_stats(srv->shm, out);
}

void basalt_flight_server_stop(struct basalt_flight_server *srv)
{
    if (!srv)
        return;
    basalt_grpc_server_stop(srv->grpc);
    basalt_flight_shm_server_free(srv->shm);
    basalt_free(srv->shm_socket);
    basalt_flight_scan_cache_clear(srv);
    pthread_mutex_destroy(&srv->catalog_lock);
    pthread_mutex_destroy(&srv->scans_lock);
    basalt_free(srv->token);
    basalt_free(srv->location);
    basalt_free(srv);
}
