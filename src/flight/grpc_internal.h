/* gRPC over HTTP/2 (nghttp2) for the Flight server and client: the
 * transport below the Flight service. A call is one HTTP/2 stream; its
 * messages are framed as gRPC frames them (a compressed flag, a big-endian
 * length, the protobuf bytes) and it ends with trailers carrying
 * grpc-status and grpc-message. Visible to src/flight only. */
#ifndef BASALT_FLIGHT_GRPC_INTERNAL_H
#define BASALT_FLIGHT_GRPC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basalt/core.h"
#include "basalt/ipc.h"

/* gRPC status codes (grpc/doc/statuscodes.md). */
enum grpc_code {
    GRPC_OK = 0,
    GRPC_CANCELLED = 1,
    GRPC_UNKNOWN = 2,
    GRPC_INVALID_ARGUMENT = 3,
    GRPC_DEADLINE_EXCEEDED = 4,
    GRPC_NOT_FOUND = 5,
    GRPC_ALREADY_EXISTS = 6,
    GRPC_PERMISSION_DENIED = 7,
    GRPC_RESOURCE_EXHAUSTED = 8,
    GRPC_FAILED_PRECONDITION = 9,
    GRPC_ABORTED = 10,
    GRPC_OUT_OF_RANGE = 11,
    GRPC_UNIMPLEMENTED = 12,
    GRPC_INTERNAL = 13,
    GRPC_UNAVAILABLE = 14,
    GRPC_DATA_LOSS = 15,
    GRPC_UNAUTHENTICATED = 16
};

/* The gRPC code for a basalt status. */
enum grpc_code basalt_grpc_code_of(basalt_status st);
/* The basalt status for a gRPC code (a client's view of a failed call). */
basalt_status basalt_grpc_status_of(enum grpc_code code);

/* ------------------------------------------------------------ server side */

/* The next message of a response: `pieces` concatenated, views valid until
 * the next call of `next` or `free`. */
struct grpc_message_out {
    const struct basalt_ipc_piece *pieces;
    size_t n_pieces;
    size_t len;
};

/* A call as the service sees it. The transport calls message() for each
 * request message, then finish() once the client has half-closed; finish
 * returns the response through *producer (or a status without messages).
 * next() yields response messages one at a time until *done. free() is
 * called once, whatever happened. */
struct grpc_call_ops {
    basalt_status (*message)(void *call, const uint8_t *data, size_t len,
                             struct basalt_error *err);
    basalt_status (*finish)(void *call, struct basalt_error *err);
    basalt_status (*next)(void *call, struct grpc_message_out *out, bool *done,
                          struct basalt_error *err);
    void (*free)(void *call);
};

/* Starts a call of `method` (the part after "/arrow.flight.protocol.FlightService/")
 * or fails it (NOT_FOUND: unknown method -> UNIMPLEMENTED; AUTH -> UNAUTHENTICATED). */
typedef basalt_status (*grpc_begin_fn)(void *service, const char *method,
                                       const char *authorization, void **call,
                                       const struct grpc_call_ops **ops,
                                       struct basalt_error *err);

struct grpc_server_config {
    const char *host;          /* default 127.0.0.1 */
    int port;                  /* 0: any free port */
    size_t max_message;        /* largest request message */
    uint32_t max_streams;      /* concurrent calls per connection */
    int max_connections;
    bool verbose;              /* one line per call on stderr */
    /* TLS (ALPN h2) with this PEM certificate chain and key; NULL: h2c. */
    const char *tls_cert, *tls_key;
};

struct grpc_server;

basalt_status basalt_grpc_server_start(const struct grpc_server_config *config,
                                       grpc_begin_fn begin, void *service,
                                       struct grpc_server **out, struct basalt_error *err);
int basalt_grpc_server_port(const struct grpc_server *server);
/* Stops accepting, closes every connection, joins the threads. */
void basalt_grpc_server_stop(struct grpc_server *server);

/* ------------------------------------------------------------ client side */

struct grpc_client;

/* A connection to host:port, over TLS when `tls` (the server's certificate
 * checked against `ca_file`, or the system's CAs when NULL, and its name). */
/* `timeout_ms` (0: none) bounds each wait for the server's bytes. */
basalt_status basalt_grpc_client_connect(const char *host, int port, bool tls, const char *ca_file,
                                         const char *authorization, size_t max_message,
                                         unsigned timeout_ms, struct grpc_client **out,
                                         struct basalt_error *err);
void basalt_grpc_client_close(struct grpc_client *client);

/* Receives the messages of a call's response. `data` is taken by the
 * callee: it frees it with basalt_free (or keeps it). */
typedef basalt_status (*grpc_message_fn)(void *ctx, uint8_t *data, size_t len,
                                         struct basalt_error *err);

struct grpc_client_call;

/* Starts a call of `method` sending the request messages (each one
 * protobuf buffer); with `half_close` the request side ends there. */
basalt_status basalt_grpc_call_start(struct grpc_client *client, const char *method,
                                     struct grpc_client_call **out, struct basalt_error *err);
basalt_status basalt_grpc_call_send(struct grpc_client_call *call, const struct basalt_ipc_piece *pieces,
                                    size_t n_pieces, bool last, struct basalt_error *err);
/* Ends the request side (the messages sent so far were all). */
basalt_status basalt_grpc_call_close_send(struct grpc_client_call *call, struct basalt_error *err);
/* Pumps the connection until the call yields one response message (*data
 * taken by the caller, basalt_free) or ends (*data NULL): then the call's
 * status is returned (OK, or the status of grpc-status with grpc-message in
 * err). */
basalt_status basalt_grpc_call_next(struct grpc_client_call *call, uint8_t **data, size_t *len,
                                    struct basalt_error *err);
/* Response messages placed for their payload: given the first n bytes of
 * a message of len bytes, `place` returns the offset in it of the byte that
 * should sit 64-byte aligned, or GRPC_PLACE_MORE to see more bytes first
 * (past 64 KiB, or at the message's end, the message is placed at its
 * start). Set it before the first response byte arrives; then read with
 * basalt_grpc_call_next_placed, which also gives the allocation (`block`,
 * basalt_free) that `data` lies in. */
#define GRPC_PLACE_MORE SIZE_MAX
typedef size_t (*grpc_place_fn)(const uint8_t *msg, size_t n, size_t len);
void basalt_grpc_call_set_placement(struct grpc_client_call *call, grpc_place_fn place);
basalt_status basalt_grpc_call_next_placed(struct grpc_client_call *call, uint8_t **block,
                                           uint8_t **data, size_t *len,
                                           struct basalt_error *err);
void basalt_grpc_call_free(struct grpc_client_call *call);

#endif
